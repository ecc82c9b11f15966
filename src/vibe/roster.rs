//! The roster: one record per worker (kept until the run ends), one named thread per active
//! worker, and the state machine behind the five `vibe_*` tools.
//!
//! State lives under one mutex with one condition variable that is notified on every change.
//! A worker's thread runs attempts in a loop: it waits (as `pending`) for a free slot of its
//! backend (slots go to requested attempts first come, first served; each backend has its own
//! cap), prepares the attempt's isolation (a git worktree), runs the backend with the attempt's
//! cancellation token, stages what an isolated attempt changed, records the outcome, and exits
//! when no further attempt is requested. `send` and `kill` cancel the running attempt and wait,
//! bounded by [`VibeConfig::stop_grace`] plus the backend's confirmation time, for it to stop.
//! Dropping the roster cancels every attempt, waits (bounded) for the threads to finish, joins
//! them and removes every worktree.
//!
//! Lock order: the roster's state lock is never held while calling into the staged-change
//! store (whose close hooks take the state lock) or the ask port.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::ask::{AskBinding, AskChannelHost, AskOutcome, CardKind, ChannelDescription, RelayedCard};
use crate::error::{ErrorKind, ToolError};
use crate::registry::CancelToken;
use crate::render::{cut_chars, cut_chars_with, cut_middle, plural};
use crate::tier::Caller;

use super::worktree::{GitWorkspace, Worktree, WorktreeChanges};
use super::{VibeConfig, VibeSetup, WorkerBackend, WorkerEvent, WorkerEventCallback, WorkerIsolation, WorkerJob, WorkerStatus, WorkerTier};

/// The background workers of one run. Built by [`crate::RunBuilder::build`] when vibe mode is
/// on; reachable as [`crate::Run::vibe_roster`]. Dropping it stops every worker.
pub struct Roster {
    shared: Arc<Shared>,
}

/// What the roster reaches of the rest of the run: the ask port (for cards relayed from inside
/// workers) and the staged-change store (for what isolated workers changed). The run builder
/// fills both.
#[derive(Clone, Default)]
pub struct RosterLinks {
    /// The run's ask port, if a human is attached.
    pub ask: Option<Arc<AskBinding>>,
    /// The run's staged-change store; without it `isolation: "worktree"` is refused.
    pub staging: Option<Arc<crate::staged::StagedResource>>,
    /// The run's workspace trust, handed to every attempt ([`WorkerJob::workspace_trust`]).
    pub workspace_trust: crate::trust::WorkspaceTrust,
}

impl std::fmt::Debug for RosterLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RosterLinks")
            .field("ask", &self.ask.is_some())
            .field("staging", &self.staging.is_some())
            .field("workspace_trust", &self.workspace_trust)
            .finish()
    }
}

/// A worker's record at one instant (what `vibe_list` shows per worker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSnapshot {
    /// `worker_N`.
    pub worker_id: String,
    /// The label the model gave.
    pub label: String,
    /// The worker's tier.
    pub tier: WorkerTier,
    /// The backend that runs it ([`WorkerBackend::name`]).
    pub backend: String,
    /// The mode of the caller that spawned it.
    pub caller: Caller,
    /// How its attempts are isolated.
    pub isolation: WorkerIsolation,
    /// The status, with `lost` derived from the worker's thread handle and `stopping` from a
    /// kill the backend has not confirmed.
    pub status: WorkerStatus,
    /// The latest attempt number (from 1).
    pub attempt: u32,
    /// How long the latest attempt has been pending/running, or ran until it ended.
    pub elapsed: Duration,
    /// Time since `vibe_spawn`.
    pub since_spawn: Duration,
    /// The result (or error text) of the last attempt that ended on its own, already cut to
    /// [`VibeConfig::result_max_chars`]; `None` before any attempt ended.
    pub last_result: Option<String>,
    /// The attempt `last_result` came from.
    pub last_result_attempt: Option<u32>,
    /// The latest progress line the backend reported during the current attempt.
    pub progress: Option<String>,
    /// Why the worker is in its status when that is not obvious (killed by whom, lost why).
    pub note: Option<String>,
    /// For a pending worker: how many attempts of its backend are ahead of it in the queue.
    pub queued_behind: Option<usize>,
    /// The cards of this worker the human has not answered yet (`permission card 4: Allow
    /// write …`); non-empty means the worker is waiting for the human.
    pub waiting_for_human: Vec<String>,
    /// The worker's git worktree (its top level) and branch, while it has one.
    pub worktree: Option<(PathBuf, String)>,
    /// What the latest isolated attempt changed, and where that change stands.
    pub change: Option<WorkerChangeSummary>,
}

/// What an isolated attempt changed and where the change stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerChangeSummary {
    /// The attempt that made the change.
    pub attempt: u32,
    /// Files added, modified or deleted (inside the workspace, regular files).
    pub files: usize,
    /// Lines added over all files.
    pub lines_added: usize,
    /// Lines removed over all files.
    pub lines_removed: usize,
    /// The staged edit (`edit_N`), when the change was staged.
    pub edit_id: Option<String>,
    /// `pending: resolve accept or discard`, `accepted`, `discarded`, `rejected`, `evicted`,
    /// `withdrawn: …`, `not staged: <why>`, or `no changes`.
    pub state: String,
    /// Changes that could not be staged, each with the reason.
    pub left_out: Vec<String>,
    /// The unified diff preview (empty when nothing was staged).
    pub preview: String,
}

/// What [`Roster::send`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendReport {
    /// The status before the message arrived.
    pub previous_status: WorkerStatus,
    /// The attempt that was running or had ended before the message arrived.
    pub previous_attempt: u32,
    /// For a running attempt: whether it stopped (its process group killed) within
    /// [`VibeConfig::stop_grace`]. `true` when nothing had to stop.
    pub previous_attempt_stopped: bool,
    /// `true` when the message was added to a worker still waiting for its first slot (no new
    /// attempt needed).
    pub merged_into_pending_attempt: bool,
    /// The staged edit of the previous attempt that this send withdrew (the new attempt
    /// continues in the same worktree and stages the whole change again).
    pub withdrawn_edit: Option<String>,
    /// The record after the send.
    pub snapshot: WorkerSnapshot,
}

/// What [`Roster::wait`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitReport {
    /// `true` when the worker was still pending, running or stopping when the wait ended.
    pub timed_out: bool,
    /// `true` when the wait ended because the caller's call was cancelled.
    pub cancelled: bool,
    /// How long this call waited.
    pub waited: Duration,
    /// The timeout actually applied (after clamping to the configured minimum and maximum).
    pub applied_timeout: Duration,
    /// The record at the end of the wait.
    pub snapshot: WorkerSnapshot,
}

/// What [`Roster::kill`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KillReport {
    /// The status before the kill.
    pub previous_status: WorkerStatus,
    /// Whether the backend confirmed the stop (process group killed, or a Ray job reported
    /// `STOPPED`) within [`VibeConfig::stop_grace`] plus its confirmation time. `true` when
    /// nothing was running.
    pub stopped: bool,
    /// How long the kill waited for the confirmation.
    pub waited: Duration,
    /// The record after the kill (`killed`, or `stopping` when not confirmed yet).
    pub snapshot: WorkerSnapshot,
}

/// One backend of the roster, for `vibe_list` and `runbound status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendSummary {
    /// [`WorkerBackend::name`].
    pub name: String,
    /// The tiers it runs.
    pub tiers: Vec<WorkerTier>,
    /// Most attempts running at once.
    pub cap: usize,
    /// Attempts running now (stopping ones included).
    pub running: usize,
    /// Attempts waiting for one of its slots.
    pub queued: usize,
    /// [`WorkerBackend::status_lines`] (probes the backend).
    pub status_lines: Vec<String>,
}

struct BackendEntry {
    backend: Arc<dyn WorkerBackend>,
    name: String,
    cap: usize,
    tiers: Vec<WorkerTier>,
}

struct Shared {
    backends: Vec<BackendEntry>,
    tier_backend: HashMap<WorkerTier, usize>,
    on_worker_event: Option<WorkerEventCallback>,
    config: VibeConfig,
    workspace_root: PathBuf,
    links: RosterLinks,
    state: Mutex<RosterState>,
    changed: Condvar,
}

struct RosterState {
    workers: Vec<WorkerRecord>,
    running_per_backend: Vec<usize>,
    shutting_down: bool,
    /// Hands out [`WorkerRecord::queue_ticket`]s: free slots go to requested attempts in the
    /// order they were requested.
    next_queue_ticket: u64,
    /// Edits whose close hook ran before the attempt that staged them recorded them (an edit
    /// evicted at once), with how they closed.
    closed_edits: HashMap<String, String>,
}

struct WorkerRecord {
    worker_id: String,
    label: String,
    tier: WorkerTier,
    backend_index: usize,
    caller: Caller,
    isolation: WorkerIsolation,
    brief: String,
    messages: Vec<String>,
    attempt: u32,
    status: WorkerStatus,
    spawned_at: Instant,
    attempt_requested_at: Instant,
    attempt_finished_at: Option<Instant>,
    attempt_deadline: Option<Instant>,
    last_result: Option<String>,
    last_result_attempt: Option<u32>,
    progress: Option<String>,
    note: Option<String>,
    cancel: CancelToken,
    requested_attempt: Option<u32>,
    /// Orders requested attempts for free slots (first requested, first started).
    queue_ticket: u64,
    running_attempt: Option<u32>,
    thread_active: bool,
    thread: Option<JoinHandle<()>>,
    worktree: Option<Arc<Worktree>>,
    /// The staged edit of this worker's latest change while it is pending.
    pending_edit: Option<String>,
    change: Option<WorkerChangeSummary>,
    /// Cards shown to the human for this worker and not answered yet: (card number, line).
    waiting_for_human: Vec<(u64, String)>,
}

const PROGRESS_MAX_CHARS: usize = 200;
const WAIT_SLICE: Duration = Duration::from_millis(100);

impl Roster {
    /// A roster running workers through `setup`'s backends in `workspace_root`, under `config`,
    /// with no ask port and no staged-change store (see [`Roster::with_links`]).
    pub fn new(setup: VibeSetup, config: &VibeConfig, workspace_root: &Path) -> Roster {
        Roster::with_links(setup, config, workspace_root, RosterLinks::default())
    }

    /// A roster linked to the run's ask port and staged-change store.
    pub fn with_links(setup: VibeSetup, config: &VibeConfig, workspace_root: &Path, links: RosterLinks) -> Roster {
        let mut backends: Vec<BackendEntry> = Vec::new();
        let mut tier_backend = HashMap::new();
        for tier in WorkerTier::ALL {
            let backend = Arc::clone(setup.backend_for(tier));
            let same = |entry: &BackendEntry| std::ptr::addr_eq(Arc::as_ptr(&entry.backend), Arc::as_ptr(&backend));
            let index = match backends.iter().position(same) {
                Some(index) => index,
                None => {
                    let cap = backend.max_running_attempts().unwrap_or(config.max_running_workers).max(1);
                    backends.push(BackendEntry { name: backend.name(), backend, cap, tiers: Vec::new() });
                    backends.len() - 1
                }
            };
            backends[index].tiers.push(tier);
            tier_backend.insert(tier, index);
        }
        let backend_count = backends.len();
        Roster {
            shared: Arc::new(Shared {
                backends,
                tier_backend,
                on_worker_event: setup.on_worker_event,
                config: config.clone(),
                workspace_root: workspace_root.to_path_buf(),
                links,
                state: Mutex::new(RosterState {
                    workers: Vec::new(),
                    running_per_backend: vec![0; backend_count],
                    shutting_down: false,
                    next_queue_ticket: 0,
                    closed_edits: HashMap::new(),
                }),
                changed: Condvar::new(),
            }),
        }
    }

    /// The configuration this roster runs under.
    pub fn config(&self) -> &VibeConfig {
        &self.shared.config
    }

    /// Whether the host gave a completion hook, so the model is told when a worker finishes.
    pub fn announces_completion(&self) -> bool {
        self.shared.on_worker_event.is_some()
    }

    /// What runs each tier, as the backend describes it (for tool descriptions and errors).
    pub fn backend_tier_description(&self, tier: WorkerTier) -> Option<String> {
        self.backend_of(tier).backend.describe_tier(tier)
    }

    /// The isolation `vibe_spawn` applies to `tier` when none is given.
    pub fn default_isolation(&self, tier: WorkerTier) -> WorkerIsolation {
        self.backend_of(tier).backend.default_isolation()
    }

    /// The longest `vibe_kill` / `vibe_send` may wait for a stop to be confirmed (the stop grace
    /// plus the slowest backend's confirmation time).
    pub fn stop_budget(&self) -> Duration {
        let slowest = self.shared.backends.iter().map(|entry| entry.backend.stop_confirmation_time()).max().unwrap_or_default();
        self.shared.config.stop_grace + slowest
    }

    /// Every backend with its tiers, cap and load; `probe` also asks each backend for its
    /// status lines (e.g. whether a cluster answers).
    pub fn backends(&self, probe: bool) -> Vec<BackendSummary> {
        let (running, queued) = {
            let state = self.shared.state.lock();
            let mut queued = vec![0usize; self.shared.backends.len()];
            for record in &state.workers {
                if record.requested_attempt.is_some() && record.running_attempt.is_none() && thread_alive(record) {
                    queued[record.backend_index] += 1;
                }
            }
            (state.running_per_backend.clone(), queued)
        };
        self.shared
            .backends
            .iter()
            .enumerate()
            .map(|(index, entry)| BackendSummary {
                name: entry.name.clone(),
                tiers: entry.tiers.clone(),
                cap: entry.cap,
                running: running[index],
                queued: queued[index],
                status_lines: if probe { entry.backend.status_lines() } else { Vec::new() },
            })
            .collect()
    }

    fn backend_of(&self, tier: WorkerTier) -> &BackendEntry {
        &self.shared.backends[self.shared.tier_backend.get(&tier).copied().unwrap_or(0)]
    }

    /// Starts a worker: records it as `worker_<n>` (attempt 1, status `pending`) and starts its
    /// thread, which runs the brief as soon as a slot of its backend is free. Returns at once,
    /// also when every slot is busy (the snapshot's `queued_behind` says how many attempts are
    /// ahead). `isolation` `None` uses the backend's default.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArguments`] for an empty brief or label, or `worktree` isolation in
    /// a workspace that is not a git repository with a commit; [`ErrorKind::Unavailable`] when
    /// the tier cannot run, [`VibeConfig::max_workers`] records exist, the run is ending, or the
    /// OS refuses a thread.
    pub fn spawn(
        &self,
        brief: &str,
        label: &str,
        tier: WorkerTier,
        caller: Caller,
        isolation: Option<WorkerIsolation>,
    ) -> Result<(WorkerSnapshot, Option<String>), ToolError> {
        if brief.trim().is_empty() {
            return Err(ToolError::invalid("vibe_spawn got an empty brief").with_hint("describe the task the worker should do"));
        }
        if label.trim().is_empty() {
            return Err(ToolError::invalid("vibe_spawn got an empty label").with_hint("give the worker a short label, e.g. \"fix tests\""));
        }
        let backend_index = self.shared.tier_backend.get(&tier).copied().unwrap_or(0);
        let backend = &self.shared.backends[backend_index];
        if let Err(reason) = backend.backend.check_tier(tier) {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("cannot start a {tier} worker: {reason}"))
                .with_hint("spawn with the other tier if it is configured, or do the work yourself"));
        }
        let (isolation, isolation_note) = self.choose_isolation(isolation, backend)?;
        let mut state = self.shared.state.lock();
        if state.shutting_down {
            return Err(ToolError::new(ErrorKind::Unavailable, "the run is ending; no worker can be started"));
        }
        let max_workers = self.shared.config.max_workers;
        if state.workers.len() >= max_workers {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("this run already has {max_workers} workers, the most it allows (finished ones are kept until the run ends)"),
            )
            .with_hint("reuse a finished worker with vibe_send, or do the work yourself"));
        }
        let index = state.workers.len();
        let now = Instant::now();
        state.next_queue_ticket += 1;
        let queue_ticket = state.next_queue_ticket;
        state.workers.push(WorkerRecord {
            worker_id: format!("worker_{}", index + 1),
            label: label.trim().to_owned(),
            tier,
            backend_index,
            caller,
            isolation,
            brief: brief.to_owned(),
            messages: Vec::new(),
            attempt: 1,
            status: WorkerStatus::Pending,
            spawned_at: now,
            attempt_requested_at: now,
            attempt_finished_at: None,
            attempt_deadline: None,
            last_result: None,
            last_result_attempt: None,
            progress: None,
            note: None,
            cancel: CancelToken::new(),
            requested_attempt: Some(1),
            queue_ticket,
            running_attempt: None,
            thread_active: false,
            thread: None,
            worktree: None,
            pending_edit: None,
            change: None,
            waiting_for_human: Vec::new(),
        });
        start_worker_thread(&self.shared, &mut state, index)?;
        self.shared.changed.notify_all();
        Ok((snapshot_of(&self.shared, &state, index, now), isolation_note))
    }

    /// The isolation a spawn gets, and a note when the backend's default could not apply.
    fn choose_isolation(
        &self,
        requested: Option<WorkerIsolation>,
        backend: &BackendEntry,
    ) -> Result<(WorkerIsolation, Option<String>), ToolError> {
        let wanted = requested.unwrap_or_else(|| backend.backend.default_isolation());
        if wanted == WorkerIsolation::None {
            return Ok((WorkerIsolation::None, None));
        }
        let usable = match (&self.shared.links.staging, GitWorkspace::probe(&self.shared.workspace_root)) {
            (None, _) => Err("this run has no staged-change store to return the worker's changes through".to_owned()),
            (Some(_), Err(reason)) => Err(reason),
            (Some(_), Ok(_)) => Ok(()),
        };
        match (usable, requested) {
            (Ok(()), _) => Ok((WorkerIsolation::Worktree, None)),
            (Err(reason), Some(_)) => Err(ToolError::invalid(reason).with_hint("spawn without isolation to work in the workspace itself")),
            (Err(reason), None) => Ok((
                WorkerIsolation::None,
                Some(format!(
                    "backend {} isolates workers in a git worktree by default, but {reason}; this worker runs without isolation{}",
                    backend.name,
                    if backend.backend.default_isolation() == WorkerIsolation::Worktree {
                        " and the files it changes remotely do not come back"
                    } else {
                        ""
                    }
                )),
            )),
        }
    }

    /// Appends `message` to the worker's brief and runs it again: a running attempt is
    /// cancelled (its process group killed) and the next attempt starts with the extended
    /// brief; a finished (completed, failed, killed, lost) worker starts a new attempt; a worker
    /// still waiting for its first slot just gets the longer brief. An isolated worker continues
    /// in its worktree (its pending edit, if any, is withdrawn: the next attempt stages the
    /// whole change again). Waits at most the stop budget for a running attempt to stop.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id; [`ErrorKind::InvalidArguments`] for an empty
    /// message; [`ErrorKind::Unavailable`] when the run is ending or the OS refuses a thread.
    pub fn send(&self, worker_id: &str, message: &str) -> Result<SendReport, ToolError> {
        if message.trim().is_empty() {
            return Err(ToolError::invalid("vibe_send got an empty message").with_hint("say what the worker should do differently or next"));
        }
        // Withdraw the pending edit first, without the state lock (its close hook takes it).
        let withdrawn_edit = {
            let mut state = self.shared.state.lock();
            let index = find_worker(&state, worker_id)?;
            let record = &mut state.workers[index];
            let next_attempt = record.attempt + 1;
            record.pending_edit.take().map(|edit_id| (edit_id, next_attempt))
        };
        let withdrawn_edit = match (withdrawn_edit, &self.shared.links.staging) {
            (Some((edit_id, next_attempt)), Some(staging)) => {
                staging.changes.withdraw(&edit_id, &format!("superseded by attempt {next_attempt}, which continues in the same worktree"));
                Some(edit_id)
            }
            _ => None,
        };
        let mut state = self.shared.state.lock();
        let index = find_worker(&state, worker_id)?;
        if state.shutting_down {
            return Err(ToolError::new(ErrorKind::Unavailable, "the run is ending; no worker can be restarted"));
        }
        let now = Instant::now();
        let previous_status = effective_status(&state.workers[index]);
        let previous_attempt = state.workers[index].attempt;
        state.next_queue_ticket += 1;
        let queue_ticket = state.next_queue_ticket;
        let record = &mut state.workers[index];
        record.messages.push(message.to_owned());
        if record.requested_attempt.is_some() && thread_alive(record) {
            // The next attempt has not started yet: it reads the extended brief when it starts.
            let snapshot = snapshot_of(&self.shared, &state, index, now);
            return Ok(SendReport {
                previous_status,
                previous_attempt,
                previous_attempt_stopped: true,
                merged_into_pending_attempt: true,
                withdrawn_edit,
                snapshot,
            });
        }
        let old_running_attempt = record.running_attempt;
        record.cancel.cancel();
        record.cancel = CancelToken::new();
        record.attempt += 1;
        record.requested_attempt = Some(record.attempt);
        record.queue_ticket = queue_ticket;
        record.status = WorkerStatus::Pending;
        record.attempt_requested_at = now;
        record.attempt_finished_at = None;
        record.attempt_deadline = None;
        record.progress = None;
        record.note = old_running_attempt.map(|attempt| format!("attempt {attempt} was cancelled by vibe_send"));
        if !thread_alive(record) {
            start_worker_thread(&self.shared, &mut state, index)?;
        }
        self.shared.changed.notify_all();
        let previous_attempt_stopped = match old_running_attempt {
            Some(old_attempt) => {
                let stop_deadline = Instant::now() + self.stop_budget();
                wait_while(&self.shared, &mut state, stop_deadline, |state| state.workers[index].running_attempt == Some(old_attempt))
            }
            None => true,
        };
        let snapshot = snapshot_of(&self.shared, &state, index, Instant::now());
        Ok(SendReport {
            previous_status,
            previous_attempt,
            previous_attempt_stopped,
            merged_into_pending_attempt: false,
            withdrawn_edit,
            snapshot,
        })
    }

    /// Blocks until the worker is finished (completed, failed, killed, lost), `timeout` passes
    /// (clamped to [`VibeConfig::wait_min`]..=[`VibeConfig::wait_max`] and to `not_after`), or
    /// `cancel` is set. A worker restarted by `vibe_send` is waited for in its new attempt. It
    /// returns within about 100 ms of its deadline (the condition-variable slice), however
    /// many workers run.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id.
    pub fn wait(&self, worker_id: &str, timeout: Duration, not_after: Instant, cancel: &CancelToken) -> Result<WaitReport, ToolError> {
        let started = Instant::now();
        let applied_timeout = self.clamp_wait(timeout);
        let deadline = (started + applied_timeout).min(not_after);
        let mut state = self.shared.state.lock();
        let index = find_worker(&state, worker_id)?;
        loop {
            enforce_attempt_deadlines(&mut state);
            if effective_status(&state.workers[index]).is_finished() {
                let now = Instant::now();
                let snapshot = snapshot_of(&self.shared, &state, index, now);
                return Ok(WaitReport { timed_out: false, cancelled: false, waited: now - started, applied_timeout, snapshot });
            }
            let now = Instant::now();
            if cancel.is_cancelled() || now >= deadline {
                let snapshot = snapshot_of(&self.shared, &state, index, now);
                return Ok(WaitReport {
                    timed_out: !cancel.is_cancelled(),
                    cancelled: cancel.is_cancelled(),
                    waited: now - started,
                    applied_timeout,
                    snapshot,
                });
            }
            // Progress for the host while the model waits: the worker's status and its latest
            // progress line; `progress` = seconds waited of the wait's bound.
            crate::progress::report_with(|| {
                let worker = snapshot_of(&self.shared, &state, index, now);
                let latest = worker.progress.map(|line| format!(": {line}")).unwrap_or_default();
                crate::progress::ProgressUpdate::new((now - started).as_secs_f64())
                    .with_total((deadline - started).as_secs_f64())
                    .with_message(format!(
                        "waiting for {} ({:?}), {} in attempt {}{latest}",
                        worker.worker_id, worker.label, worker.status, worker.attempt
                    ))
            });
            let slice_end = (now + WAIT_SLICE).min(deadline);
            self.shared.changed.wait_until(&mut state, slice_end);
        }
    }

    /// Stops the worker: cancels its attempt (the backend kills its process group, or stops
    /// its Ray job) and waits at most the stop budget ([`Roster::stop_budget`]) for the backend
    /// to confirm. Until it does, the worker is `stopping`; then `killed`. The record, its last
    /// result, and its worktree (for a later `vibe_send`) stay. Killing a finished worker
    /// changes nothing and says so.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id.
    pub fn kill(&self, worker_id: &str) -> Result<KillReport, ToolError> {
        let started = Instant::now();
        let mut state = self.shared.state.lock();
        let index = find_worker(&state, worker_id)?;
        let previous_status = effective_status(&state.workers[index]);
        if previous_status.is_finished() {
            let snapshot = snapshot_of(&self.shared, &state, index, Instant::now());
            return Ok(KillReport { previous_status, stopped: true, waited: Duration::ZERO, snapshot });
        }
        let now = Instant::now();
        let record = &mut state.workers[index];
        let running_attempt = record.running_attempt;
        record.cancel.cancel();
        record.requested_attempt = None;
        record.status = WorkerStatus::Killed;
        record.attempt_finished_at = Some(now);
        record.progress = None;
        record.note = Some(match running_attempt {
            Some(attempt) => format!("killed by vibe_kill during attempt {attempt}"),
            None => format!("killed by vibe_kill before attempt {} started", record.attempt),
        });
        self.shared.changed.notify_all();
        let budget = self.stop_budget();
        let stopped = match running_attempt {
            Some(attempt) => {
                let stop_deadline = Instant::now() + budget;
                wait_while(&self.shared, &mut state, stop_deadline, |state| state.workers[index].running_attempt == Some(attempt))
            }
            None => true,
        };
        if !stopped {
            state.workers[index].note = Some(format!(
                "vibe_kill asked the backend to stop attempt {}, which it had not confirmed after {} ms; the worker shows \
                 `stopping` until it does (its slot stays taken)",
                running_attempt.unwrap_or_default(),
                budget.as_millis()
            ));
        }
        let snapshot = snapshot_of(&self.shared, &state, index, Instant::now());
        Ok(KillReport { previous_status, stopped, waited: started.elapsed(), snapshot })
    }

    /// Every worker of the run, in spawn order.
    pub fn list(&self) -> Vec<WorkerSnapshot> {
        let mut state = self.shared.state.lock();
        enforce_attempt_deadlines(&mut state);
        let now = Instant::now();
        (0..state.workers.len()).map(|index| snapshot_of(&self.shared, &state, index, now)).collect()
    }

    /// One worker's record.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id.
    pub fn snapshot(&self, worker_id: &str) -> Result<WorkerSnapshot, ToolError> {
        let state = self.shared.state.lock();
        let index = find_worker(&state, worker_id)?;
        Ok(snapshot_of(&self.shared, &state, index, Instant::now()))
    }

    /// The timeout `vibe_wait` applies for a requested `timeout`.
    pub fn clamp_wait(&self, timeout: Duration) -> Duration {
        let config = &self.shared.config;
        timeout.max(config.wait_min).min(config.wait_max.max(config.wait_min))
    }
}

impl Drop for Roster {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock();
        state.shutting_down = true;
        let now = Instant::now();
        for record in &mut state.workers {
            record.cancel.cancel();
            record.requested_attempt = None;
            if !record.status.is_finished() {
                record.status = WorkerStatus::Killed;
                record.attempt_finished_at = Some(now);
                record.note = Some("killed because the run ended".to_owned());
            }
        }
        self.shared.changed.notify_all();
        // A host's worker may hold the last reference to the run; never wait for, or join, the
        // thread this drop runs on.
        let current = std::thread::current().id();
        let is_current = |record: &WorkerRecord| record.thread.as_ref().is_some_and(|handle| handle.thread().id() == current);
        let slowest = self.shared.backends.iter().map(|entry| entry.backend.stop_confirmation_time()).max().unwrap_or_default();
        let stop_deadline = Instant::now() + self.shared.config.stop_grace + slowest;
        wait_while(&self.shared, &mut state, stop_deadline, |state| {
            state.workers.iter().any(|record| record.thread_active && !is_current(record))
        });
        let handles: Vec<JoinHandle<()>> = state
            .workers
            .iter_mut()
            .filter(|record| !record.thread_active && !is_current(record))
            .filter_map(|record| record.thread.take())
            .collect();
        // Worktrees end with the run (a pending edit keeps its bytes in the store, not here).
        let worktrees: Vec<Arc<Worktree>> = state
            .workers
            .iter_mut()
            .filter(|record| !record.thread_active || is_current(record))
            .filter_map(|record| record.worktree.take())
            .collect();
        drop(state);
        // Threads that did not stop within the grace period are left detached: joining them
        // would block the host without bound.
        for handle in handles {
            let _ = handle.join();
        }
        drop(worktrees);
    }
}

impl std::fmt::Debug for Roster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.shared.state.lock();
        f.debug_struct("Roster").field("workers", &state.workers.len()).field("running_per_backend", &state.running_per_backend).finish()
    }
}

impl WorkerSnapshot {
    /// `waiting for the human (permission card 4: …)` when cards are open, else `None`.
    pub fn waiting_line(&self) -> Option<String> {
        match self.waiting_for_human.as_slice() {
            [] => None,
            [one] => Some(format!("waiting for the human ({one})")),
            [first, rest @ ..] => Some(format!("waiting for the human ({first}; and {} more)", plural(rest.len(), "card"))),
        }
    }
}

impl WorkerChangeSummary {
    /// One line: `3 files changed (+10 −2), staged as edit_4 (pending: resolve accept or
    /// discard)`, `no changes`, or `2 files changed (+1 −1), not staged: …`.
    pub fn line(&self) -> String {
        if self.files == 0 && self.edit_id.is_none() {
            let mut line = format!("attempt {}: no file changed in the worktree", self.attempt);
            if !self.left_out.is_empty() {
                line.push_str(&format!("; left out: {}", self.left_out.join("; ")));
            }
            return line;
        }
        let mut line =
            format!("attempt {}: {} changed (+{} −{})", self.attempt, plural(self.files, "file"), self.lines_added, self.lines_removed);
        match &self.edit_id {
            Some(edit_id) => line.push_str(&format!(", staged as {edit_id} ({})", self.state)),
            None => line.push_str(&format!(", {}", self.state)),
        }
        if !self.left_out.is_empty() {
            line.push_str(&format!("; left out: {}", self.left_out.join("; ")));
        }
        line
    }
}

fn find_worker(state: &RosterState, worker_id: &str) -> Result<usize, ToolError> {
    let trimmed = worker_id.trim();
    let index = trimmed
        .strip_prefix("worker_")
        .and_then(|number| number.parse::<usize>().ok())
        .filter(|&number| number >= 1 && number <= state.workers.len())
        .map(|number| number - 1);
    if let Some(index) = index {
        return Ok(index);
    }
    let known = match state.workers.len() {
        0 => "this run has no workers yet; start one with vibe_spawn".to_owned(),
        1 => "the only worker is worker_1".to_owned(),
        n => format!("workers are worker_1 … worker_{n}; vibe_list shows them"),
    };
    Err(ToolError::new(ErrorKind::NotFound, format!("no worker {trimmed:?} in this run")).with_hint(known))
}

/// The status, with `lost` derived from the live thread (a record that says pending or
/// running whose thread has ended, or never started, is lost) and `stopping` from a kill whose
/// attempt has not returned yet.
fn effective_status(record: &WorkerRecord) -> WorkerStatus {
    if record.status == WorkerStatus::Killed && record.running_attempt.is_some() && thread_alive(record) {
        return WorkerStatus::Stopping;
    }
    if record.status.is_finished() {
        return record.status;
    }
    if thread_alive(record) {
        record.status
    } else {
        WorkerStatus::Lost
    }
}

/// Whether the worker's thread exists and has not ended.
fn thread_alive(record: &WorkerRecord) -> bool {
    record.thread_active && record.thread.as_ref().is_some_and(|handle| !handle.is_finished())
}

/// How many attempts of the same backend were requested before `index`'s and still wait.
fn queued_ahead(state: &RosterState, index: usize) -> usize {
    let me = &state.workers[index];
    state
        .workers
        .iter()
        .filter(|record| {
            record.backend_index == me.backend_index
                && record.requested_attempt.is_some()
                && record.running_attempt.is_none()
                && thread_alive(record)
                && record.queue_ticket < me.queue_ticket
        })
        .count()
}

fn snapshot_of(shared: &Shared, state: &RosterState, index: usize, now: Instant) -> WorkerSnapshot {
    let record = &state.workers[index];
    let status = effective_status(record);
    let note = match (status, record.status) {
        (WorkerStatus::Lost, recorded) if recorded != WorkerStatus::Lost => {
            Some(format!("the record said {recorded} but the worker's thread is gone; send a message to start a new attempt"))
        }
        _ => record.note.clone(),
    };
    let end = record.attempt_finished_at.filter(|_| status != WorkerStatus::Stopping).unwrap_or(now);
    let queued_behind = (status == WorkerStatus::Pending && record.running_attempt.is_none()).then(|| queued_ahead(state, index));
    WorkerSnapshot {
        worker_id: record.worker_id.clone(),
        label: record.label.clone(),
        tier: record.tier,
        backend: shared.backends[record.backend_index].name.clone(),
        caller: record.caller,
        isolation: record.isolation,
        status,
        attempt: record.attempt,
        elapsed: end.saturating_duration_since(record.attempt_requested_at),
        since_spawn: now.saturating_duration_since(record.spawned_at),
        last_result: record.last_result.clone(),
        last_result_attempt: record.last_result_attempt,
        progress: record.progress.clone(),
        note,
        queued_behind,
        waiting_for_human: record.waiting_for_human.iter().map(|(_, line)| line.clone()).collect(),
        worktree: record.worktree.as_ref().map(|worktree| (worktree.root().to_path_buf(), worktree.branch().to_owned())),
        change: record.change.clone(),
    }
}

/// Cancels attempts that ran past their deadline (a backend that ignores its deadline is
/// still told to stop; the command backend enforces its own).
fn enforce_attempt_deadlines(state: &mut RosterState) {
    let now = Instant::now();
    for record in &mut state.workers {
        let overdue = record.running_attempt.is_some() && record.attempt_deadline.is_some_and(|deadline| now >= deadline);
        if overdue && !record.cancel.is_cancelled() {
            record.cancel.cancel();
        }
    }
}

/// Waits on the roster's condition variable while `condition` holds, until `deadline`.
/// Returns `true` when the condition stopped holding.
fn wait_while(
    shared: &Shared,
    state: &mut MutexGuard<'_, RosterState>,
    deadline: Instant,
    mut condition: impl FnMut(&RosterState) -> bool,
) -> bool {
    loop {
        if !condition(state) {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        shared.changed.wait_until(state, (now + WAIT_SLICE).min(deadline));
    }
}

fn start_worker_thread(shared: &Arc<Shared>, state: &mut RosterState, index: usize) -> Result<(), ToolError> {
    let record = &mut state.workers[index];
    // The previous thread (if any) set `thread_active = false` under this lock and touches the
    // state no more: joining it here is immediate.
    if let Some(previous) = record.thread.take() {
        let _ = previous.join();
    }
    let thread_shared = Arc::clone(shared);
    let spawned =
        std::thread::Builder::new().name(format!("vibe-{}", record.worker_id)).spawn(move || worker_thread_main(&thread_shared, index));
    match spawned {
        Ok(handle) => {
            record.thread = Some(handle);
            record.thread_active = true;
            Ok(())
        }
        Err(err) => {
            record.requested_attempt = None;
            record.status = WorkerStatus::Failed;
            record.attempt_finished_at = Some(Instant::now());
            record.note = Some(format!("the OS refused a thread for this worker: {err}"));
            Err(ToolError::new(ErrorKind::Unavailable, format!("cannot start a thread for {}: {err}", record.worker_id))
                .with_hint("wait for other workers to finish (vibe_wait), then retry"))
        }
    }
}

struct AttemptStart {
    attempt: u32,
    brief: String,
    cancel: CancelToken,
    deadline: Instant,
    worker_id: String,
    label: String,
    tier: WorkerTier,
    caller: Caller,
    backend_index: usize,
    isolation: WorkerIsolation,
    worktree: Option<Arc<Worktree>>,
}

/// What a [`WorkerJob`] reaches of the roster during one attempt: the lost flag, the ask
/// channel (started on first use) and the ask port.
pub(crate) struct AttemptLink {
    shared: Weak<Shared>,
    index: usize,
    worker_label: String,
    has_human: bool,
    relays_questions: bool,
    lost: Mutex<Option<String>>,
    channel: Mutex<ChannelState>,
}

enum ChannelState {
    NotStarted,
    Open(AskChannelHost),
    Failed,
}

impl AttemptLink {
    fn new(shared: &Arc<Shared>, index: usize, start: &AttemptStart) -> AttemptLink {
        AttemptLink {
            shared: Arc::downgrade(shared),
            index,
            worker_label: format!("{}: {}", start.worker_id, start.label),
            has_human: shared.links.ask.is_some(),
            relays_questions: shared.config.relay_worker_questions,
            lost: Mutex::new(None),
            channel: Mutex::new(ChannelState::NotStarted),
        }
    }

    pub(crate) fn mark_lost(&self, reason: &str) {
        *self.lost.lock() = Some(reason.to_owned());
    }

    pub(crate) fn has_human(&self) -> bool {
        self.has_human
    }

    pub(crate) fn relays_questions(&self) -> bool {
        self.relays_questions
    }

    /// The target space of the run's ask port (where relayed cards are shown), empty without one.
    pub(crate) fn ask_target_space(&self) -> String {
        self.shared.upgrade().and_then(|shared| shared.links.ask.as_ref().map(|binding| binding.target_space.clone())).unwrap_or_default()
    }

    /// The ask channel's directory, starting the channel on first use; `None` without a port.
    pub(crate) fn ask_channel_path(&self) -> Option<PathBuf> {
        if !self.has_human {
            return None;
        }
        let mut channel = self.channel.lock();
        if let ChannelState::NotStarted = *channel {
            let shared = self.shared.clone();
            let index = self.index;
            let label = self.worker_label.clone();
            let target_space = self.ask_target_space();
            let description = ChannelDescription {
                version: 1,
                worker_label: self.worker_label.clone(),
                questions: self.relays_questions,
                parent_target_space: target_space,
            };
            let thread_name = format!("vibe-{}-ask", self.worker_label.split(':').next().unwrap_or("worker"));
            let answer = Arc::new(move |card: &RelayedCard| match shared.upgrade() {
                Some(shared) => ask_human(&shared, index, &label, card),
                None => AskOutcome::NoHuman { reason: "the run that spawned this worker has ended".to_owned() },
            });
            *channel = match AskChannelHost::start(description, &thread_name, answer) {
                Ok(host) => ChannelState::Open(host),
                Err(_) => ChannelState::Failed,
            };
        }
        match &*channel {
            ChannelState::Open(host) => Some(host.path().to_path_buf()),
            _ => None,
        }
    }

    pub(crate) fn ask_human(&self, card: &RelayedCard) -> AskOutcome {
        match self.shared.upgrade() {
            Some(shared) => ask_human(&shared, self.index, &self.worker_label, card),
            None => AskOutcome::NoHuman { reason: "the run that spawned this worker has ended".to_owned() },
        }
    }

    fn close_channel(&self) {
        let previous = std::mem::replace(&mut *self.channel.lock(), ChannelState::Failed);
        drop(previous);
    }

    fn take_lost(&self) -> Option<String> {
        self.lost.lock().take()
    }
}

/// Shows a card relayed from inside worker `index` on the run's ask port, labelled with the
/// worker; marks the worker as waiting for the human meanwhile. Fails closed: no port, or
/// questions not relayed, is `no human` at once.
fn ask_human(shared: &Shared, index: usize, worker_label: &str, card: &RelayedCard) -> AskOutcome {
    let Some(binding) = shared.links.ask.as_ref() else {
        return AskOutcome::NoHuman { reason: "the run that spawned this worker has no human attached".to_owned() };
    };
    if card.kind == CardKind::Question && !shared.config.relay_worker_questions {
        return AskOutcome::NoHuman { reason: "the run that spawned this worker does not relay its workers' questions".to_owned() };
    }
    let number = binding.next_card_number();
    let shown = card.to_card(number, &binding.target_space, worker_label);
    let config = binding.config();
    let own_limit = match card.kind {
        CardKind::Question => config.question_timeout,
        CardKind::Permission => config.permission_timeout,
    };
    let timeout = card.timeout().min(own_limit);
    let kind = match card.kind {
        CardKind::Question => "question",
        CardKind::Permission => "permission",
    };
    {
        let mut state = shared.state.lock();
        if let Some(record) = state.workers.get_mut(index) {
            record.waiting_for_human.push((number, format!("{kind} card {number}: {}", cut_chars(&card.question, 80))));
        }
        shared.changed.notify_all();
    }
    let outcome = binding.port.ask(&shown, timeout);
    {
        let mut state = shared.state.lock();
        if let Some(record) = state.workers.get_mut(index) {
            record.waiting_for_human.retain(|(open, _)| *open != number);
        }
        shared.changed.notify_all();
    }
    outcome
}

fn worker_thread_main(shared: &Arc<Shared>, index: usize) {
    loop {
        let Some(start) = claim_next_attempt(shared, index) else {
            return;
        };
        let progress_shared = Arc::clone(shared);
        let progress_attempt = start.attempt;
        let report_progress = move |text: &str| {
            let mut state = progress_shared.state.lock();
            let record = &mut state.workers[index];
            if record.running_attempt == Some(progress_attempt) {
                record.progress = Some(cut_chars_with(text.trim(), PROGRESS_MAX_CHARS, "progress line cut"));
            }
        };
        let attempt_started = Instant::now();
        let link = Arc::new(AttemptLink::new(shared, index, &start));
        let prepared = prepare_isolation(shared, index, &start, &report_progress);
        let outcome = match &prepared {
            Err(message) => Err(message.clone()),
            Ok(worktree) => {
                let working_dir = worktree.as_ref().map_or_else(|| shared.workspace_root.clone(), |worktree| worktree.working_dir());
                let job = WorkerJob {
                    worker_id: &start.worker_id,
                    label: &start.label,
                    tier: start.tier,
                    attempt: start.attempt,
                    brief: &start.brief,
                    caller: start.caller,
                    workspace_trust: shared.links.workspace_trust,
                    workspace_root: &shared.workspace_root,
                    working_dir: &working_dir,
                    isolation: start.isolation,
                    deadline: start.deadline,
                    cancel: &start.cancel,
                    progress: &report_progress,
                    attempt_link: &link,
                };
                let backend = &shared.backends[start.backend_index].backend;
                match catch_unwind(AssertUnwindSafe(|| backend.run_attempt(&job))) {
                    Ok(outcome) => outcome,
                    Err(panic) => Err(format!("the worker backend panicked: {}", panic_text(&*panic))),
                }
            }
        };
        link.close_channel();
        let lost = link.take_lost();
        let timed_out = Instant::now() >= start.deadline;
        let change = match &prepared {
            Ok(Some(worktree)) if !start.cancel.is_cancelled() || timed_out => {
                report_progress("reading what the attempt changed in its worktree");
                Some(collect_change(shared, index, &start, worktree, outcome.is_ok() && lost.is_none()))
            }
            _ => None,
        };
        let (event, released_worktree) = record_outcome(shared, index, &start, attempt_started, outcome, timed_out, lost, change);
        // Removed (git worktree remove) without the roster lock.
        drop(released_worktree);
        if let (Some(event), Some(callback)) = (event, &shared.on_worker_event) {
            let _ = catch_unwind(AssertUnwindSafe(|| callback(&event)));
        }
    }
}

/// Creates the worker's worktree for an isolated attempt (or reuses the one it has).
fn prepare_isolation(
    shared: &Shared,
    index: usize,
    start: &AttemptStart,
    report_progress: &dyn Fn(&str),
) -> Result<Option<Arc<Worktree>>, String> {
    if start.isolation == WorkerIsolation::None {
        return Ok(None);
    }
    if let Some(worktree) = &start.worktree {
        return Ok(Some(Arc::clone(worktree)));
    }
    report_progress("creating a git worktree of the workspace (HEAD plus the uncommitted changes)");
    let repo = GitWorkspace::probe(&shared.workspace_root)?;
    let worktree = Arc::new(Worktree::create(&repo, &start.worker_id)?);
    let mut state = shared.state.lock();
    if state.workers[index].worktree.is_none() && !state.shutting_down {
        state.workers[index].worktree = Some(Arc::clone(&worktree));
    }
    Ok(Some(worktree))
}

/// Reads what an isolated attempt changed and, when it completed, stages it.
fn collect_change(shared: &Arc<Shared>, index: usize, start: &AttemptStart, worktree: &Worktree, completed: bool) -> PendingChange {
    let changes = match worktree.changes() {
        Ok(changes) => changes,
        Err(err) => {
            return PendingChange::summary_only(start.attempt, 0, 0, 0, Vec::new(), format!("not staged: {err}"));
        }
    };
    let files = worker_changed_files(&shared.workspace_root, &changes);
    let added: usize = files.iter().map(|file| file.lines_added).sum();
    let removed: usize = files.iter().map(|file| file.lines_removed).sum();
    if files.is_empty() {
        return PendingChange::summary_only(start.attempt, 0, 0, 0, changes.left_out, "no changes".to_owned());
    }
    if !completed {
        return PendingChange::summary_only(
            start.attempt,
            files.len(),
            added,
            removed,
            changes.left_out,
            "not staged: the attempt did not complete; the changes stay in the worktree, and vibe_send continues there".to_owned(),
        );
    }
    let Some(staging) = shared.links.staging.as_ref() else {
        return PendingChange::summary_only(
            start.attempt,
            files.len(),
            added,
            removed,
            changes.left_out,
            "not staged: this run has no staged-change store".to_owned(),
        );
    };
    let mut warnings: Vec<String> = changes.left_out.iter().map(|item| format!("left out of the staged change: {item}")).collect();
    for changed in &changes.files {
        if let Some(note) = &changed.mode_note {
            warnings.push(format!("{}: {note}", changed.relative_path.display()));
        }
    }
    let drifted = drifted_files(&shared.workspace_root, &files);
    if !drifted.is_empty() {
        warnings.push(format!(
            "changed in the workspace since {} started (accept will be rejected for them): {}",
            start.worker_id,
            drifted.join(", ")
        ));
    }
    let description = format!("{}: {}, attempt {}", start.worker_id, start.label, start.attempt);
    let hook_shared = Arc::downgrade(shared);
    let hook: crate::staged::ClosedHook = Box::new(move |edit_id: &str, how: &str| {
        if let Some(shared) = hook_shared.upgrade() {
            edit_closed(&shared, index, edit_id, how);
        }
    });
    let change = crate::staged::StagedChange {
        tool: "vibe_spawn",
        description: format!("the change of {description}"),
        change_noun: "changed line",
        files: files.iter().map(WorkerChangedFile::staged_file).collect(),
        warnings,
        write_check_blind_spots: Vec::new(),
        restage_hint: Some(
            "the worker's change was staged against older files: vibe_send the worker to redo it on the current files, or make \
             the change yourself"
                .to_owned(),
        ),
        // A worker's finished work cannot be staged again without running the worker again.
        held: true,
        moved_directories: Vec::new(),
    };
    let staged = staging.stage_with_hook(change, Some(hook));
    let mut state_text = "pending: resolve accept or discard".to_owned();
    if !staged.evicted.is_empty() {
        state_text.push_str(&format!(" (older pending edits dropped to make room: {})", staged.evicted.join(", ")));
    }
    PendingChange {
        summary: WorkerChangeSummary {
            attempt: start.attempt,
            files: files.len(),
            lines_added: added,
            lines_removed: removed,
            edit_id: Some(staged.edit_id.clone()),
            state: state_text,
            left_out: changes.left_out,
            preview: staged.preview.text,
        },
        edit_id: Some(staged.edit_id),
    }
}

/// One file of a worker's change, addressed in the parent's workspace, with its line counts.
#[derive(Debug, Clone)]
struct WorkerChangedFile {
    /// Absolute path in the parent's workspace.
    path: PathBuf,
    /// Path relative to the workspace, for messages.
    display: String,
    /// The bytes the worker started from; `None`: the worker created the file.
    original: Option<Vec<u8>>,
    /// The bytes the worker left; `None`: it deleted the file.
    new_content: Option<Vec<u8>>,
    lines_added: usize,
    lines_removed: usize,
}

impl WorkerChangedFile {
    /// The file as the run's staged-change store takes it (changes = lines added + removed).
    fn staged_file(&self) -> crate::staged::StagedFile {
        let operation = match (&self.original, &self.new_content) {
            (None, _) => crate::staged::PlannedOperation::Created,
            (_, None) => crate::staged::PlannedOperation::Deleted,
            _ => crate::staged::PlannedOperation::Modified,
        };
        crate::staged::StagedFile {
            path: self.path.clone(),
            display: self.display.clone(),
            original: self.original.clone(),
            new_content: self.new_content.clone(),
            changes: self.lines_added + self.lines_removed,
            operation,
            new_file_mode: None,
        }
    }
}

/// The files (their display names) whose workspace copy differs from what the worker started
/// from. Each is read beneath a handle of `workspace_root` with no symlink followed at use time
/// (issue 13 §1), so a workspace directory swapped for a symlink cannot make this compare (or
/// read) a file outside the workspace: a file that cannot be read that way now — a symlink on
/// its path, a directory in its place, the root gone — counts as changed; a missing file is
/// changed only when it existed at the start.
fn drifted_files<'f>(workspace_root: &Path, files: &'f [WorkerChangedFile]) -> Vec<&'f str> {
    let reader = crate::files::WorkspaceReader::open(workspace_root).ok();
    files
        .iter()
        .filter(|file| match reader.as_ref().map(|reader| reader.read(&file.path)) {
            Some(Ok(current)) => file.original.as_deref() != Some(current.as_slice()),
            Some(Err(err)) if err.kind == crate::error::ErrorKind::NotFound => file.original.is_some(),
            _ => true,
        })
        .map(|file| file.display.as_str())
        .collect()
}

/// The worktree's changes addressed in the parent's workspace, with line counts.
fn worker_changed_files(workspace_root: &Path, changes: &WorktreeChanges) -> Vec<WorkerChangedFile> {
    changes
        .files
        .iter()
        .map(|changed| {
            let old = changed.old.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
            let new = changed.new.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
            let (mut lines_added, mut lines_removed) = (0, 0);
            for change in similar::TextDiff::from_lines(old.as_ref(), new.as_ref()).iter_all_changes() {
                match change.tag() {
                    similar::ChangeTag::Insert => lines_added += 1,
                    similar::ChangeTag::Delete => lines_removed += 1,
                    similar::ChangeTag::Equal => {}
                }
            }
            WorkerChangedFile {
                path: workspace_root.join(&changed.relative_path),
                display: changed.relative_path.to_string_lossy().into_owned(),
                original: changed.old.clone(),
                new_content: changed.new.clone(),
                lines_added,
                lines_removed,
            }
        })
        .collect()
}

/// A staged worker edit left the store: record how, and remove the worktree when the edit was
/// still the worker's current one (resolved, rejected, evicted or the run ended; not when a
/// newer attempt withdrew it and continues in the worktree).
fn edit_closed(shared: &Shared, index: usize, edit_id: &str, how: &str) {
    let worktree = {
        let mut state = shared.state.lock();
        let Some(record) = state.workers.get_mut(index) else { return };
        if let Some(change) = record.change.as_mut().filter(|change| change.edit_id.as_deref() == Some(edit_id)) {
            change.state = how.to_owned();
        }
        let current = record.pending_edit.as_deref() == Some(edit_id);
        let worktree = if current {
            record.pending_edit = None;
            let idle = record.running_attempt.is_none() && record.requested_attempt.is_none();
            if idle {
                record.worktree.take()
            } else {
                None
            }
        } else {
            None
        };
        if !current && record.change.as_ref().is_none_or(|change| change.edit_id.as_deref() != Some(edit_id)) {
            // Closed before the attempt recorded it (evicted at once).
            state.closed_edits.insert(edit_id.to_owned(), how.to_owned());
        }
        shared.changed.notify_all();
        worktree
    };
    // git worktree remove runs without the roster lock.
    drop(worktree);
}

struct PendingChange {
    summary: WorkerChangeSummary,
    edit_id: Option<String>,
}

impl PendingChange {
    fn summary_only(attempt: u32, files: usize, added: usize, removed: usize, left_out: Vec<String>, state: String) -> PendingChange {
        PendingChange {
            summary: WorkerChangeSummary {
                attempt,
                files,
                lines_added: added,
                lines_removed: removed,
                edit_id: None,
                state,
                left_out,
                preview: String::new(),
            },
            edit_id: None,
        }
    }
}

/// Waits (as `pending`) for a free slot of the worker's backend and claims the requested
/// attempt; `None` when there is nothing to run (the thread then ends, marked inactive under
/// the lock).
fn claim_next_attempt(shared: &Shared, index: usize) -> Option<AttemptStart> {
    let mut state = shared.state.lock();
    let backend_index = state.workers[index].backend_index;
    let cap = shared.backends[backend_index].cap;
    loop {
        let nothing_to_run = state.shutting_down || state.workers[index].requested_attempt.is_none();
        if nothing_to_run {
            state.workers[index].thread_active = false;
            shared.changed.notify_all();
            return None;
        }
        let my_ticket = state.workers[index].queue_ticket;
        let first_in_line = state
            .workers
            .iter()
            // Only threads actually waiting for a slot of the same backend: one still stopping
            // a cancelled attempt must not hold up the line.
            .filter(|record| {
                record.backend_index == backend_index
                    && record.requested_attempt.is_some()
                    && record.running_attempt.is_none()
                    && thread_alive(record)
            })
            .all(|record| record.queue_ticket >= my_ticket);
        if first_in_line && state.running_per_backend[backend_index] < cap {
            break;
        }
        shared.changed.wait_for(&mut state, WAIT_SLICE);
    }
    state.running_per_backend[backend_index] += 1;
    let now = Instant::now();
    let deadline = now + shared.config.attempt_timeout;
    let record = &mut state.workers[index];
    let attempt = record.requested_attempt.take().unwrap_or(record.attempt);
    record.running_attempt = Some(attempt);
    record.status = WorkerStatus::Running;
    record.attempt_deadline = Some(deadline);
    record.progress = None;
    let start = AttemptStart {
        attempt,
        brief: compose_brief(&record.brief, &record.messages),
        cancel: record.cancel.clone(),
        deadline,
        worker_id: record.worker_id.clone(),
        label: record.label.clone(),
        tier: record.tier,
        caller: record.caller,
        backend_index,
        isolation: record.isolation,
        worktree: record.worktree.clone(),
    };
    shared.changed.notify_all();
    Some(start)
}

#[allow(clippy::too_many_arguments)]
fn record_outcome(
    shared: &Shared,
    index: usize,
    start: &AttemptStart,
    attempt_started: Instant,
    outcome: Result<String, String>,
    timed_out: bool,
    lost: Option<String>,
    change: Option<PendingChange>,
) -> (Option<WorkerEvent>, Option<Arc<Worktree>>) {
    let mut state = shared.state.lock();
    state.running_per_backend[start.backend_index] = state.running_per_backend[start.backend_index].saturating_sub(1);
    let shutting_down = state.shutting_down;
    let closed_early = change.as_ref().and_then(|change| change.edit_id.as_ref()).and_then(|edit_id| state.closed_edits.remove(edit_id));
    let record = &mut state.workers[index];
    record.running_attempt = None;
    record.waiting_for_human.clear();
    shared.changed.notify_all();
    // Superseded by vibe_send, stopped by vibe_kill, or the run is ending: the cancelling side
    // already set the status, and the (partial) output of a cancelled attempt is not a result.
    let superseded = record.attempt != start.attempt || record.status != WorkerStatus::Running;
    if superseded || shutting_down || (start.cancel.is_cancelled() && !timed_out) {
        // A killed attempt's own last word is how the backend confirmed the stop (e.g. "Ray
        // reports job … STOPPED after 1.2 s"): kept on the note, never as a result.
        if record.status == WorkerStatus::Killed && record.attempt == start.attempt {
            if let Err(message) = &outcome {
                let confirmation = message.trim().strip_prefix("cancelled; ").unwrap_or(message.trim());
                if !confirmation.is_empty() {
                    let note = record.note.take().unwrap_or_default();
                    record.note = Some(cut_middle(&format!("{note}; {confirmation}"), 2000));
                }
            }
        }
        if let Some(change) = change {
            record.change = Some(change.summary);
        }
        return (None, None);
    }
    let now = Instant::now();
    let max_chars = shared.config.result_max_chars;
    let (status, text) = match (outcome, &lost) {
        (Ok(text), None) if text.trim().is_empty() => {
            (WorkerStatus::Completed, "(the worker finished without producing any result text)".to_owned())
        }
        (Ok(text), None) => (WorkerStatus::Completed, cut_middle(text.trim_end(), max_chars)),
        (Ok(text), Some(reason)) | (Err(text), Some(reason)) => {
            (WorkerStatus::Lost, cut_middle(&format!("contact with the attempt was lost: {reason}\n{}", text.trim_end()), max_chars))
        }
        (Err(message), None) if timed_out => (
            WorkerStatus::Failed,
            cut_middle(
                &format!("attempt timed out after {} s and was stopped: {message}", shared.config.attempt_timeout.as_secs()),
                max_chars,
            ),
        ),
        (Err(message), None) => (WorkerStatus::Failed, cut_middle(&message, max_chars)),
    };
    record.status = status;
    record.attempt_finished_at = Some(now);
    record.progress = None;
    record.last_result = Some(text.clone());
    record.last_result_attempt = Some(start.attempt);
    record.note = lost.map(|reason| format!("lost: {reason}; vibe_send starts a new attempt"));
    let mut edit_id = None;
    let mut released_worktree = None;
    if let Some(mut change) = change {
        match (change.edit_id.take(), closed_early) {
            (Some(id), Some(how)) => {
                // Evicted before this attempt recorded it: the worktree goes as for any close.
                change.summary.state = how;
                edit_id = Some(id);
                released_worktree = record.worktree.take();
            }
            (Some(id), None) => {
                record.pending_edit = Some(id.clone());
                edit_id = Some(id);
            }
            (None, _) => {}
        }
        record.change = Some(change.summary);
    }
    let event = WorkerEvent {
        worker_id: record.worker_id.clone(),
        label: record.label.clone(),
        tier: record.tier,
        attempt: start.attempt,
        status,
        elapsed: now.saturating_duration_since(attempt_started),
        result_excerpt: cut_chars_with(&text, shared.config.list_result_chars, "vibe_wait shows the whole result"),
        edit_id,
    };
    (Some(event), released_worktree)
}

/// The brief of an attempt: the original brief, then every message under its own header.
fn compose_brief(brief: &str, messages: &[String]) -> String {
    let mut composed = brief.trim_end().to_owned();
    for (message_idx, message) in messages.iter().enumerate() {
        composed.push_str(&format!("\n\n--- message {} from the main agent ---\n{}", message_idx + 1, message.trim_end()));
    }
    composed.push('\n');
    composed
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        return (*text).to_owned();
    }
    if let Some(text) = panic.downcast_ref::<String>() {
        return text.clone();
    }
    "unknown panic payload".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_brief_numbers_messages() {
        let composed = compose_brief("do x\n", &["also y".to_owned(), "and z".to_owned()]);
        assert_eq!(composed, "do x\n\n--- message 1 from the main agent ---\nalso y\n\n--- message 2 from the main agent ---\nand z\n");
    }

    #[test]
    fn change_summary_lines_say_where_the_change_stands() {
        let mut summary = WorkerChangeSummary {
            attempt: 2,
            files: 3,
            lines_added: 10,
            lines_removed: 2,
            edit_id: Some("edit_4".to_owned()),
            state: "pending: resolve accept or discard".to_owned(),
            left_out: vec!["link (a symlink)".to_owned()],
            preview: String::new(),
        };
        assert_eq!(
            summary.line(),
            "attempt 2: 3 files changed (+10 −2), staged as edit_4 (pending: resolve accept or discard); left out: link (a symlink)"
        );
        summary.edit_id = None;
        summary.files = 0;
        summary.left_out.clear();
        assert_eq!(summary.line(), "attempt 2: no file changed in the worktree");
    }

    fn changed_file(root: &Path, relative: &str, original: Option<&str>) -> WorkerChangedFile {
        WorkerChangedFile {
            path: root.join(relative),
            display: relative.to_owned(),
            original: original.map(|text| text.as_bytes().to_vec()),
            new_content: Some(b"worker".to_vec()),
            lines_added: 1,
            lines_removed: 1,
        }
    }

    /// Issue 13 §1: the drift check reads the workspace copy beneath the root, never through a
    /// symlink. The outside copy equals what the worker started from, so a read that followed
    /// the link would call a changed file unchanged.
    #[test]
    fn drift_is_read_beneath_the_workspace_never_through_a_symlink_out() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("d")).unwrap();
        std::fs::write(outside.path().join("d/f.txt"), "original").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("same.txt"), "original").unwrap();
        std::fs::write(root.join("edited.txt"), "edited by the user").unwrap();
        std::os::unix::fs::symlink(outside.path().join("d"), root.join("d")).unwrap();
        let files = vec![
            changed_file(&root, "same.txt", Some("original")),
            changed_file(&root, "edited.txt", Some("original")),
            changed_file(&root, "d/f.txt", Some("original")),
            changed_file(&root, "new.txt", None),
            changed_file(&root, "gone.txt", Some("original")),
        ];
        assert_eq!(drifted_files(&root, &files), vec!["edited.txt", "d/f.txt", "gone.txt"]);
    }

    /// The same under a concurrent `renameat2(RENAME_EXCHANGE)` of the directory with a symlink
    /// to an outside copy that equals the original: every check must report the file changed.
    #[test]
    fn drift_under_a_symlink_exchange_race_never_reads_the_outside_copy() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("d")).unwrap();
        std::fs::write(outside.path().join("d/f.txt"), "original").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        std::fs::write(root.join("d/f.txt"), "changed in the workspace").unwrap();
        std::os::unix::fs::symlink(outside.path().join("d"), root.join("swap")).unwrap();
        let files = vec![changed_file(&root, "d/f.txt", Some("original"))];
        let exchange = crate::files::test_exchange::ExchangeLoop::start(root.join("d"), root.join("swap"));
        let started = std::time::Instant::now();
        let (mut checks, mut missed) = (0, 0);
        while checks < 3000 && started.elapsed() < std::time::Duration::from_millis(1500) {
            checks += 1;
            missed += usize::from(drifted_files(&root, &files).is_empty());
        }
        let swaps = exchange.finish();
        assert!(swaps > 0, "the exchange loop never swapped");
        assert_eq!(missed, 0, "{missed} of {checks} drift checks read the outside copy ({swaps} swaps)");
    }
}
