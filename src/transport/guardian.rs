//! The process guardian, and program sources handed to interpreters through pipes.
//!
//! # The guardian
//!
//! The process layer kills a child's group, and sweeps descendants by their environment tag,
//! when the child's handle is dropped — but only while runbound lives. When the host itself is
//! killed with SIGKILL, nothing of runbound runs: the children die by their parent-death signal,
//! and whatever *they* started (a cell's `subprocess.Popen`, a Node `spawn`, an `env -i setsid`
//! child, a double-forked daemon) is re-parented to init and keeps running.
//!
//! A guarded program runs as the only child of a small Python process, the guardian
//! (`guardian.py`, started as `python -I -S -B -c <boot> PROGRAM ARG…` by
//! [`command_prefix`]):
//!
//! - it is a child subreaper (`PR_SET_CHILD_SUBREAPER`), set before PROGRAM exists, so every
//!   orphan below it — however it left its parent, session or group, whatever environment it
//!   has — is re-parented to the guardian, never to init; it reaps those orphans as they exit;
//! - its parent-death signal is SIGTERM (instead of the process layer's SIGKILL, which would end
//!   it before it could act); on it, and on the host's SIGTERM to its group, it SIGKILLs every
//!   child it has, reaps, and repeats until none is left — a killed process's children are
//!   re-parented to the guardian, so the loop reaches every level — bounded at 5 s, then exits;
//! - PROGRAM gets `PR_SET_PDEATHSIG(SIGKILL)` towards the guardian; when PROGRAM exits on its
//!   own (the host is alive then, and kills the group as always, and may say what it found
//!   there), the guardian kills only what the host cannot find — every descendant outside its
//!   process group, watching 50 ms more for one on its way out while any remain in the group —
//!   and exits the way PROGRAM did (code or signal), so the host sees PROGRAM's
//!   status; SIGINT, SIGHUP and SIGQUIT to the group are meant for PROGRAM and ignored by the
//!   guardian;
//! - PROGRAM's environment says whether it is guarded: [`GUARDIAN_PID_ENV`], or
//!   [`GUARDIAN_UNAVAILABLE_ENV`] with the reason when the guardian could not take over
//!   (no `ctypes`, `prctl` refused): PROGRAM then runs unguarded in the guardian's place.
//!
//! What it cannot contain (Linux): a process started on PROGRAM's behalf by a daemon that is not
//! below the guardian (`systemd-run`, `at`, a tmux or screen server that was already running, a
//! container engine, `ssh localhost`); a process of another user that PROGRAM started through
//! `sudo` or a setuid helper (SIGKILL is refused); a process in uninterruptible sleep for longer
//! than the 5 s clean-up bound; and anything after PROGRAM's code kills the guardian itself
//! (`kill -9` of its parent): PROGRAM then dies by its parent-death signal and its descendants
//! fall back to the host's own clean-up. Nothing can escape *before* the guardian is a
//! subreaper: it becomes one before it forks PROGRAM. A process that exits is reaped; the
//! guardian never reaps PROGRAM's own children (they are PROGRAM's to wait for).
//!
//! Cost: one Python process per guarded program (about 10 MB resident, idle in `sigwaitinfo`),
//! and 50–100 ms more to start (Python's own start-up, `ctypes`).
//!
//! # Sources through pipes
//!
//! A program's source (a kernel driver, the guardian) reaches the interpreter through an extra
//! pipe, not as a `-c`/`-e` argument: a short boot line reads the pipe to its end and runs what it
//! read ([`python_boot`], [`node_boot`]); the host writes the source right after the spawn
//! ([`feed_source`]). The command line stays short (`ps` shows the boot line, not 30 KB of
//! driver) and nothing lands on disk.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::RawFd;
use std::path::Path;

use crate::error::{ErrorKind, ToolError};

use super::process::{ChildProcess, PipeDirection, ProcessSpec};

/// The guardian's Python source (`guardian.py`; CPython 3.6+, built-in modules and `ctypes`).
pub const GUARDIAN_SOURCE: &str = include_str!("guardian.py");

/// The argument vector that runs a program under the guardian when the program's own argv
/// follows it: `[python, "-I", "-S", "-B", "-c", <boot>]`, where `<boot>` reads the guardian's
/// source from the child's descriptor `source_fd` (an extra pipe the caller adds to the spec
/// and fills with [`GUARDIAN_SOURCE`] through [`feed_source`]). `python` is any CPython 3.6+;
/// isolated mode (`-I`), no `site` (`-S`) and no bytecode writes (`-B`) keep the guardian
/// independent of the project's environment.
pub fn command_prefix(python: &Path, source_fd: RawFd) -> Vec<OsString> {
    let mut prefix = vec![python.as_os_str().to_owned()];
    prefix.extend(["-I", "-S", "-B", "-c"].map(OsString::from));
    prefix.push(OsString::from(python_boot(source_fd, "<runbound-guardian>")));
    prefix
}

/// The CPython that runs guardians when the caller has none at hand: `python3`, then `python`,
/// on the process's PATH; `None` when neither is there (the caller then spawns unguarded and
/// says so).
///
/// The guardian is runbound's own helper, so it is never a binary the checkout provides,
/// whatever the workspace trust: PATH entries that are relative (`bin`, `.`: they resolve
/// against the current directory, often the workspace) or lie inside `workspace_root` are
/// skipped, and so is a candidate whose real path (symlinks resolved) is inside it. (An
/// adversarial run found a restricted run's debug adapter started under a
/// `<workspace>/bin/python3` that a PATH entry inside the workspace named.)
pub fn find_python(workspace_root: &Path) -> Option<std::path::PathBuf> {
    find_python_in(&std::env::var_os("PATH")?, workspace_root)
}

/// [`find_python`] over the PATH-style list `path`.
fn find_python_in(path: &std::ffi::OsStr, workspace_root: &Path) -> Option<std::path::PathBuf> {
    let outside: Vec<std::path::PathBuf> =
        std::env::split_paths(path).filter(|dir| dir.is_absolute() && !crate::trust::resolves_inside(workspace_root, dir)).collect();
    ["python3", "python"].into_iter().find_map(|name| {
        outside.iter().find_map(|dir| {
            which::which_in(name, Some(dir), "/").ok().filter(|found| !crate::trust::resolves_inside(workspace_root, found))
        })
    })
}

/// Spawns `spec` under the guardian run by `python` (see the module docs): the guardian's argv
/// goes in front of the spec's program, its source on the first descriptor above 2 that the
/// spec's own extra pipes leave free, written right after the spawn. With `python` `None`,
/// spawns `spec` as it is. The returned child is the guardian: its pid is the process group
/// the program runs in, its exit status the program's, and killing its group kills the program
/// and, through the guardian, everything the program started.
///
/// # Errors
///
/// As [`ChildProcess::spawn`], and `unavailable` when the guardian's source cannot be written
/// (the guardian exited at once: its state is in the message).
pub fn spawn_guarded(spec: ProcessSpec, python: Option<&Path>) -> Result<ChildProcess, ToolError> {
    let Some(python) = python else {
        return ChildProcess::spawn(spec);
    };
    let source_fd = (3..).find(|fd| spec.extra_pipes.iter().all(|pipe| pipe.child_fd != *fd)).unwrap_or(3);
    let mut guarded = spec;
    let mut args = command_prefix(python, source_fd);
    let program = std::mem::replace(&mut guarded.program, std::path::PathBuf::from(args.remove(0)));
    args.push(program.into_os_string());
    args.append(&mut guarded.args);
    guarded.args = args;
    let guarded = guarded.with_extra_pipe(source_fd, PipeDirection::ParentWrites);
    let child = ChildProcess::spawn(guarded)?;
    feed_source(&child, source_fd, GUARDIAN_SOURCE)?;
    Ok(child)
}

/// A Python `-c` line that reads a source from descriptor `fd` to its end (closing it), then
/// compiles it under `filename` (shown in tracebacks) and runs it in `__main__`'s namespace.
pub fn python_boot(fd: RawFd, filename: &str) -> String {
    format!("exec(compile(open({fd},'rb').read(),{filename:?},'exec'))")
}

/// A Node `-e` line that reads a source from descriptor `fd` to its end, closes it, and runs it
/// as a script in the main context under `filename` (`require`, `module` and `process` are the
/// `-e` script's own).
pub fn node_boot(fd: RawFd, filename: &str) -> String {
    format!(
        "(function(){{const fs=require('fs');const source=fs.readFileSync({fd},'utf8');fs.closeSync({fd});\
         require('vm').runInThisContext(source,{{filename:{filename:?}}})}})()"
    )
}

/// Writes `source` into the parent's end of `child`'s extra pipe at `fd`, then closes it (the
/// reader sees the end of the source). Call it right after the spawn; the write does not block
/// while `source` fits the pipe's buffer (64 KiB on Linux), and a larger one is taken by the
/// child's boot line as it reads.
///
/// # Errors
///
/// `unavailable` when `child` has no such pipe (the spec did not add it, or it was taken) or the
/// write fails (the child exited before reading: its state is in the message).
pub fn feed_source(child: &ChildProcess, fd: RawFd, source: &str) -> Result<(), ToolError> {
    let Some(mut pipe) = child.take_extra_pipe(fd) else {
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            format!("{}: no pipe at fd {fd} to write the program source to", child.display_name()),
        ));
    };
    pipe.write_all(source.as_bytes()).map_err(|err| {
        ToolError::new(
            ErrorKind::Unavailable,
            format!("{}: writing the program source to fd {fd} failed: {err}; {}", child.display_name(), child.describe_state()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(path: &Path) {
        crate::test_support::write_executable(path, "#!/bin/sh\nexit 1\n");
    }

    /// Issue 13 §2: the guardian's python is never one the checkout provides — not from a PATH
    /// entry inside the workspace, not from a relative entry, not through a symlink into it.
    #[test]
    fn the_guardian_python_never_comes_from_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let workspace = base.join("ws");
        executable(&workspace.join("bin/python3"));
        executable(&base.join("outside/python3"));
        std::fs::create_dir_all(base.join("linked")).unwrap();
        std::os::unix::fs::symlink(workspace.join("bin/python3"), base.join("linked/python3")).unwrap();
        let path = |dirs: &[&Path]| std::env::join_paths(dirs).unwrap();
        let inside = workspace.join("bin");
        let (linked, outside) = (base.join("linked"), base.join("outside"));
        assert_eq!(find_python_in(&path(&[&inside, &outside]), &workspace), Some(outside.join("python3")));
        assert_eq!(find_python_in(&path(&[Path::new("bin"), &linked, &outside]), &workspace), Some(outside.join("python3")));
        assert_eq!(find_python_in(&path(&[&inside, &linked]), &workspace), None);
        // Outside the workspace, the first one on PATH as always.
        assert_eq!(find_python_in(&path(&[&inside, &outside]), &base.join("elsewhere")), Some(inside.join("python3")));
    }
}
