//! The official MCP SDK clients drive `runbound serve` unmodified: the Python SDK (PyPI `mcp`,
//! `tests/mcp_sdk_client.py`) and the TypeScript SDK (npm `@modelcontextprotocol/sdk` in
//! `.tools/`, `tests/mcp_sdk_client.mjs`) run the same scenario — initialize, list, calls of
//! every tool kind (files, structural search and staged rewrite, eval, debug, ask_user, workers;
//! lsp in the progress tests), elicitation for an `ask` approval and `ask_user`, progress, logging,
//! cancellation, a worker notification — and print the same `ok <step>` lines; these tests
//! provide the workspace, run each script and check every step. Two more tests follow progress
//! (a cold rust-analyzer on a real crate, a 3,000-file search) and log messages through each
//! client (`tests/mcp_sdk_progress_client.py`, `tests/mcp_sdk_progress_client.mjs`).
//!
//! Needs `python3` with the `mcp` package and `node` with the SDK in `.tools/` (`.ci/install`):
//! missing locally → a loud SKIP; under CI → failure.

use crate::support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The lines both scenario scripts print, in order.
const SCENARIO_STEPS: [&str; 14] = [
    "ok initialize protocol=2025-06-18\n",
    "ok list_tools\n",
    "ok call_tool read\n",
    "ok call_tool read on a missing file -> isError\n",
    "ok call_tool write allowed through elicitation\n",
    "ok call_tool write declined through elicitation -> isError\n",
    "ok ask_user answered through elicitation\n",
    "ok ast_grep progress before the response (",
    "ok ast_edit staged, resolve accepted through elicitation\n",
    "ok eval allowed for the run (notice log message)\n",
    "ok eval cancelled; the kernel kept its state\n",
    "ok debug launch progress before the response (",
    "ok worker notification\n",
    "ok session closed\n",
];

/// The scenario's workspace: `hello.txt`, `slow_start.py` (sleeps 2.5 s before its line 4, for
/// the debug launch's progress) and a `tree/` of 300 Python modules with one `print` each.
fn scenario_workspace() -> tempfile::TempDir {
    let workspace = support::workspace_with(&[
        ("hello.txt", "hello from the workspace\n"),
        ("requirements.txt", ""),
        ("slow_start.py", "import time\ntime.sleep(2.5)\nvalue = 41\nprint(value + 1)\n"),
    ]);
    for index in 0..300 {
        let dir = workspace.path().join(format!("tree/pkg_{}", index / 50));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("module_{index}.py")), format!("def f(x):\n    print(x, {index})\n")).unwrap();
    }
    workspace
}

/// Runs `command` (stdin closed) for at most `limit`, then returns its output.
fn run_client(mut command: Command, limit: Duration) -> Output {
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn the SDK client");
    let start = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("collect output")
}

/// Checks that `output` passed every scenario step, in order.
fn check_scenario(client: &str, output: &Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{client} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}", output.status);
    let mut from = 0;
    for step in SCENARIO_STEPS {
        let Some(at) = stdout[from..].find(step) else {
            panic!("{client}: missing step {step:?} (in order)\nstdout:\n{stdout}\nstderr:\n{stderr}");
        };
        from += at + step.len();
    }
}

#[test]
fn official_python_sdk_client_runs_the_scenario() {
    const TEST: &str = "official_python_sdk_client_runs_the_scenario";
    let Some(python) = support::require_binary(TEST, "python3") else { return };
    let probe = Command::new(&python).args(["-c", "import mcp.client.stdio, mcp.types"]).output().expect("run python3");
    if !probe.status.success() {
        support::skip_or_fail(
            TEST,
            &format!("python3 cannot import the MCP SDK (pip install mcp): {}", String::from_utf8_lossy(&probe.stderr)),
        );
        return;
    }
    let workspace = scenario_workspace();
    let mut command = Command::new(&python);
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_client.py"))
        .arg(env!("CARGO_BIN_EXE_runbound"))
        .arg(workspace.path());
    check_scenario("the Python SDK client", &run_client(command, Duration::from_secs(300)));
}

#[test]
fn official_typescript_sdk_client_runs_the_scenario() {
    const TEST: &str = "official_typescript_sdk_client_runs_the_scenario";
    let Some(node) = support::require_binary(TEST, "node") else { return };
    if support::require_binary(TEST, "python3").is_none() {
        return;
    }
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/node_modules/@modelcontextprotocol/sdk");
    if !sdk.join("dist/esm/client/index.js").is_file() {
        support::skip_or_fail(TEST, &format!("the MCP TypeScript SDK is not installed at {} (bash .ci/install)", sdk.display()));
        return;
    }
    let workspace = scenario_workspace();
    let mut command = Command::new(&node);
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_client.mjs"))
        .arg(&sdk)
        .arg(env!("CARGO_BIN_EXE_runbound"))
        .arg(workspace.path());
    check_scenario("the TypeScript SDK client", &run_client(command, Duration::from_secs(300)));
}

/// The newest `regex-syntax-0.8.*` in the local cargo registry (a dependency of this crate, so
/// present wherever it was built), copied into a temp dir with cargo set offline: a real crate
/// that rust-analyzer can load without the network.
fn registry_crate_copy(prefix: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))?;
    let mut candidates: Vec<std::path::PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .ok()?
        .flatten()
        .flat_map(|index| std::fs::read_dir(index.path()).into_iter().flatten().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.starts_with(prefix)))
        .collect();
    candidates.sort();
    let source = candidates.pop()?;
    let dir = tempfile::tempdir().ok()?;
    let target = dir.path().join(source.file_name()?);
    let status = Command::new("cp").arg("-r").arg(&source).arg(&target).status().ok()?;
    if !status.success() {
        return None;
    }
    std::fs::create_dir_all(target.join(".cargo")).ok()?;
    std::fs::write(target.join(".cargo/config.toml"), "[net]\noffline = true\n").ok()?;
    Some((dir, target))
}

/// The inputs of the progress scripts: a copy of a real crate (regex-syntax from the cargo
/// registry, for a cold rust-analyzer `definition` of `escape_into` at its call in `escape`),
/// the 1-based lines of that call and of the definition (grep), and a tree of 3,000 Python
/// modules with exactly one `print` call each.
struct ProgressInputs {
    _crate_dir: tempfile::TempDir,
    crate_root: std::path::PathBuf,
    call_line: usize,
    definition_line: usize,
    tree: tempfile::TempDir,
}

fn progress_inputs(test: &str) -> Option<ProgressInputs> {
    let Some((crate_dir, crate_root)) = registry_crate_copy("regex-syntax-0.8.") else {
        support::skip_or_fail(test, "no regex-syntax-0.8.* in the local cargo registry (a dependency of this crate)");
        return None;
    };
    let lib = std::fs::read_to_string(crate_root.join("src/lib.rs")).expect("read regex-syntax's lib.rs");
    let call_line = lib.lines().position(|line| line.trim() == "escape_into(text, &mut quoted);").expect("the call in escape") + 1;
    let definition_line = lib.lines().position(|line| line.starts_with("pub fn escape_into(")).expect("the definition") + 1;

    let tree = tempfile::tempdir().unwrap();
    std::fs::write(tree.path().join("pyproject.toml"), "[project]\nname = \"tree\"\n").unwrap();
    for index in 0..3000 {
        let dir = tree.path().join(format!("pkg_{:02}", index / 100));
        std::fs::create_dir_all(&dir).unwrap();
        let body = format!(
            "\"\"\"Module {index}.\"\"\"\n\nimport os\n\n\ndef function_{index}(value):\n    total = value * {index}\n    if total > 10:\n        print(\"large\", total)\n    return os.path.join(str(total), \"x\")\n"
        );
        std::fs::write(dir.join(format!("module_{index}.py")), body).unwrap();
    }
    Some(ProgressInputs { _crate_dir: crate_dir, crate_root, call_line, definition_line, tree })
}

/// Runs a progress script (`command` with the client's own leading arguments) on `inputs` and
/// checks the steps both scripts print: progress before the response and none after for the
/// `ast_grep` over 3,000 files and the cold `lsp definition`, the warning log message and its
/// muting by `logging/setLevel error`; the search's count and the definition are checked
/// against ground truth (construction, grep).
fn check_progress_client(client: &str, mut command: Command, inputs: &ProgressInputs) {
    command
        .arg(env!("CARGO_BIN_EXE_runbound"))
        .arg(&inputs.crate_root)
        .arg("src/lib.rs")
        .arg(inputs.call_line.to_string())
        .arg("escape_into")
        .arg(inputs.tree.path())
        // rust-analyzer's cargo must not share (and lock) the test build's target directory.
        .env_remove("CARGO_TARGET_DIR");
    let output = run_client(command, Duration::from_secs(900));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{client}:\n{stdout}");
    assert!(output.status.success(), "{client} failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}", output.status);
    for step in
        ["ok ast_grep progress", "ok lsp progress", "ok logging warning", "ok logging/setLevel error mutes warnings", "ok sessions closed"]
    {
        assert!(stdout.contains(step), "{client}: missing step {step:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    }
    // Ground truth by construction: each of the 3,000 modules has exactly one print call.
    assert!(stdout.contains("ast_grep: 3000 matches in 3000 files"), "{client}: the search saw the whole tree:\n{stdout}");
    let expected = format!("src/lib.rs:{}", inputs.definition_line);
    assert!(stdout.contains(&expected), "{client}: the definition of escape_into is {expected} (grep):\n{stdout}");
}

/// Progress and log messages through the official Python SDK client: a cold `lsp definition`
/// on a real crate (regex-syntax, rust-analyzer) and an `ast_grep` over a 3,000-file tree each
/// deliver `notifications/progress` before their response and none after; a write refused for
/// want of a human arrives as a `warning` log message, and `logging/setLevel error` mutes it.
/// The definition is checked against the file itself (grep).
#[test]
fn official_python_sdk_client_sees_progress_and_log_messages() {
    const TEST: &str = "official_python_sdk_client_sees_progress_and_log_messages";
    let Some(python) = support::require_binary(TEST, "python3") else { return };
    if support::require_binary(TEST, "rust-analyzer").is_none() {
        return;
    }
    let probe = Command::new(&python).args(["-c", "import mcp.client.stdio, mcp.types"]).output().expect("run python3");
    if !probe.status.success() {
        support::skip_or_fail(
            TEST,
            &format!("python3 cannot import the MCP SDK (pip install mcp): {}", String::from_utf8_lossy(&probe.stderr)),
        );
        return;
    }
    let Some(inputs) = progress_inputs(TEST) else { return };
    let mut command = Command::new(&python);
    command.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_progress_client.py"));
    check_progress_client("the Python SDK client", command, &inputs);
}

/// The same through the official TypeScript SDK client (`tests/mcp_sdk_progress_client.mjs`):
/// `onprogress` with `resetTimeoutOnProgress`, as a host keeps a long call alive past the SDK's
/// 60 s request timeout; the SDK also validates each result against the listed outputSchema.
#[test]
fn official_typescript_sdk_client_sees_progress_and_log_messages() {
    const TEST: &str = "official_typescript_sdk_client_sees_progress_and_log_messages";
    let Some(node) = support::require_binary(TEST, "node") else { return };
    if support::require_binary(TEST, "rust-analyzer").is_none() {
        return;
    }
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/node_modules/@modelcontextprotocol/sdk");
    if !sdk.join("dist/esm/client/index.js").is_file() {
        support::skip_or_fail(TEST, &format!("the MCP TypeScript SDK is not installed at {} (bash .ci/install)", sdk.display()));
        return;
    }
    let Some(inputs) = progress_inputs(TEST) else { return };
    let mut command = Command::new(&node);
    command.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_progress_client.mjs")).arg(&sdk);
    check_progress_client("the TypeScript SDK client", command, &inputs);
}
