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

/// F3: after a write breaks the library, `lsp diagnostics` on a bench (the call the write's "cargo
/// never compiled it" line points to) said "no errors" with no word that rustc never compiled it.
#[test]
fn one_file_diagnostics_of_a_target_cargo_never_compiled_say_rustc_did_not_check_it() {
    let test = "lsp_trial38::one_file_diagnostics_of_a_target_cargo_never_compiled_say_rustc_did_not_check_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"enc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "pub fn encoded_len(bytes: usize) -> usize {\n    bytes * 4 / 3\n}\n"),
        (
            "benches/bench.rs",
            "fn main() {\n    let v = vec![1u8];\n    let r = &v;\n    drop(v);\n    println!(\"{}\", r.len() + enc::encoded_len(3));\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let broken = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "    bytes * 4 / 3\n", "new_string": "    bytes * 4 / 3 + missing_helper()\n"}),
    );
    let text = broken.joined_text();
    assert!(!broken.is_error, "{text}");
    assert!(text.contains("src/lib.rs:2: error[E0425]"), "{text}");
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "benches/bench.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("E0505"), "rustc compiled the bench after all: is the fixture still F3's?\n{text}");
    assert!(!text.contains("reports no errors or warnings in benches/bench.rs"), "called clean:\n{text}");
    assert!(text.contains("NOT checked by rustc: cargo's last check never compiled this file's target"), "{text}");
}

/// F1: a changed helper (`_cache`, no declared return type) changes the inferred type of the
/// function built on it (`lru_cache`); its importers, which never name the helper, are checked.
#[test]
fn importers_of_a_function_built_on_a_changed_helper_are_checked() {
    let test = "lsp_trial38::importers_of_a_function_built_on_a_changed_helper_are_checked";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"cachelike\"\nversion = \"0.1.0\"\n"),
        ("cachelike/__init__.py", ""),
        ("cachelike/func.py", "def _cache(size: int):\n    return size + 1\n\n\ndef lru_cache(size: int = 1):\n    return _cache(size)\n"),
        ("cachelike/user.py", "from cachelike.func import lru_cache\n\nvalue: int = lru_cache()\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let opened = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "cachelike/func.py"}));
    assert!(!opened.is_error, "{}", opened.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "cachelike/func.py", "old_string": "    return size + 1\n", "new_string": "    return str(size)\n"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("cachelike/user.py:3: error"), "the importer's new error is not reported:\n{text}");
}

/// trial40 F2: the same for a module file of such a target (`tests/it/lazy.rs` of
/// `tests/it/main.rs`), not only the target's root file.
#[test]
fn one_file_diagnostics_of_a_module_of_a_target_cargo_never_compiled_say_rustc_did_not_check_it() {
    let test = "lsp_trial38::one_file_diagnostics_of_a_module_of_a_target_cargo_never_compiled_say_rustc_did_not_check_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"lazyish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "pub fn force(value: usize) -> usize {\n    value\n}\n"),
        ("tests/it/main.rs", "mod lazy;\n"),
        (
            "tests/it/lazy.rs",
            "#[test]\nfn moved() {\n    let v = vec![lazyish::force(1)];\n    let r = &v;\n    drop(v);\n    assert_eq!(r.len(), 1);\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let broken = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "    value\n", "new_string": "    value + missing_helper()\n"}),
    );
    assert!(!broken.is_error, "{}", broken.joined_text());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "tests/it/lazy.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("E0505"), "rustc compiled the test after all: is the fixture still F2's?\n{text}");
    assert!(text.contains("NOT checked by rustc: cargo's last check never compiled this file's target"), "{text}");
}
