//! Misleading answer from the fresh-user trial 76 (jmespath 1.0.1), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - M1: renaming `visit_field`, which `getattr(self, 'visit_%s' % node['type'])` dispatches to,
//!   read clean; 20 tests failed (`NotImplementedError: field`).
//!
//! Ground truth: CPython.

use crate::support;

use serde_json::json;

const VISITOR: &str = "class Visitor:\n    def visit(self, node: dict) -> str:\n        method = getattr(self, 'visit_%s' % node['type'], self.default_visit)\n        return method(node)\n\n    def default_visit(self, node: dict) -> str:\n        raise NotImplementedError(node['type'])\n\n    def visit_field(self, node: dict) -> str:\n        return 'field'\n";

#[test]
fn a_method_the_code_dispatches_to_by_a_built_name_is_warned_of_on_rename() {
    let test = "lsp_trial76::a_method_the_code_dispatches_to_by_a_built_name_is_warned_of_on_rename";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir =
        support::workspace_with(&[("pyproject.toml", "[project]\nname = \"visiting\"\nversion = \"0.1.0\"\n"), ("visitor.py", VISITOR)]);
    assert_eq!(support::python_prints(dir.path(), "import visitor; print(visitor.Visitor().visit({'type': 'field'}))"), "field");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "visitor.py", "line": 9, "symbol": "visit_field", "new_name": "visit_name", "preview": true}),
    );
    assert!(text.contains("WARNING: `visit_field` matches a name the code builds at run time from a string — visitor.py:3"), "{text}");
    // Ground truth: renamed, the dispatch falls back.
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(support::python_prints(dir.path(), "import visitor; print(visitor.Visitor().visit({'type': 'field'}))")
        .contains("NotImplementedError"));
    // A name no string builds: no such warning.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "visitor.py", "line": 6, "symbol": "default_visit", "new_name": "fallback", "preview": true}),
    );
    assert!(!text.contains("builds at run time"), "{text}");
}
