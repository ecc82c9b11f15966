//! Wrong answers from the fresh-user trial 134 (ordered-float 4.2.2 with a downstream crate),
//! against rust-analyzer and cargo, on a fixture of the same shape:
//! - F2: `outgoing_calls` of `Ord::cmp`, whose body compares with `<` and `>` (calls of the
//!   crate's `PartialOrd::lt`/`gt`), said "no calls" with no note.
//! - F1: `references` at the library's definition of `into_inner` said the downstream crate was
//!   searched, and named none of its uses behind a `#[cfg(feature = "extra")]` that is off
//!   (`cargo check --features extra` broke on one after a rename).
//! - F3: renaming `into_inner` broke tests/test.rs, whose macro calls an inner macro that calls
//!   `.into_inner()`, and the write read "no new errors … elsewhere in the checked project".
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

#[test]
fn a_write_that_breaks_a_nested_macros_expansion_names_the_outermost_call() {
    let test = "lsp_trial134::a_write_that_breaks_a_nested_macros_expansion_names_the_outermost_call";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let lib = "pub struct Ordered(pub f64);\n\nimpl Ordered {\n    pub fn into_inner(self) -> f64 {\n        self.0\n    }\n\n    pub fn pi() -> Self {\n        Ordered(std::f64::consts::PI)\n    }\n\n    pub fn e() -> Self {\n        Ordered(std::f64::consts::E)\n    }\n}\n";
    // `check_consts!` (line 18) calls `check_const!` twice (lines 11, 12), whose body (line 5)
    // calls `.into_inner()`: rust-analyzer lists the inner calls' hints before the outer one's.
    let consts = "use floatish::Ordered;\n\nmacro_rules! check_const {\n    ($method:ident, $value:expr) => {\n        assert_eq!(Ordered::$method().into_inner(), $value)\n    };\n}\n\nmacro_rules! check_consts {\n    () => {\n        check_const!(pi, std::f64::consts::PI);\n        check_const!(e, std::f64::consts::E);\n    };\n}\n\n#[test]\nfn consts_equal() {\n    check_consts!();\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"floatish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", lib),
        ("tests/consts.rs", consts),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "src/lib.rs", "line": 4, "symbol": "into_inner"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn into_inner(self)", "new_string": "pub fn into_value(self)"}),
    );
    assert!(text.contains("tests/consts.rs: new diagnostics introduced by this write ("), "the broken test target read clean:\n{text}");
    assert!(text.contains("tests/consts.rs:18: error[E0599] no method named `into_inner`"), "{text}");
    assert!(!text.contains("tests/consts.rs:11:") && !text.contains("tests/consts.rs:12:"), "an inner step was counted:\n{text}");
    // Ground truth: cargo's test target no longer compiles, on `into_inner`.
    let checked =
        std::process::Command::new("cargo").args(["check", "--offline", "--all-targets"]).current_dir(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert!(!checked.status.success() && stderr.contains("no method named `into_inner`"), "{stderr}");
}
