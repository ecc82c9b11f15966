//! Wrong call-hierarchy answers from the fresh-user trial 145 (ts-results-es 4.2.0), against
//! the real typescript-language-server, on a fixture of the same shape.
//!
//! - F1: `incoming_calls` at depth 2 of `toString` (a function the `ErrImpl` and `OkImpl`
//!   methods call) listed `Ok(true).expect(…)`, `Ok(true).unwrap()` and `Err(1).unwrapErr()`
//!   under `ErrImpl.expect`, `ErrImpl.unwrap` and `OkImpl.unwrapErr`: tsserver relates the two
//!   classes' methods through their interface, and the check below depth 1 took a method of the
//!   same name declared in the same file for an overload of the followed one. Depth 1 at those
//!   methods leaves such calls out ("whose definition is another declaration").
//!
//! Ground truth: tsc (clean); which class's method each call reaches is fixed by construction
//! (`Ok(…)` builds an `OkImpl`, `Err(…)` an `ErrImpl`), and only the `ErrImpl.expect`,
//! `ErrImpl.unwrap` and `OkImpl.unwrapErr` bodies call `toString`.

use crate::support;

use serde_json::json;

const UTILS: &str = "export function toString(val: unknown): string {\n  return String(val)\n}\n";

const RESULT: &str = "import { toString } from './utils'\n\ninterface BaseResult<T, E> {\n  expect(msg: string): T\n  unwrap(): T\n  unwrapErr(): E\n}\n\nexport class ErrImpl<E> implements BaseResult<never, E> {\n  constructor(readonly error: E) {}\n\n  expect(msg: string): never {\n    throw new Error(`${msg} - Error: ${toString(this.error)}`)\n  }\n\n  unwrap(): never {\n    throw new Error(`Tried to unwrap Error: ${toString(this.error)}`)\n  }\n\n  unwrapErr(): E {\n    return this.error\n  }\n}\n\nexport class OkImpl<T> implements BaseResult<T, never> {\n  constructor(readonly value: T) {}\n\n  expect(_msg: string): T {\n    return this.value\n  }\n\n  unwrap(): T {\n    return this.value\n  }\n\n  unwrapErr(): never {\n    throw new Error(`Tried to unwrap Ok: ${toString(this.value)}`)\n  }\n}\n\nexport function Ok<T>(value: T): OkImpl<T> {\n  return new OkImpl(value)\n}\n\nexport function Err<E>(error: E): ErrImpl<E> {\n  return new ErrImpl(error)\n}\n";

const OK_TEST: &str = "import { Ok } from '../src/result'\n\nexport function okExpect(): boolean {\n  return Ok(true).expect('should not fail!')\n}\n\nexport function okUnwrap(): boolean {\n  return Ok(true).unwrap()\n}\n\nexport function okUnwrapErr(): never {\n  return Ok('boom').unwrapErr()\n}\n";

const ERR_TEST: &str = "import { Err } from '../src/result'\n\nexport function errExpect(): never {\n  return Err(true).expect('should fail!')\n}\n\nexport function errUnwrap(): never {\n  return Err(1).unwrap()\n}\n\nexport function errUnwrapErr(): number {\n  return Err(1).unwrapErr()\n}\n";

/// An overloaded method that calls `toString`: a call resolves to an overload signature, the same
/// method as the implementation the hierarchy follows.
const FORMAT: &str = "import { toString } from './utils'\n\nexport class Formatter {\n  format(value: number): string\n  format(value: string): string\n  format(value: number | string): string {\n    return toString(value)\n  }\n}\n";

const FORMAT_TEST: &str =
    "import { Formatter } from '../src/format'\n\nexport function formatNumber(): string {\n  return new Formatter().format(1)\n}\n";

#[test]
fn deeper_incoming_calls_leave_out_the_sibling_class_methods_calls() {
    let test = "lsp_trial145_hierarchy::deeper_incoming_calls_leave_out_the_sibling_class_methods_calls";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"resultish\", \"version\": \"1.0.0\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"lib\": [\"ES2020\"], \"module\": \"commonjs\"}, \"include\": [\"src\", \"test\"]}\n",
        ),
        ("src/utils.ts", UTILS),
        ("src/result.ts", RESULT),
        ("test/ok.test.ts", OK_TEST),
        ("test/err.test.ts", ERR_TEST),
        ("src/format.ts", FORMAT),
        ("test/format.test.ts", FORMAT_TEST),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    // Depth 1 at `ErrImpl.expect` leaves `Ok(true).expect(…)` out.
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/result.ts", "line": 12, "symbol": "expect"}));
    assert!(text.contains("export function errExpect(): never {"), "{text}");
    assert!(!text.contains("export function okExpect("), "{text}");
    assert!(text.contains("whose definition is another declaration"), "{text}");
    let result = run.call(
        runbound::Caller::Main,
        "lsp",
        json!({"op": "incoming_calls", "file": "src/utils.ts", "line": 1, "symbol": "toString", "depth": 2}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // The callers that reach `toString`, listed at depth 2.
    for caller in ["export function errExpect(): never {", "export function errUnwrap(): never {", "export function okUnwrapErr(): never {"]
    {
        assert!(text.contains(caller), "{caller} is missing:\n{text}");
    }
    // A call of an overload signature of the followed `Formatter.format` stays.
    assert!(text.contains("export function formatNumber(): string {"), "the call of an overload is missing:\n{text}");
    // The calls of the sibling class's methods, which never call `toString`, left out with a note.
    for caller in ["export function okExpect(", "export function okUnwrap(", "export function errUnwrapErr("] {
        assert!(!text.contains(caller), "{caller} is listed as a caller:\n{text}");
    }
    let note = "note: left out below depth 1: 3 call sites typescript-language-server gave under a method whose definition is another declaration of that name";
    assert!(text.contains(note), "{text}");
    for site in ["test/ok.test.ts:4 in `okExpect`", "test/ok.test.ts:8 in `okUnwrap`", "test/err.test.ts:12 in `errUnwrapErr`"] {
        assert!(text.contains(site), "{site} is not named as left out:\n{text}");
    }
    let structured = result.structured_content.expect("structured content");
    let notes = structured["notes"].as_array().expect("notes");
    assert!(notes.iter().any(|entry| entry.as_str().is_some_and(|entry| entry.starts_with(note))), "{notes:?}");
}
