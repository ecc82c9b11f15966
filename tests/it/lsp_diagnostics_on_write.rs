//! Diagnostics on write (R-DOW-1) and the new-only ledger (R-DOW-2) against real language
//! servers: pyright, typescript-language-server, gopls, clangd-19 and rust-analyzer.
//!
//! One run per language; the scenario walks the ledger rules in order: pre-existing errors are
//! not new, a type error is reported, an unrelated write does not repeat it, a move of four lines
//! does not repeat it, a second instance of the same message is new, fix then reintroduce is
//! reported again. A missing server skips loudly locally and fails under `CI`.

use crate::support;

use std::time::Duration;

use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig};
use serde_json::{json, Value};

fn write(run: &Run, path: &str, content: &str) -> String {
    let result = run.call(Caller::Main, "write", json!({"path": path, "content": content}));
    let text = result.joined_text();
    assert!(!result.is_error, "write {path} failed:\n{text}");
    text
}

fn dow(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

/// A language's scenario: the file, its clean body, an error line (`{}` = variable name) and
/// the fragment of the error message.
struct Scenario {
    test: &'static str,
    binary: &'static str,
    files: Vec<(&'static str, &'static str)>,
    file: &'static str,
    header: &'static str,
    error_line: &'static str,
    fragment: &'static str,
    preexisting_file: &'static str,
    preexisting_content: &'static str,
}

fn body(s: &Scenario, padding: usize, errors: &[&str]) -> String {
    let mut text = s.header.to_owned();
    for _ in 0..padding {
        text.push('\n');
    }
    for name in errors {
        text.push_str(&s.error_line.replace("{}", name));
        text.push('\n');
    }
    text
}

fn run_scenario(s: &Scenario) {
    if support::require_binary(s.test, s.binary).is_none() {
        return;
    }
    let dir = support::workspace_with(&s.files);
    let run = support::lsp_run_allowing_writes(dir.path());
    // Pre-existing errors are not new on the first write.
    let appended = format!("{}\n", s.preexisting_content);
    let text = write(&run, s.preexisting_file, &appended);
    assert!(text.lines().next().unwrap().to_lowercase().contains("wrote") || !text.starts_with("Diagnostics"), "{text}");
    assert!(dow(&text).contains("no new errors"), "pre-existing errors reported as new:\n{text}");
    // A type error is reported, with its line.
    let text = write(&run, s.file, &body(s, 0, &["a"]));
    let block = dow(&text);
    assert!(block.contains("new diagnostics introduced by this write (1,") && block.contains(s.fragment), "error not reported:\n{text}");
    let error_line = s.header.lines().count() + 1;
    assert!(block.contains(&format!(":{error_line}: error")), "wrong line (expected {error_line}):\n{text}");
    // An unrelated write (same error still there) does not repeat it.
    let text = write(&run, s.file, &format!("{}\n", body(s, 0, &["a"])));
    assert!(dow(&text).contains("no new errors"), "repeated:\n{text}");
    // The error reported by the write before is named as still there and part of the count.
    let still_there =
        format!("was reported as new by an earlier write in this run and is still there (not fixed since): {}:{error_line}", s.file);
    assert!(dow(&text).contains(&still_there), "{text}");
    // Moved down four lines: not new.
    let text = write(&run, s.file, &body(s, 4, &["a"]));
    assert!(dow(&text).contains("no new errors"), "moved error reported again:\n{text}");
    // The same message twice: the second is new.
    let text = write(&run, s.file, &body(s, 4, &["a", "b"]));
    assert!(dow(&text).contains("new diagnostics introduced by this write (1,"), "second instance not new:\n{text}");
    // Fix, then reintroduce: reported again.
    let text = write(&run, s.file, &body(s, 0, &[]));
    assert!(dow(&text).contains("no new errors") && !dow(&text).contains("unresolved"), "after fix:\n{text}");
    let text = write(&run, s.file, &body(s, 0, &["a"]));
    assert!(
        dow(&text).contains("new diagnostics introduced by this write (1,") && dow(&text).contains(s.fragment),
        "reintroduced not reported:\n{text}"
    );
}

#[test]
fn pyright_ledger_scenario_and_crash() {
    let s = Scenario {
        test: "pyright_ledger_scenario_and_crash",
        binary: "pyright-langserver",
        files: vec![
            ("pyproject.toml", "[project]\nname = \"dow\"\nversion = \"0.1.0\"\n"),
            ("old.py", "old: int = \"pre-existing\"\n"),
            ("app.py", ""),
        ],
        file: "app.py",
        header: "def f() -> int:\n    return 1\n",
        error_line: "{}: int = \"text\"",
        fragment: "is not assignable to declared type \"int\"",
        preexisting_file: "old.py",
        preexisting_content: "old: int = \"pre-existing\"\nfine = 1",
    };
    run_scenario(&s);
    if support::require_binary("pyright_ledger_scenario_and_crash", "pyright-langserver").is_none() {
        return;
    }
    // A server killed before the write → unavailable: crashed; the next write works again.
    let dir = support::workspace_with(&s.files);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = write(&run, "app.py", "x = 1\n");
    assert!(dow(&text).contains("no new errors"), "{text}");
    let status = run.call(Caller::Main, "lsp", json!({"op": "status"})).structured_content.unwrap();
    let pid = find_pid(&status, "pyright").expect("pyright running");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    assert!(support::wait_until(Duration::from_secs(5), || {
        let status = run.call(Caller::Main, "lsp", json!({"op": "status"})).structured_content.unwrap();
        status.to_string().contains("exited")
    }));
    let text = write(&run, "app.py", "x: int = \"s\"\n");
    // Either the crash is seen at the write (unavailable: crashed) or the server was restarted
    // for the check and the block says it crashed; never a silent clean.
    assert!(dow(&text).contains("crashed"), "{text}");
    assert!(dow(&text).contains("unavailable") || dow(&text).contains("is not assignable"), "{text}");
    let text = write(&run, "app.py", "x: int = \"s\"\ny = 2\n");
    assert!(!dow(&text).contains("unavailable"), "after restart:\n{text}");
}

fn find_pid(status: &Value, id: &str) -> Option<u64> {
    status["servers"]
        .as_array()?
        .iter()
        .filter(|s| s["id"] == id)
        .flat_map(|s| s["roots"].as_array().cloned().unwrap_or_default())
        .find_map(|r| r["running"]["pid"].as_u64())
}

#[test]
fn typescript_ledger_scenario() {
    run_scenario(&Scenario {
        test: "typescript_ledger_scenario",
        binary: "typescript-language-server",
        files: vec![
            ("package.json", "{\"name\": \"dow\", \"version\": \"1.0.0\"}\n"),
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
            ("src/old.ts", "export const old: number = \"pre\";\n"),
            ("src/app.ts", "export {};\n"),
        ],
        file: "src/app.ts",
        header: "export function f(): number {\n  return 1;\n}\n",
        error_line: "export const {}: number = \"text\";",
        fragment: "[2322]",
        preexisting_file: "src/old.ts",
        preexisting_content: "export const old: number = \"pre\";\nexport const fine = 1;",
    });
}

#[test]
fn gopls_ledger_scenario() {
    run_scenario(&Scenario {
        test: "gopls_ledger_scenario",
        binary: "gopls",
        files: vec![
            ("go.mod", "module example.com/dow\n\ngo 1.19\n"),
            ("old.go", "package dow\n\nvar old int = \"pre\"\n"),
            ("app.go", "package dow\n"),
        ],
        file: "app.go",
        header: "package dow\n\nfunc F() int {\n\treturn 1\n}\n",
        error_line: "var {} int = \"text\"",
        fragment: "cannot use \"text\"",
        preexisting_file: "old.go",
        preexisting_content: "package dow\n\nvar old int = \"pre\"\n\nvar fine = 1",
    });
}

#[test]
fn clangd_ledger_scenario() {
    run_scenario(&Scenario {
        test: "clangd_ledger_scenario",
        binary: "clangd-19",
        files: vec![("compile_flags.txt", "-std=c11\n"), ("old.c", "int old = missing_pre;\n"), ("app.c", "int z;\n")],
        file: "app.c",
        header: "int f(void) {\n  return 1;\n}\n",
        error_line: "int {} = nope;",
        fragment: "undeclared identifier 'nope'",
        preexisting_file: "old.c",
        preexisting_content: "int old = missing_pre;\nint fine = 1;",
    });
}

#[test]
fn rust_analyzer_stale_publish_gives_no_phantom_errors() {
    run_scenario(&Scenario {
        test: "rust_analyzer_stale_publish_gives_no_phantom_errors",
        binary: "rust-analyzer",
        files: vec![
            ("Cargo.toml", "[package]\nname = \"dow\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
            ("src/lib.rs", "pub mod app;\npub mod old;\n"),
            ("src/old.rs", "pub fn old() -> i32 { \"pre\" }\n"),
            ("src/app.rs", "\n"),
        ],
        file: "src/app.rs",
        header: "pub fn f() -> i32 {\n    1\n}\n",
        error_line: "pub const {}: i32 = \"text\";",
        fragment: "E0308",
        preexisting_file: "src/old.rs",
        preexisting_content: "pub fn old() -> i32 { \"pre\" }\npub fn fine() -> i32 { 1 }",
    });
}

#[test]
fn pyright_resolve_accept_seeds_the_ledger_before_writing() {
    if support::require_binary("pyright_resolve_accept_seeds_the_ledger_before_writing", "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"dow\"\nversion = \"0.1.0\"\n"),
        ("app.py", "old: int = \"pre-existing\"\n\n\ndef twice(x: int) -> int:\n    return 2 * x\n\n\nvalue = twice(1)\n"),
    ]);
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_secs(20);
    let run = Run::builder(dir.path())
        .config(config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .language_servers()
        .with_structural()
        .build()
        .expect("build run");
    let staged = run.call(
        Caller::Main,
        "ast_edit",
        json!({"pattern": "twice(1)", "rewrite": "twice(\"one\")", "path": "app.py", "language": "python"}),
    );
    let staged_text = staged.joined_text();
    assert!(!staged.is_error && staged_text.contains("edit_1"), "{staged_text}");
    // Nothing was written by staging, so nothing was checked yet.
    assert!(!staged_text.contains("Diagnostics after the write"), "{staged_text}");
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let block = dow(&text);
    // The new error is reported; the pre-existing one is not, and the file had a baseline.
    assert!(block.contains("app.py: new diagnostics introduced by this write (1, pyright)"), "{text}");
    assert!(block.contains("app.py:8: error[reportArgumentType]"), "{text}");
    assert!(!block.contains("pre-existing") && !block.contains("reportAssignmentType"), "pre-existing error reported as new:\n{text}");
    assert!(!block.contains("no recorded pre-write state"), "resolve accept did not seed the ledger:\n{text}");
}

#[test]
fn gopls_write_to_a_file_its_build_constraints_exclude_says_not_checked() {
    if support::require_binary("gopls_write_to_a_file_its_build_constraints_exclude_says_not_checked", "gopls").is_none() {
        return;
    }
    // The trial on google/uuid: node_js.go (`// +build js`) broken by a write was called
    // "no new errors (gopls)" while gopls builds it under no package ("No packages found").
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/tags\n\ngo 1.19\n"),
        ("node.go", "package tags\n\nfunc Interface() string {\n\treturn hardware()\n}\n"),
        ("node_net.go", "//go:build !js\n\npackage tags\n\nfunc hardware() string { return \"eth0\" }\n"),
        ("node_js.go", "//go:build js\n\npackage tags\n\nfunc hardware() string { return \"\" }\n"),
        ("extra_debug.go", "//go:build debugtrace\n\npackage tags\n\nfunc trace() string { return \"\" }\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    // A write that breaks node_js.go (too many return values under GOOS=js).
    let text = write(&run, "node_js.go", "//go:build js\n\npackage tags\n\nfunc hardware() string { return \"\", 3 }\n");
    let block = dow(&text);
    assert!(!block.contains("no new errors"), "a clean claim for a file gopls does not build:\n{text}");
    assert!(block.contains("node_js.go: NOT checked: gopls does not build node_js.go under the current GOOS="), "{text}");
    assert!(block.contains("`//go:build js`"), "the constraint is quoted:\n{text}");
    assert!(block.contains("next step: run `GOOS=js GOARCH=wasm go vet .`"), "the next step is named:\n{text}");
    assert!(block.contains("checked: nothing: node_js.go is not built by gopls"), "{text}");
    // A tag that is not a GOOS: the next step passes it with -tags.
    let text = write(&run, "extra_debug.go", "//go:build debugtrace\n\npackage tags\n\nfunc trace() string { return 1 }\n");
    let block = dow(&text);
    assert!(block.contains("next step: run `go vet -tags=debugtrace .`"), "{text}");
    assert!(!block.contains("no new errors"), "{text}");
    // A file gopls builds is still checked and its error reported.
    let text = write(&run, "node_net.go", "//go:build !js\n\npackage tags\n\nfunc hardware() string { return 1 }\n");
    let block = dow(&text);
    assert!(block.contains("node_net.go: new diagnostics introduced by this write (1, gopls):"), "{text}");
    assert!(!block.contains("NOT checked"), "{text}");
}

#[test]
fn pyright_staged_multi_file_change_gets_every_written_files_diagnostics_on_accept() {
    // trial27a M2: a `resolve accept` writing several Python files spent pyright's whole budget
    // on the states before the write and got no file's diagnostics. The states before the write
    // are now taken while the change waits for `resolve` (pyright running): the accept must
    // still tell each file's new error from its pre-existing one, for every written file.
    if support::require_binary("pyright_staged_multi_file_change_gets_every_written_files_diagnostics_on_accept", "pyright-langserver")
        .is_none()
    {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"multi\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/core.py", "old_core: int = \"pre-existing\"\n\n\ndef twice(x: int) -> int:\n    return 2 * x\n\n\nvalue = twice(1)\n"),
        ("pkg/extra.py", "from pkg.core import twice\n\nold_extra: str = 3\n\n\ndef more() -> int:\n    return twice(1) + 1\n"),
        ("pkg/third.py", "from pkg.core import twice\n\n\ndef third() -> int:\n    return twice(1) * 3\n"),
    ]);
    let run = Run::builder(dir.path())
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .language_servers()
        .with_structural()
        .build()
        .expect("build run");
    // pyright runs before the change is staged (the states are taken by running servers only).
    let outline = run.call(Caller::Main, "lsp", json!({"op": "symbols", "file": "pkg/core.py"}));
    assert!(!outline.is_error, "{}", outline.joined_text());
    let staged = run.call(
        Caller::Main,
        "ast_edit",
        json!({"pattern": "twice(1)", "rewrite": "twice(\"one\")", "path": "pkg", "language": "python"}),
    );
    let staged_text = staged.joined_text();
    assert!(!staged.is_error && staged_text.contains("edit_1") && staged_text.contains("3 files"), "{staged_text}");
    // Time for the states to be taken ahead, as between a preview and its accept (not asserted:
    // the answer must be the same whether they were or not).
    std::thread::sleep(Duration::from_secs(5));
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let block = dow(&text);
    for (file, line) in [("pkg/core.py", 8), ("pkg/extra.py", 7), ("pkg/third.py", 5)] {
        assert!(block.contains(&format!("{file}: new diagnostics introduced by this write (1, pyright)")), "{file}:\n{text}");
        assert!(block.contains(&format!("{file}:{line}: error[reportArgumentType]")), "{file}:{line}:\n{text}");
    }
    assert!(!block.contains("unavailable") && !block.contains("NOT checked: pkg/"), "a written file was not checked:\n{text}");
    assert!(!block.contains("reportAssignmentType"), "a pre-existing error was reported as new:\n{text}");
    let structured = result.structured_content.expect("structured content");
    let servers = structured["diagnostics_on_write"]["servers"].as_array().expect("servers").clone();
    let pyright = servers.iter().find(|server| server["server"] == "pyright").expect("pyright's check");
    eprintln!("states reused on accept: {}, phases: {}", pyright["states_reused"], pyright["phases_ms"]);
}

#[test]
fn typescript_staged_multi_file_change_checks_every_written_file_and_names_importers_left() {
    // trial27a (issue 11 §3): a TypeScript `resolve accept` took its whole budget for the states
    // before the write (written files and every importer, one request after another) and ended
    // "no time left to send workspace/executeCommand" for the written files after it. The
    // written files' states come first on both sides now, the importers' share what is left of
    // each half, and those not reached are named, not called clean. Asserted: what is said — each
    // written file's new error, the pre-existing ones not new, no written file unavailable, each
    // written file's state taken on both sides, and the importer checked or named as not checked.
    if support::require_binary(
        "typescript_staged_multi_file_change_checks_every_written_file_and_names_importers_left",
        "typescript-language-server",
    )
    .is_none()
    {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"multi\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/core.ts", "export const oldCore: number = \"pre-existing\";\n\nexport function twice(x: number): number {\n  return 2 * x;\n}\n\nexport const value = twice(1);\n"),
        ("src/extra.ts", "import { twice } from \"./core\";\n\nexport const oldExtra: string = 3;\n\nexport function more(): number {\n  return twice(1) + 1;\n}\n"),
        ("src/third.ts", "import { twice } from \"./core\";\n\nexport function third(): number {\n  return twice(1) * 3;\n}\n"),
        // An importer the change does not write.
        ("src/user.ts", "import { value } from \"./core\";\n\nexport const doubled: number = value * 2;\n"),
    ]);
    let run = Run::builder(dir.path())
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .language_servers()
        .with_structural()
        .build()
        .expect("build run");
    // The server runs before the change is staged (states are taken ahead by running servers).
    let outline = run.call(Caller::Main, "lsp", json!({"op": "symbols", "file": "src/core.ts"}));
    assert!(!outline.is_error, "{}", outline.joined_text());
    // Every call of `twice` passes a string now: each written file gets a new error.
    let staged = run.call(
        Caller::Main,
        "ast_edit",
        json!({"pattern": "twice($A)", "rewrite": "twice(String($A))", "path": "src", "language": "typescript"}),
    );
    let staged_text = staged.joined_text();
    assert!(!staged.is_error && staged_text.contains("edit_1") && staged_text.contains("3 files"), "{staged_text}");
    std::thread::sleep(Duration::from_secs(3));
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let block = dow(&text);
    for file in ["src/core.ts", "src/extra.ts", "src/third.ts"] {
        assert!(block.contains(&format!("{file}: new diagnostics introduced by this write")), "{file}:\n{text}");
    }
    assert!(block.contains("[2345]"), "the new argument errors are listed:\n{text}");
    assert!(!block.contains("unavailable"), "a written file was not checked:\n{text}");
    // The pre-existing errors (TS2322 in core.ts and extra.ts) are not new.
    assert!(!block.contains("error[2322]"), "a pre-existing error was reported as new:\n{text}");
    let structured = result.structured_content.expect("structured content");
    let servers = structured["diagnostics_on_write"]["servers"].as_array().expect("servers").clone();
    let check = servers.iter().find(|server| server["server"] == "typescript-language-server").expect("the server's check");
    // user.ts imports core.ts: checked, or named as not checked — never left out silently.
    let user_checked =
        check["files"].as_array().expect("files").iter().any(|file| file["file"] == "src/user.ts" && file["status"] == "checked");
    let user_named = check["not_checked_out_of_budget"].as_array().is_some_and(|left| left.iter().any(|file| file == "src/user.ts"));
    assert!(user_checked || user_named, "the importer is neither checked nor named as not checked:\n{text}\n{check}");
    let waits = check["state_waits_ms"].as_array().expect("state waits");
    for file in ["src/core.ts", "src/extra.ts", "src/third.ts"] {
        for side in ["before", "after"] {
            assert!(
                waits.iter().any(|wait| wait["file"] == file && wait["side"] == side && wait["how"] != "failed"),
                "no {side} state for {file}: {waits:?}"
            );
        }
    }
    eprintln!("states reused on accept: {}, phases: {}", check["states_reused"], check["phases_ms"]);
}
