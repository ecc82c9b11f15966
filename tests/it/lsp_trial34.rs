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
    let number = support::code_action_number(&listing, "Move to a new file")
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

/// M6 (a): tsserver offers "Convert parameters to destructured object" on a function that is also
/// used as a value, then declines it when asked (its command answers null and sends no edit). The
/// answer is an error that says nothing was written, not "Applied …".
#[test]
fn a_code_action_whose_command_writes_nothing_is_not_reported_applied() {
    let test = "lsp_trial34::a_code_action_whose_command_writes_nothing_is_not_reported_applied";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let source = "export function hashKey(key: string, salt: number): string {\n  return key + salt;\n}\n\nexport function pick(options?: { fn?: (key: string, salt: number) => string }): (key: string, salt: number) => string {\n  return options?.fn || hashKey;\n}\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"querylike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/utils.ts", source),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let title = "Convert parameters to destructured object";
    let actions = run.call(Caller::Main, "lsp", json!({"op": "code_actions", "file": "src/utils.ts", "line": 1, "symbol": "hashKey"}));
    let listing = actions.joined_text();
    let number = support::code_action_number(&listing, title).unwrap_or_else(|| panic!("tsserver offers no \"{title}\" here:\n{listing}"));
    let result = run.call(
        Caller::Main,
        "lsp_code_action",
        json!({"file": "src/utils.ts", "line": 1, "symbol": "hashKey", "apply": number, "title": title}),
    );
    let text = result.joined_text();
    assert_eq!(std::fs::read_to_string(dir.path().join("src/utils.ts")).unwrap(), source, "the server did change the file:\n{text}");
    assert!(result.is_error, "nothing was written, yet the call reads as done:\n{text}");
    assert!(text.starts_with(&format!("NOT applied code action \"{title}\"")), "{text}");
    assert!(text.contains("nothing was written"), "{text}");
    assert_eq!(result.structured_content.as_ref().map(|value| value["written"].clone()), Some(json!([])), "{text}");
}

/// M2: the rename preview of a member said of `Pick<QueryOptions, 'queryKeyHashFn'>` only "edit
/// them yourself if they name this symbol"; a key over the very type that declares the member
/// names it for certain, and the rename without it does not compile (tsc) — since trial168 F1
/// the rename renames it with the member, and leaves the key over another type.
#[test]
fn a_rename_preview_renames_a_string_key_over_the_members_own_type() {
    let test = "lsp_trial34::a_rename_preview_renames_a_string_key_over_the_members_own_type";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"querylike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", "export interface QueryOptions {\n  queryKeyHashFn?: (key: string) => string;\n}\nexport interface Other {\n  queryKeyHashFn?: number;\n}\n"),
        (
            "src/utils.ts",
            "import type { Other, QueryOptions } from './types';\n\nexport function hashKey(key: string, options?: Pick<QueryOptions, 'queryKeyHashFn'>): string {\n  const hashFn = options?.queryKeyHashFn ?? ((k: string) => k);\n  return hashFn(key);\n}\n\nexport type OtherKey = Pick<Other, 'queryKeyHashFn'>;\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/types.ts", "line": 2, "symbol": "queryKeyHashFn", "new_name": "keyHashFn", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let renamed = text.lines().position(|line| line.contains("runbound renamed 1 string key in types")).unwrap_or_else(|| panic!("{text}"));
    let key = text.lines().nth(renamed + 1).unwrap_or_default();
    assert!(key.contains("src/utils.ts:3:"), "only the key over QueryOptions, not the one over Other: {text}");
    assert!(key.contains("(string key of `QueryOptions`, the type that declares this member"), "{text}");
    let other = text.lines().find(|line| line.contains("Pick<Other, 'queryKeyHashFn'>")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        other.contains("(string key of `Other`, not of `QueryOptions`"),
        "a key over another type is said to be another type's: {other}"
    );
    // Ground truth: the rename as proposed compiles (the key over QueryOptions left as it was
    // breaks tsc: the references test above).
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    let truth = support::tsc_errors(dir.path());
    assert!(truth.is_empty(), "{truth:?}");
    let utils = std::fs::read_to_string(dir.path().join("src/utils.ts")).unwrap();
    assert!(utils.contains("Pick<QueryOptions, 'keyHashFn'>") && utils.contains("Pick<Other, 'queryKeyHashFn'>"), "{utils}");
}

/// M1: a required parameter added to a class method: the files that call it through another
/// module's accessor (`hub().getCache().build(…)`) never import the written file; they are
/// found by the member's references and checked, so the write reports tsc's count.
#[test]
fn a_changed_member_is_checked_in_the_files_that_use_it_without_importing_its_file() {
    let test = "lsp_trial34::a_changed_member_is_checked_in_the_files_that_use_it_without_importing_its_file";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"querylike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/cache.ts", "export class Cache {\n  build(\n    key: string,\n  ): string {\n    return key;\n  }\n}\n"),
        ("src/client.ts", "import { Cache } from './cache';\n\nexport class Client {\n  #cache = new Cache();\n  getCache(): Cache {\n    return this.#cache;\n  }\n}\n"),
        // observer.ts reaches the class through two modules (hub.ts, client.ts): farther than
        // the importers of importers the importer walk checks.
        ("src/hub.ts", "import { Client } from './client';\n\nexport function hub(): Client {\n  return new Client();\n}\n"),
        (
            "src/observer.ts",
            "import { hub } from './hub';\n\nexport function observe(): string {\n  return hub().getCache().build('a') + hub().getCache().build('b');\n}\n",
        ),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let before = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/cache.ts"}));
    assert!(!before.is_error, "{}", before.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/cache.ts", "old_string": "    key: string,\n", "new_string": "    key: string,\n    force: boolean,\n"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Ground truth: tsc's errors are all in observer.ts, which does not import cache.ts.
    let truth = support::tsc_errors(dir.path());
    assert_eq!(truth.iter().filter(|line| line.starts_with("src/observer.ts(4,")).count(), 2, "{truth:?}");
    assert_eq!(truth.len(), 2, "{truth:?}");
    assert!(text.contains("this write introduced 2 new errors in 1 file"), "{text}");
    assert!(text.contains("src/observer.ts:4: error[2554]"), "{text}");
    assert!(text.contains("the users of the changed member `build` by tsserver references (1 that imports no written file)"), "{text}");
}

/// M6 (b): right after a file changed outside the tools, `code_actions` listed tsserver's actions
/// before its suggestion diagnostics for the new text arrived (no "Prefix 'p0' with an
/// underscore"); the apply a moment later had it first, and every number shifted by one. The
/// list now waits for the new text's diagnostics, so both see the same actions.
#[test]
fn code_actions_listed_right_after_an_outside_change_keep_their_numbers() {
    let test = "lsp_trial34::code_actions_listed_right_after_an_outside_change_keep_their_numbers";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"querylike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/utils.ts", "export function hashKey(key: string): string {\n  return key;\n}\n"),
    ]);
    // A long module, as query-core's utils.ts is: tsserver's diagnostics for its new text take
    // long enough to arrive after the list was asked for.
    let bulk: String = (0..1500)
        .map(|index| format!("export function helper{index}<T extends {{ id: number }}>(items: T[]): Map<number, T> {{\n  return new Map(items.map((item) => [item.id + {index}, item]));\n}}\n"))
        .collect();
    let run = support::lsp_run_allowing_writes(dir.path());
    let first = run.call(Caller::Main, "lsp", json!({"op": "code_actions", "file": "src/utils.ts", "line": 1, "symbol": "hashKey"}));
    assert!(!first.is_error, "{}", first.joined_text());
    // Changed outside the tools: an unused parameter, which tsserver reports as a suggestion.
    std::fs::write(
        dir.path().join("src/utils.ts"),
        format!("export function hashKey(key: string, p0: number): string {{\n  return key;\n}}\n{bulk}"),
    )
    .unwrap();
    let listing = run.call(Caller::Main, "lsp", json!({"op": "code_actions", "file": "src/utils.ts", "line": 1, "symbol": "p0"}));
    let text = listing.joined_text();
    assert!(!listing.is_error, "{text}");
    let title = "Prefix 'p0' with an underscore";
    let number = support::code_action_number(&text, title)
        .unwrap_or_else(|| panic!("the quickfix for the new text's unused parameter is not listed:\n{text}"));
    let applied = run.call(
        Caller::Main,
        "lsp_code_action",
        json!({"file": "src/utils.ts", "line": 1, "symbol": "p0", "apply": number, "title": title}),
    );
    let applied_text = applied.joined_text();
    assert!(!applied.is_error, "{applied_text}");
    let after = std::fs::read_to_string(dir.path().join("src/utils.ts")).unwrap();
    assert!(after.contains("_p0: number"), "{after}\n{applied_text}");
}
