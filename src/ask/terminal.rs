//! `TerminalAskPort`: renders numbered cards on the terminal and reads the human's answer.
//!
//! The CLI attaches it only when both stdin and stderr are terminals
//! ([`TerminalAskPort::from_stdio`]); without a terminal there is no human attached, so
//! `ask_user` is not registered and approval prompts are denied (fail-closed, R-ASK-4).
//!
//! A card is written to the output (stderr for the CLI) with its options numbered from 1.
//! Answers, one line each:
//! - `2` picks option 2; `1,3` picks several when the card is `multi_select`;
//! - an option's label typed in full (case-insensitive) picks it;
//! - `s` (or `skip`) skips the card;
//! - any other text is a free-text answer when the card allows one, else the card is shown
//!   again with what was wrong.
//!
//! The wait honors the card's timeout: the input is polled in slices of at most 250 ms, never
//! read blindly, so no thread is left blocked in `read` after a timeout. Input typed before the
//! card appeared is discarded, so stray keystrokes never answer a permission prompt. Cards are
//! shown one at a time; a second card waits for the terminal within its own timeout.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::{AskCard, AskOutcome, AskPort, CardKind};

/// Renders numbered cards on a terminal and reads the answer; `s` skips.
///
/// Build it with [`TerminalAskPort::from_stdio`] (the CLI) or [`TerminalAskPort::new`] (a host
/// with its own terminal, or a test driving a pseudo-terminal).
pub struct TerminalAskPort {
    terminal: Mutex<TerminalState>,
}

impl std::fmt::Debug for TerminalAskPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalAskPort").finish_non_exhaustive()
    }
}

impl TerminalAskPort {
    /// The CLI's port: reads answers from stdin and renders cards on stderr.
    ///
    /// Returns `None` unless both stdin and stderr are terminals: with no terminal there is no
    /// human to ask, and the caller must not attach a port at all.
    pub fn from_stdio() -> Option<TerminalAskPort> {
        use std::io::IsTerminal as _;
        if !io::stdin().is_terminal() || !io::stderr().is_terminal() {
            return None;
        }
        let input = io::stdin().as_fd().try_clone_to_owned().ok()?;
        Some(TerminalAskPort::new(input, Box::new(io::stderr())))
    }

    /// A port reading answers (one per line) from `input` and rendering cards on `output`.
    ///
    /// `input` should be a terminal; a pipe works too (tests). When `input` is a terminal,
    /// anything typed before a card appears is discarded.
    pub fn new(input: OwnedFd, output: Box<dyn Write + Send>) -> TerminalAskPort {
        TerminalAskPort { terminal: Mutex::new(TerminalState { input: File::from(input), output, pending: Vec::new() }) }
    }
}

impl AskPort for TerminalAskPort {
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome {
        let deadline = Instant::now() + timeout;
        let Some(mut terminal) = self.terminal.try_lock_for(timeout) else {
            return AskOutcome::TimedOut;
        };
        terminal.ask(card, deadline, timeout)
    }
}

struct TerminalState {
    input: File,
    output: Box<dyn Write + Send>,
    /// Bytes read after the last complete line (a line typed across two reads).
    pending: Vec<u8>,
}

/// Longest single wait on the input before re-checking the deadline.
const POLL_SLICE: Duration = Duration::from_millis(250);

impl TerminalState {
    fn ask(&mut self, card: &AskCard, deadline: Instant, timeout: Duration) -> AskOutcome {
        self.discard_typeahead();
        let rendered = render_card(card, timeout);
        if let Err(err) = self.write_all(&rendered) {
            return AskOutcome::NoHuman { reason: format!("the card cannot be shown on the terminal: {err}") };
        }
        loop {
            if let Some(line) = self.take_line() {
                match parse_answer(card, &line) {
                    Ok(outcome) => {
                        let _ = self.write_all(&acknowledgement(card, &outcome));
                        return outcome;
                    }
                    Err(problem) => {
                        let _ = self.write_all(&format!("{problem}\n{}", prompt_line(card)));
                        continue;
                    }
                }
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                let _ = self.write_all(&format!("\ncard {} timed out after {} s without an answer\n", card.number, timeout.as_secs()));
                return AskOutcome::TimedOut;
            }
            match self.wait_readable(remaining.min(POLL_SLICE)) {
                Ok(false) => continue,
                Ok(true) => (),
                Err(err) => return AskOutcome::Cancelled { reason: format!("reading the terminal failed: {err}") },
            }
            let mut buffer = [0u8; 4096];
            match self.input.read(&mut buffer) {
                Ok(0) => {
                    let _ = self.write_all("\n");
                    return AskOutcome::Cancelled { reason: "the terminal input was closed (end of file)".to_owned() };
                }
                Ok(n_read) => self.pending.extend_from_slice(&buffer[..n_read]),
                Err(err) if err.kind() == io::ErrorKind::Interrupted || err.kind() == io::ErrorKind::WouldBlock => (),
                Err(err) => return AskOutcome::Cancelled { reason: format!("reading the terminal failed: {err}") },
            }
        }
    }

    fn write_all(&mut self, text: &str) -> io::Result<()> {
        self.output.write_all(text.as_bytes())?;
        self.output.flush()
    }

    /// Drops input typed before the card was shown (terminals only; a pipe keeps its bytes).
    fn discard_typeahead(&mut self) {
        self.pending.clear();
        let fd = self.input.as_raw_fd();
        // SAFETY: `fd` is owned by `self.input` and open for the duration of both calls.
        unsafe {
            if libc::isatty(fd) == 1 {
                libc::tcflush(fd, libc::TCIFLUSH);
            }
        }
    }

    /// The next complete line (without its line ending), if one has been read.
    fn take_line(&mut self) -> Option<String> {
        let newline_idx = self.pending.iter().position(|&byte| byte == b'\n')?;
        let line: Vec<u8> = self.pending.drain(..=newline_idx).collect();
        let text = String::from_utf8_lossy(&line);
        Some(text.trim_end_matches(['\n', '\r']).to_owned())
    }

    /// Waits up to `wait` for the input to become readable (or hung up, which reads as EOF).
    fn wait_readable(&self, wait: Duration) -> io::Result<bool> {
        let mut poll_fd = libc::pollfd { fd: self.input.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let wait_ms = wait.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: one valid pollfd, count 1; the fd stays open while `self.input` lives.
        let n_ready = unsafe { libc::poll(&mut poll_fd, 1, wait_ms) };
        if n_ready < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(err);
        }
        Ok(n_ready > 0 && poll_fd.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0)
    }
}

/// The card as shown on the terminal: header, question, context, numbered options, prompt.
fn render_card(card: &AskCard, timeout: Duration) -> String {
    let kind = match card.kind {
        CardKind::Question => "question",
        CardKind::Permission => "permission",
    };
    let mut text = format!("\n── card {} · {kind}", card.number);
    if let Some(asked_by) = &card.asked_by {
        text.push_str(&format!(" · asked by {asked_by}"));
    }
    text.push_str(&format!(" · answer within {} ──\n", human_duration(timeout)));
    text.push_str(&card.question);
    text.push('\n');
    if let Some(context) = &card.context {
        for line in context.lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    for (option_idx, option) in card.options.iter().enumerate() {
        text.push_str(&format!("  {}. {}", option_idx + 1, option.label));
        if let Some(description) = &option.description {
            text.push_str(&format!(" — {description}"));
        }
        text.push('\n');
    }
    text.push_str(&prompt_line(card));
    text
}

/// The line that tells the human what to type.
fn prompt_line(card: &AskCard) -> String {
    let mut ways = Vec::new();
    match (card.options.len(), card.multi_select) {
        (0, _) => (),
        (1, _) => ways.push("1".to_owned()),
        (n_options, false) => ways.push(format!("a number 1-{n_options}")),
        (n_options, true) => ways.push(format!("numbers 1-{n_options} separated by commas")),
    }
    if card.allow_free_text {
        ways.push("your own answer".to_owned());
    }
    ways.push("s to skip".to_owned());
    format!("answer ({}): ", ways.join(", or "))
}

/// What the human sees after answering.
fn acknowledgement(card: &AskCard, outcome: &AskOutcome) -> String {
    match outcome {
        AskOutcome::Answered { selected, free_text } => {
            let mut parts: Vec<String> = selected.clone();
            if let Some(free_text) = free_text {
                parts.push(format!("{free_text:?}"));
            }
            format!("card {}: {}\n", card.number, parts.join(", "))
        }
        AskOutcome::Skipped => format!("card {}: skipped\n", card.number),
        _ => String::new(),
    }
}

/// Parses one answer line for `card`.
///
/// # Errors
/// A message for the human saying what was wrong (unknown number, several numbers on a
/// single-choice card, text where only a choice is allowed, an empty line).
fn parse_answer(card: &AskCard, line: &str) -> Result<AskOutcome, String> {
    let answer = line.trim();
    if answer.is_empty() {
        return Err("empty answer".to_owned());
    }
    if answer.eq_ignore_ascii_case("s") || answer.eq_ignore_ascii_case("skip") {
        return Ok(AskOutcome::Skipped);
    }
    if let Some(option) = card.options.iter().find(|option| option.label.eq_ignore_ascii_case(answer)) {
        return Ok(AskOutcome::Answered { selected: vec![option.label.clone()], free_text: None });
    }
    let looks_numeric = answer.chars().all(|c| c.is_ascii_digit() || c == ',' || c.is_whitespace());
    if !card.options.is_empty() && looks_numeric {
        let mut selected: Vec<String> = Vec::new();
        for piece in answer.split([',', ' ', '\t']).filter(|piece| !piece.is_empty()) {
            let number: usize = piece.parse().map_err(|_| format!("{piece:?} is not a number"))?;
            let Some(option) = number.checked_sub(1).and_then(|option_idx| card.options.get(option_idx)) else {
                return Err(format!("there is no option {number}; choose 1-{}", card.options.len()));
            };
            if !selected.contains(&option.label) {
                selected.push(option.label.clone());
            }
        }
        if selected.is_empty() {
            return Err("no option number given".to_owned());
        }
        if selected.len() > 1 && !card.multi_select {
            return Err("choose exactly one option on this card".to_owned());
        }
        return Ok(AskOutcome::Answered { selected, free_text: None });
    }
    if card.allow_free_text {
        return Ok(AskOutcome::Answered { selected: Vec::new(), free_text: Some(answer.to_owned()) });
    }
    Err(format!("{answer:?} is not one of the options; type an option number"))
}

fn human_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0 => format!("{} ms", duration.as_millis()),
        1..=119 => format!("{seconds} s"),
        _ => format!("{} min", seconds / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::AskOption;

    fn card(labels: &[&str], allow_free_text: bool, multi_select: bool) -> AskCard {
        AskCard {
            number: 7,
            kind: CardKind::Question,
            target_space: "terminal".to_owned(),
            question: "Which database?".to_owned(),
            context: Some("decides the driver".to_owned()),
            options: labels.iter().map(|label| AskOption { label: (*label).to_owned(), description: None }).collect(),
            allow_free_text,
            multi_select,
            asked_by: None,
        }
    }

    fn answered(selected: &[&str], free_text: Option<&str>) -> AskOutcome {
        AskOutcome::Answered {
            selected: selected.iter().map(|label| (*label).to_owned()).collect(),
            free_text: free_text.map(str::to_owned),
        }
    }

    #[test]
    fn numbers_pick_options_from_one() {
        let card = card(&["postgres", "sqlite", "none"], false, false);
        assert_eq!(parse_answer(&card, "2"), Ok(answered(&["sqlite"], None)));
        assert_eq!(parse_answer(&card, " 1 \r"), Ok(answered(&["postgres"], None)));
        assert!(parse_answer(&card, "0").unwrap_err().contains("no option 0"));
        assert!(parse_answer(&card, "4").unwrap_err().contains("choose 1-3"));
        assert!(parse_answer(&card, "1,2").unwrap_err().contains("exactly one"));
    }

    #[test]
    fn multi_select_takes_comma_separated_numbers() {
        let card = card(&["a", "b", "c"], false, true);
        assert_eq!(parse_answer(&card, "1,3"), Ok(answered(&["a", "c"], None)));
        assert_eq!(parse_answer(&card, "3, 1, 3"), Ok(answered(&["c", "a"], None)));
        assert!(parse_answer(&card, ",").unwrap_err().contains("no option number"));
    }

    #[test]
    fn skip_label_and_free_text() {
        let card_free = card(&["yes", "no"], true, false);
        assert_eq!(parse_answer(&card_free, "s"), Ok(AskOutcome::Skipped));
        assert_eq!(parse_answer(&card_free, "SKIP"), Ok(AskOutcome::Skipped));
        assert_eq!(parse_answer(&card_free, "No"), Ok(answered(&["no"], None)));
        assert_eq!(parse_answer(&card_free, "use mysql"), Ok(answered(&[], Some("use mysql"))));
        let card_closed = card(&["yes", "no"], false, false);
        assert!(parse_answer(&card_closed, "use mysql").unwrap_err().contains("not one of the options"));
        assert!(parse_answer(&card_closed, "   ").unwrap_err().contains("empty"));
        let card_open = card(&[], true, false);
        assert_eq!(parse_answer(&card_open, "42"), Ok(answered(&[], Some("42"))));
    }

    #[test]
    fn render_numbers_options_and_says_how_to_answer() {
        let mut card = card(&["postgres", "sqlite"], true, false);
        card.options[1].description = Some("a file".to_owned());
        let text = render_card(&card, Duration::from_secs(600));
        assert!(text.contains("card 7 · question"), "{text}");
        assert!(text.contains("answer within 10 min"), "{text}");
        assert!(text.contains("  1. postgres\n  2. sqlite — a file\n"), "{text}");
        assert!(text.contains("  decides the driver\n"), "{text}");
        assert!(text.ends_with("answer (a number 1-2, or your own answer, or s to skip): "), "{text}");
    }

    /// Drives the port through a pipe: a bad answer is re-prompted, a line split across two
    /// writes is reassembled, and silence times out within the budget.
    #[test]
    fn reads_lines_reprompts_and_times_out() {
        let (read_end, mut write_end) = pipe();
        let output = SharedOutput::default();
        let port = TerminalAskPort::new(read_end, Box::new(output.clone()));
        let card = card(&["alpha", "beta"], false, false);
        let writer = std::thread::spawn(move || {
            write_end.write_all(b"9\n").unwrap();
            std::thread::sleep(Duration::from_millis(50));
            write_end.write_all(b"be").unwrap();
            std::thread::sleep(Duration::from_millis(50));
            write_end.write_all(b"ta\n").unwrap();
            write_end
        });
        let outcome = port.ask(&card, Duration::from_secs(10));
        assert_eq!(outcome, answered(&["beta"], None));
        let shown = output.text();
        assert!(shown.contains("there is no option 9"), "{shown}");
        assert!(shown.contains("card 7: beta"), "{shown}");
        let _write_end = writer.join().unwrap();
        let started = Instant::now();
        assert_eq!(port.ask(&card, Duration::from_millis(300)), AskOutcome::TimedOut);
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(3), "{waited:?}");
        drop(_write_end);
        assert!(matches!(port.ask(&card, Duration::from_secs(5)), AskOutcome::Cancelled { .. }));
    }

    fn pipe() -> (OwnedFd, File) {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
        let rc = unsafe { libc::pipe(fds.as_mut_ptr()) };
        assert_eq!(rc, 0, "pipe failed");
        // SAFETY: both descriptors were just created and are owned by nobody else.
        unsafe { (std::os::fd::FromRawFd::from_raw_fd(fds[0]), std::os::fd::FromRawFd::from_raw_fd(fds[1])) }
    }

    #[derive(Clone, Default)]
    struct SharedOutput(std::sync::Arc<Mutex<Vec<u8>>>);

    impl SharedOutput {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock()).into_owned()
        }
    }

    impl Write for SharedOutput {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
