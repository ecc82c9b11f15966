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
