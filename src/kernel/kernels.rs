//! The kernels resource of a run: one kernel slot per language, each holding at most one live
//! kernel (a spawned CPython or Node process, or the embedded RustPython interpreter) with its
//! generation and cell counter. A call runs one cell ([`Kernels::run`]): reset first when asked,
//! start a kernel when the slot is empty, run the cell under the host's watchdog
//! (`cell.rs`), and retire the kernel when its state was lost. Results are typed
//! ([`CellReport`]); this layer knows nothing of tools — the `eval` tool renders them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::json;

use crate::error::{ErrorKind, ToolError};

use super::backend::{KernelFactory, Language, PythonBackend, Sandbox};
use super::cell::{run_cell, CellHost, CellOutcome, KernelLoss};
use super::session::{Containment, KernelEvent, KernelIdentity, KernelLaunch, LiveKernel};
use super::KernelConfig;

/// The CPython driver script, started as `python -u -X utf8 -c <source>`: the helpers shared
/// with the embedded driver (`driver_common.py`) followed by `driver.py`.
const PYTHON_DRIVER: &str = concat!(include_str!("driver_common.py"), include_str!("driver.py"));
/// The Node driver script, started as `node --expose-internals -e <source>`.
const JAVASCRIPT_DRIVER: &str = include_str!("driver.js");

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
    last_loss: [Option<KernelLoss>; 2],
}

/// One cell to run: its language, its source, and whether to discard the language's kernel
/// first.
pub(crate) struct CellRequest<'a> {
    /// The kernel's language.
    pub(crate) language: Language,
    /// The cell's source; empty (only whitespace) runs nothing (a reset alone).
    pub(crate) code: &'a str,
    /// Discard the language's kernel (all its state) before running the cell.
    pub(crate) reset: bool,
}

/// What one [`Kernels::run`] did.
pub(crate) struct CellReport {
    /// The cell's language.
    pub(crate) language: Language,
    /// Set when the request asked for a reset.
    pub(crate) reset: Option<ResetReport>,
    /// Set when a kernel was started for this call.
    pub(crate) started: Option<KernelStart>,
    /// The cell that ran; `None` when the code was empty (a reset alone).
    pub(crate) cell: Option<CellRun>,
}

/// What a reset discarded.
pub(crate) struct ResetReport {
    /// The generation discarded; `None` when no kernel was running.
    pub(crate) discarded_generation: Option<u64>,
    /// What was in it, when the kernel answered the inventory request in time.
    pub(crate) inventory: Option<Inventory>,
}

/// The names a kernel held when it was discarded.
pub(crate) struct Inventory {
    /// Variables the cells defined.
    pub(crate) variables: Vec<String>,
    /// Third-party modules imported.
    pub(crate) modules: Vec<String>,
}

/// A kernel started for a call.
pub(crate) struct KernelStart {
    /// Its generation.
    pub(crate) generation: u64,
    /// Why the embedded interpreter was chosen, when it was.
    pub(crate) embedded_reason: Option<String>,
    /// What ended the previous generation, when its state was lost (not by a reset).
    pub(crate) after_loss: Option<KernelLoss>,
    /// Whether the new kernel's processes die with it when the host is killed.
    pub(crate) containment: Containment,
}

/// One cell that ran.
pub(crate) struct CellRun {
    /// The cell's number in this language's kernels (counts across generations).
    pub(crate) number: u64,
    /// The kernel it ran on.
    pub(crate) identity: KernelIdentity,
    /// That kernel's generation.
    pub(crate) generation: u64,
    /// What the cell produced and how it ended.
    pub(crate) outcome: CellOutcome,
}

/// One language's slot, for `runbound status`.
pub(crate) struct KernelSlotStatus {
    /// The live kernel, if any.
    pub(crate) live: Option<LiveKernelStatus>,
    /// What ended the last kernel, when its state was lost.
    pub(crate) last_loss: Option<KernelLoss>,
}

/// A live kernel, for `runbound status`.
pub(crate) struct LiveKernelStatus {
    /// How it was started.
    pub(crate) identity: KernelIdentity,
    /// Its generation.
    pub(crate) generation: u64,
    /// Cells it ran.
    pub(crate) cells_run: u64,
    /// Time since it started.
    pub(crate) uptime: Duration,
    /// Whether it is the embedded interpreter (no process of its own).
    pub(crate) embedded: bool,
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

    /// The workspace root kernels start in.
    pub(crate) fn workspace_root(&self) -> &Path {
        &self.workspace_root
    }

    /// [`KernelFactory::resolve_python`] plus the sandbox rule: with a sandbox, the embedded
    /// interpreter (which lives in the host process) is refused (R-EVAL-6).
    ///
    /// # Errors
    ///
    /// Why no Python backend can serve `workspace` (one sentence naming what was tried).
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

    /// Each language's slot (Python first), or `None` when a running cell holds the kernels
    /// for longer than `wait`.
    pub(crate) fn slots(&self, wait: Duration) -> Option<[(Language, KernelSlotStatus); 2]> {
        let state = self.state.try_lock_for(wait)?;
        let slot = |language: Language| {
            let index = language.index();
            let live = state.live[index].as_ref().map(|kernel| LiveKernelStatus {
                identity: kernel.identity.clone(),
                generation: kernel.generation,
                cells_run: kernel.cells_run,
                uptime: kernel.started_at.elapsed(),
                embedded: kernel.is_embedded(),
            });
            (language, KernelSlotStatus { live, last_loss: state.last_loss[index].clone() })
        };
        Some([slot(Language::Python), slot(Language::Javascript)])
    }

    /// Runs one cell: resets first when asked, starts the language's kernel when none runs,
    /// then runs `request.code` on it under the host's watchdog, with `host` serving its
    /// `tool()` calls and giving its cancellation and deadline. Holds the kernels for the whole
    /// cell (one cell at a time per run).
    ///
    /// # Errors
    ///
    /// `unavailable` when no interpreter for the language resolves or its kernel cannot start,
    /// `timeout` when it does not report ready within [`KernelConfig::startup_timeout`]. A cell
    /// that fails, crashes or is stopped is not an error: its [`CellOutcome`] says so.
    pub(crate) fn run(&self, request: CellRequest<'_>, host: &mut dyn CellHost) -> Result<CellReport, ToolError> {
        let language = request.language;
        let slot = language.index();
        let mut state = self.state.lock();
        let reset = request.reset.then(|| reset_kernel(&mut state, language));
        if request.code.trim().is_empty() {
            return Ok(CellReport { language, reset, started: None, cell: None });
        }
        let started = match state.live[slot] {
            Some(_) => None,
            None => Some(self.start_kernel(&mut state, language, request.reset)?),
        };
        state.cells[slot] += 1;
        let number = state.cells[slot];
        let Some(kernel) = state.live[slot].as_mut() else {
            return Err(ToolError::failed("the kernel slot is empty after start"));
        };
        kernel.cells_run += 1;
        let outcome = run_cell(kernel, &self.config, number, request.code, host);
        let (identity, generation) = (kernel.identity.clone(), kernel.generation);
        if let Some(loss) = &outcome.state_lost {
            if let Some(mut dead) = state.live[slot].take() {
                dead.kill();
            }
            state.last_loss[slot] = Some(loss.clone());
        }
        Ok(CellReport { language, reset, started, cell: Some(CellRun { number, identity, generation, outcome }) })
    }

    /// Starts the next generation of `language`'s kernel into its slot.
    fn start_kernel(&self, state: &mut KernelsState, language: Language, after_reset: bool) -> Result<KernelStart, ToolError> {
        let slot = language.index();
        let workspace_root = self.workspace_root.as_path();
        let mut embedded_reason = None;
        let (interpreter, driver_source) = match language {
            Language::Python => {
                let (backend, why) = self.resolve_python(workspace_root).map_err(|why| {
                    ToolError::new(ErrorKind::Unavailable, format!("no Python kernel can start: {why}"))
                        .with_hint("install python3 or create .venv in the workspace, or use language=javascript")
                })?;
                match backend {
                    PythonBackend::Cpython(path) => (path, PYTHON_DRIVER),
                    PythonBackend::Embedded => {
                        embedded_reason = Some(why);
                        (PathBuf::new(), "")
                    }
                }
            }
            Language::Javascript => {
                let path = self
                    .factory
                    .resolve_node(workspace_root)
                    .map_err(|why| ToolError::new(ErrorKind::Unavailable, format!("no JavaScript kernel can start: {why}")))?;
                (path, JAVASCRIPT_DRIVER)
            }
        };
        // A Python kernel's guardian is its own interpreter; a JavaScript kernel's needs one.
        let guardian_python = match language {
            Language::Python => Ok(interpreter.clone()),
            Language::Javascript => self.factory.resolve_guardian_python(workspace_root),
        };
        state.generations[slot] += 1;
        let generation = state.generations[slot];
        let kernel = if embedded_reason.is_some() {
            start_embedded(workspace_root, generation, self.config.startup_timeout)?
        } else {
            LiveKernel::start(&KernelLaunch {
                language,
                interpreter: &interpreter,
                driver_source,
                guardian_python: guardian_python.as_deref().map_err(String::as_str),
                env: match language {
                    Language::Python => activated_venv_env(&interpreter),
                    Language::Javascript => Vec::new(),
                },
                cwd: workspace_root,
                sandbox: self.sandbox.as_ref(),
                generation,
                startup_timeout: self.config.startup_timeout,
            })?
        };
        let after_loss = if generation > 1 && !after_reset { state.last_loss[slot].take() } else { None };
        let containment = kernel.identity.containment.clone();
        state.live[slot] = Some(kernel);
        Ok(KernelStart { generation, embedded_reason, after_loss, containment })
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

#[cfg(feature = "embedded-python")]
fn start_embedded(workspace: &Path, generation: u64, startup_timeout: Duration) -> Result<LiveKernel, ToolError> {
    LiveKernel::start_embedded(workspace, generation, startup_timeout)
}

#[cfg(not(feature = "embedded-python"))]
fn start_embedded(_workspace: &Path, _generation: u64, _startup_timeout: Duration) -> Result<LiveKernel, ToolError> {
    Err(ToolError::new(ErrorKind::Unavailable, "this build has no embedded RustPython backend (cargo feature embedded-python is off)")
        .with_hint("select the cpython kernel, or rebuild runbound with default features"))
}

/// The environment of an activated virtual environment when `python` is a venv's interpreter
/// (`<venv>/bin/python` with `<venv>/pyvenv.cfg`): `VIRTUAL_ENV=<venv>` and `<venv>/bin` first
/// on `PATH`, so a cell's `!python`, `!pytest` or `subprocess.run(["pip", …])` reach the same
/// environment as the kernel (Jupyter's venv kernels leave `PATH` alone, and `!python` then runs
/// another interpreter than the kernel). Empty for any other interpreter.
fn activated_venv_env(python: &Path) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let Some(bin) = python.parent() else {
        return Vec::new();
    };
    let Some(venv) = bin.parent().filter(|venv| venv.join("pyvenv.cfg").is_file()) else {
        return Vec::new();
    };
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let entries = std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&inherited).filter(|entry| entry != bin));
    let Ok(path) = std::env::join_paths(entries) else {
        return Vec::new();
    };
    vec![("VIRTUAL_ENV".into(), venv.as_os_str().to_owned()), ("PATH".into(), path)]
}

/// Discards `language`'s kernel: asks it for an inventory of what it holds (bounded, 1 s), then
/// kills it. Clears the last loss (a reset is not a loss).
fn reset_kernel(state: &mut KernelsState, language: Language) -> ResetReport {
    let slot = language.index();
    state.last_loss[slot] = None;
    let Some(mut kernel) = state.live[slot].take() else {
        return ResetReport { discarded_generation: None, inventory: None };
    };
    let mut inventory = None;
    if kernel.send(&json!({"type": "inventory"})).is_ok() {
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Ok(event) = kernel.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if let KernelEvent::Message(message) = event {
                if message["type"] == "inventory" {
                    let names = |key: &str| -> Vec<String> {
                        message[key]
                            .as_array()
                            .map(|items| items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                            .unwrap_or_default()
                    };
                    inventory = Some(Inventory { variables: names("variables"), modules: names("modules") });
                    break;
                }
            }
        }
    }
    let generation = kernel.generation;
    kernel.kill();
    ResetReport { discarded_generation: Some(generation), inventory }
}
