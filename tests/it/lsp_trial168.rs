//! Wrong answers from the fresh-user trial 168 (@tanstack/table-core + react-table 8.21.3 as a
//! pnpm workspace), against the real tsserver and tsc, on fixtures of the same shape:
//! - F1: renaming `CoreOptions.onStateChange` left the key `'onStateChange'` in
//!   `PartialKeys<TableOptionsResolved<TData>, 'state' | 'onStateChange' | …>`, where
//!   `interface TableOptionsResolved<TData> extends CoreOptions<TData>, FeatureOptions<TData> {}`:
//!   "another property unless `TableOptionsResolved` … inherits `CoreOptions`; leave it otherwise",
//!   and tsc then failed (TS2344) in both packages.
//! - M2: `references` of the member neither listed nor named that key.
//! - M1: renaming `TableFeature.createTable` gave 15 near-identical "public API changed" notes,
//!   one per exported feature object, before the answer.
//! - M3: `incoming_calls` called a call inside `column.setFilterValue = value => {…}`, within a
//!   feature object's `createColumn`, "the file's top-level code … outside any named function".
//!
//! Ground truth: tsc after the rename (clean only when the key is renamed too), tsc on the
//! member renamed by hand without the key (the key breaks it); the declarations of a member and
//! the functions around a call are fixed by construction.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// A strict TypeScript project: `src/core.ts` declares `CoreOptions` (`onStateChange` at line 2)
/// and an unrelated `OtherOptions` with a member of the same name; `src/options.ts` declares
/// `TableOptionsResolved`, which extends `CoreOptions` and `FeatureOptions`, and keys both.
fn table_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"name\": \"table\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        (
            "src/core.ts",
            "export interface CoreOptions<TData> {\n  onStateChange: (data: TData) => void\n  state: TData\n}\n\nexport interface FeatureOptions<TData> {\n  enableSorting?: (data: TData) => boolean\n}\n\nexport interface OtherOptions {\n  onStateChange?: number\n}\n",
        ),
        (
            "src/options.ts",
            "import type { CoreOptions, FeatureOptions, OtherOptions } from './core'\n\ntype PartialKeys<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>\n\nexport interface TableOptionsResolved<TData>\n  extends CoreOptions<TData>,\n    FeatureOptions<TData> {}\n\nexport interface TableOptions<TData>\n  extends PartialKeys<TableOptionsResolved<TData>, 'state' | 'onStateChange'> {}\n\nexport type OtherKey = Pick<OtherOptions, 'onStateChange'>\n\nexport const options: TableOptions<number> = {}\n",
        ),
    ])
}

#[test]
fn a_key_over_a_type_that_extends_the_members_type_is_renamed_with_it() {
    let test = "lsp_trial168::a_key_over_a_type_that_extends_the_members_type_is_renamed_with_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = table_workspace();
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/core.ts", "line": 2, "symbol": "onStateChange", "new_name": "onStateUpdate"}),
    );
    let renamed = text.lines().position(|line| line.contains("runbound renamed 1 string key in types")).unwrap_or_else(|| panic!("{text}"));
    let key = text.lines().nth(renamed + 1).unwrap_or_default();
    assert!(key.contains("src/options.ts:10:"), "{text}");
    assert!(key.contains("`TableOptionsResolved` extends `CoreOptions`"), "the reason is said: {key}");
    let other = text.lines().find(|line| line.contains("Pick<OtherOptions, 'onStateChange'>")).unwrap_or_else(|| panic!("{text}"));
    assert!(other.contains("`OtherOptions` neither is nor extends `CoreOptions`"), "{other}");
    let written = std::fs::read_to_string(dir.path().join("src/options.ts")).unwrap();
    assert!(written.contains("PartialKeys<TableOptionsResolved<TData>, 'state' | 'onStateUpdate'>"), "{written}");
    assert!(written.contains("Pick<OtherOptions, 'onStateChange'>"), "another type's key is left: {written}");
    // Ground truth: the rename compiles.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

#[test]
fn references_name_a_key_over_a_type_that_extends_the_members_type() {
    let test = "lsp_trial168::references_name_a_key_over_a_type_that_extends_the_members_type";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = table_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/core.ts", "line": 2, "symbol": "onStateChange"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text.lines().find(|line| line.contains("as a property key")).unwrap_or_else(|| panic!("the key is not named:\n{text}"));
    assert!(
        note.contains("src/options.ts:10 (key in a type argument of `TableOptionsResolved`; `TableOptionsResolved` extends `CoreOptions`"),
        "{note}"
    );
    assert!(!note.contains("src/options.ts:12"), "`OtherOptions`' key is another property's: {note}");
    // Ground truth: the member renamed without that key breaks it.
    let core = dir.path().join("src/core.ts");
    let renamed = std::fs::read_to_string(&core).unwrap().replacen("onStateChange: (data", "onStateUpdate: (data", 1);
    std::fs::write(&core, renamed).unwrap();
    let truth = support::tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("src/options.ts(10,")), "{truth:?}");
}

/// M1: renaming a member of an exported interface that many exported objects implement says the
/// change in one note naming the member once and each declaration with its file:line, not one
/// note of ~560 characters per object.
#[test]
fn a_member_renamed_in_many_exported_objects_is_said_in_one_public_api_note() {
    let test = "lsp_trial168::a_member_renamed_in_many_exported_objects_is_said_in_one_public_api_note";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let features = ["Sorting", "Filtering", "Grouping", "Paging"];
    let sources: Vec<(String, String)> = features
        .iter()
        .map(|feature| {
            (
                format!("src/features/{feature}.ts"),
                format!("import type {{ TableFeature }} from '../types'\n\nexport const {feature}: TableFeature = {{\n  createTable: (table) => {{\n    table.ready = true\n  }},\n}}\n"),
            )
        })
        .collect();
    let index: String = std::iter::once("export * from './types'\n".to_owned())
        .chain(features.iter().map(|feature| format!("export * from './features/{feature}'\n")))
        .collect();
    let mut files: Vec<(&str, &str)> = vec![
        ("package.json", "{\"name\": \"tablelike\", \"version\": \"1.0.0\", \"types\": \"src/index.ts\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", "export interface Table {\n  ready: boolean\n}\n\nexport interface TableFeature {\n  createTable?: (table: Table) => void\n}\n"),
        ("src/index.ts", &index),
    ];
    files.extend(sources.iter().map(|(path, text)| (path.as_str(), text.as_str())));
    let dir = support::workspace_with(&files);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/types.ts", "line": 6, "symbol": "createTable", "new_name": "setupTable", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let notes: Vec<&str> = text.lines().filter(|line| line.starts_with("note: public API changed:")).collect();
    assert_eq!(notes.len(), 1, "{text}");
    // Ground truth: the declarations of the member, by grep.
    let declared: Vec<String> = std::iter::once("interface `TableFeature` (src/types.ts:6)".to_owned())
        .chain(features.iter().map(|feature| format!("object `{feature}` (src/features/{feature}.ts:4)")))
        .collect();
    assert!(
        notes[0].starts_with("note: public API changed: this rename changes the member `createTable` of 1 exported interface and 4 exported objects that the package `tablelike` exports from `tablelike` — "),
        "{}",
        notes[0]
    );
    for declaration in &declared {
        assert!(notes[0].contains(declaration.as_str()), "{declaration} is not named: {}", notes[0]);
    }
    assert!(notes[0].contains("each `X.createTable` becomes `X.setupTable`"), "{}", notes[0]);
}

/// M3: `incoming_calls` gave a call inside `column.setFilterValue = value => {…}`, in the
/// `createColumn` arrow of an exported feature object, as "the file's top-level code … outside
/// any named function or method" (tsserver names the file). The entry now names the functions
/// that hold the call by the syntax tree, and keeps "top-level" for the call that is.
#[test]
fn calls_in_functions_bound_to_properties_are_not_called_top_level_code() {
    let test = "lsp_trial168::calls_in_functions_bound_to_properties_are_not_called_top_level_code";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"table\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        (
            "src/utils.ts",
            "export function functionalUpdate<T>(updater: T | ((old: T) => T), input: T): T {\n  return typeof updater === 'function' ? (updater as (old: T) => T)(input) : updater\n}\n",
        ),
        (
            "src/filtering.ts",
            "import { functionalUpdate } from './utils'\n\nexport interface Column {\n  setFilterValue?: (value: number) => void\n}\nexport interface Table {\n  setColumnFilters: (update: (old: number) => number) => void\n}\n\nexport const ColumnFiltering = {\n  createColumn: (column: Column, table: Table): void => {\n    column.setFilterValue = value => {\n      table.setColumnFilters(old => {\n        return functionalUpdate(value, old)\n      })\n    }\n  },\n}\n\nexport const initial = functionalUpdate(1, 2)\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/utils.ts", "line": 1, "symbol": "functionalUpdate"}));
    assert!(
        text.contains("14: return functionalUpdate(value, old)") && text.contains("20: export const initial = functionalUpdate(1, 2)"),
        "{text}"
    );
    let entry = text.lines().find(|line| line.contains("names the file for these calls")).unwrap_or_else(|| panic!("{text}"));
    assert!(entry.contains("(inside `ColumnFiltering.createColumn` → `column.setFilterValue`, and top-level code;"), "{entry}");
    assert!(entry.contains("some lie inside a function it does not name as a caller — in `ColumnFiltering.createColumn` → `column.setFilterValue` (line 14)"), "{entry}");
    assert!(entry.contains("the others stand outside any named function"), "the top-level call is said: {entry}");
    assert!(!text.contains("the calls below stand outside any named function or method"), "{text}");
}

/// Review49 H1: a key over a type that only has the name of the member's type (`Options` in
/// another file, declared there) names another property: the rename leaves it, and the project
/// still compiles. Ground truth: tsc after the rename.
#[test]
fn a_key_over_another_type_of_the_same_name_is_left() {
    let test = "lsp_trial168::a_key_over_another_type_of_the_same_name_is_left";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let other = "// its own, unrelated Options\ninterface Options { timeout: number; retries: number }\nexport type Only = Pick<Options, 'timeout'>\nexport type Rest = Omit<Options, 'timeout'>\nexport const r: Rest = { retries: 2 }\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"same\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/a.ts", "// the renamed member's type\nexport interface Options { timeout: number }\nexport const o: Options = { timeout: 1 }\n"),
        ("src/b.ts", other),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/a.ts", "line": 2, "symbol": "timeout", "new_name": "limit"}));
    assert!(!text.contains("string keys in types") && !text.contains("string key in types"), "no key renamed: {text}");
    let written = std::fs::read_to_string(dir.path().join("src/b.ts")).unwrap();
    assert_eq!(written, other, "b.ts untouched:\n{text}");
    let key = text.lines().find(|line| line.contains("Pick<Options, 'timeout'>")).unwrap_or_else(|| panic!("{text}"));
    assert!(key.contains("another `Options`") && key.contains("leave it"), "{key}");
    // Ground truth: the rename compiles.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

/// Review49 H2: keys over types built on the member's type through `Omit<…, 'other'>` (an
/// interface's heritage) and `Partial<…>` (an alias's value) name the member: renamed with it,
/// and the project still compiles. Ground truth: tsc after the rename.
#[test]
fn a_key_over_a_type_built_through_omit_or_partial_is_renamed_with_it() {
    let test = "lsp_trial168::a_key_over_a_type_built_through_omit_or_partial_is_renamed_with_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"utility\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/core.ts", "export interface CoreOptions {\n  onStateChange: () => void\n  data: number\n}\n"),
        (
            "src/options.ts",
            "import type { CoreOptions } from './core'\n\nexport interface TableOptions extends Omit<CoreOptions, 'data'> {}\nexport type Loose = Partial<CoreOptions>\n\nexport type K1 = Pick<TableOptions, 'onStateChange'>\nexport type K2 = Pick<Loose, 'onStateChange'>\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/core.ts", "line": 2, "symbol": "onStateChange", "new_name": "onStateUpdate"}),
    );
    assert!(!text.contains("leave it"), "{text}");
    assert!(text.contains("runbound renamed 2 string keys in types"), "{text}");
    let written = std::fs::read_to_string(dir.path().join("src/options.ts")).unwrap();
    assert!(
        written.contains("Pick<TableOptions, 'onStateUpdate'>") && written.contains("Pick<Loose, 'onStateUpdate'>"),
        "{written}\n{text}"
    );
    // Ground truth: the rename compiles.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}
