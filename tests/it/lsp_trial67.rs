//! Wrong answer from the fresh-user trial 67 (once_cell 1.19.0), against the real rust-analyzer
//! and cargo, on a fixture of the same shape:
//! - F3: `references` of `imp::OnceCell` asked at its declaration left out the uses through the
//!   renaming import `use super::imp::OnceCell as Imp;` (`OnceCell(Imp<T>)`, `Imp::new()`),
//!   which rust-analyzer lists neither from the item nor from the alias.
//!
//! Ground truth: cargo, with `#[deprecated]` on the item: one warning per use.

use crate::support;

use serde_json::json;

const LIB: &str = "mod imp {\n    pub struct Cell(pub u8);\n\n    impl Cell {\n        pub fn new() -> Cell {\n            Cell(0)\n        }\n    }\n}\n\npub mod sync {\n    use super::imp::Cell as Imp;\n\n    pub struct Holder(Imp);\n\n    pub fn make() -> Holder {\n        Holder(Imp::new())\n    }\n}\n";

#[test]
fn references_follow_a_renaming_use_to_the_uses_of_its_alias() {
    let test = "lsp_trial67::references_follow_a_renaming_use_to_the_uses_of_its_alias";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"cells\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", LIB),
    ]);
    // Ground truth: the deprecated item is used at lines 6 (`Cell(0)`), 12 (the `use`), 14 and 17.
    std::fs::write(dir.path().join("src/lib.rs"), LIB.replace("    pub struct Cell", "    #[deprecated]\n    pub struct Cell")).unwrap();
    let checks = support::cargo_by_hand(dir.path(), &["check", "--message-format", "short"], &[]);
    let warned: Vec<String> = String::from_utf8_lossy(&checks.stderr)
        .lines()
        .filter(|line| line.contains("use of deprecated"))
        .filter_map(|line| line.split(':').nth(1).map(str::to_owned))
        .collect();
    assert!(warned.contains(&"15".to_owned()) && warned.contains(&"18".to_owned()), "uses through the alias (one line down):{warned:?}");
    std::fs::write(dir.path().join("src/lib.rs"), LIB).unwrap();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 2, "symbol": "Cell"}));
    assert!(text.contains("through the alias `Imp` (`use super::imp::Cell as Imp;` at src/lib.rs:12) added"), "{text}");
    assert!(text.contains("lines 14, 17"), "{text}");
}

/// M1: `implementation` of one of several same-named types named the impls of the others "NOT in
/// this answer", the answer being complete.
#[test]
fn impls_of_another_type_of_the_same_name_are_not_called_missing() {
    let test = "lsp_trial67::impls_of_another_type_of_the_same_name_are_not_called_missing";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let lib = "pub mod unsync {\n    pub struct OnceCell(u8);\n\n    impl OnceCell {\n        pub fn get(&self) -> u8 {\n            self.0\n        }\n    }\n}\n\npub mod sync {\n    pub struct OnceCell(u16);\n\n    impl OnceCell {\n        pub fn get(&self) -> u16 {\n            self.0\n        }\n    }\n\n    impl Clone for OnceCell {\n        fn clone(&self) -> OnceCell {\n            OnceCell(self.0)\n        }\n    }\n}\n\n#[cfg(feature = \"off\")]\nmod imp;\n";
    let imp = "pub(crate) struct OnceCell(u32);\n\nimpl OnceCell {\n    pub(crate) fn new() -> OnceCell {\n        OnceCell(0)\n    }\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"cells\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\noff = []\n"),
        ("src/lib.rs", lib),
        ("src/imp.rs", imp),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 2, "symbol": "OnceCell"}));
    assert!(text.contains("src/lib.rs:4:"), "{text}");
    assert!(!text.contains("NOT in this answer"), "{text}");
    assert!(text.contains("impl block(s) of other declarations named `OnceCell`"), "{text}");
}

/// M3: renaming a module declared with `#[path = "imp_std.rs"]` moves its file while the
/// attribute keeps naming the old one: the preview warns.
#[test]
fn a_module_rename_that_moves_a_file_a_path_attribute_names_is_warned_of() {
    let test = "lsp_trial67::a_module_rename_that_moves_a_file_a_path_attribute_names_is_warned_of";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"cells\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "#[path = \"imp_std.rs\"]\nmod imp;\n\npub use imp::Cell;\n"),
        ("src/imp_std.rs", "pub struct Cell(pub u8);\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 2, "symbol": "imp", "new_name": "backend", "preview": true}),
    );
    if !text.contains("renamed from src/imp_std.rs") {
        // rust-analyzer did not move the file: nothing to warn of.
        assert!(!text.contains("still names the old file"), "{text}");
        return;
    }
    assert!(text.contains("`#[path = \"imp_std.rs\"]` at src/lib.rs:1 still names the old file"), "{text}");
    // Ground truth: accepted as is, the crate does not build.
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(!support::cargo_by_hand(dir.path(), &["check", "--quiet"], &[]).status.success());
}
