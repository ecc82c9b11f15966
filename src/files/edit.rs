//! The `edit` tool: exact-string replacement in one file. A non-unique match is an error that
//! says how many and at which lines (unless `replace_all`); no match is an error with a hint
//! (a whitespace-insensitive match, or the closest lines).

use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::files::apply::{closest_line, closest_window, SplitText};
use crate::files::atomic::{commit_file_changes_in, ExpectedState, FileChange};
use crate::files::common::{count_lines, line_of_offset, numbered_excerpt, read_text_file};
use crate::files::path::resolve_in_workspace;
use crate::registry::{CallContext, ToolAnnotations, ToolDescriptor, ToolOutput};
use crate::render::display_path;
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

/// Most match lines listed in a "not unique" error.
const MAX_LISTED_MATCH_LINES: usize = 20;

pub(crate) fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "edit".to_owned(),
        title: "Edit file".to_owned(),
        description: "Replace an exact string in a file. old_string must match the file's text exactly \
                      (whitespace and indentation included; copy it from read output without the line-number \
                      prefix) and must occur exactly once, unless replace_all is true. If it occurs several times \
                      the error says how many and at which lines: add surrounding lines to make it unique. If it is \
                      not found the error points at the closest text. The write is atomic and fails if the file \
                      changed meanwhile. Returns the lines of the change."
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<EditArguments>(),
        output_schema: Some(crate::schema::writing_output_schema::<EditOutput>()),
        // Replaces text; the same call again edits the new text again (or fails).
        annotations: ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(30),
    }
}

/// The arguments of `edit`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EditArguments {
    /// File path relative to the workspace root (or absolute inside it).
    path: String,
    /// Exact text to replace (non-empty).
    #[schemars(length(min = 1))]
    old_string: String,
    /// Replacement text (may be empty to delete).
    new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    replace_all: bool,
}

/// The `structuredContent` of `edit`.
#[derive(Serialize, JsonSchema)]
struct EditOutput {
    /// The file, relative to the workspace root.
    path: String,
    /// Number of replacements made.
    replacements: usize,
    /// 1-based line where each replacement starts in the edited file.
    lines: Vec<usize>,
    /// 1-based line where each replaced occurrence started before the edit.
    lines_before_edit: Vec<usize>,
}

/// The file an `edit` call will write (its `path`, resolved in the workspace), for the
/// registry's pre-write layers; nothing when the arguments or the path will be refused.
pub(crate) fn planned_writes(ctx: &CallContext<'_>, arguments: &Value) -> Vec<PathBuf> {
    // An edit `run` refuses at once (empty or unchanged text) writes nothing: no pre-write
    // baseline is taken for it (trial151 M7: an identical old_string and new_string waited 10 s
    // on rust-analyzer's pre-write state before the refusal).
    EditArguments::deserialize(arguments)
        .ok()
        .filter(|arguments| !arguments.old_string.is_empty() && arguments.old_string != arguments.new_string)
        .and_then(|arguments| resolve_in_workspace(ctx.workspace_root(), &arguments.path).ok())
        .into_iter()
        .collect()
}

pub(crate) fn run(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: EditArguments = ctx.parse_arguments(arguments)?;
    if arguments.old_string.is_empty() {
        return Err(ToolError::invalid("old_string is empty")
            .with_hint("pass the exact text to replace; to create a file or replace all of it use write"));
    }
    if arguments.old_string == arguments.new_string {
        return Err(ToolError::invalid("old_string and new_string are identical; there is nothing to change"));
    }
    let root = ctx.workspace_root();
    let path = resolve_in_workspace(root, &arguments.path)?;
    let shown = display_path(root, &path);
    let original = read_text_file(root, &path, "edit").map_err(|err| match err.kind {
        ErrorKind::NotFound => err.with_hint(format!("check the path; to create {shown} use write")),
        _ => err,
    })?;
    let (old, new) = match_line_endings(&original, &arguments.old_string, &arguments.new_string);
    let offsets: Vec<usize> = original.match_indices(old.as_str()).map(|(offset, _)| offset).collect();
    if offsets.is_empty() {
        if let Some(applied) = already_applied(&shown, &original, &old, &new) {
            return Err(applied);
        }
        return Err(not_found(&shown, &original, &arguments.old_string));
    }
    let match_lines: Vec<usize> = offsets.iter().map(|&offset| line_of_offset(&original, offset)).collect();
    if offsets.len() > 1 && !arguments.replace_all {
        let listed: Vec<String> = match_lines.iter().take(MAX_LISTED_MATCH_LINES).map(usize::to_string).collect();
        let more = crate::render::truncation_notice(listed.len(), match_lines.len(), "lines")
            .map(|notice| format!(" ({notice})"))
            .unwrap_or_default();
        return Err(ToolError::invalid(format!(
            "old_string occurs {} times in {shown} (at lines {}{more}); it must be unique",
            offsets.len(),
            listed.join(", ")
        ))
        .with_hint("include more surrounding lines in old_string so it matches once, or pass replace_all: true to replace every occurrence")
        .with_details(json!({"path": shown, "match_count": offsets.len(), "lines": match_lines})));
    }
    let updated = if arguments.replace_all { original.replace(old.as_str(), &new) } else { original.replacen(old.as_str(), &new, 1) };
    // Where each replacement starts in the edited file.
    let growth = new.len() as isize - old.len() as isize;
    let new_lines: Vec<usize> = offsets
        .iter()
        .enumerate()
        .map(|(index, &offset)| line_of_offset(&updated, (offset as isize + growth * index as isize) as usize))
        .collect();
    let change =
        FileChange { path, new_content: Some(updated.clone().into_bytes()), expected: ExpectedState::Content(original.into_bytes()) };
    // A call cancelled (or out of time) before this point writes nothing.
    ctx.check_continue("about to write")?;
    let written = commit_file_changes_in(root, &[change])?;
    let count = new_lines.len();
    let mut text = if count == 1 {
        format!("edited {shown}: 1 replacement at line {}", new_lines[0])
    } else {
        let listed: Vec<String> = new_lines.iter().take(MAX_LISTED_MATCH_LINES).map(usize::to_string).collect();
        let more = crate::render::truncation_notice(listed.len(), count, "lines").map(|n| format!(" ({n})")).unwrap_or_default();
        format!("edited {shown}: {count} replacements at lines {}{more}", listed.join(", "))
    };
    if count == 1 {
        let first = new_lines[0].saturating_sub(2).max(1);
        let last = (new_lines[0] + count_lines(&new).max(1) + 1).min(first + 29);
        text.push('\n');
        text.push_str(&numbered_excerpt(&updated, first, last));
    }
    let result = ToolResult::text(text).with_structured(to_structured(&EditOutput {
        path: shown,
        replacements: count,
        lines: new_lines,
        lines_before_edit: match_lines,
    }));
    Ok(ToolOutput::new(result).with_written_paths(written))
}

/// When the file uses CRLF and the strings use bare LF (as models write them), converts both to
/// CRLF so the match and the replacement fit the file.
fn match_line_endings(original: &str, old: &str, new: &str) -> (String, String) {
    let file_uses_crlf = SplitText::new(original).line_ending == "\r\n";
    if !file_uses_crlf || !old.contains('\n') || old.contains("\r\n") || original.contains(old) {
        return (old.to_owned(), new.to_owned());
    }
    let to_crlf = |text: &str| text.replace("\r\n", "\n").replace('\n', "\r\n");
    (to_crlf(old), to_crlf(new))
}

/// When `old` is gone but `new` is in the file (and is not simply a piece of `old`), the edit
/// was most likely made already (a retried call, or one whose result was lost): say so, with
/// the lines, instead of "not found".
fn already_applied(shown: &str, original: &str, old: &str, new: &str) -> Option<ToolError> {
    if new.trim().is_empty() || old.contains(new) {
        return None;
    }
    // A short replacement with nothing of old_string around it ("x" for "y") proves nothing by
    // occurring somewhere; text that old_string and new_string share (the context kept by the
    // edit) or a long new_string does.
    let prefix = old.chars().zip(new.chars()).take_while(|(a, b)| a == b).count();
    let suffix = old.chars().rev().zip(new.chars().rev()).take_while(|(a, b)| a == b).count();
    let shared = prefix + suffix.min(new.chars().count().saturating_sub(prefix));
    if shared < 4 && new.trim().chars().count() < 16 {
        return None;
    }
    let offsets: Vec<usize> = original.match_indices(new).map(|(offset, _)| offset).collect();
    let first = *offsets.first()?;
    let lines: Vec<usize> = offsets.iter().map(|&offset| line_of_offset(original, offset)).collect();
    let start = lines[0];
    let end = line_of_offset(original, first + new.len().saturating_sub(1)).min(start + 9);
    let listed: Vec<String> = lines.iter().take(MAX_LISTED_MATCH_LINES).map(usize::to_string).collect();
    let at = if lines.len() == 1 {
        format!("at line {start}")
    } else {
        let more = crate::render::truncation_notice(listed.len(), lines.len(), "lines").map(|n| format!(" ({n})")).unwrap_or_default();
        format!("{} times, at lines {}{more}", lines.len(), listed.join(", "))
    };
    Some(
        ToolError::invalid(format!(
            "this change looks already applied: old_string is not in {shown}, but new_string is, {at}; nothing was written. The file has:\n{}",
            numbered_excerpt(original, start, end)
        ))
        .with_hint(format!("if that is the change you wanted, there is nothing left to do; otherwise read {shown} and edit its current text"))
        .with_details(json!({"path": shown, "match_count": 0, "already_applied": true, "new_string_lines": lines})),
    )
}

fn not_found(shown: &str, original: &str, old_string: &str) -> ToolError {
    let file = SplitText::new(original);
    let pattern_text = SplitText::new(old_string);
    let pattern: Vec<&str> = pattern_text.lines.iter().map(String::as_str).collect();
    let mut error =
        ToolError::invalid(format!("old_string was not found in {shown}")).with_details(json!({"path": shown, "match_count": 0}));
    // A match that differs only in whitespace (indentation, tabs vs spaces, trailing spaces).
    if !pattern.is_empty() && pattern.len() <= file.lines.len() {
        let found = (0..=file.lines.len() - pattern.len())
            .find(|&start| pattern.iter().enumerate().all(|(offset, wanted)| file.lines[start + offset].trim() == wanted.trim()));
        if let Some(start) = found {
            let first = start + 1;
            let last = start + pattern.len();
            let excerpt = numbered_excerpt(original, first, last.min(first + 9));
            error.message.push_str(&format!(
                "; lines {first}-{last} match it when whitespace is ignored, so indentation, tabs/spaces or trailing spaces differ. The file has:\n{excerpt}"
            ));
            return error.with_hint("copy old_string exactly from the file's text above (without the line-number prefixes) and retry");
        }
    }
    let closest = if pattern.len() > 1 { closest_window(&file.lines, &pattern) } else { closest_line(&file.lines, old_string) };
    match closest {
        Some(closest) => {
            error.message.push_str(&format!("; closest: {closest}"));
            error.with_hint(format!("read {shown} around that line and copy old_string exactly from it"))
        }
        None => error.with_hint(format!("no line of old_string occurs in {shown}; read the file (or check the path) first")),
    }
}
