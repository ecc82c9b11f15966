//! The `debug` tool against real adapters: debugpy, lldb-dap (lldb-19) and delve, each on a
//! small committed program (tests/data/debug/), plus dart's launch path through a fake `dart`
//! adapter (no Dart SDK is packaged for this machine). Missing tools skip loudly locally and
//! fail under CI.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use runbound::debug::{DebugConfig, DebugSupervisor};
use runbound::{Approval, ApprovalPolicy, Caller, ErrorKind, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

/// Debug sessions are timing-sensitive on a 2-core machine and the run-drop test counts this
/// process's threads: the tests of this file run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) fn build_run(workspace: &Path, config: DebugConfig) -> Run {
    let run_config = RunConfig { debug: config, ..RunConfig::default() };
    Run::builder(workspace)
        .config(run_config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .debug_supervisor(DebugSupervisor::new())
        .build()
        .expect("build run")
}

fn call(run: &Run, arguments: Value) -> ToolResult {
    run.call(Caller::Main, "debug", arguments)
}

pub(crate) fn ok(run: &Run, arguments: Value) -> String {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "debug {arguments} failed:\n{text}");
    eprintln!("--- debug {arguments}\n{text}");
    text
}

fn err(run: &Run, arguments: Value) -> (String, String) {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(result.is_error, "debug {arguments} should fail but gave:\n{text}");
    eprintln!("--- debug {arguments} (error)\n{text}");
    let kind = result.structured_content.as_ref().and_then(|s| s["error"]["kind"].as_str()).unwrap_or("").to_owned();
    (kind, text)
}

/// The number after `marker` in `text` on the first line containing `line_filter`.
pub(crate) fn number_after(text: &str, line_filter: &str, marker: &str) -> u64 {
    let line = text.lines().find(|l| l.contains(line_filter)).unwrap_or_else(|| panic!("no line with {line_filter:?} in:\n{text}"));
    let rest = &line[line.find(marker).unwrap_or_else(|| panic!("no {marker:?} in {line:?}")) + marker.len()..];
    rest.trim_start().chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
}

fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rfind(')').map(|i| stat[i + 1..].trim_start().starts_with('Z')).unwrap_or(true),
    }
}

fn assert_all_gone(pids: &[u32], what: &str) {
    assert!(!pids.is_empty(), "{what}: no process ids were recorded");
    let ok = support::wait_until(Duration::from_secs(5), || pids.iter().all(|&pid| process_gone(pid)));
    let alive: Vec<u32> = pids.iter().copied().filter(|&pid| !process_gone(pid)).collect();
    assert!(ok, "{what}: processes still alive: {alive:?}");
}

/// One program, the same walk for every adapter: the expected lines and texts.
struct Scenario {
    name: &'static str,
    program: &'static str,
    source: &'static str,
    breakpoint_line: u64,
    caller_function: &'static str,
    callee_function: &'static str,
    step_in_line: u64,
    step_over_line: u64,
    step_out_line: u64,
    locals_scope: &'static str,
    local_variables: &'static [&'static str],
    evaluate: (&'static str, &'static str),
    /// debugpy's default `uncaught` exception filter stops on `sys.exit(4)` (SystemExit):
    /// where that stop is, before the exit.
    exception_stop_before_exit: Option<&'static str>,
    exit_code: i64,
    stdout: &'static str,
}

fn walk(run: &Run, scenario: &Scenario) {
    let supervisor = run.debug_supervisor().unwrap();
    let source = scenario.source;
    // Breakpoints before launch are stored, then sent at launch.
    let stored = ok(run, json!({"op": "breakpoints", "file": source, "lines": [scenario.breakpoint_line]}));
    assert!(stored.contains("sent when you launch"), "{stored}");

    let launched = ok(run, json!({"op": "launch", "program": scenario.program}));
    let at_breakpoint = format!("{source}:{}", scenario.breakpoint_line);
    assert!(launched.contains("stopped: breakpoint"), "{}: {launched}", scenario.name);
    assert!(launched.contains(&at_breakpoint), "{}: launch should stop at {at_breakpoint}: {launched}", scenario.name);
    assert!(launched.contains("result = add(") || launched.contains("result := add("), "source line quoted: {launched}");
    assert!(launched.contains(&format!("{source}:{} verified", scenario.breakpoint_line)), "{launched}");

    // A second launch is refused and names the running session.
    let (kind, refused) = err(run, json!({"op": "launch", "program": scenario.program}));
    assert_eq!(kind, "conflict");
    assert!(refused.contains("already running") && refused.contains(&format!("{} session", scenario.name)), "{refused}");

    let status = ok(run, json!({"op": "status"}));
    assert!(status.contains("state: stopped (breakpoint)"), "{status}");

    let stack = ok(run, json!({"op": "stack"}));
    let top = stack.lines().find(|l| l.starts_with("#0 ")).expect("frame #0");
    assert!(top.contains(&at_breakpoint) && top.contains(scenario.caller_function), "{stack}");
    let frame_id = number_after(&stack, "#0 ", "[frame_id");

    let scopes = ok(run, json!({"op": "scopes", "frame_id": frame_id}));
    let locals = number_after(&scopes, scenario.locals_scope, "(reference");
    let variables = ok(run, json!({"op": "variables", "reference": locals}));
    for expected in scenario.local_variables {
        assert!(variables.contains(expected), "{}: variables should contain {expected:?}:\n{variables}", scenario.name);
    }

    let (expression, value) = scenario.evaluate;
    let evaluated = ok(run, json!({"op": "evaluate", "expression": expression, "frame_id": frame_id}));
    assert!(evaluated.contains(&format!("= {value}")), "{evaluated}");
    let evaluated_top = ok(run, json!({"op": "evaluate", "expression": expression}));
    assert!(evaluated_top.contains(&format!("= {value}")), "{evaluated_top}");

    let stepped_in = ok(run, json!({"op": "step_in"}));
    assert!(stepped_in.contains("stopped: step"), "{stepped_in}");
    let expected = format!("{source}:{} in ", scenario.step_in_line);
    assert!(
        stepped_in.contains(&expected) && stepped_in.contains(scenario.callee_function),
        "step_in should land on {expected}: {stepped_in}"
    );

    // The locals reference belongs to the earlier stop: refused locally.
    let (kind, stale) = err(run, json!({"op": "variables", "reference": locals}));
    assert_eq!(kind, "conflict");
    assert!(stale.contains("stale"), "{stale}");
    let (_, stale_frame) = err(run, json!({"op": "scopes", "frame_id": frame_id}));
    assert!(stale_frame.contains("stale"), "{stale_frame}");

    let stepped_over = ok(run, json!({"op": "step_over"}));
    let expected = format!("{source}:{} in ", scenario.step_over_line);
    assert!(stepped_over.contains(&expected), "step_over should land on {expected}: {stepped_over}");

    let stepped_out = ok(run, json!({"op": "step_out"}));
    let expected = format!("{source}:{} in ", scenario.step_out_line);
    assert!(
        stepped_out.contains(&expected) && stepped_out.contains(scenario.caller_function),
        "step_out should land on {expected}: {stepped_out}"
    );

    let threads = ok(run, json!({"op": "threads"}));
    assert!(threads.contains("(stopped here)"), "{threads}");

    let pids = supervisor.process_ids();
    if let Some(location) = scenario.exception_stop_before_exit {
        let raised = ok(run, json!({"op": "continue"}));
        assert!(raised.contains("stopped: exception") && raised.contains(location), "{raised}");
    }
    let finished = ok(run, json!({"op": "continue"}));
    assert!(finished.contains(&format!("exited with code {}", scenario.exit_code)), "{finished}");
    assert!(finished.contains("session ended"), "{finished}");
    assert!(!supervisor.has_live_session());
    assert_all_gone(&pids, scenario.name);

    let output = ok(run, json!({"op": "output"}));
    assert!(output.contains(scenario.stdout), "output should contain {:?}: {output}", scenario.stdout);
}

#[test]
fn debugpy_full_walk() {
    let _serial = serial();
    let Some(python) = debugpy_python("debugpy_full_walk") else { return };
    let _ = python;
    let workspace = support::copy_fixture("debug/python");
    let run = build_run(workspace.path(), DebugConfig::default());
    walk(
        &run,
        &Scenario {
            name: "debugpy",
            program: "app.py",
            source: "app.py",
            breakpoint_line: 13,
            caller_function: "main",
            callee_function: "add",
            step_in_line: 6,
            step_over_line: 7,
            step_out_line: 13,
            locals_scope: "Locals",
            local_variables: &["numbers: list = [1, 2, 3]", "label: str = 'sum'"],
            evaluate: ("numbers[2] * 10", "30"),
            exception_stop_before_exit: Some("app.py:21"),
            exit_code: 4,
            stdout: "sum=4",
        },
    );
    let output = ok(&run, json!({"op": "output"}));
    assert!(output.contains("[stderr]\nto stderr"), "stderr captured: {output}");
}

#[test]
fn lldb_full_walk_on_c_program() {
    let _serial = serial();
    let Some(_lldb) = lldb_dap("lldb_full_walk_on_c_program") else { return };
    let Some(gcc) = support::require_binary("lldb_full_walk_on_c_program", "gcc") else { return };
    let workspace = support::copy_fixture("debug/c");
    let status = std::process::Command::new(gcc)
        .args(["-g", "-O0", "-o", "prog", "prog.c"])
        .current_dir(workspace.path())
        .status()
        .expect("run gcc");
    assert!(status.success());
    let run = build_run(workspace.path(), DebugConfig::default());
    walk(
        &run,
        &Scenario {
            name: "lldb",
            program: "prog",
            source: "prog.c",
            breakpoint_line: 12,
            caller_function: "main",
            callee_function: "add",
            step_in_line: 5,
            step_over_line: 6,
            step_out_line: 12,
            locals_scope: "Locals",
            local_variables: &["label: const char * = ", "\"sum\"", "numbers: int[3]", "(reference"],
            evaluate: ("numbers[2] * 10", "30"),
            exception_stop_before_exit: None,
            exit_code: 4,
            stdout: "sum=4",
        },
    );
}

#[test]
fn delve_full_walk_on_go_module() {
    let _serial = serial();
    let Some(_dlv) = support::require_binary("delve_full_walk_on_go_module", "dlv") else { return };
    let Some(_go) = support::require_binary("delve_full_walk_on_go_module", "go") else { return };
    let workspace = support::copy_fixture("debug/go");
    let run = build_run(workspace.path(), DebugConfig::default());
    walk(
        &run,
        &Scenario {
            name: "delve",
            program: "main.go",
            source: "main.go",
            breakpoint_line: 17,
            caller_function: "main.main",
            callee_function: "main.add",
            step_in_line: 9,
            step_over_line: 10,
            step_out_line: 17,
            locals_scope: "Locals",
            local_variables: &["numbers: []int = []int len: 3, cap: 3, [1,2,3]", "label: string = \"sum\""],
            evaluate: ("numbers[2] * 10", "30"),
            exception_stop_before_exit: None,
            exit_code: 4,
            stdout: "sum=4",
        },
    );
    assert!(!workspace.path().join("__debug_bin").exists(), "delve's build output must not land in the module");
}

pub(crate) fn debugpy_python(test: &str) -> Option<PathBuf> {
    let python = support::require_binary(test, "python3")?;
    let ok = std::process::Command::new(&python).args(["-c", "import debugpy"]).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        support::skip_or_fail(test, "python3 cannot import debugpy (pip install debugpy, see .ci/install)");
        return None;
    }
    Some(python)
}

pub(crate) fn lldb_dap(test: &str) -> Option<()> {
    if support::lldb_dap_found() {
        Some(())
    } else {
        support::skip_or_fail(test, "no lldb-dap / lldb-dap-NN (apt lldb-19, see .ci/install)");
        None
    }
}

#[test]
fn debug_tool_is_exec_tier_not_parallel_safe_and_needs_a_supervisor() {
    let _serial = serial();
    let workspace = support::workspace_with(&[("a.py", "print(1)\n")]);
    let run = build_run(workspace.path(), DebugConfig::default());
    let descriptor = run.registry().descriptor("debug").expect("debug registered when a supervisor is wired");
    assert_eq!(descriptor.tier, runbound::Tier::Exec);
    assert!(!descriptor.parallel_safe);
    for caller in [Caller::Plan, Caller::Readonly] {
        assert!(!run.tools(caller).iter().any(|d| d.name == "debug"), "{caller:?} must not see debug");
        let refused = run.call(caller, "debug", json!({"op": "status"}));
        assert!(refused.is_error);
    }
    let without = Run::builder(workspace.path()).build().unwrap();
    assert!(without.registry().descriptor("debug").is_none(), "no supervisor → no debug tool (R-REG-1)");

    // Ops that need a session say so; breakpoints may be set before launch.
    let (kind, text) = err(&run, json!({"op": "stack"}));
    assert_eq!(kind, "unavailable");
    assert!(text.contains("none is running") && text.contains("launch"), "{text}");
    let (kind, _) = err(&run, json!({"op": "breakpoints", "file": "missing.py", "lines": [1]}));
    assert_eq!(kind, "not_found");
    let (kind, _) = err(&run, json!({"op": "breakpoints", "file": "../outside.py", "lines": [1]}));
    assert_eq!(kind, "outside_workspace");
    let stored = ok(&run, json!({"op": "breakpoints", "file": "a.py", "lines": [1, 1]}));
    assert!(stored.contains("1 breakpoint(s) stored"), "{stored}");
    let status = ok(&run, json!({"op": "status"}));
    assert!(status.contains("no debug session is running") && status.contains("a.py: lines 1"), "{status}");
    ok(&run, json!({"op": "breakpoints", "file": "a.py", "lines": []}));
    assert!(ok(&run, json!({"op": "status"})).contains("no breakpoints set"));
    // No marker: the launch is refused naming the missing half, nothing is started.
    let (kind, text) = err(&run, json!({"op": "launch", "program": "a.py"}));
    assert_eq!(kind, "unavailable");
    assert!(text.contains("no root marker") && text.contains("pyproject.toml"), "{text}");
}

/// R-REG-2: `debug` stays registered when no adapter can serve; `adapters` says why, per adapter.
#[test]
fn adapters_op_reports_each_adapter_and_the_missing_half() {
    let _serial = serial();
    let workspace = support::copy_fixture("debug");
    let run = build_run(workspace.path(), DebugConfig::default());
    let text = ok(&run, json!({"op": "adapters"}));
    let line = |name: &str| {
        text.lines().find(|l| l.starts_with(&format!("- {name}:"))).unwrap_or_else(|| panic!("no {name} line: {text}")).to_owned()
    };
    let dart = line("dart");
    assert!(dart.contains("marker dart/pubspec.yaml"), "{dart}");
    if which::which("dart").is_err() {
        assert!(dart.contains("unavailable") && dart.contains("binary dart not found"), "{dart}");
    }
    let debugpy = line("debugpy");
    assert!(debugpy.contains("marker python/pyproject.toml"), "{debugpy}");
    if debugpy_python("adapters_op_reports_each_adapter_and_the_missing_half").is_some() {
        assert!(debugpy.contains("available —") && debugpy.contains("debugpy.adapter (debugpy "), "{debugpy}");
    }
    let lldb = line("lldb");
    assert!(lldb.contains("marker c/CMakeLists.txt"), "{lldb}");
    if lldb_dap("adapters_op_reports_each_adapter_and_the_missing_half").is_some() {
        assert!(lldb.contains("available —") && lldb.contains("lldb-dap"), "{lldb}");
    }
    let delve = line("delve");
    assert!(delve.contains("marker go/go.mod"), "{delve}");

    // An empty workspace: every adapter unavailable for want of a marker.
    let empty = support::workspace_with(&[("README.md", "empty\n")]);
    let empty_run = Run::builder(empty.path()).build().unwrap();
    let (report, rows) = runbound::status::debug_adapters_report(&empty_run);
    for name in ["debugpy", "lldb", "delve", "dart"] {
        let line = report.lines().find(|l| l.starts_with(&format!("- {name}:"))).unwrap();
        assert!(line.contains("unavailable") && line.contains("no root marker"), "{line}");
    }
    assert_eq!(rows.as_array().unwrap().len(), 4);
    assert!(rows.as_array().unwrap().iter().all(|row| row["available"] == false));
}

#[test]
fn dart_launch_path_through_a_fake_dart_on_the_search_path() {
    let _serial = serial();
    let Some(_python) = support::require_binary("dart_launch_path_through_a_fake_dart_on_the_search_path", "python3") else { return };
    let workspace = support::copy_fixture("debug/dart");
    let bin = support::copy_fixture("debug/fake-dart");
    let record = workspace.path().join("fake-dart-record.json");
    let config = DebugConfig { extra_binary_dirs: vec![bin.path().to_path_buf()], ..DebugConfig::default() };
    let run = build_run(workspace.path(), config);
    let adapters = ok(&run, json!({"op": "adapters"}));
    assert!(adapters.lines().any(|l| l.starts_with("- dart: available") && l.contains("debug_adapter")), "{adapters}");
    ok(&run, json!({"op": "breakpoints", "file": "bin/main.dart", "lines": [3]}));
    let launched = ok(&run, json!({"op": "launch", "program": "bin/main.dart", "args": ["--verbose"]}));
    assert!(launched.contains("under dart"), "{launched}");
    assert!(launched.contains("bin/main.dart:3 verified"), "{launched}");
    assert!(launched.contains("exited with code 0"), "{launched}");
    assert!(launched.contains("session ended"), "{launched}");
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&record).expect("fake dart wrote its record")).unwrap();
    assert_eq!(recorded["argv"], json!(["debug_adapter"]));
    assert_eq!(recorded["configured_before_launch_response"], true, "configurationDone must not wait for the launch response");
    let root = std::fs::canonicalize(workspace.path()).unwrap();
    assert_eq!(recorded["launch"]["program"], root.join("bin/main.dart").to_string_lossy().as_ref());
    assert_eq!(recorded["launch"]["args"], json!(["--verbose"]));
    assert_eq!(recorded["launch"]["cwd"], root.to_string_lossy().as_ref());
    assert_eq!(recorded["initialize"]["supportsRunInTerminalRequest"], false);
    assert_eq!(recorded["initialize"]["linesStartAt1"], true);
    let output = ok(&run, json!({"op": "output"}));
    assert!(output.contains("sum=4"), "{output}");
}

#[test]
fn debugpy_runs_the_program_under_the_project_venv_python() {
    let _serial = serial();
    let Some(python) = debugpy_python("debugpy_runs_the_program_under_the_project_venv_python") else { return };
    let workspace = support::workspace_with(&[
        ("requirements.txt", ""),
        ("which.py", "import sys\nprint('executable=' + sys.executable)\nprint('prefix=' + sys.prefix)\n"),
    ]);
    // A real venv without debugpy: the adapter runs under a python that has it, the program
    // under the venv's interpreter (R-DBG-4).
    let status = std::process::Command::new(&python)
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(workspace.path())
        .status()
        .expect("create venv");
    assert!(status.success());
    let root = std::fs::canonicalize(workspace.path()).unwrap();
    let run = build_run(workspace.path(), DebugConfig::default());
    let adapters = ok(&run, json!({"op": "adapters"}));
    assert!(adapters.contains(".venv/bin/python (project venv)"), "{adapters}");
    let launched = ok(&run, json!({"op": "launch", "program": "which.py"}));
    assert!(launched.contains("program python .venv/bin/python"), "{launched}");
    let output = ok(&run, json!({"op": "output"}));
    let prefix = output.lines().find_map(|l| l.strip_prefix("prefix=")).unwrap_or_else(|| panic!("no prefix line: {output}"));
    assert_eq!(Path::new(prefix), root.join(".venv"), "the program must run inside the project venv: {output}");
}

#[test]
fn debugpy_attach_to_a_listening_program() {
    let _serial = serial();
    let Some(python) = debugpy_python("debugpy_attach_to_a_listening_program") else { return };
    let workspace = support::copy_fixture("debug/python");
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let stop_file = workspace.path().join("stop");
    let mut program = support::TestProcess::spawn(
        &python,
        &["listen.py".into(), port.to_string(), stop_file.to_string_lossy().into_owned()],
        &std::fs::canonicalize(workspace.path()).unwrap(),
        &[],
        true,
    );
    let mut stdout = std::io::BufReader::new(program.take_stdout().expect("stdout piped"));
    let mut first_line = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first_line).expect("read listen.py stdout");
    assert_eq!(first_line.trim(), "listening", "{}", program.describe_state());
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "listen.py", "lines": [14]}));
    let attached = ok(&run, json!({"op": "attach", "port": port}));
    assert!(attached.contains(&format!("attached to 127.0.0.1:{port}")), "{attached}");
    let stop = if attached.contains("stopped: breakpoint") { attached } else { ok(&run, json!({"op": "continue"})) };
    assert!(stop.contains("listen.py:14"), "{stop}");
    let evaluated = ok(&run, json!({"op": "evaluate", "expression": "counter >= 0"}));
    assert!(evaluated.contains("= True"), "{evaluated}");
    ok(&run, json!({"op": "breakpoints", "file": "listen.py", "lines": []}));
    let terminated = ok(&run, json!({"op": "terminate"}));
    assert!(terminated.contains("attached program keeps running"), "{terminated}");
    // The attached program was not ours: it runs on and finishes when told to.
    std::fs::write(&stop_file, "").unwrap();
    assert!(program.wait_timeout(Duration::from_secs(10)).is_some(), "listen.py should exit on its own: {}", program.describe_state());
}

#[test]
fn session_ttl_expiry_terminates_and_the_next_call_says_so() {
    let _serial = serial();
    let Some(_python) = debugpy_python("session_ttl_expiry_terminates_and_the_next_call_says_so") else { return };
    let workspace = support::copy_fixture("debug/python");
    let config = DebugConfig { session_ttl: Duration::from_secs(12), ..DebugConfig::default() };
    let run = build_run(workspace.path(), config);
    ok(&run, json!({"op": "breakpoints", "file": "app.py", "lines": [13]}));
    let launched = ok(&run, json!({"op": "launch", "program": "app.py"}));
    assert!(launched.contains("TTL 12 s"), "{launched}");
    let pids = run.debug_supervisor().unwrap().process_ids();
    assert!(pids.iter().all(|&pid| !process_gone(pid)), "alive before the TTL");
    let expired = support::wait_until(Duration::from_secs(20), || pids.iter().all(|&pid| process_gone(pid)));
    assert!(expired, "the TTL watchdog must kill adapter and debuggee without any call");
    let (kind, text) = err(&run, json!({"op": "stack"}));
    assert_eq!(kind, "unavailable");
    assert!(text.contains("TTL of 12 s"), "{text}");
    // A fresh launch works after expiry.
    let again = ok(&run, json!({"op": "launch", "program": "app.py"}));
    assert!(again.contains("app.py:13"), "{again}");
    ok(&run, json!({"op": "terminate"}));
}

#[test]
fn adapter_killed_mid_session_gives_a_clear_error_and_a_new_launch_works() {
    let _serial = serial();
    let Some(_python) = debugpy_python("adapter_killed_mid_session_gives_a_clear_error_and_a_new_launch_works") else { return };
    let workspace = support::copy_fixture("debug/python");
    let run = build_run(workspace.path(), DebugConfig::default());
    let supervisor = run.debug_supervisor().unwrap();
    ok(&run, json!({"op": "breakpoints", "file": "app.py", "lines": [13]}));
    ok(&run, json!({"op": "launch", "program": "app.py"}));
    let pids = supervisor.process_ids();
    let adapter = supervisor.adapter_pid().expect("adapter pid");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(adapter as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    assert!(support::wait_until(Duration::from_secs(5), || process_gone(adapter)));
    let (kind, text) = err(&run, json!({"op": "stack"}));
    assert_eq!(kind, "unavailable");
    assert!(text.contains("went away") && text.contains("launch"), "{text}");
    assert_all_gone(&pids, "after the adapter was killed");
    let again = ok(&run, json!({"op": "launch", "program": "app.py"}));
    assert!(again.contains("stopped: breakpoint") && again.contains("app.py:13"), "{again}");
    let pids = supervisor.process_ids();
    let terminated = ok(&run, json!({"op": "terminate"}));
    assert!(terminated.contains("disconnected with terminateDebuggee"), "{terminated}");
    assert_all_gone(&pids, "after terminate");
    assert!(!supervisor.has_live_session());
}

#[test]
fn run_drop_terminates_the_session() {
    if !support::alone("debug::run_drop_terminates_the_session") {
        return;
    }
    let _serial = serial();
    let Some(_python) = debugpy_python("run_drop_terminates_the_session") else { return };
    let workspace = support::copy_fixture("debug/python");
    let threads_before = support::thread_count();
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "app.py", "lines": [6]}));
    let launched = ok(&run, json!({"op": "launch", "program": "app.py"}));
    assert!(launched.contains("app.py:6 in add"), "{launched}");
    let pids = run.debug_supervisor().unwrap().process_ids();
    assert!(pids.len() >= 2, "adapter and debuggee recorded: {pids:?}");
    drop(run);
    assert_all_gone(&pids, "after run drop");
    assert!(support::wait_until(Duration::from_secs(3), || support::thread_count() <= threads_before), "threads joined");
}

#[test]
fn variables_are_paged_at_fifty_and_values_cut_at_400_characters() {
    let _serial = serial();
    let Some(_python) = debugpy_python("variables_are_paged_at_fifty_and_values_cut_at_400_characters") else { return };
    let workspace = support::workspace_with(&[
        ("setup.py", ""),
        ("big.py", "items = list(range(120))\ntext = 'x' * 1000\nprint(len(items), len(text))\n"),
    ]);
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "big.py", "lines": [3]}));
    ok(&run, json!({"op": "launch", "program": "big.py"}));
    let stack = ok(&run, json!({"op": "stack"}));
    let frame = number_after(&stack, "#0 ", "[frame_id");
    let scopes = ok(&run, json!({"op": "scopes", "frame_id": frame}));
    let scope_line = if scopes.contains("Locals") { "Locals" } else { "Globals" };
    let globals = number_after(&scopes, scope_line, "(reference");
    let variables = ok(&run, json!({"op": "variables", "reference": globals}));
    let text_line = variables.lines().find(|l| l.trim_start().starts_with("text")).expect("text variable");
    assert!(text_line.contains("… [cut: showing 400 of 1002 characters]"), "{text_line}");
    let items = number_after(&variables, "items", "(reference");
    let children = |page: &str| page.lines().filter(|l| l.starts_with("  ")).count();
    let first_page = ok(&run, json!({"op": "variables", "reference": items}));
    assert_eq!(children(&first_page), 50, "{first_page}");
    assert!(first_page.contains("0: int = 0") && !first_page.contains("60: int = 60"), "{first_page}");
    assert!(first_page.contains("start=50"), "{first_page}");
    let second_page = ok(&run, json!({"op": "variables", "reference": items, "start": 50}));
    assert_eq!(children(&second_page), 50, "{second_page}");
    assert!(second_page.contains("60: int = 60") && !second_page.contains(" 0: int = 0"), "{second_page}");
    ok(&run, json!({"op": "terminate"}));
}

#[test]
fn invalid_arguments_are_named() {
    let _serial = serial();
    let workspace = support::workspace_with(&[("a.py", "print(1)\n")]);
    let run = build_run(workspace.path(), DebugConfig::default());
    let result = call(&run, json!({"op": "launch"}));
    assert!(result.is_error);
    assert!(result.joined_text().contains("needs `program`"), "{}", result.joined_text());
    let result = call(&run, json!({"op": "fly"}));
    assert!(result.is_error, "unknown op rejected by the schema");
    assert_eq!(result.structured_content.unwrap()["error"]["kind"], ErrorKind::InvalidArguments.as_str());
}

#[test]
fn launch_without_breakpoints_reports_running_and_pause_stops_it() {
    let _serial = serial();
    let Some(_python) = debugpy_python("launch_without_breakpoints_reports_running_and_pause_stops_it") else { return };
    let workspace = support::workspace_with(&[
        ("pyproject.toml", ""),
        ("spin.py", "import time\ni = 0\nprint('spinning', flush=True)\nwhile True:\n    i += 1\n    time.sleep(0.001)\n"),
    ]);
    let config = DebugConfig { resume_timeout: Duration::from_secs(2), ..DebugConfig::default() };
    let run = build_run(workspace.path(), config);
    let launched = ok(&run, json!({"op": "launch", "program": "spin.py"}));
    assert!(launched.contains("running: no stop within 2000 ms") && launched.contains("pause"), "{launched}");
    // On a loaded machine the interpreter may still be starting: pause once the loop runs.
    let mut seen = launched.contains("spinning");
    let started = std::time::Instant::now();
    while !seen && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(200));
        seen = ok(&run, json!({"op": "output"})).contains("spinning");
    }
    assert!(seen, "spin.py never started");
    let (kind, text) = err(&run, json!({"op": "stack"}));
    assert_eq!(kind, "conflict");
    assert!(text.contains("running, not stopped"), "{text}");
    let paused = ok(&run, json!({"op": "pause"}));
    assert!(paused.contains("stopped: pause") && paused.contains("spin.py:"), "{paused}");
    let again = ok(&run, json!({"op": "pause"}));
    assert!(again.contains("already stopped"), "{again}");
    let evaluated = ok(&run, json!({"op": "evaluate", "expression": "i > 0"}));
    assert!(evaluated.contains("= True"), "{evaluated}");
    let still_running = ok(&run, json!({"op": "continue"}));
    assert!(still_running.contains("running: no stop within 2000 ms"), "{still_running}");
    let pids = run.debug_supervisor().unwrap().process_ids();
    ok(&run, json!({"op": "terminate"}));
    assert_all_gone(&pids, "after terminate");
}

#[test]
fn an_evaluate_that_outlives_its_timeout_is_tracked_until_it_answers() {
    let _serial = serial();
    let Some(_python) = debugpy_python("an_evaluate_that_outlives_its_timeout_is_tracked_until_it_answers") else { return };
    let workspace = support::workspace_with(&[("pyproject.toml", ""), ("slow.py", "value = 21\nprint(value)\n")]);
    let config = DebugConfig { request_timeout: Duration::from_secs(3), ..DebugConfig::default() };
    let run = build_run(workspace.path(), config);
    ok(&run, json!({"op": "breakpoints", "file": "slow.py", "lines": [2]}));
    let launched = ok(&run, json!({"op": "launch", "program": "slow.py"}));
    assert!(launched.contains("stopped: breakpoint") && launched.contains("slow.py:2"), "{launched}");

    // The expression runs for 6 s in the debuggee; the request budget is 3 s.
    let slow = "__import__('time').sleep(6) or value * 2";
    let (kind, text) = err(&run, json!({"op": "evaluate", "expression": slow}));
    assert_eq!(kind, "timeout", "{text}");
    assert!(text.contains("still running that expression") && text.contains("status"), "{text}");
    let status = ok(&run, json!({"op": "status"}));
    assert!(status.contains("has not answered"), "status must not claim a plain stop while the evaluate runs:\n{status}");
    // Nothing else is queued behind it: a second evaluate and a continue are refused.
    for arguments in [json!({"op": "evaluate", "expression": "value"}), json!({"op": "continue"}), json!({"op": "step_over"})] {
        let (kind, text) = err(&run, arguments);
        assert_eq!(kind, "conflict", "{text}");
        assert!(text.contains(&format!("earlier evaluate of `{slow}`")), "{text}");
    }

    // Once it has answered, the late value is reported once, even by a call that fails.
    std::thread::sleep(Duration::from_secs(8));
    let (kind, text) = err(&run, json!({"op": "evaluate", "expression": "value", "frame_id": 987_654}));
    assert_eq!(kind, "conflict", "{text}");
    assert!(text.contains("frame_id 987654 was never produced"), "{text}");
    assert!(text.contains("has answered since") && text.contains("= 42"), "the late value rides on the failing call:\n{text}");
    let status = ok(&run, json!({"op": "status"}));
    assert!(!status.contains("answered") && status.contains("state: stopped"), "reported once, then forgotten:\n{status}");
    let evaluated = ok(&run, json!({"op": "evaluate", "expression": "value + 1"}));
    assert!(evaluated.contains("= 22"), "{evaluated}");
    ok(&run, json!({"op": "terminate"}));
}

/// An exception stop names the exception (DAP `exceptionInfo`), not only its message:
/// `sys.exit(4)` is a SystemExit, not a bare "(4)".
#[test]
fn exception_stops_name_the_exception() {
    let _serial = serial();
    let Some(_python) = debugpy_python("exception_stops_name_the_exception") else { return };
    let workspace = support::workspace_with(&[
        ("pyproject.toml", ""),
        ("exits.py", "import sys\nx = 1\nsys.exit(4)\n"),
        ("raises.py", "def f(v):\n    raise ValueError('bad value %d' % v)\nf(3)\n"),
    ]);
    let run = build_run(workspace.path(), DebugConfig::default());
    for (program, expected) in
        [("exits.py", "stopped: exception SystemExit (4)"), ("raises.py", "stopped: exception ValueError (bad value 3)")]
    {
        let launched = ok(&run, json!({"op": "launch", "program": program}));
        assert!(launched.contains(expected), "{launched}");
        ok(&run, json!({"op": "terminate"}));
    }
}

// ------------------------------------------------------------------------------------------
// Issue 14: tests by name, the adapter from what the program is, readable values, breakpoints
// beyond lines, running until something happens.

fn pytest_python(test: &str) -> Option<PathBuf> {
    let python = debugpy_python(test)?;
    let ok = std::process::Command::new(&python).args(["-c", "import pytest"]).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        support::skip_or_fail(test, "python3 cannot import pytest (pip install pytest, see .ci/install)");
        return None;
    }
    Some(python)
}

/// The frame_id of the first `stack` line that contains `needle`.
fn frame_id_of(stack: &str, needle: &str) -> u64 {
    number_after(stack, needle, "[frame_id")
}

/// The variables of the first scope named `scope` of frame `frame_id`.
fn locals_of(run: &Run, frame_id: u64, scope: &str) -> String {
    let scopes = ok(run, json!({"op": "scopes", "frame_id": frame_id}));
    let reference = number_after(&scopes, scope, "(reference");
    ok(run, json!({"op": "variables", "reference": reference}))
}

#[test]
fn pytest_test_by_name_stops_in_the_function_under_test_with_the_tests_locals() {
    let _serial = serial();
    let Some(_python) = pytest_python("pytest_test_by_name_stops_in_the_function_under_test_with_the_tests_locals") else { return };
    let workspace = support::copy_fixture("debug/tests_py");
    let run = build_run(workspace.path(), DebugConfig::default());
    // A text anchor: the breakpoint goes on the line holding it.
    let stored = ok(&run, json!({"op": "breakpoints", "file": "calc.py", "text": "result += value"}));
    assert!(stored.contains("lines 13 (text `result += value`)"), "{stored}");
    let launched = ok(&run, json!({"op": "launch", "test": "tests/test_calc.py::test_total_of_three"}));
    assert!(launched.contains("under debugpy"), "{launched}");
    assert!(launched.contains("why debugpy: `tests/test_calc.py::test_total_of_three` is a pytest node id"), "{launched}");
    assert!(launched.contains("stopped: breakpoint"), "{launched}");
    assert!(launched.contains("#0 calc.py:13 in total"), "stops inside the function under test: {launched}");
    assert!(launched.contains("#1 tests/test_calc.py:8 in test_total_of_three"), "top frames include the test: {launched}");

    let stack = ok(&run, json!({"op": "stack"}));
    let test_frame = frame_id_of(&stack, "in test_total_of_three");
    let locals = locals_of(&run, test_frame, "Locals");
    assert!(locals.contains("numbers: list = [1, 2, 3]"), "{locals}");
    assert!(locals.contains("expected: int = 6"), "{locals}");
    // A small object whose value is `<calc.Point object at 0x…>` shows its fields inline.
    let origin = locals.lines().find(|line| line.trim_start().starts_with("origin")).expect("origin");
    assert!(origin.contains("x: 1") && origin.contains("y: 2"), "{origin}");
    // debugpy (justMyCode) hides pytest's own frames: the stack is the test and the code under it.
    let frames: Vec<&str> = stack.lines().filter(|line| line.starts_with('#')).collect();
    assert_eq!(frames.len(), 2, "{stack}");

    // Exactly that test runs: pytest reports one test.
    let finished = ok(&run, json!({"op": "continue"}));
    let finished = if finished.contains("stopped: breakpoint") {
        let mut text = finished;
        while text.contains("stopped: breakpoint") {
            text = ok(&run, json!({"op": "continue"}));
        }
        text
    } else {
        finished
    };
    assert!(finished.contains("exited with code 0"), "{finished}");
    let output = ok(&run, json!({"op": "output"}));
    assert!(output.contains("1 passed"), "only the named test ran: {output}");
}

fn cargo_available(test: &str) -> bool {
    support::require_binary(test, "cargo").is_some() && support::require_binary(test, "rustc").is_some()
}

#[test]
fn rust_test_by_name_shows_enums_vectors_and_folds_the_harness() {
    let _serial = serial();
    let test = "rust_test_by_name_shows_enums_vectors_and_folds_the_harness";
    let Some(_lldb) = lldb_dap(test) else { return };
    if !cargo_available(test) {
        return;
    }
    let workspace = support::copy_fixture("debug/tests_rust");
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "src/lib.rs", "lines": [{"text": "Shape::Rect(w, h) =>"}]}));
    let launched = ok(&run, json!({"op": "launch", "test": "totals_shapes"}));
    assert!(launched.contains("under lldb"), "{launched}");
    assert!(launched.contains("why lldb: `tests::totals_shapes` is a Rust test of shapes"), "{launched}");
    assert!(launched.contains("built: `cargo test --no-run --message-format=json`"), "{launched}");
    assert!(launched.contains("Rust formatters: loaded from"), "{launched}");
    assert!(launched.contains("stopped: breakpoint"), "{launched}");
    assert!(launched.contains("src/lib.rs:20 in shapes::area"), "demangled, no hash: {launched}");
    assert!(!launched.contains("::h") || !launched.contains("area::h"), "{launched}");

    let stack = ok(&run, json!({"op": "stack"}));
    assert!(stack.contains("in shapes::total") && stack.contains("in shapes::tests::totals_shapes"), "{stack}");
    let folded = stack.lines().find(|line| line.starts_with("… #")).unwrap_or_else(|| panic!("harness frames folded: {stack}"));
    assert!(folded.contains("test") && folded.contains("std"), "{folded}");
    let all = ok(&run, json!({"op": "stack", "all_frames": true}));
    let count = |text: &str| text.lines().filter(|line| line.starts_with('#')).count();
    assert!(count(&all) > count(&stack) + 5 && !all.contains("… #"), "all_frames lists every frame: {all}");
    let test_frame = frame_id_of(&stack, "in shapes::tests::totals_shapes ");
    let locals = locals_of(&run, test_frame, "Locals");
    let line = |name: &str| {
        locals.lines().find(|l| l.trim_start().starts_with(&format!("{name}:"))).unwrap_or_else(|| panic!("{name} in {locals}")).to_owned()
    };
    let shapes = line("shapes");
    assert!(
        shapes.contains("Circle{radius:1}") && shapes.contains("Rect(2, 3)") && shapes.contains("Empty") && shapes.contains("(len 3)"),
        "{shapes}"
    );
    assert!(line("name").contains("\"shapes\""), "{locals}");
    assert!(line("maybe").contains("Some(7)"), "{locals}");
    let origin = line("origin");
    assert!(origin.contains("x: 1") && origin.contains("y: 2"), "a struct shows its fields inline: {origin}");
    // lldb's C names and renderings of Rust's primitives are written as Rust's (trial 17: a u8
    // read `unsigned char = '\x05'`, an i8 of -3 `char = '\xfd'`).
    assert!(line("byte").contains("byte: u8 = 200"), "{locals}");
    assert!(line("offset").contains("offset: i8 = -3"), "{locals}");
    assert!(line("letter").contains("letter: char = 'z'"), "{locals}");
    assert!(line("bytes").contains("bytes: [u8; 3] = [1,2,200]"), "{locals}");
    assert!(line("size").contains("size: u64/usize = 13"), "{locals}");
    let shape = ok(&run, json!({"op": "evaluate", "expression": "*shape"}));
    assert!(shape.contains("Rect(2, 3)"), "{shape}");

    ok(&run, json!({"op": "breakpoints", "file": "src/lib.rs", "lines": []}));
    let finished = ok(&run, json!({"op": "continue"}));
    assert!(finished.contains("exited with code 0"), "{finished}");
    let output = ok(&run, json!({"op": "output"}));
    assert!(output.contains("1 passed"), "exactly that test ran: {output}");

    // The bin target's source as the program: built with cargo, run under lldb.
    ok(&run, json!({"op": "breakpoints", "file": "src/lib.rs", "lines": [{"text": "Shape::Rect(w, h) =>"}]}));
    let launched = ok(&run, json!({"op": "launch", "program": "src/main.rs"}));
    assert!(launched.contains("why lldb: src/main.rs is the bin target shapes of shapes (built with cargo)"), "{launched}");
    assert!(launched.contains("built: `cargo build --bin shapes -p shapes --message-format=json`"), "{launched}");
    assert!(launched.contains("src/lib.rs:20 in shapes::area") && launched.contains("in shapes::main"), "{launched}");
    ok(&run, json!({"op": "terminate"}));
}

#[test]
fn go_test_by_name_stops_in_the_function_under_test_with_the_tests_locals() {
    let _serial = serial();
    let test = "go_test_by_name_stops_in_the_function_under_test_with_the_tests_locals";
    let Some(_dlv) = support::require_binary(test, "dlv") else { return };
    let Some(_go) = support::require_binary(test, "go") else { return };
    let workspace = support::copy_fixture("debug/tests_go");
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "calc.go", "text": "result += value"}));
    let launched = ok(&run, json!({"op": "launch", "test": "TestTotal"}));
    assert!(launched.contains("under delve"), "{launched}");
    assert!(launched.contains("why delve: `TestTotal` is a Go test of the package in . (delve mode test)"), "{launched}");
    assert!(launched.contains("#0 calc.go:7 in example.com/calc.Total"), "{launched}");
    assert!(launched.contains("calc_test.go:8 in example.com/calc.TestTotal"), "{launched}");
    let stack = ok(&run, json!({"op": "stack"}));
    let test_frame = frame_id_of(&stack, "in example.com/calc.TestTotal");
    let locals = locals_of(&run, test_frame, "Locals");
    assert!(locals.contains("numbers: []int = []int len: 3, cap: 3, [1,2,3]"), "{locals}");
    assert!(locals.contains("expected: int = 6"), "{locals}");
    ok(&run, json!({"op": "breakpoints", "file": "calc.go", "lines": []}));
    let finished = ok(&run, json!({"op": "continue"}));
    assert!(finished.contains("exited with code 0") || finished.contains("program terminated"), "{finished}");
    let output = ok(&run, json!({"op": "output"}));
    assert!(output.contains("--- PASS: TestTotal") && !output.contains("TestMean"), "exactly that test ran: {output}");
}

#[test]
fn a_go_file_of_a_two_file_package_builds_the_package_and_a_broken_build_shows_the_compiler() {
    let _serial = serial();
    let test = "a_go_file_of_a_two_file_package_builds_the_package_and_a_broken_build_shows_the_compiler";
    let Some(_dlv) = support::require_binary(test, "dlv") else { return };
    let Some(_go) = support::require_binary(test, "go") else { return };
    let workspace = support::copy_fixture("debug/go_two_files");
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "helper.go", "text": "return x * factor"}));
    // main.go alone would not build (helper is defined in helper.go): the package is built.
    let launched = ok(&run, json!({"op": "launch", "program": "main.go"}));
    assert!(launched.contains("why delve: a Go file; it is one of 2 files of the Go package in ., so the package is built"), "{launched}");
    assert!(launched.contains("#0 helper.go:5 in main.helper"), "{launched}");
    ok(&run, json!({"op": "terminate"}));
    // The module root, a `package main` directory.
    let launched = ok(&run, json!({"op": "launch", "program": "."}));
    assert!(launched.contains("why delve: a Go package directory (2 .go files)"), "{launched}");
    assert!(launched.contains("#0 helper.go:5 in main.helper"), "{launched}");
    ok(&run, json!({"op": "terminate"}));

    // A real compile error: the build's own message (file:line) and the command, not "check
    // the debug console".
    std::fs::write(workspace.path().join("helper.go"), "package main\n\nfunc helper(x int) int {\n\treturn x * undefinedFactor\n}\n")
        .unwrap();
    let (kind, text) = err(&run, json!({"op": "launch", "program": "."}));
    assert_eq!(kind, "failed", "{text}");
    assert!(text.contains("helper.go:4:") && text.contains("undefined: undefinedFactor"), "{text}");
    assert!(text.contains("`go build") && text.contains("-gcflags"), "the command: {text}");
    assert!(!text.contains("Check the debug console"), "{text}");
}

#[test]
fn the_adapter_is_chosen_from_what_the_program_is() {
    let _serial = serial();
    let test = "the_adapter_is_chosen_from_what_the_program_is";
    let Some(python) = debugpy_python(test) else { return };
    // A Python script without extension (like .venv/bin/pytest) in a Python project.
    let workspace = support::workspace_with(&[
        ("pyproject.toml", ""),
        ("tool", &format!("#!{}\nimport sys\nprint('tool ran', sys.argv[1:])\n", python.display())),
        ("pkg/__init__.py", ""),
        ("pkg/cli.py", "import sys\nprint('module ran', sys.argv[1:])\n"),
    ]);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(workspace.path().join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = build_run(workspace.path(), DebugConfig::default());
    let launched = ok(&run, json!({"op": "launch", "program": "tool", "args": ["--x"]}));
    assert!(launched.contains("under debugpy") && launched.contains("why debugpy: a Python script (shebang"), "{launched}");
    assert!(launched.contains("tool ran ['--x']"), "the output since the last call rides on the result: {launched}");
    let launched = ok(&run, json!({"op": "launch", "module": "pkg.cli", "args": ["a"]}));
    assert!(launched.contains("launched module pkg.cli") && launched.contains("module ran ['a']"), "{launched}");
    // An explicit adapter wins; a JavaScript file says why there is no adapter.
    let (kind, text) = err(&run, json!({"op": "launch", "program": "tool", "adapter": "lldb"}));
    assert_eq!(kind, "unavailable", "{text}");
    assert!(text.contains("lldb: no root marker for tool"), "lldb was chosen as asked: {text}");
    std::fs::write(workspace.path().join("app.js"), "console.log(1)\n").unwrap();
    let (kind, text) = err(&run, json!({"op": "launch", "program": "app.js"}));
    assert_eq!(kind, "unavailable");
    assert!(text.contains("no adapter") && text.contains("npm"), "{text}");
    let adapters = ok(&run, json!({"op": "adapters"}));
    let node = adapters
        .lines()
        .find(|line| line.starts_with("- node (JavaScript/TypeScript): no adapter"))
        .unwrap_or_else(|| panic!("{adapters}"));
    assert!(node.contains("@vscode/js-debug") && node.contains("GitHub release asset"), "what was looked for: {node}");

    // A Go test binary (ELF with Go build info) goes to delve although it has no extension.
    if support::require_binary(test, "dlv").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let go = support::copy_fixture("debug/tests_go");
    let status = std::process::Command::new("go")
        .args(["test", "-c", "-gcflags=all=-N -l", "-o", "calc.test", "."])
        .current_dir(go.path())
        .status()
        .expect("go test -c");
    assert!(status.success());
    let run = build_run(go.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "calc.go", "text": "result += value"}));
    let launched = ok(&run, json!({"op": "launch", "program": "calc.test", "args": ["-test.run", "^TestMean$"]}));
    assert!(launched.contains("why delve: an ELF executable with Go build info"), "{launched}");
    assert!(launched.contains("in example.com/calc.Total"), "{launched}");
    ok(&run, json!({"op": "terminate"}));
    // The module root is a library package: nothing to run but its tests, and it says so.
    let (kind, text) = err(&run, json!({"op": "launch", "program": "."}));
    assert_eq!(kind, "invalid_arguments", "{text}");
    assert!(text.contains("the Go package `calc`, a library") && text.contains("TestTotal") && text.contains("`test`"), "{text}");
}

#[test]
fn breakpoints_beyond_lines_conditions_hit_counts_logpoints_functions_and_exceptions() {
    let _serial = serial();
    let Some(_python) = pytest_python("breakpoints_beyond_lines_conditions_hit_counts_logpoints_functions_and_exceptions") else { return };
    let workspace = support::copy_fixture("debug/tests_py");
    let run = build_run(workspace.path(), DebugConfig::default());
    // An ambiguous text anchor lists its candidates.
    std::fs::write(workspace.path().join("twice.py"), "x = 1\nprint(x)\nprint(x)\n").unwrap();
    let (kind, text) = err(&run, json!({"op": "breakpoints", "file": "twice.py", "text": "print(x)"}));
    assert_eq!(kind, "not_found");
    assert!(text.contains("occurs on 2 lines") && text.contains("line 2: print(x)") && text.contains("line 3: print(x)"), "{text}");

    ok(
        &run,
        json!({"op": "breakpoints", "file": "calc.py", "lines": [
            {"text": "result += value", "condition": "value == 2"},
            {"text": "return result", "log_message": "total is {result}"}
        ]}),
    );
    let status = ok(&run, json!({"op": "status"}));
    assert!(
        status.contains("calc.py: lines 13 (text `result += value`) if value == 2, 14 (text `return result`) logpoint `total is {result}`"),
        "{status}"
    );
    let launched = ok(&run, json!({"op": "launch", "test": "tests/test_calc.py::test_total_of_three"}));
    assert!(launched.contains("calc.py:13 (text `result += value`) if value == 2 verified"), "{launched}");
    let stopped_at = ok(&run, json!({"op": "evaluate", "expression": "value"}));
    assert!(stopped_at.contains("= 2"), "the condition held: {stopped_at}");
    let status = ok(&run, json!({"op": "status"}));
    assert!(
        status.contains("exception filters of debugpy")
            && status.contains("uncaught (Uncaught Exceptions) [on]")
            && status.contains("raised"),
        "{status}"
    );
    // The logpoint logs and does not stop: the next stop is the end of the program.
    let finished = ok(&run, json!({"op": "continue"}));
    assert!(finished.contains("exited with code 0"), "{finished}");
    assert!(finished.contains("total is 6"), "the logpoint's message is in the output since the last call: {finished}");

    // Hit condition and a function breakpoint; an exception filter that is not offered.
    ok(&run, json!({"op": "breakpoints", "file": "calc.py", "lines": [{"text": "result += value", "hit_condition": "3"}]}));
    ok(&run, json!({"op": "function_breakpoints", "names": ["mean"]}));
    ok(&run, json!({"op": "exception_breakpoints", "filters": ["raised", "no_such_filter"]}));
    let launched = ok(&run, json!({"op": "launch", "test": "tests/test_calc.py::test_total_of_three"}));
    assert!(launched.contains("not offered by debugpy, not set: no_such_filter"), "{launched}");
    assert!(launched.contains("raised (Raised Exceptions) [on]"), "{launched}");
    assert!(launched.contains("function mean"), "{launched}");
    let value = ok(&run, json!({"op": "evaluate", "expression": "value"}));
    assert!(value.contains("= 3"), "the third hit: {value}");
    ok(&run, json!({"op": "terminate"}));
    let launched = ok(&run, json!({"op": "launch", "test": "tests/test_calc.py::test_mean"}));
    assert!(launched.contains("stopped: function breakpoint") || launched.contains("in mean"), "{launched}");
    ok(&run, json!({"op": "terminate"}));
    // The `raised` filter stops on an exception that is caught.
    ok(&run, json!({"op": "function_breakpoints", "names": []}));
    let launched = ok(&run, json!({"op": "launch", "test": "tests/test_calc.py::test_checked"}));
    assert!(launched.contains("stopped: exception ValueError (caught inside checked: 5)"), "{launched}");
    assert!(launched.contains("in checked"), "{launched}");
    ok(&run, json!({"op": "terminate"}));
}

#[test]
fn delve_says_per_breakpoint_which_extras_it_does_not_support() {
    let _serial = serial();
    let test = "delve_says_per_breakpoint_which_extras_it_does_not_support";
    let Some(_dlv) = support::require_binary(test, "dlv") else { return };
    let Some(_go) = support::require_binary(test, "go") else { return };
    let workspace = support::copy_fixture("debug/tests_go");
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(
        &run,
        json!({"op": "breakpoints", "file": "calc.go", "lines": [
            {"text": "result += value", "hit_condition": "2"},
            {"text": "return result", "condition": "result == 6"}
        ]}),
    );
    let launched = ok(&run, json!({"op": "launch", "test": "TestTotal"}));
    assert!(launched.contains("calc.go:7 (text `result += value`) hit 2 not sent: delve does not support hit conditions"), "{launched}");
    assert!(launched.contains("calc.go:9 (text `return result`) if result == 6 verified"), "{launched}");
    assert!(launched.contains("#0 calc.go:9 in example.com/calc.Total"), "{launched}");
    ok(&run, json!({"op": "terminate"}));
}

#[test]
fn continue_and_steps_run_until_something_happens_and_output_rides_on_results_without_ansi() {
    let _serial = serial();
    let Some(_python) = debugpy_python("continue_and_steps_run_until_something_happens_and_output_rides_on_results_without_ansi") else {
        return;
    };
    let workspace = support::workspace_with(&[
        ("pyproject.toml", ""),
        (
            "slow.py",
            "import time\n\ndef work(n):\n    time.sleep(3)\n    print('\\x1b[31mred\\x1b[0m step', n, flush=True)\n    return n\n\nfor i in range(3):\n    work(i)\nprint('done')\n",
        ),
    ]);
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "slow.py", "lines": [6]}));
    let launched = ok(&run, json!({"op": "launch", "program": "slow.py"}));
    // The first stop comes after a 3 s sleep: launch waited for it.
    assert!(launched.contains("stopped: breakpoint") && launched.contains("#0 slow.py:6 in work"), "{launched}");
    assert!(launched.contains("#1 slow.py:9 in <module>"), "top frames: {launched}");
    let next = ok(&run, json!({"op": "continue"}));
    assert!(next.contains("#0 slow.py:6 in work"), "{next}");
    let last = ok(&run, json!({"op": "continue"}));
    assert!(last.contains("#0 slow.py:6 in work"), "{last}");
    // debugpy sends output and stops on separate channels, so a line printed just before a
    // stop rides on that stop's result or on the next one: never lost, never twice.
    let results = [launched.as_str(), next.as_str(), last.as_str()];
    for step in ["red step 0", "red step 1"] {
        let seen = results.iter().filter(|text| text.contains(step)).count();
        assert_eq!(seen, 1, "{step} once across the results: {results:#?}");
    }
    assert!(results.iter().any(|text| text.contains("output since the last call:")), "{results:#?}");
    assert!(results.iter().all(|text| !text.contains('\u{1b}')), "ANSI escapes stripped: {results:?}");
    // … and said where they were (small24: `debug` stripped them unsaid, `eval` said it).
    let removed = "note: ANSI escape sequences (terminal colors, cursor movement) were removed from this output";
    for text in results.iter().filter(|text| text.contains("red step")) {
        assert!(text.contains(removed), "the stripping is not said: {text}");
    }
    let output = ok(&run, json!({"op": "output"}));
    assert!(!output.contains('\u{1b}') && output.contains("red step 0") && output.contains("red step 1"), "{output}");
    assert!(output.contains(removed), "{output}");
    let status = ok(&run, json!({"op": "status"}));
    assert!(!status.contains("red step 0") && !status.contains("red step 1"), "what output showed is not repeated: {status}");
    ok(&run, json!({"op": "terminate"}));
}
