//! `lsp` `diagnostics` with `file: "*"`: the project checker. Runs the language's own checker
//! (not the language server: rust-analyzer has no workspace diagnostics, pyright checks open
//! files only) for each project root found in the workspace and converts its output into
//! [`DiagnosticRecord`]s (path, 1-based line, severity, code, message, source), sorted errors
//! first, in pages (`offset`; "showing A–B of N; next: offset=B"). A later page (`offset` > 0)
//! reuses the previous run while no file of the workspace changed (see [`CheckerCache`]); the
//! first page always runs the checkers again.
//!
//! | marker | checker |
//! |---|---|
//! | `Cargo.toml` | `cargo check --all-targets --keep-going --message-format=json` (lib, bins, tests, benches, examples: what rust-analyzer's own check covers; an error in a bench is an error of the project), plus the call's `--features` / `--all-features` / `--no-default-features`, in rust-analyzer's target directory (`--target-dir target/rust-analyzer`, or `$CARGO_TARGET_DIR/rust-analyzer`: what its flycheck built is reused, and `target/`'s build lock, held by the user's own cargo builds, is never waited for); then `cargo metadata --no-deps` for the features left off and the files gated on them ([`crate::lsp::cargo_features`]) |
//! | `pyproject.toml`, `setup.py`, `setup.cfg`, `requirements.txt`, `pyrightconfig.json` | `pyright --outputjson` (or `basedpyright`) |
//! | `tsconfig.json` | `tsc --noEmit -p tsconfig.json --pretty false`; with project `references`, `tsc -b tsconfig.json --pretty false` in a scratch mirror of the workspace ([`crate::lsp::typescript_build_mode`]) |
//! | `go.mod` | `go vet ./...` and `go build ./...` (a compile-only `go test` of the packages whose type errors stopped vet), `go list -e` of the module's packages, then `gopls check` of the files of the packages (and test packages) that import a package that failed to compile: go compiles none of them ([`GoCoverage`]); files excluded by build constraints are named NOT compiled |
//! | `pubspec.yaml` | `dart analyze --format=machine` |
//! | `compile_commands.json`, `compile_flags.txt` | `clang-tidy -p <root>` per source file (at most 50), else `clangd --check=<file>` |
//!
//! Roots: the outermost marker per checker wins. A Python marker in a folder with no `.py`/`.pyi`
//! files (a `docs/requirements.txt`) is not a project and starts no run; a Python root inside
//! another is covered by the outer run (pyright checks every Python file under its root) unless
//! it has its own `pyrightconfig.json` or `.venv`/`venv`. Both are said in the answer. A pyright
//! run also names the Python files under its root that its configuration's `include`/`exclude`
//! leave out (NOT checked: their errors are not in the counts) and those its `ignore` silences
//! ([`crate::lsp::pyright_scope`]), or says the configuration could not be read.
//!
//! Severities: the checker's own, except `go vet` analyzer findings (warnings, as gopls reports
//! them; type errors vet prints with a `vet: ` prefix stay errors) and `clangd --check`, which
//! logs errors only (warnings are not visible through that fallback; clang-tidy reports both).
//! The same finding from two steps (a type error from both `go vet` and `go build`) is listed
//! once, and each run's count is what it contributes after that. Each run honors the checker
//! timeout, capped by the call's deadline: a killed run says which of the two budgets ran out
//! (never that its output "could not be parsed"), and lists only what it had printed when
//! line-based output allows it. A missing checker says which binaries were looked for; when no
//! checker could run at all the call fails (`unavailable`) instead of answering "0 errors".

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::lsp::cargo_features::{FeatureSelection, PackageFeatures};
use crate::lsp::diagnostics_on_write::{DiagnosticRecord, Severity};
use crate::lsp::listing::{workspace_fingerprint, Fingerprint};
use crate::lsp::output::{CheckDelta, CheckerDiagnostic, CheckerRunSummary, DiagnosticsOp, LspOutput, PageWindow, WorkspaceCheck};
use crate::lsp::supervisor::LspSupervisor;
use crate::registry::ToolOutput;
use crate::render::plural;
use crate::result::ToolResult;
use crate::transport::process::{run_to_completion, ProcessSpec};
use crate::trust::{restricted_search_path, WorkspaceTrust};

/// The checkers, as data: (name, root markers).
const CHECKERS: &[(&str, &[&str])] = &[
    ("cargo", &["Cargo.toml"]),
    ("pyright", PYRIGHT_MARKERS),
    ("tsc", &["tsconfig.json"]),
    ("go", &["go.mod"]),
    ("dart", &["pubspec.yaml"]),
    ("clang", &["compile_commands.json", "compile_flags.txt"]),
];

/// Root markers of Python projects, in the order pyright's configuration is preferred.
const PYRIGHT_MARKERS: &[&str] = &["pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"];

/// The outcome of one checker run on one root.
#[derive(Debug, Clone)]
pub struct CheckerRun {
    /// The command line run, e.g. `cargo check --message-format=json`.
    pub command: String,
    /// The root it ran in.
    pub root: PathBuf,
    /// The diagnostics found.
    pub records: Vec<DiagnosticRecord>,
    /// Problems running it (timeout, missing binary, unparseable output).
    pub problem: Option<String>,
    /// Whether a step was killed because a budget ran out (`problem` says which).
    pub timed_out: bool,
    /// Wall time.
    pub elapsed: Duration,
    /// Python roots: the interpreter pyright was given (`--pythonpath`) and why, e.g.
    /// `.venv/bin/python (from .venv beside pyproject.toml)`, or why none resolved.
    pub interpreter: Option<String>,
    /// Restricted runs: what restricted mode changed for this checker (see
    /// [`crate::lsp::trust`]), e.g. `the project's node_modules/.bin/tsc is not run`.
    pub restricted: Option<String>,
    /// The checker was not run because it would run the checkout's code (`cargo check`,
    /// `dart analyze` in a restricted run); `problem` says why.
    pub refused_by_trust: bool,
    /// Cargo runs: each workspace member's features against what the check enabled (which
    /// were off, where code is gated on them), or why they could not be read.
    pub features: Option<Result<Vec<PackageFeatures>, String>>,
    /// Cargo runs: `compile_error!` diagnostics (`path:line: message`), which a crate uses to
    /// refuse a combination of features (mutually exclusive ones under `--all-features`).
    pub compile_errors: Vec<String>,
    /// Cargo runs: the `cargo:warning=` lines the workspace's build scripts printed, as
    /// `package@version: message` (see [`build_script_warnings`]; trial28 M12).
    pub build_script_warnings: Vec<String>,
    /// Cargo runs: the workspace members' module files under a `#[cfg]` off in this check other
    /// than a feature gate (see [`crate::lsp::cfg_off_modules::modules_not_compiled`]).
    pub modules_not_compiled: Vec<crate::lsp::cfg_off_modules::ModuleNotCompiled>,
    /// Cargo runs: `.rs` files of the workspace members not read for `modules_not_compiled`
    /// (a cap of 3,000 per package; 0 normally).
    pub modules_files_not_read: usize,
    /// Cargo runs: the workspace members' items behind a `#[cfg]` off on this host for the
    /// target (`#[cfg(windows)]` on Linux), which no check here compiles whatever its features
    /// (see [`crate::lsp::cfg_off_modules::items_behind_off_target_cfgs`]; trial167 F2).
    pub items_behind_off_target_cfgs: Vec<crate::lsp::cfg_off_modules::TargetGatedFile>,
    /// Cargo runs: the `cargo check --target` steps that compile `items_behind_off_target_cfgs`:
    /// the triple, how many of the items it adds, and whether the target's standard library is
    /// installed in the toolchain's sysroot (`None`: unknown).
    pub target_check_steps: Vec<(String, usize, Option<bool>)>,
    /// Cargo runs: the workspace members' targets cargo never compiled in this check (a
    /// library they depend on failed, the check stopped, or `required-features` are off):
    /// their diagnostics are unknown, not clean.
    pub targets_not_checked: Vec<UncheckedCargoTarget>,
    /// Why a step ran without the file-access confinement it was asked for (Landlock
    /// unavailable, see [`crate::lsp::confinement`]); `None` when confined or not asked.
    pub not_confined: Option<String>,
    /// pyright runs: the Python files under the root that pyright's configured scope leaves out
    /// (NOT checked) or silences (`ignore`), or why the configuration could not be read; `None`
    /// for other checkers and for a pyright run without a configuration that restricts it.
    pub python_scope: Option<PythonScopeOutcome>,
    /// Go runs: what `go list` says the compiler never type-checked (packages importing a
    /// package that failed to compile, files excluded by build constraints), and whether
    /// `gopls check` type-checked the former instead; `None` for other checkers or when `go
    /// list` did not run (its problem is in `problem`).
    pub go_coverage: Option<GoCoverage>,
    /// Go runs: the `go vet` findings (warnings in `records`) of the analyzers `go test` runs
    /// before the tests (`go help test`'s subset: printf, errorsas, …, see
    /// [`crate::lsp::write_ledger_rules::go_test_vet_analyzers`]): while one is there, `go test`
    /// refuses to build that package's tests, so a warning here is as blocking as an error
    /// (trial44 M7). Found by a second `go vet` with only those analyzers, over the packages
    /// whose `go vet` printed findings; empty when there were none.
    pub go_test_vet_findings: Vec<DiagnosticRecord>,
    /// Cargo runs: the features this run was given, which with several cargo roots is the call's
    /// selection narrowed to what its package declares (the first root too, unless a feature is
    /// declared by no root: then it gets the whole selection; see
    /// [`crate::lsp::cargo_features::selection_for_other_root`]).
    pub selection: FeatureSelection,
    /// Cargo runs with several cargo roots: what of the call's selection was left out for this
    /// root, and why.
    pub selection_left_out: Vec<String>,
    /// tsc of a config with project references: how its build-mode run went (`tsc -b` in a
    /// scratch mirror, [`crate::lsp::typescript_build_mode`]), for the answer (trial176 F1–F3).
    pub build_mode: Option<String>,
}

/// What a Go run's compiler steps (`go vet`, `go build`, `go test` compiling) never type-checked,
/// from `go list -e` of the module's packages (issue 11, trial22 F3/F5).
#[derive(Debug, Clone, Default)]
pub struct GoCoverage {
    /// Packages (and test packages) of the module that import, directly or not, a package that
    /// failed to compile: go builds nothing that depends on a failed package, so their own
    /// errors never reach its output.
    pub packages_not_compiled: Vec<GoPackageNotCompiled>,
    /// `gopls check` type-checked the files of `packages_not_compiled` (it type-checks a
    /// package whatever its imports' errors); its findings are in the run's records with the
    /// source `gopls check`. `false`: they are NOT checked (the run's `problem` says why).
    pub checked_by_gopls: bool,
    /// Go files of the module's packages that the build constraints (`//go:build` lines, file
    /// name suffixes) exclude for the GOOS/GOARCH/tags in force (`go list`'s `IgnoredGoFiles`):
    /// no step compiled them.
    pub excluded_by_build_constraints: Vec<GoConstrainedFile>,
    /// Packages (as `go vet` names them) whose vet run stopped at type errors: vet's analyzers
    /// (printf and the others `go test` runs) did not run on them, so a finding there is unknown,
    /// not absent (trial63 M4: golang-set's `internal/usage`, whose test files did not
    /// type-check, hid a printf finding in its non-test code).
    pub vet_analyzers_not_run: Vec<String>,
    /// `go vet` stopped at a load error (an import no module provides, a missing package)
    /// before analysing any package: every analyzer finding is unknown, not absent (trial73 F1:
    /// hashicorp/go-version's printf finding disappeared next to a test file's broken import).
    pub vet_stopped_at_load_error: bool,
}

/// A package (or a package's test files) the Go compiler never type-checked because a package it
/// imports failed to compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoPackageNotCompiled {
    /// Its import path; ` (tests)` follows it when only its `_test.go` files are concerned.
    pub package: String,
    /// Its files that were not compiled (absolute).
    pub files: Vec<PathBuf>,
    /// The failed package it imports (the first found, by import path).
    pub failed_import: String,
}

/// A Go file excluded by build constraints, and the command that compiles it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoConstrainedFile {
    /// The file (absolute).
    pub path: PathBuf,
    /// Its constraint terms, e.g. `appengine js`, or its file-name suffix.
    pub terms: String,
    /// A command that compiles it, e.g. `GOOS=js GOARCH=wasm go vet -tags=appengine ./util`.
    pub check_command: String,
    /// How to check it, for the answer: `check with `…`` or, for a file only an older Go
    /// toolchain builds (`!go1.10`), that no command here does.
    pub check_sentence: String,
}

/// What a pyright run's configuration leaves unchecked under its root (see
/// [`crate::lsp::pyright_scope`]).
#[derive(Debug, Clone)]
pub enum PythonScopeOutcome {
    /// The configuration was read.
    Read {
        /// Where: `pyproject.toml [tool.pyright]`, `pyrightconfig.json`.
        source: String,
        /// The settings that decide it: `include = src/pkg`.
        settings: String,
        /// The Python files it leaves out or silences.
        files: crate::lsp::pyright_scope::FilesOutsideScope,
    },
    /// It could not be read: the sentence says which file and why.
    Unreadable(String),
}

/// A build target of a workspace member that a `cargo check --all-targets` did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncheckedCargoTarget {
    /// The package it belongs to.
    pub package: String,
    /// The target.
    pub target: crate::lsp::cargo_features::CargoTarget,
    /// Why cargo did not compile it.
    pub reason: UncheckedCargoTargetReason,
}

/// Why cargo did not compile a target (see [`cargo_targets_not_checked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UncheckedCargoTargetReason {
    /// The package's library, which every other target of it depends on, failed to compile:
    /// cargo does not start its dependents.
    LibraryFailed {
        /// The library's name.
        library: String,
    },
    /// `required-features` not enabled in the check: cargo skips the target silently.
    RequiredFeatures {
        /// The required features that were off.
        missing: Vec<String>,
    },
    /// No artifact and no message for it: something it depends on failed, or the check
    /// stopped first.
    NotReached,
}

impl UncheckedCargoTarget {
    /// `benches/bench.rs (bench `bench`): not compiled because the library `indexmap` failed`,
    /// the path shown by `display_path`.
    pub fn render(&self, display_path: impl Fn(&Path) -> String) -> String {
        let why = match &self.reason {
            UncheckedCargoTargetReason::LibraryFailed { library } => {
                format!("not compiled: it depends on the library `{library}`, which failed to compile")
            }
            UncheckedCargoTargetReason::RequiredFeatures { missing } => {
                format!("skipped by cargo: its required-features {} are not enabled", missing.join(", "))
            }
            UncheckedCargoTargetReason::NotReached => "not compiled: something it depends on failed, or the check stopped first".to_owned(),
        };
        format!("{} ({} `{}`): {why}", display_path(&self.target.src_path), self.target.kind, self.target.name)
    }
}

/// The targets of `packages` (the workspace members, with their targets from `cargo metadata`)
/// that a `cargo check --all-targets --message-format=json` whose stdout is `stdout` never
/// compiled: cargo prints a `compiler-artifact` (fresh or built) or a `compiler-message` for every
/// target it compiles, keyed here by the target's `src_path`; a target with neither was not
/// compiled. Its reason: its package's library has an error (cargo never starts a library's
/// dependents), its `required-features` are not all in the package's enabled features, or
/// neither (not reached).
pub fn cargo_targets_not_checked(stdout: &str, packages: &[PackageFeatures]) -> Vec<UncheckedCargoTarget> {
    let mut compiled: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut failed: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        let reason = message.get("reason").and_then(Value::as_str);
        if !matches!(reason, Some("compiler-artifact" | "compiler-message")) {
            continue;
        }
        let Some(src_path) = message.pointer("/target/src_path").and_then(Value::as_str) else { continue };
        let src_path = PathBuf::from(src_path);
        if reason == Some("compiler-message") && message.pointer("/message/level").and_then(Value::as_str) == Some("error") {
            failed.insert(src_path.clone());
        }
        compiled.insert(src_path);
    }
    let mut out = Vec::new();
    for package in packages {
        let library = package.targets.iter().find(|target| target.kind == "lib");
        let library_failed = library.filter(|lib| failed.contains(&lib.src_path));
        for target in &package.targets {
            if compiled.contains(&target.src_path) {
                continue;
            }
            let missing: Vec<String> =
                target.required_features.iter().filter(|feature| !package.enabled.contains(feature)).cloned().collect();
            let reason = if !missing.is_empty() {
                UncheckedCargoTargetReason::RequiredFeatures { missing }
            } else if let Some(library) = library_failed.filter(|library| library.src_path != target.src_path) {
                UncheckedCargoTargetReason::LibraryFailed { library: library.name.clone() }
            } else {
                UncheckedCargoTargetReason::NotReached
            };
            out.push(UncheckedCargoTarget { package: package.package.clone(), target: target.clone(), reason });
        }
    }
    out
}

/// The last `"*"` run of a supervisor, kept so that later pages do not run the checkers again.
/// It is reused only while the workspace fingerprint
/// ([`crate::lsp::listing::workspace_fingerprint`]) is the same.
#[derive(Debug, Default)]
pub struct CheckerCache {
    last: parking_lot::Mutex<Option<CachedCheck>>,
    /// The last full check (offset 0) and what changed since the one before it, for the next
    /// check's comparison and for its own later pages.
    last_full: parking_lot::Mutex<Option<(FullCheck, Option<CheckDelta>)>>,
}

/// A `"*"` check as the next one is compared with it ([`CheckerCache::compare_and_remember`]).
#[derive(Debug, Clone)]
struct FullCheck {
    selection: FeatureSelection,
    /// (command, root) of each checker run.
    runs: Vec<(String, PathBuf)>,
    at: Instant,
    records: Vec<DiagnosticRecord>,
    complete: bool,
}

/// The most new (and gone) diagnostics a `"*"` answer lists since the previous check.
pub const DELTA_LISTED: usize = 20;

/// A stored `"*"` run: the workspace fingerprint and feature selection it ran under, when, and
/// its runs.
type CachedCheck = (Fingerprint, FeatureSelection, Instant, Vec<CheckerRun>);

impl CheckerCache {
    fn reuse(&self, fingerprint: &Fingerprint, selection: &FeatureSelection) -> Option<(Instant, Vec<CheckerRun>)> {
        let last = self.last.lock();
        let (stored, stored_selection, at, runs) = last.as_ref()?;
        (stored == fingerprint && stored_selection == selection).then(|| (*at, runs.clone()))
    }

    fn store(&self, fingerprint: Fingerprint, selection: &FeatureSelection, runs: &[CheckerRun]) {
        *self.last.lock() = Some((fingerprint, selection.clone(), Instant::now(), runs.to_vec()));
    }

    /// Compares a full check (`records`, deduplicated, of `runs`) with the previous one of the
    /// run that had the same checkers and features, remembers it for the next, and returns the
    /// change (`None` for a first check, or after a change of checkers or features).
    fn compare_and_remember(
        &self,
        selection: &FeatureSelection,
        runs: &[CheckerRun],
        records: &[DiagnosticRecord],
        supervisor: &LspSupervisor,
    ) -> Option<CheckDelta> {
        let current = FullCheck {
            selection: selection.clone(),
            runs: runs.iter().map(|run| (run.command.clone(), run.root.clone())).collect(),
            at: Instant::now(),
            records: records.to_vec(),
            complete: runs.iter().all(|run| run.problem.is_none()),
        };
        let mut last = self.last_full.lock();
        let delta = last
            .as_ref()
            .filter(|(previous, _)| previous.selection == current.selection && previous.runs == current.runs)
            .map(|(previous, _)| check_delta(previous, &current, supervisor));
        *last = Some((current, delta.clone()));
        delta
    }

    /// The change [`CheckerCache::compare_and_remember`] found for the last full check (its later
    /// pages say it too).
    fn last_delta(&self) -> Option<CheckDelta> {
        self.last_full.lock().as_ref().and_then(|(_, delta)| delta.clone())
    }
}

/// What changed from `previous` to `current`: per (file, severity, code, message), the instances
/// beyond the other check's count — those on a line the other check had no such instance on
/// named first.
fn check_delta(previous: &FullCheck, current: &FullCheck, supervisor: &LspSupervisor) -> CheckDelta {
    type Key = (PathBuf, Severity, Option<String>, String);
    // Paths cut from the message: one rustc error merged from a crate's `lib` and `lib test`
    // builds keeps whichever wording came first, which may change from one check to the next
    // (review46 #2).
    let key = |record: &DiagnosticRecord| -> Key {
        (
            record.path.clone(),
            record.severity,
            record.code.clone(),
            crate::lsp::write_ledger_rules::without_path_qualifiers(&record.message),
        )
    };
    let beyond = |from: &[DiagnosticRecord], other: &[DiagnosticRecord]| -> Vec<DiagnosticRecord> {
        let mut other_counts: HashMap<Key, usize> = HashMap::new();
        let mut other_lines: HashSet<(Key, u32)> = HashSet::new();
        for record in other {
            *other_counts.entry(key(record)).or_default() += 1;
            other_lines.insert((key(record), record.line));
        }
        // Grouped by key in a map, keys kept in first-seen order (review46 #15: a linear search
        // per record was quadratic on a project with 10,000 diagnostics).
        let mut order: Vec<Key> = Vec::new();
        let mut by_key: HashMap<Key, Vec<&DiagnosticRecord>> = HashMap::new();
        for record in from {
            let record_key = key(record);
            by_key
                .entry(record_key.clone())
                .or_insert_with(|| {
                    order.push(record_key);
                    Vec::new()
                })
                .push(record);
        }
        let mut extra = Vec::new();
        for record_key in order {
            let mut list = by_key.remove(&record_key).unwrap_or_default();
            let count = list.len().saturating_sub(other_counts.get(&record_key).copied().unwrap_or(0));
            // Those on a line the other check had none of this kind on first.
            list.sort_by_key(|record| (other_lines.contains(&(record_key.clone(), record.line)), record.line));
            extra.extend(list.into_iter().take(count).cloned());
        }
        sorted_and_deduplicated(extra)
    };
    let new = beyond(&current.records, &previous.records);
    let gone = beyond(&previous.records, &current.records);
    let listed = |records: &[DiagnosticRecord]| -> Vec<CheckerDiagnostic> {
        records.iter().take(DELTA_LISTED).map(|r| checker_diagnostic(r, supervisor)).collect()
    };
    CheckDelta {
        seconds_ago: current.at.duration_since(previous.at).as_secs(),
        new_count: new.len(),
        gone_count: gone.len(),
        new: listed(&new),
        gone: listed(&gone),
        incomplete: !previous.complete || !current.complete,
    }
}

/// A diagnostic as the structured answer gives it (its path as the workspace shows it).
fn checker_diagnostic(record: &DiagnosticRecord, supervisor: &LspSupervisor) -> CheckerDiagnostic {
    CheckerDiagnostic {
        path: supervisor.display_path(&record.path),
        line: record.line,
        severity: record.severity.as_str().to_owned(),
        code: record.code.clone(),
        message: record.message.clone(),
        source: record.source.clone(),
        targets: record.targets.clone(),
    }
}

/// The answer's lines on what changed since the previous check ([`CheckDelta`]).
fn delta_lines(delta: &CheckDelta) -> String {
    let mut text = if delta.new_count == 0 && delta.gone_count == 0 {
        format!(
            "\n  since the previous check of this run ({} s ago, the same checkers and features): no diagnostic new or gone (compared per file, severity, code and message, lines aside)",
            delta.seconds_ago
        )
    } else {
        format!(
            "\n  since the previous check of this run ({} s ago, the same checkers and features): {} new, {} gone (compared per file, severity, code and message, lines aside){}",
            delta.seconds_ago,
            delta.new_count,
            delta.gone_count,
            if delta.new_count > 0 { "; the new ones:" } else { ":" }
        )
    };
    if delta.incomplete {
        text.push_str(" (one of the two checks was INCOMPLETE: the change covers only what both ran)");
    }
    let render = |diagnostic: &CheckerDiagnostic| {
        format!(
            "{}:{}: {}{} {}",
            diagnostic.path,
            diagnostic.line,
            diagnostic.severity,
            diagnostic.code.as_ref().map(|code| format!("[{code}]")).unwrap_or_default(),
            diagnostic.message.lines().next().unwrap_or("")
        )
    };
    for diagnostic in &delta.new {
        text.push_str(&format!("\n    + {}", render(diagnostic)));
    }
    if delta.new_count > delta.new.len() {
        text.push_str(&format!("\n    + … {} more new (all are in the list below)", delta.new_count - delta.new.len()));
    }
    if delta.gone_count > 0 {
        text.push_str("\n    gone (lines as they were):");
    }
    for diagnostic in &delta.gone {
        text.push_str(&format!("\n    - {}", render(diagnostic)));
    }
    if delta.gone_count > delta.gone.len() {
        text.push_str(&format!("\n    - … {} more gone", delta.gone_count - delta.gone.len()));
    }
    text
}

/// The time the checkers may take: [`crate::lsp::LspConfig::checker_timeout`], capped by the
/// `lsp` call's own deadline; a killed run names the one that ran out.
#[derive(Debug, Clone, Copy)]
pub struct CheckerBudget {
    /// When every step must have finished.
    pub end: Instant,
    /// The `lsp` call's whole time budget.
    pub call_budget: Duration,
    /// The configured checker timeout.
    pub checker_timeout: Duration,
    /// Whether `end` is the call's deadline (it comes before the checker timeout would).
    pub capped_by_call: bool,
}

impl CheckerBudget {
    /// The budget of checkers started now under `checker_timeout`, in a call of `call_budget`
    /// that must answer by `call_deadline`.
    pub fn new(checker_timeout: Duration, call_budget: Duration, call_deadline: Instant) -> CheckerBudget {
        let own_end = Instant::now() + checker_timeout;
        CheckerBudget { end: own_end.min(call_deadline), call_budget, checker_timeout, capped_by_call: call_deadline < own_end }
    }

    /// Why a step killed after `elapsed` was stopped: which budget ran out and what to do.
    fn timeout_problem(&self, name: &str, elapsed: Duration) -> String {
        if self.capped_by_call {
            format!(
                "{name} was stopped after {} because the `lsp` call's time budget ({}) ran out before the checker timeout ({}, LspConfig::checker_timeout) could; it was killed, so its report is missing or incomplete — call again with a larger `lsp` timeout (RunConfig::tool_timeouts, or the host's per-call timeout), or run the command yourself",
                duration_text(elapsed),
                duration_text(self.call_budget),
                duration_text(self.checker_timeout)
            )
        } else {
            format!(
                "{name} timed out after {} ms (LspConfig::checker_timeout = {}) and was killed; the list is incomplete — raise the checker timeout, or run the command yourself",
                elapsed.as_millis(),
                duration_text(self.checker_timeout)
            )
        }
    }

    /// Why a step did not start: the budget was already spent by earlier steps.
    fn spent_problem(&self) -> String {
        if self.capped_by_call {
            format!("not run: the `lsp` call's time budget ({}) was spent by the steps before it", duration_text(self.call_budget))
        } else {
            format!("not run: the checker timeout ({}) was spent by the steps before it", duration_text(self.checker_timeout))
        }
    }
}

/// `850 ms`, `12.5 s`, `180 s`.
fn duration_text(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration < Duration::from_secs(20) {
        format!("{:.1} s", duration.as_secs_f64())
    } else {
        format!("{} s", duration.as_secs())
    }
}

impl CheckerRun {
    /// Adds a problem (several steps may each have one).
    fn add_problem(&mut self, problem: String) {
        self.problem = Some(match self.problem.take() {
            Some(earlier) => format!("{earlier}; {problem}"),
            None => problem,
        });
    }
}

/// Runs every applicable checker for the workspace and renders the page of its diagnostics that
/// starts at `offset` (a later page reuses the previous run while no file changed). The checkers
/// get [`crate::lsp::LspConfig::checker_timeout`], capped by `deadline` (the call's, less a
/// margin for the answer); `call_budget` is the call's whole budget, named when it is what ran
/// out.
///
/// Cargo roots are checked with `selection`'s features (`--features`, `--all-features`,
/// `--no-default-features`; default: each package's `default` features), and the answer names
/// every workspace member's features left off, the files whose `#[cfg]`/`cfg_attr` gates name
/// them (code NOT checked), and the `features` / `all_features` arguments that check it.
///
/// # Errors
/// `unavailable` when no project root with a known checker marker exists in the workspace, or no
/// checker could run (the message says why: missing, timed out — and which budget — or cargo
/// refused the requested features, with its message);
/// `invalid_arguments` for an `offset` past the end.
pub fn project_diagnostics(
    supervisor: &LspSupervisor,
    offset: usize,
    selection: &FeatureSelection,
    deadline: Instant,
    call_budget: Duration,
    exclude: &[String],
) -> Result<ToolOutput, ToolError> {
    let root = supervisor.workspace_root();
    let config = supervisor.config();
    let excluded_dirs = excluded_directories(root, exclude)?;
    let mut excluded_roots: Vec<(&str, PathBuf)> = Vec::new();
    let mut roots: Vec<(&str, PathBuf)> = Vec::new();
    // Listed beneath a handle of the root, no symlink followed (issue 13 §1).
    let handle = crate::files::Beneath::open(root).map_err(|err| {
        ToolError::new(ErrorKind::Io, format!("cannot open the workspace root {}: {err}", root.display()))
            .with_hint("the workspace directory must exist; restart the run on an existing directory")
    })?;
    let walker = crate::files::walk_beneath::BeneathWalk::new(&handle, root)
        .map_err(|err| ToolError::new(ErrorKind::Io, format!("cannot walk {}: {err}", root.display())))?
        .max_depth(Some(4))
        .skip_names(&["node_modules", "target", ".git", ".venv", "venv", "build", "dist"])
        .iter();
    let mut candidates: Vec<(&str, PathBuf)> = Vec::new();
    for entry in walker.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        for (checker, markers) in CHECKERS {
            if markers.contains(&name.as_str()) {
                let dir = entry.path().parent().unwrap_or(root).to_path_buf();
                if !candidates.iter().any(|(c, r)| c == checker && *r == dir) {
                    candidates.push((checker, dir));
                }
            }
        }
    }
    // The outermost root per checker wins (a Cargo workspace, a go.work-less module, a Python
    // project whose docs/ folder has a requirements.txt): outer roots first, whatever the walk
    // order (`docs/` sorts before `pyproject.toml`).
    candidates.sort_by_key(|(_, dir)| dir.components().count());
    let mut python_roots_merged: Vec<(PathBuf, PathBuf)> = Vec::new();
    // A tsconfig.json inside another's root: tsc runs the outer one only (trial29 M3).
    let mut tsc_roots_merged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut not_python_projects: Vec<PathBuf> = Vec::new();
    // Go modules below a root that the root replaces by a directory: its dependencies.
    let mut go_dependency_modules: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (checker, dir) in candidates {
        if excluded_dirs.iter().any(|excluded| dir.starts_with(excluded)) {
            excluded_roots.push((checker, dir));
            continue;
        }
        if *checker == *"pyright" && !has_python_sources(&handle, &dir) {
            // A requirements.txt for the docs build is no Python project: nothing to check.
            not_python_projects.push(dir);
            continue;
        }
        match roots.iter().find(|(c, r)| *c == checker && dir.starts_with(r)) {
            Some(_) if *checker == *"pyright" && python_root_keeps_own_run(&dir) => {
                // Its own configuration or environment: the outer run would resolve its imports
                // against the wrong interpreter.
                roots.push((checker, dir));
            }
            // A Cargo.toml under another that is no member of its workspace (a crate with a
            // path dependency on the outer one, a fixture): the outer `cargo check` does not
            // build it, so it is checked on its own (trial87 F2: humantime's in-repo
            // `downstream/` crate, whose error the project check neither listed nor named).
            // Vendored crates (`cargo vendor`, a `.cargo-checksum.json` beside) are dependencies.
            Some((_, outer))
                if *checker == *"cargo" && !cargo_workspace_includes(root, outer, &dir) && !dir.join(".cargo-checksum.json").exists() =>
            {
                roots.push((checker, dir))
            }
            // A go.mod below another is a module of its own: `go vet ./...` at the outer one
            // does not reach into it (trial98 F2: objx's `consumer/` module, "0 errors" while it
            // did not build) — unless a go.work at the outer root joins them.
            // …but a module the outer one `replace`s by a directory is its dependency, checked as
            // such by the outer build (trial110 M5: afero's `_deps/` modules, each a root of its
            // own: 37 warnings of dependencies, "INCOMPLETE", 164 s).
            Some((_, outer)) if *checker == *"go" && !go_work_uses(root, outer, &dir) && !go_replaced_directory(root, outer, &dir) => {
                roots.push((checker, dir))
            }
            Some((_, outer)) if *checker == *"go" && !go_work_uses(root, outer, &dir) => {
                go_dependency_modules.push((dir.clone(), outer.clone()));
            }
            // A tsconfig.json in a directory the outer one excludes (`tests/tsconfig.json` beside
            // `"exclude": ["tests"]`): the outer tsc run compiles none of its files, so it runs
            // on its own (trial97 M2: ts-pattern's tests, "0 errors" where `tsc -p tests` had 23).
            Some((_, outer)) if *checker == *"tsc" && typescript_config_excludes(supervisor, outer, &dir) => roots.push((checker, dir)),
            Some((_, outer)) => {
                if *checker == *"pyright" {
                    python_roots_merged.push((dir.clone(), outer.clone()));
                }
                if *checker == *"tsc" {
                    tsc_roots_merged.push((dir.clone(), outer.clone()));
                }
            }
            None => roots.push((checker, dir)),
        }
    }
    // A tsconfig.json with project references is checked by `tsc -b`, which builds the projects
    // it references too: a root one of them builds gets no run of its own (trial176 F2: the
    // solution root, packages/app and packages/lib were each checked, lib three times).
    let builders: Vec<(PathBuf, Vec<PathBuf>)> = roots
        .iter()
        .filter(|(checker, dir)| *checker == "tsc" && crate::lsp::typescript_build_mode::config_has_references(root, dir))
        .map(|(_, dir)| (dir.clone(), crate::lsp::typescript_build_mode::projects_built_with(root, dir)))
        .collect();
    let mut tsc_roots_built_by_references: Vec<(PathBuf, PathBuf)> = Vec::new();
    roots.retain(|(checker, dir)| {
        let built_by = builders.iter().find(|(builder, projects)| {
            builder != dir
                && projects.contains(dir)
                && !builders.iter().any(|(other, other_projects)| other == dir && other_projects.contains(builder))
        });
        match built_by {
            Some((builder, _)) if *checker == "tsc" => {
                tsc_roots_built_by_references.push((dir.clone(), builder.clone()));
                false
            }
            _ => true,
        }
    });
    if roots.is_empty() && !excluded_roots.is_empty() {
        let left_out: Vec<String> =
            excluded_roots.iter().map(|(checker, dir)| root_description(checker, &supervisor.display_path(dir))).collect();
        return Err(ToolError::invalid(format!("`exclude` left out every project root of the workspace: {}", left_out.join(", ")))
            .with_hint("exclude fewer folders, or leave `exclude` out to check every project root"));
    }
    if roots.is_empty() {
        let markers: Vec<&str> = CHECKERS.iter().flat_map(|(_, markers)| markers.iter().copied()).collect();
        return Err(ToolError::new(ErrorKind::Unavailable, "no project checker applies: the workspace has no project root marker")
            .with_hint(format!("looked for: {}", markers.join(", "))));
    }
    let budget = CheckerBudget::new(config.checker_timeout, call_budget, deadline);
    let trust = supervisor.workspace_trust();
    let path_env = config.search_path.clone().or_else(|| std::env::var_os("PATH"));
    let path_env = match trust {
        WorkspaceTrust::Trusted => path_env,
        WorkspaceTrust::Restricted => restricted_search_path(path_env.as_deref(), root).value,
    };
    let reused = if offset > 0 { supervisor.checker_cache().reuse(&workspace_fingerprint(root, root), selection) } else { None };
    let (runs, reused_at) = match reused {
        Some((at, runs)) => (runs, Some(at)),
        None => {
            // With several cargo roots (a crate and one with a path dependency on it), each gets
            // the part of the call's features its package declares (trial95 M4) — the first one
            // too, unless a feature is declared by none of them: then the first one gets them all
            // and cargo's refusal names it (trial151 M8: `features: ["serde"]`, the library's
            // feature, was passed to the downstream crate listed first, whose check failed).
            let first_cargo_root = roots.iter().find(|(checker, _)| *checker == "cargo").map(|(_, dir)| dir.clone());
            let several_cargo_roots = roots.iter().filter(|(checker, _)| *checker == "cargo").count() > 1;
            let per_root: HashMap<PathBuf, (FeatureSelection, Vec<String>)> = if several_cargo_roots && !selection.is_default() {
                roots
                    .iter()
                    .filter(|(checker, _)| *checker == "cargo")
                    .filter_map(|(_, dir)| {
                        let manifest = crate::files::read_workspace_file_to_string(root, &dir.join("Cargo.toml")).ok()?;
                        Some((dir.clone(), crate::lsp::cargo_features::selection_for_other_root(selection, &manifest)))
                    })
                    .collect()
            } else {
                HashMap::new()
            };
            let declared_by_none =
                selection.features.iter().any(|feature| !per_root.values().any(|(kept, _)| kept.features.contains(feature)));
            let mut runs: Vec<CheckerRun> = roots
                .iter()
                .map(|(checker, dir)| {
                    let first_takes_all = Some(dir) == first_cargo_root.as_ref() && declared_by_none;
                    let (root_selection, left_out) = match per_root.get(dir) {
                        Some(filtered) if *checker == "cargo" && !first_takes_all => filtered.clone(),
                        _ => (selection.clone(), Vec::new()),
                    };
                    let mut run = run_checker(
                        checker,
                        dir,
                        root,
                        path_env.as_deref(),
                        &budget,
                        trust,
                        &root_selection,
                        supervisor.confines_file_access(),
                        &supervisor.project_outside_roots(),
                        supervisor.typescript_build_mirrors(),
                    );
                    run.selection_left_out = left_out;
                    // A finished check built the root's dependencies: a write's check of it (as a
                    // root that depends on a written one) fits its budget again.
                    if !run.timed_out && (*checker == "cargo" || *checker == "go") {
                        supervisor.forget_dependent_root_check_too_slow(dir);
                    }
                    run
                })
                .collect();
            for (run, _) in runs.iter_mut().zip(&roots).filter(|(_, (checker, _))| *checker == "pyright") {
                // The folders other runs check and the ones the call excluded are not this
                // run's to report.
                let mut skip: Vec<PathBuf> = roots
                    .iter()
                    .filter(|(checker, dir)| *checker == "pyright" && *dir != run.root && dir.starts_with(&run.root))
                    .map(|(_, dir)| dir.clone())
                    .collect();
                skip.extend(excluded_dirs.iter().cloned());
                run.python_scope = python_scope_outcome(&run.root, root, &skip);
            }
            supervisor.checker_cache().store(workspace_fingerprint(root, root), selection, &runs);
            (runs, None)
        }
    };
    let all = sorted_and_deduplicated(runs.iter().flat_map(|run| run.records.iter().cloned()).collect());
    // What changed since the previous check of this run (its later pages say it again).
    let since_previous_check = if reused_at.is_some() {
        supervisor.checker_cache().last_delta()
    } else {
        supervisor.checker_cache().compare_and_remember(selection, &runs, &all, supervisor)
    };
    let problems: Vec<String> = runs
        .iter()
        .filter_map(|run| {
            run.problem.as_ref().map(|problem| format!("{} ({}): {problem}", run.command, supervisor.display_path(&run.root)))
        })
        .collect();
    if all.is_empty() && problems.len() == runs.len() {
        let declared = declared_features_text(&runs, supervisor);
        let cargo_refused = !selection.is_default() && runs.iter().any(|run| run.features.is_some() && !run.timed_out);
        let hint = if cargo_refused {
            format!(
                "cargo refused the requested features (`{}`; its message is above): pass features the packages declare{declared}, or leave `features`/`all_features`/`no_default_features` out for the default features",
                selection.cargo_args().join(" ")
            )
        } else if runs.iter().all(|run| run.refused_by_trust) {
            "the workspace trust is restricted, so checkers that run the checkout's code do not run; `diagnostics` on one file asks the language server (restricted too), and a human who trusts this checkout can pass --workspace-trust trusted".to_owned()
        } else if runs.iter().any(|run| run.timed_out) {
            "give it more time as said above; meanwhile `diagnostics` on one file asks the language server".to_owned()
        } else if supervisor.confines_file_access()
            && problems.iter().any(|problem| problem.contains("Permission denied") || problem.contains("EACCES"))
        {
            // A crate opened alone whose manifest reads a file outside the workspace the
            // confinement does not know of: "install the checker" would send the agent astray.
            "the checker runs with its file reads confined to the workspace (and the project's outside roots `lsp` op status lists) and was refused a file (Permission denied): the project reads something outside the workspace — open the workspace at the project's root (its repository, or the cargo/npm/go workspace that holds it), or a human who trusts this checkout can run without confinement (--no-language-server-file-confinement, RunBuilder::confine_language_server_file_access(false))".to_owned()
        } else {
            "install the checker named above (or fix its project setup); `diagnostics` on one file asks the language server instead"
                .to_owned()
        };
        return Err(ToolError::new(ErrorKind::Unavailable, format!("the project checker could not run: {}", problems.join("; ")))
            .with_hint(hint)
            .with_details(json!({"problems": problems, "timed_out": runs.iter().any(|run| run.timed_out), "workspace_trust": trust})));
    }
    let errors = all.iter().filter(|r| r.severity == Severity::Error).count();
    let warnings = all.iter().filter(|r| r.severity == Severity::Warning).count();
    let mut text = format!(
        "project check: {errors} error{}, {warnings} warning{}, {} other",
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
        all.len() - errors - warnings
    );
    if !problems.is_empty() {
        let with_problems: Vec<String> = runs
            .iter()
            .filter(|run| run.problem.is_some())
            .map(|run| root_description(run_checker_name(run), &supervisor.display_path(&run.root)))
            .collect();
        let without: Vec<String> = runs
            .iter()
            .filter(|run| run.problem.is_none())
            .map(|run| root_description(run_checker_name(run), &supervisor.display_path(&run.root)))
            .collect();
        text.push_str(&format!(
            " (INCOMPLETE: {} of {} checker runs had problems, listed below: {}; the counts cover only what ran",
            problems.len(),
            runs.len(),
            with_problems.join(", ")
        ));
        if !without.is_empty() {
            text.push_str(&format!("; complete: {} (its own check ran to its end without a problem)", without.join(", ")));
        }
        text.push(')');
    }
    let features_not_checked: Vec<String> = runs
        .iter()
        .filter_map(|run| run.features.as_ref()?.as_ref().ok())
        .flatten()
        .filter(|package| !package.not_enabled.is_empty())
        .map(|package| format!("{}: {}", package.package, package.not_enabled.join(", ")))
        .collect();
    let features_unread = runs.iter().any(|run| matches!(run.features, Some(Err(_))));
    if !features_not_checked.is_empty() {
        text.push_str(&format!(
            " — NOT checked: code behind cargo features not enabled in this check ({}), see below",
            features_not_checked.join("; ")
        ));
    } else if features_unread {
        text.push_str(" — the cargo features could not be read: code behind features that are not enabled may be unchecked, see below");
    }
    text.push_str(&targets_not_checked_headline(&runs, supervisor));
    text.push_str(&target_gated_items_headline(&runs));
    text.push_str(&python_scope_headline(&runs));
    text.push_str(&go_coverage_headline(&runs, supervisor));
    text.push_str(&go_test_vet_headline(&runs, supervisor.workspace_root()));
    if let Some(delta) = &since_previous_check {
        text.push_str(&delta_lines(delta));
    }
    for run in &runs {
        // What this run contributes after repeats (the same finding from two steps, or twice from
        // one) were listed once, so the counts agree with the header.
        let distinct = sorted_and_deduplicated(run.records.clone()).len();
        let repeats = run.records.len() - distinct;
        let counted = if repeats > 0 {
            format!("{} (+{repeats} repeated by another target or step, listed once)", crate::render::plural(distinct, "diagnostic"))
        } else {
            crate::render::plural(distinct, "diagnostic")
        };
        let status = match &run.problem {
            Some(problem) if run.records.is_empty() => format!("PROBLEM: {problem}"),
            Some(problem) => format!("{counted} before it stopped; PROBLEM: {problem}"),
            None => counted,
        };
        text.push_str(&format!(
            "\n  ran `{}` in {} ({} ms): {status}",
            run.command,
            supervisor.display_path(&run.root),
            run.elapsed.as_millis()
        ));
        if let Some(build_mode) = &run.build_mode {
            text.push_str(&format!("\n    {build_mode}"));
        }
        if let Some(interpreter) = &run.interpreter {
            text.push_str(&format!("\n    interpreter: {interpreter}"));
        }
        if let Some(restricted) = &run.restricted {
            text.push_str(&format!("\n    workspace trust: restricted — {restricted}"));
        }
        if let Some(not_confined) = &run.not_confined {
            text.push_str(&format!(
                "\n    note: {not_confined} (a symlink in the workspace leading outside it can make the checker read that file)"
            ));
        }
        if !run.selection_left_out.is_empty() {
            text.push_str(&format!(
                "\n    features: this root is checked by its own cargo check, with the part of the call's features its package declares, `{}`; left out for it: {}",
                if run.selection.is_default() { "its default features".to_owned() } else { run.selection.cargo_args().join(" ") },
                run.selection_left_out.join(", ")
            ));
        }
        for line in feature_lines(run, supervisor) {
            text.push_str("\n    ");
            text.push_str(&line);
        }
        for target in &run.targets_not_checked {
            text.push_str(&format!("\n    NOT checked: {}", target.render(|path| supervisor.display_path(path))));
        }
        // cargo check compiles no doc-test (trial62 M3: a broken doc example, and `"*"` said only
        // the 3 baseline bench errors while `cargo test --doc` failed).
        if run.command.starts_with("cargo check") {
            // The workspace's packages (from `cargo metadata`), else the root's own manifest.
            let manifests: Vec<PathBuf> = match &run.features {
                Some(Ok(packages)) if !packages.is_empty() => packages.iter().map(|package| package.manifest.clone()).collect(),
                _ => vec![run.root.join("Cargo.toml")],
            };
            for found in manifests
                .iter()
                .filter_map(|manifest| crate::lsp::dependents::rust_doc_tests(supervisor.workspace_root(), &run.root, manifest, &[]))
            {
                text.push_str(&format!(
                    "\n    NOT checked: the doc-tests of crate {} (about {}{} in {}, by a scan of doc comments), which cargo check does not compile: run `cargo test --doc -p {}` to check them",
                    found.crate_name,
                    found.total,
                    if found.scan_incomplete { " or more" } else { "" },
                    crate::render::plural(found.files, "file"),
                    found.crate_name
                ));
            }
        }
        // tsc checks the tsconfig's program only (trial30 M4: "0 errors" and nothing of the 167
        // files outside it, 32 errors among them).
        if run.command.starts_with("tsc ") {
            let typescript = supervisor.servers().find(|definition| definition.extensions.iter().any(|(extension, _)| extension == "ts"));
            // Build mode: what the referenced projects' configs compile is checked too.
            let outside = typescript.and_then(|definition| match &run.build_mode {
                Some(_) => crate::lsp::project_scope::files_outside_build(
                    definition,
                    supervisor.workspace_root(),
                    &run.root,
                    &crate::lsp::typescript_build_mode::projects_built_with(supervisor.workspace_root(), &run.root),
                    &crate::lsp::typescript_build_mode::build_output_paths(supervisor.workspace_root(), &run.root),
                ),
                None => crate::lsp::project_scope::files_outside_config(definition, supervisor.workspace_root(), &run.root),
            });
            if let Some(outside) = outside {
                let config =
                    ["tsconfig.json", "jsconfig.json"].into_iter().find(|name| run.root.join(name).is_file()).unwrap_or("tsconfig.json");
                text.push_str(&format!(
                    "\n    NOT checked: {}; {} and their errors are not in the counts",
                    outside.describe(&supervisor.display_path(&run.root), |path| supervisor.display_path(path)),
                    if run.build_mode.is_some() {
                        format!("`tsc -b` of {config} and of the projects it references compiles none of them")
                    } else {
                        crate::lsp::project_scope::tsc_outside_config_clause(&run.root, config, |path| supervisor.display_path(path))
                    }
                ));
            }
        }
        for line in python_scope_lines(run, supervisor) {
            text.push_str("\n    ");
            text.push_str(&line);
        }
        for line in go_coverage_lines(run, supervisor) {
            text.push_str("\n    ");
            text.push_str(&line);
        }
        for record in run.go_test_vet_findings.iter().take(GO_LINES_SHOWN) {
            text.push_str(&format!("\n    go test refuses to build on: {}", record.render(&supervisor.display_path(&record.path))));
        }
        if run.go_test_vet_findings.len() > GO_LINES_SHOWN {
            text.push_str(&format!(
                "\n    and {} more go vet findings go test refuses to build on",
                run.go_test_vet_findings.len() - GO_LINES_SHOWN
            ));
        }
    }
    for (inner, outer) in &python_roots_merged {
        // The outer run reads the same pyright configuration: what its include/exclude leave
        // out of the inner folder is NOT checked by it either.
        let left_out = runs.iter().filter(|run| run.root == *outer).any(|run| match &run.python_scope {
            Some(PythonScopeOutcome::Read { files, .. }) => files.not_checked.iter().any(|file| file.starts_with(inner)),
            _ => false,
        });
        text.push_str(&format!(
            "\n  {} (a Python root marker inside {}) is covered by the run in {}: no second run{}",
            supervisor.display_path(inner),
            supervisor.display_path(outer),
            supervisor.display_path(outer),
            if left_out {
                " (pyright reads the same configuration there, and its Python files outside that configuration's include/exclude are NOT checked, listed above)"
            } else {
                ""
            }
        ));
    }
    for (built, builder) in &tsc_roots_built_by_references {
        text.push_str(&format!(
            "\n  {} (a TypeScript project that {} references) has no run of its own: the `tsc -b` run in {} builds and checks it",
            supervisor.display_path(&built.join("tsconfig.json")),
            supervisor.display_path(&builder.join("tsconfig.json")),
            supervisor.display_path(builder)
        ));
    }
    for (inner, outer) in &tsc_roots_merged {
        // The language server answers for the inner folder's files from the inner config; tsc
        // checked them, if the outer config includes them, with the outer one's settings.
        let load = crate::lsp::tsconfig_load::config_load_failure(supervisor.workspace_root(), inner)
            .map(|failure| {
                format!(
                    "; {} — the server's errors for those files cascade from it (unresolved imports), tsc's above do not",
                    failure.problem_sentence(|path| supervisor.display_path(path))
                )
            })
            .unwrap_or_default();
        let config_of = |dir: &Path| supervisor.display_path(&dir.join("tsconfig.json"));
        text.push_str(&format!(
            "\n  {} (a TypeScript project inside {}) has no tsc run of its own: its files are checked above only as far as {}'s include covers them, with that config's settings, while the language server answers for them from {}{load}",
            config_of(inner),
            if supervisor.display_path(outer) == "." { "the workspace root".to_owned() } else { supervisor.display_path(outer) },
            config_of(outer),
            config_of(inner),
        ));
    }
    if !go_dependency_modules.is_empty() {
        let shown: Vec<String> =
            go_dependency_modules.iter().take(8).map(|(dir, _)| format!("{}/", supervisor.display_path(dir))).collect();
        let outer = supervisor.display_path(&go_dependency_modules[0].1);
        text.push_str(&format!(
            "\n  {} {} no run of {} own: {} that {} replaces by a directory (dependencies, which its build compiles as far as it imports them; their own tests and unused packages are not checked){}",
            shown.join(", "),
            if shown.len() == 1 { "has" } else { "have" },
            if shown.len() == 1 { "its" } else { "their" },
            crate::render::plural(go_dependency_modules.len(), "Go module"),
            if outer == "." { "the workspace root".to_owned() } else { outer },
            if go_dependency_modules.len() > shown.len() { format!(" and {} more", go_dependency_modules.len() - shown.len()) } else { String::new() }
        ));
    }
    for dir in &not_python_projects {
        text.push_str(&format!(
            "\n  {} has a Python root marker but no .py/.pyi files: not a Python project, not checked",
            supervisor.display_path(dir)
        ));
    }
    for (checker, dir) in &excluded_roots {
        text.push_str(&format!(
            "\n  NOT checked (left out by `exclude`): {}; a run rooted above it still covers its files in that run's own language",
            root_description(checker, &supervisor.display_path(dir))
        ));
    }
    if !selection.is_default() && !runs.iter().any(|run| run.command.starts_with("cargo") || run.features.is_some()) {
        text.push_str(&format!(
            "\n  note: `{}` was not used: it applies to cargo check, and this workspace has no Cargo root",
            selection.cargo_args().join(" ")
        ));
    }
    if let Some(at) = reused_at {
        text.push_str(&format!(
            "\n  (this page comes from the check run {} s ago: no file of the workspace changed since; offset 0 runs the checkers again)",
            at.elapsed().as_secs()
        ));
    }
    let page = crate::lsp::listing::Page::new(all.len(), offset, config.checker_cap, "diagnostics")?;
    for record in &all[page.range()] {
        text.push('\n');
        text.push_str(&record.render(&supervisor.display_path(&record.path)));
    }
    if let Some(notice) = page.notice() {
        text.push_str(&format!("\n{notice}"));
    }
    let results: Vec<CheckerDiagnostic> = all[page.range()].iter().map(|r| checker_diagnostic(r, supervisor)).collect();
    // A pyright run's files outside its configured scope, listed up to STRUCTURED_PYTHON_FILES.
    fn python_files(run: &CheckerRun) -> Option<&crate::lsp::pyright_scope::FilesOutsideScope> {
        match &run.python_scope {
            Some(PythonScopeOutcome::Read { files, .. }) => Some(files),
            _ => None,
        }
    }
    let shown_paths = |paths: Option<&[PathBuf]>| -> Vec<String> {
        paths.unwrap_or_default().iter().take(STRUCTURED_PYTHON_FILES).map(|path| supervisor.display_path(path)).collect()
    };
    let runs: Vec<CheckerRunSummary> = runs
        .iter()
        .map(|run| CheckerRunSummary {
            command: run.command.clone(),
            root: supervisor.display_path(&run.root),
            problem: run.problem.clone(),
            timed_out: run.timed_out,
            count: sorted_and_deduplicated(run.records.clone()).len(),
            elapsed_ms: u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX),
            interpreter: run.interpreter.clone(),
            restricted: run.restricted.clone(),
            features: match &run.features {
                Some(Ok(packages)) => packages.iter().map(|package| package_summary(package, supervisor)).collect(),
                _ => Vec::new(),
            },
            features_problem: match &run.features {
                Some(Err(why)) => Some(why.clone()),
                _ => None,
            },
            compile_errors: run.compile_errors.clone(),
            build_script_warnings: run.build_script_warnings.clone(),
            modules_not_compiled: run
                .modules_not_compiled
                .iter()
                .map(|module| module.render(|path| supervisor.display_path(path)))
                .collect(),
            modules_files_not_read: run.modules_files_not_read,
            items_behind_other_target_cfgs: target_gated_items_line(run, supervisor),
            targets_not_checked: run.targets_not_checked.iter().map(|target| target.render(|path| supervisor.display_path(path))).collect(),
            python_scope: match &run.python_scope {
                Some(PythonScopeOutcome::Read { source, settings, .. }) => Some(format!("{source}: {settings}")),
                Some(PythonScopeOutcome::Unreadable(why)) => Some(format!("could not be read: {why}")),
                None => None,
            },
            python_files_not_checked_total: python_files(run).map_or(0, |files| files.not_checked_total),
            python_files_not_checked: shown_paths(python_files(run).map(|files| files.not_checked.as_slice())),
            python_files_ignored_total: python_files(run).map_or(0, |files| files.ignored_total),
            python_files_ignored: shown_paths(python_files(run).map(|files| files.ignored.as_slice())),
            go_packages_not_compiled: run
                .go_coverage
                .iter()
                .flat_map(|coverage| &coverage.packages_not_compiled)
                .map(|package| {
                    format!("{}: {} (imports failed {})", package.package, plural(package.files.len(), "file"), package.failed_import)
                })
                .collect(),
            go_packages_checked_by_gopls: run.go_coverage.as_ref().is_some_and(|coverage| coverage.checked_by_gopls),
            go_files_excluded_by_build_constraints: run
                .go_coverage
                .iter()
                .flat_map(|coverage| &coverage.excluded_by_build_constraints)
                .map(|file| go_constrained_file_text(file, supervisor))
                .collect(),
            go_test_vet_findings: run
                .go_test_vet_findings
                .iter()
                .map(|record| record.render(&supervisor.display_path(&record.path)))
                .collect(),
        })
        .collect();
    let targets_not_checked: Vec<String> = runs.iter().flat_map(|run| run.targets_not_checked.clone()).collect();
    let output = LspOutput::WorkspaceCheck(WorkspaceCheck {
        op: DiagnosticsOp::Diagnostics,
        file: "*".to_owned(),
        errors,
        warnings,
        total: all.len(),
        shown: results.len(),
        page: PageWindow::from(&page),
        reused_previous_run: reused_at.is_some(),
        complete: problems.is_empty(),
        results,
        runs,
        workspace_trust: trust,
        python_roots_covered_by_outer_run: python_roots_merged.iter().map(|(inner, _)| supervisor.display_path(inner)).collect(),
        not_python_projects: not_python_projects.iter().map(|dir| supervisor.display_path(dir)).collect(),
        excluded_roots: excluded_roots.iter().map(|(checker, dir)| root_description(checker, &supervisor.display_path(dir))).collect(),
        cargo_feature_arguments: selection.cargo_args(),
        features_not_checked,
        targets_not_checked,
        since_previous_check,
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(crate::schema::to_structured(&output))))
}

/// The headline's words on cargo targets never compiled, grouped by why: ` — NOT checked:
/// benches/bench.rs, benches/faststring.rs (cargo never compiled them: the library `indexmap`
/// they depend on failed to compile; their diagnostics are unknown, not clean — fix its errors
/// and check again)`; empty when every target was compiled.
fn targets_not_checked_headline(runs: &[CheckerRun], supervisor: &LspSupervisor) -> String {
    let targets: Vec<&UncheckedCargoTarget> = runs.iter().flat_map(|run| &run.targets_not_checked).collect();
    if targets.is_empty() {
        return String::new();
    }
    let paths = |reason: &dyn Fn(&UncheckedCargoTargetReason) -> bool| -> Vec<String> {
        targets.iter().filter(|target| reason(&target.reason)).map(|target| supervisor.display_path(&target.target.src_path)).collect()
    };
    let mut libraries: Vec<&str> = targets
        .iter()
        .filter_map(|target| match &target.reason {
            UncheckedCargoTargetReason::LibraryFailed { library } => Some(library.as_str()),
            _ => None,
        })
        .collect();
    libraries.dedup();
    let mut parts = Vec::new();
    let after_library = paths(&|reason| matches!(reason, UncheckedCargoTargetReason::LibraryFailed { .. }));
    if !after_library.is_empty() {
        let named: Vec<String> = libraries.iter().map(|library| format!("`{library}`")).collect();
        parts.push(format!(
            "{} (cargo never compiled {}: the {} {} that {} on failed to compile; {} diagnostics are unknown, not clean — fix those errors and check again)",
            after_library.join(", "),
            if after_library.len() == 1 { "it" } else { "them" },
            if named.len() == 1 { "library" } else { "libraries" },
            named.join(", "),
            if after_library.len() == 1 { "it depends" } else { "they depend" },
            if after_library.len() == 1 { "its" } else { "their" },
        ));
    }
    let not_reached = paths(&|reason| matches!(reason, UncheckedCargoTargetReason::NotReached));
    if !not_reached.is_empty() {
        parts.push(format!(
            "{} (cargo never compiled {}: something {} on failed, or the check stopped first; diagnostics unknown, not clean)",
            not_reached.join(", "),
            if not_reached.len() == 1 { "it" } else { "them" },
            if not_reached.len() == 1 { "it depends" } else { "they depend" },
        ));
    }
    let by_features = paths(&|reason| matches!(reason, UncheckedCargoTargetReason::RequiredFeatures { .. }));
    if !by_features.is_empty() {
        parts.push(format!("{} (required-features not enabled, see below)", by_features.join(", ")));
    }
    format!(" — NOT checked: {}", parts.join("; "))
}

/// How many Go files excluded by build constraints the headline names (the run's lines name
/// up to [`GO_LINES_SHOWN`]).
const GO_HEADLINE_FILES: usize = 5;

/// How many packages go never compiled, and files build constraints exclude, a Go run's lines name.
const GO_LINES_SHOWN: usize = 30;

/// `util/util_safe.go (appengine js): check with `GOOS=js GOARCH=wasm go vet -tags=appengine ./util``.
fn go_constrained_file_text(file: &GoConstrainedFile, supervisor: &LspSupervisor) -> String {
    let terms = if file.terms.is_empty() { String::new() } else { format!(" ({})", file.terms) };
    format!("{}{terms}: {}", supervisor.display_path(&file.path), file.check_sentence)
}

/// The headline's words on what the Go runs never compiled: packages importing a failed
/// package that `gopls check` could not check either (NOT checked), and files excluded by build
/// constraints (NOT compiled), with the command that checks the first of them; empty when
/// there is none.
fn go_coverage_headline(runs: &[CheckerRun], supervisor: &LspSupervisor) -> String {
    let mut text = String::new();
    let unchecked: Vec<&GoPackageNotCompiled> = runs
        .iter()
        .filter_map(|run| run.go_coverage.as_ref())
        .filter(|coverage| !coverage.checked_by_gopls)
        .flat_map(|coverage| &coverage.packages_not_compiled)
        .collect();
    if !unchecked.is_empty() {
        let mut failed: Vec<&str> = unchecked.iter().map(|package| package.failed_import.as_str()).collect();
        failed.sort_unstable();
        failed.dedup();
        let names: Vec<&str> = unchecked.iter().take(GO_HEADLINE_FILES).map(|package| package.package.as_str()).collect();
        let more = unchecked.len().saturating_sub(names.len());
        text.push_str(&format!(
            " — NOT checked: {} Go package{} ({}{}) import{} a package that failed to compile ({}), so go never compiled {} and gopls check could not check {} either (see below): {} errors are unknown, not clean — fix the errors above and check again",
            unchecked.len(),
            if unchecked.len() == 1 { "" } else { "s" },
            names.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
            if unchecked.len() == 1 { "s" } else { "" },
            failed.join(", "),
            if unchecked.len() == 1 { "it" } else { "them" },
            if unchecked.len() == 1 { "it" } else { "them" },
            if unchecked.len() == 1 { "its" } else { "their" },
        ));
    }
    let excluded: Vec<&GoConstrainedFile> =
        runs.iter().filter_map(|run| run.go_coverage.as_ref()).flat_map(|coverage| &coverage.excluded_by_build_constraints).collect();
    if let Some(first) = excluded.first() {
        let names: Vec<String> = excluded
            .iter()
            .take(GO_HEADLINE_FILES)
            .map(|file| {
                let terms = if file.terms.is_empty() { String::new() } else { format!(" ({})", file.terms) };
                format!("{}{terms}", supervisor.display_path(&file.path))
            })
            .collect();
        let more = excluded.len() - names.len();
        text.push_str(&format!(
            " — NOT checked: {} Go file{} excluded by build constraints for the toolchain, GOOS/GOARCH and tags in force and {} NOT compiled: {}{} — {}{}",
            excluded.len(),
            if excluded.len() == 1 { " is" } else { "s are" },
            if excluded.len() == 1 { "was" } else { "were" },
            names.join(", "),
            if more > 0 { format!(" and {more} more (listed below)") } else { String::new() },
            first.check_sentence,
            if excluded.len() > 1 { " (each file's command is below)" } else { "" },
        ));
    }
    text
}

/// The headline's words on the `go vet` findings that make `go test` refuse to build (listed as
/// warnings, as go vet's analyzer findings are, but as blocking as errors for the tests:
/// trial44 M7); empty when there is none.
fn go_test_vet_headline(runs: &[CheckerRun], workspace_root: &Path) -> String {
    let count: usize = runs.iter().map(|run| run.go_test_vet_findings.len()).sum();
    if count == 0 {
        return String::new();
    }
    format!(
        " — go test will refuse to build: {} of the go vet checks `go test` runs before the tests ({}) {} listed as {} here, and the test build of {} package fails on {} (see below)",
        plural(count, "warning"),
        crate::lsp::write_ledger_rules::go_test_vet_analyzers(workspace_root).join(", "),
        crate::render::one_or_many(count, "is", "are"),
        crate::render::one_or_many(count, "a warning", "warnings"),
        crate::render::one_or_many(count, "its", "their"),
        crate::render::one_or_many(count, "it", "them"),
    )
}

/// A Go run's lines on what the compiler never reached: the packages importing a failed
/// package and whether `gopls check` checked them instead, and each file excluded by build
/// constraints with its command (at most [`GO_LINES_SHOWN`] each).
fn go_coverage_lines(run: &CheckerRun, supervisor: &LspSupervisor) -> Vec<String> {
    let Some(coverage) = &run.go_coverage else { return Vec::new() };
    let mut lines = Vec::new();
    let packages = &coverage.packages_not_compiled;
    if !packages.is_empty() {
        let files: usize = packages.iter().map(|package| package.files.len()).sum();
        lines.push(if coverage.checked_by_gopls {
            format!(
                "{} go never compiled (they import a package that failed to compile); `gopls check` type-checked their {} instead: its findings are listed with source `gopls check` and counted as errors (it prints no severity)",
                plural(packages.len(), "package"),
                plural(files, "file")
            )
        } else {
            format!(
                "NOT checked: {} go never compiled (they import a package that failed to compile) and `gopls check` did not check ({} — see the problem above): their {} are unknown, not clean",
                plural(packages.len(), "package"),
                if run.command.contains("gopls") { "it did not finish" } else { "it did not run" },
                plural(files, "file")
            )
        });
        for package in packages.iter().take(GO_LINES_SHOWN) {
            lines.push(format!(
                "  {} ({}, imports failed {})",
                package.package,
                plural(package.files.len(), "file"),
                package.failed_import
            ));
        }
        if packages.len() > GO_LINES_SHOWN {
            lines.push(format!("  and {} more", packages.len() - GO_LINES_SHOWN));
        }
    }
    let stopped = &coverage.vet_analyzers_not_run;
    if !stopped.is_empty() {
        let shown: Vec<&str> = stopped.iter().take(GO_LINES_SHOWN).map(String::as_str).collect();
        lines.push(format!(
            "NOT analysed by go vet: {} — vet stops a package at its type errors (listed above), so its analyzers (printf and the other checks `go test` runs) did not run there: a finding in {} is unknown, not absent; fix those errors and check again: {}{}",
            plural(stopped.len(), "package"),
            if stopped.len() == 1 { "it" } else { "them" },
            shown.join(", "),
            if stopped.len() > shown.len() { format!(" and {} more", stopped.len() - shown.len()) } else { String::new() }
        ));
    }
    if coverage.vet_stopped_at_load_error {
        lines.push("NOT analysed by go vet: every package — go vet stopped at a load error (listed above: an import no module provides, or a package not found) before any analyzer ran, so a printf or other finding anywhere is unknown, not absent, and `go test` fails its setup on the error; fix it and check again".to_owned());
    }
    let excluded = &coverage.excluded_by_build_constraints;
    for file in excluded.iter().take(GO_LINES_SHOWN) {
        lines.push(format!("NOT compiled (build constraints): {}", go_constrained_file_text(file, supervisor)));
    }
    if excluded.len() > GO_LINES_SHOWN {
        lines.push(format!("and {} more Go files excluded by build constraints", excluded.len() - GO_LINES_SHOWN));
    }
    lines
}

/// How many paths of the Python files a pyright run leaves out (or silences) the structured
/// answer lists per run.
const STRUCTURED_PYTHON_FILES: usize = 100;

/// How many folders (or single files) the text names per list of Python files left out.
const PYTHON_FILE_GROUPS_SHOWN: usize = 8;

/// What the pyright configuration of the run rooted at `run_root` leaves unchecked under it
/// (folders in `skip` not walked), `None` without such a configuration or when it leaves
/// nothing out.
fn python_scope_outcome(run_root: &Path, workspace_root: &Path, skip: &[PathBuf]) -> Option<PythonScopeOutcome> {
    use crate::lsp::pyright_scope::{python_files_outside_scope, read_pyright_scope, PyrightScopeRead};
    match read_pyright_scope(run_root, workspace_root) {
        PyrightScopeRead::NoConfiguration => None,
        PyrightScopeRead::Unreadable { file, why } => {
            Some(PythonScopeOutcome::Unreadable(format!("pyright's configuration {file} could not be read ({why})")))
        }
        PyrightScopeRead::Configured(scope) => match python_files_outside_scope(&scope, run_root, workspace_root, skip) {
            Ok(files) if files.not_checked_total == 0 && files.ignored_total == 0 => None,
            Ok(files) => Some(PythonScopeOutcome::Read { source: scope.source.clone(), settings: scope.describe(), files }),
            Err(why) => Some(PythonScopeOutcome::Unreadable(format!("the Python files under the root could not be listed ({why})"))),
        },
    }
}

/// The headline's words on Python files pyright's configuration leaves out: ` — NOT checked:
/// 7 Python files outside pyright's configured include/exclude (pyproject.toml
/// [tool.pyright]), see below`, or that the configuration could not be read; empty when
/// nothing is left out.
fn python_scope_headline(runs: &[CheckerRun]) -> String {
    let mut not_checked = 0usize;
    let mut sources: Vec<&str> = Vec::new();
    let mut unreadable = false;
    for run in runs {
        match &run.python_scope {
            Some(PythonScopeOutcome::Read { source, files, .. }) if files.not_checked_total > 0 => {
                not_checked += files.not_checked_total;
                if !sources.contains(&source.as_str()) {
                    sources.push(source);
                }
            }
            Some(PythonScopeOutcome::Unreadable(_)) => unreadable = true,
            _ => {}
        }
    }
    let mut text = String::new();
    if not_checked > 0 {
        text.push_str(&format!(
            " — NOT checked: {} outside pyright's configured include/exclude ({}); their errors are not counted, see below",
            crate::render::plural(not_checked, "Python file"),
            sources.join(", ")
        ));
    }
    if unreadable {
        text.push_str(" — which Python files pyright's configuration leaves out is unknown (it could not be read, see below)");
    }
    text
}

/// The lines a pyright run adds about its scope: the Python files under its root its
/// configuration leaves out (NOT checked) or silences (`ignore`), grouped by folder, with the
/// next step; or why that could not be determined.
fn python_scope_lines(run: &CheckerRun, supervisor: &LspSupervisor) -> Vec<String> {
    let mut lines = Vec::new();
    let display = |path: &Path| supervisor.display_path(path);
    match &run.python_scope {
        None => {}
        Some(PythonScopeOutcome::Unreadable(why)) => lines.push(format!(
            "pyright's scope unknown: {why} — which Python files its include/exclude leave out (NOT checked) cannot be said; fix the file, or ask `lsp diagnostics` with `file` for a file you need checked"
        )),
        Some(PythonScopeOutcome::Read { source, settings, files }) => {
            if files.not_checked_total > 0 {
                lines.push(format!(
                    "NOT checked: {} under {} {} outside pyright's configured include/exclude ({source}: {settings}): {} — pyright did not check {} and {} errors are not in the counts above; ask `lsp diagnostics` with `file` set to {} to check it",
                    crate::render::plural(files.not_checked_total, "Python file"),
                    display(&run.root),
                    if files.not_checked_total == 1 { "is" } else { "are" },
                    crate::lsp::pyright_scope::grouped_paths(&files.not_checked, files.not_checked_total, PYTHON_FILE_GROUPS_SHOWN, display),
                    if files.not_checked_total == 1 { "it" } else { "them" },
                    if files.not_checked_total == 1 { "its" } else { "their" },
                    if files.not_checked_total == 1 { "it" } else { "one of them" },
                ));
            }
            if files.ignored_total > 0 {
                lines.push(format!(
                    "diagnostics suppressed: {} under {} {} in pyright's `ignore` ({source}: {settings}): {} — pyright checks {} but reports nothing for {}; ask `lsp diagnostics` with `file` to see a file's diagnostics",
                    crate::render::plural(files.ignored_total, "Python file"),
                    display(&run.root),
                    if files.ignored_total == 1 { "is" } else { "are" },
                    crate::lsp::pyright_scope::grouped_paths(&files.ignored, files.ignored_total, PYTHON_FILE_GROUPS_SHOWN, display),
                    if files.ignored_total == 1 { "it" } else { "them" },
                    if files.ignored_total == 1 { "it" } else { "them" },
                ));
            }
        }
    }
    lines
}

/// The `exclude` argument's folders, absolute. Each is workspace-relative (or absolute inside
/// the workspace) and must be an existing folder.
///
/// # Errors
/// `invalid` for a folder outside the workspace or one that does not exist.
fn excluded_directories(root: &Path, exclude: &[String]) -> Result<Vec<PathBuf>, ToolError> {
    let mut dirs = Vec::new();
    for entry in exclude {
        let trimmed = entry.trim_end_matches('/');
        let joined = if Path::new(trimmed).is_absolute() { PathBuf::from(trimmed) } else { root.join(trimmed) };
        let normalized: PathBuf = joined.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect();
        if normalized.components().any(|c| matches!(c, std::path::Component::ParentDir)) || !normalized.starts_with(root) {
            return Err(ToolError::invalid(format!("`exclude` entry {entry:?} is not a folder inside the workspace"))
                .with_hint("give folders relative to the workspace root, e.g. [\"tests/toml-test\"]"));
        }
        if !normalized.is_dir() {
            return Err(ToolError::invalid(format!("`exclude` entry {entry:?} is not an existing folder of the workspace"))
                .with_hint("give folders relative to the workspace root, e.g. [\"tests/toml-test\"]; a project root is a folder holding a root marker (go.mod, Cargo.toml, pyproject.toml, tsconfig.json, …)"));
        }
        dirs.push(normalized);
    }
    Ok(dirs)
}

/// `the Go module at tests/toml-test`, `the Python project at .` — a checker root in words.
fn root_description(checker: &str, display: &str) -> String {
    let kind = match checker {
        "cargo" => "the Cargo project",
        "pyright" => "the Python project",
        "tsc" => "the TypeScript project",
        "go" => "the Go module",
        "dart" => "the Dart package",
        _ => "the C/C++ project",
    };
    format!("{kind} at {display}")
}

/// The checker a run belongs to, from its command line.
fn run_checker_name(run: &CheckerRun) -> &'static str {
    let first = run.command.split_whitespace().next().unwrap_or("");
    match first {
        "cargo" => "cargo",
        "pyright" | "basedpyright" => "pyright",
        "tsc" => "tsc",
        "go" => "go",
        "dart" => "dart",
        _ => "clang",
    }
}

/// The modules a failed `go` step could not find locally: the `go: downloading MODULE VERSION`
/// lines and the `go: MODULE@VERSION: …` lookup failures (no module proxy reachable,
/// `GOPROXY=off`, `GOFLAGS=-mod=mod` without the cache), deduplicated, in order. Empty when the
/// step failed for another reason.
pub fn go_missing_modules(stderr: &str) -> Vec<String> {
    let mut modules: Vec<String> = Vec::new();
    let mut push = |module: String| {
        if !modules.contains(&module) {
            modules.push(module);
        }
    };
    for line in stderr.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("go: downloading ") {
            push(rest.split_whitespace().take(2).collect::<Vec<_>>().join(" "));
            continue;
        }
        if !is_go_download_failure(line) {
            continue;
        }
        // `go: MODULE@VERSION: …` or `file.go:3:8: MODULE@VERSION: …`.
        for part in line.split(": ") {
            let part = part.trim();
            if let Some((path, version)) = part.split_once('@') {
                if !path.is_empty() && !path.contains(' ') && version.starts_with('v') && !version.contains(' ') {
                    push(format!("{path} {version}"));
                    break;
                }
            }
        }
    }
    modules
}

/// Whether a line (or a diagnostic's message) of go is a module download that failed: no
/// proxy reachable, lookups disabled (`GOPROXY=off`), a proxy that does not have it. Lookups
/// disabled is said at the import too, without the module's `@version` (google/uuid with its
/// `replace` removed, trial147 M5: `internal/ids/ids.go:7:2: module lookup disabled by
/// GOPROXY=off` had counted as a go vet warning).
fn is_go_download_failure(line: &str) -> bool {
    line.contains("module lookup disabled")
        || line.contains('@')
            && [
                "module lookup disabled",
                "dial tcp",
                "no such host",
                "connection refused",
                "proxy.golang.org",
                "i/o timeout",
                "404 Not Found",
                "410 Gone",
            ]
            .iter()
            .any(|sign| line.contains(sign))
}

/// `; declared: either: serde, std, use_std` for the cargo runs whose features were read, or
/// nothing.
fn declared_features_text(runs: &[CheckerRun], supervisor: &LspSupervisor) -> String {
    let declared: Vec<String> = runs
        .iter()
        .filter_map(|run| run.features.as_ref()?.as_ref().ok())
        .flatten()
        .map(|package| {
            let mut all: Vec<&str> = package.enabled.iter().chain(&package.not_enabled).map(String::as_str).collect();
            all.sort_unstable();
            let shown = if all.is_empty() { "no features".to_owned() } else { all.join(", ") };
            format!("{} ({}): {shown}", package.package, supervisor.display_path(&package.manifest))
        })
        .collect();
    if declared.is_empty() {
        String::new()
    } else {
        format!(" — declared: {}", declared.join("; "))
    }
}

/// The lines a cargo run adds about features: per workspace member, the features left off and
/// the files gating code on them (NOT checked), how to check them; `not(feature = …)` code
/// left out by an enabled feature; a `compile_error!` that refused the requested combination.
fn feature_lines(run: &CheckerRun, supervisor: &LspSupervisor) -> Vec<String> {
    let selection = &run.selection;
    let mut lines = Vec::new();
    let packages = match &run.features {
        None => return lines,
        Some(Err(why)) => {
            lines.push(format!(
                "features: could not be read ({why}); code behind `#[cfg(feature = …)]` for features this check did not enable was not compiled and may hold errors not listed here{}",
                if selection.no_default_features {
                    " — and in a cargo workspace `--no-default-features` does not reach a member whose default features another member's dependency keeps (cargo unifies features): check that member with `cargo check -p NAME --no-default-features`"
                } else {
                    ""
                }
            ));
            return lines;
        }
        Some(Ok(packages)) => packages,
    };
    let several = packages.len() > 1;
    let asked = if selection.is_default() { "default features".to_owned() } else { format!("`{}`", selection.cargo_args().join(" ")) };
    for package in packages {
        let enabled = if package.enabled.is_empty() { "none".to_owned() } else { package.enabled.join(", ") };
        let manifest = supervisor.display_path(&package.manifest);
        if !package.defaults_kept_by.is_empty() {
            // Its own `-p` check (trial180 F1): say why, and that it was run.
            lines.push(format!(
                "features of `{}` ({manifest}): checked by its own `cargo check -p {} --all-targets --no-default-features{}` — in the workspace-wide check {} keep{} its default features (cargo unifies features across the packages it builds, so `--no-default-features` there does not turn them off); the lines below are that check's",
                package.package,
                package.spec,
                if package.own_features.is_empty() { String::new() } else { format!(" --features {}", package.own_features.join(",")) },
                package.defaults_kept_by.iter().map(|by| format!("`{by}`")).collect::<Vec<_>>().join(", "),
                if package.defaults_kept_by.len() == 1 { "s" } else { "" },
            ));
        }
        if package.not_enabled.is_empty() {
            // A package without features has nothing to say; one whose every feature is on says
            // so (the check covered all its gated code).
            if !package.enabled.is_empty() {
                lines.push(format!("features of `{}` ({manifest}): every feature enabled ({enabled})", package.package));
            }
        } else {
            lines.push(format!(
                "features of `{}` ({manifest}) NOT enabled in this check ({asked}; enabled: {enabled}): {} — code behind `#[cfg(feature = …)]` / `cfg_attr` for them was not compiled, so no error in it is reported",
                package.package,
                package.not_enabled.join(", ")
            ));
            if package.gated_files.is_empty() {
                // Gates that name them but stay off with them on (another target or `--cfg`:
                // fastrand's `all(target_arch = "wasm32", target_os = "unknown", feature = "js")`,
                // trial66 F3 read "no `cfg` gate naming them was found").
                let named_at: Vec<String> = package
                    .gates_off_with_them_on
                    .iter()
                    .take(6)
                    .map(|gate| format!("{}:{}", supervisor.display_path(&gate.path), gate.line))
                    .collect();
                lines.push(if named_at.is_empty() {
                    "  no `cfg` gate naming them was found in the package's .rs files (they may switch dependencies or their features only)"
                        .to_owned()
                } else {
                    format!(
                        "  the `cfg` gates naming them ({}) stay off on this host with them on: they need another target or `--cfg` too, so no check here compiles that code (`cargo check --target …` with that target installed does, or RUSTFLAGS=\"--cfg …\")",
                        named_at.join(", ")
                    )
                });
            } else {
                let shown: Vec<String> = package
                    .gated_files
                    .iter()
                    .take(crate::lsp::cargo_features::GATED_FILES_SHOWN)
                    .map(|file| gated_file_text(file, false, supervisor))
                    .collect();
                let more = package.gated_files.len().saturating_sub(shown.len());
                lines.push(format!(
                    "  gated code NOT checked, in {}: {}{}",
                    crate::render::plural(package.gated_files.len(), "file"),
                    shown.join(", "),
                    if more > 0 { format!(", and {more} more") } else { String::new() }
                ));
            }
            // The features that gate code, when any do (a feature that only switches others on,
            // like `use_std = ["std"]`, adds nothing to check).
            let gating: Vec<&String> = package
                .not_enabled
                .iter()
                .filter(|feature| package.gated_files.iter().any(|file| file.features.contains(feature)))
                .collect();
            let suggested: Vec<&String> = if gating.is_empty() { package.not_enabled.iter().collect() } else { gating };
            let names: Vec<String> = suggested
                .into_iter()
                .map(|feature| if several { format!("\"{}/{feature}\"", package.package) } else { format!("\"{feature}\"") })
                .collect();
            lines.push(format!(
                "  to check it: {{\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [{}]}} (cargo check --features …), or \"all_features\": true (--all-features; fails if the crate has mutually exclusive features)",
                names.join(", ")
            ));
        }
        if !package.negated_gates.is_empty() {
            let shown: Vec<String> = package
                .negated_gates
                .iter()
                .take(crate::lsp::cargo_features::GATED_FILES_SHOWN)
                .map(|file| gated_file_text(file, true, supervisor))
                .collect();
            let more = package.negated_gates.len().saturating_sub(shown.len());
            // With `no_default_features` already asked, the features that are on came from the
            // call's `features` (or what they turn on): advising the same flag again is a loop.
            let next = if selection.no_default_features {
                format!(
                    "this check already had `--no-default-features`: the features on here ({enabled}) come from the call's `features` or what they turn on — leave those out to compile it (`cargo check -p {} --no-default-features`)",
                    package.spec
                )
            } else {
                "check it with \"no_default_features\": true (plus the features it still needs)".to_owned()
            };
            lines.push(format!(
                "  code under `cfg(not(feature = …))` for enabled features was NOT compiled either, in {}: {}{} — {next}",
                crate::render::plural(package.negated_gates.len(), "file"),
                shown.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() }
            ));
        }
        if package.files_unread > 0 {
            lines.push(format!("  {} .rs files of the package were not read for gates (file cap)", package.files_unread));
        }
    }
    for warning in &run.build_script_warnings {
        lines.push(format!("build script warning: {warning}"));
    }
    if !run.modules_not_compiled.is_empty() {
        const SHOWN: usize = 8;
        let shown: Vec<String> =
            run.modules_not_compiled.iter().take(SHOWN).map(|module| module.render(|path| supervisor.display_path(path))).collect();
        let more = run.modules_not_compiled.len().saturating_sub(SHOWN);
        let next = run
            .modules_not_compiled
            .iter()
            .filter(|module| module.off_whatever_build_scripts_set)
            .find_map(|module| crate::lsp::inactive::target_for_cfg(&module.cfg))
            .map(|target| {
                format!("; another target's modules are checked with `cargo check --target {target}` (after `rustup target add {target}`)")
            })
            .unwrap_or_default();
        lines.push(format!(
            "module files NOT compiled in this check, so no error in them is reported — their `mod` is under a `#[cfg]` off here: {}{}{next}",
            shown.join(", "),
            if more > 0 { format!(", and {more} more") } else { String::new() }
        ));
    }
    if let Some(line) = target_gated_items_line(run, supervisor) {
        lines.push(line);
    }
    if run.modules_files_not_read > 0 {
        lines.push(format!(
            "{} .rs files of the workspace members were NOT read for module files behind a `#[cfg]` off in this check (cap of 3,000 per package)",
            run.modules_files_not_read
        ));
    }
    if !selection.is_default() && !run.compile_errors.is_empty() {
        lines.push(format!(
            "cargo check with `{}` stopped at compile_error!: {} — the crate refuses this combination of features (mutually exclusive features, a cargo error, not a bug in the code): check the features one at a time with \"features\": [...] instead",
            selection.cargo_args().join(" "),
            run.compile_errors.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
        ));
    }
    lines
}

/// The `cargo:warning=` lines of the workspace's own build scripts in a cargo check (trial28
/// M12: httparse's "building for no_std disables httparse SIMD" said why its SIMD modules were
/// not compiled): cargo's `--quiet` (which the check passes) drops them from stderr, so they are
/// read from each script's saved stdout, the `output` file beside the `out_dir` its
/// `build-script-executed` message names, read beneath `workspace_root` (a target directory
/// elsewhere is not read). Only `path+file` packages: cargo shows no dependency's warnings
/// either. As `httparse@1.10.1: message`, in message order, no repeats.
pub fn build_script_warnings(cargo_stdout: &str, workspace_root: &Path) -> Vec<String> {
    let mut warnings: Vec<String> = Vec::new();
    for line in cargo_stdout.lines().filter(|line| line.contains("\"build-script-executed\"")) {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        let (Some(package_id), Some(out_dir)) = (message["package_id"].as_str(), message["out_dir"].as_str()) else { continue };
        let Some(package) = package_id.strip_prefix("path+file://").and_then(|rest| rest.split_once('#')).map(|(_, package)| package)
        else {
            continue;
        };
        let Some(output) = Path::new(out_dir).parent().map(|build_dir| build_dir.join("output")) else { continue };
        if !output.starts_with(workspace_root) {
            continue;
        }
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &output) else { continue };
        for warning in text.lines().filter_map(|line| line.strip_prefix("cargo::warning=").or_else(|| line.strip_prefix("cargo:warning=")))
        {
            let said = format!("{package}: {warning}");
            if !warnings.contains(&said) {
                warnings.push(said);
            }
        }
    }
    warnings
}

/// `src/lib.rs:21 (serde)`, or for a module file declared under a gate
/// `src/serde_untagged.rs (whole file: its `mod` at src/lib.rs:21 is gated on serde)`; for code
/// compiled only without enabled features (`negated`), `src/imp_cs.rs (whole file: its `mod` at
/// src/lib.rs:370 is compiled only without std)`.
fn gated_file_text(file: &crate::lsp::cargo_features::GatedFile, negated: bool, supervisor: &LspSupervisor) -> String {
    let features = file.features.join(", ");
    match &file.declared_at {
        Some((declaring, line)) => format!(
            "{} (whole file: its `mod` at {}:{line} is {} {features})",
            supervisor.display_path(&file.path),
            supervisor.display_path(declaring),
            if negated { "compiled only without" } else { "gated on" }
        ),
        None => format!("{}:{} ({features})", supervisor.display_path(&file.path), file.line),
    }
}

/// The structured form of one package's features.
fn package_summary(package: &PackageFeatures, supervisor: &LspSupervisor) -> crate::lsp::output::PackageFeaturesSummary {
    let file = |file: &crate::lsp::cargo_features::GatedFile| gated_file_text(file, false, supervisor);
    let negated_file = |file: &crate::lsp::cargo_features::GatedFile| gated_file_text(file, true, supervisor);
    crate::lsp::output::PackageFeaturesSummary {
        package: package.package.clone(),
        manifest: supervisor.display_path(&package.manifest),
        enabled: package.enabled.clone(),
        not_enabled: package.not_enabled.clone(),
        gated_files_total: package.gated_files.len(),
        gated_files: package.gated_files.iter().take(crate::lsp::cargo_features::GATED_FILES_SHOWN).map(file).collect(),
        negated_gates: package.negated_gates.iter().take(crate::lsp::cargo_features::GATED_FILES_SHOWN).map(negated_file).collect(),
    }
}

/// Whether `dir` holds Python sources (`.py`/`.pyi`) of its own, at most 4 levels down
/// (environment and build directories skipped). A folder whose only Python marker is a
/// `requirements.txt` for a docs build (`docs/requirements.txt`) has none.
/// Whether the TypeScript config at `outer` leaves the directory `inner` out of its program (a
/// file there would be outside its files/include/exclude).
fn typescript_config_excludes(supervisor: &LspSupervisor, outer: &Path, inner: &Path) -> bool {
    let Some(typescript) = supervisor.servers().find(|definition| definition.extensions.iter().any(|(extension, _)| extension == "ts"))
    else {
        return false;
    };
    !crate::lsp::project_scope::paths_outside_config(typescript, outer, &[inner.join("index.ts")]).is_empty()
}

/// Whether a `go.work` in `outer` (read beneath `workspace_root`) lists `inner` in a `use`
/// directive; `false` without one.
pub(crate) fn go_work_uses(workspace_root: &Path, outer: &Path, inner: &Path) -> bool {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &outer.join("go.work")) else { return false };
    let mut in_block = false;
    text.lines().any(|line| {
        let line = line.split("//").next().unwrap_or("").trim();
        let entry = if in_block {
            if line == ")" {
                in_block = false;
                return false;
            }
            line
        } else if let Some(rest) = line.strip_prefix("use") {
            let rest = rest.trim();
            if rest == "(" {
                in_block = true;
                return false;
            }
            rest
        } else {
            return false;
        };
        !entry.is_empty()
            && crate::files::path::lexically_normal(&outer.join(entry.trim_matches('"'))) == crate::files::path::lexically_normal(inner)
    })
}

/// Whether the go.mod in `outer` (read beneath `workspace_root`) `replace`s a module by the
/// directory `inner`: the module there is `outer`'s dependency.
fn go_replaced_directory(workspace_root: &Path, outer: &Path, inner: &Path) -> bool {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &outer.join("go.mod")) else { return false };
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| crate::files::path::lexically_normal(path));
    let inner = canonical(inner);
    crate::lsp::sibling_roots::go_mod_replace_dirs(&text).iter().any(|dir| canonical(&outer.join(dir)) == inner)
}

/// Whether the package whose Cargo.toml is in `inner` (beneath `outer`) is a member of the cargo
/// workspace whose root manifest is `outer`'s, read beneath `workspace_root`: `outer` declares
/// `[workspace]`, and `inner` matches a `members` glob or is a path dependency of `outer`'s
/// package (cargo's automatic members), and no `exclude` entry holds it. An unreadable manifest
/// counts as a member (the outer check then stands for it, as before).
pub(crate) fn cargo_workspace_includes(workspace_root: &Path, outer: &Path, inner: &Path) -> bool {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &outer.join("Cargo.toml")) else { return true };
    let Ok(document) = toml_edit::Document::parse(text) else { return true };
    let table = document.as_table();
    let Some(workspace) = table.get("workspace") else { return false };
    let Ok(relative) = inner.strip_prefix(outer) else { return true };
    let relative = relative.to_string_lossy().replace('\\', "/");
    let listed = |key: &str| -> Vec<String> {
        workspace
            .get(key)
            .and_then(|item| item.as_array())
            .map(|array| array.iter().filter_map(|value| value.as_str()).map(|entry| entry.trim_end_matches('/').to_owned()).collect())
            .unwrap_or_default()
    };
    let matches = |pattern: &str| {
        globset::Glob::new(pattern).ok().is_some_and(|glob| glob.compile_matcher().is_match(&relative)) || relative == pattern
    };
    if listed("exclude").iter().any(|excluded| relative == *excluded || relative.starts_with(&format!("{excluded}/"))) {
        return false;
    }
    if listed("members").iter().any(|member| matches(member)) {
        return true;
    }
    // A path dependency of the root package is a member too.
    ["dependencies", "dev-dependencies", "build-dependencies"].iter().any(|section| {
        table.get(section).and_then(|item| item.as_table_like()).is_some_and(|dependencies| {
            dependencies.iter().any(|(_, dependency)| {
                dependency.get("path").and_then(|path| path.as_str()).is_some_and(|path| {
                    crate::files::path::lexically_normal(&outer.join(path)) == crate::files::path::lexically_normal(inner)
                })
            })
        })
    })
}

fn has_python_sources(handle: &crate::files::Beneath, dir: &Path) -> bool {
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(handle, dir) else { return false };
    walk.max_depth(Some(4))
        .skip_names(&["node_modules", ".git", ".venv", "venv", "build", "dist"])
        .iter()
        .flatten()
        .any(|entry| entry.is_file() && entry.path().extension().is_some_and(|ext| ext == "py" || ext == "pyi"))
}

/// Whether a Python root nested in another keeps a checker run of its own: it has its own
/// pyright configuration (`pyrightconfig.json`) or its own environment (`.venv`/`venv`), which
/// the outer run would not use. Otherwise the outer run covers its files (pyright checks every
/// Python file under its root) and a second run would check them twice.
fn python_root_keeps_own_run(dir: &Path) -> bool {
    dir.join("pyrightconfig.json").is_file() || dir.join(".venv").is_dir() || dir.join("venv").is_dir()
}

/// Sorts records errors first (then warnings, information), then by path and 1-based line, and
/// collapses repeats of the same finding (same path, line and message, and the same
/// [`DiagnosticRecord::repeat_in_step`]) reported by two steps, targets or sources into one: the most severe is kept (`go vet` repeats the compiler's type errors, and
/// go 1.19 prints them without the `vet: ` prefix that marks them as errors), counted once, and
/// its `source` names every step that reported it (`go build, go vet`).
///
/// Different messages at one path, line and [`DiagnosticRecord::column`] merge only where they
/// are one error worded two ways:
/// - Go: an error only `go vet` reported (go/types' words) merges into one a compiler step
///   (`go build`, the compile-only `go test`) reported there (types2's words; google/btree:
///   26 counted for the compiler's 25, trial56 F2; go vet printing both wordings, trial143
///   F3), into `go test`'s first: vet type-checks a package's test variant, as `go test` does.
///   The first wording is kept. Two compiler steps' different messages at one position are two
///   errors: `go build` compiles the package without its `_test.go` files and `go test` with
///   them, so one position can hold a different error in each (trial173 F2: `undefined: helper`
///   from go build, `operator ! not defined on helper()` from go test, where a test file
///   declares `helper`). Messages equal once composite literals are written one way (go vet's
///   `(T literal)`, go build's `T{…}`) are one message.
/// - rustc: two errors with one code at the same repeat number whose messages are equal once
///   paths are cut — a crate's lib and lib test builds write `&IndexMap<K, V, S>` and
///   `&map::IndexMap<K, V, S>` (trial155 M2) —: the first wording is kept, with every build's
///   target in [`DiagnosticRecord::targets`].
///
/// Within one step, the same message at two columns of a line is two errors (see
/// [`deduplicated_by_message`]).
pub fn sorted_and_deduplicated(records: Vec<DiagnosticRecord>) -> Vec<DiagnosticRecord> {
    let kept = deduplicated_by_message(records);
    let sources = |record: &DiagnosticRecord| -> Vec<String> {
        record.source.as_deref().map(|sources| sources.split(", ").map(str::to_owned).collect()).unwrap_or_default()
    };
    let error_position = |record: &DiagnosticRecord| {
        record
            .column
            .filter(|_| record.severity == Severity::Error)
            .map(|column| (record.path.clone(), record.line, column, record.repeat_in_step))
    };
    // First pass: the same message written two ways (Go composite literals, rustc's paths).
    let mut merged: Vec<DiagnosticRecord> = Vec::with_capacity(kept.len());
    let mut at_position: std::collections::HashMap<(PathBuf, u32, u32, u32), Vec<usize>> = std::collections::HashMap::new();
    for record in kept {
        let position = error_position(&record);
        let earlier = position.as_ref().and_then(|position| at_position.get(position)).and_then(|candidates| {
            candidates.iter().copied().find(|&at| {
                let (first, second) = (sources(&merged[at]), sources(&record));
                let rustc_only = |sources: &[String]| !sources.is_empty() && sources.iter().all(|source| source == "rustc");
                // Only the same message once paths are cut: several different errors of one code
                // at one call site (`assert_eq!` lacking both `PartialEq` and `Debug`, E0277
                // twice) stay apart (review46 #1).
                let one_rustc_error_printed_twice = rustc_only(&first)
                    && rustc_only(&second)
                    && merged[at].code.is_some()
                    && merged[at].code == record.code
                    && crate::lsp::write_ledger_rules::without_path_qualifiers(&merged[at].message)
                        == crate::lsp::write_ledger_rules::without_path_qualifiers(&record.message);
                // go vet writes a composite literal `(FromIOFS literal)` where go build writes
                // `FromIOFS{}`: one error (trial110 M1: afero's iofs.go:160 counted twice, 103 for 102).
                one_rustc_error_printed_twice
                    || (go_steps_only(&first)
                        && go_steps_only(&second)
                        && go_literal_normalized(&merged[at].message) == go_literal_normalized(&record.message))
            })
        });
        match earlier {
            Some(at) => {
                let first = merged[at].clone();
                merged[at] = merged_records(first, record);
            }
            None => {
                if let Some(position) = position {
                    at_position.entry(position).or_default().push(merged.len());
                }
                merged.push(record);
            }
        }
    }
    // Second pass: an error only go vet reported (go/types' words) is a compiler step's error
    // at its position worded by go/types, `go test`'s first (the same package variant).
    // Each compiler record takes at most one (go vet prints one go/types error per position).
    let mut absorbed_into: Vec<Option<usize>> = vec![None; merged.len()];
    let mut taken: HashSet<usize> = HashSet::new();
    for (index, record) in merged.iter().enumerate() {
        if sources(record) != ["go vet"] {
            continue;
        }
        let Some(candidates) = error_position(record).and_then(|position| at_position.get(&position)) else { continue };
        let compiled = |at: &usize| {
            let steps = sources(&merged[*at]);
            !taken.contains(at) && go_steps_only(&steps) && steps.iter().any(|step| is_go_compiler_step(step))
        };
        let by_go_test =
            candidates.iter().find(|at| compiled(at) && sources(&merged[**at]).iter().any(|step| step == GO_TEST_COMPILE_SOURCE));
        if let Some(&target) = by_go_test.or_else(|| candidates.iter().find(|at| compiled(at))) {
            absorbed_into[index] = Some(target);
            taken.insert(target);
        }
    }
    if absorbed_into.iter().all(Option::is_none) {
        return merged;
    }
    // The pair's record stands where the first of the two stood, with the first one's wording.
    let mut slots: Vec<Option<DiagnosticRecord>> = merged.into_iter().map(Some).collect();
    for index in 0..slots.len() {
        let Some(target) = absorbed_into[index] else { continue };
        // Both are there: a record is absorbed once, a target taken once.
        if slots[index].is_none() || slots[target].is_none() {
            continue;
        }
        let (Some(vet_only), Some(compiled)) = (slots[index].take(), slots[target].take()) else { continue };
        let (first_at, first, second) = if index < target { (index, vet_only, compiled) } else { (target, compiled, vet_only) };
        slots[first_at] = Some(merged_records(first, second));
    }
    slots.into_iter().flatten().collect()
}

/// `go_test_records` (the compile-only `go test`'s) without those that repeat one of go vet's
/// go/types errors in the compiler's words (`as type string` for vet's `as string value`, at
/// another column of the line: vet places a call's error at its argument list). vet's go/types
/// errors are its errors among `known` (the earlier steps' records) that no `go build` record
/// repeats on their line: vet prints the compiler's errors of the package go build compiles too,
/// without the `vet: ` prefix. For each, on its line: nothing is dropped when a `go test` record
/// has vet's words (the same words merge as a repeat anyway); else the one nearest vet's column
/// that is not go build's error there. Only one per vet error: the test variant's other errors on
/// that line are errors of their own (trial173 F2: `E does not implement constraints.Ordered`
/// and `operator ! not defined on cmp(…)` on one line, the second dropped as vet's `undefined:
/// cmp` reworded, which was go build's).
fn without_go_test_rewordings_of_vet_errors(known: &[DiagnosticRecord], go_test_records: Vec<DiagnosticRecord>) -> Vec<DiagnosticRecord> {
    let by_go_build_on_line = |record: &DiagnosticRecord, message: &str| {
        known.iter().any(|build| {
            build.source.as_deref() == Some("go build")
                && build.path == record.path
                && build.line == record.line
                && build.message == message
        })
    };
    let mut dropped: HashSet<usize> = HashSet::new();
    for vet in known
        .iter()
        .filter(|vet| vet.severity == Severity::Error && vet.source.as_deref() == Some("go vet") && !by_go_build_on_line(vet, &vet.message))
    {
        let on_line: Vec<usize> = (0..go_test_records.len())
            .filter(|&at| {
                let test = &go_test_records[at];
                test.severity == Severity::Error && test.path == vet.path && test.line == vet.line && !dropped.contains(&at)
            })
            .collect();
        if on_line.iter().any(|&at| go_test_records[at].message == vet.message) {
            continue;
        }
        let column_distance = |at: &usize| match (go_test_records[*at].column, vet.column) {
            (Some(test), Some(vet)) => test.abs_diff(vet),
            _ => u32::MAX,
        };
        let reworded = on_line
            .iter()
            .copied()
            .filter(|&at| !by_go_build_on_line(&go_test_records[at], &go_test_records[at].message))
            .min_by_key(column_distance);
        if let Some(at) = reworded {
            dropped.insert(at);
        }
    }
    go_test_records.into_iter().enumerate().filter(|(at, _)| !dropped.contains(at)).map(|(_, record)| record).collect()
}

/// `first` with `second`'s targets and sources added (each source once): two records found to be
/// one error; `first`'s message, severity and position are kept.
fn merged_records(mut first: DiagnosticRecord, second: DiagnosticRecord) -> DiagnosticRecord {
    let source_list = |record: &DiagnosticRecord| -> Vec<String> {
        record.source.as_deref().map(|sources| sources.split(", ").map(str::to_owned).collect()).unwrap_or_default()
    };
    let mut all = source_list(&first);
    for source in source_list(&second) {
        if !all.contains(&source) {
            all.push(source);
        }
    }
    first.targets.extend(second.targets);
    if !all.is_empty() {
        first.source = Some(all.join(", "));
    }
    first
}

/// Whether every one of `sources` is a step of the Go checker (`go vet`, `go build`, the
/// compile-only `go test`, `gopls check`), and there is one.
fn go_steps_only(sources: &[String]) -> bool {
    !sources.is_empty() && sources.iter().all(|source| source.starts_with("go ") || source == GOPLS_CHECK_SOURCE)
}

/// Whether `source` is a Go step that prints the compiler's (types2's) words: `go build` or the
/// compile-only `go test` (`go vet`'s `vet: ` lines are go/types').
fn is_go_compiler_step(source: &str) -> bool {
    source == "go build" || source == GO_TEST_COMPILE_SOURCE
}

/// A Go compiler message with its composite literals written one way: go vet's `(T literal)` and
/// go build's `T{…}` (whatever is between the braces) both become `T{…}`.
fn go_literal_normalized(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find(['(', '{']) {
        let (before, from) = rest.split_at(open);
        if let Some(inside) = from.strip_prefix('(') {
            if let Some(close) = inside.find(" literal)") {
                let name = &inside[..close];
                if !name.is_empty() && !name.contains(' ') {
                    out.push_str(before);
                    out.push_str(name);
                    out.push_str("{…}");
                    rest = &inside[close + " literal)".len()..];
                    continue;
                }
            }
            out.push_str(before);
            out.push('(');
            rest = inside;
        } else {
            // `T{…}`: the braces' contents dropped (nested ones included).
            out.push_str(before);
            let mut depth = 0usize;
            let mut end = from.len();
            for (at, c) in from.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = at + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push_str("{…}");
            rest = &from[end.min(from.len())..];
        }
    }
    out.push_str(rest);
    out
}

/// [`sorted_and_deduplicated`]'s first pass: the sort, and repeats of the same message merged.
/// Two records of one step (the same source: `rustc` for every cargo target) at different
/// columns of one line are two errors even with the same words (bytes 1.7.2 downstream,
/// trial142 F2: two E0061 on `lib.rs:78`, columns 12 and 24, read as one "repeated by another
/// target"); records of different steps merge whatever their columns (go vet places a call's
/// error at its argument list, go build at the call: trial143's recheck), and a record without
/// a column matches any.
fn deduplicated_by_message(mut records: Vec<DiagnosticRecord>) -> Vec<DiagnosticRecord> {
    records.sort_by(|a, b| (a.severity, &a.path, a.line).cmp(&(b.severity, &b.path, b.line)));
    let mut kept: Vec<DiagnosticRecord> = Vec::with_capacity(records.len());
    let mut index: std::collections::HashMap<(PathBuf, u32, String, u32), Vec<usize>> = std::collections::HashMap::new();
    for record in records {
        let key = (record.path.clone(), record.line, record.message.clone(), record.repeat_in_step);
        let same = index.get(&key).and_then(|candidates| {
            candidates.iter().copied().find(|&at| {
                let same_step = kept[at]
                    .source
                    .as_deref()
                    .zip(record.source.as_deref())
                    .is_some_and(|(known, source)| known.split(", ").any(|known| known == source));
                match (kept[at].column, record.column) {
                    (Some(first), Some(second)) if same_step => first == second,
                    _ => true,
                }
            })
        });
        match same {
            Some(at) => {
                // Sorted by severity: the one kept is at least as severe.
                kept[at].targets.extend(record.targets);
                if let Some(source) = record.source {
                    let first = &mut kept[at].source;
                    match first {
                        Some(sources) if !sources.split(", ").any(|known| known == source) => {
                            sources.push_str(", ");
                            sources.push_str(&source);
                        }
                        Some(_) => {}
                        None => *first = Some(source),
                    }
                }
            }
            None => {
                index.entry(key).or_default().push(kept.len());
                kept.push(record);
            }
        }
    }
    kept
}

/// The checker binary: trusted, the project-local bin directories of `root` first, then `PATH`;
/// restricted, `path_env` (already filtered) only, never a binary that resolves inside the
/// workspace.
fn find_binary_for(
    names: &[&str],
    root: &Path,
    workspace_root: &Path,
    path_env: Option<&std::ffi::OsStr>,
    trust: WorkspaceTrust,
) -> Option<PathBuf> {
    if !trust.is_restricted() {
        return find_binary(names, root);
    }
    names
        .iter()
        .filter_map(|name| which::which_in(name, path_env, workspace_root).ok())
        .find(|found| !crate::trust::resolves_inside(workspace_root, found))
}

fn find_binary(names: &[&str], root: &Path) -> Option<PathBuf> {
    for name in names {
        for local in ["node_modules/.bin", ".venv/bin", "venv/bin"] {
            let candidate = root.join(local).join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        if let Ok(found) = which::which(name) {
            return Some(found);
        }
    }
    None
}

/// `confine`: start each step under the file-access confinement (Landlock) of
/// [`crate::lsp::confinement::tool_confinement`], which may also read the granted entries of
/// `project_outside_roots` (the run's, [`LspSupervisor::project_outside_roots`]); their files'
/// messages are quoted, confined or not.
#[allow(clippy::too_many_arguments)]
fn run_checker(
    checker: &str,
    root: &Path,
    workspace_root: &Path,
    path_env: Option<&std::ffi::OsStr>,
    budget: &CheckerBudget,
    trust: WorkspaceTrust,
    selection: &FeatureSelection,
    confine: bool,
    project_outside_roots: &[crate::lsp::confinement::ProjectOutsideRoot],
    typescript_mirrors: &crate::lsp::typescript_build_mode::TypeScriptBuildMirrors,
) -> CheckerRun {
    let end = budget.end;
    let start = Instant::now();
    let project_roots: &[crate::lsp::confinement::ProjectOutsideRoot] = if confine { project_outside_roots } else { &[] };
    let quoted_outside_roots: Vec<PathBuf> =
        project_outside_roots.iter().filter(|root| root.granted).map(|root| root.path.clone()).collect();
    let mut run = CheckerRun {
        command: String::new(),
        root: root.to_path_buf(),
        records: Vec::new(),
        problem: None,
        timed_out: false,
        elapsed: Duration::ZERO,
        interpreter: None,
        restricted: None,
        refused_by_trust: false,
        features: None,
        compile_errors: Vec::new(),
        build_script_warnings: Vec::new(),
        modules_not_compiled: Vec::new(),
        modules_files_not_read: 0,
        items_behind_off_target_cfgs: Vec::new(),
        target_check_steps: Vec::new(),
        targets_not_checked: Vec::new(),
        not_confined: None,
        python_scope: None,
        go_coverage: None,
        go_test_vet_findings: Vec::new(),
        selection: selection.clone(),
        selection_left_out: Vec::new(),
        build_mode: None,
    };
    // The interpreter pyright is given, for the confinement's read roots.
    let mut checker_interpreter: Option<PathBuf> = None;
    let mut cargo_stdout = String::new();
    if trust.is_restricted() {
        let refusal = match checker {
            "cargo" => Some(("cargo check", "it runs the project's build scripts (build.rs) and proc macros")),
            "dart" => Some(("dart analyze", "it runs the analyzer plugins analysis_options.yaml names")),
            _ => None,
        };
        if let Some((command, why)) = refusal {
            run.command = command.to_owned();
            run.refused_by_trust = true;
            run.problem = Some(format!(
                "not run: the workspace trust is restricted and {why} — code from the checkout (a human who trusts this checkout can pass --workspace-trust trusted)"
            ));
            return run;
        }
    }
    let mut restricted_notes: Vec<String> = Vec::new();
    let mut extra_env: Vec<(String, String)> = Vec::new();
    // A generated pyright configuration (restricted runs), removed when this run ends.
    let mut generated_config: Option<tempfile::TempDir> = None;
    // Where tsc writes an incremental project's build info, removed when this run ends; the
    // confined checker may write there (a clean rxjs failed with "Permission denied" on it,
    // recheck of trial152 M4).
    let mut build_info_dir: Option<tempfile::TempDir> = None;
    // A config with project references: `tsc -b` in the workspace's scratch mirror, held for
    // this run (trial176 F1–F3).
    let mut build_mirror: Option<crate::lsp::typescript_build_mode::MirrorLease<'_>> = None;
    let steps: Vec<(Vec<&str>, Vec<String>)> = match checker {
        // All targets, as rust-analyzer's own check does: a project whose tests or benches do not
        // compile is broken (semver's bench needs nightly: E0554). `--keep-going` reports every
        // target's errors, not only the first failing one's. Costlier than the library alone
        // (dev-dependencies are checked too; semver: 0.1 s → 0.3 s warm), and said in the command.
        // The call's features (`--features`, `--all-features`, `--no-default-features`) follow.
        "cargo" => {
            let mut args: Vec<String> =
                vec!["check".into(), "--all-targets".into(), "--keep-going".into(), "--message-format=json".into(), "--quiet".into()];
            args.extend(selection.cargo_args());
            args.push("--target-dir".into());
            args.push(rust_analyzer_target_dir());
            vec![(vec!["cargo"], args)]
        }
        "pyright" => {
            // The same interpreter the language servers get (a configured venv, the project's
            // .venv/venv, else python3 on PATH), so imports resolve against the project's
            // packages and not whatever the checker's own PATH finds.
            let mut args: Vec<String> = vec!["--outputjson".into()];
            let marker = PYRIGHT_MARKERS.iter().map(|name| root.join(name)).find(|path| path.is_file());
            match crate::python_env::resolve_project_interpreter(root, workspace_root, marker.as_deref(), path_env) {
                Ok(interpreter) if trust.is_restricted() && crate::lsp::trust::interpreter_inside(&interpreter, workspace_root) => {
                    let shown = crate::python_env::display_interpreter_path(workspace_root, &interpreter.python);
                    let search = path_env.map(std::ffi::OsStr::to_os_string);
                    let base = crate::lsp::trust::base_or_search_path_python(&interpreter, workspace_root, search.as_ref());
                    run.interpreter = Some(match &base {
                        Some(base) => format!("{} in place of {shown} ({})", base.display(), interpreter.reason(workspace_root)),
                        None => {
                            format!("none in place of {shown}: no interpreter outside the workspace; pyright uses python3 on its own PATH")
                        }
                    });
                    if let Some(base) = &base {
                        args.push("--pythonpath".into());
                        args.push(base.to_string_lossy().into_owned());
                        checker_interpreter = Some(base.clone());
                    }
                    let venv = interpreter.venv_dir().map(Path::to_path_buf);
                    let has_config = crate::python_env::has_pyright_config(root, workspace_root);
                    match (venv, has_config) {
                        (Some(venv), false) => match generated_pyright_config(root, &venv) {
                            Ok((dir, config)) => {
                                args.push("-p".into());
                                args.push(config.to_string_lossy().into_owned());
                                generated_config = Some(dir);
                                restricted_notes.push(format!(
                                    "{shown} is not run (its startup runs the environment's .pth files); a generated configuration names {} so pyright reads its packages as files",
                                    crate::python_env::display_interpreter_path(workspace_root, &venv)
                                ));
                            }
                            Err(why) => restricted_notes.push(format!(
                                "{shown} is not run; the packages installed there are not seen (no configuration could be generated: {why})"
                            )),
                        },
                        (Some(_), true) => restricted_notes.push(format!(
                            "{shown} is not run (its startup runs the environment's .pth files); unless the project's pyright configuration names that venv (venvPath/venv), imports of packages installed only there are reported unresolved"
                        )),
                        (None, _) => restricted_notes.push(format!("{shown} is not run: it lies inside the workspace")),
                    }
                }
                Ok(interpreter) => {
                    let shown = crate::python_env::display_interpreter_path(workspace_root, &interpreter.python);
                    run.interpreter = Some(format!("{shown} ({})", interpreter.reason(workspace_root)));
                    args.push("--pythonpath".into());
                    args.push(interpreter.python.to_string_lossy().into_owned());
                    checker_interpreter = Some(interpreter.python.clone());
                }
                Err(why) => run.interpreter = Some(format!("none: {why}; pyright uses python3 on its own PATH")),
            }
            vec![(vec!["pyright", "basedpyright"], args)]
        }
        "tsc" if crate::lsp::typescript_build_mode::config_has_references(workspace_root, root) => {
            match typescript_mirrors.lease(workspace_root, root) {
                Ok(lease) => {
                    let projects: Vec<String> = crate::lsp::typescript_build_mode::projects_built_with(workspace_root, root)
                        .iter()
                        .map(|project| crate::render::display_path(workspace_root, project))
                        .collect();
                    run.build_mode = Some(lease.describe(&projects));
                    build_mirror = Some(lease);
                }
                Err(why) => {
                    // `tsc -p` would check against the referenced projects' build output, stale
                    // after any change to their sources: no check rather than a wrong one.
                    run.command = "tsc -b tsconfig.json --pretty false".to_owned();
                    run.problem = Some(format!(
                        "not run: this tsconfig.json has project references, so its check needs build mode (`tsc -b`), which runbound runs in a scratch mirror of the workspace, and the mirror could not be made: {why}. `tsc --noEmit -p` would check it against the referenced projects' build output (dist/), not their current sources, so it is not run either; run `tsc -b` yourself"
                    ));
                    return run;
                }
            }
            vec![(vec!["tsc"], vec!["-b".into(), "tsconfig.json".into(), "--pretty".into(), "false".into()])]
        }
        "tsc" => {
            let mut args: Vec<String> = vec!["--noEmit".into(), "-p".into(), "tsconfig.json".into(), "--pretty".into(), "false".into()];
            // An incremental (or composite) project: tsc writes its build info even under
            // `--noEmit`, beside the configuration — a read-only check left an 82 KB
            // `tsconfig.tsbuildinfo` in rxjs's workspace (trial152 M4). It goes to a temporary
            // directory instead, removed when this run ends.
            if typescript_config_builds_incrementally(root, workspace_root) {
                match tempfile::Builder::new().prefix("runbound-tsc-").tempdir() {
                    Ok(dir) => {
                        args.push("--tsBuildInfoFile".into());
                        args.push(dir.path().join("tsconfig.tsbuildinfo").to_string_lossy().into_owned());
                        build_info_dir = Some(dir);
                    }
                    Err(err) => restricted_notes.push(format!(
                        "tsc may write its build info (tsconfig.tsbuildinfo) into the project: no temporary directory for it ({err})"
                    )),
                }
            }
            vec![(vec!["tsc"], args)]
        }
        "go" => {
            if trust.is_restricted() {
                extra_env.push(("GOTOOLCHAIN".to_owned(), "local".to_owned()));
                restricted_notes.push("GOTOOLCHAIN=local (go.mod cannot switch to another Go toolchain)".to_owned());
            }
            // `-gcflags=-e`: every error, not the compiler's first 10 per package and a
            // "too many errors" line. A third step (`go test` compiling without running) is
            // added below for the packages whose type check stopped `go vet`.
            // Then `go list -e` of the module's packages: which import a package that failed
            // (go compiles none of them) and which files build constraints exclude; `gopls
            // check` is added for the files of the former.
            vec![
                (vec!["go"], vec!["vet".into(), "./...".into()]),
                // `-buildvcs=false`: a main package in a git checkout is otherwise stamped with
                // its VCS status, which runs git, which under the file-access confinement
                // cannot read what it needs ("error obtaining VCS status": robfig/cron + a
                // main package, trial27b M5); the check needs no stamp.
                (
                    vec!["go"],
                    vec!["build".into(), "-buildvcs=false".into(), "-gcflags=-e".into(), "-o".into(), "/dev/null".into(), "./...".into()],
                ),
                (vec!["go"], vec!["list".into(), "-e".into(), "-f".into(), GO_LIST_TEMPLATE.into(), "./...".into()]),
            ]
        }
        "dart" => vec![(vec!["dart"], vec!["analyze".into(), "--format=machine".into()])],
        _ => clang_steps(workspace_root, root),
    };
    if steps.is_empty() {
        // Only the clang checker can have no step: say so rather than answer "0 diagnostics".
        run.command = "clangd --check / clang-tidy".to_owned();
        run.problem = Some("no C/C++ source file (.c, .cc, .cpp, .cxx) within 4 levels of this root".to_owned());
        return run;
    }
    let mut commands = Vec::new();
    let child_path = restricted_search_path(std::env::var_os("PATH").as_deref(), workspace_root);
    if trust.is_restricted() {
        if !child_path.removed.is_empty() {
            extra_env.push(("PATH".to_owned(), child_path.value.clone().unwrap_or_default().to_string_lossy().into_owned()));
        }
        let names: Vec<String> = steps.iter().flat_map(|(names, _)| names.iter().map(|name| (*name).to_owned())).collect();
        let skipped = crate::lsp::trust::project_local_candidates(&names, root, workspace_root);
        if !skipped.is_empty() {
            restricted_notes.insert(
                0,
                format!(
                    "the project's own {} not run",
                    skipped
                        .iter()
                        .map(|path| crate::python_env::display_interpreter_path(workspace_root, path))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
    let mut steps = steps;
    // `--no-default-features` at a workspace root does not reach a member whose `default`
    // features another member's dependency keeps (cargo unifies features; trial180 F1: "0
    // errors" over a no-std itertools with 114): the members' features are read first, and each
    // such member gets a `cargo check -p NAME` of its own with the requested features.
    let mut features_read_first: Option<Result<Vec<PackageFeatures>, String>> = None;
    if checker == "cargo" && selection.no_default_features && !selection.all_features {
        let read = match find_binary_for(&["cargo"], root, workspace_root, path_env, trust) {
            Some(cargo) => {
                let timeout = end.saturating_duration_since(Instant::now()).max(Duration::from_secs(5));
                let confinement = confine.then(|| crate::lsp::confinement::tool_confinement(workspace_root, &cargo, None, project_roots));
                crate::lsp::cargo_features::package_features(&cargo, root, workspace_root, selection, &extra_env, timeout, confinement)
            }
            None => Err("cargo was not found, so the packages' features could not be read".to_owned()),
        };
        for package in read.iter().flatten().filter(|package| !package.defaults_kept_by.is_empty()) {
            let mut args: Vec<String> = vec![
                "check".into(),
                "-p".into(),
                package.spec.clone(),
                "--all-targets".into(),
                "--keep-going".into(),
                "--message-format=json".into(),
                "--quiet".into(),
                "--no-default-features".into(),
            ];
            if !package.own_features.is_empty() {
                args.push("--features".into());
                args.push(package.own_features.join(","));
            }
            args.push("--target-dir".into());
            args.push(rust_analyzer_target_dir());
            steps.push((vec!["cargo"], args));
        }
        features_read_first = Some(read);
    }
    let mut step_index = 0;
    // Go: the packages whose compilation failed (`go vet` stopped at their type errors, `go
    // build` printed their errors).
    let mut go_failed_packages: Vec<String> = Vec::new();
    let mut go_vet_stopped: Vec<String> = Vec::new();
    // Go: the packages whose in-package test files did not compile (their external test
    // package is then never compiled).
    let mut go_failed_test_variants: Vec<String> = Vec::new();
    let mut go_vet_load_error = false;
    let mut gopls_checked = false;
    while let Some((names, args)) = steps.get(step_index).cloned() {
        step_index += 1;
        let Some(binary) = find_binary_for(&names, root, workspace_root, path_env, trust) else {
            run.add_problem(match trust {
                WorkspaceTrust::Trusted => {
                    format!("missing checker: looked for {} on PATH and in node_modules/.bin, .venv/bin, venv/bin", names.join(" or "))
                }
                WorkspaceTrust::Restricted => format!(
                    "missing checker: looked for {} on PATH outside the workspace (restricted workspace trust: project-local binaries are not run)",
                    names.join(" or ")
                ),
            });
            commands.push(names.join("|"));
            continue;
        };
        let name = binary.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        commands.push(format!("{name} {}", args.join(" ")));
        let remaining = end.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            run.timed_out = true;
            run.add_problem(format!("`{name} {}` {}", args.join(" "), budget.spent_problem()));
            break;
        }
        let run_folder = build_mirror.as_ref().map_or_else(|| root.to_path_buf(), |lease| lease.folder_of(root));
        let mut spec = ProcessSpec::new(&binary, &run_folder).with_args(args.iter().cloned()).with_display_name(format!("checker {name}"));
        for (key, value) in &extra_env {
            spec = spec.with_env(key, value);
        }
        if confine {
            let mut confinement =
                crate::lsp::confinement::tool_confinement(workspace_root, &binary, checker_interpreter.as_deref(), project_roots);
            // The pyright configuration generated outside the workspace (restricted runs).
            if let Some(dir) = &generated_config {
                confinement.allow_read(dir.path());
                if let Ok(resolved) = std::fs::canonicalize(dir.path()) {
                    confinement.allow_read(resolved);
                }
            }
            if let Some(lease) = &build_mirror {
                confinement.allow_write(lease.directory());
                if let Ok(resolved) = std::fs::canonicalize(lease.directory()) {
                    confinement.allow_write(resolved);
                }
            }
            if let Some(dir) = &build_info_dir {
                confinement.allow_write(dir.path());
                if let Ok(resolved) = std::fs::canonicalize(dir.path()) {
                    confinement.allow_write(resolved);
                }
            }
            spec = spec.with_filesystem_confinement(confinement);
        }
        let shown = format!("{name} {}", args.first().map_or("", String::as_str));
        // The go list template is long and says nothing to the reader.
        if let Some(last) = commands.last_mut().filter(|_| checker == "go" && args[0] == "list") {
            *last = "go list -e -f <packages, files, imports> ./...".to_owned();
        }
        if let Some(last) = commands.last_mut().filter(|_| checker == "go" && args[0] == "check") {
            *last = format!("gopls check <the {} files of the packages go never compiled>", args.len() - 1);
        }
        let describe = |elapsed: Duration| format!("checker `{shown}` running, {} s", elapsed.as_secs());
        let completed =
            match crate::progress::while_waiting(Some(remaining), describe, || run_to_completion(spec, b"", remaining, 8 * 1024 * 1024)) {
                Ok(completed) => completed,
                Err(err) => {
                    run.add_problem(format!("{name} failed to run: {}", err.message));
                    continue;
                }
            };
        if let Some(crate::transport::ConfinementOutcome::NotConfined { reason }) = &completed.filesystem_confinement {
            run.not_confined.get_or_insert_with(|| format!("`{name}` ran with file reads not confined: {reason}"));
        }
        let stdout = String::from_utf8_lossy(&completed.stdout);
        let stderr = String::from_utf8_lossy(&completed.stderr);
        if completed.timed_out {
            run.timed_out = true;
            run.add_problem(budget.timeout_problem(&name, completed.elapsed));
            // A killed run's report is cut: pyright's JSON comes whole at the end (nothing to
            // keep), line-based output keeps the lines printed before the kill.
            if checker == "pyright" {
                break;
            }
        }
        if checker == "cargo" {
            run.compile_errors.extend(compile_error_messages(&stdout, root));
            cargo_stdout.push_str(&stdout);
        }
        let parsed = match checker {
            "cargo" => parse_cargo(&stdout, root),
            "pyright" => parse_pyright(&stdout, root),
            "tsc" => match &build_mirror {
                Some(lease) => parse_tsc(&stdout, &run_folder).map(|records| lease.records_in_workspace(records)),
                None => parse_tsc(&stdout, root),
            },
            "go" => parse_go(
                if args[0] == "check" { &stdout } else { &stderr },
                root,
                match args[0].as_str() {
                    "vet" => "go vet",
                    "test" => GO_TEST_COMPILE_SOURCE,
                    "check" => GOPLS_CHECK_SOURCE,
                    _ => "go build",
                },
            )
            // go list prints no diagnostic (its -e errors are the build's, reported by go build).
            .map(|records| if args[0] == "list" { Vec::new() } else { records }),
            "dart" => parse_dart(&stdout, root),
            _ => parse_clang(&format!("{stdout}\n{stderr}"), root, args.last().map(|arg| arg.trim_start_matches("--check=")).unwrap_or("")),
        };
        // The second `go vet`, with only the analyzers `go test` runs: its findings are already
        // in the records of the first; they are marked, not added.
        let go_test_vet_step = checker == "go" && args[0] == "vet" && args.get(1).is_some_and(|arg| arg.starts_with('-'));
        match parsed {
            Ok(records) if go_test_vet_step => {
                run.go_test_vet_findings = records.into_iter().filter(|record| record.severity == Severity::Warning).collect();
            }
            Ok(mut records) => {
                withhold_messages_from_unknown_outside_files(workspace_root, &quoted_outside_roots, &mut records);
                // pyright and tsc print each diagnostic of their one program once: equal
                // records are distinct diagnostics. The others repeat within a step: cargo once
                // per target (lib, test, bench), go vet for a package and its test variant,
                // clang-tidy for a header in each translation unit.
                if matches!(checker, "pyright" | "tsc") {
                    number_repeats_within_step(&mut records);
                }
                let missing = if checker == "go" && !completed.status.success() { go_missing_modules(&stderr) } else { Vec::new() };
                if !missing.is_empty() {
                    // A failed download is the environment's, not a diagnostic of the project.
                    records.retain(|record| !is_go_download_failure(&record.message));
                    if !completed.timed_out && run.problem.is_none() {
                        let shown_root = crate::render::display_path(workspace_root, root);
                        let mut names: Vec<String> = missing.iter().take(5).cloned().collect();
                        if missing.len() > 5 {
                            names.push(format!("and {} more", missing.len() - 5));
                        }
                        let last = stderr.lines().rev().find(|line| is_go_download_failure(line)).unwrap_or("").trim();
                        run.problem = Some(format!(
                            "the Go module at {shown_root} could not be checked{}: its dependencies are not available locally ({}); go tried to download them and could not (`{last}`); the other runs are not affected. To check it, make them available (`go mod download` in {shown_root} where a module proxy is reachable, or a vendor/ folder); to leave it out, call lsp with {{\"op\": \"diagnostics\", \"file\": \"*\", \"exclude\": [\"{shown_root}\"]}}",
                            if records.is_empty() { "" } else { " in full (what go reported before it stopped is listed)" },
                            names.join(", ")
                        ));
                    }
                    // The next steps (go build, go test) need the same modules.
                    run.records.extend(records);
                    break;
                }
                if records.is_empty() && !completed.status.success() && !completed.timed_out && run.problem.is_none() {
                    let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
                    run.problem = Some(format!(
                        "{name} exited with {} without parseable diagnostics: {}",
                        completed.status,
                        tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                    ));
                }
                if checker == "go" && args[0] == "test" {
                    records = without_go_test_rewordings_of_vet_errors(&run.records, records);
                }
                run.records.extend(records);
            }
            Err(_) if completed.timed_out => {}
            Err(why) => run.add_problem(format!("{name} output could not be parsed: {why}")),
        }
        if checker == "go" && args[0] == "vet" && !go_test_vet_step && !completed.timed_out {
            // The packages with analyzer findings get a second `go vet` with only the
            // analyzers `go test` runs, which says which findings make `go test` refuse to
            // build (vet prints no analyzer name without -json).
            let mut finding_directories: Vec<String> = run
                .records
                .iter()
                .filter(|record| record.severity == Severity::Warning && record.source.as_deref() == Some("go vet"))
                .filter_map(|record| record.path.parent()?.strip_prefix(root).ok().map(|relative| format!("./{}", relative.display())))
                .map(|directory| if directory == "./" { ".".to_owned() } else { directory })
                .collect();
            finding_directories.sort();
            finding_directories.dedup();
            if !finding_directories.is_empty() {
                let mut subset_args = vec!["vet".to_owned()];
                subset_args.extend(
                    crate::lsp::write_ledger_rules::go_test_vet_analyzers(workspace_root).iter().map(|analyzer| format!("-{analyzer}")),
                );
                subset_args.extend(finding_directories);
                steps.push((vec!["go"], subset_args));
            }
            // go vet stops a package at its first type error, before its _test.go files, and
            // go build never compiles those: compile the test variants of those packages
            // without running them (`-exec` a no-op), so test-file errors are counted too.
            // Also those whose test variant did not compile: the compiler stopped at 10 errors.
            let stopped = go_vet_packages_stopped_by_type_errors(&stderr);
            go_vet_stopped.extend(stopped.iter().cloned());
            go_vet_load_error |= !completed.status.success() && stderr.lines().any(is_go_load_error);
            // A package whose type errors are all in its `_test.go` files compiled: the
            // packages importing it are compiled too.
            let outside_tests = go_vet_packages_with_type_errors_outside_tests(&stderr);
            go_failed_test_variants.extend(
                stopped
                    .iter()
                    .filter(|package| !outside_tests.contains(package) && !package.ends_with("_test"))
                    .cloned()
                    .chain(go_vet_test_variants_not_compiled(&stderr).into_iter().filter(|package| !package.ends_with("_test"))),
            );
            go_failed_packages.extend(outside_tests);
            let test_variants = go_vet_test_variants_not_compiled(&stderr);
            if !stopped.is_empty() || !test_variants.is_empty() {
                let mut test_args: Vec<String> =
                    ["test", "-gcflags=-e", "-vet=off", "-count=1", "-run=^$", "-exec=/bin/true"].into_iter().map(str::to_owned).collect();
                for target in stopped.iter().chain(&test_variants).map(|package| go_test_target(package)) {
                    if !test_args.iter().any(|known| known == target) {
                        test_args.push(target.to_owned());
                    }
                }
                steps.push((vec!["go"], test_args));
            }
        }
        if checker == "go" && args[0] == "build" && !completed.timed_out {
            for package in go_packages_with_errors(&stderr) {
                if !go_failed_packages.contains(&package) {
                    go_failed_packages.push(package);
                }
            }
        }
        if checker == "go" && args[0] == "list" && !completed.timed_out && completed.status.success() {
            let mut coverage = go_coverage_from_list(&stdout, &go_failed_packages, &go_failed_test_variants, root);
            coverage.vet_analyzers_not_run = go_vet_stopped.clone();
            coverage.vet_stopped_at_load_error = go_vet_load_error;
            let mut files: Vec<String> = coverage
                .packages_not_compiled
                .iter()
                .flat_map(|package| &package.files)
                .map(|file| file.strip_prefix(root).unwrap_or(file).to_string_lossy().into_owned())
                .collect();
            // Test files first: gopls check prints each file's diagnostics as of its first
            // publication after all were opened, and a package file opened before its
            // package's test file was seen to lose its errors now and then (gopls 0.11: the
            // test variant's later re-check of it; `c.go c_test.go` gave 1 of 2 errors once in
            // 5 runs, `c_test.go c.go` 2 in 13 of 13).
            files.sort_by_key(|file| !file.ends_with("_test.go"));
            if !files.is_empty() {
                // gopls type-checks a package whatever its imports' errors: what the compiler
                // never reached.
                let mut check_args = vec!["check".to_owned()];
                check_args.extend(files);
                steps.push((vec!["gopls"], check_args));
            }
            run.go_coverage = Some(coverage);
        }
        if checker == "go" && args[0] == "check" {
            gopls_checked = !completed.timed_out && completed.status.success();
            if !gopls_checked && run.problem.is_none() {
                let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
                run.problem = Some(format!(
                    "`gopls check` of the packages go never compiled exited with {}: {} — their errors are NOT all counted",
                    completed.status,
                    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ));
            }
        }
    }
    run.command = commands.join(" && ");
    run.elapsed = start.elapsed();
    if let Some(coverage) = &mut run.go_coverage {
        // gopls check ran to its end over the files of the packages go never compiled.
        coverage.checked_by_gopls = !coverage.packages_not_compiled.is_empty() && gopls_checked;
    }
    if checker == "cargo" {
        // Which features the check left off, and where code is gated on them: read after the
        // check (whose own time is what the answer reports), within what is left of the budget
        // (at least 5 s: `cargo metadata --no-deps` reads manifests only).
        run.features = Some(match features_read_first {
            Some(read) => read,
            None => match find_binary_for(&["cargo"], root, workspace_root, path_env, trust) {
                Some(cargo) => {
                    let timeout = end.saturating_duration_since(Instant::now()).max(Duration::from_secs(5));
                    let confinement =
                        confine.then(|| crate::lsp::confinement::tool_confinement(workspace_root, &cargo, None, project_roots));
                    crate::lsp::cargo_features::package_features(&cargo, root, workspace_root, selection, &extra_env, timeout, confinement)
                }
                None => Err("cargo was not found, so the packages' features could not be read".to_owned()),
            },
        });
        if let Some(Ok(packages)) = &run.features {
            run.targets_not_checked = cargo_targets_not_checked(&cargo_stdout, packages);
            run.build_script_warnings = build_script_warnings(&cargo_stdout, workspace_root);
            let package_dirs: Vec<PathBuf> =
                packages.iter().filter_map(|package| package.manifest.parent().map(Path::to_path_buf)).collect();
            let (modules, files_not_read) = crate::lsp::cfg_off_modules::modules_not_compiled(
                workspace_root,
                &package_dirs,
                &crate::lsp::cfg_off_modules::build_script_cfgs_set(&cargo_stdout),
            );
            // Items behind gates for another target (trial167 F2), with the `cargo check
            // --target` that compiles them, an installed target preferred (its sysroot read
            // through `rustc --print sysroot`, only when there are such items).
            let whole_modules: HashSet<PathBuf> = modules.iter().map(|module| module.path.clone()).collect();
            let (gated, gated_not_read) =
                crate::lsp::cfg_off_modules::items_behind_off_target_cfgs(workspace_root, &package_dirs, &whole_modules);
            if !gated.is_empty() {
                let sysroot = find_binary_for(&["rustc"], root, workspace_root, path_env, trust).and_then(|rustc| {
                    let timeout = end.saturating_duration_since(Instant::now()).max(Duration::from_secs(5));
                    let confinement =
                        confine.then(|| crate::lsp::confinement::tool_confinement(workspace_root, &rustc, None, project_roots));
                    rust_sysroot(&rustc, root, &extra_env, timeout, confinement)
                });
                let installed =
                    |triple: &str| sysroot.as_ref().map(|sysroot| sysroot.join("lib/rustlib").join(triple).join("lib").is_dir());
                run.target_check_steps = crate::lsp::cfg_off_modules::target_check_steps(&gated, installed, 3);
            }
            run.items_behind_off_target_cfgs = gated;
            run.modules_not_compiled = modules;
            run.modules_files_not_read = files_not_read + gated_not_read;
        }
    }
    if trust.is_restricted() {
        run.restricted = Some(if restricted_notes.is_empty() {
            "no project-local binary; nothing else of the checkout runs in this checker".to_owned()
        } else {
            restricted_notes.join("; ")
        });
    }
    drop(generated_config);
    run
}

/// At most this many files with items behind another target's gates are named: 8.
const TARGET_GATED_FILES_SHOWN: usize = 8;

/// The line of a cargo run's answer for its items behind gates that are off for this host's
/// target ([`CheckerRun::items_behind_off_target_cfgs`]): per file how many and at which lines
/// (capped), the gates, and the `cargo check --all-targets --target …` that compiles them, an
/// installed target named as such and another with its `rustup target add` first (trial167 F2).
/// `None` without such items.
fn target_gated_items_line(run: &CheckerRun, supervisor: &LspSupervisor) -> Option<String> {
    const LINES_SHOWN: usize = 6;
    let files = &run.items_behind_off_target_cfgs;
    if files.is_empty() {
        return None;
    }
    let total: usize = files.iter().map(|file| file.items.len()).sum();
    let shown: Vec<String> = files
        .iter()
        .take(TARGET_GATED_FILES_SHOWN)
        .map(|file| {
            let lines: Vec<String> = file.items.iter().take(LINES_SHOWN).map(|item| item.line.to_string()).collect();
            let more = if file.items.len() > LINES_SHOWN { ", …" } else { "" };
            format!(
                "{} ({}: {} {}{more})",
                supervisor.display_path(&file.path),
                file.items.len(),
                if file.items.len() == 1 { "line" } else { "lines" },
                lines.join(", ")
            )
        })
        .collect();
    let more_files = files.len().saturating_sub(TARGET_GATED_FILES_SHOWN);
    let mut gates: Vec<(&str, usize)> = Vec::new();
    for item in files.iter().flat_map(|file| &file.items) {
        match gates.iter_mut().find(|(gate, _)| *gate == item.cfg) {
            Some((_, count)) => *count += 1,
            None => gates.push((&item.cfg, 1)),
        }
    }
    gates.sort_by_key(|gate| std::cmp::Reverse(gate.1));
    let gates_said: Vec<String> = gates.iter().take(4).map(|(gate, count)| format!("`{gate}` {count}")).collect();
    let reached: usize = run.target_check_steps.iter().map(|(_, count, _)| count).sum();
    let steps: Vec<String> = run
        .target_check_steps
        .iter()
        .map(|(target, count, installed)| {
            let check = format!("`cargo check --all-targets --target {target}`");
            let items = crate::render::plural(*count, "item");
            match installed {
                Some(true) => format!("{check} ({items}; the target is installed here)"),
                Some(false) => format!("`rustup target add {target}` then {check} ({items}; the target is not installed)"),
                None => format!("{check} ({items}; `rustup target list --installed` shows whether it is installed, else `rustup target add {target}` first)"),
            }
        })
        .collect();
    let unreached =
        if total > reached { format!("; {} not reached by these", crate::render::plural(total - reached, "item")) } else { String::new() };
    Some(format!(
        "code behind a `#[cfg]` for another target, off on this host, was NOT compiled, so no error in it is reported (whatever the features): {} in {} — {}{}; gates: {}; to check it: {}{unreached} (not run here: another target's check compiles the dependencies again)",
        crate::render::plural(total, "item"),
        crate::render::plural(files.len(), "file"),
        shown.join(", "),
        if more_files > 0 { format!(", and {more_files} more files") } else { String::new() },
        gates_said.join(", "),
        if steps.is_empty() { "no target with a standard library turns them on (read the gates)".to_owned() } else { steps.join(", and ") },
    ))
}

/// The headline clause for items behind another target's gates in the cargo runs, pointing at
/// the line below ([`target_gated_items_line`]); empty without such items.
fn target_gated_items_headline(runs: &[CheckerRun]) -> String {
    let files: Vec<&crate::lsp::cfg_off_modules::TargetGatedFile> = runs.iter().flat_map(|run| &run.items_behind_off_target_cfgs).collect();
    if files.is_empty() {
        return String::new();
    }
    let total: usize = files.iter().map(|file| file.items.len()).sum();
    format!(
        " — NOT checked: {} behind a `#[cfg]` for another target in {} (no check on this host compiles them), see below",
        crate::render::plural(total, "item"),
        crate::render::plural(files.len(), "file")
    )
}

/// The sysroot of the toolchain `rustc` runs in `root` (`rustc --print sysroot`: rustup's proxy
/// picks the project's `rust-toolchain.toml`), whose `lib/rustlib/<triple>/lib` holds the
/// standard library of each installed target. `None` when it cannot be run or prints no
/// directory. `env` is passed to rustc (a restricted PATH); with `confinement`, it runs under
/// it.
fn rust_sysroot(
    rustc: &Path,
    root: &Path,
    env: &[(String, String)],
    timeout: Duration,
    confinement: Option<crate::transport::FilesystemConfinement>,
) -> Option<PathBuf> {
    let mut spec =
        ProcessSpec::new(rustc, root).with_args(["--print", "sysroot"].map(str::to_owned)).with_display_name("checker rustc sysroot");
    for (key, value) in env {
        spec = spec.with_env(key, value);
    }
    spec.filesystem_confinement = confinement;
    let completed = crate::transport::process::run_to_completion(spec, b"", timeout, 64 * 1024).ok()?;
    if completed.timed_out || !completed.status.success() {
        return None;
    }
    let printed = String::from_utf8_lossy(&completed.stdout).trim().to_owned();
    let sysroot = PathBuf::from(printed);
    (sysroot.is_absolute() && sysroot.is_dir()).then_some(sysroot)
}

/// Whether `root`'s `tsconfig.json` resolves `incremental` to true, or `composite` to true
/// without `incremental` false ([`crate::lsp::tsconfig_load::resolved_compiler_option`]): then
/// tsc writes a `.tsbuildinfo` file even under `--noEmit`. A commented-out option (`tsc --init`'s
/// template) sets nothing (review45 BUG 1).
fn typescript_config_builds_incrementally(root: &Path, workspace_root: &Path) -> bool {
    let option = |name: &str| crate::lsp::tsconfig_load::resolved_compiler_option(workspace_root, root, name);
    match option("incremental") {
        Some(incremental) => incremental,
        None => option("composite") == Some(true),
    }
}

/// A pyright configuration outside the workspace for a restricted run of a project with no
/// configuration of its own: it checks `root` (paths relative to the configuration, as pyright
/// requires) with pyright's default excludes and search paths (`root`, `root/src`), and names
/// `venv` through `venvPath` + `venv`, so pyright reads that environment's `site-packages` (and
/// `.pth` paths) as files instead of starting its interpreter. On python-dateutil 2.9.0 with its
/// real venv this gives the same 432 diagnostics as the trusted run, with 0 starts of the venv's
/// python (the trusted run starts it 4 times). Returns the temporary directory (removed on drop) and the file.
///
/// # Errors
/// When the directory or file cannot be written.
fn generated_pyright_config(root: &Path, venv: &Path) -> Result<(tempfile::TempDir, PathBuf), String> {
    let dir = tempfile::Builder::new().prefix("runbound-pyright-").tempdir().map_err(|err| err.to_string())?;
    let base = std::fs::canonicalize(dir.path()).map_err(|err| err.to_string())?;
    let relative_root = relative_path(&base, root);
    let (Some(venv_parent), Some(venv_name)) = (venv.parent(), venv.file_name()) else {
        return Err(format!("{} has no parent directory", venv.display()));
    };
    let exclude: Vec<String> =
        ["**/node_modules", "**/__pycache__", "**/.*"].iter().map(|pattern| format!("{relative_root}/{pattern}")).collect();
    // pyright's own defaults, relative to the project: imports resolve from its root and (what
    // `autoSearchPaths` adds) its `src`, as local code — not through the venv's editable `.pth`,
    // which would make them third-party and let typeshed's bundled stubs win.
    let extra_paths: Vec<String> = if root.join("src").is_dir() { vec![format!("{relative_root}/src")] } else { Vec::new() };
    let config = json!({
        "include": [relative_root],
        "exclude": exclude,
        "venvPath": venv_parent.to_string_lossy(),
        "venv": venv_name.to_string_lossy(),
        "executionEnvironments": [{"root": relative_root, "extraPaths": extra_paths}],
    });
    let file = base.join("pyrightconfig.json");
    std::fs::write(&file, config.to_string()).map_err(|err| err.to_string())?;
    Ok((dir, file))
}

/// `target` relative to `from` (both absolute): `../../ws/proj`.
fn relative_path(from: &Path, target: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let target: Vec<_> = target.components().collect();
    let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), from.len() - common).collect();
    parts.extend(target[common..].iter().map(|part| part.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// clang-tidy binaries, preferred first (Debian installs versioned names only).
const CLANG_TIDY_NAMES: &[&str] = &["clang-tidy", "clang-tidy-19", "clang-tidy-18", "clang-tidy-17", "clang-tidy-16", "clang-tidy-15"];

/// clangd binaries for the `--check` fallback, preferred first.
const CLANGD_NAMES: &[&str] = &["clangd", "clangd-19", "clangd-18", "clangd-17", "clangd-16", "clangd-15", "clangd-14"];

fn clang_steps(workspace_root: &Path, root: &Path) -> Vec<(Vec<&'static str>, Vec<String>)> {
    let mut files = Vec::new();
    // Listed beneath a handle of the run's root, no symlink followed (issue 13 §1).
    if let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, root) {
        if let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, root) {
            for entry in walk.max_depth(Some(4)).iter().flatten() {
                let path = entry.path();
                if matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "cc" | "cpp" | "cxx")) {
                    files.push(path.to_path_buf());
                }
            }
        }
    }
    files.sort();
    files.truncate(50);
    let tidy = CLANG_TIDY_NAMES.iter().find(|name| which::which(name).is_ok()).copied();
    files
        .into_iter()
        .map(|file| {
            let file = file.to_string_lossy().into_owned();
            match tidy {
                Some(name) => (vec![name], vec!["-p".to_owned(), root.to_string_lossy().into_owned(), file]),
                None => (CLANGD_NAMES.to_vec(), vec!["--log=error".to_owned(), format!("--check={file}")]),
            }
        })
        .collect()
}

fn record(root: &Path, file: &str, line: u64, severity: Severity, code: Option<String>, message: &str, source: &str) -> DiagnosticRecord {
    let path = if Path::new(file).is_absolute() { PathBuf::from(file) } else { root.join(file.trim_start_matches("./")) };
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    DiagnosticRecord {
        path,
        line: line.max(1) as u32,
        severity,
        code,
        message: message.split_whitespace().collect::<Vec<_>>().join(" "),
        source: Some(source.to_owned()),
        repeat_in_step: 0,
        also_at_lines: Vec::new(),
        column: None,
        targets: Vec::new(),
    }
}

/// The message a record keeps when its file lies outside the workspace and every dependency
/// root the run knows ([`crate::lsp::listing::ListedPath`]'s origins: site-packages,
/// `node_modules`, typeshed, toolchain sysroots, module and registry caches).
const WITHHELD_OUTSIDE_MESSAGE: &str = "message withheld: this file is outside the workspace and every dependency root the run knows (a workspace configuration or a directory swapped for a symlink can point a checker at any file); read the file yourself if you trust it";

/// Replaces the message of every record whose file (canonical, as [`record`] makes it) lies
/// outside `workspace_root`, every known dependency root and every granted outside root of the
/// project (`project_roots`) by
/// [`WITHHELD_OUTSIDE_MESSAGE`]: its path and line are still said, but nothing of the file's
/// content — pyright quotes identifiers and inferred types in its messages (issue 13 §2: only
/// dependency roots the run knows are quoted; the adversarial re-run saw a `"*"` pyright run
/// report an outside file's names through a workspace directory swapped for a symlink).
fn withhold_messages_from_unknown_outside_files(workspace_root: &Path, project_roots: &[PathBuf], records: &mut [DiagnosticRecord]) {
    for record in records {
        let listed = crate::lsp::listing::ListedPath::new_in_project(workspace_root, &record.path, project_roots);
        if listed.class == crate::lsp::listing::PathClass::Outside && listed.origin.is_none() {
            WITHHELD_OUTSIDE_MESSAGE.clone_into(&mut record.message);
        }
    }
}

/// Numbers the records of one step of a checker that never prints a diagnostic twice
/// ([`DiagnosticRecord::repeat_in_step`]): the second record with the same path, line and
/// message is 1, the third 2, … so [`sorted_and_deduplicated`] keeps them apart (pyright on
/// tomlkit 0.13.2: 388 errors, 21 of them a chained subscript's second `__getitem__` error at
/// the same start, had been counted 367 "repeated by another target or step").
fn number_repeats_within_step(records: &mut [DiagnosticRecord]) {
    let mut seen: std::collections::HashMap<(PathBuf, u32, String), u32> = std::collections::HashMap::new();
    for record in records {
        let count = seen.entry((record.path.clone(), record.line, record.message.clone())).or_insert(0);
        record.repeat_in_step = *count;
        *count += 1;
    }
}

/// `span` (a rustc JSON span), or — when its file is outside the package (an absolute path: the
/// standard library's sources, a registry crate) — the innermost span of its macro expansion
/// chain (`expansion.span`, followed outwards) whose file is a relative path, the package's own
/// call site; for a span in the package inside a macro's expansion, the outermost call site in
/// the package; `span` itself when the chain has none.
fn workspace_call_site(span: &Value) -> &Value {
    let outside = |span: &Value| span["file_name"].as_str().is_none_or(|file| Path::new(file).is_absolute());
    if !outside(span) {
        // A span inside the expansion of the package's own macro: the outermost call in the
        // package, one error per call as cargo counts them (trial75 F2: tinyvec's `array_vec!`
        // body held 42 errors of 42 calls, read as 6, "+152 repeated").
        let mut outermost = span;
        let mut current = span;
        for _ in 0..64 {
            let Some(call_site) = current.pointer("/expansion/span") else { break };
            if !outside(call_site) {
                outermost = call_site;
            }
            current = call_site;
        }
        return outermost;
    }
    let mut current = span;
    // Bounded: rustc's expansion chains are finite, and a hostile one is cut.
    for _ in 0..64 {
        let Some(call_site) = current.pointer("/expansion/span") else { break };
        if !outside(call_site) {
            return call_site;
        }
        current = call_site;
    }
    span
}

/// Parses `cargo check --message-format=json` stdout (compiler-message lines, primary spans; a
/// span inside a macro defined outside the package is placed at the package's call site).
///
/// # Errors
/// Never for now: non-JSON lines are skipped.
pub fn parse_cargo(stdout: &str, root: &Path) -> Result<Vec<DiagnosticRecord>, String> {
    let mut records = Vec::new();
    // Per shown (file, line, message): the distinct expansion chains seen there, in order.
    let mut expansion_chains: std::collections::HashMap<(String, u64, String), Vec<String>> = std::collections::HashMap::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        if message.get("reason").and_then(Value::as_str) != Some("compiler-message") {
            continue;
        }
        let inner = &message["message"];
        let severity = match inner.get("level").and_then(Value::as_str) {
            Some("error") => Severity::Error,
            Some("warning") => Severity::Warning,
            _ => continue,
        };
        let Some(span) = inner.get("spans").and_then(Value::as_array).and_then(|spans| spans.iter().find(|s| s["is_primary"] == true))
        else {
            continue;
        };
        // An error inside a macro defined elsewhere (`assert_eq!`'s `E0277` is spanned in
        // core's macros/mod.rs) is where the workspace invokes it, as cargo prints it (trial43
        // M12: six errors of strsim's tests were one entry at core/src/macros/mod.rs:46).
        let original = span;
        let span = workspace_call_site(span);
        let file_name = span["file_name"].as_str().unwrap_or("");
        // rustc runs in the workspace root, so span paths are relative to it; the workspace root
        // may lie above `root` (the checker ran in a member): try the manifest dir's ancestors.
        let manifest_dir = message.get("manifest_path").and_then(Value::as_str).and_then(|p| Path::new(p).parent());
        let base = std::iter::once(root)
            .chain(manifest_dir.into_iter().flat_map(Path::ancestors))
            .find(|base| base.join(file_name).is_file())
            .unwrap_or(root);
        let code = inner.pointer("/code/code").and_then(Value::as_str).map(str::to_owned);
        let line = span["line_start"].as_u64().unwrap_or(1);
        let mut message_text = inner["message"].as_str().unwrap_or("").to_owned();
        let mut repeat_in_step = 0;
        if !std::ptr::eq(original, span) {
            // One macro call can expand to several errors of one message (trial79 F1: byteorder's
            // `qc_byte_order!` call held 3 calls of `$write`, 360 errors read as 121, "+240
            // repeated"): each expansion's chain of spans is one error, numbered apart, while the
            // same chain from another target (`lib` and `lib test`) merges as a repeat. A body in
            // the package is named, so the agent can find the line.
            let chain = expansion_chain(original);
            let numbers = expansion_chains.entry((file_name.to_owned(), line, message_text.clone())).or_default();
            repeat_in_step = match numbers.iter().position(|known| *known == chain) {
                Some(at) => at,
                None => {
                    numbers.push(chain);
                    numbers.len() - 1
                }
            } as u32;
            if let (Some(body_file), Some(body_line)) = (original["file_name"].as_str(), original["line_start"].as_u64()) {
                if !Path::new(body_file).is_absolute() {
                    message_text.push_str(&format!(" (in the macro's expansion, from {body_file}:{body_line})"));
                }
            }
        }
        let mut parsed = record(base, file_name, line, severity, code, &message_text, "rustc");
        parsed.repeat_in_step = repeat_in_step;
        parsed.column = span["column_start"].as_u64().and_then(|column| u32::try_from(column).ok());
        parsed.targets.extend(cargo_target_label(&message["target"]));
        records.push(parsed);
    }
    Ok(records)
}

/// A cargo message's `target` as said beside its records: its first kind and its name, `lib
/// `indexmap``, `test `quick``, `build script `build-script-build`` for a build script. `None`
/// when the message names no target.
fn cargo_target_label(target: &Value) -> Option<String> {
    let name = target.get("name").and_then(Value::as_str)?;
    let kind = target.pointer("/kind/0").and_then(Value::as_str).unwrap_or("target");
    Some(match kind {
        "custom-build" => format!("build script `{name}`"),
        // A `crate-type` library (`["cdylib", "rlib"]`) is the crate's lib target all the same
        // (review46 #13: read "in cdylib `x`", and its lib test build went unnamed).
        "rlib" | "cdylib" | "dylib" | "staticlib" => format!("lib `{name}`"),
        kind => format!("{kind} `{name}`"),
    })
}

/// The spans of a rustc span's macro expansion chain, itself first then each `expansion.span`
/// outwards, as `file:line:column` joined by `<`: one text per expansion instance (bounded at 64
/// steps).
fn expansion_chain(span: &Value) -> String {
    let mut parts = Vec::new();
    let mut current = Some(span);
    while let Some(step) = current.filter(|_| parts.len() < 64) {
        parts.push(format!(
            "{}:{}:{}",
            step["file_name"].as_str().unwrap_or(""),
            step["line_start"].as_u64().unwrap_or(0),
            step["column_start"].as_u64().unwrap_or(0)
        ));
        current = step.pointer("/expansion/span");
    }
    parts.join("<")
}

/// The `compile_error!` errors in `cargo check --message-format=json` stdout, as
/// `path:line: message` (path relative to `root` when under it): the primary span's source text
/// calls `compile_error!`, or the error comes from its expansion. A crate uses them to refuse a
/// combination of features (`features "a" and "b" are mutually exclusive`).
pub fn compile_error_messages(stdout: &str, root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        if message.get("reason").and_then(Value::as_str) != Some("compiler-message") {
            continue;
        }
        let inner = &message["message"];
        if inner.get("level").and_then(Value::as_str) != Some("error") {
            continue;
        }
        let Some(span) = inner.get("spans").and_then(Value::as_array).and_then(|spans| spans.iter().find(|s| s["is_primary"] == true))
        else {
            continue;
        };
        let in_text =
            span["text"].as_array().into_iter().flatten().any(|text| text["text"].as_str().is_some_and(|t| t.contains("compile_error!")));
        let in_expansion = span.pointer("/expansion/macro_decl_name").and_then(Value::as_str) == Some("compile_error!");
        if !(in_text || in_expansion) {
            continue;
        }
        let file = span["file_name"].as_str().unwrap_or("");
        let file = Path::new(file).strip_prefix(root).map_or_else(|_| file.to_owned(), |relative| relative.display().to_string());
        let entry = format!("{file}:{}: {}", span["line_start"].as_u64().unwrap_or(1), inner["message"].as_str().unwrap_or(""));
        if !found.contains(&entry) {
            found.push(entry);
        }
    }
    found
}

/// Parses `pyright --outputjson` stdout.
///
/// # Errors
/// When stdout is not pyright's JSON report.
pub fn parse_pyright(stdout: &str, root: &Path) -> Result<Vec<DiagnosticRecord>, String> {
    let report: Value = serde_json::from_str(stdout).map_err(|err| format!("not JSON ({err})"))?;
    let list = report.get("generalDiagnostics").and_then(Value::as_array).ok_or("no generalDiagnostics in the report")?;
    Ok(list
        .iter()
        .filter_map(|d| {
            let severity = match d.get("severity").and_then(Value::as_str) {
                Some("error") => Severity::Error,
                Some("warning") => Severity::Warning,
                Some("information") => Severity::Information,
                _ => return None,
            };
            let line = d.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(0) + 1;
            Some(record(
                root,
                d["file"].as_str().unwrap_or(""),
                line,
                severity,
                d.get("rule").and_then(Value::as_str).map(str::to_owned),
                d["message"].as_str().unwrap_or(""),
                "pyright",
            ))
        })
        .collect())
}

/// Parses `tsc --pretty false` stdout: `path(line,col): error TS1234: message`.
///
/// # Errors
/// Never: other lines are skipped (continuation lines are appended to the message).
pub fn parse_tsc(stdout: &str, root: &Path) -> Result<Vec<DiagnosticRecord>, String> {
    let mut records: Vec<DiagnosticRecord> = Vec::new();
    for line in stdout.lines() {
        let parsed = (|| {
            let open = line.find('(')?;
            let close = open + line[open..].find("): ")?;
            let (line_no, _) = line[open + 1..close].split_once(',')?;
            let rest = &line[close + 3..];
            let (kind, rest) = rest.split_once(' ')?;
            let severity = match kind {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => return None,
            };
            let (code, message) = rest.split_once(": ")?;
            Some(record(root, &line[..open], line_no.parse().ok()?, severity, Some(code.to_owned()), message, "typescript"))
        })();
        match parsed {
            Some(r) => records.push(r),
            None if line.starts_with(' ') => {
                if let Some(last) = records.last_mut() {
                    last.message.push(' ');
                    last.message.push_str(line.trim());
                }
            }
            None => (),
        }
    }
    Ok(records)
}

/// The source named for errors of the Go checker's third step: `go test` compiling the test
/// variants of the packages whose type errors stopped `go vet`, running nothing.
pub const GO_TEST_COMPILE_SOURCE: &str = "go test (compile only)";

/// The source named for findings of `gopls check` over the files of the packages go never
/// compiled (they import a package that failed). `gopls check` prints no severity: they are
/// counted as errors (in such packages they are type errors, which the compiler reports once
/// the failed import is fixed).
pub const GOPLS_CHECK_SOURCE: &str = "gopls check";

/// The `go list -e -f` template of the Go checker: per package one line of tab-separated
/// fields — import path, directory, then comma-joined GoFiles+CgoFiles, TestGoFiles,
/// XTestGoFiles, IgnoredGoFiles, Deps, TestImports, XTestImports (see [`go_coverage_from_list`]).
pub const GO_LIST_TEMPLATE: &str = "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \",\"}}{{if .CgoFiles}},{{join .CgoFiles \",\"}}{{end}}\t{{join .TestGoFiles \",\"}}\t{{join .XTestGoFiles \",\"}}\t{{join .IgnoredGoFiles \",\"}}\t{{join .Deps \",\"}}\t{{join .TestImports \",\"}}\t{{join .XTestImports \",\"}}";

/// The import paths of the packages `go build` printed errors for (a `# path` header followed
/// by `file.go:line:` lines), each once, in its order.
pub fn go_packages_with_errors(stderr: &str) -> Vec<String> {
    packages_under_headers(stderr, |_, line| line.contains(".go:"))
}

/// What the compiler never type-checked, from the output of `go list -e -f GO_LIST_TEMPLATE
/// ./...` run in `root` and the packages that failed to compile (`failed`, import paths):
/// - every package that imports a failed one, directly or through others (its `Deps`), with all
///   its files: go compiles nothing that depends on a failed package;
/// - otherwise a package's `_test.go` files when its tests import one (`TestImports`,
///   `XTestImports` and their `Deps`; an external test package of a failed package too). A
///   failed package's own in-package tests are compiled by the checker's `go test` step;
/// - every `IgnoredGoFiles` entry (excluded by build constraints), with the `go vet` that
///   compiles it.
///
/// Lines with fewer fields are skipped. Packages in import-path order, as go lists them.
pub fn go_coverage_from_list(stdout: &str, failed: &[String], failed_test_variants: &[String], root: &Path) -> GoCoverage {
    struct Listed<'a> {
        import_path: &'a str,
        dir: PathBuf,
        fields: Vec<Vec<&'a str>>,
    }
    let listed: Vec<Listed<'_>> = stdout
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() < 9 {
                return None;
            }
            let lists = fields[2..9].iter().map(|field| field.split(',').filter(|item| !item.is_empty()).collect()).collect();
            Some(Listed { import_path: fields[0], dir: PathBuf::from(fields[1]), fields: lists })
        })
        .collect();
    const GO_FILES: usize = 0;
    const TEST_FILES: usize = 1;
    const XTEST_FILES: usize = 2;
    const IGNORED: usize = 3;
    const DEPS: usize = 4;
    const TEST_IMPORTS: usize = 5;
    const XTEST_IMPORTS: usize = 6;
    let deps_of = |import_path: &str| -> Vec<&str> {
        listed.iter().find(|package| package.import_path == import_path).map(|package| package.fields[DEPS].clone()).unwrap_or_default()
    };
    // The first failed package among `imports` and what they depend on.
    let failed_among = |imports: &[&str]| -> Option<String> {
        imports
            .iter()
            .flat_map(|import| std::iter::once(*import).chain(deps_of(import)))
            .find(|import| failed.iter().any(|package| package == import))
            .map(str::to_owned)
    };
    let mut coverage = GoCoverage::default();
    for package in &listed {
        let files = |index: usize| package.fields[index].iter().map(|name| package.dir.join(name)).collect::<Vec<PathBuf>>();
        let is_failed = failed.iter().any(|name| name == package.import_path);
        match failed_among(&package.fields[DEPS]).filter(|_| !is_failed) {
            Some(failed_import) => coverage.packages_not_compiled.push(GoPackageNotCompiled {
                package: package.import_path.to_owned(),
                files: [files(GO_FILES), files(TEST_FILES), files(XTEST_FILES)].concat(),
                failed_import,
            }),
            None => {
                let mut test_files = Vec::new();
                let mut first_failed = None;
                if let Some(failed_import) = failed_among(&package.fields[TEST_IMPORTS]) {
                    test_files.extend(files(TEST_FILES));
                    first_failed = Some(failed_import);
                }
                if let Some(failed_import) = failed_among(&package.fields[XTEST_IMPORTS]) {
                    test_files.extend(files(XTEST_FILES));
                    first_failed.get_or_insert(failed_import);
                } else if failed_test_variants.iter().any(|variant| variant == package.import_path) {
                    // The external test package (`mux_test`) is compiled against the package's
                    // test variant: when the in-package `_test.go` files do not compile, go
                    // compiles none of it (trial106 F1: gorilla/mux's `example_route_test.go`
                    // error was missing from "1 error", and the package was not named).
                    test_files.extend(files(XTEST_FILES));
                    first_failed.get_or_insert(format!("{} (its in-package test files)", package.import_path));
                }
                if let (Some(failed_import), false) = (first_failed, test_files.is_empty()) {
                    coverage.packages_not_compiled.push(GoPackageNotCompiled {
                        package: format!("{} (tests)", package.import_path),
                        files: test_files,
                        failed_import,
                    });
                }
            }
        }
        for path in files(IGNORED) {
            let constraint = crate::lsp::diagnostics_on_write::go_build_constraint(&path, root);
            let check_sentence = constraint.check_sentence();
            coverage.excluded_by_build_constraints.push(GoConstrainedFile {
                path,
                terms: constraint.terms.join(" "),
                check_command: constraint.check_command,
                check_sentence,
            });
        }
    }
    coverage
}

/// The import paths (the first word of each `# path …` header of go's output) under whose
/// header a line for which `keep(header, line)` holds stands, in the order printed, each once.
fn packages_under_headers(stderr: &str, keep: impl Fn(&str, &str) -> bool) -> Vec<String> {
    let mut packages: Vec<String> = Vec::new();
    let mut current: Option<&str> = None;
    for line in stderr.lines() {
        if let Some(header) = line.strip_prefix("# ") {
            current = Some(header);
        } else if let Some(header) = current.filter(|header| keep(header, line)) {
            if let Some(package) = header.split_whitespace().next().filter(|package| !packages.iter().any(|known| known == package)) {
                packages.push(package.to_owned());
            }
        }
    }
    packages
}

/// The import paths of the packages whose `go vet` run stopped at a type error (a `# path`
/// header followed by `vet: ` lines): vet type-checked nothing after that error, so those
/// packages' `_test.go` files were not checked (mapstructure 1.5.0: 3 errors in the package
/// hid 13 in decode_hooks_test.go). An external test package is named as vet names it
/// (`example.com/m_test`; see [`go_test_target`]). In the order vet printed them, each once.
pub fn go_vet_packages_stopped_by_type_errors(stderr: &str) -> Vec<String> {
    packages_under_headers(stderr, |_, line| line.starts_with("vet: "))
}

/// The import paths of the packages `go vet` printed a type error (`vet: ` line) for in a file
/// that is not a `_test.go` file: the package itself does not compile. In the order printed,
/// each once.
pub fn go_vet_packages_with_type_errors_outside_tests(stderr: &str) -> Vec<String> {
    packages_under_headers(stderr, |_, line| {
        line.strip_prefix("vet: ").is_some_and(|error| !error.find(".go:").is_some_and(|at| error[..at].ends_with("_test")))
    })
}

/// The import paths of the packages whose test variant did not compile for `go vet` (a `# path
/// [path.test]` header followed by the compiler's errors, at most 10 before "too many errors";
/// go-humanize: 14 errors in 8 test files, trial51 F1): the package itself compiled, its test
/// build did not. In the order printed, each once.
pub fn go_vet_test_variants_not_compiled(stderr: &str) -> Vec<String> {
    packages_under_headers(stderr, |header, line| is_test_variant_header(header) && line.contains(".go:"))
}

/// The package `go test` compiles a vet-named package with: an external test package
/// (`example.com/m_test`, no import path of its own) is compiled with its directory's package
/// `example.com/m` (trial47 M5: `go test … github.com/spf13/pflag_test` failed with "no required
/// module provides package", and the check read INCOMPLETE).
pub fn go_test_target(package: &str) -> &str {
    package.strip_suffix("_test").unwrap_or(package)
}

/// Whether a `# …` header line of the go command (without the `# `) names a package's test
/// variant (`example.com/m [example.com/m.test]`, `example.com/m_test [example.com/m.test]`): the
/// lines under it are the compiler's errors for that variant.
fn is_test_variant_header(header: &str) -> bool {
    header.trim_end().ends_with(".test]") && header.contains(" [")
}

/// Whether a line of go command output is a package load error — an import no module provides,
/// a package not found — which stops `go vet` before any analyzer runs and fails `go test`'s
/// setup.
fn is_go_load_error(line: &str) -> bool {
    [
        "no required module provides package",
        "cannot find module providing package",
        "cannot find package",
        "is not in std",
        "is not in GOROOT",
        "missing go.sum entry",
        "import cycle not allowed",
        "could not import",
        "found packages",
    ]
    .iter()
    .any(|pattern| line.contains(pattern))
}

/// Parses `go vet` / `go build` / `go test` stderr: `path.go:line:col: message`. `go build` and
/// `go test` lines, the type errors `go vet` prints with a `vet: ` prefix and the compiler errors
/// under a test-variant header (`# path [path.test]`) are errors; other `go vet` lines are
/// analyzer findings, reported as warnings (as gopls does). The compiler's
/// "too many errors" line is no diagnostic and is skipped.
///
/// # Errors
/// Never: other lines are skipped.
pub fn parse_go(stderr: &str, root: &Path, source: &str) -> Result<Vec<DiagnosticRecord>, String> {
    let mut records: Vec<DiagnosticRecord> = Vec::new();
    // Under a `# path [path.test]` header the go command prints the compiler's errors for a
    // package's test variant (go vet needs it compiled): errors, not analyzer findings, which
    // come under a plain `# path` header (go-humanize: a parameter added to a test helper broke
    // 14 calls in 8 test files, and they read as 10 go vet warnings, trial51 F1).
    let mut compile_block = false;
    // Per record: the header of its block, the block's index, and whether the line had the
    // `vet: ` prefix; and the blocks holding a `vet: ` line.
    let mut origins: Vec<(String, usize, bool)> = Vec::new();
    let mut header_now = String::new();
    let mut block = 0usize;
    let mut blocks_with_vet_lines: HashSet<usize> = HashSet::new();
    for line in stderr.lines() {
        if let Some(header) = line.strip_prefix("# ") {
            compile_block = is_test_variant_header(header);
            header_now = header.to_owned();
            block += 1;
            continue;
        }
        if line.ends_with(": too many errors") {
            continue;
        }
        // A tab-indented line continues the message above: the reason of `cannot use … as type
        // error in return statement:` (trial77 M3), or the other place of a redeclaration
        // (`\t./cast.go:11:6: other declaration of toInt`, which had counted as a second error,
        // trial82 M2).
        if let (Some(continued), Some(last)) = (line.strip_prefix('\t'), records.last_mut()) {
            let continued = continued.split_whitespace().collect::<Vec<_>>().join(" ");
            if !continued.is_empty() {
                last.message = format!("{} {continued}", last.message);
            }
            continue;
        }
        // A load error (an import no module provides) is no analyzer finding: `go test` fails
        // with `[setup failed]` on it (trial73 F1: it read as a warning of the printf checks).
        let vet_line = line.starts_with("vet: ");
        let type_error = vet_line || source != "go vet" || compile_block || is_go_load_error(line);
        let line = line.trim_start_matches("vet: ");
        let Some(go_at) = line.find(".go:") else { continue };
        let file = &line[..go_at + 3];
        let mut parts = line[go_at + 4..].splitn(3, ':');
        let Some(Ok(line_no)) = parts.next().map(str::parse::<u64>) else { continue };
        let rest: Vec<&str> = parts.collect();
        // gopls check prints ranges: `line:col-col: ` and `line:col-line:col: `.
        let after_line = rest.join(":");
        let range_message = after_line.split_once(": ").filter(|(range, _)| {
            range.contains('-') && range.split(['-', ':']).all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
        });
        let (message, column) = match rest.as_slice() {
            _ if range_message.is_some() => {
                let (range, message) = range_message.unwrap_or_default();
                (message.trim(), range.split(['-', ':']).next().and_then(|column| column.parse::<u32>().ok()))
            }
            [col, message] if col.trim().parse::<u32>().is_ok() => (message.trim(), col.trim().parse::<u32>().ok()),
            [a, b] => (&line[line.len() - a.len() - b.len() - 1..], None),
            [message] => (message.trim(), None),
            _ => continue,
        };
        let severity = if type_error { Severity::Error } else { Severity::Warning };
        records.push(DiagnosticRecord { column, ..record(root, file, line_no, severity, None, message, source) });
        origins.push((header_now.clone(), block, vet_line));
        if vet_line {
            blocks_with_vet_lines.insert(block);
        }
    }
    if source == "go vet" && !blocks_with_vet_lines.is_empty() {
        // go 1.19's vet prints a package's compile errors under its header (the compiler's
        // words and columns, no prefix), then the header again with go/types' first error as a
        // `vet: ` line (blang/semver v4, trial169 M3: `range.go:36:21` as a warning, `:36:23` as
        // an error — "27 errors, 1 warning" for 27 errors). An earlier block of a header that
        // has `vet: ` lines is the compiler's: errors; and a `vet: ` line repeating one of them
        // at another column is that error.
        let headers_with_vet_lines: HashSet<&str> =
            origins.iter().filter(|(_, block, _)| blocks_with_vet_lines.contains(block)).map(|(header, _, _)| header.as_str()).collect();
        let compiler_block = |(header, block, _): &(String, usize, bool)| {
            !blocks_with_vet_lines.contains(block) && headers_with_vet_lines.contains(header.as_str())
        };
        for (record, origin) in records.iter_mut().zip(&origins) {
            if compiler_block(origin) {
                record.severity = Severity::Error;
            }
        }
        let compiled: Vec<(PathBuf, u32, String)> = records
            .iter()
            .zip(&origins)
            .filter(|(_, origin)| compiler_block(origin))
            .map(|(record, _)| (record.path.clone(), record.line, record.message.clone()))
            .collect();
        let mut kept = Vec::with_capacity(records.len());
        for (record, (_, _, vet_line)) in records.into_iter().zip(&origins) {
            let repeats_the_compiler = *vet_line
                && compiled.iter().any(|(path, line, message)| *path == record.path && *line == record.line && *message == record.message);
            if !repeats_the_compiler {
                kept.push(record);
            }
        }
        records = kept;
    }
    Ok(records)
}

/// Parses `dart analyze --format=machine` output: `SEVERITY|TYPE|CODE|FILE|LINE|COL|LEN|MESSAGE`.
///
/// # Errors
/// Never: other lines are skipped.
pub fn parse_dart(stdout: &str, root: &Path) -> Result<Vec<DiagnosticRecord>, String> {
    let mut records = Vec::new();
    for line in stdout.lines() {
        let fields: Vec<&str> = line.splitn(8, '|').collect();
        if fields.len() != 8 {
            continue;
        }
        let severity = match fields[0] {
            "ERROR" => Severity::Error,
            "WARNING" => Severity::Warning,
            "INFO" => Severity::Information,
            _ => continue,
        };
        let Ok(line_no) = fields[4].parse() else { continue };
        records.push(record(root, fields[3], line_no, severity, Some(fields[2].to_lowercase()), fields[7], "dart analyze"));
    }
    Ok(records)
}

/// Parses clang-tidy (`file:line:col: error: message [check]`) or `clangd --check` output
/// (`E[time] [code] Line N: message`).
///
/// # Errors
/// Never: other lines are skipped.
pub fn parse_clang(output: &str, root: &Path, file: &str) -> Result<Vec<DiagnosticRecord>, String> {
    let mut records = Vec::new();
    for line in output.lines() {
        if let Some(at) = line.find("] Line ") {
            // clangd --check: `E[12:00:00.000] [code] Line 5: message`
            let head = &line[..at];
            let code = head.rsplit_once('[').map(|(_, code)| code.to_owned());
            let rest = &line[at + 7..];
            let Some((line_no, message)) = rest.split_once(": ") else { continue };
            let Ok(line_no) = line_no.parse() else { continue };
            records.push(record(root, file, line_no, Severity::Error, code, message, "clangd"));
            continue;
        }
        for (marker, severity) in [(": error: ", Severity::Error), (": warning: ", Severity::Warning)] {
            let Some(at) = line.find(marker) else { continue };
            let mut parts = line[..at].rsplitn(3, ':');
            let (Some(_col), Some(Ok(line_no)), Some(path)) = (parts.next(), parts.next().map(str::parse::<u64>), parts.next()) else {
                continue;
            };
            let message = &line[at + marker.len()..];
            let (message, code) = match message.rfind(" [") {
                Some(open) if message.ends_with(']') => (&message[..open], Some(message[open + 2..message.len() - 1].to_owned())),
                _ => (message, None),
            };
            records.push(record(root, path, line_no, severity, code, message, "clang-tidy"));
        }
    }
    Ok(records)
}

/// Runs the project checker of a root that depends by path on a root a write changes (a
/// `downstream/` crate's `cargo check --all-targets --keep-going` in rust-analyzer's target
/// directory, a consumer module's `go build` and `go vet`), as `diagnostics "*"` runs it there,
/// with the default features, until `end`: the
/// write check takes this root's state before and after the write with it (trial134 M5: a
/// library write read clean while it broke `downstream/`). `checker` is `cargo` or `go`.
///
/// The records are those of files in the workspace: under `root`, and a path dependency's own
/// (the written root as `root` builds it, with the features `root` enables: trial146 F2), which
/// the caller tells apart.
pub(crate) fn check_dependent_root(supervisor: &LspSupervisor, checker: &str, root: &Path, end: Instant) -> CheckerRun {
    let config = supervisor.config();
    let budget = CheckerBudget::new(config.checker_timeout, end.saturating_duration_since(Instant::now()), end);
    let trust = supervisor.workspace_trust();
    let path_env = config.search_path.clone().or_else(|| std::env::var_os("PATH"));
    let path_env = match trust {
        WorkspaceTrust::Trusted => path_env,
        WorkspaceTrust::Restricted => restricted_search_path(path_env.as_deref(), supervisor.workspace_root()).value,
    };
    let mut run = run_checker(
        checker,
        root,
        supervisor.workspace_root(),
        path_env.as_deref(),
        &budget,
        trust,
        &FeatureSelection::default(),
        supervisor.confines_file_access(),
        &supervisor.project_outside_roots(),
        supervisor.typescript_build_mirrors(),
    );
    run.records.retain(|record| record.path.starts_with(supervisor.workspace_root()));
    // One finding per error, as `diagnostics "*"` counts them: go vet, go build and the
    // compile-only go test each print a compile error (trial143 F2: one missing argument read
    // "3 new errors" after a write).
    run.records = sorted_and_deduplicated(std::mem::take(&mut run.records));
    run
}

/// The target directory rust-analyzer's own cargo check uses with `cargo.targetDir: true` (the
/// setting runbound gives it, see `servers.rs`): `$CARGO_TARGET_DIR/rust-analyzer`, else
/// `target/rust-analyzer`, relative to the directory cargo runs in (the root). The project check
/// runs there too: it reuses what the flycheck already checked (a `"*"` right after a write is
/// incremental), and neither waits on `target/`'s build lock while the user's or the agent's own
/// cargo builds there.
fn rust_analyzer_target_dir() -> String {
    let base = std::env::var("CARGO_TARGET_DIR").ok().filter(|dir| !dir.is_empty()).unwrap_or_else(|| "target".to_owned());
    format!("{}/rust-analyzer", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_type_library_is_labelled_as_the_lib_target() {
        let label = |kind: &str| cargo_target_label(&serde_json::json!({"name": "x", "kind": [kind, "rlib"]}));
        assert_eq!(label("cdylib").as_deref(), Some("lib `x`"));
        assert_eq!(label("staticlib").as_deref(), Some("lib `x`"));
        assert_eq!(label("lib").as_deref(), Some("lib `x`"));
        assert_eq!(label("test").as_deref(), Some("test `x`"));
        assert_eq!(label("custom-build").as_deref(), Some("build script `x`"));
    }

    #[test]
    fn a_nested_go_module_is_joined_only_by_a_go_work_that_uses_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(!go_work_uses(root, root, &root.join("consumer")), "no go.work: a module of its own");
        std::fs::write(root.join("go.work"), "go 1.21\n\nuse (\n\t.\n\t./consumer // the app\n)\n").unwrap();
        assert!(go_work_uses(root, root, &root.join("consumer")));
        assert!(!go_work_uses(root, root, &root.join("other")));
        std::fs::write(root.join("go.work"), "go 1.21\nuse ./other\n").unwrap();
        assert!(go_work_uses(root, root, &root.join("other")));
    }

    #[test]
    fn an_inner_cargo_package_is_a_member_only_of_an_outer_workspace_that_lists_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("downstream")).unwrap();
        std::fs::create_dir_all(root.join("crates/a")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"humantime\"\nversion = \"2.1.0\"\n").unwrap();
        assert!(!cargo_workspace_includes(root, root, &root.join("downstream")), "no [workspace]: its own project");
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"top\"\nversion = \"0.1.0\"\n[dependencies]\nhelper = { path = \"helper\" }\n[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"downstream\"]\n",
        )
        .unwrap();
        assert!(cargo_workspace_includes(root, root, &root.join("crates/a")));
        assert!(cargo_workspace_includes(root, root, &root.join("helper")), "a path dependency is a member");
        assert!(!cargo_workspace_includes(root, root, &root.join("downstream")));
        assert!(!cargo_workspace_includes(root, root, &root.join("other")));
    }

    #[test]
    fn go_missing_modules_come_from_download_lines_and_failed_lookups() {
        // tomlkit 0.13.2's tests/toml-test, no module proxy reachable.
        let tomlkit = "go: github.com/BurntSushi/toml@v0.4.0: Get \"https://proxy.golang.org/github.com/%21burnt%21sushi/toml/@v/v0.4.0.mod\": dial tcp: lookup proxy.golang.org on 10.255.255.53:53: no such host\ngo: downloading github.com/BurntSushi/toml v0.4.0\ngo: downloading zgo.at/zli v0.0.0-20210619044753-e7020a328e59\n";
        assert_eq!(
            go_missing_modules(tomlkit),
            vec!["github.com/BurntSushi/toml v0.4.0".to_owned(), "zgo.at/zli v0.0.0-20210619044753-e7020a328e59".to_owned()]
        );
        // The same failure reported at the import, and with lookups turned off.
        let at_import = "main.go:3:8: example.invalid/missing@v1.0.0: Get \"https://proxy.golang.org/example.invalid/missing/@v/v1.0.0.zip\": dial tcp: lookup proxy.golang.org: no such host\n";
        assert_eq!(go_missing_modules(at_import), vec!["example.invalid/missing v1.0.0".to_owned()]);
        assert!(is_go_download_failure(at_import));
        let disabled = "go: example.invalid/missing@v1.0.0: module lookup disabled by GOPROXY=off\n";
        assert_eq!(go_missing_modules(disabled), vec!["example.invalid/missing v1.0.0".to_owned()]);
        // go vet with lookups turned off names the module on its download line only, and says
        // the failure at the import (trial147 M5).
        let vet = "go: downloading github.com/google/uuid v1.3.0\ninternal/ids/ids.go:7:2: module lookup disabled by GOPROXY=off\n";
        assert_eq!(go_missing_modules(vet), vec!["github.com/google/uuid v1.3.0".to_owned()]);
        assert!(is_go_download_failure("internal/ids/ids.go:7:2: module lookup disabled by GOPROXY=off"));
        // A type error is no missing module.
        assert!(go_missing_modules("./main.go:5:2: undefined: missing\n").is_empty());
    }

    #[test]
    fn tsc_go_dart_and_clang_lines_parse() {
        let root = Path::new("/w");
        let tsc = parse_tsc("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n", root).unwrap();
        assert_eq!((tsc[0].line, tsc[0].code.as_deref()), (3, Some("TS2322")));
        let go = parse_go("# example.com/x\nvet: ./a.go:4:2: x declared and not used\n./b.go:7:9: cannot use \"s\" (untyped string constant) as int value\n", root, "go build").unwrap();
        assert_eq!(go.iter().map(|r| r.line).collect::<Vec<_>>(), vec![4, 7]);
        assert_eq!(go[0].message, "x declared and not used");
        let dart = parse_dart(
            "ERROR|COMPILE_TIME_ERROR|INVALID_ASSIGNMENT|/w/lib/a.dart|5|12|3|A value of type 'String' can't be assigned\n",
            root,
        )
        .unwrap();
        assert_eq!((dart[0].line, dart[0].severity), (5, Severity::Error));
        let clang =
            parse_clang("E[10:00:00.000] [typecheck_convert_incompatible] Line 6: incompatible pointer\n", root, "/w/main.c").unwrap();
        assert_eq!((clang[0].line, clang[0].code.as_deref()), (6, Some("typecheck_convert_incompatible")));
    }

    #[test]
    fn cargo_spans_resolve_against_the_workspace_root_and_skip_notes() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("member/src")).unwrap();
        std::fs::write(root.join("member/src/lib.rs"), "").unwrap();
        let manifest = root.join("member/Cargo.toml");
        let line = |level: &str, code: Option<&str>, spans: Value| {
            json!({"reason": "compiler-message", "manifest_path": manifest,
                "message": {"level": level, "message": "mismatched   types", "code": code.map(|c| json!({"code": c})), "spans": spans}})
            .to_string()
        };
        let span = json!([{"file_name": "member/src/lib.rs", "line_start": 4, "is_primary": true},
            {"file_name": "member/src/lib.rs", "line_start": 1, "is_primary": false}]);
        let stdout = [
            line("error", Some("E0308"), span.clone()),
            line("failure-note", None, json!([])),
            line("warning", None, json!([])),
            "Compiling noise".to_owned(),
            json!({"reason": "build-finished", "success": false}).to_string(),
        ]
        .join("\n");
        // Run from the member directory: the span is still found under the workspace root.
        let records = parse_cargo(&stdout, &root.join("member")).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].path, root.join("member/src/lib.rs"));
        assert_eq!((records[0].line, records[0].severity, records[0].code.as_deref()), (4, Severity::Error, Some("E0308")));
        assert_eq!(records[0].message, "mismatched types");
        // `assert_eq!(1.0, g())` with `fn g() {}` (rustc 1.95's JSON, trial43 M12): E0277's
        // primary span is in core's macros/mod.rs; the package's call site is where cargo puts it.
        let core = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/core/src/macros/mod.rs";
        let span = json!([{"file_name": core, "line_start": 46, "is_primary": true, "expansion": {
            "macro_decl_name": "assert_eq!", "def_site_span": {"file_name": core, "line_start": 40},
            "span": {"file_name": "member/src/lib.rs", "line_start": 5, "expansion": null}}}]);
        let records = parse_cargo(&line("error", Some("E0277"), span), &root.join("member")).unwrap();
        assert_eq!((records[0].path.clone(), records[0].line), (root.join("member/src/lib.rs"), 5));
        // A chain that never reaches the package keeps the primary span.
        let span =
            json!([{"file_name": core, "line_start": 46, "is_primary": true, "expansion": {"span": {"file_name": core, "line_start": 9}}}]);
        let records = parse_cargo(&line("error", Some("E0277"), span), &root.join("member")).unwrap();
        assert_eq!((records[0].path.clone(), records[0].line), (PathBuf::from(core), 46));
        // The package's own macro (trial75 F2: tinyvec's `array_vec!`, called by the tests through
        // a nested call in its own body): the outermost call in the package, one error per call.
        std::fs::create_dir_all(root.join("member/tests")).unwrap();
        std::fs::write(root.join("member/tests/t.rs"), "").unwrap();
        let span = json!([{"file_name": "member/src/lib.rs", "line_start": 34, "is_primary": true, "expansion": {
            "macro_decl_name": "array_vec!", "span": {"file_name": "member/src/lib.rs", "line_start": 42, "expansion": {
                "macro_decl_name": "array_vec!", "span": {"file_name": "member/tests/t.rs", "line_start": 16, "expansion": null}}}}}]);
        let records = parse_cargo(&line("error", Some("E0599"), span), &root.join("member")).unwrap();
        assert_eq!((records[0].path.clone(), records[0].line), (root.join("member/tests/t.rs"), 16));
        assert_eq!(records[0].message, "mismatched types (in the macro's expansion, from member/src/lib.rs:34)");
        // trial79 F1 (byteorder): one call of the package's macro holds 3 errors of one message at
        // 3 lines of its body, printed by `lib` and again by `lib test`: 3 errors, 3 repeats.
        let body = |body_line: u64| {
            json!([{"file_name": "member/src/lib.rs", "line_start": body_line, "column_start": 9, "is_primary": true, "expansion": {
                "macro_decl_name": "qc_byte_order!", "span": {"file_name": "member/src/lib.rs", "line_start": 2456, "column_start": 5, "expansion": null}}}])
        };
        let once: Vec<String> = [2425, 2436, 2447].into_iter().map(|body_line| line("error", Some("E0061"), body(body_line))).collect();
        let stdout = [once.clone(), once].concat().join("\n");
        let records = parse_cargo(&stdout, &root.join("member")).unwrap();
        assert_eq!(records.len(), 6);
        assert!(records.iter().all(|record| record.line == 2456));
        assert_eq!(sorted_and_deduplicated(records).len(), 3, "one per expansion, the other target's copies merged");
        // A macro defined outside the package (core's `assert_eq!`), called twice on one line:
        // two errors, told apart by the calls' columns.
        let outside = |column: u64| {
            json!([{"file_name": core, "line_start": 46, "column_start": 9, "is_primary": true, "expansion": {
                "macro_decl_name": "assert_eq!", "span": {"file_name": "member/src/lib.rs", "line_start": 5, "column_start": column, "expansion": null}}}])
        };
        let stdout = [line("error", Some("E0277"), outside(5)), line("error", Some("E0277"), outside(30))].join("\n");
        let records = sorted_and_deduplicated(parse_cargo(&stdout, &root.join("member")).unwrap());
        assert_eq!(records.len(), 2, "{records:?}");
        assert_eq!(records[0].message, "mismatched types", "a body outside the package is not named");
    }

    #[test]
    fn records_from_files_outside_the_workspace_and_its_dependency_roots_keep_no_message() {
        let workspace = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(workspace.path()).unwrap();
        let outside_file = std::fs::canonicalize(outside.path()).unwrap().join("secret.py");
        let report = json!({"generalDiagnostics": [
            {"file": root.join("a.py"), "severity": "error", "message": "\"inside_name\" is not defined", "range": {"start": {"line": 0, "character": 0}}},
            {"file": outside_file, "severity": "error", "message": "\"outside_canary\" is not defined", "range": {"start": {"line": 4, "character": 0}}},
            {"file": "/opt/venv/lib/python3.11/site-packages/pkg/mod.py", "severity": "error", "message": "\"dependency_name\" is unknown", "range": {"start": {"line": 1, "character": 0}}},
        ]});
        let mut records = parse_pyright(&report.to_string(), &root).unwrap();
        withhold_messages_from_unknown_outside_files(&root, &[], &mut records);
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].message, "\"inside_name\" is not defined");
        assert_eq!(records[1].path, outside_file, "the outside file is still named");
        assert_eq!(records[1].line, 5);
        assert_eq!(records[1].message, WITHHELD_OUTSIDE_MESSAGE);
        assert_eq!(records[2].message, "\"dependency_name\" is unknown", "site-packages is a known dependency root");
    }

    #[test]
    fn pyright_severities_map_and_lines_become_one_based() {
        let report = json!({"generalDiagnostics": [
            {"file": "/w/a.py", "severity": "error", "message": "x\n\u{a0}\u{a0}y", "range": {"start": {"line": 0}}, "rule": "reportX"},
            {"file": "/w/a.py", "severity": "warning", "message": "w", "range": {"start": {"line": 9}}},
            {"file": "/w/a.py", "severity": "information", "message": "i", "range": {"start": {"line": 2}}},
        ]});
        let records = parse_pyright(&report.to_string(), Path::new("/w")).unwrap();
        let got: Vec<(u32, Severity, Option<&str>, &str)> =
            records.iter().map(|r| (r.line, r.severity, r.code.as_deref(), r.message.as_str())).collect();
        assert_eq!(
            got,
            vec![(1, Severity::Error, Some("reportX"), "x y"), (10, Severity::Warning, None, "w"), (3, Severity::Information, None, "i")]
        );
        assert!(parse_pyright("No configuration file found.", Path::new("/w")).unwrap_err().contains("not JSON"));
    }

    #[test]
    fn go_vet_type_errors_name_the_packages_whose_test_files_vet_did_not_reach() {
        let stderr = "# example.com/m\nvet: ./a.go:3:17: not enough arguments\n\thave (int)\n# example.com/m/ok\n./ok/x.go:7:2: fmt.Printf format %d has arg name of wrong type string\n# example.com/m/sub\nvet: sub/b.go:1:1: undefined: y\nvet: sub/b.go:2:1: undefined: z\n";
        assert_eq!(go_vet_packages_stopped_by_type_errors(stderr), vec!["example.com/m", "example.com/m/sub"]);
        assert!(go_vet_packages_stopped_by_type_errors("# example.com/m\n./a.go:7:2: printf finding\n").is_empty());
        // An external test package is compiled with its directory's package.
        let stderr = "# example.com/xt_test\nvet: ./xt_test.go:10:17: cannot use xt.One() (value of type int) as string value\n";
        assert_eq!(go_vet_packages_stopped_by_type_errors(stderr), vec!["example.com/xt_test"]);
        assert_eq!(go_test_target("example.com/xt_test"), "example.com/xt");
        assert_eq!(go_test_target("example.com/xt"), "example.com/xt");
        // go test's compile errors (with the package's test variant header) are errors; the
        // compiler's "too many errors" line is no diagnostic.
        let test = parse_go(
            "# example.com/m [example.com/m.test]\n./a_test.go:30:27: not enough arguments in call to F\n./a_test.go:234:42: too many errors\n",
            Path::new("/w"),
            GO_TEST_COMPILE_SOURCE,
        )
        .unwrap();
        let got: Vec<(&str, u32, Severity)> = test.iter().map(|r| (r.path.to_str().unwrap(), r.line, r.severity)).collect();
        assert_eq!(got, vec![("/w/a_test.go", 30, Severity::Error)]);
    }

    #[test]
    fn gopls_check_ranges_are_cut_from_the_message() {
        // gopls check prints `line:col`, `line:col-col` and `line:col-line:col` (goldmark 1.5.4
        // after `New(extra int, …)`: commonmark_test.go:52:18-55:3).
        let stdout = "/w/a_test.go:52:18-55:3: cannot use X (value of type goldmark.Option) as int value in argument to New\n\thave ([]byte)\n/w/b.go:77:18-63: cannot use Y as int value\n/w/c.go:9:2: undefined: z\n";
        let records = parse_go(stdout, Path::new("/w"), GOPLS_CHECK_SOURCE).unwrap();
        let got: Vec<(&str, u32, &str, Severity)> =
            records.iter().map(|r| (r.path.to_str().unwrap(), r.line, r.message.as_str(), r.severity)).collect();
        assert_eq!(
            got,
            vec![
                // The tab-indented line continues the message.
                (
                    "/w/a_test.go",
                    52,
                    "cannot use X (value of type goldmark.Option) as int value in argument to New have ([]byte)",
                    Severity::Error
                ),
                ("/w/b.go", 77, "cannot use Y as int value", Severity::Error),
                ("/w/c.go", 9, "undefined: z", Severity::Error),
            ]
        );
    }

    #[test]
    fn go_list_names_the_packages_and_tests_that_import_a_failed_package_and_the_constrained_files() {
        // a <- b <- c; d's external tests import b; e imports nothing of them; a's own
        // external test package imports a (failed): its files were never compiled.
        let line = |fields: [&str; 9]| fields.join("\t");
        let stdout = [
            line(["m/a", "/w/a", "a.go", "", "a_x_test.go", "a_js.go", "fmt", "", "m/a"]),
            line(["m/b", "/w/b", "b.go", "b_test.go", "", "", "fmt,m/a", "testing", ""]),
            line(["m/c", "/w/c", "c.go", "", "", "", "m/a,m/b", "", ""]),
            line(["m/d", "/w/d", "d.go", "d_in_test.go", "d_test.go", "", "fmt", "testing", "m/b,m/d"]),
            line(["m/e", "/w/e", "e.go", "e_test.go", "", "", "fmt", "testing", ""]),
        ]
        .join("\n");
        let coverage = go_coverage_from_list(&stdout, &["m/a".to_owned()], &[], Path::new("/w"));
        let got: Vec<(&str, Vec<&str>, &str)> = coverage
            .packages_not_compiled
            .iter()
            .map(|p| (p.package.as_str(), p.files.iter().map(|f| f.to_str().unwrap()).collect(), p.failed_import.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("m/a (tests)", vec!["/w/a/a_x_test.go"], "m/a"),
                ("m/b", vec!["/w/b/b.go", "/w/b/b_test.go"], "m/a"),
                ("m/c", vec!["/w/c/c.go"], "m/a"),
                ("m/d (tests)", vec!["/w/d/d_test.go"], "m/a"),
            ]
        );
        let excluded: Vec<&str> = coverage.excluded_by_build_constraints.iter().map(|f| f.path.to_str().unwrap()).collect();
        assert_eq!(excluded, vec!["/w/a/a_js.go"]);
        assert!(coverage.excluded_by_build_constraints[0].check_command.contains("GOOS=js GOARCH=wasm go vet ./a"));
        assert_eq!(go_packages_with_errors("# m/a\na/a.go:3:1: undefined: x\n# m/z\n"), vec!["m/a"]);
    }

    #[test]
    fn two_diagnostics_of_one_pyright_run_at_the_same_line_and_message_both_count() {
        // tomlkit 0.13.2 tests/test_toml_document.py: `doc["a"]["b"]` on an `Item` gives two
        // `__getitem__` errors with the same start (their ends differ).
        let report = json!({"generalDiagnostics": [
            {"file": "/w/t.py", "severity": "error", "message": "\"__getitem__\" method not defined on type \"Item\"", "rule": "reportIndexIssue",
             "range": {"start": {"line": 232, "character": 11}, "end": {"line": 232, "character": 19}}},
            {"file": "/w/t.py", "severity": "error", "message": "\"__getitem__\" method not defined on type \"Item\"", "rule": "reportIndexIssue",
             "range": {"start": {"line": 232, "character": 11}, "end": {"line": 232, "character": 24}}}
        ]});
        let mut records = parse_pyright(&report.to_string(), Path::new("/w")).unwrap();
        number_repeats_within_step(&mut records);
        assert_eq!(sorted_and_deduplicated(records.clone()).len(), 2);
        // The same two from a second step (or target) are repeats of those two, not new ones.
        let mut twice = records.clone();
        twice.extend(records);
        assert_eq!(sorted_and_deduplicated(twice).len(), 2);
    }

    #[test]
    fn a_load_error_in_go_vet_output_is_an_error_not_an_analyzer_finding() {
        // trial73 F1: hashicorp/go-version with a test file importing a missing module.
        let stderr = "version_collection_test.go:8:4: cannot find module providing package github.com/nope/missing: module lookup disabled by GOPROXY=off\n./constraint.go:102:15: fmt.Errorf format %d has arg v of wrong type string\n";
        let records = parse_go(stderr, Path::new("/w"), "go vet").unwrap();
        let got: Vec<(u32, Severity)> = records.iter().map(|r| (r.line, r.severity)).collect();
        assert_eq!(got, vec![(8, Severity::Error), (102, Severity::Warning)]);
        assert!(is_go_load_error("x.go:3:2: no required module provides package example.com/a; to add it:"));
        assert!(!is_go_load_error("x.go:3:2: fmt.Printf format %s reads arg #1"));
    }

    #[test]
    fn compiler_errors_of_a_test_variant_in_go_vet_output_are_errors_and_stop_the_package() {
        // go 1.19's `go vet ./...` on go-humanize with a parameter added to a test helper.
        let stderr = "# github.com/dustin/go-humanize [github.com/dustin/go-humanize.test]\n./bigbytes_test.go:136:13: not enough arguments in call to testList{…}.validate\n\thave (*testing.T)\n\twant (*testing.T, bool)\n./comma_test.go:36:13: not enough arguments in call to testList{…}.validate\n./comma_test.go:36:13: too many errors\n# github.com/dustin/go-humanize/english\n./words.go:7:2: fmt.Printf format %d has arg \"s\" of wrong type string\n";
        let records = parse_go(stderr, Path::new("/w"), "go vet").unwrap();
        let got: Vec<(&str, u32, Severity)> = records.iter().map(|r| (r.path.to_str().unwrap(), r.line, r.severity)).collect();
        assert_eq!(
            got,
            vec![
                ("/w/bigbytes_test.go", 136, Severity::Error),
                ("/w/comma_test.go", 36, Severity::Error),
                ("/w/words.go", 7, Severity::Warning)
            ]
        );
        assert!(go_vet_packages_stopped_by_type_errors(stderr).is_empty(), "the package itself compiled");
        let vet_typed = "# example.com/helpers\nvet: ./calls_test.go:6:19: not enough arguments\n# example.com/other\nvet: ./other.go:3:1: undefined: x\n";
        assert_eq!(go_vet_packages_with_type_errors_outside_tests(vet_typed), vec!["example.com/other".to_owned()]);
        assert_eq!(go_vet_test_variants_not_compiled(stderr), vec!["github.com/dustin/go-humanize".to_owned()]);
    }

    #[test]
    fn go_vet_findings_are_warnings_and_type_errors_are_errors() {
        let stderr = "# example.com/x\nvet: bad/bad.go:3:17: cannot use \"s\" as int value\n./main.go:7:2: fmt.Printf format %d has arg name of wrong type string\n";
        let records = parse_go(stderr, Path::new("/w"), "go vet").unwrap();
        let got: Vec<(&str, u32, Severity)> = records.iter().map(|r| (r.path.to_str().unwrap(), r.line, r.severity)).collect();
        assert_eq!(got, vec![("/w/bad/bad.go", 3, Severity::Error), ("/w/main.go", 7, Severity::Warning)]);
        let build = parse_go("./main.go:7:2: undefined: y\n", Path::new("/w"), "go build").unwrap();
        assert_eq!(build[0].severity, Severity::Error);
    }

    #[test]
    fn go_continuation_lines_join_the_message_above() {
        // spf13/cast (trial82 M2): the redeclaration's other place had counted as a second error;
        // mapstructure (trial77 M3): the reason after `…in return statement:` had been cut.
        let stderr = "# github.com/spf13/cast\n./caste.go:40:6: toInt redeclared in this block\n\t./cast.go:11:6: other declaration of toInt\n./mapstructure.go:902:10: cannot use &Error{…} (value of type *Error) as type error in return statement:\n\t*Error does not implement error (missing Error method)\n";
        let records = parse_go(stderr, Path::new("/w"), "go build").unwrap();
        let got: Vec<(u32, &str)> = records.iter().map(|r| (r.line, r.message.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (40, "toInt redeclared in this block ./cast.go:11:6: other declaration of toInt"),
                (902, "cannot use &Error{…} (value of type *Error) as type error in return statement: *Error does not implement error (missing Error method)"),
            ]
        );
    }

    #[test]
    fn tsc_continuation_lines_join_the_message_and_clang_tidy_lines_carry_their_check() {
        let tsc = parse_tsc(
            "src/a.ts(7,27): error TS2345: Argument of type 'string' is not assignable.\n  Type 'x' is not 'y'.\nFound 1 error.\n",
            Path::new("/w"),
        )
        .unwrap();
        assert_eq!(tsc.len(), 1);
        assert_eq!(tsc[0].message, "Argument of type 'string' is not assignable. Type 'x' is not 'y'.");
        let tidy = parse_clang(
            "/w/main.c:4:13: error: use of undeclared identifier 'x' [clang-diagnostic-error]\n/w/main.c:9:3: warning: Value stored is never read [clang-analyzer-deadcode.DeadStores]\n",
            Path::new("/w"),
            "/w/main.c",
        )
        .unwrap();
        let got: Vec<(u32, Severity, Option<&str>, &str)> =
            tidy.iter().map(|r| (r.line, r.severity, r.code.as_deref(), r.source.as_deref().unwrap())).collect();
        assert_eq!(
            got,
            vec![
                (4, Severity::Error, Some("clang-diagnostic-error"), "clang-tidy"),
                (9, Severity::Warning, Some("clang-analyzer-deadcode.DeadStores"), "clang-tidy")
            ]
        );
    }

    #[test]
    fn sorting_puts_errors_first_and_drops_the_same_finding_from_two_steps() {
        let make = |path: &str, line: u32, severity: Severity, source: &str| DiagnosticRecord {
            path: PathBuf::from(path),
            line,
            severity,
            code: None,
            message: "m".into(),
            source: Some(source.into()),
            repeat_in_step: 0,
            also_at_lines: Vec::new(),
            column: None,
            targets: Vec::new(),
        };
        let sorted = sorted_and_deduplicated(vec![
            make("/w/a.go", 1, Severity::Warning, "go vet"),
            make("/w/b.go", 3, Severity::Error, "go vet"),
            make("/w/a.go", 9, Severity::Error, "go build"),
            make("/w/b.go", 3, Severity::Error, "go build"),
        ]);
        let got: Vec<(&str, u32, &str)> = sorted.iter().map(|r| (r.path.to_str().unwrap(), r.line, r.source.as_deref().unwrap())).collect();
        assert_eq!(got, vec![("/w/a.go", 9, "go build"), ("/w/b.go", 3, "go vet, go build"), ("/w/a.go", 1, "go vet")]);
    }

    #[test]
    fn one_message_at_two_columns_of_a_line_is_two_errors_and_each_target_repeat_is_merged() {
        // bytes 1.7.2 downstream (trial142 F2): two E0061 at columns 12 and 24 of one line, in
        // the lib and the test target each: 2 errors, each "repeated by another target" once.
        let make = |column: u32, source: &str| DiagnosticRecord {
            path: PathBuf::from("/w/downstream/src/lib.rs"),
            line: 78,
            severity: Severity::Error,
            code: Some("E0061".into()),
            message: "this method takes 1 argument but 0 arguments were supplied".into(),
            source: Some(source.into()),
            repeat_in_step: 0,
            also_at_lines: Vec::new(),
            column: Some(column),
            targets: Vec::new(),
        };
        // Every cargo target's records are rustc's.
        let sorted = sorted_and_deduplicated(vec![make(12, "rustc"), make(24, "rustc"), make(12, "rustc"), make(24, "rustc")]);
        let got: Vec<Option<u32>> = sorted.iter().map(|record| record.column).collect();
        assert_eq!(got, vec![Some(12), Some(24)]);
        // A record without a column still merges with one that has it.
        let mut bare = make(12, "rustc");
        bare.column = None;
        assert_eq!(sorted_and_deduplicated(vec![make(12, "rustc"), bare]).len(), 1);
        // Two steps place one error at different columns (go vet at the argument list, go
        // build at the call, spf13/cast main.go:16): one error.
        let sorted = sorted_and_deduplicated(vec![make(65, "go vet"), make(30, "go build")]);
        assert_eq!(sorted.len(), 1, "{sorted:?}");
        assert_eq!(sorted[0].source.as_deref(), Some("go vet, go build"));
    }

    #[test]
    fn one_rustc_error_that_the_lib_and_lib_test_builds_print_differently_is_one_error_of_both() {
        // indexmap 2.14.2 (trial155 M2): the lib build writes `&IndexMap<K, V, S>`, the lib test
        // build `&map::IndexMap<K, V, S>`; "8 errors" for 4, each listed twice.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src/rayon")).unwrap();
        std::fs::write(root.join("src/rayon/map.rs"), "\n".repeat(300)).unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("tests/quick.rs"), "\n".repeat(20)).unwrap();
        let message = |target: (&str, &str), file: &str, line: u32, column: u32, code: &str, text: &str| {
            json!({
                "reason": "compiler-message",
                "target": {"kind": [target.0], "name": target.1},
                "message": {
                    "level": "error",
                    "message": text,
                    "code": {"code": code},
                    "spans": [{"is_primary": true, "file_name": file, "line_start": line, "column_start": column}],
                },
            })
            .to_string()
        };
        let lib = ("lib", "indexmap");
        let stdout = [
            message(lib, "src/rayon/map.rs", 86, 27, "E0599", "no method named `as_entries` found for reference `&'a IndexMap<K, V, S>`"),
            message(lib, "src/rayon/map.rs", 247, 27, "E0599", "no method named `as_entries` found for reference `&IndexMap<K, V, S>`"),
            message(
                lib,
                "src/rayon/map.rs",
                86,
                27,
                "E0599",
                "no method named `as_entries` found for reference `&'a map::IndexMap<K, V, S>`",
            ),
            message(
                lib,
                "src/rayon/map.rs",
                247,
                27,
                "E0599",
                "no method named `as_entries` found for reference `&map::IndexMap<K, V, S>`",
            ),
            // Another code at the same place is another error; so is one in another target.
            message(lib, "src/rayon/map.rs", 247, 27, "E0308", "mismatched types"),
            message(("test", "quick"), "tests/quick.rs", 3, 5, "E0599", "no method named `x`"),
            // Two different errors of one code at one place stay two (review46 #1: an
            // `assert_eq!` whose type lacks both `PartialEq` and `Debug`).
            message(("test", "quick"), "tests/quick.rs", 9, 5, "E0277", "can't compare `Foo` with `Bar`"),
            message(("test", "quick"), "tests/quick.rs", 9, 5, "E0277", "`Foo` doesn't implement `Debug`"),
        ]
        .join("\n");
        let records = sorted_and_deduplicated(parse_cargo(&stdout, &root).unwrap());
        let shown: Vec<String> = records.iter().map(|record| record.render("f")).collect();
        assert_eq!(shown.iter().filter(|line| line.starts_with("f:9: error[E0277]")).count(), 2, "{shown:#?}");
        assert_eq!(records.len(), 6, "{shown:#?}");
        assert!(shown.contains(&"f:3: error[E0599] no method named `x` (rustc; in test `quick`)".to_owned()), "{shown:#?}");
        let at_86: Vec<&String> = shown.iter().filter(|line| line.starts_with("f:86:")).collect();
        assert_eq!(at_86.len(), 1, "{shown:#?}");
        assert!(at_86[0].ends_with("(rustc; in lib `indexmap` — lib and lib test builds)"), "{shown:#?}");
        assert_eq!(shown.iter().filter(|line| line.starts_with("f:247: error[E0599]")).count(), 1, "{shown:#?}");
        assert_eq!(shown.iter().filter(|line| line.starts_with("f:247: error[E0308]")).count(), 1, "{shown:#?}");
    }

    #[test]
    fn go_vets_compiler_block_before_its_vet_line_is_errors_counted_once() {
        // blang/semver v4 with go 1.19 (trial169 M3): vet printed the compiler's errors (column
        // 21, no prefix), then the header again and go/types' first one (column 23): "27 errors,
        // 1 warning" for 27 errors.
        let root = Path::new("/w");
        let vet = "# github.com/blang/semver/v4
./range.go:36:21: not enough arguments in call to v1.Compare
	have (Version)
	want (Version, bool)
./range.go:39:21: not enough arguments in call to v1.Compare
	have (Version)
	want (Version, bool)
./semver.go:93:20: too many errors
# github.com/blang/semver/v4
vet: ./range.go:36:23: not enough arguments in call to v1.Compare
	have (Version)
	want (Version, bool)
";
        let records = parse_go(vet, root, "go vet").unwrap();
        assert_eq!(records.len(), 2, "{records:#?}");
        assert!(records.iter().all(|record| record.severity == Severity::Error), "{records:#?}");
        let build = "# github.com/blang/semver/v4
./range.go:36:21: not enough arguments in call to v1.Compare
	have (Version)
	want (Version, bool)
./range.go:39:21: not enough arguments in call to v1.Compare
	have (Version)
	want (Version, bool)
";
        let mut all = records;
        all.extend(parse_go(build, root, "go build").unwrap());
        let sorted = sorted_and_deduplicated(all);
        assert_eq!(sorted.len(), 2, "{sorted:#?}");
        assert!(sorted.iter().all(|record| record.severity == Severity::Error && record.source.as_deref() == Some("go vet, go build")));
        // Analyzer findings of a package without type errors stay warnings.
        let findings = parse_go(
            "# example.com/x
./a.go:4:2: fmt.Printf format %d has arg s of wrong type string
",
            root,
            "go vet",
        )
        .unwrap();
        assert_eq!(findings[0].severity, Severity::Warning);
    }

    #[test]
    fn one_error_worded_differently_by_go_vet_and_go_build_is_counted_once() {
        // google/btree 1.0.0 with go 1.19 (trial56 F2): go/types and types2 word the same error.
        let root = Path::new("/w");
        let vet = "# github.com/google/btree\nvet: ./btree.go:128:25: cannot use uint(degree) (value of type uint) as int value in argument to NewWithFreeList\n";
        let build = "# github.com/google/btree\n./btree.go:128:25: cannot use uint(degree) (value of type uint) as type int in argument to NewWithFreeList\n./btree.go:130:2: undefined: x\n";
        let mut records = parse_go(vet, root, "go vet").unwrap();
        records.extend(parse_go(build, root, "go build").unwrap());
        let sorted = sorted_and_deduplicated(records);
        assert_eq!(sorted.len(), 2, "{sorted:?}");
        assert!(sorted[0].message.contains("as int value in argument"), "the first wording is kept: {sorted:?}");
        assert_eq!(sorted[0].source.as_deref(), Some("go vet, go build"));
        // Two errors of one step at one position stay two; so do a vet finding (a warning) and
        // an error at one position.
        let one_step = parse_go("./a.go:4:2: first\n./a.go:4:2: second\n", root, "go build").unwrap();
        assert_eq!(sorted_and_deduplicated(one_step).len(), 2);
        // spf13/cast 1.5.0 (trial143 F3): go vet prints go/types' wording and the compiler's,
        // go build the compiler's: one error, not "(go vet)" beside "(go build, go vet)".
        let vet = "# c/conv\nvet: conv/conv.go:40:9: cannot use v (variable of type T) as error value in return statement: T does not implement error (missing method Error)\n# c/conv\nconv/conv.go:40:9: cannot use v (variable of type T) as type error in return statement:\n\tT does not implement error (missing Error method)\n";
        let build = "# c/conv\nconv/conv.go:40:9: cannot use v (variable of type T) as type error in return statement:\n\tT does not implement error (missing Error method)\n";
        let mut records = parse_go(vet, root, "go vet").unwrap();
        records.extend(parse_go(build, root, "go build").unwrap());
        let sorted = sorted_and_deduplicated(records);
        assert_eq!(sorted.len(), 1, "{sorted:#?}");
        assert_eq!(sorted[0].source.as_deref(), Some("go vet, go build"), "each step named once: {sorted:?}");
        let mut mixed = parse_go("./a.go:4:2: printf: wrong verb\n", root, "go vet").unwrap();
        mixed.extend(parse_go("./a.go:4:2: undefined: y\n", root, "go build").unwrap());
        assert_eq!(sorted_and_deduplicated(mixed).len(), 2);
        // gopls check's ranges carry the column too.
        let gopls = parse_go(
            "/w/btree.go:128:25-37: cannot use uint(degree) (value of type uint) as int value in argument to NewWithFreeList\n",
            root,
            "gopls check",
        )
        .unwrap();
        assert_eq!(gopls[0].column, Some(25));
    }

    #[test]
    fn a_compiler_error_repeated_by_go_vet_as_a_warning_is_counted_once_as_an_error() {
        // go 1.19's `go vet` prints the type errors of a package that does not compile without
        // the `vet: ` prefix (trial 11 on go-spew: "6 errors, 6 warnings" for 6 problems).
        let root = Path::new("/w");
        let vet = "# github.com/davecgh/go-spew/spew [github.com/davecgh/go-spew/spew.test]\nspew/dump.go:138:21: not enough arguments in call to printHexPtr\n\thave (io.Writer, uintptr)\n\twant (io.Writer, uintptr, bool)\n";
        let build = "# github.com/davecgh/go-spew/spew\nspew/dump.go:138:21: not enough arguments in call to printHexPtr\n\thave (io.Writer, uintptr)\n\twant (io.Writer, uintptr, bool)\n";
        let mut records = parse_go(vet, root, "go vet").unwrap();
        records.extend(parse_go(build, root, "go build").unwrap());
        let sorted = sorted_and_deduplicated(records);
        assert_eq!(sorted.len(), 1, "{sorted:?}");
        assert_eq!(sorted[0].severity, Severity::Error);
        // Under the test-variant header the vet line is an error itself (trial51 F1).
        assert_eq!(sorted[0].source.as_deref(), Some("go vet, go build"));
    }

    #[test]
    fn go_vet_and_go_build_wordings_of_a_composite_literal_are_one_error() {
        let vet = "cannot use (FromIOFS literal) (value of type FromIOFS) as Fs value in return statement: FromIOFS does not implement Fs (missing method Label)";
        let build = "cannot use FromIOFS{…} (value of type FromIOFS) as Fs value in return statement: FromIOFS does not implement Fs (missing method Label)";
        assert_eq!(go_literal_normalized(vet), go_literal_normalized(build));
        assert_eq!(
            go_literal_normalized("cannot use &UnionFile{Base: f, Layer: l} (value of type *UnionFile)"),
            "cannot use &UnionFile{…} (value of type *UnionFile)"
        );
        assert_ne!(go_literal_normalized("undefined: Name"), go_literal_normalized("undefined: Label"));
        let record = |message: &str, source: &str| DiagnosticRecord {
            column: Some(9),
            ..record(Path::new("/w"), "iofs.go", 160, Severity::Error, None, message, source)
        };
        let merged = sorted_and_deduplicated(vec![record(vet, "go vet"), record(build, "go build, go vet")]);
        assert_eq!(merged.len(), 1, "{merged:#?}");
    }

    #[test]
    fn different_errors_of_go_build_and_go_test_at_one_position_are_both_listed() {
        // golang.org/x/exp slices (trial173 F2), the shape of its fixture: `a.go` calls
        // `helper` and `compare`, which only `a_test.go` declares, so go build (without the test
        // files) and go test (with them) report different errors at the same positions; another
        // package's test imports this one, so vet prints the compiler's errors of the package
        // too, then go/types' first error as a `vet: ` line. go 1.19's own output.
        let root = Path::new("/w");
        let vet = "# fx/p\np/a.go:3:25: undefined: helper\np/a.go:5:41: undefined: compare\n# fx/p\nvet: p/a.go:3:25: invalid operation: operator ! not defined on helper() (value of type int)\n";
        let build = "# fx/p\np/a.go:3:25: undefined: helper\np/a.go:5:41: undefined: compare\n";
        let test = "# fx/p [fx/p.test]\np/a.go:3:25: invalid operation: operator ! not defined on helper() (value of type int)\np/a.go:5:41: invalid operation: operator ! not defined on compare(x, y) (value of type int)\np/a.go:5:48: E does not implement ordered\n";
        let mut known = parse_go(vet, root, "go vet").unwrap();
        known.extend(parse_go(build, root, "go build").unwrap());
        let test_records = without_go_test_rewordings_of_vet_errors(&known, parse_go(test, root, GO_TEST_COMPILE_SOURCE).unwrap());
        assert_eq!(test_records.len(), 3, "go test's errors are its own, not vet's reworded: {test_records:#?}");
        known.extend(test_records);
        let listed: Vec<(u32, String, String)> = sorted_and_deduplicated(known)
            .into_iter()
            .map(|record| (record.line, record.message, record.source.unwrap_or_default()))
            .collect();
        let row = |line: u32, message: &str, source: &str| (line, message.to_owned(), source.to_owned());
        assert_eq!(
            listed,
            vec![
                row(3, "undefined: helper", "go vet, go build"),
                row(3, "invalid operation: operator ! not defined on helper() (value of type int)", "go vet, go test (compile only)"),
                row(5, "undefined: compare", "go vet, go build"),
                row(5, "invalid operation: operator ! not defined on compare(x, y) (value of type int)", "go test (compile only)"),
                row(5, "E does not implement ordered", "go test (compile only)"),
            ]
        );
        // vet's go/types error worded otherwise than go test's at another column of its line is
        // go test's error: dropped from go test's, once.
        let vet = "# c/conv\nvet: conv/conv.go:40:12: cannot use v (variable of type T) as string value in return statement\n";
        let test = "# c/conv [c/conv.test]\nconv/conv.go:40:9: cannot use v (variable of type T) as type string in return statement\nconv/conv.go:40:30: undefined: y\n";
        let known = parse_go(vet, root, "go vet").unwrap();
        let test_records = without_go_test_rewordings_of_vet_errors(&known, parse_go(test, root, GO_TEST_COMPILE_SOURCE).unwrap());
        let messages: Vec<&str> = test_records.iter().map(|record| record.message.as_str()).collect();
        assert_eq!(messages, vec!["undefined: y"]);
    }
}
