//! Progress of a long call: what a host shows while a language server indexes, a checker runs or
//! a search walks a large tree (MCP `notifications/progress`; a callback for library hosts).
//!
//! A host asks for progress per call with [`crate::CallOptions::with_progress`]; the registry
//! wraps the callback in a [`ProgressSink`] and makes it the *current* sink of the calling
//! thread for the duration of the call (nested calls report to the same sink). Sources report
//! through [`crate::CallContext::progress`] or, deep inside a resource where no context is at
//! hand but the call's thread is, through [`report`] / [`report_with`]; helper threads take a
//! clone of [`current`]. With nobody listening every report is a no-op that costs a
//! thread-local read.
//!
//! Contract of a sink, whoever reports: at most one update per [`DEFAULT_MIN_INTERVAL`] (250 ms,
//! so at most four a second; updates in between are dropped, the next one carries the current
//! state), `progress` strictly increasing (MCP requires it: an update that would not increase it
//! is dropped, or — when its message says something new — sent one step above the last value
//! with no `total`), and nothing after [`ProgressSink::close`] (the registry closes it when the
//! call returns, so a helper thread that lingers cannot report after the result).

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// The least time between two updates a sink passes on: 250 ms.
pub const DEFAULT_MIN_INTERVAL: Duration = Duration::from_millis(250);

/// One progress report (MCP `notifications/progress` params without the token).
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// How far along: a count (files searched), seconds waited, a percentage; increases with
    /// every update of one call.
    pub progress: f64,
    /// What `progress` counts up to, when known (e.g. the wait's bound in seconds).
    pub total: Option<f64>,
    /// A short human line, e.g. `rust-analyzer: indexing (Roots Scanned 34/60)`.
    pub message: Option<String>,
}

impl ProgressUpdate {
    /// An update at `progress`, no total, no message.
    pub fn new(progress: f64) -> ProgressUpdate {
        ProgressUpdate { progress, total: None, message: None }
    }

    /// Sets the total.
    #[must_use]
    pub fn with_total(mut self, total: f64) -> ProgressUpdate {
        self.total = Some(total);
        self
    }

    /// Sets the message.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> ProgressUpdate {
        self.message = Some(message.into());
        self
    }
}

/// What a host gives to receive a call's progress. Called on whichever thread reports (the
/// call's own, a search's walker threads, a ticker); must not block.
pub type ProgressCallback = Arc<dyn Fn(&ProgressUpdate) + Send + Sync>;

/// A call's progress sink: rate-limited, monotone, closable (see the module documentation).
/// Cheap to clone; clones share the limits.
#[derive(Clone)]
pub struct ProgressSink(Arc<SinkInner>);

struct SinkInner {
    callback: ProgressCallback,
    /// When the sink was made: the call's start (see [`ProgressSink::elapsed`]).
    started: Instant,
    min_interval: Duration,
    state: Mutex<SinkState>,
}

#[derive(Default)]
struct SinkState {
    last_sent_at: Option<Instant>,
    last_progress: Option<f64>,
    last_message: Option<String>,
    closed: bool,
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.0.state.lock();
        f.debug_struct("ProgressSink")
            .field("min_interval", &self.0.min_interval)
            .field("last_progress", &state.last_progress)
            .field("closed", &state.closed)
            .finish_non_exhaustive()
    }
}

impl ProgressSink {
    /// A sink passing at most one update per [`DEFAULT_MIN_INTERVAL`] to `callback`.
    pub fn new(callback: ProgressCallback) -> ProgressSink {
        ProgressSink::with_min_interval(callback, DEFAULT_MIN_INTERVAL)
    }

    /// A sink with its own least interval between updates.
    pub fn with_min_interval(callback: ProgressCallback, min_interval: Duration) -> ProgressSink {
        ProgressSink(Arc::new(SinkInner { callback, started: Instant::now(), min_interval, state: Mutex::new(SinkState::default()) }))
    }

    /// Passes `update` on unless it comes too soon, does not advance, or the sink is closed;
    /// returns whether it was passed on.
    pub fn report(&self, update: ProgressUpdate) -> bool {
        self.report_with(|| update)
    }

    /// Like [`ProgressSink::report`], building the update only when one is due (for sources
    /// that report often, e.g. per file searched).
    pub fn report_with(&self, make: impl FnOnce() -> ProgressUpdate) -> bool {
        let mut state = self.0.state.lock();
        let now = Instant::now();
        if state.closed || state.last_sent_at.is_some_and(|at| now.duration_since(at) < self.0.min_interval) {
            return false;
        }
        let mut update = make();
        if !update.progress.is_finite() {
            return false;
        }
        if let Some(last) = state.last_progress {
            if update.progress <= last {
                if update.message.is_none() || update.message == state.last_message {
                    return false;
                }
                // A new phase restarted its count: say it, one step on, without a total that
                // would no longer fit.
                update.progress = last + 1.0;
                update.total = None;
            }
        }
        state.last_sent_at = Some(now);
        state.last_progress = Some(update.progress);
        state.last_message.clone_from(&update.message);
        // Under the lock: `close` waits for an update being delivered, so none follows it.
        (self.0.callback)(&update);
        true
    }

    /// Passes nothing more on; waits for an update being delivered on another thread.
    pub fn close(&self) {
        self.0.state.lock().closed = true;
    }

    /// Time since the sink was made; the registry makes a call's sink as the call begins, so
    /// this is how long the call has run (the scale of [`report_phase`] and [`while_phase`]).
    pub fn elapsed(&self) -> Duration {
        self.0.started.elapsed()
    }

    /// Whether [`ProgressSink::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.0.state.lock().closed
    }
}

thread_local! {
    static CURRENT: RefCell<Option<ProgressSink>> = const { RefCell::new(None) };
}

/// The sink of the call running on this thread, if its host listens.
pub fn current() -> Option<ProgressSink> {
    CURRENT.with(|current| current.borrow().clone())
}

/// Reports to the call running on this thread (a no-op when nobody listens).
pub fn report(update: ProgressUpdate) {
    report_with(|| update);
}

/// Reports to the call running on this thread, building the update only when one is due.
pub fn report_with(make: impl FnOnce() -> ProgressUpdate) {
    if let Some(sink) = current() {
        sink.report_with(make);
    }
}

/// Makes `sink` this thread's current sink until the guard drops (then the previous one is
/// current again). The registry enters the call's sink around each call.
pub fn enter(sink: Option<ProgressSink>) -> CurrentSinkGuard {
    let previous = CURRENT.with(|current| std::mem::replace(&mut *current.borrow_mut(), sink));
    CurrentSinkGuard { previous }
}

/// Restores the previous current sink on drop (see [`enter`]).
#[must_use = "the sink is current only while the guard lives"]
pub struct CurrentSinkGuard {
    previous: Option<ProgressSink>,
}

impl Drop for CurrentSinkGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// How often [`while_waiting`] reports.
const TICK: Duration = Duration::from_secs(1);

/// Runs `wait` (a blocking operation of unknown progress: a checker, a package install) and,
/// when the calling thread's call has a sink, reports once at the start and then every second
/// from a named helper thread (`runbound-progress`): `progress` = seconds elapsed, `total` =
/// `bound` in seconds when given, `message` = `describe(elapsed)`. The helper is stopped and
/// joined before this returns.
pub fn while_waiting<T>(bound: Option<Duration>, describe: impl Fn(Duration) -> String + Send + Sync, wait: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    ticking(
        |_sink, elapsed| {
            let mut update = ProgressUpdate::new(elapsed.as_secs_f64()).with_message(describe(elapsed));
            if let Some(bound) = bound {
                update = update.with_total(bound.as_secs_f64());
            }
            update
        },
        started,
        wait,
    )
}

/// The update of a phase of the running call: `progress` = seconds since the call began,
/// `total` = seconds from the call's start to `deadline` when given.
fn phase_update(sink: &ProgressSink, deadline: Option<Instant>, message: String) -> ProgressUpdate {
    let mut update = ProgressUpdate::new(sink.elapsed().as_secs_f64()).with_message(message);
    if let Some(deadline) = deadline {
        let since_start = deadline.saturating_duration_since(Instant::now()) + sink.elapsed();
        update = update.with_total(since_start.as_secs_f64());
    }
    update
}

/// Reports a phase of a call made of several steps (a debug launch: build, adapter start,
/// launch, first stop): `progress` = seconds since the call began (one scale for every phase,
/// so it keeps increasing), `total` = seconds from the call's start to `deadline` when given,
/// `message` = `message()`, built only when an update is due. A no-op when nobody listens.
pub fn report_phase(deadline: Option<Instant>, message: impl FnOnce() -> String) {
    if let Some(sink) = current() {
        sink.report_with(|| phase_update(&sink, deadline, message()));
    }
}

/// Runs `wait` (one blocking phase of a multi-step call) like [`while_waiting`], on the scale of
/// [`report_phase`]: once at the start, then every second, `message` = `describe(time in this
/// phase)`.
pub fn while_phase<T>(deadline: Option<Instant>, describe: impl Fn(Duration) -> String + Send + Sync, wait: impl FnOnce() -> T) -> T {
    ticking(|sink, in_phase| phase_update(sink, deadline, describe(in_phase)), Instant::now(), wait)
}

/// Reports `make(sink, time since started)` at once and then every [`TICK`] from a named helper
/// thread while `wait` runs; the helper is joined before this returns.
fn ticking<T>(make: impl Fn(&ProgressSink, Duration) -> ProgressUpdate + Send + Sync, started: Instant, wait: impl FnOnce() -> T) -> T {
    let Some(sink) = current() else { return wait() };
    sink.report(make(&sink, started.elapsed()));
    let (stop_tx, stop_rx) = crossbeam_channel::bounded::<()>(0);
    std::thread::scope(|scope| {
        let ticker = std::thread::Builder::new().name("runbound-progress".to_owned()).spawn_scoped(scope, || {
            while let Err(crossbeam_channel::RecvTimeoutError::Timeout) = stop_rx.recv_timeout(TICK) {
                sink.report(make(&sink, started.elapsed()));
            }
        });
        let outcome = wait();
        drop(stop_tx);
        if let Ok(ticker) = ticker {
            let _ = ticker.join();
        }
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recording() -> (ProgressCallback, Arc<Mutex<Vec<ProgressUpdate>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = Arc::clone(&seen);
        (Arc::new(move |update: &ProgressUpdate| sink_seen.lock().push(update.clone())), seen)
    }

    #[test]
    fn sinks_limit_the_rate_keep_progress_increasing_and_stop_when_closed() {
        let (callback, seen) = recording();
        let sink = ProgressSink::with_min_interval(callback, Duration::from_millis(40));
        assert!(sink.report(ProgressUpdate::new(1.0).with_message("a")));
        assert!(!sink.report(ProgressUpdate::new(2.0)), "too soon");
        std::thread::sleep(Duration::from_millis(50));
        assert!(!sink.report(ProgressUpdate::new(1.0).with_message("a")), "no advance, nothing new");
        assert!(sink.report(ProgressUpdate::new(0.5).with_total(10.0).with_message("phase two")), "a new phase is said");
        std::thread::sleep(Duration::from_millis(50));
        assert!(sink.report(ProgressUpdate::new(5.0).with_total(10.0)));
        sink.close();
        std::thread::sleep(Duration::from_millis(50));
        assert!(!sink.report(ProgressUpdate::new(9.0)), "closed");
        let seen = seen.lock();
        let progress: Vec<f64> = seen.iter().map(|update| update.progress).collect();
        assert_eq!(progress, vec![1.0, 2.0, 5.0]);
        assert_eq!(seen[1].total, None, "a restarted count drops its total");
        assert_eq!(seen[1].message.as_deref(), Some("phase two"));
    }

    #[test]
    fn the_current_sink_is_per_thread_and_nests() {
        let (callback, seen) = recording();
        report(ProgressUpdate::new(1.0)); // nobody listens: a no-op
        let sink = ProgressSink::with_min_interval(callback, Duration::ZERO);
        {
            let _outer = enter(Some(sink.clone()));
            report(ProgressUpdate::new(1.0));
            {
                let _inner = enter(None);
                report(ProgressUpdate::new(2.0));
            }
            report(ProgressUpdate::new(3.0));
            std::thread::spawn(|| report(ProgressUpdate::new(4.0))).join().unwrap();
        }
        report(ProgressUpdate::new(5.0));
        let progress: Vec<f64> = seen.lock().iter().map(|update| update.progress).collect();
        assert_eq!(progress, vec![1.0, 3.0]);
    }

    #[test]
    fn phases_share_the_calls_scale_and_total() {
        let (callback, seen) = recording();
        let sink = ProgressSink::with_min_interval(callback, Duration::ZERO);
        let _current = enter(Some(sink));
        let deadline = Instant::now() + Duration::from_secs(100);
        std::thread::sleep(Duration::from_millis(50));
        report_phase(Some(deadline), || "building".to_owned());
        let answer = while_phase(
            Some(deadline),
            |in_phase| format!("launching ({} s)", in_phase.as_secs()),
            || {
                std::thread::sleep(Duration::from_millis(1200));
                7
            },
        );
        report_phase(None, || "configuring".to_owned());
        assert_eq!(answer, 7);
        let seen = seen.lock();
        let messages: Vec<&str> = seen.iter().filter_map(|update| update.message.as_deref()).collect();
        assert_eq!(messages, vec!["building", "launching (0 s)", "launching (1 s)", "configuring"], "{seen:?}");
        assert!(seen[0].progress >= 0.05 && seen[0].progress < 1.0, "seconds since the call began: {seen:?}");
        assert!(seen.windows(2).all(|pair| pair[0].progress < pair[1].progress), "{seen:?}");
        assert!(seen[3].progress >= 1.2, "the scale runs on across phases: {seen:?}");
        for update in &seen[..3] {
            let total = update.total.expect("a total up to the deadline");
            assert!((99.0..=100.5).contains(&total), "the deadline seen from the call's start: {seen:?}");
        }
        assert_eq!(seen[3].total, None);
    }

    #[test]
    fn waiting_ticks_while_the_wait_runs_and_not_after() {
        let (callback, seen) = recording();
        let sink = ProgressSink::with_min_interval(callback, Duration::ZERO);
        let _current = enter(Some(sink));
        let answer = while_waiting(
            Some(Duration::from_secs(60)),
            |elapsed| format!("checking ({} s)", elapsed.as_secs()),
            || {
                std::thread::sleep(Duration::from_millis(2300));
                42
            },
        );
        assert_eq!(answer, 42);
        let count = seen.lock().len();
        assert!((2..=4).contains(&count), "one at the start, one per second: {:?}", seen.lock());
        assert_eq!(seen.lock()[0].total, Some(60.0));
        std::thread::sleep(Duration::from_millis(1200));
        assert_eq!(seen.lock().len(), count, "nothing after the wait returned");
    }
}
