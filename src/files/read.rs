//! The `read` tool: a text file's lines as `N\tline` (cat -n style, 1-based), capped by
//! [`FilesConfig`] with a notice saying what was shown and how to get the rest.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::files::common::{binary_error, is_binary, open_regular_file, BINARY_SNIFF_BYTES};
use crate::files::path::resolve_in_workspace;
use crate::files::FilesConfig;
use crate::registry::{CallContext, ToolAnnotations, ToolDescriptor, ToolOutput};
use crate::render::{cut_chars, cut_marker, display_path, one_or_many, plural};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

pub(crate) fn descriptor() -> ToolDescriptor {
    let defaults = FilesConfig::default();
    ToolDescriptor {
        name: "read".to_owned(),
        title: "Read file".to_owned(),
        description: format!(
            "Read a text file of the workspace. Returns its lines as `N<TAB>text` with 1-based line numbers \
             (the numbers are not part of the file). Pass start_line/end_line (1-based, inclusive) to read a range. \
             One call returns a capped number of lines and bytes (by default {} lines, {} bytes) and cuts lines \
             longer than {} characters; a notice then says which lines were shown and which start_line continues. \
             Directories and binary files are refused with an explanation (a directory error lists its entries).",
            defaults.read_max_lines, defaults.read_max_bytes, defaults.read_max_line_chars
        ),
        tier: Tier::Read,
        input_schema: crate::schema::input_schema::<ReadArguments>(),
        output_schema: Some(crate::schema::output_schema::<ReadOutput>()),
        annotations: ToolAnnotations::READ_ONLY,
        parallel_safe: true,
        default_timeout: Duration::from_secs(30),
    }
}

/// The arguments of `read`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArguments {
    /// File path relative to the workspace root (or absolute inside it).
    path: String,
    /// First line to show, 1-based (default 1).
    #[schemars(range(min = 1))]
    start_line: Option<usize>,
    /// Last line to show, 1-based, inclusive (default: as many as the cap allows).
    #[schemars(range(min = 1))]
    end_line: Option<usize>,
}

/// The `structuredContent` of `read`: which lines the text shows and how to get the rest.
#[derive(Serialize, JsonSchema)]
struct ReadOutput {
    /// The file, relative to the workspace root.
    path: String,
    /// First line shown, 1-based.
    start_line: usize,
    /// Last line shown, 1-based, inclusive (0 for an empty file).
    end_line: usize,
    /// Number of lines shown.
    lines_shown: usize,
    /// Lines in the file; null when counting stopped at the call's deadline.
    total_lines: Option<usize>,
    /// Size of the file in bytes.
    bytes: u64,
    /// Whether lines of the requested range were left out (a cap, or the deadline).
    truncated: bool,
    /// The start_line that continues the reading, when lines were left out.
    next_start_line: Option<usize>,
    /// Lines cut at the per-line character cap (marked `… [cut: …]` in the text).
    long_lines_cut: usize,
    /// The file's line ending.
    line_ending: LineEnding,
}

/// A file's line ending.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    Crlf,
}

/// `read` with `config`, the run's `files` section (captured when the tool is registered).
pub(crate) fn run(ctx: &CallContext<'_>, arguments: Value, config: &FilesConfig) -> Result<ToolOutput, ToolError> {
    let arguments: ReadArguments = ctx.parse_arguments(arguments)?;
    let root = ctx.workspace_root();
    let path = resolve_in_workspace(root, &arguments.path)?;
    let shown = display_path(root, &path);
    let start_line = arguments.start_line.unwrap_or(1).max(1);
    if let Some(end_line) = arguments.end_line {
        if end_line < start_line {
            return Err(ToolError::invalid(format!("end_line {end_line} is before start_line {start_line}"))
                .with_hint("pass end_line >= start_line, or omit end_line"));
        }
    }
    let (file, metadata) = open_regular_file(root, &path, "read")?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader.fill_buf().map_err(|err| ToolError::io("read", Path::new(&shown), &err))?;
    if is_binary(&head[..head.len().min(BINARY_SNIFF_BYTES)]) {
        return Err(binary_error(&shown, metadata.len(), head, "read"));
    }
    if metadata.len() == 0 {
        let result = ToolResult::text(format!("{shown} is empty (0 bytes)")).with_structured(to_structured(&ReadOutput {
            path: shown,
            start_line: 1,
            end_line: 0,
            lines_shown: 0,
            total_lines: Some(0),
            bytes: 0,
            truncated: false,
            next_start_line: None,
            long_lines_cut: 0,
            line_ending: LineEnding::Lf,
        }));
        return Ok(ToolOutput::new(result));
    }
    let window = Window { start_line, end_line: arguments.end_line, config };
    let scan = scan_lines(ctx, &mut reader, &window).map_err(|err| ToolError::io("read", Path::new(&shown), &err))?;
    render(&shown, &window, scan, metadata.len())
}

struct Window<'a> {
    start_line: usize,
    end_line: Option<usize>,
    config: &'a FilesConfig,
}

struct Scan {
    /// `N\tline` strings, in order.
    numbered: Vec<String>,
    /// Last line number shown (0 when none).
    last_shown: usize,
    /// Total lines in the file, when counting finished before the deadline.
    total_lines: Option<usize>,
    /// Lines counted when counting stopped at the deadline.
    counted_lines: usize,
    cut_by: Option<Cap>,
    long_lines_cut: usize,
    lossy_utf8: bool,
    crlf: bool,
}

#[derive(Clone, Copy)]
enum Cap {
    Lines,
    Bytes,
}

fn scan_lines(ctx: &CallContext<'_>, reader: &mut dyn BufRead, window: &Window<'_>) -> std::io::Result<Scan> {
    let config = window.config;
    let max_lines = config.read_max_lines.max(1);
    let last_wanted = window.end_line.unwrap_or(usize::MAX);
    let mut scan = Scan {
        numbered: Vec::new(),
        last_shown: 0,
        total_lines: None,
        counted_lines: 0,
        cut_by: None,
        long_lines_cut: 0,
        lossy_utf8: false,
        crlf: false,
    };
    let mut output_bytes = 0;
    let mut buffer = Vec::new();
    let mut line_number = 0;
    // Bytes kept of one line: enough for the character cap in any UTF-8 text.
    let line_byte_limit = config.read_max_line_chars.saturating_mul(4).saturating_add(2);
    loop {
        buffer.clear();
        let line_bytes = read_line_bounded(reader, &mut buffer, line_byte_limit)?;
        if line_bytes == 0 {
            break;
        }
        line_number += 1;
        if line_number % 65_536 == 0 && ctx.remaining().is_zero() {
            scan.counted_lines = line_number;
            return Ok(scan);
        }
        let wanted = line_number >= window.start_line && line_number <= last_wanted;
        if !wanted || scan.cut_by.is_some() {
            continue;
        }
        if scan.numbered.len() >= max_lines {
            scan.cut_by = Some(Cap::Lines);
            continue;
        }
        let mut content: &[u8] = &buffer;
        if let Some(stripped) = content.strip_suffix(b"\n") {
            content = stripped;
            if let Some(stripped) = content.strip_suffix(b"\r") {
                content = stripped;
                scan.crlf = true;
            }
        }
        let text = String::from_utf8_lossy(content);
        let line_cut_by_bytes = line_bytes > buffer.len();
        scan.lossy_utf8 |= !line_cut_by_bytes && matches!(text, std::borrow::Cow::Owned(_));
        let cut = if line_cut_by_bytes {
            let kept: String = text.chars().take(config.read_max_line_chars).collect();
            let detail = format!("showing {} characters of {line_bytes} bytes", config.read_max_line_chars);
            format!("{kept}{}", cut_marker(&detail))
        } else {
            cut_chars(&text, config.read_max_line_chars)
        };
        if cut.len() != text.len() {
            scan.long_lines_cut += 1;
        }
        let numbered = format!("{line_number}\t{cut}");
        if output_bytes + numbered.len() + 1 > config.read_max_bytes && !scan.numbered.is_empty() {
            scan.cut_by = Some(Cap::Bytes);
            continue;
        }
        output_bytes += numbered.len() + 1;
        scan.numbered.push(numbered);
        scan.last_shown = line_number;
    }
    scan.total_lines = Some(line_number);
    Ok(scan)
}

/// Reads one line (through `\n`) keeping at most `limit` bytes of it in `buffer` and skipping
/// the rest. Returns the line's full length in bytes (0 at end of file).
fn read_line_bounded(reader: &mut dyn BufRead, buffer: &mut Vec<u8>, limit: usize) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, ended) = match available.iter().position(|&byte| byte == b'\n') {
            Some(newline) => (&available[..=newline], true),
            None => (available, false),
        };
        let keep = chunk.len().min(limit.saturating_sub(buffer.len()));
        buffer.extend_from_slice(&chunk[..keep]);
        let consumed = chunk.len();
        total += consumed;
        reader.consume(consumed);
        if ended {
            return Ok(total);
        }
    }
}

fn render(shown: &str, window: &Window<'_>, scan: Scan, bytes: u64) -> Result<ToolOutput, ToolError> {
    let config = window.config;
    let start_line = window.start_line;
    if scan.numbered.is_empty() {
        let total = scan.total_lines.map_or_else(|| format!("more than {}", scan.counted_lines), |n| n.to_string());
        return Err(ToolError::new(
            ErrorKind::InvalidArguments,
            format!("start_line {start_line} is past the end of {shown} ({total} lines)"),
        )
        .with_hint("read from start_line 1, or a start_line within the file"));
    }
    let mut notices = Vec::new();
    let shown_count = scan.numbered.len();
    let next_start_line = match scan.cut_by {
        Some(_) => Some(scan.last_shown + 1),
        None if scan.total_lines.is_none() => Some(scan.last_shown + 1),
        None => None,
    };
    let total_text = scan.total_lines.map_or_else(|| format!("more than {}", scan.counted_lines), |n| n.to_string());
    match scan.cut_by {
        Some(cap) => {
            let reason = match cap {
                Cap::Lines => format!("read returns at most {} lines per call", config.read_max_lines),
                Cap::Bytes => format!("read returns at most {} bytes per call", config.read_max_bytes),
            };
            let wanted_total = match (window.end_line, scan.total_lines) {
                (Some(end), Some(total)) => end.min(total) + 1 - start_line,
                (None, Some(total)) => total + 1 - start_line,
                _ => shown_count + 1,
            };
            let requested = if window.end_line.is_some() || start_line > 1 {
                format!("requested lines {start_line}-{}", window.end_line.map_or(total_text.clone(), |end| end.to_string()))
            } else {
                "lines".to_owned()
            };
            notices.push(format!(
                "showing {shown_count} of {wanted_total} {requested} (lines {start_line}-{} of {total_text} in {shown}): {reason}; \
                 continue with start_line {}",
                scan.last_shown,
                scan.last_shown + 1
            ));
        }
        None if scan.total_lines.is_none() => notices.push(format!(
            "stopped counting lines at the call's deadline: {shown} has more than {} lines; continue with start_line {}",
            scan.counted_lines,
            scan.last_shown + 1
        )),
        None => {
            let total = scan.total_lines.unwrap_or(scan.last_shown);
            if start_line > 1 || scan.last_shown < total {
                notices.push(format!("showing lines {start_line}-{} of {total} in {shown}", scan.last_shown));
            }
            if let Some(end_line) = window.end_line.filter(|&end| end > total) {
                notices.push(format!("end_line {end_line} is past the end of the file ({total} lines)"));
            }
        }
    }
    if scan.long_lines_cut > 0 {
        notices.push(format!(
            "{} longer than {} characters {} cut (marked `… [cut: …]`)",
            plural(scan.long_lines_cut, "line"),
            config.read_max_line_chars,
            one_or_many(scan.long_lines_cut, "was", "were")
        ));
    }
    if scan.lossy_utf8 {
        notices.push("the file is not valid UTF-8: invalid bytes are shown as \u{FFFD}".to_owned());
    }
    let truncated = scan.cut_by.is_some() || scan.total_lines.is_none();
    let mut result = ToolResult::text(scan.numbered.join("\n")).with_structured(to_structured(&ReadOutput {
        path: shown.to_owned(),
        start_line,
        end_line: scan.last_shown,
        lines_shown: shown_count,
        total_lines: scan.total_lines,
        bytes,
        truncated,
        next_start_line,
        long_lines_cut: scan.long_lines_cut,
        line_ending: if scan.crlf { LineEnding::Crlf } else { LineEnding::Lf },
    }));
    if !notices.is_empty() {
        result.push_text(format!("[{}]", notices.join("; ")));
    }
    Ok(ToolOutput::new(result))
}
