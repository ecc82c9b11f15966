//! One debug session: the handshake that works for every adapter, the ops as typed requests
//! with typed results, the TTL watchdog, and teardown. Knows nothing of tools: it takes plain
//! arguments (paths, handles, deadlines) and returns `dap_types`-derived values that
//! [`crate::debug::render`] turns into text.
//!
//! Handshake (issue 6; docs/contract.md, `debug`): `initialize` (wait) → `launch`/`attach` (do not
//! wait) → on `initialized`: `setBreakpoints` per file, `setExceptionBreakpoints`,
//! `configurationDone` → then wait for both responses. The event thread
//! ([`crate::debug::events`]), not a waiter, records `initialized`, so the event is never lost
//! whichever order the adapter chooses (debugpy sends it after `launch`, lldb-dap 19 after the
//! launch response, dart right after `initialize`). Reverse requests (`runInTerminal`,
//! `startDebugging`) are not advertised and are refused.

use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use dap_types::requests::{self as req, Request as DapRequestType};
use parking_lot::{Condvar, Mutex};
use serde_json::Value;

use crate::debug::adapters::{self, AdapterId, BinarySearch, LaunchInputs, ProbeCache, ResolvedAdapter};
use crate::debug::connect::{self, Reach};
use crate::debug::events::{self, decode_body, BreakpointStatus, RunState, SessionState, StopInfo, UnansweredEvaluate};
use crate::debug::program::LaunchPlan;
use crate::debug::render::{self, MAX_STACK_FRAMES, MAX_VARIABLES};
use crate::debug::state::{resolve_breakpoints, BreakpointStore, FunctionBreakpointSpec, HandleKind, OutputRing, ResolvedBreakpoint};
use crate::debug::DebugConfig;
use crate::error::{ErrorKind, ToolError};
use crate::transport::process::{self, ProcessState};
use crate::transport::{PendingResponse, RpcConnection, RpcError, RpcErrorKind};

/// What a session debugs.
#[derive(Debug, Clone)]
pub enum SessionTarget {
    /// Start what the plan says (program, module or test) under its adapter.
    Launch(Box<LaunchPlan>),
    /// Attach to a debuggee already running, via a loopback `port`.
    Attach {
        /// The adapter.
        adapter: AdapterId,
        /// The port on 127.0.0.1.
        port: u16,
    },
}

impl SessionTarget {
    /// The adapter the target runs under.
    pub fn adapter(&self) -> AdapterId {
        match self {
            SessionTarget::Launch(plan) => plan.adapter,
            SessionTarget::Attach { adapter, .. } => *adapter,
        }
    }
}

/// Inputs of [`Session::start`].
#[derive(Debug)]
pub struct SessionStart<'a> {
    /// The session's number in the conversation (for its description).
    pub number: u64,
    /// What to debug.
    pub target: SessionTarget,
    /// The workspace root (absolute, canonical); roots are never searched above it.
    pub workspace_root: &'a Path,
    /// Timeouts and caps.
    pub config: &'a DebugConfig,
    /// The desired breakpoints, sent during the handshake.
    pub breakpoints: &'a BreakpointStore,
    /// The caller's deadline: every wait of the start is bounded by it.
    pub deadline: Instant,
    /// The run's workspace trust: restricted, the adapter binary and the adapter's python come
    /// from outside the workspace (the program itself still runs as asked).
    pub workspace_trust: crate::trust::WorkspaceTrust,
}

/// One frame of a stack trace, with the local handle the model uses as `frame_id`.
#[derive(Debug, Clone)]
pub struct FrameInfo {
    /// Local handle for `scopes` / `evaluate`.
    pub handle: u64,
    /// The adapter's name for the frame (function).
    pub name: String,
    /// The source file, when the adapter gave a path.
    pub path: Option<PathBuf>,
    /// The source's name when it has no path.
    pub source_name: Option<String>,
    /// 1-based line (0 when the adapter knows none).
    pub line: u64,
}

/// Where a stop happened.
#[derive(Debug, Clone)]
pub struct StoppedAt {
    /// The stop as the `stopped` event said.
    pub info: StopInfo,
    /// For an exception stop: the exception's id from `exceptionInfo` (when supported).
    pub exception: Option<String>,
    /// The top frames of the stopped thread (at most [`TOP_FRAMES`]), or why they could not
    /// be fetched.
    pub top_frames: Result<Vec<FrameInfo>, String>,
    /// The stack's depth as far as it was fetched (`totalFrames`, else the frames received).
    pub depth: u64,
}

/// How many frames a stop result shows.
pub const TOP_FRAMES: usize = 3;

/// Time kept back from a call's deadline for answering after a wait (the top frames, the
/// rendering): a wait for a stop ends this long before the deadline.
pub const ANSWER_RESERVE: Duration = Duration::from_secs(2);

/// What a continue / step / pause / launch waited for.
#[derive(Debug, Clone)]
pub enum StopOutcome {
    /// The program stopped.
    Stopped(StoppedAt),
    /// The program ended (exit code when known, and the adapter that reported it: the code of a
    /// death by signal depends on it).
    Exited(Option<i64>, AdapterId),
    /// The adapter or the session went away.
    Closed(String),
    /// Still running after waiting this long.
    StillRunning(Duration),
}

/// A stop wait.
#[derive(Debug, Clone)]
pub struct WaitReport {
    /// What happened.
    pub outcome: StopOutcome,
}

/// One note of the configuration step of the handshake.
#[derive(Debug, Clone)]
pub enum ConfigurationNote {
    /// A breakpoint as the adapter bound it.
    Breakpoint(BreakpointStatus),
    /// A function breakpoint as the adapter bound it.
    FunctionBreakpoint(FunctionBreakpointStatus),
    /// A file's breakpoints could not be sent.
    FileNotSet {
        /// The file.
        file: PathBuf,
        /// Why.
        message: String,
    },
    /// `setExceptionBreakpoints` failed.
    ExceptionFiltersNotSet(String),
    /// The exception filters set (with the unknown ones asked for).
    ExceptionFilters(ExceptionFiltersReport),
    /// Function breakpoints were asked for but the adapter does not support them.
    FunctionBreakpointsUnsupported(usize),
}

/// A function breakpoint as the adapter reports it.
#[derive(Debug, Clone)]
pub struct FunctionBreakpointStatus {
    /// The name asked for.
    pub name: String,
    /// Whether the adapter verified it.
    pub verified: bool,
    /// Where it bound, when reported.
    pub location: Option<(PathBuf, u64)>,
    /// The adapter's message.
    pub message: Option<String>,
}

/// The exception filters a session offers and which are on.
#[derive(Debug, Clone, Default)]
pub struct ExceptionFiltersReport {
    /// Every filter the adapter offers: (id, label, description, enabled now).
    pub available: Vec<(String, String, Option<String>, bool)>,
    /// Filters asked for that the adapter does not offer.
    pub unknown: Vec<String>,
    /// The filters are the adapter's defaults (none were asked for).
    pub defaults: bool,
}

/// What `launch` / `attach` did.
#[derive(Debug, Clone)]
pub struct LaunchReport {
    /// lldb with Rust: whether the toolchain's formatters were loaded (or why not).
    pub rust_formatters: Option<Result<PathBuf, String>>,
    /// The working directory of the program.
    pub cwd: PathBuf,
    /// The target.
    pub target: SessionTarget,
    /// The session's description (`debugpy session 1 on app.py`).
    pub description: String,
    /// The session's TTL.
    pub ttl: Duration,
    /// How long the handshake took.
    pub handshake: Duration,
    /// What was resolved (binary, python, debugpy version), when an adapter was spawned.
    pub adapter_summary: Option<String>,
    /// debugpy: the interpreter running the program.
    pub debuggee_python: Option<PathBuf>,
    /// The configuration step: breakpoints as bound, failures.
    pub configuration: Vec<ConfigurationNote>,
    /// The first stop (or exit, or still running).
    pub wait: WaitReport,
}

/// A session's identity and age.
#[derive(Debug, Clone)]
pub struct SessionSummary {
    /// `debugpy session 1 on app.py`.
    pub description: String,
    /// Time since start.
    pub age: Duration,
    /// The hard lifetime.
    pub ttl: Duration,
}

/// Why a session is over.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEnd {
    /// The TTL watchdog ended it (message).
    Expired(String),
    /// The adapter went away without the program ending (why).
    AdapterGone(String),
    /// The program ended (exit code when known, and the adapter that reported it).
    ProgramEnded(Option<i64>, AdapterId),
}

/// What polling an evaluate left in flight found.
#[derive(Debug, Clone)]
pub enum EvaluatePoll {
    /// No evaluate is in flight.
    Nothing,
    /// Still no answer.
    StillRunning {
        /// The expression.
        expression: String,
        /// Time since it was sent.
        waited: Duration,
    },
    /// It answered since (reported once).
    AnsweredLate {
        /// The expression.
        expression: String,
        /// Time from sending to this poll.
        waited: Duration,
        /// Its value, or why it has none.
        outcome: Result<VariableInfo, String>,
    },
}

/// An op's result with the one-time note about an evaluate that answered late (it rides on
/// the result, success or failure).
#[derive(Debug)]
pub struct WithLateEvaluate<T> {
    /// The late evaluate, if one answered since the last call.
    pub late: Option<EvaluatePoll>,
    /// The op's own result.
    pub result: Result<T, ToolError>,
}

/// The `status` of a session.
#[derive(Debug, Clone)]
pub struct SessionStatus {
    /// Identity and age.
    pub summary: SessionSummary,
    /// Where the program is.
    pub run: RunState,
    /// The stop generation.
    pub generation: u64,
    /// The exit code, when the program ended.
    pub exit_code: Option<i64>,
    /// The adapter (how it reports a death by signal as an exit code).
    pub adapter: AdapterId,
    /// Breakpoints as the adapter reports them, by file and requested line.
    pub breakpoints: Vec<BreakpointStatus>,
    /// An evaluate in flight or answered late.
    pub evaluate: EvaluatePoll,
    /// Function breakpoints as bound.
    pub function_breakpoints: Vec<FunctionBreakpointStatus>,
    /// The exception filters offered and on.
    pub exception_filters: ExceptionFiltersReport,
}

/// The resume ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeKind {
    /// DAP `continue`.
    Continue,
    /// DAP `next`.
    StepOver,
    /// DAP `stepIn`.
    StepIn,
    /// DAP `stepOut`.
    StepOut,
    /// DAP `pause`.
    Pause,
}

impl ResumeKind {
    /// The op name the model used (`continue`, `step_over`, …).
    pub fn op_name(self) -> &'static str {
        match self {
            ResumeKind::Continue => "continue",
            ResumeKind::StepOver => "step_over",
            ResumeKind::StepIn => "step_in",
            ResumeKind::StepOut => "step_out",
            ResumeKind::Pause => "pause",
        }
    }
}

/// What a resume op did.
#[derive(Debug, Clone)]
pub enum ResumeReport {
    /// `pause` while already stopped: nothing sent.
    AlreadyStopped(StopInfo),
    /// The request was sent and the next stop (or exit, or the budget) awaited.
    Waited {
        /// Which op.
        kind: ResumeKind,
        /// The thread it was sent for.
        thread: u64,
        /// Request plus wait.
        took: Duration,
        /// What happened.
        wait: WaitReport,
    },
}

/// One thread.
#[derive(Debug, Clone)]
pub struct ThreadInfo {
    /// The adapter's id.
    pub id: u64,
    /// Its name (empty when the adapter gave none).
    pub name: String,
}

/// A stack trace.
#[derive(Debug, Clone)]
pub struct StackReport {
    /// The thread.
    pub thread: u64,
    /// The stop generation the frame handles belong to.
    pub generation: u64,
    /// Frames, innermost first (at most [`MAX_STACK_FRAMES`]).
    pub frames: Vec<FrameInfo>,
    /// The adapter's `totalFrames`, when it said.
    pub total_frames: Option<u64>,
}

/// One scope of a frame.
#[derive(Debug, Clone)]
pub struct ScopeInfo {
    /// `Locals`, `Globals`, `Registers`, …
    pub name: String,
    /// Local handle for `variables`, `None` when the scope has no variables.
    pub handle: Option<u64>,
    /// Announced number of variables.
    pub count: Option<u64>,
    /// The adapter marks it expensive to fetch.
    pub expensive: bool,
}

/// One variable (or an evaluate result).
#[derive(Debug, Clone)]
pub struct VariableInfo {
    /// Name (or the expression).
    pub name: String,
    /// Type, when the adapter said.
    pub type_name: Option<String>,
    /// The value as the adapter rendered it (uncut).
    pub value: String,
    /// Local handle of its children, when it has any.
    pub handle: Option<u64>,
    /// Announced number of children.
    pub count: Option<u64>,
    /// The children of a small aggregate whose own value says little (`T @ 0x…`, `size=3`,
    /// `<T object at 0x…>`, a pointer), fetched one level deep.
    pub inline: Option<InlineChildren>,
}

/// One level of children shown inline with their parent.
#[derive(Debug, Clone)]
pub struct InlineChildren {
    /// (name, value) of the children fetched (at most [`MAX_INLINE_CHILDREN`]).
    pub items: Vec<(String, String)>,
    /// How many children the parent has (as far as known).
    pub total: u64,
    /// The children are indexed (`[0]`, `[1]`, …): a list.
    pub indexed: bool,
    /// The parent is a pointer and the one child its target.
    pub deref: bool,
}

/// At most this many children are shown inline with their parent; larger aggregates keep
/// their reference only.
pub const MAX_INLINE_CHILDREN: u64 = 8;
/// At most this many parents of one `variables` page get their children fetched inline.
pub const MAX_INLINE_EXPANSIONS: usize = 20;

/// A page of children.
#[derive(Debug, Clone)]
pub struct VariablesPage {
    /// The handle asked for.
    pub reference: u64,
    /// Index of the first child shown.
    pub start: u64,
    /// The children shown (at most [`MAX_VARIABLES`]).
    pub variables: Vec<VariableInfo>,
    /// The total number of children, when known.
    pub total: Option<u64>,
}

/// An evaluate result.
#[derive(Debug, Clone)]
pub struct EvaluateReport {
    /// The frame handle asked for (`None`: the top frame).
    pub frame: Option<u64>,
    /// The value.
    pub value: VariableInfo,
}

/// The captured output of the debuggee.
#[derive(Debug, Clone)]
pub struct OutputSnapshot {
    /// The session's description.
    pub description: String,
    /// Bytes ever written.
    pub total_bytes: u64,
    /// Bytes dropped because the ring was full.
    pub dropped_bytes: u64,
    /// The buffered output, labelled by stream (see [`OutputRing::render`]).
    pub text: String,
}

/// What teardown did.
#[derive(Debug, Clone)]
pub struct TeardownReport {
    /// The steps taken, in order (`disconnected with terminateDebuggee`, …).
    pub steps: Vec<&'static str>,
    /// Why the session ended.
    pub reason: String,
    /// An exit code first learned during teardown (delve tells it while disconnecting).
    pub late_exit_code: Option<i64>,
    /// The adapter of the session (how it reports a death by signal as an exit code).
    pub adapter: AdapterId,
    /// Set when the program was still alive at teardown and runbound's `disconnect` with
    /// `terminateDebuggee` was answered: the adapter then killed it (every adapter runbound
    /// drives sends SIGKILL), and [`crate::debug::render::teardown`] says so in one spelling
    /// whatever exit code the adapter reported for it.
    pub killed_on_request: Option<DebuggeeKilledOnRequest>,
}

/// The program's end that runbound's teardown asked the adapter for (`disconnect` with
/// `terminateDebuggee` on a live launched program).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebuggeeKilledOnRequest {
    /// The adapter that killed it.
    pub adapter: AdapterId,
    /// The exit code the adapter reported for that death, if any (debugpy: 247 = 256 − 9;
    /// lldb-dap: 9; delve reports none).
    pub reported_exit_code: Option<i64>,
}

/// A live debug session. Dropping it tears it down (see [`Session::terminate`]).
pub struct Session {
    inner: Arc<SessionInner>,
    event_thread: Option<JoinHandle<()>>,
    watchdog: Option<(Sender<()>, JoinHandle<()>)>,
    stdout_thread: Option<(Receiver<()>, JoinHandle<()>)>,
}

/// The part of a session its threads share.
pub(crate) struct SessionInner {
    adapter: AdapterId,
    is_attach: bool,
    /// e.g. "debugpy session 1 on main.py".
    description: String,
    started_at: Instant,
    ttl: Duration,
    request_timeout: Duration,
    resume_timeout: Duration,
    disconnect_timeout: Duration,
    pub(crate) connection: Mutex<Option<RpcConnection>>,
    adapter_pid: Option<u32>,
    tcp: Option<TcpStream>,
    pub(crate) state: Mutex<SessionState>,
    pub(crate) changed: Condvar,
    pub(crate) output: Arc<Mutex<OutputRing>>,
    teardown: Mutex<Option<TeardownReport>>,
    temp_dir: Mutex<Option<tempfile::TempDir>>,
    /// The adapter answers `exceptionInfo` (capability `supportsExceptionInfoRequest`).
    supports_exception_info: AtomicBool,
    /// What the adapter answered to `initialize`.
    capabilities: OnceLock<dap_types::Capabilities>,
    /// The output ring position up to which output was reported to the model.
    reported_output: AtomicU64,
    /// Function breakpoints as bound.
    function_breakpoints: Mutex<Vec<FunctionBreakpointStatus>>,
    /// The exception filters on now.
    exception_filters: Mutex<ExceptionFiltersReport>,
}

impl Session {
    /// Starts a session: resolves root and adapter (the intersection of R-DBG-1), spawns or
    /// connects, runs the handshake with the stored breakpoints, and waits for the first stop
    /// (or exit, or `resume_timeout`), all bounded by `start.deadline`.
    ///
    /// # Errors
    /// `unavailable` naming the missing root marker or binary; `failed` with the adapter's own
    /// message when launch/attach is refused; `timeout` naming the handshake step.
    pub fn start(start: SessionStart<'_>, probe_cache: &mut ProbeCache) -> Result<(Session, LaunchReport), ToolError> {
        let SessionStart { number, target, workspace_root, config, breakpoints, deadline, workspace_trust } = start;
        let search = BinarySearch::from_env(&config.extra_binary_dirs).restricted_to(workspace_trust, workspace_root);
        let adapter = target.adapter();
        let is_attach = matches!(target, SessionTarget::Attach { .. });
        let spec = adapter.spec();

        // Root: marker in the program's directory or above (lldb: also a lone source beside
        // the executable). Attach: the workspace root.
        let root = match &target {
            SessionTarget::Launch(plan) => {
                let start_dir = plan.root_hint.clone();
                let shown = &plan.description;
                match adapters::find_root_marker(adapter, &start_dir, workspace_root) {
                    Some((root, _marker)) => root,
                    None => {
                        match (adapter, plan.program.as_deref().and_then(|program| adapters::lone_source_root(program, workspace_root))) {
                            (AdapterId::Lldb, Some(root)) => root,
                            _ => {
                                return Err(ToolError::new(
                                    ErrorKind::Unavailable,
                                    format!(
                                "{}: no root marker for {} ({}) in {} or any parent up to the workspace root; the adapter was not started",
                                spec.name,
                                shown,
                                spec.root_markers.join(", "),
                                render::display_path(workspace_root, &start_dir),
                            ),
                                )
                                .with_hint("call debug op \"adapters\" to see what is available, or add the project's marker file"))
                            }
                        }
                    }
                }
            }
            SessionTarget::Attach { .. } => workspace_root.to_path_buf(),
        };

        if let SessionTarget::Attach { adapter: AdapterId::Dart, .. } = target {
            return Err(ToolError::invalid(format!("dart cannot attach by port: {}", spec.attach_form)));
        }
        // Attach to debugpy.listen or a headless delve: the port is a DAP server itself.
        let direct_attach = matches!(target, SessionTarget::Attach { adapter: AdapterId::Debugpy | AdapterId::Delve, .. });
        let resolved = if direct_attach {
            None
        } else {
            Some(adapters::resolve_adapter_binary(adapter, &root, &search, config, probe_cache).map_err(|missing| {
                ToolError::new(ErrorKind::Unavailable, format!("{}: {missing}; the adapter was not started", spec.name))
                    .with_hint("call debug op \"adapters\" to see which adapters can run here")
            })?)
        };

        // A module run under the debuggee's python must be importable there (pytest for tests).
        if let (SessionTarget::Launch(plan), Some(resolved)) = (&target, &resolved) {
            if let Some(module) = plan.module.as_deref() {
                let python = plan.debuggee_python.clone().or_else(|| resolved.debuggee_python.clone());
                if let Some(python) = python {
                    adapters::probe_module(&python, module, &root, config.probe_timeout).map_err(|why| {
                        ToolError::new(
                            ErrorKind::Unavailable,
                            format!("{module} cannot be imported by {} (the python that runs the program): {why}", python.display()),
                        )
                        .with_hint(format!("install it for that interpreter: `{} -m pip install {module}`", python.display()))
                    })?;
                }
            }
        }

        let output = Arc::new(Mutex::new(OutputRing::new(config.output_ring_bytes)));
        let label = format!("debug-{}", spec.name);
        let (peer_name, reach) = match (&resolved, &target) {
            (Some(resolved), _) => (format!("{} @ {}", resolved.command.program.display(), root.display()), Reach::Spawn(resolved)),
            (None, SessionTarget::Attach { port, .. }) => (format!("{} at 127.0.0.1:{port}", spec.name), Reach::Port(*port)),
            (None, SessionTarget::Launch { .. }) => unreachable!("launch always resolves an adapter"),
        };
        crate::progress::report_phase(Some(deadline), || format!("starting the {} debug adapter ({peer_name})", spec.name));
        let link = connect::connect(spec, reach, &peer_name, &label, &output, config.initialize_timeout, workspace_root)?;
        let incoming = link.connection.incoming().clone();
        let description = match &target {
            SessionTarget::Launch(plan) => format!("{} session {number} on {}", spec.name, plan.description),
            SessionTarget::Attach { port, .. } => format!("{} session {number} attached to 127.0.0.1:{port}", spec.name),
        };
        let inner = Arc::new(SessionInner {
            adapter,
            is_attach,
            description,
            started_at: Instant::now(),
            ttl: config.session_ttl,
            request_timeout: config.request_timeout,
            resume_timeout: config.resume_timeout,
            disconnect_timeout: config.disconnect_timeout,
            connection: Mutex::new(Some(link.connection)),
            adapter_pid: link.adapter_pid,
            tcp: link.tcp,
            state: Mutex::new(SessionState::default()),
            changed: Condvar::new(),
            output,
            teardown: Mutex::new(None),
            temp_dir: Mutex::new(None),
            supports_exception_info: AtomicBool::new(false),
            capabilities: OnceLock::new(),
            reported_output: AtomicU64::new(0),
            function_breakpoints: Mutex::new(Vec::new()),
            exception_filters: Mutex::new(ExceptionFiltersReport::default()),
        });
        let event_inner = Arc::clone(&inner);
        let event_thread = std::thread::Builder::new()
            .name(format!("runbound-{label}-events"))
            .spawn(move || events::pump_events(&event_inner, &incoming))
            .map_err(|err| ToolError::failed(format!("cannot start the event thread: {err}")))?;
        let (watchdog_tx, watchdog_rx) = crossbeam_channel::bounded::<()>(0);
        let weak: Weak<SessionInner> = Arc::downgrade(&inner);
        let ttl = config.session_ttl;
        let watchdog_thread = std::thread::Builder::new()
            .name(format!("runbound-{label}-ttl"))
            .spawn(move || {
                if let Err(crossbeam_channel::RecvTimeoutError::Timeout) = watchdog_rx.recv_timeout(ttl) {
                    if let Some(inner) = weak.upgrade() {
                        let reason = format!("the session reached its TTL of {} and was terminated", render::format_duration(ttl));
                        inner.state.lock().expired = Some(reason.clone());
                        inner.teardown(&reason);
                        inner.changed.notify_all();
                    }
                }
            })
            .map_err(|err| ToolError::failed(format!("cannot start the TTL thread: {err}")))?;
        let session = Session {
            inner,
            event_thread: Some(event_thread),
            watchdog: Some((watchdog_tx, watchdog_thread)),
            stdout_thread: link.stdout_thread,
        };
        // From here on, dropping `session` on an error tears everything down.
        let report = session.handshake(config, target, &root, workspace_root, resolved.as_ref(), breakpoints, deadline)?;
        Ok((session, report))
    }

    #[allow(clippy::too_many_arguments)]
    fn handshake(
        &self,
        config: &DebugConfig,
        target: SessionTarget,
        root: &Path,
        workspace_root: &Path,
        resolved: Option<&ResolvedAdapter>,
        breakpoints: &BreakpointStore,
        deadline: Instant,
    ) -> Result<LaunchReport, ToolError> {
        let inner = &self.inner;
        let started = Instant::now();
        let spec = inner.adapter.spec();
        let remaining = || deadline.saturating_duration_since(Instant::now());
        let initialize_arguments = dap_types::InitializeRequestArguments {
            client_id: Some("runbound".to_owned()),
            client_name: Some("runbound".to_owned()),
            adapter_id: spec.name.to_owned(),
            locale: Some("en-US".to_owned()),
            lines_start_at1: Some(true),
            columns_start_at1: Some(true),
            path_format: Some(dap_types::InitializeRequestArgumentsPathFormat::Path),
            supports_variable_type: Some(true),
            supports_variable_paging: Some(true),
            supports_run_in_terminal_request: Some(false),
            supports_memory_references: Some(false),
            supports_progress_reporting: Some(false),
            supports_invalidated_event: Some(false),
            supports_memory_event: Some(false),
            supports_args_can_be_interpreted_by_shell: Some(false),
            supports_start_debugging_request: Some(false),
        };
        crate::progress::report_phase(Some(deadline), || format!("{}: initialize", spec.name));
        let capabilities = inner
            .request_typed::<req::Initialize>(initialize_arguments, config.initialize_timeout.min(remaining()))
            .map_err(|err| err.with_hint(format!("is {} a working DAP adapter? check `debug adapters`", spec.command_display)))?;
        inner.supports_exception_info.store(capabilities.supports_exception_info_request == Some(true), Ordering::Relaxed);
        let _ = inner.capabilities.set(capabilities.clone());

        let mut debuggee_python = resolved.and_then(|r| r.debuggee_python.clone());
        let mut rust_formatters = None;
        let mut cwd = root.to_path_buf();
        let (command, arguments, launch_budget, launch_phase) = match &target {
            SessionTarget::Launch(plan) => {
                if plan.debuggee_python.is_some() {
                    debuggee_python = plan.debuggee_python.clone();
                }
                if let Some(plan_cwd) = &plan.cwd {
                    cwd = plan_cwd.clone();
                }
                let mut init_commands = Vec::new();
                if plan.rust_formatters && inner.adapter == AdapterId::Lldb {
                    let loaded = adapters::rust_sysroot(root, config.probe_timeout)
                        .and_then(|sysroot| adapters::rust_formatter_commands(&sysroot).map(|commands| (sysroot, commands)));
                    rust_formatters = Some(match loaded {
                        Ok((sysroot, commands)) => {
                            init_commands = commands;
                            Ok(sysroot)
                        }
                        Err(why) => Err(why),
                    });
                    init_commands.extend(adapters::rust_primitive_format_commands());
                    inner.state.lock().rust_debuggee = true;
                }
                let mut launch_args = adapters::launch_arguments(
                    inner.adapter,
                    &LaunchInputs {
                        program: plan.program.as_deref(),
                        module: plan.module.as_deref(),
                        delve_mode: plan.delve_mode.map(|mode| mode.as_str()),
                        args: &plan.args,
                        cwd: &cwd,
                        env: &plan.env,
                        debuggee_python: debuggee_python.as_deref(),
                        init_commands: &init_commands,
                    },
                );
                if inner.adapter == AdapterId::Delve {
                    // Build output goes to a temp dir, not into the user's module.
                    let temp = tempfile::Builder::new()
                        .prefix("runbound-dlv-")
                        .tempdir()
                        .map_err(|err| ToolError::failed(format!("cannot create a temp dir: {err}")))?;
                    launch_args["output"] = Value::String(temp.path().join("__debug_bin").to_string_lossy().into_owned());
                    *inner.temp_dir.lock() = Some(temp);
                }
                let builds = inner.adapter == AdapterId::Delve && (launch_args["mode"] == "debug" || launch_args["mode"] == "test");
                let budget = if builds { config.build_launch_timeout } else { config.launch_timeout };
                let phase = if builds { "building and launching" } else { "launching" };
                (req::Launch::COMMAND, launch_args, budget, format!("{}: {phase} {}", spec.name, plan.description))
            }
            SessionTarget::Attach { port, .. } => {
                let arguments = adapters::attach_arguments(inner.adapter, *port, root)
                    .ok_or_else(|| ToolError::invalid(format!("{} cannot attach by port: {}", spec.name, spec.attach_form)))?;
                (req::Attach::COMMAND, arguments, config.launch_timeout, format!("{}: attaching to 127.0.0.1:{port}", spec.name))
            }
        };
        let handshake_deadline = Instant::now() + launch_budget.min(remaining());
        let launch_pending = inner.send(command, arguments)?;

        // Wait for `initialized` (recorded by the event thread) or an early launch failure.
        let mut launch_result: Option<Result<Value, RpcError>> = None;
        let launch_started = Instant::now();
        loop {
            // The launch phase, for a host that listens (delve builds the program here).
            crate::progress::report_phase(Some(deadline), || format!("{launch_phase} ({} s)", launch_started.elapsed().as_secs()));
            if inner.state.lock().initialized {
                break;
            }
            if let Ok(result) = launch_pending.receiver().try_recv() {
                if let Err(err) = &result {
                    return Err(inner.launch_failure(command, err));
                }
                launch_result = Some(result);
            }
            if let Some(closed) = inner.state.lock().closed.clone() {
                return Err(ToolError::new(
                    ErrorKind::Unavailable,
                    format!("{command} failed: the adapter went away during the handshake: {closed}"),
                ));
            }
            if Instant::now() >= handshake_deadline {
                return Err(ToolError::new(
                    ErrorKind::Timeout,
                    format!("{command}: no `initialized` event from {} within {} ms", spec.name, launch_budget.as_millis()),
                )
                .with_hint("the adapter may still be building the program; retry with a larger timeout"));
            }
            let mut state = inner.state.lock();
            if !state.initialized {
                inner.changed.wait_for(&mut state, Duration::from_millis(20));
            }
        }

        // Configuration: breakpoints per file, exception breakpoints, configurationDone.
        crate::progress::report_phase(Some(deadline), || {
            format!(
                "{}: setting {} breakpoint(s), then configurationDone",
                spec.name,
                breakpoints.files().map(|(_, specs)| specs.len()).sum::<usize>()
            )
        });
        let mut configuration = Vec::new();
        for (file, specs) in breakpoints.files() {
            if specs.is_empty() {
                continue;
            }
            let sent = resolve_breakpoints(workspace_root, file, specs)
                .map_err(ToolError::invalid)
                .and_then(|resolved| inner.set_breakpoints(file, &resolved));
            match sent {
                Ok(statuses) => configuration.extend(statuses.into_iter().map(ConfigurationNote::Breakpoint)),
                Err(err) => configuration.push(ConfigurationNote::FileNotSet { file: file.clone(), message: err.message }),
            }
        }
        if !breakpoints.functions().is_empty() {
            match inner.set_function_breakpoints(breakpoints.functions()) {
                Ok(Some(statuses)) => configuration.extend(statuses.into_iter().map(ConfigurationNote::FunctionBreakpoint)),
                Ok(None) => configuration.push(ConfigurationNote::FunctionBreakpointsUnsupported(breakpoints.functions().len())),
                Err(err) => {
                    configuration.push(ConfigurationNote::ExceptionFiltersNotSet(format!("function breakpoints not set: {}", err.message)))
                }
            }
        }
        if capabilities.exception_breakpoint_filters.as_ref().is_some_and(|filters| !filters.is_empty())
            || breakpoints.exception_filters().is_some()
        {
            match inner.set_exception_filters(breakpoints.exception_filters()) {
                Ok(report) => {
                    if breakpoints.exception_filters().is_some() || !report.unknown.is_empty() {
                        configuration.push(ConfigurationNote::ExceptionFilters(report));
                    }
                }
                Err(err) => configuration.push(ConfigurationNote::ExceptionFiltersNotSet(err.message)),
            }
        }
        if capabilities.supports_configuration_done_request != Some(false) {
            inner.request_unit::<req::ConfigurationDone>(dap_types::ConfigurationDoneArguments, inner.request_timeout)?;
        }
        let launch_result = match launch_result {
            Some(result) => result,
            None => launch_pending.wait_until(handshake_deadline.max(Instant::now() + Duration::from_millis(1))),
        };
        if let Err(err) = &launch_result {
            // A program that ran to completion during the handshake is not a failure.
            let state = inner.state.lock();
            if !(state.terminated || state.exit_code.is_some()) {
                drop(state);
                return Err(inner.launch_failure(command, err));
            }
        }
        {
            let mut state = inner.state.lock();
            if state.run == RunState::Starting {
                state.run = RunState::Running;
            }
        }
        let first_stop = config.first_stop_timeout.min(config.resume_timeout).min(remaining().saturating_sub(ANSWER_RESERVE));
        let outcome = inner.wait_for_stop(0, first_stop);
        inner.record_debuggee_processes();
        let wait = WaitReport { outcome };
        Ok(LaunchReport {
            rust_formatters,
            cwd,
            target,
            description: inner.description.clone(),
            ttl: inner.ttl,
            handshake: started.elapsed(),
            adapter_summary: resolved.map(|r| r.summary.clone()),
            debuggee_python,
            configuration,
            wait,
        })
    }

    /// The session's identity, age and TTL.
    pub fn summary(&self) -> SessionSummary {
        SessionSummary { description: self.inner.description.clone(), age: self.inner.started_at.elapsed(), ttl: self.inner.ttl }
    }

    /// The adapter this session runs.
    pub fn adapter(&self) -> AdapterId {
        self.inner.adapter
    }

    /// Why the session is over (TTL, adapter gone, program ended), or `None` while live.
    pub fn finished(&self) -> Option<SessionEnd> {
        self.inner.refresh_liveness();
        let state = self.inner.state.lock();
        if let Some(expired) = &state.expired {
            return Some(SessionEnd::Expired(expired.clone()));
        }
        if let Some(closed) = &state.closed {
            if state.exit_code.is_none() && !state.terminated {
                return Some(SessionEnd::AdapterGone(closed.clone()));
            }
        }
        if state.terminated || state.exit_code.is_some() {
            return Some(SessionEnd::ProgramEnded(state.exit_code, self.inner.adapter));
        }
        None
    }

    /// Whether the session is over.
    pub fn is_finished(&self) -> bool {
        self.finished().is_some()
    }

    /// The adapter's pid (process-group leader), when runbound spawned it.
    pub fn adapter_pid(&self) -> Option<u32> {
        self.inner.adapter_pid
    }

    /// Pids of the adapter and of the debuggee processes seen under it.
    pub fn process_ids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self.inner.adapter_pid.into_iter().collect();
        pids.extend(self.inner.state.lock().debuggee_processes.iter().map(|identity| identity.pid));
        pids
    }

    /// The output that arrived since it was last reported (by this or by [`Session::output`]),
    /// rendered with stream labels, and marks it reported; empty when none arrived.
    pub fn take_new_output(&self) -> String {
        let output = self.inner.output.lock();
        let since = self.inner.reported_output.swap(output.total_bytes(), Ordering::Relaxed);
        output.render_since(since)
    }

    /// The debuggee's captured output (all of the ring); marks it reported.
    pub fn output(&self) -> OutputSnapshot {
        let output = self.inner.output.lock();
        self.inner.reported_output.store(output.total_bytes(), Ordering::Relaxed);
        OutputSnapshot {
            description: self.inner.description.clone(),
            total_bytes: output.total_bytes(),
            dropped_bytes: output.dropped_bytes(),
            text: output.render(),
        }
    }

    /// Where the program is, and the breakpoints as the adapter reports them.
    pub fn status(&self) -> SessionStatus {
        let inner = &self.inner;
        let evaluate = inner.poll_unanswered_evaluate();
        let state = inner.state.lock();
        let mut breakpoints: Vec<BreakpointStatus> = state.breakpoints.values().chain(state.unbound_breakpoints.iter()).cloned().collect();
        breakpoints.sort_by(|a, b| (&a.file, a.requested_line).cmp(&(&b.file, b.requested_line)));
        SessionStatus {
            summary: self.summary(),
            run: state.run.clone(),
            generation: state.generation,
            exit_code: state.exit_code,
            adapter: inner.adapter,
            breakpoints,
            evaluate,
            function_breakpoints: inner.function_breakpoints.lock().clone(),
            exception_filters: inner.exception_filters.lock().clone(),
        }
    }

    /// Sends the breakpoints of `file` to the running adapter; each as bound (or why it was
    /// not sent: an extra the adapter does not support).
    ///
    /// # Errors
    /// The session is over, or the adapter refused or did not answer `setBreakpoints`.
    pub fn set_breakpoints(&self, file: &Path, breakpoints: &[ResolvedBreakpoint]) -> Result<Vec<BreakpointStatus>, ToolError> {
        self.inner.check_alive()?;
        self.inner.set_breakpoints(file, breakpoints)
    }

    /// Replaces the function breakpoints; `None` when the adapter does not support them.
    ///
    /// # Errors
    /// The session is over, or `setFunctionBreakpoints` failed.
    pub fn set_function_breakpoints(
        &self,
        functions: &[FunctionBreakpointSpec],
    ) -> Result<Option<Vec<FunctionBreakpointStatus>>, ToolError> {
        self.inner.check_alive()?;
        self.inner.set_function_breakpoints(functions)
    }

    /// Sets the exception filters (`None`: the adapter's defaults); the report lists every
    /// filter the adapter offers and the unknown ones asked for.
    ///
    /// # Errors
    /// The session is over, or `setExceptionBreakpoints` failed.
    pub fn set_exception_filters(&self, filters: Option<&[String]>) -> Result<ExceptionFiltersReport, ToolError> {
        self.inner.check_alive()?;
        self.inner.set_exception_filters(filters)
    }

    /// continue / step_over / step_in / step_out / pause on `thread` (default: the stopped
    /// thread, else the first), then waits for the next stop, the program's end or the resume
    /// budget (also bounded by `deadline`).
    pub fn resume(&self, kind: ResumeKind, thread: Option<u64>, deadline: Instant) -> WithLateEvaluate<ResumeReport> {
        if let Err(err) = self.inner.check_alive() {
            return WithLateEvaluate { late: None, result: Err(err) };
        }
        // `pause` is harmless while an evaluate runs (it says "already stopped").
        let late = if kind == ResumeKind::Pause {
            None
        } else {
            match self.inner.refuse_while_evaluating(kind.op_name()) {
                Ok(late) => late,
                Err(err) => return WithLateEvaluate { late: None, result: Err(err) },
            }
        };
        WithLateEvaluate { late, result: self.inner.resume_now(kind, thread, deadline) }
    }

    /// The adapter's threads and which one is stopped.
    ///
    /// # Errors
    /// The session is over, or `threads` failed.
    pub fn threads(&self) -> Result<(Vec<ThreadInfo>, Option<u64>), ToolError> {
        self.inner.check_alive()?;
        let threads = self.inner.threads()?;
        Ok((threads, self.inner.stopped_thread()))
    }

    /// The stack of `thread` (default: the stopped one), at most [`MAX_STACK_FRAMES`] frames.
    ///
    /// # Errors
    /// `conflict` while running; the session is over; `stackTrace` failed.
    pub fn stack(&self, thread: Option<u64>) -> Result<StackReport, ToolError> {
        let inner = &self.inner;
        inner.check_alive()?;
        inner.require_stopped("stack")?;
        let thread = inner.default_thread(thread)?;
        let body = inner.stack_trace(thread)?;
        let mut state = inner.state.lock();
        let generation = state.generation;
        let frames = body.stack_frames.iter().take(MAX_STACK_FRAMES as usize).map(|frame| frame_info(&mut state, frame)).collect();
        Ok(StackReport { thread, generation, frames, total_frames: body.total_frames })
    }

    /// The scopes of frame handle `frame`.
    ///
    /// # Errors
    /// A stale, unknown or wrong-kind handle (`conflict`); `scopes` failed.
    pub fn scopes(&self, frame: u64) -> Result<Vec<ScopeInfo>, ToolError> {
        let inner = &self.inner;
        inner.check_alive()?;
        let raw = inner.resolve_handle(frame, HandleKind::Frame)?;
        let body = inner.request_typed::<req::Scopes>(dap_types::ScopesArguments { frame_id: raw }, inner.request_timeout)?;
        let mut state = inner.state.lock();
        let generation = state.generation;
        let scopes = body
            .scopes
            .iter()
            .map(|scope| {
                let count = child_count(scope.named_variables, scope.indexed_variables);
                let handle = (scope.variables_reference > 0)
                    .then(|| state.handles.insert(generation, HandleKind::Variables, scope.variables_reference));
                if let (Some(handle), Some(count)) = (handle, count) {
                    state.child_counts.insert(handle, count);
                }
                ScopeInfo { name: scope.name.clone(), handle, count, expensive: scope.expensive }
            })
            .collect();
        Ok(scopes)
    }

    /// Children of variables handle `reference` from index `start`, at most
    /// [`MAX_VARIABLES`].
    ///
    /// # Errors
    /// A stale, unknown or wrong-kind handle (`conflict`); `variables` failed.
    pub fn variables(&self, reference: u64, start: u64) -> Result<VariablesPage, ToolError> {
        let inner = &self.inner;
        inner.check_alive()?;
        let raw = inner.resolve_handle(reference, HandleKind::Variables)?;
        let paged = dap_types::VariablesArguments {
            variables_reference: raw,
            filter: None,
            start: Some(start),
            count: Some(MAX_VARIABLES),
            format: None,
        };
        let mut variables = inner.request_typed::<req::Variables>(paged, inner.request_timeout)?.variables;
        let known_total = inner.state.lock().child_counts.get(&reference).copied();
        // debugpy pages only indexed children and then drops the rest of the window: when the
        // adapter answered short of what the parent announced, fetch unpaged and window here.
        let mut unpaged = false;
        if (variables.len() as u64) < MAX_VARIABLES && known_total.is_some_and(|total| total > start + variables.len() as u64) {
            let all = dap_types::VariablesArguments { variables_reference: raw, filter: None, start: None, count: None, format: None };
            variables = inner.request_typed::<req::Variables>(all, inner.request_timeout)?.variables;
            unpaged = true;
        }
        let returned = variables.len();
        // An adapter that ignored paging sent everything: apply the window ourselves.
        let windowed_here = unpaged || returned as u64 > MAX_VARIABLES;
        if windowed_here {
            variables = variables.into_iter().skip(start as usize).take(MAX_VARIABLES as usize).collect();
        }
        let mut state = inner.state.lock();
        let generation = state.generation;
        let variables: Vec<VariableInfo> = variables
            .iter()
            .map(|variable| {
                variable_info(
                    &mut state,
                    generation,
                    inner.adapter,
                    &variable.name,
                    variable.type_.as_deref(),
                    &variable.value,
                    variable.variables_reference,
                    child_count(variable.named_variables, variable.indexed_variables),
                )
            })
            .collect();
        let total = if windowed_here { Some(returned as u64) } else { known_total };
        let mut variables: Vec<VariableInfo> = variables;
        drop(state);
        let mut expansions = 0;
        for variable in &mut variables {
            if expansions >= MAX_INLINE_EXPANSIONS {
                break;
            }
            if let Some(inline) = inner.inline_children(variable) {
                variable.inline = Some(inline);
                expansions += 1;
            }
        }
        Ok(VariablesPage { reference, start, variables, total })
    }

    /// Evaluates `expression` in frame handle `frame` (default: the top frame of the stopped
    /// thread), in the adapter's evaluate context (`repl`, or `watch` for lldb).
    pub fn evaluate(&self, expression: &str, frame: Option<u64>) -> WithLateEvaluate<EvaluateReport> {
        if let Err(err) = self.inner.check_alive() {
            return WithLateEvaluate { late: None, result: Err(err) };
        }
        match self.inner.refuse_while_evaluating(&format!("evaluate `{expression}`")) {
            Ok(late) => WithLateEvaluate { late, result: self.inner.evaluate_now(expression, frame) },
            Err(err) => WithLateEvaluate { late: None, result: Err(err) },
        }
    }

    /// Ends the session: `disconnect` (terminateDebuggee for launches) → bounded wait → kill
    /// the adapter's process group and any debuggee left → join the threads. Idempotent.
    pub fn terminate(mut self, reason: &str) -> TeardownReport {
        let report = self.inner.teardown(reason);
        self.join_threads();
        report
    }

    fn join_threads(&mut self) {
        if let Some((stop, handle)) = self.watchdog.take() {
            drop(stop);
            let _ = handle.join();
        }
        if let Some(handle) = self.event_thread.take() {
            let _ = handle.join();
        }
        if let Some((done, handle)) = self.stdout_thread.take() {
            // The pipe closes once the adapter and the debuggee are dead; bounded anyway.
            if done.recv_timeout(Duration::from_secs(2)).is_ok() || handle.is_finished() {
                let _ = handle.join();
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.inner.teardown("the session was dropped");
        self.join_threads();
    }
}

/// A frame as the model sees it: the adapter's frame id replaced by a generation-stamped handle.
fn frame_info(state: &mut SessionState, frame: &dap_types::StackFrame) -> FrameInfo {
    let generation = state.generation;
    let handle = state.handles.insert(generation, HandleKind::Frame, frame.id);
    FrameInfo {
        handle,
        name: frame.name.clone(),
        path: frame.source.as_ref().and_then(|source| source.path.as_ref()).map(PathBuf::from),
        source_name: frame.source.as_ref().and_then(|source| source.name.clone()),
        line: frame.line,
    }
}

#[allow(clippy::too_many_arguments)]
fn variable_info(
    state: &mut SessionState,
    generation: u64,
    adapter: AdapterId,
    name: &str,
    type_name: Option<&str>,
    value: &str,
    reference: u64,
    count: Option<u64>,
) -> VariableInfo {
    let handle = (reference > 0).then(|| state.handles.insert(generation, HandleKind::Variables, reference));
    if let (Some(handle), Some(count)) = (handle, count) {
        state.child_counts.insert(handle, count);
    }
    let value = value_shown(adapter, state.rust_debuggee, value);
    let type_name = type_name.map(|type_name| type_name_shown(state.rust_debuggee, type_name));
    VariableInfo { name: name.to_owned(), type_name, value, handle, count, inline: None }
}

/// A value as shown: [`value_as_the_debugger_prints_it`], then for a Rust program under lldb its
/// `char32_t` renderings as Rust chars ([`render::rust_chars_from_lldb`]).
fn value_shown(adapter: AdapterId, rust_debuggee: bool, value: &str) -> String {
    let value = value_as_the_debugger_prints_it(adapter, value);
    if rust_debuggee {
        render::rust_chars_from_lldb(&value)
    } else {
        value
    }
}

/// A type name as shown: for a Rust program under lldb, Rust's names of its primitive types
/// ([`render::rust_type_name_from_lldb`]).
fn type_name_shown(rust_debuggee: bool, type_name: &str) -> String {
    if rust_debuggee {
        render::rust_type_name_from_lldb(type_name)
    } else {
        type_name.to_owned()
    }
}

/// The adapter's `value` text, mended where the adapter's DAP layer garbles what its own CLI
/// prints. delve's DAP server appends ` = %#x` of `strconv.ParseUint(value)` to every unsigned
/// integer; for a named constant (`reflect.Kind` → `String (24)`, a flag set `A|B`) the parse
/// fails and the suffix is always ` = 0x0`, which reads as a zero value. That suffix is dropped
/// (the dlv CLI prints `String (24)`); a plain number keeps its hex (`24 = 0x18`).
fn value_as_the_debugger_prints_it(adapter: AdapterId, value: &str) -> String {
    if adapter == AdapterId::Delve {
        if let Some(text) = value.strip_suffix(" = 0x0") {
            if !text.is_empty() && text.parse::<u64>().is_err() {
                return text.to_owned();
            }
        }
    }
    value.to_owned()
}

/// Whether a value says little about its contents, so its children are worth showing inline:
/// lldb's `T @ 0x…` and `size=N`, Python's default `<T object at 0x…>`, an empty or `{...}`
/// value, a bare pointer.
fn value_hides_contents(value: &str) -> bool {
    let value = value.trim();
    value.is_empty()
        || value == "{...}"
        || value == "{…}"
        || value.contains(" @ 0x")
        || value.starts_with("size=")
        || (value.starts_with('<') && value.contains(" object at 0x") && value.ends_with('>'))
        || (value.starts_with("0x") && value[2..].chars().all(|c| c.is_ascii_hexdigit()))
}

fn child_count(named: Option<u64>, indexed: Option<u64>) -> Option<u64> {
    match (named, indexed) {
        (None, None) => None,
        (named, indexed) => Some(named.unwrap_or(0) + indexed.unwrap_or(0)),
    }
}

/// `value` as JSON with every `null` removed (dap-types serializes each absent optional as
/// `null`, which some adapters reject: debugpy tolerates it, gdb's adapter does not).
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, without_nulls(v))).collect()),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

impl SessionInner {
    fn send(&self, command: &str, arguments: Value) -> Result<PendingResponse, ToolError> {
        let connection = self.connection.lock();
        let Some(connection) = connection.as_ref() else {
            return Err(self.gone_error(command));
        };
        connection.send_request(command, arguments).map_err(|err| self.rpc_error(command, &err))
    }

    fn request_raw(&self, command: &str, arguments: Value, timeout: Duration) -> Result<Value, ToolError> {
        let pending = self.send(command, arguments)?;
        pending.wait(timeout).map_err(|err| self.rpc_error(command, &err))
    }

    fn encode<R: DapRequestType>(arguments: R::Arguments) -> Result<Value, ToolError> {
        let value = serde_json::to_value(arguments).map_err(|err| ToolError::failed(format!("cannot encode {}: {err}", R::COMMAND)))?;
        Ok(without_nulls(value))
    }

    /// Sends `R` and decodes its body into `R::Response` (leniently, see
    /// [`events::decode_body`]); an absent body counts as `{}`.
    fn request_typed<R: DapRequestType>(&self, arguments: R::Arguments, timeout: Duration) -> Result<R::Response, ToolError> {
        let body = self.request_raw(R::COMMAND, Self::encode::<R>(arguments)?, timeout)?;
        let body = if body.is_null() { Value::Object(serde_json::Map::new()) } else { body };
        decode_body(&body).ok_or_else(|| {
            ToolError::failed(format!(
                "{} answered {} with a body runbound cannot read: {}",
                self.adapter.name(),
                R::COMMAND,
                render::cut_chars(&body.to_string(), 400)
            ))
        })
    }

    /// Sends `R` whose response has no body worth reading.
    fn request_unit<R: DapRequestType<Response = ()>>(&self, arguments: R::Arguments, timeout: Duration) -> Result<(), ToolError> {
        self.request_raw(R::COMMAND, Self::encode::<R>(arguments)?, timeout).map(drop)
    }

    fn rpc_error(&self, command: &str, err: &RpcError) -> ToolError {
        match err.kind {
            RpcErrorKind::ErrorResponse => {
                let message = err.response_error.as_ref().map_or_else(|| err.message.clone(), |e| e.message.clone());
                ToolError::failed(format!("{} refused {command}: {message}", self.adapter.name()))
            }
            RpcErrorKind::PeerClosed => ToolError::new(
                ErrorKind::Unavailable,
                format!("{command} failed: the debug adapter of {} went away: {}", self.description, err.message),
            )
            .with_hint("the session is over; call debug op \"launch\" again"),
            RpcErrorKind::Timeout | RpcErrorKind::SendTimeout => ToolError::new(ErrorKind::Timeout, format!("{command}: {}", err.message))
                .with_hint("the program may be busy; call debug op \"status\" or \"pause\""),
        }
    }

    fn gone_error(&self, command: &str) -> ToolError {
        let reason = self.teardown.lock().as_ref().map_or_else(|| "connection closed".to_owned(), |report| report.reason.clone());
        ToolError::new(ErrorKind::Unavailable, format!("{command}: {} has ended: {reason}", self.description))
            .with_hint("call debug op \"launch\" to start a new session")
    }

    fn launch_failure(&self, command: &str, err: &RpcError) -> ToolError {
        // delve builds the program itself and reports a failed build only as "Build error:
        // Check the debug console" in the response; the compiler's messages and the command
        // arrive as debuggee stderr output (`Build Error: go build …`).
        let says_build = err.response_error.as_ref().is_some_and(|e| e.message.to_ascii_lowercase().contains("build error"));
        let mut output = self.output.lock().render();
        // The output event travels through the event thread; give it a moment to land.
        let waited_until = Instant::now() + Duration::from_secs(1);
        while says_build && !output.contains("Build Error: ") && Instant::now() < waited_until {
            std::thread::sleep(Duration::from_millis(20));
            output = self.output.lock().render();
        }
        if let Some(position) = output.find("Build Error: ") {
            let build = output[position + "Build Error: ".len()..].trim();
            let (command_line, messages) = build.split_once('\n').unwrap_or((build, ""));
            let messages: Vec<&str> = messages.lines().filter(|line| !line.starts_with('[')).collect();
            let messages = messages.join("\n");
            let messages = messages.trim().trim_end_matches("(exit status 2)").trim_end_matches("(exit status 1)").trim();
            return ToolError::failed(format!(
                "{} could not build the program: `{}` failed:\n{}",
                self.adapter.name(),
                command_line.trim(),
                render::cut_middle(messages, 6000)
            ))
            .with_hint("fix the errors above (file:line, relative to the package directory), then launch again");
        }
        let mut error = self.rpc_error(command, err);
        let messages = self.state.lock().adapter_messages.render();
        if !messages.trim().is_empty() {
            error.message.push_str(&format!("\nadapter messages:\n{}", render::cut_chars(messages.trim(), 2000)));
        }
        error.with_hint("check the program path and that it was built with debug info; `debug adapters` shows what was found")
    }

    /// Notices an adapter that died before its stream reported the end (its pipes can stay
    /// open while a debuggee it started still holds them).
    fn refresh_liveness(&self) {
        if self.state.lock().closed.is_some() {
            return;
        }
        let Some(pid) = self.adapter_pid else { return };
        // /proc rather than waitpid alone: a zombie or a vanished pid is a dead adapter.
        if process::process_state(pid) == Some(ProcessState::Live) {
            return;
        }
        let description = {
            let connection = self.connection.lock();
            match connection.as_ref().and_then(RpcConnection::child) {
                Some(child) => {
                    let status = child.wait_timeout(Duration::from_millis(100));
                    let tail = child.stderr_tail();
                    let mut text = match status {
                        Some(status) => format!("the adapter process (pid {pid}) exited with {status}"),
                        None => format!("the adapter process (pid {pid}) died"),
                    };
                    if !tail.trim().is_empty() {
                        text.push_str(&format!("; stderr tail:\n{}", tail.trim_end()));
                    }
                    text
                }
                None => format!("the adapter process (pid {pid}) died"),
            }
        };
        let mut state = self.state.lock();
        if state.closed.is_none() {
            state.closed = Some(description);
        }
        drop(state);
        self.changed.notify_all();
    }

    fn check_alive(&self) -> Result<(), ToolError> {
        self.refresh_liveness();
        let state = self.state.lock();
        if let Some(expired) = &state.expired {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("{}: {expired}", self.description))
                .with_hint("call debug op \"launch\" to start a new session"));
        }
        if let Some(closed) = &state.closed {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("the debug adapter of {} went away: {closed}", self.description))
                .with_hint("the session is over; call debug op \"launch\" again"));
        }
        Ok(())
    }

    fn set_breakpoints(&self, file: &Path, breakpoints: &[ResolvedBreakpoint]) -> Result<Vec<BreakpointStatus>, ToolError> {
        let capabilities = self.capabilities.get().cloned().unwrap_or_default();
        let adapter = self.adapter.name();
        // Each extra is sent only when the adapter says it supports it; a breakpoint whose extra
        // is unsupported is not sent at all (a plain stop would be wrong).
        let unsupported = |breakpoint: &ResolvedBreakpoint| -> Option<String> {
            let spec = &breakpoint.spec;
            if spec.condition.is_some() && capabilities.supports_conditional_breakpoints != Some(true) {
                return Some(format!("not sent: {adapter} does not support conditions (supportsConditionalBreakpoints)"));
            }
            if spec.hit_condition.is_some() && capabilities.supports_hit_conditional_breakpoints != Some(true) {
                return Some(format!("not sent: {adapter} does not support hit conditions (supportsHitConditionalBreakpoints)"));
            }
            if spec.log_message.is_some() && capabilities.supports_log_points != Some(true) {
                return Some(format!("not sent: {adapter} does not support logpoints (supportsLogPoints)"));
            }
            None
        };
        let (sendable, refused): (Vec<&ResolvedBreakpoint>, Vec<&ResolvedBreakpoint>) =
            breakpoints.iter().partition(|breakpoint| unsupported(breakpoint).is_none());
        let arguments = dap_types::SetBreakpointsArguments {
            source: dap_types::Source {
                name: file.file_name().map(|n| n.to_string_lossy().into_owned()),
                path: Some(file.to_string_lossy().into_owned()),
                source_reference: None,
                presentation_hint: None,
                origin: None,
                sources: None,
                adapter_data: None,
                checksums: None,
            },
            breakpoints: Some(
                sendable
                    .iter()
                    .map(|breakpoint| dap_types::SourceBreakpoint {
                        line: breakpoint.line,
                        column: None,
                        condition: breakpoint.spec.condition.clone(),
                        hit_condition: breakpoint.spec.hit_condition.clone(),
                        log_message: breakpoint.spec.log_message.clone(),
                        mode: None,
                    })
                    .collect(),
            ),
            lines: Some(sendable.iter().map(|breakpoint| breakpoint.line).collect()),
            source_modified: Some(false),
        };
        let body = self.request_typed::<req::SetBreakpoints>(arguments, self.request_timeout)?;
        let mut state = self.state.lock();
        state.breakpoints.retain(|_, status| status.file != file);
        state.unbound_breakpoints.retain(|status| status.file != file);
        let mut statuses = Vec::new();
        for (index, breakpoint) in sendable.iter().enumerate() {
            let entry = body.breakpoints.get(index);
            let status = BreakpointStatus {
                file: file.to_path_buf(),
                requested_line: breakpoint.line,
                line: entry.and_then(|e| e.line),
                verified: entry.is_some_and(|e| e.verified),
                message: entry
                    .and_then(|e| e.message.clone())
                    .or_else(|| entry.is_none().then(|| "the adapter returned no entry for this line".to_owned())),
                spec: breakpoint.spec.clone(),
                sent: true,
            };
            statuses.push(status.clone());
            match entry.and_then(|e| e.id) {
                Some(id) => {
                    state.breakpoints.insert(id, status);
                }
                None => state.unbound_breakpoints.push(status),
            }
        }
        for breakpoint in refused {
            let status = BreakpointStatus {
                file: file.to_path_buf(),
                requested_line: breakpoint.line,
                line: None,
                verified: false,
                message: unsupported(breakpoint),
                spec: breakpoint.spec.clone(),
                sent: false,
            };
            statuses.push(status.clone());
            state.unbound_breakpoints.push(status);
        }
        Ok(statuses)
    }

    fn set_function_breakpoints(&self, functions: &[FunctionBreakpointSpec]) -> Result<Option<Vec<FunctionBreakpointStatus>>, ToolError> {
        let capabilities = self.capabilities.get().cloned().unwrap_or_default();
        if capabilities.supports_function_breakpoints != Some(true) {
            return Ok(None);
        }
        let arguments = dap_types::SetFunctionBreakpointsArguments {
            breakpoints: functions
                .iter()
                .map(|function| dap_types::FunctionBreakpoint {
                    name: function.name.clone(),
                    condition: function.condition.clone().filter(|_| capabilities.supports_conditional_breakpoints == Some(true)),
                    hit_condition: function
                        .hit_condition
                        .clone()
                        .filter(|_| capabilities.supports_hit_conditional_breakpoints == Some(true)),
                })
                .collect(),
        };
        let body = self.request_typed::<req::SetFunctionBreakpoints>(arguments, self.request_timeout)?;
        let statuses: Vec<FunctionBreakpointStatus> = functions
            .iter()
            .enumerate()
            .map(|(index, function)| {
                let entry = body.breakpoints.get(index);
                let location = entry.and_then(|e| {
                    let path = e.source.as_ref().and_then(|source| source.path.clone())?;
                    Some((PathBuf::from(path), e.line?))
                });
                let mut message = entry.and_then(|e| e.message.clone());
                if function.condition.is_some() && capabilities.supports_conditional_breakpoints != Some(true) {
                    message = Some(format!("{} does not support conditions: sent without it", self.adapter.name()));
                }
                FunctionBreakpointStatus { name: function.name.clone(), verified: entry.is_some_and(|e| e.verified), location, message }
            })
            .collect();
        *self.function_breakpoints.lock() = statuses.clone();
        Ok(Some(statuses))
    }

    fn set_exception_filters(&self, asked: Option<&[String]>) -> Result<ExceptionFiltersReport, ToolError> {
        let capabilities = self.capabilities.get().cloned().unwrap_or_default();
        let offered = capabilities.exception_breakpoint_filters.clone().unwrap_or_default();
        let (enabled, unknown): (Vec<String>, Vec<String>) = match asked {
            Some(asked) => {
                let (known, unknown): (Vec<&String>, Vec<&String>) =
                    asked.iter().partition(|id| offered.iter().any(|filter| &filter.filter == *id));
                (known.into_iter().cloned().collect(), unknown.into_iter().cloned().collect())
            }
            None => (offered.iter().filter(|f| f.default == Some(true)).map(|f| f.filter.clone()).collect(), Vec::new()),
        };
        if !offered.is_empty() {
            let arguments =
                dap_types::SetExceptionBreakpointsArguments { filters: enabled.clone(), filter_options: None, exception_options: None };
            self.request_typed::<req::SetExceptionBreakpoints>(arguments, self.request_timeout)?;
        }
        let report = ExceptionFiltersReport {
            available: offered
                .iter()
                .map(|filter| (filter.filter.clone(), filter.label.clone(), filter.description.clone(), enabled.contains(&filter.filter)))
                .collect(),
            unknown,
            defaults: asked.is_none(),
        };
        *self.exception_filters.lock() = report.clone();
        Ok(report)
    }

    /// Waits until a `stopped` event newer than `stops_seen`, the program's exit, the adapter's
    /// end, or `timeout`.
    fn wait_for_stop(&self, stops_seen: u64, timeout: Duration) -> StopOutcome {
        let deadline = Instant::now() + timeout;
        // While the program runs, a host that listens sees it every second.
        crate::progress::while_phase(
            Some(deadline),
            |running| format!("{}: running until it stops ({} s)", self.description, running.as_secs()),
            || self.wait_for_stop_until(stops_seen, timeout, deadline),
        )
    }

    fn wait_for_stop_until(&self, stops_seen: u64, timeout: Duration, deadline: Instant) -> StopOutcome {
        let mut state = self.state.lock();
        loop {
            if state.stop_events > stops_seen {
                if let RunState::Stopped(stop) = &state.run {
                    let stop = stop.clone();
                    drop(state);
                    return StopOutcome::Stopped(self.stopped_at(stop));
                }
            }
            if state.exit_code.is_some() {
                return StopOutcome::Exited(state.exit_code, self.adapter);
            }
            if state.terminated {
                // delve announces the exit status after `terminated` (as console text); give a
                // late exit code a moment to arrive.
                let grace = Instant::now() + Duration::from_millis(500);
                while state.exit_code.is_none() && state.closed.is_none() {
                    if self.changed.wait_until(&mut state, grace).timed_out() {
                        break;
                    }
                }
                return StopOutcome::Exited(state.exit_code, self.adapter);
            }
            if let Some(expired) = &state.expired {
                return StopOutcome::Closed(expired.clone());
            }
            if let Some(closed) = &state.closed {
                return StopOutcome::Closed(closed.clone());
            }
            if self.changed.wait_until(&mut state, deadline).timed_out() {
                if state.stop_events > stops_seen || state.exit_code.is_some() || state.terminated || state.closed.is_some() {
                    continue;
                }
                return StopOutcome::StillRunning(timeout);
            }
        }
    }

    /// A stop with what the model needs to know first: the exception's name and the top frame.
    fn stopped_at(&self, info: StopInfo) -> StoppedAt {
        let exception = info.thread_id.filter(|_| info.reason == "exception").and_then(|thread| self.exception_name(thread));
        let (top_frames, depth) = match info.thread_id {
            Some(thread) => match self.stack_trace(thread) {
                Ok(body) => {
                    let depth = body.total_frames.unwrap_or(body.stack_frames.len() as u64);
                    let mut state = self.state.lock();
                    let frames = body.stack_frames.iter().take(TOP_FRAMES).map(|frame| frame_info(&mut state, frame)).collect();
                    (Ok(frames), depth)
                }
                Err(err) => (Err(err.message), 0),
            },
            None => (Ok(Vec::new()), 0),
        };
        StoppedAt { info, exception, top_frames, depth }
    }

    /// The exception's id (e.g. `SystemExit`, `ValueError`) from DAP `exceptionInfo`, when the
    /// adapter supports it and answers within the request timeout; `None` otherwise.
    fn exception_name(&self, thread: u64) -> Option<String> {
        if !self.supports_exception_info.load(Ordering::Relaxed) {
            return None;
        }
        let body =
            self.request_typed::<req::ExceptionInfo>(dap_types::ExceptionInfoArguments { thread_id: thread }, self.request_timeout).ok()?;
        Some(exception_id_without_notes(&body.exception_id)).filter(|id| !id.is_empty())
    }

    /// `stackTrace {levels: 30}` of `thread`, cached for the current stop generation: frames
    /// cannot change while the program stays stopped, so the `stack` that follows a step (or
    /// an `evaluate` in the top frame) costs no second round trip.
    fn stack_trace(&self, thread: u64) -> Result<dap_types::StackTraceResponse, ToolError> {
        let generation = {
            let state = self.state.lock();
            if let Some((cached_generation, cached_thread, body)) = &state.stack_cache {
                if *cached_generation == state.generation && *cached_thread == thread {
                    return Ok(body.clone());
                }
            }
            state.generation
        };
        let arguments =
            dap_types::StackTraceArguments { thread_id: thread, start_frame: Some(0), levels: Some(MAX_STACK_FRAMES), format: None };
        let body = self.request_typed::<req::StackTrace>(arguments, self.request_timeout)?;
        self.state.lock().stack_cache = Some((generation, thread, body.clone()));
        Ok(body)
    }

    fn stopped_thread(&self) -> Option<u64> {
        match &self.state.lock().run {
            RunState::Stopped(stop) => stop.thread_id,
            _ => None,
        }
    }

    fn threads(&self) -> Result<Vec<ThreadInfo>, ToolError> {
        let body = self.request_typed::<req::Threads>((), self.request_timeout)?;
        Ok(body.threads.into_iter().map(|thread| ThreadInfo { id: thread.id, name: thread.name }).collect())
    }

    fn default_thread(&self, requested: Option<u64>) -> Result<u64, ToolError> {
        if let Some(thread) = requested {
            return Ok(thread);
        }
        if let Some(thread) = self.stopped_thread() {
            return Ok(thread);
        }
        self.threads()?.first().map(|t| t.id).ok_or_else(|| {
            ToolError::new(ErrorKind::Unavailable, format!("{} reports no threads", self.description)).with_hint("call debug op \"status\"")
        })
    }

    fn require_stopped(&self, op: &str) -> Result<(), ToolError> {
        let state = self.state.lock();
        match &state.run {
            RunState::Stopped(_) => Ok(()),
            _ => Err(ToolError::new(
                ErrorKind::Conflict,
                format!("{op}: the program is running, not stopped; frames and variables exist only while it is stopped"),
            )
            .with_hint("call debug op \"pause\" (or set a breakpoint and \"continue\") first")),
        }
    }

    fn resume_now(&self, kind: ResumeKind, thread: Option<u64>, deadline: Instant) -> Result<ResumeReport, ToolError> {
        let started = Instant::now();
        let op = kind.op_name();
        if kind == ResumeKind::Pause {
            if let RunState::Stopped(stop) = &self.state.lock().run {
                return Ok(ResumeReport::AlreadyStopped(stop.clone()));
            }
        } else {
            self.require_stopped(op)?;
        }
        let thread = self.default_thread(thread)?;
        let stops_seen = {
            let mut state = self.state.lock();
            if kind != ResumeKind::Pause {
                state.generation += 1;
                state.run = RunState::Running;
            }
            state.stop_events
        };
        let remaining = || deadline.saturating_duration_since(Instant::now());
        let timeout = self.request_timeout.min(remaining());
        match kind {
            ResumeKind::Continue => {
                let arguments = dap_types::ContinueArguments { thread_id: thread, single_thread: None };
                self.request_raw(req::Continue::COMMAND, Self::encode::<req::Continue>(arguments)?, timeout).map(drop)?;
            }
            ResumeKind::StepOver => self.request_unit::<req::Next>(
                dap_types::NextArguments { thread_id: thread, single_thread: None, granularity: None },
                timeout,
            )?,
            ResumeKind::StepIn => self.request_unit::<req::StepIn>(
                dap_types::StepInArguments { thread_id: thread, single_thread: None, target_id: None, granularity: None },
                timeout,
            )?,
            ResumeKind::StepOut => self.request_unit::<req::StepOut>(
                dap_types::StepOutArguments { thread_id: thread, single_thread: None, granularity: None },
                timeout,
            )?,
            ResumeKind::Pause => self.request_unit::<req::Pause>(dap_types::PauseArguments { thread_id: thread }, timeout)?,
        }
        // Run until something happens, within the call's budget (the resume timeout caps it).
        let outcome = self.wait_for_stop(stops_seen, self.resume_timeout.min(remaining().saturating_sub(ANSWER_RESERVE)));
        Ok(ResumeReport::Waited { kind, thread, took: started.elapsed(), wait: WaitReport { outcome } })
    }

    /// One level of children of a small aggregate whose value hides its contents; `None` when
    /// it has none, is large, already shows its contents, or the fetch fails.
    fn inline_children(&self, variable: &VariableInfo) -> Option<InlineChildren> {
        let handle = variable.handle?;
        if variable.count.is_some_and(|count| count > MAX_INLINE_CHILDREN) || !value_hides_contents(&variable.value) {
            return None;
        }
        let (raw, rust_debuggee) = {
            let state = self.state.lock();
            (state.handles.resolve(handle, HandleKind::Variables, state.generation).ok()?, state.rust_debuggee)
        };
        let arguments = dap_types::VariablesArguments {
            variables_reference: raw,
            filter: None,
            start: Some(0),
            count: Some(MAX_INLINE_CHILDREN + 1),
            format: None,
        };
        let children = self.request_typed::<req::Variables>(arguments, self.request_timeout).ok()?.variables;
        // debugpy groups an object's members under "special variables", "function variables", …
        let children: Vec<&dap_types::Variable> = children.iter().filter(|child| !child.name.ends_with(" variables")).collect();
        if children.is_empty() || children.len() as u64 > MAX_INLINE_CHILDREN {
            return None;
        }
        let is_pointer = variable.value.trim().starts_with("0x");
        let indexed = children.iter().all(|child| {
            let name = child.name.trim_start_matches('[').trim_end_matches(']');
            !name.is_empty() && name.chars().all(|c| c.is_ascii_digit())
        });
        let items = children.iter().map(|child| (child.name.clone(), value_shown(self.adapter, rust_debuggee, &child.value))).collect();
        Some(InlineChildren {
            items,
            total: variable.count.unwrap_or(children.len() as u64).max(children.len() as u64),
            indexed: indexed && !is_pointer,
            deref: is_pointer && children.len() == 1,
        })
    }

    fn resolve_handle(&self, handle: u64, kind: HandleKind) -> Result<u64, ToolError> {
        let state = self.state.lock();
        state.handles.resolve(handle, kind, state.generation).map_err(|err| {
            let hint = match kind {
                HandleKind::Frame => "call debug op \"stack\" for current frame ids",
                HandleKind::Variables => "call debug op \"stack\" then \"scopes\" for current references",
            };
            ToolError::new(ErrorKind::Conflict, err.describe(handle, kind)).with_hint(hint)
        })
    }

    /// Checks the `evaluate` left in flight by a timeout, if any: still running, or answered
    /// since (then it is forgotten, and the answer is reported once).
    fn poll_unanswered_evaluate(&self) -> EvaluatePoll {
        let mut state = self.state.lock();
        let Some(unanswered) = &state.unanswered_evaluate else { return EvaluatePoll::Nothing };
        let waited = unanswered.sent_at.elapsed();
        let outcome = match unanswered.pending.receiver().try_recv() {
            Err(crossbeam_channel::TryRecvError::Empty) => {
                return EvaluatePoll::StillRunning { expression: unanswered.expression.clone(), waited };
            }
            Ok(Ok(body)) => decode_body::<dap_types::EvaluateResponse>(&body)
                .map(|body| VariableInfo {
                    name: unanswered.expression.clone(),
                    type_name: body.type_.as_deref().map(|type_name| type_name_shown(state.rust_debuggee, type_name)),
                    value: value_shown(self.adapter, state.rust_debuggee, &body.result),
                    handle: None,
                    count: None,
                    inline: None,
                })
                .ok_or_else(|| format!("unreadable evaluate body {}", render::cut_chars(&body.to_string(), 400))),
            Ok(Err(err)) => Err(self.rpc_error("evaluate", &err).message),
            Err(crossbeam_channel::TryRecvError::Disconnected) => {
                Err("the debug adapter closed its connection before answering".to_owned())
            }
        };
        let expression = state.unanswered_evaluate.take().map(|answered| answered.expression).unwrap_or_default();
        EvaluatePoll::AnsweredLate { expression, waited, outcome }
    }

    /// Refuses `op` while an evaluate that timed out is still running (the adapter would only
    /// queue `op` behind it, or answer it late); otherwise returns the evaluate that answered
    /// since, if any.
    fn refuse_while_evaluating(&self, op: &str) -> Result<Option<EvaluatePoll>, ToolError> {
        match self.poll_unanswered_evaluate() {
            EvaluatePoll::StillRunning { expression: earlier, waited } => Err(ToolError::new(
                ErrorKind::Conflict,
                format!(
                    "{op}: an earlier evaluate of `{earlier}` sent {} ms ago has not answered yet; the program is still busy with \
                     it and the adapter would only queue this behind it",
                    waited.as_millis()
                ),
            )
            .with_hint("call debug op \"status\" later to see whether it finished, or \"terminate\" to end the program")),
            EvaluatePoll::Nothing => Ok(None),
            late => Ok(Some(late)),
        }
    }

    fn evaluate_now(&self, expression: &str, frame_handle: Option<u64>) -> Result<EvaluateReport, ToolError> {
        let frame = match frame_handle {
            Some(handle) => Some(self.resolve_handle(handle, HandleKind::Frame)?),
            None => {
                self.require_stopped("evaluate")?;
                let thread = self.default_thread(None)?;
                self.stack_trace(thread)?.stack_frames.first().map(|frame| frame.id)
            }
        };
        let context = match self.adapter.spec().evaluate_context {
            "watch" => dap_types::EvaluateArgumentsContext::Watch,
            _ => dap_types::EvaluateArgumentsContext::Repl,
        };
        let arguments =
            dap_types::EvaluateArguments { expression: expression.to_owned(), frame_id: frame, context: Some(context), format: None };
        let sent_at = Instant::now();
        let pending = self.send(req::Evaluate::COMMAND, Self::encode::<req::Evaluate>(arguments)?)?;
        let body = match pending.receiver().recv_timeout(self.request_timeout) {
            Ok(result) => result.map_err(|err| self.rpc_error("evaluate", &err))?,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return Err(self.gone_error("evaluate")),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                self.state.lock().unanswered_evaluate = Some(UnansweredEvaluate { expression: expression.to_owned(), sent_at, pending });
                return Err(ToolError::new(
                    ErrorKind::Timeout,
                    format!(
                        "evaluate `{expression}` got no answer from {} within {} ms: the program is probably still running that \
                         expression (a loop or a blocking call?), so it is no longer really stopped",
                        self.adapter.name(),
                        self.request_timeout.as_millis()
                    ),
                )
                .with_hint(
                    "call debug op \"status\" later to see whether it finished (and its value); \"terminate\" ends the program if it never does",
                ));
            }
        };
        let body: dap_types::EvaluateResponse = decode_body(&body).ok_or_else(|| {
            ToolError::failed(format!(
                "{} answered evaluate with an unreadable body: {}",
                self.adapter.name(),
                render::cut_chars(&body.to_string(), 400)
            ))
        })?;
        let mut state = self.state.lock();
        let generation = state.generation;
        let value = variable_info(
            &mut state,
            generation,
            self.adapter,
            expression,
            body.type_.as_deref(),
            &body.result,
            body.variables_reference,
            child_count(body.named_variables, body.indexed_variables),
        );
        drop(state);
        let mut value = value;
        value.inline = self.inline_children(&value);
        Ok(EvaluateReport { frame: frame_handle, value })
    }

    /// Records the adapter's descendants (the debuggee and its helpers) so they can be killed
    /// even if the adapter dies first.
    fn record_debuggee_processes(&self) {
        let Some(adapter_pid) = self.adapter_pid else { return };
        let found = process::descendant_processes(adapter_pid);
        let mut state = self.state.lock();
        for identity in found {
            state.record_process(identity);
        }
    }

    /// disconnect → wait → kill group → kill leftovers → close. Idempotent; returns the report.
    fn teardown(&self, reason: &str) -> TeardownReport {
        let mut done = self.teardown.lock();
        if let Some(report) = done.as_ref() {
            return report.clone();
        }
        self.record_debuggee_processes();
        let mut steps = Vec::new();
        let (exit_code_known, program_ended_before) = {
            let state = self.state.lock();
            (state.exit_code.is_some(), state.exit_code.is_some() || state.terminated)
        };
        let mut terminate_requested = false;
        let connection = self.connection.lock().take();
        if let Some(connection) = connection {
            let alive = connection.closed().is_none();
            if alive {
                let arguments = dap_types::DisconnectArguments {
                    restart: Some(false),
                    terminate_debuggee: Some(!self.is_attach),
                    suspend_debuggee: None,
                };
                let sent = Self::encode::<req::Disconnect>(arguments)
                    .ok()
                    .and_then(|arguments| connection.request(req::Disconnect::COMMAND, arguments, self.disconnect_timeout).ok());
                terminate_requested = sent.is_some() && !self.is_attach;
                steps.push(match (sent, self.is_attach) {
                    (Some(_), true) => "disconnected (the attached program keeps running)",
                    (Some(_), false) => "disconnected with terminateDebuggee",
                    (None, _) => "disconnect unanswered",
                });
            } else {
                steps.push("adapter already gone");
            }
            // End of input is what tells an adapter to exit after `disconnect` (debugpy's adapter
            // otherwise waits for another client until it is killed: the whole disconnect budget
            // on every session end). Close our writing side, then wait for the adapter within the
            // budget; `close` kills the group either way.
            if let Some(tcp) = &self.tcp {
                let _ = tcp.shutdown(Shutdown::Write);
            }
            let has_child = connection.child().is_some();
            let exited_alone = connection.close(if alive { self.disconnect_timeout } else { Duration::ZERO }).is_some();
            if has_child {
                steps.push(if exited_alone { "adapter exited" } else { "adapter process group killed" });
            }
            if let Some(tcp) = &self.tcp {
                let _ = tcp.shutdown(Shutdown::Both);
            }
        }
        let mut late_exit_code = None;
        {
            // delve reports the exit status only while answering `disconnect` (as console
            // output); let the event thread record it.
            let mut state = self.state.lock();
            let grace = Instant::now() + Duration::from_millis(300);
            while state.terminated && state.exit_code.is_none() && state.closed.is_none() {
                if self.changed.wait_until(&mut state, grace).timed_out() {
                    break;
                }
            }
            if !exit_code_known {
                late_exit_code = state.exit_code;
            }
        }
        let leftovers = process::kill_recorded_processes(&self.state.lock().debuggee_processes);
        if leftovers > 0 {
            steps.push("leftover debuggee processes killed by runbound (SIGKILL)");
        }
        self.temp_dir.lock().take();
        let killed_on_request = (terminate_requested && !program_ended_before)
            .then_some(DebuggeeKilledOnRequest { adapter: self.adapter, reported_exit_code: late_exit_code });
        let report = TeardownReport { steps, reason: reason.to_owned(), late_exit_code, adapter: self.adapter, killed_on_request };
        *done = Some(report.clone());
        drop(done);
        self.changed.notify_all();
        report
    }
}

/// The exception's name alone: debugpy appends a note for a stop outside the raising frame
/// (`AssertionError       (note: full exception trace is shown but execution is paused at:
/// test_x)`), which says nothing the stop's top frame does not.
fn exception_id_without_notes(id: &str) -> String {
    let name = id.find("(note:").map_or(id, |at| &id[..at]);
    name.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::exception_id_without_notes;

    #[test]
    fn delve_named_constants_lose_the_zero_hex_of_a_failed_parse() {
        use super::{value_as_the_debugger_prints_it, AdapterId};
        assert_eq!(value_as_the_debugger_prints_it(AdapterId::Delve, "String (24) = 0x0"), "String (24)");
        assert_eq!(value_as_the_debugger_prints_it(AdapterId::Delve, "ModeDir|ModePerm = 0x0"), "ModeDir|ModePerm");
        assert_eq!(value_as_the_debugger_prints_it(AdapterId::Delve, "24 = 0x18"), "24 = 0x18");
        assert_eq!(value_as_the_debugger_prints_it(AdapterId::Delve, "0 = 0x0"), "0 = 0x0");
        assert_eq!(value_as_the_debugger_prints_it(AdapterId::Lldb, "String (24) = 0x0"), "String (24) = 0x0");
    }

    #[test]
    fn debugpy_notes_are_cut_from_exception_names() {
        let id = "AssertionError       (note: full exception trace is shown but execution is paused at: test_easter_western)";
        assert_eq!(exception_id_without_notes(id), "AssertionError");
        assert_eq!(exception_id_without_notes("ValueError"), "ValueError");
    }
}
