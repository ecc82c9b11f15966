//! Wrong answers from the fresh-user trial 34 (@tanstack/query-core 5.62.0's `src`), against the
//! real typescript-language-server and tsc on fixtures of the same shape:
//! - F1: `references` of `QueryOptions.queryKeyHashFn` answered "2 references" and said nothing
//!   of `Pick<QueryOptions<…>, 'queryKeyHashFn'>` in utils.ts, which a rename of the member breaks.
//! - F2: a code action applied directly that creates a file ("Move to a new file") skipped the
//!   importers of every written file ("the written file was not open before the write"), and tsc
//!   then reported TS2459 in the barrel.
//!
//! Ground truth: tsc.

use crate::support;

use runbound::Caller;
use serde_json::json;


/// F1: a string key in `Pick<…, 'key'>` that names the member is named on its references.
#[test]
fn references_of_a_member_name_the_string_keys_that_name_it_in_types() {
    let test = "lsp_trial34::references_of_a_member_name_the_string_keys_that_name_it_in_types";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"querylike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", "export interface QueryOptions {\n  queryKeyHashFn?: (key: string) => string;\n}\n"),
        (
            "src/utils.ts",
            "import type { QueryOptions } from './types';\n\nexport function hashKey(key: string, options?: Pick<QueryOptions, 'queryKeyHashFn'>): string {\n  const hashFn = options?.queryKeyHashFn ?? ((k: string) => k);\n  return hashFn(key);\n}\n\nexport const message = 'queryKeyHashFn is optional';\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/types.ts", "line": 2, "symbol": "queryKeyHashFn"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text.lines().find(|line| line.contains("as a property key")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.starts_with("note: 1 string that names `queryKeyHashFn` as a property key is NOT in this list"), "{note}");
    assert!(note.contains("src/utils.ts:3 (key in a type argument"), "{note}");
    assert!(!note.contains("src/utils.ts:8"), "an error message is no key: {note}");
    // Ground truth: the member renamed without the key breaks it.
    let types = dir.path().join("src/types.ts");
    std::fs::write(&types, "export interface QueryOptions {\n  keyHashFn?: (key: string) => string;\n}\n").unwrap();
    let truth = support::tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("src/utils.ts(3,")), "{truth:?}");
}

/// F2: "Move to a new file" applied directly: tsserver creates the new file itself while it
/// computes the edit and edits files that were never opened; the importers of the written files
/// are checked anyway, and the barrel's TS2459 is reported.
#[test]
fn a_direct_move_to_a_new_file_checks_the_importers_of_the_written_files() {
    let test = "lsp_trial34::a_direct_move_to_a_new_file_checks_the_importers_of_the_written_files";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"querylike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/utils.ts", "export function hashKey(key: string): string {\n  return key;\n}\n\nexport function other(): string {\n  return hashKey('x');\n}\n"),
        ("src/client.ts", "import { hashKey } from './utils';\n\nexport const key = hashKey('client');\n"),
        ("src/index.ts", "export { hashKey, other } from './utils';\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let actions = run.call(Caller::Main, "lsp", json!({"op": "code_actions", "file": "src/utils.ts", "line": 1, "symbol": "hashKey"}));
    let listing = actions.joined_text();
    let number: u64 = listing
        .lines()
        .find(|line| line.contains(". Move to a new file ["))
        .and_then(|line| line.split('.').next())
        .and_then(|number| number.trim().parse().ok())
        .unwrap_or_else(|| panic!("tsserver offers no \"Move to a new file\" here:\n{listing}"));
    let result = run.call(
        Caller::Main,
        "lsp_code_action",
        json!({"file": "src/utils.ts", "line": 1, "symbol": "hashKey", "apply": number, "title": "Move to a new file"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let truth = support::tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("src/index.ts(1,") && line.contains("TS2459")), "{truth:?}");
    assert!(text.contains("src/index.ts:1:") && text.contains("2459"), "the barrel's new error is not reported:\n{text}");
    assert!(!text.contains("the written file was not open before the write"), "{text}");
}
