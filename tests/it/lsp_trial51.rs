//! Wrong answers from the fresh-user trial 51 (cachetools 5.5.0), against real pyright and the
//! real interpreter, on a fixture of the same shape:
//! - F2: renaming `Cache.getsizeof` read "override check: none found" while a test mixin's
//!   `class Cache(self.Cache): def getsizeof(…)` overrides it (a base no walk can follow), and the
//!   8 unresolved `cache.getsizeof(…)` uses that broke were cut off the listing behind 15
//!   same-named parameters (since trial166 M4 those are counted as another symbol, not listed).
//! - F3: renaming `RRCache.choice` to `maxsize`, a property its base `Cache` already declares,
//!   gave no warning; the renamed property silently overrode the base's.
//!
//! Ground truth: the interpreter, running the fixture's code after the rename.

use crate::support;

use serde_json::json;

const CORE: &str = "class Cache:\n    def __init__(self, maxsize, getsizeof=None):\n        if getsizeof:\n            self.getsizeof = getsizeof\n        self._maxsize = maxsize\n\n    @property\n    def maxsize(self):\n        return self._maxsize\n\n    def getsizeof(self, value):\n        return 1\n\n    def size(self, value):\n        return self.getsizeof(value)\n\n\nclass RRCache(Cache):\n    def __init__(self, maxsize, choice=min, getsizeof=None):\n        Cache.__init__(self, maxsize, getsizeof)\n        self._choice = choice\n\n    @property\n    def choice(self):\n        return self._choice\n";

const MIXIN: &str = "class Mixin:\n    Cache = None\n\n    def test_subclass(self):\n        class Cache(self.Cache):\n            def getsizeof(self, value):\n                return value\n\n        assert Cache(3).size(2) == 2\n\n    def test_defaults(self):\n        cache = self.Cache(maxsize=1)\n        assert cache.getsizeof(None) == 1\n";

const TEST_CACHE: &str = "from pkg import Cache\nfrom tests import Mixin\n\n\nclass TestCache(Mixin):\n    Cache = Cache\n";

fn workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", "from .core import Cache, RRCache\n"),
        ("pkg/core.py", CORE),
        ("tests/__init__.py", MIXIN),
        ("tests/test_cache.py", TEST_CACHE),
    ])
}

const RUN_MIXIN: &str = "from tests.test_cache import TestCache; t = TestCache(); t.test_subclass(); t.test_defaults(); print('ok')";

#[test]
fn a_member_renamed_to_a_name_its_base_class_declares_is_warned() {
    let test = "lsp_trial51::a_member_renamed_to_a_name_its_base_class_declares_is_warned";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = workspace();
    assert_eq!(support::python_prints(dir.path(), "from pkg import RRCache; print(RRCache(2).maxsize)"), "2");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "pkg/core.py", "line": 24, "symbol": "choice", "new_name": "maxsize"}));
    let said = "WARNING: `maxsize` is already a member of `Cache` (pkg/core.py:8), a base class of `RRCache`: the renamed `RRCache.maxsize` would override it";
    assert!(text.contains(said), "{said}\n{text}");
    assert!(text.contains("1 related class already declares `maxsize`"), "{text}");
    // Ground truth: the base's property is overridden by the renamed one.
    assert_eq!(support::python_prints(dir.path(), "from pkg import RRCache; print(RRCache(2).maxsize)"), "<built-in function min>");
    // A fresh name: no warning, and the summary says none declares it.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/core.py", "line": 24, "symbol": "maxsize", "new_name": "chooser", "preview": true}),
    );
    assert!(!text.contains("WARNING: `chooser`") && text.contains("no related class declares `chooser`"), "{text}");
}

#[test]
fn a_method_overridden_through_a_base_no_walk_can_follow_is_named_and_unresolved_uses_come_first() {
    let test = "lsp_trial51::a_method_overridden_through_a_base_no_walk_can_follow_is_named_and_unresolved_uses_come_first";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = workspace();
    assert_eq!(support::python_prints(dir.path(), RUN_MIXIN), "ok", "the fixture's tests pass before the rename");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "pkg/core.py", "line": 11, "symbol": "getsizeof", "new_name": "size_of"}));
    let said = "note: dispatch may change: `Cache.getsizeof` (tests/__init__.py:6) is a member of the class `Cache` at tests/__init__.py:5, whose base `self.Cache` is no class name the override check can follow";
    assert!(text.contains(said), "{said}\n{text}");
    assert!(text.contains("lsp_rename file `tests/__init__.py` line 6 symbol `getsizeof` new_name `size_of`"), "{text}");
    // The unresolved use in the mixin is listed; the parameters of the same name (of
    // `__init__`, another function) are counted as another symbol, not listed (trial166 M3/M4).
    let listing = text.split("check them (those the server cannot resolve first):").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(listing.contains("tests/__init__.py:13:"), "the mixin's use is not listed:\n{text}");
    assert!(!listing.contains("pkg/core.py:2:"), "the parameter is listed:\n{text}");
    assert!(
        text.contains(
            "left unrenamed, rightly: 5 occurrences in 1 file (pkg/core.py) whose definition pyright resolves to another declaration"
        ),
        "{text}"
    );
    // Ground truth: the mixin's override and its use break.
    assert!(support::python_prints(dir.path(), RUN_MIXIN).contains("AssertionError"), "{}", support::python_prints(dir.path(), RUN_MIXIN));
}
