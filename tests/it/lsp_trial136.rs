//! Wrong answers from the fresh-user trial 136 (sqlparse 0.5.1), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: `incoming_calls` and `references` at an override (`OutputPythonFilter._process`) said
//!   "no callers" with no note: the base's own `process` calls it as `self._process(…)`.
//!
//! Ground truth: CPython runs the filter, which reaches the override through the base method.

use crate::support;

use serde_json::json;

#[test]
fn an_override_says_the_calls_through_its_base_method_are_not_listed() {
    let test = "lsp_trial136::an_override_says_the_calls_through_its_base_method_are_not_listed";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"outputish\"\nversion = \"0.1.0\"\n"),
        (
            "outputish.py",
            "class OutputFilter:\n    def _process(self, stream):\n        raise NotImplementedError\n\n    def process(self, stream):\n        return self._process(stream)\n\n\nclass OutputPythonFilter(OutputFilter):\n    def _process(self, stream):\n        return \"py:\" + stream\n\n\nprint(OutputPythonFilter().process(\"x\"))\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('outputish.py')"), "py:x");
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let expected =
        "NOT in this answer: calls through the base — `OutputPythonFilter._process` overrides `OutputFilter._process` (outputish.py:2)";
    let calls = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "outputish.py", "line": 10, "symbol": "_process"}));
    assert!(calls.contains(expected), "{calls}");
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "outputish.py", "line": 10, "symbol": "_process"}));
    assert!(references.contains(expected), "{references}");
    // The base method itself overrides nothing.
    let base = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "outputish.py", "line": 2, "symbol": "_process"}));
    assert!(!base.contains("calls through the base"), "{base}");
}
