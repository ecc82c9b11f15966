//! `runbound serve` as a host meets it over a long session: orphans it adopts are reaped,
//! JSON-RPC input is held to the spec, long calls report progress, operator events arrive as
//! log messages. Driven over pipes (`support::serve_process`) against real workers, kernels,
//! language servers and trees.

use crate::support;
use crate::support::serve_process::ServeProcess;

use std::time::Duration;

use serde_json::json;

/// The zombies (`Z` in /proc) among the processes below `root_pid`, as `pid (command) parent ppid`.
fn zombies_below(root_pid: u32) -> Vec<String> {
    let mut parents = vec![root_pid];
    let mut zombies = Vec::new();
    let Ok(all) = procfs::process::all_processes() else { return zombies };
    let table: Vec<procfs::process::Stat> = all.flatten().filter_map(|process| process.stat().ok()).collect();
    while let Some(parent) = parents.pop() {
        for stat in table.iter().filter(|stat| stat.ppid as u32 == parent) {
            if stat.state == 'Z' {
                zombies.push(format!("{} ({}) parent {}", stat.pid, stat.comm, stat.ppid));
            }
            parents.push(stat.pid as u32);
        }
    }
    zombies
}

/// `serve` is a child subreaper: a worker whose shell double-forks short-lived processes leaves
/// orphans that are re-parented to serve. They must be reaped as they exit, not pile up as
/// `<defunct>` for the rest of the session; and reaping them must not steal the exit status of
/// the children runbound waits for itself (the worker's own status still arrives).
#[test]
fn serve_reaps_the_orphans_it_adopts_from_a_worker() {
    let workspace = tempfile::tempdir().unwrap();
    // Five double-forked sleeps (each subshell exits at once, its sleep is orphaned), then wait
    // for them to have exited, then a result on stdout and a non-zero status the roster reports.
    let worker = "fast=for i in 1 2 3 4 5; do (sleep 0.2 &); done; sleep 1; echo orphans-started; exit 3";
    let mut serve = ServeProcess::start(workspace.path(), &["--vibe", "--worker", worker]);
    serve.initialize(json!({}));
    let serve_pid = serve.child.id();
    let spawned = serve
        .call("tools/call", json!({"name": "vibe_spawn", "arguments": {"brief": "start orphans", "label": "orphans", "tier": "fast"}}));
    let worker_id = spawned["result"]["structuredContent"]["worker_id"].as_str().unwrap_or_else(|| panic!("{spawned}")).to_owned();
    let waited = serve.call("tools/call", json!({"name": "vibe_wait", "arguments": {"worker_id": worker_id, "timeout_seconds": 60}}));
    let text = waited["result"].to_string();
    assert!(text.contains("orphans-started"), "the worker ran: {text}");
    assert!(text.contains("exited with code 3"), "the worker's own exit status survives the reaping: {text}");
    let mut zombies = zombies_below(serve_pid);
    let reaped = support::wait_until(Duration::from_secs(5), || {
        zombies = zombies_below(serve_pid);
        zombies.is_empty()
    });
    assert!(reaped, "zombies remain under serve (pid {serve_pid}) 5 s after the worker ended: {zombies:?}");
    serve.close();
}

/// The same for an eval cell: a shell started from the cell backgrounds short-lived children
/// and exits; the orphans are reaped while the session goes on.
#[test]
fn serve_reaps_the_orphans_of_an_eval_cell() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("requirements.txt"), "").unwrap();
    let mut serve = ServeProcess::start(workspace.path(), &["--approve", "allow", "--kernel", "cpython"]);
    serve.initialize(json!({}));
    let serve_pid = serve.child.id();
    let code = "import subprocess, time\nfor _ in range(5):\n    subprocess.run(['sh', '-c', '(sleep 0.2 &)'])\ntime.sleep(1)\n'started'";
    let cell = serve.call(
        "tools/call",
        json!({"name": "eval", "arguments": {"code": code, "description": "background five short sleeps from a shell"}}),
    );
    assert_eq!(cell["result"]["isError"], false, "{cell}");
    let mut zombies = zombies_below(serve_pid);
    let reaped = support::wait_until(Duration::from_secs(5), || {
        zombies = zombies_below(serve_pid);
        zombies.is_empty()
    });
    assert!(reaped, "zombies remain under serve (pid {serve_pid}) after the cell's orphans exited: {zombies:?}");
    // The kernel is still the same, and still answers: nothing it waits for was taken from it.
    let again =
        serve.call("tools/call", json!({"name": "eval", "arguments": {"code": "1 + 1", "description": "check the kernel still answers"}}));
    assert!(again["result"].to_string().contains("Out: 2"), "{again}");
    serve.close();
}

/// JSON-RPC input held to the spec (MCP: ids are strings or integers; `"jsonrpc": "2.0"`), with
/// every request answered exactly once and ids echoed exactly — an integer beyond 2^53 too.
#[test]
fn serve_holds_json_rpc_input_to_the_spec_and_echoes_ids_exactly() {
    let workspace = support::workspace_with(&[("hello.txt", "hello\n")]);
    let mut serve = ServeProcess::start(workspace.path(), &[]);
    serve.initialize(json!({}));
    // Each line and the exact response line expected (ids as text; `null` for a refused id).
    let cases: Vec<(&str, &str, i64)> = vec![
        (r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}"#, "1180591620717411303424", 0),
        (r#"{"jsonrpc":"2.0","id":-1180591620717411303424,"method":"ping"}"#, "-1180591620717411303424", 0),
        (r#"{"jsonrpc":"2.0","id":"\u0063all-7","method":"ping"}"#, r#""call-7""#, 0),
        (r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#, r#""""#, 0),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, "null", -32600),
        (r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#, "null", -32600),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, "null", -32600),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, "null", -32600),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, "null", -32600),
        (r#"{"jsonrpc":"1.0","id":41,"method":"ping"}"#, "41", -32600),
        (r#"{"id":42,"method":"ping"}"#, "42", -32600),
        (r#"{"jsonrpc":"2.0","id":43,"method":["ping"]}"#, "43", -32600),
        (r#"{"jsonrpc":"2.0","id":44,"method":"ping","params":"x"}"#, "44", -32600),
        (r#"{"jsonrpc":"2.0","method":7}"#, "null", -32600),
        (r#"[{"jsonrpc":"2.0","id":45,"method":"ping"}]"#, "null", -32600),
        (r#""just a string""#, "null", -32600),
        (r#"{"jsonrpc":"2.0","id":46"#, "null", -32700),
        (r#"{"jsonrpc":"2.0","id":47,"method":"logging/setLevel","params":{"level":"verbose"}}"#, "47", -32602),
        (r#"{"jsonrpc":"2.0","id":48,"method":"resources/list"}"#, "48", -32601),
        // Every tool is listed in one page and no nextCursor is sent: a cursor is not ours.
        (r#"{"jsonrpc":"2.0","id":49,"method":"tools/list","params":{"cursor":{"x":1}}}"#, "49", -32602),
        (r#"{"jsonrpc":"2.0","id":50,"method":"tools/list","params":{"cursor":"page-2"}}"#, "50", -32602),
    ];
    for (line, id, code) in &cases {
        serve.send_raw_line(line);
        let (text, message) = serve.next_line(Duration::from_secs(10)).unwrap_or_else(|| panic!("no answer to {line}"));
        assert!(text.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"#)), "{line}\n  answered {text}");
        match code {
            0 => assert_eq!(message["result"], json!({}), "{line}\n  answered {text}"),
            code => assert_eq!(message["error"]["code"], json!(code), "{line}\n  answered {text}"),
        }
    }
    // Notifications and responses to nothing of ours are never answered.
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/unknown","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"host could not parse"}}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
    ] {
        serve.send_raw_line(line);
    }
    let ping = serve.call("ping", json!({}));
    assert_eq!(ping["result"], json!({}), "nothing was answered before the ping: {ping}");
    let listed = serve.call("tools/list", json!({"cursor": null}));
    let names: Vec<&str> = listed["result"]["tools"].as_array().expect("tools").iter().filter_map(|tool| tool["name"].as_str()).collect();
    assert!(names.contains(&"read"), "a null cursor is no cursor: {listed}");
    assert!(listed["result"].get("nextCursor").is_none(), "{listed}");
    // A call with an id beyond 2^53 is answered (and could be cancelled) by that exact id.
    serve.send_raw_line(
        r#"{"jsonrpc":"2.0","id":1180591620717411303425,"method":"tools/call","params":{"name":"read","arguments":{"path":"hello.txt"}}}"#,
    );
    let (text, message) = serve.next_line(Duration::from_secs(30)).expect("the read's response");
    assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":1180591620717411303425,"result":"#), "{text}");
    assert_eq!(message["result"]["isError"], false, "{text}");
    serve.close();
}

/// Progress goes to calls that ask for it, under their exact token (an integer beyond 2^53
/// too), before their response and never after; a call without a token gets none.
#[test]
fn serve_sends_progress_under_the_exact_token_and_only_before_the_response() {
    let tree = tempfile::tempdir().unwrap();
    for index in 0..1500 {
        let dir = tree.path().join(format!("pkg_{:02}", index / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("m_{index}.py")), format!("def f(x):\n    print(x, {index})\n")).unwrap();
    }
    let mut serve = ServeProcess::start(tree.path(), &[]);
    serve.initialize(json!({}));
    let token = "1180591620717411303424";
    serve.send_raw_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"with-token","method":"tools/call","params":{{"name":"ast_grep","arguments":{{"pattern":"print($$$A)","language":"python","max_results":1}},"_meta":{{"progressToken":{token}}}}}}}"#
    ));
    let mut progress = Vec::new();
    let response = loop {
        let (text, message) = serve.next_line(Duration::from_secs(120)).expect("progress or the response");
        if message["method"] == "notifications/progress" {
            assert!(text.contains(&format!(r#""progressToken":{token},"#)), "the token is echoed exactly: {text}");
            progress.push(message);
            continue;
        }
        break message;
    };
    assert_eq!(response["id"], "with-token", "{response}");
    assert!(response["result"]["content"][0]["text"].as_str().unwrap().starts_with("1500 matches in 1500 files"), "{response}");
    assert!(!progress.is_empty(), "progress before the response");
    let values: Vec<f64> = progress.iter().map(|message| message["params"]["progress"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|pair| pair[0] < pair[1]), "{values:?}");
    assert!(progress.iter().all(|message| message["params"]["message"].as_str().unwrap().ends_with("files searched")), "{progress:?}");

    let quiet = serve.request(
        "tools/call",
        json!({"name": "ast_grep", "arguments": {"pattern": "print($$$A)", "language": "python", "max_results": 1}}),
    );
    let (response, before) = serve.response_with_notifications(quiet, Duration::from_secs(120));
    assert_eq!(response["result"]["isError"], false, "{response}");
    assert!(before.is_empty(), "no progress without a token: {before:?}");
    assert!(serve.next_message(Duration::from_millis(800)).is_none(), "nothing after the responses");
    serve.close();
}

/// Operator events through serve: a language server killed under a session is announced as a
/// `warning` when the next call finds it dead, its restart as a `notice` once the host lowered
/// the level; nothing of it on stdout outside the protocol (ServeProcess fails on any
/// non-JSON line).
#[test]
fn serve_logs_a_language_server_crash_and_restart_at_the_hosts_level() {
    const TEST: &str = "serve_logs_a_language_server_crash_and_restart_at_the_hosts_level";
    if support::require_binary(TEST, "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp/python");
    let mut serve = ServeProcess::start(workspace.path(), &[]);
    serve.initialize(json!({}));
    let hover = json!({"name": "lsp", "arguments": {"op": "symbols", "file": "shapes.py"}});
    let first = serve.call("tools/call", hover.clone());
    assert_eq!(first["result"]["isError"], false, "{first}");
    let server = runbound::processes::descendant_pids(serve.child.id())
        .into_iter()
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains("pyright-langserver"))
        })
        .expect("pyright-langserver runs under serve");
    // The language server's process group: the leader is the node process itself.
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(server as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(serve.call("logging/setLevel", json!({"level": "notice"}))["result"], json!({}));
    let id = serve.request("tools/call", hover);
    let (response, before) = serve.response_with_notifications(id, Duration::from_secs(120));
    assert_eq!(response["result"]["isError"], false, "{response}");
    let logs: Vec<&serde_json::Value> = before.iter().filter(|message| message["method"] == "notifications/message").collect();
    let crash =
        logs.iter().find(|log| log["params"]["level"] == "warning").unwrap_or_else(|| panic!("a warning for the crash: {before:?}"));
    assert_eq!(crash["params"]["logger"], "runbound/lsp");
    let text = crash["params"]["data"]["message"].as_str().unwrap();
    assert!(text.contains("pyright") && text.contains("had exited") && text.contains("restarting it"), "{text}");
    let restart =
        logs.iter().find(|log| log["params"]["level"] == "notice").unwrap_or_else(|| panic!("a notice for the restart: {before:?}"));
    assert!(restart["params"]["data"]["message"].as_str().unwrap().starts_with("restarted pyright"), "{restart}");
    serve.close();
}

/// A cell that keeps printing (well past the output budget, where the kernel sends only
/// heartbeats) reports its latest line as progress several times a second and never more than
/// four (issue 13 re-run: 1 notification in 10 s). Python and JavaScript kernels.
#[test]
fn a_continuously_printing_cell_reports_its_latest_line_up_to_four_times_a_second() {
    let test = "serve::a_continuously_printing_cell_reports_its_latest_line_up_to_four_times_a_second";
    if support::require_binary(test, "python3").is_none() || support::require_binary(test, "node").is_none() {
        return;
    }
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("requirements.txt"), "").unwrap();
    let mut serve = ServeProcess::start(workspace.path(), &["--approve", "allow", "--kernel", "cpython"]);
    serve.initialize(json!({}));
    for (language, code) in [
        (
            "python",
            "import time\nend = time.time() + 3\nn = 0\nwhile time.time() < end:\n    n += 1\n    print('line', n, 'x' * 100)\n'done'",
        ),
        (
            "javascript",
            "const end = Date.now() + 3000; let n = 0; while (Date.now() < end) { n++; console.log('line', n, 'x'.repeat(100)); } 'done'",
        ),
    ] {
        let started = std::time::Instant::now();
        let id = serve.request(
            "tools/call",
            json!({"name": "eval", "arguments": {"code": code, "language": language, "description": "print lines for three seconds here"}, "_meta": {"progressToken": language}}),
        );
        let (response, notifications) = serve.response_with_notifications(id, Duration::from_secs(120));
        let elapsed = started.elapsed().as_secs_f64();
        assert!(response["result"]["isError"] != json!(true), "{response}");
        let progress: Vec<&serde_json::Value> =
            notifications.iter().filter(|n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == language).collect();
        let messages: Vec<&str> = progress.iter().filter_map(|n| n["params"]["message"].as_str()).collect();
        assert!(
            progress.len() >= 6,
            "{language}: a handful of progress notifications in {elapsed:.1} s, got {}: {messages:?}",
            progress.len()
        );
        assert!((progress.len() as f64) <= 4.0 * elapsed + 2.0, "{language}: at most 4 a second: {} in {elapsed:.1} s", progress.len());
        assert!(messages.last().is_some_and(|m| m.contains(": line ")), "{language}: the latest output line: {messages:?}");
    }
    serve.close();
}

/// Workspace-trust decisions reach the host operator as log messages, once each: a restricted
/// run refusing rust-analyzer (a checkout whose `.cargo/config.toml` sets `[env]`, which cargo
/// would hand to the rustc processes it starts) is a `warning` at the default level; the same
/// server started with restrictions in a clean checkout is a `notice` once the host lowered the
/// level.
#[test]
fn serve_logs_workspace_trust_decisions_once_each() {
    const TEST: &str = "serve_logs_workspace_trust_decisions_once_each";
    if support::require_binary(TEST, "rust-analyzer").is_none() {
        return;
    }
    let trust_logs = |messages: &[serde_json::Value]| -> Vec<serde_json::Value> {
        messages
            .iter()
            .filter(|message| {
                message["method"] == "notifications/message"
                    && message["params"]["data"]["message"].as_str().is_some_and(|text| text.starts_with("workspace trust: restricted"))
            })
            .map(|message| message["params"].clone())
            .collect()
    };
    let symbols = json!({"name": "lsp", "arguments": {"op": "symbols", "file": "src/shapes.rs"}});

    let refused = support::copy_fixture("lsp/rust");
    std::fs::create_dir_all(refused.path().join(".cargo")).unwrap();
    std::fs::write(refused.path().join(".cargo/config.toml"), "[env]\nLD_PRELOAD = \"/tmp/evil.so\"\n").unwrap();
    let mut serve = ServeProcess::start(refused.path(), &["--workspace-trust", "restricted"]);
    serve.initialize(json!({}));
    let mut seen = Vec::new();
    for _ in 0..2 {
        let id = serve.request("tools/call", symbols.clone());
        let (response, before) = serve.response_with_notifications(id, Duration::from_secs(120));
        assert_eq!(response["result"]["isError"], true, "rust-analyzer is refused: {response}");
        seen.extend(before);
    }
    std::thread::sleep(Duration::from_millis(300));
    while let Some(message) = serve.next_message(Duration::from_millis(200)) {
        seen.push(message);
    }
    let logs = trust_logs(&seen);
    assert_eq!(logs.len(), 1, "the refusal is told once, at the default level: {seen:?}");
    assert_eq!(logs[0]["level"], "warning");
    assert_eq!(logs[0]["logger"], "runbound/lsp");
    assert_eq!(logs[0]["data"]["server"], "rust-analyzer");
    let text = logs[0]["data"]["message"].as_str().unwrap();
    assert!(text.contains("rust-analyzer @ . is not started") && text.contains("[env]"), "{text}");
    serve.close();

    let clean = support::copy_fixture("lsp/rust");
    let mut serve = ServeProcess::start(clean.path(), &["--workspace-trust", "restricted"]);
    serve.initialize(json!({}));
    assert_eq!(serve.call("logging/setLevel", json!({"level": "notice"}))["result"], json!({}));
    let id = serve.request("tools/call", symbols);
    let (response, before) = serve.response_with_notifications(id, Duration::from_secs(300));
    assert_eq!(response["result"]["isError"], false, "{response}");
    let logs = trust_logs(&before);
    assert_eq!(logs.len(), 1, "{before:?}");
    assert_eq!(logs[0]["level"], "notice");
    assert!(logs[0]["data"]["message"].as_str().unwrap().contains("rust-analyzer"), "{logs:?}");
    serve.close();
}
