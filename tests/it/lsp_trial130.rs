//! Wrong answers from the fresh-user trial 130 (anyhow 1.0.93 with a downstream crate), against
//! rust-analyzer and cargo, on a fixture of the same shape:
//! - F2: `incoming_calls` (and `references`) at the method of a blanket trait impl (`impl<E>
//!   StdError for E { fn ext_context … }`) said "no callers" with no note: every call goes
//!   through the trait (`E: ext::StdError`), which rust-analyzer does not list at the impl.
//! - F2b: `outgoing_calls` of downstream's `make`, whose body is `anyhow!("made: {}", msg)`,
//!   said "no calls" with no note: the macro's expansion calls `Error::msg`, and rust-analyzer
//!   lists no call an expansion makes.
//! - F1: an edit in code behind `#[cfg(all(not(std_backtrace), feature = "backtrace"))]`,
//!   where the build script sets `std_backtrace`, was "NOT checked — check it with `features:
//!   ["backtrace"]`": that check compiles none of it (and said "0 errors").
//!
//! Ground truth: the fixture's test calls the method only through the trait bound, and passes.

use crate::support;

use serde_json::json;

const LIB: &str = "mod ext {\n    pub trait StdError {\n        fn ext_context(self, context: &str) -> String;\n    }\n\n    impl<E: std::fmt::Display> StdError for E {\n        fn ext_context(self, context: &str) -> String {\n            format!(\"{context}: {self}\")\n        }\n    }\n}\n\npub fn context<E: ext::StdError>(error: E, context: &str) -> String {\n    error.ext_context(context)\n}\n\n#[test]\nfn contexts() {\n    assert_eq!(context(7, \"seven\"), \"seven: 7\");\n}\n";

#[test]
fn calls_through_the_trait_are_said_missing_at_a_trait_impl_method() {
    let test = "lsp_trial130::calls_through_the_trait_are_said_missing_at_a_trait_impl_method";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"anyhowish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", LIB),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let calls = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/lib.rs", "line": 7, "symbol": "ext_context"}));
    assert!(
        calls.contains("NOT in this answer: calls through the trait — this `ext_context` implements `StdError::ext_context`"),
        "{calls}"
    );
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 7, "symbol": "ext_context"}));
    assert!(references.contains("implements `StdError::ext_context`"), "{references}");
    // At the call site (inside no trait impl) the note is not given.
    let at_call = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 14, "symbol": "ext_context"}));
    assert!(!at_call.contains("calls through the trait"), "{at_call}");
    // Ground truth: the test, which reaches the method only through the trait bound, passes.
    let tested = std::process::Command::new("cargo").args(["test", "--offline", "-q"]).current_dir(dir.path()).output().unwrap();
    assert!(tested.status.success(), "{}", String::from_utf8_lossy(&tested.stderr));
}

const MACRO_LIB: &str = "pub struct Error(pub String);\n\nimpl Error {\n    pub fn msg(message: &str) -> Error {\n        Error(message.to_owned())\n    }\n}\n\n#[macro_export]\nmacro_rules! make_error {\n    ($message:expr) => {\n        $crate::Error::msg($message)\n    };\n}\n\npub fn make(message: &str) -> Error {\n    make_error!(message)\n}\n\npub fn shout(message: &str) -> String {\n    format!(\"{message}!\")\n}\n\n#[test]\nfn made() {\n    assert_eq!(make(\"x\").0, \"x\");\n}\n";

#[test]
fn outgoing_calls_say_the_calls_a_macro_expansion_makes_are_not_listed() {
    let test = "lsp_trial130::outgoing_calls_say_the_calls_a_macro_expansion_makes_are_not_listed";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"macroish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", MACRO_LIB),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "outgoing_calls", "file": "src/lib.rs", "line": 16, "symbol": "make"}));
    assert!(
        text.contains("NOT in this answer: the calls made by the expansions of 1 macro invocation in the body of `make` (`make_error!` at src/lib.rs:17)"),
        "{text}"
    );
    // A standard formatting macro is not said.
    let shout = support::call_ok(&run, "lsp", json!({"op": "outgoing_calls", "file": "src/lib.rs", "line": 20, "symbol": "shout"}));
    assert!(!shout.contains("expansions of"), "{shout}");
    // Ground truth: the expansion calls `Error::msg` (the test passes through it).
    let tested = std::process::Command::new("cargo").args(["test", "--offline", "-q"]).current_dir(dir.path()).output().unwrap();
    assert!(tested.status.success(), "{}", String::from_utf8_lossy(&tested.stderr));
}

#[test]
fn code_off_by_a_cfg_the_build_script_sets_is_not_sent_to_a_feature_check() {
    let test = "lsp_trial130::code_off_by_a_cfg_the_build_script_sets_is_not_sent_to_a_feature_check";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"backtraceish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nbacktrace = []\n\n[workspace]\n",
        ),
        ("build.rs", "fn main() {\n    println!(\"cargo:rustc-check-cfg=cfg(std_backtrace)\");\n    println!(\"cargo:rustc-cfg=std_backtrace\");\n}\n"),
        (
            "src/lib.rs",
            "#[cfg(all(not(std_backtrace), feature = \"backtrace\"))]\nmod capture {\n    pub fn enabled() -> bool {\n        true\n    }\n}\n\npub fn works() -> bool {\n    true\n}\n",
        ),
    ]);
    let mut config = runbound::RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(30);
    let run = runbound::Run::builder(dir.path())
        .config(config)
        .workspace_trust(runbound::WorkspaceTrust::Trusted)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .build()
        .expect("build run");
    // Warm the server so that the write's check sees the build script's cfg.
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "    pub fn enabled() -> bool {\n        true\n", "new_string": "    pub fn enabled() -> bool {\n        true + 1\n"}),
    );
    assert!(text.contains("it is compiled only where `std_backtrace` is NOT set"), "{text}");
    assert!(!text.contains("\"features\": [\"backtrace\"]"), "a feature check that compiles none of it is the next step:\n{text}");
    // Ground truth: with the feature on, cargo still compiles none of it (the broken line passes).
    let checked = std::process::Command::new("cargo")
        .args(["check", "--offline", "-q", "--features", "backtrace"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
}
