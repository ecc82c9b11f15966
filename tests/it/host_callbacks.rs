//! What a library host gets besides results: a call's progress through the callback on its
//! `CallOptions` (rate-limited, increasing, none after the call returns, nested calls forwarded
//! to the parent's callback), and operator events through `RunBuilder::on_event`. Driven with a
//! real structural search over a generated tree, a real CPython kernel for the bridge, and real
//! worker processes.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use runbound::registry::CallOptions;
use runbound::{Approval, ApprovalPolicy, Caller, EventLevel, ProgressUpdate, Run, RunEvent, Tier, ToolDescriptor, ToolOutput};
use serde_json::json;

/// A tree of `count` Python modules, each with exactly one `print(...)` call.
fn python_tree(count: usize) -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    std::fs::write(tree.path().join("requirements.txt"), "").unwrap();
    for index in 0..count {
        let dir = tree.path().join(format!("pkg_{:02}", index / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("module_{index}.py")),
            format!("def f_{index}(x):\n    print('value', x * {index})\n    return x\n"),
        )
        .unwrap();
    }
    tree
}

type Recorded = Arc<Mutex<Vec<(Instant, ProgressUpdate)>>>;

fn recording_options(caller: Caller) -> (CallOptions, Recorded) {
    let recorded: Recorded = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&recorded);
    let options = CallOptions::new(caller)
        .with_progress(Arc::new(move |update: &ProgressUpdate| sink.lock().unwrap().push((Instant::now(), update.clone()))));
    (options, recorded)
}

/// Checks the sink's contract on what a call delivered: something, increasing, at most about
/// four a second, nothing after `returned_at` (also after a pause).
fn check_progress(recorded: &Recorded, returned_at: Instant, what: &str) -> Vec<ProgressUpdate> {
    std::thread::sleep(Duration::from_millis(800));
    let recorded = recorded.lock().unwrap().clone();
    assert!(!recorded.is_empty(), "{what}: no progress");
    let values: Vec<f64> = recorded.iter().map(|(_, update)| update.progress).collect();
    assert!(values.windows(2).all(|pair| pair[0] < pair[1]), "{what}: progress did not increase: {values:?}");
    for pair in recorded.windows(2) {
        let gap = pair[1].0.duration_since(pair[0].0);
        assert!(gap >= Duration::from_millis(240), "{what}: two updates {gap:?} apart (at most four a second)");
    }
    assert!(recorded.iter().all(|(at, _)| *at <= returned_at), "{what}: progress after the call returned");
    recorded.into_iter().map(|(_, update)| update).collect()
}

#[test]
fn a_library_host_gets_a_searchs_progress_through_the_call_options() {
    let tree = python_tree(2000);
    let run =
        Run::builder(tree.path()).approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).with_structural().build().unwrap();
    let (options, recorded) = recording_options(Caller::Main);
    let result = run.call_with("ast_grep", json!({"pattern": "print($$$ARGS)", "language": "python", "max_results": 1}), &options);
    let returned_at = Instant::now();
    assert!(!result.is_error, "{}", result.joined_text());
    assert!(result.joined_text().starts_with("2000 matches in 2000 files"), "{}", result.joined_text());
    let updates = check_progress(&recorded, returned_at, "ast_grep");
    assert!(
        updates.iter().all(|update| update.message.as_deref().is_some_and(|message| message.ends_with("files searched"))),
        "{updates:?}"
    );
    assert!(updates.last().unwrap().progress <= 2000.0, "{updates:?}");

    // Without a callback the same call reports to nobody and behaves the same.
    let quiet = run.call(Caller::Main, "ast_grep", json!({"pattern": "print($$$ARGS)", "language": "python", "max_results": 1}));
    assert_eq!(quiet.joined_text(), result.joined_text());

    // ast_edit walks the same way and reports the same; its staged edit is then discarded.
    let (options, recorded) = recording_options(Caller::Main);
    let staged = run.call_with("ast_edit", json!({"pattern": "print($$$ARGS)", "rewrite": "log($$$ARGS)", "language": "python"}), &options);
    let returned_at = Instant::now();
    assert!(!staged.is_error, "{}", staged.joined_text());
    let edit_id = staged.structured_content.as_ref().unwrap()["edit_id"].as_str().expect("an edit was staged").to_owned();
    let updates = check_progress(&recorded, returned_at, "ast_edit");
    assert!(
        updates.iter().all(|update| update.message.as_deref().is_some_and(|message| message.ends_with("files searched"))),
        "{updates:?}"
    );
    let discarded = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "discard"}));
    assert!(!discarded.is_error, "{}", discarded.joined_text());
}

/// `vibe_wait` on a worker that runs a few seconds reports the worker's status and latest
/// progress line, seconds waited of the wait's bound, until it returns.
#[test]
fn a_waiting_vibe_wait_reports_the_workers_status() {
    let workspace = tempfile::tempdir().unwrap();
    let backend = runbound::vibe::CommandBackend::from_cli_worker_flags(&["fast=sleep 3; echo slept".to_owned()]).unwrap();
    let run = Run::builder(workspace.path()).vibe_roster(runbound::vibe::VibeSetup::new(Arc::new(backend))).build().unwrap();
    let spawned = run.call(Caller::Main, "vibe_spawn", json!({"brief": "sleep a while", "label": "sleeper", "tier": "fast"}));
    assert!(!spawned.is_error, "{}", spawned.joined_text());
    let worker_id = spawned.structured_content.as_ref().unwrap()["worker_id"].as_str().unwrap().to_owned();
    let (options, recorded) = recording_options(Caller::Main);
    let waited = run.call_with("vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 60}), &options);
    let returned_at = Instant::now();
    assert!(!waited.is_error, "{}", waited.joined_text());
    assert!(waited.joined_text().contains("slept"), "{}", waited.joined_text());
    let updates = check_progress(&recorded, returned_at, "vibe_wait");
    assert!(updates.len() >= 4, "a few a second over about three seconds: {updates:?}");
    assert!(
        updates.iter().all(|update| update.total == Some(60.0)
            && update.message.as_deref().is_some_and(|message| message.starts_with(&format!("waiting for {worker_id} (\"sleeper\"), ")))),
        "{updates:?}"
    );
    assert!(
        updates.iter().any(|update| update.message.as_deref().is_some_and(|message| message.contains("running `sleep 3"))),
        "{updates:?}"
    );
}

/// A nested call (an eval cell's `tool()` bridge running `ast_grep`) reports to the callback
/// of the call that made it.
#[test]
fn nested_calls_report_to_the_parents_callback() {
    const TEST: &str = "nested_calls_report_to_the_parents_callback";
    if support::require_binary(TEST, "python3").is_none() {
        return;
    }
    let tree = python_tree(1500);
    let run = Run::builder(tree.path())
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .with_structural()
        .kernel_factory(runbound::kernel::KernelFactory::new().selection(runbound::kernel::KernelSelection::Cpython))
        .build()
        .unwrap();
    let (options, recorded) = recording_options(Caller::Main);
    let code =
        "found = tool('ast_grep', {'pattern': 'print($$$ARGS)', 'language': 'python', 'max_results': 1})\nfound['text'].splitlines()[0]";
    let result = run.call_with("eval", json!({"code": code, "description": "search the tree through the bridge"}), &options);
    let returned_at = Instant::now();
    assert!(!result.is_error, "{}", result.joined_text());
    assert!(result.joined_text().contains("1500 matches in 1500 files"), "{}", result.joined_text());
    let updates = check_progress(&recorded, returned_at, "eval → ast_grep");
    assert!(
        updates.iter().any(|update| update.message.as_deref().is_some_and(|message| message.ends_with("files searched"))),
        "{updates:?}"
    );
}

/// A host's own tool reports through its context; the sink limits the rate for it.
#[test]
fn a_host_tool_reports_through_its_context() {
    let workspace = tempfile::tempdir().unwrap();
    let descriptor = ToolDescriptor {
        name: "count_slowly".to_owned(),
        description: "Counts to 40, one step every 25 ms, reporting each step.".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: true,
        default_timeout: Duration::from_secs(30),
    };
    let handler: runbound::ToolHandler = Arc::new(|ctx, _arguments| {
        for step in 1..=40 {
            ctx.progress(ProgressUpdate::new(f64::from(step)).with_total(40.0).with_message(format!("step {step} of 40")));
            std::thread::sleep(Duration::from_millis(25));
        }
        Ok(ToolOutput::text("counted"))
    });
    let run = Run::builder(workspace.path()).tool(descriptor, handler).build().unwrap();
    let (options, recorded) = recording_options(Caller::Main);
    let started = Instant::now();
    let result = run.call_with("count_slowly", json!({}), &options);
    let returned_at = Instant::now();
    assert!(!result.is_error, "{}", result.joined_text());
    let updates = check_progress(&recorded, returned_at, "count_slowly");
    let most = (returned_at - started).as_millis() / 250 + 1;
    assert!(updates.len() as u128 <= most && updates.len() >= 2, "{} updates in {:?}: {updates:?}", updates.len(), returned_at - started);
    assert_eq!(updates[0], ProgressUpdate::new(1.0).with_total(40.0).with_message("step 1 of 40"));
}

fn recording_events() -> (runbound::events::EventCallback, Arc<Mutex<Vec<RunEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    (Arc::new(move |event: &RunEvent| sink.lock().unwrap().push(event.clone())), events)
}

/// Operator events reach the host's callback: a tool that panicked (error), a call denied
/// because no human could be asked (warning), a worker whose command failed (warning).
#[test]
fn operator_events_reach_the_hosts_callback() {
    let workspace = tempfile::tempdir().unwrap();
    let descriptor = ToolDescriptor {
        name: "buggy".to_owned(),
        description: "Panics.".to_owned(),
        tier: Tier::Read,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
        parallel_safe: true,
        default_timeout: Duration::from_secs(30),
    };
    let handler: runbound::ToolHandler = Arc::new(|_ctx, _arguments| panic!("index out of range in the test tool"));
    let (callback, events) = recording_events();
    let backend = runbound::vibe::CommandBackend::from_cli_worker_flags(&["fast=echo broken >&2; exit 4".to_owned()]).unwrap();
    let run = Run::builder(workspace.path())
        .tool(descriptor, handler)
        .vibe_roster(runbound::vibe::VibeSetup::new(Arc::new(backend)))
        .on_event(callback)
        .build()
        .unwrap();
    let panicked = run.call(Caller::Main, "buggy", json!({}));
    assert!(panicked.is_error);
    let denied = run.call(Caller::Main, "write", json!({"path": "x.txt", "content": "x"}));
    assert!(denied.is_error, "{}", denied.joined_text());
    let spawned = run.call(Caller::Main, "vibe_spawn", json!({"brief": "fail", "label": "failing", "tier": "fast"}));
    assert!(!spawned.is_error, "{}", spawned.joined_text());
    let failed_worker = || events.lock().unwrap().iter().any(|event| event.source == "vibe");
    assert!(support::wait_until(Duration::from_secs(30), failed_worker), "the failed worker was announced: {:?}", events.lock().unwrap());
    drop(run);
    let events = events.lock().unwrap();
    let panic = events.iter().find(|event| event.source == "registry" && event.level == EventLevel::Error).expect("the panic");
    assert!(panic.message.contains("buggy panicked: index out of range in the test tool"), "{panic:?}");
    assert_eq!(panic.data["tool"], "buggy");
    let denial = events.iter().find(|event| event.level == EventLevel::Warning && event.source == "registry").expect("the denial");
    assert!(denial.message.contains("write was denied without asking"), "{denial:?}");
    let worker = events.iter().find(|event| event.source == "vibe").unwrap();
    assert_eq!(worker.level, EventLevel::Warning);
    assert!(worker.message.contains("failed") && worker.message.contains("exited with code 4"), "{worker:?}");
}

/// The project checker (`lsp diagnostics "*"`) reports while it runs: which checker, how long,
/// out of its budget.
#[test]
fn the_project_checker_reports_while_it_runs() {
    const TEST: &str = "the_project_checker_reports_while_it_runs";
    if support::require_binary(TEST, "cargo").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/rust");
    let run = Run::builder(workspace.path()).language_servers().build().unwrap();
    let (options, recorded) = recording_options(Caller::Main);
    let result = run.call_with("lsp", json!({"op": "diagnostics", "file": "*"}), &options);
    let returned_at = Instant::now();
    assert!(!result.is_error, "{}", result.joined_text());
    let updates = check_progress(&recorded, returned_at, "lsp diagnostics *");
    assert!(updates[0].message.as_deref().is_some_and(|message| message.starts_with("checker `cargo check` running")), "{updates:?}");
    assert!(updates.iter().all(|update| update.total.is_some_and(|total| total > 0.0)), "the checker's budget is the total: {updates:?}");
}

fn debug_run(workspace: &std::path::Path) -> Run {
    Run::builder(workspace)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .debug_supervisor(runbound::debug::DebugSupervisor::new())
        .build()
        .unwrap()
}

/// A debug launch that builds reports the build while cargo runs (the command, seconds
/// building), then the adapter's phases, on one scale (seconds since the call began, of the
/// call's budget), before the response and none after.
#[test]
fn a_debug_launch_reports_its_cargo_build_then_its_launch() {
    const TEST: &str = "a_debug_launch_reports_its_cargo_build_then_its_launch";
    if support::require_binary(TEST, "cargo").is_none() {
        return;
    }
    if !support::lldb_dap_found() {
        support::skip_or_fail(TEST, "no lldb-dap / lldb-dap-NN (apt lldb-19, see .ci/install)");
        return;
    }
    let workspace = support::copy_fixture("debug/tests_rust");
    let run = debug_run(workspace.path());
    let stored =
        run.call(Caller::Main, "debug", json!({"op": "breakpoints", "file": "src/lib.rs", "lines": [{"text": "Shape::Rect(w, h) =>"}]}));
    assert!(!stored.is_error, "{}", stored.joined_text());
    let (options, recorded) = recording_options(Caller::Main);
    let launched = run.call_with("debug", json!({"op": "launch", "test": "totals_shapes"}), &options);
    let returned_at = Instant::now();
    assert!(!launched.is_error, "{}", launched.joined_text());
    assert!(launched.joined_text().contains("stopped: breakpoint"), "{}", launched.joined_text());
    let updates = check_progress(&recorded, returned_at, "debug launch (cargo test --no-run, lldb)");
    let messages: Vec<&str> = updates.iter().filter_map(|update| update.message.as_deref()).collect();
    eprintln!("debug launch progress: {messages:?}");
    assert!(messages[0].starts_with("building: `cargo test --no-run --message-format=json`"), "the build comes first: {messages:?}");
    assert!(updates.iter().all(|update| update.total.is_some_and(|total| total > 0.0)), "the call's budget is the total: {updates:?}");
    run.call(Caller::Main, "debug", json!({"op": "terminate"}));
}

/// A launched program that runs a while before its first stop is reported as running (every
/// second), after the adapter's start; through the debugpy adapter.
#[test]
fn a_debug_launch_reports_the_program_running_until_its_first_stop() {
    const TEST: &str = "a_debug_launch_reports_the_program_running_until_its_first_stop";
    let Some(python) = support::require_binary(TEST, "python3") else { return };
    if !std::process::Command::new(&python).args(["-c", "import debugpy"]).status().is_ok_and(|status| status.success()) {
        support::skip_or_fail(TEST, "python3 cannot import debugpy (pip install debugpy, see .ci/install)");
        return;
    }
    let workspace = support::workspace_with(&[
        ("requirements.txt", ""),
        ("slow_start.py", "import time\ntime.sleep(2.5)\nvalue = 41\nprint(value + 1)\n"),
    ]);
    let run = debug_run(workspace.path());
    let stored = run.call(Caller::Main, "debug", json!({"op": "breakpoints", "file": "slow_start.py", "lines": [4]}));
    assert!(!stored.is_error, "{}", stored.joined_text());
    let (options, recorded) = recording_options(Caller::Main);
    let launched = run.call_with("debug", json!({"op": "launch", "program": "slow_start.py"}), &options);
    let returned_at = Instant::now();
    assert!(!launched.is_error, "{}", launched.joined_text());
    assert!(launched.joined_text().contains("slow_start.py:4"), "{}", launched.joined_text());
    let updates = check_progress(&recorded, returned_at, "debug launch (debugpy)");
    let messages: Vec<&str> = updates.iter().filter_map(|update| update.message.as_deref()).collect();
    eprintln!("debug launch progress: {messages:?}");
    assert!(messages[0].starts_with("starting the debugpy debug adapter"), "{messages:?}");
    assert!(messages.iter().filter(|message| message.contains("running until it stops")).count() >= 2, "{messages:?}");
    run.call(Caller::Main, "debug", json!({"op": "terminate"}));
}
