//! Lifecycle guarantees of the roster under load (issue 17 §4), on the real command backend:
//! 40 workers spawned at once under a cap of 4, each a real `/bin/sh` running
//! `tests/data/vibe/worker.sh`. Measures `vibe_wait` lateness (how far past its timeout a
//! timed-out wait returned) and samples how many attempts run at once.

use crate::support;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use runbound::vibe::{CommandBackend, VibeConfig, VibeSetup, WorkerTier};
use runbound::{Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

const WORKERS: usize = 40;
const CAP: usize = 4;

fn structured(result: &ToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured content")
}

fn call_ok(run: &Run, tool: &str, arguments: Value) -> ToolResult {
    let result = run.call(Caller::Main, tool, arguments.clone());
    assert!(!result.is_error, "{tool}({arguments}) failed: {}", result.joined_text());
    result
}

#[test]
fn forty_workers_under_a_cap_of_four_all_complete_none_overruns_and_waits_end_on_time() {
    let test_name = "vibe_lifecycle::forty_workers_under_a_cap_of_four_all_complete_none_overruns_and_waits_end_on_time";
    if support::require_binary(test_name, "sh").is_none() || support::require_binary(test_name, "sleep").is_none() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vibe/worker.sh");
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, format!("sh {}", script.display()));
    let workspace = support::workspace_with(&[("README.md", "lifecycle\n")]);
    let config = RunConfig {
        vibe: VibeConfig { wait_min: Duration::from_millis(100), max_running_workers: CAP, ..VibeConfig::default() },
        ..RunConfig::default()
    };
    let run = Run::builder(workspace.path()).config(config).vibe_roster(VibeSetup::new(Arc::new(backend))).build().unwrap();
    let run = &run;

    // A sampler counts attempts running at once through the roster's own backend summary and
    // through vibe_list's statuses.
    let stop_sampling = AtomicBool::new(false);
    let started = Instant::now();
    let (max_running_summary, max_running_listed, samples, spawn_times, lateness) = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let (mut max_summary, mut max_listed, mut samples) = (0usize, 0usize, 0usize);
            while !stop_sampling.load(Ordering::Relaxed) {
                let roster = run.vibe_roster().expect("roster");
                let running: usize = roster.backends(false).iter().map(|backend| backend.running).sum();
                max_summary = max_summary.max(running);
                let listed = call_ok(run, "vibe_list", json!({}));
                let listed_running = structured(&listed)["workers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|worker| worker["status"] == "running" || worker["status"] == "stopping")
                    .count();
                max_listed = max_listed.max(listed_running);
                samples += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            (max_summary, max_listed, samples)
        });
        // All 40 spawned at once, from 40 threads; each then waits with short timeouts until its
        // worker ends, recording how late every timed-out wait returned.
        let handles: Vec<_> = (0..WORKERS)
            .map(|n| {
                scope.spawn(move || {
                    let spawn_started = Instant::now();
                    let spawned = call_ok(
                        run,
                        "vibe_spawn",
                        json!({"brief": format!("job {n}\nsleep=0.4"), "label": format!("job {n}"), "tier": "fast"}),
                    );
                    let spawn_time = spawn_started.elapsed();
                    let worker_id = structured(&spawned)["worker_id"].as_str().unwrap().to_owned();
                    let queued = spawned.joined_text().contains("It is queued");
                    let mut lateness = Vec::new();
                    loop {
                        let timeout = 0.1 + (n % 5) as f64 * 0.05;
                        let call_started = Instant::now();
                        let waited = call_ok(run, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": timeout}));
                        let took = call_started.elapsed().as_secs_f64();
                        if structured(&waited)["timed_out"] == true {
                            lateness.push(took - timeout);
                            continue;
                        }
                        assert_eq!(structured(&waited)["status"], "completed", "{}", waited.joined_text());
                        assert_eq!(structured(&waited)["attempt"], 1);
                        break;
                    }
                    (spawn_time, queued, lateness)
                })
            })
            .collect();
        let results: Vec<(Duration, bool, Vec<f64>)> = handles.into_iter().map(|handle| handle.join().expect("worker thread")).collect();
        stop_sampling.store(true, Ordering::Relaxed);
        let (max_summary, max_listed, samples) = sampler.join().expect("sampler");
        let queued = results.iter().filter(|(_, queued, _)| *queued).count();
        assert!(queued >= WORKERS - CAP - 1, "at most the first {CAP} start at once; {queued} said they were queued");
        let spawn_times: Vec<Duration> = results.iter().map(|(time, _, _)| *time).collect();
        let lateness: Vec<f64> = results.into_iter().flat_map(|(_, _, lateness)| lateness).collect();
        (max_summary, max_listed, samples, spawn_times, lateness)
    });
    let total = started.elapsed();

    assert!(max_running_summary <= CAP, "{max_running_summary} attempts ran at once under a cap of {CAP}");
    assert!(max_running_listed <= CAP, "vibe_list showed {max_running_listed} running under a cap of {CAP}");
    assert!(samples > 5, "the sampler ran ({samples} samples)");
    // Slots free as workers end: everything done, nothing running or queued.
    let roster = run.vibe_roster().unwrap();
    for backend in roster.backends(false) {
        assert_eq!((backend.running, backend.queued), (0, 0), "backend {} still holds slots", backend.name);
    }
    let listed = call_ok(run, "vibe_list", json!({}));
    assert!(listed.joined_text().starts_with(&format!("{WORKERS} workers ({WORKERS} completed)")), "{}", listed.joined_text());
    // The contract: vibe_wait never returns later than its timeout plus 1 s.
    let mut sorted = lateness.clone();
    sorted.sort_by(f64::total_cmp);
    assert!(!sorted.is_empty(), "some waits timed out while workers queued");
    let worst = *sorted.last().unwrap();
    assert!(worst <= 1.0, "a vibe_wait returned {worst:.3} s after its timeout");
    let p99 = sorted[((sorted.len() as f64 * 0.99).ceil() as usize).saturating_sub(1)];
    let p50 = sorted[sorted.len() / 2];
    let slowest_spawn = spawn_times.iter().max().unwrap();
    eprintln!(
        "vibe_lifecycle: {WORKERS} workers, cap {CAP}, 0.4 s each: all completed in {:.2} s (ideal {:.2} s); {} timed-out waits, \
         lateness p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; slowest vibe_spawn {:.1} ms; max running seen {max_running_summary} \
         (roster) / {max_running_listed} (vibe_list) over {samples} samples",
        total.as_secs_f64(),
        (WORKERS / CAP) as f64 * 0.4,
        sorted.len(),
        p50 * 1000.0,
        p99 * 1000.0,
        worst * 1000.0,
        slowest_spawn.as_secs_f64() * 1000.0
    );
}

/// The real-project trial (issue 17 §1, §4): 40 workers, cap 4, every one isolated in its own
/// git worktree of python-dateutil 2.9.0.post0 (from `.ci/install-corpus`, committed into a
/// fresh repository). Worker n reads one of the project's 38 tracked Python files, reports how
/// many `def` lines it has, and appends a review line to it; the last two create new files. The counts
/// are checked against the file read here (ground truth), every change comes back staged, and
/// accepting all 40 writes exactly those lines and nothing else (git diff against the commit).
#[test]
fn forty_isolated_workers_on_python_dateutil_stage_forty_changes_that_all_accept() {
    let test_name = "vibe_lifecycle::forty_isolated_workers_on_python_dateutil_stage_forty_changes_that_all_accept";
    if support::require_binary(test_name, "git").is_none() || support::require_binary(test_name, "sh").is_none() {
        return;
    }
    let Some(project) = support::corpus::project("python-dateutil") else {
        return;
    };
    let root = project.path().canonicalize().unwrap();
    let git = |args: &[&str]| -> String {
        let output = std::process::Command::new("git")
            .args(["-c", "user.name=test", "-c", "user.email=test@invalid", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "python-dateutil 2.9.0.post0"]);
    let mut files: Vec<String> = git(&["ls-files", "*.py"]).lines().map(str::to_owned).filter(|path| !path.starts_with(".venv/")).collect();
    files.sort();
    assert_eq!(files.len(), 38, "python-dateutil 2.9.0.post0 has 38 tracked .py files: {files:?}");
    // The worker: the brief names the file; stdout is the count; the edit is one appended line.
    let command = r#"f="$(sed -n 's/^file=//p')"; if [ -e "$f" ]; then printf '%s defs=%s\n' "$f" "$(grep -cE '^[[:space:]]*def ' "$f")"; printf '# reviewed by %s\n' "$RUNBOUND_WORKER_ID" >> "$f"; else printf 'reviewed: %s\n' "$RUNBOUND_WORKER_ID" > "$f"; echo "$f created"; fi"#;
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, command);
    let config = RunConfig {
        vibe: VibeConfig { wait_min: Duration::from_millis(100), max_running_workers: CAP, ..VibeConfig::default() },
        // The default staged-change caps: 40 workers' changes are held changes (cap 256), so
        // none of them is evicted although 40 > the 16 ordinary pending changes.
        ..RunConfig::default()
    };
    let run = Run::builder(&root)
        .config(config)
        .with_structural()
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .vibe_roster(VibeSetup::new(Arc::new(backend)))
        .build()
        .unwrap();
    let mut targets = files.clone();
    targets.push("REVIEWED.txt".to_owned());
    targets.push("src/dateutil/REVIEWED.txt".to_owned());
    let started = Instant::now();
    let worker_ids: Vec<String> = targets
        .iter()
        .map(|file| {
            let spawned = call_ok(
                &run,
                "vibe_spawn",
                json!({"brief": format!("file={file}"), "label": format!("review {file}"), "tier": "fast", "isolation": "worktree"}),
            );
            structured(&spawned)["worker_id"].as_str().unwrap().to_owned()
        })
        .collect();
    let spawned_in = started.elapsed();
    let mut edits = Vec::new();
    for (worker_id, file) in worker_ids.iter().zip(&targets) {
        let done = call_ok(&run, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 300}));
        let text = done.joined_text();
        assert_eq!(structured(&done)["status"], "completed", "{text}");
        if file.ends_with(".py") {
            let source = std::fs::read_to_string(root.join(file)).unwrap();
            let defs = source.lines().filter(|line| line.trim_start().starts_with("def ")).count();
            assert!(text.contains(&format!("{file} defs={defs}")), "ground truth {defs} defs in {file}: {text}");
        }
        let change = &structured(&done)["change"];
        assert_eq!(change["files"], 1, "{text}");
        assert_eq!(change["lines_added"], 1, "{text}");
        edits.push((change["edit_id"].as_str().unwrap().to_owned(), worker_id.clone(), file.clone()));
    }
    let all_done_in = started.elapsed();
    assert_eq!(git(&["status", "--porcelain", "--untracked-files=all"]), "", "no worker touched the project before accept");
    let accept_started = Instant::now();
    for (edit_id, _, _) in &edits {
        call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    }
    let accepted_in = accept_started.elapsed();
    for (_, worker_id, file) in &edits {
        let content = std::fs::read_to_string(root.join(file)).unwrap();
        let expected_line = if file.ends_with(".py") { format!("# reviewed by {worker_id}\n") } else { format!("reviewed: {worker_id}\n") };
        assert!(content.ends_with(&expected_line), "{file} ends with {expected_line:?}");
    }
    let numstat = git(&["diff", "--numstat"]);
    assert_eq!(numstat.lines().count(), 38, "{numstat}");
    assert_eq!(git(&["ls-files", "--others", "--exclude-standard"]).lines().count(), 2, "the two created files");
    assert!(numstat.lines().all(|line| line.starts_with("1\t0\t")), "one added line per file: {numstat}");
    assert!(
        support::wait_until(Duration::from_secs(30), || git(&["worktree", "list"]).lines().count() == 1),
        "every worktree removed after its edit was accepted: {}",
        git(&["worktree", "list"])
    );
    eprintln!(
        "vibe_lifecycle: python-dateutil, 40 worktree-isolated workers, cap {CAP}: spawned in {:.2} s, all completed and staged in \
         {:.2} s, 40 edits accepted in {:.2} s",
        spawned_in.as_secs_f64(),
        all_done_in.as_secs_f64(),
        accepted_in.as_secs_f64()
    );
}
