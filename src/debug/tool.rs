//! The `debug` tool (tier exec, not parallel-safe): descriptor, input schema, the ops as a
//! serde enum, dispatch to the supervisor and the session, and rendering through
//! [`crate::debug::render`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::debug::adapters::AdapterId;
use crate::debug::output::{
    AdapterOutput, BreakpointOutput, DebugOutput, FrameOutput, ProgramState, ScopeOutput, ThreadOutput, VariableOutput, VariablesOutput,
};
use crate::debug::program::LaunchRequest;
use crate::debug::render;
use crate::debug::session::{ConfigurationNote, ResumeKind, ResumeReport, WithLateEvaluate};
use crate::debug::state::{resolve_breakpoints, BreakpointAnchor, BreakpointSpec, FunctionBreakpointSpec, ResolvedBreakpoint};
use crate::debug::{DebugSupervisor, LaunchTarget};
use crate::error::{ErrorKind, ToolError};
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolHandler, ToolOutput};
use crate::result::{Content, ToolResult};
use crate::tier::Tier;

/// The tool's name.
pub const TOOL_NAME: &str = "debug";

/// Default time budget of one `debug` call: 120 s (a delve launch compiles the program first).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

const DESCRIPTION: &str = "Drive a debugger (DAP) over one program or test of this workspace: set breakpoints, launch \
or attach, step, and read the stack, variables and output. One session per conversation, hard TTL 30 min; calls are \
serialized. The adapter is chosen from what you launch (say `adapter` to override): a test by name (`test`: a pytest \
node id `tests/test_x.py::test_y`, a Rust test `module::test_name`, a Go test `TestX`), a Python `module`, or a \
`program`: .py or a Python script (shebang) → debugpy under the project's .venv python; a .go file or Go package \
directory → delve; a Rust bin source or cargo package → built with cargo, lldb; an ELF executable → lldb (delve when \
Go built it); .dart → dart. Typical flow: breakpoints(file, lines) → launch(test | program) → the result says where \
it stopped, with the top frames → variables / evaluate → step_over / step_in / step_out / continue (each runs until \
the next stop or the program's end, within the call's budget, and says where) → terminate. Breakpoint entries are \
1-based lines or objects {line | text, condition, hit_condition, log_message}; `text` anchors to the line holding \
that text. Output the program printed since the last call rides on every result. frame_id and reference values are \
valid until the program resumes. Ops: adapters, status, breakpoints, function_breakpoints (names), \
exception_breakpoints (filters, listed by status), launch, attach (port), continue, pause, step_over, step_in, \
step_out, threads, stack (≤30 frames; frames outside the workspace folded unless all_frames), scopes, variables (reference, or frame_id for \
a frame's locals in one call; ≤50 children, values cut at 400 chars, small aggregates shown inline), evaluate, output, terminate.";

/// Registers `debug` (R-DBG-1: the caller checks that a supervisor, a workspace and a
/// conversation id exist).
pub(crate) fn register_tools(registry: &mut Registry) {
    let handler: ToolHandler = Arc::new(|ctx: &CallContext<'_>, arguments: Value| call(ctx, arguments));
    registry.register(descriptor(), handler);
}

/// The `debug` descriptor: tier exec, `parallel_safe: false`.
pub fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: TOOL_NAME.to_owned(),
        title: "Debugger (DAP)".to_owned(),
        description: DESCRIPTION.to_owned(),
        tier: Tier::Exec,
        input_schema: crate::schema::input_schema::<DebugArguments>(),
        output_schema: Some(crate::schema::output_schema::<DebugOutput>()),
        annotations: crate::registry::ToolAnnotations::for_tier(Tier::Exec),
        parallel_safe: false,
        default_timeout: DEFAULT_TIMEOUT,
    }
}

/// The ops of `debug`, as the model names them in `op`. The variants carry no doc comments on
/// purpose: documented variants would make the schema's plain `enum` a `oneOf` of described
/// constants; the tool's description says what each op does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DebugOpName {
    Adapters,
    Status,
    Breakpoints,
    FunctionBreakpoints,
    ExceptionBreakpoints,
    Launch,
    Attach,
    Continue,
    Pause,
    StepOver,
    StepIn,
    StepOut,
    Threads,
    Stack,
    Scopes,
    Variables,
    Evaluate,
    Output,
    Terminate,
}

impl DebugOpName {
    /// The wire name (`step_over`, …).
    fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("unknown")
    }
}

/// The arguments of `debug` (its input schema is derived from this struct): the op and every
/// field any op takes; fields an op does not use are ignored, a field an op needs and lacks is
/// named with the op (`debug op scopes needs \`frame_id\``).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DebugArguments {
    /// The operation.
    op: DebugOpName,
    /// breakpoints: source file, relative to the workspace or absolute.
    file: Option<String>,
    /// breakpoints: the file's breakpoints (1-based lines or objects); [] clears them.
    lines: Option<Vec<BreakpointEntry>>,
    /// breakpoints: shorthand for lines [{"text": …}].
    text: Option<String>,
    /// breakpoints with text: which occurrence (1-based).
    #[schemars(range(min = 1))]
    occurrence: Option<u64>,
    /// function_breakpoints: function names (as the language writes them: area, rs1::area,
    /// main.add); [] clears.
    names: Option<Vec<FunctionEntry>>,
    /// exception_breakpoints: filter ids the adapter offers (status lists them; debugpy: raised,
    /// uncaught, userUnhandled); [] turns all off.
    filters: Option<Vec<String>>,
    /// launch: a script, a Go package directory or .go file, a Rust bin source or cargo
    /// package, or a built executable.
    program: Option<String>,
    /// launch: a Python module run as `python -m module` (debugpy).
    module: Option<String>,
    /// launch: a test by name — pytest node id (tests/test_x.py::test_y), Rust test
    /// (module::test_name), Go test (TestX or TestX/sub).
    test: Option<String>,
    /// launch with test: the cargo package (-p) of a Rust test, or the package directory of a
    /// Go test.
    package: Option<String>,
    /// launch: program arguments (for a test: extra arguments after the test selection).
    args: Option<Vec<String>>,
    /// attach: 127.0.0.1 port (debugpy: a debugpy.listen port).
    #[schemars(range(min = 1, max = 65535))]
    port: Option<u16>,
    /// attach (default debugpy) / launch: override the adapter chosen from the program.
    adapter: Option<AdapterId>,
    /// continue/pause/step_*/stack: thread; default the stopped thread.
    thread_id: Option<u64>,
    /// scopes/evaluate/variables: a frame_id from stack or a stop (evaluate defaults to the top
    /// frame; variables lists the frame's locals).
    #[schemars(range(min = 1))]
    frame_id: Option<u64>,
    /// variables: a reference from scopes, variables or evaluate (or give frame_id for a
    /// frame's locals).
    #[schemars(range(min = 1))]
    reference: Option<u64>,
    /// evaluate: expression in the program's language.
    expression: Option<String>,
    /// variables: index of the first child (paging, default 0).
    start: Option<u64>,
    /// stack: list every frame instead of folding runs outside the workspace.
    all_frames: Option<bool>,
}

/// One breakpoint entry of `lines`: a 1-based line or an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum BreakpointEntry {
    /// A 1-based line.
    Line(#[schemars(range(min = 1))] u64),
    /// A line or a text anchor, with extras.
    Detailed(BreakpointObject),
}

/// A breakpoint entry given as an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BreakpointObject {
    /// 1-based line (or give text).
    #[schemars(range(min = 1))]
    line: Option<u64>,
    /// The breakpoint goes on the line containing this text.
    text: Option<String>,
    /// Which of several lines containing text (1-based).
    #[schemars(range(min = 1))]
    occurrence: Option<u64>,
    /// Stop only when this expression is true.
    condition: Option<String>,
    /// Stop only when the hit count satisfies this, e.g. "5" or ">= 3".
    hit_condition: Option<String>,
    /// A logpoint: log this ({expr} interpolated) to the output instead of stopping.
    log_message: Option<String>,
}

impl BreakpointEntry {
    fn into_spec(self) -> Result<BreakpointSpec, ToolError> {
        match self {
            BreakpointEntry::Line(0) => Err(ToolError::invalid("breakpoint lines are 1-based; 0 is no line")),
            BreakpointEntry::Line(line) => Ok(BreakpointSpec::line(line)),
            BreakpointEntry::Detailed(BreakpointObject { line, text, occurrence, condition, hit_condition, log_message }) => {
                let anchor = match (line, text) {
                    (Some(_), Some(_)) => {
                        return Err(ToolError::invalid("a breakpoint takes `line` or `text`, not both")
                            .with_hint("use text alone: it survives edits that move the line"))
                    }
                    (Some(line), None) => BreakpointAnchor::Line(line),
                    (None, Some(text)) => BreakpointAnchor::Text { text, occurrence },
                    (None, None) => {
                        return Err(ToolError::invalid("a breakpoint object needs `line` or `text`")
                            .with_hint("e.g. {\"line\": 20, \"condition\": \"i > 3\"} or {\"text\": \"total += x\"}"))
                    }
                };
                Ok(BreakpointSpec { anchor, condition, hit_condition, log_message })
            }
        }
    }
}

/// One function breakpoint entry: a name or an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum FunctionEntry {
    /// A function name.
    Name(String),
    /// A name with a condition or hit condition.
    Detailed(FunctionObject),
}

/// A function breakpoint entry given as an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FunctionObject {
    /// The function name.
    name: String,
    /// Stop only when this expression is true.
    condition: Option<String>,
    /// Stop only when the hit count satisfies this.
    hit_condition: Option<String>,
}

/// One call's op with its arguments, checked for what the op needs ([`DebugArguments::into_op`]).
#[derive(Debug, Clone)]
pub(crate) enum DebugOp {
    /// Which adapters can run here and why not.
    Adapters {},
    /// The session and the stored breakpoints.
    Status {},
    /// Sets the breakpoints of a file (`[]` clears).
    Breakpoints {
        /// Source file, relative to the workspace or absolute inside it.
        file: String,
        /// The breakpoints.
        lines: Option<Vec<BreakpointEntry>>,
        /// Shorthand for one text-anchored breakpoint.
        text: Option<String>,
        /// With `text`: which occurrence.
        occurrence: Option<u64>,
    },
    /// Sets the function breakpoints.
    FunctionBreakpoints {
        /// Function names.
        names: Vec<FunctionEntry>,
    },
    /// Sets the exception filters.
    ExceptionBreakpoints {
        /// Filter ids.
        filters: Vec<String>,
    },
    /// Starts a program, module or test under an adapter.
    Launch {
        /// Script, package directory or executable.
        program: Option<String>,
        /// A Python module.
        module: Option<String>,
        /// A test by name.
        test: Option<String>,
        /// The Rust package or Go package directory of `test`.
        package: Option<String>,
        /// Program arguments.
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
        /// List every frame (no folding).
        all_frames: bool,
    },
    /// The scopes of a frame.
    Scopes {
        /// A `frame_id` from `stack`.
        frame_id: u64,
    },
    /// Children of a variables reference, or the variables of a frame's first scope.
    Variables {
        /// A reference from `scopes`, `variables` or `evaluate`.
        reference: Option<u64>,
        /// Instead of `reference`: a `frame_id` from `stack` or a stop; its first scope that is
        /// not expensive (the locals) is listed, and the other scopes named.
        frame_id: Option<u64>,
        /// Index of the first child.
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
    /// The op's name, as the model sent it.
    fn name(&self) -> DebugOpName {
        match self {
            DebugOp::Adapters {} => DebugOpName::Adapters,
            DebugOp::Status {} => DebugOpName::Status,
            DebugOp::Breakpoints { .. } => DebugOpName::Breakpoints,
            DebugOp::FunctionBreakpoints { .. } => DebugOpName::FunctionBreakpoints,
            DebugOp::ExceptionBreakpoints { .. } => DebugOpName::ExceptionBreakpoints,
            DebugOp::Launch { .. } => DebugOpName::Launch,
            DebugOp::Attach { .. } => DebugOpName::Attach,
            DebugOp::Continue { .. } => DebugOpName::Continue,
            DebugOp::Pause { .. } => DebugOpName::Pause,
            DebugOp::StepOver { .. } => DebugOpName::StepOver,
            DebugOp::StepIn { .. } => DebugOpName::StepIn,
            DebugOp::StepOut { .. } => DebugOpName::StepOut,
            DebugOp::Threads {} => DebugOpName::Threads,
            DebugOp::Stack { .. } => DebugOpName::Stack,
            DebugOp::Scopes { .. } => DebugOpName::Scopes,
            DebugOp::Variables { .. } => DebugOpName::Variables,
            DebugOp::Evaluate { .. } => DebugOpName::Evaluate,
            DebugOp::Output {} => DebugOpName::Output,
            DebugOp::Terminate {} => DebugOpName::Terminate,
        }
    }

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

impl DebugArguments {
    /// The op with the fields it needs.
    ///
    /// # Errors
    /// `invalid_arguments` naming the op and the missing field.
    fn into_op(self) -> Result<DebugOp, ToolError> {
        let op = self.op.as_str();
        let need = |field: &str| missing(field, op);
        Ok(match self.op {
            DebugOpName::Adapters => DebugOp::Adapters {},
            DebugOpName::Status => DebugOp::Status {},
            DebugOpName::Breakpoints => DebugOp::Breakpoints {
                file: self.file.ok_or_else(|| need("file"))?,
                lines: self.lines,
                text: self.text,
                occurrence: self.occurrence,
            },
            DebugOpName::FunctionBreakpoints => DebugOp::FunctionBreakpoints { names: self.names.ok_or_else(|| need("names"))? },
            DebugOpName::ExceptionBreakpoints => DebugOp::ExceptionBreakpoints { filters: self.filters.ok_or_else(|| need("filters"))? },
            DebugOpName::Launch => DebugOp::Launch {
                program: self.program,
                module: self.module,
                test: self.test,
                package: self.package,
                args: self.args.unwrap_or_default(),
                adapter: self.adapter,
            },
            DebugOpName::Attach => DebugOp::Attach { port: self.port.ok_or_else(|| need("port"))?, adapter: self.adapter },
            DebugOpName::Continue => DebugOp::Continue { thread_id: self.thread_id },
            DebugOpName::Pause => DebugOp::Pause { thread_id: self.thread_id },
            DebugOpName::StepOver => DebugOp::StepOver { thread_id: self.thread_id },
            DebugOpName::StepIn => DebugOp::StepIn { thread_id: self.thread_id },
            DebugOpName::StepOut => DebugOp::StepOut { thread_id: self.thread_id },
            DebugOpName::Threads => DebugOp::Threads {},
            DebugOpName::Stack => DebugOp::Stack { thread_id: self.thread_id, all_frames: self.all_frames.unwrap_or(false) },
            DebugOpName::Scopes => DebugOp::Scopes { frame_id: self.frame_id.ok_or_else(|| need("frame_id"))? },
            DebugOpName::Variables => {
                DebugOp::Variables { reference: self.reference, frame_id: self.frame_id, start: self.start.unwrap_or(0) }
            }
            DebugOpName::Evaluate => {
                DebugOp::Evaluate { expression: self.expression.ok_or_else(|| need("expression"))?, frame_id: self.frame_id }
            }
            DebugOpName::Output => DebugOp::Output {},
            DebugOpName::Terminate => DebugOp::Terminate {},
        })
    }
}

/// Parses the arguments into a [`DebugOp`]; a missing field is named with its op
/// (`debug op scopes needs \`frame_id\``).
///
/// # Errors
/// `invalid_arguments` naming the op and the field.
pub(crate) fn parse_op(arguments: Value) -> Result<DebugOp, ToolError> {
    let op = arguments.get("op").and_then(Value::as_str).unwrap_or("").to_owned();
    let arguments: DebugArguments =
        serde_json::from_value(arguments).map_err(|err| ToolError::invalid(format!("invalid arguments for debug op {op:?}: {err}")))?;
    arguments.into_op()
}

fn missing(field: &str, op: &str) -> ToolError {
    ToolError::invalid(format!("debug op {op} needs `{field}`")).with_hint(format!("call debug with op {op:?} and {field}"))
}
fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let op = parse_op(arguments)?;
    let supervisor = ctx.resource::<DebugSupervisor>()?;
    let env = CallEnv { workspace_root: ctx.workspace_root(), deadline: ctx.deadline(), workspace_trust: ctx.workspace_trust() };
    Ok(ToolOutput::new(run_op(supervisor, &env, op)?))
}

/// What an op needs of its call besides its arguments.
struct CallEnv<'a> {
    workspace_root: &'a Path,
    deadline: Instant,
    workspace_trust: crate::trust::WorkspaceTrust,
}

/// Runs one op on the supervisor and renders its result; the end of a session that ended on
/// its own is told once (before the call's own text when it happened before the call, after
/// it when during the call).
fn run_op(supervisor: &DebugSupervisor, env: &CallEnv<'_>, op: DebugOp) -> Result<ToolResult, ToolError> {
    // Paths and arguments are checked before the call begins: an input error leaves the
    // session alone.
    let prepared = prepare(env.workspace_root, &op)?;
    let mut call = supervisor.begin_call(env.workspace_trust);
    let notice =
        call.previous().map(|previous| format!("{}; {}", render::session_end(&previous.end), render::teardown(&previous.teardown)));
    let mut unreported = call.previous().map(|previous| previous.unreported_output.clone()).unwrap_or_default();
    let outcome = op_text(&mut call, env, op, prepared);
    let session_after = call.session().map(|session| session.summary().description);
    if let Some(session) = call.session() {
        unreported.push_str(&session.take_new_output());
    }
    let retired = call.finish();
    if let Some(retired) = &retired {
        unreported.push_str(&retired.unreported_output);
    }
    let ended = retired
        .as_ref()
        .map(|retired| format!("session ended: {}; {}", render::session_end(&retired.end), render::teardown(&retired.teardown)));
    let new_output = render::new_output(&unreported);
    match outcome {
        Ok((text, mut structured)) => {
            structured.session = if retired.is_some() { None } else { session_after };
            structured.new_output =
                new_output.as_ref().map(|_| render::cut_middle(render::strip_ansi(&unreported).trim_end(), render::MAX_NEW_OUTPUT_CHARS));
            structured.session_ended.clone_from(&ended);
            structured.previous_session_ended.clone_from(&notice);
            let mut result = ToolResult::text(text);
            if let Some(new_output) = new_output {
                result.push_text(new_output);
            }
            if let Some(ended) = ended {
                result.push_text(ended);
            }
            if let Some(notice) = notice {
                let text = format!("note: the previous debug session ended: {notice}");
                result.content.insert(0, Content::Text { text });
            }
            result.structured_content = Some(crate::schema::to_structured(&structured));
            Ok(result)
        }
        Err(mut err) => {
            if let Some(ended) = ended {
                err.message.push_str(&format!("; {ended}"));
            }
            if let Some(notice) = notice {
                err.message.push_str(&format!(" (note: the previous debug session ended: {notice})"));
            }
            if let Some(new_output) = new_output {
                err.message.push_str(&format!("\n{new_output}"));
            }
            Err(err)
        }
    }
}

/// What an op needs resolved before the call begins.
enum Prepared {
    Nothing,
    Breakpoints(PathBuf, Vec<ResolvedBreakpoint>, Vec<BreakpointSpec>),
    Launch(Box<LaunchRequest>),
}

fn prepare(workspace_root: &Path, op: &DebugOp) -> Result<Prepared, ToolError> {
    match op {
        DebugOp::Breakpoints { file, lines, text, occurrence } => {
            let path = resolve_workspace_path(workspace_root, file)?;
            if !path.is_file() {
                return Err(ToolError::new(ErrorKind::NotFound, format!("breakpoints: no file {}", path.display()))
                    .with_hint("pass a source file of the workspace, relative to its root"));
            }
            let mut specs = Vec::new();
            for entry in lines.clone().unwrap_or_default() {
                specs.push(entry.into_spec()?);
            }
            if let Some(text) = text {
                specs.push(BreakpointSpec {
                    anchor: BreakpointAnchor::Text { text: text.clone(), occurrence: *occurrence },
                    condition: None,
                    hit_condition: None,
                    log_message: None,
                });
            }
            if lines.is_none() && text.is_none() {
                return Err(missing("lines", "breakpoints"));
            }
            let resolved = resolve_breakpoints(workspace_root, &path, &specs).map_err(|why| {
                ToolError::new(ErrorKind::NotFound, format!("breakpoints in {}: {why}", render::display_path(workspace_root, &path)))
                    .with_hint("anchor to text that occurs once, add `occurrence`, or give the line")
            })?;
            Ok(Prepared::Breakpoints(path, resolved, specs))
        }
        DebugOp::Launch { program, module, test, package, args, adapter } => {
            let program = match program {
                Some(program) => {
                    let path = resolve_workspace_path(workspace_root, program)?;
                    if !path.exists() {
                        return Err(ToolError::new(ErrorKind::NotFound, format!("launch: no program {}", path.display()))
                            .with_hint("pass a script, package directory or built executable inside the workspace, or a test by name with `test`"));
                    }
                    Some(path)
                }
                None if module.is_none() && test.is_none() => {
                    return Err(ToolError::invalid("debug op launch needs `program` (or `test`, or `module`)").with_hint(
                        "call debug with op \"launch\" and program (a script, package directory or executable), test (a test by name) or module",
                    ))
                }
                None => None,
            };
            Ok(Prepared::Launch(Box::new(LaunchRequest {
                program,
                module: module.clone(),
                test: test.clone(),
                package: package.clone(),
                args: args.clone(),
                adapter: *adapter,
            })))
        }
        _ => Ok(Prepared::Nothing),
    }
}

fn op_text(
    call: &mut crate::debug::SupervisorCall<'_>,
    env: &CallEnv<'_>,
    op: DebugOp,
    prepared: Prepared,
) -> Result<(String, DebugOutput), ToolError> {
    let root = env.workspace_root;
    let mut out = DebugOutput::of(op.name());
    if let Some((kind, thread)) = op.resume() {
        let session = live_session(call, kind.op_name())?;
        let text = with_late_note(session.resume(kind, thread, env.deadline), |report| {
            out.program = Some(match report {
                ResumeReport::AlreadyStopped(info) => ProgramState::from_stop_info(info),
                ResumeReport::Waited { wait, .. } => ProgramState::from_wait(&wait.outcome, root, &mut out.frames),
            });
            render::resume_report(report, root)
        })?;
        return Ok((text, out));
    }
    let text = match op {
        DebugOp::Adapters {} => {
            let rows = call.availability(root);
            out.adapters = Some(rows.iter().map(|row| AdapterOutput::new(row, root)).collect());
            render::adapters(&rows, root)
        }
        DebugOp::Status {} => {
            let status = call.session().map(|s| s.status());
            if let Some(status) = &status {
                out.program = Some(ProgramState::from_run_state(&status.run, status.exit_code));
                out.breakpoints = Some(status.breakpoints.iter().map(|b| BreakpointOutput::new(b, root)).collect());
            }
            render::supervisor_status(status.as_ref(), call.breakpoints(), root)
        }
        DebugOp::Breakpoints { .. } => {
            let Prepared::Breakpoints(path, resolved, specs) = prepared else { unreachable!("prepared above") };
            let lines: Vec<u64> = resolved.iter().map(|r| r.line).collect();
            call.store_breakpoints(path.clone(), specs);
            match call.session() {
                Some(session) => {
                    let statuses = session.set_breakpoints(&path, &resolved)?;
                    out.breakpoints = Some(statuses.iter().map(|b| BreakpointOutput::new(b, root)).collect());
                    render::breakpoints_sent(&path, session.adapter().name(), &statuses, root)
                }
                None => {
                    out.breakpoints = Some(lines.iter().map(|&line| BreakpointOutput::stored(&path, line, root)).collect());
                    let listed: Vec<String> = resolved.iter().map(|r| format!("{}{}", r.line, render::spec_extras(&r.spec))).collect();
                    format!(
                        "{} breakpoint(s) stored for {} (lines {}); they are sent when you launch",
                        lines.len(),
                        render::display_path(root, &path),
                        if listed.is_empty() { render::join_numbers(&lines) } else { listed.join(", ") }
                    )
                }
            }
        }
        DebugOp::FunctionBreakpoints { names } => {
            let functions: Vec<FunctionBreakpointSpec> = names
                .into_iter()
                .map(|entry| match entry {
                    FunctionEntry::Name(name) => FunctionBreakpointSpec { name, condition: None, hit_condition: None },
                    FunctionEntry::Detailed(FunctionObject { name, condition, hit_condition }) => {
                        FunctionBreakpointSpec { name, condition, hit_condition }
                    }
                })
                .collect();
            call.store_function_breakpoints(functions.clone());
            match call.session() {
                Some(session) => match session.set_function_breakpoints(&functions)? {
                    Some(statuses) if statuses.is_empty() => "function breakpoints cleared".to_owned(),
                    Some(statuses) => format!(
                        "function breakpoints sent to the running {}:\n{}",
                        session.adapter().name(),
                        statuses.iter().map(|s| format!("  {}", render::function_breakpoint_status(s, root))).collect::<Vec<_>>().join("\n")
                    ),
                    None => return Err(ToolError::new(
                        ErrorKind::Unavailable,
                        format!("{} does not support function breakpoints (supportsFunctionBreakpoints); they stay stored for an adapter that does", session.adapter().name()),
                    )
                    .with_hint("set a line breakpoint in the function instead (breakpoints with text anchors the function's first line)")),
                },
                None if functions.is_empty() => "function breakpoints cleared".to_owned(),
                None => format!(
                    "{} function breakpoint(s) stored ({}); they are sent when you launch (if the adapter supports them)",
                    functions.len(),
                    functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            }
        }
        DebugOp::ExceptionBreakpoints { filters } => {
            call.store_exception_filters(filters.clone());
            match call.session() {
                Some(session) => {
                    let report = session.set_exception_filters(Some(&filters))?;
                    render::exception_filters(&report, session.adapter().name())
                }
                None => format!(
                    "exception filters stored ({}); they are checked against the adapter's list and sent when you launch",
                    if filters.is_empty() { "none: every exception filter off".to_owned() } else { filters.join(", ") }
                ),
            }
        }
        DebugOp::Launch { .. } => {
            let Prepared::Launch(request) = prepared else { unreachable!("prepared above") };
            let report = call.launch(LaunchTarget::Request(request), root, env.deadline)?;
            launch_output(&report, root, &mut out);
            render::launch_report(&report, root)
        }
        DebugOp::Attach { port, adapter } => {
            let report = call.launch(LaunchTarget::Attach { adapter: adapter.unwrap_or(AdapterId::Debugpy), port }, root, env.deadline)?;
            launch_output(&report, root, &mut out);
            render::launch_report(&report, root)
        }
        DebugOp::Terminate {} => match call.terminate() {
            Some((summary, teardown)) => {
                format!("terminated {}: {}", render::session_summary(&summary), render::teardown(&teardown))
            }
            None => "no debug session is running; nothing to terminate".to_owned(),
        },
        DebugOp::Output {} => match (call.session(), call.last_output()) {
            (Some(session), _) => render::output(&session.output()),
            (None, Some(last)) => format!("(no session is running; output of the last session)\n{}", render::output(last)),
            (None, None) => return Err(no_session("output")),
        },
        DebugOp::Threads {} => {
            let session = live_session(call, "threads")?;
            let (threads, stopped) = session.threads()?;
            out.threads = Some(threads.iter().map(|thread| ThreadOutput::new(thread, stopped)).collect());
            render::threads(&threads, stopped, &session.summary().description)
        }
        DebugOp::Stack { thread_id, all_frames } => {
            let report = live_session(call, "stack")?.stack(thread_id)?;
            out.frames = Some(report.frames.iter().map(|frame| FrameOutput::new(frame, root)).collect());
            render::stack(&report, root, all_frames)
        }
        DebugOp::Scopes { frame_id } => {
            let scopes = live_session(call, "scopes")?.scopes(frame_id)?;
            out.scopes = Some(scopes.iter().map(ScopeOutput::new).collect());
            render::scopes(frame_id, &scopes)
        }
        DebugOp::Variables { reference: Some(reference), frame_id: None, start } => {
            let page = live_session(call, "variables")?.variables(reference, start)?;
            out.variables = Some(VariablesOutput::new(&page));
            render::variables(&page)
        }
        DebugOp::Variables { reference: None, frame_id: Some(frame_id), start } => {
            let session = live_session(call, "variables")?;
            let scopes = session.scopes(frame_id)?;
            out.scopes = Some(scopes.iter().map(ScopeOutput::new).collect());
            let first = scopes.iter().find(|scope| scope.handle.is_some() && !scope.expensive).or(scopes.first());
            match first.and_then(|first| first.handle.map(|handle| (first, handle))) {
                None => render::scopes(frame_id, &scopes),
                Some((first, handle)) => {
                    let page = session.variables(handle, start)?;
                    out.variables = Some(VariablesOutput::new(&page));
                    render::frame_variables(frame_id, first, &scopes, &page)
                }
            }
        }
        DebugOp::Variables { .. } => {
            return Err(ToolError::invalid("debug op variables needs exactly one of `reference` and `frame_id`")
                .with_hint("pass a reference from scopes, variables or evaluate, or a frame_id from stack (its locals)"))
        }
        DebugOp::Evaluate { expression, frame_id } => {
            let session = live_session(call, "evaluate")?;
            with_late_note(session.evaluate(&expression, frame_id), |report| {
                out.value = Some(VariableOutput::new(&report.value));
                render::evaluate(report)
            })?
        }
        DebugOp::Continue { .. } | DebugOp::Pause { .. } | DebugOp::StepOver { .. } | DebugOp::StepIn { .. } | DebugOp::StepOut { .. } => {
            unreachable!("resume ops are handled above")
        }
    };
    Ok((text, out))
}

/// What a launch or attach reports besides its text: where the program is and the breakpoints
/// as the adapter bound them.
fn launch_output(report: &crate::debug::session::LaunchReport, root: &Path, out: &mut DebugOutput) {
    out.program = Some(ProgramState::from_wait(&report.wait.outcome, root, &mut out.frames));
    let bound: Vec<BreakpointOutput> = report
        .configuration
        .iter()
        .filter_map(|note| match note {
            ConfigurationNote::Breakpoint(status) => Some(BreakpointOutput::new(status, root)),
            _ => None,
        })
        .collect();
    if !bound.is_empty() {
        out.breakpoints = Some(bound);
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
    use serde_json::json;

    #[test]
    fn ops_parse_into_the_enum_and_missing_fields_name_their_op() {
        assert!(matches!(parse_op(json!({"op": "status", "file": "ignored.py"})), Ok(DebugOp::Status {})));
        assert!(matches!(
            parse_op(json!({"op": "variables", "reference": 4})),
            Ok(DebugOp::Variables { reference: Some(4), frame_id: None, start: 0 })
        ));
        assert!(matches!(
            parse_op(json!({"op": "launch", "program": "a.py", "adapter": "lldb"})),
            Ok(DebugOp::Launch { adapter: Some(AdapterId::Lldb), .. })
        ));
        let err = parse_op(json!({"op": "scopes"})).unwrap_err();
        assert_eq!(err.message, "debug op scopes needs `frame_id`");
        let err = parse_op(json!({"op": "fly"})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
        let entries = parse_op(json!({"op": "breakpoints", "file": "a.py", "lines": [3, {"text": "x = 1", "condition": "x > 2"}]}));
        let Ok(DebugOp::Breakpoints { lines: Some(lines), .. }) = entries else { panic!("{entries:?}") };
        assert!(matches!(lines[0], BreakpointEntry::Line(3)));
        assert!(matches!(&lines[1], BreakpointEntry::Detailed(object) if object.text.as_deref() == Some("x = 1")));
        let err = parse_op(json!({"op": "attach"})).unwrap_err();
        assert_eq!(err.message, "debug op attach needs `port`");
    }

    #[test]
    fn the_input_schema_is_derived_from_the_arguments_and_lists_every_op() {
        let schema = descriptor().input_schema;
        assert_eq!(schema["additionalProperties"], false, "{schema}");
        assert_eq!(schema["required"], json!(["op"]));
        let ops = schema["properties"]["op"]["enum"].as_array().expect("a plain enum of ops");
        assert_eq!(ops.len(), 19, "{ops:?}");
        for op in ["adapters", "function_breakpoints", "step_over", "terminate"] {
            assert!(ops.contains(&json!(op)), "{op} in {ops:?}");
        }
        let entry = &schema["properties"]["lines"]["items"]["anyOf"];
        assert_eq!((&entry[0]["type"], &entry[0]["minimum"]), (&json!("integer"), &json!(1)), "{entry}");
        assert_eq!(entry[1]["additionalProperties"], false, "{entry}");
        assert_eq!(schema["properties"]["port"]["maximum"], 65535);
    }
}
