//! Wrong answers from the fresh-user trial 132 (packaging 24.1), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: renaming the module-level function `_cpython_abis` said the string of
//!   `monkeypatch.setattr(tags, "_cpython_abis", …)` was "left unrenamed, rightly" (an attribute
//!   of a module, "not of the renamed member's class"): a module's attribute is exactly what a
//!   module-level function is, and 2 tests failed with AttributeError.
//!
//! Ground truth: CPython runs the check script before the rename; after it, the patch no longer
//! reaches the function the code calls.

use crate::support;

use serde_json::json;

#[test]
fn a_setattr_string_on_the_module_of_a_renamed_function_is_a_live_reference() {
    let test = "lsp_trial132::a_setattr_string_on_the_module_of_a_renamed_function_is_a_live_reference";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"tagsish\"\nversion = \"0.1.0\"\n"),
        ("tagsish/__init__.py", ""),
        ("tagsish/tags.py", "def _cpython_abis():\n    return [\"cp311\"]\n\n\ndef sys_tags():\n    return _cpython_abis()\n"),
        (
            "tests/check.py",
            "import tagsish.tags as tags\n\nsetattr(tags, \"_cpython_abis\", lambda: [\"patched\"])\nprint(tags.sys_tags()[0])\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('tests/check.py')"), "patched");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "tagsish/tags.py", "line": 1, "symbol": "_cpython_abis", "new_name": "cpython_abis"}));
    assert!(!text.contains("left unrenamed, rightly: 1 string"), "the patched module's attribute is said to be another:\n{text}");
    assert!(text.contains("WARNING: 1 occurrence left unrenamed in strings that name the attribute"), "{text}");
    assert!(text.contains("tests/check.py:3: setattr(tags, \"_cpython_abis\""), "{text}");
}
