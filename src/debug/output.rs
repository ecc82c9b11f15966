//! The typed `structuredContent` of `debug`, and the source of its declared `outputSchema` (see
//! [`crate::schema`]). [`super::render`] writes the text the model reads; these types carry the
//! same facts for a host: the op, the session, where the program is, and the frames, scopes,
//! variables, threads or breakpoints the op returned. Paths are shown as the text shows them
//! (workspace-relative, see [`crate::render::display_path`]); values are cut as in the text.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use super::adapters::{AdapterAvailability, AdapterId};
use super::events::{BreakpointStatus, RunState, StopInfo};
use super::render::{self, cut_chars, MAX_VALUE_CHARS};
use super::session::{FrameInfo, ScopeInfo, StopOutcome, StoppedAt, ThreadInfo, VariableInfo, VariablesPage};
use super::tool::DebugOpName;

/// `debug`'s result: the op and what it returned. Fields an op does not produce are absent.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct DebugOutput {
    /// The op that ran.
    pub(crate) op: DebugOpName,
    /// The session after the op (`debugpy session 1 on app.py`); null when none is running.
    pub(crate) session: Option<String>,
    /// Where the program is: after launch, attach, continue, pause and the steps (what the wait
    /// found), and for status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) program: Option<ProgramState>,
    /// stack: the frames listed (innermost first); at a stop: the stopped thread's top frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) frames: Option<Vec<FrameOutput>>,
    /// scopes (and variables by frame_id): the frame's scopes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) scopes: Option<Vec<ScopeOutput>>,
    /// variables: the page of children listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) variables: Option<VariablesOutput>,
    /// evaluate: the value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<VariableOutput>,
    /// threads: the adapter's threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) threads: Option<Vec<ThreadOutput>>,
    /// breakpoints, launch, attach and status: the source breakpoints as the adapter bound them,
    /// or as stored until a launch sends them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) breakpoints: Option<Vec<BreakpointOutput>>,
    /// adapters: each adapter and whether it can run here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) adapters: Option<Vec<AdapterOutput>>,
    /// Output the program printed since the last call (stream-labelled, ANSI stripped, cut as
    /// in the text); absent when there was none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) new_output: Option<String>,
    /// The session ended during this call: why, and what teardown did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) session_ended: Option<String>,
    /// The previous session had ended on its own before this call: why, and what teardown did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) previous_session_ended: Option<String>,
}

impl DebugOutput {
    /// An output of `op` with nothing but the op filled in.
    pub(crate) fn of(op: DebugOpName) -> DebugOutput {
        DebugOutput {
            op,
            session: None,
            program: None,
            frames: None,
            scopes: None,
            variables: None,
            value: None,
            threads: None,
            breakpoints: None,
            adapters: None,
            new_output: None,
            session_ended: None,
            previous_session_ended: None,
        }
    }
}

/// Where the program is.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum ProgramState {
    /// Still starting (the handshake has not finished).
    Starting,
    /// Running: no stop came within the wait (`waited_ms`), or it was resumed since.
    Running {
        /// How long the call waited for a stop, in ms (null: not waited in this call).
        waited_ms: Option<u64>,
    },
    /// Stopped.
    Stopped {
        /// The reason as the adapter wrote it (`breakpoint`, `step`, `exception`, `pause`, …).
        reason: String,
        /// The stopped thread.
        thread_id: Option<u64>,
        /// The adapter's description of the stop, or an exception's message.
        description: Option<String>,
        /// For an exception stop: the exception's id (when the adapter supports exceptionInfo).
        exception: Option<String>,
        /// The stack's depth as far as it was fetched (null when not fetched).
        depth: Option<u64>,
    },
    /// The program ended.
    Exited {
        /// Its exit code, when known.
        exit_code: Option<i64>,
    },
    /// The adapter or the session went away (why).
    Closed {
        /// Why.
        message: String,
    },
}

impl ProgramState {
    /// The state a stop wait found; at a stop, `frames` receives the top frames.
    pub(crate) fn from_wait(outcome: &StopOutcome, workspace_root: &Path, frames: &mut Option<Vec<FrameOutput>>) -> ProgramState {
        match outcome {
            StopOutcome::Stopped(stopped) => ProgramState::from_stop(stopped, workspace_root, frames),
            StopOutcome::Exited(code, _) => ProgramState::Exited { exit_code: *code },
            StopOutcome::Closed(message) => ProgramState::Closed { message: message.clone() },
            StopOutcome::StillRunning(waited) => {
                ProgramState::Running { waited_ms: Some(u64::try_from(waited.as_millis()).unwrap_or(u64::MAX)) }
            }
        }
    }

    fn from_stop(stopped: &StoppedAt, workspace_root: &Path, frames: &mut Option<Vec<FrameOutput>>) -> ProgramState {
        if let Ok(top) = &stopped.top_frames {
            *frames = Some(top.iter().map(|frame| FrameOutput::new(frame, workspace_root)).collect());
        }
        let mut state = ProgramState::from_stop_info(&stopped.info);
        if let ProgramState::Stopped { exception, depth, .. } = &mut state {
            exception.clone_from(&stopped.exception);
            *depth = Some(stopped.depth);
        }
        state
    }

    /// A stop as the `stopped` event said.
    pub(crate) fn from_stop_info(info: &StopInfo) -> ProgramState {
        ProgramState::Stopped {
            reason: info.reason.clone(),
            thread_id: info.thread_id,
            description: info.description.clone().or_else(|| info.text.clone()),
            exception: None,
            depth: None,
        }
    }

    /// The state a session's status says.
    pub(crate) fn from_run_state(run: &RunState, exit_code: Option<i64>) -> ProgramState {
        match (run, exit_code) {
            (_, Some(code)) => ProgramState::Exited { exit_code: Some(code) },
            (RunState::Starting, None) => ProgramState::Starting,
            (RunState::Running, None) => ProgramState::Running { waited_ms: None },
            (RunState::Stopped(info), None) => ProgramState::from_stop_info(info),
        }
    }
}

/// One stack frame.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FrameOutput {
    /// The handle for scopes / variables / evaluate (valid until the program resumes).
    pub(crate) frame_id: u64,
    /// The function, as the adapter named it.
    pub(crate) name: String,
    /// The source file (workspace-relative when inside), or the source's name when it has no
    /// path; null when the adapter gave neither.
    pub(crate) file: Option<String>,
    /// 1-based line (0 when the adapter knows none).
    pub(crate) line: u64,
    /// The frame's source is in the workspace (frames outside are folded in the text).
    pub(crate) in_workspace: bool,
}

impl FrameOutput {
    /// The frame as the model sees it.
    pub(crate) fn new(frame: &FrameInfo, workspace_root: &Path) -> FrameOutput {
        FrameOutput {
            frame_id: frame.handle,
            name: frame.name.clone(),
            file: frame.path.as_deref().map(|path| render::display_path(workspace_root, path)).or_else(|| frame.source_name.clone()),
            line: frame.line,
            in_workspace: render::is_workspace_frame(frame, workspace_root),
        }
    }
}

/// One scope of a frame.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ScopeOutput {
    /// `Locals`, `Globals`, `Registers`, …
    pub(crate) name: String,
    /// The reference for `variables`; null when the scope has no variables.
    pub(crate) reference: Option<u64>,
    /// Announced number of variables.
    pub(crate) count: Option<u64>,
    /// The adapter marks it expensive to fetch.
    pub(crate) expensive: bool,
}

impl ScopeOutput {
    /// The scope as the model sees it.
    pub(crate) fn new(scope: &ScopeInfo) -> ScopeOutput {
        ScopeOutput { name: scope.name.clone(), reference: scope.handle, count: scope.count, expensive: scope.expensive }
    }
}

/// One variable, or an evaluate's value.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct VariableOutput {
    /// Name (or the expression).
    pub(crate) name: String,
    /// Type, when the adapter said.
    #[serde(rename = "type")]
    pub(crate) type_name: Option<String>,
    /// The value as the adapter rendered it, cut at 400 characters with a marker.
    pub(crate) value: String,
    /// The reference of its children for `variables`, when it has any.
    pub(crate) reference: Option<u64>,
    /// Announced number of children.
    pub(crate) children: Option<u64>,
}

impl VariableOutput {
    /// The variable as the model sees it.
    pub(crate) fn new(variable: &VariableInfo) -> VariableOutput {
        VariableOutput {
            name: variable.name.clone(),
            type_name: variable.type_name.clone(),
            value: cut_chars(&variable.value, MAX_VALUE_CHARS),
            reference: variable.handle,
            children: variable.count,
        }
    }
}

/// A page of children.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct VariablesOutput {
    /// The reference listed.
    pub(crate) reference: u64,
    /// Index of the first child shown.
    pub(crate) start: u64,
    /// The total number of children, when known (more than shown: page on with `start`).
    pub(crate) total: Option<u64>,
    /// The children shown (at most 50).
    pub(crate) variables: Vec<VariableOutput>,
}

impl VariablesOutput {
    /// The page as the model sees it.
    pub(crate) fn new(page: &VariablesPage) -> VariablesOutput {
        VariablesOutput {
            reference: page.reference,
            start: page.start,
            total: page.total,
            variables: page.variables.iter().map(VariableOutput::new).collect(),
        }
    }
}

/// One thread.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ThreadOutput {
    /// The adapter's id (for thread_id).
    pub(crate) id: u64,
    /// Its name (empty when the adapter gave none).
    pub(crate) name: String,
    /// It is the thread the last stop was in.
    pub(crate) stopped: bool,
}

impl ThreadOutput {
    /// The thread as the model sees it.
    pub(crate) fn new(thread: &ThreadInfo, stopped: Option<u64>) -> ThreadOutput {
        ThreadOutput { id: thread.id, name: thread.name.clone(), stopped: stopped == Some(thread.id) }
    }
}

/// One source breakpoint.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct BreakpointOutput {
    /// The file (workspace-relative).
    pub(crate) file: String,
    /// The 1-based line asked for (a text anchor resolved to its line).
    pub(crate) requested_line: u64,
    /// The line the adapter bound it to, when reported.
    pub(crate) line: Option<u64>,
    /// Whether the adapter verified it (false while only stored).
    pub(crate) verified: bool,
    /// Sent to an adapter (false: stored until a launch, or an extra the adapter does not
    /// support, which `message` names).
    pub(crate) sent: bool,
    /// The adapter's message (why unverified, …), or why it was not sent.
    pub(crate) message: Option<String>,
}

impl BreakpointOutput {
    /// The breakpoint as the adapter reported it.
    pub(crate) fn new(status: &BreakpointStatus, workspace_root: &Path) -> BreakpointOutput {
        BreakpointOutput {
            file: render::display_path(workspace_root, &status.file),
            requested_line: status.requested_line,
            line: status.line,
            verified: status.verified,
            sent: status.sent,
            message: status.message.clone(),
        }
    }

    /// A breakpoint stored for the next launch.
    pub(crate) fn stored(file: &Path, line: u64, workspace_root: &Path) -> BreakpointOutput {
        BreakpointOutput {
            file: render::display_path(workspace_root, file),
            requested_line: line,
            line: None,
            verified: false,
            sent: false,
            message: Some("stored; sent when you launch".to_owned()),
        }
    }
}

/// One adapter and whether it can run here.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AdapterOutput {
    /// The adapter.
    pub(crate) adapter: AdapterId,
    /// A root marker was found and the binary resolves.
    pub(crate) available: bool,
    /// Root markers found (workspace-relative, at most 5).
    pub(crate) markers: Vec<String>,
    /// Why the binary does not resolve, when it does not.
    pub(crate) unavailable_because: Option<String>,
}

impl AdapterOutput {
    /// The row as the model sees it.
    pub(crate) fn new(row: &AdapterAvailability, workspace_root: &Path) -> AdapterOutput {
        AdapterOutput {
            adapter: row.adapter,
            available: row.available(),
            markers: row.markers.iter().map(|marker| render::display_path(workspace_root, marker)).collect(),
            unavailable_because: match (&row.binary, row.markers.is_empty()) {
                (Err(why), _) => Some(why.clone()),
                (Ok(_), true) => Some("no root marker of this adapter's languages was found".to_owned()),
                (Ok(_), false) => None,
            },
        }
    }
}
