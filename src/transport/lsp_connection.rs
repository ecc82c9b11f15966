//! The connection to one language server, in lsp-server's vocabulary: every message on the wire
//! is an [`lsp_server::Message`] ([`Request`], [`Response`], [`Notification`], ids are
//! [`RequestId`]s), read through our hardened Content-Length framing
//! ([`crate::transport::framing::read_lsp_message_reporting`]: size caps, junk skipped and
//! reported, resync on the next header, off-spec response shapes repaired) and written through
//! [`crate::transport::framing::write_lsp_message`]. lsp-server's own `Connection` reader has
//! neither caps nor resync, so only its message types are used.
//!
//! Shape (the same as [`crate::transport::RpcConnection`], which still carries DAP and the
//! kernels' JSON lines): one named reader thread (`runbound-<label>-reader`) decodes messages
//! and routes responses to the pending request they answer (by [`RequestId`]) and everything
//! else ([`LspIncoming`]) to the owner's channel; one named writer thread
//! (`runbound-<label>-writer`) writes, so a server that stops reading its stdin never blocks a
//! caller past its timeout. When the server's stream ends, every pending request and every
//! later call fails with [`RpcErrorKind::PeerClosed`], carrying the exit status and stderr tail.
//!
//! Dropping the connection closes the writer, kills the child's process group and joins both
//! threads (bounded). The LSP `shutdown`/`exit` handshake is the owner's job before the drop.

// `RpcError` (shared with `rpc`, which returns it the same way) carries the peer's exit and
// stderr tail for the LLM: large by design, returned only on failure.
#![allow(clippy::result_large_err)]

use std::fmt;
use std::io::BufReader;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError, Sender};
use lsp_server::{Message, Notification, Request, RequestId, Response};
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::transport::framing::{read_lsp_message_reporting, write_lsp_message};
use crate::transport::process::{join_bounded, ChildProcess};
use crate::transport::rpc::{
    PeerClosed, PollingReader, RpcError, RpcErrorKind, RpcOptions, Shared, EXIT_STATUS_WAIT, THREAD_JOIN_TIMEOUT, WRITER_QUEUE,
};

/// Something the server sent that is not a response to one of our pending requests.
#[derive(Debug, Clone)]
pub enum LspIncoming {
    /// A server→client request; answer it with [`LspConnection::respond`].
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response whose id matches no pending request (late after a timeout or a cancel).
    /// (The LSP client drops it today; the payload stays for `Debug` and the next consumer.)
    UnmatchedResponse(#[allow(dead_code)] Response),
    /// Something recoverable that was skipped or repaired: non-protocol output on stdout, a body
    /// that is not a JSON-RPC message, an off-spec shape read leniently. The text says what.
    /// (The LSP client drops it today; the text stays for `Debug` and the next consumer.)
    Diagnostic(#[allow(dead_code)] String),
    /// The server's stream ended; the last message on the channel.
    Closed(PeerClosed),
}

/// A request in flight: wait with [`LspPendingResponse::wait_until`]. Dropping it forgets the
/// request (a late response then arrives as [`LspIncoming::UnmatchedResponse`]).
#[derive(Debug)]
pub struct LspPendingResponse {
    id: RequestId,
    method: String,
    receiver: Receiver<Result<Response, RpcError>>,
    sent_at: Instant,
    shared: Arc<Shared<RequestId, Response>>,
}

impl LspPendingResponse {
    /// The id the request went out with (for `$/cancelRequest`).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// Waits until `until` — one slice of a longer wait, e.g. to report progress between slices
    /// — without giving the request up: `Some` with the response (or the closed-connection
    /// error), `None` when the slice ended first; the request then stays pending for the next
    /// slice or [`LspPendingResponse::wait_until`].
    pub fn poll_until(&self, until: Instant) -> Option<Result<Response, RpcError>> {
        match self.receiver.recv_deadline(until) {
            Ok(result) => Some(result),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Err(self.shared.closed_error(&self.method))),
        }
    }

    /// Waits until `deadline` for the response (an error response is an `Ok` [`Response`] whose
    /// `response_result` is `Err`).
    ///
    /// # Errors
    /// [`RpcErrorKind::Timeout`] naming the method, the id, the server and the budget in ms (the
    /// pending entry is dropped); [`RpcErrorKind::PeerClosed`] when the server went away.
    pub fn wait_until(self, deadline: Instant) -> Result<Response, RpcError> {
        self.shared.wait_for_answer(&self.id, &self.method, &self.receiver, self.sent_at, deadline)
    }
}

impl Drop for LspPendingResponse {
    fn drop(&mut self) {
        self.shared.pending.lock().waiting.remove(&self.id);
    }
}

/// A live connection to one language server. `Send + Sync`: share it by `Arc` between the
/// owner's pump thread and callers.
pub struct LspConnection {
    peer_name: String,
    shared: Arc<Shared<RequestId, Response>>,
    incoming: Receiver<LspIncoming>,
    outgoing: Option<Sender<Message>>,
    send_timeout: Duration,
    next_id: AtomicI32,
    child: Arc<ChildProcess>,
    reader_stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
    writer: Option<JoinHandle<()>>,
}

impl fmt::Debug for LspConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LspConnection").field("peer_name", &self.peer_name).finish_non_exhaustive()
    }
}

impl LspConnection {
    /// Connects to a spawned server over its stdout (read) and stdin (write), which must both
    /// have been piped and not taken. The connection owns the child: dropping it kills the group.
    /// `options.limits` caps the framing; `options.send_timeout` bounds queueing notifications
    /// and replies.
    ///
    /// # Errors
    /// `unavailable` when a pipe is missing or the I/O threads cannot start.
    pub fn over_child(child: ChildProcess, options: RpcOptions) -> Result<LspConnection, ToolError> {
        let (Some(stdout), Some(stdin)) = (child.take_stdout(), child.take_stdin()) else {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("{}: stdin and stdout must both be piped and not taken to connect to it", child.display_name()),
            ));
        };
        let child = Arc::new(child);
        let reader_stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared::new(options.peer_name.clone()));
        let (incoming_sender, incoming) = crossbeam_channel::unbounded();
        let (outgoing, outgoing_receiver) = crossbeam_channel::bounded::<Message>(WRITER_QUEUE);
        let thread_error = |err: std::io::Error| {
            ToolError::new(ErrorKind::Unavailable, format!("cannot start I/O threads for {}: {err}", options.peer_name))
        };
        let writer = thread::Builder::new()
            .name(format!("runbound-{}-writer", options.thread_label))
            .spawn(move || {
                let mut stdin = stdin;
                for message in outgoing_receiver {
                    if write_lsp_message(&mut stdin, &message).is_err() {
                        // The server closed its input; the reader reports the close.
                        return;
                    }
                }
            })
            .map_err(thread_error)?;
        let reader_state = ReaderState {
            shared: Arc::clone(&shared),
            incoming: incoming_sender,
            child: Arc::clone(&child),
            limits: options.limits.clone(),
            stop: Arc::clone(&reader_stop),
        };
        let polling = PollingReader { inner: stdout, stop: Arc::clone(&reader_stop) };
        let reader = thread::Builder::new()
            .name(format!("runbound-{}-reader", options.thread_label))
            .spawn(move || reader_state.run(polling))
            .map_err(thread_error)?;
        Ok(LspConnection {
            peer_name: options.peer_name,
            shared,
            incoming,
            outgoing: Some(outgoing),
            send_timeout: options.send_timeout,
            next_id: AtomicI32::new(1),
            child,
            reader_stop,
            reader: Some(reader),
            writer: Some(writer),
        })
    }

    /// The owned child (pid, stderr tail, exit state).
    pub fn child(&self) -> &ChildProcess {
        &self.child
    }

    /// Requests, notifications, diagnostics and finally [`LspIncoming::Closed`] from the server.
    /// Unbounded: the reader never waits on the owner, so the owner must keep draining it.
    pub fn incoming(&self) -> &Receiver<LspIncoming> {
        &self.incoming
    }

    /// How the server went away, once it has.
    pub fn closed(&self) -> Option<PeerClosed> {
        self.shared.pending.lock().closed.clone()
    }

    /// Sends `method` with `params` (omitted when null) as an [`lsp_server::Request`] with the
    /// next integer id (from 1), queueing the write within `budget`.
    ///
    /// # Errors
    /// [`RpcErrorKind::PeerClosed`]; [`RpcErrorKind::SendTimeout`] when the writer queue stayed
    /// full (the server is not reading).
    pub fn send_request(&self, method: &str, params: Value, budget: Duration) -> Result<LspPendingResponse, RpcError> {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::SeqCst));
        let (sender, receiver) = crossbeam_channel::bounded(1);
        {
            let mut table = self.shared.pending.lock();
            if table.closed.is_some() {
                drop(table);
                return Err(self.shared.closed_error(method));
            }
            table.waiting.insert(id.clone(), (method.to_owned(), sender));
        }
        let pending = LspPendingResponse {
            id: id.clone(),
            method: method.to_owned(),
            receiver,
            sent_at: Instant::now(),
            shared: Arc::clone(&self.shared),
        };
        // On failure `pending` drops here and removes its entry.
        self.send(Message::Request(Request { id, method: method.to_owned(), params }), method, budget)?;
        Ok(pending)
    }

    /// Sends a request and waits up to `timeout` (which also bounds queueing the write) for its
    /// response.
    ///
    /// # Errors
    /// As [`LspConnection::send_request`] and [`LspPendingResponse::wait_until`].
    pub fn request(&self, method: &str, params: Value, timeout: Duration) -> Result<Response, RpcError> {
        let started = Instant::now();
        let mut pending = self.send_request(method, params, timeout)?;
        pending.sent_at = started;
        pending.wait_until(started + timeout)
    }

    /// Sends a notification (queued within the connection's send timeout).
    ///
    /// # Errors
    /// [`RpcErrorKind::PeerClosed`], [`RpcErrorKind::SendTimeout`].
    pub fn notify(&self, notification: Notification) -> Result<(), RpcError> {
        let method = notification.method.clone();
        self.send(Message::Notification(notification), &method, self.send_timeout)
    }

    /// Answers a server→client request (`response.id` is the request's id).
    ///
    /// # Errors
    /// [`RpcErrorKind::PeerClosed`], [`RpcErrorKind::SendTimeout`].
    pub fn respond(&self, response: Response) -> Result<(), RpcError> {
        self.send(Message::Response(response), "a response", self.send_timeout)
    }

    fn send(&self, message: Message, method: &str, budget: Duration) -> Result<(), RpcError> {
        let Some(outgoing) = &self.outgoing else {
            return Err(self.shared.closed_error(method));
        };
        match outgoing.send_timeout(message, budget) {
            Ok(()) => Ok(()),
            Err(SendTimeoutError::Timeout(_)) => Err(RpcError::new(
                RpcErrorKind::SendTimeout,
                format!("`{method}` could not be sent to {} within {} ms: it is not reading its input", self.peer_name, budget.as_millis()),
            )),
            Err(SendTimeoutError::Disconnected(_)) => Err(self.shared.closed_error(method)),
        }
    }
}

impl Drop for LspConnection {
    fn drop(&mut self) {
        self.outgoing.take();
        self.child.kill_group();
        self.reader_stop.store(true, Ordering::SeqCst);
        if let Some(writer) = self.writer.take() {
            join_bounded(writer, THREAD_JOIN_TIMEOUT);
        }
        if let Some(reader) = self.reader.take() {
            join_bounded(reader, THREAD_JOIN_TIMEOUT);
        }
        // Whatever the reader did not get to (it was stopped), fail now.
        self.shared.close(PeerClosed {
            peer_name: self.peer_name.clone(),
            reason: "connection closed by runbound".to_owned(),
            exit_status: self.child.try_wait(),
            stderr_tail: self.child.stderr_tail(),
        });
    }
}

struct ReaderState {
    shared: Arc<Shared<RequestId, Response>>,
    incoming: Sender<LspIncoming>,
    child: Arc<ChildProcess>,
    limits: crate::transport::framing::FramingLimits,
    stop: Arc<AtomicBool>,
}

impl ReaderState {
    fn run(self, reader: PollingReader) {
        let mut reader = BufReader::with_capacity(64 * 1024, reader);
        let peer = self.shared.peer_name.clone();
        let reason = loop {
            let mut junk = Vec::new();
            let mut repairs = Vec::new();
            let read = read_lsp_message_reporting(
                &mut reader,
                &self.limits,
                &mut |bytes| {
                    junk.push(format!("{peer} wrote non-protocol output on stdout (skipped): {:?}", String::from_utf8_lossy(bytes)))
                },
                &mut |repair| repairs.push(format!("{peer} sent an off-spec message, read leniently: {repair}")),
            );
            for note in junk.into_iter().chain(repairs) {
                self.deliver(LspIncoming::Diagnostic(note));
            }
            match read {
                Ok(Some(Message::Response(response))) => self.route_response(response),
                Ok(Some(Message::Request(request))) => self.deliver(LspIncoming::Request(request)),
                Ok(Some(Message::Notification(notification))) => self.deliver(LspIncoming::Notification(notification)),
                Ok(None) => break "end of stream".to_owned(),
                Err(err) if err.is_recoverable() => self.deliver(LspIncoming::Diagnostic(err.with_peer(peer.clone()).to_string())),
                Err(_) if self.stop.load(Ordering::SeqCst) => break "connection closed by runbound".to_owned(),
                Err(err) => break err.message().to_owned(),
            }
        };
        let exit_status = self.child.wait_timeout(EXIT_STATUS_WAIT);
        self.child.wait_stderr_drained(Duration::from_millis(200));
        let closed = PeerClosed { peer_name: peer, reason, exit_status, stderr_tail: self.child.stderr_tail() };
        self.shared.close(closed.clone());
        self.deliver(LspIncoming::Closed(closed));
    }

    fn route_response(&self, response: Response) {
        let waiter = self.shared.pending.lock().waiting.remove(&response.id);
        match waiter {
            Some((_, sender)) => {
                let _ = sender.send(Ok(response));
            }
            None => self.deliver(LspIncoming::UnmatchedResponse(response)),
        }
    }

    fn deliver(&self, incoming: LspIncoming) {
        // The owner may be gone; nothing to do then.
        let _ = self.incoming.send(incoming);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<LspConnection>();
    }
}
