//! The debugger over DAP: the `debug` tool (tier exec, not parallel-safe), its session
//! supervisor, and the adapters debugpy, lldb-dap, delve and dart (spec §7, R-DBG-1..4).
//!
//! Shape: a [`DebugSupervisor`] is the run's resource. It holds the desired breakpoints and at
//! most one [`session`] per conversation (R-DBG-3). A session owns the adapter process (its own
//! process group, stderr drained), a [`crate::transport::RpcConnection`] (named reader and
//! writer threads; the reader routes responses by `request_seq`), one named event thread that
//! records every event into the session state itself (so an `initialized` or `stopped` event is
//! never lost to whoever happens to wait), and a TTL watchdog thread. Tool calls are plain
//! blocking functions that send requests with per-request timeouts and wait on the state.
//!
//! Architecture invariants:
//! - `dap_types` is used for argument and body payloads only; the envelope is
//!   [`crate::transport::DapMessage`]. Neither leaks out of this module: results are text plus
//!   our own JSON.
//! - No adapter or debuggee outlives its session: `terminate`, the TTL and run drop all do
//!   `disconnect {terminateDebuggee}` → bounded wait → kill the adapter's process group.
//! - Frame ids and variable references given to the model are generation-stamped handles
//!   ([`state::HandleTable`]); a stale one is refused locally, never sent.

pub mod adapters;
pub mod render;
pub mod session;
pub mod state;
pub(crate) mod tool;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::registry::CallContext;
use crate::result::ToolResult;

use crate::trust::WorkspaceTrust;
use adapters::{AdapterId, BinarySearch, ADAPTERS};
use session::{ProbeCache, Session, SessionTarget};
use state::BreakpointStore;
use tool::{required, DebugArguments};

pub use tool::{descriptor, TOOL_NAME};

/// Timeouts and caps of the debug tool (a section of [`crate::RunConfig`]).
#[derive(Debug, Clone)]
pub struct DebugConfig {
    /// Hard lifetime of a session from launch/attach (R-DBG-3). Default 30 min. At expiry the
    /// session is terminated (adapter and debuggee killed) and the next call says so.
    pub session_ttl: Duration,
    /// Wait for the `initialize` response. Default 15 s.
    pub initialize_timeout: Duration,
    /// Wait for the whole launch/attach handshake (initialized → configuration →
    /// configurationDone → launch response). Default 30 s.
    pub launch_timeout: Duration,
    /// Same for adapters that build the program first (delve on a `.go` file or package).
    /// Default 120 s.
    pub build_launch_timeout: Duration,
    /// Wait for an ordinary request (stack, scopes, variables, evaluate, setBreakpoints, …).
    /// Default 15 s.
    pub request_timeout: Duration,
    /// How long continue/step (and launch, for the first stop) wait for the next `stopped`,
    /// `exited` or `terminated` event before answering "still running". Default 30 s; also
    /// bounded by the call's own deadline.
    pub resume_timeout: Duration,
    /// Wait for the `disconnect` response and for the adapter to exit before its process group
    /// is killed. Default 3 s.
    pub disconnect_timeout: Duration,
    /// Capacity of the debuggee output ring in bytes. Default 64 KiB.
    pub output_ring_bytes: usize,
    /// Time allowed for checking that a python imports debugpy. Default 10 s.
    pub probe_timeout: Duration,
    /// Directories searched for adapter binaries (`dart`, `dlv`, `lldb-dap*`, `python3`) before
    /// `PATH`. Default empty.
    pub extra_binary_dirs: Vec<PathBuf>,
}

impl Default for DebugConfig {
    fn default() -> Self {
        DebugConfig {
            session_ttl: Duration::from_secs(30 * 60),
            initialize_timeout: Duration::from_secs(15),
            launch_timeout: Duration::from_secs(30),
            build_launch_timeout: Duration::from_secs(120),
            request_timeout: Duration::from_secs(15),
            resume_timeout: Duration::from_secs(30),
            disconnect_timeout: Duration::from_secs(3),
            output_ring_bytes: 64 * 1024,
            probe_timeout: Duration::from_secs(10),
            extra_binary_dirs: Vec::new(),
        }
    }
}

/// The run's debug resource: desired breakpoints plus at most one live session
/// (R-DBG-1, R-DBG-3). Wire it with [`crate::RunBuilder::debug_supervisor`]. Dropping it
/// terminates the session (adapter and debuggee killed, threads joined).
pub struct DebugSupervisor {
    inner: Mutex<SupervisorState>,
    /// The run's `debug` section, handed over when the run is built.
    config: DebugConfig,
}

impl std::fmt::Debug for DebugSupervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebugSupervisor").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct SupervisorState {
    session: Option<Session>,
    breakpoints: BreakpointStore,
    /// How the previous session ended, told once to the next call.
    ended_notice: Option<String>,
    /// The output of the last ended session (so `output` still works after the program exits).
    last_output: Option<String>,
    session_counter: u64,
    probe_cache: ProbeCache,
}

impl Default for DebugSupervisor {
    fn default() -> Self {
        DebugSupervisor::new()
    }
}

impl DebugSupervisor {
    /// A supervisor with no session and no breakpoints, configured with
    /// [`DebugConfig::default`] until the run that wires it hands over its own `debug` section
    /// ([`crate::RunConfig::debug`]).
    pub fn new() -> DebugSupervisor {
        DebugSupervisor { inner: Mutex::new(SupervisorState::default()), config: DebugConfig::default() }
    }

    /// The supervisor with `config` (the run's `debug` section), as the run builder wires it.
    pub(crate) fn with_config(mut self, config: DebugConfig) -> DebugSupervisor {
        self.config = config;
        self
    }

    /// The timeouts and caps this supervisor runs with.
    pub fn config(&self) -> &DebugConfig {
        &self.config
    }

    /// The `status` op's text: the session (where it is stopped, its TTL) and the stored
    /// breakpoints; for `runbound status`. Like every accessor here it waits for a running
    /// `debug` call to return (calls are serialized).
    pub fn session_status(&self, workspace_root: &Path) -> String {
        status_text(&self.inner.lock(), workspace_root)
    }

    /// Whether a session is live (not ended, not expired).
    pub fn has_live_session(&self) -> bool {
        self.inner.lock().session.as_ref().is_some_and(|session| !session.is_finished())
    }

    /// Process ids of the live session's adapter (the process-group leader), if any. For
    /// hosts' status pages and tests.
    pub fn adapter_pid(&self) -> Option<u32> {
        self.inner.lock().session.as_ref().and_then(Session::adapter_pid)
    }

    /// Pids of the live session's adapter and of the debuggee processes seen under it (for
    /// status pages and leak checks).
    pub fn process_ids(&self) -> Vec<u32> {
        self.inner.lock().session.as_ref().map(Session::process_ids).unwrap_or_default()
    }

    /// Terminates the live session, if any (disconnect → wait → kill the adapter's group).
    /// Returns what was done, for logs. Called on run drop.
    pub fn shutdown(&self) -> Option<String> {
        let session = self.inner.lock().session.take()?;
        Some(session.terminate("the run ended"))
    }

    /// Runs one op of the `debug` tool.
    pub(crate) fn call(&self, ctx: &CallContext<'_>, arguments: &DebugArguments) -> Result<ToolResult, ToolError> {
        let config = &self.config;
        let workspace_root = ctx.workspace_root();
        let op = arguments.op.as_str();
        let mut guard = self.inner.lock();
        let state = &mut *guard;
        // A session that ended on its own (TTL, adapter crash, program exit + terminated) is
        // retired here; its end is reported once.
        if let Some(session) = &state.session {
            if let Some(reason) = session.finished_reason() {
                let session = state.session.take().expect("checked above");
                state.last_output = Some(session.output_text());
                let teardown = session.terminate(&reason);
                let ended = format!("{reason}; {teardown}");
                crate::events::emit(crate::events::RunEvent::new(
                    crate::events::EventLevel::Info,
                    "debug",
                    format!("the debug session ended: {ended}"),
                ));
                state.ended_notice = Some(ended);
            }
        }
        // Taken only once reported: an input error returned early keeps it for the next call.
        let notice = state.ended_notice.clone();
        let outcome = match op {
            "adapters" => {
                Ok(ToolResult::text(adapters_report_cached(workspace_root, config, ctx.workspace_trust(), &mut state.probe_cache).0))
            }
            "status" => Ok(ToolResult::text(status_text(state, workspace_root))),
            "breakpoints" => {
                let file = required(&arguments.file, "file", op)?;
                let mut lines = required(&arguments.lines, "lines", op)?;
                lines.sort_unstable();
                lines.dedup();
                let path = resolve_workspace_path(workspace_root, &file)?;
                if !path.is_file() {
                    return Err(ToolError::new(ErrorKind::NotFound, format!("breakpoints: no file {}", path.display()))
                        .with_hint("pass a source file of the workspace, relative to its root"));
                }
                state.breakpoints.set(path.clone(), lines.clone());
                match &state.session {
                    Some(session) => session.set_breakpoints(ctx, &path, &lines),
                    None => Ok(ToolResult::text(format!(
                        "{} breakpoint(s) stored for {} (lines {}); they are sent when you launch",
                        lines.len(),
                        crate::render::display_path(workspace_root, &path),
                        join_numbers(&lines)
                    ))),
                }
            }
            "launch" | "attach" => {
                if let Some(session) = &state.session {
                    return Err(ToolError::new(
                        ErrorKind::Conflict,
                        format!("a debug session is already running in this conversation: {}; a second {op} is refused (one session per conversation)", session.describe()),
                    )
                    .with_hint("call debug op \"terminate\" first, then launch again"));
                }
                state.session_counter += 1;
                let number = state.session_counter;
                let target = if op == "launch" {
                    let program = required(&arguments.program, "program", op)?;
                    let program = resolve_workspace_path(workspace_root, &program)?;
                    if !program.exists() {
                        return Err(ToolError::new(ErrorKind::NotFound, format!("launch: no program {}", program.display()))
                            .with_hint("pass a script, package directory or built executable inside the workspace"));
                    }
                    let adapter = match &arguments.adapter {
                        Some(name) => parse_adapter(name)?,
                        None => adapters::adapter_for_program(&program),
                    };
                    SessionTarget::Launch { adapter, program, args: arguments.args.clone().unwrap_or_default() }
                } else {
                    let port = required(&arguments.port, "port", op)?;
                    let adapter = match &arguments.adapter {
                        Some(name) => parse_adapter(name)?,
                        None => AdapterId::Debugpy,
                    };
                    SessionTarget::Attach { adapter, port }
                };
                let (session, result) = Session::start(ctx, config, number, target, &state.breakpoints, &mut state.probe_cache)?;
                state.session = Some(session);
                Ok(result)
            }
            "terminate" => match state.session.take() {
                Some(session) => {
                    let description = session.describe();
                    state.last_output = Some(session.output_text());
                    let teardown = session.terminate("terminated by the terminate op");
                    Ok(ToolResult::text(format!("terminated {description}: {teardown}")))
                }
                None => Ok(ToolResult::text("no debug session is running; nothing to terminate")),
            },
            "output" => match (&state.session, &state.last_output) {
                (Some(session), _) => Ok(ToolResult::text(session.output_text())),
                (None, Some(last)) => Ok(ToolResult::text(format!("(no session is running; output of the last session)\n{last}"))),
                (None, None) => Err(no_session(op)),
            },
            _ => match &state.session {
                Some(session) => session.call(ctx, config, op, arguments),
                None => Err(no_session(op)),
            },
        };
        // A session that ended during this op (program exited, adapter died, TTL) is retired
        // now, so no adapter lingers until the next call.
        state.ended_notice = None;
        let mut ended = None;
        if let Some(reason) = state.session.as_ref().and_then(Session::finished_reason) {
            let session = state.session.take().expect("checked above");
            state.last_output = Some(session.output_text());
            let teardown = session.terminate(&reason);
            ended = Some(format!("session ended: {reason}; {teardown}"));
        }
        let mut result = match outcome {
            Ok(result) => result,
            Err(mut err) => {
                if let Some(ended) = ended {
                    err.message.push_str(&format!("; {ended}"));
                }
                if let Some(notice) = notice {
                    err.message.push_str(&format!(" (note: the previous debug session ended: {notice})"));
                }
                return Err(err);
            }
        };
        if let Some(ended) = ended {
            result.push_text(ended);
        }
        if let Some(notice) = notice {
            let text = format!("note: the previous debug session ended: {notice}");
            result.content.insert(0, crate::result::Content::Text { text });
        }
        Ok(result)
    }
}

impl crate::registry::Resource for DebugSupervisor {
    const NAME: &'static str = "debug supervisor";
    const WIRED_BY: &'static str = "RunBuilder::debug_supervisor(DebugSupervisor::new())";
}

impl Drop for DebugSupervisor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// How deep [`adapters_report`] looks for root markers below the workspace root (directory
/// levels; gitignored and hidden directories skipped).
const MARKER_SCAN_DEPTH: usize = 4;

/// Which adapters can serve in `workspace_root`, for `runbound status` and the `adapters` op:
/// one line per adapter, `available` with what was found, or `unavailable` with the missing
/// half (root marker, binary, or debugpy import). Probes pythons (bounded by
/// `config.probe_timeout` each).
/// A trusted run's report; [`adapters_report_with_trust`] for a restricted one (which never
/// probes the project's venv python).
pub fn adapters_report(workspace_root: &Path, config: &DebugConfig) -> String {
    adapters_report_with_trust(workspace_root, config, WorkspaceTrust::Trusted).0
}

/// [`adapters_report`] as JSON: `[{adapter, available, markers[], binary, reason}]`.
pub fn adapters_report_json(workspace_root: &Path, config: &DebugConfig) -> Value {
    adapters_report_with_trust(workspace_root, config, WorkspaceTrust::Trusted).1
}

/// The report as text and as JSON for a run of `trust`: restricted, no adapter binary or
/// adapter python inside the workspace is resolved or probed
/// ([`adapters::BinarySearch::restricted_to`]).
pub fn adapters_report_with_trust(workspace_root: &Path, config: &DebugConfig, trust: WorkspaceTrust) -> (String, Value) {
    adapters_report_cached(workspace_root, config, trust, &mut HashMap::new())
}

fn adapters_report_cached(workspace_root: &Path, config: &DebugConfig, trust: WorkspaceTrust, cache: &mut ProbeCache) -> (String, Value) {
    let search = BinarySearch::from_env(&config.extra_binary_dirs).restricted_to(trust, workspace_root);
    let mut text = String::from("debug adapters (available = root marker found AND adapter binary resolves):\n");
    let mut rows = Vec::new();
    for spec in &ADAPTERS {
        let markers = adapters::find_markers_in_workspace(spec.id, workspace_root, MARKER_SCAN_DEPTH, 5);
        let marker_root = markers.first().and_then(|m| m.parent()).unwrap_or(workspace_root).to_path_buf();
        let binary = session::resolve_adapter_binary(spec.id, &marker_root, &search, config, cache);
        let marker_text = if markers.is_empty() {
            format!(
                "no root marker ({}) within {MARKER_SCAN_DEPTH} directory levels of the workspace root (launch also looks upward \
                 from the program's own directory, so a program inside a deeper project still works)",
                spec.root_markers.join(", ")
            )
        } else {
            let shown: Vec<String> = markers.iter().map(|m| crate::render::display_path(workspace_root, m)).collect();
            format!("marker {}", shown.join(", "))
        };
        let (available, binary_text) = match &binary {
            Ok(found) => (!markers.is_empty(), found.summary.clone()),
            Err(missing) => (false, missing.clone()),
        };
        let extra = if spec.id == AdapterId::Lldb && markers.is_empty() && binary.is_ok() {
            "; a compiled executable with its C/C++/Rust source beside it also works"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "- {}: {} — {}; {}{}",
            spec.name,
            if available { "available" } else { "unavailable" },
            marker_text,
            binary_text,
            extra
        );
        rows.push(json!({
            "adapter": spec.name,
            "available": available,
            "markers": markers.iter().map(|m| m.display().to_string()).collect::<Vec<_>>(),
            "binary": binary.as_ref().ok().map(|b| b.summary.clone()),
            "reason": binary.as_ref().err().cloned().or(if markers.is_empty() { Some(marker_text.clone()) } else { None }),
        }));
    }
    (text.trim_end().to_owned(), Value::Array(rows))
}

fn status_text(state: &SupervisorState, workspace_root: &Path) -> String {
    let mut text = match &state.session {
        Some(session) => session.status_text(),
        None => "no debug session is running".to_owned(),
    };
    if state.breakpoints.count() > 0 {
        let _ = write!(text, "\nbreakpoints:");
        for (file, lines) in state.breakpoints.files() {
            if lines.is_empty() {
                continue;
            }
            let _ = write!(text, "\n  {}: lines {}", crate::render::display_path(workspace_root, file), join_numbers(lines));
        }
    } else {
        text.push_str("\nno breakpoints set");
    }
    text
}

fn no_session(op: &str) -> ToolError {
    ToolError::new(ErrorKind::Unavailable, format!("debug op {op} needs a running session and none is running"))
        .with_hint("set breakpoints, then call debug op \"launch\" with a program (or \"attach\" with a port)")
}

fn parse_adapter(name: &str) -> Result<AdapterId, ToolError> {
    ADAPTERS
        .iter()
        .find(|spec| spec.name == name)
        .map(|spec| spec.id)
        .ok_or_else(|| ToolError::invalid(format!("unknown adapter {name:?}")).with_hint("use one of: debugpy, lldb, delve, dart"))
}

/// Resolves `path` inside the workspace with the crate's one confinement rule
/// ([`crate::files::resolve_in_workspace`]: `..`, outside absolute paths, symlinks and dangling
/// symlinks leading out, NUL bytes are all refused).
fn resolve_workspace_path(workspace_root: &Path, path: &str) -> Result<PathBuf, ToolError> {
    crate::files::resolve_in_workspace(workspace_root, path).map_err(|err| {
        if err.hint.is_none() {
            err.with_hint("debug programs and files inside the workspace")
        } else {
            err
        }
    })
}

fn join_numbers(numbers: &[u64]) -> String {
    if numbers.is_empty() {
        return "none (cleared)".to_owned();
    }
    numbers.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// Registers the `debug` tool; called by [`crate::RunBuilder::build`] when a supervisor is wired.
pub(crate) fn register_tools(registry: &mut crate::registry::Registry) {
    tool::register_tools(registry);
}
