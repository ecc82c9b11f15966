//! Wrong answers from the fresh-user trial 141 (true-myth 9.4.0), against the real
//! typescript-language-server and tsc, on a fixture of the same shape:
//! - F1: `incoming_calls` at an overloaded class method (`MaybeImpl.andThen`) said "no callers"
//!   and set its 10 call sites aside as calls of "another declaration" — its own overload
//!   signatures, the queried line among them.
//! - F2: `outgoing_calls` of a function returning a method chain placed every call of the chain
//!   at the chain's first line (four `andThen` calls counted as one), and the chain's calls
//!   tsserver did not list were taken as listed.
//!
//! Ground truth: tsc compiles the fixture, and grep finds the two calls.

use crate::support;

use runbound::Caller;
use serde_json::json;

const BOX: &str = "export class Box<T> {\n  constructor(private value: T) {}\n  map<U>(fn: (t: T) => U): Box<U>;\n  map<U>(fn: (t: T) => U, label: string): Box<U>;\n  map<U>(fn: (t: T) => U, label?: string): Box<U> {\n    return new Box(fn(this.value));\n  }\n}\n";

const USES: &str = "import { Box } from './box'\n\nexport function double(box: Box<number>): Box<number> {\n  return box.map((n) => n * 2)\n}\n\nexport function labelled(box: Box<number>): Box<number> {\n  return box.map((n) => n + 1, 'plus')\n}\n";

#[test]
fn incoming_calls_at_an_overloaded_class_method_list_the_calls_of_every_signature() {
    let test = "lsp_trial141::incoming_calls_at_an_overloaded_class_method_list_the_calls_of_every_signature";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"boxes\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2015\", \"lib\": [\"ES2015\"], \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/box.ts", BOX),
        ("src/uses.ts", USES),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    // At the first overload signature, at the second, and at the implementation: both callers.
    for line in [3, 4, 5] {
        let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/box.ts", "line": line, "symbol": "map"}));
        assert!(text.contains("2 callers, 2 call sites"), "line {line}:\n{text}");
        assert!(text.contains("export function double(") && text.contains("export function labelled("), "line {line}:\n{text}");
        assert!(!text.contains("another declaration"), "the method's own overloads were called another declaration (line {line}):\n{text}");
    }
}

#[test]
fn outgoing_calls_of_a_method_chain_place_each_call_at_its_own_line() {
    let test = "lsp_trial141::outgoing_calls_of_a_method_chain_place_each_call_at_its_own_line";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let chained = "export class Box {\n  constructor(private n: number) {}\n  map(f: (n: number) => number): Box {\n    return new Box(f(this.n))\n  }\n  value(): number {\n    return this.n\n  }\n}\n\nexport function chain(b: Box): number {\n  return b\n    .map((n) => n + 1)\n    .map((n) => n * 2)\n    .value()\n}\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"chain\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2015\", \"lib\": [\"ES2015\"], \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/box.ts", chained),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let result = run.call(Caller::Main, "lsp", json!({"op": "outgoing_calls", "file": "src/box.ts", "line": 11, "symbol": "chain"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let structured = result.structured_content.expect("structured content");
    // Ground truth (the source): `map` is called on lines 13 and 14, `value` on line 15.
    let lines_of = |callee: &str| -> Vec<u64> {
        let listed = structured["results"].as_array().into_iter().flatten().filter(|entry| entry["name"] == callee);
        let mut lines: Vec<u64> = listed
            .flat_map(|entry| entry["call_sites"].as_array().cloned().unwrap_or_default())
            .filter_map(|site| site["line"].as_u64())
            .collect();
        let unlisted = structured["unlisted_call_sites"].as_array().into_iter().flatten();
        lines.extend(
            unlisted
                .filter(|site| site["text"].as_str().is_some_and(|call| call.starts_with(callee)))
                .filter_map(|site| site["line"].as_u64()),
        );
        lines.sort_unstable();
        lines
    };
    assert_eq!(lines_of("map"), vec![13, 14], "{text}\n{structured:#}");
    assert_eq!(lines_of("value"), vec![15], "{text}\n{structured:#}");
}
