//! Text for the model: `file:line` with the source line, `name: type = value` variables, exit
//! codes. Paths and cuts use the crate's one convention ([`crate::render`]).

use std::path::Path;

use crate::render::cut_chars;

/// At most this many characters of a variable or evaluate value are shown (docs/contract.md, `debug` ops).
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
}
