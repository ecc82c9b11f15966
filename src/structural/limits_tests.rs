//! Bounded matching on hostile rules and big inputs (issue 13, harden22): the rule evaluator's
//! memo, sibling pass, step budget and stack guard, the rule size limits, and the evaluator's
//! agreement with ast-grep-config's own `RuleCore` on ordinary rules over a real tree.
//!
//! No timing assertions: each test gives a step budget that the unbounded evaluation would
//! exceed by orders of magnitude, and asserts the answer (not cut, the exact matches) or the
//! cut (named, with the matches found before it kept).

use std::path::Path;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use serde_json::{json, Value};

use super::evaluate::{CutReason, MatchBudget};
use super::query::{scan_file, Query};
use super::rule::{compile_rule, RuleInput, MAX_RULE_BYTES, MAX_RULE_DEPTH, MAX_RULE_UTILS};
use super::tools::match_source_within;
use super::SupportLang;

fn rule_query(rule: Value, utils: Option<Value>, language: SupportLang) -> Query {
    let compiled = compile_rule(RuleInput { rule: &rule, constraints: None, utils: utils.as_ref(), transform: None }, language)
        .unwrap_or_else(|err| panic!("{rule}: {err}"));
    Query::Rule(compiled)
}

fn budget(steps: u64) -> MatchBudget {
    MatchBudget { deadline: None, cancel: None, max_steps_per_file: steps }
}

/// `let x = [[…[]…]];` with `depth` nested arrays, the innermost holding `inner`.
fn nested_rust_arrays(depth: usize, inner: &str) -> String {
    format!("fn f() {{ let x = {}{inner}{}; }}\n", "[".repeat(depth), "]".repeat(depth))
}

/// Finding 1: a utility that recurses through `has` twice is exponential in the nesting depth
/// without memo (2^40 evaluations here); memoised it takes a few steps per node.
#[test]
fn a_utility_recursing_through_has_twice_is_memoised() {
    let utils = json!({"u": {"any": [
        {"kind": "integer_literal"},
        {"has": {"matches": "u"}},
        {"all": [{"kind": "array_expression"}, {"has": {"matches": "u"}}]},
    ]}});
    let query = rule_query(json!({"kind": "array_expression", "not": {"matches": "u"}}), Some(utils), SupportLang::Rust);
    // 40 arrays with no integer inside, then 3 arrays around an integer.
    let source = format!("{}{}", nested_rust_arrays(40, ""), nested_rust_arrays(3, "1"));
    let (matches, cut) = match_source_within(&query, &source, &budget(200_000)).unwrap();
    assert_eq!(cut, None, "memoised, the rule fits the budget");
    assert_eq!(matches.len(), 40, "every array of the integer-free nest, none of the other");
    assert!(matches.iter().all(|m| m.start_line == 1));
}

/// Finding 2: `has` chained three deep with `stopBy: end` is cubic in the nesting depth without
/// memo; memoised, linear. The answer is checked against the count computed by hand: an array
/// matches when two more arrays nest below it (the third `has` needs the integer below those).
#[test]
fn chained_has_stop_by_end_is_linear() {
    let depth = 400;
    let rule = json!({"kind": "array_expression", "has": {"stopBy": "end", "kind": "array_expression",
        "has": {"stopBy": "end", "kind": "array_expression", "has": {"stopBy": "end", "kind": "integer_literal"}}}});
    let query = rule_query(rule.clone(), None, SupportLang::Rust);
    let source = nested_rust_arrays(depth, "1");
    let (matches, cut) = match_source_within(&query, &source, &budget(100_000)).unwrap();
    assert_eq!(cut, None);
    assert_eq!(matches.len(), depth - 2);
    // The same with `inside`: an array matches when two arrays enclose it.
    let inside = rule_query(
        json!({"kind": "array_expression", "inside": {"stopBy": "end", "kind": "array_expression",
            "inside": {"stopBy": "end", "kind": "array_expression"}}}),
        None,
        SupportLang::Rust,
    );
    let (matches, cut) = match_source_within(&inside, &source, &budget(100_000)).unwrap();
    assert_eq!(cut, None);
    assert_eq!(matches.len(), depth - 2);
    // And ast-grep's own evaluator agrees on a depth it can afford.
    assert_same_as_rule_core(&rule, None, &nested_rust_arrays(30, "1"), SupportLang::Rust);
}

/// Finding 3: `follows` / `precedes` with `stopBy: end` over a flat file are one pass over the
/// siblings, not a scan of the earlier siblings per node.
#[test]
fn follows_and_precedes_stop_by_end_are_one_pass() {
    let statements = 5_000;
    let source: String = (0..statements).map(|i| format!("let a{i} = {i};\n")).collect();
    let follows = rule_query(
        json!({"kind": "lexical_declaration", "follows": {"stopBy": "end", "pattern": "let a0 = 0;"}}),
        None,
        SupportLang::JavaScript,
    );
    let (matches, cut) = match_source_within(&follows, &source, &budget(200_000)).unwrap();
    assert_eq!(cut, None);
    assert_eq!(matches.len(), statements - 1, "every declaration but the first follows it");
    let precedes = rule_query(
        json!({"kind": "lexical_declaration", "precedes": {"stopBy": "end", "pattern": "let a10 = 10;"}}),
        None,
        SupportLang::JavaScript,
    );
    let (matches, cut) = match_source_within(&precedes, &source, &budget(200_000)).unwrap();
    assert_eq!(cut, None);
    assert_eq!(matches.len(), 10, "a0 … a9 precede a10");
    assert_eq!(matches[9].start_line, 10);
}

/// Finding 4: one file's match stops when its budget runs out, says why, and keeps the matches
/// it completed before (a prefix of the full answer, in the same order).
#[test]
fn a_cut_match_says_why_and_keeps_the_matches_found_before() {
    // A rule with a metavariable (not memoised) and a quadratic relation.
    let rule = json!({"pattern": "let $A = $B;", "follows": {"stopBy": "end", "pattern": "let $C = 0;"}});
    let query = rule_query(rule, None, SupportLang::JavaScript);
    let source: String = (0..400).map(|i| format!("let a{i} = {i};\n")).collect();
    let (all, cut) = match_source_within(&query, &source, &MatchBudget::unlimited()).unwrap();
    assert_eq!(cut, None);
    assert_eq!(all.len(), 399);
    let (partial, cut) = match_source_within(&query, &source, &budget(20_000)).unwrap();
    assert_eq!(cut, Some(CutReason::StepBudget));
    assert!(!partial.is_empty() && partial.len() < all.len(), "{} of {}", partial.len(), all.len());
    for (kept, full) in partial.iter().zip(&all) {
        assert_eq!((kept.byte_range.clone(), &kept.bindings), (full.byte_range.clone(), &full.bindings));
    }
    // A cancelled call stops within the file too.
    let cancel = crate::registry::CancelToken::new();
    cancel.cancel();
    let cancelled = MatchBudget { deadline: None, cancel: Some(cancel), max_steps_per_file: u64::MAX };
    let (_, cut) = match_source_within(&query, &source, &cancelled).unwrap();
    assert_eq!(cut, Some(CutReason::Cancelled));
    // So does a pattern query (one step per node tried).
    let pattern = Query::Pattern(super::compile::compile_pattern("$X", SupportLang::JavaScript).unwrap());
    let (found, cut) = match_source_within(&pattern, &source, &budget(500)).unwrap();
    assert_eq!(cut, Some(CutReason::StepBudget));
    assert!(!found.is_empty());
}

/// Finding 6: a file keeps at most `keep_matches` matches and counts the rest.
#[test]
fn matches_past_the_per_file_cap_are_counted_not_kept() {
    let source: String = (0..300).map(|i| format!("let a{i} = {i};\n")).collect();
    let parsed = AstGrep::<StrDoc<SupportLang>>::try_new(&source, SupportLang::JavaScript).unwrap();
    let query = Query::Pattern(super::compile::compile_pattern("$X", SupportLang::JavaScript).unwrap());
    let everything = scan_file(&parsed, &query, None, &MatchBudget::unlimited(), usize::MAX);
    let capped = scan_file(&parsed, &query, None, &MatchBudget::unlimited(), 50);
    assert_eq!(capped.matches.len(), 50);
    assert_eq!(capped.matches.len() + capped.matches_not_kept, everything.matches.len());
    let first: Vec<_> = everything.matches.iter().take(50).map(|m| m.range()).collect();
    assert_eq!(capped.matches.iter().map(|m| m.range()).collect::<Vec<_>>(), first);
}

/// Finding 8: recursion through a utility on a 10,000-deep source never overflows: on a plain
/// 2 MiB thread, and on a 64 MiB one (the serve call stacks), the stack guard cuts the match with
/// a named reason, or it completes; a 300-deep source completes on the 64 MiB thread with the
/// right answer.
#[test]
fn deep_recursion_through_utilities_is_cut_by_the_stack_guard_not_an_abort() {
    // `$N` makes the utility bind a metavariable: no memo, the recursion is as deep as the source.
    let utils = json!({"u": {"any": [{"pattern": "$N", "kind": "number"}, {"has": {"matches": "u"}}]}});
    let rule = json!({"kind": "array", "matches": "u"});
    let run = move |stack: usize, depth: usize| {
        let (rule, utils) = (rule.clone(), utils.clone());
        let source = format!("{}1{};\n", "[".repeat(depth), "]".repeat(depth));
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || {
                let query = rule_query(rule, Some(utils), SupportLang::JavaScript);
                let (matches, cut) = match_source_within(&query, &source, &MatchBudget::unlimited()).unwrap();
                (matches.len(), cut)
            })
            .unwrap()
            .join()
            .expect("no stack overflow, no panic")
    };
    let (_, cut) = run(2 * 1024 * 1024, 10_000);
    assert_eq!(cut, Some(CutReason::NestingTooDeep));
    assert!(CutReason::NestingTooDeep.describe().contains("nests too deeply"));
    let (count, cut) = run(crate::serve::SERVE_CALL_STACK_BYTES, 10_000);
    assert!(cut == Some(CutReason::NestingTooDeep) || (cut.is_none() && count == 10_000), "{cut:?} {count}");
    let (count, cut) = run(crate::serve::SERVE_CALL_STACK_BYTES, 300);
    assert_eq!(cut, None);
    assert_eq!(count, 300, "every array holds the number");
}

/// harden23 item 3: `nthChild` with `ofRule` is evaluated by the bounded evaluator, not by
/// ast-grep's leaf, which runs `ofRule` on every sibling of every node tried without a budget.
/// Here `ofRule` reaches a utility that recurses through `has` twice: 2^40 evaluations in
/// ast-grep on 40 nested arrays (hours); memoised, a few steps per node. Ground truth: ast-grep's
/// own `RuleCore` at a depth it can afford, and the count by hand (each array of the
/// integer-free nest is the first named child of its parent that holds no integer, except the
/// outermost, which comes after `x`).
#[test]
fn nth_child_of_rule_runs_within_the_budget() {
    let utils = json!({"u": {"any": [
        {"kind": "integer_literal"},
        {"has": {"matches": "u"}},
        {"all": [{"kind": "array_expression"}, {"has": {"matches": "u"}}]},
    ]}});
    let rule = json!({"kind": "array_expression", "nthChild": {"position": 1, "ofRule": {"not": {"matches": "u"}}}});
    let shallow = format!("{}{}", nested_rust_arrays(8, ""), nested_rust_arrays(3, "1"));
    assert_eq!(assert_same_as_rule_core(&rule, Some(&utils), &shallow, SupportLang::Rust), 7);
    let query = rule_query(rule, Some(utils), SupportLang::Rust);
    let deep = format!("{}{}", nested_rust_arrays(40, ""), nested_rust_arrays(3, "1"));
    let (matches, cut) = match_source_within(&query, &deep, &budget(200_000)).unwrap();
    assert_eq!(cut, None, "memoised, the rule fits the budget");
    assert_eq!(matches.len(), 39);

    // The same utility binding `$N`: no memo, exponential; the step budget cuts it, named.
    let binding = json!({"u": {"any": [
        {"pattern": "$N", "kind": "integer_literal"},
        {"has": {"matches": "u"}},
        {"all": [{"kind": "array_expression"}, {"has": {"matches": "u"}}]},
    ]}});
    let rule = json!({"kind": "array_expression", "nthChild": {"position": 1, "ofRule": {"not": {"matches": "u"}}}});
    assert_eq!(assert_same_as_rule_core(&rule, Some(&binding), &shallow, SupportLang::Rust), 7);
    let query = rule_query(rule, Some(binding), SupportLang::Rust);
    let (_, cut) = match_source_within(&query, &deep, &budget(200_000)).unwrap();
    assert_eq!(cut, Some(CutReason::StepBudget));
}

/// `nthChild` read by the evaluator gives ast-grep's positions: numbers, `An+B` formulas,
/// `reverse`, and `ofRule` (with bindings, and relational, whose returned node is another one).
#[test]
fn nth_child_positions_agree_with_rule_core() {
    let source = "f(1, a, 2, b, 3, 4, c, 5);\ng(x, 7);\nh(8);\n";
    let rules = [
        json!({"kind": "number", "nthChild": 3}),
        json!({"kind": "number", "nthChild": "2n+1"}),
        json!({"kind": "number", "nthChild": "-n+3"}),
        json!({"kind": "number", "nthChild": " 3n - 1 "}),
        json!({"kind": "number", "nthChild": "n"}),
        json!({"kind": "number", "nthChild": {"position": "2n", "reverse": true}}),
        json!({"kind": "number", "nthChild": {"position": 2, "ofRule": {"kind": "number"}}}),
        json!({"kind": "number", "nthChild": {"position": "2n+1", "ofRule": {"kind": "number"}, "reverse": true}}),
        json!({"pattern": "$N", "kind": "number", "nthChild": {"position": 2, "ofRule": {"pattern": "$M"}}}),
        json!({"kind": "identifier", "nthChild": {"position": 1, "ofRule": {"follows": {"kind": "number"}}}}),
        json!({"kind": "arguments", "has": {"kind": "number", "nthChild": 1}}),
    ];
    let counts: Vec<usize> = rules.iter().map(|rule| assert_same_as_rule_core(rule, None, source, SupportLang::JavaScript)).collect();
    assert_eq!(counts[1], 4, "1, 2, 3 (positions 1, 3, 5 of f's arguments) and 8 (h's first)");
    assert!(counts.iter().filter(|count| **count > 0).count() >= rules.len() - 1, "{counts:?}");
}

/// `follows` / `precedes` walk siblings as ast-grep does around empty (MISSING) nodes and at
/// the root: from the first child that ends after the node's start (tree-sitter's
/// `goto_first_child_for_byte`), so a MISSING `}` at the end of a block follows nothing, and
/// the root's "siblings" are its own children (found by `fuzz_targets/rule_evaluator.rs`).
#[test]
fn sibling_relations_agree_with_rule_core_around_missing_nodes_and_the_root() {
    let cases = [
        (json!({"follows": {"stopBy": "end", "pattern": "let a = 0;"}}), "{ let a = 0;", SupportLang::TypeScript),
        (json!({"follows": {"pattern": "let a = 0;"}}), "{ let a = 0;", SupportLang::TypeScript),
        (json!({"follows": {"stopBy": {"kind": "number"}, "kind": "lexical_declaration"}}), "{ let a = 0;", SupportLang::TypeScript),
        (json!({"precedes": {"stopBy": "end", "pattern": "let a = 0;"}}), "x;\nlet a = 0;", SupportLang::TypeScript),
        (json!({"precedes": {"stopBy": "end", "kind": "identifier"}}), "let x = {a: 1 b: 2", SupportLang::TypeScript),
        (json!({"precedes": {"stopBy": {"kind": "number"}, "kind": "number"}}), "if (a { b(1 2 3 ", SupportLang::TypeScript),
        (json!({"follows": {"stopBy": "end", "has": {"kind": "identifier"}}}), "def f(a:\n  x = [1, 2\n", SupportLang::Python),
        // tree-sitter's `goto_previous_sibling` gives the `let` read as an `identifier` back as
        // the `let` token when the walk starts at the ERROR after it (session 30's finding).
        (json!({"follows": {"stopBy": "end", "pattern": "let"}}), "n\":\"}\0=let a=0", SupportLang::TypeScript),
        (json!({"follows": {"stopBy": {"kind": "string"}, "pattern": "let"}}), "n\":\"}\0=let a=0", SupportLang::TypeScript),
    ];
    let counts: Vec<usize> = cases.iter().map(|(rule, source, language)| assert_same_as_rule_core(rule, None, source, *language)).collect();
    // The MISSING `}` follows nothing through a walk (0), but its tree-sitter `prev_sibling`
    // is the declaration (1); the root precedes its own later children: `x;` and the program.
    assert_eq!(counts, [0, 1, 0, 2, 5, 8, 5, 2, 2]);
}

/// A parameterized utility call (`matches: {util: {ARG: rule}}`) needs a global utility with
/// `arguments`, which a tool call cannot declare: it is refused at compile, so no rule reaches
/// ast-grep's unbounded `RuleCore` through it.
#[test]
fn a_parameterized_utility_call_is_refused_before_matching() {
    let utils = json!({"u": {"kind": "identifier"}});
    let rule = json!({"matches": {"u": {"ARG": {"kind": "number"}}}});
    let err = compile_rule(RuleInput { rule: &rule, constraints: None, utils: Some(&utils), transform: None }, SupportLang::JavaScript)
        .unwrap_err();
    assert!(err.path.starts_with("rule"), "{err}");
}

/// Finding 7: rules over the size, depth or utility-count limits are refused with the limit
/// and the next step; a rule at the depth limit compiles.
#[test]
fn oversized_rules_are_refused_naming_the_limit() {
    let compile = |rule: &Value, utils: Option<&Value>| {
        compile_rule(RuleInput { rule, constraints: None, utils, transform: None }, SupportLang::Rust)
    };
    let mut deep = json!({"kind": "identifier"});
    for _ in 0..MAX_RULE_DEPTH + 1 {
        deep = json!({"kind": "block", "has": deep});
    }
    let err = compile(&deep, None).unwrap_err();
    assert!(err.message.contains(&format!("nest more than {MAX_RULE_DEPTH} deep")), "{err}");
    assert!(err.path.starts_with("rule.has.has"), "{}", err.path);
    assert!(err.hint.contains("stopBy"), "{}", err.hint);
    let mut at_limit = json!({"kind": "identifier"});
    for _ in 0..MAX_RULE_DEPTH - 1 {
        at_limit = json!({"kind": "block", "has": at_limit});
    }
    assert!(compile(&at_limit, None).is_ok());

    let many: Vec<Value> = (0..MAX_RULE_BYTES / 20).map(|i| json!({"regex": format!("^name_{i}$")})).collect();
    let err = compile(&json!({"any": many}), None).unwrap_err();
    assert!(err.message.contains(&format!("over {MAX_RULE_BYTES} bytes")), "{err}");
    assert!(err.hint.contains("utils"), "{}", err.hint);

    let utils: serde_json::Map<String, Value> = (0..=MAX_RULE_UTILS).map(|i| (format!("u{i}"), json!({"kind": "identifier"}))).collect();
    let err = compile(&json!({"matches": "u0"}), Some(&Value::Object(utils))).unwrap_err();
    assert_eq!(err.path, "utils");
    assert!(err.message.contains(&format!("at most {MAX_RULE_UTILS}")), "{err}");
}

/// The evaluator gives exactly what ast-grep-config's `RuleCore` gives (node ranges and
/// bindings) for ordinary rules over a real tree: this crate's dependency `ignore` when its
/// sources are present, else our own `src/structural`.
#[test]
fn the_evaluator_agrees_with_rule_core_on_ordinary_rules() {
    let registry = std::env::var("HOME").map(|h| Path::new(&h).join(".cargo/registry/src")).ok();
    let tree = registry
        .and_then(|r| std::fs::read_dir(r).ok()?.flatten().next().map(|e| e.path()))
        .map(|index| index.join("ignore-0.4.35/src"))
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src/structural"));
    let rules = [
        (json!({"pattern": "$X.unwrap()", "inside": {"kind": "function_item", "stopBy": "end"}}), None),
        (json!({"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]}), None),
        (json!({"kind": "call_expression", "not": {"inside": {"kind": "macro_invocation", "stopBy": "end"}}}), None),
        (json!({"kind": "function_item", "has": {"field": "return_type", "regex": "^Result<"}}), None),
        (json!({"kind": "let_declaration", "follows": {"kind": "let_declaration"}}), None),
        (json!({"kind": "let_declaration", "precedes": {"stopBy": "end", "kind": "expression_statement"}}), None),
        (json!({"kind": "let_declaration", "follows": {"stopBy": {"kind": "expression_statement"}, "pattern": "let $A = $B;"}}), None),
        (json!({"kind": "identifier", "inside": {"kind": "call_expression", "stopBy": {"kind": "block"}}}), None),
        (json!({"kind": "if_expression", "has": {"kind": "return_expression", "stopBy": {"kind": "closure_expression"}}}), None),
        (json!({"pattern": "$A.$M($$$ARGS)", "has": {"stopBy": "end", "pattern": "$A"}}), None),
        (
            json!({"kind": "function_item", "has": {"stopBy": "end", "matches": "returns-err"}}),
            Some(json!({"returns-err": {"pattern": "return Err($E)"}})),
        ),
        (
            json!({"kind": "block", "matches": "deep"}),
            Some(json!({"deep": {"any": [{"kind": "match_expression"}, {"has": {"matches": "deep"}}]}})),
        ),
        (json!({"kind": "identifier", "inside": {"field": "function", "kind": "call_expression"}}), None),
        (json!({"kind": "closure_expression", "nthChild": 1}), None),
    ];
    let mut files = Vec::new();
    collect_rust_files(&tree, &mut files);
    assert!(files.len() >= 5, "{}", tree.display());
    for (rule, utils) in &rules {
        let mut total = 0;
        for file in &files {
            let source = std::fs::read_to_string(file).unwrap();
            total += assert_same_as_rule_core(rule, utils.as_ref(), &source, SupportLang::Rust);
        }
        assert!(total > 0, "{rule}: matches somewhere in {}", tree.display());
    }
}

fn collect_rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Asserts the evaluator's matches equal `RuleCore`'s (ranges and every binding); the count.
fn assert_same_as_rule_core(rule: &Value, utils: Option<&Value>, source: &str, language: SupportLang) -> usize {
    use ast_grep_core::Matcher as _;
    let compiled = compile_rule(RuleInput { rule, constraints: None, utils, transform: None }, language).unwrap();
    let metavariables = compiled.metavariables.clone();
    let parsed = AstGrep::<StrDoc<SupportLang>>::try_new(source, language).unwrap();
    let kinds = compiled.core.potential_kinds();
    let expected: Vec<_> = parsed
        .root()
        .dfs()
        .filter(|node| kinds.as_ref().is_none_or(|k| k.contains(node.kind_id().into())))
        .filter_map(|node| ast_grep_core::matcher::MatcherExt::match_node(&compiled.core, node))
        .map(|m| describe(&m, &metavariables, source))
        .collect();
    let query = Query::Rule(compiled);
    let scan = scan_file(&parsed, &query, None, &MatchBudget::unlimited(), usize::MAX);
    assert_eq!(scan.cut, None);
    let found: Vec<_> = scan.matches.iter().map(|m| describe(m, &metavariables, source)).collect();
    assert_eq!(found, expected, "{rule}");
    found.len()
}

fn describe(found: &ast_grep_core::NodeMatch<'_, StrDoc<SupportLang>>, metavariables: &[String], source: &str) -> String {
    let bindings: Vec<String> =
        metavariables.iter().map(|name| format!("{name}={:?}", super::query::binding_text(found.get_env(), name, source))).collect();
    format!("{:?} {}", found.range(), bindings.join(" "))
}
