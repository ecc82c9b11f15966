//! Message framing: Content-Length frames (LSP, DAP), the DAP envelope, and JSON lines.
//!
//! Content-Length (LSP base protocol, DAP base protocol): ASCII header lines `Name: value`
//! ending in `\r\n` (bare `\n` accepted), an empty line, then exactly `Content-Length` bytes of
//! UTF-8 JSON. The reader caps header and body sizes before allocating, skips junk that a peer
//! printed before a header (log lines on stdout) and resynchronises on the next
//! `Content-Length:`, ignores unknown headers (`Content-Type`), and distinguishes a clean EOF
//! between messages (`Ok(None)`) from an EOF inside one (an error).
//!
//! JSON lines (kernel pipe, MCP stdio host): one compact JSON value per `\n`-terminated line;
//! blank lines are skipped; an over-long or malformed line is a *recoverable* error (the line
//! has been consumed; the next call reads the next line).
//!
//! LSP bodies decode into `lsp_server::Message` with serde ([`read_lsp_message`],
//! [`decode_lsp_message`], which also reads the off-spec response shapes it names); outgoing LSP
//! messages go through `lsp_server::Message::write` ([`write_lsp_message`]), which adds
//! `"jsonrpc":"2.0"`. The LSP client's connection ([`crate::transport::lsp_connection`]) reads
//! and writes through these. DAP bodies decode into our own lenient envelope, [`DapMessage`].

use std::fmt;
use std::io::{self, BufRead, Read, Write};

use serde_json::Value;

/// Size caps for `read_content_length_frame`. All sizes in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramingLimits {
    /// Longest single header line (without its line ending). Default 8 KiB.
    pub max_header_line_bytes: usize,
    /// Largest header block (all header lines of one message). Default 64 KiB.
    pub max_header_block_bytes: usize,
    /// Largest accepted body (`Content-Length` value). Default 64 MiB. A larger declared body
    /// is skipped without being stored and reported as `FramingErrorKind::BodyTooLarge`.
    pub max_body_bytes: usize,
    /// Most junk skipped before one header before giving up with
    /// `FramingErrorKind::TooMuchJunk`. Default 1 MiB.
    pub max_junk_bytes: usize,
}

impl Default for FramingLimits {
    fn default() -> FramingLimits {
        FramingLimits {
            max_header_line_bytes: 8 * 1024,
            max_header_block_bytes: 64 * 1024,
            max_body_bytes: 64 * 1024 * 1024,
            max_junk_bytes: 1024 * 1024,
        }
    }
}

/// The class of a [`FramingError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FramingErrorKind {
    /// Reading or writing the stream failed. Not recoverable.
    Io,
    /// The stream ended inside a message (mid-header or mid-body). Not recoverable.
    UnexpectedEof,
    /// A header block without a `Content-Length` header. Recoverable.
    MissingContentLength,
    /// A `Content-Length` value that is not a decimal byte count, or two that differ; or a
    /// header line that is not `Name: value`. Recoverable.
    MalformedHeader,
    /// A header line or header block over its cap. Recoverable.
    HeaderTooLarge,
    /// A declared body over `max_body_bytes` (the body was skipped). Recoverable.
    BodyTooLarge,
    /// More than `max_junk_bytes` of non-header bytes before a header. Recoverable (the junk
    /// is consumed; reading again continues the search).
    TooMuchJunk,
    /// A JSON line over its `max_bytes` cap (the line was consumed). Recoverable.
    LineTooLong,
    /// A body or line that is not valid JSON, or not a valid message envelope. Recoverable.
    MalformedMessage,
}

/// A framing failure. [`FramingError::is_recoverable`] says whether the caller can skip it
/// and keep reading the same stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramingError {
    kind: FramingErrorKind,
    message: String,
    peer: Option<String>,
}

impl FramingError {
    /// A new error of `kind`. `message` says what was wrong with which input.
    pub fn new(kind: FramingErrorKind, message: impl Into<String>) -> FramingError {
        FramingError { kind, message: message.into(), peer: None }
    }

    /// Names the peer (e.g. `"pyright @ /abs/root"`) in the rendered message.
    #[must_use]
    pub fn with_peer(mut self, peer: impl Into<String>) -> FramingError {
        self.peer = Some(peer.into());
        self
    }

    /// The class of failure.
    pub fn kind(&self) -> FramingErrorKind {
        self.kind
    }

    /// What was wrong, without the peer name.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The peer named with [`FramingError::with_peer`], if any.
    pub fn peer(&self) -> Option<&str> {
        self.peer.as_deref()
    }

    /// True when the offending bytes were consumed and the caller can read the next message
    /// from the same stream; false for I/O errors and EOF inside a message (the stream is over).
    pub fn is_recoverable(&self) -> bool {
        !matches!(self.kind, FramingErrorKind::Io | FramingErrorKind::UnexpectedEof)
    }
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.peer {
            Some(peer) => write!(f, "{peer}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for FramingError {}

/// Reads one Content-Length frame and returns its body bytes.
///
/// `Ok(None)`: clean EOF between messages (also after skipped junk). Junk before a header is
/// skipped (see [`read_content_length_frame_reporting_junk`] to see it). Errors: see
/// [`FramingErrorKind`]; recoverable ones leave the stream positioned after the bad input.
#[cfg(test)]
pub fn read_content_length_frame(reader: &mut dyn BufRead, limits: &FramingLimits) -> Result<Option<Vec<u8>>, FramingError> {
    read_content_length_frame_reporting_junk(reader, limits, &mut |_| {})
}

/// Like `read_content_length_frame`, calling `on_junk` with each skipped run of non-header
/// bytes (one line at a time, each cut to at most 1 KiB) so the caller can surface it.
pub fn read_content_length_frame_reporting_junk(
    reader: &mut dyn BufRead,
    limits: &FramingLimits,
    on_junk: &mut dyn FnMut(&[u8]),
) -> Result<Option<Vec<u8>>, FramingError> {
    let mut line = Vec::new();
    let mut junk_bytes: usize = 0;
    // Phase 1: skip junk up to the first header line.
    let first_header = loop {
        let read = read_line_bounded(reader, limits.max_header_line_bytes, &mut line).map_err(io_error)?;
        let (total, terminated) = match read {
            LineRead::Eof => return Ok(None),
            LineRead::Line { terminated } => (line.len(), terminated),
            LineRead::TooLong { total, .. } => {
                on_junk(cut(&line, JUNK_REPORT_BYTES));
                junk_bytes = junk_bytes.saturating_add(total);
                check_junk(junk_bytes, limits)?;
                continue;
            }
        };
        strip_cr(&mut line);
        if line.iter().all(u8::is_ascii_whitespace) {
            if !terminated {
                return Ok(None);
            }
            continue;
        }
        let header_start = header_start(&line);
        let Some(start) = header_start else {
            on_junk(cut(&line, JUNK_REPORT_BYTES));
            junk_bytes = junk_bytes.saturating_add(total);
            check_junk(junk_bytes, limits)?;
            if !terminated {
                return Ok(None);
            }
            continue;
        };
        if start > 0 {
            on_junk(cut(&line[..start], JUNK_REPORT_BYTES));
        }
        if !terminated {
            return Err(eof_in_header(line.len() - start));
        }
        break line[start..].to_vec();
    };

    // Phase 2: the header block, up to the empty line. The first problem is remembered, but
    // the block (and, when its length is known, the body) is consumed so the stream stays in
    // sync for the next call.
    let mut header_bytes = first_header.len();
    let mut content_length: Option<u64> = None;
    let mut problem: Option<FramingError> = None;
    apply_header_line(&first_header, &mut content_length, &mut problem);
    loop {
        let read = read_line_bounded(reader, limits.max_header_line_bytes, &mut line).map_err(io_error)?;
        match read {
            LineRead::Eof => return Err(eof_in_header(header_bytes)),
            LineRead::TooLong { total, terminated } => {
                if !terminated {
                    return Err(eof_in_header(header_bytes.saturating_add(total)));
                }
                header_bytes = header_bytes.saturating_add(total);
                problem.get_or_insert_with(|| {
                    FramingError::new(
                        FramingErrorKind::HeaderTooLarge,
                        format!(
                            "header line of {total} bytes exceeds the {} byte cap: {}",
                            limits.max_header_line_bytes,
                            quote_start(&line)
                        ),
                    )
                });
            }
            LineRead::Line { terminated } => {
                if !terminated {
                    return Err(eof_in_header(header_bytes.saturating_add(line.len())));
                }
                strip_cr(&mut line);
                if line.is_empty() {
                    break;
                }
                header_bytes = header_bytes.saturating_add(line.len());
                apply_header_line(&line, &mut content_length, &mut problem);
            }
        }
        if header_bytes > limits.max_header_block_bytes && problem.is_none() {
            problem = Some(FramingError::new(
                FramingErrorKind::HeaderTooLarge,
                format!("header block exceeds the {} byte cap", limits.max_header_block_bytes),
            ));
        }
    }

    // Phase 3: the body.
    let Some(length) = content_length else {
        return Err(problem.unwrap_or_else(|| {
            FramingError::new(
                FramingErrorKind::MissingContentLength,
                "header block without a Content-Length header; skipped to the next header",
            )
        }));
    };
    if length > limits.max_body_bytes as u64 {
        let skipped = skip_bytes(reader, length).map_err(io_error)?;
        if skipped < length {
            return Err(eof_in_body(skipped, length));
        }
        return Err(problem.unwrap_or_else(|| {
            FramingError::new(
                FramingErrorKind::BodyTooLarge,
                format!("message body of {length} bytes exceeds the {} byte cap; it was skipped", limits.max_body_bytes),
            )
        }));
    }
    let mut body = Vec::new();
    let read = reader.take(length).read_to_end(&mut body).map_err(io_error)?;
    if (read as u64) < length {
        return Err(eof_in_body(read as u64, length));
    }
    match problem {
        Some(problem) => Err(problem),
        None => Ok(Some(body)),
    }
}

/// Writes `Content-Length: <body.len()>\r\n\r\n` then `body`, then flushes.
pub fn write_content_length_frame(writer: &mut dyn Write, body: &[u8]) -> io::Result<()> {
    write!(writer, "Content-Length: {}\r\n\r\n", body.len())?;
    writer.write_all(body)?;
    writer.flush()
}

/// Reads one LSP message: a Content-Length frame decoded into `lsp_server::Message` by
/// [`decode_lsp_message`] (off-spec shapes it knows are repaired). A body that is not a
/// JSON-RPC message is a recoverable [`FramingErrorKind::MalformedMessage`] error quoting the
/// start of the body.
#[cfg(test)]
pub fn read_lsp_message(reader: &mut dyn BufRead, limits: &FramingLimits) -> Result<Option<lsp_server::Message>, FramingError> {
    read_lsp_message_reporting(reader, limits, &mut |_| {}, &mut |_| {})
}

/// Like [`read_lsp_message`], calling `on_junk` with each skipped run of non-header bytes (see
/// [`read_content_length_frame_reporting_junk`]) and `on_repair` with the description of each
/// off-spec shape [`decode_lsp_message`] repaired.
pub fn read_lsp_message_reporting(
    reader: &mut dyn BufRead,
    limits: &FramingLimits,
    on_junk: &mut dyn FnMut(&[u8]),
    on_repair: &mut dyn FnMut(String),
) -> Result<Option<lsp_server::Message>, FramingError> {
    let Some(body) = read_content_length_frame_reporting_junk(reader, limits, on_junk)? else {
        return Ok(None);
    };
    let (message, repair) = decode_lsp_message(&body)?;
    if let Some(repair) = repair {
        on_repair(repair);
    }
    Ok(Some(message))
}

/// Decodes one LSP body into `lsp_server::Message`. The strict decode is tried first; when it
/// fails, shapes that deviate from JSON-RPC 2.0 in ways a client can safely read are repaired
/// and the second value names the repair:
///
/// - a response with neither `result` nor `error` reads as `result: null` (JSON-RPC requires
///   one of them; lsp-server's `Response` refuses the message, and the request it answers would
///   only time out);
/// - a response with both reads as whichever is not `null` (`"error": null` beside a result);
/// - an `error` object without an integer `code` or a string `message` gets code 0 /
///   `(no message)`.
///
/// # Errors
/// `FramingErrorKind::MalformedMessage` (recoverable) quoting the start of the body when it is
/// not JSON, not an object, or no repair makes it a request, response or notification (e.g. an
/// integer `id` outside the i32 range lsp-server's `RequestId` holds).
pub fn decode_lsp_message(body: &[u8]) -> Result<(lsp_server::Message, Option<String>), FramingError> {
    let strict_error = match serde_json::from_slice::<lsp_server::Message>(body) {
        Ok(message) => return Ok((message, None)),
        Err(err) => err,
    };
    let malformed = |err: &dyn fmt::Display| {
        FramingError::new(
            FramingErrorKind::MalformedMessage,
            format!("body is not a JSON-RPC message ({err}); skipped: {}", quote_start(body)),
        )
    };
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(body) else {
        return Err(malformed(&strict_error));
    };
    let mut repairs: Vec<&str> = Vec::new();
    let is_response = !object.contains_key("method") && object.get("id").is_some_and(|id| !id.is_null());
    if is_response {
        let result = object.get("result").cloned();
        let error = object.get("error").cloned();
        match (result, error) {
            (None, None) => {
                object.insert("result".to_owned(), Value::Null);
                repairs.push("a response with neither `result` nor `error` read as `result: null`");
            }
            (Some(_), Some(Value::Null)) => {
                object.remove("error");
                repairs.push("`\"error\": null` beside a result dropped");
            }
            (Some(Value::Null), Some(_)) => {
                object.remove("result");
                repairs.push("`\"result\": null` beside an error dropped");
            }
            _ => (),
        }
        if let Some(Value::Object(error)) = object.get_mut("error") {
            let code = lenient_i64(error.get("code"));
            let code_is_i32 = error.get("code").and_then(Value::as_i64).is_some_and(|code| i32::try_from(code).is_ok());
            if !code_is_i32 {
                error.insert("code".to_owned(), Value::from(i32::try_from(code).unwrap_or(0)));
                repairs.push("an error `code` that is not an i32 read leniently");
            }
            if !error.get("message").is_some_and(Value::is_string) {
                error.insert("message".to_owned(), Value::String("(no message)".to_owned()));
                repairs.push("an error without a string `message` given `(no message)`");
            }
        }
    }
    if repairs.is_empty() {
        return Err(malformed(&strict_error));
    }
    match serde_json::from_value::<lsp_server::Message>(Value::Object(object)) {
        Ok(message) => Ok((message, Some(repairs.join("; ")))),
        Err(_) => Err(malformed(&strict_error)),
    }
}

/// Writes one LSP message through `lsp_server::Message::write` (adds `"jsonrpc":"2.0"`).
pub fn write_lsp_message(mut writer: &mut dyn Write, message: &lsp_server::Message) -> io::Result<()> {
    message.write(&mut writer)?;
    writer.flush()
}

/// Reads one JSON value from a newline-delimited stream.
///
/// `Ok(None)`: clean EOF. Blank (whitespace-only) lines are skipped; a trailing `\r` is
/// ignored; a last line without `\n` before EOF is still parsed. Errors: a line over
/// `max_bytes` → `FramingErrorKind::LineTooLong` (the whole line was consumed without being
/// stored); invalid JSON → `FramingErrorKind::MalformedMessage` quoting the start of the
/// line; both recoverable. I/O failure → `FramingErrorKind::Io`.
pub fn read_json_line(reader: &mut dyn BufRead, max_bytes: usize) -> Result<Option<Value>, FramingError> {
    let Some(line) = read_json_line_bytes(reader, max_bytes)? else { return Ok(None) };
    match serde_json::from_slice::<Value>(&line) {
        Ok(value) => Ok(Some(value)),
        Err(err) => Err(FramingError::new(
            FramingErrorKind::MalformedMessage,
            format!("line is not valid JSON ({err}); skipped: {}", quote_start(&line)),
        )),
    }
}

/// The next non-blank line of a newline-delimited JSON stream as bytes, surrounding ASCII
/// whitespace trimmed, not parsed (for a reader that needs the message's exact text, e.g. to
/// echo a JSON-RPC id beyond 2^53 unchanged). `Ok(None)` at EOF.
///
/// # Errors
/// As [`read_json_line`] for a line longer than `max_bytes` (recoverable: the line is
/// consumed) and for I/O errors; never for the content.
pub fn read_json_line_bytes(reader: &mut dyn BufRead, max_bytes: usize) -> Result<Option<Vec<u8>>, FramingError> {
    let mut line = Vec::new();
    loop {
        match read_line_bounded(reader, max_bytes, &mut line).map_err(io_error)? {
            LineRead::Eof => return Ok(None),
            LineRead::TooLong { total, .. } => {
                return Err(FramingError::new(
                    FramingErrorKind::LineTooLong,
                    format!("JSON line of {total} bytes exceeds the {max_bytes} byte cap; skipped: {}", quote_start(&line)),
                ));
            }
            LineRead::Line { .. } => {}
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        return Ok(Some(trimmed.to_vec()));
    }
}

/// Writes `message` as one compact JSON line (serde_json escapes newlines inside strings),
/// then `\n`, then flushes.
pub fn write_json_line(writer: &mut dyn Write, message: &Value) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(message).map_err(io::Error::other)?;
    bytes.push(b'\n');
    writer.write_all(&bytes)?;
    writer.flush()
}

/// A DAP message envelope (Debug Adapter Protocol "base protocol"). Bodies and arguments stay
/// `serde_json::Value`; typed payload decoding is the caller's business.
#[derive(Debug, Clone, PartialEq)]
pub enum DapMessage {
    /// `"type":"request"`: from us to the adapter, or a reverse request (`runInTerminal`,
    /// `startDebugging`) from the adapter.
    Request(DapRequest),
    /// `"type":"response"`: the answer to the request whose `seq` is `request_seq`.
    Response(DapResponse),
    /// `"type":"event"`: `stopped`, `output`, `initialized`, ….
    Event(DapEvent),
}

/// A DAP request.
#[derive(Debug, Clone, PartialEq)]
pub struct DapRequest {
    /// Sequence number (0 when missing or unparseable on input; may be negative).
    pub seq: i64,
    /// The command, e.g. `"initialize"`.
    pub command: String,
    /// The arguments; `None` when absent or null. Serialized as `{}` when `None`.
    pub arguments: Option<Value>,
}

/// A DAP response.
#[derive(Debug, Clone, PartialEq)]
pub struct DapResponse {
    /// Sequence number of this response.
    pub seq: i64,
    /// The `seq` of the request this answers.
    pub request_seq: i64,
    /// Whether the request succeeded (false when the field is missing or not a boolean).
    pub success: bool,
    /// The command of the request ("" when missing).
    pub command: String,
    /// Error message (a short machine string such as `"cancelled"` or human text), when present.
    pub message: Option<String>,
    /// The response body; `None` when absent or null.
    pub body: Option<Value>,
}

/// A DAP event.
#[derive(Debug, Clone, PartialEq)]
pub struct DapEvent {
    /// Sequence number.
    pub seq: i64,
    /// The event name, e.g. `"stopped"`.
    pub event: String,
    /// The event body; `None` when absent or null.
    pub body: Option<Value>,
}

impl DapMessage {
    /// Parses a DAP body leniently: unknown fields are ignored; `seq`/`request_seq` may be
    /// missing (→ 0), negative, strings of digits or floats (truncated, saturating); a missing
    /// `type` is inferred (`event` field → event, `request_seq` → response, `command` →
    /// request). Errors ([`FramingErrorKind::MalformedMessage`], recoverable): not JSON, not an
    /// object, an unknown `type`, an event without `event`, a request without `command`.
    pub fn from_json_bytes(body: &[u8]) -> Result<DapMessage, FramingError> {
        match serde_json::from_slice::<Value>(body) {
            Ok(value) => DapMessage::from_value(value),
            Err(err) => Err(FramingError::new(
                FramingErrorKind::MalformedMessage,
                format!("DAP body is not valid JSON ({err}); skipped: {}", quote_start(body)),
            )),
        }
    }

    /// Same as [`DapMessage::from_json_bytes`] on an already parsed value.
    pub fn from_value(value: Value) -> Result<DapMessage, FramingError> {
        let malformed = |what: &str, value: &Value| {
            FramingError::new(
                FramingErrorKind::MalformedMessage,
                format!("DAP message {what}; skipped: {}", quote_start(value.to_string().as_bytes())),
            )
        };
        let Value::Object(map) = &value else {
            return Err(malformed("is not a JSON object", &value));
        };
        let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_owned);
        let payload = |key: &str| map.get(key).filter(|v| !v.is_null()).cloned();
        let seq = lenient_i64(map.get("seq"));
        let kind = match map.get("type").and_then(Value::as_str) {
            Some(kind) => kind,
            None if map.contains_key("event") => "event",
            None if map.contains_key("request_seq") => "response",
            None if map.contains_key("command") => "request",
            None => return Err(malformed("has no `type` and no field to infer it from", &value)),
        };
        match kind {
            "request" => {
                let Some(command) = text("command") else {
                    return Err(malformed("is a request without a string `command`", &value));
                };
                Ok(DapMessage::Request(DapRequest { seq, command, arguments: payload("arguments") }))
            }
            "response" => Ok(DapMessage::Response(DapResponse {
                seq,
                request_seq: lenient_i64(map.get("request_seq")),
                success: map.get("success").and_then(Value::as_bool).unwrap_or(false),
                command: text("command").unwrap_or_default(),
                message: text("message"),
                body: payload("body"),
            })),
            "event" => {
                let Some(event) = text("event") else {
                    return Err(malformed("is an event without a string `event`", &value));
                };
                Ok(DapMessage::Event(DapEvent { seq, event, body: payload("body") }))
            }
            _ => Err(malformed("has an unknown `type`", &value)),
        }
    }

    /// The wire JSON: `{"seq","type",…}`. `null`s inside arguments and bodies are removed
    /// recursively (several adapters reject them), and a request without arguments sends `{}`.
    pub fn to_value(&self) -> Value {
        match self {
            DapMessage::Request(request) => serde_json::json!({
                "seq": request.seq,
                "type": "request",
                "command": request.command,
                "arguments": request.arguments.as_ref().map(strip_nulls).unwrap_or_else(|| serde_json::json!({})),
            }),
            DapMessage::Response(response) => {
                let mut value = serde_json::json!({
                    "seq": response.seq,
                    "type": "response",
                    "request_seq": response.request_seq,
                    "success": response.success,
                    "command": response.command,
                });
                if let Some(message) = &response.message {
                    value["message"] = Value::String(message.clone());
                }
                if let Some(body) = &response.body {
                    value["body"] = strip_nulls(body);
                }
                value
            }
            DapMessage::Event(event) => {
                let mut value = serde_json::json!({"seq": event.seq, "type": "event", "event": event.event});
                if let Some(body) = &event.body {
                    value["body"] = strip_nulls(body);
                }
                value
            }
        }
    }

    /// The message's `seq`.
    pub fn seq(&self) -> i64 {
        match self {
            DapMessage::Request(request) => request.seq,
            DapMessage::Response(response) => response.seq,
            DapMessage::Event(event) => event.seq,
        }
    }
}

/// Reads one DAP message: a Content-Length frame decoded with [`DapMessage::from_json_bytes`].
#[cfg(test)]
pub fn read_dap_message(reader: &mut dyn BufRead, limits: &FramingLimits) -> Result<Option<DapMessage>, FramingError> {
    match read_content_length_frame(reader, limits)? {
        None => Ok(None),
        Some(body) => DapMessage::from_json_bytes(&body).map(Some),
    }
}

/// Writes one DAP message as a Content-Length frame of [`DapMessage::to_value`].
#[cfg(test)]
pub fn write_dap_message(writer: &mut dyn Write, message: &DapMessage) -> io::Result<()> {
    let body = serde_json::to_vec(&message.to_value()).map_err(io::Error::other)?;
    write_content_length_frame(writer, &body)
}

/// Most bytes of one junk run handed to `on_junk`.
const JUNK_REPORT_BYTES: usize = 1024;

/// Most characters of offending input quoted in an error message.
const QUOTE_CHARS: usize = 160;

enum LineRead {
    /// A line was read into the buffer (without `\n`); `terminated` is false when EOF ended it.
    Line { terminated: bool },
    /// The line was longer than the cap: the buffer holds its first `max` bytes, the rest was
    /// consumed; `total` is its full length.
    TooLong { total: usize, terminated: bool },
    /// EOF before any byte.
    Eof,
}

/// Reads one `\n`-terminated line storing at most `max` bytes; never allocates more.
fn read_line_bounded(reader: &mut dyn BufRead, max: usize, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    buf.clear();
    let mut total: usize = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            if total == 0 {
                return Ok(LineRead::Eof);
            }
            if total > max {
                return Ok(LineRead::TooLong { total, terminated: false });
            }
            return Ok(LineRead::Line { terminated: false });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let content_len = newline.unwrap_or(available.len());
        let room = max.saturating_sub(buf.len());
        buf.extend_from_slice(&available[..content_len.min(room)]);
        total = total.saturating_add(content_len);
        let consumed = newline.map_or(available.len(), |index| index + 1);
        reader.consume(consumed);
        if newline.is_some() {
            if total > max {
                return Ok(LineRead::TooLong { total, terminated: true });
            }
            return Ok(LineRead::Line { terminated: true });
        }
    }
}

/// Where a header starts in `line`: 0 for a `Content-Length:` or `Content-Type:` line, the
/// offset of `Content-Length:` when junk was glued in front of it, `None` for a junk line.
fn header_start(line: &[u8]) -> Option<usize> {
    if let Some((name, _)) = split_header(line) {
        if name.eq_ignore_ascii_case(b"content-length") || name.eq_ignore_ascii_case(b"content-type") {
            return Some(0);
        }
    }
    const NEEDLE: &[u8] = b"content-length";
    let last = line.len().checked_sub(NEEDLE.len())?;
    (1..=last).find(|&start| {
        line[start..start + NEEDLE.len()].eq_ignore_ascii_case(NEEDLE)
            && line[start + NEEDLE.len()..].iter().find(|b| !matches!(b, b' ' | b'\t')) == Some(&b':')
    })
}

/// Splits `Name: value` into trimmed name and value; `None` without a colon or with an empty
/// or space-containing name.
fn split_header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = line[..colon].trim_ascii();
    if name.is_empty() || name.iter().any(|b| b.is_ascii_whitespace() || !b.is_ascii_graphic()) {
        return None;
    }
    Some((name, line[colon + 1..].trim_ascii()))
}

fn apply_header_line(line: &[u8], content_length: &mut Option<u64>, problem: &mut Option<FramingError>) {
    let Some((name, value)) = split_header(line) else {
        problem.get_or_insert_with(|| {
            FramingError::new(FramingErrorKind::MalformedHeader, format!("header line is not `Name: value`: {}", quote_start(line)))
        });
        return;
    };
    if !name.eq_ignore_ascii_case(b"content-length") {
        return; // Content-Type and unknown headers are ignored.
    }
    let parsed = if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
        std::str::from_utf8(value).ok().and_then(|digits| digits.parse::<u64>().ok())
    } else {
        None
    };
    let Some(length) = parsed else {
        problem.get_or_insert_with(|| {
            FramingError::new(
                FramingErrorKind::MalformedHeader,
                format!("Content-Length value is not a decimal byte count: {}", quote_start(value)),
            )
        });
        return;
    };
    match *content_length {
        Some(previous) if previous != length => {
            problem.get_or_insert_with(|| {
                FramingError::new(
                    FramingErrorKind::MalformedHeader,
                    format!("two different Content-Length headers: {previous} and {length}"),
                )
            });
        }
        _ => *content_length = Some(length),
    }
}

/// Reads and discards up to `length` bytes; returns how many were skipped (less at EOF).
fn skip_bytes(reader: &mut dyn BufRead, length: u64) -> io::Result<u64> {
    io::copy(&mut reader.take(length), &mut io::sink())
}

fn check_junk(junk_bytes: usize, limits: &FramingLimits) -> Result<(), FramingError> {
    if junk_bytes <= limits.max_junk_bytes {
        return Ok(());
    }
    Err(FramingError::new(
        FramingErrorKind::TooMuchJunk,
        format!(
            "more than {} bytes of output that is not Content-Length framing (is the program really a \
             language server / debug adapter speaking on stdout?)",
            limits.max_junk_bytes
        ),
    ))
}

fn eof_in_header(header_bytes: usize) -> FramingError {
    FramingError::new(FramingErrorKind::UnexpectedEof, format!("stream ended inside a message header (after {header_bytes} header bytes)"))
}

fn eof_in_body(read: u64, length: u64) -> FramingError {
    FramingError::new(FramingErrorKind::UnexpectedEof, format!("stream ended inside a message body: got {read} of {length} bytes"))
}

fn io_error(err: io::Error) -> FramingError {
    FramingError::new(FramingErrorKind::Io, format!("read failed: {err}"))
}

fn strip_cr(line: &mut Vec<u8>) {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
}

fn cut(bytes: &[u8], max: usize) -> &[u8] {
    &bytes[..bytes.len().min(max)]
}

/// The start of `bytes` as a quoted, lossily decoded string, with the total length when cut.
fn quote_start(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(cut(bytes, QUOTE_CHARS * 4));
    let mut chars = text.chars();
    let shown: String = chars.by_ref().take(QUOTE_CHARS).collect();
    if chars.next().is_some() || bytes.len() > QUOTE_CHARS * 4 {
        return format!("{shown:?}… ({} bytes)", bytes.len());
    }
    format!("{shown:?}")
}

/// An integer from a lenient JSON field: numbers (floats truncated, saturating), strings of
/// digits; anything else 0.
fn lenient_i64(value: Option<&Value>) -> i64 {
    match value {
        Some(Value::Number(number)) => {
            number.as_i64().or_else(|| number.as_u64().map(|_| i64::MAX)).or_else(|| number.as_f64().map(|float| float as i64)).unwrap_or(0)
        }
        Some(Value::String(text)) => text.trim().parse::<i64>().unwrap_or(0),
        _ => 0,
    }
}

/// `value` with every object member whose value is `null` removed, recursively.
fn strip_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), strip_nulls(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}
