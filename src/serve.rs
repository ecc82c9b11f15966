//! `serve`: one run per process, hosted as an MCP server over stdio.
//!
//! Wire: newline-delimited JSON-RPC 2.0 (one compact JSON message per line, UTF-8) with MCP's
//! method names and shapes, protocol version [`PROTOCOL_VERSION`] (`2025-06-18`); a client that
//! offers one of the older [`SUPPORTED_PROTOCOL_VERSIONS`] gets that version back, any other
//! offer gets `2025-06-18` (the client then decides whether it can speak it).
//!
//! Methods served:
//! - `initialize`: builds the run. A host whose capabilities include `elicitation` gets the ask
//!   port attached (target space `mcp:<clientInfo.name>`), so `ask_user` is registered and
//!   permission prompts reach a human; without it there is no human, `ask_user` is absent and
//!   approval prompts are denied (fail-closed, SPEC R-ASK-4).
//! - `notifications/initialized`, `ping`, `tools/list` (the tools visible to the session's
//!   caller, R-TIER-2), `tools/call` (the result is the run's [`crate::ToolResult`] JSON: MCP
//!   `CallToolResult`), `notifications/cancelled` (cancels the in-flight call through its
//!   [`CancelToken`]; per MCP no response is sent for a cancelled request, but when the call had
//!   already written files — its commit was under way — the host gets a `notifications/message`
//!   at level `warning` naming the request, the tool and the paths written, so the change does
//!   not go unsaid), `logging/setLevel` (the `logging` capability is declared for that warning;
//!   a level above `warning` mutes it).
//! - Anything else: `-32601` for requests, ignored for notifications. Requests other than
//!   `initialize` and `ping` before `initialize` get `-32600`.
//!
//! Cards and permission prompts are sent to the host as `elicitation/create` requests with a
//! flat `requestedSchema` (see [`elicitation_request_params`]); the response's `action` maps
//! `accept` → answered, `decline` → skipped (a question) or denied (a permission prompt),
//! `cancel` → cancelled (a denial for a permission prompt). A card that times out or whose call
//! is cancelled is withdrawn with `notifications/cancelled` sent to the host.
//!
//! Threads: the caller's thread reads and routes messages; one named writer thread owns the
//! output; each `tools/call` runs on its own named worker thread, so a tool blocked on a card
//! never blocks the reader (which must stay free to receive the elicitation response). When the
//! input ends, every in-flight call is cancelled, pending cards are withdrawn, workers are
//! joined within [`ServeConfig::shutdown_grace`], the run is dropped (its resources stopped),
//! and the writer is drained and joined. The library never prints: the output carries
//! protocol only.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use parking_lot::Mutex;
use serde_json::{json, Map, Value};

use crate::ask::{AskCard, AskOutcome, AskPort, CardKind, PERMISSION_DENY};
use crate::registry::{CallOptions, CancelToken};
use crate::run::{Run, RunBuilder, RunError};
use crate::tier::Caller;
use crate::transport::framing::{read_json_line, write_json_line, FramingError};

/// The MCP protocol revision this host implements.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Revisions a client may request and get back unchanged, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC 2.0: invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the message is not a valid request (or not valid in this state).
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0: the method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC 2.0: invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC 2.0: internal error.
pub const INTERNAL_ERROR: i64 = -32603;

/// Method of the notification sent to the host when a background worker (vibe) finishes,
/// fails or is lost: params are `WorkerEvent::to_json()` (`worker_id`, `label`, `tier`,
/// `attempt`, `status`, `elapsed_ms`, `result_excerpt`, `message`).
pub const WORKER_EVENT_NOTIFICATION: &str = "notifications/runbound/worker";

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
    /// Requests received (messages with a `method` and an `id`), notifications excluded.
    pub requests_received: u64,
    /// `tools/call` requests started.
    pub tool_calls: u64,
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
/// are not errors: they are answered with `-32700` and skipped.
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
        std::thread::Builder::new()
            .name("runbound-serve-writer".to_owned())
            .spawn(move || write_loop(writer, &outgoing_rx, &write_failure))
            .map_err(ServeError::Io)?
    };
    let shared = Arc::new(Shared {
        outgoing: outgoing_tx,
        pending_elicitations: Mutex::new(HashMap::new()),
        next_server_request_id: AtomicU64::new(1),
        closed: AtomicBool::new(false),
        logging_muted: AtomicBool::new(false),
    });
    let mut session = Session {
        config: config.clone(),
        shared: Arc::clone(&shared),
        state: SessionState::AwaitingInitialize(Some(Box::new(builder))),
        in_flight: HashMap::new(),
        summary: ServeSummary {
            client_name: None,
            elicitation: false,
            requests_received: 0,
            tool_calls: 0,
            calls_still_running: Vec::new(),
        },
        write_failure: Arc::clone(&write_failure),
    };
    let read_outcome = session.read_loop(reader);
    let summary = session.shut_down();
    let _ = shared.outgoing.send(Outgoing::Stop);
    drop(shared);
    let _ = writer_thread.join();
    if let Some(err) = write_failure.lock().take() {
        return Err(ServeError::Io(err));
    }
    read_outcome?;
    Ok(summary)
}

/// The `elicitation/create` params for `card`: `{"message": …, "requestedSchema": …}`.
///
/// The schema is flat (MCP 2025-06-18 allows primitive properties only):
/// - permission cards: `decision`, a required string enum of the three permission labels;
/// - single-choice questions: `choice`, a string enum of the option labels (`enumNames` carry
///   the descriptions), required unless free text is allowed;
/// - multi-select questions: one boolean `option_<n>` per option (n from 1, `title` = label);
/// - free text allowed: `answer`, a string (required when there are no options).
pub fn elicitation_request_params(card: &AskCard) -> Value {
    let mut message = format!("card {}: {}", card.number, card.question);
    if let Some(asked_by) = &card.asked_by {
        message.push_str(&format!("\n(asked by {asked_by})"));
    }
    if let Some(context) = &card.context {
        message.push_str(&format!("\n\n{context}"));
    }
    let mut properties = Map::new();
    let mut required: Vec<&str> = Vec::new();
    let labels: Vec<&str> = card.options.iter().map(|option| option.label.as_str()).collect();
    let titles: Vec<String> = card
        .options
        .iter()
        .map(|option| match &option.description {
            Some(description) => format!("{} — {description}", option.label),
            None => option.label.clone(),
        })
        .collect();
    match card.kind {
        CardKind::Permission => {
            properties.insert(
                "decision".to_owned(),
                json!({"type": "string", "title": "Decision", "description": "Whether this tool call may run.", "enum": labels, "enumNames": titles}),
            );
            required.push("decision");
        }
        CardKind::Question if card.options.is_empty() => (),
        CardKind::Question if card.multi_select => {
            for (option_idx, option) in card.options.iter().enumerate() {
                let mut property = json!({"type": "boolean", "title": option.label, "default": false});
                if let Some(description) = &option.description {
                    property["description"] = Value::String(description.clone());
                }
                properties.insert(format!("option_{}", option_idx + 1), property);
            }
        }
        CardKind::Question => {
            properties.insert(
                "choice".to_owned(),
                json!({"type": "string", "title": "Choice", "description": "Pick one option.", "enum": labels, "enumNames": titles}),
            );
            if !card.allow_free_text {
                required.push("choice");
            }
        }
    }
    if card.kind == CardKind::Question && card.allow_free_text {
        let description = if card.options.is_empty() { "Your answer." } else { "Your own answer, instead of or in addition to a choice." };
        properties.insert("answer".to_owned(), json!({"type": "string", "title": "Answer", "description": description}));
        if card.options.is_empty() {
            required.push("answer");
        }
    }
    json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    })
}

/// Maps the host's `elicitation/create` result (`{"action": …, "content": {…}}`) for `card` to
/// an [`AskOutcome`] (see [`elicitation_request_params`] for the field names).
pub fn elicitation_outcome(card: &AskCard, result: &Value) -> AskOutcome {
    let action = result.get("action").and_then(Value::as_str).unwrap_or("");
    let content = result.get("content").cloned().unwrap_or(Value::Null);
    match (action, card.kind) {
        ("accept", CardKind::Permission) => {
            let decision = content.get("decision").and_then(Value::as_str);
            AskOutcome::Answered { selected: decision.map(str::to_owned).into_iter().collect(), free_text: None }
        }
        ("accept", CardKind::Question) => {
            let mut selected = Vec::new();
            if let Some(choice) = content.get("choice").and_then(Value::as_str) {
                selected.push(choice.to_owned());
            }
            for (option_idx, option) in card.options.iter().enumerate() {
                if content.get(format!("option_{}", option_idx + 1)).and_then(Value::as_bool) == Some(true) {
                    selected.push(option.label.clone());
                }
            }
            let free_text = content.get("answer").and_then(Value::as_str).map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned);
            AskOutcome::Answered { selected, free_text }
        }
        ("decline", CardKind::Permission) => AskOutcome::Answered { selected: vec![PERMISSION_DENY.to_owned()], free_text: None },
        ("decline", CardKind::Question) => AskOutcome::Skipped,
        ("cancel", _) => AskOutcome::Cancelled { reason: "the host cancelled the card".to_owned() },
        (other, _) => AskOutcome::Cancelled { reason: format!("the host answered the card with unknown action {other:?}") },
    }
}

enum Outgoing {
    Message(Value),
    Stop,
}

/// State shared by the reader, the workers and the ask port.
struct Shared {
    outgoing: Sender<Outgoing>,
    /// Server→host requests awaiting a response, by JSON-encoded id.
    pending_elicitations: Mutex<HashMap<String, Sender<Result<Value, Value>>>>,
    next_server_request_id: AtomicU64,
    /// Set when the input ended: no new cards are sent.
    closed: AtomicBool,
    /// Set by `logging/setLevel` to a level above `warning`: no log messages are sent.
    logging_muted: AtomicBool,
}

impl Shared {
    fn send(&self, message: Value) {
        let _ = self.outgoing.send(Outgoing::Message(message));
    }
}

enum SessionState {
    AwaitingInitialize(Option<Box<RunBuilder>>),
    Ready(Arc<Run>),
    Failed(String),
}

struct InFlightCall {
    tool: String,
    cancel: CancelToken,
    thread: JoinHandle<()>,
}

struct Session {
    config: ServeConfig,
    shared: Arc<Shared>,
    state: SessionState,
    /// Running `tools/call` workers by JSON-encoded request id.
    in_flight: HashMap<String, InFlightCall>,
    summary: ServeSummary,
    write_failure: Arc<Mutex<Option<io::Error>>>,
}

impl Session {
    fn read_loop(&mut self, reader: &mut dyn BufRead) -> Result<(), ServeError> {
        loop {
            if self.write_failure.lock().is_some() {
                return Ok(());
            }
            let message = match read_json_line(reader, self.config.max_message_bytes) {
                Ok(Some(message)) => message,
                Ok(None) => return Ok(()),
                Err(err) if err.is_recoverable() => {
                    self.respond_error(Value::Null, PARSE_ERROR, &format!("message skipped: {err}"));
                    continue;
                }
                Err(err) => return Err(ServeError::Framing(err)),
            };
            self.reap_finished_calls();
            self.route(message);
        }
    }

    fn route(&mut self, message: Value) {
        let Value::Object(object) = message else {
            let what =
                if message.is_array() { "JSON-RPC batches are not supported by MCP 2025-06-18" } else { "a message must be a JSON object" };
            self.respond_error(Value::Null, INVALID_REQUEST, what);
            return;
        };
        let id = object.get("id").cloned();
        let method = object.get("method").and_then(Value::as_str).map(str::to_owned);
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            (Some(method), Some(id)) => self.handle_request(&method, id, params),
            (Some(method), None) => self.handle_notification(&method, &params),
            (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
                let outcome = match object.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(object.get("result").cloned().unwrap_or(Value::Null)),
                };
                let waiter = self.shared.pending_elicitations.lock().remove(&id.to_string());
                if let Some(waiter) = waiter {
                    let _ = waiter.send(outcome);
                }
            }
            (None, id) => self.respond_error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "a message needs a \"method\" (request or notification) or a \"result\"/\"error\" (response)",
            ),
        }
    }

    fn handle_request(&mut self, method: &str, id: Value, params: Value) {
        self.summary.requests_received += 1;
        match method {
            "initialize" => self.initialize(id, &params),
            "ping" => self.respond(id, json!({})),
            "logging/setLevel" => {
                // The only log messages sent are warnings (writes that landed in cancelled calls).
                let level = params.get("level").and_then(Value::as_str).unwrap_or("");
                let muted = matches!(level, "error" | "critical" | "alert" | "emergency");
                self.shared.logging_muted.store(muted, Ordering::SeqCst);
                self.respond(id, json!({}));
            }
            "tools/list" | "tools/call" => {
                let run = match &self.state {
                    SessionState::Ready(run) => Arc::clone(run),
                    SessionState::AwaitingInitialize(_) => {
                        return self.respond_error(id, INVALID_REQUEST, &format!("{method} before initialize: send initialize first"));
                    }
                    SessionState::Failed(reason) => {
                        let message = format!("this session has no run: {reason}");
                        return self.respond_error(id, INTERNAL_ERROR, &message);
                    }
                };
                if method == "tools/list" {
                    self.respond(id, json!({"tools": run.tools_json(self.config.caller)}));
                } else {
                    self.start_call(run, id, &params);
                }
            }
            _ => self.respond_error(
                id,
                METHOD_NOT_FOUND,
                &format!("method not found: {method} (this host serves initialize, ping, logging/setLevel, tools/list, tools/call)"),
            ),
        }
    }

    fn handle_notification(&mut self, method: &str, params: &Value) {
        if method != "notifications/cancelled" {
            // `notifications/initialized` and anything unknown need no action.
            return;
        }
        let Some(request_id) = params.get("requestId") else { return };
        if let Some(call) = self.in_flight.get(&request_id.to_string()) {
            call.cancel.cancel();
        }
    }

    fn initialize(&mut self, id: Value, params: &Value) {
        let builder = match &mut self.state {
            SessionState::AwaitingInitialize(builder) => builder.take(),
            _ => None,
        };
        let Some(builder) = builder else {
            return self.respond_error(id, INVALID_REQUEST, "initialize was already received in this session");
        };
        let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        let protocol_version = if SUPPORTED_PROTOCOL_VERSIONS.contains(&requested) { requested } else { PROTOCOL_VERSION };
        let client_name = params.pointer("/clientInfo/name").and_then(Value::as_str).map(str::to_owned);
        let elicitation = params.pointer("/capabilities/elicitation").is_some_and(|value| !value.is_null());
        let mut builder = *builder;
        if elicitation {
            let target_space = format!("mcp:{}", client_name.as_deref().unwrap_or("host"));
            builder = builder.ask_port(Arc::new(ElicitationAskPort { shared: Arc::clone(&self.shared) }), target_space);
        }
        if builder.has_vibe_roster() {
            // Worker completion is announced without a poll. The callback holds only a sender
            // (never the run), so dropping the run is not prevented.
            let outgoing = self.shared.outgoing.clone();
            builder = builder.on_worker_event(Arc::new(move |event: &crate::vibe::WorkerEvent| {
                let _ = outgoing.send(Outgoing::Message(json!({
                    "jsonrpc": "2.0",
                    "method": WORKER_EVENT_NOTIFICATION,
                    "params": event.to_json(),
                })));
            }));
        }
        let run = match builder.build() {
            Ok(run) => Arc::new(run),
            Err(RunError { message }) => {
                self.state = SessionState::Failed(message.clone());
                return self.respond_error(id, INTERNAL_ERROR, &format!("the run could not be built: {message}"));
            }
        };
        self.summary.client_name = client_name;
        self.summary.elicitation = elicitation;
        let caller = self.config.caller;
        let n_visible = run.tools(caller).len();
        let policy = run.approval_policy();
        let any_tier_asks = [crate::Tier::Write, crate::Tier::Exec].into_iter().any(|tier| policy.for_tier(tier) == crate::Approval::Ask);
        let ask_note = match (elicitation, any_tier_asks) {
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
             Paths are relative to the workspace; lines are 1-based.",
            run.workspace_root().display(),
            run.conversation_id(),
            if caller == Caller::Main { "read, write and exec tools are visible" } else { "read-tier tools only" },
        );
        self.state = SessionState::Ready(run);
        self.respond(
            id,
            json!({
                "protocolVersion": protocol_version,
                "capabilities": {"tools": {"listChanged": false}, "logging": {}},
                "serverInfo": {"name": "runbound", "title": "runbound", "version": env!("CARGO_PKG_VERSION")},
                "instructions": instructions,
            }),
        );
    }

    fn start_call(&mut self, run: Arc<Run>, id: Value, params: &Value) {
        let Some(name) = params.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return self.respond_error(id, INVALID_PARAMS, "tools/call needs params.name (the tool name, a string)");
        };
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        if !(arguments.is_object() || arguments.is_null()) {
            return self.respond_error(id, INVALID_PARAMS, "tools/call params.arguments must be an object");
        }
        let id_key = id.to_string();
        if self.in_flight.contains_key(&id_key) {
            return self.respond_error(id, INVALID_REQUEST, &format!("request id {id_key} is already in use by a running call"));
        }
        let options = CallOptions::new(self.config.caller);
        let cancel = options.cancel.clone();
        let shared = Arc::clone(&self.shared);
        let worker_id = id.clone();
        let worker_name = name.clone();
        let elicitation = self.summary.elicitation;
        let workspace_root = run.workspace_root().to_path_buf();
        let spawned = std::thread::Builder::new().name(format!("runbound-serve-call-{}", self.summary.tool_calls + 1)).spawn(move || {
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
            if !options.cancel.is_cancelled() {
                shared.send(json!({"jsonrpc": "2.0", "id": worker_id, "result": result.to_json()}));
            } else if let Some(notification) = landed_after_cancel_notification(&worker_id, &worker_name, &options.cancel, &workspace_root)
            {
                // No response for a cancelled call (MCP), but what it changed on disk must not
                // go unsaid: the host learns it as a warning log message.
                if !shared.logging_muted.load(Ordering::SeqCst) {
                    shared.send(notification);
                }
            }
        });
        match spawned {
            Ok(thread) => {
                self.summary.tool_calls += 1;
                self.in_flight.insert(id_key, InFlightCall { tool: name, cancel, thread });
            }
            Err(err) => self.respond_error(id, INTERNAL_ERROR, &format!("cannot start a thread for {name}: {err}")),
        }
    }

    fn reap_finished_calls(&mut self) {
        let finished: Vec<String> =
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
        let deadline = Instant::now() + self.config.shutdown_grace;
        while self.in_flight.values().any(|call| !call.thread.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut still_running = Vec::new();
        for (key, call) in self.in_flight.drain() {
            if call.thread.is_finished() {
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

    fn respond(&mut self, id: Value, result: Value) {
        self.shared.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn respond_error(&mut self, id: Value, code: i64, message: &str) {
        self.shared.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}));
    }
}

/// The `notifications/message` (level `warning`) for a cancelled call whose writes landed, or
/// `None` when it wrote nothing. `data` names the request, the tool and the paths (relative to
/// the workspace).
fn landed_after_cancel_notification(
    request_id: &Value,
    tool: &str,
    cancel: &CancelToken,
    workspace_root: &std::path::Path,
) -> Option<Value> {
    let landed = cancel.landed_writes();
    if landed.is_empty() {
        return None;
    }
    let paths: Vec<String> = landed.iter().map(|path| crate::render::display_path(workspace_root, path)).collect();
    Some(json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {
            "level": "warning",
            "logger": "runbound",
            "data": {
                "requestId": request_id,
                "tool": tool,
                "message": format!(
                    "the cancelled {tool} call (request {request_id}) had already written {}; the change is on disk",
                    paths.join(", ")
                ),
                "written": paths,
            },
        },
    }))
}

fn write_loop(mut writer: Box<dyn Write + Send>, outgoing: &Receiver<Outgoing>, write_failure: &Mutex<Option<io::Error>>) {
    // Ends on Stop, or when every sender is gone; after a write failure the rest is discarded.
    while let Ok(Outgoing::Message(message)) = outgoing.recv() {
        if write_failure.lock().is_some() {
            continue;
        }
        if let Err(err) = write_json_line(&mut *writer, &message) {
            *write_failure.lock() = Some(err);
        }
    }
}

thread_local! {
    /// The cancel token of the `tools/call` running on this worker thread, so that a card shown
    /// by that call is withdrawn when the host cancels it.
    static CALL_CANCEL_TOKEN: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// How often a card wait re-checks cancellation.
const CARD_POLL_SLICE: Duration = Duration::from_millis(50);

/// The stdio host's ask port: each card becomes an `elicitation/create` request to the host.
struct ElicitationAskPort {
    shared: Arc<Shared>,
}

impl AskPort for ElicitationAskPort {
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome {
        if self.shared.closed.load(Ordering::SeqCst) {
            return AskOutcome::Cancelled { reason: "the host closed the connection".to_owned() };
        }
        let deadline = Instant::now() + timeout;
        let request_id = json!(self.shared.next_server_request_id.fetch_add(1, Ordering::SeqCst));
        let request_key = request_id.to_string();
        let (response_tx, response_rx) = crossbeam_channel::bounded(1);
        self.shared.pending_elicitations.lock().insert(request_key.clone(), response_tx);
        self.shared.send(json!({
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "elicitation/create",
            "params": elicitation_request_params(card),
        }));
        let cancel = CALL_CANCEL_TOKEN.with(|slot| slot.borrow().clone());
        loop {
            let wait = deadline.saturating_duration_since(Instant::now()).min(CARD_POLL_SLICE);
            match response_rx.recv_timeout(wait) {
                Ok(Ok(result)) => return elicitation_outcome(card, &result),
                Ok(Err(error)) => {
                    let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
                    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                    return AskOutcome::NoHuman { reason: format!("the host refused elicitation/create (error {code}: {message})") };
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return AskOutcome::Cancelled { reason: "the host closed the connection".to_owned() };
                }
                Err(RecvTimeoutError::Timeout) => (),
            }
            if cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
                self.withdraw(&request_id, "the tool call was cancelled");
                return AskOutcome::Cancelled { reason: "the host cancelled the tool call".to_owned() };
            }
            if Instant::now() >= deadline {
                self.withdraw(&request_id, "nobody answered in time");
                return AskOutcome::TimedOut;
            }
        }
    }
}

impl ElicitationAskPort {
    /// Forgets a pending card and tells the host to take it down.
    fn withdraw(&self, request_id: &Value, reason: &str) {
        self.shared.pending_elicitations.lock().remove(&request_id.to_string());
        self.shared.send(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": request_id, "reason": reason},
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::AskOption;

    fn question(labels: &[&str], allow_free_text: bool, multi_select: bool) -> AskCard {
        AskCard {
            number: 3,
            kind: CardKind::Question,
            target_space: "mcp:test".to_owned(),
            question: "Which?".to_owned(),
            context: None,
            options: labels.iter().map(|label| AskOption { label: (*label).to_owned(), description: None }).collect(),
            allow_free_text,
            multi_select,
            asked_by: None,
        }
    }

    #[test]
    fn single_choice_schema_and_answers() {
        let card = question(&["red", "blue"], false, false);
        let params = elicitation_request_params(&card);
        assert_eq!(params["message"], "card 3: Which?");
        let schema = &params["requestedSchema"];
        assert_eq!(schema["properties"]["choice"]["enum"], json!(["red", "blue"]));
        assert_eq!(schema["required"], json!(["choice"]));
        assert!(schema["properties"].get("answer").is_none());
        let accepted = elicitation_outcome(&card, &json!({"action": "accept", "content": {"choice": "blue"}}));
        assert_eq!(accepted, AskOutcome::Answered { selected: vec!["blue".to_owned()], free_text: None });
        assert_eq!(elicitation_outcome(&card, &json!({"action": "decline"})), AskOutcome::Skipped);
        assert!(matches!(elicitation_outcome(&card, &json!({"action": "cancel"})), AskOutcome::Cancelled { .. }));
    }

    #[test]
    fn multi_select_uses_one_boolean_per_option() {
        let card = question(&["a", "b", "c"], true, true);
        let schema = &elicitation_request_params(&card)["requestedSchema"];
        assert_eq!(schema["properties"]["option_2"], json!({"type": "boolean", "title": "b", "default": false}));
        assert_eq!(schema["properties"]["answer"]["type"], "string");
        assert_eq!(schema["required"], json!([]));
        let outcome = elicitation_outcome(
            &card,
            &json!({"action": "accept", "content": {"option_1": true, "option_2": false, "option_3": true, "answer": "  also d "}}),
        );
        assert_eq!(outcome, AskOutcome::Answered { selected: vec!["a".to_owned(), "c".to_owned()], free_text: Some("also d".to_owned()) });
    }

    /// A host-defined tool that waits until cancelled (or, when `stubborn`, sleeps through it).
    fn waiting_tool(name: &str, stubborn: bool, observed_cancel: Arc<AtomicBool>) -> (crate::ToolDescriptor, crate::ToolHandler) {
        let descriptor = crate::ToolDescriptor {
            name: name.to_owned(),
            description: "Waits until the host cancels the call.".to_owned(),
            tier: crate::Tier::Read,
            input_schema: json!({"type": "object"}),
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
    fn permission_decline_is_a_denial() {
        let mut card = question(&["allow once", "allow for this run", "deny"], false, false);
        card.kind = CardKind::Permission;
        let schema = &elicitation_request_params(&card)["requestedSchema"];
        assert_eq!(schema["required"], json!(["decision"]));
        assert_eq!(
            elicitation_outcome(&card, &json!({"action": "decline"})),
            AskOutcome::Answered { selected: vec!["deny".to_owned()], free_text: None }
        );
        assert_eq!(
            elicitation_outcome(&card, &json!({"action": "accept", "content": {"decision": "allow once"}})),
            AskOutcome::Answered { selected: vec!["allow once".to_owned()], free_text: None }
        );
    }
}
