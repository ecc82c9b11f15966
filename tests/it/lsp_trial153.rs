//! Wrong answer from the fresh-user trial 153 (gorilla/mux), against the real gopls, on a fixture
//! of the same shape:
//! - F1: one write fixed one instance of an error and added another instance of the same error
//!   (same severity, code and message) elsewhere in the file: "no new errors", nothing resolved.
//!   The same changes as two writes said 1 new, then 1 resolved.
//!
//! Ground truth: `go build` in the module after the write.

use crate::support;

use serde_json::json;

const A_GO: &str = "package fx\n\nfunc f() {}\n\nfunc g() {\n\tf(1)\n\tf(1)\n}\n\nfunc h() {\n\tf()\n}\n";

fn block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

fn go_build(dir: &std::path::Path) -> String {
    let built = std::process::Command::new("go")
        .args(["build", "./..."])
        .current_dir(dir)
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run go build");
    assert!(!built.status.success());
    String::from_utf8_lossy(&built.stderr).into_owned()
}

#[test]
fn an_error_fixed_in_one_place_and_added_in_another_by_one_write_is_named_new_and_resolved() {
    let test = "lsp_trial153::an_error_fixed_in_one_place_and_added_in_another_by_one_write_is_named_new_and_resolved";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("go.mod", "module fx\n\ngo 1.19\n"), ("a.go", A_GO)]);
    // Ground truth before: the call at lines 6 and 7.
    let before = go_build(dir.path());
    assert!(before.contains("a.go:6:") && before.contains("a.go:7:") && before.contains("too many arguments in call to f"), "{before}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // One write: line 6's call fixed, the same wrong call added to h (line 12).
    let text = support::call_ok(
        &run,
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.go\n@@ func g() {\n-\tf(1)\n+\tf()\n \tf(1)\n@@ func h() {\n \tf()\n+\tf(1)\n }\n*** End Patch\n"}),
    );
    // Ground truth after: lines 7 (old) and 12 (new); line 6's is gone.
    let after = go_build(dir.path());
    assert!(after.contains("a.go:7:") && after.contains("a.go:12:") && !after.contains("a.go:6:"), "{after}");
    let dow = block(&text);
    let new = dow.split("a.go: new diagnostics introduced by this write (1, gopls):\n").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(new.starts_with("  a.go:12: error"), "line 12 is not the one named new:\n{text}");
    let resolved = dow.split("a.go: resolved by this write (1, gopls):\n").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(resolved.starts_with("  a.go:6: error"), "line 6 is not the one named resolved:\n{text}");
    assert!(!dow.contains("no new errors in a.go"), "{text}");
    // The next write (a comment above g, shifting both): line 12 is not new again, nor line 6
    // resolved again.
    let text =
        support::call_ok(&run, "edit", json!({"path": "a.go", "old_string": "func g() {", "new_string": "// g calls f.\nfunc g() {"}));
    let dow = block(&text);
    assert!(!dow.contains("new diagnostics introduced") && !dow.contains("resolved by this write"), "{text}");
    assert!(dow.contains("no new errors in a.go"), "{text}");
    let after = go_build(dir.path());
    assert!(after.contains("a.go:8:") && after.contains("a.go:13:"), "{after}");
}

/// Trial 153 M5: a file's new diagnostics past the cap per file read "showing 20 of 35" with no
/// way to the other 15: the block now says how many more and the call that lists them.
#[test]
fn new_diagnostics_past_the_cap_per_file_name_the_call_that_lists_them() {
    let test = "lsp_trial153::new_diagnostics_past_the_cap_per_file_name_the_call_that_lists_them";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let calls: String = (0..25).map(|_| "\tf()\n").collect();
    let source = format!("package fx\n\nfunc f() {{}}\n\nfunc g() {{\n{calls}}}\n");
    let dir = support::workspace_with(&[("go.mod", "module fx\n\ngo 1.19\n"), ("a.go", &source)]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "edit", json!({"path": "a.go", "old_string": "func f() {}", "new_string": "func f(n int) {}"}));
    // Ground truth: every call is an error.
    let built = std::process::Command::new("go")
        .args(["build", "-gcflags=-e", "./..."])
        .current_dir(dir.path())
        .env("GOPROXY", "off")
        .output()
        .expect("run go build");
    assert_eq!(String::from_utf8_lossy(&built.stderr).matches("not enough arguments in call to f").count(), 25);
    let block = block(&text);
    assert!(block.contains("a.go: new diagnostics introduced by this write (showing 20 of 25, gopls):"), "{block}");
    assert!(
        block.contains("  … 5 more not shown (at most 20 per file here): call lsp with {\"op\": \"diagnostics\", \"file\": \"a.go\"} for all of a.go's diagnostics"),
        "{block}"
    );
}
