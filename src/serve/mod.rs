//! `serve`: one run per process, hosted as an MCP server over stdio.
//!
//! Wire: newline-delimited JSON-RPC 2.0 (one compact JSON message per line, UTF-8) with MCP's
//! method names and shapes, protocol version [`PROTOCOL_VERSION`] (`2025-06-18`); a client that
//! offers one of the older [`SUPPORTED_PROTOCOL_VERSIONS`] gets that version back, any other
//! offer gets `2025-06-18` (the client then decides whether it can speak it). Input is held to
//! JSON-RPC 2.0 and MCP's id rules (see `jsonrpc`): ids are strings or integers of any size
//! and are echoed exactly; every request gets exactly one response, notifications and responses
//! none.
//!
//! Methods served:
//! - `initialize`: builds the run. A host whose capabilities include `elicitation` gets the ask
//!   port attached (target space `mcp:<clientInfo.name>`), so `ask_user` is registered and
//!   permission prompts reach a human; without it there is no human, `ask_user` is absent and
//!   approval prompts are denied (fail-closed, R-ASK-4).
//! - `notifications/initialized`, `ping`, `tools/list` (the tools visible to the session's
//!   caller, R-TIER-2), `tools/call` (the result is the run's [`crate::ToolResult`] JSON: MCP
//!   `CallToolResult`; a call whose `params._meta.progressToken` is set gets
//!   `notifications/progress` while it runs — at most four a second, `progress` increasing,
//!   none after its response), `notifications/cancelled` (cancels the in-flight call through its
//!   [`CancelToken`]; per MCP no response is sent for a cancelled request, but when the call had
//!   already written files — its commit was under way — the host gets a `notifications/message`
//!   at level `warning` naming the request, the tool and the paths written, so the change does
//!   not go unsaid), `logging/setLevel`.
//! - Logging (capability `logging`): the run's events ([`crate::events`]: a language server
//!   that crashed, restarted or backs off, a kernel that died, a tool that panicked, a call
//!   denied because no human could be asked, …) arrive as `notifications/message`
//!   (`level`, `logger` = `runbound/<source>`, `data` = `{"message": …, …}`) when at or above
//!   the level the host set; the default is `warning`.
//! - Anything else: `-32601` for requests, ignored for notifications. Requests other than
//!   `initialize`, `ping` and `logging/setLevel` before `initialize` get `-32600`.
//!
//! Cards and permission prompts are sent to the host as `elicitation/create` requests (see
//! `elicitation`).
//!
//! Threads: the caller's thread reads and routes messages; one named writer thread owns the
//! output; each `tools/call` runs on its own named worker thread, so a tool blocked on a card
//! never blocks the reader (which must stay free to receive the elicitation response). When the
//! input ends, every in-flight call is cancelled (a call that still returns within
//! [`ServeConfig::shutdown_grace`] gets its response: the host closed its input, not the call),
//! pending cards are withdrawn, workers are joined within the grace, the run is dropped (its
//! resources stopped), and the writer is drained and joined. The library never prints: the
//! output carries protocol only.

pub(crate) mod elicitation;
pub(crate) mod jsonrpc;

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::events::{EventLevel, RunEvent};
use crate::progress::ProgressUpdate;
use crate::registry::{CallOptions, CancelToken};
use crate::run::{Run, RunBuilder, RunError};
use crate::tier::Caller;
use crate::transport::framing::{read_json_line_bytes, FramingError};

pub(crate) use jsonrpc::{RequestId, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};

use elicitation::{ElicitationAskPort, CALL_CANCEL_TOKEN};
use jsonrpc::{error_line, parse_message, progress_line, result_line, value_line, Incoming};

/// The MCP protocol revision this host implements.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Revisions a client may request and get back unchanged, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// Method of the notification sent to the host when a background worker (vibe) finishes,
/// fails or is lost: params are `WorkerEvent::to_json()` (`worker_id`, `label`, `tier`,
/// `attempt`, `status`, `elapsed_ms`, `result_excerpt`, `message`).
pub const WORKER_EVENT_NOTIFICATION: &str = "notifications/runbound/worker";

/// The log level a session starts with: `warning` (MCP leaves the default to the server).
pub const DEFAULT_LOG_LEVEL: EventLevel = EventLevel::Warning;

/// Settings of one serve session.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Who the host's model is; decides which tools `tools/list` shows and `tools/call` accepts.
    pub caller: Caller,
    /// Longest accepted input line, in bytes (default 32 MiB). A longer line is answered with
    /// a `-32700` error and skipped; the session continues.
    pub max_message_bytes: usize,
    /// How long to wait for in-flight calls after the input ends (default 10 s). Calls still
    /// running then are listed in [`ServeSummary::calls_still_running`].
    pub shutdown_grace: Duration,
}

impl ServeConfig {
    /// Defaults for `caller`: 32 MiB lines, 10 s shutdown grace.
    pub fn new(caller: Caller) -> ServeConfig {
        ServeConfig { caller, max_message_bytes: 32 * 1024 * 1024, shutdown_grace: Duration::from_secs(10) }
    }
}

/// What a finished session did; returned when the host closes the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeSummary {
    /// `clientInfo.name` from `initialize`, when the host sent one.
    pub client_name: Option<String>,
    /// Whether the host declared the `elicitation` capability (the ask port was attached).
    pub elicitation: bool,
    /// Requests received (messages with a `method` and a valid `id`), notifications excluded.
    pub requests_received: u64,
    /// `tools/call` requests started.
    pub tool_calls: u64,
    /// Lines refused as not JSON, not JSON-RPC 2.0, or with an id MCP does not allow.
    pub invalid_messages: u64,
    /// Calls that had not returned `shutdown_grace` after the input ended, as
    /// `"<tool> (request <id>)"`. Their threads were left to finish on their own.
    pub calls_still_running: Vec<String>,
}

/// Why a session ended abnormally.
#[derive(Debug)]
pub enum ServeError {
    /// Reading the input or writing the output failed (the host is gone).
    Io(io::Error),
    /// The input broke in a way that cannot be skipped (e.g. EOF inside a message).
    Framing(FramingError),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Io(err) => write!(f, "serve: the stdio connection failed: {err}"),
            ServeError::Framing(err) => write!(f, "serve: the input stream broke: {err}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Serves one run over this process's stdin and stdout until stdin ends.
///
/// `builder` is built when `initialize` arrives (the ask port depends on the host's
/// capabilities). Stdout carries protocol only.
///
/// # Errors
/// See [`serve`].
pub fn serve_stdio(builder: RunBuilder, config: &ServeConfig) -> Result<ServeSummary, ServeError> {
    let stdin = io::stdin();
    let mut reader = stdin.lock();
    serve(&mut reader, Box::new(io::stdout()), builder, config)
}

/// Serves one run over `reader` / `writer` until `reader` ends; see the module documentation
/// for the protocol. Returns after every worker has finished (or `shutdown_grace` passed), the
/// run has been dropped and the writer drained.
///
/// # Errors
/// [`ServeError::Io`] when the output cannot be written or the input cannot be read;
/// [`ServeError::Framing`] when the input ends inside a message. Malformed or over-long lines
/// are not errors: they are answered with `-32700` / `-32600` and skipped.
pub fn serve(
    reader: &mut dyn BufRead,
    writer: Box<dyn Write + Send>,
    builder: RunBuilder,
    config: &ServeConfig,
) -> Result<ServeSummary, ServeError> {
    let (outgoing_tx, outgoing_rx) = crossbeam_channel::unbounded::<Outgoing>();
    let write_failure: Arc<Mutex<Option<io::Error>>> = Arc::new(Mutex::new(None));
    let writer_thread = {
        let write_failure = Arc::clone(&write_failure);
        let mut writer = writer;
        std::thread::Builder::new()
            .name("runbound-serve-writer".to_owned())
            .spawn(move || write_loop(&mut *writer, &outgoing_rx, &write_failure))
            .map_err(ServeError::Io)?
    };
    let outcome = run_session(reader, outgoing_tx, RunSource::Builder(Box::new(builder)), config, &write_failure);
    let _ = writer_thread.join();
    finish_session(outcome, &write_failure)
}

/// One `serve` session whose output is collected in memory, with `run` handed to `initialize`
/// instead of a run built there: the entry point of the `serve_jsonrpc_input` fuzz target (see
/// `crate::fuzzing`), which builds the run once per process and hosts thousands of sessions a
/// second.
///
/// Everything between the input bytes and the output lines is `serve`'s own code: the JSON-lines
/// reader, the JSON-RPC parse, the routing and every method handler (`tools/call` on its own
/// worker thread, cancelled and joined at the end of the input), and the writer loop, which here
/// runs on the caller's thread after the session ends instead of on a thread of its own (the
/// output channel is unbounded, so nothing waits on it). What differs from `serve` at
/// `initialize`: no ask port is attached (the host's `elicitation` capability is ignored) and
/// the run's events and worker notifications are not forwarded as log messages, since the run
/// outlives the session.
///
/// Returns the session summary and the output bytes (one JSON-RPC message per `\n`-terminated
/// line, as `serve` writes them).
///
/// # Errors
/// As [`serve`] ([`ServeError::Framing`] when the input ends inside a message; writing to memory
/// does not fail).
pub(crate) fn serve_in_memory_with_run(
    reader: &mut dyn BufRead,
    run: Arc<Run>,
    config: &ServeConfig,
) -> Result<(ServeSummary, Vec<u8>), ServeError> {
    let (outgoing_tx, outgoing_rx) = crossbeam_channel::unbounded::<Outgoing>();
    let write_failure: Arc<Mutex<Option<io::Error>>> = Arc::new(Mutex::new(None));
    let outcome = run_session(reader, outgoing_tx, RunSource::Prebuilt(run), config, &write_failure);
    let mut output = Vec::new();
    write_loop(&mut output, &outgoing_rx, &write_failure);
    finish_session(outcome, &write_failure).map(|summary| (summary, output))
}

/// Reads and routes until the input ends, shuts the session down and sends `Stop` to the
/// writer. The writer (on its thread, or drained by the caller afterwards) writes until `Stop`.
fn run_session(
    reader: &mut dyn BufRead,
    outgoing: Sender<Outgoing>,
    run_source: RunSource,
    config: &ServeConfig,
    write_failure: &Arc<Mutex<Option<io::Error>>>,
) -> (Result<(), ServeError>, ServeSummary) {
    let shared = Arc::new(Shared {
        outgoing,
        pending_elicitations: Mutex::new(HashMap::new()),
        next_server_request_id: AtomicU64::new(1),
        closed: AtomicBool::new(false),
        log_level: AtomicUsize::new(level_index(DEFAULT_LOG_LEVEL)),
    });
    let mut session = Session {
        config: config.clone(),
        shared: Arc::clone(&shared),
        state: SessionState::AwaitingInitialize(Some(run_source)),
        in_flight: HashMap::new(),
        summary: ServeSummary {
            client_name: None,
            elicitation: false,
            requests_received: 0,
            tool_calls: 0,
            invalid_messages: 0,
            calls_still_running: Vec::new(),
        },
        write_failure: Arc::clone(write_failure),
    };
    let read_outcome = session.read_loop(reader);
    let summary = session.shut_down();
    let _ = shared.outgoing.send(Outgoing::Stop);
    (read_outcome, summary)
}

/// The session's result once the writer has finished: a write failure first, then a read
/// failure, else the summary.
fn finish_session(
    (read_outcome, summary): (Result<(), ServeError>, ServeSummary),
    write_failure: &Mutex<Option<io::Error>>,
) -> Result<ServeSummary, ServeError> {
    if let Some(err) = write_failure.lock().take() {
        return Err(ServeError::Io(err));
    }
    read_outcome?;
    Ok(summary)
}

enum Outgoing {
    /// One message, serialized, without the newline.
    Line(String),
    Stop,
}

fn level_index(level: EventLevel) -> usize {
    EventLevel::ALL.iter().position(|candidate| *candidate == level).unwrap_or(3)
}

/// State shared by the reader, the workers, the ask port and the run's event callback.
pub(crate) struct Shared {
    outgoing: Sender<Outgoing>,
    /// Server→host requests awaiting a response, by id.
    pub(crate) pending_elicitations: Mutex<HashMap<RequestId, Sender<Result<Value, Value>>>>,
    pub(crate) next_server_request_id: AtomicU64,
    /// Set when the input ended: no new cards are sent.
    pub(crate) closed: AtomicBool,
    /// Index in [`EventLevel::ALL`] of the least severe level sent as a log message.
    log_level: AtomicUsize,
}

impl Shared {
    fn send_line(&self, line: String) {
        let _ = self.outgoing.send(Outgoing::Line(line));
    }

    /// Sends a message that carries no host-chosen id (ids of our own, notifications).
    pub(crate) fn send_value(&self, message: &Value) {
        self.send_line(value_line(message));
    }

    /// Sends `event` as a `notifications/message` when its level is at or above the host's.
    fn log(&self, event: &RunEvent) {
        if level_index(event.level) < self.log_level.load(Ordering::SeqCst) {
            return;
        }
        let mut data = serde_json::Map::new();
        data.insert("message".to_owned(), Value::String(event.message.clone()));
        match &event.data {
            Value::Object(fields) => data.extend(fields.iter().map(|(key, value)| (key.clone(), value.clone()))),
            Value::Null => (),
            other => {
                data.insert("details".to_owned(), other.clone());
            }
        }
        self.send_value(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": event.level, "logger": format!("runbound/{}", event.source), "data": data},
        }));
    }
}

/// Where `initialize` gets the session's run from.
enum RunSource {
    /// Built at `initialize` (the ask port and the callbacks depend on the host's capabilities).
    Builder(Box<RunBuilder>),
    /// Built by the caller once and shared by many sessions ([`serve_in_memory_with_run`], the
    /// fuzz target's entry point): no ask port is attached and no callback is added.
    Prebuilt(Arc<Run>),
}

enum SessionState {
    AwaitingInitialize(Option<RunSource>),
    Ready(Arc<Run>),
    Failed(String),
}

struct InFlightCall {
    tool: String,
    cancel: CancelToken,
    /// Set when the host cancelled the call (no response then), not the session's end.
    host_cancelled: Arc<AtomicBool>,
    thread: JoinHandle<()>,
    /// Disconnects when the worker's closure has returned (or unwound): shutdown waits on it
    /// instead of polling `thread.is_finished()`.
    finished: Receiver<()>,
}

struct Session {
    config: ServeConfig,
    shared: Arc<Shared>,
    state: SessionState,
    /// Running `tools/call` workers by request id.
    in_flight: HashMap<RequestId, InFlightCall>,
    summary: ServeSummary,
    write_failure: Arc<Mutex<Option<io::Error>>>,
}

impl Session {
    fn read_loop(&mut self, reader: &mut dyn BufRead) -> Result<(), ServeError> {
        loop {
            if self.write_failure.lock().is_some() {
                return Ok(());
            }
            let line = match read_json_line_bytes(reader, self.config.max_message_bytes) {
                Ok(Some(line)) => line,
                Ok(None) => return Ok(()),
                Err(err) if err.is_recoverable() => {
                    self.summary.invalid_messages += 1;
                    self.respond_error(None, PARSE_ERROR, &format!("message skipped: {err}"));
                    continue;
                }
                Err(err) => return Err(ServeError::Framing(err)),
            };
            self.reap_finished_calls();
            self.route(parse_message(&line));
        }
    }

    fn route(&mut self, message: Incoming) {
        match message {
            Incoming::Request { id, method, params, progress_token } => self.handle_request(&method, id, &params, progress_token),
            Incoming::Notification { method, cancelled_request, .. } => self.handle_notification(&method, cancelled_request),
            Incoming::Response { id, outcome } => {
                let waiter = self.shared.pending_elicitations.lock().remove(&id);
                if let Some(waiter) = waiter {
                    let _ = waiter.send(outcome);
                }
            }
            Incoming::UnusableResponse => (),
            Incoming::Invalid { id, code, message } => {
                self.summary.invalid_messages += 1;
                self.respond_error(id.as_ref(), code, &message);
            }
        }
    }

    fn handle_request(&mut self, method: &str, id: RequestId, params: &Value, progress_token: Option<RequestId>) {
        self.summary.requests_received += 1;
        match method {
            "initialize" => self.initialize(&id, params),
            "ping" => self.respond(&id, &json!({})),
            "logging/setLevel" => {
                let level = params.get("level").and_then(Value::as_str);
                match level.and_then(EventLevel::parse) {
                    Some(level) => {
                        self.shared.log_level.store(level_index(level), Ordering::SeqCst);
                        self.respond(&id, &json!({}));
                    }
                    None => {
                        let names: Vec<&str> = EventLevel::ALL.iter().map(|level| level.as_str()).collect();
                        let got = params.get("level").map_or_else(|| "nothing".to_owned(), Value::to_string);
                        self.respond_error(
                            Some(&id),
                            INVALID_PARAMS,
                            &format!("params.level must be one of {}; got {got}", names.join(", ")),
                        );
                    }
                }
            }
            "tools/list" | "tools/call" => {
                let run = match &self.state {
                    SessionState::Ready(run) => Arc::clone(run),
                    SessionState::AwaitingInitialize(_) => {
                        return self.respond_error(
                            Some(&id),
                            INVALID_REQUEST,
                            &format!("{method} before initialize: send initialize first"),
                        );
                    }
                    SessionState::Failed(reason) => {
                        let message = format!("this session has no run: {reason}");
                        return self.respond_error(Some(&id), INTERNAL_ERROR, &message);
                    }
                };
                if method == "tools/list" {
                    // One page holds every tool and no nextCursor is ever sent, so any cursor is
                    // one this server did not issue: MCP's pagination answers it with -32602.
                    if let Some(cursor) = params.get("cursor").filter(|cursor| !cursor.is_null()) {
                        let message = format!(
                            "tools/list params.cursor {cursor} was not issued by this server: it lists every tool in one page and never sends a nextCursor; send tools/list without a cursor"
                        );
                        return self.respond_error(Some(&id), INVALID_PARAMS, &message);
                    }
                    self.respond(&id, &json!({"tools": run.tools_json(self.config.caller)}));
                } else {
                    self.start_call(run, id, params, progress_token);
                }
            }
            _ => self.respond_error(
                Some(&id),
                METHOD_NOT_FOUND,
                &format!("method not found: {method} (this host serves initialize, ping, logging/setLevel, tools/list, tools/call)"),
            ),
        }
    }

    fn handle_notification(&mut self, method: &str, cancelled_request: Option<RequestId>) {
        if method != "notifications/cancelled" {
            // `notifications/initialized` and anything unknown need no action.
            return;
        }
        let Some(request_id) = cancelled_request else { return };
        if let Some(call) = self.in_flight.get(&request_id) {
            call.host_cancelled.store(true, Ordering::SeqCst);
            call.cancel.cancel();
        }
    }

    fn initialize(&mut self, id: &RequestId, params: &Value) {
        let source = match &mut self.state {
            SessionState::AwaitingInitialize(source) => source.take(),
            _ => None,
        };
        let Some(source) = source else {
            return self.respond_error(Some(id), INVALID_REQUEST, "initialize was already received in this session");
        };
        let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        let protocol_version = if SUPPORTED_PROTOCOL_VERSIONS.contains(&requested) { requested } else { PROTOCOL_VERSION };
        let client_name = params.pointer("/clientInfo/name").and_then(Value::as_str).map(str::to_owned);
        let (run, elicitation, port_given) = match source {
            RunSource::Builder(builder) => match self.build_run(*builder, params, client_name.as_deref()) {
                Ok(built) => built,
                Err(message) => {
                    self.state = SessionState::Failed(message.clone());
                    return self.respond_error(Some(id), INTERNAL_ERROR, &format!("the run could not be built: {message}"));
                }
            },
            RunSource::Prebuilt(run) => {
                let port_given = run.ask_binding().is_some();
                (run, false, port_given)
            }
        };
        self.summary.client_name = client_name;
        self.summary.elicitation = elicitation;
        let caller = self.config.caller;
        let n_visible = run.tools(caller).len();
        let policy = run.approval_policy();
        let any_tier_asks = [crate::Tier::Write, crate::Tier::Exec].into_iter().any(|tier| policy.for_tier(tier) == crate::Approval::Ask);
        let ask_note = match (elicitation, any_tier_asks) {
            _ if port_given => "ask_user and approval prompts reach the human through the port the host attached (inside a vibe \
                               worker: the parent run's human, labelled with the worker)"
                .to_owned(),
            (true, _) => "ask_user and approval prompts reach the human through elicitation/create".to_owned(),
            (false, true) => "no human is attached (the host did not declare elicitation): ask_user is absent and tools whose tier needs approval are denied"
                .to_owned(),
            (false, false) => format!(
                "no human is attached (the host did not declare elicitation): ask_user is absent; approval policy: write {:?}, exec {:?} (no prompts)",
                policy.write, policy.exec
            )
            .to_lowercase(),
        };
        let instructions = format!(
            "runbound: {n_visible} tools bound to the workspace {} (conversation {}). Caller {caller}: {}; {ask_note}. \
             Paths are relative to the workspace; lines are 1-based. Long calls report progress when the request carries a progressToken.",
            run.workspace_root().display(),
            run.conversation_id(),
            if caller == Caller::Main { "read, write and exec tools are visible" } else { "read-tier tools only" },
        );
        self.state = SessionState::Ready(run);
        self.respond(
            id,
            &json!({
                "protocolVersion": protocol_version,
                "capabilities": {"tools": {"listChanged": false}, "logging": {}},
                "serverInfo": {"name": "runbound", "title": "runbound", "version": env!("CARGO_PKG_VERSION")},
                "instructions": instructions,
            }),
        );
    }

    /// Builds the session's run from `builder` for the host's `initialize` `params`: attaches
    /// the elicitation ask port when the host declared the capability (and no port was attached
    /// before serve), forwards worker notifications and the run's events. Returns the run,
    /// whether elicitation was attached, and whether a port was given before serve.
    fn build_run(&self, builder: RunBuilder, params: &Value, client_name: Option<&str>) -> Result<(Arc<Run>, bool, bool), String> {
        let mut builder = builder;
        // A port attached before serve (the CLI inside a vibe worker attaches the parent run's
        // ask channel: the human is there, not behind the worker's agent) wins over elicitation.
        let port_given = builder.has_ask_port();
        let elicitation = !port_given && params.pointer("/capabilities/elicitation").is_some_and(|value| !value.is_null());
        if elicitation {
            let target_space = format!("mcp:{}", client_name.unwrap_or("host"));
            builder = builder.ask_port(Arc::new(ElicitationAskPort { shared: Arc::clone(&self.shared) }), target_space);
        }
        if builder.has_vibe_roster() {
            // Worker completion is announced without a poll. The callback holds only a sender
            // (never the run), so dropping the run is not prevented.
            let outgoing = self.shared.outgoing.clone();
            builder = builder.on_worker_event(Arc::new(move |event: &crate::vibe::WorkerEvent| {
                let message = json!({"jsonrpc": "2.0", "method": WORKER_EVENT_NOTIFICATION, "params": event.to_json()});
                let _ = outgoing.send(Outgoing::Line(value_line(&message)));
            }));
        }
        // The run's events become log messages. The callback holds the shared output state,
        // never the run.
        let shared = Arc::clone(&self.shared);
        builder = builder.on_event(Arc::new(move |event: &RunEvent| shared.log(event)));
        let run = builder.build().map_err(|RunError { message }| message)?;
        Ok((Arc::new(run), elicitation, port_given))
    }

    fn start_call(&mut self, run: Arc<Run>, id: RequestId, params: &Value, progress_token: Option<RequestId>) {
        let Some(name) = params.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return self.respond_error(Some(&id), INVALID_PARAMS, "tools/call needs params.name (the tool name, a string)");
        };
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        if !(arguments.is_object() || arguments.is_null()) {
            return self.respond_error(Some(&id), INVALID_PARAMS, "tools/call params.arguments must be an object");
        }
        if self.in_flight.contains_key(&id) {
            return self.respond_error(Some(&id), INVALID_REQUEST, &format!("request id {id} is already in use by a running call"));
        }
        let mut options = CallOptions::new(self.config.caller);
        if let Some(token) = progress_token {
            // Progress goes out on the same ordered channel as the response; the registry closes
            // the sink before `call_with` returns, so none follows the response.
            let shared = Arc::clone(&self.shared);
            options = options.with_progress(Arc::new(move |update: &ProgressUpdate| {
                shared.send_line(progress_line(&token, update.progress, update.total, update.message.as_deref()));
            }));
        }
        let cancel = options.cancel.clone();
        let host_cancelled = Arc::new(AtomicBool::new(false));
        let shared = Arc::clone(&self.shared);
        let worker_id = id.clone();
        let worker_name = name.clone();
        let worker_host_cancelled = Arc::clone(&host_cancelled);
        // Any attached port (elicitation, or a port the host attached before serve) means the
        // denial came from a human or the port, not from a host without elicitation.
        let elicitation = run.ask_binding().is_some();
        let workspace_root = run.workspace_root().to_path_buf();
        let (finished_tx, finished) = crossbeam_channel::bounded::<()>(0);
        let spawned = std::thread::Builder::new()
            .name(format!("runbound-serve-call-{}", self.summary.tool_calls + 1))
            .stack_size(SERVE_CALL_STACK_BYTES)
            .spawn(move || {
                // Dropped when this closure returns or unwinds: the session's shutdown wakes at once.
                let _finished_tx = finished_tx;
                CALL_CANCEL_TOKEN.with(|slot| *slot.borrow_mut() = Some(options.cancel.clone()));
                let mut result = run.call_with(&worker_name, arguments, &options);
                if !elicitation && crate::ask::is_no_human_denial(&result) {
                    result.push_text(
                        "runbound serve: approval prompts need an MCP host that declares the elicitation capability; \
                     otherwise restart the server with --approve allow (or --approve deny)",
                    );
                }
                CALL_CANCEL_TOKEN.with(|slot| *slot.borrow_mut() = None);
                drop(run);
                if !worker_host_cancelled.load(Ordering::SeqCst) {
                    shared.send_line(result_line(&worker_id, &result.to_json()));
                } else if let Some(event) = landed_after_cancel_event(&worker_id, &worker_name, &options.cancel, &workspace_root) {
                    // No response for a cancelled call (MCP), but what it changed on disk must not
                    // go unsaid: the host learns it as a warning log message.
                    shared.log(&event);
                }
            });
        match spawned {
            Ok(thread) => {
                self.summary.tool_calls += 1;
                self.in_flight.insert(id, InFlightCall { tool: name, cancel, host_cancelled, thread, finished });
            }
            Err(err) => self.respond_error(Some(&id), INTERNAL_ERROR, &format!("cannot start a thread for {name}: {err}")),
        }
    }

    fn reap_finished_calls(&mut self) {
        let finished: Vec<RequestId> =
            self.in_flight.iter().filter(|(_, call)| call.thread.is_finished()).map(|(key, _)| key.clone()).collect();
        for key in finished {
            if let Some(call) = self.in_flight.remove(&key) {
                let _ = call.thread.join();
            }
        }
    }

    /// Cancels what is running, withdraws pending cards, joins workers within the grace,
    /// drops the run. Returns the summary.
    fn shut_down(mut self) -> ServeSummary {
        self.shared.closed.store(true, Ordering::SeqCst);
        for call in self.in_flight.values() {
            call.cancel.cancel();
        }
        // Dropping the waiters wakes every port blocked on a card with "connection closed".
        self.shared.pending_elicitations.lock().clear();
        // Each worker's `finished` channel disconnects when its closure ends, so this wakes as
        // soon as the last call returns (no poll interval), and gives up at the deadline.
        let deadline = Instant::now() + self.config.shutdown_grace;
        let mut still_running = Vec::new();
        for (key, call) in self.in_flight.drain() {
            let returned = matches!(call.finished.recv_deadline(deadline), Err(crossbeam_channel::RecvTimeoutError::Disconnected));
            if returned || call.thread.is_finished() {
                // The closure has returned; the thread is only exiting, so the join is short.
                let _ = call.thread.join();
            } else {
                still_running.push(format!("{} (request {key})", call.tool));
            }
        }
        still_running.sort();
        self.summary.calls_still_running = still_running;
        // The run (and every resource it owns) is dropped here unless a stuck worker holds it.
        self.state = SessionState::Failed("the session ended".to_owned());
        self.summary
    }

    fn respond(&mut self, id: &RequestId, result: &Value) {
        self.shared.send_line(result_line(id, result));
    }

    fn respond_error(&mut self, id: Option<&RequestId>, code: i64, message: &str) {
        self.shared.send_line(error_line(id, code, message));
    }
}

/// The warning event for a cancelled call whose writes landed, or `None` when it wrote nothing.
/// Its data names the request, the tool and the paths (relative to the workspace).
fn landed_after_cancel_event(
    request_id: &RequestId,
    tool: &str,
    cancel: &CancelToken,
    workspace_root: &std::path::Path,
) -> Option<RunEvent> {
    let landed = cancel.landed_writes();
    if landed.is_empty() {
        return None;
    }
    let paths: Vec<String> = landed.iter().map(|path| crate::render::display_path(workspace_root, path)).collect();
    // The id as JSON: a string id stays a string; an integer id beyond 2^53 becomes its digits
    // as a string rather than a rounded number.
    let request_id_json = match serde_json::from_str::<Value>(request_id.as_json()) {
        Ok(Value::Number(number)) if number.is_i64() || number.is_u64() => Value::Number(number),
        Ok(Value::String(text)) => Value::String(text),
        _ => Value::String(request_id.as_json().to_owned()),
    };
    Some(
        RunEvent::new(
            EventLevel::Warning,
            "serve",
            format!("the cancelled {tool} call (request {request_id}) had already written {}; the change is on disk", paths.join(", ")),
        )
        .with_data(json!({"requestId": request_id_json, "tool": tool, "written": paths})),
    )
}

fn write_loop(writer: &mut dyn Write, outgoing: &Receiver<Outgoing>, write_failure: &Mutex<Option<io::Error>>) {
    // Ends on Stop, or when every sender is gone; after a write failure the rest is discarded.
    while let Ok(Outgoing::Line(mut line)) = outgoing.recv() {
        if write_failure.lock().is_some() {
            continue;
        }
        line.push('\n');
        if let Err(err) = writer.write_all(line.as_bytes()).and_then(|()| writer.flush()) {
            *write_failure.lock() = Some(err);
        }
    }
}

/// Stack of each `serve` call thread, in bytes (64 MiB, reserved, committed only as used).
/// ast-grep-core matches recursively (a rule whose `utils` call themselves, a `has` chain)
/// and tree-sitter trees of deeply nested code are deep: with the default 2 MiB a rule over
/// 1,000 nested calls overflowed the stack, which aborts the whole server, not one call
/// (adv21). 64 MiB moves that limit about 30 times deeper; it is not a bound on depth.
pub(crate) const SERVE_CALL_STACK_BYTES: usize = 64 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// A host-defined tool that waits until cancelled (or, when `stubborn`, sleeps through it).
    fn waiting_tool(name: &str, stubborn: bool, observed_cancel: Arc<AtomicBool>) -> (crate::ToolDescriptor, crate::ToolHandler) {
        let descriptor = crate::ToolDescriptor {
            name: name.to_owned(),
            description: "Waits until the host cancels the call.".to_owned(),
            tier: crate::Tier::Read,
            input_schema: json!({"type": "object"}),
            title: "Test tool".to_owned(),
            output_schema: None,
            annotations: crate::ToolAnnotations::for_tier(crate::Tier::Read),
            parallel_safe: true,
            default_timeout: Duration::from_secs(30),
        };
        let handler: crate::ToolHandler = Arc::new(move |ctx, _arguments| {
            if stubborn {
                std::thread::sleep(Duration::from_millis(1500));
                return Ok(crate::ToolOutput::text("done"));
            }
            loop {
                if let Err(err) = ctx.check_continue("waiting") {
                    observed_cancel.store(true, Ordering::SeqCst);
                    return Err(err);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        (descriptor, handler)
    }

    struct InProcessHost {
        input: Option<io::PipeWriter>,
        output: io::BufReader<io::PipeReader>,
        server: Option<std::thread::JoinHandle<Result<ServeSummary, ServeError>>>,
    }

    impl InProcessHost {
        fn start(builder: RunBuilder, config: ServeConfig) -> InProcessHost {
            let (input_reader, input_writer) = io::pipe().unwrap();
            let (output_reader, output_writer) = io::pipe().unwrap();
            let server = std::thread::Builder::new()
                .name("serve-under-test".to_owned())
                .spawn(move || serve(&mut io::BufReader::new(input_reader), Box::new(output_writer), builder, &config))
                .unwrap();
            InProcessHost { input: Some(input_writer), output: io::BufReader::new(output_reader), server: Some(server) }
        }

        fn send(&mut self, message: Value) {
            writeln!(self.input.as_mut().unwrap(), "{message}").unwrap();
        }

        fn send_line(&mut self, line: &str) {
            writeln!(self.input.as_mut().unwrap(), "{line}").unwrap();
        }

        fn receive_line(&mut self) -> Option<String> {
            let mut line = String::new();
            match self.output.read_line(&mut line).unwrap() {
                0 => None,
                _ => Some(line.trim_end().to_owned()),
            }
        }

        fn receive(&mut self) -> Option<Value> {
            let mut line = String::new();
            match self.output.read_line(&mut line).unwrap() {
                0 => None,
                _ => Some(serde_json::from_str(&line).unwrap()),
            }
        }

        /// Closes the input and returns the summary plus everything written after that.
        fn finish(mut self) -> (ServeSummary, Vec<Value>) {
            drop(self.input.take());
            let summary = self.server.take().unwrap().join().unwrap().unwrap();
            let mut rest = Vec::new();
            while let Some(message) = self.receive() {
                rest.push(message);
            }
            (summary, rest)
        }
    }

    #[test]
    fn cancelled_call_stops_and_gets_no_response() {
        let workspace = tempfile::tempdir().unwrap();
        let observed_cancel = Arc::new(AtomicBool::new(false));
        let (descriptor, handler) = waiting_tool("wait_for_cancel", false, Arc::clone(&observed_cancel));
        let mut host =
            InProcessHost::start(crate::Run::builder(workspace.path()).tool(descriptor, handler), ServeConfig::new(Caller::Main));
        host.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
        );
        assert_eq!(host.receive().unwrap()["id"], 1);
        host.send(json!({"jsonrpc": "2.0", "id": "call-7", "method": "tools/call", "params": {"name": "wait_for_cancel"}}));
        std::thread::sleep(Duration::from_millis(100));
        host.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "call-7"}}));
        host.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
        assert_eq!(host.receive().unwrap(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
        let deadline = Instant::now() + Duration::from_secs(5);
        while !observed_cancel.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(observed_cancel.load(Ordering::SeqCst), "the tool saw the cancellation through its CancelToken");
        let (summary, rest) = host.finish();
        assert!(rest.is_empty(), "no response for a cancelled call: {rest:?}");
        assert_eq!(summary.tool_calls, 1);
        assert_eq!(summary.requests_received, 3);
        assert!(summary.calls_still_running.is_empty(), "{summary:?}");
    }

    #[test]
    fn cancelled_call_whose_write_landed_is_announced_as_a_warning() {
        let workspace = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(workspace.path()).unwrap();
        // A write already under way when the cancel arrives: it commits, then returns.
        let descriptor = crate::ToolDescriptor {
            name: "slow_writer".to_owned(),
            description: "Writes landed.txt once the host has cancelled the call.".to_owned(),
            tier: crate::Tier::Read,
            input_schema: json!({"type": "object"}),
            title: "Test tool".to_owned(),
            output_schema: None,
            annotations: crate::ToolAnnotations::for_tier(crate::Tier::Read),
            parallel_safe: true,
            default_timeout: Duration::from_secs(30),
        };
        let handler: crate::ToolHandler = Arc::new(|ctx, _arguments| {
            let deadline = Instant::now() + Duration::from_secs(5);
            while !ctx.cancel_token().is_cancelled() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            let root = ctx.workspace_root();
            let change = crate::files::FileChange {
                path: root.join("landed.txt"),
                new_content: Some(b"landed\n".to_vec()),
                expected: crate::files::ExpectedState::Absent,
            };
            let written = crate::files::commit_file_changes_in(root, &[change])?;
            Ok(crate::ToolOutput::text("wrote landed.txt").with_written_paths(written))
        });
        let mut host = InProcessHost::start(crate::Run::builder(&root).tool(descriptor, handler), ServeConfig::new(Caller::Main));
        host.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
        );
        let initialized = host.receive().unwrap();
        assert_eq!(initialized["result"]["capabilities"]["logging"], json!({}));
        host.send(json!({"jsonrpc": "2.0", "id": "w-1", "method": "tools/call", "params": {"name": "slow_writer"}}));
        host.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "w-1"}}));
        let notification = host.receive().unwrap();
        assert_eq!(notification["method"], "notifications/message", "{notification}");
        assert_eq!(notification["params"]["level"], "warning");
        assert_eq!(notification["params"]["data"]["requestId"], "w-1");
        assert_eq!(notification["params"]["data"]["written"], json!(["landed.txt"]));
        let message = notification["params"]["data"]["message"].as_str().unwrap();
        assert!(message.contains("the cancelled slow_writer call (request \"w-1\") had already written landed.txt"), "{message}");
        assert_eq!(std::fs::read_to_string(root.join("landed.txt")).unwrap(), "landed\n");
        let (_summary, rest) = host.finish();
        assert!(rest.is_empty(), "still no response for the cancelled call: {rest:?}");
    }

    #[test]
    fn shutdown_reports_calls_that_outlive_the_grace() {
        let workspace = tempfile::tempdir().unwrap();
        let (descriptor, handler) = waiting_tool("stubborn", true, Arc::new(AtomicBool::new(false)));
        let mut config = ServeConfig::new(Caller::Main);
        config.shutdown_grace = Duration::from_millis(100);
        let mut host = InProcessHost::start(crate::Run::builder(workspace.path()).tool(descriptor, handler), config);
        host.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
        );
        assert_eq!(host.receive().unwrap()["id"], 1);
        host.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "stubborn"}}));
        std::thread::sleep(Duration::from_millis(100));
        let started = Instant::now();
        let (summary, _rest) = host.finish();
        assert!(started.elapsed() < Duration::from_millis(1200), "shutdown waited past the grace: {:?}", started.elapsed());
        assert_eq!(summary.calls_still_running, vec!["stubborn (request 2)".to_owned()]);
    }

    #[test]
    fn a_call_with_an_id_beyond_two_to_the_53_is_cancelled_by_that_exact_id() {
        let workspace = tempfile::tempdir().unwrap();
        let observed_cancel = Arc::new(AtomicBool::new(false));
        let (descriptor, handler) = waiting_tool("wait_for_cancel", false, Arc::clone(&observed_cancel));
        let mut host =
            InProcessHost::start(crate::Run::builder(workspace.path()).tool(descriptor, handler), ServeConfig::new(Caller::Main));
        host.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
        assert_eq!(host.receive().unwrap()["id"], 1);
        // 2^70 and 2^70 + 1 round to the same float: only the exact text tells them apart.
        host.send_line(r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"tools/call","params":{"name":"wait_for_cancel"}}"#);
        host.send_line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1180591620717411303425}}"#);
        std::thread::sleep(Duration::from_millis(200));
        assert!(!observed_cancel.load(Ordering::SeqCst), "a cancel for another id (equal as floats) left the call alone");
        host.send_line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1180591620717411303424}}"#);
        let deadline = Instant::now() + Duration::from_secs(5);
        while !observed_cancel.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(observed_cancel.load(Ordering::SeqCst), "the exact id cancelled the call");
        host.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
        assert_eq!(host.receive_line().unwrap(), r#"{"jsonrpc":"2.0","id":2,"result":{}}"#, "no response for the cancelled call");
        let (summary, rest) = host.finish();
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(summary.tool_calls, 1);
    }

    #[test]
    fn a_call_still_running_when_the_input_ends_gets_its_response_within_the_grace() {
        let workspace = tempfile::tempdir().unwrap();
        let observed_cancel = Arc::new(AtomicBool::new(false));
        let (descriptor, handler) = waiting_tool("wait_for_cancel", false, Arc::clone(&observed_cancel));
        let mut host =
            InProcessHost::start(crate::Run::builder(workspace.path()).tool(descriptor, handler), ServeConfig::new(Caller::Main));
        host.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
        assert_eq!(host.receive().unwrap()["id"], 1);
        host.send(json!({"jsonrpc": "2.0", "id": "last", "method": "tools/call", "params": {"name": "wait_for_cancel"}}));
        std::thread::sleep(Duration::from_millis(100));
        let (summary, rest) = host.finish();
        assert!(observed_cancel.load(Ordering::SeqCst), "the session's end cancelled the call");
        assert_eq!(rest.len(), 1, "exactly one response: {rest:?}");
        assert_eq!(rest[0]["id"], "last");
        assert_eq!(rest[0]["result"]["isError"], true, "{}", rest[0]);
        assert!(rest[0]["result"].to_string().contains("cancelled"), "{}", rest[0]);
        assert!(summary.calls_still_running.is_empty());
    }
}
