//! `ast_grep`, `ast_edit`, `resolve` through a real run: the Dart seed example, contexts,
//! unification and `$$$` in Python, Rust, C, Go, TypeScript and Java, strings and comments,
//! caps, hints, staging and resolve, and every error path.

use crate::support;

use std::path::Path;

use runbound::{Approval, ApprovalPolicy, Caller, Run, ToolResult};
use serde_json::{json, Value};

fn run_for(dir: &Path) -> Run {
    Run::builder(dir).with_structural().approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).build().expect("build run")
}

fn call(run: &Run, tool: &str, args: Value) -> ToolResult {
    run.call(Caller::Main, tool, args)
}

fn ok(result: ToolResult) -> (String, Value) {
    assert!(!result.is_error, "unexpected error: {}", result.joined_text());
    (result.joined_text(), result.structured_content.clone().unwrap_or(Value::Null))
}

fn err(result: ToolResult) -> (String, Value) {
    assert!(result.is_error, "expected an error, got: {}", result.joined_text());
    (result.joined_text(), result.structured_content.clone().unwrap_or(Value::Null))
}

/// `(path, line)` of every match, in result order.
fn match_lines(structured: &Value) -> Vec<(String, u64)> {
    structured["matches"]
        .as_array()
        .expect("matches array")
        .iter()
        .map(|m| (m["path"].as_str().unwrap().to_owned(), m["line"].as_u64().unwrap()))
        .collect()
}

fn lines_of(run: &Run, pattern: &str, path: &str) -> Vec<u64> {
    let (_, structured) = ok(call(run, "ast_grep", json!({"pattern": pattern, "path": path, "max_results": 1000})));
    match_lines(&structured).into_iter().map(|(_, line)| line).collect()
}

const DART_SEED: &str = r#"class Holder {
  Resource? a;
  Resource? b;
  Resource? c;

  void close() {
    if (a != null) a.dispose();
    if (b != null) c.dispose();
    // if (a != null) a.dispose();
    print("if (a != null) a.dispose();");
    if (this.c != null)
      this.c.dispose();
    if (a != null) { a.dispose(); }
  }
}
"#;

/// R-AST-2 (a repeated metavariable captures the same code) and R-AST-3 (never inside strings or
/// comments), on the spec's own Dart example.
#[test]
fn dart_seed_guard_matches_same_variable_only_and_never_comments_or_strings() {
    let dir = support::workspace_with(&[("lib/holder.dart", DART_SEED)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "if ($X != null) $X.dispose()", "path": "lib/holder.dart"})));
    assert_eq!(match_lines(&structured), vec![("lib/holder.dart".to_owned(), 7), ("lib/holder.dart".to_owned(), 11)], "{text}");
    assert_eq!(structured["matches"][0]["bindings"]["X"], "a");
    assert_eq!(structured["matches"][1]["bindings"]["X"], "this.c");
    assert_eq!(structured["compiled_as"]["context"], "statement");
    assert_eq!(structured["compiled_as"]["node_kind"], "if_statement");
    assert!(
        text.starts_with("2 matches in 1 file for `if ($X != null) $X.dispose()` (dart; pattern compiled as statement context"),
        "{text}"
    );
    assert!(text.contains("lib/holder.dart:7: if (a != null) a.dispose();"), "{text}");
    assert!(text.contains("    $X = a"), "{text}");
}

#[test]
fn dart_block_pattern_matches_if_statements_with_blocks() {
    let dir = support::workspace_with(&[("lib/holder.dart", DART_SEED)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "if ($C) { $$$B }", "path": "lib/holder.dart"})));
    assert_eq!(match_lines(&structured), vec![("lib/holder.dart".to_owned(), 13)], "{text}");
    assert_eq!(structured["matches"][0]["bindings"]["B"], "a.dispose();");
    assert_eq!(structured["matches"][0]["bindings"]["C"], "a != null");
}

const DART_DISPOSE: &str = r#"void dispose(Object x) {}

class Owner {
  void dispose(x) {}
}

void main() {
  dispose(x);
  dispose( y );
  dispose(
      z);
  var s = "dispose(x)"; // dispose(x)
}
"#;

#[test]
fn dart_dispose_call_patterns_match_calls_not_declarations() {
    let dir = support::workspace_with(&[("lib/owner.dart", DART_DISPOSE)]);
    let run = run_for(dir.path());
    assert_eq!(lines_of(&run, "dispose(x)", "lib/owner.dart"), vec![8]);
    assert_eq!(lines_of(&run, "dispose($X)", "lib/owner.dart"), vec![8, 9, 10]);
    // The compiled pattern's node kind: `structural::tests::dart_dispose_call_pattern_compiles_to_a_call_expression`.
}

const DART_A: &str = "void close(Object a, Object b) {\n  dispose(a);\n  if (b != null) dispose(b);\n}\n";
const DART_B: &str = "class C {\n  void stop() {\n    dispose(this.x);\n    dispose(other(y));\n  }\n}\n";
const DART_C: &str = "void untouched() {\n  print('dispose(a)');\n}\n";

#[test]
fn ast_edit_dart_over_several_files_then_accept_writes_exact_files() {
    let dir = support::workspace_with(&[("lib/a.dart", DART_A), ("lib/b.dart", DART_B), ("lib/c.dart", DART_C)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$X.dispose()", "language": "dart"})));
    assert!(text.starts_with("(proposed) 4 replacements in 2 files"), "{text}");
    assert!(text.contains("call resolve with edit_id \"edit_1\""), "{text}");
    assert!(text.contains("--- a/lib/a.dart") && text.contains("+  a.dispose();"), "{text}");
    assert_eq!(structured["edit_id"], "edit_1");
    // Nothing written yet.
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/a.dart")).unwrap(), DART_A);
    let (text, _) = ok(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(text.starts_with("accepted edit_1: wrote 4 replacements"), "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("lib/a.dart")).unwrap(),
        "void close(Object a, Object b) {\n  a.dispose();\n  if (b != null) b.dispose();\n}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("lib/b.dart")).unwrap(),
        "class C {\n  void stop() {\n    this.x.dispose();\n    other(y).dispose();\n  }\n}\n"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/c.dart")).unwrap(), DART_C);
    // Resolving the same id again is a clear error.
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(text.contains("already accepted"), "{text}");
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in walk(dir) {
        files.push((entry.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&entry).unwrap()));
    }
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn resolve_after_a_file_changed_rejects_the_whole_change_and_writes_nothing() {
    let dir = support::workspace_with(&[("lib/a.dart", DART_A), ("lib/b.dart", DART_B)]);
    let run = run_for(dir.path());
    ok(call(&run, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$X.dispose()", "language": "dart"})));
    let edited_b = format!("{DART_B}// edited by someone else\n");
    std::fs::write(dir.path().join("lib/b.dart"), &edited_b).unwrap();
    let before = snapshot(dir.path());
    let (text, structured) = err(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(
        text.contains(
            "error (conflict): edit_1 rejected: 1 of its 2 files changed after it was staged: lib/b.dart (modified since staging)"
        ),
        "{text}"
    );
    assert_eq!(structured["error"]["details"]["changed_files"][0]["path"], "lib/b.dart");
    assert_eq!(snapshot(dir.path()), before, "the tree must be byte-identical after a rejected accept");
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(text.contains("rejected by an earlier accept"), "{text}");
}

#[test]
fn resolve_discard_unknown_and_deleted_file_paths() {
    let dir = support::workspace_with(&[("lib/a.dart", DART_A), ("lib/b.dart", DART_B)]);
    let run = run_for(dir.path());
    ok(call(&run, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$X.dispose()", "language": "dart"})));
    let (text, _) = ok(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "discard"})));
    assert!(text.starts_with("discarded edit_1"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/a.dart")).unwrap(), DART_A);
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(text.contains("was discarded"), "{text}");
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_99", "action": "accept"})));
    assert!(text.contains("error (not_found): no staged edit has edit_id \"edit_99\""), "{text}");
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "apply"})));
    assert!(text.contains("invalid_arguments"), "{text}");
    // A file deleted after staging.
    let (_, structured) = ok(call(&run, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$X.dispose()", "language": "dart"})));
    assert_eq!(structured["edit_id"], "edit_2");
    std::fs::remove_file(dir.path().join("lib/a.dart")).unwrap();
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_2", "action": "accept"})));
    assert!(text.contains("lib/a.dart (deleted since staging)"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/b.dart")).unwrap(), DART_B);
}

#[test]
fn staged_edits_die_with_the_run() {
    let dir = support::workspace_with(&[("lib/a.dart", DART_A)]);
    let run = run_for(dir.path());
    ok(call(&run, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$X.dispose()", "language": "dart"})));
    assert_eq!(run.resource::<runbound::staged::StagedResource>().unwrap().pending_count(), 1);
    drop(run);
    let run = run_for(dir.path());
    let (text, _) = err(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(text.contains("no staged edit has edit_id"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/a.dart")).unwrap(), DART_A);
}

#[test]
fn ast_edit_nested_matches_outermost_wins_and_skips_are_counted() {
    let source = "fn main() {\n    let v = wrap(wrap(1));\n}\n";
    let dir = support::workspace_with(&[("src/main.rs", source)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_edit", json!({"pattern": "wrap($X)", "rewrite": "Some($X)", "path": "src/main.rs"})));
    assert_eq!(structured["nested_skipped"], 1, "{text}");
    assert!(text.contains("1 nested match inside other matches was skipped (the outermost match wins)"), "{text}");
    ok(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert_eq!(std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap(), "fn main() {\n    let v = Some(wrap(1));\n}\n");
}

#[test]
fn ast_edit_preview_is_capped_with_a_notice() {
    let mut files = Vec::new();
    for index in 0..50 {
        files.push((format!("src/f{index:02}.rs"), "fn f() {\n    let a = x.unwrap();\n}\n".to_string()));
    }
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let dir = support::workspace_with(&refs);
    let run = run_for(dir.path());
    let (text, structured) =
        ok(call(&run, "ast_edit", json!({"pattern": "$X.unwrap()", "rewrite": "$X.expect(\"checked\")", "language": "rust"})));
    assert_eq!(structured["preview_hunks_total"], 50);
    assert_eq!(structured["preview_hunks_shown"], 40);
    assert!(text.contains("showing 40 of 50 hunks"), "{text}");
    assert!(text.starts_with("(proposed) 50 replacements in 50 files"), "{text}");
}

#[test]
fn ast_edit_errors_template_variable_absent_and_zero_matches() {
    let dir = support::workspace_with(&[("lib/a.dart", DART_A)]);
    let run = run_for(dir.path());
    let (text, _) = err(call(&run, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$Y.dispose()", "language": "dart"})));
    assert!(text.contains("the rewrite uses $Y that the pattern `dispose($X)` does not bind"), "{text}");
    assert!(text.contains("($X)"), "{text}");
    let (text, structured) = ok(call(&run, "ast_edit", json!({"pattern": "release($X)", "rewrite": "$X.release()", "language": "dart"})));
    assert!(text.starts_with("0 replacements"), "{text}");
    assert!(text.contains("nothing staged, no edit_id"), "{text}");
    assert_eq!(structured["edit_id"], Value::Null);
}

/// One language case: a file whose matches of `pattern` are on `expected_lines` exactly.
struct Case {
    language: &'static str,
    file: &'static str,
    source: &'static str,
    pattern: &'static str,
    expected_lines: &'static [u64],
}

const PY: &str = r#"def close(a, b):
    if a == a:
        pass
    if a == b:
        pass
    print()
    print(1, 2)
    # print(3)
    s = "print(4)"
    if a is not None:
        a.close()
    if b is not None:
        a.close()

class K:
    def method(self, x):
        return x
"#;

const RS: &str = r#"fn main() {
    let a = x.unwrap();
    // y.unwrap()
    let s = "z.unwrap()";
    if a == a {}
    if a == b {}
    foo();
    foo(1, 2, 3);
    assert_eq!(w.unwrap(), 1);
}

impl Thing {
    fn go(&self) -> u32 { 1 }
}
"#;

const C_SRC: &str = r#"#include <stdlib.h>
void free(void *p);
void release(char *p, char *q) {
    free(p);
    /* free(q); */
    const char *s = "free(q)";
    p = p;
    p = q;
    printf("%s %s", p, q);
    if (p == NULL) { free(q); q = 0; }
}
"#;

const GO_SRC: &str = r#"package main

import "fmt"

func main() {
	err := run()
	if err != nil {
		return
	}
	if x == x {
	}
	if x == y {
	}
	fmt.Println("a", "b")
	// fmt.Println("c")
	s := "fmt.Println(d)"
}
"#;

const TS_SRC: &str = r#"class Box {
  private value: number;
  get(): number { return this.value; }
}
function f(a: number, b: number) {
  console.log(a, b);
  // console.log(c);
  const s = "console.log(d)";
  if (a === a) {}
  if (a === b) {}
  const t = `console.log(e)`;
}
"#;

const JAVA_SRC: &str = r#"class Main {
    public void run() {
        System.out.println("a");
        // System.out.println("b");
        String s = "System.out.println(c)";
        if (a.equals(a)) {}
        if (a.equals(b)) {}
    }

    private int count;
}
"#;

/// R-AST-2, R-AST-3 and R-AST-4 across languages: wrapping contexts, repeated metavariables,
/// `$$$` sequences, and no matches inside strings or comments.
#[test]
fn contexts_unification_sequences_strings_and_comments_across_languages() {
    let cases = [
        Case { language: "python", file: "m.py", source: PY, pattern: "$A == $A", expected_lines: &[2] },
        Case { language: "python", file: "m.py", source: PY, pattern: "print($$$ARGS)", expected_lines: &[6, 7] },
        Case { language: "python", file: "m.py", source: PY, pattern: "if $X is not None: $X.close()", expected_lines: &[10] },
        Case { language: "python", file: "m.py", source: PY, pattern: "def $F(self, $$$P): $$$B", expected_lines: &[16] },
        Case { language: "rust", file: "m.rs", source: RS, pattern: "$X.unwrap()", expected_lines: &[2] },
        Case { language: "rust", file: "m.rs", source: RS, pattern: "$A == $A", expected_lines: &[5] },
        Case { language: "rust", file: "m.rs", source: RS, pattern: "foo($$$ARGS)", expected_lines: &[7, 8] },
        Case { language: "rust", file: "m.rs", source: RS, pattern: "let $A = $B;", expected_lines: &[2, 4] },
        Case { language: "rust", file: "m.rs", source: RS, pattern: "fn $F(&self) -> $T { $$$B }", expected_lines: &[13] },
        Case { language: "c", file: "m.c", source: C_SRC, pattern: "free($X)", expected_lines: &[4, 10] },
        Case { language: "c", file: "m.c", source: C_SRC, pattern: "$A = $A", expected_lines: &[7] },
        Case { language: "c", file: "m.c", source: C_SRC, pattern: "printf($$$ARGS)", expected_lines: &[9] },
        Case { language: "c", file: "m.c", source: C_SRC, pattern: "if ($X == NULL) { $$$B }", expected_lines: &[10] },
        Case { language: "go", file: "m.go", source: GO_SRC, pattern: "if err != nil { $$$B }", expected_lines: &[7] },
        Case { language: "go", file: "m.go", source: GO_SRC, pattern: "$X == $X", expected_lines: &[10] },
        Case { language: "go", file: "m.go", source: GO_SRC, pattern: "fmt.Println($$$A)", expected_lines: &[14] },
        Case { language: "typescript", file: "m.ts", source: TS_SRC, pattern: "console.log($$$A)", expected_lines: &[6] },
        Case { language: "typescript", file: "m.ts", source: TS_SRC, pattern: "$A === $A", expected_lines: &[9] },
        Case { language: "java", file: "M.java", source: JAVA_SRC, pattern: "System.out.println($$$A)", expected_lines: &[3] },
        Case { language: "java", file: "M.java", source: JAVA_SRC, pattern: "$X.equals($X)", expected_lines: &[6] },
        Case { language: "java", file: "M.java", source: JAVA_SRC, pattern: "public void $M() { $$$B }", expected_lines: &[2] },
    ];
    for case in &cases {
        let dir = support::workspace_with(&[(case.file, case.source)]);
        let run = run_for(dir.path());
        let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": case.pattern, "path": case.file, "language": case.language})));
        let lines: Vec<u64> = match_lines(&structured).into_iter().map(|(_, line)| line).collect();
        assert_eq!(lines, case.expected_lines, "{} `{}`:\n{text}", case.language, case.pattern);
    }
}

#[test]
fn context_parameter_forces_a_context() {
    let dir = support::workspace_with(&[("m.ts", TS_SRC)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "private $F: $T;", "path": "m.ts", "context": "class_member"})));
    assert_eq!(match_lines(&structured), vec![("m.ts".to_owned(), 2)], "{text}");
    assert_eq!(structured["compiled_as"]["context"], "class_member");
    let dir = support::workspace_with(&[("M.java", JAVA_SRC)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "private int $F;", "path": "M.java", "context": "class_member"})));
    assert_eq!(match_lines(&structured), vec![("M.java".to_owned(), 10)], "{text}");
    assert_eq!(structured["compiled_as"]["node_kind"], "field_declaration");
    let (text, _) = err(call(&run, "ast_grep", json!({"pattern": "x", "path": "M.java", "language": "python", "context": "class_member"})));
    assert!(text.contains("python has no class_member context"), "{text}");
}

#[test]
fn results_are_sorted_capped_and_say_so() {
    let mut files = Vec::new();
    for index in (0..12).rev() {
        files.push((format!("src/m{index:02}.rs"), "fn f() {\n    a.unwrap();\n    b.unwrap();\n}\n".to_owned()));
    }
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let dir = support::workspace_with(&refs);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rs", "max_results": 5})));
    assert!(text.contains("showing 5 of 24 matches in 12 files"), "{text}");
    assert_eq!(structured["total_matches"], 24);
    assert_eq!(structured["truncated"], true);
    let shown = match_lines(&structured);
    let expected: Vec<(String, u64)> = vec![
        ("src/m00.rs".into(), 2),
        ("src/m00.rs".into(), 3),
        ("src/m01.rs".into(), 2),
        ("src/m01.rs".into(), 3),
        ("src/m02.rs".into(), 2),
    ];
    assert_eq!(shown, expected);
    let (again, _) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rs", "max_results": 5})));
    assert_eq!(text, again, "output must be deterministic");
    // Default cap is 50.
    let (_, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X", "language": "rust"})));
    assert_eq!(structured["shown"], 50);
    assert!(structured["warnings"][0].as_str().unwrap().contains("lone metavariable"));
}

#[test]
fn long_matches_are_cut_with_a_marker() {
    let body: String = (0..30).map(|i| format!("    let v{i} = {i};\n")).collect();
    let source = format!("fn long() {{\n{body}}}\n");
    let dir = support::workspace_with(&[("src/lib.rs", &source)]);
    let run = run_for(dir.path());
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "fn $F() { $$$B }", "path": "src/lib.rs"})));
    assert!(text.contains("… [cut: showing 8 of 32 lines"), "{text}");
}

#[test]
fn zero_matches_with_literal_present_explains_rust_macros() {
    let dir = support::workspace_with(&[("src/lib.rs", "fn t() {\n    assert_eq!(y.unwrap(), 1);\n}\n")]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rust"})));
    assert_eq!(structured["total_matches"], 0);
    // The word occurs only inside a macro's arguments: the note counts it there and the hint
    // points at it.
    assert!(
        text.contains("note: `unwrap` also occurs 1 time in 1 file inside macro invocations or `macro_rules!` bodies (`assert_eq!` 1; e.g. src/lib.rs:2)"),
        "{text}"
    );
    assert!(text.contains("hint: see the note above: the text occurs inside macro code"), "{text}");
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "$X.expect($M)", "language": "rust"})));
    assert!(text.contains("hint: no rust code has this shape"), "{text}");
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "go"})));
    assert!(text.contains("no go files were found there"), "{text}");
}

#[test]
fn error_paths_of_ast_grep() {
    let dir = support::workspace_with(&[("src/a.rs", "fn a() {}\n"), ("notes.txt", "x\n")]);
    let run = run_for(dir.path());
    let cases: &[(Value, &str)] = &[
        (json!({"pattern": "   ", "language": "rust"}), "the pattern is empty"),
        (json!({"pattern": "$$$ARGS", "language": "rust"}), "`$$$ARGS` alone is not a pattern"),
        (json!({"pattern": "$$$", "language": "dart"}), "`$$$` alone is not a pattern"),
        (json!({"pattern": "fn (", "language": "rust"}), "is not valid rust code in any context"),
        (json!({"pattern": "$X.unwrap()", "language": "klingon"}), "unknown language \"klingon\""),
        (json!({"pattern": "$X.unwrap()"}), "is a directory and no language was given"),
        (json!({"pattern": "$X", "path": "notes.txt"}), "cannot infer the language of notes.txt"),
        (json!({"pattern": "$X", "path": "../outside", "language": "rust"}), "outside_workspace"),
        (json!({"pattern": "$X", "path": "missing/dir", "language": "rust"}), "cannot be searched"),
        (json!({"pattern": "$X", "language": "rust", "max_results": 0}), "invalid_arguments"),
        (json!({"pattern": "$X", "language": "rust", "colour": "red"}), "invalid_arguments"),
    ];
    for (args, expected) in cases {
        let (text, _) = err(call(&run, "ast_grep", args.clone()));
        assert!(text.contains(expected), "{args}: expected {expected:?} in:\n{text}");
    }
    let (text, _) = err(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()"})));
    assert!(text.contains("dart") && text.contains("python") && text.contains("typescript"), "lists ids: {text}");
}

#[test]
fn unparseable_pattern_lists_every_context_and_where_it_failed() {
    let dir = support::workspace_with(&[("lib/a.dart", DART_A)]);
    let run = run_for(dir.path());
    let (text, structured) = err(call(&run, "ast_grep", json!({"pattern": "a(); b();", "language": "dart"})));
    for context in ["statement:", "expression:", "class_member:", "declaration:"] {
        assert!(text.contains(&format!("  - {context}")), "{context} missing in:\n{text}");
    }
    assert!(text.contains("parses as 2 sibling nodes"), "{text}");
    assert!(text.contains("next: "), "{text}");
    let tried = structured["error"]["details"]["contexts_tried"].as_array().unwrap();
    assert!(tried.len() >= 4, "{tried:?}");
    let (text, _) = err(call(&run, "ast_grep", json!({"pattern": "if ($X is not None: $X.close()", "language": "python"})));
    assert!(text.contains("at fragment line 1, column"), "{text}");
    let (text, _) = err(call(&run, "ast_grep", json!({"pattern": "$x.close()", "language": "python"})));
    assert!(text.contains("`$x` is not a metavariable"), "{text}");
}

#[test]
fn lower_case_metavariable_in_dart_is_a_warning() {
    let dir = support::workspace_with(&[("lib/a.dart", "void f() { $x.foo(); y.foo(); }\n")]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$x.foo()", "language": "dart"})));
    assert!(text.contains("warning: `$x` is not a metavariable"), "{text}");
    assert_eq!(structured["total_matches"], 1, "{text}");
}

#[test]
fn tools_register_only_when_wired_and_write_tools_hide_from_readonly_callers() {
    let dir = support::workspace_with(&[("src/a.rs", "fn a() {}\n")]);
    let bare = Run::builder(dir.path()).build().unwrap();
    let names: Vec<String> = bare.tools(Caller::Main).iter().map(|t| t.name.clone()).collect();
    assert!(!names.iter().any(|n| n == "ast_grep" || n == "ast_edit" || n == "resolve"), "{names:?}");
    let run = run_for(dir.path());
    let main: Vec<String> = run.tools(Caller::Main).iter().map(|t| t.name.clone()).collect();
    assert!(["ast_grep", "ast_edit", "resolve"].iter().all(|n| main.iter().any(|m| m == n)), "{main:?}");
    let readonly: Vec<String> = run.tools(Caller::Readonly).iter().map(|t| t.name.clone()).collect();
    assert!(readonly.iter().any(|n| n == "ast_grep"));
    assert!(!readonly.iter().any(|n| n == "ast_edit" || n == "resolve"), "{readonly:?}");
    let result = run.call(Caller::Readonly, "ast_edit", json!({"pattern": "a", "rewrite": "b", "language": "rust"}));
    assert!(result.is_error && result.joined_text().contains("hidden_from_caller"), "{}", result.joined_text());
}

/// Many matches on one very long line (minified code) are all found, with character columns (not
/// bytes) that stay right after non-ASCII text. (How long it takes is the benches' business, not
/// an assertion here: a shared machine makes wall-clock limits flaky.)
#[test]
fn many_matches_on_one_long_line_are_all_found_and_columns_count_characters() {
    let unit = "var a=function(){return b.c(d)};";
    let line = format!("/*é😀*/{}", unit.repeat(20_000));
    let dir = support::workspace_with(&[("js/bundle.min.js", line.as_str())]);
    let run = run_for(dir.path());
    let (_, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$A.c($B)", "path": "js", "language": "js", "max_results": 3})));
    assert_eq!(structured["total_matches"], 20_000);
    let columns: Vec<u64> = structured["matches"].as_array().unwrap().iter().map(|m| m["column"].as_u64().unwrap()).collect();
    // "/*é😀*/" is 6 characters (10 bytes); `b` sits at character 24 of each 32-character unit.
    assert_eq!(columns, [6 + 24 + 1, 6 + 32 + 24 + 1, 6 + 64 + 24 + 1]);
}

const RULES_RS: &str = r#"fn parse(input: &str) -> Result<u32, String> {
    let n = input.parse::<u32>().unwrap();
    let m = input.trim().parse::<u32>().expect("number");
    Ok(n + m)
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses() {
        let v = super::parse("1").unwrap();
        assert_eq!(v, 2);
        let items = vec![1, 2].iter().map(|x| x.checked_add(1).unwrap()).count();
    }
}
"#;

/// Rules through the tool: relational (`inside` with `stopBy: end`, `has` with `field`),
/// composite (`all`, `any`, `not`, `matches` with `utils`) and `constraints`, checked line by
/// line against the fixture.
#[test]
fn rule_searches_with_relational_composite_keys_and_constraints() {
    let dir = support::workspace_with(&[("src/lib.rs", RULES_RS)]);
    let run = run_for(dir.path());
    let lines = |args: Value| -> (Vec<u64>, String, Value) {
        let (text, structured) = ok(call(&run, "ast_grep", args));
        (match_lines(&structured).into_iter().map(|(_, line)| line).collect(), text, structured)
    };
    // Every unwrap inside a test function, but not inside a closure.
    let (found, text, structured) = lines(json!({"language": "rust", "rule": {
        "pattern": "$X.unwrap()",
        "inside": {"kind": "function_item", "has": {"kind": "attribute_item", "regex": "test"}, "stopBy": "end"},
        "not": {"inside": {"kind": "closure_expression", "stopBy": "end"}}
    }}));
    // `#[test]` is a sibling of the function, not its child: nothing; then follows.
    assert!(found.is_empty(), "{text}");
    let (found, text, _) = lines(json!({"language": "rust", "rule": {
        "pattern": "$X.unwrap()",
        "inside": {"kind": "function_item", "follows": {"kind": "attribute_item", "regex": "^#\\[test\\]$"}, "stopBy": "end"},
        "not": {"inside": {"kind": "closure_expression", "stopBy": "end"}}
    }}));
    assert_eq!(found, vec![11], "{text}");
    assert!(text.starts_with("1 match in 1 file for rule {"), "{text}");
    assert!(text.contains("(rust; rule → call_expression)"), "{text}");
    assert!(text.contains("    $X = super::parse(\"1\")"), "{text}");
    assert_eq!(structured["compiled_as"]["rule_kinds"], json!(["call_expression"]), "{structured}");
    // any + matches + utils; constraints on a single metavariable.
    let (found, text, _) = lines(json!({"language": "rust", "rule": {"matches": "panicky"},
        "utils": {"panicky": {"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]}}}));
    assert_eq!(found, vec![2, 3, 11, 13], "{text}");
    let (found, text, _) = lines(json!({"language": "rust", "rule": {"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]},
        "constraints": {"X": {"kind": "call_expression", "has": {"field": "function", "regex": "parse"}}}}));
    assert_eq!(found, vec![2, 3, 11], "{text}");
    // has with field: functions whose return type is a generic type.
    let (found, text, _) =
        lines(json!({"language": "rust", "rule": {"kind": "function_item", "has": {"field": "return_type", "kind": "generic_type"}}}));
    assert_eq!(found, vec![1], "{text}");
    // A pattern object with context and selector.
    let (found, text, _) = lines(
        json!({"language": "rust", "rule": {"pattern": {"context": "fn f() { let $A = $B; }", "selector": "let_declaration"}, "has": {"pattern": "$X.unwrap()", "stopBy": "end"}}}),
    );
    assert_eq!(found, vec![2, 11, 13], "{text}");
}

/// Rule errors name the path of the offending key and suggest from the grammar.
#[test]
fn rule_errors_name_the_key_path_and_suggest_names() {
    let dir = support::workspace_with(&[("src/lib.rs", RULES_RS), ("app.py", "def f(x) -> int:\n    return x\n")]);
    let run = run_for(dir.path());
    let cases: &[(Value, &str)] = &[
        (
            json!({"language": "rust", "rule": {"pattern": "$X.unwrap()", "inside": {"kind": "fn_item", "stopBy": "end"}}}),
            "rule.inside.kind: unknown kind \"fn_item\" for rust; did you mean `function_item`",
        ),
        (
            json!({"language": "rust", "rule": {"kind": "call_expression", "has": {"kind": "identifier", "stop_by": "end"}}}),
            "rule.has.stop_by: unknown key `stop_by`; did you mean `stopBy`?",
        ),
        (
            json!({"language": "rust", "rule": {"all": [{"kind": "call_expression"}, {"kind": "call_expresion"}]}}),
            "rule.all[1].kind: unknown kind \"call_expresion\" for rust; did you mean `call_expression`",
        ),
        (
            json!({"language": "python", "path": "app.py", "rule": {"kind": "function_definition", "has": {"field": "returns", "kind": "type"}}}),
            "rule.has.field: unknown field \"returns\" for python; did you mean",
        ),
        (
            json!({"language": "rust", "rule": {"kind": "call_expression", "precedes": {"kind": "identifier", "field": "name"}}}),
            "rule.precedes.field: unknown key `field`: `field` works only with `inside` and `has`",
        ),
        (
            json!({"language": "rust", "rule": {"matches": "helper"}}),
            "rule.matches: `matches` refers to utility rule \"helper\", but no `utils` argument was given",
        ),
        (
            json!({"language": "rust", "rule": {"pattern": "foo($$$ARGS)"}, "constraints": {"ARGS": {"kind": "identifier"}}}),
            "constraints.ARGS: `$$$ARGS` is a multi metavariable",
        ),
        (json!({"language": "rust", "rule": {"pattern": "foo($A)"}, "constraints": {"B": {"kind": "identifier"}}}), "constraints.B:"),
        (json!({"language": "rust", "rule": {"kind": "identifier", "regex": "("}}), "rule.regex: invalid value \"(\""),
        (json!({"language": "rust", "rule": {"kind": "parameter", "nthChild": "2x"}}), "rule.nthChild: invalid value \"2x\""),
        (
            json!({"language": "rust", "rule": {"pattern": {"context": "fn f() { a(); }", "selector": "let_declaration"}}}),
            "rule.pattern.selector: the context has no `let_declaration` node",
        ),
        (
            json!({"language": "rust", "rule": {"not": {"kind": "identifier"}, "constraints": {}}}),
            "rule.constraints: unknown key `constraints`: `constraints` is an argument of the tool next to `rule`",
        ),
        (json!({"language": "rust", "rule": "$X.unwrap()"}), "field /rule: \"$X.unwrap()\" is not of type \"object\""),
        (json!({"language": "rust", "rule": {}}), "rule: the rule has no matcher key"),
        (json!({"language": "rust", "rule": {"kind": "identifier"}, "pattern": "$X"}), "give either `pattern` or `rule`, not both"),
        (
            json!({"language": "rust", "pattern": "$X.unwrap()", "constraints": {"X": {"kind": "identifier"}}}),
            "`constraints` works only with `rule`",
        ),
        (json!({"language": "rust", "rule": {"kind": "identifier"}, "context": "type"}), "`context` works only with `pattern`"),
        (json!({"language": "dart", "rule": {"pattern": "if ($X != null) $X.dispose()"}}), "\"selector\":\"if_statement\""),
    ];
    for (args, expected) in cases {
        let (text, structured) = err(call(&run, "ast_grep", args.clone()));
        assert!(text.contains(expected), "{args}: expected {expected:?} in:\n{text}");
        if expected.starts_with("rule") || expected.starts_with("constraints") {
            let path = expected.split(':').next().unwrap();
            assert_eq!(structured["error"]["details"]["rule_path"], path, "{text}");
        }
    }
    // A rule pattern that ast-grep reads differently on its own is a warning with the fix.
    let (text, _) = ok(call(&run, "ast_grep", json!({"language": "dart", "path": ".", "rule": {"pattern": "dispose($X)"}})));
    assert!(text.contains("warning: rule.pattern: `dispose($X)` parses on its own as `function_signature`"), "{text}");
}

const TYPES_RS: &str =
    "struct S { a: Either<u8, String>, v: Vec<Vec<u8>> }\nfn f(x: Either<A, B>) -> Vec<u8> { let y: Vec<i32> = Vec::new(); todo!() }\n";
const TYPES_PY: &str = "from typing import List, Dict\n\ndef f(x: List[int]) -> Dict[str, int]:\n    y = List[str]\n    return {}\n";
const TYPES_TS: &str = "const m: Map<string, number> = new Map();\nfunction f(x: Map<K, V>): Array<string> { return []; }\n";
const TYPES_GO: &str = "package p\n\nfunc f(x *T, y int) *Node {\n\tvar z = *x\n\treturn nil\n}\n";
const TYPES_JAVA: &str = "class A {\n  List<String> xs;\n  Map<String, Integer> f(List<Integer> a) { return null; }\n}\n";

/// Type patterns compile as types in the type context; where an earlier context reads them
/// differently (Python subscript, Go dereference) both readings are searched and said.
#[test]
fn type_patterns_match_type_positions() {
    let dir =
        support::workspace_with(&[("t.rs", TYPES_RS), ("t.py", TYPES_PY), ("t.ts", TYPES_TS), ("t.go", TYPES_GO), ("T.java", TYPES_JAVA)]);
    let run = run_for(dir.path());
    let found = |pattern: &str, path: &str| -> (Vec<String>, String, Value) {
        let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": pattern, "path": path})));
        let texts = structured["matches"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap().to_owned()).collect();
        (texts, text, structured)
    };
    let (texts, text, structured) = found("Either<$L, $R>", "t.rs");
    assert_eq!(texts, vec!["Either<u8, String>", "Either<A, B>"], "{text}");
    assert_eq!(structured["compiled_as"]["context"], "type");
    assert_eq!(structured["compiled_as"]["node_kind"], "generic_type");
    let (texts, text, _) = found("Vec<$T>", "t.rs");
    assert_eq!(texts, vec!["Vec<Vec<u8>>", "Vec<u8>", "Vec<u8>", "Vec<i32>"], "{text}");
    let (texts, text, structured) = found("List[$T]", "t.py");
    assert_eq!(texts, vec!["List[int]", "List[str]"], "{text}");
    assert!(text.contains("statement context → subscript, and type context → generic_type"), "{text}");
    assert_eq!(structured["compiled_as"]["alternatives"][0]["node_kind"], "generic_type");
    let (texts, text, _) = found("Dict[$K, $V]", "t.py");
    assert_eq!(texts, vec!["Dict[str, int]"], "{text}");
    let (texts, text, _) = found("Map<$K, $V>", "t.ts");
    assert_eq!(texts, vec!["Map<string, number>", "Map<K, V>"], "{text}");
    let (texts, text, _) = found("*$T", "t.go");
    assert_eq!(texts, vec!["*T", "*Node", "*x"], "{text}");
    let (texts, text, _) = ok_types_only(&run, "*$T", "t.go");
    assert_eq!(texts, vec!["*T", "*Node"], "{text}");
    let (texts, text, _) = found("List<$T>", "T.java");
    assert_eq!(texts, vec!["List<String>", "List<Integer>"], "{text}");
}

/// `context: "type"` keeps only the type reading.
fn ok_types_only(run: &Run, pattern: &str, path: &str) -> (Vec<String>, String, Value) {
    let (text, structured) = ok(call(run, "ast_grep", json!({"pattern": pattern, "path": path, "context": "type"})));
    let texts = structured["matches"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap().to_owned()).collect();
    (texts, text, structured)
}

const MISSED_PY: &str = r#"def plain(a):
    return a

def annotated(a) -> int:
    return a

async def remote(a) -> str:
    return a

class K:
    def method(self, a) -> None:
        pass

    def other(self):
        pass
"#;

/// A pattern that leaves out a part the code has (a return annotation, `pub`) says how many
/// candidates it missed that way and what to add.
#[test]
fn missed_candidates_are_counted_with_the_part_the_pattern_lacks() {
    let dir = support::workspace_with(&[("m.py", MISSED_PY), ("lib.rs", "pub fn a() {}\nfn b() {}\npub(crate) fn c() -> u8 { 1 }\n")]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "def $F($$$A): $$$B", "path": "m.py"})));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, l)| l).collect::<Vec<_>>(), vec![1, 14], "{text}");
    assert!(
        text.contains("note: 3 `function_definition` nodes were not matched only because they have parts the pattern lacks: `return_type` (3) (e.g. m.py:4)"),
        "{text}"
    );
    assert!(
        text.contains("`return_type` of `function_definition` (3), before `:`: add `-> $RETURN_TYPE` (3; e.g. m.py:4 `-> int`)"),
        "{text}"
    );
    assert_eq!(structured["missed_candidates"]["count"], 3);
    assert_eq!(structured["missed_candidates"]["by_part"]["return_type"], 3);
    // Adding the part finds them.
    let (_, structured) = ok(call(&run, "ast_grep", json!({"pattern": "def $F($$$A) -> $R: $$$B", "path": "m.py"})));
    assert_eq!(structured["total_matches"], 3);
    // Zero matches: the hint points at the note.
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "fn $F() { $$$B }", "path": "lib.rs"})));
    assert_eq!(structured["total_matches"], 1, "{text}");
    assert_eq!(structured["missed_candidates"]["count"], 2, "{text}");
    assert!(text.contains("`visibility_modifier` (2)") && text.contains("`return_type` (1)"), "{text}");
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "fn $F() -> u16 { $$$B }", "path": "lib.rs"})));
    assert!(!text.contains("note:"), "a different return type is not a missing part: {text}");
}

/// Trial 152 M6 (rxjs): the part to add for an `extends` clause with type arguments was
/// `extends $EXTENDS_CLAUSE $EXTENDS_CLAUSE_2`, which does not parse; it is written with its
/// brackets, and the pattern with it added finds the class the note counted.
#[test]
fn a_missed_part_with_type_arguments_is_suggested_in_a_form_that_parses_and_matches() {
    let dir = support::workspace_with(&[(
        "a.ts",
        "export class Observable<T> { x?: T }\nexport class Subject<T> extends Observable<T> implements Iterable<T> {\n  y = 1\n}\n",
    )]);
    let run = run_for(dir.path());
    let (text, structured) =
        ok(call(&run, "ast_grep", json!({"pattern": "export class $C<$$$T> implements $I { $$$B }", "language": "typescript"})));
    assert_eq!(structured["missed_candidates"]["count"], 1, "{text}");
    let add = "extends $EXTENDS_CLAUSE<$$$EXTENDS_CLAUSE_2>";
    assert!(text.contains(&format!("add `{add}`")), "{text}");
    let pattern = format!("export class $C<$$$T> {add} implements $I {{ $$$B }}");
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": pattern, "language": "typescript"})));
    assert_eq!(match_lines(&structured).into_iter().map(|(_, line)| line).collect::<Vec<_>>(), vec![2], "{text}");
}

const MISSED_TS: &str = "export function plain(a: number) { return a }
export function generic<T>(a: T) { return a }
export function typed(a: number): number { return a }
export function both<T extends object>(a: T): T { return a }
export function check(a: unknown): asserts a is string { }
export function sig(a: number): number
export const notAFunction = 1
export class K {}
function local<T>(a: T) { return a }
";

/// The parts a pattern lacks are found at any depth and in every language by the grammar's
/// field names (TypeScript's nested `function_declaration` under `export_statement`, Java's
/// `throws` and modifiers, Rust's `where` clause), each with the text that includes it; adding
/// that text finds exactly the missed candidates.
#[test]
fn missed_parts_at_any_depth_and_per_language_with_the_text_to_add() {
    let dir = support::workspace_with(&[
        ("a.ts", MISSED_TS),
        ("A.java", "class A {\n    void plain(int a) { }\n    public void pub(int a) { }\n    void thrower(int a) throws Exception { }\n    <T> void generic(T a) { }\n}\n"),
        ("a.rs", "fn plain(a: u8) { }\nfn generic<T>(a: T) { }\nfn ret(a: u8) -> u8 { a }\nfn bounded<T>(a: T) where T: Copy { }\npub fn public(a: u8) { }\n"),
        ("calls.rs", "fn main() { foo(a); foo(a, b); foo(g(x)); }\n"),
    ]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "export function $F($$$P) { $$$B }", "path": "a.ts"})));
    assert_eq!(structured["total_matches"], 1, "{text}");
    let missed = &structured["missed_candidates"];
    assert_eq!(missed["count"], 4, "{text}");
    assert_eq!(missed["by_part"]["type_parameters"], 2, "{text}");
    assert_eq!(missed["by_part"]["return_type"], 3, "{text}");
    assert_eq!(missed["not_examined"], 0);
    assert!(
        text.contains(
            "`type_parameters` of `function_declaration` (2), before the parameters: add `<$$$TYPE_PARAMETERS>` (2; e.g. a.ts:2 `<T>`)"
        ),
        "{text}"
    );
    assert!(text.contains("add `: $RETURN_TYPE` (2; e.g. a.ts:3 `: number`), or add `: asserts $$$RETURN_TYPE` (1; e.g. a.ts:5"), "{text}");
    // The suggested texts find exactly the missed ones (lines 2..=5), and the overload
    // signature (line 6, another kind) is not counted.
    let mut found: Vec<u64> = Vec::new();
    for type_parameters in ["", "<$$$TYPE_PARAMETERS>"] {
        for return_type in ["", ": $RETURN_TYPE", ": asserts $$$RETURN_TYPE"] {
            if type_parameters.is_empty() && return_type.is_empty() {
                continue;
            }
            found.extend(lines_of(&run, &format!("export function $F{type_parameters}($$$P){return_type} {{ $$$B }}"), "a.ts"));
        }
    }
    found.sort_unstable();
    found.dedup();
    assert_eq!(found, vec![2, 3, 4, 5]);

    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "void $M($$$P) { $$$B }", "path": "A.java"})));
    assert_eq!(structured["missed_candidates"]["count"], 3, "{text}");
    assert!(
        text.contains("add `throws $$$THROWS`") && text.contains("add `public`") && text.contains("add `<$$$TYPE_PARAMETERS>`"),
        "{text}"
    );
    assert_eq!(lines_of(&run, "void $M($$$P) throws $$$THROWS { $$$B }", "A.java"), vec![4]);
    assert_eq!(lines_of(&run, "<$$$TYPE_PARAMETERS> void $M($$$P) { $$$B }", "A.java"), vec![5]);

    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "fn $F($$$P) { $$$B }", "path": "a.rs"})));
    assert_eq!(structured["missed_candidates"]["count"], 4, "{text}");
    assert!(text.contains("`visibility_modifier` of `function_item` (1), before `fn`: add `pub`"), "{text}");
    assert!(text.contains("add `where $$$WHERE_CLAUSE`"), "{text}");
    assert_eq!(lines_of(&run, "fn $F<$$$T>($$$P) where $$$WHERE_CLAUSE { $$$B }", "a.rs"), vec![4]);

    // A list is not a set of parts: `foo($A)` does not "miss" `foo(a, b)` by an argument.
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "foo($A)", "path": "calls.rs"})));
    assert_eq!(structured["total_matches"], 2, "{text}");
    assert!(structured["missed_candidates"].is_null(), "{text}");
}

/// The check is bounded: past `max_missed_candidates` the result says how many candidates were
/// not examined, and the counts are a lower bound.
#[test]
fn missed_parts_check_is_capped_and_says_so() {
    let dir = support::workspace_with(&[("a.ts", MISSED_TS)]);
    let mut config = runbound::RunConfig::default();
    config.structural.max_missed_candidates = 2;
    let run = Run::builder(dir.path()).with_structural().config(config).build().unwrap();
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "export function $F($$$P) { $$$B }", "path": "a.ts"})));
    // 7 unmatched `export_statement` nodes: 2 examined, 5 not.
    assert_eq!(structured["missed_candidates"]["not_examined"], 5, "{text}");
    assert!(structured["missed_candidates"]["count"].as_u64().unwrap() <= 2, "{text}");
    assert!(text.contains("stopped after 2 unmatched `export_statement` nodes (the cap); 5 more were not examined"), "{text}");
    assert!(text.contains("note: at least "), "{text}");
}

/// Occurrences of a pattern's word inside Rust macro arguments (token trees, never parsed as
/// expressions) are counted per macro and said with a rule that reaches them; in C, inside
/// `#define` bodies. A string holding the word is not counted.
#[test]
fn pattern_words_inside_macro_arguments_are_counted_and_said() {
    let dir = support::workspace_with(&[
        (
            "lib.rs",
            "fn f(s: &str) -> usize { display_width(s) }\n#[test]\nfn t() {\n    assert_eq!(display_width(\"ab\"), 2);\n    assert_eq!(display_width(\"a\"), display_width(\"b\"));\n    let v = vec![display_width(\"c\")];\n    println!(\"display_width\");\n}\nmacro_rules! width_of {\n    ($s:expr) => {\n        display_width($s)\n    };\n}\n",
        ),
        ("m.c", "#define W(s) display_width(s)\nint g(const char *s) { return display_width(s); }\n"),
    ]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "display_width($X)", "path": "lib.rs"})));
    assert_eq!(structured["total_matches"], 1, "{text}");
    let unparsed = &structured["unparsed_occurrences"];
    // A `macro_rules!` body is a template of token trees too (trial36 M3).
    assert_eq!(unparsed["occurrences"], 5, "{text}");
    assert_eq!(unparsed["by_container"]["assert_eq!"], 3, "{text}");
    assert_eq!(unparsed["by_container"]["vec!"], 1, "{text}");
    assert_eq!(unparsed["by_container"]["macro_rules! width_of body"], 1, "{text}");
    assert_eq!(unparsed["example_line"], 4, "{text}");
    assert!(
        text.contains("`display_width` also occurs 5 times in 1 file inside macro invocations or `macro_rules!` bodies (`assert_eq!` 3, `macro_rules! width_of body` 1, `vec!` 1; e.g. lib.rs:4)"),
        "{text}"
    );
    // The suggested rule reaches the three invocations and the rule (and, being a text regex,
    // the `println!` whose string holds the word, which the count leaves out).
    let (_, rule_result) = ok(call(&run, "ast_grep", json!({"rule": unparsed["rule"].clone(), "path": "lib.rs", "language": "rust"})));
    assert_eq!(match_lines(&rule_result).into_iter().map(|(_, l)| l).collect::<Vec<_>>(), vec![4, 5, 6, 7, 10]);
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "display_width($X)", "path": "m.c"})));
    assert_eq!(structured["total_matches"], 1, "{text}");
    assert_eq!(structured["unparsed_occurrences"]["by_container"]["#define"], 1, "{text}");
    // A pattern without the word in macros says nothing.
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "fn f($$$P) -> usize { $$$B }", "path": "lib.rs"})));
    assert!(structured["unparsed_occurrences"].is_null() && !text.contains("macro invocations"), "{text}");
}

/// `syntax_tree` shows cst, ast and the compiled pattern, capped and said.
#[test]
fn syntax_tree_shows_kinds_fields_lines_and_is_capped() {
    let dir = support::workspace_with(&[("a.py", "x = 1\n")]);
    let run = run_for(dir.path());
    let (text, structured) =
        ok(call(&run, "ast_grep", json!({"syntax_tree": "ast", "code": "def f(x) -> int:\n    return x\n", "language": "python"})));
    assert!(text.contains("function_definition 1:1-2:13"), "{text}");
    assert!(text.contains("return_type: type 1:13-1:16"), "{text}");
    assert!(text.contains("name: identifier 1:5-1:6 \"f\""), "{text}");
    assert!(!text.contains("\"def\""), "{text}");
    assert_eq!(structured["truncated"], false);
    let (text, _) =
        ok(call(&run, "ast_grep", json!({"syntax_tree": "cst", "code": "def f(x) -> int:\n    return x\n", "language": "python"})));
    assert!(text.contains("\"def\" 1:1-1:4") && text.contains("\"->\" 1:10-1:12"), "{text}");
    let (text, _) = ok(call(&run, "ast_grep", json!({"syntax_tree": "ast", "code": "def f(:\n", "language": "python"})));
    assert!(text.contains("parse problem") && text.contains("ERROR"), "{text}");
    let (text, _) = ok(call(&run, "ast_grep", json!({"syntax_tree": "pattern", "code": "List[$T]", "language": "python"})));
    assert!(text.contains("compiled as statement context → subscript, and type context → generic_type"), "{text}");
    assert!(text.contains("also, as type context → generic_type:"), "{text}");
    assert!(text.contains("$T (metavariable: any one named node)"), "{text}");
    let long: String = (0..500).map(|i| format!("x{i} = {i}\n")).collect();
    let (text, structured) = ok(call(&run, "ast_grep", json!({"syntax_tree": "cst", "code": long, "language": "python"})));
    assert_eq!(structured["nodes_shown"], 400);
    assert!(text.contains(&format!("showing 400 of {} nodes", structured["nodes_total"])), "{text}");
    for (args, expected) in [
        (json!({"syntax_tree": "ast", "language": "python"}), "`syntax_tree` needs `code`"),
        (json!({"syntax_tree": "ast", "code": "x"}), "`syntax_tree` needs `language`"),
        (json!({"syntax_tree": "ast", "code": "x", "language": "python", "path": "a.py"}), "takes no `path`"),
        (json!({"syntax_tree": "tree", "code": "x", "language": "python"}), "invalid_arguments"),
        (json!({"code": "x", "language": "python"}), "`code` is the snippet of `syntax_tree`"),
        (json!({"syntax_tree": "pattern", "code": "def (", "language": "python"}), "is not valid python code in any context"),
    ] {
        let (text, _) = err(call(&run, "ast_grep", args.clone()));
        assert!(text.contains(expected), "{args}: expected {expected:?} in:\n{text}");
    }
}

const EDIT_PY: &str = "def f():\n    msg = build(a)\n    return msg\n\ndef g():\n    x = build(b)\n    return x\n";

/// A rewrite that breaks the parse is refused with each file, line and replacement; with
/// `allow_parse_errors` it is staged with a warning that accept repeats.
#[test]
fn rewrites_that_break_the_parse_are_refused_unless_allowed() {
    let dir = support::workspace_with(&[("a.py", EDIT_PY), ("b.py", "y = build(c)\n")]);
    let run = run_for(dir.path());
    let (text, structured) = err(call(&run, "ast_edit", json!({"pattern": "build($A)", "rewrite": "", "language": "python"})));
    assert!(text.contains("the rewrite would break the syntax of 2 files"), "{text}");
    assert!(text.contains("a.py:3: syntax error") && text.contains("after the replacement at line 2: `build(a)` → ``"), "{text}");
    assert!(text.contains("a.py:7: syntax error") || text.contains("a.py:6: syntax error"), "{text}");
    assert!(text.contains("after the replacement at line 6: `build(b)` → ``"), "{text}");
    assert!(text.contains("b.py:"), "{text}");
    assert!(text.contains("allow_parse_errors: true"), "{text}");
    assert_eq!(structured["error"]["details"]["broken_files"].as_array().unwrap().len(), 2);
    assert_eq!(run.resource::<runbound::staged::StagedResource>().unwrap().pending_count(), 0);
    // Allowed: staged with the warning, and accept repeats it.
    let (text, structured) =
        ok(call(&run, "ast_edit", json!({"pattern": "build($A)", "rewrite": "", "language": "python", "allow_parse_errors": true})));
    assert!(text.contains("allow_parse_errors: the rewrite leaves 2 files with new parse errors"), "{text}");
    assert_eq!(structured["files_with_new_parse_errors"], 2);
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    let (text, structured) = ok(call(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"})));
    assert!(text.contains("staging warned:\nallow_parse_errors: the rewrite leaves 2 files with new parse errors"), "{text}");
    assert_eq!(structured["staging_warnings"].as_array().unwrap().len(), 1, "{structured}");
    assert_eq!(std::fs::read_to_string(dir.path().join("b.py")).unwrap(), "y = \n");
    // A rewrite that keeps the code valid says so.
    std::fs::write(dir.path().join("a.py"), EDIT_PY).unwrap();
    let (text, _) = ok(call(&run, "ast_edit", json!({"pattern": "build($A)", "rewrite": "make($A, 1)", "path": "a.py"})));
    assert!(text.contains("every rewritten file was parsed again: no new parse errors"), "{text}");
    // Nested matches skipped: accept repeats that warning too.
    let dir = support::workspace_with(&[("src/main.rs", "fn main() {\n    let v = wrap(wrap(1));\n}\n")]);
    let run = run_for(dir.path());
    ok(call(&run, "ast_edit", json!({"pattern": "wrap($X)", "rewrite": "Some($X)", "path": "src/main.rs"})));
    let (text, _) = ok(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    assert!(text.contains("staging warned:\n1 nested match inside other matches was skipped"), "{text}");
}

/// `ast_edit` with a rule: a rewrite variable one `any` branch leaves unbound is refused with
/// the match's line; a transform defines a new variable for the rewrite.
#[test]
fn ast_edit_with_rules_unbound_variables_and_transform() {
    let dir = support::workspace_with(&[("a.py", "x = build(a)\nreturn_value = 1\ny = make(b, c)\n")]);
    let run = run_for(dir.path());
    let (text, structured) = err(call(
        &run,
        "ast_edit",
        json!({"language": "python",
        "rule": {"any": [{"pattern": "build($A)"}, {"pattern": "make($A, $B)"}]}, "rewrite": "create($A, $B)"}),
    ));
    assert!(text.contains("the rewrite uses metavariables that 1 match left unbound"), "{text}");
    assert!(text.contains("a.py:1 ($B)"), "{text}");
    assert_eq!(structured["error"]["details"]["unbound"][0]["line"], 1);
    let (text, _) = err(call(&run, "ast_edit", json!({"language": "python", "rule": {"pattern": "build($A)"}, "rewrite": "create($Z)"})));
    assert!(text.contains("the rewrite uses $Z that the rule"), "{text}");
    let (text, structured) = ok(call(
        &run,
        "ast_edit",
        json!({"language": "python",
        "rule": {"pattern": "build($A)", "inside": {"kind": "assignment", "stopBy": "end"}},
        "transform": {"UPPER": {"convert": {"source": "$A", "toCase": "upperCase"}}},
        "rewrite": "build_all($UPPER)"}),
    ));
    assert_eq!(structured["replacements"], 1, "{text}");
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    ok(call(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"})));
    assert_eq!(std::fs::read_to_string(dir.path().join("a.py")).unwrap(), "x = build_all(A)\nreturn_value = 1\ny = make(b, c)\n");
}

/// Hidden, ignored and vendored paths are skipped by the same rule in ast_grep and ast_edit,
/// counted and named; `no_ignore` or a path inside them searches them.
#[test]
fn skipped_hidden_ignored_and_vendored_paths_are_counted_and_can_be_included() {
    let dir = support::workspace_with(&[
        (".gitignore", "target/\nbuild/\n"),
        ("src/a.rs", "fn a() { x.unwrap(); }\n"),
        ("build/gen.rs", "fn g() { x.unwrap(); }\n"),
        ("target/debug/out.rs", "fn g() { x.unwrap(); }\n"),
        (".hidden/h.rs", "fn h() { x.unwrap(); }\n"),
        ("node_modules/pkg/n.rs", "fn n() { x.unwrap(); }\n"),
        ("venv/pyvenv.cfg", "home = /usr\n"),
        ("venv/v.rs", "fn v() { x.unwrap(); }\n"),
        ("cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"),
        ("cache/c.rs", "fn c() { x.unwrap(); }\n"),
    ]);
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rust"})));
    assert_eq!(match_lines(&structured), vec![("src/a.rs".to_owned(), 1)], "{text}");
    assert!(text.contains("not searched: 3 directories hidden or ignored by .gitignore/.ignore (.hidden/, build/, target/)"), "{text}");
    assert!(text.contains("3 vendored directories (cache/, node_modules/, venv/;"), "{text}");
    assert!(text.contains("pass no_ignore: true, or a path inside them, to search them"), "{text}");
    assert!(!text.contains(".git/"), "{text}");
    assert_eq!(structured["stats"]["ignored_dirs"], 3);
    assert_eq!(structured["stats"]["vendored_dirs"], 3);
    let (_, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rust", "no_ignore": true})));
    assert_eq!(structured["total_matches"], 7);
    let (_, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rust", "path": "build"})));
    assert_eq!(match_lines(&structured), vec![("build/gen.rs".to_owned(), 1)]);
    let (_, structured) = ok(call(&run, "ast_grep", json!({"pattern": "$X.unwrap()", "language": "rust", "path": "node_modules"})));
    assert_eq!(match_lines(&structured), vec![("node_modules/pkg/n.rs".to_owned(), 1)]);
    // Zero matches: the hint names the skipped paths first.
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "$X.expect($M)", "language": "rust"})));
    assert!(text.contains("hint: 6 hidden, ignored or vendored paths were not searched"), "{text}");
    // ast_edit follows the same rule and says so.
    let (text, structured) =
        ok(call(&run, "ast_edit", json!({"pattern": "$X.unwrap()", "rewrite": "$X.expect(\"x\")", "language": "rust"})));
    assert_eq!(structured["files"].as_array().unwrap().len(), 1, "{text}");
    assert!(text.contains("not searched: 3 directories"), "{text}");
    let (_, structured) =
        ok(call(&run, "ast_edit", json!({"pattern": "$X.unwrap()", "rewrite": "$X.expect(\"x\")", "language": "rust", "no_ignore": true})));
    assert_eq!(structured["files"].as_array().unwrap().len(), 7);
}

/// TypeScript and TSX are two grammars: a `typescript` search passes over `.tsx` files and a
/// `tsx` search over `.ts` files, and each says how many it passed over and the language that
/// parses them (trial 17 on @tanstack/query-core: a `typescript` search said nothing of the
/// `.tsx` files it skipped). Hidden and vendored `.tsx` files are not counted as such.
#[test]
fn typescript_and_tsx_searches_name_the_files_of_the_other_grammar_they_passed_over() {
    let dir = support::workspace_with(&[
        ("src/query.ts", "export function run() { return fetchQuery(1); }\n"),
        ("src/view.tsx", "export const View = () => <div>{fetchQuery(2)}</div>;\n"),
        ("src/list.tsx", "export const List = () => <ul>{fetchQuery(3)}</ul>;\n"),
        ("node_modules/pkg/v.tsx", "export const V = () => <p>{fetchQuery(4)}</p>;\n"),
    ]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "fetchQuery($A)", "language": "typescript"})));
    assert_eq!(match_lines(&structured), vec![("src/query.ts".to_owned(), 1)], "{text}");
    assert!(
        text.contains("not searched: 2 files of the tsx grammar (src/list.tsx, src/view.tsx): the typescript grammar does not parse them; search them with language: \"tsx\""),
        "{text}"
    );
    assert_eq!(structured["stats"]["sibling_grammar_files"], 2, "{text}");
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "fetchQuery($A)", "language": "tsx"})));
    assert_eq!(structured["total_matches"], 2, "{text}");
    assert!(text.contains("not searched: 1 file of the typescript grammar (src/query.ts)"), "{text}");
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "fetchQuery($A)", "language": "javascript"})));
    assert_eq!(structured["stats"]["sibling_grammar_files"], 0, "{text}");
    assert!(!text.contains("grammar does not parse them"), "{text}");
    // Searched under a folder, the files are still named from the workspace root (trial29 M5:
    // `tests/x.tsx` was said for `src/tests/x.tsx` under `path: "src"`).
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "fetchQuery($A)", "language": "typescript", "path": "src"})));
    assert!(text.contains("not searched: 2 files of the tsx grammar (src/list.tsx, src/view.tsx)"), "{text}");
}

/// A FIFO named like a source file is never opened (it would block the walk) and is said with
/// the skipped files; `lsp` on it says it is a FIFO (issue 13 re-run: the walk skipped it
/// silently, and `lsp` called it "not a file … not a directory").
#[test]
fn a_fifo_is_counted_as_skipped_by_the_walk_and_named_by_lsp() {
    let workspace = support::workspace_with(&[("m.py", "foo(1)\n")]);
    let made = std::process::Command::new("mkfifo").arg(workspace.path().join("q.py")).status().unwrap();
    assert!(made.success());
    let run = run_for(workspace.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": "foo($X)", "language": "python"})));
    assert_eq!(match_lines(&structured), vec![("m.py".to_owned(), 1)], "{text}");
    assert!(text.contains("q.py: skipped, not a regular file (a FIFO (named pipe))"), "{text}");
    assert_eq!(structured["stats"]["unreadable_count"], 1, "{structured}");
    let lsp = Run::builder(workspace.path()).language_servers().build().unwrap();
    let (text, _) = err(lsp.call(Caller::Main, "lsp", json!({"op": "symbols", "file": "q.py"})));
    assert!(text.contains("q.py is not a regular file: it is a FIFO (named pipe)"), "{text}");
}

/// The `rule` examples of `ast_grep`'s own description find what they say on code of that shape
/// (trial46 F7: the Rust `#[test]` example used `has`, while an attribute is the sibling before
/// its item, and matched nothing). Each example is read from the description, so a broken one
/// fails here.
#[test]
fn the_rule_examples_in_the_ast_grep_description_find_their_shapes() {
    let dir = support::workspace_with(&[
        (
            "src/lib.rs",
            "pub fn f() -> i32 {\n    Some(1).unwrap()\n}\n\n#[test]\nfn t() {\n    let x = Some(2).unwrap();\n    assert_eq!(x, 2);\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn inner() {\n        Some(3).unwrap();\n    }\n}\n",
        ),
        ("app.py", "def typed() -> int:\n    return 1\n\n\ndef untyped(x):\n    return x\n"),
    ]);
    let run = run_for(dir.path());
    let description = run.tools(Caller::Main).into_iter().find(|tool| tool.name == "ast_grep").expect("ast_grep").description.clone();
    let examples: Vec<Value> = description
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .filter_map(|line| serde_json::Deserializer::from_str(line).into_iter::<Value>().next()?.ok())
        .filter(|example| example.get("rule").is_some())
        .collect();
    let expected: [(&str, Vec<(String, u64)>); 2] =
        [("rust", vec![("src/lib.rs".to_owned(), 7), ("src/lib.rs".to_owned(), 15)]), ("python", vec![("app.py".to_owned(), 5)])];
    assert_eq!(examples.len(), expected.len(), "the rule examples: {examples:?}\n{description}");
    for (example, (language, lines)) in examples.iter().zip(expected) {
        assert_eq!(example["language"], language, "{example}");
        let (text, structured) = ok(call(&run, "ast_grep", example.clone()));
        assert_eq!(match_lines(&structured), lines, "{example}\n{text}");
    }
}

/// Trial 154 M6 (marshmallow 3.21.3): `allow_none=$V` compiles as an assignment and found
/// nothing in a project with 20 such keyword arguments; the hint now gives the rule that matches
/// them, which finds every one (ground truth: the `name=` keywords in the file, counted by hand).
#[test]
fn a_python_assignment_pattern_that_finds_nothing_names_the_keyword_argument_rule() {
    let source = "def f(**kw):\n    return kw\n\n\nf(allow_none=True)\nx = f(a=1, allow_none=False)\nallow_none_default = None\n";
    let dir = support::workspace_with(&[("a.py", source)]);
    let run = run_for(dir.path());
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "allow_none=$V", "language": "python"})));
    assert!(text.starts_with("0 matches"), "{text}");
    let rule = r#"{"pattern": {"context": "f(allow_none=$V)", "selector": "keyword_argument"}}"#;
    assert!(text.contains(&format!("A Python `allow_none=$V` inside a call's parentheses is a keyword argument, not an assignment: to match those, pass the rule {rule}")), "{text}");
    let rule: Value = serde_json::from_str(rule).unwrap();
    let (text, structured) = ok(call(&run, "ast_grep", json!({"rule": rule, "language": "python"})));
    assert_eq!(match_lines(&structured), vec![("a.py".to_owned(), 5), ("a.py".to_owned(), 6)], "{text}");
    // A pattern that is no `name=value` gets no such hint.
    let (text, _) = ok(call(&run, "ast_grep", json!({"pattern": "allow_none == $V", "language": "python"})));
    assert!(!text.contains("keyword argument"), "{text}");
}

/// Trial 153 (gorilla/mux, open since): `func $F[$$$TP]($$$P) $R { $$$B }` was refused as no
/// valid Go in any context — the parser puts a MISSING constraint after the lone `$$$TP` — while
/// the ast-grep CLI accepts it. Ground truth: the CLI's matches on the same files.
#[test]
fn a_go_generic_function_pattern_with_a_type_parameter_ellipsis_matches_as_the_cli_does() {
    let Some(cli) = support::corpus::ast_grep_cli() else { return };
    let source = "package g\n\nfunc Map[T any, U any](xs []T, f func(T) U) []U {\n\tout := make([]U, 0, len(xs))\n\tfor _, x := range xs {\n\t\tout = append(out, f(x))\n\t}\n\treturn out\n}\n\nfunc Keys[K comparable, V any](m map[K]V) []K {\n\treturn nil\n}\n\nfunc Plain(x int) int {\n\treturn x\n}\n";
    let dir = support::workspace_with(&[("g.go", source)]);
    let pattern = "func $F[$$$TP]($$$P) $R { $$$B }";
    let listed = support::corpus::run(
        dir.path(),
        cli.to_str().unwrap(),
        &["run", "-p", pattern, "-l", "go", "--json=compact", "."],
        &[],
        std::time::Duration::from_secs(60),
    );
    let cli_matches: Vec<Value> = serde_json::from_str(listed.text.trim()).unwrap_or_else(|_| panic!("{}", listed.text));
    let mut cli_lines: Vec<u64> = cli_matches.iter().map(|m| m["range"]["start"]["line"].as_u64().unwrap() + 1).collect();
    cli_lines.sort_unstable();
    assert_eq!(cli_lines, vec![3, 11], "the CLI's matches");
    let run = run_for(dir.path());
    let (text, structured) = ok(call(&run, "ast_grep", json!({"pattern": pattern, "language": "go"})));
    let ours: Vec<u64> = match_lines(&structured).into_iter().map(|(_, line)| line).collect();
    assert_eq!(ours, cli_lines, "{text}");
    assert!(text.contains("$TP = T any, U any"), "{text}");
}

/// Trial 156 M5: a one-line `{ $$$B }` template puts a multi-line body on one line (as the
/// ast-grep CLI does); the result says so once and names the language's formatter. Ground truth:
/// the rewritten file's line counts, and gofmt, which lists the written Go file as unformatted
/// and restores the body's lines.
#[test]
fn ast_edit_says_once_when_a_one_line_template_collapses_multi_line_matches_and_names_the_formatter() {
    let typescript = "export function f(notifyManager: { batch(cb: () => void): void }, a: () => void, b: () => void) {\n  notifyManager.batch(() => {\n    a()\n    b()\n  })\n  notifyManager.batch(() => {\n    b()\n  })\n  notifyManager.batch(() => { a() })\n}\n";
    let go = "package p\n\nfunc Run(a func(), b func()) {\n\tdefer func() {\n\t\ta()\n\t\tb()\n\t}()\n}\n";
    let dir = support::workspace_with(&[("src/a.ts", typescript), ("p/p.go", go)]);
    let run = run_for(dir.path());
    let (text, structured) = ok(call(
        &run,
        "ast_edit",
        json!({"pattern": "notifyManager.batch(() => { $$$B })", "rewrite": "notifyManager.schedule(() => { $$$B })", "language": "typescript"}),
    ));
    assert_eq!(structured["replacements"], 3, "{text}");
    assert_eq!(
        text.matches("note: 2 replacements put a multi-line match on fewer lines (the rewrite template's layout; e.g. src/a.ts:2, 4 lines → 2) — the line breaks are the template's, not a change of the rewrite's meaning (check the rewrite itself in the diff); after accepting, run `npx prettier --write src/a.ts` to restore the project's layout").count(),
        1,
        "{text}"
    );
    ok(call(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"})));
    let written = std::fs::read_to_string(dir.path().join("src/a.ts")).unwrap();
    assert_eq!(written.lines().count(), typescript.lines().count() - 4, "{written}");
    // A rewrite that keeps the lines says nothing of formatting.
    let (text, _) = ok(call(
        &run,
        "ast_edit",
        json!({"pattern": "notifyManager.schedule($$$A)", "rewrite": "notifyManager.batch($$$A)", "language": "typescript"}),
    ));
    assert!(!text.contains("formatting only"), "{text}");
    // Go: gofmt is the convention, and the ground truth.
    let (text, _) =
        ok(call(&run, "ast_edit", json!({"pattern": "defer func() { $$$B }()", "rewrite": "defer func() { $$$B }()", "language": "go"})));
    assert!(
        text.contains("e.g. p/p.go:4, 4 lines → 3) — the line breaks are the template's, not a change of the rewrite's meaning (check the rewrite itself in the diff); after accepting, run `gofmt -w p/p.go`"),
        "{text}"
    );
    let (_, accepted) = ok(call(&run, "resolve", json!({"edit_id": "edit_3", "action": "accept"})));
    if support::require_binary("structural::ast_edit_says_once_when_a_one_line_template_collapses", "gofmt").is_some() {
        let listed = std::process::Command::new("gofmt").args(["-l", "p/p.go"]).current_dir(dir.path()).output().expect("gofmt");
        assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "p/p.go", "{accepted}");
        std::process::Command::new("gofmt").args(["-w", "p/p.go"]).current_dir(dir.path()).status().expect("gofmt -w");
        assert_eq!(std::fs::read_to_string(dir.path().join("p/p.go")).unwrap(), go);
    }
}

/// The rule a refusal of `pattern` suggests (`search it with the rule {…}`), run: the lines of
/// its matches, and the refusal's text.
fn lines_of_suggested_rule(run: &Run, pattern: &str, language: &str) -> (Vec<u64>, String) {
    let (text, _) = err(call(run, "ast_grep", json!({"pattern": pattern, "language": language})));
    let rule_text = text
        .split("search it with the rule ")
        .nth(1)
        .and_then(|rest| rest.split(" (the `rule` argument").next())
        .unwrap_or_else(|| panic!("no rule is suggested: {text}"));
    let rule: Value = serde_json::from_str(rule_text).unwrap_or_else(|error| panic!("{error}: {rule_text}"));
    let (_, structured) = ok(call(run, "ast_grep", json!({"rule": rule, "language": language})));
    (match_lines(&structured).into_iter().map(|(_, line)| line).collect(), text)
}

/// Trial 175 M6 (thiserror-impl's attr.rs): a match-arm pattern `Trait::$V => $S` is no node a
/// bare fragment parses to and was refused with only the contexts tried; the refusal now gives
/// the rule that searches it (the fragment inside a `match` as context, `match_arm` as
/// selector), and that rule finds every arm of that shape — and no other — in the file.
#[test]
fn a_refused_match_arm_pattern_names_the_rule_that_finds_the_arms() {
    let source = "enum Trait { Debug, Display, LowerHex }\n\nfn name(t: Trait) -> &'static str {\n    match t {\n        Trait::Debug => \"Debug\",\n        Trait::Display => {\n            \"Display\"\n        }\n        Trait::LowerHex => \"LowerHex\",\n    }\n}\n\nfn code(t: Option<u8>) -> u8 {\n    match t {\n        Some(x) => x,\n        None => 0,\n    }\n}\n";
    let dir = support::workspace_with(&[("src/lib.rs", source)]);
    let run = run_for(dir.path());
    let (found, text) = lines_of_suggested_rule(&run, "Trait::$V => $S", "rust");
    // Ground truth: the lines of `Trait::… =>` arms in the source.
    let expected: Vec<u64> =
        source.lines().enumerate().filter(|(_, line)| line.trim_start().starts_with("Trait::")).map(|(at, _)| at as u64 + 1).collect();
    assert_eq!(expected, vec![5, 6, 9], "an arm with a comma, a block arm without one, the last arm");
    assert_eq!(found, expected, "{text}");
    // Another language, or a fragment that is no arm: the hint does not name a match arm.
    let (text, _) = err(call(&run, "ast_grep", json!({"pattern": "fn (", "language": "rust"})));
    assert!(!text.contains("match arm"), "{text}");
}

/// Trial 174 M6 (packaging's `@typing.overload`): a decorator alone is refused too; the refusal
/// gives the rule (the decorator above a definition as context, `decorator` as selector) that
/// finds exactly the `@typing.overload` lines.
#[test]
fn a_refused_decorator_pattern_names_the_rule_that_finds_the_decorators() {
    let source = "import typing\n\n\n@typing.overload\ndef parse(x: int) -> int: ...\n@typing.overload\ndef parse(x: str) -> str: ...\ndef parse(x):\n    return x\n\n\n@staticmethod\ndef other():\n    pass\n";
    let dir = support::workspace_with(&[("m.py", source)]);
    let run = run_for(dir.path());
    let (found, text) = lines_of_suggested_rule(&run, "@typing.overload", "python");
    let expected: Vec<u64> =
        source.lines().enumerate().filter(|(_, line)| *line == "@typing.overload").map(|(at, _)| at as u64 + 1).collect();
    assert_eq!(expected, vec![4, 6]);
    assert_eq!(found, expected, "{text}");
}
