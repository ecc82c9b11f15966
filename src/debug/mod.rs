//! The debugger over DAP: the `debug` tool (tier exec, not parallel-safe), its session
//! supervisor, and the adapters debugpy, lldb-dap, delve and dart (docs/contract.md, `debug`: R-DBG-1..4).
//!
//! Shape: a [`DebugSupervisor`] is the run's resource. It holds the desired breakpoints and at
//! most one `session` per conversation (R-DBG-3). A session owns the adapter process (its own
//! process group, stderr drained), a [`crate::transport::RpcConnection`] (named reader and
//! writer threads; the reader routes responses by `request_seq`), one named event thread that
//! records every event into the session state itself (`events`; so an `initialized` or
//! `stopped` event is never lost to whoever happens to wait), and a TTL watchdog thread.
//!
//! Layers, each knowing only the ones below it:
//! - `adapters`: the adapter table as data, root markers, binary resolution and probing,
//!   launch-argument builders;
//! - `program`: what a launch is (a test by name, a module, a script, package or
//!   executable), so which adapter and why, and the builds it needs;
//! - `connect`: spawning an adapter or connecting to a port;
//! - `events` and `state`: what the session records (stop generation, handles, output,
//!   breakpoints);
//! - `session`: the handshake and the ops, typed in and typed out (`dap_types` bodies);
//! - [`DebugSupervisor`]: the run's resource (one session, stored breakpoints);
//! - `tool` (private) parses the `debug` arguments into an op enum and `render` turns every
//!   typed result into text.
//!
//! Architecture invariants:
//! - `dap_types` is used for argument and body payloads only; the envelope is
//!   `crate::transport::DapMessage`. Neither leaks out of this module: results are text plus
//!   our own JSON.
//! - No adapter or debuggee outlives its session: `terminate`, the TTL and run drop all do
//!   `disconnect {terminateDebuggee}` → bounded wait → kill the adapter's process group.
//! - Frame ids and variable references given to the model are generation-stamped handles
//!   (`state::HandleTable`); a stale one is refused locally, never sent.

pub(crate) mod adapters;
mod connect;
pub(crate) mod events;
mod output;
pub(crate) mod program;
pub(crate) mod render;
pub(crate) mod session;
pub(crate) mod state;
pub(crate) mod tool;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::trust::WorkspaceTrust;

use adapters::{AdapterAvailability, ProbeCache};
use program::LaunchRequest;
use session::{LaunchReport, OutputSnapshot, Session, SessionEnd, SessionStart, SessionSummary, SessionTarget, TeardownReport};
use state::{BreakpointSpec, BreakpointStore, FunctionBreakpointSpec};

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
    /// Same for adapters that build the program first (delve on a `.go` file, a package or a
    /// test). Default 120 s; also bounded by the call's own deadline. (Cargo builds for Rust
    /// tests and bin targets run before the handshake, bounded by the call's deadline.)
    pub build_launch_timeout: Duration,
    /// Wait for an ordinary request (stack, scopes, variables, evaluate, setBreakpoints, …).
    /// Default 15 s.
    pub request_timeout: Duration,
    /// The longest continue / step_* / pause wait for the next `stopped`, `exited` or
    /// `terminated` event before answering "still running". Default 10 min: the call's own
    /// budget (the tool's default 120 s, less 2 s to answer) normally ends the wait first, so
    /// an agent never polls.
    pub resume_timeout: Duration,
    /// How long `launch` / `attach` wait for the first stop after the handshake before
    /// answering "running" (also capped by `resume_timeout` and the call's budget). Default 30 s.
    pub first_stop_timeout: Duration,
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
            resume_timeout: Duration::from_secs(10 * 60),
            first_stop_timeout: Duration::from_secs(30),
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
    /// The output of the last ended session (so `output` still works after the program exits).
    last_output: Option<OutputSnapshot>,
    session_counter: u64,
    probe_cache: ProbeCache,
}

impl SupervisorState {
    /// Takes a finished session out (its output kept) and tears it down.
    fn retire_finished(&mut self) -> Option<RetiredSession> {
        let end = self.session.as_ref().and_then(Session::finished)?;
        let session = self.session.take()?;
        let unreported_output = session.take_new_output();
        self.last_output = Some(session.output());
        let reason = render::session_end(&end);
        let teardown = session.terminate(&reason);
        // A host's event sink hears of it when it happens, not only the next `debug` call.
        crate::events::emit(crate::events::RunEvent::new(
            crate::events::EventLevel::Info,
            "debug",
            format!("the debug session ended: {reason}; {}", render::teardown(&teardown)),
        ));
        Some(RetiredSession { end, teardown, unreported_output })
    }
}

/// What a `launch` / `attach` starts.
#[derive(Debug, Clone)]
pub(crate) enum LaunchTarget {
    /// A program, module or test, planned by `program::plan_launch`.
    Request(Box<LaunchRequest>),
    /// A program listening on a loopback port.
    Attach {
        /// The adapter.
        adapter: adapters::AdapterId,
        /// The port on 127.0.0.1.
        port: u16,
    },
}

impl Default for DebugSupervisor {
    fn default() -> Self {
        DebugSupervisor::new()
    }
}

/// How a session that ended on its own was retired (TTL, adapter crash, program exit).
#[derive(Debug, Clone)]
pub(crate) struct RetiredSession {
    /// Why it ended.
    pub end: SessionEnd,
    /// What teardown did.
    pub teardown: TeardownReport,
    /// The program's output that had not been reported yet (rendered with stream labels).
    pub unreported_output: String,
}

/// One serialized call on the supervisor (calls are serialized by its lock). A session that
/// ended on its own before the call is retired when the call begins ([`SupervisorCall::previous`]),
/// one that ends during the call when it finishes ([`SupervisorCall::finish`]).
pub(crate) struct SupervisorCall<'a> {
    state: MutexGuard<'a, SupervisorState>,
    previous: Option<RetiredSession>,
    config: &'a DebugConfig,
    /// Restricted: no adapter binary or adapter python from inside the workspace.
    workspace_trust: WorkspaceTrust,
}

impl SupervisorCall<'_> {
    /// The session that ended before this call, if one did (to be told once).
    pub fn previous(&self) -> Option<&RetiredSession> {
        self.previous.as_ref()
    }

    /// The live session, if any.
    pub fn session(&self) -> Option<&Session> {
        self.state.session.as_ref()
    }

    /// The stored breakpoints.
    pub fn breakpoints(&self) -> &BreakpointStore {
        &self.state.breakpoints
    }

    /// Stores the breakpoints of `file` (an absolute, canonical path); `[]` clears it.
    pub fn store_breakpoints(&mut self, file: PathBuf, specs: Vec<BreakpointSpec>) {
        self.state.breakpoints.set(file, specs);
    }

    /// Stores the function breakpoints (`[]` clears).
    pub fn store_function_breakpoints(&mut self, functions: Vec<FunctionBreakpointSpec>) {
        self.state.breakpoints.set_functions(functions);
    }

    /// Stores the exception filters to enable (`[]`: none).
    pub fn store_exception_filters(&mut self, filters: Vec<String>) {
        self.state.breakpoints.set_exception_filters(filters);
    }

    /// Which adapters can serve in `workspace_root` (pythons probed once per interpreter;
    /// restricted, none from inside the workspace).
    pub fn availability(&mut self, workspace_root: &Path) -> Vec<AdapterAvailability> {
        adapters::adapter_availability(workspace_root, self.config, self.workspace_trust, &mut self.state.probe_cache)
    }

    /// Starts a session on `target` with the stored breakpoints, bounded by `deadline`.
    ///
    /// # Errors
    /// `conflict` while a session is live (one per conversation); the start's own errors
    /// (`Session::start`).
    pub fn launch(&mut self, target: LaunchTarget, workspace_root: &Path, deadline: Instant) -> Result<LaunchReport, ToolError> {
        let config = self.config;
        let op = if matches!(target, LaunchTarget::Request(_)) { "launch" } else { "attach" };
        if let Some(session) = &self.state.session {
            return Err(ToolError::new(
                ErrorKind::Conflict,
                format!(
                    "a debug session is already running in this conversation: {}; a second {op} is refused (one session per conversation)",
                    render::session_summary(&session.summary())
                ),
            )
            .with_hint("call debug op \"terminate\" first, then launch again"));
        }
        // Planning may build (cargo): only once no session is in the way.
        let target = match target {
            LaunchTarget::Request(request) => SessionTarget::Launch(Box::new(program::plan_launch(&request, workspace_root, deadline)?)),
            LaunchTarget::Attach { adapter, port } => SessionTarget::Attach { adapter, port },
        };
        self.state.session_counter += 1;
        let state = &mut *self.state;
        let start = SessionStart {
            number: state.session_counter,
            target,
            workspace_root,
            config,
            breakpoints: &state.breakpoints,
            deadline,
            workspace_trust: self.workspace_trust,
        };
        let (session, report) = Session::start(start, &mut state.probe_cache)?;
        state.session = Some(session);
        Ok(report)
    }

    /// Terminates the live session; its summary and what teardown did, or `None` when none ran.
    pub fn terminate(&mut self) -> Option<(SessionSummary, TeardownReport)> {
        let session = self.state.session.take()?;
        let summary = session.summary();
        self.state.last_output = Some(session.output());
        Some((summary, session.terminate("terminated by the terminate op")))
    }

    /// The output of the last session that ended, if any.
    pub fn last_output(&self) -> Option<&OutputSnapshot> {
        self.state.last_output.as_ref()
    }

    /// Ends the call: a session that ended during it (program exited, adapter died, TTL) is
    /// retired now, so no adapter lingers until the next call.
    pub fn finish(mut self) -> Option<RetiredSession> {
        self.state.retire_finished()
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

    /// Begins one call: waits for a running call to return (calls are serialized) and retires
    /// a session that ended on its own since.
    /// `workspace_trust` is the calling run's: restricted, the call resolves no adapter binary
    /// or adapter python inside the workspace.
    pub(crate) fn begin_call(&self, workspace_trust: WorkspaceTrust) -> SupervisorCall<'_> {
        let mut state = self.inner.lock();
        let previous = state.retire_finished();
        SupervisorCall { state, previous, config: &self.config, workspace_trust }
    }

    /// The `status` op's text: the session (where it is stopped, its TTL) and the stored
    /// breakpoints; for `runbound status`. Like every accessor here it waits for a running
    /// `debug` call to return (calls are serialized).
    pub fn session_status(&self, workspace_root: &Path) -> String {
        let state = self.inner.lock();
        render::supervisor_status(state.session.as_ref().map(Session::status).as_ref(), &state.breakpoints, workspace_root)
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
        Some(render::teardown(&session.terminate("the run ended")))
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

/// The report as text and as JSON for a run of `trust`: restricted, no adapter binary or
/// adapter python inside the workspace is resolved or probed
/// ([`adapters::BinarySearch::restricted_to`]).
pub(crate) fn adapters_report_with_trust(workspace_root: &Path, config: &DebugConfig, trust: WorkspaceTrust) -> (String, Value) {
    let rows = adapters::adapter_availability(workspace_root, config, trust, &mut HashMap::new());
    (render::adapters(&rows, workspace_root), adapters_json(&rows, workspace_root))
}

fn adapters_json(rows: &[AdapterAvailability], workspace_root: &Path) -> Value {
    Value::Array(
        rows.iter()
            .map(|row| {
                json!({
                    "adapter": row.adapter.name(),
                    "available": row.available(),
                    "markers": row.markers.iter().map(|m| m.display().to_string()).collect::<Vec<_>>(),
                    "binary": row.binary.as_ref().ok().map(|b| b.summary.clone()),
                    "reason": row.binary.as_ref().err().cloned()
                        .or_else(|| row.markers.is_empty().then(|| render::adapter_markers(row, workspace_root))),
                })
            })
            .collect(),
    )
}

/// Registers the `debug` tool; called by [`crate::RunBuilder::build`] when a supervisor is wired.
pub(crate) fn register_tools(registry: &mut crate::registry::Registry) {
    tool::register_tools(registry);
}
