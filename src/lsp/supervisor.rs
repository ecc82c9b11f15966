//! [`LspSupervisor`]: one language-server process per (server id, root), started lazily,
//! restarted with backoff, reported by `status`, stopped with the run.
//!
//! Per call, a server serves a file only when its root marker is found **and** its binary
//! resolves (R-LSP-2); otherwise nothing is started and the error names the missing half and
//! what was looked for. A server found dead on the next call is restarted (after a backoff when
//! it keeps crashing soon after start), its documents are reopened, and the lease carries a note
//! saying so — never "broken forever".

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::events::{EventLevel, RunEvent};
use crate::lsp::client::{representative_file, LanguageServer, Readiness};
use crate::lsp::servers::{
    builtin_servers, configure_for_root, find_root, merge_servers, resolve_binary_for, BinaryLookup, ProjectSettings, RootLookup,
    ServerDefinition,
};
use crate::lsp::{LspConfig, WorkspaceEditApplier};
use crate::python_env::PythonInterpreter;
use crate::trust::{restricted_search_path, WorkspaceTrust};

/// A server ready for one call, plus notes the answer must carry (e.g. "restarted after a
/// crash").
#[derive(Debug, Clone)]
pub struct ServerLease {
    /// The running server.
    pub server: Arc<LanguageServer>,
    /// Notes for the answer, one line each.
    pub notes: Vec<String>,
}

/// Supervises the language servers of one run. Dropping it stops every server (shutdown, then
/// process group killed and reaped, threads joined), in parallel.
pub struct LspSupervisor {
    workspace_root: PathBuf,
    config: LspConfig,
    /// Restricted: nothing the checkout provides is run (see [`crate::lsp::trust`]).
    workspace_trust: WorkspaceTrust,
    table: Vec<Arc<ServerDefinition>>,
    instances: Mutex<BTreeMap<InstanceKey, Arc<Mutex<Instance>>>>,
    edit_applier: Arc<Mutex<Option<Arc<dyn WorkspaceEditApplier>>>>,
    /// Binary lookups per (server id, root), reused for [`BINARY_CACHE_TTL`]; `reload` clears it.
    binary_cache: Mutex<HashMap<(String, Option<PathBuf>), CachedBinary>>,
    /// The run's diagnostics-on-write ledger (R-DOW-2).
    ledger: crate::lsp::diagnostics_on_write::DiagnosticsLedger,
    /// The last `diagnostics "*"` run, for its later pages.
    checker_cache: crate::lsp::checker::CheckerCache,
    /// The scratch mirror where the project check of a TypeScript config with project
    /// references runs `tsc -b`, kept between checks (trial176 F1–F3).
    typescript_build_mirrors: crate::lsp::typescript_build_mode::TypeScriptBuildMirrors,
    /// The last answers of list requests (references, implementations, symbols), for their
    /// later pages.
    answer_cache: crate::lsp::listing::AnswerCache,
    /// The (server id, root, decision) workspace-trust decisions already announced as operator
    /// events, so each is told once per run, not on every call.
    announced_trust: Mutex<std::collections::HashSet<(String, PathBuf, String)>>,
    /// Confine servers' and checkers' file access with Landlock (default on; see
    /// [`crate::lsp::confinement`]).
    confine_file_access: bool,
    /// A server started without the confinement it was asked for has been said in an answer
    /// (once per run).
    confinement_gap_told: std::sync::atomic::AtomicBool,
    /// The project's directories outside the workspace (its repository, paths its manifests
    /// name), found on first use.
    project_outside_roots: Mutex<Option<ProjectOutsideRootsMemo>>,
    /// The outside roots confined servers may not read have been said in an answer (once per
    /// run).
    withheld_roots_told: std::sync::atomic::AtomicBool,
    /// What each server id offered when it last started in this run, from
    /// [`OFFER_PROBED_METHODS`]: an op one server lacks is answered from it, without starting the
    /// others just to learn their capabilities (trial27a M3).
    offers_seen_at_start: Mutex<HashMap<String, Vec<&'static str>>>,
    /// [`crate::lsp::sibling_roots::dependent_roots_scan`] per (server id, root), reused while the
    /// manifests it read are unchanged (see [`LspSupervisor::dependent_roots`]).
    dependent_roots_memo: Mutex<HashMap<(String, PathBuf), crate::lsp::sibling_roots::DependentRootsScan>>,
    /// Dependent roots whose project check before a write ran out of its budget (a cold build of
    /// their dependencies): the write check does not start it again on each write of this run
    /// (see [`LspSupervisor::dependent_root_check_too_slow`]); `reload` forgets them.
    dependent_root_checks_too_slow: Mutex<HashSet<PathBuf>>,
    /// [`crate::lsp::sibling_roots::dependency_dirs_scan`] per (server id, root), reused while
    /// the manifests it read are unchanged (see [`LspSupervisor::sibling_dependency_dirs`]).
    dependency_dirs_memo: Mutex<HashMap<(String, PathBuf), crate::lsp::sibling_roots::DependentRootsScan>>,
    /// The threads taking a staged change's pre-write states
    /// ([`crate::lsp::prefetch_states`]): stopped and joined when the supervisor drops, reaped
    /// as they finish whenever another starts.
    prefetch_threads: Mutex<Vec<crate::lsp::prefetch_states::PrefetchThread>>,
    /// The declaration lines renames of this run planned (written or staged), newest last, at
    /// most [`MAX_PLANNED_RENAMES`]: see [`LspSupervisor::declaration_renamed_in_run`].
    planned_renames: Mutex<Vec<PlannedRenameLine>>,
}

/// The most declaration lines [`LspSupervisor::record_planned_rename`] keeps (the oldest go).
pub(crate) const MAX_PLANNED_RENAMES: usize = 256;

/// One line a rename of this run planned to change from declaring `old_name` to declaring
/// `new_name`: its file (absolute), its 0-based line after the rename and the line's text then.
#[derive(Debug, Clone)]
pub(crate) struct PlannedRenameLine {
    path: PathBuf,
    line0: u32,
    text_after: String,
    old_name: String,
    new_name: String,
}

/// The methods whose offer a server makes at its start is remembered for the run
/// ([`LspSupervisor::offer_seen_at_start`]): the ops one server of a language may lack.
pub(crate) const OFFER_PROBED_METHODS: &[&str] = &[
    "textDocument/prepareTypeHierarchy",
    "typeHierarchy/supertypes",
    "typeHierarchy/subtypes",
    "textDocument/prepareCallHierarchy",
    "callHierarchy/incomingCalls",
    "callHierarchy/outgoingCalls",
    "textDocument/implementation",
    "textDocument/typeDefinition",
    "textDocument/codeAction",
    "textDocument/documentSymbol",
    "textDocument/diagnostic",
];

/// (server id, root): one process each.
type InstanceKey = (String, PathBuf);

/// A binary lookup and when it was made.
type CachedBinary = (Instant, BinaryLookup);

/// How long a binary lookup (found or not) is reused before `PATH` is searched again.
const BINARY_CACHE_TTL: Duration = Duration::from_secs(30);

/// [`LspSupervisor::project_outside_roots`]'s memo: the roots, and the stamps of the manifests
/// they were found from.
struct ProjectOutsideRootsMemo {
    manifest_stamps: Vec<(Option<std::time::SystemTime>, u64)>,
    roots: Arc<Vec<crate::lsp::confinement::ProjectOutsideRoot>>,
}

#[derive(Default)]
struct Instance {
    server: Option<Arc<LanguageServer>>,
    /// Restarts after a crash or by `reload`.
    restarts: u32,
    /// Crashes or start failures in a row (each soon after a start); drives the backoff.
    consecutive_failures: u32,
    last_start_attempt: Option<Instant>,
    last_exit: Option<String>,
    last_start_error: Option<String>,
    /// Failed starts in a row (spawn or `initialize` failures); drives the start backoff.
    start_failures: u32,
    /// No new start before this instant after a failed start (calls answer with the failure).
    next_start_at: Option<Instant>,
    /// Documents to reopen on the next start.
    reopen: Vec<PathBuf>,
    /// Restricted runs: the line every answer of the running process carries (what restricted
    /// mode turned off).
    restricted_note: Option<String>,
    /// Servers with Python project settings: the interpreter the running process was given
    /// (or why none resolved), its fingerprint, and when it was last compared with a fresh
    /// resolution.
    interpreter: Option<InterpreterInUse>,
    /// The workspace root's identity (device, inode) when the running process was started
    /// confined: its Landlock rule holds that directory, not the path (see
    /// [`workspace_root_identity`]).
    confined_root_identity: Option<(u64, u64)>,
}

/// The identity (device, inode) of the directory `path` names now, `None` when it is gone.
/// A Landlock rule is bound to the directory it was opened on: once the workspace directory is
/// removed and created again (`rm -rf ws && cp -a pristine ws`, a checkout that replaces the
/// tree), a server confined at its start may read nothing of the new one (trial178 F1: gopls
/// answered `go.work: permission denied` and "No packages found" for every file).
fn workspace_root_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|metadata| (metadata.dev(), metadata.ino()))
}

/// The first three of `paths`, joined by `, ` (a note's short list; the status lists them all).
fn first_paths(paths: &[PathBuf]) -> String {
    paths.iter().take(3).map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Raises an operator event about a language server (see [`crate::events`]).
fn lsp_event(level: EventLevel, message: String) {
    crate::events::emit(RunEvent::new(level, "lsp", message));
}

/// The interpreter a running Python server was configured with.
struct InterpreterInUse {
    resolved: Result<PythonInterpreter, String>,
    fingerprint: String,
    checked_at: Instant,
}

/// How often a lease compares a running Python server's interpreter with a fresh resolution
/// (a `.venv` created, a package installed or removed since the start).
const INTERPRETER_RECHECK: Duration = Duration::from_secs(3);

/// A server that lives at least this long before crashing does not count towards the backoff.
const HEALTHY_UPTIME: Duration = Duration::from_secs(30);

/// The most project roots below the workspace root (none at its top) that a cold workspace-wide
/// query (`symbols` with a `query` and no `file`) starts a server for; with more, it asks for a
/// `file` and lists them.
pub const WORKSPACE_QUERY_ROOTS_STARTED: usize = 4;

impl LspSupervisor {
    /// A supervisor for `workspace_root` (absolute, canonical). Starts nothing.
    pub fn new(workspace_root: &Path, config: LspConfig) -> LspSupervisor {
        let mut table = builtin_servers();
        merge_servers(&mut table, &config.servers);
        table.retain(|definition| !config.disabled_servers.contains(&definition.id));
        LspSupervisor {
            workspace_root: workspace_root.to_path_buf(),
            table: table.into_iter().map(Arc::new).collect(),
            config,
            workspace_trust: WorkspaceTrust::Trusted,
            instances: Mutex::new(BTreeMap::new()),
            edit_applier: Arc::new(Mutex::new(None)),
            binary_cache: Mutex::new(HashMap::new()),
            ledger: crate::lsp::diagnostics_on_write::DiagnosticsLedger::default(),
            checker_cache: crate::lsp::checker::CheckerCache::default(),
            typescript_build_mirrors: crate::lsp::typescript_build_mode::TypeScriptBuildMirrors::default(),
            answer_cache: crate::lsp::listing::AnswerCache::default(),
            announced_trust: Mutex::new(std::collections::HashSet::new()),
            confine_file_access: true,
            confinement_gap_told: std::sync::atomic::AtomicBool::new(false),
            project_outside_roots: Mutex::new(None),
            withheld_roots_told: std::sync::atomic::AtomicBool::new(false),
            offers_seen_at_start: Mutex::new(HashMap::new()),
            dependent_roots_memo: Mutex::new(HashMap::new()),
            dependent_root_checks_too_slow: Mutex::new(HashSet::new()),
            dependency_dirs_memo: Mutex::new(HashMap::new()),
            prefetch_threads: Mutex::new(Vec::new()),
            planned_renames: Mutex::new(Vec::new()),
        }
    }

    /// The supervisor with the file-access confinement of its language servers and project
    /// checkers on (`true`, the default) or off (see [`crate::lsp::confinement`] and
    /// [`crate::RunBuilder::confine_language_server_file_access`]). Set it before the first
    /// server starts.
    #[must_use]
    pub fn with_file_access_confinement(mut self, confine: bool) -> LspSupervisor {
        self.confine_file_access = confine;
        self
    }

    /// Whether servers and checkers start confined (see
    /// [`LspSupervisor::with_file_access_confinement`]).
    pub fn confines_file_access(&self) -> bool {
        self.confine_file_access
    }

    /// The confinement for a server or checker started from `binary` (with the project's
    /// `interpreter`, if any); `None` when the run opted out.
    pub(crate) fn file_access_confinement(
        &self,
        binary: &Path,
        interpreter: Option<&Path>,
    ) -> Option<crate::transport::FilesystemConfinement> {
        self.confine_file_access
            .then(|| crate::lsp::confinement::tool_confinement(&self.workspace_root, binary, interpreter, &self.project_outside_roots()))
    }

    /// The project's directories outside the workspace that servers and checkers read
    /// ([`crate::lsp::confinement::project_outside_roots`] for this run's root and trust), found
    /// again only when a manifest they come from changed (its modification time or size: a
    /// `path =` added to `Cargo.toml` mid-run — trial23 F3 — is granted to the next server
    /// start, and `reload` brings it to the running ones).
    pub(crate) fn project_outside_roots(&self) -> Arc<Vec<crate::lsp::confinement::ProjectOutsideRoot>> {
        let stamps = crate::lsp::confinement::project_manifest_stamps(&self.workspace_root);
        let mut memo = self.project_outside_roots.lock();
        if let Some(known) = memo.as_ref().filter(|known| known.manifest_stamps == stamps) {
            return Arc::clone(&known.roots);
        }
        let roots = Arc::new(crate::lsp::confinement::project_outside_roots(&self.workspace_root, self.workspace_trust));
        *memo = Some(ProjectOutsideRootsMemo { manifest_stamps: stamps, roots: Arc::clone(&roots) });
        roots
    }

    /// The readable outside roots that a running server was started without (the manifests
    /// named them after it started), per server (`id @ root`): it may not read them (confined)
    /// and does not watch them until `reload` restarts it. Empty when every running server has
    /// them all.
    fn outside_roots_newer_than_servers(&self) -> Vec<(String, Vec<PathBuf>)> {
        let readable = self.readable_project_outside_roots();
        let mut missing = Vec::new();
        for server in self.running_servers() {
            let watched = server.watched_project_outside_roots();
            let new: Vec<PathBuf> = readable.iter().filter(|root| !watched.contains(root)).cloned().collect();
            if !new.is_empty() {
                missing.push((format!("{} @ {}", server.id(), self.display_path(server.root())), new));
            }
        }
        missing
    }

    /// The paths of [`LspSupervisor::project_outside_roots`] that are granted: code there is
    /// quoted like dependency code (a withheld one is named, not quoted, confined or not).
    pub(crate) fn granted_project_outside_roots(&self) -> Vec<PathBuf> {
        self.project_outside_roots().iter().filter(|root| root.granted).map(|root| root.path.clone()).collect()
    }

    /// The paths of [`LspSupervisor::project_outside_roots`] the servers read: the granted ones,
    /// and every one when the run does not confine (an unconfined server reads a withheld path
    /// dependency too). Each server's resync watches them
    /// ([`LanguageServer::watch_project_outside_roots`]).
    fn readable_project_outside_roots(&self) -> Vec<PathBuf> {
        self.project_outside_roots().iter().filter(|root| root.granted || !self.confine_file_access).map(|root| root.path.clone()).collect()
    }

    /// The outside roots some running server does not watch for hand edits (too many files, not
    /// listable), with why, each once: a change there reaches that server only after `reload`.
    fn unwatched_project_outside_roots(&self) -> Vec<(PathBuf, String)> {
        let mut unwatched: Vec<(PathBuf, String)> = Vec::new();
        for server in self.running_servers() {
            for (root, why) in server.unwatched_project_outside_roots() {
                if !unwatched.iter().any(|(known, _)| *known == root) {
                    unwatched.push((root, why));
                }
            }
        }
        unwatched
    }

    /// The paths of [`LspSupervisor::project_outside_roots`] that confined servers may not read
    /// (none when the run does not confine).
    pub(crate) fn withheld_project_outside_roots(&self) -> Vec<PathBuf> {
        if !self.confine_file_access {
            return Vec::new();
        }
        self.project_outside_roots().iter().filter(|root| !root.granted).map(|root| root.path.clone()).collect()
    }

    /// The notes a file-diagnostics answer carries about the project's outside roots: the ones
    /// confined servers may not read (errors in code that uses them can be missing), and the
    /// readable ones a running server does not watch (too many files: a change made there by hand
    /// reaches it after `reload`). Empty when there are none of either.
    pub(crate) fn outside_roots_diagnostics_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for (server, new) in self.outside_roots_newer_than_servers() {
            notes.push(format!(
                "note: the project's manifests now name {} outside the workspace, which {server} was started without: it may not read {} (file access confinement) and errors in code that uses {} can be missing or stale here — `lsp` op reload restarts it with access",
                first_paths(&new),
                crate::render::one_or_many(new.len(), "it", "them"),
                crate::render::one_or_many(new.len(), "it", "them"),
            ));
        }
        if let Some((count, shown)) = self.withheld_roots_summary() {
            notes.push(format!(
                "note: the servers may not read {count} of the project's files outside the workspace ({shown}): errors in code that uses them can be missing here; `lsp` op status lists them"
            ));
        }
        let unwatched = self.unwatched_project_outside_roots();
        if !unwatched.is_empty() {
            let shown: Vec<String> = unwatched.iter().take(3).map(|(root, why)| format!("{} ({why})", root.display())).collect();
            notes.push(format!(
                "note: files changed by hand in {} of the project's directories outside the workspace are NOT re-synced ({}): such a change reaches the servers only after `lsp` op reload; until then answers about code that uses it can be stale",
                unwatched.len(),
                shown.join(", ")
            ));
        }
        notes
    }

    /// The withheld outside roots ([`LspSupervisor::withheld_project_outside_roots`]) said
    /// briefly: (`2 paths`, the first three joined by `, `); `None` when there are none.
    pub(crate) fn withheld_roots_summary(&self) -> Option<(String, String)> {
        let withheld = self.withheld_project_outside_roots();
        (!withheld.is_empty()).then(|| (crate::render::plural(withheld.len(), "path"), first_paths(&withheld)))
    }

    /// The note the first answer of a confined run carries when the project names directories
    /// outside the workspace that confined servers may not read (`None` afterwards, and when
    /// there are none or the run opted out of confinement).
    fn withheld_roots_note(&self) -> Option<String> {
        if !self.confine_file_access {
            return None;
        }
        let mut withheld: Vec<String> = self
            .project_outside_roots()
            .iter()
            .filter(|root| !root.granted)
            .map(|root| format!("{} ({}; {})", root.path.display(), root.why, root.withheld_because.as_deref().unwrap_or("not granted")))
            .collect();
        if withheld.is_empty() || self.withheld_roots_told.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        const LISTED: usize = 8;
        if withheld.len() > LISTED {
            let more = withheld.len() - LISTED;
            withheld.truncate(LISTED);
            withheld.push(format!("and {more} more (`lsp` op status lists them)"));
        }
        let restricted = self
            .project_outside_roots()
            .iter()
            .any(|root| root.withheld_because.as_deref().is_some_and(|because| because.starts_with("workspace trust is restricted")));
        let next = if restricted {
            "; a human who trusts this checkout can run with --workspace-trust trusted (the paths its manifests name become readable)"
        } else {
            ""
        };
        Some(format!(
            "note: the project reads files outside the workspace that confined servers and checkers may NOT read: {}. Answers about code that uses them may be wrong (unresolved names, no hover, a checker refused with Permission denied){next}",
            withheld.join("; ")
        ))
    }

    /// The note the first answer of the run carries when `server` was asked to run confined
    /// and is not (`None` afterwards, and when it is confined or the run opted out).
    fn confinement_gap_note(&self, server: &LanguageServer) -> Option<String> {
        let Some(crate::transport::ConfinementOutcome::NotConfined { reason }) = server.filesystem_confinement() else {
            return None;
        };
        if self.confinement_gap_told.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let message = format!(
            "note: {} (pid {}): server file reads not confined: {reason}. A symlink in the workspace that leads outside it can make the server read and quote that file; `lsp` op status says which servers run confined",
            server.id(),
            server.pid()
        );
        lsp_event(EventLevel::Warning, message.trim_start_matches("note: ").to_owned());
        Some(message)
    }

    /// Raises a workspace-trust decision about `id` at `root` as an operator event (a server
    /// refused: warning; started with restrictions: notice), once per run for each decision.
    fn announce_trust_decision(&self, level: EventLevel, id: &str, root: &Path, message: String) {
        if self.announced_trust.lock().insert((id.to_owned(), root.to_path_buf(), message.clone())) {
            crate::events::emit(RunEvent::new(level, "lsp", message).with_data(json!({
                "server": id,
                "root": self.display_path(root),
                "workspace_trust": self.workspace_trust,
            })));
        }
    }

    /// The supervisor with `trust` as its workspace trust level (default trusted; the run
    /// builder passes the run's). Set it before the first server starts.
    #[must_use]
    pub fn with_workspace_trust(mut self, trust: WorkspaceTrust) -> LspSupervisor {
        self.workspace_trust = trust;
        self
    }

    /// The workspace trust level servers and checkers start under.
    pub fn workspace_trust(&self) -> WorkspaceTrust {
        self.workspace_trust
    }

    /// The configuration.
    pub fn config(&self) -> &LspConfig {
        &self.config
    }

    /// The workspace root.
    pub fn workspace_root(&self) -> &Path {
        &self.workspace_root
    }

    /// The merged server table, in preference order.
    pub fn servers(&self) -> impl Iterator<Item = &ServerDefinition> {
        self.table.iter().map(|definition| &**definition)
    }

    /// Installs the applier used for servers' `workspace/applyEdit` requests (all servers, also
    /// those already running).
    pub(crate) fn set_workspace_edit_applier(&self, applier: Arc<dyn WorkspaceEditApplier>) {
        *self.edit_applier.lock() = Some(applier);
    }

    /// Remembers the declaration lines a rename's plan changes from `old_name` to `new_name`
    /// (texts before and after of each changed file: a `def`, `class` or assignment of the name
    /// whose words differ only by that name), written or staged alike: [`LspSupervisor::declaration_renamed_in_run`] asks it.
    pub(crate) fn record_planned_rename(&self, texts: &[(&Path, String, String)], old_name: &str, new_name: &str) {
        let mut planned = self.planned_renames.lock();
        for (path, before, after) in texts {
            for (line0, (old_line, new_line)) in before.split('\n').zip(after.split('\n')).enumerate() {
                // Declaration lines only (`def new`, `class new`, `new = …`, `self.new = …`): a
                // rename's uses would crowd them out of the cap (review46 #5).
                let declares = {
                    let trimmed = new_line.trim_start();
                    let trimmed = trimmed.strip_prefix("async ").unwrap_or(trimmed);
                    let trimmed = trimmed.strip_prefix("self.").or_else(|| trimmed.strip_prefix("cls.")).unwrap_or(trimmed);
                    [format!("def {new_name}("), format!("class {new_name}"), format!("{new_name} ="), format!("{new_name}:")]
                        .iter()
                        .any(|start| trimmed.starts_with(start.as_str()))
                };
                if declares
                    && old_line != new_line
                    && crate::lsp::rename_coverage::text_with_word_renamed(old_line, old_name, new_name) == new_line
                {
                    planned.push(PlannedRenameLine {
                        path: path.to_path_buf(),
                        line0: line0 as u32,
                        text_after: new_line.to_owned(),
                        old_name: old_name.to_owned(),
                        new_name: new_name.to_owned(),
                    });
                }
            }
        }
        let excess = planned.len().saturating_sub(MAX_PLANNED_RENAMES);
        planned.drain(..excess);
    }

    /// Whether 0-based `line0` of `path`, whose text is `line_text` now, is a line a rename of
    /// this run changed from `old_name` to `new_name` (planned so, and reading as planned): a
    /// member named `new_name` there was renamed from `old_name`, so renaming another member of
    /// its hierarchy from `old_name` to `new_name` restores what the first rename split
    /// (trial154 M1).
    pub(crate) fn declaration_renamed_in_run(&self, path: &Path, line0: u32, line_text: &str, old_name: &str, new_name: &str) -> bool {
        self.planned_renames.lock().iter().any(|planned| {
            planned.line0 == line0
                && planned.path == path
                && planned.text_after.trim_end() == line_text.trim_end()
                && planned.old_name == old_name
                && planned.new_name == new_name
        })
    }

    /// The run's diagnostics-on-write ledger (R-DOW-2).
    pub(crate) fn diagnostics_ledger(&self) -> &crate::lsp::diagnostics_on_write::DiagnosticsLedger {
        &self.ledger
    }

    /// The last `diagnostics "*"` run (reused by its later pages while no file changed).
    pub(crate) fn checker_cache(&self) -> &crate::lsp::checker::CheckerCache {
        &self.checker_cache
    }

    /// The scratch mirror of the workspace where TypeScript configs with project references are
    /// built for the project check ([`crate::lsp::typescript_build_mode`]).
    pub(crate) fn typescript_build_mirrors(&self) -> &crate::lsp::typescript_build_mode::TypeScriptBuildMirrors {
        &self.typescript_build_mirrors
    }

    /// The last answers of list requests, reused by their later pages while no file changed.
    pub(crate) fn answer_cache(&self) -> &crate::lsp::listing::AnswerCache {
        &self.answer_cache
    }

    /// Keeps `thread` (a prefetch of pre-write states) to be stopped and joined when the
    /// supervisor drops; the threads that finished already are joined now.
    pub(crate) fn keep_prefetch_thread(&self, thread: crate::lsp::prefetch_states::PrefetchThread) {
        let mut threads = self.prefetch_threads.lock();
        let (finished, running): (Vec<_>, Vec<_>) = std::mem::take(&mut *threads).into_iter().partition(|kept| kept.is_finished());
        *threads = running;
        threads.push(thread);
        drop(threads);
        for kept in finished {
            kept.join();
        }
    }

    /// The running servers (for post-write layers that sync written files).
    pub(crate) fn running_servers(&self) -> Vec<Arc<LanguageServer>> {
        let slots: Vec<Arc<Mutex<Instance>>> = self.instances.lock().values().cloned().collect();
        slots.iter().filter_map(|slot| slot.lock().server.clone()).filter(|server| server.exit_description().is_none()).collect()
    }

    /// The server that serves `file` (absolute, canonical, under the workspace), started if
    /// needed, restarted if it died. `server_id` forces one server of the table.
    ///
    /// # Errors
    /// `invalid_arguments` for an unknown `server_id` or a file type no server serves;
    /// `unavailable` when no server has both halves (root marker and binary), naming per server
    /// which half is missing and what was looked for, or when the start fails; `timeout` when the
    /// deadline passes while waiting for a start.
    pub(crate) fn server_for_file(&self, file: &Path, server_id: Option<&str>, deadline: Instant) -> Result<ServerLease, ToolError> {
        let (definition, root, binary) = self.choose(file, server_id)?;
        self.lease(&definition, &root, &binary, deadline)
    }

    /// Which server would serve `file`, with its root and binary, without starting anything.
    ///
    /// # Errors
    /// As [`LspSupervisor::server_for_file`], minus start failures.
    pub(crate) fn choose(&self, file: &Path, server_id: Option<&str>) -> Result<(Arc<ServerDefinition>, PathBuf, PathBuf), ToolError> {
        if let Some(id) = server_id {
            if !self.table.iter().any(|definition| definition.id == id) {
                let ids: Vec<&str> = self.table.iter().map(|definition| definition.id.as_str()).collect();
                return Err(ToolError::invalid(format!("no language server with id {id:?} is configured"))
                    .with_hint(format!("use one of: {}", ids.join(", "))));
            }
        }
        let candidates: Vec<&Arc<ServerDefinition>> =
            self.table.iter().filter(|definition| definition.serves(file) && server_id.is_none_or(|id| definition.id == id)).collect();
        let relative = self.display_path(file);
        if candidates.is_empty() {
            let extension = file.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
            let served: Vec<String> = self
                .table
                .iter()
                .map(|definition| {
                    format!(
                        "{} ({})",
                        definition.id,
                        definition.extensions.iter().map(|(ext, _)| format!(".{ext}")).collect::<Vec<_>>().join(" ")
                    )
                })
                .collect();
            let what = match server_id {
                Some(id) => format!("{id} does not serve {relative} (extension {extension:?})"),
                None => format!("no language server is configured for {relative} (extension {extension:?})"),
            };
            return Err(ToolError::new(ErrorKind::Unavailable, what).with_hint(format!("configured servers: {}", served.join("; "))));
        }
        let path_env = self.path_env();
        let mut reasons = Vec::new();
        let mut refused = false;
        for definition in candidates {
            let root_lookup = find_root(definition, &self.workspace_root, file);
            let binary_lookup = self.cached_binary(definition, root_lookup.root.as_deref(), path_env.as_ref());
            match (&root_lookup.root, &binary_lookup.path) {
                (Some(root), Some(binary)) => match self.restricted_refusal(definition, root) {
                    None => return Ok((Arc::clone(definition), root.clone(), binary.clone())),
                    Some(why) => {
                        refused = true;
                        self.announce_trust_decision(
                            EventLevel::Warning,
                            &definition.id,
                            root,
                            format!("workspace trust: restricted — {} @ {} is not started: {why}", definition.id, self.display_path(root)),
                        );
                        reasons.push(format!("{}: not started in a restricted workspace: {why}", definition.id));
                    }
                },
                _ => reasons.push(self.describe_missing_half(definition, &root_lookup, &binary_lookup)),
            }
        }
        if refused {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("no language server can serve {relative}: {}", reasons.join("; ")))
                .with_hint("workspace trust is restricted, so nothing the checkout provides is run; a human who trusts this checkout can pass --workspace-trust trusted (RunBuilder::workspace_trust)")
                .with_details(json!({"reasons": reasons, "workspace_trust": self.workspace_trust})));
        }
        Err(ToolError::new(ErrorKind::Unavailable, format!("no language server can serve {relative}: {}", reasons.join("; ")))
            .with_hint(
                "nothing was started; install the missing binary or add the missing root marker (`lsp` op status lists every server)",
            )
            .with_details(json!({"reasons": reasons})))
    }

    /// Every server of the table (in preference order) that serves `file` with both halves
    /// present — its root marker found and its binary resolved — without starting anything.
    pub(crate) fn installed_for_file(&self, file: &Path) -> Vec<(Arc<ServerDefinition>, PathBuf, PathBuf)> {
        let path_env = self.path_env();
        self.table
            .iter()
            .filter(|definition| definition.serves(file))
            .filter_map(|definition| {
                let root = find_root(definition, &self.workspace_root, file).root?;
                let binary = self.cached_binary(definition, Some(&root), path_env.as_ref()).path?;
                self.restricted_refusal(definition, &root).is_none().then(|| (Arc::clone(definition), root, binary))
            })
            .collect()
    }

    /// Whether `id` runs (alive) for `root`.
    pub fn is_running(&self, id: &str, root: &Path) -> bool {
        let slot = self.instances.lock().get(&(id.to_owned(), root.to_path_buf())).cloned();
        slot.is_some_and(|slot| slot.lock().server.as_ref().is_some_and(|server| server.exit_description().is_none()))
    }

    /// The server `server_id` (an id of the table) for the project root `root` (a directory
    /// holding its root marker), started if needed, as [`LspSupervisor::server_for_file`] would
    /// for a file of that root (trust refusals and restarts alike). Used to ask another root's
    /// server about a file it loads as a dependency (`lsp::sibling_roots`).
    ///
    /// # Errors
    /// `invalid_arguments` for an unknown id; `unavailable` when its binary is missing or the
    /// run's trust refuses it; start failures as [`LspSupervisor::server_for_file`].
    pub(crate) fn server_for_root(&self, server_id: &str, root: &Path, deadline: Instant) -> Result<ServerLease, ToolError> {
        let Some(definition) = self.table.iter().find(|definition| definition.id == server_id).cloned() else {
            return Err(ToolError::invalid(format!("no language server with id {server_id:?} is configured")));
        };
        if let Some(why) = self.restricted_refusal(&definition, root) {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("{server_id} is not started for {}: {why}", self.display_path(root)),
            ));
        }
        let path_env = self.path_env();
        let Some(binary) = self.cached_binary(&definition, Some(root), path_env.as_ref()).path else {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("{server_id}'s binary was not found for {}", self.display_path(root)),
            ));
        };
        self.lease(&definition, root, &binary, deadline)
    }

    /// Stops the server `id` for `root`, if it runs (it starts again on its next use).
    pub fn stop_server(&self, id: &str, root: &Path) {
        self.stop(id, root);
    }

    /// The servers a workspace-wide query (`workspace/symbol` without a file) asks: every running
    /// server, plus — started now if needed — the servers whose root marker sits at the
    /// workspace root, or, when no marker sits there, those of the project roots below it when
    /// nothing runs yet and there are at most [`WORKSPACE_QUERY_ROOTS_STARTED`]. Per root and language only the first installed server of the table counts
    /// (pyright, not also basedpyright and pylsp), unless `server_id` names one. Returns the
    /// leases and notes (servers skipped, start failures).
    ///
    /// # Errors
    /// `unavailable` when nothing runs and no server can start: the workspace has no root marker
    /// at its top and more project roots below than [`WORKSPACE_QUERY_ROOTS_STARTED`] (they are
    /// listed), or none at all, or every start failed.
    pub(crate) fn workspace_query_servers(
        &self,
        server_id: Option<&str>,
        deadline: Instant,
    ) -> Result<(Vec<ServerLease>, Vec<String>), ToolError> {
        let wanted = |id: &str| server_id.is_none_or(|wanted| wanted == id);
        let mut leases: Vec<ServerLease> = self
            .running_servers()
            .into_iter()
            .filter(|server| wanted(server.id()))
            .map(|server| {
                let mut notes: Vec<String> = self.restricted_note_of(server.id(), server.root()).into_iter().collect();
                notes.extend(self.project_config_note(server.definition(), server.root()));
                ServerLease { server, notes }
            })
            .collect();
        let mut notes = Vec::new();
        // (definition, root) pairs with a marker at the workspace root, else of the one root.
        let probe = self.workspace_root.join(".runbound-probe");
        let table: Vec<&Arc<ServerDefinition>> = self.table.iter().filter(|definition| wanted(&definition.id)).collect();
        let mut at_top: Vec<(&Arc<ServerDefinition>, PathBuf)> = table
            .iter()
            .filter_map(|definition| {
                let root = find_root(definition, &self.workspace_root, &probe).root?;
                (root == self.workspace_root).then_some((*definition, root))
            })
            .collect();
        let mut roots_below: Vec<PathBuf> = Vec::new();
        if at_top.is_empty() {
            let marker_dirs = scan_marker_dirs(&self.workspace_root, &self.table);
            let mut pairs: Vec<(&Arc<ServerDefinition>, PathBuf)> = Vec::new();
            for definition in &table {
                for marker in &definition.root_markers {
                    for dir in marker_dirs.get(marker.as_str()).into_iter().flatten() {
                        if let Some(root) = find_root(definition, &self.workspace_root, &dir.join(".runbound-probe")).root {
                            if !pairs.iter().any(|(d, r)| d.id == definition.id && r == &root) {
                                pairs.push((*definition, root));
                            }
                        }
                    }
                }
            }
            for (_, root) in &pairs {
                if !roots_below.contains(root) {
                    roots_below.push(root.clone());
                }
            }
            roots_below.sort();
            // A few roots below and no server running yet (a library beside its downstream
            // crate): each is started, rather than asking for a `file` (trial130 M9: a cold
            // `symbols` query failed, the same query after any other call worked).
            if roots_below.len() == 1 || (roots_below.len() <= WORKSPACE_QUERY_ROOTS_STARTED && leases.is_empty()) {
                at_top = pairs;
            }
        }
        let path_env = self.path_env();
        let mut chosen: Vec<(Arc<ServerDefinition>, PathBuf)> = Vec::new();
        for (definition, root) in at_top {
            let overlaps =
                |other: &ServerDefinition| other.extensions.iter().any(|(ext, _)| definition.extensions.iter().any(|(e, _)| e == ext));
            // One server per root and language: a running one, or the first installed one.
            let covered = chosen.iter().any(|(other, other_root)| other_root == &root && overlaps(other))
                || leases.iter().any(|lease| lease.server.root() == root && overlaps(lease.server.definition()));
            if covered {
                continue;
            }
            if self.cached_binary(definition, Some(&root), path_env.as_ref()).path.is_none() {
                continue;
            }
            if let Some(why) = self.restricted_refusal(definition, &root) {
                self.announce_trust_decision(
                    EventLevel::Warning,
                    &definition.id,
                    &root,
                    format!("workspace trust: restricted — {} @ {} is not started: {why}", definition.id, self.display_path(&root)),
                );
                notes.push(format!(
                    "note: {} @ {} not started (workspace trust restricted): {why}",
                    definition.id,
                    self.display_path(&root)
                ));
                continue;
            }
            chosen.push((Arc::clone(definition), root));
        }
        // The project roots that depend on a chosen or running root by path (a consumer module,
        // a `downstream/` crate): their symbols are in none of that root's answers (trial102 M3,
        // trial106 M3, trial103 M1: the consumer's `Describe` missing, with a wrong reason).
        let mut dependents: Vec<(Arc<ServerDefinition>, PathBuf, PathBuf)> = Vec::new();
        let bases: Vec<(Arc<ServerDefinition>, PathBuf)> = chosen
            .iter()
            .cloned()
            .chain(leases.iter().map(|lease| (Arc::new(lease.server.definition().clone()), lease.server.root().to_path_buf())))
            .collect();
        for (definition, root) in &bases {
            if crate::lsp::sibling_roots::manifest_name(&definition.id).is_none() {
                continue;
            }
            for dependent in self.dependent_roots(&definition.id, root).roots {
                let covered = chosen.iter().any(|(other, other_root)| other.id == definition.id && *other_root == dependent)
                    || leases.iter().any(|lease| lease.server.id() == definition.id && lease.server.root() == dependent)
                    || dependents.iter().any(|(other, other_root, _)| other.id == definition.id && *other_root == dependent);
                if !covered && self.restricted_refusal(definition, &dependent).is_none() {
                    dependents.push((Arc::clone(definition), dependent, root.clone()));
                }
            }
        }
        let chosen: Vec<(Arc<ServerDefinition>, PathBuf, Option<PathBuf>)> = chosen
            .into_iter()
            .map(|(definition, root)| (definition, root, None))
            .chain(dependents.into_iter().map(|(definition, root, base)| (definition, root, Some(base))))
            .collect();
        for (definition, root, depends_on) in chosen {
            let Some(binary) = self.cached_binary(&definition, Some(&root), path_env.as_ref()).path else { continue };
            match self.lease(&definition, &root, &binary, deadline) {
                Ok(lease) => {
                    notes.push(match &depends_on {
                        Some(base) => format!(
                            "note: started {} for {} to answer a workspace-wide query (a project root that depends on {} by path)",
                            definition.id,
                            self.display_path(&root),
                            self.display_path(base)
                        ),
                        None => {
                            format!("note: started {} for {} to answer a workspace-wide query", definition.id, self.display_path(&root))
                        }
                    });
                    leases.push(lease);
                }
                Err(err) => notes.push(format!(
                    "note: NOT searched: {} @ {} could not be asked: {}",
                    definition.id,
                    self.display_path(&root),
                    err.message
                )),
            }
        }
        if leases.is_empty() {
            let what = if roots_below.len() > 1 {
                format!(
                    "no language server is running and the workspace has no project root at its top but {} below it ({})",
                    roots_below.len(),
                    roots_below.iter().map(|root| self.display_path(root)).collect::<Vec<_>>().join(", ")
                )
            } else if notes.is_empty() {
                "no language server is running and none can start for the workspace root (no root marker with an installed server)"
                    .to_owned()
            } else {
                format!("no language server could be started for a workspace-wide query: {}", notes.join("; "))
            };
            return Err(ToolError::new(ErrorKind::Unavailable, what)
                .with_hint("pass `file` (a source file of the project to search) with `query`, so runbound knows which server to start; `lsp` op status lists the roots"));
        }
        Ok((leases, notes))
    }

    /// Restarts the servers for the root of `file` (every server serving it that is running or
    /// can start), or every running server when `file` is `None`. Returns one line per server.
    ///
    /// # Errors
    /// When `file` is given and no server can serve it.
    pub fn reload(&self, file: Option<&Path>, deadline: Instant) -> Result<Vec<String>, ToolError> {
        self.binary_cache.lock().clear();
        self.dependent_roots_memo.lock().clear();
        self.dependent_root_checks_too_slow.lock().clear();
        self.dependency_dirs_memo.lock().clear();
        let keys: Vec<(Arc<ServerDefinition>, PathBuf, Option<PathBuf>)> = match file {
            Some(file) => {
                let (definition, root, binary) = self.choose(file, None)?;
                vec![(definition, root, Some(binary))]
            }
            None => {
                let slots: Vec<(InstanceKey, Arc<Mutex<Instance>>)> =
                    self.instances.lock().iter().map(|(key, slot)| (key.clone(), Arc::clone(slot))).collect();
                slots
                    .iter()
                    .filter(|(_, slot)| slot.lock().server.is_some())
                    .filter_map(|((id, root), _)| self.table.iter().find(|d| &d.id == id).map(|d| (Arc::clone(d), root.clone(), None)))
                    .collect()
            }
        };
        if keys.is_empty() {
            return Ok(vec!["no language server is running; nothing to reload (servers start on first use)".to_owned()]);
        }
        let mut lines = Vec::new();
        for (definition, root, binary) in keys {
            let binary = match binary {
                Some(binary) => binary,
                None => {
                    match resolve_binary_for(&definition, Some(&root), &self.workspace_root, self.path_env().as_ref(), self.workspace_trust)
                        .path
                    {
                        Some(binary) => binary,
                        None => {
                            lines.push(format!("{} @ {}: binary no longer found; stopped", definition.id, self.display_path(&root)));
                            self.stop(&definition.id, &root);
                            continue;
                        }
                    }
                }
            };
            let slot = self.slot(&definition.id, &root);
            let mut instance = slot.lock();
            let old_pid = instance.server.as_ref().map(|server| server.pid());
            if let Some(old) = instance.server.take() {
                instance.reopen = old.open_documents();
                drop(old);
            }
            instance.consecutive_failures = 0;
            instance.last_start_error = None;
            let had_server = old_pid.is_some();
            match self.start_into(&mut instance, &definition, &root, &binary, deadline) {
                Ok(server) => {
                    if had_server {
                        instance.restarts += 1;
                    }
                    let before = old_pid.map(|pid| format!("pid {pid} → ")).unwrap_or_default();
                    lines.push(format!(
                        "{} @ {}: reloaded ({before}pid {}); {} document(s) reopened",
                        definition.id,
                        self.display_path(&root),
                        server.pid(),
                        server.open_documents().len()
                    ));
                }
                Err(err) => lines.push(format!("{} @ {}: reload failed: {}", definition.id, self.display_path(&root), err.message)),
            }
        }
        Ok(lines)
    }

    /// Status of every configured server for this workspace: which roots it applies to, whether
    /// each half of the intersection holds (paths found), running or not, pid, uptime, readiness,
    /// restarts, last stderr lines. Render with [`LspStatus::to_text`] or [`LspStatus::to_json`].
    pub fn status(&self) -> LspStatus {
        let marker_dirs = scan_marker_dirs(&self.workspace_root, &self.table);
        let path_env = self.path_env();
        let mut servers = Vec::new();
        for definition in &self.table {
            let mut roots: Vec<PathBuf> = Vec::new();
            for marker in &definition.root_markers {
                for dir in marker_dirs.get(marker.as_str()).into_iter().flatten() {
                    if let Some(root) = find_root(definition, &self.workspace_root, &dir.join(".runbound-probe")).root {
                        if !roots.contains(&root) {
                            roots.push(root);
                        }
                    }
                }
            }
            let instances = self.instances.lock();
            for ((id, root), _) in instances.iter() {
                if id == &definition.id && !roots.contains(root) {
                    roots.push(root.clone());
                }
            }
            drop(instances);
            roots.sort();
            let binary = resolve_binary_for(definition, None, &self.workspace_root, path_env.as_ref(), self.workspace_trust);
            let mut root_statuses = Vec::new();
            for root in &roots {
                let root_binary = resolve_binary_for(definition, Some(root), &self.workspace_root, path_env.as_ref(), self.workspace_trust);
                let marker = find_root(definition, &self.workspace_root, &root.join(".runbound-probe")).marker;
                let slot = self.instances.lock().get(&(definition.id.clone(), root.clone())).cloned();
                let mut interpreter: Option<Result<PythonInterpreter, String>> = None;
                let mut start_backoff: (u32, Option<u64>) = (0, None);
                let mut restricted: Option<String> = None;
                let mut view_broken: Option<String> = None;
                let (running, restarts, last_exit, last_start_error) = match slot {
                    Some(slot) => {
                        let instance = slot.lock();
                        view_broken = self.confined_root_replaced(&instance);
                        if instance.server.is_some() {
                            interpreter = instance.interpreter.as_ref().map(|in_use| in_use.resolved.clone());
                            restricted = instance.restricted_note.clone();
                        }
                        let running = instance.server.as_ref().map(|server| {
                            let snapshot = server.snapshot();
                            RunningStatus {
                                pid: snapshot.pid,
                                uptime_ms: snapshot.uptime.as_millis() as u64,
                                readiness: snapshot.readiness.describe(),
                                exited: matches!(snapshot.readiness, Readiness::Exited(_)),
                                position_encoding: snapshot.position_encoding.lsp_name().to_owned(),
                                open_documents: snapshot.open_documents.iter().map(|p| self.display_path(p)).collect(),
                                stderr_tail: snapshot.stderr_tail,
                                log_tail: snapshot.log_tail,
                                server_info: snapshot.server_info,
                                file_access: server.filesystem_confinement().cloned(),
                            }
                        });
                        let next_start_in_ms = instance
                            .next_start_at
                            .filter(|_| instance.server.is_none())
                            .map(|at| at.saturating_duration_since(Instant::now()).as_millis() as u64)
                            .filter(|ms| *ms > 0);
                        start_backoff = (instance.start_failures, next_start_in_ms);
                        (running, instance.restarts, instance.last_exit.clone(), instance.last_start_error.clone())
                    }
                    None => (None, 0, None, None),
                };
                if interpreter.is_none() && definition.project_settings != ProjectSettings::None {
                    interpreter = configure_for_root(definition, root, &self.workspace_root, path_env.as_ref()).interpreter;
                }
                if restricted.is_none() && self.workspace_trust.is_restricted() {
                    restricted = Some(match (&root_binary.path, self.restricted_refusal(definition, root)) {
                        (_, Some(why)) => format!("workspace trust: restricted — {} is not started: {why}", definition.id),
                        (Some(binary), None) => {
                            let mut configured = configure_for_root(definition, root, &self.workspace_root, path_env.as_ref());
                            match self.restrict(&mut configured, root, binary) {
                                Ok(note) => note,
                                Err(why) => format!("workspace trust: restricted — {} is not started: {why}", definition.id),
                            }
                        }
                        (None, None) => format!("workspace trust: restricted — {} binary not found outside the workspace", definition.id),
                    });
                }
                root_statuses.push(RootStatus {
                    view_broken,
                    project_config_problem: self.project_config_note_text(definition, root),
                    restricted,
                    interpreter: interpreter.map(|resolved| match resolved {
                        Ok(found) => InterpreterStatus {
                            python: Some(crate::python_env::display_interpreter_path(&self.workspace_root, &found.python)),
                            reason: found.reason(&self.workspace_root),
                            notes: found.notes,
                        },
                        Err(why) => InterpreterStatus {
                            python: None,
                            reason: format!("{why}; the server falls back to its own default (python3 on its PATH)"),
                            notes: Vec::new(),
                        },
                    }),
                    root: self.display_path(root),
                    can_serve: marker.is_some() && root_binary.path.is_some(),
                    marker: marker.map(|m| self.display_path(&m)),
                    binary: root_binary.path.map(|p| p.display().to_string()),
                    running,
                    restarts,
                    last_exit,
                    last_start_error,
                    start_failures: start_backoff.0,
                    next_start_in_ms: start_backoff.1,
                });
            }
            servers.push(ServerStatus {
                id: definition.id.clone(),
                command: std::iter::once(definition.binary_names.join(" | "))
                    .chain(definition.args.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(" "),
                extensions: definition.extensions.iter().map(|(ext, _)| ext.clone()).collect(),
                root_markers: definition.root_markers.clone(),
                binary: binary.path.map(|p| p.display().to_string()),
                binary_names_tried: binary.names_tried,
                roots: root_statuses,
            });
        }
        LspStatus {
            workspace_root: self.workspace_root.display().to_string(),
            workspace_trust: self.workspace_trust,
            servers,
            disabled: self.config.disabled_servers.clone(),
            file_access_confinement: self.file_access_confinement_summary(),
        }
    }

    /// [`LspStatus::file_access_confinement`].
    fn file_access_confinement_summary(&self) -> String {
        if !self.confine_file_access {
            return "off: the host turned it off (RunBuilder::confine_language_server_file_access(false), CLI --no-language-server-file-confinement); servers and checkers can read any file the user can, through a symlink in the workspace too".to_owned();
        }
        let mut outside = String::new();
        for root in self.project_outside_roots().iter() {
            match &root.withheld_because {
                None => {
                    let unwatched = self.unwatched_project_outside_roots();
                    let resync = match unwatched.iter().find(|(path, _)| *path == root.path) {
                        Some((_, why)) => format!("NOT re-synced after a change made there by hand: {why}; `lsp` op reload sends it"),
                        None => "files changed there by hand are re-synced like the workspace's".to_owned(),
                    };
                    outside.push_str(&format!(
                        "; readable outside the workspace, the project uses it: {} ({}; {resync})",
                        root.path.display(),
                        root.why
                    ))
                }
                Some(because) => outside.push_str(&format!(
                    "; NOT readable outside the workspace though the project uses it: {} ({}; {because})",
                    root.path.display(),
                    root.why
                )),
            }
        }
        match crate::transport::confinement::landlock_abi_version() {
            Ok(abi) => format!(
                "on (Landlock ABI {abi}): servers and checkers read only beneath the workspace, the dependency roots and system hierarchies listed per running server; a path that resolves elsewhere (a symlink leading out) fails with EACCES in the server{outside}"
            ),
            Err(reason) => format!("unavailable: server file reads not confined: {reason}; servers and checkers start unconfined"),
        }
    }

    /// `path` relative to the workspace root (`.` for the root itself), or absolute with an
    /// `(outside workspace)` mark.
    pub(crate) fn display_path(&self, path: &Path) -> String {
        crate::render::display_path(&self.workspace_root, path)
    }

    fn lease(&self, definition: &Arc<ServerDefinition>, root: &Path, binary: &Path, deadline: Instant) -> Result<ServerLease, ToolError> {
        let lease = self.lease_server(definition, root, binary, deadline)?;
        // The other roots this root depends on are watched for hand edits (issue 11 §5); the
        // list is found again only when a manifest beneath the root changed.
        if crate::lsp::sibling_roots::manifest_name(&definition.id).is_some() {
            lease.server.watch_sibling_dependency_dirs(self.sibling_dependency_dirs(&definition.id, root));
        }
        Ok(lease)
    }

    /// The directories of other roots inside the workspace that the manifests beneath `root`
    /// name as local dependencies ([`crate::lsp::sibling_roots::dependency_dirs_scan`]), kept
    /// while the manifests it read are unchanged.
    pub(crate) fn sibling_dependency_dirs(&self, server_id: &str, root: &Path) -> Vec<PathBuf> {
        let key = (server_id.to_owned(), root.to_path_buf());
        if let Some(known) = self.dependency_dirs_memo.lock().get(&key).filter(|known| known.is_current()) {
            return known.found.roots.clone();
        }
        let scan = crate::lsp::sibling_roots::dependency_dirs_scan(&self.workspace_root, server_id, root);
        let dirs = scan.found.roots.clone();
        self.dependency_dirs_memo.lock().insert(key, scan);
        dirs
    }

    fn lease_server(
        &self,
        definition: &Arc<ServerDefinition>,
        root: &Path,
        binary: &Path,
        deadline: Instant,
    ) -> Result<ServerLease, ToolError> {
        let slot = self.slot(&definition.id, root);
        let Some(mut instance) = slot.try_lock_until(deadline) else {
            return Err(ToolError::new(
                ErrorKind::Timeout,
                format!("{} @ {} is still starting (another call holds it)", definition.id, self.display_path(root)),
            )
            .with_hint("retry in a few seconds"));
        };
        let mut notes = Vec::new();
        if let Some(changed) = self.interpreter_change(&mut instance, definition, root) {
            if let Some(old) = instance.server.take() {
                notes.push(format!(
                    "note: {} (pid {}) is restarted because {changed}, so that imports resolve against it",
                    definition.id,
                    old.pid()
                ));
                lsp_event(
                    EventLevel::Notice,
                    format!("{} @ {} (pid {}) is restarted because {changed}", definition.id, self.display_path(root), old.pid()),
                );
                instance.reopen = old.open_documents();
                drop(old);
            }
        }
        if let Some(replaced) = self.confined_root_replaced(&instance) {
            if let Some(old) = instance.server.take() {
                notes.push(format!(
                    "note: {} (pid {}) is restarted because {replaced}: the process confined to the old directory could read none of the project's files now (e.g. gopls answers \"No packages found\"), so its answers would be stale",
                    definition.id,
                    old.pid()
                ));
                lsp_event(
                    EventLevel::Notice,
                    format!("{} @ {} (pid {}) is restarted because {replaced}", definition.id, self.display_path(root), old.pid()),
                );
                instance.reopen = old.open_documents();
                drop(old);
            }
        }
        if let Some(server) = &instance.server {
            match server.exit_description() {
                None => {
                    notes.extend(instance.restricted_note.clone());
                    notes.extend(self.project_config_note(definition, root));
                    return Ok(ServerLease { server: Arc::clone(server), notes });
                }
                Some(how) => {
                    let lived = server.started_at().elapsed();
                    notes.push(format!("note: {} (pid {}) had exited after {} s: {how}", definition.id, server.pid(), lived.as_secs()));
                    lsp_event(
                        EventLevel::Warning,
                        format!(
                            "{} @ {} (pid {}) had exited after {} s: {how}; restarting it",
                            definition.id,
                            self.display_path(root),
                            server.pid(),
                            lived.as_secs()
                        ),
                    );
                    instance.reopen = server.open_documents();
                    instance.last_exit = Some(how);
                    instance.consecutive_failures = if lived >= HEALTHY_UPTIME { 0 } else { instance.consecutive_failures + 1 };
                    let old = instance.server.take();
                    drop(old);
                }
            }
        }
        if instance.server.is_none() {
            if let (Some(last_error), Some(next_start_at)) = (&instance.last_start_error, instance.next_start_at) {
                let now = Instant::now();
                if next_start_at > now {
                    return Err(self.start_backoff_error(definition, root, &instance, last_error, next_start_at - now));
                }
            }
        }
        let restarting = instance.last_exit.is_some() || instance.restarts > 0 || !notes.is_empty();
        if instance.consecutive_failures > 0 {
            let exponent = (instance.consecutive_failures - 1).min(16);
            let delay = (self.config.restart_backoff_initial * 2u32.pow(exponent)).min(self.config.restart_backoff_max);
            let earliest = instance.last_start_attempt.map_or_else(Instant::now, |at| at + delay);
            let now = Instant::now();
            if earliest > now {
                if earliest + Duration::from_millis(500) > deadline {
                    let mut err = ToolError::new(
                        ErrorKind::Unavailable,
                        format!(
                            "{} @ {} failed {} time(s) in a row; the next restart is allowed in {} ms (backoff)",
                            definition.id,
                            self.display_path(root),
                            instance.consecutive_failures,
                            (earliest - now).as_millis()
                        ),
                    )
                    .with_hint("call again after the backoff; `lsp` op status shows the last exit and stderr");
                    if let Some(last) = instance.last_exit.as_ref().or(instance.last_start_error.as_ref()) {
                        err.message.push_str(&format!("; last failure: {last}"));
                    }
                    lsp_event(EventLevel::Warning, err.message.clone());
                    return Err(err);
                }
                std::thread::sleep(earliest - now);
            }
        }
        let server = self.start_into(&mut instance, definition, root, binary, deadline)?;
        notes.extend(instance.restricted_note.clone());
        notes.extend(self.project_config_note(definition, root));
        notes.extend(self.confinement_gap_note(&server));
        notes.extend(self.withheld_roots_note());
        if restarting && !notes.is_empty() {
            instance.restarts += 1;
            notes.push(format!(
                "note: restarted {} (new pid {}, restart #{}); reopened {} document(s)",
                definition.id,
                server.pid(),
                instance.restarts,
                server.open_documents().len()
            ));
            lsp_event(
                EventLevel::Notice,
                format!(
                    "restarted {} @ {} (new pid {}, restart #{})",
                    definition.id,
                    self.display_path(root),
                    server.pid(),
                    instance.restarts
                ),
            );
        }
        Ok(ServerLease { server, notes })
    }

    /// The answer to a call that comes within the start backoff: the earlier failure, how many
    /// starts failed, and when the next attempt is allowed — at once, without a new start.
    fn start_backoff_error(
        &self,
        definition: &ServerDefinition,
        root: &Path,
        instance: &Instance,
        last_error: &str,
        wait: Duration,
    ) -> ToolError {
        // Both figures count from the end of the failed attempt (the backoff starts there; the
        // attempt itself may have taken its whole start timeout): failed `ago` s ago, retried in
        // `wait` from now, `ago + wait` = the backoff.
        let ago = self.start_backoff(instance.start_failures).saturating_sub(wait).as_secs();
        ToolError::new(
            ErrorKind::Unavailable,
            format!(
                "{} @ {} did not start ({} failed start{} in a row, the last failed {ago} s ago): {last_error}; the next start attempt is allowed in {} s from now (start backoff) — this call did not try again",
                definition.id,
                self.display_path(root),
                instance.start_failures,
                if instance.start_failures == 1 { "" } else { "s" },
                wait.as_secs_f64().ceil() as u64,
            ),
        )
        .with_hint("fix what the failure names (binary, its dependencies, the project setup), then `lsp` op reload with this file retries at once; `lsp` op status shows the binary and its stderr")
        .with_details(json!({"server": definition.id, "start_failures": instance.start_failures, "retry_in_ms": wait.as_millis() as u64}))
    }

    /// The delay before the next start attempt after `failures` failed starts in a row.
    fn start_backoff(&self, failures: u32) -> Duration {
        let exponent = failures.saturating_sub(1).min(16);
        (self.config.start_failure_backoff_initial.saturating_mul(2u32.pow(exponent))).min(self.config.start_failure_backoff_max)
    }

    fn start_into(
        &self,
        instance: &mut Instance,
        definition: &Arc<ServerDefinition>,
        root: &Path,
        binary: &Path,
        deadline: Instant,
    ) -> Result<Arc<LanguageServer>, ToolError> {
        instance.last_start_attempt = Some(Instant::now());
        let timeout = self.config.initialize_timeout.min(deadline.saturating_duration_since(Instant::now()));
        let mut configured = configure_for_root(definition, root, &self.workspace_root, self.path_env().as_ref());
        instance.restricted_note = None;
        if self.workspace_trust.is_restricted() {
            match self.restrict(&mut configured, root, binary) {
                Ok(note) => {
                    self.announce_trust_decision(
                        EventLevel::Notice,
                        &definition.id,
                        root,
                        format!("{note} (@ {})", self.display_path(root)),
                    );
                    instance.restricted_note = Some(note);
                }
                Err(why) => {
                    self.announce_trust_decision(
                        EventLevel::Warning,
                        &definition.id,
                        root,
                        format!("workspace trust: restricted — {} @ {} is not started: {why}", definition.id, self.display_path(root)),
                    );
                    return Err(ToolError::new(
                        ErrorKind::Unavailable,
                        format!("{} @ {} is not started in a restricted workspace: {why}", definition.id, self.display_path(root)),
                    )
                    .with_hint("a human who trusts this checkout can pass --workspace-trust trusted (RunBuilder::workspace_trust)"));
                }
            }
        }
        instance.interpreter = configured.interpreter.map(|resolved| InterpreterInUse {
            fingerprint: interpreter_fingerprint(&resolved),
            resolved,
            checked_at: Instant::now(),
        });
        let interpreter = instance.interpreter.as_ref().and_then(|in_use| in_use.resolved.as_ref().ok()).map(|found| found.python.clone());
        let confinement = self.file_access_confinement(binary, interpreter.as_deref());
        instance.confined_root_identity = confinement.as_ref().and_then(|_| workspace_root_identity(&self.workspace_root));
        let started = LanguageServer::start(
            Arc::new(configured.definition),
            binary,
            root,
            &self.workspace_root,
            timeout,
            Arc::clone(&self.edit_applier),
            confinement,
        );
        let server = match started {
            Ok(server) => Arc::new(server),
            Err(mut err) => {
                // A start cut short by this call's own deadline says nothing about the server.
                if err.kind == ErrorKind::Timeout && timeout < self.config.initialize_timeout {
                    err.message.push_str(&format!(
                        "; the call's deadline left only {} ms of the {} ms initialize budget — call again with more time",
                        timeout.as_millis(),
                        self.config.initialize_timeout.as_millis()
                    ));
                    return Err(err);
                }
                instance.start_failures += 1;
                let wait = self.start_backoff(instance.start_failures);
                instance.next_start_at = Some(Instant::now() + wait);
                instance.last_start_error = Some(err.message.clone());
                err.message.push_str(&format!(
                    "; calls in the next {} s answer with this failure without a new start (start backoff; `lsp` op reload retries at once)",
                    wait.as_secs_f64().ceil() as u64
                ));
                lsp_event(EventLevel::Error, format!("{} @ {} failed to start: {}", definition.id, self.display_path(root), err.message));
                return Err(err);
            }
        };
        instance.last_start_error = None;
        instance.start_failures = 0;
        instance.next_start_at = None;
        for path in std::mem::take(&mut instance.reopen) {
            if path.exists() {
                let _ = server.sync_document(&path);
            }
        }
        if definition.open_representative_file && server.open_documents().is_empty() {
            if let Some(path) = representative_file(definition, &self.workspace_root, root) {
                let _ = server.sync_document(&path);
            }
        }
        // Take the first snapshot of served files so later creations and deletions are noticed.
        // The first scan sends nothing (no earlier scan to compare with): no cap can leave out.
        let _ = server.resync_from_disk();
        server.watch_project_outside_roots(self.readable_project_outside_roots());
        let offered: Vec<&'static str> = OFFER_PROBED_METHODS.iter().copied().filter(|method| server.supports(method)).collect();
        self.offers_seen_at_start.lock().insert(definition.id.clone(), offered);
        instance.server = Some(Arc::clone(&server));
        Ok(server)
    }

    /// Whether server `id` offered `method` (one of [`OFFER_PROBED_METHODS`]) when it last
    /// started in this run; `None` when it has not started in this run (or `method` is not one
    /// of those remembered). Capabilities a server registers later are not in it.
    pub(crate) fn offer_seen_at_start(&self, id: &str, method: &str) -> Option<bool> {
        if !OFFER_PROBED_METHODS.contains(&method) {
            return None;
        }
        self.offers_seen_at_start.lock().get(id).map(|offered| offered.contains(&method))
    }

    /// The other project roots of `server_id`'s language that depend on `root`
    /// ([`crate::lsp::sibling_roots::dependent_roots_scan`]), scanned once per run and scanned again
    /// only when a manifest the last scan read changed (modification time or size, or gone),
    /// when a tool wrote a manifest ([`LspSupervisor::forget_dependent_roots`]), or on `reload`.
    /// A manifest created outside the tools, in a directory the last scan did not read, is seen
    /// after the next write of a manifest or `reload`. trial27b: the scan lists up to 50 000
    /// entries, which every `references` call repeated.
    pub(crate) fn dependent_roots(&self, server_id: &str, root: &Path) -> crate::lsp::sibling_roots::DependentRoots {
        let key = (server_id.to_owned(), root.to_path_buf());
        if let Some(known) = self.dependent_roots_memo.lock().get(&key).filter(|known| known.is_current()) {
            return known.found.clone();
        }
        let Some(definition) = self.table.iter().find(|definition| definition.id == server_id) else {
            return crate::lsp::sibling_roots::DependentRoots::default();
        };
        let scan = crate::lsp::sibling_roots::dependent_roots_scan(&self.workspace_root, definition, root);
        let found = scan.found.clone();
        self.dependent_roots_memo.lock().insert(key, scan);
        found
    }

    /// Whether the last project check of dependent root `root` before a write ran out of its
    /// budget in this run (since the last `reload`, and with no project check of it since that
    /// finished: see [`LspSupervisor::forget_dependent_root_check_too_slow`]).
    pub(crate) fn dependent_root_check_too_slow(&self, root: &Path) -> bool {
        self.dependent_root_checks_too_slow.lock().contains(root)
    }

    /// Records that a project check of dependent root `root` before a write ran out of its own
    /// budget: the write check does not run it again (see
    /// [`LspSupervisor::dependent_root_check_too_slow`]).
    pub(crate) fn mark_dependent_root_check_too_slow(&self, root: &Path) {
        self.dependent_root_checks_too_slow.lock().insert(root.to_path_buf());
    }

    /// Forgets that `root`'s check was too slow: a check of it finished (a `diagnostics "*"` one
    /// built its dependencies, so a write's check of it fits its budget again).
    pub(crate) fn forget_dependent_root_check_too_slow(&self, root: &Path) {
        self.dependent_root_checks_too_slow.lock().remove(root);
    }

    /// Drops every remembered [`LspSupervisor::dependent_roots`] scan when `written` holds a
    /// `go.mod` or `Cargo.toml` (a manifest written, created or deleted by a tool).
    pub(crate) fn forget_dependent_roots(&self, written: &[PathBuf]) {
        let manifest_written = written
            .iter()
            .any(|path| path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name == "go.mod" || name == "Cargo.toml"));
        if manifest_written {
            self.dependent_roots_memo.lock().clear();
            self.dependency_dirs_memo.lock().clear();
        }
    }

    /// Why the running process of `instance` can no longer read the workspace, when its
    /// confinement holds a workspace directory that was replaced on disk since its start (see
    /// [`workspace_root_identity`]); `None` when it was not confined, or the directory is the same.
    fn confined_root_replaced(&self, instance: &Instance) -> Option<String> {
        let started_on = instance.confined_root_identity?;
        let server = instance.server.as_ref()?;
        if !matches!(server.filesystem_confinement(), Some(crate::transport::ConfinementOutcome::Confined { .. })) {
            return None;
        }
        match workspace_root_identity(&self.workspace_root) {
            Some(now) if now == started_on => None,
            Some(_) => Some(format!(
                "the workspace directory {} was replaced on disk since it started (removed and created again, e.g. `rm -rf` and a copy, or a checkout that replaced the tree) and its file-access confinement (Landlock) holds the old directory",
                self.workspace_root.display()
            )),
            None => None,
        }
    }

    /// For a running server with Python project settings, at most every
    /// [`INTERPRETER_RECHECK`]: resolves the project's interpreter again and, when it or the
    /// packages installed into its environment changed since the start, says how (the caller
    /// restarts the server: pyright and pylsp read the interpreter's search paths once).
    fn interpreter_change(&self, instance: &mut Instance, definition: &ServerDefinition, root: &Path) -> Option<String> {
        if definition.project_settings == ProjectSettings::None || instance.server.is_none() {
            return None;
        }
        let in_use = instance.interpreter.as_mut()?;
        if in_use.checked_at.elapsed() < INTERPRETER_RECHECK {
            return None;
        }
        in_use.checked_at = Instant::now();
        let fresh = configure_for_root(definition, root, &self.workspace_root, self.path_env().as_ref()).interpreter?;
        let fingerprint = interpreter_fingerprint(&fresh);
        if fingerprint == in_use.fingerprint {
            return None;
        }
        let describe = |resolved: &Result<PythonInterpreter, String>| match resolved {
            Ok(interpreter) => {
                format!(
                    "{} ({})",
                    crate::python_env::display_interpreter_path(&self.workspace_root, &interpreter.python),
                    interpreter.reason(&self.workspace_root)
                )
            }
            Err(_) => "none".to_owned(),
        };
        let same_python = matches!((&in_use.resolved, &fresh), (Ok(a), Ok(b)) if a.python == b.python && a.source == b.source);
        Some(if same_python {
            format!("the packages installed in the environment of {} changed", describe(&fresh))
        } else {
            format!("the project's interpreter changed from {} to {}", describe(&in_use.resolved), describe(&fresh))
        })
    }

    fn stop(&self, id: &str, root: &Path) {
        let slot = self.instances.lock().get(&(id.to_owned(), root.to_path_buf())).cloned();
        if let Some(slot) = slot {
            let old = slot.lock().server.take();
            drop(old);
        }
    }

    fn slot(&self, id: &str, root: &Path) -> Arc<Mutex<Instance>> {
        Arc::clone(self.instances.lock().entry((id.to_owned(), root.to_path_buf())).or_default())
    }

    /// The restricted-mode line of the running process of `id` for `root`, if any.
    /// For a TypeScript server's `root`: why its config does not load, as a sentence (see
    /// `lsp::tsconfig_load`); `None` for other servers and for a config that loads. Reads at most
    /// [`crate::lsp::tsconfig_load::MAX_EXTENDS_DEPTH`] small files per call.
    pub(crate) fn project_config_note_text(&self, definition: &ServerDefinition, root: &Path) -> Option<String> {
        if !definition.extensions.iter().any(|(extension, _)| extension == "ts" || extension == "js") {
            return None;
        }
        let failure = crate::lsp::tsconfig_load::config_load_failure(&self.workspace_root, root)?;
        Some(failure.describe(|path| self.display_path(path)))
    }

    /// [`LspSupervisor::project_config_note_text`] as the note an answer carries, naming the server.
    pub(crate) fn project_config_note(&self, definition: &ServerDefinition, root: &Path) -> Option<String> {
        let text = self.project_config_note_text(definition, root)?;
        Some(format!("note: {} answers for {} from a project whose config fails to load — {text}", definition.id, self.display_path(root)))
    }

    fn restricted_note_of(&self, id: &str, root: &Path) -> Option<String> {
        let slot = self.instances.lock().get(&(id.to_owned(), root.to_path_buf())).cloned()?;
        // Never wait for a slot another call holds while starting its server.
        let note = slot.try_lock().and_then(|instance| instance.restricted_note.clone());
        note.or_else(|| self.workspace_trust.is_restricted().then(|| format!("workspace trust: restricted — {id}")))
    }

    /// Restricted runs: why `definition` must not start for `root` (see
    /// [`crate::lsp::trust::server_refusal`]); always `None` when trusted.
    fn restricted_refusal(&self, definition: &ServerDefinition, root: &Path) -> Option<String> {
        if !self.workspace_trust.is_restricted() {
            return None;
        }
        crate::lsp::trust::server_refusal(definition, root, &self.workspace_root)
    }

    /// Applies restricted mode to a server's start configuration ([`crate::lsp::trust`]).
    fn restrict(&self, configured: &mut crate::lsp::servers::RootConfiguration, root: &Path, binary: &Path) -> Result<String, String> {
        let child_path = restricted_search_path(std::env::var_os("PATH").as_deref(), &self.workspace_root);
        crate::lsp::trust::restrict_server(configured, root, &self.workspace_root, binary, &child_path, self.path_env().as_ref())
    }

    fn cached_binary(&self, definition: &ServerDefinition, root: Option<&Path>, path_env: Option<&OsString>) -> BinaryLookup {
        let key = (definition.id.clone(), root.map(Path::to_path_buf));
        if let Some((at, lookup)) = self.binary_cache.lock().get(&key) {
            let still_there = lookup.path.as_ref().is_none_or(|path| path.exists());
            if at.elapsed() < BINARY_CACHE_TTL && still_there {
                return lookup.clone();
            }
        }
        let lookup = resolve_binary_for(definition, root, &self.workspace_root, path_env, self.workspace_trust);
        self.binary_cache.lock().insert(key, (Instant::now(), lookup.clone()));
        lookup
    }

    /// The search path for binaries and `python3`: `RunConfig::lsp.search_path`, else `PATH`;
    /// restricted runs drop relative entries and those inside the workspace.
    pub(crate) fn path_env(&self) -> Option<OsString> {
        let path = self.config.search_path.clone().or_else(|| std::env::var_os("PATH"));
        match self.workspace_trust {
            WorkspaceTrust::Trusted => path,
            WorkspaceTrust::Restricted => restricted_search_path(path.as_deref(), &self.workspace_root).value,
        }
    }

    /// For rust-analyzer without a `Cargo.toml`: the `rust-project.json` that is there, and why
    /// runbound does not hand it to rust-analyzer (restricted: it names a sysroot whose binaries
    /// rust-analyzer runs; next step `--workspace-trust trusted`).
    fn project_json_note(&self, definition: &ServerDefinition, searched_from: &Path) -> String {
        if definition.id != "rust-analyzer" {
            return String::new();
        }
        let found = searched_from
            .ancestors()
            .take_while(|dir| dir.starts_with(&self.workspace_root))
            .flat_map(|dir| [dir.join("rust-project.json"), dir.join(".rust-project.json")])
            .find(|candidate| candidate.is_file());
        let Some(found) = found else { return String::new() };
        if self.workspace_trust.is_restricted() {
            format!(
                " ({} is there, but a restricted run does not start rust-analyzer on a rust-project.json: it names a sysroot and build commands whose binaries rust-analyzer runs; if you trust this checkout, run with --workspace-trust trusted)",
                self.display_path(&found)
            )
        } else {
            format!(" ({} is there; runbound starts rust-analyzer for Cargo projects only)", self.display_path(&found))
        }
    }

    fn describe_missing_half(&self, definition: &ServerDefinition, root: &RootLookup, binary: &BinaryLookup) -> String {
        let binary_text = match &binary.path {
            Some(path) => format!("binary found at {}", path.display()),
            None => format!(
                "binary missing: {} not found in {}",
                binary.names_tried.join(" / "),
                if binary.dirs_searched.len() > 8 {
                    format!("project-local bin dirs and PATH ({} dirs)", binary.dirs_searched.len())
                } else {
                    binary.dirs_searched.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(":")
                }
            ),
        };
        let root_text = match &root.marker {
            Some(marker) => format!("root marker found at {}", self.display_path(marker)),
            None => format!(
                "root marker missing: none of {} between {} and the workspace root{}",
                definition.root_markers.join(", "),
                self.display_path(&root.searched_from),
                self.project_json_note(definition, &root.searched_from)
            ),
        };
        format!("{}: {root_text}, {binary_text}", definition.id)
    }
}

impl Drop for LspSupervisor {
    fn drop(&mut self) {
        // A prefetch thread holds a server only for one pull (≤ PREFETCH_PULL_CAP) and sends no
        // further pull once stopped; the last holder's drop stops that server.
        let prefetches = std::mem::take(&mut *self.prefetch_threads.lock());
        for prefetch in &prefetches {
            prefetch.stop();
        }
        let servers: Vec<Arc<LanguageServer>> = self.instances.lock().values().filter_map(|slot| slot.lock().server.take()).collect();
        self.instances.lock().clear();
        // Stop them in parallel: each drop may wait for a polite shutdown (≤ 1.5 s).
        std::thread::scope(|scope| {
            for server in servers {
                let name = format!("runbound-lsp-{}-stop", server.id());
                // If no thread can be spawned, the closure — and with it the server — is dropped
                // right here, on this thread: the stop still happens, only not in parallel.
                let _ = std::thread::Builder::new().name(name).spawn_scoped(scope, move || drop(server));
            }
        });
        for prefetch in prefetches {
            prefetch.join();
        }
    }
}

impl std::fmt::Debug for LspSupervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspSupervisor").field("workspace_root", &self.workspace_root).finish_non_exhaustive()
    }
}

/// What `lsp status` reports (see [`LspSupervisor::status`]).
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct LspStatus {
    /// The workspace root.
    pub workspace_root: String,
    /// The run's workspace trust level.
    pub workspace_trust: WorkspaceTrust,
    /// Every configured server, in preference order.
    pub servers: Vec<ServerStatus>,
    /// Server ids disabled by configuration.
    pub disabled: Vec<String>,
    /// The run's file-access confinement of servers and checkers, one line: on (with the
    /// kernel's Landlock ABI), unavailable on this kernel (why), or turned off by the host.
    /// Each running server's own state is [`RunningStatus::file_access`].
    pub file_access_confinement: String,
}

/// One configured server in [`LspStatus`].
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct ServerStatus {
    /// Server id.
    pub id: String,
    /// Command line (binary names tried, then arguments).
    pub command: String,
    /// Extensions served.
    pub extensions: Vec<String>,
    /// Root markers.
    pub root_markers: Vec<String>,
    /// The binary resolved for the workspace root (project-local dirs of a root may differ).
    pub binary: Option<String>,
    /// Names tried when resolving.
    pub binary_names_tried: Vec<String>,
    /// Roots found in the workspace (markers) or served before.
    pub roots: Vec<RootStatus>,
}

/// One root of one server in [`LspStatus`].
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct RootStatus {
    /// The root, relative to the workspace (`.` for the workspace itself).
    pub root: String,
    /// The marker file that makes it a root.
    pub marker: Option<String>,
    /// The binary resolved for this root.
    pub binary: Option<String>,
    /// A marker and a binary were found: the server can start for this root.
    pub can_serve: bool,
    /// The running process, if any.
    pub running: Option<RunningStatus>,
    /// Restarts so far.
    pub restarts: u32,
    /// How the previous process ended, if it crashed.
    pub last_exit: Option<String>,
    /// Why the last start failed, if it did.
    pub last_start_error: Option<String>,
    /// Python servers: the interpreter the running process uses (or, when none runs, would
    /// get) and why.
    pub interpreter: Option<InterpreterStatus>,
    /// Failed starts in a row (0 once a start succeeds).
    pub start_failures: u32,
    /// Within the start backoff: ms until the next start attempt is allowed.
    pub next_start_in_ms: Option<u64>,
    /// Restricted runs: what restricted mode turns off for this server and root (the line its
    /// answers carry), or why it is not started.
    pub restricted: Option<String>,
    /// TypeScript servers: why the root's `tsconfig.json`/`jsconfig.json` does not load (an
    /// `extends` target that does not exist, invalid JSON), the note every answer from this root
    /// carries (see `lsp::tsconfig_load`); absent when it loads or the server is not TypeScript's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_config_problem: Option<String>,
    /// Why the running process's view of the project is broken, when runbound knows (the
    /// workspace directory was replaced on disk since its confined start): its answers are stale
    /// until the restart the next call of a tool on it makes (or `lsp` op reload).
    pub view_broken: Option<String>,
}

/// The Python interpreter of one root in [`RootStatus`].
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct InterpreterStatus {
    /// The interpreter's path (relative to the workspace when inside it); `None` when none
    /// resolved.
    pub python: Option<String>,
    /// Why: `from .venv beside pyproject.toml`, `from pyrightconfig.json venv ".venv"`,
    /// `python3 on PATH`, or what was tried when nothing resolved.
    pub reason: String,
    /// Configuration the server ignores or that points nowhere.
    pub notes: Vec<String>,
}

impl InterpreterStatus {
    /// One line: `.venv/bin/python (from .venv beside pyproject.toml)`, or `none: <why>`.
    pub fn describe(&self) -> String {
        match &self.python {
            Some(python) => format!("{python} ({})", self.reason),
            None => format!("none: {}", self.reason),
        }
    }
}

/// A running process in [`RootStatus`].
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct RunningStatus {
    /// Process id.
    pub pid: u32,
    /// Uptime in ms.
    pub uptime_ms: u64,
    /// Readiness text (`ready`, `indexing (…)`, `exited: …`).
    pub readiness: String,
    /// The process has exited (it will restart on the next call).
    pub exited: bool,
    /// Negotiated position encoding.
    pub position_encoding: String,
    /// Open documents (relative paths).
    pub open_documents: Vec<String>,
    /// Last stderr lines.
    pub stderr_tail: Vec<String>,
    /// Last log messages.
    pub log_tail: Vec<String>,
    /// `serverInfo` name + version.
    pub server_info: Option<String>,
    /// Whether the process runs under its file-access confinement (Landlock) and beneath which
    /// roots, or why not; `None` when the run opted out (see [`LspStatus::file_access_confinement`]).
    pub file_access: Option<crate::transport::ConfinementOutcome>,
}

impl LspStatus {
    /// The status as text for the model or the CLI.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "language servers for {} (workspace trust: {}; {} configured",
            self.workspace_root,
            self.workspace_trust,
            self.servers.len()
        );
        if !self.disabled.is_empty() {
            out.push_str(&format!("; disabled: {}", self.disabled.join(", ")));
        }
        out.push_str("):\n");
        out.push_str(&format!("file access confinement: {}\n", self.file_access_confinement));
        for server in &self.servers {
            let binary = match &server.binary {
                Some(path) => format!("binary {path}"),
                None => format!("binary missing ({} not found in project-local bin dirs or PATH)", server.binary_names_tried.join(" / ")),
            };
            out.push_str(&format!("\n{} — `{}` — {binary}\n", server.id, server.command));
            if server.roots.is_empty() {
                out.push_str(&format!(
                    "  no root in this workspace (root marker missing: none of {}); nothing started\n",
                    server.root_markers.join(", ")
                ));
                continue;
            }
            for root in &server.roots {
                let marker = root.marker.as_deref().unwrap_or("marker gone");
                let verdict = match (&root.binary, &root.running) {
                    (_, Some(running)) if !running.exited => format!(
                        "running pid {}, up {} s, {}, {}, {} open document(s)",
                        running.pid,
                        running.uptime_ms / 1000,
                        if root.view_broken.is_some() { "NOT ready (view broken, below)" } else { running.readiness.as_str() },
                        running.position_encoding,
                        running.open_documents.len()
                    ),
                    (_, Some(running)) => format!("{} (restarts on the next call)", running.readiness),
                    (Some(_), None) => "can serve; not running (starts on first use)".to_owned(),
                    (None, None) => "cannot serve: binary missing".to_owned(),
                };
                out.push_str(&format!("  root {} (marker {marker}): {verdict}", root.root));
                if root.restarts > 0 {
                    out.push_str(&format!("; restarts {}", root.restarts));
                }
                out.push('\n');
                if let Some(binary) = &root.binary {
                    if Some(binary) != server.binary.as_ref() {
                        out.push_str(&format!("    binary for this root: {binary}\n"));
                    }
                }
                if let Some(restricted) = &root.restricted {
                    out.push_str(&format!("    {restricted}\n"));
                }
                if let Some(problem) = &root.project_config_problem {
                    out.push_str(&format!("    project config: {problem}\n"));
                }
                if let Some(why) = &root.view_broken {
                    out.push_str(&format!(
                        "    VIEW BROKEN (its answers are stale, not ready): {why}; the next call of a tool on this root restarts it (or `lsp` op reload now)\n"
                    ));
                }
                if let Some(interpreter) = &root.interpreter {
                    // Restricted: the project's interpreter is resolved but not run (the line
                    // above says what is used in its place; trial38 M5).
                    let label = if root.restricted.is_some() {
                        "project interpreter (resolved, NOT run: workspace trust is restricted, see above)"
                    } else {
                        "interpreter"
                    };
                    out.push_str(&format!("    {label}: {}\n", interpreter.describe()));
                    for note in &interpreter.notes {
                        out.push_str(&format!("    interpreter note: {note}\n"));
                    }
                }
                if let Some(running) = &root.running {
                    if let Some(info) = &running.server_info {
                        out.push_str(&format!("    server: {info}\n"));
                    }
                    if let Some(file_access) = &running.file_access {
                        out.push_str(&format!("    {}\n", file_access.describe()));
                    }
                    for line in &running.stderr_tail {
                        out.push_str(&format!("    stderr: {line}\n"));
                    }
                }
                if let Some(exit) = &root.last_exit {
                    out.push_str(&format!("    last exit: {}\n", exit.lines().next().unwrap_or("")));
                }
                if let Some(err) = &root.last_start_error {
                    out.push_str(&format!("    last start failed: {}\n", err.lines().next().unwrap_or("")));
                }
                if let Some(ms) = root.next_start_in_ms {
                    out.push_str(&format!(
                        "    start backoff: {} failed start(s) in a row; next attempt allowed in {} s (`lsp` op reload retries now)\n",
                        root.start_failures,
                        ms.div_ceil(1000)
                    ));
                }
            }
        }
        out
    }

    /// The status as JSON (`structuredContent` of `lsp status` without its `op`; `lsp status`
    /// serializes it inside `crate::lsp::output::LspOutput::Status`).
    pub fn to_json(&self) -> Value {
        crate::schema::to_structured(self)
    }
}

fn interpreter_fingerprint(resolved: &Result<PythonInterpreter, String>) -> String {
    match resolved {
        Ok(interpreter) => interpreter.fingerprint(),
        Err(why) => format!("none: {why}"),
    }
}

impl crate::registry::Resource for LspSupervisor {
    const NAME: &'static str = "LSP supervisor";
    const WIRED_BY: &'static str = "RunBuilder::language_servers()";
}

/// Directories under `workspace_root` containing each marker name (bounded walk: depth ≤ 8,
/// gitignore respected, vendor directories skipped).
fn scan_marker_dirs(workspace_root: &Path, table: &[Arc<ServerDefinition>]) -> HashMap<String, Vec<PathBuf>> {
    let markers: Vec<&str> = table.iter().flat_map(|definition| definition.root_markers.iter().map(String::as_str)).collect();
    let mut found: HashMap<String, Vec<PathBuf>> = HashMap::new();
    // Listed beneath a handle of the root, no symlink followed (issue 13 §1).
    let Ok(handle) = crate::files::Beneath::open(workspace_root) else { return found };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, workspace_root) else { return found };
    let walker =
        walk.hidden(false).max_depth(Some(8)).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter();
    for (seen, entry) in walker.flatten().enumerate() {
        if seen > 50_000 {
            break;
        }
        let Some(name) = entry.file_name().to_str() else { continue };
        if markers.contains(&name) {
            if let Some(parent) = entry.path().parent() {
                found.entry(name.to_owned()).or_default().push(parent.to_path_buf());
            }
        }
    }
    found
}
