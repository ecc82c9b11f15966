//! Wrong answer from the fresh-user trial 107 (lru 0.12.5), against the real rust-analyzer and
//! cargo, on a fixture of the same shape:
//! - F1: `implementation` of `Hash` said "2 in the workspace" with no caveat, while a
//!   `#[derive(Hash, Eq)]` struct inside a `#[test]` function (compiled in the test build)
//!   implements it too; explicit `impl … for` lines there were named, derives were not.
//!
//! Ground truth: cargo (the test build compiles the derive) and grep.

use crate::support;

use serde_json::json;

#[test]
fn a_derive_inside_a_function_is_named_among_the_implementations_not_listed() {
    let test = "lsp_trial107::a_derive_inside_a_function_is_named_among_the_implementations_not_listed";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let lib = "use std::hash::{Hash, Hasher};\n\npub struct KeyRef(pub u32);\n\nimpl Hash for KeyRef {\n    fn hash<H: Hasher>(&self, state: &mut H) {\n        self.0.hash(state)\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn drops() {\n        #[derive(Hash, PartialEq, Eq)]\n        struct KeyDropCounter(u8);\n        let _ = std::collections::HashSet::from([KeyDropCounter(1)]);\n    }\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"lruish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", lib),
    ]);
    // Ground truth: the test build compiles the derived impl (a HashSet of it).
    assert!(support::cargo_by_hand(dir.path(), &["test", "--offline", "--no-run"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 5, "symbol": "Hash"}));
    assert!(text.contains("src/lib.rs:15"), "the derive inside the test function is not named:\n{text}");
    assert!(!text.contains("rightly not in this answer"), "{text}");
}
