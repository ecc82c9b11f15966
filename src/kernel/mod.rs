//! `eval`: persistent Python and JavaScript kernels bound to one run (SPEC R-EVAL-1..6).
//!
//! A cell's variables, imports and loaded data persist across calls of the same run and
//! language. Python runs in a spawned CPython ("the full notebook experience": the project's
//! `.venv/bin/python` or `venv/bin/python` first, then `python3` on PATH) driven by an embedded
//! driver script (`driver.py`); JavaScript runs in a spawned Node with `driver.js` (one
//! persistent `vm` context). Each kernel is one child process in its own process group with a
//! named reader thread pumping its JSON-lines messages over a crossbeam channel
//! (`session.rs`); the handler thread is the host's watchdog (the kernel never times itself).
//!
//! What a cell gets: streamed stdout/stderr, `display()`, IPython's `last_expr` echo (a
//! trailing `;` suppresses it, `_` is set), tracebacks pointing into `<cell-N>`, pandas tables
//! with shape and "showing N of M rows", matplotlib figures as PNG images, the magics `%pip`,
//! `%cd`, `%pwd`, `%env`, `%timeit`, `%%timeit`, `%%bash`, `%%writefile`, `!cmd`, `x = !cmd`, and
//! `tool(name, args)`: the bridge back into the run's registry as the caller of the eval, with
//! every layer (tier, guardrails, approvals, post-write).
//!
//! Timeout (R-EVAL-5): an inactivity budget ([`KernelConfig::inactivity_budget`], default
//! 5 min) reset by any output and paused while a bridge call (and any permission card inside
//! it) is outstanding. When it runs out the kernel is interrupted (SIGINT), then its process
//! group and every shell child are killed, and the result says the state was lost; the next call
//! starts a new generation. A call the host cancels, or one that reaches its own time budget, is
//! interrupted the same way, but like a notebook's interrupt: when the cell ends within
//! [`KernelConfig::interrupt_grace`] the kernel is kept with its state (only its shell children
//! are killed); otherwise it is killed and restarted as above.
//!
//! Sandbox (R-EVAL-6): when the run carries a [`Sandbox`] (a host-supplied command prefix such
//! as a `bwrap …` invocation), the kernel is started through it; the kernel never starts a
//! sandbox itself.
//!
//! Python can also run embedded: RustPython 0.5.0 inside the host process on its own owner
//! thread (cargo feature `embedded-python`, on by default; `embedded.rs`). It needs nothing
//! installed and starts fast, but has only RustPython's bundled standard library: no `%pip`, no C
//! extensions (numpy, pandas, matplotlib), no shell commands, no `%cd`; cells that try get an
//! `EmbeddedKernelUnsupported` error saying so and how to switch. Selection
//! ([`KernelSelection`]): `auto` takes CPython when one resolves, else the embedded interpreter;
//! [`kernel_status`] says which is active and why; every result names the backend and the
//! kernel generation.

#[cfg(feature = "embedded-python")]
mod embedded;
mod session;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::registry::{CallContext, CallOrigin, Registry, ToolDescriptor, ToolOutput};
use crate::result::{Content, ToolResult};
use crate::tier::Tier;

use session::{KernelEvent, KernelLaunch, LiveKernel};

/// The CPython driver script, started as `python -u -X utf8 -c <source>`: the helpers shared
/// with the embedded driver (`driver_common.py`) followed by `driver.py`.
const PYTHON_DRIVER: &str = concat!(include_str!("driver_common.py"), include_str!("driver.py"));
/// The Node driver script, started as `node --expose-internals -e <source>`.
const JAVASCRIPT_DRIVER: &str = include_str!("driver.js");

/// Timeouts and caps of `eval` (a section of [`crate::RunConfig`]).
#[derive(Debug, Clone)]
pub struct KernelConfig {
    /// Inactivity budget of a cell: reset by any output, paused during bridge calls; when it
    /// runs out the kernel is interrupted, killed and restarted (default 5 min, R-EVAL-5).
    pub inactivity_budget: Duration,
    /// After an interrupt, how long to collect the traceback before the kill (default 1 s).
    pub interrupt_grace: Duration,
    /// How long a kernel may take to start and report ready (default 30 s).
    pub startup_timeout: Duration,
    /// Byte cap of a cell's stdout+stderr text; head and tail are kept with a marker
    /// (default 64 KiB).
    pub max_cell_output_bytes: usize,
    /// Byte cap of one displayed or echoed item's text (default 16 KiB).
    pub max_item_bytes: usize,
    /// Most images (figures) per cell (default 4); more are closed and counted.
    pub max_images: usize,
    /// Byte cap of one PNG (default 1 MiB); a larger figure is re-rendered at half the dpi,
    /// then omitted with a note.
    pub max_image_bytes: usize,
    /// Most DataFrame rows rendered (default 30); the table says "showing N of M rows".
    pub dataframe_max_rows: usize,
}

impl Default for KernelConfig {
    fn default() -> Self {
        KernelConfig {
            inactivity_budget: Duration::from_secs(300),
            interrupt_grace: Duration::from_secs(1),
            startup_timeout: Duration::from_secs(30),
            max_cell_output_bytes: 64 * 1024,
            max_item_bytes: 16 * 1024,
            max_images: 4,
            max_image_bytes: 1024 * 1024,
            dataframe_max_rows: 30,
        }
    }
}

/// Which Python backend a run uses (CLI: global `--kernel auto|cpython|embedded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelSelection {
    /// CPython when one resolves (project `.venv`/`venv`, then `python3` on PATH), else the
    /// embedded interpreter when this build has it (cargo feature `embedded-python`).
    #[default]
    Auto,
    /// Spawned CPython only; an error when none resolves.
    Cpython,
    /// Embedded RustPython only (cargo feature `embedded-python`, on by default; in a build
    /// without it every Python cell fails with an error that says so). Refused when the run has
    /// a sandbox: an in-process interpreter cannot run inside it (R-EVAL-6).
    Embedded,
}

impl KernelSelection {
    /// Parses `auto`, `cpython` or `embedded` (case-insensitive).
    pub fn parse(text: &str) -> Option<KernelSelection> {
        match text.to_ascii_lowercase().as_str() {
            "auto" => Some(KernelSelection::Auto),
            "cpython" | "python" => Some(KernelSelection::Cpython),
            "embedded" | "rustpython" => Some(KernelSelection::Embedded),
            _ => None,
        }
    }

    /// The wire name: `auto`, `cpython` or `embedded`.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelSelection::Auto => "auto",
            KernelSelection::Cpython => "cpython",
            KernelSelection::Embedded => "embedded",
        }
    }
}

/// A host-supplied sandbox: kernels are started as `command_prefix… <interpreter> <args…>`
/// (e.g. `["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
/// "--die-with-parent", "--"]`). The prefix must pass stdin/stdout/stderr through. runbound never
/// creates a sandbox; without one, kernels run on the host (R-EVAL-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Program and arguments placed before the interpreter's command line. Must not be empty.
    pub command_prefix: Vec<OsString>,
    /// One line naming the sandbox for results and status (e.g. `"bubblewrap, read-only root"`).
    pub description: String,
}

/// The kernel resource of a run (R-REG-1: `eval` registers only when one is wired). Build with
/// [`KernelFactory::new`] and pass it to [`crate::RunBuilder::kernel_factory`].
#[derive(Debug, Clone, Default)]
pub struct KernelFactory {
    selection: KernelSelection,
    python_executable: Option<PathBuf>,
    node_executable: Option<PathBuf>,
    search_path: Option<OsString>,
}

/// The Python backend that serves a workspace (see [`KernelFactory::resolve_python`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PythonBackend {
    /// A spawned CPython: this executable.
    Cpython(PathBuf),
    /// The embedded RustPython interpreter, in the host process.
    Embedded,
}

impl PythonBackend {
    /// `cpython` or `embedded`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PythonBackend::Cpython(_) => "cpython",
            PythonBackend::Embedded => "embedded",
        }
    }
}

/// Whether this build contains the embedded RustPython backend (cargo feature `embedded-python`).
pub const EMBEDDED_PYTHON_BUILT: bool = cfg!(feature = "embedded-python");

impl KernelFactory {
    /// A factory with [`KernelSelection::Auto`] and interpreters found at call time.
    pub fn new() -> KernelFactory {
        KernelFactory::default()
    }

    /// Sets the Python backend selection.
    #[must_use]
    pub fn selection(mut self, selection: KernelSelection) -> KernelFactory {
        self.selection = selection;
        self
    }

    /// Uses this CPython executable instead of resolving one.
    #[must_use]
    pub fn python_executable(mut self, path: impl Into<PathBuf>) -> KernelFactory {
        self.python_executable = Some(path.into());
        self
    }

    /// Uses this Node executable instead of `node` on PATH.
    #[must_use]
    pub fn node_executable(mut self, path: impl Into<PathBuf>) -> KernelFactory {
        self.node_executable = Some(path.into());
        self
    }

    /// Looks interpreters up on this PATH-style list instead of the process's `PATH`.
    #[must_use]
    pub fn search_path(mut self, path: impl Into<OsString>) -> KernelFactory {
        self.search_path = Some(path.into());
        self
    }

    /// The configured selection.
    pub fn selected(&self) -> KernelSelection {
        self.selection
    }

    /// Which Python backend serves `workspace` and why: `Ok((backend, reason))`, or
    /// `Err(reason)` when none can. CPython candidates in order: the host-configured executable,
    /// `<workspace>/.venv/bin/python`, `<workspace>/venv/bin/python`, `python3` then `python` on
    /// PATH. `auto` falls back to [`PythonBackend::Embedded`] when none resolves (and this build
    /// has it). Does not consider a sandbox; [`Kernels::resolve_python`] does.
    pub fn resolve_python(&self, workspace: &Path) -> Result<(PythonBackend, String), String> {
        if self.selection == KernelSelection::Embedded {
            if !EMBEDDED_PYTHON_BUILT {
                return Err("--kernel embedded was selected, but this build has no embedded RustPython backend \
                     (it was compiled without the cargo feature embedded-python); select cpython or auto"
                    .to_owned());
            }
            return Ok((PythonBackend::Embedded, "--kernel embedded was selected".to_owned()));
        }
        if let Some(path) = &self.python_executable {
            return Ok((PythonBackend::Cpython(path.clone()), format!("the host configured {}", path.display())));
        }
        for venv in [".venv", "venv"] {
            let candidate = workspace.join(venv).join("bin").join("python");
            if candidate.is_file() {
                return Ok((PythonBackend::Cpython(candidate), format!("the project's {venv}/bin/python")));
            }
        }
        for name in ["python3", "python"] {
            if let Some(path) = self.find_on_path(name, workspace) {
                return Ok((
                    PythonBackend::Cpython(path),
                    format!("{name} on PATH (no .venv/bin/python or venv/bin/python in the workspace)"),
                ));
            }
        }
        let tried = ".venv/bin/python, venv/bin/python, python3 and python on PATH were tried";
        match self.selection {
            KernelSelection::Auto if EMBEDDED_PYTHON_BUILT => {
                Ok((PythonBackend::Embedded, format!("auto: no CPython found ({tried}), so the embedded RustPython interpreter")))
            }
            KernelSelection::Auto => Err(format!("no CPython found ({tried}) and this build has no embedded RustPython backend")),
            _ => Err(format!("no CPython found ({tried}) and --kernel cpython was selected")),
        }
    }

    fn find_on_path(&self, name: &str, workspace: &Path) -> Option<PathBuf> {
        match &self.search_path {
            Some(path) => which::which_in(name, Some(path), workspace).ok(),
            None => which::which(name).ok(),
        }
    }

    /// The Node executable, or why there is none.
    pub fn resolve_node(&self) -> Result<PathBuf, String> {
        if let Some(path) = &self.node_executable {
            return Ok(path.clone());
        }
        let found = match &self.search_path {
            Some(path) => which::which_in("node", Some(path), "/"),
            None => which::which("node"),
        };
        found.map_err(|_| "node was not found on PATH; install Node.js (v18 or newer)".to_owned())
    }
}

/// A cell language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// Python (CPython).
    Python,
    /// JavaScript (Node).
    Javascript,
}

impl Language {
    /// `python` or `javascript`.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Javascript => "javascript",
        }
    }

    fn index(self) -> usize {
        match self {
            Language::Python => 0,
            Language::Javascript => 1,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The live kernels of one run. Dropping it kills every kernel and shell child.
pub struct Kernels {
    factory: KernelFactory,
    sandbox: Option<Sandbox>,
    /// The run's `kernel` section, handed over when the run is built.
    config: KernelConfig,
    /// The run's workspace root (absolute, canonical): kernels start there.
    workspace_root: PathBuf,
    state: Mutex<KernelsState>,
}

#[derive(Default)]
struct KernelsState {
    live: [Option<LiveKernel>; 2],
    generations: [u64; 2],
    cells: [u64; 2],
    last_loss: [Option<String>; 2],
}

impl fmt::Debug for Kernels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernels").field("factory", &self.factory).field("sandbox", &self.sandbox).finish_non_exhaustive()
    }
}

impl Kernels {
    /// The kernels resource for a run over `workspace_root` (absolute, canonical) with the
    /// run's `kernel` section (nothing starts until the first cell).
    pub fn new(factory: KernelFactory, sandbox: Option<Sandbox>, config: KernelConfig, workspace_root: &Path) -> Kernels {
        Kernels { factory, sandbox, config, workspace_root: workspace_root.to_path_buf(), state: Mutex::new(KernelsState::default()) }
    }

    /// The timeouts and caps kernels run with.
    pub fn config(&self) -> &KernelConfig {
        &self.config
    }

    /// The factory.
    pub fn factory(&self) -> &KernelFactory {
        &self.factory
    }

    /// The sandbox kernels start in, if any.
    pub fn sandbox(&self) -> Option<&Sandbox> {
        self.sandbox.as_ref()
    }

    /// [`KernelFactory::resolve_python`] plus the sandbox rule: with a sandbox, the embedded
    /// interpreter (which lives in the host process) is refused (R-EVAL-6).
    pub fn resolve_python(&self, workspace: &Path) -> Result<(PythonBackend, String), String> {
        let (backend, why) = self.factory.resolve_python(workspace)?;
        if backend == PythonBackend::Embedded {
            if let Some(sandbox) = &self.sandbox {
                return Err(format!(
                    "{why}; but this run has a sandbox ({}) and the embedded RustPython interpreter runs inside the host process, \
                     not in the sandbox: make a CPython resolvable inside the sandbox (python3 on PATH or a project .venv) and select cpython or auto",
                    sandbox.description
                ));
            }
        }
        Ok((backend, why))
    }

    /// Kills every live kernel (and its shell children) now.
    pub fn shutdown(&self) {
        let mut state = self.state.lock();
        for slot in state.live.iter_mut() {
            if let Some(mut kernel) = slot.take() {
                kernel.kill();
            }
        }
    }

    /// Process ids of the live spawned kernels (for tests and status; the embedded kernel has
    /// no process of its own and is not listed).
    pub fn live_pids(&self) -> Vec<u32> {
        match self.state.try_lock_for(Duration::from_millis(200)) {
            Some(state) => state.live.iter().flatten().filter(|kernel| !kernel.is_embedded()).map(|kernel| kernel.identity.pid).collect(),
            None => Vec::new(),
        }
    }
}

impl crate::registry::Resource for Kernels {
    const NAME: &'static str = "kernel factory";
    const WIRED_BY: &'static str = "RunBuilder::kernel_factory(KernelFactory::new())";
}

impl Drop for Kernels {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The kernel section of `runbound status`: which Python backend is active and why, which
/// kernels run (backend, version, pid, generation, cells, uptime), the sandbox, the budget.
/// Never blocks longer than 200 ms (a running cell holds the kernels lock: then it says so).
/// `kernels` is the run's kernels resource (`Run::kernels`), `None` when no factory is wired.
pub fn kernel_status(kernels: Option<&Kernels>) -> String {
    let Some(kernels) = kernels else {
        return "eval: no kernel factory is wired in this run (eval is not registered)".to_owned();
    };
    let mut lines = Vec::new();
    let workspace = kernels.workspace_root.as_path();
    lines.push(format!("eval: kernel selection {}", kernels.factory.selection.as_str()));
    match kernels.resolve_python(workspace) {
        Ok((PythonBackend::Cpython(path), why)) => lines.push(format!(
            "  python: cpython {} — chosen because: {why}",
            path.display()
        )),
        Ok((PythonBackend::Embedded, why)) => lines.push(format!(
            "  python: embedded RustPython 0.5.0 (in the host process; standard library only: no %pip, C extensions or shell commands) — chosen because: {why}"
        )),
        Err(why) => lines.push(format!("  python: unavailable — {why}")),
    }
    match kernels.factory.resolve_node() {
        Ok(path) => lines.push(format!("  javascript: node {}", path.display())),
        Err(why) => lines.push(format!("  javascript: unavailable — {why}")),
    }
    match &kernels.sandbox {
        Some(sandbox) => lines.push(format!("  sandbox: {} (kernels start inside it)", sandbox.description)),
        None => lines.push("  sandbox: none (kernels run on the host)".to_owned()),
    }
    lines.push(format!("  inactivity budget: {} s", kernels.config.inactivity_budget.as_secs()));
    match kernels.state.try_lock_for(Duration::from_millis(200)) {
        Some(state) => {
            for language in [Language::Python, Language::Javascript] {
                match &state.live[language.index()] {
                    Some(kernel) => lines.push(format!(
                        "  {language} kernel: running — {} {} {}, generation {}, {} cells, up {} s",
                        kernel.identity.backend,
                        kernel.identity.version,
                        if kernel.is_embedded() {
                            format!("in-process thread rb-rustpy-g{}", kernel.generation)
                        } else {
                            format!("pid {}", kernel.identity.pid)
                        },
                        kernel.generation,
                        kernel.cells_run,
                        kernel.started_at.elapsed().as_secs()
                    )),
                    None => lines.push(format!(
                        "  {language} kernel: not running{}",
                        state.last_loss[language.index()].as_deref().map(|loss| format!(" (last: {loss})")).unwrap_or_default()
                    )),
                }
            }
        }
        None => lines.push("  kernels: busy running a cell".to_owned()),
    }
    lines.join("\n")
}

pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(
        ToolDescriptor {
            name: "eval".to_owned(),
            description: "Run a Python (default) or JavaScript cell in a persistent kernel of this run: variables, imports \
                and loaded data persist across calls (like a notebook). The last bare expression is echoed (a trailing `;` \
                suppresses it; `_` holds it). `display(x)` shows values; pandas DataFrames render as tables; matplotlib \
                figures come back as PNG images. Python magics: %pip install …, %cd, %pwd, %env, %timeit, %%timeit, %%bash, \
                %%writefile, !cmd, x = !cmd. Inside a cell, `tool(name, args)` calls this run's other tools as you, with the \
                same approvals (returns the structured content as a dict with the result's text under \"text\", or the \
                text alone; raises on error); in JavaScript `tool()` and \
                `await tool()` both work. A cell with no output for the inactivity budget (default 5 min; time inside \
                tool() calls does not count) is interrupted and the kernel restarted, losing its state; a cancelled call, or one \
                past its time budget, is interrupted like a notebook cell: the kernel keeps its state when the interrupt \
                stops the cell (else it is restarted; the result says which). `reset: true` \
                discards the kernel first. Every result names the backend and the kernel generation."
                .to_owned(),
            tier: Tier::Exec,
            input_schema: json!({
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "The cell's source. May be empty with reset=true."},
                    "description": {"type": "string", "description": "What the cell does, 5–10 words; labels the cell in the transcript."},
                    "language": {"type": "string", "enum": ["python", "javascript"], "description": "Default python."},
                    "reset": {"type": "boolean", "description": "Discard this language's kernel (all its state) before running the cell."}
                },
                "required": ["code", "description"],
                "additionalProperties": false
            }),
            parallel_safe: false,
            // The inactivity budget governs cells; this wall-clock backstop only bounds the call.
            default_timeout: Duration::from_secs(24 * 3600),
        },
        Arc::new(eval),
    );
}

#[derive(Deserialize)]
struct EvalArguments {
    code: String,
    description: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    reset: bool,
}

fn eval(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: EvalArguments = ctx.parse_arguments(arguments)?;
    let kernels = ctx.resource::<Kernels>()?;
    let workspace_root = ctx.workspace_root();
    let description = arguments.description.trim();
    let word_count = description.split_whitespace().count();
    if !(5..=10).contains(&word_count) {
        return Err(ToolError::invalid(format!("description must be 5–10 words, got {word_count}: {description:?}"))
            .with_hint("describe what the cell does in 5–10 words, e.g. \"load sales CSV and summarize columns\""));
    }
    let language = match arguments.language.as_deref() {
        None | Some("python") => Language::Python,
        Some("javascript") => Language::Javascript,
        Some(other) => return Err(ToolError::invalid(format!("unknown language {other:?}")).with_hint("use python or javascript")),
    };
    if matches!(ctx.origin(), CallOrigin::Bridge { via } if via == "eval") {
        return Err(eval_in_eval_error());
    }
    let config = &kernels.config;
    let mut state = kernels.state.lock();
    let slot = language.index();
    let mut notes = Vec::new();
    if arguments.reset {
        notes.push(reset_kernel(&mut state, language));
    }
    if arguments.code.trim().is_empty() {
        if arguments.reset {
            return Ok(ToolOutput::new(
                ToolResult::text(notes.join("\n")).with_structured(json!({"language": language.as_str(), "reset": true})),
            ));
        }
        return Err(ToolError::invalid("code is empty").with_hint("pass the cell's source in `code` (or reset=true to only reset)"));
    }
    if state.live[slot].is_none() {
        let mut embedded_reason = String::new();
        let (interpreter, driver_source) = match language {
            Language::Python => {
                let (backend, why) = kernels.resolve_python(workspace_root).map_err(|why| {
                    ToolError::new(ErrorKind::Unavailable, format!("no Python kernel can start: {why}"))
                        .with_hint("install python3 or create .venv in the workspace, or use language=javascript")
                })?;
                match backend {
                    PythonBackend::Cpython(path) => (path, PYTHON_DRIVER),
                    PythonBackend::Embedded => {
                        embedded_reason = why;
                        (PathBuf::new(), "")
                    }
                }
            }
            Language::Javascript => {
                let path = kernels
                    .factory
                    .resolve_node()
                    .map_err(|why| ToolError::new(ErrorKind::Unavailable, format!("no JavaScript kernel can start: {why}")))?;
                (path, JAVASCRIPT_DRIVER)
            }
        };
        state.generations[slot] += 1;
        let generation = state.generations[slot];
        let kernel = if driver_source.is_empty() {
            start_embedded(workspace_root, generation, config.startup_timeout)?
        } else {
            LiveKernel::start(&KernelLaunch {
                language,
                interpreter: &interpreter,
                driver_source,
                cwd: workspace_root,
                sandbox: kernels.sandbox.as_ref(),
                generation,
                startup_timeout: config.startup_timeout,
            })?
        };
        if kernel.is_embedded() {
            notes.push(embedded_kernel_note(workspace_root, &embedded_reason));
        }
        if generation > 1 && !arguments.reset {
            if let Some(loss) = state.last_loss[slot].take() {
                notes.push(format!("note: started a fresh {language} kernel (generation {generation}) after: {loss}"));
            }
        }
        state.live[slot] = Some(kernel);
    }
    state.cells[slot] += 1;
    let cell_number = state.cells[slot];
    let Some(kernel) = state.live[slot].as_mut() else {
        return Err(ToolError::failed("the kernel slot is empty after start"));
    };
    kernel.cells_run += 1;
    let outcome = run_cell(ctx, kernel, config, cell_number, &arguments.code);
    let header = format!(
        "[eval cell {cell_number} · {language} · {} {} · kernel generation {}{}] {description}",
        kernel.identity.backend,
        kernel.identity.version,
        kernel.generation,
        if kernel.identity.sandboxed { " · sandboxed" } else { "" },
    );
    let identity = kernel.identity.clone();
    let generation = kernel.generation;
    if let Some(loss) = &outcome.state_lost {
        if let Some(mut dead) = state.live[slot].take() {
            dead.kill();
        }
        state.last_loss[slot] = Some(loss.clone());
    }
    let mut result = render_result(&header, &notes, &outcome);
    result.structured_content = Some(json!({
        "cell": cell_number,
        "description": description,
        "language": language.as_str(),
        "backend": identity.backend,
        "version": identity.version,
        "generation": generation,
        "sandboxed": identity.sandboxed,
        "executable": identity.executable.display().to_string(),
        "status": outcome.status.as_str(),
        "state_lost": outcome.state_lost.is_some(),
        "elapsed_ms": outcome.elapsed.as_millis() as u64,
        "bridge_calls": outcome.bridge_calls,
        "images": outcome.items.iter().filter(|item| matches!(item, OutputItem::Image { .. })).count(),
        "omitted_output_bytes": outcome.omitted_bytes,
    }));
    Ok(ToolOutput::new(result))
}

#[cfg(feature = "embedded-python")]
fn start_embedded(workspace: &Path, generation: u64, startup_timeout: Duration) -> Result<LiveKernel, ToolError> {
    LiveKernel::start_embedded(workspace, generation, startup_timeout)
}

#[cfg(not(feature = "embedded-python"))]
fn start_embedded(_workspace: &Path, _generation: u64, _startup_timeout: Duration) -> Result<LiveKernel, ToolError> {
    Err(ToolError::new(ErrorKind::Unavailable, "this build has no embedded RustPython backend (cargo feature embedded-python is off)")
        .with_hint("select the cpython kernel, or rebuild runbound with default features"))
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

fn eval_in_eval_error() -> ToolError {
    ToolError::new(ErrorKind::InvalidArguments, "eval cannot be called from inside an eval cell (the kernel is busy running that cell)")
        .with_hint("run the code directly in the current cell instead of calling tool(\"eval\", …)")
}

fn reset_kernel(state: &mut KernelsState, language: Language) -> String {
    let slot = language.index();
    let Some(mut kernel) = state.live[slot].take() else {
        state.last_loss[slot] = None;
        return format!("reset: no {language} kernel was running; starting fresh");
    };
    let mut inventory = None;
    if kernel.send(&json!({"type": "inventory"})).is_ok() {
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Ok(event) = kernel.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if let KernelEvent::Message(message) = event {
                if message["type"] == "inventory" {
                    inventory = Some(message);
                    break;
                }
            }
        }
    }
    let generation = kernel.generation;
    kernel.kill();
    state.last_loss[slot] = None;
    let lost = match inventory {
        Some(message) => {
            let names = |key: &str| -> Vec<String> {
                message[key]
                    .as_array()
                    .map(|items| items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                    .unwrap_or_default()
            };
            let (variables, modules) = (names("variables"), names("modules"));
            format!(
                "{} variables ({}) and {} imported modules ({})",
                variables.len(),
                preview_list(&variables),
                modules.len(),
                preview_list(&modules)
            )
        }
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CellStatus {
    Ok,
    Error,
    Timeout,
    Crashed,
    Cancelled,
}

impl CellStatus {
    fn as_str(self) -> &'static str {
        match self {
            CellStatus::Ok => "ok",
            CellStatus::Error => "error",
            CellStatus::Timeout => "timeout",
            CellStatus::Crashed => "crashed",
            CellStatus::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug)]
enum OutputItem {
    Stream { name: String, text: String },
    Text(String),
    Image { png_base64: String, caption: String },
    Echo(String),
    Error(String),
    Note(String),
}

struct CellOutcome {
    status: CellStatus,
    items: Vec<OutputItem>,
    state_lost: Option<String>,
    elapsed: Duration,
    bridge_calls: u64,
    omitted_bytes: u64,
}

/// Runs one cell on `kernel`: the host's watchdog loop over the kernel's events.
fn run_cell(ctx: &CallContext<'_>, kernel: &mut LiveKernel, config: &KernelConfig, cell_number: u64, code: &str) -> CellOutcome {
    let started = Instant::now();
    let mut outcome = CellOutcome {
        status: CellStatus::Ok,
        items: Vec::new(),
        state_lost: None,
        elapsed: Duration::ZERO,
        bridge_calls: 0,
        omitted_bytes: 0,
    };
    let stderr_before = kernel.stderr_total_bytes();
    let request = json!({
        "type": "execute",
        "cell": cell_number,
        "code": code,
        "limits": {
            "max_output_bytes": config.max_cell_output_bytes,
            "max_item_bytes": config.max_item_bytes,
            "max_images": config.max_images,
            "max_image_bytes": config.max_image_bytes,
            "dataframe_max_rows": config.dataframe_max_rows,
        }
    });
    if let Err(err) = kernel.send(&request) {
        outcome.status = CellStatus::Crashed;
        let state = kernel.describe_exit();
        let loss = format!("the kernel could not take the cell ({err}); {state}");
        outcome.items.push(OutputItem::Error(format!("kernel lost: {loss}")));
        outcome.state_lost = Some(loss);
        outcome.elapsed = started.elapsed();
        return outcome;
    }
    let mut raw_bytes = 0usize;
    let mut raw_cell_end_seen = false;
    let mut last_activity = Instant::now();
    loop {
        let now = Instant::now();
        if ctx.cancel_token().is_cancelled() {
            stop_kernel(kernel, config, &mut outcome, CellStatus::Cancelled, "the host cancelled the call", KeepKernel::IfInterrupted);
            break;
        }
        let idle_deadline = last_activity + config.inactivity_budget;
        if now >= idle_deadline {
            let reason = format!("the cell produced no output for {} s (the inactivity budget)", config.inactivity_budget.as_secs_f64());
            stop_kernel(kernel, config, &mut outcome, CellStatus::Timeout, &reason, KeepKernel::Never);
            break;
        }
        if now >= ctx.deadline() {
            let reason = format!("the eval call reached its time budget of {} ms", ctx.budget().as_millis());
            stop_kernel(kernel, config, &mut outcome, CellStatus::Timeout, &reason, KeepKernel::IfInterrupted);
            break;
        }
        let wake = idle_deadline.min(ctx.deadline()).min(now + Duration::from_millis(100));
        let event = match kernel.events.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => KernelEvent::Closed("the kernel reader stopped".to_owned()),
        };
        match event {
            KernelEvent::Raw(text) => {
                last_activity = Instant::now();
                push_raw(&mut outcome, &mut raw_bytes, config, text);
            }
            // The marker may overtake `done` (two pipes, two reader threads); an earlier
            // cell's marker may arrive late (that cell stopped waiting for it).
            KernelEvent::RawCellEnd(cell) => raw_cell_end_seen |= cell == cell_number,
            KernelEvent::Closed(reason) => {
                let state = kernel.describe_exit();
                let loss = format!("the kernel died while running cell {cell_number} ({reason}; {state})");
                outcome.status = CellStatus::Crashed;
                outcome.items.push(OutputItem::Error(format!(
                    "kernel died: {state}\nIts state (variables, imports) is lost; the next eval call starts a fresh kernel (generation {}).",
                    kernel.generation + 1
                )));
                outcome.state_lost = Some(loss);
                break;
            }
            KernelEvent::Message(message) => {
                last_activity = Instant::now();
                match message["type"].as_str().unwrap_or("") {
                    "stream" => outcome.items.push(OutputItem::Stream {
                        name: message["name"].as_str().unwrap_or("stdout").to_owned(),
                        text: message["text"].as_str().unwrap_or("").to_owned(),
                    }),
                    "display" => outcome.items.push(item_from(&message["item"], false)),
                    "result" => outcome.items.push(item_from(&message["item"], true)),
                    "error" => outcome.items.push(OutputItem::Error(
                        message["traceback"].as_str().filter(|t| !t.is_empty()).map(str::to_owned).unwrap_or_else(|| {
                            format!("{}: {}", message["ename"].as_str().unwrap_or("Error"), message["evalue"].as_str().unwrap_or(""))
                        }),
                    )),
                    "child" => {
                        if let Some(pid) = message["pid"].as_i64() {
                            let mut groups = kernel.child_groups.lock();
                            match message["state"].as_str() {
                                Some("started") => groups.insert(pid as i32),
                                _ => groups.remove(&(pid as i32)),
                            };
                        }
                    }
                    "tool_call" => {
                        outcome.bridge_calls += 1;
                        let reply = bridge_call(ctx, &message);
                        if let Err(err) = kernel.send(&reply) {
                            outcome.items.push(OutputItem::Note(format!("the tool() reply could not be delivered: {err}")));
                        }
                        // The budget is paused while a bridge call (and any card in it) is outstanding.
                        last_activity = Instant::now();
                    }
                    "done" => {
                        if message["status"] == "error" {
                            outcome.status = CellStatus::Error;
                        }
                        let omitted = message["omitted_bytes"].as_u64().unwrap_or(0);
                        if omitted > 0 {
                            outcome.omitted_bytes += omitted;
                            outcome.items.push(OutputItem::Note(format!(
                                "[... truncated {omitted} bytes of output: showing the first and last {} KiB of {} KiB ...]",
                                config.max_cell_output_bytes / 2048,
                                (omitted as usize + config.max_cell_output_bytes) / 1024
                            )));
                        }
                        if let Some(tail) = message["tail"].as_array() {
                            for chunk in tail {
                                outcome.items.push(OutputItem::Stream {
                                    name: chunk[0].as_str().unwrap_or("stdout").to_owned(),
                                    text: chunk[1].as_str().unwrap_or("").to_owned(),
                                });
                            }
                        }
                        let figures_omitted = message["figures_omitted"].as_u64().unwrap_or(0);
                        if figures_omitted > 0 {
                            outcome.items.push(OutputItem::Note(format!(
                                "{figures_omitted} more figures were closed without being shown (cap: {} per cell)",
                                config.max_images
                            )));
                        }
                        if message["raw_marker"] == true && !raw_cell_end_seen {
                            collect_raw_until_cell_end(kernel, config, &mut outcome, &mut raw_bytes, cell_number);
                        } else {
                            while let Ok(KernelEvent::Raw(text)) = kernel.events.try_recv() {
                                push_raw(&mut outcome, &mut raw_bytes, config, text);
                            }
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    let stderr_after = kernel.stderr_total_bytes();
    if stderr_after > stderr_before && outcome.state_lost.is_none() {
        let tail = kernel.stderr_tail();
        let delta = (stderr_after - stderr_before) as usize;
        let start = tail.len().saturating_sub(delta.min(config.max_item_bytes));
        let mut start = start;
        while !tail.is_char_boundary(start) {
            start += 1;
        }
        let mut text = String::new();
        if delta > config.max_item_bytes {
            text.push_str(&format!("[raw fd output: showing last {} of {delta} bytes]\n", config.max_item_bytes));
        }
        text.push_str(&tail[start..]);
        outcome.items.push(OutputItem::Stream { name: "stderr".to_owned(), text });
    }
    outcome.elapsed = started.elapsed();
    outcome
}

/// After a spawned kernel's `done`: takes raw stdout (fd 1) until the driver's end-of-cell
/// marker for `cell_number` arrives, so everything the cell wrote there is in its result.
/// Bounded by [`RAW_CELL_END_WAIT`]; a marker that does not come (fd 1 closed or redirected by
/// the cell) is said in a note.
fn collect_raw_until_cell_end(
    kernel: &LiveKernel,
    config: &KernelConfig,
    outcome: &mut CellOutcome,
    raw_bytes: &mut usize,
    cell_number: u64,
) {
    let deadline = Instant::now() + RAW_CELL_END_WAIT;
    loop {
        match kernel.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(KernelEvent::Raw(text)) => push_raw(outcome, raw_bytes, config, text),
            Ok(KernelEvent::RawCellEnd(cell)) if cell == cell_number => return,
            Ok(KernelEvent::RawCellEnd(_)) | Ok(KernelEvent::Message(_)) => {}
            Ok(KernelEvent::Closed(_)) | Err(_) => {
                outcome.items.push(OutputItem::Note(format!(
                    "[raw stdout (fd 1) of this cell may be incomplete: its end marker did not arrive within {} ms]",
                    RAW_CELL_END_WAIT.as_millis()
                )));
                return;
            }
        }
    }
}

/// How long a finished cell waits for the rest of its raw fd-1 output: 2 s.
const RAW_CELL_END_WAIT: Duration = Duration::from_secs(2);

fn push_raw(outcome: &mut CellOutcome, raw_bytes: &mut usize, config: &KernelConfig, text: String) {
    if *raw_bytes + text.len() > config.max_cell_output_bytes {
        outcome.omitted_bytes += text.len() as u64;
        if !outcome.items.iter().any(|item| matches!(item, OutputItem::Note(note) if note.starts_with("[raw output cap"))) {
            outcome.items.push(OutputItem::Note(format!(
                "[raw output cap of {} bytes reached; later raw output dropped]",
                config.max_cell_output_bytes
            )));
        }
        return;
    }
    *raw_bytes += text.len();
    outcome.items.push(OutputItem::Stream { name: "stdout".to_owned(), text });
}

fn item_from(item: &Value, echo: bool) -> OutputItem {
    match item["kind"].as_str() {
        Some("png") => {
            let mut caption = format!(
                "[image: PNG {}×{} px, {} bytes{}]",
                item["width"].as_u64().unwrap_or(0),
                item["height"].as_u64().unwrap_or(0),
                item["bytes"].as_u64().unwrap_or(0),
                item["note"].as_str().map(|note| format!(", {note}")).unwrap_or_default()
            );
            if echo {
                caption = format!("Out: {caption}");
            }
            OutputItem::Image { png_base64: item["data"].as_str().unwrap_or("").to_owned(), caption }
        }
        _ => {
            let text = item["text"].as_str().unwrap_or("").to_owned();
            if echo {
                OutputItem::Echo(text)
            } else {
                OutputItem::Text(text)
            }
        }
    }
}

/// Whether [`stop_kernel`] may keep a kernel that its interrupt stopped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KeepKernel {
    /// Keep it (state intact, as a notebook's interrupt does) when the cell ended within the
    /// interrupt grace: a cancelled call, the call's own time budget.
    IfInterrupted,
    /// Always kill and restart: the inactivity budget ran out (issue 7: "interrupt, then kill the
    /// process group and restart").
    Never,
}

/// Interrupts the kernel and collects what it says within the grace; then either keeps it (see
/// [`KeepKernel`]) or kills it, and says which in the cell's output.
fn stop_kernel(
    kernel: &mut LiveKernel,
    config: &KernelConfig,
    outcome: &mut CellOutcome,
    status: CellStatus,
    reason: &str,
    keep: KeepKernel,
) {
    kernel.interrupt();
    let deadline = Instant::now() + config.interrupt_grace;
    let mut traceback = None;
    let mut cell_ended = false;
    while let Ok(event) = kernel.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        match event {
            KernelEvent::Message(message) if message["type"] == "error" => {
                traceback = message["traceback"].as_str().map(str::to_owned);
            }
            KernelEvent::Message(message) if message["type"] == "stream" => outcome.items.push(OutputItem::Stream {
                name: message["name"].as_str().unwrap_or("stdout").to_owned(),
                text: message["text"].as_str().unwrap_or("").to_owned(),
            }),
            KernelEvent::Message(message) if message["type"] == "done" => {
                cell_ended = true;
                break;
            }
            KernelEvent::Closed(_) => break,
            _ => {}
        }
    }
    if keep == KeepKernel::IfInterrupted && cell_ended && kernel.abandoned().is_none() {
        outcome.status = status;
        let mut text = format!(
            "cell stopped: {reason}. The kernel was interrupted (KeyboardInterrupt) and kept (generation {}): variables and imports \
             from before the cell remain, and so does whatever the cell did before the interrupt; its shell children were killed.",
            kernel.generation
        );
        if let Some(traceback) = &traceback {
            text.push_str("\nWhere it was when interrupted:\n");
            text.push_str(traceback);
        }
        outcome.items.push(OutputItem::Error(text));
        return;
    }
    kernel.kill();
    outcome.status = status;
    let how = if kernel.is_embedded() {
        match kernel.abandoned() {
            Some(why) => format!("The embedded interpreter was interrupted but did not stop: {why}."),
            None => "The embedded interpreter was interrupted (KeyboardInterrupt) and discarded.".to_owned(),
        }
    } else {
        "The kernel was interrupted, then its process group and shell children were killed.".to_owned()
    };
    let mut text = format!(
        "cell stopped: {reason}. {how} \
         Its state (variables, imports, loaded data) is lost; the next eval call starts a fresh kernel (generation {}).",
        kernel.generation + 1
    );
    if let Some(traceback) = traceback {
        text.push_str("\nWhere it was when interrupted:\n");
        text.push_str(&traceback);
    }
    outcome.items.push(OutputItem::Error(text));
    outcome.state_lost = Some(format!("cell stopped: {reason}"));
}

/// Serves one `tool()` call from a cell: re-enters the registry as the eval's caller.
fn bridge_call(ctx: &CallContext<'_>, message: &Value) -> Value {
    let id = message["id"].clone();
    let name = message["name"].as_str().unwrap_or("");
    if name == "eval" {
        let err = eval_in_eval_error();
        return json!({"type": "tool_result", "id": id, "ok": false, "error": err.to_result().joined_text()});
    }
    let arguments = message.get("args").cloned().unwrap_or(Value::Null);
    let result = ctx.call_nested(name, arguments, CallOrigin::Bridge { via: "eval".to_owned() });
    if result.is_error {
        return json!({"type": "tool_result", "id": id, "ok": false, "error": result.joined_text()});
    }
    let value = bridge_value(&result);
    json!({"type": "tool_result", "id": id, "ok": true, "value": value})
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

fn render_result(header: &str, notes: &[String], outcome: &CellOutcome) -> ToolResult {
    let mut content = vec![Content::Text { text: header.to_owned() }];
    for note in notes {
        content.push(Content::Text { text: note.clone() });
    }
    let mut pending_stream: Option<(String, String)> = None;
    let flush = |pending: &mut Option<(String, String)>, content: &mut Vec<Content>| {
        if let Some((name, text)) = pending.take() {
            let text = if name == "stderr" { format!("[stderr]\n{text}") } else { text };
            content.push(Content::Text { text });
        }
    };
    let mut shown_anything = false;
    for item in &outcome.items {
        if let OutputItem::Stream { name, text } = item {
            shown_anything = true;
            match &mut pending_stream {
                Some((pending_name, pending_text)) if pending_name == name => pending_text.push_str(text),
                _ => {
                    flush(&mut pending_stream, &mut content);
                    pending_stream = Some((name.clone(), text.clone()));
                }
            }
            continue;
        }
        flush(&mut pending_stream, &mut content);
        shown_anything = true;
        match item {
            OutputItem::Stream { .. } => {}
            OutputItem::Text(text) => content.push(Content::Text { text: text.clone() }),
            OutputItem::Echo(text) => content.push(Content::Text { text: format!("Out: {text}") }),
            OutputItem::Image { png_base64, caption } => {
                content.push(Content::Text { text: caption.clone() });
                content.push(Content::Image { data: png_base64.clone(), mime_type: "image/png".to_owned() });
            }
            OutputItem::Error(text) => content.push(Content::Text { text: text.clone() }),
            OutputItem::Note(text) => content.push(Content::Text { text: text.clone() }),
        }
    }
    flush(&mut pending_stream, &mut content);
    if !shown_anything {
        content.push(Content::Text {
            text: format!(
                "(no output: the cell ran to completion in {} ms; its last line is not an echoed expression)",
                outcome.elapsed.as_millis()
            ),
        });
    }
    ToolResult { content, structured_content: None, is_error: outcome.status != CellStatus::Ok }
}
