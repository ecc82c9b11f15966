//! Wrong answers from the fresh-user trial 60 (github.com/pkg/errors), against the real gopls
//! and go vet, on a fixture of the same shape:
//! - F1: renaming the method of an interface used only in a type assertion (`err.(causer)`) was
//!   staged because "the build would break"; the build does not break, the assertion silently
//!   stops matching (go test failed after "no new errors").
//! - F2: renaming the method `Cause` warned that go vet reports the examples `ExampleCause`,
//!   which document the function `Cause` the rename leaves; following it makes vet fail.
//!
//! - M4: renaming `stack.StackTrace` named one interface it implements and filed the anonymous
//!   interfaces of two type assertions (`err.(interface{ StackTrace() StackTrace })`) as
//!   "another symbol"; `go test` then failed (TestStackTrace).
//!
//! Ground truth: `go vet` on the written module; `go test` for M4.

use crate::support;

use serde_json::json;

fn module() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/errors\n\ngo 1.19\n"),
        ("errors.go", "package errors\n\n// Wrapped wraps an error.\ntype Wrapped struct{ cause error }\n\nfunc (w *Wrapped) Error() string { return \"wrapped: \" + w.cause.Error() }\n\n// Cause returns the wrapped error.\nfunc (w *Wrapped) Cause() error { return w.cause }\n\n// Cause unwraps err.\nfunc Cause(err error) error {\n\ttype causer interface {\n\t\tCause() error\n\t}\n\tfor err != nil {\n\t\tcause, ok := err.(causer)\n\t\tif !ok {\n\t\t\tbreak\n\t\t}\n\t\terr = cause.Cause()\n\t}\n\treturn err\n}\n"),
        ("example_test.go", "package errors_test\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/errors\"\n)\n\nfunc ExampleCause() {\n\tfmt.Println(errors.Cause(nil))\n\t// Output: <nil>\n}\n"),
    ])
}

fn go_vet_passes(dir: &std::path::Path) -> bool {
    std::process::Command::new("go").args(["vet", "./..."]).current_dir(dir).output().expect("go vet").status.success()
}

#[test]
fn a_method_rename_names_only_the_examples_of_that_method() {
    let test = "lsp_trial60::a_method_rename_names_only_the_examples_of_that_method";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = module();
    assert!(go_vet_passes(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "errors.go", "line": 9, "symbol": "Cause", "new_name": "Reason"}));
    assert!(!text.contains("test example"), "ExampleCause documents the function Cause, which stays:\n{text}");
    assert!(go_vet_passes(dir.path()), "vet reports no example after the method rename");
    // The function's rename names it (and vet agrees).
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "errors.go", "line": 12, "symbol": "Cause", "new_name": "Root"}));
    assert!(text.contains("`ExampleCause` (example_test.go:9)"), "{text}");
}

#[test]
fn an_interface_method_used_in_a_type_assertion_is_said_to_stop_matching() {
    let test = "lsp_trial60::an_interface_method_used_in_a_type_assertion_is_said_to_stop_matching";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = module();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "errors.go", "line": 14, "symbol": "Cause", "new_name": "Reason"}));
    assert!(text.contains("NOT written: this rename leaves 1 method tied to `Cause`"), "{text}");
    assert!(text.contains("a type assertion or switch on it (`x.(Iface)`) stops matching at run time with no error at all"), "{text}");
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    // Ground truth: no compiler sees it.
    assert!(go_vet_passes(dir.path()), "the assertion compiles");
}

/// M3: renaming `Frame.Format`, which fmt calls through `fmt.Formatter`, gave no warning (gopls'
/// `implementation` answered null) and "no new errors"; 11 tests failed. Ground truth: go vet
/// passes and go test fails after the rename.
#[test]
fn renaming_a_method_fmt_calls_dynamically_is_a_warning() {
    let test = "lsp_trial60::renaming_a_method_fmt_calls_dynamically_is_a_warning";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/frames\n\ngo 1.19\n"),
        ("frame.go", "package frames\n\nimport \"fmt\"\n\n// Frame is a stack frame.\ntype Frame uintptr\n\n// Format prints the frame.\nfunc (f Frame) Format(s fmt.State, verb rune) {\n\tfmt.Fprint(s, \"frame\")\n}\n"),
        ("frame_test.go", "package frames\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestFormat(t *testing.T) {\n\tif got := fmt.Sprintf(\"%v\", Frame(1)); got != \"frame\" {\n\t\tt.Fatal(got)\n\t}\n}\n"),
    ]);
    let go = |args: &[&str]| std::process::Command::new("go").args(args).current_dir(dir.path()).output().expect("go").status.success();
    assert!(go(&["test", "./..."]), "the fixture's test passes");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "frame.go", "line": 9, "symbol": "Format", "new_name": "Render"}));
    let warning =
        text.lines().find(|line| line.starts_with("WARNING:") && line.contains("fmt.Formatter")).unwrap_or_else(|| panic!("{text}"));
    assert!(warning.contains("NO compile error"), "{warning}");
    assert!(go(&["vet", "./..."]) && !go(&["test", "./..."]), "vet passes, the test fails");
}

/// M5/M6: a workspace search for a function declared only in a build-tagged file (`//go:build
/// debugerrors`) listed gopls' fuzzy matches from the standard library and said nothing of it.
#[test]
fn a_declaration_behind_a_build_constraint_is_named_by_the_workspace_search() {
    let test = "lsp_trial60::a_declaration_behind_a_build_constraint_is_named_by_the_workspace_search";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/errors\n\ngo 1.19\n"),
        ("errors.go", "package errors\n\n// New makes one.\nfunc New(text string) error { return nil }\n"),
        ("debug_errors.go", "//go:build debugerrors\n\npackage errors\n\nimport \"fmt\"\n\n// DebugDump prints err.\nfunc DebugDump(err error) {\n\tfmt.Println(err)\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "DebugDump"}));
    assert!(
        text.contains("a text search finds `DebugDump` declared at debug_errors.go:8 (`func DebugDump(err error) {`, a file behind the build constraint `//go:build debugerrors`"),
        "{text}"
    );
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "New"}));
    assert!(!text.contains("a text search finds"), "an exact match was found: {text}");
}

/// M4: a concrete method named by anonymous interfaces in type assertions — one on a line, one
/// across lines — is a WARNING naming both, and the rename is staged (trial161 M8); accepted, it
/// builds and the test that asserts fails.
#[test]
fn anonymous_interfaces_in_type_assertions_that_name_a_renamed_method_are_a_warning() {
    let test = "lsp_trial60::anonymous_interfaces_in_type_assertions_that_name_a_renamed_method_are_a_warning";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/traces\n\ngo 1.19\n"),
        ("traces.go", "package traces\n\n// Frames of a trace.\ntype Frames []int\n\ntype stack struct{ frames Frames }\n\n// StackTrace returns the frames.\nfunc (s *stack) StackTrace() Frames { return s.frames }\n\n// HasTrace says whether err carries a stack trace.\nfunc HasTrace(err interface{}) bool {\n\t_, ok := err.(interface{ StackTrace() Frames })\n\treturn ok\n}\n"),
        ("traces_test.go", "package traces\n\nimport \"testing\"\n\nfunc TestStackTrace(t *testing.T) {\n\tx, ok := interface{}(&stack{}).(interface {\n\t\tStackTrace() Frames\n\t})\n\tif !ok || !HasTrace(x) {\n\t\tt.Fatal(\"no trace\")\n\t}\n}\n"),
    ]);
    let go_test_passes = || support::go_offline(dir.path(), &["test", "./..."]).status.success();
    assert!(go_test_passes(), "the fixture's test passes");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "traces.go", "line": 9, "symbol": "StackTrace", "new_name": "Trace"}));
    assert!(
        text.contains("WARNING: 2 places declare an anonymous interface type with a method `StackTrace` (traces.go:13, traces_test.go:7;"),
        "{text}"
    );
    // Staged, not written (trial161 M8); accepted as is, the test fails.
    assert!(text.starts_with("NOT written: 2 places declare an anonymous interface type"), "{text}");
    assert!(go_test_passes(), "nothing was written\n{text}");
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(!go_test_passes(), "ground truth: the assertions stop matching after the rename\n{text}");
}
