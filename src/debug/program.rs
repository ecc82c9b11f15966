//! What the model asked to debug, turned into a [`LaunchPlan`]: which adapter and why, what the
//! adapter is told to start, and what had to be built first.
//!
//! The adapter is chosen from what the program *is*, before any root marker is consulted:
//! - a test by name: a pytest node id (`tests/test_x.py::test_y`) → debugpy running
//!   `python -m pytest <id>`; a Go test (`TestSum`, with its package directory or found by its
//!   `func TestSum(`) → delve `mode: test`; a Rust test (`module::test_name`) → the test binary
//!   `cargo test --no-run --message-format=json` built, run under lldb with exactly that test;
//! - a Python module (`module`) → debugpy `module`;
//! - a file: by extension (`.py`, `.go`, `.dart`, `.rs` = a cargo bin target, built), by shebang
//!   (a Python script such as `.venv/bin/pytest`), by ELF content (Go build info → delve exec;
//!   otherwise lldb, with the Rust formatters when the binary carries Rust's debugger scripts);
//! - a directory: a Go package (its `.go` files), a cargo package (its bin target, built), a
//!   Python package with `__main__.py`, a Dart package.
//!
//! An explicit `adapter` wins over all of this. Builds run here with the caller's deadline and
//! their failures carry the build's own messages and the command that produced them.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::debug::adapters::{self, AdapterId};
use crate::debug::render::display_path;
use crate::error::{ErrorKind, ToolError};
use crate::files::WorkspaceReader;
use crate::transport::{run_to_completion, ProcessSpec};

/// What the model asked to launch.
#[derive(Debug, Clone, Default)]
pub struct LaunchRequest {
    /// A program path (absolute, inside the workspace): script, executable, package directory.
    pub program: Option<PathBuf>,
    /// A Python module (`python -m module`).
    pub module: Option<String>,
    /// A test by name: pytest node id, Rust test name, Go test name.
    pub test: Option<String>,
    /// Rust: the cargo package (`-p`); Go: the package directory (absolute) of `test`.
    pub package: Option<String>,
    /// Program arguments (after the test selection, for tests).
    pub args: Vec<String>,
    /// An explicit adapter (wins over the choice by program kind).
    pub adapter: Option<AdapterId>,
}

/// How delve starts the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelveMode {
    /// `go build` the package or file, then debug it.
    Debug,
    /// `go test -c` the package, then debug the test binary.
    Test,
    /// Debug a prebuilt binary.
    Exec,
}

impl DelveMode {
    /// delve's `mode` value.
    pub fn as_str(self) -> &'static str {
        match self {
            DelveMode::Debug => "debug",
            DelveMode::Test => "test",
            DelveMode::Exec => "exec",
        }
    }
}

/// Something built before the launch.
#[derive(Debug, Clone)]
pub struct BuildNote {
    /// The command, as a shell would show it.
    pub command: String,
    /// How long it took.
    pub took: Duration,
    /// What it produced (the executable).
    pub produced: PathBuf,
}

/// Everything a session needs to launch, decided before the adapter starts.
#[derive(Debug, Clone)]
pub struct LaunchPlan {
    /// The adapter.
    pub adapter: AdapterId,
    /// Why this adapter, in one clause (`a pytest node id (a Python file)`).
    pub reason: String,
    /// What is debugged, for results (`app.py`, `test tests::total (rs1 test binary)`).
    pub description: String,
    /// The program path given to the adapter (script, executable, package directory); `None`
    /// for a Python module.
    pub program: Option<PathBuf>,
    /// debugpy: the module to run (`pytest` for a test).
    pub module: Option<String>,
    /// delve: the mode.
    pub delve_mode: Option<DelveMode>,
    /// Arguments given to the program.
    pub args: Vec<String>,
    /// The working directory when it is not the project root (a Go or Rust package directory).
    pub cwd: Option<PathBuf>,
    /// Extra environment of the debuggee.
    pub env: Vec<(String, String)>,
    /// debugpy: the interpreter that runs the program when the plan knows it (a script's
    /// shebang); otherwise the project's venv python is used.
    pub debuggee_python: Option<PathBuf>,
    /// lldb: load the Rust toolchain's formatters.
    pub rust_formatters: bool,
    /// Where the root-marker search starts (the program's directory, the package directory).
    pub root_hint: PathBuf,
    /// What was built first.
    pub build: Option<BuildNote>,
    /// A test launch (the result shows the test selection it runs instead of raw args).
    pub is_test: bool,
}

impl LaunchPlan {
    fn new(adapter: AdapterId, reason: impl Into<String>, description: impl Into<String>, root_hint: PathBuf) -> LaunchPlan {
        LaunchPlan {
            adapter,
            reason: reason.into(),
            description: description.into(),
            program: None,
            module: None,
            delve_mode: None,
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            debuggee_python: None,
            rust_formatters: false,
            root_hint,
            build: None,
            is_test: false,
        }
    }
}

/// What `debug adapters` says about JavaScript and TypeScript (issue 14 §6): what was looked for
/// on the npm registry and why nothing is offered.
pub const NODE_ADAPTER_NOTE: &str = "node (JavaScript/TypeScript): no adapter — none installs from npm: \
@vscode/js-debug, vscode-js-debug, js-debug-dap, vscode-node-debug2 and node-debug2 are not on the registry (404), \
js-debug 0.1.1 is an unrelated proprietary package, @vscode/debugadapter and @vscode/debugprotocol are libraries for \
writing adapters, not adapters; VS Code's js-debug ships its DAP server (dapDebugServer.js) only as a GitHub release \
asset, which runbound does not download. Debug Node with `node --inspect` and Chrome DevTools, or use `eval` with \
language javascript.";

/// Decides what to launch for `request`; may build (cargo) within `deadline`.
///
/// # Errors
/// `invalid_arguments` when the request names nothing or too much; `not_found` for a test or
/// target that does not exist (with candidates); `failed` for a build that failed (with the
/// build's messages and command); `unavailable` for a program no adapter debugs (shell
/// scripts, JavaScript) or a missing toolchain; `timeout` when a build outlives the deadline.
pub fn plan_launch(request: &LaunchRequest, workspace_root: &Path, deadline: Instant) -> Result<LaunchPlan, ToolError> {
    let given = [request.program.is_some(), request.module.is_some(), request.test.is_some()].iter().filter(|g| **g).count();
    if given > 1 {
        return Err(ToolError::invalid("debug op launch takes one of `program`, `module` or `test`, not several")
            .with_hint("pass `test` alone for a test, `module` for `python -m module`, `program` for a script, package or executable"));
    }
    if let Some(test) = &request.test {
        return plan_test(request, test, workspace_root, deadline);
    }
    if let Some(module) = &request.module {
        if request.adapter.is_some_and(|adapter| adapter != AdapterId::Debugpy) {
            return Err(ToolError::invalid("`module` runs `python -m module` under debugpy; another adapter cannot run it"));
        }
        return Ok(plan_python_module(module, &request.args, workspace_root));
    }
    let Some(program) = &request.program else {
        return Err(ToolError::invalid("debug op launch needs `program` (or `test`, or `module`)")
            .with_hint("call debug with op \"launch\" and program (a script, package directory or executable), test, or module"));
    };
    plan_program(request, program, workspace_root, deadline)
}

fn plan_python_module(module: &str, args: &[String], workspace_root: &Path) -> LaunchPlan {
    // The module's own directory, when it is found under the root or src/, anchors the root
    // search; otherwise the workspace root does.
    let relative: PathBuf = module.split('.').collect();
    let hint = [workspace_root.to_path_buf(), workspace_root.join("src")]
        .into_iter()
        .map(|base| base.join(&relative))
        .find(|candidate| candidate.with_extension("py").is_file() || candidate.join("__main__.py").is_file())
        .and_then(|found| found.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| workspace_root.to_path_buf());
    let mut plan = LaunchPlan::new(AdapterId::Debugpy, "`module` runs `python -m` under debugpy", format!("module {module}"), hint);
    plan.module = Some(module.to_owned());
    plan.args = args.to_vec();
    plan
}

// ---------------------------------------------------------------------------------------------
// Programs by what they are.

fn plan_program(request: &LaunchRequest, program: &Path, workspace_root: &Path, deadline: Instant) -> Result<LaunchPlan, ToolError> {
    // The program is inspected (shebang, ELF headers) beneath the workspace root, no symlink followed.
    let reader = WorkspaceReader::open(workspace_root)?;
    let shown = display_path(workspace_root, program);
    let parent = program.parent().unwrap_or(workspace_root).to_path_buf();
    let with = |adapter: AdapterId, reason: String, hint: PathBuf| {
        let mut plan = LaunchPlan::new(adapter, reason, shown.clone(), hint);
        plan.program = Some(program.to_path_buf());
        plan.args = request.args.clone();
        plan
    };
    if let Some(adapter) = request.adapter {
        let hint = if program.is_dir() { program.to_path_buf() } else { parent.clone() };
        let mut plan = with(adapter, format!("adapter {} was asked for", adapter.name()), hint);
        if adapter == AdapterId::Delve {
            plan.delve_mode = Some(delve_mode_for(program));
        }
        if adapter == AdapterId::Lldb && program.is_file() {
            plan.rust_formatters = reader.open_file(program).ok().and_then(elf_facts).is_some_and(|facts| facts.rust);
        }
        return Ok(plan);
    }
    if program.is_dir() {
        return plan_directory(request, program, workspace_root, deadline, &shown);
    }
    let extension = program.extension().and_then(|e| e.to_str()).unwrap_or("");
    match extension {
        "py" | "pyw" => return Ok(with(AdapterId::Debugpy, "a Python file (.py)".to_owned(), parent)),
        "dart" => return Ok(with(AdapterId::Dart, "a Dart file (.dart)".to_owned(), parent)),
        "go" => {
            let package_files = go_package_files(&reader, &parent);
            if package_files.len() > 1 && !program.to_string_lossy().ends_with("_test.go") {
                // `go build main.go` alone misses the names the package's other files define.
                let mut plan = LaunchPlan::new(
                    AdapterId::Delve,
                    format!(
                        "a Go file; it is one of {} files of the Go package in {}, so the package is built (delve mode debug)",
                        package_files.len(),
                        display_path(workspace_root, &parent)
                    ),
                    format!("{shown} (package {})", display_path(workspace_root, &parent)),
                    parent.clone(),
                );
                plan.program = Some(parent.clone());
                plan.args = request.args.clone();
                plan.delve_mode = Some(DelveMode::Debug);
                return Ok(plan);
            }
            let mut plan = with(AdapterId::Delve, "a Go file (.go), built by delve (mode debug)".to_owned(), parent);
            plan.delve_mode = Some(DelveMode::Debug);
            return Ok(plan);
        }
        "rs" => return plan_rust_source(request, program, workspace_root, deadline),
        "js" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "jsx" => {
            return Err(ToolError::new(ErrorKind::Unavailable, format!("{shown} is JavaScript/TypeScript: {NODE_ADAPTER_NOTE}")));
        }
        _ => {}
    }
    if let Some(shebang) = read_shebang(&reader, program) {
        if shebang.contains("python") {
            let mut plan = with(AdapterId::Debugpy, format!("a Python script (shebang `{shebang}`)"), parent);
            plan.debuggee_python = shebang_interpreter(&shebang);
            return Ok(plan);
        }
        if shebang.contains("node") || shebang.contains("deno") || shebang.contains("bun") {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("{shown} is a JavaScript script (shebang `{shebang}`): {NODE_ADAPTER_NOTE}"),
            ));
        }
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            format!("{shown} is a script run by `{shebang}`; no debug adapter here debugs that language"),
        )
        .with_hint("launch the program the script runs (a .py file, a Go package, a built executable), or a test by name with `test`"));
    }
    if let Some(facts) = reader.open_file(program).ok().and_then(elf_facts) {
        if facts.go {
            let mut plan = with(AdapterId::Delve, "an ELF executable with Go build info (delve mode exec)".to_owned(), parent);
            plan.delve_mode = Some(DelveMode::Exec);
            return Ok(plan);
        }
        let reason = if facts.rust { "an ELF executable built by rustc (Rust formatters loaded)" } else { "an ELF executable" };
        let mut plan = with(AdapterId::Lldb, reason.to_owned(), parent);
        plan.rust_formatters = facts.rust;
        return Ok(plan);
    }
    // Nothing in the file says what it is: fall back to the root markers above it.
    let marker_choice = [AdapterId::Delve, AdapterId::Lldb, AdapterId::Debugpy, AdapterId::Dart]
        .into_iter()
        .find_map(|adapter| adapters::find_root_marker(adapter, &parent, workspace_root).map(|(_, marker)| (adapter, marker)));
    match marker_choice {
        Some((adapter, marker)) if adapters::is_executable_file(program) || adapter == AdapterId::Debugpy => Ok(with(
            adapter,
            format!("not recognised by its content; the nearest root marker is {}", display_path(workspace_root, &marker)),
            parent,
        )),
        _ => Err(ToolError::new(
            ErrorKind::Unavailable,
            format!(
                "cannot tell what {shown} is: not a .py/.go/.dart/.rs file, no shebang, not an ELF executable, and no root marker above it"
            ),
        )
        .with_hint("pass `adapter` to choose one, or launch a script, a package directory or a built executable")),
    }
}

fn plan_directory(
    request: &LaunchRequest,
    directory: &Path,
    workspace_root: &Path,
    deadline: Instant,
    shown: &str,
) -> Result<LaunchPlan, ToolError> {
    // Go sources are read beneath the workspace root, opened once, no symlink followed.
    let reader = WorkspaceReader::open(workspace_root)?;
    let go_files = go_package_files(&reader, directory);
    if !go_files.is_empty() {
        if let Some(package) = go_package_name(&reader, &go_files).filter(|name| name != "main") {
            // `go build` of a library makes no executable: there is nothing to run but tests.
            let tests = go_test_names(&reader, directory, 12);
            let mains = directory
                .ancestors()
                .find(|dir| dir.join("go.mod").is_file())
                .map(|module| go_main_packages(&reader, module, 5))
                .unwrap_or_default();
            return Err(ToolError::invalid(format!(
                "{shown} is the Go package `{package}`, a library: it builds no program to run; debug one of its tests with \
                 `test` ({}), or launch a `package main` directory ({})",
                if tests.is_empty() { "it has none".to_owned() } else { tests.join(", ") },
                if mains.is_empty() {
                    "none in this module".to_owned()
                } else {
                    mains.iter().map(|dir| display_path(workspace_root, dir)).collect::<Vec<_>>().join(", ")
                }
            ))
            .with_hint("e.g. {\"op\": \"launch\", \"test\": \"TestName\"}"));
        }
        let mut plan = LaunchPlan::new(
            AdapterId::Delve,
            format!("a Go package directory ({} .go files), built by delve (mode debug)", go_files.len()),
            shown.to_owned(),
            directory.to_path_buf(),
        );
        plan.program = Some(directory.to_path_buf());
        plan.args = request.args.clone();
        plan.delve_mode = Some(DelveMode::Debug);
        return Ok(plan);
    }
    if directory.join("Cargo.toml").is_file() {
        return plan_cargo_bin(request, directory, None, workspace_root, deadline);
    }
    if directory.join("__main__.py").is_file() {
        let mut plan = LaunchPlan::new(AdapterId::Debugpy, "a Python package with __main__.py", shown.to_owned(), directory.to_path_buf());
        plan.program = Some(directory.to_path_buf());
        plan.args = request.args.clone();
        return Ok(plan);
    }
    if directory.join("pubspec.yaml").is_file() {
        let main = directory.join("bin/main.dart");
        let mut plan = LaunchPlan::new(AdapterId::Dart, "a Dart package (pubspec.yaml)", shown.to_owned(), directory.to_path_buf());
        plan.program = Some(if main.is_file() { main } else { directory.to_path_buf() });
        plan.args = request.args.clone();
        return Ok(plan);
    }
    if directory.join("go.mod").is_file() {
        let mains = go_main_packages(&reader, directory, 5);
        let listed = if mains.is_empty() {
            "none found".to_owned()
        } else {
            mains.iter().map(|dir| display_path(workspace_root, dir)).collect::<Vec<_>>().join(", ")
        };
        return Err(ToolError::invalid(format!(
            "{shown} is a Go module root without .go files of its own; pass the package directory to debug (packages with `package main`: {listed})"
        )));
    }
    Err(ToolError::invalid(format!(
        "{shown} is a directory that is no Go package (no .go files), no cargo package (no Cargo.toml), no Python package with __main__.py and no Dart package"
    ))
    .with_hint("pass a script, a package directory or a built executable, or a test by name with `test`"))
}

fn delve_mode_for(program: &Path) -> DelveMode {
    if program.is_dir() || program.extension().is_some_and(|ext| ext == "go") {
        DelveMode::Debug
    } else {
        DelveMode::Exec
    }
}

/// The first line of `path` when it starts with `#!` (without the `#!`), trimmed.
fn read_shebang(reader: &WorkspaceReader, path: &Path) -> Option<String> {
    let mut file = reader.open_file(path).ok()?;
    let mut head = [0u8; 256];
    let read = file.read(&mut head).ok()?;
    let head = &head[..read];
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|b| *b == b'\n').next()?;
    Some(String::from_utf8_lossy(line).trim().to_owned())
}

/// The interpreter of a shebang when it names one by path (`/p/.venv/bin/python3`), not through
/// `env`.
fn shebang_interpreter(shebang: &str) -> Option<PathBuf> {
    let first = shebang.split_whitespace().next()?;
    let path = PathBuf::from(first);
    (path.is_absolute() && !first.ends_with("/env") && adapters::is_executable_file(&path)).then_some(path)
}

/// What an ELF file says about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElfFacts {
    /// It has a `.go.buildinfo` section (a Go binary).
    pub go: bool,
    /// It carries rustc's `.debug_gdb_scripts` (the Rust pretty printers) or Rust's panic
    /// runtime symbol section names: a Rust binary.
    pub rust: bool,
}

/// Reads the ELF headers of the open `file` (lazily, without loading the file); `None` when it
/// is not an ELF file. The caller opens it (beneath the workspace root).
pub fn elf_facts(file: std::fs::File) -> Option<ElfFacts> {
    use object::{Object, ObjectSection};
    let cache = object::ReadCache::new(file);
    let elf = object::File::parse(&cache).ok()?;
    let go = elf.section_by_name(".go.buildinfo").is_some();
    let rust = elf
        .section_by_name(".debug_gdb_scripts")
        .and_then(|section| section.data().ok().map(|data| memchr::memmem::find(data, b"rust").is_some()))
        .unwrap_or(false);
    Some(ElfFacts { go, rust })
}

/// The non-test `.go` files directly in `directory`.
fn go_package_files(reader: &WorkspaceReader, directory: &Path) -> Vec<PathBuf> {
    // Listed beneath the reader's root, no symlink followed (issue 13 §1).
    crate::files::walk_beneath::list_directory(reader.root(), directory)
        .into_iter()
        .filter(|(path, kind)| {
            *kind == rustix::fs::FileType::RegularFile
                && path.extension().is_some_and(|ext| ext == "go")
                && !path.to_string_lossy().ends_with("_test.go")
        })
        .map(|(path, _)| path)
        .collect()
}

/// The package clause (`package calc`) of the first of `files` that has one.
fn go_package_name(reader: &WorkspaceReader, files: &[PathBuf]) -> Option<String> {
    files.iter().find_map(|file| {
        let text = reader.read_to_string(file).ok()?;
        text.lines().find_map(|line| line.trim().strip_prefix("package ").map(|name| name.trim().to_owned()))
    })
}

/// Names of the `func TestX(` in the `_test.go` files of `directory`, at most `limit`.
fn go_test_names(reader: &WorkspaceReader, directory: &Path, limit: usize) -> Vec<String> {
    let mut names = Vec::new();
    // Listed beneath the reader's root, no symlink followed (issue 13 §1).
    for (path, _) in crate::files::walk_beneath::list_directory(reader.root(), directory) {
        if !path.to_string_lossy().ends_with("_test.go") {
            continue;
        }
        let Ok(text) = reader.read_to_string(&path) else { continue };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("func Test") {
                if let Some(name) = rest.split('(').next() {
                    names.push(format!("Test{name}"));
                }
            }
        }
    }
    names.sort();
    names.truncate(limit);
    names
}

/// Directories under `root` holding a `package main` Go file, at most `limit`.
fn go_main_packages(reader: &WorkspaceReader, root: &Path, limit: usize) -> Vec<PathBuf> {
    let mut found = BTreeSet::new();
    // Listed beneath the reader's handle, no symlink followed (issue 13 §1).
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return Vec::new() };
    for entry in walk.max_depth(Some(6)).iter().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|ext| ext != "go") || path.to_string_lossy().ends_with("_test.go") {
            continue;
        }
        let Ok(text) = reader.read_to_string(path) else { continue };
        if text.lines().any(|line| line.trim() == "package main") {
            if let Some(parent) = path.parent() {
                found.insert(parent.to_path_buf());
            }
        }
        if found.len() >= limit {
            break;
        }
    }
    found.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// Tests by name.

fn plan_test(request: &LaunchRequest, test: &str, workspace_root: &Path, deadline: Instant) -> Result<LaunchPlan, ToolError> {
    let test = test.trim();
    if test.is_empty() {
        return Err(ToolError::invalid("`test` is empty").with_hint("pass a pytest node id, a Rust test name or a Go test name"));
    }
    let kind = match request.adapter {
        Some(AdapterId::Debugpy) => TestKind::Pytest,
        Some(AdapterId::Delve) => TestKind::Go,
        Some(AdapterId::Lldb) => TestKind::Rust,
        Some(AdapterId::Dart) => {
            return Err(ToolError::new(ErrorKind::Unavailable, "dart tests by name are not supported; launch the test file as `program`"))
        }
        None => guess_test_kind(request, test, workspace_root)?,
    };
    match kind {
        TestKind::Pytest => plan_pytest(request, test, workspace_root),
        TestKind::Go => plan_go_test(request, test, workspace_root),
        TestKind::Rust => plan_rust_test(request, test, workspace_root, deadline),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TestKind {
    Pytest,
    Go,
    Rust,
}

fn guess_test_kind(request: &LaunchRequest, test: &str, workspace_root: &Path) -> Result<TestKind, ToolError> {
    let file_part = test.split("::").next().unwrap_or(test);
    if file_part.ends_with(".py") {
        return Ok(TestKind::Pytest);
    }
    let go_name = ["Test", "Benchmark", "Example", "Fuzz"].iter().any(|prefix| test.starts_with(prefix)) && !test.contains("::");
    let package_is_go = request.package.as_deref().is_some_and(|package| {
        // Listed beneath the workspace root, no symlink followed (issue 13 §1).
        crate::files::walk_beneath::list_directory(workspace_root, &workspace_root.join(package))
            .iter()
            .any(|(path, _)| path.extension().is_some_and(|ext| ext == "go"))
    });
    let has_go_module = !adapters::find_markers_in_workspace(AdapterId::Delve, workspace_root, adapters::MARKER_SCAN_DEPTH, 1).is_empty();
    if package_is_go || (go_name && has_go_module) {
        return Ok(TestKind::Go);
    }
    if has_cargo_project(workspace_root) {
        return Ok(TestKind::Rust);
    }
    Err(ToolError::invalid(format!(
        "cannot tell which kind of test `{test}` is: not a pytest node id (no `.py` file before `::`), no Go test (a Go test \
         name starts with Test and needs a go.mod), no cargo project (Cargo.toml) in the workspace"
    ))
    .with_hint("pass `tests/test_x.py::test_name` for pytest, or `adapter` (delve for Go, lldb for Rust) with `package`"))
}

fn has_cargo_project(workspace_root: &Path) -> bool {
    workspace_root.join("Cargo.toml").is_file()
        || adapters::find_markers_in_workspace(AdapterId::Lldb, workspace_root, adapters::MARKER_SCAN_DEPTH, 20)
            .iter()
            .any(|marker| marker.file_name().is_some_and(|name| name == "Cargo.toml"))
}

fn plan_pytest(request: &LaunchRequest, test: &str, workspace_root: &Path) -> Result<LaunchPlan, ToolError> {
    let mut parts = test.splitn(2, "::");
    let file_part = parts.next().unwrap_or(test);
    let rest = parts.next();
    let file = crate::files::resolve_in_workspace(workspace_root, file_part)
        .map_err(|err| err.with_hint("a pytest node id starts with the test file, relative to the workspace"))?;
    if !file.is_file() {
        return Err(ToolError::new(ErrorKind::NotFound, format!("no test file {file_part} (from the node id `{test}`)"))
            .with_hint("pass `tests/test_x.py::test_name` with the file relative to the workspace root"));
    }
    if let Some(rest) = rest {
        let function = rest.rsplit("::").next().unwrap_or(rest);
        let function = function.split('[').next().unwrap_or(function);
        let source = crate::files::read_workspace_file_to_string(workspace_root, &file).unwrap_or_default();
        if !source.contains(&format!("def {function}(")) && !source.contains(&format!("def {function} (")) {
            let candidates: Vec<String> = source
                .lines()
                .filter_map(|line| line.trim_start().strip_prefix("def ").or_else(|| line.trim_start().strip_prefix("async def ")))
                .filter_map(|rest| rest.split('(').next())
                .filter(|name| name.starts_with("test"))
                .map(str::to_owned)
                .take(20)
                .collect();
            return Err(ToolError::new(
                ErrorKind::NotFound,
                format!(
                    "no test function `{function}` in {file_part}; tests there: {}",
                    if candidates.is_empty() { "none".to_owned() } else { candidates.join(", ") }
                ),
            ));
        }
    }
    let parent = file.parent().unwrap_or(workspace_root).to_path_buf();
    let mut plan = LaunchPlan::new(
        AdapterId::Debugpy,
        format!("`{test}` is a pytest node id (a Python file); run as `python -m pytest`"),
        format!("test {test}"),
        parent,
    );
    plan.module = Some("pytest".to_owned());
    // The file part is absolute: pytest accepts it whatever its rootdir and cwd are.
    let mut args = vec![node_id_for(&file, rest), "-p".to_owned(), "no:cacheprovider".to_owned(), "-q".to_owned()];
    args.extend(request.args.iter().cloned());
    plan.args = args;
    plan.is_test = true;
    Ok(plan)
}

fn node_id_for(file: &Path, rest: Option<&str>) -> String {
    match rest {
        Some(rest) => format!("{}::{rest}", file.display()),
        None => file.display().to_string(),
    }
}

fn plan_go_test(request: &LaunchRequest, test: &str, workspace_root: &Path) -> Result<LaunchPlan, ToolError> {
    let top = test.split('/').next().unwrap_or(test);
    let package = match &request.package {
        Some(package) => {
            let dir = crate::files::resolve_in_workspace(workspace_root, package)?;
            if !dir.is_dir() {
                return Err(ToolError::new(ErrorKind::NotFound, format!("no package directory {package}")));
            }
            dir
        }
        None => {
            let found = find_go_test(workspace_root, top);
            match found.len() {
                0 => {
                    return Err(ToolError::new(ErrorKind::NotFound, format!("no `func {top}(` in any _test.go file of the workspace"))
                        .with_hint("check the name (Go tests start with Test), or pass `package` with the package directory"))
                }
                1 => found.into_iter().next().expect("one"),
                _ => {
                    let listed: Vec<String> = found.iter().map(|dir| display_path(workspace_root, dir)).collect();
                    return Err(ToolError::invalid(format!(
                        "`func {top}(` is declared in several packages: {}; pass `package` with one of them",
                        listed.join(", ")
                    )));
                }
            }
        }
    };
    let run_pattern = test.split('/').map(|part| format!("^{}$", regex_escape(part))).collect::<Vec<_>>().join("/");
    let mut plan = LaunchPlan::new(
        AdapterId::Delve,
        format!("`{test}` is a Go test of the package in {} (delve mode test)", display_path(workspace_root, &package)),
        format!("test {test} ({})", display_path(workspace_root, &package)),
        package.clone(),
    );
    plan.program = Some(package.clone());
    plan.delve_mode = Some(DelveMode::Test);
    let mut args = vec!["-test.run".to_owned(), run_pattern, "-test.v".to_owned()];
    args.extend(request.args.iter().cloned());
    plan.args = args;
    plan.cwd = Some(package);
    plan.is_test = true;
    Ok(plan)
}

fn regex_escape(text: &str) -> String {
    text.chars().flat_map(|c| if "\\.+*?()|[]{}^$".contains(c) { vec!['\\', c] } else { vec![c] }).collect()
}

/// Directories holding a `_test.go` file that declares `func name(`.
fn find_go_test(workspace_root: &Path, name: &str) -> Vec<PathBuf> {
    let needle = format!("func {name}(");
    let mut found = BTreeSet::new();
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return Vec::new() };
    // Listed beneath the reader's handle, no symlink followed (issue 13 §1).
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), workspace_root) else { return Vec::new() };
    for entry in walk.iter().flatten() {
        let path = entry.path();
        if !path.to_string_lossy().ends_with("_test.go") {
            continue;
        }
        let Ok(text) = reader.read_to_string(path) else { continue };
        if text.contains(&needle) {
            if let Some(parent) = path.parent() {
                found.insert(parent.to_path_buf());
            }
        }
    }
    found.into_iter().collect()
}

// ---------------------------------------------------------------------------------------------
// Rust: cargo builds.

/// The cargo project directory for a launch: the nearest `Cargo.toml` from `start` up to the
/// workspace root, else the shallowest one in the workspace.
fn cargo_root(start: &Path, workspace_root: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(current) = dir {
        if current.join("Cargo.toml").is_file() {
            return Some(current.to_path_buf());
        }
        if current == workspace_root || !current.starts_with(workspace_root) {
            break;
        }
        dir = current.parent();
    }
    adapters::find_markers_in_workspace(AdapterId::Lldb, workspace_root, adapters::MARKER_SCAN_DEPTH, 20)
        .into_iter()
        .find(|marker| marker.file_name().is_some_and(|name| name == "Cargo.toml"))
        .and_then(|marker| marker.parent().map(Path::to_path_buf))
}

/// One executable cargo produced, from a `compiler-artifact` message.
#[derive(Debug, Clone)]
struct CargoArtifact {
    executable: PathBuf,
    target_name: String,
    target_kinds: Vec<String>,
    manifest_path: PathBuf,
    package_name: String,
    /// The target's root source file (`tests/test_version.rs`, `src/lib.rs`), absolute.
    src_path: PathBuf,
}

/// Runs a cargo build with `--message-format=json` and returns the executables it produced.
fn cargo_build(
    cargo_dir: &Path,
    args: &[String],
    workspace_root: &Path,
    deadline: Instant,
) -> Result<(Vec<CargoArtifact>, BuildNote), ToolError> {
    let cargo = which::which("cargo").map_err(|_| {
        ToolError::new(ErrorKind::Unavailable, "cargo not found on PATH: a Rust test or bin target is built with cargo first")
            .with_hint("install the Rust toolchain (rustup), or launch a built executable as `program`")
    })?;
    let command = format!("cargo {}", args.join(" "));
    let spec = ProcessSpec::new(&cargo, cargo_dir).with_args(args.iter().cloned()).with_env("CARGO_TERM_COLOR", "never");
    let started = Instant::now();
    let budget = deadline.saturating_duration_since(Instant::now()).saturating_sub(Duration::from_secs(2));
    let where_ = display_path(workspace_root, cargo_dir);
    // The build phase of a launch, for a host that listens: the command and seconds building.
    let done = crate::progress::while_phase(
        Some(deadline),
        |building| format!("building: `{command}` in {where_} ({} s)", building.as_secs()),
        || run_to_completion(spec, b"", budget, 8 * 1024 * 1024),
    )?;
    let took = started.elapsed();
    if done.timed_out {
        return Err(ToolError::new(
            ErrorKind::Timeout,
            format!("`{command}` in {where_} was still building after {} s (the call's budget)", took.as_secs()),
        )
        .with_hint("call launch again: cargo keeps what it built so far, so the next build resumes"));
    }
    let stdout = String::from_utf8_lossy(&done.stdout);
    let mut artifacts = Vec::new();
    let mut diagnostics = Vec::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        match message.get("reason").and_then(Value::as_str) {
            Some("compiler-artifact") => {
                let Some(executable) = message.get("executable").and_then(Value::as_str) else { continue };
                let target = &message["target"];
                artifacts.push(CargoArtifact {
                    executable: PathBuf::from(executable),
                    target_name: target["name"].as_str().unwrap_or("").to_owned(),
                    target_kinds: target["kind"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect(),
                    manifest_path: PathBuf::from(message["manifest_path"].as_str().unwrap_or("")),
                    package_name: message["package_id"].as_str().map(package_name_from_id).unwrap_or_default(),
                    src_path: PathBuf::from(target["src_path"].as_str().unwrap_or("")),
                });
            }
            Some("compiler-message") => {
                let level = message["message"]["level"].as_str().unwrap_or("");
                if level == "error" {
                    if let Some(rendered) = message["message"]["rendered"].as_str() {
                        diagnostics.push(rendered.trim_end().to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    if !done.status.success() {
        let stderr = String::from_utf8_lossy(&done.stderr);
        let mut messages = diagnostics.join("\n\n");
        if messages.is_empty() {
            // cargo's own errors (a bad manifest, an unknown package) are plain stderr.
            messages = stderr.lines().filter(|line| !line.trim_start().starts_with("Compiling")).collect::<Vec<_>>().join("\n");
        }
        return Err(ToolError::failed(format!(
            "the build failed: `{command}` in {where_} exited with {}:\n{}",
            done.status,
            crate::render::cut_middle(messages.trim(), 6000)
        ))
        .with_hint("fix the errors above (file:line), then launch again"));
    }
    let note = BuildNote { command, took, produced: PathBuf::new() };
    Ok((artifacts, note))
}

fn package_name_from_id(id: &str) -> String {
    // `path+file:///p/rs1#0.1.0`, `rs1 0.1.0 (path+file:///p/rs1)`, `registry+…#name@1.0`.
    if let Some((_, tail)) = id.rsplit_once('#') {
        let name = tail.split('@').next().unwrap_or(tail);
        if name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let path = id.split('#').next().unwrap_or(id);
            return path.rsplit('/').next().unwrap_or("").to_owned();
        }
        return name.to_owned();
    }
    id.split_whitespace().next().unwrap_or("").to_owned()
}

fn plan_rust_test(request: &LaunchRequest, test: &str, workspace_root: &Path, deadline: Instant) -> Result<LaunchPlan, ToolError> {
    let Some(cargo_dir) = cargo_root(workspace_root, workspace_root) else {
        return Err(ToolError::new(ErrorKind::Unavailable, format!("`{test}` looks like a Rust test but the workspace has no Cargo.toml")));
    };
    let mut args = vec!["test".to_owned(), "--no-run".to_owned(), "--message-format=json".to_owned()];
    if let Some(package) = &request.package {
        args.push("-p".to_owned());
        args.push(package.clone());
    }
    let (artifacts, mut build) = cargo_build(&cargo_dir, &args, workspace_root, deadline)?;
    // Each test binary lists its tests; the one that has `test` runs it. A name may start with
    // its test target (`test_version::test_parse`, as `cargo test --test test_version
    // test_parse` selects it) or the target's source file (`tests/test_version.rs::test_parse`):
    // integration test binaries often share test names.
    let mut matches: Vec<(CargoArtifact, String)> = Vec::new();
    let mut exact: Vec<(CargoArtifact, String)> = Vec::new();
    let mut all_names: Vec<String> = Vec::new();
    for artifact in &artifacts {
        let wanted = rust_test_within_target(test, artifact, workspace_root);
        let names = list_rust_tests(artifact, deadline);
        for name in names {
            if name == wanted || name.ends_with(&format!("::{wanted}")) {
                matches.push((artifact.clone(), name.clone()));
                if name == wanted {
                    exact.push((artifact.clone(), name.clone()));
                }
            }
            all_names.push(format!("{}::{name}", artifact.target_name));
        }
    }
    // A target-qualified match beats plain ones of other binaries that happen to end alike.
    let qualified: Vec<(CargoArtifact, String)> =
        matches.iter().filter(|(artifact, _)| rust_test_within_target(test, artifact, workspace_root) != test).cloned().collect();
    if !qualified.is_empty() {
        matches = qualified;
        exact.retain(|(artifact, _)| rust_test_within_target(test, artifact, workspace_root) != test);
    }
    if exact.len() == 1 {
        matches = exact;
    }
    let (artifact, name) = match matches.len() {
        1 => matches.pop().expect("one"),
        0 => {
            let last = test.rsplit("::").next().unwrap_or(test);
            let near: Vec<&String> = all_names.iter().filter(|name| name.contains(last)).take(15).collect();
            let listed = if near.is_empty() {
                format!("{} tests in {} binaries, none containing `{last}`", all_names.len(), artifacts.len())
            } else {
                near.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
            };
            return Err(ToolError::new(
                ErrorKind::NotFound,
                format!("no Rust test `{test}` in the cargo project at {}; near: {listed}", display_path(workspace_root, &cargo_dir)),
            )
            .with_hint("pass the test's path as `cargo test -- --list` prints it (module::test_name), optionally after its test target (TARGET::module::test_name)"));
        }
        _ => {
            let listed: Vec<String> = matches
                .iter()
                .map(|(artifact, name)| {
                    format!("`{}::{name}` ({} target of {})", artifact.target_name, artifact.target_kinds.join(","), artifact.package_name)
                })
                .collect();
            return Err(ToolError::invalid(format!("`{test}` matches several tests: {}", listed.join("; ")))
                .with_hint("pass one of the names above (test target first, as `cargo test --test TARGET NAME` selects it), and `package` when two packages share it"));
        }
    };
    let package_dir = artifact.manifest_path.parent().map(Path::to_path_buf).unwrap_or_else(|| cargo_dir.clone());
    build.produced = artifact.executable.clone();
    let target_kind = artifact.target_kinds.first().cloned().unwrap_or_default();
    let mut plan = LaunchPlan::new(
        AdapterId::Lldb,
        format!(
            "`{name}` is a Rust test of {} (in the {target_kind} target {}, built with cargo)",
            artifact.package_name, artifact.target_name
        ),
        format!("test {name}"),
        package_dir.clone(),
    );
    plan.program = Some(artifact.executable.clone());
    let mut args = vec![name.clone(), "--exact".to_owned(), "--nocapture".to_owned(), "--test-threads=1".to_owned()];
    args.extend(request.args.iter().cloned());
    plan.args = args;
    plan.cwd = Some(package_dir.clone());
    plan.env = vec![
        ("CARGO_MANIFEST_DIR".to_owned(), package_dir.to_string_lossy().into_owned()),
        ("CARGO_PKG_NAME".to_owned(), artifact.package_name.clone()),
        ("RUST_BACKTRACE".to_owned(), "1".to_owned()),
    ];
    plan.rust_formatters = true;
    plan.build = Some(build);
    plan.is_test = true;
    Ok(plan)
}

/// The part of `test` to look for in `artifact`'s list: what follows `TARGET::` or
/// `SOURCE::` (the target's name or its source file relative to the workspace); `test` itself
/// when it names neither.
fn rust_test_within_target<'a>(test: &'a str, artifact: &CargoArtifact, workspace_root: &Path) -> &'a str {
    if let Some(rest) = test.strip_prefix(artifact.target_name.as_str()).and_then(|rest| rest.strip_prefix("::")) {
        if !rest.is_empty() {
            return rest;
        }
    }
    let source = artifact.src_path.strip_prefix(workspace_root).unwrap_or(&artifact.src_path);
    if let Some(source) = source.to_str().filter(|source| !source.is_empty()) {
        if let Some(rest) = test.strip_prefix(source).and_then(|rest| rest.strip_prefix("::")) {
            if !rest.is_empty() {
                return rest;
            }
        }
    }
    test
}

/// `exe --list --format terse` → test names (empty when the binary does not list, e.g. a
/// harness = false target).
fn list_rust_tests(artifact: &CargoArtifact, deadline: Instant) -> Vec<String> {
    if !artifact.target_kinds.iter().any(|kind| matches!(kind.as_str(), "lib" | "test" | "bin" | "rlib" | "proc-macro")) {
        return Vec::new();
    }
    let cwd = artifact.manifest_path.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
    let spec = ProcessSpec::new(&artifact.executable, cwd).with_args(["--list", "--format", "terse"]);
    let budget = deadline.saturating_duration_since(Instant::now()).min(Duration::from_secs(20));
    let Ok(done) = run_to_completion(spec, b"", budget, 4 * 1024 * 1024) else { return Vec::new() };
    String::from_utf8_lossy(&done.stdout).lines().filter_map(|line| line.strip_suffix(": test")).map(str::to_owned).collect()
}

fn plan_rust_source(request: &LaunchRequest, file: &Path, workspace_root: &Path, deadline: Instant) -> Result<LaunchPlan, ToolError> {
    let start = file.parent().unwrap_or(workspace_root);
    let Some(cargo_dir) = cargo_root(start, workspace_root) else {
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            format!("{} is a Rust file outside any cargo project (no Cargo.toml above it)", display_path(workspace_root, file)),
        )
        .with_hint("build it (rustc -g) and launch the executable as `program`"));
    };
    plan_cargo_bin(request, &cargo_dir, Some(file), workspace_root, deadline)
}

/// Builds the bin target of the cargo package at `cargo_dir` whose source is `source` (or the
/// package's only bin target) and plans it under lldb.
fn plan_cargo_bin(
    request: &LaunchRequest,
    cargo_dir: &Path,
    source: Option<&Path>,
    workspace_root: &Path,
    deadline: Instant,
) -> Result<LaunchPlan, ToolError> {
    let metadata = cargo_metadata(cargo_dir, deadline)?;
    let mut bins: Vec<(String, String, PathBuf)> = Vec::new(); // (package, bin, src)
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let package_name = package["name"].as_str().unwrap_or("");
        for target in package["targets"].as_array().into_iter().flatten() {
            let is_bin = target["kind"].as_array().is_some_and(|kinds| kinds.iter().any(|k| k == "bin"));
            if is_bin {
                bins.push((
                    package_name.to_owned(),
                    target["name"].as_str().unwrap_or("").to_owned(),
                    PathBuf::from(target["src_path"].as_str().unwrap_or("")),
                ));
            }
        }
    }
    let chosen = match source {
        Some(source) => bins.iter().find(|(_, _, src)| src == source).cloned().ok_or_else(|| {
            let listed: Vec<String> = bins.iter().map(|(_, bin, src)| format!("{bin} ({})", display_path(workspace_root, src))).collect();
            ToolError::invalid(format!(
                "{} is not the source of a bin target; bin targets: {}",
                display_path(workspace_root, source),
                if listed.is_empty() { "none".to_owned() } else { listed.join(", ") }
            ))
            .with_hint("to debug a test of a library, launch it by name with `test`")
        })?,
        None => match bins.len() {
            1 => bins[0].clone(),
            0 => {
                return Err(ToolError::invalid(format!(
                    "the cargo package at {} has no bin target; launch a test by name with `test`",
                    display_path(workspace_root, cargo_dir)
                )))
            }
            _ => {
                let listed: Vec<String> =
                    bins.iter().map(|(_, bin, src)| format!("{bin} ({})", display_path(workspace_root, src))).collect();
                return Err(ToolError::invalid(format!(
                    "the cargo package has several bin targets: {}; launch one's source file",
                    listed.join(", ")
                )));
            }
        },
    };
    let (package, bin, src) = chosen;
    let args =
        vec!["build".to_owned(), "--bin".to_owned(), bin.clone(), "-p".to_owned(), package.clone(), "--message-format=json".to_owned()];
    let (artifacts, mut build) = cargo_build(cargo_dir, &args, workspace_root, deadline)?;
    let artifact = artifacts
        .into_iter()
        .find(|artifact| artifact.target_name == bin && artifact.target_kinds.iter().any(|kind| kind == "bin"))
        .ok_or_else(|| ToolError::failed(format!("`{}` reported no executable for bin {bin}", build.command)))?;
    build.produced = artifact.executable.clone();
    let mut plan = LaunchPlan::new(
        AdapterId::Lldb,
        format!("{} is the bin target {bin} of {package} (built with cargo)", display_path(workspace_root, &src)),
        format!("{bin} ({})", display_path(workspace_root, &src)),
        cargo_dir.to_path_buf(),
    );
    plan.program = Some(artifact.executable);
    plan.args = request.args.clone();
    plan.rust_formatters = true;
    plan.build = Some(build);
    Ok(plan)
}

fn cargo_metadata(cargo_dir: &Path, deadline: Instant) -> Result<Value, ToolError> {
    let cargo = which::which("cargo").map_err(|_| ToolError::new(ErrorKind::Unavailable, "cargo not found on PATH"))?;
    let spec = ProcessSpec::new(&cargo, cargo_dir).with_args(["metadata", "--no-deps", "--format-version", "1"]);
    let budget = deadline.saturating_duration_since(Instant::now()).min(Duration::from_secs(60));
    let done = run_to_completion(spec, b"", budget, 16 * 1024 * 1024)?;
    if !done.status.success() || done.timed_out {
        return Err(ToolError::failed(format!(
            "`cargo metadata --no-deps` in {} failed: {}",
            cargo_dir.display(),
            String::from_utf8_lossy(&done.stderr).trim()
        )));
    }
    serde_json::from_slice(&done.stdout).map_err(|err| ToolError::failed(format!("cargo metadata printed unreadable JSON: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebangs_and_package_ids_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tool");
        std::fs::write(&script, "#!/usr/bin/env python3\nprint(1)\n").unwrap();
        let reader = WorkspaceReader::open(dir.path()).unwrap();
        assert_eq!(read_shebang(&reader, &script).as_deref(), Some("/usr/bin/env python3"));
        assert_eq!(shebang_interpreter("/usr/bin/env python3"), None);
        std::fs::write(&script, "print(1)\n").unwrap();
        assert_eq!(read_shebang(&reader, &script), None);
        assert_eq!(package_name_from_id("path+file:///p/rs1#0.1.0"), "rs1");
        assert_eq!(package_name_from_id("path+file:///p/crates/core#mycore@0.2.0"), "mycore");
        assert_eq!(package_name_from_id("rs1 0.1.0 (path+file:///p/rs1)"), "rs1");
        assert_eq!(regex_escape("TestA.b"), "TestA\\.b");
    }

    #[test]
    fn a_request_with_two_targets_is_refused() {
        let request = LaunchRequest { program: Some(PathBuf::from("/x/a.py")), test: Some("t".to_owned()), ..LaunchRequest::default() };
        let err = plan_launch(&request, Path::new("/x"), Instant::now()).unwrap_err();
        assert!(err.message.contains("one of `program`, `module` or `test`"), "{}", err.message);
    }

    #[test]
    fn elf_facts_of_this_test_binary_say_rust_not_go() {
        let me = std::env::current_exe().unwrap();
        let facts = elf_facts(std::fs::File::open(&me).unwrap()).expect("the test binary is ELF");
        assert!(!facts.go);
        assert!(elf_facts(std::fs::File::open("/etc/hostname").unwrap()).is_none());
    }
}
