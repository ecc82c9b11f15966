//! Wrong answer from the fresh-user trial 83 (rand_core 0.6.4), against the real rust-analyzer and
//! cargo, on a fixture of the same shape:
//! - F1: an edit whose only change sat inside `#[cfg_attr(feature = "serde1", derive(…))]` read
//!   "checked … no errors in the files that were checked"; `cargo check --features serde1` failed
//!   on that line.
//!
//! Ground truth: cargo with and without the feature.

use crate::support;

use serde_json::json;

const BLOCK: &str = "#[derive(Clone, Debug)]\n#[cfg_attr(\n    feature = \"serde1\",\n    derive(PartialEq)\n)]\npub struct BlockRng {\n    pub index: usize,\n}\n";

#[test]
fn an_edit_inside_an_off_cfg_attr_is_said_not_checked() {
    let test = "lsp_trial83::an_edit_inside_an_off_cfg_attr_is_said_not_checked";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"cores\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = []\nserde1 = []\n\n[dependencies]\n"),
        ("src/lib.rs", BLOCK),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "    derive(PartialEq)", "new_string": "    derive(PartialEqual)"}),
    );
    assert!(text.contains("lie inside `#[cfg_attr(feature = \"serde1\","), "{text}");
    assert!(text.contains("NOT compiled"), "{text}");
    assert!(text.contains("except the written lines of src/lib.rs that rust-analyzer does not compile"), "{text}");
    assert!(text.contains("`cargo check --features serde1`"), "{text}");
    // Ground truth: the default build passes, the feature's build fails on that line.
    assert!(support::cargo_by_hand(dir.path(), &["check", "--quiet"], &[]).status.success());
    let serde1 = support::cargo_by_hand(dir.path(), &["check", "--quiet", "--features", "serde1"], &[]);
    assert!(!serde1.status.success() && String::from_utf8_lossy(&serde1.stderr).contains("PartialEqual"));
}
