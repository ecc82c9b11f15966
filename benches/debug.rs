//! Bench binary: the `debug` tool's overhead over raw DAP on the same adapter, and
//! launch-to-first-stop per adapter.
//!
//! - step round trip (debugpy): `ITERATIONS` times `step_over` + `stack` through the whole tool
//!   pipeline (registry, schema validation, serialization, stop wait, formatting, source line
//!   reads) versus the raw DAP sequence `next` → wait `stopped` → `stackTrace {levels: 30}` sent
//!   through `runbound::transport::RpcConnection` to a second debugpy adapter on the same
//!   program. The tool's `step_over` also fetches the top frame to say where it stopped, so it
//!   makes one more request than the raw sequence; that cost is part of the figure.
//! - launch to first stop (debugpy, lldb-dap, delve): `LAUNCHES` fresh launches with one
//!   breakpoint, from the `launch` call to its answer (program classification, adapter
//!   resolution, adapter start, handshake, run to the breakpoint, top frames), then
//!   `terminate`; versus the same adapter driven by raw DAP (spawn, `initialize`, `launch`,
//!   `setBreakpoints`, `configurationDone`, wait for `stopped`, `stackTrace`, `disconnect`),
//!   alternating tool and raw launches so load drifts hit both alike.
//!
//! - the same on a real project: python-dateutil's `test_easter_western[easter_date34]` by node
//!   id through the tool, against raw DAP launching `module: pytest` with that node id.
//!
//! Run: `cargo bench --bench debug` (an adapter that is not installed is skipped with a line
//! saying so). `RUNBOUND_BENCH_ITERATIONS` overrides the step iterations (default 200).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use runbound::benching::{ChildProcess, Incoming, ProcessSpec, RpcConnection, RpcOptions, WireProtocol};
use runbound::debug::{DebugConfig, DebugSupervisor};
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig};
use serde_json::{json, Value};

const LAUNCHES: usize = 5;
const LOOP_PROGRAM: &str = "i = 0\nwhile True:\n    i += 1\n    j = i * 2\n";
const TIMEOUT: Duration = Duration::from_secs(20);

fn main() {
    let iterations: usize = std::env::var("RUNBOUND_BENCH_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    println!("debug bench; times in ms");
    match debugpy_python() {
        Some(python) => step_round_trip(&python, iterations),
        None => println!("step round trip: skipped: no python3 that imports debugpy"),
    }
    println!("\nlaunch to first stop, {LAUNCHES} launches each (tool and raw DAP alternating):");
    launch_to_first_stop();
    println!("\nlaunch to first stop on a real project, {LAUNCHES} launches each (tool and raw DAP alternating):");
    dateutil_test_by_node_id();
}

/// python-dateutil (the corpus of `.ci/install-corpus`, copied to a temp dir with its venv
/// relocated): the tool's `launch {test: node id}` (classifies the test, finds the project venv,
/// `python -m pytest <id>` under debugpy, runs to a text-anchored breakpoint in `easter()`)
/// against raw DAP on debugpy launching `module: pytest` with the same arguments and interpreter.
fn dateutil_test_by_node_id() {
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join(".corpus/python/python-dateutil-2.9.0.post0");
    if !cache.join(".runbound-corpus").is_file() || debugpy_python().is_none() {
        println!("dateutil   skipped: run `bash .ci/install-corpus` (and install debugpy) first");
        return;
    }
    let cache = std::fs::canonicalize(&cache).unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(workspace.path()).unwrap().join("dateutil");
    let copied = std::process::Command::new("cp").arg("-a").arg(&cache).arg(&root).status().expect("cp");
    assert!(copied.success());
    relocate_venv(&root.join(".venv"), &cache, &root);
    let node_id = "tests/test_easter.py::test_easter_western[easter_date34]";
    let source = "src/dateutil/easter.py";
    let text = std::fs::read_to_string(root.join(source)).unwrap();
    let line = text.lines().position(|l| l.contains("p = i - j + e")).expect("the anchor line") as u64 + 1;
    let run = build_run(&root);
    check(&run, json!({"op": "breakpoints", "file": source, "text": "p = i - j + e"}));
    let (mut ours, mut raw) = (Vec::new(), Vec::new());
    for _ in 0..LAUNCHES {
        let start = Instant::now();
        let text = check(&run, json!({"op": "launch", "test": node_id}));
        ours.push(start.elapsed());
        assert!(text.contains("stopped: breakpoint"), "{text}");
        check(&run, json!({"op": "terminate"}));
        let python = root.join(".venv/bin/python");
        let arguments = json!({
            "module": "pytest", "args": [node_id, "-p", "no:cacheprovider", "-q"], "python": python,
            "console": "internalConsole", "cwd": root, "justMyCode": true
        });
        raw.push(raw_debugpy_launch(&root, arguments, source, line));
    }
    let (ours_p50, raw_p50) = (percentile(&mut ours, 50), percentile(&mut raw, 50));
    println!(
        "dateutil   tool min {:>7.1} p50 {:>7.1} max {:>7.1} | raw DAP min {:>7.1} p50 {:>7.1} max {:>7.1} | ratio p50 {:.2}",
        ms(ours[0]),
        ms(ours_p50),
        ms(*ours.last().unwrap()),
        ms(raw[0]),
        ms(raw_p50),
        ms(*raw.last().unwrap()),
        ms(ours_p50) / ms(raw_p50)
    );
}

/// Rewrites the venv's recorded path (`pyvenv.cfg`, scripts, `.pth` of the editable install).
fn relocate_venv(venv: &Path, from: &Path, to: &Path) {
    let (from, to) = (from.to_str().unwrap(), to.to_str().unwrap());
    let mut files = vec![venv.join("pyvenv.cfg")];
    let site = std::fs::read_dir(venv.join("lib")).unwrap().flatten().map(|entry| entry.path().join("site-packages"));
    for dir in std::iter::once(venv.join("bin")).chain(site) {
        files.extend(std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|entry| entry.path()).filter(|path| path.is_file()));
    }
    for file in files {
        if let Ok(text) = std::fs::read_to_string(&file) {
            if text.contains(from) {
                std::fs::write(&file, text.replace(from, to)).unwrap();
            }
        }
    }
}

/// One raw-DAP launch of debugpy with `arguments` to the first stop at `source:line`.
fn raw_debugpy_launch(root: &Path, arguments: Value, source: &str, line: u64) -> Duration {
    let start = Instant::now();
    let python = debugpy_python().expect("debugpy");
    let spec = ProcessSpec::new(&python, root).with_args(["-m", "debugpy.adapter"]).with_display_name("debugpy (raw bench)");
    let child = ChildProcess::spawn(spec).expect("spawn debugpy adapter");
    let connection =
        RpcConnection::over_child(child, WireProtocol::DapContentLength, RpcOptions::new("debugpy (raw)", "bench-raw")).expect("connect");
    connection
        .request(
            "initialize",
            json!({"adapterID": "debugpy", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}),
            TIMEOUT,
        )
        .expect("initialize");
    let launch = connection.send_request("launch", arguments).expect("launch");
    wait_event(&connection, "initialized");
    connection
        .request("setBreakpoints", json!({"source": {"path": root.join(source)}, "breakpoints": [{"line": line}]}), TIMEOUT)
        .expect("setBreakpoints");
    connection.request("configurationDone", json!({}), TIMEOUT).expect("configurationDone");
    launch.wait(Duration::from_secs(120)).expect("launch response");
    let stopped = wait_event(&connection, "stopped");
    let thread = stopped["threadId"].as_i64().unwrap_or(1);
    connection.request("stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 30}), TIMEOUT).expect("stackTrace");
    let took = start.elapsed();
    let _ = connection.request("disconnect", json!({"terminateDebuggee": true}), Duration::from_secs(3));
    connection.close(Duration::from_secs(1));
    took
}

fn step_round_trip(python: &Path, iterations: usize) {
    let workspace = tempfile::tempdir().expect("temp dir");
    std::fs::write(workspace.path().join("pyproject.toml"), "").unwrap();
    std::fs::write(workspace.path().join("loop.py"), LOOP_PROGRAM).unwrap();
    let root = std::fs::canonicalize(workspace.path()).unwrap();

    // Through the tool.
    let run = build_run(&root);
    check(&run, json!({"op": "breakpoints", "file": "loop.py", "lines": [3]}));
    check(&run, json!({"op": "launch", "program": "loop.py"}));
    let mut ours = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = Instant::now();
        check(&run, json!({"op": "step_over"}));
        check(&run, json!({"op": "stack"}));
        ours.push(start.elapsed());
    }
    check(&run, json!({"op": "terminate"}));
    drop(run);

    // Raw DAP on a second debugpy adapter.
    let raw = raw_debugpy_steps(python, &root, iterations);
    let ours_p50 = percentile(&mut ours, 50);
    let ours_p90 = percentile(&mut ours, 90);
    let mut raw = raw;
    let raw_p50 = percentile(&mut raw, 50);
    let raw_p90 = percentile(&mut raw, 90);
    println!("step_over + stack round trip on debugpy, {iterations} iterations:");
    println!("  tool: p50 {:.2}  p90 {:.2}", ms(ours_p50), ms(ours_p90));
    println!("  raw DAP (next, stopped, stackTrace): p50 {:.2}  p90 {:.2}", ms(raw_p50), ms(raw_p90));
    println!("  overhead p50: {:+.2} ms (target ≤ +2 ms), ratio p50 {:.2}", ms(ours_p50) - ms(raw_p50), ms(ours_p50) / ms(raw_p50));
}

fn raw_debugpy_steps(python: &Path, root: &Path, iterations: usize) -> Vec<Duration> {
    let spec = ProcessSpec::new(python, root).with_args(["-m", "debugpy.adapter"]).with_display_name("debugpy (raw bench)");
    let child = ChildProcess::spawn(spec).expect("spawn debugpy adapter");
    let connection = RpcConnection::over_child(child, WireProtocol::DapContentLength, RpcOptions::new("debugpy (raw bench)", "bench-raw"))
        .expect("connect");
    connection
        .request(
            "initialize",
            json!({"adapterID": "debugpy", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}),
            TIMEOUT,
        )
        .expect("initialize");
    let program = root.join("loop.py");
    let launch = connection
        .send_request("launch", json!({"program": program, "console": "internalConsole", "cwd": root, "justMyCode": true}))
        .expect("launch");
    wait_event(&connection, "initialized");
    connection
        .request("setBreakpoints", json!({"source": {"path": program}, "breakpoints": [{"line": 3}]}), TIMEOUT)
        .expect("setBreakpoints");
    connection.request("configurationDone", json!({}), TIMEOUT).expect("configurationDone");
    launch.wait(TIMEOUT).expect("launch response");
    let stopped = wait_event(&connection, "stopped");
    let thread = stopped["threadId"].as_i64().unwrap_or(1);
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = Instant::now();
        connection.request("next", json!({"threadId": thread}), TIMEOUT).expect("next");
        wait_event(&connection, "stopped");
        let frames =
            connection.request("stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 30}), TIMEOUT).expect("stackTrace");
        assert!(frames["stackFrames"].as_array().is_some_and(|f| !f.is_empty()));
        times.push(start.elapsed());
    }
    let _ = connection.request("disconnect", json!({"terminateDebuggee": true}), Duration::from_secs(3));
    connection.close(Duration::from_secs(1));
    times
}

fn wait_event(connection: &RpcConnection, name: &str) -> Value {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match connection.incoming().recv_timeout(left) {
            Ok(Incoming::Notification(event)) if event.method == name => return event.params,
            Ok(Incoming::Closed(closed)) => panic!("adapter closed while waiting for {name}: {closed}"),
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => panic!("no {name} event within {TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("connection gone while waiting for {name}"),
        }
    }
}

fn launch_to_first_stop() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/debug");
    // (adapter, fixture dir, program, source, breakpoint line, build with gcc)
    type Case = (&'static str, &'static str, &'static str, &'static str, u64, bool);
    let cases: [Case; 3] = [
        ("debugpy", "python", "app.py", "app.py", 13, false),
        ("lldb", "c", "prog", "prog.c", 12, true),
        ("delve", "go", "main.go", "main.go", 17, false),
    ];
    for (adapter, fixture, program, source, line, build) in cases {
        let available = match adapter {
            "debugpy" => debugpy_python().is_some(),
            "lldb" => runbound::benching::BinarySearch::from_env(&[]).find_lldb_dap().is_some() && which::which("gcc").is_ok(),
            _ => which::which("dlv").is_ok() && which::which("go").is_ok(),
        };
        if !available {
            println!("{adapter:<10} skipped: adapter (or its toolchain) not installed");
            continue;
        }
        let workspace = tempfile::tempdir().unwrap();
        copy_dir(&fixtures.join(fixture), workspace.path());
        if build {
            let status = std::process::Command::new("gcc")
                .args(["-g", "-O0", "-o", "prog", "prog.c"])
                .current_dir(workspace.path())
                .status()
                .expect("gcc");
            assert!(status.success());
        }
        let root = std::fs::canonicalize(workspace.path()).unwrap();
        let run = build_run(&root);
        check(&run, json!({"op": "breakpoints", "file": source, "lines": [line]}));
        let mut ours = Vec::new();
        let mut raw = Vec::new();
        for _ in 0..LAUNCHES {
            let start = Instant::now();
            let text = check(&run, json!({"op": "launch", "program": program}));
            ours.push(start.elapsed());
            assert!(text.contains("stopped: breakpoint"), "{text}");
            check(&run, json!({"op": "terminate"}));
            raw.push(raw_launch_to_first_stop(adapter, &root, program, source, line));
        }
        let (ours_p50, raw_p50) = (percentile(&mut ours, 50), percentile(&mut raw, 50));
        println!(
            "{adapter:<10} tool min {:>7.1} p50 {:>7.1} max {:>7.1} | raw DAP min {:>7.1} p50 {:>7.1} max {:>7.1} | ratio p50 {:.2}",
            ms(ours[0]),
            ms(ours_p50),
            ms(*ours.last().unwrap()),
            ms(raw[0]),
            ms(raw_p50),
            ms(*raw.last().unwrap()),
            ms(ours_p50) / ms(raw_p50)
        );
    }
}

/// One launch to the first stop by raw DAP on `adapter`: spawn, initialize, launch, configure
/// one breakpoint, configurationDone, wait for `stopped`, stackTrace; then disconnect. Returns
/// the time to the stack trace's answer.
fn raw_launch_to_first_stop(adapter: &str, root: &Path, program: &str, source: &str, line: u64) -> Duration {
    let output_dir = tempfile::tempdir().expect("temp dir for delve's build");
    let start = Instant::now();
    let program = root.join(program);
    let (connection, launch_arguments) = match adapter {
        "debugpy" => {
            let python = debugpy_python().expect("debugpy");
            let spec = ProcessSpec::new(&python, root).with_args(["-m", "debugpy.adapter"]).with_display_name("debugpy (raw bench)");
            let child = ChildProcess::spawn(spec).expect("spawn debugpy adapter");
            let connection =
                RpcConnection::over_child(child, WireProtocol::DapContentLength, RpcOptions::new("debugpy (raw)", "bench-raw"))
                    .expect("connect");
            let arguments = json!({"program": program, "console": "internalConsole", "cwd": root, "justMyCode": true, "python": python});
            (connection, arguments)
        }
        "lldb" => {
            let lldb = runbound::benching::BinarySearch::from_env(&[]).find_lldb_dap().expect("lldb-dap");
            let child =
                ChildProcess::spawn(ProcessSpec::new(&lldb, root).with_display_name("lldb-dap (raw bench)")).expect("spawn lldb-dap");
            let connection =
                RpcConnection::over_child(child, WireProtocol::DapContentLength, RpcOptions::new("lldb-dap (raw)", "bench-raw"))
                    .expect("connect");
            (connection, json!({"program": program, "cwd": root, "stopOnEntry": false}))
        }
        _ => {
            let dlv = which::which("dlv").expect("dlv");
            let spec = ProcessSpec::new(&dlv, root)
                .with_args(["dap", "--listen", "127.0.0.1:0", "--check-go-version=false"])
                .with_stdin_piped(false)
                .with_display_name("dlv (raw bench)");
            let child = ChildProcess::spawn(spec).expect("spawn dlv");
            let mut stdout = std::io::BufReader::new(child.take_stdout().expect("stdout"));
            let mut first = String::new();
            std::io::BufRead::read_line(&mut stdout, &mut first).expect("dlv's address line");
            std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
            let port: u16 = first.trim().rsplit(':').next().and_then(|p| p.parse().ok()).expect("port");
            let stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect dlv");
            let reader = stream.try_clone().unwrap();
            let connection = RpcConnection::over_streams(
                Box::new(reader),
                Box::new(stream),
                Some(child),
                WireProtocol::DapContentLength,
                RpcOptions::new("dlv (raw)", "bench-raw"),
            )
            .expect("connect");
            let output = output_dir.path().join("__debug_bin");
            (connection, json!({"mode": "debug", "program": program, "cwd": root, "output": output}))
        }
    };
    connection
        .request("initialize", json!({"adapterID": adapter, "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"}), TIMEOUT)
        .expect("initialize");
    let launch = connection.send_request("launch", launch_arguments).expect("launch");
    wait_event(&connection, "initialized");
    connection
        .request("setBreakpoints", json!({"source": {"path": root.join(source)}, "breakpoints": [{"line": line}]}), TIMEOUT)
        .expect("setBreakpoints");
    connection.request("configurationDone", json!({}), TIMEOUT).expect("configurationDone");
    launch.wait(Duration::from_secs(120)).expect("launch response");
    let stopped = wait_event(&connection, "stopped");
    let thread = stopped["threadId"].as_i64().unwrap_or(1);
    connection.request("stackTrace", json!({"threadId": thread, "startFrame": 0, "levels": 30}), TIMEOUT).expect("stackTrace");
    let took = start.elapsed();
    let _ = connection.request("disconnect", json!({"terminateDebuggee": true}), Duration::from_secs(3));
    if let Some(child) = connection.child() {
        child.kill_group();
    }
    connection.close(Duration::from_secs(1));
    took
}

fn build_run(workspace: &Path) -> Run {
    let config = RunConfig { debug: DebugConfig::default(), ..RunConfig::default() };
    Run::builder(workspace)
        .config(config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .debug_supervisor(DebugSupervisor::new())
        .build()
        .expect("run")
}

fn check(run: &Run, arguments: Value) -> String {
    let result = run.call(Caller::Main, "debug", arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "debug {arguments}: {text}");
    text
}

fn debugpy_python() -> Option<PathBuf> {
    let python = which::which("python3").ok()?;
    let ok = std::process::Command::new(&python).args(["-c", "import debugpy"]).status().ok()?.success();
    ok.then_some(python)
}

fn percentile(times: &mut [Duration], percent: usize) -> Duration {
    times.sort();
    times[(times.len() - 1) * percent / 100]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn copy_dir(source: &Path, target: &Path) {
    std::fs::create_dir_all(target).unwrap();
    for entry in std::fs::read_dir(source).unwrap() {
        let entry = entry.unwrap();
        let destination = target.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &destination);
        } else {
            std::fs::copy(entry.path(), &destination).unwrap();
        }
    }
}
