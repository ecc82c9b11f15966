//! Wrong answers from the fresh-user trial 157 (hashicorp/golang-lru 0.5.4), against the real
//! gopls, on fixtures of the same shape:
//! - F1: one write fixed a `NewLRU(size, nil)` call in place and wrote a wrong `_, _ =
//!   NewLRU(size, nil)` call above it, in the same diff hunk: "no new errors", the added error
//!   listed among those "already present before this write".
//!
//! Ground truth: `go build` in the module after the write.

use crate::support;

use serde_json::json;

fn block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

fn go_build_errors(dir: &std::path::Path) -> String {
    let built = std::process::Command::new("go")
        .args(["build", "-gcflags=-e", "./..."])
        .current_dir(dir)
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run go build");
    String::from_utf8_lossy(&built.stderr).into_owned()
}

#[test]
fn a_wrong_call_written_beside_the_call_its_hunk_fixed_is_new_and_the_old_one_resolved() {
    let test = "lsp_trial157::a_wrong_call_written_beside_the_call_its_hunk_fixed_is_new_and_the_old_one_resolved";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        ("a.go", "package fx\n\nfunc f(a, b int) {}\n\nfunc g(x int) {\n\tf(x)\n}\n"),
    ]);
    assert!(go_build_errors(dir.path()).contains("a.go:6:"), "ground truth before: line 6's call is wrong");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text =
        support::call_ok(&run, "edit", json!({"path": "a.go", "old_string": "\tf(x)\n", "new_string": "\tf(len(\"a\"))\n\tf(x, 0)\n"}));
    // Ground truth after: the call the write added (line 6) is wrong, the fixed one (7) builds.
    let after = go_build_errors(dir.path());
    assert!(after.contains("a.go:6:") && !after.contains("a.go:7:"), "{after}");
    let dow = block(&text);
    let new = dow.split("a.go: new diagnostics introduced by this write (1, gopls):\n").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(new.starts_with("  a.go:6: error"), "line 6 is not the one named new:\n{text}");
    let resolved = dow.split("a.go: resolved by this write (1, gopls):\n").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(resolved.starts_with("  a.go:6: error"), "the old line 6 is not the one named resolved:\n{text}");
    assert!(!dow.contains("no new errors in a.go") && !dow.contains("already present before this write"), "{text}");
}
