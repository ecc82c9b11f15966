//! Wrong answers from the fresh-user trial 156 (@tanstack/query-core 5.108.4, which ships its
//! sources and a bundler's build output: declaration chunks with maps, and per-entry stubs and
//! barrels without), against the real tsserver and tsc, on fixtures of the same shape:
//! - F1: with a tsconfig without `include`, tsc compiles the shipped `.d.ts` too; a rename still
//!   edited the build declaration files that have no map of their own: renamed again from
//!   `build/legacy/index.d.ts`, and a barrel `export { f } from './a'` rewritten to
//!   `export { f as g } from './a'` — a consumer's `import { f }` then fails (TS2305) while tsc on
//!   the project stays clean — and the answer said build output is not edited.
//!
//! Ground truth: the build files after the rename, byte for byte, and tsc, on the project and on
//! a consumer that imports the package.

use crate::support;

use serde_json::json;

/// `tsc` errors of a consumer project whose `node_modules/fx` holds `package`'s package.json and
/// `build/` as they are now, importing `import_line`.
fn consumer_tsc_errors(package: &std::path::Path, import_line: &str) -> Vec<String> {
    let consumer = support::workspace_with(&[
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ES2022\", \"moduleResolution\": \"Bundler\", \"types\": []}}\n",
        ),
        ("consumer.ts", import_line),
    ]);
    let installed = consumer.path().join("node_modules/fx/build");
    std::fs::create_dir_all(&installed).unwrap();
    std::fs::copy(package.join("package.json"), consumer.path().join("node_modules/fx/package.json")).unwrap();
    for entry in std::fs::read_dir(package.join("build")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), installed.join(entry.file_name())).unwrap();
    }
    support::tsc_errors(consumer.path())
}

/// Trial 156 F1 (the fixture of the report): `build/index.d.ts`, the package's `types` entry, a
/// barrel with no map of its own beside the mapped `build/a.d.ts`.
#[test]
fn a_rename_leaves_the_package_typings_barrel_without_a_map_and_says_so() {
    let test = "lsp_trial156::a_rename_leaves_the_package_typings_barrel_without_a_map_and_says_so";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let mapped = "export declare function f(x: number): number;\n//# sourceMappingURL=a.d.ts.map\n";
    let barrel = "export { f } from './a';\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"fx\", \"version\": \"1.0.0\", \"types\": \"build/index.d.ts\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ES2022\", \"moduleResolution\": \"Bundler\", \"types\": []}}\n",
        ),
        ("src/a.ts", "export function f(x: number): number {\n  return x + 1\n}\n"),
        ("src/index.ts", "export { f } from './a'\n"),
        ("src/use.ts", "import { f } from './a'\nexport const y = f(1)\n"),
        ("build/a.d.ts", mapped),
        (
            "build/a.d.ts.map",
            "{\"version\":3,\"file\":\"a.d.ts\",\"sourceRoot\":\"\",\"sources\":[\"../src/a.ts\"],\"names\":[],\"mappings\":\"AAAA,wBAAgB,CAAC,CAAC,CAAC,EAAE,MAAM,GAAG,MAAM,CAElC\"}\n",
        ),
        ("build/index.d.ts", barrel),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(consumer_tsc_errors(dir.path(), "import { f } from 'fx'\nexport const z = f(2)\n"), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/a.ts", "line": 1, "symbol": "f", "new_name": "g"}));
    assert_eq!(std::fs::read_to_string(dir.path().join("build/index.d.ts")).unwrap(), barrel, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/a.d.ts")).unwrap(), mapped, "{text}");
    assert!(!text.contains("renamed again from build/"), "{text}");
    assert!(!text.contains("build/index.d.ts: 1 edit"), "{text}");
    assert!(
        text.contains("left unrenamed: 1 occurrence in 1 declaration file of the build output with no declaration map of their own (under build/, the directory of package.json `types`) — not edited and not renamed again from"),
        "{text}"
    );
    assert!(text.contains("build/index.d.ts:1: export { f } from './a';   (build output)"), "{text}");
    // The sources are renamed, the project compiles, and the package's consumers still import `f`.
    assert!(std::fs::read_to_string(dir.path().join("src/use.ts")).unwrap().contains("g(1)"));
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(consumer_tsc_errors(dir.path(), "import { f } from 'fx'\nexport const z = f(2)\n"), Vec::<String>::new());

    // The recheck's NEW-4: a rename started in the build stub itself is refused, nothing written,
    // with the way to the source (before, it wrote `export { f as g }` and the consumer broke).
    let result =
        run.call(runbound::Caller::Main, "lsp_rename", json!({"file": "build/index.d.ts", "line": 1, "symbol": "f", "new_name": "h"}));
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(text.contains("build/index.d.ts is build output (under build/, the directory of package.json `types`)"), "{text}");
    assert!(text.contains("\"op\": \"definition\", \"file\": \"build/index.d.ts\", \"line\": 1, \"symbol\": \"f\""), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/index.d.ts")).unwrap(), barrel, "nothing written");
    assert_eq!(consumer_tsc_errors(dir.path(), "import { f } from 'fx'\nexport const z = f(2)\n"), Vec::<String>::new());
}

/// Trial 156 F1 (the package's own shape, ws2's `hashKey`): a bundler's per-entry stub
/// `import { n as hashKey } from "./chunk.js"; export { hashKey };` with no map, beside the mapped
/// chunk that declares it; no package.json names the directory.
#[test]
fn a_rename_leaves_a_bundler_stub_beside_mapped_chunks_and_is_not_renamed_again_from_it() {
    let test = "lsp_trial156::a_rename_leaves_a_bundler_stub_beside_mapped_chunks_and_is_not_renamed_again_from_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let chunk = "declare function hashKey(queryKey: string): string;\nexport { hashKey as n };\n//# sourceMappingURL=chunk-A1.d.ts.map\n";
    let stub = "import { n as hashKey } from \"./chunk-A1.js\";\nexport { hashKey };\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"fx\", \"version\": \"1.0.0\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ES2022\", \"moduleResolution\": \"Bundler\", \"types\": []}}\n",
        ),
        ("src/utils.ts", "export function hashKey(queryKey: string): string {\n  return JSON.stringify(queryKey)\n}\n"),
        ("src/index.ts", "export { hashKey } from './utils'\n"),
        ("src/client.ts", "import { hashKey } from './utils'\nexport const key = hashKey('a')\n"),
        ("build/legacy/chunk-A1.d.ts", chunk),
        (
            "build/legacy/chunk-A1.d.ts.map",
            "{\"version\":3,\"file\":\"chunk-A1.d.ts\",\"sourceRoot\":\"\",\"sources\":[\"../../src/utils.ts\"],\"names\":[],\"mappings\":\"AAAA,iBAAgB\"}\n",
        ),
        ("build/legacy/index.d.ts", stub),
        ("build/legacy/utils.d.cts", stub),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/utils.ts", "line": 1, "symbol": "hashKey", "new_name": "hashQueryKey"}));
    assert_eq!(std::fs::read_to_string(dir.path().join("build/legacy/index.d.ts")).unwrap(), stub, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/legacy/utils.d.cts")).unwrap(), stub, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/legacy/chunk-A1.d.ts")).unwrap(), chunk, "{text}");
    assert!(!text.contains("renamed again from build/"), "{text}");
    assert!(
        text.contains("in 2 declaration files of the build output with no declaration map of their own (in build/legacy/, beside declaration files with maps)"),
        "{text}"
    );
    assert!(std::fs::read_to_string(dir.path().join("src/client.ts")).unwrap().contains("hashQueryKey('a')"));
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
}

/// Trial 156 M1: renaming a string literal type's member (`type: 'invalidate'`) said "NOT CHECKED
/// … (the time budget ran out)" after 4 ms — tsserver gives no definition for a string literal —
/// and buried the same literal the rename leaves (`case 'invalidate':`) among comments. Ground
/// truth: tsc after the write reports TS2678 at that case.
#[test]
fn a_string_literal_rename_names_the_same_literal_it_leaves_and_the_true_reason() {
    let test = "lsp_trial156::a_string_literal_rename_names_the_same_literal_it_leaves_and_the_true_reason";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"types\": []}, \"include\": [\"src\"]}\n"),
        (
            "src/query.ts",
            "interface InvalidateAction {\n  type: 'invalidate'\n}\ninterface FetchAction {\n  type: 'fetch'\n}\ntype Action = InvalidateAction | FetchAction\n\n// Whether the query was marked via invalidate().\nexport function reduce(action: Action): number {\n  switch (action.type) {\n    case 'invalidate':\n      return 1\n    case 'fetch':\n      return 2\n  }\n}\n\nexport function dispatch(action: Action): number {\n  return reduce(action)\n}\n\nexport const marked = dispatch({ type: 'invalidate' })\n",
        ),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/query.ts", "line": 2, "symbol": "invalidate", "new_name": "markInvalid"}));
    assert!(!text.contains("time budget"), "{text}");
    assert!(
        text.contains("left unrenamed: 1 string literal with the same text, `invalidate` in quotes, as the renamed position"),
        "{text}"
    );
    assert!(text.contains("src/query.ts:12: case 'invalidate':   (same string literal)"), "{text}");
    assert!(text.contains("gave no definition for the renamed position, so none could be asked"), "{text}");
    assert!(text.contains("src/query.ts:9: // Whether the query was marked via invalidate().   (comment)"), "{text}");
    // tsc: the case left is the error the callout names.
    let errors = support::tsc_error_locations(dir.path());
    assert!(errors.contains(&"src/query.ts:12: error[2678]".to_owned()), "{errors:?}\n{text}");
}

/// Trial 156 M3: call hierarchy asked at a `#private` method added "looks like it is inside a
/// comment or string" (the line scan read `#` as a comment). Ground truth: the method's callers
/// by construction (2 calls in 2 methods).
#[test]
fn call_hierarchy_on_a_private_method_adds_no_comment_or_string_note() {
    let test = "lsp_trial156::call_hierarchy_on_a_private_method_adds_no_comment_or_string_note";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2022\", \"types\": []}}\n"),
        (
            "src/observer.ts",
            "export class Observer {\n  #executeFetch(): number {\n    return 1\n  }\n  subscribe(): number {\n    return this.#executeFetch()\n  }\n  refetch(): number {\n    return this.#executeFetch() + 1\n  }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/observer.ts", "line": 2, "symbol": "#executeFetch"}));
    assert!(text.contains("2 callers"), "{text}");
    assert!(!text.contains("inside a comment or string"), "{text}");
    let outgoing =
        support::call_ok(&run, "lsp", json!({"op": "outgoing_calls", "file": "src/observer.ts", "line": 6, "symbol": "#executeFetch"}));
    assert!(!outgoing.contains("inside a comment or string"), "{outgoing}");
}

/// Trial 156 M4: `this.#$F($$$A)` found nothing (the ast-grep CLI too: `#$F` is one
/// `private_property_identifier` token, literal text) and the hint was generic. Ground truth: the
/// CLI's 0, and the constrained rule the hint proposes matches the private calls only.
#[test]
fn a_metavariable_glued_to_a_private_name_is_named_with_the_working_rule() {
    let dir = support::workspace_with(&[(
        "src/a.ts",
        "export class A {\n  #run(x: number) {\n    return x\n  }\n  go() {\n    return this.#run(1) + this.other(2)\n  }\n  other(y: number) {\n    return y\n  }\n}\n",
    )]);
    let run = runbound::Run::builder(dir.path()).with_structural().build().expect("build run");
    let text = support::call_ok(&run, "ast_grep", json!({"pattern": "this.#$F($$$A)", "language": "typescript"}));
    assert!(text.starts_with("0 matches"), "{text}");
    assert!(text.contains("`#$F` in the pattern is no metavariable: ast-grep reads `$F` only as a whole identifier"), "{text}");
    assert!(
        text.contains(
            "\"rule\": {\"pattern\": \"this.$F($$$A)\"} and \"constraints\": {\"F\": {\"kind\": \"private_property_identifier\"}}"
        ),
        "{text}"
    );
    let proposed = support::call_ok(
        &run,
        "ast_grep",
        json!({"rule": {"pattern": "this.$F($$$A)"}, "constraints": {"F": {"kind": "private_property_identifier"}}, "language": "typescript"}),
    );
    assert!(proposed.starts_with("1 match in 1 file"), "{proposed}");
    assert!(proposed.contains("$F = #run"), "{proposed}");
}

/// The whole-word occurrences of `word` in `text` (identifier neighbours excluded; a `#` before
/// it does not count as a neighbour), as grep -w counts them.
fn whole_word_count(text: &str, word: &str) -> usize {
    let is_identifier = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word)
        .filter(|(at, _)| !text[..*at].ends_with(is_identifier) && !text[at + word.len()..].starts_with(is_identifier))
        .count()
}

/// Trial 156 M2: renaming a `#private` field warned of 100 occurrences of its word in the
/// build's `.d.ts` files (outside `include`) and listed comments, `config.queryCache` and another
/// class's own `#queryCache` under "check them", and the header dropped the `#`; a parameter got
/// the same WARNING for 216 occurrences. A private name can only be written, with its `#`, in its
/// class's body; a parameter only in its function. Ground truth: grep's counts of the word,
/// tsserver's edit (the rename's own), and tsc 0 after the write.
#[test]
fn a_private_member_or_parameter_rename_counts_what_lies_outside_its_scope_in_one_line() {
    let test = "lsp_trial156::a_private_member_or_parameter_rename_counts_what_lies_outside_its_scope_in_one_line";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let client = "import { Cache } from './cache'\n\nexport interface Config {\n  queryCache?: Cache\n}\n\n/** The client. */\nexport class Client {\n  #queryCache: Cache\n\n  constructor(config: Config = {}) {\n    this.#queryCache = config.queryCache || new Cache()\n  }\n\n  has(other: object): boolean {\n    return #queryCache in other\n  }\n\n  clear(): void {\n    // the queryCache is emptied\n    const queryCache = this.#queryCache\n    queryCache.clear()\n  }\n}\n\nexport class Other {\n  #queryCache = new Cache()\n  size(): number {\n    return this.#queryCache.size()\n  }\n}\n";
    let cache = "export class Cache {\n  #entries: number[] = []\n  /**\n   * @param client - the client the entry belongs to\n   */\n  build(client: object, n: number): number {\n    this.#entries.push(n)\n    return client ? n : 0\n  }\n  size(): number {\n    return this.#entries.length\n  }\n  clear(): void {\n    this.#entries = []\n  }\n}\n\nexport function make(client: object): number {\n  return new Cache().build(client, 1)\n}\n";
    let built = "import { Cache } from './cache';\nexport interface Config {\n    queryCache?: Cache;\n}\nexport declare class Client {\n    #private;\n    constructor(config?: Config);\n    /** queryCache, client */\n    has(other: object): boolean;\n}\nexport declare function make(client: object): number;\n//# sourceMappingURL=client.d.ts.map\n";
    let dir = support::workspace_with(&[
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2022\", \"types\": []}, \"include\": [\"src\"]}\n",
        ),
        ("src/client.ts", client),
        ("src/cache.ts", cache),
        ("build/client.d.ts", built),
        ("build/client.d.cts", built),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    // grep -w: `queryCache` 2 + 2 times in the build files, 11 times in src/client.ts, of which
    // the 4 written `#queryCache` in `Client` are the field's (its declaration, `#queryCache in
    // other` included) and 2 more `Other`'s own.
    assert_eq!(whole_word_count(built, "queryCache"), 2);
    assert_eq!(whole_word_count(client, "queryCache"), 11);
    assert_eq!(client.matches("#queryCache").count(), 6);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/client.ts", "line": 9, "symbol": "#queryCache", "new_name": "#cache"}));
    assert!(text.starts_with("Renamed `#queryCache` to `#cache`"), "{text}");
    assert!(!text.contains("WARNING"), "{text}");
    assert!(!text.contains("check them"), "{text}");
    let renamed = std::fs::read_to_string(dir.path().join("src/client.ts")).unwrap();
    assert_eq!(renamed.matches("#cache").count(), 4, "{renamed}\n{text}");
    assert_eq!(renamed.matches("#queryCache").count(), 2, "Other's own field is kept\n{renamed}\n{text}");
    // Outside `Client` or without the `#`: `queryCache?:`, `config.queryCache`, `const
    // queryCache`, `queryCache.clear()`, Other's 2 — 6 in code, 1 in a comment.
    assert!(
        text.contains("not this binding: 6 other whole-word occurrences of `queryCache` (without the `#` or outside class `Client`, lines 8–24 of src/client.ts, the only places `#queryCache` can be named)"),
        "{text}"
    );
    assert!(text.contains("not this binding: 1 occurrence in comments and strings without the `#` or outside class `Client`"), "{text}");
    assert!(
        text.contains("not this binding: 4 whole-word occurrences of `queryCache` in 2 files outside the tsconfig's files/include/exclude (build/client.d.cts, build/client.d.ts) — outside class `Client`"),
        "{text}"
    );
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    // A parameter: its function's 3 occurrences (with its `@param`), none elsewhere.
    assert_eq!(whole_word_count(cache, "client"), 6);
    // (`client.d.ts.map` is one too.)
    assert_eq!(whole_word_count(built, "client"), 3);
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/cache.ts", "line": 6, "symbol": "client", "new_name": "owner"}));
    assert!(text.starts_with("Renamed `client` to `owner`"), "{text}");
    assert!(!text.contains("WARNING"), "{text}");
    assert!(
        text.contains("not this binding: 6 whole-word occurrences of `client` in 2 files outside the tsconfig's files/include/exclude (build/client.d.cts, build/client.d.ts) — outside function `build` (lines 6–9 of src/cache.ts), where the renamed local is not visible: not renamed, rightly"),
        "{text}"
    );
    let renamed = std::fs::read_to_string(dir.path().join("src/cache.ts")).unwrap();
    // tsserver renames the `@param` tag too; the prose word after it stays.
    assert_eq!(whole_word_count(&renamed, "owner"), 3, "{renamed}\n{text}");
    assert!(text.contains("src/cache.ts:4: * @param client - the client the entry belongs to   (comment)"), "{text}");
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
}

/// Trial 156 M6: the `"*"` check called the base config `tsconfig.json` extends "another config,
/// which runbound neither checks nor follows" and proposed `tsc -p` on it (which would check the
/// build output), while tsc follows `extends` in the same run. Ground truth: `tsc --showConfig`
/// of the checked config carries the base's option, and tsc reports the error that option makes.
#[test]
fn the_project_check_names_an_extended_base_config_as_part_of_the_run() {
    let test = "lsp_trial156::the_project_check_names_an_extended_base_config_as_part_of_the_run";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "tsconfig.base.json",
            "{\"compilerOptions\": {\"strict\": true, \"noUncheckedIndexedAccess\": true, \"noEmit\": true, \"types\": []}}\n",
        ),
        ("tsconfig.json", "{\"extends\": \"./tsconfig.base.json\", \"include\": [\"src\"]}\n"),
        ("src/a.ts", "const xs: number[] = [1]\nexport const first: number = xs[0]\n"),
        ("build/a.d.ts", "export declare const first: number;\n"),
    ]);
    let shown =
        std::process::Command::new("tsc").args(["--showConfig", "-p", "tsconfig.json"]).current_dir(dir.path()).output().expect("tsc");
    assert!(String::from_utf8_lossy(&shown.stdout).contains("\"noUncheckedIndexedAccess\": true"));
    let errors = support::tsc_error_locations(dir.path());
    assert_eq!(errors, vec!["src/a.ts:2: error[2322]".to_owned()]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("project check: 1 error"), "{text}");
    assert!(
        text.contains("outside tsconfig.json's files/include/exclude (e.g. build/a.d.ts); tsc compiles none of them (tsconfig.base.json is the base tsconfig.json extends, no project of its own: tsc reads its compilerOptions into this same run"),
        "{text}"
    );
    assert!(!text.contains("neither checks nor follows"), "{text}");
    assert!(!text.contains("-p tsconfig.base.json"), "{text}");
}
