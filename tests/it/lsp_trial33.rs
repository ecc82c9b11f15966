//! Wrong answers from the fresh-user trial 33 (@tanstack/table-core 8.20.5's `src`), against the
//! real typescript-language-server and tsc on fixtures of the same shape:
//! - F1: `implementation` of `interface Row` listed 14 containers (`const rows: Row<TData>[] =
//!   []`, `Record<string, Row<TData>> = {}`) and called them implementations "checked by the
//!   compiler"; the rows are made by `return row as Row<TData>` in createRow, which was not named.
//! - F2: after renaming the property `PaginationState.pageIndex`, the uses of locals destructured
//!   as `{ index: pageIndex }` were said to go "through a re-export whose public name the server
//!   kept" (there is no re-export).
//!
//! Ground truth: the source read by hand; tsc after the rename.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// F1 (and M3): containers typed with an interface are no implementations of it, and the casts
/// that make its values are named.
#[test]
fn containers_of_an_interface_are_not_its_implementations_and_the_casts_that_make_it_are_named() {
    let test = "lsp_trial33::containers_of_an_interface_are_not_its_implementations_and_the_casts_that_make_it_are_named";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"tablelike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", "export interface Row<TData> {\n  id: string;\n  original: TData;\n}\n"),
        (
            "src/row.ts",
            "import { Row } from './types';\n\nexport function createRow<TData>(id: string, original: TData): Row<TData> {\n  const row = { id, original };\n  return row as Row<TData>;\n}\n",
        ),
        (
            "src/model.ts",
            "import { Row } from './types';\n\nexport function model<TData>(): number {\n  const rows: Row<TData>[] = [];\n  const byId: Record<string, Row<TData>> = {};\n  return rows.length + Object.keys(byId).length;\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/types.ts", "line": 1, "symbol": "Row"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("checked by the compiler"), "a container is no implementation:\n{text}");
    assert!(!text.contains("are declarations that implement"), "{text}");
    assert!(text.contains("src/model.ts:4:"), "tsserver no longer lists the container: is the fixture still F1's?\n{text}");
    let note = text.lines().find(|line| line.starts_with("note: of these locations:")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("containers typed as an array, record, map, set or object type holding `Row`"), "{note}");
    assert!(note.contains("src/model.ts:4 (array literal)"), "{note}");
    // trial34 M3: values pushed into a container are made elsewhere; the note says where to look.
    assert!(note.contains("call `lsp references` on the container to find them"), "{note}");
    assert!(text.contains("src/row.ts:5 (`return row as Row<TData>;`)"), "the cast that makes rows is not named:\n{text}");
}

/// F2: uses of a local variable that destructures a renamed property are said to be the
/// variable's, not uses through a re-export.
#[test]
fn uses_of_a_local_that_destructures_a_renamed_property_are_said_to_name_the_local() {
    let test = "lsp_trial33::uses_of_a_local_that_destructures_a_renamed_property_are_said_to_name_the_local";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"tablelike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/state.ts", "export interface PaginationState {\n  pageIndex: number;\n  pageSize: number;\n}\n"),
        (
            "src/pages.ts",
            "import { PaginationState } from './state';\n\nexport function nextPage(state: PaginationState, pageCount: number): boolean {\n  const { pageIndex } = state;\n  return pageIndex < pageCount - 1;\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/state.ts", "line": 2, "symbol": "pageIndex", "new_name": "index", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("through a re-export"), "{text}");
    assert!(text.contains("index: pageIndex"), "tsserver keeps the local name:\n{text}");
    let said = text
        .lines()
        .position(|line| line.contains("left unrenamed, rightly: 1 use of local variables named `pageIndex`"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(text.lines().nth(said + 1).is_some_and(|line| line.contains("src/pages.ts:5:")), "{text}");
}

/// M7: `incoming_calls` on an arrow function held by an object property has no call hierarchy
/// item; the answer now names the references request that lists its uses, and that request does.
#[test]
fn incoming_calls_on_a_function_held_by_a_property_points_to_its_references() {
    let test = "lsp_trial33::incoming_calls_on_a_function_held_by_a_property_points_to_its_references";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"tablelike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/table.ts",
            "export const table = {\n  getColumn: (columnId: string) => {\n    return columnId.length;\n  },\n};\n\nexport const width = table.getColumn('a') + table.getColumn('b');\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "incoming_calls", "file": "src/table.ts", "line": 2, "symbol": "getColumn"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("no call hierarchy item"), "tsserver now makes it an item: is the fixture still M7's?\n{text}");
    assert!(text.contains(r#"call lsp with {"file":"src/table.ts","line":2,"op":"references","symbol":"getColumn"}"#), "{text}");
    let references = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/table.ts", "line": 2, "symbol": "getColumn"}));
    assert!(references.joined_text().contains("  7: export const width = table.getColumn('a')"), "{}", references.joined_text());
}

/// M1: renaming a member of an exported interface that the package's entry point re-exports
/// says the exported shape changes; a member of an interface no entry reaches says nothing.
#[test]
fn renaming_a_member_of_an_exported_interface_names_the_public_api_change() {
    let test = "lsp_trial33::renaming_a_member_of_an_exported_interface_names_the_public_api_change";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"tablelike\", \"version\": \"1.0.0\", \"main\": \"build/lib/index.js\", \"types\": \"build/lib/index.d.ts\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "export * from './features/sorting';\n"),
        (
            "src/features/sorting.ts",
            "export interface SortingColumn {\n  getSortingFn: () => number;\n}\n\nexport const column: SortingColumn = { getSortingFn: () => 1 };\n",
        ),
        ("src/internal.ts", "interface Hidden {\n  secret: number;\n}\n\nexport const hidden: Hidden = { secret: 1 };\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/features/sorting.ts", "line": 2, "symbol": "getSortingFn", "new_name": "getSortFn", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text.lines().find(|line| line.starts_with("note: public API changed:")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("a member of the exported interface `SortingColumn`"), "{note}");
    assert!(note.contains("from `tablelike` (through src/index.ts → src/features/sorting.ts)"), "{note}");
    assert!(note.contains("changes `SortingColumn.getSortingFn` to `SortingColumn.getSortFn`"), "{note}");
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/internal.ts", "line": 2, "symbol": "secret", "new_name": "hiddenValue", "preview": true}),
    );
    assert!(!result.joined_text().contains("public API changed"), "{}", result.joined_text());
}
