//! Wrong answers from the fresh-user trial 38 (the `base64` crate 0.22.1, cachetools 5.5.0),
//! against the real servers on fixtures of the same shape:
//! - F4: renaming `Cache.__init__`'s parameter `maxsize` dismissed the tests' `maxsize=` keyword
//!   arguments as "not this binding" (a parameter taken as local to its function); 13 tests
//!   failed with "unexpected keyword argument".
//!
//! Ground truth: the project's tests (pytest), grep.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// F4: a Python parameter is named by keyword arguments anywhere: the rename's grep check lists
/// the keyword arguments it did not rename instead of dismissing them.
#[test]
fn a_python_parameter_rename_lists_the_keyword_arguments_it_left() {
    let test = "lsp_trial38::a_python_parameter_rename_lists_the_keyword_arguments_it_left";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"cachelike\"\nversion = \"0.1.0\"\n"),
        ("src/cachelike/__init__.py", "class Cache:\n    def __init__(self, maxsize: int) -> None:\n        self.maxsize = maxsize\n"),
        (
            "tests/test_cache.py",
            "import cachelike\n\n\nclass CacheTestMixin:\n    Cache = None\n\n    def test_size(self) -> None:\n        cache = self.Cache(maxsize=1)\n        assert cache.maxsize == 1\n\n\nclass TestCache(CacheTestMixin):\n    Cache = cachelike.Cache\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/cachelike/__init__.py", "line": 2, "symbol": "maxsize", "new_name": "max_size", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("not this binding"), "a keyword argument is dismissed as another local:\n{text}");
    assert!(text.contains("tests/test_cache.py:8:"), "the keyword argument the rename left is not listed:\n{text}");
}
