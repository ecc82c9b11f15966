//! One running cell, watched by the host: the request goes to the kernel, then a loop takes the
//! kernel's events (protocol messages, raw fd-1 output, end-of-cell markers, the end of the
//! stream) until the cell is `done`, the kernel dies, or a budget ends it — the host's
//! cancellation, the call's own time budget, the inactivity budget. The kernel never times
//! itself. What the cell produced comes back as a typed [`CellOutcome`]; rendering it for the
//! model is the tool's job (`tool.rs`).
//!
//! Steps ([`run_cell`]): [`CellRun::send_execute`] → [`CellRun::watch`] (with
//! [`CellRun::expired_budget`], [`CellRun::on_message`], [`CellRun::on_done`],
//! [`CellRun::on_kernel_closed`], and [`CellRun::stop`] when a budget ran out) →
//! [`CellRun::collect_stderr`] → [`CellRun::finish`].

use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use serde_json::{json, Value};

use super::session::{cell_end_marker, strip_cell_end_markers, KernelEvent, LiveKernel};
use super::KernelConfig;

/// What a running cell needs from whoever asked for it: whether they gave up, when their time
/// ends, and a way to serve the cell's `tool(name, args)` calls. The `eval` tool implements it
/// over its call context; the kernel layer knows nothing of tools.
pub(crate) trait CellHost {
    /// Whether the caller cancelled the call.
    fn cancelled(&self) -> bool;
    /// When the call's own time budget ends.
    fn deadline(&self) -> Instant;
    /// The length of the call's own time budget (for the message when it runs out).
    fn budget(&self) -> Duration;
    /// Serves one `tool(name, arguments)` call from the cell: the value the cell receives, or the
    /// error text it raises.
    fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, String>;
    /// Hears the running cell's latest non-empty output line, `elapsed` after the cell started
    /// (for progress reports to a host that listens; a `%pip install`'s `Collecting …`).
    fn output_line(&mut self, cell_number: u64, elapsed: Duration, line: &str);
}

/// Hands the last non-empty line of `text` to `host` as the running cell's latest output.
fn report_output_line(host: &mut dyn CellHost, cell_number: u64, started: Instant, text: &str) {
    if let Some(line) = text.lines().rev().map(str::trim).find(|line| !line.is_empty()) {
        host.output_line(cell_number, started.elapsed(), line);
    }
}

/// How a cell ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CellStatus {
    /// Ran to completion.
    Ok,
    /// Raised an exception (the kernel is kept).
    Error,
    /// A time budget stopped it.
    Timeout,
    /// The kernel died under it, or could not take it.
    Crashed,
    /// The host cancelled the call.
    Cancelled,
}

/// What stopped a cell, as `eval`'s `stopped_by` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StopKind {
    /// The host cancelled the call.
    Cancelled,
    /// The call reached its own time budget.
    CallDeadline,
    /// The cell produced no output for the inactivity budget.
    InactivityBudget,
    /// The cell ran for the wall-clock cap per cell.
    CellWallClockCap,
}

/// Why the host stopped a running cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopReason {
    /// The host cancelled the call.
    Cancelled,
    /// The call reached its own time budget (`budget` long).
    CallDeadline {
        /// The call's time budget.
        budget: Duration,
    },
    /// The cell produced no output for the inactivity budget.
    Inactivity {
        /// [`KernelConfig::inactivity_budget`].
        budget: Duration,
    },
    /// The cell ran for the wall-clock cap per cell.
    WallClockCap {
        /// [`KernelConfig::cell_wall_clock_cap`].
        cap: Duration,
    },
}

impl StopReason {
    /// Which budget or event stopped the cell, without its figures (the wire name's source).
    pub(crate) fn kind(self) -> StopKind {
        match self {
            StopReason::Cancelled => StopKind::Cancelled,
            StopReason::CallDeadline { .. } => StopKind::CallDeadline,
            StopReason::Inactivity { .. } => StopKind::InactivityBudget,
            StopReason::WallClockCap { .. } => StopKind::CellWallClockCap,
        }
    }

    fn status(self) -> CellStatus {
        match self {
            StopReason::Cancelled => CellStatus::Cancelled,
            _ => CellStatus::Timeout,
        }
    }

    /// Whether a kernel that its interrupt stopped may be kept: like a notebook's interrupt for a
    /// cancelled call, the call's own budget and the wall-clock cap; never for the inactivity
    /// budget ("interrupt, then kill the process group and restart").
    fn may_keep_kernel(self) -> bool {
        !matches!(self, StopReason::Inactivity { .. })
    }
}

/// What a displayed or echoed value looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DisplayValue {
    /// Text (a repr, a table, ...), already capped by the driver.
    Text(String),
    /// A PNG image.
    Png {
        /// Base64 of the PNG.
        data: String,
        /// Pixels.
        width: u64,
        /// Pixels.
        height: u64,
        /// Size of the PNG in bytes.
        bytes: u64,
        /// The driver's note (e.g. re-rendered at half the dpi), if any.
        note: Option<String>,
    },
}

/// How the host stopped a cell and what became of the kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CellStop {
    /// Which budget (or the host) stopped it.
    pub(crate) reason: StopReason,
    /// Whether the kernel was kept with its state (the interrupt ended the cell in time).
    pub(crate) kernel_kept: bool,
    /// The kernel's generation (kept) — the next call's generation is one more when not kept.
    pub(crate) generation: u64,
    /// How the kernel was stopped when it was not kept.
    pub(crate) how: StopHow,
    /// Where the cell was when interrupted, if the kernel said.
    pub(crate) traceback: Option<String>,
}

/// How a kernel that was not kept was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopHow {
    /// A spawned kernel: interrupted, then its process group and shell children killed.
    Killed,
    /// The embedded interpreter: interrupted and discarded.
    EmbeddedDiscarded,
    /// The embedded interpreter did not stop and its thread was abandoned (why).
    EmbeddedAbandoned(String),
}

/// One piece of a cell's result, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OutputItem {
    /// Text the cell printed (`stdout` or `stderr`), including raw fd-1 output.
    Stream {
        /// `stdout` or `stderr`.
        name: String,
        /// The text.
        text: String,
    },
    /// A `display()`ed value (`echo: false`) or the cell's echoed last expression (`echo: true`).
    Value {
        /// What it looks like.
        value: DisplayValue,
        /// Whether it is the echo of the last expression.
        echo: bool,
    },
    /// The cell raised: the traceback (or `name: value`).
    Exception(String),
    /// The driver cut the cell's printed output: it kept the first `head_bytes` and the last
    /// `tail_bytes` of `total_bytes`.
    OutputCut {
        /// Bytes kept from the start.
        head_bytes: u64,
        /// Bytes kept from the end.
        tail_bytes: u64,
        /// Bytes printed in all.
        total_bytes: u64,
    },
    /// Figures closed without being shown: more than `cap` per cell.
    FiguresClosed {
        /// How many.
        count: u64,
        /// [`KernelConfig::max_images`].
        cap: usize,
    },
    /// Raw fd-1 output past the cell's cap was dropped; updated as bytes arrive.
    RawOutputCut {
        /// Raw bytes shown.
        kept_bytes: u64,
        /// Raw bytes written in all.
        total_bytes: u64,
    },
    /// The end marker of raw output (fd 1, or fd 2 when `stderr`) did not arrive within `waited`.
    RawOutputIncomplete {
        /// How long the host waited.
        waited: Duration,
        /// True for raw stderr (fd 2), false for raw stdout (fd 1).
        stderr: bool,
    },
    /// What the kernel wrote to its raw stderr (fd 2) during the cell: the last `text` of
    /// `total_bytes`.
    RawStderr {
        /// The tail shown.
        text: String,
        /// Bytes written to fd 2 during the cell.
        total_bytes: u64,
    },
    /// The reply to a `tool()` call could not be delivered to the kernel.
    BridgeReplyLost(String),
    /// The host stopped the cell.
    Stopped(CellStop),
    /// The kernel died under the cell: its state line; the next call starts `next_generation`.
    KernelDied {
        /// The kernel process's state and stderr tail.
        state: String,
        /// The generation the next call starts.
        next_generation: u64,
    },
    /// The kernel could not take the cell.
    KernelUnreachable(KernelLoss),
}

/// Why a kernel's state was lost (kept for the next call's note and for status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KernelLoss {
    /// The host stopped a cell and killed the kernel.
    Stopped(StopReason),
    /// The kernel died while running `cell`.
    Died {
        /// The cell number.
        cell: u64,
        /// Why the protocol stream ended.
        reason: String,
        /// The kernel process's state and stderr tail.
        state: String,
    },
    /// The kernel could not take a cell.
    Unreachable {
        /// The write error.
        error: String,
        /// The kernel process's state and stderr tail.
        state: String,
    },
}

/// Everything one cell produced and how it ended.
#[derive(Debug)]
pub(crate) struct CellOutcome {
    /// How it ended.
    pub(crate) status: CellStatus,
    /// What it produced, in order.
    pub(crate) items: Vec<OutputItem>,
    /// Set when the kernel (and its state) is gone after this cell.
    pub(crate) state_lost: Option<KernelLoss>,
    /// Which budget stopped it, if one did.
    pub(crate) stopped_by: Option<StopReason>,
    /// Wall time from sending the cell to its end.
    pub(crate) elapsed: Duration,
    /// How many `tool()` calls the cell made.
    pub(crate) bridge_calls: u64,
    /// Output bytes not shown (the driver's cut plus dropped raw output).
    pub(crate) omitted_bytes: u64,
}

/// How long a finished cell waits for the rest of its raw fd-1 output: 2 s.
const RAW_CELL_END_WAIT: Duration = Duration::from_secs(2);

/// How often [`CellRun::stop`] re-trips an embedded interpreter's eval breaker within the
/// interrupt grace: 10 ms. The breaker is process-global: another busy interpreter in this
/// process takes about every other trip, and a pending interrupt is held back at instructions
/// where raising is unsafe, so the cell needs many trips within the grace (a re-trip costs a
/// no-op closure while a check is still queued).
const EMBEDDED_INTERRUPT_RETRIGGER: Duration = Duration::from_millis(10);

/// Once the kernel says the interrupt landed (its `interrupted` message), how long
/// [`CellRun::stop`] waits more for its traceback and `done`: 5 s. The interrupt grace bounds
/// how long the kernel takes to react; formatting the report is the driver's own work (slow in
/// the embedded interpreter of a debug build on a loaded machine), not the cell's.
const INTERRUPT_REPORT_BOUND: Duration = Duration::from_secs(5);

/// Runs cell `cell_number` with `code` on `kernel` and watches it until it ends.
pub(crate) fn run_cell(
    kernel: &mut LiveKernel,
    config: &KernelConfig,
    cell_number: u64,
    code: &str,
    host: &mut dyn CellHost,
) -> CellOutcome {
    let mut run = CellRun::new(kernel, config, cell_number);
    if run.send_execute(code) {
        run.watch(host);
        run.collect_stderr();
    }
    run.finish()
}

/// Whether the watch loop goes on after an event.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Ended,
}

/// The state of one watched cell.
struct CellRun<'k> {
    kernel: &'k mut LiveKernel,
    config: &'k KernelConfig,
    cell_number: u64,
    started: Instant,
    outcome: CellOutcome,
    /// Last output (or bridge reply): the inactivity budget counts from here.
    last_activity: Instant,
    /// Raw fd-1 bytes shown so far.
    raw_shown_bytes: u64,
    /// Index in `outcome.items` of the [`OutputItem::RawOutputCut`] once raw output was cut.
    raw_cut_item: Option<usize>,
    /// Whether this cell's raw end marker already arrived.
    raw_cell_end_seen: bool,
    /// The kernel's raw stderr byte count when the cell started.
    stderr_before: u64,
    /// Whether the driver said (in `done`) that it wrote this cell's end marker to fd 2.
    stderr_marker_written: bool,
}

impl<'k> CellRun<'k> {
    fn new(kernel: &'k mut LiveKernel, config: &'k KernelConfig, cell_number: u64) -> CellRun<'k> {
        let stderr_before = kernel.stderr_total_bytes();
        let now = Instant::now();
        CellRun {
            kernel,
            config,
            cell_number,
            started: now,
            outcome: CellOutcome {
                status: CellStatus::Ok,
                items: Vec::new(),
                state_lost: None,
                stopped_by: None,
                elapsed: Duration::ZERO,
                bridge_calls: 0,
                omitted_bytes: 0,
            },
            last_activity: now,
            raw_shown_bytes: 0,
            raw_cut_item: None,
            raw_cell_end_seen: false,
            stderr_before,
            stderr_marker_written: false,
        }
    }

    /// Sends the `execute` request with the output caps; false (and the loss recorded) when the
    /// kernel cannot take it.
    fn send_execute(&mut self, code: &str) -> bool {
        let config = self.config;
        let request = json!({
            "type": "execute",
            "cell": self.cell_number,
            "code": code,
            "limits": {
                "max_output_bytes": config.max_cell_output_bytes,
                "max_item_bytes": config.max_item_bytes,
                "max_images": config.max_images,
                "max_image_bytes": config.max_image_bytes,
                "dataframe_max_rows": config.dataframe_max_rows,
            }
        });
        let Err(error) = self.kernel.send(&request) else {
            return true;
        };
        let loss = KernelLoss::Unreachable { error, state: self.kernel.describe_exit() };
        self.outcome.status = CellStatus::Crashed;
        self.outcome.items.push(OutputItem::KernelUnreachable(loss.clone()));
        self.outcome.state_lost = Some(loss);
        false
    }

    /// The watch loop: budgets first, then the next event (waking at least every 100 ms, and at
    /// the nearest budget's end).
    fn watch(&mut self, host: &mut dyn CellHost) {
        loop {
            let now = Instant::now();
            if let Some(reason) = self.expired_budget(host, now) {
                self.stop(reason);
                return;
            }
            let idle_deadline = self.last_activity + self.config.inactivity_budget;
            let cap_deadline = self.started + self.config.cell_wall_clock_cap;
            let wake = idle_deadline.min(cap_deadline).min(host.deadline()).min(now + Duration::from_millis(100));
            let event = match self.kernel.events.recv_timeout(wake.saturating_duration_since(now)) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => KernelEvent::Closed("the kernel reader stopped".to_owned()),
            };
            let flow = match event {
                KernelEvent::Raw(text) => {
                    self.last_activity = Instant::now();
                    report_output_line(host, self.cell_number, self.started, &text);
                    self.push_raw(text);
                    Flow::Continue
                }
                // The marker may overtake `done` (two pipes, two reader threads); an earlier
                // cell's marker may arrive late (that cell stopped waiting for it).
                KernelEvent::RawCellEnd(cell) => {
                    self.raw_cell_end_seen |= cell == self.cell_number;
                    Flow::Continue
                }
                KernelEvent::Closed(reason) => {
                    self.on_kernel_closed(reason);
                    Flow::Ended
                }
                KernelEvent::Message(message) => {
                    self.last_activity = Instant::now();
                    self.on_message(&message, host)
                }
            };
            if flow == Flow::Ended {
                return;
            }
        }
    }

    /// The budget that has run out at `now`, if any: cancellation, then inactivity, then the
    /// wall-clock cap per cell, then the call's own budget.
    fn expired_budget(&self, host: &dyn CellHost, now: Instant) -> Option<StopReason> {
        if host.cancelled() {
            return Some(StopReason::Cancelled);
        }
        if now >= self.last_activity + self.config.inactivity_budget {
            return Some(StopReason::Inactivity { budget: self.config.inactivity_budget });
        }
        if now >= self.started + self.config.cell_wall_clock_cap {
            return Some(StopReason::WallClockCap { cap: self.config.cell_wall_clock_cap });
        }
        if now >= host.deadline() {
            return Some(StopReason::CallDeadline { budget: host.budget() });
        }
        None
    }

    /// One protocol message from the kernel.
    fn on_message(&mut self, message: &Value, host: &mut dyn CellHost) -> Flow {
        match message["type"].as_str().unwrap_or("") {
            "stream" => {
                report_output_line(host, self.cell_number, self.started, message["text"].as_str().unwrap_or(""));
                self.outcome.items.push(stream_item(message));
            }
            "display" => self.outcome.items.push(OutputItem::Value { value: display_value(&message["item"]), echo: false }),
            "result" => self.outcome.items.push(OutputItem::Value { value: display_value(&message["item"]), echo: true }),
            "error" => self.outcome.items.push(OutputItem::Exception(exception_text(message))),
            "child" => self.on_child(message),
            "tool_call" => self.on_tool_call(message, host),
            // Past the output budget the kernel sends only heartbeats, with its latest line.
            "activity" => report_output_line(host, self.cell_number, self.started, message["latest"].as_str().unwrap_or("")),
            "done" => {
                self.on_done(message);
                return Flow::Ended;
            }
            _ => {}
        }
        Flow::Continue
    }

    /// A shell child started or ended: its process group is killed with the kernel.
    fn on_child(&mut self, message: &Value) {
        let Some(pid) = message["pid"].as_i64().and_then(|pid| i32::try_from(pid).ok()) else {
            return;
        };
        let mut groups = self.kernel.child_groups.lock();
        match message["state"].as_str() {
            Some("started") => groups.insert(pid),
            _ => groups.remove(&pid),
        };
    }

    /// Serves a `tool()` call; the inactivity budget is paused while it is outstanding.
    fn on_tool_call(&mut self, message: &Value, host: &mut dyn CellHost) {
        self.outcome.bridge_calls += 1;
        let id = message["id"].clone();
        let name = message["name"].as_str().unwrap_or("");
        let arguments = message.get("args").cloned().unwrap_or(Value::Null);
        let reply = match host.call_tool(name, arguments) {
            Ok(value) => json!({"type": "tool_result", "id": id, "ok": true, "value": value}),
            Err(error) => json!({"type": "tool_result", "id": id, "ok": false, "error": error}),
        };
        if let Err(err) = self.kernel.send(&reply) {
            self.outcome.items.push(OutputItem::BridgeReplyLost(err));
        }
        self.last_activity = Instant::now();
    }

    /// The cell's `done`: its status, the driver's cut of printed output and its kept tail,
    /// closed figures, and the rest of its raw fd-1 output.
    fn on_done(&mut self, message: &Value) {
        if message["status"] == "error" {
            self.outcome.status = CellStatus::Error;
        }
        let omitted = message["omitted_bytes"].as_u64().unwrap_or(0);
        if omitted > 0 {
            self.outcome.omitted_bytes += omitted;
            // The driver says what it kept; older drivers did not, and kept half the cap each.
            let half = self.config.max_cell_output_bytes as u64 / 2;
            let head_bytes = message["head_bytes"].as_u64().unwrap_or(half);
            let tail_bytes = message["tail_bytes"].as_u64().unwrap_or(half);
            self.outcome.items.push(OutputItem::OutputCut { head_bytes, tail_bytes, total_bytes: head_bytes + tail_bytes + omitted });
        }
        if let Some(tail) = message["tail"].as_array() {
            for chunk in tail {
                self.outcome.items.push(OutputItem::Stream {
                    name: chunk[0].as_str().unwrap_or("stdout").to_owned(),
                    text: chunk[1].as_str().unwrap_or("").to_owned(),
                });
            }
        }
        let figures_closed = message["figures_omitted"].as_u64().unwrap_or(0);
        if figures_closed > 0 {
            self.outcome.items.push(OutputItem::FiguresClosed { count: figures_closed, cap: self.config.max_images });
        }
        self.stderr_marker_written = message["stderr_marker"] == true;
        if message["raw_marker"] == true && !self.raw_cell_end_seen {
            self.collect_raw_until_cell_end();
        } else {
            while let Ok(KernelEvent::Raw(text)) = self.kernel.events.try_recv() {
                self.push_raw(text);
            }
        }
    }

    /// The kernel's protocol stream ended under the cell: the kernel died.
    fn on_kernel_closed(&mut self, reason: String) {
        let state = self.kernel.describe_exit();
        self.outcome.status = CellStatus::Crashed;
        self.outcome.items.push(OutputItem::KernelDied { state: state.clone(), next_generation: self.kernel.generation + 1 });
        self.outcome.state_lost = Some(KernelLoss::Died { cell: self.cell_number, reason, state });
    }

    /// After a spawned kernel's `done`: takes raw stdout (fd 1) until the driver's end-of-cell
    /// marker for this cell arrives, so everything the cell wrote there is in its result.
    /// Bounded by [`RAW_CELL_END_WAIT`]; a marker that does not come (fd 1 closed or redirected
    /// by the cell) is said.
    fn collect_raw_until_cell_end(&mut self) {
        let deadline = Instant::now() + RAW_CELL_END_WAIT;
        loop {
            match self.kernel.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(KernelEvent::Raw(text)) => self.push_raw(text),
                Ok(KernelEvent::RawCellEnd(cell)) if cell == self.cell_number => return,
                Ok(KernelEvent::RawCellEnd(_)) | Ok(KernelEvent::Message(_)) => {}
                Ok(KernelEvent::Closed(_)) | Err(_) => {
                    self.outcome.items.push(OutputItem::RawOutputIncomplete { waited: RAW_CELL_END_WAIT, stderr: false });
                    return;
                }
            }
        }
    }

    /// Raw fd-1 output: shown up to the cell's output cap, then counted in one
    /// [`OutputItem::RawOutputCut`] placed where the cut happened.
    fn push_raw(&mut self, text: String) {
        let size = text.len() as u64;
        let cap = self.config.max_cell_output_bytes as u64;
        if self.raw_cut_item.is_none() && self.raw_shown_bytes + size <= cap {
            self.raw_shown_bytes += size;
            self.outcome.items.push(OutputItem::Stream { name: "stdout".to_owned(), text });
            return;
        }
        self.outcome.omitted_bytes += size;
        let index = *self.raw_cut_item.get_or_insert_with(|| {
            self.outcome.items.push(OutputItem::RawOutputCut { kept_bytes: self.raw_shown_bytes, total_bytes: self.raw_shown_bytes });
            self.outcome.items.len() - 1
        });
        if let Some(OutputItem::RawOutputCut { total_bytes, .. }) = self.outcome.items.get_mut(index) {
            *total_bytes += size;
        }
    }

    /// Interrupts the kernel for `reason` and collects what it says within the interrupt grace;
    /// then keeps it (the cell ended and the reason allows it, see
    /// [`StopReason::may_keep_kernel`]) or kills it.
    fn stop(&mut self, reason: StopReason) {
        let kernel = &mut *self.kernel;
        kernel.interrupt();
        let mut deadline = Instant::now() + self.config.interrupt_grace;
        // An embedded interpreter's interrupt waits for a trip of RustPython's process-global eval
        // breaker, which another interpreter in this process may consume first: re-trip it (no
        // second KeyboardInterrupt is queued). A spawned kernel's SIGINT is not lost.
        let retrigger_every = kernel.is_embedded().then_some(EMBEDDED_INTERRUPT_RETRIGGER);
        let mut next_trigger = retrigger_every.map(|every| Instant::now() + every);
        let mut traceback = None;
        let mut cell_ended = false;
        loop {
            let now = Instant::now();
            if let (Some(at), Some(every)) = (next_trigger, retrigger_every) {
                if now >= at {
                    kernel.retrigger_interrupt();
                    next_trigger = Some(now + every);
                }
            }
            let wake = next_trigger.map_or(deadline, |at| at.min(deadline));
            let event = match kernel.events.recv_timeout(wake.saturating_duration_since(now)) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => continue,
                Err(_) => break,
            };
            match event {
                KernelEvent::Message(message) if message["type"] == "interrupted" => {
                    deadline = deadline.max(Instant::now() + INTERRUPT_REPORT_BOUND);
                    next_trigger = None;
                }
                KernelEvent::Message(message) if message["type"] == "error" => {
                    traceback = message["traceback"].as_str().map(str::to_owned);
                }
                KernelEvent::Message(message) if message["type"] == "stream" => self.outcome.items.push(stream_item(&message)),
                KernelEvent::Message(message) if message["type"] == "done" => {
                    cell_ended = true;
                    break;
                }
                KernelEvent::Closed(_) => break,
                _ => {}
            }
        }
        self.outcome.status = reason.status();
        self.outcome.stopped_by = Some(reason);
        let generation = kernel.generation;
        if reason.may_keep_kernel() && cell_ended && kernel.abandoned().is_none() {
            self.outcome.items.push(OutputItem::Stopped(CellStop {
                reason,
                kernel_kept: true,
                generation,
                how: StopHow::Killed,
                traceback,
            }));
            return;
        }
        kernel.kill();
        let how = match (kernel.is_embedded(), kernel.abandoned()) {
            (true, Some(why)) => StopHow::EmbeddedAbandoned(why.to_owned()),
            (true, None) => StopHow::EmbeddedDiscarded,
            (false, _) => StopHow::Killed,
        };
        self.outcome.items.push(OutputItem::Stopped(CellStop { reason, kernel_kept: false, generation, how, traceback }));
        self.outcome.state_lost = Some(KernelLoss::Stopped(reason));
    }

    /// What the kernel wrote to its raw stderr (fd 2) during the cell, from the stderr tail
    /// (the last [`KernelConfig::max_item_bytes`] of it). Not after the kernel was lost: its
    /// stderr is in the loss report then. When the driver wrote its end marker to fd 2, waits
    /// (bounded by [`RAW_CELL_END_WAIT`], polling every 5 ms) until the stderr drain thread has
    /// taken it, so bytes the cell wrote last are never left for the next cell; a marker that
    /// does not come is said.
    fn collect_stderr(&mut self) {
        if self.outcome.state_lost.is_some() {
            return;
        }
        if self.stderr_marker_written {
            let marker = cell_end_marker(self.cell_number);
            let deadline = Instant::now() + RAW_CELL_END_WAIT;
            while !self.kernel.stderr_tail_raw().contains(&marker) {
                if Instant::now() >= deadline {
                    self.outcome.items.push(OutputItem::RawOutputIncomplete { waited: RAW_CELL_END_WAIT, stderr: true });
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let after = self.kernel.stderr_total_bytes();
        if after <= self.stderr_before {
            return;
        }
        let tail = self.kernel.stderr_tail_raw();
        let delta = after - self.stderr_before;
        let keep = usize::try_from(delta).unwrap_or(usize::MAX).min(tail.len());
        let mut start = tail.len().saturating_sub(keep);
        while !tail.is_char_boundary(start) {
            start += 1;
        }
        let (text, marker_bytes) = strip_cell_end_markers(&tail[start..]);
        let written = delta.saturating_sub(marker_bytes as u64);
        if written == 0 {
            return;
        }
        let mut shown_from = text.len().saturating_sub(self.config.max_item_bytes);
        while !text.is_char_boundary(shown_from) {
            shown_from += 1;
        }
        self.outcome.items.push(OutputItem::RawStderr { text: text[shown_from..].to_owned(), total_bytes: written });
    }

    fn finish(mut self) -> CellOutcome {
        self.outcome.elapsed = self.started.elapsed();
        self.outcome
    }
}

fn stream_item(message: &Value) -> OutputItem {
    OutputItem::Stream {
        name: message["name"].as_str().unwrap_or("stdout").to_owned(),
        text: message["text"].as_str().unwrap_or("").to_owned(),
    }
}

fn exception_text(message: &Value) -> String {
    message["traceback"]
        .as_str()
        .filter(|traceback| !traceback.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("{}: {}", message["ename"].as_str().unwrap_or("Error"), message["evalue"].as_str().unwrap_or("")))
}

fn display_value(item: &Value) -> DisplayValue {
    match item["kind"].as_str() {
        Some("png") => DisplayValue::Png {
            data: item["data"].as_str().unwrap_or("").to_owned(),
            width: item["width"].as_u64().unwrap_or(0),
            height: item["height"].as_u64().unwrap_or(0),
            bytes: item["bytes"].as_u64().unwrap_or(0),
            note: item["note"].as_str().map(str::to_owned),
        },
        _ => DisplayValue::Text(item["text"].as_str().unwrap_or("").to_owned()),
    }
}
