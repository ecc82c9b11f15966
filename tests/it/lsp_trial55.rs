//! Wrong answers from the fresh-user trial 55 (tenacity 9.0.0), against real pyright and the
//! real interpreter, on a fixture of the same shape:
//! - F1: renaming an instance attribute (`RetryAction.sleep`) also rewrote the `"sleep"` entry of
//!   the package's `__all__`, which names the module-level `sleep` function: `from tenacity
//!   import *` raised AttributeError, and the note said `tenacity.sleep` was gone.
//! - F2: renaming the attribute `BaseRetrying.retry` edited uses of another `.retry` in a test
//!   that imports the `retry` decorator (the wrapper function's attribute): a test failed.
//!
//! Ground truth: the interpreter, importing and running the package after the rename.

use crate::support;

use serde_json::json;

const INIT: &str = "from .nap import sleep\n\n\nclass RetryAction:\n    def __init__(self, sleep: float) -> None:\n        self.sleep = float(sleep)\n\n\nclass BaseRetrying:\n    def __init__(self, retry: object = None) -> None:\n        self.retry = retry\n\n    def wraps(self, f):\n        def wrapped_f(*args, **kwargs):\n            return f(*args, **kwargs)\n\n        wrapped_f.retry = self\n        return wrapped_f\n\n\ndef retry(f):\n    return BaseRetrying().wraps(f)\n\n\n__all__ = [\n    \"sleep\",\n    \"retry\",\n    \"RetryAction\",\n    \"BaseRetrying\",\n]\n";

const USES: &str = "from retrying import retry\n\n\n@retry\ndef decorated():\n    return 1\n\n\ndef statistics():\n    return decorated.retry is not None\n";

fn package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"retrying\"\nversion = \"0.1.0\"\n"),
        ("retrying/__init__.py", INIT),
        ("retrying/nap.py", "def sleep(seconds: float) -> None:\n    return None\n"),
        ("uses.py", USES),
    ])
}

#[test]
fn an_instance_attribute_rename_leaves_the_all_entry_of_a_module_name_of_the_same_spelling() {
    let test = "lsp_trial55::an_instance_attribute_rename_leaves_the_all_entry_of_a_module_name_of_the_same_spelling";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = package();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "retrying/__init__.py", "line": 6, "symbol": "self.sleep", "new_name": "sleep_seconds"}),
    );
    let init = std::fs::read_to_string(dir.path().join("retrying/__init__.py")).unwrap();
    assert!(init.contains("self.sleep_seconds = float(sleep)"), "{init}\n{text}");
    assert!(init.contains("    \"sleep\",\n"), "the `__all__` entry names the module's `sleep` function:\n{init}\n{text}");
    assert!(!text.contains("`__all__` entr"), "{text}");
    assert!(!text.contains("`retrying.sleep` is gone"), "{text}");
    assert_eq!(support::python_prints(dir.path(), "from retrying import *; print(sleep.__name__)"), "sleep");
}

#[test]
fn an_attribute_rename_leaves_uses_of_an_imported_function_of_the_same_spelling() {
    let test = "lsp_trial55::an_attribute_rename_leaves_uses_of_an_imported_function_of_the_same_spelling";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = package();
    assert_eq!(support::python_prints(dir.path(), "import uses; print(uses.statistics())"), "True");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "retrying/__init__.py", "line": 11, "symbol": "self.retry", "new_name": "retry_strategy"}),
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("uses.py")).unwrap(), USES, "{text}");
    assert!(!text.contains("in files that import `retry` from the renamed definition's module"), "{text}");
    let init = std::fs::read_to_string(dir.path().join("retrying/__init__.py")).unwrap();
    assert!(init.contains("self.retry_strategy = retry") && init.contains("    \"retry\",\n"), "{init}");
    assert_eq!(support::python_prints(dir.path(), "import uses; print(uses.statistics())"), "True");
    assert_eq!(support::python_prints(dir.path(), "from retrying import *; print(retry.__name__)"), "retry");
}
