//! The run-owned store of staged edits: what a writing tool proposed (today `ast_edit`), with
//! the exact bytes of every file it read and the bytes it would write, waiting for `resolve`
//! (R-EDIT-1, R-RES-1). Ids are `edit_1`, `edit_2`, … per run. The store lives in the run's
//! structural resource and is dropped with the run.
//!
//! Nothing here knows how an edit was computed: an edit is a description, a set of files
//! (original bytes, new bytes, a change count) and the warnings staging gave, so any tool that
//! produces whole-file contents can stage through it.
//!
//! The store also holds what an isolated vibe worker changed ([`crate::vibe::ChangeStaging`]):
//! such an edit may create and delete files, and carries a hook the store calls once when the
//! edit leaves it (accepted, discarded, rejected, evicted, withdrawn, or the run ended), which
//! is when the roster removes the worker's git worktree.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use parking_lot::Mutex;

use crate::error::{ErrorKind, ToolError};
use crate::vibe::ClosedHook;

/// Proposed rewrites of one run, keyed by edit id.
#[derive(Default)]
pub struct StagedEdits {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for StagedEdits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.lock();
        f.debug_struct("StagedEdits")
            .field("next_number", &inner.next_number)
            .field("pending", &inner.pending.keys().collect::<Vec<_>>())
            .field("closed", &inner.closed)
            .field("hooks", &inner.hooks.len())
            .finish()
    }
}

#[derive(Default)]
struct Inner {
    next_number: u64,
    pending: BTreeMap<u64, StagedEdit>,
    closed: HashMap<String, ClosedEdit>,
    /// Called once when the edit with this number leaves the store (worker edits).
    hooks: HashMap<u64, ClosedHook>,
}

/// One staged change: every file it changes, with the content read at staging time.
#[derive(Debug, Clone)]
pub(crate) struct StagedEdit {
    /// What the change does, for messages, e.g. `` `dispose($X)` → `$X.dispose()` (dart) ``.
    pub(crate) description: String,
    /// The files, each with its original and new bytes.
    pub(crate) files: Vec<StagedFile>,
    /// What staging warned about (nested matches skipped, parse errors allowed …); `resolve`
    /// repeats them when it accepts.
    pub(crate) warnings: Vec<String>,
    /// What to do when `resolve accept` finds the files changed since staging (e.g. run
    /// ast_edit again; vibe_send the worker).
    pub(crate) restage_hint: String,
    /// What a file's change count counts, singular and plural (`replacement`s for `ast_edit`,
    /// `changed line`s for a worker).
    pub(crate) count_noun: (&'static str, &'static str),
}

/// One file of a staged rewrite.
#[derive(Debug, Clone)]
pub(crate) struct StagedFile {
    /// Absolute path.
    pub(crate) path: PathBuf,
    /// Path relative to the workspace, for messages.
    pub(crate) display: String,
    /// The exact bytes read when the edit was staged; `None`: the edit creates the file, and
    /// `resolve accept` requires it to be still absent.
    pub(crate) original: Option<Vec<u8>>,
    /// The bytes `resolve accept` writes; `None` deletes the file.
    pub(crate) new_content: Option<Vec<u8>>,
    /// Changes in this file: replacements (`ast_edit`), lines added + removed (a worker).
    pub(crate) replacements: usize,
}

/// Why an edit id is no longer pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClosedEdit {
    Resolving,
    Accepted,
    Discarded,
    Rejected,
    Evicted,
    /// Withdrawn by its producer (a newer attempt of the same worker), with the reason.
    Withdrawn(String),
}

impl ClosedEdit {
    /// How the edit left the store, as the [`ClosedHook`] is told.
    fn hook_text(&self) -> String {
        match self {
            ClosedEdit::Resolving => "being resolved".to_owned(),
            ClosedEdit::Accepted => "accepted".to_owned(),
            ClosedEdit::Discarded => "discarded".to_owned(),
            ClosedEdit::Rejected => "rejected".to_owned(),
            ClosedEdit::Evicted => "evicted".to_owned(),
            ClosedEdit::Withdrawn(reason) => format!("withdrawn: {reason}"),
        }
    }
}

impl StagedEdits {
    /// Number of edits waiting for `resolve`.
    pub fn pending_count(&self) -> usize {
        self.inner.lock().pending.len()
    }

    /// Stores `edit` under the next id; evicts the oldest pending edits beyond `max_pending`
    /// and returns the new id with the evicted ids.
    pub(crate) fn stage(&self, edit: StagedEdit, max_pending: usize) -> (String, Vec<String>) {
        self.stage_with_hook(edit, max_pending, None)
    }

    /// [`StagedEdits::stage`] with a hook called once when the edit leaves the store. Hooks of
    /// evicted edits run before this returns, on this thread, with no lock held.
    pub(crate) fn stage_with_hook(&self, edit: StagedEdit, max_pending: usize, hook: Option<ClosedHook>) -> (String, Vec<String>) {
        let mut evicted_hooks: Vec<(String, ClosedHook)> = Vec::new();
        let (number, evicted) = {
            let mut inner = self.inner.lock();
            inner.next_number += 1;
            let number = inner.next_number;
            inner.pending.insert(number, edit);
            if let Some(hook) = hook {
                inner.hooks.insert(number, hook);
            }
            let mut evicted = Vec::new();
            while inner.pending.len() > max_pending.max(1) {
                let Some((&oldest, _)) = inner.pending.iter().next() else {
                    break;
                };
                inner.pending.remove(&oldest);
                let id = format!("edit_{oldest}");
                inner.closed.insert(id.clone(), ClosedEdit::Evicted);
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

    /// Closes the pending edit `id` without writing it, because its producer superseded it;
    /// its hook runs with `withdrawn: <reason>`. `false` when `id` was not pending.
    pub(crate) fn withdraw(&self, id: &str, reason: &str) -> bool {
        let Some(number) = edit_number(id) else {
            return false;
        };
        let hook = {
            let mut inner = self.inner.lock();
            if inner.pending.remove(&number).is_none() {
                return false;
            }
            inner.closed.insert(id.trim().to_owned(), ClosedEdit::Withdrawn(reason.to_owned()));
            inner.hooks.remove(&number)
        };
        if let Some(hook) = hook {
            hook(id.trim(), &format!("withdrawn: {reason}"));
        }
        true
    }

    /// Takes the pending edit `id` out of the store (marking it as being resolved).
    pub(crate) fn take(&self, id: &str) -> Result<StagedEdit, ToolError> {
        let mut inner = self.inner.lock();
        let number = id.trim().strip_prefix("edit_").and_then(|n| n.parse::<u64>().ok());
        if let Some(edit) = number.and_then(|n| inner.pending.remove(&n)) {
            inner.closed.insert(id.trim().to_owned(), ClosedEdit::Resolving);
            return Ok(edit);
        }
        let pending: Vec<String> = inner.pending.keys().map(|n| format!("edit_{n}")).collect();
        let pending_text = if pending.is_empty() { "none".to_owned() } else { pending.join(", ") };
        let (kind, message) = match inner.closed.get(id.trim()) {
            Some(ClosedEdit::Resolving) => (ErrorKind::Conflict, format!("edit_id {id:?} is being resolved by another call right now")),
            Some(ClosedEdit::Accepted) => {
                (ErrorKind::Conflict, format!("edit_id {id:?} was already accepted and written; it cannot be resolved again"))
            }
            Some(ClosedEdit::Discarded) => (ErrorKind::Conflict, format!("edit_id {id:?} was discarded; it cannot be resolved any more")),
            Some(ClosedEdit::Rejected) => (
                ErrorKind::Conflict,
                format!("edit_id {id:?} was rejected by an earlier accept because files changed after staging; it is closed"),
            ),
            Some(ClosedEdit::Evicted) => {
                (ErrorKind::NotFound, format!("edit_id {id:?} was dropped because too many newer edits were staged after it"))
            }
            Some(ClosedEdit::Withdrawn(reason)) => (ErrorKind::Conflict, format!("edit_id {id:?} was withdrawn ({reason}); it is closed")),
            None => (ErrorKind::NotFound, format!("no staged edit has edit_id {id:?} in this run")),
        };
        Err(ToolError::new(kind, message)
            .with_hint(format!("pending edit ids: {pending_text}; run ast_edit again to stage a fresh change")))
    }

    /// The absolute paths of every file the pending edit `id` would write, without taking it;
    /// `None` when `id` is not pending. Diagnostics on write seeds its ledger from these files
    /// before `resolve` accepts (R-DOW-2).
    pub(crate) fn pending_paths(&self, id: &str) -> Option<Vec<PathBuf>> {
        let number = id.trim().strip_prefix("edit_")?.parse::<u64>().ok()?;
        let inner = self.inner.lock();
        let edit = inner.pending.get(&number)?;
        Some(edit.files.iter().map(|file| file.path.clone()).collect())
    }

    /// Records how a taken edit ended, and runs its hook (if any) with no lock held.
    pub(crate) fn close(&self, id: &str, how: ClosedEdit) {
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

impl Drop for StagedEdits {
    /// Pending worker edits end with the run: their hooks run with `the run ended`.
    fn drop(&mut self) {
        let hooks: Vec<(u64, ClosedHook)> = self.inner.get_mut().hooks.drain().collect();
        for (number, hook) in hooks {
            hook(&format!("edit_{number}"), "the run ended");
        }
    }
}

fn edit_number(id: &str) -> Option<u64> {
    id.trim().strip_prefix("edit_")?.parse::<u64>().ok()
}
