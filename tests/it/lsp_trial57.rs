//! Wrong answers from the fresh-user trial 57 (textwrap 0.16.1), against the real
//! rust-analyzer and the real `cargo test --doc`, on a fixture of the same shape:
//! - F1: renaming the trait method `Fragment::whitespace_width` left the `impl Fragment for …`
//!   methods inside two doc-test examples unrenamed and said "left unrenamed, rightly … not this
//!   symbol; leave them"; `cargo test --doc` then failed twice (E0407, E0046).
//!
//! Ground truth: `cargo test --doc` after the rename.

use crate::support;

use serde_json::json;

const LIB: &str = "/// A piece of text.\npub trait Fragment {\n    /// Its width.\n    fn whitespace_width(&self) -> f64;\n}\n\n/// Sums the widths.\n///\n/// ```\n/// use frags::Fragment;\n/// struct Task {\n///     sweep: f64,\n/// }\n/// impl Fragment for Task {\n///     fn whitespace_width(&self) -> f64 {\n///         self.sweep\n///     }\n/// }\n/// assert_eq!(frags::total(&[Task { sweep: 1.0 }]), 1.0);\n/// ```\npub fn total<F: Fragment>(fragments: &[F]) -> f64 {\n    fragments.iter().map(|fragment| fragment.whitespace_width()).sum()\n}\n";

#[test]
fn a_trait_method_rename_renames_the_impls_of_it_in_doc_test_examples() {
    let test = "lsp_trial57::a_trait_method_rename_renames_the_impls_of_it_in_doc_test_examples";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"frags\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
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
        json!({"file": "src/lib.rs", "line": 4, "symbol": "whitespace_width", "new_name": "ws_width"}),
    );
    let written = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(written.contains("///     fn ws_width(&self) -> f64 {"), "{written}\n{text}");
    assert!(!text.contains("not this symbol; leave them"), "{text}");
    assert!(doc_tests_pass(), "the doc-test implements the renamed method:\n{written}\n{text}");
}
