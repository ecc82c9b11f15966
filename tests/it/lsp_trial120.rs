//! Wrong answers from the fresh-user trial 120 (pluggy 1.5.0), against the real pyright and
//! CPython, on fixtures of the same shape:
//! - F1: `references` and `incoming_calls` of `HookCaller.__call__` answered "1 reference" and
//!   "no callers", with no word that calling an instance runs it (pyright resolves 31 such calls
//!   to it).
//! - F2: a rename of the package's `HookimplMarker` said an error of a nested example project
//!   (its own pyright root, importing the package) was "resolved by this write"; the error never
//!   existed: that root read the package's new text with its own old text.
//!
//! Ground truth: CPython (an instance call runs `__call__`; the example imports the package
//! before and after the rename).

use crate::support;

use serde_json::json;

#[test]
fn references_and_callers_of_dunder_call_say_that_calling_an_instance_runs_it() {
    let test = "lsp_trial120::references_and_callers_of_dunder_call_say_that_calling_an_instance_runs_it";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"hooks\"\nversion = \"0.1.0\"\n"),
        ("hooks/__init__.py", "class HookCaller:\n    def __call__(self, value: int) -> int:\n        return value + 1\n"),
        ("hooks/use.py", "from hooks import HookCaller\n\n\ndef run() -> int:\n    hook = HookCaller()\n    return hook(1)\n"),
    ]);
    assert_eq!(support::python_prints(dir.path(), "from hooks.use import run; print(run())"), "2");
    let run = support::lsp_run_allowing_writes(dir.path());
    for op in ["references", "incoming_calls"] {
        let text = support::call_ok(&run, "lsp", json!({"op": op, "file": "hooks/__init__.py", "line": 2, "symbol": "__call__"}));
        assert!(
            text.contains("note: NOT in this answer: the implicit calls of `HookCaller.__call__` — calling an instance"),
            "{op}:\n{text}"
        );
    }
}

#[test]
fn a_nested_python_project_importing_the_renamed_package_reports_nothing_resolved() {
    let test = "lsp_trial120::a_nested_python_project_importing_the_renamed_package_reports_nothing_resolved";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"plug\"\nversion = \"0.1.0\"\n"),
        ("plug/__init__.py", "from plug._hooks import HookimplMarker\n\n__all__ = [\"HookimplMarker\"]\n"),
        ("plug/_hooks.py", "class HookimplMarker:\n    def __init__(self, project: str) -> None:\n        self.project = project\n"),
        ("examples/egg/pyproject.toml", "[project]\nname = \"egg\"\nversion = \"0.1.0\"\n"),
        ("examples/egg/pyrightconfig.json", "{\"extraPaths\": [\"../..\"]}\n"),
        ("examples/egg/egg/__init__.py", "import plug\n\nhookimpl = plug.HookimplMarker(\"egg\")\n"),
    ]);
    let egg = "import sys; sys.path[:0] = ['.', 'examples/egg']; import egg; print(type(egg.hookimpl).__name__)";
    assert_eq!(support::python_prints(dir.path(), egg), "HookimplMarker");
    let run = support::lsp_run_allowing_writes(dir.path());
    // Both roots' servers are running before the write.
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "examples/egg/egg/__init__.py"}));
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "plug/_hooks.py", "line": 1, "symbol": "HookimplMarker", "new_name": "ImplMarker"}),
    );
    assert!(text.contains("examples/egg/egg/__init__.py"), "the example's use is not renamed:\n{text}");
    // Ground truth: the example still imports and runs after the rename.
    let egg = "import sys; sys.path[:0] = ['.', 'examples/egg']; import egg; print(type(egg.hookimpl).__name__)";
    assert_eq!(support::python_prints(dir.path(), egg), "ImplMarker");
    assert!(!text.contains("resolved by this write"), "an error that never existed is said resolved:\n{text}");
    // The example's server reads the package's new text (it imports it from outside its root).
    assert!(!text.contains("\"ImplMarker\" is not a known attribute"), "the example's server kept the package's old text:\n{text}");
    let after = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "examples/egg/egg/__init__.py"}));
    assert!(after.contains("pyright reports no errors or warnings in examples/egg/egg/__init__.py"), "{after}");
}
