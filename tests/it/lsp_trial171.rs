//! Wrong answers from the fresh-user trial 171 (bitflags 2.13.2), against the real cargo and
//! rust-analyzer, on fixtures of the same shape:
//! - F1: references (and the rename) of `TestFlags::ABC` merged in `TestFlagsInvert::ABC` and
//!   `TestExternal::ABC`, consts of other structs the same `bitflags!` call declares:
//!   rust-analyzer gave that call's range (`bitflags! {`) as their definition, and the
//!   "definition leads to this symbol" cross-check took it for the asked symbol's.
//! - F2: `edit` giving `parser::to_writer` a third parameter never named the call at
//!   `parser.rs:89` under `#[cfg(feature = "serde")]` in the written file (rust-analyzer, still
//!   indexing, had published no `inactive-code` range): the gates are read by the syntax tree
//!   too. (A warm rust-analyzer publishes the ranges, so the integration test checks the
//!   answer; the unit test in inactive.rs is the one that fails without the fix.)
//!
//! Ground truth: `cargo check` of the fixtures (with and without the feature), and the fixture's
//! own text (which struct each use names).

use crate::support;

use serde_json::json;

/// One macro call declares two structs, each with a const `ABC` written in the template:
/// rust-analyzer gives each const's definition as its template line AND the call's range
/// `two_flags!(First, Second);`, shared by both.
const LIB: &str = "macro_rules! two_flags {\n    ($a:ident, $b:ident) => {\n        pub struct $a;\n        impl $a {\n            pub const ABC: u8 = 1;\n        }\n        pub struct $b;\n        impl $b {\n            pub const ABC: u8 = 2;\n        }\n    };\n}\n\ntwo_flags!(First, Second);\n\npub mod uses;\n";
const USES: &str = "use crate::{First, Second};\n\npub fn first_value() -> u8 {\n    First::ABC\n}\n\npub fn second_value() -> u8 {\n    Second::ABC\n}\n\npub fn both() -> u8 {\n    First::ABC + Second::ABC\n}\n";

/// F1: the references of `First::ABC` hold no use of `Second::ABC`.
#[test]
fn consts_of_other_structs_one_macro_call_declares_are_not_merged_into_references() {
    let test = "lsp_trial171::consts_of_other_structs_one_macro_call_declares_are_not_merged_into_references";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"flagsets\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", LIB),
        ("src/uses.rs", USES),
    ]);
    let checked = support::cargo_by_hand(dir.path(), &["check", "--quiet"], &[]);
    assert!(checked.status.success(), "ground truth: the fixture compiles: {checked:?}");
    // Ground truth from the text: the lines of src/uses.rs that name `First::ABC`, and those that
    // name only `Second::ABC`.
    let first_lines: Vec<usize> = USES.lines().enumerate().filter(|(_, line)| line.contains("First::ABC")).map(|(at, _)| at + 1).collect();
    let second_only: Vec<usize> = USES
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains("Second::ABC") && !line.contains("First::ABC"))
        .map(|(at, _)| at + 1)
        .collect();
    assert_eq!((first_lines.as_slice(), second_only.as_slice()), ([4, 12].as_slice(), [8].as_slice()));
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // The call's range is among the definitions rust-analyzer gives (the shape of the finding).
    let definition = support::call_ok(&run, "lsp", json!({"op": "definition", "file": "src/uses.rs", "line": 8, "symbol": "ABC"}));
    assert!(definition.contains("src/lib.rs:14: two_flags!(First, Second);"), "{definition}");
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/uses.rs", "line": 4, "symbol": "ABC"}));
    for line in &first_lines {
        assert!(text.contains(&format!("\n  {line}: ")), "`First::ABC` at src/uses.rs:{line} is listed:\n{text}");
    }
    for line in &second_only {
        assert!(!text.contains(&format!("\n  {line}: ")), "`Second::ABC` at src/uses.rs:{line} is another const:\n{text}");
    }
    assert!(!text.contains("pub const ABC: u8 = 2;"), "`Second`'s const is another const:\n{text}");
    assert!(!text.contains("asked again from"), "nothing was merged:\n{text}");
}

/// F2: a signature change's check names the call of the changed function behind a feature that
/// is off, in the written file itself, with the check that compiles it.
#[test]
fn a_cfg_off_call_of_a_changed_function_in_the_written_file_is_named() {
    let test = "lsp_trial171::a_cfg_off_call_of_a_changed_function_in_the_written_file_is_named";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let lib = "/// Writes.\npub fn to_writer(flags: u8) -> u8 {\n    flags\n}\n\n/// Shows.\n#[cfg(feature = \"serde\")]\npub fn show() -> u8 {\n    to_writer(1)\n}\n\n/// Uses.\npub fn uses() -> u8 {\n    to_writer(2)\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"writers\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nserde = []\n"),
        ("src/lib.rs", lib),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn to_writer(flags: u8) -> u8 {", "new_string": "pub fn to_writer(flags: u8, separator: u8) -> u8 {\n    let _ = separator;"}),
    );
    // Ground truth: the default build breaks at the active call only, the serde build at both.
    let default_build = support::cargo_by_hand(dir.path(), &["check", "--message-format", "short"], &[]);
    let serde_build = support::cargo_by_hand(dir.path(), &["check", "--features", "serde", "--message-format", "short"], &[]);
    let stderr = |output: &std::process::Output| String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr(&default_build).contains("src/lib.rs:10:"), "{}", stderr(&default_build));
    assert!(stderr(&serde_build).contains("src/lib.rs:10:5: error[E0061]"), "{}", stderr(&serde_build));
    assert!(text.contains("line 10 uses `to_writer` (under `#[cfg(feature = \"serde\")]` at line 8)"), "{text}");
    assert!(text.contains("\"features\": [\"serde\"]"), "{text}");
}
