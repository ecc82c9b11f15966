//! Text for the model: every typed result of the session and the supervisor becomes text
//! here: `file:line` with the source line, `name: type = value` variables, stop outcomes,
//! breakpoint statuses, durations, exit codes. Paths and cuts use the crate's one convention
//! ([`crate::render`]).

use std::fmt::Write as _;
use std::path::Path;

use crate::debug::adapters::{AdapterAvailability, AdapterId};
use crate::debug::events::{BreakpointStatus, RunState, StopInfo};
use crate::debug::session::{
    ConfigurationNote, DebuggeeKilledOnRequest, EvaluatePoll, EvaluateReport, ExceptionFiltersReport, FrameInfo, FunctionBreakpointStatus,
    InlineChildren, LaunchReport, OutputSnapshot, ResumeReport, ScopeInfo, SessionEnd, SessionStatus, SessionSummary, SessionTarget,
    StackReport, StopOutcome, TeardownReport, ThreadInfo, VariableInfo, VariablesPage, WaitReport,
};
use crate::debug::state::{resolve_breakpoints, BreakpointAnchor, BreakpointSpec, BreakpointStore};
pub use crate::render::{cut_chars, cut_middle, display_path};

/// At most this many characters of a variable or evaluate value are shown (docs/contract.md, `debug` ops).
pub const MAX_VALUE_CHARS: usize = 400;
/// At most this many frames are requested and shown (`stackTrace {levels: 30}`).
pub const MAX_STACK_FRAMES: u64 = 30;
/// At most this many children are requested and shown (`variables {start, count: 50}`).
pub const MAX_VARIABLES: u64 = 50;
/// At most this many characters of a source line are quoted.
const MAX_SOURCE_LINE_CHARS: usize = 200;

/// The text of 1-based `line` of `path`, trimmed and cut; `None` when unreadable or past EOF.
/// A workspace file is read beneath `workspace_root` with no symlink followed; a file outside it
/// only when it is dependency code under a root `lsp::listing` knows (the project
/// interpreter's site-packages, the Python standard library, toolchain sysroots, module caches,
/// system headers), read beneath that root — the rule `lsp` answers quote by. Other outside
/// paths are named, not quoted.
pub fn source_line(workspace_root: &Path, path: &Path, line: u64) -> Option<String> {
    let text = if path.starts_with(workspace_root) {
        crate::files::read_workspace_file_to_string(workspace_root, path).ok()?
    } else {
        let listed = crate::lsp::listing::ListedPath::new(workspace_root, path);
        crate::files::read_dependency_file_to_string(listed.origin_root.as_deref()?, path).ok()?
    };
    let index = usize::try_from(line.checked_sub(1)?).ok()?;
    let raw = text.lines().nth(index)?;
    Some(cut_chars(raw.trim(), MAX_SOURCE_LINE_CHARS))
}

/// An exit code as `adapter`'s `exited` event gives it, with the signal spelled out when the
/// code encodes a death by signal, in one spelling for every adapter: certainly for a negative
/// code (`-9` → `"-9 (killed by SIGKILL)"`); as a likelihood, with the adapter's encoding, for
/// debugpy's `256 − N` (`247` → `"247 (likely killed by SIGKILL: debugpy reports a death by signal
/// N as 256 − N)"`), lldb's `N` for SIGKILL, the one fatal signal lldb cannot stop on first (`9` →
/// `"9 (likely killed by SIGKILL: lldb reports a death by signal N as exit code N)"`) and the shell's `128 + N` (`137`), since a program may also exit
/// with those numbers. Other codes are shown as they are.
pub fn exit_code(code: i64, adapter: AdapterId) -> String {
    use nix::sys::signal::Signal;
    let (number, certain, encoding) = match (code, adapter) {
        (-64..=-1, _) => (-code, true, None),
        (193..=255, AdapterId::Debugpy) => (256 - code, false, Some("debugpy reports a death by signal N as 256 − N")),
        // lldb stops the program on the other fatal signals (SIGSEGV, SIGABRT, …) before it
        // dies: an exit with their number is a plain exit; SIGKILL cannot be stopped on.
        (9, AdapterId::Lldb) => (code, false, Some("lldb reports a death by signal N as exit code N")),
        (129..=192, _) => (code - 128, false, Some("a shell reports a death by signal N as 128 + N")),
        (193..=255, _) => (256 - code, false, None),
        _ => return code.to_string(),
    };
    // Deaths worth naming; SIGINT and SIGHUP only when certain (as encoded codes they would be
    // 254 and 255, or 1 and 2: common plain exit codes).
    let signal = i32::try_from(number).ok().and_then(|number| Signal::try_from(number).ok()).filter(|signal| {
        matches!(
            signal,
            Signal::SIGKILL | Signal::SIGTERM | Signal::SIGSEGV | Signal::SIGABRT | Signal::SIGBUS | Signal::SIGFPE | Signal::SIGILL
        ) || (certain && matches!(signal, Signal::SIGINT | Signal::SIGHUP))
    });
    match (signal, certain, encoding) {
        (Some(signal), true, _) => format!("{code} (killed by {signal})"),
        (Some(signal), false, Some(encoding)) => format!("{code} (likely killed by {signal}: {encoding})"),
        (Some(signal), false, None) => format!("{code} (likely killed by {signal})"),
        (None, _, _) => code.to_string(),
    }
}

/// One variable as `name: type = value` (type omitted when unknown), value cut at
/// [`MAX_VALUE_CHARS`], followed by `(ref N, K children)` when it can be expanded.
pub fn variable_line(name: &str, type_name: Option<&str>, value: &str, handle: Option<u64>, children: Option<u64>) -> String {
    let mut line = String::from(name);
    if let Some(type_name) = type_name.filter(|t| !t.is_empty()) {
        line.push_str(": ");
        line.push_str(type_name);
    }
    line.push_str(" = ");
    line.push_str(&cut_chars(value, MAX_VALUE_CHARS));
    if let Some(handle) = handle {
        match children {
            Some(count) => line.push_str(&format!("  (reference {handle}, {count} children)")),
            None => line.push_str(&format!("  (reference {handle})")),
        }
    }
    line
}

/// lldb's C names of Rust's primitive types, in the order they are replaced (longest first).
/// `unsigned long` / `long` are both `u64`/`usize` (`i64`/`isize`) in Rust's debuginfo as lldb
/// reads it, so both names are given.
const LLDB_RUST_PRIMITIVE_NAMES: [(&str, &str); 15] = [
    ("unsigned __int128", "u128"),
    ("__int128", "i128"),
    ("unsigned char", "u8"),
    ("signed char", "i8"),
    ("unsigned short", "u16"),
    ("unsigned int", "u32"),
    ("unsigned long", "u64/usize"),
    ("char32_t", "char"),
    ("char", "i8"),
    ("short", "i16"),
    ("int", "i32"),
    ("long", "i64/isize"),
    ("float", "f32"),
    ("double", "f64"),
    ("_Bool", "bool"),
];

/// A type name lldb gives a Rust value, with the C names of Rust's primitive types replaced by
/// Rust's (`unsigned char` → `u8`, `char32_t` → `char`, `unsigned long` → `u64/usize`, …, also
/// inside generics: `Vec<unsigned char, Global>` → `Vec<u8, Global>`) and a trailing C array
/// `T[N]` written `[T; N]`. Path segments (`a::int::B`) are left alone.
pub fn rust_type_name_from_lldb(type_name: &str) -> String {
    if let Some(open) = type_name.rfind('[') {
        let (element, bracket) = type_name.split_at(open);
        if let Some(length) = bracket.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
            if !element.trim().is_empty() && !length.is_empty() && length.bytes().all(|b| b.is_ascii_digit()) {
                return format!("[{}; {length}]", rust_type_name_from_lldb(element.trim_end()));
            }
        }
    }
    let mut out = String::with_capacity(type_name.len());
    let mut rest = type_name;
    'scan: while !rest.is_empty() {
        let at_word_start = !out.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
        if at_word_start {
            for (c_name, rust_name) in LLDB_RUST_PRIMITIVE_NAMES {
                if let Some(after) = rest.strip_prefix(c_name) {
                    if !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                        out.push_str(rust_name);
                        rest = after;
                        continue 'scan;
                    }
                }
            }
        }
        let mut chars = rest.chars();
        let first = chars.next().unwrap_or_default();
        out.push(first);
        rest = chars.as_str();
    }
    out
}

/// A value lldb prints for a Rust program with its `char32_t` renderings
/// (`U+0x0000007a U+0x0000007a U'z'`, `U+0x0000007a U'z'`) written as Rust's `'z'`, wherever they
/// occur (a struct's or a vector's inline value too).
pub fn rust_chars_from_lldb(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("U+0x") {
        out.push_str(&rest[..start]);
        let mut cursor = &rest[start..];
        // One or more `U+0x` + 8 hex digits, separated by single spaces, then ` U'…'`.
        let mut matched_codes = 0;
        while let Some(code) = cursor.strip_prefix("U+0x") {
            if code.len() >= 8 && code.as_bytes()[..8].iter().all(u8::is_ascii_hexdigit) {
                cursor = code[8..].strip_prefix(' ').unwrap_or(&code[8..]);
                matched_codes += 1;
            } else {
                break;
            }
        }
        let quoted = cursor.strip_prefix("U'").and_then(|inner| {
            let mut chars = inner.char_indices();
            let (_, first) = chars.next()?;
            let end = if first == '\\' { inner[1..].find('\'').map(|i| i + 1)? } else { first.len_utf8() };
            inner[end..].starts_with('\'').then(|| (&inner[..end], &inner[end + 1..]))
        });
        match (matched_codes, quoted) {
            (1.., Some((character, after))) => {
                out.push('\'');
                out.push_str(character);
                out.push('\'');
                rest = after;
            }
            _ => {
                out.push_str("U+0x");
                rest = &rest[start + 4..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A duration as people say it: `30 min`, `1 min 30 s`, `12 s`, `300 ms`.
pub fn format_duration(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 60 && seconds.is_multiple_of(60) {
        format!("{} min", seconds / 60)
    } else if seconds >= 60 {
        format!("{} min {} s", seconds / 60, seconds % 60)
    } else if seconds >= 1 {
        format!("{seconds} s")
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// 1-based numbers joined with `, `; `none (cleared)` when empty.
pub fn join_numbers(numbers: &[u64]) -> String {
    if numbers.is_empty() {
        return "none (cleared)".to_owned();
    }
    numbers.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// `debugpy session 1 on app.py (running for 3 s, TTL ends in 29 min 57 s)`.
pub fn session_summary(summary: &SessionSummary) -> String {
    format!(
        "{} (running for {}, TTL ends in {})",
        summary.description,
        format_duration(summary.age),
        format_duration(summary.ttl.saturating_sub(summary.age))
    )
}

/// Why a session ended, as one clause.
pub fn session_end(end: &SessionEnd) -> String {
    match end {
        SessionEnd::Expired(message) => message.clone(),
        SessionEnd::AdapterGone(why) => format!("the debug adapter went away: {why}"),
        SessionEnd::ProgramEnded(Some(code), adapter) => format!("the program exited with code {}", exit_code(*code, *adapter)),
        SessionEnd::ProgramEnded(None, _) => "the program terminated".to_owned(),
    }
}

/// What teardown did: `disconnected with terminateDebuggee, adapter exited (reason)`, then how
/// the program ended. A program that was alive when runbound asked the adapter to end it is
/// said the same way for every adapter — `the program was killed by SIGKILL, sent by debugpy
/// because runbound's teardown asked it to end the program (disconnect with
/// terminateDebuggee); debugpy reports that death as exit code 247 (256 − 9)` — since debugpy
/// (247), lldb-dap (9) and delve (no code) each spell the same kill differently.
pub fn teardown(report: &TeardownReport) -> String {
    let mut text = format!("{} ({})", report.steps.join(", "), report.reason);
    if let Some(killed) = &report.killed_on_request {
        let _ = write!(text, "; {}", killed_on_request(killed));
    } else if let Some(code) = report.late_exit_code {
        let _ = write!(text, "; the program exited with code {}", exit_code(code, report.adapter));
    }
    text
}

/// How `adapter` reports a death by SIGKILL as an exit code, for [`teardown`]: the code and
/// the encoding in words; `None` when the adapter reports no code for it.
fn sigkill_exit_code(adapter: AdapterId) -> Option<(i64, &'static str)> {
    match adapter {
        // debugpy's launcher masks Popen's negative return code: `code &= 0xFF`.
        AdapterId::Debugpy => Some((247, "256 − 9: debugpy reports a death by signal N as 256 − N")),
        // lldb reports a death by signal N as exit status N (`exited with status = 9`).
        AdapterId::Lldb => Some((9, "lldb reports a death by signal N as exit code N")),
        AdapterId::Delve | AdapterId::Dart => None,
    }
}

fn killed_on_request(killed: &DebuggeeKilledOnRequest) -> String {
    let adapter = killed.adapter.name();
    let expected = sigkill_exit_code(killed.adapter);
    match killed.reported_exit_code {
        // The program ended on its own between runbound's request and the adapter's kill.
        Some(code) if expected.is_none_or(|(sigkill, _)| sigkill != code) && code != -9 && code != 137 => {
            format!("the program exited with code {} while runbound's teardown was ending it", exit_code(code, killed.adapter))
        }
        reported => {
            let mut text = format!(
                "the program was killed by SIGKILL, sent by {adapter} because runbound's teardown asked it to end the program \
                 (disconnect with terminateDebuggee)"
            );
            match (reported, expected) {
                (Some(code), Some((sigkill, encoding))) if code == sigkill => {
                    let _ = write!(text, "; {adapter} reports that death as exit code {code} ({encoding})");
                }
                (Some(code), _) => {
                    let _ = write!(text, "; {adapter} reports that death as exit code {code}");
                }
                (None, _) => {
                    let _ = write!(text, "; {adapter} reported no exit code for it");
                }
            }
            text
        }
    }
}

/// One frame: `#0 app.py:13 in main  [frame_id 3]` and, with `quote`, the source line.
pub fn frame_line(frame: &FrameInfo, index: usize, workspace_root: &Path, quote: bool) -> String {
    let line = frame.line;
    let location = match (&frame.path, &frame.source_name) {
        (Some(path), _) => {
            let shown = display_path(workspace_root, path);
            match shown.strip_suffix(crate::render::OUTSIDE_WORKSPACE) {
                Some(outside) => format!("{outside}:{line}{}", crate::render::OUTSIDE_WORKSPACE),
                None => format!("{shown}:{line}"),
            }
        }
        (None, Some(name)) => format!("{name}:{line} (no source path)"),
        (None, None) => "(no source)".to_owned(),
    };
    let mut text = format!("#{index} {location} in {}  [frame_id {}]", tidy_frame_name(&frame.name), frame.handle);
    if quote {
        if let Some(source) = frame.path.as_deref().and_then(|p| source_line(workspace_root, p, line)) {
            let _ = write!(text, "\n    {line} | {source}");
        }
    }
    text
}

/// A frame name as people write it: Rust's legacy-mangling leftovers lldb shows
/// (`rs1::area::h3807401666103368`, `_$u7b$$u7b$closure$u7d$$u7d$`, `Either$LT$L$C$R$GT$`) are
/// decoded and the hash suffix dropped (`rs1::area`, `{{closure}}`, `Either<L,R>`); other names
/// are unchanged.
pub fn tidy_frame_name(name: &str) -> String {
    let mut text = name.to_owned();
    if text.contains('$') {
        text = text.replace("::_$", "::$");
        if let Some(rest) = text.strip_prefix("_$") {
            text = format!("${rest}");
        }
        for (escape, plain) in [
            ("$LT$", "<"),
            ("$GT$", ">"),
            ("$C$", ","),
            ("$RF$", "&"),
            ("$BP$", "*"),
            ("$LP$", "("),
            ("$RP$", ")"),
            ("$SP$", "@"),
            ("$u20$", " "),
            ("$u22$", "\""),
            ("$u27$", "'"),
            ("$u2b$", "+"),
            ("$u3b$", ";"),
            ("$u5b$", "["),
            ("$u5d$", "]"),
            ("$u7b$", "{"),
            ("$u7d$", "}"),
            ("$u7e$", "~"),
        ] {
            text = text.replace(escape, plain);
        }
        text = text.replace("..", "::");
    }
    // The legacy hash: `::h` and 16 hex digits at the end.
    if let Some(index) = text.rfind("::h") {
        let hash = &text[index + 3..];
        if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) {
            text.truncate(index);
        }
    }
    text
}

/// Whether a frame belongs to the project: its source is under the workspace root and not in
/// a dependency or build directory (`.venv`, `site-packages`, `node_modules`, `target`,
/// `vendor`).
pub fn is_workspace_frame(frame: &FrameInfo, workspace_root: &Path) -> bool {
    let Some(path) = &frame.path else { return false };
    let Ok(relative) = path.strip_prefix(workspace_root) else { return false };
    !relative.components().any(|component| {
        matches!(
            component.as_os_str().to_str(),
            Some(".venv" | "venv" | "site-packages" | "dist-packages" | "node_modules" | "target" | "vendor" | ".tox")
        )
    })
}

/// Where a frame outside the workspace comes from, in a word: the Python package
/// (`_pytest`, `pluggy`), `python` (the standard library), the Rust crate of the toolchain
/// (`std`, `core`, `test`), the Go package (`testing`, `runtime`), `libc`, or the first segment
/// of the frame's name.
pub fn frame_origin(frame: &FrameInfo) -> String {
    if let Some(path) = frame.path.as_deref().and_then(Path::to_str) {
        for marker in ["/site-packages/", "/dist-packages/", "/node_modules/"] {
            if let Some((_, rest)) = path.split_once(marker) {
                let package = rest.split('/').next().unwrap_or(rest);
                return package.trim_end_matches(".py").to_owned();
            }
        }
        if let Some((_, rest)) = path.split_once("/library/") {
            if path.contains("/rustc/") || path.contains("/rustlib/") {
                return rest.split('/').next().unwrap_or("std").to_owned();
            }
        }
        if path.contains("/.cargo/registry/src/") || path.contains("/.cargo/git/checkouts/") {
            let after = path.split("/src/").nth(1).or_else(|| path.split("/checkouts/").nth(1)).unwrap_or("");
            let crate_dir = after.split('/').nth(1).unwrap_or("dependency");
            return crate_dir.to_owned();
        }
        if let Some(index) = path.find("/lib/python3") {
            let _ = index;
            return "python".to_owned();
        }
        if let Some((root, rest)) = path.split_once("/src/") {
            if root.contains("/go") {
                let parts: Vec<&str> = rest.split('/').collect();
                return parts[..parts.len().saturating_sub(1)].join("/");
            }
        }
        if path.starts_with("nptl/") || path.starts_with("sysdeps/") || path.contains("/glibc") {
            return "libc".to_owned();
        }
    }
    let name = tidy_frame_name(&frame.name);
    let name = name.trim_start_matches('<');
    let first = name.split("::").next().unwrap_or(name);
    let first = first.split('.').next().unwrap_or(first);
    if first.is_empty() {
        "no source".to_owned()
    } else {
        first.to_owned()
    }
}

/// Frames with the runs outside the workspace folded into one line each
/// (`… 14 frames in std, test, core (outside the workspace) …`); frame #0 is always shown in
/// full (the stop location), workspace frames with their source line.
pub fn folded_frames(frames: &[FrameInfo], workspace_root: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    let mut index = 0;
    while index < frames.len() {
        let frame = &frames[index];
        if index == 0 || is_workspace_frame(frame, workspace_root) {
            lines.push(frame_line(frame, index, workspace_root, is_workspace_frame(frame, workspace_root) || index == 0));
            index += 1;
            continue;
        }
        let start = index;
        let mut origins: Vec<String> = Vec::new();
        while index < frames.len() && !is_workspace_frame(&frames[index], workspace_root) {
            let origin = frame_origin(&frames[index]);
            if !origins.contains(&origin) {
                origins.push(origin);
            }
            index += 1;
        }
        if index - start == 1 {
            lines.push(frame_line(&frames[start], start, workspace_root, false));
            continue;
        }
        let shown: Vec<&str> = origins.iter().take(4).map(String::as_str).collect();
        let more = if origins.len() > 4 { format!(" and {} more", origins.len() - 4) } else { String::new() };
        lines.push(format!("… #{start}–#{} {} frames in {}{more} (outside the workspace) …", index - 1, index - start, shown.join(", ")));
    }
    lines
}

/// A breakpoint as bound: `app.py:13 verified`, `… → moved to line 14`, `… unverified (why)`,
/// with its anchor text, condition, hit condition or log message.
pub fn breakpoint_status(status: &BreakpointStatus, workspace_root: &Path) -> String {
    let file = display_path(workspace_root, &status.file);
    let mut text = format!("{file}:{}{}", status.requested_line, spec_extras(&status.spec));
    if !status.sent {
        let _ = write!(text, " {}", status.message.as_deref().unwrap_or("not sent"));
        return text;
    }
    match status.line {
        Some(line) if line != status.requested_line => {
            let _ = write!(text, " → moved to line {line}");
        }
        _ => {}
    }
    text.push_str(if status.verified { " verified" } else { " unverified" });
    if let Some(message) = &status.message {
        let _ = write!(text, " ({message})");
    }
    if !status.verified {
        text.push_str(" — it may bind once the code is loaded; the adapter reports changes");
    }
    text
}

/// ` (text `total += x`) if i > 3, hit 5, logpoint `i={i}`` — what a spec adds to its line.
pub fn spec_extras(spec: &BreakpointSpec) -> String {
    let mut text = String::new();
    if let BreakpointAnchor::Text { text: anchor, occurrence } = &spec.anchor {
        let _ = write!(text, " (text `{anchor}`");
        if let Some(occurrence) = occurrence {
            let _ = write!(text, ", occurrence {occurrence}");
        }
        text.push(')');
    }
    if let Some(condition) = &spec.condition {
        let _ = write!(text, " if {condition}");
    }
    if let Some(hit) = &spec.hit_condition {
        let _ = write!(text, " hit {hit}");
    }
    if let Some(message) = &spec.log_message {
        let _ = write!(text, " logpoint `{message}`");
    }
    text
}

/// A function breakpoint as bound: `function area → src/lib.rs:17 verified`.
pub fn function_breakpoint_status(status: &FunctionBreakpointStatus, workspace_root: &Path) -> String {
    let mut text = format!("function {}", status.name);
    if let Some((path, line)) = &status.location {
        let _ = write!(text, " → {}:{line}", display_path(workspace_root, path));
    }
    text.push_str(if status.verified { " verified" } else { " unverified" });
    if let Some(message) = &status.message {
        let _ = write!(text, " ({message})");
    }
    text
}

/// The exception filters: every one offered with `[on]` for the enabled ones, then the unknown
/// ones asked for.
pub fn exception_filters(report: &ExceptionFiltersReport, adapter: &str) -> String {
    if report.available.is_empty() {
        let mut text = format!("exception filters: {adapter} offers none (it stops on panics/crashes as exceptions by itself)");
        if !report.unknown.is_empty() {
            let _ = write!(text, "; not set: {}", report.unknown.join(", "));
        }
        return text;
    }
    let listed: Vec<String> =
        report.available.iter().map(|(id, label, _, on)| format!("{id} ({label}){}", if *on { " [on]" } else { "" })).collect();
    let mut text = format!("exception filters of {adapter}{}: {}", if report.defaults { " (its defaults)" } else { "" }, listed.join(", "));
    if !report.unknown.is_empty() {
        let _ = write!(text, "; not offered by {adapter}, not set: {}", report.unknown.join(", "));
    }
    text
}

/// A stop wait: where it stopped (reason, exception, thread, top frames) or that it ended or
/// still runs.
pub fn wait_report(wait: &WaitReport, workspace_root: &Path) -> String {
    match &wait.outcome {
        StopOutcome::Stopped(stopped) => {
            let stop = &stopped.info;
            let mut text = format!("stopped: {}", stop.reason);
            if let Some(exception) = &stopped.exception {
                let _ = write!(text, " {exception}");
            }
            if let Some(description) = stop.description.as_ref().or(stop.text.as_ref()) {
                // lldb's "breakpoint 1.1" and "step over" repeat the reason; other text informs.
                let repeats = description.eq_ignore_ascii_case(&stop.reason)
                    || description.strip_prefix(stop.reason.as_str()).is_some_and(|rest| {
                        let rest = rest.trim();
                        rest.chars().all(|c| c.is_ascii_digit() || c == '.') || matches!(rest, "in" | "over" | "out")
                    });
                if !repeats {
                    let _ = write!(text, " ({description})");
                }
            }
            if let Some(thread) = stop.thread_id {
                let _ = write!(text, " on thread {thread}");
            }
            match &stopped.top_frames {
                Ok(frames) => {
                    for (index, frame) in frames.iter().enumerate() {
                        let quote = index == 0 || is_workspace_frame(frame, workspace_root);
                        let _ = write!(text, "\n{}", frame_line(frame, index, workspace_root, quote));
                    }
                    if stopped.depth > frames.len() as u64 && !frames.is_empty() {
                        let _ = write!(text, "\n… {} frames in all: call stack for the rest", stopped.depth);
                    }
                }
                Err(message) => {
                    let _ = write!(text, "\n(location unavailable: {message})");
                }
            }
            text
        }
        StopOutcome::Exited(code, adapter) => match code {
            Some(code) => format!("the program exited with code {}; the session is over", exit_code(*code, *adapter)),
            None => "the program terminated; the session is over (the exit code was not reported yet: some adapters, e.g. delve, report it at disconnect)".to_owned(),
        },
        StopOutcome::Closed(reason) => format!("the session ended: {reason}"),
        StopOutcome::StillRunning(waited) => format!(
            "running: no stop within {} ms (no breakpoint hit yet); call debug op \"pause\" to stop it, \"status\" to check, or \"continue\" to keep waiting",
            waited.as_millis()
        ),
    }
}

/// Output that arrived since the last call, for the end of any result: ANSI escapes
/// stripped (and said, once, after the output: [`ANSI_REMOVED_NOTE`]), at most
/// [`MAX_NEW_OUTPUT_CHARS`] characters (head and tail kept); `None` when there is none.
pub fn new_output(text: &str) -> Option<String> {
    let stripped = strip_ansi(text);
    let plain = stripped.trim_end();
    if plain.is_empty() {
        return None;
    }
    let mut shown = format!("output since the last call:\n{}", cut_middle(plain, MAX_NEW_OUTPUT_CHARS));
    if stripped != text {
        let _ = write!(shown, "\n{ANSI_REMOVED_NOTE}");
    }
    Some(shown)
}

/// Said after program output from which ANSI escape sequences were removed (as `eval` says it;
/// issue 11 §5: said, not silently dropped — small24 found `debug` output stripped unsaid).
pub const ANSI_REMOVED_NOTE: &str = "note: ANSI escape sequences (terminal colors, cursor movement) were removed from this output";

/// At most this many characters of new output ride on a result.
pub const MAX_NEW_OUTPUT_CHARS: usize = 2000;

/// `text` without ANSI escape sequences (colours, cursor moves).
pub fn strip_ansi(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}

/// The `launch` / `attach` result.
pub fn launch_report(report: &LaunchReport, workspace_root: &Path) -> String {
    let mut text = String::new();
    let adapter = report.target.adapter().name();
    let what = match &report.target {
        SessionTarget::Launch(plan) => {
            let mut what = format!("launched {}", plan.description);
            if !plan.is_test && !plan.args.is_empty() {
                let _ = write!(what, " with args {:?}", plan.args);
            }
            what
        }
        SessionTarget::Attach { port, .. } => format!("attached to 127.0.0.1:{port}"),
    };
    let debuggee_note = match &report.debuggee_python {
        Some(python) => format!("; program python {}", display_path(workspace_root, python)),
        None => String::new(),
    };
    let _ = writeln!(
        text,
        "{what} under {adapter} — {} (TTL {}, handshake {} ms{debuggee_note})",
        report.description,
        format_duration(report.ttl),
        report.handshake.as_millis()
    );
    if let SessionTarget::Launch(plan) = &report.target {
        let _ = writeln!(text, "why {adapter}: {}", plan.reason);
        if let Some(build) = &plan.build {
            let _ = writeln!(
                text,
                "built: `{}` ({:.1} s) → {}",
                build.command,
                build.took.as_secs_f64(),
                display_path(workspace_root, &build.produced)
            );
        }
        if plan.is_test {
            // Paths in the test selection (a pytest node id) are shown relative to the workspace.
            let prefix = format!("{}/", workspace_root.display());
            let shown: Vec<String> = plan.args.iter().map(|arg| arg.strip_prefix(&prefix).unwrap_or(arg).to_owned()).collect();
            let _ = writeln!(text, "runs: {} in {}", shown.join(" "), display_path(workspace_root, &report.cwd));
        }
    }
    match &report.rust_formatters {
        Some(Ok(sysroot)) => {
            let _ = writeln!(text, "Rust formatters: loaded from {}/lib/rustlib/etc", sysroot.display());
        }
        Some(Err(why)) => {
            let _ = writeln!(text, "Rust formatters: not loaded ({why}); values show lldb's raw layout");
        }
        None => {}
    }
    if let Some(summary) = &report.adapter_summary {
        let _ = writeln!(text, "{summary}");
    }
    if report.configuration.is_empty() {
        let _ = writeln!(text, "breakpoints: none set");
    } else {
        let _ = writeln!(text, "breakpoints:");
        for note in &report.configuration {
            let line = match note {
                ConfigurationNote::Breakpoint(status) => breakpoint_status(status, workspace_root),
                ConfigurationNote::FunctionBreakpoint(status) => function_breakpoint_status(status, workspace_root),
                ConfigurationNote::FileNotSet { file, message } => format!("{}: not set: {message}", display_path(workspace_root, file)),
                ConfigurationNote::ExceptionFiltersNotSet(message) => format!("exception breakpoints not set: {message}"),
                ConfigurationNote::ExceptionFilters(report) => exception_filters(report, adapter),
                ConfigurationNote::FunctionBreakpointsUnsupported(count) => {
                    format!("{count} function breakpoint(s) not set: {adapter} does not support function breakpoints")
                }
            };
            let _ = writeln!(text, "  {line}");
        }
    }
    text.push_str(&wait_report(&report.wait, workspace_root));
    text.trim_end().to_owned()
}

/// Breakpoints sent to a running adapter.
pub fn breakpoints_sent(file: &Path, adapter: &str, statuses: &[BreakpointStatus], workspace_root: &Path) -> String {
    let mut text = format!("breakpoints of {} sent to the running {adapter}:", display_path(workspace_root, file));
    if statuses.is_empty() {
        text.push_str(" cleared");
    }
    for status in statuses {
        let _ = write!(text, "\n  {}", breakpoint_status(status, workspace_root));
    }
    text
}

fn stop_clause(stop: &StopInfo) -> String {
    format!("{}) on thread {}", stop.reason, stop.thread_id.map_or("?".to_owned(), |t| t.to_string()))
}

/// A resume op's result.
pub fn resume_report(report: &ResumeReport, workspace_root: &Path) -> String {
    match report {
        ResumeReport::AlreadyStopped(stop) => {
            format!("already stopped ({}; nothing to pause — call stack, or continue / step_over", stop_clause(stop))
        }
        ResumeReport::Waited { kind, thread, took, wait, .. } => {
            format!("{} (thread {thread}) took {} ms\n{}", kind.op_name(), took.as_millis(), wait_report(wait, workspace_root))
        }
    }
}

/// The `threads` result (at most 100 listed).
pub fn threads(threads: &[ThreadInfo], stopped: Option<u64>, description: &str) -> String {
    if threads.is_empty() {
        return format!("{description} reports no threads");
    }
    let mut text = format!("{} thread(s):", threads.len());
    for thread in threads.iter().take(100) {
        let name = if thread.name.is_empty() { "(unnamed)" } else { &thread.name };
        let _ = write!(text, "\n  thread {}: {name}", thread.id);
        if stopped == Some(thread.id) {
            text.push_str("  (stopped here)");
        }
    }
    if threads.len() > 100 {
        let _ = write!(text, "\n  showing 100 of {} threads", threads.len());
    }
    text
}

/// The `stack` result: workspace frames in full, runs of frames outside the workspace folded
/// into one line each unless `all_frames`.
pub fn stack(report: &StackReport, workspace_root: &Path, all_frames: bool) -> String {
    if report.frames.is_empty() {
        return format!("thread {} has no frames", report.thread);
    }
    let shown = report.frames.len();
    let mut text = format!("stack of thread {} (stop #{}):", report.thread, report.generation);
    let lines = if all_frames {
        report.frames.iter().enumerate().map(|(index, frame)| frame_line(frame, index, workspace_root, true)).collect()
    } else {
        folded_frames(&report.frames, workspace_root)
    };
    let folded = lines.iter().any(|line| line.starts_with("… #"));
    for line in lines {
        let _ = write!(text, "\n{line}");
    }
    match report.total_frames {
        Some(total) if total > shown as u64 => {
            let _ = write!(text, "\nshowing {shown} of {total} frames");
        }
        None if shown as u64 == MAX_STACK_FRAMES => {
            let _ = write!(text, "\nshowing the first {shown} frames; deeper frames may exist");
        }
        _ => {}
    }
    if folded {
        text.push_str("\n(frames outside the workspace are folded; stack with all_frames=true lists each with its frame_id)");
    }
    text
}

/// The `scopes` result.
pub fn scopes(frame: u64, scopes: &[ScopeInfo]) -> String {
    if scopes.is_empty() {
        return format!("frame {frame} has no scopes");
    }
    let mut text = format!("scopes of frame {frame}:");
    for scope in scopes {
        let Some(handle) = scope.handle else {
            let _ = write!(text, "\n  {} (no variables)", scope.name);
            continue;
        };
        let _ = write!(text, "\n  {}  (reference {handle}", scope.name);
        if let Some(count) = scope.count {
            let _ = write!(text, ", {count} variables");
        }
        text.push(')');
        if scope.expensive {
            text.push_str("  [expensive to fetch]");
        }
    }
    text
}

/// `variables` with a `frame_id`: the variables of `scope` (the frame's first scope that is not
/// expensive, normally its locals) as [`variables`] renders them, under a header naming the frame
/// and the scope, followed by the frame's other scopes with their references.
pub fn frame_variables(frame: u64, scope: &ScopeInfo, scopes: &[ScopeInfo], page: &VariablesPage) -> String {
    let body = variables(page);
    let rest = body.split_once('\n').map_or("", |(_, rest)| rest);
    let mut text = if page.variables.is_empty() {
        format!("{} of frame {frame} (reference {}): none", scope.name, page.reference)
    } else {
        format!("{} of frame {frame} (reference {}):\n{rest}", scope.name, page.reference)
    };
    let others: Vec<String> = scopes
        .iter()
        .filter(|other| other.handle != scope.handle)
        .map(|other| match other.handle {
            Some(handle) => format!("{} (reference {handle}{})", other.name, if other.expensive { ", expensive" } else { "" }),
            None => format!("{} (no variables)", other.name),
        })
        .collect();
    if !others.is_empty() {
        let _ = write!(text, "\nother scopes: {}", others.join(", "));
    }
    text
}

/// The `variables` result, with the paging line when more children exist. Small aggregates
/// show their children inline (`p = Point {x: 1, y: 2}`, `xs = [1, 2, 3] (len 3)`).
pub fn variables(page: &VariablesPage) -> String {
    let (reference, start) = (page.reference, page.start);
    if page.variables.is_empty() {
        return format!("reference {reference} has no children{}", if start > 0 { format!(" from index {start}") } else { String::new() });
    }
    let mut text = format!("children of reference {reference}:");
    for variable in &page.variables {
        let _ = write!(text, "\n  {}", variable_info_line(variable));
    }
    let shown_end = start + page.variables.len() as u64;
    match page.total {
        Some(total) if total > shown_end => {
            let _ = write!(text, "\nshowing {}–{} of {total}; call variables with start={shown_end} for more", start + 1, shown_end);
        }
        None if page.variables.len() as u64 == MAX_VARIABLES => {
            let _ = write!(text, "\nshowing {}–{}; more may follow: call variables with start={shown_end}", start + 1, shown_end);
        }
        _ => {}
    }
    text
}

/// One variable with its inline children when they were fetched.
pub fn variable_info_line(variable: &VariableInfo) -> String {
    let value = match &variable.inline {
        Some(inline) => inline_value(&variable.value, inline),
        None => variable.value.clone(),
    };
    variable_line(&variable.name, variable.type_name.as_deref(), &value, variable.handle, variable.count)
}

/// How long one inline child's value may be.
const MAX_INLINE_CHILD_CHARS: usize = 80;

fn inline_value(value: &str, inline: &InlineChildren) -> String {
    let cut = |text: &str| cut_chars(text, MAX_INLINE_CHILD_CHARS);
    let body = if inline.deref {
        format!("→ {}", inline.items.first().map(|(_, value)| cut(value)).unwrap_or_default())
    } else if inline.indexed {
        let items: Vec<String> = inline.items.iter().map(|(_, value)| cut(value)).collect();
        format!("[{}] (len {})", items.join(", "), inline.total)
    } else {
        let items: Vec<String> = inline.items.iter().map(|(name, value)| format!("{name}: {}", cut(value))).collect();
        let more = if inline.total > inline.items.len() as u64 { ", …" } else { "" };
        format!("{{{}{more}}}", items.join(", "))
    };
    // lldb's `T @ 0x…` and `size=3`, Python's `<T object at 0x…>`: the children say more.
    let prefix = value.split(" @ 0x").next().unwrap_or(value);
    if value.contains(" @ 0x") && !prefix.is_empty() {
        let short = prefix.rsplit("::").next().unwrap_or(prefix);
        format!("{short} {body}")
    } else {
        body
    }
}

/// The `evaluate` result.
pub fn evaluate(report: &EvaluateReport) -> String {
    let where_ = match report.frame {
        Some(handle) => format!("in frame {handle}"),
        None => "in the top frame".to_owned(),
    };
    format!("{} ({where_})", variable_info_line(&report.value))
}

/// One line about an `evaluate` that timed out earlier, or `None` when there is none.
pub fn evaluate_poll(poll: &EvaluatePoll) -> Option<String> {
    match poll {
        EvaluatePoll::Nothing => None,
        EvaluatePoll::StillRunning { expression, waited } => Some(format!(
            "an evaluate of `{expression}` sent {} ms ago has not answered: the program is probably still running it, so the \
             state above may not hold; call status again later, or terminate",
            waited.as_millis()
        )),
        EvaluatePoll::AnsweredLate { expression, waited, outcome: Ok(value) } => Some(format!(
            "the evaluate of `{expression}` that timed out (sent {} ms ago) has answered since: {}",
            waited.as_millis(),
            variable_line(&value.name, value.type_name.as_deref(), &value.value, None, None)
        )),
        EvaluatePoll::AnsweredLate { expression, waited, outcome: Err(message) } => Some(format!(
            "the evaluate of `{expression}` that timed out (sent {} ms ago) has ended without a value: {message}",
            waited.as_millis()
        )),
    }
}

/// A session's `status`: identity, state, exit code, breakpoints as bound, function
/// breakpoints, exception filters, a pending evaluate.
pub fn session_status(status: &SessionStatus, workspace_root: &Path) -> String {
    let mut text = format!("{}\n", session_summary(&status.summary));
    match &status.run {
        RunState::Starting => text.push_str("state: starting\n"),
        RunState::Running => text.push_str("state: running\n"),
        RunState::Stopped(stop) => {
            let _ = writeln!(text, "state: stopped ({} at stop #{}", stop_clause(stop), status.generation);
        }
    }
    if let Some(code) = status.exit_code {
        let _ = writeln!(text, "program exited with code {}", exit_code(code, status.adapter));
    }
    for breakpoint in &status.breakpoints {
        let _ = writeln!(text, "  {}", breakpoint_status(breakpoint, workspace_root));
    }
    for function in &status.function_breakpoints {
        let _ = writeln!(text, "  {}", function_breakpoint_status(function, workspace_root));
    }
    let adapter = status.summary.description.split_whitespace().next().unwrap_or("the adapter");
    let _ = writeln!(text, "{}", exception_filters(&status.exception_filters, adapter));
    if let Some(line) = evaluate_poll(&status.evaluate) {
        let _ = writeln!(text, "{line}");
    }
    text.trim_end().to_owned()
}

/// The `status` op: the session's status (or that none runs) and the stored breakpoints.
pub fn supervisor_status(session: Option<&SessionStatus>, stored: &BreakpointStore, workspace_root: &Path) -> String {
    let mut text = match session {
        Some(status) => session_status(status, workspace_root),
        None => "no debug session is running".to_owned(),
    };
    if stored.count() > 0 || !stored.functions().is_empty() {
        let _ = write!(text, "\nbreakpoints:");
        for (file, specs) in stored.files() {
            if specs.is_empty() {
                continue;
            }
            let listed: Vec<String> = match resolve_breakpoints(workspace_root, file, specs) {
                Ok(resolved) => resolved.iter().map(|r| format!("{}{}", r.line, spec_extras(&r.spec))).collect(),
                Err(why) => vec![format!("(cannot resolve: {why})")],
            };
            let _ = write!(text, "\n  {}: lines {}", display_path(workspace_root, file), listed.join(", "));
        }
        for function in stored.functions() {
            let _ = write!(text, "\n  function {}", function.name);
            if let Some(condition) = &function.condition {
                let _ = write!(text, " if {condition}");
            }
        }
    } else {
        text.push_str("\nno breakpoints set");
    }
    match stored.exception_filters() {
        Some(filters) if session.is_none() => {
            let _ = write!(
                text,
                "\nexception filters asked for: {} (checked against the adapter's list at launch; status lists them while a session runs)",
                if filters.is_empty() { "none".to_owned() } else { filters.join(", ") }
            );
        }
        None if session.is_none() => {
            text.push_str("\nexception filters: the adapter's defaults (listed by status while a session runs)");
        }
        _ => {}
    }
    text
}

/// The `output` result of a live session (ANSI escapes stripped).
pub fn output(snapshot: &OutputSnapshot) -> String {
    if snapshot.total_bytes == 0 {
        return format!("no output from the program yet ({})", snapshot.description);
    }
    let mut text = format!("output of {} ({} bytes in total", snapshot.description, snapshot.total_bytes);
    if snapshot.dropped_bytes > 0 {
        let _ = write!(text, ", {} bytes dropped", snapshot.dropped_bytes);
    }
    text.push_str("):\n");
    let stripped = strip_ansi(&snapshot.text);
    let removed = stripped != snapshot.text;
    text.push_str(&stripped);
    if removed {
        let _ = write!(text, "\n{ANSI_REMOVED_NOTE}");
    }
    text
}

/// The `adapters` report: one line per adapter, available with what was found, or
/// unavailable with the missing half.
pub fn adapters(rows: &[AdapterAvailability], workspace_root: &Path) -> String {
    let mut text = String::from("debug adapters (available = root marker found AND adapter binary resolves):\n");
    for row in rows {
        let spec = row.adapter.spec();
        let binary_text = match &row.binary {
            Ok(found) => found.summary.clone(),
            Err(missing) => missing.clone(),
        };
        let extra = if row.adapter == crate::debug::adapters::AdapterId::Lldb && row.markers.is_empty() && row.binary.is_ok() {
            "; a compiled executable with its C/C++/Rust source beside it also works"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "- {}: {} — {}; {}{}",
            spec.name,
            if row.available() { "available" } else { "unavailable" },
            adapter_markers(row, workspace_root),
            binary_text,
            extra
        );
    }
    let _ = writeln!(text, "- {}", crate::debug::program::NODE_ADAPTER_NOTE);
    text.trim_end().to_owned()
}

/// The marker half of an adapter's availability: where markers were found, or that none was.
pub fn adapter_markers(row: &AdapterAvailability, workspace_root: &Path) -> String {
    if row.markers.is_empty() {
        format!(
            "no root marker ({}) within {} directory levels of the workspace root (launch also looks upward \
             from the program's own directory, so a program inside a deeper project still works)",
            row.adapter.spec().root_markers.join(", "),
            crate::debug::adapters::MARKER_SCAN_DEPTH
        )
    } else {
        let shown: Vec<String> = row.markers.iter().map(|m| display_path(workspace_root, m)).collect();
        format!("marker {}", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_cut_with_a_marker() {
        let long = "x".repeat(1000);
        let cut = variable_line("long", None, &long, None, None);
        assert!(cut.starts_with(&format!("long = {}", "x".repeat(400))));
        assert!(cut.ends_with("… [cut: showing 400 of 1000 characters]"), "{cut}");
        assert_eq!(variable_line("n", Some("int"), "3", None, None), "n: int = 3");
        assert_eq!(variable_line("xs", Some(""), "[1]", Some(4), Some(1)), "xs = [1]  (reference 4, 1 children)");
    }

    #[test]
    fn paths_and_source_lines() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "first\n    second  \n").unwrap();
        assert_eq!(source_line(dir.path(), &file, 2).as_deref(), Some("second"));
        assert_eq!(source_line(dir.path(), &file, 3), None);
        assert_eq!(source_line(dir.path(), &file, 0), None);
    }

    #[test]
    fn exit_codes_name_the_usual_signal_encodings() {
        use AdapterId::{Debugpy, Delve, Lldb};
        assert_eq!(exit_code(0, Debugpy), "0");
        assert_eq!(exit_code(4, Debugpy), "4");
        assert_eq!(exit_code(4, Lldb), "4", "lldb stops on SIGILL before a death by it: 4 is a plain exit code");
        assert_eq!(exit_code(11, Lldb), "11");
        assert_eq!(exit_code(247, Debugpy), "247 (likely killed by SIGKILL: debugpy reports a death by signal N as 256 − N)");
        assert_eq!(exit_code(9, Lldb), "9 (likely killed by SIGKILL: lldb reports a death by signal N as exit code N)");
        assert_eq!(exit_code(9, Debugpy), "9", "debugpy reports a plain exit(9) as 9");
        assert_eq!(exit_code(137, Delve), "137 (likely killed by SIGKILL: a shell reports a death by signal N as 128 + N)");
        assert_eq!(exit_code(-11, Lldb), "-11 (killed by SIGSEGV)");
        assert_eq!(exit_code(255, Debugpy), "255", "-1 is no signal worth naming");
        assert_eq!(exit_code(1, Lldb), "1", "SIGHUP only when certain");
    }

    #[test]
    fn rust_frame_names_lose_their_hash_and_escapes() {
        assert_eq!(tidy_frame_name("rs1::area::h3807401666103368"), "rs1::area");
        assert_eq!(
            tidy_frame_name("rs1::tests::totals_shapes::_$u7b$$u7b$closure$u7d$$u7d$::h86c7cfd6a27d2165"),
            "rs1::tests::totals_shapes::{{closure}}"
        );
        assert_eq!(tidy_frame_name("either::Either$LT$L$C$R$GT$::right::h7fed0123456789ab"), "either::Either<L,R>::right");
        assert_eq!(tidy_frame_name("main.add"), "main.add");
        assert_eq!(tidy_frame_name("test_total (h1)"), "test_total (h1)");
    }

    #[test]
    fn outside_frames_fold_and_name_their_origin() {
        let root = Path::new("/w");
        let frame = |path: Option<&str>, name: &str| FrameInfo {
            handle: 1,
            name: name.to_owned(),
            path: path.map(std::path::PathBuf::from),
            source_name: None,
            line: 3,
        };
        let frames = vec![
            frame(Some("/w/src/lib.rs"), "a"),
            frame(Some("/w/src/lib.rs"), "b"),
            frame(Some("/rustc/abc/library/core/src/ops/function.rs"), "core::ops::f"),
            frame(Some("/rustc/abc/library/test/src/lib.rs"), "test::run"),
            frame(Some("/w/.venv/lib/python3.11/site-packages/_pytest/python.py"), "pytest_pyfunc_call"),
            frame(None, "start_thread"),
        ];
        let lines = folded_frames(&frames, root);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(lines[2].starts_with("… #2–#5 4 frames in core, test, _pytest, start_thread (outside the workspace)"), "{lines:#?}");
        assert!(!is_workspace_frame(&frames[4], root), "a venv inside the workspace is not the project");
        assert_eq!(frame_origin(&frame(Some("/usr/lib/go-1.19/src/testing/testing.go"), "testing.tRunner")), "testing");
    }

    #[test]
    fn durations_read_naturally() {
        use std::time::Duration;
        assert_eq!(format_duration(Duration::from_secs(1800)), "30 min");
        assert_eq!(format_duration(Duration::from_secs(90)), "1 min 30 s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1 s");
        assert_eq!(format_duration(Duration::from_millis(300)), "300 ms");
    }

    #[test]
    fn lldb_names_of_rust_primitives_are_written_as_rust_names() {
        assert_eq!(rust_type_name_from_lldb("unsigned char"), "u8");
        assert_eq!(rust_type_name_from_lldb("char"), "i8");
        assert_eq!(rust_type_name_from_lldb("char32_t"), "char");
        assert_eq!(rust_type_name_from_lldb("unsigned long"), "u64/usize");
        assert_eq!(rust_type_name_from_lldb("unsigned __int128"), "u128");
        assert_eq!(rust_type_name_from_lldb("unsigned char[3]"), "[u8; 3]");
        assert_eq!(rust_type_name_from_lldb("char[2]"), "[i8; 2]");
        assert_eq!(
            rust_type_name_from_lldb("alloc::vec::Vec<unsigned char, alloc::alloc::Global>"),
            "alloc::vec::Vec<u8, alloc::alloc::Global>"
        );
        assert_eq!(rust_type_name_from_lldb("&[int]"), "&[i32]");
        assert_eq!(rust_type_name_from_lldb("core::option::Option<int>"), "core::option::Option<i32>");
        // Path segments and longer identifiers stay.
        assert_eq!(rust_type_name_from_lldb("shapes::int::Point"), "shapes::int::Point");
        assert_eq!(rust_type_name_from_lldb("interval::Interval<character>"), "interval::Interval<character>");
        assert_eq!(rust_type_name_from_lldb("rsu8::Pixel"), "rsu8::Pixel");
    }

    #[test]
    fn lldb_char32_renderings_are_written_as_rust_chars() {
        assert_eq!(rust_chars_from_lldb("U+0x0000007a U+0x0000007a U'z'"), "'z'");
        assert_eq!(rust_chars_from_lldb("U+0x0001f600 U'😀'"), "'😀'");
        assert_eq!(
            rust_chars_from_lldb("Pixel {red: 255, offset: -128, label: U+0x00000070 U+0x00000070 U'p'}"),
            "Pixel {red: 255, offset: -128, label: 'p'}"
        );
        assert_eq!(rust_chars_from_lldb("U+0x0000000a U'\\n'"), "'\\n'");
        assert_eq!(rust_chars_from_lldb("no chars here"), "no chars here");
        assert_eq!(rust_chars_from_lldb("U+0x12 odd"), "U+0x12 odd");
    }

    #[test]
    fn output_with_ansi_escapes_is_shown_plain_and_says_they_were_removed() {
        let colored = new_output("\u{1b}[31mred\u{1b}[0m plain\n").expect("output");
        assert_eq!(colored, format!("output since the last call:\nred plain\n{ANSI_REMOVED_NOTE}"));
        let plain = new_output("plain\n").expect("output");
        assert_eq!(plain, "output since the last call:\nplain");
    }
}
