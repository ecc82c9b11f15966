//! The `debug` tool (tier exec, not parallel-safe): descriptor, input schema, the ops as a
//! serde enum, dispatch to the supervisor and the session, and rendering through
//! [`crate::debug::render`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};

use crate::debug::adapters::{self, AdapterId};
use crate::debug::render;
use crate::debug::session::{ResumeKind, SessionTarget, WithLateEvaluate};
use crate::debug::DebugSupervisor;
use crate::error::{ErrorKind, ToolError};
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolHandler, ToolOutput};
use crate::result::{Content, ToolResult};
use crate::tier::Tier;

/// The tool's name.
pub const TOOL_NAME: &str = "debug";

/// Default time budget of one `debug` call: 120 s (a delve launch compiles the program first).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The ops, exactly as the spec's table (§7).
pub const OPS: [&str; 16] = [
    "adapters",
    "status",
    "breakpoints",
    "launch",
    "attach",
    "continue",
    "pause",
    "step_over",
    "step_in",
    "step_out",
    "threads",
    "stack",
    "scopes",
    "variables",
    "evaluate",
    "output",
];

const DESCRIPTION: &str = "Drive a debugger (DAP) over one program of this workspace: set breakpoints, launch or attach, \
step, and read the stack, variables and output. One session per conversation, hard TTL 30 min; calls are serialized. \
Adapters: debugpy (.py; the project's .venv/venv python runs the program), lldb (compiled executables: C, C++, Rust; \
evaluate uses lldb's expression evaluator), delve (Go: a .go file or package dir, or a binary), dart (.dart). \
Typical flow: breakpoints(file, lines) → launch(program, args) → the result says where it stopped → stack → \
scopes(frame_id) → variables(reference) → evaluate(expression, frame_id) → step_over / step_in / step_out / continue \
(each blocks until the next stop or exit and says where) → terminate. frame_id and reference values are only valid \
until the program resumes; call stack again after any step. Lines are 1-based. Ops: adapters (which adapters can \
run here and why not), status, breakpoints, launch, attach (port), continue, pause, step_over, step_in, step_out, \
threads, stack (≤30 frames), scopes, variables (≤50 children, values cut at 400 chars), evaluate, output (the \
program's stdout/stderr), terminate.";

/// Registers `debug` (R-DBG-1: the caller checks that a supervisor, a workspace and a
/// conversation id exist).
pub(crate) fn register_tools(registry: &mut Registry) {
    let handler: ToolHandler = Arc::new(|ctx: &CallContext<'_>, arguments: Value| call(ctx, arguments));
    registry.register(descriptor(), handler);
}

/// The `debug` descriptor: tier exec, `parallel_safe: false`.
pub fn descriptor() -> ToolDescriptor {
    let mut ops: Vec<&str> = OPS.to_vec();
    ops.push("terminate");
    ToolDescriptor {
        name: TOOL_NAME.to_owned(),
        description: DESCRIPTION.to_owned(),
        tier: Tier::Exec,
        input_schema: json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ops, "description": "the operation"},
                "file": {"type": "string", "description": "breakpoints: source file, relative to the workspace or absolute"},
                "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "breakpoints: 1-based lines; [] clears the file's breakpoints"},
                "program": {"type": "string", "description": "launch: a .py/.go/.dart file, a Go package directory, or a compiled executable (built with debug info)"},
                "args": {"type": "array", "items": {"type": "string"}, "description": "launch: program arguments"},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "attach: 127.0.0.1 port (debugpy: a debugpy.listen port)"},
                "adapter": {"type": "string", "enum": ["debugpy", "lldb", "delve", "dart"], "description": "attach (required) / launch (optional override): which adapter"},
                "thread_id": {"type": "integer", "description": "continue/pause/step_*/stack: thread; default the stopped thread"},
                "frame_id": {"type": "integer", "minimum": 1, "description": "scopes/evaluate: a frame_id from stack (evaluate defaults to the top frame)"},
                "reference": {"type": "integer", "minimum": 1, "description": "variables: a reference from scopes, variables or evaluate"},
                "expression": {"type": "string", "description": "evaluate: expression in the program's language"},
                "start": {"type": "integer", "minimum": 0, "description": "variables: index of the first child (paging, default 0)"}
            },
            "required": ["op"],
            "additionalProperties": false
        }),
        parallel_safe: false,
        default_timeout: DEFAULT_TIMEOUT,
    }
}

/// One call's op with its arguments, as the model sent them (the schema above validated the
/// shapes; fields an op does not use are ignored).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum DebugOp {
    /// Which adapters can run here and why not.
    Adapters {},
    /// The session and the stored breakpoints.
    Status {},
    /// Sets the breakpoint lines of a file (`[]` clears).
    Breakpoints {
        /// Source file, relative to the workspace or absolute inside it.
        file: String,
        /// 1-based lines.
        lines: Vec<u64>,
    },
    /// Starts a program under an adapter.
    Launch {
        /// Script, package directory or executable.
        program: Option<String>,
        /// Program arguments.
        #[serde(default)]
        args: Vec<String>,
        /// Override of the adapter chosen from the program.
        adapter: Option<AdapterId>,
    },
    /// Attaches to a program listening on a loopback port.
    Attach {
        /// The port on 127.0.0.1.
        port: u16,
        /// The adapter (default debugpy).
        adapter: Option<AdapterId>,
    },
    /// DAP `continue`.
    Continue {
        /// Thread (default: the stopped one).
        thread_id: Option<u64>,
    },
    /// DAP `pause`.
    Pause {
        /// Thread (default: the first).
        thread_id: Option<u64>,
    },
    /// DAP `next`.
    StepOver {
        /// Thread (default: the stopped one).
        thread_id: Option<u64>,
    },
    /// DAP `stepIn`.
    StepIn {
        /// Thread (default: the stopped one).
        thread_id: Option<u64>,
    },
    /// DAP `stepOut`.
    StepOut {
        /// Thread (default: the stopped one).
        thread_id: Option<u64>,
    },
    /// The adapter's threads.
    Threads {},
    /// The stack of a thread.
    Stack {
        /// Thread (default: the stopped one).
        thread_id: Option<u64>,
    },
    /// The scopes of a frame.
    Scopes {
        /// A `frame_id` from `stack`.
        frame_id: u64,
    },
    /// Children of a variables reference.
    Variables {
        /// A reference from `scopes`, `variables` or `evaluate`.
        reference: u64,
        /// Index of the first child.
        #[serde(default)]
        start: u64,
    },
    /// Evaluates an expression.
    Evaluate {
        /// The expression, in the program's language.
        expression: String,
        /// A `frame_id` from `stack` (default: the top frame).
        frame_id: Option<u64>,
    },
    /// The program's captured stdout/stderr.
    Output {},
    /// Ends the session.
    Terminate {},
}

impl DebugOp {
    fn resume(&self) -> Option<(ResumeKind, Option<u64>)> {
        match *self {
            DebugOp::Continue { thread_id } => Some((ResumeKind::Continue, thread_id)),
            DebugOp::Pause { thread_id } => Some((ResumeKind::Pause, thread_id)),
            DebugOp::StepOver { thread_id } => Some((ResumeKind::StepOver, thread_id)),
            DebugOp::StepIn { thread_id } => Some((ResumeKind::StepIn, thread_id)),
            DebugOp::StepOut { thread_id } => Some((ResumeKind::StepOut, thread_id)),
            _ => None,
        }
    }
}

/// Parses the arguments into a [`DebugOp`]; a missing field is named with its op
/// (`debug op scopes needs \`frame_id\``).
///
/// # Errors
/// `invalid_arguments` naming the op and the field.
pub(crate) fn parse_op(arguments: Value) -> Result<DebugOp, ToolError> {
    let op = arguments.get("op").and_then(Value::as_str).unwrap_or("").to_owned();
    serde_json::from_value(arguments).map_err(|err| {
        let message = err.to_string();
        match message.strip_prefix("missing field `").and_then(|rest| rest.split('`').next()) {
            Some(field) => missing(field, &op),
            None => ToolError::invalid(format!("invalid arguments for debug op {op:?}: {message}")),
        }
    })
}

fn missing(field: &str, op: &str) -> ToolError {
    ToolError::invalid(format!("debug op {op} needs `{field}`")).with_hint(format!("call debug with op {op:?} and {field}"))
}

fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let op = parse_op(arguments)?;
    let supervisor = ctx.resource::<DebugSupervisor>()?;
    let env = CallEnv { workspace_root: ctx.workspace_root(), deadline: ctx.deadline() };
    Ok(ToolOutput::new(run_op(supervisor, &env, op)?))
}

/// What an op needs of its call besides its arguments.
struct CallEnv<'a> {
    workspace_root: &'a Path,
    deadline: Instant,
}

/// Runs one op on the supervisor and renders its result; the end of a session that ended on
/// its own is told once (before the call's own text when it happened before the call, after
/// it when during the call).
fn run_op(supervisor: &DebugSupervisor, env: &CallEnv<'_>, op: DebugOp) -> Result<ToolResult, ToolError> {
    // Paths are checked before the call begins: an input error leaves the session alone.
    let resolved_path = match &op {
        DebugOp::Breakpoints { file, .. } => {
            let path = resolve_workspace_path(env.workspace_root, file)?;
            if !path.is_file() {
                return Err(ToolError::new(ErrorKind::NotFound, format!("breakpoints: no file {}", path.display()))
                    .with_hint("pass a source file of the workspace, relative to its root"));
            }
            Some(path)
        }
        DebugOp::Launch { program: Some(program), .. } => {
            let path = resolve_workspace_path(env.workspace_root, program)?;
            if !path.exists() {
                return Err(ToolError::new(ErrorKind::NotFound, format!("launch: no program {}", path.display()))
                    .with_hint("pass a script, package directory or built executable inside the workspace"));
            }
            Some(path)
        }
        DebugOp::Launch { program: None, .. } => return Err(missing("program", "launch")),
        _ => None,
    };
    let mut call = supervisor.begin_call();
    let notice =
        call.previous().map(|previous| format!("{}; {}", render::session_end(&previous.end), render::teardown(&previous.teardown)));
    let outcome = op_text(&mut call, env, op, resolved_path);
    let ended = call
        .finish()
        .map(|retired| format!("session ended: {}; {}", render::session_end(&retired.end), render::teardown(&retired.teardown)));
    match outcome {
        Ok(text) => {
            let mut result = ToolResult::text(text);
            if let Some(ended) = ended {
                result.push_text(ended);
            }
            if let Some(notice) = notice {
                let text = format!("note: the previous debug session ended: {notice}");
                result.content.insert(0, Content::Text { text });
            }
            Ok(result)
        }
        Err(mut err) => {
            if let Some(ended) = ended {
                err.message.push_str(&format!("; {ended}"));
            }
            if let Some(notice) = notice {
                err.message.push_str(&format!(" (note: the previous debug session ended: {notice})"));
            }
            Err(err)
        }
    }
}

fn op_text(
    call: &mut crate::debug::SupervisorCall<'_>,
    env: &CallEnv<'_>,
    op: DebugOp,
    path: Option<PathBuf>,
) -> Result<String, ToolError> {
    let root = env.workspace_root;
    if let Some((kind, thread)) = op.resume() {
        let session = live_session(call, kind.op_name())?;
        return with_late_note(session.resume(kind, thread, env.deadline), |report| render::resume_report(report, root));
    }
    match op {
        DebugOp::Adapters {} => Ok(render::adapters(&call.availability(root), root)),
        DebugOp::Status {} => Ok(render::supervisor_status(call.session().map(|s| s.status()).as_ref(), call.breakpoints(), root)),
        DebugOp::Breakpoints { mut lines, .. } => {
            let path = path.expect("resolved above");
            lines.sort_unstable();
            lines.dedup();
            call.store_breakpoints(path.clone(), lines.clone());
            match call.session() {
                Some(session) => {
                    let statuses = session.set_breakpoints(&path, &lines)?;
                    Ok(render::breakpoints_sent(&path, session.adapter().name(), &statuses, root))
                }
                None => Ok(format!(
                    "{} breakpoint(s) stored for {} (lines {}); they are sent when you launch",
                    lines.len(),
                    render::display_path(root, &path),
                    render::join_numbers(&lines)
                )),
            }
        }
        DebugOp::Launch { args, adapter, .. } => {
            let program = path.expect("resolved above");
            let adapter = adapter.unwrap_or_else(|| adapters::adapter_for_program(&program));
            let report = call.launch(SessionTarget::Launch { adapter, program, args }, root, env.deadline)?;
            Ok(render::launch_report(&report, root))
        }
        DebugOp::Attach { port, adapter } => {
            let target = SessionTarget::Attach { adapter: adapter.unwrap_or(AdapterId::Debugpy), port };
            let report = call.launch(target, root, env.deadline)?;
            Ok(render::launch_report(&report, root))
        }
        DebugOp::Terminate {} => Ok(match call.terminate() {
            Some((summary, teardown)) => {
                format!("terminated {}: {}", render::session_summary(&summary), render::teardown(&teardown))
            }
            None => "no debug session is running; nothing to terminate".to_owned(),
        }),
        DebugOp::Output {} => match (call.session(), call.last_output()) {
            (Some(session), _) => Ok(render::output(&session.output())),
            (None, Some(last)) => Ok(format!("(no session is running; output of the last session)\n{}", render::output(last))),
            (None, None) => Err(no_session("output")),
        },
        DebugOp::Threads {} => {
            let session = live_session(call, "threads")?;
            let (threads, stopped) = session.threads()?;
            Ok(render::threads(&threads, stopped, &session.summary().description))
        }
        DebugOp::Stack { thread_id } => Ok(render::stack(&live_session(call, "stack")?.stack(thread_id)?, root)),
        DebugOp::Scopes { frame_id } => Ok(render::scopes(frame_id, &live_session(call, "scopes")?.scopes(frame_id)?)),
        DebugOp::Variables { reference, start } => Ok(render::variables(&live_session(call, "variables")?.variables(reference, start)?)),
        DebugOp::Evaluate { expression, frame_id } => {
            let session = live_session(call, "evaluate")?;
            with_late_note(session.evaluate(&expression, frame_id), render::evaluate)
        }
        DebugOp::Continue { .. } | DebugOp::Pause { .. } | DebugOp::StepOver { .. } | DebugOp::StepIn { .. } | DebugOp::StepOut { .. } => {
            unreachable!("resume ops are handled above")
        }
    }
}

/// Renders an op's result and appends the one-time note about a late evaluate to its text or,
/// when the op failed, to its error message: the note is consumed by the poll, so it must not
/// be lost on either path.
fn with_late_note<T>(outcome: WithLateEvaluate<T>, render_ok: impl FnOnce(&T) -> String) -> Result<String, ToolError> {
    let note = outcome.late.as_ref().and_then(render::evaluate_poll);
    let rendered = outcome.result.map(|value| render_ok(&value));
    let Some(note) = note else { return rendered };
    match rendered {
        Ok(text) => Ok(format!("{text}\n{note}")),
        Err(mut err) => {
            err.message = format!("{}\n{note}", err.message);
            Err(err)
        }
    }
}

fn live_session<'a>(call: &'a crate::debug::SupervisorCall<'_>, op: &str) -> Result<&'a crate::debug::session::Session, ToolError> {
    call.session().ok_or_else(|| no_session(op))
}

fn no_session(op: &str) -> ToolError {
    ToolError::new(ErrorKind::Unavailable, format!("debug op {op} needs a running session and none is running"))
        .with_hint("set breakpoints, then call debug op \"launch\" with a program (or \"attach\" with a port)")
}

/// Resolves `path` inside the workspace with the crate's one confinement rule
/// ([`crate::files::resolve_in_workspace`]: `..`, outside absolute paths, symlinks and dangling
/// symlinks leading out, NUL bytes are all refused).
fn resolve_workspace_path(workspace_root: &Path, path: &str) -> Result<PathBuf, ToolError> {
    crate::files::resolve_in_workspace(workspace_root, path).map_err(|err| {
        if err.hint.is_none() {
            err.with_hint("debug programs and files inside the workspace")
        } else {
            err
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_parse_into_the_enum_and_missing_fields_name_their_op() {
        assert!(matches!(parse_op(json!({"op": "status", "file": "ignored.py"})), Ok(DebugOp::Status {})));
        assert!(matches!(parse_op(json!({"op": "variables", "reference": 4})), Ok(DebugOp::Variables { reference: 4, start: 0 })));
        assert!(matches!(
            parse_op(json!({"op": "launch", "program": "a.py", "adapter": "lldb"})),
            Ok(DebugOp::Launch { adapter: Some(AdapterId::Lldb), .. })
        ));
        let err = parse_op(json!({"op": "scopes"})).unwrap_err();
        assert_eq!(err.message, "debug op scopes needs `frame_id`");
        let err = parse_op(json!({"op": "fly"})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
    }
}
