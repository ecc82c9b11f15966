//! Wrong answers from the fresh-user trial 132 (packaging 24.1), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: renaming the module-level function `_cpython_abis` said the string of
//!   `monkeypatch.setattr(tags, "_cpython_abis", …)` was "left unrenamed, rightly" (an attribute
//!   of a module, "not of the renamed member's class"): a module's attribute is exactly what a
//!   module-level function is, and 2 tests failed with AttributeError.
//! - F3: `incoming_calls` and `references` of `_Validator._process_name` said "no callers" / its
//!   definition alone, with no note: it is called through `getattr(self, f"_process_{self.name}")`
//!   (lsp_rename warned of that string).
//! - F2: deleting the module `_structures.py` with `apply_patch` (on a fresh run, which opens it
//!   to seed the check) said "no new errors … 2 errors already present before this write": the
//!   importers' states "before" were pulled after pyright had been told of the deletion.
//! - M4: renaming `__lt__`, looked up as `getattr(Version, f"__{op}__")`, said the value
//!   `lt__` (it is `lt`).
//!
//! Ground truth: CPython runs the check scripts (before the rename, the patch reaches the
//! function the code calls; the validator is called by its built name).

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
            "import time\n\nimport tagsish.tags as tags\n\nsetattr(tags, \"_cpython_abis\", lambda: [\"patched\"])\nsetattr(time, \"_cpython_abis\", None)\nprint(tags.sys_tags()[0])\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('tests/check.py')"), "patched");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "tagsish/tags.py", "line": 1, "symbol": "_cpython_abis", "new_name": "cpython_abis"}),
    );
    assert!(!text.contains("`tags` at tests/check.py"), "the patched module's attribute is said to be another:\n{text}");
    assert!(text.contains("WARNING: 1 occurrence left unrenamed in strings that name the attribute"), "{text}");
    assert!(text.contains("tests/check.py:5: setattr(tags, \"_cpython_abis\""), "{text}");
    // Another module's attribute of that name is not the renamed function (review of the fix).
    assert!(text.contains("whose object is a module (`time` at tests/check.py:6)"), "{text}");
}

#[test]
fn a_method_called_by_a_name_built_at_run_time_is_said_to_have_unlisted_callers() {
    let test = "lsp_trial132::a_method_called_by_a_name_built_at_run_time_is_said_to_have_unlisted_callers";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"metaish\"\nversion = \"0.1.0\"\n"),
        (
            "metaish.py",
            "class Validator:\n    def __init__(self, name):\n        self.name = name\n\n    def process(self, value):\n        converter = getattr(self, f\"_process_{self.name}\")\n        return converter(value)\n\n    def _process_name(self, value):\n        return value.lower()\n\n\nprint(Validator(\"name\").process(\"ABC\"))\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('metaish.py')"), "abc");
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let expected = "NOT in this answer: calls by a name built at run time — `_process_name` matches a name this file builds from a string (metaish.py:6";
    let calls = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "metaish.py", "line": 9, "symbol": "_process_name"}));
    assert!(calls.contains(expected), "{calls}");
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "metaish.py", "line": 9, "symbol": "_process_name"}));
    assert!(references.contains(expected), "{references}");
    // Not at a method whose name no string builds.
    let other = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "metaish.py", "line": 5, "symbol": "process"}));
    assert!(!other.contains("built at run time"), "{other}");
}

#[test]
fn deleting_a_module_reports_its_importers_unresolved_imports_as_new() {
    let test = "lsp_trial132::deleting_a_module_reports_its_importers_unresolved_imports_as_new";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"structish\"\nversion = \"0.1.0\"\n"),
        ("structish/__init__.py", ""),
        ("structish/_structures.py", "class Infinity:\n    def __repr__(self):\n        return \"Infinity\"\n"),
        ("structish/version.py", "from ._structures import Infinity\n\n\ndef biggest():\n    return Infinity()\n"),
        (
            "tests/test_structures.py",
            "from structish._structures import Infinity\n\n\ndef test_repr():\n    assert repr(Infinity()) == \"Infinity\"\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "from structish.version import biggest; print(biggest())"), "Infinity");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Delete File: structish/_structures.py\n*** End Patch"}),
    );
    // Ground truth: both importers now fail to import the deleted module, and did not before.
    assert!(text.contains("this write introduced 2 new errors in 2 files"), "{text}");
    assert!(text.contains("structish/version.py:1: error[reportMissingImports]"), "{text}");
    assert!(!text.contains("already present before this write"), "{text}");
}

#[test]
fn a_dunder_looked_up_by_a_built_name_is_said_with_its_value() {
    let test = "lsp_trial132::a_dunder_looked_up_by_a_built_name_is_said_with_its_value";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"versionish\"\nversion = \"0.1.0\"\n"),
        (
            "versionish.py",
            "class Version:\n    def __init__(self, key):\n        self.key = key\n\n    def __lt__(self, other):\n        return self.key < other.key\n\n\ndef compare(op, a, b):\n    return getattr(Version, f\"__{op}__\")(a, b)\n\n\nprint(compare(\"lt\", Version(1), Version(2)))\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import runpy; runpy.run_path('versionish.py')"), "True");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "versionish.py", "line": 5, "symbol": "__lt__", "new_name": "less_than", "preview": true}),
    );
    assert!(text.contains("which `__lt__` matches for the value `lt`:"), "{text}");
}
