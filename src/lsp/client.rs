//! One language-server process: start + `initialize`, the owner thread that pumps its messages,
//! readiness, documents, diagnostics store, and requests with bounded retries.
//!
//! Shape (docs/contract.md, design card): [`LanguageServer`] is the handle; a dedicated OS thread
//! (`runbound-lsp-<id>-pump`) drains the connection's incoming channel, answers every
//! server→client request, and folds notifications (`$/progress`, `experimental/serverStatus`,
//! `$/analyzerStatus`, `textDocument/publishDiagnostics`, log messages) into a shared
//! `ServerState` guarded by a mutex + condvar, so callers can wait on readiness or on a newer
//! diagnostics generation with a deadline. Requests go straight from the caller's thread through
//! [`crate::transport::LspConnection`] (lsp-server's `Message`s over our hardened framing), which
//! correlates responses with per-request timeouts.
//!
//! Calls are typed in lsp-types' vocabulary: [`LanguageServer::request`]`::<R>` takes
//! `R::Params` and returns `R::Result` for any `lsp_types::request::Request`,
//! [`LanguageServer::notify`]`::<N>` sends `N::Params`; server→client requests and notifications
//! are decoded into their lsp-types params. Where a real server's shape deviates from the
//! types, a tolerant path says which server needs it.
//!
//! Dropping the handle: `shutdown` (≤ 1 s) → `exit` → wait ≤ 500 ms → the connection's drop kills
//! the process group and joins the reader/writer threads; the pump thread is joined first.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{select, Receiver, Sender};
use lsp_server::{ErrorCode, Notification as WireNotification, Request as WireRequest, Response as WireResponse, ResponseError};
use lsp_types::notification::Notification as LspNotification;
use lsp_types::request::Request as LspRequest;
use lsp_types::{notification, request, NumberOrString, ServerCapabilities};
use parking_lot::{Condvar, Mutex};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::lsp::position::PositionEncoding;
use crate::lsp::servers::{ReadinessSignal, ServerDefinition};
use crate::lsp::uri::{lsp_uri_to_path, path_to_lsp_uri, path_to_uri};
use crate::lsp::WorkspaceEditApplier;
use crate::transport::{ChildProcess, LspConnection, LspIncoming, LspPendingResponse, ProcessSpec, RpcError, RpcErrorKind, RpcOptions};

/// LSP `ContentModified`: the document changed while the server computed the answer.
pub const CONTENT_MODIFIED: i32 = ErrorCode::ContentModified as i32;
/// LSP `ServerCancelled`: the server cancelled the request (e.g. still loading).
pub const SERVER_CANCELLED: i32 = ErrorCode::ServerCancelled as i32;
/// JSON-RPC `MethodNotFound`.
pub const METHOD_NOT_FOUND: i32 = ErrorCode::MethodNotFound as i32;

/// Methods announced to servers as retried on ContentModified
/// (`general.staleRequestSupport.retryOnContentModified`); [`LanguageServer::request`] retries
/// these, `textDocument/prepareRename`, `textDocument/rename` and `textDocument/codeAction` (all
/// without effect on the server: a rename's answer is an edit that runbound applies itself).
pub const RETRY_ON_CONTENT_MODIFIED: &[&str] = &[
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/typeDefinition",
    "textDocument/implementation",
    "textDocument/references",
    "textDocument/documentSymbol",
    "workspace/symbol",
    "textDocument/diagnostic",
    "textDocument/prepareCallHierarchy",
    "callHierarchy/incomingCalls",
    "callHierarchy/outgoingCalls",
    "textDocument/prepareTypeHierarchy",
    "typeHierarchy/supertypes",
    "typeHierarchy/subtypes",
];

/// Whether [`LanguageServer::request`] retries `method` after ContentModified / ServerCancelled:
/// it only reads, so asking again is safe. `textDocument/rename` counts: the server only computes
/// the `WorkspaceEdit`, which runbound applies (rust-analyzer answers a rename sent while it
/// still loads the workspace with ContentModified: semver 1.0.28, a cold `lsp_rename` under load
/// failed with "-32801: content modified" after the 15 s indexing wait).
pub fn is_read_only_method(method: &str) -> bool {
    RETRY_ON_CONTENT_MODIFIED.contains(&method)
        || matches!(method, "textDocument/prepareRename" | "textDocument/rename" | "textDocument/codeAction")
}

/// rust-analyzer's `rust-analyzer/runFlycheck` notification (its `lsp_ext`): run the project
/// check (`cargo check`) now, for one file's crate or (`text_document: None`) the workspace.
#[derive(Debug)]
pub enum RunFlycheck {}

/// Params of [`RunFlycheck`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFlycheckParams {
    /// The file whose crate to check; `None` (sent as `null`) checks the whole workspace.
    pub text_document: Option<lsp_types::TextDocumentIdentifier>,
}

impl LspNotification for RunFlycheck {
    type Params = RunFlycheckParams;
    const METHOD: &'static str = "rust-analyzer/runFlycheck";
}

/// rust-analyzer's `experimental/serverStatus` notification (its `lsp_ext`), sent when the client
/// announces `experimental.serverStatusNotification`.
#[derive(Debug)]
enum ServerStatus {}

#[derive(Debug, Serialize, Deserialize)]
struct ServerStatusParams {
    #[serde(default = "quiescent_by_default")]
    quiescent: bool,
    message: Option<String>,
}

fn quiescent_by_default() -> bool {
    true
}

impl LspNotification for ServerStatus {
    type Params = ServerStatusParams;
    const METHOD: &'static str = "experimental/serverStatus";
}

/// The Dart analysis server's `$/analyzerStatus` notification.
#[derive(Debug)]
enum AnalyzerStatus {}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnalyzerStatusParams {
    is_analyzing: Option<bool>,
}

impl LspNotification for AnalyzerStatus {
    type Params = AnalyzerStatusParams;
    const METHOD: &'static str = "$/analyzerStatus";
}

/// pyright's (and basedpyright's) own progress: `pyright/beginProgress` (no params),
/// `pyright/reportProgress` (params: one string), `pyright/endProgress`.
#[derive(Debug)]
enum PyrightReportProgress {}

impl LspNotification for PyrightReportProgress {
    type Params = String;
    const METHOD: &'static str = "pyright/reportProgress";
}

/// `textDocument/publishDiagnostics` with each diagnostic still JSON: the fallback when the whole
/// set does not decode as `PublishDiagnosticsParams`, so one malformed diagnostic costs only
/// itself (the rest are decoded one by one and the dropped ones logged).
#[derive(Debug, Deserialize)]
struct PublishDiagnosticsItems {
    uri: lsp_types::Uri,
    version: Option<i32>,
    diagnostics: Vec<Value>,
}

/// `textDocument/diagnostic` as runbound sends it: lsp-types 0.97's `DocumentDiagnosticParams`
/// writes the absent optional `identifier` / `previousResultId` as `null`, which the spec
/// (`identifier?: string`) does not allow, so they are left out here instead.
#[derive(Debug)]
enum PullDocumentDiagnostics {}

/// Params of [`PullDocumentDiagnostics`].
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullDocumentDiagnosticsParams {
    text_document: lsp_types::TextDocumentIdentifier,
    #[serde(skip_serializing_if = "Option::is_none")]
    identifier: Option<String>,
}

impl LspRequest for PullDocumentDiagnostics {
    type Params = PullDocumentDiagnosticsParams;
    type Result = lsp_types::DocumentDiagnosticReportResult;
    const METHOD: &'static str = request::DocumentDiagnosticRequest::METHOD;
}

/// After a server's check run ends, how long no other may begin before it counts as the last:
/// rust-analyzer ends a cancelled flycheck like a finished one and begins its restart at once.
pub const CHECK_RUN_RESTART_WINDOW: Duration = Duration::from_millis(300);

/// A check run that ended less than this after its `begin` was most likely cancelled rather than
/// finished (cargo's start and one rustc check of a changed crate take longer): rust-analyzer
/// cancels a running flycheck when another restart comes (a save, its cache priming ending) and
/// begins the restarted run after a 50 ms debounce — under load seen later than
/// [`CHECK_RUN_RESTART_WINDOW`], and the cancelled run's partial diagnostics were then read as
/// the write's (CI, stop 37: "1 new error" where cargo reports 2, "cargo check, 0.4 s after the
/// save"). After such a run the restart is waited for up to [`CANCELLED_CHECK_RESTART_WINDOW`].
pub const SHORT_CHECK_RUN: Duration = Duration::from_millis(200);

/// How long no other check run may begin after a [`SHORT_CHECK_RUN`] before it counts as the
/// last.
pub const CANCELLED_CHECK_RESTART_WINDOW: Duration = Duration::from_millis(1500);

/// How many times a read-only request is retried after ContentModified / ServerCancelled.
pub const READ_ONLY_RETRIES: u32 = 3;

/// What a server is doing, as far as its notifications tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// Initialized, within its startup grace, nothing reported yet.
    Starting,
    /// Work in progress: the titles (and messages) of the running progress reports.
    Indexing(Vec<String>),
    /// Nothing running.
    Ready,
    /// The process is gone; the text says how.
    Exited(String),
}

impl Readiness {
    /// A short human text: `ready`, `starting`, `indexing (Roots Scanned, …)`, `exited: …`.
    pub fn describe(&self) -> String {
        match self {
            Readiness::Starting => "starting".to_owned(),
            Readiness::Indexing(titles) if titles.is_empty() => "indexing".to_owned(),
            Readiness::Indexing(titles) => format!("indexing ({})", titles.join("; ")),
            Readiness::Ready => "ready".to_owned(),
            Readiness::Exited(how) => format!("exited: {how}"),
        }
    }
}

/// The outcome of waiting for readiness.
/// How long a file's diagnostics took to come when asked ([`LanguageServer::state_cost`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateCost {
    /// The last time.
    pub last: Duration,
    /// The longest time.
    pub longest: Duration,
}

#[derive(Debug, Clone)]
pub struct ReadinessReport {
    /// The state when the wait ended.
    pub readiness: Readiness,
    /// How long the wait took.
    pub waited: Duration,
}

impl ReadinessReport {
    /// A note for the answer when the server was not ready, e.g. "note: rust-analyzer was still
    /// indexing after waiting 500 ms (running: Roots Scanned); the answer may be incomplete".
    pub fn note(&self, server_id: &str) -> Option<String> {
        match &self.readiness {
            Readiness::Ready | Readiness::Exited(_) => None,
            Readiness::Starting => Some(format!(
                "note: {server_id} was still starting after waiting {} ms; the answer may be incomplete — call again in a few seconds for a complete one",
                self.waited.as_millis()
            )),
            Readiness::Indexing(titles) => Some(format!(
                "note: {server_id} was still indexing after waiting {} ms (running: {}); the answer may be incomplete — call again in a few seconds for a complete one",
                self.waited.as_millis(),
                if titles.is_empty() { "unnamed work".to_owned() } else { titles.join("; ") }
            )),
        }
    }
}

/// Diagnostics a server published for one document.
#[derive(Debug, Clone)]
pub struct PublishedDiagnostics {
    /// Value of the server's publish counter when this set arrived (see
    /// [`LanguageServer::diagnostics_generation`]); strictly increasing per server.
    pub generation: u64,
    /// The document version the server says the set is for, if it sent one.
    pub version: Option<i64>,
    /// The diagnostics, decoded once when the publish arrived (each `data` stays JSON for the
    /// code-action round trip). A diagnostic that did not decode is left out and logged.
    pub diagnostics: Vec<lsp_types::Diagnostic>,
    /// When the set arrived.
    pub received_at: Instant,
}

/// What the diagnostics store holds for one path (see [`LanguageServer::stored_diagnostics`]).
#[derive(Debug, Clone)]
pub enum StoredDiagnostics {
    /// The latest publish, newer than the text the server has and than any change on disk.
    Current(PublishedDiagnostics),
    /// What is stored (or the absence of a publish) predates the text the server has now.
    Stale,
    /// The server never published for this path (for a server that publishes only files with
    /// diagnostics, e.g. rust-analyzer's flycheck and gopls, this means none).
    NeverPublished,
}

/// What [`LanguageServer::sync_document`] did.
#[derive(Debug, Clone)]
pub struct DocumentSync {
    /// The absolute path.
    pub path: PathBuf,
    /// Its `file://` URI as sent to the server.
    pub uri: String,
    /// The document version after the sync (1 after `didOpen`, +1 per `didChange`).
    pub version: i32,
    /// `didOpen` was sent.
    pub opened: bool,
    /// `didChange` + `didSave` were sent.
    pub changed: bool,
    /// The server's publish counter just before the notifications went out: a publish with a
    /// larger generation came after this sync.
    pub generation_before: u64,
}

/// A snapshot for `status`.
#[derive(Debug, Clone)]
pub struct ServerSnapshot {
    /// Process id.
    pub pid: u32,
    /// Time since the process started.
    pub uptime: Duration,
    /// Current readiness.
    pub readiness: Readiness,
    /// The negotiated position encoding.
    pub position_encoding: PositionEncoding,
    /// Open documents (absolute paths).
    pub open_documents: Vec<PathBuf>,
    /// The last lines of the server's stderr (at most 5).
    pub stderr_tail: Vec<String>,
    /// The last `window/logMessage` / `showMessage` lines (at most 5).
    pub log_tail: Vec<String>,
    /// `serverInfo` name + version, when the server sent it.
    pub server_info: Option<String>,
}

/// A failed request, classified for the tool layer.
#[derive(Debug, Clone)]
pub enum RequestFailure {
    /// The server answered with a JSON-RPC error (code, message, data).
    Server(ResponseError),
    /// Transport failure (timeout, peer gone), or an answer that does not decode into the
    /// request's lsp-types result (quoted), already phrased as a tool error.
    Transport(ToolError),
}

impl RequestFailure {
    /// As a tool error naming `server_id` and `method`.
    pub fn to_tool_error(&self, server_id: &str, method: &str) -> ToolError {
        match self {
            RequestFailure::Server(err) => {
                ToolError::new(ErrorKind::Failed, format!("{server_id} answered {method} with error {}: {}", err.code, err.message))
            }
            RequestFailure::Transport(err) => err.clone(),
        }
    }
}

/// Mutable state shared between the pump thread and callers.
#[derive(Debug, Default)]
pub(crate) struct ServerState {
    /// Tokens of running progress → display text (title, message, percentage).
    progress: HashMap<String, (String, String)>,
    /// pyright's non-standard progress (begin/end), display text when running.
    pyright_progress: Option<String>,
    /// Any progress was ever reported.
    progress_seen: bool,
    /// rust-analyzer `experimental/serverStatus`: (quiescent, message).
    server_status: Option<(bool, Option<String>)>,
    /// Dart `$/analyzerStatus.isAnalyzing`.
    dart_analyzing: Option<bool>,
    /// pyright logged that it finished enumerating the project's source files (`Found N source
    /// files` / `No source files found.`).
    pyright_source_files_found: bool,
    /// Dynamic registrations: id → (method, registerOptions).
    registrations: HashMap<String, (String, Option<Value>)>,
    /// Publish counter.
    publish_generation: u64,
    /// Latest published set per document.
    diagnostics: HashMap<PathBuf, PublishedDiagnostics>,
    /// Latest published set per document that named a document version (gopls names the
    /// version of an open file's text; a later set without one, from a snapshot in which the
    /// file was not open, does not replace it here).
    versioned_diagnostics: HashMap<PathBuf, PublishedDiagnostics>,
    /// `workspace/diagnostic/refresh` requests received.
    diagnostic_refreshes: u64,
    /// Last log / show messages.
    log_tail: VecDeque<String>,
    /// How the connection closed, when it has.
    closed: Option<String>,
    /// The server's own check runs (rust-analyzer `rust-analyzer/flycheck/N` progress) that
    /// began / ended.
    check_runs_started: u64,
    /// See `check_runs_started`.
    check_runs_finished: u64,
    /// The check runs whose `begin` arrived once the server had loaded its project (see
    /// [`check_run_begins_loaded`]): only such a run is known to have started after a write that
    /// preceded its `begin` (while rust-analyzer loads and first indexes, its main loop hands on
    /// a check's progress late, so a `begin` after the save may be a run started before it).
    check_runs_started_loaded: u64,
    /// rust-analyzer said `quiescent: true` at least once (its first loading and indexing ended).
    ever_quiescent: bool,
    /// The server's diagnosis passes (gopls' `diagnosing …` progress, reported with
    /// `verboseWorkDoneProgress`: one per `didOpen` / `didChange` / `didSave` /
    /// watched-files batch, ended after every set of the pass was published) that began.
    diagnoses_started: u64,
    /// Wall-clock time the latest check run ended (compared with a written file's mtime: a run
    /// that ended after the write reached the disk may have compiled the written text).
    check_run_last_end_wall: Option<SystemTime>,
    /// When the latest check run began, and how long it lasted once it ended (`None` while it
    /// runs): a run much shorter than a compile was likely cancelled (see
    /// [`SHORT_CHECK_RUN`]).
    check_run_last_began: Option<Instant>,
    /// See `check_run_last_began`.
    check_run_last_duration: Option<Duration>,
    /// Per path, `check_runs_started` when its stored set arrived: within one check run a
    /// file's check diagnostics only grow after the run clears them, so a smaller set that
    /// arrives later in the same run was sent out of order (see
    /// [`publish_arrived_out_of_order`]).
    check_run_of_stored_publish: HashMap<PathBuf, u64>,
    /// Files changed on disk outside the tools (seen by [`LanguageServer::resync_from_disk`]):
    /// path → (publish generation, check runs started, lowest document version that counts)
    /// when the change was seen, recorded *before* the server is sent the change (a fast publish
    /// must find the mark to clear it). Until a publish for the path arrives (for that document
    /// version or a later one, when the server sends versions), a pull answered after the change
    /// ([`LanguageServer::mark_checked_after_change`]), or (servers with a check run) a check run
    /// that began after the change ends, the stored diagnostics of the path predate the change
    /// and are not returned as current.
    stale: HashMap<PathBuf, (u64, u64, Option<i32>)>,
    /// When [`LanguageServer::resync_from_disk`] last sent the server a change made outside the
    /// tools that [`LanguageServer::settle_outside_changes`] has not seen settle yet: until then
    /// the diagnostics stored for *any* file may predate it (a changed signature breaks its
    /// callers in other files, which the server republishes only after re-checking them).
    outside_change_at: Option<Instant>,
    /// The open window for `workspace/applyEdit` (see [`LanguageServer::open_apply_edit_window`]);
    /// outside one, the server's edits are refused.
    apply_edit_window: Option<ApplyEditWindowState>,
}

/// What a server's `workspace/applyEdit` does while a window is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyEditMode {
    /// Apply it through the run's atomic applier (all-or-nothing, confined to the workspace)
    /// and record what was written: `lsp_code_action` running a command.
    Apply,
    /// Record it and answer `applied: false` (the edit is staged for a preview instead):
    /// `lsp_code_action` with `preview: true` running a command.
    Capture,
}

#[derive(Debug)]
struct ApplyEditWindowState {
    mode: ApplyEditMode,
    label: String,
    received: Vec<ReceivedEdit>,
}

/// One `workspace/applyEdit` a server sent inside a window.
#[derive(Debug, Clone)]
pub struct ReceivedEdit {
    /// The request's `label`, when the server gave one.
    pub label: Option<String>,
    /// The edit.
    pub edit: lsp_types::WorkspaceEdit,
    /// What runbound answered (`applied`, `failureReason`).
    pub answer: lsp_types::ApplyWorkspaceEditResponse,
    /// Absolute paths written or deleted (mode [`ApplyEditMode::Apply`] only).
    pub written: Vec<PathBuf>,
}

/// An open window during which a server's `workspace/applyEdit` requests are applied or
/// captured (by [`ApplyEditMode`]); closed on [`ApplyEditWindow::close`] or drop. Outside every
/// window a server's edit is refused: servers change files only while a write-tier tool runs
/// one of their commands.
pub struct ApplyEditWindow<'a> {
    server: &'a LanguageServer,
    closed: bool,
}

impl ApplyEditWindow<'_> {
    /// Closes the window and returns the edits received while it was open, in order.
    pub fn close(mut self) -> Vec<ReceivedEdit> {
        self.closed = true;
        self.server.shared.0.lock().apply_edit_window.take().map(|window| window.received).unwrap_or_default()
    }
}

impl Drop for ApplyEditWindow<'_> {
    fn drop(&mut self) {
        if !self.closed {
            self.server.shared.0.lock().apply_edit_window = None;
        }
    }
}

/// One running language server (one process per (server id, root)).
pub struct LanguageServer {
    definition: Arc<ServerDefinition>,
    root: PathBuf,
    workspace_root: PathBuf,
    connection: Arc<LspConnection>,
    shared: Arc<(Mutex<ServerState>, Condvar)>,
    documents: Mutex<HashMap<PathBuf, TrackedDocument>>,
    /// Documents opened only for diagnostics on write (importers of a written file), least
    /// recently checked first.
    opened_for_checks: Mutex<VecDeque<PathBuf>>,
    /// Bumped whenever the text the server analyses may have changed: a `didChange` sent, a
    /// `workspace/didChangeWatchedFiles` event. `didOpen` / `didClose` of a file whose text is the
    /// disk's do not bump it (the server reads unopened files from disk).
    content_epoch: std::sync::atomic::AtomicU64,
    /// The last pulled diagnostics per file with the content epoch they were computed at
    /// ([`LanguageServer::remember_pulled`]).
    pulled_states: Mutex<HashMap<PathBuf, (u64, Vec<lsp_types::Diagnostic>)>>,
    /// How long a file's diagnostics took to come when last asked and at the longest (a pull
    /// answered, or tsserver's diagnostics requests), per file ([`LanguageServer::state_cost`]).
    state_costs: Mutex<HashMap<PathBuf, StateCost>>,
    /// Files opened only so the server analyses them in the background (diagnostics on write's
    /// warming), until the next write takes them back ([`LanguageServer::take_warming`]).
    warming: Mutex<Vec<PathBuf>>,
    watched_files: Mutex<Option<FileStamps>>,
    /// The project's directories outside the workspace this server reads (a path dependency, the
    /// repository around the workspace: [`LanguageServer::watch_project_outside_roots`]), whose
    /// served files each resync also scans, and the stamps of the last scan (`None` before it).
    outside_watch: Mutex<OutsideWatch>,
    /// Files of another root of this server's language that runbound wrote since this server's
    /// last resync (see [`LanguageServer::queue_sibling_root_changes`]).
    sibling_root_changes: Mutex<Vec<(PathBuf, lsp_types::FileChangeType)>>,
    /// The directories of other roots of the workspace this root depends on (a path
    /// dependency, a go.mod replace) whose files every resync scans for changes made outside
    /// the tools (see [`LanguageServer::watch_sibling_dependency_dirs`]).
    sibling_watch: Mutex<SiblingWatch>,
    /// What a resync whose caller had no answer to put it in left out (see
    /// [`LanguageServer::carry_resync_report`]): merged into the next resync's report.
    carried_resync: Mutex<Option<ResyncReport>>,
    /// tsserver servers: the stamps of the project configurations under the root (see
    /// [`scan_tsserver_project_configs`]) at the last resync; `None` before the first.
    project_config_stamps: Mutex<Option<FileStamps>>,
    /// The project state taken before the last write (diagnostics on write's seed).
    write_baseline: Mutex<Option<WriteBaseline>>,
    /// Positions (path, 0-based line, character) whose last lookup got no answer while the
    /// server was still loading (see [`LanguageServer::note_lookup`]).
    lookups_unanswered_while_loading: Mutex<HashSet<(PathBuf, u32, u32)>>,
    /// Positions whose last lookup got a location but was asked while the server was still
    /// loading (see [`LanguageServer::note_lookup`]): typescript-language-server's syntax server
    /// answers then with the import that binds the name in the same file.
    lookups_answered_while_loading: Mutex<HashSet<(PathBuf, u32, u32)>>,
    capabilities: ServerCapabilities,
    /// Capabilities that did not decode into lsp-types (dropped from `capabilities`), with why.
    capability_notes: Vec<String>,
    /// `capabilities.typeHierarchyProvider` is present and not `false` (read from the JSON:
    /// lsp-types 0.97 has no field for it).
    type_hierarchy_provider: bool,
    server_info: Option<String>,
    position_encoding: PositionEncoding,
    pid: u32,
    started_at: Instant,
    /// Whether the process runs under its file-access confinement (`None`: none was asked).
    filesystem_confinement: Option<crate::transport::ConfinementOutcome>,
    initialized_at: Instant,
    stop_pump: Option<Sender<()>>,
    pump_thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Clone)]
struct TrackedDocument {
    version: i32,
    /// The publish generation just before the last `didOpen` / `didChange` was sent: a publish
    /// with a larger generation came after the server had this text.
    synced_generation: u64,
    mtime: Option<SystemTime>,
    size: u64,
    text: String,
}

/// A project's published state taken before a tool wrote (see
/// [`LanguageServer::set_write_baseline`]), for servers whose project-wide check reads the disk
/// (rust-analyzer's cargo check): the state the write's check is compared with when a check was
/// still running, or requested, when the write reached the disk.
#[derive(Debug, Clone)]
pub struct WriteBaseline {
    /// Every stored publish (path → latest set) when it was taken.
    pub snapshot: HashMap<PathBuf, PublishedDiagnostics>,
    /// Wall-clock time it was taken (before the tool wrote; a write whose files' mtimes are
    /// earlier cannot use it).
    pub taken_at: SystemTime,
    /// `true` when no check run was running or pending (files changed outside the tools not yet
    /// re-checked) when it was taken: it is the project's complete state just before the write.
    pub settled: bool,
    /// Files changed on disk outside the tools whose check had not ended when it was taken.
    pub unchecked_outside_changes: Vec<PathBuf>,
    /// [`LanguageServer::content_epoch`] when it was taken: when the server was sent a change
    /// since, its later publishes may be about that change.
    pub content_epoch: u64,
    /// How many check runs had begun ([`LanguageServer::check_runs`]) when it was taken: with
    /// `settled` and none begun since, every run ended before the write.
    pub check_runs_started: u64,
}

/// Path → (mtime, size) of the served files under a root.
pub(crate) type FileStamps = HashMap<PathBuf, (Option<SystemTime>, u64)>;

/// How many served files the creation/deletion scan tracks per root before it gives up.
const WATCHED_FILES_CAP: usize = 5000;

/// How many served files the scan of one project root outside the workspace tracks before it
/// gives that root up (said: [`LanguageServer::unwatched_project_outside_roots`]).
const OUTSIDE_ROOT_WATCHED_FILES_CAP: usize = 5000;

/// The project's directories outside the workspace a server reads, and what their last scan
/// found (see [`LanguageServer::watch_project_outside_roots`]).
#[derive(Default)]
struct OutsideWatch {
    /// The directories (absolute), as the supervisor granted them.
    roots: Vec<PathBuf>,
    /// The served files beneath `roots` (not beneath the workspace) and their stamps at the last
    /// scan; `None` before the first.
    stamps: Option<FileStamps>,
    /// Roots left out of the scan because they hold more than
    /// [`OUTSIDE_ROOT_WATCHED_FILES_CAP`] served files (or could not be listed), with why.
    unwatched: Vec<(PathBuf, String)>,
}

/// The sibling dependency directories a server watches ([`LanguageServer::watch_sibling_dependency_dirs`]).
#[derive(Default)]
struct SiblingWatch {
    /// The directories (absolute, canonical, inside the workspace, outside the server's root).
    dirs: Vec<PathBuf>,
    /// The served files beneath `dirs` and their stamps at the last scan.
    stamps: FileStamps,
    /// Directories left out: more than [`WATCHED_FILES_CAP`] served files, with why.
    unwatched: Vec<(PathBuf, String)>,
}

/// How many files changed outside the tools that the server does not have open get an
/// open/close cycle per resync (the rest reach it through `workspace/didChangeWatchedFiles`).
const OUTSIDE_CHANGE_CYCLE_CAP: usize = 64;

/// How many open documents are sent again as a new version after a change outside the tools to
/// a file the server does not have open (see [`LanguageServer::resync_from_disk`]).
const OUTSIDE_CHANGE_DEPENDENTS_CAP: usize = 64;

/// What one [`LanguageServer::resync_from_disk`] sent the server, and what its caps left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use = "the caps' shortfall must reach the answer: push `note()` into its notes"]
pub struct ResyncReport {
    /// Open documents sent again with their new text.
    pub resynced: usize,
    /// Files created, changed or deleted under the root since the last scan (all sent in
    /// `workspace/didChangeWatchedFiles`).
    pub changed_outside: usize,
    /// Files not open that got a `didOpen`/`didClose` cycle (at most 64).
    pub cycled: usize,
    /// Files not open, created or changed, left without a cycle by the cap (absolute, sorted):
    /// they reach the server only through `workspace/didChangeWatchedFiles`.
    pub not_cycled: Vec<PathBuf>,
    /// Open documents re-sent as a new version because a file they may depend on changed.
    pub dependents_resent: usize,
    /// Open documents with diagnostics left without that re-send by the cap (64): their
    /// diagnostics may predate the change until the server re-checks them on its own.
    pub dependents_not_resent: usize,
    /// tsserver project configurations (`tsconfig*.json`, `jsconfig.json`) changed outside the
    /// tools and sent in this resync (absolute): tsserver reloads its project from them.
    pub project_configs_changed: Vec<PathBuf>,
    /// The server's id, for the note.
    pub server_id: String,
}

impl ResyncReport {
    /// The sentence for an answer when a cap left files out, naming how many were not re-synced
    /// and what that means for freshness (up to 3 example paths via `display`); `None` when
    /// nothing was left out.
    pub fn note(&self, display: impl Fn(&Path) -> String) -> Option<String> {
        self.sentence(display).map(|sentence| format!("note: {sentence}"))
    }

    /// [`ResyncReport::note`] without its `note: ` prefix (for lists that add their own).
    pub fn sentence(&self, display: impl Fn(&Path) -> String) -> Option<String> {
        let mut parts = Vec::new();
        if !self.not_cycled.is_empty() {
            let mut examples: Vec<String> = self.not_cycled.iter().take(3).map(|path| display(path)).collect();
            if self.not_cycled.len() > 3 {
                examples.push("…".to_owned());
            }
            parts.push(format!(
                "{} of the {} files changed outside the tools (not open in {}) were NOT re-synced by an open/close cycle (cap {OUTSIDE_CHANGE_CYCLE_CAP} per call; e.g. {}): they reach {} only through workspace/didChangeWatchedFiles, so a server that does not act on those events for files it has not open (tsserver; pyright for created files) may answer from their old text until they are opened — ask about those files directly, or `reload` the server",
                self.not_cycled.len(),
                self.changed_outside,
                self.server_id,
                examples.join(", "),
                self.server_id
            ));
        }
        if self.dependents_not_resent > 0 {
            parts.push(format!(
                "{} open documents that may depend on the changed files were NOT re-sent to {} (cap {OUTSIDE_CHANGE_DEPENDENTS_CAP}; {} were): their stored diagnostics may predate the change until {} re-checks them on its own",
                self.dependents_not_resent, self.server_id, self.dependents_resent, self.server_id
            ));
        }
        if !self.project_configs_changed.is_empty() {
            let names: Vec<String> = self.project_configs_changed.iter().map(|path| display(path)).collect();
            parts.push(format!(
                "{} changed since the last answer: {} reloads its project from {}, and runbound waited {} ms and asked it for the project before answering; if a list here looks short, ask again",
                names.join(", "),
                self.server_id,
                crate::render::one_or_many(names.len(), "it", "them"),
                PROJECT_CONFIG_RELOAD_WAIT.as_millis()
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// How long a resync waits after sending tsserver a changed `tsconfig.json` before asking for
/// the project (tsserver throttles a configuration's reload by 250 ms).
const PROJECT_CONFIG_RELOAD_WAIT: Duration = Duration::from_millis(1000);
/// How long a tsserver project reload ([`LanguageServer::tsserver_reload_projects`]) is waited for.
const TSSERVER_RELOAD_WAIT: Duration = Duration::from_secs(20);

/// Whether `path` is a tsserver project configuration (`tsconfig.json`, `tsconfig.*.json`,
/// `jsconfig.json`).
fn is_tsserver_project_config(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name == "jsconfig.json" || (name.starts_with("tsconfig") && name.ends_with(".json")))
}

/// The tsserver project configurations under `root` ([`is_tsserver_project_config`]; at most 8
/// levels down, dependency and build folders skipped, listed beneath a handle of the root) and
/// their stamps. tsserver watches them itself; runbound compares them between resyncs to know
/// that tsserver is reloading a project (trial35 F5).
fn scan_tsserver_project_configs(workspace_root: &Path, root: &Path) -> FileStamps {
    let mut files = HashMap::new();
    let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, root) else { return files };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, root) else { return files };
    let walker =
        walk.hidden(true).max_depth(Some(8)).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "dist", "build"]).iter();
    for entry in walker.flatten().take(200_000) {
        if entry.is_file() && is_tsserver_project_config(entry.path()) {
            let stamp = entry.stat().map_or((None, 0), |stat| (Some(stat.modified), stat.len));
            files.insert(entry.into_path(), stamp);
            if files.len() >= 1_000 {
                break;
            }
        }
    }
    files
}

impl LanguageServer {
    /// Spawns `binary` for `root` and runs the `initialize` handshake within `timeout`. With
    /// `confinement`, the process (and everything it starts) may touch files only beneath its
    /// roots (Landlock; see `crate::lsp::confinement`); whether that took is
    /// [`LanguageServer::filesystem_confinement`].
    ///
    /// # Errors
    /// `unavailable` when the process cannot start or exits during the handshake (with its exit
    /// status and stderr tail); `timeout` when `initialize` gets no answer in time.
    pub fn start(
        definition: Arc<ServerDefinition>,
        binary: &Path,
        root: &Path,
        workspace_root: &Path,
        timeout: Duration,
        edit_applier: Arc<Mutex<Option<Arc<dyn WorkspaceEditApplier>>>>,
        confinement: Option<crate::transport::FilesystemConfinement>,
    ) -> Result<LanguageServer, ToolError> {
        let display_name = format!("{} @ {}", definition.id, root.display());
        let mut spec = ProcessSpec::new(binary, root).with_args(definition.args.iter().cloned()).with_display_name(display_name.clone());
        for (key, value) in &definition.env {
            spec = spec.with_env(key, value);
        }
        spec.filesystem_confinement = confinement;
        let started_at = Instant::now();
        let child = ChildProcess::spawn(spec)?;
        let pid = child.pid();
        let filesystem_confinement = child.filesystem_confinement().cloned();
        let options = RpcOptions::new(display_name.clone(), format!("lsp-{}", definition.id));
        let connection = Arc::new(LspConnection::over_child(child, options)?);
        let shared: Arc<(Mutex<ServerState>, Condvar)> = Arc::default();
        let (stop_pump, stop_rx) = crossbeam_channel::bounded::<()>(1);
        let pump_thread = {
            let connection = Arc::clone(&connection);
            let shared = Arc::clone(&shared);
            let definition = Arc::clone(&definition);
            let root = root.to_path_buf();
            std::thread::Builder::new()
                .name(format!("runbound-lsp-{}-pump", definition.id))
                .spawn(move || pump(&connection, &shared, &definition, &root, &stop_rx, &edit_applier))
                .map_err(|err| ToolError::new(ErrorKind::Io, format!("cannot start the message thread for {display_name}: {err}")))?
        };
        let mut server = LanguageServer {
            definition: Arc::clone(&definition),
            root: root.to_path_buf(),
            workspace_root: workspace_root.to_path_buf(),
            connection,
            shared,
            documents: Mutex::new(HashMap::new()),
            opened_for_checks: Mutex::new(VecDeque::new()),
            content_epoch: std::sync::atomic::AtomicU64::new(0),
            pulled_states: Mutex::new(HashMap::new()),
            state_costs: Mutex::new(HashMap::new()),
            warming: Mutex::new(Vec::new()),
            watched_files: Mutex::new(None),
            outside_watch: Mutex::new(OutsideWatch::default()),
            sibling_root_changes: Mutex::new(Vec::new()),
            sibling_watch: Mutex::new(SiblingWatch::default()),
            carried_resync: Mutex::new(None),
            project_config_stamps: Mutex::new(None),
            write_baseline: Mutex::new(None),
            lookups_unanswered_while_loading: Mutex::new(HashSet::new()),
            lookups_answered_while_loading: Mutex::new(HashSet::new()),
            capabilities: ServerCapabilities::default(),
            capability_notes: Vec::new(),
            type_hierarchy_provider: false,
            server_info: None,
            position_encoding: PositionEncoding::Utf16,
            pid,
            started_at,
            filesystem_confinement,
            initialized_at: Instant::now(),
            stop_pump: Some(stop_pump),
            pump_thread: Some(pump_thread),
        };
        let params = initialize_params(&definition, root);
        let result = match server.connection.request(request::Initialize::METHOD, params, timeout) {
            Ok(WireResponse { response_result: Ok(result), .. }) => result,
            Ok(WireResponse { response_result: Err(error), .. }) => {
                return Err(ToolError::new(
                    ErrorKind::Unavailable,
                    format!("{} (pid {}) refused initialize with error {}: {}", definition.id, server.pid, error.code, error.message),
                )
                .with_hint("check the server's installation and settings (lsp status shows the binary found); `lsp reload` retries"))
            }
            Err(err) => return Err(server.start_error("initialize", &err)),
        };
        // Read beside the typed result: clangd's pre-3.17 `offsetEncoding` extension, and
        // `typeHierarchyProvider` (LSP 3.17), which lsp-types 0.97's `ServerCapabilities` lacks
        // (servers that announce it would otherwise lose lsp_hierarchy type ops).
        let offset_encoding = result.get("offsetEncoding").and_then(Value::as_str).map(str::to_owned);
        server.type_hierarchy_provider = result
            .pointer("/capabilities/typeHierarchyProvider")
            .is_some_and(|provider| !matches!(provider, Value::Null | Value::Bool(false)));
        let (result, capability_notes) = decode_initialize_result(result);
        server.capabilities = result.capabilities;
        server.capability_notes = capability_notes;
        server.server_info = result.server_info.map(|info| match info.version {
            Some(version) => format!("{} {}", info.name, short_server_version(&version)),
            None => info.name,
        });
        server.position_encoding = server
            .capabilities
            .position_encoding
            .as_ref()
            .map(|kind| kind.as_str())
            // clangd's pre-3.17 extension: `offsetEncoding` beside the capabilities.
            .or(offset_encoding.as_deref())
            .and_then(PositionEncoding::from_lsp_name)
            .unwrap_or(PositionEncoding::Utf16);
        if let Err(err) =
            server.connection.notify(WireNotification::new(notification::Initialized::METHOD.to_owned(), lsp_types::InitializedParams {}))
        {
            return Err(server.start_error("initialized", &err));
        }
        if !definition.settings.is_null() {
            let _ = server.notify::<notification::DidChangeConfiguration>(lsp_types::DidChangeConfigurationParams {
                settings: definition.settings.clone(),
            });
        }
        server.initialized_at = Instant::now();
        Ok(server)
    }

    /// The server's definition.
    pub fn definition(&self) -> &ServerDefinition {
        &self.definition
    }

    /// The server id, e.g. `pyright`.
    pub fn id(&self) -> &str {
        &self.definition.id
    }

    /// The root this process serves.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// When the process was started.
    pub fn started_at(&self) -> Instant {
        self.started_at
    }

    /// Whether the process runs under the file-access confinement it was started with (Landlock,
    /// issue 13 §1), and beneath which roots; `None` when it was started without one (the run
    /// opted out).
    pub fn filesystem_confinement(&self) -> Option<&crate::transport::ConfinementOutcome> {
        self.filesystem_confinement.as_ref()
    }

    /// The position encoding negotiated at `initialize` (UTF-16 when the server named none).
    pub fn position_encoding(&self) -> PositionEncoding {
        self.position_encoding
    }

    /// The `serverInfo` the server sent at `initialize` (`name version`), if any.
    pub fn server_info(&self) -> Option<&str> {
        self.server_info.as_deref()
    }

    /// Opens the window during which this server's `workspace/applyEdit` requests are applied
    /// or captured (`mode`); `label` names the call in the answer to a refused edit.
    ///
    /// # Errors
    /// `conflict` when a window is already open on this server (another call is running one of
    /// its commands).
    pub fn open_apply_edit_window(&self, mode: ApplyEditMode, label: &str) -> Result<ApplyEditWindow<'_>, ToolError> {
        let mut state = self.shared.0.lock();
        if let Some(open) = &state.apply_edit_window {
            return Err(ToolError::new(
                ErrorKind::Conflict,
                format!("{} is already running a command for another call ({}); try again when it has finished", self.id(), open.label),
            ));
        }
        state.apply_edit_window = Some(ApplyEditWindowState { mode, label: label.to_owned(), received: Vec::new() });
        Ok(ApplyEditWindow { server: self, closed: false })
    }

    /// The `ServerCapabilities` from `initialize` (capabilities whose shape does not decode into
    /// lsp-types are left out; [`LanguageServer::capability_notes`] names them).
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The capabilities the server announced in a shape lsp-types cannot read, each with the
    /// decode error; they count as absent.
    pub fn capability_notes(&self) -> &[String] {
        &self.capability_notes
    }

    /// Whether the server supports `method` (e.g. `textDocument/typeDefinition`), statically
    /// (its `*Provider` capability is present and not `false`) or by dynamic registration.
    pub fn supports(&self, method: &str) -> bool {
        let caps = &self.capabilities;
        let statically = match method {
            "textDocument/definition" => provided(&caps.definition_provider),
            "textDocument/typeDefinition" => provided(&caps.type_definition_provider),
            "textDocument/implementation" => provided(&caps.implementation_provider),
            "textDocument/references" => provided(&caps.references_provider),
            "textDocument/hover" => provided(&caps.hover_provider),
            "textDocument/documentSymbol" => provided(&caps.document_symbol_provider),
            "workspace/symbol" => provided(&caps.workspace_symbol_provider),
            "textDocument/codeAction" => provided(&caps.code_action_provider),
            "textDocument/diagnostic" => provided(&caps.diagnostic_provider),
            "textDocument/rename" => provided(&caps.rename_provider),
            "workspace/executeCommand" => provided(&caps.execute_command_provider),
            "codeAction/resolve" => {
                return matches!(
                    &caps.code_action_provider,
                    Some(lsp_types::CodeActionProviderCapability::Options(lsp_types::CodeActionOptions {
                        resolve_provider: Some(true),
                        ..
                    }))
                )
            }
            "textDocument/prepareCallHierarchy" | "callHierarchy/incomingCalls" | "callHierarchy/outgoingCalls" => {
                provided(&caps.call_hierarchy_provider)
            }
            "textDocument/prepareTypeHierarchy" | "typeHierarchy/supertypes" | "typeHierarchy/subtypes" => self.type_hierarchy_provider,
            "textDocument/prepareRename" => {
                return matches!(
                    &caps.rename_provider,
                    Some(lsp_types::OneOf::Right(lsp_types::RenameOptions { prepare_provider: Some(true), .. }))
                )
            }
            _ => false,
        };
        statically || self.shared.0.lock().registrations.values().any(|(registered, _)| registered == method)
    }

    /// The commands the server runs through `workspace/executeCommand`
    /// (`executeCommandProvider.commands`).
    pub fn execute_commands(&self) -> &[String] {
        self.capabilities.execute_command_provider.as_ref().map(|options| options.commands.as_slice()).unwrap_or_default()
    }

    /// The process is gone (stream closed or exit observed); the text says how.
    pub fn exit_description(&self) -> Option<String> {
        if let Some(closed) = &self.shared.0.lock().closed {
            return Some(closed.clone());
        }
        if let Some(closed) = self.connection.closed() {
            return Some(closed.to_string());
        }
        let child = self.connection.child();
        child
            .try_wait()
            .map(|status| format!("process exited with {status}; stderr tail: {}", last_lines(&child.stderr_tail(), 5).join(" | ")))
    }

    /// The current readiness (see [`Readiness`]).
    pub fn readiness(&self) -> Readiness {
        self.readiness_with(false)
    }

    /// Waits until the server is ready or `deadline` passes (polling the condvar in ≤ 100 ms
    /// slices).
    pub fn wait_until_ready(&self, deadline: Instant) -> ReadinessReport {
        self.wait_until(deadline, false)
    }

    /// [`LanguageServer::wait_until_ready`] for a lookup — definition, references, hover,
    /// symbols, calls, a rename: the server's own project check (rust-analyzer's flycheck,
    /// `cargo check`) does not hold it, since the server answers from its own analysis, which
    /// the check does not feed (trial28 M1: every lookup waited its whole 15 s while the first
    /// `cargo check` of a crate with heavy dev-dependencies ran, with indexing at 100 %, and was
    /// called incomplete). Diagnostics keep [`LanguageServer::wait_until_ready`].
    pub fn wait_until_ready_for_lookups(&self, deadline: Instant) -> ReadinessReport {
        self.wait_until(deadline, true)
    }

    /// [`LanguageServer::readiness`] as a lookup sees it (see
    /// [`LanguageServer::wait_until_ready_for_lookups`]).
    pub fn readiness_for_lookups(&self) -> Readiness {
        self.readiness_with(true)
    }

    /// The readiness; with `ignore_check_runs`, as a lookup sees it.
    fn readiness_with(&self, ignore_check_runs: bool) -> Readiness {
        if let Some(how) = self.exit_description() {
            return Readiness::Exited(how);
        }
        let state = self.shared.0.lock();
        self.readiness_of_with(&state, ignore_check_runs)
    }

    fn wait_until(&self, deadline: Instant, for_lookups: bool) -> ReadinessReport {
        let start = Instant::now();
        loop {
            let readiness = self.readiness_with(for_lookups);
            if matches!(readiness, Readiness::Ready | Readiness::Exited(_)) || Instant::now() >= deadline {
                return ReadinessReport { readiness, waited: start.elapsed() };
            }
            // The server's own progress titles and percentages, for a host that listens.
            crate::progress::report_with(|| {
                crate::progress::ProgressUpdate::new(start.elapsed().as_secs_f64())
                    .with_total(deadline.saturating_duration_since(start).as_secs_f64())
                    .with_message(format!("{}: {}", self.definition.id, readiness.describe()))
            });
            let (lock, condvar) = &*self.shared;
            let mut state = lock.lock();
            let slice = (Instant::now() + Duration::from_millis(100)).min(deadline);
            condvar.wait_until(&mut state, slice);
        }
    }

    /// Waits until the server can run its own project check, or `deadline` passes: for a server
    /// with a check run (rust-analyzer) that is once its workspace is loaded and its first check
    /// run began, even while it still primes caches ("Indexing" std and dependencies, which
    /// neither `cargo check` nor diagnostics need); for other servers the same as
    /// [`LanguageServer::wait_until_ready`].
    pub fn wait_until_loaded(&self, deadline: Instant) -> ReadinessReport {
        if self.definition.write_check != crate::lsp::servers::WriteCheck::ProjectCheckRun {
            return self.wait_until_ready(deadline);
        }
        let start = Instant::now();
        loop {
            let readiness = self.readiness();
            let loaded = {
                let state = self.shared.0.lock();
                state.check_runs_started > 0
                    && state
                        .progress
                        .iter()
                        .all(|(token, (title, _))| is_check_run_token(token) || token.contains("cachePriming") || title == "Indexing")
            };
            if loaded || matches!(readiness, Readiness::Ready | Readiness::Exited(_)) || Instant::now() >= deadline {
                let readiness = if loaded { Readiness::Ready } else { readiness };
                return ReadinessReport { readiness, waited: start.elapsed() };
            }
            let (lock, condvar) = &*self.shared;
            let mut state = lock.lock();
            let slice = (Instant::now() + Duration::from_millis(100)).min(deadline);
            condvar.wait_until(&mut state, slice);
        }
    }

    /// Sends request `R` (any `lsp_types::request::Request`, or one of ours such as
    /// rust-analyzer's extensions) with `params` and waits until `deadline` for its `R::Result`.
    /// Read-only methods ([`is_read_only_method`]) are retried after ContentModified (-32801) and
    /// ServerCancelled (-32802) up to [`READ_ONLY_RETRIES`] times with a short backoff (never
    /// past the deadline). A request that times out is cancelled (`$/cancelRequest`), so the
    /// server stops computing an answer nobody waits for.
    ///
    /// # Errors
    /// [`RequestFailure::Server`] for an error answer; [`RequestFailure::Transport`] for a
    /// timeout, a dead server, or an answer that does not decode into `R::Result`.
    pub fn request<R: LspRequest>(&self, params: R::Params, deadline: Instant) -> Result<R::Result, RequestFailure> {
        self.request_retrying::<R>(params, deadline, is_read_only_method(R::METHOD))
    }

    /// [`LanguageServer::request`] with the retry on ContentModified / ServerCancelled chosen by
    /// the caller (`read_only`), for a method whose effect depends on its params
    /// (`workspace/executeCommand` of a read-only tsserver request).
    ///
    /// # Errors
    /// As [`LanguageServer::request`].
    pub fn request_retrying<R: LspRequest>(
        &self,
        params: R::Params,
        deadline: Instant,
        read_only: bool,
    ) -> Result<R::Result, RequestFailure> {
        let params = serde_json::to_value(params).map_err(|err| {
            RequestFailure::Transport(ToolError::new(ErrorKind::Failed, format!("cannot encode {} params: {err}", R::METHOD)))
        })?;
        let answer = self.request_value(R::METHOD, params, deadline, read_only)?;
        decode_answer::<R::Result>(&self.definition.id, R::METHOD, answer)
    }

    /// A request by method name with JSON params and answer, for the one round trip that needs
    /// the server's own JSON: `textDocument/codeAction` and `codeAction/resolve` (an action goes
    /// back to resolve exactly as the server sent it). Everything else uses
    /// [`LanguageServer::request`]. `read_only` chooses the retry as in
    /// [`LanguageServer::request_retrying`].
    ///
    /// # Errors
    /// As [`LanguageServer::request`], without the decode.
    pub(crate) fn request_untyped(&self, method: &str, params: Value, deadline: Instant, read_only: bool) -> Result<Value, RequestFailure> {
        self.request_value(method, params, deadline, read_only)
    }

    /// The request loop under [`LanguageServer::request`]: `params` and the answer as JSON.
    fn request_value(&self, method: &str, params: Value, deadline: Instant, read_only: bool) -> Result<Value, RequestFailure> {
        let mut attempt = 0;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(RequestFailure::Transport(
                    ToolError::new(ErrorKind::Timeout, format!("no time left to send {method} to {}", self.definition.id))
                        .with_hint("retry with a larger timeout"),
                ));
            }
            let pending = self.connection.send_request(method, params.clone(), remaining).map_err(|err| self.classify(&err))?;
            let id = pending.id().clone();
            match self.wait_reporting_progress(pending, method, deadline) {
                Ok(WireResponse { response_result: Ok(value), .. }) => return Ok(value),
                Ok(WireResponse { response_result: Err(error), .. }) => {
                    let retryable = error.code == CONTENT_MODIFIED || error.code == SERVER_CANCELLED;
                    if retryable && read_only && attempt < READ_ONLY_RETRIES {
                        attempt += 1;
                        let pause = Duration::from_millis(150 * u64::from(attempt));
                        if Instant::now() + pause < deadline {
                            std::thread::sleep(pause);
                            continue;
                        }
                    }
                    return Err(RequestFailure::Server(error));
                }
                Err(err) => {
                    if err.kind == RpcErrorKind::Timeout {
                        let id = serde_json::to_value(&id).ok().and_then(|id| serde_json::from_value::<NumberOrString>(id).ok());
                        if let Some(id) = id {
                            let _ = self.notify::<notification::Cancel>(lsp_types::CancelParams { id });
                        }
                    }
                    return Err(self.classify(&err));
                }
            }
        }
    }

    /// Waits for `pending` until `deadline`; while a host listens to the call's progress, reports
    /// every 250 ms that the server is still computing the answer, with its own `$/progress`
    /// titles (a request sent while rust-analyzer still indexes can take many seconds: without
    /// this a host saw nothing for 14 s of a 30 s cold call), on the call's scale
    /// ([`crate::progress::report_phase`]).
    // The same result as `LspPendingResponse::wait_until`, which it wraps.
    #[allow(clippy::result_large_err)]
    fn wait_reporting_progress(&self, pending: LspPendingResponse, method: &str, deadline: Instant) -> Result<WireResponse, RpcError> {
        if crate::progress::current().is_none() {
            return pending.wait_until(deadline);
        }
        let sent = Instant::now();
        loop {
            let slice = (Instant::now() + Duration::from_millis(250)).min(deadline);
            if slice >= deadline {
                return pending.wait_until(deadline);
            }
            if let Some(answer) = pending.poll_until(slice) {
                return answer;
            }
            crate::progress::report_phase(Some(deadline), || {
                format!("{}: computing {method} ({} s; {})", self.definition.id, sent.elapsed().as_secs(), self.readiness().describe())
            });
        }
    }

    /// Sends notification `N` (any `lsp_types::notification::Notification`, or one of ours such
    /// as [`RunFlycheck`]) with `params`.
    ///
    /// # Errors
    /// The transport's error as a tool error.
    pub fn notify<N: LspNotification>(&self, params: N::Params) -> Result<(), ToolError> {
        self.connection.notify(WireNotification::new(N::METHOD.to_owned(), params)).map_err(|err| err.to_tool_error())
    }

    /// Opens `path` on first use (`didOpen`, version 1) or, when its text on disk differs from
    /// what the server has, sends a full-text `didChange` (version + 1) and `didSave`.
    ///
    /// # Errors
    /// `not_found`/`io` when the file cannot be read; transport errors.
    pub fn sync_document(&self, path: &Path) -> Result<DocumentSync, ToolError> {
        let text = crate::files::read_workspace_file_to_string(&self.workspace_root, path)?;
        let (mtime, size) = file_stamp(path);
        self.sync_document_text(path, text, mtime, size)
    }

    /// Like [`LanguageServer::sync_document`] with text the caller already has (e.g. just
    /// written). Always sends `didChange` + `didSave` when the text differs from the server's.
    ///
    /// # Errors
    /// Transport errors.
    pub fn sync_document_text(&self, path: &Path, text: String, mtime: Option<SystemTime>, size: u64) -> Result<DocumentSync, ToolError> {
        // The served-files snapshot learns the new stamp too, so the next scan does not report
        // (and mark stale) a change the server was just sent.
        // A file the snapshot did not hold was created (by a tool): the server is told with a
        // `Created` event as well as the `didOpen` below — tsserver keeps "Cannot find module"
        // in the files that import a re-created file until a watched-file event says it exists.
        let mut created = false;
        if let Some(watched) = self.watched_files.lock().as_mut() {
            if path.starts_with(&self.root) && self.definition.serves(path) {
                created = watched.insert(path.to_path_buf(), (mtime, size)).is_none();
            }
        }
        if created {
            let _ = self.notify::<notification::DidChangeWatchedFiles>(lsp_types::DidChangeWatchedFilesParams {
                changes: vec![lsp_types::FileEvent { uri: path_to_lsp_uri(path), typ: lsp_types::FileChangeType::CREATED }],
            });
        }
        let mut documents = self.documents.lock();
        let generation_before = self.diagnostics_generation();
        let uri = path_to_uri(path);
        match documents.get_mut(path) {
            None => {
                let language_id = self.definition.language_id_for(path).unwrap_or("plaintext").to_owned();
                self.notify::<notification::DidOpenTextDocument>(lsp_types::DidOpenTextDocumentParams {
                    text_document: lsp_types::TextDocumentItem { uri: path_to_lsp_uri(path), language_id, version: 1, text: text.clone() },
                })?;
                documents
                    .insert(path.to_path_buf(), TrackedDocument { version: 1, synced_generation: generation_before, mtime, size, text });
                Ok(DocumentSync { path: path.to_path_buf(), uri, version: 1, opened: true, changed: false, generation_before })
            }
            Some(document) => {
                document.mtime = mtime;
                document.size = size;
                if document.text == text {
                    return Ok(DocumentSync {
                        path: path.to_path_buf(),
                        uri,
                        version: document.version,
                        opened: false,
                        changed: false,
                        generation_before,
                    });
                }
                document.version += 1;
                document.synced_generation = generation_before;
                self.bump_content_epoch();
                self.notify::<notification::DidChangeTextDocument>(lsp_types::DidChangeTextDocumentParams {
                    text_document: lsp_types::VersionedTextDocumentIdentifier { uri: path_to_lsp_uri(path), version: document.version },
                    content_changes: vec![lsp_types::TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text: text.clone(),
                    }],
                })?;
                self.notify::<notification::DidSaveTextDocument>(lsp_types::DidSaveTextDocumentParams {
                    text_document: text_document(path),
                    text: Some(text.clone()),
                })?;
                document.text = text;
                Ok(DocumentSync {
                    path: path.to_path_buf(),
                    uri,
                    version: document.version,
                    opened: false,
                    changed: true,
                    generation_before,
                })
            }
        }
    }

    /// Shows the server `text` as `path`'s content without saving it (`didChange`, no
    /// `didSave`, so no check-on-save starts), runs `during`, then sends the tracked text back
    /// the same way. The file on disk is never touched and the tracked text stays the file's,
    /// so a [`LanguageServer::sync_document`] of `path` inside `during` is a no-op and the server
    /// answers requests on `text`. Used to let a server resolve code it does not analyse in place
    /// (a Rust doc-test example, copied into a module appended to its file).
    ///
    /// # Errors
    /// When the file cannot be read or opened, or a notification cannot be sent (then
    /// `during` did not run, or the text was restored as far as the transport allowed).
    pub fn with_unsaved_text<T>(&self, path: &Path, text: String, during: impl FnOnce() -> T) -> Result<T, ToolError> {
        self.sync_document(path)?;
        let send = |text: String, restore: bool| -> Result<(), ToolError> {
            let mut documents = self.documents.lock();
            let generation_before = self.diagnostics_generation();
            let document = documents
                .get_mut(path)
                .ok_or_else(|| ToolError::failed(format!("{} is not open on {}", path.display(), self.definition.id)))?;
            document.version += 1;
            document.synced_generation = generation_before;
            self.bump_content_epoch();
            let text = if restore { document.text.clone() } else { text };
            self.notify::<notification::DidChangeTextDocument>(lsp_types::DidChangeTextDocumentParams {
                text_document: lsp_types::VersionedTextDocumentIdentifier { uri: path_to_lsp_uri(path), version: document.version },
                content_changes: vec![lsp_types::TextDocumentContentChangeEvent { range: None, range_length: None, text }],
            })
        };
        send(text, false)?;
        let answer = during();
        send(String::new(), true)?;
        Ok(answer)
    }

    /// Before an op: resyncs every tracked document whose file changed on disk (mtime + size),
    /// closes documents whose file was deleted, and sends `workspace/didChangeWatchedFiles` for
    /// served files created, changed or deleted under the root since the last scan (bounded to
    /// 5000 files); a created file also gets a `didOpen`/`didClose` cycle (pyright ignores bare
    /// creation events; a changed file not open gets the same cycle, up to 64 per resync, since
    /// tsserver does not act on watched-file events). When a file the server does not have open
    /// changed, the open documents it published for are sent again as a new version (gopls,
    /// pyright, clangd, pylsp), so their publish for that version says whether they still hold.
    /// Marks are recorded before anything is sent. Every path changed this way is marked stale: the diagnostics stored for
    /// it predate the change and are not returned as current until the server publishes for it
    /// again (or, for a server with its own check run, until a check run that began after the
    /// change ends; rust-analyzer gets `rust-analyzer/runFlycheck`, since its flycheck reruns only on
    /// save and drops the check of a save now and then). Returns how many documents
    /// were resynced and what the caps left out ([`ResyncReport::note`] says it).
    pub fn resync_from_disk(&self) -> ResyncReport {
        self.resync_from_disk_except(&[])
    }

    /// [`LanguageServer::resync_from_disk`] leaving `skip` alone (files a tool just wrote, which
    /// diagnostics on write syncs itself after taking the pre-write state).
    pub fn resync_from_disk_except(&self, skip: &[PathBuf]) -> ResyncReport {
        use crate::lsp::servers::WriteCheck;
        let write_check = self.definition.write_check;
        // What changed is found first and marked stale before the server hears of it: a server
        // that answers fast (pyright publishes a resynced document within milliseconds) must find
        // the mark to clear it, or the mark outlives the answer and every later call waits for a
        // publish that never comes.
        let mut deleted: Vec<PathBuf> = Vec::new();
        let mut changed_open: Vec<(PathBuf, i32)> = Vec::new();
        let tracked: Vec<(PathBuf, Option<SystemTime>, u64, i32)> = self
            .documents
            .lock()
            .iter()
            .filter(|(path, _)| !skip.contains(path))
            .map(|(path, doc)| (path.clone(), doc.mtime, doc.size, doc.version))
            .collect();
        for (path, mtime, size, version) in tracked {
            if !path.exists() {
                deleted.push(path);
            } else if file_stamp(&path) != (mtime, size) {
                changed_open.push((path, version));
            }
        }
        let mut events: Vec<(PathBuf, lsp_types::FileChangeType)> = Vec::new();
        let current = scan_served_files(&self.definition, &self.workspace_root, &self.root);
        let mut watched = self.watched_files.lock();
        if let (Some(previous), Some(current)) = (watched.as_ref(), current.as_ref()) {
            for (path, stamp) in current {
                if skip.contains(path) {
                    continue;
                }
                match previous.get(path) {
                    None => events.push((path.clone(), lsp_types::FileChangeType::CREATED)),
                    Some(old) if old != stamp => events.push((path.clone(), lsp_types::FileChangeType::CHANGED)),
                    Some(_) => (),
                }
            }
            for path in previous.keys().filter(|path| !current.contains_key(*path) && !skip.contains(path)) {
                events.push((path.clone(), lsp_types::FileChangeType::DELETED));
            }
        }
        // In path order: which files the open/close cap leaves out does not depend on hashing.
        events.sort_by(|a, b| a.0.cmp(&b.0));
        // Skipped files keep their previous stamp, so a later scan still reports them if the
        // caller never syncs them.
        let mut next = current;
        if let (Some(next), Some(previous)) = (next.as_mut(), watched.as_ref()) {
            for path in skip {
                match previous.get(path) {
                    Some(stamp) => {
                        next.insert(path.clone(), *stamp);
                    }
                    None => {
                        next.remove(path);
                    }
                }
            }
        }
        *watched = next;
        drop(watched);
        // Changes beneath the project's directories outside the workspace (a path dependency
        // edited by hand) reach the server the same way (trial20 F5, trial21 F2).
        let mut outside_events = self.scan_project_outside_roots();
        // Files of the other roots this one depends on (a library crate beside its consumer),
        // changed outside the tools: the same (issue 11 §5).
        let sibling_scanned = self.scan_sibling_dependency_dirs(skip);
        let mut sibling_changed = !sibling_scanned.is_empty();
        outside_events.extend(sibling_scanned);
        // Files another root of the same language holds, written by runbound since the last
        // resync (a library module beside its consumer: trial27b F2): this server's own scans
        // stop at its root, so it learns of them only here.
        for (path, typ) in self.take_sibling_root_changes() {
            if skip.contains(&path) {
                continue;
            }
            sibling_changed = true;
            if !events.iter().chain(outside_events.iter()).any(|(seen, _)| *seen == path) {
                outside_events.push((path, typ));
            }
        }
        if !outside_events.is_empty() {
            events.extend(outside_events);
            events.sort_by(|a, b| a.0.cmp(&b.0));
        }
        let open: HashSet<PathBuf> = self.documents.lock().keys().cloned().collect();
        // Files the server does not have open that changed: the server learns their new text
        // through an open/close cycle (tsserver, which does not act on
        // `workspace/didChangeWatchedFiles` unless its client watches files for it, and pyright,
        // which ignores bare creation events), bounded so a large checkout stays cheap (the
        // rest reach the server through `workspace/didChangeWatchedFiles` alone).
        let mut cycled: Vec<PathBuf> = Vec::new();
        let mut not_cycled: Vec<PathBuf> = Vec::new();
        for (path, typ) in &events {
            if *typ != lsp_types::FileChangeType::DELETED && !open.contains(path) {
                if cycled.len() < OUTSIDE_CHANGE_CYCLE_CAP {
                    cycled.push(path.clone());
                } else {
                    not_cycled.push(path.clone());
                }
            }
        }
        // A sibling root's file open here (a reference query opened the library's file in the
        // consumer's server) changes the other open documents' state as much as an unopened one.
        let unopened_changed = sibling_changed || events.iter().any(|(path, _)| !open.contains(path));
        // The open documents that may depend on a changed file the server does not have open
        // (a caller of a changed signature): their stored diagnostics predate the change. A
        // server that publishes per open document on every new version (gopls, pyright, clangd,
        // pylsp) is sent the same text as a new version, and its publish for that version ends
        // the wait; only documents it published for before count (one it never publishes for
        // would hold the wait until the budget ends). tsserver publishes nothing for a file that
        // stays clean: its answers come from requests, which it answers after the change.
        let mut dependents: Vec<(PathBuf, i32)> = Vec::new();
        let mut dependents_not_resent = 0;
        if unopened_changed
            && matches!(write_check, WriteCheck::WorkspacePublishes | WriteCheck::OpenImporters | WriteCheck::WrittenFilesOnly)
        {
            let documents = self.documents.lock();
            let state = self.shared.0.lock();
            for (path, doc) in documents.iter() {
                if skip.contains(path) || deleted.contains(path) || changed_open.iter().any(|(p, _)| p == path) {
                    continue;
                }
                if state.diagnostics.contains_key(path) {
                    if dependents.len() >= OUTSIDE_CHANGE_DEPENDENTS_CAP {
                        dependents_not_resent += 1;
                    } else {
                        dependents.push((path.clone(), doc.version));
                    }
                }
            }
        }
        // A server answering pulls (pyright) publishes nothing: a pull after the change is fresh.
        let answers_pulls = self.supports(request::DocumentDiagnosticRequest::METHOD);
        let anything_changed = !deleted.is_empty() || !changed_open.is_empty() || !events.is_empty();
        if anything_changed {
            let (lock, _) = &*self.shared;
            let mut state = lock.lock();
            let (generation, runs) = (state.publish_generation, state.check_runs_started);
            for path in &deleted {
                state.stale.insert(path.clone(), (generation, runs, None));
            }
            for (path, version) in changed_open.iter().chain(&dependents) {
                state.stale.insert(path.clone(), (generation, runs, Some(version + 1)));
            }
            for (path, _) in &events {
                if open.contains(path) {
                    continue;
                }
                // Marked only where something ends the mark: a check run (rust-analyzer), or the
                // publish that the open/close cycle brings (gopls, pyright, clangd). tsserver's
                // answers come from requests; a file it has not open is opened (and so synced
                // anew) when asked about.
                let ends = match write_check {
                    WriteCheck::ProjectCheckRun => true,
                    WriteCheck::WorkspacePublishes | WriteCheck::OpenImporters => cycled.contains(path) && !answers_pulls,
                    WriteCheck::TsserverRequests | WriteCheck::WrittenFilesOnly => false,
                };
                if ends {
                    state.stale.insert(path.clone(), (generation, runs, None));
                }
            }
            state.outside_change_at = Some(Instant::now());
        }
        let mut resynced = 0;
        for path in &deleted {
            self.documents.lock().remove(path);
            let _ = self
                .notify::<notification::DidCloseTextDocument>(lsp_types::DidCloseTextDocumentParams { text_document: text_document(path) });
        }
        for (path, _) in &changed_open {
            if self.sync_document(path).is_ok_and(|sync| sync.changed) {
                resynced += 1;
            } else {
                // Same text (touched, or written back): the stored diagnostics still hold.
                self.shared.0.lock().stale.remove(path);
            }
        }
        if !events.is_empty() {
            self.bump_content_epoch();
            let changes = events.iter().map(|(path, typ)| lsp_types::FileEvent { uri: path_to_lsp_uri(path), typ: *typ }).collect();
            let _ = self.notify::<notification::DidChangeWatchedFiles>(lsp_types::DidChangeWatchedFilesParams { changes });
        }
        // A tsconfig changed outside the tools: tsserver reloads the project after a throttle,
        // and a request answered before that comes from the old program (trial35 F5: references
        // right after `git checkout tsconfig.json` missed a file the reloaded project holds).
        let project_configs_changed: Vec<PathBuf> = if write_check == WriteCheck::TsserverRequests {
            let current = scan_tsserver_project_configs(&self.workspace_root, &self.root);
            let previous = self.project_config_stamps.lock().replace(current.clone());
            match previous {
                Some(previous) => {
                    let mut changed: Vec<PathBuf> = current
                        .iter()
                        .filter(|(path, stamp)| previous.get(*path) != Some(stamp) && !skip.contains(path))
                        .map(|(path, _)| path.clone())
                        .chain(previous.keys().filter(|path| !current.contains_key(*path)).cloned())
                        .collect();
                    changed.sort();
                    changed
                }
                None => Vec::new(),
            }
        } else {
            Vec::new()
        };
        // Files created or deleted outside the tools: tsserver acts on no watched-file event (see
        // `tsserver_reload_projects`; trial41 F3: a module moved away and back by hand stayed
        // "Cannot find module" in its importers, and outside every project's references).
        let files_came_or_went = write_check == WriteCheck::TsserverRequests
            && events.iter().any(|(path, typ)| *typ != lsp_types::FileChangeType::CHANGED && self.definition.serves(path));
        if files_came_or_went {
            self.tsserver_reload_projects(None, Instant::now() + TSSERVER_RELOAD_WAIT);
        } else if !project_configs_changed.is_empty() {
            std::thread::sleep(PROJECT_CONFIG_RELOAD_WAIT);
            let open = self.documents.lock().keys().next().cloned();
            if let Some(file) = open {
                // Answered once tsserver has brought the file's project up to date.
                let _ = self.tsserver_request(
                    "projectInfo",
                    serde_json::json!({"file": file.to_string_lossy(), "needFileNameList": false}),
                    Instant::now() + Duration::from_secs(10),
                );
            }
        }
        let reader = crate::files::WorkspaceReader::open(&self.workspace_root).ok();
        let outside_roots = self.outside_watch.lock().roots.clone();
        for path in &cycled {
            // A file of an outside root is read beneath that root, as the server reads it.
            let text = if path.starts_with(&self.workspace_root) {
                reader.as_ref().map(|reader| reader.read_to_string(path))
            } else {
                outside_roots
                    .iter()
                    .find(|root| path.starts_with(root))
                    .and_then(|root| crate::files::WorkspaceReader::open(root).ok())
                    .map(|reader| reader.read_to_string(path))
            };
            let Some(Ok(text)) = text else { continue };
            let language_id = self.definition.language_id_for(path).unwrap_or("plaintext").to_owned();
            let _ = self.notify::<notification::DidOpenTextDocument>(lsp_types::DidOpenTextDocumentParams {
                text_document: lsp_types::TextDocumentItem { uri: path_to_lsp_uri(path), language_id, version: 1, text },
            });
            let _ = self
                .notify::<notification::DidCloseTextDocument>(lsp_types::DidCloseTextDocumentParams { text_document: text_document(path) });
        }
        for (path, _) in &dependents {
            if self.resend_document(path).is_err() {
                self.shared.0.lock().stale.remove(path);
            }
        }
        // rust-analyzer reruns its flycheck (cargo check, which reads the disk) only on save, and
        // drops the check of a save now and then (while it primes caches): an explicit run, or the
        // errors stay those of the old text (rust-analyzer #22359).
        if anything_changed && write_check == WriteCheck::ProjectCheckRun {
            let _ = self.notify::<RunFlycheck>(RunFlycheckParams::default());
        }
        not_cycled.sort();
        let mut report = ResyncReport {
            resynced,
            changed_outside: events.len(),
            cycled: cycled.len(),
            not_cycled,
            dependents_resent: dependents.len(),
            dependents_not_resent,
            project_configs_changed,
            server_id: self.definition.id.clone(),
        };
        if let Some(carried) = self.carried_resync.lock().take() {
            report.changed_outside += carried.changed_outside;
            report.cycled += carried.cycled;
            report.not_cycled.extend(carried.not_cycled.into_iter().filter(|path| !cycled.contains(path)));
            report.not_cycled.sort();
            report.not_cycled.dedup();
            report.dependents_resent += carried.dependents_resent;
            report.dependents_not_resent += carried.dependents_not_resent;
            report.project_configs_changed.extend(carried.project_configs_changed);
            report.project_configs_changed.sort();
            report.project_configs_changed.dedup();
        }
        report
    }

    /// Sets the project's directories outside the workspace that this server reads (the
    /// supervisor's granted outside roots: a path dependency, the repository around the
    /// workspace; see `crate::lsp::confinement::project_outside_roots`) and takes their first
    /// scan. From then on every [`LanguageServer::resync_from_disk`] also scans the served files
    /// beneath them (not beneath the workspace; hidden directories, `target`, `node_modules`,
    /// `.venv` skipped) and sends what changed as it does for the workspace's files, so a hand
    /// edit in `../common` reaches the server without `reload`. A root with more than 5000
    /// served files, or one that cannot be listed, is left out and named by
    /// [`LanguageServer::unwatched_project_outside_roots`].
    pub(crate) fn watch_project_outside_roots(&self, roots: Vec<PathBuf>) {
        let (stamps, unwatched) =
            scan_project_outside_roots(&self.definition, &self.workspace_root, &roots, OUTSIDE_ROOT_WATCHED_FILES_CAP);
        *self.outside_watch.lock() = OutsideWatch { roots, stamps: Some(stamps), unwatched };
    }

    /// Records files runbound wrote (created, changed or deleted) under ANOTHER root of this
    /// server's language — a library module or crate beside the consumer this server serves
    /// (trial27b F2: `app`'s gopls kept answering from `cron`'s old text after a write in
    /// `cron`). The next [`LanguageServer::resync_from_disk`] (every op's first step) sends them
    /// as it sends a hand edit beneath an outside root: a `workspace/didChangeWatchedFiles`
    /// event, a `didChange` when the document is open here, an open/close cycle otherwise, and
    /// the open documents resent so their diagnostics are current. Paths under this server's own
    /// root are ignored (its own scan sees them).
    /// Gives the server the text on disk of each of `paths` (workspace files) it does not have
    /// open, by an open/close cycle, at most [`OUTSIDE_CHANGE_CYCLE_CAP`]: a server that does not
    /// act on `workspace/didChangeWatchedFiles` for a file outside its root (pyright reading
    /// another root's module it imports) then reads the new text. Returns how many were cycled.
    pub(crate) fn cycle_unopened_documents(&self, paths: &[PathBuf]) -> usize {
        let open: HashSet<PathBuf> = self.documents.lock().keys().cloned().collect();
        let Ok(reader) = crate::files::WorkspaceReader::open(&self.workspace_root) else { return 0 };
        let mut cycled = 0;
        for path in paths.iter().filter(|path| !open.contains(*path) && path.starts_with(&self.workspace_root)) {
            if cycled >= OUTSIDE_CHANGE_CYCLE_CAP {
                break;
            }
            let Ok(text) = reader.read_to_string(path) else { continue };
            let language_id = self.definition.language_id_for(path).unwrap_or("plaintext").to_owned();
            let _ = self.notify::<notification::DidOpenTextDocument>(lsp_types::DidOpenTextDocumentParams {
                text_document: lsp_types::TextDocumentItem { uri: path_to_lsp_uri(path), language_id, version: 1, text },
            });
            let _ = self
                .notify::<notification::DidCloseTextDocument>(lsp_types::DidCloseTextDocumentParams { text_document: text_document(path) });
            cycled += 1;
        }
        cycled
    }

    pub(crate) fn queue_sibling_root_changes(&self, changes: &[(PathBuf, lsp_types::FileChangeType)]) {
        let mut queued = self.sibling_root_changes.lock();
        for (path, typ) in changes {
            if path.starts_with(&self.root) {
                continue;
            }
            queued.retain(|(seen, _)| seen != path);
            queued.push((path.clone(), *typ));
        }
    }

    /// Sets the directories of other project roots inside the workspace that this server's root
    /// depends on ([`crate::lsp::sibling_roots::dependency_dirs_scan`]: the library crate a
    /// `path =` names, the module a go.mod `replace` names) and takes a first scan of the new
    /// ones (no event for them). From then on every [`LanguageServer::resync_from_disk`] also
    /// scans the served files beneath them and sends what changed, as it does for the project's
    /// outside roots: a file of the library changed by hand (`cp`, `git checkout`) reaches the
    /// consumer's server before its next answer (issue 11 §5). The server's own scan stops at
    /// its root, and a tool's write there reaches it through
    /// [`LanguageServer::queue_sibling_root_changes`]. A directory with more than
    /// [`WATCHED_FILES_CAP`] served files is left out and named by
    /// [`LanguageServer::unwatched_project_outside_roots`]. The same list again is a no-op.
    pub(crate) fn watch_sibling_dependency_dirs(&self, dirs: Vec<PathBuf>) {
        let mut watch = self.sibling_watch.lock();
        if watch.dirs == dirs {
            return;
        }
        let added: Vec<PathBuf> = dirs.iter().filter(|dir| !watch.dirs.contains(dir)).cloned().collect();
        watch.stamps.retain(|path, _| dirs.iter().any(|dir| path.starts_with(dir)));
        watch.unwatched.retain(|(dir, _)| dirs.contains(dir));
        let (stamps, unwatched) = self.scan_sibling_dirs(&added);
        watch.stamps.extend(stamps);
        watch.unwatched.extend(unwatched);
        watch.dirs = dirs;
    }

    /// The served files beneath `dirs` (inside the workspace) with their stamps, and the
    /// directories over [`WATCHED_FILES_CAP`] with why.
    fn scan_sibling_dirs(&self, dirs: &[PathBuf]) -> (FileStamps, Vec<(PathBuf, String)>) {
        let mut stamps = FileStamps::new();
        let mut unwatched = Vec::new();
        for dir in dirs {
            match scan_served_files(&self.definition, &self.workspace_root, dir) {
                Some(found) => stamps.extend(found),
                None => unwatched.push((
                    dir.clone(),
                    format!("another project root of the workspace that this one depends on; it holds more than {WATCHED_FILES_CAP} files the server reads"),
                )),
            }
        }
        (stamps, unwatched)
    }

    /// Scans the watched sibling dependency directories again and returns the served files
    /// created, changed or deleted beneath them since the last scan, `skip` left out (files a
    /// write just changed, which diagnostics on write sends itself after taking the pre-write
    /// state: they keep their previous stamp until then).
    fn scan_sibling_dependency_dirs(&self, skip: &[PathBuf]) -> Vec<(PathBuf, lsp_types::FileChangeType)> {
        let mut watch = self.sibling_watch.lock();
        if watch.dirs.is_empty() {
            return Vec::new();
        }
        let dirs: Vec<PathBuf> =
            watch.dirs.iter().filter(|dir| !watch.unwatched.iter().any(|(given_up, _)| given_up == *dir)).cloned().collect();
        let (mut current, newly_unwatched) = self.scan_sibling_dirs(&dirs);
        for path in skip {
            match watch.stamps.get(path) {
                Some(stamp) => {
                    current.insert(path.clone(), *stamp);
                }
                None => {
                    current.remove(path);
                }
            }
        }
        let mut events = Vec::new();
        for (path, stamp) in &current {
            match watch.stamps.get(path) {
                None => events.push((path.clone(), lsp_types::FileChangeType::CREATED)),
                Some(old) if old != stamp => events.push((path.clone(), lsp_types::FileChangeType::CHANGED)),
                Some(_) => (),
            }
        }
        let given_up = |path: &Path| newly_unwatched.iter().any(|(dir, _)| path.starts_with(dir));
        for path in watch.stamps.keys().filter(|path| !current.contains_key(*path) && !given_up(path)) {
            events.push((path.clone(), lsp_types::FileChangeType::DELETED));
        }
        watch.stamps = current;
        watch.unwatched.extend(newly_unwatched);
        events
    }

    /// Takes the changes queued by [`LanguageServer::queue_sibling_root_changes`] (the open
    /// documents among them are left to the caller: `resync_from_disk` finds them by stamp).
    pub(crate) fn take_sibling_root_changes(&self) -> Vec<(PathBuf, lsp_types::FileChangeType)> {
        std::mem::take(&mut *self.sibling_root_changes.lock())
    }

    /// The outside roots this server was given at its start
    /// ([`LanguageServer::watch_project_outside_roots`]): the ones it may read when confined.
    pub(crate) fn watched_project_outside_roots(&self) -> Vec<PathBuf> {
        self.outside_watch.lock().roots.clone()
    }

    /// The project's directories outside the workspace whose changes the resync does NOT pick up
    /// (more than 5000 served files, or not listable), with why: a hand edit there reaches the
    /// server only after `reload`. Empty when every outside root is watched (or there are none).
    pub(crate) fn unwatched_project_outside_roots(&self) -> Vec<(PathBuf, String)> {
        let mut unwatched = self.outside_watch.lock().unwatched.clone();
        unwatched.extend(self.sibling_watch.lock().unwatched.iter().cloned());
        unwatched
    }

    /// Scans the watched outside roots again and returns the served files created, changed or
    /// deleted beneath them since the last scan (none on the first scan, or without roots). A
    /// root given up (over the cap, not listable) is not scanned again.
    fn scan_project_outside_roots(&self) -> Vec<(PathBuf, lsp_types::FileChangeType)> {
        let mut watch = self.outside_watch.lock();
        if watch.roots.is_empty() {
            return Vec::new();
        }
        // A root given up stays given up until the server restarts: no walk of 5000 files per call.
        let roots: Vec<PathBuf> =
            watch.roots.iter().filter(|root| !watch.unwatched.iter().any(|(given_up, _)| given_up == *root)).cloned().collect();
        let (current, newly_unwatched) =
            scan_project_outside_roots(&self.definition, &self.workspace_root, &roots, OUTSIDE_ROOT_WATCHED_FILES_CAP);
        let mut unwatched = std::mem::take(&mut watch.unwatched);
        unwatched.extend(newly_unwatched);
        let mut events = Vec::new();
        if let Some(previous) = watch.stamps.as_ref() {
            for (path, stamp) in &current {
                match previous.get(path) {
                    None => events.push((path.clone(), lsp_types::FileChangeType::CREATED)),
                    Some(old) if old != stamp => events.push((path.clone(), lsp_types::FileChangeType::CHANGED)),
                    Some(_) => (),
                }
            }
            // A root given up since (over the cap) did not lose its files: no deletion for them.
            let given_up = |path: &Path| unwatched.iter().any(|(root, _)| path.starts_with(root));
            for path in previous.keys().filter(|path| !current.contains_key(*path) && !given_up(path)) {
                events.push((path.clone(), lsp_types::FileChangeType::DELETED));
            }
        }
        watch.stamps = Some(current);
        watch.unwatched = unwatched;
        events
    }

    /// Keeps `report` (from a resync whose caller has no answer to say it in: the pre-write
    /// seeding of diagnostics on write) when a cap left files out, for the next resync's report
    /// to carry into its answer.
    pub fn carry_resync_report(&self, report: ResyncReport) {
        if !report.not_cycled.is_empty() || report.dependents_not_resent > 0 || !report.project_configs_changed.is_empty() {
            let mut carried = self.carried_resync.lock();
            match carried.as_mut() {
                Some(earlier) => {
                    earlier.changed_outside += report.changed_outside;
                    earlier.cycled += report.cycled;
                    earlier.not_cycled.extend(report.not_cycled);
                    earlier.dependents_resent += report.dependents_resent;
                    earlier.dependents_not_resent += report.dependents_not_resent;
                    earlier.project_configs_changed.extend(report.project_configs_changed);
                }
                None => *carried = Some(report),
            }
        }
    }

    /// Sends an open document's unchanged text again as its next version (`didChange`), so the
    /// server re-checks it against what changed around it and publishes for that version.
    ///
    /// # Errors
    /// `not_found` when the document is not open; transport errors.
    fn resend_document(&self, path: &Path) -> Result<i32, ToolError> {
        let generation_before = self.diagnostics_generation();
        let mut documents = self.documents.lock();
        let Some(document) = documents.get_mut(path) else {
            return Err(ToolError::new(ErrorKind::NotFound, format!("{} is not open in {}", path.display(), self.definition.id)));
        };
        document.version += 1;
        document.synced_generation = generation_before;
        self.notify::<notification::DidChangeTextDocument>(lsp_types::DidChangeTextDocumentParams {
            text_document: lsp_types::VersionedTextDocumentIdentifier { uri: path_to_lsp_uri(path), version: document.version },
            content_changes: vec![lsp_types::TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: document.text.clone(),
            }],
        })?;
        Ok(document.version)
    }

    /// Records that the diagnostics of `path` were asked of the server (a pull, or tsserver's
    /// diagnostics requests) after the changes made outside the tools reached it: its stale
    /// mark ends (see [`LanguageServer::resync_from_disk`]).
    pub fn mark_checked_after_change(&self, path: &Path) {
        self.shared.0.lock().stale.remove(path);
    }

    /// After [`LanguageServer::resync_from_disk`] sent the server changes made outside the tools,
    /// waits (bounded by `deadline`) until the server has re-checked them, so that no file's
    /// stored diagnostics predate them — not only the changed files' own, but those of the files
    /// that depend on them (gopls republishes a caller's set only after re-checking its package):
    /// every changed open document republished (for a server with its own check run: a check run
    /// that began after the change ended), then no publish for the server's
    /// [`ServerDefinition::diagnostics_settle`]. Returns at once when nothing changed outside the
    /// tools since the last settle (the common case: one lock, no wait). `true` when settled.
    pub fn settle_outside_changes(&self, deadline: Instant) -> bool {
        if self.shared.0.lock().outside_change_at.is_none() {
            return true;
        }
        let open: Vec<PathBuf> = self.documents.lock().keys().cloned().collect();
        let project_check = self.definition.write_check == crate::lsp::servers::WriteCheck::ProjectCheckRun;
        // (`supports` takes the state lock: asked before it is held.)
        let by_requests = self.definition.write_check == crate::lsp::servers::WriteCheck::TsserverRequests
            || self.supports(request::DocumentDiagnosticRequest::METHOD);
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        // Servers that publish per file publish for the open documents they were sent; a
        // changed file that is not open may get no publish at all (pyright in openFilesOnly).
        // tsserver publishes nothing for a file that stays clean, and a server answering pulls
        // (pyright) publishes nothing at all: their answers come from requests, which they answer
        // after every change they were sent (no publish to wait for; a request answered after
        // the change ends the mark, see `mark_checked_after_change`).
        let pending = |state: &ServerState| {
            if project_check {
                !state.stale.is_empty() || state.progress.keys().any(|token| is_check_run_token(token))
            } else if by_requests {
                false
            } else {
                state.stale.keys().any(|path| open.contains(path))
            }
        };
        loop {
            if !pending(&state) {
                break;
            }
            let now = Instant::now();
            if now >= deadline || state.closed.is_some() {
                return false;
            }
            condvar.wait_until(&mut state, (now + Duration::from_millis(100)).min(deadline));
        }
        let changed_at = state.outside_change_at;
        drop(state);
        let settle = if project_check { Duration::from_millis(250) } else { self.definition.diagnostics_settle };
        if !self.wait_for_publish_quiet(settle, deadline) {
            return false;
        }
        let mut state = lock.lock();
        // A later resync (another call's) keeps its own mark.
        if state.outside_change_at == changed_at {
            state.outside_change_at = None;
        }
        true
    }

    /// Absolute paths of the documents this server has open.
    pub fn open_documents(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.documents.lock().keys().cloned().collect();
        paths.sort();
        paths
    }

    /// The document version the server has for `path`, if open.
    pub fn document_version(&self, path: &Path) -> Option<i32> {
        self.documents.lock().get(path).map(|doc| doc.version)
    }

    /// The publish generation just before the server was last sent `path`'s text (`didOpen` /
    /// `didChange`), if open: a publish with a larger generation came after it.
    pub fn document_synced_generation(&self, path: &Path) -> Option<u64> {
        self.documents.lock().get(path).map(|doc| doc.synced_generation)
    }

    /// Records that `path` was opened only so diagnostics on write could check it (a file that
    /// imports a written one), most recent last.
    pub fn note_opened_for_check(&self, path: &Path) {
        let mut opened = self.opened_for_checks.lock();
        opened.retain(|known| known != path);
        opened.push_back(path.to_path_buf());
    }

    /// Closes the least recently checked of the files opened only for checks until at most `cap`
    /// remain, never one of `keep`.
    pub fn trim_opened_for_checks(&self, cap: usize, keep: &[PathBuf]) {
        let mut to_close = Vec::new();
        {
            let mut opened = self.opened_for_checks.lock();
            let mut index = 0;
            while opened.len() - to_close.len() > cap && index < opened.len() {
                if !keep.contains(&opened[index]) {
                    to_close.push(opened[index].clone());
                }
                index += 1;
            }
            opened.retain(|path| !to_close.contains(path));
        }
        for path in to_close {
            self.close_document(&path);
        }
    }

    fn bump_content_epoch(&self) {
        self.content_epoch.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// The content epoch: changes whenever the text the server analyses may have changed (a
    /// `didChange`, a watched-file event); equal epochs mean the same inputs, so the same
    /// diagnostics (for the same configuration).
    pub fn content_epoch(&self) -> u64 {
        self.content_epoch.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Remembers `items`, the diagnostics pulled for `path`, when the content epoch was `epoch`
    /// both before the pull was sent and after it answered (pass the epoch read before sending);
    /// a pull that straddled a change is not remembered.
    pub fn remember_pulled(&self, path: &Path, epoch: u64, items: &[lsp_types::Diagnostic]) {
        if self.content_epoch() == epoch {
            self.pulled_states.lock().insert(path.to_path_buf(), (epoch, items.to_vec()));
        }
    }

    /// The diagnostics last pulled for `path` when nothing the server analyses changed since
    /// (same content epoch): what a pull now would answer, without asking.
    pub fn remembered_pull(&self, path: &Path) -> Option<Vec<lsp_types::Diagnostic>> {
        let epoch = self.content_epoch();
        self.pulled_states.lock().get(path).filter(|(at, _)| *at == epoch).map(|(_, items)| items.clone())
    }

    /// Records that `path`'s diagnostics took `took` to come when asked (see
    /// [`LanguageServer::state_cost`]).
    pub fn note_state_cost(&self, path: &Path, took: Duration) {
        let mut costs = self.state_costs.lock();
        let cost = costs.entry(path.to_path_buf()).or_insert(StateCost { last: took, longest: took });
        cost.last = took;
        cost.longest = cost.longest.max(took);
    }

    /// How long `path`'s diagnostics took to come when this server was last asked for them, and
    /// at the longest (pulls answered, tsserver's diagnostics requests; a request that timed out
    /// counts the time it was given): what a write check expects a file's state to cost —
    /// the last answer for a file it did not change (one the server analysed in the background
    /// since comes sooner), the longest for a written file (a change makes the server analyse it
    /// again, as its first analysis did). `None` when never asked.
    pub fn state_cost(&self, path: &Path) -> Option<StateCost> {
        self.state_costs.lock().get(path).copied()
    }

    /// Moves the remembered pulls of every file but `changed` that were current at epoch `from`
    /// to the current epoch: the change since `from` (to `changed` only) is known not to alter
    /// the other files' diagnostics (a write of comments or whitespace only).
    pub fn carry_remembered_pulls(&self, from: u64, changed: &[PathBuf]) {
        let now = self.content_epoch();
        let mut states = self.pulled_states.lock();
        states.retain(|path, _| !changed.contains(path));
        for (at, _) in states.values_mut() {
            if *at == from {
                *at = now;
            }
        }
    }

    /// Marks `path` as opened for background analysis only (see `warming`).
    pub fn note_warming(&self, path: &Path) {
        let mut warming = self.warming.lock();
        if !warming.iter().any(|known| known == path) {
            warming.push(path.to_path_buf());
        }
    }

    /// The files opened for background analysis since the last call, emptying the list.
    pub fn take_warming(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *self.warming.lock())
    }

    /// The text the server has for `path`, if open.
    pub fn document_text(&self, path: &Path) -> Option<String> {
        self.documents.lock().get(path).map(|doc| doc.text.clone())
    }

    /// The server's publish counter (incremented on every `publishDiagnostics`).
    pub fn diagnostics_generation(&self) -> u64 {
        self.shared.0.lock().publish_generation
    }

    /// `(started, finished)` counts of the server's own check runs (rust-analyzer flycheck
    /// progress `begin` / `end`), for diagnostics on write.
    pub fn check_runs(&self) -> (u64, u64) {
        let state = self.shared.0.lock();
        (state.check_runs_started, state.check_runs_finished)
    }

    /// Records the outcome of a lookup (`textDocument/definition` and the like) at (`line`,
    /// `character`) of `path`, asked while the server was `loading_when_asked`: one that got no
    /// location (an empty answer, `null`, or a failed request) while the server was loading —
    /// when asked or when it answered (tsserver holds every request while it loads a project,
    /// then answers each with `[]`: typescript-language-server 5.9.3 on @tanstack/virtual-core,
    /// 18 s) — is "no answer", not "no definition". Returns whether it is one.
    ///
    /// A lookup that got a location while the server was loading is remembered too (see
    /// [`LanguageServer::lookup_answered_while_loading`]): typescript-language-server answers it
    /// from its syntax server, which knows the open files only (immer 10.1.1 right after a
    /// reload: each use of `isDraftable` led to the `import` line of its own file).
    pub fn note_lookup(&self, path: &Path, line: u32, character: u32, loading_when_asked: bool, answered: bool) -> bool {
        let key = (path.to_path_buf(), line, character);
        let loading = loading_when_asked || self.is_loading();
        let unanswered = !answered && loading;
        let mut positions = self.lookups_unanswered_while_loading.lock();
        let mut answered_positions = self.lookups_answered_while_loading.lock();
        if unanswered {
            positions.insert(key.clone());
        } else {
            positions.remove(&key);
        }
        if answered && loading {
            answered_positions.insert(key);
        } else {
            answered_positions.remove(&key);
        }
        unanswered
    }

    /// Whether the last lookup at (`line`, `character`) of `path` got a location but was asked
    /// or answered while the server was still loading (see [`LanguageServer::note_lookup`]).
    pub fn lookup_answered_while_loading(&self, path: &Path, line: u32, character: u32) -> bool {
        self.lookups_answered_while_loading.lock().contains(&(path.to_path_buf(), line, character))
    }

    /// Whether the last lookup at (`line`, `character`) of `path` got no answer while the server
    /// was still loading (see [`LanguageServer::note_lookup`]).
    pub fn lookup_unanswered_while_loading(&self, path: &Path, line: u32, character: u32) -> bool {
        self.lookups_unanswered_while_loading.lock().contains(&(path.to_path_buf(), line, character))
    }

    /// Whether the server is still starting or loading / indexing its project now, as a lookup
    /// sees it (its [`LanguageServer::readiness_for_lookups`] is `Starting` or `Indexing`: its
    /// own project check running does not count).
    pub fn is_loading(&self) -> bool {
        matches!(self.readiness_for_lookups(), Readiness::Starting | Readiness::Indexing(_))
    }

    /// How many of the server's check runs began once it had loaded its project (see
    /// [`LanguageServer::check_runs`]; the same count, less the runs whose `begin` came while it
    /// loaded or first indexed). A run counted here that began after a save compiled the saved
    /// text; one begun while loading may be a run started before the save.
    pub fn check_runs_started_loaded(&self) -> u64 {
        self.shared.0.lock().check_runs_started_loaded
    }

    /// Waits until a check run that began after `started_before` has ended and no other began
    /// within [`CHECK_RUN_RESTART_WINDOW`] after (rust-analyzer reports a cancelled run with the
    /// same `end` as a finished one and begins the restarted run right after;
    /// [`CANCELLED_CHECK_RESTART_WINDOW`] after a run shorter than [`SHORT_CHECK_RUN`]), or — when none
    /// began within `begin_grace` after the call — returns `false` then; bounded by `deadline`.
    /// `true` when a run finished.
    pub fn wait_for_check_run(&self, started_before: u64, begin_grace: Duration, deadline: Instant) -> bool {
        let begin_by = Instant::now() + begin_grace;
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        let mut idle_since: Option<(Instant, u64)> = None;
        loop {
            let now = Instant::now();
            let began = state.check_runs_started > started_before;
            let idle = state.check_runs_finished >= state.check_runs_started && state.progress.keys().all(|t| !is_check_run_token(t));
            let window = check_run_restart_window(&state);
            if began && idle {
                match idle_since {
                    Some((since, runs)) if runs == state.check_runs_started => {
                        if now >= since + window {
                            return true;
                        }
                    }
                    _ => idle_since = Some((now, state.check_runs_started)),
                }
            } else {
                idle_since = None;
            }
            if now >= deadline || (!began && now >= begin_by) || state.closed.is_some() {
                return began && idle;
            }
            let until = match idle_since {
                Some((since, _)) => (since + window).min(deadline),
                None if began => deadline,
                None => begin_by.min(deadline),
            };
            condvar.wait_until(&mut state, (now + Duration::from_millis(100)).min(until));
        }
    }

    /// [`LanguageServer::wait_for_check_run`] for a check run the caller's `didSave` should have
    /// started: when none began within `begin_grace`, starts one explicitly
    /// (`rust-analyzer/runFlycheck` for the whole workspace) and waits again. rust-analyzer drops
    /// the check of a save now and then when the save races with the change before it (the
    /// handler's analysis snapshot is cancelled; seen on a loaded machine during cache priming).
    pub fn wait_for_check_run_after_save(&self, started_before: u64, begin_grace: Duration, deadline: Instant) -> bool {
        if self.wait_for_check_run(started_before, begin_grace, deadline) {
            return true;
        }
        if self.check_runs().0 > started_before || Instant::now() >= deadline || self.exit_description().is_some() {
            return false;
        }
        let _ = self.notify::<RunFlycheck>(RunFlycheckParams::default());
        self.wait_for_check_run(started_before, begin_grace, deadline)
    }

    /// How many `workspace/diagnostic/refresh` requests the server sent.
    pub fn diagnostic_refreshes(&self) -> u64 {
        self.shared.0.lock().diagnostic_refreshes
    }

    /// The latest set published for `path` that named document version `version` (among the
    /// sets that named a version: one without a version published after it does not hide it).
    pub fn published_for_version(&self, path: &Path, version: i32) -> Option<PublishedDiagnostics> {
        self.shared.0.lock().versioned_diagnostics.get(path).filter(|set| set.version == Some(i64::from(version))).cloned()
    }

    /// The latest published diagnostics for `path`.
    pub fn published_diagnostics(&self, path: &Path) -> Option<PublishedDiagnostics> {
        self.shared.0.lock().diagnostics.get(path).cloned()
    }

    /// What the store can say about `path` now: [`StoredDiagnostics::Current`] with the latest
    /// publish when it came after the server got the text it has for `path` (the last `didOpen`
    /// / `didChange` we sent) and after any change on disk outside the tools;
    /// [`StoredDiagnostics::Stale`] when the latest publish (or the lack of one) predates such
    /// a change; [`StoredDiagnostics::NeverPublished`] when the server never published for it.
    pub fn stored_diagnostics(&self, path: &Path) -> StoredDiagnostics {
        let synced_generation = self.documents.lock().get(path).map(|doc| doc.synced_generation);
        let state = self.shared.0.lock();
        if state.stale.contains_key(path) {
            return StoredDiagnostics::Stale;
        }
        match state.diagnostics.get(path) {
            Some(set) if synced_generation.is_none_or(|synced| set.generation > synced) => StoredDiagnostics::Current(set.clone()),
            Some(_) => StoredDiagnostics::Stale,
            None => StoredDiagnostics::NeverPublished,
        }
    }

    /// For a server whose compiler diagnostics come from its own check run over the files on
    /// disk (rust-analyzer's flycheck = `cargo check`): the set stored for `path` when it still
    /// describes the file — no check run is in progress, the latest one ended after the file's
    /// text last reached the disk (its mtime), and nothing changed it outside the tools since.
    /// `Some(empty set)` when such a run published nothing for it (flycheck publishes only files
    /// with diagnostics). `None` otherwise, or when no check run has ended yet.
    ///
    /// Opening a file after the check does not make that run's set stale: the run read the same
    /// text (similar 2.7.0: `lsp diagnostics src/algorithms/utils.rs`, opened after cargo check
    /// had published its warning, answered "no errors or warnings").
    pub fn check_run_diagnostics_still_current(&self, path: &Path) -> Option<PublishedDiagnostics> {
        let modified = std::fs::metadata(path).and_then(|metadata| metadata.modified()).ok()?;
        let state = self.shared.0.lock();
        if state.stale.contains_key(path) || state.progress.keys().any(|token| is_check_run_token(token)) {
            return None;
        }
        let ended = state.check_run_last_end_wall?;
        if modified > ended {
            return None;
        }
        Some(state.diagnostics.get(path).cloned().unwrap_or_else(|| PublishedDiagnostics {
            generation: 0,
            version: None,
            diagnostics: Vec::new(),
            received_at: Instant::now(),
        }))
    }

    /// Whether diagnostics stored for `path` predate a change on disk outside the tools (see
    /// [`LanguageServer::resync_from_disk`]).
    pub fn is_stale(&self, path: &Path) -> bool {
        self.shared.0.lock().stale.contains_key(path)
    }

    /// Whether any path is stale (changed on disk outside the tools, not re-checked yet).
    pub fn has_stale(&self) -> bool {
        !self.shared.0.lock().stale.is_empty()
    }

    /// Waits until no path is stale (see [`LanguageServer::has_stale`]), bounded by `deadline`;
    /// `true` when none is. For a server with its own check run, the run that began after the
    /// change clears them all when it ends.
    pub fn wait_until_not_stale(&self, deadline: Instant) -> bool {
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        loop {
            if state.stale.is_empty() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || state.closed.is_some() {
                return false;
            }
            condvar.wait_until(&mut state, (now + Duration::from_millis(100)).min(deadline));
        }
    }

    /// The paths changed on disk outside the tools whose diagnostics the server has not
    /// re-checked yet (see [`LanguageServer::has_stale`]), sorted.
    pub fn stale_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.shared.0.lock().stale.keys().cloned().collect();
        paths.sort();
        paths
    }

    /// Whether one of the server's own check runs (rust-analyzer's flycheck) is in progress now.
    pub fn check_run_in_progress(&self) -> bool {
        self.shared.0.lock().progress.keys().any(|token| is_check_run_token(token))
    }

    /// Wall-clock time the latest of the server's own check runs ended, if one did.
    pub fn check_run_last_end_wall(&self) -> Option<SystemTime> {
        self.shared.0.lock().check_run_last_end_wall
    }

    /// Diagnosis passes (gopls' `diagnosing …` progress, see [`LanguageServer::wait_for_diagnoses`])
    /// that began so far, and whether one is running now. `(0, false)` for a server that never
    /// reports them.
    pub fn diagnoses(&self) -> (u64, bool) {
        let state = self.shared.0.lock();
        (state.diagnoses_started, state.progress.values().any(|(title, _)| is_diagnosis_progress_title(title)))
    }

    /// For a server that reports its diagnosis passes as progress (gopls with
    /// `verboseWorkDoneProgress`: one pass per `didOpen`, `didChange`, `didSave`, each ended
    /// after every set it computed was published): waits until at least `expected` passes began
    /// after `started_before` (a count from [`LanguageServer::diagnoses`]) and none is running,
    /// bounded by `deadline`. When fewer begin, the wait ends once no pass has run for
    /// `begin_grace` (a server that merged two notifications into one pass, or whose pass for a
    /// change that altered nothing was skipped). `true` when the server is idle by that rule;
    /// `false` at the deadline or when the connection closed.
    pub fn wait_for_diagnoses(&self, started_before: u64, expected: u64, begin_grace: Duration, deadline: Instant) -> bool {
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        let mut idle_since: Option<Instant> = None;
        loop {
            let running = state.progress.values().any(|(title, _)| is_diagnosis_progress_title(title));
            let began = state.diagnoses_started.saturating_sub(started_before);
            let now = Instant::now();
            if !running && began >= expected {
                return true;
            }
            if running {
                idle_since = None;
            } else if now >= *idle_since.get_or_insert(now) + begin_grace {
                return true;
            }
            if now >= deadline || state.closed.is_some() {
                return false;
            }
            condvar.wait_until(&mut state, (now + Duration::from_millis(50)).min(deadline));
        }
    }

    /// Stores the project state taken before a write (replacing the previous one).
    pub fn set_write_baseline(&self, baseline: WriteBaseline) {
        *self.write_baseline.lock() = Some(baseline);
    }

    /// Takes the project state stored by [`LanguageServer::set_write_baseline`], if any (it
    /// is for one write).
    pub fn take_write_baseline(&self) -> Option<WriteBaseline> {
        self.write_baseline.lock().take()
    }

    /// Every stored publish (path → latest set), e.g. the state of a whole project before a
    /// write for a server that publishes project-wide.
    pub fn published_snapshot(&self) -> HashMap<PathBuf, PublishedDiagnostics> {
        self.shared.0.lock().diagnostics.clone()
    }

    /// The latest publish of every path whose latest publish has a generation above `after`.
    pub fn published_since(&self, after: u64) -> Vec<(PathBuf, PublishedDiagnostics)> {
        let state = self.shared.0.lock();
        let mut sets: Vec<(PathBuf, PublishedDiagnostics)> =
            state.diagnostics.iter().filter(|(_, set)| set.generation > after).map(|(path, set)| (path.clone(), set.clone())).collect();
        sets.sort_by(|a, b| a.0.cmp(&b.0));
        sets
    }

    /// Waits until the server has answered a request sent now — [`MAIN_LOOP_BARRIER_METHOD`],
    /// a method no server knows, answered MethodNotFound from its main loop — bounded by
    /// `deadline`. A single-threaded main loop (rust-analyzer's) handles the request only in a
    /// turn after the one it is in now, and writes its messages in order: everything that turn
    /// sends — the publishes that follow a check run's end `$/progress` in the same turn — is
    /// read before the answer. rust-analyzer sends the end while handling the check's last
    /// messages and publishes the changed sets at the end of the turn, after re-analysis and
    /// garbage collection, which took longer than a fixed quiet time on a loaded machine
    /// (trial57 F2: a check's last set of src/core.rs came after the snapshot). `true` when
    /// answered (an error answer counts), `false` on timeout or a closed connection.
    pub fn wait_for_main_loop_turn(&self, deadline: Instant) -> bool {
        match self.request_untyped(MAIN_LOOP_BARRIER_METHOD, Value::Null, deadline, false) {
            Ok(_) | Err(RequestFailure::Server(_)) => true,
            Err(RequestFailure::Transport(_)) => false,
        }
    }

    /// Waits until no publish (for any path) has arrived for `quiet`, counted from the call at
    /// the earliest (a publish that trails the caller's signal restarts the window), bounded by
    /// `deadline`. `true` when the quiet time was reached.
    pub fn wait_for_publish_quiet(&self, quiet: Duration, deadline: Instant) -> bool {
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        let start = Instant::now();
        loop {
            let last = state.diagnostics.values().map(|set| set.received_at).max().map_or(start, |at| at.max(start));
            let now = Instant::now();
            let quiet_until = last + quiet;
            if now >= quiet_until {
                return true;
            }
            if now >= deadline || state.closed.is_some() {
                return false;
            }
            condvar.wait_until(&mut state, quiet_until.min(deadline));
        }
    }

    /// The last failure of the server's own check run, as the server reported it: rust-analyzer
    /// puts `cargo check failed to start: …` (also when cargo exits without a single diagnostic,
    /// e.g. on a broken manifest) into its `experimental/serverStatus` message until a later run
    /// succeeds. `None` when the status names no such failure.
    pub fn check_run_failure(&self) -> Option<String> {
        let state = self.shared.0.lock();
        let message = state.server_status.as_ref()?.1.as_ref()?;
        let start = message.find("cargo check failed")?;
        let failure: String = message[start..].split_whitespace().collect::<Vec<_>>().join(" ");
        Some(failure.chars().take(600).collect())
    }

    /// When the latest publish (for any path) arrived.
    pub fn last_publish_at(&self) -> Option<Instant> {
        self.shared.0.lock().diagnostics.values().map(|set| set.received_at).max()
    }

    /// Waits until none of the server's own check runs is in progress, bounded by `deadline`.
    /// `true` when idle.
    pub fn wait_for_check_idle(&self, deadline: Instant) -> bool {
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        loop {
            if state.progress.keys().all(|token| !is_check_run_token(token)) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || state.closed.is_some() {
                return false;
            }
            condvar.wait_until(&mut state, (now + Duration::from_millis(100)).min(deadline));
        }
    }

    /// Sends a tsserver request through typescript-language-server's `typescript.tsserverRequest`
    /// command (`workspace/executeCommand`) and returns the tsserver response's `body`.
    ///
    /// # Errors
    /// [`RequestFailure::Server`] when the server refused the command or tsserver answered
    /// `success: false` (its message); transport failures.
    pub fn tsserver_request(&self, command: &str, arguments: Value, deadline: Instant) -> Result<Value, RequestFailure> {
        /// The tsserver response envelope typescript-language-server passes through.
        #[derive(Deserialize)]
        struct TsserverResponse {
            success: Option<bool>,
            message: Option<String>,
            body: Option<Value>,
        }
        let params = lsp_types::ExecuteCommandParams {
            command: "typescript.tsserverRequest".to_owned(),
            arguments: vec![Value::String(command.to_owned()), arguments],
            work_done_progress_params: Default::default(),
        };
        // A tsserver request only reads: retried like the read-only LSP methods.
        let answer = self.request_retrying::<request::ExecuteCommand>(params, deadline, true)?;
        let answer = match answer.map(serde_json::from_value::<TsserverResponse>) {
            Some(Ok(answer)) if answer.success != Some(false) => answer,
            Some(Ok(TsserverResponse { message, .. })) => {
                let message = message.unwrap_or_else(|| "no answer (tsserver request failed)".to_owned());
                return Err(RequestFailure::Server(ResponseError {
                    code: 0,
                    message: format!("tsserver {command}: {message}"),
                    data: None,
                }));
            }
            None | Some(Err(_)) => {
                return Err(RequestFailure::Server(ResponseError {
                    code: 0,
                    message: format!("tsserver {command}: no answer (tsserver request failed)"),
                    data: None,
                }))
            }
        };
        Ok(answer.body.unwrap_or(Value::Null))
    }

    /// Makes tsserver reload its projects (`reloadProjects`, sent through typescript-language-server
    /// without waiting for an answer, which tsserver never gives for it), then waits, until
    /// `deadline`, for a `projectInfo` answer about `file` (or any open document), which tsserver
    /// gives once the reload is done. typescript-language-server forwards no
    /// `workspace/didChangeWatchedFiles` event to tsserver unless it was started with
    /// `useClientFileWatcher`, and tsserver's own watchers can miss a file that comes back: immer
    /// 11.2.14's `src/utils/env.ts`, moved away and back, stayed "Cannot find module" in
    /// `src/internal.ts` and in an inferred project of its own for over a minute (its references:
    /// the declaration only; a write that broke 37 places read clean), until the server was
    /// restarted (trial41 F3). A file created for the first time lands in an inferred project
    /// the same way (checked under other compiler options). The reload costs what the projects'
    /// load costs (about 1 s on immer). Errors are ignored: the next request says them.
    pub fn tsserver_reload_projects(&self, file: Option<&Path>, deadline: Instant) {
        let params = lsp_types::ExecuteCommandParams {
            command: "typescript.tsserverRequest".to_owned(),
            arguments: vec![
                Value::String("reloadProjects".to_owned()),
                serde_json::json!({}),
                // typescript-language-server's `executeCustom` takes this as its execute info:
                // the request is sent and nothing waits for its (never given) answer; the
                // command itself then fails, which is ignored.
                serde_json::json!({"expectsResult": false}),
            ],
            work_done_progress_params: Default::default(),
        };
        // The projects' inputs change (a created module now resolves): no state taken before
        // stands for after (trial43 M5: an importer's pre-write "Cannot find module './math'"
        // was reused as its state after `math.ts` was written).
        self.bump_content_epoch();
        let _ = self.request_retrying::<request::ExecuteCommand>(params, deadline, false);
        let file = file.map(Path::to_path_buf).or_else(|| self.documents.lock().keys().next().cloned());
        if let Some(file) = file {
            let _ = self.tsserver_request(
                "projectInfo",
                serde_json::json!({"file": file.to_string_lossy(), "needFileNameList": false}),
                deadline,
            );
        }
    }

    /// Tells the server of files a tool created, changed or deleted on disk with one
    /// `workspace/didChangeWatchedFiles` notification (tsserver re-resolves the imports it could
    /// not resolve only on such an event; gopls reloads its workspace on a `go.mod` change), and
    /// keeps the served-files snapshot in step so the next scan does not report them again.
    /// Nothing is sent for an empty list. Transport errors are ignored (the next call's lease
    /// restarts a dead server).
    pub fn notify_file_events(&self, events: &[(PathBuf, lsp_types::FileChangeType)]) {
        if events.is_empty() {
            return;
        }
        if let Some(watched) = self.watched_files.lock().as_mut() {
            for (path, typ) in events {
                if *typ == lsp_types::FileChangeType::DELETED {
                    watched.remove(path);
                } else if path.starts_with(&self.root) && self.definition.serves(path) {
                    watched.insert(path.clone(), file_stamp(path));
                }
            }
        }
        // A sibling root's file sent here now is not sent again by the next resync's scan.
        {
            let mut sibling = self.sibling_watch.lock();
            for (path, typ) in events {
                if !sibling.dirs.iter().any(|dir| path.starts_with(dir)) {
                    continue;
                }
                if *typ == lsp_types::FileChangeType::DELETED {
                    sibling.stamps.remove(path);
                } else if self.definition.serves(path) {
                    sibling.stamps.insert(path.clone(), file_stamp(path));
                }
            }
        }
        self.bump_content_epoch();
        let changes = events.iter().map(|(path, typ)| lsp_types::FileEvent { uri: path_to_lsp_uri(path), typ: *typ }).collect();
        let _ = self.notify::<notification::DidChangeWatchedFiles>(lsp_types::DidChangeWatchedFilesParams { changes });
    }

    /// A project configuration file (`go.mod`, `tsconfig.json`, …) a tool wrote or deleted: sends
    /// the watched-file event ([`LanguageServer::notify_file_events`]), then, for a server that
    /// publishes per open document (gopls, pyright, clangd, pylsp), sends every open document it
    /// published for again as a new version and marks it stale, so the next answer about it
    /// waits for the server's publish under the new configuration instead of returning the set
    /// from before (trial25 F: gopls' "no errors" in util.go after go.mod broke the module).
    /// Returns how many documents were sent again.
    pub fn project_configuration_changed(&self, path: &Path, typ: lsp_types::FileChangeType) -> usize {
        use crate::lsp::servers::WriteCheck;
        self.notify_file_events(&[(path.to_path_buf(), typ)]);
        if !matches!(self.definition.write_check, WriteCheck::WorkspacePublishes | WriteCheck::OpenImporters | WriteCheck::WrittenFilesOnly)
            || self.supports(request::DocumentDiagnosticRequest::METHOD)
        {
            return 0;
        }
        let open: Vec<(PathBuf, i32)> = {
            let documents = self.documents.lock();
            let state = self.shared.0.lock();
            documents
                .iter()
                .filter(|(path, _)| state.diagnostics.contains_key(*path))
                .take(OUTSIDE_CHANGE_DEPENDENTS_CAP)
                .map(|(path, doc)| (path.clone(), doc.version))
                .collect()
        };
        {
            let mut state = self.shared.0.lock();
            let (generation, runs) = (state.publish_generation, state.check_runs_started);
            for (path, version) in &open {
                state.stale.insert(path.clone(), (generation, runs, Some(version + 1)));
            }
            state.outside_change_at = Some(Instant::now());
        }
        let mut resent = 0;
        for (path, _) in &open {
            if self.resend_document(path).is_ok() {
                resent += 1;
            } else {
                self.shared.0.lock().stale.remove(path);
            }
        }
        resent
    }

    /// A file a tool deleted: closes its document (`didClose`, if open) and sends a `Deleted`
    /// `workspace/didChangeWatchedFiles` event for it (see
    /// [`LanguageServer::notify_file_events`]).
    pub fn document_deleted(&self, path: &Path) {
        self.close_document(path);
        self.notify_file_events(&[(path.to_path_buf(), lsp_types::FileChangeType::DELETED)]);
    }

    /// Closes `path` (`didClose`) if it is open.
    pub fn close_document(&self, path: &Path) {
        if self.documents.lock().remove(path).is_some() {
            let _ = self
                .notify::<notification::DidCloseTextDocument>(lsp_types::DidCloseTextDocumentParams { text_document: text_document(path) });
        }
    }

    /// Waits for a publish for `path` with generation > `after_generation`, then until no newer
    /// publish for it arrives for `settle` (servers publish stale sets first), all bounded by
    /// `deadline`. `None` when no publish came in time.
    pub fn wait_for_published_diagnostics(
        &self,
        path: &Path,
        after_generation: u64,
        settle: Duration,
        deadline: Instant,
    ) -> Option<PublishedDiagnostics> {
        let (lock, condvar) = &*self.shared;
        let mut state = lock.lock();
        loop {
            let latest = state.diagnostics.get(path).filter(|set| set.generation > after_generation).cloned();
            let now = Instant::now();
            match latest {
                Some(set) if now >= set.received_at + settle || now >= deadline => return Some(set),
                Some(set) => {
                    condvar.wait_until(&mut state, (set.received_at + settle).min(deadline));
                }
                None if now >= deadline => return None,
                None => {
                    if state.closed.is_some() {
                        return None;
                    }
                    condvar.wait_until(&mut state, (now + Duration::from_millis(100)).min(deadline));
                }
            }
        }
    }

    /// Pulls diagnostics for `path` (`textDocument/diagnostic`) when the server supports it
    /// (statically or by dynamic registration, with each registered `identifier`). `Ok(None)`
    /// when it does not.
    ///
    /// # Errors
    /// The request's failure.
    pub fn pull_diagnostics(&self, path: &Path, deadline: Instant) -> Result<Option<Vec<lsp_types::Diagnostic>>, RequestFailure> {
        if !self.supports("textDocument/diagnostic") {
            return Ok(None);
        }
        let started = Instant::now();
        let mut identifiers: Vec<Option<String>> = self
            .shared
            .0
            .lock()
            .registrations
            .values()
            .filter(|(method, _)| method == request::DocumentDiagnosticRequest::METHOD)
            .map(|(_, options)| {
                options
                    .clone()
                    .and_then(|options| serde_json::from_value::<lsp_types::DiagnosticRegistrationOptions>(options).ok())
                    .and_then(|options| options.diagnostic_options.identifier)
            })
            .collect();
        if identifiers.is_empty() {
            identifiers.push(match &self.capabilities.diagnostic_provider {
                Some(lsp_types::DiagnosticServerCapabilities::Options(options)) => options.identifier.clone(),
                Some(lsp_types::DiagnosticServerCapabilities::RegistrationOptions(options)) => {
                    options.diagnostic_options.identifier.clone()
                }
                None => None,
            });
        }
        let mut items = Vec::new();
        for identifier in identifiers {
            let params = PullDocumentDiagnosticsParams { text_document: text_document(path), identifier };
            match self.request::<PullDocumentDiagnostics>(params, deadline)? {
                lsp_types::DocumentDiagnosticReportResult::Report(lsp_types::DocumentDiagnosticReport::Full(report)) => {
                    items.extend(report.full_document_diagnostic_report.items);
                }
                // runbound sends no `previousResultId`, so an unchanged report has nothing to
                // repeat; a partial result (only sent for a partial result token, which runbound
                // does not send either) carries only other documents.
                lsp_types::DocumentDiagnosticReportResult::Report(lsp_types::DocumentDiagnosticReport::Unchanged(_))
                | lsp_types::DocumentDiagnosticReportResult::Partial(_) => {}
            }
        }
        self.note_state_cost(path, started.elapsed());
        Ok(Some(items))
    }

    /// A snapshot for `status`.
    pub fn snapshot(&self) -> ServerSnapshot {
        let stderr = self.connection.child().stderr_tail();
        ServerSnapshot {
            pid: self.pid,
            uptime: self.started_at.elapsed(),
            readiness: self.readiness(),
            position_encoding: self.position_encoding,
            open_documents: self.open_documents(),
            stderr_tail: last_lines(&stderr, 5),
            log_tail: self.shared.0.lock().log_tail.iter().rev().take(5).rev().cloned().collect(),
            server_info: self.server_info.clone(),
        }
    }

    /// The server's report that its workspace failed to load (gopls: a progress titled "Error
    /// loading workspace: …", open until a load succeeds), or `None`. While it stands, the
    /// server's diagnostics are no check of the project: an empty set is not "no errors".
    pub fn workspace_load_failure(&self) -> Option<String> {
        let state = self.shared.0.lock();
        state.progress.values().find(|(title, text)| is_workspace_load_failure(title, text)).map(|(_, text)| text.clone())
    }

    /// The workspace root of the run (paths under it are shown relative).
    pub fn workspace_root(&self) -> &Path {
        &self.workspace_root
    }

    /// The readiness of `state`; with `ignore_check_runs`, the server's own check runs
    /// (rust-analyzer's flycheck progress) count as no loading.
    fn readiness_of_with(&self, state: &ServerState, ignore_check_runs: bool) -> Readiness {
        // A diagnosis pass (gopls re-checking after a change) is not loading: queries are
        // answered meanwhile; diagnostics on write waits for it on its own.
        // gopls leaves a failed workspace load open as a progress ("Error loading workspace: …")
        // until a load succeeds: no work runs, so waiting for it only spent each call's whole
        // wait (trial25: 30 s per call); the failure is said by `workspace_load_failure`.
        let mut running = running_work(state, ignore_check_runs);
        if let Some(text) = &state.pyright_progress {
            running.push(text.clone());
        }
        match self.definition.readiness {
            ReadinessSignal::RustAnalyzerQuiescent => {
                if let Some((false, message)) = &state.server_status {
                    if running.is_empty() {
                        running.push(message.clone().unwrap_or_else(|| "not quiescent".to_owned()));
                    }
                    return Readiness::Indexing(running);
                }
            }
            ReadinessSignal::DartAnalyzerStatus => {
                if state.dart_analyzing == Some(true) {
                    running.push("analyzing".to_owned());
                    return Readiness::Indexing(running);
                }
            }
            ReadinessSignal::PyrightSourceFilesFound => {
                if !state.pyright_source_files_found && self.initialized_at.elapsed() < self.definition.startup_grace {
                    running.push("loading the project: finding its source files (not logged `Found N source files` yet)".to_owned());
                    return Readiness::Indexing(running);
                }
            }
            ReadinessSignal::TsserverProjectLoaded => {
                // Loaded: a loading progress ended (none runs now: `running` is empty below) or
                // a publish came (the semantic server answered `geterr`, so it had loaded).
                let loaded = state.progress_seen || state.publish_generation > 0;
                if running.is_empty() && !loaded && self.initialized_at.elapsed() < self.definition.startup_grace {
                    return Readiness::Starting;
                }
            }
            ReadinessSignal::Progress => (),
        }
        if !running.is_empty() {
            return Readiness::Indexing(running);
        }
        let heard_anything =
            state.progress_seen || state.server_status.is_some() || state.dart_analyzing.is_some() || state.pyright_source_files_found;
        if !heard_anything && self.initialized_at.elapsed() < self.definition.startup_grace {
            return Readiness::Starting;
        }
        if self.definition.readiness == ReadinessSignal::RustAnalyzerQuiescent
            && state.server_status.is_none()
            && self.initialized_at.elapsed() < self.definition.startup_grace * 10
        {
            return Readiness::Starting;
        }
        Readiness::Ready
    }

    fn classify(&self, err: &RpcError) -> RequestFailure {
        RequestFailure::Transport(err.to_tool_error())
    }

    fn start_error(&self, step: &str, err: &RpcError) -> ToolError {
        let stderr = self.connection.child().stderr_tail();
        let mut message = format!("{} (pid {}) failed during {step}: {}", self.definition.id, self.pid, err.message);
        let tail = last_lines(&stderr, 8);
        if !tail.is_empty() && !err.message.contains(tail.last().map(String::as_str).unwrap_or("")) {
            message.push_str(&format!("; stderr tail: {}", tail.join(" | ")));
        }
        ToolError::new(if err.kind == RpcErrorKind::Timeout { ErrorKind::Timeout } else { ErrorKind::Unavailable }, message)
            .with_hint("check the server's installation (lsp status shows the binary found); `lsp reload` retries")
    }

    /// Politely stops the server (`shutdown` ≤ 1 s, `exit`, wait ≤ 500 ms); the drop that
    /// follows kills whatever is left of the process group.
    fn shutdown_politely(&self) {
        if self.exit_description().is_some() {
            return;
        }
        let deadline = Instant::now() + Duration::from_millis(1000);
        if self.request_value(request::Shutdown::METHOD, Value::Null, deadline, false).is_ok() {
            let _ = self.notify::<notification::Exit>(());
            let _ = self.connection.child().wait_timeout(Duration::from_millis(500));
        }
    }
}

impl Drop for LanguageServer {
    fn drop(&mut self) {
        self.shutdown_politely();
        let _ = self.connection.child().kill_group();
        drop(self.stop_pump.take());
        if let Some(thread) = self.pump_thread.take() {
            let _ = thread.join();
        }
        // The last Arc of the connection drops with `self`: group killed, threads joined.
    }
}

impl std::fmt::Debug for LanguageServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanguageServer")
            .field("id", &self.definition.id)
            .field("root", &self.root)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// The last `n` non-empty lines of `text`.
pub fn last_lines(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].iter().map(|line| (*line).to_owned()).collect()
}

fn file_stamp(path: &Path) -> (Option<SystemTime>, u64) {
    match std::fs::metadata(path) {
        Ok(meta) => (meta.modified().ok(), meta.len()),
        Err(_) => (None, 0),
    }
}

/// Served files under `root` with their stamps; `None` when there are more than the cap. Listed
/// beneath a handle of `workspace_root` (`files::walk_beneath`), stamps asked in each open
/// directory: a directory swapped for a symlink is never followed (issue 13 §1).
fn scan_served_files(definition: &ServerDefinition, workspace_root: &Path, root: &Path) -> Option<FileStamps> {
    let mut files = HashMap::new();
    let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, root) else { return Some(files) };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, root) else { return Some(files) };
    let walker = walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter();
    for entry in walker.flatten() {
        if entry.is_file() && definition.serves(entry.path()) {
            if files.len() >= WATCHED_FILES_CAP {
                return None;
            }
            let stamp = entry.stat().map_or((None, 0), |stat| (Some(stat.modified), stat.len));
            files.insert(entry.into_path(), stamp);
        }
    }
    Some(files)
}

/// The served files beneath `roots` (the project's directories outside the workspace) and their
/// stamps, each root listed beneath a handle of itself (`files::walk_beneath`: no symlink
/// followed) and without what lies beneath `workspace_root` (the workspace scan's). A root with
/// more than `cap` served files ([`OUTSIDE_ROOT_WATCHED_FILES_CAP`]), or that cannot be listed,
/// adds nothing and is returned with why.
pub(crate) fn scan_project_outside_roots(
    definition: &ServerDefinition,
    workspace_root: &Path,
    roots: &[PathBuf],
    cap: usize,
) -> (FileStamps, Vec<(PathBuf, String)>) {
    let mut files = HashMap::new();
    let mut unwatched = Vec::new();
    'roots: for root in roots {
        let handle = match crate::files::walk_beneath::handle_for_walk(root, root) {
            Ok(handle) => handle,
            Err(err) => {
                unwatched.push((root.clone(), format!("it cannot be opened: {err}")));
                continue;
            }
        };
        let walk = match crate::files::walk_beneath::BeneathWalk::new(&handle, root) {
            Ok(walk) => walk,
            Err(err) => {
                unwatched.push((root.clone(), format!("it cannot be listed: {err}")));
                continue;
            }
        };
        let workspace_root = workspace_root.to_path_buf();
        let walker = walk
            .hidden(true)
            .skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"])
            .filter_entry(move |entry| !entry.path().starts_with(&workspace_root))
            .iter();
        let mut found = HashMap::new();
        for entry in walker.flatten() {
            if entry.is_file() && definition.serves(entry.path()) {
                if found.len() >= cap {
                    unwatched.push((root.clone(), format!("it holds more than {cap} files the server reads")));
                    continue 'roots;
                }
                let stamp = entry.stat().map_or((None, 0), |stat| (Some(stat.modified), stat.len));
                found.insert(entry.into_path(), stamp);
            }
        }
        files.extend(found);
    }
    (files, unwatched)
}

/// [`scan_served_files`] for the unit tests of `lsp::walk_confinement_tests`.
#[cfg(test)]
pub(crate) fn scan_served_files_for_tests(definition: &ServerDefinition, workspace_root: &Path, root: &Path) -> Option<FileStamps> {
    scan_served_files(definition, workspace_root, root)
}

/// A served file under `root` that the project's own configuration most likely includes (for
/// servers that need one open file per project: tsserver searches only the projects of its open
/// files). Files of the server's first extension (`.ts` for typescript-language-server) come
/// before the others and declaration files (`.d.ts`) last: a stray `src/Rx.global.js` that
/// `tsconfig.json` does not include gets an inferred project of its own, and a workspace symbol
/// search then finds nothing of the real project. Within a rank, the first in file-name order
/// (depth-first, at most 4 levels). `None` when no served file is found. Listed beneath a handle
/// of `workspace_root` when `root` is in it (`files::walk_beneath`: no symlink followed).
pub fn representative_file(definition: &ServerDefinition, workspace_root: &Path, root: &Path) -> Option<PathBuf> {
    let handle = crate::files::walk_beneath::handle_for_walk(workspace_root, root).ok()?;
    let walker = crate::files::walk_beneath::BeneathWalk::new(&handle, root)
        .ok()?
        .hidden(true)
        .max_depth(Some(4))
        .skip_names(&["node_modules", "target", ".git", "dist", "build"])
        .iter();
    let rank = |path: &Path| -> Option<(bool, usize)> {
        let extension = path.extension()?.to_str()?;
        let position = definition.extensions.iter().position(|(served, _)| served == extension)?;
        let declaration = path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.ends_with(".d.ts"));
        Some((declaration, position))
    };
    let mut best: Option<((bool, usize), PathBuf)> = None;
    for entry in walker.flatten() {
        if !entry.is_file() {
            continue;
        }
        let path = entry.into_path();
        let Some(rank) = rank(&path) else { continue };
        if best.as_ref().is_none_or(|(best_rank, _)| rank < *best_rank) {
            let first_choice = rank == (false, 0);
            best = Some((rank, path));
            if first_choice {
                break;
            }
        }
    }
    best.map(|(_, path)| path)
}

/// `params` of `textDocument/*` requests about one document.
pub fn text_document(path: &Path) -> lsp_types::TextDocumentIdentifier {
    lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(path) }
}

/// `textDocument/references` parameters at 0-based (`line0`, `character`, in the server's
/// position encoding) of `path`, the declaration included or not.
pub fn reference_params(path: &Path, line0: u32, character: u32, include_declaration: bool) -> lsp_types::ReferenceParams {
    lsp_types::ReferenceParams {
        text_document_position: lsp_types::TextDocumentPositionParams {
            text_document: text_document(path),
            position: lsp_types::Position { line: line0, character },
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
        context: lsp_types::ReferenceContext { include_declaration },
    }
}

/// Whether a "bool or options" capability (`OneOf<bool, _>`, `*ProviderCapability::Simple`,
/// plain options) is present and not `false`.
fn provided<T: Serialize>(capability: &Option<T>) -> bool {
    capability.as_ref().is_some_and(|capability| !matches!(serde_json::to_value(capability), Ok(Value::Bool(false) | Value::Null)))
}

/// Decodes a request's answer into its lsp-types result, or a tool error quoting the start of
/// the answer that did not fit.
fn decode_answer<T: serde::de::DeserializeOwned>(server_id: &str, method: &str, answer: Value) -> Result<T, RequestFailure> {
    match T::deserialize(&answer) {
        Ok(decoded) => Ok(decoded),
        Err(err) => {
            let text = answer.to_string();
            let shown: String = text.chars().take(300).collect();
            let cut = if shown.len() < text.len() { "…" } else { "" };
            Err(RequestFailure::Transport(
                ToolError::new(
                    ErrorKind::Failed,
                    format!("{server_id} answered {method} in a shape runbound cannot read ({err}): {shown}{cut}"),
                )
                .with_hint("this is a server deviating from the LSP types; report it with the server's version (lsp status)"),
            ))
        }
    }
}

/// A server's `serverInfo.version` as answers show it: gopls sends its whole build info as
/// JSON (`{"GoVersion":…,"Main":{"Version":"v0.11.0"},"Deps":[…],"Settings":[…]}`, ~500
/// bytes), which becomes its module version (`v0.11.0`, with `go1.19.5` when given); any other
/// version longer than 60 bytes is cut there with `…`.
pub(crate) fn short_server_version(version: &str) -> String {
    if let Ok(Value::Object(build)) = serde_json::from_str::<Value>(version) {
        let module_version = build.get("Main").and_then(|main| main.get("Version")).and_then(Value::as_str);
        let go_version = build.get("GoVersion").and_then(Value::as_str);
        match (module_version, go_version) {
            (Some(module_version), Some(go_version)) => return format!("{module_version} ({go_version})"),
            (Some(module_version), None) => return module_version.to_owned(),
            _ => {}
        }
    }
    const LONGEST: usize = 60;
    if version.len() <= LONGEST {
        return version.to_owned();
    }
    let mut end = LONGEST;
    while !version.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &version[..end])
}

/// Decodes an `initialize` answer. A capability whose shape lsp-types cannot read is left out
/// (as if not announced) instead of failing the start, and named in the notes: every other
/// capability still decodes. Servers that need it: none of the ones runbound installs does
/// today; the path exists so a newer server with an extended capability still starts.
fn decode_initialize_result(result: Value) -> (lsp_types::InitializeResult, Vec<String>) {
    if let Ok(decoded) = lsp_types::InitializeResult::deserialize(&result) {
        return (decoded, Vec::new());
    }
    let mut notes = Vec::new();
    let mut kept = serde_json::Map::new();
    if let Some(capabilities) = result.get("capabilities").and_then(Value::as_object) {
        for (key, value) in capabilities {
            let alone = json!({ key.clone(): value.clone() });
            match ServerCapabilities::deserialize(&alone) {
                Ok(_) => {
                    kept.insert(key.clone(), value.clone());
                }
                Err(err) => notes.push(format!("capability `{key}` left out: {err}")),
            }
        }
    }
    let capabilities = ServerCapabilities::deserialize(&Value::Object(kept)).unwrap_or_default();
    let server_info = result.get("serverInfo").and_then(|info| lsp_types::ServerInfo::deserialize(info).ok());
    (lsp_types::InitializeResult { capabilities, server_info }, notes)
}

/// The `initialize` params: what runbound supports, as JSON in the spec's spelling. Not sent
/// through lsp-types' `InitializeParams`: lsp-types 0.97 names the workspace diagnostics
/// capability `workspace.diagnostic` where the spec (and pyright, rust-analyzer, which read it
/// for `refreshSupport`) says `workspace.diagnostics`, and it has no field for clangd's
/// `offsetEncoding` extension (asked of clangd for UTF-8 positions); a unit test checks that
/// these are the only fields the typed params would lose.
fn initialize_params(definition: &ServerDefinition, root: &Path) -> Value {
    let root_uri = path_to_uri(root);
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".to_owned());
    let read_only_methods = RETRY_ON_CONTENT_MODIFIED;
    let mut capabilities = json!({
        "general": {
            "positionEncodings": ["utf-8", "utf-16"],
            "staleRequestSupport": {"cancel": true, "retryOnContentModified": read_only_methods},
        },
        "window": {"workDoneProgress": true, "showMessage": {}, "showDocument": {"support": false}},
        "workspace": {
            "applyEdit": true,
            "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"], "failureHandling": "abort"},
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": {"dynamicRegistration": true},
            "didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true},
            "diagnostics": {"refreshSupport": true},
            "symbol": {"dynamicRegistration": false, "symbolKind": {"valueSet": (1..=26).collect::<Vec<u32>>()}},
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": false, "didSave": true, "willSave": false, "willSaveWaitUntil": false},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true, "tagSupport": {"valueSet": [1, 2]}, "codeDescriptionSupport": true, "dataSupport": true},
            "diagnostic": {"dynamicRegistration": true, "relatedDocumentSupport": false},
            "definition": {"linkSupport": true},
            "declaration": {"linkSupport": true},
            "typeDefinition": {"linkSupport": true},
            "implementation": {"linkSupport": true},
            "references": {},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true, "symbolKind": {"valueSet": (1..=26).collect::<Vec<u32>>()}},
            "codeAction": {
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                    "", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
                    "source", "source.organizeImports", "source.fixAll"
                ]}},
                "isPreferredSupport": true,
                "disabledSupport": true,
                "dataSupport": true,
                "resolveSupport": {"properties": ["edit"]},
            },
            "rename": {"prepareSupport": true},
            "callHierarchy": {"dynamicRegistration": false},
            "typeHierarchy": {"dynamicRegistration": false},
        },
        "experimental": {"serverStatusNotification": true},
    });
    if definition.clangd_offset_encoding {
        capabilities["offsetEncoding"] = json!(["utf-8", "utf-16"]);
    }
    let mut params = json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "runbound", "version": env!("CARGO_PKG_VERSION")},
        "rootUri": root_uri,
        "rootPath": root.to_string_lossy(),
        "workspaceFolders": [{"uri": root_uri, "name": name}],
        "capabilities": capabilities,
    });
    if !definition.initialization_options.is_null() {
        params["initializationOptions"] = definition.initialization_options.clone();
    }
    params
}

/// Answers a server's `workspace/applyEdit`: refused outside a window, captured (answered
/// `applied: false`) in a capture window, applied through the run's atomic applier in an apply
/// window; every edit received in a window is recorded there.
fn answer_apply_edit(
    params: lsp_types::ApplyWorkspaceEditParams,
    shared: &(Mutex<ServerState>, Condvar),
    edit_applier: &Mutex<Option<Arc<dyn WorkspaceEditApplier>>>,
) -> lsp_types::ApplyWorkspaceEditResponse {
    let refused = |reason: &str| lsp_types::ApplyWorkspaceEditResponse {
        applied: false,
        failure_reason: Some(reason.to_owned()),
        failed_change: None,
    };
    let mode = shared.0.lock().apply_edit_window.as_ref().map(|window| window.mode);
    let (answer, written) = match mode {
        None => {
            return refused("runbound applies a language server's edits only while its write-tier tool lsp_code_action runs one of the server's commands; this edit arrived outside one and was not applied");
        }
        Some(ApplyEditMode::Capture) => (
            refused("runbound is previewing this command: the edit is staged for review (resolve accepts it), not applied now"),
            Vec::new(),
        ),
        Some(ApplyEditMode::Apply) => {
            let applier = edit_applier.lock().clone();
            match applier {
                Some(applier) => applier.apply_workspace_edit_reporting(&params.edit),
                None => (refused("this run has no workspace edit applier"), Vec::new()),
            }
        }
    };
    if let Some(window) = shared.0.lock().apply_edit_window.as_mut() {
        window.received.push(ReceivedEdit { label: params.label, edit: params.edit, answer: answer.clone(), written });
    }
    answer
}

/// The owner thread: answers server→client requests and folds notifications into the state.
fn pump(
    connection: &LspConnection,
    shared: &(Mutex<ServerState>, Condvar),
    definition: &ServerDefinition,
    root: &Path,
    stop: &Receiver<()>,
    edit_applier: &Mutex<Option<Arc<dyn WorkspaceEditApplier>>>,
) {
    let incoming = connection.incoming().clone();
    loop {
        let message = select! {
            recv(incoming) -> message => match message {
                Ok(message) => message,
                Err(_) => return,
            },
            recv(stop) -> _ => return,
        };
        match message {
            LspIncoming::Request(request) => {
                let id = request.id.clone();
                let response = match answer_server_request(request, shared, definition, root, edit_applier) {
                    Ok(result) => WireResponse { id, response_result: Ok(result) },
                    Err(error) => WireResponse { id, response_result: Err(error) },
                };
                let _ = connection.respond(response);
            }
            LspIncoming::Notification(notification) => {
                let (lock, condvar) = shared;
                let mut state = lock.lock();
                apply_notification(&mut state, &notification.method, &notification.params);
                drop(state);
                condvar.notify_all();
            }
            LspIncoming::UnmatchedResponse(_) | LspIncoming::Diagnostic(_) => (),
            LspIncoming::Closed(closed) => {
                let (lock, condvar) = shared;
                lock.lock().closed = Some(closed.to_string());
                condvar.notify_all();
                return;
            }
        }
    }
}

/// The params of server request `R`, when `request` is one; an `InvalidParams` error when they
/// do not decode.
fn params_of<R: LspRequest>(request: &WireRequest) -> Option<Result<R::Params, ResponseError>> {
    (request.method == R::METHOD).then(|| {
        R::Params::deserialize(&request.params).map_err(|err| ResponseError {
            code: ErrorCode::InvalidParams as i32,
            message: format!("runbound cannot read the params of {}: {err}", R::METHOD),
            data: None,
        })
    })
}

/// `R::Result` as the JSON of a response.
fn result_of<R: LspRequest>(result: R::Result) -> Result<Value, ResponseError> {
    Ok(serde_json::to_value(result).expect("lsp-types results serialize"))
}

fn answer_server_request(
    request: WireRequest,
    shared: &(Mutex<ServerState>, Condvar),
    definition: &ServerDefinition,
    root: &Path,
    edit_applier: &Mutex<Option<Arc<dyn WorkspaceEditApplier>>>,
) -> Result<Value, ResponseError> {
    use lsp_types::request::*;
    if let Some(params) = params_of::<WorkDoneProgressCreate>(&request) {
        params?;
        return result_of::<WorkDoneProgressCreate>(());
    }
    if let Some(params) = params_of::<WorkspaceConfiguration>(&request) {
        let answers: Vec<Value> = params?
            .items
            .iter()
            .map(|item| match &item.section {
                Some(section) => {
                    section.split('.').try_fold(&definition.settings, |value, key| value.get(key)).cloned().unwrap_or(Value::Null)
                }
                None => definition.settings.clone(),
            })
            .collect();
        return result_of::<WorkspaceConfiguration>(answers);
    }
    if let Some(params) = params_of::<RegisterCapability>(&request) {
        let params = params?;
        let (lock, condvar) = shared;
        let mut state = lock.lock();
        for registration in params.registrations {
            state.registrations.insert(registration.id, (registration.method, registration.register_options));
        }
        drop(state);
        condvar.notify_all();
        return result_of::<RegisterCapability>(());
    }
    if request.method == UnregisterCapability::METHOD {
        // The spec spells the field `unregisterations` (lsp-types follows it); accept the
        // corrected `unregistrations` too, which the spec's next version allows servers to send.
        #[derive(Deserialize)]
        struct Unregistrations {
            #[serde(alias = "unregistrations")]
            unregisterations: Vec<lsp_types::Unregistration>,
        }
        let params = Unregistrations::deserialize(&request.params).map_err(|err| ResponseError {
            code: ErrorCode::InvalidParams as i32,
            message: format!("runbound cannot read the params of {}: {err}", UnregisterCapability::METHOD),
            data: None,
        })?;
        let mut state = shared.0.lock();
        for registration in params.unregisterations {
            state.registrations.remove(&registration.id);
        }
        return result_of::<UnregisterCapability>(());
    }
    if request.method == WorkspaceDiagnosticRefresh::METHOD {
        let (lock, condvar) = shared;
        lock.lock().diagnostic_refreshes += 1;
        condvar.notify_all();
        return result_of::<WorkspaceDiagnosticRefresh>(());
    }
    if request.method == WorkspaceFoldersRequest::METHOD {
        let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return result_of::<WorkspaceFoldersRequest>(Some(vec![lsp_types::WorkspaceFolder { uri: path_to_lsp_uri(root), name }]));
    }
    if let Some(params) = params_of::<ApplyWorkspaceEdit>(&request) {
        return result_of::<ApplyWorkspaceEdit>(answer_apply_edit(params?, shared, edit_applier));
    }
    if let Some(params) = params_of::<ShowMessageRequest>(&request) {
        let params = params?;
        push_log(&mut shared.0.lock(), format!("[request] {}", params.message));
        return result_of::<ShowMessageRequest>(None);
    }
    if params_of::<ShowDocument>(&request).is_some() {
        return result_of::<ShowDocument>(lsp_types::ShowDocumentResult { success: false });
    }
    if [CodeLensRefresh::METHOD, SemanticTokensRefresh::METHOD, InlayHintRefreshRequest::METHOD, InlineValueRefreshRequest::METHOD]
        .contains(&request.method.as_str())
    {
        return Ok(Value::Null);
    }
    Err(ResponseError { code: METHOD_NOT_FOUND, message: format!("runbound does not handle {}", request.method), data: None })
}

/// Folds one notification into the state. Params that do not decode into their type are
/// ignored, as a server's unknown notification is.
fn apply_notification(state: &mut ServerState, method: &str, params: &Value) {
    use lsp_types::notification::*;
    fn decode<N: LspNotification>(params: &Value) -> Option<N::Params> {
        N::Params::deserialize(params).ok()
    }
    match method {
        Progress::METHOD => {
            let Some(progress) = decode_progress(params) else { return };
            let token = match progress.token {
                NumberOrString::String(token) => token,
                NumberOrString::Number(number) => number.to_string(),
            };
            let lsp_types::ProgressParamsValue::WorkDone(value) = progress.value;
            match value {
                lsp_types::WorkDoneProgress::Begin(begin) => {
                    // A diagnosis pass is not loading progress (see `readiness_of`): gopls begins
                    // its initial workspace load's before its "Setting up workspace", and a server
                    // counts as starting until it reports loading progress (or the grace ends).
                    if is_diagnosis_progress_title(&begin.title) {
                        state.diagnoses_started += 1;
                    } else {
                        state.progress_seen = true;
                    }
                    if is_check_run_token(&token) {
                        state.check_runs_started += 1;
                        state.check_run_last_began = Some(Instant::now());
                        state.check_run_last_duration = None;
                        if check_run_begins_loaded(state) {
                            state.check_runs_started_loaded += 1;
                        }
                    }
                    let text = progress_text(&begin.title, begin.message.as_deref(), begin.percentage);
                    state.progress.insert(token, (begin.title, text));
                }
                lsp_types::WorkDoneProgress::Report(report) => {
                    if let Some((title, text)) = state.progress.get_mut(&token) {
                        *text = progress_text(title, report.message.as_deref(), report.percentage);
                    }
                }
                lsp_types::WorkDoneProgress::End(_) if state.progress.remove(&token).is_some() && is_check_run_token(&token) => {
                    state.check_runs_finished += 1;
                    state.check_run_last_end_wall = Some(SystemTime::now());
                    state.check_run_last_duration = state.check_run_last_began.map(|began| began.elapsed());
                    // A check run that began after a change on disk has seen it: its publishes
                    // (or the lack of one) are current for every file.
                    if state.progress.keys().all(|t| !is_check_run_token(t)) {
                        let started = state.check_runs_started;
                        state.stale.retain(|_, (_, runs_started_at_change, _)| *runs_started_at_change >= started);
                    }
                }
                lsp_types::WorkDoneProgress::End(_) => (),
            }
        }
        ServerStatus::METHOD => {
            let Some(status) = decode::<ServerStatus>(params) else { return };
            state.ever_quiescent |= status.quiescent;
            state.server_status = Some((status.quiescent, status.message));
        }
        AnalyzerStatus::METHOD => {
            state.dart_analyzing = decode::<AnalyzerStatus>(params).and_then(|status| status.is_analyzing);
        }
        "pyright/beginProgress" => {
            state.progress_seen = true;
            state.pyright_progress = Some("pyright analysis".to_owned());
        }
        PyrightReportProgress::METHOD => {
            let detail = decode::<PyrightReportProgress>(params).unwrap_or_default();
            state.pyright_progress = Some(format!("pyright analysis: {detail}"));
        }
        "pyright/endProgress" => {
            state.pyright_progress = None;
        }
        PublishDiagnostics::METHOD => {
            // Decoded once, here: the whole set, else each diagnostic on its own (the ones that
            // do not decode are dropped and said in the log tail, never silently).
            let (uri, version, diagnostics) = match decode::<PublishDiagnostics>(params) {
                Some(params) => (params.uri, params.version, params.diagnostics),
                None => {
                    let Ok(params) = PublishDiagnosticsItems::deserialize(params) else { return };
                    let total = params.diagnostics.len();
                    let decoded: Vec<lsp_types::Diagnostic> =
                        params.diagnostics.iter().filter_map(|item| lsp_types::Diagnostic::deserialize(item).ok()).collect();
                    let dropped = format!(
                        "runbound: dropped {} of {total} published diagnostics for {} that are not LSP Diagnostics",
                        total - decoded.len(),
                        params.uri.as_str()
                    );
                    push_log(state, dropped);
                    (params.uri, params.version, decoded)
                }
            };
            let Some(path) = lsp_uri_to_path(&uri) else { return };
            state.publish_generation += 1;
            let mut set = PublishedDiagnostics {
                generation: state.publish_generation,
                version: version.map(i64::from),
                diagnostics,
                received_at: Instant::now(),
            };
            let key = std::fs::canonicalize(&path).unwrap_or(path);
            // While the run goes on, or in the moment after its end when its last publishes trail
            // it: later, a smaller set is a change of its own (the end-of-run clear of an older
            // run's diagnostics, a native diagnostic gone).
            let run_publishing = state.progress.keys().any(|token| is_check_run_token(token))
                || state
                    .check_run_last_began
                    .zip(state.check_run_last_duration)
                    .is_some_and(|(began, took)| (began + took).elapsed() < CHECK_RUN_PUBLISHES_TRAIL);
            let same_run = run_publishing && state.check_run_of_stored_publish.get(&key) == Some(&state.check_runs_started);
            if let Some(stored) = state.diagnostics.get(&key).filter(|stored| same_run && publish_arrived_out_of_order(stored, &set)) {
                let kept = format!(
                    "runbound: kept the {} diagnostics published for {} over a publish of {} of them that arrived after it in the same check run (sent out of order)",
                    stored.diagnostics.len(),
                    uri.as_str(),
                    set.diagnostics.len()
                );
                set.diagnostics = stored.diagnostics.clone();
                push_log(state, kept);
            }
            if state.check_runs_started > 0 {
                state.check_run_of_stored_publish.insert(key.clone(), state.check_runs_started);
            }
            // A publish for a document version older than the one the change was sent as is
            // the server's answer about the old text (it was on the wire before the change).
            let current = match (state.stale.get(&key), version) {
                (Some((_, _, Some(lowest))), Some(version)) => version >= *lowest,
                _ => true,
            };
            if current {
                state.stale.remove(&key);
            }
            if set.version.is_some() {
                state.versioned_diagnostics.insert(key.clone(), set.clone());
            }
            state.diagnostics.insert(key, set);
        }
        LogMessage::METHOD | ShowMessage::METHOD => {
            // Both carry `{type, message}` (LogMessageParams, ShowMessageParams).
            let Some(params) = decode::<LogMessage>(params) else { return };
            let level = match params.typ {
                lsp_types::MessageType::ERROR => "error",
                lsp_types::MessageType::WARNING => "warning",
                lsp_types::MessageType::INFO => "info",
                _ => "log",
            };
            if is_pyright_source_files_found(&params.message) {
                state.pyright_source_files_found = true;
            }
            let first_line = params.message.lines().next().unwrap_or("");
            push_log(state, format!("[{level}] {first_line}"));
        }
        _ => (),
    }
}

/// `$/progress` params as lsp-types' `ProgressParams`. Tolerant path: a `percentage` that is
/// not an unsigned integer (a float such as `12.5`, beyond the spec's `uinteger`) is rounded
/// down, and a `begin` without a `title` is titled `work`, instead of dropping the report (and
/// with it the readiness it signals).
fn decode_progress(params: &Value) -> Option<lsp_types::ProgressParams> {
    if let Ok(progress) = lsp_types::ProgressParams::deserialize(params) {
        return Some(progress);
    }
    let mut repaired = params.clone();
    if let Some(percentage) = repaired.pointer_mut("/value/percentage") {
        *percentage = match percentage.as_f64() {
            Some(float) if float >= 0.0 => Value::from(float.min(f64::from(u32::MAX)) as u32),
            _ => Value::Null,
        };
    }
    // A `begin` without its (required) `title` reads as `work`.
    if let Some(value) = repaired.get_mut("value").and_then(Value::as_object_mut) {
        if value.get("kind").and_then(Value::as_str) == Some("begin") && !value.get("title").is_some_and(Value::is_string) {
            value.insert("title".to_owned(), Value::String("work".to_owned()));
        }
    }
    lsp_types::ProgressParams::deserialize(&repaired).ok()
}

/// Whether `message` is pyright's (and basedpyright's) log line that ends the enumeration of the
/// project's source files: `Found 3 source files`, `Found 1 source file`, `No source files found.`
/// (pyright 1.1.4xx, `FileSpecEnumerator._finish`).
fn is_pyright_source_files_found(message: &str) -> bool {
    let message = message.trim();
    if message == "No source files found." {
        return true;
    }
    let Some(rest) = message.strip_prefix("Found ") else { return false };
    let Some((count, tail)) = rest.split_once(' ') else { return false };
    !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()) && matches!(tail, "source files" | "source file")
}

/// Whether a check run beginning now counts as begun after the server loaded its project:
/// no loading progress is open (cargo metadata, build scripts, proc-macros, VFS roots — every
/// progress but check runs, diagnosis passes and a failed workspace load), and the first
/// indexing has ended (`quiescent: true` seen once; a later cache priming after an edit does not
/// count as loading). rust-analyzer 1.95 on adler2 2.0.1, fresh: its first check began at 4.4 s
/// while it indexed the sysroot, ended at 5.7 s, and its errors were published at 22.0 s, when
/// the indexing ended; a save's check asked for meanwhile had not begun 3 s later.
fn check_run_begins_loaded(state: &ServerState) -> bool {
    let loading = state.progress.iter().any(|(token, (title, text))| {
        !is_check_run_token(token)
            && !is_diagnosis_progress_title(title)
            && !is_workspace_load_failure(title, text)
            && !(state.ever_quiescent && (token.contains("cachePriming") || title == "Indexing"))
    });
    let first_indexing = state.server_status.is_some() && !state.ever_quiescent;
    !loading && !first_indexing
}

/// Whether a progress token belongs to the server's own project check (rust-analyzer's
/// `rust-analyzer/flycheck/N`).
/// Whether a progress title is a diagnosis pass of gopls (`diagnosing initial workspace load`,
/// `diagnosing opened files`, `diagnosing changed files`, `diagnosing saved files`, … — sent
/// with its `verboseWorkDoneProgress` option, ended once every set of the pass was published).
/// Whether a progress report is gopls' failed workspace load (left open until a load succeeds).
fn is_workspace_load_failure(title: &str, text: &str) -> bool {
    title.starts_with("Error loading workspace") || text.starts_with("Error loading workspace")
}

fn is_diagnosis_progress_title(title: &str) -> bool {
    title.starts_with("diagnosing ")
}

/// The progress texts of the work that keeps `state`'s server from being ready, sorted: every
/// open progress but a diagnosis pass and a failed workspace load, and with
/// `ignore_check_runs` but the server's own check runs (rust-analyzer's flycheck, see
/// [`LanguageServer::wait_until_ready_for_lookups`]).
fn running_work(state: &ServerState, ignore_check_runs: bool) -> Vec<String> {
    let mut running: Vec<String> = state
        .progress
        .iter()
        .filter(|(token, _)| !(ignore_check_runs && is_check_run_token(token)))
        .map(|(_, progress)| progress)
        .filter(|(title, text)| !is_diagnosis_progress_title(title) && !is_workspace_load_failure(title, text))
        .map(|(_, text)| text.clone())
        .collect();
    running.sort();
    running
}

/// The method of [`LanguageServer::wait_for_main_loop_turn`]'s request: unknown to every
/// server, so it is answered MethodNotFound without any work.
pub const MAIN_LOOP_BARRIER_METHOD: &str = "runbound/mainLoopBarrier";

/// How long no check run may begin after the latest one ended before it counts as the last:
/// [`CANCELLED_CHECK_RESTART_WINDOW`] after a run shorter than [`SHORT_CHECK_RUN`], else
/// [`CHECK_RUN_RESTART_WINDOW`].
fn check_run_restart_window(state: &ServerState) -> Duration {
    if state.check_run_last_duration.is_some_and(|lasted| lasted < SHORT_CHECK_RUN) {
        CANCELLED_CHECK_RESTART_WINDOW
    } else {
        CHECK_RUN_RESTART_WINDOW
    }
}

/// How long after a check run's end its publishes can still arrive out of order (see
/// [`publish_arrived_out_of_order`]): rust-analyzer sends them from its thread pool a moment after
/// the `end` it sends from its main loop.
const CHECK_RUN_PUBLISHES_TRAIL: Duration = Duration::from_secs(2);

/// Whether `incoming`, published for the same path as `stored` within the same check run, is an
/// earlier state of that run that arrived late: its document version is not newer and its
/// diagnostics are a strict sub-multiset of the stored ones.
///
/// rust-analyzer sends each `textDocument/publishDiagnostics` from a task of its thread pool
/// (`GlobalState::publish_diagnostics`), so two publishes for one file sent in close succession
/// can reach the client in either order. Within one flycheck run a file's check diagnostics are
/// cleared once (at the first message of its package) and then only added to, so of two sets of
/// one run the larger is the later. Seen: a cold start whose second run published lines 2, 6 and
/// 10, then lines 2 and 6 — which then stood as the answer until the next save.
fn publish_arrived_out_of_order(stored: &PublishedDiagnostics, incoming: &PublishedDiagnostics) -> bool {
    if incoming.diagnostics.len() >= stored.diagnostics.len() {
        return false;
    }
    if matches!((incoming.version, stored.version), (Some(incoming), Some(stored)) if incoming > stored) {
        return false;
    }
    let key = |d: &lsp_types::Diagnostic| {
        let code = match &d.code {
            Some(NumberOrString::String(code)) => code.clone(),
            Some(NumberOrString::Number(code)) => code.to_string(),
            None => String::new(),
        };
        (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, code, d.message.clone())
    };
    let mut stored_counts: HashMap<_, usize> = HashMap::new();
    for diagnostic in &stored.diagnostics {
        *stored_counts.entry(key(diagnostic)).or_default() += 1;
    }
    incoming.diagnostics.iter().all(|diagnostic| match stored_counts.get_mut(&key(diagnostic)) {
        Some(count) if *count > 0 => {
            *count -= 1;
            true
        }
        _ => false,
    })
}

fn is_check_run_token(token: &str) -> bool {
    token.contains("flycheck")
}

fn progress_text(title: &str, message: Option<&str>, percentage: Option<u32>) -> String {
    // pyright's progress has an empty title ("(: 2 files to analyze)", trial36 M8).
    let mut text = title.trim().to_owned();
    if let Some(message) = message.map(str::trim).filter(|message| !message.is_empty()) {
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(message);
    }
    if let Some(percentage) = percentage {
        text.push_str(&format!(" ({percentage}%)"));
    }
    text
}

fn push_log(state: &mut ServerState, line: String) {
    if state.log_tail.len() >= 20 {
        state.log_tail.pop_front();
    }
    state.log_tail.push_back(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_text_leaves_out_an_empty_title() {
        assert_eq!(progress_text("", Some("2 files to analyze"), None), "2 files to analyze", "pyright's progress");
        assert_eq!(progress_text("Indexing", Some("12/40"), Some(30)), "Indexing: 12/40 (30%)");
        assert_eq!(progress_text("Roots Scanned", Some(" "), None), "Roots Scanned");
    }

    #[test]
    fn server_versions_that_are_build_info_json_or_long_are_shortened() {
        let gopls = r#"{"GoVersion":"go1.19.5","Path":"golang.org/x/tools/gopls","Main":{"Path":"golang.org/x/tools/gopls","Version":"v0.11.0"},"Deps":[{"Path":"golang.org/x/mod","Version":"v0.7.0"}],"Settings":[{"Key":"-compiler","Value":"gc"}]}"#;
        assert_eq!(short_server_version(gopls), "v0.11.0 (go1.19.5)");
        assert_eq!(short_server_version("1.1.390"), "1.1.390");
        let long = "x".repeat(61);
        assert_eq!(short_server_version(&long), format!("{}…", "x".repeat(60)));
        // A cut never splits a character.
        let wide = "é".repeat(40);
        assert!(short_server_version(&wide).ends_with('…'));
    }

    /// Every field of `expected` is in `actual` with the same value (`actual` may add none).
    fn assert_kept(expected: &Value, actual: &Value, at: &str) {
        match (expected, actual) {
            (Value::Object(expected), Value::Object(actual)) => {
                for (key, value) in expected {
                    let Some(kept) = actual.get(key) else { panic!("{at}/{key} was dropped by the typed InitializeParams") };
                    assert_kept(value, kept, &format!("{at}/{key}"));
                }
            }
            _ => assert_eq!(expected, actual, "{at} changed in the typed InitializeParams"),
        }
    }

    #[test]
    fn typed_initialize_params_lose_only_workspace_diagnostics_and_offset_encoding() {
        for definition in crate::lsp::servers::builtin_servers() {
            let root = Path::new("/nonexistent/project root");
            let mut json = initialize_params(&definition, root);
            let typed: lsp_types::InitializeParams = serde_json::from_value(json.clone()).unwrap();
            let typed = serde_json::to_value(typed).unwrap();
            assert!(typed.pointer("/capabilities/workspace/diagnostics").is_none(), "lsp-types now keeps it: send the typed params");
            json["capabilities"]["workspace"].as_object_mut().unwrap().remove("diagnostics");
            json["capabilities"].as_object_mut().unwrap().remove("offsetEncoding");
            assert_kept(&json, &typed, &definition.id);
        }
    }

    #[test]
    fn tolerant_progress_and_initialize_decodes() {
        // A float percentage and a begin without a title still start the progress.
        let mut state = ServerState::default();
        apply_notification(&mut state, "$/progress", &json!({"token": 7, "value": {"kind": "begin", "percentage": 12.5}}));
        assert_eq!(state.progress.get("7").map(|(_, text)| text.as_str()), Some("work (12%)"));
        // A capability lsp-types cannot read is left out; the others still decode.
        let (result, notes) = decode_initialize_result(json!({
            "capabilities": {"hoverProvider": true, "definitionProvider": "yes please"},
            "serverInfo": {"name": "odd", "version": "1"}
        }));
        assert!(result.capabilities.hover_provider.is_some() && result.capabilities.definition_provider.is_none());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("definitionProvider"), "{notes:?}");
        assert_eq!(result.server_info.map(|info| info.name).as_deref(), Some("odd"));
    }

    #[test]
    fn handle_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<LanguageServer>();
    }

    #[test]
    fn progress_and_server_status_drive_readiness_state() {
        let mut state = ServerState::default();
        apply_notification(
            &mut state,
            "$/progress",
            &json!({"token": "t1", "value": {"kind": "begin", "title": "Indexing", "percentage": 10}}),
        );
        assert_eq!(state.progress.get("t1").map(|(_, text)| text.as_str()), Some("Indexing (10%)"));
        apply_notification(&mut state, "$/progress", &json!({"token": "t1", "value": {"kind": "report", "message": "3/9"}}));
        assert_eq!(state.progress.get("t1").map(|(_, text)| text.as_str()), Some("Indexing: 3/9"));
        apply_notification(&mut state, "$/progress", &json!({"token": "t1", "value": {"kind": "end"}}));
        assert!(state.progress.is_empty() && state.progress_seen);
        apply_notification(&mut state, "experimental/serverStatus", &json!({"health": "ok", "quiescent": false}));
        assert_eq!(state.server_status, Some((false, None)));
        apply_notification(
            &mut state,
            "textDocument/publishDiagnostics",
            &json!({"uri": "file:///nonexistent/a.rs", "version": 3, "diagnostics": [{"message": "x", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}]}),
        );
        let set = state.diagnostics.get(Path::new("/nonexistent/a.rs")).unwrap();
        assert_eq!((set.generation, set.version, set.diagnostics.len()), (1, Some(3), 1));
        // A diagnostic that is not an LSP Diagnostic (no range) is dropped from its set and said.
        apply_notification(
            &mut state,
            "textDocument/publishDiagnostics",
            &json!({"uri": "file:///nonexistent/b.rs", "diagnostics": [{"message": "no range"}, {"message": "y", "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}}}]}),
        );
        let set = state.diagnostics.get(Path::new("/nonexistent/b.rs")).unwrap();
        assert_eq!((set.generation, set.diagnostics.len(), set.diagnostics[0].message.as_str()), (2, 1, "y"));
        assert!(state.log_tail.back().is_some_and(|line| line.contains("dropped 1 of 2")), "{:?}", state.log_tail);
    }

    #[test]
    fn a_running_project_check_holds_diagnostics_but_not_lookups() {
        // httparse 1.10.1 (trial28 M1): indexing done, the first cargo check still compiling
        // criterion's tree.
        let mut state = ServerState::default();
        apply_notification(&mut state, "experimental/serverStatus", &json!({"health": "ok", "quiescent": true}));
        apply_notification(
            &mut state,
            "$/progress",
            &json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "begin", "title": "cargo check", "message": "regex (lib)"}}),
        );
        assert_eq!(running_work(&state, false), ["cargo check: regex (lib)"]);
        assert!(running_work(&state, true).is_empty(), "a lookup waits for the project check");
        apply_notification(
            &mut state,
            "$/progress",
            &json!({"token": "rustAnalyzer/Indexing", "value": {"kind": "begin", "title": "Indexing"}}),
        );
        assert_eq!(running_work(&state, true), ["Indexing"], "indexing holds lookups");
    }

    #[test]
    fn rust_analyzer_check_runs_begun_while_loading_are_not_counted_as_loaded() {
        // The order rust-analyzer 1.95 sent on a fresh adler2 2.0.1 (coldrace23 trace).
        let mut state = ServerState::default();
        let progress = |state: &mut ServerState, token: &str, value: Value| {
            apply_notification(state, "$/progress", &json!({"token": token, "value": value}));
        };
        let status = |state: &mut ServerState, quiescent: bool| {
            apply_notification(state, "experimental/serverStatus", &json!({"health": "ok", "quiescent": quiescent}));
        };
        let check = "rust-analyzer/flycheck/0";
        status(&mut state, false);
        progress(&mut state, "rustAnalyzer/Fetching", json!({"kind": "begin", "title": "Fetching"}));
        // A run begun while cargo metadata runs: not loaded.
        progress(&mut state, check, json!({"kind": "begin", "title": "cargo check"}));
        progress(&mut state, check, json!({"kind": "end"}));
        progress(&mut state, "rustAnalyzer/Fetching", json!({"kind": "end"}));
        // The first indexing (cache priming before the first `quiescent: true`): not loaded.
        progress(&mut state, "rustAnalyzer/cachePriming", json!({"kind": "begin", "title": "Indexing"}));
        progress(&mut state, check, json!({"kind": "begin", "title": "cargo check"}));
        progress(&mut state, check, json!({"kind": "end"}));
        assert_eq!((state.check_runs_started, state.check_runs_started_loaded), (2, 0));
        progress(&mut state, "rustAnalyzer/cachePriming", json!({"kind": "end"}));
        status(&mut state, true);
        // Loaded: a save's run counts, and so does one begun during a later cache priming.
        progress(&mut state, check, json!({"kind": "begin", "title": "cargo check"}));
        progress(&mut state, check, json!({"kind": "end"}));
        progress(&mut state, "rustAnalyzer/cachePriming", json!({"kind": "begin", "title": "Indexing"}));
        progress(&mut state, check, json!({"kind": "begin", "title": "cargo check"}));
        assert_eq!((state.check_runs_started, state.check_runs_started_loaded), (4, 2));
        progress(&mut state, check, json!({"kind": "end"}));
        progress(&mut state, "rustAnalyzer/cachePriming", json!({"kind": "end"}));
        // A workspace reload (a Cargo.toml change): a run begun during it does not count.
        progress(&mut state, "rustAnalyzer/Building CrateGraph", json!({"kind": "begin", "title": "Building CrateGraph"}));
        progress(&mut state, check, json!({"kind": "begin", "title": "cargo check"}));
        assert_eq!((state.check_runs_started, state.check_runs_started_loaded), (5, 2));
    }

    #[test]
    fn gopls_diagnosis_passes_are_counted_and_are_not_loading() {
        // gopls with `verboseWorkDoneProgress`, as seen on go-cmp: a pass per didChange/didSave.
        let mut state = ServerState::default();
        let progress = |state: &mut ServerState, token: &str, value: Value| {
            apply_notification(state, "$/progress", &json!({"token": token, "value": value}));
        };
        let diagnosing = |state: &ServerState| state.progress.values().filter(|(title, _)| is_diagnosis_progress_title(title)).count();
        // Its first report, before "Setting up workspace": not loading progress yet.
        progress(&mut state, "0", json!({"kind": "begin", "title": "diagnosing initial workspace load"}));
        assert!(!state.progress_seen && state.diagnoses_started == 1);
        progress(&mut state, "0", json!({"kind": "end", "message": "Done."}));
        state.diagnoses_started = 0;
        progress(&mut state, "1", json!({"kind": "begin", "title": "Setting up workspace", "message": "Loading packages..."}));
        progress(&mut state, "2", json!({"kind": "begin", "title": "diagnosing changed files"}));
        progress(&mut state, "3", json!({"kind": "begin", "title": "diagnosing saved files"}));
        assert_eq!((state.diagnoses_started, diagnosing(&state)), (2, 2));
        progress(&mut state, "1", json!({"kind": "end", "message": "Finished loading packages."}));
        progress(&mut state, "2", json!({"kind": "end", "message": "Done."}));
        assert_eq!((state.diagnoses_started, diagnosing(&state)), (2, 1));
        progress(&mut state, "3", json!({"kind": "end", "message": "Done."}));
        assert_eq!((state.diagnoses_started, diagnosing(&state), state.progress.len()), (2, 0, 0));
        assert!(is_diagnosis_progress_title("diagnosing initial workspace load") && !is_diagnosis_progress_title("Setting up workspace"));
    }

    #[test]
    fn a_change_outside_the_tools_stays_stale_until_a_publish_or_a_later_check_run() {
        let mut state = ServerState::default();
        let publish = |state: &mut ServerState, uri: &str| {
            apply_notification(state, "textDocument/publishDiagnostics", &json!({"uri": uri, "diagnostics": []}));
        };
        let a = PathBuf::from("/nonexistent/a.rs");
        let b = PathBuf::from("/nonexistent/b.rs");
        state.stale.insert(a.clone(), (state.publish_generation, state.check_runs_started, None));
        state.stale.insert(b.clone(), (state.publish_generation, state.check_runs_started, None));
        publish(&mut state, "file:///nonexistent/a.rs");
        assert!(!state.stale.contains_key(&a) && state.stale.contains_key(&b));
        // A check run that began after the change clears the rest once it ends.
        let progress = |state: &mut ServerState, kind: &str| {
            apply_notification(
                state,
                "$/progress",
                &json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": kind, "title": "cargo check"}}),
            );
        };
        progress(&mut state, "begin");
        assert!(state.stale.contains_key(&b));
        progress(&mut state, "end");
        assert!(state.stale.is_empty());
        assert_eq!((state.check_runs_started, state.check_runs_finished), (1, 1));
        // A run that ended at once was likely cancelled: its restart is waited for longer.
        assert_eq!(check_run_restart_window(&state), CANCELLED_CHECK_RESTART_WINDOW);
        progress(&mut state, "begin");
        state.check_run_last_began = Some(Instant::now() - SHORT_CHECK_RUN * 2);
        progress(&mut state, "end");
        assert_eq!(check_run_restart_window(&state), CHECK_RUN_RESTART_WINDOW);
        // A run that began before the change does not.
        progress(&mut state, "begin");
        state.stale.insert(b.clone(), (state.publish_generation, state.check_runs_started, None));
        progress(&mut state, "end");
        assert!(state.stale.contains_key(&b));
    }

    #[test]
    fn a_smaller_set_arriving_late_in_the_same_check_run_does_not_replace_the_larger_one() {
        // The cold start of lsp_diagnostics_cross_file's duplicate-errors case: rust-analyzer's
        // second run published b.rs with lines 2, 6 and 10, then (a task of its pool sent late)
        // with lines 2 and 6 only.
        let mut state = ServerState::default();
        let at = |line: u32| json!({"message": "E0061", "code": "E0061", "source": "rustc", "range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 19}}});
        let publish = |state: &mut ServerState, lines: &[u32]| {
            let diagnostics: Vec<Value> = lines.iter().map(|line| at(*line)).collect();
            apply_notification(
                state,
                "textDocument/publishDiagnostics",
                &json!({"uri": "file:///nonexistent/b.rs", "version": 1, "diagnostics": diagnostics}),
            );
        };
        let progress = |state: &mut ServerState, kind: &str| {
            apply_notification(
                state,
                "$/progress",
                &json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": kind, "title": "cargo check"}}),
            );
        };
        let lines = |state: &ServerState| -> Vec<u32> {
            state.diagnostics[Path::new("/nonexistent/b.rs")].diagnostics.iter().map(|d| d.range.start.line).collect()
        };
        progress(&mut state, "begin");
        publish(&mut state, &[]);
        publish(&mut state, &[1, 1, 5, 5, 9, 9]);
        publish(&mut state, &[1, 1, 5, 5]);
        progress(&mut state, "end");
        assert_eq!(lines(&state), vec![1, 1, 5, 5, 9, 9]);
        assert!(state.log_tail.back().is_some_and(|line| line.contains("out of order")), "{:?}", state.log_tail);
        // A late clear of the run's start is out of order too.
        progress(&mut state, "begin");
        publish(&mut state, &[1]);
        publish(&mut state, &[]);
        assert_eq!(lines(&state), vec![1]);
        // A set that is not contained in the stored one is a new state: taken.
        publish(&mut state, &[5]);
        assert_eq!(lines(&state), vec![5]);
        // The next run's clear (after its `begin`) and its smaller sets are taken.
        progress(&mut state, "end");
        progress(&mut state, "begin");
        publish(&mut state, &[]);
        assert_eq!(lines(&state), Vec::<u32>::new());
        // Long after a run's end, a smaller set of the same run is a change of its own.
        progress(&mut state, "begin");
        publish(&mut state, &[1, 5]);
        progress(&mut state, "end");
        state.check_run_last_began = Some(Instant::now() - CHECK_RUN_PUBLISHES_TRAIL * 3);
        state.check_run_last_duration = Some(CHECK_RUN_PUBLISHES_TRAIL);
        publish(&mut state, &[1]);
        assert_eq!(lines(&state), vec![1]);
        // A later document version is never taken for an old state.
        publish(&mut state, &[1, 5]);
        apply_notification(
            &mut state,
            "textDocument/publishDiagnostics",
            &json!({"uri": "file:///nonexistent/b.rs", "version": 2, "diagnostics": [at(1)]}),
        );
        assert_eq!(lines(&state), vec![1]);
    }

    #[test]
    fn a_publish_for_a_document_version_older_than_the_resynced_one_does_not_clear_the_stale_mark() {
        let mut state = ServerState::default();
        let a = PathBuf::from("/nonexistent/a.go");
        state.stale.insert(a.clone(), (0, 0, Some(3)));
        let publish = |state: &mut ServerState, version: Option<i32>| {
            apply_notification(
                state,
                "textDocument/publishDiagnostics",
                &json!({"uri": "file:///nonexistent/a.go", "version": version, "diagnostics": []}),
            );
        };
        publish(&mut state, Some(2));
        assert!(state.stale.contains_key(&a), "a publish for version 2 answers about the text before the change");
        publish(&mut state, Some(3));
        assert!(!state.stale.contains_key(&a));
        state.stale.insert(a.clone(), (0, 0, Some(5)));
        publish(&mut state, None);
        assert!(!state.stale.contains_key(&a), "a server that sends no version: any later publish counts");
    }

    #[test]
    fn pyright_source_files_log_line_marks_the_project_loaded() {
        let mut state = ServerState::default();
        let log = |state: &mut ServerState, message: &str| {
            apply_notification(state, "window/logMessage", &json!({"type": 3, "message": message}));
        };
        log(&mut state, "Loading pyproject.toml file at /tmp/p/pyproject.toml");
        log(&mut state, "Found 12 files to analyze");
        log(&mut state, "Found source files in /tmp/p");
        assert!(!state.pyright_source_files_found);
        log(&mut state, "Found 3 source files");
        assert!(state.pyright_source_files_found);
        for line in ["Found 1 source file", "No source files found."] {
            assert!(is_pyright_source_files_found(line), "{line}");
        }
    }

    #[test]
    fn a_resync_report_says_what_the_caps_left_out_and_nothing_otherwise() {
        let display = |path: &Path| path.display().to_string();
        let report = ResyncReport { changed_outside: 3, cycled: 3, server_id: "gopls".to_owned(), ..ResyncReport::default() };
        assert_eq!(report.note(display), None);
        let report = ResyncReport {
            changed_outside: 70,
            cycled: 64,
            not_cycled: (64..70).map(|n| PathBuf::from(format!("m{n}.go"))).collect(),
            dependents_resent: 64,
            dependents_not_resent: 9,
            server_id: "gopls".to_owned(),
            ..ResyncReport::default()
        };
        let note = report.note(display).expect("a note");
        assert!(note.starts_with("note: 6 of the 70 files changed outside the tools (not open in gopls) were NOT re-synced by an open/close cycle (cap 64 per call; e.g. m64.go, m65.go, m66.go, …)"), "{note}");
        assert!(note.ends_with("9 open documents that may depend on the changed files were NOT re-sent to gopls (cap 64; 64 were): their stored diagnostics may predate the change until gopls re-checks them on its own"), "{note}");
        assert_eq!(report.sentence(display).as_deref(), note.strip_prefix("note: "));
    }
}
