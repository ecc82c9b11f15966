//! Background workers (`vibe_*`, R-VIBE-1..2, issue 8) driven for real: the command
//! backend runs `tests/data/vibe/worker.sh` through `/bin/sh` in its own process group; the
//! closure backend covers depth 1, permission routing and completion events for Rust hosts.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use runbound::ask::{ScriptedAnswer, ScriptedAskPort, PERMISSION_ALLOW_ONCE};
use runbound::vibe::{ClosureBackend, CommandBackend, VibeConfig, VibeSetup, WorkerEvent, WorkerTier};
use runbound::{Caller, Run, RunConfig, Tier, ToolDescriptor, ToolOutput, ToolResult};
use serde_json::{json, Value};

const VIBE_TOOLS: [&str; 5] = ["vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"];

fn worker_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vibe/worker.sh")
}

/// The shell command line of the test worker.
fn worker_command() -> String {
    format!("sh {}", worker_script().display())
}

/// Short waits so timeouts are testable; everything else at its default.
fn test_config() -> RunConfig {
    RunConfig { vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() }, ..RunConfig::default() }
}

/// A workspace and a vibe-mode run whose `fast` and `good` tiers both run the test worker, or
/// `None` (after a loud SKIP, or a failure under CI) when `sh` or `sleep` is missing.
fn command_run(test_name: &str) -> Option<(tempfile::TempDir, Run)> {
    command_run_with(test_name, test_config())
}

fn command_run_with(test_name: &str, config: RunConfig) -> Option<(tempfile::TempDir, Run)> {
    support::require_binary(test_name, "sh")?;
    support::require_binary(test_name, "sleep")?;
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, worker_command()).with_command(WorkerTier::Good, worker_command());
    let workspace = support::workspace_with(&[("README.md", "test workspace\n")]);
    let run = Run::builder(workspace.path()).config(config).vibe_roster(VibeSetup::new(Arc::new(backend))).build().expect("build vibe run");
    Some((workspace, run))
}

fn call_ok(run: &Run, caller: Caller, tool: &str, arguments: Value) -> ToolResult {
    let result = run.call(caller, tool, arguments.clone());
    assert!(!result.is_error, "{tool}({arguments}) failed: {}", result.joined_text());
    result
}

fn structured(result: &ToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured content")
}

fn spawn(run: &Run, caller: Caller, brief: &str, label: &str, tier: Option<&str>) -> String {
    let mut arguments = json!({"brief": brief, "label": label});
    if let Some(tier) = tier {
        arguments["tier"] = json!(tier);
    }
    let result = call_ok(run, caller, "vibe_spawn", arguments);
    structured(&result)["worker_id"].as_str().expect("worker_id").to_owned()
}

fn wait(run: &Run, worker_id: &str, timeout_seconds: f64) -> ToolResult {
    call_ok(run, Caller::Main, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": timeout_seconds}))
}

/// The pids a worker attempt recorded (shell, background sleeper if any, foreground sleeper),
/// waiting up to 10 s for the file to appear.
fn recorded_pids(workspace: &Path, worker_id: &str, attempt: u32) -> Vec<u32> {
    let path = workspace.join("pids").join(format!("{worker_id}.{attempt}"));
    assert!(
        support::wait_until(Duration::from_secs(10), || path.exists()),
        "{worker_id} attempt {attempt} never recorded its pids at {}",
        path.display()
    );
    let text = std::fs::read_to_string(&path).expect("read pid file");
    let pids: Vec<u32> = text.lines().map(|line| line.trim().parse().expect("pid")).collect();
    assert!(!pids.is_empty(), "empty pid file {}", path.display());
    pids
}

/// Whether `pid` is a live (non-zombie) process.
fn process_alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat.rfind(')').and_then(|close| stat[close + 1..].split_whitespace().next()).unwrap_or("");
    state != "Z" && state != "X"
}

fn assert_all_gone(pids: &[u32], what: &str) {
    let gone = support::wait_until(Duration::from_secs(3), || pids.iter().all(|&pid| !process_alive(pid)));
    let alive: Vec<u32> = pids.iter().copied().filter(|&pid| process_alive(pid)).collect();
    assert!(gone, "{what}: processes still alive: {alive:?}");
    let descendants = support::descendant_pids();
    assert!(pids.iter().all(|pid| !descendants.contains(pid)), "{what}: still our descendants: {pids:?}");
}

fn list_entry(run: &Run, worker_id: &str) -> Value {
    let result = call_ok(run, Caller::Main, "vibe_list", json!({}));
    let workers = structured(&result)["workers"].as_array().expect("workers array").clone();
    workers.into_iter().find(|worker| worker["worker_id"] == worker_id).unwrap_or_else(|| panic!("{worker_id} not listed"))
}

#[test]
fn vibe_tools_register_only_in_vibe_mode_and_read_only_callers_see_all_five() {
    let workspace = support::workspace_with(&[]);
    let plain = Run::builder(workspace.path()).build().unwrap();
    for caller in Caller::ALL {
        let names: Vec<&str> = plain.tools(caller).iter().map(|tool| tool.name.as_str()).collect();
        assert!(names.iter().all(|name| !name.starts_with("vibe_")), "vibe tools without vibe mode: {names:?}");
    }
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, "true");
    let run = Run::builder(workspace.path()).vibe_roster(VibeSetup::new(Arc::new(backend))).build().unwrap();
    for caller in Caller::ALL {
        let visible: Vec<&ToolDescriptor> = run.tools(caller).into_iter().filter(|tool| tool.name.starts_with("vibe_")).collect();
        let names: Vec<&str> = visible.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(names, VIBE_TOOLS, "{caller} caller");
        assert!(visible.iter().all(|tool| tool.tier == Tier::Read));
    }
    let wait_description = &run.registry().descriptor("vibe_wait").unwrap().description;
    assert!(wait_description.contains("default 30, minimum 10, maximum 3600"), "{wait_description}");
    assert!(wait_description.contains("Do not poll in a tight loop"), "{wait_description}");
    let spawn_description = &run.registry().descriptor("vibe_spawn").unwrap().description;
    assert!(spawn_description.contains("`fast` = well-specified mechanical work"), "{spawn_description}");
    assert!(spawn_description.contains("`good` = design, judgment, or reviewing a fast worker's output"), "{spawn_description}");
    // A read-only caller can drive a worker end to end.
    let id = spawn(&run, Caller::Readonly, "nothing to do", "noop", None);
    assert_eq!(id, "worker_1");
    let result = wait(&run, &id, 20.0);
    assert_eq!(structured(&result)["status"], "completed", "{}", result.joined_text());
}

#[test]
fn two_tiers_list_while_running_wait_timed_out_then_completed() {
    let Some((workspace, run)) = command_run("two_tiers_list_while_running_wait_timed_out_then_completed") else {
        return;
    };
    let slow = spawn(&run, Caller::Main, "rename the parser module\nsleep=2", "rename parser", None);
    let quick = spawn(&run, Caller::Main, "review the rename\nsleep=0.3", "review rename", Some("good"));
    assert_eq!((slow.as_str(), quick.as_str()), ("worker_1", "worker_2"));

    recorded_pids(workspace.path(), &slow, 1);
    let listed = call_ok(&run, Caller::Main, "vibe_list", json!({}));
    let text = listed.joined_text();
    assert!(text.starts_with("2 workers"), "{text}");
    let slow_entry = list_entry(&run, &slow);
    assert_eq!(slow_entry["status"], "running", "{slow_entry}");
    assert_eq!(slow_entry["tier"], "fast");
    assert_eq!(slow_entry["attempt"], 1);
    assert_eq!(slow_entry["label"], "rename parser");

    let timed_out = wait(&run, &slow, 0.3);
    let timed_out_json = structured(&timed_out);
    assert_eq!(timed_out_json["timed_out"], true, "{}", timed_out.joined_text());
    assert_eq!(timed_out_json["status"], "running");
    assert!(timed_out_json["waited_ms"].as_u64().unwrap() >= 250, "{timed_out_json}");
    assert!(timed_out.joined_text().starts_with("timed_out: worker_1"), "{}", timed_out.joined_text());
    assert!(timed_out.joined_text().contains("Do not poll in a tight loop"));

    let done = call_ok(&run, Caller::Main, "vibe_wait", json!({"worker_id": quick}));
    let done_json = structured(&done);
    assert_eq!(done_json["timed_out"], false);
    assert_eq!(done_json["status"], "completed", "{}", done.joined_text());
    let text = done.joined_text();
    assert!(text.contains("worker=worker_2 label=review rename tier=good attempt=1 caller=main"), "{text}");
    assert!(text.contains("review the rename"), "{text}");
    let workspace_root = run.workspace_root().display().to_string();
    assert!(text.contains(&format!("workspace={workspace_root} cwd={workspace_root}")), "{text}");

    let done = wait(&run, &slow, 20.0);
    assert_eq!(structured(&done)["status"], "completed", "{}", done.joined_text());
    assert!(done.joined_text().contains("tier=fast attempt=1"), "{}", done.joined_text());
    let slow_entry = list_entry(&run, &slow);
    assert_eq!(slow_entry["status"], "completed");
    assert!(slow_entry["elapsed_ms"].as_u64().unwrap() >= 1900, "{slow_entry}");
    assert!(slow_entry["last_result"].as_str().unwrap().starts_with("worker=worker_1"), "{slow_entry}");
}

#[test]
fn send_to_running_worker_cancels_attempt_and_its_processes() {
    let Some((workspace, run)) = command_run("send_to_running_worker_cancels_attempt_and_its_processes") else {
        return;
    };
    let id = spawn(&run, Caller::Main, "port the tests\nsleep=60\nmode=background", "port tests", None);
    let first_attempt_pids = recorded_pids(workspace.path(), &id, 1);
    assert_eq!(first_attempt_pids.len(), 3, "shell, background sleeper, foreground sleeper");
    assert!(first_attempt_pids.iter().all(|&pid| process_alive(pid)));

    let sent = call_ok(&run, Caller::Main, "vibe_send", json!({"worker_id": id, "message": "only port tests/foo\nsleep=0\nmode=ok"}));
    let sent_json = structured(&sent);
    assert_eq!(sent_json["previous_status"], "running", "{}", sent.joined_text());
    assert_eq!(sent_json["previous_attempt"], 1);
    assert_eq!(sent_json["previous_attempt_stopped"], true);
    assert_eq!(sent_json["attempt"], 2);
    assert!(sent.joined_text().contains("cancelled (its processes killed) and attempt 2 starts"), "{}", sent.joined_text());
    assert_all_gone(&first_attempt_pids, "attempt 1 after vibe_send");

    let done = wait(&run, &id, 20.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    assert_eq!(structured(&done)["attempt"], 2);
    assert!(text.contains("attempt=2"), "{text}");
    assert!(text.contains("--- message 1 from the main agent ---\nonly port tests/foo"), "{text}");
    assert!(text.contains("port the tests"), "the original brief is kept: {text}");
    assert_eq!(list_entry(&run, &id)["attempt"], 2);
}

#[test]
fn send_to_finished_worker_starts_a_new_attempt() {
    let Some((_workspace, run)) = command_run("send_to_finished_worker_starts_a_new_attempt") else {
        return;
    };
    let id = spawn(&run, Caller::Main, "summarize the changelog", "changelog", None);
    let first = wait(&run, &id, 20.0);
    assert_eq!(structured(&first)["status"], "completed", "{}", first.joined_text());
    assert_eq!(structured(&first)["attempt"], 1);

    let sent = call_ok(&run, Caller::Main, "vibe_send", json!({"worker_id": id, "message": "now in French"}));
    assert_eq!(structured(&sent)["previous_status"], "completed");
    assert_eq!(structured(&sent)["attempt"], 2);
    assert!(sent.joined_text().contains("had completed attempt 1; attempt 2 started"), "{}", sent.joined_text());

    let second = wait(&run, &id, 20.0);
    let text = second.joined_text();
    assert_eq!(structured(&second)["status"], "completed", "{text}");
    assert!(text.contains("attempt=2"), "{text}");
    assert!(text.contains("summarize the changelog\n\n--- message 1 from the main agent ---\nnow in French"), "{text}");
}

#[test]
fn kill_stops_worker_and_its_process_group_and_keeps_the_record() {
    let Some((workspace, run)) = command_run("kill_stops_worker_and_its_process_group_and_keeps_the_record") else {
        return;
    };
    let id = spawn(&run, Caller::Main, "long job\nsleep=60\nmode=background", "long job", None);
    let pids = recorded_pids(workspace.path(), &id, 1);
    assert_eq!(pids.len(), 3);

    let killed = call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": id}));
    let killed_json = structured(&killed);
    assert_eq!(killed_json["previous_status"], "running", "{}", killed.joined_text());
    assert_eq!(killed_json["status"], "killed");
    assert_eq!(killed_json["stopped"], true);
    assert!(killed.joined_text().contains("its processes are gone"), "{}", killed.joined_text());
    assert_all_gone(&pids, "after vibe_kill");

    let entry = list_entry(&run, &id);
    assert_eq!(entry["status"], "killed", "{entry}");
    assert_eq!(entry["label"], "long job");
    assert!(entry["note"].as_str().unwrap().contains("killed by vibe_kill during attempt 1"), "{entry}");
    let waited = wait(&run, &id, 20.0);
    assert_eq!(structured(&waited)["status"], "killed");
    assert!(structured(&waited)["waited_ms"].as_u64().unwrap() < 1000, "a killed worker answers at once");
    let again = call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": id}));
    assert!(again.joined_text().contains("nothing to stop"), "{}", again.joined_text());
}

#[test]
fn failing_command_is_failed_with_exit_code_and_stderr_tail() {
    let Some((_workspace, run)) = command_run("failing_command_is_failed_with_exit_code_and_stderr_tail") else {
        return;
    };
    let id = spawn(&run, Caller::Main, "build it\nmode=fail", "build", None);
    let done = wait(&run, &id, 20.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "failed", "{text}");
    assert!(text.contains("exited with code 3"), "{text}");
    assert!(text.contains("stderr tail:\ncompilation failed: expected ';' at src/lib.rs:3"), "{text}");
    assert!(text.contains("stdout tail:\npartial output before the failure"), "{text}");
    assert!(text.contains("error:"), "{text}");
}

#[test]
fn worker_command_that_does_not_exist_fails_clearly() {
    if support::require_binary("worker_command_that_does_not_exist_fails_clearly", "sh").is_none() {
        return;
    }
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, "/nonexistent/agent-cli --print");
    let workspace = support::workspace_with(&[]);
    let run = Run::builder(workspace.path()).config(test_config()).vibe_roster(VibeSetup::new(Arc::new(backend))).build().unwrap();
    let id = spawn(&run, Caller::Main, "anything", "missing", None);
    let done = wait(&run, &id, 20.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "failed", "{text}");
    assert!(text.contains("exited with code 127: the shell could not find the command"), "{text}");
    assert!(text.contains("/nonexistent/agent-cli"), "{text}");

    // A tier with no command at all fails the spawn itself, naming the flag to add.
    let refused = run.call(Caller::Main, "vibe_spawn", json!({"brief": "review", "label": "review", "tier": "good"}));
    assert!(refused.is_error);
    assert!(refused.joined_text().contains("--worker good=COMMAND"), "{}", refused.joined_text());
    assert_eq!(structured(&refused)["error"]["kind"], "unavailable");
}

#[test]
fn dropping_the_run_with_workers_running_leaves_no_process() {
    let Some((workspace, run)) = command_run("dropping_the_run_with_workers_running_leaves_no_process") else {
        return;
    };
    let ids: Vec<String> =
        (0..3).map(|n| spawn(&run, Caller::Main, "forever\nsleep=300\nmode=background", &format!("forever {n}"), None)).collect();
    let pids: Vec<u32> = ids.iter().flat_map(|id| recorded_pids(workspace.path(), id, 1)).collect();
    assert_eq!(pids.len(), 9);
    let descendants = support::descendant_pids();
    assert!(pids.iter().all(|pid| descendants.contains(pid)), "workers' processes are ours while the run lives");
    let started = Instant::now();
    drop(run);
    assert!(started.elapsed() < Duration::from_secs(10), "drop took {:?}", started.elapsed());
    assert_all_gone(&pids, "after dropping the run");
}

#[test]
fn fifty_workers_spawned_at_once_all_complete_and_list_correctly() {
    let Some((_workspace, run)) = command_run("fifty_workers_spawned_at_once_all_complete_and_list_correctly") else {
        return;
    };
    let run = &run;
    let mut spawned: Vec<(String, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..50)
            .map(|n: u32| {
                scope.spawn(move || {
                    let label = format!("job {n}");
                    let tier = if n.is_multiple_of(2) { "fast" } else { "good" };
                    (spawn(run, Caller::Main, &format!("job number {n}\nsleep=0.2"), &label, Some(tier)), label)
                })
            })
            .collect();
        handles.into_iter().map(|handle| handle.join().expect("spawner thread")).collect()
    });
    spawned.sort_by_key(|(id, _)| id[7..].parse::<u32>().unwrap());
    let ids: Vec<&str> = spawned.iter().map(|(id, _)| id.as_str()).collect();
    let expected: Vec<String> = (1..=50).map(|n| format!("worker_{n}")).collect();
    assert_eq!(ids, expected, "ids are unique and dense");

    for (id, _) in &spawned {
        let done = wait(run, id, 60.0);
        assert_eq!(structured(&done)["status"], "completed", "{id}: {}", done.joined_text());
    }
    let listed = call_ok(run, Caller::Main, "vibe_list", json!({}));
    assert!(listed.joined_text().starts_with("50 workers (50 completed):"), "{}", listed.joined_text());
    let workers = structured(&listed)["workers"].as_array().unwrap().clone();
    assert_eq!(workers.len(), 50);
    for (worker, (id, label)) in workers.iter().zip(&spawned) {
        assert_eq!(worker["worker_id"], id.as_str());
        assert_eq!(worker["label"], label.as_str());
        assert_eq!(worker["status"], "completed");
        assert_eq!(worker["attempt"], 1);
        let number: u32 = label[4..].parse().unwrap();
        assert_eq!(worker["tier"], if number.is_multiple_of(2) { "fast" } else { "good" });
        let result = worker["last_result"].as_str().unwrap();
        assert!(result.starts_with(&format!("worker={id} label={label} tier=")), "{id}: {result}");
    }
}

#[test]
fn command_worker_gets_the_spawning_callers_mode() {
    let Some((_workspace, run)) = command_run("command_worker_gets_the_spawning_callers_mode") else {
        return;
    };
    for caller in Caller::ALL {
        let id = spawn(&run, caller, "look around", &format!("explore as {caller}"), None);
        let done = wait(&run, &id, 20.0);
        let text = done.joined_text();
        assert!(text.contains(&format!("caller={}", caller.as_str())), "{caller}: {text}");
        assert_eq!(list_entry(&run, &id)["caller"], caller.as_str());
    }
}

#[test]
fn unknown_worker_and_clamped_wait_are_explained() {
    let Some((_workspace, run)) = command_run("unknown_worker_and_clamped_wait_are_explained") else {
        return;
    };
    let missing = run.call(Caller::Main, "vibe_wait", json!({"worker_id": "worker_9"}));
    assert!(missing.is_error);
    assert!(missing.joined_text().contains("no worker \"worker_9\""), "{}", missing.joined_text());
    assert!(missing.joined_text().contains("no workers yet"), "{}", missing.joined_text());
    let empty = call_ok(&run, Caller::Main, "vibe_list", json!({}));
    assert!(empty.joined_text().contains("no workers in this run yet"));

    let id = spawn(&run, Caller::Main, "wait a bit\nsleep=2", "slow", None);
    let clamped = wait(&run, &id, 0.01);
    let text = clamped.joined_text();
    assert!(text.starts_with("(timeout_seconds 0.01 was clamped to 0.1 s: the allowed range is 0.1..=3600 s)"), "{text}");
    assert_eq!(structured(&clamped)["timed_out"], true);
    assert!(structured(&clamped)["waited_ms"].as_u64().unwrap() >= 90, "raised to the 100 ms minimum");
}

/// A closure-backed vibe run whose workers call this run's tools through a `Weak<Run>` (as a
/// Rust host would), with a write-tier host tool `touch` and an optional ask port.
fn closure_run(
    ask_port: Option<Arc<ScriptedAskPort>>,
    attempt: impl Fn(&Run, &runbound::vibe::WorkerJob<'_>) -> Result<String, String> + Send + Sync + 'static,
    events: Option<crossbeam_channel::Sender<WorkerEvent>>,
) -> (tempfile::TempDir, Arc<Run>) {
    let workspace = support::workspace_with(&[]);
    let run_slot: Arc<OnceLock<Weak<Run>>> = Arc::new(OnceLock::new());
    let backend_slot = Arc::clone(&run_slot);
    let backend = ClosureBackend::new(move |job| {
        let run = backend_slot.get().and_then(Weak::upgrade).ok_or("the run is gone")?;
        attempt(&run, job)
    });
    let setup = VibeSetup::new(Arc::new(backend));
    let touch = ToolDescriptor {
        name: "touch".to_owned(),
        description: "Create an empty file (test tool).".to_owned(),
        tier: Tier::Write,
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(5),
    };
    let mut builder = Run::builder(workspace.path())
        .config(test_config())
        .tool(touch, Arc::new(|_ctx, _arguments| Ok(ToolOutput::text("touched"))))
        .vibe_roster(setup);
    if let Some(port) = ask_port {
        builder = builder.ask_port(port, "conversation-channel");
    }
    if let Some(events) = events {
        // The way a host that receives a ready builder (e.g. `serve`) hooks completion.
        assert!(builder.has_vibe_roster());
        builder = builder.on_worker_event(Arc::new(move |event: &WorkerEvent| {
            let _ = events.send(event.clone());
        }));
    }
    let run = Arc::new(builder.build().unwrap());
    run_slot.set(Arc::downgrade(&run)).unwrap();
    (workspace, run)
}

/// What a worker saw when calling `tool`: `ok: <text>` or `<error kind>: <text>`.
fn worker_call(run: &Run, job: &runbound::vibe::WorkerJob<'_>, tool: &str, arguments: Value) -> String {
    let result = run.call_with(tool, arguments, &job.call_options());
    match result.is_error {
        false => format!("ok: {}", result.joined_text()),
        true => format!("{}: {}", structured(&result)["error"]["kind"].as_str().unwrap_or("?"), result.joined_text()),
    }
}

#[test]
fn closure_worker_is_depth_one_and_its_permission_prompt_carries_its_label() {
    let port = Arc::new(ScriptedAskPort::new([ScriptedAnswer::choose(PERMISSION_ALLOW_ONCE)]));
    let (_workspace, run) = closure_run(
        Some(Arc::clone(&port)),
        |run, job| {
            let outcomes = [
                worker_call(run, job, "ask_user", json!({"question": "which file?"})),
                worker_call(run, job, "vibe_spawn", json!({"brief": "recurse", "label": "nested"})),
                worker_call(run, job, "touch", json!({"path": "a.txt"})),
            ];
            Ok(outcomes.join("\n"))
        },
        None,
    );
    let id = spawn(&run, Caller::Main, "touch a file", "toucher", None);
    let done = wait(&run, &id, 20.0);
    let text = done.joined_text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().any(|line| line.starts_with("guardrail_denied: ") && line.contains("do not get ask_user")), "{text}");
    assert!(lines.iter().any(|line| line.starts_with("guardrail_denied: ") && line.contains("do not get vibe_spawn")), "{text}");
    assert!(lines.iter().any(|line| line.starts_with("ok: touched")), "{text}");
    let cards = port.shown_cards();
    assert_eq!(cards.len(), 1, "one permission card, for touch: {cards:?}");
    assert_eq!(cards[0].asked_by.as_deref(), Some("worker_1: toucher"));
    assert!(cards[0].question.contains("touch"), "{:?}", cards[0]);

    let worker_tools: Vec<&str> =
        runbound::vibe::tools_for_worker(run.registry(), Caller::Main).iter().map(|tool| tool.name.as_str()).collect();
    assert!(worker_tools.contains(&"touch"), "{worker_tools:?}");
    assert!(worker_tools.iter().all(|name| !name.starts_with("vibe_") && *name != "ask_user"), "{worker_tools:?}");
}

#[test]
fn closure_worker_without_a_human_fails_fast_and_inherits_plan_mode() {
    let (_workspace, run) = closure_run(
        None,
        |run, job| {
            let started = Instant::now();
            let outcome = worker_call(run, job, "touch", json!({"path": "a.txt"}));
            Ok(format!("{outcome}\nelapsed_ms={}", started.elapsed().as_millis()))
        },
        None,
    );
    let id = spawn(&run, Caller::Main, "touch a file", "headless", None);
    let text = wait(&run, &id, 20.0).joined_text();
    assert!(text.contains("approval_denied: ") && text.contains("no human is attached"), "{text}");
    let elapsed_ms: u64 = text.rsplit("elapsed_ms=").next().unwrap().trim().parse().unwrap();
    assert!(elapsed_ms < 1000, "a worker's permission prompt with no human must fail fast, took {elapsed_ms} ms");

    let planned = spawn(&run, Caller::Plan, "touch a file", "planner", None);
    let text = wait(&run, &planned, 20.0).joined_text();
    assert!(text.contains("hidden_from_caller: "), "a plan-mode caller's worker sees read tools only: {text}");
}

#[test]
fn closure_worker_events_panics_and_cancellation() {
    let (sender, receiver) = crossbeam_channel::unbounded();
    let (_workspace, run) = closure_run(
        None,
        |_run, job| {
            if job.brief().contains("panic") {
                panic!("backend bug on purpose");
            }
            if job.brief().contains("spin") {
                job.report_progress("spinning until cancelled");
                while !job.is_cancelled() {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return Err("cancelled".to_owned());
            }
            Ok(format!("answer from {} attempt {}", job.worker_id(), job.attempt()))
        },
        Some(sender),
    );
    let spawn_description = &run.registry().descriptor("vibe_spawn").unwrap().description;
    assert!(spawn_description.contains("You are told when a worker finishes."), "hook given: {spawn_description}");
    let ok = spawn(&run, Caller::Main, "answer", "answerer", Some("good"));
    let event = receiver.recv_timeout(Duration::from_secs(10)).expect("completion event");
    assert_eq!(event.worker_id, ok);
    assert_eq!(event.status.as_str(), "completed");
    assert_eq!(event.tier, WorkerTier::Good);
    assert_eq!(event.result_excerpt, "answer from worker_1 attempt 1");
    assert!(event.message().contains("call vibe_wait with worker_id \"worker_1\""), "{}", event.message());
    assert_eq!(event.to_json()["status"], "completed");

    let panicking = spawn(&run, Caller::Main, "panic please", "panicker", None);
    let done = wait(&run, &panicking, 20.0);
    assert_eq!(structured(&done)["status"], "failed");
    assert!(done.joined_text().contains("the worker backend panicked: backend bug on purpose"), "{}", done.joined_text());
    let event = receiver.recv_timeout(Duration::from_secs(10)).expect("failure event");
    assert_eq!((event.worker_id.as_str(), event.status.as_str()), (panicking.as_str(), "failed"));

    let spinner = spawn(&run, Caller::Main, "spin", "spinner", None);
    assert!(support::wait_until(Duration::from_secs(5), || list_entry(&run, &spinner)["progress"] == "spinning until cancelled"));
    let killed = call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": spinner}));
    assert_eq!(structured(&killed)["stopped"], true);
    assert!(receiver.recv_timeout(Duration::from_millis(300)).is_err(), "a kill the model asked for is not announced");
    // A killed worker restarts on vibe_send; its brief still says "spin", so attempt 2 spins
    // until killed in turn.
    let restarted = call_ok(&run, Caller::Main, "vibe_send", json!({"worker_id": spinner, "message": "keep going"}));
    assert_eq!(structured(&restarted)["previous_status"], "killed");
    assert_eq!(structured(&restarted)["attempt"], 2);
    assert!(support::wait_until(Duration::from_secs(5), || {
        let entry = list_entry(&run, &spinner);
        entry["status"] == "running" && entry["attempt"] == 2
    }));
    let killed = call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": spinner}));
    assert_eq!(structured(&killed)["previous_status"], "running");
    assert_eq!(structured(&killed)["attempt"], 2);
    assert!(killed.joined_text().contains("killed in attempt 2"), "{}", killed.joined_text());
}

#[test]
fn processes_a_worker_leaves_behind_are_killed_and_reported() {
    let Some((workspace, run)) = command_run("processes_a_worker_leaves_behind_are_killed_and_reported") else {
        return;
    };
    let id = spawn(&run, Caller::Main, "start a server and return\nmode=background", "leaves a child", None);
    let done = wait(&run, &id, 20.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    assert!(text.contains("[note: the worker left processes running in its process group; they were killed]"), "{text}");
    let pids = recorded_pids(workspace.path(), &id, 1);
    assert_eq!(pids.len(), 3);
    assert_all_gone(&pids, "after the worker completed");
}

#[test]
fn workers_beyond_the_running_limit_wait_as_pending_and_can_be_killed_before_starting() {
    let mut config = test_config();
    config.vibe.max_running_workers = 1;
    let Some((workspace, run)) = command_run_with("workers_beyond_the_running_limit_wait_as_pending", config) else {
        return;
    };
    let first = spawn(&run, Caller::Main, "first\nsleep=60", "first", None);
    let second = spawn(&run, Caller::Main, "second", "second", None);
    let third = spawn(&run, Caller::Main, "third", "third", None);
    recorded_pids(workspace.path(), &first, 1);
    assert_eq!(list_entry(&run, &first)["status"], "running");
    assert_eq!(list_entry(&run, &second)["status"], "pending");
    assert_eq!(list_entry(&run, &third)["status"], "pending");

    // A message to a worker that has not started lands in the brief of its first attempt.
    let sent = call_ok(&run, Caller::Main, "vibe_send", json!({"worker_id": third, "message": "also this"}));
    assert_eq!(structured(&sent)["attempt"], 1, "{}", sent.joined_text());
    assert!(sent.joined_text().contains("had not started attempt 1 yet"), "{}", sent.joined_text());

    let killed = call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": second}));
    assert_eq!(structured(&killed)["previous_status"], "pending");
    assert_eq!(list_entry(&run, &second)["note"], "killed by vibe_kill before attempt 1 started");
    call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": first}));

    let done = wait(&run, &third, 20.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    assert!(text.contains("third\n\n--- message 1 from the main agent ---\nalso this"), "{text}");
    assert!(!workspace.path().join("pids/worker_2.1").exists(), "a worker killed while pending never ran");
}

/// The concurrency cap is the backend's own when it sets one: a `fast` backend capped at 1 and a
/// `good` backend capped at 3 run side by side in one run whose `max_running_workers` is 8.
#[test]
fn each_backend_keeps_its_own_configured_concurrency_cap() {
    let test_name = "vibe::each_backend_keeps_its_own_configured_concurrency_cap";
    if support::require_binary(test_name, "sh").is_none() || support::require_binary(test_name, "sleep").is_none() {
        return;
    }
    let fast = CommandBackend::new().with_command(WorkerTier::Fast, worker_command()).with_max_running_attempts(1);
    let good = CommandBackend::new().with_command(WorkerTier::Good, worker_command()).with_max_running_attempts(3);
    let workspace = support::workspace_with(&[("README.md", "test workspace\n")]);
    let run = Run::builder(workspace.path())
        .config(test_config())
        .vibe_roster(VibeSetup::new(Arc::new(fast)).with_tier_backend(WorkerTier::Good, Arc::new(good)))
        .build()
        .unwrap();
    let roster = run.vibe_roster().expect("vibe mode on");
    let caps: Vec<(Vec<WorkerTier>, usize)> = roster.backends(false).into_iter().map(|backend| (backend.tiers, backend.cap)).collect();
    assert_eq!(caps, vec![(vec![WorkerTier::Fast], 1), (vec![WorkerTier::Good], 3)]);
    let fast_ids: Vec<String> = (0..3).map(|n| spawn(&run, Caller::Main, "sleep=60", &format!("fast {n}"), Some("fast"))).collect();
    let good_ids: Vec<String> = (0..4).map(|n| spawn(&run, Caller::Main, "sleep=60", &format!("good {n}"), Some("good"))).collect();
    recorded_pids(workspace.path(), &fast_ids[0], 1);
    for id in &good_ids[..3] {
        recorded_pids(workspace.path(), id, 1);
    }
    let statuses = |ids: &[String]| ids.iter().map(|id| list_entry(&run, id)["status"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(statuses(&fast_ids), ["running", "pending", "pending"]);
    assert_eq!(statuses(&good_ids), ["running", "running", "running", "pending"]);
    // A slot freed on one backend starts that backend's next worker, never the other's.
    call_ok(&run, Caller::Main, "vibe_kill", json!({"worker_id": good_ids[0]}));
    recorded_pids(workspace.path(), &good_ids[3], 1);
    assert_eq!(statuses(&fast_ids), ["running", "pending", "pending"]);
    let summaries = roster.backends(false);
    assert_eq!((summaries[0].running, summaries[0].queued), (1, 2), "{summaries:?}");
    assert_eq!((summaries[1].running, summaries[1].queued), (3, 0), "{summaries:?}");
}
