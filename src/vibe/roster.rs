//! The roster: one record per worker (kept until the run ends), one named thread per active
//! worker, and the state machine behind the five `vibe_*` tools.
//!
//! State lives under one mutex with one condition variable that is notified on every change.
//! A worker's thread runs attempts in a loop: it waits (as `pending`) for a free slot (slots go
//! to requested attempts first come, first served), runs the backend with the attempt's
//! cancellation token, records the outcome, and exits when no further attempt is requested. `send` and `kill` cancel the running attempt and wait, bounded
//! by [`VibeConfig::stop_grace`], for it to stop. Dropping the roster cancels every attempt,
//! waits (bounded) for the threads to finish and joins them.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::registry::CancelToken;
use crate::render::{cut_chars_with, cut_middle};
use crate::tier::Caller;

use super::{VibeConfig, VibeSetup, WorkerBackend, WorkerEvent, WorkerEventCallback, WorkerJob, WorkerStatus, WorkerTier};

/// The background workers of one run. Built by [`crate::RunBuilder::build`] when vibe mode is
/// on; reachable as [`crate::Run::vibe_roster`]. Dropping it stops every worker.
pub struct Roster {
    shared: Arc<Shared>,
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
    /// The mode of the caller that spawned it.
    pub caller: Caller,
    /// The status, with `lost` derived from the worker's thread handle.
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
    /// The record after the send.
    pub snapshot: WorkerSnapshot,
}

/// What [`Roster::wait`] saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitReport {
    /// `true` when the worker was still pending or running when the wait ended.
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
    /// Whether the attempt stopped (process group killed, thread done with it) within
    /// [`VibeConfig::stop_grace`]. `true` when nothing was running.
    pub stopped: bool,
    /// The record after the kill.
    pub snapshot: WorkerSnapshot,
}

struct Shared {
    backend: Arc<dyn WorkerBackend>,
    on_worker_event: Option<WorkerEventCallback>,
    config: VibeConfig,
    workspace_root: PathBuf,
    state: Mutex<RosterState>,
    changed: Condvar,
}

struct RosterState {
    workers: Vec<WorkerRecord>,
    running_count: usize,
    shutting_down: bool,
    /// Hands out [`WorkerRecord::queue_ticket`]s: free slots go to requested attempts in the
    /// order they were requested.
    next_queue_ticket: u64,
}

struct WorkerRecord {
    worker_id: String,
    label: String,
    tier: WorkerTier,
    caller: Caller,
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
}

const PROGRESS_MAX_CHARS: usize = 200;
const WAIT_SLICE: Duration = Duration::from_millis(100);

impl Roster {
    /// A roster running workers through `setup.backend` in `workspace_root`, under `config`.
    pub fn new(setup: VibeSetup, config: &VibeConfig, workspace_root: &Path) -> Roster {
        Roster {
            shared: Arc::new(Shared {
                backend: setup.backend,
                on_worker_event: setup.on_worker_event,
                config: config.clone(),
                workspace_root: workspace_root.to_path_buf(),
                state: Mutex::new(RosterState { workers: Vec::new(), running_count: 0, shutting_down: false, next_queue_ticket: 0 }),
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
        self.shared.backend.describe_tier(tier)
    }

    /// Starts a worker: records it as `worker_<n>` (attempt 1, status `pending`) and starts its
    /// thread, which runs the brief as soon as a slot is free. Returns at once.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArguments`] for an empty brief or label; [`ErrorKind::Unavailable`]
    /// when [`VibeConfig::max_workers`] records exist, when the run is ending, or when the OS
    /// refuses a thread.
    pub fn spawn(&self, brief: &str, label: &str, tier: WorkerTier, caller: Caller) -> Result<WorkerSnapshot, ToolError> {
        if brief.trim().is_empty() {
            return Err(ToolError::invalid("vibe_spawn got an empty brief").with_hint("describe the task the worker should do"));
        }
        if label.trim().is_empty() {
            return Err(ToolError::invalid("vibe_spawn got an empty label").with_hint("give the worker a short label, e.g. \"fix tests\""));
        }
        if let Err(reason) = self.shared.backend.check_tier(tier) {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("cannot start a {tier} worker: {reason}"))
                .with_hint("spawn with the other tier if it is configured, or do the work yourself"));
        }
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
            caller,
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
        });
        start_worker_thread(&self.shared, &mut state, index)?;
        self.shared.changed.notify_all();
        Ok(snapshot_of(&state.workers[index], now))
    }

    /// Appends `message` to the worker's brief and runs it again: a running attempt is
    /// cancelled (its process group killed) and the next attempt starts with the extended
    /// brief; a finished (completed, failed, killed, lost) worker starts a new attempt; a worker
    /// still waiting for its first slot just gets the longer brief. Waits at most
    /// [`VibeConfig::stop_grace`] for a running attempt to stop.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id; [`ErrorKind::InvalidArguments`] for an empty
    /// message; [`ErrorKind::Unavailable`] when the run is ending or the OS refuses a thread.
    pub fn send(&self, worker_id: &str, message: &str) -> Result<SendReport, ToolError> {
        if message.trim().is_empty() {
            return Err(ToolError::invalid("vibe_send got an empty message").with_hint("say what the worker should do differently or next"));
        }
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
            let snapshot = snapshot_of(record, now);
            return Ok(SendReport {
                previous_status,
                previous_attempt,
                previous_attempt_stopped: true,
                merged_into_pending_attempt: true,
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
                let stop_deadline = Instant::now() + self.shared.config.stop_grace;
                wait_while(&self.shared, &mut state, stop_deadline, |state| state.workers[index].running_attempt == Some(old_attempt))
            }
            None => true,
        };
        let snapshot = snapshot_of(&state.workers[index], Instant::now());
        Ok(SendReport { previous_status, previous_attempt, previous_attempt_stopped, merged_into_pending_attempt: false, snapshot })
    }

    /// Blocks until the worker is finished (completed, failed, killed, lost), `timeout` passes
    /// (clamped to [`VibeConfig::wait_min`]..=[`VibeConfig::wait_max`] and to `not_after`), or
    /// `cancel` is set. A worker restarted by `vibe_send` is waited for in its new attempt.
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
                let snapshot = snapshot_of(&state.workers[index], now);
                return Ok(WaitReport { timed_out: false, cancelled: false, waited: now - started, applied_timeout, snapshot });
            }
            let now = Instant::now();
            if cancel.is_cancelled() || now >= deadline {
                let snapshot = snapshot_of(&state.workers[index], now);
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
                let worker = snapshot_of(&state.workers[index], now);
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

    /// Stops the worker: cancels its attempt (the backend kills its process group) and waits
    /// at most [`VibeConfig::stop_grace`] for it to stop. The record and its last result stay.
    /// Killing a finished worker changes nothing and says so.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id.
    pub fn kill(&self, worker_id: &str) -> Result<KillReport, ToolError> {
        let mut state = self.shared.state.lock();
        let index = find_worker(&state, worker_id)?;
        let previous_status = effective_status(&state.workers[index]);
        if previous_status.is_finished() {
            let snapshot = snapshot_of(&state.workers[index], Instant::now());
            return Ok(KillReport { previous_status, stopped: true, snapshot });
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
        let stopped = match running_attempt {
            Some(attempt) => {
                let stop_deadline = Instant::now() + self.shared.config.stop_grace;
                wait_while(&self.shared, &mut state, stop_deadline, |state| state.workers[index].running_attempt == Some(attempt))
            }
            None => true,
        };
        if !stopped {
            state.workers[index].note = Some(format!(
                "killed by vibe_kill; the attempt did not stop within {} ms and is being abandoned",
                self.shared.config.stop_grace.as_millis()
            ));
        }
        let snapshot = snapshot_of(&state.workers[index], Instant::now());
        Ok(KillReport { previous_status, stopped, snapshot })
    }

    /// Every worker of the run, in spawn order.
    pub fn list(&self) -> Vec<WorkerSnapshot> {
        let mut state = self.shared.state.lock();
        enforce_attempt_deadlines(&mut state);
        let now = Instant::now();
        state.workers.iter().map(|record| snapshot_of(record, now)).collect()
    }

    /// One worker's record.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`] for an unknown id.
    pub fn snapshot(&self, worker_id: &str) -> Result<WorkerSnapshot, ToolError> {
        let state = self.shared.state.lock();
        let index = find_worker(&state, worker_id)?;
        Ok(snapshot_of(&state.workers[index], Instant::now()))
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
        let stop_deadline = Instant::now() + self.shared.config.stop_grace;
        wait_while(&self.shared, &mut state, stop_deadline, |state| {
            state.workers.iter().any(|record| record.thread_active && !is_current(record))
        });
        let handles: Vec<JoinHandle<()>> = state
            .workers
            .iter_mut()
            .filter(|record| !record.thread_active && !is_current(record))
            .filter_map(|record| record.thread.take())
            .collect();
        drop(state);
        // Threads that did not stop within the grace period are left detached: joining them
        // would block the host without bound.
        for handle in handles {
            let _ = handle.join();
        }
    }
}

impl std::fmt::Debug for Roster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.shared.state.lock();
        f.debug_struct("Roster").field("workers", &state.workers.len()).field("running", &state.running_count).finish()
    }
}

impl WorkerSnapshot {
    /// The snapshot as JSON: `{worker_id, label, tier, caller, status, attempt, elapsed_ms,
    /// since_spawn_ms, last_result, last_result_attempt, progress, note}`; `last_result` is cut to
    /// `result_chars` characters with a marker when longer.
    pub fn to_json(&self, result_chars: usize) -> Value {
        json!({
            "worker_id": self.worker_id,
            "label": self.label,
            "tier": self.tier,
            "caller": self.caller,
            "status": self.status,
            "attempt": self.attempt,
            "elapsed_ms": self.elapsed.as_millis() as u64,
            "since_spawn_ms": self.since_spawn.as_millis() as u64,
            "last_result": self.last_result.as_deref().map(|text| cut_chars_with(text, result_chars, "vibe_wait shows the whole result")),
            "last_result_attempt": self.last_result_attempt,
            "progress": self.progress,
            "note": self.note,
        })
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

/// The status, with `lost` derived from the live thread: a record that says pending or running
/// whose thread has ended (or never started) is lost.
fn effective_status(record: &WorkerRecord) -> WorkerStatus {
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

fn snapshot_of(record: &WorkerRecord, now: Instant) -> WorkerSnapshot {
    let status = effective_status(record);
    let note = match (status, record.status) {
        (WorkerStatus::Lost, recorded) if recorded != WorkerStatus::Lost => {
            Some(format!("the record said {recorded} but the worker's thread is gone; send a message to start a new attempt"))
        }
        _ => record.note.clone(),
    };
    let end = record.attempt_finished_at.unwrap_or(now);
    WorkerSnapshot {
        worker_id: record.worker_id.clone(),
        label: record.label.clone(),
        tier: record.tier,
        caller: record.caller,
        status,
        attempt: record.attempt,
        elapsed: end.saturating_duration_since(record.attempt_requested_at),
        since_spawn: now.saturating_duration_since(record.spawned_at),
        last_result: record.last_result.clone(),
        last_result_attempt: record.last_result_attempt,
        progress: record.progress.clone(),
        note,
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
        let job = WorkerJob {
            worker_id: &start.worker_id,
            label: &start.label,
            tier: start.tier,
            attempt: start.attempt,
            brief: &start.brief,
            caller: start.caller,
            workspace_root: &shared.workspace_root,
            deadline: start.deadline,
            cancel: &start.cancel,
            progress: &report_progress,
        };
        let attempt_started = Instant::now();
        let outcome = match catch_unwind(AssertUnwindSafe(|| shared.backend.run_attempt(&job))) {
            Ok(outcome) => outcome,
            Err(panic) => Err(format!("the worker backend panicked: {}", panic_text(&*panic))),
        };
        let timed_out = Instant::now() >= start.deadline;
        let event = record_outcome(shared, index, &start, attempt_started, outcome, timed_out);
        if let (Some(event), Some(callback)) = (event, &shared.on_worker_event) {
            let _ = catch_unwind(AssertUnwindSafe(|| callback(&event)));
        }
    }
}

/// Waits (as `pending`) for a free slot and claims the requested attempt; `None` when there is
/// nothing to run (the thread then ends, marked inactive under the lock).
fn claim_next_attempt(shared: &Shared, index: usize) -> Option<AttemptStart> {
    let mut state = shared.state.lock();
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
            // Only threads actually waiting for a slot: one still stopping a cancelled attempt
            // must not hold up the line.
            .filter(|record| record.requested_attempt.is_some() && record.running_attempt.is_none() && thread_alive(record))
            .all(|record| record.queue_ticket >= my_ticket);
        if first_in_line && state.running_count < shared.config.max_running_workers.max(1) {
            break;
        }
        shared.changed.wait_for(&mut state, WAIT_SLICE);
    }
    state.running_count += 1;
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
    };
    shared.changed.notify_all();
    Some(start)
}

fn record_outcome(
    shared: &Shared,
    index: usize,
    start: &AttemptStart,
    attempt_started: Instant,
    outcome: Result<String, String>,
    timed_out: bool,
) -> Option<WorkerEvent> {
    let mut state = shared.state.lock();
    state.running_count = state.running_count.saturating_sub(1);
    let shutting_down = state.shutting_down;
    let record = &mut state.workers[index];
    record.running_attempt = None;
    shared.changed.notify_all();
    // Superseded by vibe_send, stopped by vibe_kill, or the run is ending: the cancelling side
    // already set the status, and the (partial) output of a cancelled attempt is not a result.
    let superseded = record.attempt != start.attempt || record.status != WorkerStatus::Running;
    if superseded || shutting_down || (start.cancel.is_cancelled() && !timed_out) {
        return None;
    }
    let now = Instant::now();
    let max_chars = shared.config.result_max_chars;
    let (status, text) = match outcome {
        Ok(text) if text.trim().is_empty() => {
            (WorkerStatus::Completed, "(the worker finished without producing any result text)".to_owned())
        }
        Ok(text) => (WorkerStatus::Completed, cut_middle(text.trim_end(), max_chars)),
        Err(message) if timed_out => (
            WorkerStatus::Failed,
            cut_middle(
                &format!("attempt timed out after {} s and was stopped: {message}", shared.config.attempt_timeout.as_secs()),
                max_chars,
            ),
        ),
        Err(message) => (WorkerStatus::Failed, cut_middle(&message, max_chars)),
    };
    record.status = status;
    record.attempt_finished_at = Some(now);
    record.progress = None;
    record.last_result = Some(text.clone());
    record.last_result_attempt = Some(start.attempt);
    record.note = None;
    Some(WorkerEvent {
        worker_id: record.worker_id.clone(),
        label: record.label.clone(),
        tier: record.tier,
        attempt: start.attempt,
        status,
        elapsed: now.saturating_duration_since(attempt_started),
        result_excerpt: cut_chars_with(&text, shared.config.list_result_chars, "vibe_wait shows the whole result"),
    })
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
}
