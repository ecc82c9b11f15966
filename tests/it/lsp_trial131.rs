//! Wrong answers from the fresh-user trial 131 (gobwas/glob 0.2.3 from Debian, with a consumer
//! module), against gopls and the Go toolchain, on a fixture of the same shape:
//! - F1: renaming the struct type `match.Text` (whose constructor is `func NewText(s string)
//!   Text {`) warned at the top that "the renamed interface method is implemented outside the
//!   workspace by 3 methods … the build breaks after this rename … keep the name `Text`": gopls'
//!   implementations of the type are the standard library interfaces it satisfies (`fmt.Stringer`
//!   …), and the rename built and passed its tests.
//!
//! Ground truth: `go build` and `go test` pass after the rename.

use crate::support;

use serde_json::json;

#[test]
fn renaming_a_struct_type_is_no_interface_method_rename() {
    let test = "lsp_trial131::renaming_a_struct_type_is_no_interface_method_rename";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/glob\n\ngo 1.19\n"),
        (
            "match/text.go",
            "package match\n\nimport \"fmt\"\n\n// Text matches a literal.\ntype Text struct {\n\tStr string\n}\n\n// NewText returns a Text.\nfunc NewText(s string) Text {\n\treturn Text{s}\n}\n\nfunc (t Text) String() string { return fmt.Sprintf(\"<text:%s>\", t.Str) }\n",
        ),
        (
            "syntax/ast.go",
            "package syntax\n\n// Text is a literal node.\ntype Text struct {\n\tText string\n}\n\n// Node returns a node.\nfunc Node(s string) Text { return Text{Text: s} }\n",
        ),
        (
            "glob_test.go",
            "package glob\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n\n\t\"example.com/glob/match\"\n\t\"example.com/glob/syntax\"\n)\n\nfunc TestText(t *testing.T) {\n\tvar s fmt.Stringer = match.NewText(\"a\")\n\tif s.String() != \"<text:a>\" || syntax.Node(\"b\").Text != \"b\" {\n\t\tt.Fatal(s)\n\t}\n}\n",
        ),
    ]);
    assert!(support::go_offline(dir.path(), &["test", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "match/text.go", "line": 6, "symbol": "Text", "new_name": "Literal"}));
    assert!(
        !text.contains("interface method is implemented outside the workspace"),
        "a struct type taken for an interface method:\n{text}"
    );
    assert!(!text.contains("the build breaks after this rename"), "{text}");
    let renamed = std::fs::read_to_string(dir.path().join("match/text.go")).unwrap();
    assert!(renamed.contains("type Literal struct") && renamed.contains("func NewText(s string) Literal {"), "{renamed}");
    // Ground truth: the rename builds and the test passes.
    let tested = support::go_offline(dir.path(), &["test", "./..."]);
    assert!(tested.status.success(), "{}{}", String::from_utf8_lossy(&tested.stdout), String::from_utf8_lossy(&tested.stderr));
}
