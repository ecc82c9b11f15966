//! The port to the human: `ask_user` question cards and permission prompts (R-ASK-1..4, docs/contract.md).
//!
//! A card is numbered (sequential per run) and rendered by the host's [`AskPort`]. `ask_user`
//! blocks until the human answers, skips, or the card times out. Skip is success (carry on
//! under a stated assumption, do not ask again); a timeout is an error with the same
//! instruction; with no human attached the call fails at once, never blocks (fail-closed).
//! Permission prompts use the same card with the options allow once / allow for this run /
//! deny; an unknown or cancelled answer is a denial.

mod channel;
mod scripted;
mod terminal;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::registry::{CallContext, CallOrigin, PermissionPrompt, PermissionRequest, Registry, Resource, ToolDescriptor, ToolOutput};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

pub use crate::registry::PermissionDecision;

pub use channel::{
    outcome_from_json, outcome_to_json, AnswerCard, AskChannelHost, ChannelAskPort, ChannelDescription, FoundChannel, RelayedCard,
    ENV_ASK_CHANNEL,
};
pub use scripted::{ScriptedAnswer, ScriptedAskPort};
pub use terminal::TerminalAskPort;

/// Time budgets of cards.
#[derive(Debug, Clone)]
pub struct AskConfig {
    /// How long an `ask_user` question waits for a human (default 10 min).
    pub question_timeout: Duration,
    /// How long a permission prompt waits before it counts as denied (default 5 min).
    pub permission_timeout: Duration,
}

impl Default for AskConfig {
    fn default() -> Self {
        AskConfig { question_timeout: Duration::from_secs(600), permission_timeout: Duration::from_secs(300) }
    }
}

/// What a card asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CardKind {
    /// An `ask_user` question.
    Question,
    /// A permission prompt ("may I run this?").
    Permission,
}

/// One choice on a card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AskOption {
    /// Short label, returned verbatim when chosen.
    #[schemars(length(min = 1))]
    pub label: String,
    /// Optional longer explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A numbered card shown to the human.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskCard {
    /// Sequential per run, from 1; questions and permissions share the counter.
    pub number: u64,
    /// Question or permission.
    pub kind: CardKind,
    /// Where the card renders (the run's target space).
    pub target_space: String,
    /// The question, one or two sentences.
    pub question: String,
    /// Why it is asked and what the answer decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The choices, in display order (numbered from 1 when rendered).
    pub options: Vec<AskOption>,
    /// Whether a free-text answer is accepted.
    pub allow_free_text: bool,
    /// Whether several options may be chosen.
    pub multi_select: bool,
    /// Who asks (e.g. a worker's label); `None` for the main agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
}

/// How a card ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskOutcome {
    /// The human answered.
    Answered {
        /// Labels of the chosen options (empty when only free text was given).
        selected: Vec<String>,
        /// Free text, when given.
        free_text: Option<String>,
    },
    /// The human chose to skip.
    Skipped,
    /// Nobody answered within the budget.
    TimedOut,
    /// No human is attached; the port answered at once.
    NoHuman {
        /// Why, e.g. "stdin is not a terminal".
        reason: String,
    },
    /// The card was withdrawn (host cancelled, connection closed).
    Cancelled {
        /// Why.
        reason: String,
    },
}

/// The host's channel to a human. Implementations must honor `timeout` and must return
/// [`AskOutcome::NoHuman`] at once rather than block when nobody can answer.
pub trait AskPort: Send + Sync {
    /// Renders `card` and blocks until it is answered, skipped, timed out or cancelled.
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome;
}

/// An attached port plus the space its cards render in, the run's `ask` section and the run's
/// card counter (questions and permission prompts share it).
pub struct AskBinding {
    /// The port.
    pub port: Arc<dyn AskPort>,
    /// The target space (conversation channel) cards render in.
    pub target_space: String,
    config: AskConfig,
    card_counter: AtomicU64,
}

impl AskBinding {
    /// Binds `port` for a run: cards render in `target_space`, wait as long as `config` says,
    /// and are numbered from 1.
    pub fn new(port: Arc<dyn AskPort>, target_space: impl Into<String>, config: AskConfig) -> AskBinding {
        AskBinding { port, target_space: target_space.into(), config, card_counter: AtomicU64::new(0) }
    }

    /// The card time budgets this binding uses.
    pub fn config(&self) -> &AskConfig {
        &self.config
    }

    /// The next card number (1, 2, …; sequential per run, shared by questions and permissions).
    pub fn next_card_number(&self) -> u64 {
        self.card_counter.fetch_add(1, Ordering::SeqCst) + 1
    }
}

impl std::fmt::Debug for AskBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskBinding").field("target_space", &self.target_space).field("config", &self.config).finish_non_exhaustive()
    }
}

/// True when `result` is an approval denial because no human was attached to answer the
/// permission prompt (the registry marks it with `structuredContent.error.details.no_human_attached`).
/// Hosts use it to tell the user how to attach one or change the policy.
pub fn is_no_human_denial(result: &ToolResult) -> bool {
    let Some(error) = result.structured_content.as_ref().and_then(|structured| structured.get("error")) else { return false };
    error.get("kind").and_then(Value::as_str) == Some("approval_denied")
        && error.pointer("/details/no_human_attached").and_then(Value::as_bool) == Some(true)
}

/// Option label: allow this call only.
pub const PERMISSION_ALLOW_ONCE: &str = "allow once";
/// Option label: allow this tool for the rest of the run.
pub const PERMISSION_ALLOW_FOR_RUN: &str = "allow for this run";
/// Option label: deny.
pub const PERMISSION_DENY: &str = "deny";

impl Resource for AskBinding {
    const NAME: &'static str = "ask port";
    const WIRED_BY: &'static str = "RunBuilder::ask_port(port, target_space)";
}

/// The registry's permission prompts go to the human as numbered permission cards (options
/// allow once / allow for this run / deny). A timeout, a cancellation or an unknown answer is a
/// denial; a port with nobody behind it is [`PermissionDecision::NoHuman`].
impl PermissionPrompt for AskBinding {
    fn request_permission(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        let binding = self;
        let descriptor = request.descriptor;
        let arguments_text = crate::render::cut_chars(&serde_json::to_string(request.arguments).unwrap_or_default(), 600);
        let asked_by = match request.origin {
            CallOrigin::Worker { label } => Some(label.clone()),
            CallOrigin::Bridge { via } => Some(format!("{via} bridge")),
            CallOrigin::Model => None,
        };
        let card = AskCard {
            number: binding.next_card_number(),
            kind: CardKind::Permission,
            target_space: binding.target_space.clone(),
            question: format!("Allow {} ({} tier) to run?", descriptor.name, descriptor.tier),
            context: Some(format!("arguments: {arguments_text}")),
            options: [PERMISSION_ALLOW_ONCE, PERMISSION_ALLOW_FOR_RUN, PERMISSION_DENY]
                .iter()
                .map(|label| AskOption { label: (*label).to_owned(), description: None })
                .collect(),
            allow_free_text: false,
            multi_select: false,
            asked_by,
        };
        match binding.port.ask(&card, binding.config.permission_timeout) {
            AskOutcome::Answered { selected, .. } => match selected.first().map(String::as_str) {
                Some(PERMISSION_ALLOW_ONCE) if selected.len() == 1 => PermissionDecision::AllowOnce,
                Some(PERMISSION_ALLOW_FOR_RUN) if selected.len() == 1 => PermissionDecision::AllowForRun,
                Some(PERMISSION_DENY) => PermissionDecision::Denied("the user denied it".to_owned()),
                _ => PermissionDecision::Denied(format!("unrecognized answer {selected:?} counts as a denial")),
            },
            AskOutcome::Skipped => PermissionDecision::Denied("the user skipped the prompt".to_owned()),
            AskOutcome::TimedOut => {
                PermissionDecision::Denied(format!("nobody answered within {} s", binding.config.permission_timeout.as_secs()))
            }
            AskOutcome::NoHuman { reason } => PermissionDecision::NoHuman(format!("no human is attached ({reason})")),
            AskOutcome::Cancelled { reason } => PermissionDecision::Denied(format!("the prompt was cancelled ({reason})")),
        }
    }
}

/// The arguments of `ask_user`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AskUserArguments {
    /// The question, one or two sentences.
    #[schemars(length(min = 1))]
    question: String,
    /// Why you ask and what the answer decides.
    #[serde(default)]
    context: Option<String>,
    /// Choices, shown numbered from 1.
    #[serde(default)]
    options: Vec<AskOption>,
    /// Accept a typed answer (default: true when no options are given).
    #[serde(default)]
    allow_free_text: Option<bool>,
    /// Allow choosing several options.
    #[serde(default)]
    multi_select: bool,
}

/// The `structuredContent` of `ask_user` (a timeout, a missing human or a withdrawn card is an
/// error instead).
#[derive(Serialize, JsonSchema)]
struct AskUserOutput {
    /// The card's number in this run.
    card: u64,
    /// Whether the human answered or skipped.
    outcome: AskUserOutcome,
    /// Answered: the labels chosen (may be empty when the answer is free text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    selected: Option<Vec<String>>,
    /// Answered: the typed answer, null when none was typed.
    #[serde(skip_serializing_if = "Option::is_none")]
    free_text: Option<Option<String>>,
}

/// How the human responded to a card.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum AskUserOutcome {
    /// The human answered (options and/or free text).
    Answered,
    /// The human skipped the question: proceed under a stated assumption.
    Skipped,
}

pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(
        ToolDescriptor {
            name: "ask_user".to_owned(),
            title: "Ask the user".to_owned(),
            description: "Ask the human operator a question and wait for the answer. This is the only way to ask \
                the operator anything: never write a question as a chat message (that ends your turn). \
                Renders a numbered card; blocks until the human answers, skips, or it times out. \
                Give `options` when the answer is a choice (each {label, description?}); set `allow_free_text` \
                for open answers (default: true when there are no options). \
                If the human skips, carry on under an explicitly stated assumption and do not ask again. \
                Returns the chosen labels and/or the free text."
                .to_owned(),
            tier: Tier::Read,
            input_schema: crate::schema::input_schema::<AskUserArguments>(),
            output_schema: Some(crate::schema::output_schema::<AskUserOutput>()),
            // Changes nothing in the workspace, but reaches a human outside the run, and asking
            // again is a new card the human must answer again.
            annotations: crate::registry::ToolAnnotations { read_only: true, destructive: false, idempotent: false, open_world: true },
            parallel_safe: true,
            // The card's own timeout (RunConfig::ask.question_timeout) governs; this is a backstop.
            default_timeout: Duration::from_secs(24 * 3600),
        },
        Arc::new(ask_user),
    );
}

fn ask_user(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: AskUserArguments = ctx.parse_arguments(arguments)?;
    let binding = ctx.resource::<AskBinding>()?;
    let allow_free_text = arguments.allow_free_text.unwrap_or(arguments.options.is_empty());
    if arguments.options.is_empty() && !allow_free_text {
        return Err(ToolError::invalid("ask_user has no options and allow_free_text is false, so no answer is possible")
            .with_hint("give options, or set allow_free_text to true"));
    }
    let mut seen = std::collections::HashSet::new();
    for option in &arguments.options {
        if !seen.insert(option.label.as_str()) {
            return Err(ToolError::invalid(format!("option label {:?} appears twice", option.label)).with_hint("make every label unique"));
        }
    }
    let asked_by = match ctx.origin() {
        CallOrigin::Worker { label } => Some(label.clone()),
        _ => None,
    };
    let card = AskCard {
        number: binding.next_card_number(),
        kind: CardKind::Question,
        target_space: binding.target_space.clone(),
        question: arguments.question,
        context: arguments.context,
        options: arguments.options,
        allow_free_text,
        multi_select: arguments.multi_select,
        asked_by,
    };
    let timeout = binding.config.question_timeout.min(ctx.remaining());
    let outcome = binding.port.ask(&card, timeout);
    let number = card.number;
    match outcome {
        AskOutcome::Answered { selected, free_text } => {
            let known: Vec<&str> = card.options.iter().map(|o| o.label.as_str()).collect();
            if let Some(bad) = selected.iter().find(|label| !known.contains(&label.as_str())) {
                return Err(ToolError::failed(format!("card {number}: the answer chose {bad:?}, which is not one of the options")));
            }
            let mut text = format!("card {number} answered.");
            if !selected.is_empty() {
                text.push_str(&format!("\nselected: {}", selected.join(", ")));
            }
            if let Some(free) = &free_text {
                text.push_str(&format!("\nfree text: {free}"));
            }
            if selected.is_empty() && free_text.is_none() {
                text.push_str("\nthe answer was empty: proceed under an explicitly stated assumption");
            }
            Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&AskUserOutput {
                card: number,
                outcome: AskUserOutcome::Answered,
                selected: Some(selected),
                free_text: Some(free_text),
            }))))
        }
        AskOutcome::Skipped => Ok(ToolOutput::new(
            ToolResult::text(format!(
                "card {number} skipped by the user. Carry on under an explicitly stated assumption (say which one you make) \
                 and do not ask this question again."
            ))
            .with_structured(to_structured(&AskUserOutput {
                card: number,
                outcome: AskUserOutcome::Skipped,
                selected: None,
                free_text: None,
            })),
        )),
        AskOutcome::TimedOut => {
            Err(ToolError::new(ErrorKind::Timeout, format!("card {number}: nobody answered within {} s", timeout.as_secs()))
                .with_hint("carry on under an explicitly stated assumption (say which one you make) and do not ask this question again"))
        }
        AskOutcome::NoHuman { reason } => {
            Err(ToolError::new(ErrorKind::Unavailable, format!("no human is attached to this run ({reason}); the question was not shown"))
                .with_hint("decide yourself under an explicitly stated assumption; do not ask again in this run"))
        }
        AskOutcome::Cancelled { reason } => Err(ToolError::new(ErrorKind::Cancelled, format!("card {number} was withdrawn ({reason})"))
            .with_hint("carry on under an explicitly stated assumption")),
    }
}
