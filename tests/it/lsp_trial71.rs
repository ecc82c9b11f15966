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
    // Listed at the macro call that expands to it (rustc's span is the template line 10).
    assert!(
        text.contains("src/euclid.rs:16: error[E0405]") && text.contains("rustc points into the macro's body at euclid.rs:10"),
        "the template's error is not listed:\n{text}"
    );
}

/// F4: renaming a trait declared with supertraits (`pub trait Float: Num {`) made its doc-test
/// import `use nums::{Zero, Float};` into `{Zero, Floating: Float}` — read as a field shorthand.
#[test]
fn a_trait_with_supertraits_renamed_in_a_doc_test_import_is_renamed_plainly() {
    let test = "lsp_trial71::a_trait_with_supertraits_renamed_in_a_doc_test_import_is_renamed_plainly";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let lib = "pub trait Zero {\n    fn zero() -> Self;\n}\n\n/// A float.\n///\n/// ```\n/// use nums::{Zero, Float};\n///\n/// assert_eq!(<f32 as Float>::half(), 0.5);\n/// assert_eq!(<f32 as Zero>::zero(), 0.0);\n/// ```\npub trait Float: Zero + Copy {\n    fn half() -> Self;\n}\n\nimpl Zero for f32 {\n    fn zero() -> f32 {\n        0.0\n    }\n}\n\nimpl Float for f32 {\n    fn half() -> f32 {\n        0.5\n    }\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"nums\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", lib),
    ]);
    assert!(support::cargo_doc_tests_pass(dir.path()), "ground truth: the doc-test passes before");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 13, "symbol": "Float", "new_name": "Floating"}));
    let written = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(!written.contains("Floating: Float"), "{written}");
    if written.contains("use nums::{Zero, Floating};") {
        assert!(support::cargo_doc_tests_pass(dir.path()), "{written}");
    }
}

/// F3: renaming a trait method that a macro call's argument names (`float_const_impl! { PI, }`,
/// the template using it as `fn PI()` and as `$T::consts::PI`) renamed the standard library's
/// `consts::PI` in a test and in doc-tests; the macro's double use was not warned of.
#[test]
fn a_macro_argument_that_also_names_std_constants_renames_no_std_use() {
    let test = "lsp_trial71::a_macro_argument_that_also_names_std_constants_renames_no_std_use";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let lib = "macro_rules! float_const_impl {\n    ($(#[$doc:meta] $constant:ident,)+) => (\n        #[allow(non_snake_case)]\n        pub trait FloatConst {\n            $(#[$doc] fn $constant() -> Self;)+\n        }\n        impl FloatConst for f64 {\n            $(fn $constant() -> f64 { core::f64::consts::$constant })+\n        }\n    );\n}\n\nfloat_const_impl! {\n    #[doc = \"Return `pi`.\"]\n    PI,\n    #[doc = \"Return `e`.\"]\n    E,\n}\n\n/// Half a turn.\n///\n/// ```\n/// assert!(nums::half_turn() > 3.0 && core::f64::consts::PI > 3.0);\n/// ```\npub fn half_turn() -> f64 {\n    <f64 as FloatConst>::PI()\n}\n\n#[cfg(test)]\nmod tests {\n    use core::f64::consts;\n\n    #[test]\n    fn pi() {\n        assert_eq!(super::half_turn(), consts::PI);\n    }\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"nums\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", lib),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 15, "symbol": "PI", "new_name": "ARCHIMEDES", "preview": true}),
    );
    assert!(!text.contains("src/lib.rs:36:"), "the std constant's use in the test is renamed:\n{text}");
    assert!(!text.contains("+/// assert!(nums::half_turn() > 3.0 && core::f64::consts::ARCHIMEDES"), "{text}");
    assert!(!text.contains("+        assert_eq!(super::half_turn(), consts::ARCHIMEDES)"), "{text}");
    assert!(text.contains("WARNING: this rename edits the argument `PI` of 1 call of `float_const_impl!` (src/lib.rs:15)"), "{text}");
}
