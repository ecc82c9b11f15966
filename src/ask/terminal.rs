//! `TerminalAskPort`: renders cards on the controlling terminal for the CLI (to be written).

use std::time::Duration;

use super::{AskCard, AskOutcome, AskPort};

/// Renders numbered cards on the TTY and reads the answer; `s` skips.
#[derive(Debug, Default)]
pub struct TerminalAskPort {}

impl AskPort for TerminalAskPort {
    fn ask(&self, _card: &AskCard, _timeout: Duration) -> AskOutcome {
        AskOutcome::NoHuman { reason: "terminal port not implemented yet".to_owned() }
    }
}
