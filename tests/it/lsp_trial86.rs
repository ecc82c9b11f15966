//! Wrong answer from the fresh-user trial 86 (cenkalti/backoff v4), against the real gopls and go
//! command, on a fixture of the same shape:
//! - F1: renaming the interface method `BackOff.NextBackOff` said every implementation left with
//!   the old name "no longer implements the interface, so the build breaks"; `backOffContext`
//!   embeds `BackOff`, keeps implementing it through the promoted method, and its own
//!   `NextBackOff` silently stopped being called (the build passed, two tests failed).
//!
//! Ground truth: `go build` with every other implementation renamed.

use crate::support;

use serde_json::json;

const BACKOFF: &str = "package backoff\n\n// BackOff gives the next wait.\ntype BackOff interface {\n\tNextBackOff() int\n}\n\n// Zero waits not.\ntype Zero struct{}\n\n// NextBackOff is 0.\nfunc (z *Zero) NextBackOff() int { return 0 }\n";

const CONTEXT: &str = "package backoff\n\ntype backOffContext struct {\n\tBackOff\n\tdone bool\n}\n\nfunc (b *backOffContext) NextBackOff() int {\n\tif b.done {\n\t\treturn -1\n\t}\n\treturn b.BackOff.NextBackOff()\n}\n\n// WithStop wraps b.\nfunc WithStop(b BackOff) BackOff { return &backOffContext{BackOff: b, done: true} }\n";

#[test]
fn an_implementation_that_embeds_the_interface_is_said_to_keep_implementing_it() {
    let test = "lsp_trial86::an_implementation_that_embeds_the_interface_is_said_to_keep_implementing_it";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir =
        support::workspace_with(&[("go.mod", "module example.com/backoff\n\ngo 1.19\n"), ("backoff.go", BACKOFF), ("context.go", CONTEXT)]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "backoff.go", "line": 5, "symbol": "NextBackOff", "new_name": "Next", "preview": true}),
    );
    assert!(
        text.contains("WARNING: `backOffContext` (context.go:8) embeds `BackOff`: after this rename it still implements `BackOff`"),
        "{text}"
    );
    assert!(!text.contains("`Zero` (backoff.go:12) embeds"), "{text}");
    // Ground truth: with the interface and `Zero` renamed, `backOffContext` still builds as a
    // `BackOff` — through the promoted `Next`.
    std::fs::write(dir.path().join("backoff.go"), BACKOFF.replace("NextBackOff", "Next")).unwrap();
    std::fs::write(dir.path().join("context.go"), CONTEXT.replace("b.BackOff.NextBackOff()", "b.BackOff.Next()")).unwrap();
    let build = support::go_offline(dir.path(), &["build", "./..."]);
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
}

const TICKER: &str = "package backoff\n\n// Ticker ticks.\ntype Ticker struct{ C chan int }\n\n// NewTicker makes a Ticker.\nfunc NewTicker() *Ticker { return &Ticker{} }\n\n// Retry runs f.\nfunc Retry(f func() error) error { return f() }\n";

const EXAMPLES: &str = "package backoff_test\n\nimport (\n\t\"fmt\"\n\t\"time\"\n\n\t\"example.com/backoff\"\n)\n\nfunc ExampleTicker() {\n\tt := backoff.NewTicker()\n\tfmt.Println(t != nil, time.Second > 0)\n\t// Output: true true\n}\n\nfunc ExampleRetry() {\n\tfmt.Println(backoff.Retry(func() error { return nil }))\n\t// Output: <nil>\n}\n";

/// F2: renaming `Ticker` predicted a go vet report for `ExampleTicker`, which vet does not give:
/// the test package imports `time`, which declares `Ticker` too.
#[test]
fn an_example_named_after_a_name_an_imported_package_declares_is_not_said_to_fail_vet() {
    let test = "lsp_trial86::an_example_named_after_a_name_an_imported_package_declares_is_not_said_to_fail_vet";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/backoff\n\ngo 1.19\n"),
        ("ticker.go", TICKER),
        ("example_test.go", EXAMPLES),
    ]);
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "ticker.go", "line": 4, "symbol": "Ticker", "new_name": "Tick"}));
    assert!(
        text.contains("not renamed: 1 test example named after `Ticker` that go vet does NOT report, because a package its package imports declares `Ticker` too")
            && text.contains("`ExampleTicker` (example_test.go:10; `time`.Ticker)"),
        "{text}"
    );
    assert!(!text.contains("go vet reports it"), "{text}");
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "ticker.go", "line": 10, "symbol": "Retry", "new_name": "Do"}));
    assert!(
        text.contains(
            "WARNING: 1 test example keeps the old name `Retry` in its function name; go vet reports it (`tests` analyzer) — listed below"
        ),
        "{text}"
    );
    // Ground truth: vet names `ExampleRetry` only.
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    let said = String::from_utf8_lossy(&vet.stderr).into_owned();
    assert!(said.contains("ExampleRetry refers to unknown identifier: Retry"), "{said}");
    assert!(!said.contains("ExampleTicker"), "{said}");
}
