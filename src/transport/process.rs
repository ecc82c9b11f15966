//! Child processes: the only module in the crate that calls `Command::new`.
//!
//! Every child runs in its own process group (`process_group(0)`), with an explicit absolute
//! working directory, an empty signal mask (whatever the spawning thread blocks),
//! `PR_SET_PDEATHSIG(SIGKILL)` so it dies if runbound dies, and its stderr
//! drained on a named thread into a bounded tail ring (the child never blocks on a full stderr
//! pipe, however much it writes). Dropping a [`ChildProcess`] kills the whole group (SIGTERM, a
//! short grace, SIGKILL), reaps the leader and joins the drain thread.
//!
//! A child that leaves its group (`setsid`, `setpgid`) or double-forks out from under its parent
//! escapes `killpg`. To find those too, every child gets an environment variable unique to it,
//! `RUNBOUND_DESCENDANT_OF_<our pid>_<our start time>_<serial>=1`
//! ([`ChildProcess::descendant_tag`]), which its descendants inherit; after the group is killed,
//! [`kill_tagged_processes`] SIGKILLs (no SIGTERM grace) every live process started since the
//! child whose initial environment (`/proc/<pid>/environ`) carries it. Best effort: a descendant
//! escapes this sweep when it starts with a cleared environment (`env -i`), overwrites its
//! environment block (process-title tricks of nginx, postgres, setproctitle), or cannot be read
//! by us (non-dumpable, another user's, when runbound is not root). The CLI, a child subreaper,
//! kills even those on exit; a library host that needs more must contain its run (a cgroup,
//! a pid namespace). Nested runbounds add their own tags, so an outer sweep reaches inner
//! descendants. Cost: one walk of /proc per drop (stat of every process, environment of those
//! started since the child): about 20 µs per process on the machine, measured 40–80 ms per drop
//! with 2,000 processes, a few ms with a hundred.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked the child exits, not the process, so
//! every spawn goes through one long-lived spawner thread (`runbound-spawner`) that lives exactly
//! as long as at least one child handle does; a child started during a short-lived tool call
//! therefore survives the call.
//!
//! Process lookup ([`descendant_pids`], [`process_state`], [`process_start_time_ticks`]) reads
//! /proc through the `procfs` crate; kernels, debug sessions and tests all use it.
//!
//! A process that is a child subreaper (the CLI) adopts the orphans of its descendants and must
//! reap them as they exit, without stealing the exit status of a child a [`ChildProcess`] waits
//! for. Every spawn therefore registers its pid, under the same lock as the fork itself, until
//! its handle has reaped it or is dropped; [`reap_adopted_orphans`] reaps only children that are
//! not registered (and not in runbound's own process group: a child some other code in this
//! process forked without this module is that code's to wait for).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use parking_lot::Mutex;

use crate::error::{ErrorKind, ToolError};
use crate::transport::confinement::{self, ConfinementOutcome, FilesystemConfinement};

/// Default size of the stderr tail ring: 64 KiB.
pub const DEFAULT_STDERR_TAIL_BYTES: usize = 64 * 1024;

/// Grace between SIGTERM and SIGKILL in [`ChildProcess::kill_group`] and on drop: 300 ms.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_millis(300);

/// What to spawn and how. Build with [`ProcessSpec::new`] and the `with_*` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessSpec {
    /// The program: an absolute path (resolve with `which` first) or a bare name looked up on
    /// PATH by the OS.
    pub program: PathBuf,
    /// Arguments, without the program name.
    pub args: Vec<OsString>,
    /// Working directory of the child. Must be absolute; a relative path is refused at spawn
    /// (nothing in runbound depends on the process's own current directory).
    pub cwd: PathBuf,
    /// Environment variables to set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Inherited environment variables to remove.
    pub env_remove: Vec<OsString>,
    /// Human name used in every error and thread name, e.g. `"pyright @ /abs/root"`.
    pub display_name: String,
    /// Pipe stdin (true) or connect it to /dev/null (false). Default true.
    pub stdin: bool,
    /// Pipe stdout (true) or connect it to /dev/null (false). Default true.
    pub stdout: bool,
    /// Size in bytes of the stderr tail ring kept for errors and status. Default
    /// `DEFAULT_STDERR_TAIL_BYTES`; 0 keeps nothing (stderr is still drained).
    pub stderr_tail_bytes: usize,
    /// Extra pipes handed to the child at fixed fd numbers (≥ 3, each at most once), e.g. a
    /// protocol channel kept apart from the child's stdout. Default none. The child's end is
    /// installed with `dup2` between fork and exec (so it is inheritable there); the parent's
    /// end is close-on-exec and is taken with [`ChildProcess::take_extra_pipe`].
    pub extra_pipes: Vec<ExtraPipe>,
    /// Landlock confinement of the child's file access (issue 13 §1; see
    /// `transport::confinement`). Default `None` (unconfined). Best effort: when the
    /// kernel cannot confine, the child starts unconfined and
    /// [`ChildProcess::filesystem_confinement`] says why.
    pub filesystem_confinement: Option<FilesystemConfinement>,
}

/// One extra pipe for [`ProcessSpec::extra_pipes`]: the fd number the child sees and which
/// way the bytes flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtraPipe {
    /// The descriptor number in the child, ≥ 3 (0–2 are stdin/stdout/stderr).
    pub child_fd: RawFd,
    /// Which end the parent keeps.
    pub direction: PipeDirection,
}

/// Direction of an [`ExtraPipe`], seen from the parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipeDirection {
    /// The parent writes, the child reads its fd (host → child).
    ParentWrites,
    /// The child writes its fd, the parent reads (child → host).
    ParentReads,
}

impl ProcessSpec {
    /// A spec for `program` run in `cwd`, stdin and stdout piped, a 64 KiB stderr tail, and a
    /// display name made of the program's file name and the cwd (`"prog @ /cwd"`).
    pub fn new(program: impl Into<PathBuf>, cwd: impl Into<PathBuf>) -> ProcessSpec {
        let program = program.into();
        let cwd = cwd.into();
        let short = program.file_name().map_or_else(|| program.display().to_string(), |n| n.to_string_lossy().into_owned());
        ProcessSpec {
            display_name: format!("{short} @ {}", cwd.display()),
            program,
            args: Vec::new(),
            cwd,
            env: Vec::new(),
            env_remove: Vec::new(),
            stdin: true,
            stdout: true,
            stderr_tail_bytes: DEFAULT_STDERR_TAIL_BYTES,
            extra_pipes: Vec::new(),
            filesystem_confinement: None,
        }
    }

    /// Appends one argument.
    #[must_use]
    pub fn with_arg(mut self, arg: impl Into<OsString>) -> ProcessSpec {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    #[must_use]
    pub fn with_args<I, S>(mut self, args: I) -> ProcessSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child.
    #[must_use]
    pub fn with_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> ProcessSpec {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Removes an inherited environment variable from the child's environment.
    #[must_use]
    pub fn with_env_remove(mut self, key: impl Into<OsString>) -> ProcessSpec {
        self.env_remove.push(key.into());
        self
    }

    /// Sets the display name used in errors and thread names.
    #[must_use]
    pub fn with_display_name(mut self, display_name: impl Into<String>) -> ProcessSpec {
        self.display_name = display_name.into();
        self
    }

    /// Pipes stdin (`true`) or connects it to /dev/null (`false`).
    #[must_use]
    pub fn with_stdin_piped(mut self, piped: bool) -> ProcessSpec {
        self.stdin = piped;
        self
    }

    /// Pipes stdout (`true`) or connects it to /dev/null (`false`).
    #[must_use]
    pub fn with_stdout_piped(mut self, piped: bool) -> ProcessSpec {
        self.stdout = piped;
        self
    }

    /// Sets the stderr tail ring size in bytes.
    #[must_use]
    pub fn with_stderr_tail_bytes(mut self, bytes: usize) -> ProcessSpec {
        self.stderr_tail_bytes = bytes;
        self
    }

    /// Confines the child's file access to `confinement` (see
    /// [`ProcessSpec::filesystem_confinement`]).
    #[must_use]
    pub fn with_filesystem_confinement(mut self, confinement: FilesystemConfinement) -> ProcessSpec {
        self.filesystem_confinement = Some(confinement);
        self
    }

    /// Adds an extra pipe the child sees at fd `child_fd` (≥ 3); see [`ProcessSpec::extra_pipes`].
    #[must_use]
    pub fn with_extra_pipe(mut self, child_fd: RawFd, direction: PipeDirection) -> ProcessSpec {
        self.extra_pipes.push(ExtraPipe { child_fd, direction });
        self
    }
}

/// A cloneable handle on a child's stderr tail ring; stays readable after the child exits and
/// after the [`ChildProcess`] is dropped (e.g. from a reader thread reporting a crash).
#[derive(Debug, Clone)]
pub struct StderrTail {
    inner: Arc<Mutex<TailRing>>,
}

impl StderrTail {
    /// The last bytes the child wrote to stderr, lossily decoded as UTF-8. When older output was
    /// dropped, the text starts with `[stderr: showing last N of M bytes]` and a newline, so a
    /// truncation is never silent. Empty when the child wrote nothing.
    pub fn text(&self) -> String {
        let ring = self.inner.lock();
        let (front, back) = ring.bytes.as_slices();
        let mut bytes = Vec::with_capacity(ring.bytes.len());
        bytes.extend_from_slice(front);
        bytes.extend_from_slice(back);
        let kept = bytes.len() as u64;
        if kept == ring.total {
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        // Older output was dropped: start at a line boundary when there is one.
        let start = bytes.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
        let start = if start < bytes.len() { start } else { 0 };
        let shown = &bytes[start..];
        format!("[stderr: showing last {} of {} bytes]\n{}", shown.len(), ring.total, String::from_utf8_lossy(shown))
    }

    /// Total bytes the child wrote to stderr so far (including dropped ones).
    pub fn total_bytes(&self) -> u64 {
        self.inner.lock().total
    }
}

#[derive(Debug, Default)]
struct TailRing {
    capacity: usize,
    bytes: std::collections::VecDeque<u8>,
    total: u64,
}

/// A running child process in its own process group. Thread-safe: every method takes `&self`,
/// so the handle can be shared (e.g. in an `Arc`) between an owner and a reader thread.
///
/// Drop kills the group (see [`ChildProcess::kill_group`]), reaps the leader and joins the
/// stderr drain thread (bounded: the drain polls a stop flag every 50 ms).
#[derive(Debug)]
pub struct ChildProcess {
    display_name: String,
    pid: u32,
    child: Mutex<Child>,
    stdin: Mutex<Option<ChildStdin>>,
    stdout: Mutex<Option<ChildStdout>>,
    /// Parent ends of the extra pipes, by the child's fd number; `None` once taken.
    extra_pipes: Mutex<Vec<(RawFd, Option<File>)>>,
    killed: AtomicBool,
    /// The environment variable name only this child and its descendants carry.
    descendant_tag: OsString,
    /// The child's start time in clock ticks after boot (0 if /proc could not tell): its
    /// descendants started no earlier, so older processes are never inspected by the sweep.
    start_time_ticks: u64,
    /// Set when `waitpid` said ECHILD: someone else reaped the leader; its status is unknown.
    reaped_elsewhere: AtomicBool,
    tail: StderrTail,
    drain_stop: Arc<AtomicBool>,
    drain: Mutex<Option<JoinHandle<()>>>,
    /// Whether the child runs under its spec's filesystem confinement (`None`: none asked);
    /// boxed: it lists roots, and a handle is embedded in other enums.
    filesystem_confinement: Option<Box<ConfinementOutcome>>,
    /// The child's private temp dir (removed on drop, after the group is killed).
    _private_temp_dir: Option<tempfile::TempDir>,
    // Last field: released after the child is reaped, so the spawner thread outlives it.
    _lease: SpawnerLease,
}

impl ChildProcess {
    /// Spawns `spec`.
    ///
    /// Errors ([`ToolError`]): `invalid_arguments` if `spec.cwd` is relative or an extra pipe's
    /// fd is below 3 or repeated; `not_found` if the cwd or the program does not exist;
    /// `unavailable` for any other spawn failure (permission denied, not executable, no pipe).
    /// Messages name `display_name`, the program and the cwd.
    ///
    /// With [`ProcessSpec::filesystem_confinement`], the child is confined with Landlock; when
    /// that cannot be done (no Landlock, the ruleset refused, the program failing to start
    /// under it) it is started unconfined and [`ChildProcess::filesystem_confinement`] says why.
    pub fn spawn(spec: ProcessSpec) -> Result<ChildProcess, ToolError> {
        let Some(confinement) = spec.filesystem_confinement.clone() else {
            return ChildProcess::spawn_confined(spec, None, None);
        };
        let temp_dir = if confinement.private_temp_dir {
            match tempfile::Builder::new().prefix("runbound-child-tmp-").tempdir() {
                Ok(dir) => Some(dir),
                Err(err) => {
                    let reason = format!("its private temporary directory could not be created ({err})");
                    return ChildProcess::spawn_confined(spec, Some((None, ConfinementOutcome::NotConfined { reason })), None);
                }
            }
        } else {
            None
        };
        let prepared = match confinement::prepare(&confinement, temp_dir.as_ref().map(tempfile::TempDir::path)) {
            Ok(prepared) => prepared,
            Err(reason) => return ChildProcess::spawn_confined(spec, Some((None, ConfinementOutcome::NotConfined { reason })), None),
        };
        match ChildProcess::spawn_confined(spec.clone(), Some((Some(prepared.ruleset), prepared.outcome)), temp_dir) {
            Ok(child) => Ok(child),
            // Not the confinement's doing: the same spawn would fail unconfined.
            Err(err) if matches!(err.kind, ErrorKind::NotFound | ErrorKind::InvalidArguments) => Err(err),
            Err(err) => {
                let reason = format!("{} did not start under Landlock ({}), so it was started without", spec.display_name, err.message);
                ChildProcess::spawn_confined(spec, Some((None, ConfinementOutcome::NotConfined { reason })), None)
            }
        }
    }

    /// [`ChildProcess::spawn`] with the confinement decided: `(ruleset to restrict the child
    /// to, outcome to report)`, and the private temp dir to hand over.
    fn spawn_confined(
        spec: ProcessSpec,
        confinement: Option<(Option<OwnedFd>, ConfinementOutcome)>,
        temp_dir: Option<tempfile::TempDir>,
    ) -> Result<ChildProcess, ToolError> {
        let mut command = build_command(&spec)?;
        if let Some(dir) = &temp_dir {
            for key in ["TMPDIR", "TMP", "TEMP"] {
                command.env(key, dir.path());
            }
        }
        let (ruleset, outcome) = match confinement {
            Some((ruleset, outcome)) => (ruleset, Some(outcome)),
            None => (None, None),
        };
        if let Some(ruleset) = ruleset {
            confinement::install_before_exec(&mut command, ruleset);
        }
        let descendant_tag = next_descendant_tag();
        command.env(&descendant_tag, "1");
        let (parent_ends, child_ends) = open_extra_pipes(&spec)?;
        install_extra_pipes(&mut command, &spec.extra_pipes, &child_ends);
        command.stdin(if spec.stdin { Stdio::piped() } else { Stdio::null() });
        command.stdout(if spec.stdout { Stdio::piped() } else { Stdio::null() });
        command.stderr(Stdio::piped());
        let lease = SpawnerLease::acquire();
        let spawned = spawn_on_spawner_thread(command);
        // The child has its copies (or never started): close ours so EOF propagates.
        drop(child_ends);
        let mut child = spawned.map_err(|err| spawn_error(&spec, &err))?;
        let pid = child.id();
        let start_time_ticks = process_start_time_ticks(pid).unwrap_or(0);
        let tail = StderrTail::with_capacity(spec.stderr_tail_bytes);
        let stop = Arc::new(AtomicBool::new(false));
        let drain = child.stderr.take().map(|stderr| {
            let tail = tail.clone();
            let stop = Arc::clone(&stop);
            thread::Builder::new()
                .name(format!("runbound-{}-stderr", thread_label(&spec)))
                .spawn(move || pump_fd(stderr, &stop, &mut |chunk| tail.push(chunk)))
        });
        let drain = match drain.transpose() {
            Ok(drain) => drain,
            Err(err) => {
                // No drain thread: the child could block on stderr. Do not keep it.
                kill_and_reap(&mut child, pid);
                return Err(ToolError::new(
                    ErrorKind::Unavailable,
                    format!("cannot start the stderr thread for {}: {err}", spec.display_name),
                ));
            }
        };
        Ok(ChildProcess {
            display_name: spec.display_name,
            pid,
            stdin: Mutex::new(child.stdin.take()),
            stdout: Mutex::new(child.stdout.take()),
            extra_pipes: Mutex::new(parent_ends),
            child: Mutex::new(child),
            killed: AtomicBool::new(false),
            descendant_tag,
            start_time_ticks,
            reaped_elsewhere: AtomicBool::new(false),
            tail,
            drain_stop: stop,
            drain: Mutex::new(drain),
            filesystem_confinement: outcome.map(Box::new),
            _private_temp_dir: temp_dir,
            _lease: lease,
        })
    }

    /// The OS process id of the leader, which is also the process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The spec's display name.
    pub fn display_name(&self) -> &str {
        &self.display_name
    }

    /// Whether the child runs under its spec's [`ProcessSpec::filesystem_confinement`]
    /// (`None` when the spec asked for none).
    pub fn filesystem_confinement(&self) -> Option<&ConfinementOutcome> {
        self.filesystem_confinement.as_deref()
    }

    /// Takes the child's stdin pipe (once; `None` afterwards or if not piped). Dropping it
    /// closes the child's stdin.
    pub fn take_stdin(&self) -> Option<ChildStdin> {
        self.stdin.lock().take()
    }

    /// Takes the child's stdout pipe (once; `None` afterwards or if not piped). The caller must
    /// keep reading it (or drop it), or the child blocks on a full pipe.
    pub fn take_stdout(&self) -> Option<ChildStdout> {
        self.stdout.lock().take()
    }

    /// Takes the parent's end of the extra pipe the child sees at `child_fd` (once; `None`
    /// afterwards or if the spec had no such pipe). It is a blocking, close-on-exec `File`:
    /// write to it for [`PipeDirection::ParentWrites`] (dropping it gives the child EOF), read
    /// it for [`PipeDirection::ParentReads`] (keep reading, or the child blocks on a full pipe).
    pub fn take_extra_pipe(&self, child_fd: RawFd) -> Option<File> {
        self.extra_pipes.lock().iter_mut().find(|(fd, _)| *fd == child_fd).and_then(|(_, file)| file.take())
    }

    /// The stderr tail as text; see [`StderrTail::text`].
    pub fn stderr_tail(&self) -> String {
        self.tail.text()
    }

    /// A cloneable handle on the stderr tail that outlives this handle.
    pub fn stderr_tail_handle(&self) -> StderrTail {
        self.tail.clone()
    }

    /// The exit status if the leader has exited (reaping it), else `None`. Never blocks.
    ///
    /// `None` while /proc shows the leader as a zombie (`Z`) is not a bug: Linux reports a
    /// thread-group leader as `Z` as soon as its *main thread* ends, but `waitpid` reports the
    /// process only once its last thread is gone (a main thread that called `pthread_exit`, or
    /// the window while `exit_group` tears the other threads down). The process is still
    /// running then; [`ChildProcess::wait_timeout`] returns the status once it really exits.
    /// Also `None` (never a made-up status) if something outside this handle reaped the pid
    /// (`waitpid(-1)`, `SIGCHLD` ignored); [`ChildProcess::describe_state`] says so.
    pub fn try_wait(&self) -> Option<ExitStatus> {
        // std caches the status once reaped, so repeated calls keep returning it.
        match self.child.lock().try_wait() {
            Ok(Some(status)) => {
                release_owned_child(self.pid);
                Some(status)
            }
            Ok(None) => None,
            Err(err) => {
                if err.raw_os_error() == Some(libc::ECHILD) {
                    self.reaped_elsewhere.store(true, Ordering::SeqCst);
                    release_owned_child(self.pid);
                }
                None
            }
        }
    }

    /// Waits up to `timeout` for the leader to exit; `None` if it is still running (or was
    /// reaped outside this handle: then it returns at once; see [`ChildProcess::try_wait`]).
    pub fn wait_timeout(&self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        let mut pause = Duration::from_millis(1);
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if self.reaped_elsewhere.load(Ordering::SeqCst) {
                return None;
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// Stops the whole process group: SIGTERM to the group, up to [`DEFAULT_KILL_GRACE`] for the
    /// leader to exit, then SIGKILL to the group (grandchildren included), then SIGKILL to every
    /// descendant that left the group but still carries [`ChildProcess::descendant_tag`], then
    /// reaps the leader (bounded wait, 5 s). Returns the leader's exit status, `None` only if it
    /// could not be reaped in time. Idempotent.
    pub fn kill_group(&self) -> Option<ExitStatus> {
        self.kill_group_with_grace(DEFAULT_KILL_GRACE)
    }

    /// Like [`ChildProcess::kill_group`] with an explicit SIGTERM→SIGKILL grace.
    pub fn kill_group_with_grace(&self, grace: Duration) -> Option<ExitStatus> {
        if self.killed.swap(true, Ordering::SeqCst) {
            return self.wait_timeout(REAP_TIMEOUT);
        }
        let group = Pid::from_raw(self.pid as i32);
        // ESRCH (group already empty) is fine; nothing else can fail for our own group.
        let _ = killpg(group, Signal::SIGTERM);
        self.wait_timeout(grace);
        // Always SIGKILL the group: the leader may have exited on SIGTERM while descendants
        // in its group ignore it. The unreaped or just-reaped leader keeps the pgid reserved.
        let _ = killpg(group, Signal::SIGKILL);
        // Escaped descendants can still fork while we look: sweep until a pass finds none.
        for _ in 0..5 {
            if kill_tagged_processes(&self.descendant_tag, self.start_time_ticks) == 0 {
                break;
            }
        }
        self.wait_timeout(REAP_TIMEOUT)
    }

    /// The name of the environment variable (value `1`) that this child and every descendant
    /// that keeps its environment carry: `RUNBOUND_DESCENDANT_OF_<runbound pid>_<runbound start
    /// time in clock ticks>_<serial>`.
    pub fn descendant_tag(&self) -> &std::ffi::OsStr {
        &self.descendant_tag
    }

    /// One line for errors: `"<display_name> (pid N) exited with <status>"` or `"… is running"`,
    /// followed by the stderr tail when non-empty.
    pub fn describe_state(&self) -> String {
        let state = match self.try_wait() {
            Some(status) => format!("exited with {status}"),
            None if self.reaped_elsewhere.load(Ordering::SeqCst) => {
                "has exited (reaped outside runbound's handle; exit status unknown)".to_owned()
            }
            None => "is running".to_owned(),
        };
        let mut text = format!("{} (pid {}) {state}", self.display_name, self.pid);
        let tail = self.tail.text();
        if !tail.trim().is_empty() {
            text.push_str("; stderr tail:\n");
            text.push_str(tail.trim_end());
        }
        text
    }
}

/// The outcome of [`run_to_completion`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedProcess {
    /// The leader's exit status (after a group kill on timeout, the status of the kill).
    pub status: ExitStatus,
    /// Captured stdout: the first `max_output_bytes` bytes.
    pub stdout: Vec<u8>,
    /// Captured stderr: the *last* `max_output_bytes` bytes (errors tend to come last).
    pub stderr: Vec<u8>,
    /// Total bytes written to stdout (may exceed `stdout.len()` when truncated).
    pub stdout_total_bytes: u64,
    /// Total bytes written to stderr (may exceed `stderr.len()` when truncated).
    pub stderr_total_bytes: u64,
    /// True when the timeout expired and the group was killed.
    pub timed_out: bool,
    /// True when stdout or stderr was cut at `max_output_bytes`.
    pub truncated: bool,
    /// Wall time from spawn to reap.
    pub elapsed: Duration,
    /// Whether the command ran under its spec's filesystem confinement (`None`: none asked).
    pub filesystem_confinement: Option<ConfinementOutcome>,
}

/// Runs `spec` to completion for a checker or shell command: writes `stdin_bytes` to its stdin
/// (then closes it), captures stdout (its first `max_output_bytes`) and stderr (its last
/// `max_output_bytes`; the rest of both is drained and counted), and waits up to `timeout`. On timeout the whole process group is
/// killed and `timed_out` is set. After the leader exits, any background processes left in its
/// group are killed too. `spec.stdin`, `spec.stdout` and `spec.stderr_tail_bytes` are ignored
/// (all three streams are piped), and so is `spec.extra_pipes` (no extra pipe is opened).
///
/// Errors: as [`ChildProcess::spawn`].
pub fn run_to_completion(
    spec: ProcessSpec,
    stdin_bytes: &[u8],
    timeout: Duration,
    max_output_bytes: usize,
) -> Result<CompletedProcess, ToolError> {
    let start = Instant::now();
    let label = thread_label(&spec);
    let display_name = spec.display_name.clone();
    let mut spec = spec;
    spec.extra_pipes.clear();
    let spec = spec.with_stdin_piped(true).with_stdout_piped(true).with_stderr_tail_bytes(max_output_bytes);
    let child = ChildProcess::spawn(spec)?;
    let stop = Arc::new(AtomicBool::new(false));

    let stdin_thread = child.take_stdin().map(|mut stdin| {
        let input = stdin_bytes.to_vec();
        thread::Builder::new().name(format!("runbound-{label}-stdin")).spawn(move || {
            // EPIPE when the child does not read its input is expected; nothing to report.
            let _ = stdin.write_all(&input);
        })
    });
    let stdout_capture = Arc::new(Mutex::new((Vec::new(), 0u64)));
    let stdout_thread = child.take_stdout().map(|stdout| {
        let capture = Arc::clone(&stdout_capture);
        let stop = Arc::clone(&stop);
        thread::Builder::new().name(format!("runbound-{label}-stdout")).spawn(move || {
            pump_fd(stdout, &stop, &mut |chunk| {
                let mut capture = capture.lock();
                let room = max_output_bytes.saturating_sub(capture.0.len());
                capture.0.extend_from_slice(&chunk[..chunk.len().min(room)]);
                capture.1 += chunk.len() as u64;
            })
        })
    });
    let thread_error =
        |err: std::io::Error| ToolError::new(ErrorKind::Unavailable, format!("cannot start an I/O thread for {display_name}: {err}"));
    let stdin_thread = stdin_thread.transpose().map_err(thread_error)?;
    let stdout_thread = stdout_thread.transpose().map_err(thread_error)?;

    let exited = child.wait_timeout(timeout);
    let timed_out = exited.is_none();
    // Kill the group either way: on timeout the command, otherwise what it left running in
    // the background (which would also hold our pipes open).
    let status = child.kill_group_with_grace(if timed_out { DEFAULT_KILL_GRACE } else { Duration::ZERO });
    let Some(status) = exited.or(status) else {
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            format!("{display_name} (pid {}) could not be reaped after SIGKILL", child.pid()),
        ));
    };
    if let Some(handle) = stdout_thread {
        // The pipe reaches EOF once the group is dead; the stop flag bounds the wait otherwise.
        if !join_bounded(handle, Duration::from_millis(500)) {
            stop.store(true, Ordering::SeqCst);
        }
    }
    if let Some(handle) = stdin_thread {
        join_bounded(handle, Duration::from_millis(500));
    }
    let stderr_total_bytes = child.tail.total_bytes();
    child.stop_drain();
    let stderr = child.tail.bytes();
    let (stdout, stdout_total_bytes) = std::mem::take(&mut *stdout_capture.lock());
    let truncated = stdout_total_bytes > stdout.len() as u64 || stderr_total_bytes > stderr.len() as u64;
    Ok(CompletedProcess {
        status,
        stdout,
        stderr,
        stdout_total_bytes,
        stderr_total_bytes,
        timed_out,
        truncated,
        elapsed: start.elapsed(),
        filesystem_confinement: child.filesystem_confinement().cloned(),
    })
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.kill_group();
        self.stop_drain();
        // Reaped by now, or (past the reap timeout) nobody else will wait for it: from here on
        // a subreaper's reap_adopted_orphans may collect it.
        release_owned_child(self.pid);
    }
}

impl ChildProcess {
    /// Waits up to `timeout` for the stderr drain to reach EOF (all writers gone), so a crash
    /// report carries the last lines. Returns whether it did.
    pub(crate) fn wait_stderr_drained(&self, timeout: Duration) -> bool {
        match self.drain.lock().as_ref() {
            Some(handle) => wait_finished(handle, timeout),
            None => true,
        }
    }

    /// Joins the stderr drain: it ends by itself at EOF once the group is dead; after 500 ms
    /// the stop flag ends it (a process that escaped the group may hold the pipe open).
    fn stop_drain(&self) {
        let Some(handle) = self.drain.lock().take() else {
            return;
        };
        if !wait_finished(&handle, Duration::from_millis(500)) {
            self.drain_stop.store(true, Ordering::SeqCst);
        }
        let _ = handle.join();
    }
}

impl StderrTail {
    fn with_capacity(capacity: usize) -> StderrTail {
        StderrTail { inner: Arc::new(Mutex::new(TailRing { capacity, ..TailRing::default() })) }
    }

    fn push(&self, chunk: &[u8]) {
        let mut ring = self.inner.lock();
        ring.total += chunk.len() as u64;
        let capacity = ring.capacity;
        let chunk = &chunk[chunk.len().saturating_sub(capacity)..];
        let overflow = (ring.bytes.len() + chunk.len()).saturating_sub(capacity);
        ring.bytes.drain(..overflow);
        ring.bytes.extend(chunk);
    }

    fn bytes(&self) -> Vec<u8> {
        self.inner.lock().bytes.iter().copied().collect()
    }
}

/// What /proc says about one process (see [`process_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessState {
    /// Running, sleeping, stopped, traced, ...: any state but `Z` and `X`.
    Live,
    /// /proc shows `Z`: exited and not yet reaped by its parent (signalling it does nothing).
    /// Linux subtlety: a thread-group leader also shows `Z` as soon as its *main thread* ends
    /// while other threads of the group still run (see [`ChildProcess::try_wait`]); /proc's
    /// per-process state cannot tell the two apart, so callers that must know whether the
    /// process really exited wait for its status instead.
    Zombie,
    /// /proc shows `X`: being torn down; the pid is about to vanish.
    Dead,
}

impl ProcessState {
    /// True for [`ProcessState::Live`].
    pub fn is_live(self) -> bool {
        self == ProcessState::Live
    }
}

/// One process as seen in /proc: its pid and its start time, which together identify it even
/// after the pid is reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessIdentity {
    /// The process id.
    pub pid: u32,
    /// Start time in clock ticks after system boot (`/proc/<pid>/stat` field 22, `starttime`).
    pub start_time_ticks: u64,
}

/// The state of process `pid` from `/proc/<pid>/stat` (field 3). `None` when there is no such process (never existed, or reaped) or
/// /proc cannot be read. Linux only.
pub fn process_state(pid: u32) -> Option<ProcessState> {
    let process = procfs::process::Process::new(i32::try_from(pid).ok()?).ok()?;
    let stat = process.stat().ok()?;
    Some(classify(&stat))
}

/// The start time of process `pid` in clock ticks after boot (`/proc/<pid>/stat` field 22), to
/// tell a process from a later one that reuses its pid; `None` when there is no such process.
pub fn process_start_time_ticks(pid: u32) -> Option<u64> {
    let process = procfs::process::Process::new(i32::try_from(pid).ok()?).ok()?;
    process.stat().ok().map(|stat| stat.starttime)
}

/// Pids of every live descendant of `root_pid` (children, grandchildren, ...), found by one
/// walk of /proc; a child is listed after its parent. Processes /proc shows as `Z` or `X` are
/// left out, but the walk continues below them (a `Z` leader whose other threads still run
/// can have children of its own; see [`ProcessState::Zombie`]). Empty when `root_pid` has no live descendants or /proc is
/// unreadable. `root_pid` itself is never included. Same as [`descendant_processes`] without
/// start times.
pub fn descendant_pids(root_pid: u32) -> Vec<u32> {
    descendant_processes(root_pid).into_iter().map(|identity| identity.pid).collect()
}

/// Like [`descendant_pids`], with each process's start time (to recognise it later even if
/// its pid is reused; compare with [`process_start_time_ticks`]).
pub fn descendant_processes(root_pid: u32) -> Vec<ProcessIdentity> {
    descendant_processes_and_groups(root_pid).0
}

/// Like [`descendant_processes`], plus the process group ids (`pgrp` in /proc) of every
/// descendant the walk met, exited-but-unreaped ones included, each once. A process that forks
/// and exits faster than /proc can be walked (a "pid hopper") keeps its group, so the group
/// still names it after the pid the walk saw is gone.
pub fn descendant_processes_and_groups(root_pid: u32) -> (Vec<ProcessIdentity>, Vec<i32>) {
    let Ok(all) = procfs::process::all_processes() else {
        return (Vec::new(), Vec::new());
    };
    // (pid, parent pid, start time, live, process group); processes that vanish mid-walk are skipped.
    let mut table: Vec<(u32, u32, u64, bool, i32)> = Vec::new();
    for process in all.flatten() {
        let Ok(stat) = process.stat() else {
            continue;
        };
        let (Ok(pid), Ok(parent_pid)) = (u32::try_from(stat.pid), u32::try_from(stat.ppid)) else {
            continue;
        };
        let live = classify(&stat).is_live();
        table.push((pid, parent_pid, stat.starttime, live, stat.pgrp));
    }
    let mut found = Vec::new();
    let mut groups = Vec::new();
    let mut visited = Vec::new();
    let mut frontier = vec![root_pid];
    while let Some(parent) = frontier.pop() {
        for &(pid, parent_pid, start_time_ticks, live, group) in &table {
            if parent_pid != parent || visited.contains(&pid) {
                continue;
            }
            visited.push(pid);
            if live {
                found.push(ProcessIdentity { pid, start_time_ticks });
            }
            if !groups.contains(&group) {
                groups.push(group);
            }
            frontier.push(pid);
        }
    }
    (found, groups)
}

/// The values of environment variable `name` in this process's environment and in the initial
/// environment (`/proc/<pid>/environ`, as it was at exec) of each ancestor — parent,
/// grandparent, … up to 64 or pid 1 — nearest first, each with where it was found (`"this
/// process's environment"`, `"the environment of ancestor pid 1234 (sh)"`). An ancestor whose
/// environment cannot be read (another user's, non-dumpable) is skipped. Linux only.
///
/// Used for what a worker inherits from the run that spawned it when a program in between (an
/// MCP stdio client) started it with a stripped environment: the spawning caller's mode and the
/// ask channel.
pub fn inherited_environment_variable(name: &str) -> Vec<(std::ffi::OsString, String)> {
    const MAX_ANCESTORS: usize = 64;
    let mut found = Vec::new();
    if let Some(value) = std::env::var_os(name) {
        found.push((value, "this process's environment".to_owned()));
    }
    let mut pid = procfs::process::Process::myself().ok().and_then(|me| me.stat().ok()).map_or(0, |stat| stat.ppid);
    for _ in 0..MAX_ANCESTORS {
        if pid <= 0 {
            break;
        }
        let Ok(process) = procfs::process::Process::new(pid) else { break };
        let Ok(stat) = process.stat() else { break };
        if let Some(value) = process.environ().ok().and_then(|environment| environment.get(std::ffi::OsStr::new(name)).cloned()) {
            found.push((value, format!("the environment of ancestor pid {pid} ({})", stat.comm)));
        }
        if pid == 1 {
            break;
        }
        pid = stat.ppid;
    }
    found
}

/// Sends SIGKILL to each recorded process that is still the same process (its start time
/// matches, so a reused pid is left alone) and still live; returns how many were signalled.
/// For processes a resource saw under its child (a debuggee under its adapter) and must not
/// outlive it even when the child died first and they were reparented.
pub fn kill_recorded_processes(processes: &[ProcessIdentity]) -> usize {
    let mut signalled = 0;
    for identity in processes {
        if process_start_time_ticks(identity.pid) != Some(identity.start_time_ticks)
            || process_state(identity.pid) != Some(ProcessState::Live)
        {
            continue;
        }
        let Ok(raw) = i32::try_from(identity.pid) else { continue };
        if nix::sys::signal::kill(Pid::from_raw(raw), Signal::SIGKILL).is_ok() {
            signalled += 1;
        }
    }
    signalled
}

/// Sends SIGKILL to every process whose initial environment (`/proc/<pid>/environ`, as it was
/// at exec) has the variable `tag`, except runbound itself; returns how many were signalled.
/// Only processes started at or after `started_after_ticks` (clock ticks after boot, as in
/// [`process_start_time_ticks`]; 0 = all) are inspected: a descendant is never older than the
/// child that carries the tag, and reading another process's environment can wait on that
/// process's memory map, so the sweep stays away from everything older. Processes whose
/// environment cannot be read (another user's, a zombie, gone mid-walk) are skipped. One walk of
/// /proc: about 20 µs per process on the machine.
pub fn kill_tagged_processes(tag: &std::ffi::OsStr, started_after_ticks: u64) -> usize {
    let Ok(all) = procfs::process::all_processes() else {
        return 0;
    };
    let own_pid = std::process::id() as i32;
    let mut signalled = 0;
    for process in all.flatten() {
        if process.pid == own_pid {
            continue;
        }
        let Ok(stat) = process.stat() else {
            continue;
        };
        if stat.starttime < started_after_ticks || !classify(&stat).is_live() {
            continue;
        }
        let Ok(environment) = process.environ() else {
            continue;
        };
        if environment.contains_key(tag) && nix::sys::signal::kill(Pid::from_raw(process.pid), Signal::SIGKILL).is_ok() {
            signalled += 1;
        }
    }
    signalled
}

/// A fresh descendant tag: `RUNBOUND_DESCENDANT_OF_<our pid>_<our start time in ticks>_<serial>`.
fn next_descendant_tag() -> OsString {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    static OWN_START_TIME_TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    let pid = std::process::id();
    // Our start time makes the tag ours alone even when a later process reuses our pid.
    let started = *OWN_START_TIME_TICKS.get_or_init(|| process_start_time_ticks(pid).unwrap_or(0));
    OsString::from(format!("RUNBOUND_DESCENDANT_OF_{pid}_{started}_{serial}"))
}

fn classify(stat: &procfs::process::Stat) -> ProcessState {
    match stat.state {
        'Z' => ProcessState::Zombie,
        'X' | 'x' => ProcessState::Dead,
        _ => ProcessState::Live,
    }
}

/// How long to wait for the leader to be reaped after SIGKILL.
const REAP_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a spawn may wait for the spawner thread.
const SPAWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Poll interval of the pipe pumps; bounds how long a stop request takes.
const PUMP_POLL_MS: i32 = 50;

fn build_command(spec: &ProcessSpec) -> Result<Command, ToolError> {
    if !spec.cwd.is_absolute() {
        return Err(ToolError::invalid(format!(
            "working directory {:?} of {} is relative; runbound never depends on its own current directory",
            spec.cwd, spec.display_name
        ))
        .with_hint("pass an absolute working directory (e.g. the run's workspace root)"));
    }
    if !spec.cwd.is_dir() {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!("working directory {} of {} does not exist or is not a directory", spec.cwd.display(), spec.display_name),
        ));
    }
    let mut command = Command::new(&spec.program);
    command.args(&spec.args).current_dir(&spec.cwd).process_group(0);
    for key in &spec.env_remove {
        command.env_remove(key);
    }
    for (key, value) in &spec.env {
        command.env(key, value);
    }
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls (sigemptyset, pthread_sigmask, prctl, getppid) between
    // fork and exec.
    unsafe {
        command.pre_exec(move || {
            // A host may block signals in its threads (the CLI blocks SIGINT/SIGTERM/SIGHUP to
            // take them on one thread); a child must not inherit that, or interrupting a kernel,
            // a debuggee or a shell child would do nothing.
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            if libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut()) != 0 {
                return Err(io::Error::other("cannot clear the signal mask"));
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            // We died between fork and prctl: do not run orphaned.
            if libc::getppid() != parent {
                return Err(io::Error::other("parent exited before the child started"));
            }
            Ok(())
        });
    }
    Ok(command)
}

/// Opens one close-on-exec pipe per [`ExtraPipe`]: returns the parent ends (by child fd) and
/// the child ends (in spec order), after checking the fd numbers.
#[allow(clippy::type_complexity)]
fn open_extra_pipes(spec: &ProcessSpec) -> Result<(Vec<(RawFd, Option<File>)>, Vec<OwnedFd>), ToolError> {
    let mut parent_ends = Vec::with_capacity(spec.extra_pipes.len());
    let mut child_ends = Vec::with_capacity(spec.extra_pipes.len());
    for (index, pipe) in spec.extra_pipes.iter().enumerate() {
        if pipe.child_fd < 3 {
            return Err(ToolError::invalid(format!(
                "extra pipe for {} asks for fd {}; fds 0-2 are stdin/stdout/stderr",
                spec.display_name, pipe.child_fd
            ))
            .with_hint("use fd 3 or above for extra pipes"));
        }
        if spec.extra_pipes[..index].iter().any(|other| other.child_fd == pipe.child_fd) {
            return Err(ToolError::invalid(format!("extra pipe fd {} is given twice for {}", pipe.child_fd, spec.display_name)));
        }
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            let err = io::Error::last_os_error();
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("cannot open extra pipe fd {} for {}: {err}", pipe.child_fd, spec.display_name),
            ));
        }
        // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
        let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let (parent, child) = match pipe.direction {
            PipeDirection::ParentWrites => (write_end, read_end),
            PipeDirection::ParentReads => (read_end, write_end),
        };
        parent_ends.push((pipe.child_fd, Some(File::from(parent))));
        child_ends.push(child);
    }
    Ok((parent_ends, child_ends))
}

/// Installs the child ends at their fixed fd numbers between fork and exec. Every child end is
/// first duplicated above every target fd, so a `dup2` never overwrites an end not yet placed.
fn install_extra_pipes(command: &mut Command, pipes: &[ExtraPipe], child_ends: &[OwnedFd]) {
    if pipes.is_empty() {
        return;
    }
    let sources: Vec<RawFd> = child_ends.iter().map(AsRawFd::as_raw_fd).collect();
    let targets: Vec<RawFd> = pipes.iter().map(|pipe| pipe.child_fd).collect();
    let above = targets.iter().copied().max().unwrap_or(2) + 1;
    // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork and exec; the vectors
    // were allocated before the fork and are only read here.
    unsafe {
        command.pre_exec(move || {
            let mut moved = [0 as RawFd; 64];
            if sources.len() > moved.len() {
                return Err(io::Error::other("more than 64 extra pipes"));
            }
            for (slot, &source) in moved.iter_mut().zip(&sources) {
                let high = libc::fcntl(source, libc::F_DUPFD_CLOEXEC, above);
                if high < 0 {
                    return Err(io::Error::last_os_error());
                }
                *slot = high;
            }
            for (&high, &target) in moved.iter().zip(&targets) {
                // dup2 leaves FD_CLOEXEC clear on the target: the program inherits it.
                if libc::dup2(high, target) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

fn spawn_error(spec: &ProcessSpec, err: &io::Error) -> ToolError {
    let program = spec.program.display();
    if err.kind() == io::ErrorKind::NotFound {
        return ToolError::new(ErrorKind::NotFound, format!("cannot start {}: program {program} not found", spec.display_name))
            .with_hint("install it or put it on PATH, then retry")
            .with_details(serde_json::json!({"program": spec.program, "cwd": spec.cwd}));
    }
    ToolError::new(ErrorKind::Unavailable, format!("cannot start {}: {program}: {err}", spec.display_name))
        .with_details(serde_json::json!({"program": spec.program, "cwd": spec.cwd, "os_error": err.to_string()}))
}

fn thread_label(spec: &ProcessSpec) -> String {
    spec.program.file_name().map_or_else(|| "child".to_owned(), |name| name.to_string_lossy().into_owned())
}

/// Reads `source` until EOF, an error, or `stop` (checked every 50 ms), handing each chunk
/// to `sink`. Never blocks longer than one poll interval once `stop` is set.
fn pump_fd(mut source: impl Read + AsRawFd, stop: &AtomicBool, sink: &mut dyn FnMut(&[u8])) {
    let fd = source.as_raw_fd();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let mut poll_fd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd for an fd we own for the duration of the call.
        let ready = unsafe { libc::poll(&mut poll_fd, 1, PUMP_POLL_MS) };
        if ready < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if ready == 0 {
            continue;
        }
        match source.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => sink(&buf[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
    }
}

/// Waits up to `timeout` for `handle`'s thread to finish.
fn wait_finished<T>(handle: &JoinHandle<T>, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while !handle.is_finished() {
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(2));
    }
    true
}

/// Joins `handle` if it finishes within `timeout`, else detaches it; returns whether joined.
pub(crate) fn join_bounded<T>(handle: JoinHandle<T>, timeout: Duration) -> bool {
    if !wait_finished(&handle, timeout) {
        return false;
    }
    let _ = handle.join();
    true
}

fn kill_and_reap(child: &mut Child, pid: u32) {
    let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
    let _ = child.wait();
    release_owned_child(pid);
}

// The spawner thread. PR_SET_PDEATHSIG fires when the forking *thread* exits, so children are
// forked from one thread that lives while any child handle (lease) exists, then is joined.

type SpawnJob = (Command, Sender<io::Result<Child>>);

struct Spawner {
    sender: Sender<SpawnJob>,
    handle: JoinHandle<()>,
    leases: usize,
}

static SPAWNER: Mutex<Option<Spawner>> = Mutex::new(None);

/// Keeps the spawner thread alive; the last lease dropped joins it.
#[derive(Debug)]
struct SpawnerLease(());

impl SpawnerLease {
    fn acquire() -> SpawnerLease {
        let mut spawner = SPAWNER.lock();
        match spawner.as_mut() {
            Some(spawner) => spawner.leases += 1,
            None => {
                let (sender, receiver) = crossbeam_channel::unbounded::<SpawnJob>();
                let handle = thread::Builder::new()
                    .name("runbound-spawner".to_owned())
                    .spawn(move || spawner_loop(receiver))
                    .expect("cannot start the runbound-spawner thread");
                *spawner = Some(Spawner { sender, handle, leases: 1 });
            }
        }
        SpawnerLease(())
    }
}

impl Drop for SpawnerLease {
    fn drop(&mut self) {
        let mut guard = SPAWNER.lock();
        let Some(spawner) = guard.as_mut() else {
            return;
        };
        spawner.leases -= 1;
        if spawner.leases > 0 {
            return;
        }
        let Some(Spawner { sender, handle, .. }) = guard.take() else {
            return;
        };
        drop(sender);
        let _ = handle.join();
    }
}

fn spawner_loop(receiver: Receiver<SpawnJob>) {
    for (mut command, reply) in receiver {
        // Registered before the lock is released: the reaper, which holds the same lock while
        // it lists and reaps, never sees this child unregistered (even if it exits at once).
        let mut owned = OWNED_CHILDREN.lock();
        let spawned = command.spawn();
        if let Ok(child) = &spawned {
            owned.push(child.id());
        }
        drop(owned);
        let _ = reply.send(spawned);
    }
}

/// Pids of the children spawned through this module whose [`ChildProcess`] has not reaped them
/// yet. Held while a child is forked and while [`reap_adopted_orphans`] lists and reaps.
static OWNED_CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Forgets `pid` as ours to wait for (reaped by its handle, or its handle is gone).
fn release_owned_child(pid: u32) {
    OWNED_CHILDREN.lock().retain(|owned| *owned != pid);
}

/// An adopted orphan reaped by [`reap_adopted_orphans`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReapedOrphan {
    /// Its process id (gone now).
    pub pid: u32,
    /// Its command name from `/proc/<pid>/stat` (`comm`, at most 15 bytes), e.g. `rustc`.
    pub command: String,
    /// How it ended, e.g. `exit status: 0` or `signal: 9 (SIGKILL)`.
    pub status: String,
}

/// Reaps every child of this process that has exited and that this module did not spawn: the
/// orphans a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, as the CLI sets) adopts from
/// double-forked or `setsid`ed descendants, which would otherwise stay as zombies
/// (`<defunct>`) until the process exits. Never blocks (`waitpid(pid, WNOHANG)` per child).
///
/// Left alone: children spawned through [`ChildProcess::spawn`] that their handle has not
/// reaped yet (their exit status is the handle's), and children in this process's own process
/// group (forked in-process by other code, whose status is that code's). A process that is not
/// a subreaper has no adopted children; the call then finds nothing. Linux only; empty when
/// /proc cannot be read.
pub fn reap_adopted_orphans() -> Vec<ReapedOrphan> {
    let owned = OWNED_CHILDREN.lock();
    // SAFETY: getpgrp takes no arguments and cannot fail.
    let own_group = unsafe { libc::getpgrp() };
    let mut reaped = Vec::new();
    for child in own_children() {
        if owned.contains(&child) {
            continue;
        }
        let Some(process) = i32::try_from(child).ok().and_then(|pid| procfs::process::Process::new(pid).ok()) else {
            continue;
        };
        let Ok(stat) = process.stat() else {
            continue;
        };
        if stat.pgrp == own_group {
            continue;
        }
        let mut status = 0;
        // SAFETY: waitpid on one pid with WNOHANG; `status` is a valid out pointer.
        let waited = unsafe { libc::waitpid(stat.pid, &mut status, libc::WNOHANG) };
        if waited == stat.pid {
            let status = <ExitStatus as std::os::unix::process::ExitStatusExt>::from_raw(status);
            reaped.push(ReapedOrphan { pid: child, command: stat.comm.clone(), status: status.to_string() });
        }
    }
    reaped
}

/// The pids of this process's children: `/proc/self/task/*/children`, or, where the kernel
/// lacks that file, a walk of /proc for processes whose parent is this one.
fn own_children() -> Vec<u32> {
    let me = procfs::process::Process::myself();
    if let Ok(tasks) = me.as_ref().map_err(|_| ()).and_then(|me| me.tasks().map_err(|_| ())) {
        let mut children = Vec::new();
        let mut readable = true;
        for task in tasks.flatten() {
            match task.children() {
                Ok(pids) => children.extend(pids),
                Err(_) => readable = false,
            }
        }
        if readable {
            children.sort_unstable();
            children.dedup();
            return children;
        }
    }
    let own_pid = std::process::id() as i32;
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.flatten()
        .filter_map(|process| process.stat().ok())
        .filter(|stat| stat.ppid == own_pid)
        .filter_map(|stat| u32::try_from(stat.pid).ok())
        .collect()
}

/// Spawns `command` on the spawner thread; the caller must hold a [`SpawnerLease`].
fn spawn_on_spawner_thread(command: Command) -> io::Result<Child> {
    let sender = SPAWNER.lock().as_ref().map(|spawner| spawner.sender.clone());
    let Some(sender) = sender else {
        return Err(io::Error::other("spawner thread is not running"));
    };
    let (reply, result) = crossbeam_channel::bounded(1);
    sender.send((command, reply)).map_err(|_| io::Error::other("spawner thread exited"))?;
    drop(sender);
    match result.recv_timeout(SPAWN_TIMEOUT) {
        Ok(result) => result,
        Err(_) => Err(io::Error::new(io::ErrorKind::TimedOut, "spawner thread did not answer within 30 s")),
    }
}
