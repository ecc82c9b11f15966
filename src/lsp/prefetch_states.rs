//! Pre-write states taken while a staged change waits for `resolve` (issue 11 §3, trial27a M2).
//!
//! A write check of a server that answers pulls (pyright, basedpyright) needs each written
//! file's diagnostics before the write, to tell the errors the write brings from those already
//! there. Taken when the write lands, those pulls shared the write's budget with the states after
//! it: on a loaded 2-core machine pyright's first pulls of a package took 9–11 s of the 15 s, and
//! the states after the write then ran out of time ("checked: nothing").
//!
//! A staged change (`lsp_rename` preview, `ast_edit`, a code action preview) names the files it
//! will write seconds or minutes before `resolve accept` writes them, and their text on disk is
//! the pre-write text until then. So when a change is staged, each running pull server is asked,
//! on a thread of its own, for the files of the change it serves, one after another (pyright
//! answers pulls sent together later than one after another: it shares its time between them),
//! and each answer is remembered with the server's content epoch
//! ([`LanguageServer::remember_pulled`]). The write check reuses a remembered state only when
//! nothing was sent to the server since (same epoch), as for the states a previous write pulled
//! — a state is never taken from another text.
//!
//! typescript-language-server answers no pulls: its write check asks tsserver
//! (`semanticDiagnosticsSync` through `workspace/executeCommand`) for the written files and for the
//! files that import them (`fileReferences`, through re-exports), and on a loaded 2-core machine a
//! 7-file accept on immer spent its budget on those states before the write. Its prefetch takes
//! the same states in the same order — the written files, then their importers as the write
//! check finds them (at most [`crate::lsp::LspConfig::write_diagnostics_dependents_cap`]) —
//! remembered the same way.
//!
//! The thread stops at the first of: every file pulled, [`PREFETCH_WINDOW`] elapsed, a change
//! sent to the server (the epoch moved: later states would be of another text), or a write check
//! that pulls itself ([`before_own_pull`]: it waits for the pull in flight, when that is of the
//! file it wants, then pulls alone), or the supervisor dropping. At most [`PREFETCH_FILES_CAP`]
//! files per staged change.
//!
//! The thread holds its server weakly: it holds it for one pull at a time (at most
//! [`PREFETCH_PULL_CAP`]), so a run that drops, or a server that is stopped, is not kept alive by
//! a prefetch. The supervisor owns the threads ([`PrefetchThread`]) and stops and joins them
//! when it drops.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::lsp::client::LanguageServer;
use crate::lsp::servers::WriteCheck;
use crate::lsp::supervisor::LspSupervisor;

/// How long after staging the states are taken at most.
pub(crate) const PREFETCH_WINDOW: Duration = Duration::from_secs(45);
/// One prefetch pull waits at most this long for its answer (and holds its server that long at
/// most).
pub(crate) const PREFETCH_PULL_CAP: Duration = Duration::from_secs(10);
/// At most this many files of one staged change are pulled ahead.
pub(crate) const PREFETCH_FILES_CAP: usize = 16;
/// How often a write check waiting for the prefetch's pull of its file looks again.
const IN_FLIGHT_POLL: Duration = Duration::from_millis(20);

/// One server's prefetch in progress.
#[derive(Default)]
struct Prefetch {
    /// Set by a write check (or a newer prefetch): send no further pull.
    stop: AtomicBool,
    /// The file whose pull is in flight.
    in_flight: Mutex<Option<PathBuf>>,
}

/// A prefetch thread as its supervisor keeps it: the stop flag and the handle to join.
pub(crate) struct PrefetchThread {
    prefetch: Arc<Prefetch>,
    handle: std::thread::JoinHandle<()>,
}

impl PrefetchThread {
    /// Asks the thread to send no further pull.
    pub(crate) fn stop(&self) {
        self.prefetch.stop.store(true, Ordering::SeqCst);
    }

    /// Whether the thread has ended.
    pub(crate) fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// Waits for the thread to end: at most one pull in flight ([`PREFETCH_PULL_CAP`]) once
    /// stopped.
    pub(crate) fn join(self) {
        let _ = self.handle.join();
    }
}

/// The prefetch in progress per server process (pid).
static PREFETCHES: LazyLock<Mutex<HashMap<u32, Arc<Prefetch>>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Starts taking the pre-write states of the existing files of `paths` (absolute) that a running
/// server answering pulls serves (see the module doc). Returns at once; starts no server.
/// Nothing happens when the run does not check writes or does not reuse pulled states
/// ([`crate::lsp::LspConfig::write_diagnostics_reuse_pulled_states`]).
pub(crate) fn prefetch_pre_write_states(supervisor: &LspSupervisor, paths: &[PathBuf]) {
    let config = supervisor.config();
    if !config.write_diagnostics || !config.write_diagnostics_reuse_pulled_states {
        return;
    }
    for server in supervisor.running_servers() {
        let write_check = server.definition().write_check;
        let pulls = write_check == WriteCheck::OpenImporters && server.supports("textDocument/diagnostic");
        if !pulls && write_check != WriteCheck::TsserverRequests {
            continue;
        }
        let files: Vec<PathBuf> = paths
            .iter()
            .filter(|path| path.starts_with(server.root()) && server.definition().serves(path) && path.is_file())
            .take(PREFETCH_FILES_CAP)
            .cloned()
            .collect();
        if files.is_empty() || server.exit_description().is_some() {
            continue;
        }
        let prefetch = Arc::new(Prefetch::default());
        if let Some(previous) = PREFETCHES.lock().insert(server.pid(), Arc::clone(&prefetch)) {
            previous.stop.store(true, Ordering::SeqCst);
        }
        let weak_server = Arc::downgrade(&server);
        let pid = server.pid();
        let name = format!("runbound-prefetch-{}", server.id());
        drop(server);
        let thread_prefetch = Arc::clone(&prefetch);
        let dependents_cap = if write_check == WriteCheck::TsserverRequests { config.write_diagnostics_dependents_cap } else { 0 };
        let spawned =
            std::thread::Builder::new().name(name).spawn(move || prefetch_on(&weak_server, pid, &files, dependents_cap, &thread_prefetch));
        // No thread: nothing is taken ahead; the write check pulls as before.
        if let Ok(handle) = spawned {
            supervisor.keep_prefetch_thread(PrefetchThread { prefetch, handle });
        }
    }
}

/// The prefetch thread's work on `server` (see the module doc): the states of `files`, then, for
/// tsserver (`dependents_cap` > 0), of the files that import them as the write check finds them.
fn prefetch_on(weak_server: &Weak<LanguageServer>, pid: u32, files: &[PathBuf], dependents_cap: usize, prefetch: &Arc<Prefetch>) {
    let Some(epoch) = weak_server.upgrade().map(|server| server.content_epoch()) else { return };
    let end = Instant::now() + PREFETCH_WINDOW;
    if take_states(weak_server, epoch, end, files, true, prefetch) && dependents_cap > 0 {
        let dependents = weak_server.upgrade().and_then(|server| {
            let deadline = end.min(Instant::now() + PREFETCH_PULL_CAP);
            crate::lsp::diagnostics_on_write::tsserver_dependents(&server, files, dependents_cap, deadline, None, &[], false).ok()
        });
        if let Some(dependents) = dependents {
            take_states(weak_server, epoch, end, &dependents.to_check, false, prefetch);
        }
    }
    let mut prefetches = PREFETCHES.lock();
    if prefetches.get(&pid).is_some_and(|current| Arc::ptr_eq(current, prefetch)) {
        prefetches.remove(&pid);
    }
}

/// Takes and remembers the state of each of `files` in turn (see the module doc), opening the
/// ones not open first when `open` (the files the change writes: their pre-write text is what the
/// write check compares with; tsserver reads the files that import them from its project, so
/// those need not be open). `true` when it went through them all, `false` when it stopped
/// (stopped, the epoch moved, the window ended, the server went away).
fn take_states(weak_server: &Weak<LanguageServer>, epoch: u64, end: Instant, files: &[PathBuf], open: bool, prefetch: &Prefetch) -> bool {
    for path in files {
        // Held for this file's pull only: a stopped server or a dropped run is not kept alive.
        let Some(server) = weak_server.upgrade() else { return false };
        if prefetch.stop.load(Ordering::SeqCst) || server.content_epoch() != epoch || Instant::now() >= end {
            return false;
        }
        if server.remembered_pull(path).is_some() {
            continue;
        }
        let tsserver = server.definition().write_check == WriteCheck::TsserverRequests;
        if open && server.document_text(path).is_none() {
            if server.sync_document(path).is_err() {
                continue;
            }
            // Closed again with the other documents opened only for checks (LRU); tsserver's
            // written files stay open, as the write check's own opening leaves them.
            if !tsserver {
                server.note_opened_for_check(path);
            }
        }
        *prefetch.in_flight.lock() = Some(path.clone());
        let pulled_at = server.content_epoch();
        let pull_deadline = end.min(Instant::now() + PREFETCH_PULL_CAP);
        let state = if tsserver {
            crate::lsp::diagnostics_on_write::tsserver_diagnostics(&server, path, pull_deadline).ok()
        } else {
            server.pull_diagnostics(path, pull_deadline).ok().flatten()
        };
        if let Some(items) = state {
            // Kept only when nothing was sent to the server meanwhile (same epoch).
            server.remember_pulled(path, pulled_at, &items);
        }
        *prefetch.in_flight.lock() = None;
    }
    true
}

/// Called by the write check before it pulls `path` itself: the prefetch on `server` sends no
/// further pull, and when its pull in flight is of `path`, this waits for it (until `end`) so
/// its answer is reused instead of pyright sharing its time between two pulls of one file.
/// Returns how long it waited.
pub(crate) fn before_own_pull(server: &LanguageServer, path: &Path, end: Instant) -> Duration {
    let started = Instant::now();
    let Some(prefetch) = PREFETCHES.lock().get(&server.pid()).cloned() else { return Duration::ZERO };
    prefetch.stop.store(true, Ordering::SeqCst);
    while prefetch.in_flight.lock().as_deref() == Some(path) && Instant::now() < end {
        std::thread::sleep(IN_FLIGHT_POLL);
    }
    started.elapsed()
}
