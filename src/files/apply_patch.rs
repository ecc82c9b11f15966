//! The `apply_patch` tool: parses the patch ([`crate::files::parse_patch`]), applies every file
//! section to an in-memory view of the workspace (so one patch may delete then re-add a file,
//! or touch a file twice), and commits the net result all-or-nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::files::apply::{apply_hunks, MatchQuality, SplitText};
use crate::files::atomic::{commit_file_changes_with_modes, ExpectedState, FileChange};
use crate::files::common::{binary_error, count_lines, is_binary, metadata_beneath, read_regular_file};
use crate::files::patch::{parse_patch, FileOperation, Patch, PatchFormat};
use crate::files::path::resolve_in_workspace;
use crate::registry::{CallContext, ToolAnnotations, ToolDescriptor, ToolOutput};
use crate::render::display_path;
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

pub(crate) fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "apply_patch".to_owned(),
        title: "Apply patch".to_owned(),
        description: "Apply a multi-file patch: add, delete, update and move files. Accepts the envelope format\n\
                      *** Begin Patch\n*** Add File: path/new.rs\n+line\n*** Delete File: path/old.rs\n\
                      *** Update File: path/a.rs\n*** Move to: path/b.rs   (optional)\n@@ fn anchor_line()   (optional: a line above the change)\n \
                      context line\n-removed line\n+added line\n*** End of File   (optional: the hunk ends the file)\n*** End Patch\n\
                      and git-style unified diffs (`diff --git`, `--- a/x`, `+++ b/x`, `@@ -a,b +c,d @@`, /dev/null for \
                      add/delete, rename from/to). Give about 3 lines of context around each change. Hunks are located \
                      exactly, then ignoring whitespace differences. All-or-nothing: if any hunk does not apply or any \
                      write fails, no file changes. A failing hunk error names the file, the hunk, the lines it looked \
                      for and the closest lines found."
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<ApplyPatchArguments>(),
        output_schema: Some(crate::schema::writing_output_schema::<ApplyPatchOutput>()),
        // Updates and deletes files; a second application of the same patch no longer applies.
        annotations: ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(60),
    }
}

/// The arguments of `apply_patch`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ApplyPatchArguments {
    /// The patch text (envelope or unified diff).
    patch: String,
}

/// The `structuredContent` of `apply_patch`.
#[derive(Serialize, JsonSchema)]
struct ApplyPatchOutput {
    /// The format the patch was read as.
    format: PatchFormat,
    /// One entry per file section, in patch order.
    files: Vec<PatchFileSummary>,
    /// Files added.
    added: usize,
    /// Files updated in place.
    updated: usize,
    /// Files deleted.
    deleted: usize,
    /// Files moved (possibly also updated).
    moved: usize,
    /// Whether anything changed on disk (false when the result equals the current content).
    changed_on_disk: bool,
    /// Notes of the parser (e.g. a missing `*** End Patch` tolerated).
    notes: Vec<String>,
}

/// What one file section of the patch did.
#[derive(Serialize, JsonSchema)]
struct PatchFileSummary {
    /// The file, relative to the workspace root (the destination of a move).
    path: String,
    /// What happened to it.
    action: PatchFileAction,
    /// The source of a move, else null.
    moved_from: Option<String>,
    /// 1-based lines of the updated file where each hunk applied.
    hunk_lines: Vec<usize>,
    /// Lines added.
    lines_added: usize,
    /// Lines removed.
    lines_removed: usize,
    /// Hunks located only by ignoring whitespace or punctuation, said per hunk.
    fuzzy_matches: Vec<String>,
}

/// What a patch section did to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PatchFileAction {
    /// Created.
    Added,
    /// Changed in place.
    Updated,
    /// Removed.
    Deleted,
    /// Moved to a new path (and possibly changed).
    Moved,
}

/// The files an `apply_patch` call will write — every operation's path and move destination,
/// resolved in the workspace — for the registry's pre-write layers; nothing when the patch will
/// not parse, and no path that will be refused.
pub(crate) fn planned_writes(ctx: &CallContext<'_>, arguments: &Value) -> Vec<PathBuf> {
    let Ok(arguments) = ApplyPatchArguments::deserialize(arguments) else { return Vec::new() };
    let Ok(patch) = parse_patch(&arguments.patch) else { return Vec::new() };
    let root = ctx.workspace_root();
    let mut paths = Vec::new();
    let mut deleting = Vec::new();
    for operation in &patch.operations {
        let path = resolve_in_workspace(root, operation.path()).ok();
        paths.extend(path.clone());
        match operation {
            FileOperation::Update { move_to: Some(to), .. } => {
                deleting.extend(path);
                paths.extend(resolve_in_workspace(root, to).ok());
            }
            FileOperation::Delete { .. } => deleting.extend(path),
            _ => (),
        }
    }
    crate::lsp::diagnostics_on_write::note_planned_deletions(ctx.deadline(), deleting);
    paths
}

pub(crate) fn run(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: ApplyPatchArguments = ctx.parse_arguments(arguments)?;
    let patch = parse_patch(&arguments.patch).map_err(|err| {
        ToolError::invalid(format!("the patch cannot be parsed: {err}"))
            .with_hint(
                "send either `*** Begin Patch` … `*** End Patch` with `*** Add File:`/`*** Delete File:`/`*** Update File:` \
                 sections, or a unified diff with `--- a/<path>`, `+++ b/<path>` and `@@` hunks",
            )
            .with_details(json!({"patch_line": err.line}))
    })?;
    let root = ctx.workspace_root();
    let mut view = WorkspaceView { root, files: Vec::new() };
    let mut summaries = Vec::new();
    for operation in &patch.operations {
        ctx.check_continue("applying the patch")?;
        summaries.push(view.apply(operation)?);
    }
    let changed: Vec<&ViewFile> = view.files.iter().filter(|file| file.current != file.original).collect();
    let new_file_modes: Vec<Option<u32>> = changed.iter().map(|file| file.new_file_mode).collect();
    let changes: Vec<FileChange> = changed
        .iter()
        .map(|file| FileChange {
            path: file.path.clone(),
            new_content: file.current.clone(),
            expected: match &file.original {
                Some(content) => ExpectedState::Content(content.clone()),
                None => ExpectedState::Absent,
            },
        })
        .collect();
    // A call cancelled (or out of time) before this point writes nothing.
    ctx.check_continue("about to write")?;
    let written = if changes.is_empty() { Vec::new() } else { commit_file_changes_with_modes(root, &changes, &new_file_modes)? };
    Ok(ToolOutput::new(render(&patch, &summaries, changes.is_empty())).with_written_paths(written))
}

/// The workspace as the patch sees it: files loaded on first touch, changed in memory.
struct WorkspaceView<'a> {
    root: &'a Path,
    files: Vec<ViewFile>,
}

struct ViewFile {
    path: PathBuf,
    original: Option<Vec<u8>>,
    current: Option<Vec<u8>>,
    /// Mode for the file if the commit creates it (a move's destination takes the source's).
    new_file_mode: Option<u32>,
    /// Permission bits of the file as loaded (None when it did not exist).
    mode: Option<u32>,
}

/// What one file section did, for the result.
struct SectionSummary {
    action: PatchFileAction,
    path: String,
    moved_from: Option<String>,
    hunk_lines: Vec<usize>,
    lines_added: usize,
    lines_removed: usize,
    fuzzy: Vec<String>,
}

impl WorkspaceView<'_> {
    fn apply(&mut self, operation: &FileOperation) -> Result<SectionSummary, ToolError> {
        match operation {
            FileOperation::Add { path, content, patch_line } => {
                let index = self.load(path, *patch_line)?;
                let shown = display_path(self.root, &self.files[index].path);
                if self.files[index].current.is_some() {
                    return Err(section_error(ErrorKind::Conflict, &shown, *patch_line, "cannot add it: the file already exists")
                        .with_hint(format!("use `*** Update File: {path}` to change it, or delete it first")));
                }
                self.files[index].current = Some(content.clone().into_bytes());
                Ok(summary(PatchFileAction::Added, shown, None, Vec::new(), count_lines(content), 0))
            }
            FileOperation::Delete { path, expected_content, patch_line } => {
                let index = self.load(path, *patch_line)?;
                let shown = display_path(self.root, &self.files[index].path);
                let Some(current) = self.files[index].current.take() else {
                    return Err(missing_error(&shown, *patch_line, "delete"));
                };
                if let Some(expected) = expected_content {
                    check_deleted_content(&shown, *patch_line, &current, expected)?;
                }
                let removed = count_lines(&String::from_utf8_lossy(&current));
                Ok(summary(PatchFileAction::Deleted, shown, None, Vec::new(), 0, removed))
            }
            FileOperation::Update { path, move_to, hunks, patch_line } => {
                let index = self.load(path, *patch_line)?;
                let shown = display_path(self.root, &self.files[index].path);
                let Some(current) = self.files[index].current.clone() else {
                    return Err(missing_error(&shown, *patch_line, "update"));
                };
                if is_binary(&current) {
                    return Err(binary_error(&shown, current.len() as u64, &current, "apply_patch"));
                }
                let text = String::from_utf8(current)
                    .map_err(|_| section_error(ErrorKind::InvalidArguments, &shown, *patch_line, "it is not valid UTF-8 text"))?;
                let applied = apply_hunks(&text, hunks).map_err(|failure| {
                    let mut message = format!(
                        "cannot apply the patch to {shown}: {failure}; nothing was changed\nlooked for:\n{}",
                        quote_lines(&failure.looked_for)
                    );
                    if let Some(closest) = &failure.closest {
                        message.push_str(&format!("\nclosest: {closest}"));
                    }
                    ToolError::new(ErrorKind::Conflict, message)
                        .with_hint(format!(
                            "read {shown} around the closest lines and redo hunk {} with the file's exact current text",
                            failure.hunk_number
                        ))
                        .with_details(json!({
                            "path": shown,
                            "hunk_number": failure.hunk_number,
                            "hunk_count": failure.hunk_count,
                            "patch_line": failure.patch_line,
                            "looked_for": failure.looked_for,
                            "closest": failure.closest,
                        }))
                })?;
                let fuzzy = applied
                    .hunks
                    .iter()
                    .enumerate()
                    .filter(|(_, hunk)| hunk.quality != MatchQuality::Exact)
                    .map(|(number, hunk)| {
                        format!("hunk {} matched {} at line {}", number + 1, describe_quality(hunk.quality), hunk.old_line)
                    })
                    .collect();
                let hunk_lines = applied.hunks.iter().map(|hunk| hunk.old_line).collect();
                let lines_added = hunks.iter().map(|hunk| hunk.added_count()).sum();
                let lines_removed = hunks.iter().map(|hunk| hunk.removed_count()).sum();
                let new_content = applied.content.into_bytes();
                let mut section = summary(PatchFileAction::Updated, shown.clone(), None, hunk_lines, lines_added, lines_removed);
                section.fuzzy = fuzzy;
                let Some(destination) = move_to else {
                    self.files[index].current = Some(new_content);
                    return Ok(section);
                };
                let target = self.load(destination, *patch_line)?;
                if target == index {
                    self.files[index].current = Some(new_content);
                    return Ok(section);
                }
                let target_shown = display_path(self.root, &self.files[target].path);
                if self.files[target].current.is_some() {
                    return Err(section_error(
                        ErrorKind::Conflict,
                        &shown,
                        *patch_line,
                        &format!("cannot move it to {target_shown}: that file already exists"),
                    )
                    .with_hint("delete the destination first in the same patch, or choose another name"));
                }
                let source_mode = self.files[index].mode;
                self.files[index].current = None;
                self.files[target].current = Some(new_content);
                self.files[target].new_file_mode = source_mode.or(self.files[index].new_file_mode);
                section.action = PatchFileAction::Moved;
                section.moved_from = Some(shown);
                section.path = target_shown;
                Ok(section)
            }
        }
    }

    /// Index of `user_path`'s entry, loading it from disk on first touch.
    fn load(&mut self, user_path: &str, patch_line: usize) -> Result<usize, ToolError> {
        let path = resolve_in_workspace(self.root, user_path).map_err(|mut err| {
            err.message = format!("patch section at line {patch_line}: {}", err.message);
            err
        })?;
        if let Some(index) = self.files.iter().position(|file| file.path == path) {
            return Ok(index);
        }
        let shown = display_path(self.root, &path);
        let metadata = metadata_beneath(self.root, &path)?;
        let original = match &metadata {
            Some(metadata) if metadata.is_dir() => {
                return Err(section_error(ErrorKind::InvalidArguments, &shown, patch_line, "it is a directory, not a file"))
            }
            Some(metadata) if !metadata.is_file() => {
                return Err(ToolError::invalid(format!(
                    "cannot apply the patch to {shown}: it is not a regular file (a FIFO, socket, device or a symlink that appeared after the path was resolved); nothing was written"
                )))
            }
            Some(_) => Some(read_regular_file(self.root, &path, "apply_patch")?),
            None => None,
        };
        let mode = metadata.map(|metadata| std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o7777);
        self.files.push(ViewFile { path, current: original.clone(), original, new_file_mode: None, mode });
        Ok(self.files.len() - 1)
    }
}

fn summary(
    action: PatchFileAction,
    path: String,
    moved_from: Option<String>,
    hunk_lines: Vec<usize>,
    lines_added: usize,
    lines_removed: usize,
) -> SectionSummary {
    SectionSummary { action, path, moved_from, hunk_lines, lines_added, lines_removed, fuzzy: Vec::new() }
}

fn section_error(kind: ErrorKind, shown: &str, patch_line: usize, problem: &str) -> ToolError {
    ToolError::new(kind, format!("cannot apply the patch to {shown} (section at patch line {patch_line}): {problem}; nothing was changed"))
}

fn missing_error(shown: &str, patch_line: usize, action: &str) -> ToolError {
    section_error(ErrorKind::NotFound, shown, patch_line, &format!("cannot {action} it: no such file"))
        .with_hint("check the path (read the directory); to create a file use `*** Add File:`")
}

/// A unified diff's deleted content must match the file (ignoring trailing whitespace).
fn check_deleted_content(shown: &str, patch_line: usize, current: &[u8], expected: &str) -> Result<(), ToolError> {
    let current = String::from_utf8_lossy(current);
    let file = SplitText::new(&current);
    let wanted = SplitText::new(expected);
    let same = file.lines.len() == wanted.lines.len() && file.lines.iter().zip(&wanted.lines).all(|(a, b)| a.trim_end() == b.trim_end());
    if same {
        return Ok(());
    }
    Err(section_error(
        ErrorKind::Conflict,
        shown,
        patch_line,
        &format!(
            "the diff deletes it, but its content ({} lines) differs from the deleted lines in the diff ({} lines)",
            file.lines.len(),
            wanted.lines.len()
        ),
    )
    .with_hint(format!("use `*** Begin Patch` / `*** Delete File: {shown}` / `*** End Patch`, which needs no content")))
}

fn quote_lines(lines: &[String]) -> String {
    const MAX_QUOTED: usize = 12;
    let mut out: Vec<String> = lines.iter().take(MAX_QUOTED).map(|line| format!("  |{line}")).collect();
    if let Some(notice) = crate::render::truncation_notice(out.len(), lines.len(), "lines") {
        out.push(format!("  ({notice})"));
    }
    out.join("\n")
}

fn describe_quality(quality: MatchQuality) -> &'static str {
    match quality {
        MatchQuality::Exact => "exactly",
        MatchQuality::IgnoringTrailingWhitespace => "ignoring trailing whitespace",
        MatchQuality::IgnoringWhitespace => "ignoring indentation and whitespace",
        MatchQuality::IgnoringPunctuation => "ignoring whitespace and typographic punctuation",
    }
}

fn render(patch: &Patch, sections: &[SectionSummary], nothing_changed: bool) -> ToolResult {
    let count = |action: PatchFileAction| sections.iter().filter(|section| section.action == action).count();
    let mut parts = Vec::new();
    for (action, label) in [(PatchFileAction::Added, "added"), (PatchFileAction::Updated, "updated"), (PatchFileAction::Deleted, "deleted")]
    {
        let n = count(action);
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    let moves: Vec<String> = sections
        .iter()
        .filter(|section| section.action == PatchFileAction::Moved)
        .map(|section| format!("{} → {}", section.moved_from.as_deref().unwrap_or("?"), section.path))
        .collect();
    if !moves.is_empty() {
        parts.push(format!("{} moved {}", moves.len(), moves.join(", ")));
    }
    let file_word = if sections.len() == 1 { "file" } else { "files" };
    let mut lines = vec![if nothing_changed {
        format!(
            "applied patch: {} {file_word} ({}); no change on disk: the result equals the current content",
            sections.len(),
            parts.join(", ")
        )
    } else {
        format!("applied patch: {} {file_word} ({})", sections.len(), parts.join(", "))
    }];
    for section in sections {
        let letter = match section.action {
            PatchFileAction::Added => "A",
            PatchFileAction::Deleted => "D",
            PatchFileAction::Moved => "R",
            PatchFileAction::Updated => "M",
        };
        let name = match &section.moved_from {
            Some(from) => format!("{from} → {}", section.path),
            None => section.path.clone(),
        };
        let mut line = format!("{letter} {name}");
        if !section.hunk_lines.is_empty() {
            let at: Vec<String> = section.hunk_lines.iter().map(usize::to_string).collect();
            let hunk_word = if at.len() == 1 { "hunk at line" } else { "hunks at lines" };
            line.push_str(&format!(": {} {hunk_word} {}", at.len(), at.join(", ")));
        }
        line.push_str(&format!(" (+{} -{})", section.lines_added, section.lines_removed));
        lines.push(line);
        for fuzzy in &section.fuzzy {
            lines.push(format!("  note: {fuzzy}"));
        }
    }
    for note in &patch.notes {
        lines.push(format!("note: {note}"));
    }
    let files: Vec<PatchFileSummary> = sections
        .iter()
        .map(|section| PatchFileSummary {
            path: section.path.clone(),
            action: section.action,
            moved_from: section.moved_from.clone(),
            hunk_lines: section.hunk_lines.clone(),
            lines_added: section.lines_added,
            lines_removed: section.lines_removed,
            fuzzy_matches: section.fuzzy.clone(),
        })
        .collect();
    ToolResult::text(lines.join("\n")).with_structured(to_structured(&ApplyPatchOutput {
        format: patch.format,
        files,
        added: count(PatchFileAction::Added),
        updated: count(PatchFileAction::Updated),
        deleted: count(PatchFileAction::Deleted),
        moved: count(PatchFileAction::Moved),
        changed_on_disk: !nothing_changed,
        notes: patch.notes.clone(),
    }))
}
