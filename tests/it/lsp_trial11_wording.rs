//! Answers that contradicted themselves or claimed checks that did not happen, from the
//! fresh-user trial 11 (W4, W5, M1, M3, M4), against real servers: code rust-analyzer reports
//! inactive (`#[cfg(feature = "serde")]`) is said NOT checked with the cfg and how to check it,
//! never "no new errors"; a block that lists new errors leads with them and never closes with
//! "no errors remain"; files whose diagnostics were unavailable are never named on the
//! `checked:` line; go vet's repeats of the compiler's errors are counted once.

use crate::support;

use std::time::Duration;

use runbound::{Caller, Run, RunConfig};
use serde_json::json;

fn edit(run: &Run, path: &str, old: &str, new: &str) -> String {
    let result = run.call(Caller::Main, "edit", json!({"path": path, "old_string": old, "new_string": new}));
    let text = result.joined_text();
    assert!(!result.is_error, "edit {path} failed:\n{text}");
    text
}

fn block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

/// A crate with a feature-gated module file and a feature-gated function (feature off).
fn gated_crate() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nserde = []\n"),
        (
            "src/lib.rs",
            "#[cfg(feature = \"serde\")]\npub mod gated;\n\npub fn active() -> u32 {\n    1\n}\n\n#[cfg(feature = \"serde\")]\npub fn inline_gated() -> u32 {\n    2\n}\n",
        ),
        ("src/gated.rs", "pub fn gated() -> u32 {\n    7\n}\n"),
    ])
}

#[test]
fn rust_analyzer_code_compiled_out_by_a_feature_is_said_not_checked() {
    if support::require_binary("rust_analyzer_code_compiled_out_by_a_feature_is_said_not_checked", "rust-analyzer").is_none() {
        return;
    }
    let dir = gated_crate();
    let run = support::lsp_run_allowing_writes(dir.path());
    // `lsp diagnostics` on the gated module file: not "no errors or warnings".
    let diagnostics = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/gated.rs"})).joined_text();
    assert!(!diagnostics.contains("no errors or warnings"), "a compiled-out file called clean:\n{diagnostics}");
    assert!(diagnostics.contains("NOT checked: all of src/gated.rs is not compiled in the current configuration"), "{diagnostics}");
    assert!(diagnostics.contains("#[cfg(feature = \"serde\")]"), "the cfg is not named:\n{diagnostics}");
    assert!(diagnostics.contains("cargo check --features serde"), "{diagnostics}");
    // A type error written into it: never "no new errors" for it.
    let text = edit(&run, "src/gated.rs", "    7\n", "    let n: u32 = \"not a number\";\n    n\n");
    let dow = block(&text);
    assert!(!dow.contains("no new errors in src/gated.rs"), "inactive code called checked:\n{text}");
    assert!(dow.contains("src/gated.rs: NOT checked: "), "{text}");
    assert!(dow.contains("cargo check --features serde"), "{text}");
    assert!(!dow.contains("files that were checked"), "a claim about checked files when none was:\n{text}");
    // The gated function inside the active lib.rs: the written lines are inactive.
    let text = edit(&run, "src/lib.rs", "    2\n}", "    let n: u32 = \"not a number\";\n    n\n}");
    let dow = block(&text);
    assert!(!dow.contains("no new errors in src/lib.rs"), "inactive code called checked:\n{text}");
    assert!(dow.contains("src/lib.rs: NOT checked: the written code: "), "{text}");
    assert!(dow.contains("feature = \"serde\" is disabled"), "{text}");
    let diagnostics = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"})).joined_text();
    assert!(diagnostics.contains("of src/lib.rs are not compiled in the current configuration"), "{diagnostics}");
    // An active edit is still checked and reported as usual.
    let text =
        edit(&run, "src/lib.rs", "pub fn active() -> u32 {\n    1\n}", "pub fn active() -> u32 {\n    let n: u32 = \"x\";\n    n\n}");
    let dow = block(&text);
    assert!(dow.contains("src/lib.rs: new diagnostics introduced by this write ("), "{text}");
    assert!(
        dow.starts_with("\nthis write introduced 1 new error in 1 file (listed below)"),
        "the summary does not lead with the new error:\n{text}"
    );
}

/// A Go package whose helper is called from two places in another file.
fn go_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/wording\n\ngo 1.19\n"),
        ("helper.go", "package wording\n\nfunc helper(a int) int {\n\treturn a * 2\n}\n"),
        ("use.go", "package wording\n\nfunc One() int {\n\treturn helper(1)\n}\n\nfunc Two() int {\n\treturn helper(2)\n}\n"),
    ])
}

#[test]
fn a_block_with_new_errors_leads_with_them_and_never_says_no_errors_remain() {
    if support::require_binary("a_block_with_new_errors_leads_with_them_and_never_says_no_errors_remain", "gopls").is_none() {
        return;
    }
    let dir = go_package();
    let run = support::lsp_run_allowing_writes(dir.path());
    // gopls loaded and both files known clean before the write.
    for file in ["helper.go", "use.go"] {
        let text = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": file})).joined_text();
        assert!(text.contains("no errors or warnings"), "{text}");
    }
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "helper.go", "old_string": "func helper(a int) int {", "new_string": "func helper(a int, b bool) int {"}),
    );
    let text = result.joined_text();
    let dow = block(&text);
    assert!(dow.starts_with("\nthis write introduced 2 new errors in 1 file (listed below)"), "{text}");
    assert!(!dow.contains("no errors remain"), "the closing line contradicts the new errors:\n{text}");
    assert!(dow.contains("no errors in the files that were checked besides the 2 new errors listed above"), "{text}");
    let structured = result.structured_content.expect("structured content");
    let fields = &structured["diagnostics_on_write"];
    assert_eq!(fields["new_errors"], 2, "{fields}");
    assert_eq!(fields["errors_remaining"], 0, "{fields}");
    assert_eq!(fields["errors_after_write"], 2, "{fields}");
    assert!(fields["fields"].as_str().unwrap().contains("errors_remaining: errors that were already present before this write"));
    // go vet repeats the compiler's errors: "*" counts each problem once.
    let project = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"})).joined_text();
    assert!(project.contains("2 errors, 0 warnings"), "go vet's repeats counted twice:\n{project}");
    assert!(project.contains("go build, go vet") || project.contains("go vet, go build"), "the sources are not named:\n{project}");
    // The fix: resolved, and the closing line is plain.
    let text = edit(&run, "helper.go", "func helper(a int, b bool) int {", "func helper(a int) int {");
    let dow = block(&text);
    assert!(dow.contains("resolved by this write"), "{text}");
    assert!(dow.trim_end().ends_with("no errors in the files that were checked"), "{text}");
}

#[test]
fn files_whose_diagnostics_were_unavailable_are_not_named_checked() {
    if support::require_binary("files_whose_diagnostics_were_unavailable_are_not_named_checked", "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"cross\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/a.ts", "export const a: number = 1;\n"),
        ("src/b.ts", "import { a } from \"./a\";\nexport const b = a;\n"),
    ]);
    // A budget of 1 ms: no request can be answered in time.
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_millis(1);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    let result = run.call(Caller::Main, "write", json!({"path": "src/a.ts", "content": "export const a: number = 2;\n"}));
    let text = result.joined_text();
    let dow = block(&text);
    assert!(dow.contains("src/a.ts: diagnostics unavailable: "), "{text}");
    let checked: Vec<&str> = dow.lines().filter(|line| line.starts_with("checked:")).collect();
    assert!(!checked.is_empty(), "{text}");
    for line in &checked {
        assert!(!line.starts_with("checked: src/a.ts"), "an unavailable file named checked:\n{text}");
    }
    assert!(
        dow.contains("NOT checked: src/a.ts: its diagnostics were unavailable")
            || dow.contains("NOT checked (their diagnostics were unavailable, see above): 1 written file src/a.ts"),
        "{text}"
    );
    assert!(!dow.contains("files that were checked"), "a claim about checked files when none was:\n{text}");
    assert!(dow.contains("no file's diagnostics were obtained"), "{text}");
    assert_eq!(text.matches("Diagnostics after the write:").count(), 1, "{text}");
    let structured = result.structured_content.expect("structured content");
    assert_eq!(structured["diagnostics_on_write"]["files_checked"], 0);
}

#[test]
fn pyright_hover_has_no_markdown_backslash_escapes() {
    if support::require_binary("pyright_hover_has_no_markdown_backslash_escapes", "pyright-langserver").is_none() {
        return;
    }
    // pluggy 1.5.0's _multicall docstring: pyright escapes `__call__` as `\_\_call\_\_`.
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"hooks\"\nversion = \"0.1.0\"\n"),
        (
            "hooks.py",
            "def multicall(kwargs):\n    \"\"\"Execute a call.\n\n    `kwargs` comes from HookCaller.__call__() and *stars*.\n    \"\"\"\n    return kwargs\n\n\nmulticall({})\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "hooks.py", "line": 9, "symbol": "multicall"}));
    let text = hover.joined_text();
    assert!(!hover.is_error, "{text}");
    assert!(text.contains("comes from HookCaller.__call__() and"), "escaped markdown in the hover:\n{text}");
    assert!(!text.contains("\\_"), "{text}");
}

#[test]
fn gopls_workspace_symbols_at_its_cap_say_the_list_may_be_cut() {
    if support::require_binary("gopls_workspace_symbols_at_its_cap_say_the_list_may_be_cut", "gopls").is_none() {
        return;
    }
    // 130 functions match "Probe": gopls answers 100 (trial 11 M2 on go-spew: "Test" → 100).
    let mut source = String::from("package capped\n\n");
    for index in 0..130 {
        source.push_str(&format!("func Probe{index:03}() int {{\n\treturn {index}\n}}\n\n"));
    }
    let dir = support::workspace_with(&[("go.mod", "module example.com/capped\n\ngo 1.19\n"), ("capped.go", &source)]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "Probe", "file": "capped.go"})).joined_text();
    assert!(text.contains("gopls answered exactly 100 symbols, its own cap for workspace/symbol"), "{text}");
    assert!(text.contains("narrow the query"), "{text}");
    // A query under the cap has no such note.
    let text = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "Probe12", "file": "capped.go"})).joined_text();
    assert!(text.contains("Probe120"), "{text}");
    assert!(!text.contains("its own cap"), "{text}");
}

#[test]
fn rust_analyzer_errors_repeating_rustc_at_the_same_place_count_once() {
    if support::require_binary("rust_analyzer_errors_repeating_rustc_at_the_same_place_count_once", "rust-analyzer").is_none() {
        return;
    }
    // Trial 11 M3 on either: 6 errors where cargo check says 3 (rust-analyzer's own E0107
    // "expected 2 arguments, found 1" beside rustc's E0061 on the same calls).
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"dup\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub fn scale(x: i32, f: i32) -> i32 {\n    x * f\n}\n\npub fn one() -> i32 {\n    scale(1)\n}\n\npub fn two() -> i32 {\n    scale(2)\n}\n\npub fn three() -> u32 {\n    let n: u32 = \"x\";\n    n\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let diagnostics = || run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"})).joined_text();
    // cargo check's errors arrive after rust-analyzer's own.
    assert!(support::wait_until(Duration::from_secs(180), || diagnostics().matches("[E0061]").count() == 2), "{}", diagnostics());
    let text = diagnostics();
    assert!(text.starts_with("rust-analyzer diagnostics for src/lib.rs: 3 errors, 0 warnings"), "cargo check says 3:\n{text}");
    assert!(!text.contains("[E0107]"), "{text}");
    assert!(text.contains("repeated rustc's (cargo check) at the same place and were counted once"), "{text}");
}
