//! File-access confinement of language servers and project checkers (issue 13 §1, Landlock):
//! a symlink in the checkout that leads outside it — planted, or swapped in while the server
//! runs — fails in the server instead of being read. Real pyright (server and CLI),
//! rust-analyzer and cargo: a workspace module is a symlink to a file outside that defines a
//! type whose name is a canary; a call with a wrong argument makes the server's diagnostic
//! quote the type's name in a WORKSPACE file (no outside path for runbound's answer guards to
//! catch). Confined (the default), no answer holds the canary; with the opt-out the same calls
//! quote it — so each test can fail. Local runs skip loudly without Landlock; CI fails.

use crate::support;

use std::path::Path;
use std::time::Duration;

use runbound::{Caller, Run, RunConfig};
use serde_json::{json, Value};

/// The kernel has Landlock, or the test is skipped loudly (fails under CI).
fn landlock(test: &str) -> bool {
    match runbound::lsp::confinement::landlock_abi_version() {
        Ok(_) => true,
        Err(reason) => {
            support::skip_or_fail(test, &format!("no Landlock on this kernel: {reason}"));
            false
        }
    }
}

fn run(workspace: &Path, confine: bool) -> Run {
    let mut config = RunConfig::default();
    config.lsp.diagnostics_wait = Duration::from_secs(60);
    Run::builder(workspace).config(config).confine_language_server_file_access(confine).language_servers().build().expect("build run")
}

fn call(run: &Run, arguments: Value) -> String {
    let result = run.call(Caller::Main, "lsp", arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error || text.contains("no definition") || text.contains("no hover"), "{arguments}: {text}");
    text
}

/// `<tmp>/ws` (the workspace) and `<tmp>/outside/<file>` (`outside_text`), with
/// `ws/<link>` a relative symlink to the outside file.
fn workspace_with_link_out(
    files: &[(&str, &str)],
    link: &str,
    outside_name: &str,
    outside_text: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let base = tempfile::tempdir().unwrap();
    let workspace = base.path().join("ws");
    for (relative, text) in files {
        let path = workspace.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir_all(base.path().join("outside")).unwrap();
    std::fs::write(base.path().join("outside").join(outside_name), outside_text).unwrap();
    let link_path = workspace.join(link);
    std::fs::create_dir_all(link_path.parent().unwrap()).unwrap();
    let depth = Path::new(link).components().count() - 1;
    let target = format!("{}../outside/{outside_name}", "../".repeat(depth));
    std::os::unix::fs::symlink(target, &link_path).unwrap();
    assert!(std::fs::read_to_string(&link_path).unwrap().contains("Canary"), "the link resolves");
    let workspace = std::fs::canonicalize(workspace).unwrap();
    (base, workspace)
}

#[test]
fn pyright_never_reads_a_module_planted_as_a_symlink_out_of_the_workspace() {
    let test = "pyright_never_reads_a_module_planted_as_a_symlink_out_of_the_workspace";
    if !landlock(test)
        || support::require_binary(test, "pyright-langserver").is_none()
        || support::require_binary(test, "pyright").is_none()
    {
        return;
    }
    let (_base, workspace) = workspace_with_link_out(
        &[("pyproject.toml", "[project]\nname = \"p\"\n"), ("d/__init__.py", ""), ("main.py", "from d.r import helper\n\nprint(helper(1))\n")],
        "d/r.py",
        "r.py",
        "class CanarySecret42:\n    \"\"\"CANARY_DOCSTRING_42\"\"\"\n\n\ndef helper(x: CanarySecret42) -> CanarySecret42:\n    \"\"\"CANARY_DOCSTRING_42\"\"\"\n    return x\n",
    );
    let ask = |run: &Run| -> Vec<String> {
        vec![
            call(run, json!({"op": "hover", "file": "main.py", "line": 3, "symbol": "helper"})),
            call(run, json!({"op": "definition", "file": "main.py", "line": 3, "symbol": "helper"})),
            call(run, json!({"op": "diagnostics", "file": "main.py"})),
            call(run, json!({"op": "diagnostics", "file": "*"})),
        ]
    };
    let confined = run(&workspace, true);
    let answers = ask(&confined);
    for answer in &answers {
        assert!(!answer.contains("CanarySecret42") && !answer.contains("CANARY_DOCSTRING"), "confined, the canary came back:\n{answer}");
    }
    assert!(!answers[1].contains("outside/r.py"), "confined, pyright could not resolve the outside file:\n{}", answers[1]);
    let status = confined.call(Caller::Main, "lsp", json!({"op": "status"})).joined_text();
    assert!(status.contains("file access confinement: on (Landlock ABI"), "{status}");
    assert!(status.contains("file access confined (Landlock ABI") && status.contains("read-write beneath"), "{status}");
    assert!(status.contains(&workspace.display().to_string()), "the workspace is a listed root: {status}");
    drop(confined);

    // The opt-out: the same calls quote the outside file's type name (the test can fail).
    let unconfined = run(&workspace, false);
    let answers = ask(&unconfined);
    assert!(answers[2].contains("CanarySecret42"), "unconfined, pyright read the outside file:\n{}", answers[2]);
    assert!(answers[3].contains("CanarySecret42"), "unconfined, the pyright CLI read the outside file:\n{}", answers[3]);
    assert!(answers[1].contains("outside/r.py"), "{}", answers[1]);
    let status = unconfined.call(Caller::Main, "lsp", json!({"op": "status"})).joined_text();
    assert!(status.contains("file access confinement: off"), "{status}");
}

#[test]
fn rust_analyzer_and_cargo_never_read_a_path_module_planted_as_a_symlink_out_of_the_workspace() {
    let test = "rust_analyzer_and_cargo_never_read_a_path_module_planted_as_a_symlink_out_of_the_workspace";
    if !landlock(test) || support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let (_base, workspace) = workspace_with_link_out(
        &[
            ("Cargo.toml", "[package]\nname = \"planted\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
            ("src/lib.rs", "#[path = \"../d/m.rs\"]\nmod m;\n\npub fn run() {\n    let _ = m::helper(1);\n}\n"),
        ],
        "d/m.rs",
        "m.rs",
        "pub struct CanarySecret43;\n\n/// CANARY_DOCS_43\npub fn helper(x: CanarySecret43) -> CanarySecret43 {\n    x\n}\n",
    );
    let ask = |run: &Run| -> Vec<String> {
        vec![
            call(run, json!({"op": "diagnostics", "file": "src/lib.rs"})),
            call(run, json!({"op": "hover", "file": "src/lib.rs", "line": 5, "symbol": "helper"})),
            call(run, json!({"op": "diagnostics", "file": "*"})),
        ]
    };
    let confined = run(&workspace, true);
    let answers = ask(&confined);
    for answer in &answers {
        assert!(!answer.contains("CanarySecret43") && !answer.contains("CANARY_DOCS"), "confined, the canary came back:\n{answer}");
    }
    assert!(answers[2].contains("Permission denied"), "cargo was refused the outside file:\n{}", answers[2]);
    drop(confined);

    let unconfined = run(&workspace, false);
    let answers = ask(&unconfined);
    assert!(answers[0].contains("CanarySecret43"), "unconfined, rustc read the outside file:\n{}", answers[0]);
}
