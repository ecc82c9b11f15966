//! The `eval` tool (tier exec, not parallel-safe): descriptor and input schema, argument
//! checks, the `tool()` bridge back into the registry (as the eval's caller, through every
//! layer), and the rendering of a [`CellReport`] for the model — header, notes, streams, values,
//! images, cuts, stops and losses — plus its structured content.
//!
//! Program output is shown without ANSI escape sequences (colors, cursor movement: a program
//! that forces colors despite `NO_COLOR=1` and `TERM=dumb`), and a result that had any says so
//! once. A description outside 5–10 words is accepted with a note (refusing it would cost the
//! model a whole call).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::registry::{CallContext, CallOrigin, Registry, ToolDescriptor, ToolOutput};
use crate::render;
use crate::result::{Content, ToolResult};
use crate::schema::to_structured;
use crate::tier::Tier;

use super::backend::Language;
use super::cell::{CellHost, CellOutcome, CellStatus, CellStop, DisplayValue, KernelLoss, OutputItem, StopHow, StopKind, StopReason};
use super::kernels::{CellReport, CellRequest, Inventory, KernelStart, Kernels, ResetReport};
use super::session::Containment;

/// The tool's name.
pub(crate) const TOOL_NAME: &str = "eval";

const DESCRIPTION: &str = "Run a Python (default) or JavaScript cell in a persistent kernel of this run: variables, imports \
and loaded data persist across calls (like a notebook). The last bare expression is echoed (a trailing `;` \
suppresses it; `_` holds it). `display(x)` shows values; pandas DataFrames render as tables; matplotlib \
figures come back as PNG images. Python magics: %pip install …, %cd, %pwd, %env, %timeit, %%timeit, %%bash, \
%%writefile, !cmd, x = !cmd. Inside a cell, `tool(name, args)` calls this run's other tools as you, with the \
same approvals (returns the structured content as a dict with the result's text under \"text\", or the \
text alone; raises on error); in JavaScript `tool()` and \
`await tool()` both work. A cell with no output for the inactivity budget (default 5 min; time inside \
tool() calls does not count) is interrupted and the kernel restarted, losing its state; a cell running past the \
wall-clock cap per cell (default 30 min, output or not), a cancelled call, or one past its time budget is \
interrupted like a notebook cell: the kernel keeps its state when the interrupt stops the cell (else it is \
restarted). The result says which budget stopped a cell. `reset: true` \
discards the kernel first. Every result names the backend and the kernel generation.";

pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(
        ToolDescriptor {
            name: TOOL_NAME.to_owned(),
            title: "Run code in a persistent kernel".to_owned(),
            description: DESCRIPTION.to_owned(),
            tier: Tier::Exec,
            input_schema: crate::schema::input_schema::<EvalArguments>(),
            output_schema: Some(crate::schema::output_schema::<EvalOutput>()),
            // Runs arbitrary code: it may change files and reach the network; state accumulates.
            annotations: crate::registry::ToolAnnotations::for_tier(Tier::Exec),
            parallel_safe: false,
            // The inactivity budget governs cells; this wall-clock backstop only bounds the call.
            default_timeout: Duration::from_secs(24 * 3600),
        },
        Arc::new(eval),
    );
}

/// The arguments of `eval`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EvalArguments {
    /// The cell's source. May be empty with reset=true.
    code: String,
    /// What the cell does, 5–10 words; labels the cell in the transcript (other lengths are
    /// accepted with a note).
    description: String,
    /// The cell's language (default python).
    #[serde(default)]
    language: Option<Language>,
    /// Discard this language's kernel (all its state) before running the cell.
    #[serde(default)]
    reset: bool,
}

/// The `structuredContent` of `eval`, also when the cell failed (`isError` with `status` other
/// than `ok`): the language, whether the kernel was reset first, and the cell when one ran.
#[derive(Serialize, JsonSchema)]
struct EvalOutput {
    /// The kernel's language.
    language: Language,
    /// Whether this call discarded the kernel before running (a call with only `reset: true`
    /// and no code runs no cell).
    reset: bool,
    /// The cell, when one ran.
    #[serde(flatten)]
    cell: Option<EvalCellOutput>,
}

/// One cell run by `eval`.
#[derive(Serialize, JsonSchema)]
struct EvalCellOutput {
    /// The cell's number in this run.
    cell: u64,
    /// The cell's description.
    description: String,
    /// `cpython`, `node` or `rustpython` (embedded, in-process).
    backend: String,
    /// The interpreter's version.
    version: String,
    /// The kernel generation (a fresh kernel after a reset or loss counts up).
    generation: u64,
    /// Whether the kernel runs sandboxed.
    sandboxed: bool,
    /// Whether the process guardian contains the kernel's processes.
    guarded: bool,
    /// The interpreter executable.
    executable: String,
    /// How the cell ended.
    status: CellStatus,
    /// What stopped the cell, when something did.
    stopped_by: Option<StopKind>,
    /// Whether the kernel's state (variables, imports) was lost.
    state_lost: bool,
    /// Wall-clock time of the cell in ms.
    elapsed_ms: u64,
    /// `tool()` calls the cell made.
    bridge_calls: u64,
    /// PNG images in the result.
    images: usize,
    /// Bytes of output left out (cut in the middle).
    omitted_output_bytes: u64,
    /// Whether ANSI escape sequences were removed from the output.
    ansi_stripped: bool,
}

fn eval(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: EvalArguments = ctx.parse_arguments(arguments)?;
    let kernels = ctx.resource::<Kernels>()?;
    let description = arguments.description.trim();
    let word_count = description.split_whitespace().count();
    let description_note = (!(5..=10).contains(&word_count)).then(|| {
        format!(
            "note: the description has {}; describe what the cell does in 5–10 words next time \
             (it labels the cell in the transcript), e.g. \"load sales CSV and summarize columns\"",
            render::plural(word_count, "word")
        )
    });
    let label = if description.is_empty() { "(no description)" } else { description };
    let language = arguments.language.unwrap_or(Language::Python);
    if matches!(ctx.origin(), CallOrigin::Bridge { via } if via == TOOL_NAME) {
        return Err(eval_in_eval_error());
    }
    if arguments.code.trim().is_empty() && !arguments.reset {
        return Err(ToolError::invalid("code is empty").with_hint("pass the cell's source in `code` (or reset=true to only reset)"));
    }
    let mut host = BridgeHost { ctx };
    let report = kernels.run(CellRequest { language, code: &arguments.code, reset: arguments.reset }, &mut host)?;
    Ok(ToolOutput::new(render_report(&report, label, description_note, kernels.workspace_root())))
}

/// The eval call as seen by a running cell: its cancel token, its deadline, and `tool()` calls
/// re-entering the registry as the eval's caller (nested in the call's remaining time).
struct BridgeHost<'c, 'run> {
    ctx: &'c CallContext<'run>,
}

impl CellHost for BridgeHost<'_, '_> {
    fn cancelled(&self) -> bool {
        self.ctx.cancel_token().is_cancelled()
    }

    fn deadline(&self) -> Instant {
        self.ctx.deadline()
    }

    fn budget(&self) -> Duration {
        self.ctx.budget()
    }

    fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Value, String> {
        if name == TOOL_NAME {
            return Err(eval_in_eval_error().to_result().joined_text());
        }
        let result = self.ctx.call_nested(name, arguments, CallOrigin::Bridge { via: TOOL_NAME.to_owned() });
        if result.is_error {
            return Err(result.joined_text());
        }
        Ok(bridge_value(&result))
    }

    fn output_line(&mut self, cell_number: u64, elapsed: Duration, line: &str) {
        self.ctx.progress(
            crate::progress::ProgressUpdate::new(elapsed.as_secs_f64())
                .with_message(format!("eval cell {cell_number}: {}", crate::render::cut_chars(line, 160))),
        );
    }
}

/// What `tool()` returns in a cell: the structured content, with the result's text added under
/// `"text"` when the structured content is an object without one (some tools, `read` among
/// them, put the payload only in the text: the file's lines), else the text alone.
fn bridge_value(result: &ToolResult) -> Value {
    match &result.structured_content {
        Some(Value::Object(object)) if !object.contains_key("text") => {
            let mut object = object.clone();
            object.insert("text".to_owned(), Value::String(result.joined_text()));
            Value::Object(object)
        }
        Some(structured) => structured.clone(),
        None => Value::String(result.joined_text()),
    }
}

fn eval_in_eval_error() -> ToolError {
    ToolError::new(ErrorKind::InvalidArguments, "eval cannot be called from inside an eval cell (the kernel is busy running that cell)")
        .with_hint("run the code directly in the current cell instead of calling tool(\"eval\", …)")
}

/// The result of one eval call: a header naming the cell, backend, version and generation;
/// notes (reset, kernel start); the cell's items in order; its structured content.
fn render_report(report: &CellReport, description: &str, description_note: Option<String>, workspace_root: &Path) -> ToolResult {
    let language = report.language;
    let mut notes: Vec<String> = description_note.into_iter().collect();
    if let Some(reset) = &report.reset {
        notes.push(describe_reset(reset, language));
    }
    if let Some(started) = &report.started {
        notes.extend(describe_start(started, language, workspace_root));
    }
    let Some(cell) = &report.cell else {
        return ToolResult::text(notes.join("\n")).with_structured(to_structured(&EvalOutput { language, reset: true, cell: None }));
    };
    let identity = &cell.identity;
    let header = format!(
        "[eval cell {} · {language} · {} {} · kernel generation {}{}] {description}",
        cell.number,
        identity.backend,
        identity.version,
        cell.generation,
        if identity.sandboxed { " · sandboxed" } else { "" },
    );
    let outcome = &cell.outcome;
    let mut ansi = AnsiStripper::default();
    let mut result = render_outcome(&header, &notes, outcome, &mut ansi);
    if ansi.stripped {
        result.content.push(Content::Text {
            text: "note: ANSI escape sequences (terminal colors, cursor movement) were removed from this output".to_owned(),
        });
    }
    result.structured_content = Some(to_structured(&EvalOutput {
        language,
        reset: report.reset.is_some(),
        cell: Some(EvalCellOutput {
            cell: cell.number,
            description: description.to_owned(),
            backend: identity.backend.to_owned(),
            version: identity.version.clone(),
            generation: cell.generation,
            sandboxed: identity.sandboxed,
            guarded: matches!(identity.containment, Containment::Guarded { .. }),
            executable: identity.executable.display().to_string(),
            status: outcome.status,
            stopped_by: outcome.stopped_by.map(StopReason::kind),
            state_lost: outcome.state_lost.is_some(),
            elapsed_ms: outcome.elapsed.as_millis() as u64,
            bridge_calls: outcome.bridge_calls,
            images: outcome.items.iter().filter(|item| matches!(item, OutputItem::Value { value: DisplayValue::Png { .. }, .. })).count(),
            omitted_output_bytes: outcome.omitted_bytes,
            ansi_stripped: ansi.stripped,
        }),
    }));
    result
}

fn describe_reset(reset: &ResetReport, language: Language) -> String {
    let Some(generation) = reset.discarded_generation else {
        return format!("reset: no {language} kernel was running; starting fresh");
    };
    let lost = match &reset.inventory {
        Some(Inventory { variables, modules }) => format!(
            "{} variables ({}) and {} imported modules ({})",
            variables.len(),
            preview_list(variables),
            modules.len(),
            preview_list(modules)
        ),
        None => "its state (the kernel did not answer the inventory request)".to_owned(),
    };
    format!("reset: discarded {language} kernel generation {generation} and everything in it: {lost}")
}

fn preview_list(items: &[String]) -> String {
    if items.is_empty() {
        return "none".to_owned();
    }
    let shown: Vec<&str> = items.iter().take(12).map(String::as_str).collect();
    if items.len() > shown.len() {
        format!("{}, … showing 12 of {}", shown.join(", "), items.len())
    } else {
        shown.join(", ")
    }
}

fn describe_start(started: &KernelStart, language: Language, workspace_root: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    match (&started.embedded_reason, &started.containment) {
        (Some(why), _) => notes.push(embedded_kernel_note(workspace_root, why)),
        (None, Containment::Guarded { .. }) => {}
        (None, Containment::GuardianFailed(why) | Containment::Unguarded(why)) => notes.push(format!(
            "note: this {language} kernel runs without the process guardian ({why}): processes its cells start are still \
             killed when the run stops, but would survive a host killed with SIGKILL."
        )),
    }
    if let Some(loss) = &started.after_loss {
        let note = format!("started a fresh {language} kernel (generation {}) after: {}", started.generation, describe_loss(loss));
        crate::events::emit(crate::events::RunEvent::new(crate::events::EventLevel::Warning, "kernel", note.clone()));
        notes.push(format!("note: {note}"));
    }
    notes
}

/// What the model should know when an embedded kernel starts: what it cannot do, where
/// relative paths resolve.
fn embedded_kernel_note(workspace: &Path, why: &str) -> String {
    let cwd = std::env::current_dir().map(|dir| dir.display().to_string()).unwrap_or_else(|_| "(unknown)".to_owned());
    let paths = if Path::new(&cwd) == workspace {
        format!("relative paths resolve against the workspace {cwd}")
    } else {
        format!(
            "relative paths resolve against the host's working directory {cwd}, not the workspace: use WORKSPACE ({})",
            workspace.display()
        )
    };
    format!(
        "note: this is the embedded RustPython kernel (inside the host process; chosen because: {why}): \
         standard library only — %pip, C extensions (numpy, pandas, matplotlib), shell commands (!cmd, %%bash, subprocess) and %cd \
         are refused with EmbeddedKernelUnsupported; {paths}; tool(name, args) and display() work."
    )
}

/// Why the budget or the host stopped a cell, as the sentence after `cell stopped: `.
pub(super) fn describe_stop_reason(reason: StopReason) -> String {
    match reason {
        StopReason::Cancelled => "the host cancelled the call".to_owned(),
        StopReason::CallDeadline { budget } => format!("the eval call reached its time budget of {} ms", budget.as_millis()),
        StopReason::Inactivity { budget } => {
            format!("the cell produced no output for {} s (the inactivity budget)", budget.as_secs_f64())
        }
        StopReason::WallClockCap { cap } => format!(
            "the cell ran for {} s, the wall-clock cap per cell (it was still running; the inactivity budget had not run out)",
            cap.as_secs_f64()
        ),
    }
}

/// What ended a kernel (for the next call's note and for status).
pub(super) fn describe_loss(loss: &KernelLoss) -> String {
    match loss {
        KernelLoss::Stopped(reason) => format!("cell stopped: {}", describe_stop_reason(*reason)),
        KernelLoss::Died { cell, reason, state } => format!("the kernel died while running cell {cell} ({reason}; {state})"),
        KernelLoss::Unreachable { error, state } => format!("the kernel could not take the cell ({error}); {state}"),
    }
}

fn describe_stop(stop: &CellStop, ansi: &mut AnsiStripper) -> String {
    let reason = describe_stop_reason(stop.reason);
    let mut text = if stop.kernel_kept {
        format!(
            "cell stopped: {reason}. The kernel was interrupted (KeyboardInterrupt) and kept (generation {}): variables and imports \
             from before the cell remain, and so does whatever the cell did before the interrupt; its shell children were killed.",
            stop.generation
        )
    } else {
        let how = match &stop.how {
            StopHow::EmbeddedAbandoned(why) => format!("The embedded interpreter was interrupted but did not stop: {why}."),
            StopHow::EmbeddedDiscarded => "The embedded interpreter was interrupted (KeyboardInterrupt) and discarded.".to_owned(),
            StopHow::Killed => "The kernel was interrupted, then its process group and shell children were killed.".to_owned(),
        };
        format!(
            "cell stopped: {reason}. {how} \
             Its state (variables, imports, loaded data) is lost; the next eval call starts a fresh kernel (generation {}).",
            stop.generation + 1
        )
    };
    if let Some(traceback) = &stop.traceback {
        text.push_str("\nWhere it was when interrupted:\n");
        text.push_str(&ansi.strip(traceback));
    }
    text
}

/// Removes ANSI escape sequences from program output and remembers whether it removed any.
#[derive(Default)]
struct AnsiStripper {
    stripped: bool,
}

impl AnsiStripper {
    /// `text` without ANSI escape sequences (and the other non-whitespace control characters
    /// that travel with them) when it has an ESC, else unchanged.
    fn strip(&mut self, text: &str) -> String {
        if !text.contains('\u{1b}') {
            return text.to_owned();
        }
        self.stripped = true;
        anstream::adapter::strip_str(text).to_string()
    }
}

/// One displayed or echoed value: text, or an image with its caption.
fn render_value(value: &DisplayValue, echo: bool, content: &mut Vec<Content>, ansi: &mut AnsiStripper) {
    match value {
        DisplayValue::Text(text) if echo => content.push(Content::Text { text: format!("Out: {}", ansi.strip(text)) }),
        DisplayValue::Text(text) => content.push(Content::Text { text: ansi.strip(text) }),
        DisplayValue::Png { data, width, height, bytes, note } => {
            let mut caption = format!(
                "[image: PNG {width}×{height} px, {bytes} bytes{}]",
                note.as_deref().map(|note| format!(", {note}")).unwrap_or_default()
            );
            if echo {
                caption = format!("Out: {caption}");
            }
            content.push(Content::Text { text: caption });
            content.push(Content::Image { data: data.clone(), mime_type: "image/png".to_owned() });
        }
    }
}

/// The content blocks of a cell: the header, the notes, then the items in order, with
/// consecutive text of the same stream joined into one block (stderr marked `[stderr]`).
fn render_outcome(header: &str, notes: &[String], outcome: &CellOutcome, ansi: &mut AnsiStripper) -> ToolResult {
    let mut content = vec![Content::Text { text: header.to_owned() }];
    for note in notes {
        content.push(Content::Text { text: note.clone() });
    }
    let mut streams = StreamJoiner::default();
    for item in &outcome.items {
        if let Some((name, text)) = stream_text(item) {
            streams.push(name, &text, &mut content, ansi);
            continue;
        }
        streams.flush(&mut content, ansi);
        let text = match item {
            OutputItem::Value { value, echo } => {
                render_value(value, *echo, &mut content, ansi);
                continue;
            }
            OutputItem::Exception(text) => ansi.strip(text),
            OutputItem::OutputCut { head_bytes, tail_bytes, total_bytes } => {
                render::middle_cut_notice(*head_bytes, *tail_bytes, *total_bytes, "bytes of output")
            }
            OutputItem::FiguresClosed { count, cap } => {
                format!("{count} more figures were closed without being shown (cap: {cap} per cell)")
            }
            OutputItem::RawOutputCut { kept_bytes, total_bytes } => {
                render::cut_marker(&render::showing(*kept_bytes as usize, *total_bytes as usize, "bytes of raw output (fd 1)"))
            }
            OutputItem::RawOutputIncomplete { waited, stderr } => format!(
                "[raw {} of this cell may be incomplete: its end marker did not arrive within {} ms]",
                if *stderr { "stderr (fd 2)" } else { "stdout (fd 1)" },
                waited.as_millis()
            ),
            OutputItem::BridgeReplyLost(err) => format!("the tool() reply could not be delivered: {err}"),
            OutputItem::Stopped(stop) => describe_stop(stop, ansi),
            OutputItem::KernelDied { state, next_generation } => format!(
                "kernel died: {}\nIts state (variables, imports) is lost; the next eval call starts a fresh kernel (generation {next_generation}).",
                ansi.strip(state)
            ),
            OutputItem::KernelUnreachable(loss) => format!("kernel lost: {}", describe_loss(loss)),
            OutputItem::Stream { .. } | OutputItem::RawStderr { .. } => continue,
        };
        content.push(Content::Text { text });
    }
    streams.flush(&mut content, ansi);
    if content.len() == 1 + notes.len() {
        content.push(Content::Text {
            text: format!(
                "(no output: the cell ran to completion in {} ms; its last line is not an echoed expression)",
                outcome.elapsed.as_millis()
            ),
        });
    }
    ToolResult { content, structured_content: None, is_error: outcome.status != CellStatus::Ok }
}

/// The stream text of an item that is one (printed output, raw stderr), else `None`.
fn stream_text(item: &OutputItem) -> Option<(&str, String)> {
    match item {
        OutputItem::Stream { name, text } => Some((name.as_str(), text.clone())),
        OutputItem::RawStderr { text, total_bytes } => {
            let shown = text.len() as u64;
            let mut joined = String::new();
            if *total_bytes > shown {
                joined.push_str(&render::tail_cut_notice(shown, *total_bytes, "bytes of raw stderr (fd 2)"));
                joined.push('\n');
            }
            joined.push_str(text);
            Some(("stderr", joined))
        }
        _ => None,
    }
}

/// Joins consecutive text of the same stream into one content block (ANSI escape sequences
/// stripped from the joined text, so a sequence split between two writes goes whole).
#[derive(Default)]
struct StreamJoiner {
    pending: Option<(String, String)>,
}

impl StreamJoiner {
    fn push(&mut self, name: &str, text: &str, content: &mut Vec<Content>, ansi: &mut AnsiStripper) {
        match &mut self.pending {
            Some((pending_name, pending_text)) if pending_name == name => pending_text.push_str(text),
            _ => {
                self.flush(content, ansi);
                self.pending = Some((name.to_owned(), text.to_owned()));
            }
        }
    }

    fn flush(&mut self, content: &mut Vec<Content>, ansi: &mut AnsiStripper) {
        if let Some((name, text)) = self.pending.take() {
            let text = ansi.strip(&text);
            let text = if name == "stderr" { format!("[stderr]\n{text}") } else { text };
            content.push(Content::Text { text });
        }
    }
}
