//! `ScriptedAskPort`: answers cards from a script, for tests and non-interactive hosts.

use std::collections::VecDeque;
use std::time::Duration;

use parking_lot::Mutex;

use super::{AskCard, AskOutcome, AskPort};

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptedAnswer {
    /// Answer with these option labels and optional free text.
    Answer {
        /// Chosen labels.
        selected: Vec<String>,
        /// Free text.
        free_text: Option<String>,
    },
    /// Skip the card.
    Skip,
    /// Let the card time out: the port sleeps for the card's whole timeout, then times out.
    Silence,
    /// Report that no human is attached.
    NoHuman,
}

impl ScriptedAnswer {
    /// Answer by choosing one option label.
    pub fn choose(label: &str) -> ScriptedAnswer {
        ScriptedAnswer::Answer { selected: vec![label.to_owned()], free_text: None }
    }

    /// Answer with free text only.
    pub fn free_text(text: &str) -> ScriptedAnswer {
        ScriptedAnswer::Answer { selected: Vec::new(), free_text: Some(text.to_owned()) }
    }
}

/// Replies to cards in order from a queue and records every card it was shown. When the queue
/// is empty it answers [`AskOutcome::NoHuman`] (never blocks).
#[derive(Debug, Default)]
pub struct ScriptedAskPort {
    answers: Mutex<VecDeque<ScriptedAnswer>>,
    shown: Mutex<Vec<AskCard>>,
}

impl ScriptedAskPort {
    /// A port that will reply with `answers`, in order.
    pub fn new(answers: impl IntoIterator<Item = ScriptedAnswer>) -> ScriptedAskPort {
        ScriptedAskPort { answers: Mutex::new(answers.into_iter().collect()), shown: Mutex::new(Vec::new()) }
    }

    /// Queues one more reply.
    pub fn push(&self, answer: ScriptedAnswer) {
        self.answers.lock().push_back(answer);
    }

    /// Every card shown so far, in order.
    pub fn shown_cards(&self) -> Vec<AskCard> {
        self.shown.lock().clone()
    }
}

impl AskPort for ScriptedAskPort {
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome {
        self.shown.lock().push(card.clone());
        let next = self.answers.lock().pop_front();
        match next {
            Some(ScriptedAnswer::Answer { selected, free_text }) => AskOutcome::Answered { selected, free_text },
            Some(ScriptedAnswer::Skip) => AskOutcome::Skipped,
            Some(ScriptedAnswer::Silence) => {
                std::thread::sleep(timeout);
                AskOutcome::TimedOut
            }
            Some(ScriptedAnswer::NoHuman) | None => AskOutcome::NoHuman { reason: "the scripted port has no answer queued".to_owned() },
        }
    }
}
