//! The kernel section of `runbound status`, rendered from the [`Kernels`] resource.

use std::time::Duration;

use super::backend::PythonBackend;
use super::kernels::Kernels;
use super::session::Containment;
use super::tool::describe_loss;

/// The kernel section of `runbound status`: which Python backend is active and why, which
/// kernels run (backend, version, pid, generation, cells, uptime), the sandbox, the budget.
/// Never blocks longer than 200 ms (a running cell holds the kernels lock: then it says so).
/// `kernels` is the run's kernels resource (`Run::kernels`), `None` when no factory is wired.
pub fn kernel_status(kernels: Option<&Kernels>) -> String {
    let Some(kernels) = kernels else {
        return "eval: no kernel factory is wired in this run (eval is not registered)".to_owned();
    };
    let mut lines = Vec::new();
    let workspace = kernels.workspace_root();
    lines.push(format!("eval: kernel selection {}", kernels.factory().selected().as_str()));
    match kernels.resolve_python(workspace) {
        Ok((PythonBackend::Cpython(path), why)) => lines.push(format!("  python: cpython {} — chosen because: {why}", path.display())),
        Ok((PythonBackend::Embedded, why)) => lines.push(format!(
            "  python: embedded RustPython 0.5.0 (in the host process; standard library only: no %pip, C extensions or shell commands) — chosen because: {why}"
        )),
        Err(why) => lines.push(format!("  python: unavailable — {why}")),
    }
    match kernels.factory().resolve_node(workspace) {
        Ok(path) => lines.push(format!("  javascript: node {}", path.display())),
        Err(why) => lines.push(format!("  javascript: unavailable — {why}")),
    }
    match kernels.sandbox() {
        Some(sandbox) => lines.push(format!("  sandbox: {} (kernels start inside it)", sandbox.description)),
        None => lines.push("  sandbox: none (kernels run on the host)".to_owned()),
    }
    let javascript_guardian = match kernels.factory().resolve_guardian_python(workspace) {
        Ok(python) => format!("javascript kernels through {}", python.display()),
        Err(why) => format!("javascript kernels run without it: {why}"),
    };
    lines.push(format!(
        "  containment: spawned kernels run under the process guardian (a child subreaper that kills every process the cells \
         started when the host dies, even by SIGKILL): python kernels through their own interpreter, {javascript_guardian}"
    ));
    lines.push(format!(
        "  inactivity budget: {} s; wall-clock cap per cell: {} s",
        kernels.config().inactivity_budget.as_secs(),
        kernels.config().cell_wall_clock_cap.as_secs()
    ));
    match kernels.slots(Duration::from_millis(200)) {
        Some(slots) => {
            for (language, slot) in slots {
                match slot.live {
                    Some(live) => lines.push(format!(
                        "  {language} kernel: running — {} {} {}, generation {}, {} cells, up {} s{}",
                        live.identity.backend,
                        live.identity.version,
                        if live.embedded {
                            format!("in-process thread rb-rustpy-g{}", live.generation)
                        } else {
                            format!("pid {}", live.identity.pid)
                        },
                        live.generation,
                        live.cells_run,
                        live.uptime.as_secs(),
                        match (&live.identity.containment, live.embedded) {
                            (_, true) => String::new(),
                            (Containment::Guarded { guardian_pid }, false) => format!(", guarded (guardian pid {guardian_pid})"),
                            (Containment::GuardianFailed(why) | Containment::Unguarded(why), false) => format!(", not guarded: {why}"),
                        }
                    )),
                    None => lines.push(format!(
                        "  {language} kernel: not running{}",
                        slot.last_loss.as_ref().map(|loss| format!(" (last: {})", describe_loss(loss))).unwrap_or_default()
                    )),
                }
            }
        }
        None => lines.push("  kernels: busy running a cell".to_owned()),
    }
    lines.join("\n")
}
