//! Issue 17 §3 end to end: a command-backend worker runs the real `runbound` binary (the one
//! cargo built for this test run), whose `ask_user` card and permission prompts travel over the
//! ask channel to the parent run's port. The test is the human at the parent: it sees each card
//! labelled with the worker, checks `vibe_list` says the worker is waiting for the human while the
//! card is open, answers (or stays silent), and checks what the worker saw.

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use runbound::ask::{AskCard, AskConfig, AskOutcome, AskPort, CardKind, PERMISSION_ALLOW_ONCE, PERMISSION_DENY};
use runbound::vibe::{CommandBackend, VibeConfig, VibeSetup, WorkerTier};
use runbound::{Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

/// The human at the parent run: every card the port shows is handed to the test thread, and the
/// port blocks until the test answers or the card's timeout passes (then it is `timed_out`, as a
/// real port's would be).
pub(crate) struct HumanAtTheParent {
    pub cards: Sender<AskCard>,
    pub answers: Receiver<AskOutcome>,
}

impl AskPort for HumanAtTheParent {
    fn ask(&self, card: &AskCard, timeout: Duration) -> AskOutcome {
        if self.cards.send(card.clone()).is_err() {
            return AskOutcome::NoHuman { reason: "the test ended".to_owned() };
        }
        self.answers.recv_timeout(timeout).unwrap_or(AskOutcome::TimedOut)
    }
}

pub(crate) fn structured(result: &ToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured content")
}

/// Shell-quotes `text` for `sh -c` (single quotes; a single quote becomes `'\''`).
pub(crate) fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Waits for the next card the parent's port shows (60 s: the worker starts a whole runbound).
pub(crate) fn next_card(cards: &Receiver<AskCard>, what: &str) -> AskCard {
    cards.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|err| panic!("no {what} card reached the parent's port: {err}"))
}

/// `vibe_list` while a card is open: the worker is shown waiting for the human, with the card.
pub(crate) fn assert_listed_as_waiting(run: &Run, worker_id: &str, question: &str) {
    let listed = run.call(Caller::Main, "vibe_list", json!({}));
    let text = listed.joined_text();
    assert!(!listed.is_error, "{text}");
    let line = text.lines().find(|line| line.contains(worker_id)).unwrap_or_else(|| panic!("{worker_id} not listed: {text}"));
    assert!(text.contains("waiting for the human"), "vibe_list must say the worker waits for the human: {text}");
    let worker = structured(&listed)["workers"]
        .as_array()
        .and_then(|workers| workers.iter().find(|worker| worker["worker_id"] == worker_id))
        .unwrap_or_else(|| panic!("{worker_id} not in the structured list: {}", structured(&listed)));
    let waiting = worker["waiting_for_human"].as_array().cloned().unwrap_or_default();
    assert_eq!(waiting.len(), 1, "one open card: {worker} (line {line:?})");
    assert!(waiting[0].as_str().unwrap_or("").contains(&question[..20.min(question.len())]), "{worker}");
}

pub(crate) fn assert_no_longer_waiting(run: &Run, worker_id: &str) {
    // The port returned; the roster clears the card right after.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let listed = run.call(Caller::Main, "vibe_list", json!({}));
        let worker = structured(&listed)["workers"]
            .as_array()
            .and_then(|workers| workers.iter().find(|worker| worker["worker_id"] == worker_id).cloned())
            .expect("worker listed");
        if worker["waiting_for_human"].as_array().is_none_or(Vec::is_empty) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "still waiting for the human after the answer: {worker}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The worker of the asking scenario: runs of the real runbound binary — a plain `read` (its
/// start-up and exit, timed so relay latencies can be told apart from it), a question, then two
/// writes under `--approve ask` (each a permission prompt), then one more the human never
/// answers. Each call's CallToolResult JSON is the worker's stdout, between `=== ` lines that
/// carry the wall clock in nanoseconds (`date +%s%N`), so the test can split and time it.
pub(crate) fn asking_worker_command() -> String {
    let runbound = env!("CARGO_BIN_EXE_runbound");
    let ask = json!({
        "question": "Which name should the new module get?",
        "context": "asked from inside the worker",
        "options": [{"label": "alpha"}, {"label": "beta"}]
    });
    let write = |path: &str| json!({"path": path, "content": format!("{path} written by the worker\n")});
    let call = |tool: &str, arguments: &Value, approve: &str| {
        format!(
            "echo \"=== {tool} {path} start $(date +%s%N)\"; {bin} --workspace \"$RUNBOUND_WORKSPACE\" --approve {approve} call {tool} {args}; \
             echo \"=== exit $? $(date +%s%N)\"",
            path = arguments.get("path").and_then(Value::as_str).unwrap_or("-"),
            bin = quoted(runbound),
            args = quoted(&arguments.to_string()),
        )
    };
    [
        call("read", &json!({"path": "README.md"}), "ask"),
        call("ask_user", &ask, "ask"),
        call("write", &write("approved.txt"), "ask"),
        call("write", &write("denied.txt"), "ask"),
        call("write", &write("unanswered.txt"), "ask"),
    ]
    .join("; ")
}

/// Wall clock in nanoseconds since the epoch (what `date +%s%N` prints in the worker).
fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as i128
}

/// What the human at the parent measured in [`play_the_human`]: per answered card, how long
/// the card took from the worker's `runbound` start to the parent's port (`card_ms`, start-up
/// included) and the answer from the port back to that `runbound`'s exit (`answer_ms`, exit
/// included); `startup_ms` is a whole plain `runbound call read` in the same worker.
#[derive(Debug, Default)]
pub(crate) struct RelayTimings {
    pub startup_ms: f64,
    pub card_ms: Vec<f64>,
    pub answer_ms: Vec<f64>,
}

/// The parent's side of the asking scenario (the worker runs [`asking_worker_command`]): checks
/// each card is labelled with the worker and that `vibe_list` says the worker waits for the
/// human, answers beta / allow once / deny / nothing, waits for the worker and checks what its
/// `runbound` runs saw: the answer, the approved write done, the denied and the unanswered
/// writes refused (`approval_denied`, silence timed out: never consent). The caller checks
/// where the approved write landed. Returns the worker's result and timings.
pub(crate) fn play_the_human(
    run: &Run,
    worker_id: &str,
    label: &str,
    cards: &Receiver<AskCard>,
    answer: &Sender<AskOutcome>,
    target_space: &str,
) -> (String, RelayTimings) {
    let asker = format!("{worker_id}: {label}");
    let mut seen_at = Vec::new();
    let mut answered_at = Vec::new();

    // 1. The question, labelled with the worker, shown by the parent's port.
    let question = next_card(cards, "ask_user");
    seen_at.push(now_ns());
    assert_eq!(question.kind, CardKind::Question, "{question:?}");
    assert_eq!(question.question, "Which name should the new module get?");
    assert_eq!(question.target_space, target_space, "the parent's own target space");
    assert_eq!(question.asked_by.as_deref(), Some(asker.as_str()), "{question:?}");
    assert_eq!(question.options.iter().map(|option| option.label.as_str()).collect::<Vec<_>>(), ["alpha", "beta"]);
    assert_listed_as_waiting(run, worker_id, &question.question);
    answered_at.push(now_ns());
    answer.send(AskOutcome::Answered { selected: vec!["beta".to_owned()], free_text: None }).unwrap();
    assert_no_longer_waiting(run, worker_id);

    // 2. A permission prompt for the first write: allowed once.
    let allow = next_card(cards, "first permission");
    seen_at.push(now_ns());
    assert_eq!(allow.kind, CardKind::Permission, "{allow:?}");
    assert!(allow.question.contains("Allow write"), "{allow:?}");
    assert!(allow.context.as_deref().unwrap_or("").contains("approved.txt"), "the arguments are on the card: {allow:?}");
    assert_eq!(allow.asked_by.as_deref(), Some(asker.as_str()), "{allow:?}");
    assert_listed_as_waiting(run, worker_id, &allow.question);
    answered_at.push(now_ns());
    answer.send(AskOutcome::Answered { selected: vec![PERMISSION_ALLOW_ONCE.to_owned()], free_text: None }).unwrap();

    // 3. The second write: denied.
    let deny = next_card(cards, "second permission");
    seen_at.push(now_ns());
    assert!(deny.context.as_deref().unwrap_or("").contains("denied.txt"), "{deny:?}");
    answered_at.push(now_ns());
    answer.send(AskOutcome::Answered { selected: vec![PERMISSION_DENY.to_owned()], free_text: None }).unwrap();

    // 4. The third: nobody answers; after the parent's permission timeout it is denied, not
    // allowed.
    let silent = next_card(cards, "third permission");
    assert!(silent.context.as_deref().unwrap_or("").contains("unanswered.txt"), "{silent:?}");

    let done = run.call(Caller::Main, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 180}));
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    let result = structured(&done)["last_result"].as_str().unwrap_or(&text).to_owned();
    let sections: Vec<&str> = result.split("=== ").filter(|section| !section.trim().is_empty()).collect();
    let section_at = |prefix: &str| -> usize {
        sections.iter().position(|section| section.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix:?} in {result}"))
    };
    let section = |prefix: &str| -> String {
        let at = section_at(prefix);
        format!("{}\n{}", sections[at], sections.get(at + 1).copied().unwrap_or(""))
    };
    // `=== <tool> <path> start <ns>` … `=== exit <code> <ns>`: the clock values of one call.
    let clock = |prefix: &str| -> (i128, i128) {
        let at = section_at(prefix);
        let last_number = |line: &str| -> i128 {
            line.lines().next().and_then(|first| first.split_whitespace().last()).and_then(|n| n.parse().ok()).unwrap_or(0)
        };
        (last_number(sections[at]), sections.get(at + 1).map_or(0, |next| last_number(next)))
    };
    let asked = section("ask_user");
    assert!(asked.contains("selected: beta"), "the worker's runbound sees the human's answer: {asked}");
    assert!(asked.contains("exit 0"), "{asked}");
    let approved = section("write approved.txt");
    assert!(approved.contains("exit 0"), "allowed once, the write ran: {approved}");
    let denied = section("write denied.txt");
    assert!(denied.contains("approval_denied") && denied.contains("the user denied it"), "{denied}");
    assert!(denied.contains("exit 1"), "{denied}");
    let unanswered = section("write unanswered.txt");
    assert!(unanswered.contains("approval_denied"), "silence is a denial: {unanswered}");
    assert!(unanswered.contains("nobody answered"), "{unanswered}");
    assert!(!unanswered.contains("no_human_attached\": true"), "the parent has a human; it timed out: {unanswered}");
    assert!(cards.try_recv().is_err(), "no further card");

    let ms = |nanos: i128| nanos as f64 / 1e6;
    let (read_start, read_end) = clock("read README.md");
    let mut timings = RelayTimings { startup_ms: ms(read_end - read_start), ..RelayTimings::default() };
    for (index, prefix) in ["ask_user", "write approved.txt", "write denied.txt"].into_iter().enumerate() {
        let (start, end) = clock(prefix);
        timings.card_ms.push(ms(seen_at[index] - start));
        timings.answer_ms.push(ms(end - answered_at[index]));
    }
    (result, timings)
}

/// Prints one `TIMING` line for a relay scenario (never asserted: the machine is shared).
pub(crate) fn print_relay_timings(backend: &str, timings: &RelayTimings) {
    let median = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    eprintln!(
        "TIMING vibe ask relay [{backend}]: runbound call read start-to-exit {:.0} ms; card (runbound start → parent's port) \
         {:?} ms, median {:.0}; answer (port → runbound exit) {:?} ms, median {:.0}",
        timings.startup_ms,
        timings.card_ms.iter().map(|value| value.round()).collect::<Vec<_>>(),
        median(&timings.card_ms),
        timings.answer_ms.iter().map(|value| value.round()).collect::<Vec<_>>(),
        median(&timings.answer_ms),
    );
}

#[test]
fn a_nested_runbound_in_a_worker_asks_the_parents_human_and_sees_the_answers() {
    let test_name = "vibe_ask::a_nested_runbound_in_a_worker_asks_the_parents_human_and_sees_the_answers";
    if support::require_binary(test_name, "sh").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[("README.md", "parent workspace\n")]);
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, asking_worker_command());
    let (cards_tx, cards) = crossbeam_channel::unbounded();
    let (answer, answers) = crossbeam_channel::unbounded();
    let port = Arc::new(HumanAtTheParent { cards: cards_tx, answers });
    let config = RunConfig {
        vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() },
        // Silence must not be consent: the last prompt is left to time out here.
        ask: AskConfig { permission_timeout: Duration::from_secs(4), ..AskConfig::default() },
        ..RunConfig::default()
    };
    let run = Run::builder(workspace.path())
        .config(config)
        .ask_port(port, "parent-terminal")
        .vibe_roster(VibeSetup::new(Arc::new(backend)))
        .build()
        .expect("build the parent run");
    let spawned = run.call(Caller::Main, "vibe_spawn", json!({"brief": "ask the human", "label": "asker", "tier": "fast"}));
    assert!(!spawned.is_error, "{}", spawned.joined_text());
    let worker_id = structured(&spawned)["worker_id"].as_str().unwrap().to_owned();
    let (_, timings) = play_the_human(&run, &worker_id, "asker", &cards, &answer, "parent-terminal");
    print_relay_timings("command backend", &timings);
    assert_eq!(std::fs::read_to_string(workspace.path().join("approved.txt")).unwrap(), "approved.txt written by the worker\n");
    assert!(!workspace.path().join("denied.txt").exists(), "a denied write wrote nothing");
    assert!(!workspace.path().join("unanswered.txt").exists(), "an unanswered prompt wrote nothing");
}

#[test]
fn without_a_human_at_the_parent_a_nested_runbound_fails_closed_at_once() {
    let test_name = "vibe_ask::without_a_human_at_the_parent_a_nested_runbound_fails_closed_at_once";
    if support::require_binary(test_name, "sh").is_none() {
        return;
    }
    let runbound = env!("CARGO_BIN_EXE_runbound");
    let workspace = support::workspace_with(&[("README.md", "parent workspace\n")]);
    let arguments = json!({"path": "nobody.txt", "content": "x\n"});
    let command = format!(
        "{} --workspace \"$RUNBOUND_WORKSPACE\" --approve ask call write {}; echo \"=== exit $?\"; echo \"channel=${{RUNBOUND_ASK_CHANNEL:-none}}\"",
        quoted(runbound),
        quoted(&arguments.to_string())
    );
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, command);
    let run = Run::builder(workspace.path())
        .config(RunConfig { vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() }, ..RunConfig::default() })
        .vibe_roster(VibeSetup::new(Arc::new(backend)))
        .build()
        .expect("build the parent run");
    let spawned = run.call(Caller::Main, "vibe_spawn", json!({"brief": "write", "label": "no human", "tier": "fast"}));
    let worker_id = structured(&spawned)["worker_id"].as_str().unwrap().to_owned();
    let started = std::time::Instant::now();
    let done = run.call(Caller::Main, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 120}));
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    assert!(text.contains("channel=none"), "no channel without a human at the parent: {text}");
    assert!(text.contains("approval_denied") && text.contains("=== exit 1"), "{text}");
    assert!(!Path::new(&workspace.path().join("nobody.txt")).exists());
    // At once: no prompt waited for anyone (a whole runbound start is well under a minute).
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
}

#[test]
fn an_agents_runbound_serve_inside_a_worker_asks_the_parents_human_not_its_mcp_client() {
    let test_name = "vibe_ask::an_agents_runbound_serve_inside_a_worker_asks_the_parents_human_not_its_mcp_client";
    if support::require_binary(test_name, "sh").is_none() || support::require_binary(test_name, "grep").is_none() {
        return;
    }
    let runbound = env!("CARGO_BIN_EXE_runbound");
    let workspace = support::workspace_with(&[("README.md", "parent workspace\n")]);
    // The worker's "agent" is an MCP client that declares elicitation: without the channel, serve
    // would send the card to it (an agent, not the human) as elicitation/create. Its input stays
    // open until the call's response is out (serve cancels in-flight calls when its input ends).
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "worker-agent", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_user", "arguments": {
            "question": "Ship the migration today?", "options": [{"label": "yes"}, {"label": "no"}]}}}),
    ];
    let lines: Vec<String> = requests.iter().map(|request| quoted(&request.to_string())).collect();
    let command = format!(
        "out=\"$(mktemp)\"; {{ printf '%s\\n' {lines}; i=0; while ! grep -q '\"id\":2' \"$out\" && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done; }} \
         | {bin} --workspace \"$RUNBOUND_WORKSPACE\" serve > \"$out\"; cat \"$out\"; rm -f \"$out\"",
        lines = lines.join(" "),
        bin = quoted(runbound)
    );
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, command);
    let (cards_tx, cards) = crossbeam_channel::unbounded();
    let (answer, answers) = crossbeam_channel::unbounded();
    let run = Run::builder(workspace.path())
        .config(RunConfig { vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() }, ..RunConfig::default() })
        .ask_port(Arc::new(HumanAtTheParent { cards: cards_tx, answers }), "parent-terminal")
        .vibe_roster(VibeSetup::new(Arc::new(backend)))
        .build()
        .expect("build the parent run");
    let spawned = run.call(Caller::Main, "vibe_spawn", json!({"brief": "serve", "label": "mcp agent", "tier": "fast"}));
    let worker_id = structured(&spawned)["worker_id"].as_str().unwrap().to_owned();
    let card = next_card(&cards, "ask_user (through serve)");
    assert_eq!(card.question, "Ship the migration today?");
    assert_eq!(card.asked_by.as_deref(), Some(format!("{worker_id}: mcp agent").as_str()), "{card:?}");
    assert_listed_as_waiting(&run, &worker_id, &card.question);
    answer.send(AskOutcome::Answered { selected: vec!["no".to_owned()], free_text: None }).unwrap();
    let done = run.call(Caller::Main, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 120}));
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    let result = structured(&done)["last_result"].as_str().unwrap_or(&text).to_owned();
    assert!(!result.contains("elicitation/create"), "the card went to the worker's MCP client: {result}");
    let response: Value = result
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["id"] == 2)
        .unwrap_or_else(|| panic!("no response to the tools/call: {result}"));
    let answer_text = response.pointer("/result/content/0/text").and_then(Value::as_str).unwrap_or("");
    assert!(answer_text.contains("selected: no"), "the agent sees the human's answer: {response}");
    let initialized: Value = result
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["id"] == 1)
        .expect("initialize response");
    let instructions = initialized.pointer("/result/instructions").and_then(Value::as_str).unwrap_or("");
    assert!(instructions.contains("parent run's human"), "serve says where cards go: {instructions}");
}
