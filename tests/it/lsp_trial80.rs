//! Wrong answer from the fresh-user trial 80 (@tanstack/query-core 5.59.0), against the real
//! typescript-language-server and tsc, on a fixture of the same shape:
//! - F1: renaming the ES-private field `#currentQuery` to `#currentResult`, which the class
//!   already declares, previewed as "no other declaration of `#currentResult` in the same
//!   scope"; applied, tsc gave TS2300 "Duplicate identifier".
//!
//! Ground truth: tsc.

use crate::support;

use serde_json::json;

const OBSERVER: &str = "export class QueryObserver {\n  #currentQuery: string = '';\n  #currentResult: number = 0;\n\n  update(query: string): number {\n    this.#currentQuery = query;\n    this.#currentResult += 1;\n    return this.#currentResult;\n  }\n\n  #clearStaleTimeout(): void {}\n\n  #clearRefetchInterval(): void {}\n\n  destroy(): void {\n    this.#clearStaleTimeout();\n    this.#clearRefetchInterval();\n    void this.#currentQuery;\n  }\n}\n";

#[test]
fn a_private_member_renamed_onto_another_private_member_is_warned_of() {
    let test = "lsp_trial80::a_private_member_renamed_onto_another_private_member_is_warned_of";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"observer\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/queryObserver.ts", OBSERVER),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/queryObserver.ts", "line": 2, "symbol": "#currentQuery", "new_name": "#currentResult", "preview": true}),
    );
    assert!(text.contains("which line 3 already declares in the same scope"), "{text}");
    assert!(!text.contains("no other declaration of `#currentResult`"), "{text}");
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/queryObserver.ts", "line": 11, "symbol": "#clearStaleTimeout", "new_name": "#clearRefetchInterval", "preview": true}),
    );
    assert!(text.contains("which line 13 already declares in the same scope"), "{text}");
    // Ground truth: written, tsc rejects the duplicate.
    std::fs::write(dir.path().join("src/queryObserver.ts"), OBSERVER.replace("#currentQuery", "#currentResult")).unwrap();
    assert!(support::tsc_errors(dir.path()).iter().any(|error| error.contains("TS2300")), "{:?}", support::tsc_errors(dir.path()));
    std::fs::write(dir.path().join("src/queryObserver.ts"), OBSERVER).unwrap();
    // A free private name: no such warning.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/queryObserver.ts", "line": 2, "symbol": "#currentQuery", "new_name": "#latestQuery", "preview": true}),
    );
    assert!(!text.contains("already declares"), "{text}");
}
