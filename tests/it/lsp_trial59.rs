//! A wrong answer from the fresh-user trial 59 (base64 0.22.1), against the real rust-analyzer
//! and the real `cargo test --doc`, on a fixture of the same shape:
//! - F1: the crate docs open each example with `#![cfg_attr(feature = "alloc", doc = "```")]`;
//!   the fence was missed, the examples read as prose (their uses "comments") and the prose as
//!   examples, and renaming a variant an example uses broke `cargo test --doc` after "no new
//!   errors".
//!
//! Ground truth: `cargo test --doc` after the rename.

use crate::support;

use serde_json::json;

const LIB: &str = "//! Padding modes.\n//!\n#![cfg_attr(feature = \"alloc\", doc = \"```\")]\n#![cfg_attr(not(feature = \"alloc\"), doc = \"```ignore\")]\n//! let mode = pads::Padding::RequireNone;\n//! assert!(matches!(mode, pads::Padding::RequireNone));\n//! ```\n//!\n//! Prose that mentions RequireNone.\n\n/// How padding is decoded.\npub enum Padding {\n    /// Padding must be there.\n    Indifferent,\n    /// No padding.\n    RequireNone,\n}\n";

#[test]
fn a_doc_test_opened_by_a_cfg_attr_fence_is_renamed_with_the_variant() {
    let test = "lsp_trial59::a_doc_test_opened_by_a_cfg_attr_fence_is_renamed_with_the_variant";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"pads\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"alloc\"]\nalloc = []\n",
        ),
        ("src/lib.rs", LIB),
    ]);
    let doc_tests_pass = || support::cargo_doc_tests_pass(dir.path());
    assert!(doc_tests_pass(), "the fixture's doc-test passes");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 16, "symbol": "RequireNone", "new_name": "RequireAbsent"}),
    );
    let written = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(written.contains("//! let mode = pads::Padding::RequireAbsent;"), "{written}\n{text}");
    assert!(written.contains("//! Prose that mentions RequireNone."), "prose is no example: {written}");
    assert!(doc_tests_pass(), "{written}\n{text}");
}

/// F2 (base64 0.22.1): `references` of the function `encoded_len` listed a local of the same
/// name used inside an index expression, in an `rstest` template, where rust-analyzer's definition
/// gives the local and the `Index::index` impl; the fix (a local binding among the definitions is
/// the use's symbol) was checked on base64 itself, whose rstest shape no offline fixture builds.
/// This test keeps the plain shape right: a local shadowing the imported function, used in an
/// index expression, is no reference of it, and the function's call is.
#[test]
fn a_local_used_inside_an_index_expression_is_no_reference_of_the_function() {
    let test = "lsp_trial59::a_local_used_inside_an_index_expression_is_no_reference_of_the_function";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"lens\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "/// The encoded length.\npub fn encoded_len(bytes: usize) -> usize {\n    bytes * 4 / 3\n}\n\n#[cfg(test)]\nmod tests {\n    use crate::encoded_len;\n\n    fn generate() -> (usize, usize) {\n        (3, encoded_len(3))\n    }\n\n    #[test]\n    fn decodes() {\n        let (orig_len, encoded_len) = generate();\n        let out = vec![0u8; 16];\n        assert!(out[0..encoded_len].len() >= orig_len);\n    }\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 2, "symbol": "encoded_len"}));
    assert!(!text.contains("  18: "), "the index-expression use is the local's:\n{text}");
    assert!(text.contains("  11: "), "the call in `generate` is a reference:\n{text}");
}

/// M4 (toolz 0.12.1): an edit that broke `curry.bind` made the types that flow from it `Unknown`,
/// so pyright stopped reporting 9 errors in two test files: they were called "resolved by this
/// write", and the revert said it "introduced" them. Ground truth: the errors are in the
/// committed tree (pyright on the file as it was).
#[test]
fn errors_hidden_by_types_a_new_error_leaves_unknown_are_not_resolved() {
    let test = "lsp_trial59::errors_hidden_by_types_a_new_error_leaves_unknown_are_not_resolved";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"funcs\"\nversion = \"0.1.0\"\n"),
        ("funcs/__init__.py", ""),
        ("funcs/core.py", "class Curry:\n    def __init__(self, value: int) -> None:\n        self.value = value\n\n    def bind(self) -> \"Curry\":\n        return Curry(self.value)\n\n\ndef make():\n    return Curry(1).bind()\n"),
        ("funcs/uses.py", "from funcs.core import make\n\nresult = make()\nprint(result.missing)\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let before = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "funcs/uses.py"}));
    assert!(before.contains("funcs/uses.py:4") && before.contains("missing"), "the fixture's error is there:\n{before}");
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "funcs/core.py", "old_string": "    def bind(self)", "new_string": "    def bind_args(self)"}),
    );
    assert!(text.contains("funcs/core.py:10"), "the new error in the written file:\n{text}");
    assert!(!text.contains("funcs/uses.py: resolved by this write"), "{text}");
    assert!(text.contains("funcs/uses.py: 1 earlier diagnostic is no longer reported, but not counted as resolved"), "{text}");
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "funcs/core.py", "old_string": "    def bind_args(self)", "new_string": "    def bind(self)"}),
    );
    assert!(!text.contains("funcs/uses.py: new diagnostics introduced by this write"), "the revert introduces nothing:\n{text}");
}
