//! Misleading answer from the fresh-user trial 90 (hashicorp/go-multierror 1.1.1), against gopls
//! and the go command on a fixture of the same shape:
//! - M1: renaming the type `Error` renamed the embedded field `*multierror.Error` of a struct in
//!   an importing package, but not the field's uses there (`collector{Error: …}`, `c.Error`):
//!   they were listed as "another symbol with this name" and the build broke.
//!
//! Ground truth: `go build` after the rename is written.

use crate::support;

use serde_json::json;

const MULTIERROR: &str = "package multierror\n\n// Error collects errors.\ntype Error struct {\n\tErrors []error\n}\n\nfunc (e *Error) Error() string { return \"errors\" }\n";

const DEMO: &str = "package demo\n\nimport \"example.com/me/multierror\"\n\ntype collector struct {\n\t*multierror.Error\n\tname string\n}\n\n// Describe builds a collector.\nfunc Describe() string {\n\tc := collector{Error: &multierror.Error{}, name: \"c\"}\n\treturn c.Error.Error() + c.name\n}\n";

#[test]
fn renaming_a_type_embedded_in_another_package_renames_the_embedded_field_uses_there() {
    let test = "lsp_trial90::renaming_a_type_embedded_in_another_package_renames_the_embedded_field_uses_there";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/me\n\ngo 1.19\n"),
        ("multierror/multierror.go", MULTIERROR),
        ("demo/demo.go", DEMO),
    ]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "multierror/multierror.go", "line": 4, "symbol": "Error", "new_name": "MultiError"}),
    );
    assert!(text.contains("runbound added 2 edits the server's rename missed"), "{text}");
    // The method `Error` on line 13 is another symbol, rightly left.
    assert!(text.contains("demo/demo.go:13: return c.Error.Error() + c.name   (definition: multierror/multierror.go:8)"), "{text}");
    // Ground truth: the build passes with the field's uses renamed.
    let build = support::go_offline(dir.path(), &["build", "./..."]);
    assert!(build.status.success(), "{}\n{text}", String::from_utf8_lossy(&build.stderr));
    let demo = std::fs::read_to_string(dir.path().join("demo/demo.go")).unwrap();
    assert!(demo.contains("collector{MultiError: &multierror.MultiError{}") && demo.contains("c.MultiError.Error()"), "{demo}");
}
