//! `runbound call` and `runbound tools`: one run per process, the result printed as JSON; the
//! terminal ask port when a human sits at the terminal, or the parent run's ask channel when
//! this runbound runs inside a vibe worker.

use std::io::Read as _;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::Value;

use runbound::ask::{ChannelAskPort, TerminalAskPort};
use runbound::{Caller, Run, RunBuilder, ToolResult};

use crate::cli::{EXIT_TOOL_ERROR, EXIT_USAGE};

/// Calls `tool` once and prints its `CallToolResult` JSON; the exit code says how it went.
pub fn call(builder: RunBuilder, caller: Caller, tool: &str, args: Option<&str>) -> ExitCode {
    let arguments_text = match args {
        None => "{}".to_owned(),
        Some("-") => {
            let mut text = String::new();
            if let Err(err) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("runbound: cannot read the arguments from stdin: {err}");
                return ExitCode::from(EXIT_USAGE);
            }
            text
        }
        Some(text) => text.to_owned(),
    };
    let arguments: Value = match serde_json::from_str(&arguments_text) {
        Ok(Value::Object(object)) => Value::Object(object),
        Ok(other) => {
            eprintln!("runbound: the arguments of {tool} must be a JSON object, got {other}; e.g. '{{\"path\":\"Cargo.toml\"}}'");
            return ExitCode::from(EXIT_USAGE);
        }
        Err(err) => {
            eprintln!("runbound: the arguments of {tool} are not valid JSON ({err}); pass an object, e.g. '{{\"path\":\"Cargo.toml\"}}'");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (builder, human) = attach_terminal(builder);
    let Some(run) = build_run(builder) else { return ExitCode::from(EXIT_USAGE) };
    let mut result = run.call(caller, tool, arguments);
    if human == TerminalState::Absent && runbound::ask::is_no_human_denial(&result) {
        result.push_text(
            "runbound CLI: stdin and stderr are not both terminals, so no approval prompt can be shown; \
             pass --approve allow to run write and exec tools without asking, or run the command in a terminal",
        );
    }
    if let Some(note) = one_shot_note(tool, &result) {
        result.push_text(note);
    }
    print_json(&result.to_json());
    drop(run);
    if result.is_error {
        return ExitCode::from(EXIT_TOOL_ERROR);
    }
    ExitCode::SUCCESS
}

/// Where cards would render for `call` and `tools` in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalState {
    /// Stdin and stderr are terminals: the terminal port is attached.
    Attached,
    /// Inside a vibe worker: the parent run's ask channel is attached (see
    /// [`attach_parent_channel`]); the text says which worker and where it was found.
    ParentRun(String),
    /// No terminal: no human is attached.
    Absent,
}

/// Inside a vibe worker whose run has a human (`RUNBOUND_ASK_CHANNEL` in this process's
/// environment or an ancestor's), attaches the parent run's ask channel as this run's port:
/// `ask_user` cards and permission prompts are shown by the parent, labelled with the worker.
/// A channel that cannot be opened (the attempt that made it ended) is said on stderr and no
/// port is attached (fail-closed). Returns the state for `status`, or `None` outside a worker.
pub fn attach_parent_channel(builder: RunBuilder) -> (RunBuilder, Option<TerminalState>) {
    match ChannelAskPort::from_environment() {
        Ok(Some(found)) => {
            let description = found.port.description().clone();
            let target_space = format!("parent run ({})", description.parent_target_space);
            let state = TerminalState::ParentRun(format!(
                "the parent run's ask channel for {} (found in {}; the parent shows cards in {:?}; ask_user questions {})",
                description.worker_label,
                found.found_in,
                description.parent_target_space,
                if description.questions { "relayed" } else { "not relayed" }
            ));
            (builder.ask_port(Arc::new(found.port), target_space), Some(state))
        }
        Ok(None) => (builder, None),
        Err(err) => {
            eprintln!("runbound: {err}; no human is attached to this run");
            (builder, None)
        }
    }
}

/// Attaches the terminal ask port when stdin and stderr are both terminals, unless a port (the
/// parent run's channel) is attached already.
pub fn attach_terminal(builder: RunBuilder) -> (RunBuilder, TerminalState) {
    if builder.has_ask_port() {
        return (builder, TerminalState::ParentRun("the parent run's ask channel".to_owned()));
    }
    match TerminalAskPort::from_stdio() {
        Some(port) => (builder.ask_port(Arc::new(port), "terminal"), TerminalState::Attached),
        None => (builder, TerminalState::Absent),
    }
}

/// Builds the run; a failure is said on stderr.
pub fn build_run(builder: RunBuilder) -> Option<Run> {
    match builder.build() {
        Ok(run) => Some(run),
        Err(err) => {
            eprintln!("runbound: {err}");
            None
        }
    }
}

/// Pretty JSON on stdout (a closed stdout is not an error).
pub fn print_json(value: &Value) {
    use std::io::Write as _;
    match serde_json::to_string_pretty(value) {
        // A closed stdout (e.g. `runbound call … | head -1`) is not a crash: stop writing.
        Ok(text) => {
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        }
        Err(err) => eprintln!("runbound: cannot serialize the output: {err}"),
    }
}

/// A note for tools whose state outlives one call: `call` builds a run for one call and drops it
/// on exit, so staged edits, debug sessions, kernels and workers end with this process.
fn one_shot_note(tool: &str, result: &ToolResult) -> Option<&'static str> {
    if result.is_error {
        return None;
    }
    match tool {
        "ast_edit" => Some(
            "runbound CLI: `call` runs one call per process, so this staged edit is discarded when it exits and a later `call resolve` will not find it; stage and resolve within one `runbound serve` session, or embed the library",
        ),
        "debug" => Some(
            "runbound CLI: `call` runs one call per process: stored breakpoints and any debug session end when it exits; drive a debug session through `runbound serve`, or embed the library",
        ),
        "eval" => Some(
            "runbound CLI: `call` runs one call per process: this kernel and its variables end when it exits; use `runbound serve` for state that persists across cells",
        ),
        "lsp" | "lsp_rename" => Some(
            "runbound CLI: `call` starts the language server cold and stops it when it exits, so every call pays the server's start and indexing (tens of seconds for rust-analyzer on a large crate; a \"still indexing\" note then comes back on every call); use `runbound serve` to keep servers warm across calls",
        ),
        "vibe_spawn" | "vibe_send" => Some(
            "runbound CLI: `call` runs one call per process: the worker is stopped when it exits; run workers through `runbound serve`, or embed the library",
        ),
        _ => None,
    }
}
