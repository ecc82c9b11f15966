//! Trial 14's debug findings against the real adapters: how a program's end after runbound's
//! `terminate` is said (one spelling for debugpy, lldb-dap and delve: the signal, and that
//! runbound's terminate asked for it), and delve's named-constant values shown as the dlv CLI
//! shows them (`String (24)`, not `String (24) = 0x0`).

use crate::debug::{build_run, debugpy_python, lldb_dap, number_after, ok, serial};
use crate::support;

use runbound::debug::DebugConfig;
use serde_json::json;

/// Launch to a breakpoint, terminate, return the terminate text.
fn terminate_at_breakpoint(workspace: &std::path::Path, program: &str, source: &str, line: u64) -> String {
    let run = build_run(workspace, DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": source, "lines": [line]}));
    let launched = ok(&run, json!({"op": "launch", "program": program}));
    assert!(launched.contains("stopped: breakpoint"), "{launched}");
    ok(&run, json!({"op": "terminate"}))
}

#[test]
fn terminate_says_the_same_signal_for_every_adapter() {
    let _serial = serial();
    let mut texts = Vec::new();
    if debugpy_python("debug_trial14::terminate_says_the_same_signal_for_every_adapter").is_some() {
        let workspace = support::copy_fixture("debug/python");
        texts.push(("debugpy", terminate_at_breakpoint(workspace.path(), "app.py", "app.py", 13)));
    }
    if lldb_dap("debug_trial14::terminate_says_the_same_signal_for_every_adapter").is_some() {
        let workspace = support::copy_fixture("debug/c");
        let status = std::process::Command::new("gcc")
            .args(["-g", "-O0", "-o", "prog", "prog.c"])
            .current_dir(workspace.path())
            .status()
            .expect("run gcc");
        assert!(status.success());
        texts.push(("lldb", terminate_at_breakpoint(workspace.path(), "prog", "prog.c", 12)));
    }
    if support::require_binary("debug_trial14::terminate_says_the_same_signal_for_every_adapter", "dlv").is_some() {
        let workspace = support::copy_fixture("debug/go");
        texts.push(("delve", terminate_at_breakpoint(workspace.path(), "main.go", "main.go", 17)));
    }
    assert!(!texts.is_empty(), "no adapter was available");
    for (adapter, text) in &texts {
        // One spelling for the same kill, whatever code the adapter reported for it.
        let expected = format!(
            "the program was killed by SIGKILL, sent by {adapter} because runbound's teardown asked it to end the program \
             (disconnect with terminateDebuggee)"
        );
        assert!(text.contains(&expected), "{adapter}: {text}");
        assert!(!text.contains("exited with code"), "{adapter}: the kill is not an exit: {text}");
        assert!(!text.contains("likely"), "{adapter}: runbound asked for the kill, nothing to guess: {text}");
    }
    if let Some((_, debugpy)) = texts.iter().find(|(adapter, _)| *adapter == "debugpy") {
        assert!(debugpy.contains("debugpy reports that death as exit code 247 (256 − 9"), "{debugpy}");
    }
    if let Some((_, lldb)) = texts.iter().find(|(adapter, _)| *adapter == "lldb") {
        assert!(lldb.contains("lldb reports that death as exit code 9 (lldb reports a death by signal N as exit code N)"), "{lldb}");
    }
    if let Some((_, delve)) = texts.iter().find(|(adapter, _)| *adapter == "delve") {
        assert!(delve.contains("delve reported no exit code for it"), "{delve}");
    }
}

/// A program that ended on its own before `terminate` is not said to be killed.
#[test]
fn terminate_after_the_program_exited_by_itself_says_its_exit_code() {
    let _serial = serial();
    if lldb_dap("debug_trial14::terminate_after_the_program_exited_by_itself_says_its_exit_code").is_none() {
        return;
    }
    let workspace = support::copy_fixture("debug/c");
    let status =
        std::process::Command::new("gcc").args(["-g", "-O0", "-o", "prog", "prog.c"]).current_dir(workspace.path()).status().expect("gcc");
    assert!(status.success());
    let run = build_run(workspace.path(), DebugConfig::default());
    let launched = ok(&run, json!({"op": "launch", "program": "prog"}));
    let ended = if launched.contains("exited with code 4") { launched } else { ok(&run, json!({"op": "continue"})) };
    assert!(ended.contains("exited with code 4"), "{ended}");
    let after = run.call(runbound::Caller::Main, "debug", json!({"op": "terminate"})).joined_text();
    eprintln!("--- terminate after the exit\n{after}");
    assert!(!after.contains("killed by SIGKILL"), "{after}");
}

/// delve's DAP appends ` = 0x0` (a failed `ParseUint`) to unsigned named constants; runbound
/// shows them as the dlv CLI does, and keeps the hex of a plain unsigned number.
#[test]
fn delve_named_constants_read_as_the_dlv_cli_prints_them() {
    let _serial = serial();
    let test = "debug_trial14::delve_named_constants_read_as_the_dlv_cli_prints_them";
    let Some(_dlv) = support::require_binary(test, "dlv") else { return };
    let Some(_go) = support::require_binary(test, "go") else { return };
    let workspace = support::workspace_with(&[
        ("go.mod", "module kinds\n\ngo 1.19\n"),
        (
            "main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\t\"reflect\"\n)\n\nfunc main() {\n\tkind := reflect.TypeOf(\"\").Kind()\n\tcount := uint(24)\n\tfmt.Println(kind, count)\n}\n",
        ),
    ]);
    let run = build_run(workspace.path(), DebugConfig::default());
    ok(&run, json!({"op": "breakpoints", "file": "main.go", "lines": [11]}));
    let launched = ok(&run, json!({"op": "launch", "program": "main.go"}));
    assert!(launched.contains("stopped: breakpoint"), "{launched}");
    let stack = ok(&run, json!({"op": "stack"}));
    let frame_id = number_after(&stack, "#0 ", "[frame_id");
    let scopes = ok(&run, json!({"op": "scopes", "frame_id": frame_id}));
    let locals = number_after(&scopes, "Locals", "(reference");
    let variables = ok(&run, json!({"op": "variables", "reference": locals}));
    assert!(variables.lines().any(|line| line.trim() == "kind: reflect.Kind = String (24)"), "{variables}");
    assert!(!variables.contains("0x0"), "no zero hex from delve's failed parse: {variables}");
    assert!(variables.contains("count: uint = 24 = 0x18"), "a plain unsigned keeps its hex: {variables}");
    let evaluated = ok(&run, json!({"op": "evaluate", "expression": "kind"}));
    assert!(evaluated.contains("String (24)") && !evaluated.contains("0x0"), "{evaluated}");
    ok(&run, json!({"op": "terminate"}));
}

/// A program killed by SIGKILL that runbound did not ask for (the OOM killer, a `kill -9`) is
/// said alike under debugpy (code 247) and lldb-dap (code 9): "likely killed by SIGKILL" with
/// the adapter's encoding, since a plain exit with that number cannot be told apart.
#[test]
fn a_kill_runbound_did_not_send_is_said_alike_for_debugpy_and_lldb() {
    let _serial = serial();
    let test = "debug_trial14::a_kill_runbound_did_not_send_is_said_alike_for_debugpy_and_lldb";
    let mut texts = Vec::new();
    if debugpy_python(test).is_some() {
        let workspace = support::workspace_with(&[
            ("pyproject.toml", "[project]\nname = \"killed\"\nversion = \"0\"\n"),
            ("killed.py", "import os, signal\nprint('about to die', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"),
        ]);
        texts.push(("debugpy", launch_to_the_end(workspace.path(), "killed.py")));
    }
    if lldb_dap(test).is_some() {
        let workspace = support::workspace_with(&[
            ("Makefile", "killed: killed.c\n\tgcc -g -O0 -o killed killed.c\n"),
            ("killed.c", "#include <signal.h>\n#include <unistd.h>\nint main(void) { kill(getpid(), SIGKILL); return 0; }\n"),
        ]);
        let status = std::process::Command::new("gcc")
            .args(["-g", "-O0", "-o", "killed", "killed.c"])
            .current_dir(workspace.path())
            .status()
            .expect("run gcc");
        assert!(status.success());
        texts.push(("lldb", launch_to_the_end(workspace.path(), "killed")));
    }
    assert!(!texts.is_empty(), "no adapter was available");
    for (adapter, text) in &texts {
        assert!(text.contains(" (likely killed by SIGKILL: "), "{adapter}: {text}");
        assert!(!text.contains("runbound's teardown asked"), "{adapter}: runbound sent no kill: {text}");
    }
    if let Some((_, debugpy)) = texts.iter().find(|(adapter, _)| *adapter == "debugpy") {
        assert!(
            debugpy.contains("exited with code 247 (likely killed by SIGKILL: debugpy reports a death by signal N as 256 − N)"),
            "{debugpy}"
        );
    }
    if let Some((_, lldb)) = texts.iter().find(|(adapter, _)| *adapter == "lldb") {
        assert!(lldb.contains("exited with code 9 (likely killed by SIGKILL: lldb reports a death by signal N as exit code N)"), "{lldb}");
    }
}

/// Launches `program` without breakpoints and returns everything said until its end.
fn launch_to_the_end(workspace: &std::path::Path, program: &str) -> String {
    let run = build_run(workspace, DebugConfig::default());
    let mut text = ok(&run, json!({"op": "launch", "program": program}));
    for _ in 0..5 {
        if text.contains("exited with code") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        text.push('\n');
        text.push_str(&run.call(runbound::Caller::Main, "debug", json!({"op": "status"})).joined_text());
    }
    text
}
