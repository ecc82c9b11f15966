//! A wrong answer from the fresh-user trial 53 (sortedcontainers 2.4.0), against real pyright
//! and the real interpreter, on a fixture of the same shape:
//! - F2: `SortedList.__new__` returns a `SortedKeyList` when given a key, so pyright types
//!   `SortedList([3, 1])` as `SortedList | SortedKeyList`; renaming the override
//!   `SortedKeyList.key` also rewrote `plain.key` on such a receiver, which then raised
//!   `AttributeError` on a plain `SortedList` — two tests failed after "no new errors".
//!
//! Ground truth: the interpreter, running the rewritten uses.

use crate::support;

use serde_json::json;

const SORTED: &str = "class SortedList:\n    def __new__(cls, iterable=None, key=None):\n        if key is None:\n            return object.__new__(cls)\n        return object.__new__(SortedKeyList)\n\n    def __init__(self, iterable=None, key=None):\n        self._items = sorted(iterable or [])\n\n    @property\n    def key(self):\n        return None\n\n\nclass SortedKeyList(SortedList):\n    def __new__(cls, iterable=None, key=None):\n        return object.__new__(cls)\n\n    def __init__(self, iterable=None, key=None):\n        self._key = key\n        self._items = sorted(iterable or [], key=key)\n\n    @property\n    def key(self):\n        return self._key\n\n    def __reduce__(self):\n        return (type(self), (self._items, self.key))\n";

const USES: &str = "from sorts.sortedlist import SortedKeyList, SortedList\n\n\ndef negate(value):\n    return -value\n\n\ndef plain_key():\n    plain = SortedList([3, 1, 2])\n    return plain.key\n\n\ndef keyed_key():\n    keyed = SortedKeyList([3, 1, 2], key=negate)\n    return keyed.key\n";

#[test]
fn a_renamed_use_on_a_union_receiver_with_the_base_that_keeps_the_name_is_a_warning() {
    let test = "lsp_trial53::a_renamed_use_on_a_union_receiver_with_the_base_that_keeps_the_name_is_a_warning";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"sorts\"\nversion = \"0.1.0\"\n"),
        ("sorts/__init__.py", ""),
        ("sorts/sortedlist.py", SORTED),
        ("sorts/uses.py", USES),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let staged = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "sorts/sortedlist.py", "line": 24, "symbol": "key", "new_name": "key_function"}),
    );
    let text = staged.joined_text();
    assert!(!staged.is_error, "{text}");
    // It leaves the base's `key`: staged, not written (trial150 M3); accepted, it is written as is.
    assert!(text.starts_with("NOT written: this rename leaves 1 related method"), "{text}");
    let edit_id = staged.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).expect("staged").to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let source = std::fs::read_to_string(dir.path().join("sorts/uses.py")).unwrap();
    assert!(
        source.contains("return plain.key_function"),
        "pyright renames the union receiver's use (the case this test covers):\n{source}\n{text}"
    );
    // Ground truth: that use now fails on a plain SortedList; the keyed one works.
    let plain = support::python_prints(dir.path(), "from sorts.uses import plain_key; print(plain_key())");
    assert!(plain.contains("AttributeError"), "{plain}");
    assert_eq!(support::python_prints(dir.path(), "from sorts.uses import keyed_key, negate; print(keyed_key() is negate)"), "True");
    // The result names that use, its receiver and its type, and not the keyed one.
    let warning = text
        .lines()
        .find(|line| line.starts_with("WARNING: 1 use this rename changes from `.key` to `.key_function`"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(warning.contains("sorts/uses.py:10 (`plain`: `SortedList | SortedKeyList`)"), "{warning}");
    assert!(warning.contains("includes `SortedList`, which keeps `key`") && warning.contains("AttributeError"), "{warning}");
    assert!(!warning.contains("uses.py:15"), "{warning}");
    let run_json = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "sorts/sortedlist.py", "line": 11, "symbol": "key", "new_name": "sort_key", "preview": true}),
    );
    // Renaming the base itself: no base keeps the name, so no such warning.
    assert!(!run_json.joined_text().contains("on a receiver pyright types as a union"), "{}", run_json.joined_text());
    let summary = text.lines().find(|line| line.starts_with("override check:")).unwrap_or_else(|| panic!("{text}"));
    assert!(summary.contains("hovered for a union with a base that keeps the name: 2, 1 such"), "{summary}");
}
