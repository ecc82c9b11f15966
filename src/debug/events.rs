//! The session's recorded state and the event thread that keeps it: every DAP event is
//! decoded into its `dap_types` body and recorded here by one named thread, so an
//! `initialized` or `stopped` event is never lost to whichever waiter happens to be pumping.
//!
//! `dap_types` 0.0.1 (the crates.io release) is strict where adapters are not: ids and exit codes
//! are `u64` (delve sends `-1` thread ids and negative breakpoint ids, a signal exit is
//! negative), unknown `presentationHint` values fail a whole body, stop reasons outside the
//! spec lose their text. [`decode_body`] therefore retries after removing the fields that can
//! only hurt (unknown hints, negative ids), and the raw stop reason is kept beside the typed
//! body.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use crossbeam_channel::Receiver;
use dap_types::events::Event as DapEventType;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::debug::session::SessionInner;
use crate::debug::state::{BreakpointSpec, HandleTable, OutputRing, OutputStream};
use crate::transport::process::{self, ProcessIdentity};
use crate::transport::{Incoming, PendingResponse, ResponseError};

/// Where the debuggee is.
#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    /// Handshake not finished.
    Starting,
    /// Running (or its state unknown since the last resume).
    Running,
    /// Stopped, as the last `stopped` event said.
    Stopped(StopInfo),
}

/// A `stopped` event: the adapter's own reason text (not the typed enum, which maps
/// non-standard reasons to `Unknown`), the thread and the adapter's description.
#[derive(Debug, Clone, PartialEq)]
pub struct StopInfo {
    /// The reason as the adapter wrote it (`breakpoint`, `step`, `exception`, `pause`, …).
    pub reason: String,
    /// The stopped thread.
    pub thread_id: Option<u64>,
    /// The adapter's description of the stop (e.g. the exception message).
    pub description: Option<String>,
    /// Additional text (e.g. an exception's message).
    pub text: Option<String>,
    /// Breakpoint ids the stop hit (negative ids, delve's internal ones, are dropped).
    pub hit_breakpoint_ids: Vec<u64>,
}

/// One source breakpoint as the adapter reports it (and as the `breakpoint` events update it).
#[derive(Debug, Clone)]
pub struct BreakpointStatus {
    /// The file (canonical absolute path).
    pub file: PathBuf,
    /// The 1-based line asked for.
    pub requested_line: u64,
    /// The line the adapter bound it to, when reported.
    pub line: Option<u64>,
    /// Whether the adapter verified it.
    pub verified: bool,
    /// The adapter's message (why unverified, …), or why it was not sent.
    pub message: Option<String>,
    /// What was asked for (anchor, condition, hit condition, log message).
    pub spec: BreakpointSpec,
    /// Sent to the adapter (false: an extra it does not support; `message` says which).
    pub sent: bool,
}

/// An `evaluate` request whose answer did not come within the request timeout. It stays in
/// flight (the adapter answers it whenever the expression finishes) and is polled by `status`
/// and the next `evaluate` / resume.
pub(crate) struct UnansweredEvaluate {
    /// The expression sent.
    pub expression: String,
    /// When it was sent.
    pub sent_at: Instant,
    /// The response still to come.
    pub pending: PendingResponse,
}

/// Everything the event thread and the ops share, behind the session's one mutex (crate-private:
/// it holds `dap_types` bodies, which stay inside this module).
pub(crate) struct SessionState {
    /// `initialized` was seen.
    pub initialized: bool,
    /// Where the debuggee is.
    pub run: RunState,
    /// The stop generation: moves on every resume and every stop; handles carry it.
    pub generation: u64,
    /// Counts `stopped` events (a waiter compares it with a snapshot).
    pub stop_events: u64,
    /// The exit code, once `exited` (or delve's console line) said it.
    pub exit_code: Option<i64>,
    /// `terminated` was seen.
    pub terminated: bool,
    /// The connection closed (and why).
    pub closed: Option<String>,
    /// The TTL ended the session (and the message).
    pub expired: Option<String>,
    /// Frame ids and variable references handed out, stamped with their generation.
    pub handles: HandleTable,
    /// Child counts announced for a variables handle (for paging).
    pub child_counts: HashMap<u64, u64>,
    /// Breakpoints the adapter gave an id, by id.
    pub breakpoints: HashMap<u64, BreakpointStatus>,
    /// Breakpoints the adapter gave no id.
    pub unbound_breakpoints: Vec<BreakpointStatus>,
    /// The adapter's own messages (console output, refused reverse requests, framing notes).
    pub adapter_messages: OutputRing,
    /// The adapter's descendants and the debuggee, recorded to be killed at teardown.
    pub debuggee_processes: Vec<ProcessIdentity>,
    /// The last `stackTrace` answer: (stop generation, thread, body).
    pub stack_cache: Option<(u64, u64, dap_types::StackTraceResponse)>,
    /// An `evaluate` that timed out and has not answered since.
    pub unanswered_evaluate: Option<UnansweredEvaluate>,
    /// The debuggee is a Rust program under lldb: lldb's C names of Rust's primitive types
    /// (`unsigned char`, `char32_t`, …) are shown as Rust's (see `render::rust_type_name_from_lldb`).
    pub rust_debuggee: bool,
}

impl Default for SessionState {
    /// The state of a session that has just connected.
    fn default() -> SessionState {
        SessionState {
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
            debuggee_processes: Vec::new(),
            stack_cache: None,
            unanswered_evaluate: None,
            rust_debuggee: false,
        }
    }
}

impl SessionState {
    /// Records a process to be killed at teardown (once).
    pub fn record_process(&mut self, identity: ProcessIdentity) {
        if !self.debuggee_processes.contains(&identity) {
            self.debuggee_processes.push(identity);
        }
    }
}

/// The event thread's body: records events, refuses reverse requests, notes diagnostics,
/// until the connection closes.
pub(crate) fn pump_events(inner: &SessionInner, incoming: &Receiver<Incoming>) {
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

fn is<E: DapEventType>(event: &str) -> bool {
    event == E::EVENT
}

/// Records one event into the session state and wakes the waiters.
fn record_event(inner: &SessionInner, event: &str, body: &Value) {
    use dap_types::events as ev;
    let mut state = inner.state.lock();
    if is::<ev::Initialized>(event) {
        // D9: the body may be absent, `{}` or capabilities; it is never decoded.
        state.initialized = true;
    } else if is::<ev::Stopped>(event) {
        let stopped: Option<dap_types::StoppedEvent> = decode_body(body);
        state.generation += 1;
        state.stop_events += 1;
        state.run = RunState::Stopped(StopInfo {
            // D10: the raw reason, not the typed enum (which maps unknown reasons to Unknown).
            reason: body.get("reason").and_then(Value::as_str).unwrap_or("unknown").to_owned(),
            thread_id: stopped.as_ref().and_then(|s| s.thread_id),
            description: stopped.as_ref().and_then(|s| s.description.clone()),
            text: stopped.as_ref().and_then(|s| s.text.clone()),
            hit_breakpoint_ids: stopped.and_then(|s| s.hit_breakpoint_ids).unwrap_or_default(),
        });
    } else if is::<ev::Continued>(event) {
        if matches!(state.run, RunState::Stopped(_)) {
            state.generation += 1;
            state.run = RunState::Running;
        }
    } else if is::<ev::Exited>(event) {
        // D4: `exitCode` is u64 in dap-types; a negative code (death by signal) is read raw.
        let typed: Option<dap_types::ExitedEvent> = decode_body(body);
        let code = match typed {
            Some(exited) => i64::try_from(exited.exit_code).unwrap_or(i64::MAX),
            None => body.get("exitCode").and_then(Value::as_i64).unwrap_or(0),
        };
        state.exit_code = Some(code);
    } else if is::<ev::Terminated>(event) {
        state.terminated = true;
    } else if is::<ev::Output>(event) {
        let Some(output) = decode_body::<dap_types::OutputEvent>(body) else { return };
        use dap_types::OutputEventCategory as Category;
        match output.category {
            Some(Category::Stdout) => inner.output.lock().push(OutputStream::Stdout, &output.output),
            Some(Category::Stderr) => inner.output.lock().push(OutputStream::Stderr, &output.output),
            Some(Category::Telemetry) => {}
            _ => {
                // delve reports the exit only as console text ("Process 123 has exited with
                // status 4") before `terminated`; it sends no `exited` event.
                if state.exit_code.is_none() {
                    state.exit_code = parse_exit_status_text(&output.output);
                }
                state.adapter_messages.push(OutputStream::Adapter, &output.output);
            }
        }
    } else if is::<ev::Breakpoint>(event) {
        let Some(changed) = decode_body::<dap_types::BreakpointEvent>(body) else { return };
        let Some(id) = changed.breakpoint.id else { return };
        if let Some(status) = state.breakpoints.get_mut(&id) {
            status.verified = changed.breakpoint.verified;
            if let Some(line) = changed.breakpoint.line {
                status.line = Some(line);
            }
            status.message = changed.breakpoint.message;
        }
    } else if is::<ev::Process>(event) {
        let Some(started) = decode_body::<dap_types::ProcessEvent>(body) else { return };
        if let Some(pid) = started.system_process_id.and_then(|p| u32::try_from(p).ok()) {
            if let Some(start_time_ticks) = process::process_start_time_ticks(pid) {
                state.record_process(ProcessIdentity { pid, start_time_ticks });
            }
        }
    } else {
        return;
    }
    drop(state);
    inner.changed.notify_all();
}

/// Decodes a response or event body into its `dap_types` payload. When the strict decode
/// fails, it retries once on a copy without the fields adapters are known to get "wrong" for
/// dap-types 0.0.1: `presentationHint` values outside the spec (D8), negative numbers in id
/// lists and id fields (D5: delve's `-1` thread, its internal breakpoint ids), and missing
/// thread names (D6). `None` when even that fails.
pub fn decode_body<T: DeserializeOwned>(body: &Value) -> Option<T> {
    if let Ok(value) = serde_json::from_value(body.clone()) {
        return Some(value);
    }
    let mut repaired = body.clone();
    repair(&mut repaired);
    serde_json::from_value(repaired).ok()
}

fn repair(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("presentationHint");
            for key in ["threadId", "id", "frameId"] {
                if map.get(key).and_then(Value::as_i64).is_some_and(|n| n < 0) {
                    map.remove(key);
                }
            }
            if let Some(Value::Array(ids)) = map.get_mut("hitBreakpointIds") {
                ids.retain(|id| id.as_u64().is_some());
            }
            if let Some(Value::Array(threads)) = map.get_mut("threads") {
                // A thread without a usable id (delve's `-1` "Current" after exit) is no thread.
                threads.retain(|thread| thread.get("id").and_then(Value::as_u64).is_some());
                for thread in threads.iter_mut() {
                    if let Some(object) = thread.as_object_mut() {
                        object.entry("name").or_insert_with(|| Value::String(String::new()));
                    }
                }
            }
            map.values_mut().for_each(repair);
        }
        Value::Array(items) => items.iter_mut().for_each(repair),
        _ => {}
    }
}

/// The status of `Process 123 has exited with status 4` (delve's console message).
pub fn parse_exit_status_text(text: &str) -> Option<i64> {
    let rest = text.split("has exited with status").nth(1)?;
    let digits: String = rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn delve_exit_text_is_parsed() {
        assert_eq!(parse_exit_status_text("Process 4242 has exited with status 4\n"), Some(4));
        assert_eq!(parse_exit_status_text("Process 1 has exited with status -1"), Some(-1));
        assert_eq!(parse_exit_status_text("unrelated"), None);
    }

    #[test]
    fn lenient_decode_survives_unknown_presentation_hints_and_negative_ids() {
        let body = json!({"stackFrames": [{"id": 1, "name": "f", "line": 3, "column": 1, "presentationHint": "deemphasize-ish"}]});
        let decoded: Option<dap_types::StackTraceResponse> = decode_body(&body);
        assert_eq!(decoded.unwrap().stack_frames[0].line, 3);

        let threads = json!({"threads": [{"id": -1, "name": "Current"}, {"id": 7}]});
        let decoded: dap_types::ThreadsResponse = decode_body(&threads).unwrap();
        assert_eq!(decoded.threads.len(), 1);
        assert_eq!(decoded.threads[0].id, 7);

        let stopped = json!({"reason": "exception", "threadId": 1, "hitBreakpointIds": [-1, 3]});
        let decoded: dap_types::StoppedEvent = decode_body(&stopped).unwrap();
        assert_eq!(decoded.hit_breakpoint_ids, Some(vec![3]));
        assert_eq!(decoded.thread_id, Some(1));
    }
}
