//! Wrong answers from the fresh-user trial 135 (mitchellh/reflectwalk 1.0.1 from Debian, with a
//! consumer module), against gopls and the Go toolchain, on a fixture of the same shape:
//! - F2: `symbols` with a `file` of the consumer said "no workspace symbols match" for a test
//!   type of the library, which the library root's gopls (running in the same run) lists.
//! - F1: renaming the consumer's `Counter.Enter`, which with `Exit` makes `*Counter` implement
//!   the library's `EnterExitWalker` (methods taking the library's `Location`), had no warning:
//!   gopls in the consumer root does not list that interface among the type's implementations,
//!   and `Walk`'s `w.(EnterExitWalker)` silently stopped matching.
//!
//! Ground truth: the fixture's packages build; where each symbol is declared is fixed by
//! construction.

use crate::support;

use serde_json::json;

#[test]
fn symbols_from_a_consumer_file_also_ask_the_library_roots_running_server() {
    let test = "lsp_trial135::symbols_from_a_consumer_file_also_ask_the_library_roots_running_server";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("walk/go.mod", "module example.com/walk\n\ngo 1.19\n"),
        ("walk/walk.go", "package walk\n\n// Walker visits values.\ntype Walker interface {\n\tVisit(v int) error\n}\n\n// Walk visits v.\nfunc Walk(v int, w Walker) error { return w.Visit(v) }\n"),
        ("walk/walk_test.go", "package walk\n\nimport \"testing\"\n\ntype TestCountingWalker struct{ n int }\n\nfunc (t *TestCountingWalker) Visit(v int) error { t.n += v; return nil }\n\nfunc TestWalk(t *testing.T) {\n\tw := &TestCountingWalker{}\n\t_ = Walk(2, w)\n\tif w.n != 2 {\n\t\tt.Fatal(w.n)\n\t}\n}\n"),
        ("consumer/go.mod", "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/walk v0.0.0\n\nreplace example.com/walk => ../walk\n"),
        ("consumer/app.go", "package consumer\n\nimport \"example.com/walk\"\n\ntype printer struct{}\n\nfunc (printer) Visit(v int) error { return nil }\n\n// Run walks 1.\nfunc Run() error { return walk.Walk(1, printer{}) }\n"),
    ]);
    assert!(support::go_offline(&dir.path().join("walk"), &["test", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["build", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    // The library root's server runs (any lsp call on a file there starts it).
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "walk/walk.go", "line": 4, "symbol": "Walker"}));
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "TestCountingWalker", "file": "consumer/app.go"}));
    assert!(text.contains("walk/walk_test.go:5"), "the library's test type is missing:\n{text}");
    assert!(text.contains("note: also asked the gopls already running for the workspace's other project root (walk)"), "{text}");
}

#[test]
fn renaming_a_consumer_method_that_satisfies_a_library_interface_is_warned_of() {
    let test = "lsp_trial135::renaming_a_consumer_method_that_satisfies_a_library_interface_is_warned_of";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("walk/go.mod", "module example.com/walk\n\ngo 1.19\n"),
        ("walk/location.go", "package walk\n\n// Location is where the walk is.\ntype Location uint\n\n// Map is a location.\nconst Map Location = 1\n"),
        ("walk/walk.go", "package walk\n\n// EnterExitWalker is told when the walk enters and exits a location.\ntype EnterExitWalker interface {\n\tEnter(Location) error\n\tExit(Location) error\n}\n\n// Walk walks v with w.\nfunc Walk(v int, w interface{}) error {\n\tif ew, ok := w.(EnterExitWalker); ok {\n\t\tif err := ew.Enter(Map); err != nil {\n\t\t\treturn err\n\t\t}\n\t\treturn ew.Exit(Map)\n\t}\n\treturn nil\n}\n"),
        ("consumer/go.mod", "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/walk v0.0.0\n\nreplace example.com/walk => ../walk\n"),
        ("consumer/counter.go", "package consumer\n\nimport \"example.com/walk\"\n\n// Counter counts entered locations.\ntype Counter struct{ Depth int }\n\nfunc (c *Counter) Enter(l walk.Location) error {\n\tc.Depth++\n\treturn nil\n}\n\nfunc (c *Counter) Exit(l walk.Location) error { return nil }\n\n// Count walks v.\nfunc Count(v int) int {\n\tc := &Counter{}\n\t_ = walk.Walk(v, c)\n\treturn c.Depth\n}\n"),
    ]);
    assert!(support::go_offline(&dir.path().join("consumer"), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "consumer/counter.go", "line": 8, "symbol": "Enter", "new_name": "Visit", "preview": true}),
    );
    assert!(
        text.contains(
            "WARNING: by its method names, the renamed method's type appears to implement `walk.EnterExitWalker.Enter` (walk/walk.go:5)"
        ),
        "the library interface the type satisfies is not said:\n{text}"
    );
}
