//! Cards and permission prompts as MCP elicitation: the stdio host's ask port sends each card
//! as an `elicitation/create` request with a flat `requestedSchema` (see
//! [`elicitation_request_params`]) and maps the host's answer back (see
//! [`elicitation_outcome`]): `accept` → answered, `decline` → skipped (a question) or denied (a
//! permission prompt), `cancel` → cancelled (a denial for a permission prompt). A card that
//! times out or whose call is cancelled is withdrawn with `notifications/cancelled` to the host.

use std::cell::RefCell;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use serde_json::{json, Map, Value};

use crate::ask::{AskCard, AskOutcome, AskPort, CardKind, PERMISSION_DENY};
use crate::registry::CancelToken;
use crate::serve::jsonrpc::RequestId;
use crate::serve::Shared;

/// The `elicitation/create` params for `card`: `{"message": …, "requestedSchema": …}`.
///
/// The schema is flat (MCP 2025-06-18 allows primitive properties only):
/// - permission cards: `decision`, a required string enum of the three permission labels;
/// - single-choice questions: `choice`, a string enum of the option labels (`enumNames` carry
///   the descriptions), required unless free text is allowed;
/// - multi-select questions: one boolean `option_<n>` per option (n from 1, `title` = label);
/// - free text allowed: `answer`, a string (required when there are no options).
pub fn elicitation_request_params(card: &AskCard) -> Value {
    let mut message = format!("card {}: {}", card.number, card.question);
    if let Some(asked_by) = &card.asked_by {
        message.push_str(&format!("\n(asked by {asked_by})"));
    }
    if let Some(context) = &card.context {
        message.push_str(&format!("\n\n{context}"));
    }
    let mut properties = Map::new();
    let mut required: Vec<&str> = Vec::new();
    let labels: Vec<&str> = card.options.iter().map(|option| option.label.as_str()).collect();
    let titles: Vec<String> = card
        .options
        .iter()
        .map(|option| match &option.description {
            Some(description) => format!("{} — {description}", option.label),
            None => option.label.clone(),
        })
        .collect();
    match card.kind {
        CardKind::Permission => {
            properties.insert(
                "decision".to_owned(),
                json!({"type": "string", "title": "Decision", "description": "Whether this tool call may run.", "enum": labels, "enumNames": titles}),
            );
            required.push("decision");
        }
        CardKind::Question if card.options.is_empty() => (),
        CardKind::Question if card.multi_select => {
            for (option_idx, option) in card.options.iter().enumerate() {
                let mut property = json!({"type": "boolean", "title": option.label, "default": false});
                if let Some(description) = &option.description {
                    property["description"] = Value::String(description.clone());
                }
                properties.insert(format!("option_{}", option_idx + 1), property);
            }
        }
        CardKind::Question => {
            properties.insert(
                "choice".to_owned(),
                json!({"type": "string", "title": "Choice", "description": "Pick one option.", "enum": labels, "enumNames": titles}),
            );
            if !card.allow_free_text {
                required.push("choice");
            }
        }
    }
    if card.kind == CardKind::Question && card.allow_free_text {
        let description = if card.options.is_empty() { "Your answer." } else { "Your own answer, instead of or in addition to a choice." };
        properties.insert("answer".to_owned(), json!({"type": "string", "title": "Answer", "description": description}));
        if card.options.is_empty() {
            required.push("answer");
        }
    }
    json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    })
}

/// Maps the host's `elicitation/create` result (`{"action": …, "content": {…}}`) for `card` to
/// an [`AskOutcome`] (see [`elicitation_request_params`] for the field names).
pub fn elicitation_outcome(card: &AskCard, result: &Value) -> AskOutcome {
    let action = result.get("action").and_then(Value::as_str).unwrap_or("");
    let content = result.get("content").cloned().unwrap_or(Value::Null);
    match (action, card.kind) {
        ("accept", CardKind::Permission) => {
            let decision = content.get("decision").and_then(Value::as_str);
            AskOutcome::Answered { selected: decision.map(str::to_owned).into_iter().collect(), free_text: None }
        }
        ("accept", CardKind::Question) => {
            let mut selected = Vec::new();
            if let Some(choice) = content.get("choice").and_then(Value::as_str) {
                selected.push(choice.to_owned());
            }
            for (option_idx, option) in card.options.iter().enumerate() {
                if content.get(format!("option_{}", option_idx + 1)).and_then(Value::as_bool) == Some(true) {
                    selected.push(option.label.clone());
                }
            }
            let free_text = content.get("answer").and_then(Value::as_str).map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned);
            AskOutcome::Answered { selected, free_text }
        }
        ("decline", CardKind::Permission) => AskOutcome::Answered { selected: vec![PERMISSION_DENY.to_owned()], free_text: None },
        ("decline", CardKind::Question) => AskOutcome::Skipped,
        ("cancel", _) => AskOutcome::Cancelled { reason: "the host cancelled the card".to_owned() },
        (other, _) => AskOutcome::Cancelled { reason: format!("the host answered the card with unknown action {other:?}") },
    }
}

thread_local! {
    /// The cancel token of the `tools/call` running on this worker thread, so that a card shown
    /// by that call is withdrawn when the host cancels it.
    pub(crate) static CALL_CANCEL_TOKEN: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// How often a card wait re-checks cancellation.
const CARD_POLL_SLICE: Duration = Duration::from_millis(50);

/// The stdio host's ask port: each card becomes an `elicitation/create` request to the host.
pub(crate) struct ElicitationAskPort {
    pub(crate) shared: Arc<Shared>,
}

impl AskPort for ElicitationAskPort {
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome {
        if self.shared.closed.load(Ordering::SeqCst) {
            return AskOutcome::Cancelled { reason: "the host closed the connection".to_owned() };
        }
        let deadline = Instant::now() + timeout;
        let request_number = self.shared.next_server_request_id.fetch_add(1, Ordering::SeqCst);
        let request_id = RequestId::from_integer(request_number);
        let (response_tx, response_rx) = crossbeam_channel::bounded(1);
        self.shared.pending_elicitations.lock().insert(request_id.clone(), response_tx);
        self.shared.send_value(&json!({
            "jsonrpc": "2.0",
            "id": request_number,
            "method": "elicitation/create",
            "params": elicitation_request_params(card),
        }));
        let cancel = CALL_CANCEL_TOKEN.with(|slot| slot.borrow().clone());
        loop {
            let wait = deadline.saturating_duration_since(Instant::now()).min(CARD_POLL_SLICE);
            match response_rx.recv_timeout(wait) {
                Ok(Ok(result)) => return elicitation_outcome(card, &result),
                Ok(Err(error)) => {
                    let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
                    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                    return AskOutcome::NoHuman { reason: format!("the host refused elicitation/create (error {code}: {message})") };
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return AskOutcome::Cancelled { reason: "the host closed the connection".to_owned() };
                }
                Err(RecvTimeoutError::Timeout) => (),
            }
            if cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
                self.withdraw(&request_id, "the tool call was cancelled");
                return AskOutcome::Cancelled { reason: "the host cancelled the tool call".to_owned() };
            }
            if Instant::now() >= deadline {
                self.withdraw(&request_id, "nobody answered in time");
                return AskOutcome::TimedOut;
            }
        }
    }
}

impl ElicitationAskPort {
    /// Forgets a pending card and tells the host to take it down.
    fn withdraw(&self, request_id: &RequestId, reason: &str) {
        self.shared.pending_elicitations.lock().remove(request_id);
        let request_number: u64 = request_id.as_json().parse().unwrap_or(0);
        self.shared.send_value(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": request_number, "reason": reason},
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::AskOption;

    fn question(labels: &[&str], allow_free_text: bool, multi_select: bool) -> AskCard {
        AskCard {
            number: 3,
            kind: CardKind::Question,
            target_space: "mcp:test".to_owned(),
            question: "Which?".to_owned(),
            context: None,
            options: labels.iter().map(|label| AskOption { label: (*label).to_owned(), description: None }).collect(),
            allow_free_text,
            multi_select,
            asked_by: None,
        }
    }

    #[test]
    fn single_choice_schema_and_answers() {
        let card = question(&["red", "blue"], false, false);
        let params = elicitation_request_params(&card);
        assert_eq!(params["message"], "card 3: Which?");
        let schema = &params["requestedSchema"];
        assert_eq!(schema["properties"]["choice"]["enum"], json!(["red", "blue"]));
        assert_eq!(schema["required"], json!(["choice"]));
        assert!(schema["properties"].get("answer").is_none());
        let accepted = elicitation_outcome(&card, &json!({"action": "accept", "content": {"choice": "blue"}}));
        assert_eq!(accepted, AskOutcome::Answered { selected: vec!["blue".to_owned()], free_text: None });
        assert_eq!(elicitation_outcome(&card, &json!({"action": "decline"})), AskOutcome::Skipped);
        assert!(matches!(elicitation_outcome(&card, &json!({"action": "cancel"})), AskOutcome::Cancelled { .. }));
    }

    #[test]
    fn multi_select_uses_one_boolean_per_option() {
        let card = question(&["a", "b", "c"], true, true);
        let schema = &elicitation_request_params(&card)["requestedSchema"];
        assert_eq!(schema["properties"]["option_2"], json!({"type": "boolean", "title": "b", "default": false}));
        assert_eq!(schema["properties"]["answer"]["type"], "string");
        assert_eq!(schema["required"], json!([]));
        let outcome = elicitation_outcome(
            &card,
            &json!({"action": "accept", "content": {"option_1": true, "option_2": false, "option_3": true, "answer": "  also d "}}),
        );
        assert_eq!(outcome, AskOutcome::Answered { selected: vec!["a".to_owned(), "c".to_owned()], free_text: Some("also d".to_owned()) });
    }

    #[test]
    fn permission_decline_is_a_denial() {
        let mut card = question(&["allow once", "allow for this run", "deny"], false, false);
        card.kind = CardKind::Permission;
        let schema = &elicitation_request_params(&card)["requestedSchema"];
        assert_eq!(schema["required"], json!(["decision"]));
        assert_eq!(
            elicitation_outcome(&card, &json!({"action": "decline"})),
            AskOutcome::Answered { selected: vec!["deny".to_owned()], free_text: None }
        );
        assert_eq!(
            elicitation_outcome(&card, &json!({"action": "accept", "content": {"decision": "allow once"}})),
            AskOutcome::Answered { selected: vec!["allow once".to_owned()], free_text: None }
        );
    }
}
