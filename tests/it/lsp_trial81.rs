//! Wrong answer from the fresh-user trial 81 (boltons 24.0.0), against the real pyright and
//! CPython, on a fixture of the same shape: two classes named `OrderedMultiDict` (dictutils' and a
//! copy in urlutils, over which urlutils then imports dictutils'):
//! - F1: renaming urlutils' `OrderedMultiDict.iteritems` said dictutils' `FastIterOrderedMultiDict`
//!   "no longer overrides anything" (it derives from the other class) and advised renaming it
//!   too; `QueryParamDict`, which derives at run time from dictutils' class, was not named, and
//!   69 tests failed with AttributeError after "no new errors".
//!
//! Ground truth: CPython (the subclass's MRO and the AttributeError).

use crate::support;

use serde_json::json;

const DICTUTILS: &str = "class OrderedMultiDict(dict):\n    def iteritems(self):\n        return iter(self.items())\n\n\nclass FastIterOrderedMultiDict(OrderedMultiDict):\n    def iteritems(self):\n        return iter(list(self.items()))\n";

const URLUTILS: &str = "class OrderedMultiDict(dict):\n    def iteritems(self):\n        return iter(self.items())\n\n\ntry:\n    from .dictutils import OrderedMultiDict\nexcept ImportError:\n    pass\n\n\nclass QueryParamDict(OrderedMultiDict):\n    def to_text(self):\n        return '&'.join('%s=%s' % kv for kv in self.iteritems())\n";

#[test]
fn a_subclass_whose_base_name_is_bound_to_two_classes_is_warned_of() {
    let test = "lsp_trial81::a_subclass_whose_base_name_is_bound_to_two_classes_is_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"bolts\"\nversion = \"0.1.0\"\n"),
        ("bolts/__init__.py", ""),
        ("bolts/dictutils.py", DICTUTILS),
        ("bolts/urlutils.py", URLUTILS),
    ]);
    let to_text = "from bolts.urlutils import QueryParamDict; print(QueryParamDict(a=1).to_text())";
    assert_eq!(support::python_prints(dir.path(), to_text), "a=1");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "bolts/urlutils.py", "line": 2, "symbol": "iteritems", "new_name": "iter_items", "preview": true}),
    );
    assert!(
        text.contains("WARNING: `QueryParamDict` (bolts/urlutils.py:12) derives from `OrderedMultiDict`, a name bound to 2 classes there"),
        "{text}"
    );
    assert!(!text.contains("FastIterOrderedMultiDict.iteritems` no longer overrides"), "a subclass of the other class:\n{text}");
    // Ground truth: written, the subclass reaches dictutils' class, which has no `iter_items`.
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(support::python_prints(dir.path(), to_text).contains("AttributeError"), "{}", support::python_prints(dir.path(), to_text));
    // Renamed in dictutils' class, the real override is still named.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "bolts/dictutils.py", "line": 2, "symbol": "iteritems", "new_name": "iter_items", "preview": true}),
    );
    assert!(text.contains("FastIterOrderedMultiDict.iteritems"), "{text}");
}
