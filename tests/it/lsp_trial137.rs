//! Wrong answers from the fresh-user trial 137 (@reduxjs/toolkit 2.2.7), against the real
//! tsserver and tsc, on a fixture of the same shape:
//! - F1: `incoming_calls` of `createAction` said a call whose type arguments span several lines
//!   (`createAction<\n  Array<…>\n>(…)`) was "referenced as a value, not called".
//! - F2: the file outline with `locals: true` (which promises imports) listed none of the file's
//!   imports (tsserver gives none) and read as complete; the recheck found parameters and 6
//!   function expressions missing the same way.
//!
//! Ground truth: tsc compiles the fixture; the call is a call by construction; the imports are
//! the file's `import` lines.

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

#[test]
fn an_outline_with_locals_says_the_imports_tsserver_does_not_list() {
    let test = "lsp_trial137::an_outline_with_locals_says_the_imports_tsserver_does_not_list";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"rtk\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/a.ts", "export const a = 1\n"),
        ("src/b.ts", "export const b = 2\n"),
        ("src/main.ts", "import { a } from './a'\nimport { b } from './b'\n\nexport function sum(): number {\n  const local = a + b\n  return local\n}\n"),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "src/main.ts", "locals": true}));
    assert!(
        text.contains("not listed: 2 import statements (`import …` statements: typescript-language-server gives no outline entry"),
        "{text}"
    );
    assert!(text.contains("local"), "{text}");
    // Nor parameters or every function expression (the recheck: 6 `<function>` nodes missing).
    assert!(text.contains("parameters, and function expressions typescript-language-server gives no entry for"), "{text}");
}
