//! Dropping a `Run` stops everything bound to it: with a language server, a debug session, a
//! CPython and a Node kernel, and a background worker all live, every child process is killed
//! and reaped and every thread the run started is joined. The test runs alone in a child
//! process (`support::alone`) so that the thread count is not disturbed by other tests.

use crate::support;

use std::collections::HashSet;
use std::time::Duration;

use runbound::debug::DebugSupervisor;
use runbound::kernel::{KernelFactory, KernelSelection};
use runbound::vibe::VibeSetup;
use runbound::{Approval, ApprovalPolicy, Caller, Run};
use serde_json::{json, Value};

fn ok(run: &Run, tool: &str, arguments: Value) -> String {
    let result = run.call(Caller::Main, tool, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "{tool} {arguments} failed: {text}");
    text
}

#[test]
fn dropping_the_run_kills_every_child_and_joins_every_thread() {
    if !support::alone("run_drop::dropping_the_run_kills_every_child_and_joins_every_thread") {
        return;
    }
    const TEST: &str = "dropping_the_run_kills_every_child_and_joins_every_thread";
    let needed = ["pyright-langserver", "python3", "node"];
    if needed.iter().any(|binary| support::require_binary(TEST, binary).is_none()) {
        return;
    }
    let has_debugpy =
        std::process::Command::new("python3").args(["-c", "import debugpy"]).status().map(|status| status.success()).unwrap_or(false);
    if !has_debugpy {
        support::skip_or_fail(TEST, "python3 cannot import debugpy (pip install debugpy; .ci/install does)");
        return;
    }

    // One workspace holding a Python project for pyright and debugpy.
    let workspace = support::copy_fixture("lsp/python");
    std::fs::copy(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/debug/python/app.py"), workspace.path().join("app.py"))
        .expect("copy the debug fixture");

    let threads_before = support::thread_count();
    let descendants_before: HashSet<u32> = support::descendant_pids().into_iter().collect();

    let run = Run::builder(workspace.path())
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .with_structural()
        .language_servers()
        .debug_supervisor(DebugSupervisor::new())
        .kernel_factory(KernelFactory::new().selection(KernelSelection::parse("cpython").unwrap()))
        .vibe_roster(VibeSetup::from_cli_worker_flags(&["fast=sleep 120".to_owned()]).expect("worker flags"))
        .build()
        .expect("build the run");

    // A language server: any navigation op starts pyright for the project root.
    let symbols = ok(&run, "lsp", json!({"op": "symbols", "file": "shapes.py"}));
    assert!(!symbols.is_empty());
    // A debug session stopped at a breakpoint (adapter + debuggee processes).
    ok(&run, "debug", json!({"op": "breakpoints", "file": "app.py", "lines": [6]}));
    let launched = ok(&run, "debug", json!({"op": "launch", "program": "app.py"}));
    assert!(launched.contains("app.py:6"), "{launched}");
    // Both kernels, each with a shell grandchild still sleeping.
    ok(
        &run,
        "eval",
        json!({"code": "import subprocess\nsleeper = subprocess.Popen(['sleep', '120'])", "description": "start a sleeping child process"}),
    );
    ok(
        &run,
        "eval",
        json!({"language": "javascript", "code": "const cp = require('child_process'); cp.spawn('sleep', ['120']); 1", "description": "start a sleeping child from node"}),
    );
    // A background worker that sleeps.
    let spawned = ok(&run, "vibe_spawn", json!({"brief": "sleep", "label": "sleeper"}));
    assert!(spawned.contains("worker_1"), "{spawned}");
    // A structural search (parser set; no process).
    ok(&run, "ast_grep", json!({"pattern": "def $NAME($$$ARGS): $$$BODY", "language": "python"}));

    let live: Vec<u32> = support::descendant_pids().into_iter().filter(|pid| !descendants_before.contains(pid)).collect();
    assert!(live.len() >= 6, "expected server, adapter, debuggee, two kernels, sleepers and a worker; got {live:?}");
    assert!(support::thread_count() > threads_before, "resources run on their own threads");

    drop(run);

    let gone =
        support::wait_until(Duration::from_secs(15), || live.iter().all(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists()));
    let survivors: Vec<u32> = live.iter().copied().filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists()).collect();
    assert!(gone, "processes survived the run: {survivors:?}");
    let extra: Vec<u32> = support::descendant_pids().into_iter().filter(|pid| !descendants_before.contains(pid)).collect();
    assert!(extra.is_empty(), "new descendants after drop: {extra:?}");
    let joined = support::wait_until(Duration::from_secs(5), || support::thread_count() <= threads_before);
    assert!(joined, "threads before {threads_before}, after drop {}", support::thread_count());
}
