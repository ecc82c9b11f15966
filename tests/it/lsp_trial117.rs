//! Wrong answers from the fresh-user trials 116 (semver 1.0.23 with a downstream crate) and 117
//! (go-kit/log 0.2.1 with a consumer module), against gopls, rust-analyzer and the compilers, on
//! fixtures of the same shape:
//! - 117 F1: references of the interface method `level.Value.String` listed the standard
//!   library's calls through `fmt.Stringer` (and static calls of `(*rtype).String`), which
//!   gopls relates to it through another interface, as its uses; go/types counts none.
//! - 117 F2: the count of the method's own uses counted the merged roots' repeats (194 of 141).
//! - 116 F1, 117 M1: `incoming_calls` deeper than 1 did not follow the callers another root's
//!   server found, nor, asked from the consumer, the library's callers with the library's own
//!   server: "the hierarchy ends here" with callers missing at depth 2.
//!
//! Ground truth: the fixtures build and their tests pass; who calls what is fixed by
//! construction.

use crate::support;

use serde_json::json;

fn go_log_with_a_consumer() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/log\n\ngo 1.19\n"),
        ("log.go", "package log\n\n// Logger logs key-value pairs.\ntype Logger interface {\n\tLog(keyvals ...interface{}) error\n}\n\n// Parse reads a level name.\nfunc Parse(text string) string { return text }\n\nfunc helper() string { return Parse(\"info\") }\n"),
        ("log_test.go", "package log\n\nimport \"testing\"\n\nfunc TestHelper(t *testing.T) {\n\tif helper() != \"info\" {\n\t\tt.Fatal(\"helper\")\n\t}\n}\n"),
        ("level/level.go", "package level\n\nimport \"example.com/log\"\n\n// Value is a level.\ntype Value interface {\n\tString() string\n\tlevelVal()\n}\n\ntype levelValue struct{ name string }\n\nfunc (v *levelValue) String() string { return v.name }\nfunc (v *levelValue) levelVal()      {}\n\n// InfoValue is the info level.\nfunc InfoValue() Value { return &levelValue{name: \"info\"} }\n\n// Info returns a logger that logs at the info level.\nfunc Info(logger log.Logger) log.Logger { return logger }\n"),
        ("consumer/go.mod", "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/log v0.0.0\n\nreplace example.com/log => ../\n"),
        ("consumer/app.go", "package consumer\n\nimport (\n\t\"example.com/log\"\n\t\"example.com/log/level\"\n)\n\n// Wrapper wraps a logger.\ntype Wrapper struct{ Logger log.Logger }\n\n// Info logs at the info level.\nfunc (w Wrapper) Info(msg string) error { return level.Info(w.Logger).Log(\"msg\", msg) }\n\n// Run logs twice.\nfunc Run(l log.Logger) string {\n\twr := Wrapper{Logger: l}\n\t_ = wr.Info(\"wrapped\")\n\t_ = level.Info(l)\n\treturn log.Parse(\"debug\")\n}\n"),
        ("consumer/app_test.go", "package consumer\n\nimport \"testing\"\n\ntype nop struct{}\n\nfunc (nop) Log(keyvals ...interface{}) error { return nil }\n\nfunc TestRun(t *testing.T) {\n\tif Run(nop{}) != \"debug\" {\n\t\tt.Fatal(\"run\")\n\t}\n}\n"),
    ])
}

fn go_fixture_or_skip(test: &str) -> Option<tempfile::TempDir> {
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return None;
    }
    let dir = go_log_with_a_consumer();
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    let consumer = dir.path().join("consumer");
    let tested = support::go_offline(&consumer, &["test", "./..."]);
    assert!(tested.status.success(), "{}", String::from_utf8_lossy(&tested.stdout));
    Some(dir)
}

#[test]
fn references_of_an_interface_method_leave_out_what_gopls_relates_through_another_interface() {
    let test = "lsp_trial117::references_of_an_interface_method_leave_out_what_gopls_relates_through_another_interface";
    let Some(dir) = go_fixture_or_skip(test) else { return };
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "level/level.go", "line": 7, "symbol": "String"}));
    // Ground truth: nothing calls `Value.String`; its declaration is its one reference, and
    // `(*levelValue).String` (level.go:13) implements it (a signature change edits it too:
    // trial139 F3).
    assert!(text.contains("2 references in 1 file:"), "{text}");
    assert!(text.contains("13: func (v *levelValue) String() string { return v.name }   ← use of `(*levelValue).String`"), "{text}");
    assert!(text.contains("note: 1 of these are checked uses of `Value.String` (level/level.go:7) itself"), "{text}");
    assert!(
        text.contains("no use of `Value.String` (level/level.go:7) but of other methods of that name") && text.contains("fmt/print.go"),
        "{text}"
    );
    assert!(
        text.contains("1 are uses of methods that implement it") && text.contains("`(*levelValue).String` (level/level.go:13): 1"),
        "the implementing declaration is not counted as the one implementation use, or another interface's method is:\n{text}"
    );
}

#[test]
fn a_deeper_walk_follows_the_callers_another_roots_server_found_with_that_server() {
    let test = "lsp_trial117::a_deeper_walk_follows_the_callers_another_roots_server_found_with_that_server";
    let Some(dir) = go_fixture_or_skip(test) else { return };
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    // From the library: the consumer's callers of `level.Info` are followed by its server.
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "level/level.go", "line": 20, "symbol": "Info", "depth": 2}));
    assert!(text.contains("[method Wrapper.Info; in another project root, found and followed by its own server]"), "{text}");
    assert!(text.contains("func TestRun(t *testing.T) {   [function TestRun; calls Run;"), "{text}");
    assert!(text.contains("func Run(l log.Logger) string {   [function Run; calls Info; already followed above"), "{text}");
    assert!(!text.contains("the hierarchy ends here"), "{text}");
    // From the consumer: the library's caller of `Parse` is followed by the library's server.
    let text = support::call_ok(
        &run,
        "lsp",
        json!({"op": "incoming_calls", "file": "consumer/app.go", "line": 19, "symbol": "Parse", "depth": 2}),
    );
    assert!(
        text.contains("func TestHelper(t *testing.T) {   [function TestHelper; calls helper;"),
        "the library's test is missing at depth 2:\n{text}"
    );
    assert!(text.contains("func TestRun(t *testing.T) {   [function TestRun; calls Run"), "{text}");
}

#[test]
fn a_deeper_walk_asked_from_a_downstream_crate_follows_the_librarys_callers_with_its_server() {
    let test = "lsp_trial117::a_deeper_walk_asked_from_a_downstream_crate_follows_the_librarys_callers_with_its_server";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"semverish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "/// A comparator.\npub struct Comparator(pub String);\n\nimpl Comparator {\n    /// Parses one.\n    pub fn parse(text: &str) -> Comparator {\n        Comparator::from_text(text)\n    }\n\n    /// Builds one.\n    pub fn from_text(text: &str) -> Comparator {\n        Comparator(text.to_owned())\n    }\n}\n",
        ),
        (
            "tests/comparators.rs",
            "use semverish::Comparator;\n\nfn comparator(text: &str) -> Comparator {\n    Comparator::parse(text)\n}\n\n#[test]\nfn parses() {\n    assert_eq!(comparator(\"x\").0, \"x\");\n}\n",
        ),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nsemverish = { path = \"..\" }\n",
        ),
        (
            "downstream/src/lib.rs",
            "use semverish::Comparator;\n\n/// Describes one.\npub fn describe(text: &str) -> String {\n    Comparator::from_text(text).0\n}\n",
        ),
    ]);
    assert!(support::cargo_by_hand(dir.path(), &["test", "--offline"], &[]).status.success());
    assert!(support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "lsp",
        json!({"op": "incoming_calls", "file": "downstream/src/lib.rs", "line": 5, "symbol": "from_text", "depth": 2}),
    );
    assert!(text.contains("[function parse]"), "{text}");
    assert!(
        text.contains("fn comparator(text: &str) -> Comparator {   [function comparator; calls parse; in another project root, found by its own server]"),
        "the library test's caller of the depth-1 `parse` is missing:\n{text}"
    );
}
