//! The tool registry: descriptors, handlers, and the one dispatch pipeline every call passes.
//!
//! Pipeline of [`crate::Run::call`], in order:
//! 1. lookup by name (unknown → error listing the tools this caller can see);
//! 2. tier check (R-TIER-1/2): a tool whose tier is hidden from the caller is refused by name,
//!    before anything about it (such as its schema) is revealed;
//! 3. argument validation against the tool's JSON Schema (the error names the bad field and what
//!    was expected);
//! 4. host guardrails (predicates on tool + arguments → allow / deny with a reason);
//! 5. approvals (policy per tier: allow / ask / deny; `ask` asks the run's [`PermissionPrompt`]
//!    — the ask port's binding — and with no prompt attached the call is denied, fail-closed);
//! 6. pre-call layers (diagnostics on write seeds its ledger), then the tool function, under its deadline, panics caught (the run survives), serialized per
//!    tool when the tool is not parallel-safe;
//! 7. post-write layers (given the paths the tool wrote), then post-call layers.
//!
//! Architecture invariants: the tier check lives here and only here (tools declare a tier and
//! never check approval themselves). This layer knows nothing of `Run`: a tool sees its call
//! through [`CallContext`] — the workspace root, the conversation id, the workspace trust level, caller and origin, the
//! deadline and cancel token, its own resource by type ([`CallContext::resource`]) and a nested
//! call bounded by its remaining time ([`CallContext::call_nested`]).

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::events::{EventLevel, EventSink, RunEvent};
use crate::progress::{ProgressCallback, ProgressSink, ProgressUpdate};
use crate::result::ToolResult;
use crate::tier::{Approval, ApprovalPolicy, Caller, Tier};
use crate::trust::WorkspaceTrust;

/// What the model (and the host) sees of a tool: MCP's `Tool` shape plus `tier`.
///
/// The crate's tools derive both schemas from Rust types (`crate::schema::input_schema` of the
/// argument struct, `crate::schema::output_schema` of the type serialized into
/// `structuredContent`), so neither is written by hand beside the code.
#[derive(Debug, Clone)]
pub struct ToolDescriptor {
    /// Unique tool name, e.g. `ast_grep`.
    pub name: String,
    /// Human-readable name for a host's UI (MCP `title`), e.g. `Structural search`.
    pub title: String,
    /// Description written for an LLM: what it does, when to use it, what it returns.
    pub description: String,
    /// Approval tier; decides visibility (R-TIER-1).
    pub tier: Tier,
    /// JSON Schema (draft 2020-12) of the arguments object. Should set
    /// `"additionalProperties": false` so a misspelled field is caught.
    pub input_schema: Value,
    /// JSON Schema of the result's `structuredContent` (MCP 2025-06-18 `outputSchema`), or
    /// `None` when the tool returns none. When set, every result of the tool — the shared error
    /// shape included, since hosts validate it too — must validate against it.
    pub output_schema: Option<Value>,
    /// Behaviour hints for hosts (MCP `ToolAnnotations`).
    pub annotations: ToolAnnotations,
    /// `false` when calls must be serialized (debug, eval: state accumulates across calls).
    pub parallel_safe: bool,
    /// Default time budget of one call. Overridden by `RunConfig::tool_timeouts` and per call.
    pub default_timeout: Duration,
}

/// What a tool does to its environment, as MCP `ToolAnnotations` hints: hosts use them to
/// decide what to confirm and what to retry. Hints, not guarantees; the tier and the approval
/// policy are what the registry enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// `readOnlyHint`: the tool does not modify its environment (files, processes, sessions).
    pub read_only: bool,
    /// `destructiveHint`: the tool may overwrite or delete what exists (meaningful when not
    /// read-only; `false` means it only adds).
    pub destructive: bool,
    /// `idempotentHint`: calling it again with the same arguments has no further effect.
    pub idempotent: bool,
    /// `openWorldHint`: the tool may reach entities outside the workspace and this run (a
    /// human, the network through code it runs).
    pub open_world: bool,
}

impl ToolAnnotations {
    /// Reads the workspace or a resource's view of it and changes nothing; repeatable.
    pub const READ_ONLY: ToolAnnotations = ToolAnnotations { read_only: true, destructive: false, idempotent: true, open_world: false };

    /// The conservative hints for a tier, for tools that declare nothing finer: read tools
    /// read-only; write tools destructive, not idempotent; exec tools destructive, not
    /// idempotent, open world (the code they run can reach anything).
    pub fn for_tier(tier: Tier) -> ToolAnnotations {
        match tier {
            Tier::Read => ToolAnnotations::READ_ONLY,
            Tier::Write => ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: false },
            Tier::Exec => ToolAnnotations { read_only: false, destructive: true, idempotent: false, open_world: true },
        }
    }
}

impl ToolDescriptor {
    /// The descriptor as MCP `Tool` JSON: `name`, `title`, `description`, `inputSchema`,
    /// `outputSchema` (when declared), `annotations` (`title`, `readOnlyHint`,
    /// `destructiveHint`, `idempotentHint`, `openWorldHint`), plus `tier`.
    pub fn to_mcp_json(&self) -> Value {
        let mut tool = json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.annotations.read_only,
                "destructiveHint": self.annotations.destructive,
                "idempotentHint": self.annotations.idempotent,
                "openWorldHint": self.annotations.open_world,
            },
            "tier": self.tier,
        });
        if let Some(output_schema) = &self.output_schema {
            tool["outputSchema"] = output_schema.clone();
        }
        tool
    }

    /// Checks `result` against this tool's contract, as a validating host would: with an
    /// `outputSchema`, a successful result must carry `structuredContent` and any
    /// `structuredContent` (an error's too) must validate against the schema.
    ///
    /// # Errors
    /// Each violation (at most 10), naming the JSON pointer and what was expected.
    pub fn check_output(&self, result: &ToolResult) -> Result<(), Vec<String>> {
        let Some(output_schema) = &self.output_schema else { return Ok(()) };
        let Some(structured) = &result.structured_content else {
            return match result.is_error {
                true => Ok(()),
                false => Err(vec![format!("{} declares an outputSchema but returned no structuredContent", self.name)]),
            };
        };
        let validator = jsonschema::validator_for(output_schema).map_err(|err| vec![format!("invalid outputSchema: {err}")])?;
        if validator.is_valid(structured) {
            return Ok(());
        }
        // `anyOf` says only "not valid under any"; the branch this content meant to be (the
        // error shape when it has `error`, else the tool's result) says what is wrong.
        let branch = match output_schema.get("anyOf").and_then(Value::as_array) {
            Some(branches) if branches.len() == 2 => &branches[usize::from(structured.get("error").is_some())],
            _ => output_schema,
        };
        let validator = jsonschema::validator_for(branch).map_err(|err| vec![format!("invalid outputSchema: {err}")])?;
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .take(10)
            .map(|err| format!("{} at {:?}: {err}", self.name, err.instance_path().to_string()))
            .collect();
        match problems.is_empty() {
            true => Err(vec![format!("{}: structuredContent matches no branch of the outputSchema: {structured}", self.name)]),
            false => Err(problems),
        }
    }
}

/// A tool's function: plain, blocking, bounded by `ctx.deadline()`.
pub type ToolHandler = Arc<dyn Fn(&CallContext<'_>, Value) -> Result<ToolOutput, ToolError> + Send + Sync>;

/// A writing tool's declaration of the files a call will write, worked out from the call's
/// validated arguments before the tool runs (registered with [`Registry::register_writing`]):
/// absolute paths inside the workspace, created, modified, moved to or deleted. Best effort and
/// cheap: what it cannot tell (arguments the tool will refuse, paths only the tool's own work
/// finds) it leaves out; a tool that learns its paths during the call announces them with
/// [`CallContext::before_write`]. What the call really wrote is what it reports in
/// [`ToolOutput::written_paths`].
pub type WritePlanner = Arc<dyn Fn(&CallContext<'_>, &Value) -> Vec<PathBuf> + Send + Sync>;

/// What a tool function returns on success: the result plus the paths it wrote.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// The result shown to the model.
    pub result: ToolResult,
    /// Absolute paths this call wrote (created, modified, moved to) or deleted; fed to the
    /// post-write layers (diagnostics on write).
    pub written_paths: Vec<PathBuf>,
}

impl ToolOutput {
    /// A result that wrote nothing.
    pub fn new(result: ToolResult) -> ToolOutput {
        ToolOutput { result, written_paths: Vec::new() }
    }

    /// A text-only result that wrote nothing.
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput::new(ToolResult::text(text))
    }

    /// Records the written paths.
    #[must_use]
    pub fn with_written_paths(mut self, paths: Vec<PathBuf>) -> ToolOutput {
        self.written_paths = paths;
        self
    }
}

/// A cancellation flag shared between the host and a running call, plus the log of the writes
/// that landed during that call (its own and those of `tool()` bridge calls made on its behalf,
/// which share its token). Cheap to clone.
///
/// The log lets a host learn what a call changed on disk even when it will not use the call's
/// result: a call the host cancelled still commits a write that was already under way, and
/// `serve` sends no response for a cancelled call, so it announces the landed writes instead.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    landed_writes: Mutex<Vec<PathBuf>>,
}

impl CancelToken {
    /// A fresh, not-cancelled token.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Requests cancellation. Tools notice at their next wait slice (≤ 100 ms).
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether cancellation was requested.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Absolute paths written or deleted by every call that used this token so far (the
    /// registry records each successful call's [`ToolOutput::written_paths`]), in order, without
    /// repeats.
    pub fn landed_writes(&self) -> Vec<PathBuf> {
        self.0.landed_writes.lock().clone()
    }

    fn record_landed_writes(&self, paths: &[PathBuf]) {
        let mut landed = self.0.landed_writes.lock();
        for path in paths {
            if !landed.contains(path) {
                landed.push(path.clone());
            }
        }
    }
}

/// Where a call comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallOrigin {
    /// The model (or the host on its behalf).
    Model,
    /// The `tool()` bridge inside a running tool (e.g. an `eval` cell). `via` names that tool.
    Bridge {
        /// The tool whose bridge made the call, e.g. `eval`.
        via: String,
    },
    /// A background worker (vibe), by label.
    Worker {
        /// The worker's label.
        label: String,
    },
}

/// Per-call options for [`crate::Run::call_with`].
#[derive(Clone)]
pub struct CallOptions {
    /// Who is calling; decides visibility.
    pub caller: Caller,
    /// Overrides the tool's time budget for this call.
    pub timeout: Option<Duration>,
    /// Lets the host cancel the call (e.g. MCP `notifications/cancelled`).
    pub cancel: CancelToken,
    /// Where the call comes from.
    pub origin: CallOrigin,
    /// Receives the call's progress while it runs (MCP `notifications/progress`): a language
    /// server's indexing, files searched, a checker's elapsed time. At most four updates a
    /// second, `progress` increasing, none after [`crate::Run::call_with`] returns (see
    /// [`crate::progress`]). Nested calls (the `eval` bridge) report to the same callback.
    pub progress: Option<ProgressCallback>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("caller", &self.caller)
            .field("timeout", &self.timeout)
            .field("cancel", &self.cancel)
            .field("origin", &self.origin)
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .finish()
    }
}

impl CallOptions {
    /// Options for a call by `caller` from the model, default timeout, fresh cancel token, no
    /// progress.
    pub fn new(caller: Caller) -> CallOptions {
        CallOptions { caller, timeout: None, cancel: CancelToken::new(), origin: CallOrigin::Model, progress: None }
    }

    /// Sets the progress callback (see [`CallOptions::progress`]).
    #[must_use]
    pub fn with_progress(mut self, callback: ProgressCallback) -> CallOptions {
        self.progress = Some(callback);
        self
    }
}

/// A resource a run can wire (language servers, debug supervisor, kernels, …), found by the
/// tools that use it through [`CallContext::resource`] and stored by type in the run's
/// [`Resources`]. Adding a resource type needs only this impl, next to the type.
pub trait Resource: Any + Send + Sync {
    /// What the resource is, for the "not wired" error, e.g. `"LSP supervisor"`.
    const NAME: &'static str;
    /// How a host wires it, for the same error's hint, e.g. `"RunBuilder::language_servers()"`.
    const WIRED_BY: &'static str;
}

/// The resources wired into one run, at most one per type, kept in wiring order.
///
/// Dropping it drops them in wiring order (the run wires background workers first, so they stop
/// before the resources they may use).
#[derive(Default)]
pub struct Resources {
    entries: Vec<ResourceEntry>,
}

struct ResourceEntry {
    type_id: TypeId,
    name: &'static str,
    value: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|entry| entry.name)).finish()
    }
}

impl Resources {
    /// Adds `resource`, shared (a host keeps a clone of the `Arc` when it wants to reach the
    /// resource itself).
    ///
    /// # Errors
    /// The resource's name when one of the same type is already wired.
    pub fn insert<T: Resource>(&mut self, resource: Arc<T>) -> Result<(), &'static str> {
        if self.get::<T>().is_some() {
            return Err(T::NAME);
        }
        self.entries.push(ResourceEntry { type_id: TypeId::of::<T>(), name: T::NAME, value: resource });
        Ok(())
    }

    /// The wired resource of type `T`, if any.
    pub fn get<T: Resource>(&self) -> Option<&T> {
        self.entries.iter().find(|entry| entry.type_id == TypeId::of::<T>()).and_then(|entry| entry.value.downcast_ref::<T>())
    }

    /// Names of the wired resources, in wiring order.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|entry| entry.name).collect()
    }
}

impl Drop for Resources {
    fn drop(&mut self) {
        // In wiring order, one at a time (Vec's own drop order is not a documented guarantee).
        for entry in self.entries.drain(..) {
            drop(entry);
        }
    }
}

/// The "not wired" error for resource `T`: made here, once, for every tool.
fn unwired<T: Resource>() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, format!("this run has no {} wired", T::NAME))
        .with_hint(format!("the host wires it with {}; without it this tool cannot run", T::WIRED_BY))
}

/// The outcome of a permission prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionDecision {
    /// Run this one call.
    AllowOnce,
    /// Run this call and every later call of the same tool in this run without asking.
    AllowForRun,
    /// Do not run; the reason says why (denied, skipped, timed out, unknown answer).
    Denied(String),
    /// Do not run: no human could be asked (no port attached, or the port has nobody).
    NoHuman(String),
}

/// A call waiting for permission, as a [`PermissionPrompt`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct PermissionRequest<'a> {
    /// The tool to be run.
    pub descriptor: &'a ToolDescriptor,
    /// Its validated arguments.
    pub arguments: &'a Value,
    /// Who is calling.
    pub caller: Caller,
    /// Where the call comes from (a worker's or a bridge's call is labelled as such).
    pub origin: &'a CallOrigin,
}

/// Someone who can grant a call the approval policy puts on `ask`. The ask port's binding
/// ([`crate::ask::AskBinding`]) implements it with a permission card; a run without one denies
/// such calls (fail-closed). Implementations bound their own wait and never panic.
pub trait PermissionPrompt: Send + Sync {
    /// Asks whether the call may run.
    fn request_permission(&self, request: &PermissionRequest<'_>) -> PermissionDecision;
}

/// What a tool function sees of its call: the workspace root, the conversation id, the caller
/// and origin, the deadline and cancel token, its resource (by type) and a nested call.
/// Nothing else of the run is reachable from a tool.
pub struct CallContext<'run> {
    registry: &'run Registry,
    descriptor: &'run ToolDescriptor,
    options: &'run CallOptions,
    progress: Option<&'run ProgressSink>,
    deadline: Instant,
    budget: Duration,
}

impl<'run> CallContext<'run> {
    /// The run's workspace root: absolute and canonical. Every path argument is resolved
    /// against it (see [`crate::files::resolve_in_workspace`]).
    pub fn workspace_root(&self) -> &'run Path {
        &self.registry.workspace_root
    }

    /// The conversation this run belongs to.
    pub fn conversation_id(&self) -> &'run str {
        &self.registry.conversation_id
    }

    /// The run's workspace trust level: under [`WorkspaceTrust::Restricted`] a tool executes
    /// nothing the checkout provides (see [`crate::trust`]).
    pub fn workspace_trust(&self) -> WorkspaceTrust {
        self.registry.workspace_trust
    }

    /// The run's resource of type `T` (e.g. `ctx.resource::<LspSupervisor>()`).
    ///
    /// # Errors
    /// [`ErrorKind::Unavailable`] "this run has no <T::NAME> wired", with how a host wires it.
    pub fn resource<T: Resource>(&self) -> Result<&'run T, ToolError> {
        self.registry.resources.get::<T>().ok_or_else(unwired::<T>)
    }

    /// The run's resource of type `T`, or `None` when it is not wired (for layers and tools
    /// that do without it).
    pub fn find_resource<T: Resource>(&self) -> Option<&'run T> {
        self.registry.resources.get::<T>()
    }

    /// Calls another tool of this run on behalf of this call (the `eval` bridge, anything
    /// re-entrant): the same caller (so the same visibility), the same cancel token, `origin`
    /// (e.g. [`CallOrigin::Bridge`]), and the whole pipeline (tier, schema, guardrails,
    /// approvals). Its budget is the nested tool's own, capped by this call's remaining time.
    pub fn call_nested(&self, name: &str, arguments: Value, origin: CallOrigin) -> ToolResult {
        let remaining = self.remaining();
        let budget = self.registry.tools.get(name).map_or(remaining, |tool| self.registry.default_budget(&tool.descriptor).min(remaining));
        let options = CallOptions {
            caller: self.options.caller,
            timeout: Some(budget),
            cancel: self.options.cancel.clone(),
            origin,
            progress: self.options.progress.clone(),
        };
        self.registry.dispatch_reporting(name, arguments, &options, self.progress)
    }

    /// Reports this call's progress to the host, when it listens (a no-op otherwise). Rate
    /// limits and the increasing-progress rule are applied for the tool (see
    /// [`crate::progress`]); report as often as convenient.
    pub fn progress(&self, update: ProgressUpdate) {
        if let Some(sink) = self.progress {
            sink.report(update);
        }
    }

    /// The call's progress sink, for a helper thread of the tool (e.g. a parallel walk), or
    /// `None` when the host does not listen. It is closed when the call returns.
    pub fn progress_sink(&self) -> Option<ProgressSink> {
        self.progress.cloned()
    }

    /// Sends an event to the host operator (see [`crate::events`]): a no-op when the host
    /// attached no event callback.
    pub fn event(&self, event: RunEvent) {
        self.registry.events.emit(event);
    }

    /// Runs the run's [`PreWriteLayer`]s for `paths` (absolute), the files this call is about
    /// to write: a writing tool that learns its paths only during the call (a language server's
    /// rename, a code action's edit) calls this once it knows them, before its commit. Paths a
    /// tool declared with its [`WritePlanner`] were already announced before it ran. Returns
    /// once the layers are done (each bounded by the call's deadline); a panicking layer is
    /// skipped. Does nothing for an empty list.
    pub fn before_write(&self, paths: &[PathBuf]) {
        if paths.is_empty() {
            return;
        }
        for layer in &self.registry.pre_write_layers {
            let _ = catch_unwind(AssertUnwindSafe(|| layer.before_write(self, paths)));
        }
    }

    /// The descriptor of the tool being called.
    pub fn descriptor(&self) -> &'run ToolDescriptor {
        self.descriptor
    }

    /// Who is calling.
    pub fn caller(&self) -> Caller {
        self.options.caller
    }

    /// Where the call comes from.
    pub fn origin(&self) -> &'run CallOrigin {
        &self.options.origin
    }

    /// The instant by which the tool must return. Every blocking wait in a tool is bounded by it.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The whole time budget of this call.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// Time left until the deadline (zero when past).
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The call's cancellation token.
    pub fn cancel_token(&self) -> &'run CancelToken {
        &self.options.cancel
    }

    /// `Err` with a timeout or cancellation error when the call must stop now; `what` says
    /// what the tool was doing (e.g. "walking src/").
    pub fn check_continue(&self, what: &str) -> Result<(), ToolError> {
        if self.options.cancel.is_cancelled() {
            return Err(ToolError::new(ErrorKind::Cancelled, format!("{} cancelled by the host while {what}", self.descriptor.name)));
        }
        if Instant::now() >= self.deadline {
            return Err(self.timeout_error(what));
        }
        Ok(())
    }

    /// A timeout error naming the tool, what it was doing and the budget.
    pub fn timeout_error(&self, what: &str) -> ToolError {
        ToolError::new(ErrorKind::Timeout, format!("{} timed out after {} ms while {what}", self.descriptor.name, self.budget.as_millis()))
            .with_hint("narrow the request, or retry with a larger timeout if the host allows it")
    }

    /// Deserializes the (already schema-validated) arguments into `T`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArguments`] naming the tool and serde's message.
    pub fn parse_arguments<T: DeserializeOwned>(&self, arguments: Value) -> Result<T, ToolError> {
        serde_json::from_value(arguments)
            .map_err(|err| ToolError::invalid(format!("invalid arguments for {}: {err}", self.descriptor.name)))
    }
}

/// A guardrail's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardrailVerdict {
    /// Let the call through (to approvals).
    Allow,
    /// Refuse the call; the reason is shown to the model.
    Deny(String),
}

/// What a guardrail sees of a call.
#[derive(Debug, Clone, Copy)]
pub struct GuardrailInput<'a> {
    /// Who is calling.
    pub caller: Caller,
    /// The tool's name.
    pub tool: &'a str,
    /// The tool's tier.
    pub tier: Tier,
    /// The validated arguments.
    pub arguments: &'a Value,
    /// Where the call comes from.
    pub origin: &'a CallOrigin,
}

/// A host guardrail: a predicate on tool + arguments, checked before approvals.
pub trait Guardrail: Send + Sync {
    /// Decides whether the call may proceed.
    fn check(&self, input: &GuardrailInput<'_>) -> GuardrailVerdict;
}

impl<F> Guardrail for F
where
    F: Fn(&GuardrailInput<'_>) -> GuardrailVerdict + Send + Sync,
{
    fn check(&self, input: &GuardrailInput<'_>) -> GuardrailVerdict {
        self(input)
    }
}

/// A layer that runs after a successful call that wrote files (diagnostics on write plugs in
/// here). It may append content to the result; it must not turn success into failure.
pub trait PostWriteLayer: Send + Sync {
    /// Called with the absolute paths the tool reported in [`ToolOutput::written_paths`].
    fn after_write(&self, ctx: &CallContext<'_>, written_paths: &[PathBuf], result: &mut ToolResult);
}

/// A layer that runs before a call writes files, with the absolute paths it is about to write:
/// the paths the tool's [`WritePlanner`] declared, just before the tool function runs, or the
/// paths the tool announced with [`CallContext::before_write`] once it knew them (before its
/// commit). Diagnostics on write seeds its ledger here from the state of those files before the
/// write (R-DOW-2). Runs under the call's deadline; it cannot fail or change the call.
pub trait PreWriteLayer: Send + Sync {
    /// Called with the absolute paths about to be written (never empty).
    fn before_write(&self, ctx: &CallContext<'_>, paths: &[PathBuf]);
}

/// A layer that runs just before the tool function of every call that passed the pipeline's
/// checks (tier, arguments, guardrails, approvals), with the validated arguments, under the
/// call's deadline (after the [`PreWriteLayer`]s of a declared write). It cannot fail or change
/// the call.
pub trait PreCallLayer: Send + Sync {
    /// Called with the call's validated arguments.
    fn before_call(&self, ctx: &CallContext<'_>, arguments: &Value);
}

/// A layer that runs after every call that reached the tool function, successful or not (after
/// the post-write layers). Calls refused earlier in the pipeline (unknown tool, hidden tier,
/// invalid arguments, guardrail, approval) do not reach it.
pub trait PostCallLayer: Send + Sync {
    /// Called with the final result of the call.
    fn after_call(&self, ctx: &CallContext<'_>, result: &mut ToolResult);
}

struct RegisteredTool {
    descriptor: ToolDescriptor,
    handler: ToolHandler,
    write_planner: Option<WritePlanner>,
    validator: jsonschema::Validator,
    serial: Mutex<()>,
}

/// The tools of one run and what they are bound to — the workspace root, the conversation id,
/// the wired [`Resources`] — with the pipeline's guardrails, layers, approval policy and
/// permission prompt. Built by [`crate::RunBuilder`]; dispatch goes through
/// [`crate::Run::call`]. Dropping it drops the resources first, in wiring order.
pub struct Registry {
    resources: Resources,
    workspace_root: PathBuf,
    conversation_id: String,
    workspace_trust: WorkspaceTrust,
    approval_policy: ApprovalPolicy,
    tool_timeouts: HashMap<String, Duration>,
    permission_prompt: Option<Arc<dyn PermissionPrompt>>,
    tools: BTreeMap<String, RegisteredTool>,
    guardrails: Vec<Arc<dyn Guardrail>>,
    pre_call_layers: Vec<Arc<dyn PreCallLayer>>,
    pre_write_layers: Vec<Arc<dyn PreWriteLayer>>,
    post_write_layers: Vec<Arc<dyn PostWriteLayer>>,
    post_call_layers: Vec<Arc<dyn PostCallLayer>>,
    allowed_for_run: Mutex<HashSet<String>>,
    events: EventSink,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").field("tools", &self.tools.keys().collect::<Vec<_>>()).finish_non_exhaustive()
    }
}

impl Registry {
    /// An empty registry for a run over `workspace_root` (absolute, canonical): no tools, no
    /// resources, the default approval policy, no permission prompt.
    pub(crate) fn new(workspace_root: PathBuf, conversation_id: String) -> Registry {
        Registry {
            resources: Resources::default(),
            workspace_root,
            conversation_id,
            workspace_trust: WorkspaceTrust::default(),
            approval_policy: ApprovalPolicy::default(),
            tool_timeouts: HashMap::new(),
            permission_prompt: None,
            tools: BTreeMap::new(),
            guardrails: Vec::new(),
            pre_call_layers: Vec::new(),
            pre_write_layers: Vec::new(),
            post_write_layers: Vec::new(),
            post_call_layers: Vec::new(),
            allowed_for_run: Mutex::new(HashSet::new()),
            events: EventSink::none(),
        }
    }

    /// Sets where the registry's own events go (panics, denials for lack of a human,
    /// approvals for the whole run).
    pub(crate) fn set_event_sink(&mut self, events: EventSink) {
        self.events = events;
    }

    /// Registers a tool.
    ///
    /// # Panics
    /// When the name is taken or the input or output schema is not a valid JSON Schema (or
    /// the output schema's root is not `"type": "object"`, which MCP requires): programming
    /// errors in the crate or host, caught by any test that builds a run.
    pub fn register(&mut self, descriptor: ToolDescriptor, handler: ToolHandler) {
        self.register_tool(descriptor, handler, None);
    }

    /// Registers a tool that writes files, with its declaration of the files a call will write
    /// ([`WritePlanner`]): the [`PreWriteLayer`]s get them before the tool runs. The tool still
    /// reports what it wrote in [`ToolOutput::written_paths`], which the [`PostWriteLayer`]s
    /// get after it ran.
    ///
    /// # Panics
    /// As [`Registry::register`].
    pub fn register_writing(&mut self, descriptor: ToolDescriptor, handler: ToolHandler, planner: WritePlanner) {
        self.register_tool(descriptor, handler, Some(planner));
    }

    fn register_tool(&mut self, descriptor: ToolDescriptor, handler: ToolHandler, write_planner: Option<WritePlanner>) {
        let validator = match jsonschema::validator_for(&descriptor.input_schema) {
            Ok(validator) => validator,
            Err(err) => panic!("tool {} has an invalid input schema: {err}", descriptor.name),
        };
        if let Some(output_schema) = &descriptor.output_schema {
            if let Err(err) = jsonschema::validator_for(output_schema) {
                panic!("tool {} has an invalid output schema: {err}", descriptor.name);
            }
            assert_eq!(
                output_schema.get("type"),
                Some(&json!("object")),
                "tool {}: an outputSchema's root must be an object",
                descriptor.name
            );
        }
        let name = descriptor.name.clone();
        let previous =
            self.tools.insert(name.clone(), RegisteredTool { descriptor, handler, write_planner, validator, serial: Mutex::new(()) });
        assert!(previous.is_none(), "tool {name} registered twice");
    }

    /// The resources, for wiring them.
    pub(crate) fn resources_mut(&mut self) -> &mut Resources {
        &mut self.resources
    }

    /// Sets the workspace trust level.
    pub(crate) fn set_workspace_trust(&mut self, trust: WorkspaceTrust) {
        self.workspace_trust = trust;
    }

    /// Sets the approval policy.
    pub(crate) fn set_approval_policy(&mut self, policy: ApprovalPolicy) {
        self.approval_policy = policy;
    }

    /// Sets the per-tool budget overrides (by tool name).
    pub(crate) fn set_tool_timeouts(&mut self, tool_timeouts: HashMap<String, Duration>) {
        self.tool_timeouts = tool_timeouts;
    }

    /// Sets who answers permission prompts (the ask port's binding).
    pub(crate) fn set_permission_prompt(&mut self, prompt: Arc<dyn PermissionPrompt>) {
        self.permission_prompt = Some(prompt);
    }

    /// The workspace root (absolute, canonical).
    pub fn workspace_root(&self) -> &Path {
        &self.workspace_root
    }

    /// The conversation id.
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// The workspace trust level.
    pub fn workspace_trust(&self) -> WorkspaceTrust {
        self.workspace_trust
    }

    /// The approval policy.
    pub fn approval_policy(&self) -> ApprovalPolicy {
        self.approval_policy
    }

    /// The wired resource of type `T`, if any.
    pub fn resource<T: Resource>(&self) -> Option<&T> {
        self.resources.get::<T>()
    }

    /// The wired resources.
    pub fn resources(&self) -> &Resources {
        &self.resources
    }

    /// A tool's budget when the call gives none: the run's override for it, else its
    /// descriptor's `default_timeout`.
    fn default_budget(&self, descriptor: &ToolDescriptor) -> Duration {
        self.tool_timeouts.get(&descriptor.name).copied().unwrap_or(descriptor.default_timeout)
    }

    /// Adds a guardrail; guardrails run in the order added, the first deny wins.
    pub fn add_guardrail(&mut self, guardrail: Arc<dyn Guardrail>) {
        self.guardrails.push(guardrail);
    }

    /// Adds a pre-call layer (run in the order added, before the tool function).
    pub fn add_pre_call_layer(&mut self, layer: Arc<dyn PreCallLayer>) {
        self.pre_call_layers.push(layer);
    }

    /// Adds a layer that runs before a call writes files (see [`PreWriteLayer`]).
    pub fn add_pre_write_layer(&mut self, layer: Arc<dyn PreWriteLayer>) {
        self.pre_write_layers.push(layer);
    }

    /// Adds a post-write layer.
    pub fn add_post_write_layer(&mut self, layer: Arc<dyn PostWriteLayer>) {
        self.post_write_layers.push(layer);
    }

    /// Adds a post-call layer.
    pub fn add_post_call_layer(&mut self, layer: Arc<dyn PostCallLayer>) {
        self.post_call_layers.push(layer);
    }

    /// Descriptors visible to `caller`, sorted by name. Write and exec tools are absent for
    /// read-only callers (R-TIER-2).
    pub fn tools(&self, caller: Caller) -> Vec<&ToolDescriptor> {
        self.tools.values().map(|tool| &tool.descriptor).filter(|d| caller.can_see(d.tier)).collect()
    }

    /// Every registered descriptor, whatever its tier.
    pub fn all_tools(&self) -> Vec<&ToolDescriptor> {
        self.tools.values().map(|tool| &tool.descriptor).collect()
    }

    /// The descriptor named `name`, whatever its tier.
    pub fn descriptor(&self, name: &str) -> Option<&ToolDescriptor> {
        self.tools.get(name).map(|tool| &tool.descriptor)
    }

    /// Runs the whole pipeline for one call (see the module docs), reporting progress to
    /// `options.progress` through a fresh sink that is closed when the call returns. Never
    /// panics; every failure is a result with `isError: true`.
    pub(crate) fn dispatch(&self, name: &str, arguments: Value, options: &CallOptions) -> ToolResult {
        let sink = options.progress.clone().map(ProgressSink::new);
        let result = self.dispatch_reporting(name, arguments, options, sink.as_ref());
        if let Some(sink) = sink {
            sink.close();
        }
        result
    }

    /// The pipeline, with progress going to `progress` (shared with the calling tool for a
    /// nested call), which is the thread's current sink while the call runs.
    fn dispatch_reporting(&self, name: &str, arguments: Value, options: &CallOptions, progress: Option<&ProgressSink>) -> ToolResult {
        let _current_sink = crate::progress::enter(progress.cloned());
        let _current_events = crate::events::enter(self.events.clone());
        let Some(tool) = self.tools.get(name) else {
            let visible: Vec<&str> = self.tools(options.caller).iter().map(|d| d.name.as_str()).collect();
            return ToolError::new(ErrorKind::UnknownTool, format!("no tool named {name:?} in this run"))
                .with_hint(format!("call one of: {}", visible.join(", ")))
                .to_result();
        };
        let descriptor = &tool.descriptor;
        if !options.caller.can_see(descriptor.tier) {
            return ToolError::new(
                ErrorKind::HiddenFromCaller,
                format!(
                    "tool {name} is {} tier and is not available to a {} caller (only read-tier tools are)",
                    descriptor.tier, options.caller
                ),
            )
            .with_hint("use read-tier tools, or hand the change to the main agent")
            .to_result();
        }
        let arguments = if arguments.is_null() { json!({}) } else { arguments };
        if let Err(err) = validate_arguments(tool, &arguments) {
            return err.to_result();
        }
        let input =
            GuardrailInput { caller: options.caller, tool: name, tier: descriptor.tier, arguments: &arguments, origin: &options.origin };
        for guardrail in &self.guardrails {
            if let GuardrailVerdict::Deny(reason) = guardrail.check(&input) {
                return ToolError::new(ErrorKind::GuardrailDenied, format!("a host guardrail refused {name}: {reason}"))
                    .with_hint("do not retry the same call; change the approach or ask the user")
                    .to_result();
            }
        }
        if let Err(err) = self.approve(descriptor, &arguments, options) {
            return err.to_result();
        }
        let budget = options.timeout.unwrap_or_else(|| self.default_budget(descriptor));
        let _serial_guard = if descriptor.parallel_safe {
            None
        } else {
            match tool.serial.try_lock_for(budget) {
                Some(guard) => Some(guard),
                None => {
                    return ToolError::new(
                        ErrorKind::Timeout,
                        format!("{name} is busy with another call for longer than {} ms; its calls are serialized", budget.as_millis()),
                    )
                    .with_hint("wait for the running call to finish, then retry")
                    .to_result()
                }
            }
        };
        let ctx = CallContext { registry: self, descriptor, options, progress, deadline: Instant::now() + budget, budget };
        if let Some(planner) = &tool.write_planner {
            if !self.pre_write_layers.is_empty() {
                if let Ok(paths) = catch_unwind(AssertUnwindSafe(|| planner(&ctx, &arguments))) {
                    ctx.before_write(&paths);
                }
            }
        }
        for layer in &self.pre_call_layers {
            let _ = catch_unwind(AssertUnwindSafe(|| layer.before_call(&ctx, &arguments)));
        }
        let landed_before = options.cancel.landed_writes().len();
        let outcome = catch_unwind(AssertUnwindSafe(|| (tool.handler)(&ctx, arguments)));
        let mut result = match outcome {
            Ok(Ok(output)) => {
                let mut result = output.result;
                if !output.written_paths.is_empty() {
                    options.cancel.record_landed_writes(&output.written_paths);
                    if let Some(note) = late_write_note(&ctx, &output.written_paths) {
                        result.push_text(note);
                    }
                    for layer in &self.post_write_layers {
                        let layer_outcome = catch_unwind(AssertUnwindSafe(|| layer.after_write(&ctx, &output.written_paths, &mut result)));
                        if layer_outcome.is_err() {
                            result.push_text("post-write check unavailable: the layer panicked; the write itself succeeded");
                        }
                    }
                }
                result
            }
            Ok(Err(err)) => err.to_result(),
            Err(panic) => {
                let message = format!("{name} panicked: {}", panic_message(&*panic));
                self.events.emit(
                    RunEvent::new(EventLevel::Error, "registry", format!("{message} (a bug in the tool; the run is intact)"))
                        .with_data(json!({"tool": name})),
                );
                ToolError::new(ErrorKind::Panicked, message)
                    .with_hint("this is a bug in the tool; the run is intact, try a different input or approach")
                    .to_result()
            }
        };
        if result.is_error && !matches!(options.origin, CallOrigin::Bridge { .. }) {
            // Writes made on this call's behalf (tool() bridge calls of an eval cell) landed even
            // though the call itself failed, timed out or was cancelled: say so.
            let landed = options.cancel.landed_writes();
            if landed.len() > landed_before {
                let shown: Vec<String> =
                    landed[landed_before..].iter().map(|path| shown_in_workspace(self.workspace_root(), path)).collect();
                result.push_text(format!(
                    "note: although {name} did not complete, writes made through it had already landed and stay on disk: {} (read them before redoing the change)",
                    shown.join(", ")
                ));
            }
        }
        for layer in &self.post_call_layers {
            let _ = catch_unwind(AssertUnwindSafe(|| layer.after_call(&ctx, &mut result)));
        }
        result
    }

    fn approve(&self, descriptor: &ToolDescriptor, arguments: &Value, options: &CallOptions) -> Result<(), ToolError> {
        match self.approval_policy.for_tier(descriptor.tier) {
            Approval::Allow => Ok(()),
            Approval::Deny => Err(ToolError::new(
                ErrorKind::ApprovalDenied,
                format!("{} tools are denied by this run's approval policy; {} was not run", descriptor.tier, descriptor.name),
            )
            .with_hint("do not retry; tell the user what you would have done and why")),
            Approval::Ask => {
                if self.allowed_for_run.lock().contains(&descriptor.name) {
                    return Ok(());
                }
                let decision = match &self.permission_prompt {
                    Some(prompt) => prompt.request_permission(&PermissionRequest {
                        descriptor,
                        arguments,
                        caller: options.caller,
                        origin: &options.origin,
                    }),
                    None => PermissionDecision::NoHuman(format!(
                        "{} tools need approval and no human is attached to this run (fail-closed)",
                        descriptor.tier
                    )),
                };
                match decision {
                    PermissionDecision::AllowOnce => Ok(()),
                    PermissionDecision::AllowForRun => {
                        self.allowed_for_run.lock().insert(descriptor.name.clone());
                        self.events.emit(
                            RunEvent::new(
                                EventLevel::Notice,
                                "registry",
                                format!(
                                    "{} may run without asking for the rest of this run (allowed for the run by the human)",
                                    descriptor.name
                                ),
                            )
                            .with_data(json!({"tool": descriptor.name, "decision": "allow for this run"})),
                        );
                        Ok(())
                    }
                    PermissionDecision::NoHuman(reason) => Err({
                        self.events.emit(
                            RunEvent::new(
                                EventLevel::Warning,
                                "registry",
                                format!("{} was denied without asking: {reason}", descriptor.name),
                            )
                            .with_data(json!({"tool": descriptor.name, "decision": "denied", "no_human_attached": true})),
                        );
                        ToolError::new(
                            ErrorKind::ApprovalDenied,
                            format!("permission to run {} was not granted: {reason}", descriptor.name),
                        )
                        .with_hint("do not retry the same call; continue without it or explain to the user what you need")
                        .with_details(json!({"no_human_attached": true}))
                    }),
                    PermissionDecision::Denied(reason) => Err(ToolError::new(
                        ErrorKind::ApprovalDenied,
                        format!("permission to run {} was not granted: {reason}", descriptor.name),
                    )
                    .with_hint("do not retry the same call; continue without it or explain to the user what you need")),
                }
            }
        }
    }
}

/// For a call that wrote after the host cancelled it or past its deadline: a line saying the
/// write landed, so a caller that gave up on the call does not take it for undone.
fn late_write_note(ctx: &CallContext<'_>, written_paths: &[PathBuf]) -> Option<String> {
    let why = if ctx.cancel_token().is_cancelled() {
        "the host cancelled this call".to_owned()
    } else if Instant::now() > ctx.deadline() {
        format!("this call ran past its {} ms deadline", ctx.budget().as_millis())
    } else {
        return None;
    };
    let shown: Vec<String> = written_paths.iter().map(|path| shown_in_workspace(ctx.workspace_root(), path)).collect();
    Some(format!("note: {why}, but its write had already landed: {} changed on disk as shown above", shown.join(", ")))
}

/// `path` relative to the workspace root when it is inside it, else as is.
fn shown_in_workspace(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn validate_arguments(tool: &RegisteredTool, arguments: &Value) -> Result<(), ToolError> {
    let mut fields_at_fault: Vec<String> = Vec::new();
    let mut all_at_a_field = true;
    let problems: Vec<String> = tool
        .validator
        .iter_errors(arguments)
        .take(5)
        .map(|err| {
            let path = err.instance_path().to_string();
            match path.trim_start_matches('/').split('/').next().filter(|field| !field.is_empty()) {
                Some(field) if !fields_at_fault.iter().any(|known| known == field) => fields_at_fault.push(field.to_owned()),
                Some(_) => {}
                None => all_at_a_field = false,
            }
            let at = if path.is_empty() { "arguments".to_owned() } else { format!("field {path}") };
            format!("{at}: {err}")
        })
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    // A wrong value of a named field: that field's description, not the whole schema (the lsp
    // tool's is ~3,000 characters); a missing or unknown field: every field.
    let only = all_at_a_field.then_some(fields_at_fault.as_slice());
    Err(ToolError::invalid(format!("invalid arguments for {}: {}", tool.descriptor.name, problems.join("; ")))
        .with_hint(describe_fields_of(&tool.descriptor.input_schema, only)))
}

/// The fields of an input schema for an LLM (see [`describe_fields`]); with `only`, just the
/// named fields that exist in the schema, then the names of the others.
fn describe_fields_of(schema: &Value, only: Option<&[String]>) -> String {
    let Some(only) = only else { return describe_fields(schema) };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return describe_fields(schema) };
    if only.is_empty() || !only.iter().all(|name| properties.contains_key(name)) {
        return describe_fields(schema);
    }
    let mut narrowed = schema.clone();
    if let Some(Value::Object(kept)) = narrowed.get_mut("properties") {
        kept.retain(|name, _| only.contains(name));
    }
    let others: Vec<&str> = properties.keys().filter(|name| !only.contains(name)).map(String::as_str).collect();
    let mut hint = describe_fields(&narrowed).replacen("send a JSON object with these fields:", "fix this field:", 1);
    if only.len() > 1 {
        hint = hint.replacen("fix this field:", "fix these fields:", 1);
    }
    if !others.is_empty() {
        hint.push_str(&format!("\nthe other fields ({}) are described in the tool's inputSchema (tools/list)", others.join(", ")));
    }
    hint
}

/// The fields of an input schema for an LLM, one per line: `name (type, required): description`,
/// with an enum's values; nested schemas are named by type only.
fn describe_fields(schema: &Value) -> String {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).map(|names| names.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        let composed = ["oneOf", "anyOf", "allOf", "$ref", "if"].iter().any(|key| schema.get(*key).is_some());
        return match composed {
            true => format!("send a JSON object matching this schema: {schema}"),
            false => "this tool takes no arguments: pass {}".to_owned(),
        };
    };
    let mut lines = vec!["send a JSON object with these fields:".to_owned()];
    for (name, property) in properties {
        let type_name = match property.get("type") {
            Some(Value::String(type_name)) => type_name.clone(),
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
            _ if property.get("oneOf").is_some() || property.get("anyOf").is_some() || property.get("$ref").is_some() => {
                format!("as in {property}")
            }
            _ => "any".to_owned(),
        };
        let mut line = format!("- {name} ({type_name}{})", if required.contains(&name.as_str()) { ", required" } else { "" });
        if let Some(values) = property.get("enum").and_then(Value::as_array) {
            let values: Vec<String> = values.iter().map(Value::to_string).collect();
            let _ = std::fmt::Write::write_fmt(&mut line, format_args!(" one of {}", values.join(", ")));
        }
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            line.push_str(": ");
            line.push_str(description);
        }
        lines.push(line);
    }
    lines.join("\n")
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        return (*text).to_owned();
    }
    if let Some(text) = panic.downcast_ref::<String>() {
        return text.clone();
    }
    "unknown panic payload".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_value_of_a_named_field_describes_that_field_only() {
        let schema = json!({"type": "object", "properties": {
            "op": {"type": "string", "description": "What to do."},
            "kind": {"type": "array", "description": "Kinds to keep, e.g. [\"function\"]."},
            "depth": {"type": "integer", "description": "How deep."}
        }, "required": ["op"]});
        let only = ["kind".to_owned()];
        let hint = describe_fields_of(&schema, Some(&only));
        assert!(hint.starts_with("fix this field:\n- kind (array): Kinds to keep"), "{hint}");
        assert!(!hint.contains("How deep") && hint.contains("the other fields (depth, op)"), "{hint}");
        // A field the schema does not have, or no field named: every field.
        assert!(describe_fields_of(&schema, Some(&["nope".to_owned()])).contains("How deep"));
        assert!(describe_fields_of(&schema, None).contains("How deep"));
    }

    #[test]
    fn field_hints_cover_plain_composed_and_empty_schemas() {
        let plain = json!({"type": "object", "properties": {
            "op": {"type": "string", "enum": ["a", "b"], "description": "What to do."},
            "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
        }, "required": ["op"]});
        let hint = describe_fields(&plain);
        assert!(hint.contains("- op (string, required) one of \"a\", \"b\": What to do."), "{hint}");
        assert!(hint.contains("- target (as in {\"oneOf\""), "{hint}");

        let composed = json!({"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}]});
        let hint = describe_fields(&composed);
        assert!(hint.starts_with("send a JSON object matching this schema:") && hint.contains("\"required\":[\"a\"]"), "{hint}");
        assert!(!hint.contains("takes no arguments"), "{hint}");

        assert_eq!(describe_fields(&json!({"type": "object"})), "this tool takes no arguments: pass {}");
    }
}
