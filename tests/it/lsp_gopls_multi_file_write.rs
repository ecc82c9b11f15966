//! Diagnostics on write for a write that spans files in gopls (trial22 F4): a correct rename of
//! a function used by an external test package (`package x_test`), an internal test and another
//! package must report no new error, run after run; a multi-file write that truly breaks a
//! written file must still report that error (and only it).
//!
//! gopls checks each written file as soon as its `didChange` arrives, against the written files
//! not synced yet: the callers, synced before the declaration, are "undeclared" in that snapshot,
//! and their first publish for the new version says so. Only the publishes after the diagnosis
//! passes over the whole write are its state.

use crate::support;

use std::path::Path;

use runbound::Caller;
use serde_json::json;

const DECLARATION: &str = "package x\n\n// Thing is built by New.\ntype Thing struct{ N int }\n\n// New builds a Thing.\nfunc New(n int) *Thing {\n\treturn &Thing{N: n}\n}\n";

/// The module: `x.go` declares `New`; 6 external test files, 1 internal test and 5 files of
/// package `app` call it (12 files; every caller sorts before `x.go`, so it is synced first).
fn module_files() -> Vec<(String, String)> {
    let mut files =
        vec![("go.mod".to_owned(), "module example.com/x\n\ngo 1.19\n".to_owned()), ("x.go".to_owned(), DECLARATION.to_owned())];
    for i in 1..=6 {
        files.push((
            format!("a{i}_test.go"),
            format!(
                "package x_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/x\"\n)\n\nfunc TestNew{i}(t *testing.T) {{\n\tif x.New({i}).N != {i} {{\n\t\tt.Fatal(\"wrong N\")\n\t}}\n}}\n"
            ),
        ));
    }
    files.push((
        "b_internal_test.go".to_owned(),
        "package x\n\nimport \"testing\"\n\nfunc TestInternal(t *testing.T) {\n\tif New(7).N != 7 {\n\t\tt.Fatal(\"wrong N\")\n\t}\n}\n"
            .to_owned(),
    ));
    for i in 1..=5 {
        files.push((
            format!("app/u{i}.go"),
            format!("package app\n\nimport \"example.com/x\"\n\n// U{i} uses x.New.\nfunc U{i}() int {{\n\treturn x.New({i}).N\n}}\n"),
        ));
    }
    files
}

fn restore(dir: &Path, files: &[(String, String)]) {
    for (file, content) in files {
        std::fs::write(dir.join(file), content).unwrap();
    }
}

#[test]
fn gopls_rename_used_by_an_external_test_package_reports_no_phantom_errors_five_times() {
    let test = "gopls_rename_used_by_an_external_test_package_reports_no_phantom_errors_five_times";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let files = module_files();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(file, content)| (file.as_str(), content.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    let run = support::lsp_run_allowing_writes(dir.path());
    let warm = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "x.go"}));
    assert!(!warm.is_error, "{}", warm.joined_text());
    let args = json!({"file": "x.go", "line": 7, "symbol": "New", "new_name": "NewThing"});
    for attempt in 1..=5 {
        let result = run.call(Caller::Main, "lsp_rename", args.clone());
        let text = result.joined_text();
        assert!(!result.is_error, "attempt {attempt}: rename failed:\n{text}");
        // The rename is right (the 13 files hold the new name everywhere): ground truth for
        // "no new error" is that each call site names the renamed declaration.
        assert!(
            std::fs::read_to_string(dir.path().join("x.go")).unwrap().contains("func NewThing(n int) *Thing"),
            "attempt {attempt}:\n{text}"
        );
        for (file, _) in files.iter().filter(|(file, _)| file.ends_with(".go") && file != "x.go") {
            let content = std::fs::read_to_string(dir.path().join(file)).unwrap();
            assert!(
                content.contains("NewThing(") && !content.contains("New("),
                "attempt {attempt}: {file} not renamed:\n{content}\n{text}"
            );
        }
        assert!(text.contains("Renamed `New` to `NewThing` (gopls)"), "attempt {attempt}:\n{text}");
        assert!(!text.contains("introduced"), "attempt {attempt}: a correct rename was reported to introduce errors:\n{text}");
        assert!(text.contains("no new errors in"), "attempt {attempt}: no clean verdict:\n{text}");
        assert!(text.contains("every package gopls re-checked"), "attempt {attempt}: the dependents were not checked:\n{text}");
        // Revert outside the tools, as `git checkout .` does.
        restore(dir.path(), &files);
    }
    // A write over several files that truly breaks one of them: the declaration and every caller
    // renamed, but app/u3.go's call misspelled. Exactly that error is new.
    let mut patch = String::from("*** Begin Patch\n*** Update File: x.go\n@@\n-// New builds a Thing.\n-func New(n int) *Thing {\n+// NewThing builds a Thing.\n+func NewThing(n int) *Thing {\n");
    for i in 1..=6 {
        patch.push_str(&format!("*** Update File: a{i}_test.go\n@@\n-\tif x.New({i}).N != {i} {{\n+\tif x.NewThing({i}).N != {i} {{\n"));
    }
    patch.push_str("*** Update File: b_internal_test.go\n@@\n-\tif New(7).N != 7 {\n+\tif NewThing(7).N != 7 {\n");
    for i in 1..=5 {
        let name = if i == 3 { "NewThng" } else { "NewThing" };
        patch.push_str(&format!("*** Update File: app/u{i}.go\n@@\n-\treturn x.New({i}).N\n+\treturn x.{name}({i}).N\n"));
    }
    patch.push_str("*** End Patch");
    let result = run.call(Caller::Main, "apply_patch", json!({"patch": patch}));
    let text = result.joined_text();
    assert!(!result.is_error, "patch failed:\n{text}");
    assert!(text.contains("this write introduced 1 new error in 1 file"), "the real break is not reported alone:\n{text}");
    assert!(text.contains("app/u3.go:7:") && text.contains("NewThng"), "the misspelled call is not named:\n{text}");
}

#[test]
fn gopls_multi_file_write_under_a_short_budget_never_reports_a_phantom_new_error() {
    let test = "gopls_multi_file_write_under_a_short_budget_never_reports_a_phantom_new_error";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let files = module_files();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(file, content)| (file.as_str(), content.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    // A short budget (at 150 ms nothing was published in time; at 220 ms 2 of 3 answers were
    // "not confirmed"; from 300 ms on the passes ended
    // in time, all here): any of a clean full check, an unfinished one said so ("not confirmed"), or
    // nothing obtained, but never a phantom new error and never a clean verdict from an
    // unfinished check. (Which of the three comes depends on the load; the count is printed.)
    let mut config = runbound::RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_millis(220);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    let warm = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "x.go"}));
    assert!(!warm.is_error, "{}", warm.joined_text());
    let args = json!({"file": "x.go", "line": 7, "symbol": "New", "new_name": "NewThing"});
    let mut unconfirmed = 0;
    for attempt in 1..=3 {
        let result = run.call(Caller::Main, "lsp_rename", args.clone());
        let text = result.joined_text();
        assert!(!result.is_error, "attempt {attempt}: rename failed:\n{text}");
        assert!(!text.contains("introduced"), "attempt {attempt}: a correct rename was reported to introduce errors:\n{text}");
        let clean = text.contains("no new errors in") && text.contains("every package gopls re-checked");
        let said_unfinished = text.contains("not confirmed")
            || text.contains("had not finished")
            || text.contains("nothing is known about errors after this write");
        assert!(clean || said_unfinished, "attempt {attempt}: neither a full clean check nor an unfinished one said:\n{text}");
        unconfirmed += usize::from(text.contains("not confirmed"));
        restore(dir.path(), &files);
    }
    eprintln!("{test}: {unconfirmed} of 3 answers said not confirmed");
}
