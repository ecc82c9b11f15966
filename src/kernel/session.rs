//! One live kernel: a spawned process (CPython or Node running an embedded driver script) with
//! the named reader thread that pumps its JSON-lines messages into a crossbeam channel, or the
//! embedded RustPython interpreter on its owner thread ([`super::embedded`]) feeding the same
//! channel with the same messages. The host's watchdog treats both alike.
//!
//! Start: the interpreter gets a one-line boot program (`python -u -X utf8 -c <boot>`, `node
//! --expose-internals -e <boot>`) that reads the driver's source from fd 5, which the host fills
//! right after the spawn ([`crate::transport::guardian::feed_source`]): the command line stays
//! short and nothing is written to disk. When a CPython is available for it, the interpreter runs
//! under the process guardian ([`crate::transport::guardian`], its source on fd 6): a child
//! subreaper that kills every process the cells started when the host dies, even by SIGKILL.
//! The kernel's identity says whether it is guarded ([`Containment`]).
//!
//! Pipes: the protocol has descriptors of its own, apart from the user's streams. The kernel
//! reads host → kernel messages on fd 3 and writes kernel → host messages on fd 4 (both made
//! close-on-exec by the driver at startup, so shell children never inherit them); its stdin is
//! /dev/null; its stdout (fd 1) is a plain pipe whose bytes (C-level writes, `os.system`, a
//! `child_process` grandchild) the host shows as raw output and never parses; its stderr is
//! drained into the tail ring (shown after the cell, and in crash reports). `print`/`console`
//! go through the protocol as `stream` messages, so they stay ordered with display items. At
//! the end of each cell the driver writes an end marker to fd 1 and fd 2 (see [`RAW_CELL_END_MARKER`]),
//! so the host attributes raw output to the right cell.
//! No socket, no port, no key.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::transport::framing::{read_json_line, write_json_line};
use crate::transport::guardian;
use crate::transport::process::{ChildProcess, PipeDirection, ProcessSpec};

use super::{Language, Sandbox};

/// Longest protocol line accepted from a kernel (a PNG item is base64 inside one line): 32 MiB.
const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// The kernel's fd for host → kernel protocol messages.
const PROTOCOL_IN_FD: i32 = 3;
/// The kernel's fd for kernel → host protocol messages.
const PROTOCOL_OUT_FD: i32 = 4;
/// The kernel's fd from which its boot line reads the driver's source (then closes it).
const DRIVER_SOURCE_FD: i32 = 5;
/// The guardian's fd from which its boot line reads the guardian's source.
const GUARDIAN_SOURCE_FD: i32 = 6;

/// Start of the end-of-cell marker the drivers write to fd 1 and fd 2 after each cell:
/// `\0runbound-cell-end <cell>\0`. The raw stdout reader turns it into
/// [`KernelEvent::RawCellEnd`] and never shows it; on fd 2 the cell waits for it in the stderr
/// tail, and [`strip_cell_end_markers`] takes it out of every stderr text shown.
pub(crate) const RAW_CELL_END_MARKER: &[u8] = b"\0runbound-cell-end ";

/// The whole end-of-cell marker for cell `cell`, as the drivers write it to fd 1 and fd 2.
pub(crate) fn cell_end_marker(cell: u64) -> String {
    format!("{}{cell}\0", String::from_utf8_lossy(RAW_CELL_END_MARKER))
}

/// `text` without the drivers' end-of-cell markers (see [`RAW_CELL_END_MARKER`]), and the
/// number of bytes removed. A marker cut by the tail ring's start is left as it is.
pub(crate) fn strip_cell_end_markers(text: &str) -> (String, usize) {
    let marker_start = String::from_utf8_lossy(RAW_CELL_END_MARKER);
    let mut kept = String::with_capacity(text.len());
    let mut removed = 0;
    let mut rest = text;
    while let Some(start) = rest.find(marker_start.as_ref()) {
        let after_prefix = &rest[start + marker_start.len()..];
        let digits = after_prefix.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !after_prefix[digits..].starts_with('\0') {
            kept.push_str(&rest[..start + marker_start.len()]);
            rest = after_prefix;
            continue;
        }
        kept.push_str(&rest[..start]);
        removed += marker_start.len() + digits + 1;
        rest = &after_prefix[digits + 1..];
    }
    kept.push_str(rest);
    (kept, removed)
}

/// A message (or the end) of a kernel's protocol stream.
#[derive(Debug)]
pub(crate) enum KernelEvent {
    /// One protocol message (`{"type": …}`).
    Message(Value),
    /// Raw output: bytes on the kernel's fd 1, or a protocol-stream line that is not a message.
    Raw(String),
    /// The driver's end-of-cell marker for cell N reached the raw stdout reader: every raw byte
    /// the kernel wrote during that cell has been delivered.
    RawCellEnd(u64),
    /// The protocol stream ended (the kernel exited or closed it).
    Closed(String),
}

/// How a kernel was started, for results and `runbound status`.
#[derive(Debug, Clone)]
pub(crate) struct KernelIdentity {
    /// `cpython`, `node` or `rustpython` (embedded, in-process).
    pub backend: &'static str,
    /// Interpreter version reported by the driver.
    pub version: String,
    /// The interpreter executable.
    pub executable: PathBuf,
    /// The interpreter's pid as seen by the host (the host's own pid for the embedded kernel;
    /// in a sandbox, the pid of the process the host started, since the interpreter's own pid
    /// may be another namespace's).
    pub pid: u32,
    /// Whether it runs inside the run's sandbox.
    pub sandboxed: bool,
    /// Whether processes its cells start die with it when the host is killed.
    pub containment: Containment,
}

/// Whether a kernel's processes are contained when the host dies without cleaning up
/// (SIGKILL): see [`crate::transport::guardian`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Containment {
    /// The kernel runs under the guardian with this pid (as the kernel sees it).
    Guarded {
        /// The guardian's pid.
        guardian_pid: u32,
    },
    /// The guardian was started but could not take over: why.
    GuardianFailed(String),
    /// No guardian was started: why (no CPython to run it; the embedded kernel).
    Unguarded(String),
}

/// A live kernel. Dropping a spawned one kills the kernel's process group and every process
/// group of its shell children, reaps the kernel and joins the reader thread (bounded);
/// dropping an embedded one shuts its interpreter down and joins (or abandons) its owner thread.
pub(crate) struct LiveKernel {
    transport: KernelTransport,
    pub(crate) events: Receiver<KernelEvent>,
    pub(crate) identity: KernelIdentity,
    /// Process groups of shell children the driver reported (only trusted outside a sandbox).
    pub(crate) child_groups: Arc<Mutex<BTreeSet<i32>>>,
    pub(crate) generation: u64,
    pub(crate) started_at: Instant,
    pub(crate) cells_run: u64,
}

/// How the host reaches a kernel.
enum KernelTransport {
    /// A child process: requests written to its fd 3, messages read from its fd 4 by
    /// `reader`, its fd 1 read by `raw_reader`.
    Spawned {
        child: Option<ChildProcess>,
        to_kernel: Mutex<Option<File>>,
        reader: Option<JoinHandle<()>>,
        raw_reader: Option<JoinHandle<()>>,
    },
    /// The in-process RustPython interpreter on its owner thread.
    #[cfg(feature = "embedded-python")]
    Embedded(super::embedded::EmbeddedKernel),
}

/// What to spawn for a language.
pub(crate) struct KernelLaunch<'a> {
    pub language: Language,
    pub interpreter: &'a Path,
    pub driver_source: &'static str,
    /// The CPython that runs the guardian, or why there is none (the kernel then runs
    /// unguarded).
    pub guardian_python: Result<&'a Path, &'a str>,
    /// Environment variables set for the kernel on top of the host's (e.g. an activated venv).
    pub env: Vec<(OsString, OsString)>,
    pub cwd: &'a Path,
    pub sandbox: Option<&'a Sandbox>,
    pub generation: u64,
    pub startup_timeout: Duration,
}

impl LiveKernel {
    /// Starts the interpreter (under the guardian when there is a CPython for it) with the
    /// driver and waits (bounded) for its `ready` message.
    pub(crate) fn start(launch: &KernelLaunch<'_>) -> Result<LiveKernel, ToolError> {
        let (backend, interpreter_args): (&'static str, Vec<String>) = match launch.language {
            Language::Python => (
                "cpython",
                vec!["-u".into(), "-X".into(), "utf8".into(), "-c".into(), guardian::python_boot(DRIVER_SOURCE_FD, "<runbound-kernel>")],
            ),
            Language::Javascript => {
                ("node", vec!["--expose-internals".into(), "-e".into(), guardian::node_boot(DRIVER_SOURCE_FD, "runbound-kernel.js")])
            }
        };
        let display_name = format!("{backend} kernel g{} @ {}", launch.generation, launch.cwd.display());
        // Outside in: the sandbox prefix, the guardian, the interpreter and its boot line.
        let mut command: Vec<OsString> = Vec::new();
        if let Some(sandbox) = launch.sandbox {
            if sandbox.command_prefix.is_empty() {
                return Err(ToolError::invalid("the run's sandbox has an empty command prefix")
                    .with_hint("configure the sandbox with a program, e.g. [\"bwrap\", \"--ro-bind\", \"/\", \"/\", …]"));
            }
            command.extend(sandbox.command_prefix.iter().cloned());
        }
        if let Ok(python) = launch.guardian_python {
            command.extend(guardian::command_prefix(python, GUARDIAN_SOURCE_FD));
        }
        command.push(launch.interpreter.as_os_str().to_owned());
        command.extend(interpreter_args.into_iter().map(OsString::from));
        let mut spec = ProcessSpec::new(PathBuf::from(&command[0]), launch.cwd).with_args(command[1..].iter().cloned());
        if launch.guardian_python.is_ok() {
            spec = spec.with_extra_pipe(GUARDIAN_SOURCE_FD, PipeDirection::ParentWrites);
        }
        for (key, value) in &launch.env {
            spec = spec.with_env(key, value);
        }
        let spec = spec
            .with_display_name(display_name.clone())
            .with_env("PYTHONUNBUFFERED", "1")
            .with_env("PYTHONIOENCODING", "utf-8")
            .with_env("MPLBACKEND", "module://_runbound_mpl_backend")
            .with_env("PAGER", "cat")
            .with_env("GIT_PAGER", "cat")
            .with_env("GIT_EDITOR", "true")
            .with_env("TERM", "dumb")
            .with_env("NO_COLOR", "1")
            .with_env_remove("PYTHONSTARTUP")
            .with_env_remove("NODE_OPTIONS")
            .with_stdin_piped(false)
            .with_stdout_piped(true)
            .with_extra_pipe(PROTOCOL_IN_FD, PipeDirection::ParentWrites)
            .with_extra_pipe(PROTOCOL_OUT_FD, PipeDirection::ParentReads)
            .with_extra_pipe(DRIVER_SOURCE_FD, PipeDirection::ParentWrites);
        let child = ChildProcess::spawn(spec)?;
        if launch.guardian_python.is_ok() {
            guardian::feed_source(&child, GUARDIAN_SOURCE_FD, guardian::GUARDIAN_SOURCE)?;
        }
        guardian::feed_source(&child, DRIVER_SOURCE_FD, launch.driver_source)?;
        let pid = child.pid();
        let to_kernel = child.take_extra_pipe(PROTOCOL_IN_FD);
        let (Some(protocol_out), Some(stdout)) = (child.take_extra_pipe(PROTOCOL_OUT_FD), child.take_stdout()) else {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("{display_name}: protocol or stdout pipe missing after spawn")));
        };
        let (sender, events) = crossbeam_channel::unbounded();
        let raw_sender = sender.clone();
        let raw_thread_name = format!("runbound-kernel-{}-g{}-stdout", launch.language.as_str(), launch.generation);
        let raw_reader = std::thread::Builder::new()
            .name(raw_thread_name)
            .spawn(move || read_raw_stdout(stdout, &raw_sender))
            .map_err(|err| ToolError::new(ErrorKind::Unavailable, format!("cannot start the kernel stdout thread: {err}")))?;
        let thread_name = format!("runbound-kernel-{}-g{}-reader", launch.language.as_str(), launch.generation);
        let reader = std::thread::Builder::new()
            .name(thread_name)
            .spawn(move || {
                let mut reader = BufReader::new(protocol_out);
                loop {
                    match read_json_line(&mut reader, MAX_LINE_BYTES) {
                        Ok(Some(value)) if value.get("type").and_then(Value::as_str).is_some() => {
                            if sender.send(KernelEvent::Message(value)).is_err() {
                                return;
                            }
                        }
                        Ok(Some(value)) => {
                            let _ = sender.send(KernelEvent::Raw(format!("{value}\n")));
                        }
                        Ok(None) => {
                            let _ = sender.send(KernelEvent::Closed("the kernel closed its output pipe".to_owned()));
                            return;
                        }
                        Err(err) if err.is_recoverable() => {
                            let _ = sender.send(KernelEvent::Raw(format!("{}\n", err.message())));
                        }
                        Err(err) => {
                            let _ = sender.send(KernelEvent::Closed(format!("reading the kernel's output failed: {}", err.message())));
                            return;
                        }
                    }
                }
            })
            .map_err(|err| ToolError::new(ErrorKind::Unavailable, format!("cannot start the kernel reader thread: {err}")))?;
        let mut kernel = LiveKernel {
            transport: KernelTransport::Spawned {
                child: Some(child),
                to_kernel: Mutex::new(to_kernel),
                reader: Some(reader),
                raw_reader: Some(raw_reader),
            },
            events,
            identity: KernelIdentity {
                backend,
                version: String::new(),
                executable: launch.interpreter.to_path_buf(),
                pid,
                sandboxed: launch.sandbox.is_some(),
                containment: match launch.guardian_python {
                    Ok(_) => Containment::GuardianFailed("the kernel did not say".to_owned()),
                    Err(why) => Containment::Unguarded(why.to_owned()),
                },
            },
            child_groups: Arc::new(Mutex::new(BTreeSet::new())),
            generation: launch.generation,
            started_at: Instant::now(),
            cells_run: 0,
        };
        let deadline = Instant::now() + launch.startup_timeout;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            match kernel.events.recv_timeout(remaining) {
                Ok(KernelEvent::Message(message)) if message["type"] == "ready" => {
                    kernel.identity.version = message["version"].as_str().unwrap_or("?").to_owned();
                    if !kernel.identity.sandboxed {
                        if let Some(interpreter_pid) = message["pid"].as_u64().and_then(|pid| u32::try_from(pid).ok()) {
                            kernel.identity.pid = interpreter_pid;
                        }
                    }
                    if launch.guardian_python.is_ok() {
                        kernel.identity.containment = match (message["guardian_pid"].as_str(), message["guardian_unavailable"].as_str()) {
                            (Some(pid), _) if pid.parse::<u32>().is_ok() => Containment::Guarded { guardian_pid: pid.parse().unwrap_or(0) },
                            (_, Some(why)) => Containment::GuardianFailed(why.to_owned()),
                            _ => Containment::GuardianFailed("the kernel did not report a guardian".to_owned()),
                        };
                    }
                    return Ok(kernel);
                }
                Ok(KernelEvent::Message(_)) | Ok(KernelEvent::Raw(_)) | Ok(KernelEvent::RawCellEnd(_)) => continue,
                Ok(KernelEvent::Closed(reason)) => {
                    let state = kernel.describe_exit();
                    return Err(ToolError::new(ErrorKind::Unavailable, format!("{display_name} did not start: {reason}; {state}"))
                        .with_hint("check that the interpreter runs (and, with a sandbox, that the sandbox command works)"));
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    let state = kernel.describe_exit();
                    return Err(ToolError::new(
                        ErrorKind::Timeout,
                        format!("{display_name} sent no ready message within {} ms; {state}", launch.startup_timeout.as_millis()),
                    )
                    .with_hint("retry; if it persists, check the interpreter and the sandbox"));
                }
            }
        }
    }

    /// Starts the embedded RustPython kernel on its owner thread and waits (bounded) for its
    /// `ready` message.
    #[cfg(feature = "embedded-python")]
    pub(crate) fn start_embedded(workspace: &Path, generation: u64, startup_timeout: Duration) -> Result<LiveKernel, ToolError> {
        let (embedded, events, version) = super::embedded::EmbeddedKernel::start(workspace, generation, startup_timeout)?;
        Ok(LiveKernel {
            transport: KernelTransport::Embedded(embedded),
            events,
            identity: KernelIdentity {
                backend: "rustpython",
                version,
                executable: PathBuf::from("(embedded in the host process)"),
                pid: std::process::id(),
                sandboxed: false,
                containment: Containment::Unguarded(
                    "the embedded interpreter runs inside the host process, and its cells cannot start processes".to_owned(),
                ),
            },
            child_groups: Arc::new(Mutex::new(BTreeSet::new())),
            generation,
            started_at: Instant::now(),
            cells_run: 0,
        })
    }

    /// Whether this is the in-process RustPython kernel (no process of its own).
    pub(crate) fn is_embedded(&self) -> bool {
        match &self.transport {
            KernelTransport::Spawned { .. } => false,
            #[cfg(feature = "embedded-python")]
            KernelTransport::Embedded(_) => true,
        }
    }

    /// Why the embedded kernel's thread was abandoned instead of joined, if it was.
    pub(crate) fn abandoned(&self) -> Option<&str> {
        match &self.transport {
            KernelTransport::Spawned { .. } => None,
            #[cfg(feature = "embedded-python")]
            KernelTransport::Embedded(embedded) => embedded.abandoned.as_deref(),
        }
    }

    fn child(&self) -> Option<&ChildProcess> {
        match &self.transport {
            KernelTransport::Spawned { child, .. } => child.as_ref(),
            #[cfg(feature = "embedded-python")]
            KernelTransport::Embedded(_) => None,
        }
    }

    /// Sends one message to the kernel.
    pub(crate) fn send(&self, message: &Value) -> Result<(), String> {
        let to_kernel = match &self.transport {
            KernelTransport::Spawned { to_kernel, .. } => to_kernel,
            #[cfg(feature = "embedded-python")]
            KernelTransport::Embedded(embedded) => return embedded.send(message),
        };
        let mut guard = to_kernel.lock();
        let Some(stdin) = guard.as_mut() else {
            return Err("the kernel's request pipe is closed".to_owned());
        };
        write_json_line(stdin, message).and_then(|()| stdin.flush()).map_err(|err| format!("writing to the kernel failed: {err}"))
    }

    /// Sends SIGINT to the kernel's process group (Python raises KeyboardInterrupt; Node breaks
    /// a running script); the embedded kernel gets a `KeyboardInterrupt` user signal instead.
    pub(crate) fn interrupt(&self) {
        #[cfg(feature = "embedded-python")]
        if let KernelTransport::Embedded(embedded) = &self.transport {
            embedded.interrupt();
            return;
        }
        if let Some(child) = self.child() {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(child.pid() as i32), nix::sys::signal::Signal::SIGINT);
        }
    }

    /// For an embedded kernel, trips its eval breaker again so an interrupt already sent is
    /// delivered even if another interpreter consumed the first trip (see
    /// `EmbeddedKernel::retrigger_interrupt`). Nothing for a spawned kernel: its interrupt is a
    /// SIGINT, which is not lost.
    pub(crate) fn retrigger_interrupt(&self) {
        #[cfg(feature = "embedded-python")]
        if let KernelTransport::Embedded(embedded) = &self.transport {
            embedded.retrigger_interrupt();
        }
    }

    /// One line describing the kernel process state plus its stderr tail.
    pub(crate) fn describe_exit(&self) -> String {
        #[cfg(feature = "embedded-python")]
        if let KernelTransport::Embedded(embedded) = &self.transport {
            return embedded.describe_state();
        }
        match self.child() {
            Some(child) => {
                let _ = child.wait_timeout(Duration::from_millis(500));
                strip_cell_end_markers(&child.describe_state()).0
            }
            None => "the kernel was already stopped".to_owned(),
        }
    }

    /// Total bytes the kernel wrote to its raw stderr so far.
    pub(crate) fn stderr_total_bytes(&self) -> u64 {
        self.child().map(|child| child.stderr_tail_handle().total_bytes()).unwrap_or(0)
    }

    /// The kernel's stderr tail as drained, end-of-cell markers included (see [`cell_end_marker`];
    /// [`strip_cell_end_markers`] takes them out for display).
    pub(crate) fn stderr_tail_raw(&self) -> String {
        self.child().map(|child| child.stderr_tail()).unwrap_or_default()
    }

    /// Kills the kernel, every descendant and every reported shell-child group; reaps; joins.
    pub(crate) fn kill(&mut self) {
        let child = match &mut self.transport {
            KernelTransport::Spawned { child, .. } => child.take(),
            #[cfg(feature = "embedded-python")]
            KernelTransport::Embedded(embedded) => {
                embedded.kill();
                return;
            }
        };
        let Some(child) = child else {
            return;
        };
        let _ = self.send(&json!({"type": "shutdown"}));
        let descendants = crate::transport::process::descendant_pids(child.pid());
        let signal = nix::sys::signal::Signal::SIGKILL;
        for pid in &descendants {
            let pid = nix::unistd::Pid::from_raw(*pid as i32);
            if let Ok(group) = nix::unistd::getpgid(Some(pid)) {
                if group.as_raw() != 0 && group.as_raw() != nix::unistd::getpgrp().as_raw() {
                    let _ = nix::sys::signal::killpg(group, signal);
                }
            }
            let _ = nix::sys::signal::kill(pid, signal);
        }
        if !self.identity.sandboxed {
            for group in self.child_groups.lock().iter() {
                let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(*group), signal);
            }
        }
        child.kill_group_with_grace(Duration::from_millis(50));
        drop(child);
        let (to_kernel, readers) = match &mut self.transport {
            KernelTransport::Spawned { to_kernel, reader, raw_reader, .. } => (to_kernel, [reader.take(), raw_reader.take()]),
            #[cfg(feature = "embedded-python")]
            KernelTransport::Embedded(_) => return,
        };
        to_kernel.lock().take();
        for reader in readers.into_iter().flatten() {
            let deadline = Instant::now() + Duration::from_secs(2);
            while !reader.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
    }
}

impl Drop for LiveKernel {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Pumps the kernel's fd 1 into `Raw` events (whole UTF-8 characters only) until EOF, turning
/// each end-of-cell marker into a `RawCellEnd` event.
fn read_raw_stdout(mut stdout: impl Read, sender: &crossbeam_channel::Sender<KernelEvent>) {
    let mut pending = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let count = match stdout.read(&mut chunk) {
            Ok(0) => break,
            Ok(count) => count,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        pending.extend_from_slice(&chunk[..count]);
        for event in split_raw_stdout(&mut pending, false) {
            if sender.send(event).is_err() {
                return;
            }
        }
    }
    for event in split_raw_stdout(&mut pending, true) {
        let _ = sender.send(event);
    }
}

/// Splits buffered raw stdout into events, leaving in `pending` what may still become a
/// marker or a UTF-8 character (everything, when `at_eof`, is flushed).
pub(crate) fn split_raw_stdout(pending: &mut Vec<u8>, at_eof: bool) -> Vec<KernelEvent> {
    let mut events = Vec::new();
    let mut text = Vec::new();
    let mut rest: &[u8] = pending;
    loop {
        let Some(start) = find(rest, RAW_CELL_END_MARKER) else {
            // Hold back a tail that could be the start of a marker split across reads.
            let keep = if at_eof {
                0
            } else {
                (1..RAW_CELL_END_MARKER.len()).rev().find(|&n| rest.ends_with(&RAW_CELL_END_MARKER[..n])).unwrap_or(0)
            };
            text.extend_from_slice(&rest[..rest.len() - keep]);
            rest = &rest[rest.len() - keep..];
            break;
        };
        let digits = &rest[start + RAW_CELL_END_MARKER.len()..];
        match digits.iter().position(|&b| b == 0) {
            Some(end) => {
                text.extend_from_slice(&rest[..start]);
                match std::str::from_utf8(&digits[..end]).ok().and_then(|d| d.parse::<u64>().ok()) {
                    Some(cell) => {
                        push_text(&mut events, &mut text);
                        events.push(KernelEvent::RawCellEnd(cell));
                    }
                    None => text.extend_from_slice(&rest[start..start + RAW_CELL_END_MARKER.len() + end + 1]),
                }
                rest = &digits[end + 1..];
            }
            None if !at_eof && digits.len() <= 20 => {
                text.extend_from_slice(&rest[..start]);
                rest = &rest[start..];
                break;
            }
            None => {
                // Not a marker after all: show it as output.
                text.extend_from_slice(&rest[..start + RAW_CELL_END_MARKER.len()]);
                rest = digits;
            }
        }
    }
    let rest = rest.to_vec();
    // An incomplete UTF-8 character at the end waits for its last bytes.
    if !at_eof {
        if let Err(err) = std::str::from_utf8(&text) {
            if err.error_len().is_none() {
                let mut held = text.split_off(err.valid_up_to());
                held.extend_from_slice(&rest);
                push_text(&mut events, &mut text);
                *pending = held;
                return events;
            }
        }
    }
    push_text(&mut events, &mut text);
    *pending = rest;
    events
}

fn push_text(events: &mut Vec<KernelEvent>, text: &mut Vec<u8>) {
    if text.is_empty() {
        return;
    }
    events.push(KernelEvent::Raw(String::from_utf8_lossy(text).into_owned()));
    text.clear();
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::{cell_end_marker, strip_cell_end_markers};

    #[test]
    fn cell_end_markers_are_taken_out_of_stderr_text_and_counted() {
        let text = format!("warning one\n{}warning two\n{}", cell_end_marker(7), cell_end_marker(12));
        let (kept, removed) = strip_cell_end_markers(&text);
        assert_eq!(kept, "warning one\nwarning two\n");
        assert_eq!(removed, cell_end_marker(7).len() + cell_end_marker(12).len());
        // Not a whole marker (no digits, or no closing NUL): left as written.
        let partial = "a\0runbound-cell-end x\0b\0runbound-cell-end 3";
        assert_eq!(strip_cell_end_markers(partial), (partial.to_owned(), 0));
    }
}
