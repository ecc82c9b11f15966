//! Wrong answers from the fresh-user trial 71 (num-traits 0.2.19), against the real
//! rust-analyzer and cargo, on a fixture of the same shape:
//! - F5: a rename whose every edit in `euclid.rs` landed in cfg-off code left that file out of
//!   the check: the 4 errors the rename caused in its tests' macro template were not listed, and
//!   the answer said "no new errors … in the other files cargo compiled".
//!
//! Ground truth: `cargo check --all-targets`.

use crate::support;

use serde_json::json;

#[test]
fn a_file_whose_written_lines_are_all_cfg_off_is_still_checked_elsewhere() {
    let test = "lsp_trial71::a_file_whose_written_lines_are_all_cfg_off_is_still_checked_elsewhere";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let lib = "pub trait FloatCore {\n    fn epsilon() -> Self;\n}\n\nimpl FloatCore for f32 {\n    fn epsilon() -> f32 {\n        f32::EPSILON\n    }\n}\n\npub mod euclid;\n";
    let euclid = "#[cfg(not(feature = \"std\"))]\npub fn tiny() -> f32 {\n    <f32 as crate::FloatCore>::epsilon()\n}\n\n#[cfg(test)]\nmod tests {\n    macro_rules! test_euclid {\n        ($t:ty) => {\n            let _ = <$t as crate::FloatCore>::epsilon();\n        };\n    }\n\n    #[test]\n    fn euclid() {\n        test_euclid!(f32);\n    }\n}\n";
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"nums\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"std\"]\nstd = []\n",
        ),
        ("src/lib.rs", lib),
        ("src/euclid.rs", euclid),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 1, "symbol": "FloatCore", "new_name": "CoreFloat"}));
    let written = std::fs::read_to_string(dir.path().join("src/euclid.rs")).unwrap();
    // Ground truth: the test target's template still names the old trait.
    let checks = support::cargo_by_hand(dir.path(), &["check", "--all-targets", "--message-format", "short"], &[]);
    let stderr = String::from_utf8_lossy(&checks.stderr).into_owned();
    assert!(stderr.contains("src/euclid.rs:10:") && stderr.contains("E0405"), "{stderr}\n{written}");
    if written.contains("crate::CoreFloat>::epsilon()\n}") {
        // rust-analyzer renamed the cfg-off line: every write in euclid.rs is off.
        assert!(text.contains("src/euclid.rs: NOT checked: the written code"), "{text}");
    }
    assert!(text.contains("src/euclid.rs:10: error[E0405]"), "the template's error is not listed:\n{text}");
}
