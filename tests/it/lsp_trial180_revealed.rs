//! Wrong answer from the fresh-user trial 180 (itertools 0.14.0 + an `app` member), against the
//! real rust-analyzer and cargo:
//! - F2: a write that made the broken library compile again reported the error in the dependent
//!   member `app` that an earlier write had caused as "introduced by this write (none was present
//!   before)" — cargo had compiled nothing of `app` before this write, since the library it
//!   depends on failed.

use crate::support;

use serde_json::json;

/// Trial180 F2: in a cargo workspace of `a` and `b` (which depends on `a` by path), the first
/// write breaks `a`'s library (a variant renamed in its definition only); the second fixes `a`'s
/// own use. `b`'s error is then reported as not known to be introduced by the second write.
#[test]
fn a_dependent_members_error_revealed_when_the_library_compiles_again_is_not_called_new() {
    let test = "lsp_trial180_revealed::a_dependent_members_error_revealed_when_the_library_compiles_again_is_not_called_new";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n"),
        ("a/Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("a/src/lib.rs", "pub enum P {\n    A,\n    B,\n}\n\npub fn one() -> i32 {\n    match P::A {\n        P::A => 1,\n        P::B => 2,\n    }\n}\n"),
        ("b/Cargo.toml", "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\na = { path = \"../a\" }\n"),
        ("b/src/lib.rs", "pub fn two() -> i32 {\n    match a::P::A {\n        a::P::A => 1,\n        a::P::B => 2,\n    }\n}\n"),
    ]);
    let mut config = support::config_with_room();
    config.tool_timeouts.insert("edit".to_owned(), std::time::Duration::from_secs(300));
    let run = runbound::Run::builder(dir.path())
        .config(config)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .build()
        .expect("build run");
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "a/src/lib.rs"}));
    support::call_ok(&run, "edit", json!({"path": "a/src/lib.rs", "old_string": "    A,\n    B,\n}", "new_string": "    A,\n    C,\n}"}));
    // Ground truth: `a` fails, so cargo compiles nothing of `b`.
    let broken = support::cargo_by_hand(dir.path(), &["check", "--offline", "--workspace", "--message-format=short"], &[]);
    let broken = String::from_utf8_lossy(&broken.stderr).into_owned();
    assert!(broken.contains("a/src/lib.rs:9") && !broken.contains("b/src/lib.rs"), "{broken}");
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "a/src/lib.rs", "old_string": "        P::B => 2,", "new_string": "        P::C => 2,"}),
    );
    // Ground truth: `a` builds now, and cargo reports `b`'s use of the old variant.
    let after = support::cargo_by_hand(dir.path(), &["check", "--offline", "--workspace", "--message-format=short"], &[]);
    let after = String::from_utf8_lossy(&after.stderr).into_owned();
    assert!(after.contains("b/src/lib.rs:4") && !after.contains("a/src/lib.rs"), "{after}");
    assert!(!text.contains("b/src/lib.rs: new diagnostics introduced by this write"), "{text}");
    assert!(text.contains("b/src/lib.rs: reported now that the library compiles again"), "{text}");
}
