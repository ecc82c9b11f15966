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
    let doc_tests_pass = || {
        std::process::Command::new("cargo")
            .args(["test", "--doc", "--offline", "--quiet"])
            .current_dir(dir.path())
            .env("CARGO_TARGET_DIR", dir.path().join("target/ground-truth"))
            .output()
            .unwrap()
            .status
            .success()
    };
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
