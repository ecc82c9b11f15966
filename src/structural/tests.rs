//! Unit tests of the compiler, matcher and walk below the tools (moved from `tests/it`, which
//! drives `ast_grep` / `ast_edit` / `resolve` through a run): pattern node kinds, `$$$`
//! bindings, and the literal pre-filter against the unfiltered walk on a real tree.

use std::path::Path;

use serde_json::json;

use super::compile::compile_pattern;
use super::query::Query;
use super::rule::{compile_rule, RuleInput};
use super::search::{walk_and_match, WalkLimits};
use super::tools::{match_source, match_source_with};
use super::SupportLang;

#[test]
fn dart_dispose_call_pattern_compiles_to_a_call_expression() {
    // With `tests/it/structural.rs`'s `dart_dispose_call_patterns_match_calls_not_declarations`.
    let compiled = compile_pattern("dispose(x)", SupportLang::Dart).unwrap();
    assert_eq!(compiled.node_kind, "call_expression");
}

#[test]
fn sequence_bindings_are_the_source_text_of_the_run() {
    let compiled = compile_pattern("print($$$ARGS)", SupportLang::Python).unwrap();
    let found = match_source(&compiled, "print(1, 2)\nprint()\n").unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].bindings, vec![("ARGS".to_owned(), "1, 2".to_owned())]);
    assert_eq!(found[1].bindings, vec![("ARGS".to_owned(), String::new())]);
}

#[test]
fn literal_prefilter_never_drops_a_true_match() {
    // A real tree: this crate's own dependencies' sources when present, else our own src/.
    let registry = std::env::var("HOME").map(|h| Path::new(&h).join(".cargo/registry/src")).ok();
    let tree = registry
        .and_then(|r| std::fs::read_dir(r).ok()?.flatten().next().map(|e| e.path()))
        .map(|index| index.join("ignore-0.4.35"))
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let patterns =
        ["$X.unwrap()", "Box::new($X)", "$A == $A", "$A != $B", "Some($X)", "impl $T for $U { $$$B }", "match $E { $$$ARMS }", "self.$F"];
    for pattern in patterns {
        let compiled = compile_pattern(pattern, SupportLang::Rust).unwrap();
        if pattern.contains("==") || pattern.contains("!=") {
            assert!(!compiled.requirement.is_empty(), "{pattern}: the operator token is a required literal");
        }
        let query = Query::Pattern(compiled);
        assert_prefilter_exact(&tree, &query, pattern);
    }
    let rules = [
        json!({"pattern": "$X.unwrap()", "inside": {"kind": "function_item", "stopBy": "end"}}),
        json!({"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]}),
        json!({"kind": "call_expression", "has": {"pattern": "Box::new($X)", "stopBy": "end"}, "not": {"inside": {"kind": "macro_invocation", "stopBy": "end"}}}),
        json!({"kind": "function_item", "has": {"field": "return_type", "regex": "^Result<"}}),
    ];
    for rule in rules {
        let compiled = compile_rule(RuleInput { rule: &rule, constraints: None, utils: None, transform: None }, SupportLang::Rust).unwrap();
        assert!(!compiled.requirement.is_empty(), "{rule}: has literals");
        assert_prefilter_exact(&tree, &Query::Rule(compiled), &rule.to_string());
    }
}

/// The match set over `tree` is the same with the literal pre-filter on and off.
fn assert_prefilter_exact(tree: &Path, query: &Query, what: &str) {
    let mut results = Vec::new();
    for use_literal_prefilter in [true, false] {
        let mut limits = WalkLimits::new(std::time::Instant::now() + std::time::Duration::from_secs(300));
        limits.threads = 2;
        limits.use_literal_prefilter = use_literal_prefilter;
        let (found, stats) = walk_and_match(tree, query.language(), query.requirement(), &limits, &|path, parsed| {
            let source = parsed.source().to_owned();
            let found = match_source_with(query, &source).unwrap();
            Some(found.into_iter().map(|m| (path.to_path_buf(), m.byte_range.start, m.byte_range.end)).collect::<Vec<_>>())
        });
        let mut all: Vec<_> = found.into_iter().flatten().collect();
        all.sort();
        results.push((all, stats));
    }
    let (filtered, filtered_stats) = &results[0];
    let (unfiltered, unfiltered_stats) = &results[1];
    assert_eq!(filtered, unfiltered, "{what}: pre-filter changed the match set");
    assert!(!unfiltered.is_empty() || what.contains("$A == $A"), "{what} found nothing in {}", tree.display());
    assert_eq!(unfiltered_stats.files_parsed, unfiltered_stats.files_visited);
    if !query.requirement().is_empty() {
        assert!(filtered_stats.files_parsed < unfiltered_stats.files_parsed, "{what}: the pre-filter skipped no file");
    }
}
