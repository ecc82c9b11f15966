//! `ast_edit`'s structure-preservation check and build output (trial164 M2), through a real run:
//! `Array<$T>` → `$T[]` on `Array<Effect | undefined>` gave `Effect | undefined[]` (a union with
//! an array, the meaning changed by precedence) and was staged as "no new parse errors"; tsc
//! reported the errors only after accepting. The same edit rewrote the package's `dist/*.d.ts`
//! with no note. Ground truth: the real tsc and python3 on the accepted rewrites.

use crate::support;

use std::path::Path;

use runbound::{Approval, ApprovalPolicy, Caller, Run, ToolResult};
use serde_json::{json, Value};

fn run_for(dir: &Path) -> Run {
    Run::builder(dir).with_structural().approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).build().expect("build run")
}

fn call(run: &Run, tool: &str, args: Value) -> (bool, String, Value) {
    let result: ToolResult = run.call(Caller::Main, tool, args);
    (result.is_error, result.joined_text(), result.structured_content.clone().unwrap_or(Value::Null))
}

fn accept(run: &Run, structured: &Value) -> String {
    let edit_id = structured["edit_id"].as_str().expect("an edit_id").to_owned();
    let (is_error, text, _) = call(run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!is_error, "{text}");
    text
}

const ATOM_TS: &str = "export interface Effect {\n  run(): void\n}\n\nconst queuedEffects: Array<Effect | undefined> = []\n\nexport function queue(effect: Effect | undefined): number {\n  queuedEffects.push(effect)\n  return queuedEffects.length\n}\n";
const COMPARE_TS: &str = "export function getOwnKeys(obj: object): Array<string | symbol> {\n  return (Object.keys(obj) as Array<string | symbol>).concat(\n    Object.getOwnPropertySymbols(obj),\n  )\n}\n\nexport const names: Array<string> = []\n";
const DIST_D_TS: &str = "type StoreAction = (...args: Array<any>) => any;\nexport { StoreAction };\n//# sourceMappingURL=store.d.ts.map";
const TSCONFIG: &str = "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"lib\": [\"ES2020\"], \"types\": []}, \"include\": [\"src\"]}\n";

fn typescript_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"private\": true, \"workspaces\": [\"packages/*\"]}\n"),
        ("packages/store/package.json", "{\"name\": \"store\", \"types\": \"./src/index.ts\", \"module\": \"./dist/index.js\"}\n"),
        ("packages/store/tsconfig.json", TSCONFIG),
        ("packages/store/src/atom.ts", ATOM_TS),
        ("packages/store/src/compare.ts", COMPARE_TS),
        ("packages/store/dist/store.d.ts", DIST_D_TS),
    ])
}

/// The trial's exact call: refused, naming each place, the captured union, what it became and the
/// parenthesized rewrite; allowed, it is staged with a WARNING at the top and tsc breaks after
/// accepting; the parenthesized rewrite compiles. The built `dist/store.d.ts` is left out and
/// named (ast_grep counts it as build output), and rewritten with `include_build_output`.
#[test]
fn a_union_split_by_array_brackets_is_refused_and_the_parenthesized_rewrite_compiles() {
    if support::require_binary("a_union_split_by_array_brackets_is_refused_and_the_parenthesized_rewrite_compiles", "tsc").is_none() {
        return;
    }
    let dir = typescript_package();
    let package = dir.path().join("packages/store");
    assert_eq!(support::tsc_errors(&package), Vec::<String>::new(), "the fixture compiles");
    let run = run_for(dir.path());
    let trial_call = json!({"pattern": "Array<$T>", "rewrite": "$T[]", "context": "type", "path": "packages", "language": "typescript"});

    let (is_error, text, structured) =
        call(&run, "ast_grep", json!({"pattern": "Array<$T>", "context": "type", "path": "packages", "language": "typescript"}));
    assert!(!is_error, "{text}");
    assert!(
        text.contains("note: 1 of the 5 matches are in build output, 1 file written by a build, which overwrites them from the sources: packages/store/dist/store.d.ts (a declaration map beside it); ast_edit leaves them out unless include_build_output: true"),
        "{text}"
    );
    assert_eq!(structured["matches_in_build_output"], 1, "{structured}");

    // Refused: nothing staged, nothing written.
    let (is_error, text, structured) = call(&run, "ast_edit", trial_call.clone());
    assert!(is_error, "{text}");
    assert!(text.contains("the rewrite would change what the code means in 3 places (2 files): the code $T captured is no longer one node where the rewrite puts it — the grammar's operator precedence joins it with the rewrite's own text, and the result still parses; nothing was staged:"), "{text}");
    assert!(
        text.contains(
            "packages/store/src/atom.ts:5: $T = `Effect | undefined` (union_type) becomes part of `Effect | undefined[]` (union_type)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "packages/store/src/compare.ts:1: $T = `string | symbol` (union_type) becomes part of `string | symbol[]` (union_type)"
        ),
        "{text}"
    );
    assert!(text.contains("packages/store/src/compare.ts:2: $T"), "{text}");
    assert!(!text.contains("compare.ts:7"), "`Array<string>` keeps its meaning: {text}");
    assert!(text.contains("call ast_edit again with rewrite `($T)[]`"), "{text}");
    assert!(text.contains("allow_precedence_changes: true"), "{text}");
    assert!(text.contains("note: left out 1 match in 1 build-output file"), "{text}");
    assert_eq!(structured["error"]["details"]["fixed_rewrite"], "($T)[]", "{structured}");
    assert_eq!(structured["error"]["details"]["changed_groupings"].as_array().map(Vec::len), Some(3), "{structured}");
    assert_eq!(run.resource::<runbound::staged::StagedResource>().unwrap().pending_count(), 0);
    assert_eq!(std::fs::read_to_string(package.join("src/atom.ts")).unwrap(), ATOM_TS);

    // Allowed: staged with the WARNING first; accepted, tsc finds the changed meaning.
    let mut allowed = trial_call.clone();
    allowed["allow_precedence_changes"] = json!(true);
    let (is_error, text, structured) = call(&run, "ast_edit", allowed);
    assert!(!is_error, "{text}");
    assert!(
        text.lines().nth(1).is_some_and(
            |line| line.starts_with("WARNING: allow_precedence_changes: the rewrite would change what the code means in 3 places")
        ),
        "{text}"
    );
    assert!(text.contains("the rewrite that keeps the meaning: `($T)[]`"), "{text}");
    assert!(text.contains("3 substituted captures are no longer one node (allowed, see the WARNING above)"), "{text}");
    assert_eq!(structured["precedence_changes"], 3, "{structured}");
    accept(&run, &structured);
    assert!(std::fs::read_to_string(package.join("src/atom.ts")).unwrap().contains("const queuedEffects: Effect | undefined[] = []"));
    assert!(!support::tsc_errors(&package).is_empty(), "tsc should reject the unparenthesized rewrite");

    // The parenthesized rewrite keeps the meaning: staged without a warning, tsc is clean, and
    // the built declarations are left alone.
    std::fs::write(package.join("src/atom.ts"), ATOM_TS).unwrap();
    std::fs::write(package.join("src/compare.ts"), COMPARE_TS).unwrap();
    let mut fixed = trial_call.clone();
    fixed["rewrite"] = json!("($T)[]");
    let (is_error, text, structured) = call(&run, "ast_edit", fixed.clone());
    assert!(!is_error, "{text}");
    assert!(!text.contains("WARNING"), "{text}");
    assert!(
        text.contains("each captured node substituted into the rewrite is still one node there; each replacement is one node where it lands (the code around it does not take part of it by precedence)"),
        "{text}"
    );
    assert!(
        text.contains("note: left out 1 match in 1 build-output file (written by a build, which overwrites them from the sources): packages/store/dist/store.d.ts (a declaration map beside it); rebuild after accepting, or pass include_build_output: true to rewrite them too"),
        "{text}"
    );
    assert_eq!(structured["replacements"], 4, "{structured}");
    assert_eq!(structured["build_output_files"], json!(["packages/store/dist/store.d.ts"]), "{structured}");
    accept(&run, &structured);
    assert!(std::fs::read_to_string(package.join("src/atom.ts")).unwrap().contains("const queuedEffects: (Effect | undefined)[] = []"));
    assert_eq!(support::tsc_errors(&package), Vec::<String>::new(), "the parenthesized rewrite compiles");
    assert_eq!(std::fs::read_to_string(package.join("dist/store.d.ts")).unwrap(), DIST_D_TS);

    // Asked for, build output is rewritten and said.
    let mut included = fixed;
    included["include_build_output"] = json!(true);
    let (is_error, text, structured) = call(&run, "ast_edit", included);
    assert!(!is_error, "{text}");
    assert!(text.contains("note: include_build_output: 1 replacement is in 1 build-output file"), "{text}");
    assert!(text.contains("+type StoreAction = (...args: (any)[]) => any;"), "{text}");
    assert_eq!(structured["build_output_included"], true, "{structured}");

    // Only build output under `path`: nothing staged, and the note (not "no code has this shape")
    // says why.
    let (is_error, text, structured) = call(
        &run,
        "ast_edit",
        json!({"pattern": "Array<$T>", "rewrite": "($T)[]", "context": "type", "path": "packages/store/dist", "language": "typescript"}),
    );
    assert!(!is_error, "{text}");
    assert!(text.starts_with("0 replacements for `Array<$T>`"), "{text}");
    assert!(text.contains("note: left out 1 match in 1 build-output file"), "{text}");
    assert!(!text.contains("hint:"), "{text}");
    assert_eq!(structured["edit_id"], Value::Null, "{structured}");
}

/// An expression: `double($A)` → `$A * 2` with `$A` = `x + 1` gives `x + 1 * 2` in Python (5,
/// not 8, by python3 itself); refused, and `($A) * 2` keeps the value. A `$$$` capture is never
/// checked.
#[test]
fn a_python_sum_multiplied_by_the_template_is_refused_and_the_parenthesized_rewrite_keeps_the_value() {
    let Some(python) = support::require_binary(
        "a_python_sum_multiplied_by_the_template_is_refused_and_the_parenthesized_rewrite_keeps_the_value",
        "python3",
    ) else {
        return;
    };
    const CALC: &str = "def double(v):\n    return v * 2\n\n\nx = 3\nprint(double(x + 1))\nprint(double(x))\n";
    let dir = support::workspace_with(&[("calc.py", CALC)]);
    let run = run_for(dir.path());
    let value = || {
        let output = std::process::Command::new(&python).arg("calc.py").current_dir(dir.path()).output().expect("run python3");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert_eq!(value(), "8\n6\n");

    let (is_error, text, _) = call(&run, "ast_edit", json!({"pattern": "double($A)", "rewrite": "$A * 2", "path": "calc.py"}));
    assert!(is_error, "{text}");
    assert!(text.contains("the rewrite would change what the code means in 1 place (1 file)"), "{text}");
    assert!(text.contains("calc.py:6: $A = `x + 1` (binary_operator) becomes part of `x + 1 * 2` (binary_operator)"), "{text}");
    assert!(text.contains("call ast_edit again with rewrite `($A) * 2`"), "{text}");

    let (is_error, text, structured) =
        call(&run, "ast_edit", json!({"pattern": "double($A)", "rewrite": "$A * 2", "path": "calc.py", "allow_precedence_changes": true}));
    assert!(!is_error, "{text}");
    accept(&run, &structured);
    assert_eq!(value(), "5\n6\n", "python3 computes the changed meaning");

    std::fs::write(dir.path().join("calc.py"), CALC).unwrap();
    let (is_error, text, structured) = call(&run, "ast_edit", json!({"pattern": "double($A)", "rewrite": "($A) * 2", "path": "calc.py"}));
    assert!(!is_error, "{text}");
    accept(&run, &structured);
    assert_eq!(value(), "8\n6\n", "the parenthesized rewrite keeps the value");

    // `$$$A` is a run of nodes: not checked.
    std::fs::write(dir.path().join("calc.py"), "print(max(x + 1, 2))\n").unwrap();
    let (is_error, text, _) = call(&run, "ast_edit", json!({"pattern": "max($$$A)", "rewrite": "min($$$A) * 2", "path": "calc.py"}));
    assert!(!is_error, "{text}");
}

/// review50 M3: `if (c) f(1);` with `f($X);` → `a($X); b($X);` was refused as "the code's own
/// operators take part of the replacement by precedence … parenthesize it yourself" — no
/// operator is involved: the braceless `if` holds one statement and `b(1);` would run always.
/// The refusal says so and advises braces; the braced rewrite stages, and the accepted text keeps
/// both calls under the `if` (ground truth: node runs it and prints only the unconditional calls).
#[test]
fn several_statements_in_a_one_statement_slot_are_refused_with_the_advice_to_use_braces() {
    let dir = support::workspace_with(&[("a.js", "const calls = [];\nconst f = (x) => calls.push(`f${x}`);\nconst a = (x) => calls.push(`a${x}`);\nconst b = (x) => calls.push(`b${x}`);\nconst c = false;\nif (c) f(1);\nf(2);\nconsole.log(calls.join(' '));\n")]);
    let run = run_for(dir.path());
    let (is_error, text, _) =
        call(&run, "ast_edit", json!({"pattern": "f($X);", "rewrite": "a($X); b($X);", "path": "a.js", "language": "javascript"}));
    assert!(is_error, "{text}");
    assert!(
        text.contains("the replacement is several statements where the code around it holds one (a braceless `if`/`for`/`while` body"),
        "{text}"
    );
    assert!(text.contains("a.js:6: `a(1); b(1);`"), "{text}");
    assert!(!text.contains("a.js:7:"), "f(2); stands in a statement list: {text}");
    assert!(text.contains("wrap the rewrite in braces (`{ … }`)") && !text.contains("parenthesize it yourself"), "{text}");
    let (is_error, text, structured) =
        call(&run, "ast_edit", json!({"pattern": "f($X);", "rewrite": "{ a($X); b($X); }", "path": "a.js", "language": "javascript"}));
    assert!(!is_error, "{text}");
    accept(&run, &structured);
    let written = std::fs::read_to_string(dir.path().join("a.js")).unwrap();
    assert!(written.contains("if (c) { a(1); b(1); }\n{ a(2); b(2); }\n"), "{written}");
    if support::require_binary(
        "structural_precedence::several_statements_in_a_one_statement_slot_are_refused_with_the_advice_to_use_braces",
        "node",
    )
    .is_some()
    {
        let output = std::process::Command::new("node").arg(dir.path().join("a.js")).output().expect("run node");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "a2 b2", "neither call of the `if` body runs: {output:?}");
    }
}
