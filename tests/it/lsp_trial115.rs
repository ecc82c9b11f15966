//! Wrong answer from the fresh-user trial 115 (sirupsen/logrus 1.9.0 with a consumer module),
//! against gopls and the go command, on a fixture of the same shape:
//! - F1: `incoming_calls` of `Entry.Bytes` with `depth: 2` missed the consumer's `Run`, a caller
//!   of the depth-1 caller `Entry.String`, and said the consumer was searched ("0 callers and 0
//!   call sites in it"): the consumer's server was asked about the queried method only.
//!
//! Ground truth: the fixture builds (`go vet` in both modules); `Run` calls `String` by
//! construction.

use crate::support;

use serde_json::json;

#[test]
fn a_deeper_walk_asks_the_consumer_module_for_the_callers_of_the_followed_callers() {
    let test = "lsp_trial115::a_deeper_walk_asks_the_consumer_module_for_the_callers_of_the_followed_callers";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/logrus\n\ngo 1.19\n"),
        (
            "entry.go",
            "package logrus\n\n// Entry is a log entry.\ntype Entry struct{ Message string }\n\n// Bytes formats the entry.\nfunc (entry *Entry) Bytes() ([]byte, error) {\n\treturn []byte(entry.Message), nil\n}\n\n// String formats the entry as a string.\nfunc (entry *Entry) String() (string, error) {\n\tb, err := entry.Bytes()\n\treturn string(b), err\n}\n",
        ),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/logrus v0.0.0\n\nreplace example.com/logrus => ../\n",
        ),
        (
            "consumer/app.go",
            "package consumer\n\nimport \"example.com/logrus\"\n\n// Run logs the entry's text.\nfunc Run(e *logrus.Entry) string {\n\ttext, _ := e.String()\n\treturn text\n}\n",
        ),
    ]);
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "entry.go", "line": 7, "symbol": "Bytes", "depth": 2}));
    assert!(text.contains("depth 2 — "), "{text}");
    assert!(
        text.contains("func Run(e *logrus.Entry) string {   [function Run; calls String; in another project root"),
        "the consumer's caller of the depth-1 caller is missing:\n{text}"
    );
    assert!(text.contains("at depth 2, 1 caller and 1 call site in it of the callers followed here"), "{text}");
}
