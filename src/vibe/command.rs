//! `CommandBackend`: each attempt runs a per-tier command line with `/bin/sh -c` in the
//! workspace, in its own process group (through [`crate::transport::process`]), with the brief on
//! stdin. Stdout is the result; a non-zero exit is an error carrying the exit code and the
//! stderr tail.
//!
//! Environment of a worker process (on top of runbound's own):
//!
//! | variable | value |
//! |---|---|
//! | `RUNBOUND_WORKER_ID` | `worker_N` |
//! | `RUNBOUND_WORKER_LABEL` | the label the model gave |
//! | `RUNBOUND_WORKER_TIER` | `fast` or `good` |
//! | `RUNBOUND_WORKER_ATTEMPT` | the attempt number, from 1 |
//! | `RUNBOUND_WORKER_CALLER` | the spawning caller's mode: `main`, `plan` or `readonly`; the `runbound` CLI run inside the worker takes it as its caller and refuses a higher `--caller`; a command that edits by other means must hold itself to read-only work under `plan` or `readonly` |
//! | `RUNBOUND_WORKER_WORKSPACE_TRUST` | the spawning run's workspace trust: `trusted` or `restricted`; the `runbound` CLI run inside the worker is no less restricted and refuses `--workspace-trust trusted` under `restricted` |
//! | `RUNBOUND_WORKSPACE` | where the worker works (also its working directory): the run's absolute workspace root, or with `isolation: "worktree"` the workspace's place in the worker's private git worktree |
//! | `RUNBOUND_ASK_CHANNEL` | when the run has an ask port: the ask channel a `runbound` run inside the worker shows its `ask_user` cards and permission prompts through ([`crate::ask::ChannelAskPort`]) |
//! | `GIT_EDITOR`, `GIT_PAGER`, `PAGER`, `GIT_TERMINAL_PROMPT` | `true`, `cat`, `cat`, `0`: nothing waits for a terminal |
//!
//! Stdin carries the whole brief and is then closed, so a worker that tries to prompt reads
//! end-of-file and fails fast instead of blocking. When the shell exits, anything it left
//! running in its process group is killed and the result says so. Cancellation (`vibe_send`,
//! `vibe_kill`, run teardown) and the attempt deadline kill the whole group.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver};

use crate::transport::process::ProcessSpec;

use super::{WorkerBackend, WorkerJob, WorkerTier};

/// Environment variable: the worker's id, `worker_N`.
pub const ENV_WORKER_ID: &str = "RUNBOUND_WORKER_ID";
/// Environment variable: the worker's label.
pub const ENV_WORKER_LABEL: &str = "RUNBOUND_WORKER_LABEL";
/// Environment variable: the worker's tier, `fast` or `good`.
pub const ENV_WORKER_TIER: &str = "RUNBOUND_WORKER_TIER";
/// Environment variable: the attempt number, from 1.
pub const ENV_WORKER_ATTEMPT: &str = "RUNBOUND_WORKER_ATTEMPT";
/// Environment variable: the spawning caller's mode, `main`, `plan` or `readonly`.
pub const ENV_WORKER_CALLER: &str = "RUNBOUND_WORKER_CALLER";
/// Environment variable: the spawning run's workspace trust, `trusted` or `restricted`. A
/// `runbound` run inside the worker takes it as the ceiling of its `--workspace-trust`
/// ([`super::inherited_worker_workspace_trust`]).
pub const ENV_WORKER_WORKSPACE_TRUST: &str = "RUNBOUND_WORKER_WORKSPACE_TRUST";
/// Environment variable: the run's absolute workspace root.
pub const ENV_WORKSPACE: &str = "RUNBOUND_WORKSPACE";

const SHELL: &str = "/bin/sh";
const POLL_SLICE: Duration = Duration::from_millis(50);
const PIPE_THREAD_JOIN_TIMEOUT: Duration = Duration::from_secs(2);
const FAILURE_STDOUT_TAIL_CHARS: usize = 2000;

/// Runs attempts as shell command lines, one per tier. See the module docs for the
/// environment contract.
#[derive(Debug, Clone)]
pub struct CommandBackend {
    commands: BTreeMap<WorkerTier, String>,
    output_max_bytes: usize,
    max_running_attempts: Option<usize>,
}

impl Default for CommandBackend {
    fn default() -> Self {
        CommandBackend { commands: BTreeMap::new(), output_max_bytes: 1024 * 1024, max_running_attempts: None }
    }
}

impl CommandBackend {
    /// A backend with no commands and a 1 MiB stdout cap; add commands with
    /// [`CommandBackend::with_command`].
    pub fn new() -> CommandBackend {
        CommandBackend::default()
    }

    /// Sets the command line for `tier`, run as `/bin/sh -c <command_line>` (so quoting, pipes
    /// and `$VARS` work as in a shell).
    #[must_use]
    pub fn with_command(mut self, tier: WorkerTier, command_line: impl Into<String>) -> CommandBackend {
        self.commands.insert(tier, command_line.into());
        self
    }

    /// Sets the most stdout bytes captured per attempt (the rest is read and dropped; the result
    /// says how much was cut).
    #[must_use]
    pub fn with_output_max_bytes(mut self, output_max_bytes: usize) -> CommandBackend {
        self.output_max_bytes = output_max_bytes;
        self
    }

    /// Sets the most attempts of this backend running at once (this machine's concurrency cap;
    /// at least 1). Without it the run's [`super::VibeConfig::max_running_workers`] applies
    /// (default 8). Further workers wait as `pending`; `runbound status` shows the cap.
    #[must_use]
    pub fn with_max_running_attempts(mut self, max_running_attempts: usize) -> CommandBackend {
        self.max_running_attempts = Some(max_running_attempts.max(1));
        self
    }

    /// The command line of `tier`, if configured.
    pub fn command_line(&self, tier: WorkerTier) -> Option<&str> {
        self.commands.get(&tier).map(String::as_str)
    }

    /// Parses the CLI's `--worker TIER=COMMAND` values (e.g. `"good=claude -p --model opus"`).
    ///
    /// # Errors
    /// A value without `=`, an unknown tier, an empty command, or a tier given twice; the
    /// message quotes the value and shows the expected form.
    pub fn from_cli_worker_flags(worker_flags: &[String]) -> Result<CommandBackend, String> {
        let mut backend = CommandBackend::new();
        for flag in worker_flags {
            let Some((tier_text, command_line)) = flag.split_once('=') else {
                return Err(format!(
                    "--worker {flag:?} is not TIER=COMMAND; write e.g. --worker 'fast=my-agent --quiet' (tiers: fast, good)"
                ));
            };
            let Some(tier) = WorkerTier::parse(tier_text) else {
                return Err(format!("--worker {flag:?} names tier {:?}; the tiers are fast and good", tier_text.trim()));
            };
            let command_line = command_line.trim();
            if command_line.is_empty() {
                return Err(format!("--worker {flag:?} gives tier {tier} an empty command"));
            }
            if backend.commands.contains_key(&tier) {
                return Err(format!("--worker sets tier {tier} twice (second: {flag:?}); give each tier once"));
            }
            backend.commands.insert(tier, command_line.to_owned());
        }
        Ok(backend)
    }
}

impl WorkerBackend for CommandBackend {
    fn run_attempt(&self, job: &WorkerJob<'_>) -> Result<String, String> {
        let Some(command_line) = self.commands.get(&job.tier()) else {
            return Err(missing_tier_message(job.tier()));
        };
        run_command_attempt(job, command_line, self.output_max_bytes)
    }

    fn describe_tier(&self, tier: WorkerTier) -> Option<String> {
        Some(match self.commands.get(&tier) {
            Some(command_line) => {
                format!("tier {tier} runs `{SHELL} -c {command_line:?}` in the workspace (or its worktree)")
            }
            None => missing_tier_message(tier),
        })
    }

    fn check_tier(&self, tier: WorkerTier) -> Result<(), String> {
        match self.commands.contains_key(&tier) {
            true => Ok(()),
            false => Err(missing_tier_message(tier)),
        }
    }

    fn name(&self) -> String {
        "command".to_owned()
    }

    fn max_running_attempts(&self) -> Option<usize> {
        self.max_running_attempts
    }
}

fn missing_tier_message(tier: WorkerTier) -> String {
    format!("no worker command is configured for tier {tier}; the host must start runbound with --worker {tier}=COMMAND")
}

fn run_command_attempt(job: &WorkerJob<'_>, command_line: &str, output_max_bytes: usize) -> Result<String, String> {
    let mut spec = ProcessSpec::new(SHELL, job.working_dir())
        .with_arg("-c")
        .with_arg(command_line)
        .with_env(ENV_WORKER_ID, job.worker_id())
        .with_env(ENV_WORKER_LABEL, job.label())
        .with_env(ENV_WORKER_TIER, job.tier().as_str())
        .with_env(ENV_WORKER_ATTEMPT, job.attempt().to_string())
        .with_env(ENV_WORKER_CALLER, job.caller().as_str())
        .with_env(ENV_WORKER_WORKSPACE_TRUST, job.workspace_trust().as_str())
        .with_env(ENV_WORKSPACE, job.working_dir().as_os_str())
        .with_env("GIT_EDITOR", "true")
        .with_env("GIT_PAGER", "cat")
        .with_env("PAGER", "cat")
        .with_env("GIT_TERMINAL_PROMPT", "0")
        .with_display_name(format!("{} attempt {} ({})", job.worker_id(), job.attempt(), job.tier()))
        .with_stdin_piped(true)
        .with_stdout_piped(true);
    if let Some((name, path)) = job.ask_channel_environment() {
        spec = spec.with_env(name, path.as_os_str());
    }
    // Under the process guardian: what the worker starts dies with it even when the host is
    // killed with SIGKILL (transport::guardian).
    let child = crate::transport::guardian::spawn_guarded(spec, crate::transport::guardian::find_python(job.workspace_root()).as_deref())
        .map_err(|err| format!("cannot start the worker command `{command_line}`: {err}"))?;
    let stdin_done = child.take_stdin().map(|stdin| write_brief_on_thread(job, stdin));
    let Some(stdout) = child.take_stdout() else {
        child.kill_group();
        return Err(format!("the worker command `{command_line}` started without a stdout pipe (process layer bug)"));
    };
    let stdout_done = read_stdout_on_thread(job, stdout, output_max_bytes);
    job.report_progress(&format!("running `{command_line}` (pid {})", child.pid()));

    let ending = loop {
        if job.is_cancelled() {
            child.kill_group();
            break AttemptEnding::Cancelled;
        }
        if Instant::now() >= job.deadline() {
            child.kill_group();
            break AttemptEnding::DeadlinePassed;
        }
        if let Some(status) = child.wait_timeout(POLL_SLICE) {
            break AttemptEnding::Exited(status);
        }
    };
    // "Done" means the worker and everything it started: kill what it left in its group.
    let survivors_killed = process_group_has_members(child.pid());
    if survivors_killed {
        // SIGTERM, then SIGKILL to the whole group, even though its leader has exited.
        child.kill_group();
    }
    // The drain thread may still hold the last lines the worker wrote before exiting.
    child.wait_stderr_drained(PIPE_THREAD_JOIN_TIMEOUT);
    let stderr_tail = child.stderr_tail();
    // Join the pipe threads (bounded): the pipes close once the group is gone.
    let captured = stdout_done.recv_timeout(PIPE_THREAD_JOIN_TIMEOUT).unwrap_or_else(|_| CapturedStdout {
        bytes: Vec::new(),
        total_bytes: 0,
        read_error: Some("stdout was still open 2 s after the worker ended (a process outside its group holds it)".to_owned()),
    });
    if let Some(stdin_done) = stdin_done {
        let _ = stdin_done.recv_timeout(PIPE_THREAD_JOIN_TIMEOUT);
    }
    drop(child);
    let exit = match ending {
        AttemptEnding::Cancelled => return Err("cancelled; the worker's process group was killed".to_owned()),
        AttemptEnding::DeadlinePassed => {
            return Err(format!(
                "the worker command `{command_line}` ran past its deadline and its process group was killed{}",
                labelled_block("stderr tail", &stderr_tail)
            ))
        }
        AttemptEnding::Exited(status) => status,
    };
    let stdout_text = captured.text(output_max_bytes);
    let survivors_note =
        if survivors_killed { "\n[note: the worker left processes running in its process group; they were killed]" } else { "" };
    if exit.success() {
        let mut result = stdout_text;
        if let Some(read_error) = captured.read_error {
            result.push_str(&format!("\n[stdout could not be read to the end: {read_error}]"));
        }
        result.push_str(survivors_note);
        return Ok(result);
    }
    let mut message = format!("the worker command `{command_line}` {}", describe_exit(exit));
    message.push_str(&labelled_block("stderr tail", &stderr_tail));
    message.push_str(&labelled_block("stdout tail", &crate::render::cut_tail(&stdout_text, FAILURE_STDOUT_TAIL_CHARS)));
    message.push_str(survivors_note);
    Err(message)
}

enum AttemptEnding {
    Exited(ExitStatus),
    Cancelled,
    DeadlinePassed,
}

struct CapturedStdout {
    bytes: Vec<u8>,
    total_bytes: u64,
    read_error: Option<String>,
}

impl CapturedStdout {
    fn text(&self, output_max_bytes: usize) -> String {
        let mut text = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.total_bytes > self.bytes.len() as u64 {
            text.push_str(&format!(
                "\n[stdout cut: showing the first {} of {} bytes (cap {output_max_bytes})]",
                self.bytes.len(),
                self.total_bytes
            ));
        }
        text
    }
}

fn write_brief_on_thread(job: &WorkerJob<'_>, mut stdin: std::process::ChildStdin) -> Receiver<()> {
    let (done_sender, done_receiver) = bounded(1);
    let brief = job.brief().to_owned();
    let spawned = std::thread::Builder::new().name(format!("vibe-{}-stdin", job.worker_id())).spawn(move || {
        // A worker that exits without reading its brief closes the pipe: the write error is
        // expected and harmless.
        let _ = stdin.write_all(brief.as_bytes());
        drop(stdin);
        let _ = done_sender.send(());
    });
    if spawned.is_err() {
        // No thread: nothing will be written; the worker reads end-of-file at once.
        let (_, closed) = bounded(0);
        return closed;
    }
    done_receiver
}

fn read_stdout_on_thread(job: &WorkerJob<'_>, mut stdout: std::process::ChildStdout, output_max_bytes: usize) -> Receiver<CapturedStdout> {
    let (done_sender, done_receiver) = bounded(1);
    let spawned = std::thread::Builder::new().name(format!("vibe-{}-stdout", job.worker_id())).spawn(move || {
        let mut captured = CapturedStdout { bytes: Vec::new(), total_bytes: 0, read_error: None };
        let mut buffer = [0u8; 8192];
        loop {
            match stdout.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    captured.total_bytes += n as u64;
                    let room = output_max_bytes.saturating_sub(captured.bytes.len());
                    captured.bytes.extend_from_slice(&buffer[..n.min(room)]);
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    captured.read_error = Some(err.to_string());
                    break;
                }
            }
        }
        let _ = done_sender.send(captured);
    });
    if let Err(err) = spawned {
        let (sender, receiver) = bounded(1);
        let _ =
            sender.send(CapturedStdout { bytes: Vec::new(), total_bytes: 0, read_error: Some(format!("no thread to read stdout: {err}")) });
        return receiver;
    }
    done_receiver
}

/// Whether any process is left in process group `pgid` (signal 0 probes without killing).
fn process_group_has_members(pgid: u32) -> bool {
    let Ok(pgid) = i32::try_from(pgid) else {
        return false;
    };
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), None).is_ok()
}

fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(127), _) => {
            "exited with code 127: the shell could not find the command (check the --worker command line and PATH)".to_owned()
        }
        (Some(126), _) => "exited with code 126: the command is not executable".to_owned(),
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => format!("ended with {status}"),
    }
}

fn labelled_block(label: &str, text: &str) -> String {
    let text = text.trim_end();
    if text.is_empty() {
        return format!("\n{label}: (empty)");
    }
    format!("\n{label}:\n{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cli_worker_flags() {
        let flags = vec!["fast=sh worker.sh".to_owned(), " GOOD = my-agent --deep ".to_owned()];
        let backend = CommandBackend::from_cli_worker_flags(&flags).unwrap();
        assert_eq!(backend.command_line(WorkerTier::Fast), Some("sh worker.sh"));
        assert_eq!(backend.command_line(WorkerTier::Good), Some("my-agent --deep"));
    }

    #[test]
    fn rejects_bad_cli_worker_flags() {
        let cases = [("my-agent", "is not TIER=COMMAND"), ("slow=my-agent", "the tiers are fast and good"), ("fast=  ", "empty command")];
        for (flag, expected) in cases {
            let err = CommandBackend::from_cli_worker_flags(&[flag.to_owned()]).unwrap_err();
            assert!(err.contains(expected), "{flag}: {err}");
        }
        let err = CommandBackend::from_cli_worker_flags(&["fast=a".to_owned(), "fast=b".to_owned()]).unwrap_err();
        assert!(err.contains("twice"), "{err}");
    }

    #[test]
    fn missing_tier_names_the_flag() {
        let backend = CommandBackend::new().with_command(WorkerTier::Fast, "true");
        assert!(backend.check_tier(WorkerTier::Fast).is_ok());
        let err = backend.check_tier(WorkerTier::Good).unwrap_err();
        assert!(err.contains("--worker good=COMMAND"), "{err}");
    }
}
