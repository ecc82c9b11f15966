//! Wrong answer from the fresh-user trial 73 (hashicorp/go-version 1.3.0), against the real go
//! command, on a fixture of the same shape:
//! - F1: with a test file importing a module nothing provides, `lsp diagnostics "*"` said "0
//!   errors, 1 warning" — the load error read as a finding of the vet checks `go test` runs —
//!   and the printf finding elsewhere was gone, with nothing saying vet analysed no package.
//!
//! Ground truth: `go vet ./...` stops at the load error; `go test` fails its setup.

use crate::support;

use serde_json::json;

#[test]
fn a_load_error_is_an_error_and_says_vet_analysed_nothing() {
    let test = "lsp_trial73::a_load_error_is_an_error_and_says_vet_analysed_nothing";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/version\n\ngo 1.19\n"),
        ("constraint.go", "package version\n\nimport \"fmt\"\n\n// Parse fails.\nfunc Parse(v string) error {\n\treturn fmt.Errorf(\"Malformed constraint: %d\", v)\n}\n"),
        ("version_test.go", "package version\n\nimport (\n\t\"testing\"\n\n\t_ \"github.com/nope/missing\"\n)\n\nfunc TestParse(t *testing.T) {\n\t_ = Parse(\"x\")\n}\n"),
    ]);
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    let vet_text = String::from_utf8_lossy(&vet.stderr).into_owned();
    assert!(!vet.status.success() && !vet_text.contains("wrong type"), "ground truth: vet stops at the load error:\n{vet_text}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("project check: 1 error"), "{text}");
    assert!(text.contains("NOT analysed by go vet: every package"), "{text}");
    assert!(!text.contains("go test refuses to build on"), "{text}");
}
