//! Wrong answers from the fresh-user trial 136 (sqlparse 0.5.1), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: `incoming_calls` and `references` at an override (`OutputPythonFilter._process`) said
//!   "no callers" with no note: the base's own `process` calls it as `self._process(…)`.
//! - F3: `incoming_calls` at depth 2 of `imt` said "depth 2 found nothing more: the hierarchy ends
//!   here", where its caller `group_over` is used as a value (called through a list of
//!   groupings), which a depth-1 query at `group_over` notes.
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

#[test]
fn a_deeper_walk_that_ends_says_the_entries_unlisted_uses_were_not_checked() {
    let test = "lsp_trial136::a_deeper_walk_that_ends_says_the_entries_unlisted_uses_were_not_checked";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"groupish\"\nversion = \"0.1.0\"\n"),
        (
            "groupish.py",
            "def imt(token):\n    return token == \"x\"\n\n\ndef group_over(tokens):\n    return [t for t in tokens if imt(t)]\n\n\nGROUPINGS = [group_over]\n\n\ndef group(tokens):\n    for grouping in GROUPINGS:\n        tokens = grouping(tokens)\n    return tokens\n\n\nprint(group([\"x\", \"y\"]))\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('groupish.py')"), "['x']");
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "groupish.py", "line": 1, "symbol": "imt", "depth": 2}));
    assert!(text.contains("def group_over(tokens):"), "{text}");
    assert!(!text.contains("the hierarchy ends here\n"), "{text}");
    assert!(text.contains("are checked for the queried item only, not for the entries above"), "{text}");
}
