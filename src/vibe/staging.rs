//! The seam between the roster and the run's staged-change store: what an isolated worker
//! changed is staged like every other multi-file change (an `edit_N` id, a preview, `resolve`
//! accept/discard with the all-or-nothing check against the parent's current files).
//!
//! The roster only sees [`ChangeStaging`]; the run wires the implementation over its store. The
//! store calls the [`ClosedHook`] once when the edit leaves it (accepted, discarded, rejected,
//! evicted, withdrawn, or the store dropped with the run), which is when the roster removes the
//! worker's worktree.

use std::path::PathBuf;

/// Called once when a staged worker change leaves the store, with its edit id and how:
/// `accepted`, `discarded`, `rejected`, `evicted`, `withdrawn: <reason>` or `the run ended`.
/// Runs on the thread that closed the edit, with no store lock held.
pub type ClosedHook = Box<dyn FnOnce(&str, &str) + Send>;

/// One file of a worker's change, addressed in the parent's workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerChangedFile {
    /// Absolute path in the parent's workspace.
    pub path: PathBuf,
    /// Path relative to the workspace, for messages.
    pub display: String,
    /// The bytes the worker started from (its base); `None` when the worker created the file.
    /// `resolve accept` requires the parent's file to still hold exactly these bytes (absent for
    /// `None`).
    pub original: Option<Vec<u8>>,
    /// The bytes the worker left; `None` when it deleted the file.
    pub new_content: Option<Vec<u8>>,
    /// Lines added and removed (a line diff of `original` and `new_content`).
    pub lines_added: usize,
    /// Lines removed.
    pub lines_removed: usize,
}

/// A worker's change, ready to stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerChange {
    /// `worker_N: <label>, attempt A`, for the store's messages.
    pub description: String,
    /// The files, in path order.
    pub files: Vec<WorkerChangedFile>,
    /// What staging should repeat when the change is accepted (files left out, files the
    /// parent changed since the worker started).
    pub warnings: Vec<String>,
}

/// What staging produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedWorkerChange {
    /// The id `resolve` takes.
    pub edit_id: String,
    /// The unified diff preview (cut per the store's cap, the cut said).
    pub preview: String,
    /// Older pending edits dropped to stay within the store's cap.
    pub evicted: Vec<String>,
}

/// Stages worker changes in the run's store.
pub trait ChangeStaging: Send + Sync {
    /// Stages `change` under a new edit id; `on_closed` runs once when the edit leaves the
    /// store (see [`ClosedHook`]).
    ///
    /// # Errors
    /// A message for the model when the change cannot be staged.
    fn stage(&self, change: WorkerChange, on_closed: ClosedHook) -> Result<StagedWorkerChange, String>;

    /// Closes the pending edit `edit_id` without writing it (a newer attempt of the same
    /// worker supersedes it); its hook runs with `withdrawn: <reason>`. `false` when it was no
    /// longer pending.
    fn withdraw(&self, edit_id: &str, reason: &str) -> bool;
}
