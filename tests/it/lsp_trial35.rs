//! Wrong answers from the fresh-user trial 35 (@tanstack/form-core 0.41.0's `src`), against the
//! real typescript-language-server and tsc on fixtures of the same shape:
//! - F1: `references` of a member named a string key of ANOTHER type's property
//!   (`Pick<FieldMetaBase, "errorMap">` under `BaseFormState.errorMap`) as a reference tsserver
//!   missed.
//! - F2: removing `/// <reference lib="dom" />` from a module no file imports read "no new
//!   errors" while the DOM types vanished from two other files.
//! - F3: a `symbol` that is only part of the identifier on the line (`validate` on a line with
//!   `validateSync`) was silently taken as the longer identifier: `lsp_rename validate → check`
//!   renamed `validateSync`, reported as a rename of `validate`.
//!
//! Ground truth: tsc and grep.

use crate::support;

use runbound::Caller;
use serde_json::json;

fn typescript_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let mut all: Vec<(&str, &str)> = vec![
        ("package.json", "{\"name\": \"formlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true, \"lib\": [\"es2020\"]}, \"include\": [\"src\"]}\n"),
    ];
    all.extend_from_slice(files);
    support::workspace_with(&all)
}

/// F3: a rename addressed by part of an identifier is refused with the whole identifier and the
/// lines where the part stands whole; a read answers for the whole identifier and says so.
#[test]
fn a_symbol_that_is_only_part_of_the_identifier_on_the_line_is_never_taken_silently() {
    let test = "lsp_trial35::a_symbol_that_is_only_part_of_the_identifier_on_the_line_is_never_taken_silently";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let source = "export class Form {\n  validate(cause: string): boolean {\n    return cause.length > 0;\n  }\n  validateSync(cause: string): boolean {\n    return this.validate(cause);\n  }\n}\n\nexport function run(form: Form): boolean {\n  return form.validateSync('change');\n}\n";
    let dir = typescript_project(&[("src/form.ts", source)]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let rename =
        run.call(Caller::Main, "lsp_rename", json!({"file": "src/form.ts", "line": 11, "symbol": "validate", "new_name": "check"}));
    let text = rename.joined_text();
    assert!(rename.is_error, "a rename of `validate` on a line that holds only `validateSync`:\n{text}");
    assert!(text.contains("`validate` is not a whole identifier on line 11: it is part of `validateSync` there"), "{text}");
    assert!(text.contains("line(s) 2, 6"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("src/form.ts")).unwrap(), source, "nothing is written");
    let references = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/form.ts", "line": 11, "symbol": "validate"}));
    let text = references.joined_text();
    assert!(!references.is_error, "{text}");
    assert!(text.contains("references for `validateSync` at src/form.ts:11"), "the answer names the identifier it is about:\n{text}");
    assert!(
        text.contains(
            "note: `validate` is not a whole identifier on line 11: it is part of `validateSync`, and this answer is for `validateSync`"
        ),
        "{text}"
    );
}

/// F1: a key over another named type is no reference of the queried member: references do not
/// name it as missed, and a rename labels it as another type's key.
#[test]
fn string_keys_of_another_types_property_are_not_named_as_missed_references() {
    let test = "lsp_trial35::string_keys_of_another_types_property_are_not_named_as_missed_references";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = typescript_project(&[
        (
            "src/types.ts",
            "export interface BaseFormState {\n  errorMap: Record<string, string>;\n}\nexport interface FieldMetaBase {\n  errorMap: Record<string, string>;\n}\n",
        ),
        (
            "src/probe.ts",
            "import type { BaseFormState, FieldMetaBase } from './types';\n\nexport type P = Pick<FieldMetaBase, 'errorMap'>;\nexport type Q = FieldMetaBase['errorMap'];\nexport type R = Pick<BaseFormState, 'errorMap'>;\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/types.ts", "line": 2, "symbol": "errorMap"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text
        .lines()
        .find(|line| line.contains("as a property key"))
        .unwrap_or_else(|| panic!("the key over BaseFormState is not named:\n{text}"));
    assert!(note.contains("src/probe.ts:5"), "{note}");
    assert!(!note.contains("src/probe.ts:3") && !note.contains("src/probe.ts:4"), "FieldMetaBase's keys are another property's:\n{note}");
    let rename = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/types.ts", "line": 2, "symbol": "errorMap", "new_name": "errors", "preview": true}),
    );
    let text = rename.joined_text();
    assert!(!rename.is_error, "{text}");
    let other = text.lines().find(|line| line.contains("Pick<FieldMetaBase, 'errorMap'>")).unwrap_or_else(|| panic!("{text}"));
    assert!(other.contains("(string key of `FieldMetaBase`, not of `BaseFormState`"), "{other}");
    let own = text.lines().find(|line| line.contains("Pick<BaseFormState, 'errorMap'>")).unwrap_or_else(|| panic!("{text}"));
    assert!(own.contains("the type that declares this member"), "{own}");
}

/// F2: a removed `/// <reference lib="dom" />` in a module no file imports: the write says the
/// directive changed the program's global types and that the other files were NOT checked.
#[test]
fn a_changed_reference_directive_says_that_files_that_do_not_import_it_were_not_checked() {
    let test = "lsp_trial35::a_changed_reference_directive_says_that_files_that_do_not_import_it_were_not_checked";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = typescript_project(&[
        ("src/dom.ts", "/// <reference lib=\"dom\" />\nexport const marker = 1;\n"),
        ("src/field.ts", "export function focus(id: string): void {\n  document.getElementById(id)?.focus();\n}\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let before = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/dom.ts"}));
    assert!(!before.is_error, "{}", before.joined_text());
    let result =
        run.call(Caller::Main, "edit", json!({"path": "src/dom.ts", "old_string": "/// <reference lib=\"dom\" />\n", "new_string": ""}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let truth = support::tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("src/field.ts(2,")), "{truth:?}");
    assert!(text.contains("this write changed a triple-slash `/// <reference …/>` directive in src/dom.ts"), "{text}");
    assert!(text.contains("were NOT checked"), "{text}");
}

/// F4: an array cast whose `>[]` is lines below the type name was named as a cast that makes a
/// value of the type; by the syntax tree only a cast to the type itself is named.
#[test]
fn only_casts_to_the_type_itself_are_named_as_making_its_values() {
    let test = "lsp_trial35::only_casts_to_the_type_itself_are_named_as_making_its_values";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = typescript_project(&[
        ("src/box.ts", "export type Box<A> = { a: A };\n"),
        (
            "src/castprobe.ts",
            "import type { Box } from './box';\n\nexport const multi = [] as Box<\n  number\n>[];\nexport const one = [] as Box<number>[];\nexport function make(): Box<string> {\n  return {} as Box<string>;\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/box.ts", "line": 1, "symbol": "Box"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let casts = text.split("values of it (the compiler does not check").nth(1).unwrap_or_else(|| panic!("no cast is named:\n{text}"));
    assert!(text.contains("1 cast to `Box` claims values of it"), "{text}");
    assert!(casts.contains("src/castprobe.ts:8"), "{text}");
    assert!(!casts.contains("src/castprobe.ts:3") && !casts.contains("src/castprobe.ts:6"), "array casts make no Box:\n{text}");
}

/// F5: right after the tsconfig changed outside the tools, `references` answered from the old
/// program (7 of 9, a file the new include holds missing). The resync sees the changed
/// configuration, gives tsserver the time to reload the project, and says so.
#[test]
fn references_right_after_an_outside_tsconfig_change_come_from_the_reloaded_project() {
    let test = "lsp_trial35::references_right_after_an_outside_tsconfig_change_come_from_the_reloaded_project";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let config = |include: &str| {
        format!("{{\"compilerOptions\": {{\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}}, \"include\": [{include}]}}\n")
    };
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"formlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", &config("\"src/core\"")),
        ("src/core/utils.ts", "export function getBy(key: string): string {\n  return key;\n}\n\nexport const first = getBy('a');\n"),
        ("src/app/useBarrel.ts", "import { getBy } from '../core/utils';\n\nexport const second = getBy('b');\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let before = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/core/utils.ts", "line": 1, "symbol": "getBy"}));
    assert!(!before.is_error, "{}", before.joined_text());
    std::fs::write(dir.path().join("tsconfig.json"), config("\"src\"")).unwrap();
    let after = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/core/utils.ts", "line": 1, "symbol": "getBy"}));
    let text = after.joined_text();
    assert!(!after.is_error, "{text}");
    assert!(text.contains("src/app/useBarrel.ts (2):"), "the file the new include holds is missing:\n{text}");
    assert!(text.contains("tsconfig.json changed since the last answer"), "{text}");
}

/// M5: a parameter's rename listed the comments of other files that say the word as ones to
/// edit; outside the parameter's function they name something else and are counted apart.
#[test]
fn a_parameter_rename_counts_the_comments_outside_its_function_instead_of_listing_them() {
    let test = "lsp_trial35::a_parameter_rename_counts_the_comments_outside_its_function_instead_of_listing_them";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = typescript_project(&[
        (
            "src/form.ts",
            "export function getFieldValue(field: string): string {\n  // the field's value\n  return field.toUpperCase();\n}\n",
        ),
        ("src/field.ts", "/** A flag whether the field has been touched. */\nexport const touched = 'field';\n// field meta\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/form.ts", "line": 1, "symbol": "field", "new_name": "name", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Ground truth (grep -w field src/field.ts): 3, none of them the parameter.
    assert!(
        text.contains("not this binding: 3 occurrences in comments and strings outside `getFieldValue` (lines 1–4 of src/form.ts)"),
        "{text}"
    );
    assert!(!text.contains("src/field.ts:1:"), "a comment of another file is listed to edit:\n{text}");
    assert!(text.contains("src/form.ts:2:"), "the comment inside the function is still listed:\n{text}");
}

/// M2: a file outside the tsconfig's include that tsserver holds (it was opened, in an inferred
/// project) is checked with the importers; it is not also named as NOT checked.
#[test]
fn an_opened_file_outside_the_tsconfig_is_checked_and_not_also_named_not_checked() {
    let test = "lsp_trial35::an_opened_file_outside_the_tsconfig_is_checked_and_not_also_named_not_checked";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = typescript_project(&[
        ("src/utils.ts", "export function getBy(obj: unknown, path: string): unknown {\n  return path ? obj : undefined;\n}\n"),
        ("scripts/check.ts", "import { getBy } from '../src/utils';\n\nexport const value = getBy({}, 'a.b');\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let opened = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "scripts/check.ts"}));
    assert!(!opened.is_error, "{}", opened.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/utils.ts", "old_string": "path: string)", "new_string": "path: string, fallback: unknown)"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("scripts/check.ts:3: error[2554]"), "the opened outside file's new error:\n{text}");
    assert!(!text.contains("NOT checked: tsserver's project does not hold"), "checked and NOT checked at once:\n{text}");
}

/// M4: an `edit` that drops a name the package exports (the barrel re-exports it by name from a
/// module that no longer exports it) says so, as renames and code actions do.
#[test]
fn an_edit_that_drops_a_package_export_says_so() {
    let test = "lsp_trial35::an_edit_that_drops_a_package_export_says_so";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"formlike\", \"version\": \"0.1.0\", \"main\": \"dist/index.js\", \"types\": \"dist/index.d.ts\", \"source\": \"src/index.ts\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "export * from './utils';\n"),
        ("src/utils.ts", "export function getBy(key: string): string {\n  return key;\n}\n\nexport function setBy(key: string): string {\n  return key;\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let opened = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/utils.ts"}));
    assert!(!opened.is_error, "{}", opened.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/utils.ts", "old_string": "export function setBy", "new_string": "function setBy"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("this write removed 1 name from what the package `formlike` exports: `setBy` (from `formlike`)"), "{text}");
}
