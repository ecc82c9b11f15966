//! Wrong answers from the fresh-user trial 112 (arrayvec 0.7.6 with a downstream crate),
//! against the real rust-analyzer and cargo, on fixtures of the same shape:
//! - F1: a write to the library file that holds rust-analyzer's own phantom E0384 (a closure
//!   `move |&len, self_len| { **self_len = len; }` that rustc accepts) broke only the tests,
//!   and the tests' new errors read "may have been there before": the phantom error was taken
//!   for a library error before the write, and counted as "already present".
//! - F2: workspace symbols listed the downstream crate's definitions and then said the same
//!   definitions were "NOT in this answer" and unknown to rust-analyzer (the source scan of the
//!   root walked into the downstream crate, which the root's server does not load).
//!
//! Ground truth: `cargo check --all-targets` before (clean) and after (E0061 in the test only).

use crate::support;

use serde_json::json;

#[test]
fn a_write_that_breaks_only_the_tests_is_new_beside_a_phantom_rust_analyzer_error() {
    let test = "lsp_trial112::a_write_that_breaks_only_the_tests_is_new_beside_a_phantom_rust_analyzer_error";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"guarded\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "//! A length kept by a guard.\n\nstruct ScopeExitGuard<T, Data, F>\nwhere\n    F: FnMut(&Data, &mut T),\n{\n    value: T,\n    data: Data,\n    f: F,\n}\n\nimpl<T, Data, F> Drop for ScopeExitGuard<T, Data, F>\nwhere\n    F: FnMut(&Data, &mut T),\n{\n    fn drop(&mut self) {\n        (self.f)(&self.data, &mut self.value)\n    }\n}\n\n/// A vector with a length.\npub struct Stack {\n    len: u32,\n}\n\nimpl Stack {\n    /// An empty stack.\n    pub fn new() -> Stack {\n        Stack { len: 0 }\n    }\n\n    /// Pushes `count` items.\n    pub fn push_many(&mut self, count: u32) {\n        let len = self.len;\n        let mut guard = ScopeExitGuard {\n            value: &mut self.len,\n            data: len,\n            f: move |&len, self_len| {\n                **self_len = len;\n            },\n        };\n        guard.data += count;\n    }\n\n    /// The length.\n    pub fn len(&self) -> u32 {\n        self.len\n    }\n}\n"),
        ("tests/stack.rs", "use guarded::Stack;\n\n#[test]\nfn pushes() {\n    let mut stack = Stack::new();\n    stack.push_many(3);\n    assert_eq!(stack.len(), 3);\n}\n"),
    ]);
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // The phantom error is rust-analyzer's own (rustc compiles the library clean).
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    assert!(text.contains("E0384") && text.contains("NOT confirmed by rustc"), "{text}");
    let written = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "    pub fn push_many(&mut self, count: u32) {", "new_string": "    pub fn push_many(&mut self, count: u32, strict: bool) {\n        let _ = strict;"}),
    );
    // Ground truth: the write broke the test's call, and nothing else.
    let checked = support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert!(stderr.contains("tests/stack.rs:6:") && stderr.contains("E0061") && !stderr.contains("src/lib.rs:"), "{stderr}");
    assert!(written.contains("this write introduced 1 new error in 1 file"), "{written}");
    assert!(written.contains("tests/stack.rs: new diagnostics introduced by this write (1, rust-analyzer):"), "{written}");
    assert!(!written.contains("may have been there before"), "{written}");
    assert!(!written.contains("already present"), "the phantom error is counted as present:\n{written}");
}

#[test]
fn workspace_symbols_do_not_call_a_downstream_crates_listed_definitions_unknown() {
    let test = "lsp_trial112::workspace_symbols_do_not_call_a_downstream_crates_listed_definitions_unknown";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"arrayish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "/// A fixed-capacity vector.\npub struct ArrayVec;\n"),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\narrayish = { path = \"..\" }\n",
        ),
        (
            "downstream/src/lib.rs",
            "use arrayish::ArrayVec;\n\n/// Says what it is.\npub trait Describe {\n    fn describe(&self) -> String;\n}\n\nimpl Describe for ArrayVec {\n    fn describe(&self) -> String {\n        String::from(\"array\")\n    }\n}\n",
        ),
    ]);
    assert!(support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "describe"}));
    assert!(text.contains("downstream/src/lib.rs"), "{text}");
    assert!(!text.contains("NOT in this answer"), "the listed downstream definitions are called unknown:\n{text}");
}

/// Trial 112 M2: asked from the downstream crate, `references` and `incoming_calls` of the
/// library's method left out the caveat the library's side gives: a call in code behind a cargo
/// feature that is off (arrayvec's borsh-gated `self.as_slice()`) is in no answer.
#[test]
fn asked_from_a_downstream_crate_the_librarys_feature_gated_calls_are_named() {
    let test = "lsp_trial112::asked_from_a_downstream_crate_the_librarys_feature_gated_calls_are_named";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"arrayish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n",
        ),
        (
            "src/lib.rs",
            "/// A vector.\npub struct Stack(pub Vec<u8>);\n\nimpl Stack {\n    /// The items.\n    pub fn as_slice(&self) -> &[u8] {\n        &self.0\n    }\n}\n\n/// How many, with the extra feature.\n#[cfg(feature = \"extra\")]\npub fn count(stack: &Stack) -> usize {\n    stack.as_slice().len()\n}\n",
        ),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\narrayish = { path = \"..\" }\n",
        ),
        (
            "downstream/src/lib.rs",
            "use arrayish::Stack;\n\n/// The first item.\npub fn first(stack: &Stack) -> Option<u8> {\n    stack.as_slice().first().copied()\n}\n",
        ),
    ]);
    // Ground truth: with the feature on, the library calls `as_slice` at src/lib.rs:14.
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline", "--features", "extra"], &[]).status.success());
    assert!(support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    for op in ["references", "incoming_calls"] {
        let text = support::call_ok(&run, "lsp", json!({"op": op, "file": "downstream/src/lib.rs", "line": 5, "symbol": "as_slice"}));
        assert!(
            text.contains("NOT in this answer: 1 whole-word occurrence(s) of `as_slice` in code where rust-analyzer gives no definition")
                && text.contains("src/lib.rs:14"),
            "{op}: the library's feature-gated call is not named:\n{text}"
        );
    }
}
