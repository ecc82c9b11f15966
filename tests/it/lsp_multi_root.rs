//! A workspace holding a library module and its consumer as two project roots (issue 11,
//! trial27b F1/F2/F6): `lib/` (module example.com/lib) and `app/` (module example.com/app, which
//! reaches the library through `replace example.com/lib => ../lib`), no go.work, so runbound
//! runs one gopls per go.mod. Drives real gopls; the ground truth for the consumer's state is
//! `go vet ./...` run in `app/` (when `go` is installed).

use crate::support;

use std::path::Path;
use std::process::Command;

use runbound::Caller;
use serde_json::json;

const LIB_GO: &str = "package lib\n\n// Every returns n doubled.\nfunc Every(n int) int {\n\treturn n * 2\n}\n";
const APP_MAIN_GO: &str =
    "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib\"\n)\n\nfunc main() {\n\tfmt.Println(lib.Every(21))\n}\n";

fn two_module_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("lib/go.mod", "module example.com/lib\n\ngo 1.19\n"),
        ("lib/lib.go", LIB_GO),
        (
            "lib/lib_test.go",
            "package lib\n\nimport \"testing\"\n\nfunc TestEvery(t *testing.T) {\n\tif Every(2) != 4 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
        ),
        ("app/go.mod", "module example.com/app\n\ngo 1.19\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n"),
        ("app/main.go", APP_MAIN_GO),
    ])
}

/// `go vet ./...` in `dir`: `Some(true)` when clean, `None` without `go`.
fn go_vet_clean(dir: &Path) -> Option<bool> {
    which::which("go").ok()?;
    let output =
        Command::new("go").arg("vet").arg("./...").current_dir(dir).env("GOFLAGS", "-mod=mod").env("GOPROXY", "off").output().ok()?;
    Some(output.status.success())
}

#[test]
fn a_write_in_the_library_module_reaches_the_consumer_modules_gopls() {
    let test = "a_write_in_the_library_module_reaches_the_consumer_modules_gopls";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = two_module_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    // Both servers running, the consumer's file open and clean.
    let lib = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "lib/lib.go"}));
    assert!(!lib.is_error, "{}", lib.joined_text());
    let before = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
    let text = before.joined_text();
    assert!(!before.is_error && text.contains("no errors"), "the consumer is not clean before the write:\n{text}");
    assert_ne!(go_vet_clean(&dir.path().join("app")), Some(false), "the fixture's app does not vet clean");
    // A references query opens the library's file in the consumer's gopls too (seen on the
    // trial's workspace: the changed file then reaches it as an open document's change, which
    // must still make its other open documents' diagnostics current).
    let references = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "lib/lib.go", "line": 4, "symbol": "Every"}));
    assert!(!references.is_error, "{}", references.joined_text());
    // The library's function gets a second parameter: the consumer's call breaks.
    let edit = run.call(
        Caller::Main,
        "edit",
        json!({"path": "lib/lib.go", "old_string": "func Every(n int) int {", "new_string": "func Every(n int, times int) int {"}),
    );
    assert!(!edit.is_error, "{}", edit.joined_text());
    assert_ne!(go_vet_clean(&dir.path().join("app")), Some(true), "ground truth: the consumer should no longer vet clean");
    let broken = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
    let text = broken.joined_text();
    assert!(!broken.is_error, "{text}");
    assert!(
        text.contains("main.go:10") && text.contains("not enough arguments"),
        "the consumer's gopls still answers from the library's old text (trial27b F2):\n{text}"
    );
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "app/main.go", "line": 10, "symbol": "Every"}));
    let text = hover.joined_text();
    assert!(text.contains("times int"), "the consumer's hover shows the old signature:\n{text}");
    // The fix: back to one parameter; the consumer's error is gone (no phantom error).
    let fix = run.call(
        Caller::Main,
        "edit",
        json!({"path": "lib/lib.go", "old_string": "func Every(n int, times int) int {", "new_string": "func Every(n int) int {"}),
    );
    assert!(!fix.is_error, "{}", fix.joined_text());
    assert_ne!(go_vet_clean(&dir.path().join("app")), Some(false), "ground truth: the consumer vets clean again");
    let fixed = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
    let text = fixed.joined_text();
    assert!(
        !fixed.is_error && text.contains("no errors") && !text.contains("not enough arguments"),
        "the consumer keeps a phantom error after the library's fix:\n{text}"
    );
}

#[test]
fn references_in_the_library_module_include_the_consumer_modules_uses() {
    let test = "references_in_the_library_module_include_the_consumer_modules_uses";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = two_module_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "lib/lib.go", "line": 4, "symbol": "Every"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Ground truth (grep -w Every over the workspace, comments aside): lib.go:4, lib_test.go:6,
    // app/main.go:10.
    let mut grep: Vec<String> = Vec::new();
    for file in ["lib/lib.go", "lib/lib_test.go", "app/main.go"] {
        let content = std::fs::read_to_string(dir.path().join(file)).unwrap();
        for (index, line) in content.lines().enumerate() {
            if !line.trim_start().starts_with("//") && line.split(|c: char| !c.is_alphanumeric()).any(|word| word == "Every") {
                grep.push(format!("{file}:{}", index + 1));
            }
        }
    }
    assert_eq!(grep, vec!["lib/lib.go:4", "lib/lib_test.go:6", "app/main.go:10"]);
    assert!(text.contains("3 references in 3 files"), "the count does not match grep's 3:\n{text}");
    // The answer lists `file (count):` then `  line: text` per reference.
    let mut listed: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(file) = line.strip_suffix("):").and_then(|head| head.rsplit_once(" (")).map(|(file, _)| file) {
            current = file.to_owned();
        } else if let Some((number, _)) = line.strip_prefix("  ").and_then(|rest| rest.split_once(": ")) {
            if number.chars().all(|c| c.is_ascii_digit()) {
                listed.push(format!("{current}:{number}"));
            }
        }
    }
    listed.sort();
    let mut expected = grep.clone();
    expected.sort();
    assert_eq!(listed, expected, "the references differ from grep's (trial27b F1):\n{text}");
    assert!(text.contains("also searched app"), "the answer does not say the consumer root was searched:\n{text}");
}

/// `go build ./... && go vet ./...` in `dir` (vet compiles the tests too): `Some(true)` when both
/// pass, `None` without `go`.
fn go_builds_and_vets(dir: &Path) -> Option<bool> {
    which::which("go").ok()?;
    let run = |args: &[&str]| {
        Command::new("go").args(args).current_dir(dir).env("GOFLAGS", "-mod=mod").env("GOPROXY", "off").output().map(|o| o.status.success())
    };
    Some(run(&["build", "./..."]).ok()? && run(&["vet", "./..."]).ok()?)
}

/// Whole-word occurrences of `word` in code (before any `//`) under `dir`, in files ending with
/// `extension` (`target*` directories skipped), as `file:line` relative to `dir`.
fn word_left(dir: &Path, extension: &str, word: &str) -> Vec<String> {
    let mut left = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.file_name().is_some_and(|name| name.to_string_lossy().starts_with("target")) {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == extension) {
                let text = std::fs::read_to_string(&path).unwrap();
                for (index, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    if code.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == word) {
                        left.push(format!("{}:{}", path.strip_prefix(dir).unwrap().display(), index + 1));
                    }
                }
            }
        }
    }
    left.sort();
    left
}

#[test]
fn a_rename_started_in_the_consumer_is_computed_by_the_library_modules_gopls_too() {
    let test = "a_rename_started_in_the_consumer_is_computed_by_the_library_modules_gopls_too";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = two_module_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    // Cold: neither server runs yet; the library's starts for the rename.
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "app/main.go", "line": 10, "symbol": "Every", "new_name": "Twice", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    // Ground truth before: the test's use that app's gopls does not load (it loads lib without
    // its _test.go files) is renamed by lib's own gopls.
    assert!(text.contains("lib/lib_test.go") && text.contains("lib/lib.go") && text.contains("app/main.go"), "{text}");
    assert!(
        !text.contains("NOT complete") && !text.contains("NOT asked"),
        "the rename through the owning root is said incomplete:\n{text}"
    );
    assert!(text.contains("renamed across 2 project roots of gopls") && text.contains("lib (it owns the definition)"), "{text}");
    let edit_id = preview.structured_content.clone().unwrap()["edit_id"].as_str().unwrap().to_owned();
    let accept = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let text = accept.joined_text();
    assert!(!accept.is_error, "{text}");
    // Ground truth after: both modules build and vet (tests compiled), and no code use is left.
    assert_eq!(word_left(dir.path(), "go", "Every"), Vec::<String>::new(), "{text}");
    assert_ne!(go_builds_and_vets(&dir.path().join("lib")), Some(false), "lib does not build/vet after the rename:\n{text}");
    assert_ne!(go_builds_and_vets(&dir.path().join("app")), Some(false), "app does not build/vet after the rename:\n{text}");
    assert!(!text.contains("lib_test.go:6") && !text.contains("main.go:10: error"), "a break reported after a complete rename:\n{text}");
}

#[test]
fn a_rename_started_in_the_library_module_renames_the_consumer_modules_uses() {
    let test = "a_rename_started_in_the_library_module_renames_the_consumer_modules_uses";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = two_module_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "lib/lib.go", "line": 4, "symbol": "Every", "new_name": "Twice"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("app/main.go") && text.contains("lib/lib_test.go"), "the consumer's use was not renamed:\n{text}");
    assert!(!text.contains("NOT complete") && !text.contains("NOT asked"), "{text}");
    assert_eq!(word_left(dir.path(), "go", "Every"), Vec::<String>::new(), "{text}");
    assert_ne!(go_builds_and_vets(&dir.path().join("lib")), Some(false), "{text}");
    assert_ne!(go_builds_and_vets(&dir.path().join("app")), Some(false), "{text}");
}

#[test]
fn a_hand_edit_in_the_library_module_reaches_the_consumer_modules_gopls() {
    let test = "a_hand_edit_in_the_library_module_reaches_the_consumer_modules_gopls";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = two_module_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let before = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
    let text = before.joined_text();
    assert!(!before.is_error && text.contains("no errors"), "the consumer is not clean before the edit:\n{text}");
    // Changed outside the tools (a `cp` over the file), under the OTHER root: only app's
    // gopls reads it (as its replaced dependency), and nothing but a scan tells it.
    let library = dir.path().join("lib/lib.go");
    for round in 0..2 {
        std::fs::write(&library, LIB_GO.replace("func Every(n int) int {", "func Every(n int, times int) int {")).unwrap();
        assert_ne!(go_vet_clean(&dir.path().join("app")), Some(true), "ground truth: the consumer should no longer vet clean");
        let broken = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
        let text = broken.joined_text();
        assert!(
            !broken.is_error && text.contains("main.go:10") && text.contains("not enough arguments"),
            "round {round}: the consumer's gopls answers from the library's old text after a hand edit:\n{text}"
        );
        let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "app/main.go", "line": 10, "symbol": "Every"}));
        assert!(hover.joined_text().contains("times int"), "round {round}: {}", hover.joined_text());
        std::fs::write(&library, LIB_GO).unwrap();
        let fixed = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
        let text = fixed.joined_text();
        assert!(
            !fixed.is_error && text.contains("no errors") && !text.contains("not enough arguments"),
            "round {round}: the consumer keeps the error after the library was restored by hand:\n{text}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The same with rust-analyzer (session 24, rootrename24): a library crate `lib/` (package
// `mylib`) and a consumer crate `app/` that names it with `mylib = { path = "../lib" }`, each its
// own cargo workspace (two project roots, two rust-analyzers). Ground truth: `cargo check` /
// `cargo build` / `cargo test` in each crate.

const RUST_LIB_RS: &str = "/// Doubles `n`.\npub fn every(n: u32) -> u32 {\n    n * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn doubles() {\n        assert_eq!(super::every(2), 4);\n    }\n}\n";
const RUST_APP_MAIN_RS: &str = "fn main() {\n    println!(\"{}\", mylib::every(21));\n}\n";

fn two_crate_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("lib/Cargo.toml", "[package]\nname = \"mylib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("lib/src/lib.rs", RUST_LIB_RS),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nmylib = { path = \"../lib\" }\n",
        ),
        ("app/src/main.rs", RUST_APP_MAIN_RS),
    ])
}

/// A run whose rust-analyzers build into the workspace's `target/` (the test binary's own
/// `CARGO_TARGET_DIR` would otherwise be inherited), with room for cold servers.
fn rust_run(workspace: &Path) -> runbound::Run {
    let target = workspace.join("target");
    let mut config = runbound::RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(120);
    config.lsp.write_diagnostics_check_budget = std::time::Duration::from_secs(240);
    config.lsp.indexing_wait = std::time::Duration::from_secs(180);
    // A loaded machine (load average 14-18) makes the consumer's cargo check after a library
    // change take longer than the default 30 s.
    config.lsp.diagnostics_wait = std::time::Duration::from_secs(120);
    for tool in ["write", "edit", "lsp_rename", "resolve"] {
        config.tool_timeouts.insert(tool.to_owned(), std::time::Duration::from_secs(300));
    }
    let mut server =
        runbound::lsp::builtin_servers().into_iter().find(|server| server.id == "rust-analyzer").expect("built-in rust-analyzer");
    server.env.push(("CARGO_TARGET_DIR".to_owned(), target.to_str().unwrap().to_owned()));
    config.lsp.servers.push(server);
    support::lsp_run_allowing_writes_with_config(workspace, config)
}

/// `cargo <args>` in `dir` (a crate of the workspace) with its own target dir under the
/// workspace's `target/`: `Some(success)`, `None` without cargo.
fn cargo_succeeds(dir: &Path, args: &[&str]) -> Option<bool> {
    which::which("cargo").ok()?;
    let output = Command::new("cargo")
        .args(args)
        .arg("--offline")
        .arg("--quiet")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.parent().unwrap().join("target/ground-truth").join(dir.file_name().unwrap()))
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .ok()?;
    Some(output.status.success())
}

fn require_rust(test: &str) -> bool {
    support::require_binary(test, "rust-analyzer").is_some() && support::require_binary(test, "cargo").is_some()
}

/// The `file:line` pairs of an `lsp references` answer (`file (count):` then `  line: text`).
fn listed_references(text: &str) -> Vec<String> {
    let mut listed: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(file) = line.strip_suffix("):").and_then(|head| head.rsplit_once(" (")).map(|(file, _)| file) {
            current = file.to_owned();
        } else if let Some((number, _)) = line.strip_prefix("  ").and_then(|rest| rest.split_once(": ")) {
            if number.chars().all(|c| c.is_ascii_digit()) {
                listed.push(format!("{current}:{number}"));
            }
        }
    }
    listed.sort();
    listed
}

/// Whole-word uses of `word` in `files` (comment lines aside), as `file:line`, sorted.
fn grep_uses(dir: &Path, files: &[&str], word: &str) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let content = std::fs::read_to_string(dir.join(file)).unwrap();
        for (index, line) in content.lines().enumerate() {
            if !line.trim_start().starts_with("//") && line.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == word) {
                found.push(format!("{file}:{}", index + 1));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn rust_references_in_the_library_crate_include_the_consumer_crates_uses() {
    let test = "rust_references_in_the_library_crate_include_the_consumer_crates_uses";
    if !require_rust(test) {
        return;
    }
    let dir = two_crate_workspace();
    let run = rust_run(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "lib/src/lib.rs", "line": 2, "symbol": "every"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Ground truth: grep -w (the declaration is listed too: includeDeclaration).
    let grep = grep_uses(dir.path(), &["lib/src/lib.rs", "app/src/main.rs"], "every");
    assert_eq!(grep, vec!["app/src/main.rs:2", "lib/src/lib.rs:10", "lib/src/lib.rs:2"], "the fixture changed");
    assert_eq!(listed_references(&text), grep, "the references differ from grep's (the consumer crate's use missing?):\n{text}");
    assert!(text.contains("also searched app"), "the answer does not say the consumer root was searched:\n{text}");
}

#[test]
fn rust_references_in_one_cargo_workspace_of_both_crates_need_no_second_server() {
    let test = "rust_references_in_one_cargo_workspace_of_both_crates_need_no_second_server";
    if !require_rust(test) {
        return;
    }
    // The same two crates as members of one cargo workspace: one root, one rust-analyzer.
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"lib\", \"app\"]\nresolver = \"2\"\n"),
        ("lib/Cargo.toml", "[package]\nname = \"mylib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("lib/src/lib.rs", RUST_LIB_RS),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nmylib = { path = \"../lib\" }\n",
        ),
        ("app/src/main.rs", RUST_APP_MAIN_RS),
    ]);
    let run = rust_run(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "lib/src/lib.rs", "line": 2, "symbol": "every"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let expected = vec!["app/src/main.rs:2".to_owned(), "lib/src/lib.rs:10".to_owned(), "lib/src/lib.rs:2".to_owned()];
    assert_eq!(listed_references(&text), expected, "{text}");
    // The member crate's manifest names `../lib`, but `app` is no root of its own here: no
    // second server is started for it, and nothing is said as "also searched".
    assert!(!text.contains("also searched") && !text.contains("NOT searched"), "{text}");
    let status = run.call(Caller::Main, "lsp", json!({"op": "status"})).joined_text();
    assert_eq!(status.matches("running pid").count(), 1, "one rust-analyzer for the cargo workspace:\n{status}");
}

/// `lsp diagnostics app/src/main.rs` after a change in the library crate: the answer's text, or
/// the "diagnostics unavailable … NOT checked" error's (said loudly: under load the consumer's
/// cargo check may not qualify in the budget, and then no error from before the change may be
/// shown — issue 11 §5).
fn consumer_diagnostics_after_change(run: &runbound::Run, test: &str) -> String {
    let answer = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/src/main.rs"}));
    let text = answer.joined_text();
    if answer.is_error {
        assert!(
            text.contains("diagnostics unavailable") && text.contains("NOT checked"),
            "an error that is no \"NOT checked\" answer:\n{text}"
        );
        eprintln!("{test}: the consumer's diagnostics after the change were NOT checked in the budget (loaded machine?):\n{text}");
    }
    text
}

#[test]
fn rust_a_write_in_the_library_crate_reaches_the_consumer_crates_rust_analyzer() {
    let test = "rust_a_write_in_the_library_crate_reaches_the_consumer_crates_rust_analyzer";
    if !require_rust(test) {
        return;
    }
    let dir = two_crate_workspace();
    let run = rust_run(dir.path());
    let app = dir.path().join("app");
    assert_eq!(cargo_succeeds(&app, &["check"]), Some(true), "the fixture's app does not check clean");
    let lib = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "lib/src/lib.rs"}));
    assert!(!lib.is_error, "{}", lib.joined_text());
    let before = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/src/main.rs"}));
    let text = before.joined_text();
    assert!(!before.is_error && text.contains("no errors"), "the consumer is not clean before the write:\n{text}");
    // The library's function gets a second parameter: the consumer's call breaks.
    let edit = run.call(
        Caller::Main,
        "edit",
        json!({"path": "lib/src/lib.rs", "old_string": "pub fn every(n: u32) -> u32 {", "new_string": "pub fn every(n: u32, times: u32) -> u32 {"}),
    );
    assert!(!edit.is_error, "{}", edit.joined_text());
    assert_eq!(cargo_succeeds(&app, &["check"]), Some(false), "ground truth: the consumer should no longer check");
    let broken = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/src/main.rs"}));
    let text = broken.joined_text();
    assert!(!broken.is_error, "{text}");
    // (cargo check's E0061, rust-analyzer's own "expected 2 arguments, found 1".)
    assert!(
        text.contains("main.rs:2: error") && (text.contains("E0061") || text.contains("expected 2 arguments")),
        "the consumer's rust-analyzer still answers from the library's old text:\n{text}"
    );
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "app/src/main.rs", "line": 2, "symbol": "every"}));
    let text = hover.joined_text();
    assert!(text.contains("times: u32"), "the consumer's hover shows the old signature:\n{text}");
    let fix = run.call(
        Caller::Main,
        "edit",
        json!({"path": "lib/src/lib.rs", "old_string": "pub fn every(n: u32, times: u32) -> u32 {", "new_string": "pub fn every(n: u32) -> u32 {"}),
    );
    assert!(!fix.is_error, "{}", fix.joined_text());
    assert_eq!(cargo_succeeds(&app, &["check"]), Some(true), "ground truth: the consumer checks clean again");
    let text = consumer_diagnostics_after_change(&run, test);
    assert!(
        text.contains("NOT checked") || (text.contains("no errors") && !text.contains("main.rs:2: error")),
        "the consumer keeps a phantom error after the library's fix:\n{text}"
    );
    assert!(!text.contains("main.rs:2: error"), "the fixed error is shown as current:\n{text}");
    // The same change made outside the tools (a plain write over the file, as `cp` or `git
    // checkout` would): app's rust-analyzer learns of it before its next answer (issue 11 §5).
    let library = dir.path().join("lib/src/lib.rs");
    std::fs::write(&library, RUST_LIB_RS.replace("pub fn every(n: u32) -> u32 {", "pub fn every(n: u32, times: u32) -> u32 {")).unwrap();
    assert_eq!(cargo_succeeds(&app, &["check"]), Some(false), "ground truth: the consumer should no longer check");
    let broken = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "app/src/main.rs"}));
    let text = broken.joined_text();
    assert!(
        !broken.is_error && text.contains("main.rs:2: error") && (text.contains("E0061") || text.contains("expected 2 arguments")),
        "the consumer's rust-analyzer answers from the library's old text after a hand edit:\n{text}"
    );
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "app/src/main.rs", "line": 2, "symbol": "every"}));
    assert!(hover.joined_text().contains("times: u32"), "hover after the hand edit:\n{}", hover.joined_text());
    std::fs::write(&library, RUST_LIB_RS).unwrap();
    let text = consumer_diagnostics_after_change(&run, test);
    assert!(
        text.contains("NOT checked") || (text.contains("no errors") && !text.contains("main.rs:2: error")),
        "the consumer keeps the error after the library was restored by hand:\n{text}"
    );
    assert!(!text.contains("main.rs:2: error"), "the fixed error is shown as current:\n{text}");
}

#[test]
fn rust_a_rename_started_in_the_consumer_crate_is_computed_by_the_library_crates_rust_analyzer_too() {
    let test = "rust_a_rename_started_in_the_consumer_crate_is_computed_by_the_library_crates_rust_analyzer_too";
    if !require_rust(test) {
        return;
    }
    let dir = two_crate_workspace();
    let run = rust_run(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "app/src/main.rs", "line": 2, "symbol": "every", "new_name": "twice", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        !text.contains("NOT complete") && !text.contains("NOT asked"),
        "the rename through the owning root is said incomplete:\n{text}"
    );
    assert!(text.contains("renamed across 2 project roots of rust-analyzer") && text.contains("lib (it owns the definition)"), "{text}");
    let edit_id = preview.structured_content.clone().unwrap()["edit_id"].as_str().unwrap().to_owned();
    let accept = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let text = accept.joined_text();
    assert!(!accept.is_error, "{text}");
    // Ground truth: no code use of the old name is left (the library's test included), the
    // consumer builds and the library's tests pass.
    assert_eq!(word_left(dir.path(), "rs", "every"), Vec::<String>::new(), "{text}");
    assert_eq!(cargo_succeeds(&dir.path().join("app"), &["build"]), Some(true), "app does not build after the rename:\n{text}");
    assert_eq!(cargo_succeeds(&dir.path().join("lib"), &["test"]), Some(true), "lib's tests fail after the rename:\n{text}");
}
