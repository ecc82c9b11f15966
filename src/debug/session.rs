//! One debug session: adapter process and connection, the handshake that works for every
//! adapter, the event thread that records state, the TTL watchdog, the ops, and teardown.
//!
//! Handshake (issue 6, research note §2.0): `initialize` (wait) → `launch`/`attach` (do not
//! wait) → on `initialized`: `setBreakpoints` per file, `setExceptionBreakpoints`,
//! `configurationDone` → then wait for both responses. The event thread, not a waiter, records
//! `initialized`, so the event is never lost whichever order the adapter chooses (debugpy sends
//! it after `launch`, lldb-dap 19 after the launch response, dart right after `initialize`).
//! Reverse requests (`runInTerminal`, `startDebugging`) are not advertised and are refused.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender};
use dap_types::requests::Request as DapRequestType;
use parking_lot::{Condvar, Mutex};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::debug::adapters::{self, AdapterCommand, AdapterId, AdapterTransport, BinarySearch, LaunchInputs};
use crate::debug::render::{self, MAX_STACK_FRAMES, MAX_VARIABLES};
use crate::debug::state::{BreakpointStore, HandleKind, HandleTable, OutputRing, OutputStream};
use crate::debug::tool::{required, DebugArguments};
use crate::debug::DebugConfig;
use crate::error::{ErrorKind, ToolError};
use crate::registry::CallContext;
use crate::result::ToolResult;
use crate::transport::process::{self, ProcessState};
use crate::transport::{
    ChildProcess, Incoming, ProcessSpec, ResponseError, RpcConnection, RpcError, RpcErrorKind, RpcOptions, WireProtocol,
};

/// Outcomes of "does this python import debugpy" by interpreter path, with the file's mtime
/// when probed (a changed interpreter is probed again).
pub type ProbeCache = HashMap<PathBuf, (Option<SystemTime>, Result<String, String>)>;

/// What a session debugs.
#[derive(Debug, Clone)]
pub enum SessionTarget {
    /// Start `program` with `args` under `adapter`.
    Launch {
        /// The adapter.
        adapter: AdapterId,
        /// Absolute program path (script, package dir, executable).
        program: PathBuf,
        /// Program arguments.
        args: Vec<String>,
    },
    /// Attach to a debuggee already running, via a loopback `port`.
    Attach {
        /// The adapter.
        adapter: AdapterId,
        /// The port on 127.0.0.1.
        port: u16,
    },
}

/// A resolved adapter: how to start it and what was found, for `adapters` and launch results.
#[derive(Debug, Clone)]
pub struct ResolvedAdapter {
    /// The command to spawn.
    pub command: AdapterCommand,
    /// One line: what was found (binary path, python and debugpy version, …).
    pub summary: String,
    /// debugpy: the interpreter that runs the program (the project venv's when present).
    pub debuggee_python: Option<PathBuf>,
}

/// Resolves the adapter binary for a project rooted at `root`. `Err` says which binary is
/// missing and how to get it. debugpy: the first python (venv first) that imports debugpy
/// runs the adapter; the venv python, when present, runs the program (R-DBG-4).
pub fn resolve_adapter_binary(
    adapter: AdapterId,
    root: &Path,
    search: &BinarySearch,
    config: &DebugConfig,
    probe_cache: &mut ProbeCache,
) -> Result<ResolvedAdapter, String> {
    let command =
        |program: PathBuf, args: &[&str]| AdapterCommand { program, args: args.iter().map(Into::into).collect(), cwd: root.to_path_buf() };
    match adapter {
        AdapterId::Debugpy => {
            let candidates = adapters::adapter_python_candidates(root, search);
            if candidates.is_empty() {
                return Err("no python found (looked for .venv/bin/python, venv/bin/python, python3, python); install python3 and `pip install debugpy`".to_owned());
            }
            let venv_python = adapters::project_venv_python(root);
            let mut tried = Vec::new();
            for python in candidates {
                match probe_debugpy(&python, root, config.probe_timeout, probe_cache) {
                    Ok(version) => {
                        let debuggee = venv_python.clone().unwrap_or_else(|| python.clone());
                        let summary = format!(
                            "adapter: {} -m debugpy.adapter (debugpy {version}); the program runs under {}{}",
                            python.display(),
                            debuggee.display(),
                            if venv_python.is_some() { " (project venv)" } else { "" }
                        );
                        return Ok(ResolvedAdapter {
                            command: command(python, &["-m", "debugpy.adapter"]),
                            summary,
                            debuggee_python: Some(debuggee),
                        });
                    }
                    Err(why) => tried.push(format!("{} ({why})", python.display())),
                }
            }
            Err(format!("no python that imports debugpy: tried {}; install it with `pip install debugpy`", tried.join("; ")))
        }
        AdapterId::Lldb => match search.find_lldb_dap() {
            Some(path) => Ok(ResolvedAdapter { summary: format!("adapter: {}", path.display()), command: command(path, &[]), debuggee_python: None }),
            None => Err("binary lldb-dap not found (looked for lldb-dap, lldb-dap-NN, /usr/lib/llvm-NN/bin/lldb-dap, lldb-vscode(-NN)); install it with `apt install lldb-19`".to_owned()),
        },
        AdapterId::Delve => match search.find("dlv") {
            Some(path) => {
                let go_note = match search.find("go") {
                    Some(go) => format!("; go toolchain {}", go.display()),
                    None => "; no `go` on PATH: only prebuilt binaries (mode exec) can be debugged".to_owned(),
                };
                Ok(ResolvedAdapter {
                    summary: format!("adapter: {} dap{go_note}", path.display()),
                    command: command(path, &["dap", "--listen", "127.0.0.1:0", "--check-go-version=false"]),
                    debuggee_python: None,
                })
            }
            None => Err("binary dlv not found; install it with `apt install delve golang-go`".to_owned()),
        },
        AdapterId::Dart => match search.find("dart") {
            Some(path) => Ok(ResolvedAdapter {
                summary: format!("adapter: {} debug_adapter", path.display()),
                command: command(path, &["debug_adapter"]),
                debuggee_python: None,
            }),
            None => Err("binary dart not found (the Dart SDK is not packaged for Debian, PyPI or npm; install it from dart.dev)".to_owned()),
        },
    }
}

fn probe_debugpy(python: &Path, cwd: &Path, timeout: Duration, cache: &mut ProbeCache) -> Result<String, String> {
    let modified = std::fs::metadata(python).and_then(|m| m.modified()).ok();
    if let Some((cached_modified, outcome)) = cache.get(python) {
        if *cached_modified == modified {
            return outcome.clone();
        }
    }
    let spec = ProcessSpec::new(python, cwd)
        .with_args(["-c", "import debugpy; print(debugpy.__version__)"])
        .with_display_name(format!("debugpy probe {}", python.display()));
    let outcome = match crate::transport::run_to_completion(spec, b"", timeout, 16 * 1024) {
        Ok(done) if done.timed_out => Err(format!("`import debugpy` did not finish in {} ms", timeout.as_millis())),
        Ok(done) if done.status.success() => Ok(String::from_utf8_lossy(&done.stdout).trim().to_owned()),
        Ok(done) => {
            let stderr = String::from_utf8_lossy(&done.stderr);
            let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("exit status without message");
            Err(last.trim().to_owned())
        }
        Err(err) => Err(err.message),
    };
    cache.insert(python.to_path_buf(), (modified, outcome.clone()));
    outcome
}

/// A live debug session. Dropping it tears it down (see [`Session::terminate`]).
pub struct Session {
    inner: Arc<SessionInner>,
    event_thread: Option<JoinHandle<()>>,
    watchdog: Option<(Sender<()>, JoinHandle<()>)>,
    stdout_thread: Option<(Receiver<()>, JoinHandle<()>)>,
}

struct SessionInner {
    adapter: AdapterId,
    is_attach: bool,
    /// e.g. "debugpy session 1 on main.py".
    description: String,
    workspace_root: PathBuf,
    started_at: Instant,
    ttl: Duration,
    request_timeout: Duration,
    disconnect_timeout: Duration,
    connection: Mutex<Option<RpcConnection>>,
    adapter_pid: Option<u32>,
    tcp: Option<TcpStream>,
    state: Mutex<SessionState>,
    changed: Condvar,
    output: Arc<Mutex<OutputRing>>,
    teardown: Mutex<Option<String>>,
    temp_dir: Mutex<Option<tempfile::TempDir>>,
    /// The adapter answers `exceptionInfo` (capability `supportsExceptionInfoRequest`).
    supports_exception_info: std::sync::atomic::AtomicBool,
}

#[derive(Debug, Clone, PartialEq)]
enum RunState {
    Starting,
    Running,
    Stopped(StopInfo),
}

#[derive(Debug, Clone, PartialEq)]
struct StopInfo {
    reason: String,
    thread_id: Option<i64>,
    description: Option<String>,
    text: Option<String>,
}

#[derive(Debug, Clone)]
struct BreakpointStatus {
    file: PathBuf,
    requested_line: u64,
    line: Option<u64>,
    verified: bool,
    message: Option<String>,
}

struct SessionState {
    initialized: bool,
    run: RunState,
    generation: u64,
    /// Counts `stopped` events (a waiter compares it with a snapshot).
    stop_events: u64,
    exit_code: Option<i64>,
    terminated: bool,
    closed: Option<String>,
    expired: Option<String>,
    handles: HandleTable,
    child_counts: HashMap<u64, u64>,
    breakpoints: HashMap<i64, BreakpointStatus>,
    unbound_breakpoints: Vec<BreakpointStatus>,
    adapter_messages: OutputRing,
    debuggee_pids: Vec<(u32, u64)>,
    /// The last `stackTrace` answer: (stop generation, thread, body).
    stack_cache: Option<(u64, i64, Value)>,
    /// An `evaluate` that timed out and has not answered since: the debuggee is probably
    /// still running that expression, so a "stopped" state may no longer describe it.
    unanswered_evaluate: Option<UnansweredEvaluate>,
}

/// An `evaluate` request whose answer did not come within the request timeout. It stays in
/// flight (the adapter answers it whenever the expression finishes) and is polled by `status`
/// and the next `evaluate`.
struct UnansweredEvaluate {
    expression: String,
    sent_at: Instant,
    pending: crate::transport::PendingResponse,
}

/// Appends the one-time note about a late evaluate to an op's text or, when the op failed, to its
/// error message: the note is consumed by the poll, so it must not be lost on either path.
fn with_late_note(outcome: Result<String, ToolError>, note: Option<String>) -> Result<String, ToolError> {
    let Some(note) = note else { return outcome };
    match outcome {
        Ok(text) => Ok(format!("{text}\n{note}")),
        Err(mut err) => {
            err.message = format!("{}\n{note}", err.message);
            Err(err)
        }
    }
}

/// What polling an [`UnansweredEvaluate`] found.
enum EvaluatePoll {
    Nothing,
    StillRunning { expression: String, waited: Duration },
    AnsweredLate { expression: String, waited: Duration, outcome: Result<Value, String> },
}

/// What a continue / step / pause / launch waited for.
enum StopOutcome {
    Stopped(StopInfo),
    Exited(Option<i64>),
    Closed(String),
    StillRunning(Duration),
}

#[derive(Debug, Deserialize)]
struct StoppedBody {
    #[serde(default)]
    reason: Option<String>,
    #[serde(default, rename = "threadId")]
    thread_id: Option<i64>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ThreadEntry {
    id: i64,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ThreadsBody {
    #[serde(default)]
    threads: Vec<ThreadEntry>,
}

impl Session {
    /// Starts a session: resolves root and adapter (the intersection of R-DBG-1), spawns or
    /// connects, runs the handshake with the stored breakpoints, and waits for the first stop
    /// (or exit, or `resume_timeout`). Returns the session and the launch result.
    ///
    /// # Errors
    /// `unavailable` naming the missing root marker or binary; `failed` with the adapter's own
    /// message when launch/attach is refused; `timeout` naming the handshake step.
    pub fn start(
        ctx: &CallContext<'_>,
        config: &DebugConfig,
        number: u64,
        target: SessionTarget,
        breakpoints: &BreakpointStore,
        probe_cache: &mut ProbeCache,
    ) -> Result<(Session, ToolResult), ToolError> {
        let config = config.clone();
        let workspace_root = ctx.workspace_root().to_path_buf();
        let search = BinarySearch::from_env(&config.extra_binary_dirs).restricted_to(ctx.workspace_trust(), &workspace_root);
        let (adapter, is_attach) = match &target {
            SessionTarget::Launch { adapter, .. } => (*adapter, false),
            SessionTarget::Attach { adapter, .. } => (*adapter, true),
        };
        let spec = adapter.spec();

        // Root: marker in the program's directory or above (lldb: also a lone source beside
        // the executable). Attach: the workspace root.
        let root = match &target {
            SessionTarget::Launch { program, .. } => {
                let start_dir = if program.is_dir() { program.clone() } else { program.parent().unwrap_or(&workspace_root).to_path_buf() };
                match adapters::find_root_marker(adapter, &start_dir, &workspace_root) {
                    Some((root, _marker)) => root,
                    None => match (adapter, adapters::lone_source_root(program)) {
                        (AdapterId::Lldb, Some(root)) => root,
                        _ => {
                            return Err(ToolError::new(
                                ErrorKind::Unavailable,
                                format!(
                                "{}: no root marker for {} ({}) in {} or any parent up to the workspace root; the adapter was not started",
                                spec.name,
                                crate::render::display_path(&workspace_root, program),
                                spec.root_markers.join(", "),
                                crate::render::display_path(&workspace_root, &start_dir),
                            ),
                            )
                            .with_hint("call debug op \"adapters\" to see what is available, or add the project's marker file"))
                        }
                    },
                }
            }
            SessionTarget::Attach { .. } => workspace_root.clone(),
        };

        // Attach to debugpy.listen: the port is a DAP server itself; no local adapter.
        let direct_attach = matches!(target, SessionTarget::Attach { adapter: AdapterId::Debugpy | AdapterId::Delve, .. });
        let resolved = if direct_attach {
            None
        } else {
            Some(resolve_adapter_binary(adapter, &root, &search, &config, probe_cache).map_err(|missing| {
                ToolError::new(ErrorKind::Unavailable, format!("{}: {missing}; the adapter was not started", spec.name))
                    .with_hint("call debug op \"adapters\" to see which adapters can run here")
            })?)
        };
        if let SessionTarget::Attach { adapter: AdapterId::Dart, .. } = target {
            return Err(ToolError::invalid(format!("dart cannot attach by port: {}", spec.attach_form)));
        }

        let output = Arc::new(Mutex::new(OutputRing::new(config.output_ring_bytes)));
        let label = format!("debug-{}", spec.name);
        let peer_name = match &resolved {
            Some(resolved) => format!("{} @ {}", resolved.command.program.display(), root.display()),
            None => match &target {
                SessionTarget::Attach { port, .. } => format!("{} at 127.0.0.1:{port}", spec.name),
                SessionTarget::Launch { .. } => spec.name.to_owned(),
            },
        };
        let options = RpcOptions::new(peer_name.clone(), label.clone());
        let mut stdout_thread = None;
        let mut tcp = None;
        let connection = match (&resolved, &target) {
            (None, SessionTarget::Attach { port, .. }) => {
                let stream = connect_loopback(*port, config.initialize_timeout).map_err(|err| {
                    ToolError::new(ErrorKind::Unavailable, format!("attach: cannot connect to 127.0.0.1:{port}: {err}"))
                        .with_hint(format!("{} expects {}; check that the program is running and listening", spec.name, spec.attach_form))
                })?;
                let reader = stream.try_clone().map_err(|err| ToolError::failed(format!("attach: cannot clone the socket: {err}")))?;
                tcp = stream.try_clone().ok();
                RpcConnection::over_streams(Box::new(reader), Box::new(stream), None, WireProtocol::DapContentLength, options)?
            }
            (Some(resolved), _) => {
                let mut process = ProcessSpec::new(&resolved.command.program, &resolved.command.cwd)
                    .with_args(resolved.command.args.clone())
                    .with_display_name(peer_name.clone());
                if spec.transport == AdapterTransport::TcpPortFromStdout {
                    process = process.with_stdin_piped(false);
                }
                // Under the process guardian: the debuggee and whatever it starts die with the
                // adapter even when the host is killed with SIGKILL (transport::guardian).
                let child = crate::transport::guardian::spawn_guarded(process, crate::transport::guardian::find_python().as_deref())?;
                match spec.transport {
                    AdapterTransport::Stdio => RpcConnection::over_child(child, WireProtocol::DapContentLength, options)?,
                    AdapterTransport::TcpPortFromStdout => {
                        let stdout = child.take_stdout().ok_or_else(|| ToolError::failed(format!("{peer_name}: stdout not piped")))?;
                        let (port_tx, port_rx) = crossbeam_channel::bounded::<String>(1);
                        let (done_tx, done_rx) = crossbeam_channel::bounded::<()>(1);
                        let ring = Arc::clone(&output);
                        let handle = std::thread::Builder::new()
                            .name(format!("runbound-{label}-stdout"))
                            .spawn(move || pump_listen_stdout(stdout, port_tx, ring, done_tx))
                            .map_err(|err| ToolError::failed(format!("cannot start the stdout thread: {err}")))?;
                        stdout_thread = Some((done_rx, handle));
                        let first_line = match port_rx.recv_timeout(config.initialize_timeout) {
                            Ok(line) => line,
                            Err(_) => {
                                let state = child.describe_state();
                                drop(child);
                                return Err(ToolError::new(
                                    ErrorKind::Unavailable,
                                    format!(
                                        "{peer_name} did not print its listening address within {} ms: {state}",
                                        config.initialize_timeout.as_millis()
                                    ),
                                ));
                            }
                        };
                        let Some(port) = parse_listen_port(&first_line) else {
                            let state = child.describe_state();
                            drop(child);
                            return Err(ToolError::new(
                                ErrorKind::Unavailable,
                                format!("{peer_name} printed {first_line:?} instead of `DAP server listening at: HOST:PORT`: {state}"),
                            ));
                        };
                        let stream = connect_loopback(port, config.initialize_timeout).map_err(|err| {
                            ToolError::new(ErrorKind::Unavailable, format!("cannot connect to {peer_name} at 127.0.0.1:{port}: {err}"))
                        })?;
                        let reader = stream.try_clone().map_err(|err| ToolError::failed(format!("cannot clone the socket: {err}")))?;
                        tcp = stream.try_clone().ok();
                        RpcConnection::over_streams(
                            Box::new(reader),
                            Box::new(stream),
                            Some(child),
                            WireProtocol::DapContentLength,
                            options,
                        )?
                    }
                }
            }
            (None, SessionTarget::Launch { .. }) => unreachable!("launch always resolves an adapter"),
        };
        let adapter_pid = connection.child().map(ChildProcess::pid);
        let incoming = connection.incoming().clone();
        let description = match &target {
            SessionTarget::Launch { program, .. } => {
                format!("{} session {number} on {}", spec.name, crate::render::display_path(&workspace_root, program))
            }
            SessionTarget::Attach { port, .. } => format!("{} session {number} attached to 127.0.0.1:{port}", spec.name),
        };
        let inner = Arc::new(SessionInner {
            adapter,
            is_attach,
            description,
            workspace_root: workspace_root.clone(),
            started_at: Instant::now(),
            ttl: config.session_ttl,
            request_timeout: config.request_timeout,
            disconnect_timeout: config.disconnect_timeout,
            connection: Mutex::new(Some(connection)),
            adapter_pid,
            tcp,
            state: Mutex::new(SessionState {
                initialized: false,
                run: RunState::Starting,
                generation: 1,
                stop_events: 0,
                exit_code: None,
                terminated: false,
                closed: None,
                expired: None,
                handles: HandleTable::default(),
                child_counts: HashMap::new(),
                breakpoints: HashMap::new(),
                unbound_breakpoints: Vec::new(),
                adapter_messages: OutputRing::new(8 * 1024),
                debuggee_pids: Vec::new(),
                stack_cache: None,
                unanswered_evaluate: None,
            }),
            changed: Condvar::new(),
            output,
            teardown: Mutex::new(None),
            temp_dir: Mutex::new(None),
            supports_exception_info: std::sync::atomic::AtomicBool::new(false),
        });
        let event_inner = Arc::clone(&inner);
        let event_thread = std::thread::Builder::new()
            .name(format!("runbound-{label}-events"))
            .spawn(move || pump_events(&event_inner, &incoming))
            .map_err(|err| ToolError::failed(format!("cannot start the event thread: {err}")))?;
        let (watchdog_tx, watchdog_rx) = crossbeam_channel::bounded::<()>(0);
        let weak: Weak<SessionInner> = Arc::downgrade(&inner);
        let ttl = config.session_ttl;
        let watchdog_thread = std::thread::Builder::new()
            .name(format!("runbound-{label}-ttl"))
            .spawn(move || {
                if let Err(crossbeam_channel::RecvTimeoutError::Timeout) = watchdog_rx.recv_timeout(ttl) {
                    if let Some(inner) = weak.upgrade() {
                        let reason = format!("the session reached its TTL of {} and was terminated", format_duration(ttl));
                        inner.state.lock().expired = Some(reason.clone());
                        inner.teardown(&reason);
                        inner.changed.notify_all();
                    }
                }
            })
            .map_err(|err| ToolError::failed(format!("cannot start the TTL thread: {err}")))?;
        let session = Session { inner, event_thread: Some(event_thread), watchdog: Some((watchdog_tx, watchdog_thread)), stdout_thread };
        // From here on, dropping `session` on an error tears everything down.
        let result = session.handshake(ctx, &config, &target, &root, resolved.as_ref(), breakpoints)?;
        Ok((session, result))
    }

    fn handshake(
        &self,
        ctx: &CallContext<'_>,
        config: &DebugConfig,
        target: &SessionTarget,
        root: &Path,
        resolved: Option<&ResolvedAdapter>,
        breakpoints: &BreakpointStore,
    ) -> Result<ToolResult, ToolError> {
        let inner = &self.inner;
        let started = Instant::now();
        let spec = inner.adapter.spec();
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
        let capabilities = inner
            .request_typed::<dap_types::requests::Initialize>(initialize_arguments, config.initialize_timeout.min(ctx.remaining()))
            .map_err(|err| err.with_hint(format!("is {} a working DAP adapter? check `debug adapters`", spec.command_display)))?;
        let capabilities: dap_types::Capabilities = decode_lenient(&capabilities).unwrap_or_default();
        inner
            .supports_exception_info
            .store(capabilities.supports_exception_info_request == Some(true), std::sync::atomic::Ordering::Relaxed);

        let mut debuggee_note = String::new();
        let (command, arguments, launch_budget) = match target {
            SessionTarget::Launch { program, args, .. } => {
                let mut launch_args = adapters::launch_arguments(
                    inner.adapter,
                    &LaunchInputs {
                        program,
                        args,
                        cwd: root,
                        env: &[],
                        debuggee_python: resolved.and_then(|r| r.debuggee_python.as_deref()),
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
                if let Some(python) = resolved.and_then(|r| r.debuggee_python.as_ref()) {
                    debuggee_note = format!("; program python {}", crate::render::display_path(&inner.workspace_root, python));
                }
                let builds = inner.adapter == AdapterId::Delve && launch_args["mode"] == "debug";
                let budget = if builds { config.build_launch_timeout } else { config.launch_timeout };
                ("launch", launch_args, budget)
            }
            SessionTarget::Attach { port, .. } => {
                let arguments = adapters::attach_arguments(inner.adapter, *port, root)
                    .ok_or_else(|| ToolError::invalid(format!("{} cannot attach by port: {}", spec.name, spec.attach_form)))?;
                ("attach", arguments, config.launch_timeout)
            }
        };
        let handshake_deadline = Instant::now() + launch_budget.min(ctx.remaining());
        let launch_pending = inner.send(command, arguments)?;

        // Wait for `initialized` (recorded by the event thread) or an early launch failure.
        let mut launch_result: Option<Result<Value, RpcError>> = None;
        loop {
            if inner.state.lock().initialized {
                break;
            }
            if let Ok(result) = launch_pending.receiver().try_recv() {
                if let Err(err) = &result {
                    return Err(launch_failure(inner, command, err));
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
        let mut breakpoint_report = Vec::new();
        for (file, lines) in breakpoints.files() {
            if lines.is_empty() {
                continue;
            }
            match inner.set_breakpoints_raw(file, lines) {
                Ok(lines) => breakpoint_report.extend(lines),
                Err(err) => breakpoint_report.push(format!(
                    "{}: not set: {}",
                    crate::render::display_path(&inner.workspace_root, file),
                    err.message
                )),
            }
        }
        if let Some(filters) = &capabilities.exception_breakpoint_filters {
            let defaults: Vec<String> = filters.iter().filter(|f| f.default == Some(true)).map(|f| f.filter.clone()).collect();
            let arguments =
                dap_types::SetExceptionBreakpointsArguments { filters: defaults, filter_options: None, exception_options: None };
            if let Err(err) = inner.request_typed::<dap_types::requests::SetExceptionBreakpoints>(arguments, inner.request_timeout) {
                breakpoint_report.push(format!("exception breakpoints not set: {}", err.message));
            }
        }
        if capabilities.supports_configuration_done_request != Some(false) {
            inner.request_typed::<dap_types::requests::ConfigurationDone>(dap_types::ConfigurationDoneArguments, inner.request_timeout)?;
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
                return Err(launch_failure(inner, command, err));
            }
        }
        {
            let mut state = inner.state.lock();
            if state.run == RunState::Starting {
                state.run = RunState::Running;
            }
        }
        let outcome = inner.wait_for_stop(0, config.resume_timeout.min(ctx.remaining()));
        inner.record_debuggee_pids();

        let mut text = String::new();
        let what = match target {
            SessionTarget::Launch { program, args, .. } => {
                let mut what = format!("launched {}", crate::render::display_path(&inner.workspace_root, program));
                if !args.is_empty() {
                    let _ = write!(what, " with args {args:?}");
                }
                what
            }
            SessionTarget::Attach { port, .. } => format!("attached to 127.0.0.1:{port}"),
        };
        let _ = writeln!(
            text,
            "{what} under {} — {} (TTL {}, handshake {} ms{debuggee_note})",
            spec.name,
            inner.description,
            format_duration(inner.ttl),
            started.elapsed().as_millis()
        );
        if let Some(resolved) = resolved {
            let _ = writeln!(text, "{}", resolved.summary);
        }
        if breakpoint_report.is_empty() {
            let _ = writeln!(text, "breakpoints: none set");
        } else {
            let _ = writeln!(text, "breakpoints:");
            for line in &breakpoint_report {
                let _ = writeln!(text, "  {line}");
            }
        }
        text.push_str(&inner.describe_outcome(&outcome, 0));
        Ok(ToolResult::text(text.trim_end().to_owned()))
    }

    /// One line naming the session, its age and what remains of its TTL.
    pub fn describe(&self) -> String {
        let age = self.inner.started_at.elapsed();
        format!(
            "{} (running for {}, TTL ends in {})",
            self.inner.description,
            format_duration(age),
            format_duration(self.inner.ttl.saturating_sub(age))
        )
    }

    /// Why the session is over (TTL, adapter gone, program ended), or `None` while live.
    pub fn finished_reason(&self) -> Option<String> {
        self.inner.refresh_liveness();
        let state = self.inner.state.lock();
        if let Some(expired) = &state.expired {
            return Some(expired.clone());
        }
        if let Some(closed) = &state.closed {
            if state.exit_code.is_none() && !state.terminated {
                return Some(format!("the debug adapter went away: {closed}"));
            }
        }
        if state.terminated || state.exit_code.is_some() {
            return Some(match state.exit_code {
                Some(code) => format!("the program exited with code {}", render::exit_code(code)),
                None => "the program terminated".to_owned(),
            });
        }
        None
    }

    /// Whether the session is over.
    pub fn is_finished(&self) -> bool {
        self.finished_reason().is_some()
    }

    /// The adapter's pid (process-group leader), when runbound spawned it.
    pub fn adapter_pid(&self) -> Option<u32> {
        self.inner.adapter_pid
    }

    /// Pids of the adapter and of the debuggee processes seen under it.
    pub fn process_ids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self.inner.adapter_pid.into_iter().collect();
        pids.extend(self.inner.state.lock().debuggee_pids.iter().map(|&(pid, _)| pid));
        pids
    }

    /// The debuggee's captured output (see [`OutputRing::render`]).
    pub fn output_text(&self) -> String {
        let output = self.inner.output.lock();
        if output.is_empty() {
            return format!("no output from the program yet ({})", self.inner.description);
        }
        let dropped = output.dropped_bytes();
        let mut text = format!("output of {} ({} bytes in total", self.inner.description, output.total_bytes());
        if dropped > 0 {
            let _ = write!(text, ", {dropped} bytes dropped");
        }
        text.push_str("):\n");
        text.push_str(&output.render());
        text
    }

    /// `status`: session, where it is stopped, breakpoints as the adapter reports them.
    pub fn status_text(&self) -> String {
        let inner = &self.inner;
        let poll = inner.poll_unanswered_evaluate();
        let state = inner.state.lock();
        let mut text = format!("{}\n", self.describe());
        match &state.run {
            RunState::Starting => text.push_str("state: starting\n"),
            RunState::Running => text.push_str("state: running\n"),
            RunState::Stopped(stop) => {
                let _ = writeln!(
                    text,
                    "state: stopped ({}) on thread {} at stop #{}",
                    stop.reason,
                    stop.thread_id.map_or("?".to_owned(), |t| t.to_string()),
                    state.generation
                );
            }
        }
        if let Some(code) = state.exit_code {
            let _ = writeln!(text, "program exited with code {}", render::exit_code(code));
        }
        let mut statuses: Vec<&BreakpointStatus> = state.breakpoints.values().chain(state.unbound_breakpoints.iter()).collect();
        statuses.sort_by(|a, b| (&a.file, a.requested_line).cmp(&(&b.file, b.requested_line)));
        for status in statuses {
            let _ = writeln!(text, "  {}", describe_breakpoint(status, &inner.workspace_root));
        }
        if let Some(line) = inner.describe_evaluate_poll(poll) {
            let _ = writeln!(text, "{line}");
        }
        text.trim_end().to_owned()
    }

    /// Sends the breakpoints of `file` to the running adapter and reports each line.
    pub fn set_breakpoints(&self, _ctx: &CallContext<'_>, file: &Path, lines: &[u64]) -> Result<ToolResult, ToolError> {
        self.inner.check_alive()?;
        let report = self.inner.set_breakpoints_raw(file, lines)?;
        let mut text = format!(
            "breakpoints of {} sent to the running {}:",
            crate::render::display_path(&self.inner.workspace_root, file),
            self.inner.adapter.name()
        );
        if report.is_empty() {
            text.push_str(" cleared");
        }
        for line in report {
            let _ = write!(text, "\n  {line}");
        }
        Ok(ToolResult::text(text))
    }

    /// Runs a session op (everything but adapters/status/breakpoints/launch/attach/output/
    /// terminate, which the supervisor handles).
    pub(crate) fn call(
        &self,
        ctx: &CallContext<'_>,
        config: &DebugConfig,
        op: &str,
        arguments: &DebugArguments,
    ) -> Result<ToolResult, ToolError> {
        let inner = &self.inner;
        inner.check_alive()?;
        match op {
            "continue" | "step_over" | "step_in" | "step_out" | "pause" => inner.resume(ctx, op, arguments.thread_id, config),
            "threads" => inner.threads_text(),
            "stack" => inner.stack_text(arguments.thread_id),
            "scopes" => inner.scopes_text(required(&arguments.frame_id, "frame_id", op)?),
            "variables" => inner.variables_text(required(&arguments.reference, "reference", op)?, arguments.start.unwrap_or(0)),
            "evaluate" => inner.evaluate_text(&required(&arguments.expression, "expression", op)?, arguments.frame_id),
            _ => Err(ToolError::invalid(format!("unknown debug op {op:?}"))),
        }
        .map(ToolResult::text)
    }

    /// Ends the session: `disconnect` (terminateDebuggee for launches) → bounded wait → kill
    /// the adapter's process group and any debuggee left → join the threads. Idempotent.
    /// Returns what was done.
    pub fn terminate(mut self, reason: &str) -> String {
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

impl SessionInner {
    fn send(&self, command: &str, arguments: Value) -> Result<crate::transport::PendingResponse, ToolError> {
        let connection = self.connection.lock();
        let Some(connection) = connection.as_ref() else {
            return Err(self.gone_error(command));
        };
        connection.send_request(command, arguments).map_err(|err| self.rpc_error(command, &err))
    }

    fn request(&self, command: &str, arguments: Value, timeout: Duration) -> Result<Value, ToolError> {
        let pending = self.send(command, arguments)?;
        pending.wait(timeout).map_err(|err| self.rpc_error(command, &err))
    }

    fn request_typed<R: DapRequestType>(&self, arguments: R::Arguments, timeout: Duration) -> Result<Value, ToolError> {
        let arguments = serde_json::to_value(arguments).map_err(|err| ToolError::failed(format!("cannot encode {}: {err}", R::COMMAND)))?;
        self.request(R::COMMAND, arguments, timeout)
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
        let reason = self.teardown.lock().clone().unwrap_or_else(|| "connection closed".to_owned());
        ToolError::new(ErrorKind::Unavailable, format!("{command}: {} has ended: {reason}", self.description))
            .with_hint("call debug op \"launch\" to start a new session")
    }

    /// Notices an adapter that died before its stream reported the end (its pipes can stay
    /// open while a debuggee it started still holds them).
    fn refresh_liveness(&self) {
        if self.state.lock().closed.is_some() {
            return;
        }
        let Some(pid) = self.adapter_pid else { return };
        // /proc rather than waitpid alone: a zombie or a vanished pid is a dead adapter.
        let dead = process::process_state(pid) != Some(ProcessState::Live);
        if !dead {
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

    fn set_breakpoints_raw(&self, file: &Path, lines: &[u64]) -> Result<Vec<String>, ToolError> {
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
                lines
                    .iter()
                    .map(|&line| dap_types::SourceBreakpoint {
                        line,
                        column: None,
                        condition: None,
                        hit_condition: None,
                        log_message: None,
                        mode: None,
                    })
                    .collect(),
            ),
            lines: Some(lines.to_vec()),
            source_modified: Some(false),
        };
        let body = self.request_typed::<dap_types::requests::SetBreakpoints>(arguments, self.request_timeout)?;
        let entries = body.get("breakpoints").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut state = self.state.lock();
        state.breakpoints.retain(|_, status| status.file != file);
        state.unbound_breakpoints.retain(|status| status.file != file);
        let mut report = Vec::new();
        for (index, &requested_line) in lines.iter().enumerate() {
            let entry = entries.get(index);
            let status = BreakpointStatus {
                file: file.to_path_buf(),
                requested_line,
                line: entry.and_then(|e| e.get("line")).and_then(Value::as_u64),
                verified: entry.and_then(|e| e.get("verified")).and_then(Value::as_bool).unwrap_or(false),
                message: entry
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| entry.is_none().then(|| "the adapter returned no entry for this line".to_owned())),
            };
            report.push(describe_breakpoint(&status, &self.workspace_root));
            match entry.and_then(|e| e.get("id")).and_then(Value::as_i64) {
                Some(id) => {
                    state.breakpoints.insert(id, status);
                }
                None => state.unbound_breakpoints.push(status),
            }
        }
        Ok(report)
    }

    /// Waits until a `stopped` event newer than `stops_seen`, the program's exit, the adapter's
    /// end, or `timeout`.
    fn wait_for_stop(&self, stops_seen: u64, timeout: Duration) -> StopOutcome {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock();
        loop {
            if state.stop_events > stops_seen {
                if let RunState::Stopped(stop) = &state.run {
                    return StopOutcome::Stopped(stop.clone());
                }
            }
            if state.exit_code.is_some() {
                return StopOutcome::Exited(state.exit_code);
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
                return StopOutcome::Exited(state.exit_code);
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

    /// The exception's id (e.g. `SystemExit`, `ValueError`) from DAP `exceptionInfo`, when the
    /// adapter supports it and answers within the request timeout; `None` otherwise.
    fn exception_name(&self, thread: i64) -> Option<String> {
        if !self.supports_exception_info.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let body = self.request("exceptionInfo", json!({"threadId": thread}), self.request_timeout).ok()?;
        body.get("exceptionId").and_then(Value::as_str).filter(|id| !id.is_empty()).map(str::to_owned)
    }

    fn describe_outcome(&self, outcome: &StopOutcome, output_cursor: u64) -> String {
        let mut text = match outcome {
            StopOutcome::Stopped(stop) => {
                let mut text = format!("stopped: {}", stop.reason);
                if let Some(exception) = stop.thread_id.filter(|_| stop.reason == "exception").and_then(|thread| self.exception_name(thread)) {
                    let _ = write!(text, " {exception}");
                }
                if let Some(description) = stop.description.as_ref().or(stop.text.as_ref()) {
                    if !description.eq_ignore_ascii_case(&stop.reason) {
                        let _ = write!(text, " ({description})");
                    }
                }
                if let Some(thread) = stop.thread_id {
                    let _ = write!(text, " on thread {thread}");
                }
                match stop.thread_id.map(|thread| self.top_frame(thread)) {
                    Some(Ok(Some(frame))) => {
                        let _ = write!(text, "\n{frame}");
                    }
                    Some(Err(err)) => {
                        let _ = write!(text, "\n(location unavailable: {})", err.message);
                    }
                    _ => {}
                }
                text
            }
            StopOutcome::Exited(code) => match code {
                Some(code) => format!("the program exited with code {}; the session is over", render::exit_code(*code)),
                None => "the program terminated; the session is over (the exit code was not reported yet: some adapters, e.g. delve, report it at disconnect)".to_owned(),
            },
            StopOutcome::Closed(reason) => format!("the session ended: {reason}"),
            StopOutcome::StillRunning(waited) => format!(
                "running: no stop within {} ms (no breakpoint hit yet); call debug op \"pause\" to stop it, \"status\" to check, or \"continue\" to keep waiting",
                waited.as_millis()
            ),
        };
        let output = self.output.lock();
        let new_output = output.render_since(output_cursor);
        if !new_output.is_empty() {
            let cut = crate::render::cut_chars(new_output.trim_end(), 2000);
            let _ = write!(text, "\nnew output:\n{cut}");
        }
        text
    }

    /// `stackTrace {levels: 30}` of `thread`, cached for the current stop generation: frames
    /// cannot change while the program stays stopped, so the `stack` that follows a step (or
    /// an `evaluate` in the top frame) costs no second round trip.
    fn stack_trace(&self, thread: i64) -> Result<Value, ToolError> {
        let generation = {
            let state = self.state.lock();
            if let Some((cached_generation, cached_thread, body)) = &state.stack_cache {
                if *cached_generation == state.generation && *cached_thread == thread {
                    return Ok(body.clone());
                }
            }
            state.generation
        };
        let body =
            self.request("stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": MAX_STACK_FRAMES}), self.request_timeout)?;
        self.state.lock().stack_cache = Some((generation, thread, body.clone()));
        Ok(body)
    }

    fn top_frame(&self, thread_id: i64) -> Result<Option<String>, ToolError> {
        let body = self.stack_trace(thread_id)?;
        let frames = body.get("stackFrames").and_then(Value::as_array).cloned().unwrap_or_default();
        let Some(frame) = frames.first() else { return Ok(None) };
        let mut state = self.state.lock();
        Ok(Some(self.frame_line(&mut state, frame, 0)))
    }

    fn frame_line(&self, state: &mut SessionState, frame: &Value, index: usize) -> String {
        let raw_id = frame.get("id").and_then(Value::as_i64).unwrap_or(0);
        let generation = state.generation;
        let handle = state.handles.insert(generation, HandleKind::Frame, raw_id);
        let name = frame.get("name").and_then(Value::as_str).unwrap_or("?");
        let line = frame.get("line").and_then(Value::as_u64).unwrap_or(0);
        let path = frame.get("source").and_then(|s| s.get("path")).and_then(Value::as_str).map(PathBuf::from);
        let location = match &path {
            Some(path) => format!("{}:{line}", crate::render::display_path(&self.workspace_root, path)),
            None => match frame.get("source").and_then(|s| s.get("name")).and_then(Value::as_str) {
                Some(name) => format!("{name}:{line} (no source path)"),
                None => "(no source)".to_owned(),
            },
        };
        let mut text = format!("#{index} {location} in {name}  [frame_id {handle}]");
        if let Some(source) = path.as_deref().and_then(|p| render::source_line(p, line)) {
            let _ = write!(text, "\n    {line} | {source}");
        }
        text
    }

    fn stopped_thread(&self) -> Option<i64> {
        match &self.state.lock().run {
            RunState::Stopped(stop) => stop.thread_id,
            _ => None,
        }
    }

    fn default_thread(&self, requested: Option<i64>) -> Result<i64, ToolError> {
        if let Some(thread) = requested {
            return Ok(thread);
        }
        if let Some(thread) = self.stopped_thread() {
            return Ok(thread);
        }
        let body = self.request("threads", json!({}), self.request_timeout)?;
        let threads: ThreadsBody = decode_lenient(&body).unwrap_or(ThreadsBody { threads: Vec::new() });
        threads.threads.first().map(|t| t.id).ok_or_else(|| {
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

    fn resume(&self, ctx: &CallContext<'_>, op: &str, thread_id: Option<i64>, config: &DebugConfig) -> Result<String, ToolError> {
        // `pause` is harmless while an evaluate runs (it says "already stopped").
        let late_note = if op == "pause" { None } else { self.refuse_while_evaluating(op)? };
        with_late_note(self.resume_now(ctx, op, thread_id, config), late_note)
    }

    fn resume_now(&self, ctx: &CallContext<'_>, op: &str, thread_id: Option<i64>, config: &DebugConfig) -> Result<String, ToolError> {
        let started = Instant::now();
        if op == "pause" {
            if let RunState::Stopped(stop) = &self.state.lock().run {
                return Ok(format!(
                    "already stopped ({}) on thread {}; nothing to pause — call stack, or continue / step_over",
                    stop.reason,
                    stop.thread_id.map_or("?".to_owned(), |t| t.to_string())
                ));
            }
        } else {
            self.require_stopped(op)?;
        }
        let thread = self.default_thread(thread_id)?;
        let (command, arguments) = match op {
            "continue" => ("continue", json!({"threadId": thread})),
            "step_over" => ("next", json!({"threadId": thread})),
            "step_in" => ("stepIn", json!({"threadId": thread})),
            "step_out" => ("stepOut", json!({"threadId": thread})),
            _ => ("pause", json!({"threadId": thread})),
        };
        let (stops_seen, output_cursor) = {
            let mut state = self.state.lock();
            if op != "pause" {
                state.generation += 1;
                state.run = RunState::Running;
            }
            (state.stop_events, self.output.lock().total_bytes())
        };
        self.request(command, arguments, self.request_timeout.min(ctx.remaining()))?;
        let outcome = self.wait_for_stop(stops_seen, config.resume_timeout.min(ctx.remaining()));
        let mut text = format!("{op} (thread {thread}) took {} ms\n", started.elapsed().as_millis());
        text.push_str(&self.describe_outcome(&outcome, output_cursor));
        Ok(text)
    }

    fn threads_text(&self) -> Result<String, ToolError> {
        let body = self.request("threads", json!({}), self.request_timeout)?;
        let threads: ThreadsBody = decode_lenient(&body).unwrap_or(ThreadsBody { threads: Vec::new() });
        if threads.threads.is_empty() {
            return Ok(format!("{} reports no threads", self.description));
        }
        let stopped = self.stopped_thread();
        let mut text = format!("{} thread(s):", threads.threads.len());
        for thread in threads.threads.iter().take(100) {
            let _ = write!(text, "\n  thread {}: {}", thread.id, thread.name.as_deref().unwrap_or("(unnamed)"));
            if stopped == Some(thread.id) {
                text.push_str("  (stopped here)");
            }
        }
        if threads.threads.len() > 100 {
            let _ = write!(text, "\n  showing 100 of {} threads", threads.threads.len());
        }
        Ok(text)
    }

    fn stack_text(&self, thread_id: Option<i64>) -> Result<String, ToolError> {
        self.require_stopped("stack")?;
        let thread = self.default_thread(thread_id)?;
        let body = self.stack_trace(thread)?;
        let frames = body.get("stackFrames").and_then(Value::as_array).cloned().unwrap_or_default();
        if frames.is_empty() {
            return Ok(format!("thread {thread} has no frames"));
        }
        let total = body.get("totalFrames").and_then(Value::as_u64);
        let shown = frames.len().min(MAX_STACK_FRAMES as usize);
        let mut state = self.state.lock();
        let mut text = format!("stack of thread {thread} (stop #{}):", state.generation);
        for (index, frame) in frames.iter().take(shown).enumerate() {
            let _ = write!(text, "\n{}", self.frame_line(&mut state, frame, index));
        }
        match total {
            Some(total) if total > shown as u64 => {
                let _ = write!(text, "\nshowing {shown} of {total} frames");
            }
            None if shown as u64 == MAX_STACK_FRAMES => {
                let _ = write!(text, "\nshowing the first {shown} frames; deeper frames may exist");
            }
            _ => {}
        }
        Ok(text)
    }

    fn resolve_handle(&self, handle: u64, kind: HandleKind) -> Result<i64, ToolError> {
        let state = self.state.lock();
        state.handles.resolve(handle, kind, state.generation).map_err(|err| {
            let hint = match kind {
                HandleKind::Frame => "call debug op \"stack\" for current frame ids",
                HandleKind::Variables => "call debug op \"stack\" then \"scopes\" for current references",
            };
            ToolError::new(ErrorKind::Conflict, err.describe(handle, kind)).with_hint(hint)
        })
    }

    fn scopes_text(&self, frame_handle: u64) -> Result<String, ToolError> {
        let frame = self.resolve_handle(frame_handle, HandleKind::Frame)?;
        let body = self.request("scopes", json!({"frameId": frame}), self.request_timeout)?;
        let scopes = body.get("scopes").and_then(Value::as_array).cloned().unwrap_or_default();
        if scopes.is_empty() {
            return Ok(format!("frame {frame_handle} has no scopes"));
        }
        let mut state = self.state.lock();
        let generation = state.generation;
        let mut text = format!("scopes of frame {frame_handle}:");
        for scope in &scopes {
            let name = scope.get("name").and_then(Value::as_str).unwrap_or("?");
            let raw = scope.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
            let count = child_count(scope);
            let expensive = scope.get("expensive").and_then(Value::as_bool).unwrap_or(false);
            if raw <= 0 {
                let _ = write!(text, "\n  {name} (no variables)");
                continue;
            }
            let handle = state.handles.insert(generation, HandleKind::Variables, raw);
            if let Some(count) = count {
                state.child_counts.insert(handle, count);
            }
            let _ = write!(text, "\n  {name}  (reference {handle}");
            if let Some(count) = count {
                let _ = write!(text, ", {count} variables");
            }
            text.push(')');
            if expensive {
                text.push_str("  [expensive to fetch]");
            }
        }
        Ok(text)
    }

    fn variables_text(&self, reference: u64, start: u64) -> Result<String, ToolError> {
        let raw = self.resolve_handle(reference, HandleKind::Variables)?;
        let body =
            self.request("variables", json!({"variablesReference": raw, "start": start, "count": MAX_VARIABLES}), self.request_timeout)?;
        let mut variables = body.get("variables").and_then(Value::as_array).cloned().unwrap_or_default();
        let known_total = self.state.lock().child_counts.get(&reference).copied();
        // debugpy pages only indexed children and then drops the rest of the window: when the
        // adapter answered short of what the parent announced, fetch unpaged and window here.
        let mut unpaged = false;
        if (variables.len() as u64) < MAX_VARIABLES && known_total.is_some_and(|total| total > start + variables.len() as u64) {
            let body = self.request("variables", json!({"variablesReference": raw}), self.request_timeout)?;
            variables = body.get("variables").and_then(Value::as_array).cloned().unwrap_or_default();
            unpaged = true;
        }
        let returned = variables.len();
        // An adapter that ignored paging sent everything: apply the window ourselves.
        let windowed_here = unpaged || returned as u64 > MAX_VARIABLES;
        if windowed_here {
            variables = variables.into_iter().skip(start as usize).take(MAX_VARIABLES as usize).collect();
        }
        if variables.is_empty() {
            return Ok(format!(
                "reference {reference} has no children{}",
                if start > 0 { format!(" from index {start}") } else { String::new() }
            ));
        }
        let mut state = self.state.lock();
        let generation = state.generation;
        let mut text = format!("children of reference {reference}:");
        for variable in &variables {
            let name = variable.get("name").and_then(Value::as_str).unwrap_or("?");
            let value = variable.get("value").and_then(Value::as_str).unwrap_or("");
            let type_name = variable.get("type").and_then(Value::as_str);
            let child = variable.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
            let count = child_count(variable);
            let handle = (child > 0).then(|| state.handles.insert(generation, HandleKind::Variables, child));
            if let (Some(handle), Some(count)) = (handle, count) {
                state.child_counts.insert(handle, count);
            }
            let _ = write!(text, "\n  {}", render::variable_line(name, type_name, value, handle, count));
        }
        let shown_end = start + variables.len() as u64;
        let total = if windowed_here { Some(returned as u64) } else { known_total };
        match total {
            Some(total) if total > shown_end => {
                let _ = write!(text, "\nshowing {}–{} of {total}; call variables with start={shown_end} for more", start + 1, shown_end);
            }
            None if variables.len() as u64 == MAX_VARIABLES => {
                let _ = write!(text, "\nshowing {}–{}; more may follow: call variables with start={shown_end}", start + 1, shown_end);
            }
            _ => {}
        }
        Ok(text)
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
            Ok(outcome) => outcome.map_err(|err| self.rpc_error("evaluate", &err).message),
            Err(crossbeam_channel::TryRecvError::Disconnected) => {
                Err("the debug adapter closed its connection before answering".to_owned())
            }
        };
        let expression = state.unanswered_evaluate.take().map(|answered| answered.expression).unwrap_or_default();
        EvaluatePoll::AnsweredLate { expression, waited, outcome }
    }

    /// One line about an `evaluate` that timed out earlier, or `None` when there is none.
    fn describe_evaluate_poll(&self, poll: EvaluatePoll) -> Option<String> {
        match poll {
            EvaluatePoll::Nothing => None,
            EvaluatePoll::StillRunning { expression, waited } => Some(format!(
                "an evaluate of `{expression}` sent {} ms ago has not answered: the program is probably still running it, so the \
                 state above may not hold; call status again later, or terminate",
                waited.as_millis()
            )),
            EvaluatePoll::AnsweredLate { expression, waited, outcome: Ok(body) } => {
                let result = body.get("result").and_then(Value::as_str).unwrap_or("");
                let type_name = body.get("type").and_then(Value::as_str);
                Some(format!(
                    "the evaluate of `{expression}` that timed out (sent {} ms ago) has answered since: {}",
                    waited.as_millis(),
                    render::variable_line(&expression, type_name, result, None, None)
                ))
            }
            EvaluatePoll::AnsweredLate { expression, waited, outcome: Err(message) } => Some(format!(
                "the evaluate of `{expression}` that timed out (sent {} ms ago) has ended without a value: {message}",
                waited.as_millis()
            )),
        }
    }

    /// Refuses `op` while an evaluate that timed out is still running (the adapter would only
    /// queue `op` behind it, or answer it late); otherwise returns the one-time note about an
    /// evaluate that answered since, if any.
    fn refuse_while_evaluating(&self, op: &str) -> Result<Option<String>, ToolError> {
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
            poll => Ok(self.describe_evaluate_poll(poll)),
        }
    }

    fn evaluate_text(&self, expression: &str, frame_handle: Option<u64>) -> Result<String, ToolError> {
        let late_note = self.refuse_while_evaluating(&format!("evaluate `{expression}`"))?;
        with_late_note(self.evaluate_now(expression, frame_handle), late_note)
    }

    fn evaluate_now(&self, expression: &str, frame_handle: Option<u64>) -> Result<String, ToolError> {
        let frame = match frame_handle {
            Some(handle) => Some(self.resolve_handle(handle, HandleKind::Frame)?),
            None => {
                self.require_stopped("evaluate")?;
                let thread = self.default_thread(None)?;
                let body = self.stack_trace(thread)?;
                body.get("stackFrames").and_then(Value::as_array).and_then(|f| f.first()).and_then(|f| f.get("id")).and_then(Value::as_i64)
            }
        };
        let mut arguments = json!({"expression": expression, "context": self.adapter.spec().evaluate_context});
        if let Some(frame) = frame {
            arguments["frameId"] = json!(frame);
        }
        let sent_at = Instant::now();
        let pending = self.send("evaluate", arguments)?;
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
        let result = body.get("result").and_then(Value::as_str).unwrap_or("");
        let type_name = body.get("type").and_then(Value::as_str);
        let child = body.get("variablesReference").and_then(Value::as_i64).unwrap_or(0);
        let count = child_count(&body);
        let mut state = self.state.lock();
        let generation = state.generation;
        let handle = (child > 0).then(|| state.handles.insert(generation, HandleKind::Variables, child));
        if let (Some(handle), Some(count)) = (handle, count) {
            state.child_counts.insert(handle, count);
        }
        let where_ = match frame_handle {
            Some(handle) => format!("in frame {handle}"),
            None => "in the top frame".to_owned(),
        };
        Ok(format!("{} ({where_})", render::variable_line(expression, type_name, result, handle, count)))
    }

    /// Records the adapter's descendants (the debuggee and its helpers) so they can be killed
    /// even if the adapter dies first.
    fn record_debuggee_pids(&self) {
        let Some(adapter_pid) = self.adapter_pid else { return };
        let found = process::descendant_processes(adapter_pid).into_iter().map(|identity| (identity.pid, identity.start_time_ticks));
        let mut state = self.state.lock();
        for entry in found {
            if !state.debuggee_pids.contains(&entry) {
                state.debuggee_pids.push(entry);
            }
        }
    }

    /// disconnect → wait → kill group → kill leftovers → close. Idempotent; returns the report.
    fn teardown(&self, reason: &str) -> String {
        let mut done = self.teardown.lock();
        if let Some(report) = done.as_ref() {
            return report.clone();
        }
        self.record_debuggee_pids();
        let mut steps = Vec::new();
        let mut exit_note = String::new();
        let exit_code_known = self.state.lock().exit_code.is_some();
        let connection = self.connection.lock().take();
        if let Some(connection) = connection {
            let alive = connection.closed().is_none();
            if alive {
                let arguments = json!({"restart": false, "terminateDebuggee": !self.is_attach});
                match connection.request("disconnect", arguments, self.disconnect_timeout) {
                    Ok(_) => steps.push(if self.is_attach {
                        "disconnected (the attached program keeps running)"
                    } else {
                        "disconnected with terminateDebuggee"
                    }),
                    Err(_) => steps.push("disconnect unanswered"),
                }
            } else {
                steps.push("adapter already gone");
            }
            if let Some(child) = connection.child() {
                let exited_alone = child.wait_timeout(if alive { self.disconnect_timeout } else { Duration::ZERO }).is_some();
                child.kill_group();
                steps.push(if exited_alone { "adapter exited" } else { "adapter process group killed" });
            }
            if let Some(tcp) = &self.tcp {
                let _ = tcp.shutdown(Shutdown::Both);
            }
            drop(connection);
        }
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
            if let (false, Some(code)) = (exit_code_known, state.exit_code) {
                exit_note = format!("; the program exited with code {}", render::exit_code(code));
            }
        }
        let leftovers = kill_leftovers(&self.state.lock().debuggee_pids);
        if leftovers > 0 {
            steps.push("leftover debuggee processes killed");
        }
        self.temp_dir.lock().take();
        let report = format!("{} ({reason}){exit_note}", steps.join(", "));
        *done = Some(report.clone());
        drop(done);
        self.changed.notify_all();
        report
    }
}

fn pump_events(inner: &SessionInner, incoming: &Receiver<Incoming>) {
    while let Ok(message) = incoming.recv() {
        match message {
            Incoming::Notification(event) => record_event(inner, &event.method, &event.params),
            Incoming::Request(request) => {
                let refusal = ResponseError {
                    code: 0,
                    message: format!("runbound does not support the reverse request {} (single-session, headless client)", request.method),
                    data: None,
                };
                if let Some(connection) = inner.connection.lock().as_ref() {
                    let _ = connection.respond(&request, Err(refusal));
                }
                inner.state.lock().adapter_messages.push(OutputStream::Adapter, &format!("refused reverse request {}\n", request.method));
            }
            Incoming::Diagnostic(text) => {
                inner.state.lock().adapter_messages.push(OutputStream::Adapter, &format!("{text}\n"));
            }
            Incoming::UnmatchedResponse { .. } => {}
            Incoming::Closed(closed) => {
                inner.state.lock().closed = Some(closed.to_string());
                inner.changed.notify_all();
                break;
            }
        }
    }
    let mut state = inner.state.lock();
    if state.closed.is_none() {
        state.closed = Some("the connection to the adapter closed".to_owned());
    }
    drop(state);
    inner.changed.notify_all();
}

fn record_event(inner: &SessionInner, event: &str, body: &Value) {
    let mut state = inner.state.lock();
    match event {
        "initialized" => state.initialized = true,
        "stopped" => {
            let stopped: StoppedBody =
                decode_lenient(body).unwrap_or(StoppedBody { reason: None, thread_id: None, description: None, text: None });
            state.generation += 1;
            state.stop_events += 1;
            state.run = RunState::Stopped(StopInfo {
                reason: stopped.reason.unwrap_or_else(|| "unknown".to_owned()),
                thread_id: stopped.thread_id,
                description: stopped.description,
                text: stopped.text,
            });
        }
        "continued" => {
            if matches!(state.run, RunState::Stopped(_)) {
                state.generation += 1;
                state.run = RunState::Running;
            }
        }
        "exited" => state.exit_code = Some(body.get("exitCode").and_then(Value::as_i64).unwrap_or(0)),
        "terminated" => state.terminated = true,
        "output" => {
            let text = body.get("output").and_then(Value::as_str).unwrap_or("");
            match body.get("category").and_then(Value::as_str).unwrap_or("console") {
                "stdout" => inner.output.lock().push(OutputStream::Stdout, text),
                "stderr" => inner.output.lock().push(OutputStream::Stderr, text),
                "telemetry" => {}
                _ => {
                    // delve reports the exit only as console text ("Process 123 has exited with
                    // status 4") before `terminated`; it sends no `exited` event.
                    if state.exit_code.is_none() {
                        state.exit_code = parse_exit_status_text(text);
                    }
                    state.adapter_messages.push(OutputStream::Adapter, text);
                }
            }
        }
        "breakpoint" => {
            let Some(breakpoint) = body.get("breakpoint") else { return };
            let Some(id) = breakpoint.get("id").and_then(Value::as_i64) else { return };
            if let Some(status) = state.breakpoints.get_mut(&id) {
                if let Some(verified) = breakpoint.get("verified").and_then(Value::as_bool) {
                    status.verified = verified;
                }
                if let Some(line) = breakpoint.get("line").and_then(Value::as_u64) {
                    status.line = Some(line);
                }
                status.message = breakpoint.get("message").and_then(Value::as_str).map(str::to_owned);
            }
        }
        "process" => {
            if let Some(pid) = body.get("systemProcessId").and_then(Value::as_u64).and_then(|p| u32::try_from(p).ok()) {
                if let Some(start) = process::process_start_time_ticks(pid) {
                    if !state.debuggee_pids.contains(&(pid, start)) {
                        state.debuggee_pids.push((pid, start));
                    }
                }
            }
        }
        _ => return,
    }
    drop(state);
    inner.changed.notify_all();
}

fn describe_breakpoint(status: &BreakpointStatus, workspace_root: &Path) -> String {
    let file = crate::render::display_path(workspace_root, &status.file);
    let mut text = format!("{file}:{}", status.requested_line);
    match status.line {
        Some(line) if line != status.requested_line => {
            let _ = write!(text, " → moved to line {line}");
        }
        _ => {}
    }
    text.push_str(if status.verified { " verified" } else { " unverified" });
    if let Some(message) = &status.message {
        let _ = write!(text, " ({message})");
    }
    if !status.verified {
        text.push_str(" — it may bind once the code is loaded; the adapter reports changes");
    }
    text
}

fn launch_failure(inner: &SessionInner, command: &str, err: &RpcError) -> ToolError {
    let mut error = inner.rpc_error(command, err);
    let messages = inner.state.lock().adapter_messages.render();
    if !messages.trim().is_empty() {
        error.message.push_str(&format!("\nadapter messages:\n{}", crate::render::cut_chars(messages.trim(), 2000)));
    }
    error.with_hint("check the program path and that it was built with debug info; `debug adapters` shows what was found")
}

fn child_count(value: &Value) -> Option<u64> {
    let named = value.get("namedVariables").and_then(Value::as_u64);
    let indexed = value.get("indexedVariables").and_then(Value::as_u64);
    match (named, indexed) {
        (None, None) => None,
        (named, indexed) => Some(named.unwrap_or(0) + indexed.unwrap_or(0)),
    }
}

/// Decodes a response or event body into a dap-types (or own) payload; adapters extend enums
/// (D8: presentationHint) so a failed decode retries without `presentationHint` fields.
fn decode_lenient<T: DeserializeOwned>(body: &Value) -> Option<T> {
    if let Ok(value) = serde_json::from_value(body.clone()) {
        return Some(value);
    }
    let mut stripped = body.clone();
    strip_key(&mut stripped, "presentationHint");
    serde_json::from_value(stripped).ok()
}

fn strip_key(value: &mut Value, key: &str) {
    match value {
        Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| strip_key(v, key));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| strip_key(v, key)),
        _ => {}
    }
}

/// The status of `Process 123 has exited with status 4` (delve's console message).
fn parse_exit_status_text(text: &str) -> Option<i64> {
    let rest = text.split("has exited with status").nth(1)?;
    let digits: String = rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().ok()
}

/// Reads dlv's stdout: the first line (the listening address) goes to `port_tx`; every later
/// line is the debuggee's stdout (Debian's delve 1.20 does not forward it as `output` events).
fn pump_listen_stdout(stdout: std::process::ChildStdout, port_tx: Sender<String>, ring: Arc<Mutex<OutputRing>>, done: Sender<()>) {
    let mut reader = BufReader::new(stdout);
    let mut first = true;
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if first && line.contains("listening at") {
                    first = false;
                    let _ = port_tx.send(line.trim().to_owned());
                    continue;
                }
                if first {
                    // Anything before the address line is noise from the adapter itself.
                    continue;
                }
                ring.lock().push(OutputStream::Stdout, &line);
            }
        }
    }
    if first {
        let _ = port_tx.send(String::new());
    }
    let _ = done.send(());
}

/// The port of `DAP server listening at: 127.0.0.1:PORT` (also `[::1]:PORT`).
pub fn parse_listen_port(line: &str) -> Option<u16> {
    let address = line.split("listening at:").nth(1)?.trim();
    address.rsplit(':').next()?.trim().parse().ok()
}

fn connect_loopback(port: u16, timeout: Duration) -> std::io::Result<TcpStream> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + timeout;
    loop {
        match TcpStream::connect_timeout(&address, Duration::from_millis(500)) {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(err) if Instant::now() + Duration::from_millis(50) < deadline && err.kind() == std::io::ErrorKind::ConnectionRefused => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(err) => return Err(err),
        }
    }
}

/// SIGKILLs each recorded process that is still the same process (same start time) and alive.
fn kill_leftovers(pids: &[(u32, u64)]) -> usize {
    let mut killed = 0;
    for &(pid, start) in pids {
        if process::process_start_time_ticks(pid) != Some(start) || process::process_state(pid) != Some(ProcessState::Live) {
            continue;
        }
        let Ok(raw) = i32::try_from(pid) else { continue };
        if nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), nix::sys::signal::Signal::SIGKILL).is_ok() {
            killed += 1;
        }
    }
    killed
}

fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 60 && seconds.is_multiple_of(60) {
        format!("{} min", seconds / 60)
    } else if seconds >= 60 {
        format!("{} min {} s", seconds / 60, seconds % 60)
    } else if seconds >= 1 {
        format!("{seconds} s")
    } else {
        format!("{} ms", duration.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_port_is_parsed_from_dlv_first_line() {
        assert_eq!(parse_listen_port("DAP server listening at: 127.0.0.1:41234"), Some(41234));
        assert_eq!(parse_listen_port("DAP server listening at: [::1]:5000\n"), Some(5000));
        assert_eq!(parse_listen_port("Type 'dlv help' for list of commands."), None);
        assert_eq!(parse_exit_status_text("Process 4242 has exited with status 4\n"), Some(4));
        assert_eq!(parse_exit_status_text("Process 1 has exited with status -1"), Some(-1));
        assert_eq!(parse_exit_status_text("unrelated"), None);
    }

    #[test]
    fn lenient_decode_survives_unknown_presentation_hints() {
        let body = json!({"stackFrames": [{"id": 1, "name": "f", "line": 3, "column": 1, "presentationHint": "deemphasize-ish"}]});
        let decoded: Option<dap_types::StackTraceResponse> = decode_lenient(&body);
        assert_eq!(decoded.unwrap().stack_frames[0].line, 3);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_secs(1800)), "30 min");
        assert_eq!(format_duration(Duration::from_secs(90)), "1 min 30 s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1 s");
        assert_eq!(format_duration(Duration::from_millis(300)), "300 ms");
    }
}
