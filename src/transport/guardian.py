# runbound process guardian. Embedded in the runbound binary (transport/guardian.rs) and started
# as `python -I -S -c <boot> PROGRAM ARG...`, where <boot> reads this source from a pipe; it is
# not a file on disk. It runs PROGRAM as its only child and makes sure that nothing PROGRAM
# starts outlives it, even when the host that started the guardian is killed with SIGKILL and
# can clean up nothing itself:
#
# - the guardian is a child subreaper (PR_SET_CHILD_SUBREAPER): every process below it whose
#   parent exits (a double fork, a daemon, `setsid`, `env -i`, a detached spawn) is re-parented
#   to the guardian instead of to init, so the guardian's children are, transitively, all of
#   PROGRAM's descendants; it reaps those orphans as they exit (no zombies pile up);
# - its parent-death signal is SIGTERM (the process layer had set SIGKILL, which would end it
#   before it could act): when the host dies, the guardian kills (SIGKILL) every child it has,
#   reaps, and repeats until it has none left (a killed process's own children are re-parented to
#   the guardian, so the loop reaches every level), then exits;
# - the host stopping the guardian's process group with SIGTERM triggers the same clean-up;
#   SIGINT, SIGHUP and SIGQUIT are taken and ignored (an interrupt of the group is meant for
#   PROGRAM, which gets it too);
# - when PROGRAM exits on its own, the host is alive and cleans up as it always does (it kills the
#   process group, sweeps its descendant tag) and may report what it found in the group; so the
#   guardian kills only what the host cannot find there — every descendant outside the guardian's
#   process group (a `setsid` or `setpgid` child, a daemon) — then exits the way PROGRAM did (same
#   exit code, or the same signal), so the host sees PROGRAM's status. While descendants remain
#   in the group it first watches 50 ms more for one leaving it (forked before PROGRAM exited,
#   not yet through its setsid), which the host's group kill would miss.
#
# PROGRAM gets PR_SET_PDEATHSIG(SIGKILL) towards the guardian, an empty signal mask, and the
# guardian's environment plus RUNBOUND_GUARDIAN_PID=<guardian pid> (or, when the guardian could
# not take over, RUNBOUND_GUARDIAN_UNAVAILABLE=<reason>: PROGRAM then runs unguarded, exec'd in
# place of the guardian). The guardian keeps no descriptor of the host: stdin, stdout and stderr
# point at /dev/null once PROGRAM runs, every other descriptor is closed.
#
# Must run on CPython 3.6+ with only built-in modules (os, signal, sys, time) plus ctypes.
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
WATCHED = (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
CLEAN_UP_LIMIT_SECONDS = 5.0
LEAVE_SETTLE_SECONDS = 0.05


def _prctl(libc, option, value):
    import ctypes

    if libc.prctl(option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, "prctl(%d, %d): %s" % (option, value, os.strerror(error)))


def _run_unguarded(program, reason):
    os.environ["RUNBOUND_GUARDIAN_UNAVAILABLE"] = reason
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.execvp(program[0], program)


def _close_descriptors_from(lowest):
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        os.closerange(lowest, 1 << 16)
        return
    for name in names:
        if int(name) >= lowest:
            try:
                os.close(int(name))
            except OSError:
                pass


def _children():
    """Pids of this process's live children (zombies included; killing those is harmless)."""
    me = os.getpid()
    try:
        with open("/proc/%d/task/%d/children" % (me, me)) as handle:
            return [int(word) for word in handle.read().split()]
    except OSError:
        pass
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(name))
    return found


def _process_table():
    """{pid: (parent pid, process group)} of every process /proc shows (zombies included)."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            table[int(name)] = (int(fields[1]), int(fields[2]))
        except (OSError, IndexError, ValueError):
            continue
    return table


def _descendants_by_group():
    """Pids of this process's descendants outside its process group, and of those inside it."""
    me, group = os.getpid(), os.getpgid(0)
    table = _process_table()
    children = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    outside, inside, frontier = [], [], [me]
    while frontier:
        for pid in children.get(frontier.pop(), []):
            frontier.append(pid)
            (outside if table[pid][1] != group else inside).append(pid)
    return outside, inside


def _reap(program_pid, status):
    """Reaps every exited child; returns PROGRAM's wait status once it has exited, else `status`.
    Returns (status, any_children_left)."""
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status, False
        except InterruptedError:
            continue
        if pid == 0:
            return status, True
        if pid == program_pid:
            status = wait_status


def _clean_up(program_pid, status):
    """SIGKILLs every child, reaps, and repeats until none is left (bounded)."""
    give_up = time.monotonic() + CLEAN_UP_LIMIT_SECONDS
    while True:
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        status, left = _reap(program_pid, status)
        if not left or time.monotonic() > give_up:
            return status
        time.sleep(0.005)


def _kill_outside_group(program_pid, status):
    """SIGKILLs every descendant outside the process group, reaps, repeats until none (bounded).
    While descendants remain inside the group, keeps watching until none has left it for
    LEAVE_SETTLE_SECONDS: one may be on its way out (forked, not yet through setsid) when
    PROGRAM exits, and the host's group kill would miss it."""
    give_up = time.monotonic() + CLEAN_UP_LIMIT_SECONDS
    quiet_since = None
    while True:
        victims, inside = _descendants_by_group()
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        status, _ = _reap(program_pid, status)
        now = time.monotonic()
        if victims:
            quiet_since = None
        elif not inside:
            return status
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= LEAVE_SETTLE_SECONDS:
            return status
        if now > give_up:
            return status
        time.sleep(0.005)


def _exit_like(status, default_signal=None):
    """Exits the way a process with wait status `status` did (or by `default_signal`)."""
    code = 1
    sig = default_signal
    if status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
    elif status is not None and os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        sig = None
    if sig is not None:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except Exception:
            pass
        try:
            if sig != signal.SIGKILL:
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            os.kill(os.getpid(), sig)
        except Exception:
            pass
        code = 128 + int(sig)
    os._exit(code)


def guard(program):
    if not program:
        sys.stderr.write("runbound guardian: no program to run\n")
        os._exit(2)
    parent = os.getppid()
    signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _prctl(libc, PR_SET_CHILD_SUBREAPER, 1)
        _prctl(libc, PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception as err:
        _run_unguarded(program, "%s: %s" % (type(err).__name__, err))
        return
    if os.getppid() != parent:
        # The host died before the parent-death signal was ours: nothing to guard.
        os._exit(1)
    guardian = os.getpid()
    os.environ["RUNBOUND_GUARDIAN_PID"] = str(guardian)
    program_pid = os.fork()
    if program_pid == 0:
        try:
            _prctl(libc, PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != guardian:
                os._exit(1)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execvp(program[0], program)
        except BaseException as err:
            try:
                os.write(2, ("runbound guardian: cannot start %s: %s\n" % (program[0], err)).encode("utf-8", "replace"))
            except OSError:
                pass
        os._exit(127)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    _close_descriptors_from(3)
    status = None
    while True:
        status, _ = _reap(program_pid, status)
        if status is not None:
            _exit_like(_kill_outside_group(program_pid, status))
        try:
            info = signal.sigwaitinfo(WATCHED)
        except InterruptedError:
            continue
        if info.si_signo == signal.SIGTERM:
            status = _clean_up(program_pid, status)
            _exit_like(None, signal.SIGTERM)


guard(sys.argv[1:])
