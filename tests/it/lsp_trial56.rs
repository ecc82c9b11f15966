//! Wrong answers from the fresh-user trial 56 (@tanstack/virtual-core 3.10.8), against the real
//! tsserver and tsc, on fixtures of the same shape:
//! - F1: renaming a destructured parameter (`calculateRange({ …, scrollOffset })`) also renamed
//!   another function's parameter of the same name, reached through a shorthand `{ scrollOffset }`
//!   argument, and said the server's edit "missed references"; with a name that function uses,
//!   the build broke (TS2349) where the server's own edit compiles.
//!
//! Ground truth: tsserver's own rename locations and `tsc --noEmit` on the written project.

use crate::support;

use serde_json::json;

const TSCONFIG: (&str, &str) =
    ("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020"}, "include": ["src"]}"#);

const INDEX: &str = "export function calculateRange({\n  measurements,\n  outerSize,\n  scrollOffset,\n}: {\n  measurements: number[]\n  outerSize: number\n  scrollOffset: number\n}) {\n  return measurements.length + outerSize + scrollOffset\n}\n\nexport class Virtualizer {\n  compute = (measurements: number[], outerSize: number, scrollOffset: number) => {\n    return calculateRange({ measurements, outerSize, scrollOffset })\n  }\n}\n";

#[test]
fn a_destructured_parameter_rename_leaves_another_functions_local_passed_by_shorthand() {
    let test = "lsp_trial56::a_destructured_parameter_rename_leaves_another_functions_local_passed_by_shorthand";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[TSCONFIG, ("src/index.ts", INDEX)]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "the fixture compiles");
    let run = support::lsp_run_allowing_writes(dir.path());
    // `calculateRange` as the new name: renaming the other function's parameter too would make
    // its call `calculateRange(…)` call that parameter (TS2349).
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 4, "symbol": "scrollOffset", "new_name": "calculateRange"}),
    );
    let written = std::fs::read_to_string(dir.path().join("src/index.ts")).unwrap();
    assert!(written.contains("  scrollOffset: calculateRange,\n"), "{written}");
    assert!(written.contains("outerSize + calculateRange\n"), "{written}");
    assert!(written.contains("compute = (measurements: number[], outerSize: number, scrollOffset: number) =>"), "{written}\n{text}");
    assert!(written.contains("return calculateRange({ measurements, outerSize, scrollOffset })"), "{written}\n{text}");
    assert!(!text.contains("first edit missed references"), "{text}");
    assert!(
        text.contains("src/index.ts:15: return calculateRange({ measurements, outerSize, scrollOffset })"),
        "the shorthand is listed as the kept property:\n{text}"
    );
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "{text}");
}
