//! Staged changes: every multi-file change a tool proposes instead of writing — `ast_edit`'s
//! structural rewrites, `lsp_rename` and `lsp_code_action` with `preview: true` — waiting for
//! `resolve` (R-EDIT-1, R-RES-1). One module for all of them:
//!
//! - one store per run (`StagedChanges` inside the [`StagedResource`]), one id space
//!   (`edit_1`, `edit_2`, … whichever tool staged), at most [`StagedConfig::max_pending_edits`]
//!   pending (staging one more evicts the oldest, and resolving the evicted id says so);
//! - one model: a `StagedChange` is a description plus `StagedFile`s, each with the exact
//!   bytes read at staging time (or absent) and the bytes `resolve accept` writes (or none: a
//!   deletion) — so the structural rewrite and a language server's `WorkspaceEdit` (text edits,
//!   created, renamed and deleted files) stage the same way;
//! - one preview renderer (`render_preview`): a unified diff (`--- a/` / `+++ b/` per file,
//!   2 lines of context), at most [`StagedConfig::max_preview_hunks`] hunks, the cut said;
//! - one `resolve` tool (tier write): `accept` re-checks every file against what was captured
//!   (a file changed, deleted, created or made read-only since staging rejects the whole change
//!   and lists the files) and writes all files through
//!   [`crate::files::commit_file_changes_in`] (all-or-nothing, race-free, read-only files
//!   refused); `discard` drops it.
//!
//! A producer that must learn what became of its change (a background worker that keeps a git
//! worktree until its change is resolved) stages with a `ClosedHook`: the store calls it once
//! when the change leaves the store — accepted, discarded, rejected, evicted, withdrawn by its
//! producer (`StagedChanges::withdraw`) or the run ended (the store dropped). A change whose
//! producer cannot cheaply stage it again (`held: true`, a worker's finished work) counts
//! against its own cap, [`StagedConfig::max_pending_held`], so a burst of cheap previews never
//! evicts it; and when such a change is rejected, its `restage_hint` says what to do instead of
//! "run the tool again".
//!
//! The resource exists when the run wires a tool that stages (`with_structural()`,
//! `language_servers()` or `vibe_roster()`); it dies with the run, and nothing staged outlives it.
//!
//! Dependency order: `staged` sits above `files` and the registry and below `structural` and
//! `lsp`, which stage through it.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::files::{commit_file_changes_with_modes, ExpectedState, FileChange};
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolOutput};
use crate::render::{plural, truncation_notice};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

/// Caps of the staged-change store and its previews. Part of [`crate::RunConfig`].
#[derive(Debug, Clone)]
pub struct StagedConfig {
    /// Most diff hunks shown in a preview (default 40); the rest is counted ("showing N of M
    /// hunks"), and the staged change contains all of them.
    pub max_preview_hunks: usize,
    /// Most bytes of diff text shown in a preview (default 65,536): hunks past it are counted,
    /// not shown, and a single hunk longer than the rest of the budget (a rewritten one-line
    /// 3 MB array) is cut at a line or character boundary, the cut said (issue 13 §5). The
    /// staged change contains everything.
    pub max_preview_bytes: usize,
    /// Most staged changes kept pending per run (default 16), not counting held ones; staging
    /// one more evicts the oldest pending change that is not held, and resolving the evicted id
    /// says so.
    pub max_pending_edits: usize,
    /// Most *held* changes kept pending per run (default 256): changes whose producer cannot
    /// cheaply stage them again (`StagedChange::held`, e.g. a background worker's finished
    /// change — a batch of 40 isolated workers stages 40 of them). Staging one more held change
    /// evicts the oldest held one; ordinary changes never evict held ones.
    pub max_pending_held: usize,
}

impl Default for StagedConfig {
    fn default() -> Self {
        StagedConfig { max_preview_hunks: 40, max_preview_bytes: 65_536, max_pending_edits: 16, max_pending_held: 256 }
    }
}

/// Called once when a staged change leaves the store, with its edit id and how it left:
/// `accepted`, `discarded`, `rejected`, `evicted`, `withdrawn: <reason>` or `the run ended`.
/// It runs on the thread that closed the change (a `resolve` call, the staging call that
/// evicted it, [`StagedChanges::withdraw`]'s caller, or whoever drops the run), with no store
/// lock held, so it may call back into the store.
pub(crate) type ClosedHook = Box<dyn FnOnce(&str, &str) + Send>;

/// What a planned or staged change does to one file. Counts and the grouping of moved files
/// read this, never the wording (review47 L3); [`std::fmt::Display`] gives the wording:
/// `modified`, `created`, `deleted`, `renamed from <path>`, `moved to <path>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlannedOperation {
    /// An existing file whose text changes.
    Modified,
    /// A file the change creates.
    Created,
    /// A file the change deletes.
    Deleted,
    /// The target of a rename: the file `from` (absolute) becomes this one; `display` is `from`
    /// as answers show it.
    RenamedFrom {
        /// The renamed file's old path (absolute).
        from: PathBuf,
        /// `from` as answers show it (workspace-relative).
        display: String,
    },
    /// The source of a rename: this file becomes `to` (absolute), where its edits are counted.
    MovedTo {
        /// The renamed file's new path (absolute).
        to: PathBuf,
        /// `to` as answers show it (workspace-relative).
        display: String,
    },
}

impl PlannedOperation {
    /// Whether this is the source of a rename (the same file as its target, counted there).
    pub fn is_moved_to(&self) -> bool {
        matches!(self, PlannedOperation::MovedTo { .. })
    }

    /// The old path (absolute) of a rename's target; `None` for any other operation.
    pub fn renamed_from(&self) -> Option<&Path> {
        match self {
            PlannedOperation::RenamedFrom { from, .. } => Some(from),
            _ => None,
        }
    }
}

impl std::fmt::Display for PlannedOperation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlannedOperation::Modified => formatter.write_str("modified"),
            PlannedOperation::Created => formatter.write_str("created"),
            PlannedOperation::Deleted => formatter.write_str("deleted"),
            PlannedOperation::RenamedFrom { display, .. } => write!(formatter, "renamed from {display}"),
            PlannedOperation::MovedTo { display, .. } => write!(formatter, "moved to {display}"),
        }
    }
}

/// One file of a staged change.
#[derive(Debug, Clone)]
pub(crate) struct StagedFile {
    /// Absolute path (resolved inside the workspace).
    pub path: PathBuf,
    /// Path relative to the workspace, for messages.
    pub display: String,
    /// The exact bytes read when the change was staged; `None` when the file did not exist (the
    /// change creates it).
    pub original: Option<Vec<u8>>,
    /// The bytes `resolve accept` writes; `None` deletes the file.
    pub new_content: Option<Vec<u8>>,
    /// Changes in this file (replacements, text edits).
    pub changes: usize,
    /// What happens to the file: modified, created, deleted, the target or the source of a
    /// rename (said as `renamed from <path>`, `moved to <path>`).
    pub operation: PlannedOperation,
    /// The permission bits the file gets when the change creates it (a renamed file keeps its
    /// source's); `None`: the default mode, or the file exists.
    pub new_file_mode: Option<u32>,
}

/// One staged change: what it does, every file it touches, what staging warned about.
#[derive(Debug, Clone)]
pub(crate) struct StagedChange {
    /// The tool that staged it (`ast_edit`, `lsp_rename`, `lsp_code_action`, `vibe_spawn` for a
    /// worker's change): `resolve` names it when the change must be staged again.
    pub tool: &'static str,
    /// What the change does, for messages, e.g. `` `dispose($X)` → `$X.dispose()` (dart) `` or
    /// `` rename `helper` → `assist` (pyright) ``.
    pub description: String,
    /// What one change in a file is called in messages: `replacement` (ast_edit), `edit` (a
    /// language server's text edit).
    pub change_noun: &'static str,
    /// The files, in the order they are written.
    pub files: Vec<StagedFile>,
    /// What staging warned about; `resolve` repeats them when it accepts.
    pub warnings: Vec<String>,
    /// What the write check after accepting cannot see (a rename's occurrences left behind a
    /// `#[cfg]` that is off): said on its `checked:` line.
    pub write_check_blind_spots: Vec<String>,
    /// What to do when `resolve accept` finds files changed since staging; `None`: "run `tool`
    /// again to stage the change against the current files". A worker's change says to
    /// `vibe_send` the worker instead.
    pub restage_hint: Option<String>,
    /// The producer cannot cheaply stage this change again (a background worker's finished
    /// work): it counts against [`StagedConfig::max_pending_held`] instead of
    /// `max_pending_edits`, and only newer held changes evict it.
    pub held: bool,
    /// Directories the change moves whole (a package directory a rename moves): once `resolve
    /// accept` wrote the files, their trees' directories are recreated under the new paths and
    /// the emptied sources removed ([`crate::lsp::rename::finish_directory_moves`]).
    pub moved_directories: Vec<crate::lsp::rename::MovedDirectory>,
}

impl StagedChange {
    /// Total changes over all files.
    pub fn change_count(&self) -> usize {
        self.files.iter().map(|file| file.changes).sum()
    }

    /// How many files the change writes, a renamed file counted once (its `moved to` source is
    /// the file its `renamed from` target becomes).
    pub fn changed_file_count(&self) -> usize {
        self.files.iter().filter(|file| !file.operation.is_moved_to()).count()
    }

    /// The files as `resolve accept` names them: `path` or `path (operation)`, except beneath a
    /// directory the change moves whole — one entry for the directory (`old/ → new/ (directory
    /// moved, 37 files)`), and only its files with changes (review47 H1, as review46 #9 lists a
    /// staged rename).
    fn accepted_file_names(&self, root: &Path) -> Vec<String> {
        let beneath_moved = |file: &StagedFile| {
            self.moved_directories.iter().any(|moved| {
                (file.operation.is_moved_to() && file.path.starts_with(&moved.from))
                    || (file.operation.renamed_from().is_some() && file.changes == 0 && file.path.starts_with(&moved.to))
            })
        };
        let mut names: Vec<String> = self
            .moved_directories
            .iter()
            .map(|moved| {
                let files =
                    self.files.iter().filter(|file| file.operation.renamed_from().is_some() && file.path.starts_with(&moved.to)).count();
                format!(
                    "{}/ → {}/ (directory moved, {})",
                    crate::render::display_path(root, &moved.from),
                    crate::render::display_path(root, &moved.to),
                    plural(files, "file")
                )
            })
            .collect();
        names.extend(self.files.iter().filter(|file| !beneath_moved(file)).map(|file| {
            if file.operation == PlannedOperation::Modified {
                file.display.clone()
            } else {
                format!("{} ({})", file.display, file.operation)
            }
        }));
        names
    }

    /// What `resolve` says to do when the change cannot be written any more.
    fn restage(&self) -> String {
        self.restage_hint.clone().unwrap_or_else(|| {
            format!("run {} again to stage the change against the current files, then resolve the new edit_id", self.tool)
        })
    }
}

/// Why an id is no longer pending.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Closed {
    Resolving,
    Accepted,
    Discarded,
    Rejected,
    Evicted,
    /// Withdrawn by its producer, with the reason.
    Withdrawn(String),
}

impl Closed {
    /// How the change left the store, as its [`ClosedHook`] is told.
    fn hook_text(&self) -> String {
        match self {
            Closed::Resolving => "being resolved".to_owned(),
            Closed::Accepted => "accepted".to_owned(),
            Closed::Discarded => "discarded".to_owned(),
            Closed::Rejected => "rejected".to_owned(),
            Closed::Evicted => "evicted".to_owned(),
            Closed::Withdrawn(reason) => format!("withdrawn: {reason}"),
        }
    }
}

#[derive(Default)]
struct Inner {
    next_number: u64,
    pending: BTreeMap<u64, StagedChange>,
    closed: HashMap<String, Closed>,
    /// Called once when the change with this number leaves the store.
    hooks: HashMap<u64, ClosedHook>,
}

/// The run's staged changes, keyed by `edit_N`. Dropping the store runs the hooks of the changes
/// still pending with `the run ended`.
#[derive(Default)]
pub(crate) struct StagedChanges {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for StagedChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.lock();
        f.debug_struct("StagedChanges")
            .field("next_number", &inner.next_number)
            .field("pending", &inner.pending.keys().collect::<Vec<_>>())
            .field("closed", &inner.closed)
            .field("hooks", &inner.hooks.len())
            .finish()
    }
}

fn edit_number(id: &str) -> Option<u64> {
    id.trim().strip_prefix("edit_")?.parse::<u64>().ok()
}

impl StagedChanges {
    /// Changes waiting for `resolve`.
    pub fn pending_count(&self) -> usize {
        self.inner.lock().pending.len()
    }

    /// Stores `change` under the next id; evicts the oldest pending changes of its kind (held
    /// or not, see [`StagedChange::held`]) beyond `max_pending` and returns the new id with the
    /// evicted ids.
    #[cfg(test)]
    pub(crate) fn stage(&self, change: StagedChange, max_pending: usize) -> (String, Vec<String>) {
        self.stage_with_hook(change, max_pending, None)
    }

    /// `StagedChanges::stage` with a hook called once when the change leaves the store (see
    /// [`ClosedHook`]). Hooks of the changes this evicts run before it returns, on this thread,
    /// with no lock held.
    pub(crate) fn stage_with_hook(&self, change: StagedChange, max_pending: usize, hook: Option<ClosedHook>) -> (String, Vec<String>) {
        let held = change.held;
        let mut evicted_hooks: Vec<(String, ClosedHook)> = Vec::new();
        let (number, evicted) = {
            let mut inner = self.inner.lock();
            inner.next_number += 1;
            let number = inner.next_number;
            inner.pending.insert(number, change);
            if let Some(hook) = hook {
                inner.hooks.insert(number, hook);
            }
            let mut evicted = Vec::new();
            loop {
                let same_kind: Vec<u64> =
                    inner.pending.iter().filter(|(_, pending)| pending.held == held).map(|(&number, _)| number).collect();
                if same_kind.len() <= max_pending.max(1) {
                    break;
                }
                let oldest = same_kind[0];
                inner.pending.remove(&oldest);
                let id = format!("edit_{oldest}");
                inner.closed.insert(id.clone(), Closed::Evicted);
                if let Some(hook) = inner.hooks.remove(&oldest) {
                    evicted_hooks.push((id.clone(), hook));
                }
                evicted.push(id);
            }
            (number, evicted)
        };
        for (id, hook) in evicted_hooks {
            hook(&id, "evicted");
        }
        (format!("edit_{number}"), evicted)
    }

    /// Closes the pending change `id` without writing it because its producer superseded it (a
    /// newer attempt of the same worker); its hook runs with `withdrawn: <reason>`, and
    /// resolving `id` later says it was withdrawn and why. `false` when `id` was not pending.
    pub fn withdraw(&self, id: &str, reason: &str) -> bool {
        let Some(number) = edit_number(id) else { return false };
        let hook = {
            let mut inner = self.inner.lock();
            if inner.pending.remove(&number).is_none() {
                return false;
            }
            inner.closed.insert(id.trim().to_owned(), Closed::Withdrawn(reason.to_owned()));
            inner.hooks.remove(&number)
        };
        if let Some(hook) = hook {
            hook(id.trim(), &format!("withdrawn: {reason}"));
        }
        true
    }

    /// Takes the pending change `id` out of the store (marking it as being resolved).
    ///
    /// # Errors
    /// `conflict` when `id` is being resolved, was accepted, discarded or rejected; `not_found`
    /// when it was evicted or never existed. The hint lists the pending ids.
    pub fn take(&self, id: &str) -> Result<StagedChange, ToolError> {
        let id = id.trim();
        let mut inner = self.inner.lock();
        let number = id.strip_prefix("edit_").and_then(|n| n.parse::<u64>().ok());
        if let Some(change) = number.and_then(|n| inner.pending.remove(&n)) {
            inner.closed.insert(id.to_owned(), Closed::Resolving);
            return Ok(change);
        }
        let pending: Vec<String> = inner.pending.iter().map(|(n, change)| format!("edit_{n} ({})", change.tool)).collect();
        let pending_text = if pending.is_empty() { "none".to_owned() } else { pending.join(", ") };
        let (kind, message) = match inner.closed.get(id) {
            Some(Closed::Resolving) => (ErrorKind::Conflict, format!("edit_id {id:?} is being resolved by another call right now")),
            Some(Closed::Accepted) => {
                (ErrorKind::Conflict, format!("edit_id {id:?} was already accepted and written; it cannot be resolved again"))
            }
            Some(Closed::Discarded) => (ErrorKind::Conflict, format!("edit_id {id:?} was discarded; it cannot be resolved any more")),
            Some(Closed::Rejected) => (
                ErrorKind::Conflict,
                format!("edit_id {id:?} was rejected by an earlier accept because files changed after staging; it is closed"),
            ),
            Some(Closed::Evicted) => {
                (ErrorKind::NotFound, format!("edit_id {id:?} was dropped because too many newer changes were staged after it"))
            }
            Some(Closed::Withdrawn(reason)) => (ErrorKind::Conflict, format!("edit_id {id:?} was withdrawn ({reason}); it is closed")),
            None => (ErrorKind::NotFound, format!("no staged edit has edit_id {id:?} in this run")),
        };
        Err(ToolError::new(kind, message)
            .with_hint(format!("pending edit ids: {pending_text}; stage a fresh change (ast_edit, lsp_rename / lsp_code_action with preview, or a worker spawned with isolation \"worktree\") to get a new one")))
    }

    /// Returns a change [`StagedChanges::take`] took to the pending changes under the same id,
    /// for a `resolve` that wrote nothing and left it valid (a file only became read-only).
    fn put_back(&self, id: &str, change: StagedChange) {
        let mut inner = self.inner.lock();
        if let Some(number) = edit_number(id) {
            inner.closed.remove(id.trim());
            inner.pending.insert(number, change);
        }
    }

    /// The absolute paths of every file the pending change `id` would write, without taking
    /// it; `None` when `id` is not pending. Diagnostics on write seeds its ledger from these
    /// files before `resolve` accepts (R-DOW-2).
    pub fn pending_paths(&self, id: &str) -> Option<Vec<PathBuf>> {
        let number = id.trim().strip_prefix("edit_")?.parse::<u64>().ok()?;
        let inner = self.inner.lock();
        let change = inner.pending.get(&number)?;
        Some(change.files.iter().map(|file| file.path.clone()).collect())
    }

    /// Records how a taken change ended, and runs its hook (if any) with no lock held.
    fn close(&self, id: &str, how: Closed) {
        let hook_text = how.hook_text();
        let hook = {
            let mut inner = self.inner.lock();
            inner.closed.insert(id.trim().to_owned(), how);
            edit_number(id).and_then(|number| inner.hooks.remove(&number))
        };
        if let Some(hook) = hook {
            hook(id.trim(), &hook_text);
        }
    }
}

impl Drop for StagedChanges {
    /// Changes still pending end with the run: their hooks run with `the run ended`.
    fn drop(&mut self) {
        let hooks: Vec<(u64, ClosedHook)> = self.inner.get_mut().hooks.drain().collect();
        for (number, hook) in hooks {
            hook(&format!("edit_{number}"), "the run ended");
        }
    }
}

/// The run's staged-change resource: the store and the run's `staged` section. Wired by
/// `RunBuilder` when a tool that stages is (`with_structural()`, `language_servers()`).
#[derive(Default)]
pub struct StagedResource {
    /// Proposed changes waiting for `resolve`.
    pub(crate) changes: StagedChanges,
    config: StagedConfig,
    /// Called with the existing files of each change staged (absolute paths), on the staging
    /// call's thread; each returns at once (the language servers take the files' pre-write
    /// diagnostics ahead of `resolve accept`: `lsp::prefetch_states`).
    staging_observers: Mutex<Vec<StagingObserver>>,
}

impl std::fmt::Debug for StagedResource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StagedResource")
            .field("changes", &self.changes)
            .field("config", &self.config)
            .field("staging_observers", &self.staging_observers.lock().len())
            .finish()
    }
}

/// A [`StagedResource`] staging observer: given the existing files a staged change will write.
pub(crate) type StagingObserver = Arc<dyn Fn(&[PathBuf]) + Send + Sync>;

impl StagedResource {
    /// An empty store for tools that run with `config` (the run's `staged` section).
    pub fn new(config: StagedConfig) -> StagedResource {
        StagedResource { changes: StagedChanges::default(), config, staging_observers: Mutex::new(Vec::new()) }
    }

    /// Adds `observer`, called with the existing files of every change staged from now on.
    pub(crate) fn observe_staging(&self, observer: StagingObserver) {
        self.staging_observers.lock().push(observer);
    }

    /// How many staged changes wait for `resolve` (accepted, discarded, rejected, evicted and
    /// withdrawn ones are gone). A host can show it, or check it is 0 before ending a run.
    pub fn pending_count(&self) -> usize {
        self.changes.pending_count()
    }

    /// The caps the store and its previews use.
    pub fn config(&self) -> &StagedConfig {
        &self.config
    }

    /// Stages `change` and renders what every staging tool answers: the id, the evicted ids
    /// and the preview.
    pub(crate) fn stage(&self, change: StagedChange) -> Staged {
        self.stage_with_hook(change, None)
    }

    /// [`StagedResource::stage`] with a [`ClosedHook`] called once when the change leaves the
    /// store. The cap is `max_pending_held` for a held change, else `max_pending_edits`.
    pub(crate) fn stage_with_hook(&self, change: StagedChange, hook: Option<ClosedHook>) -> Staged {
        let preview = render_preview(&change.files, self.config.max_preview_hunks, self.config.max_preview_bytes);
        let read_only = read_only_warning(&change.files);
        let cap = if change.held { self.config.max_pending_held } else { self.config.max_pending_edits };
        let existing: Vec<PathBuf> = change.files.iter().filter(|file| file.original.is_some()).map(|file| file.path.clone()).collect();
        let (edit_id, evicted) = self.changes.stage_with_hook(change, cap, hook);
        let observers: Vec<StagingObserver> = self.staging_observers.lock().clone();
        for observer in observers {
            observer(&existing);
        }
        Staged { edit_id, evicted, preview, read_only }
    }
}

impl crate::registry::Resource for StagedResource {
    const NAME: &'static str = "staged-change store";
    const WIRED_BY: &'static str = "RunBuilder::with_structural(), RunBuilder::language_servers() or RunBuilder::vibe_roster()";
}

/// What staging produced.
#[derive(Debug, Clone)]
pub(crate) struct Staged {
    /// The id `resolve` takes.
    pub edit_id: String,
    /// Older pending ids dropped to stay within the cap.
    pub evicted: Vec<String>,
    /// The rendered diff.
    pub preview: Preview,
    /// [`read_only_warning`] for the staged files, when some are read-only now.
    pub read_only: Option<String>,
}

impl Staged {
    /// The lines every staging answer ends with: the instruction to resolve, the evictions (if
    /// any), then the preview.
    pub fn instructions(&self, max_pending: usize) -> String {
        let mut text = format!(
            "Nothing was written: call resolve with edit_id \"{}\" and action \"accept\" to write it, or \"discard\" to drop it.",
            self.edit_id
        );
        if let Some(warning) = &self.read_only {
            let _ = write!(text, "\n{warning}");
        }
        if !self.evicted.is_empty() {
            let _ = write!(text, "\nolder pending changes dropped to stay within {max_pending} pending: {}", self.evicted.join(", "));
        }
        text
    }
}

/// A rendered unified diff of staged files.
#[derive(Debug, Clone)]
pub(crate) struct Preview {
    /// The diff text, ending with the cut notice when hunks were left out.
    pub text: String,
    /// Hunks shown.
    pub shown: usize,
    /// Hunks in the whole change.
    pub total: usize,
    /// Bytes of diff text left out by the byte cap (hunks not shown and the cut part of a hunk).
    pub bytes_left_out: usize,
}

/// The unified diff of `files` (2 lines of context; a created file diffs against nothing and a
/// deleted one against nothing after it), at most `max_hunks` hunks and `max_bytes` bytes of
/// diff text, then `showing N of M hunks (the staged change contains all of them)` when cut,
/// with the bytes left out and how to see them.
pub(crate) fn render_preview(files: &[StagedFile], max_hunks: usize, max_bytes: usize) -> Preview {
    let mut text = String::new();
    let mut shown = 0;
    let mut total = 0;
    let mut bytes_left_out = 0usize;
    let mut partly_shown_hunk = false;
    // A renamed file is diffed against its source (`renamed from <path>`), which is not shown
    // again as a whole deletion: a moved package directory reads as its text edits.
    let source_of = |file: &StagedFile| -> Option<&StagedFile> {
        let from = file.operation.renamed_from()?;
        files.iter().find(|other| other.path == from && other.new_content.is_none() && other.original.is_some())
    };
    let moved_sources: Vec<&str> = files.iter().filter_map(|file| source_of(file).map(|source| source.display.as_str())).collect();
    for file in files {
        if file.new_content.is_none() && moved_sources.contains(&file.display.as_str()) {
            continue;
        }
        let source = source_of(file);
        let original = source.map_or(file.original.as_deref(), |source| source.original.as_deref());
        let old = original.map(String::from_utf8_lossy).unwrap_or_default();
        let new = file.new_content.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
        let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
        let mut unified = diff.unified_diff();
        unified.context_radius(2);
        let old_name = match source {
            Some(source) => format!("a/{}", source.display),
            None if file.original.is_some() => format!("a/{}", file.display),
            None => "/dev/null".to_owned(),
        };
        let new_name = if file.new_content.is_some() { format!("b/{}", file.display) } else { "/dev/null".to_owned() };
        let mut header_written = false;
        let mut hunks = 0;
        for hunk in unified.iter_hunks() {
            hunks += 1;
            total += 1;
            if shown >= max_hunks {
                continue;
            }
            let hunk_text = hunk.to_string();
            if text.len() >= max_bytes {
                bytes_left_out += hunk_text.len();
                continue;
            }
            if !header_written {
                let operation = if file.operation == PlannedOperation::Modified { String::new() } else { format!(" ({})", file.operation) };
                let _ = write!(text, "--- {old_name}\n+++ {new_name}{operation}\n");
                header_written = true;
            }
            let room = max_bytes.saturating_sub(text.len());
            if hunk_text.len() > room {
                // Cut at the last line end within the room, unless that leaves most of the room
                // unused (one very long line): then at a character boundary.
                let mut cut = hunk_text[..room].rfind('\n').map(|at| at + 1).unwrap_or(0);
                if cut < room / 2 {
                    cut = room;
                    while !hunk_text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                }
                text.push_str(&hunk_text[..cut]);
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                let _ = writeln!(text, "[… this hunk is cut here: {} more bytes of it are not shown]", hunk_text.len() - cut);
                bytes_left_out += hunk_text.len() - cut;
                partly_shown_hunk = true;
            } else {
                text.push_str(&hunk_text);
            }
            shown += 1;
        }
        // A file moved without a text change, or an empty file created or deleted, has no hunk:
        // it is still said.
        if hunks == 0 {
            let what = match (original, &file.new_content) {
                (Some(old), Some(new)) if old != new => "bytes that are not UTF-8 text changed; no text diff",
                _ => "no text change",
            };
            let _ = writeln!(text, "--- {old_name}\n+++ {new_name} ({}; {what})", file.operation);
        }
    }
    if let Some(notice) = truncation_notice(shown, total, "hunks") {
        let _ = write!(text, "{notice} (the staged change contains all of them)");
    }
    if bytes_left_out > 0 {
        let _ = write!(
            text,
            "\npreview capped at {max_bytes} bytes of diff: {bytes_left_out} bytes {}not shown (the staged change contains everything); to see the rest, stage the change for a narrower path (one file or directory per call), or accept it with resolve and inspect the written files",
            if partly_shown_hunk { "(including the rest of a cut hunk) " } else { "" }
        );
    }
    Preview { text: text.trim_end().to_owned(), shown, total, bytes_left_out }
}

/// Registers `resolve` (once per run, by the run builder when the staged resource is wired).
pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register_writing(resolve_descriptor(), Arc::new(resolve), Arc::new(planned_writes));
}

/// The `resolve` tool's descriptor.
pub(crate) fn resolve_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "resolve".to_owned(),
        title: "Accept or discard a staged change".to_owned(),
        description: "Accept or discard a change staged by ast_edit, by lsp_rename / lsp_code_action with `preview: true`, or by \
a background worker spawned with `isolation: \"worktree\"` (its edit_id is in vibe_wait / vibe_list). \
`accept` re-reads every file of the change and compares it with what was read at staging time: if any file changed \
(or was deleted, created or made read-only), the whole change is rejected, the changed files are listed and nothing is \
written; otherwise every file is written atomically (all or nothing). `discard` drops the change. An edit_id can be \
resolved once.\n\
Example: {\"edit_id\": \"edit_1\", \"action\": \"accept\"}"
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<ResolveArgs>(),
        output_schema: Some(crate::schema::writing_output_schema::<ResolveOutput>()),
        // accept writes (and may delete) files; an edit_id resolves once, so a repeat fails.
        annotations: crate::registry::ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(60),
    }
}

/// What `resolve` does with a staged change.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ResolveAction {
    /// Write the change (all files or none).
    Accept,
    /// Drop the change; nothing is written.
    Discard,
}

/// The arguments of `resolve`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResolveArgs {
    /// The id the staging tool returned, e.g. "edit_1".
    #[schemars(length(min = 1))]
    edit_id: String,
    /// accept writes the change; discard drops it.
    action: ResolveAction,
}

/// The `structuredContent` of `resolve`: a discarded change, or an accepted one with what was
/// written.
#[derive(Serialize, JsonSchema)]
struct ResolveOutput {
    /// The change resolved.
    edit_id: String,
    /// The tool that staged it (`ast_edit`, `lsp_rename`, `lsp_code_action`).
    staged_by: String,
    /// true when the change was dropped (nothing written); absent when accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    discarded: Option<bool>,
    /// Accepted: the files written, relative to the workspace root, each with its operation
    /// in parentheses unless modified (`b.rs (created)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    written: Option<Vec<String>>,
    /// Accepted: the number of changes (replacements or edits) written.
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<usize>,
    /// Accepted, staged by ast_edit: the same count, in ast_edit's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    replacements: Option<usize>,
    /// Accepted, staged by an LSP tool: the same count, in the language server's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    edits: Option<usize>,
    /// Accepted, staged by a worktree-isolated worker (`vibe_spawn`): the same count, in changed
    /// lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    changed_lines: Option<usize>,
    /// Accepted: warnings given when the change was staged.
    #[serde(skip_serializing_if = "Option::is_none")]
    staging_warnings: Option<Vec<String>>,
}

/// The loud warning a staging answer carries when some of `files` that exist are read-only for
/// this process by their mode bits (`resolve accept` refuses the whole change while they are),
/// naming each with its mode and the next step (`chmod u+w`, after asking the user); `None` when
/// every file is writable.
pub(crate) fn read_only_warning(files: &[StagedFile]) -> Option<String> {
    let read_only: Vec<(String, String)> = files
        .iter()
        .filter(|file| file.original.is_some())
        .filter_map(|file| {
            let metadata = std::fs::symlink_metadata(&file.path).ok()?;
            (metadata.is_file() && !crate::files::writable_by_mode(&metadata))
                .then(|| (file.display.clone(), crate::files::mode_text(&metadata)))
        })
        .collect();
    read_only.first()?;
    let listed: Vec<String> = read_only.iter().map(|(path, mode)| format!("{path} (mode {mode})")).collect();
    let (verb, pronoun) = if read_only.len() == 1 { ("is", "it is") } else { ("are", "they are") };
    Some(format!(
        "WARNING: {} {verb} read-only: resolve accept refuses the whole change while {pronoun}. Someone made {} read-only on purpose: ask the user before changing {}; to change {} anyway, make {} writable first (chmod u+w {}), then accept (the staged change stays valid while the content is unchanged)",
        listed.join(", "),
        if read_only.len() == 1 { "it" } else { "them" },
        if read_only.len() == 1 { "it" } else { "them" },
        if read_only.len() == 1 { "it" } else { "them" },
        if read_only.len() == 1 { "it" } else { "them" },
        read_only.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>().join(" "),
    ))
}

/// How the file at `file.path` differs from what was captured at staging, or `None` when it is
/// as captured (and writable).
fn changed_since_staging(workspace_root: &Path, file: &StagedFile) -> Option<String> {
    match &file.original {
        Some(original) => crate::files::staged_file_state(workspace_root, &file.path, original),
        // A file the change creates must still be absent (not even a dangling symlink).
        None => std::fs::symlink_metadata(&file.path).is_ok().then(|| "created since staging".to_owned()),
    }
}

/// The files a `resolve` call will write: for `accept`, every file of the staged change (as
/// [`StagedChanges::pending_paths`] lists them), for the registry's pre-write layers; nothing
/// for `discard` or an unknown id.
fn planned_writes(ctx: &CallContext<'_>, arguments: &Value) -> Vec<PathBuf> {
    let Ok(args) = ResolveArgs::deserialize(arguments) else { return Vec::new() };
    if !matches!(args.action, ResolveAction::Accept) {
        return Vec::new();
    }
    let Some(resource) = ctx.find_resource::<StagedResource>() else { return Vec::new() };
    resource.changes.pending_paths(args.edit_id.trim()).unwrap_or_default()
}

fn resolve(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let resource = ctx.resource::<StagedResource>()?;
    let args: ResolveArgs = ctx.parse_arguments(arguments)?;
    let id = args.edit_id.trim().to_owned();
    let staged = resource.changes.take(&id)?;
    let changes = staged.change_count();
    let summary =
        format!("{} of {} in {}", plural(changes, staged.change_noun), staged.description, plural(staged.changed_file_count(), "file"));
    if matches!(args.action, ResolveAction::Discard) {
        resource.changes.close(&id, Closed::Discarded);
        return Ok(ToolOutput::new(ToolResult::text(format!("discarded {id}: {summary} dropped; nothing was written")).with_structured(
            to_structured(&ResolveOutput {
                edit_id: id.clone(),
                staged_by: staged.tool.to_owned(),
                discarded: Some(true),
                written: None,
                changes: None,
                replacements: None,
                edits: None,
                changed_lines: None,
                staging_warnings: None,
            }),
        )));
    }
    let root = ctx.workspace_root();
    let changed: Vec<Value> = staged
        .files
        .iter()
        .filter_map(|file| changed_since_staging(root, file).map(|state| json!({"path": file.display, "state": state})))
        .collect();
    let read_only_now = |state: &Value| state["state"].as_str().is_some_and(|state| state.starts_with("read-only now"));
    if !changed.is_empty() && changed.iter().all(read_only_now) {
        // Only the mode changed: the staged bytes still match, so the change stays valid.
        let listed: Vec<String> = changed
            .iter()
            .map(|c| format!("{} ({})", c["path"].as_str().unwrap_or(""), c["state"].as_str().unwrap_or("").replace("read-only now: ", "")))
            .collect();
        let paths: Vec<&str> = changed.iter().filter_map(|c| c["path"].as_str()).collect();
        resource.changes.put_back(&id, staged);
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "{id} was not applied: {} {} read-only (no write permission for this process by the mode bits); nothing was written and {id} stays pending",
                listed.join(", "),
                if changed.len() == 1 { "is" } else { "are" }
            ),
        )
        .with_hint(format!(
            "someone made {} read-only on purpose: ask the user before changing it; to write anyway, make it writable (chmod u+w {}) and call resolve with edit_id \"{id}\" and action \"accept\" again (staging again is not needed: the content is as staged)",
            if changed.len() == 1 { "it" } else { "them" },
            paths.join(" ")
        ))
        .with_details(json!({"read_only": changed, "pending": true})));
    }
    if !changed.is_empty() {
        resource.changes.close(&id, Closed::Rejected);
        let list: Vec<String> =
            changed.iter().map(|c| format!("{} ({})", c["path"].as_str().unwrap_or(""), c["state"].as_str().unwrap_or(""))).collect();
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "{id} rejected: {} of its {} changed after it was staged: {}; nothing was written",
                changed.len(),
                plural(staged.files.len(), "file"),
                list.join(", ")
            ),
        )
        .with_hint(match changed.iter().filter(|c| read_only_now(c)).filter_map(|c| c["path"].as_str()).collect::<Vec<_>>() {
            read_only if read_only.is_empty() => staged.restage(),
            read_only => format!(
                "{}; {} read-only: make it writable first (chmod u+w {}) if the user agrees",
                staged.restage(),
                read_only.join(", "),
                read_only.join(" ")
            ),
        })
        .with_details(json!({"changed_files": changed})));
    }
    let file_changes: Vec<FileChange> = staged
        .files
        .iter()
        .map(|file| FileChange {
            path: file.path.clone(),
            new_content: file.new_content.clone(),
            expected: match &file.original {
                Some(original) => ExpectedState::Content(original.clone()),
                None => ExpectedState::Absent,
            },
        })
        .collect();
    let new_file_modes: Vec<Option<u32>> = staged.files.iter().map(|file| file.new_file_mode).collect();
    match commit_file_changes_with_modes(root, &file_changes, &new_file_modes) {
        Ok(written) => {
            resource.changes.close(&id, Closed::Accepted);
            let finished = crate::lsp::rename::finish_directory_moves(root, &staged.moved_directories);
            let directories_left = finished.left_in_place;
            let names = staged.accepted_file_names(root);
            crate::lsp::diagnostics_on_write::note_write_check_blind_spots(ctx.deadline(), staged.write_check_blind_spots.clone());
            let mut text = format!("accepted {id}: wrote {summary}: {}", names.join(", "));
            if !directories_left.is_empty() {
                let shown: Vec<String> = directories_left.iter().map(|directory| crate::render::display_path(root, directory)).collect();
                let _ = write!(
                    text,
                    "\nnote: left in place, not empty after the move (something was added to {} meanwhile, or a directory of {} could not be created under the new path): {}",
                    if shown.len() == 1 { "it" } else { "them" },
                    if shown.len() == 1 { "it" } else { "them" },
                    shown.join(", ")
                );
            }
            if !finished.not_recreated.is_empty() {
                let shown: Vec<String> =
                    finished.not_recreated.iter().map(|directory| crate::render::display_path(root, directory)).collect();
                let _ = write!(
                    text,
                    "\nnote: could not create {} under the new path (a file sits there, or no permission): the source {} kept — create {} and move what is left by hand",
                    shown.join(", "),
                    if shown.len() == 1 { "directory is" } else { "directories are" },
                    if shown.len() == 1 { "it" } else { "them" },
                );
            }
            if !staged.warnings.is_empty() {
                let _ = write!(text, "\nstaging warned:");
                for warning in &staged.warnings {
                    let _ = write!(text, "\n{warning}");
                }
            }
            let structured = ResolveOutput {
                edit_id: id.clone(),
                staged_by: staged.tool.to_owned(),
                discarded: None,
                written: Some(names),
                changes: Some(changes),
                replacements: (staged.change_noun == "replacement").then_some(changes),
                edits: (staged.change_noun == "edit").then_some(changes),
                changed_lines: (staged.change_noun == "changed line").then_some(changes),
                staging_warnings: Some(staged.warnings.clone()),
            };
            Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&structured))).with_written_paths(written))
        }
        Err(mut err) if err.details.as_ref().is_some_and(|details| details.get("read_only").is_some()) => {
            // A file became read-only between the check and the commit: nothing was written and
            // the change is still valid; the commit's hint says `chmod u+w … and retry`.
            resource.changes.put_back(&id, staged);
            err.message = format!("{id} was not applied (it stays pending): {}", err.message);
            Err(err)
        }
        Err(mut err) => {
            resource.changes.close(&id, Closed::Rejected);
            err.message = format!("{id} was not applied: {}", err.message);
            if err.hint.is_none() {
                err.hint = Some(staged.restage());
            }
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PlannedOperation;
    use super::*;

    /// Issue 13 §5: a preview is capped in bytes as well as hunks; a one-line rewrite of a big
    /// file is cut inside its hunk, and the cut says how many bytes were left out and how to see
    /// them.
    #[test]
    fn preview_is_capped_in_bytes_and_says_the_cut() {
        let old = format!("[{}]\n", (0..20_000).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
        let new = old.replace(", ", ",");
        let files = vec![file("big.js", Some(&old), Some(&new), "modified"), file("small.js", Some("a\n"), Some("b\n"), "modified")];
        let preview = render_preview(&files, 40, 4_096);
        assert!(preview.text.len() < 4_096 + 600, "{}", preview.text.len());
        assert!(preview.text.contains("this hunk is cut here"), "{}", preview.text);
        assert!(preview.text.contains("preview capped at 4096 bytes of diff"), "{}", preview.text);
        assert!(preview.text.contains("narrower path"), "{}", preview.text);
        let diff_bytes = old.len() + new.len();
        assert!(preview.bytes_left_out > diff_bytes - 4_096 - 200, "{} of {diff_bytes}", preview.bytes_left_out);
        // The small file's hunk did not fit: counted, not shown.
        assert_eq!((preview.shown, preview.total), (1, 2));
        assert!(!preview.text.contains("+++ b/small.js"));
        // Under the cap nothing is said.
        let small = render_preview(&files[1..], 40, 4_096);
        assert_eq!(small.bytes_left_out, 0);
        assert!(!small.text.contains("capped"));
    }

    fn file(display: &str, original: Option<&str>, new: Option<&str>, operation: &str) -> StagedFile {
        StagedFile {
            path: PathBuf::from("/w").join(display),
            display: display.to_owned(),
            original: original.map(|text| text.as_bytes().to_vec()),
            new_content: new.map(|text| text.as_bytes().to_vec()),
            changes: 1,
            operation: match operation.split_once(' ') {
                Some(("renamed", from)) => {
                    let from = from.trim_start_matches("from ");
                    PlannedOperation::RenamedFrom { from: PathBuf::from("/w").join(from), display: from.to_owned() }
                }
                Some(("moved", to)) => {
                    let to = to.trim_start_matches("to ");
                    PlannedOperation::MovedTo { to: PathBuf::from("/w").join(to), display: to.to_owned() }
                }
                _ if operation == "created" => PlannedOperation::Created,
                _ if operation == "deleted" => PlannedOperation::Deleted,
                _ => PlannedOperation::Modified,
            },
            new_file_mode: None,
        }
    }

    #[test]
    fn preview_shows_modified_created_deleted_and_moved_files_and_says_the_cut() {
        let files = vec![
            file("a.py", Some("x = 1\ny = 2\n"), Some("x = 1\ny = 3\n"), "modified"),
            file("new.py", None, Some("z = 0\n"), "created"),
            file("old.py", Some("gone\n"), None, "deleted"),
            file("moved.py", None, Some(""), "renamed from was.py"),
        ];
        let preview = render_preview(&files, 40, 65_536);
        assert_eq!((preview.shown, preview.total), (3, 3));
        assert!(preview.text.contains("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3"), "{}", preview.text);
        assert!(preview.text.contains("--- /dev/null\n+++ b/new.py (created)\n@@ -0,0 +1 @@\n+z = 0"), "{}", preview.text);
        assert!(preview.text.contains("--- a/old.py\n+++ /dev/null (deleted)"), "{}", preview.text);
        assert!(preview.text.contains("+++ b/moved.py (renamed from was.py; no text change)"), "{}", preview.text);
        let cut = render_preview(&files, 1, 65_536);
        assert_eq!((cut.shown, cut.total), (1, 3));
        assert!(cut.text.ends_with("showing 1 of 3 hunks (the staged change contains all of them)"), "{}", cut.text);
    }

    /// trial157 M3: a renamed file (a package directory moved by gopls) reads as its text edits
    /// against its source, and the source is not shown again as a whole deletion.
    #[test]
    fn a_renamed_file_is_diffed_against_its_source() {
        let files = vec![
            file("old/a.go", Some("package old\n\nfunc F() {}\n"), None, "moved to new/a.go"),
            file("new/a.go", None, Some("package new\n\nfunc F() {}\n"), "renamed from old/a.go"),
            file("old/b.go", Some("package old\n"), None, "deleted"),
        ];
        let preview = render_preview(&files, 40, 65_536);
        assert!(
            preview.text.contains("--- a/old/a.go\n+++ b/new/a.go (renamed from old/a.go)\n@@ -1,3 +1,3 @@\n-package old\n+package new\n"),
            "{}",
            preview.text
        );
        assert!(!preview.text.contains("+++ /dev/null (moved to new/a.go)"), "{}", preview.text);
        assert!(preview.text.contains("--- a/old/b.go\n+++ /dev/null (deleted)"), "{}", preview.text);
        assert_eq!((preview.shown, preview.total), (2, 2));
    }

    #[test]
    fn one_id_space_evicts_the_oldest_and_says_why_an_id_is_closed() {
        let store = StagedChanges::default();
        let change = |tool| StagedChange {
            tool,
            description: "d".to_owned(),
            change_noun: "edit",
            files: Vec::new(),
            warnings: Vec::new(),
            write_check_blind_spots: Vec::new(),
            restage_hint: None,
            held: false,
            moved_directories: Vec::new(),
        };
        let (first, _) = store.stage(change("ast_edit"), 2);
        let (second, _) = store.stage(change("lsp_rename"), 2);
        let (third, evicted) = store.stage(change("lsp_code_action"), 2);
        assert_eq!((first.as_str(), second.as_str(), third.as_str()), ("edit_1", "edit_2", "edit_3"));
        assert_eq!(evicted, vec!["edit_1".to_owned()]);
        let err = store.take("edit_1").unwrap_err();
        assert!(err.message.contains("dropped because too many newer changes"), "{}", err.message);
        assert!(err.hint.unwrap().contains("edit_2 (lsp_rename), edit_3 (lsp_code_action)"));
        assert_eq!(store.take("edit_2").unwrap().tool, "lsp_rename");
        assert!(store.take("edit_2").unwrap_err().message.contains("being resolved by another call"));
        store.close("edit_2", Closed::Accepted);
        assert!(store.take("edit_2").unwrap_err().message.contains("already accepted"));
        assert!(store.take("edit_9").unwrap_err().message.contains("no staged edit has edit_id"));
    }

    #[test]
    fn hooks_run_once_for_every_way_out_and_held_changes_have_their_own_cap() {
        use std::sync::Arc;
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let hook = |seen: &Arc<Mutex<Vec<String>>>| -> Option<ClosedHook> {
            let seen = Arc::clone(seen);
            Some(Box::new(move |id: &str, how: &str| seen.lock().push(format!("{id} {how}"))))
        };
        let change = |held| StagedChange {
            tool: "vibe_spawn",
            description: "d".to_owned(),
            change_noun: "changed line",
            files: Vec::new(),
            warnings: Vec::new(),
            write_check_blind_spots: Vec::new(),
            restage_hint: Some("vibe_send the worker".to_owned()),
            held,
            moved_directories: Vec::new(),
        };
        let store = StagedChanges::default();
        // Held changes: cap 2 among themselves; ordinary ones (cap 1) never evict them.
        store.stage_with_hook(change(true), 2, hook(&seen));
        store.stage_with_hook(change(true), 2, hook(&seen));
        let (_, evicted) = store.stage(change(false), 1);
        assert!(evicted.is_empty());
        let (_, evicted) = store.stage(change(false), 1);
        assert_eq!(evicted, vec!["edit_3".to_owned()]);
        assert!(seen.lock().is_empty(), "{:?}", seen.lock());
        let (fifth, evicted) = store.stage_with_hook(change(true), 2, hook(&seen));
        assert_eq!(evicted, vec!["edit_1".to_owned()]);
        assert_eq!(*seen.lock(), vec!["edit_1 evicted".to_owned()]);
        assert!(store.withdraw("edit_2", "superseded by attempt 2"));
        assert!(!store.withdraw("edit_2", "again"));
        let err = store.take("edit_2").unwrap_err();
        assert!(err.message.contains("withdrawn (superseded by attempt 2)"), "{}", err.message);
        store.take(&fifth).unwrap();
        store.close(&fifth, Closed::Discarded);
        store.stage_with_hook(change(true), 2, hook(&seen));
        drop(store);
        assert_eq!(
            *seen.lock(),
            vec![
                "edit_1 evicted".to_owned(),
                "edit_2 withdrawn: superseded by attempt 2".to_owned(),
                "edit_5 discarded".to_owned(),
                "edit_6 the run ended".to_owned()
            ]
        );
    }
}
