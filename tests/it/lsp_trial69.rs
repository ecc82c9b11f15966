//! Wrong answer from the fresh-user trial 69 (itsdangerous 2.2.0), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: renaming `Signer.default_key_derivation` (and `Signer.unsign`) said of the overrides
//!   "none found": the test classes `class Other(serializer.signer)` — a base typed
//!   `type[Signer]`, no reference of the class name — override them, and 12 tests failed.
//!
//! Ground truth: CPython (the subclass's attribute is what the base's code reads).

use crate::support;

use serde_json::json;

const SIGNER: &str = "class Signer:\n    default_key_derivation: str = \"django-concat\"\n\n    def derive(self) -> str:\n        return self.default_key_derivation\n\n\nclass Serializer:\n    signer: type[Signer] = Signer\n";

const TESTS: &str = "from signing import Serializer\n\n\ndef make(serializer: Serializer) -> str:\n    class Other(serializer.signer):  # type: ignore\n        default_key_derivation = \"hmac\"\n\n    return Other().derive()\n\n\nprint(make(Serializer()))\n";

#[test]
fn a_subclass_through_a_base_typed_as_the_class_is_an_override() {
    let test = "lsp_trial69::a_subclass_through_a_base_typed_as_the_class_is_an_override";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"signing\"\nversion = \"0.1.0\"\n"),
        ("signing.py", SIGNER),
        ("test_signing.py", TESTS),
    ]);
    // Ground truth: the subclass's attribute is read through the base's code.
    assert_eq!(support::python_prints(dir.path(), "import test_signing"), "hmac");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "signing.py", "line": 2, "symbol": "default_key_derivation", "new_name": "default_kdf", "preview": true}),
    );
    assert!(
        text.contains(
            "note: dispatch changed: `Signer.default_key_derivation` is overridden by `Other.default_key_derivation` (test_signing.py:6)"
        ),
        "{text}"
    );
    assert!(!text.contains("none found"), "{text}");
}

/// M1: renaming a parameter of an `@overload`ed function renames one declaration; the preview
/// warns of the others, which are the same parameter at run time.
#[test]
fn a_parameter_of_an_overloaded_function_renamed_in_one_declaration_is_warned_of() {
    let test = "lsp_trial69::a_parameter_of_an_overloaded_function_renamed_in_one_declaration_is_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let timed = "import typing as t\n\n\nclass Signer:\n    @t.overload\n    def unsign(self, value: str, max_age: int) -> str: ...\n\n    @t.overload\n    def unsign(self, value: bytes, max_age: int) -> bytes: ...\n\n    def unsign(self, value: t.Any, max_age: int = 0) -> t.Any:\n        return value\n\n\ndef check() -> str:\n    return Signer().unsign(\"v\", max_age=3)\n";
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"timed\"\nversion = \"0.1.0\"\n"), ("timed.py", timed)]);
    assert_eq!(support::python_prints(dir.path(), "import timed; print(timed.check())"), "v");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "timed.py", "line": 11, "symbol": "max_age", "new_name": "max_age_seconds", "preview": true}),
    );
    assert!(text.contains("WARNING: `max_age` is a parameter of `unsign`, declared 3 times here"), "{text}");
    assert!(text.contains("leaves it at timed.py:6, timed.py:9"), "{text}");
    // Ground truth: accepted as is, the keyword caller breaks at run time.
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    let after = support::python_prints(dir.path(), "import timed; print(timed.check())");
    let written = std::fs::read_to_string(dir.path().join("timed.py")).unwrap();
    if written.contains("unsign(\"v\", max_age=3)") {
        assert!(after.contains("TypeError"), "the caller kept `max_age=` and the implementation's name changed:\n{after}\n{written}");
    } else {
        assert!(written.contains("max_age_seconds: int = 0"), "{written}");
    }
}
