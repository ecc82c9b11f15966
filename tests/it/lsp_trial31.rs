//! Wrong or weak answers from the fresh-user trial 31 (zod 3.25.76's `src/v4`, its tests
//! excluded by the tsconfig), against the real typescript-language-server and tsc on fixtures of
//! the same shape:
//! - M2: `util.defineLazy` got a required parameter; tsserver's `fileReferences` listed 66
//!   importers, and the 40 checked (the cap) were taken in its order: 26 locale files that never
//!   name `defineLazy`, while `classic/schemas.ts` and `mini/schemas.ts`, which call it and broke,
//!   were left out. Now the importers that name a changed declaration are checked first.
//! - M1: the headline said the unchecked importers were "named on the `checked:` line"; they were
//!   only counted. Now the first 8 are named.
//!
//! Ground truth: `tsc --noEmit -p .`.

use crate::support;

use runbound::{Caller, RunConfig};
use serde_json::json;

/// M2, M1: with a cap of 2 importers, the one that calls the changed function is checked although
/// `fileReferences` lists it last, and the importers past the cap are named.
#[test]
fn typescript_importers_that_name_the_changed_declaration_are_checked_first_and_the_rest_named() {
    let test = "lsp_trial31::typescript_importers_that_name_the_changed_declaration_are_checked_first_and_the_rest_named";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let locale = "import * as util from '../core/util';\n\nexport const message: string = util.joinValues(['a', 'b']);\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/core/util.ts",
            "export function joinValues(values: string[]): string {\n  return values.join(', ');\n}\n\nexport function defineLazy<T extends object>(object: T, key: string, getter: () => unknown): void {\n  Object.defineProperty(object, key, { get: getter });\n}\n",
        ),
        ("src/locales/ar.ts", locale),
        ("src/locales/az.ts", locale),
        ("src/locales/be.ts", locale),
        ("src/locales/de.ts", locale),
        (
            "src/mini/schemas.ts",
            "import * as util from '../core/util';\n\nexport function make(): object {\n  const inst = {};\n  util.defineLazy(inst, 'shape', () => 1);\n  return inst;\n}\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.write_diagnostics_dependents_cap = 2;
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    // Opens the project (the write check reads tsserver's project of the written file).
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "src/core/util.ts", "line": 5, "symbol": "defineLazy"}));
    assert!(!hover.is_error, "{}", hover.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/core/util.ts", "old_string": "getter: () => unknown): void", "new_string": "getter: () => unknown, enumerable: boolean): void"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let truth = support::tsc_errors(dir.path());
    assert_eq!(truth.len(), 1, "{truth:?}");
    assert!(truth[0].starts_with("src/mini/schemas.ts(5,"), "{truth:?}");
    assert!(
        text.contains("src/mini/schemas.ts:5:") && text.contains("Expected 4 arguments"),
        "the caller's new error is not reported:\n{text}"
    );
    assert!(text.contains("this write introduced 1 new error in 1 file"), "{text}");
    assert!(text.contains("those that name defineLazy first"), "{text}");
    // 5 importers, 2 checked: the 3 others are named, all of them locale files.
    let checked_line = text.lines().find(|line| line.starts_with("checked:")).unwrap_or_else(|| panic!("no checked: line\n{text}"));
    assert!(checked_line.contains("3 more that import it were not checked (the cap of 2 files): src/locales/"), "{checked_line}");
    assert_eq!(checked_line.matches("src/locales/").count(), 3, "{checked_line}");
    assert!(!checked_line.contains("and 0 more"), "{checked_line}");
}

/// F5: a test file the tsconfig excludes imports the written file by a relative path; tsserver's
/// `fileReferences` cannot list it, and the write check named it in neither list. Now it is named
/// as NOT checked, with the call that checks it; a file importing a re-exporter is named too, and
/// one importing an unrelated module is not.
#[test]
fn an_importer_the_tsconfig_excludes_is_named_as_not_checked() {
    let test = "lsp_trial31::an_importer_the_tsconfig_excludes_is_named_as_not_checked";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"], \"exclude\": [\"src/**/tests/**\"]}\n",
        ),
        ("src/locales/en.ts", "export const parsedType = (data: unknown): string => {\n  return typeof data;\n};\n"),
        ("src/locales/index.ts", "export * from './en';\n"),
        ("src/other.ts", "export const other = 1;\n"),
        ("src/core/tests/en.test.ts", "import { parsedType } from \"../../locales/en.js\";\n\nexport const seen: string = parsedType(1);\n"),
        ("src/core/tests/barrel.test.ts", "import { parsedType } from '../../locales';\n\nexport const seen: string = parsedType(2);\n"),
        ("src/core/tests/other.test.ts", "import { other } from '../../other';\n\nexport const seen: number = other;\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "src/locales/en.ts", "line": 1, "symbol": "parsedType"}));
    assert!(!hover.is_error, "{}", hover.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/locales/en.ts", "old_string": "(data: unknown): string", "new_string": "(data: unknown, locale: string): string"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text
        .lines()
        .find(|line| line.contains("outside tsconfig.json's files/include/exclude import"))
        .unwrap_or_else(|| panic!("the excluded importers are not named:\n{text}"));
    // Each excluded importer is either checked (tsserver holds it, in a project of its own) with
    // its new error reported, or named as NOT checked — never neither, never both (trial35 M2).
    assert!(note.contains("NOT checked") && note.contains("src/core/tests/en.test.ts"), "{note}\n{text}");
    let barrel_checked = text.contains("src/core/tests/barrel.test.ts:3: error[2554]");
    assert!(barrel_checked != note.contains("src/core/tests/barrel.test.ts"), "{text}");
    assert!(!note.contains("other.test.ts"), "{note}");
    // Ground truth: with the tests included, tsc reports the two calls.
    std::fs::write(
        dir.path().join("tsconfig.json"),
        "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n",
    )
    .unwrap();
    let truth = support::tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("src/core/tests/en.test.ts(3,")), "{truth:?}");
    assert!(truth.iter().any(|line| line.starts_with("src/core/tests/barrel.test.ts(3,")), "{truth:?}");
}

/// F2: an interface method implemented by assignment in a constructor callback: tsserver's
/// `implementation` is empty, and the answer now names the assignment (from the references,
/// by the syntax tree) — not the call or the read of the same member.
#[test]
fn an_interface_method_implemented_by_assignment_is_named_when_tsserver_lists_none() {
    let test = "lsp_trial31::an_interface_method_implemented_by_assignment_is_named_when_tsserver_lists_none";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/schemas.ts",
            "export interface ZodType {\n  nonoptional(params?: string): ZodType;\n}\n\nfunction construct(init: (inst: ZodType) => void): ZodType {\n  const inst = {} as ZodType;\n  init(inst);\n  return inst;\n}\n\nexport const ZodType = construct((inst) => {\n  inst.nonoptional = (params) => inst;\n});\n\nexport const again: ZodType = ZodType.nonoptional('x');\nexport const read = ZodType.nonoptional;\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/schemas.ts", "line": 2, "symbol": "nonoptional"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("no implementations found"), "tsserver now lists an implementation: is the note still needed?\n{text}");
    let note = text.lines().find(|line| line.contains("implementations made by assignment")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("1 reference of `nonoptional` assigns"), "{note}");
    assert!(note.contains("src/schemas.ts:12 (arrow function: `inst.nonoptional = (params) => inst;`)"), "{note}");
    assert!(!note.contains(":15") && !note.contains(":16"), "a call and a read are no implementation: {note}");
}

/// M4 (and trial30 M5): a TypeScript rename of a function the package's entry point re-exports
/// (`export *` chain from package.json's `exports`) says the public name changes and how to keep
/// it; a rename of a function no entry reaches says nothing of the kind.
#[test]
fn a_typescript_rename_of_a_package_export_names_the_public_api_change() {
    let test = "lsp_trial31::a_typescript_rename_of_a_package_export_names_the_public_api_change";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "package.json",
            "{\"name\": \"zodlike\", \"version\": \"1.0.0\", \"exports\": {\".\": {\"types\": \"./dist/index.d.ts\", \"import\": \"./dist/index.js\"}}}\n",
        ),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "export * from './classic/external';\n"),
        ("src/classic/external.ts", "export * from './schemas';\n"),
        (
            "src/classic/schemas.ts",
            "export function looseObject(shape: object): object {\n  return shape;\n}\n\nexport const strict = looseObject({});\n",
        ),
        ("src/internal/helpers.ts", "export function internalHelper(): number {\n  return 1;\n}\n"),
        ("src/uses.ts", "import { internalHelper } from './internal/helpers';\n\nexport const value: number = internalHelper();\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/classic/schemas.ts", "line": 1, "symbol": "looseObject", "new_name": "passthroughObject", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text.lines().find(|line| line.starts_with("note: public API changed:")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("src/classic/schemas.ts:1 exports the function `looseObject`"), "{note}");
    assert!(note.contains("the package `zodlike` exports as `looseObject` from `zodlike`"), "{note}");
    assert!(note.contains("src/index.ts → src/classic/external.ts → src/classic/schemas.ts"), "{note}");
    assert!(note.contains("`export { passthroughObject as looseObject };`"), "{note}");
    let structured = result.structured_content.as_ref().expect("structured");
    assert!(structured["public_name_changes"].as_array().is_some_and(|notes| notes.len() == 1), "{structured}");

    // The keeping export the note proposes compiles beside the renamed function.
    let schemas = dir.path().join("src/classic/schemas.ts");
    std::fs::write(
        &schemas,
        "export function passthroughObject(shape: object): object {\n  return shape;\n}\nexport { passthroughObject as looseObject };\n\nexport const strict = passthroughObject({});\n",
    )
    .unwrap();
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));

    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/internal/helpers.ts", "line": 1, "symbol": "internalHelper", "new_name": "helperOne", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("public API changed"), "no entry point reaches src/internal/helpers.ts:\n{text}");
}

/// M6: a file the tsconfig excludes, written with an error: the write check and `diagnostics`
/// report it and now say that the file is outside tsconfig.json, checked in an inferred project,
/// and never counted by `"*"` — which indeed reports no error for it.
#[test]
fn errors_of_a_file_the_tsconfig_excludes_are_said_to_be_outside_the_project_check() {
    let test = "lsp_trial31::errors_of_a_file_the_tsconfig_excludes_are_said_to_be_outside_the_project_check";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"], \"exclude\": [\"src/**/tests/**\"]}\n",
        ),
        ("src/schemas.ts", "export const version: number = 1;\n"),
        ("src/tests/schemas.test.ts", "import { version } from '../schemas';\n\nexport const seen: number = version;\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/tests/schemas.test.ts", "old_string": "export const seen: number = version;", "new_string": "export const seen: number = version;\nexport const wrong: number = 'text';"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/tests/schemas.test.ts:4:") && text.contains("not assignable to type 'number'"), "{text}");
    let said = "src/tests/schemas.test.ts is outside tsconfig.json's files/include/exclude";
    assert!(text.contains(&format!("note: {said}")) && !text.contains("note: note:"), "{text}");
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/tests/schemas.test.ts"}));
    let text = result.joined_text();
    assert!(text.contains("1 error") && text.contains(&format!("note: {said}")), "{text}");
    // Ground truth: tsc on the config counts nothing of it.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/schemas.ts"}));
    assert!(!result.joined_text().contains("outside tsconfig.json's files"), "{}", result.joined_text());
}

/// M7: `incoming_calls` of a function called only through names bound to it in files the query
/// never opened: the bound names' references were asked of files tsserver had not opened, and
/// came back empty ("through `multipleOf`: 0 call sites" where zod calls it 3 times). And a
/// caller that is a whole file is not quoted by its line 1 (an import line read as the call).
#[test]
fn calls_through_a_bound_name_in_an_unopened_file_are_counted_and_a_file_caller_is_not_quoted_by_line_1() {
    let test = "lsp_trial31::calls_through_a_bound_name_in_an_unopened_file_are_counted_and_a_file_caller_is_not_quoted_by_line_1";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/api.ts", "export function _multipleOf(value: number): number {\n  return value * 2;\n}\n"),
        ("src/checks.ts", "export {\n  _multipleOf as multipleOf,\n} from './api';\n"),
        (
            "src/schemas.ts",
            "import * as checks from './checks';\n\nfunction construct(init: (inst: { step?: (value: number) => number }) => void): void {\n  init({});\n}\n\nconstruct((inst) => {\n  inst.step = (value) => checks.multipleOf(value);\n});\n",
        ),
        ("src/values.ts", "import { _multipleOf } from './api';\n\nexport const double = _multipleOf;\nexport const four = double(2) + double(1);\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "incoming_calls", "file": "src/api.ts", "line": 1, "symbol": "_multipleOf"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // `double` (a value binding in src/values.ts, never opened) is called twice on line 4.
    let double = text.lines().find(|line| line.starts_with("through `double`")).unwrap_or_else(|| panic!("{text}"));
    assert!(double.contains("2 call sites"), "{double}\n{text}");
    // The caller of `checks.multipleOf(value)` is the arrow function assigned to `inst.step`,
    // which tsserver names by the file (trial121 M1), not the file's import line.
    assert!(!text.contains("1: import * as checks"), "{text}");
    assert!(text.contains("1: (inside `inst.step`)   [module schemas.ts: typescript-language-server names the file for calls inside function expressions assigned to members — here `inst.step` (src/schemas.ts:8)"), "{text}");
    assert!(text.contains("8: inst.step = (value) => checks.multipleOf(value);"), "the call site is listed under it:\n{text}");
}

/// Trial 41 F1 (immer 11.2.14's shape): renaming a class member edits the right-hand side of an
/// exported const of the same name (`export const produce = immer.produce`) — the package's
/// `produce` export is not changed and no note says it is; renaming the class at `export {Immer}`
/// changes the public name, and the alias the note proposes compiles (tsc).
#[test]
fn a_member_rename_that_edits_an_exported_const_of_the_same_name_changes_no_export() {
    let test = "lsp_trial31::a_member_rename_that_edits_an_exported_const_of_the_same_name_changes_no_export";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "package.json",
            "{\"name\": \"immerlike\", \"version\": \"1.0.0\", \"exports\": {\".\": {\"types\": \"./dist/immer.d.ts\", \"import\": \"./dist/immer.js\"}}}\n",
        ),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/immerClass.ts", "export class Immer {\n  produce = (value: number): number => value + 1\n}\n"),
        (
            "src/immer.ts",
            "import { Immer } from \"./immerClass\"\n\nconst immer = new Immer()\n\nexport const produce = immer.produce\n\nexport { Immer }\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "src/immerClass.ts", "line": 2, "symbol": "produce", "new_name": "produceX"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let immer = std::fs::read_to_string(dir.path().join("src/immer.ts")).unwrap();
    assert!(immer.contains("export const produce = immer.produceX"), "the exported const keeps its name: {immer}");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    assert!(!text.contains("exports the variable `produce`"), "{text}");
    assert!(!text.contains("export { produceX as produce }"), "{text}");

    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "src/immer.ts", "line": 7, "symbol": "Immer", "new_name": "ImmerX"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    if let Some(note) = text.lines().find(|line| line.starts_with("note: public API changed: src/immer.ts:7")) {
        // The alias it proposes compiles beside what the rename wrote.
        let keep = note.split("also add `").nth(1).and_then(|rest| rest.split('`').next()).unwrap_or_else(|| panic!("{note}"));
        let path = dir.path().join("src/immer.ts");
        let renamed = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{renamed}{keep}\n")).unwrap();
        assert!(support::tsc_errors(dir.path()).is_empty(), "{keep}: {:?}", support::tsc_errors(dir.path()));
    } else {
        let renamed = std::fs::read_to_string(dir.path().join("src/immer.ts")).unwrap();
        assert!(!renamed.contains("as ImmerX"), "the public name changed without a note:\n{renamed}\n{text}");
    }
}

/// Trial 43 F2 (@tanstack/virtual-core 3.10.8's shape): moving the package's entry file away
/// leaves every export unreachable from package.json's entry points; the write says so.
#[test]
fn moving_the_package_entry_file_away_names_the_exports_it_removes() {
    let test = "lsp_trial31::moving_the_package_entry_file_away_names_the_exports_it_removes";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "package.json",
            "{\"name\": \"virtlike\", \"version\": \"1.0.0\", \"types\": \"dist/esm/index.d.ts\", \"exports\": {\".\": {\"import\": {\"types\": \"./dist/esm/index.d.ts\", \"default\": \"./dist/esm/index.js\"}}}}\n",
        ),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/utils.ts", "export function debounce(x: number): number {\n  return x\n}\n"),
        ("src/index.ts", "export * from \"./utils\"\nexport const version = 1\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/index.ts"}));
    assert!(!result.is_error, "{}", result.joined_text());
    let patch = "*** Begin Patch\n*** Update File: src/index.ts\n*** Move to: src/core.ts\n@@\n export * from \"./utils\"\n*** End Patch\n";
    let result = run.call(Caller::Main, "apply_patch", json!({"patch": patch}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("this write removed 2 names from what the package `virtlike` exports")
            && text.contains("`debounce` (from `virtlike`)")
            && text.contains("`version` (from `virtlike`)"),
        "{text}"
    );
}
