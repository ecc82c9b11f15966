//! Wrong answers from the fresh-user trial 36 (the `bytes` crate 1.9.0, packaging 24.2), against
//! the real servers and compilers on fixtures of the same shape:
//! - F3/F4: packaging ships `tests/requirements.txt`; a second pyright rooted at tests/ served the
//!   test files: `references` from a test missed every use in src/ ("5 references", 17 true), and
//!   a test file got an error the project's pyright does not report.
//!
//! - F5: in a restricted run (cargo check off), one-file `diagnostics` said "rust-analyzer
//!   reports no errors or warnings" for a file rustc rejects (a use after move).
//!
//! Ground truth: grep, the pyright CLI and cargo check.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// F3/F4: a folder whose only marker is a requirements.txt is part of the outer project: one
/// pyright serves tests and sources, and references asked from a test list the uses in src/.
#[test]
fn references_asked_from_a_test_folder_with_its_own_requirements_list_the_uses_in_src() {
    let test = "lsp_trial36::references_asked_from_a_test_folder_with_its_own_requirements_list_the_uses_in_src";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkgname\"\nversion = \"0.1.0\"\n"),
        ("src/pkgname/__init__.py", ""),
        ("src/pkgname/utils.py", "def canonicalize_name(name: str) -> str:\n    return name.lower()\n"),
        (
            "src/pkgname/markers.py",
            "from .utils import canonicalize_name\n\n\ndef marker(value: str) -> str:\n    return canonicalize_name(value) + canonicalize_name(value)\n",
        ),
        ("tests/requirements.txt", "pytest\n"),
        (
            "tests/test_utils.py",
            "from pkgname.utils import canonicalize_name\n\n\ndef test_canonicalize_name() -> None:\n    assert canonicalize_name(\"A\") == \"a\"\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp", json!({"op": "references", "file": "tests/test_utils.py", "line": 5, "symbol": "canonicalize_name"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Ground truth (grep -w, code lines): markers.py:1 and :5 (twice), utils.py:1, and the test's.
    assert!(text.contains("6 references in 3 files"), "{text}");
    assert!(text.contains("src/pkgname/markers.py (3):"), "the uses in src/ are missing:\n{text}");
    let status = run.call(Caller::Main, "lsp", json!({"op": "status"})).joined_text();
    assert!(!status.contains("root tests"), "tests/ is no root of its own:\n{status}");
}

/// F5: a restricted run's rust-analyzer runs no cargo check; a file whose only error is rustc's
/// (a use after move) is not called clean: the answer says rustc did not check it.
#[test]
fn a_restricted_rust_analyzer_answer_does_not_call_a_file_rustc_rejects_clean() {
    let test = "lsp_trial36::a_restricted_rust_analyzer_answer_does_not_call_a_file_rustc_rejects_clean";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"moved\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "pub fn moved() -> usize {\n    let s = String::from(\"a\");\n    let t = s;\n    drop(t);\n    s.len()\n}\n"),
    ]);
    // Ground truth: rustc rejects it (E0382).
    let check = std::process::Command::new("cargo")
        .args(["check", "--quiet", "--offline", "--message-format=short"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .output()
        .expect("cargo check runs");
    assert!(String::from_utf8_lossy(&check.stderr).contains("E0382"), "{}", String::from_utf8_lossy(&check.stderr));
    let run = runbound::Run::builder(dir.path())
        .workspace_trust(runbound::WorkspaceTrust::Restricted)
        .language_servers()
        .build()
        .expect("build run");
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("E0382"), "rust-analyzer reports the move error itself now: is the fixture still F5's?\n{text}");
    assert!(!text.contains("reports no errors or warnings in src/lib.rs"), "called clean:\n{text}");
    assert!(text.contains("no errors or warnings of its own in src/lib.rs"), "{text}");
    assert!(text.contains("NOT checked by rustc"), "{text}");
}

/// F2: a write that breaks the library and also changes a bench: cargo compiles no bench then,
/// so the bench's earlier error is not "resolved by this write" and the bench is not "no new
/// errors": its line says cargo never compiled it.
#[test]
fn a_written_bench_that_cargo_never_compiled_is_neither_clean_nor_resolved() {
    let test = "lsp_trial36::a_written_bench_that_cargo_never_compiled_is_neither_clean_nor_resolved";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"bufs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "pub fn chunk(data: &[u8]) -> &[u8] {\n    data\n}\n"),
        (
            "benches/buf.rs",
            "fn main() {\n    let count: u32 = \"not a number\";\n    println!(\"{}\", bufs::chunk(b\"a\").len() as u32 + count);\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let before = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "benches/buf.rs"}));
    let before_text = before.joined_text();
    assert!(
        before_text.contains("E0308") || before_text.contains("mismatched types"),
        "the bench's error is not seen before:\n{before_text}"
    );
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n pub fn chunk(data: &[u8]) -> &[u8] {\n-    data\n+    data.missing_method()\n }\n*** Update File: benches/buf.rs\n@@\n fn main() {\n+    // reads one chunk\n     let count: u32 = \"not a number\";\n*** End Patch\n";
    let result = run.call(Caller::Main, "apply_patch", json!({"patch": patch}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/lib.rs:2: error[E0599]"), "the library's new error:\n{text}");
    assert!(!text.contains("benches/buf.rs: resolved by this write"), "a bench cargo never compiled resolved nothing:\n{text}");
    let bench_line = text
        .lines()
        .find(|line| line.starts_with("benches/buf.rs: diagnostics unavailable: cargo never compiled it after this write"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(bench_line.contains("not a clean result"), "{bench_line}");
    assert!(!text.lines().any(|line| line.starts_with("no new errors in") && line.contains("benches/buf.rs")), "{text}");
}

/// F1: `implementation` of a trait method: rust-analyzer leaves out the impl inside a test
/// function; the answer names its `fn chunk` (the trait's own query already named the impl).
#[test]
fn implementation_of_a_trait_method_names_the_definitions_in_impls_inside_function_bodies() {
    let test = "lsp_trial36::implementation_of_a_trait_method_names_the_definitions_in_impls_inside_function_bodies";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"bufs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "pub trait Buf {\n    fn chunk(&self) -> &[u8];\n    fn remaining(&self) -> usize {\n        self.chunk().len()\n    }\n}\n\nimpl Buf for Vec<u8> {\n    fn chunk(&self) -> &[u8] {\n        self\n    }\n}\n",
        ),
        (
            "tests/test_buf.rs",
            "use bufs::Buf;\n\n#[test]\nfn deref_forwards() {\n    struct Special;\n    impl Buf for Special {\n        fn chunk(&self) -> &[u8] {\n            b\"x\"\n        }\n    }\n    struct Plain;\n    impl Buf for Plain {\n        fn chunk(&self) -> &[u8] {\n            b\"\"\n        }\n        fn remaining(&self) -> usize {\n            0\n        }\n    }\n    assert_eq!(Special.remaining() + Plain.remaining(), 1);\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 2, "symbol": "chunk"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/lib.rs:9"), "{text}");
    if text.contains("tests/test_buf.rs:7:") {
        panic!("rust-analyzer lists the impl inside the function now: is the fixture still F1's?\n{text}");
    }
    let note = text.lines().find(|line| line.contains("`fn chunk` in `impl Buf for …` blocks")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.starts_with("note: NOT in this answer: 2 `fn chunk`"), "{note}");
    assert!(note.contains("tests/test_buf.rs:7, tests/test_buf.rs:13"), "{note}");
    // `remaining` has a default: only the impl that defines it is named.
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 3, "symbol": "remaining"}));
    let text = result.joined_text();
    let note = text.lines().find(|line| line.contains("`fn remaining` in `impl Buf for …` blocks")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("1 `fn remaining`") && note.contains("tests/test_buf.rs:16"), "{note}");
}
