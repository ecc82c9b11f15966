//! Trial 173 (golang.org/x/exp slices/maps), through a real run, with the Go toolchain and
//! typescript's tsc as ground truth:
//! - F1: Go patterns for explicit generic instantiation calls (`$F[$$$T]($$$A)`,
//!   `Equal[$A, $B]($$$X)`) compiled to a `type_conversion_expression` and matched none of the
//!   project's 2 calls, with "no go code has this shape"; tree-sitter-go gives such a call one of
//!   three shapes, and each pattern is now read in all of them.
//! - M6: the "add `[$$$TYPE_ARGUMENTS]`" advice for a call pattern that missed an explicit
//!   instantiation gave a pattern that matched nothing; the advised pattern now matches it.
//! - M7: `less($A, $B)` → `cmp($A, $B) < 0` turned `!less(a, b)` into `!cmp(a, b) < 0`, which Go
//!   reads as `(!cmp(a, b)) < 0`, and said "no meaning changed by precedence"; such replacements
//!   are now parenthesized and named (Go and TypeScript).

use crate::support;

use std::path::Path;

use runbound::{Approval, ApprovalPolicy, Caller, Run, ToolResult};
use serde_json::{json, Value};

fn run_for(dir: &Path) -> Run {
    Run::builder(dir).with_structural().approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).build().expect("build run")
}

fn ok(run: &Run, tool: &str, args: Value) -> (String, Value) {
    let result: ToolResult = run.call(Caller::Main, tool, args);
    assert!(!result.is_error, "unexpected error: {}", result.joined_text());
    (result.joined_text(), result.structured_content.clone().unwrap_or(Value::Null))
}

/// `(path, line)` of every match, sorted.
fn match_lines(structured: &Value) -> Vec<(String, u64)> {
    let mut lines: Vec<(String, u64)> = structured["matches"]
        .as_array()
        .expect("matches array")
        .iter()
        .map(|m| (m["path"].as_str().unwrap().to_owned(), m["line"].as_u64().unwrap()))
        .collect();
    lines.sort();
    lines
}

fn accept(run: &Run, structured: &Value) -> String {
    let edit_id = structured["edit_id"].as_str().expect("an edit_id").to_owned();
    let (text, _) = ok(run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    text
}

fn go_ok(dir: &Path, args: &[&str]) -> String {
    let output = support::go_offline(dir, args);
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "go {args:?} failed:\n{text}");
    text
}

const MAPS_GO: &str = "package maps\n\n// Equal reports whether two maps contain the same key/value pairs.\nfunc Equal[M1, M2 ~map[K]V, K, V comparable](m1 M1, m2 M2) bool {\n\tif len(m1) != len(m2) {\n\t\treturn false\n\t}\n\tfor k, v1 := range m1 {\n\t\tif v2, ok := m2[k]; !ok || v1 != v2 {\n\t\t\treturn false\n\t\t}\n\t}\n\treturn true\n}\n\n// EqualFunc is like Equal, but compares values using eq.\nfunc EqualFunc[M1 ~map[K]V1, M2 ~map[K]V2, K comparable, V1, V2 any](m1 M1, m2 M2, eq func(V1, V2) bool) bool {\n\tif len(m1) != len(m2) {\n\t\treturn false\n\t}\n\tfor k, v1 := range m1 {\n\t\tif v2, ok := m2[k]; !ok || !eq(v1, v2) {\n\t\t\treturn false\n\t\t}\n\t}\n\treturn true\n}\n\n// Keep returns m.\nfunc Keep[M ~map[K]V, K comparable, V any](m M) M {\n\treturn m\n}\n\n// Pick returns a or b.\nfunc Pick[T any](a, b T, first bool) T {\n\tif first {\n\t\treturn a\n\t}\n\treturn b\n}\n";

/// The explicit instantiations are on lines 12 (several type arguments), 15 (several, nested in
/// an `if !…`), 18 (one type argument, one call argument: a conversion's shape), 21 (one type
/// argument, several call arguments: an index call's shape); the others are inferred.
const MAPS_TEST_GO: &str = "package maps\n\nimport \"testing\"\n\nfunc equal[T comparable](v1, v2 T) bool {\n\treturn v1 == v2\n}\n\nvar m1 = map[int]int{1: 2, 2: 4}\n\nfunc TestEqual(t *testing.T) {\n\tif !Equal[map[int]int, map[int]int](nil, nil) {\n\t\tt.Error(\"Equal(nil, nil) = false, want true\")\n\t}\n\tif !EqualFunc[map[int]int, map[int]int](nil, nil, equal[int]) {\n\t\tt.Error(\"EqualFunc(nil, nil, equal) = false, want true\")\n\t}\n\tif len(Keep[map[int]int](m1)) != 2 {\n\t\tt.Error(\"Keep\")\n\t}\n\tif Pick[int](1, 2, true) != 1 {\n\t\tt.Error(\"Pick\")\n\t}\n\tif !Equal(m1, m1) {\n\t\tt.Error(\"Equal(m1, m1) = false\")\n\t}\n\tif !EqualFunc(m1, m1, equal[int]) {\n\t\tt.Error(\"EqualFunc(m1, m1, equal[int]) = false\")\n\t}\n\tif EqualFunc(m1, map[int]int{}, equal[int]) {\n\t\tt.Error(\"EqualFunc(m1, {}, equal[int]) = true\")\n\t}\n}\n";

fn maps_module() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/m\n\ngo 1.18\n"),
        ("maps/maps.go", MAPS_GO),
        ("maps/maps_test.go", MAPS_TEST_GO),
    ])
}

/// Ground truth by text: the lines of `maps/maps_test.go` holding a call `Name[…](`, found by
/// matching brackets (so `map[int]int` inside the list does not end it).
fn explicit_instantiation_lines(source: &str) -> Vec<u64> {
    let mut lines = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let bytes = line.as_bytes();
        let found = (1..bytes.len()).any(|at| {
            if bytes[at] != b'[' || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                return false;
            }
            // The name before `[` starts with an upper-case letter: a function of the package.
            let name_start = line[..at].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
            if !line[name_start..].starts_with(|c: char| c.is_ascii_uppercase()) {
                return false;
            }
            let mut depth = 0;
            for (offset, byte) in bytes[at..].iter().enumerate() {
                match byte {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return bytes.get(at + offset + 1) == Some(&b'(');
                        }
                    }
                    _ => {}
                }
            }
            false
        });
        if found {
            lines.push(index as u64 + 1);
        }
    }
    lines
}

/// F1: `$F[$$$T]($$$A)` finds every explicit instantiation call whatever its shape (grep's 4:
/// several type arguments, one type argument as a conversion's shape and as an index call's
/// shape), says how it was read, and `[$$$T]` binds a list of any length; fixed-arity and nested
/// patterns find theirs; the kind rule the hint names lists the type-arguments shape. Before,
/// `$F[$$$T]($$$A)` found 0 and said "no go code has this shape".
#[test]
fn go_explicit_instantiation_call_patterns_match_every_shape_of_the_call() {
    if support::require_binary("go_explicit_instantiation_call_patterns_match_every_shape_of_the_call", "go").is_none() {
        return;
    }
    let dir = maps_module();
    go_ok(dir.path(), &["vet", "./..."]);
    go_ok(dir.path(), &["test", "./..."]);
    let truth = explicit_instantiation_lines(MAPS_TEST_GO);
    assert_eq!(truth, vec![12, 15, 18, 21], "the fixture's explicit instantiations");
    let run = run_for(dir.path());

    let (text, structured) = ok(&run, "ast_grep", json!({"pattern": "$F[$$$T]($$$A)", "language": "go"}));
    let found: Vec<u64> = match_lines(&structured).into_iter().map(|(_, line)| line).collect();
    assert_eq!(found, truth, "{text}");
    assert!(
        text.contains("(go; pattern compiled as statement context → type_conversion_expression, and read as a call `F[T](…)` (an explicit generic instantiation, or a call of an indexed value) → call_expression with type_arguments, call_expression of an index_expression)"),
        "{text}"
    );
    assert!(text.contains("maps/maps_test.go:12: Equal[map[int]int, map[int]int](nil, nil)\n    $A = nil, nil\n    $F = Equal\n    $T = map[int]int, map[int]int"), "{text}");
    assert!(text.contains("maps/maps_test.go:21: Pick[int](1, 2, true)\n    $A = 1, 2, true\n    $F = Pick\n    $T = int"), "{text}");
    let readings = structured["compiled_as"]["alternatives"].as_array().expect("alternatives");
    assert_eq!(readings.len(), 2, "{structured}");
    assert!(readings[0]["reading"].as_str().unwrap().ends_with("→ call_expression with type_arguments"), "{structured}");

    // Fixed arity and a named callee: only the calls with that many type arguments.
    let (text, structured) = ok(&run, "ast_grep", json!({"pattern": "Equal[$A, $B]($$$X)", "language": "go"}));
    assert_eq!(match_lines(&structured), vec![("maps/maps_test.go".to_owned(), 12)], "{text}");
    let (text, structured) = ok(&run, "ast_grep", json!({"pattern": "$F[$T]($$$A)", "language": "go"}));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, line)| line).collect::<Vec<_>>(), vec![18, 21], "{text}");
    // Nested in a larger pattern.
    let (text, structured) = ok(&run, "ast_grep", json!({"pattern": "if !$F[$$$T]($$$A) { $$$B }", "language": "go"}));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, line)| line).collect::<Vec<_>>(), vec![12, 15], "{text}");
    assert!(text.contains("→ if_statement holding a call_expression with type_arguments"), "{text}");

    // The kind rule the zero-match hint names: the type-arguments shape.
    let (text, _) = ok(&run, "ast_grep", json!({"pattern": "Missing[$$$T]($$$A)", "language": "go"}));
    assert!(text.starts_with("0 matches"), "{text}");
    assert!(text.contains("the pattern was searched with its call in each it can take; to list every explicit instantiation call with several type arguments whatever its callee, use the rule {\"kind\": \"call_expression\", \"has\": {\"field\": \"type_arguments\", \"kind\": \"type_arguments\"}}"), "{text}");
    let rule: Value =
        serde_json::from_str(r#"{"kind": "call_expression", "has": {"field": "type_arguments", "kind": "type_arguments"}}"#).unwrap();
    let (text, structured) = ok(&run, "ast_grep", json!({"rule": rule, "language": "go"}));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, line)| line).collect::<Vec<_>>(), vec![12, 15], "{text}");
}

/// M6: the advice for a call pattern that missed an explicit instantiation names a text to add;
/// the advised pattern matches that call (before it matched nothing), and an `ast_edit` with it
/// that drops the explicit type arguments leaves `go vet` and `go test` passing.
#[test]
fn the_type_arguments_advice_gives_a_go_pattern_that_matches() {
    if support::require_binary("the_type_arguments_advice_gives_a_go_pattern_that_matches", "go").is_none() {
        return;
    }
    let dir = maps_module();
    let run = run_for(dir.path());
    let pattern = "EqualFunc($A, $B, equal[$T])";
    let (text, structured) = ok(&run, "ast_grep", json!({"pattern": pattern, "language": "go", "path": "maps"}));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, line)| line).collect::<Vec<_>>(), vec![27, 30], "{text}");
    let part = &structured["missed_candidates"]["parts"][0];
    assert_eq!(part["part"], "type_arguments", "{structured}");
    assert_eq!(part["position"], "before the arguments", "{structured}");
    let form = &part["forms"][0];
    assert_eq!(form["example_line"], 15, "{structured}");
    let addition = form["add_to_pattern"].as_str().unwrap();
    assert_eq!(addition, "[$$$TYPE_ARGUMENTS]", "{structured}");
    // Following the advice: the addition before the arguments.
    let advised = pattern.replacen('(', &format!("{addition}("), 1);
    let (text, structured) = ok(&run, "ast_grep", json!({"pattern": advised, "language": "go", "path": "maps"}));
    assert_eq!(match_lines(&structured), vec![("maps/maps_test.go".to_owned(), 15)], "{text}");
    assert!(text.contains("$TYPE_ARGUMENTS = map[int]int, map[int]int"), "{text}");
    // Both shapes at once with a rule, as the advice says.
    let rule = json!({"any": [{"pattern": pattern}, {"pattern": advised}]});
    let (text, structured) = ok(&run, "ast_grep", json!({"rule": rule, "language": "go", "path": "maps"}));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, line)| line).collect::<Vec<_>>(), vec![15, 27, 30], "{text}");
    // The explicit instantiation rewritten to the inferred form.
    let (text, structured) = ok(&run, "ast_edit", json!({"pattern": advised, "rewrite": pattern, "language": "go", "path": "maps"}));
    assert_eq!(structured["replacements"], 1, "{text}");
    accept(&run, &structured);
    let written = std::fs::read_to_string(dir.path().join("maps/maps_test.go")).unwrap();
    assert!(written.contains("\tif !EqualFunc(nil, nil, equal[int]) {\n"), "{written}");
    // Untyped nils no longer infer M1, M2: the go toolchain says so, as it would for the trial.
    let output = support::go_offline(dir.path(), &["vet", "./..."]);
    let vet = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && vet.contains("maps_test.go:15"), "{vet}");
}

const SORT_GO: &str = "package sorting\n\nfunc less(a, b int) bool { return a < b }\n\nfunc cmp(a, b int) int {\n\tswitch {\n\tcase a < b:\n\t\treturn -1\n\tcase a > b:\n\t\treturn 1\n\t}\n\treturn 0\n}\n\n// Sorted reports whether xs is in increasing order.\nfunc Sorted(xs []int) bool {\n\tfor i := 1; i < len(xs); i++ {\n\t\tif !less(xs[i-1], xs[i]) && xs[i-1] != xs[i] {\n\t\t\treturn false\n\t\t}\n\t}\n\treturn true\n}\n\n// Insert sorts xs by insertion.\nfunc Insert(xs []int) {\n\tfor i := 1; i < len(xs); i++ {\n\t\tfor j := i; j > 0 && less(xs[j], xs[j-1]); j-- {\n\t\t\txs[j], xs[j-1] = xs[j-1], xs[j]\n\t\t}\n\t}\n}\n";
const SORT_TEST_GO: &str = "package sorting\n\nimport \"testing\"\n\nfunc TestSort(t *testing.T) {\n\txs := []int{3, 1, 2, 2}\n\tif Sorted(xs) {\n\t\tt.Fatal(\"unsorted input reported sorted\")\n\t}\n\tInsert(xs)\n\tif !Sorted(xs) {\n\t\tt.Fatalf(\"not sorted: %v\", xs)\n\t}\n}\n";

/// M7 (Go): the trial's rewrite under a `!`: the replacement is parenthesized and named, the
/// others left as they are; `go vet` and `go test` pass on the result. Unparenthesized (what was
/// staged before), Go rejects `!cmp(…) < 0` — checked on the same text by the toolchain.
#[test]
fn a_go_rewrite_under_a_not_operator_is_parenthesized_and_compiles() {
    if support::require_binary("a_go_rewrite_under_a_not_operator_is_parenthesized_and_compiles", "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/s\n\ngo 1.18\n"),
        ("sorting/sort.go", SORT_GO),
        ("sorting/sort_test.go", SORT_TEST_GO),
    ]);
    go_ok(dir.path(), &["test", "./..."]);
    let under_not = SORT_GO.matches("!less(").count();
    assert_eq!(under_not, 1);
    // Ground truth for the unparenthesized text.
    std::fs::write(dir.path().join("sorting/sort.go"), SORT_GO.replace("!less(xs[i-1], xs[i])", "!cmp(xs[i-1], xs[i]) < 0")).unwrap();
    let output = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("operator ! not defined on cmp(xs[i - 1], xs[i])"), "{output:?}");
    std::fs::write(dir.path().join("sorting/sort.go"), SORT_GO).unwrap();

    let run = run_for(dir.path());
    let (text, structured) =
        ok(&run, "ast_edit", json!({"pattern": "less($A, $B)", "rewrite": "cmp($A, $B) < 0", "language": "go", "path": "sorting/sort.go"}));
    assert_eq!(structured["replacements"], 2, "{text}");
    assert!(
        text.contains("note: 1 replacement was parenthesized: the code around it would have taken part of the rewrite by operator precedence (a `!` or an operator next to the match binds tighter than the rewrite's own operator), changing what it means; check the parentheses in the diff:\n  sorting/sort.go:18: `(cmp(xs[i-1], xs[i]) < 0)` (without them: `!cmp(xs[i-1], xs[i]) < 0`)"),
        "{text}"
    );
    assert!(text.contains("1 replacement was parenthesized to keep its meaning (see the note above)"), "{text}");
    assert!(!text.contains("no meaning changed"), "{text}");
    accept(&run, &structured);
    let written = std::fs::read_to_string(dir.path().join("sorting/sort.go")).unwrap();
    assert_eq!(written.matches("!(cmp(").count(), under_not, "{written}");
    assert!(written.contains("j > 0 && cmp(xs[j], xs[j-1]) < 0;"), "{written}");
    go_ok(dir.path(), &["vet", "./..."]);
    go_ok(dir.path(), &["test", "./..."]);

    // A rewrite no operator takes apart says so.
    let (text, _) =
        ok(&run, "ast_edit", json!({"pattern": "cmp($A, $B) < 0", "rewrite": "less($A, $B)", "language": "go", "path": "sorting"}));
    assert!(
        text.contains("each replacement is one node where it lands (the code around it does not take part of it by precedence)"),
        "{text}"
    );
}

/// M7 (TypeScript): `!isSmall(x)` with `isSmall($X)` → `size($X) < 10` would be
/// `(!size(x)) < 10`, which tsc rejects; it is parenthesized and tsc accepts the result.
#[test]
fn a_typescript_rewrite_under_a_not_operator_is_parenthesized_and_compiles() {
    if support::require_binary("a_typescript_rewrite_under_a_not_operator_is_parenthesized_and_compiles", "tsc").is_none() {
        return;
    }
    const SOURCE: &str = "export function size(v: number[]): number {\n  return v.length\n}\n\nexport function isSmall(v: number[]): boolean {\n  return v.length < 10\n}\n\nexport function big(v: number[]): boolean {\n  return !isSmall(v)\n}\n\nexport function small(v: number[]): boolean {\n  return isSmall(v)\n}\n";
    const TSCONFIG: &str = "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"lib\": [\"ES2020\"], \"types\": []}, \"include\": [\"src\"]}\n";
    let dir = support::workspace_with(&[("tsconfig.json", TSCONFIG), ("src/a.ts", SOURCE)]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "the fixture compiles");
    std::fs::write(dir.path().join("src/a.ts"), SOURCE.replace("!isSmall(v)", "!size(v) < 10")).unwrap();
    assert!(!support::tsc_errors(dir.path()).is_empty(), "tsc rejects the unparenthesized text");
    std::fs::write(dir.path().join("src/a.ts"), SOURCE).unwrap();

    let run = run_for(dir.path());
    let (text, structured) =
        ok(&run, "ast_edit", json!({"pattern": "isSmall($X)", "rewrite": "size($X) < 10", "language": "typescript", "path": "src"}));
    assert_eq!(structured["replacements"], 2, "{text}");
    assert!(text.contains("src/a.ts:10: `(size(v) < 10)` (without them: `!size(v) < 10`)"), "{text}");
    accept(&run, &structured);
    let written = std::fs::read_to_string(dir.path().join("src/a.ts")).unwrap();
    assert!(written.contains("return !(size(v) < 10)\n") && written.contains("return size(v) < 10\n"), "{written}");
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "tsc accepts the parenthesized rewrite");
}

/// review50 H2: in semicolon-free TypeScript a parenthesized replacement that starts a statement
/// line joined the previous line as a call's arguments (`const r = {…}` then
/// `(r.ok || r.retry) && run()` is `{…}(r.ok || r.retry) && run()`), said to keep its meaning.
/// It is now written `;(…)`, and tsc accepts the result (it rejected the joined text).
#[test]
fn a_parenthesized_typescript_rewrite_at_a_statement_start_does_not_join_the_previous_line() {
    if support::require_binary("a_parenthesized_typescript_rewrite_at_a_statement_start_does_not_join_the_previous_line", "tsc").is_none() {
        return;
    }
    const SOURCE: &str = "export function check(r: { ok: boolean; retry: boolean }): boolean {\n  return r.ok\n}\n\nexport function run(): boolean {\n  return true\n}\n\nexport function f(): void {\n  const r = { ok: true, retry: false }\n  check(r) && run()\n}\n";
    const TSCONFIG: &str = "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"lib\": [\"ES2020\"], \"types\": []}, \"include\": [\"src\"]}\n";
    let dir = support::workspace_with(&[("tsconfig.json", TSCONFIG), ("src/a.ts", SOURCE)]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "the fixture compiles");
    std::fs::write(dir.path().join("src/a.ts"), SOURCE.replace("  check(r) && run()", "  (r.ok || r.retry) && run()")).unwrap();
    assert!(!support::tsc_errors(dir.path()).is_empty(), "tsc rejects the joined text");
    std::fs::write(dir.path().join("src/a.ts"), SOURCE).unwrap();

    let run = run_for(dir.path());
    let (text, structured) =
        ok(&run, "ast_edit", json!({"pattern": "check($X)", "rewrite": "$X.ok || $X.retry", "language": "typescript", "path": "src"}));
    assert_eq!(structured["replacements"], 1, "{text}");
    accept(&run, &structured);
    let written = std::fs::read_to_string(dir.path().join("src/a.ts")).unwrap();
    assert!(written.contains("  const r = { ok: true, retry: false }\n  ;(r.ok || r.retry) && run()\n"), "{written}");
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "tsc accepts the rewrite");
}

const INDEXED_CALLS_GO: &str = "package idx\n\nfunc Map[T, U any](x []T, f func(T) U) []U { return nil }\nfunc Id[T any](x T) T { return x }\nfunc Pair[T any](a, b T) T { return a }\n\nvar handlers = map[string]func(int) int{\"a\": func(x int) int { return x }}\nvar fns = []func(int, int) int{func(a, b int) int { return a + b }}\n\nfunc g() int {\n\t_ = Map[int, string]([]int{1}, func(x int) string { return \"\" })\n\t_ = Id[int](3)\n\t_ = Pair[int](1, 2)\n\t_ = handlers[\"a\"](1)\n\t_ = fns[0](1, 2)\n\treturn fns[len(fns)-1](3, 4)\n}\n";

/// review50 H3: the index-call reading of `$F[$$$T]($$$A)` matched every call of a map or slice
/// element (`handlers["a"](1)`, `fns[0](1, 2)`, with `$T = "a"`, `0`), and `ast_edit` with the
/// rewrite `$F($$$A)` staged `handlers(1)`, which does not compile. A literal, a call or an
/// arithmetic index is no type argument: those calls are matched by neither `pattern` nor a
/// `rule`, and the edit leaves them and `go vet` passes. Ground truth: the explicit
/// instantiations by text (lines 11–13).
#[test]
fn go_generic_call_patterns_do_not_match_calls_of_indexed_values() {
    if support::require_binary("go_generic_call_patterns_do_not_match_calls_of_indexed_values", "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("go.mod", "module example.com/m\n\ngo 1.18\n"), ("idx/idx.go", INDEXED_CALLS_GO)]);
    go_ok(dir.path(), &["vet", "./..."]);
    // The declarations `func Map[T, U any](` are no calls.
    let lines: Vec<&str> = INDEXED_CALLS_GO.lines().collect();
    let truth: Vec<u64> =
        explicit_instantiation_lines(INDEXED_CALLS_GO).into_iter().filter(|line| !lines[*line as usize - 1].starts_with("func ")).collect();
    assert_eq!(truth, vec![11, 12, 13], "the fixture's explicit instantiations");
    let run = run_for(dir.path());
    for pattern in ["$F[$$$T]($$$A)", "$F[$_]($$$A)", "$F[$$$]($$$A)"] {
        let (text, structured) = ok(&run, "ast_grep", json!({"pattern": pattern, "language": "go"}));
        let found: Vec<u64> = match_lines(&structured).into_iter().map(|(_, line)| line).collect();
        let expected: Vec<u64> = if pattern == "$F[$$$T]($$$A)" || pattern == "$F[$$$]($$$A)" { truth.clone() } else { vec![12, 13] };
        assert_eq!(found, expected, "{pattern}: {text}");
        assert!(!text.contains("RUNBOUND_GO_INDEX"), "{text}");
        let (text, structured) = ok(&run, "ast_grep", json!({"rule": {"pattern": pattern}, "language": "go"}));
        let found: Vec<u64> = match_lines(&structured).into_iter().map(|(_, line)| line).collect();
        assert_eq!(found, expected, "rule {pattern}: {text}");
    }
    let (text, structured) = ok(&run, "ast_edit", json!({"pattern": "$F[$$$T]($$$A)", "rewrite": "$F($$$A)", "language": "go"}));
    assert_eq!(structured["replacements"], 3, "{text}");
    accept(&run, &structured);
    let written = std::fs::read_to_string(dir.path().join("idx/idx.go")).unwrap();
    assert!(written.contains("\t_ = handlers[\"a\"](1)\n\t_ = fns[0](1, 2)\n\treturn fns[len(fns)-1](3, 4)\n"), "{written}");
    assert!(written.contains("\t_ = Pair(1, 2)\n"), "{written}");
    go_ok(dir.path(), &["vet", "./..."]);
}
