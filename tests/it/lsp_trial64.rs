//! Wrong answers from the fresh-user trial 64 (slab 0.4.9), against the real rust-analyzer and
//! the real cargo, on a fixture of the same shape:
//! - F1: renaming the module `builder` (a file rename) skipped the whole grep check and said
//!   nothing of `src/serde.rs`'s `use super::{builder::Builder, …}`, compiled only with the
//!   `serde` feature; "no new errors", and `cargo check --all-features` failed (E0432).
//!
//! - M1: `implementation` of the struct `Slab` listed 8 impl blocks of the 12 the source has,
//!   with no note: the 2 for `&Slab`/`&mut Slab` and the 2 under the `serde` feature missing.
//!
//! Ground truth: `cargo check --features serde` after the rename; a line scan of `impl` headers.

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
    let checks_with_serde = || support::cargo_by_hand(dir.path(), &["check", "--features", "serde", "--quiet"], &[]).status.success();
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

#[test]
fn implementation_of_a_struct_names_the_impl_blocks_rust_analyzer_leaves_out() {
    let test = "lsp_trial64::implementation_of_a_struct_names_the_impl_blocks_rust_analyzer_leaves_out";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let lib = "#[cfg(feature = \"serde\")]\nmod serde;\n\n/// A bag.\npub struct Bag {\n    items: Vec<u32>,\n}\n\nimpl Bag {\n    /// Its length.\n    pub fn len(&self) -> usize {\n        self.items.len()\n    }\n}\n\nimpl<'a> IntoIterator for &'a Bag {\n    type Item = &'a u32;\n    type IntoIter = std::slice::Iter<'a, u32>;\n\n    fn into_iter(self) -> Self::IntoIter {\n        self.items.iter()\n    }\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"bags\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nserde = []\n"),
        ("src/lib.rs", lib),
        ("src/serde.rs", "impl Default for super::Bag {\n    fn default() -> Self {\n        super::Bag { items: Vec::new() }\n    }\n}\n"),
    ]);
    // Ground truth: the impl headers of `Bag` a line scan finds.
    let headers: Vec<String> = [("src/lib.rs", lib), ("src/serde.rs", "impl Default for super::Bag {")]
        .iter()
        .flat_map(|(file, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, line)| line.starts_with("impl") && line.contains("Bag"))
                .map(move |(index, _)| format!("{file}:{}", index + 1))
        })
        .collect();
    assert_eq!(headers, ["src/lib.rs:9", "src/lib.rs:16", "src/serde.rs:1"], "ground truth");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 5, "symbol": "Bag"}));
    assert!(text.contains("src/lib.rs:9: impl Bag {"), "{text}");
    assert!(
        text.contains("note: NOT in this answer: 2 impl block(s) of `Bag` grep finds: src/lib.rs:16, src/serde.rs:1 — rust-analyzer leaves out impls for a reference to the type"),
        "{text}"
    );
}
