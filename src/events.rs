//! Events a host operator wants to know about, outside any one call's result: a language server
//! that crashed, restarts and backs off, a kernel that died and was replaced, a debug adapter
//! that went away, a worker that failed, a tool that panicked, a call denied because no human
//! could be asked.
//!
//! The library never prints. A host receives events through the callback it gives
//! [`crate::RunBuilder::on_event`]; `runbound serve` turns them into MCP `notifications/message`
//! (at or above the level the host set with `logging/setLevel`, default `warning`), the other
//! CLI commands write warnings and worse to stderr. Levels are RFC 5424's, as MCP uses them.
//! Emitting with no callback attached costs nothing.
//!
//! Resources notice most of these things on a call's thread (a crashed server is found by the
//! next call that leases it, a dead kernel by the cell that was running), so the registry makes
//! the run's sink the *current* sink of a call's thread ([`enter`]) and resource code raises
//! events with [`emit`], without holding a sink of its own. Code on a resource's own threads
//! uses an [`EventSink`] it was given.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Severity of an event (RFC 5424, MCP `LoggingLevel`), least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventLevel {
    /// Detail for debugging runbound itself.
    Debug,
    /// Normal operation worth a line (a server started).
    Info,
    /// Normal but significant (a server restarted after a crash, an approval for the whole run).
    Notice,
    /// Something went wrong and was handled (a crash, a backoff, a denial for lack of a human).
    Warning,
    /// Something failed (a server cannot start, a tool panicked).
    Error,
    /// A resource is unusable for the rest of the run.
    Critical,
    /// Action needed at once.
    Alert,
    /// runbound is unusable.
    Emergency,
}

impl EventLevel {
    /// The wire name: `debug`, `info`, … `emergency`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventLevel::Debug => "debug",
            EventLevel::Info => "info",
            EventLevel::Notice => "notice",
            EventLevel::Warning => "warning",
            EventLevel::Error => "error",
            EventLevel::Critical => "critical",
            EventLevel::Alert => "alert",
            EventLevel::Emergency => "emergency",
        }
    }

    /// Parses a wire name (lowercase, as MCP sends it).
    pub fn parse(text: &str) -> Option<EventLevel> {
        serde_json::from_value(Value::String(text.to_owned())).ok()
    }

    /// Every level, least severe first.
    pub const ALL: [EventLevel; 8] = [
        EventLevel::Debug,
        EventLevel::Info,
        EventLevel::Notice,
        EventLevel::Warning,
        EventLevel::Error,
        EventLevel::Critical,
        EventLevel::Alert,
        EventLevel::Emergency,
    ];
}

impl std::fmt::Display for EventLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One event.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvent {
    /// How severe.
    pub level: EventLevel,
    /// Which part of the run it comes from: `lsp`, `kernel`, `debug`, `vibe`, `registry`, …
    /// (MCP's `logger`, prefixed `runbound/` by serve).
    pub source: &'static str,
    /// One line for a human, naming the server, kernel or tool and what happened.
    pub message: String,
    /// The same facts as JSON (e.g. `{"server": "rust-analyzer", "pid": 4711, "restart": 2}`);
    /// `Null` when the message says it all.
    pub data: Value,
}

impl RunEvent {
    /// An event with no structured data.
    pub fn new(level: EventLevel, source: &'static str, message: impl Into<String>) -> RunEvent {
        RunEvent { level, source, message: message.into(), data: Value::Null }
    }

    /// Sets the structured data.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> RunEvent {
        self.data = data;
        self
    }
}

/// What a host gives to receive events. Called on whichever thread the event happens (a call's
/// thread, a resource's owner thread); must not block and must not own the run.
pub type EventCallback = Arc<dyn Fn(&RunEvent) + Send + Sync>;

/// Where a resource sends its events: the host's callback, or nowhere. Cheap to clone.
#[derive(Clone, Default)]
pub struct EventSink(Option<EventCallback>);

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "EventSink(attached)" } else { "EventSink(none)" })
    }
}

impl EventSink {
    /// A sink calling `callback`.
    pub fn new(callback: EventCallback) -> EventSink {
        EventSink(Some(callback))
    }

    /// A sink that drops every event.
    pub fn none() -> EventSink {
        EventSink(None)
    }

    /// Whether a host listens.
    pub fn is_attached(&self) -> bool {
        self.0.is_some()
    }

    /// Delivers `event` (a no-op with nobody listening).
    pub fn emit(&self, event: RunEvent) {
        if let Some(callback) = &self.0 {
            callback(&event);
        }
    }
}

thread_local! {
    static CURRENT: std::cell::RefCell<EventSink> = std::cell::RefCell::new(EventSink::none());
}

/// Raises `event` to the run whose call is running on this thread (a no-op outside a call, or
/// when its host attached no callback).
pub fn emit(event: RunEvent) {
    let sink = CURRENT.with(|current| current.borrow().clone());
    sink.emit(event);
}

/// Makes `sink` this thread's current sink until the guard drops (then the previous one is
/// current again). The registry enters the run's sink around each call.
pub fn enter(sink: EventSink) -> CurrentEventSinkGuard {
    let previous = CURRENT.with(|current| std::mem::replace(&mut *current.borrow_mut(), sink));
    CurrentEventSinkGuard { previous: Some(previous) }
}

/// Restores the previous current sink on drop (see [`enter`]).
#[must_use = "the sink is current only while the guard lives"]
pub struct CurrentEventSinkGuard {
    previous: Option<EventSink>,
}

impl Drop for CurrentEventSinkGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_and_parse_as_mcp_names() {
        assert!(EventLevel::Warning < EventLevel::Error && EventLevel::Debug < EventLevel::Info);
        for level in EventLevel::ALL {
            assert_eq!(EventLevel::parse(level.as_str()), Some(level));
            assert_eq!(serde_json::to_value(level).unwrap(), Value::String(level.to_string()));
        }
        assert_eq!(EventLevel::parse("Warning"), None);
        assert_eq!(EventLevel::parse("verbose"), None);
    }

    #[test]
    fn a_sink_without_a_callback_drops_events() {
        let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let sink_seen = Arc::clone(&seen);
        EventSink::none().emit(RunEvent::new(EventLevel::Error, "test", "dropped"));
        let sink = EventSink::new(Arc::new(move |event: &RunEvent| sink_seen.lock().push(event.message.clone())));
        sink.emit(RunEvent::new(EventLevel::Warning, "test", "kept"));
        emit(RunEvent::new(EventLevel::Warning, "test", "outside a call: dropped"));
        {
            let _current = enter(sink.clone());
            emit(RunEvent::new(EventLevel::Warning, "test", "current"));
        }
        emit(RunEvent::new(EventLevel::Warning, "test", "after the call: dropped"));
        assert_eq!(*seen.lock(), vec!["kept".to_owned(), "current".to_owned()]);
    }
}
