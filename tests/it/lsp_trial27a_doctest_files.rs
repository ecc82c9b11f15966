//! trial27a M1: a rename left the old name in a Markdown file that pytest collects as a doctest
//! (`--doctest-glob=*.md` in `[tool.pytest.ini_options] addopts`, under `testpaths`) and filed it
//! with README.md as "documentation … examples may now be wrong", past the cap. Against the real
//! pyright; ground truth: `python3 -m pytest` passes before the rename and fails on that file
//! after it, and the README (outside `testpaths`) stays documentation.

use crate::support;

use std::path::Path;
use std::process::Command;

use runbound::Caller;
use serde_json::json;

/// `python3 -m pytest -q` in `dir`: (passed, output).
fn pytest(dir: &Path) -> (bool, String) {
    let output = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run pytest");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn python_rename_names_the_markdown_doctest_file_pytest_collects_as_a_failing_test_apart_from_the_readme() {
    let test = "python_rename_names_the_markdown_doctest_file_pytest_collects_as_a_failing_test_apart_from_the_readme";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let has_pytest = Command::new("python3").args(["-m", "pytest", "--version"]).output().is_ok_and(|output| output.status.success());
    if !has_pytest {
        assert!(std::env::var_os("CI").is_none(), "{test}: pytest is not installed for python3");
        eprintln!("SKIPPED {test}: pytest is not installed for python3");
        return;
    }
    let dir = support::workspace_with(&[
        (
            "pyproject.toml",
            "[project]\nname = \"vol\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\ntestpaths = \"vol/tests\"\naddopts = \"--doctest-glob=*.md\"\n",
        ),
        ("README.md", "# vol\n\nCatch `MultipleInvalid` to see every error:\n\n    >>> from vol.error import MultipleInvalid\n"),
        ("vol/__init__.py", ""),
        ("vol/error.py", "class MultipleInvalid(Exception):\n    \"\"\"Several errors at once.\"\"\"\n\n\ndef collect() -> MultipleInvalid:\n    return MultipleInvalid(\"two errors\")\n"),
        ("vol/tests/__init__.py", ""),
        ("vol/tests/test_error.py", "from vol.error import collect\n\n\ndef test_collect() -> None:\n    assert str(collect()) == \"two errors\"\n"),
        (
            "vol/tests/tests.md",
            "Errors\n======\n\n    >>> from vol.error import MultipleInvalid\n    >>> issubclass(MultipleInvalid, Exception)\n    True\n",
        ),
    ]);
    let (passed, output) = pytest(dir.path());
    assert!(passed && output.contains("2 passed"), "pytest does not collect the fixture's two tests:\n{output}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "vol/error.py", "line": 1, "symbol": "MultipleInvalid", "new_name": "InvalidGroup"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("left unrenamed: 2 occurrences of `MultipleInvalid` in the test file vol/tests/tests.md that pytest runs as doctests (--doctest-glob=*.md in pyproject.toml [tool.pytest.ini_options] addopts, testpaths vol/tests) — pytest now FAILS")
            && text.contains("vol/tests/tests.md:4, vol/tests/tests.md:5"),
        "the doctest file is not named as a failing test:\n{text}"
    );
    let warning = text
        .find("WARNING: 2 occurrences left unrenamed in test files pytest runs as doctests")
        .unwrap_or_else(|| panic!("no warning:\n{text}"));
    assert!(warning < text.find("  vol/error.py").expect("file list"), "the warning is not at the top:\n{text}");
    assert!(
        text.contains(
            "not renamed in documentation files (no server edits them; examples there may now be wrong): README.md:3, README.md:5"
        ),
        "{text}"
    );
    let coverage = &result.structured_content.as_ref().expect("structured")["coverage"];
    assert_eq!(coverage["left_in_pytest_doctest_files"], json!(["vol/tests/tests.md:4", "vol/tests/tests.md:5"]), "{coverage}");
    assert_eq!(coverage["left_in_documentation_files"], json!(["README.md:3", "README.md:5"]), "{coverage}");
    // Ground truth: pytest now fails on exactly that file.
    let (passed, output) = pytest(dir.path());
    assert!(!passed && output.contains("tests.md") && output.contains("1 failed"), "pytest:\n{output}");
}
