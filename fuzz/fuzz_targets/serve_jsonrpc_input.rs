//! Fuzz target: the `serve` JSON-RPC input path, end to end — arbitrary bytes as stdin lines into
//! one serve session (`runbound::fuzzing::serve_in_memory_with_run`: serve's reader, JSON-RPC
//! parse, routing, method handlers, a worker thread per `tools/call` and its writer loop) over
//! an in-memory reader and output. The run (the file tools over a one-file workspace, write and
//! exec denied) is built once per process and handed to each session's `initialize`, and the
//! writer loop drains the output after the session instead of on a thread of its own: per input
//! this saves a run build and a thread spawn and join, which were most of the time per input
//! that was not serve's parsing and dispatch.
//!
//! Seeds: `fuzz/seeds/serve_jsonrpc_input/` (initialize, tools/list, tools/call, cancellation,
//! logging/setLevel sessions) and the dictionary `fuzz/serve_jsonrpc_input.dict` (method names,
//! member names); run with `-dict=fuzz/serve_jsonrpc_input.dict`.
//!
//! Properties: no panic (libfuzzer-sys aborts on a panic in any thread, call threads included);
//! the session ends cleanly with no call left running; every output line is a well-formed
//! JSON-RPC 2.0 message; and every request gets exactly one response — checked against an
//! expectation computed here from each input line independently of serve's parser:
//! - a line that is not JSON, not an object, or carries an id that is not a string or an
//!   integer → one response with `"id": null`;
//! - an object with an `"id"` (and a method, or neither method nor result/error) → one response
//!   with that id (as canonical JSON text: an integer digit for digit, a string re-encoded);
//! - an object without `"method"` but with `"result"` or `"error"` (a response) → none;
//! - an object with a `"method"` and no `"id"` → none when it is a valid notification
//!   (`"jsonrpc": "2.0"`, a string method, params absent, null, an object or an array), else one
//!   response with `"id": null`.
//!
//! One exception: MCP sends no response for a request the host cancelled, so a request whose id
//! a `notifications/cancelled` line names (`params.requestId`) may go unanswered (at most as
//! many responses as requests with that id, possibly none: the call may finish before the
//! cancellation is read).
#![no_main]

use std::collections::HashMap;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::serve_in_memory_with_run;
use runbound::serve::ServeConfig;
use runbound::{Approval, ApprovalPolicy, Caller, Run};
use serde_json::value::RawValue;
use serde_json::Value;

const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// An empty workspace shared by every run of this process.
fn workspace() -> &'static PathBuf {
    static WORKSPACE: OnceLock<PathBuf> = OnceLock::new();
    WORKSPACE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("runbound-fuzz-serve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the fuzz workspace");
        std::fs::write(dir.join("hello.txt"), "hello\n").expect("write a file to read");
        dir
    })
}

/// The run every session's `initialize` gets, built once per process.
fn run() -> &'static Arc<Run> {
    static RUN: OnceLock<Arc<Run>> = OnceLock::new();
    RUN.get_or_init(|| {
        let builder = Run::builder(workspace()).approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Deny));
        Arc::new(builder.build().expect("build the fuzz run"))
    })
}

/// The canonical text of a valid id (a string or an integer), or `None`.
fn canonical_id(raw: &RawValue) -> Option<String> {
    let text = raw.get().trim();
    if text.starts_with('"') {
        let decoded: String = serde_json::from_str(text).ok()?;
        return serde_json::to_string(&decoded).ok();
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    integer.then(|| text.to_owned())
}

/// The response key one input line must get (`"null"` for a null id), or `None` for none.
fn expected_response(line: &[u8]) -> Option<String> {
    let null = Some("null".to_owned());
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(line) else { return null };
    let raw: HashMap<String, &RawValue> = serde_json::from_slice(line).expect("an object parses as raw members too");
    let has_method = object.contains_key("method");
    if !has_method && (object.contains_key("result") || object.contains_key("error")) {
        return None;
    }
    match raw.get("id") {
        Some(id) => Some(canonical_id(id).unwrap_or_else(|| "null".to_owned())),
        None if has_method => {
            let valid_notification = object.get("jsonrpc") == Some(&Value::String("2.0".to_owned()))
                && object.get("method").is_some_and(Value::is_string)
                && matches!(object.get("params"), None | Some(Value::Null | Value::Object(_) | Value::Array(_)));
            if valid_notification {
                None
            } else {
                null
            }
        }
        None => null,
    }
}

/// The canonical id a line cancels: a notification `notifications/cancelled` (no `"id"`) with a
/// valid `params.requestId`.
fn cancelled_request(line: &[u8]) -> Option<String> {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(line) else { return None };
    if object.contains_key("id") || object.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
        return None;
    }
    let members: HashMap<String, &RawValue> = serde_json::from_slice(line).ok()?;
    let params: HashMap<String, &RawValue> = serde_json::from_str(members.get("params")?.get()).ok()?;
    canonical_id(params.get("requestId")?)
}

fuzz_target!(|data: &[u8]| {
    let mut config = ServeConfig::new(Caller::Main);
    config.max_message_bytes = MAX_MESSAGE_BYTES;
    config.shutdown_grace = Duration::from_secs(60);
    let (summary, output) =
        serve_in_memory_with_run(&mut Cursor::new(data), Arc::clone(run()), &config).expect("in-memory input and output never fail");
    assert!(summary.calls_still_running.is_empty(), "calls outlived the grace: {:?}", summary.calls_still_running);

    let mut expected: Vec<String> = data
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|line| !line.is_empty())
        .filter_map(|line| if line.len() > MAX_MESSAGE_BYTES { Some("null".to_owned()) } else { expected_response(line) })
        .collect();
    let mut answered = Vec::new();
    for line in output.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        let message: Value = serde_json::from_slice(line).unwrap_or_else(|err| panic!("output line is not JSON ({err}): {:?}", String::from_utf8_lossy(line)));
        let shown = String::from_utf8_lossy(line);
        assert_eq!(message["jsonrpc"], "2.0", "{shown}");
        if message.get("method").is_some() {
            assert!(message["method"].is_string(), "{shown}");
            continue;
        }
        let raw: HashMap<String, &RawValue> = serde_json::from_slice(line).expect("raw members");
        let id = raw.get("id").unwrap_or_else(|| panic!("a response without an id: {shown}"));
        let key = if id.get() == "null" { "null".to_owned() } else { canonical_id(id).unwrap_or_else(|| panic!("a response echoes an invalid id: {shown}")) };
        match (message.get("result"), message.get("error")) {
            (Some(_), None) => (),
            (None, Some(error)) => {
                assert!(error["code"].is_i64(), "{shown}");
                assert!(error["message"].is_string(), "{shown}");
            }
            _ => panic!("a response needs exactly one of result and error: {shown}"),
        }
        answered.push(key);
    }
    // Cancelled requests may be unanswered: keep only as many of their expected responses as
    // were sent (never more than expected, which the comparison below still checks).
    let cancelled: std::collections::HashSet<String> =
        data.split(|&b| b == b'\n').map(<[u8]>::trim_ascii).filter(|line| line.len() <= MAX_MESSAGE_BYTES).filter_map(cancelled_request).collect();
    for key in &cancelled {
        let sent = answered.iter().filter(|answered_key| *answered_key == key).count();
        let mut kept = 0;
        expected.retain(|expected_key| {
            if expected_key != key {
                return true;
            }
            kept += 1;
            kept <= sent
        });
    }
    expected.sort();
    answered.sort();
    assert_eq!(answered, expected, "responses (by id) differ from the requests\ninput: {:?}\noutput: {}", String::from_utf8_lossy(data), String::from_utf8_lossy(&output));
});
