//! Wrong answers from the fresh-user trial 74 (graphql-request 6.1.0), against the real
//! typescript-language-server and tsc, on fixtures of the same shape:
//! - F1: renaming `request`, exported by name and as the default, said importers "keep working
//!   and are not renamed" while the server's edit renamed their import (TS2614 after), and
//!   listed `e.request` — a property — as reaching it through the kept export.
//! - F2: `incoming_calls` of an override listed its own `super.m()` as a call of itself,
//!   "recursive"; that call reaches the base method.
//!
//! Ground truth: tsc.

use crate::support;

use serde_json::json;

#[test]
fn a_kept_export_with_renamed_importers_is_warned_of() {
    let test = "lsp_trial74::a_kept_export_with_renamed_importers_is_warned_of";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"requests\", \"version\": \"1.0.0\", \"main\": \"build/index.js\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "export class Err extends Error {\n  request = 'r'\n}\nfunction request(url: string): string {\n  return url\n}\nexport { request }\nexport default request\n"),
        ("src/usage.ts", "import { Err, request } from './index.js'\n\nexport const a = request('x')\nexport const b = (e: Err) => e.request\n"),
        // A default import: its binding is the importer's own name (trial84 F3).
        ("src/default.ts", "import request from './index.js'\n\nexport const c = request('y')\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 4, "symbol": "request", "new_name": "send", "preview": true}),
    );
    assert!(!text.contains("through a re-export whose public name the server kept"), "{text}");
    if text.contains("+import { Err, send } from './index.js'") {
        assert!(text.contains("yet this rename also changes the imports of `request` in src/usage.ts:1 to `send`"), "{text}");
        assert!(!text.contains("keeps working and is not renamed"), "{text}");
        // Ground truth: accepted, the importer breaks.
        support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
        assert!(support::tsc_errors(dir.path()).iter().any(|error| error.contains("TS2614")), "{:?}", support::tsc_errors(dir.path()));
        assert!(!support::tsc_errors(dir.path()).iter().any(|error| error.contains("default.ts")), "{:?}", support::tsc_errors(dir.path()));
    }
}

#[test]
fn an_overrides_super_call_is_no_recursive_call_of_itself() {
    let test = "lsp_trial74::an_overrides_super_call_is_no_recursive_call_of_itself";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"over\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/over.ts", "export class Base {\n  m(): number {\n    return 1\n  }\n}\nexport class Child extends Base {\n  override m(): number {\n    return super.m() + 1\n  }\n}\nexport const useIt = (b: Base): number => b.m()\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/over.ts", "line": 7, "symbol": "m"}));
    assert!(!text.contains("recursive"), "{text}");
    assert!(!text.contains("src/over.ts:8: return super.m()"), "{text}");
    let base = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/over.ts", "line": 2, "symbol": "m"}));
    assert!(base.contains("8: return super.m() + 1"), "the base's answer keeps the super call:\n{base}");
}
