//! Trial 165 M5 (rivo/uniseg 0.4.2), against the real gopls: renaming the type alias `testCase`
//! or the field `Graphemes.state` listed 279 and 310 lines of same-named locals (`for _,
//! testCase := range …`, `state := -1`) under "check them", each with its own definition beside
//! it. Occurrences whose definition the server resolves to a local variable or parameter are
//! another symbol: counted in one line, not listed.
//!
//! Ground truth: `go build`/`go vet` after the rename, and the text: the locals keep their names.

use crate::support;

use serde_json::json;

#[test]
fn locals_named_like_the_renamed_type_are_counted_not_listed_to_check() {
    let test = "lsp_trial165::locals_named_like_the_renamed_type_are_counted_not_listed_to_check";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/seg\n\ngo 1.19\n"),
        ("cases.go", "package seg\n\ntype testCase = struct{ in, out string }\n\nvar all = []testCase{{\"a\", \"b\"}}\n"),
        (
            "run.go",
            "package seg\n\nfunc run(testCase string) string {\n\treturn testCase\n}\n\nfunc each() int {\n\tn := 0\n\tfor _, testCase := range all {\n\t\tn += len(testCase.in)\n\t}\n\treturn n\n}\n",
        ),
    ]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "cases.go", "line": 3, "symbol": "testCase", "new_name": "breakCase"}));
    assert!(text.starts_with("Renamed `testCase` to `breakCase`"), "{text}");
    assert!(
        text.contains("left unrenamed, rightly: 4 occurrences in 1 file whose definition gopls resolves to a local variable or parameter named `testCase` (another symbol with its own binding, not listed)"),
        "{text}"
    );
    assert!(!text.contains("check them"), "nothing is left to check:\n{text}");
    let run_go = std::fs::read_to_string(dir.path().join("run.go")).unwrap();
    assert!(run_go.contains("for _, testCase := range all") && run_go.contains("func run(testCase string)"), "{run_go}");
    assert!(std::fs::read_to_string(dir.path().join("cases.go")).unwrap().contains("var all = []breakCase{"));
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(vet.status.success(), "{}", String::from_utf8_lossy(&vet.stderr));
}
