//! `eval`: persistent Python and JavaScript kernels bound to one run (R-EVAL-1..6, docs/contract.md).
//!
//! A cell's variables, imports and loaded data persist across calls of the same run and
//! language. Python runs in a spawned CPython ("the full notebook experience": the project's
//! `.venv/bin/python` or `venv/bin/python` first, then `python3` on PATH) driven by an embedded
//! driver script (`driver.py`); JavaScript runs in a spawned Node with `driver.js` (cells run
//! in Node's main context, the realm of the modules they `require`, as in the `node` REPL).
//! Each kernel is one child process in its own process group with a
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
//! starts a new generation. A cell that keeps printing is stopped by the wall-clock cap per cell
//! ([`KernelConfig::cell_wall_clock_cap`], default 30 min). That cap, a call the host cancels,
//! and one that reaches its own time budget interrupt the cell like a notebook's interrupt: when the cell takes the
//! interrupt within [`KernelConfig::interrupt_grace`] (and then reports and ends within 5 s) the
//! kernel is kept with its state (only its shell children are killed); otherwise it is killed and
//! restarted as above.
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
//! `kernel_status` says which is active and why; every result names the backend and the
//! kernel generation.
//!
//! Layout: `backend.rs` (which interpreter serves a cell: selection, resolution, sandbox),
//! `kernels.rs` (the [`Kernels`] resource: kernel slots, generations, start, reset, one cell per
//! call; typed results, no tool vocabulary), `cell.rs` (the host's watchdog over one running
//! cell, in named steps: send, watch, stop, collect), `session.rs` (one spawned kernel process
//! and its reader threads), `embedded.rs` (RustPython on its owner thread), `tool.rs` (the `eval`
//! tool: arguments, the `tool()` bridge into the registry, rendering), `status.rs` (the kernel
//! section of `runbound status`).

mod backend;
mod cell;
#[cfg(feature = "embedded-python")]
mod embedded;
mod kernels;
mod session;
mod status;
mod tool;

use std::time::Duration;

pub use backend::{KernelFactory, KernelSelection, Language, PythonBackend, Sandbox, EMBEDDED_PYTHON_BUILT};
pub use kernels::Kernels;
pub(crate) use status::kernel_status;
pub(crate) use tool::register_tools;

/// Timeouts and caps of `eval` (a section of [`crate::RunConfig`]).
#[derive(Debug, Clone)]
pub struct KernelConfig {
    /// Inactivity budget of a cell: reset by any output, paused during bridge calls; when it
    /// runs out the kernel is interrupted, killed and restarted (default 5 min, R-EVAL-5).
    pub inactivity_budget: Duration,
    /// Wall-clock cap of one cell, whatever it prints (default 30 min): a cell that keeps
    /// producing output never runs out of its inactivity budget, so this cap stops it. Like a
    /// notebook's interrupt: the kernel is kept with its state when the interrupt ends the cell
    /// within [`KernelConfig::interrupt_grace`], else killed and restarted. Time inside `tool()`
    /// calls counts.
    pub cell_wall_clock_cap: Duration,
    /// After an interrupt, how long the kernel has to take it before the kill (default 1 s).
    /// Once the driver says it took it (its `interrupted` message, before it formats the
    /// traceback), up to 5 s more are allowed for the report and the cell's end.
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
            cell_wall_clock_cap: Duration::from_secs(30 * 60),
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
