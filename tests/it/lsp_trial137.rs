//! Wrong answers from the fresh-user trial 137 (@reduxjs/toolkit 2.2.7), against the real
//! tsserver and tsc, on a fixture of the same shape:
//! - F1: `incoming_calls` of `createAction` said a call whose type arguments span several lines
//!   (`createAction<\n  Array<…>\n>(…)`) was "referenced as a value, not called".
//!
//! Ground truth: tsc compiles the fixture; the call is a call by construction.

use crate::support;

use serde_json::json;

#[test]
fn a_call_with_type_arguments_over_several_lines_is_a_call() {
    let test = "lsp_trial137::a_call_with_type_arguments_over_several_lines_is_a_call";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"rtk\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/createAction.ts", "export function createAction<P>(type: string): (payload: P) => { type: string; payload: P } {\n  return (payload: P) => ({ type, payload })\n}\n"),
        (
            "src/middleware.ts",
            "import { createAction } from './createAction'\n\nexport function buildMiddleware(reducerPath: string) {\n  const actions = {\n    invalidateTags: createAction<\n      Array<string | number>\n    >(`${reducerPath}/invalidateTags`),\n  }\n  return actions\n}\n",
        ),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/createAction.ts", "line": 1, "symbol": "createAction"}));
    assert!(text.contains("export function buildMiddleware("), "{text}");
    assert!(!text.contains("referenced as a value"), "the multi-line call is taken for a value:\n{text}");
}
