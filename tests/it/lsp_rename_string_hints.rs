//! Strings beside the renamed declaration lead the rename's "left unrenamed" list, each said to
//! be a possible name of it (issue 11, trial108 M1) — beside the declaration the server's
//! definition leads to, not beside the place the rename was asked, and in Go words (trial169 M6:
//! blang/semver's `fmt.Printf("Major: %d\n", v.Major)` in examples/main.go, where the field was
//! asked from, was listed first as "next to the renamed declaration: a decorator …").

use crate::support;

use serde_json::json;

#[test]
fn a_string_beside_a_use_is_no_string_beside_the_declaration() {
    let test = "lsp_rename_string_hints::a_string_beside_a_use_is_no_string_beside_the_declaration";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/v\n\ngo 1.19\n"),
        ("v.go", "package v\n\n// V is a version.\ntype V struct {\n\t// Major is named \"Major\" in JSON.\n\tMajor int `json:\"Major\"`\n}\n"),
        (
            "cmd/main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/v\"\n)\n\nfunc main() {\n\tx := v.V{Major: 1}\n\tfmt.Printf(\"Major: %d\\n\", x.Major)\n}\n",
        ),
    ]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "cmd/main.go", "line": 11, "symbol": "x.Major", "new_name": "Maj", "preview": true}),
    );
    // The printf label beside the use is listed, not as a string next to the declaration.
    assert!(text.contains("cmd/main.go:11:"), "{text}");
    let label_line = text.lines().find(|line| line.contains("cmd/main.go:11:")).unwrap();
    assert!(!label_line.contains("next to the renamed declaration"), "{text}");
    // The struct tag beside the declaration is, in Go words.
    let tag_line = text.lines().find(|line| line.contains("v.go:6:")).expect("the tag line is listed");
    assert!(
        tag_line.contains("(string next to the renamed declaration: a call beside it may name it by this string — check it first)"),
        "{text}"
    );
    assert!(!text.contains("decorator"), "{text}");
}
