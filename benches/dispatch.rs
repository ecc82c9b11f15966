//! Registry dispatch cost: `read` of a 4 KiB file, in-process through [`Run::call`] and through
//! one long-lived `runbound serve` child (a `tools/call` request/response round trip over its
//! stdin and stdout pipes, newline-delimited JSON-RPC).
//!
//! Run: `cargo bench --bench dispatch`. Both benches read the same file with the same
//! arguments, so the difference is the cost of the stdio host (JSON encode/decode on both
//! sides, pipe hops, a worker thread per call).

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

use runbound::{Caller, Run};

/// 64 lines of 64 bytes (63 characters and a newline): 4096 bytes.
fn four_kib_workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().expect("temp workspace");
    let mut text = String::new();
    for line_idx in 0..64 {
        text.push_str(&format!("{line_idx:04} {}\n", "x".repeat(58)));
    }
    assert_eq!(text.len(), 4096);
    std::fs::write(workspace.path().join("four_kib.txt"), text).expect("write fixture");
    workspace
}

fn dispatch_read_in_process(criterion: &mut Criterion) {
    let workspace = four_kib_workspace();
    let run = Run::builder(workspace.path()).build().expect("build run");
    let arguments = json!({"path": "four_kib.txt"});
    let probe = run.call(Caller::Main, "read", arguments.clone());
    assert!(!probe.is_error, "read failed: {}", probe.joined_text());
    criterion.bench_function("dispatch/read_4KiB/in_process", |bencher| {
        bencher.iter(|| {
            let result = run.call(Caller::Main, "read", black_box(arguments.clone()));
            debug_assert!(!result.is_error);
            black_box(result)
        })
    });
}

struct ServeChild {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl ServeChild {
    fn start(workspace: &std::path::Path) -> ServeChild {
        let mut child = Command::new(env!("CARGO_BIN_EXE_runbound"))
            .arg("--workspace")
            .arg(workspace)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn runbound serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut serve = ServeChild { child, stdin, stdout, next_id: 0 };
        let init =
            serve.round_trip("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench"}}));
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        let stdin = serve.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).expect("write");
        serve
    }

    fn round_trip(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})).expect("write request");
        stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read response");
        serde_json::from_str(&line).expect("response is JSON")
    }
}

impl Drop for ServeChild {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn dispatch_read_through_serve(criterion: &mut Criterion) {
    let workspace = four_kib_workspace();
    let mut serve = ServeChild::start(workspace.path());
    let params = json!({"name": "read", "arguments": {"path": "four_kib.txt"}});
    let probe = serve.round_trip("tools/call", params.clone());
    assert_eq!(probe["result"]["isError"], false, "{probe}");
    criterion.bench_function("dispatch/read_4KiB/through_serve", |bencher| {
        bencher.iter(|| {
            let response = serve.round_trip("tools/call", black_box(params.clone()));
            debug_assert_eq!(response["result"]["isError"], false);
            black_box(response)
        })
    });
}

criterion_group!(benches, dispatch_read_in_process, dispatch_read_through_serve);
criterion_main!(benches);
