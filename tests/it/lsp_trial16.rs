//! Wrong answers from the fresh-user trial 16 (click 8.5.1, similar 2.7.0,
//! ts-json-schema-generator 2.4.0, gorilla/mux 1.8.0), against the real tools:
//! rust-analyzer's file diagnostics keep the warnings its cargo check published before the file
//! was opened; reverting a breaking edit does not claim to introduce the warnings the errors had
//! hidden (and counts a warning reported for the lib and its tests once); references and
//! incoming calls name the occurrences in code rust-analyzer does not analyze (behind a cargo
//! feature that is off); pyright's workspace symbols and implementations say the files its
//! `include` leaves out, with the declarations grep finds there.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// A crate whose `extra` feature (off by default) gates a module calling `callee::ratio`, whose
/// `quiet` module holds a function nobody calls (rustc's dead_code warning), and whose `idle`
/// module has the warning similar 2.7.0 has in src/algorithms/utils.rs
/// (mismatched_lifetime_syntaxes).
fn gated_crate() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = []\nextra = []\n"),
        ("src/lib.rs", "pub mod callee;\npub mod caller;\nmod idle;\nmod quiet;\n#[cfg(feature = \"extra\")]\npub mod extra;\n"),
        ("src/idle.rs", "pub fn items(v: &Vec<u8>) -> std::slice::Iter<u8> {\n    v.iter()\n}\n"),
        ("src/callee.rs", "pub fn ratio(a: u32) -> u32 {\n    a + 1\n}\n"),
        ("src/caller.rs", "pub fn go() -> u32 {\n    crate::callee::ratio(1)\n}\n"),
        ("src/quiet.rs", "fn never_called() -> u32 {\n    7\n}\n"),
        ("src/extra.rs", "pub fn more() -> u32 {\n    crate::callee::ratio(2)\n}\n"),
    ])
}

#[test]
fn rust_analyzer_keeps_check_warnings_of_a_file_opened_later_and_a_revert_does_not_claim_the_warnings_errors_hid() {
    if support::require_binary(
        "rust_analyzer_keeps_check_warnings_of_a_file_opened_later_and_a_revert_does_not_claim_the_warnings_errors_hid",
        "rust-analyzer",
    )
    .is_none()
    {
        return;
    }
    let dir = gated_crate();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/caller.rs"}));
    // A write: its check (cargo check) publishes quiet.rs's warning before quiet.rs is opened.
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/caller.rs", "old_string": "pub fn go()", "new_string": "// the caller\npub fn go()"}),
    );
    assert!(!result.is_error, "{}", result.joined_text());
    // similar 2.7.0: `lsp diagnostics src/algorithms/utils.rs` said "no errors or warnings"
    // while cargo check (and the write before) reported its warning.
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/quiet.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("src/quiet.rs:1: warning [dead_code]") && text.contains("never_called"),
        "the warning cargo check reported is missing:\n{text}"
    );
    assert!(!text.contains("no errors or warnings"), "{text}");

    // A breaking edit hides the warnings (rustc runs no lints on a crate with type errors); its
    // revert brings them back, and must not claim to have introduced them (similar 2.7.0: "this
    // write also introduced 2 new warnings", one warning counted for the lib and its tests).
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/callee.rs", "old_string": "pub fn ratio(a: u32)", "new_string": "pub fn ratio(a: u32, b: u32)"}),
    );
    let break_text = result.joined_text();
    assert!(break_text.contains("src/caller.rs:") && break_text.contains("error[E0061]"), "the break is not reported:\n{break_text}");
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/callee.rs", "old_string": "pub fn ratio(a: u32, b: u32)", "new_string": "pub fn ratio(a: u32)"}),
    );
    let text = result.joined_text();
    assert!(text.contains("resolved by this write"), "{text}");
    assert!(!text.contains("this write also introduced"), "the revert claims the warnings the errors hid:\n{text}");
    assert!(
        // rustc's dead_code warning on `items` too (tagged Unnecessary: said since trial27b M7).
        text.contains("note: src/idle.rs: 2 warnings reported now that this write resolved errors, not known to be introduced by it (rust-analyzer skips most lints while the code has type errors, so they may predate those errors; diagnostics on write lists errors only): src/idle.rs:1: warning[dead_code] function `items` is never used")
            && text.contains("src/idle.rs:1: warning[mismatched_lifetime_syntaxes]"),
        "the warning that is back is not said as such (or counted twice for the lib and its tests):\n{text}\n(the break said:\n{break_text})"
    );
}

#[test]
fn rust_analyzer_references_and_incoming_calls_name_uses_in_code_behind_a_feature_that_is_off() {
    if support::require_binary(
        "rust_analyzer_references_and_incoming_calls_name_uses_in_code_behind_a_feature_that_is_off",
        "rust-analyzer",
    )
    .is_none()
    {
        return;
    }
    // similar 2.7.0: `get_diff_ratio` is called in src/text/inline.rs (feature `inline`, off by
    // default); references said "3 references in 2 files" and incoming calls "1 caller", with
    // no word of it.
    let dir = gated_crate();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/callee.rs", "line": 1, "symbol": "ratio"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/caller.rs"), "{text}");
    assert!(
        text.contains("note: NOT in this answer: 1 whole-word occurrence(s) of `ratio` in code where rust-analyzer gives no definition")
            && text.contains("src/extra.rs:2"),
        "the use behind the `extra` feature is not said:\n{text}"
    );
    let result = run.call(Caller::Main, "lsp", json!({"op": "incoming_calls", "file": "src/callee.rs", "line": 1, "symbol": "ratio"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("1 caller"), "{text}");
    assert!(
        text.contains("note: NOT in this answer: 1 whole-word occurrence(s) of `ratio` in code where rust-analyzer gives no definition, so calls there are not listed")
            && text.contains("src/extra.rs:2"),
        "the call behind the `extra` feature is not said:\n{text}"
    );
}

#[test]
fn pyright_workspace_symbols_and_implementations_name_the_files_outside_its_include() {
    if support::require_binary("pyright_workspace_symbols_and_implementations_name_the_files_outside_its_include", "pyright-langserver")
        .is_none()
    {
        return;
    }
    // click 8.5.1: `[tool.pyright] include = ["src", "tests/typing"]`; workspace symbols said
    // `no workspace symbols match "_CustomTypeNoValue"` though tests/test_termui.py:1722
    // declares it, and basedpyright's implementations of ParamType left out the 15 subclasses
    // in tests/, with no word of either.
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[tool.pyright]\ninclude = [\"src\"]\n"),
        ("src/pkg/__init__.py", ""),
        ("src/pkg/base.py", "class ParamKind:\n    def convert(self, value: str) -> str:\n        return value\n"),
        ("tests/test_kinds.py", "from pkg.base import ParamKind\n\n\nclass _OutsideKind(ParamKind):\n    pass\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "_OutsideKind", "server": "pyright"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("note: NOT searched: 1 Python files outside what pyright analyses")
            && text.contains("pyproject.toml [tool.pyright] include = src")
            && text.contains("tests/test_kinds.py:4 class _OutsideKind"),
        "the files outside `include` are not said:\n{text}"
    );
    if support::require_binary(
        "pyright_workspace_symbols_and_implementations_name_the_files_outside_its_include",
        "basedpyright-langserver",
    )
    .is_none()
    {
        return;
    }
    let result = run.call(
        Caller::Main,
        "lsp",
        json!({"op": "implementation", "file": "src/pkg/base.py", "line": 1, "symbol": "ParamKind", "server": "basedpyright"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("note: NOT searched: 1 Python files outside what basedpyright analyses — its implementations cover only"),
        "the files outside `include` are not said:\n{text}"
    );
}
