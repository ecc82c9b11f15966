//! Wrong answers from the fresh-user trial 141 (true-myth 9.4.0), against the real
//! typescript-language-server and tsc, on a fixture of the same shape:
//! - F1: `incoming_calls` at an overloaded class method (`MaybeImpl.andThen`) said "no callers"
//!   and set its 10 call sites aside as calls of "another declaration" — its own overload
//!   signatures, the queried line among them.
//! - F2: `outgoing_calls` of a function returning a method chain placed every call of the chain
//!   at the chain's first line (four `andThen` calls counted as one), and the chain's calls
//!   tsserver did not list were taken as listed.
//! - Recheck (F-new-1): renaming `andThen` of the unexported `class MaybeImpl`, which the
//!   exported `interface Just<T> extends MaybeImpl<T>` publishes, said nothing of the public API
//!   while every user's `maybe.andThen(…)` broke.
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

/// The recheck's F-new-1: a member of an unexported class is public API when an exported
/// interface of its module extends the class (true-myth 9.4.0 maybe.ts: `class MaybeImpl`,
/// `export interface Just<T> extends MaybeImpl<T>`, `export interface Nothing<T> extends
/// Omit<MaybeImpl<T>, 'value'>`); a member of an unexported class nothing exported extends is not.
#[test]
fn renaming_a_member_of_an_unexported_class_an_exported_interface_extends_is_a_public_api_change() {
    let test = "lsp_trial141::renaming_a_member_of_an_unexported_class_an_exported_interface_extends_is_a_public_api_change";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let maybe = "class MaybeImpl<T extends {}> {\n  constructor(readonly value?: T) {}\n  andThen<U extends {}>(fn: (t: T) => MaybeImpl<U>): MaybeImpl<U>;\n  andThen<U extends {}>(fn: (t: T) => MaybeImpl<U>, label: string): MaybeImpl<U>;\n  andThen<U extends {}>(fn: (t: T) => MaybeImpl<U>): MaybeImpl<U> {\n    return fn(this.value as T);\n  }\n}\n\nclass Counter {\n  tick(): number {\n    return 1;\n  }\n}\n\nexport interface Just<T extends {}> extends MaybeImpl<T> {\n  value: T;\n}\n\nexport interface Nothing<T extends {}> extends Omit<MaybeImpl<T>, 'value'> {}\n\nexport function just<T extends {}>(value: T): Just<T> {\n  return new MaybeImpl(value) as Just<T>;\n}\n\nexport function count(): number {\n  return new Counter().tick();\n}\n";
    let dir = support::workspace_with(&[
        (
            "package.json",
            "{\"name\": \"maybe-lib\", \"version\": \"1.0.0\", \"type\": \"module\", \"exports\": {\".\": {\"types\": \"./dist/index.d.ts\", \"default\": \"./dist/index.js\"}}}\n",
        ),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2015\", \"lib\": [\"ES2015\"], \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/index.ts", "export * as maybe from './maybe.js';\n"),
        ("src/maybe.ts", maybe),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/maybe.ts", "line": 5, "symbol": "andThen", "new_name": "flatMap", "preview": true}),
    );
    assert!(
        text.contains("note: public API changed: src/maybe.ts:3 declares `andThen`, a member of the class `MaybeImpl`, which the exported `Just` extends — the package `maybe-lib` exports `Just`"),
        "{text}"
    );
    // `Counter` is used by an exported function but no exported type extends it: its member is
    // no public API.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/maybe.ts", "line": 11, "symbol": "tick", "new_name": "step", "preview": true}),
    );
    assert!(text.contains("rename `tick` → `step`"), "{text}");
    assert!(!text.contains("public API changed"), "Counter is not published:\n{text}");
}
