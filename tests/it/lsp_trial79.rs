//! Wrong answer from the fresh-user trial 79 (byteorder 1.5.0), against the real cargo, on a
//! fixture of the same shape:
//! - F1: `lsp diagnostics "*"` counted the errors of one macro call once, however many its
//!   expansion held, and called the rest "repeated by another target or step": 121 errors
//!   "(+240 repeated)" where cargo's `lib test` had 360.
//!
//! Ground truth: cargo's own count per target ("could not compile … due to N previous errors").

use crate::support;

use serde_json::json;

const LIB: &str = "pub fn write(buf: &mut [u8], n: u8) {\n    buf[0] = n;\n}\n\nmacro_rules! three_writes {\n    ($name:ident) => {\n        pub fn $name() {\n            let mut buf = [0u8; 1];\n            write(&mut buf, 1);\n            write(&mut buf, 2);\n            write(&mut buf, 3);\n        }\n    };\n}\n\nthree_writes!(first);\n\n#[cfg(test)]\nmod tests {\n    use super::write;\n    three_writes!(second);\n}\n";

/// The error count cargo gives `target` (`lib`, `lib test`) in `stderr`.
fn cargo_count(stderr: &str, target: &str) -> usize {
    let marker = format!("({target}) due to ");
    stderr
        .lines()
        .find_map(|line| line.split_once(&marker).map(|(_, rest)| rest.split_whitespace().next().unwrap_or("1").parse().unwrap_or(1)))
        .unwrap_or(0)
}

#[test]
fn each_error_of_one_macro_call_is_counted_and_the_other_targets_copies_are_not() {
    let test = "lsp_trial79::each_error_of_one_macro_call_is_counted_and_the_other_targets_copies_are_not";
    if support::require_binary(test, "cargo").is_none() || support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"orders\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", &LIB.replace("pub fn write(buf: &mut [u8], n: u8)", "pub fn write(buf: &mut [u8], n: u8, checked: bool)")),
    ]);
    // Ground truth: 3 errors in `lib`, 6 in `lib test` (the same 3 and the test module's 3).
    let output = support::cargo_by_hand(dir.path(), &["check", "--all-targets", "--keep-going"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!((cargo_count(&stderr, "lib"), cargo_count(&stderr, "lib test")), (3, 6), "{stderr}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("project check: 6 errors"), "{text}");
    // The lib's 3 errors and its unused-variable warning again from `lib test`: 4 repeats.
    assert!(text.contains("7 diagnostics (+4 repeated by another target or step, listed once)"), "{text}");
    assert!(text.contains("(in the macro's expansion, from src/lib.rs:9)"), "the body line is named:\n{text}");
}
