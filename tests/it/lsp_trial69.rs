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
