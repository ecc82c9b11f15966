//! The `debug` tool (tier exec, not parallel-safe): descriptor, input schema, op dispatch.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolHandler, ToolOutput};
use crate::tier::Tier;

/// The tool's name.
pub const TOOL_NAME: &str = "debug";

/// Default time budget of one `debug` call: 120 s (a delve launch compiles the program first).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

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
    ToolDescriptor {
        name: TOOL_NAME.to_owned(),
        title: "Debugger (DAP)".to_owned(),
        description: DESCRIPTION.to_owned(),
        tier: Tier::Exec,
        input_schema: crate::schema::input_schema::<DebugArguments>(),
        output_schema: None,
        annotations: crate::registry::ToolAnnotations::for_tier(Tier::Exec),
        parallel_safe: false,
        default_timeout: DEFAULT_TIMEOUT,
    }
}

/// The arguments of one call (the tool's input schema is derived from this struct).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DebugArguments {
    /// The operation.
    pub op: DebugOp,
    /// breakpoints: source file, relative to the workspace or absolute.
    pub file: Option<String>,
    /// breakpoints: 1-based lines; [] clears the file's breakpoints.
    #[schemars(inner(range(min = 1)))]
    pub lines: Option<Vec<u64>>,
    /// launch: a .py/.go/.dart file, a Go package directory, or a compiled executable (built
    /// with debug info).
    pub program: Option<String>,
    /// launch: program arguments.
    pub args: Option<Vec<String>>,
    /// attach: 127.0.0.1 port (debugpy: a debugpy.listen port).
    #[schemars(range(min = 1))]
    pub port: Option<u16>,
    /// attach (required) / launch (optional override): which adapter.
    #[schemars(with = "Option<DebugAdapterName>")]
    pub adapter: Option<String>,
    /// continue/pause/step_*/stack: thread; default the stopped thread.
    pub thread_id: Option<i64>,
    /// scopes/evaluate: a frame_id from stack (evaluate defaults to the top frame).
    #[schemars(range(min = 1))]
    pub frame_id: Option<u64>,
    /// variables: a reference from scopes, variables or evaluate.
    #[schemars(range(min = 1))]
    pub reference: Option<u64>,
    /// evaluate: expression in the program's language.
    pub expression: Option<String>,
    /// variables: index of the first child (paging, default 0).
    pub start: Option<u64>,
}

/// A `debug` op (wire names snake_case, as the spec's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DebugOp {
    Adapters,
    Status,
    Breakpoints,
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

impl DebugOp {
    /// The op's wire name, from serde.
    pub(crate) fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("status")
    }
}

/// The adapters `adapter` may name (schema only: the session resolves the name).
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum DebugAdapterName {
    Debugpy,
    Lldb,
    Delve,
    Dart,
}

fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: DebugArguments = ctx.parse_arguments(arguments)?;
    let supervisor = ctx.resource::<super::DebugSupervisor>()?;
    let result = supervisor.call(ctx, &arguments)?;
    Ok(ToolOutput::new(result))
}

/// `Err` naming the missing parameter of `op`.
pub(crate) fn required<T: Clone>(value: &Option<T>, name: &str, op: &str) -> Result<T, ToolError> {
    value.clone().ok_or_else(|| {
        ToolError::invalid(format!("debug op {op} needs `{name}`")).with_hint(format!("call debug with op {op:?} and {name}"))
    })
}
