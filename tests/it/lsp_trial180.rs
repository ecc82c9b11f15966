//! Wrong answers from the fresh-user trial 180 (itertools 0.14.0 with an `app` member in a cargo
//! workspace), against real cargo on fixtures of the same shape:
//! - F1: `"no_default_features": true` on the project check ran `cargo check --all-targets
//!   --no-default-features` at the workspace root, where `app`'s dependency on itertools keeps
//!   its default features (cargo unifies features): "0 errors", "every feature enabled (use_std)"
//!   and the advice to pass `no_default_features` again, while `cargo check -p itertools
//!   --no-default-features --features use_alloc` gave 114 errors.
//!
//! Ground truth: `cargo check -p a --no-default-features` on the fixture stops at its
//! `compile_error!("built without f")`.

use crate::support;

use runbound::{Caller, Run, RunConfig};
use serde_json::json;

/// Member `a` (default feature `f`; code that refuses to build without it, and code only built
/// without `g`) and member `b`, whose path dependency on `a` keeps `a`'s default features.
fn unifying_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n"),
        ("a/Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"f\"]\nf = []\ng = []\n"),
        (
            "a/src/lib.rs",
            "pub fn one() -> u32 {\n    1\n}\n\n#[cfg(not(feature = \"f\"))]\ncompile_error!(\"built without f\");\n\n#[cfg(not(feature = \"g\"))]\npub fn without_g() -> u32 {\n    2\n}\n",
        ),
        ("b/Cargo.toml", "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\na = { path = \"../a\" }\n"),
        ("b/src/lib.rs", "pub fn two() -> u32 {\n    a::one() + 1\n}\n"),
    ])
}

/// F1: the member whose defaults another member keeps is checked by a `cargo check -p` of its
/// own, so `--no-default-features` reaches it; the advice does not repeat the flag just passed.
#[test]
fn no_default_features_in_a_workspace_checks_a_member_whose_defaults_another_keeps_on_its_own() {
    let test = "lsp_trial180::no_default_features_in_a_workspace_checks_a_member_whose_defaults_another_keeps_on_its_own";
    if support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = unifying_workspace();
    let run = Run::builder(dir.path()).config(RunConfig::default()).language_servers().build().expect("build run");
    let result =
        run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*", "no_default_features": true, "features": ["a/g"]}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Before the fix: "project check: 0 errors" (cargo compiled `a` with `f`, kept by `b`).
    assert!(text.starts_with("project check: 1 error,"), "{text}");
    assert!(text.contains("a/src/lib.rs:6: error built without f"), "{text}");
    assert!(
        text.contains(
            "&& cargo check -p a@0.1.0 --all-targets --keep-going --message-format=json --quiet --no-default-features --features g --target-dir "
        ),
        "{text}"
    );
    assert!(
        text.contains("features of `a` (a/Cargo.toml): checked by its own `cargo check -p a@0.1.0 --all-targets --no-default-features --features g` — in the workspace-wide check `b` keeps its default features"),
        "{text}"
    );
    assert!(
        text.contains("features of `a` (a/Cargo.toml) NOT enabled in this check (`--no-default-features --features a/g`; enabled: g): f"),
        "{text}"
    );
    assert!(!text.contains("every feature enabled"), "{text}");
    // `not(feature = "g")` code stays off with `g` asked for: the advice names what turns it on,
    // not the flag this check already had.
    let negated = text.lines().find(|line| line.contains("cfg(not(feature = …))")).unwrap_or_else(|| panic!("{text}"));
    assert!(negated.contains("a/src/lib.rs:8 (g)"), "{negated}");
    assert!(negated.contains("this check already had `--no-default-features`"), "{negated}");
    assert!(!negated.contains("check it with \"no_default_features\": true"), "{negated}");
}
