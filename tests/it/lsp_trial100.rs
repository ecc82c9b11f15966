//! Wrong answer from the fresh-user trial 100 (tomlkit 0.13.2), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: renaming `Integer._new`, which matches the `typing.Protocol` `WrapperType` by its
//!   members (no class derives from it), or the protocol's own `_new`, said "override check …
//!   none found" and "no new errors"; `wrap_method`'s `self._new(result)` then raised
//!   AttributeError and 2 (5) tests failed.
//!
//! Ground truth: pyright (no new error either way) and CPython.

use crate::support;

use serde_json::json;

const TYPES: &str = "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING, Any, Callable, TypeVar\n\nWT = TypeVar(\"WT\", bound=\"WrapperType\")\n\nif TYPE_CHECKING:\n    from typing import Protocol\n\n    class WrapperType(Protocol):\n        def _new(self: WT, value: Any) -> WT: ...\n\n\ndef wrap_method(original: Callable[..., Any]) -> Callable[..., Any]:\n    def wrapper(self: WT, *args: Any) -> Any:\n        return self._new(original(self, *args))\n\n    return wrapper\n";

const ITEMS: &str = "from __future__ import annotations\n\nfrom tomlish._types import wrap_method\n\n\nclass Integer(int):\n    def _new(self, result: int) -> Integer:\n        return Integer(result)\n\n    __add__ = wrap_method(int.__add__)\n";

#[test]
fn renaming_either_side_of_a_structural_protocol_match_is_warned_of_and_staged() {
    let test = "lsp_trial100::renaming_either_side_of_a_structural_protocol_match_is_warned_of_and_staged";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"tomlish\"\nversion = \"0.1.0\"\n"),
        ("tomlish/__init__.py", ""),
        ("tomlish/_types.py", TYPES),
        ("tomlish/items.py", ITEMS),
    ]);
    let add = "from tomlish.items import Integer; print(type(Integer(1) + 2).__name__)";
    assert_eq!(support::python_prints(dir.path(), add), "Integer");
    let run = support::lsp_run_allowing_writes(dir.path());
    // From the class that matches the protocol: staged, not written.
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "tomlish/items.py", "line": 7, "symbol": "_new", "new_name": "_make"}));
    assert!(text.contains("NOT written: this rename breaks a structural match with a `typing.Protocol`"), "{text}");
    assert!(text.contains("WARNING: `Integer` matches the `typing.Protocol` `WrapperType` (tomlish/_types.py:10) structurally"), "{text}");
    assert!(std::fs::read_to_string(dir.path().join("tomlish/items.py")).unwrap().contains("def _new("), "the rename was written");
    // From the protocol's member.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "tomlish/_types.py", "line": 11, "symbol": "_new", "new_name": "_make", "preview": true}),
    );
    assert!(
        text.contains("WARNING: `WrapperType` is a `typing.Protocol`: classes match it by declaring its members (`_new`), not by deriving from it, and 1 class matching it keeps `_new`: `Integer` (tomlish/items.py:7) — after this rename it no longer matches"),
        "{text}"
    );
    // Ground truth: the one-sided rename leaves pyright clean and fails at run time.
    std::fs::write(dir.path().join("tomlish/items.py"), ITEMS.replace("def _new(", "def _make(")).unwrap();
    assert!(support::python_prints(dir.path(), add).contains("AttributeError"), "{}", support::python_prints(dir.path(), add));
}
