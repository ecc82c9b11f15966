//! Wrong answers from the fresh-user trial 66 (fastrand 2.1.1), against the real cargo and
//! rust-analyzer, on a fixture of the same shape:
//! - F3: the project check said "no `cfg` gate naming them was found" of the features `js`,
//!   which `#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "js"))]` names.
//! - F2: a rename's next step for that code was `"features": ["js"]`, which compiles nothing of
//!   it on this host (it needs the wasm target too).
//!
//! Ground truth: `cargo check --features js` is clean while the gated code is broken.

use crate::support;

use serde_json::json;

const LIB: &str = "/// A seed.\npub fn seed() -> u64 {\n    random_seed().unwrap_or(1)\n}\n\n#[cfg(all(\n    any(target_arch = \"wasm32\", target_arch = \"wasm64\"),\n    target_os = \"unknown\",\n    feature = \"js\"\n))]\nfn random_seed() -> Option<u64> {\n    let seed = undefined_name;\n    Some(seed)\n}\n\n#[cfg(not(all(any(target_arch = \"wasm32\", target_arch = \"wasm64\"), target_os = \"unknown\", feature = \"js\")))]\nfn random_seed() -> Option<u64> {\n    None\n}\n";

#[test]
fn features_gated_with_another_target_are_named_with_that_target() {
    let test = "lsp_trial66::features_gated_with_another_target_are_named_with_that_target";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"seeds\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\njs = []\n"),
        ("src/lib.rs", LIB),
    ]);
    let checks = std::process::Command::new("cargo")
        .args(["check", "--features", "js", "--quiet"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target/by-hand"))
        .output()
        .expect("cargo check");
    assert!(checks.status.success(), "ground truth: the broken wasm code is not compiled with js on this host: {checks:?}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(!text.contains("no `cfg` gate naming them was found"), "{text}");
    assert!(text.contains("the `cfg` gates naming them (src/lib.rs:9, src/lib.rs:16) stay off on this host with them on"), "{text}");
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 2, "symbol": "seed", "new_name": "reseed", "preview": true}),
    );
    assert!(text.contains("src/lib.rs:12:"), "the gated occurrence is listed:\n{text}");
    assert!(text.contains("`cargo check --target wasm32-unknown-unknown --features js`"), "{text}");
    assert!(!text.contains("{\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [\"js\"]} compiles"), "{text}");
}
