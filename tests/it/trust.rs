//! Workspace trust (issue 13 §2; R-TRUST-1, R-TRUST-2): a restricted run executes nothing the checkout provides; a
//! trusted run does what a developer's editor would. Each test plants code in the workspace that
//! leaves a marker file (in a directory outside the workspace) when it runs, drives the real
//! server or checker once restricted and once trusted, and checks the marker: absent after the
//! restricted run, present after the trusted one — so the test would catch a restricted run
//! that executes it, and a fixture that could never have executed.
//!
//! Planted code: a `build.rs` (rust-analyzer, `cargo check`), a `.cargo/config.toml`
//! `rustc-wrapper` (which `cargo metadata` runs even with build scripts off), a
//! `node_modules/.bin/typescript-language-server` wrapper and a `node_modules/typescript`
//! tsserver, a `.venv/bin/pyright-langserver` wrapper, a `.pth` file in the project's `.venv`
//! (its interpreter runs it at startup, and pyright starts the interpreter), a `.venv/bin/python`
//! for debugpy's adapter probe. Also: outside-workspace lines are quoted only from dependency
//! roots, and the CLI's default trust follows the caller.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use runbound::{Caller, Run, RunConfig, WorkspaceTrust};
use serde_json::{json, Value};

/// A directory outside the workspace where planted code leaves its markers.
struct Markers {
    dir: tempfile::TempDir,
}

impl Markers {
    fn new() -> Markers {
        Markers { dir: tempfile::tempdir().expect("marker dir") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Names of the markers written so far.
    fn written(&self) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(self.dir.path()).unwrap().flatten().map(|entry| entry.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    fn clear(&self) {
        for entry in std::fs::read_dir(self.dir.path()).unwrap().flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn executable(path: &Path, text: &str) {
    write(path, text);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A run on `workspace` at `trust`, its servers and checkers NOT confined with Landlock: the
/// planted code writes its markers outside the workspace, which the confinement (on by default)
/// would refuse — a restricted run's missing marker would then prove nothing. Trust is about
/// what executes; the confinement has its own tests (`lsp_confinement`).
fn lsp_run(workspace: &Path, trust: WorkspaceTrust) -> Run {
    let mut config = RunConfig::default();
    config.lsp.diagnostics_wait = Duration::from_secs(20);
    Run::builder(workspace)
        .config(config)
        .workspace_trust(trust)
        .confine_language_server_file_access(false)
        .language_servers()
        .build()
        .expect("build run")
}

fn call(run: &Run, arguments: Value) -> (bool, String, Value) {
    let result = run.call(Caller::Readonly, "lsp", arguments);
    (result.is_error, result.joined_text(), result.structured_content.unwrap_or(Value::Null))
}

/// A crate whose `build.rs` writes `build-rs-ran`, with a `.cargo/config.toml` whose
/// `rustc-wrapper` writes `rustc-wrapper-ran` and then runs rustc, and a `rust-analyzer.toml`
/// that asks for build scripts and proc macros.
fn planted_crate(markers: &Markers) -> tempfile::TempDir {
    let workspace = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"planted\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", "/// The answer.\npub fn answer() -> u32 {\n    42\n}\n\npub fn user() -> u32 {\n    answer()\n}\n"),
        ("rust-analyzer.toml", "[cargo.buildScripts]\nenable = true\n\n[procMacro]\nenable = true\n"),
    ]);
    write(
        &workspace.path().join("build.rs"),
        &format!("fn main() {{\n    std::fs::write({:?}, \"ran\").unwrap();\n}}\n", markers.path("build-rs-ran")),
    );
    executable(&workspace.path().join("wrap.sh"), &format!("#!/bin/sh\ntouch {:?}\nexec \"$@\"\n", markers.path("rustc-wrapper-ran")));
    write(&workspace.path().join(".cargo/config.toml"), "[build]\nrustc-wrapper = \"./wrap.sh\"\n");
    workspace
}

#[test]
fn rust_analyzer_runs_build_scripts_and_the_rustc_wrapper_only_when_trusted() {
    let test = "trust::rust_analyzer_runs_build_scripts_and_the_rustc_wrapper_only_when_trusted";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let markers = Markers::new();
    let workspace = planted_crate(&markers);
    let hover = json!({"op": "hover", "file": "src/lib.rs", "line": 7, "symbol": "answer"});

    let restricted = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, structured) = call(&restricted, hover.clone());
    assert!(!is_error, "restricted hover failed:\n{text}");
    assert!(text.contains("pub fn answer() -> u32"), "rust-analyzer still answers:\n{text}");
    let notes: Vec<&str> = structured["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let trust_notes: Vec<&&str> = notes.iter().filter(|note| note.starts_with("workspace trust: restricted")).collect();
    assert_eq!(trust_notes.len(), 1, "one line says what restricted mode turned off: {notes:?}");
    assert!(trust_notes[0].contains("no build scripts (build.rs), proc macros or cargo check"), "{notes:?}");
    assert!(trust_notes[0].contains("build.rustc-wrapper ignored"), "{notes:?}");
    // The newer lsp ops (call hierarchy, code actions) go through the same restricted server
    // and carry the same line.
    for op in ["incoming_calls", "outgoing_calls", "code_actions"] {
        let (line, symbol) = match op {
            "incoming_calls" => (2, "answer"),
            "outgoing_calls" => (6, "user"),
            _ => (7, "answer"),
        };
        let (is_error, text, structured) = call(&restricted, json!({"op": op, "file": "src/lib.rs", "line": line, "symbol": symbol}));
        assert!(!is_error, "restricted {op} failed:\n{text}");
        let notes: Vec<&str> = structured["notes"].as_array().map(|n| n.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        assert!(
            notes.iter().any(|note| note.starts_with("workspace trust: restricted") && note.contains("no build scripts")),
            "{op} says what restricted mode turned off:\n{text}"
        );
    }
    // Give rust-analyzer the time it takes to run build scripts when they are on.
    std::thread::sleep(Duration::from_secs(10));
    let (_, again, _) = call(&restricted, hover.clone());
    drop(restricted);
    assert_eq!(markers.written(), Vec::<String>::new(), "restricted: nothing of the checkout ran\n{again}");

    // A checkout whose cargo configuration sets [env] is not handed to cargo at all.
    write(&workspace.path().join(".cargo/config.toml"), "[env]\nLD_PRELOAD = { value = \"/nonexistent.so\", force = true }\n");
    let refusing = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&refusing, hover.clone());
    assert!(is_error && text.contains("not started in a restricted workspace") && text.contains("sets [env]"), "{text}");
    assert!(text.contains("--workspace-trust trusted"), "the error names the way out: {text}");
    drop(refusing);
    write(&workspace.path().join(".cargo/config.toml"), "[build]\nrustc-wrapper = \"./wrap.sh\"\n");

    let trusted = lsp_run(workspace.path(), WorkspaceTrust::Trusted);
    let (is_error, text, _) = call(&trusted, hover);
    assert!(!is_error, "trusted hover failed:\n{text}");
    assert!(!text.contains("workspace trust: restricted"), "{text}");
    let ran = support::wait_until(Duration::from_secs(120), || markers.written().contains(&"build-rs-ran".to_owned()));
    assert!(ran, "trusted: rust-analyzer runs build.rs (markers: {:?})", markers.written());
    assert!(markers.written().contains(&"rustc-wrapper-ran".to_owned()), "trusted: cargo runs the wrapper: {:?}", markers.written());
}

/// A crate with a `rust-project.json` beside its `Cargo.toml` (rust-analyzer's discovery prefers
/// it) naming a sysroot inside the checkout whose `bin/rustc` and `bin/cargo` write a marker and
/// run the real ones (issue 13 re-run: a read-only hover ran the checkout's rustc 8 times).
#[test]
fn a_rust_project_json_sysroot_is_run_only_when_trusted() {
    let test = "trust::a_rust_project_json_sysroot_is_run_only_when_trusted";
    let (Some(rustc), Some(cargo)) = (support::require_binary(test, "rustc"), support::require_binary(test, "cargo")) else { return };
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let markers = Markers::new();
    let dir = tempfile::tempdir().unwrap();
    let workspace = std::fs::canonicalize(dir.path()).unwrap();
    write(&workspace.join("a/Cargo.toml"), "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    write(&workspace.join("a/src/main.rs"), "fn helper() -> i32 {\n    1\n}\nfn main() {\n    let _ = helper();\n}\n");
    let sysroot = workspace.join("a/evilsys");
    for (name, real) in [("rustc", &rustc), ("cargo", &cargo)] {
        executable(
            &sysroot.join("bin").join(name),
            &format!("#!/bin/sh\ntouch {:?}\nexec {:?} \"$@\"\n", markers.path(&format!("sysroot-{name}-ran")), real),
        );
    }
    let project = json!({"sysroot": sysroot, "crates": [{"root_module": workspace.join("a/src/main.rs"), "edition": "2021", "deps": [], "is_workspace_member": true, "cfg": []}]});
    write(&workspace.join("a/rust-project.json"), &project.to_string());
    let hover = json!({"op": "hover", "file": "a/src/main.rs", "line": 5, "symbol": "helper"});

    let restricted = lsp_run(&workspace, WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&restricted, hover.clone());
    assert!(!is_error, "restricted hover failed:\n{text}");
    assert!(text.contains("fn helper() -> i32"), "rust-analyzer answers from Cargo.toml:\n{text}");
    assert!(text.contains("only a/Cargo.toml is loaded (linkedProjects), the checkout's a/rust-project.json is not read"), "{text}");
    assert!(text.contains("sysroot pinned to the toolchain's own"), "{text}");
    std::thread::sleep(Duration::from_secs(5));
    drop(restricted);
    assert_eq!(markers.written(), Vec::<String>::new(), "restricted: the checkout's sysroot binaries did not run\n{text}");

    // A project with only a rust-project.json is refused in restricted mode, with the way out.
    std::fs::remove_file(workspace.join("a/Cargo.toml")).unwrap();
    let refusing = lsp_run(&workspace, WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&refusing, hover.clone());
    assert!(is_error, "{text}");
    assert!(text.contains("a/rust-project.json is there, but a restricted run does not start rust-analyzer"), "{text}");
    assert!(text.contains("--workspace-trust trusted"), "{text}");
    drop(refusing);
    assert_eq!(markers.written(), Vec::<String>::new());
    write(&workspace.join("a/Cargo.toml"), "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");

    // Trusted: rust-analyzer reads the rust-project.json and runs its sysroot's rustc (so the
    // fixture would catch a restricted run that did).
    let trusted = lsp_run(&workspace, WorkspaceTrust::Trusted);
    let (_, text, _) = call(&trusted, hover);
    let ran = support::wait_until(Duration::from_secs(60), || !markers.written().is_empty());
    assert!(ran, "trusted: rust-analyzer ran the rust-project.json sysroot's binaries: {:?}\n{text}", markers.written());
}

#[test]
fn cargo_check_runs_only_when_trusted() {
    let test = "trust::cargo_check_runs_only_when_trusted";
    if support::require_binary(test, "cargo").is_none() {
        return;
    }
    let markers = Markers::new();
    let workspace = planted_crate(&markers);
    std::fs::remove_file(workspace.path().join(".cargo/config.toml")).unwrap();
    let all = json!({"op": "diagnostics", "file": "*"});

    let restricted = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, structured) = call(&restricted, all.clone());
    assert!(is_error, "only cargo applies, and it is refused:\n{text}");
    assert!(text.contains("cargo check") && text.contains("not run: the workspace trust is restricted"), "{text}");
    assert!(text.contains("build scripts (build.rs) and proc macros"), "the reason is named: {text}");
    assert_eq!(structured["error"]["details"]["workspace_trust"], "restricted", "{structured}");
    assert_eq!(markers.written(), Vec::<String>::new());

    let trusted = lsp_run(workspace.path(), WorkspaceTrust::Trusted);
    let (is_error, text, _) = call(&trusted, all);
    assert!(!is_error, "trusted cargo check ran:\n{text}");
    assert!(text.contains("ran `cargo check"), "{text}");
    assert_eq!(markers.written(), vec!["build-rs-ran".to_owned()], "trusted: cargo check ran build.rs");
}

/// The global typescript install the server would fall back to (independently of runbound):
/// `tsc` on PATH, resolved, `../lib/tsserver.js`.
fn global_tsserver() -> Option<PathBuf> {
    let tsc = std::fs::canonicalize(which::which("tsc").ok()?).ok()?;
    let tsserver = tsc.parent()?.parent()?.join("lib/tsserver.js");
    tsserver.is_file().then_some(tsserver)
}

#[test]
fn project_local_typescript_server_and_tsserver_run_only_when_trusted() {
    let test = "trust::project_local_typescript_server_and_tsserver_run_only_when_trusted";
    let Some(server) = support::require_binary(test, "typescript-language-server") else { return };
    let Some(tsserver) = global_tsserver() else {
        support::skip_or_fail(test, "no global typescript (tsc) found");
        return;
    };
    let markers = Markers::new();
    let workspace = support::workspace_with(&[
        ("package.json", "{\"name\": \"planted\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\n"),
        ("src/a.ts", "export function answer(): number {\n  return 42;\n}\n\nexport const used = answer();\n"),
        ("node_modules/typescript/package.json", "{\"name\": \"typescript\", \"version\": \"5.9.3\"}\n"),
    ]);
    // The project's own server binary: marks, then runs the real server (so trusted still works).
    executable(
        &workspace.path().join("node_modules/.bin/typescript-language-server"),
        &format!("#!/bin/sh\ntouch {:?}\nexec {:?} \"$@\"\n", markers.path("local-server-ran"), server),
    );
    // The project's own typescript: marks, then loads the real tsserver.
    write(
        &workspace.path().join("node_modules/typescript/lib/tsserver.js"),
        &format!(
            "require('fs').writeFileSync({:?}, 'ran');\nmodule.exports = require({:?});\n",
            markers.path("local-tsserver-ran"),
            tsserver
        ),
    );
    let hover = json!({"op": "hover", "file": "src/a.ts", "line": 5, "symbol": "answer"});

    let restricted = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&restricted, hover.clone());
    assert!(!is_error, "restricted hover failed:\n{text}");
    assert!(text.contains("answer(): number"), "{text}");
    assert!(text.contains("the project's own node_modules/.bin/typescript-language-server not run"), "{text}");
    assert!(text.contains("the project's node_modules/typescript is not run"), "{text}");
    drop(restricted);
    assert_eq!(markers.written(), Vec::<String>::new(), "restricted: neither the local server nor the local tsserver ran");

    let trusted = lsp_run(workspace.path(), WorkspaceTrust::Trusted);
    let (is_error, text, _) = call(&trusted, hover);
    assert!(!is_error, "trusted hover failed:\n{text}");
    drop(trusted);
    assert_eq!(markers.written(), vec!["local-server-ran".to_owned(), "local-tsserver-ran".to_owned()]);
}

/// A Python project with a real `.venv` (`python3 -m venv`) holding a package only it has, a
/// `.pth` whose `import` line writes `venv-startup-ran` (Python executes it whenever the venv's
/// interpreter starts), and a `.venv/bin/pyright-langserver` that writes `local-server-ran` and
/// runs the real one. `None` after a loud skip when a tool is missing.
fn planted_python_project(test: &str, markers: &Markers) -> Option<tempfile::TempDir> {
    let server = support::require_binary(test, "pyright-langserver")?;
    let python = support::require_binary(test, "python3")?;
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"planted\"\nversion = \"0.1.0\"\n"),
        ("app/main.py", "from venvonly_rates import vat_rate\n\nprice: float = 100 * (1 + vat_rate(\"fr\"))\n"),
    ]);
    let created = std::process::Command::new(python)
        .args(["-m", "venv", "--without-pip"])
        .arg(workspace.path().join(".venv"))
        .status()
        .expect("python3 -m venv");
    assert!(created.success());
    let site_packages = std::fs::read_dir(workspace.path().join(".venv/lib"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path().join("site-packages"))
        .find(|dir| dir.is_dir())
        .expect("site-packages");
    write(&site_packages.join("venvonly_rates/__init__.py"), "def vat_rate(country: str) -> float:\n    return 0.2\n");
    write(&site_packages.join("planted.pth"), &format!("import os; open({:?}, 'w').close()\n", markers.path("venv-startup-ran")));
    executable(
        &workspace.path().join(".venv/bin/pyright-langserver"),
        &format!("#!/bin/sh\ntouch {:?}\nexec {:?} \"$@\"\n", markers.path("local-server-ran"), server),
    );
    Some(workspace)
}

#[test]
fn project_local_pyright_and_the_project_interpreter_run_only_when_trusted() {
    let test = "trust::project_local_pyright_and_the_project_interpreter_run_only_when_trusted";
    let markers = Markers::new();
    let Some(workspace) = planted_python_project(test, &markers) else { return };
    let definition = json!({"op": "definition", "file": "app/main.py", "line": 3, "symbol": "vat_rate", "server": "pyright"});

    let restricted = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&restricted, definition.clone());
    assert!(!is_error, "restricted definition failed:\n{text}");
    // The venv's packages are still found: read as files (extraPaths), not through its python.
    assert!(text.contains("venvonly_rates/__init__.py"), "{text}");
    assert!(text.contains("the project's own .venv/bin/pyright-langserver not run"), "{text}");
    assert!(text.contains("the project interpreter .venv/bin/python is not run"), "{text}");
    let (_, status, _) = call(&restricted, json!({"op": "status"}));
    assert!(status.contains("workspace trust: restricted"), "{status}");
    drop(restricted);
    assert_eq!(markers.written(), Vec::<String>::new(), "restricted: neither the local server nor the venv's python ran");

    let trusted = lsp_run(workspace.path(), WorkspaceTrust::Trusted);
    let (is_error, text, _) = call(&trusted, definition);
    assert!(!is_error, "trusted definition failed:\n{text}");
    assert!(text.contains("venvonly_rates/__init__.py"), "{text}");
    drop(trusted);
    assert_eq!(markers.written(), vec!["local-server-ran".to_owned(), "venv-startup-ran".to_owned()]);
}

#[test]
fn the_restricted_pyright_checker_reads_the_venv_without_starting_it() {
    let test = "trust::the_restricted_pyright_checker_reads_the_venv_without_starting_it";
    if support::require_binary(test, "pyright").is_none() {
        return;
    }
    let markers = Markers::new();
    let Some(workspace) = planted_python_project(test, &markers) else { return };
    // A type error that is only visible when the venv's package resolves (float into int).
    write(&workspace.path().join("app/main.py"), "from venvonly_rates import vat_rate\n\nrate: int = vat_rate(\"fr\")\n");
    let all = json!({"op": "diagnostics", "file": "*"});

    let restricted = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&restricted, all.clone());
    assert!(!is_error, "{text}");
    assert!(text.contains("app/main.py:3") && text.contains("\"float\" is not assignable to declared type \"int\""), "{text}");
    assert!(!text.contains("reportMissingImports"), "the venv's package resolved: {text}");
    assert!(text.contains("workspace trust: restricted — .venv/bin/python is not run"), "{text}");
    assert_eq!(markers.written(), Vec::<String>::new(), "restricted: the checker did not start the venv's python");

    let trusted = lsp_run(workspace.path(), WorkspaceTrust::Trusted);
    let (is_error, text, _) = call(&trusted, all);
    assert!(!is_error && text.contains("\"float\" is not assignable"), "{text}");
    assert_eq!(markers.written(), vec!["venv-startup-ran".to_owned()], "trusted: pyright ran the venv's python");
}

#[test]
fn outside_lines_are_quoted_only_from_known_dependency_roots() {
    let test = "trust::outside_lines_are_quoted_only_from_known_dependency_roots";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    // A file outside the workspace, in no dependency root, that the project's configuration
    // points the server at.
    let outside = tempfile::tempdir().unwrap();
    write(
        &outside.path().join("secretmod.py"),
        "def leak() -> str:  # TOP-SECRET-LINE\n    \"\"\"TOP-SECRET-DOCSTRING\"\"\"\n    return 'x'\n\n\ndef zz_secret_name():\n    return 1\n\n\ndef zz_secret_caller():\n    return zz_secret_name()\n",
    );
    let outside_dir = std::fs::canonicalize(outside.path()).unwrap();
    let workspace = support::workspace_with(&[
        ("pyrightconfig.json", &format!("{{\"extraPaths\": [{:?}]}}\n", outside_dir)),
        ("main.py", "from secretmod import leak\n\nprint(leak())\n"),
        ("calls.py", "from linked import zz_secret_name\n\nzz_secret_name()\n"),
    ]);
    // A checkout can also carry a file symlink to any file: pyright indexes what it points to.
    std::os::unix::fs::symlink(outside_dir.join("secretmod.py"), workspace.path().join("linked.py")).unwrap();
    for trust in [WorkspaceTrust::Trusted, WorkspaceTrust::Restricted] {
        let run = lsp_run(workspace.path(), trust);
        let (is_error, text, structured) =
            call(&run, json!({"op": "definition", "file": "main.py", "line": 3, "symbol": "leak", "server": "pyright"}));
        assert!(!is_error, "{text}");
        assert!(text.contains(&format!("{}:1 [outside workspace]", outside_dir.join("secretmod.py").display())), "named: {text}");
        assert!(!text.contains("TOP-SECRET-LINE"), "{trust}: an outside line of no dependency root is not quoted:\n{text}");
        assert!(text.contains("line not quoted"), "{text}");
        let result = &structured["results"][0];
        assert_eq!((result["quoted"].clone(), result["text"].clone()), (json!(false), Value::Null), "{structured}");
        // A hover is the defining file's text (signature, docstring): not shown for such a file.
        let (is_error, text, _) = call(&run, json!({"op": "hover", "file": "main.py", "line": 3, "symbol": "leak", "server": "pyright"}));
        assert!(!is_error, "{text}");
        assert!(!text.contains("TOP-SECRET-DOCSTRING"), "{trust}: a hover from an outside file of no dependency root:\n{text}");
        assert!(text.contains("hover not shown: `leak` is defined in") && text.contains("secretmod.py:1 [outside workspace]"), "{text}");
        let (is_error, text, _) = call(&run, json!({"op": "hover", "file": "main.py", "line": 3, "symbol": "print", "server": "pyright"}));
        assert!(!is_error && text.contains("def print("), "dependency code (typeshed) keeps its hover:\n{text}");
        // A symbol's name is its file's content: the workspace symbol list names the file only.
        let (is_error, text, structured) = call(&run, json!({"op": "symbols", "query": "zz_secret", "server": "pyright"}));
        assert!(!is_error, "{text}");
        assert!(!text.contains("zz_secret_name"), "{trust}: a symbol name from an outside file of no dependency root:\n{text}");
        assert!(text.contains("not listed: 2 symbols the server found in files outside the workspace"), "{text}");
        assert_eq!(structured["outside_not_listed"], json!(2), "{structured}");
        // A caller in such a file is placed by path and line; its name is not shown.
        let (is_error, text, _) =
            call(&run, json!({"op": "incoming_calls", "file": "calls.py", "line": 3, "symbol": "zz_secret_name", "server": "pyright"}));
        assert!(!is_error, "{text}");
        assert!(!text.contains("zz_secret_caller"), "{trust}: a caller's name from an outside file of no dependency root:\n{text}");
        assert!(
            text.contains("secretmod.py [outside workspace] (1):") && text.contains("(name not shown: outside the workspace"),
            "{text}"
        );
    }
}

#[test]
fn the_debug_adapter_probe_never_starts_the_projects_python_when_restricted() {
    let markers = Markers::new();
    let workspace = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"p\"\n"), ("main.py", "print(1)\n")]);
    executable(&workspace.path().join(".venv/bin/python"), &format!("#!/bin/sh\ntouch {:?}\nexit 1\n", markers.path("venv-python-ran")));
    let root = std::fs::canonicalize(workspace.path()).unwrap();
    let restricted = runbound::Run::builder(&root).workspace_trust(WorkspaceTrust::Restricted).build().unwrap();
    let (report, _) = runbound::status::debug_adapters_report(&restricted);
    assert!(!report.contains(".venv/bin/python -m debugpy.adapter"), "{report}");
    assert_eq!(markers.written(), Vec::<String>::new(), "restricted: the adapter probe did not run the venv's python");
    let trusted = runbound::Run::builder(&root).workspace_trust(WorkspaceTrust::Trusted).build().unwrap();
    let (_, _) = runbound::status::debug_adapters_report(&trusted);
    assert_eq!(markers.written(), vec!["venv-python-ran".to_owned()], "trusted: the venv python is probed first");
    markers.clear();
}

#[test]
fn the_cli_default_trust_follows_the_caller_and_the_flag_overrides_it() {
    let workspace = support::workspace_with(&[("notes.txt", "x\n")]);
    let status = |args: &[&str]| -> Value {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_runbound"))
            .arg("--workspace")
            .arg(workspace.path())
            .args(args)
            .args(["status", "--json"])
            .env_remove("RUNBOUND_WORKER_CALLER")
            .env_remove("RUNBOUND_WORKER_WORKSPACE_TRUST")
            .output()
            .expect("run runbound status");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let trust = |value: &Value| (value["run"]["workspace_trust"].clone(), value["language_servers"]["workspace_trust"].clone());
    assert_eq!(trust(&status(&["--caller", "readonly"])), (json!("restricted"), json!("restricted")));
    assert_eq!(trust(&status(&["--caller", "plan"])), (json!("restricted"), json!("restricted")));
    assert_eq!(trust(&status(&["--caller", "main"])), (json!("trusted"), json!("trusted")));
    assert_eq!(trust(&status(&["--caller", "readonly", "--workspace-trust", "trusted"])), (json!("trusted"), json!("trusted")));
    assert_eq!(trust(&status(&["--workspace-trust", "restricted"])), (json!("restricted"), json!("restricted")));
    assert_eq!(status(&["--caller", "readonly"])["run"]["workspace_trust_chosen"], json!(false));
}

/// A project `.venv` without `lib/` (no site-packages) in a restricted run: the Python server
/// starts with no extraPaths and answers (adversarial re-run F1: every `lsp` call panicked with
/// an overflow naming the site-packages it would read).
#[test]
fn a_restricted_run_on_a_venv_without_site_packages_answers() {
    let test = "trust::a_restricted_run_on_a_venv_without_site_packages_answers";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"p\"\nversion = \"0.1.0\"\n"),
        ("a.py", "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"),
    ]);
    let venv = workspace.path().join(".venv");
    let made = std::process::Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).status().expect("python3 -m venv");
    assert!(made.success());
    std::fs::remove_dir_all(venv.join("lib")).expect("remove lib/");
    let _ = std::fs::remove_file(venv.join("lib64"));
    let restricted = lsp_run(workspace.path(), WorkspaceTrust::Restricted);
    let (is_error, text, _) = call(&restricted, json!({"op": "hover", "file": "a.py", "line": 5, "symbol": "greet"}));
    assert!(!is_error, "{text}");
    assert!(text.contains("greet") && text.contains("str"), "{text}");
}
