//! Wrong answer from the fresh-user trial 139 (go-runewidth 0.0.14 with a consumer module),
//! against gopls and go vet, on a fixture of the same shape:
//! - F1: a write added a parameter to `IsEastAsian` in `runewidth_posix.go` (and changed its call
//!   in the untagged `runewidth.go`): "no new errors in go-runewidth/runewidth.go", while
//!   `runewidth_windows.go`, `runewidth_js.go` and `runewidth_appengine.go` declare it too and
//!   `GOOS=windows go vet` failed at the call.
//! - F2: workspace symbols for `IsEastAsian` listed 1 of its 4 declarations, with no note.
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
