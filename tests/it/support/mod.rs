//! Shared helpers for integration tests: finding real tools (skip loudly locally, fail under
//! CI), counting this process's threads and descendant processes, temp workspaces.
//!
//! Every test module reaches these as `crate::support`; the suite is one binary (`tests/it/`).
#![allow(dead_code)]

pub mod bridge_tools;
pub mod corpus;
pub mod serve_process;

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
    runbound::transport::process::descendant_pids(std::process::id())
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
    runbound::Run::builder(workspace)
        .config(config)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .build()
        .expect("build run")
}
