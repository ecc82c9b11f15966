//! Wrong answers from the fresh-user trial 104 (sortedcontainers 2.4.0), against the real
//! pyright and CPython, on a fixture of the same shape:
//! - F1: renaming `SortedList._lists`, which `SortedKeyList.__init__` assigns itself (without
//!   calling the base's), said "override check … none found"; 122 tests failed with
//!   AttributeError.
//! - F2: renaming `SortedDict.update` (`class SortedDict(dict)`) said "none found": `dict`'s stub
//!   does not declare `update`, it comes from `MutableMapping`; after the rename `sd.update(…)`
//!   silently ran `dict.update`.
//! - M1: renaming `SortedSet.add` (`class SortedSet(MutableSet)`) predicted calls reaching
//!   `MutableSet.add`; `add` is abstract there, and every `SortedSet()` raised TypeError.
//!
//! Ground truth: CPython on the one-sided renames (pyright reports nothing for any of them).

use crate::support;

use serde_json::json;

const SORTEDLIST: &str = "class SortedList:\n    def __init__(self) -> None:\n        self._lists: list[int] = []\n\n    def add(self, value: int) -> None:\n        self._lists.append(value)\n\n\nclass SortedKeyList(SortedList):\n    def __init__(self, key: object = None) -> None:\n        self._key = key\n        self._lists = []\n\n\nclass SortedArray(SortedList):\n    def __init__(self) -> None:\n        self._lists: dict = {}\n";

const SORTEDDICT: &str = "class SortedDict(dict):\n    def update(self, *args: object, **kwargs: object) -> None:\n        dict.update(self, *args, **kwargs)\n        self._keys = sorted(self)\n\n    def first(self) -> object:\n        return self._keys[0]\n";

const SORTEDSET: &str = "from collections.abc import MutableSet\n\n\nclass SortedSet(MutableSet):\n    def __init__(self) -> None:\n        self._set: set[int] = set()\n\n    def __contains__(self, value: object) -> bool:\n        return value in self._set\n\n    def __iter__(self):\n        return iter(sorted(self._set))\n\n    def __len__(self) -> int:\n        return len(self._set)\n\n    def add(self, value: int) -> None:\n        self._set.add(value)\n\n    def discard(self, value: int) -> None:\n        self._set.discard(value)\n";

#[test]
fn renames_that_break_instance_attributes_builtin_overrides_and_abstract_methods_are_warned_of() {
    let test = "lsp_trial104::renames_that_break_instance_attributes_builtin_overrides_and_abstract_methods_are_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"sorted\"\nversion = \"0.1.0\"\n"),
        ("sorted/__init__.py", ""),
        ("sorted/sortedlist.py", SORTEDLIST),
        ("sorted/sorteddict.py", SORTEDDICT),
        ("sorted/sortedset.py", SORTEDSET),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let rename = |file: &str, line: u32, symbol: &str, new_name: &str| {
        support::call_ok(&run, "lsp_rename", json!({"file": file, "line": line, "symbol": symbol, "new_name": new_name, "preview": true}))
    };
    let text = rename("sorted/sortedlist.py", 3, "_lists", "_sublists");
    // pyright renames the plain assignment of a subclass along (trial150 F3: it was called not
    // renamed), not a redeclaration with its own annotation.
    assert!(text.contains("renamed along: `SortedKeyList._lists` (sorted/sortedlist.py:12)"), "{text}");
    assert!(!text.contains("`SortedKeyList` assigns its own"), "{text}");
    assert!(text.contains("WARNING: `SortedArray` assigns its own `self._lists` (sorted/sortedlist.py:17)"), "{text}");
    let text = rename("sorted/sorteddict.py", 2, "update", "merge");
    assert!(
        text.contains("note: dispatch changed: `SortedDict.update` overrides `dict.update` (from collections.abc.MutableMapping, outside the workspace)"),
        "{text}"
    );
    let text = rename("sorted/sortedset.py", 17, "add", "insert");
    assert!(text.contains("WARNING: `MutableSet.add` is abstract, and `SortedSet.add` implements it"), "{text}");
    // Ground truth: each one-sided rename fails or misbehaves at run time.
    let write = |file: &str, text: String| std::fs::write(dir.path().join(file), text).unwrap();
    // The rename as pyright computes it: the base and SortedKeyList, not SortedArray.
    write("sorted/sortedlist.py", SORTEDLIST.replacen("self._lists", "self._sublists", 3));
    let list = "from sorted.sortedlist import SortedKeyList; SortedKeyList().add(1); print('ok')";
    assert_eq!(support::python_prints(dir.path(), list), "ok", "renamed along, it works");
    let array = "from sorted.sortedlist import SortedArray; SortedArray().add(1); print('ok')";
    assert!(support::python_prints(dir.path(), array).contains("AttributeError"), "{}", support::python_prints(dir.path(), array));
    write("sorted/sorteddict.py", SORTEDDICT.replacen("def update(", "def merge(", 1));
    let dict = "from sorted.sorteddict import SortedDict\nd = SortedDict()\nd.update({'b': 1})\nprint(hasattr(d, '_keys'))";
    assert_eq!(support::python_prints(dir.path(), dict), "False", "dict.update ran, silently");
    write("sorted/sortedset.py", SORTEDSET.replacen("def add(", "def insert(", 1));
    let set = "from sorted.sortedset import SortedSet; SortedSet()";
    assert!(support::python_prints(dir.path(), set).contains("TypeError"), "{}", support::python_prints(dir.path(), set));
}
