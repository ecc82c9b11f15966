//! Wrong answers from the fresh-user trial 64 (slab 0.4.9), against the real rust-analyzer and
//! the real cargo, on a fixture of the same shape:
//! - F1: renaming the module `builder` (a file rename) skipped the whole grep check and said
//!   nothing of `src/serde.rs`'s `use super::{builder::Builder, …}`, compiled only with the
//!   `serde` feature; "no new errors", and `cargo check --all-features` failed (E0432).
//!
//! Ground truth: `cargo check --features serde` after the rename.

use crate::support;

use serde_json::json;

#[test]
fn a_module_rename_names_the_uses_behind_an_off_cfg() {
    let test = "lsp_trial64::a_module_rename_names_the_uses_behind_an_off_cfg";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"slabs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nserde = []\n"),
        ("src/lib.rs", "#[cfg(feature = \"serde\")]\nmod serde;\n\nmod builder;\n\n/// Builds one.\npub fn build() -> u32 {\n    builder::Builder::new().0\n}\n"),
        ("src/builder.rs", "pub(crate) struct Builder(pub(crate) u32);\n\nimpl Builder {\n    pub(crate) fn new() -> Self {\n        Builder(1)\n    }\n}\n"),
        ("src/serde.rs", "use super::builder::Builder;\n\n/// Builds through serde.\npub fn from_serde() -> u32 {\n    Builder::new().0\n}\n"),
    ]);
    let checks_with_serde = || {
        std::process::Command::new("cargo")
            .args(["check", "--features", "serde", "--quiet"])
            .current_dir(dir.path())
            .env("CARGO_TARGET_DIR", dir.path().join("target/by-hand"))
            .output()
            .expect("cargo check")
            .status
            .success()
    };
    assert!(checks_with_serde(), "the fixture builds with serde");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 4, "symbol": "builder", "new_name": "assembler"}));
    assert!(dir.path().join("src/assembler.rs").is_file(), "the module was renamed:\n{text}");
    assert!(
        text.contains("left unrenamed: 1 occurrence in code rust-analyzer does not analyze (1 behind a `#[cfg]` that is off"),
        "{text}"
    );
    assert!(text.contains("src/serde.rs:1: use super::builder::Builder;"), "{text}");
    assert!(!checks_with_serde(), "ground truth: the serde build breaks where the answer says\n{text}");
}
