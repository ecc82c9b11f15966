//! Wrong answers from the fresh-user trial 121 (@preact/signals-core 1.8.0), against the real
//! tsserver and tsc, on a fixture of the same shape (`declare class Effect { _start(): … }`
//! with `Effect.prototype._start = function () {…}`):
//! - F1: `outgoing_calls` at the assignment said "reports no calls": tsserver prepares the
//!   bodiless `declare class` member, and its body's 4 direct calls were in no answer.
//! - F2, M1: `incoming_calls` named the caller "(the file's top-level code) … outside any named
//!   function or method" (tsserver names the file for a call inside a function expression
//!   assigned to a member) and, at depth 2, "the hierarchy ends here" two levels short.
//!
//! Ground truth: tsc passes; who calls what is fixed by construction.

use crate::support;

use serde_json::json;

#[test]
fn calls_of_prototype_assigned_methods_are_read_from_their_function_expressions() {
    let test = "lsp_trial121::calls_of_prototype_assigned_methods_are_read_from_their_function_expressions";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"sig\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\"}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "declare class Effect {\n\t_start(): () => void;\n\t_callback(): void;\n}\n\nfunction Effect(this: Effect) {}\n\nfunction cleanupEffect(effect: Effect) {\n\tvoid effect;\n}\n\nfunction startBatch() {}\n\nEffect.prototype._callback = function () {\n\tconst finish = this._start();\n\tfinish();\n};\n\nEffect.prototype._start = function () {\n\tcleanupEffect(this);\n\tstartBatch();\n\treturn () => {};\n};\n\nexport function effect(): void {\n\tconst made = new (Effect as unknown as new () => Effect)();\n\tmade._callback();\n}\n\nexport function endBatch(pending: Effect): void {\n\tpending._callback();\n}\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "outgoing_calls", "file": "src/index.ts", "line": 19, "symbol": "_start"}));
    assert!(
        text.contains("prepared the declaration at src/index.ts:2, which has no body")
            && text.contains("src/index.ts:20 `cleanupEffect(this)`")
            && text.contains("src/index.ts:21 `startBatch()`"),
        "{text}"
    );
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/index.ts", "line": 19, "symbol": "_start", "depth": 2}));
    assert!(text.contains("(inside `Effect.prototype._callback`)"), "{text}");
    assert!(!text.contains("outside any named function or method"), "{text}");
    assert!(!text.contains("the hierarchy ends here"), "{text}");
    assert!(text.contains("depth 2 not reached through typescript-language-server"), "{text}");
}
