//! The tools on a real TypeScript package (issue 11 §6): redux 5.0.1 from npm (17 `.ts` files
//! under `src/` that import each other; the package publishes no tsconfig, so
//! `.ci/install-corpus` writes a minimal strict one beside them, and installs `@types/node` for
//! `process.env`), driven through typescript-language-server.
//!
//! Ground truth comes from a word search over the sources (comments cut), the TypeScript compiler
//! (`tsc -p .`) and the ast-grep CLI, never from the language server. Latencies are printed as
//! `TIMING` lines, never asserted.

use crate::support;
use crate::support::corpus::{self, timed_ok, Occurrence};

use std::path::Path;
use std::time::Duration;

use serde_json::json;

const PROJECT: &str = "redux";

/// The project's own build: the TypeScript compiler over its tsconfig (no emit).
fn tsc(dir: &Path) -> corpus::CommandOutput {
    corpus::run(dir, "tsc", &["-p", ".", "--pretty", "false"], &[], Duration::from_secs(300))
}

/// Code occurrences of `word` in `src/` (`//` comments, doc blocks and import specifiers cut).
fn occurrences(dir: &Path, word: &str) -> Vec<Occurrence> {
    corpus::word_occurrences(dir, &["src"], &["ts"], word, corpus::strip_ts_comment_and_module_path)
}

fn require_tools(test: &str) -> bool {
    support::require_binary(test, "typescript-language-server").is_some() && support::require_binary(test, "tsc").is_some()
}

/// Orientation (issue 11 §4): the outline of `src/createStore.ts` lists its top-level functions
/// (with overloads) and the store's inner functions in source order, and none of the locals of
/// those inner functions nor anonymous callbacks.
#[test]
fn outline_in_source_order_without_locals() {
    if !require_tools("corpus_typescript::outline") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let file = "src/createStore.ts";
    let source = corpus::read(dir.path(), file);
    let word_after = |line: &str, keyword: &str| -> Option<String> {
        let rest = &line[line.find(keyword)? + keyword.len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
        (!name.is_empty()).then_some(name)
    };
    let mut top_level = Vec::new();
    let mut inner = Vec::new();
    let mut locals = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let number = index + 1;
        if line.starts_with("export function ") || line.starts_with("function ") {
            top_level.push((number, word_after(line, "function ").expect("a function name")));
        } else if line.starts_with("  function ") {
            inner.push((number, word_after(line, "function ").expect("a function name")));
        } else if line.starts_with("    ") {
            let trimmed = line.trim_start();
            for keyword in ["const ", "let "] {
                if let Some(name) = trimmed.strip_prefix(keyword).and_then(|_| word_after(trimmed, keyword)) {
                    locals.push((number, name));
                }
            }
        }
    }
    assert!(top_level.len() >= 4 && inner.len() >= 4 && !locals.is_empty(), "ground truth: {top_level:?} {inner:?} {locals:?}");
    let run = corpus::tools_run(dir.path());
    let (_, cold) = corpus::complete_answer(&run, "lsp", json!({"op": "symbols", "file": file}));
    let (entries, _) = corpus::outline_pages(&run, json!({"op": "symbols", "file": file}));
    let position_of = |line: usize, name: &str| entries.iter().position(|(at, text)| *at == line && corpus::contains_word(text, name));
    for group in [&top_level, &inner] {
        let positions: Vec<usize> = group
            .iter()
            .map(|(line, name)| position_of(*line, name).unwrap_or_else(|| panic!("{line}: {name} is not in the outline: {entries:?}")))
            .collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "not in source order: {group:?} at {positions:?} in {entries:?}");
    }
    let listed_locals: Vec<&(usize, String)> = locals.iter().filter(|(line, name)| position_of(*line, name).is_some()).collect();
    assert!(listed_locals.is_empty(), "the outline lists locals of inner functions (issue 11 §4): {listed_locals:?}");
    let callbacks: Vec<&(usize, String)> = entries.iter().filter(|(_, text)| text.contains("callback")).collect();
    assert!(callbacks.is_empty(), "the outline lists anonymous callbacks: {callbacks:?}");
    corpus::report_timing(&format!("typescript-language-server outline of {file}, cold server: {cold:?}"));
}

/// Orientation: a cold `symbols` query with no file starts the server for the package at the
/// workspace root (issue 11 §5) and finds the function where a word search finds it, before
/// anything outside the workspace (`node_modules/@types/node`).
#[test]
fn workspace_symbols_on_a_cold_run_find_the_function_where_grep_does() {
    if !require_tools("corpus_typescript::workspace_symbols") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let definition =
        occurrences(dir.path(), "kindOf").into_iter().find(|o| o.text.starts_with("export function kindOf")).expect("ground truth");
    let run = corpus::tools_run(dir.path());
    let (text, elapsed) = corpus::complete_answer(&run, "lsp", json!({"op": "symbols", "query": "kindOf"}));
    corpus::assert_symbol_listed_before_outside(&text, &definition.location());
    corpus::report_timing(&format!("typescript-language-server workspace symbols, cold run: {elapsed:?}"));
}

/// Workspace symbols name what tsserver calls `variable` (issue 11 item 5): the names
/// `src/index.ts` re-exports are `re-export`s, `StoreEnhancerStoreCreator` (whose `=` is on a
/// later line) is a `type alias`, and the `const store` locals of functions are left out and
/// counted — checked against the sources' own lines.
#[test]
fn workspace_symbols_name_re_exports_and_type_aliases_and_leave_out_locals() {
    if !require_tools("corpus_typescript::workspace_symbol_kinds") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let index = corpus::read(dir.path(), "src/index.ts");
    let re_exported_at = |name: &str| -> usize {
        let block_start = index.lines().position(|line| line.starts_with("export {")).expect("ground truth: an export block");
        index.lines().enumerate().skip(block_start).find(|(_, line)| line.trim().trim_end_matches(',') == name).expect("ground truth").0 + 1
    };
    let alias = occurrences(dir.path(), "StoreEnhancerStoreCreator")
        .into_iter()
        .find(|o| o.text.starts_with("export type StoreEnhancerStoreCreator<") && !o.text.contains('='))
        .expect("ground truth: the alias's `=` is on a later line");
    let locals: Vec<Occurrence> =
        occurrences(dir.path(), "store").into_iter().filter(|o| o.text.trim_start().starts_with("const store =")).collect();
    assert!(
        locals.len() >= 2 && locals.iter().all(|o| o.text.starts_with("  ")),
        "ground truth: indented `const store` locals: {locals:?}"
    );
    let run = corpus::tools_run(dir.path());
    let (text, _) = corpus::complete_answer(&run, "lsp", json!({"op": "symbols", "query": "Store"}));
    let entry_at = |location: &str| -> String {
        text.lines()
            .find(|line| line.contains(&format!(" — {location}:")))
            .unwrap_or_else(|| panic!("{location} is not listed:\n{text}"))
            .to_owned()
    };
    for name in ["Store", "StoreCreator", "StoreEnhancer"] {
        let entry = entry_at(&format!("src/index.ts:{}", re_exported_at(name)));
        assert!(entry.starts_with(&format!("re-export {name} ")), "a re-export is not a variable: {entry}\n{text}");
    }
    let entry = entry_at(&alias.location());
    assert!(entry.starts_with("type alias StoreEnhancerStoreCreator "), "a multi-line type alias: {entry}\n{text}");
    for local in &locals {
        assert!(!text.contains(&format!(" — {}:", local.location())), "a function's local is listed: {}\n{text}", local.location());
    }
    assert!(text.contains(&format!("not listed: {} symbols declared inside functions", locals.len())), "locals are counted:\n{text}");
    let with_locals = corpus::ok(&run, "lsp", json!({"op": "symbols", "query": "Store", "locals": true}));
    for local in &locals {
        assert!(with_locals.contains(&format!(" — {}:", local.location())), "`locals: true` lists {}:\n{with_locals}", local.location());
    }
}

/// Navigation against a word search: definition of `kindOf` from a call in another file lands on
/// its declaration; references list every code occurrence in `src/` and nothing else.
#[test]
fn navigation_matches_grep() {
    if !require_tools("corpus_typescript::navigation") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let found = occurrences(dir.path(), "kindOf");
    let definition = found.iter().find(|o| o.text.starts_with("export function kindOf")).expect("ground truth").clone();
    let call = found.iter().find(|o| o.file == "src/createStore.ts" && o.text.contains("kindOf(")).expect("ground truth").clone();
    let run = corpus::tools_run(dir.path());
    let (text, cold) =
        corpus::complete_answer(&run, "lsp", json!({"op": "definition", "file": call.file, "line": call.line, "symbol": "kindOf"}));
    assert!(corpus::listed_locations(&text).contains(&definition.location()), "definition should be {}:\n{text}", definition.location());
    // The first call sits in a template literal's substitution (`…received: '${kindOf(`), which
    // is code: no "inside a comment or string" warning (issue 11 item 4).
    assert!(call.text.contains("${kindOf("), "ground truth: the call is inside a template substitution: {}", call.text);
    assert!(!text.contains("comment or string"), "a template substitution is code, not a string:\n{text}");
    let (text, warm) = corpus::complete_answer(
        &run,
        "lsp",
        json!({"op": "references", "file": definition.file, "line": definition.line, "symbol": "kindOf"}),
    );
    let expected: Vec<String> = found.iter().map(Occurrence::location).collect();
    corpus::assert_references("typescript-language-server", &text, &expected, &expected);
    corpus::report_timing(&format!("typescript-language-server definition {cold:?} (first query), references {warm:?}"));
}

/// A cross-file rename of an exported function imported by three modules: the new name is exactly
/// where the old one was, every changed file is reported clean (promptly, not "unavailable"), and
/// the package still compiles with `tsc`.
#[test]
fn rename_across_files_then_tsc_passes() {
    if !require_tools("corpus_typescript::rename") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let (old, new) = ("kindOf", "describeKind");
    let before = occurrences(dir.path(), old);
    let definition = before.iter().find(|o| o.text.starts_with("export function kindOf")).expect("ground truth").clone();
    let run = corpus::tools_run(dir.path());
    corpus::warm_up(&run, &definition.file);
    let (text, elapsed) =
        timed_ok(&run, "lsp_rename", json!({"file": definition.file, "line": definition.line, "symbol": old, "new_name": new}));
    assert!(occurrences(dir.path(), old).is_empty(), "old name left in code: {:?}\n{text}", occurrences(dir.path(), old));
    let moved: Vec<String> = occurrences(dir.path(), new).iter().map(Occurrence::location).collect();
    assert_eq!(
        moved,
        before.iter().map(Occurrence::location).collect::<Vec<_>>(),
        "the new name is not exactly where the old one was\n{text}"
    );
    let mut files: Vec<&str> = before.iter().map(|o| o.file.as_str()).collect();
    files.dedup();
    corpus::assert_clean_block(corpus::diagnostics_block(&text), &files, "a complete rename");
    corpus::assert_success(&tsc(dir.path()), "tsc after the rename");
    // The grep -w cross-check walks what the tsconfig compiles (`include: ["src"]`), not the
    // bundles in `dist/` (observed: 13.7 s of definition requests in dist/*.js on this package,
    // 29.8 s on immer, which left files "diagnostics unavailable").
    let sources = corpus::files_with_extension(&dir.path().join("src"), "ts");
    let check_line =
        text.lines().find(|line| line.starts_with("grep -w check:")).unwrap_or_else(|| panic!("no grep -w check line\n{text}"));
    assert!(
        check_line.contains(&format!(" of the {} ", sources.len())),
        "the cross-check must scan exactly the {} .ts files under src/ the tsconfig includes: {check_line}\n{text}",
        sources.len()
    );
    assert!(!text.contains("dist/"), "the cross-check walked build output outside the tsconfig's include:\n{text}");
    assert!(text.contains("walked what tsconfig.json compiles: include src"), "the scope is not said:\n{text}");
    corpus::report_timing(&format!("typescript-language-server rename over {} files: {elapsed:?}", files.len()));
}

/// A breaking edit (a new required parameter) reports the errors it causes in the three modules
/// that call the function (issue 11 §2; observed: "no new errors" beside 74 broken call sites):
/// every location `tsc` reports is named. Reverting lists them as resolved.
#[test]
fn breaking_edit_reports_the_errors_tsc_reports_in_other_files() {
    if !require_tools("corpus_typescript::breaking_edit") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let file = "src/utils/kindOf.ts";
    let (old, new) = ("export function kindOf(val: any) {", "export function kindOf(val: any, context: string) {");
    let run = corpus::tools_run(dir.path());
    corpus::warm_up(&run, file);
    let (text, breaking) = timed_ok(&run, "edit", json!({"path": file, "old_string": old, "new_string": new}));
    let check = tsc(dir.path());
    assert!(!check.success(), "ground truth: the edit should break the build:\n{}", check.text);
    let errors = corpus::compiler_error_locations(&check.text, dir.path());
    assert!(
        errors.len() >= 3 && errors.iter().all(|location| !location.starts_with(file)),
        "ground truth: tsc errors {errors:?}:\n{}",
        check.text
    );
    let block = corpus::diagnostics_block(&text);
    let unreported: Vec<&String> = errors.iter().filter(|location| !block.contains(location.as_str())).collect();
    assert!(unreported.is_empty(), "tsc reports errors at {errors:?}; the edit's result does not name {unreported:?}:\n{text}");

    let (text, reverting) = timed_ok(&run, "edit", json!({"path": file, "old_string": new, "new_string": old}));
    let block = corpus::diagnostics_block(&text);
    assert!(
        block.contains("resolved") && block.contains("src/createStore.ts"),
        "the revert should list the errors it resolved (issue 11 §2):\n{text}"
    );
    corpus::report_timing(&format!("typescript-language-server breaking edit {breaking:?}, revert {reverting:?}"));
}

/// A comment-only edit is reported clean, promptly (issue 11 §3); its latency is reported next
/// to an edit that adds a type error and the one that fixes it.
#[test]
fn clean_edit_latency_next_to_an_error_edit() {
    if !require_tools("corpus_typescript::clean_edit_latency") {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let file = "src/utils/kindOf.ts";
    let plain = "export function kindOf(val: any) {\n";
    assert_eq!(corpus::read(dir.path(), file).matches(plain).count(), 1);
    let comment = format!("// The type of a value, for error messages.\n{plain}");
    let broken = format!("{comment}  const wrong: number = 'text'\n");
    let comment2 = format!("// The type of any value, for error messages.\n{plain}");
    let run = corpus::tools_run(dir.path());
    corpus::warm_up(&run, file);
    let step = |label, old: &str, new: &str, error| corpus::EditStep { label, old: old.to_owned(), new: new.to_owned(), error };
    let timings = corpus::timed_edit_sequence(
        &run,
        file,
        &[
            step("clean (comment)", plain, &comment, None),
            step("adds an error", &comment, &broken, Some("is not assignable to type 'number'")),
            step("fixes it", &broken, &comment, None),
            step("clean (comment)", &comment, &comment2, None),
        ],
    );
    corpus::report_timing(&format!("typescript-language-server edits of {file}: {}", timings.join(", ")));
}

/// `ast_edit` over `src/` (`typeof x === 'undefined'` → `x === undefined`), staged then accepted:
/// byte-for-byte what the ast-grep CLI writes, clean diagnostics, and `tsc` passes.
#[test]
fn ast_edit_accept_matches_the_ast_grep_cli_and_tsc_passes() {
    if !require_tools("corpus_typescript::ast_edit") || corpus::ast_grep_cli().is_none() {
        return;
    }
    let Some(dir) = corpus::project(PROJECT) else { return };
    let Some(reference) = corpus::project(PROJECT) else { return };
    let run = corpus::tools_run(dir.path());
    corpus::warm_up(&run, "src/createStore.ts");
    let edit = corpus::ast_edit_then_accept(
        &run,
        dir.path(),
        reference.path(),
        "typeof $X === 'undefined'",
        "$X === undefined",
        "typescript",
        "src",
    );
    corpus::assert_success(&tsc(dir.path()), "tsc after the structural rewrite");
    corpus::report_timing(&format!(
        "ast_edit stage {:?}, accept {:?} ({} replacements in {} files)",
        edit.staging,
        edit.accepting,
        edit.matches,
        edit.files.len()
    ));
}

/// @tanstack/table-core 8.20.5 (trial 52), where a type reaches most files through `types.ts`:
/// - F1: a patch moving `features/RowPagination.ts` and editing `types.ts` (which imports it)
///   breaks 36 places in 11 files; the errors in files that import `types.ts` read "already
///   present before this write" (their state before was taken after the move reached tsserver)
///   until the move's importers of importers were seeded before it. Every tsc error is new here.
///   The mislabel depends on timing: the trial's server process (load 7–12) showed it in 3 runs
///   of 3, and a build without the seeding showed 5 of 36 on this machine, but this test's run
///   does not always show it without the fix — it guards the answer, F2 is what it pins.
/// - F2: `CoreRow.getValue` renamed to `getVal` by an edit, then back with another parameter
///   type: the users of the name written back were not checked (9 of 41). Every tsc error of
///   both edits is named.
#[test]
fn table_core_move_and_member_edits_name_every_error_tsc_reports_as_new() {
    if !require_tools("corpus_typescript::table_core") {
        return;
    }
    let Some(dir) = corpus::project("table-core") else { return };
    corpus::assert_success(&tsc(dir.path()), "table-core's base");
    let run = corpus::tools_run(dir.path());
    let assert_every_error_new = |text: &str, what: &str| {
        let check = tsc(dir.path());
        let errors = corpus::compiler_error_locations(&check.text, dir.path());
        assert!(errors.len() >= 10, "{what}: ground truth: tsc errors {errors:?}:\n{}", check.text);
        let block = corpus::diagnostics_block(text);
        let unreported: Vec<&String> = errors.iter().filter(|location| !block.contains(location.as_str())).collect();
        assert!(unreported.is_empty(), "{what}: tsc reports {errors:?}; not named: {unreported:?}:\n{text}");
        assert!(!block.contains("already present before this write"), "{what}: the base was clean (tsc):\n{text}");
        errors.len()
    };
    let patch = "*** Begin Patch\n*** Update File: src/features/RowPagination.ts\n*** Move to: src/features/pagination/RowPagination.ts\n*** Update File: src/types.ts\n@@\n import { CoreOptions, CoreTableState, CoreInstance } from './core/table'\n+// moved pagination\n*** End Patch\n";
    let (text, moving) = timed_ok(&run, "apply_patch", json!({"patch": patch}));
    let moved = assert_every_error_new(&text, "the move");
    let back = "*** Begin Patch\n*** Update File: src/features/pagination/RowPagination.ts\n*** Move to: src/features/RowPagination.ts\n*** Update File: src/types.ts\n@@\n import { CoreOptions, CoreTableState, CoreInstance } from './core/table'\n-// moved pagination\n*** End Patch\n";
    let (text, _) = timed_ok(&run, "apply_patch", json!({"patch": back}));
    corpus::assert_success(&tsc(dir.path()), "the move back");
    assert!(!corpus::diagnostics_block(&text).contains("introduced"), "{text}");

    let file = "src/core/row.ts";
    let (original, renamed) = ("  getValue: <TValue>(columnId: string) => TValue", "  getVal: <TValue>(columnId: string) => TValue");
    let (text, _) = timed_ok(&run, "edit", json!({"path": file, "old_string": original, "new_string": renamed}));
    assert_every_error_new(&text, "getValue renamed to getVal");
    let given_back = "  getValue: <TValue>(columnId: number) => TValue";
    let (text, editing) = timed_ok(&run, "edit", json!({"path": file, "old_string": renamed, "new_string": given_back}));
    let given = assert_every_error_new(&text, "getVal given back the name getValue");
    corpus::report_timing(&format!(
        "typescript-language-server move + importer edit {moving:?} ({moved} tsc errors), member given back its name {editing:?} ({given} tsc errors)"
    ));
}
