//! Wrong answers from the fresh-user trial 136 (sqlparse 0.5.1), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: `incoming_calls` and `references` at an override (`OutputPythonFilter._process`) said
//!   "no callers" with no note: the base's own `process` calls it as `self._process(…)`.
//! - F3: `incoming_calls` at depth 2 of `imt` said "depth 2 found nothing more: the hierarchy ends
//!   here", where its caller `group_over` is used as a value (called through a list of
//!   groupings), which a depth-1 query at `group_over` notes (and, since trial144 F2, the depth-2
//!   answer notes for it).
//! - F2: renaming the class `Where` to `WhereClause` gave no warning, and 11 tests failed:
//!   `ReindentFilter` builds `'_process_{cls}'.format(cls=type(tlist).__name__)` and looks up
//!   `_process_where`, so the renamed class fell back to `_process_default`.
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
fn a_deeper_walk_that_ends_names_the_entries_unlisted_uses() {
    let test = "lsp_trial136::a_deeper_walk_that_ends_names_the_entries_unlisted_uses";
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
    assert!(text.contains("are checked for the queried item and for each followed entry"), "{text}");
    // The followed `group_over`'s use as a value, named for it (trial144 F2).
    assert!(
        text.contains("note: for the depth-1 caller `group_over` (groupish.py:5), whose callers depth 2 lists — NOT in this answer as call sites: 1 reference of `group_over`")
            && text.contains("groupish.py:9: GROUPINGS = [group_over]"),
        "{text}"
    );
}

#[test]
fn renaming_a_class_whose_name_a_dispatch_builds_is_warned_of() {
    let test = "lsp_trial136::renaming_a_class_whose_name_a_dispatch_builds_is_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"reindentish\"\nversion = \"0.1.0\"\n"),
        ("reindentish/__init__.py", ""),
        ("reindentish/sql.py", "class Where:\n    pass\n"),
        (
            "reindentish/reindent.py",
            "class ReindentFilter:\n    def process(self, tlist):\n        func_name = '_process_{cls}'.format(cls=type(tlist).__name__)\n        func = getattr(self, func_name.lower(), self._process_default)\n        return func(tlist)\n\n    def _process_where(self, tlist):\n        return \"where\"\n\n    def _process_default(self, tlist):\n        return \"default\"\n",
        ),
    ]);
    assert_eq!(
        support::python_prints(
            dir.path(),
            "from reindentish.sql import Where; from reindentish.reindent import ReindentFilter; print(ReindentFilter().process(Where()))"
        ),
        "where"
    );
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "reindentish/sql.py", "line": 1, "symbol": "Where", "new_name": "WhereClause", "preview": true}),
    );
    assert!(
        text.contains("WARNING: the class name `Where` is looked up at run time: reindentish/reindent.py:3 builds `_process_…` from a class's `__name__` and declares `_process_where`"),
        "{text}"
    );
    // Asked at a use of the class, the same.
    std::fs::write(dir.path().join("reindentish/use.py"), "from .sql import Where\n\nWHERE = Where()\n").unwrap();
    let at_use = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "reindentish/use.py", "line": 3, "symbol": "Where", "new_name": "WhereClause", "preview": true}),
    );
    assert!(at_use.contains("WARNING: the class name `Where` is looked up at run time"), "{at_use}");
}
