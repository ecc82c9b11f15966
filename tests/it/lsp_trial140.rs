//! Wrong answers from the fresh-user trial 140 (cachetools 5.5.0), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1 (a): renaming `TTLCache.expire` warned that the base `_TimedCache` uses `self.expire`
//!   and advised editing those lines to the new name — which broke `TLRUCache`, a sibling
//!   subclass with an `expire` of its own (18 tests failed).
//! - F1 (b): renaming `LRUCache.popitem` warned of an AttributeError in `Cache`'s
//!   `self.popitem()`, which cannot happen: `Cache` inherits `MutableMapping.popitem`.
//!
//! - F2: the outline left out 14 redefined nested functions (`wrapper` defined in each branch of
//!   `cached`), with no note.
//!
//! Ground truth: CPython runs the classes after the renames; grep finds the `def`s.

use crate::support;

use serde_json::json;

const CACHES: &str = "import collections.abc\n\n\nclass Cache(collections.abc.MutableMapping):\n    def __init__(self):\n        self._data = {}\n\n    def __getitem__(self, key):\n        return self._data[key]\n\n    def __setitem__(self, key, value):\n        if len(self._data) >= 2:\n            self.popitem()\n        self._data[key] = value\n\n    def __delitem__(self, key):\n        del self._data[key]\n\n    def __iter__(self):\n        return iter(self._data)\n\n    def __len__(self):\n        return len(self._data)\n\n\nclass Timed(Cache):\n    def clean(self):\n        return self.expire()\n\n\nclass TTL(Timed):\n    def expire(self):\n        return \"ttl\"\n\n\nclass TLRU(Timed):\n    def expire(self):\n        return \"tlru\"\n\n\nclass LRU(Cache):\n    def popitem(self):\n        return self._data.popitem()\n";

#[test]
fn a_base_relying_on_a_renamed_member_names_the_sibling_subclasses_that_keep_it() {
    let test = "lsp_trial140::a_base_relying_on_a_renamed_member_names_the_sibling_subclasses_that_keep_it";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"caches\"\nversion = \"0.1.0\"\n"), ("caches.py", CACHES)]);
    // Ground truth: both subclasses run the base's `self.expire()`, and `Cache` has a `popitem`
    // of its own (MutableMapping's) that the LRU override replaces.
    let printed = support::python_prints(
        dir.path(),
        "import caches; print(caches.TTL().clean(), caches.TLRU().clean(), 'popitem' in dir(caches.Cache))",
    );
    assert_eq!(printed, "ttl tlru True");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "caches.py", "line": 32, "symbol": "expire", "new_name": "expire_items", "preview": true}),
    );
    assert!(text.contains("a base class of `TTL`, uses `self.expire` (line 28)"), "{text}");
    assert!(
        text.contains("next step: do not rename `TTL.expire` (keep the name `expire`) — those lines also run on `TLRU` (caches.py:37), which defines `expire` of its own"),
        "the next step breaks the sibling subclass:\n{text}"
    );
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "caches.py", "line": 42, "symbol": "popitem", "new_name": "evict", "preview": true}),
    );
    assert!(!text.contains("relies on its subclasses"), "an AttributeError that cannot happen was warned of:\n{text}");
    assert!(text.contains("dispatch changed: `LRU.popitem` overrides `MutableMapping.popitem`"), "{text}");
}

#[test]
fn the_outline_names_the_nested_functions_redefined_in_other_branches() {
    let test = "lsp_trial140::the_outline_names_the_nested_functions_redefined_in_other_branches";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let decorators = "def cached(cache, lock=None):\n    def decorator(func):\n        if lock is None:\n            def wrapper(*args):\n                return cache.setdefault(args, func(*args))\n        else:\n            def wrapper(*args):\n                with lock:\n                    return cache.setdefault(args, func(*args))\n        return wrapper\n    return decorator\n";
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"decorators\"\nversion = \"0.1.0\"\n"),
        ("decorators.py", decorators),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "decorators.py", "locals": true}));
    // Ground truth (the source): `def wrapper` on lines 4 and 7; one entry stands for the name.
    let listed: Vec<&str> = text.lines().filter(|line| line.contains("wrapper") && !line.starts_with("not listed")).collect();
    assert_eq!(listed.len(), 1, "{text}");
    let other = if listed[0].trim_start().starts_with('4') { 7 } else { 4 };
    assert!(text.contains(&format!("wrapper at line {other} (redefinition)")), "the other definition is not named:\n{text}");
    // A workspace query with locals lists one `wrapper` too: the other is named.
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "wrapper", "locals": true}));
    assert!(text.contains("1 symbol"), "{text}");
    assert!(
        text.contains("NOT in this list: a text search finds `wrapper` declared at")
            && text.contains(&format!("decorators.py:{other} (`def wrapper(*args):`)"))
            && text.contains("pyright lists one symbol per name in a scope"),
        "the folded definition is not named:\n{text}"
    );
}
