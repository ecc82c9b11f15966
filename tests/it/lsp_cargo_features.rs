//! `lsp` `diagnostics` `"*"` on Rust and cargo features, against real cargo (and, for the
//! resync cap, real pyright). Trial on `either`: a type error in its `serde` module (compiled
//! only under `#[cfg(feature = "serde")]`) answered "0 errors, 1 warning" without saying that
//! code behind non-default features was not checked. Now:
//! - the answer names each workspace member's features left off, the files whose gated code
//!   was NOT checked (a gated `mod`'s file as a whole file), and the `features` argument that
//!   checks it; with that argument cargo reports the error;
//! - `all_features` on a crate with mutually exclusive features says the crate's
//!   `compile_error!` refused the combination, with its message; an unknown feature fails with
//!   cargo's own message and the declared features;
//! - features that one member enables in another through its dependency are counted enabled;
//! - more files changed outside the tools than the open/close cap (64) are said NOT re-synced.

use crate::support;

use std::path::Path;

use runbound::{Caller, Run, RunConfig};
use serde_json::{json, Value};

fn checker_run(workspace: &Path) -> Run {
    Run::builder(workspace).config(RunConfig::default()).language_servers().build().expect("build run")
}

fn check(run: &Run, extra: Value) -> (bool, String, Option<Value>) {
    let mut args = json!({"op": "diagnostics", "file": "*"});
    for (key, value) in extra.as_object().expect("object") {
        args[key] = value.clone();
    }
    let result = run.call(Caller::Readonly, "lsp", args);
    (result.is_error, result.joined_text(), result.structured_content)
}

/// A crate whose default features leave a module with a type error, and two mutually exclusive
/// features, unchecked; `not(feature = "std")` code is left out by the default `std`.
fn gated_crate() -> tempfile::TempDir {
    support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"gates\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"std\"]\nstd = []\nextra = []\nfast = []\nslow = []\n",
        ),
        (
            "src/lib.rs",
            "#[cfg(feature = \"extra\")]\nmod extra;\n\n#[cfg(all(feature = \"fast\", feature = \"slow\"))]\ncompile_error!(\"features `fast` and `slow` are mutually exclusive\");\n\npub fn active() -> u32 {\n    1\n}\n\n#[cfg(not(feature = \"std\"))]\npub fn without_std() -> u32 {\n    2\n}\n",
        ),
        ("src/extra.rs", "pub fn extra() -> u32 {\n    let n: u32 = \"not a number\";\n    n\n}\n"),
    ])
}

#[test]
fn default_features_name_the_features_left_off_and_the_gated_files_not_checked() {
    if support::require_binary("lsp_cargo_features::default_features_name_the_features_left_off_and_the_gated_files_not_checked", "cargo")
        .is_none()
    {
        return;
    }
    let dir = gated_crate();
    let run = checker_run(dir.path());
    let (is_error, text, structured) = check(&run, json!({}));
    assert!(!is_error, "{text}");
    // Ground truth: plain `cargo check` compiles none of src/extra.rs, so it finds no error.
    assert!(
        text.starts_with(
            "project check: 0 errors, 0 warnings, 0 other — NOT checked: code behind cargo features not enabled in this check (gates: extra, fast, slow)"
        ),
        "{text}"
    );
    assert!(
        text.contains("features of `gates` (Cargo.toml) NOT enabled in this check (default features; enabled: std): extra, fast, slow"),
        "{text}"
    );
    assert!(text.contains("src/extra.rs (whole file: its `mod` at src/lib.rs:1 is gated on extra)"), "{text}");
    assert!(text.contains("src/lib.rs:1 (extra, fast, slow)"), "{text}");
    assert!(text.contains(r#"{"op": "diagnostics", "file": "*", "features": ["extra", "fast", "slow"]}"#), "{text}");
    assert!(
        text.contains("`cfg(not(feature = …))` for enabled features was NOT compiled either, in 1 file: src/lib.rs:11 (std)"),
        "{text}"
    );
    let structured = structured.expect("structured");
    assert_eq!(structured["features_not_checked"], json!(["gates: extra, fast, slow"]), "{structured}");
    let package = &structured["runs"][0]["features"][0];
    assert_eq!(package["not_enabled"], json!(["extra", "fast", "slow"]), "{structured}");
    assert_eq!(package["enabled"], json!(["std"]), "{structured}");
    assert_eq!(package["gated_files_total"], 2, "{structured}");

    // The next step the answer gave finds the error plain cargo check cannot see.
    let (is_error, text, structured) = check(&run, json!({"features": ["extra"]}));
    assert!(!is_error, "{text}");
    assert!(text.starts_with("project check: 1 error, 0 warnings, 0 other — NOT checked: code behind cargo features not enabled in this check (gates: fast, slow)"), "{text}");
    assert!(
        text.contains("ran `cargo check --all-targets --keep-going --message-format=json --quiet --features extra --target-dir "),
        "{text}"
    );
    assert!(text.contains("src/extra.rs:2: error[E0308] mismatched types (rustc; in lib `gates` — lib and lib test builds)"), "{text}");
    assert_eq!(structured.expect("structured")["cargo_feature_arguments"], json!(["--features", "extra"]));
}

#[test]
fn all_features_on_mutually_exclusive_features_says_the_crate_refused_the_combination() {
    if support::require_binary(
        "lsp_cargo_features::all_features_on_mutually_exclusive_features_says_the_crate_refused_the_combination",
        "cargo",
    )
    .is_none()
    {
        return;
    }
    let dir = gated_crate();
    let run = checker_run(dir.path());
    let (is_error, text, structured) = check(&run, json!({"all_features": true}));
    assert!(!is_error, "{text}");
    assert!(
        text.contains("ran `cargo check --all-targets --keep-going --message-format=json --quiet --all-features --target-dir "),
        "{text}"
    );
    assert!(
        text.contains("cargo check with `--all-features` stopped at compile_error!: src/lib.rs:5: features `fast` and `slow` are mutually exclusive — the crate refuses this combination of features"),
        "{text}"
    );
    assert!(text.contains("features of `gates` (Cargo.toml): every feature enabled (extra, fast, slow, std)"), "{text}");
    assert!(!text.contains("NOT checked: code behind"), "{text}");
    let structured = structured.expect("structured");
    assert_eq!(structured["runs"][0]["compile_errors"], json!(["src/lib.rs:5: features `fast` and `slow` are mutually exclusive"]));

    // A feature the package does not declare: cargo's own message, and what is declared.
    let (is_error, text, _) = check(&run, json!({"features": ["nope"]}));
    assert!(is_error, "{text}");
    assert!(text.contains("nope") && text.contains("cargo exited with"), "cargo's message is named: {text}");
    assert!(text.contains("cargo refused the requested features (`--features nope`"), "{text}");
    assert!(text.contains("declared: gates (Cargo.toml): extra, fast, slow, std"), "{text}");

    // On any other op the arguments are refused, not ignored.
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs", "features": ["extra"]}));
    assert!(result.is_error && result.joined_text().contains("apply to the project check"), "{}", result.joined_text());
}

#[test]
fn workspace_members_are_reported_each_and_features_enabled_by_a_member_count_as_enabled() {
    if support::require_binary(
        "lsp_cargo_features::workspace_members_are_reported_each_and_features_enabled_by_a_member_count_as_enabled",
        "cargo",
    )
    .is_none()
    {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"core\", \"app\"]\nresolver = \"2\"\n"),
        ("core/Cargo.toml", "[package]\nname = \"core-lib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nfmt = []\nraw = []\n"),
        (
            "core/src/lib.rs",
            "#[cfg(feature = \"fmt\")]\npub fn shown() -> String {\n    String::new()\n}\n\n#[cfg(feature = \"raw\")]\npub mod raw;\n",
        ),
        ("core/src/raw.rs", "pub fn raw() -> u8 {\n    0\n}\n"),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ncore-lib = { path = \"../core\", features = [\"fmt\"] }\n\n[features]\ntrace = []\n",
        ),
        ("app/src/lib.rs", "#[cfg(feature = \"trace\")]\npub fn traced() -> bool {\n    true\n}\n"),
    ]);
    let run = checker_run(dir.path());
    let (is_error, text, structured) = check(&run, json!({}));
    assert!(!is_error, "{text}");
    // `fmt` is on through app's dependency (cargo unifies features): only `raw` is off in core.
    assert!(text.contains("(app: trace; core-lib: raw)"), "{text}");
    assert!(
        text.contains("features of `core-lib` (core/Cargo.toml) NOT enabled in this check (default features; enabled: fmt): raw"),
        "{text}"
    );
    assert!(text.contains("core/src/raw.rs (whole file: its `mod` at core/src/lib.rs:6 is gated on raw)"), "{text}");
    assert!(
        text.contains("features of `app` (app/Cargo.toml) NOT enabled in this check (default features; enabled: none): trace"),
        "{text}"
    );
    assert!(text.contains(r#""features": ["core-lib/raw"]"#), "a member's feature is named with its package: {text}");
    let structured = structured.expect("structured");
    assert_eq!(structured["runs"].as_array().map(Vec::len), Some(1), "one cargo run for the workspace: {structured}");
    // The member syntax the answer suggests is what cargo takes.
    let (is_error, text, _) = check(&run, json!({"features": ["core-lib/raw", "app/trace"]}));
    assert!(!is_error, "{text}");
    assert!(!text.contains("NOT checked: code behind"), "{text}");
    assert!(text.contains("features of `core-lib` (core/Cargo.toml): every feature enabled (fmt, raw)"), "{text}");
}

/// More files created outside the tools than get an open/close cycle (64): the answer says how
/// many were not re-synced and what that means (pyright ignores bare creation events).
#[test]
fn more_outside_changes_than_the_open_close_cap_are_said_not_resynced() {
    let test = "lsp_cargo_features::more_outside_changes_than_the_open_close_cap_are_said_not_resynced";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"many\"\nversion = \"0.1.0\"\n"),
        ("main.py", "def main() -> int:\n    return 1\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let first = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "main.py"}));
    assert!(!first.is_error, "{}", first.joined_text());
    assert!(!first.joined_text().contains("NOT re-synced"), "{}", first.joined_text());
    for index in 0..70 {
        std::fs::write(dir.path().join(format!("mod_{index:02}.py")), format!("VALUE_{index} = {index}\n")).unwrap();
    }
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "main.py"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("6 of the 70 files changed outside the tools (not open in pyright) were NOT re-synced by an open/close cycle (cap 64 per call; e.g. mod_64.py, mod_65.py, mod_66.py, …): they reach pyright only through workspace/didChangeWatchedFiles"),
        "{text}"
    );
    // Nothing changed since: nothing to say.
    let again = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "main.py"}));
    assert!(!again.joined_text().contains("NOT re-synced"), "{}", again.joined_text());
}

/// Feature arguments on a workspace with no Cargo root are said unused, never silently dropped.
#[test]
fn feature_arguments_without_a_cargo_root_are_said_unused() {
    if support::require_binary("lsp_cargo_features::feature_arguments_without_a_cargo_root_are_said_unused", "pyright").is_none() {
        return;
    }
    let dir =
        support::workspace_with(&[("pyproject.toml", "[project]\nname = \"p\"\nversion = \"0.1.0\"\n"), ("m.py", "x: int = \"a\"\n")]);
    let run = checker_run(dir.path());
    let (is_error, text, _) = check(&run, json!({"all_features": true}));
    assert!(!is_error, "{text}");
    assert!(text.starts_with("project check: 1 error"), "{text}");
    assert!(
        text.contains("note: `--all-features` was not used: it applies to cargo check, and this workspace has no Cargo root"),
        "{text}"
    );
}
