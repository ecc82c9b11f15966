//! Wrong answer from the fresh-user trial 98 (stretchr/objx 0.5.0 with a consumer module below
//! it, joined by a `replace`), against the go command on a fixture of the same shape:
//! - F2: `lsp diagnostics "*"` ran `go vet ./...` at the root only, which does not reach a
//!   nested module: "0 errors" while `consumer/` did not build, and the module was not named.
//!
//! Ground truth: `go build ./...` in each module by hand.

use crate::support;

use serde_json::json;

#[test]
fn the_project_check_checks_a_nested_go_module_of_its_own() {
    let test = "lsp_trial98::the_project_check_checks_a_nested_go_module_of_its_own";
    if support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/objx\n\ngo 1.19\n"),
        ("objx.go", "package objx\n\n// Str is the value as text.\nfunc Str(v int) string { return \"x\" }\n"),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/objx v0.0.0\n\nreplace example.com/objx => ../\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/objx\"\n\nfunc main() {\n\tvar n int = objx.Str(1)\n\t_ = n\n}\n"),
    ]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let consumer = support::go_offline(&dir.path().join("consumer"), &["build", "./..."]);
    assert!(!consumer.status.success(), "the consumer does not build");
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("in consumer ("), "the consumer module was not checked:\n{text}");
    assert!(text.contains("consumer/main.go:6: error"), "{text}");
}

/// Trial 102 F1 (spf13/pflag with a consumer module): `incoming_calls` of `VisitAll` gave "14
/// callers" with no word of the consumer module's 15th, which gopls at the root never loads.
#[test]
fn incoming_calls_list_the_callers_in_a_module_that_replaces_this_one() {
    let test = "lsp_trial98::incoming_calls_list_the_callers_in_a_module_that_replaces_this_one";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/objx\n\ngo 1.19\n"),
        (
            "objx.go",
            "package objx\n\n// Str is the value as text.\nfunc Str(v int) string { return \"x\" }\n\n// Twice calls Str.\nfunc Twice() string { return Str(1) + Str(2) }\n",
        ),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/objx v0.0.0\n\nreplace example.com/objx => ../\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/objx\"\n\nfunc main() {\n\tprintln(objx.Str(1))\n}\n"),
    ]);
    // Ground truth: both modules build, and the consumer calls Str once.
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["build", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "objx.go", "line": 4, "symbol": "Str"}));
    assert!(text.contains("2 callers, 3 call sites"), "{text}");
    assert!(text.contains("consumer/main.go"), "the consumer's `main` is not listed:\n{text}");
    assert!(
        text.contains("note: also searched consumer/ (it depends on . by path) with its own gopls: 1 caller and 1 call site"),
        "{text}"
    );
}

/// Trial 106 F2 (gorilla/mux with a consumer module): `references` and `incoming_calls` asked
/// from the consumer on a function of the module it replaces left out every use in that module
/// (`HandleFunc`: "3 call sites" of 73) and said nothing.
#[test]
fn lookups_asked_from_a_consumer_module_list_the_uses_in_the_module_it_replaces() {
    let test = "lsp_trial98::lookups_asked_from_a_consumer_module_list_the_uses_in_the_module_it_replaces";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/objx\n\ngo 1.19\n"),
        (
            "objx.go",
            "package objx\n\n// Str is the value as text.\nfunc Str(v int) string { return \"x\" }\n\n// Twice calls Str.\nfunc Twice() string { return Str(1) + Str(2) }\n",
        ),
        ("objx_test.go", "package objx\n\nimport \"testing\"\n\nfunc TestStr(t *testing.T) {\n\tif Str(1) != \"x\" {\n\t\tt.Fatal(\"Str\")\n\t}\n}\n"),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/objx v0.0.0\n\nreplace example.com/objx => ../\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/objx\"\n\nfunc main() {\n\tprintln(objx.Str(1))\n}\n"),
    ]);
    // Ground truth: both modules build; Str is called in Twice (twice), TestStr and main.
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["build", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "consumer/main.go", "line": 6, "symbol": "Str"}));
    assert!(text.contains("objx_test.go"), "the module's own test use is missing:\n{text}");
    assert!(
        text.contains("note: also searched . (it owns the definition, and consumer depends on it by path) with its own gopls"),
        "{text}"
    );
    assert!(text.contains("5 references"), "{text}");
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "consumer/main.go", "line": 6, "symbol": "Str"}));
    assert!(text.contains("3 callers, 4 call sites"), "{text}");
    assert!(text.contains("objx_test.go"), "{text}");
    assert!(text.contains("note: also searched ./ (it owns the definition, and consumer depends on it by path) with its own gopls: 1 caller and 1 call site"), "{text}");
}

/// Trial 102 M1, M2, trial 106 M1, M2 (pflag, gorilla/mux with a consumer module): a rename in
/// the module that reached the consumer opened the consumer's file in the module's own gopls,
/// which then answered "You have opened a nested module" for every file: the write's check read
/// "no new errors in the 2 files checked" while 1 was, and told the agent to fix go.mod. Then
/// that gopls's view of the consumer's file read as an error "resolved by this write".
#[test]
fn a_rename_that_reaches_a_consumer_module_leaves_the_module_server_healthy() {
    let test = "lsp_trial98::a_rename_that_reaches_a_consumer_module_leaves_the_module_server_healthy";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/objx\n\ngo 1.19\n"),
        (
            "objx.go",
            "package objx\n\n// Str is the value as text.\nfunc Str(v int) string { return \"x\" }\n\n// Twice calls Str.\nfunc Twice() string { return Str(1) + Str(2) }\n",
        ),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/objx v0.0.0\n\nreplace example.com/objx => ../\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/objx\"\n\nfunc main() {\n\tprintln(objx.Str(1))\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "consumer/main.go"}));
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "objx.go", "line": 4, "symbol": "Str", "new_name": "Text"}));
    assert!(!text.contains("nested module"), "{text}");
    assert!(!text.contains("resolved by this write"), "{text}");
    assert!(!text.contains("diagnostics unavailable"), "{text}");
    assert!(text.contains("no new errors in objx.go or elsewhere in the checked project (gopls)"), "{text}");
    assert!(text.contains("also checked: consumer/main.go"), "{text}");
    let after = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "objx.go"}));
    assert!(after.starts_with("gopls reports no errors or warnings in objx.go"), "{after}");
    // Ground truth: both modules build after the rename.
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["build", "./..."]).status.success());
}

/// Trial 102 M3, trial 106 M3 (pflag, gorilla/mux with a consumer module): workspace symbols
/// asked only the module's gopls, so the consumer's own declarations were missing, with a wrong
/// reason ("gopls loads one build configuration").
#[test]
fn workspace_symbols_search_a_consumer_module_too() {
    let test = "lsp_trial98::workspace_symbols_search_a_consumer_module_too";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/objx\n\ngo 1.19\n"),
        ("objx.go", "package objx\n\n// Str is the value as text.\nfunc Str(v int) string { return \"x\" }\n"),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/objx v0.0.0\n\nreplace example.com/objx => ../\n",
        ),
        ("consumer/describe.go", "package consumer\n\nimport \"example.com/objx\"\n\n// DescribeValue names a value.\nfunc DescribeValue() string { return objx.Str(1) }\n"),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "DescribeValue"}));
    assert!(text.contains("gopls @ consumer"), "{text}");
    assert!(text.contains("consumer/describe.go:6"), "{text}");
    assert!(!text.contains("one build configuration"), "{text}");
}
