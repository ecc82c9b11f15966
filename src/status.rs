//! Status reports of a run's areas, for a host's status display (the CLI's `runbound status`).
//!
//! Each report is plain text written for a person or a model, one fact per line; the debug one
//! also comes as JSON. The language servers' status is [`crate::lsp::LspSupervisor::status`]
//! (`to_text()` / `to_json()`), the workers' is [`crate::vibe::Roster::backends`] and the
//! `vibe_list` tool; the two here have no resource handle of their own to hang on.

use serde_json::Value;

use crate::Run;

/// The `eval` kernels of `run`: which Python backend is active and why, which kernels run
/// (backend, version, pid, generation, cells, uptime), the sandbox and the budgets. When no
/// kernel factory is wired, one line saying so (`eval` is then not registered). Never blocks
/// longer than 200 ms: a running cell holds the kernels' lock, and the report then says so.
pub fn kernels_report(run: &Run) -> String {
    crate::kernel::kernel_status(run.kernels())
}

/// Which debug adapters (debugpy, lldb-dap, delve, dart) can serve in `run`'s workspace, as
/// text (one line per adapter: `available` with what was found, or `unavailable` with the
/// missing half — root marker, binary, or debugpy import) and as JSON
/// (`[{adapter, available, markers[], binary, reason}]`). Honours the run's workspace trust: a
/// restricted run never resolves or probes an adapter binary or interpreter inside the
/// workspace. Probes interpreters, each bounded by `RunConfig::debug.probe_timeout`. Works
/// whether or not a debug supervisor is wired; the session itself is
/// [`crate::debug::DebugSupervisor::session_status`].
pub fn debug_adapters_report(run: &Run) -> (String, Value) {
    crate::debug::adapters_report_with_trust(run.workspace_root(), &run.config().debug, run.workspace_trust())
}
