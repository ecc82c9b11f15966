//! The typed `structuredContent` of the five `vibe_*` tools, and the source of their declared
//! `outputSchema`s (see [`crate::schema`]). The text the model reads is rendered in
//! [`super::tools`]; these types carry the same facts for a host.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;

use super::roster::{WorkerChangeSummary, WorkerSnapshot};
use super::{WorkerIsolation, WorkerStatus, WorkerTier};
use crate::render::cut_chars_with;
use crate::tier::Caller;

/// One worker as `vibe_list` and `vibe_wait` report it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct WorkerRecord {
    /// `worker_N`.
    pub(crate) worker_id: String,
    /// The label the model gave.
    pub(crate) label: String,
    /// The worker's tier.
    pub(crate) tier: WorkerTier,
    /// The backend that runs it (`command`, `ray`, or the host's name).
    pub(crate) backend: String,
    /// The mode of the caller that spawned it (its worker is held to it).
    pub(crate) caller: Caller,
    /// How its attempts are isolated.
    pub(crate) isolation: WorkerIsolation,
    /// The worker's status.
    pub(crate) status: WorkerStatus,
    /// The latest attempt number (from 1).
    pub(crate) attempt: u32,
    /// How long the latest attempt has been pending/running, or ran until it ended, in ms.
    pub(crate) elapsed_ms: u64,
    /// Time since `vibe_spawn`, in ms.
    pub(crate) since_spawn_ms: u64,
    /// The result (or error text) of the last attempt that ended on its own, cut to the tool's
    /// limit with a `[cut: …]` marker; null before any attempt ended.
    pub(crate) last_result: Option<String>,
    /// The attempt `last_result` came from.
    pub(crate) last_result_attempt: Option<u32>,
    /// The latest progress line the backend reported during the current attempt.
    pub(crate) progress: Option<String>,
    /// Why the worker is in its status when that is not obvious (killed by whom, lost why).
    pub(crate) note: Option<String>,
    /// For a pending worker: how many attempts of its backend are ahead of it in the queue.
    pub(crate) queued_behind: Option<usize>,
    /// The worker's cards the human has not answered yet; non-empty means it waits for the
    /// human.
    pub(crate) waiting_for_human: Vec<String>,
    /// The worker's git worktree (absolute), while it has one.
    pub(crate) worktree: Option<PathBuf>,
    /// The worktree's branch, while it has one.
    pub(crate) branch: Option<String>,
    /// What the latest isolated attempt changed, and where that change stands.
    pub(crate) change: Option<WorkerChangeRecord>,
}

/// What an isolated attempt changed (the diff itself is in the text of `vibe_wait`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct WorkerChangeRecord {
    /// The attempt that made the change.
    pub(crate) attempt: u32,
    /// Files added, modified or deleted.
    pub(crate) files: usize,
    /// Lines added over all files.
    pub(crate) lines_added: usize,
    /// Lines removed over all files.
    pub(crate) lines_removed: usize,
    /// The staged edit (`edit_N`) for `resolve`, when the change was staged.
    pub(crate) edit_id: Option<String>,
    /// `pending: resolve accept or discard`, `accepted`, `discarded`, `rejected`, `evicted`,
    /// `withdrawn: …`, `not staged: <why>`, or `no changes`.
    pub(crate) state: String,
    /// Changes that could not be staged, each with the reason.
    pub(crate) left_out: Vec<String>,
}

impl WorkerRecord {
    /// The record of `snapshot`, its last result cut to `result_chars` characters.
    pub(crate) fn from_snapshot(snapshot: &WorkerSnapshot, result_chars: usize) -> WorkerRecord {
        WorkerRecord {
            worker_id: snapshot.worker_id.clone(),
            label: snapshot.label.clone(),
            tier: snapshot.tier,
            backend: snapshot.backend.clone(),
            caller: snapshot.caller,
            isolation: snapshot.isolation,
            status: snapshot.status,
            attempt: snapshot.attempt,
            elapsed_ms: millis(snapshot.elapsed),
            since_spawn_ms: millis(snapshot.since_spawn),
            last_result: snapshot.last_result.as_deref().map(|text| cut_chars_with(text, result_chars, "vibe_wait shows the whole result")),
            last_result_attempt: snapshot.last_result_attempt,
            progress: snapshot.progress.clone(),
            note: snapshot.note.clone(),
            queued_behind: snapshot.queued_behind,
            waiting_for_human: snapshot.waiting_for_human.clone(),
            worktree: snapshot.worktree.as_ref().map(|(path, _)| path.clone()),
            branch: snapshot.worktree.as_ref().map(|(_, branch)| branch.clone()),
            change: snapshot.change.as_ref().map(WorkerChangeRecord::from_summary),
        }
    }
}

impl WorkerChangeRecord {
    fn from_summary(change: &WorkerChangeSummary) -> WorkerChangeRecord {
        WorkerChangeRecord {
            attempt: change.attempt,
            files: change.files,
            lines_added: change.lines_added,
            lines_removed: change.lines_removed,
            edit_id: change.edit_id.clone(),
            state: change.state.clone(),
            left_out: change.left_out.clone(),
        }
    }
}

/// `vibe_spawn`'s result: the new worker.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SpawnOutput {
    /// `worker_N`, for vibe_wait / vibe_send / vibe_kill.
    pub(crate) worker_id: String,
    /// The label given.
    pub(crate) label: String,
    /// The worker's tier.
    pub(crate) tier: WorkerTier,
    /// The backend that runs it.
    pub(crate) backend: String,
    /// How its attempts are isolated.
    pub(crate) isolation: WorkerIsolation,
    /// The attempt number (1).
    pub(crate) attempt: u32,
    /// `pending` (queued) or `running`.
    pub(crate) status: WorkerStatus,
    /// How many attempts of its backend are ahead of it in the queue (null when it started).
    pub(crate) queued_behind: Option<usize>,
    /// Why the isolation asked for was changed, when it was.
    pub(crate) note: Option<String>,
}

/// `vibe_send`'s result: what the message did to the worker.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SendOutput {
    /// The worker.
    pub(crate) worker_id: String,
    /// The staged edit of the previous attempt that this message withdrew.
    pub(crate) withdrawn_edit: Option<String>,
    /// The status before the message arrived.
    pub(crate) previous_status: WorkerStatus,
    /// The attempt that was running or had ended before the message arrived.
    pub(crate) previous_attempt: u32,
    /// Whether a running attempt stopped within the grace time (true when nothing had to stop).
    pub(crate) previous_attempt_stopped: bool,
    /// The message was added to a worker that had not started yet (no new attempt).
    pub(crate) merged_into_pending_attempt: bool,
    /// The attempt that carries the message.
    pub(crate) attempt: u32,
    /// The status now.
    pub(crate) status: WorkerStatus,
}

/// `vibe_wait`'s result: the worker (with its whole result, up to the tool's limit) and how the
/// wait ended.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct WaitOutput {
    /// The worker.
    #[serde(flatten)]
    pub(crate) worker: WorkerRecord,
    /// The worker was still pending or running when the wait ended.
    pub(crate) timed_out: bool,
    /// How long this call waited, in ms.
    pub(crate) waited_ms: u64,
    /// The wait's timeout after clamping to the allowed range, in seconds.
    pub(crate) applied_timeout_seconds: f64,
}

/// `vibe_kill`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct KillOutput {
    /// The worker.
    pub(crate) worker_id: String,
    /// The status before the kill.
    pub(crate) previous_status: WorkerStatus,
    /// The status now: `killed`, `stopping` (the backend has not confirmed yet), or the finished
    /// status it already had.
    pub(crate) status: WorkerStatus,
    /// The latest attempt.
    pub(crate) attempt: u32,
    /// The backend confirmed the stop within the call.
    pub(crate) stopped: bool,
    /// How long the call waited for the stop, in ms.
    pub(crate) waited_ms: u64,
}

/// `vibe_list`'s result: every worker of the run, in spawn order.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListOutput {
    /// The workers (results cut to the list's limit; vibe_wait returns the whole result).
    pub(crate) workers: Vec<WorkerRecord>,
}

/// Milliseconds of `duration`, saturating.
pub(crate) fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
