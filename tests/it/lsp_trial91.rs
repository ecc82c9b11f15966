//! Wrong answers from the fresh-user trial 91 (smallvec 1.13.2 with an in-repo `downstream/`
//! crate, a path dependency on the root crate and no member of any workspace), against the real
//! rust-analyzer and cargo, on a fixture of the same shape:
//! - F3: a rename's grep check of the root's server walked `downstream/` too, and listed its
//!   lines as "left unrenamed … (no definition)" and the file as one "the edit does not change",
//!   while the downstream server's edit in the same answer renamed them.
//!
//! Ground truth: the files after the rename, and cargo in both crates.

use crate::support;

use serde_json::json;

#[test]
fn a_rename_does_not_list_lines_of_a_crate_of_its_own_as_left_unrenamed() {
    let test = "lsp_trial91::a_rename_does_not_list_lines_of_a_crate_of_its_own_as_left_unrenamed";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"smallish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub struct Small(pub Vec<u8>);\n\nimpl Small {\n    pub fn inline_size(&self) -> usize {\n        self.0.len()\n    }\n}\n",
        ),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nsmallish = { path = \"..\" }\n",
        ),
        ("downstream/src/lib.rs", "pub fn size(v: &smallish::Small) -> usize {\n    v.inline_size()\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 4, "symbol": "inline_size", "new_name": "inline_cap"}));
    assert!(!text.contains("downstream/src/lib.rs:2: v.inline_size()"), "{text}");
    assert!(!text.contains("the edit does not change: downstream/src/lib.rs"), "{text}");
    assert!(text.contains("skipped downstream/ (cargo packages of their own"), "{text}");
    let downstream = std::fs::read_to_string(dir.path().join("downstream/src/lib.rs")).unwrap();
    assert!(downstream.contains("v.inline_cap()"), "{downstream}\n{text}");
    let check = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
}

/// F1: the errors a library's macro raises where a test calls it were omitted from the test
/// file's diagnostics as hints ("no errors or warnings … (11 hint-level diagnostics omitted)").
#[test]
fn errors_raised_in_a_macro_expansion_are_errors_of_the_file_that_calls_it() {
    let test = "lsp_trial91::errors_raised_in_a_macro_expansion_are_errors_of_the_file_that_calls_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let lib = "pub struct Small(pub Vec<u8>);\n\nimpl Small {\n    pub fn inline_size(&self) -> usize {\n        self.0.len()\n    }\n}\n\n#[macro_export]\nmacro_rules! small {\n    () => {\n        $crate::Small(Vec::new()).inline_size()\n    };\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"smallish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", lib),
        ("tests/macro.rs", "#[test]\nfn empty() {\n    assert_eq!(smallish::small!(), 0);\n}\n\n#[test]\nfn again() {\n    let _ = smallish::small!();\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "edit", json!({"path": "src/lib.rs", "old_string": "pub fn inline_size", "new_string": "pub fn inline_sz"}));
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "tests/macro.rs"}));
    assert!(text.contains("diagnostics for tests/macro.rs: 2 errors"), "{text}");
    assert!(
        text.contains("tests/macro.rs:3: error [E0599]")
            && text.contains("(raised in the expansion of the macro called here, at src/lib.rs:12)"),
        "{text}"
    );
    // Ground truth: cargo counts the two calls.
    let check = support::cargo_by_hand(dir.path(), &["check", "--tests", "--offline", "--message-format=short"], &[]);
    let said = String::from_utf8_lossy(&check.stderr).into_owned();
    assert_eq!(said.lines().filter(|line| line.starts_with("tests/macro.rs") && line.contains("E0599")).count(), 2, "{said}");
}
