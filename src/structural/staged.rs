//! The run-owned store of staged edits: what a writing tool proposed (today `ast_edit`), with
//! the exact bytes of every file it read and the bytes it would write, waiting for `resolve`
//! (R-EDIT-1, R-RES-1). Ids are `edit_1`, `edit_2`, … per run. The store lives in the run's
//! structural resource and is dropped with the run.
//!
//! Nothing here knows how an edit was computed: an edit is a description, a set of files
//! (original bytes, new bytes, a change count) and the warnings staging gave, so any tool that
//! produces whole-file contents can stage through it.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use parking_lot::Mutex;

use crate::error::{ErrorKind, ToolError};

/// Proposed rewrites of one run, keyed by edit id.
#[derive(Debug, Default)]
pub struct StagedEdits {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    next_number: u64,
    pending: BTreeMap<u64, StagedEdit>,
    closed: HashMap<String, ClosedEdit>,
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
}

/// One file of a staged rewrite.
#[derive(Debug, Clone)]
pub(crate) struct StagedFile {
    /// Absolute path.
    pub(crate) path: PathBuf,
    /// Path relative to the workspace, for messages.
    pub(crate) display: String,
    /// The exact bytes read when the edit was staged.
    pub(crate) original: Vec<u8>,
    /// The bytes `resolve accept` writes.
    pub(crate) new_content: Vec<u8>,
    /// Changes (replacements) in this file.
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
}

impl StagedEdits {
    /// Number of edits waiting for `resolve`.
    pub fn pending_count(&self) -> usize {
        self.inner.lock().pending.len()
    }

    /// Stores `edit` under the next id; evicts the oldest pending edits beyond `max_pending`
    /// and returns the new id with the evicted ids.
    pub(crate) fn stage(&self, edit: StagedEdit, max_pending: usize) -> (String, Vec<String>) {
        let mut inner = self.inner.lock();
        inner.next_number += 1;
        let number = inner.next_number;
        inner.pending.insert(number, edit);
        let mut evicted = Vec::new();
        while inner.pending.len() > max_pending.max(1) {
            let Some((&oldest, _)) = inner.pending.iter().next() else {
                break;
            };
            inner.pending.remove(&oldest);
            let id = format!("edit_{oldest}");
            inner.closed.insert(id.clone(), ClosedEdit::Evicted);
            evicted.push(id);
        }
        (format!("edit_{number}"), evicted)
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

    /// Records how a taken edit ended.
    pub(crate) fn close(&self, id: &str, how: ClosedEdit) {
        self.inner.lock().closed.insert(id.trim().to_owned(), how);
    }
}
