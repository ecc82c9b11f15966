//! Wrong answers from the fresh-user trial 152 (rxjs 7.8.1, which ships its sources and the
//! declaration files tsc built from them, with declaration maps), against the real tsserver and
//! tsc, on a fixture of the same shape:
//! - F1: renaming `isFunction` in the sources also renamed it in `dist/types/…/isFunction.d.ts`:
//!   its definition leads to the source through the declaration map, so the check called it a
//!   missed reference and renamed again from there; the typings no longer matched the JavaScript
//!   beside them, and tsc stayed clean.
//! - F2: renaming `pipe` rewrote the package's typings entry `export { pipe } from …` to
//!   `export { pipe as pipeWith } from …`: every consumer's `import { pipe }` broke (TS2305).
//!
//! Ground truth: the declaration files after the rename, byte for byte, and tsc.

use crate::support;

use serde_json::json;

#[test]
fn a_rename_leaves_the_declaration_files_tsc_generated_and_says_so() {
    let test = "lsp_trial152::a_rename_leaves_the_declaration_files_tsc_generated_and_says_so";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let generated_util =
        "export declare function isFunction(value: any): value is (...args: any[]) => any;\n//# sourceMappingURL=util.d.ts.map\n";
    let generated_index = "export { isFunction } from './util';\n//# sourceMappingURL=index.d.ts.map\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"utils\", \"version\": \"1.0.0\", \"types\": \"dist/types/index.d.ts\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"lib\": [\"ES2020\"], \"module\": \"commonjs\"}}\n",
        ),
        ("src/util.ts", "export function isFunction(value: any): value is (...args: any[]) => any {\n  return typeof value === 'function';\n}\n"),
        ("src/index.ts", "export { isFunction } from './util';\n"),
        ("src/use.ts", "import { isFunction } from './util';\n\nexport const callable = isFunction(() => 1);\n"),
        ("dist/types/util.d.ts", generated_util),
        (
            "dist/types/util.d.ts.map",
            "{\"version\":3,\"file\":\"util.d.ts\",\"sourceRoot\":\"\",\"sources\":[\"../../src/util.ts\"],\"names\":[],\"mappings\":\"AAAA,wBAAgB\"}\n",
        ),
        ("dist/types/index.d.ts", generated_index),
        (
            "dist/types/index.d.ts.map",
            "{\"version\":3,\"file\":\"index.d.ts\",\"sourceRoot\":\"\",\"sources\":[\"../../src/index.ts\"],\"names\":[],\"mappings\":\"AAAA\"}\n",
        ),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/util.ts", "line": 1, "symbol": "isFunction", "new_name": "isCallable"}));
    assert_eq!(std::fs::read_to_string(dir.path().join("dist/types/util.d.ts")).unwrap(), generated_util, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("dist/types/index.d.ts")).unwrap(), generated_index, "{text}");
    assert!(!text.contains("renamed again from dist/"), "{text}");
    assert!(
        text.contains("left unrenamed: 2 occurrences in 2 declaration files tsc generated from the sources (a declaration map beside each: dist/types/index.d.ts, dist/types/util.d.ts) — build output, not edited"),
        "{text}"
    );
    // The sources are renamed, and the project still compiles.
    let used = std::fs::read_to_string(dir.path().join("src/use.ts")).unwrap();
    assert!(used.contains("isCallable(() => 1)"), "{used}");
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
}

/// Trial 152 M4: the read-only project check of an incremental project left tsc's build info
/// (`tsconfig.tsbuildinfo`, 82 KB for rxjs) in the workspace. Ground truth: tsc run by hand
/// writes it there.
#[test]
fn the_project_check_of_an_incremental_typescript_project_writes_nothing_into_it() {
    let test = "lsp_trial152::the_project_check_of_an_incremental_typescript_project_writes_nothing_into_it";
    if support::require_binary(test, "tsc").is_none() {
        return;
    }
    let files = [
        (
            "tsconfig.base.json",
            "{\n  // shared options\n  \"compilerOptions\": {\"incremental\": true, \"strict\": true, \"target\": \"ES2020\"}\n}\n",
        ),
        ("tsconfig.json", "{\"extends\": \"./tsconfig.base.json\", \"include\": [\"src\"]}\n"),
        ("src/a.ts", "export const count: number = 'one';\n"),
    ];
    let by_hand = support::workspace_with(&files);
    let output = std::process::Command::new("tsc").args(["--noEmit", "-p", "tsconfig.json"]).current_dir(by_hand.path()).output().unwrap();
    assert!(!output.status.success());
    assert!(by_hand.path().join("tsconfig.tsbuildinfo").is_file(), "tsc by hand writes its build info beside the configuration");
    let dir = support::workspace_with(&files);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("src/a.ts:1: error[TS2322]"), "{text}");
    let mut left: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, vec!["src", "tsconfig.base.json", "tsconfig.json"], "{text}");
    // Clean, tsc's only output is its build info: the confined checker may write it where it
    // goes (recheck: a clean project failed with "Permission denied" there, exit status 2).
    std::fs::write(dir.path().join("src/a.ts"), "export const count: number = 1;\n").unwrap();
    let clean = run.call(runbound::Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let clean_text = clean.joined_text();
    assert!(!clean.is_error, "{clean_text}");
    assert!(clean_text.starts_with("project check: 0 errors"), "{clean_text}");
    assert!(!clean_text.contains("exit status") && !clean_text.contains("install the checker"), "{clean_text}");
    assert!(!dir.path().join("tsconfig.tsbuildinfo").exists(), "{clean_text}");
}
