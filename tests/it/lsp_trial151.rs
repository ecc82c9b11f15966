//! Wrong answers from the fresh-user trial 151 (either 1.13.0 with a `downstream` crate that
//! depends on it by path), against the real cargo, on fixtures of the same shape:
//! - M8: the project check's `features: ["serde"]` (the library's feature, the next step the
//!   tool itself named) was passed to the downstream crate listed first, which has no such
//!   feature: cargo refused it and the check was incomplete.
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
