//! Process-wide duties of the CLI: it is a child subreaper (orphans of its descendants are
//! re-parented to it), it reaps those orphans as they exit, it turns stop signals into a clean
//! stop, and on exit it kills whatever is still below it.
//!
//! Signals are blocked in every thread before any thread exists ([`ProcessGuard::install`]) and
//! taken by two named threads with `sigwait`/`sigtimedwait`: `runbound-signals` (SIGINT,
//! SIGTERM, SIGHUP; SIGUSR1 is its wake-up) and `runbound-reaper` (SIGCHLD). Children do not
//! inherit the block: the process layer clears the signal mask before exec.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal};

use runbound::processes::{descendant_processes_and_groups, reap_adopted_orphans};

/// Everything process-wide the CLI sets up, torn down in order by [`ProcessGuard::finish`].
pub struct ProcessGuard {
    watcher: StopSignalWatcher,
    reaper: OrphanReaper,
}

impl ProcessGuard {
    /// Makes this process a child subreaper, blocks the signals the two threads take, and starts
    /// them. Must run before any other thread exists, so every thread inherits the block.
    pub fn install() -> ProcessGuard {
        // This process becomes the reaper of every orphan below it: a double-forked or setsid'd
        // grandchild (e.g. from an eval cell or a worker) is re-parented here instead of to
        // init, so the reaper thread collects it when it exits and the sweep on exit still finds
        // and kills it (the process layer's environment tag already catches most; this catches
        // a grandchild started with a cleared environment).
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes plain integers and affects only this process.
        let _ = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        let mut blocked = SigSet::empty();
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGCHLD] {
            blocked.add(signal);
        }
        let blocked = blocked.thread_block().is_ok();
        ProcessGuard {
            watcher: if blocked { StopSignalWatcher::start() } else { StopSignalWatcher { thread: None } },
            reaper: if blocked { OrphanReaper::start() } else { OrphanReaper { thread: None, stopping: Arc::new(AtomicBool::new(false)) } },
        }
    }

    /// Stops both threads, then kills and reaps everything still below this process.
    pub fn finish(self) {
        self.watcher.stop();
        self.reaper.stop();
        kill_leftover_descendants();
    }
}

/// Set by [`StopSignalWatcher::stop`] before it wakes the thread with SIGUSR1.
static WATCHER_STOPPING: AtomicBool = AtomicBool::new(false);

/// Turns SIGINT, SIGTERM and SIGHUP (Ctrl-C; a host stopping a slow server; a closed terminal)
/// into a clean stop: everything below this process is killed and reaped — language servers,
/// adapters, kernels, workers, and grandchildren that escaped their groups (this process is
/// their subreaper) — then the CLI exits with 128 + the signal number. Without it the signal
/// would end the CLI at once and leave detached grandchildren running.
///
/// [`StopSignalWatcher::stop`] wakes the thread with SIGUSR1 and joins it.
struct StopSignalWatcher {
    thread: Option<JoinHandle<()>>,
}

impl StopSignalWatcher {
    fn start() -> StopSignalWatcher {
        let mut signals = SigSet::empty();
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGUSR1] {
            signals.add(signal);
        }
        let thread = std::thread::Builder::new()
            .name("runbound-signals".to_owned())
            .spawn(move || loop {
                match signals.wait() {
                    // Our own wake-up from `stop`; a SIGUSR1 from anyone else is ignored.
                    Ok(Signal::SIGUSR1) if WATCHER_STOPPING.load(Ordering::SeqCst) => return,
                    Ok(Signal::SIGUSR1) => continue,
                    Err(_) => return,
                    Ok(signal) => {
                        // Nothing more reaches stdout: a call in flight would otherwise print
                        // the "kernel died" result our own kill causes.
                        silence_stdout();
                        eprintln!("runbound: {signal} received; stopping the run and every process it started");
                        kill_leftover_descendants();
                        std::process::exit(128 + signal as i32);
                    }
                }
            })
            .ok();
        StopSignalWatcher { thread }
    }

    fn stop(mut self) {
        let Some(thread) = self.thread.take() else { return };
        WATCHER_STOPPING.store(true, Ordering::SeqCst);
        if nix::sys::signal::kill(nix::unistd::Pid::this(), Signal::SIGUSR1).is_ok() {
            let _ = thread.join();
        }
    }
}

/// How long the reaper sleeps without a SIGCHLD before it looks anyway (a SIGCHLD that arrives
/// while it reaps is merged with the one it is handling; this bounds how long such an orphan
/// stays a zombie).
const REAPER_BACKSTOP: Duration = Duration::from_secs(2);

/// Reaps the orphans this subreaper adopts as they exit (`runbound-reaper`): on every SIGCHLD,
/// and every [`REAPER_BACKSTOP`], it calls [`reap_adopted_orphans`], which leaves the children
/// the process layer waits for alone. Without it a long `serve` session collects `<defunct>`
/// entries (e.g. `rustc` from an interrupted check, `python` from a cell's background job).
struct OrphanReaper {
    thread: Option<JoinHandle<()>>,
    stopping: Arc<AtomicBool>,
}

impl OrphanReaper {
    fn start() -> OrphanReaper {
        let stopping = Arc::new(AtomicBool::new(false));
        let thread = {
            let stopping = Arc::clone(&stopping);
            std::thread::Builder::new()
                .name("runbound-reaper".to_owned())
                .spawn(move || {
                    let mut sigchld = SigSet::empty();
                    sigchld.add(Signal::SIGCHLD);
                    while !stopping.load(Ordering::SeqCst) {
                        wait_for_signal(&sigchld, REAPER_BACKSTOP);
                        reap_adopted_orphans();
                    }
                })
                .ok()
        };
        OrphanReaper { thread, stopping }
    }

    fn stop(mut self) {
        let Some(thread) = self.thread.take() else { return };
        self.stopping.store(true, Ordering::SeqCst);
        // A SIGCHLD of our own wakes it (harmless: it only makes the reaper look once more).
        if nix::sys::signal::kill(nix::unistd::Pid::this(), Signal::SIGCHLD).is_ok() {
            let _ = thread.join();
        }
    }
}

/// Waits up to `timeout` for one of `signals` (which must be blocked) and consumes it.
fn wait_for_signal(signals: &SigSet, timeout: Duration) {
    let timeout = libc::timespec { tv_sec: timeout.as_secs() as libc::time_t, tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32) };
    // SAFETY: `signals` is a valid sigset; a null siginfo pointer is allowed; `timeout` is valid.
    let _ = unsafe { libc::sigtimedwait(signals.as_ref(), std::ptr::null_mut(), &timeout) };
}

/// Points stdout at /dev/null, so nothing written after a stop signal reaches the host.
fn silence_stdout() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        // SAFETY: dup2 onto fd 1 with a valid open descriptor; `null` closes its own copy.
        let _ = unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 1) };
    }
}

/// How long [`kill_leftover_descendants`] keeps sweeping while something is still found below
/// this process.
const SWEEP_LIMIT: Duration = Duration::from_secs(5);

/// Kills (SIGKILL) and reaps every process still below this one after the run was dropped:
/// whatever escaped its process group. Nothing of a run may outlive the CLI.
///
/// Each round walks /proc for the descendants, kills each one's process group (`killpg`: the
/// kernel signals a whole group at once and a fork racing it is restarted, so a process that
/// forks and exits every few milliseconds — faster than the walk — dies with its group) and each
/// pid, and reaps; rounds repeat until two walks in a row find nothing, for at most
/// [`SWEEP_LIMIT`]. A group is never signalled when it is this process's own, its parent's or
/// its session's (a descendant may join another group of the session, e.g. the shell's).
fn kill_leftover_descendants() {
    let this_group = nix::unistd::getpgrp().as_raw();
    let parent_group = nix::unistd::getpgid(Some(nix::unistd::getppid())).map(|group| group.as_raw()).unwrap_or(-1);
    let session = nix::unistd::getsid(None).map(|session| session.as_raw()).unwrap_or(-1);
    let started = std::time::Instant::now();
    let mut empty_walks = 0;
    while started.elapsed() < SWEEP_LIMIT {
        let (leftovers, groups) = descendant_processes_and_groups(std::process::id());
        if leftovers.is_empty() {
            empty_walks += 1;
            if empty_walks >= 2 {
                break;
            }
        } else {
            empty_walks = 0;
        }
        for group in groups {
            if group > 1 && group != this_group && group != parent_group && group != session {
                // SAFETY: kill with a negative pid signals that process group; plain integers.
                let _ = unsafe { libc::kill(-group, libc::SIGKILL) };
            }
        }
        for process in leftovers {
            // SAFETY: kill takes plain integers; a pid that has already gone yields ESRCH.
            let _ = unsafe { libc::kill(process.pid as libc::pid_t, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(10));
        // Reap what was re-parented here (and anything else already exited), without blocking.
        // SAFETY: waitpid with WNOHANG on any child; status is a valid out pointer.
        let mut status = 0;
        while unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } > 0 {}
    }
}
