//! Misleading answers from the fresh-user trial 63 (deckarep/golang-set 1.5), against the real
//! gopls and the real `go vet`, on a fixture of the same shape:
//! - M3: renaming the type `Set` re-announced 2 `unusedresult` findings that were there before
//!   as "introduced by this write": their messages name the type (`result of (…Set).String call
//!   not used`), on lines the rename left unchanged.
//!
//! - M5: renaming the small interface method `Adder.Add` told the agent to rename its 2
//!   implementations too, which also implement the public `Set.Add`: following it, 54 errors.
//!
//! - M4: `lsp diagnostics "*"` listed the type errors of a package's test files and said
//!   nothing of vet's analyzers not running on that package: a printf finding in its non-test
//!   code went unseen, the check read complete.
//!
//! Ground truth: `go vet` before the write; `go build` after following the remedy; `go vet` with
//! and without the test files' type error.

use crate::support;

use serde_json::json;

#[test]
fn a_warning_reworded_by_a_rename_on_an_unchanged_line_is_not_new() {
    let test = "lsp_trial63::a_warning_reworded_by_a_rename_on_an_unchanged_line_is_not_new";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/sets\n\ngo 1.19\n"),
        ("set.go", "package sets\n\n// Set is a set.\ntype Set interface {\n\tString() string\n}\n\ntype set struct{}\n\nfunc (set) String() string { return \"{}\" }\n\n// New makes one.\nfunc New() Set { return set{} }\n"),
        ("uses.go", "package sets\n\nfunc touch(s Set) {\n\ts.String()\n}\n"),
    ]);
    let vet = String::from_utf8_lossy(&support::go_offline(dir.path(), &["vet", "-unusedresult", "./..."]).stderr).into_owned();
    assert!(vet.contains("uses.go:4:") && vet.contains("String call not used"), "ground truth: the finding is there before: {vet}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let before = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "uses.go"}));
    assert!(before.contains("uses.go:4: warning result of (example.com/sets.Set).String call not used"), "{before}");
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "set.go", "line": 4, "symbol": "Set", "new_name": "Collection"}));
    assert!(!text.contains("introduced 1 new warning"), "{text}");
    let after = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "uses.go"}));
    assert!(
        after.contains("uses.go:4: warning result of (example.com/sets.Collection).String call not used"),
        "the message is reworded: {after}"
    );
}

#[test]
fn implementations_that_also_implement_another_interface_are_not_told_to_be_renamed() {
    let test = "lsp_trial63::implementations_that_also_implement_another_interface_are_not_told_to_be_renamed";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/sets\n\ngo 1.19\n"),
        ("set.go", "package sets\n\n// Set is a set.\ntype Set interface {\n\tAdd(i int) bool\n}\n\ntype set map[int]bool\n\nfunc (s set) Add(i int) bool { s[i] = true; return true }\n\n// New makes one.\nfunc New() Set { return set{} }\n"),
        ("adder/adder.go", "package adder\n\n// Adder adds.\ntype Adder interface {\n\tAdd(i int) bool\n}\n\n// AddAll adds each.\nfunc AddAll(a Adder, items []int) {\n\tfor _, i := range items {\n\t\ta.Add(i)\n\t}\n}\n"),
        ("adder/use.go", "package adder\n\nimport \"example.com/sets\"\n\nfunc fill() { AddAll(sets.New(), []int{1}) }\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "adder/adder.go", "line": 5, "symbol": "Add", "new_name": "Put", "preview": true}),
    );
    assert!(
        text.contains(
            "but it also implements `sets.Set.Add` (set.go:5), which this rename leaves: renaming it breaks that interface the same way"
        ),
        "{text}"
    );
    assert!(!text.contains("rename them to `Put` too"), "{text}");
}

#[test]
fn the_project_check_says_which_packages_vet_did_not_analyse() {
    let test = "lsp_trial63::the_project_check_says_which_packages_vet_did_not_analyse";
    if support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/m\n\ngo 1.19\n"),
        ("usage/usage.go", "package usage\n\nimport \"fmt\"\n\n// Describe says how many.\nfunc Describe(n int) string { return fmt.Sprintf(\"%d items %d\", n, \"x\") }\n"),
        ("usage/usage_test.go", "package usage\n\nimport \"testing\"\n\nfunc TestDescribe(t *testing.T) {\n\t_ = Merge(1)\n}\n"),
    ]);
    let vet = || String::from_utf8_lossy(&support::go_offline(dir.path(), &["vet", "./..."]).stderr).into_owned();
    let by_hand = vet();
    assert!(by_hand.contains("undeclared name: Merge") || by_hand.contains("undefined: Merge"), "ground truth: {by_hand}");
    assert!(!by_hand.contains("Sprintf format %d has arg"), "ground truth: the type error hides the printf finding: {by_hand}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("usage/usage_test.go:6: error"), "{text}");
    assert!(
        text.contains("NOT analysed by go vet: 1 package — vet stops a package at its type errors (listed above), so its analyzers (printf and the other checks `go test` runs) did not run there: a finding in it is unknown, not absent; fix those errors and check again: example.com/m/usage"),
        "{text}"
    );
    std::fs::write(dir.path().join("usage/usage_test.go"), "package usage\n").unwrap();
    assert!(vet().contains("Sprintf format %d has arg"), "ground truth: without the type error vet finds it");
}
