//! Findings of the fresh-user trial 161 (google/btree 1.0.0 and pkg/errors 0.9.1), against the
//! real gopls and the Go toolchain, on fixtures of the same shape:
//! - M2: renaming the package-level func `min` to `perm`, a name btree_test.go (`package btree`)
//!   declares, was written — gopls checks a non-test file's declaration against the package
//!   without its test files — and `go vet` / `go test` failed with 107 errors; the other
//!   direction gopls refuses.
//! - M1: renaming `BTree.Len` warned that the type stops implementing `sort.Interface`, which
//!   `*BTree` never did (no `Less`/`Swap`).
//! - M4: an `edit` that added a parameter to `New` in btree.go said "no new errors … (gopls)"
//!   while btree_mem.go (`// +build ignore`, `package main`, calls `btree.New`) no longer built.
//! - M8: on pkg/errors, renaming `(*stack).StackTrace` → `Trace` warned that the anonymous
//!   interface of a type assertion in stack_test.go:158 stops matching, but wrote the rename (no
//!   compile error; `go test` failed), where other renames with a known silent run-time break
//!   are staged.
//!
//! Ground truth: `go vet` in the module after each call.

use crate::support;

use serde_json::json;

/// `f` in a.go; the in-package test file declares `g`, the external test package `h`.
fn test_file_conflict_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        ("a.go", "package fx\n\n// f returns one.\nfunc f() int { return 1 }\n\n// Use calls f.\nfunc Use() int { return f() }\n"),
        (
            "a_test.go",
            "package fx\n\nimport \"testing\"\n\nfunc g() int { return 2 }\n\nfunc TestUse(t *testing.T) {\n\tif Use()+g() != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
        ),
        (
            "ext_test.go",
            "package fx_test\n\nimport (\n\t\"testing\"\n\n\t\"fx\"\n)\n\nfunc h() int { return fx.Use() }\n\nfunc TestH(t *testing.T) {\n\tif h() != 1 {\n\t\tt.Fatal(\"h\")\n\t}\n}\n",
        ),
    ])
}

#[test]
fn a_go_rename_to_a_name_an_in_package_test_file_declares_is_refused() {
    let test = "lsp_trial161::a_go_rename_to_a_name_an_in_package_test_file_declares_is_refused";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = test_file_conflict_workspace();
    let before = std::fs::read_to_string(dir.path().join("a.go")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(runbound::Caller::Main, "lsp_rename", json!({"file": "a.go", "line": 4, "symbol": "f", "new_name": "g"}));
    let text = result.joined_text();
    assert!(result.is_error, "the rename was not refused:\n{text}");
    assert!(
        text.contains("conflicts with the declaration of `g` in the same package's test file: a_test.go:5 `func g() int { return 2 }`")
            && text.contains("nothing was changed")
            && text.contains("rename `g` at a_test.go:5 first"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("a.go")).unwrap(), before, "a.go was changed");
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success(), "ground truth: the module still vets");
    // The external test package (`package fx_test`) is another package: `h` there is no
    // conflict, and the rename is written and vets.
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "a.go", "line": 4, "symbol": "f", "new_name": "h"}));
    assert!(text.starts_with("Renamed `f` to `h`"), "{text}");
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(vet.status.success(), "ground truth: {}", String::from_utf8_lossy(&vet.stderr));
}

/// The pkg/errors shape: `*stack` has `StackTrace`; only the test asserts it through an anonymous
/// interface (stack_test.go:158).
fn anonymous_interface_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        (
            "stack.go",
            "package fx\n\n// StackTrace is a list of frames.\ntype StackTrace []uintptr\n\ntype stack []uintptr\n\n// StackTrace returns the frames.\nfunc (s *stack) StackTrace() StackTrace {\n\treturn StackTrace(*s)\n}\n\n// Callers records a stack.\nfunc Callers() *stack {\n\tvar s stack\n\treturn &s\n}\n",
        ),
        (
            "stack_test.go",
            "package fx\n\nimport \"testing\"\n\nfunc TestStackTrace(t *testing.T) {\n\tvar x interface{} = Callers()\n\tif _, ok := x.(interface {\n\t\tStackTrace() StackTrace\n\t}); !ok {\n\t\tt.Fatal(\"expected to implement StackTrace() StackTrace\")\n\t}\n}\n",
        ),
    ])
}

#[test]
fn a_go_method_rename_an_anonymous_interface_assertion_stops_matching_is_staged() {
    let test = "lsp_trial161::a_go_method_rename_an_anonymous_interface_assertion_stops_matching_is_staged";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = anonymous_interface_workspace();
    let go_test_passes = || support::go_offline(dir.path(), &["test", "./..."]).status.success();
    assert!(go_test_passes(), "the fixture's test passes");
    let before = std::fs::read_to_string(dir.path().join("stack.go")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "stack.go", "line": 9, "symbol": "StackTrace()", "new_name": "Trace"}));
    assert!(
        text.starts_with("NOT written: 1 place declares an anonymous interface type with a method `StackTrace` (stack_test.go:8;"),
        "{text}"
    );
    assert!(text.contains("WARNING: 1 place declares an anonymous interface type with a method `StackTrace` (stack_test.go:8;"), "{text}");
    assert!(text.contains("edit_1"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("stack.go")).unwrap(), before, "stack.go was written");
    assert!(go_test_passes(), "nothing was written");
    // Ground truth: written as is, the assertion stops matching and the test fails.
    let accepted = support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(!go_test_passes(), "ground truth: the test fails once the rename is written\n{accepted}");
}

/// `*Tree` has `Len` only, `List` has `Size` only; `byInts` has all three methods of sort.Interface.
fn sort_interface_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        (
            "tree.go",
            "package fx\n\n// Tree holds items.\ntype Tree struct{ n int }\n\n// Len counts the items.\nfunc (t *Tree) Len() int { return t.n }\n\n// List holds items.\ntype List struct{ n int }\n\n// Size counts the items.\nfunc (l List) Size() int { return l.n }\n\n// Total adds both.\nfunc Total(t *Tree, l List) int { return t.Len() + l.Size() }\n",
        ),
        (
            "ints.go",
            "package fx\n\ntype byInts []int\n\nfunc (a byInts) Len() int { return len(a) }\n\nfunc (a byInts) Less(i, j int) bool { return a[i] < a[j] }\n\nfunc (a *byInts) Swap(i, j int) { (*a)[i], (*a)[j] = (*a)[j], (*a)[i] }\n",
        ),
    ])
}

#[test]
fn a_go_rename_warns_of_sort_interface_only_for_a_type_with_all_its_methods() {
    let test = "lsp_trial161::a_go_rename_warns_of_sort_interface_only_for_a_type_with_all_its_methods";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = sort_interface_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    // `*Tree` has no `Less`/`Swap`: it never implemented sort.Interface, nor does `List` once
    // its `Size` is `Len`.
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "tree.go", "line": 7, "symbol": "Len", "new_name": "Count"}));
    assert!(text.starts_with("Renamed `Tree.Len` to `Count`") || text.starts_with("Renamed `Len` to `Count`"), "{text}");
    assert!(!text.contains("sort.Interface"), "a false sort.Interface WARNING:\n{text}");
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "tree.go", "line": 13, "symbol": "Size", "new_name": "Len"}));
    assert!(!text.contains("sort.Interface"), "a false sort.Interface WARNING:\n{text}");
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success(), "ground truth: the module vets");
    // `byInts` has all three (`Swap` on the pointer: `*byInts` implements it): its `Len` renamed
    // is still said.
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "ints.go", "line": 5, "symbol": "Len", "new_name": "Size", "preview": true}));
    assert!(text.contains("sort.Interface"), "the real sort.Interface is not said:\n{text}");
}

/// `New` in fx.go; mem.go (`// +build ignore`) and tools/gen.go (`//go:build ignore`) call it,
/// other_windows.go (another GOOS) does not.
fn build_ignored_caller_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        ("fx.go", "package fx\n\n// T is a tree.\ntype T struct{ d int }\n\n// New makes a tree of degree d.\nfunc New(d int) *T {\n\treturn &T{d: d}\n}\n"),
        ("fx_test.go", "package fx\n\nimport \"testing\"\n\nfunc TestT(t *testing.T) {\n\tif (&T{}).d != 0 {\n\t\tt.Fatal(\"d\")\n\t}\n}\n"),
        (
            "mem.go",
            "// +build ignore\n\n// This binary measures memory.\npackage main\n\nimport (\n\t\"fmt\"\n\n\t\"fx\"\n)\n\nfunc main() {\n\ttr := fx.New(3)\n\tfmt.Println(tr)\n}\n",
        ),
        ("tools/gen.go", "//go:build ignore\n\npackage main\n\nimport f \"fx\"\n\nfunc main() {\n\t_ = f.New(2)\n}\n"),
        ("other_windows.go", "package fx\n\nfunc helper() int { return 1 }\n"),
    ])
}

#[test]
fn a_write_names_the_build_ignored_files_that_use_what_it_changed() {
    let test = "lsp_trial161::a_write_names_the_build_ignored_files_that_use_what_it_changed";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = build_ignored_caller_workspace();
    assert!(support::go_offline(dir.path(), &["vet", "mem.go"]).status.success(), "fixture: mem.go vets");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "fx.go", "old_string": "func New(d int) *T {", "new_string": "func New(d int, name string) *T {"}),
    );
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(
        block.contains("NOT checked: mem.go:13 uses `fx.New`, which this write changed (under `// +build ignore`; check with `go vet ./mem.go`), tools/gen.go:8 uses `f.New`, which this write changed (under `//go:build ignore`;"),
        "the build-ignored callers are not named:\n{text}"
    );
    assert!(!block.contains("other_windows.go"), "{text}");
    let clean = block.lines().find(|line| line.starts_with("no new errors")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        clean.ends_with(
            "; NOT checked: mem.go, tools/gen.go, outside the build gopls checks, which use what this write changed (see the note below)"
        ),
        "an unqualified clean claim:\n{text}"
    );
    // Ground truth: the ignored file no longer builds.
    let vet = support::go_offline(dir.path(), &["vet", "mem.go"]);
    let stderr = String::from_utf8_lossy(&vet.stderr);
    assert!(!vet.status.success() && stderr.contains("not enough arguments in call to fx.New"), "{stderr}");
    // A write that changes no declaration names none.
    let text = support::call_ok(&run, "edit", json!({"path": "fx.go", "old_string": "// T is a tree.", "new_string": "// T is a B-tree."}));
    assert!(!text.contains("mem.go"), "{text}");
}

/// Recheck47 N2: pkg/errors' `Cause` — a function-local named interface (`type causer
/// interface { Cause() error }`) that a type assertion uses: renaming the concrete method is
/// staged as for an anonymous interface, and written as is the test fails.
#[test]
fn a_go_method_rename_a_local_named_interface_assertion_stops_matching_is_staged() {
    let test = "lsp_trial161::a_go_method_rename_a_local_named_interface_assertion_stops_matching_is_staged";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        (
            "errors.go",
            "package fx\n\ntype withMessage struct{ cause error }\n\nfunc (w *withMessage) Error() string { return \"m\" }\n\n// Cause returns the underlying cause.\nfunc (w *withMessage) Cause() error { return w.cause }\n\n// Cause unwraps err.\nfunc Cause(err error) error {\n\ttype causer interface {\n\t\tCause() error\n\t}\n\tfor err != nil {\n\t\tcause, ok := err.(causer)\n\t\tif !ok {\n\t\t\tbreak\n\t\t}\n\t\terr = cause.Cause()\n\t}\n\treturn err\n}\n",
        ),
        (
            "errors_test.go",
            "package fx\n\nimport (\n\t\"io\"\n\t\"testing\"\n)\n\nfunc TestCause(t *testing.T) {\n\tif got := Cause(&withMessage{cause: io.EOF}); got != io.EOF {\n\t\tt.Fatalf(\"got %v\", got)\n\t}\n}\n",
        ),
    ]);
    let go_test_passes = || support::go_offline(dir.path(), &["test", "./..."]).status.success();
    assert!(go_test_passes(), "the fixture's test passes");
    let before = std::fs::read_to_string(dir.path().join("errors.go")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "errors.go", "line": 8, "symbol": "Cause()", "new_name": "Origin"}));
    assert!(
        text.starts_with("NOT written: the renamed method implemented 1 interface that this rename leaves and that a type assertion or type switch uses — `causer` (errors.go:13), asserted at errors.go:16"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("errors.go")).unwrap(), before, "errors.go was written");
    // Ground truth: written as is, the assertion stops matching and the test fails.
    let accepted = support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(!go_test_passes(), "ground truth: the test fails once the rename is written\n{accepted}");
}

/// Recheck47 N1: the new name is declared in a file of the package that the host's build leaves
/// out (`a_windows.go` on Linux): gopls does not see it, and `GOOS=windows go vet` fails with
/// "redeclared" once written. Refused, nothing changed.
#[test]
fn a_go_rename_to_a_name_a_file_of_another_platform_declares_is_refused() {
    let test = "lsp_trial161::a_go_rename_to_a_name_a_file_of_another_platform_declares_is_refused";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    if cfg!(windows) {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        ("a.go", "package fx\n\n// f returns one.\nfunc f() int { return 1 }\n\n// Use calls f.\nfunc Use() int { return f() }\n"),
        ("a_windows.go", "package fx\n\nfunc g() int { return 2 }\n"),
    ]);
    let before = std::fs::read_to_string(dir.path().join("a.go")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(runbound::Caller::Main, "lsp_rename", json!({"file": "a.go", "line": 4, "symbol": "f", "new_name": "g"}));
    let text = result.joined_text();
    assert!(result.is_error, "the rename was not refused:\n{text}");
    assert!(text.contains("a_windows.go:3 `func g() int { return 2 }`") && text.contains("nothing was changed"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("a.go")).unwrap(), before, "a.go was changed");
    // Ground truth: the rename written by hand breaks the windows build.
    std::fs::write(dir.path().join("a.go"), before.replace("func f()", "func g()").replace("return f()", "return g()")).unwrap();
    let vet = std::process::Command::new("go")
        .args(["vet", "./..."])
        .env("GOOS", "windows")
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .current_dir(dir.path())
        .output()
        .expect("go vet");
    assert!(
        !vet.status.success() && String::from_utf8_lossy(&vet.stderr).contains("redeclared"),
        "{}",
        String::from_utf8_lossy(&vet.stderr)
    );
}
