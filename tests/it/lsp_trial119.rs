//! Wrong answer from the fresh-user trial 119 (benbjohnson/clock 1.3.0 with a consumer module),
//! against gopls and the go command, on a fixture of the same shape:
//! - F2: a signature change introduced 3 errors in 3 files (reported new); the next write to the
//!   same file said "of these 3 errors, 1 was reported as new by an earlier write": the errors
//!   of files the second write did not re-check were counted as present, not as reported.
//!
//! Ground truth: `go vet` after each write (3 errors, then the same 3).

use crate::support;

use serde_json::json;

#[test]
fn errors_an_earlier_write_reported_in_files_not_rechecked_are_named_as_reported() {
    let test = "lsp_trial119::errors_an_earlier_write_reported_in_files_not_rechecked_are_named_as_reported";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/stamp\n\ngo 1.19\n"),
        ("stamp.go", "package stamp\n\nimport \"time\"\n\n// Stamp formats the time.\nfunc Stamp(t time.Time) string {\n\treturn t.Format(time.RFC3339)\n}\n\n// Now stamps now.\nfunc Now() string { return Stamp(time.Now()) }\n"),
        ("stamp_test.go", "package stamp\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestStamp(t *testing.T) {\n\tif Stamp(time.Time{}) == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n"),
        ("example_test.go", "package stamp_test\n\nimport (\n\t\"fmt\"\n\t\"time\"\n\n\t\"example.com/stamp\"\n)\n\nfunc ExampleStamp() {\n\tfmt.Println(stamp.Stamp(time.Time{}))\n\t// Output: 0001-01-01T00:00:00Z\n}\n"),
    ]);
    assert!(support::go_offline(dir.path(), &["test", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let first = support::call_ok(
        &run,
        "edit",
        json!({"path": "stamp.go", "old_string": "func Stamp(t time.Time) string {", "new_string": "func Stamp(t time.Time, layout string) string {"}),
    );
    assert!(first.contains("this write introduced 3 new errors in 3 files"), "{first}");
    let second = support::call_ok(
        &run,
        "edit",
        json!({"path": "stamp.go", "old_string": "return t.Format(time.RFC3339)", "new_string": "return t.Format(layout)"}),
    );
    // Ground truth: the same 3 call sites still fail.
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    let stderr = String::from_utf8_lossy(&vet.stderr);
    assert!(stderr.contains("stamp.go:11") && stderr.contains("stamp_test.go:9"), "{stderr}");
    assert!(second.contains("all 3 of them were reported as new by an earlier write in this run"), "{second}");
}
