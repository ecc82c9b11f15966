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
    // A call with an id beyond 2^53 is answered (and could be cancelled) by that exact id.
    serve.send_raw_line(
        r#"{"jsonrpc":"2.0","id":1180591620717411303425,"method":"tools/call","params":{"name":"read","arguments":{"path":"hello.txt"}}}"#,
    );
    let (text, message) = serve.next_line(Duration::from_secs(30)).expect("the read's response");
    assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":1180591620717411303425,"result":"#), "{text}");
    assert_eq!(message["result"]["isError"], false, "{text}");
    serve.close();
}
