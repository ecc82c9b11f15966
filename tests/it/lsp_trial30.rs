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
//! - F2, M4: files outside the tsconfig's include: workspace symbols answered 5, later 46 (tsserver
//!   searches the projects of open files only), and `"*"` said "0 errors" with nothing of the 167
//!   files tsc never compiled (32 errors among them).
//!
//! - trial31 F1, F3, F4 (zod's `src/v4` with its tests excluded from the tsconfig): references
//!   and renames never reached the excluded test files (33 uses of `nonoptional` left, 7 tests
//!   failed, the rename read clean), and a rename asked in an excluded test file edited the
//!   built `.d.cts` instead of the source.
//!
//! Ground truth: `tsc --noEmit -p .`, the source read by hand, `find`, `grep -w`.

use crate::support;

use runbound::Caller;
use serde_json::json;

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
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "edit", json!({"path": "src/external.ts", "old_string": "export * from './ZodError';\n", "new_string": ""}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let truth = support::tsc_errors(dir.path());
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
        assert!(text.contains("cast with `as` to a type built on it"), "{text}");
        assert!(!text.contains("implement it, checked by the compiler"), "a cast is no declared implementation:\n{text}");
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

/// F2, M4: the files a tsconfig leaves out are counted on workspace symbols and on `"*"`.
#[test]
fn files_outside_the_tsconfig_are_said_on_symbols_and_the_project_check() {
    let test = "lsp_trial30::files_outside_the_tsconfig_are_said_on_symbols_and_the_project_check";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"scoped\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"], \"exclude\": [\"src/bench\"]}\n"),
        ("src/widget.ts", "export class Widget {}\n"),
        ("src/bench/run.ts", "export const broken: number = 'x';\n"),
        ("v4/widget.ts", "export class Widget { size = 1 }\nexport const wrong: string = 3;\n"),
        ("tools/build.js", "module.exports = {};\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let symbols = run.call(Caller::Readonly, "lsp", json!({"op": "symbols", "query": "Widget"})).joined_text();
    // src/bench/run.ts and v4/widget.ts; tools/build.js is no part of a program without allowJs.
    assert!(symbols.contains("2 TypeScript files under . are outside tsconfig.json's files/include/exclude"), "{symbols}");
    assert!(symbols.contains("so this answer depends on what was opened before"), "{symbols}");
    let check = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"})).joined_text();
    assert!(check.contains("project check: 0 errors"), "{check}");
    let line = check
        .lines()
        .find(|line| line.contains("NOT checked: 2 TypeScript files under . are outside tsconfig.json's files/include/exclude"))
        .unwrap_or_else(|| panic!("{check}"));
    assert!(line.contains("src/bench/run.ts") && line.contains("v4/widget.ts") && line.contains("not in the counts"), "{line}");
}

/// trial31 F1, F4: uses in files the tsconfig excludes are counted on references and renames.
#[test]
fn uses_in_files_the_tsconfig_excludes_are_said_on_references_and_renames() {
    let test = "lsp_trial30::uses_in_files_the_tsconfig_excludes_are_said_on_references_and_renames";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"excluded\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"], \"exclude\": [\"src/tests\"]}\n"),
        ("src/make.ts", "export function makeThing(): number {\n  return 1;\n}\n"),
        ("src/use.ts", "import { makeThing } from './make';\n\nexport const made = makeThing();\n"),
        ("src/tests/make.test.ts", "import { makeThing } from '../make';\n\nexport const twice = makeThing() + makeThing();\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let references =
        run.call(Caller::Readonly, "lsp", json!({"op": "references", "file": "src/make.ts", "line": 1, "symbol": "makeThing"}));
    let text = references.joined_text();
    assert!(!references.is_error, "{text}");
    assert!(!text.contains("src/tests/make.test.ts:3:"), "tsserver now reaches the excluded file; the fixture no longer shows F4:\n{text}");
    assert!(
        text.contains("3 whole-word occurrences of `makeThing` in 1 file outside tsconfig.json's files/include/exclude (src/tests/make.test.ts) are NOT in this list"),
        "{text}"
    );
    let rename = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/make.ts", "line": 1, "symbol": "makeThing", "new_name": "buildThing", "preview": true}),
    );
    let text = rename.joined_text();
    assert!(!rename.is_error, "{text}");
    assert!(text.contains("WARNING: 3 whole-word occurrences of `makeThing` in 1 file outside tsconfig.json's files/include/exclude (src/tests/make.test.ts) are NOT renamed"), "{text}");
    // A rename asked in the excluded file itself edits files outside the program: said.
    let from_test = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/tests/make.test.ts", "line": 3, "symbol": "makeThing", "occurrence": 1, "new_name": "buildThing", "preview": true}),
    );
    let text = from_test.joined_text();
    assert!(!from_test.is_error, "{text}");
    assert!(text.contains("WARNING: this rename edits 1 file outside the tsconfig's program (src/tests/make.test.ts)"), "{text}");
}

/// M1: a Go function declared in two files under opposite build constraints: gopls loads one
/// configuration, and definition and references now name the other declaration with the `go vet`
/// that builds it; a function without such a twin gets no note.
#[test]
fn a_go_declaration_in_a_build_constrained_twin_file_is_named() {
    let test = "lsp_trial30::a_go_declaration_in_a_build_constrained_twin_file_is_named";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/md\n\ngo 1.21\n"),
        (
            "util/util_unsafe.go",
            "//go:build !appengine && !js\n\npackage util\n\n// BytesToReadOnlyString converts without copying.\nfunc BytesToReadOnlyString(b []byte) string {\n\treturn string(b)\n}\n\n// Plain has no twin.\nfunc Plain() int {\n\treturn 1\n}\n",
        ),
        (
            "util/util_safe.go",
            "//go:build appengine || js\n\npackage util\n\n// BytesToReadOnlyString copies.\nfunc BytesToReadOnlyString(b []byte) string {\n\treturn string(append([]byte(nil), b...))\n}\n",
        ),
        ("main.go", "package main\n\nimport \"example.com/md/util\"\n\nfunc main() {\n\tprintln(util.BytesToReadOnlyString(nil), util.Plain())\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp", json!({"op": "references", "file": "main.go", "line": 6, "symbol": "BytesToReadOnlyString"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note = text.lines().find(|line| line.contains("is also declared in")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("util/util_safe.go:6 (under `//go:build appengine || js`"), "{note}");
    assert!(note.contains("go vet -tags=appengine ./util") || note.contains("GOOS=js"), "{note}");
    assert!(!text.contains("util/util_safe.go:6:"), "gopls itself does not list it: {text}");
    let result = run.call(Caller::Main, "lsp", json!({"op": "definition", "file": "main.go", "line": 6, "symbol": "Plain"}));
    assert!(!result.joined_text().contains("is also declared in"), "{}", result.joined_text());
}

/// M2: renaming a Go function leaves the doc comment of a method of the same name; that comment
/// is now said to document another symbol, not listed as one to edit.
#[test]
fn a_doc_comment_of_another_declaration_of_the_name_is_said_to_be_not_this_symbol() {
    let test = "lsp_trial30::a_doc_comment_of_another_declaration_of_the_name_is_said_to_be_not_this_symbol";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/md\n\ngo 1.21\n"),
        ("util/util.go", "package util\n\n// IsBlank returns true if the given bytes are all spaces.\nfunc IsBlank(bs []byte) bool {\n\treturn len(bs) == 0\n}\n"),
        (
            "ast/inline.go",
            "package ast\n\nimport \"example.com/md/util\"\n\n// CodeSpan is a code span.\ntype CodeSpan struct{}\n\n// IsBlank returns true if this node consists of spaces.\nfunc (n *CodeSpan) IsBlank(source []byte) bool {\n\treturn util.IsBlank(source)\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "util/util.go", "line": 4, "symbol": "IsBlank", "new_name": "IsBlankBytes", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let listed = text.lines().find(|line| line.trim_start().starts_with("ast/inline.go:8:")).unwrap_or_else(|| panic!("{text}"));
    assert!(listed.contains("(doc comment of another `IsBlank`, declared at ast/inline.go:9"), "{listed}");
}

/// M10: a property rename leaves `T["_def"]["unknownKeys"]` in a type over `any` (tsserver
/// cannot bind it, tsc never flags it); it is now labelled a property key, not a plain string.
#[test]
fn a_string_property_key_left_by_a_property_rename_is_labelled_as_such() {
    let test = "lsp_trial30::a_string_property_key_left_by_a_property_rename_is_labelled_as_such";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"zodlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", "export interface ObjectDef {\n  unknownKeys: string;\n}\n\nexport const def: ObjectDef = { unknownKeys: 'strip' };\n"),
        (
            "src/partial.ts",
            "// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport type Policy<T extends any> = T[\"_def\"][\"unknownKeys\"];\nexport const message = \"unknownKeys must be set\";\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/types.ts", "line": 2, "symbol": "unknownKeys", "new_name": "unknownKeysPolicy", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let key = text.lines().find(|line| line.trim_start().starts_with("src/partial.ts:2:")).unwrap_or_else(|| panic!("{text}"));
    assert!(key.contains("(string used as a property key: indexed-access type key"), "{key}");
    let message = text.lines().find(|line| line.trim_start().starts_with("src/partial.ts:3:")).unwrap_or_else(|| panic!("{text}"));
    assert!(message.contains("(string)"), "{message}");
}
