// The generic test helpers, one copy compiled into both test binaries: `include!`d by
// `tests/it/support/mod.rs` (the integration tests) and by `src/test_support.rs` (the library's
// unit tests, where `runbound::` names the crate itself). No inner attributes or `//!` here.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// True when running under CI (`CI` set to anything but `0`/`false`/empty).
pub fn in_ci() -> bool {
    match std::env::var("CI") {
        Ok(value) => !(value.is_empty() || value == "0" || value.eq_ignore_ascii_case("false")),
        Err(_) => false,
    }
}

/// Finds `name` on PATH. When missing: under CI, panics (the test fails); locally, prints a
/// loud SKIP line naming the test and returns `None` so the test can return early.
pub fn require_binary(test_name: &str, name: &str) -> Option<PathBuf> {
    match which::which(name) {
        Ok(path) => Some(path),
        Err(_) => {
            skip_or_fail(test_name, &format!("{name} not found on PATH (installed by .ci/install)"));
            None
        }
    }
}

/// Under CI panics with `reason`; locally writes `SKIP <test>: <reason>` straight to the stderr
/// file descriptor, past the test harness's output capture (which hides `eprintln!` of passing
/// tests), so a skip shows in a plain `cargo test`.
pub fn skip_or_fail(test_name: &str, reason: &str) {
    if in_ci() {
        panic!("{test_name}: required tool missing under CI: {reason}");
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "\n*** SKIP {test_name}: {reason} ***\n");
}

/// Runs the calling test alone: in the parent test process, starts this test binary again with
/// only `full_test_name` selected (`--exact`), waits for it (at most 15 minutes), fails when it
/// failed, passes its SKIP lines on, and returns `false` (the caller returns at once); in that
/// child, returns `true` (the caller runs its body).
///
/// For tests that read or change process-wide state: the thread count, every descendant
/// process, resource limits. The suite is one binary, so other tests run in the same process
/// in parallel. `full_test_name` is the path the harness prints, e.g. `run_drop::dropping_…`.
pub fn alone(full_test_name: &str) -> bool {
    const MARK: &str = "RUNBOUND_TEST_ALONE";
    if std::env::var(MARK).is_ok_and(|name| name == full_test_name) {
        return true;
    }
    let mut child = std::process::Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([full_test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(MARK, full_test_name)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the test binary again for a test that must run alone");
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let read_all = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let (stdout, stderr) = (read_all(Box::new(stdout)), read_all(Box::new(stderr)));
    let limit = Instant::now() + Duration::from_secs(15 * 60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the test child") {
            break status;
        }
        if Instant::now() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{full_test_name}: running alone took over 15 minutes; killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    assert!(status.success(), "{full_test_name} (run alone) failed: {status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    assert!(stdout.contains("1 passed"), "{full_test_name} (run alone) did not run exactly that test:\n{stdout}");
    for line in stderr.lines().filter(|line| line.contains("*** SKIP ")) {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "\n{line}\n");
    }
    false
}

/// Number of threads of this process (from /proc/self/task).
pub fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map(|dir| dir.count()).unwrap_or(0)
}

/// Pids of every live (non-zombie) descendant of this test process (parents before children),
/// from the library's /proc lookup.
pub fn descendant_pids() -> Vec<u32> {
    runbound::processes::descendant_pids(std::process::id())
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if condition() {
            return true;
        }
        if start.elapsed() >= timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A temporary workspace directory with files written from `(relative path, content)` pairs.
pub fn workspace_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("create temp workspace");
    for (relative, content) in files {
        let path = dir.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::fs::write(&path, content).expect("write fixture file");
    }
    dir
}

/// Copies the committed fixture directory `tests/data/<name>` into a fresh temp dir (so tests
/// can modify it) and returns the temp dir.
pub fn copy_fixture(name: &str) -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    let dir = tempfile::tempdir().expect("create temp dir");
    copy_dir(&source, dir.path());
    dir
}

fn copy_dir(source: &Path, target: &Path) {
    std::fs::create_dir_all(target).expect("create dir");
    for entry in std::fs::read_dir(source).unwrap_or_else(|err| panic!("read fixture {}: {err}", source.display())) {
        let entry = entry.expect("dir entry");
        let path = entry.path();
        let destination = target.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&path, &destination);
        } else {
            std::fs::copy(&path, &destination).expect("copy fixture file");
        }
    }
}

/// A run over `workspace` with language servers wired, write and exec tools allowed without
/// asking, and 20 s for diagnostics on write (cold servers on a loaded 2-core machine).
pub fn lsp_run_allowing_writes(workspace: &Path) -> runbound::Run {
    let mut config = runbound::RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_secs(20);
    lsp_run_allowing_writes_with_config(workspace, config)
}

/// A run over `workspace` with `config`, language servers wired, write and exec tools allowed
/// without asking.
pub fn lsp_run_allowing_writes_with_config(workspace: &Path, config: runbound::RunConfig) -> runbound::Run {
    runbound::Run::builder(workspace)
        .config(config)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .build()
        .expect("build run")
}

/// [`lsp_run_allowing_writes`] with room for a fresh server on a loaded machine: a write's
/// check may wait for the server's loading and first check (rust-analyzer scanning the sysroot
/// and running its first `cargo check`: more than a 30 s call on a loaded 2-core CI machine,
/// answered honestly as "diagnostics unavailable"). For tests that assert what a write reports,
/// not how fast: `write`/`edit` get 300 s, the check budgets 120 s / 240 s, navigation's
/// indexing wait 180 s (the corpus tests' settings, see `corpus::tools_run`).
pub fn lsp_run_allowing_writes_with_room(workspace: &Path) -> runbound::Run {
    lsp_run_allowing_writes_with_config(workspace, config_with_room())
}

/// The configuration of [`lsp_run_allowing_writes_with_room`], for a test that builds its run
/// itself (with structural tools, another tool's timeout).
pub fn config_with_room() -> runbound::RunConfig {
    let mut config = runbound::RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_secs(120);
    config.lsp.write_diagnostics_check_budget = Duration::from_secs(240);
    config.lsp.indexing_wait = Duration::from_secs(180);
    for tool in ["write", "edit"] {
        config.tool_timeouts.insert(tool.to_owned(), Duration::from_secs(300));
    }
    config
}

/// Whether lldb's DAP adapter (`lldb-dap`, `lldb-dap-NN`, an LLVM tree's, the legacy
/// `lldb-vscode`) is found the way the `debug` tool finds it: the `lldb` row of a run's debug
/// adapters report names a binary (an empty workspace: the binary is resolved with or without a
/// root marker).
pub fn lldb_dap_found() -> bool {
    let workspace = tempfile::tempdir().expect("create temp workspace");
    let run = runbound::Run::builder(workspace.path()).build().expect("build run");
    let (_, rows) = runbound::status::debug_adapters_report(&run);
    rows.as_array().into_iter().flatten().any(|row| row["adapter"] == "lldb" && !row["binary"].is_null())
}

/// A helper program a test starts itself (a program to attach to, a Ray head): in its own
/// process group, stdin closed, stdout piped (or, unpiped, into the stderr file), stderr to a
/// temp file; on drop its whole group is sent SIGTERM, then SIGKILL after a grace, and it is
/// reaped.
pub struct TestProcess {
    child: std::process::Child,
    stderr_path: PathBuf,
    _stderr_dir: tempfile::TempDir,
}

impl TestProcess {
    /// Starts `program` with `args` in `cwd`, with `env` added to the test's environment; stdout
    /// is piped when `pipe_stdout`, else it goes to the stderr file (nobody has to drain it).
    pub fn spawn(program: &Path, args: &[String], cwd: &Path, env: &[(&str, String)], pipe_stdout: bool) -> TestProcess {
        use std::os::unix::process::CommandExt as _;
        let stderr_dir = tempfile::tempdir().expect("create temp dir");
        let stderr_path = stderr_dir.path().join("stderr");
        let stderr = std::fs::File::create(&stderr_path).expect("create stderr file");
        let child = std::process::Command::new(program)
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(key, value)| (*key, value.as_str())))
            .stdin(std::process::Stdio::null())
            .stdout(if pipe_stdout {
                std::process::Stdio::piped()
            } else {
                std::process::Stdio::from(stderr.try_clone().expect("share the stderr file"))
            })
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|err| panic!("start {}: {err}", program.display()));
        TestProcess { child, stderr_path, _stderr_dir: stderr_dir }
    }

    /// The process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The piped stdout, once.
    pub fn take_stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.child.stdout.take()
    }

    /// Waits up to `timeout` for the process to exit; its status, or `None` when it still runs.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the test process") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last 4 KiB of its stderr.
    pub fn stderr_tail(&self) -> String {
        let text = std::fs::read(&self.stderr_path).unwrap_or_default();
        String::from_utf8_lossy(&text[text.len().saturating_sub(4096)..]).into_owned()
    }

    /// Running or exited (with the status), and the stderr tail, for an assertion message.
    pub fn describe_state(&mut self) -> String {
        let state = match self.child.try_wait() {
            Ok(Some(status)) => format!("exited: {status}"),
            Ok(None) => "running".to_owned(),
            Err(err) => format!("state unknown: {err}"),
        };
        format!("pid {} {state}; stderr: {}", self.pid(), self.stderr_tail())
    }

    /// SIGTERM to the whole group, SIGKILL after `grace` if the leader still runs, then reaps it.
    pub fn kill_group_with_grace(&mut self, grace: Duration) {
        let group = self.child.id() as libc::pid_t;
        // SAFETY: killpg takes plain integers; the group is this test's own child's.
        unsafe { libc::killpg(group, libc::SIGTERM) };
        if self.wait_timeout(grace).is_none() {
            // SAFETY: as above.
            unsafe { libc::killpg(group, libc::SIGKILL) };
        }
        // Whatever of the group outlived its leader gets SIGKILL too.
        // SAFETY: as above.
        unsafe { libc::killpg(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for TestProcess {
    fn drop(&mut self) {
        self.kill_group_with_grace(Duration::from_secs(5));
    }
}

/// Calls `edit` as the main caller (the call must succeed) and returns the result's text and the
/// first server's block of its `diagnostics_on_write` (`Value::Null` when there is none).
pub fn edit_and_first_server_check(run: &runbound::Run, path: &str, old: &str, new: &str) -> (String, serde_json::Value) {
    let result = run.call(runbound::Caller::Main, "edit", serde_json::json!({"path": path, "old_string": old, "new_string": new}));
    let text = result.joined_text();
    assert!(!result.is_error, "edit {path} failed:\n{text}");
    let server = result.structured_content.as_ref().map(|structured| structured["diagnostics_on_write"]["servers"][0].clone());
    (text, server.unwrap_or(serde_json::Value::Null))
}

/// `tsc --noEmit -p tsconfig.json --pretty false` in `dir` (the real tsc, ground truth of the
/// TypeScript tests): its error lines (`file(line,col): error TS…`).
pub fn tsc_errors(dir: &std::path::Path) -> Vec<String> {
    let output = std::process::Command::new("tsc")
        .args(["--noEmit", "-p", "tsconfig.json", "--pretty", "false"])
        .current_dir(dir)
        .output()
        .expect("run tsc");
    String::from_utf8_lossy(&output.stdout).lines().filter(|line| line.contains("error TS")).map(str::to_owned).collect()
}

/// `file:line: error[code]` of every error [`tsc_errors`] reports in `dir`
/// (`src/scheduler.ts(5,14): error TS2345: …` → `src/scheduler.ts:5: error[2345]`), the shape a
/// diagnostics block lists them in.
pub fn tsc_error_locations(dir: &std::path::Path) -> Vec<String> {
    tsc_errors(dir)
        .iter()
        .map(|line| {
            let (file, rest) = line.split_once('(').expect("tsc line has a position");
            let line_number = rest.split(',').next().expect("tsc line has a line");
            let code = rest.split("error TS").nth(1).and_then(|rest| rest.split(':').next()).expect("tsc line has a code");
            format!("{file}:{line_number}: error[{code}]")
        })
        .collect()
}

/// Asserts that the diagnostics-on-write block of `text` says this write introduced exactly as
/// many errors as tsc reports in `dir` now, naming each ([`tsc_error_locations`]), and that tsc
/// reports some; returns the block for further checks.
pub fn assert_block_names_every_tsc_error<'t>(text: &'t str, dir: &std::path::Path) -> &'t str {
    let errors = tsc_error_locations(dir);
    assert!(!errors.is_empty(), "the write should break the build: tsc is clean\n{text}");
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    let count = if errors.len() == 1 { "1 new error ".to_owned() } else { format!("{} new errors ", errors.len()) };
    assert!(block.contains(&format!("this write introduced {count}")), "tsc: {errors:?}\n{text}");
    for error in &errors {
        assert!(block.contains(error.as_str()), "tsc's {error} not named as new:\n{text}");
    }
    block
}

/// What `python3 -c code` printed in `dir`: its stdout (trimmed), then the last line of its
/// stderr (an exception's name and message), for ground truth checks of Python renames.
pub fn python_prints(dir: &std::path::Path, code: &str) -> String {
    let output = std::process::Command::new("python3").args(["-c", code]).current_dir(dir).output().expect("run python3");
    format!("{}{}", String::from_utf8_lossy(&output.stdout).trim(), String::from_utf8_lossy(&output.stderr).lines().last().unwrap_or(""))
}

/// Calls `tool` as the main caller and returns its text, failing the test when it is an error.
pub fn call_ok(run: &runbound::Run, tool: &str, args: serde_json::Value) -> String {
    let result = run.call(runbound::Caller::Main, tool, args.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "{tool} {args} failed:\n{text}");
    text
}

/// The number `lsp code_actions` gives the action titled `title` in its `listing` (`3. Title
/// [kind] — …`), or `None` when it is not listed.
pub fn code_action_number(listing: &str, title: &str) -> Option<u64> {
    listing
        .lines()
        .find(|line| line.contains(&format!(". {title} [")))
        .and_then(|line| line.split('.').next())
        .and_then(|number| number.trim().parse().ok())
}

/// The Go toolchain's `args` in the module at `dir`, offline (`GOPROXY=off`, `-mod=mod`): the
/// ground truth of the Go tests.
pub fn go_offline(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("go")
        .args(args)
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .unwrap_or_else(|err| panic!("run go {args:?}: {err}"))
}

/// cargo's `args` in the crate at `dir`, with a target directory of its own under `dir`
/// (`target/by-hand`: the test's language server never waits on its lock) and `env` added: the
/// ground truth of the Rust tests.
pub fn cargo_by_hand(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new("cargo")
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target/by-hand"))
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|err| panic!("run cargo {args:?}: {err}"))
}

/// Whether `cargo test --doc` passes in the crate at `dir` (offline, quiet, with a target
/// directory of its own under `dir`, so the test's language server never waits on its lock).
pub fn cargo_doc_tests_pass(dir: &std::path::Path) -> bool {
    std::process::Command::new("cargo")
        .args(["test", "--doc", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target/ground-truth"))
        .output()
        .expect("run cargo test --doc")
        .status
        .success()
}
