//! `isolation: "worktree"` (issue 17 §1) driven for real: a real git repository, real `git
//! worktree`s made by the roster, the command backend running `tests/data/vibe/edit_worker.sh`
//! in them, and the worker's change coming back through the run's staged-edit store and
//! `resolve`. Every test checks the parent's files byte for byte and what `git worktree list` and
//! `git branch` say afterwards.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use runbound::vibe::{CommandBackend, VibeConfig, VibeSetup, WorkerTier};
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

fn edit_worker_command() -> String {
    format!("sh {}", Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vibe/edit_worker.sh").display())
}

/// Runs git in `dir`, panicking with its stderr on failure; returns stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .args(["-c", "user.name=test", "-c", "user.email=test@invalid", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A git repository with `a.txt` and `b.txt` committed, then `a.txt` changed and `notes.txt`
/// added without committing (the worker must start from both), `.gitignore`d `build/` present.
fn repository(test_name: &str) -> Option<tempfile::TempDir> {
    support::require_binary(test_name, "git")?;
    support::require_binary(test_name, "sh")?;
    let workspace = support::workspace_with(&[
        ("a.txt", "alpha\n"),
        ("b.txt", "bravo\n"),
        (".gitignore", "build/\n"),
        ("build/out.bin", "ignored output\n"),
    ]);
    git(workspace.path(), &["init", "-q"]);
    git(workspace.path(), &["add", "-A"]);
    git(workspace.path(), &["commit", "-q", "-m", "base"]);
    std::fs::write(workspace.path().join("a.txt"), "alpha\nuncommitted line\n").unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "untracked notes\n").unwrap();
    Some(workspace)
}

fn isolated_run(workspace: &Path, config: VibeConfig) -> Run {
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, edit_worker_command());
    Run::builder(workspace)
        .config(RunConfig { vibe: VibeConfig { wait_min: Duration::from_millis(100), ..config }, ..RunConfig::default() })
        .with_structural()
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .vibe_roster(VibeSetup::new(Arc::new(backend)))
        .build()
        .expect("build run")
}

fn call_ok(run: &Run, tool: &str, arguments: Value) -> ToolResult {
    let result = run.call(Caller::Main, tool, arguments.clone());
    assert!(!result.is_error, "{tool}({arguments}) failed: {}", result.joined_text());
    result
}

fn structured(result: &ToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured content")
}

fn spawn_isolated(run: &Run, brief: &str, label: &str) -> (String, ToolResult) {
    let result = call_ok(run, "vibe_spawn", json!({"brief": brief, "label": label, "tier": "fast", "isolation": "worktree"}));
    assert_eq!(structured(&result)["isolation"], "worktree", "{}", result.joined_text());
    (structured(&result)["worker_id"].as_str().unwrap().to_owned(), result)
}

fn wait_done(run: &Run, worker_id: &str) -> ToolResult {
    let result = call_ok(run, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 60}));
    assert_ne!(structured(&result)["status"], "running", "{}", result.joined_text());
    result
}

/// The worktrees git knows for the repository (paths), the main one first.
fn worktree_paths(repository: &Path) -> Vec<PathBuf> {
    git(repository, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect()
}

fn runbound_branches(repository: &Path) -> Vec<String> {
    git(repository, &["branch", "--list", "runbound/*", "--format=%(refname:short)"]).lines().map(str::to_owned).collect()
}

fn read(workspace: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(workspace.join(name)).ok()
}

/// The edit id and the worktree path a finished isolated worker reports.
fn edit_and_worktree(done: &ToolResult) -> (String, PathBuf) {
    let value = structured(done);
    let edit_id = value["change"]["edit_id"].as_str().unwrap_or_else(|| panic!("no edit_id: {}", done.joined_text())).to_owned();
    let worktree = PathBuf::from(value["worktree"].as_str().unwrap_or_else(|| panic!("no worktree: {}", done.joined_text())));
    (edit_id, worktree)
}

#[test]
fn worktree_worker_starts_from_uncommitted_state_and_its_accepted_change_is_written() {
    let Some(workspace) = repository("vibe_worktree::worktree_worker_starts_from_uncommitted_state_and_its_accepted_change_is_written")
    else {
        return;
    };
    let root = workspace.path().canonicalize().unwrap();
    let run = isolated_run(&root, VibeConfig::default());
    let (worker_id, _) = spawn_isolated(&run, "append=a.txt:worker line\ncreate=c.txt:created by worker\ndelete=b.txt", "edit three");
    let done = wait_done(&run, &worker_id);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    // It saw HEAD plus the uncommitted change and the untracked file, not the ignored build/.
    assert!(text.contains("saw a.txt: alpha|uncommitted line|"), "{text}");
    assert!(text.contains("saw notes.txt: untracked notes"), "{text}");
    let (edit_id, worktree) = edit_and_worktree(&done);
    assert!(!worktree.starts_with(&root), "the worktree is private, outside the workspace: {}", worktree.display());
    assert!(text.contains(&format!("call resolve with edit_id \"{edit_id}\"")), "{text}");
    // The diff size: 3 files, +2 lines (a.txt line, c.txt), -1 line (b.txt).
    let change = &structured(&done)["change"];
    assert_eq!(change["files"], 3, "{change}");
    assert_eq!(change["lines_added"], 2, "{change}");
    assert_eq!(change["lines_removed"], 1, "{change}");
    assert!(text.contains("+worker line"), "preview shows the diff: {text}");
    // Nothing reached the parent yet.
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\n"));
    assert_eq!(read(&root, "b.txt").as_deref(), Some("bravo\n"));
    assert_eq!(read(&root, "c.txt"), None);
    // vibe_list shows the edit too.
    let listed = call_ok(&run, "vibe_list", json!({}));
    assert!(listed.joined_text().contains(&edit_id), "{}", listed.joined_text());
    assert_eq!(worktree_paths(&root).len(), 2, "the worker's worktree exists while its edit is pending");

    let accepted = call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(accepted.joined_text().contains("b.txt (deleted)"), "{}", accepted.joined_text());
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\nworker line\n"));
    assert_eq!(read(&root, "b.txt"), None);
    assert_eq!(read(&root, "c.txt").as_deref(), Some("created by worker\n"));
    assert_eq!(read(&root, "notes.txt").as_deref(), Some("untracked notes\n"));
    // Resolving removed the worktree and its branch; the user's index and HEAD are untouched.
    let removed = || !worktree.exists() && worktree_paths(&root).len() == 1 && runbound_branches(&root).is_empty();
    assert!(support::wait_until(Duration::from_secs(10), removed), "worktree {} or its branch kept", worktree.display());
    assert_eq!(git(&root, &["log", "--format=%s"]).trim(), "base", "no commit on the user's branch");
    let status = git(&root, &["status", "--porcelain"]);
    assert!(status.contains(" M a.txt") && status.contains(" D b.txt") && status.contains("?? c.txt"), "{status}");
    let after = call_ok(&run, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 1}));
    assert!(structured(&after)["change"]["state"].as_str().unwrap().starts_with("accepted"), "{}", after.joined_text());
}

#[test]
fn discarded_worker_change_writes_nothing_and_removes_the_worktree() {
    let Some(workspace) = repository("vibe_worktree::discarded_worker_change_writes_nothing_and_removes_the_worktree") else {
        return;
    };
    let root = workspace.path().canonicalize().unwrap();
    let run = isolated_run(&root, VibeConfig::default());
    let (worker_id, _) = spawn_isolated(&run, "append=a.txt:never\ndelete=b.txt", "discard me");
    let done = wait_done(&run, &worker_id);
    let (edit_id, worktree) = edit_and_worktree(&done);
    let discarded = call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "discard"}));
    assert!(discarded.joined_text().contains("nothing was written"), "{}", discarded.joined_text());
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\n"));
    assert_eq!(read(&root, "b.txt").as_deref(), Some("bravo\n"));
    // The removal (worktree, then branch, then temp dir) runs on the resolving thread after the
    // store's lock is released; give it a moment.
    let removed = || !worktree.exists() && worktree_paths(&root).len() == 1 && runbound_branches(&root).is_empty();
    assert!(support::wait_until(Duration::from_secs(10), removed), "worktree {} or its branch kept", worktree.display());
}

#[test]
fn two_isolated_workers_on_one_file_never_clobber_and_the_second_accept_is_rejected() {
    let Some(workspace) = repository("vibe_worktree::two_isolated_workers_on_one_file_never_clobber_and_the_second_accept_is_rejected")
    else {
        return;
    };
    let root = workspace.path().canonicalize().unwrap();
    let run = isolated_run(&root, VibeConfig::default());
    let (first, _) = spawn_isolated(&run, "sleep=0.3\nappend=a.txt:from first", "first");
    let (second, _) = spawn_isolated(&run, "sleep=0.3\nappend=a.txt:from second\ncreate=second.txt:second was here", "second");
    let (first_edit, _) = edit_and_worktree(&wait_done(&run, &first));
    let (second_edit, _) = edit_and_worktree(&wait_done(&run, &second));
    assert_ne!(first_edit, second_edit);
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\n"), "no worker wrote the parent's file");
    call_ok(&run, "resolve", json!({"edit_id": first_edit, "action": "accept"}));
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\nfrom first\n"));
    // The second started from the same base: all-or-nothing, so second.txt is not created either.
    let rejected = run.call(Caller::Main, "resolve", json!({"edit_id": second_edit, "action": "accept"}));
    assert!(rejected.is_error, "{}", rejected.joined_text());
    let text = rejected.joined_text();
    assert!(text.contains("a.txt (modified since staging)"), "{text}");
    assert!(text.contains("vibe_send"), "the hint says how to redo it: {text}");
    assert_eq!(read(&root, "second.txt"), None);
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\nfrom first\n"));
    assert!(support::wait_until(Duration::from_secs(10), || worktree_paths(&root).len() == 1), "{:?}", worktree_paths(&root));
}

#[test]
fn send_withdraws_the_pending_edit_and_the_next_attempt_continues_in_the_same_worktree() {
    let Some(workspace) = repository("vibe_worktree::send_withdraws_the_pending_edit_and_the_next_attempt_continues_in_the_same_worktree")
    else {
        return;
    };
    let root = workspace.path().canonicalize().unwrap();
    let run = isolated_run(&root, VibeConfig::default());
    let (worker_id, _) = spawn_isolated(&run, "append=a.txt:first attempt", "twice");
    let (first_edit, worktree) = edit_and_worktree(&wait_done(&run, &worker_id));
    let sent = call_ok(&run, "vibe_send", json!({"worker_id": worker_id, "message": "append=a.txt:second attempt"}));
    assert_eq!(structured(&sent)["withdrawn_edit"], first_edit.as_str(), "{}", sent.joined_text());
    let done = wait_done(&run, &worker_id);
    let (second_edit, second_worktree) = edit_and_worktree(&done);
    assert_ne!(first_edit, second_edit);
    assert_eq!(worktree, second_worktree, "same worktree");
    let stale = run.call(Caller::Main, "resolve", json!({"edit_id": first_edit, "action": "accept"}));
    assert!(stale.is_error && stale.joined_text().contains("withdrawn"), "{}", stale.joined_text());
    // The whole change of both attempts comes back in the new edit.
    call_ok(&run, "resolve", json!({"edit_id": second_edit, "action": "accept"}));
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\nfirst attempt\nsecond attempt\n"));
}

#[test]
fn ending_the_run_removes_worktrees_of_pending_and_failed_workers() {
    let Some(workspace) = repository("vibe_worktree::ending_the_run_removes_worktrees_of_pending_and_failed_workers") else {
        return;
    };
    let root = workspace.path().canonicalize().unwrap();
    let run = isolated_run(&root, VibeConfig::default());
    let (pending, _) = spawn_isolated(&run, "append=a.txt:pending", "pending edit");
    let (failed, _) = spawn_isolated(&run, "append=a.txt:failed\nmode=fail", "fails");
    let (running, _) = spawn_isolated(&run, "sleep=30\nappend=a.txt:never", "still running");
    let (_, pending_worktree) = edit_and_worktree(&wait_done(&run, &pending));
    let failed_done = wait_done(&run, &failed);
    assert_eq!(structured(&failed_done)["status"], "failed");
    // A failed attempt's change is not staged; it stays in the worktree for vibe_send.
    assert!(structured(&failed_done)["change"]["edit_id"].is_null(), "{}", failed_done.joined_text());
    assert!(failed_done.joined_text().contains("not staged"), "{}", failed_done.joined_text());
    assert!(support::wait_until(Duration::from_secs(20), || worktree_paths(&root).len() == 4), "{:?}", worktree_paths(&root));
    let _ = running;
    drop(run);
    assert_eq!(worktree_paths(&root).len(), 1, "{:?}", worktree_paths(&root));
    assert!(!pending_worktree.exists());
    assert_eq!(runbound_branches(&root), Vec::<String>::new());
    assert_eq!(read(&root, "a.txt").as_deref(), Some("alpha\nuncommitted line\n"));
}

#[test]
fn worktree_isolation_outside_a_git_repository_is_a_clear_error() {
    let test_name = "vibe_worktree::worktree_isolation_outside_a_git_repository_is_a_clear_error";
    if support::require_binary(test_name, "git").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[("a.txt", "alpha\n")]);
    let run = isolated_run(workspace.path(), VibeConfig::default());
    let refused = run.call(Caller::Main, "vibe_spawn", json!({"brief": "x", "label": "x", "tier": "fast", "isolation": "worktree"}));
    assert!(refused.is_error, "{}", refused.joined_text());
    let text = refused.joined_text();
    assert!(text.contains("needs a git repository") && text.contains("git init"), "{text}");
    // Without isolation the worker runs in the workspace as before.
    let plain = call_ok(&run, "vibe_spawn", json!({"brief": "append=a.txt:direct", "label": "plain", "tier": "fast"}));
    let worker_id = structured(&plain)["worker_id"].as_str().unwrap().to_owned();
    let done = wait_done(&run, &worker_id);
    assert_eq!(structured(&done)["status"], "completed", "{}", done.joined_text());
    assert_eq!(read(workspace.path(), "a.txt").as_deref(), Some("alpha\ndirect\n"));
}

/// Issue 13 §1 (decision after the adversarial run): git records a symlink as it finds it, so a
/// workspace directory that is (or was swapped for) a symlink to outside when the base is taken
/// would give the unsandboxed worker a path out of its worktree. Such a base is refused, naming
/// the link and the next step; no worktree or branch is left; a link that stays inside the
/// checkout is fine, and once the outside link is gone the same spawn works.
#[test]
fn a_symlink_leading_out_of_the_workspace_refuses_the_worktree_and_names_it() {
    let test_name = "vibe_worktree::a_symlink_leading_out_of_the_workspace_refuses_the_worktree_and_names_it";
    let Some(workspace) = repository(test_name) else { return };
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("f.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), workspace.path().join("sub")).unwrap();
    std::os::unix::fs::symlink("a.txt", workspace.path().join("inside_link")).unwrap();
    let run = isolated_run(workspace.path(), VibeConfig::default());
    let (worker_id, _) = spawn_isolated(&run, "append=sub/f.txt:through the link", "escape");
    let done = wait_done(&run, &worker_id);
    let text = done.joined_text();
    assert_ne!(structured(&done)["status"], "completed", "{text}");
    assert!(text.contains(&format!("sub -> {}", outside.path().display())), "the link is named: {text}");
    assert!(!text.contains("inside_link"), "a link inside the checkout is not refused: {text}");
    assert!(text.contains("isolation \\\"none\\\"") || text.contains("isolation \"none\""), "the next step is said: {text}");
    assert_eq!(std::fs::read_to_string(outside.path().join("f.txt")).unwrap(), "outside\n");
    assert_eq!(worktree_paths(workspace.path()).len(), 1, "no worktree left");
    assert!(runbound_branches(workspace.path()).is_empty(), "no branch left");
    // The link removed: the same spawn makes its worktree (the inside link stays) and works.
    std::fs::remove_file(workspace.path().join("sub")).unwrap();
    let (worker_id, _) = spawn_isolated(&run, "append=a.txt:isolated", "settled");
    let done = wait_done(&run, &worker_id);
    assert_eq!(structured(&done)["status"], "completed", "{}", done.joined_text());
}
