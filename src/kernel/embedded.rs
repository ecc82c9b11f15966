//! The embedded Python kernel: RustPython 0.5.0 inside the host process (cargo feature
//! `embedded-python`), on its own named owner thread.
//!
//! RustPython's interpreter is `!Send` (built without its `threading` feature), so the owner
//! thread creates it, keeps it for the kernel's whole generation and finalizes it. The thread runs
//! `embedded_driver.py`, which speaks the same JSON messages as the CPython driver; instead of
//! pipes it calls four native functions installed in its namespace:
//!
//! - `_native_send(text)`: one kernel → host message, parsed here and put on the events channel
//!   the host's watchdog (`run_cell` in `mod.rs`) reads, exactly like a spawned kernel's stdout;
//! - `_native_receive(timeout_ms)`: the next host → kernel message (`execute`, `tool_result`,
//!   `inventory`, `shutdown`) or `None` after `timeout_ms`; raises `SystemExit` once the host shut
//!   the kernel down;
//! - `_native_cell(number)`: marks the running cell (0 = idle), so an interrupt hits only the cell
//!   it was sent for;
//! - `_native_sleep(seconds)`: replaces `time.sleep`, sleeping in 50 ms slices and checking for
//!   interrupts between them (RustPython's own sleep ignores them until it returns).
//!
//! Interrupts use RustPython's user-signal channel (`vm.set_user_signal_channel`): the host sends
//! a closure that raises `KeyboardInterrupt` when the VM next checks its eval breaker (once per
//! bytecode instruction). The breaker bit is process-global and another interpreter in the same
//! process can consume it, so [`EmbeddedKernel::kill`] re-sends every 100 ms; each closure is
//! tagged with its cell and does nothing in a later one. A cell blocked in native code or
//! swallowing `KeyboardInterrupt` (`except BaseException:` in a loop) cannot be stopped from
//! outside: after [`ABANDON_AFTER`] the thread is detached (abandoned), reported, and the next
//! call builds a fresh interpreter on a new thread.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::compiler::Mode;
use rustpython_vm::function::ArgIntoFloat;
use rustpython_vm::scope::Scope;
use rustpython_vm::signal::{user_signal_channel, UserSignalSender};
use rustpython_vm::{AsObject, Interpreter, PyResult, Settings, VirtualMachine};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};

use super::session::KernelEvent;

/// The driver script run in each embedded interpreter as the module `_runbound`: the helpers
/// shared with the CPython driver (`driver_common.py`) followed by `embedded_driver.py`.
const EMBEDDED_DRIVER: &str = concat!(include_str!("driver_common.py"), include_str!("embedded_driver.py"));

/// The RustPython release this backend embeds (Cargo.toml pins `=0.5.0`).
pub(crate) const RUSTPYTHON_VERSION: &str = "0.5.0";

/// How long [`EmbeddedKernel::kill`] waits for the owner thread to stop (re-sending the
/// interrupt every 100 ms) before abandoning it: 3 s.
pub(crate) const ABANDON_AFTER: Duration = Duration::from_secs(3);

/// How long [`EmbeddedKernel::kill`] waits for the owner thread once no cell runs any more (the
/// driver returned; RustPython finalizes the interpreter) before detaching it: 10 s.
pub(crate) const FINALIZE_BOUND: Duration = Duration::from_secs(10);

/// Stack of the owner thread: 256 MiB of address space (committed only as used). RustPython
/// recurses on the native stack per Python frame, and a debug build overflows 2 MiB while still
/// initialising; this leaves room for Python's default recursion limit (1000 frames).
const OWNER_THREAD_STACK_BYTES: usize = 256 * 1024 * 1024;

/// State shared by the host and the owner thread.
struct EmbeddedControl {
    /// Set once by [`EmbeddedKernel::kill`]: the driver's receive raises `SystemExit`, sends fail.
    shutdown: AtomicBool,
    /// The cell the driver is running, 0 when idle.
    running_cell: AtomicU64,
}

/// A live embedded interpreter: the owner thread and the host's ends of its channels.
pub(crate) struct EmbeddedKernel {
    requests: Sender<Value>,
    interrupts: UserSignalSender,
    control: Arc<EmbeddedControl>,
    owner: Option<JoinHandle<()>>,
    /// Why the owner thread was abandoned instead of joined, once it was.
    pub(crate) abandoned: Option<String>,
}

impl EmbeddedKernel {
    /// Starts the owner thread (it builds the interpreter and runs the driver) and waits,
    /// bounded by `startup_timeout`, for the driver's `ready` message. Returns the kernel, the
    /// events channel and the version line (`"0.5.0 (Python 3.x compatible)"`).
    pub(crate) fn start(
        workspace: &Path,
        generation: u64,
        startup_timeout: Duration,
    ) -> Result<(EmbeddedKernel, Receiver<KernelEvent>, String), ToolError> {
        let (request_sender, request_receiver) = crossbeam_channel::unbounded::<Value>();
        let (event_sender, events) = crossbeam_channel::unbounded::<KernelEvent>();
        let (interrupts, signal_receiver) = user_signal_channel();
        let control = Arc::new(EmbeddedControl { shutdown: AtomicBool::new(false), running_cell: AtomicU64::new(0) });
        let thread_control = control.clone();
        let workspace: PathBuf = workspace.to_path_buf();
        let owner = std::thread::Builder::new()
            .name(format!("rb-rustpy-g{generation}"))
            .stack_size(OWNER_THREAD_STACK_BYTES)
            .spawn(move || owner_thread(workspace, request_receiver, event_sender, signal_receiver, thread_control))
            .map_err(|err| ToolError::new(ErrorKind::Unavailable, format!("cannot start the embedded Python kernel thread: {err}")))?;
        let mut kernel = EmbeddedKernel { requests: request_sender, interrupts, control, owner: Some(owner), abandoned: None };
        let deadline = Instant::now() + startup_timeout;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            match events.recv_timeout(remaining) {
                Ok(KernelEvent::Message(message)) if message["type"] == "ready" => {
                    let version = message["version"].as_str().unwrap_or("?").to_owned();
                    return Ok((kernel, events, version));
                }
                Ok(KernelEvent::Message(_)) | Ok(KernelEvent::Raw(_)) | Ok(KernelEvent::RawCellEnd(_)) => continue,
                Ok(KernelEvent::Closed(reason)) => {
                    kernel.kill();
                    return Err(ToolError::new(ErrorKind::Unavailable, format!("the embedded RustPython kernel did not start: {reason}"))
                        .with_hint("this is a bug in runbound's embedded backend; select the cpython kernel meanwhile"));
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    kernel.kill();
                    return Err(ToolError::new(
                        ErrorKind::Timeout,
                        format!("the embedded RustPython kernel was not ready within {} ms", startup_timeout.as_millis()),
                    )
                    .with_hint(
                        "a retry starts the interpreter from scratch and may time out again on a loaded machine (a debug build \
                         starts it far more slowly than a release build); raise KernelConfig::startup_timeout, or select the \
                         cpython kernel (`--kernel cpython`), which starts in well under a second",
                    ));
                }
            }
        }
    }

    /// Sends one host → kernel message.
    pub(crate) fn send(&self, message: &Value) -> Result<(), String> {
        if self.control.shutdown.load(Ordering::Acquire) {
            return Err("the embedded kernel was shut down".to_owned());
        }
        self.requests.send(message.clone()).map_err(|_| "the embedded kernel's thread has stopped".to_owned())
    }

    /// Asks the running cell to raise `KeyboardInterrupt` at its next bytecode instruction
    /// (nothing happens when the kernel is idle or the cell already finished).
    pub(crate) fn interrupt(&self) {
        let cell = self.control.running_cell.load(Ordering::Acquire);
        if cell == 0 && !self.control.shutdown.load(Ordering::Acquire) {
            return;
        }
        let control = self.control.clone();
        let _ = self.interrupts.send(Box::new(move |vm: &VirtualMachine| {
            let running = control.running_cell.load(Ordering::Acquire);
            let target_still_running = cell != 0 && running == cell;
            if target_still_running || (control.shutdown.load(Ordering::Acquire) && running != 0) {
                return Err(vm.new_exception_msg(vm.ctx.exceptions.keyboard_interrupt.to_owned(), "the host interrupted the cell".into()));
            }
            Ok(())
        }));
    }

    /// Trips the interpreter's eval breaker again without queueing another interrupt: the
    /// breaker bit is process-global, so another RustPython interpreter in this process may have
    /// consumed the trip meant for this one, leaving [`EmbeddedKernel::interrupt`]'s closure
    /// queued. A no-op closure sets the bit; the queued interrupt then runs first. Unlike a
    /// second interrupt, this can never raise a second `KeyboardInterrupt` while the driver is
    /// still reporting the first.
    pub(crate) fn retrigger_interrupt(&self) {
        let _ = self.interrupts.send(Box::new(|_: &VirtualMachine| Ok(())));
    }

    /// One line describing the owner thread's state.
    pub(crate) fn describe_state(&self) -> String {
        if let Some(why) = &self.abandoned {
            return format!("the embedded interpreter thread was abandoned: {why}");
        }
        match &self.owner {
            Some(owner) if !owner.is_finished() => "the embedded interpreter thread is running".to_owned(),
            Some(_) => "the embedded interpreter thread has stopped".to_owned(),
            None => "the embedded interpreter was shut down".to_owned(),
        }
    }

    /// Shuts the interpreter down: marks the shutdown, re-sends the interrupt every 100 ms and
    /// joins the owner thread; after [`ABANDON_AFTER`] with a cell still running, detaches it and
    /// records why in [`EmbeddedKernel::abandoned`]. Once no cell runs, the thread is only
    /// finalizing the interpreter (slow in a debug build on a loaded machine): it gets up to
    /// [`FINALIZE_BOUND`] from then before it is detached.
    pub(crate) fn kill(&mut self) {
        let Some(owner) = self.owner.take() else {
            return;
        };
        self.control.shutdown.store(true, Ordering::Release);
        let _ = self.requests.send(json!({"type": "shutdown"}));
        let mut deadline = Instant::now() + ABANDON_AFTER;
        let mut finalizing = false;
        let mut next_interrupt = Instant::now();
        while !owner.is_finished() && Instant::now() < deadline {
            if !finalizing && self.control.running_cell.load(Ordering::Acquire) == 0 {
                finalizing = true;
                deadline = deadline.max(Instant::now() + FINALIZE_BOUND);
            }
            if Instant::now() >= next_interrupt {
                self.interrupt();
                next_interrupt += Duration::from_millis(100);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        if owner.is_finished() {
            let _ = owner.join();
            return;
        }
        self.abandoned = Some(if self.control.running_cell.load(Ordering::Acquire) == 0 {
            format!(
                "its cell had stopped, but the interpreter did not finish shutting down within {} s; \
                 the thread was detached and keeps its memory until it finishes",
                FINALIZE_BOUND.as_secs()
            )
        } else {
            format!(
                "it did not stop within {} s of repeated interrupts (the cell is blocked in native code or catches KeyboardInterrupt); \
                 the thread was detached and keeps its memory until the cell ends on its own",
                ABANDON_AFTER.as_secs()
            )
        });
        drop(owner);
    }
}

impl Drop for EmbeddedKernel {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The owner thread: builds the interpreter, runs the driver until shutdown, finalizes.
fn owner_thread(
    workspace: PathBuf,
    requests: Receiver<Value>,
    events: Sender<KernelEvent>,
    signal_receiver: rustpython_vm::signal::UserSignalReceiver,
    control: Arc<EmbeddedControl>,
) {
    let closing_events = events.clone();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let interpreter = build_interpreter(signal_receiver);
        let ended = interpreter.enter(|vm| run_driver(vm, &workspace, requests, events, control));
        interpreter.finalize(None);
        ended
    }));
    let reason = match outcome {
        Ok(Ok(())) => "the embedded interpreter shut down".to_owned(),
        Ok(Err(traceback)) => format!("the embedded kernel's driver failed: {traceback}"),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
                .unwrap_or_else(|| "(no message)".to_owned());
            format!("the embedded RustPython interpreter panicked: {message}")
        }
    };
    let _ = closing_events.send(KernelEvent::Closed(reason));
}

fn build_interpreter(signal_receiver: rustpython_vm::signal::UserSignalReceiver) -> Interpreter {
    let mut settings = Settings::default();
    // Embedded: never touch the process's signal dispositions, environment-driven paths, site.
    settings.install_signal_handlers = false;
    settings.ignore_environment = true;
    settings.import_site = false;
    settings.buffered_stdio = false;
    let builder = Interpreter::builder(settings);
    let stdlib = rustpython_stdlib::stdlib_module_defs(&builder.ctx);
    builder
        .add_native_modules(&stdlib)
        .add_frozen_modules(rustpython_pylib::FROZEN_STDLIB)
        .init_hook(move |vm| vm.set_user_signal_channel(signal_receiver))
        .build()
}

/// Installs the native functions, runs the driver module and its `_main` loop. `Err` carries
/// a traceback when the driver itself failed (not a cell: cells never raise out of `_main`).
fn run_driver(
    vm: &VirtualMachine,
    workspace: &Path,
    requests: Receiver<Value>,
    events: Sender<KernelEvent>,
    control: Arc<EmbeddedControl>,
) -> Result<(), String> {
    let result = (|| -> PyResult<()> {
        let namespace = vm.ctx.new_dict();
        let module = vm.new_module("_runbound", namespace.clone(), None);
        vm.sys_module.get_attr("modules", vm)?.set_item("_runbound", module.into(), vm)?;

        let send = vm.new_function("_native_send", move |text: PyStrRef, vm: &VirtualMachine| -> PyResult<()> {
            let text = text.to_string_lossy();
            let event = match serde_json::from_str::<Value>(&text) {
                Ok(message) => KernelEvent::Message(message),
                Err(_) => KernelEvent::Raw(format!("{text}\n")),
            };
            if events.send(event).is_err() {
                return Err(
                    vm.new_exception_msg(vm.ctx.exceptions.system_exit.to_owned(), "the host stopped listening to this kernel".into())
                );
            }
            Ok(())
        });
        let receive_control = control.clone();
        let receive = vm.new_function("_native_receive", move |timeout_ms: u64, vm: &VirtualMachine| -> PyResult<Option<String>> {
            let shut_down = |vm: &VirtualMachine| {
                vm.new_exception_msg(vm.ctx.exceptions.system_exit.to_owned(), "the host shut this kernel down".into())
            };
            if receive_control.shutdown.load(Ordering::Acquire) {
                return Err(shut_down(vm));
            }
            match requests.recv_timeout(Duration::from_millis(timeout_ms.min(1000))) {
                Ok(message) => {
                    if message["type"] == "shutdown" {
                        receive_control.shutdown.store(true, Ordering::Release);
                    }
                    Ok(Some(message.to_string()))
                }
                Err(RecvTimeoutError::Timeout) => {
                    vm.check_signals()?;
                    Ok(None)
                }
                Err(RecvTimeoutError::Disconnected) => Err(shut_down(vm)),
            }
        });
        let cell_control = control.clone();
        let mark_cell = vm.new_function("_native_cell", move |cell: u64| {
            cell_control.running_cell.store(cell, Ordering::Release);
        });
        let sleep_control = control.clone();
        let sleep = vm.new_function("_native_sleep", move |seconds: ArgIntoFloat, vm: &VirtualMachine| -> PyResult<()> {
            let seconds = seconds.into_float();
            if !seconds.is_finite() || seconds < 0.0 {
                return Err(vm.new_value_error("sleep length must be a non-negative finite number"));
            }
            let deadline = Instant::now() + Duration::from_secs_f64(seconds);
            loop {
                vm.check_signals()?;
                if sleep_control.shutdown.load(Ordering::Acquire) {
                    return Err(vm.new_exception_msg(
                        vm.ctx.exceptions.keyboard_interrupt.to_owned(),
                        "the host shut this kernel down during time.sleep".into(),
                    ));
                }
                let remaining = deadline.saturating_duration_since(Instant::now());
                if remaining.is_zero() {
                    return Ok(());
                }
                std::thread::sleep(remaining.min(Duration::from_millis(50)));
            }
        });
        namespace.set_item("_native_send", send.into(), vm)?;
        namespace.set_item("_native_receive", receive.into(), vm)?;
        namespace.set_item("_native_cell", mark_cell.into(), vm)?;
        namespace.set_item("_native_sleep", sleep.into(), vm)?;
        namespace.set_item("_RUSTPYTHON_VERSION", vm.ctx.new_str(RUSTPYTHON_VERSION).into(), vm)?;
        namespace.set_item("__name__", vm.ctx.new_str("_runbound").into(), vm)?;
        namespace.set_item("_WORKSPACE_ROOT", vm.ctx.new_str(workspace.to_string_lossy().into_owned()).into(), vm)?;
        let source = EMBEDDED_DRIVER;
        let code = vm
            .compile(source, Mode::Exec, "<runbound embedded driver>".to_owned())
            .map_err(|err| vm.new_syntax_error(&err, Some(source)))?;
        let scope = Scope::with_builtins(None, namespace.clone(), vm);
        vm.run_code_obj(code, scope)?;
        let main = namespace.get_item("_main", vm)?;
        main.call((), vm)?;
        Ok(())
    })();
    match result {
        Ok(()) => Ok(()),
        Err(exception) if exception.fast_isinstance(vm.ctx.exceptions.system_exit) => Ok(()),
        Err(exception) => {
            let mut text = String::new();
            let _ = vm.write_exception(&mut text, &exception);
            Err(text)
        }
    }
}
