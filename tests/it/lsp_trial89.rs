//! Wrong answers from the fresh-user trial 89 (remeda 0.0.32, true-myth 8.0.0), against the real
//! typescript-language-server and tsc, on fixtures of the same shape:
//! - F2: renaming true-myth's `Maybe` (a type and a const of the same name) advised `export type
//!   { Option as Maybe }` to keep the public name, which keeps the type only: a consumer of the
//!   value broke (TS1362).
//! - F3: renaming a test file's default-import binding (`import Maybe from …` → `M`) grew into a
//!   397-edit rename of the library's `Maybe` and its public export, said as the server's
//!   "missed references"; tsserver renames the binding in that file only.
//! - F4: `export { clamp as clampNumber }` rewritten to `export { bound as clampNumber }` was
//!   read as keeping `clamp` (`bound as clamp` matched inside it): a false WARNING of TS2614.
//!
//! Ground truth: tsc, and the files after the rename.

use crate::support;

use serde_json::json;

const TSCONFIG: &str = "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true, \"esModuleInterop\": true}, \"include\": [\"src\", \"test\"]}\n";
const PACKAGE: &str = "{\"name\": \"truish\", \"version\": \"1.0.0\", \"main\": \"dist/index.js\", \"types\": \"dist/index.d.ts\"}\n";
const MAYBE: &str = "export type Maybe<T> = { value: T | undefined };\nexport const Maybe = {\n  nothing<T>(): Maybe<T> {\n    return { value: undefined };\n  },\n};\nexport default Maybe;\n";
const TOOLBELT_TEST: &str =
    "import Maybe from '../src/maybe';\n\nexport const n = Maybe.nothing<number>();\nexport const m: Maybe<number> = n;\n";

fn require_typescript(test: &str) -> bool {
    support::require_binary(test, "typescript-language-server").is_some() && support::require_binary(test, "tsc").is_some()
}

fn maybe_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", PACKAGE),
        ("tsconfig.json", TSCONFIG),
        ("src/maybe.ts", MAYBE),
        ("src/index.ts", "export * from './maybe';\n"),
        ("test/toolbelt.test.ts", TOOLBELT_TEST),
    ])
}

#[test]
fn renaming_a_default_import_binding_renames_it_in_its_file_only() {
    let test = "lsp_trial89::renaming_a_default_import_binding_renames_it_in_its_file_only";
    if !require_typescript(test) {
        return;
    }
    let dir = maybe_package();
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "test/toolbelt.test.ts", "line": 1, "symbol": "Maybe", "new_name": "M"}));
    assert!(!text.contains("missed references"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("src/maybe.ts")).unwrap(), MAYBE, "the library is not renamed:\n{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("test/toolbelt.test.ts")).unwrap(), TOOLBELT_TEST.replace("Maybe", "M"), "{text}");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

#[test]
fn the_advice_to_keep_a_type_and_value_name_keeps_both() {
    let test = "lsp_trial89::the_advice_to_keep_a_type_and_value_name_keeps_both";
    if !require_typescript(test) {
        return;
    }
    let dir = maybe_package();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/maybe.ts", "line": 2, "symbol": "Maybe", "new_name": "Option"}));
    assert!(text.contains("exports the type and value `Maybe`") && text.contains("`export { Option as Maybe };`"), "{text}");
    assert!(!text.contains("`export type { Option as Maybe };`"), "{text}");
    // Ground truth: with the advice followed, a consumer of both meanings of the old name builds.
    let maybe = std::fs::read_to_string(dir.path().join("src/maybe.ts")).unwrap();
    std::fs::write(dir.path().join("src/maybe.ts"), format!("{maybe}export {{ Option as Maybe }};\n")).unwrap();
    std::fs::write(
        dir.path().join("src/consumer.ts"),
        "import { Maybe } from './index';\n\nexport const kept: Maybe<number> = Maybe.nothing<number>();\n",
    )
    .unwrap();
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

#[test]
fn an_export_alias_that_only_starts_with_the_old_name_is_not_read_as_keeping_it() {
    let test = "lsp_trial89::an_export_alias_that_only_starts_with_the_old_name_is_not_read_as_keeping_it";
    if !require_typescript(test) {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", PACKAGE),
        ("tsconfig.json", TSCONFIG),
        ("src/clamp.ts", "export function clamp(x: number): number {\n  return Math.max(0, x);\n}\n"),
        ("src/index.ts", "export * from './clamp';\nexport { clamp as clampNumber } from './clamp';\n"),
        ("src/alias.test.ts", "import { clampNumber, clamp } from './index';\n\nexport const a = clampNumber(1) + clamp(2);\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/clamp.ts", "line": 1, "symbol": "clamp", "new_name": "bound"}));
    assert!(!text.contains("now reads `bound as clamp`"), "{text}");
    let index = std::fs::read_to_string(dir.path().join("src/index.ts")).unwrap();
    assert!(index.contains("export { bound as clampNumber }"), "{index}");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

/// M4 / F1 (remeda 0.0.32 with its TypeScript 4.0.8): tsserver before 4.2 has no
/// `fileReferences`, so no write checked an importer, and a rename's TS2308 in the barrel (two
/// `export *` now exporting the new name) went unseen. The importers are found by their import
/// lines instead, and the barrel's error is reported.
#[test]
fn without_file_references_the_importers_are_found_by_their_import_lines() {
    let test = "lsp_trial89::without_file_references_the_importers_are_found_by_their_import_lines";
    if !require_typescript(test) {
        return;
    }
    let old_typescript = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/node_modules/typescript-4.0");
    if !old_typescript.join("lib/tsserver.js").is_file() {
        support::skip_or_fail(test, "TypeScript 4.0.8 in .tools/node_modules/typescript-4.0 (.ci/install installs it)");
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"remedish\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2018\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/filter.ts", "export function filter<T>(items: T[], keep: (item: T) => boolean): T[] {\n  return items.filter(keep);\n}\n"),
        ("src/reject.ts", "export function reject<T>(items: T[], drop: (item: T) => boolean): T[] {\n  return items.filter((item) => !drop(item));\n}\n"),
        ("src/index.ts", "export * from './filter';\nexport * from './reject';\n"),
    ]);
    std::fs::create_dir_all(dir.path().join("node_modules")).unwrap();
    let copied = std::process::Command::new("cp").arg("-r").arg(&old_typescript).arg(dir.path().join("node_modules/typescript")).status();
    assert!(copied.as_ref().is_ok_and(|status| status.success()), "copy TypeScript 4.0.8: {copied:?}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/filter.ts", "line": 1, "symbol": "filter", "new_name": "reject"}));
    assert!(text.contains("a scan of relative import lines, since tsserver's fileReferences failed"), "{text}");
    assert!(text.contains("src/index.ts:2: error[2308]") || text.contains("src/index.ts:1: error[2308]"), "{text}");
    // Ground truth: tsc (this machine's) reports the ambiguity too.
    assert!(support::tsc_errors(dir.path()).iter().any(|error| error.contains("TS2308")), "{:?}", support::tsc_errors(dir.path()));
}
