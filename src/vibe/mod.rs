//! Background workers: `vibe_spawn`, `vibe_send`, `vibe_wait`, `vibe_kill`, `vibe_list`
//! (R-VIBE-1..2, docs/contract.md).
//!
//! A run in vibe mode owns a [`Roster`]: one record per worker, kept until the run ends, and one
//! named OS thread per active worker. A worker runs a brief to completion through a
//! [`WorkerBackend`] the host supplies; attempts are numbered from 1 and `vibe_send` starts a new
//! one. Two backends ship:
//!
//! - [`CommandBackend`]: per tier, a command line run by `/bin/sh -c` in the workspace, in its
//!   own process group, with the brief on stdin; stdout is the result, a non-zero exit is an
//!   error carrying the stderr tail. This is what the CLI wires for `--vibe` and
//!   `--worker TIER=COMMAND` (see [`VibeSetup::from_cli_worker_flags`]).
//! - [`ClosureBackend`]: a Rust closure, for hosts that run their own agent loop.
//!
//! Worker statuses: `pending` (waiting for a free slot, see [`VibeConfig::max_running_workers`]),
//! `running`, `completed`, `failed`, `killed`, `lost` (the record says running but the worker's
//! thread is gone; derived from the live thread handle, never from bookkeeping alone).
//!
//! Depth 1: workers get neither `ask_user` nor `vibe_*`. A host that lets a worker call this
//! run's tools passes [`WorkerJob::call_options`] to [`crate::Run::call_with`]: the call then
//! carries the spawning caller's mode (a plan-mode or read-only caller's worker sees read tools
//! only), a guardrail refuses `ask_user` and `vibe_*`, and a permission prompt goes to the run's
//! ask port labelled with the worker (`CallOrigin::Worker`), or is denied at once when no human
//! is attached — a worker never blocks silently.
//!
//! Completion is pushed and pullable: the roster calls the host's [`WorkerEventCallback`] when
//! an attempt completes or fails (the `serve` host turns it into a notification), and results
//! stay readable through `vibe_wait` / `vibe_list` until the run ends. Dropping the run cancels
//! every worker, kills its process group and joins its thread.

mod command;
mod inherited;
mod output;
mod ray;
mod roster;
mod tools;
mod worktree;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::registry::{CallOptions, CallOrigin, CancelToken, GuardrailInput, GuardrailVerdict, Registry, ToolDescriptor};
use crate::tier::Caller;
use crate::trust::WorkspaceTrust;

pub use command::{
    CommandBackend, ENV_WORKER_ATTEMPT, ENV_WORKER_CALLER, ENV_WORKER_ID, ENV_WORKER_LABEL, ENV_WORKER_TIER, ENV_WORKER_WORKSPACE_TRUST,
    ENV_WORKSPACE,
};
pub use inherited::{inherited_worker_caller, inherited_worker_workspace_trust, InheritedWorkerCaller, InheritedWorkspaceTrust};
pub use ray::{RayBackend, RayConfig};
pub use roster::{BackendSummary, KillReport, Roster, RosterLinks, SendReport, WaitReport, WorkerChangeSummary, WorkerSnapshot};

/// Timeouts and caps of the vibe roster (the `vibe` section of [`crate::RunConfig`]).
#[derive(Debug, Clone)]
pub struct VibeConfig {
    /// `vibe_wait` without `timeout_seconds` waits this long (default 30 s).
    pub wait_default: Duration,
    /// Smallest `vibe_wait` timeout; smaller requests are raised to it so the model cannot poll
    /// in a tight loop (default 10 s).
    pub wait_min: Duration,
    /// Largest `vibe_wait` timeout; larger requests are lowered to it (default 1 h).
    pub wait_max: Duration,
    /// How long `vibe_send`, `vibe_kill` and run teardown wait for a cancelled attempt to stop
    /// (its process group killed and reaped) before reporting that it did not (default 5 s).
    pub stop_grace: Duration,
    /// Longest a single attempt may run; the command backend kills it after this and the
    /// attempt fails with a timeout (default 1 h). Closure backends read it as
    /// [`WorkerJob::deadline`].
    pub attempt_timeout: Duration,
    /// Most workers per run, finished ones included (records are kept until the run ends;
    /// default 256).
    pub max_workers: usize,
    /// Most attempts running at once; further workers wait as `pending` and start in the order
    /// their attempts were requested (default 8).
    pub max_running_workers: usize,
    /// Most characters of a result kept and shown by `vibe_wait`; longer results keep their
    /// head and tail with a `[… cut N characters …]` marker in between (default 20 000).
    pub result_max_chars: usize,
    /// Most characters of the last result shown per worker by `vibe_list` (default 300).
    pub list_result_chars: usize,
    /// Whether workers may call `ask_user` (default false: depth 1, only the main agent asks).
    /// Permission prompts are not affected: they always reach the ask port with the worker's
    /// label. Applies to workers that call this run's tools ([`WorkerJob::call_options`]); a
    /// `runbound` run inside a worker process asks through the ask channel instead (see
    /// [`VibeConfig::relay_worker_questions`]).
    pub workers_may_ask_user: bool,
    /// Whether the `ask_user` cards of a `runbound` run inside a worker (a command or Ray
    /// worker) are relayed to this run's ask port, labelled with the worker (default true).
    /// Its permission prompts are always relayed; with no port attached here, both answer
    /// `no human` at once.
    pub relay_worker_questions: bool,
}

impl Default for VibeConfig {
    fn default() -> Self {
        VibeConfig {
            wait_default: Duration::from_secs(30),
            wait_min: Duration::from_secs(10),
            wait_max: Duration::from_secs(3600),
            stop_grace: Duration::from_secs(5),
            attempt_timeout: Duration::from_secs(3600),
            max_workers: 256,
            max_running_workers: 8,
            result_max_chars: 20_000,
            list_result_chars: 300,
            workers_may_ask_user: false,
            relay_worker_questions: true,
        }
    }
}

/// What kind of work a worker is for (R-VIBE-2); the host maps each tier to a backend
/// configuration (e.g. a model and a reasoning effort).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkerTier {
    /// Well-specified mechanical work. The default.
    Fast,
    /// Design, judgment, or reviewing a fast worker's output.
    Good,
}

impl WorkerTier {
    /// Both tiers, `fast` first.
    pub const ALL: [WorkerTier; 2] = [WorkerTier::Fast, WorkerTier::Good];

    /// The wire name: `fast` or `good`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerTier::Fast => "fast",
            WorkerTier::Good => "good",
        }
    }

    /// Parses `fast` or `good` (case-insensitive); `None` for anything else.
    pub fn parse(text: &str) -> Option<WorkerTier> {
        match text.trim().to_ascii_lowercase().as_str() {
            "fast" => Some(WorkerTier::Fast),
            "good" => Some(WorkerTier::Good),
            _ => None,
        }
    }
}

impl fmt::Display for WorkerTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The status of a worker, as `vibe_list` and `vibe_wait` report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkerStatus {
    /// Spawned (or sent a message) and waiting for a free slot
    /// ([`VibeConfig::max_running_workers`]), or for the previous attempt to stop.
    Pending,
    /// An attempt is running.
    Running,
    /// The last attempt returned a result.
    Completed,
    /// The last attempt failed (non-zero exit, missing command, timeout, backend error, panic).
    Failed,
    /// `vibe_kill` (or the run's end) asked the backend to stop the attempt and it has not
    /// confirmed yet (a Ray job until Ray reports it `STOPPED`); the attempt still holds its slot.
    Stopping,
    /// Stopped by `vibe_kill` or because the run ended, and the backend confirmed the stop; the
    /// record is kept.
    Killed,
    /// Contact with the attempt was lost: the backend says so (a Ray cluster that stopped
    /// answering), or the record says pending or running but the worker's thread no longer
    /// exists. The note says why; `vibe_send` starts a new attempt.
    Lost,
}

impl WorkerStatus {
    /// The wire name: `pending`, `running`, `completed`, `failed`, `stopping`, `killed` or
    /// `lost`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerStatus::Pending => "pending",
            WorkerStatus::Running => "running",
            WorkerStatus::Completed => "completed",
            WorkerStatus::Failed => "failed",
            WorkerStatus::Stopping => "stopping",
            WorkerStatus::Killed => "killed",
            WorkerStatus::Lost => "lost",
        }
    }

    /// Whether the worker is done for now (completed, failed, killed or lost); `vibe_send`
    /// starts a new attempt on such a worker.
    pub fn is_finished(self) -> bool {
        !matches!(self, WorkerStatus::Pending | WorkerStatus::Running | WorkerStatus::Stopping)
    }
}

impl fmt::Display for WorkerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a worker's attempts are kept apart from the workspace (`vibe_spawn`'s `isolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkerIsolation {
    /// The attempt works in the workspace itself (the command backend's default).
    None,
    /// The attempt works in a private `git worktree` of the workspace (HEAD plus the
    /// uncommitted changes, on a new branch); what it changed comes back as a staged edit that
    /// `resolve` accepts or discards. The worktree is kept for the worker's next attempt while
    /// the edit is pending, and removed when the edit is resolved or the run ends.
    Worktree,
}

impl WorkerIsolation {
    /// The wire name: `none` or `worktree`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerIsolation::None => "none",
            WorkerIsolation::Worktree => "worktree",
        }
    }
}

impl fmt::Display for WorkerIsolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One attempt of a worker, as its [`WorkerBackend`] sees it.
pub struct WorkerJob<'a> {
    worker_id: &'a str,
    label: &'a str,
    tier: WorkerTier,
    attempt: u32,
    brief: &'a str,
    caller: Caller,
    workspace_trust: WorkspaceTrust,
    workspace_root: &'a Path,
    working_dir: &'a Path,
    isolation: WorkerIsolation,
    deadline: Instant,
    cancel: &'a CancelToken,
    progress: &'a (dyn Fn(&str) + Sync),
    attempt_link: &'a Arc<roster::AttemptLink>,
}

impl<'a> WorkerJob<'a> {
    /// The worker's id, `worker_1`, `worker_2`, … (per run).
    pub fn worker_id(&self) -> &'a str {
        self.worker_id
    }

    /// The label the model gave the worker.
    pub fn label(&self) -> &'a str {
        self.label
    }

    /// The worker's tier.
    pub fn tier(&self) -> WorkerTier {
        self.tier
    }

    /// The attempt number, from 1; each `vibe_send` starts the next one.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The whole brief of this attempt: the original brief followed by every message sent so
    /// far, each under a `--- message N from the main agent ---` line.
    pub fn brief(&self) -> &'a str {
        self.brief
    }

    /// The mode of the caller that spawned the worker. A worker spawned by a `plan` or
    /// `readonly` caller must be held to read tools.
    pub fn caller(&self) -> Caller {
        self.caller
    }

    /// The spawning run's workspace trust. A backend passes it to the attempt as
    /// [`ENV_WORKER_WORKSPACE_TRUST`], so a `runbound` run inside the worker is no less
    /// restricted than the run that spawned it.
    pub fn workspace_trust(&self) -> WorkspaceTrust {
        self.workspace_trust
    }

    /// The run's absolute workspace root.
    pub fn workspace_root(&self) -> &'a Path {
        self.workspace_root
    }

    /// Where the attempt works: the workspace root, or with [`WorkerIsolation::Worktree`] the
    /// workspace's place in the worker's private git worktree. The command backend runs there;
    /// a backend that runs elsewhere (a cluster) ships this directory and, for an isolated
    /// attempt, writes the files the remote attempt changed back into it (the roster then
    /// stages the worktree's diff).
    pub fn working_dir(&self) -> &'a Path {
        self.working_dir
    }

    /// How this attempt is isolated.
    pub fn isolation(&self) -> WorkerIsolation {
        self.isolation
    }

    /// Marks the attempt `lost`: the backend lost contact with it (e.g. its cluster stopped
    /// answering) and cannot tell how it ended. Call before returning; the error returned
    /// becomes the worker's last result and `reason` its note.
    pub fn mark_lost(&self, reason: &str) {
        self.attempt_link.mark_lost(reason);
    }

    /// The environment variable (name, value) that connects a `runbound` run inside this
    /// attempt's process to this run's ask port ([`crate::ask::ENV_ASK_CHANNEL`] → a private
    /// directory), starting the channel on first use; `None` when this run has no ask port (a
    /// nested run then has no human, and fails closed). The channel closes when the attempt
    /// ends. Backends that start local processes pass it in their environment.
    pub fn ask_channel_environment(&self) -> Option<(&'static str, PathBuf)> {
        self.attempt_link.ask_channel_path().map(|path| (crate::ask::ENV_ASK_CHANNEL, path))
    }

    /// Shows `card` (relayed from inside the attempt) on this run's ask port, labelled with the
    /// worker, and blocks until it is answered, skipped, timed out or cancelled — or answers
    /// `no human` at once when no port is attached (or questions are not relayed). While it
    /// waits, `vibe_list` shows the worker as waiting for the human. For backends that relay
    /// cards over their own channel (the Ray backend reads them from the job's log).
    pub fn ask_human(&self, card: &crate::ask::RelayedCard) -> crate::ask::AskOutcome {
        self.attempt_link.ask_human(card)
    }

    /// An owned handle for showing relayed cards from another thread (e.g. one per card, so a
    /// slow human does not hold up the attempt's own loop); see [`WorkerJob::ask_human`].
    pub fn ask_relay(&self) -> AskRelay {
        AskRelay { link: Arc::clone(self.attempt_link) }
    }

    /// Whether this run relays `ask_user` questions from inside workers (permission prompts
    /// always are, when a port is attached).
    pub fn relays_questions(&self) -> bool {
        self.attempt_link.relays_questions()
    }

    /// Whether this run has a human-facing ask port (else every relayed card answers `no human`).
    pub fn has_human(&self) -> bool {
        self.attempt_link.has_human()
    }

    /// Where this run's ask port shows cards (its target space, e.g. `terminal`); empty when no
    /// port is attached. A nested run says it in its `status`.
    pub fn ask_target_space(&self) -> String {
        self.attempt_link.ask_target_space()
    }

    /// When this attempt must have returned ([`VibeConfig::attempt_timeout`] after it started).
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the attempt was cancelled (`vibe_send`, `vibe_kill`, run teardown, deadline).
    /// A backend checks this at least every 100 ms and returns promptly once it is set, after
    /// stopping everything it started.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The attempt's cancellation token.
    pub fn cancel_token(&self) -> &'a CancelToken {
        self.cancel
    }

    /// Reports progress; the latest line is shown by `vibe_list` (cut to 200 characters).
    pub fn report_progress(&self, text: &str) {
        (self.progress)(text)
    }

    /// Options for calling this run's tools on the worker's behalf with
    /// [`crate::Run::call_with`]: the spawning caller's mode, origin
    /// `CallOrigin::Worker { label: "<worker_id>: <label>" }` (permission cards show it), and
    /// this attempt's cancellation token.
    pub fn call_options(&self) -> CallOptions {
        CallOptions {
            caller: self.caller,
            timeout: None,
            cancel: self.cancel.clone(),
            origin: CallOrigin::Worker { label: format!("{}: {}", self.worker_id, self.label) },
            progress: None,
        }
    }
}

/// An owned handle on an attempt's way to the human ([`WorkerJob::ask_relay`]).
#[derive(Clone)]
pub struct AskRelay {
    link: Arc<roster::AttemptLink>,
}

impl AskRelay {
    /// Same as [`WorkerJob::ask_human`].
    pub fn ask_human(&self, card: &crate::ask::RelayedCard) -> crate::ask::AskOutcome {
        self.link.ask_human(card)
    }
}

impl fmt::Debug for AskRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AskRelay")
    }
}

/// Runs one attempt of a worker to completion. Plain and blocking; called on the worker's own
/// thread. Must return by [`WorkerJob::deadline`] and promptly after cancellation, having
/// stopped every process it started (put them in a process group owned by the attempt).
pub trait WorkerBackend: Send + Sync {
    /// Runs `job`. `Ok` is the result text shown to the model; `Err` says what failed (exit
    /// code, stderr tail) and is recorded as status `failed`.
    fn run_attempt(&self, job: &WorkerJob<'_>) -> Result<String, String>;

    /// One line per tier saying what runs it (e.g. the command line), for `vibe_list` and
    /// errors. Default: nothing to say.
    fn describe_tier(&self, tier: WorkerTier) -> Option<String> {
        let _ = tier;
        None
    }

    /// Whether `tier` can run at all (e.g. a command is configured for it); checked by
    /// `vibe_spawn` so a misconfigured tier fails the call at once instead of producing a
    /// failed worker. `Err` says what is missing and how the host fixes it. Default: every
    /// tier can run.
    fn check_tier(&self, tier: WorkerTier) -> Result<(), String> {
        let _ = tier;
        Ok(())
    }

    /// A short name for lists and status, e.g. `command` or `ray http://127.0.0.1:8265`.
    /// Default `custom`.
    fn name(&self) -> String {
        "custom".to_owned()
    }

    /// Most attempts of this backend running at once; `None` (the default) uses
    /// [`VibeConfig::max_running_workers`]. The cap is per backend: a run whose tiers use a
    /// command backend and a Ray cluster fills each up to its own cap.
    fn max_running_attempts(&self) -> Option<usize> {
        None
    }

    /// How long stopping an attempt may take to be confirmed beyond
    /// [`VibeConfig::stop_grace`] (a Ray job stops within Ray's own grace). Default zero.
    fn stop_confirmation_time(&self) -> Duration {
        Duration::ZERO
    }

    /// The isolation `vibe_spawn` uses when the model gives none. Default
    /// [`WorkerIsolation::None`]; a backend that cannot write the workspace (a remote cluster)
    /// returns [`WorkerIsolation::Worktree`], so its changes come back staged.
    fn default_isolation(&self) -> WorkerIsolation {
        WorkerIsolation::None
    }

    /// What `runbound status` says about the backend (e.g. a cluster's address and whether it
    /// answers); probes with short timeouts. Default: nothing beyond [`WorkerBackend::name`].
    fn status_lines(&self) -> Vec<String> {
        Vec::new()
    }
}

type AttemptFn = dyn Fn(&WorkerJob<'_>) -> Result<String, String> + Send + Sync;

/// A [`WorkerBackend`] made of a Rust closure, for hosts that run their own agent loop.
pub struct ClosureBackend {
    run_attempt: Box<AttemptFn>,
}

impl ClosureBackend {
    /// A backend that calls `run_attempt` for every attempt.
    pub fn new(run_attempt: impl Fn(&WorkerJob<'_>) -> Result<String, String> + Send + Sync + 'static) -> ClosureBackend {
        ClosureBackend { run_attempt: Box::new(run_attempt) }
    }
}

impl WorkerBackend for ClosureBackend {
    fn run_attempt(&self, job: &WorkerJob<'_>) -> Result<String, String> {
        (self.run_attempt)(job)
    }
}

impl fmt::Debug for ClosureBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClosureBackend")
    }
}

/// Announced to the host when a worker's attempt ends on its own (completed or failed), so
/// the host can tell the model without a poll. Attempts stopped by `vibe_send`, `vibe_kill` or
/// run teardown are not announced (the model or host caused them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerEvent {
    /// `worker_N`.
    pub worker_id: String,
    /// The worker's label.
    pub label: String,
    /// The worker's tier.
    pub tier: WorkerTier,
    /// The attempt that ended.
    pub attempt: u32,
    /// `completed`, `failed` or `lost`.
    pub status: WorkerStatus,
    /// How long the attempt ran.
    pub elapsed: Duration,
    /// The result (or error) cut to [`VibeConfig::list_result_chars`] with a marker.
    pub result_excerpt: String,
    /// For an isolated attempt: the staged edit of its changes (`edit_N`), if it changed
    /// anything.
    pub edit_id: Option<String>,
}

impl WorkerEvent {
    /// One line for the model, e.g. `worker_2 ("tests") completed attempt 1 after 3.2 s: …;
    /// call vibe_wait with worker_id "worker_2" for the full result`.
    pub fn message(&self) -> String {
        let edit = match &self.edit_id {
            Some(edit_id) => {
                format!("\nits changes are staged as {edit_id}: call resolve with edit_id {edit_id:?} to accept or discard them")
            }
            None => String::new(),
        };
        format!(
            "{} ({:?}, tier {}) {} attempt {} after {:.1} s: {}{edit}\ncall vibe_wait with worker_id {:?} for the full result",
            self.worker_id,
            self.label,
            self.tier,
            self.status,
            self.attempt,
            self.elapsed.as_secs_f64(),
            self.result_excerpt,
            self.worker_id
        )
    }

    /// JSON for a host notification: `{worker_id, label, tier, attempt, status, elapsed_ms,
    /// result_excerpt, edit_id, message}`.
    pub fn to_json(&self) -> Value {
        json!({
            "worker_id": self.worker_id,
            "label": self.label,
            "tier": self.tier,
            "attempt": self.attempt,
            "status": self.status,
            "elapsed_ms": self.elapsed.as_millis() as u64,
            "result_excerpt": self.result_excerpt,
            "edit_id": self.edit_id,
            "message": self.message(),
        })
    }
}

/// The host's completion hook. Called on the worker's thread with no roster lock held; a
/// panic in it is caught. Keep it short (e.g. push to a channel).
pub type WorkerEventCallback = Arc<dyn Fn(&WorkerEvent) + Send + Sync>;

/// What a host hands to [`crate::RunBuilder::vibe_roster`] to turn vibe mode on: the backend
/// and an optional completion hook. The roster itself is built with the run (it takes the
/// run's [`VibeConfig`] and workspace root).
#[derive(Clone)]
pub struct VibeSetup {
    /// Runs the workers' attempts (of every tier without its own backend).
    pub backend: Arc<dyn WorkerBackend>,
    /// Tiers run by another backend than [`VibeSetup::backend`] (e.g. `good` on a Ray cluster).
    pub tier_backends: BTreeMap<WorkerTier, Arc<dyn WorkerBackend>>,
    /// Called when an attempt completes or fails.
    pub on_worker_event: Option<WorkerEventCallback>,
}

impl VibeSetup {
    /// Vibe mode with `backend` for every tier and no completion hook.
    pub fn new(backend: Arc<dyn WorkerBackend>) -> VibeSetup {
        VibeSetup { backend, tier_backends: BTreeMap::new(), on_worker_event: None }
    }

    /// Runs `tier` on `backend` instead of the default backend. Each backend has its own
    /// concurrency cap ([`WorkerBackend::max_running_attempts`]).
    #[must_use]
    pub fn with_tier_backend(mut self, tier: WorkerTier, backend: Arc<dyn WorkerBackend>) -> VibeSetup {
        self.tier_backends.insert(tier, backend);
        self
    }

    /// The backend that runs `tier`.
    pub fn backend_for(&self, tier: WorkerTier) -> &Arc<dyn WorkerBackend> {
        self.tier_backends.get(&tier).unwrap_or(&self.backend)
    }

    /// Sets the completion hook.
    #[must_use]
    pub fn on_worker_event(mut self, callback: WorkerEventCallback) -> VibeSetup {
        self.on_worker_event = Some(callback);
        self
    }

    /// Vibe mode as the CLI configures it: `--vibe` plus zero or more `--worker TIER=COMMAND`
    /// values, passed here verbatim (e.g. `"fast=claude -p --model haiku"`). Builds a
    /// [`CommandBackend`]; a tier without a command fails at `vibe_spawn` with an error naming
    /// the flag to add.
    ///
    /// # Errors
    /// A value without `=`, an unknown tier (only `fast` and `good` exist), an empty command,
    /// or the same tier given twice; the message quotes the value.
    pub fn from_cli_worker_flags(worker_flags: &[String]) -> Result<VibeSetup, String> {
        let backend = CommandBackend::from_cli_worker_flags(worker_flags)?;
        Ok(VibeSetup::new(Arc::new(backend)))
    }

    /// Vibe mode from the CLI's `--worker TIER=COMMAND`, `--worker-backend [TIER=]BACKEND`,
    /// `--ray-address` and `--max-running-workers [BACKEND=]N` flags. Each `backend_choices`
    /// entry puts one tier (`Some`) or every tier (`None`) on a backend, in command-line order
    /// (later entries win); tiers on [`WorkerBackendKind::Ray`] run their command as jobs on the
    /// Ray cluster at `ray_address` (the dashboard URL, e.g. `http://127.0.0.1:8265`), the
    /// others on this machine. With no choice every tier runs here, as
    /// [`VibeSetup::from_cli_worker_flags`]. Each `caps` entry sets the concurrency cap (most
    /// attempts running at once, ≥ 1) of one backend (`Some`) or of every backend in use
    /// (`None`), later entries winning; a backend without one keeps its default (this machine:
    /// the run's [`VibeConfig::max_running_workers`]; Ray: 8 jobs).
    ///
    /// # Errors
    /// What [`VibeSetup::from_cli_worker_flags`] refuses, `ray` without `--ray-address` (or an
    /// address that is not an `http://` URL), `--ray-address` with no tier on `ray`, a tier on
    /// `ray` with no `--worker` command, a cap of 0, or a cap for a backend no tier runs on; the
    /// message names the flag to fix.
    pub fn from_cli_flags(
        worker_flags: &[String],
        backend_choices: &[(Option<WorkerTier>, WorkerBackendKind)],
        ray_address: Option<&str>,
        caps: &[(Option<WorkerBackendKind>, usize)],
    ) -> Result<VibeSetup, String> {
        let mut commands = CommandBackend::from_cli_worker_flags(worker_flags)?;
        let mut on_ray: BTreeMap<WorkerTier, bool> = WorkerTier::ALL.iter().map(|&tier| (tier, false)).collect();
        for &(tier, kind) in backend_choices {
            let tiers = match tier {
                Some(tier) => vec![tier],
                None => WorkerTier::ALL.to_vec(),
            };
            for tier in tiers {
                on_ray.insert(tier, kind == WorkerBackendKind::Ray);
            }
        }
        let ray_tiers: Vec<WorkerTier> = on_ray.iter().filter(|(_, ray)| **ray).map(|(tier, _)| *tier).collect();
        let backend_in_use = |kind: WorkerBackendKind| match kind {
            WorkerBackendKind::Ray => !ray_tiers.is_empty(),
            WorkerBackendKind::Command => ray_tiers.len() < WorkerTier::ALL.len(),
        };
        let mut cap_of = BTreeMap::new();
        for &(kind, cap) in caps {
            let flag = match kind {
                Some(kind) => format!("--max-running-workers {}={cap}", kind.as_str()),
                None => format!("--max-running-workers {cap}"),
            };
            if cap == 0 {
                return Err(format!("{flag}: a cap of 0 would never run a worker; give at least 1"));
            }
            match kind {
                Some(kind) if !backend_in_use(kind) => {
                    return Err(format!(
                        "{flag} caps the {} backend, but no tier runs there; drop it or put a tier there with --worker-backend",
                        kind.as_str()
                    ))
                }
                Some(kind) => {
                    cap_of.insert(kind, cap);
                }
                None => {
                    cap_of.insert(WorkerBackendKind::Command, cap);
                    cap_of.insert(WorkerBackendKind::Ray, cap);
                }
            }
        }
        if let Some(&cap) = cap_of.get(&WorkerBackendKind::Command) {
            commands = commands.with_max_running_attempts(cap);
        }
        if ray_tiers.is_empty() {
            if let Some(address) = ray_address {
                return Err(format!("--ray-address {address:?} is given but no tier runs on ray; add --worker-backend ray"));
            }
            return Ok(VibeSetup::new(Arc::new(commands)));
        }
        let Some(address) = ray_address else {
            return Err("--worker-backend ray needs --ray-address with the cluster's dashboard URL, e.g. \
                        --ray-address http://127.0.0.1:8265"
                .to_owned());
        };
        let mut config = RayConfig::new(address);
        if let Some(&cap) = cap_of.get(&WorkerBackendKind::Ray) {
            config = config.with_max_running_jobs(cap);
        }
        for &tier in &ray_tiers {
            let Some(command_line) = commands.command_line(tier) else {
                return Err(format!(
                    "--worker-backend puts tier {tier} on ray, but no --worker {tier}=COMMAND gives its command; add it or drop the \
                     tier from --worker-backend"
                ));
            };
            config = config.with_command(tier, command_line);
        }
        let ray: Arc<dyn WorkerBackend> = Arc::new(RayBackend::new(config)?);
        if ray_tiers.len() == WorkerTier::ALL.len() {
            return Ok(VibeSetup::new(ray));
        }
        let mut setup = VibeSetup::new(Arc::new(commands));
        for tier in ray_tiers {
            setup = setup.with_tier_backend(tier, Arc::clone(&ray));
        }
        Ok(setup)
    }
}

impl fmt::Debug for VibeSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VibeSetup").field("on_worker_event", &self.on_worker_event.is_some()).finish_non_exhaustive()
    }
}

/// Where the CLI runs a worker tier (`--worker-backend [TIER=]command|ray`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WorkerBackendKind {
    /// A child process on this machine ([`CommandBackend`]).
    Command,
    /// A job on a Ray cluster through its Jobs REST API ([`RayBackend`]).
    Ray,
}

impl WorkerBackendKind {
    /// The CLI's name: `command` or `ray`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerBackendKind::Command => "command",
            WorkerBackendKind::Ray => "ray",
        }
    }
}

/// The tools a worker of this run may see when spawned by `caller`: the run's tools visible to
/// `caller` (`registry` is [`crate::Run::registry`]), minus `vibe_*` and (unless the roster's
/// [`VibeConfig::workers_may_ask_user`]) `ask_user`. For a host's own backend
/// ([`ClosureBackend`], or a [`WorkerBackend`] of its own) that lists tools to the model it
/// runs as a worker; the registry's guardrail refuses the others anyway.
pub fn tools_for_worker(registry: &Registry, caller: Caller) -> Vec<&ToolDescriptor> {
    let workers_may_ask_user = registry.resource::<Roster>().is_some_and(|roster| roster.config().workers_may_ask_user);
    registry.tools(caller).into_iter().filter(|descriptor| tool_available_to_worker(&descriptor.name, workers_may_ask_user)).collect()
}

impl crate::registry::Resource for Roster {
    const NAME: &'static str = "vibe roster (vibe mode is off)";
    const WIRED_BY: &'static str = "RunBuilder::vibe_roster(VibeSetup::new(backend)) (the CLI: --vibe)";
}

pub(crate) fn register_tools(registry: &mut Registry, roster: &Roster) {
    tools::register(registry, roster);
    let workers_may_ask_user = roster.config().workers_may_ask_user;
    registry.add_guardrail(Arc::new(move |input: &GuardrailInput<'_>| worker_depth_guardrail(input, workers_may_ask_user)));
}

fn tool_available_to_worker(name: &str, workers_may_ask_user: bool) -> bool {
    if name.starts_with("vibe_") {
        return false;
    }
    name != "ask_user" || workers_may_ask_user
}

fn worker_depth_guardrail(input: &GuardrailInput<'_>, workers_may_ask_user: bool) -> GuardrailVerdict {
    let CallOrigin::Worker { label } = input.origin else {
        return GuardrailVerdict::Allow;
    };
    if tool_available_to_worker(input.tool, workers_may_ask_user) {
        return GuardrailVerdict::Allow;
    }
    GuardrailVerdict::Deny(format!(
        "workers run at depth 1 and do not get {} (called by worker {label}); finish the brief with what you have and \
         say in your result what you would have asked or delegated",
        input.tool
    ))
}
