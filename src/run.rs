//! `Run`: everything bound to one run — workspace root, conversation id, configuration, the
//! registry, and the wired resources. Dropping a `Run` stops all of it.
//!
//! Architecture invariant: nothing depends on the process's current directory. The workspace
//! root is absolute and canonical, and every path a tool takes is resolved against it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::ask::{AskBinding, AskConfig, AskPort};
use crate::files::FilesConfig;
use crate::registry::{
    CallOptions, Guardrail, PostCallLayer, PostWriteLayer, PreWriteLayer, Registry, Resource, Resources, ToolDescriptor, ToolHandler,
    WritePlanner,
};
use crate::result::ToolResult;
use crate::tier::{ApprovalPolicy, Caller};
use crate::trust::WorkspaceTrust;

/// Every timeout and cap of a run, in one place. Each area has its own section.
///
/// Defaults are chosen for an interactive agent on a 2-core machine; a host overrides any field.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    /// Per-tool overrides of the call time budget, by tool name (e.g. `"ast_grep" → 60 s`).
    /// A tool without an entry uses its descriptor's `default_timeout`.
    pub tool_timeouts: HashMap<String, Duration>,
    /// `ask_user` and permission cards.
    pub ask: AskConfig,
    /// The runner's file tools (`read`, `write`, `edit`, `apply_patch`).
    pub files: FilesConfig,
    /// Language servers (`lsp`): server table overrides, start/indexing/diagnostics budgets, caps.
    pub lsp: crate::lsp::LspConfig,
    /// `debug`: session TTL (default 30 min), handshake and request timeouts, output ring.
    pub debug: crate::debug::DebugConfig,
    /// `eval` kernels: inactivity budget (default 5 min), output caps.
    pub kernel: crate::kernel::KernelConfig,
    /// Background workers (`vibe_*`): wait bounds, stop grace, caps.
    pub vibe: crate::vibe::VibeConfig,
    /// `ast_grep`, `ast_edit`, `resolve`.
    pub structural: crate::structural::StructuralConfig,
    /// Staged changes (`lsp_rename` / `lsp_code_action` with `preview`, `resolve`): preview
    /// hunks shown, changes kept pending.
    pub staged: crate::staged::StagedConfig,
}

/// Why a run could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// What went wrong, naming the input.
    pub message: String,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

/// Adds one host resource to the run's resources (see [`RunBuilder::resource`]).
type WireResource = Box<dyn FnOnce(&mut Resources) -> Result<(), &'static str> + Send>;

/// Builds a [`Run`]. Resources are optional; each tool registers only when its resource is
/// wired (R-REG-1). The runner's file tools (`read`, `write`, `edit`, `apply_patch`) are always
/// registered.
#[must_use]
pub struct RunBuilder {
    workspace: PathBuf,
    conversation_id: Option<String>,
    config: RunConfig,
    approval_policy: ApprovalPolicy,
    workspace_trust: WorkspaceTrust,
    confine_language_server_file_access: bool,
    ask: Option<(Arc<dyn AskPort>, String)>,
    guardrails: Vec<Arc<dyn Guardrail>>,
    pre_write_layers: Vec<Arc<dyn PreWriteLayer>>,
    post_write_layers: Vec<Arc<dyn PostWriteLayer>>,
    post_call_layers: Vec<Arc<dyn PostCallLayer>>,
    extra_tools: Vec<(ToolDescriptor, ToolHandler, Option<WritePlanner>)>,
    extra_resources: Vec<WireResource>,
    language_servers: bool,
    debug: Option<crate::debug::DebugSupervisor>,
    kernel_factory: Option<crate::kernel::KernelFactory>,
    sandbox: Option<crate::kernel::Sandbox>,
    vibe: Option<crate::vibe::VibeSetup>,
    structural: bool,
    events: crate::events::EventSink,
}

impl RunBuilder {
    /// Sets the conversation id (default: `conversation-<pid>-<n>`).
    pub fn conversation_id(mut self, id: impl Into<String>) -> RunBuilder {
        self.conversation_id = Some(id.into());
        self
    }

    /// Replaces the whole configuration.
    pub fn config(mut self, config: RunConfig) -> RunBuilder {
        self.config = config;
        self
    }

    /// Sets the approval policy (default: read allow, write ask, exec ask).
    pub fn approval_policy(mut self, policy: ApprovalPolicy) -> RunBuilder {
        self.approval_policy = policy;
        self
    }

    /// Sets the workspace trust level (default [`WorkspaceTrust::Trusted`]). Under
    /// [`WorkspaceTrust::Restricted`] no tool executes code the checkout provides: no
    /// project-local server, checker or adapter binary, rust-analyzer without build scripts, proc
    /// macros and `cargo check`, `cargo check` refused by `diagnostics "*"`, a project interpreter
    /// inside the workspace never started — see [`crate::trust`] and `crate::lsp::trust`. The
    /// level applies to every caller of the run (servers are shared); the CLI picks it per
    /// process with `--workspace-trust`, restricted by default for `plan` and `readonly`.
    pub fn workspace_trust(mut self, trust: WorkspaceTrust) -> RunBuilder {
        self.workspace_trust = trust;
        self
    }

    /// Confines the file access of every language server and project checker the run starts
    /// (`true`, the default, in both trust levels) or not (`false`). Confined (Linux Landlock),
    /// a server reads only beneath the workspace, the dependency roots the run knows (the
    /// project interpreter's prefix, toolchain homes and sysroots, module and package caches,
    /// its own install) and system hierarchies, and writes only beneath the workspace, the
    /// caches and a private temp dir: a symlink in the checkout that leads elsewhere — planted,
    /// or swapped in while the server runs — fails with EACCES in the server instead of being
    /// read and quoted (issue 13 §1; roots: [`crate::lsp::confinement`]). Best effort: where
    /// the kernel has no Landlock the servers start unconfined, `lsp` status and the run's
    /// first `lsp` answer say so. Debug adapters and `eval` kernels are never confined: they
    /// run the user's program. CLI: `--no-language-server-file-confinement` turns it off.
    pub fn confine_language_server_file_access(mut self, confine: bool) -> RunBuilder {
        self.confine_language_server_file_access = confine;
        self
    }

    /// Attaches a port to a human and the target space where its cards render (e.g. the
    /// conversation's channel). Both are needed for `ask_user` to register (R-ASK-4); the port
    /// also serves permission prompts.
    pub fn ask_port(mut self, port: Arc<dyn AskPort>, target_space: impl Into<String>) -> RunBuilder {
        self.ask = Some((port, target_space.into()));
        self
    }

    /// Adds a host guardrail (checked after schema validation, before approvals).
    pub fn guardrail(mut self, guardrail: Arc<dyn Guardrail>) -> RunBuilder {
        self.guardrails.push(guardrail);
        self
    }

    /// Adds a pre-write layer: it gets the absolute paths a call is about to write, before the
    /// write (see [`PreWriteLayer`]).
    pub fn pre_write_layer(mut self, layer: Arc<dyn PreWriteLayer>) -> RunBuilder {
        self.pre_write_layers.push(layer);
        self
    }

    /// Adds a post-write layer (e.g. diagnostics on write).
    pub fn post_write_layer(mut self, layer: Arc<dyn PostWriteLayer>) -> RunBuilder {
        self.post_write_layers.push(layer);
        self
    }

    /// Adds a post-call layer.
    pub fn post_call_layer(mut self, layer: Arc<dyn PostCallLayer>) -> RunBuilder {
        self.post_call_layers.push(layer);
        self
    }

    /// Wires the tree-sitter parser set (every grammar bundled by ast-grep-language) and a
    /// staged-edit store owned by the run: registers `ast_grep`, `ast_edit` and `resolve`
    /// (R-REG-1). Staged edits die with the run.
    pub fn with_structural(mut self) -> RunBuilder {
        self.structural = true;
        self
    }

    /// Turns vibe mode on: the run gets a roster of background workers run by `setup.backend`
    /// and registers `vibe_spawn`, `vibe_send`, `vibe_wait`, `vibe_kill`, `vibe_list` (R-VIBE-1).
    /// Dropping the run kills every worker. The CLI builds `setup` with
    /// [`crate::vibe::VibeSetup::from_cli_worker_flags`].
    pub fn vibe_roster(mut self, setup: crate::vibe::VibeSetup) -> RunBuilder {
        self.vibe = Some(setup);
        self
    }

    /// Sets (replaces) the hook called when a worker's attempt completes or fails, e.g. the
    /// `serve` host's notification sender. No effect unless [`RunBuilder::vibe_roster`] was
    /// called first. The hook must not own the run (hold a `Weak`, or a channel sender), or the
    /// run is never dropped.
    pub fn on_worker_event(mut self, callback: crate::vibe::WorkerEventCallback) -> RunBuilder {
        if let Some(setup) = self.vibe.as_mut() {
            setup.on_worker_event = Some(callback);
        }
        self
    }

    /// Sets (replaces) where the run's events go — a language server that crashed, restarted or
    /// backs off, a kernel that died, a tool that panicked, a call denied for lack of a human —
    /// for the host operator (see [`crate::events`]; `runbound serve` sends them as MCP log
    /// messages). The callback runs on whichever thread the event happens, must not block, and
    /// must not own the run (or the run is never dropped).
    pub fn on_event(mut self, callback: crate::events::EventCallback) -> RunBuilder {
        self.events = crate::events::EventSink::new(callback);
        self
    }

    /// Whether an ask port is attached already (e.g. the CLI attached a worker's channel to the
    /// parent run's human), so a host does not replace it with its own.
    pub fn has_ask_port(&self) -> bool {
        self.ask.is_some()
    }

    /// Whether vibe mode is on (a roster will be built), so a host knows whether to hook
    /// worker events.
    pub fn has_vibe_roster(&self) -> bool {
        self.vibe.is_some()
    }

    /// Wires the kernel factory: registers `eval` (R-REG-1). Kernels start on the first cell;
    /// dropping the run kills every kernel and shell child.
    pub fn kernel_factory(mut self, factory: crate::kernel::KernelFactory) -> RunBuilder {
        self.kernel_factory = Some(factory);
        self
    }

    /// Sets the conversation's sandbox (a host-supplied command prefix). Kernels start inside
    /// it; without one they run on the host (R-EVAL-6). runbound never creates a sandbox.
    pub fn sandbox(mut self, sandbox: crate::kernel::Sandbox) -> RunBuilder {
        self.sandbox = Some(sandbox);
        self
    }

    /// Wires a debug-session supervisor: registers `debug` (R-DBG-1; the run always has a
    /// workspace and a conversation id). One session per conversation; dropping the run
    /// terminates it (adapter and debuggee killed).
    pub fn debug_supervisor(mut self, supervisor: crate::debug::DebugSupervisor) -> RunBuilder {
        self.debug = Some(supervisor);
        self
    }

    /// Wires an LSP supervisor (configured by [`RunConfig::lsp`]): registers `lsp` (R-LSP-1) and
    /// `lsp_rename` (tier write), and adds diagnostics on write (R-DOW-1/2) for every tool that
    /// writes files.
    /// Servers start lazily per (server id, root) on first use; dropping the run stops them all
    /// (process groups killed and reaped, threads joined).
    pub fn language_servers(mut self) -> RunBuilder {
        self.language_servers = true;
        self
    }

    /// Wires a host-defined resource, which the host's tools reach with
    /// [`crate::CallContext::resource`]; it lives as long as the run and drops after the
    /// built-in ones. `build` fails when a resource of the same type is already wired.
    pub fn resource<T: Resource>(mut self, resource: Arc<T>) -> RunBuilder {
        self.extra_resources.push(Box::new(move |resources: &mut Resources| resources.insert(resource)));
        self
    }

    /// Registers a host-defined tool alongside the built-in ones.
    pub fn tool(mut self, descriptor: ToolDescriptor, handler: ToolHandler) -> RunBuilder {
        self.extra_tools.push((descriptor, handler, None));
        self
    }

    /// Registers a host-defined tool that writes files, with its declaration of the files a
    /// call will write ([`WritePlanner`]), so the pre-write layers (diagnostics on write's
    /// pre-write state) see them before it runs; it reports what it wrote in
    /// [`crate::ToolOutput::written_paths`] as any writing tool does. A tool that learns its
    /// paths only while it runs registers with [`RunBuilder::tool`] and calls
    /// [`crate::CallContext::before_write`] before it writes.
    pub fn writing_tool(mut self, descriptor: ToolDescriptor, handler: ToolHandler, planner: WritePlanner) -> RunBuilder {
        self.extra_tools.push((descriptor, handler, Some(planner)));
        self
    }

    /// Builds the run.
    ///
    /// # Errors
    /// When the workspace does not exist, is not a directory, or cannot be canonicalized.
    pub fn build(self) -> Result<Run, RunError> {
        let workspace_root = std::fs::canonicalize(&self.workspace).map_err(|err| RunError {
            message: format!("workspace {} cannot be opened: {err}; pass an existing directory", self.workspace.display()),
        })?;
        if !workspace_root.is_dir() {
            return Err(RunError { message: format!("workspace {} is not a directory", workspace_root.display()) });
        }
        static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);
        let conversation_id = self
            .conversation_id
            .unwrap_or_else(|| format!("conversation-{}-{}", std::process::id(), RUN_COUNTER.fetch_add(1, Ordering::Relaxed) + 1));
        let mut registry = Registry::new(workspace_root.clone(), conversation_id);
        registry.set_approval_policy(self.approval_policy);
        registry.set_workspace_trust(self.workspace_trust);
        registry.set_event_sink(self.events.clone());
        registry.set_tool_timeouts(self.config.tool_timeouts.clone());
        crate::files::register_tools(&mut registry, &self.config.files);
        // Resources are wired in drop order: workers first (they may use every other resource
        // through the run), then kernels, debug sessions, language servers, the ask port, the
        // staged edits, and last the host's own resources.
        // The ask port and the staged-change store are made first so the roster can reach them
        // (cards relayed from inside workers; what isolated workers changed), and wired in
        // their places below. A vibe run gets the store (and `resolve`) even without a staging
        // tool: isolated workers' changes come back through it.
        let ask_binding = self.ask.map(|(port, target_space)| Arc::new(AskBinding::new(port, target_space, self.config.ask.clone())));
        let staged = (self.language_servers || self.structural || self.vibe.is_some())
            .then(|| Arc::new(crate::staged::StagedResource::new(self.config.staged.clone())));
        if let Some(mut setup) = self.vibe {
            if self.events.is_attached() {
                // A worker that failed or was lost is an operator event too (the worker's own
                // thread reports it, outside any call).
                let events = self.events.clone();
                let previous = setup.on_worker_event.take();
                setup.on_worker_event = Some(Arc::new(move |event: &crate::vibe::WorkerEvent| {
                    if matches!(event.status, crate::vibe::WorkerStatus::Failed | crate::vibe::WorkerStatus::Lost) {
                        events.emit(
                            crate::events::RunEvent::new(crate::events::EventLevel::Warning, "vibe", event.message())
                                .with_data(event.to_json()),
                        );
                    }
                    if let Some(previous) = &previous {
                        previous(event);
                    }
                }));
            }
            let links =
                crate::vibe::RosterLinks { ask: ask_binding.clone(), staging: staged.clone(), workspace_trust: self.workspace_trust };
            let roster = crate::vibe::Roster::with_links(setup, &self.config.vibe, &workspace_root, links);
            crate::vibe::register_tools(&mut registry, &roster);
            wire(&mut registry, Arc::new(roster))?;
        }
        if let Some(factory) = self.kernel_factory {
            // A restricted run starts no interpreter the checkout provides (issue 13 §2).
            let factory = factory.workspace_trust(self.workspace_trust);
            let kernels = crate::kernel::Kernels::new(factory, self.sandbox.clone(), self.config.kernel.clone(), &workspace_root);
            crate::kernel::register_tools(&mut registry);
            wire(&mut registry, Arc::new(kernels))?;
        }
        if let Some(supervisor) = self.debug {
            crate::debug::register_tools(&mut registry);
            wire(&mut registry, Arc::new(supervisor.with_config(self.config.debug.clone())))?;
        }
        if self.language_servers {
            let supervisor = crate::lsp::LspSupervisor::new(&workspace_root, self.config.lsp.clone())
                .with_workspace_trust(self.workspace_trust)
                .with_file_access_confinement(self.confine_language_server_file_access);
            // Servers' workspace/applyEdit goes through the same atomic applier as lsp_rename.
            supervisor.set_workspace_edit_applier(Arc::new(crate::lsp::rename::AtomicWorkspaceEditApplier::new(&workspace_root)));
            crate::lsp::register_tools(&mut registry);
            let supervisor = Arc::new(supervisor);
            // A staged change's files get their pre-write diagnostics taken ahead of `resolve`
            // (trial27a M2). Weak: the store outlives the servers in the drop order.
            if let Some(staged) = &staged {
                let servers = Arc::downgrade(&supervisor);
                staged.observe_staging(Arc::new(move |paths: &[std::path::PathBuf]| {
                    if let Some(supervisor) = servers.upgrade() {
                        crate::lsp::prefetch_states::prefetch_pre_write_states(&supervisor, paths);
                    }
                }));
            }
            wire(&mut registry, supervisor)?;
        }
        if let Some(binding) = ask_binding {
            crate::ask::register_tools(&mut registry);
            registry.set_permission_prompt(binding.clone());
            wire(&mut registry, binding)?;
        }
        if self.structural {
            crate::structural::register_tools(&mut registry);
            wire(&mut registry, Arc::new(crate::structural::StructuralResource::new(self.config.structural.clone())))?;
        }
        if let Some(staged) = staged {
            crate::staged::register_tools(&mut registry);
            wire(&mut registry, staged)?;
        }
        for add in self.extra_resources {
            add(registry.resources_mut()).map_err(|name| RunError { message: format!("resource {name} is wired twice; wire it once") })?;
        }
        for (descriptor, handler, planner) in self.extra_tools {
            match planner {
                Some(planner) => registry.register_writing(descriptor, handler, planner),
                None => registry.register(descriptor, handler),
            }
        }
        for guardrail in self.guardrails {
            registry.add_guardrail(guardrail);
        }
        for layer in self.pre_write_layers {
            registry.add_pre_write_layer(layer);
        }
        for layer in self.post_write_layers {
            registry.add_post_write_layer(layer);
        }
        for layer in self.post_call_layers {
            registry.add_post_call_layer(layer);
        }
        Ok(Run { registry, config: self.config })
    }
}

/// Adds one of the run's own resources; a second of the same type is a programming error
/// reported as a build error.
fn wire<T: Resource>(registry: &mut Registry, resource: Arc<T>) -> Result<(), RunError> {
    registry.resources_mut().insert(resource).map_err(|name| RunError { message: format!("resource {name} is wired twice") })
}

/// One run: the workspace, its tools and the live resources behind them.
///
/// `Run` is `Send + Sync`: a host may call tools from several threads at once (tools that are
/// not parallel-safe are serialized by the registry). Dropping it stops every resource: child
/// processes are killed and reaped, threads joined.
pub struct Run {
    // The registry owns the resources and drops them first, in wiring order (see build).
    registry: Registry,
    config: RunConfig,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("workspace_root", &self.registry.workspace_root())
            .field("conversation_id", &self.registry.conversation_id())
            .field("resources", self.registry.resources())
            .field("registry", &self.registry)
            .finish_non_exhaustive()
    }
}

impl Run {
    /// Starts building a run over `workspace` (made absolute and canonical at `build`).
    pub fn builder(workspace: impl AsRef<Path>) -> RunBuilder {
        RunBuilder {
            workspace: workspace.as_ref().to_path_buf(),
            conversation_id: None,
            config: RunConfig::default(),
            approval_policy: ApprovalPolicy::default(),
            workspace_trust: WorkspaceTrust::default(),
            confine_language_server_file_access: true,
            ask: None,
            guardrails: Vec::new(),
            pre_write_layers: Vec::new(),
            post_write_layers: Vec::new(),
            post_call_layers: Vec::new(),
            extra_tools: Vec::new(),
            extra_resources: Vec::new(),
            language_servers: false,
            debug: None,
            kernel_factory: None,
            sandbox: None,
            vibe: None,
            structural: false,
            events: crate::events::EventSink::none(),
        }
    }

    /// The absolute, canonical workspace root.
    pub fn workspace_root(&self) -> &Path {
        self.registry.workspace_root()
    }

    /// The conversation id this run belongs to.
    pub fn conversation_id(&self) -> &str {
        self.registry.conversation_id()
    }

    /// The run's configuration.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The run's workspace trust level (see [`RunBuilder::workspace_trust`]).
    pub fn workspace_trust(&self) -> WorkspaceTrust {
        self.registry.workspace_trust()
    }

    /// The run's approval policy.
    pub fn approval_policy(&self) -> ApprovalPolicy {
        self.registry.approval_policy()
    }

    /// The registry (descriptors; dispatch goes through [`Run::call`]).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The `eval` kernels, when a kernel factory is wired.
    pub fn kernels(&self) -> Option<&crate::kernel::Kernels> {
        self.registry.resource::<crate::kernel::Kernels>()
    }

    /// The debug-session supervisor, when wired (see [`RunBuilder::debug_supervisor`]).
    pub fn debug_supervisor(&self) -> Option<&crate::debug::DebugSupervisor> {
        self.registry.resource::<crate::debug::DebugSupervisor>()
    }

    /// The LSP supervisor, when wired (see [`RunBuilder::language_servers`]).
    pub fn lsp_supervisor(&self) -> Option<&crate::lsp::LspSupervisor> {
        self.registry.resource::<crate::lsp::LspSupervisor>()
    }

    /// The attached ask port and target space, if any.
    pub fn ask_binding(&self) -> Option<&AskBinding> {
        self.registry.resource::<AskBinding>()
    }

    /// The structural resource (staged edits), when the run was built `with_structural()`.
    pub fn structural(&self) -> Option<&crate::structural::StructuralResource> {
        self.registry.resource::<crate::structural::StructuralResource>()
    }

    /// The roster of background workers, when vibe mode is on.
    pub fn vibe_roster(&self) -> Option<&crate::vibe::Roster> {
        self.registry.resource::<crate::vibe::Roster>()
    }

    /// Descriptors visible to `caller` (R-TIER-2), sorted by name.
    pub fn tools(&self, caller: Caller) -> Vec<&ToolDescriptor> {
        self.registry.tools(caller)
    }

    /// Descriptors visible to `caller` as an MCP `tools/list` array.
    pub fn tools_json(&self, caller: Caller) -> Value {
        Value::Array(self.tools(caller).iter().map(|d| d.to_mcp_json()).collect())
    }

    /// Calls `name` with `arguments` as `caller`, through the whole pipeline (see
    /// [`crate::registry`]). Never panics; every failure is a result with `isError: true`.
    pub fn call(&self, caller: Caller, name: &str, arguments: Value) -> ToolResult {
        self.call_with(name, arguments, &CallOptions::new(caller))
    }

    /// Like [`Run::call`] with explicit options (timeout, cancel token, origin).
    pub fn call_with(&self, name: &str, arguments: Value, options: &CallOptions) -> ToolResult {
        self.registry.dispatch(name, arguments, options)
    }

    /// The run's resource of type `T` (built in, or added with [`RunBuilder::resource`]), if
    /// wired.
    pub fn resource<T: Resource>(&self) -> Option<&T> {
        self.registry.resource::<T>()
    }
}
