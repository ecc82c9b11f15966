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
//! process can consume it, so [`EmbeddedKernel::kill`] re-sends every 100 ms; an interrupt is
//! pending for one cell and does nothing in a later one. At most one checking closure waits in
//! the interpreter's channel at a time; a re-send while it waits only trips the breaker again
//! (with a no-op closure), so checks that piled up while other interpreters took the trips do not
//! run back to back at one instruction. It is raised only at an instruction
//! whose argument state a raise leaves clean (RustPython 0.5.0 panics otherwise when a handler
//! in the same frame catches it; see [`vm_stands_where_an_interrupt_is_safe`]), or once it was
//! held back for [`MAX_INTERRUPT_HOLD_BACK`]. A cell blocked in native code or
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
use rustpython_vm::bytecode::Instruction;
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
    /// The cell an interrupt was asked for and not yet raised in, 0 when none is pending.
    interrupt_pending_for_cell: AtomicU64,
    /// When the pending interrupt was first held back because the VM stood at an instruction
    /// where raising would corrupt its argument state (see
    /// [`vm_stands_where_an_interrupt_is_safe`]): milliseconds since `created` plus 1, 0 when it
    /// was not; reset when the interrupt is raised.
    interrupt_held_back_since_ms: AtomicU64,
    /// True while a checking closure ([`raise_pending_interrupt`]) waits in the interpreter's
    /// signal channel; it is cleared when the closure runs.
    interrupt_check_queued: AtomicBool,
    /// When this control was made: the origin of `interrupt_held_back_since_ms`.
    created: Instant,
    /// True while a native function (`_native_receive`, `_native_sleep`) checks signals: an
    /// exception raised there leaves the native call as its error, which the frame loop handles
    /// with its argument state reset, so raising is always safe.
    checking_signals_in_native_call: AtomicBool,
}

/// How long a pending interrupt waits for an instruction where raising is safe (see
/// [`vm_stands_where_an_interrupt_is_safe`]) before it is raised anyway: 600 ms, inside the
/// default 1 s interrupt grace (`KernelConfig::interrupt_grace`). The host re-trips the breaker
/// every 10 ms while it waits, so a loop offers dozens of chances by then; one made only of
/// instructions with arguments offers none, and raising there risks RustPython's panic, which
/// the owner thread turns into a stated kernel loss.
const MAX_INTERRUPT_HOLD_BACK: Duration = Duration::from_millis(600);

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
        let control = Arc::new(EmbeddedControl {
            shutdown: AtomicBool::new(false),
            running_cell: AtomicU64::new(0),
            interrupt_pending_for_cell: AtomicU64::new(0),
            interrupt_held_back_since_ms: AtomicU64::new(0),
            interrupt_check_queued: AtomicBool::new(false),
            created: Instant::now(),
            checking_signals_in_native_call: AtomicBool::new(false),
        });
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

    /// Asks the running cell to raise `KeyboardInterrupt` at its next bytecode instruction where
    /// raising is safe (nothing happens when the kernel is idle or the cell already finished).
    /// The request is recorded as pending for that cell and raised at most once, by the first
    /// closure the VM runs at a safe instruction (see [`raise_pending_interrupt`]).
    pub(crate) fn interrupt(&self) {
        let cell = self.control.running_cell.load(Ordering::Acquire);
        if cell == 0 && !self.control.shutdown.load(Ordering::Acquire) {
            return;
        }
        if cell != 0 {
            self.control.interrupt_pending_for_cell.store(cell, Ordering::Release);
        }
        self.send_interrupt_check();
    }

    /// Trips the interpreter's eval breaker again without asking for another interrupt: the
    /// breaker bit is process-global, so another RustPython interpreter in this process may have
    /// consumed the trip meant for this one, and a pending interrupt may have been held back at
    /// an unsafe instruction. The closure raises only an interrupt still pending, so this can
    /// never raise a second `KeyboardInterrupt` while the driver is still reporting the first.
    pub(crate) fn retrigger_interrupt(&self) {
        self.send_interrupt_check();
    }

    /// Queues one checking closure, or, while one is still queued (another interpreter took the
    /// trips meant for this one), trips the breaker again with a no-op closure: the queued check
    /// runs at this interpreter's next trip either way, and only once per trip.
    fn send_interrupt_check(&self) {
        if self.control.interrupt_check_queued.swap(true, Ordering::AcqRel) {
            let _ = self.interrupts.send(Box::new(|_: &VirtualMachine| Ok(())));
            return;
        }
        let control = self.control.clone();
        let _ = self.interrupts.send(Box::new(move |vm: &VirtualMachine| raise_pending_interrupt(&control, vm)));
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

/// Runs in the VM (from its eval breaker): raises `KeyboardInterrupt` when an interrupt is
/// pending for the running cell (or the kernel is shutting down with a cell running) and the VM
/// stands where raising is safe, or once it was held back for [`MAX_INTERRUPT_HOLD_BACK`].
fn raise_pending_interrupt(control: &EmbeddedControl, vm: &VirtualMachine) -> PyResult<()> {
    control.interrupt_check_queued.store(false, Ordering::Release);
    let running = control.running_cell.load(Ordering::Acquire);
    let pending = control.interrupt_pending_for_cell.load(Ordering::Acquire);
    let shutting_down = control.shutdown.load(Ordering::Acquire);
    if running == 0 || (pending != running && !shutting_down) {
        return Ok(());
    }
    let safe = control.checking_signals_in_native_call.load(Ordering::Acquire) || vm_stands_where_an_interrupt_is_safe(vm);
    if !safe {
        let now_ms = control.created.elapsed().as_millis() as u64 + 1;
        let since_ms = match control.interrupt_held_back_since_ms.compare_exchange(0, now_ms, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => now_ms,
            Err(since_ms) => since_ms,
        };
        if now_ms - since_ms < MAX_INTERRUPT_HOLD_BACK.as_millis() as u64 {
            return Ok(());
        }
    }
    control.interrupt_pending_for_cell.store(0, Ordering::Release);
    control.interrupt_held_back_since_ms.store(0, Ordering::Release);
    Err(vm.new_exception_msg(vm.ctx.exceptions.keyboard_interrupt.to_owned(), "the host interrupted the cell".into()))
}

/// `vm.check_signals()` from inside a native function, where raising a pending interrupt is
/// always safe (see [`EmbeddedControl::checking_signals_in_native_call`]).
fn check_signals_in_native_call(control: &EmbeddedControl, vm: &VirtualMachine) -> PyResult<()> {
    control.checking_signals_in_native_call.store(true, Ordering::Release);
    let result = vm.check_signals();
    control.checking_signals_in_native_call.store(false, Ordering::Release);
    result
}

/// Whether an exception raised from the eval breaker now leaves the VM's argument state clean.
///
/// RustPython 0.5.0's frame loop (`ExecutingFrame::run`) folds the current instruction's
/// argument byte into its `OpArgState` before it checks signals, and when a signal raises and a
/// handler in the same frame catches it, the loop continues without resetting that state: the
/// handler's first instruction then reads `(previous << 8) | its own argument`, which panics in
/// `OpArg` decoding (`InvalidBytecode`, compiler-core `instruction.rs`) when it is not a valid
/// value for that instruction. The state is clean exactly when the interrupted instruction's
/// argument byte is 0 and no `EXTENDED_ARG` precedes it. The frame loop advanced `lasti` past the
/// instruction before the check, so the instruction is at `lasti - 1`. Without a current frame
/// (a native call outside any frame) raising is safe.
fn vm_stands_where_an_interrupt_is_safe(vm: &VirtualMachine) -> bool {
    let Some(frame) = vm.current_frame() else {
        return true;
    };
    let Some(index) = (frame.lasti() as usize).checked_sub(1) else {
        return true;
    };
    let instructions = &frame.code.code.instructions;
    if index >= instructions.len() {
        return true;
    }
    let argument_byte: u8 = instructions.read_arg(index).into();
    let after_extended_argument = index > 0 && matches!(instructions.read_op(index - 1), Instruction::ExtendedArg);
    argument_byte == 0 && !after_extended_argument
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
                    check_signals_in_native_call(&receive_control, vm)?;
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
                check_signals_in_native_call(&sleep_control, vm)?;
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
