//! Wrong answer from the fresh-user trial 99 (indexmap 2.2.6), against the real rust-analyzer
//! and cargo, on a fixture of the same shape:
//! - F1: renaming `Entry::or_insert`, a method of a type declared in a private module and made
//!   public by `pub use` in the public module `map` (not at the crate root), gave no "public API
//!   changed" note; a crate that calls `.or_insert` then failed with E0599.
//!
//! Ground truth: cargo, in a crate that depends on the fixture by path.

use crate::support;

use serde_json::json;

#[test]
fn renaming_a_method_of_a_type_a_public_module_re_exports_notes_the_public_api() {
    let test = "lsp_trial99::renaming_a_method_of_a_type_a_public_module_re_exports_notes_the_public_api";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"indexish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "pub mod map;\n"),
        ("src/map.rs", "mod core;\npub use self::core::Entry;\n"),
        ("src/map/core.rs", "mod entry;\npub use self::entry::Entry;\n"),
        ("src/map/core/entry.rs", "pub struct Entry(pub u32);\n\nimpl Entry {\n    pub fn or_insert(self, value: u32) -> u32 {\n        self.0.max(value)\n    }\n}\n"),
    ]);
    let user = support::workspace_with(&[
        (
            "Cargo.toml",
            &format!(
                "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nindexish = {{ path = {:?} }}\n",
                dir.path()
            ),
        ),
        ("src/main.rs", "fn main() {\n    println!(\"{}\", indexish::map::Entry(1).or_insert(2));\n}\n"),
    ]);
    assert!(support::cargo_by_hand(user.path(), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/map/core/entry.rs", "line": 4, "symbol": "or_insert", "new_name": "or_put"}),
    );
    assert!(
        text.contains("note: public API changed: src/map/core/entry.rs:4 defines the public method or associated function `or_insert` (public if its type is) in module `indexish::map`"),
        "{text}"
    );
    // Ground truth: the dependent crate no longer compiles.
    let check = support::cargo_by_hand(user.path(), &["check", "--offline"], &[]);
    assert!(String::from_utf8_lossy(&check.stderr).contains("error[E0599]"), "{}", String::from_utf8_lossy(&check.stderr));
}
