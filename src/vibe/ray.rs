//! `RayBackend`: each attempt runs as a job on an existing Ray cluster, through Ray's Jobs REST
//! API on the cluster's dashboard (the same calls `ray job submit` makes), with a blocking HTTP
//! client (`ureq`; no async runtime).
//!
//! One attempt:
//!
//! 1. The attempt's working directory ([`super::WorkerJob::working_dir`]: the workspace, or
//!    the worker's git worktree) is zipped — the files a `.gitignore`-aware walk finds, `.git`
//!    left out — and uploaded as Ray does for `--working-dir`: `GET
//!    /api/packages/gcs/_ray_pkg_<hash>.zip` (200 = already there), else `PUT` with the zip;
//!    the job's `runtime_env.working_dir` is `gcs://_ray_pkg_<hash>.zip`. The package is
//!    content-addressed, so forty workers on one workspace upload it once.
//! 2. The job wrapper (`ray_job.py`) and the brief go up the same way as a `py_modules`
//!    package (`runbound_ray_job/`); the entrypoint is `python -m runbound_ray_job`, which runs
//!    the tier's command in a private copy of the working directory with the brief on stdin
//!    (see the wrapper's docstring). The `RUNBOUND_WORKER_*` variables go in
//!    `runtime_env.env_vars`.
//! 3. `POST /api/jobs/` submits it (`submission_id` `runbound-<worker>-a<attempt>-<nonce>`,
//!    metadata naming the worker); `GET /api/jobs/<id>` is polled (`PENDING`, `RUNNING`,
//!    `SUCCEEDED`, `FAILED`, `STOPPED`), and `GET /api/jobs/<id>/logs` is read for relayed
//!    cards while it runs and for the result frame when it ends.
//! 4. Stdout of the command is the result. For an isolated attempt the files the job added,
//!    modified or deleted are written back into the worker's worktree (the roster then stages
//!    the worktree's diff); a remote worker cannot write the parent's files at all, so a
//!    non-isolated attempt's changes are only listed.
//!
//! Cancellation (`vibe_kill`, `vibe_send`, run teardown, the attempt deadline) is `POST
//! /api/jobs/<id>/stop`, then polling until Ray reports the job `STOPPED` (or otherwise
//! ended); the attempt returns only then, so the roster shows `stopping` until Ray confirms.
//! A cluster that does not answer for [`RayConfig::unreachable_after`] turns the attempt
//! `lost`, with the reason.
//!
//! Cards from a `runbound` run inside the job (questions and permission prompts) arrive as
//! framed lines in the job's log; each is shown on the parent's ask port labelled with the
//! worker, and the answer goes back through the cluster's key-value store: `PUT
//! /api/packages/gcs/_runbound_answer_<submission>_<card>.zip` with the answer as JSON, which
//! the wrapper reads with Ray's GCS client and deletes. No socket listens anywhere.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use sha2::Digest as _;

use crate::ask::{outcome_to_json, AskOutcome, RelayedCard};

use super::{WorkerBackend, WorkerIsolation, WorkerJob, WorkerTier};
use super::{ENV_WORKER_ATTEMPT, ENV_WORKER_CALLER, ENV_WORKER_ID, ENV_WORKER_LABEL, ENV_WORKER_TIER, ENV_WORKER_WORKSPACE_TRUST};

/// The job wrapper, shipped in the `runbound_ray_job` package.
const JOB_WRAPPER: &str = include_str!("ray_job.py");
/// The Python package name of the wrapper (entrypoint `python -m runbound_ray_job`).
const JOB_PACKAGE: &str = "runbound_ray_job";
/// Most bytes of a job log read at once (the result frame of a large change included).
const LOG_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// Shortest time between two reads of a running job's log for relayed cards (a card waits
/// half of this on average, plus the poll interval, before the parent shows it).
const LOG_READ_INTERVAL: Duration = Duration::from_millis(300);

/// Settings of a [`RayBackend`].
#[derive(Debug, Clone)]
pub struct RayConfig {
    /// The dashboard's address, e.g. `http://127.0.0.1:8265` (what `ray job submit --address`
    /// takes). `https://` needs the `ray-https` cargo feature.
    pub address: String,
    /// The command line per tier, run by `/bin/sh -c` on the cluster.
    pub commands: BTreeMap<WorkerTier, String>,
    /// Most jobs of this backend running at once (default 8).
    pub max_running_jobs: usize,
    /// CPUs reserved for each job's entrypoint (`entrypoint_num_cpus`; default none: Ray
    /// reserves 0).
    pub entrypoint_num_cpus: Option<f64>,
    /// How often a running job's status is polled (default 500 ms).
    pub poll_interval: Duration,
    /// Timeout of one HTTP request (default 10 s; uploads get 10× this).
    pub request_timeout: Duration,
    /// How long the cluster may fail to answer before a running attempt is `lost` (default
    /// 15 s).
    pub unreachable_after: Duration,
    /// How long `vibe_kill` waits for Ray to report a stopped job (default 20 s; Ray itself
    /// sends SIGTERM, then SIGKILL after 3 s).
    pub stop_timeout: Duration,
    /// How long a submission keeps retrying while Ray answers that no job agent is available
    /// (HTTP 500 `No available agent to submit job`: the head's agent is still starting or too
    /// loaded to answer in Ray's own 10 s; nothing was submitted). Default 60 s.
    pub agent_wait: Duration,
    /// Largest working-directory package uploaded (default 100 MiB; Ray's own limit is its
    /// gRPC message size, 512 MiB).
    pub package_max_bytes: u64,
    /// Most stdout bytes of a job kept as its result (default 1 MiB).
    pub stdout_max_bytes: usize,
    /// Most bytes of changed files a job returns (default 64 MiB).
    pub changes_max_bytes: usize,
}

impl RayConfig {
    /// Defaults for a cluster at `address`, with no tier commands yet.
    pub fn new(address: impl Into<String>) -> RayConfig {
        RayConfig {
            address: address.into().trim_end_matches('/').to_owned(),
            commands: BTreeMap::new(),
            max_running_jobs: 8,
            entrypoint_num_cpus: None,
            poll_interval: Duration::from_millis(500),
            request_timeout: Duration::from_secs(10),
            unreachable_after: Duration::from_secs(15),
            stop_timeout: Duration::from_secs(20),
            agent_wait: Duration::from_secs(60),
            package_max_bytes: 100 * 1024 * 1024,
            stdout_max_bytes: 1024 * 1024,
            changes_max_bytes: 64 * 1024 * 1024,
        }
    }

    /// Sets the command line of `tier`.
    #[must_use]
    pub fn with_command(mut self, tier: WorkerTier, command_line: impl Into<String>) -> RayConfig {
        self.commands.insert(tier, command_line.into());
        self
    }

    /// Sets the most jobs of this backend running at once (the cluster's concurrency cap; at
    /// least 1; default 8). Further workers wait as `pending` without submitting anything;
    /// `runbound status` shows the cap (CLI: `--max-running-workers ray=N`).
    #[must_use]
    pub fn with_max_running_jobs(mut self, max_running_jobs: usize) -> RayConfig {
        self.max_running_jobs = max_running_jobs.max(1);
        self
    }
}

/// Runs worker attempts as Ray jobs. See the module docs for the protocol.
pub struct RayBackend {
    config: RayConfig,
    http: Http,
}

impl std::fmt::Debug for RayBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RayBackend").field("address", &self.config.address).field("commands", &self.config.commands).finish()
    }
}

impl RayBackend {
    /// A backend for the cluster `config.address`. Nothing is contacted until a worker runs
    /// (or [`RayBackend::probe`]).
    ///
    /// # Errors
    /// An address that is not `http://host:port` (or `https://` without the `ray-https`
    /// feature).
    pub fn new(config: RayConfig) -> Result<RayBackend, String> {
        let address = &config.address;
        let https = address.starts_with("https://");
        if !(address.starts_with("http://") || https) || address.len() <= "https://".len() {
            return Err(format!("--ray-address {address:?} is not a dashboard URL; give e.g. http://127.0.0.1:8265"));
        }
        if https && !cfg!(feature = "ray-https") {
            return Err(format!(
                "--ray-address {address:?} is https, and this runbound was built without the `ray-https` feature; rebuild with \
                 `--features ray-https`, or reach the dashboard over http (e.g. through `kubectl port-forward`)"
            ));
        }
        let http = Http::new(&config);
        Ok(RayBackend { config, http })
    }

    /// The cluster's address.
    pub fn address(&self) -> &str {
        &self.config.address
    }

    /// The cluster's Ray version (`GET /api/version`), or why it did not answer.
    ///
    /// # Errors
    /// The HTTP or connection failure, for the model.
    pub fn probe(&self) -> Result<String, String> {
        let version = self.http.get_json("/api/version")?;
        Ok(version.get("ray_version").and_then(Value::as_str).unwrap_or("unknown").to_owned())
    }
}

impl WorkerBackend for RayBackend {
    fn run_attempt(&self, job: &WorkerJob<'_>) -> Result<String, String> {
        let Some(command_line) = self.config.commands.get(&job.tier()) else {
            return Err(missing_tier_message(job.tier()));
        };
        RayAttempt { backend: self, job, command_line }.run()
    }

    fn describe_tier(&self, tier: WorkerTier) -> Option<String> {
        Some(match self.config.commands.get(&tier) {
            Some(command_line) => format!(
                "tier {tier} runs `/bin/sh -c {command_line:?}` as a job on the Ray cluster at {}, in a copy of the workspace \
                 (or of its git worktree)",
                self.config.address
            ),
            None => missing_tier_message(tier),
        })
    }

    fn check_tier(&self, tier: WorkerTier) -> Result<(), String> {
        match self.config.commands.contains_key(&tier) {
            true => Ok(()),
            false => Err(missing_tier_message(tier)),
        }
    }

    fn name(&self) -> String {
        format!("ray {}", self.config.address)
    }

    fn max_running_attempts(&self) -> Option<usize> {
        Some(self.config.max_running_jobs.max(1))
    }

    fn stop_confirmation_time(&self) -> Duration {
        self.config.stop_timeout + self.config.poll_interval
    }

    fn default_isolation(&self) -> WorkerIsolation {
        WorkerIsolation::Worktree
    }

    fn status_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("cluster  {} (Ray Jobs REST API)", self.config.address)];
        lines.push(match self.probe() {
            Ok(version) => format!("reachable: yes (Ray {version})"),
            Err(err) => format!("reachable: NO — {err}"),
        });
        lines.push(format!("jobs at once: at most {}", self.config.max_running_jobs));
        lines
    }
}

fn missing_tier_message(tier: WorkerTier) -> String {
    format!("no worker command is configured for tier {tier}; the host must start runbound with --worker {tier}=COMMAND")
}

/// One attempt on the cluster.
struct RayAttempt<'a, 'job> {
    backend: &'a RayBackend,
    job: &'a WorkerJob<'job>,
    command_line: &'a str,
}

/// How the job's poll loop ended.
enum JobEnding {
    Finished { status: String, message: String },
    Cancelled { confirmation: String },
    DeadlinePassed { confirmation: String },
}

impl RayAttempt<'_, '_> {
    fn run(&self) -> Result<String, String> {
        let http = &self.backend.http;
        let config = &self.backend.config;
        let job = self.job;
        job.report_progress(&format!("packaging {} for the Ray cluster", job.working_dir().display()));
        let package = working_dir_package(job.working_dir(), config.package_max_bytes)?;
        let working_dir_uri = http.upload_package_if_missing(&package.bytes)?;
        let module = job_module_package(job.brief())?;
        let module_uri = http.upload_package_if_missing(&module)?;
        let nonce = nonce();
        let submission_id = format!("runbound-{}-a{}-{nonce}", job.worker_id(), job.attempt());
        let relay = job.has_human();
        let return_changes = job.isolation() == WorkerIsolation::Worktree;
        let env_vars = json!({
            ENV_WORKER_ID: job.worker_id(),
            ENV_WORKER_LABEL: job.label(),
            ENV_WORKER_TIER: job.tier().as_str(),
            ENV_WORKER_ATTEMPT: job.attempt().to_string(),
            ENV_WORKER_CALLER: job.caller().as_str(),
            ENV_WORKER_WORKSPACE_TRUST: job.workspace_trust().as_str(),
            "RUNBOUND_RAY_NONCE": nonce,
            "RUNBOUND_RAY_SUBMISSION_ID": submission_id,
            "RUNBOUND_RAY_COMMAND": self.command_line,
            "RUNBOUND_RAY_ASK_RELAY": if relay { "1" } else { "0" },
            "RUNBOUND_RAY_ASK_QUESTIONS": if job.relays_questions() { "1" } else { "0" },
            "RUNBOUND_RAY_RETURN_CHANGES": if return_changes { "1" } else { "0" },
            "RUNBOUND_RAY_WORKER_LABEL": format!("{}: {}", job.worker_id(), job.label()),
            "RUNBOUND_RAY_PARENT_SPACE": job.ask_target_space(),
            "RUNBOUND_RAY_STDOUT_MAX": config.stdout_max_bytes.to_string(),
            "RUNBOUND_RAY_CHANGES_MAX": config.changes_max_bytes.to_string(),
        });
        let mut request = json!({
            "entrypoint": format!("python -m {JOB_PACKAGE}"),
            "submission_id": submission_id,
            "runtime_env": {
                "working_dir": working_dir_uri,
                "py_modules": [module_uri],
                "env_vars": env_vars,
            },
            "metadata": {
                "runbound_worker_id": job.worker_id(),
                "runbound_worker_label": job.label(),
                "runbound_worker_tier": job.tier().as_str(),
                "runbound_worker_attempt": job.attempt().to_string(),
            },
        });
        if let Some(cpus) = config.entrypoint_num_cpus {
            request["entrypoint_num_cpus"] = json!(cpus);
        }
        // Submitting starts the job's supervisor actor on the head before Ray answers: seconds
        // on a loaded machine, so it gets the long (upload) timeout. A submission that still
        // times out may have started the job: it is asked to stop, so no orphan job runs.
        let submit_started = Instant::now();
        let mut refusals = 0;
        loop {
            match http.post_json_slow("/api/jobs/", &request) {
                Ok(_) => break,
                // Ray's job head found no agent to hand the job to within its own wait:
                // nothing was submitted, and Ray says to try again.
                Err(err) if err.contains("No available agent") && submit_started.elapsed() < config.agent_wait && !job.is_cancelled() => {
                    refusals += 1;
                    job.report_progress(&format!(
                        "Ray has no job agent available yet ({refusals} refusal(s) in {:.0} s); submitting {submission_id} again",
                        submit_started.elapsed().as_secs_f64()
                    ));
                    sleep_unless_cancelled(job, Duration::from_secs(1));
                }
                Err(err) => {
                    let _ = http.post_json(&format!("/api/jobs/{submission_id}/stop"), &json!({}));
                    let waited = match refusals {
                        0 => String::new(),
                        n => format!(
                            " (after {n} earlier 'no available agent' answer(s) over {:.0} s; RayConfig::agent_wait is {} s)",
                            submit_started.elapsed().as_secs_f64(),
                            config.agent_wait.as_secs()
                        ),
                    };
                    return Err(format!("Ray did not accept the job: {err}{waited}"));
                }
            }
        }
        job.report_progress(&format!(
            "submitted Ray job {submission_id} ({} files, {} bytes packaged)",
            package.files,
            package.bytes.len()
        ));
        let ending = self.poll(&submission_id, &nonce)?;
        let (status, message) = match ending {
            JobEnding::Cancelled { confirmation } => return Err(format!("cancelled; {confirmation}")),
            JobEnding::DeadlinePassed { confirmation } => {
                return Err(format!("the Ray job {submission_id} ran past the attempt's deadline and was stopped; {confirmation}"))
            }
            JobEnding::Finished { status, message } => (status, message),
        };
        let logs = http.job_logs(&submission_id).map_err(|err| {
            job.mark_lost(&format!("Ray reported job {submission_id} {status}, but its log could not be read: {err}"));
            format!("the log of Ray job {submission_id} could not be read: {err}")
        })?;
        let frame = last_frame(&logs, "result", &nonce);
        self.finish(&submission_id, &status, &message, &logs, frame)
    }

    /// Polls the job until it ends, relaying cards from its log; stops it on cancellation or
    /// at the deadline.
    fn poll(&self, submission_id: &str, nonce: &str) -> Result<JobEnding, String> {
        let http = &self.backend.http;
        let config = &self.backend.config;
        let job = self.job;
        let mut last_answer = Instant::now();
        let mut last_status = String::new();
        let mut relayed = CardRelay::new(submission_id);
        let mut last_log_read = Instant::now() - Duration::from_secs(60);
        loop {
            if job.is_cancelled() {
                let confirmation = self.stop_and_confirm(submission_id);
                return Ok(JobEnding::Cancelled { confirmation });
            }
            if Instant::now() >= job.deadline() {
                let confirmation = self.stop_and_confirm(submission_id);
                return Ok(JobEnding::DeadlinePassed { confirmation });
            }
            match http.get_json(&format!("/api/jobs/{submission_id}")) {
                Ok(details) => {
                    last_answer = Instant::now();
                    let status = details.get("status").and_then(Value::as_str).unwrap_or("UNKNOWN").to_owned();
                    let message = details.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
                    if matches!(status.as_str(), "SUCCEEDED" | "FAILED" | "STOPPED") {
                        relayed.finish();
                        return Ok(JobEnding::Finished { status, message });
                    }
                    if status != last_status {
                        job.report_progress(&format!("Ray job {submission_id} is {status}"));
                        last_status = status;
                    }
                    // Cards wait in the log: read it at every poll (at most ~3 a second).
                    if job.has_human() && last_log_read.elapsed() >= LOG_READ_INTERVAL {
                        last_log_read = Instant::now();
                        if let Ok(logs) = http.job_logs(submission_id) {
                            relayed.relay_new_cards(&logs, nonce, job, http);
                        }
                    }
                }
                Err(err) => {
                    let silent_for = last_answer.elapsed();
                    if silent_for >= config.unreachable_after {
                        relayed.finish();
                        let reason = format!(
                            "the Ray cluster at {} has not answered for {:.0} s while job {submission_id} was {} ({err})",
                            config.address,
                            silent_for.as_secs_f64(),
                            if last_status.is_empty() { "being submitted".to_owned() } else { last_status.clone() }
                        );
                        job.mark_lost(&reason);
                        return Err(reason);
                    }
                }
            }
            sleep_unless_cancelled(job, config.poll_interval);
        }
    }

    /// `POST /api/jobs/<id>/stop`, then polls until Ray reports the job ended; says what Ray
    /// confirmed. Marks the attempt lost when the cluster cannot confirm.
    fn stop_and_confirm(&self, submission_id: &str) -> String {
        let http = &self.backend.http;
        let config = &self.backend.config;
        let started = Instant::now();
        let stop_answer = http.post_json(&format!("/api/jobs/{submission_id}/stop"), &json!({}));
        let deadline = started + config.stop_timeout;
        let stop_error = stop_answer.err();
        let mut last_error: Option<String>;
        loop {
            match http.get_json(&format!("/api/jobs/{submission_id}")) {
                Ok(details) => {
                    let status = details.get("status").and_then(Value::as_str).unwrap_or("UNKNOWN");
                    if matches!(status, "STOPPED" | "SUCCEEDED" | "FAILED") {
                        return format!("Ray reports job {submission_id} {status} after {:.1} s", started.elapsed().as_secs_f64());
                    }
                    last_error = None;
                }
                Err(err) => last_error = Some(err),
            }
            if Instant::now() >= deadline {
                let reason = match last_error.or(stop_error) {
                    Some(err) => format!("the Ray cluster could not confirm that job {submission_id} stopped: {err}"),
                    None => format!(
                        "Ray had not reported job {submission_id} stopped {} s after the stop request",
                        config.stop_timeout.as_secs()
                    ),
                };
                self.job.mark_lost(&reason);
                return reason;
            }
            std::thread::sleep(config.poll_interval.min(Duration::from_millis(250)));
        }
    }

    /// Turns the ended job into the attempt's outcome.
    fn finish(&self, submission_id: &str, status: &str, message: &str, logs: &str, frame: Option<Value>) -> Result<String, String> {
        let job = self.job;
        let Some(frame) = frame else {
            let tail = crate::render::cut_tail(logs, 3000);
            return Err(format!(
                "Ray job {submission_id} ended {status} without a result from runbound's job wrapper ({message}); the cluster's \
                 Python must run `python -m {JOB_PACKAGE}` (Ray ≥ 2.0 with py_modules). Log tail:\n{tail}"
            ));
        };
        let stdout = frame
            .get("stdout_b64")
            .and_then(Value::as_str)
            .and_then(|text| base64::engine::general_purpose::STANDARD.decode(text).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        let stdout_total = frame.get("stdout_total").and_then(Value::as_u64).unwrap_or(0);
        let mut result = stdout.clone();
        if stdout_total > stdout.len() as u64 {
            result.push_str(&format!("\n[stdout cut: showing the first {} of {stdout_total} bytes]", stdout.len()));
        }
        let changes_note = self.apply_changes(&frame)?;
        let exit_code = frame.get("exit_code").and_then(Value::as_i64);
        if status == "SUCCEEDED" && exit_code == Some(0) {
            if let Some(note) = changes_note {
                result.push_str(&format!("\n[{note}]"));
            }
            return Ok(result);
        }
        let how = match (exit_code, frame.get("signal").and_then(Value::as_i64)) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            _ => format!("ended {status}"),
        };
        let stderr_tail = crate::render::cut_tail(&strip_frames(logs), 3000);
        let mut message_text =
            format!("the worker command `{}` {how} in Ray job {submission_id} (Ray: {status}: {})", self.command_line, first_line(message));
        message_text.push_str(&format!("\njob log tail:\n{}", stderr_tail.trim_end()));
        if !stdout.trim().is_empty() {
            message_text.push_str(&format!("\nstdout tail:\n{}", crate::render::cut_tail(&stdout, 2000).trim_end()));
        }
        if let Some(note) = changes_note {
            message_text.push_str(&format!("\n[{note}]"));
        }
        let _ = job;
        Err(message_text)
    }

    /// Writes the files the job changed into the worker's worktree (isolated attempts), or
    /// lists them (a remote job cannot write the workspace). Returns a note for the result.
    fn apply_changes(&self, frame: &Value) -> Result<Option<String>, String> {
        let changes = frame.get("changes").and_then(Value::as_array).cloned().unwrap_or_default();
        let left_out: Vec<String> = frame
            .get("left_out")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        if changes.is_empty() && left_out.is_empty() {
            return Ok(None);
        }
        let paths: Vec<String> = changes
            .iter()
            .map(|change| {
                format!(
                    "{} ({})",
                    change.get("path").and_then(Value::as_str).unwrap_or("?"),
                    change.get("status").and_then(Value::as_str).unwrap_or("?")
                )
            })
            .collect();
        if self.job.isolation() != WorkerIsolation::Worktree {
            return Ok(Some(format!(
                "the job changed {} on the cluster, which do not come back without isolation \"worktree\": {}",
                crate::render::plural(changes.len(), "file"),
                paths.join(", ")
            )));
        }
        if let Some(error) = frame.get("changes_error").and_then(Value::as_str) {
            return Err(format!("the job's changes could not be returned: {error}"));
        }
        let root = self.job.working_dir();
        for change in &changes {
            let path = change.get("path").and_then(Value::as_str).unwrap_or_default();
            let relative = plain_relative_path(path).ok_or_else(|| {
                format!("the job returned a change to {path:?}, which is not a plain relative path; nothing of it was applied")
            })?;
            let target = root.join(&relative);
            match change.get("content_b64").and_then(Value::as_str) {
                Some(encoded) => {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(encoded)
                        .map_err(|err| format!("the job's new content of {path} is not base64: {err}"))?;
                    write_in_worktree(root, &relative, &bytes)?;
                }
                None if change.get("status").and_then(Value::as_str) == Some("deleted") => {
                    refuse_symlinked_parents(root, &relative)?;
                    match std::fs::remove_file(&target) {
                        Ok(()) => {}
                        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                        Err(err) => return Err(format!("cannot delete {} in the worktree: {err}", target.display())),
                    }
                }
                None => return Err(format!("the job returned no content for {path}")),
            }
        }
        let mut note = format!("the job changed {}: {}", crate::render::plural(changes.len(), "file"), paths.join(", "));
        if !left_out.is_empty() {
            note.push_str(&format!("; left out: {}", left_out.join("; ")));
        }
        Ok(Some(note))
    }
}

/// `path` (from the job, `/`-separated) as a relative path of plain components, not inside
/// `.git`.
fn plain_relative_path(path: &str) -> Option<PathBuf> {
    let relative = Path::new(path);
    let plain = !path.is_empty() && relative.components().all(|component| matches!(component, Component::Normal(_)));
    let in_git = relative.components().next().is_some_and(|first| first.as_os_str() == ".git");
    (plain && !in_git).then(|| relative.to_path_buf())
}

/// Refuses a path whose parent directories inside `root` include a symlink (a job's change is
/// written into the worktree, never through a link out of it).
fn refuse_symlinked_parents(root: &Path, relative: &Path) -> Result<(), String> {
    let mut current = root.to_path_buf();
    if let Some(parent) = relative.parent() {
        for component in parent.components() {
            current.push(component);
            if std::fs::symlink_metadata(&current).is_ok_and(|meta| meta.file_type().is_symlink()) {
                return Err(format!("{} is a symlink in the worktree; the job's change below it was not applied", current.display()));
            }
        }
    }
    Ok(())
}

/// Writes `bytes` at `root/relative` (creating directories), never through a symlink.
fn write_in_worktree(root: &Path, relative: &Path, bytes: &[u8]) -> Result<(), String> {
    refuse_symlinked_parents(root, relative)?;
    let target = root.join(relative);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|err| format!("cannot create {} in the worktree: {err}", parent.display()))?;
    }
    if std::fs::symlink_metadata(&target).is_ok_and(|meta| meta.file_type().is_symlink()) {
        std::fs::remove_file(&target).map_err(|err| format!("cannot replace the symlink {}: {err}", target.display()))?;
    }
    let parent = target.parent().unwrap_or(root);
    let mut temp = tempfile::Builder::new()
        .prefix(".runbound-")
        .tempfile_in(parent)
        .map_err(|err| format!("cannot write {}: {err}", target.display()))?;
    temp.write_all(bytes).map_err(|err| format!("cannot write {}: {err}", target.display()))?;
    temp.persist(&target).map_err(|err| format!("cannot write {}: {}", target.display(), err.error))?;
    Ok(())
}

/// Relays the cards a job's wrapper framed in its log to the parent's port, one thread each;
/// answers go back through the cluster's key-value store.
struct CardRelay {
    submission_id: String,
    seen: std::collections::HashSet<String>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl CardRelay {
    fn new(submission_id: &str) -> CardRelay {
        CardRelay { submission_id: submission_id.to_owned(), seen: std::collections::HashSet::new(), threads: Vec::new() }
    }

    fn relay_new_cards(&mut self, logs: &str, nonce: &str, job: &WorkerJob<'_>, http: &Http) {
        for frame in frames(logs, "ask", nonce) {
            let Some(id) = frame.get("id").and_then(Value::as_str).map(str::to_owned) else { continue };
            if !self.seen.insert(id.clone()) {
                continue;
            }
            let answer_key = frame.get("answer_key").and_then(Value::as_str).unwrap_or_default();
            let expected_key = format!("gcs://_runbound_answer_{}_{id}.zip", self.submission_id);
            if answer_key != expected_key {
                continue;
            }
            let card: Option<RelayedCard> = frame.get("card").cloned().and_then(|card| serde_json::from_value(card).ok());
            let relay = job.ask_relay();
            let http = http.clone();
            let package = format!("_runbound_answer_{}_{id}.zip", self.submission_id);
            let spawned = std::thread::Builder::new().name(format!("vibe-{}-ray-card", job.worker_id())).spawn(move || {
                let outcome = match card {
                    Some(card) => relay.ask_human(&card),
                    None => AskOutcome::Cancelled { reason: "the card relayed by the Ray job could not be read".to_owned() },
                };
                let body = serde_json::to_vec(&outcome_to_json(&outcome)).unwrap_or_default();
                // A failed PUT leaves the job's wrapper waiting until the card's timeout: it
                // then reads `timed_out` (never consent).
                let _ = http.put_bytes(&format!("/api/packages/gcs/{package}"), &body);
            });
            if let Ok(handle) = spawned {
                self.threads.push(handle);
            }
        }
    }

    /// Joins the card threads that have finished; the others (a card still on the human's
    /// screen) end on the port's own timeout.
    fn finish(&mut self) {
        for handle in self.threads.drain(..) {
            if handle.is_finished() {
                let _ = handle.join();
            }
        }
    }
}

/// Every frame `<<runbound:KIND:NONCE>>BASE64<<end>>` in `logs`, decoded; broken ones skipped.
fn frames(logs: &str, kind: &str, nonce: &str) -> Vec<Value> {
    let marker = format!("<<runbound:{kind}:{nonce}>>");
    let mut found = Vec::new();
    let mut rest = logs;
    while let Some(start) = rest.find(&marker) {
        rest = &rest[start + marker.len()..];
        let Some(end) = rest.find("<<end>>") else { break };
        let encoded = &rest[..end];
        rest = &rest[end..];
        if let Some(value) = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        {
            found.push(value);
        }
    }
    found
}

fn last_frame(logs: &str, kind: &str, nonce: &str) -> Option<Value> {
    frames(logs, kind, nonce).pop()
}

/// The log without frame lines (for a failure's log tail).
fn strip_frames(logs: &str) -> String {
    logs.lines().filter(|line| !line.starts_with("<<runbound:")).collect::<Vec<_>>().join("\n")
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn sleep_unless_cancelled(job: &WorkerJob<'_>, duration: Duration) {
    let end = Instant::now() + duration;
    while Instant::now() < end && !job.is_cancelled() {
        std::thread::sleep(Duration::from_millis(50).min(end.saturating_duration_since(Instant::now())));
    }
}

fn nonce() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = sha2::Sha256::new();
    hasher.update(std::process::id().to_le_bytes());
    hasher.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    hasher.update(now.as_nanos().to_le_bytes());
    hasher.update(format!("{:p}", &COUNTER).as_bytes());
    hex(&hasher.finalize()[..8])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The zip of a working directory.
struct Package {
    bytes: Vec<u8>,
    files: usize,
}

/// Zips the files under `dir` that a `.gitignore`-aware walk finds (hidden files included,
/// `.git` left out, symlinks skipped), in path order with fixed timestamps, so equal contents
/// give equal bytes (and one upload).
///
/// Confinement (issue 13 §1): both the listing and the reads happen beneath one handle of `dir`
/// (`files::walk_beneath` over `files::WorkspaceReader`: `openat2(RESOLVE_BENEATH |
/// RESOLVE_NO_SYMLINKS)` or an `O_NOFOLLOW` walk). Every directory is listed through a handle
/// opened that way and every `.gitignore` / `.ignore` read that way, and each file's size and
/// mode come from its open file. A directory of the working directory swapped for a symlink
/// (a concurrent `renameat2(RENAME_EXCHANGE)`) fails the package with the directory or file
/// named instead of listing, reading or packaging what the link points at; nothing outside
/// `dir` is listed or read (git's own `info/exclude` of a worktree's repository aside).
///
/// # Errors
/// A sentence naming the file when listing or reading fails (a file removed or a directory
/// replaced by a symlink while packaging: retry once the working directory is quiet), or when
/// the files add up to more than `max_bytes`.
fn working_dir_package(dir: &Path, max_bytes: u64) -> Result<Package, String> {
    let reader = crate::files::WorkspaceReader::open(dir)
        .map_err(|err| format!("cannot open the working directory {} for the Ray package: {}", dir.display(), err.message))?;
    let options = crate::files::walk_beneath::WalkOptions { hidden: true, skip_names: &[".git"] };
    let paths = crate::files::walk_beneath::list_files_beneath(reader.beneath(), Path::new(""), &options).map_err(|err| {
        format!(
            "cannot list {} for the Ray package: {err} (nothing outside the working directory was listed or read); retry once \
             the working directory is quiet",
            dir.display()
        )
    })?;
    let mut total: u64 = 0;
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    for relative in &paths {
        let name = relative.to_string_lossy().replace('\\', "/");
        let mut file = reader.open_file(relative).map_err(|err| {
            format!(
                "the Ray package of {}: {} (nothing outside the working directory was read); {}",
                dir.display(),
                err.message,
                err.hint.as_deref().unwrap_or("retry once the working directory is quiet")
            )
        })?;
        let metadata = file.metadata().map_err(|err| format!("cannot read {name} for the Ray package: {err}"))?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|err| format!("cannot read {name} for the Ray package: {err}"))?;
        total += bytes.len() as u64;
        if total > max_bytes {
            return Err(format!(
                "the working directory {} holds more than {} MiB of files not ignored by .gitignore; Ray packages are limited \
                 (add large files to .gitignore, or raise RayConfig::package_max_bytes)",
                dir.display(),
                max_bytes / (1024 * 1024)
            ));
        }
        let executable = std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o111 != 0;
        let file_options = if executable { options.unix_permissions(0o755) } else { options };
        writer.start_file(name.as_str(), file_options).map_err(|err| format!("cannot zip {name}: {err}"))?;
        writer.write_all(&bytes).map_err(|err| format!("cannot zip {name}: {err}"))?;
    }
    let cursor = writer.finish().map_err(|err| format!("cannot finish the Ray package: {err}"))?;
    Ok(Package { bytes: cursor.into_inner(), files: paths.len() })
}

/// The `runbound_ray_job` package: the wrapper and the brief.
fn job_module_package(brief: &str) -> Result<Vec<u8>, String> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let entries: [(&str, &[u8]); 3] = [
        ("__init__.py", b"\"\"\"runbound's Ray job wrapper (see __main__.py).\"\"\"\n"),
        ("__main__.py", JOB_WRAPPER.as_bytes()),
        ("brief.txt", brief.as_bytes()),
    ];
    for (name, bytes) in entries {
        let path = format!("{JOB_PACKAGE}/{name}");
        writer.start_file(path.as_str(), options).map_err(|err| format!("cannot zip {path}: {err}"))?;
        writer.write_all(bytes).map_err(|err| format!("cannot zip {path}: {err}"))?;
    }
    Ok(writer.finish().map_err(|err| format!("cannot finish the job package: {err}"))?.into_inner())
}

/// The HTTP side: a `ureq` agent over the dashboard.
#[derive(Clone)]
struct Http {
    agent: ureq::Agent,
    upload_agent: ureq::Agent,
    address: Arc<str>,
}

impl Http {
    fn new(config: &RayConfig) -> Http {
        let agent = |timeout: Duration| -> ureq::Agent {
            ureq::Agent::config_builder()
                .timeout_global(Some(timeout))
                .timeout_connect(Some(timeout.min(Duration::from_secs(5))))
                .http_status_as_error(false)
                .build()
                .into()
        };
        Http {
            agent: agent(config.request_timeout),
            upload_agent: agent(config.request_timeout * 10),
            address: Arc::from(config.address.as_str()),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn check(path: &str, response: &mut ureq::http::Response<ureq::Body>) -> Result<String, String> {
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(LOG_MAX_BYTES)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|err| format!("reading the answer to {path}: {err}"))?;
        if (200..300).contains(&status) {
            return Ok(body);
        }
        let detail = body.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("").trim();
        Err(format!("HTTP {status} from {path}: {}", crate::render::cut_chars(detail, 400)))
    }

    fn get_json(&self, path: &str) -> Result<Value, String> {
        let mut response = self.agent.get(&self.url(path)).call().map_err(|err| describe_transport_error(&self.address, &err))?;
        let body = Self::check(path, &mut response)?;
        serde_json::from_str(&body).map_err(|err| format!("{path} answered with something that is not JSON ({err})"))
    }

    fn post_json(&self, path: &str, body: &Value) -> Result<Value, String> {
        Self::post_json_with(&self.agent, &self.url(path), &self.address, path, body)
    }

    /// [`Http::post_json`] with the upload timeout (10 × the request timeout), for calls that
    /// make the head do real work before it answers (job submission).
    fn post_json_slow(&self, path: &str, body: &Value) -> Result<Value, String> {
        Self::post_json_with(&self.upload_agent, &self.url(path), &self.address, path, body)
    }

    fn post_json_with(agent: &ureq::Agent, url: &str, address: &str, path: &str, body: &Value) -> Result<Value, String> {
        let mut response = agent
            .post(url)
            .content_type("application/json")
            .send(body.to_string())
            .map_err(|err| describe_transport_error(address, &err))?;
        let text = Self::check(path, &mut response)?;
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    fn put_bytes(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let mut response = self
            .upload_agent
            .put(&self.url(path))
            .content_type("application/octet-stream")
            .send(bytes)
            .map_err(|err| describe_transport_error(&self.address, &err))?;
        Self::check(path, &mut response).map(|_| ())
    }

    /// Uploads a package unless the cluster has it (`GET` answers 200); returns its
    /// `gcs://_ray_pkg_<hash>.zip` URI.
    fn upload_package_if_missing(&self, bytes: &[u8]) -> Result<String, String> {
        let name = format!("_ray_pkg_{}.zip", &hex(&sha2::Sha256::digest(bytes))[..40]);
        let path = format!("/api/packages/gcs/{name}");
        let mut response = self.agent.get(&self.url(&path)).call().map_err(|err| describe_transport_error(&self.address, &err))?;
        let status = response.status().as_u16();
        let _ = response.body_mut().read_to_string();
        match status {
            200 => {}
            404 => self.put_bytes(&path, bytes).map_err(|err| format!("uploading {name} ({} bytes) failed: {err}", bytes.len()))?,
            other => return Err(format!("HTTP {other} from GET {path}")),
        }
        Ok(format!("gcs://{name}"))
    }

    fn job_logs(&self, submission_id: &str) -> Result<String, String> {
        let logs = self.get_json(&format!("/api/jobs/{submission_id}/logs"))?;
        Ok(logs.get("logs").and_then(Value::as_str).unwrap_or_default().to_owned())
    }
}

fn describe_transport_error(address: &str, err: &ureq::Error) -> String {
    match err {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("connection refused by {address}: no Ray dashboard listens there (is the cluster up?)")
        }
        ureq::Error::Timeout(which) => format!("{address} did not answer in time ({which:?})"),
        other => format!("cannot reach {address}: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_found_by_nonce_and_broken_ones_skipped() {
        let encode = |value: &Value| base64::engine::general_purpose::STANDARD.encode(value.to_string());
        let logs = format!(
            "Running entrypoint\n<<runbound:ask:n1>>{}<<end>>\nnoise <<runbound:ask:other>>{}<<end>>\n<<runbound:ask:n1>>!!!<<end>>\n<<runbound:result:n1>>{}<<end>>\n",
            encode(&json!({"id": "a"})),
            encode(&json!({"id": "forged"})),
            encode(&json!({"exit_code": 0}))
        );
        let asks = frames(&logs, "ask", "n1");
        assert_eq!(asks, vec![json!({"id": "a"})]);
        assert_eq!(last_frame(&logs, "result", "n1"), Some(json!({"exit_code": 0})));
        assert_eq!(
            strip_frames(&logs),
            "Running entrypoint\nnoise <<runbound:ask:other>>".to_owned() + &encode(&json!({"id": "forged"})) + "<<end>>"
        );
    }

    #[test]
    fn job_paths_are_plain_and_never_in_git() {
        assert_eq!(plain_relative_path("src/lib.rs"), Some(PathBuf::from("src/lib.rs")));
        for bad in ["", "/etc/passwd", "../x", "a/../../x", ".git/config", "./a"] {
            assert_eq!(plain_relative_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn packages_are_deterministic_and_respect_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        std::fs::create_dir_all(dir.path().join("target")).unwrap();
        std::fs::write(dir.path().join("target/big"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref").unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let first = working_dir_package(dir.path(), 1 << 20).unwrap();
        let second = working_dir_package(dir.path(), 1 << 20).unwrap();
        assert_eq!(first.bytes, second.bytes);
        assert_eq!(first.files, 2, ".gitignore and a.txt; target/ and .git/ left out");
        let archive = zip::ZipArchive::new(std::io::Cursor::new(first.bytes)).unwrap();
        let mut names: Vec<String> = archive.file_names().map(|name| name.unwrap().into_owned()).collect();
        names.sort_unstable();
        assert_eq!(names, vec![".gitignore", "a.txt"]);
        assert!(working_dir_package(dir.path(), 1).is_err());
    }

    const OUTSIDE_MARKER: &str = "OUTSIDE-SECRET";

    /// Every entry of a package as (name, text).
    fn package_entries(package: &Package) -> Vec<(String, String)> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(package.bytes.clone())).unwrap();
        (0..archive.len())
            .map(|index| {
                let mut entry = archive.by_index(index).unwrap();
                let mut text = String::new();
                std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
                (entry.name().unwrap().into_owned(), text)
            })
            .collect()
    }

    #[test]
    fn a_symlink_out_of_the_working_directory_is_never_packaged() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), OUTSIDE_MARKER).unwrap();
        std::fs::create_dir(outside.path().join("dir")).unwrap();
        std::fs::write(outside.path().join("dir/f.txt"), OUTSIDE_MARKER).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.txt"), "inside").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("file_link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("dir"), root.join("dir_link")).unwrap();
        let package = working_dir_package(&root, 1 << 20).unwrap();
        assert_eq!(package_entries(&package), vec![("a.txt".to_owned(), "inside".to_owned())]);
        assert_eq!(package.files, 1);
    }

    /// Issue 13 §1: a thread swaps a directory of the working directory with a symlink to a
    /// directory outside (`renameat2(RENAME_EXCHANGE)` in a loop) while the package is built
    /// again and again. A package may fail (the file named), but none may hold outside content.
    #[test]
    fn a_directory_swapped_for_a_symlink_while_packaging_never_packages_outside_content() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("sub")).unwrap();
        std::fs::write(outside.path().join("sub/f.txt"), OUTSIDE_MARKER).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/f.txt"), "inside").unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(outside.path().join("sub"), root.join("swap")).unwrap();
        let exchange = crate::files::test_exchange::ExchangeLoop::start(root.join("sub"), root.join("swap"));
        let (mut packages, mut failures, mut outside_reads) = (0, 0, 0);
        let started = Instant::now();
        while (packages + failures < 400 && started.elapsed() < Duration::from_millis(1500))
            || (packages == 0 && started.elapsed() < Duration::from_secs(10))
        {
            match working_dir_package(&root, 1 << 20) {
                Ok(package) => {
                    packages += 1;
                    outside_reads += package_entries(&package).iter().filter(|(_, text)| text.contains(OUTSIDE_MARKER)).count();
                }
                Err(message) => {
                    failures += 1;
                    assert!(message.contains("Ray package"), "{message}");
                }
            }
        }
        let swaps = exchange.finish();
        assert!(swaps > 0, "the exchange loop never swapped");
        assert!(packages > 0, "no package was built in {} attempts", failures);
        assert_eq!(
            outside_reads, 0,
            "{outside_reads} packaged files held outside content ({packages} packages, {failures} refused, {swaps} swaps)"
        );
    }
}
