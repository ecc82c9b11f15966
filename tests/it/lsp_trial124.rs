//! Wrong answers from the fresh-user trial 124 (tenacity 9.0.0), against the real pyright and
//! CPython, on a fixture of the same shape (a package whose function `retry` shares its name
//! with the submodule `retry.py`):
//! - F1: renaming the function renamed the module path of 16 `from .retry import …` (runbound's
//!   own added edits): the package no longer imported.
//! - F2: it renamed `wrapped.retry`, the attribute the decorator sets on what it wraps, in a
//!   file that imports `retry`: the test reading it failed with AttributeError.
//! - Recheck: those module paths, left, were listed first among the occurrences "whose
//!   definition leads elsewhere or nowhere — check them" as `(no definition)`, 15 of them hiding
//!   every real suspect of the listing; they are listed apart, as module paths. And its one
//!   WARNING told to rename `hasattr(_retryable_coroutine, "retry")`, a string naming the
//!   attribute the decorator sets on what it wraps: a module-level function is an attribute of
//!   its module only, so such strings on other objects are said to be left rightly.
//!
//! Ground truth: CPython imports the package and runs the test module after the rename.

use crate::support;

use serde_json::json;

#[test]
fn renaming_a_function_named_like_a_submodule_leaves_module_paths_and_attributes() {
    let test = "lsp_trial124::renaming_a_function_named_like_a_submodule_leaves_module_paths_and_attributes";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"tenacityish\"\nversion = \"0.1.0\"\n"),
        ("tenacityish/retry.py", "def retry_all(*checks):\n    return all(checks)\n"),
        (
            "tenacityish/__init__.py",
            "from .retry import retry_all  # noqa\n\n\ndef retry(func):\n    def wrapped(*args, **kwargs):\n        return func(*args, **kwargs)\n\n    wrapped.retry = \"policy\"  # type: ignore[attr-defined]\n    return wrapped\n",
        ),
        (
            "tests/check.py",
            "from tenacityish import retry, retry_all\n\n\n@retry\ndef work():\n    return retry_all(True)\n\n\nassert hasattr(work, \"retry\")\nprint(work(), work.retry)  # type: ignore[attr-defined]\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('tests/check.py')"), "True policy");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "tenacityish/__init__.py", "line": 4, "symbol": "retry", "new_name": "retry_call"}),
    );
    let init = std::fs::read_to_string(dir.path().join("tenacityish/__init__.py")).unwrap();
    let check = std::fs::read_to_string(dir.path().join("tests/check.py")).unwrap();
    assert!(init.contains("from .retry import retry_all"), "the submodule's path was renamed:\n{init}\n{text}");
    assert!(check.contains("work.retry)"), "the wrapper's attribute was renamed:\n{check}\n{text}");
    assert!(check.contains("@retry_call"), "{check}");
    assert!(check.contains("hasattr(work, \"retry\")"), "{check}");
    assert!(!text.contains("WARNING: 1 occurrence left unrenamed in strings"), "{text}");
    assert!(text.contains("whose object is not a module (`work` at tests/check.py:9)"), "{text}");
    let module_paths = text.find("in import module paths").unwrap_or_else(|| panic!("the module path is not listed apart:\n{text}"));
    let module_path_line = text.find("tenacityish/__init__.py:1: from .retry import").expect(&text);
    assert!(module_path_line > module_paths, "{text}");
    assert!(
        !text.lines().any(|line| line.contains("from .retry import") && line.contains("(no definition)")),
        "the module path is listed as an occurrence to check:\n{text}"
    );
    // Ground truth: the package imports and the module runs after the rename.
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('tests/check.py')"), "True policy");
}
