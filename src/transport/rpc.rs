//! A request/response connection to one peer process (language server, debug adapter, kernel).
//!
//! One named reader thread (`runbound-<label>-reader`) decodes frames and routes them:
//! responses to the pending request they answer (correlated by JSON-RPC `id` or DAP
//! `request_seq`), everything else (server→client requests, notifications, DAP events and
//! reverse requests, framing diagnostics) to the owner's [`RpcConnection::incoming`] channel.
//! One named writer thread (`runbound-<label>-writer`) writes frames, so a peer that stops
//! reading its stdin can never block a caller past its timeout. Each request has its own
//! timeout: on expiry the pending entry is dropped and the caller gets
//! [`RpcErrorKind::Timeout`] naming the method, the id and the budget in ms. When the peer's
//! stream ends or it crashes, every pending request and every later call fails with
//! [`RpcErrorKind::PeerClosed`], which carries the exit status and the stderr tail.
//!
//! Dropping the connection closes the writer, kills the child's process group, and joins both
//! threads (bounded). Graceful protocol shutdown (LSP `shutdown`/`exit`, DAP `disconnect`) is
//! the owner's job before the drop; [`RpcConnection::close`] then waits for a voluntary exit.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::process::{ChildStdout, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError, Sender};
use parking_lot::Mutex;
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::transport::framing::{
    read_content_length_frame_reporting_junk, read_json_line, write_content_length_frame, DapMessage, DapRequest, DapResponse,
    FramingError, FramingErrorKind, FramingLimits,
};
use crate::transport::process::{join_bounded, ChildProcess};

/// The wire protocol of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireProtocol {
    /// JSON-RPC 2.0 in Content-Length frames (LSP). Ids are integers we allocate from 1.
    JsonRpcContentLength,
    /// DAP in Content-Length frames: `seq` from 1, responses matched on `request_seq`.
    DapContentLength,
    /// JSON-RPC 2.0, one message per line (kernel drivers).
    JsonRpcLines,
}

/// Connection settings.
#[derive(Debug, Clone)]
pub struct RpcOptions {
    /// The peer's human name for errors, e.g. `"pyright @ /abs/root"`.
    pub peer_name: String,
    /// Short label for thread names (`runbound-<label>-reader`), e.g. `"pyright"`.
    pub thread_label: String,
    /// Framing caps (Content-Length protocols).
    pub limits: FramingLimits,
    /// Longest accepted line for [`WireProtocol::JsonRpcLines`], bytes. Default 64 MiB.
    pub max_line_bytes: usize,
    /// How long queueing one outgoing message may wait when the writer queue (256 messages) is
    /// full because the peer stopped reading: for notifications, replies and
    /// [`RpcConnection::send_request`]. [`RpcConnection::request`] uses its own timeout
    /// instead. Default 10 s.
    pub send_timeout: Duration,
}

impl RpcOptions {
    /// Options with default limits for a peer called `peer_name`, threads labelled
    /// `thread_label`.
    pub fn new(peer_name: impl Into<String>, thread_label: impl Into<String>) -> RpcOptions {
        RpcOptions {
            peer_name: peer_name.into(),
            thread_label: thread_label.into(),
            limits: FramingLimits::default(),
            max_line_bytes: 64 * 1024 * 1024,
            send_timeout: Duration::from_secs(10),
        }
    }
}

/// A JSON-RPC id or DAP `seq`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id (DAP seq is always this).
    Integer(i64),
    /// A string id (JSON-RPC peers may use these for their own requests).
    String(String),
}

impl RequestId {
    /// The id as JSON (`7` or `"abc"`).
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Integer(n) => Value::from(*n),
            RequestId::String(s) => Value::String(s.clone()),
        }
    }
}

impl fmt::Display for RequestId {
    /// `7` for integers, `"abc"` (quoted) for strings, so they cannot be confused.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Integer(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A request from the peer to us (LSP server→client request; DAP reverse request).
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRequest {
    /// JSON-RPC `id`, or DAP `seq`.
    pub id: RequestId,
    /// JSON-RPC `method`, or DAP `command`.
    pub method: String,
    /// JSON-RPC `params`, or DAP `arguments` (`Value::Null` when absent).
    pub params: Value,
}

/// A notification from the peer (JSON-RPC notification; DAP event).
#[derive(Debug, Clone, PartialEq)]
pub struct PeerNotification {
    /// JSON-RPC `method`, or DAP `event`.
    pub method: String,
    /// JSON-RPC `params`, or DAP `body` (`Value::Null` when absent).
    pub params: Value,
}

/// How the peer went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerClosed {
    /// The peer's name.
    pub peer_name: String,
    /// What ended the stream: `"end of stream"`, or the fatal framing / I/O error.
    pub reason: String,
    /// The child's exit status if it had exited when the stream closed (waited up to 500 ms).
    pub exit_status: Option<ExitStatus>,
    /// The child's stderr tail (may be empty; see `StderrTail::text`).
    pub stderr_tail: String,
}

impl fmt::Display for PeerClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} closed its connection ({})", self.peer_name, self.reason)?;
        if let Some(status) = &self.exit_status {
            write!(f, "; process exited with {status}")?;
        }
        if !self.stderr_tail.trim().is_empty() {
            write!(f, "; stderr tail:\n{}", self.stderr_tail.trim_end())?;
        }
        Ok(())
    }
}

/// Something the peer sent that is not a response to one of our requests.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request the owner must answer with [`RpcConnection::respond`].
    Request(PeerRequest),
    /// A notification / event.
    Notification(PeerNotification),
    /// A response whose id matches no pending request (late after a timeout, or duplicated).
    UnmatchedResponse {
        /// The id it answers.
        id: RequestId,
        /// The result, or the error.
        result: Result<Value, ResponseError>,
    },
    /// A recoverable framing problem (junk before a header, a malformed body) that was skipped;
    /// the text says what and quotes the start of the bytes.
    Diagnostic(String),
    /// The peer's stream ended; the last message on the channel.
    Closed(PeerClosed),
}

/// An error answer: JSON-RPC `error` object, or a DAP response with `success: false`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseError {
    /// JSON-RPC error code; for DAP 0.
    pub code: i64,
    /// JSON-RPC `error.message`; DAP `message` (plus `body.error.format` when present).
    pub message: String,
    /// JSON-RPC `error.data`; DAP `body`.
    pub data: Option<Value>,
}

/// The class of an [`RpcError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RpcErrorKind {
    /// No response within the request's budget.
    Timeout,
    /// The peer answered with an error.
    ErrorResponse,
    /// The peer's stream ended or it crashed (before or while waiting).
    PeerClosed,
    /// The message could not be queued for writing within the budget (peer not reading).
    SendTimeout,
}

/// A failed request, written for an LLM: names the peer, the method, the id and the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The class of failure.
    pub kind: RpcErrorKind,
    /// The full message.
    pub message: String,
    /// For [`RpcErrorKind::ErrorResponse`]: the peer's error.
    pub response_error: Option<ResponseError>,
    /// For [`RpcErrorKind::PeerClosed`]: how the peer went away.
    pub closed: Option<PeerClosed>,
}

impl RpcError {
    /// Converts into a [`ToolError`]: `Timeout`/`SendTimeout` → `timeout`, `PeerClosed` →
    /// `unavailable`, `ErrorResponse` → `failed`; details carry the peer's error or exit.
    pub fn to_tool_error(&self) -> ToolError {
        let (kind, hint) = match self.kind {
            RpcErrorKind::Timeout => {
                (ErrorKind::Timeout, "the peer may still be starting or indexing; retry, or call again with a larger timeout")
            }
            RpcErrorKind::SendTimeout => (ErrorKind::Timeout, "the peer is not reading its input; it may be hung — restart it"),
            RpcErrorKind::PeerClosed => {
                (ErrorKind::Unavailable, "the process is gone; read the stderr tail above, fix the cause, and retry (it will be restarted)")
            }
            RpcErrorKind::ErrorResponse => {
                (ErrorKind::Failed, "read the peer's message; fix the arguments or the state it complains about")
            }
        };
        let mut error = ToolError::new(kind, self.message.clone()).with_hint(hint);
        if let Some(response_error) = &self.response_error {
            error = error.with_details(serde_json::json!({
                "code": response_error.code,
                "message": response_error.message,
                "data": response_error.data,
            }));
        } else if let Some(closed) = &self.closed {
            error = error.with_details(serde_json::json!({
                "peer": closed.peer_name,
                "reason": closed.reason,
                "exit_status": closed.exit_status.map(|status| status.to_string()),
                "stderr_tail": closed.stderr_tail,
            }));
        }
        error
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RpcError {}

impl From<RpcError> for ToolError {
    fn from(error: RpcError) -> ToolError {
        error.to_tool_error()
    }
}

/// A request in flight. Wait with [`PendingResponse::wait`] or select on
/// [`PendingResponse::receiver`]; dropping it forgets the request (a late response then
/// arrives as [`Incoming::UnmatchedResponse`]).
#[derive(Debug)]
pub struct PendingResponse {
    id: RequestId,
    method: String,
    receiver: Receiver<Result<Value, RpcError>>,
    sent_at: Instant,
    shared: Arc<Shared<RequestId, Value>>,
}

impl PendingResponse {
    /// The id we gave the request (for `$/cancelRequest`).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The method / command.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The channel that receives exactly one result, for `select!` with a cancel signal.
    pub fn receiver(&self) -> &Receiver<Result<Value, RpcError>> {
        &self.receiver
    }

    /// Waits up to `timeout` for the result. On timeout the pending entry is dropped and the
    /// error names the method, the id, the peer and the budget in ms.
    pub fn wait(self, timeout: Duration) -> Result<Value, RpcError> {
        self.wait_until(Instant::now() + timeout)
    }

    /// Waits until `deadline`; see [`PendingResponse::wait`].
    pub fn wait_until(self, deadline: Instant) -> Result<Value, RpcError> {
        self.shared.wait_for_answer(&self.id, &self.method, &self.receiver, self.sent_at, deadline)
    }
}

/// A live connection to one peer. `Send + Sync`: share it by reference or `Arc` between the
/// owner's actor thread and callers.
pub struct RpcConnection {
    peer_name: String,
    protocol: WireProtocol,
    shared: Arc<Shared<RequestId, Value>>,
    incoming: Receiver<Incoming>,
    outgoing: Option<Sender<Vec<u8>>>,
    send_timeout: Duration,
    next_id: AtomicI64,
    child: Option<Arc<ChildProcess>>,
    reader_stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
    writer: Option<JoinHandle<()>>,
}

impl fmt::Debug for RpcConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RpcConnection").field("peer_name", &self.peer_name).finish_non_exhaustive()
    }
}

impl RpcConnection {
    /// Connects to a spawned child over its stdout (read) and stdin (write), which must both
    /// have been piped and not taken. The connection owns the child: dropping it kills the
    /// group. Errors: `unavailable` when a pipe is missing.
    pub fn over_child(child: ChildProcess, protocol: WireProtocol, options: RpcOptions) -> Result<RpcConnection, ToolError> {
        let (Some(stdout), Some(stdin)) = (child.take_stdout(), child.take_stdin()) else {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("{}: stdin and stdout must both be piped and not taken to connect to it", child.display_name()),
            ));
        };
        let stop = Arc::new(AtomicBool::new(false));
        let reader = PollingReader { inner: stdout, stop: Arc::clone(&stop) };
        RpcConnection::start(Box::new(reader), Box::new(stdin), Some(child), stop, protocol, options)
    }

    /// Connects over arbitrary streams (e.g. a TCP socket to `dlv dap`), optionally owning the
    /// child behind them. Without a child, dropping the connection cannot unblock a reader
    /// stuck in `read`; the reader thread is then detached after 1 s instead of joined.
    pub fn over_streams(
        reader: Box<dyn Read + Send>,
        writer: Box<dyn Write + Send>,
        child: Option<ChildProcess>,
        protocol: WireProtocol,
        options: RpcOptions,
    ) -> Result<RpcConnection, ToolError> {
        RpcConnection::start(reader, writer, child, Arc::new(AtomicBool::new(false)), protocol, options)
    }

    /// The peer's human name.
    pub fn peer_name(&self) -> &str {
        &self.peer_name
    }

    /// The wire protocol.
    pub fn protocol(&self) -> WireProtocol {
        self.protocol
    }

    /// The owned child, if any (pid, stderr tail, exit state).
    pub fn child(&self) -> Option<&ChildProcess> {
        self.child.as_deref()
    }

    /// Requests, notifications, diagnostics and finally [`Incoming::Closed`] from the peer.
    /// Unbounded: the reader never waits on the owner, so the owner must keep draining it.
    pub fn incoming(&self) -> &Receiver<Incoming> {
        &self.incoming
    }

    /// The reason the peer went away, once it has.
    pub fn closed(&self) -> Option<PeerClosed> {
        self.shared.pending.lock().closed.clone()
    }

    /// Sends a request and returns its pending handle. `params` is JSON-RPC `params` (omitted
    /// when null) or DAP `arguments` (`{}` when null). Errors: `PeerClosed`, `SendTimeout`.
    pub fn send_request(&self, method: &str, params: Value) -> Result<PendingResponse, RpcError> {
        self.send_request_within(method, params, self.send_timeout)
    }

    /// Sends a request and waits up to `timeout` (which also bounds queueing the write) for its
    /// result. DAP `success: false` and JSON-RPC `error` come back as `ErrorResponse`.
    pub fn request(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, RpcError> {
        let started = Instant::now();
        let mut pending = self.send_request_within(method, params, timeout)?;
        // The budget reported on timeout is the whole one, queueing included.
        pending.sent_at = started;
        pending.wait_until(started + timeout)
    }

    /// Sends a JSON-RPC notification (queued within `options.send_timeout`). DAP has no client
    /// notifications: on a DAP connection this sends nothing and returns an `ErrorResponse`
    /// error naming the misuse.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), RpcError> {
        if self.protocol == WireProtocol::DapContentLength {
            return Err(RpcError::new(
                RpcErrorKind::ErrorResponse,
                format!("notification `{method}` not sent to {}: DAP has no client notifications", self.peer_name),
            ));
        }
        let mut message = serde_json::json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send_frame(&message, method, self.send_timeout)
    }

    /// Answers a peer request: JSON-RPC `result`/`error`, or a DAP response with
    /// `request_seq = request.id`, `command = request.method`, `success`, `message`, `body`.
    pub fn respond(&self, request: &PeerRequest, result: Result<Value, ResponseError>) -> Result<(), RpcError> {
        let message = match self.protocol {
            WireProtocol::DapContentLength => {
                let request_seq = match &request.id {
                    RequestId::Integer(seq) => *seq,
                    RequestId::String(text) => text.parse().unwrap_or(0),
                };
                let response = match result {
                    Ok(body) => DapResponse {
                        seq: self.next_id(),
                        request_seq,
                        success: true,
                        command: request.method.clone(),
                        message: None,
                        body: Some(body).filter(|body| !body.is_null()),
                    },
                    Err(error) => DapResponse {
                        seq: self.next_id(),
                        request_seq,
                        success: false,
                        command: request.method.clone(),
                        message: Some(error.message),
                        body: error.data,
                    },
                };
                DapMessage::Response(response).to_value()
            }
            WireProtocol::JsonRpcContentLength | WireProtocol::JsonRpcLines => match result {
                Ok(result) => {
                    serde_json::json!({"jsonrpc": "2.0", "id": request.id.to_value(), "result": result})
                }
                Err(error) => {
                    let mut body = serde_json::json!({"code": error.code, "message": error.message});
                    if let Some(data) = error.data {
                        body["data"] = data;
                    }
                    serde_json::json!({"jsonrpc": "2.0", "id": request.id.to_value(), "error": body})
                }
            },
        };
        self.send_frame(&message, &request.method, self.send_timeout)
    }

    /// Graceful close: stops writing (closes the peer's stdin), waits up to `grace` for the
    /// child to exit on its own, then kills its group and joins the threads. Returns the exit
    /// status when known.
    pub fn close(mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        // Stop writing: the writer flushes what is queued, exits, and drops the peer's stdin.
        self.outgoing.take();
        if let Some(writer) = self.writer.take() {
            join_bounded(writer, deadline.saturating_duration_since(Instant::now()));
        }
        let child = self.child.clone()?;
        let status = child.wait_timeout(deadline.saturating_duration_since(Instant::now()));
        drop(self);
        status.or_else(|| child.try_wait())
    }

    fn start(
        reader: Box<dyn Read + Send>,
        writer: Box<dyn Write + Send>,
        child: Option<ChildProcess>,
        reader_stop: Arc<AtomicBool>,
        protocol: WireProtocol,
        options: RpcOptions,
    ) -> Result<RpcConnection, ToolError> {
        let child = child.map(Arc::new);
        let shared = Arc::new(Shared::new(options.peer_name.clone()));
        let (incoming_sender, incoming) = crossbeam_channel::unbounded();
        let (outgoing, outgoing_receiver) = crossbeam_channel::bounded::<Vec<u8>>(WRITER_QUEUE);
        let thread_error = |err: std::io::Error| {
            ToolError::new(ErrorKind::Unavailable, format!("cannot start I/O threads for {}: {err}", options.peer_name))
        };
        let writer = thread::Builder::new()
            .name(format!("runbound-{}-writer", options.thread_label))
            .spawn(move || writer_loop(writer, outgoing_receiver, protocol))
            .map_err(thread_error)?;
        let reader_state = ReaderState {
            shared: Arc::clone(&shared),
            incoming: incoming_sender,
            child: child.clone(),
            protocol,
            limits: options.limits.clone(),
            max_line_bytes: options.max_line_bytes,
            stop: Arc::clone(&reader_stop),
        };
        let reader = thread::Builder::new()
            .name(format!("runbound-{}-reader", options.thread_label))
            .spawn(move || reader_state.run(reader))
            .map_err(thread_error)?;
        Ok(RpcConnection {
            peer_name: options.peer_name,
            protocol,
            shared,
            incoming,
            outgoing: Some(outgoing),
            send_timeout: options.send_timeout,
            next_id: AtomicI64::new(1),
            child,
            reader_stop,
            reader: Some(reader),
            writer: Some(writer),
        })
    }

    fn next_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::SeqCst)
    }

    fn send_request_within(&self, method: &str, params: Value, budget: Duration) -> Result<PendingResponse, RpcError> {
        let seq = self.next_id();
        let id = RequestId::Integer(seq);
        let message = match self.protocol {
            WireProtocol::DapContentLength => DapMessage::Request(DapRequest {
                seq,
                command: method.to_owned(),
                arguments: Some(params).filter(|params| !params.is_null()),
            })
            .to_value(),
            WireProtocol::JsonRpcContentLength | WireProtocol::JsonRpcLines => {
                let mut message = serde_json::json!({"jsonrpc": "2.0", "id": seq, "method": method});
                if !params.is_null() {
                    message["params"] = params;
                }
                message
            }
        };
        let (sender, receiver) = crossbeam_channel::bounded(1);
        {
            let mut table = self.shared.pending.lock();
            if table.closed.is_some() {
                drop(table);
                return Err(self.shared.closed_error(method));
            }
            table.waiting.insert(id.clone(), (method.to_owned(), sender));
        }
        let pending =
            PendingResponse { id, method: method.to_owned(), receiver, sent_at: Instant::now(), shared: Arc::clone(&self.shared) };
        // On failure `pending` drops here and removes its entry.
        self.send_frame(&message, method, budget)?;
        Ok(pending)
    }

    fn send_frame(&self, message: &Value, method: &str, budget: Duration) -> Result<(), RpcError> {
        let Some(outgoing) = &self.outgoing else {
            return Err(self.shared.closed_error(method));
        };
        let body = serde_json::to_vec(message).expect("serializing a serde_json::Value cannot fail");
        match outgoing.send_timeout(body, budget) {
            Ok(()) => Ok(()),
            Err(SendTimeoutError::Timeout(_)) => Err(RpcError::new(
                RpcErrorKind::SendTimeout,
                format!("`{method}` could not be sent to {} within {} ms: it is not reading its input", self.peer_name, budget.as_millis()),
            )),
            Err(SendTimeoutError::Disconnected(_)) => Err(self.shared.closed_error(method)),
        }
    }
}

impl Drop for RpcConnection {
    fn drop(&mut self) {
        self.outgoing.take();
        if let Some(child) = &self.child {
            child.kill_group();
        }
        self.reader_stop.store(true, Ordering::SeqCst);
        if let Some(writer) = self.writer.take() {
            join_bounded(writer, THREAD_JOIN_TIMEOUT);
        }
        if let Some(reader) = self.reader.take() {
            join_bounded(reader, THREAD_JOIN_TIMEOUT);
        }
        // Whatever the reader did not get to (it was stopped, or detached), fail now.
        self.shared.close(PeerClosed {
            peer_name: self.peer_name.clone(),
            reason: "connection closed by runbound".to_owned(),
            exit_status: self.child.as_ref().and_then(|child| child.try_wait()),
            stderr_tail: self.child.as_ref().map(|child| child.stderr_tail()).unwrap_or_default(),
        });
    }
}

impl Drop for PendingResponse {
    fn drop(&mut self) {
        self.shared.pending.lock().waiting.remove(&self.id);
    }
}

impl RpcError {
    pub(crate) fn new(kind: RpcErrorKind, message: String) -> RpcError {
        RpcError { kind, message, response_error: None, closed: None }
    }
}

/// Messages waiting for the writer thread (frames here, `lsp_server::Message`s in
/// `lsp_connection`).
pub(crate) const WRITER_QUEUE: usize = 256;

/// Bound on joining the reader and writer threads on drop.
pub(crate) const THREAD_JOIN_TIMEOUT: Duration = Duration::from_secs(1);

/// How long the reader waits for the child's exit status when its stream ends.
pub(crate) const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);

/// A pending request's method (for messages) and where its answer goes.
pub(crate) type Waiter<Answer> = (String, Sender<Result<Answer, RpcError>>);

/// Requests waiting for their response, keyed by request id, and the close once it happened.
/// Shared by this connection (`Id` = [`RequestId`], answers are JSON values) and the LSP
/// connection (`lsp_server::RequestId`, answers are `lsp_server::Response`s).
pub(crate) struct PendingTable<Id, Answer> {
    pub(crate) waiting: HashMap<Id, Waiter<Answer>>,
    pub(crate) closed: Option<PeerClosed>,
}

/// The state a connection's handle, its pending responses and its reader thread share.
pub(crate) struct Shared<Id, Answer> {
    pub(crate) peer_name: String,
    pub(crate) pending: Mutex<PendingTable<Id, Answer>>,
}

impl<Id, Answer> fmt::Debug for Shared<Id, Answer> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared").field("peer_name", &self.peer_name).finish_non_exhaustive()
    }
}

impl<Id, Answer> Shared<Id, Answer> {
    /// No request pending, not closed.
    pub(crate) fn new(peer_name: String) -> Shared<Id, Answer> {
        Shared { peer_name, pending: Mutex::new(PendingTable { waiting: HashMap::new(), closed: None }) }
    }

    /// Records the close (first one wins) and fails every pending request.
    pub(crate) fn close(&self, closed: PeerClosed) {
        let waiting = {
            let mut table = self.pending.lock();
            if table.closed.is_none() {
                table.closed = Some(closed);
            }
            std::mem::take(&mut table.waiting)
        };
        for (_, (method, sender)) in waiting {
            let _ = sender.send(Err(self.closed_error(&method)));
        }
    }

    /// Waits until `deadline` for the one answer to request `id` (`method`, sent at `sent_at`)
    /// on `receiver`: the wait under both [`PendingResponse::wait_until`] and the LSP
    /// connection's `LspPendingResponse::wait_until`. On timeout the pending entry is dropped
    /// (an answer that raced in meanwhile is still returned).
    ///
    /// # Errors
    /// [`RpcErrorKind::Timeout`] naming the method, the id, the peer and the budget in ms;
    /// [`RpcErrorKind::PeerClosed`] when the peer went away.
    // The same result as the two `wait_until`s it serves.
    #[allow(clippy::result_large_err)]
    pub(crate) fn wait_for_answer(
        &self,
        id: &Id,
        method: &str,
        receiver: &Receiver<Result<Answer, RpcError>>,
        sent_at: Instant,
        deadline: Instant,
    ) -> Result<Answer, RpcError>
    where
        Id: Eq + std::hash::Hash + fmt::Display,
    {
        match receiver.recv_deadline(deadline) {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => {
                self.pending.lock().waiting.remove(id);
                // The response may have raced in between the timeout and the removal.
                if let Ok(result) = receiver.try_recv() {
                    return result;
                }
                let budget = deadline.saturating_duration_since(sent_at).as_millis();
                Err(RpcError::new(
                    RpcErrorKind::Timeout,
                    format!("request `{method}` (id {id}) to {} got no response within {budget} ms", self.peer_name),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.closed_error(method)),
        }
    }

    /// The error a request to a closed (or closing) peer gets.
    pub(crate) fn closed_error(&self, method: &str) -> RpcError {
        let closed = self.pending.lock().closed.clone().unwrap_or_else(|| PeerClosed {
            peer_name: self.peer_name.clone(),
            reason: "connection is shutting down".to_owned(),
            exit_status: None,
            stderr_tail: String::new(),
        });
        RpcError {
            kind: RpcErrorKind::PeerClosed,
            message: format!("request `{method}` failed: {closed}"),
            response_error: None,
            closed: Some(closed),
        }
    }
}

/// Reads `inner` with a 50 ms poll so the reader thread can be stopped even when a process
/// that escaped the group keeps the pipe open.
pub(crate) struct PollingReader {
    pub(crate) inner: ChildStdout,
    pub(crate) stop: Arc<AtomicBool>,
}

impl Read for PollingReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(std::io::Error::other("connection closed by runbound"));
            }
            let mut poll_fd = libc::pollfd { fd: self.inner.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd for an fd owned by `self.inner`.
            let ready = unsafe { libc::poll(&mut poll_fd, 1, 50) };
            if ready < 0 {
                let err = std::io::Error::last_os_error();
                if err.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(err);
            }
            if ready > 0 {
                return self.inner.read(buf);
            }
        }
    }
}

fn writer_loop(mut writer: Box<dyn Write + Send>, outgoing: Receiver<Vec<u8>>, protocol: WireProtocol) {
    for body in outgoing {
        let written = match protocol {
            WireProtocol::JsonRpcContentLength | WireProtocol::DapContentLength => write_content_length_frame(&mut *writer, &body),
            WireProtocol::JsonRpcLines => {
                let mut line = body;
                line.push(b'\n');
                writer.write_all(&line).and_then(|()| writer.flush())
            }
        };
        if written.is_err() {
            // The peer closed its input; the reader reports the close with the exit status.
            return;
        }
    }
}

struct ReaderState {
    shared: Arc<Shared<RequestId, Value>>,
    incoming: Sender<Incoming>,
    child: Option<Arc<ChildProcess>>,
    protocol: WireProtocol,
    limits: FramingLimits,
    max_line_bytes: usize,
    stop: Arc<AtomicBool>,
}

impl ReaderState {
    fn run(self, reader: Box<dyn Read + Send>) {
        let mut reader = BufReader::with_capacity(64 * 1024, reader);
        let reason = loop {
            let mut junk = Vec::new();
            let read = match self.protocol {
                WireProtocol::JsonRpcContentLength | WireProtocol::DapContentLength => {
                    read_content_length_frame_reporting_junk(&mut reader, &self.limits, &mut |bytes| {
                        junk.push(String::from_utf8_lossy(bytes).into_owned())
                    })
                    .and_then(|frame| frame.map(|body| parse_json(&body)).transpose())
                }
                WireProtocol::JsonRpcLines => read_json_line(&mut reader, self.max_line_bytes),
            };
            for line in junk {
                self.deliver(Incoming::Diagnostic(format!(
                    "{} wrote non-protocol output on stdout (skipped): {line:?}",
                    self.shared.peer_name
                )));
            }
            match read {
                Ok(Some(message)) => self.route(message),
                Ok(None) => break "end of stream".to_owned(),
                Err(err) if err.is_recoverable() => {
                    self.deliver(Incoming::Diagnostic(err.with_peer(self.shared.peer_name.clone()).to_string()))
                }
                Err(_) if self.stop.load(Ordering::SeqCst) => {
                    break "connection closed by runbound".to_owned();
                }
                Err(err) => break err.message().to_owned(),
            }
        };
        let (exit_status, stderr_tail) = match &self.child {
            Some(child) => {
                let status = child.wait_timeout(EXIT_STATUS_WAIT);
                child.wait_stderr_drained(Duration::from_millis(200));
                (status, child.stderr_tail())
            }
            None => (None, String::new()),
        };
        let closed = PeerClosed { peer_name: self.shared.peer_name.clone(), reason, exit_status, stderr_tail };
        self.shared.close(closed.clone());
        self.deliver(Incoming::Closed(closed));
    }

    fn deliver(&self, incoming: Incoming) {
        // The owner may be gone; nothing to do then.
        let _ = self.incoming.send(incoming);
    }

    fn route(&self, message: Value) {
        let routed = match self.protocol {
            WireProtocol::DapContentLength => route_dap(message),
            WireProtocol::JsonRpcContentLength | WireProtocol::JsonRpcLines => route_json_rpc(message),
        };
        match routed {
            Ok(Routed::Incoming(incoming)) => self.deliver(incoming),
            Ok(Routed::Response(id, result)) => {
                let waiter = self.shared.pending.lock().waiting.remove(&id);
                match waiter {
                    Some((method, sender)) => {
                        let result = result.map_err(|error| RpcError {
                            kind: RpcErrorKind::ErrorResponse,
                            message: format!("{} answered `{method}` (id {id}) with an error: {}", self.shared.peer_name, error.message),
                            response_error: Some(error),
                            closed: None,
                        });
                        let _ = sender.send(result);
                    }
                    None => self.deliver(Incoming::UnmatchedResponse { id, result }),
                }
            }
            Err(problem) => self.deliver(Incoming::Diagnostic(format!("{}: {problem}", self.shared.peer_name))),
        }
    }
}

enum Routed {
    Incoming(Incoming),
    Response(RequestId, Result<Value, ResponseError>),
}

fn parse_json(body: &[u8]) -> Result<Value, FramingError> {
    serde_json::from_slice(body).map_err(|err| {
        let start = String::from_utf8_lossy(&body[..body.len().min(160)]).into_owned();
        FramingError::new(
            FramingErrorKind::MalformedMessage,
            format!("message body is not valid JSON ({err}); skipped: {start:?} ({} bytes)", body.len()),
        )
    })
}

fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::Number(number) => number.as_i64().map(RequestId::Integer),
        Value::String(text) => Some(RequestId::String(text.clone())),
        _ => None,
    }
}

fn route_json_rpc(mut message: Value) -> Result<Routed, String> {
    let Some(object) = message.as_object_mut() else {
        return Err(format!("JSON-RPC message is not an object (skipped): {message}"));
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    let id = object.get("id").filter(|id| !id.is_null()).cloned();
    if let Some(method) = object.get("method").and_then(Value::as_str).map(str::to_owned) {
        let Some(id) = id else {
            return Ok(Routed::Incoming(Incoming::Notification(PeerNotification { method, params })));
        };
        let Some(id) = request_id(&id) else {
            return Err(format!("request `{method}` with an id that is neither integer nor string: {id}"));
        };
        return Ok(Routed::Incoming(Incoming::Request(PeerRequest { id, method, params })));
    }
    let Some(id) = id.as_ref().and_then(request_id) else {
        return Err(format!("JSON-RPC message without method and without a usable id (skipped): {message}"));
    };
    if let Some(error) = object.get("error").filter(|error| !error.is_null()) {
        let error = ResponseError {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error.get("message").and_then(Value::as_str).unwrap_or("(no message)").to_owned(),
            data: error.get("data").filter(|data| !data.is_null()).cloned(),
        };
        return Ok(Routed::Response(id, Err(error)));
    }
    Ok(Routed::Response(id, Ok(object.remove("result").unwrap_or(Value::Null))))
}

fn route_dap(message: Value) -> Result<Routed, String> {
    match DapMessage::from_value(message).map_err(|err| err.to_string())? {
        DapMessage::Request(request) => Ok(Routed::Incoming(Incoming::Request(PeerRequest {
            id: RequestId::Integer(request.seq),
            method: request.command,
            params: request.arguments.unwrap_or(Value::Null),
        }))),
        DapMessage::Event(event) => Ok(Routed::Incoming(Incoming::Notification(PeerNotification {
            method: event.event,
            params: event.body.unwrap_or(Value::Null),
        }))),
        DapMessage::Response(response) => {
            let id = RequestId::Integer(response.request_seq);
            if response.success {
                return Ok(Routed::Response(id, Ok(response.body.unwrap_or(Value::Null))));
            }
            let mut message = response.message.unwrap_or_else(|| "request failed".to_owned());
            let format = response.body.as_ref().and_then(|body| body.pointer("/error/format")).and_then(Value::as_str);
            if let Some(format) = format {
                message = format!("{message}: {format}");
            }
            Ok(Routed::Response(id, Err(ResponseError { code: 0, message, data: response.body })))
        }
    }
}
