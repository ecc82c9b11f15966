//! Language servers: the supervisor, the `lsp` tool (tier read), status and reload.
//!
//! - `servers`: the server table as data ([`ServerDefinition`], [`builtin_servers`]), root
//!   detection (`find_root`) and binary resolution (`resolve_binary`) — the two halves of the
//!   per-call intersection (R-LSP-2).
//! - `supervisor`: [`LspSupervisor`], one process per (server id, root), started lazily,
//!   restarted with backoff after a crash (documents reopened, the answer says so), stopped when
//!   the run drops.
//! - `client`: `LanguageServer`, one process: `initialize`, the owner thread pumping its
//!   messages, readiness, document sync, the diagnostics store (generation counters), requests
//!   with bounded ContentModified retries.
//! - `position`: line + symbol addressing (R-LSP-3) and UTF-8/16/32 column conversion.
//! - `tool`: the `lsp` tool: ops, output written for an LLM.
//! - `hierarchy`: the `lsp` ops `incoming_calls`, `outgoing_calls`, `supertypes`, `subtypes`
//!   (call and type hierarchies, followed up to 3 levels, call sites per caller).
//! - `code_action`: what `lsp` code_actions lists and `lsp_code_action` (tier write), which
//!   applies or stages one; a server's `workspace/applyEdit` is applied only while it runs.
//! - `outline`: a file's outline from `documentSymbol` (source order, tree, readable kinds,
//!   parameters and locals marked).
//! - `listing`: pages of long lists (`offset`, "showing A–B of N; next: offset=B") and paths of
//!   dependency code shortened to package + path inside it.
//! - `pyright_scope`: which Python files pyright checks under a root (its configuration's
//!   `include`/`exclude`/`ignore`, read as pyright reads them), so `"*"`, workspace symbols and
//!   implementations name the files it never looked at.
//! - `trust`: what a restricted run turns off per server and checker (workspace trust).
//! - [`confinement`]: which hierarchies a server or checker may read and write under Landlock
//!   (issue 13 §1: a symlink leading out of the checkout makes the server's own read fail).
//! - `go_interface_references`: gopls' references at an interface method, completed with its
//!   implementing methods' references (gopls misses a different part of them on each call).
//! - `go_implementation_renames`: the next step of a Go interface-method rename that leaves its
//!   implementations: gopls asked whether it renames each alone, `lsp_rename` at each it accepts.
//! - `go_format_check`: whether a Go rename leaves files gofmt would change (`gofmt -l` on the
//!   planned texts).
//! - `go_rename_refusals`: gopls's rename refusals said once, with the declaration they name.
//! - `go_vet_before_write`: the vet findings `go test` fails on, on the text before a write
//!   (`go vet` in a temporary module), when gopls had no pre-write state for their files.
//! - `uri`: `file://` URIs ↔ paths.
//!
//! Wiring: [`crate::RunBuilder::language_servers`] creates the supervisor from
//! [`crate::RunConfig::lsp`] and registers `lsp` (R-LSP-1). A host renders status with
//! [`LspSupervisor::status`] (`to_text()` / `to_json()`).
//!
//! Architecture invariant: `lsp_types` stays inside this module; tool outputs are our own text
//! and JSON.

pub(crate) mod call_aliases;
pub(crate) mod cargo_features;
pub(crate) mod cfg_off_modules;
pub(crate) mod checker;
pub(crate) mod client;
pub(crate) mod code_action;
pub(crate) mod cold_check;
pub mod confinement;
pub(crate) mod dependents;
pub(crate) mod diagnostics_on_write;
pub(crate) mod doc_tests;
pub(crate) mod go_build_twins;
pub(crate) mod go_dynamic_interfaces;
pub(crate) mod go_format_check;
pub(crate) mod go_implementation_renames;
pub(crate) mod go_imports;
pub(crate) mod go_interface_references;
pub(crate) mod go_method_uses;
pub(crate) mod go_rename_refusals;
pub(crate) mod go_unbuilt_users;
pub(crate) mod go_vet_before_write;
pub(crate) mod hierarchy;
pub(crate) mod inactive;
pub(crate) mod listing;
pub(crate) mod loading_lookups;
pub(crate) mod outline;
pub(crate) mod output;
pub(crate) mod position;
pub(crate) mod prefetch_states;
pub(crate) mod project_scope;
pub(crate) mod pyright_blind_spots;
pub(crate) mod pyright_scope;
pub(crate) mod pytest_doctest_files;
pub(crate) mod python_doctests;
pub(crate) mod python_stub_bindings;
pub(crate) mod python_typed_dict_keys;
pub(crate) mod rename;
pub(crate) mod rename_across_roots;
pub(crate) mod rename_asserted_literal_keys;
pub(crate) mod rename_attribute_objects;
pub(crate) mod rename_coverage;
pub(crate) mod rename_doc_links;
pub(crate) mod rename_inherited_members;
pub(crate) mod rename_local_scope;
pub(crate) mod rename_macro_arguments;
pub(crate) mod rename_overrides;
pub(crate) mod rename_partial_receivers;
pub(crate) mod rename_public_api;
pub(crate) mod rename_public_names;
pub(crate) mod rename_public_typescript;
pub(crate) mod rename_pytest_fixtures;
pub(crate) mod rename_python_imports;
pub(crate) mod rename_taken_names;
pub(crate) mod rename_taken_names_items;
pub(crate) mod rename_test_discovery;
pub(crate) mod rust_answer_checks;
pub(crate) mod rust_cfg_off_occurrences;
pub(crate) mod rust_derive_references;
pub(crate) mod rust_reexport_paths;
pub(crate) mod servers;
pub(crate) mod sibling_roots;
pub(crate) mod string_keys;
pub(crate) mod supervisor;
pub(crate) mod syntax;
pub(crate) mod tool;
pub(crate) mod trust;
pub(crate) mod tsconfig_load;
pub(crate) mod typescript_build_mode;
pub(crate) mod typescript_build_output;
pub(crate) mod uri;
pub(crate) mod write_ledger_rules;

use std::ffi::OsString;
use std::time::Duration;

pub(crate) use client::{PublishedDiagnostics, Readiness, StoredDiagnostics};
/// The margin a write's diagnostics check may run past [`LspConfig::write_diagnostics_budget`].
pub use diagnostics_on_write::WRITE_BUDGET_MARGIN;
pub use servers::{builtin_servers, ProjectSettings, ReadinessSignal, RootStrategy, ServerDefinition, WriteCheck};
pub use supervisor::{InterpreterStatus, LspStatus, LspSupervisor, RootStatus, RunningStatus, ServerStatus};

/// Timeouts, caps and the server table of the LSP area ([`crate::RunConfig::lsp`]).
#[derive(Debug, Clone)]
pub struct LspConfig {
    /// Host entries merged into [`builtin_servers`]: same id replaces, a new id is appended.
    pub servers: Vec<ServerDefinition>,
    /// Server ids never started (e.g. `["pylsp"]`).
    pub disabled_servers: Vec<String>,
    /// The directory list used to resolve binaries (after the project-local bin dirs), in
    /// `PATH` syntax. `None` (default): the process's `PATH` at call time.
    pub search_path: Option<OsString>,
    /// Budget of the `initialize` handshake. Default 30 s.
    pub initialize_timeout: Duration,
    /// How long a navigation op waits for a server that is still indexing before answering with
    /// what it has (and saying so). Default 15 s; always bounded by the call's deadline. A file
    /// outline (`symbols` with `file`) is asked at once and waits only when a server that is not
    /// ready yet answered it with no symbol.
    pub indexing_wait: Duration,
    /// How long `diagnostics` waits for a server's answer (pull) or first publish after a sync;
    /// it returns as soon as one arrives. Default 30 s (bounded by the call's deadline): pyright
    /// analysing a test module of a real project against its installed dependencies (attrs'
    /// `tests/test_funcs.py` with pytest and hypothesis in the venv) publishes after ~10-20 s
    /// cold on 2 cores; a shorter wait answered "unavailable" on every retry until it had.
    pub diagnostics_wait: Duration,
    /// First delay before restarting a server that crashed soon after starting; doubles per
    /// consecutive failure up to [`LspConfig::restart_backoff_max`]. Default 250 ms.
    pub restart_backoff_initial: Duration,
    /// Longest restart delay. Default 8 s.
    pub restart_backoff_max: Duration,
    /// After a server fails to *start* (spawn error, `initialize` error or timeout), calls within
    /// this delay answer at once with that failure and when the next attempt is allowed, instead
    /// of waiting for another start; doubles per consecutive start failure up to
    /// [`LspConfig::start_failure_backoff_max`]. `lsp` op `reload` retries at once. Default 30 s.
    pub start_failure_backoff_initial: Duration,
    /// Longest delay between start attempts of a server that keeps failing to start. Default
    /// 5 min.
    pub start_failure_backoff_max: Duration,
    /// `references`: locations shown per page (`offset` pages on). Default 50.
    pub references_cap: usize,
    /// `symbols` with `query` (workspace): symbols shown per page. Default 100.
    pub workspace_symbols_cap: usize,
    /// `symbols` with `file` (the file's outline): entries shown per page. Default 200.
    pub document_symbols_cap: usize,
    /// `diagnostics` (file): diagnostics shown per page. Default 100.
    pub diagnostics_cap: usize,
    /// `definition`, `type_definition`, `implementation`: locations shown per page. Default 50.
    pub locations_cap: usize,
    /// `hover`: characters of hover text kept. Default 4000.
    pub hover_chars_cap: usize,
    /// `incoming_calls`, `outgoing_calls`, `supertypes`, `subtypes`: entries shown per page.
    /// Default 50.
    pub hierarchy_cap: usize,
    /// Hierarchy ops with `depth` > 1: most entries whose own callers / callees / types are asked
    /// per call (one request each); the others are listed and counted as not followed.
    /// Default 60.
    pub hierarchy_follow_cap: usize,
    /// Diagnostics on write (R-DOW-1) on or off. Default on.
    pub write_diagnostics: bool,
    /// Diagnostics on write also reports new warnings (errors always). Default off.
    pub write_diagnostics_warnings: bool,
    /// Diagnostics on write: new diagnostics shown per file ("showing N of M"). Default 20.
    pub write_diagnostics_cap_per_file: usize,
    /// Diagnostics on write: per-server cap on everything diagnostics on write adds to a write's
    /// call — the pre-write seeding, the pre-write states, the sync, the server's end-of-check
    /// signal, the states after, the written files' included — counted from the moment the
    /// server is loaded (its start and loading are bounded by the call's deadline and shown as
    /// the `readiness wait` phase); the wait ends at the server's own signal, this only bounds it
    /// (a first `fileReferences` of a large TypeScript project, a loaded machine). The call
    /// returns within this plus [`WRITE_BUDGET_MARGIN`] plus the
    /// tool's own work. Default 15 s.
    ///
    /// For servers checked file by file (pyright, basedpyright, clangd) the written files come
    /// first (their pre-write state within half of the budget), then the files that import them,
    /// nearest and most coupled first, their pre-write states within half of what is left; those
    /// not reached are named as not checked, with `lsp diagnostics "*"` as the next step, and
    /// (servers that answer pulls) opened after the call's last wait so the server analyses them
    /// in the background. A state pulled earlier is reused while nothing the server analyses has
    /// changed since (or only comments and whitespace of another file). Measured with pyright on
    /// python-dateutil on a loaded 2-core machine: a first check of an importer takes 0.6–7 s, a
    /// re-check after a write 0.02–3 s, so the first write checks a few importers and later
    /// writes all of them (the answer says which).
    pub write_diagnostics_budget: Duration,
    /// Diagnostics on write: the budget for a server with its own check run (rust-analyzer's
    /// flycheck = `cargo check`). Default 30 s.
    pub write_diagnostics_check_budget: Duration,
    /// Diagnostics on write: at most this many files that import a written file are checked
    /// besides it (servers without a project-wide check: tsserver, pyright, clangd); the answer
    /// says how many were found and which were not checked. Default 40.
    pub write_diagnostics_dependents_cap: usize,
    /// Diagnostics on write: a file's pulled diagnostics are reused as its state (no request)
    /// while nothing the server analyses changed since they were pulled, or only comments and
    /// whitespace of another file (`LanguageServer::remembered_pull`). Default on; off makes
    /// every state a pull (the bench compares both).
    pub write_diagnostics_reuse_pulled_states: bool,
    /// `diagnostics` with `file: "*"`: the project checker's time budget. Default 180 s (pyright
    /// checking python-dateutil took 132 s on a loaded 2-core machine). Capped by the `lsp`
    /// call's deadline (the tool's default timeout, 210 s, leaves 30 s beyond it for the root
    /// walk and the answer); a run killed by either says which budget ran out.
    pub checker_timeout: Duration,
    /// Every `lsp` op except `diagnostics "*"`: its waits (server start, indexing, the request)
    /// end this long after the call starts, or at the call's deadline if that comes first.
    /// Default 60 s. (The `lsp` tool's timeout is sized for the project checker; this keeps a
    /// server that never answers a navigation request from holding the call for as long.)
    pub request_budget: Duration,
    /// `diagnostics` with `file: "*"`: diagnostics shown per page. Default 100.
    pub checker_cap: usize,
}

impl Default for LspConfig {
    fn default() -> Self {
        LspConfig {
            servers: Vec::new(),
            disabled_servers: Vec::new(),
            search_path: None,
            initialize_timeout: Duration::from_secs(30),
            indexing_wait: Duration::from_secs(15),
            diagnostics_wait: Duration::from_secs(30),
            restart_backoff_initial: Duration::from_millis(250),
            restart_backoff_max: Duration::from_secs(8),
            start_failure_backoff_initial: Duration::from_secs(30),
            start_failure_backoff_max: Duration::from_secs(300),
            references_cap: 50,
            workspace_symbols_cap: 100,
            document_symbols_cap: 200,
            diagnostics_cap: 100,
            locations_cap: 50,
            hover_chars_cap: 4000,
            hierarchy_cap: 50,
            hierarchy_follow_cap: 60,
            write_diagnostics: true,
            write_diagnostics_warnings: false,
            write_diagnostics_cap_per_file: 20,
            write_diagnostics_budget: Duration::from_secs(15),
            write_diagnostics_check_budget: Duration::from_secs(30),
            write_diagnostics_dependents_cap: 40,
            write_diagnostics_reuse_pulled_states: true,
            checker_timeout: Duration::from_secs(180),
            request_budget: Duration::from_secs(60),
            checker_cap: 100,
        }
    }
}

/// Applies a `WorkspaceEdit` for a server's `workspace/applyEdit` request. The run plugs the
/// atomic applier of `lsp_rename` in here (`LspSupervisor::set_workspace_edit_applier`); without
/// one, the request is answered `{applied: false, failureReason}`.
///
/// A server's edit reaches the applier only inside an apply window (while `lsp_code_action`, a
/// write-tier tool, runs one of its commands — `LanguageServer::open_apply_edit_window`);
/// outside one it is refused, so no read-tier call can make a server write.
pub trait WorkspaceEditApplier: Send + Sync {
    /// Applies `edit` and returns the LSP `ApplyWorkspaceEditResult` (`applied`,
    /// `failureReason`).
    fn apply_workspace_edit(&self, edit: &lsp_types::WorkspaceEdit) -> lsp_types::ApplyWorkspaceEditResponse;

    /// [`WorkspaceEditApplier::apply_workspace_edit`] plus the absolute paths it wrote or deleted
    /// (so the calling tool reports them and diagnostics on write checks them). The default
    /// reports none.
    fn apply_workspace_edit_reporting(
        &self,
        edit: &lsp_types::WorkspaceEdit,
    ) -> (lsp_types::ApplyWorkspaceEditResponse, Vec<std::path::PathBuf>) {
        (self.apply_workspace_edit(edit), Vec::new())
    }
}

pub(crate) use tool::register_tools;

/// Unit tests of the WorkspaceEdit planner and applier (moved from `tests/it/lsp_rename.rs`).
#[cfg(test)]
mod rename_tests;

/// Unit tests of the lsp-side walks (served files, stamps, dependents, rename coverage, marker
/// scans) against a workspace directory that is, or is swapped for, a symlink to outside.
#[cfg(test)]
mod walk_confinement_tests;
