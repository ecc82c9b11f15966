//! Diagnostics on write (R-DOW-1) and the new-only ledger (R-DOW-2).
//!
//! After `write`, `edit`, `apply_patch`, `resolve` (accept) or `lsp_rename` wrote files, the
//! [`DiagnosticsOnWriteLayer`] syncs every written file to the language server that serves it
//! (full-text `didChange` with a new version, then `didSave`), collects the diagnostics that are
//! fresh for that sync, and appends to the tool's result only those the write **newly
//! introduced**, after the tool's own first line that says the write succeeded.
//!
//! Freshness, per server and file:
//! - only publishes with a generation above the one taken just before the sync count, and a
//!   publish that names a `version` other than ours is ignored (stale);
//! - pull (`textDocument/diagnostic`, static or dynamically registered) where offered, pushes
//!   collected too, merged, and de-duplicated across the two sources by (code, start line);
//! - a settle window after the last fresh publish (rust-analyzer publishes the previous check's
//!   errors under the new version first), and, for a server with its own check run
//!   (rust-analyzer flycheck), a wait for that run's progress `end`;
//! - every wait is bounded by a per-server budget ([`crate::lsp::LspConfig::write_diagnostics_budget`],
//!   [`crate::lsp::LspConfig::write_diagnostics_check_budget`]); no fixed sleeps.
//!
//! When the answer cannot be trusted the block says `diagnostics unavailable: <reason>` (server
//! crashed, still indexing, budget ran out, no server) — never an empty "clean".
//!
//! The ledger ([`DiagnosticsLedger`], one per run, kept by the supervisor) counts diagnostics per
//! file by (severity, code, message) — no position, so an error that only moved is not new; a
//! second instance of a known message is. A file is seeded from its state before the first write
//! (the [`PreCallLayer`] half syncs the old content before `write`, `edit`, `apply_patch` and
//! `resolve` accept run; `lsp_rename` seeds itself); keys that disappear are forgotten, so a fixed and reintroduced
//! error is reported again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{json, Value};

use crate::lsp::client::{DocumentSync, LanguageServer};
use crate::lsp::servers::ReadinessSignal;
use crate::lsp::supervisor::LspSupervisor;
use crate::registry::{CallContext, PostWriteLayer, PreCallLayer};
use crate::result::ToolResult;

/// Severity of a diagnostic record (LSP numbering: 1 error … 4 hint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// LSP 1.
    Error,
    /// LSP 2.
    Warning,
    /// LSP 3.
    Information,
    /// LSP 4.
    Hint,
}

impl Severity {
    /// From the LSP number (absent → error, as the spec lets clients assume).
    pub fn from_lsp(number: Option<u64>) -> Severity {
        match number {
            Some(2) => Severity::Warning,
            Some(3) => Severity::Information,
            Some(4) => Severity::Hint,
            _ => Severity::Error,
        }
    }

    /// `error`, `warning`, `information`, `hint`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// One diagnostic, the same record for server diagnostics and the project checker (`"*"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiagnosticRecord {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// 1-based line of the diagnostic's start.
    pub line: u32,
    /// Severity.
    pub severity: Severity,
    /// The code (`E0308`, `reportAssignmentType`, `TS2322`), when given.
    pub code: Option<String>,
    /// The message, newlines folded to spaces.
    pub message: String,
    /// Who produced it (`rustc`, `Pyright`, `typescript`, `go vet`, …), when known.
    pub source: Option<String>,
}

impl DiagnosticRecord {
    /// Converts a raw LSP `Diagnostic` for `path`. `None` for hints and for diagnostics whose
    /// only purpose is a tag (`Unnecessary` = 1, `Deprecated` = 2) — never worth an agent's turn.
    pub fn from_lsp(path: &Path, diagnostic: &Value) -> Option<DiagnosticRecord> {
        let severity = Severity::from_lsp(diagnostic.get("severity").and_then(Value::as_u64));
        if severity == Severity::Hint {
            return None;
        }
        let tags: Vec<u64> = diagnostic.get("tags").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_u64).collect();
        if !tags.is_empty() && tags.iter().all(|tag| *tag == 1 || *tag == 2) && severity != Severity::Error {
            return None;
        }
        let code = match diagnostic.get("code") {
            Some(Value::String(code)) => Some(code.clone()),
            Some(Value::Number(code)) => Some(code.to_string()),
            _ => None,
        };
        Some(DiagnosticRecord {
            path: path.to_path_buf(),
            line: diagnostic.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(0) as u32 + 1,
            severity,
            code,
            message: diagnostic.get("message").and_then(Value::as_str).unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" "),
            source: diagnostic.get("source").and_then(Value::as_str).map(str::to_owned),
        })
    }

    /// The ledger key: (severity, code, message) — deliberately without position.
    pub fn ledger_key(&self) -> LedgerKey {
        (self.severity, self.code.clone(), self.message.clone())
    }

    /// `path:line: severity[code] message (source)` with `path` shown by `display`.
    pub fn render(&self, display: &str) -> String {
        let code = self.code.as_ref().map(|code| format!("[{code}]")).unwrap_or_default();
        let source = self.source.as_ref().map(|source| format!(" ({source})")).unwrap_or_default();
        format!("{display}:{}: {}{code} {}{source}", self.line, self.severity.as_str(), self.message)
    }
}

/// The ledger key of a diagnostic within one file.
pub type LedgerKey = (Severity, Option<String>, String);

#[derive(Debug, Clone, Copy, Default)]
struct LedgerEntry {
    /// Instances currently known (seeded or reported).
    count: usize,
    /// Of those, how many were reported to the agent as new.
    reported: usize,
}

#[derive(Debug, Default)]
struct FileLedger {
    entries: HashMap<LedgerKey, LedgerEntry>,
}

/// What [`DiagnosticsLedger::record`] found.
#[derive(Debug, Clone, Default)]
pub struct LedgerDiff {
    /// Diagnostics the write introduced (instances beyond the known count per key).
    pub new: Vec<DiagnosticRecord>,
    /// Errors reported by earlier writes that are still present.
    pub still_unresolved_errors: usize,
}

/// The per-run new-only ledger (R-DOW-2), keyed by file, then (severity, code, message), with
/// counts.
#[derive(Debug, Default)]
pub struct DiagnosticsLedger {
    files: Mutex<HashMap<PathBuf, FileLedger>>,
}

impl DiagnosticsLedger {
    /// Whether `path` has a baseline (seeded or recorded before).
    pub fn is_seeded(&self, path: &Path) -> bool {
        self.files.lock().contains_key(path)
    }

    /// Sets the baseline of `path` from its state before a write: these are not new.
    pub fn seed(&self, path: &Path, current: &[DiagnosticRecord]) {
        let mut file = FileLedger::default();
        for record in current {
            file.entries.entry(record.ledger_key()).or_default().count += 1;
        }
        self.files.lock().insert(path.to_path_buf(), file);
    }

    /// Records the current set of `path` after a write: returns the new instances and the
    /// count of earlier-reported errors still present; keys absent from `current` are forgotten.
    pub fn record(&self, path: &Path, current: &[DiagnosticRecord]) -> LedgerDiff {
        let mut files = self.files.lock();
        let file = files.entry(path.to_path_buf()).or_default();
        let mut by_key: Vec<(LedgerKey, Vec<&DiagnosticRecord>)> = Vec::new();
        for record in current {
            let key = record.ledger_key();
            match by_key.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(record),
                None => by_key.push((key, vec![record])),
            }
        }
        let mut diff = LedgerDiff::default();
        let mut next = FileLedger::default();
        for (key, mut records) in by_key {
            records.sort_by_key(|record| record.line);
            let known = file.entries.get(&key).copied().unwrap_or_default();
            let present = records.len();
            let kept_reported = known.reported.min(present);
            if key.0 == Severity::Error {
                diff.still_unresolved_errors += kept_reported;
            }
            let new_count = present.saturating_sub(known.count);
            // The later instances are the new ones (an added copy usually comes after the old).
            diff.new.extend(records[present - new_count..].iter().map(|record| (*record).clone()));
            next.entries.insert(key, LedgerEntry { count: present, reported: kept_reported + new_count });
        }
        *file = next;
        diff.new.sort_by_key(|record| (record.severity, record.line));
        diff
    }

    /// Forgets `path` (deleted).
    pub fn forget(&self, path: &Path) {
        self.files.lock().remove(path);
    }
}

/// The diagnostics of one file after a sync, or why there are none to trust.
#[derive(Debug, Clone)]
pub enum FileDiagnostics {
    /// Fresh diagnostics (already filtered to hints-dropped records), with notes.
    Fresh {
        /// The server that answered.
        server_id: String,
        /// Every current record (all severities but hints).
        records: Vec<DiagnosticRecord>,
        /// Notes for the answer (e.g. "pull failed, pushes used").
        notes: Vec<String>,
    },
    /// No trustworthy answer: the reason, e.g. "pyright crashed (…)".
    Unavailable(String),
    /// No language server is configured for this file type (not a code file for us).
    NotServed,
}

/// A file synced to its server, waiting for its diagnostics.
struct PendingCheck {
    path: PathBuf,
    server: std::sync::Arc<LanguageServer>,
    sync: DocumentSync,
    check_runs_started_before: u64,
    restart_notes: Vec<String>,
    budget: Duration,
    budget_end: Instant,
}

/// Syncs each of `paths` (existing files) to its server and collects fresh diagnostics, all files
/// first synced, then waited for, each server within its own budget (never past `deadline`).
pub fn check_files(supervisor: &LspSupervisor, paths: &[PathBuf], deadline: Instant) -> Vec<(PathBuf, FileDiagnostics)> {
    let config = supervisor.config();
    let mut results: Vec<(PathBuf, FileDiagnostics)> = Vec::new();
    let mut pending: Vec<PendingCheck> = Vec::new();
    for path in paths {
        if supervisor.servers().all(|definition| !definition.serves(path)) {
            results.push((path.clone(), FileDiagnostics::NotServed));
            continue;
        }
        let lease = match supervisor.server_for_file(path, None, deadline) {
            Ok(lease) => lease,
            Err(err) => {
                results.push((path.clone(), FileDiagnostics::Unavailable(err.message)));
                continue;
            }
        };
        // A server found dead was restarted by the lease: check with the new process and say so.
        let restart_notes: Vec<String> = lease
            .notes
            .iter()
            .filter(|note| note.contains("had exited") || note.contains("restarted"))
            .map(|note| format!("{} crashed before this write and was restarted: {}", lease.server.id(), note.trim_start_matches("note: ")))
            .collect();
        let server = lease.server;
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) => {
                results.push((path.clone(), FileDiagnostics::Unavailable(format!("cannot read the written file: {err}"))));
                continue;
            }
        };
        let (mtime, size) = match std::fs::metadata(path) {
            Ok(meta) => (meta.modified().ok(), meta.len()),
            Err(_) => (None, 0),
        };
        let check_runs_started_before = server.check_runs().0;
        let sync = match server.sync_document_text(path, text, mtime, size) {
            Ok(sync) => sync,
            Err(err) => {
                // A connection that closed under us means the server died between the lease and
                // the sync (e.g. killed right before the write): say it crashed.
                let died = err.kind == crate::ErrorKind::Unavailable; // transport: RpcErrorKind::PeerClosed
                let reason = if died {
                    format!("{} crashed before the file could be sent (the next call restarts it): {}", server.id(), err.message)
                } else {
                    format!("{} could not be sent the file: {}", server.id(), err.message)
                };
                results.push((path.clone(), FileDiagnostics::Unavailable(reason)));
                continue;
            }
        };
        let budget = if has_check_run(&server) { config.write_diagnostics_check_budget } else { config.write_diagnostics_budget };
        pending.push(PendingCheck {
            path: path.clone(),
            server,
            sync,
            check_runs_started_before,
            restart_notes,
            budget,
            budget_end: (Instant::now() + budget).min(deadline),
        });
    }
    for check in pending {
        let outcome = collect(&check, supervisor);
        results.push((check.path, outcome));
    }
    results
}

fn has_check_run(server: &LanguageServer) -> bool {
    server.definition().readiness == ReadinessSignal::RustAnalyzerQuiescent
}

fn collect(check: &PendingCheck, supervisor: &LspSupervisor) -> FileDiagnostics {
    let server = &*check.server;
    let path = &check.path;
    let settle = server.definition().diagnostics_settle;
    let end = check.budget_end;
    let mut notes = check.restart_notes.clone();
    // A server still starting or indexing cannot answer for this file yet; wait within budget.
    let readiness = server.wait_until_ready(end);
    if let crate::lsp::client::Readiness::Exited(how) = &readiness.readiness {
        return FileDiagnostics::Unavailable(format!("{} crashed: {how}", server.id()));
    }
    // The server's own check run (rust-analyzer flycheck after didSave): wait for its end.
    if has_check_run(server) && (check.sync.changed || check.sync.opened) {
        let finished = server.wait_for_check_run(check.check_runs_started_before, Duration::from_millis(1500), end);
        if !finished && Instant::now() >= end {
            return FileDiagnostics::Unavailable(format!(
                "{}'s check (cargo check) did not finish within the {} ms budget",
                server.id(),
                supervisor.config().write_diagnostics_check_budget.as_millis()
            ));
        }
    }
    let pull_supported = server.supports("textDocument/diagnostic");
    let pulled: Option<Vec<Value>> = if pull_supported {
        match server.pull_diagnostics(path, end) {
            Ok(pulled) => pulled,
            Err(failure) => {
                notes.push(format!("pull failed: {}", failure.to_tool_error(server.id(), "textDocument/diagnostic").message));
                None
            }
        }
    } else {
        None
    };
    // Pushes: fresh = after the sync and for our version. A server that also offers pull may
    // push nothing (pyright with pull registered): then the settle window is all we wait.
    let unchanged = !check.sync.changed && !check.sync.opened;
    let mut pushed: Option<Vec<Value>> = None;
    if unchanged {
        pushed = server.published_diagnostics(path).map(|set| set.diagnostics);
    } else {
        let push_end = if pulled.is_some() && !has_check_run(server) { (Instant::now() + settle).min(end) } else { end };
        let mut after = check.sync.generation_before;
        while let Some(set) = server.wait_for_published_diagnostics(path, after, settle, push_end) {
            match set.version {
                Some(version) if version != i64::from(check.sync.version) => after = set.generation,
                _ => {
                    pushed = Some(set.diagnostics);
                    break;
                }
            }
            if Instant::now() >= push_end {
                break;
            }
        }
    }
    if pulled.is_none() && pushed.is_none() {
        if let Some(how) = server.exit_description() {
            return FileDiagnostics::Unavailable(format!("{} crashed: {how}", server.id()));
        }
        if has_check_run(server) && !unchanged {
            // rust-analyzer publishes nothing for a file that had and has no check errors.
            pushed = Some(Vec::new());
            notes.push("no check errors published for this file".to_owned());
        } else {
            let state = server.readiness().describe();
            return FileDiagnostics::Unavailable(format!(
                "{} published no diagnostics for this version within {} ms (server {state})",
                server.id(),
                check.budget.as_millis()
            ));
        }
    }
    let pulled = without_exact_duplicates(pulled.unwrap_or_default());
    let pushed = pushed.map(without_exact_duplicates);
    let mut records: Vec<DiagnosticRecord> = pulled.iter().filter_map(|d| DiagnosticRecord::from_lsp(path, d)).collect();
    let from_pull: Vec<(Option<String>, u32)> = records.iter().map(|r| (r.code.clone(), r.line)).collect();
    for diagnostic in pushed.unwrap_or_default() {
        if let Some(record) = DiagnosticRecord::from_lsp(path, &diagnostic) {
            if !from_pull.contains(&(record.code.clone(), record.line)) {
                records.push(record);
            }
        }
    }
    records.sort_by_key(|record| (record.severity, record.line));
    FileDiagnostics::Fresh { server_id: server.id().to_owned(), records, notes }
}

/// Drops LSP diagnostics identical in every field (range, severity, code, source, message) to
/// an earlier one: the same finding reported twice is one finding. (Seen once under load in a
/// pyright answer; two findings that differ only in column stay two.)
fn without_exact_duplicates(diagnostics: Vec<Value>) -> Vec<Value> {
    // Keyed by the serialized diagnostic (serde_json's maps are ordered, so equal values
    // serialize equally): linear in the number of diagnostics.
    let mut seen = std::collections::HashSet::with_capacity(diagnostics.len());
    diagnostics.into_iter().filter(|diagnostic| seen.insert(diagnostic.to_string())).collect()
}

/// Seeds the ledger for every path of `paths` not seeded yet: syncs its current (pre-write)
/// content and records the diagnostics as known. Files no server serves, and files that do not
/// exist (about to be created: their baseline is empty), are seeded empty.
pub fn seed_files(supervisor: &LspSupervisor, paths: &[PathBuf], deadline: Instant) {
    let ledger = supervisor.diagnostics_ledger();
    let mut to_check = Vec::new();
    for path in paths {
        if ledger.is_seeded(path) {
            continue;
        }
        if !path.is_file() {
            ledger.seed(path, &[]);
            continue;
        }
        to_check.push(path.clone());
    }
    if to_check.is_empty() {
        return;
    }
    for (path, outcome) in check_files(supervisor, &to_check, deadline) {
        match outcome {
            FileDiagnostics::Fresh { records, .. } => ledger.seed(&path, &records),
            FileDiagnostics::NotServed => ledger.seed(&path, &[]),
            FileDiagnostics::Unavailable(_) => (),
        }
    }
}

/// Checks `written` (absolute paths) and renders the diagnostics-on-write block: new
/// diagnostics per file (errors; warnings when configured; at most the configured cap per file
/// with "showing N of M"), `diagnostics unavailable: <reason>` where there is no trustworthy
/// answer, and one line counting earlier-reported errors still unresolved. `None` when no
/// written file is served by a language server. Also returns the block as JSON.
pub fn diagnostics_block(supervisor: &LspSupervisor, written: &[PathBuf], deadline: Instant) -> Option<(String, Value)> {
    let config = supervisor.config();
    let ledger = supervisor.diagnostics_ledger();
    let mut existing = Vec::new();
    for path in written {
        if path.exists() {
            existing.push(path.clone());
        } else {
            ledger.forget(path);
        }
    }
    let outcomes = check_files(supervisor, &existing, deadline);
    if outcomes.iter().all(|(_, outcome)| matches!(outcome, FileDiagnostics::NotServed)) {
        return None;
    }
    let wanted = |severity: Severity| severity == Severity::Error || (config.write_diagnostics_warnings && severity == Severity::Warning);
    let mut lines: Vec<String> = Vec::new();
    let mut files_json = Vec::new();
    let mut unresolved = 0;
    let mut total_new = 0;
    for (path, outcome) in &outcomes {
        let display = supervisor.display_path(path);
        match outcome {
            FileDiagnostics::NotServed => (),
            FileDiagnostics::Unavailable(reason) => {
                lines.push(format!("{display}: diagnostics unavailable: {reason} (this is not a clean result)"));
                files_json.push(json!({"file": display, "status": "unavailable", "reason": reason}));
            }
            FileDiagnostics::Fresh { server_id, records, notes } => {
                let seeded = ledger.is_seeded(path);
                let current: Vec<DiagnosticRecord> = records.iter().filter(|r| wanted(r.severity)).cloned().collect();
                let diff = ledger.record(path, &current);
                unresolved += diff.still_unresolved_errors;
                total_new += diff.new.len();
                let shown: Vec<&DiagnosticRecord> = diff.new.iter().take(config.write_diagnostics_cap_per_file).collect();
                if diff.new.is_empty() {
                    lines.push(format!(
                        "{display}: no new {} ({server_id})",
                        if config.write_diagnostics_warnings { "errors or warnings" } else { "errors" }
                    ));
                } else {
                    let count = if shown.len() < diff.new.len() {
                        format!("showing {} of {}", shown.len(), diff.new.len())
                    } else {
                        format!("{}", diff.new.len())
                    };
                    lines.push(format!("{display}: new diagnostics introduced by this write ({count}, {server_id}):"));
                    for record in &shown {
                        lines.push(format!("  {}", record.render(&display)));
                    }
                }
                if !seeded {
                    lines.push(format!(
                        "  note: {display} had no recorded pre-write state; any error listed may have existed before this write"
                    ));
                }
                for note in notes {
                    lines.push(format!("  note: {note}"));
                }
                files_json.push(json!({"file": display, "status": "checked", "server": server_id, "new": diff.new, "shown": shown.len(), "still_unresolved_errors": diff.still_unresolved_errors}));
            }
        }
    }
    if unresolved > 0 {
        let (noun, verb) = if unresolved == 1 { ("error", "is") } else { ("errors", "are") };
        lines.push(format!("{unresolved} earlier-reported {noun} in the written files {verb} still unresolved"));
    }
    let text = format!("Diagnostics after the write:\n{}", lines.join("\n"));
    Some((text, json!({"new_total": total_new, "still_unresolved_errors": unresolved, "files": files_json})))
}

/// The layer wired by `RunBuilder::build` when the run has language servers: seeds before
/// `write`, `edit` and `apply_patch` (from their `path`/`patch` arguments) and before `resolve`
/// with `action: "accept"` (from the staged edit's files), reports after every
/// tool that wrote files (`write`, `edit`, `apply_patch`, `resolve`, `lsp_rename`, host tools).
#[derive(Debug, Default)]
pub struct DiagnosticsOnWriteLayer;

impl PreCallLayer for DiagnosticsOnWriteLayer {
    fn before_call(&self, ctx: &CallContext<'_>, arguments: &Value) {
        let Some(supervisor) = ctx.find_resource::<LspSupervisor>() else { return };
        if !supervisor.config().write_diagnostics {
            return;
        }
        let root = supervisor.workspace_root();
        let mut paths: Vec<PathBuf> = Vec::new();
        match ctx.descriptor().name.as_str() {
            "write" | "edit" => {
                if let Some(path) = arguments.get("path").and_then(Value::as_str) {
                    paths.extend(crate::files::resolve_in_workspace(root, path).ok());
                }
            }
            "apply_patch" => {
                let Some(patch) = arguments.get("patch").and_then(Value::as_str) else { return };
                let Ok(patch) = crate::files::parse_patch(patch) else { return };
                for operation in &patch.operations {
                    paths.extend(crate::files::resolve_in_workspace(root, operation.path()).ok());
                    if let crate::files::FileOperation::Update { move_to: Some(to), .. } = operation {
                        paths.extend(crate::files::resolve_in_workspace(root, to).ok());
                    }
                }
            }
            "resolve" => {
                if arguments.get("action").and_then(Value::as_str) != Some("accept") {
                    return;
                }
                let Some(edit_id) = arguments.get("edit_id").and_then(Value::as_str) else { return };
                let Some(structural) = ctx.find_resource::<crate::structural::StructuralResource>() else { return };
                paths.extend(structural.staged_edits.pending_paths(edit_id).unwrap_or_default());
            }
            _ => return,
        }
        paths.retain(|path| supervisor.servers().any(|definition| definition.serves(path)));
        if paths.is_empty() {
            return;
        }
        // Seeding may use at most half of the call's remaining budget.
        let deadline = Instant::now() + ctx.remaining() / 2;
        seed_files(supervisor, &paths, deadline);
    }
}

impl PostWriteLayer for DiagnosticsOnWriteLayer {
    fn after_write(&self, ctx: &CallContext<'_>, written_paths: &[PathBuf], result: &mut ToolResult) {
        let Some(supervisor) = ctx.find_resource::<LspSupervisor>() else { return };
        if !supervisor.config().write_diagnostics || result.is_error {
            return;
        }
        // The write already succeeded: give the check the larger of the remaining budget and the
        // per-server budget (plus the check run's for rust-analyzer).
        let budget = supervisor.config().write_diagnostics_check_budget.max(ctx.remaining());
        let deadline = Instant::now() + budget;
        if let Some((text, structured)) = diagnostics_block(supervisor, written_paths, deadline) {
            result.push_text(text);
            if let Some(Value::Object(map)) = result.structured_content.as_mut() {
                map.insert("diagnostics_on_write".to_owned(), structured);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(line: u32, message: &str) -> DiagnosticRecord {
        DiagnosticRecord {
            path: PathBuf::from("/w/a.py"),
            line,
            severity: Severity::Error,
            code: Some("E1".into()),
            message: message.into(),
            source: None,
        }
    }

    #[test]
    fn ledger_reports_only_new_instances_and_forgets_fixed_keys() {
        let ledger = DiagnosticsLedger::default();
        let path = Path::new("/w/a.py");
        ledger.seed(path, &[record(3, "old")]);
        let diff = ledger.record(path, &[record(3, "old"), record(9, "boom")]);
        assert_eq!(diff.new, vec![record(9, "boom")]);
        assert_eq!(diff.still_unresolved_errors, 0);
        // Moved down four lines: not new; reported earlier and still there.
        let diff = ledger.record(path, &[record(3, "old"), record(13, "boom")]);
        assert!(diff.new.is_empty());
        assert_eq!(diff.still_unresolved_errors, 1);
        // Same message twice: the second instance is new.
        let diff = ledger.record(path, &[record(3, "old"), record(13, "boom"), record(20, "boom")]);
        assert_eq!(diff.new, vec![record(20, "boom")]);
        // Fixed, then reintroduced: reported again.
        assert!(ledger.record(path, &[record(3, "old")]).new.is_empty());
        assert_eq!(ledger.record(path, &[record(3, "old"), record(5, "boom")]).new, vec![record(5, "boom")]);
    }

    #[test]
    fn hints_and_tag_only_diagnostics_are_dropped() {
        let path = Path::new("/w/a.py");
        assert!(DiagnosticRecord::from_lsp(path, &json!({"severity": 4, "message": "x", "range": {"start": {"line": 0}}})).is_none());
        assert!(DiagnosticRecord::from_lsp(path, &json!({"severity": 2, "tags": [1], "message": "unused"})).is_none());
        let kept =
            DiagnosticRecord::from_lsp(path, &json!({"severity": 1, "code": 2322, "message": "a\n  b", "range": {"start": {"line": 4}}}))
                .unwrap();
        assert_eq!((kept.line, kept.code.as_deref(), kept.message.as_str()), (5, Some("2322"), "a b"));
    }
    #[test]
    fn identical_diagnostics_collapse_and_different_columns_do_not() {
        let at = |character: u64| {
            json!({"range": {"start": {"line": 2, "character": character}, "end": {"line": 2, "character": character + 3}},
                   "severity": 1, "code": "reportReturnType", "message": "Type \"str\" is not assignable"})
        };
        let kept = without_exact_duplicates(vec![at(4), at(4), at(9)]);
        assert_eq!(kept, vec![at(4), at(9)]);
    }
}
