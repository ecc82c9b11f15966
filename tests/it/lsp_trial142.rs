//! Wrong answers from the fresh-user trial 142 (bytes 1.7.2 with a downstream crate), against
//! rust-analyzer and cargo, on fixtures of the same shape:
//! - F1: a write across the library and the downstream crate listed the library's new errors
//!   twice — once from the library's rust-analyzer, once from the downstream crate's, which
//!   compiles the library as a path dependency and republishes its errors in words that differed
//!   by their macro note ("58 new errors in 2 files" for 30 in one file).
//!
//! Ground truth: `cargo check` in the library.

use crate::support;

use serde_json::json;

const LIBRARY: &str = "pub trait Buf {\n    fn remaining(&self) -> usize;\n}\n\nmacro_rules! forward {\n    ($t:ty) => {\n        impl Buf for $t {\n            fn remaining(&self) -> usize {\n                self.len()\n            }\n        }\n    };\n}\n\nforward!(Vec<u8>);\nforward!(String);\n";

/// The library at the workspace root of the dependent-target tests: `Frame::freeze`, which the
/// tests' edits give a parameter; `downstream/` is left out of its cargo workspace.
const FRAME_LIBRARY_MANIFEST: &str =
    "[package]\nname = \"byteslib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\nexclude = [\"downstream\"]\n";

const FRAME_LIBRARY: &str =
    "pub struct Frame(pub Vec<u8>);\n\nimpl Frame {\n    pub fn freeze(self) -> Vec<u8> {\n        self.0\n    }\n}\n";

#[test]
fn a_library_error_republished_by_the_downstream_server_is_listed_once_under_the_library() {
    let test = "lsp_trial142::a_library_error_republished_by_the_downstream_server_is_listed_once_under_the_library";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("buflib/Cargo.toml", "[package]\nname = \"buflib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("buflib/src/lib.rs", LIBRARY),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nbuflib = { path = \"../buflib\" }\n",
        ),
        ("downstream/src/lib.rs", "use buflib::Buf;\n\npub fn left(b: &Vec<u8>) -> usize {\n    b.remaining()\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    // Both crates' servers run, as when the agent has read files of both.
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "buflib/src/lib.rs", "line": 2, "symbol": "remaining"}));
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "downstream/src/lib.rs", "line": 4, "symbol": "remaining"}));
    let patch = "*** Begin Patch\n*** Update File: buflib/src/lib.rs\n@@\n pub trait Buf {\n-    fn remaining(&self) -> usize;\n+    fn bytes_left(&self) -> usize;\n*** Update File: downstream/src/lib.rs\n@@\n-    b.remaining()\n+    b.bytes_left()\n*** End Patch";
    let text = support::call_ok(&run, "apply_patch", json!({"patch": patch}));
    // Ground truth: cargo's errors are all in the library's lib.rs.
    let checked = support::cargo_by_hand(&dir.path().join("buflib"), &["check", "--offline", "--message-format=short"], &[]);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    let cargo_errors: Vec<&str> = stderr.lines().filter(|line| line.contains(": error[")).collect();
    assert!(!cargo_errors.is_empty() && cargo_errors.iter().all(|line| line.starts_with("src/lib.rs:")), "{stderr}");
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    let listings = block.matches("buflib/src/lib.rs: new diagnostics introduced by this write").count();
    assert_eq!(listings, 1, "the library's errors are listed by each server:\n{text}");
    assert!(!block.contains("also reported by another rust-analyzer process"), "{text}");
    assert!(block.contains("new errors in 1 file") || block.contains("new error in 1 file"), "{text}");
}

/// F4: after a library write that broke the downstream crate's own library, cargo compiled no
/// test of it (they depend on that library), and the whole downstream root read NOT checked
/// "because a library they depend on had errors" — while its new errors were in cargo's output.
/// The compiled targets are compared; the others are named with cargo's reason.
#[test]
fn a_dependent_crate_whose_own_library_broke_reports_its_errors_and_names_the_targets_not_compiled() {
    let test = "lsp_trial142::a_dependent_crate_whose_own_library_broke_reports_its_errors_and_names_the_targets_not_compiled";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", FRAME_LIBRARY_MANIFEST),
        ("src/lib.rs", FRAME_LIBRARY),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nbyteslib = { path = \"..\" }\n",
        ),
        ("downstream/src/lib.rs", "use byteslib::Frame;\n\npub fn bytes_of(frame: Frame) -> usize {\n    frame.freeze().len()\n}\n"),
        ("downstream/tests/it.rs", "#[test]\nfn counts() {\n    assert_eq!(downstream::bytes_of(byteslib::Frame(vec![1, 2])), 2);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn freeze(self)", "new_string": "pub fn freeze(self, _tag: u8)"}),
    );
    // Ground truth: the library compiles; downstream's library does not, and cargo skips its test.
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]).status.success());
    let checked = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--all-targets"], &[]);
    assert!(String::from_utf8_lossy(&checked.stderr).contains("error[E0061]"), "{}", String::from_utf8_lossy(&checked.stderr));
    assert!(
        text.contains(
            "downstream/src/lib.rs: new diagnostics introduced by this write (1, cargo check):\n  downstream/src/lib.rs:4: error[E0061]"
        ),
        "{text}"
    );
    assert!(
        text.contains("NOT checked: 1 target of downstream/ (a project root that depends on . by path)")
            && text.contains(
                "downstream/tests/it.rs (test `it`): not compiled: it depends on the library `downstream`, which failed to compile"
            ),
        "{text}"
    );
    assert!(!text.contains("NOT checked: downstream/ — a project root that depends on"), "the whole root was called unchecked:\n{text}");
}

/// F3: once a write fixed the downstream crate's library, cargo compiled its tests for the first
/// time, and an error on a test line the write did not change (a call inside `assert_eq!`, which
/// the structural rewrite does not reach) read "introduced by this write … none was present
/// before" — cargo had never compiled that file before the write.
#[test]
fn an_error_on_an_unchanged_line_of_a_target_cargo_had_not_compiled_is_not_called_new() {
    let test = "lsp_trial142::an_error_on_an_unchanged_line_of_a_target_cargo_had_not_compiled_is_not_called_new";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("byteslib/Cargo.toml", "[package]\nname = \"byteslib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("byteslib/src/lib.rs", "pub struct Frame(pub Vec<u8>);\n\nimpl Frame {\n    pub fn freeze(self, _tag: u8) -> Vec<u8> {\n        self.0\n    }\n}\n"),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nbyteslib = { path = \"../byteslib\" }\n",
        ),
        ("downstream/src/lib.rs", "use byteslib::Frame;\n\npub fn bytes_of(frame: Frame) -> usize {\n    frame.freeze().len()\n}\n"),
        (
            "downstream/tests/it.rs",
            "use byteslib::Frame;\n\n#[test]\nfn counts() {\n    let kept = Frame(vec![1]).freeze();\n    assert_eq!(Frame(vec![1, 2]).freeze().len(), 2);\n    assert_eq!(kept.len(), 1);\n}\n",
        ),
    ]);
    // Ground truth: before the rewrite downstream's library fails, so cargo skips its test.
    let before =
        support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let before = String::from_utf8_lossy(&before.stderr).into_owned();
    assert!(before.contains("src/lib.rs:4") && !before.contains("tests/it.rs"), "{before}");
    let mut config = support::config_with_room();
    config.tool_timeouts.insert("resolve".to_owned(), std::time::Duration::from_secs(300));
    let run = runbound::Run::builder(dir.path())
        .config(config)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .with_structural()
        .build()
        .expect("build run");
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "downstream/src/lib.rs"}));
    let staged = support::call_ok(
        &run,
        "ast_edit",
        json!({"pattern": "$X.freeze()", "rewrite": "$X.freeze(0)", "language": "rust", "path": "downstream"}),
    );
    let edit_id =
        staged.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_else(|| panic!("no edit_id:\n{staged}"));
    let text = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    // Ground truth: the library builds now, and cargo reports the call inside `assert_eq!`,
    // on a line the rewrite did not change.
    let after =
        support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let after = String::from_utf8_lossy(&after.stderr).into_owned();
    assert!(after.contains("tests/it.rs:6") && !after.contains("src/lib.rs"), "{after}");
    assert!(!text.contains("downstream/tests/it.rs: new diagnostics introduced by this write"), "{text}");
    assert!(text.contains("downstream/tests/it.rs: reported now that the library compiles again"), "{text}");
}

/// The targets cargo skipped are left out of the comparison, and only they: a test target
/// skipped for its `required-features` leaves the other test targets beside it compared (their
/// new errors reported), and is named with cargo's reason.
#[test]
fn a_test_target_skipped_for_its_features_leaves_the_other_tests_compared() {
    let test = "lsp_trial142::a_test_target_skipped_for_its_features_leaves_the_other_tests_compared";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", FRAME_LIBRARY_MANIFEST),
        ("src/lib.rs", FRAME_LIBRARY),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nextra = []\n\n[dependencies]\nbyteslib = { path = \"..\" }\n\n[[test]]\nname = \"other\"\nrequired-features = [\"extra\"]\n",
        ),
        ("downstream/src/lib.rs", "pub fn answer() -> usize {\n    42\n}\n"),
        ("downstream/tests/it.rs", "#[test]\nfn counts() {\n    assert_eq!(byteslib::Frame(vec![1, 2]).freeze().len(), 2);\n}\n"),
        ("downstream/tests/other.rs", "#[test]\nfn other() {\n    assert_eq!(downstream::answer(), 42);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn freeze(self)", "new_string": "pub fn freeze(self, _tag: u8)"}),
    );
    // Ground truth: cargo compiles tests/it.rs (its call breaks) and skips tests/other.rs.
    let checked =
        support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert!(stderr.contains("tests/it.rs:3") && !stderr.contains("tests/other.rs"), "{stderr}");
    assert!(text.contains("downstream/tests/it.rs: new diagnostics introduced by this write (1, cargo check):"), "{text}");
    assert!(
        text.contains("downstream/tests/other.rs (test `other`): skipped by cargo: its required-features extra are not enabled"),
        "{text}"
    );
}
