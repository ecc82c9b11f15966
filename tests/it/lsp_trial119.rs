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

/// Trial 119 F1: below depth 1, calls gopls lists under a followed concrete method that go
/// through an interface (the standard library's `fmt.Stringer` calls under `(*Timer).String`)
/// were listed as its callers; at depth 1 the same calls are left out and said.
#[test]
fn a_deeper_walk_leaves_out_calls_through_an_interface_listed_under_a_concrete_method() {
    let test = "lsp_trial119::a_deeper_walk_leaves_out_calls_through_an_interface_listed_under_a_concrete_method";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/clock\n\ngo 1.19\n"),
        (
            "clock.go",
            "package clock\n\nimport \"time\"\n\n// Clock tells the time.\ntype Clock interface {\n\tNow() time.Time\n}\n\ntype real struct{}\n\nfunc (real) Now() time.Time { return time.Now() }\n\n// Timer names when it was made.\ntype Timer struct{ c Clock }\n\n// String says when.\nfunc (t *Timer) String() string { return t.c.Now().String() }\n\n// Describe describes a timer.\nfunc Describe() string {\n\tt := &Timer{c: real{}}\n\treturn t.String()\n}\n",
        ),
    ]);
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "clock.go", "line": 7, "symbol": "Now", "depth": 2}));
    // Ground truth: `Describe` is the one static caller of `(*Timer).String`.
    assert!(text.contains("func Describe() string {   [function Describe; calls String"), "{text}");
    assert!(text.contains("note: left out below depth 1:") && text.contains("tringer.String` ("), "{text}");
    assert!(!text.contains("[go stdlib] (1):"), "a call through a standard library interface is listed as a caller of String:\n{text}");
}

/// Trial 119 F3: `references` at an embedded field (`type FixedClock struct { clock.Clock }` in
/// a consumer module) mixed the field's uses with the library's uses of the type `Clock` and
/// left out the consumer's own uses of the type: it answers for the field now, and says so.
#[test]
fn references_at_an_embedded_field_in_a_consumer_are_the_fields() {
    let test = "lsp_trial119::references_at_an_embedded_field_in_a_consumer_are_the_fields";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/clock\n\ngo 1.19\n"),
        (
            "clock.go",
            "package clock\n\nimport \"time\"\n\n// Clock tells the time.\ntype Clock interface {\n\tNow() time.Time\n}\n\ntype real struct{}\n\nfunc (real) Now() time.Time { return time.Now() }\n\n// New is the real clock.\nfunc New() Clock { return real{} }\n",
        ),
        ("consumer/go.mod", "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/clock v0.0.0\n\nreplace example.com/clock => ../\n"),
        (
            "consumer/app.go",
            "package consumer\n\nimport \"example.com/clock\"\n\n// FixedClock embeds a clock.\ntype FixedClock struct {\n\tclock.Clock\n}\n\n// NewFixed makes one.\nfunc NewFixed() *FixedClock { return &FixedClock{Clock: clock.New()} }\n\n// Use takes a clock.\nfunc Use(c clock.Clock) clock.Clock { return c }\n",
        ),
    ]);
    assert!(support::go_offline(&dir.path().join("consumer"), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "consumer/app.go", "line": 7, "symbol": "clock.Clock"}));
    // Ground truth (by construction): the field is declared at 7 and set at 11 (`Clock:`).
    assert!(text.contains("2 references in 1 file:"), "{text}");
    assert!(!text.contains("clock.go"), "the library's uses of the type are mixed in:\n{text}");
    assert!(text.contains("note: `Clock` here is an embedded field"), "{text}");
}

/// Trial 123 F1 (go-logr/logr): below depth 1, the callers of two followed methods of the same
/// name (`Logger.Info` and another `Info` that call `LogSink.Info`) were classified against one
/// of them only, and the other's 34 direct calls were left out as calls "of another method".
#[test]
fn a_deeper_walk_keeps_the_calls_of_every_followed_method_of_one_name() {
    let test = "lsp_trial119::a_deeper_walk_keeps_the_calls_of_every_followed_method_of_one_name";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/logr\n\ngo 1.19\n"),
        (
            "logr.go",
            "package logr\n\n// LogSink writes.\ntype LogSink interface {\n\tInfo(level int, msg string)\n}\n\n// Logger logs to a sink.\ntype Logger struct{ sink LogSink }\n\n// Info logs.\nfunc (l Logger) Info(msg string) { l.sink.Info(0, msg) }\n\n// Wrapper wraps a sink.\ntype Wrapper struct{ s LogSink }\n\n// Info logs through the wrapper.\nfunc (w Wrapper) Info(msg string) { w.s.Info(1, msg) }\n\n// Run logs with a logger.\nfunc Run(l Logger) { l.Info(\"run\") }\n\n// Use logs with a wrapper.\nfunc Use(w Wrapper) { w.Info(\"use\") }\n",
        ),
    ]);
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "logr.go", "line": 5, "symbol": "Info", "depth": 2}));
    // Ground truth (by construction): `Run` calls `Logger.Info`, `Use` calls `Wrapper.Info`.
    assert!(text.contains("func Run(l Logger) { l.Info(\"run\") }   [function Run; calls Info"), "{text}");
    assert!(text.contains("func Use(w Wrapper) { w.Info(\"use\") }   [function Use; calls Info"), "{text}");
    assert!(!text.contains("left out below depth 1"), "{text}");
}
