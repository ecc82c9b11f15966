//! Shared helpers for integration tests: finding real tools (skip loudly locally, fail under
//! CI), counting this process's threads and descendant processes, temp workspaces.
//!
//! Include with `mod support;` at the top of a test file (each test binary compiles its own copy;
//! unused helpers are allowed).
#![allow(dead_code)]

pub mod bridge_tools;

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
