//! The official MCP Python SDK client (PyPI `mcp`) lists and calls tools against `runbound
//! serve`, unmodified: `tests/mcp_sdk_client.py` does the talking; this test provides the
//! workspace, runs the script, and checks every step reported `ok`.
//!
//! Needs `python3` with the `mcp` package (`.ci/install`): missing locally → a loud SKIP; under
//! CI → failure.

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn official_python_sdk_client_lists_and_calls_tools() {
    const TEST: &str = "official_python_sdk_client_lists_and_calls_tools";
    let Some(python) = support::require_binary(TEST, "python3") else { return };
    let probe = Command::new(&python).args(["-c", "import mcp.client.stdio, mcp.types"]).output().expect("run python3");
    if !probe.status.success() {
        support::skip_or_fail(
            TEST,
            &format!("python3 cannot import the MCP SDK (pip install mcp): {}", String::from_utf8_lossy(&probe.stderr)),
        );
        return;
    }
    let workspace = support::workspace_with(&[("hello.txt", "hello from the workspace\n")]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_client.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_runbound"))
        .arg(workspace.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the SDK client");
    let start = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("collect output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "SDK client failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}", output.status);
    for step in [
        "ok initialize protocol=2025-06-18",
        "ok list_tools",
        "ok call_tool read\n",
        "ok call_tool read on a missing file -> isError",
        "ok call_tool write allowed through elicitation",
        "ok call_tool write declined through elicitation -> isError",
        "ok session closed",
    ] {
        assert!(stdout.contains(step), "missing step {step:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    }
}
