//! Wrong answer from the fresh-user trial 97 (ts-pattern), against tsc on a fixture of the same
//! shape: the root tsconfig excludes `tests/`, which has a tsconfig of its own.
//! - M2: `lsp diagnostics "*"` ran tsc for the root config only: "0 errors" while `tsc -p tests`
//!   reported 23.
//!
//! Ground truth: `tsc -p tests` by hand.

use crate::support;

use serde_json::json;

#[test]
fn the_project_check_runs_a_tsconfig_the_root_config_excludes() {
    let test = "lsp_trial97::the_project_check_runs_a_tsconfig_the_root_config_excludes";
    if support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"patternish\", \"version\": \"1.0.0\", \"private\": true}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"], \"exclude\": [\"tests\"]}\n",
        ),
        ("src/index.ts", "export function select(key: string): string {\n  return key;\n}\n"),
        ("tests/tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\".\"]}\n"),
        ("tests/select.test.ts", "import { select } from '../src/index';\n\nexport const n: number = select('a');\n"),
    ]);
    let by_hand = std::process::Command::new("tsc").args(["--noEmit", "-p", "tests"]).current_dir(dir.path()).output().expect("run tsc");
    assert!(String::from_utf8_lossy(&by_hand.stdout).contains("error TS2322"), "{}", String::from_utf8_lossy(&by_hand.stdout));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("in tests ("), "tests/tsconfig.json was not run:\n{text}");
    assert!(text.contains("tests/select.test.ts:3: error"), "{text}");
}

/// F1: `import * as Pattern from './patterns'` and `export { Pattern as P }` publish the module as
/// the namespace `P`; renaming its `select` had no public-API note.
#[test]
fn a_module_published_as_a_namespace_through_a_local_export_list_gets_the_public_api_note() {
    let test = "lsp_trial97::a_module_published_as_a_namespace_through_a_local_export_list_gets_the_public_api_note";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "package.json",
            "{\"name\": \"patternish\", \"version\": \"1.0.0\", \"main\": \"dist/index.js\", \"types\": \"dist/index.d.ts\"}\n",
        ),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "import * as Pattern from './patterns';\n\nexport { Pattern, Pattern as P };\n"),
        ("src/patterns.ts", "export function select(key: string): string {\n  return key;\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/patterns.ts", "line": 1, "symbol": "select", "new_name": "pick", "preview": true}),
    );
    assert!(text.contains("note: public API changed: src/patterns.ts:1 exports the function `select`"), "{text}");
    assert!(text.contains("`Pattern.select`") || text.contains("`P.select`"), "{text}");
}

/// F2: workspace symbols called `import * as Pattern` and `export { Pattern }` the type alias
/// `Pattern` declared elsewhere (a match by name), while they bind the module namespace.
#[test]
fn a_namespace_import_is_not_said_to_stand_for_a_declaration_of_its_name() {
    let test = "lsp_trial97::a_namespace_import_is_not_said_to_stand_for_a_declaration_of_its_name";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"patternish\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "import * as Pattern from './patterns';\n\nexport { Pattern };\n"),
        ("src/patterns.ts", "export function select(key: string): string {\n  return key;\n}\n"),
        ("src/types.ts", "export type Pattern<a> = a | string;\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "src/index.ts"}));
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "Pattern"}));
    assert!(!text.contains("of src/types.ts:1)"), "a namespace said to be the type alias:\n{text}");
    // Ground truth: the definition of the import's name is the module, not the alias.
    let definition = support::call_ok(&run, "lsp", json!({"op": "definition", "file": "src/index.ts", "line": 1, "symbol": "Pattern"}));
    assert!(definition.contains("src/patterns.ts") && !definition.contains("src/types.ts"), "{definition}");
}
