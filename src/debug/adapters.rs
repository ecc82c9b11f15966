//! The adapter table (as data), root-marker search, binary resolution and the per-adapter
//! launch-argument builders.
//!
//! Availability is decided per call as an intersection (R-DBG-1, the same rule as R-LSP-2): a
//! root marker must exist **and** the adapter binary must resolve (for debugpy, the adapter's
//! python must also import `debugpy`). [`crate::status::debug_adapters_report`] says which half is
//! missing, never a silent guess.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{json, Map, Value};

use crate::debug::DebugConfig;
use crate::transport::ProcessSpec;

/// The adapters runbound knows, in the order `adapters` lists them. Deserializes from the
/// stable names (`debugpy`, `lldb`, `delve`, `dart`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AdapterId {
    /// `python3 -m debugpy.adapter` (stdio).
    Debugpy,
    /// `lldb-dap` / `lldb-dap-NN` / `lldb-vscode-NN` (stdio).
    Lldb,
    /// `dlv dap --listen 127.0.0.1:0` (TCP; port read from dlv's first stdout line).
    Delve,
    /// `dart debug_adapter` (stdio).
    Dart,
}

/// How the client reaches the adapter once it is spawned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterTransport {
    /// DAP over the adapter's stdin/stdout.
    Stdio,
    /// DAP over TCP to the loopback port the adapter prints on its first stdout line
    /// (`DAP server listening at: 127.0.0.1:PORT`); later stdout is debuggee output.
    TcpPortFromStdout,
}

/// One row of the adapter table.
#[derive(Debug, Clone, Copy)]
pub struct AdapterSpec {
    /// Which adapter.
    pub id: AdapterId,
    /// Stable name used in results and the `adapters` op: `debugpy`, `lldb`, `delve`, `dart`.
    pub name: &'static str,
    /// The command as docs/contract.md writes it, for messages (`python3 -m debugpy.adapter`).
    pub command_display: &'static str,
    /// Files whose presence in a directory makes it a project root for this adapter.
    pub root_markers: &'static [&'static str],
    /// How DAP reaches the adapter.
    pub transport: AdapterTransport,
    /// The `evaluate` context to send: `repl` for debugpy/delve/dart, `watch` for lldb (in `repl`
    /// lldb-dap may run the input as an lldb command).
    pub evaluate_context: &'static str,
    /// The `attach(port)` form this adapter expects, for messages.
    pub attach_form: &'static str,
}

/// The adapter table (docs/contract.md, `debug`, adapters).
pub const ADAPTERS: [AdapterSpec; 4] = [
    AdapterSpec {
        id: AdapterId::Debugpy,
        name: "debugpy",
        command_display: "python3 -m debugpy.adapter",
        root_markers: &["pyproject.toml", "setup.py", "requirements.txt"],
        transport: AdapterTransport::Stdio,
        evaluate_context: "repl",
        attach_form: "a port opened by debugpy.listen(port) inside the running program",
    },
    AdapterSpec {
        id: AdapterId::Lldb,
        name: "lldb",
        command_display: "lldb-dap",
        root_markers: &["Cargo.toml", "CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"],
        transport: AdapterTransport::Stdio,
        evaluate_context: "watch",
        attach_form: "a gdb-remote port (lldb-server / gdbserver), attached with `gdb-remote 127.0.0.1:PORT`",
    },
    AdapterSpec {
        id: AdapterId::Delve,
        name: "delve",
        command_display: "dlv dap --listen 127.0.0.1:0",
        root_markers: &["go.mod"],
        transport: AdapterTransport::TcpPortFromStdout,
        evaluate_context: "repl",
        attach_form: "a headless delve server (`dlv --headless --listen 127.0.0.1:PORT exec|debug …`), attached in mode remote",
    },
    AdapterSpec {
        id: AdapterId::Dart,
        name: "dart",
        command_display: "dart debug_adapter",
        root_markers: &["pubspec.yaml"],
        transport: AdapterTransport::Stdio,
        evaluate_context: "repl",
        attach_form: "not supported: dart attaches by VM-service URI, not by a bare port",
    },
];

impl AdapterId {
    /// The table row of this adapter.
    pub fn spec(self) -> &'static AdapterSpec {
        ADAPTERS.iter().find(|spec| spec.id == self).expect("every AdapterId has a table row")
    }

    /// The stable name (`debugpy`, `lldb`, `delve`, `dart`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }
}

/// A resolved adapter command: program plus arguments, and the directory to start it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterCommand {
    /// The executable (absolute path).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Working directory (the project root; delve builds there and ignores launch `cwd`).
    pub cwd: PathBuf,
}

/// Where to look for adapter binaries: extra directories first (a host's or a test's), then
/// `PATH`, then the LLVM install tree (`/usr/lib/llvm-NN/bin`).
#[derive(Debug, Clone)]
pub struct BinarySearch {
    /// Directories searched before `PATH`, in order.
    pub extra_dirs: Vec<PathBuf>,
    /// The `PATH` directories.
    pub path_dirs: Vec<PathBuf>,
    /// Directory holding `llvm-NN/` install trees (`/usr/lib` on Debian).
    pub llvm_parent_dir: PathBuf,
    /// A restricted run's workspace root ([`BinarySearch::restricted_to`]): no adapter binary
    /// or adapter python is taken from inside it. `None` in a trusted run.
    pub restricted_workspace: Option<PathBuf>,
}

impl BinarySearch {
    /// Extra dirs plus the process's `PATH`, LLVM trees under `/usr/lib`.
    pub fn from_env(extra_dirs: &[PathBuf]) -> BinarySearch {
        let path_dirs = std::env::var_os("PATH").map(|path| std::env::split_paths(&path).collect()).unwrap_or_default();
        BinarySearch { extra_dirs: extra_dirs.to_vec(), path_dirs, llvm_parent_dir: PathBuf::from("/usr/lib"), restricted_workspace: None }
    }

    /// The same search for a run of `trust` over `workspace_root`: restricted, it drops the
    /// directories that are relative or resolve inside the workspace and never offers the
    /// project's venv python as the adapter's (debugpy); trusted, it is unchanged. The
    /// debuggee is the program itself and still runs under the project's interpreter.
    #[must_use]
    pub fn restricted_to(mut self, trust: crate::trust::WorkspaceTrust, workspace_root: &Path) -> BinarySearch {
        if trust.is_restricted() {
            let keep = |dir: &PathBuf| dir.is_absolute() && !crate::trust::resolves_inside(workspace_root, dir);
            self.extra_dirs.retain(keep);
            self.path_dirs.retain(keep);
            self.restricted_workspace = Some(workspace_root.to_path_buf());
        }
        self
    }

    /// The directories searched by name, in order (extra dirs, then `PATH`).
    pub fn dirs(&self) -> impl Iterator<Item = &PathBuf> {
        self.extra_dirs.iter().chain(self.path_dirs.iter())
    }

    /// The first executable file named `name` in [`BinarySearch::dirs`].
    pub fn find(&self, name: &str) -> Option<PathBuf> {
        self.dirs().map(|dir| dir.join(name)).find(|candidate| is_executable_file(candidate))
    }

    /// Resolves lldb's DAP adapter: `lldb-dap`, then `lldb-dap-NN` (highest NN first), then
    /// `<llvm_parent_dir>/llvm-NN/bin/lldb-dap`, then the legacy `lldb-vscode`, `lldb-vscode-NN`,
    /// `llvm-NN/bin/lldb-vscode`. Plain `lldb` (the CLI) is never taken for an adapter.
    pub fn find_lldb_dap(&self) -> Option<PathBuf> {
        for base in ["lldb-dap", "lldb-vscode"] {
            if let Some(found) = self.find(base) {
                return Some(found);
            }
            if let Some(found) = self.find_highest_versioned(base) {
                return Some(found);
            }
            if let Some(found) = self.find_in_llvm_trees(base) {
                return Some(found);
            }
        }
        None
    }

    fn find_highest_versioned(&self, base: &str) -> Option<PathBuf> {
        let prefix = format!("{base}-");
        let mut best: Option<(u32, PathBuf)> = None;
        for dir in self.dirs() {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(version) = name.to_str().and_then(|n| n.strip_prefix(&prefix)).and_then(|v| v.parse::<u32>().ok()) else {
                    continue;
                };
                let path = entry.path();
                if !is_executable_file(&path) {
                    continue;
                }
                if best.as_ref().is_none_or(|(best_version, _)| version > *best_version) {
                    best = Some((version, path));
                }
            }
        }
        best.map(|(_, path)| path)
    }

    fn find_in_llvm_trees(&self, base: &str) -> Option<PathBuf> {
        let entries = std::fs::read_dir(&self.llvm_parent_dir).ok()?;
        let mut best: Option<(u32, PathBuf)> = None;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(version) = name.to_str().and_then(|n| n.strip_prefix("llvm-")).and_then(|v| v.parse::<u32>().ok()) else {
                continue;
            };
            let candidate = entry.path().join("bin").join(base);
            if !is_executable_file(&candidate) {
                continue;
            }
            if best.as_ref().is_none_or(|(best_version, _)| version > *best_version) {
                best = Some((version, candidate));
            }
        }
        best.map(|(_, path)| path)
    }
}

/// The project-local virtualenv python of `root` (R-DBG-4): one resolution shared with the
/// language servers and kernels, [`crate::python_env::project_venv_python`].
pub use crate::python_env::project_venv_python;

/// Pythons that may run `-m debugpy.adapter`, best first: the project venv's python (when it
/// has debugpy it is the natural choice), then `python3` and `python` from the search path.
pub fn adapter_python_candidates(root: &Path, search: &BinarySearch) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(venv) = project_venv_python(root).filter(|_| search.restricted_workspace.is_none()) {
        candidates.push(venv);
    }
    for name in ["python3", "python"] {
        if let Some(found) = search.find(name) {
            if !candidates.contains(&found) {
                candidates.push(found);
            }
        }
    }
    candidates
}

/// Finds the project root for `adapter` starting at `start` (a file's directory or a
/// directory) and walking up, never above `workspace_root`. Returns the directory and the
/// marker file found there.
pub fn find_root_marker(adapter: AdapterId, start: &Path, workspace_root: &Path) -> Option<(PathBuf, PathBuf)> {
    let markers = adapter.spec().root_markers;
    let mut dir = Some(start);
    while let Some(current) = dir {
        for marker in markers {
            let candidate = current.join(marker);
            if candidate.is_file() {
                return Some((current.to_path_buf(), candidate));
            }
        }
        if current == workspace_root || !current.starts_with(workspace_root) {
            break;
        }
        dir = current.parent();
    }
    None
}

/// Markers of `adapter` anywhere in the workspace down to `max_depth` directories (gitignore
/// respected, hidden directories skipped), at most `limit`, shortest paths first.
pub fn find_markers_in_workspace(adapter: AdapterId, workspace_root: &Path, max_depth: usize, limit: usize) -> Vec<PathBuf> {
    let markers = adapter.spec().root_markers;
    let mut found = Vec::new();
    // Listed beneath a handle of the root, no symlink followed (issue 13 §1).
    let Ok(handle) = crate::files::Beneath::open(workspace_root) else { return found };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, workspace_root) else { return found };
    for entry in walk.max_depth(Some(max_depth)).iter().flatten() {
        if !entry.is_file() {
            continue;
        }
        let Some(name) = entry.file_name().to_str() else { continue };
        if markers.contains(&name) {
            found.push(entry.into_path());
        }
    }
    found.sort_by_key(|path| (path.components().count(), path.clone()));
    found.truncate(limit);
    found
}

/// For a compiled program without a root marker: the binary's directory counts as its root
/// when C, C++ or Rust source sits beside it (a lone `prog.c` built to `prog`).
/// The directory is listed beneath a handle of `workspace_root` when it is in the workspace
/// (`files::walk_beneath::list_directory`: no symlink followed).
pub fn lone_source_root(program: &Path, workspace_root: &Path) -> Option<PathBuf> {
    let dir = program.parent()?;
    let entries = crate::files::walk_beneath::list_directory(workspace_root, dir);
    for extension in ["c", "cc", "cpp", "cxx", "rs"] {
        if entries
            .iter()
            .any(|(path, kind)| *kind == rustix::fs::FileType::RegularFile && path.extension().is_some_and(|ext| ext == extension))
        {
            return Some(dir.to_path_buf());
        }
    }
    None
}

/// Inputs of a launch-argument builder.
#[derive(Debug, Clone)]
pub struct LaunchInputs<'a> {
    /// Absolute path of the program (script, executable, Go package dir or file, Dart file);
    /// `None` for a Python module.
    pub program: Option<&'a Path>,
    /// debugpy: a module to run instead of a program (`python -m module`).
    pub module: Option<&'a str>,
    /// delve: `debug`, `test` or `exec` (default: `debug` for a `.go` file or a directory,
    /// else `exec`).
    pub delve_mode: Option<&'a str>,
    /// Program arguments.
    pub args: &'a [String],
    /// The debuggee's working directory.
    pub cwd: &'a Path,
    /// Extra environment for the debuggee.
    pub env: &'a [(String, String)],
    /// debugpy only: the interpreter that runs the debuggee (the venv python when there is one).
    pub debuggee_python: Option<&'a Path>,
    /// lldb only: commands run before the target is created (the Rust formatters).
    pub init_commands: &'a [String],
}

/// The adapter-specific `launch` arguments: the minimal set each adapter needs (lldb-dap takes
/// `env` as `K=V` strings, delve a `mode`). Never asks for a terminal, never `stopOnEntry`.
pub fn launch_arguments(adapter: AdapterId, inputs: &LaunchInputs<'_>) -> Value {
    let program = inputs.program.map(|program| program.to_string_lossy().into_owned()).unwrap_or_default();
    let cwd = inputs.cwd.to_string_lossy();
    let env_object: Map<String, Value> = inputs.env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    match adapter {
        AdapterId::Debugpy => {
            let mut arguments = json!({
                "name": "runbound",
                "type": "python",
                "request": "launch",
                "args": inputs.args,
                "cwd": cwd,
                "console": "internalConsole",
                "redirectOutput": true,
                "justMyCode": true,
                "stopOnEntry": false,
                "subProcess": false,
                "env": env_object,
            });
            match inputs.module {
                Some(module) => arguments["module"] = Value::String(module.to_owned()),
                None => arguments["program"] = Value::String(program),
            }
            if let Some(python) = inputs.debuggee_python {
                arguments["python"] = Value::String(python.to_string_lossy().into_owned());
            }
            arguments
        }
        AdapterId::Lldb => {
            let env_array: Vec<String> = inputs.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let mut arguments = json!({
                "name": "runbound",
                "program": program,
                "args": inputs.args,
                "cwd": cwd,
                "env": env_array,
                "stopOnEntry": false,
            });
            if !inputs.init_commands.is_empty() {
                arguments["initCommands"] = json!(inputs.init_commands);
            }
            arguments
        }
        AdapterId::Delve => {
            let default_mode = match inputs.program {
                Some(path) if path.is_dir() || path.extension().is_some_and(|ext| ext == "go") => "debug",
                _ => "exec",
            };
            json!({
                "name": "runbound",
                "request": "launch",
                "mode": inputs.delve_mode.unwrap_or(default_mode),
                "program": program,
                "args": inputs.args,
                "cwd": cwd,
                "env": env_object,
                "stopOnEntry": false,
                "outputMode": "remote",
            })
        }
        AdapterId::Dart => json!({
            "name": "runbound",
            "request": "launch",
            "program": program,
            "args": inputs.args,
            "cwd": cwd,
            "env": env_object,
            "console": "debugConsole",
        }),
    }
}

/// lldb commands that load the Rust toolchain's own formatters (the ones `rust-lldb` loads:
/// `lldb_lookup.py` and `lldb_commands` under `<sysroot>/lib/rustlib/etc`), sourced silently so
/// their echo does not reach the program's output. `Err` says why they cannot be loaded.
pub fn rust_formatter_commands(sysroot: &Path) -> Result<Vec<String>, String> {
    let etc = sysroot.join("lib/rustlib/etc");
    let lookup = etc.join("lldb_lookup.py");
    let commands = etc.join("lldb_commands");
    if !lookup.is_file() || !commands.is_file() {
        return Err(format!("{} has no lldb_lookup.py / lldb_commands", etc.display()));
    }
    Ok(vec![format!("command script import \"{}\"", lookup.display()), format!("command source -s 1 \"{}\"", commands.display())])
}

/// lldb commands that print Rust's `u8` / `i8` as numbers: lldb types them `unsigned char` /
/// `char` and prints `'\x05'`, `'A'`, `'\xfd'` (for -3), and a `[u8; 3]` as a C string
/// (`"\U00000001\U00000002\xc8"`), inside structs and vectors too. With these, the values read
/// `5`, `65`, `-3`, `[1,2,200]`. Run for every Rust program under lldb, with or without the
/// toolchain's formatters.
pub fn rust_primitive_format_commands() -> Vec<String> {
    vec![
        r#"type format add --format unsigned "unsigned char""#.to_owned(),
        r#"type format add --format decimal "signed char""#.to_owned(),
        r#"type format add --format decimal char"#.to_owned(),
        r#"type summary add --summary-string "${var[]}" -x "^(unsigned |signed )?char ?\[[0-9]+\]$""#.to_owned(),
    ]
}

/// The Rust sysroot as `rustc --print sysroot` run in `cwd` says (a `rust-toolchain.toml` there
/// is honoured); `Err` with why not.
pub fn rust_sysroot(cwd: &Path, timeout: Duration) -> Result<PathBuf, String> {
    let rustc = which::which("rustc").map_err(|_| "rustc not found on PATH".to_owned())?;
    let spec = ProcessSpec::new(rustc, cwd).with_args(["--print", "sysroot"]).with_display_name("rustc --print sysroot");
    match crate::transport::run_to_completion(spec, b"", timeout, 64 * 1024) {
        Ok(done) if done.status.success() && !done.timed_out => Ok(PathBuf::from(String::from_utf8_lossy(&done.stdout).trim())),
        Ok(done) => Err(format!("`rustc --print sysroot` failed: {}", String::from_utf8_lossy(&done.stderr).trim())),
        Err(err) => Err(err.message),
    }
}

/// The `attach` arguments for `attach(port)` on 127.0.0.1, or `None` when the adapter cannot
/// attach by port (dart). For debugpy the client connects to the port itself (no adapter
/// process); for delve too (`mode: remote`); lldb attaches to a gdb-remote port.
pub fn attach_arguments(adapter: AdapterId, port: u16, cwd: &Path) -> Option<Value> {
    let cwd = cwd.to_string_lossy();
    match adapter {
        AdapterId::Debugpy => Some(json!({
            "name": "runbound",
            "type": "python",
            "request": "attach",
            "connect": {"host": "127.0.0.1", "port": port},
            "justMyCode": true,
            "subProcess": false,
        })),
        AdapterId::Delve => Some(json!({"name": "runbound", "request": "attach", "mode": "remote", "cwd": cwd})),
        AdapterId::Lldb => Some(json!({
            "name": "runbound",
            "attachCommands": [format!("gdb-remote 127.0.0.1:{port}")],
        })),
        AdapterId::Dart => None,
    }
}

/// Outcomes of "does this python import debugpy" by interpreter path, with the file's mtime
/// when probed (a changed interpreter is probed again).
pub type ProbeCache = HashMap<PathBuf, (Option<SystemTime>, Result<String, String>)>;

/// A resolved adapter: how to start it and what was found, for `adapters` and launch results.
#[derive(Debug, Clone)]
pub struct ResolvedAdapter {
    /// The command to spawn.
    pub command: AdapterCommand,
    /// One line: what was found (binary path, python and debugpy version, …).
    pub summary: String,
    /// debugpy: the interpreter that runs the program (the project venv's when present).
    pub debuggee_python: Option<PathBuf>,
}

/// Resolves the adapter binary for a project rooted at `root`. `Err` says which binary is
/// missing and how to get it. debugpy: the first python (venv first) that imports debugpy
/// runs the adapter; the venv python, when present, runs the program (R-DBG-4). Each python
/// probe is bounded by `config.probe_timeout` and cached by interpreter path and mtime.
pub fn resolve_adapter_binary(
    adapter: AdapterId,
    root: &Path,
    search: &BinarySearch,
    config: &DebugConfig,
    probe_cache: &mut ProbeCache,
) -> Result<ResolvedAdapter, String> {
    let command =
        |program: PathBuf, args: &[&str]| AdapterCommand { program, args: args.iter().map(Into::into).collect(), cwd: root.to_path_buf() };
    match adapter {
        AdapterId::Debugpy => {
            let candidates = adapter_python_candidates(root, search);
            if candidates.is_empty() {
                return Err("no python found (looked for .venv/bin/python, venv/bin/python, python3, python); install python3 and `pip install debugpy`".to_owned());
            }
            let venv_python = project_venv_python(root);
            let mut tried = Vec::new();
            for python in candidates {
                match probe_debugpy(&python, root, config.probe_timeout, probe_cache) {
                    Ok(version) => {
                        let debuggee = venv_python.clone().unwrap_or_else(|| python.clone());
                        let summary = format!(
                            "adapter: {} -m debugpy.adapter (debugpy {version}); the program runs under {}{}",
                            python.display(),
                            debuggee.display(),
                            if venv_python.is_some() { " (project venv)" } else { "" }
                        );
                        return Ok(ResolvedAdapter {
                            command: command(python, &["-m", "debugpy.adapter"]),
                            summary,
                            debuggee_python: Some(debuggee),
                        });
                    }
                    Err(why) => tried.push(format!("{} ({why})", python.display())),
                }
            }
            Err(format!("no python that imports debugpy: tried {}; install it with `pip install debugpy`", tried.join("; ")))
        }
        AdapterId::Lldb => match search.find_lldb_dap() {
            Some(path) => Ok(ResolvedAdapter { summary: format!("adapter: {}", path.display()), command: command(path, &[]), debuggee_python: None }),
            None => Err("binary lldb-dap not found (looked for lldb-dap, lldb-dap-NN, /usr/lib/llvm-NN/bin/lldb-dap, lldb-vscode(-NN)); install it with `apt install lldb-19`".to_owned()),
        },
        AdapterId::Delve => match search.find("dlv") {
            Some(path) => {
                let go_note = match search.find("go") {
                    Some(go) => format!("; go toolchain {}", go.display()),
                    None => "; no `go` on PATH: only prebuilt binaries (mode exec) can be debugged".to_owned(),
                };
                Ok(ResolvedAdapter {
                    summary: format!("adapter: {} dap{go_note}", path.display()),
                    command: command(path, &["dap", "--listen", "127.0.0.1:0", "--check-go-version=false"]),
                    debuggee_python: None,
                })
            }
            None => Err("binary dlv not found; install it with `apt install delve golang-go`".to_owned()),
        },
        AdapterId::Dart => match search.find("dart") {
            Some(path) => Ok(ResolvedAdapter {
                summary: format!("adapter: {} debug_adapter", path.display()),
                command: command(path, &["debug_adapter"]),
                debuggee_python: None,
            }),
            None => Err("binary dart not found (the Dart SDK is not packaged for Debian, PyPI or npm; install it from dart.dev)".to_owned()),
        },
    }
}

/// `Ok(version)` when `python` imports debugpy within `timeout`, else `Err` with the last line
/// of its stderr (or the timeout). Cached by path and mtime.
fn probe_debugpy(python: &Path, cwd: &Path, timeout: Duration, cache: &mut ProbeCache) -> Result<String, String> {
    let modified = std::fs::metadata(python).and_then(|m| m.modified()).ok();
    if let Some((cached_modified, outcome)) = cache.get(python) {
        if *cached_modified == modified {
            return outcome.clone();
        }
    }
    let spec = ProcessSpec::new(python, cwd)
        .with_args(["-c", "import debugpy; print(debugpy.__version__)"])
        .with_display_name(format!("debugpy probe {}", python.display()));
    let outcome = match crate::transport::run_to_completion(spec, b"", timeout, 16 * 1024) {
        Ok(done) if done.timed_out => Err(format!("`import debugpy` did not finish in {} ms", timeout.as_millis())),
        Ok(done) if done.status.success() => Ok(String::from_utf8_lossy(&done.stdout).trim().to_owned()),
        Ok(done) => {
            let stderr = String::from_utf8_lossy(&done.stderr);
            let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("exit status without message");
            Err(last.trim().to_owned())
        }
        Err(err) => Err(err.message),
    };
    cache.insert(python.to_path_buf(), (modified, outcome.clone()));
    outcome
}

/// `Ok(())` when `python` imports `module` within `timeout` (run in `cwd`, so a project-local
/// module counts), else `Err` with the last line of its stderr or the timeout.
pub fn probe_module(python: &Path, module: &str, cwd: &Path, timeout: Duration) -> Result<(), String> {
    let spec = ProcessSpec::new(python, cwd)
        .with_args(["-c".to_owned(), format!("import {module}")])
        .with_display_name(format!("import probe {module}"));
    match crate::transport::run_to_completion(spec, b"", timeout, 16 * 1024) {
        Ok(done) if done.timed_out => Err(format!("`import {module}` did not finish in {} ms", timeout.as_millis())),
        Ok(done) if done.status.success() => Ok(()),
        Ok(done) => {
            let stderr = String::from_utf8_lossy(&done.stderr);
            Err(stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("exit status without message").trim().to_owned())
        }
        Err(err) => Err(err.message),
    }
}

/// How deep [`adapter_availability`] looks for root markers below the workspace root
/// (directory levels; gitignored and hidden directories skipped).
pub const MARKER_SCAN_DEPTH: usize = 4;

/// One adapter's availability in a workspace (the `adapters` op, `runbound status`).
#[derive(Debug, Clone)]
pub struct AdapterAvailability {
    /// Which adapter.
    pub adapter: AdapterId,
    /// Root markers found within [`MARKER_SCAN_DEPTH`] levels (at most 5, shortest first).
    pub markers: Vec<PathBuf>,
    /// The resolved binary, or why it does not resolve.
    pub binary: Result<ResolvedAdapter, String>,
}

impl AdapterAvailability {
    /// Both halves hold: a marker was found and the binary resolves.
    pub fn available(&self) -> bool {
        !self.markers.is_empty() && self.binary.is_ok()
    }
}

/// Every adapter of the table, checked in `workspace_root`: markers found by a bounded scan and
/// the binary resolved (pythons probed, bounded by `config.probe_timeout` each, cached).
/// Restricted `trust`: nothing inside the workspace is resolved or probed
/// ([`BinarySearch::restricted_to`]).
pub fn adapter_availability(
    workspace_root: &Path,
    config: &DebugConfig,
    trust: crate::trust::WorkspaceTrust,
    cache: &mut ProbeCache,
) -> Vec<AdapterAvailability> {
    let search = BinarySearch::from_env(&config.extra_binary_dirs).restricted_to(trust, workspace_root);
    ADAPTERS
        .iter()
        .map(|spec| {
            let markers = find_markers_in_workspace(spec.id, workspace_root, MARKER_SCAN_DEPTH, 5);
            let marker_root = markers.first().and_then(|m| m.parent()).unwrap_or(workspace_root).to_path_buf();
            let binary = resolve_adapter_binary(spec.id, &marker_root, &search, config, cache);
            AdapterAvailability { adapter: spec.id, markers, binary }
        })
        .collect()
}

/// Whether `path` is a regular file with an execute bit.
pub fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(meta) => meta.is_file() && meta.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(path: &Path) {
        crate::test_support::write_executable(path, "#!/bin/sh\n");
    }

    #[test]
    fn lldb_dap_resolution_order() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let usr_lib = dir.path().join("lib");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&usr_lib).unwrap();
        let search =
            BinarySearch { extra_dirs: vec![], path_dirs: vec![bin.clone()], llvm_parent_dir: usr_lib.clone(), restricted_workspace: None };
        assert_eq!(search.find_lldb_dap(), None);

        executable(&bin.join("lldb"));
        assert_eq!(search.find_lldb_dap(), None, "the lldb CLI is not an adapter");

        executable(&usr_lib.join("llvm-16/bin/lldb-vscode"));
        assert_eq!(search.find_lldb_dap(), Some(usr_lib.join("llvm-16/bin/lldb-vscode")));

        executable(&usr_lib.join("llvm-18/bin/lldb-dap"));
        executable(&usr_lib.join("llvm-19/bin/lldb-dap"));
        assert_eq!(search.find_lldb_dap(), Some(usr_lib.join("llvm-19/bin/lldb-dap")));

        executable(&bin.join("lldb-dap-9"));
        executable(&bin.join("lldb-dap-19"));
        executable(&bin.join("lldb-dap-notaversion"));
        assert_eq!(search.find_lldb_dap(), Some(bin.join("lldb-dap-19")), "highest numeric version, not lexical");

        executable(&bin.join("lldb-dap"));
        assert_eq!(search.find_lldb_dap(), Some(bin.join("lldb-dap")));
    }

    #[test]
    fn venv_python_preferred_and_markers_found_upwards() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("pyproject.toml"), "").unwrap();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        assert_eq!(project_venv_python(root), None);
        executable(&root.join("venv/bin/python"));
        assert_eq!(project_venv_python(root), Some(root.join("venv/bin/python")));
        executable(&root.join(".venv/bin/python"));
        assert_eq!(project_venv_python(root), Some(root.join(".venv/bin/python")));

        let found = find_root_marker(AdapterId::Debugpy, &root.join("pkg/sub"), root).unwrap();
        assert_eq!(found, (root.to_path_buf(), root.join("pyproject.toml")));
        assert_eq!(find_root_marker(AdapterId::Delve, &root.join("pkg/sub"), root), None);
        // Never above the workspace root.
        assert_eq!(find_root_marker(AdapterId::Debugpy, &root.join("pkg/sub"), &root.join("pkg")), None);
    }

    #[test]
    fn launch_arguments_follow_each_adapter() {
        let env = vec![("A".to_owned(), "1".to_owned())];
        let args = vec!["--flag".to_owned()];
        let inputs = LaunchInputs {
            program: Some(Path::new("/p/app")),
            module: None,
            delve_mode: None,
            args: &args,
            cwd: Path::new("/p"),
            env: &env,
            debuggee_python: Some(Path::new("/p/.venv/bin/python")),
            init_commands: &[],
        };
        let lldb = launch_arguments(AdapterId::Lldb, &inputs);
        assert_eq!(lldb["env"], json!(["A=1"]), "lldb takes env as a K=V array");
        assert_eq!(lldb["args"], json!(["--flag"]));
        let debugpy = launch_arguments(AdapterId::Debugpy, &inputs);
        assert_eq!(debugpy["python"], "/p/.venv/bin/python");
        assert_eq!(debugpy["console"], "internalConsole");
        assert_eq!(debugpy["subProcess"], false);
        assert_eq!(debugpy["env"], json!({"A": "1"}));
        let delve = launch_arguments(AdapterId::Delve, &inputs);
        assert_eq!(delve["mode"], "exec");
        assert_eq!(delve["outputMode"], "remote");
        let go_inputs = LaunchInputs { program: Some(Path::new("/p/main.go")), ..inputs.clone() };
        assert_eq!(launch_arguments(AdapterId::Delve, &go_inputs)["mode"], "debug");
        let test_inputs = LaunchInputs { delve_mode: Some("test"), ..go_inputs.clone() };
        assert_eq!(launch_arguments(AdapterId::Delve, &test_inputs)["mode"], "test");
        let module_inputs = LaunchInputs { program: None, module: Some("pytest"), ..inputs.clone() };
        let module = launch_arguments(AdapterId::Debugpy, &module_inputs);
        assert_eq!(module["module"], "pytest");
        assert!(module.get("program").is_none(), "module and program are exclusive for debugpy");
        let commands = vec!["command script import \"x\"".to_owned()];
        let rust_inputs = LaunchInputs { init_commands: &commands, ..inputs.clone() };
        assert_eq!(launch_arguments(AdapterId::Lldb, &rust_inputs)["initCommands"], json!(commands));
        assert!(attach_arguments(AdapterId::Dart, 1, Path::new("/p")).is_none());
        assert_eq!(attach_arguments(AdapterId::Debugpy, 5678, Path::new("/p")).unwrap()["connect"]["port"], 5678);
    }
}
