//! A write's project check while rust-analyzer is still loading (issue 11 §3, trial27b F6, the
//! coldrace23 brief).
//!
//! A just-started (or just-reloaded) rust-analyzer loads the project (cargo metadata, build
//! scripts, proc-macros, VFS roots) and then indexes it (cache priming of the sysroot and the
//! dependencies). Meanwhile its main loop hands on a check run's `$/progress` and its
//! publishes late: on adler2 2.0.1 (rust-analyzer 1.95, fresh) the first `cargo check` began at
//! 4.4 s, ended at 5.7 s, and its two E0599 were published at 22.0 s, when the indexing ended;
//! a save's check asked for at 6 s had not begun 3 s later. So a check run whose `begin`
//! arrives after the save may have started before the write reached the disk, and the state
//! read when it ends may lack its findings — a write answered "no new errors" from a check that
//! did not cover it.
//!
//! The rule: a check run counts for a write only if its `begin` came after the save *and* after
//! the server loaded its project ([`LanguageServer::check_runs_started_loaded`]). When the
//! save's run does not qualify, the server is given the write's budget to finish loading, then
//! one check is asked for (`rust-analyzer/runFlycheck`) and that one counts; when the budget
//! runs out first, the write's files are "diagnostics unavailable: rust-analyzer was still
//! loading …" with the next step, never clean.

use std::time::{Duration, Instant};

use crate::lsp::client::{LanguageServer, Readiness};

/// How long publishes must stay quiet after a check run ended (and the server's main loop turned
/// once more, see [`wait_for_check_publishes`]) before its state is read; any publish restarts
/// the window.
const QUIET_AFTER_CHECK: Duration = Duration::from_millis(250);

/// After a project check run of `server` ended: waits, bounded by `end`, for the server to be
/// ready, for its main loop to finish the turn that sent the run's end
/// ([`LanguageServer::wait_for_main_loop_turn`]: rust-analyzer publishes the run's last sets at
/// the end of that turn, after re-analysis and garbage collection — later than a fixed quiet time
/// on a loaded machine, trial57 F2), then for the publishes to stay quiet for
/// [`QUIET_AFTER_CHECK`].
pub(crate) fn wait_for_check_publishes(server: &LanguageServer, end: Instant) {
    server.wait_until_ready(end);
    server.wait_for_main_loop_turn(end);
    server.wait_for_publish_quiet(QUIET_AFTER_CHECK, end);
}

/// Waits for the check run the save started (see [`LanguageServer::wait_for_check_run_after_save`],
/// `begin_grace` for its `begin`), bounded by `end`. While the server still loads, its `begin` may
/// come later than `begin_grace`: then the server is first given until `end` to load, and the
/// check is asked for again. `true` when a run that began after `started_before` ended.
pub(crate) fn wait_for_save_check(server: &LanguageServer, started_before: u64, begin_grace: Duration, end: Instant) -> bool {
    if server.wait_for_check_run(started_before, begin_grace, end) {
        return true;
    }
    if server.check_runs().0 > started_before || !is_loading(&server.readiness()) {
        return server.wait_for_check_run_after_save(started_before, Duration::ZERO, end);
    }
    server.wait_until_ready(end);
    server.wait_for_check_run_after_save(started_before, begin_grace, end)
}

/// After the save's check run ended: makes sure a run that began once the server had loaded its
/// project, after the save, has ended (`loaded_runs_before`: [`LanguageServer::check_runs_started_loaded`]
/// before the sync). When the save's run began while the server loaded, waits (bounded by
/// `end`) for the loading to end, asks for one check run and waits for it and its publishes.
/// `Ok(true)` when it ran that extra check, `Ok(false)` when the save's run counted.
///
/// # Errors
/// The reason the write's check does not count, for the written files' "diagnostics
/// unavailable" line: the server was still loading when the budget ran out (what it was doing,
/// and the next step), or the asked-for check did not end in time.
pub(crate) fn ensure_check_after_loading(
    server: &LanguageServer,
    loaded_runs_before: u64,
    begin_grace: Duration,
    end: Instant,
) -> Result<bool, String> {
    ensure_check_after_loading_for(server, loaded_runs_before, begin_grace, end, "this write")
}

/// [`ensure_check_after_loading`] for `what` (the "NOT checked" reason names it: "this write",
/// "the latest change on disk" for a diagnostics call after a change outside the tools or in a
/// library root).
///
/// # Errors
/// As [`ensure_check_after_loading`].
pub(crate) fn ensure_check_after_loading_for(
    server: &LanguageServer,
    loaded_runs_before: u64,
    begin_grace: Duration,
    end: Instant,
    what: &str,
) -> Result<bool, String> {
    if server.check_runs_started_loaded() > loaded_runs_before && !server.check_run_in_progress() {
        return Ok(false);
    }
    let readiness = server.wait_until_ready(end).readiness;
    if !matches!(readiness, Readiness::Ready) {
        return Err(still_loading_for(server, &readiness, what));
    }
    let (started, _) = server.check_runs();
    let loaded_before = server.check_runs_started_loaded();
    let _ = server.notify::<crate::lsp::client::RunFlycheck>(Default::default());
    let ran = server.wait_for_check_run(started, begin_grace, end);
    wait_for_check_publishes(server, end);
    if ran && server.check_runs_started_loaded() > loaded_before && !server.check_run_in_progress() {
        return Ok(true);
    }
    Err(still_loading_for(server, &server.readiness(), what))
}

/// Whether `readiness` is a server still starting or loading (not ready, not gone).
pub(crate) fn is_loading(readiness: &Readiness) -> bool {
    matches!(readiness, Readiness::Starting | Readiness::Indexing(_))
}

/// The "NOT checked" reason of a write whose check ran while `server` was still loading.
pub(crate) fn still_loading(server: &LanguageServer, readiness: &Readiness) -> String {
    still_loading_for(server, readiness, "this write")
}

/// [`still_loading`] for `what` was checked ("this write", "the latest change on disk").
pub(crate) fn still_loading_for(server: &LanguageServer, readiness: &Readiness, what: &str) -> String {
    let now = if is_loading(readiness) { format!(" (now: {})", readiness.describe()) } else { String::new() };
    format!(
        "NOT checked: {id} was still loading the project when the budget for {what} ran out{now}; the cargo check it ran meanwhile may have started before {what} reached the disk (it reports its check runs and their errors late while it loads), so its result is no check of {what}; next step: call lsp with {{\"op\": \"diagnostics\", \"file\": \"*\"}} (a cargo check of its own), or wait until `lsp status` shows {id} ready and call lsp with {{\"op\": \"diagnostics\", \"file\": \"<file>\"}}",
        id = server.id()
    )
}
