//! Misleading answer from the fresh-user trial 88 (parsimonious 0.10.0), against the real pyright
//! and CPython, on a fixture of the same shape:
//! - M1: renaming `RuleVisitor.visit_regex`, which `NodeVisitor.visit` reaches through
//!   `getattr(self, 'visit_' + node.expr_name, self.generic_visit)`, said nothing of that lookup;
//!   `import parsimonious` then failed (the rule `regex` fell to the fallback).
//!
//! Ground truth: CPython, the visitor's result before and after the rename.

use crate::support;

use serde_json::json;

const NODES: &str = "class NodeVisitor:\n    def visit(self, expr_name: str) -> str:\n        method = getattr(self, 'visit_' + expr_name, self.generic_visit)\n        return method(expr_name)\n\n    def generic_visit(self, expr_name: str) -> str:\n        return 'generic'\n";

const RULES: &str = "from .nodes import NodeVisitor\n\n\nclass RuleVisitor(NodeVisitor):\n    def visit_regex(self, expr_name: str) -> str:\n        return 'regex rule'\n";

#[test]
fn renaming_a_method_looked_up_by_a_prefixed_name_warns_of_the_lookup() {
    let test = "lsp_trial88::renaming_a_method_looked_up_by_a_prefixed_name_warns_of_the_lookup";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pars\"\nversion = \"0.1.0\"\n"),
        ("pars/__init__.py", ""),
        ("pars/nodes.py", NODES),
        ("pars/rules.py", RULES),
    ]);
    let visit = "from pars.rules import RuleVisitor; print(RuleVisitor().visit('regex'))";
    assert_eq!(support::python_prints(dir.path(), visit), "regex rule");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pars/rules.py", "line": 5, "symbol": "visit_regex", "new_name": "visit_regexp"}),
    );
    assert!(
        text.contains("WARNING: pars/nodes.py:3 (`method = getattr(self, 'visit_' + expr_name, self.generic_visit)`) looks `visit_…` up by a name built at run time, which `visit_regex` matches for the value `regex`"),
        "{text}"
    );
    // Ground truth: the rule now reaches the fallback.
    assert_eq!(support::python_prints(dir.path(), visit), "generic");
}
