//! The registry pipeline through `Run::call`: tier visibility and refusal (R-TIER-1/2), schema
//! validation, guardrails, approvals with permission cards, ask_user outcomes (R-ASK-1..4),
//! panics, serialization of non-parallel-safe tools, deadlines, post-write layers.

use crate::support;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use runbound::ask::{CardKind, ScriptedAnswer, ScriptedAskPort};
use runbound::registry::{CallContext, CallOrigin, GuardrailInput, GuardrailVerdict, PostWriteLayer, Resource};
use runbound::{Approval, ApprovalPolicy, CallOptions, Caller, ErrorKind, Run, RunBuilder, Tier, ToolDescriptor, ToolOutput, ToolResult};
use serde_json::{json, Value};

/// A host tool of `tier` that counts its calls and echoes its `text` argument.
fn counting_tool(name: &str, tier: Tier, counter: Arc<AtomicUsize>) -> (ToolDescriptor, runbound::ToolHandler) {
    let descriptor = ToolDescriptor {
        name: name.to_owned(),
        description: format!("test tool {name}"),
        tier,
        input_schema: json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "count": {"type": "integer", "minimum": 0}},
            "required": ["text"],
            "additionalProperties": false
        }),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(tier),
        parallel_safe: true,
        default_timeout: Duration::from_secs(5),
    };
    let handler: runbound::ToolHandler = Arc::new(move |_ctx: &CallContext<'_>, arguments: Value| {
        counter.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput::text(format!("echo {}", arguments["text"].as_str().unwrap_or(""))))
    });
    (descriptor, handler)
}

struct Fixture {
    _workspace: tempfile::TempDir,
    run: Run,
    calls: [Arc<AtomicUsize>; 3],
}

fn fixture(configure: impl FnOnce(RunBuilder) -> RunBuilder) -> Fixture {
    let workspace = support::workspace_with(&[("a.txt", "alpha\n")]);
    let calls = [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))];
    let (d0, h0) = counting_tool("peek", Tier::Read, calls[0].clone());
    let (d1, h1) = counting_tool("poke", Tier::Write, calls[1].clone());
    let (d2, h2) = counting_tool("launch", Tier::Exec, calls[2].clone());
    let builder = Run::builder(workspace.path()).tool(d0, h0).tool(d1, h1).tool(d2, h2);
    let run = configure(builder).build().expect("build run");
    Fixture { _workspace: workspace, run, calls }
}

fn allow_all(builder: RunBuilder) -> RunBuilder {
    builder.approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
}

fn error_kind(result: &ToolResult) -> String {
    assert!(result.is_error, "expected an error, got: {}", result.joined_text());
    result.structured_content.as_ref().expect("errors carry structured content")["error"]["kind"]
        .as_str()
        .expect("kind is a string")
        .to_owned()
}

fn names(run: &Run, caller: Caller) -> Vec<String> {
    run.tools(caller).iter().map(|d| d.name.clone()).collect()
}

#[test]
fn read_only_callers_do_not_see_write_or_exec_tools() {
    let fx = fixture(allow_all);
    for caller in [Caller::Plan, Caller::Readonly] {
        let visible = names(&fx.run, caller);
        assert!(visible.contains(&"peek".to_owned()), "{caller}: {visible:?}");
        assert!(!visible.contains(&"poke".to_owned()), "{caller}: {visible:?}");
        assert!(!visible.contains(&"launch".to_owned()), "{caller}: {visible:?}");
        let listed = fx.run.tools_json(caller).to_string();
        assert!(!listed.contains("\"poke\"") && !listed.contains("\"launch\""), "{listed}");
    }
    let main = names(&fx.run, Caller::Main);
    for name in ["peek", "poke", "launch"] {
        assert!(main.contains(&name.to_owned()), "main sees {name}: {main:?}");
    }
}

#[test]
fn hidden_tools_are_refused_by_name_without_running() {
    let fx = fixture(allow_all);
    for caller in [Caller::Plan, Caller::Readonly] {
        for (idx, name) in [(1, "poke"), (2, "launch")] {
            let result = fx.run.call(caller, name, json!({"text": "x"}));
            assert_eq!(error_kind(&result), "hidden_from_caller");
            let text = result.joined_text();
            assert!(text.contains(name) && text.contains(caller.as_str()), "{text}");
            assert_eq!(fx.calls[idx].load(Ordering::SeqCst), 0, "{name} must not run for {caller}");
        }
        // Even with invalid arguments the refusal comes first (nothing about the schema leaks).
        let result = fx.run.call(caller, "poke", json!({"nope": 1}));
        assert_eq!(error_kind(&result), "hidden_from_caller");
    }
    let result = fx.run.call(Caller::Readonly, "peek", json!({"text": "ok"}));
    assert!(!result.is_error, "{}", result.joined_text());
    assert_eq!(result.joined_text(), "echo ok");
}

#[test]
fn unknown_tool_lists_what_the_caller_can_call() {
    let fx = fixture(allow_all);
    let result = fx.run.call(Caller::Readonly, "nonexistent", json!({}));
    assert_eq!(error_kind(&result), "unknown_tool");
    let text = result.joined_text();
    assert!(text.contains("nonexistent") && text.contains("peek"), "{text}");
    assert!(!text.contains("poke"), "hidden tools are not advertised: {text}");
}

#[test]
fn schema_errors_name_the_field_and_expectation() {
    let fx = fixture(allow_all);
    let missing = fx.run.call(Caller::Main, "peek", json!({}));
    assert_eq!(error_kind(&missing), "invalid_arguments");
    assert!(missing.joined_text().contains("text"), "{}", missing.joined_text());
    // The hint lists the fields as prose an LLM can act on, not the raw JSON Schema.
    let hint = missing.structured_content.as_ref().unwrap()["error"]["hint"].as_str().unwrap_or("").to_owned();
    assert!(hint.contains("- text (string, required)") && hint.contains("- count (integer)"), "{hint}");
    assert!(!hint.contains("{\""), "no raw schema in the hint: {hint}");

    let wrong_type = fx.run.call(Caller::Main, "peek", json!({"text": 5}));
    assert_eq!(error_kind(&wrong_type), "invalid_arguments");
    let text = wrong_type.joined_text();
    assert!(text.contains("/text") && text.contains("string"), "{text}");
    // A wrong value of one field: that field's description, the others only named (the lsp
    // tool's whole field list is ~3,000 characters; trial25 M).
    let hint = wrong_type.structured_content.as_ref().unwrap()["error"]["hint"].as_str().unwrap_or("").to_owned();
    assert!(hint.starts_with("fix this field:\n- text (string, required)"), "{hint}");
    assert!(!hint.contains("- count (integer)") && hint.contains("the other fields (count"), "{hint}");

    let extra = fx.run.call(Caller::Main, "peek", json!({"text": "a", "txet": "b"}));
    assert_eq!(error_kind(&extra), "invalid_arguments");
    assert!(extra.joined_text().contains("txet"), "{}", extra.joined_text());

    let negative = fx.run.call(Caller::Main, "peek", json!({"text": "a", "count": -1}));
    assert_eq!(error_kind(&negative), "invalid_arguments");
    assert!(negative.joined_text().contains("/count"), "{}", negative.joined_text());

    let not_object = fx.run.call(Caller::Main, "peek", json!([1, 2]));
    assert_eq!(error_kind(&not_object), "invalid_arguments");
    assert_eq!(fx.calls[0].load(Ordering::SeqCst), 0, "invalid calls never reach the tool");
}

#[test]
fn guardrail_deny_stops_the_call_with_its_reason() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_guardrail = seen.clone();
    let fx = fixture(move |builder| {
        allow_all(builder).guardrail(Arc::new(move |input: &GuardrailInput<'_>| {
            seen_in_guardrail.lock().push((input.tool.to_owned(), input.caller));
            if input.arguments["text"] == "rm -rf" {
                GuardrailVerdict::Deny("destructive text is not allowed here".to_owned())
            } else {
                GuardrailVerdict::Allow
            }
        }))
    });
    let denied = fx.run.call(Caller::Main, "poke", json!({"text": "rm -rf"}));
    assert_eq!(error_kind(&denied), "guardrail_denied");
    assert!(denied.joined_text().contains("destructive text is not allowed here"), "{}", denied.joined_text());
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 0);
    let allowed = fx.run.call(Caller::Main, "poke", json!({"text": "fine"}));
    assert!(!allowed.is_error, "{}", allowed.joined_text());
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 1);
    assert_eq!(seen.lock().len(), 2);
}

#[test]
fn approval_policy_allow_and_deny() {
    let fx = fixture(|b| b.approval_policy(ApprovalPolicy { read: Approval::Allow, write: Approval::Allow, exec: Approval::Deny }));
    assert!(!fx.run.call(Caller::Main, "poke", json!({"text": "x"})).is_error);
    let denied = fx.run.call(Caller::Main, "launch", json!({"text": "x"}));
    assert_eq!(error_kind(&denied), "approval_denied");
    assert!(denied.joined_text().contains("exec"), "{}", denied.joined_text());
    assert_eq!(fx.calls[2].load(Ordering::SeqCst), 0);
}

#[test]
fn approval_ask_without_port_is_denied_fail_closed() {
    let fx = fixture(|b| b); // default policy: write and exec ask; no port attached
    let start = Instant::now();
    let result = fx.run.call(Caller::Main, "poke", json!({"text": "x"}));
    assert_eq!(error_kind(&result), "approval_denied");
    assert!(result.joined_text().contains("no human is attached"), "{}", result.joined_text());
    assert!(start.elapsed() < Duration::from_secs(2), "must not block");
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 0);
    // Read tools are allowed by default and never prompt.
    assert!(!fx.run.call(Caller::Main, "peek", json!({"text": "x"})).is_error);
}

/// R-ASK-3: permission prompts are cards through the same ask port, a gate separate from ask_user.
#[test]
fn approval_ask_shows_a_permission_card_and_honors_the_answer() {
    let port = Arc::new(ScriptedAskPort::new([
        ScriptedAnswer::choose("allow once"),
        ScriptedAnswer::choose("deny"),
        ScriptedAnswer::choose("something else"),
        ScriptedAnswer::Skip,
        ScriptedAnswer::choose("allow for this run"),
    ]));
    let port_for_run = port.clone();
    let fx = fixture(move |b| b.ask_port(port_for_run, "space-1"));

    let once = fx.run.call(Caller::Main, "poke", json!({"text": "1"}));
    assert!(!once.is_error, "{}", once.joined_text());
    let denied = fx.run.call(Caller::Main, "poke", json!({"text": "2"}));
    assert_eq!(error_kind(&denied), "approval_denied");
    assert!(denied.joined_text().contains("denied"), "{}", denied.joined_text());
    let unknown = fx.run.call(Caller::Main, "poke", json!({"text": "3"}));
    assert_eq!(error_kind(&unknown), "approval_denied");
    assert!(unknown.joined_text().contains("unrecognized answer"), "{}", unknown.joined_text());
    let skipped = fx.run.call(Caller::Main, "poke", json!({"text": "4"}));
    assert_eq!(error_kind(&skipped), "approval_denied");
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 1);

    // "allow for this run" is remembered for that tool: no further card for poke.
    assert!(!fx.run.call(Caller::Main, "poke", json!({"text": "5"})).is_error);
    assert!(!fx.run.call(Caller::Main, "poke", json!({"text": "6"})).is_error);
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 3);
    let cards = port.shown_cards();
    assert_eq!(cards.len(), 5, "one card per asked call, none after allow-for-run");
    for (idx, card) in cards.iter().enumerate() {
        assert_eq!(card.kind, CardKind::Permission);
        assert_eq!(card.number, idx as u64 + 1, "cards are numbered sequentially");
        assert_eq!(card.target_space, "space-1");
        let labels: Vec<&str> = card.options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, ["allow once", "allow for this run", "deny"]);
        assert!(card.question.contains("poke") && card.question.contains("write"), "{}", card.question);
    }
    // The exec tool still asks (allow-for-run was for poke only); the queue is empty → no human.
    let exec = fx.run.call(Caller::Main, "launch", json!({"text": "7"}));
    assert_eq!(error_kind(&exec), "approval_denied");
}

#[test]
fn ask_user_is_registered_only_with_a_port() {
    let without = fixture(|b| b);
    assert!(!names(&without.run, Caller::Main).contains(&"ask_user".to_owned()));
    let port = Arc::new(ScriptedAskPort::new([]));
    let with = fixture(move |b| b.ask_port(port, "space"));
    for caller in Caller::ALL {
        assert!(names(&with.run, caller).contains(&"ask_user".to_owned()), "ask_user is read tier, visible to {caller}");
    }
}

#[test]
fn ask_user_answered_returns_labels_and_free_text() {
    let port = Arc::new(ScriptedAskPort::new([
        ScriptedAnswer::Answer { selected: vec!["postgres".to_owned()], free_text: Some("v16 please".to_owned()) },
        ScriptedAnswer::free_text("use tabs"),
    ]));
    let port_for_run = port.clone();
    let fx = fixture(move |b| b.ask_port(port_for_run, "conversation-7"));
    let result = fx.run.call(
        Caller::Readonly,
        "ask_user",
        json!({"question": "Which database?", "context": "decides the driver", "options": [{"label": "postgres"}, {"label": "sqlite", "description": "file based"}]}),
    );
    assert!(!result.is_error, "{}", result.joined_text());
    let text = result.joined_text();
    assert!(text.contains("selected: postgres") && text.contains("v16 please"), "{text}");
    let structured = result.structured_content.unwrap();
    assert_eq!(structured["outcome"], "answered");
    assert_eq!(structured["selected"], json!(["postgres"]));

    let open = fx.run.call(Caller::Main, "ask_user", json!({"question": "Indentation?"}));
    assert!(open.joined_text().contains("free text: use tabs"), "{}", open.joined_text());

    let cards = port.shown_cards();
    assert_eq!(cards[0].kind, CardKind::Question);
    assert_eq!(cards[0].number, 1);
    assert_eq!(cards[1].number, 2);
    assert_eq!(cards[0].context.as_deref(), Some("decides the driver"));
    assert!(!cards[0].allow_free_text, "options given → free text off by default");
    assert!(cards[1].allow_free_text, "no options → free text on");
}

/// R-ASK-2: skip is success with an explicit assumption and "do not ask again".
#[test]
fn ask_user_skip_is_success_with_an_instruction() {
    let port = Arc::new(ScriptedAskPort::new([ScriptedAnswer::Skip]));
    let fx = fixture(move |b| b.ask_port(port, "s"));
    let result = fx.run.call(Caller::Main, "ask_user", json!({"question": "Rename the crate?"}));
    assert!(!result.is_error, "skip is success: {}", result.joined_text());
    let text = result.joined_text();
    assert!(text.contains("skipped") && text.contains("assumption") && text.contains("do not ask"), "{text}");
}

#[test]
fn ask_user_timeout_is_an_error_with_the_same_instruction() {
    let port = Arc::new(ScriptedAskPort::new([ScriptedAnswer::Silence]));
    let mut config = runbound::RunConfig::default();
    config.ask.question_timeout = Duration::from_millis(200);
    let fx = fixture(move |b| b.ask_port(port, "s").config(config));
    let start = Instant::now();
    let result = fx.run.call(Caller::Main, "ask_user", json!({"question": "Ship it?"}));
    assert_eq!(error_kind(&result), "timeout");
    assert!(start.elapsed() < Duration::from_secs(3));
    let text = result.joined_text();
    assert!(text.contains("assumption") && text.contains("do not ask"), "{text}");
}

#[test]
fn ask_user_without_a_human_fails_immediately() {
    let port = Arc::new(ScriptedAskPort::new([ScriptedAnswer::NoHuman]));
    let fx = fixture(move |b| b.ask_port(port, "s"));
    let start = Instant::now();
    let result = fx.run.call(Caller::Main, "ask_user", json!({"question": "Anyone there?"}));
    assert_eq!(error_kind(&result), "unavailable");
    assert!(result.joined_text().contains("no human is attached"), "{}", result.joined_text());
    assert!(start.elapsed() < Duration::from_secs(1), "fail-closed, never a block");
}

#[test]
fn ask_user_rejects_impossible_cards() {
    let port = Arc::new(ScriptedAskPort::new([]));
    let fx = fixture(move |b| b.ask_port(port, "s"));
    let no_answer_possible = fx.run.call(Caller::Main, "ask_user", json!({"question": "?", "allow_free_text": false}));
    assert_eq!(error_kind(&no_answer_possible), "invalid_arguments");
    let duplicate = fx.run.call(Caller::Main, "ask_user", json!({"question": "?", "options": [{"label": "a"}, {"label": "a"}]}));
    assert_eq!(error_kind(&duplicate), "invalid_arguments");
    let empty_question = fx.run.call(Caller::Main, "ask_user", json!({"question": ""}));
    assert_eq!(error_kind(&empty_question), "invalid_arguments");
}

#[test]
fn a_panicking_tool_yields_an_error_and_the_run_survives() {
    let descriptor = ToolDescriptor {
        name: "explode".to_owned(),
        description: "panics".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: false,
        default_timeout: Duration::from_secs(1),
    };
    let fx = fixture(move |b| allow_all(b).tool(descriptor, Arc::new(|_ctx: &CallContext<'_>, _args: Value| panic!("boom at line 3"))));
    let result = fx.run.call(Caller::Main, "explode", json!({}));
    assert_eq!(error_kind(&result), "panicked");
    assert!(result.joined_text().contains("boom at line 3"), "{}", result.joined_text());
    // The per-tool lock of a non-parallel-safe tool is not poisoned: the next call runs too.
    assert_eq!(error_kind(&fx.run.call(Caller::Main, "explode", json!({}))), "panicked");
    assert!(!fx.run.call(Caller::Main, "peek", json!({"text": "still alive"})).is_error);
}

#[test]
fn non_parallel_safe_tools_are_serialized() {
    let active = Arc::new(AtomicUsize::new(0));
    let max_active = Arc::new(AtomicUsize::new(0));
    let (active_in, max_in) = (active.clone(), max_active.clone());
    let descriptor = ToolDescriptor {
        name: "session".to_owned(),
        description: "stateful".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: false,
        default_timeout: Duration::from_secs(10),
    };
    let handler: runbound::ToolHandler = Arc::new(move |_ctx: &CallContext<'_>, _args: Value| {
        let now = active_in.fetch_add(1, Ordering::SeqCst) + 1;
        max_in.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
        active_in.fetch_sub(1, Ordering::SeqCst);
        Ok(ToolOutput::text("done"))
    });
    let fx = fixture(move |b| b.tool(descriptor, handler));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| assert!(!fx.run.call(Caller::Main, "session", json!({})).is_error));
        }
    });
    assert_eq!(max_active.load(Ordering::SeqCst), 1, "calls of a non-parallel-safe tool never overlap");
}

#[test]
fn deadlines_come_from_the_call_the_config_or_the_descriptor() {
    let budgets = Arc::new(Mutex::new(Vec::new()));
    let budgets_in = budgets.clone();
    let descriptor = ToolDescriptor {
        name: "slow".to_owned(),
        description: "waits until its deadline".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: true,
        default_timeout: Duration::from_millis(300),
    };
    let handler: runbound::ToolHandler = Arc::new(move |ctx: &CallContext<'_>, _args: Value| {
        budgets_in.lock().push(ctx.budget());
        loop {
            ctx.check_continue("waiting for nothing")?;
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let mut config = runbound::RunConfig::default();
    let fx = fixture(move |b| b.tool(descriptor, handler));
    let result = fx.run.call(Caller::Main, "slow", json!({}));
    assert_eq!(error_kind(&result), "timeout");
    assert!(result.joined_text().contains("300 ms") && result.joined_text().contains("waiting for nothing"), "{}", result.joined_text());

    let mut options = CallOptions::new(Caller::Main);
    options.timeout = Some(Duration::from_millis(50));
    assert_eq!(error_kind(&fx.run.call_with("slow", json!({}), &options)), "timeout");

    let cancelled = CallOptions::new(Caller::Main);
    cancelled.cancel.cancel();
    assert_eq!(error_kind(&fx.run.call_with("slow", json!({}), &cancelled)), "cancelled");

    config.tool_timeouts.insert("slow".to_owned(), Duration::from_millis(120));
    let descriptor_again = fx.run.registry().descriptor("slow").unwrap().clone();
    let budgets_again = budgets.clone();
    let handler_again: runbound::ToolHandler = Arc::new(move |ctx: &CallContext<'_>, _args: Value| {
        budgets_again.lock().push(ctx.budget());
        Ok(ToolOutput::text("ok"))
    });
    let workspace = support::workspace_with(&[]);
    let configured = Run::builder(workspace.path()).config(config).tool(descriptor_again, handler_again).build().unwrap();
    assert!(!configured.call(Caller::Main, "slow", json!({})).is_error);
    let seen = budgets.lock().clone();
    assert_eq!(seen[0], Duration::from_millis(300));
    assert_eq!(seen[1], Duration::from_millis(50));
    assert_eq!(*seen.last().unwrap(), Duration::from_millis(120));
}

struct RecordingLayer(Mutex<Vec<Vec<PathBuf>>>);

impl PostWriteLayer for RecordingLayer {
    fn after_write(&self, _ctx: &CallContext<'_>, written_paths: &[PathBuf], result: &mut ToolResult) {
        self.0.lock().push(written_paths.to_vec());
        result.push_text(format!("post-write saw {} path(s)", written_paths.len()));
    }
}

/// Records, for every pre-write announcement, each path with the file's content at that moment
/// (so a test can tell the layer ran before the write).
struct PreWriteRecorder(Mutex<Announcements>);

/// Each pre-write announcement: the paths with the files' content at that moment.
type Announcements = Vec<Vec<(PathBuf, Option<String>)>>;

impl runbound::registry::PreWriteLayer for PreWriteRecorder {
    fn before_write(&self, _ctx: &CallContext<'_>, paths: &[PathBuf]) {
        self.0.lock().push(paths.iter().map(|path| (path.clone(), std::fs::read_to_string(path).ok())).collect());
    }
}

fn writing_descriptor(name: &str) -> ToolDescriptor {
    ToolDescriptor {
        name: name.to_owned(),
        description: "writes a.txt".to_owned(),
        tier: Tier::Write,
        input_schema: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        title: "Test writing tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(5),
    }
}

#[test]
fn pre_write_layers_get_declared_paths_before_the_tool_and_announced_paths_before_the_write() {
    let recorder = Arc::new(PreWriteRecorder(Mutex::new(Vec::new())));
    let write_a: runbound::ToolHandler = Arc::new(|ctx: &CallContext<'_>, arguments: Value| {
        let path = ctx.workspace_root().join("a.txt");
        std::fs::write(&path, arguments["text"].as_str().unwrap_or_default()).unwrap();
        Ok(ToolOutput::text("wrote a.txt").with_written_paths(vec![path]))
    });
    // Declared: the registry asks the planner before the tool runs.
    let planner: runbound::registry::WritePlanner =
        Arc::new(|ctx: &CallContext<'_>, _arguments: &Value| vec![ctx.workspace_root().join("a.txt")]);
    // Announced: the tool learns its path while it runs and says so before writing.
    let announcing: runbound::ToolHandler = Arc::new(|ctx: &CallContext<'_>, arguments: Value| {
        let path = ctx.workspace_root().join("a.txt");
        ctx.before_write(std::slice::from_ref(&path));
        std::fs::write(&path, arguments["text"].as_str().unwrap_or_default()).unwrap();
        Ok(ToolOutput::text("wrote a.txt").with_written_paths(vec![path]))
    });
    let layer = recorder.clone();
    let fx = fixture(move |b| {
        allow_all(b)
            .writing_tool(writing_descriptor("declared"), write_a, planner)
            .tool(writing_descriptor("announcing"), announcing)
            .pre_write_layer(layer)
    });
    let a = fx.run.workspace_root().join("a.txt");
    assert!(!fx.run.call(Caller::Main, "declared", json!({"text": "one\n"})).is_error);
    assert!(!fx.run.call(Caller::Main, "announcing", json!({"text": "two\n"})).is_error);
    // A tool that declares nothing and announces nothing is not seen before it runs.
    assert!(!fx.run.call(Caller::Main, "poke", json!({"text": "x"})).is_error);
    let seen = recorder.0.lock().clone();
    assert_eq!(
        seen,
        vec![vec![(a.clone(), Some("alpha\n".to_owned()))], vec![(a, Some("one\n".to_owned()))]],
        "the layer runs before each write"
    );
}

#[test]
fn post_write_layers_receive_the_written_paths() {
    let layer = Arc::new(RecordingLayer(Mutex::new(Vec::new())));
    let descriptor = ToolDescriptor {
        name: "touch".to_owned(),
        description: "pretends to write".to_owned(),
        tier: Tier::Write,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(1),
    };
    let handler: runbound::ToolHandler = Arc::new(|ctx: &CallContext<'_>, _args: Value| {
        let path = ctx.workspace_root().join("a.txt");
        Ok(ToolOutput::text("touched a.txt").with_written_paths(vec![path]))
    });
    let layer_for_run = layer.clone();
    let fx = fixture(move |b| allow_all(b).tool(descriptor, handler).post_write_layer(layer_for_run));
    let result = fx.run.call(Caller::Main, "touch", json!({}));
    assert!(!result.is_error);
    assert_eq!(result.joined_text(), "touched a.txt\npost-write saw 1 path(s)");
    // A call that wrote nothing does not reach the layer.
    assert!(!fx.run.call(Caller::Main, "peek", json!({"text": "x"})).is_error);
    let seen = layer.0.lock().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0], vec![fx.run.workspace_root().join("a.txt")]);
    assert!(seen[0][0].is_absolute());
}

#[test]
fn workspace_root_is_canonical_and_independent_of_cwd() {
    let workspace = support::workspace_with(&[("x", "")]);
    let dotted = workspace.path().join(".").join("..").join(workspace.path().file_name().unwrap());
    let run = Run::builder(&dotted).build().unwrap();
    assert_eq!(run.workspace_root(), std::fs::canonicalize(workspace.path()).unwrap());
    let missing = Run::builder(workspace.path().join("does-not-exist")).build().unwrap_err();
    assert!(missing.message.contains("does-not-exist"), "{}", missing.message);
    let file = Run::builder(workspace.path().join("x")).build().unwrap_err();
    assert!(file.message.contains("not a directory"), "{}", file.message);
}

#[test]
fn error_kinds_are_stable_wire_names() {
    assert_eq!(ErrorKind::HiddenFromCaller.as_str(), "hidden_from_caller");
    assert_eq!(serde_json::to_value(ErrorKind::ApprovalDenied).unwrap(), json!("approval_denied"));
}

/// A host resource: tools reach it with `ctx.resource::<Counter>()`.
struct Counter(AtomicUsize);

impl Resource for Counter {
    const NAME: &'static str = "test counter";
    const WIRED_BY: &'static str = "RunBuilder::resource(Arc::new(Counter(..)))";
}

fn counter_tool() -> (ToolDescriptor, runbound::ToolHandler) {
    let descriptor = ToolDescriptor {
        name: "bump".to_owned(),
        description: "bumps the host's counter resource".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: true,
        default_timeout: Duration::from_secs(1),
    };
    let handler: runbound::ToolHandler = Arc::new(|ctx: &CallContext<'_>, _args: Value| {
        let counter = ctx.resource::<Counter>()?;
        let now = counter.0.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(ToolOutput::text(format!("count {now} in {}", ctx.conversation_id())))
    });
    (descriptor, handler)
}

#[test]
fn host_resources_are_found_by_type_and_an_unwired_one_is_one_error() {
    let workspace = support::workspace_with(&[]);
    let counter = Arc::new(Counter(AtomicUsize::new(0)));
    let (descriptor, handler) = counter_tool();
    let run = Run::builder(workspace.path())
        .conversation_id("conversation-resources")
        .resource(counter.clone())
        .tool(descriptor, handler)
        .build()
        .unwrap();
    assert_eq!(run.call(Caller::Main, "bump", json!({})).joined_text(), "count 1 in conversation-resources");
    assert_eq!(run.call(Caller::Main, "bump", json!({})).joined_text(), "count 2 in conversation-resources");
    assert_eq!(counter.0.load(Ordering::SeqCst), 2, "the run's resource is the host's Arc");
    assert!(std::ptr::eq(run.resource::<Counter>().unwrap(), &*counter));
    assert!(run.registry().resources().names().contains(&"test counter"), "{:?}", run.registry().resources());

    let (descriptor, handler) = counter_tool();
    let unwired = Run::builder(workspace.path()).tool(descriptor, handler).build().unwrap();
    let result = unwired.call(Caller::Main, "bump", json!({}));
    assert_eq!(error_kind(&result), "unavailable");
    let text = result.joined_text();
    assert!(text.contains("this run has no test counter wired") && text.contains("RunBuilder::resource(Arc::new(Counter(..)))"), "{text}");

    let twice = Run::builder(workspace.path()).resource(counter.clone()).resource(counter).build().unwrap_err();
    assert!(twice.message.contains("test counter is wired twice"), "{}", twice.message);
}

/// A host tool that calls `target` through `ctx.call_nested` and reports what came back and how
/// long it took.
fn nesting_tool(target: &'static str, default_timeout: Duration) -> (ToolDescriptor, runbound::ToolHandler) {
    let descriptor = ToolDescriptor {
        name: format!("nest_{target}"),
        description: format!("calls {target} as a nested call"),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: true,
        default_timeout,
    };
    let handler: runbound::ToolHandler = Arc::new(move |ctx: &CallContext<'_>, _args: Value| {
        let started = Instant::now();
        let nested = ctx.call_nested(target, json!({"text": "from inside"}), CallOrigin::Bridge { via: "nest".to_owned() });
        let kind = nested.structured_content.as_ref().and_then(|s| s["error"]["kind"].as_str()).unwrap_or("ok").to_owned();
        Ok(ToolOutput::text(format!("{kind} after {} ms: {}", started.elapsed().as_millis(), nested.joined_text())))
    });
    (descriptor, handler)
}

#[test]
fn nested_calls_keep_the_caller_and_are_bounded_by_the_parents_remaining_time() {
    // `slow` waits for its deadline; its own budget is 30 s, the parent's is 400 ms.
    let slow = ToolDescriptor {
        name: "slow".to_owned(),
        description: "waits until its deadline".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: true,
        default_timeout: Duration::from_secs(30),
    };
    let seen_budget = Arc::new(Mutex::new(None));
    let seen_origin = Arc::new(Mutex::new(None));
    let (budget_slot, origin_slot) = (seen_budget.clone(), seen_origin.clone());
    let slow_handler: runbound::ToolHandler = Arc::new(move |ctx: &CallContext<'_>, _args: Value| {
        *budget_slot.lock() = Some(ctx.budget());
        *origin_slot.lock() = Some(ctx.origin().clone());
        while ctx.check_continue("waiting for its deadline").is_ok() {
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(ctx.timeout_error("waiting for its deadline"))
    });
    let (nest_slow, nest_slow_handler) = nesting_tool("slow", Duration::from_millis(400));
    let (nest_poke, nest_poke_handler) = nesting_tool("poke", Duration::from_secs(5));
    let fx = fixture(move |b| allow_all(b).tool(slow, slow_handler).tool(nest_slow, nest_slow_handler).tool(nest_poke, nest_poke_handler));

    let started = Instant::now();
    let result = fx.run.call(Caller::Main, "nest_slow", json!({}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.starts_with("timeout after "), "the nested call ran out of the parent's time: {text}");
    assert!(started.elapsed() < Duration::from_secs(5), "bounded by the parent's 400 ms, took {:?}", started.elapsed());
    let budget = seen_budget.lock().expect("slow ran");
    assert!(budget <= Duration::from_millis(400) && budget > Duration::ZERO, "nested budget {budget:?}");
    assert_eq!(*seen_origin.lock(), Some(CallOrigin::Bridge { via: "nest".to_owned() }));

    // The caller is kept: a read-only caller's nested call to a write tool is refused as hidden.
    let refused = fx.run.call(Caller::Readonly, "nest_poke", json!({}));
    assert!(refused.joined_text().starts_with("hidden_from_caller after "), "{}", refused.joined_text());
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 0);
    let allowed = fx.run.call(Caller::Main, "nest_poke", json!({}));
    assert!(allowed.joined_text().contains("echo from inside"), "{}", allowed.joined_text());
    assert_eq!(fx.calls[1].load(Ordering::SeqCst), 1);
}
