//! Wrong answers from the fresh-user trial 151 (either 1.13.0 with a `downstream` crate that
//! depends on it by path), against the real cargo, on fixtures of the same shape:
//! - M8: the project check's `features: ["serde"]` (the library's feature, the next step the
//!   tool itself named) was passed to the downstream crate listed first, which has no such
//!   feature: cargo refused it and the check was incomplete.
//!
//! - F1: an edit that broke a `macro_rules!` body (`debug_assertx!`, a macro that does not
//!   exist) read "no new errors": rustc's error has no code, and rust-analyzer's hint at each call
//!   of the macro was counted as a warning; cargo check failed.
//!
//! Ground truth: cargo run by hand in each crate.

use crate::support;

use serde_json::json;

#[test]
fn a_feature_only_a_later_cargo_root_declares_is_not_passed_to_the_first() {
    let test = "lsp_trial151::a_feature_only_a_later_cargo_root_declares_is_not_passed_to_the_first";
    if support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "lib/Cargo.toml",
            "[package]\nname = \"eitherish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = []\nextra = []\n",
        ),
        (
            "lib/src/lib.rs",
            "pub fn left(n: u8) -> u8 {\n    n\n}\n\n#[cfg(feature = \"extra\")]\npub fn right() -> u8 {\n    \"not a byte\"\n}\n",
        ),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\neitherish = { path = \"../lib\" }\n",
        ),
        ("app/src/main.rs", "fn main() {\n    println!(\"{}\", eitherish::left(1));\n}\n"),
    ]);
    // Ground truth: cargo refuses the feature in app, builds app without it, and the library's
    // gated code has an error of its own.
    let refused = support::cargo_by_hand(&dir.path().join("app"), &["check", "--offline", "--features", "extra"], &[]);
    assert!(!refused.status.success(), "{}", String::from_utf8_lossy(&refused.stderr));
    let app = support::cargo_by_hand(&dir.path().join("app"), &["check", "--offline"], &[]);
    assert!(app.status.success(), "{}", String::from_utf8_lossy(&app.stderr));
    let lib = support::cargo_by_hand(&dir.path().join("lib"), &["check", "--offline", "--features", "extra"], &[]);
    assert!(String::from_utf8_lossy(&lib.stderr).contains("error[E0308]"), "{}", String::from_utf8_lossy(&lib.stderr));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*", "features": ["extra"]}));
    assert!(text.contains("lib/src/lib.rs:7: error[E0308]"), "the library's feature was not enabled:\n{text}");
    assert!(text.contains("left out for it: `extra` (`app` declares no such feature)"), "{text}");
    assert!(!text.contains("cargo refused the requested features"), "{text}");
    assert!(text.starts_with("project check: 1 error"), "{text}");
}

const MACRO_LIBRARY: &str = "macro_rules! checked {\n    ($e:expr) => {{\n        debug_assert!($e);\n        $e\n    }};\n}\n\npub fn left(flag: bool) -> bool {\n    checked!(flag)\n}\n\npub fn right(flag: bool) -> bool {\n    checked!(!flag)\n}\n";

#[test]
fn an_error_without_a_code_in_a_macro_body_is_an_error_at_each_call() {
    let test = "lsp_trial151::an_error_without_a_code_in_a_macro_body_is_an_error_at_each_call";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"eitherish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", MACRO_LIBRARY),
    ]);
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "debug_assert!($e);", "new_string": "debug_assertx!($e);"}),
    );
    // Ground truth: cargo fails, one error per call of the macro.
    let cargo = support::cargo_by_hand(dir.path(), &["check", "--offline", "--message-format=short"], &[]);
    let stderr = String::from_utf8_lossy(&cargo.stderr).into_owned();
    assert!(!cargo.status.success() && stderr.contains("cannot find macro `debug_assertx` in this scope"), "{stderr}");
    assert!(!text.contains("no new errors in src/lib.rs"), "{text}");
    assert!(text.contains("error") && text.contains("cannot find macro `debug_assertx`"), "{text}");
    assert!(text.contains("src/lib.rs:9: error") && text.contains("src/lib.rs:13: error"), "one error at each call:\n{text}");
}

/// Trial 151 M7: an `edit` whose `old_string` equals its `new_string` took 10 s to be refused:
/// the pre-write layer started rust-analyzer and waited for the file's state first. It is refused
/// before any server is started.
#[test]
fn an_edit_refused_for_identical_text_starts_no_language_server() {
    let test = "lsp_trial151::an_edit_refused_for_identical_text_starts_no_language_server";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"eitherish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "//! Either.\n\npub fn left(n: u8) -> u8 {\n    n\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let refused = run.call(runbound::Caller::Main, "edit", json!({"path": "src/lib.rs", "old_string": "//!", "new_string": "//!"}));
    let text = refused.joined_text();
    assert!(refused.is_error && text.contains("old_string and new_string are identical"), "{text}");
    let status = support::call_ok(&run, "lsp", json!({"op": "status"}));
    assert!(status.contains("rust-analyzer"), "{status}");
    assert!(!status.contains("running pid"), "no server was started for the refused edit:\n{status}");
}
