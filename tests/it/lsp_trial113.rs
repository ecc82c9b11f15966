//! Misleading answers from the fresh-user trial 113 (cachetools 5.5.0), against the real
//! pyright and CPython, on a fixture of the same shape:
//! - M1: renaming `TTLCache.expire`, which the base class `_TimedCache` calls on `self` without
//!   defining it (a template method), said "override check … none found" and "no new errors";
//!   the base's calls were only in the list of unrenamed occurrences, and 23 tests failed with
//!   AttributeError.
//! - M2: renaming `Cache.__missing__` warned that the interpreter calls it and that an inherited
//!   default takes over; `Cache` is a `MutableMapping`, which neither calls nor has one.
//!
//! Ground truth: CPython on the renamed code (pyright reports nothing new).

use crate::support;

use serde_json::json;

const TIMED: &str = "class Cache:\n    def __init__(self) -> None:\n        self._data: dict[int, int] = {}\n\n    def __getitem__(self, key: int) -> int:\n        try:\n            return self._data[key]\n        except KeyError:\n            return self.__missing__(key)\n\n    def __missing__(self, key: int) -> int:\n        raise KeyError(key)\n\n\nclass _TimedCache(Cache):\n    def __len__(self) -> int:\n        self.expire()  # type: ignore[attr-defined]\n        return len(self._data)\n\n\nclass TTLCache(_TimedCache):\n    def expire(self) -> None:\n        self._data.clear()\n";

#[test]
fn renaming_a_method_a_base_class_calls_on_self_without_defining_it_is_warned_of() {
    let test = "lsp_trial113::renaming_a_method_a_base_class_calls_on_self_without_defining_it_is_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"caches\"\nversion = \"0.1.0\"\n"),
        ("caches/__init__.py", TIMED),
    ]);
    // Ground truth, before: `len()` of a TTLCache runs the subclass's `expire`.
    let check = "from caches import TTLCache; print(len(TTLCache()))";
    assert_eq!(support::python_prints(dir.path(), check), "0");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "caches/__init__.py", "line": 22, "symbol": "expire", "new_name": "purge", "preview": true}),
    );
    assert!(
        text.contains("WARNING: `_TimedCache` (caches/__init__.py:15), a base class of `TTLCache`, uses `self.expire` (line 17) but defines no `expire`"),
        "{text}"
    );
    // Ground truth, after the rename: the base's call fails.
    std::fs::write(dir.path().join("caches/__init__.py"), TIMED.replacen("def expire(", "def purge(", 1)).unwrap();
    assert!(support::python_prints(dir.path(), check).contains("AttributeError"), "{}", support::python_prints(dir.path(), check));
}

#[test]
fn renaming_missing_on_a_class_that_is_no_dict_claims_no_interpreter_call() {
    let test = "lsp_trial113::renaming_missing_on_a_class_that_is_no_dict_claims_no_interpreter_call";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"caches\"\nversion = \"0.1.0\"\n"),
        ("caches/__init__.py", TIMED),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "caches/__init__.py", "line": 11, "symbol": "__missing__", "new_name": "on_missing", "preview": true}),
    );
    assert!(
        text.contains("WARNING: `__missing__` is a hook: `dict.__getitem__` calls it for a missing key when the class derives from `dict`"),
        "{text}"
    );
    assert!(!text.contains("the interpreter calls it for the operator"), "{text}");
    // Ground truth: the class is no dict; its own call by name is renamed along, and a missing
    // key still raises KeyError.
    std::fs::write(
        dir.path().join("caches/__init__.py"),
        TIMED.replacen("def __missing__(", "def on_missing(", 1).replacen("self.__missing__(key)", "self.on_missing(key)", 1),
    )
    .unwrap();
    let check = "from caches import Cache\ntry:\n    Cache()[1]\nexcept KeyError:\n    print('KeyError')";
    assert_eq!(support::python_prints(dir.path(), check), "KeyError");
}
