//! Wrong answer from the fresh-user trial 139 (go-runewidth 0.0.14 with a consumer module),
//! against gopls and go vet, on a fixture of the same shape:
//! - F1: a write added a parameter to `IsEastAsian` in `runewidth_posix.go` (and changed its call
//!   in the untagged `runewidth.go`): "no new errors in go-runewidth/runewidth.go", while
//!   `runewidth_windows.go`, `runewidth_js.go` and `runewidth_appengine.go` declare it too and
//!   `GOOS=windows go vet` failed at the call.
//! - F2: workspace symbols for `IsEastAsian` listed 1 of its 4 declarations, with no note.
//! - F3: references of the interface method `Measurer.StringWidth` listed 13 static calls of
//!   `(*Condition).StringWidth` but neither implementing declaration.
//! - F6: renaming uniseg's `NewGraphemes` (a module the workspace `replace`s, in no go.work)
//!   wrote uniseg/grapheme.go but left 16 uses in uniseg's tests, and said uniseg/ was skipped
//!   because "their own server answers for them" — none ran.
//!
//! Ground truth: `GOOS=windows go vet` on the fixture after the write.

use crate::support;

use serde_json::json;

/// `IsEastAsian` declared under `!windows` and under `windows`; `width.go` calls it.
fn twins_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/width\n\ngo 1.21\n"),
        ("locale_posix.go", "//go:build !windows\n\npackage width\n\n// IsEastAsian says whether the locale is CJK.\nfunc IsEastAsian() bool {\n\treturn false\n}\n"),
        ("locale_windows.go", "//go:build windows\n\npackage width\n\n// IsEastAsian says whether the locale is CJK.\nfunc IsEastAsian() bool {\n\treturn true\n}\n"),
        ("width.go", "package width\n\n// Wide is set from the locale.\nvar Wide = IsEastAsian()\n"),
    ])
}

#[test]
fn workspace_symbols_name_the_declarations_of_other_build_configurations() {
    let test = "lsp_trial139::workspace_symbols_name_the_declarations_of_other_build_configurations";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = twins_workspace();
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "IsEastAsian"}));
    assert!(text.contains("locale_posix.go:6"), "{text}");
    assert!(
        text.contains("note: NOT in this list: `IsEastAsian` is also declared in locale_windows.go:6 (under `//go:build windows`"),
        "the windows declaration is not named:\n{text}"
    );
}

#[test]
fn a_write_that_changes_a_go_function_declared_under_other_build_constraints_names_them() {
    let test = "lsp_trial139::a_write_that_changes_a_go_function_declared_under_other_build_constraints_names_them";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = twins_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: locale_posix.go\n@@\n-func IsEastAsian() bool {\n+func IsEastAsian(fallback bool) bool {\n*** Update File: width.go\n@@\n-var Wide = IsEastAsian()\n+var Wide = IsEastAsian(false)\n*** End Patch\n"}),
    );
    assert!(
        text.contains("NOT checked: this write changed a declaration: `IsEastAsian` is also declared in locale_windows.go:6 (under `//go:build windows`"),
        "the other build configuration is not named:\n{text}"
    );
    // Ground truth: the windows build no longer compiles, at the written call.
    let vet = std::process::Command::new("go")
        .args(["vet", "."])
        .env("GOOS", "windows")
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&vet.stderr);
    assert!(!vet.status.success() && stderr.contains("width.go:4") && stderr.contains("too many arguments"), "{stderr}");
}

/// `app/` (the one module of the go.work) uses `seg/` through a `replace`; `seg/`'s own test calls
/// `NewGraphemes` too.
fn replaced_module_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.work", "go 1.21\n\nuse ./app\n"),
        ("app/go.mod", "module example.com/app\n\ngo 1.21\n\nrequire example.com/seg v0.0.0\n\nreplace example.com/seg => ../seg\n"),
        ("app/main.go", "package main\n\nimport \"example.com/seg\"\n\nfunc main() {\n\tprintln(seg.NewGraphemes(\"ab\").Count())\n}\n"),
        ("seg/go.mod", "module example.com/seg\n\ngo 1.21\n"),
        ("seg/seg.go", "package seg\n\n// Graphemes splits a string.\ntype Graphemes struct{ s string }\n\n// NewGraphemes starts a split of s.\nfunc NewGraphemes(s string) *Graphemes {\n\treturn &Graphemes{s: s}\n}\n\n// Count counts the bytes.\nfunc (g *Graphemes) Count() int {\n\treturn len(g.s)\n}\n"),
        ("seg/seg_test.go", "package seg\n\nimport \"testing\"\n\nfunc TestCount(t *testing.T) {\n\tif NewGraphemes(\"ab\").Count() != 2 {\n\t\tt.Fatal(\"count\")\n\t}\n}\n"),
    ])
}

#[test]
fn references_in_a_replaced_module_name_the_uses_its_tests_hold() {
    let test = "lsp_trial139::references_in_a_replaced_module_name_the_uses_its_tests_hold";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = replaced_module_workspace();
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "app/main.go", "line": 6, "symbol": "NewGraphemes"}));
    // Ground truth (grep): seg/seg_test.go:6 calls it too; gopls at the root does not load it.
    assert!(
        text.contains("NOT in this answer: 1 whole-word occurrence of `NewGraphemes` (grep, outside `//` comments) in seg/")
            && text.contains("seg/seg_test.go:6"),
        "the replaced module's test use is not named:\n{text}"
    );
}

#[test]
fn a_rename_that_edits_a_replaced_module_renames_its_tests_too() {
    let test = "lsp_trial139::a_rename_that_edits_a_replaced_module_renames_its_tests_too";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = replaced_module_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "app/main.go", "line": 6, "symbol": "NewGraphemes", "new_name": "NewClusters"}),
    );
    assert!(text.contains("walked seg/ too, a project root of its own that this rename edits"), "{text}");
    assert!(!text.contains("skipped seg/"), "{text}");
    // Ground truth: the replaced module's own tests still build (go vet compiles them).
    let vet = std::process::Command::new("go")
        .args(["vet", "./..."])
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOWORK", "off")
        .current_dir(dir.path().join("seg"))
        .output()
        .unwrap();
    assert!(vet.status.success(), "the rename broke seg's tests:\n{}\n{text}", String::from_utf8_lossy(&vet.stderr));
    let tests = std::fs::read_to_string(dir.path().join("seg/seg_test.go")).unwrap();
    assert!(tests.contains("NewClusters(\"ab\")"), "{tests}");
}

#[test]
fn references_of_an_interface_method_list_the_implementing_declarations() {
    let test = "lsp_trial139::references_of_an_interface_method_list_the_implementing_declarations";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/measure\n\ngo 1.21\n"),
        (
            "measure.go",
            "package measure\n\n// Measurer measures strings.\ntype Measurer interface {\n\tStringWidth(s string) int\n}\n\n// Condition measures by bytes.\ntype Condition struct{}\n\n// StringWidth counts the bytes.\nfunc (c *Condition) StringWidth(s string) int { return len(s) }\n\ntype fixed struct{}\n\nfunc (fixed) StringWidth(s string) int { return 1 }\n\n// Total measures with m.\nfunc Total(m Measurer, s string) int { return m.StringWidth(s) }\n\n// Direct measures with a Condition.\nfunc Direct(s string) int { return (&Condition{}).StringWidth(s) + Total(fixed{}, s) }\n",
        ),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "measure.go", "line": 5, "symbol": "StringWidth"}));
    // Ground truth (the source): the two implementing declarations are on lines 12 and 16.
    assert!(text.contains("12: func (c *Condition) StringWidth(s string) int"), "an implementing declaration is missing:\n{text}");
    assert!(text.contains("16: func (fixed) StringWidth(s string) int"), "an implementing declaration is missing:\n{text}");
    assert!(text.contains("19: func Total(m Measurer, s string) int { return m.StringWidth(s) }"), "{text}");
}
