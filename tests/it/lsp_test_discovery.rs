//! Misleading answers from the fresh-user trial 73 (hashicorp/go-version 1.3.0), against the real
//! gopls, pyright, go command and pytest, on fixtures of the same shape:
//! - M2: renaming `TestCollection` → `checkCollection` said "no new errors" with no note; `go test`
//!   ran 2 tests fewer and printed `ok`. The same holds for a pytest `test_*` function.
//! - M1: renaming `Original() string` → `Error` made `*Version` an `error`: fmt printed `Error()`
//!   instead of `String()`, with build, vet and tests passing.
//!
//! Ground truth: `go test -v` / `pytest --collect-only` counts, and a Go program's output.

use crate::support;

use serde_json::json;

/// The number of tests `go test -v` says it ran in `dir`.
fn go_tests_run(dir: &std::path::Path) -> usize {
    let output = support::go_offline(dir, &["test", "-v", "-count=1", "./..."]);
    assert!(output.status.success(), "go test: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().filter(|line| line.starts_with("=== RUN")).count()
}

#[test]
fn a_go_test_renamed_out_of_go_tests_pattern_is_warned_of() {
    let test = "lsp_test_discovery::a_go_test_renamed_out_of_go_tests_pattern_is_warned_of";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/version\n\ngo 1.19\n"),
        ("version.go", "package version\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n"),
        (
            "version_test.go",
            "package version\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n\nfunc helperDouble(t *testing.T) {\n\tif Double(3) != 6 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
        ),
    ]);
    assert_eq!(go_tests_run(dir.path()), 1, "ground truth before");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "version_test.go", "line": 5, "symbol": "TestDouble", "new_name": "checkDouble"}),
    );
    assert!(
        text.contains("WARNING: `TestDouble` (version_test.go:5) is a function `go test` runs; `checkDouble` is not a test name"),
        "{text}"
    );
    assert_eq!(go_tests_run(dir.path()), 0, "ground truth: go test runs no test now, and passes");
    // Into the pattern: a note, and go test runs it.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "version_test.go", "line": 11, "symbol": "helperDouble", "new_name": "TestTriple"}),
    );
    assert!(text.contains("NOTE: `TestTriple` (version_test.go:11) is a test name"), "{text}");
    assert!(!text.contains("is a function `go test` runs"), "{text}");
    assert_eq!(go_tests_run(dir.path()), 1, "ground truth after");
    // A rename that keeps the prefix says nothing of it.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "version_test.go", "line": 11, "symbol": "TestTriple", "new_name": "TestThrice", "preview": true}),
    );
    assert!(!text.contains("go test"), "{text}");
}

#[test]
fn a_go_method_renamed_into_the_error_interface_is_warned_of() {
    let test = "lsp_test_discovery::a_go_method_renamed_into_the_error_interface_is_warned_of";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/version\n\ngo 1.19\n"),
        (
            "version.go",
            "package version\n\n// Version is a version.\ntype Version struct{ original string }\n\n// Original is the text parsed.\nfunc (v *Version) Original() string { return v.original }\n\n// String is the canonical form.\nfunc (v *Version) String() string { return \"1.0.0\" }\n",
        ),
        (
            "cmd/show/main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\n\tversion \"example.com/version\"\n)\n\nfunc main() {\n\tv := &version.Version{}\n\tfmt.Println(v, v.Original() == \"\")\n}\n",
        ),
    ]);
    let printed = || String::from_utf8_lossy(&support::go_offline(dir.path(), &["run", "./cmd/show"]).stdout).trim().to_owned();
    assert_eq!(printed(), "1.0.0 true", "ground truth before");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "version.go", "line": 7, "symbol": "Original", "new_name": "Error"}));
    assert!(text.contains("WARNING: after this rename the method has the name and signature of `error`"), "{text}");
    assert_eq!(printed(), "true", "ground truth: fmt prints Error() (the empty original) now, not String()");
    // A name of no standard interface: no such warning.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "version.go", "line": 7, "symbol": "Error", "new_name": "Source", "preview": true}),
    );
    assert!(!text.contains("after this rename the method has the name and signature"), "{text}");
}

#[test]
fn a_pytest_test_renamed_out_of_pytests_pattern_is_warned_of() {
    let test = "lsp_test_discovery::a_pytest_test_renamed_out_of_pytests_pattern_is_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"doubling\"\nversion = \"0.1.0\"\n"),
        ("doubling.py", "def double(x: int) -> int:\n    return 2 * x\n"),
        (
            "tests/test_doubling.py",
            "from doubling import double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\nclass TestMore:\n    def test_three(self):\n        assert double(3) == 6\n",
        ),
    ]);
    let collected = || {
        support::python_prints(
            dir.path(),
            "import pytest, sys; sys.exit(pytest.main(['-q', '--collect-only', '-p', 'no:cacheprovider', 'tests']))",
        )
    };
    assert!(collected().contains("2 tests collected"), "ground truth before: {}", collected());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "tests/test_doubling.py", "line": 9, "symbol": "test_three", "new_name": "check_three"}),
    );
    assert!(
        text.contains(
            "WARNING: `test_three` (tests/test_doubling.py:9) is a test pytest collects (python_functions `test*`, from pytest's defaults)"
        ),
        "{text}"
    );
    assert!(collected().contains("1 test collected"), "ground truth after: {}", collected());
    // A library function renamed into the pattern: the test module imports it, so pytest
    // collects it, and reads its parameter `x` as a fixture.
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "doubling.py", "line": 1, "symbol": "double", "new_name": "test_twice"}));
    assert!(text.contains("NOTE: `test_twice` (tests/test_doubling.py:1) matches pytest's test pattern"), "{text}");
    assert!(collected().contains("2 tests collected"), "ground truth: the import is collected: {}", collected());
    // A name out of the pattern renamed to another: nothing said.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "tests/test_doubling.py", "line": 9, "symbol": "check_three", "new_name": "verify_three", "preview": true}),
    );
    assert!(!text.contains("pytest"), "{text}");
}
