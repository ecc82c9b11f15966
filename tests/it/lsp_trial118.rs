//! Wrong answer from the fresh-user trial 118 (either 1.13.0), against the real rust-analyzer,
//! on a fixture of the same shape:
//! - F1: `implementation` asked at `next` of `impl Iterator for Either` listed the 275 other
//!   implementations of `Iterator::next` (rust-analyzer's answer) and said they "implement or
//!   extend it"; nothing implements a method of an impl block: they are its siblings.
//!
//! Ground truth: the fixture's two `next` methods implement the trait method; neither
//! implements the other (the compiler has no specialization to allow it).

use crate::support;

use serde_json::json;

#[test]
fn implementation_at_a_trait_impl_method_says_the_list_holds_the_trait_methods_other_implementations() {
    let test = "lsp_trial118::implementation_at_a_trait_impl_method_says_the_list_holds_the_trait_methods_other_implementations";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"eitherish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "/// One of two iterators.\npub enum Either<L, R> {\n    /// The left one.\n    Left(L),\n    /// The right one.\n    Right(R),\n}\n\nimpl<L, R> Iterator for Either<L, R>\nwhere\n    L: Iterator,\n    R: Iterator<Item = L::Item>,\n{\n    type Item = L::Item;\n\n    fn next(&mut self) -> Option<Self::Item> {\n        match self {\n            Either::Left(inner) => inner.next(),\n            Either::Right(inner) => inner.next(),\n        }\n    }\n}\n\n/// Counts down.\npub struct Countdown(pub u8);\n\nimpl Iterator for Countdown {\n    type Item = u8;\n\n    fn next(&mut self) -> Option<u8> {\n        self.0 = self.0.checked_sub(1)?;\n        Some(self.0)\n    }\n}\n",
        ),
    ]);
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 16, "symbol": "next"}));
    assert!(text.contains("src/lib.rs:30"), "{text}");
    assert!(
        text.contains("are the other implementations of the trait method `Iterator::next`, which the queried one implements too"),
        "{text}"
    );
    assert!(!text.contains("implement or extend it"), "{text}");
}
