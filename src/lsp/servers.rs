//! The server table (as data), root detection and binary resolution.
//!
//! A server can serve a file only when both halves of the intersection hold (R-LSP-2): a root
//! marker is found between the file and the workspace root (never above it), **and** the binary
//! resolves (project-local `node_modules/.bin`, `.venv/bin`, `venv/bin` first, then `PATH`;
//! versioned names like `clangd-19` when the plain name is absent). [`ServerDefinition`]s are plain
//! data; a host adds or overrides entries through [`crate::lsp::LspConfig::servers`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::python_env::{resolve_project_interpreter, PythonInterpreter};
use crate::trust::WorkspaceTrust;

/// How the root of a file is found from the markers (all strategies stop at the workspace root).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootStrategy {
    /// The nearest ancestor directory (from the file's directory up) containing any marker.
    Nearest,
    /// Rust: the nearest `Cargo.toml`, then the nearest ancestor `Cargo.toml` that declares
    /// `[workspace]` (within the workspace), if any.
    CargoWorkspace,
    /// Go: the nearest `go.work` anywhere up to the workspace root, else the nearest `go.mod`.
    GoWorkThenModule,
}

/// What tells us a server is done indexing, besides `$/progress` begin/end (always tracked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadinessSignal {
    /// Only `$/progress` tokens (and pyright's `pyright/beginProgress`/`endProgress`).
    Progress,
    /// rust-analyzer's `experimental/serverStatus` with `quiescent: true` (plus progress).
    RustAnalyzerQuiescent,
    /// Dart's `$/analyzerStatus` with `isAnalyzing: false` (plus progress).
    DartAnalyzerStatus,
    /// pyright / basedpyright: not ready until the server logs (info-level `window/logMessage`)
    /// that it finished enumerating the project's source files — `Found N source files` or
    /// `No source files found.` — plus progress. Before that its program holds only the open
    /// files, so `textDocument/references` silently misses every other file (and pyright sends
    /// no `$/progress` for this phase). A server that never logs it (e.g. `logLevel` set above
    /// `Information`) counts as ready once `startup_grace` has passed.
    PyrightSourceFilesFound,
    /// typescript-language-server: not ready until its project load has been reported done — a
    /// loading `$/progress` ("Initializing JS/TS language features…") begun and ended, or a
    /// `publishDiagnostics` received — or `startup_grace` has passed. Until the semantic tsserver
    /// reports `projectLoadingFinish` (or a diagnostics event), typescript-language-server routes
    /// `definition`, `references`, `implementation` and `rename` to its syntax server, which
    /// knows the open files only: `references` of redux's `Store.getState` asked right after the
    /// first `didOpen` answered 1 location, 2 once loaded. Its progress begins only when the
    /// semantic server starts loading (after a `window/workDoneProgress/create` round trip), so
    /// "no progress yet" is no sign of a loaded project.
    TsserverProjectLoaded,
}

/// How diagnostics on write find and check the files a write can break besides the written ones
/// (callers, importers, implementors), and what ends the wait for the server's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCheck {
    /// The server runs its own check of the whole project after `didSave` and publishes for every
    /// file of it (rust-analyzer's flycheck = `cargo check` of the workspace): the end of that
    /// run's `$/progress` ends the wait; every file published during the run is compared with its
    /// state before the write.
    ProjectCheckRun,
    /// The server publishes diagnostics for every file of the workspace the change affects, open
    /// or not (gopls: the changed package and its reverse dependencies): the end of the
    /// diagnosis passes the sync started (gopls' `diagnosing …` progress; for a server that
    /// reports none, the settle time after the last publish) ends the wait. Each written file's
    /// state is its latest set for the synced version: a write over several files is first
    /// checked file by file against the written files not synced yet. Passes still running at the
    /// budget make the written files' states "not confirmed" (diagnostics unavailable).
    WorkspacePublishes,
    /// typescript-language-server: importers from tsserver's `fileReferences` (followed through
    /// re-exporting files), diagnostics asked with `semanticDiagnosticsSync` and
    /// `syntacticDiagnosticsSync` through the `typescript.tsserverRequest` command: the answers end
    /// the wait (tsserver publishes nothing for a file that stays clean).
    TsserverRequests,
    /// Files that import the written module (Python `import`/`from … import`) or include the
    /// written header (C/C++ `#include`), found by scanning the root's files, are opened in the
    /// server; their diagnostics come from a pull (`textDocument/diagnostic`) when the server
    /// offers it, else from the publishes after the sync.
    OpenImporters,
    /// Only the written files are checked (a server that checks one file at a time: pylsp).
    WrittenFilesOnly,
}

/// One language server: how to launch it, which files it serves, how its root is found, how
/// readiness is judged. Plain data; build your own with struct literal syntax.
#[derive(Debug, Clone)]
pub struct ServerDefinition {
    /// Stable id, e.g. `rust-analyzer`, `pyright`. One process runs per (id, root).
    pub id: String,
    /// Binary names tried in order, e.g. `["clangd"]`. Each is looked up in the project-local
    /// bin directories, then on `PATH`.
    pub binary_names: Vec<String>,
    /// Also accept `<name>-<N>` (e.g. `clangd-19`), highest `N` first, when the plain name is
    /// absent.
    pub accept_versioned_binary: bool,
    /// Arguments, e.g. `["--stdio"]`.
    pub args: Vec<String>,
    /// Extra environment variables for the process.
    pub env: Vec<(String, String)>,
    /// File extensions served (without the dot) and their LSP `languageId`, e.g.
    /// `("tsx", "typescriptreact")`.
    pub extensions: Vec<(String, String)>,
    /// Root marker file or directory names, e.g. `["pyproject.toml", "setup.py"]`.
    pub root_markers: Vec<String>,
    /// How the root is found from the markers.
    pub root_strategy: RootStrategy,
    /// `initializationOptions` sent in `initialize` (`null` for none).
    pub initialization_options: Value,
    /// Settings answered to `workspace/configuration`: each requested `section` is looked up as a
    /// dotted path in this object; missing → `null`.
    pub settings: Value,
    /// The readiness signal besides progress.
    pub readiness: ReadinessSignal,
    /// After `initialized`, how long a server that has not (yet) reported progress is still
    /// treated as starting (some servers begin reporting only after a delay).
    pub startup_grace: Duration,
    /// Quiet time after the last diagnostics publish before a set counts as settled (used by
    /// diagnostics collection; servers publish stale sets first).
    pub diagnostics_settle: Duration,
    /// Send clangd's `offsetEncoding` capability extension (clangd ignores LSP 3.17's
    /// `positionEncodings`).
    pub clangd_offset_encoding: bool,
    /// Open one file of the root right after start (tsserver answers "No Project" to
    /// `workspace/symbol` until a file of the project is open).
    pub open_representative_file: bool,
    /// How diagnostics on write reach the files a write can break besides the written ones.
    pub write_check: WriteCheck,
    /// Settings computed per root from the project when the server starts, merged over
    /// `settings` and `initialization_options` (`configure_for_root`).
    pub project_settings: ProjectSettings,
    /// `references` answers are cross-checked against whole-word occurrences of the name
    /// (`lsp::rename_coverage::complete_references`: every occurrence outside the
    /// answer is asked `definition`, up to 400 requests) and missed uses are asked again. On for
    /// the Python servers, which miss real uses (pyright asked at a source definition skips the
    /// uses bound through a `.pyi` stub beside it: attrs' `evolve`, 27 uses in `tests/`) and for
    /// rust-analyzer, whose answer misses uses inside macro calls of `#[cfg(test)]` modules
    /// (textwrap's `display_width`: 15 of 23; the 8 in `assert_eq!` are named in a note; p50 on a
    /// warm server, debug build: semver `Version::parse` 4.6 → 31.6 ms, textwrap 5.4 → 76.2 ms);
    /// off for the others, where it added no reference on the corpus and cost 1.6–67× the request on a
    /// warm server (gopls `Path.String` in go-cmp: 61 → 883 ms; typescript-language-server
    /// `dispatch` in redux: 4 → 285 ms; see `benches/lsp.rs -- corpus`). `lsp_rename`'s
    /// cross-check is not affected.
    pub cross_check_references: bool,
}

/// Project-specific settings runbound computes per root and merges into a server's
/// configuration when it starts (see `configure_for_root`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectSettings {
    /// Nothing beyond the definition's static settings.
    None,
    /// pyright and basedpyright: `python.pythonPath` = the project's interpreter
    /// (`crate::python_env::resolve_project_interpreter`), answered through
    /// `workspace/configuration` (both servers request the `python` section per workspace
    /// folder and read `pythonPath` and `venvPath` there; `venv` exists only in their
    /// configuration files, which they read themselves).
    PyrightPythonPath,
    /// pylsp: `pylsp.plugins.jedi.environment` = the project's interpreter, and
    /// `pylsp.plugins.jedi.extra_paths` = `[<root>/src]` when that directory exists (what
    /// pyright's `autoSearchPaths` adds), in both `initializationOptions` and
    /// `workspace/didChangeConfiguration` (pylsp reads settings from those two only).
    PylspJediEnvironment,
}

impl ServerDefinition {
    /// The LSP `languageId` for `path`, when this server serves its extension.
    pub fn language_id_for(&self, path: &Path) -> Option<&str> {
        let extension = path.extension()?.to_str()?;
        self.extensions.iter().find(|(ext, _)| ext == extension).map(|(_, language)| language.as_str())
    }

    /// Whether this server serves files with `path`'s extension.
    pub fn serves(&self, path: &Path) -> bool {
        self.language_id_for(path).is_some()
    }
}

/// The built-in server table, in preference order (for a `.py` file pyright is tried before
/// basedpyright and pylsp; a call may name a server explicitly).
///
/// | id | command | root markers |
/// |---|---|---|
/// | rust-analyzer | `rust-analyzer` | `Cargo.toml` (workspace-aware) |
/// | pyright | `pyright-langserver --stdio` | pyproject.toml, setup.py, setup.cfg, requirements.txt, pyrightconfig.json |
/// | basedpyright | `basedpyright-langserver --stdio` | same |
/// | pylsp | `pylsp` | same |
/// | typescript-language-server | `typescript-language-server --stdio` (needs `typescript@5`) | package.json, tsconfig.json, jsconfig.json |
/// | gopls | `gopls` | go.work, then go.mod |
/// | clangd | `clangd` or `clangd-NN` | compile_commands.json, compile_flags.txt, .clangd |
/// | dart | `dart language-server --protocol=lsp` | pubspec.yaml |
pub fn builtin_servers() -> Vec<ServerDefinition> {
    let python_markers = strings(&crate::python_env::PYTHON_ROOT_MARKERS);
    let python_ext = pairs(&[("py", "python"), ("pyi", "python")]);
    let base = |id: &str, binary: &str, args: &[&str]| ServerDefinition {
        id: id.to_owned(),
        binary_names: vec![binary.to_owned()],
        accept_versioned_binary: false,
        args: strings(args),
        env: Vec::new(),
        extensions: Vec::new(),
        root_markers: Vec::new(),
        root_strategy: RootStrategy::Nearest,
        initialization_options: Value::Null,
        settings: Value::Null,
        readiness: ReadinessSignal::Progress,
        startup_grace: Duration::from_millis(300),
        diagnostics_settle: Duration::from_millis(300),
        clangd_offset_encoding: false,
        open_representative_file: false,
        write_check: WriteCheck::WrittenFilesOnly,
        project_settings: ProjectSettings::None,
        cross_check_references: false,
    };
    vec![
        ServerDefinition {
            extensions: pairs(&[("rs", "rust")]),
            root_markers: strings(&["Cargo.toml"]),
            root_strategy: RootStrategy::CargoWorkspace,
            readiness: ReadinessSignal::RustAnalyzerQuiescent,
            diagnostics_settle: Duration::from_millis(400),
            // `cargo.targetDir: true`: rust-analyzer's cargo check (and its build-script and
            // proc-macro builds) use `target/rust-analyzer`, not `target/` itself. In `target/` a
            // check after a save waits on the build-directory lock for as long as any other cargo
            // builds there — the user's or the agent's `cargo test`, a `debug` launch's build:
            // trial 14 saw an edit take 26.9 s ("cargo check, 26.5 s after the save") where the
            // check itself takes ~2-4 s; with another cargo holding `target/` for 25 s an edit on
            // indexmap took 25.6 s in `target/` and 4.9 s in `target/rust-analyzer`. The cost: the
            // check's artifacts (metadata only) exist twice, and the first check of a run whose
            // `target/rust-analyzer` is new checks the dependencies once. The project check
            // (`"*"`, `checker.rs`) uses the same directory, so it reuses what the flycheck built.
            //
            // `workspace.symbol.search.kind: all_symbols`: rust-analyzer's default searches types
            // only whenever a type matches, so `symbols` with query `prefilter` on aho-corasick
            // 1.1.3 listed 10 types and none of the 10 `fn prefilter` (trial20 F4).
            //
            // `cargo.cfgs: ["debug_assertions"]`: rust-analyzer's default also enables `miri`
            // (`["debug_assertions", "miri"]`), so code under `#[cfg(not(miri))]` — the tests
            // many crates keep from Miri — was inactive to it while cargo compiles it:
            // references of bitflags' `to_writer` missed the call at src/tests/parser.rs:15
            // that a rename then broke (E0423), with no note (trial26). Without `miri` the
            // analysis sees what `cargo build`/`cargo test` compile.
            settings: json!({"rust-analyzer": {
                "checkOnSave": true,
                "cargo": {"targetDir": true, "cfgs": ["debug_assertions"]},
                "workspace": {"symbol": {"search": {"kind": "all_symbols"}}},
            }}),
            initialization_options: json!({
                "cargo": {"cfgs": ["debug_assertions"]},
                "workspace": {"symbol": {"search": {"kind": "all_symbols"}}},
            }),
            write_check: WriteCheck::ProjectCheckRun,
            cross_check_references: true,
            ..base("rust-analyzer", "rust-analyzer", &[])
        },
        // `logLevel: Information` keeps the `Found N source files` log line that readiness
        // waits for (see `ReadinessSignal::PyrightSourceFilesFound`); loading a project takes
        // ~0.5-2 s cold (interpreter discovery, file enumeration), more on large trees.
        // `autoSearchPaths` and `useLibraryCodeForTypes` are spelled out: once a client sends
        // an `analysis` section, pyright reads a missing `autoSearchPaths` as false, and then a
        // src-layout project's own imports (`import pkg` from tests/) resolve to whatever copy
        // of `pkg` the interpreter has installed instead of `src/pkg`. The interpreter itself
        // (`python.pythonPath`) is added per root (`ProjectSettings::PyrightPythonPath`).
        ServerDefinition {
            extensions: python_ext.clone(),
            root_markers: python_markers.clone(),
            settings: json!({"python": {"analysis": {
                "diagnosticMode": "openFilesOnly",
                "logLevel": "Information",
                "autoSearchPaths": true,
                "useLibraryCodeForTypes": true,
            }}}),
            readiness: ReadinessSignal::PyrightSourceFilesFound,
            startup_grace: Duration::from_secs(30),
            write_check: WriteCheck::OpenImporters,
            project_settings: ProjectSettings::PyrightPythonPath,
            cross_check_references: true,
            ..base("pyright", "pyright-langserver", &["--stdio"])
        },
        // basedpyright reads `basedpyright.analysis` (falling back to `python.analysis`) and, like
        // pyright, `python.pythonPath`.
        ServerDefinition {
            extensions: python_ext.clone(),
            root_markers: python_markers.clone(),
            settings: json!({
                "basedpyright": {"analysis": {
                    "diagnosticMode": "openFilesOnly",
                    "logLevel": "Information",
                    "autoSearchPaths": true,
                    "useLibraryCodeForTypes": true,
                }},
                "python": {"analysis": {"logLevel": "Information", "autoSearchPaths": true}},
            }),
            readiness: ReadinessSignal::PyrightSourceFilesFound,
            startup_grace: Duration::from_secs(30),
            write_check: WriteCheck::OpenImporters,
            project_settings: ProjectSettings::PyrightPythonPath,
            cross_check_references: true,
            ..base("basedpyright", "basedpyright-langserver", &["--stdio"])
        },
        ServerDefinition {
            extensions: python_ext,
            root_markers: python_markers,
            project_settings: ProjectSettings::PylspJediEnvironment,
            cross_check_references: true,
            ..base("pylsp", "pylsp", &[])
        },
        ServerDefinition {
            extensions: pairs(&[
                ("ts", "typescript"),
                ("tsx", "typescriptreact"),
                ("mts", "typescript"),
                ("cts", "typescript"),
                ("js", "javascript"),
                ("jsx", "javascriptreact"),
                ("mjs", "javascript"),
                ("cjs", "javascript"),
            ]),
            root_markers: strings(&["package.json", "tsconfig.json", "jsconfig.json"]),
            // Not ready until tsserver reported its project loaded (see
            // `ReadinessSignal::TsserverProjectLoaded`): "Initializing JS/TS language features"
            // begins ~1 s after the first file opens (~4 s on a loaded machine) and ended at 18 s
            // on @tanstack/virtual-core under load; a server that reports neither counts as ready
            // after 60 s (each call waits at most its `indexing_wait` for it).
            readiness: ReadinessSignal::TsserverProjectLoaded,
            startup_grace: Duration::from_secs(60),
            // No automatic type acquisition: tsserver's typings installer would `npm install`
            // @types packages into a global cache at run time (network, and two servers starting
            // together wait on each other's npm: "Initializing JS/TS language features" for 20 s+).
            initialization_options: json!({"disableAutomaticTypingAcquisition": true}),
            open_representative_file: true,
            write_check: WriteCheck::TsserverRequests,
            ..base("typescript-language-server", "typescript-language-server", &["--stdio"])
        },
        ServerDefinition {
            extensions: pairs(&[("go", "go")]),
            root_markers: strings(&["go.work", "go.mod"]),
            root_strategy: RootStrategy::GoWorkThenModule,
            write_check: WriteCheck::WorkspacePublishes,
            // gopls then reports each diagnosis pass (`diagnosing changed files`, …) as progress
            // that ends after every set of the pass was published: the end of a write's check
            // and a settled pre-write state, instead of a quiet time (under load gopls published
            // the importing packages' sets more than the 300 ms settle after the written file's).
            initialization_options: json!({"verboseWorkDoneProgress": true}),
            ..base("gopls", "gopls", &[])
        },
        ServerDefinition {
            accept_versioned_binary: true,
            extensions: pairs(&[
                ("c", "c"),
                ("h", "c"),
                ("cc", "cpp"),
                ("cpp", "cpp"),
                ("cxx", "cpp"),
                ("hpp", "cpp"),
                ("hh", "cpp"),
                ("hxx", "cpp"),
            ]),
            root_markers: strings(&["compile_commands.json", "compile_flags.txt", ".clangd"]),
            clangd_offset_encoding: true,
            write_check: WriteCheck::OpenImporters,
            ..base("clangd", "clangd", &[])
        },
        ServerDefinition {
            extensions: pairs(&[("dart", "dart")]),
            root_markers: strings(&["pubspec.yaml"]),
            readiness: ReadinessSignal::DartAnalyzerStatus,
            initialization_options: json!({
                "onlyAnalyzeProjectsWithOpenFiles": true,
                "suggestFromUnimportedLibraries": true,
                "closingLabels": false,
                "outline": false,
                "flutterOutline": false,
            }),
            ..base("dart", "dart", &["language-server", "--protocol=lsp"])
        },
    ]
}

/// A server definition made for one root: the definition with the project's settings merged
/// in, and the interpreter they name (see [`configure_for_root`]).
#[derive(Debug, Clone)]
pub struct RootConfiguration {
    /// The definition to start the process with (`settings` and `initialization_options`
    /// include the computed project settings).
    pub definition: ServerDefinition,
    /// For servers with Python project settings: the interpreter resolved for the root, or why
    /// none resolved (the server then starts with its own default, `python3` on its `PATH`).
    pub interpreter: Option<Result<PythonInterpreter, String>>,
}

/// Specialises `definition` for `root` (absolute, under `workspace_root`) according to its
/// [`ProjectSettings`]: resolves the project's Python interpreter
/// ([`crate::python_env::resolve_project_interpreter`], `PATH` from `path_env`) and merges the
/// matching settings over the definition's own (objects merged key by key; the computed values
/// win). Definitions without project settings are returned unchanged.
pub fn configure_for_root(
    definition: &ServerDefinition,
    root: &Path,
    workspace_root: &Path,
    path_env: Option<&OsString>,
) -> RootConfiguration {
    let mut configured = definition.clone();
    if definition.project_settings == ProjectSettings::None {
        return RootConfiguration { definition: configured, interpreter: None };
    }
    let marker = find_root(definition, workspace_root, &root.join(".runbound-probe")).marker;
    let interpreter = resolve_project_interpreter(root, workspace_root, marker.as_deref(), path_env.map(OsString::as_os_str));
    if let Ok(found) = &interpreter {
        let python = found.python.to_string_lossy().into_owned();
        match definition.project_settings {
            ProjectSettings::PyrightPythonPath => {
                merge_json(&mut configured.settings, json!({"python": {"pythonPath": python}}));
            }
            ProjectSettings::PylspJediEnvironment => {
                let src = root.join("src");
                let extra_paths: Vec<String> = if src.is_dir() { vec![src.to_string_lossy().into_owned()] } else { Vec::new() };
                let jedi = json!({"pylsp": {"plugins": {"jedi": {"environment": python, "extra_paths": extra_paths}}}});
                merge_json(&mut configured.settings, jedi.clone());
                merge_json(&mut configured.initialization_options, jedi);
            }
            ProjectSettings::None => (),
        }
    }
    RootConfiguration { definition: configured, interpreter: Some(interpreter) }
}

/// Merges `overlay` into `base`: objects key by key (recursively), anything else replaced; a
/// `null` base becomes the overlay.
pub fn merge_json(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                merge_json(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (base, overlay) => *base = overlay,
    }
}

/// Merges host entries into `table`: an entry with an existing id replaces it in place; a new id
/// is appended (tried after the built-in ones).
pub fn merge_servers(table: &mut Vec<ServerDefinition>, overrides: &[ServerDefinition]) {
    for entry in overrides {
        match table.iter_mut().find(|existing| existing.id == entry.id) {
            Some(existing) => *existing = entry.clone(),
            None => table.push(entry.clone()),
        }
    }
}

/// Where a root was found (or where we looked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootLookup {
    /// The root directory, when a marker was found.
    pub root: Option<PathBuf>,
    /// The marker file that decided it, e.g. `/ws/crates/a/Cargo.toml`.
    pub marker: Option<PathBuf>,
    /// The directories searched, from the file's directory up to the workspace root.
    pub searched_from: PathBuf,
}

/// Finds the root for `file` (absolute, under `workspace_root`) following `definition`'s strategy;
/// never climbs above `workspace_root`.
pub fn find_root(definition: &ServerDefinition, workspace_root: &Path, file: &Path) -> RootLookup {
    let start = if file.is_dir() { file.to_path_buf() } else { file.parent().unwrap_or(workspace_root).to_path_buf() };
    let ancestors: Vec<&Path> = start.ancestors().take_while(|dir| dir.starts_with(workspace_root)).collect();
    let marker_in =
        |dir: &Path, names: &[String]| -> Option<PathBuf> { names.iter().map(|name| dir.join(name)).find(|candidate| candidate.exists()) };
    let found =
        |marker: PathBuf| RootLookup { root: marker.parent().map(Path::to_path_buf), marker: Some(marker), searched_from: start.clone() };
    match definition.root_strategy {
        RootStrategy::Nearest => {
            for (index, dir) in ancestors.iter().enumerate() {
                if let Some(marker) = marker_in(dir, &definition.root_markers) {
                    // A folder whose only marker is a requirements.txt (a test or docs
                    // environment: packaging 24.2's tests/requirements.txt) inside an outer
                    // project is part of that project: a server rooted there sees the project's
                    // own package as an installed library — references from a test missed every
                    // use in src/, and a test file got an error the project's pyright does not
                    // report (trial36 F3, F4).
                    let outer = || ancestors[index + 1..].iter().any(|outer| marker_in(outer, &definition.root_markers).is_some());
                    if requirements_only_root(dir, &definition.root_markers) && outer() {
                        continue;
                    }
                    return found(marker);
                }
            }
        }
        RootStrategy::CargoWorkspace => {
            let cargo = strings(&["Cargo.toml"]);
            let Some(nearest_idx) = ancestors.iter().position(|dir| marker_in(dir, &cargo).is_some()) else {
                return RootLookup { root: None, marker: None, searched_from: start };
            };
            for dir in &ancestors[nearest_idx..] {
                let manifest = dir.join("Cargo.toml");
                let declares_workspace = crate::files::read_workspace_file_to_string(workspace_root, &manifest)
                    .is_ok_and(|text| text.lines().any(|line| line.trim() == "[workspace]"));
                if declares_workspace {
                    return found(manifest);
                }
            }
            return found(ancestors[nearest_idx].join("Cargo.toml"));
        }
        RootStrategy::GoWorkThenModule => {
            for names in [strings(&["go.work"]), strings(&["go.mod"])] {
                for dir in &ancestors {
                    if let Some(marker) = marker_in(dir, &names) {
                        return found(marker);
                    }
                }
            }
        }
    }
    RootLookup { root: None, marker: None, searched_from: start }
}

/// Whether `dir`'s only root marker among `markers` is a `requirements.txt`, and it has no
/// environment of its own (`.venv`/`venv`): such a folder is no project by itself (see
/// [`find_root`]).
fn requirements_only_root(dir: &Path, markers: &[String]) -> bool {
    dir.join("requirements.txt").is_file()
        && markers.iter().filter(|name| name.as_str() != "requirements.txt").all(|name| !dir.join(name).exists())
        && !dir.join(".venv").is_dir()
        && !dir.join("venv").is_dir()
}

/// Where a binary was found (or every place we looked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryLookup {
    /// The resolved executable, when found.
    pub path: Option<PathBuf>,
    /// The names tried, e.g. `["clangd", "clangd-NN"]`.
    pub names_tried: Vec<String>,
    /// The directories searched, in order (project-local first, then `PATH`).
    pub dirs_searched: Vec<PathBuf>,
}

/// Resolves `definition`'s binary for `root` (the project-local bin directories of `root` and of
/// `workspace_root` first, then `path_env`, the value of `PATH`) in a trusted run; see
/// [`resolve_binary_for`].
#[cfg(test)]
pub fn resolve_binary(
    definition: &ServerDefinition,
    root: Option<&Path>,
    workspace_root: &Path,
    path_env: Option<&OsString>,
) -> BinaryLookup {
    resolve_binary_for(definition, root, workspace_root, path_env, WorkspaceTrust::Trusted)
}

/// Resolves `definition`'s binary for `root`. Trusted: the project-local bin directories of
/// `root` and of `workspace_root` first, then `path_env` (a `PATH` value; relative entries are
/// skipped). Restricted: `path_env` only, and a candidate that resolves inside the workspace
/// (through a symlink, or a `PATH` entry pointing there) is skipped — the checkout's own
/// binaries are never chosen.
pub fn resolve_binary_for(
    definition: &ServerDefinition,
    root: Option<&Path>,
    workspace_root: &Path,
    path_env: Option<&OsString>,
    trust: WorkspaceTrust,
) -> BinaryLookup {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut local_bases: Vec<&Path> = Vec::new();
    if let Some(root) = root {
        local_bases.push(root);
    }
    if root != Some(workspace_root) {
        local_bases.push(workspace_root);
    }
    if !trust.is_restricted() {
        for base in local_bases {
            for local in crate::lsp::trust::PROJECT_LOCAL_BIN_DIRS {
                dirs.push(base.join(local));
            }
        }
    }
    if let Some(path_env) = path_env {
        dirs.extend(std::env::split_paths(path_env).filter(|dir| dir.is_absolute()));
    }
    let allowed = |candidate: &Path| {
        is_executable_file(candidate) && !(trust.is_restricted() && crate::trust::resolves_inside(workspace_root, candidate))
    };
    let mut names_tried = definition.binary_names.clone();
    for name in &definition.binary_names {
        for dir in &dirs {
            let candidate = dir.join(name);
            if allowed(&candidate) {
                return BinaryLookup { path: Some(candidate), names_tried, dirs_searched: dirs };
            }
        }
    }
    if definition.accept_versioned_binary {
        for name in &definition.binary_names {
            names_tried.push(format!("{name}-NN"));
            let mut best: Option<(u32, PathBuf)> = None;
            for dir in &dirs {
                let Ok(entries) = std::fs::read_dir(dir) else { continue };
                for entry in entries.flatten() {
                    let file_name = entry.file_name();
                    let Some(file_name) = file_name.to_str() else { continue };
                    let Some(version) = file_name.strip_prefix(name.as_str()).and_then(|rest| rest.strip_prefix('-')) else { continue };
                    let Ok(version) = version.parse::<u32>() else { continue };
                    let candidate = entry.path();
                    if allowed(&candidate) && best.as_ref().is_none_or(|(best_version, _)| version > *best_version) {
                        best = Some((version, candidate));
                    }
                }
            }
            if let Some((_, path)) = best {
                return BinaryLookup { path: Some(path), names_tried, dirs_searched: dirs };
            }
        }
    }
    BinaryLookup { path: None, names_tried, dirs_searched: dirs }
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: &str) -> ServerDefinition {
        builtin_servers().into_iter().find(|s| s.id == id).unwrap()
    }

    fn touch(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn cargo_root_climbs_to_the_workspace_manifest_but_not_above_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        touch(&dir.path().join("Cargo.toml"), "[workspace]\n");
        touch(&ws.join("Cargo.toml"), "[workspace]\nmembers = [\"crates/a\"]\n");
        touch(&ws.join("crates/a/Cargo.toml"), "[package]\nname = \"a\"\n");
        touch(&ws.join("crates/a/src/lib.rs"), "");
        let lookup = find_root(&server("rust-analyzer"), &ws, &ws.join("crates/a/src/lib.rs"));
        assert_eq!(lookup.root.as_deref(), Some(ws.as_path()));
        // Without [workspace] the nearest manifest wins.
        touch(&ws.join("Cargo.toml"), "[package]\nname = \"top\"\n");
        let lookup = find_root(&server("rust-analyzer"), &ws, &ws.join("crates/a/src/lib.rs"));
        assert_eq!(lookup.root, Some(ws.join("crates/a")));
        // Never above the workspace: a marker outside is not seen.
        let inner = ws.join("crates/a/src");
        let lookup = find_root(&server("rust-analyzer"), &inner, &inner.join("lib.rs"));
        assert_eq!(lookup.root, None);
    }

    #[test]
    fn a_nested_requirements_txt_is_no_python_root_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        touch(&ws.join("pyproject.toml"), "[project]\nname = \"p\"\n");
        touch(&ws.join("tests/requirements.txt"), "pytest\n");
        touch(&ws.join("tests/test_a.py"), "");
        touch(&ws.join("plugins/one/pyproject.toml"), "[project]\nname = \"one\"\n");
        touch(&ws.join("plugins/one/requirements.txt"), "");
        touch(&ws.join("tools/requirements.txt"), "");
        std::fs::create_dir_all(ws.join("tools/.venv")).unwrap();
        let pyright = server("pyright");
        assert_eq!(find_root(&pyright, ws, &ws.join("tests/test_a.py")).root.as_deref(), Some(ws), "packaging 24.2's tests/");
        assert_eq!(find_root(&pyright, ws, &ws.join("plugins/one/x.py")).root, Some(ws.join("plugins/one")), "a project of its own");
        assert_eq!(find_root(&pyright, ws, &ws.join("tools/x.py")).root, Some(ws.join("tools")), "an environment of its own");
        // Alone, a requirements.txt makes the root.
        let alone = tempfile::tempdir().unwrap();
        touch(&alone.path().join("requirements.txt"), "");
        assert_eq!(find_root(&pyright, alone.path(), &alone.path().join("x.py")).root.as_deref(), Some(alone.path()));
    }

    #[test]
    fn go_work_wins_over_a_nearer_go_mod() {
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("go.work"), "go 1.19\n");
        touch(&dir.path().join("mod/go.mod"), "module m\n");
        let lookup = find_root(&server("gopls"), dir.path(), &dir.path().join("mod/main.go"));
        assert_eq!(lookup.root.as_deref(), Some(dir.path()));
        std::fs::remove_file(dir.path().join("go.work")).unwrap();
        let lookup = find_root(&server("gopls"), dir.path(), &dir.path().join("mod/main.go"));
        assert_eq!(lookup.root, Some(dir.path().join("mod")));
    }

    #[test]
    fn binary_resolution_prefers_project_local_and_accepts_versioned_names() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = |path: &Path| {
            touch(path, "#!/bin/sh\n");
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        let bin = dir.path().join("bin");
        exe(&bin.join("clangd-14"));
        exe(&bin.join("clangd-19"));
        touch(&bin.join("clangd-22"), "not executable");
        let path_env = OsString::from(bin.as_os_str());
        let lookup = resolve_binary(&server("clangd"), None, dir.path(), Some(&path_env));
        assert_eq!(lookup.path, Some(bin.join("clangd-19")));
        let root = dir.path().join("proj");
        exe(&root.join("node_modules/.bin/typescript-language-server"));
        exe(&bin.join("typescript-language-server"));
        let lookup = resolve_binary(&server("typescript-language-server"), Some(&root), dir.path(), Some(&path_env));
        assert_eq!(lookup.path, Some(root.join("node_modules/.bin/typescript-language-server")));
        let lookup = resolve_binary(&server("pylsp"), Some(&root), dir.path(), Some(&path_env));
        assert_eq!(lookup.path, None);
        assert!(lookup.dirs_searched.contains(&root.join(".venv/bin")));
        assert!(lookup.dirs_searched.contains(&bin));
    }

    #[test]
    fn overrides_replace_by_id_and_append_new_ids() {
        let mut table = builtin_servers();
        let n = table.len();
        let mut custom = server("pylsp");
        custom.args = vec!["-v".to_owned()];
        let mut extra = server("pylsp");
        extra.id = "ruff".to_owned();
        merge_servers(&mut table, &[custom, extra]);
        assert_eq!(table.len(), n + 1);
        assert_eq!(table.iter().find(|s| s.id == "pylsp").unwrap().args, vec!["-v".to_owned()]);
        assert_eq!(table.last().unwrap().id, "ruff");
    }
}
