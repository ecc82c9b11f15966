//! Wrong answers from the fresh-user trial 134 (ordered-float 4.2.2 with a downstream crate),
//! against rust-analyzer and cargo, on a fixture of the same shape:
//! - F2: `outgoing_calls` of `Ord::cmp`, whose body compares with `<` and `>` (calls of the
//!   crate's `PartialOrd::lt`/`gt`), said "no calls" with no note.
//! - F1: `references` at the library's definition of `into_inner` said the downstream crate was
//!   searched, and named none of its uses behind a `#[cfg(feature = "extra")]` that is off
//!   (`cargo check --features extra` broke on one after a rename).
//!
//! Ground truth: the fixture's test reaches `lt` through `<` (it counts the calls).

use crate::support;

use serde_json::json;

const LIB: &str = "use std::cell::Cell;\nuse std::cmp::Ordering;\n\nthread_local! {\n    pub static LT_CALLS: Cell<u32> = Cell::new(0);\n}\n\n#[derive(PartialEq, Clone, Copy)]\npub struct Float(pub f64);\n\nimpl PartialOrd for Float {\n    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {\n        self.0.partial_cmp(&other.0)\n    }\n\n    fn lt(&self, other: &Self) -> bool {\n        LT_CALLS.with(|calls| calls.set(calls.get() + 1));\n        self.0 < other.0\n    }\n}\n\npub fn smaller(a: Float, b: Float) -> bool {\n    a < b\n}\n\n#[test]\nfn counts() {\n    assert!(smaller(Float(1.0), Float(2.0)));\n    assert_eq!(LT_CALLS.with(Cell::get), 1);\n}\n";

#[test]
fn outgoing_calls_say_operator_uses_are_not_listed() {
    let test = "lsp_trial134::outgoing_calls_say_operator_uses_are_not_listed";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"floatish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", LIB),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "outgoing_calls", "file": "src/lib.rs", "line": 22, "symbol": "smaller"}));
    assert!(text.contains("NOT in this answer: 1 operator use in the body of `smaller` (`a < b` at src/lib.rs:23)"), "{text}");
    // Ground truth: the test counts the one call of `lt` that `a < b` makes.
    let tested = std::process::Command::new("cargo").args(["test", "--offline", "-q"]).current_dir(dir.path()).output().unwrap();
    assert!(tested.status.success(), "{}", String::from_utf8_lossy(&tested.stderr));
}

#[test]
fn references_from_the_library_name_the_downstream_uses_behind_an_off_cfg() {
    let test = "lsp_trial134::references_from_the_library_name_the_downstream_uses_behind_an_off_cfg";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("floatlib/Cargo.toml", "[package]\nname = \"floatlib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("floatlib/src/lib.rs", "pub struct Ordered(pub f64);\n\nimpl Ordered {\n    pub fn into_inner(self) -> f64 {\n        self.0\n    }\n}\n"),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nextra = []\n\n[dependencies]\nfloatlib = { path = \"../floatlib\" }\n",
        ),
        (
            "downstream/src/lib.rs",
            "use floatlib::Ordered;\n\npub fn total(a: Ordered) -> f64 {\n    a.into_inner()\n}\n\n#[cfg(feature = \"extra\")]\npub fn extra_total(a: Ordered) -> f64 {\n    a.into_inner() * 2.0\n}\n",
        ),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "floatlib/src/lib.rs", "line": 4, "symbol": "into_inner"}));
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "floatlib/src/lib.rs", "line": 4, "symbol": "into_inner"}));
    assert!(text.contains("downstream/src/lib.rs (1):\n  4: a.into_inner()"), "{text}");
    assert!(
        text.contains("NOT in this answer") && text.contains("downstream/src/lib.rs:9"),
        "the downstream use behind the off cfg is not named:\n{text}"
    );
}
