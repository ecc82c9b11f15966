//! JSON-RPC 2.0 as MCP uses it, for the stdio host: classifying one input line and writing
//! responses and notifications, with request ids kept as their exact JSON text.
//!
//! Rules (JSON-RPC 2.0 and MCP 2025-06-18):
//! - a message is one JSON object; anything else (invalid JSON, a batch array, a scalar) is
//!   answered with `-32700` (not JSON) or `-32600` and `"id": null`;
//! - `"jsonrpc"` must be exactly `"2.0"`;
//! - a request id is a string or an integer (MCP: "MUST be a string or integer", never null);
//!   an integer of any size is echoed digit for digit (serde_json's `Value` would turn 2^70 into
//!   a float), a string as the same string; any other id is refused with `-32600`;
//! - `"method"` must be a string, and `"params"`, when present and not null, an object or array;
//! - a message without `"method"` that carries `"result"` or `"error"` is a response to one of
//!   our requests and is never answered (also when it is malformed);
//! - every other message with an `"id"` gets exactly one response; a malformed notification
//!   (no id) gets an error response with `"id": null`.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

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

/// A JSON-RPC id as MCP allows it — a string or an integer of any size — kept as canonical
/// JSON text: an integer exactly as received (digits and sign), a string re-encoded by
/// serde_json (so `"a"` and `"\u0061"` are the same id). Two ids are equal when their texts are.
/// Also used for MCP progress tokens (a string or a number).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(String);

impl RequestId {
    /// The id of a request this host sends (elicitation), from a counter.
    pub fn from_integer(value: u64) -> RequestId {
        RequestId(value.to_string())
    }

    /// Reads an id from its raw JSON text.
    ///
    /// # Errors
    /// What the id is instead (`null`, a fraction, an exponent, an object, …), for the
    /// `-32600` message.
    pub fn from_raw(raw: &RawValue) -> Result<RequestId, String> {
        let text = raw.get().trim();
        if text.starts_with('"') {
            let decoded: String = serde_json::from_str(text).map_err(|err| format!("an unreadable string ({err})"))?;
            return Ok(RequestId::from_string(&decoded));
        }
        if is_json_integer(text) {
            return Ok(RequestId(text.to_owned()));
        }
        Err(match text.as_bytes().first() {
            Some(b'n') => "null".to_owned(),
            Some(b't' | b'f') => format!("the boolean {text}"),
            Some(b'{') => "an object".to_owned(),
            Some(b'[') => "an array".to_owned(),
            _ => format!("the number {} (not an integer)", crate::render::cut_chars(text, 40)),
        })
    }

    /// Reads a progress token (MCP: a string or a number; any JSON number is kept as written).
    ///
    /// # Errors
    /// What the token is instead.
    pub fn token_from_raw(raw: &RawValue) -> Result<RequestId, String> {
        let text = raw.get().trim();
        if !text.starts_with('"') && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() && looks_like_number(text) {
            return Ok(RequestId(text.to_owned()));
        }
        RequestId::from_raw(raw)
    }

    /// The id of a string.
    pub fn from_string(text: &str) -> RequestId {
        RequestId(serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned()))
    }

    /// The canonical JSON text (`7`, `"call-7"`); also the key of in-flight calls.
    pub fn as_json(&self) -> &str {
        &self.0
    }

    fn raw(&self) -> Box<RawValue> {
        // The text is a JSON integer or a serde_json-encoded string: always valid JSON.
        RawValue::from_string(self.0.clone()).unwrap_or_else(|_| RawValue::from_string("null".to_owned()).expect("null is JSON"))
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for RequestId {
    /// As its exact JSON text (only serde_json serializers keep it raw).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(serializer)
    }
}

/// `-?(0|[1-9][0-9]*)`: a JSON number without fraction or exponent.
fn is_json_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'))
}

fn looks_like_number(text: &str) -> bool {
    text.bytes().next().is_some_and(|b| b == b'-' || b.is_ascii_digit())
}

/// One input line, classified.
#[derive(Debug)]
pub enum Incoming {
    /// A request: answer it exactly once.
    Request {
        /// Its id.
        id: RequestId,
        /// The method, e.g. `tools/call`.
        method: String,
        /// `params` (`Null` when absent).
        params: Value,
        /// `params._meta.progressToken`, when the host asked for progress.
        progress_token: Option<RequestId>,
    },
    /// A notification: never answered.
    Notification {
        /// The method, e.g. `notifications/cancelled`.
        method: String,
        /// `params` (`Null` when absent). Only `notifications/cancelled` is acted on, through
        /// `cancelled_request`; kept for `Debug` and the next notification handled.
        #[allow(dead_code)]
        params: Value,
        /// For `notifications/cancelled`: `params.requestId`, read exactly.
        cancelled_request: Option<RequestId>,
    },
    /// A response to one of our requests (an elicitation): never answered.
    Response {
        /// The id it answers.
        id: RequestId,
        /// `Ok(result)` or `Err(error)`.
        outcome: Result<Value, Value>,
    },
    /// A response-shaped message that cannot be used (no usable id, both or neither of
    /// `result`/`error`, a wrong `jsonrpc`): dropped, never answered.
    UnusableResponse,
    /// Not a valid message: answer with this error.
    Invalid {
        /// The message's id when it had a valid one, else `None` (answered with `null`).
        id: Option<RequestId>,
        /// `-32700` or `-32600`.
        code: i64,
        /// What was wrong, for the host's log.
        message: String,
    },
}

/// Classifies one input line (its bytes, without the newline). Never panics.
pub fn parse_message(line: &[u8]) -> Incoming {
    let invalid = |id: Option<RequestId>, code: i64, message: String| Incoming::Invalid { id, code, message };
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(err) => {
            return invalid(None, PARSE_ERROR, format!("message skipped: not valid JSON ({err}): {}", quote_start(line)));
        }
    };
    let Value::Object(mut object) = value else {
        let what = if value.is_array() {
            "JSON-RPC batches are not supported by MCP 2025-06-18; send one object per line"
        } else {
            "a message must be a JSON object"
        };
        return invalid(None, INVALID_REQUEST, what.to_owned());
    };
    // The same bytes again, members kept as raw text, for the id's exact form. Duplicate keys
    // resolve as in `Value` (the last one wins).
    let raw_members: HashMap<String, &RawValue> = match serde_json::from_slice(line) {
        Ok(members) => members,
        Err(err) => return invalid(None, PARSE_ERROR, format!("message skipped: {err}")),
    };
    let is_response = !object.contains_key("method") && (object.contains_key("result") || object.contains_key("error"));
    let id = match raw_members.get("id") {
        None => None,
        Some(raw) => match RequestId::from_raw(raw) {
            Ok(id) => Some(id),
            Err(_) if is_response => return Incoming::UnusableResponse,
            Err(what) => {
                return invalid(None, INVALID_REQUEST, format!("the request id must be a string or an integer (MCP), got {what}"));
            }
        },
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        if is_response {
            return Incoming::UnusableResponse;
        }
        let got = object.get("jsonrpc").map_or_else(|| "no \"jsonrpc\" member".to_owned(), |version| format!("\"jsonrpc\": {version}"));
        return invalid(id, INVALID_REQUEST, format!("\"jsonrpc\" must be exactly \"2.0\", got {got}"));
    }
    if is_response {
        let Some(id) = id else { return Incoming::UnusableResponse };
        return match (object.remove("result"), object.remove("error")) {
            (Some(result), None) => Incoming::Response { id, outcome: Ok(result) },
            (None, Some(error)) => Incoming::Response { id, outcome: Err(error) },
            _ => Incoming::UnusableResponse,
        };
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(other) => return invalid(id, INVALID_REQUEST, format!("\"method\" must be a string, got {}", kind_of(&other))),
        None => {
            return invalid(
                id,
                INVALID_REQUEST,
                "a message needs a \"method\" (request or notification) or a \"result\"/\"error\" (response)".to_owned(),
            );
        }
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Value::Null,
        Some(params @ (Value::Object(_) | Value::Array(_))) => params,
        Some(other) => {
            return invalid(id, INVALID_REQUEST, format!("\"params\" must be an object or an array, got {}", kind_of(&other)));
        }
    };
    let raw_params = raw_members.get("params").copied();
    match id {
        Some(id) => {
            let progress_token = raw_params.and_then(|params| raw_member(params, &["_meta", "progressToken"]));
            let progress_token = match progress_token.map(RequestId::token_from_raw) {
                None => None,
                Some(Ok(token)) => Some(token),
                Some(Err(what)) => {
                    return invalid(
                        Some(id),
                        INVALID_REQUEST,
                        format!("params._meta.progressToken must be a string or a number, got {what}"),
                    );
                }
            };
            Incoming::Request { id, method, params, progress_token }
        }
        None => {
            let cancelled_request = match method.as_str() {
                "notifications/cancelled" => {
                    raw_params.and_then(|params| raw_member(params, &["requestId"])).and_then(|raw| RequestId::from_raw(raw).ok())
                }
                _ => None,
            };
            Incoming::Notification { method, params, cancelled_request }
        }
    }
}

/// The raw member at `path` inside the raw object `raw` (objects only; `None` when a step is
/// missing or not an object).
fn raw_member<'a>(raw: &'a RawValue, path: &[&str]) -> Option<&'a RawValue> {
    let mut current = raw;
    for key in path {
        let members: HashMap<String, &'a RawValue> = serde_json::from_str(current.get()).ok()?;
        current = members.get(*key).copied()?;
    }
    Some(current)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The start of a line for an error message (at most 80 characters, lossy UTF-8).
fn quote_start(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(320)]);
    format!("{:?}", crate::render::cut_chars(&text, 80))
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
}

#[derive(Serialize)]
struct ResponseMessage<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RequestId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject<'a>>,
}

/// The line (without newline) of a success response: `{"jsonrpc":"2.0","id":…,"result":…}`.
pub fn result_line(id: &RequestId, result: &Value) -> String {
    let message = ResponseMessage { jsonrpc: "2.0", id: Some(id), result: Some(result), error: None };
    serde_json::to_string(&message)
        .unwrap_or_else(|err| error_line(Some(id), INTERNAL_ERROR, &format!("cannot serialize the result: {err}")))
}

/// The line of an error response; `id` `None` is written as `null`.
pub fn error_line(id: Option<&RequestId>, code: i64, message: &str) -> String {
    let message = ResponseMessage { jsonrpc: "2.0", id, result: None, error: Some(ErrorObject { code, message }) };
    serde_json::to_string(&message).unwrap_or_else(|_| {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":{INTERNAL_ERROR},\"message\":\"cannot serialize an error\"}}}}")
    })
}

#[derive(Serialize)]
struct ProgressParams<'a> {
    #[serde(rename = "progressToken")]
    progress_token: &'a RequestId,
    progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

#[derive(Serialize)]
struct NotificationMessage<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    params: P,
}

/// The line of a `notifications/progress` for `token`.
pub fn progress_line(token: &RequestId, progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let params = ProgressParams { progress_token: token, progress, total, message };
    serde_json::to_string(&NotificationMessage { jsonrpc: "2.0", method: "notifications/progress", params }).unwrap_or_default()
}

/// The line of a notification or request whose params need no exact ids (plain `Value`s).
pub fn value_line(message: &Value) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Incoming {
        parse_message(text.as_bytes())
    }

    #[test]
    fn ids_are_strings_or_integers_of_any_size_and_echo_exactly() {
        let big = "1180591620717411303424"; // 2^70
        let Incoming::Request { id, .. } = parse(&format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#)) else { panic!() };
        assert_eq!(id.as_json(), big);
        assert_eq!(result_line(&id, &serde_json::json!({})), format!(r#"{{"jsonrpc":"2.0","id":{big},"result":{{}}}}"#));
        let Incoming::Request { id, .. } = parse(r#"{"jsonrpc":"2.0","id":"\u0061b","method":"ping"}"#) else { panic!() };
        assert_eq!(id, RequestId::from_string("ab"));
        let Incoming::Request { id, .. } = parse(r#"{"jsonrpc":"2.0","id":-7,"method":"ping"}"#) else { panic!() };
        assert_eq!(id.as_json(), "-7");
        for (id, what) in [
            ("null", "null"),
            ("1.5", "not an integer"),
            ("1e3", "not an integer"),
            ("true", "boolean"),
            ("{}", "object"),
            ("[1]", "array"),
        ] {
            match parse(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)) {
                Incoming::Invalid { id: None, code: INVALID_REQUEST, message } => assert!(message.contains(what), "{id}: {message}"),
                other => panic!("{id}: {other:?}"),
            }
        }
    }

    #[test]
    fn jsonrpc_version_method_and_params_are_checked() {
        for line in
            [r#"{"id":1,"method":"ping"}"#, r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#]
        {
            match parse(line) {
                Incoming::Invalid { id: Some(id), code: INVALID_REQUEST, message } => {
                    assert_eq!(id.as_json(), "1");
                    assert!(message.contains("\"jsonrpc\" must be exactly \"2.0\""), "{message}");
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","id":1,"method":7}"#), Incoming::Invalid { id: Some(_), code: INVALID_REQUEST, .. }));
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#), Incoming::Invalid { code: INVALID_REQUEST, .. }));
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","method":1}"#), Incoming::Invalid { id: None, code: INVALID_REQUEST, .. }));
        assert!(matches!(
            parse(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Incoming::Invalid { id: None, code: INVALID_REQUEST, .. }
        ));
        assert!(matches!(parse("{nope"), Incoming::Invalid { id: None, code: PARSE_ERROR, .. }));
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Incoming::Notification { .. }));
    }

    #[test]
    fn responses_are_never_answered_and_tokens_and_cancellations_are_exact() {
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}"#), Incoming::Response { outcome: Ok(_), .. }));
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}"#), Incoming::UnusableResponse));
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","id":3,"result":1,"error":{}}"#), Incoming::UnusableResponse));
        let big = "1180591620717411303424";
        let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{big}}}}}"#);
        let Incoming::Notification { cancelled_request: Some(id), .. } = parse(&line) else { panic!() };
        assert_eq!(id.as_json(), big);
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","_meta":{{"progressToken":{big}}}}}}}"#);
        let Incoming::Request { progress_token: Some(token), .. } = parse(&line) else { panic!() };
        assert_eq!(
            progress_line(&token, 1.0, None, Some("m")),
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{big},"progress":1.0,"message":"m"}}}}"#
            )
        );
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":null}}}"#;
        assert!(matches!(parse(line), Incoming::Invalid { id: Some(_), .. }));
    }
}
