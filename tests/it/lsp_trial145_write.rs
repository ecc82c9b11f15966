//! Wrong diagnostics-on-write answers from the fresh-user trial 145 (ts-results-es 4.2.0),
//! against the real typescript-language-server and tsc, on a fixture of the same shape:
//! - F2: the package's `test/tsconfig.json` includes `../src/**/*.ts`, so a second tsserver
//!   serves `test/`. A write of `src/result.ts` and `test/result.test.ts` took the `test/`
//!   server's pre-write state of the test file against the already written `src/result.ts`
//!   (its program reads `../src` from the disk): 3 errors that never existed were "resolved by
//!   this write" (44 for a rename of `Result`).
//!
//! Ground truth: tsc on both configs, before and after the write.

use crate::support;

use serde_json::json;

#[test]
fn a_test_program_that_includes_the_sources_takes_its_pre_write_state_against_their_old_text() {
    let test = "lsp_trial145_write::a_test_program_that_includes_the_sources_takes_its_pre_write_state_against_their_old_text";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let options = "\"strict\": true, \"noEmit\": true, \"target\": \"ES2015\", \"module\": \"commonjs\"";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"results\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", &format!("{{\"compilerOptions\": {{{options}}}, \"include\": [\"src/**/*\", \"test/**/*\"]}}\n")),
        ("test/tsconfig.json", &format!("{{\"compilerOptions\": {{{options}}}, \"include\": [\"../src/**/*.ts\", \"./**/*.ts\"]}}\n")),
        ("src/result.ts", "export function isResult(val: unknown): boolean {\n  return typeof val === 'object';\n}\n"),
        (
            "test/result.test.ts",
            "import { isResult } from '../src/result';\n\nexport const checks: boolean[] = [\n  isResult(1),\n  isResult(2),\n  isResult(3),\n];\n",
        ),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(support::tsc_errors(&dir.path().join("test")), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    // Both servers run, as when the agent has read files of both.
    for file in ["src/result.ts", "test/result.test.ts"] {
        support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": file}));
    }
    let patch = "*** Begin Patch\n*** Update File: src/result.ts\n@@\n-export function isResult(val: unknown): boolean {\n+export function isResult(val: unknown, strict: boolean): boolean {\n*** Update File: test/result.test.ts\n@@\n-  isResult(1),\n-  isResult(2),\n-  isResult(3),\n+  isResult(1, true),\n+  isResult(2, true),\n+  isResult(3, true),\n*** End Patch";
    let text = support::call_ok(&run, "apply_patch", json!({"patch": patch}));
    // Ground truth: clean before and after, on both configs.
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(support::tsc_errors(&dir.path().join("test")), Vec::<String>::new());
    assert!(text.contains("no new errors in test/result.test.ts"), "{text}");
    assert!(!text.contains("resolved by this write"), "errors that never existed were resolved:\n{text}");
    assert!(!text.contains("Expected 2 arguments"), "{text}");
}
