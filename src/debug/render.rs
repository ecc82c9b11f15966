//! Text for the model: every typed result of the session and the supervisor becomes text
//! here: `file:line` with the source line, `name: type = value` variables, stop outcomes,
//! breakpoint statuses, durations, exit codes. Paths and cuts use the crate's one convention
//! ([`crate::render`]).

use std::fmt::Write as _;
use std::path::Path;

use crate::debug::adapters::AdapterAvailability;
use crate::debug::events::{BreakpointStatus, RunState, StopInfo};
use crate::debug::session::{
    ConfigurationNote, EvaluatePoll, EvaluateReport, FrameInfo, LaunchReport, OutputSnapshot, ResumeReport, ScopeInfo, SessionEnd,
    SessionStatus, SessionSummary, SessionTarget, StackReport, StopOutcome, TeardownReport, ThreadInfo, VariablesPage, WaitReport,
};
use crate::debug::state::BreakpointStore;
pub use crate::render::{cut_chars, display_path};

/// At most this many characters of a variable or evaluate value are shown (spec §7 op table).
pub const MAX_VALUE_CHARS: usize = 400;
/// At most this many frames are requested and shown (`stackTrace {levels: 30}`).
pub const MAX_STACK_FRAMES: u64 = 30;
/// At most this many children are requested and shown (`variables {start, count: 50}`).
pub const MAX_VARIABLES: u64 = 50;
/// At most this many characters of a source line are quoted.
const MAX_SOURCE_LINE_CHARS: usize = 200;

/// The text of 1-based `line` of `path`, trimmed and cut; `None` when unreadable or past EOF.
pub fn source_line(path: &Path, line: u64) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let index = usize::try_from(line.checked_sub(1)?).ok()?;
    let raw = text.lines().nth(index)?;
    Some(cut_chars(raw.trim(), MAX_SOURCE_LINE_CHARS))
}

/// An exit code as DAP's `exited` event gives it, with the signal spelled out when the code
/// encodes a death by signal: certainly for a negative code (`-9` → `"-9 (killed by SIGKILL)"`),
/// as a likelihood for the shell's `128 + N` (`137`) and for `-N` as an unsigned byte (`247`, as
/// debugpy reports a SIGKILLed debuggee) → `"247 (likely killed by SIGKILL)"`, since a program
/// may also exit with those numbers. Other codes are shown as they are.
pub fn exit_code(code: i64) -> String {
    use nix::sys::signal::Signal;
    let (number, certain) = match code {
        -64..=-1 => (-code, true),
        129..=192 => (code - 128, false),
        193..=255 => (256 - code, false),
        _ => return code.to_string(),
    };
    // Deaths worth naming; SIGINT and SIGHUP only when certain (as byte-encoded codes they
    // would be 254 and 255, common plain exit codes).
    let signal = i32::try_from(number).ok().and_then(|number| Signal::try_from(number).ok()).filter(|signal| {
        matches!(
            signal,
            Signal::SIGKILL | Signal::SIGTERM | Signal::SIGSEGV | Signal::SIGABRT | Signal::SIGBUS | Signal::SIGFPE | Signal::SIGILL
        ) || (certain && matches!(signal, Signal::SIGINT | Signal::SIGHUP))
    });
    match (signal, certain) {
        (Some(signal), true) => format!("{code} (killed by {signal})"),
        (Some(signal), false) => format!("{code} (likely killed by {signal})"),
        (None, _) => code.to_string(),
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
        SessionEnd::ProgramEnded(Some(code)) => format!("the program exited with code {}", exit_code(*code)),
        SessionEnd::ProgramEnded(None) => "the program terminated".to_owned(),
    }
}

/// What teardown did: `disconnected with terminateDebuggee, adapter exited (reason)`.
pub fn teardown(report: &TeardownReport) -> String {
    let mut text = format!("{} ({})", report.steps.join(", "), report.reason);
    if let Some(code) = report.late_exit_code {
        let _ = write!(text, "; the program exited with code {}", exit_code(code));
    }
    text
}

/// One frame: `#0 app.py:13 in main  [frame_id 3]` and the quoted source line.
pub fn frame_line(frame: &FrameInfo, index: usize, workspace_root: &Path) -> String {
    let line = frame.line;
    let location = match (&frame.path, &frame.source_name) {
        (Some(path), _) => format!("{}:{line}", display_path(workspace_root, path)),
        (None, Some(name)) => format!("{name}:{line} (no source path)"),
        (None, None) => "(no source)".to_owned(),
    };
    let mut text = format!("#{index} {location} in {}  [frame_id {}]", frame.name, frame.handle);
    if let Some(source) = frame.path.as_deref().and_then(|p| source_line(p, line)) {
        let _ = write!(text, "\n    {line} | {source}");
    }
    text
}

/// A breakpoint as bound: `app.py:13 verified`, `… → moved to line 14`, `… unverified (why)`.
pub fn breakpoint_status(status: &BreakpointStatus, workspace_root: &Path) -> String {
    let file = display_path(workspace_root, &status.file);
    let mut text = format!("{file}:{}", status.requested_line);
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

/// A stop wait: where it stopped (reason, exception, thread, top frame) or that it ended or
/// still runs, then the output that arrived meanwhile (cut at 2,000 characters).
pub fn wait_report(wait: &WaitReport, workspace_root: &Path) -> String {
    let mut text = match &wait.outcome {
        StopOutcome::Stopped(stopped) => {
            let stop = &stopped.info;
            let mut text = format!("stopped: {}", stop.reason);
            if let Some(exception) = &stopped.exception {
                let _ = write!(text, " {exception}");
            }
            if let Some(description) = stop.description.as_ref().or(stop.text.as_ref()) {
                if !description.eq_ignore_ascii_case(&stop.reason) {
                    let _ = write!(text, " ({description})");
                }
            }
            if let Some(thread) = stop.thread_id {
                let _ = write!(text, " on thread {thread}");
            }
            match &stopped.top_frame {
                Ok(Some(frame)) => {
                    let _ = write!(text, "\n{}", frame_line(frame, 0, workspace_root));
                }
                Err(message) => {
                    let _ = write!(text, "\n(location unavailable: {message})");
                }
                Ok(None) => {}
            }
            text
        }
        StopOutcome::Exited(code) => match code {
            Some(code) => format!("the program exited with code {}; the session is over", exit_code(*code)),
            None => "the program terminated; the session is over (the exit code was not reported yet: some adapters, e.g. delve, report it at disconnect)".to_owned(),
        },
        StopOutcome::Closed(reason) => format!("the session ended: {reason}"),
        StopOutcome::StillRunning(waited) => format!(
            "running: no stop within {} ms (no breakpoint hit yet); call debug op \"pause\" to stop it, \"status\" to check, or \"continue\" to keep waiting",
            waited.as_millis()
        ),
    };
    if !wait.new_output.is_empty() {
        let cut = cut_chars(wait.new_output.trim_end(), 2000);
        let _ = write!(text, "\nnew output:\n{cut}");
    }
    text
}

/// The `launch` / `attach` result.
pub fn launch_report(report: &LaunchReport, workspace_root: &Path) -> String {
    let mut text = String::new();
    let what = match &report.target {
        SessionTarget::Launch { program, args, .. } => {
            let mut what = format!("launched {}", display_path(workspace_root, program));
            if !args.is_empty() {
                let _ = write!(what, " with args {args:?}");
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
        "{what} under {} — {} (TTL {}, handshake {} ms{debuggee_note})",
        report.target.adapter().name(),
        report.description,
        format_duration(report.ttl),
        report.handshake.as_millis()
    );
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
                ConfigurationNote::FileNotSet { file, message } => format!("{}: not set: {message}", display_path(workspace_root, file)),
                ConfigurationNote::ExceptionFiltersNotSet(message) => format!("exception breakpoints not set: {message}"),
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
        ResumeReport::Waited { kind, thread, took, wait } => {
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

/// The `stack` result.
pub fn stack(report: &StackReport, workspace_root: &Path) -> String {
    if report.frames.is_empty() {
        return format!("thread {} has no frames", report.thread);
    }
    let shown = report.frames.len();
    let mut text = format!("stack of thread {} (stop #{}):", report.thread, report.generation);
    for (index, frame) in report.frames.iter().enumerate() {
        let _ = write!(text, "\n{}", frame_line(frame, index, workspace_root));
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

/// The `variables` result, with the paging line when more children exist.
pub fn variables(page: &VariablesPage) -> String {
    let (reference, start) = (page.reference, page.start);
    if page.variables.is_empty() {
        return format!("reference {reference} has no children{}", if start > 0 { format!(" from index {start}") } else { String::new() });
    }
    let mut text = format!("children of reference {reference}:");
    for variable in &page.variables {
        let _ = write!(
            text,
            "\n  {}",
            variable_line(&variable.name, variable.type_name.as_deref(), &variable.value, variable.handle, variable.count)
        );
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

/// The `evaluate` result.
pub fn evaluate(report: &EvaluateReport) -> String {
    let value = &report.value;
    let where_ = match report.frame {
        Some(handle) => format!("in frame {handle}"),
        None => "in the top frame".to_owned(),
    };
    format!("{} ({where_})", variable_line(&value.name, value.type_name.as_deref(), &value.value, value.handle, value.count))
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

/// A session's `status`: identity, state, exit code, breakpoints as bound, a pending evaluate.
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
        let _ = writeln!(text, "program exited with code {}", exit_code(code));
    }
    for breakpoint in &status.breakpoints {
        let _ = writeln!(text, "  {}", breakpoint_status(breakpoint, workspace_root));
    }
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
    if stored.count() > 0 {
        let _ = write!(text, "\nbreakpoints:");
        for (file, lines) in stored.files() {
            if lines.is_empty() {
                continue;
            }
            let _ = write!(text, "\n  {}: lines {}", display_path(workspace_root, file), join_numbers(lines));
        }
    } else {
        text.push_str("\nno breakpoints set");
    }
    text
}

/// The `output` result of a live session.
pub fn output(snapshot: &OutputSnapshot) -> String {
    if snapshot.total_bytes == 0 {
        return format!("no output from the program yet ({})", snapshot.description);
    }
    let mut text = format!("output of {} ({} bytes in total", snapshot.description, snapshot.total_bytes);
    if snapshot.dropped_bytes > 0 {
        let _ = write!(text, ", {} bytes dropped", snapshot.dropped_bytes);
    }
    text.push_str("):\n");
    text.push_str(&snapshot.text);
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
        assert_eq!(source_line(&file, 2).as_deref(), Some("second"));
        assert_eq!(source_line(&file, 3), None);
        assert_eq!(source_line(&file, 0), None);
    }

    #[test]
    fn exit_codes_name_the_usual_signal_encodings() {
        assert_eq!(exit_code(0), "0");
        assert_eq!(exit_code(4), "4");
        assert_eq!(exit_code(247), "247 (likely killed by SIGKILL)");
        assert_eq!(exit_code(137), "137 (likely killed by SIGKILL)");
        assert_eq!(exit_code(-11), "-11 (killed by SIGSEGV)");
        assert_eq!(exit_code(255), "255", "-1 is no signal worth naming");
    }

    #[test]
    fn durations_read_naturally() {
        use std::time::Duration;
        assert_eq!(format_duration(Duration::from_secs(1800)), "30 min");
        assert_eq!(format_duration(Duration::from_secs(90)), "1 min 30 s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1 s");
        assert_eq!(format_duration(Duration::from_millis(300)), "300 ms");
    }
}
