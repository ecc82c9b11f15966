//! The five `vibe_*` tools (all tier read, R-VIBE-1): descriptors, argument shapes, and the
//! text the model reads.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::registry::{CallContext, Registry, ToolAnnotations, ToolDescriptor, ToolOutput};
use crate::result::ToolResult;
use crate::tier::Tier;

use super::output::{millis, KillOutput, ListOutput, SendOutput, SpawnOutput, WaitOutput, WorkerRecord};
use super::roster::{Roster, WorkerSnapshot};
use super::{WorkerIsolation, WorkerStatus, WorkerTier};
use crate::schema::to_structured;

const ISOLATION_DOC: &str = "`worktree` = the worker works in its own git worktree of the workspace (HEAD plus your \
     uncommitted changes, on a new branch), so it never writes your files; when it completes, its changes come back as a \
     staged edit (edit_id and diff in vibe_wait) that resolve accepts or discards. `none` = it works in the workspace \
     itself. Default: the backend's (a remote cluster isolates, the command backend does not).";

const TIER_DOC: &str = "`fast` = well-specified mechanical work (apply a known change, write tests to a clear spec, \
     rename, port); `good` = design, judgment, or reviewing a fast worker's output. Default `fast`.";

pub(crate) fn register(registry: &mut Registry, roster: &Roster) {
    let config = roster.config();
    let told_when_done = finish_notice(roster);
    let wait_default = seconds_text(config.wait_default);
    let wait_min = seconds_text(config.wait_min);
    let wait_max = seconds_text(config.wait_max);
    let stop_budget = roster.stop_budget() + Duration::from_secs(10);
    registry.register(
        ToolDescriptor {
            name: "vibe_spawn".to_owned(),
            title: "Start a background worker".to_owned(),
            description: format!(
                "Start a background worker on a brief; returns at once with its worker_id (worker_1, worker_2, … per run) \
                 while the worker keeps running. The brief must stand alone: the worker does not see this conversation. \
                 Workers cannot start workers of their own; a runbound run inside a worker shows its questions and \
                 permission prompts to the user labelled with the worker (when a user is attached; otherwise they fail \
                 closed). Workers inherit your mode (a plan-mode or read-only \
                 caller's worker is held to it: a host-supplied worker's own tools are read tier, a command worker gets \
                 RUNBOUND_WORKER_CALLER and RUNBOUND_WORKER_WORKSPACE_TRUST, which cap the runbound CLI it drives; a command that edits files by other means \
                 must honor it itself). When every slot is busy the worker queues (the result says how many are ahead). \
                 tier: {TIER_DOC} isolation: {ISOLATION_DOC} {told_when_done} Fetch its result with \
                 vibe_wait; see all workers with vibe_list."
            ),
            tier: Tier::Read,
            input_schema: crate::schema::input_schema::<SpawnArguments>(),
            output_schema: Some(crate::schema::output_schema::<SpawnOutput>()),
            annotations: ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: true },
            parallel_safe: true,
            default_timeout: Duration::from_secs(10),
        },
        Arc::new(vibe_spawn),
    );
    registry.register(
        ToolDescriptor {
            name: "vibe_send".to_owned(),
            title: "Message a background worker".to_owned(),
            description: "Append a message to a worker's brief and run it again. A running attempt is cancelled (its \
                processes are killed) and the next attempt starts with the extended brief; a finished worker (completed, \
                failed, killed, lost) starts a new attempt; a worker still waiting to start just gets the longer brief. A \
                worktree-isolated worker continues in its worktree (its pending staged edit is withdrawn: the new attempt \
                stages its whole change again). The attempt number goes up by one per restart and is shown everywhere."
                .to_owned(),
            tier: Tier::Read,
            input_schema: crate::schema::input_schema::<SendArguments>(),
            output_schema: Some(crate::schema::output_schema::<SendOutput>()),
            annotations: ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: true },
            parallel_safe: true,
            default_timeout: stop_budget,
        },
        Arc::new(vibe_send),
    );
    registry.register(
        ToolDescriptor {
            name: "vibe_wait".to_owned(),
            title: "Wait for a background worker".to_owned(),
            description: format!(
                "Block until a worker finishes, then return its status and whole result; or, when timeout_seconds pass \
                 first, return timed_out with the time waited. timeout_seconds: default {wait_default}, minimum {wait_min}, \
                 maximum {wait_max} (values outside are clamped). Do not poll in a tight loop: do other work meanwhile \
                 and wait only when you need the result. {told_when_done}"
            ),
            tier: Tier::Read,
            input_schema: crate::schema::input_schema::<WaitArguments>(),
            output_schema: Some(crate::schema::output_schema::<WaitOutput>()),
            annotations: ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false },
            parallel_safe: true,
            default_timeout: config.wait_max + Duration::from_secs(30),
        },
        Arc::new(vibe_wait),
    );
    registry.register(
        ToolDescriptor {
            name: "vibe_kill".to_owned(),
            title: "Stop a background worker".to_owned(),
            description: "Stop a worker: its attempt is cancelled and its processes are killed (a Ray job is stopped). \
                The worker is `killed` once the backend confirmed the stop (`stopping` until then). Its record and last \
                result stay visible in vibe_list; vibe_send can start it again."
                .to_owned(),
            tier: Tier::Read,
            input_schema: crate::schema::input_schema::<WorkerIdArguments>(),
            output_schema: Some(crate::schema::output_schema::<KillOutput>()),
            annotations: ToolAnnotations { read_only: false, destructive: true, idempotent: true, open_world: true },
            parallel_safe: true,
            default_timeout: stop_budget,
        },
        Arc::new(vibe_kill),
    );
    registry.register(
        ToolDescriptor {
            name: "vibe_list".to_owned(),
            title: "List background workers".to_owned(),
            description: "List every worker of this run: id, label, tier, backend, status (pending, running, completed, \
                failed, stopping, killed, lost; a worker whose question or permission prompt is open says `waiting for the \
                human`), attempt, elapsed time of the latest attempt, its staged change (edit_id and size) and the start of \
                its last result (vibe_wait returns the whole result). Results stay available until the run ends."
                .to_owned(),
            tier: Tier::Read,
            input_schema: crate::schema::input_schema::<ListArguments>(),
            output_schema: Some(crate::schema::output_schema::<ListOutput>()),
            annotations: ToolAnnotations::READ_ONLY,
            parallel_safe: true,
            default_timeout: Duration::from_secs(10),
        },
        Arc::new(vibe_list),
    );
}

/// The arguments of `vibe_spawn`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SpawnArguments {
    /// The whole task: goal, files, constraints, what to report back.
    #[schemars(length(min = 1))]
    brief: String,
    /// A short name shown in lists and permission prompts, e.g. "fix parser tests".
    #[schemars(length(min = 1, max = 80))]
    label: String,
    /// `fast` = well-specified mechanical work (apply a known change, write tests to a clear
    /// spec, rename, port); `good` = design, judgment, or reviewing a fast worker's output.
    /// Default `fast`.
    #[serde(default)]
    tier: Option<WorkerTier>,
    /// `none` (default) = the worker works in the workspace itself; `worktree` = in its own git
    /// worktree of the workspace (HEAD plus uncommitted and untracked files), its change staged for
    /// `resolve` when it finishes.
    #[serde(default)]
    isolation: Option<WorkerIsolation>,
}

/// The arguments of `vibe_send`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendArguments {
    /// The id vibe_spawn returned, e.g. "worker_1".
    #[schemars(pattern(r"^worker_[0-9]+$"))]
    worker_id: String,
    /// What the worker should do differently or next.
    #[schemars(length(min = 1))]
    message: String,
}

/// The arguments of `vibe_wait`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitArguments {
    /// The id vibe_spawn returned, e.g. "worker_1".
    #[schemars(pattern(r"^worker_[0-9]+$"))]
    worker_id: String,
    /// How long to wait, in seconds (default, minimum and maximum in the tool's description;
    /// values outside are clamped).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0))]
    timeout_seconds: Option<f64>,
}

/// The arguments of `vibe_kill`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WorkerIdArguments {
    /// The id vibe_spawn returned, e.g. "worker_1".
    #[schemars(pattern(r"^worker_[0-9]+$"))]
    worker_id: String,
}

/// `vibe_list` takes no arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArguments {}

fn roster<'run>(ctx: &CallContext<'run>) -> Result<&'run Roster, ToolError> {
    ctx.resource::<Roster>()
}

fn vibe_spawn(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: SpawnArguments = ctx.parse_arguments(arguments)?;
    let roster = roster(ctx)?;
    let tier = arguments.tier.unwrap_or(WorkerTier::Fast);
    let (snapshot, isolation_note) = roster.spawn(&arguments.brief, &arguments.label, tier, ctx.caller(), arguments.isolation)?;
    let backend = roster.backends(false).into_iter().find(|backend| backend.name == snapshot.backend);
    let start = match (snapshot.queued_behind, backend) {
        (Some(ahead), Some(backend)) if ahead > 0 || backend.running >= backend.cap => format!(
            "It is queued: {} of {} slots of backend {} are busy and {} ahead of it; it starts when a slot frees.",
            backend.running,
            backend.cap,
            backend.name,
            if ahead == 1 { "1 worker is".to_owned() } else { format!("{ahead} workers are") }
        ),
        _ => "It starts now.".to_owned(),
    };
    let isolation = match snapshot.isolation {
        WorkerIsolation::Worktree => {
            " It works in its own git worktree; when it completes, its changes come back as a staged edit (vibe_wait shows \
             the edit_id and the diff)."
        }
        WorkerIsolation::None => "",
    };
    let mut text = format!(
        "{} started: label {:?}, tier {}, backend {}, isolation {}, attempt {}, status {}. {start}{isolation} {} Call \
         vibe_wait with worker_id {:?} when you need its result.",
        snapshot.worker_id,
        snapshot.label,
        snapshot.tier,
        snapshot.backend,
        snapshot.isolation,
        snapshot.attempt,
        snapshot.status,
        finish_notice(roster),
        snapshot.worker_id
    );
    if let Some(note) = &isolation_note {
        text.push_str(&format!("\nnote: {note}"));
    }
    let structured = SpawnOutput {
        worker_id: snapshot.worker_id.clone(),
        label: snapshot.label.clone(),
        tier: snapshot.tier,
        backend: snapshot.backend.clone(),
        isolation: snapshot.isolation,
        attempt: snapshot.attempt,
        status: snapshot.status,
        queued_behind: snapshot.queued_behind,
        note: isolation_note,
    };
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&structured))))
}

fn vibe_send(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: SendArguments = ctx.parse_arguments(arguments)?;
    let roster = roster(ctx)?;
    let report = roster.send(&arguments.worker_id, &arguments.message)?;
    let snapshot = &report.snapshot;
    let what_happened = if report.merged_into_pending_attempt {
        format!("had not started attempt {} yet; the message was added to its brief", snapshot.attempt)
    } else if report.previous_status.is_finished() {
        format!(
            "had {} attempt {}; attempt {} started with the message appended to the brief",
            report.previous_status, report.previous_attempt, snapshot.attempt
        )
    } else if report.previous_attempt_stopped {
        format!(
            "was running attempt {}; it was cancelled (its processes killed) and attempt {} starts with the message \
             appended to the brief",
            report.previous_attempt, snapshot.attempt
        )
    } else {
        format!(
            "was running attempt {}; it was cancelled but had not stopped after {} ms; attempt {} starts as soon as it \
             does",
            report.previous_attempt,
            roster.config().stop_grace.as_millis(),
            snapshot.attempt
        )
    };
    let mut text = format!("{} ({:?}) {what_happened}. Status now: {}.", snapshot.worker_id, snapshot.label, snapshot.status);
    if let Some(edit_id) = &report.withdrawn_edit {
        text.push_str(&format!(
            " Its staged edit {edit_id} was withdrawn: the new attempt continues in the same worktree and stages its whole \
             change again."
        ));
    }
    let structured = SendOutput {
        worker_id: snapshot.worker_id.clone(),
        withdrawn_edit: report.withdrawn_edit.clone(),
        previous_status: report.previous_status,
        previous_attempt: report.previous_attempt,
        previous_attempt_stopped: report.previous_attempt_stopped,
        merged_into_pending_attempt: report.merged_into_pending_attempt,
        attempt: snapshot.attempt,
        status: snapshot.status,
    };
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&structured))))
}

fn vibe_wait(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: WaitArguments = ctx.parse_arguments(arguments)?;
    let roster = roster(ctx)?;
    let config = roster.config();
    let requested = match arguments.timeout_seconds {
        Some(seconds) if seconds.is_finite() && seconds > 0.0 => Duration::from_secs_f64(seconds.min(1e9)),
        Some(seconds) => {
            return Err(ToolError::invalid(format!("timeout_seconds {seconds} is not a positive number"))
                .with_hint(format!("omit it for the default {} s", config.wait_default.as_secs())))
        }
        None => config.wait_default,
    };
    // Leave a little of the call's own budget to answer in.
    let not_after = ctx.deadline().checked_sub(Duration::from_millis(500)).unwrap_or_else(|| ctx.deadline());
    let report = roster.wait(&arguments.worker_id, requested, not_after, ctx.cancel_token())?;
    let snapshot = &report.snapshot;
    let mut lines = Vec::new();
    if report.applied_timeout != requested && arguments.timeout_seconds.is_some() {
        lines.push(format!(
            "(timeout_seconds {} was clamped to {} s: the allowed range is {}..={} s)",
            requested.as_secs_f64(),
            seconds_text(report.applied_timeout),
            seconds_text(config.wait_min),
            seconds_text(config.wait_max)
        ));
    }
    if report.cancelled {
        return Err(ToolError::new(
            crate::error::ErrorKind::Cancelled,
            format!(
                "vibe_wait on {} was cancelled by the host after {:.1} s; the worker is {}",
                snapshot.worker_id,
                report.waited.as_secs_f64(),
                snapshot.status
            ),
        ));
    }
    if report.timed_out {
        lines.push(format!(
            "timed_out: {} ({:?}) is still {} in attempt {} after waiting {:.1} s (attempt elapsed {:.1} s).",
            snapshot.worker_id,
            snapshot.label,
            snapshot.status,
            snapshot.attempt,
            report.waited.as_secs_f64(),
            snapshot.elapsed.as_secs_f64()
        ));
        if let Some(waiting) = snapshot.waiting_line() {
            lines.push(format!("it is {waiting}"));
        }
        if let Some(progress) = &snapshot.progress {
            lines.push(format!("latest progress: {progress}"));
        }
        lines.push(format!(
            "Do not poll in a tight loop: do other work, or wait again with a longer timeout_seconds. {}",
            finish_notice(roster)
        ));
    } else {
        lines.push(format!(
            "{} ({:?}, tier {}) {} attempt {} after {:.1} s.",
            snapshot.worker_id,
            snapshot.label,
            snapshot.tier,
            snapshot.status,
            snapshot.attempt,
            snapshot.elapsed.as_secs_f64()
        ));
        if let Some(note) = &snapshot.note {
            lines.push(format!("note: {note}"));
        }
        match (&snapshot.last_result, snapshot.last_result_attempt) {
            (Some(result), Some(attempt)) if attempt == snapshot.attempt => {
                let heading = if snapshot.status == WorkerStatus::Failed { "error" } else { "result" };
                lines.push(format!("{heading}:\n{result}"));
            }
            (Some(result), Some(attempt)) => lines.push(format!("last result (from attempt {attempt}):\n{result}")),
            _ => lines.push("no result: no attempt of this worker ended on its own".to_owned()),
        }
        if let Some(change) = &snapshot.change {
            lines.push(format!("changes: {}", change.line()));
            if let Some(edit_id) = change.edit_id.as_deref().filter(|_| change.state.starts_with("pending")) {
                lines.push(format!(
                    "Nothing was written to your files: call resolve with edit_id {edit_id:?} and action \"accept\" to write \
                     the change, or \"discard\" to drop it."
                ));
                if !change.preview.is_empty() {
                    lines.push(change.preview.clone());
                }
            }
        }
    }
    let structured = WaitOutput {
        worker: WorkerRecord::from_snapshot(snapshot, config.result_max_chars),
        timed_out: report.timed_out,
        waited_ms: millis(report.waited),
        applied_timeout_seconds: report.applied_timeout.as_secs_f64(),
    };
    Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(to_structured(&structured))))
}

fn vibe_kill(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: WorkerIdArguments = ctx.parse_arguments(arguments)?;
    let roster = roster(ctx)?;
    let report = roster.kill(&arguments.worker_id)?;
    let snapshot = &report.snapshot;
    let text = if report.previous_status.is_finished() {
        format!(
            "{} ({:?}) had already {} attempt {}; nothing to stop. Its record stays in vibe_list.",
            snapshot.worker_id,
            snapshot.label,
            if report.previous_status == WorkerStatus::Killed { "been killed in".to_owned() } else { report.previous_status.to_string() },
            snapshot.attempt
        )
    } else if report.stopped {
        format!(
            "{} ({:?}) killed in attempt {} after {:.1} s; its processes are gone. Its record and last result stay in \
             vibe_list; vibe_send starts it again.",
            snapshot.worker_id,
            snapshot.label,
            snapshot.attempt,
            snapshot.elapsed.as_secs_f64()
        )
    } else {
        format!(
            "{} ({:?}) is stopping: the backend was told to stop attempt {} but had not confirmed it after {:.1} s; \
             vibe_list shows `stopping` until it does, then `killed`.",
            snapshot.worker_id,
            snapshot.label,
            snapshot.attempt,
            report.waited.as_secs_f64()
        )
    };
    let structured = KillOutput {
        worker_id: snapshot.worker_id.clone(),
        previous_status: report.previous_status,
        status: snapshot.status,
        attempt: snapshot.attempt,
        stopped: report.stopped,
        waited_ms: millis(report.waited),
    };
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&structured))))
}

fn vibe_list(ctx: &CallContext<'_>, _arguments: Value) -> Result<ToolOutput, ToolError> {
    let roster = roster(ctx)?;
    let list_chars = roster.config().list_result_chars;
    let workers = roster.list();
    if workers.is_empty() {
        return Ok(ToolOutput::new(
            ToolResult::text("no workers in this run yet; start one with vibe_spawn")
                .with_structured(to_structured(&ListOutput { workers: Vec::new() })),
        ));
    }
    let mut counts: Vec<(WorkerStatus, usize)> = Vec::new();
    for snapshot in &workers {
        match counts.iter_mut().find(|(status, _)| *status == snapshot.status) {
            Some((_, count)) => *count += 1,
            None => counts.push((snapshot.status, 1)),
        }
    }
    let summary: Vec<String> = counts.iter().map(|(status, count)| format!("{count} {status}")).collect();
    let mut lines = vec![format!("{} workers ({}):", workers.len(), summary.join(", "))];
    for snapshot in &workers {
        lines.push(list_line(snapshot, list_chars));
    }
    let structured = ListOutput { workers: workers.iter().map(|snapshot| WorkerRecord::from_snapshot(snapshot, list_chars)).collect() };
    Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(to_structured(&structured))))
}

/// Whether the model will hear of a finished worker without asking.
fn finish_notice(roster: &Roster) -> &'static str {
    match roster.announces_completion() {
        true => "You are told when a worker finishes.",
        false => "This host does not announce finished workers: check with vibe_list or vibe_wait when you need results.",
    }
}

/// Whole seconds as an integer (`30`), anything else with one decimal (`0.1`).
fn seconds_text(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds.fract() == 0.0 {
        return format!("{}", duration.as_secs());
    }
    format!("{seconds:.1}")
}

fn list_line(snapshot: &WorkerSnapshot, list_chars: usize) -> String {
    let status = match snapshot.waiting_line() {
        Some(waiting) => format!("{} — {waiting}", snapshot.status),
        None => snapshot.status.to_string(),
    };
    let mut line = format!(
        "{}  {:?}  tier {}  {}  attempt {}  {:.1} s",
        snapshot.worker_id,
        snapshot.label,
        snapshot.tier,
        status,
        snapshot.attempt,
        snapshot.elapsed.as_secs_f64()
    );
    if let Some(ahead) = snapshot.queued_behind.filter(|&ahead| ahead > 0) {
        line.push_str(&format!("  (queued, {} ahead)", crate::render::plural(ahead, "worker")));
    }
    line.push_str(&format!("\n    backend {}, isolation {}", snapshot.backend, snapshot.isolation));
    if let Some((path, branch)) = &snapshot.worktree {
        line.push_str(&format!(", worktree {} (branch {branch})", path.display()));
    }
    if let Some(note) = &snapshot.note {
        line.push_str(&format!("\n    note: {note}"));
    }
    if let Some(progress) = &snapshot.progress {
        line.push_str(&format!("\n    progress: {progress}"));
    }
    if let Some(change) = &snapshot.change {
        line.push_str(&format!("\n    changes: {}", change.line()));
    }
    if let (Some(result), Some(attempt)) = (&snapshot.last_result, snapshot.last_result_attempt) {
        let excerpt = crate::render::cut_chars_with(&result.replace('\n', " ⏎ "), list_chars, "vibe_wait shows the whole result");
        line.push_str(&format!("\n    last result (attempt {attempt}): {excerpt}"));
    }
    line
}
