//! Nothing a run started survives a `kill -9` of its host: `runbound serve` (the real CLI
//! binary) starts processes through `eval` cells in CPython and Node — a plain child, a child
//! with a cleared environment in its own session (`env -i setsid`), a double-forked daemon —
//! plus a debug adapter (lldb-dap) with its debuggee and the debuggee's own child, a language
//! server, and a background worker with children of its own; the test then SIGKILLs serve (no
//! cleanup of its own can run) and checks, within a bounded wait, that every process that was
//! below serve is gone. Kernels, debug adapters and workers run under the process guardian
//! (`transport::guardian`); language servers do not need it (their children end with them).

use crate::support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use crossbeam_channel::Receiver;
use runbound::processes::{descendant_processes, process_start_time_ticks, process_state, ProcessIdentity, ProcessState};
use serde_json::{json, Value};

const RUNBOUND: &str = env!("CARGO_BIN_EXE_runbound");

/// `runbound serve` over pipes, just enough MCP to call tools.
struct Serve {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Serve {
    fn start(workspace: &Path, args: &[&str]) -> Serve {
        let mut child = Command::new(RUNBOUND)
            .arg("--workspace")
            .arg(workspace)
            .args(args)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn runbound serve");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take().expect("stdin");
        let (sender, messages) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("containment-serve-stdout".to_owned())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
                    if sender.send(message).is_err() {
                        break;
                    }
                }
            })
            .unwrap();
        let mut serve = Serve { child, stdin, messages, next_id: 0 };
        let initialized = serve.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "containment-test", "version": "1"}}),
        );
        assert!(initialized.get("result").is_some(), "{initialized}");
        writeln!(serve.stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
        serve
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        self.stdin.flush().unwrap();
        loop {
            let message = self.messages.recv_timeout(Duration::from_secs(120)).unwrap_or_else(|_| panic!("no response to {method}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool and returns the result's text; panics when the tool failed.
    fn tool(&mut self, name: &str, arguments: Value) -> String {
        let response = self.call("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &response["result"];
        let text = result["content"]
            .as_array()
            .map(|blocks| blocks.iter().filter_map(|block| block["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        assert_eq!(result["isError"], false, "{name} {arguments} failed: {response}");
        text
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The command line of `pid` (arguments joined by spaces), or `?`.
fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " ").trim().to_owned())
        .unwrap_or_else(|_| "?".to_owned())
}

/// Whether the process `identity` still runs (same pid, same start time, not a zombie).
fn still_runs(identity: &ProcessIdentity) -> bool {
    process_start_time_ticks(identity.pid) == Some(identity.start_time_ticks) && process_state(identity.pid) == Some(ProcessState::Live)
}

/// Pids printed by a cell as `pids: 1 2 3`.
fn printed_pids(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|line| line.split("pids:").nth(1))
        .flat_map(|rest| rest.split_whitespace().map(|word| word.trim_matches(|c: char| !c.is_ascii_digit()).parse::<u32>().ok()))
        .flatten()
        .collect()
}

/// The Python cell: a plain child, an `env -i setsid` child, and a daemon that double-forks
/// out of its session with a cleared environment (nothing of the kernel's group or tag left).
const PYTHON_CHILDREN: &str = r#"
import os, subprocess
plain = subprocess.Popen(['sleep', '1001'])
escaped = subprocess.Popen(['env', '-i', 'setsid', 'sleep', '1002'])
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    pid = os.fork()
    if pid == 0:
        os.execve('/bin/sleep', ['sleep', '1003'], {})
    os.write(w, str(pid).encode())
    os._exit(0)
os.wait()
daemon = int(os.read(r, 32))
print('pids:', plain.pid, escaped.pid, daemon)
"#;

/// The JavaScript cell: a detached `spawn` and an `env -i setsid` child.
const JAVASCRIPT_CHILDREN: &str = r#"
const cp = require('child_process');
const a = cp.spawn('sleep', ['1004'], {detached: true, stdio: 'ignore'});
const b = cp.spawn('env', ['-i', 'setsid', 'sleep', '1005'], {stdio: 'ignore'});
console.log('pids:', a.pid, b.pid);
"#;

/// The debuggee: forks a child, then both sleep until killed.
const DEBUGGEE: &str = "#include <stdio.h>\n#include <unistd.h>\nint main(void) {\n  if (fork() == 0) { execlp(\"sleep\", \"sleep\", \"1006\", (char *)0); }\n  puts(\"debuggee up\");\n  fflush(stdout);\n  sleep(1007);\n  return 0;\n}\n";

/// The background worker's command: a child, a child that leaves it (subshell), a foreground one.
const WORKER: &str = "fast=sleep 1008 & (sleep 1009 &) ; sleep 1010";

#[test]
fn nothing_started_through_serve_survives_a_kill_9_of_serve() {
    if !support::alone("containment::nothing_started_through_serve_survives_a_kill_9_of_serve") {
        return;
    }
    let test = "nothing_started_through_serve_survives_a_kill_9_of_serve";
    let (Some(_python), Some(_node)) = (support::require_binary(test, "python3"), support::require_binary(test, "node")) else {
        return;
    };
    let (Some(gcc), Some(_), Some(_)) = (
        support::require_binary(test, "gcc"),
        support::require_binary(test, "lldb-dap-19").or_else(|| support::require_binary(test, "lldb-dap")),
        support::require_binary(test, "pyright-langserver"),
    ) else {
        return;
    };
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"contained\"\nversion = \"0\"\n"),
        ("debuggee.c", DEBUGGEE),
        ("module.py", "def answer() -> int:\n    return 42\n"),
    ]);
    let compiled = Command::new(gcc).args(["-g", "-O0", "-o", "debuggee", "debuggee.c"]).current_dir(workspace.path()).status();
    assert!(compiled.is_ok_and(|status| status.success()), "gcc builds the debuggee");
    let mut serve = Serve::start(workspace.path(), &["--approve", "allow", "--kernel", "cpython", "--vibe", "--worker", WORKER]);
    let serve_pid = serve.child.id();

    let python = serve.tool("eval", json!({"code": PYTHON_CHILDREN, "description": "start three children that try to escape"}));
    let javascript = serve.tool(
        "eval",
        json!({"code": JAVASCRIPT_CHILDREN, "description": "start two node children that try to escape", "language": "javascript"}),
    );
    let mut expected = printed_pids(&python);
    expected.extend(printed_pids(&javascript));
    assert_eq!(expected.len(), 5, "five pids printed:\n{python}\n{javascript}");
    serve.tool("debug", json!({"op": "launch", "program": "debuggee"}));
    serve.tool("lsp", json!({"op": "symbols", "file": "module.py"}));
    serve.tool("vibe_spawn", json!({"brief": "sleep in the background", "label": "sleeper", "tier": "fast"}));
    // Exact command lines: a shell forked for `&` still shows the whole script until it execs.
    let running = |command: &str| descendant_processes(serve_pid).iter().any(|p| command_line(p.pid) == command);
    assert!(
        support::wait_until(Duration::from_secs(20), || ["sleep 1006", "sleep 1008", "sleep 1009", "sleep 1010"]
            .iter()
            .all(|command| running(command))),
        "the debuggee's child and the worker run: {:#?}",
        descendant_processes(serve_pid).iter().map(|p| command_line(p.pid)).collect::<Vec<_>>()
    );

    // Everything below serve, by pid and start time (a pid reused later is not a survivor).
    let mut below: BTreeMap<u32, (ProcessIdentity, String)> =
        descendant_processes(serve_pid).into_iter().map(|identity| (identity.pid, (identity, command_line(identity.pid)))).collect();
    // The daemon left serve's tree before the snapshot (re-parented to a subreaper or init):
    // add the printed pids that are not below serve.
    for pid in &expected {
        if let (false, Some(start_time_ticks)) = (below.contains_key(pid), process_start_time_ticks(*pid)) {
            below.insert(*pid, (ProcessIdentity { pid: *pid, start_time_ticks }, command_line(*pid)));
        }
    }
    for pid in &expected {
        assert!(below.get(pid).is_some_and(|(identity, _)| still_runs(identity)), "printed child {pid} runs before the kill");
    }
    let roles = |needle: &str| below.values().filter(|(_, command)| command.contains(needle)).count();
    let exactly = |wanted: &str| below.values().filter(|(_, command)| command == wanted).count();
    assert!(
        roles("lldb") >= 1 && roles("debuggee") >= 1 && exactly("sleep 1006") == 1,
        "a debug adapter, its debuggee and its child run: {below:#?}"
    );
    assert!(roles("pyright") >= 1, "a language server runs: {below:#?}");
    for worker_child in ["sleep 1008", "sleep 1009", "sleep 1010"] {
        assert_eq!(exactly(worker_child), 1, "the worker's {worker_child} runs: {below:#?}");
    }

    nix::sys::signal::kill(nix::unistd::Pid::from_raw(serve_pid as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    let _ = serve.child.wait();
    let gone = support::wait_until(Duration::from_secs(10), || below.values().all(|(identity, _)| !still_runs(identity)));
    let survivors: Vec<String> = below
        .values()
        .filter(|(identity, _)| still_runs(identity))
        .map(|(identity, command)| format!("{} {}", identity.pid, command.chars().take(150).collect::<String>()))
        .collect();
    for (identity, _) in below.values() {
        if still_runs(identity) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(identity.pid as i32), nix::sys::signal::Signal::SIGKILL);
        }
    }
    eprintln!("containment: {} processes were below serve at the kill, {} survived it", below.len(), survivors.len());
    assert!(
        gone && survivors.is_empty(),
        "{} of {} processes survived a kill -9 of serve:\n{}",
        survivors.len(),
        below.len(),
        survivors.join("\n")
    );
}

fn library_run(workspace: &Path) -> runbound::Run {
    runbound::Run::builder(workspace)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .kernel_factory(runbound::kernel::KernelFactory::new().selection(runbound::kernel::KernelSelection::Cpython))
        .build()
        .unwrap()
}

fn eval(run: &runbound::Run, language: &str, code: &str) -> runbound::ToolResult {
    run.call(
        runbound::Caller::Main,
        "eval",
        json!({"code": code, "description": "check how the kernel process runs", "language": language}),
    )
}

/// The parent pid of `pid` (field 4 of /proc/<pid>/stat).
fn parent_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat.rsplit_once(')').unwrap().1.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The driver reaches the interpreter through a pipe, not the command line (30 KB of driver in
/// `ps` before); each kernel's parent is its guardian, and results say the kernel is guarded.
#[test]
fn kernels_start_from_a_short_command_line_under_their_guardian() {
    let test = "kernels_start_from_a_short_command_line_under_their_guardian";
    let (Some(_), Some(_)) = (support::require_binary(test, "python3"), support::require_binary(test, "node")) else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let run = library_run(workspace.path());
    for language in ["python", "javascript"] {
        let result = eval(&run, language, "1 + 1");
        assert!(!result.is_error, "{}", result.joined_text());
        let structured = result.structured_content.as_ref().unwrap();
        assert_eq!(structured["guarded"], true, "{language}: {}", result.joined_text());
    }
    let pids = run.kernels().unwrap().live_pids();
    assert_eq!(pids.len(), 2);
    for pid in pids {
        let kernel = command_line(pid);
        assert!(kernel.len() < 400, "a short kernel command line ({} bytes): {kernel}", kernel.len());
        assert!(kernel.contains("runbound-kernel"), "{kernel}");
        let guardian = command_line(parent_of(pid));
        assert!(guardian.contains("<runbound-guardian>") && guardian.len() < 600, "the kernel's parent is its guardian: {guardian}");
    }
    let status = runbound::status::kernels_report(&run);
    assert!(
        status.contains("guarded (guardian pid ") && status.contains("containment: spawned kernels run under the process guardian"),
        "{status}"
    );
}

/// The guardian is the subreaper of everything below the kernel: orphans it adopts are reaped
/// as they exit, so no zombie piles up during a session.
#[test]
fn the_guardian_reaps_the_orphans_it_adopts() {
    let Some(_) = support::require_binary("the_guardian_reaps_the_orphans_it_adopts", "python3") else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let run = library_run(workspace.path());
    let result = eval(&run, "python", "import subprocess\nfor i in range(20):\n    subprocess.run(['sh', '-c', 'sleep 1 &'])\n'spawned'");
    assert!(!result.is_error, "{}", result.joined_text());
    let kernel = run.kernels().unwrap().live_pids()[0];
    let guardian = parent_of(kernel);
    let children_of = |parent: u32| -> Vec<(u32, char)> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
                let state = fields.next()?.chars().next()?;
                (fields.next()?.parse::<u32>().ok()? == parent).then_some((pid, state))
            })
            .collect()
    };
    let adopted = children_of(guardian).into_iter().filter(|(pid, _)| *pid != kernel).count();
    assert!(adopted > 0, "the orphaned sleeps were adopted by the guardian");
    let reaped = support::wait_until(Duration::from_secs(10), || children_of(guardian).iter().all(|(pid, _)| *pid == kernel));
    assert!(reaped, "orphans left under the guardian (pid, state): {:?}", children_of(guardian));
}
