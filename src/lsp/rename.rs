//! `lsp_rename` (tier write, R-REN-1) and the atomic `WorkspaceEdit` applier that also serves
//! servers' `workspace/applyEdit` requests.
//!
//! A `WorkspaceEdit` is applied in two steps:
//! 1. [`plan_workspace_edit`]: collects `changes` and `documentChanges` (text edits and
//!    create/rename/delete file operations, in order), checks each versioned text edit against
//!    the version the server has for that document, reads each file once, converts positions
//!    with the negotiated encoding, applies its edits in memory in descending order and rejects
//!    overlapping ones. Nothing is written.
//! 2. [`commit_workspace_edit`]: hands every file to [`crate::files::commit_file_changes_in`]
//!    with the exact bytes read as the expected state, so a file changed since the read rejects
//!    the whole edit, and a failed write rolls every file back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::files::{ExpectedState, FileChange};
use crate::lsp::client::LanguageServer;
use crate::lsp::output::{ChangedFile, RenameApplied, RenameOutput, RenameStaged};
use crate::lsp::position::{resolve_whole_identifier_on_line, split_lines, PositionEncoding};
use crate::lsp::supervisor::LspSupervisor;
use crate::lsp::uri::uri_to_path;
use crate::lsp::WorkspaceEditApplier;
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolOutput};
use crate::result::ToolResult;
use crate::tier::Tier;

/// The `lsp_rename` tool's descriptor.
pub fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "lsp_rename".to_owned(),
        title: "Rename symbol (language server)".to_owned(),
        description: "Rename a symbol across the project with its language server (rust-analyzer, pyright, typescript-language-server, gopls, clangd). \
Address it like `lsp`: `file`, `line` (1-based) and `symbol` (a substring of that line containing the identifier; `occurrence` when it occurs several times), plus `new_name`. \
The server's edit is applied atomically: every file is checked unchanged since it was read and written all-or-nothing (nothing changes if one write fails). \
Returns the files and edit counts, then the diagnostics the rename introduced. \
TypeScript/JavaScript: a new name already declared in the same scope (a duplicate tsc rejects) or that would make a use bind to another symbol (shadowing) is a WARNING at the top (`name_conflicts`), and so is a class member renamed to a name a base class or subclass already declares (it would override or be overridden, with no type error); Rust and Python: a new name already defined in the same module / impl / class / struct (cargo check E0428, pyright reportRedeclaration) too. \
A rename that changes a public name (a Python package's re-export, a Rust library crate's `pub` item or `pub use` (also a variant, variant field or trait item, as public as its `pub` enum or trait), a Go package's exported identifier, an npm package's export reached from its package.json entry points) is a note near the top with the way to keep the old name (`public_name_changes`). \
With `preview: true` nothing is written: the edit is staged like an ast_edit (an edit_id and a unified-diff preview); `resolve` accepts (all-or-nothing, refused if any file changed since) or discards it."
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<RenameArguments>(),
        output_schema: Some(crate::schema::writing_output_schema::<RenameOutput>()),
        annotations: crate::registry::ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: false,
        default_timeout: Duration::from_secs(90),
    }
}

/// Registers `lsp_rename` (when the run has an LSP supervisor, R-REG-1).
pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(descriptor(), Arc::new(call));
}

/// The arguments of `lsp_rename` (its input schema is derived from this struct).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameArguments {
    #[schemars(description = crate::lsp::tool::FILE_DOC)]
    file: String,
    #[schemars(description = crate::lsp::tool::LINE_DOC, range(min = 1))]
    line: u32,
    #[schemars(description = crate::lsp::tool::SYMBOL_DOC, length(min = 1))]
    symbol: String,
    #[schemars(description = crate::lsp::tool::OCCURRENCE_DOC, range(min = 1))]
    occurrence: Option<usize>,
    /// The new identifier.
    #[schemars(length(min = 1))]
    new_name: String,
    #[schemars(description = crate::lsp::tool::SERVER_DOC)]
    server: Option<String>,
    /// Stage the rename instead of writing it: returns an edit_id and a diff preview; `resolve`
    /// accepts or discards it (default false: write at once).
    #[serde(default)]
    preview: bool,
}

/// One file's part of a planned edit.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    /// Absolute path written (or deleted).
    pub path: PathBuf,
    /// Text edits applied to it.
    pub edit_count: usize,
    /// What it was: modified, created, deleted, the target or the source of a rename.
    pub operation: PlannedOperation,
    /// The permission bits a file the change creates gets: a renamed file keeps its source's
    /// (`None`: the default mode, or the file exists).
    pub new_file_mode: Option<u32>,
}

pub use crate::staged::PlannedOperation;

/// A directory a `WorkspaceEdit` renames (gopls renaming a package whose directory bears its
/// name: `RenameFile` of `simplelru/` to `basiclru/`), planned as a rename of every file beneath
/// it (trial157 M3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedDirectory {
    /// The directory renamed (absolute).
    pub from: PathBuf,
    /// Its new path (absolute).
    pub to: PathBuf,
    /// `from` and the directories beneath it, which the move leaves empty: removed after the
    /// commit ([`finish_directory_moves`]).
    pub directories: Vec<PathBuf>,
}

/// A `WorkspaceEdit` resolved into file changes, not yet written.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceEditPlan {
    /// The changes for [`crate::files::commit_file_changes_in`], each expecting the bytes read.
    pub changes: Vec<FileChange>,
    /// One entry per touched file, in order.
    pub files: Vec<PlannedFile>,
    /// The directories the edit renames, each as the renames of its files in `changes`.
    pub moved_directories: Vec<MovedDirectory>,
}

/// Most files beneath one directory a `WorkspaceEdit` may rename (each is read and written in
/// one all-or-nothing commit).
const MAX_FILES_IN_MOVED_DIRECTORY: usize = 2000;

/// Most bytes in the files beneath one directory a `WorkspaceEdit` may rename (64 MiB: each is
/// read into memory, and a staged plan keeps them; review46 #10).
const MAX_BYTES_IN_MOVED_DIRECTORY: u64 = 64 << 20;

impl WorkspaceEditPlan {
    /// How many files the plan changes, a renamed file counted once (its `moved to` source is
    /// the same file as its `renamed from` target).
    pub fn changed_file_count(&self) -> usize {
        self.files.iter().filter(|file| !file.operation.is_moved_to()).count()
    }

    /// The Python files (`.py`, `.pyi`) the plan changes, in its order: (path, text before, text
    /// after), lossily decoded; files created or deleted are left out.
    pub fn python_texts(&self) -> Vec<(&Path, String, String)> {
        self.texts_with_extensions(&["py", "pyi"])
    }

    /// The files the plan changes whose extension is one of `extensions` (`["go", "py"]`), in
    /// its order: (path, text before, text after), lossily decoded; files created or deleted are
    /// left out.
    pub fn texts_with_extensions(&self, extensions: &[&str]) -> Vec<(&Path, String, String)> {
        self.changes
            .iter()
            .filter(|change| change.path.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)))
            .filter_map(|change| match (&change.expected, &change.new_content) {
                (ExpectedState::Content(old), Some(new)) => {
                    Some((change.path.as_path(), String::from_utf8_lossy(old).into_owned(), String::from_utf8_lossy(new).into_owned()))
                }
                _ => None,
            })
            .collect()
    }
}

/// `report` with the consecutive lines `old` (the first place they stand) replaced by `new`;
/// unchanged when `old` is empty or not found.
fn replace_report_lines(report: &mut Vec<String>, old: &[String], new: Vec<String>) {
    if old.is_empty() {
        return;
    }
    if let Some(start) = report.windows(old.len()).position(|window| window == old) {
        report.splice(start..start + old.len(), new);
    }
}

/// Resolves `edit` (an LSP `WorkspaceEdit`) into a plan; reads files, writes nothing.
/// `server` (when given) supplies the position encoding and the document versions to check.
/// `documentChanges` (text document edits, plain or annotated, and create / rename / delete
/// file operations, in order) wins over `changes` when both are present; `changes` is taken in
/// URI order.
///
/// # Errors
/// `invalid_arguments` for an edit outside the workspace or naming a non-file URI, overlapping
/// edits or a range past the end of the file; `conflict` when a versioned edit names another
/// version than the server's document, or the server's text of a document differs from the
/// file on disk; `failed` for an edit that changes dependency code inside the workspace
/// (`node_modules`, a `site-packages`, …: see `refuse_dependency_files`), every such file named.
pub fn plan_workspace_edit(
    workspace_root: &Path,
    server: Option<&LanguageServer>,
    edit: &lsp_types::WorkspaceEdit,
) -> Result<WorkspaceEditPlan, ToolError> {
    let encoding = server.map_or(PositionEncoding::Utf16, LanguageServer::position_encoding);
    // path → (current text, original bytes or None when absent, edits, operation)
    let mut texts: BTreeMap<PathBuf, FileState> = BTreeMap::new();
    let mut order: Vec<PathBuf> = Vec::new();
    let mut steps: Vec<Step<'_>> = Vec::new();
    if let Some(document_changes) = &edit.document_changes {
        let operations: Vec<DocumentChange<'_>> = match document_changes {
            lsp_types::DocumentChanges::Edits(edits) => edits.iter().map(DocumentChange::Edit).collect(),
            lsp_types::DocumentChanges::Operations(operations) => operations
                .iter()
                .map(|operation| match operation {
                    lsp_types::DocumentChangeOperation::Edit(edit) => DocumentChange::Edit(edit),
                    lsp_types::DocumentChangeOperation::Op(operation) => DocumentChange::Operation(operation),
                })
                .collect(),
        };
        for change in operations {
            match change {
                DocumentChange::Edit(document_edit) => {
                    let path = edit_path(workspace_root, document_edit.text_document.uri.as_str())?;
                    if let (Some(server), Some(version)) = (server, document_edit.text_document.version) {
                        if let Some(ours) = server.document_version(&path) {
                            if ours != version {
                                return Err(ToolError::new(
                                    ErrorKind::Conflict,
                                    format!(
                                        "the edit for {} was computed for version {version} but the document is at version {ours}; nothing was changed",
                                        crate::render::display_path(workspace_root, &path)
                                    ),
                                )
                                .with_hint("the file changed while the server computed the edit; run the rename again"));
                            }
                        }
                    }
                    let edits = document_edit.edits.iter().map(plain_text_edit).collect();
                    steps.push(Step::Edit(path, edits));
                }
                DocumentChange::Operation(lsp_types::ResourceOp::Create(create)) => {
                    let path = edit_path(workspace_root, create.uri.as_str())?;
                    let options = create.options.as_ref();
                    let overwrite = options.and_then(|options| options.overwrite).unwrap_or(false);
                    let ignore = options.and_then(|options| options.ignore_if_exists).unwrap_or(false);
                    steps.push(Step::Create(path, overwrite, ignore));
                }
                DocumentChange::Operation(lsp_types::ResourceOp::Rename(rename)) => {
                    let from = edit_path(workspace_root, rename.old_uri.as_str())?;
                    let to = edit_path(workspace_root, rename.new_uri.as_str())?;
                    let overwrite = rename.options.as_ref().and_then(|options| options.overwrite).unwrap_or(false);
                    steps.push(Step::Rename(from, to, overwrite));
                }
                DocumentChange::Operation(lsp_types::ResourceOp::Delete(delete)) => {
                    let path = edit_path(workspace_root, delete.uri.as_str())?;
                    steps.push(Step::Delete(path));
                }
            }
        }
    } else if let Some(changes) = &edit.changes {
        // `changes` is a map: taken in URI order, so the plan (and its file list) is the same
        // for the same edit.
        let mut by_uri: Vec<(&lsp_types::Uri, &Vec<lsp_types::TextEdit>)> = changes.iter().collect();
        by_uri.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        for (uri, edits) in by_uri {
            let path = edit_path(workspace_root, uri.as_str())?;
            steps.push(Step::Edit(path, edits.iter().collect()));
        }
    }
    let mut moved_directories: Vec<MovedDirectory> = Vec::new();
    for step in steps {
        match step {
            Step::Edit(path, edits) => {
                let state = load(&mut texts, &mut order, workspace_root, &path, server)?;
                let text = match state.content.as_mut() {
                    Some(Content::Text(text)) => text,
                    Some(Content::Bytes(_)) => {
                        return Err(ToolError::invalid(format!(
                            "{} is not UTF-8 text; the edit was not applied",
                            crate::render::display_path(workspace_root, &path)
                        )))
                    }
                    None => {
                        return Err(ToolError::invalid(format!(
                            "the workspace edit changes {} which does not exist",
                            crate::render::display_path(workspace_root, &path)
                        )))
                    }
                };
                *text = apply_text_edits(text, edits.iter().copied(), encoding).map_err(|why| {
                    ToolError::invalid(format!("{}: {why}; nothing was changed", crate::render::display_path(workspace_root, &path)))
                })?;
                state.edit_count += edits.len();
            }
            Step::Create(path, overwrite, ignore) => {
                let state = load(&mut texts, &mut order, workspace_root, &path, server)?;
                if state.content.is_some() && ignore {
                    continue;
                }
                if state.content.is_some() && !overwrite {
                    return Err(ToolError::new(
                        ErrorKind::Conflict,
                        format!("the workspace edit creates {} which already exists", crate::render::display_path(workspace_root, &path)),
                    ));
                }
                state.content = Some(Content::Text(String::new()));
                state.operation = PlannedOperation::Created;
            }
            Step::Rename(from, to, overwrite) => {
                // A directory (gopls renaming a package: trial157 M3, "cannot read …/simplelru:
                // not a regular file") moves as the renames of every file beneath it, in one
                // all-or-nothing change; the directories it leaves empty are removed after it.
                let tree = if texts.contains_key(&from) {
                    None
                } else {
                    crate::files::directory_tree_beneath(workspace_root, &from, MAX_FILES_IN_MOVED_DIRECTORY, MAX_BYTES_IN_MOVED_DIRECTORY)?
                };
                let Some(tree) = tree else {
                    rename_file_state(&mut texts, &mut order, workspace_root, server, &from, &to, overwrite, None)?;
                    continue;
                };
                if crate::files::metadata_beneath(workspace_root, &to)?.is_some() {
                    return Err(ToolError::new(
                        ErrorKind::Conflict,
                        format!(
                            "the workspace edit renames the directory {} to {}, which already exists; nothing was changed",
                            crate::render::display_path(workspace_root, &from),
                            crate::render::display_path(workspace_root, &to)
                        ),
                    )
                    .with_hint("pick a name no file or directory has, or move that one away first"));
                }
                for (file, mode) in &tree.files {
                    let relative = file.strip_prefix(&from).expect("listed beneath the directory");
                    rename_file_state(&mut texts, &mut order, workspace_root, server, file, &to.join(relative), false, Some(*mode))?;
                }
                moved_directories.push(MovedDirectory { from, to, directories: tree.directories });
            }
            Step::Delete(path) => {
                let state = load(&mut texts, &mut order, workspace_root, &path, server)?;
                state.content = None;
                state.operation = PlannedOperation::Deleted;
            }
        }
    }
    let mut plan = WorkspaceEditPlan { changes: Vec::new(), files: Vec::new(), moved_directories };
    for path in order {
        let state = &texts[&path];
        let new_content = state.content.as_ref().map(|content| content.bytes().to_vec());
        if new_content == state.original {
            continue;
        }
        let expected = match &state.original {
            Some(bytes) => ExpectedState::Content(bytes.clone()),
            None => ExpectedState::Absent,
        };
        plan.changes.push(FileChange { path: path.clone(), new_content, expected });
        plan.files.push(PlannedFile {
            path,
            edit_count: state.edit_count,
            operation: state.operation.clone(),
            new_file_mode: state.new_file_mode,
        });
    }
    refuse_dependency_files(workspace_root, &plan)?;
    Ok(plan)
}

/// Refuses a plan that changes a file of dependency code inside the workspace (`node_modules`,
/// a virtual environment's `site-packages`, a vendored cargo registry or Go module cache,
/// `target/`: [`crate::lsp::listing::PathClass::WorkspaceDependency`]). The package manager owns
/// those files: a reinstall (`npm ci`, `pip install`) puts the published text back, and they are
/// usually git-ignored, so the change is not in the diff that is reviewed or committed (trial 27
/// F4: renaming chevrotain's `buildLookaheadForAlternation` rewrote
/// `node_modules/@chevrotain/types/api.d.ts`, the interface a project class implements; after
/// `npm ci`, `tsc` reported 3 new errors). Renaming only the project's side is not sound either
/// (the dependency still declares the old name), so the whole edit is refused.
///
/// # Errors
/// `failed`, naming every such file (its edit count and origin) and the next step.
fn refuse_dependency_files(workspace_root: &Path, plan: &WorkspaceEditPlan) -> Result<(), ToolError> {
    let dependency_files: Vec<String> = plan
        .files
        .iter()
        .filter_map(|file| {
            let listed = crate::lsp::listing::ListedPath::new(workspace_root, &file.path);
            (listed.class == crate::lsp::listing::PathClass::WorkspaceDependency).then(|| {
                format!(
                    "{} ({}, {})",
                    listed.text,
                    crate::render::plural(file.edit_count, "edit"),
                    listed.origin.unwrap_or("dependency code")
                )
            })
        })
        .collect();
    if dependency_files.is_empty() {
        return Ok(());
    }
    // A renamed file counted once (review47 L3).
    let project_files = plan.changed_file_count().saturating_sub(dependency_files.len());
    Err(ToolError::new(
        ErrorKind::Failed,
        format!(
            "the workspace edit changes {} of dependency code that the package manager owns — a reinstall (`npm ci`, `pip install`, …) puts the published text back, and such directories are usually git-ignored, so the change would not show in the diff: {}; it also changes {} of the project; nothing was changed",
            crate::render::plural(dependency_files.len(), "file"),
            dependency_files.join(", "),
            crate::render::plural(project_files, "file"),
        ),
    )
    .with_hint(
        "the name is declared or used by the dependency (e.g. an interface or base class the project implements), so renaming only the project's side breaks it: keep the name, or change the dependency at its source (a new version) first; `lsp` references lists the project's uses",
    ))
}

/// The deadline of one of the rename's Python checks (overrides, union receivers): a sixth of
/// what is left until `deadline`, at most 15 s.
fn check_share_of(deadline: Instant) -> Instant {
    (Instant::now() + (deadline.saturating_duration_since(Instant::now()) / 6).min(Duration::from_secs(15))).min(deadline)
}

/// Stages `plan` in the run's staged-change store ([`crate::staged`]) instead of writing it:
/// every file keeps the bytes the plan read (or its absence) as the state `resolve accept`
/// checks. Returns what staging produced and the store's pending cap (for its message).
///
/// # Errors
/// The "not wired" error when the run has no staged-change store.
pub(crate) fn stage_plan(
    ctx: &CallContext<'_>,
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    tool: &'static str,
    description: String,
    warnings: Vec<String>,
    write_check_blind_spots: Vec<String>,
) -> Result<(crate::staged::Staged, usize), ToolError> {
    let store = ctx.resource::<crate::staged::StagedResource>()?;
    let files = plan
        .changes
        .iter()
        .zip(&plan.files)
        .map(|(change, planned)| crate::staged::StagedFile {
            path: change.path.clone(),
            display: crate::render::display_path(workspace_root, &change.path),
            original: match &change.expected {
                ExpectedState::Content(bytes) => Some(bytes.clone()),
                _ => None,
            },
            new_content: change.new_content.clone(),
            changes: planned.edit_count,
            operation: planned.operation.clone(),
            new_file_mode: planned.new_file_mode,
        })
        .collect();
    let staged = store.stage(crate::staged::StagedChange {
        tool,
        description,
        change_noun: "edit",
        files,
        warnings,
        write_check_blind_spots,
        restage_hint: None,
        held: false,
        moved_directories: plan.moved_directories.clone(),
    });
    Ok((staged, store.config().max_pending_edits))
}

/// Writes `plan` all-or-nothing (verify every file unchanged, temp + rename, rollback on any
/// failure). Returns the absolute paths written or deleted.
///
/// # Errors
/// `conflict` when a file changed since the plan read it (nothing written); `io` when a write
/// failed (every file restored).
pub fn commit_workspace_edit(workspace_root: &Path, plan: &WorkspaceEditPlan) -> Result<Vec<PathBuf>, ToolError> {
    let new_file_modes: Vec<Option<u32>> = plan.files.iter().map(|file| file.new_file_mode).collect();
    let written = crate::files::commit_file_changes_with_modes(workspace_root, &plan.changes, &new_file_modes)?;
    finish_directory_moves(workspace_root, &plan.moved_directories);
    Ok(written)
}

/// What finishing a committed directory move left undone ([`finish_directory_moves`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectoryMovesFinished {
    /// Source directories left in place: not empty after the move (something was added
    /// meanwhile), or one of their directories could not be recreated under the new path.
    pub left_in_place: Vec<PathBuf>,
    /// Directories of the moved trees that could not be created under the new path (a file
    /// sits there, no permission): their sources stay.
    pub not_recreated: Vec<PathBuf>,
}

/// Finishes committed directory moves: recreates every directory of each moved tree under its
/// new path (so an empty `testdata/empty/` moves too; review46 #10), then removes the emptied
/// sources innermost first — except those whose counterpart could not be created, which stay.
/// Used by a direct write and by `resolve accept` of a staged move (review47 H1).
pub fn finish_directory_moves(workspace_root: &Path, moved_directories: &[MovedDirectory]) -> DirectoryMovesFinished {
    let pairs: Vec<(PathBuf, PathBuf)> = moved_directories
        .iter()
        .flat_map(|moved| {
            moved.directories.iter().filter_map(|directory| {
                directory.strip_prefix(&moved.from).ok().map(|relative| (directory.clone(), moved.to.join(relative)))
            })
        })
        .collect();
    let targets: Vec<PathBuf> = pairs.iter().map(|(_, target)| target.clone()).collect();
    let not_recreated = crate::files::create_directories_beneath(workspace_root, &targets);
    // A source whose counterpart (or a counterpart beneath it) is missing keeps its place.
    let removable: Vec<PathBuf> = pairs
        .iter()
        .filter(|(source, _)| !pairs.iter().any(|(other, target)| other.starts_with(source) && not_recreated.contains(target)))
        .map(|(source, _)| source.clone())
        .collect();
    let mut left_in_place = crate::files::remove_empty_directories_beneath(workspace_root, &removable);
    left_in_place.extend(pairs.iter().map(|(source, _)| source.clone()).filter(|source| !removable.contains(source)));
    left_in_place.sort();
    left_in_place.dedup();
    DirectoryMovesFinished { left_in_place, not_recreated }
}

/// How a rename or code action lists the files of `plan` (each shown by `display`): one line
/// per file as [`planned_file_line`] says it, except beneath a moved directory — one line for
/// the directory (`  old/ → new/: directory moved, 37 files (2 with edits, listed below)`), and
/// only the moved files with edits listed (review46 #9: a package with a `testdata/` tree gave
/// hundreds of `moved to` lines). The structured entries follow the same grouping.
pub(crate) fn planned_file_lines(plan: &WorkspaceEditPlan, display: &dyn Fn(&Path) -> String) -> (Vec<String>, Vec<ChangedFile>) {
    let beneath_moved = |file: &PlannedFile| {
        plan.moved_directories.iter().position(|moved| {
            (file.operation.is_moved_to() && file.path.starts_with(&moved.from))
                || (file.operation.renamed_from().is_some() && file.path.starts_with(&moved.to))
        })
    };
    let mut lines = Vec::new();
    let mut files = Vec::new();
    for (index, moved) in plan.moved_directories.iter().enumerate() {
        let targets: Vec<&PlannedFile> =
            plan.files.iter().filter(|file| file.operation.renamed_from().is_some() && beneath_moved(file) == Some(index)).collect();
        let edited = targets.iter().filter(|file| file.edit_count > 0).count();
        let (from, to) = (display(&moved.from), display(&moved.to));
        lines.push(format!(
            "  {from}/ → {to}/: directory moved, {} ({edited} with edits{})",
            crate::render::plural(targets.len(), "file"),
            if edited > 0 { ", listed below" } else { "" }
        ));
        files.push(ChangedFile {
            file: format!("{from}/"),
            edits: 0,
            operation: format!("directory moved to {to}/ ({})", crate::render::plural(targets.len(), "file")),
        });
    }
    for file in &plan.files {
        if beneath_moved(file).is_some() && (file.edit_count == 0 || file.operation.is_moved_to()) {
            continue;
        }
        let shown = display(&file.path);
        lines.push(planned_file_line(&shown, file));
        files.push(ChangedFile { file: shown, edits: file.edit_count, operation: file.operation.to_string() });
    }
    (lines, files)
}

/// How a rename or code action lists one planned file (`shown` as displayed): `  a.go: 2 edits
/// (modified)`, or `  old/a.go: moved to new/a.go` for the source of a rename (its edits are
/// counted on the file it becomes).
pub(crate) fn planned_file_line(shown: &str, file: &PlannedFile) -> String {
    match file.operation {
        PlannedOperation::MovedTo { .. } if file.edit_count == 0 => format!("  {shown}: {}", file.operation),
        _ => format!("  {shown}: {} ({})", crate::render::plural(file.edit_count, "edit"), file.operation),
    }
}

/// One entry of `documentChanges`, whichever of its two lsp-types shapes carried it.
enum DocumentChange<'a> {
    Edit(&'a lsp_types::TextDocumentEdit),
    Operation(&'a lsp_types::ResourceOp),
}

/// The text edit of a plain or annotated edit (the annotation is not needed to apply it).
fn plain_text_edit(edit: &lsp_types::OneOf<lsp_types::TextEdit, lsp_types::AnnotatedTextEdit>) -> &lsp_types::TextEdit {
    match edit {
        lsp_types::OneOf::Left(edit) => edit,
        lsp_types::OneOf::Right(annotated) => &annotated.text_edit,
    }
}

enum Step<'a> {
    Edit(PathBuf, Vec<&'a lsp_types::TextEdit>),
    Create(PathBuf, bool, bool),
    Rename(PathBuf, PathBuf, bool),
    Delete(PathBuf),
}

struct FileState {
    original: Option<Vec<u8>>,
    /// What the file holds after the steps so far (`None`: absent).
    content: Option<Content>,
    edit_count: usize,
    operation: PlannedOperation,
    /// See [`PlannedFile::new_file_mode`].
    new_file_mode: Option<u32>,
}

/// A planned file's content: text (UTF-8, which text edits apply to) or bytes that are not UTF-8,
/// which only move (a binary file in a renamed directory).
enum Content {
    Text(String),
    Bytes(Vec<u8>),
}

impl Content {
    fn bytes(&self) -> &[u8] {
        match self {
            Content::Text(text) => text.as_bytes(),
            Content::Bytes(bytes) => bytes,
        }
    }
}

/// The rename of the file `from` to `to` in the plan's states: `to` takes `from`'s content (with
/// the edits already applied to it) and `mode` when it is created (`None`: the default), `from`
/// is removed.
///
/// # Errors
/// `invalid_arguments` when `from` does not exist; `conflict` when `to` exists and `overwrite`
/// is false; as `load` for a file it cannot read.
#[allow(clippy::too_many_arguments)]
fn rename_file_state(
    texts: &mut BTreeMap<PathBuf, FileState>,
    order: &mut Vec<PathBuf>,
    workspace_root: &Path,
    server: Option<&LanguageServer>,
    from: &Path,
    to: &Path,
    overwrite: bool,
    mode: Option<u32>,
) -> Result<(), ToolError> {
    let source = load(texts, order, workspace_root, from, server)?;
    let Some(content) = source.content.take() else {
        return Err(ToolError::invalid(format!(
            "the workspace edit renames {} which does not exist",
            crate::render::display_path(workspace_root, from)
        )));
    };
    // The edits go with the content: said on the file it becomes.
    let edits = std::mem::take(&mut source.edit_count);
    source.operation = PlannedOperation::MovedTo { to: to.to_path_buf(), display: crate::render::display_path(workspace_root, to) };
    let target = load(texts, order, workspace_root, to, server)?;
    if target.content.is_some() && !overwrite {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!("the workspace edit renames onto {} which already exists", crate::render::display_path(workspace_root, to)),
        ));
    }
    target.content = Some(content);
    target.edit_count += edits;
    target.operation =
        PlannedOperation::RenamedFrom { from: from.to_path_buf(), display: crate::render::display_path(workspace_root, from) };
    if target.original.is_none() {
        target.new_file_mode = mode;
    }
    Ok(())
}

fn edit_path(workspace_root: &Path, uri: &str) -> Result<PathBuf, ToolError> {
    let Some(path) = uri_to_path(uri) else {
        return Err(ToolError::invalid(format!("the workspace edit names {uri:?}, which is not a file URI")));
    };
    let parent_canonical = path.parent().and_then(|parent| std::fs::canonicalize(parent).ok());
    let path = match (parent_canonical, path.file_name()) {
        (Some(parent), Some(name)) => parent.join(name),
        _ => path,
    };
    if !path.starts_with(workspace_root) {
        return Err(ToolError::new(
            ErrorKind::OutsideWorkspace,
            format!("the workspace edit touches {} outside the workspace; nothing was changed", path.display()),
        ));
    }
    Ok(path)
}

fn load<'a>(
    texts: &'a mut BTreeMap<PathBuf, FileState>,
    order: &mut Vec<PathBuf>,
    workspace_root: &Path,
    path: &Path,
    server: Option<&LanguageServer>,
) -> Result<&'a mut FileState, ToolError> {
    if !texts.contains_key(path) {
        // Read beneath the workspace with no symlink followed (a swapped directory cannot make
        // the plan read outside it).
        let original = crate::files::read_file_beneath(workspace_root, path).map_err(|err| ToolError::io("read", path, &err))?;
        let content = original.as_ref().map(|bytes| match String::from_utf8(bytes.clone()) {
            Ok(text) => Content::Text(text),
            Err(not_text) => Content::Bytes(not_text.into_bytes()),
        });
        if let (Some(server), Some(Content::Text(disk))) = (server, content.as_ref()) {
            if let Some(theirs) = server.document_text(path) {
                if &theirs != disk {
                    return Err(ToolError::new(
                        ErrorKind::Conflict,
                        format!(
                            "{} changed on disk after the server last saw it; the edit was computed for other text and nothing was changed",
                            crate::render::display_path(workspace_root, path)
                        ),
                    )
                    .with_hint("run the rename again (the server will be resynced)"));
                }
            }
        }
        texts.insert(
            path.to_path_buf(),
            FileState { original, content, edit_count: 0, operation: PlannedOperation::Modified, new_file_mode: None },
        );
        order.push(path.to_path_buf());
    }
    Ok(texts.get_mut(path).expect("inserted above"))
}

/// Applies LSP `TextEdit`s to `text`: positions converted with `encoding`, edits sorted and
/// applied in descending order; an exact repeat of a replacement (same range, same text) is
/// applied once; other overlapping edits are an error.
///
/// # Errors
/// A sentence saying which edits overlap or which range is out of bounds.
pub fn apply_text_edits<'a>(
    text: &str,
    edits: impl IntoIterator<Item = &'a lsp_types::TextEdit>,
    encoding: PositionEncoding,
) -> Result<String, String> {
    let lines = split_lines(text);
    let mut line_starts = Vec::with_capacity(lines.len() + 1);
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        line_starts.push(offset);
        offset += line.len();
    }
    if line_starts.is_empty() || text.ends_with('\n') {
        line_starts.push(offset);
    }
    let to_byte = |position: &lsp_types::Position| -> Result<usize, String> {
        let line = position.line as usize;
        let character = position.character;
        if line >= line_starts.len() {
            if line == line_starts.len() && character == 0 {
                return Ok(text.len());
            }
            return Err(format!("an edit targets line {} past the end of the file ({} lines)", line + 1, lines.len()));
        }
        let line_text = lines.get(line).copied().unwrap_or("");
        Ok(line_starts[line] + encoding.byte_from_column(line_text, character).min(line_text.len()))
    };
    let mut resolved: Vec<(usize, usize, &str)> = Vec::new();
    for edit in edits {
        let start = to_byte(&edit.range.start)?;
        let end = to_byte(&edit.range.end)?;
        if end < start {
            return Err(format!("an edit's range ends before it starts (bytes {start}..{end})"));
        }
        resolved.push((start, end, edit.new_text.as_str()));
    }
    // Stable sort ascending; equal-start inserts keep server order.
    resolved.sort_by_key(|(start, end, _)| (*start, *end));
    // The same replacement sent twice is one edit (tsserver renaming `b` in `export { b as a }`
    // back to `a` sends the edit of `b` twice: @tanstack/query-core 5.59.0, trial 17). Two
    // inserts at one place are two edits and stay.
    resolved.dedup_by(|later, earlier| later.0 < later.1 && later == earlier);
    for pair in resolved.windows(2) {
        if pair[1].0 < pair[0].1 {
            return Err(format!("two edits overlap (bytes {}..{} and {}..{})", pair[0].0, pair[0].1, pair[1].0, pair[1].1));
        }
    }
    let mut out = text.to_owned();
    for (start, end, new_text) in resolved.iter().rev() {
        out.replace_range(*start..*end, new_text);
    }
    Ok(out)
}

/// The applier for servers' `workspace/applyEdit` (installed on the supervisor at build time):
/// the same plan + atomic commit, without a version source (no server handle).
#[derive(Debug)]
pub struct AtomicWorkspaceEditApplier {
    workspace_root: PathBuf,
}

impl AtomicWorkspaceEditApplier {
    /// An applier for edits under `workspace_root` (canonical).
    pub fn new(workspace_root: &Path) -> AtomicWorkspaceEditApplier {
        AtomicWorkspaceEditApplier { workspace_root: workspace_root.to_path_buf() }
    }
}

impl WorkspaceEditApplier for AtomicWorkspaceEditApplier {
    fn apply_workspace_edit(&self, edit: &lsp_types::WorkspaceEdit) -> lsp_types::ApplyWorkspaceEditResponse {
        self.apply_workspace_edit_reporting(edit).0
    }

    fn apply_workspace_edit_reporting(&self, edit: &lsp_types::WorkspaceEdit) -> (lsp_types::ApplyWorkspaceEditResponse, Vec<PathBuf>) {
        match plan_workspace_edit(&self.workspace_root, None, edit).and_then(|plan| commit_workspace_edit(&self.workspace_root, &plan)) {
            Ok(written) => (lsp_types::ApplyWorkspaceEditResponse { applied: true, failure_reason: None, failed_change: None }, written),
            Err(err) => (
                lsp_types::ApplyWorkspaceEditResponse { applied: false, failure_reason: Some(err.message), failed_change: None },
                Vec::new(),
            ),
        }
    }
}

fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let args: RenameArguments = ctx.parse_arguments(arguments)?;
    let supervisor = ctx.resource::<LspSupervisor>()?;
    let path = crate::files::resolve_in_workspace(supervisor.workspace_root(), &args.file)?;
    // Several project roots of the language (a library crate or module and its consumers): the
    // servers of the roots this file's root depends on and of those depending on it are started
    // now, beside the starting one, so that a cold rename across roots indexes them at once
    // instead of one after the other (`rename_across_roots` asks them later; a start here only
    // initializes the process, the indexing goes on in the server).
    let deadline = ctx.deadline().checked_sub(Duration::from_millis(250)).unwrap_or_else(Instant::now);
    let prewarm: Vec<(String, PathBuf)> = match supervisor.choose(&path, args.server.as_deref()) {
        Ok((definition, root, _)) => crate::lsp::rename_across_roots::related_roots(supervisor, &definition, &root)
            .into_iter()
            .filter(|related| !supervisor.is_running(&definition.id, related))
            .map(|related| (definition.id.clone(), related))
            .collect(),
        Err(_) => Vec::new(),
    };
    std::thread::scope(|scope| {
        if !prewarm.is_empty() {
            let _ = std::thread::Builder::new().name("rename-prewarm".to_owned()).spawn_scoped(scope, || {
                for (server_id, root) in &prewarm {
                    let _ = supervisor.server_for_root(server_id, root, deadline);
                }
            });
        }
        rename_call(ctx, args, path)
    })
}

fn rename_call(ctx: &CallContext<'_>, args: RenameArguments, path: PathBuf) -> Result<ToolOutput, ToolError> {
    let supervisor = ctx.resource::<LspSupervisor>()?;
    let root = supervisor.workspace_root();
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)?;
    let resolved = resolve_whole_identifier_on_line(&text, args.line, &args.symbol, args.occurrence)
        .map_err(|err| ToolError::invalid(format!("{}: {err}", supervisor.display_path(&path))))?;
    let deadline = ctx.deadline().checked_sub(Duration::from_millis(250)).unwrap_or_else(Instant::now);
    let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
    let server = &*lease.server;
    // Asked in a declaration file of the build output: the rename would rewrite the shipped
    // typings (`export { f as g }`), not the source (the recheck of trial156 F1: started from
    // `build/index.d.ts`, a consumer's `import { f }` broke with TS2305).
    if path.file_name().and_then(|name| name.to_str()).is_some_and(crate::lsp::typescript_build_output::is_declaration_file_name) {
        if let Ok(reader) = crate::files::WorkspaceReader::open(root) {
            let mut build_output = crate::lsp::typescript_build_output::DeclarationBuildOutput::new(root, server.root());
            if let Some(reason) = build_output.reason(&reader, &path) {
                let display = supervisor.display_path(&path);
                return Err(ToolError::invalid(format!(
                    "{display} is build output ({}): a rename started there rewrites the shipped typings (an alias such as `export {{ {old} as {new} }}`), not the source they are built from, and code that imports `{old}` from the package breaks; nothing was changed",
                    reason.describe(&|path| supervisor.display_path(path)),
                    old = resolved.cursor_identifier,
                    new = args.new_name,
                ))
                .with_hint(format!(
                    "rename at the source declaration instead: call lsp with {{\"op\": \"definition\", \"file\": \"{display}\", \"line\": {}, \"symbol\": \"{}\"}} to find it (it leads into the sources), then lsp_rename there, and rebuild the output",
                    resolved.line, resolved.cursor_identifier
                )));
            }
        }
    }
    // Asked in JavaScript of the build output (`dist/esm/index.js`, compiled with a source map):
    // refused like its declaration files — the rename edits the shipped JavaScript, not the
    // source, and the next build overwrites it (trial160 M6: allowed with a WARNING while
    // `dist/esm/index.d.ts` beside it was refused).
    if path.file_name().and_then(|name| name.to_str()).is_some_and(crate::lsp::typescript_build_output::is_javascript_file_name) {
        if let Ok(reader) = crate::files::WorkspaceReader::open(root) {
            let mut build_output = crate::lsp::typescript_build_output::DeclarationBuildOutput::new(root, server.root());
            if let Some(reason) = build_output.javascript_reason(&reader, &path) {
                let display = supervisor.display_path(&path);
                let sources: Vec<String> = crate::lsp::typescript_build_output::javascript_map_sources(&reader, &path)
                    .iter()
                    .take(3)
                    .map(|source| supervisor.display_path(source))
                    .collect();
                let find = format!(
                    "call lsp with {{\"op\": \"symbols\", \"query\": \"{}\"}} to find its declaration in the sources",
                    resolved.cursor_identifier
                );
                let hint = if sources.is_empty() {
                    format!("rename at the source declaration instead: {find}, then lsp_rename there, and rebuild the output")
                } else {
                    format!(
                        "rename at the source declaration instead: the source map names {} — find `{}` there ({find}), then lsp_rename there, and rebuild the output",
                        sources.join(", "),
                        resolved.cursor_identifier
                    )
                };
                return Err(ToolError::invalid(format!(
                    "{display} is build output ({}): a rename started there rewrites the shipped JavaScript (an alias such as `export {{ {new} as {old} }}`), not the source it is built from — the next build overwrites it, and the typings beside it keep `{old}`; nothing was changed",
                    reason.describe(&|path| supervisor.display_path(path)),
                    old = resolved.cursor_identifier,
                    new = args.new_name,
                ))
                .with_hint(hint));
            }
        }
    }
    let resync_note = server.resync_from_disk().note(|path| supervisor.display_path(path));
    server.sync_document(&path)?;
    if !server.supports("textDocument/rename") {
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            format!("rename is unsupported by {} (it does not offer textDocument/rename)", server.id()),
        ));
    }
    let readiness = server.wait_until_ready_for_lookups((Instant::now() + supervisor.config().indexing_wait).min(deadline));
    let (line0, character) = resolved.lsp_position(server.position_encoding());
    let position = lsp_types::TextDocumentPositionParams {
        text_document: crate::lsp::client::text_document(&path),
        position: lsp_types::Position { line: line0, character },
    };
    let display = supervisor.display_path(&path);
    if server.supports("textDocument/prepareRename") {
        match server.request::<lsp_types::request::PrepareRenameRequest>(position.clone(), deadline) {
            Ok(None) => {
                return Err(ToolError::invalid(format!(
                    "{} cannot rename `{}` at {display}:{}: prepareRename says there is no renamable symbol here (a keyword, literal, comment or string?)",
                    server.id(),
                    resolved.cursor_identifier,
                    resolved.line
                ))
                .with_hint("address the identifier itself with `symbol`"))
            }
            Ok(Some(_)) => (),
            Err(failure) => {
                let error = failure.to_tool_error(server.id(), "textDocument/prepareRename");
                // rust-analyzer renames no `use … as alias` (trial163 M6: its bare error, and the
                // alias's 2 occurrences left to find): the occurrences in this file are said.
                if error.message.contains("Renaming aliases is currently unsupported") {
                    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).unwrap_or_default();
                    let lines: Vec<String> = text
                        .lines()
                        .enumerate()
                        .filter(|(_, line)| !crate::lsp::rename_coverage::word_positions(line, &resolved.cursor_identifier).is_empty())
                        .map(|(index, _)| (index + 1).to_string())
                        .collect();
                    return Err(ToolError { message: error.message, ..error }.with_hint(format!(
                        "`{}` here is an alias a `use … as` binds, which rust-analyzer does not rename: edit it by hand — its whole-word occurrences in {display} are on line{} {} (a use binds it in its own module only; a `pub use … as` alias is also a public name: `lsp` references at the alias lists its uses elsewhere), then check the file",
                        resolved.cursor_identifier,
                        if lines.len() == 1 { "" } else { "s" },
                        lines.join(", ")
                    )));
                }
                // Code rust-analyzer does not analyze (a `#[cfg]` that is off, a macro
                // template): "No references found at position" with no word why (trial52 M7).
                return Err(match crate::lsp::tool::rust_no_analysis_reason_at(supervisor, server, &path, resolved.line) {
                    Some(reason) => {
                        let message = format!("{} — {reason}; rename it by hand there, then check with the cfg on", error.message);
                        ToolError { message, ..error }
                    }
                    None => error,
                });
            }
        }
    }
    let params = lsp_types::RenameParams {
        text_document_position: position,
        new_name: args.new_name.clone(),
        work_done_progress_params: Default::default(),
    };
    // gopls's refusal said once, with the declaration it conflicts with (trial157 M5).
    let edit = server.request::<lsp_types::request::Rename>(params, deadline).map_err(|failure| match &failure {
        crate::lsp::client::RequestFailure::Server(error) if server.id() == "gopls" => {
            crate::lsp::go_rename_refusals::gopls_rename_refusal(
                supervisor,
                server,
                &path,
                line0,
                character,
                &resolved.cursor_identifier,
                &args.new_name,
                error.code,
                &error.message,
                deadline,
            )
        }
        _ => failure.to_tool_error(server.id(), "textDocument/rename"),
    })?;
    // gopls checks a non-test file's declaration against the package without its test files:
    // a new name an in-package `_test.go` file declares is refused here, before anything is
    // written, as gopls refuses the other direction (trial161 M2).
    if server.id() == "gopls" && edit.is_some() {
        if let Some(refusal) = crate::lsp::go_rename_refusals::test_file_conflict_refusal(
            supervisor,
            server,
            &path,
            line0,
            character,
            &resolved.cursor_identifier,
            &args.new_name,
            deadline,
        ) {
            return Err(refusal);
        }
    }
    // A rename computed while the server still loaded may cover the files it had open only.
    let loading_warning = crate::lsp::tool::unready_when_answered(server, &readiness)
        .and_then(|report| crate::lsp::loading_lookups::loading_rename_warning(server.id(), &report));
    let Some(edit) = edit else {
        let mut message =
            format!("{} returned no edit for renaming `{}` at {display}:{}", server.id(), resolved.cursor_identifier, resolved.line);
        if let Some(note) = readiness.note(server.id()) {
            message.push_str(&format!("; {note}"));
        }
        return Err(ToolError::new(ErrorKind::Failed, message).with_hint("check the position with `lsp` hover; nothing was changed"));
    };
    // Python: a pytest fixture is requested by its name — test and fixture parameters,
    // `usefixtures` / `getfixturevalue` strings — which the server does not follow (trial154
    // F2: 14 tests errored with "fixture not found" after "no new errors"): those requests in
    // pytest's scope for it are renamed with it, before the grep check reads the edit.
    let mut fixture_requests = None;
    let edit = match crate::lsp::rename_coverage::raw_text_edits_by_path(&edit) {
        Some(mut by_path) if resolved.cursor_identifier != args.new_name => {
            match crate::lsp::rename_pytest_fixtures::fixture_requests(
                supervisor.workspace_root(),
                server.root(),
                &by_path,
                &resolved.cursor_identifier,
                &args.new_name,
                server.position_encoding(),
                &|path| supervisor.display_path(path),
            ) {
                Some(found) if !found.edits.is_empty() => {
                    for (file, added) in &found.edits {
                        let existing = by_path.entry(file.clone()).or_default();
                        for text_edit in added {
                            if !existing.iter().any(|other| other.range == text_edit.range) {
                                existing.push(text_edit.clone());
                            }
                        }
                    }
                    fixture_requests = Some(found);
                    lsp_types::WorkspaceEdit {
                        changes: Some(by_path.into_iter().map(|(file, list)| (crate::lsp::uri::path_to_lsp_uri(&file), list)).collect()),
                        ..lsp_types::WorkspaceEdit::default()
                    }
                }
                found => {
                    fixture_requests = found;
                    edit
                }
            }
        }
        _ => edit,
    };
    let fixture_note = fixture_requests.as_ref().map(|found| found.note(&resolved.cursor_identifier, &args.new_name));
    // TypeScript: keys of object literals cast to the renamed member's type through `unknown`
    // (`{ overscan: 1 } as unknown as Required<Options>`), which tsserver does not link (trial160
    // F1: the default stayed `overscan`, tsc clean, the option `undefined` at run time): renamed
    // with it, before the grep check reads the edit.
    let mut asserted_keys = crate::lsp::rename_asserted_literal_keys::AssertedLiteralKeys::default();
    let edit = match crate::lsp::rename_coverage::raw_text_edits_by_path(&edit) {
        Some(mut by_path)
            if server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests
                && resolved.cursor_identifier != args.new_name =>
        {
            let declarations: BTreeMap<PathBuf, Vec<(u32, u32)>> = by_path
                .iter()
                .map(|(file, list)| {
                    (file.clone(), list.iter().map(|text_edit| (text_edit.range.start.line, text_edit.range.start.character)).collect())
                })
                .collect();
            asserted_keys = crate::lsp::rename_asserted_literal_keys::asserted_literal_keys(
                server,
                supervisor.workspace_root(),
                &declarations,
                &by_path,
                &resolved.cursor_identifier,
                &args.new_name,
                check_share_of(deadline),
            );
            if asserted_keys.edits.is_empty() {
                edit
            } else {
                for (file, added) in &asserted_keys.edits {
                    by_path.entry(file.clone()).or_default().extend(added.iter().cloned());
                }
                lsp_types::WorkspaceEdit {
                    changes: Some(by_path.into_iter().map(|(file, list)| (crate::lsp::uri::path_to_lsp_uri(&file), list)).collect()),
                    ..lsp_types::WorkspaceEdit::default()
                }
            }
        }
        _ => edit,
    };
    let asserted_keys_note = asserted_keys.rename_note(server.id(), &resolved.cursor_identifier, &args.new_name);
    let asserted_keys_warning = asserted_keys.unresolved_warning(server.id(), &resolved.cursor_identifier, &args.new_name);
    // Check the edit against every whole-word occurrence of the old name (a third of what is
    // left of the call, at most 30 s) and complete it from missed references.
    let check_deadline =
        (Instant::now() + (deadline.saturating_duration_since(Instant::now()) / 3).min(Duration::from_secs(30))).min(deadline);
    let coverage = crate::lsp::rename_coverage::complete_rename(
        server,
        root,
        &path,
        line0,
        character,
        &resolved.cursor_identifier,
        &args.new_name,
        edit,
        check_deadline,
    );
    let plan = plan_workspace_edit(root, Some(server), &coverage.edit)?;
    if plan.files.is_empty() {
        return Err(ToolError::new(ErrorKind::Failed, format!("{}'s rename edit changes nothing; nothing was written", server.id())));
    }
    // Several project roots of the language (a library crate or module and its consumers): the
    // rename is also computed by the server of the root that owns the definition and by those of
    // the roots that depend on it, and merged file by file (issue 11, trial27b F6 item 3); the
    // rest of the call keeps a fifth of what is left, at least 3 s.
    let mut coverage = coverage;
    let left = deadline.saturating_duration_since(Instant::now());
    let roots_deadline = deadline.checked_sub((left / 5).max(Duration::from_secs(3))).unwrap_or_else(Instant::now);
    // A local, a parameter or a private member is visible inside its function or class only:
    // no other root's code can name it, so no other root is asked (trial172 M9: a parameter's
    // rename asked the consumer root's tsserver, 15.9 s).
    let confined_scope =
        coverage.symbol_scope.as_ref().filter(|scope| plan.files.iter().all(|file| file.path == scope.path)).map(|scope| {
            format!(
                "this rename stays inside {} `{}` (lines {}–{} of {}), where {} is visible",
                if scope.private_member { "class" } else { "function" },
                scope.function,
                scope.first_line + 1,
                scope.last_line + 1,
                supervisor.display_path(&scope.path),
                scope.binding_shown(&resolved.cursor_identifier),
            )
        });
    let across = if confined_scope.is_some() {
        crate::lsp::rename_across_roots::AcrossRoots::default()
    } else {
        crate::lsp::rename_across_roots::rename_in_owning_and_dependent_roots(
            supervisor,
            server,
            &path,
            line0,
            character,
            &resolved.cursor_identifier,
            &args.new_name,
            &coverage.edit,
            &plan,
            &coverage.declaration_kept,
            roots_deadline,
        )
    };
    let plan = across.plan.unwrap_or(plan);
    // The references the starting edit left because it did not rename their declaration, as
    // they stand after the merge (trial172 F1, M10: the listing named lines the merge had
    // renamed); the files it lists as unchanged, less those the merged plan changes.
    if let Some(left) = &across.declaration_kept_left {
        let listing =
            crate::lsp::rename_coverage::declaration_kept_listing(left, &|path| supervisor.display_path(path), &resolved.cursor_identifier);
        replace_report_lines(&mut coverage.report, &coverage.declaration_kept_lines, listing);
    }
    if let Some((line, files)) = &coverage.untouched_files_line {
        let still: Vec<String> = files
            .iter()
            .filter(|file| !plan.files.iter().any(|planned| planned.path == **file))
            .map(|file| supervisor.display_path(file))
            .collect();
        if still.len() != files.len() {
            let said = (!still.is_empty())
                .then(|| format!("  files with `{}` the edit does not change: {}", resolved.cursor_identifier, still.join(", ")));
            replace_report_lines(&mut coverage.report, std::slice::from_ref(line), said.into_iter().collect());
            if let crate::lsp::output::RenameCoverageSummary::Checked(checked) = &mut coverage.summary {
                checked.files_not_changed = still;
            }
        }
    }
    let declaration_renamed_across = across.import_aliases_dropped > 0 || across.owner_renamed_declaration;
    coverage.report.extend(across.report);
    coverage.warnings.extend(across.warnings);
    if declaration_renamed_across {
        // A root renamed the declaration (and the aliases were made plain imports): no root's
        // "local binding only" holds.
        coverage.warnings.retain(|warning| !warning.starts_with("WARNING: only the local binding was renamed"));
    }
    coverage.write_check_blind_spots.extend(across.write_check_blind_spots);
    // An edit into another project root of the language that its own server did not compute
    // (a root not asked): what that root's own files keep is said (trial27b F6).
    coverage.report.extend(crate::lsp::sibling_roots::rename_in_other_roots_notes(
        supervisor,
        server,
        &plan,
        &resolved.cursor_identifier,
        &across.renamed_by_own_server,
        &across.not_asked,
        &across.refused,
    ));
    let total: usize = plan.files.iter().map(|file| file.edit_count).sum();
    // A changed public name of a Python package is said near the top, in both shapes.
    let public_name_notes = crate::lsp::rename_public_names::public_name_notes(root, &plan, &resolved.cursor_identifier, &args.new_name);
    // Packages installed in the project's venv that use the changed public name through this
    // workspace's editable package (trial166 M1: the venv's pytest imports pluggy's marker).
    let installed_users_warning = if public_name_notes.is_empty() || !crate::lsp::pyright_blind_spots::is_python(&path) {
        None
    } else {
        let edited: Vec<&Path> = plan
            .changes
            .iter()
            .filter(|change| crate::lsp::pyright_blind_spots::is_python(&change.path))
            .map(|change| change.path.as_path())
            .collect();
        crate::lsp::rename_public_names::installed_users_note(root, server.root(), &edited, &resolved.cursor_identifier, &args.new_name)
    };
    // TypeScript/JavaScript: the new name already declared in the same scope (tsc rejects it)
    // or a use that would bind to another symbol; Rust/Python: already defined in the same
    // module, impl or class (trial27b M8). Said at the top too.
    let taken = crate::lsp::rename_taken_names::taken_name_findings(&plan, &resolved.cursor_identifier, &args.new_name, &|path| {
        supervisor.display_path(path)
    });
    // Python: a parameter or local renamed onto a local binding of its function, where a read
    // of either then surely gets the other's value, changes what the code reads with no error
    // (only sure reads refuse, review50 H7; trial170 F2: humanize's
    // `format` → `fmt` beside `for unit, fmt in …`, 18 tests failed): refused, as gopls and
    // rust-analyzer refuse a rename onto a name another local in scope takes.
    if !taken.refusals.is_empty() {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!("refused to rename `{}` to `{}`: {}", resolved.cursor_identifier, args.new_name, taken.refusals.join("; ")),
        )
        .with_hint("pick another new name (one no local of the function binds), or rename that local first; nothing was changed"));
    }
    // A renamed Python method whose overrides (or overridden base method) keep the old name
    // changes dispatch without a type error: said near the top too (a sixth of what is left,
    // at most 15 s).
    let override_deadline = check_share_of(deadline);
    let left_unrenamed: &[String] = match &coverage.summary {
        crate::lsp::output::RenameCoverageSummary::Checked(checked) => &checked.left_unrenamed,
        _ => &[],
    };
    let overrides = crate::lsp::rename_overrides::override_findings(
        server,
        root,
        &path,
        line0,
        &resolved.cursor_identifier,
        &args.new_name,
        &plan,
        left_unrenamed,
        &|taken_path, taken_line0, line_text| {
            supervisor.declaration_renamed_in_run(taken_path, taken_line0, line_text, &resolved.cursor_identifier, &args.new_name)
        },
        override_deadline,
    );
    // Python: renamed uses on a receiver typed as a union whose other member lacks the name,
    // which the server already reported there before the write (trial150 F1): at run time the
    // receiver is a subclass of that member with its own method of the old name.
    let partial_deadline = check_share_of(deadline);
    let partial_receivers = crate::lsp::rename_partial_receivers::partial_receiver_uses(
        server,
        supervisor.workspace_root(),
        &plan,
        &resolved.cursor_identifier,
        &args.new_name,
        partial_deadline,
    );
    let partial_receiver_warning = partial_receivers.warning(server.id(), &resolved.cursor_identifier, &args.new_name);
    coverage.report.extend(partial_receivers.summary(server.id(), &resolved.cursor_identifier));
    // TypeScript/JavaScript: a new name a base class or a subclass already declares as a
    // member — the renamed member would override it or be overridden by it, with no type error
    // when the signatures agree (trial46 F3). Asked from the renamed member's declaration.
    let inherited = if server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests {
        let hierarchy_deadline = override_deadline.max(Instant::now() + Duration::from_secs(8)).min(deadline);
        let declaration = crate::lsp::rename_coverage::definition_targets(server, &path, line0, character, hierarchy_deadline)
            .into_iter()
            .min()
            .unwrap_or_else(|| (path.clone(), line0, character));
        crate::lsp::rename_inherited_members::inherited_member_warnings(
            server,
            &declaration.0,
            declaration.1,
            &resolved.cursor_identifier,
            &args.new_name,
            hierarchy_deadline,
            &|path| supervisor.display_path(path),
        )
    } else {
        crate::lsp::rename_inherited_members::InheritedMemberFindings::default()
    };
    // What the result says at its top, before the file list — in the preview too, where it
    // matters most: an agent decides on `resolve accept` from the preview (small24): occurrences
    // left where tests run them (doc-tests, pytest doctest files), attribute-name strings,
    // methods tied by an interface, taken names, changed public names, changed dispatch.
    // Occurrences in files the tsconfig leaves out: tsserver renames none of them (trial31 F1).
    // A local, a parameter or a private member (`#name`) cannot be named there: their count is
    // one line of the check's report, not a WARNING (trial156 M2: `#queryCache` warned of 100
    // occurrences in the build's `.d.ts` files, a parameter `client` of 216).
    let planned_canonical: Vec<PathBuf> =
        plan.files.iter().map(|file| std::fs::canonicalize(&file.path).unwrap_or_else(|_| file.path.clone())).collect();
    if let Some(scope) = &coverage.symbol_scope {
        if let Some((occurrences, files)) = crate::lsp::project_scope::word_outside_config(
            server.definition(),
            supervisor.workspace_root(),
            server.root(),
            &resolved.cursor_identifier,
            &planned_canonical,
        ) {
            coverage.report.push(format!(
                "  not this binding: {} of `{}` in {} outside the tsconfig's files/include/exclude ({}{}) — outside {} `{}` (lines {}–{} of {}), where {} is not visible: not renamed, rightly",
                crate::render::plural(occurrences, "whole-word occurrence"),
                resolved.cursor_identifier,
                crate::render::plural(files.len(), "file"),
                files.iter().take(3).map(|path| supervisor.display_path(path)).collect::<Vec<_>>().join(", "),
                if files.len() > 3 { format!(" and {} more", files.len() - 3) } else { String::new() },
                if scope.private_member { "class" } else { "function" },
                scope.function,
                scope.first_line + 1,
                scope.last_line + 1,
                supervisor.display_path(&scope.path),
                scope.binding_shown(&resolved.cursor_identifier),
            ));
        }
    }
    let outside_config = coverage
        .symbol_scope
        .is_none()
        .then(|| {
            crate::lsp::project_scope::word_outside_config_sentence(
                server.definition(),
                supervisor.workspace_root(),
                server.root(),
                &resolved.cursor_identifier,
                &planned_canonical,
                "renamed and not checked after the write",
                |path| supervisor.display_path(path),
            )
        })
        .flatten()
        .map(|sentence| format!("WARNING: {sentence}"));
    let planned: Vec<PathBuf> = plan.files.iter().map(|file| file.path.clone()).collect();
    let edited_outside = crate::lsp::project_scope::paths_outside_config(server.definition(), server.root(), &planned);
    let edited_outside_warning = (!edited_outside.is_empty()).then(|| {
        format!(
            "WARNING: this rename edits {} outside the tsconfig's program ({}): {} reached {} through an inferred project — build output (`.d.ts`, `.d.cts`, `.js`, `.cjs`, `.mjs`) or excluded files — so the source the project compiles may be left with the old name; check the files listed below",
            crate::render::plural(edited_outside.len(), "file"),
            edited_outside.iter().take(5).map(|path| supervisor.display_path(path)).collect::<Vec<_>>().join(", "),
            server.id(),
            crate::render::one_or_many(edited_outside.len(), "it", "them"),
        )
    });
    // Rust: a renamed token that is a whole argument of a `macro_rules!` call whose template
    // uses it more than once changes the expansion beyond the renamed name (trial66 M2).
    let macro_argument_warnings =
        crate::lsp::rename_macro_arguments::macro_argument_warnings(root, &plan, &resolved.cursor_identifier, &args.new_name, &|path| {
            supervisor.display_path(path)
        });
    let path_attribute_warnings = moved_files_named_by_path_attributes(&plan, &|path| supervisor.display_path(path));
    let mut built_name_warnings = python_names_built_at_run_time(&plan, &resolved.cursor_identifier, &|path| supervisor.display_path(path));
    // A class renamed (asked at its `class` line or at a use): the plan changes a `class OLD` line.
    let renames_a_class = plan.python_texts().iter().any(|(_, old_text, new_text)| {
        old_text.lines().zip(new_text.lines()).any(|(old_line, new_line)| {
            old_line.trim_start().starts_with(&format!("class {}", resolved.cursor_identifier))
                && new_line.trim_start().starts_with(&format!("class {}", args.new_name))
        })
    });
    if renames_a_class {
        built_name_warnings.extend(python_class_name_dispatch_warning(
            supervisor.workspace_root(),
            server.root(),
            &resolved.cursor_identifier,
            &args.new_name,
            &|path| supervisor.display_path(path),
        ));
    }
    let overload_warnings = python_overload_parameter_warnings(&plan, &path, line0, &resolved.cursor_identifier, &args.new_name, &|path| {
        supervisor.display_path(path)
    });
    let test_collection_warnings = crate::lsp::rename_test_discovery::test_collection_warnings(
        supervisor.workspace_root(),
        server.root(),
        &plan,
        &resolved.cursor_identifier,
        &args.new_name,
        &|path| supervisor.display_path(path),
    );
    let implicit_protocol_warning =
        implicit_protocol_member_warning(&path, &resolved.line_text, &resolved.cursor_identifier, &args.new_name).map(|warning| {
            // `@functools.total_ordering` on the class: with no ordering method left, the class
            // statement raises and the module no longer imports (trial170 M10).
            let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).unwrap_or_default();
            match total_ordering_left_without_operation(&text, resolved.line.saturating_sub(1) as usize, &resolved.cursor_identifier, &args.new_name) {
                Some(class) => format!("{warning}. Worse here: `{class}` is decorated `@total_ordering`, and with `{}` renamed it defines no ordering method (`__lt__`, `__le__`, `__gt__`, `__ge__`), so the decorator raises `ValueError: must define at least one ordering operation` when the class is created — the module no longer imports", resolved.cursor_identifier),
                None => warning,
            }
        });
    let serialized_name_warning = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).ok().and_then(|text| {
        rust_serde_field_warning(&path, &text, resolved.line.saturating_sub(1), &resolved.cursor_identifier, &args.new_name)
    });
    let top_warnings: Vec<String> = outside_config
        .iter()
        .chain(implicit_protocol_warning.iter())
        .chain(serialized_name_warning.iter())
        .chain(edited_outside_warning.iter())
        .chain(&test_collection_warnings)
        .chain(&macro_argument_warnings)
        .chain(&path_attribute_warnings)
        .chain(&overload_warnings)
        .chain(&built_name_warnings)
        .chain(loading_warning.iter())
        .chain(&coverage.warnings)
        .chain(&taken.warnings)
        .chain(&inherited.warnings)
        .chain(&overrides.new_name_taken)
        .chain(&overrides.two_class_base_warnings)
        .chain(&overrides.declaration_warnings)
        .chain(&overrides.protocol_warnings)
        .chain(&overrides.enum_lookup_warnings)
        .chain(&overrides.union_receiver_warnings)
        .chain(partial_receiver_warning.iter())
        .chain(fixture_note.iter())
        .chain(asserted_keys_warning.iter())
        .chain(asserted_keys_note.iter())
        .chain(installed_users_warning.iter())
        .chain(&public_name_notes)
        .chain(&overrides.dispatch_notes)
        .cloned()
        .collect();
    // Each root of a rename across roots checks it: a finding two roots make (the standard
    // library's implementation of the renamed interface method) is said once (recheck of
    // trial110: the WARNING twice, word for word).
    let mut said: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut top_warnings: Vec<String> = top_warnings.into_iter().filter(|warning| said.insert(warning.clone())).collect();
    // Go: the files the rename leaves unformatted for gofmt (trial157 M4), checked on the planned
    // texts; said once whether the change is written or staged is known.
    let go_format = plan.files.iter().any(|file| file.path.extension().is_some_and(|extension| extension == "go")).then(|| {
        crate::lsp::go_format_check::go_files_left_unformatted(
            root,
            supervisor.path_env().as_deref(),
            &plan,
            (Instant::now() + Duration::from_secs(5)).min(deadline),
        )
    });
    // A rename that leaves methods tied to it by an interface with the old name breaks the build
    // wherever the interface is used: staged, not written, so the agent decides (trial30 M8: a
    // written rename of goldmark's `BlockParser.Trigger` broke 13 implementations).
    let tied_left = match &coverage.summary {
        crate::lsp::output::RenameCoverageSummary::Checked(checked) => checked.left_in_interface_tied_methods.len(),
        _ => 0,
    };
    let staged_because = (!args.preview && tied_left > 0).then(|| {
        format!(
            "NOT written: this rename leaves {} tied to `{}` by an interface with the old name (listed below): their types no longer implement it, so the build breaks where one is used as the interface, and a type assertion or switch on it (`x.(Iface)`) stops matching at run time with no error at all; it is staged instead — rename them too (the list below says how, and in which order), `resolve` accept to write it as is, or discard",
            crate::render::plural(tied_left, "method"),
            resolved.cursor_identifier
        )
    });
    // The new name already declared or defined in the same scope (the taken-name WARNINGs at
    // the top): the renamed code does not build, or (Python) one definition silently replaces
    // the other (trial176 M6: zod's `_parse` renamed to `_parseSync` next to one, written: 637
    // errors in 30 files).
    let staged_because = staged_because.or_else(|| {
        let blocking = &taken.blocking;
        (!args.preview && !blocking.is_empty()).then(|| {
            format!(
                "NOT written: `{}` is already declared in the same scope as the renamed `{}` ({}; the WARNINGs below say where): written, the duplicate does not build (tsc, cargo check) or, in Python, one definition silently replaces the other or a class body's use silently reads the other; it is staged instead — `resolve` discard and pick another name (or rename that one first), or accept to write it as is",
                args.new_name,
                resolved.cursor_identifier,
                blocking.join(", "),
            )
        })
    });
    // Go: anonymous interface types in the workspace that name the renamed method by its old
    // name — a type assertion or switch on one stops matching at run time, with no compile error
    // (trial161 M8: pkg/errors' `StackTrace` → `Trace` was written after its WARNING, and
    // TestStackTrace failed).
    let staged_because = staged_because.or_else(|| {
        let left = &coverage.anonymous_interfaces_left;
        (!args.preview && !left.is_empty()).then(|| {
            format!(
                "NOT written: {} an anonymous interface type with a method `{}` ({}; see the WARNING below): where the renamed method's type satisfied it, a type assertion or type switch on it (`x.(interface{{ {}() … }})`) silently stops matching at run time — no compile error, no checker reports it, and a test that asserts it fails; it is staged instead — `resolve` accept to write it and then rename `{}` to `{}` in {} where {} this method, or discard",
                if left.len() == 1 { "1 place declares".to_owned() } else { format!("{} places declare", left.len()) },
                resolved.cursor_identifier,
                left.join(", "),
                resolved.cursor_identifier,
                resolved.cursor_identifier,
                args.new_name,
                crate::render::one_or_many(left.len(), "that interface type", "those interface types"),
                crate::render::one_or_many(left.len(), "it means", "they mean"),
            )
        })
    });
    // Go: named interfaces of the workspace the renamed method implemented, which a type
    // assertion or switch uses (recheck47 N2: pkg/errors' function-local `causer`, go test
    // failed after the written `Cause` → `Origin`).
    let staged_because = staged_because.or_else(|| {
        let asserted = &coverage.asserted_interfaces_left;
        (!args.preview && !asserted.is_empty()).then(|| {
            format!(
                "NOT written: the renamed method implemented {} that this rename leaves and that a type assertion or type switch uses — {} (see the WARNING below): the assertion on a value of the renamed method's type silently stops matching at run time, with no compile error; it is staged instead — `resolve` accept to write it and then rename `{}` to `{}` in {} too if {} this method, or discard",
                crate::render::plural(asserted.len(), "interface"),
                asserted.join("; "),
                resolved.cursor_identifier,
                args.new_name,
                crate::render::one_or_many(asserted.len(), "that interface", "those interfaces"),
                crate::render::one_or_many(asserted.len(), "it means", "they mean"),
            )
        })
    });
    // Python: a structural match with a `typing.Protocol` broken (trial100 F1): no checker sees it.
    let staged_because = staged_because.or_else(|| {
        (!args.preview && !overrides.protocol_warnings.is_empty()).then(|| {
            format!(
                "NOT written: this rename breaks a structural match with a `typing.Protocol` (see the WARNING below), which fails only at run time (AttributeError) and which pyright does not report; it is staged instead — rename the other members too first, or `resolve` accept to write it as is, or discard (`{}`)",
                resolved.cursor_identifier
            )
        })
    });
    // Python: overrides (or the overridden base method) in the workspace left with the old
    // name: dispatch changes silently, no checker reports it (trial150 M3).
    let staged_because = staged_because.or_else(|| {
        (!args.preview && !overrides.overrides_left.is_empty()).then(|| {
            const NAMED: usize = 5;
            let named: Vec<&str> = overrides.overrides_left.iter().take(NAMED).map(String::as_str).collect();
            format!(
                "NOT written: this rename leaves {} that {} `{}` with the old name — {}{} (the notes below say how dispatch changes): {}; it is staged instead — rename {} too first, or `resolve` accept to write it as is, or discard",
                crate::render::plural(overrides.overrides_left.len(), "related method"),
                crate::render::one_or_many(overrides.overrides_left.len(), "overrides or is overridden by", "override or are overridden by"),
                resolved.cursor_identifier,
                named.join(", "),
                if overrides.overrides_left.len() > NAMED { format!(" and {} more", overrides.overrides_left.len() - NAMED) } else { String::new() },
                if overrides.renamed_abstract_method {
                    format!("the renamed `{}` is an `@abstractmethod`, so the classes that implemented it become abstract and raise TypeError when instantiated (pyright reports each instantiation, reportAbstractUsage)", resolved.cursor_identifier)
                } else {
                    format!("calls and reads of `{}` then reach another class's member with no error at all, and no checker reports it", resolved.cursor_identifier)
                },
                crate::render::one_or_many(overrides.overrides_left.len(), "it", "them"),
            )
        })
    });
    // Python: renamed uses the server already typed as partly lacking the name (trial150 F1):
    // they fail only at run time, and no checker reports anything new.
    let staged_because = staged_because.or_else(|| {
        (!args.preview && !partial_receivers.uses.is_empty()).then(|| {
            format!(
                "NOT written: this rename changes {} on a receiver {} types as a union whose other member has no `{}` (see the WARNING below): at run time {} a subclass with its own `{}`, so `.{}` raises AttributeError there, and no checker reports it; it is staged instead — `resolve` accept to write it as is and then edit those lines back to `.{}`, or discard",
                crate::render::plural(partial_receivers.uses.len(), "use"),
                server.id(),
                resolved.cursor_identifier,
                crate::render::one_or_many(partial_receivers.uses.len(), "that receiver holds", "those receivers hold"),
                resolved.cursor_identifier,
                args.new_name,
                resolved.cursor_identifier,
            )
        })
    });
    // Python: members the WARNINGs say the renamed code breaks at run time (an instance attribute
    // a class assigns itself, a `__slots__` entry, an `if TYPE_CHECKING:` declaration), left with
    // the old name inside the workspace (review45 RISK 5).
    let staged_because = staged_because.or_else(|| {
        (!args.preview && !overrides.run_time_breaks_left.is_empty()).then(|| {
            const NAMED: usize = 5;
            let left = &overrides.run_time_breaks_left;
            let named: Vec<&str> = left.iter().take(NAMED).map(String::as_str).collect();
            format!(
                "NOT written: this rename leaves {} with the old name that the renamed code still reaches — {}{} (the WARNINGs below say how): AttributeError at run time, which no checker reports; it is staged instead — rename {} too first, or `resolve` accept to write it as is, or discard",
                crate::render::plural(left.len(), "related declaration"),
                named.join(", "),
                if left.len() > NAMED { format!(" and {} more", left.len() - NAMED) } else { String::new() },
                crate::render::one_or_many(left.len(), "it", "them"),
            )
        })
    });
    // Python: a renamed parameter's `old=` keywords left on calls the server cannot resolve
    // (trial154 F1): swallowed by a `**kwargs` or a TypeError, at run time only.
    let staged_because = staged_because.or_else(|| {
        (!args.preview && !coverage.keyword_arguments_left.is_empty()).then(|| {
            format!(
                "NOT written: this rename leaves {} `{}=` in calls {} gives no definition for (see the WARNING below): after it they no longer reach the renamed parameter or field — a `**kwargs` swallows them silently or the call raises TypeError at run time, and a checker that resolves no definition there may report nothing; it is staged instead — `resolve` accept and then rename those keywords to `{}=` where the call reaches it (ast_edit with the rule {}{}), or discard",
                crate::render::plural(coverage.keyword_arguments_left.len(), "keyword argument"),
                resolved.cursor_identifier,
                server.id(),
                args.new_name,
                keyword_argument_rule(&resolved.cursor_identifier, &coverage.keyword_argument_callees, &coverage.keyword_argument_class_calls),
                if coverage.keyword_argument_callees.is_empty() && coverage.keyword_argument_class_calls.is_empty() {
                    ", which matches every such keyword: check each match"
                } else {
                    ", which matches those callees' calls only"
                },
            )
        })
    });
    // Python: a constructor's parameter whose `old=` keywords reach it through a `TypedDict` key
    // that subclasses unpack as `**kwargs` (trial177 F1): pyright resolves them to the key and
    // its rename left them; written, each raises TypeError.
    let staged_because = staged_because.or_else(|| {
        let left = &coverage.typed_dict_keywords_left;
        (!args.preview && !left.is_empty()).then(|| {
            let keys: Vec<String> = left.iter().map(|key| format!("`{}.{}` ({}:{})", key.class, resolved.cursor_identifier, key.file, key.line)).collect();
            let calls: Vec<String> = left
                .iter()
                .map(|key| {
                    format!(
                        "lsp_rename {{\"file\":\"{}\",\"line\":{},\"symbol\":\"{}\",\"new_name\":\"{}\"}}",
                        key.file, key.line, resolved.cursor_identifier, args.new_name
                    )
                })
                .collect();
            format!(
                "NOT written: this rename leaves {} `{}=` in calls that reach the renamed parameter through the TypedDict {} {} (see the WARNING below): {} resolves them to the key, so after this rename each such call raises TypeError at run time; it is staged instead — `resolve` accept and then rename the key too, which renames those keywords: {} — or discard",
                crate::render::plural(left.iter().map(|key| key.uses.len()).sum(), "keyword argument"),
                resolved.cursor_identifier,
                crate::render::one_or_many(keys.len(), "key", "keys"),
                keys.join(", "),
                server.id(),
                calls.join(", then "),
            )
        })
    });
    // Python: a renamed test parameter that a class's or a `pytestmark`'s parametrize argnames
    // also sets (review50 M7): the item is shared with other tests and left, and pytest fails
    // to collect the renamed test.
    let staged_because = staged_because.or_else(|| {
        let left = &coverage.shared_parametrize_argnames_left;
        (!args.preview && !left.is_empty()).then(|| {
            format!(
                "NOT written: a `@pytest.mark.parametrize` argnames item shared with other tests also sets `{}` for this test ({}; see the WARNING below): written, pytest fails to collect the test, and no checker reports it; it is staged instead — `resolve` discard and keep the name, or accept and then rename the item and that parameter of every test it reaches",
                resolved.cursor_identifier,
                left.join(", "),
            )
        })
    });
    // Python: a fixture in a plugin module that nothing in the project loads, requested by
    // tests or fixtures outside its module (review46 #6, review47 M5): those requests are left,
    // and fail with "fixture 'old' not found". No request elsewhere: written.
    let staged_because = staged_because.or_else(|| {
        let found = fixture_requests.as_ref().filter(|found| found.plugin_scope_unknown)?;
        (!args.preview).then(|| {
            format!(
                "NOT written: `{}` is a pytest fixture in a plugin module that no conftest.py, test module or pytest configuration here loads (see the WARNING below), and {} of it outside the module were not renamed: they would fail with \"fixture '{}' not found\"; it is staged instead — `resolve` accept and rename those requests to `{}` too, or discard",
                resolved.cursor_identifier,
                crate::render::plural(found.unrenamed_requests.len(), "request"),
                resolved.cursor_identifier,
                args.new_name,
            )
        })
    });
    // TypeScript: keys of literals asserted to a type the server could not resolve (trial160 F1):
    // where it is the renamed member's type, a key left unrenamed is ignored at run time.
    let staged_because = staged_because
        .or_else(|| (!args.preview).then(|| asserted_keys.staged_because(&resolved.cursor_identifier, &args.new_name)).flatten());
    // A root of the language whose own server refused the rename (a name conflict in its code,
    // review44 RISK 6): written, the other roots would take the new name and that root's code
    // would no longer build against them. Staged, not written, so the agent picks another name.
    let staged_because = staged_because.or_else(|| {
        (!args.preview && !across.refused.is_empty()).then(|| {
            let roots: Vec<String> = across.refused.iter().map(|root| supervisor.display_path(root)).collect();
            format!(
                "NOT written: {} @ {} refused to rename `{}` in {} own code (the WARNING below says why): written, the other roots would take `{}` and the code of {} that uses `{}` would no longer build against them; it is staged instead — `resolve` discard and pick another name, or `resolve` accept to write the other roots as they are",
                server.id(),
                roots.join(", "),
                resolved.cursor_identifier,
                crate::render::one_or_many(roots.len(), "its", "their"),
                args.new_name,
                roots.join(", "),
                resolved.cursor_identifier,
            )
        })
    });
    // Rust: uses of the renamed member behind a `#[cfg]` that is off that the syntax tree shows
    // to be that member (`self.field` in its type's `impl`, a literal of its type naming the
    // field, `Type::function`, a cfg twin's `fn`): rust-analyzer's rename does not reach them and
    // a build with that cfg breaks, while this host's check sees nothing (trial167 M2: walkdir's
    // `follow_link` renamed and written, 9 windows lines left, the windows build broken).
    let staged_because = staged_because.or_else(|| {
        let left = &coverage.cfg_off_same_member_uses;
        (!args.preview && !left.is_empty()).then(|| {
            format!(
                "NOT written: this rename leaves `{}` on {} behind a `#[cfg]` that is off ({}) where the syntax tree shows `{}` itself (listed below with how): {} does not analyze that code, so its rename did not reach {}, and a build with that cfg (another target OS, a feature) breaks there while this host's check reports nothing; it is staged instead — `resolve` accept and then replace `{}` with `{}` on {}{} (the edit tool) and run the check named below, or discard",
                resolved.cursor_identifier,
                crate::render::plural(left.len(), "line"),
                left.join(", "),
                resolved.cursor_identifier,
                server.id(),
                crate::render::one_or_many(left.len(), "it", "them"),
                resolved.cursor_identifier,
                args.new_name,
                crate::render::one_or_many(left.len(), "that line", "those lines"),
                // Review50 H5: a shorthand field's place carries its own edit (`new: old`).
                if left.iter().any(|place| place.contains(" (write `")) {
                    " — where a place says `write …` (a shorthand field), write that instead"
                } else {
                    ""
                },
            )
        })
    });
    if let Some(note) =
        go_format.and_then(|check| check.note(!args.preview && staged_because.is_none(), &|path| supervisor.display_path(path)))
    {
        top_warnings.push(note);
    }
    // Remembered for the renames that follow it (an override renamed after its base).
    supervisor.record_planned_rename(&plan.python_texts(), &resolved.cursor_identifier, &args.new_name);
    if args.preview || staged_because.is_some() {
        let description = format!("rename `{}` → `{}` ({})", resolved.shown_name(), args.new_name, server.id());
        // The warnings and the check's findings (indented under its summary line) are repeated
        // when the change is accepted: what runbound added, what stays unrenamed, what could not
        // be verified.
        let warnings: Vec<String> = top_warnings
            .iter()
            .cloned()
            .chain(
                coverage
                    .report
                    .iter()
                    .filter(|line| line.starts_with(' '))
                    .map(|line| line.trim().to_owned())
                    .filter(|line| !line.is_empty()),
            )
            .collect();
        let (staged, max_pending) =
            stage_plan(ctx, root, &plan, "lsp_rename", description.clone(), warnings, coverage.write_check_blind_spots.clone())?;
        let mut lines: Vec<String> = staged_because.iter().cloned().collect();
        lines.push(format!(
            "(proposed) {description}: {} in {}:",
            crate::render::plural(total, "edit"),
            crate::render::plural(plan.changed_file_count(), "file")
        ));
        lines.extend(top_warnings.iter().cloned());
        let (file_lines, files) = planned_file_lines(&plan, &|path| supervisor.display_path(path));
        lines.extend(file_lines);
        lines.extend(coverage.report.iter().cloned());
        lines.extend(taken.summary.iter().cloned());
        lines.extend(inherited.summary.iter().cloned());
        lines.extend(overrides.summary.iter().cloned());
        lines.extend(lease.notes.iter().cloned());
        lines.extend(resync_note.iter().cloned());
        lines.push(staged.instructions(max_pending));
        lines.push(staged.preview.text.clone());
        let output = RenameOutput::Staged(RenameStaged {
            edit_id: staged.edit_id.clone(),
            renamed: resolved.cursor_identifier.clone(),
            new_name: args.new_name.clone(),
            edits: total,
            files,
            coverage: coverage.summary.clone(),
            name_conflicts: taken.warnings.clone(),
            public_name_changes: public_name_notes.clone(),
            dispatch_changes: overrides
                .enum_lookup_warnings
                .iter()
                .chain(&overrides.declaration_warnings)
                .chain(&overrides.protocol_warnings)
                .chain(&overrides.union_receiver_warnings)
                .chain(&overrides.dispatch_notes)
                .cloned()
                .collect(),
            override_check: overrides.summary.clone(),
            warnings: top_warnings,
            preview_hunks_shown: staged.preview.shown,
            preview_hunks_total: staged.preview.total,
            evicted: staged.evicted.clone(),
            staged_because,
        });
        return Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(crate::schema::to_structured(&output))));
    }
    // Seed the ledger with the pre-write state of every file about to change.
    let touched: Vec<PathBuf> = plan.files.iter().map(|file| file.path.clone()).collect();
    // A local's rename changes no other file's code: the roots depending on this one are not
    // checked by their project checker before and after the write (trial172 M9: the consumer's
    // `tsc` ran twice for a parameter's rename).
    if let Some(why) = &confined_scope {
        crate::lsp::diagnostics_on_write::note_write_confined(ctx.deadline(), why.clone());
    }
    ctx.before_write(&touched);
    let written = commit_workspace_edit(root, &plan)?;
    crate::lsp::diagnostics_on_write::note_write_check_blind_spots(ctx.deadline(), coverage.write_check_blind_spots.clone());
    crate::lsp::diagnostics_on_write::note_interface_losses_said(
        ctx.deadline(),
        coverage.interface_loss_warned_method.iter().cloned().collect(),
    );
    let mut lines = vec![format!(
        "Renamed `{}` to `{}` ({}): {total} edit{} in {} file{}:",
        resolved.shown_name(),
        args.new_name,
        server.id(),
        if total == 1 { "" } else { "s" },
        plan.changed_file_count(),
        if plan.changed_file_count() == 1 { "" } else { "s" }
    )];
    // Occurrences left where tests run them (doc-tests) and changed public names are said
    // before the file list.
    lines.extend(top_warnings.iter().cloned());
    let (file_lines, files) = planned_file_lines(&plan, &|path| supervisor.display_path(path));
    lines.extend(file_lines);
    // A renamed directory is gone once its files moved; one that something was added to meanwhile
    // stays, and is said.
    for moved in &plan.moved_directories {
        if crate::files::metadata_beneath(root, &moved.from).ok().flatten().is_some() {
            lines.push(format!(
                "note: {} was left in place: its files moved to {}, and it is not empty (something was added to it meanwhile) or one of its directories could not be created under the new path",
                supervisor.display_path(&moved.from),
                supervisor.display_path(&moved.to)
            ));
        }
    }
    lines.extend(coverage.report.iter().cloned());
    lines.extend(taken.summary.iter().cloned());
    lines.extend(inherited.summary.iter().cloned());
    lines.extend(overrides.summary.iter().cloned());
    for note in lease.notes.iter().chain(&resync_note) {
        lines.push(note.clone());
    }
    let output = RenameOutput::Applied(RenameApplied {
        renamed: resolved.cursor_identifier.clone(),
        new_name: args.new_name.clone(),
        edits: total,
        files,
        coverage: coverage.summary,
        name_conflicts: taken.warnings,
        public_name_changes: public_name_notes,
        dispatch_changes: overrides
            .enum_lookup_warnings
            .into_iter()
            .chain(overrides.declaration_warnings)
            .chain(overrides.protocol_warnings)
            .chain(overrides.union_receiver_warnings)
            .chain(overrides.dispatch_notes)
            .collect(),
        override_check: overrides.summary,
        warnings: top_warnings,
    });
    Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(crate::schema::to_structured(&output)))
        .with_written_paths(written))
}

/// For a Python rename of `old_name`: one `WARNING: …` per string in the plan's Python files (read
/// before the edit) that builds names starting like `old_name` at run time — `'visit_%s' % …`,
/// `f'visit_{…}'`, `'visit_' + …`, `.format`, or a `startswith('_func_')` test — since code that
/// calls or registers methods by such a name stops finding the renamed one, with no error from
/// pyright (trial76 M1: jmespath's `getattr(self, 'visit_%s' % node['type'])` and its
/// `_func_` registry; 20 tests failed, `abs()` disappeared). Empty when none is found.
fn python_names_built_at_run_time(plan: &WorkspaceEditPlan, old_name: &str, display: &dyn Fn(&Path) -> String) -> Vec<String> {
    let texts = plan.python_texts();
    let found = python_strings_building_name(texts.iter().map(|(path, old_text, _)| (*path, old_text.as_str())), old_name, display);
    if found.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "WARNING: `{old_name}` matches a name the code builds at run time from a string — {} — so a `getattr`, a registry or a dispatch by name may call or register it by that name: the renamed method is no longer found there (often a fallback runs instead), and pyright reports nothing; read those lines before accepting, and keep the name if they reach it",
        found.iter().take(6).cloned().collect::<Vec<_>>().join(", ")
    )]
}

/// For a Python class renamed from `old_name`: a `WARNING: …` when a file under `root` builds a
/// method name from a class's `__name__` (`'_process_{cls}'.format(cls=type(tlist).__name__)`)
/// and declares the method of this class's name (`def _process_where`, for `Where`, its name
/// lowered or not): the lookup stops finding it after the rename and its fallback runs, with no
/// error (trial136 F2: sqlparse's `Where` → `WhereClause`, 11 tests failed after "no new errors").
/// Empty otherwise.
fn python_class_name_dispatch_warning(
    workspace_root: &Path,
    root: &Path,
    old_name: &str,
    new_name: &str,
    display: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let lowered = old_name.to_lowercase();
    let is_python = |path: &Path| path.extension().is_some_and(|extension| extension == "py");
    crate::lsp::rename_coverage::for_each_text_file_beneath(workspace_root, root, is_python, |path, text| {
        for (index, line) in text.lines().enumerate() {
            if !line.contains("__name__") || found.len() >= 4 {
                continue;
            }
            for prefix in python_name_building_prefixes(line) {
                let method = [format!("def {prefix}{lowered}("), format!("def {prefix}{old_name}(")]
                    .into_iter()
                    .find(|definition| text.contains(definition.as_str()));
                if let Some(method) = method {
                    found.push(format!(
                        "{}:{} builds `{prefix}…` from a class's `__name__` and declares `{}`",
                        display(path),
                        index + 1,
                        method.trim_start_matches("def ").trim_end_matches('(')
                    ));
                }
            }
        }
    });
    if found.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "WARNING: the class name `{old_name}` is looked up at run time: {} — after the rename a `{new_name}` builds another name, the lookup no longer finds that method and its fallback runs instead, with no error from any checker; rename the method to the name built from `{new_name}` (lowered where the lookup lowers it), or keep the class name",
        found.join("; "),
    )]
}

/// The lines of Python `texts` (path, text) with a string that builds names starting like `name`
/// at run time (see [`python_names_built_at_run_time`]), each as `path:line (`code`)`, the
/// line 1-based and its code cut to 80 characters.
pub(crate) fn python_strings_building_name<'a>(
    texts: impl Iterator<Item = (&'a Path, &'a str)>,
    old_name: &str,
    display: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (path, old_text) in texts {
        for (index, line) in old_text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with('#') {
                continue;
            }
            let matches = python_name_building_prefixes(line)
                .into_iter()
                .filter(|prefix| prefix.len() >= 2 && prefix.len() < old_name.len() && old_name.starts_with(prefix.as_str()));
            for _ in matches {
                found.push(format!("{}:{} (`{}`)", display(path), index + 1, crate::render::cut_chars(code, 80)));
            }
        }
    }
    found
}

/// The literal prefixes of the strings on a Python `line` that build names at run time: the part
/// before a placeholder (`visit_` of `'visit_%s'` / `f'visit_{…}'` / `'visit_{}'.format(…)`), a
/// literal concatenated with `+`, or the argument of a `startswith(…)` test; identifier
/// characters only, one per such string, in order.
fn python_name_building_prefixes(line: &str) -> Vec<String> {
    let mut prefixes = Vec::new();
    for quote in ['\'', '"'] {
        let mut rest = line;
        while let Some(open) = rest.find(quote) {
            let after = &rest[open + 1..];
            let Some(close) = after.find(quote) else { break };
            let literal = &after[..close];
            let tail = after[close + 1..].trim_start();
            let before = rest[..open].trim_end();
            let prefix = literal.split(['%', '{']).next().unwrap_or(literal);
            let builds = (literal.len() > prefix.len()
                && (literal[prefix.len()..].starts_with("%s") || literal[prefix.len()..].starts_with('{')))
                || tail.starts_with('+')
                || before.ends_with("startswith(");
            if builds && !prefix.is_empty() && prefix.chars().all(|c| c.is_alphanumeric() || c == '_') {
                prefixes.push(prefix.to_owned());
            }
            rest = &after[close + 1..];
        }
    }
    prefixes
}

/// For a Python parameter `old_name` (asked at 0-based `line0` of `path`) of a function declared
/// several times in one scope with `@overload` signatures: one `WARNING: …` naming the
/// declarations whose parameter of that name the plan leaves. pyright renames the parameter of
/// one declaration; the overloads and the implementation are one parameter at run time, and a
/// keyword caller breaks with a TypeError wherever the implementation's name differs (trial69
/// M1: itsdangerous' `TimestampSigner.unsign(max_age=…)`, 82 tests failed; the others had been
/// "another symbol"). Empty for other files and functions.
fn python_overload_parameter_warnings(
    plan: &WorkspaceEditPlan,
    path: &Path,
    line0: u32,
    old_name: &str,
    new_name: &str,
    display: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    if path.extension().is_none_or(|ext| ext != "py" && ext != "pyi") {
        return Vec::new();
    }
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let texts = plan.python_texts();
    let (old_text, new_text) = match texts.iter().find(|(changed, _, _)| *changed == path || *changed == canonical.as_path()) {
        Some((_, before, after)) => (before.clone(), after.clone()),
        None => return Vec::new(),
    };
    let Some(parsed) = crate::lsp::syntax::ParsedSource::parse(path, &old_text) else { return Vec::new() };
    let Some((function, function_line0)) = parsed.python_function_of_parameter(line0, old_name) else { return Vec::new() };
    let scope_of = |line: u32| parsed.python_class_of_method(line, &function).map(|class| class.name_line0);
    let own_scope = scope_of(function_line0);
    let declarations: Vec<crate::lsp::syntax::PythonDefinition> = parsed
        .python_definitions()
        .into_iter()
        .filter(|definition| definition.keyword == "def" && definition.name == function && scope_of(definition.line0) == own_scope)
        .collect();
    let overloaded = declarations.iter().any(|definition| definition.decorators.iter().any(|decorator| decorator.ends_with("overload")));
    if declarations.len() < 2 || !overloaded {
        return Vec::new();
    }
    let old_lines: Vec<&str> = old_text.lines().collect();
    let new_lines: Vec<&str> = new_text.lines().collect();
    // Each declaration's parameter line of that name, and whether the plan renames it there.
    let mut left: Vec<u32> = Vec::new();
    let mut renamed = 0usize;
    for declaration in &declarations {
        let parameter_line = (declaration.line0..declaration.line0.saturating_add(40).min(old_lines.len() as u32))
            .find(|&line| parsed.python_function_of_parameter(line, old_name).is_some_and(|(_, at)| at == declaration.line0));
        let Some(parameter_line) = parameter_line else { continue };
        let still_old = new_lines
            .get(parameter_line as usize)
            .is_none_or(|line| !crate::lsp::rename_coverage::word_positions(line, old_name).is_empty());
        if still_old {
            left.push(parameter_line + 1);
        } else {
            renamed += 1;
        }
    }
    if left.is_empty() || renamed == 0 {
        return Vec::new();
    }
    let shown = display(path);
    let places: Vec<String> = left.iter().map(|line| format!("{shown}:{line}")).collect();
    vec![format!(
        "WARNING: `{old_name}` is a parameter of `{function}`, declared {} times here (`@overload` signatures and the implementation), which are one parameter at run time: this rename changes it in {renamed} and leaves it at {} — a caller that passes it by keyword (`{old_name}=…` or `{new_name}=…`) raises TypeError wherever the implementation's name differs, in this workspace too, and pyright reports only the inconsistent overloads; rename it at each of those lines too (lsp_rename there, symbol `{old_name}`, new_name `{new_name}`)",
        declarations.len(),
        places.join(", ")
    )]
}

/// One `WARNING: …` per file the plan moves (a module renamed) that a Rust `#[path = "…"]`
/// attribute in the plan's Rust texts, after the edit, still names: rust-analyzer renames `mod
/// imp` declared with `#[path = "imp_std.rs"]` by moving `imp_std.rs` to `backend.rs`, and the
/// attribute then names a file that is gone (trial67 M3: once_cell's build broke, E0583; the
/// preview had not said so). `display` gives the workspace-relative form of a path.
fn moved_files_named_by_path_attributes(plan: &WorkspaceEditPlan, display: &dyn Fn(&Path) -> String) -> Vec<String> {
    let moved: Vec<(PathBuf, PathBuf)> =
        plan.files.iter().filter_map(|file| Some((file.operation.renamed_from()?.to_path_buf(), file.path.clone()))).collect();
    let mut warnings = Vec::new();
    for (from, to) in &moved {
        for change in plan.changes.iter().filter(|change| change.path.extension().is_some_and(|ext| ext == "rs")) {
            let Some(text) = change.new_content.as_ref().map(|bytes| String::from_utf8_lossy(bytes).into_owned()) else { continue };
            let Some(directory) = change.path.parent() else { continue };
            for (index, line) in text.lines().enumerate() {
                let compact: String = line.split_whitespace().collect();
                let Some(named) = compact.strip_prefix("#[path=\"").and_then(|rest| rest.split('"').next()) else { continue };
                if crate::files::path::lexically_normal(&directory.join(named)) == crate::files::path::lexically_normal(from) {
                    warnings.push(format!(
                        "WARNING: this rename moves {} to {}, but `#[path = \"{named}\"]` at {}:{} still names the old file: the build breaks (E0583, the module's file is gone) — after accepting, point that attribute at the new file, or rename the module without moving its file",
                        display(from),
                        display(to),
                        display(&change.path),
                        index + 1
                    ));
                }
            }
        }
    }
    warnings
}

/// The `ast_edit` rule that selects the `old=` keyword arguments of calls of `callees` (as
/// written: `hookspec`, `self.marker`), as JSON: a `keyword_argument` pattern inside the argument
/// list of a call whose function is one of them, or — for `class_calls`, (callee, class) pairs
/// of calls through the class of `self` (`self.__class__`) — one of those callees inside one of
/// those classes; every `old=` keyword when both are empty (trial166 M5: the rule for every
/// `firstresult=` also matched 4 calls of the test helper `MC`, whose own parameter it is;
/// trial174 F1: `self.__class__(prereleases=…)` of another class was rewritten too).
fn keyword_argument_rule(old_name: &str, callees: &[String], class_calls: &[(String, String)]) -> String {
    let pattern = serde_json::json!({"context": format!("f({old_name}=$V)"), "selector": "keyword_argument"});
    if callees.is_empty() && class_calls.is_empty() {
        return serde_json::json!({ "pattern": pattern }).to_string();
    }
    let alternation = |names: &mut dyn Iterator<Item = &String>| {
        let escaped: Vec<String> = names.map(|name| regex_syntax::escape(name)).collect();
        format!("^(?:{})$", escaped.join("|"))
    };
    let mut calls: Vec<serde_json::Value> = Vec::new();
    if !callees.is_empty() {
        calls.push(serde_json::json!({"has": {"field": "function", "regex": alternation(&mut callees.iter())}}));
    }
    // A call through the class of `self` reaches this function only inside the classes it was
    // found in (trial174 F1).
    let mut class_callees: Vec<&String> = class_calls.iter().map(|(callee, _)| callee).collect();
    class_callees.sort();
    class_callees.dedup();
    let mut classes: Vec<&String> = class_calls.iter().map(|(_, class)| class).collect();
    classes.sort();
    classes.dedup();
    if !class_callees.is_empty() {
        calls.push(serde_json::json!({
            "has": {"field": "function", "regex": alternation(&mut class_callees.into_iter())},
            "inside": {"kind": "class_definition", "stopBy": "end", "has": {"field": "name", "regex": alternation(&mut classes.into_iter())}}
        }));
    }
    let call = if calls.len() == 1 {
        let mut only = calls.remove(0);
        only["kind"] = serde_json::json!("call");
        only
    } else {
        serde_json::json!({"kind": "call", "any": calls})
    };
    serde_json::json!({"pattern": pattern, "inside": {"kind": "argument_list", "inside": call}}).to_string()
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(l1: u32, c1: u32, l2: u32, c2: u32, text: &str) -> lsp_types::TextEdit {
        serde_json::from_value(
            json!({"range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}, "newText": text}),
        )
        .expect("a TextEdit")
    }

    #[test]
    fn edits_apply_in_descending_order_and_overlaps_are_rejected() {
        let text = "let foo = 1;\nfoo + foo\n";
        let edits = [edit(0, 4, 0, 7, "bar"), edit(1, 0, 1, 3, "bar"), edit(1, 6, 1, 9, "bar")];
        assert_eq!(apply_text_edits(text, &edits, PositionEncoding::Utf16).unwrap(), "let bar = 1;\nbar + bar\n");
        let overlapping = [edit(0, 0, 0, 5, "x"), edit(0, 3, 0, 7, "y")];
        assert!(apply_text_edits(text, &overlapping, PositionEncoding::Utf16).unwrap_err().contains("overlap"));
        // The same replacement twice (tsserver, @tanstack/query-core 5.59.0) is applied once;
        // two different replacements of one range are still refused, two inserts both land.
        let repeated = [edit(0, 4, 0, 7, "bar"), edit(0, 4, 0, 7, "bar"), edit(1, 0, 1, 3, "bar")];
        assert_eq!(apply_text_edits(text, &repeated, PositionEncoding::Utf16).unwrap(), "let bar = 1;\nbar + foo\n");
        let conflicting = [edit(0, 4, 0, 7, "bar"), edit(0, 4, 0, 7, "baz")];
        assert!(apply_text_edits(text, &conflicting, PositionEncoding::Utf16).unwrap_err().contains("overlap"));
        let inserts = [edit(0, 0, 0, 0, "a"), edit(0, 0, 0, 0, "a")];
        assert_eq!(apply_text_edits(text, &inserts, PositionEncoding::Utf16).unwrap(), "aalet foo = 1;\nfoo + foo\n");
    }

    #[test]
    fn annotated_edits_apply_and_changes_are_planned_in_uri_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("b.py"), "foo = 1\n").unwrap();
        std::fs::write(root.join("a.py"), "print(foo)\n").unwrap();
        let uri = |name: &str| crate::lsp::uri::path_to_uri(&root.join(name));
        // An annotated text edit (LSP 3.16 change annotations) inside documentChanges.
        let mut annotated = serde_json::to_value(edit(0, 0, 0, 3, "bar")).unwrap();
        annotated["annotationId"] = json!("rename");
        let with_annotations: lsp_types::WorkspaceEdit = serde_json::from_value(json!({
            "documentChanges": [{"textDocument": {"uri": uri("b.py"), "version": null}, "edits": [annotated]}],
            "changeAnnotations": {"rename": {"label": "Rename foo", "needsConfirmation": false}}
        }))
        .unwrap();
        let plan = plan_workspace_edit(&root, None, &with_annotations).unwrap();
        assert_eq!(plan.files.len(), 1);
        assert_eq!(plan.changes[0].new_content.as_deref(), Some(&b"bar = 1\n"[..]));
        // `changes` is a map: planned in URI order, whatever order the map iterates in.
        let changes: lsp_types::WorkspaceEdit = serde_json::from_value(json!({"changes": {
            uri("b.py"): [edit(0, 0, 0, 3, "bar")],
            uri("a.py"): [edit(0, 6, 0, 9, "bar")],
        }}))
        .unwrap();
        let plan = plan_workspace_edit(&root, None, &changes).unwrap();
        let planned: Vec<PathBuf> = plan.files.iter().map(|file| file.path.clone()).collect();
        assert_eq!(planned, vec![root.join("a.py"), root.join("b.py")]);
        assert_eq!(plan.changes[0].new_content.as_deref(), Some(&b"print(bar)\n"[..]));
    }

    #[test]
    fn utf16_columns_after_non_ascii_are_converted() {
        let text = "s = \"é😀\"; foo\n";
        // UTF-16: é = 1 unit, 😀 = 2 units → `foo` starts at column 11.
        let edits = [edit(0, 11, 0, 14, "bar")];
        assert_eq!(apply_text_edits(text, &edits, PositionEncoding::Utf16).unwrap(), "s = \"é😀\"; bar\n");
    }
}

/// A WARNING when the renamed declaration is a field of a Rust struct or a variant of an enum that
/// derives serde's `Serialize` or `Deserialize`, with no `#[serde(rename = …)]` of its own: the
/// field's name is its serialized key, so data written before reads no more (a missing field)
/// and data written after has the new key, with no compiler error (trial122 M1: smol_str's
/// downstream `Tag.name` renamed `title`, and `{"name": …}` then failed to deserialize).
/// `line0` is the renamed position's 0-based line in `text`; `None` otherwise.
fn rust_serde_field_warning(path: &std::path::Path, text: &str, line0: u32, old_name: &str, new_name: &str) -> Option<String> {
    if path.extension().is_none_or(|extension| extension != "rs") {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let line = lines.get(line0 as usize)?.trim();
    let declared = line.strip_prefix("pub(crate) ").or_else(|| line.strip_prefix("pub ")).unwrap_or(line);
    let is_field = declared.strip_prefix(old_name).is_some_and(|rest| rest.trim_start().starts_with(':'));
    let is_variant = declared.strip_prefix(old_name).is_some_and(|rest| {
        rest.is_empty() || rest.starts_with(',') || rest.starts_with('(') || rest.starts_with(" {") || rest.starts_with('{')
    });
    if !is_field && !is_variant {
        return None;
    }
    // The field's own attributes, right above it.
    let own_attributes = lines[..line0 as usize]
        .iter()
        .rev()
        .take_while(|above| above.trim_start().starts_with("#[") || above.trim_start().starts_with("///"));
    if own_attributes.clone().any(|attribute| attribute.contains("serde(") && attribute.contains("rename")) {
        return None;
    }
    // Up to the `struct`/`enum` line that opens the block, then its attributes.
    let mut depth = 0i32;
    let mut opening = None;
    for (index, above) in lines[..line0 as usize].iter().enumerate().rev() {
        depth += above.matches('}').count() as i32 - above.matches('{').count() as i32;
        if depth < 0 {
            opening = Some(index);
            break;
        }
    }
    let opening = opening?;
    let head = lines[opening];
    let kind = if head.contains("struct ") {
        "field"
    } else if head.contains("enum ") {
        "variant"
    } else {
        return None;
    };
    if (kind == "field") != is_field {
        return None;
    }
    let container_attributes: Vec<&str> = lines[..opening]
        .iter()
        .rev()
        .take_while(|above| above.trim_start().starts_with("#[") || above.trim_start().starts_with("///") || above.trim().is_empty())
        .copied()
        .collect();
    let derives_serde = container_attributes
        .iter()
        .any(|attribute| attribute.contains("derive(") && (attribute.contains("Serialize") || attribute.contains("Deserialize")));
    let renames_all = container_attributes.iter().any(|attribute| attribute.contains("rename_all"));
    if !derives_serde {
        return None;
    }
    let how = if renames_all { " (through the container's `rename_all`)" } else { "" };
    Some(format!(
        "WARNING: `{old_name}` is a {kind} of a type that derives serde's `Serialize`/`Deserialize`: its name is its serialized name{how}, so data written before this rename (`\"{old_name}\"`) no longer reads as this type and data written after has `\"{new_name}\"` — no compiler error shows it; to keep the format, add `#[serde(rename = \"{old_name}\")]` to the {kind}"
    ))
}

/// A WARNING when the renamed declaration is a member the language runtime calls by its name,
/// with no call in the code for a compiler to check: JavaScript/TypeScript's `toString`,
/// `valueOf`, `toJSON`, `toLocaleString` (`String(x)`, template literals, `JSON.stringify`),
/// Python's dunder methods (`__eq__`, `__str__`, `__iter__`: operators, `str()`, `for`). After
/// the rename the class silently falls back to the inherited behaviour (trial105 M3: true-myth's
/// `Result#toString` renamed, and `String(ok(1))` became `"[object Object]"` with tsc clean).
/// `line_text` is the renamed position's line, to tell a declaration (`toString() {`, `def
/// __eq__(`) from a use; `None` for other names and lines.
fn implicit_protocol_member_warning(path: &std::path::Path, line_text: &str, old_name: &str, new_name: &str) -> Option<String> {
    let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
    let trimmed = line_text.trim_start();
    let how = match extension {
        "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => {
            let declared = trimmed
                .split_whitespace()
                .find(|word| !matches!(*word, "public" | "private" | "protected" | "override" | "static" | "async" | "readonly"))
                .is_some_and(|word| {
                    word.starts_with(&format!("{old_name}(")) || word.starts_with(&format!("{old_name}:")) || word == old_name
                });
            if !declared {
                return None;
            }
            match old_name {
                "toString" | "toLocaleString" => "converting an instance to a string (`String(x)`, a template literal, `x + ''`) calls it",
                "valueOf" => "arithmetic and comparisons on an instance call it",
                "toJSON" => "`JSON.stringify` calls it",
                _ => return None,
            }
        }
        "py" | "pyi" => {
            let is_dunder = old_name.len() > 4 && old_name.starts_with("__") && old_name.ends_with("__");
            let declared = trimmed.starts_with(&format!("def {old_name}(")) || trimmed.starts_with(&format!("async def {old_name}("));
            if !is_dunder || !declared {
                return None;
            }
            if old_name == "__missing__" {
                // Only `dict.__getitem__` calls it (trial113 M2: cachetools' `Cache`, a
                // `MutableMapping`, calls it by name, and those calls are renamed along).
                return Some(format!(
                    "WARNING: `__missing__` is a hook: `dict.__getitem__` calls it for a missing key when the class derives from `dict`, and the overrides of it in subclasses are reached only through that name; after this rename a `dict` subclass raises KeyError instead, and an override elsewhere (user code, tests) is no longer called — no compiler or type checker reports either; calls by name in this workspace are renamed along — keep the name, or keep a `__missing__` that calls `{new_name}`"
                ));
            }
            "the interpreter calls it for the operator, builtin or statement it stands for (`==`, `str()`, `len()`, `for`, `with` …)"
        }
        _ => return None,
    };
    let after = if matches!(extension, "py" | "pyi") {
        format!(
            "after this rename those calls reach an inherited `{old_name}` where a base class defines one (`object`'s `__eq__`, `__hash__`, `__str__`, `__repr__` … run with no error) or fail (TypeError) where none does"
        )
    } else {
        format!("after this rename those calls reach the inherited `{old_name}` instead (a default that runs with no error)")
    };
    Some(format!(
        "WARNING: `{old_name}` is called by the runtime, not by name in the code: {how}; {after}, and no compiler or type checker reports it — keep the name, or keep a `{old_name}` that calls `{new_name}`"
    ))
}

/// When the Python `text`'s class around 0-based `line0` is decorated `@total_ordering` (or
/// `@functools.total_ordering`) and `old_name` is its only ordering method (`__lt__`, `__le__`,
/// `__gt__`, `__ge__`) and `new_name` is none of them: the class's name. Renaming it leaves the
/// decorator nothing to build from, and it raises at class creation (trial170 M10: humanize's
/// `Unit.__lt__`, 15 collection errors). `None` otherwise (renamed to another ordering method,
/// the class still imports: review50 M1).
fn total_ordering_left_without_operation(text: &str, line0: usize, old_name: &str, new_name: &str) -> Option<String> {
    const ORDERING: [&str; 4] = ["__lt__", "__le__", "__gt__", "__ge__"];
    if !ORDERING.contains(&old_name) || ORDERING.contains(&new_name) {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let method_indent = lines.get(line0)?.len() - lines.get(line0)?.trim_start().len();
    // The class header: the nearest line above with less indentation that starts `class `.
    let header = (0..line0).rev().find(|index| {
        let line = lines[*index];
        let indent = line.len() - line.trim_start().len();
        !line.trim().is_empty() && indent < method_indent
    })?;
    let class_line = lines[header].trim_start();
    let class_name = class_line.strip_prefix("class ")?.split(['(', ':']).next()?.trim().to_owned();
    let class_indent = lines[header].len() - class_line.len();
    let decorated = (0..header)
        .rev()
        .map(|index| lines[index].trim())
        .take_while(|line| line.starts_with('@'))
        .any(|line| line == "@total_ordering" || line == "@functools.total_ordering");
    if !decorated {
        return None;
    }
    let body_end = (header + 1..lines.len())
        .find(|index| {
            let line = lines[*index];
            !line.trim().is_empty() && line.len() - line.trim_start().len() <= class_indent
        })
        .unwrap_or(lines.len());
    let other_ordering = lines[header + 1..body_end].iter().any(|line| {
        let line = line.trim_start();
        ORDERING.iter().any(|name| *name != old_name && line.starts_with(&format!("def {name}(")))
    });
    (!other_ordering).then_some(class_name)
}

#[cfg(test)]
mod implicit_protocol_tests {
    #[test]
    fn a_total_ordering_class_left_without_an_ordering_method_is_named() {
        // humanize 4.17.0 (trial170 M10): `Unit.__lt__` is the only ordering method.
        let text = "import functools\n\n\n@functools.total_ordering\nclass Unit(Enum):\n    A = 1\n\n    def __lt__(self, other):\n        return self.value < other.value\n\n\nclass Other:\n    def __gt__(self, other):\n        return True\n";
        assert_eq!(super::total_ordering_left_without_operation(text, 7, "__lt__", "less_than").as_deref(), Some("Unit"));
        // review50 M1: renamed to another ordering method, the class still imports.
        assert_eq!(super::total_ordering_left_without_operation(text, 7, "__lt__", "__gt__"), None);
        assert_eq!(super::total_ordering_left_without_operation(text, 12, "__gt__", "x"), None, "not decorated");
        let two = text.replace("    A = 1\n", "    A = 1\n\n    def __ge__(self, other):\n        return True\n");
        assert_eq!(super::total_ordering_left_without_operation(&two, 10, "__lt__", "x"), None, "`__ge__` remains");
        assert_eq!(super::total_ordering_left_without_operation(text, 7, "__eq__", "x"), None);
    }

    #[test]
    fn renaming_a_field_of_a_serde_derived_struct_is_warned_of() {
        let text = "#[derive(Debug, Serialize, Deserialize)]\npub struct Tag {\n    pub name: SmolStr,\n    #[serde(rename = \"v\")]\n    pub value: u8,\n}\n\npub struct Plain {\n    pub name: u8,\n}\n";
        let rs = std::path::Path::new("src/lib.rs");
        let warning = super::rust_serde_field_warning(rs, text, 2, "name", "title").expect("a serde field");
        assert!(warning.contains("`#[serde(rename = \"name\")]`"), "{warning}");
        assert_eq!(super::rust_serde_field_warning(rs, text, 4, "value", "amount"), None);
        assert_eq!(super::rust_serde_field_warning(rs, text, 8, "name", "title"), None);
    }

    use super::implicit_protocol_member_warning;
    use std::path::Path;

    #[test]
    fn members_the_runtime_calls_by_name_are_warned_of_at_their_declaration() {
        let ts = Path::new("src/result.ts");
        let warning = implicit_protocol_member_warning(ts, "  toString(): string {", "toString", "describe").expect("a declaration");
        assert!(warning.starts_with("WARNING: `toString` is called by the runtime"), "{warning}");
        assert!(implicit_protocol_member_warning(ts, "  override toJSON() {", "toJSON", "json").is_some());
        assert_eq!(implicit_protocol_member_warning(ts, "  return this.toString()", "toString", "describe"), None, "a use");
        assert_eq!(implicit_protocol_member_warning(ts, "  render(): string {", "render", "draw"), None);
        let py = Path::new("pkg/items.py");
        assert!(implicit_protocol_member_warning(py, "    def __eq__(self, other):", "__eq__", "equals").is_some());
        assert_eq!(implicit_protocol_member_warning(py, "    def __private(self):", "__private", "private"), None);
        assert_eq!(implicit_protocol_member_warning(Path::new("lib.rs"), "    fn fmt(&self) {", "fmt", "format"), None);
    }
}
