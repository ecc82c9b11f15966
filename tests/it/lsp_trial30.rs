//! Wrong answers from the fresh-user trial 30 (zod 3.25.76's `src/v3`, yuin/goldmark), against
//! the real typescript-language-server and tsc on fixtures of the same shape:
//! - F3: zod's `index.ts` reads `import * as z from "./external.js";` then `export * from
//!   "./external.js";`. The write check judged a referencing file by its first reference alone,
//!   so index.ts was a plain importer and its own importers were never checked: removing an
//!   `export *` from external.ts read "no new errors" where tsc counts 128 (vitest: 53 tests fail).
//! - F1: `implementation` of zod's `abstract class ZodType` gave "42 locations": 36 subclasses, the
//!   class itself, and 5 arrow functions of the `coerce` object cast to a subclass's `create`
//!   type, all listed alike.
//!
//! Ground truth: `tsc --noEmit -p .`, the source read by hand.

use crate::support;

use runbound::Caller;
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// `tsc --noEmit -p tsconfig.json --pretty false` in `dir`: its error lines.
fn tsc_errors(dir: &Path) -> Vec<String> {
    let output =
        Command::new("tsc").args(["--noEmit", "-p", "tsconfig.json", "--pretty", "false"]).current_dir(dir).output().expect("run tsc");
    String::from_utf8_lossy(&output.stdout).lines().filter(|line| line.contains("error TS")).map(str::to_owned).collect()
}

/// F3: the importers of a barrel that imports a module before re-exporting it are checked.
#[test]
fn a_barrel_that_imports_before_it_re_exports_has_its_importers_checked() {
    let test = "lsp_trial30::a_barrel_that_imports_before_it_re_exports_has_its_importers_checked";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\", \"tests\"]}\n",
        ),
        ("src/ZodError.ts", "export function formatError(message: string): string {\n  return `error: ${message}`;\n}\n"),
        ("src/external.ts", "export * from './ZodError';\nexport function parse(value: string): string {\n  return value;\n}\n"),
        ("src/index.ts", "import * as z from './external';\nexport * from './external';\nexport { z };\nexport default z;\n"),
        (
            "tests/error.test.ts",
            "import { formatError, parse } from '../src/index';\n\nexport function check(): boolean {\n  return formatError(parse('x')) === 'error: x';\n}\n",
        ),
    ]);
    assert!(tsc_errors(dir.path()).is_empty(), "{:?}", tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "edit", json!({"path": "src/external.ts", "old_string": "export * from './ZodError';\n", "new_string": ""}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let truth = tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("tests/error.test.ts(1,") && line.contains("formatError")), "tsc: {truth:?}");
    assert!(text.contains("tests/error.test.ts:1:") && text.contains("formatError"), "the importer's new error is not reported:\n{text}");
    assert!(text.contains("this write introduced 1 new error in 1 file"), "{text}");
}

/// F1: the locations tsserver lists that are no declaration, and the queried class itself, are named.
#[test]
fn implementations_that_are_arrow_functions_or_the_class_itself_are_named() {
    let test = "lsp_trial30::implementations_that_are_arrow_functions_or_the_class_itself_are_named";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/types.ts",
            "export abstract class ZodType {\n  abstract parse(value: unknown): unknown;\n}\n\nexport class ZodString extends ZodType {\n  parse(value: unknown): string {\n    return String(value);\n  }\n  static create = (params?: { coerce?: boolean }): ZodString => new ZodString();\n}\n\nexport class ZodNumber extends ZodType {\n  parse(value: unknown): number {\n    return Number(value);\n  }\n  static create = (params?: { coerce?: boolean }): ZodNumber => new ZodNumber();\n}\n\nexport const coerce = {\n  string: ((arg) => ZodString.create({ ...arg, coerce: true })) as (typeof ZodString)[\"create\"],\n  number: ((arg) => ZodNumber.create({ ...arg, coerce: true })) as (typeof ZodNumber)[\"create\"],\n};\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "implementation", "file": "src/types.ts", "line": 1, "symbol": "ZodType"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/types.ts:5:") && text.contains("src/types.ts:12:"), "the subclasses are listed:\n{text}");
    let listed_expressions = text.contains("src/types.ts:20:") || text.contains("src/types.ts:21:");
    if listed_expressions {
        assert!(
            text.contains("src/types.ts:20 (arrow function)") || text.contains("src/types.ts:21 (arrow function)"),
            "an arrow function listed as an implementation is not named:\n{text}"
        );
        assert!(text.contains("do not implement or extend `ZodType`"), "{text}");
    }
    let listed_itself = text.lines().any(|line| line.starts_with("src/types.ts:1:"));
    if listed_itself {
        assert!(text.contains("the queried declaration of `ZodType` itself"), "{text}");
    }
    assert!(
        listed_expressions || listed_itself,
        "tsserver listed neither the class nor the casts here; the fixture no longer shows F1:\n{text}"
    );
}
