//! The ask channel between a run and a `runbound` run inside one of its workers: the worker's
//! `ask_user` cards and permission prompts are shown by the parent run's port, labelled with the
//! worker, and the answer comes back typed (answered, skipped, timed out, no human, cancelled).
//!
//! The channel is a private directory (mode 0700) whose path the worker inherits in
//! [`ENV_ASK_CHANNEL`]. The worker side ([`ChannelAskPort`]) writes one card per file,
//! `q-<id>.json`, atomically (temp file + rename) and polls for `a-<id>.json`; the parent side
//! ([`AskChannelHost`]) polls for cards on a named thread, asks its own port, and writes the
//! answer atomically. No socket listens, and several `runbound` processes of one worker (an
//! agent's `runbound serve` and its `runbound call`s) share the channel without ever reading
//! each other's answers (each card has its own answer file).
//!
//! Why not an inherited pipe pair: answers on one shared pipe would reach whichever process reads
//! first, and MCP stdio clients close inherited descriptors (Python's `close_fds`, Node's
//! `spawn`), so a `runbound serve` started by the worker's agent would never see them. The
//! directory's path survives both, and a process whose client stripped the environment finds it
//! in an ancestor's initial environment, like `RUNBOUND_WORKER_CALLER`
//! ([`crate::transport::process::inherited_environment_variable`]).
//!
//! Silence is never consent: a card nobody answers is `timed_out` (a permission prompt then
//! counts as denied), a channel whose parent has no human answers `no_human` at once, and a
//! channel that disappears (the attempt ended) answers `no_human`.
//!
//! The wire format (also used by the Ray backend, whose job relays cards through its log and
//! answers through the cluster's key-value store): a card is [`RelayedCard`] as JSON; an
//! answer is [`outcome_to_json`].

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{AskCard, AskOption, AskOutcome, AskPort, CardKind};

/// Environment variable: the path of the ask channel directory a worker's `runbound` uses.
pub const ENV_ASK_CHANNEL: &str = "RUNBOUND_ASK_CHANNEL";

/// How often each side looks for the other's files.
const POLL_INTERVAL: Duration = Duration::from_millis(50);
/// How long past its own timeout a worker waits for the parent's answer (the parent answers
/// `timed_out` itself when its port times out).
const ANSWER_GRACE: Duration = Duration::from_secs(3);
/// The description file the parent writes when it opens a channel.
const CHANNEL_FILE: &str = "channel.json";

/// One card as it travels from a worker to the parent run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayedCard {
    /// `question` or `permission`.
    pub kind: CardKind,
    /// The question.
    pub question: String,
    /// Why it is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The choices.
    #[serde(default)]
    pub options: Vec<AskOption>,
    /// Whether free text is accepted.
    #[serde(default)]
    pub allow_free_text: bool,
    /// Whether several options may be chosen.
    #[serde(default)]
    pub multi_select: bool,
    /// Who asked inside the worker (a nested worker's label), if anyone but the worker itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
    /// How long the asker waits, in milliseconds.
    pub timeout_ms: u64,
}

impl RelayedCard {
    /// The relayed form of `card`, which the asker waits `timeout` for.
    pub fn from_card(card: &AskCard, timeout: Duration) -> RelayedCard {
        RelayedCard {
            kind: card.kind,
            question: card.question.clone(),
            context: card.context.clone(),
            options: card.options.clone(),
            allow_free_text: card.allow_free_text,
            multi_select: card.multi_select,
            asked_by: card.asked_by.clone(),
            timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// The card the parent shows: numbered `number` in `target_space`, asked by `worker_label`
    /// (followed by ` › <inner asker>` when the card came from deeper down).
    pub fn to_card(&self, number: u64, target_space: &str, worker_label: &str) -> AskCard {
        AskCard {
            number,
            kind: self.kind,
            target_space: target_space.to_owned(),
            question: self.question.clone(),
            context: self.context.clone(),
            options: self.options.clone(),
            allow_free_text: self.allow_free_text,
            multi_select: self.multi_select,
            asked_by: Some(match &self.asked_by {
                Some(inner) => format!("{worker_label} › {inner}"),
                None => worker_label.to_owned(),
            }),
        }
    }

    /// The asker's timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// The wire form of an outcome: `{"outcome": "answered", "selected": [...], "free_text": ...}`,
/// `{"outcome": "skipped"}`, `{"outcome": "timed_out"}`, `{"outcome": "no_human", "reason":
/// ...}` or `{"outcome": "cancelled", "reason": ...}`.
pub fn outcome_to_json(outcome: &AskOutcome) -> Value {
    match outcome {
        AskOutcome::Answered { selected, free_text } => json!({"outcome": "answered", "selected": selected, "free_text": free_text}),
        AskOutcome::Skipped => json!({"outcome": "skipped"}),
        AskOutcome::TimedOut => json!({"outcome": "timed_out"}),
        AskOutcome::NoHuman { reason } => json!({"outcome": "no_human", "reason": reason}),
        AskOutcome::Cancelled { reason } => json!({"outcome": "cancelled", "reason": reason}),
    }
}

/// Reads an outcome written by [`outcome_to_json`]. Anything else is `cancelled` with the
/// reason: an unreadable answer is never taken for consent.
pub fn outcome_from_json(value: &Value) -> AskOutcome {
    let reason = || value.get("reason").and_then(Value::as_str).unwrap_or("no reason given").to_owned();
    match value.get("outcome").and_then(Value::as_str) {
        Some("answered") => AskOutcome::Answered {
            selected: value
                .get("selected")
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            free_text: value.get("free_text").and_then(Value::as_str).map(str::to_owned),
        },
        Some("skipped") => AskOutcome::Skipped,
        Some("timed_out") => AskOutcome::TimedOut,
        Some("no_human") => AskOutcome::NoHuman { reason: reason() },
        Some("cancelled") => AskOutcome::Cancelled { reason: reason() },
        _ => AskOutcome::Cancelled { reason: format!("the parent run's answer could not be read: {value}") },
    }
}

/// What the parent says about a channel when it opens it (`channel.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelDescription {
    /// Wire version, 1.
    pub version: u32,
    /// The worker the channel belongs to, e.g. `worker_3: fix tests`.
    pub worker_label: String,
    /// Whether `ask_user` questions are relayed (permission prompts always are).
    pub questions: bool,
    /// Where the parent shows cards (its target space).
    pub parent_target_space: String,
}

/// The worker side: an [`AskPort`] whose cards are shown by the parent run.
#[derive(Debug, Clone)]
pub struct ChannelAskPort {
    dir: PathBuf,
    description: ChannelDescription,
}

/// Where a worker's `runbound` found its channel.
#[derive(Debug, Clone)]
pub struct FoundChannel {
    /// The port.
    pub port: ChannelAskPort,
    /// `this process's environment` or `the environment of ancestor pid N (comm)`.
    pub found_in: String,
}

impl ChannelAskPort {
    /// Opens the channel directory `dir` (reads its `channel.json`).
    ///
    /// # Errors
    /// When the directory or its description cannot be read (the attempt that made it ended).
    pub fn open(dir: &Path) -> Result<ChannelAskPort, String> {
        let text = std::fs::read_to_string(dir.join(CHANNEL_FILE)).map_err(|err| {
            format!("the ask channel {} cannot be read ({err}); the worker attempt that made it has ended", dir.display())
        })?;
        let description: ChannelDescription =
            serde_json::from_str(&text).map_err(|err| format!("the ask channel {} has an unreadable description: {err}", dir.display()))?;
        Ok(ChannelAskPort { dir: dir.to_path_buf(), description })
    }

    /// The channel this process inherited: [`ENV_ASK_CHANNEL`] in its own environment, else in
    /// the nearest ancestor's initial environment (an MCP client may have stripped it). `None`
    /// when no process on the chain has the variable.
    ///
    /// # Errors
    /// When the variable is set but the channel cannot be opened.
    pub fn from_environment() -> Result<Option<FoundChannel>, String> {
        let Some((value, found_in)) = crate::transport::process::inherited_environment_variable(ENV_ASK_CHANNEL).into_iter().next() else {
            return Ok(None);
        };
        let port = ChannelAskPort::open(Path::new(&value)).map_err(|err| format!("{ENV_ASK_CHANNEL} from {found_in}: {err}"))?;
        Ok(Some(FoundChannel { port, found_in }))
    }

    /// What the parent said about the channel.
    pub fn description(&self) -> &ChannelDescription {
        &self.description
    }

    /// Whether the parent relays `ask_user` questions (else only permission prompts).
    pub fn questions_allowed(&self) -> bool {
        self.description.questions
    }

    /// The channel directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl AskPort for ChannelAskPort {
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome {
        if card.kind == CardKind::Question && !self.description.questions {
            return AskOutcome::NoHuman { reason: "the parent run does not relay its workers' questions".to_owned() };
        }
        static SEQUENCE: AtomicU64 = AtomicU64::new(0);
        let id = format!("{}-{}-{}", std::process::id(), SEQUENCE.fetch_add(1, Ordering::Relaxed), unique_nanos());
        let question_path = self.dir.join(format!("q-{id}.json"));
        let answer_path = self.dir.join(format!("a-{id}.json"));
        let relayed = RelayedCard::from_card(card, timeout);
        let text = serde_json::to_vec(&relayed).unwrap_or_default();
        if let Err(err) = write_atomically(&self.dir, &question_path, &text) {
            return AskOutcome::NoHuman {
                reason: format!("the parent run's ask channel cannot be written ({err}); the attempt has ended"),
            };
        }
        let deadline = Instant::now() + timeout + ANSWER_GRACE;
        loop {
            match std::fs::read(&answer_path) {
                Ok(bytes) => {
                    let _ = std::fs::remove_file(&answer_path);
                    let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                    return outcome_from_json(&value);
                }
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    return AskOutcome::Cancelled { reason: format!("the parent's answer could not be read: {err}") };
                }
                Err(_) => {}
            }
            if !self.dir.is_dir() {
                return AskOutcome::NoHuman { reason: "the parent run's ask channel closed (the worker attempt ended)".to_owned() };
            }
            if Instant::now() >= deadline {
                // Withdraw the card if the parent has not taken it yet.
                let _ = std::fs::remove_file(&question_path);
                return AskOutcome::TimedOut;
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }
}

/// Answers a worker's card for an [`AskChannelHost`]: called on the channel's thread with the
/// relayed card; returns the outcome written back. Blocks while the human decides.
pub type AnswerCard = dyn Fn(&RelayedCard) -> AskOutcome + Send + Sync;

/// The parent side of one channel: a private directory and the named thread that answers the
/// cards written into it. Dropping it stops the thread and removes the directory; a card still
/// being shown by the parent's port is abandoned (the port's own timeout ends it) and the
/// worker reads `no_human` (the channel closed).
pub struct AskChannelHost {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    done: crossbeam_channel::Receiver<()>,
}

impl AskChannelHost {
    /// Opens a channel for `description` and starts its thread (named `thread_name`), which
    /// answers each card with `answer`.
    ///
    /// # Errors
    /// When the directory or the thread cannot be created.
    pub fn start(description: ChannelDescription, thread_name: &str, answer: Arc<AnswerCard>) -> Result<AskChannelHost, String> {
        let dir = tempfile::Builder::new()
            .prefix("runbound-ask-")
            .tempdir()
            .map_err(|err| format!("cannot create the ask channel directory: {err}"))?;
        let path = dir.path().to_path_buf();
        let text = serde_json::to_vec_pretty(&description).unwrap_or_default();
        write_atomically(&path, &path.join(CHANNEL_FILE), &text)
            .map_err(|err| format!("cannot write the ask channel description: {err}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let (done_sender, done) = crossbeam_channel::bounded(1);
        let thread_stop = Arc::clone(&stop);
        let thread_path = path.clone();
        let thread = std::thread::Builder::new()
            .name(thread_name.to_owned())
            .spawn(move || {
                serve_channel(&thread_path, &thread_stop, &*answer);
                let _ = done_sender.send(());
            })
            .map_err(|err| format!("cannot start the ask channel thread: {err}"))?;
        Ok(AskChannelHost { dir: Some(dir), path, stop, thread: Some(thread), done })
    }

    /// The channel directory (the value of [`ENV_ASK_CHANNEL`] for the worker).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for AskChannelHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Removing the directory first tells a waiting worker the channel closed.
        drop(self.dir.take());
        if let Some(thread) = self.thread.take() {
            // The thread notices the stop within one poll, unless the parent's port is showing a
            // card: then it is left to finish on the port's own timeout rather than blocking
            // the attempt's end.
            if self.done.recv_timeout(Duration::from_secs(1)).is_ok() {
                let _ = thread.join();
            }
        }
    }
}

impl std::fmt::Debug for AskChannelHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskChannelHost").field("path", &self.path).finish_non_exhaustive()
    }
}

fn serve_channel(dir: &Path, stop: &AtomicBool, answer: &AnswerCard) {
    while !stop.load(Ordering::SeqCst) {
        let mut questions: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| {
                    path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.starts_with("q-") && name.ends_with(".json"))
                })
                .collect(),
            Err(_) => return,
        };
        // Oldest first (ids start with pid and sequence; modification time orders them).
        questions.sort_by_key(|path| std::fs::metadata(path).and_then(|meta| meta.modified()).ok());
        for question_path in questions {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let Ok(bytes) = std::fs::read(&question_path) else { continue };
            let _ = std::fs::remove_file(&question_path);
            let Some(id) = question_path.file_name().and_then(|name| name.to_str()).and_then(|name| name.strip_prefix("q-")) else {
                continue;
            };
            let answer_path = dir.join(format!("a-{id}"));
            let outcome = match serde_json::from_slice::<RelayedCard>(&bytes) {
                Ok(card) => answer(&card),
                Err(err) => AskOutcome::Cancelled { reason: format!("the card could not be read by the parent run: {err}") },
            };
            let text = serde_json::to_vec(&outcome_to_json(&outcome)).unwrap_or_default();
            let _ = write_atomically(dir, &answer_path, &text);
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Writes `bytes` to `path` through a temp file in `dir` and a rename, so a reader never sees a
/// half-written file.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_data().ok();
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
}

fn unique_nanos() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.subsec_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description(questions: bool) -> ChannelDescription {
        ChannelDescription { version: 1, worker_label: "worker_1: t".to_owned(), questions, parent_target_space: "tests".to_owned() }
    }

    fn card(kind: CardKind) -> AskCard {
        AskCard {
            number: 7,
            kind,
            target_space: "inner".to_owned(),
            question: "Which?".to_owned(),
            context: None,
            options: vec![AskOption { label: "a".to_owned(), description: None }],
            allow_free_text: false,
            multi_select: false,
            asked_by: None,
        }
    }

    #[test]
    fn outcomes_round_trip_and_garbage_is_never_consent() {
        for outcome in [
            AskOutcome::Answered { selected: vec!["a".to_owned()], free_text: Some("x".to_owned()) },
            AskOutcome::Skipped,
            AskOutcome::TimedOut,
            AskOutcome::NoHuman { reason: "r".to_owned() },
            AskOutcome::Cancelled { reason: "c".to_owned() },
        ] {
            assert_eq!(outcome_from_json(&outcome_to_json(&outcome)), outcome);
        }
        assert!(matches!(outcome_from_json(&json!({"outcome": "yes"})), AskOutcome::Cancelled { .. }));
        assert!(matches!(outcome_from_json(&Value::Null), AskOutcome::Cancelled { .. }));
    }

    #[test]
    fn a_card_crosses_the_channel_labelled_and_typed() {
        let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let seen_by_host = Arc::clone(&seen);
        let host = AskChannelHost::start(
            description(false),
            "test-ask-channel",
            Arc::new(move |card: &RelayedCard| {
                seen_by_host.lock().push(card.to_card(1, "parent", "worker_1: t"));
                AskOutcome::Answered { selected: vec!["a".to_owned()], free_text: None }
            }),
        )
        .unwrap();
        let port = ChannelAskPort::open(host.path()).unwrap();
        let outcome = port.ask(&card(CardKind::Permission), Duration::from_secs(5));
        assert_eq!(outcome, AskOutcome::Answered { selected: vec!["a".to_owned()], free_text: None });
        assert_eq!(seen.lock()[0].asked_by.as_deref(), Some("worker_1: t"));
        // Questions are not relayed by this channel: no human, at once, and the host never saw it.
        let started = Instant::now();
        assert!(matches!(port.ask(&card(CardKind::Question), Duration::from_secs(5)), AskOutcome::NoHuman { .. }));
        assert!(started.elapsed() < Duration::from_secs(1));
        assert_eq!(seen.lock().len(), 1);
        let dir = host.path().to_path_buf();
        drop(host);
        assert!(!dir.exists());
        assert!(matches!(port.ask(&card(CardKind::Permission), Duration::from_secs(5)), AskOutcome::NoHuman { .. }));
    }
}
