//! The Ray worker backend (issue 17 §2) against a real local Ray head: `ray start --head
//! --block` from `.tools/ray` (PyPI `ray[default]`, installed by `.ci/install`) on 127.0.0.1
//! with free ports and its own temp dir, in its own process group, killed and reaped when the
//! test ends. Jobs go through Ray's Jobs REST API on the dashboard (runbound's blocking `ureq`
//! client); the worker's working directory is uploaded as a package exactly as `ray job submit
//! --working-dir` does.
//!
//! One head serves the phases of one test, in order (a head takes ~20 s to start on this
//! machine): spawn/wait/list, a failing job, a diff returned and accepted, send, kill, the ask
//! relay (a `runbound` inside a job asks the parent run's human: cards through the job's log,
//! answers through the cluster's key-value store), and last the cluster stopped under a running
//! worker (→ `lost`).

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use runbound::vibe::{RayBackend, RayConfig, VibeConfig, VibeSetup, WorkerBackend, WorkerTier};
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

/// The `ray` CLI of `.tools/ray` (or `ray` on PATH).
fn ray_binary(test_name: &str) -> Option<PathBuf> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/ray/bin/ray");
    if tools.is_file() {
        return Some(tools);
    }
    support::require_binary(test_name, "ray")
}

/// `count` distinct free ports: every listener is held until all are chosen, since a port
/// released at once can be handed out again by the next bind (CI failure of 2026-12-03: Ray
/// refused to start, "Ray component … is trying to use a port number … that is used by other
/// components").
fn free_ports<const COUNT: usize>() -> [u16; COUNT] {
    let listeners: Vec<std::net::TcpListener> = (0..COUNT).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    std::array::from_fn(|index| listeners[index].local_addr().unwrap().port())
}

/// A local Ray head in its own process group; dropping it kills the group.
struct RayHead {
    process: Option<support::TestProcess>,
    address: String,
    _temp: tempfile::TempDir,
}

impl RayHead {
    fn start(ray: &Path) -> RayHead {
        // Ray's socket paths must stay short: a temp dir right under /tmp.
        let temp = tempfile::Builder::new().prefix("rbray").tempdir_in("/tmp").unwrap();
        let [dashboard_port, gcs_port, client_server_port, agent_listen_port, agent_grpc_port, metrics_export_port, runtime_env_port, node_manager_port, object_manager_port] =
            free_ports::<9>();
        let bin = ray.parent().unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        let ports = [
            ("--port", gcs_port),
            ("--dashboard-port", dashboard_port),
            ("--ray-client-server-port", client_server_port),
            ("--dashboard-agent-listen-port", agent_listen_port),
            ("--dashboard-agent-grpc-port", agent_grpc_port),
            ("--metrics-export-port", metrics_export_port),
            ("--runtime-env-agent-port", runtime_env_port),
            ("--node-manager-port", node_manager_port),
            ("--object-manager-port", object_manager_port),
        ];
        // Below the kernel's ephemeral range (32768–60999 by default), where `free_ports` finds
        // the other ports: Ray refuses a worker range that overlaps a port it was given.
        let worker_base = 10000 + (std::process::id() % 1000) as u16 * 20;
        let mut args: Vec<String> =
            ["start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--dashboard-host", "127.0.0.1"].map(String::from).to_vec();
        args.extend(["--include-dashboard", "true", "--num-cpus", "4", "--disable-usage-stats"].map(String::from));
        args.extend(["--temp-dir".to_owned(), temp.path().display().to_string()]);
        args.extend([
            "--min-worker-port".to_owned(),
            worker_base.to_string(),
            "--max-worker-port".to_owned(),
            (worker_base + 400).to_string(),
        ]);
        for (flag, port) in ports {
            args.extend([flag.to_owned(), port.to_string()]);
        }
        let process =
            support::TestProcess::spawn(ray, &args, temp.path(), &[("PATH", path), ("RAY_USAGE_STATS_ENABLED", "0".to_owned())], false);
        let address = format!("http://127.0.0.1:{dashboard_port}");
        let probe = RayBackend::new(RayConfig::new(address.clone())).unwrap();
        let up =
            support::wait_until(Duration::from_secs(120), || probe.probe().is_ok() && ureq_get(&format!("{address}/api/jobs/")).is_some());
        assert!(up, "the Ray head did not answer on {address} within 120 s; stderr: {}", process.stderr_tail());
        RayHead { process: Some(process), address, _temp: temp }
    }

    /// Kills the head's process group now (the cluster becomes unreachable).
    fn stop(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.kill_group_with_grace(Duration::from_secs(5));
        }
    }
}

impl Drop for RayHead {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Body of a GET, or `None` (the dashboard's job module answers after the head's API).
fn ureq_get(url: &str) -> Option<String> {
    let output = std::process::Command::new("curl").args(["-sf", "-m", "5", url]).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

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

/// What Ray's Jobs API says about the (only) job of `worker_id` (by the metadata runbound sets).
fn ray_job_status(address: &str, worker_id: &str) -> Option<String> {
    let jobs: Value = serde_json::from_str(&ureq_get(&format!("{address}/api/jobs/"))?).ok()?;
    let mine: Vec<&Value> = jobs.as_array()?.iter().filter(|job| job["metadata"]["runbound_worker_id"] == worker_id).collect();
    assert!(mine.len() <= 1, "one job per attempt: {mine:?}");
    mine.first().and_then(|job| job["status"].as_str()).map(str::to_owned)
}

fn structured(result: &ToolResult) -> &Value {
    result.structured_content.as_ref().expect("structured content")
}

fn call_ok(run: &Run, tool: &str, arguments: Value) -> ToolResult {
    let result = run.call(Caller::Main, tool, arguments.clone());
    assert!(!result.is_error, "{tool}({arguments}) failed: {}", result.joined_text());
    result
}

fn spawn(run: &Run, brief: &str, label: &str) -> String {
    let result = call_ok(run, "vibe_spawn", json!({"brief": brief, "label": label, "tier": "good"}));
    structured(&result)["worker_id"].as_str().unwrap().to_owned()
}

fn wait(run: &Run, worker_id: &str, seconds: f64) -> ToolResult {
    call_ok(run, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": seconds}))
}

fn status_of(run: &Run, worker_id: &str) -> String {
    let listed = call_ok(run, "vibe_list", json!({}));
    structured(&listed)["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|worker| worker["worker_id"] == worker_id)
        .map(|worker| worker["status"].as_str().unwrap().to_owned())
        .unwrap()
}

#[test]
fn ray_backend_spawn_wait_list_fail_diff_accept_send_kill_and_cluster_loss() {
    let test_name = "vibe_ray::ray_backend_spawn_wait_list_fail_diff_accept_send_kill_and_cluster_loss";
    let Some(ray) = ray_binary(test_name) else {
        return;
    };
    if support::require_binary(test_name, "git").is_none() || support::require_binary(test_name, "curl").is_none() {
        return;
    }
    let head_started = Instant::now();
    let mut head = RayHead::start(&ray);
    eprintln!("vibe_ray: Ray head up on {} after {:.1} s", head.address, head_started.elapsed().as_secs_f64());

    // The workspace is a git repository; the worker script is part of it (a cluster runs what
    // the working directory package carries).
    let workspace = support::workspace_with(&[("a.txt", "alpha\n"), ("b.txt", "bravo\n")]);
    let root = workspace.path().canonicalize().unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vibe/edit_worker.sh"), root.join("edit_worker.sh")).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    std::fs::write(root.join("a.txt"), "alpha\nuncommitted\n").unwrap();

    let mut config = RayConfig::new(head.address.clone()).with_command(WorkerTier::Good, "sh edit_worker.sh");
    config.poll_interval = Duration::from_millis(200);
    config.unreachable_after = Duration::from_secs(5);
    config.stop_timeout = Duration::from_secs(30);
    let backend = Arc::new(RayBackend::new(config).unwrap());
    let status_lines = backend.status_lines();
    assert!(status_lines.iter().any(|line| line.starts_with("reachable: yes (Ray 2.")), "{status_lines:?}");
    let run = Run::builder(&root)
        .config(RunConfig { vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() }, ..RunConfig::default() })
        .with_structural()
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .vibe_roster(VibeSetup::new(backend))
        .build()
        .unwrap();

    // 1. spawn / list / wait: a remote worker is isolated by default, its change staged.
    let phase = Instant::now();
    let worker = spawn(&run, "append=a.txt:from ray\ncreate=c.txt:made on the cluster\ndelete=b.txt", "ray edit");
    let listed = call_ok(&run, "vibe_list", json!({}));
    assert!(listed.joined_text().contains("backend ray http://127.0.0.1:"), "{}", listed.joined_text());
    let done = wait(&run, &worker, 120.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    assert_eq!(structured(&done)["isolation"], "worktree", "{text}");
    assert!(text.contains("saw a.txt: alpha|uncommitted|"), "the job saw HEAD plus the uncommitted change: {text}");
    assert!(text.contains("attempt 1 edited"), "{text}");
    let edit_id = structured(&done)["change"]["edit_id"].as_str().unwrap_or_else(|| panic!("no edit: {text}")).to_owned();
    assert_eq!(structured(&done)["change"]["files"], 3, "{text}");
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "alpha\nuncommitted\n", "nothing written before accept");
    let accepted = call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(accepted.joined_text().contains("b.txt (deleted)"), "{}", accepted.joined_text());
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "alpha\nuncommitted\nfrom ray\n");
    assert_eq!(std::fs::read_to_string(root.join("c.txt")).unwrap(), "made on the cluster\n");
    assert!(!root.join("b.txt").exists());
    eprintln!("vibe_ray: spawn→completed→accepted in {:.1} s", phase.elapsed().as_secs_f64());

    // 2. a job that fails: exit status and stderr tail reach the model.
    let failing = spawn(&run, "mode=fail", "fails on ray");
    let failed = wait(&run, &failing, 120.0);
    assert_eq!(structured(&failed)["status"], "failed", "{}", failed.joined_text());
    assert!(failed.joined_text().contains("edit failed on purpose"), "{}", failed.joined_text());

    // 3. send: a new job as the next attempt.
    let sent = call_ok(&run, "vibe_send", json!({"worker_id": failing, "message": "mode=ok\ncreate=d.txt:second attempt"}));
    assert!(sent.joined_text().contains("attempt 2"), "{}", sent.joined_text());
    let second = wait(&run, &failing, 120.0);
    assert_eq!(structured(&second)["status"], "completed", "{}", second.joined_text());
    assert_eq!(structured(&second)["attempt"], 2);
    assert!(second.joined_text().contains("attempt 2 edited"), "{}", second.joined_text());

    // 4. kill: the roster says killed only after Ray reports the job stopped.
    let long = spawn(&run, "sleep=300", "long on ray");
    assert!(support::wait_until(Duration::from_secs(60), || status_of(&run, &long) == "running"));
    std::thread::sleep(Duration::from_secs(3));
    let killed = call_ok(&run, "vibe_kill", json!({"worker_id": long}));
    let killed_text = killed.joined_text();
    assert!(support::wait_until(Duration::from_secs(40), || status_of(&run, &long) == "killed"), "{killed_text}");
    let final_state = wait(&run, &long, 1.0);
    assert!(final_state.joined_text().contains("STOPPED"), "the note carries Ray's confirmation: {}", final_state.joined_text());
    assert_eq!(ray_job_status(&head.address, &long).as_deref(), Some("STOPPED"), "Ray's own view when the roster says killed");
    assert!(final_state.joined_text().contains("attempt 1") && killed_text.contains(&long), "{killed_text}");

    // 5. a nested runbound inside a Ray job asks the parent's human (§3), and without a human
    // fails closed.
    ask_relay_through_ray(&head);

    // 6. the cluster stops under a running worker: lost, with the reason.
    let orphan = spawn(&run, "sleep=300", "cluster dies");
    // Running on the cluster (Ray says RUNNING), not still being uploaded: an upload that fails
    // is a plain failure, since nothing runs remotely yet.
    let running_on_ray = || ray_job_status(&head.address, &orphan).as_deref() == Some("RUNNING");
    assert!(support::wait_until(Duration::from_secs(60), running_on_ray), "the job never ran on Ray");
    head.stop();
    let lost = wait(&run, &orphan, 60.0);
    assert_eq!(structured(&lost)["status"], "lost", "{}", lost.joined_text());
    assert!(lost.joined_text().contains("has not answered"), "{}", lost.joined_text());
    drop(run);
    assert_eq!(git(&root, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1, "every worktree removed");
}

/// Phase 5: the same asking worker as `vibe_ask`'s command-backend test, as a Ray job. The nested
/// `runbound` finds the job wrapper's local ask channel; the wrapper frames each card in the
/// job's log, the parent reads it from the Jobs API, shows it labelled with the worker, and the
/// answer goes back through the cluster's key-value store. Answered, denied and timed-out
/// outcomes arrive typed; the approved write comes back as the job's staged change. Then a
/// parent without a human: the job gets no channel and the nested `runbound` fails closed at
/// once.
fn ask_relay_through_ray(head: &RayHead) {
    use crate::vibe_ask::{asking_worker_command, play_the_human, print_relay_timings, quoted, HumanAtTheParent};
    use runbound::ask::AskConfig;

    let workspace = support::workspace_with(&[("README.md", "parent workspace\n")]);
    let root = workspace.path().canonicalize().unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let mut config = RayConfig::new(head.address.clone()).with_command(WorkerTier::Good, asking_worker_command());
    config.poll_interval = Duration::from_millis(200);
    let (cards_tx, cards) = crossbeam_channel::unbounded();
    let (answer, answers) = crossbeam_channel::unbounded();
    let run = Run::builder(&root)
        .config(RunConfig {
            vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() },
            ask: AskConfig { permission_timeout: Duration::from_secs(4), ..AskConfig::default() },
            ..RunConfig::default()
        })
        .with_structural()
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .ask_port(Arc::new(HumanAtTheParent { cards: cards_tx, answers }), "parent-terminal")
        .vibe_roster(VibeSetup::new(Arc::new(RayBackend::new(config).unwrap())))
        .build()
        .unwrap();
    let phase = Instant::now();
    let worker = spawn(&run, "ask the human", "ray asker");
    let (_, timings) = play_the_human(&run, &worker, "ray asker", &cards, &answer, "parent-terminal");
    print_relay_timings("ray backend", &timings);
    eprintln!("vibe_ray: ask relay scenario in {:.1} s", phase.elapsed().as_secs_f64());
    // The same scenario on the command backend in this run, for the ratio (printed, never
    // asserted).
    let local_timings = {
        let local = support::workspace_with(&[("README.md", "parent workspace\n")]);
        let (cards_tx, cards) = crossbeam_channel::unbounded();
        let (answer, answers) = crossbeam_channel::unbounded();
        let backend = runbound::vibe::CommandBackend::new().with_command(WorkerTier::Good, asking_worker_command());
        let local_run = Run::builder(local.path())
            .config(RunConfig {
                vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() },
                ask: AskConfig { permission_timeout: Duration::from_secs(4), ..AskConfig::default() },
                ..RunConfig::default()
            })
            .ask_port(Arc::new(HumanAtTheParent { cards: cards_tx, answers }), "parent-terminal")
            .vibe_roster(VibeSetup::new(Arc::new(backend)))
            .build()
            .unwrap();
        let local_worker = spawn(&local_run, "ask the human", "local asker");
        play_the_human(&local_run, &local_worker, "local asker", &cards, &answer, "parent-terminal").1
    };
    print_relay_timings("command backend, same run", &local_timings);
    let median = |values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    eprintln!(
        "TIMING vibe ask relay ratio ray/command (one run): card {:.2}, answer {:.2}",
        median(&timings.card_ms) / median(&local_timings.card_ms),
        median(&timings.answer_ms) / median(&local_timings.answer_ms)
    );
    // Only the approved write came back, staged; accepting it writes it.
    let done = wait(&run, &worker, 1.0);
    let change = &structured(&done)["change"];
    assert_eq!(change["files"], 1, "{}", done.joined_text());
    let edit_id = change["edit_id"].as_str().unwrap().to_owned();
    let accepted = call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(accepted.joined_text().contains("approved.txt"), "{}", accepted.joined_text());
    assert_eq!(std::fs::read_to_string(root.join("approved.txt")).unwrap(), "approved.txt written by the worker\n");
    assert!(!root.join("denied.txt").exists() && !root.join("unanswered.txt").exists());
    drop(run);

    // No human at the parent: no channel in the job, the nested write is denied at once. The
    // parent is restricted: the job's runbound is too (RUNBOUND_WORKER_WORKSPACE_TRUST in the
    // job's runtime environment).
    let command = format!(
        "{bin} --workspace \"$RUNBOUND_WORKSPACE\" --approve ask call write {args}; echo \"=== exit $?\"; \
         echo \"channel=${{RUNBOUND_ASK_CHANNEL:-none}}\"; {bin} --workspace \"$RUNBOUND_WORKSPACE\" status | grep '^ *trust '",
        bin = quoted(env!("CARGO_BIN_EXE_runbound")),
        args = quoted(&json!({"path": "nobody.txt", "content": "x\n"}).to_string())
    );
    let config = RayConfig::new(head.address.clone()).with_command(WorkerTier::Good, command);
    let run = Run::builder(&root)
        .config(RunConfig { vibe: VibeConfig { wait_min: Duration::from_millis(100), ..VibeConfig::default() }, ..RunConfig::default() })
        .workspace_trust(runbound::WorkspaceTrust::Restricted)
        .vibe_roster(VibeSetup::new(Arc::new(RayBackend::new(config).unwrap())))
        .build()
        .unwrap();
    let worker = spawn(&run, "write without a human", "ray no human");
    let started = Instant::now();
    let done = wait(&run, &worker, 120.0);
    let text = done.joined_text();
    assert_eq!(structured(&done)["status"], "completed", "{text}");
    assert!(text.contains("channel=none"), "no channel without a human at the parent: {text}");
    assert!(text.contains("approval_denied") && text.contains("=== exit 1"), "{text}");
    assert!(structured(&done)["change"]["edit_id"].is_null(), "nothing written, nothing staged: {text}");
    assert!(
        text.contains(
            "trust         restricted (capped at restricted by RUNBOUND_WORKER_WORKSPACE_TRUST=restricted in this process's environment"
        ),
        "a restricted run's Ray worker drives a restricted runbound: {text}"
    );
    assert!(started.elapsed() < Duration::from_secs(60), "failed closed at once, not after a prompt's timeout: {:?}", started.elapsed());
}
