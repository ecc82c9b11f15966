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

/// `lsp diagnostics <file>` right after a change on disk the file depends on: the answer's text,
/// or the "diagnostics unavailable … NOT checked" error's (said loudly: on a loaded machine the
/// cargo check after the change may not qualify in the budget; then no error from before the
/// change may be shown — issue 11 §5).
fn diagnostics_after_change(run: &Run, file: &str) -> String {
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": file}));
    let text = result.joined_text();
    if result.is_error {
        assert!(text.contains("diagnostics unavailable") && text.contains("NOT checked"), "{file}: {text}");
        eprintln!("diagnostics of {file} after the change were NOT checked in the budget (loaded machine?):\n{text}");
    }
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

/// A crate opened alone whose `Cargo.toml` has `common = { path = "../common" }` (one crate of a
/// larger checkout): before the project's outside roots, confined rust-analyzer answered "no
/// hover information found" for every `common::` name and `"*"` failed with `Permission denied`
/// and the hint "install the checker". Trusted: the path dependency is readable and quoted like
/// dependency code, `"*"` sees a break in the caller. Restricted: it is not opened, and the first
/// answer says so. Inside a git repository, the repository is readable in either mode.
#[test]
fn a_path_dependency_outside_the_workspace_is_read_in_trusted_runs_and_said_in_restricted_ones() {
    let test = "a_path_dependency_outside_the_workspace_is_read_in_trusted_runs_and_said_in_restricted_ones";
    if !landlock(test) || support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let write = |relative: &str, text: &str| {
        let path = base.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("common/Cargo.toml", "[package]\nname = \"common\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    write("common/src/lib.rs", "/// Adds two numbers.\npub fn add_numbers(left: u64, right: u64) -> u64 {\n    left + right\n}\n");
    write(
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\ncommon = { path = \"../common\" }\n",
    );
    write("app/src/main.rs", "fn main() {\n    let sum: u64 = common::add_numbers(1, 2);\n    println!(\"{sum}\");\n}\n");
    let workspace = std::fs::canonicalize(base.path().join("app")).unwrap();
    let common = std::fs::canonicalize(base.path().join("common")).unwrap();

    let trusted = run(&workspace, true);
    let definition = call(&trusted, json!({"op": "definition", "file": "src/main.rs", "line": 2, "symbol": "add_numbers"}));
    assert!(
        definition.contains("common/src/lib.rs:2 [project, outside the workspace]: pub fn add_numbers(left: u64, right: u64) -> u64 {"),
        "{definition}"
    );
    let status = call(&trusted, json!({"op": "status"}));
    assert!(
        status.contains(&format!("readable outside the workspace, the project uses it: {} (a `path =` in Cargo.toml; files changed there by hand are re-synced like the workspace's)", common.display())),
        "{status}"
    );
    let check = call(&trusted, json!({"op": "diagnostics", "file": "*"}));
    assert!(check.contains("project check: 0 errors") && !check.contains("Permission denied"), "{check}");
    // A break in the dependency's caller is seen: cargo compiled the dependency.
    std::fs::write(workspace.join("src/main.rs"), "fn main() {\n    let sum: u64 = common::add_numbers(1);\n    println!(\"{sum}\");\n}\n")
        .unwrap();
    let check = call(&trusted, json!({"op": "diagnostics", "file": "*"}));
    assert!(check.contains("src/main.rs:2") && check.contains("E0061"), "{check}");
    std::fs::write(
        workspace.join("src/main.rs"),
        "fn main() {\n    let sum: u64 = common::add_numbers(1, 2);\n    println!(\"{sum}\");\n}\n",
    )
    .unwrap();
    let file = call(&trusted, json!({"op": "diagnostics", "file": "src/main.rs"}));
    assert!(file.contains("no errors") && !file.contains("E0061"), "{file}");
    // A hand edit in the dependency reaches the servers without `reload` (trial20 F5, trial21
    // F2: the caller's diagnostics stayed "no errors" and hover showed the old signature).
    let library = common.join("src/lib.rs");
    let original = std::fs::read_to_string(&library).unwrap();
    std::fs::write(
        &library,
        original.replace("right: u64) -> u64 {\n    left + right", "right: u64, third: u64) -> u64 {\n    left + right + third"),
    )
    .unwrap();
    let file = diagnostics_after_change(&trusted, "src/main.rs");
    assert!(
        (file.contains("NOT checked") && !file.contains("no errors")) || (file.contains("src/main.rs:2") && file.contains("E0061")),
        "the caller's break was not seen:\n{file}"
    );
    assert!(!file.contains("NOT re-synced"), "{file}");
    let hover = call(&trusted, json!({"op": "hover", "file": "src/main.rs", "line": 2, "symbol": "add_numbers"}));
    assert!(hover.contains("third: u64"), "hover kept the old signature:\n{hover}");
    std::fs::write(&library, &original).unwrap();
    let file = diagnostics_after_change(&trusted, "src/main.rs");
    assert!(
        !file.contains("E0061") && (file.contains("NOT checked") || file.contains("no errors")),
        "the restored dependency was not seen:\n{file}"
    );
    drop(trusted);

    let restricted =
        Run::builder(&workspace).workspace_trust(runbound::WorkspaceTrust::Restricted).language_servers().build().expect("build run");
    let result =
        restricted.call(Caller::Main, "lsp", json!({"op": "definition", "file": "src/main.rs", "line": 2, "symbol": "add_numbers"}));
    let text = result.joined_text();
    assert!(
        text.contains(&format!(
            "the project reads files outside the workspace that confined servers and checkers may NOT read: {} (a `path =` in Cargo.toml; workspace trust is restricted",
            common.display()
        )),
        "{text}"
    );
    assert!(!text.contains("Adds two numbers") && !text.contains("pub fn add_numbers"), "restricted quoted the dependency:\n{text}");
    // File diagnostics say errors can be missing (trial21 F1: "no errors" where cargo had one).
    let file = restricted.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/main.rs"})).joined_text();
    assert!(file.contains("the servers may not read 1 path of the project's files outside the workspace"), "{file}");
    // Not only the first answer: a later empty one says why it may be empty (trial20 F2).
    let later = restricted.call(Caller::Main, "lsp", json!({"op": "hover", "file": "src/main.rs", "line": 2, "symbol": "add_numbers"}));
    let text = later.joined_text();
    assert!(
        !text.contains("no hover information found")
            || text.contains("servers here may not read 1 path of the project's files outside the workspace"),
        "{text}"
    );
    assert!(!text.contains("Adds two numbers"), "{text}");
    drop(restricted);

    // The same layout inside a git repository: the repository is readable, restricted too.
    std::fs::create_dir(base.path().join(".git")).unwrap();
    let in_repository =
        Run::builder(&workspace).workspace_trust(runbound::WorkspaceTrust::Restricted).language_servers().build().expect("build run");
    let status = call(&in_repository, json!({"op": "status"}));
    let repository = std::fs::canonicalize(base.path()).unwrap();
    assert!(
        status.contains(&format!(
            "readable outside the workspace, the project uses it: {} (the repository the workspace is in (.git there); files changed there by hand are re-synced",
            repository.display()
        )),
        "{status}"
    );
    assert!(!status.contains("NOT readable"), "{status}");
}

/// A `path =` dependency added to `Cargo.toml` while the run is going (walkdir + `../same-file`,
/// trial23 F3): the outside roots were found once per run, so even after `reload` the confined
/// rust-analyzer could not read `../same-file` and answered "no errors" and "no definition
/// found". Now the roots follow the manifests: answers say the running server lacks the new
/// root, and `reload` restarts it with access.
#[test]
fn a_path_dependency_added_during_the_run_is_said_and_readable_after_reload() {
    let test = "a_path_dependency_added_during_the_run_is_said_and_readable_after_reload";
    if !landlock(test) || support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let write = |relative: &str, text: &str| {
        let path = base.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("common/Cargo.toml", "[package]\nname = \"common\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    write("common/src/lib.rs", "/// Adds two numbers.\npub fn add_numbers(left: u64, right: u64) -> u64 {\n    left + right\n}\n");
    write("app/Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n");
    write("app/src/main.rs", "fn main() {\n    let sum: u64 = 1 + 2;\n    println!(\"{sum}\");\n}\n");
    let workspace = std::fs::canonicalize(base.path().join("app")).unwrap();
    let common = std::fs::canonicalize(base.path().join("common")).unwrap();
    let run = run(&workspace, true);
    let file = call(&run, json!({"op": "diagnostics", "file": "src/main.rs"}));
    assert!(file.contains("no errors"), "{file}");
    // The dependency is added by hand; the caller uses it.
    write(
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\ncommon = { path = \"../common\" }\n",
    );
    write("app/src/main.rs", "fn main() {\n    let sum: u64 = common::add_numbers(1, 2);\n    println!(\"{sum}\");\n}\n");
    let file = call(&run, json!({"op": "diagnostics", "file": "src/main.rs"}));
    assert!(
        file.contains(&format!("the project's manifests now name {} outside the workspace, which rust-analyzer @", common.display()))
            && file.contains("`lsp` op reload restarts it with access"),
        "the running server's missing access is not said:\n{file}"
    );
    let status = call(&run, json!({"op": "status"}));
    assert!(status.contains(&format!("readable outside the workspace, the project uses it: {}", common.display())), "{status}");
    let reload = call(&run, json!({"op": "reload"}));
    assert!(!reload.contains("error"), "{reload}");
    let definition = call(&run, json!({"op": "definition", "file": "src/main.rs", "line": 2, "symbol": "add_numbers"}));
    assert!(
        definition.contains("common/src/lib.rs:2 [project, outside the workspace]: pub fn add_numbers(left: u64, right: u64) -> u64 {"),
        "after reload the dependency is still not read:\n{definition}"
    );
    let file = call(&run, json!({"op": "diagnostics", "file": "src/main.rs"}));
    assert!(!file.contains("manifests now name"), "{file}");
}
