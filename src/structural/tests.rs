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

/// Issue 13 §1: structural search lists beneath the run's root. A target directory that is a
/// symlink to outside (as a concurrent swap can leave it) is not entered, and while a workspace
/// directory is exchanged with a symlink to outside again and again, no answer names an outside
/// file (the by-path walk named `zz_outside_only.py` as unreadable in 122 of 1,608 answers), no
/// outside content is read and the outside `.gitignore` never hides an inside file.
#[test]
fn a_directory_swapped_for_a_symlink_to_outside_is_never_walked() {
    use std::fs;
    use std::time::{Duration, Instant};
    let write = |root: &Path, relative: &str, text: &str| {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = fs::canonicalize(outside_dir.path()).unwrap();
    write(&outside, "sub/zz_outside_only.py", "print('outside')\n");
    write(&outside, "sub/f.py", "print('outside')\n");
    write(&outside, "sub/.gitignore", "f.py\n");
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    write(&root, "a.py", "print('inside a')\n");
    write(&root, "sub/f.py", "print('inside f')\n");
    std::os::unix::fs::symlink(outside.join("sub"), root.join("swap")).unwrap();
    let query = Query::Pattern(compile_pattern("print($X)", SupportLang::Python).unwrap());
    let search = |target: &Path| {
        let mut limits = WalkLimits::new(Instant::now() + Duration::from_secs(30));
        limits.confine_reads_to = Some(root.clone());
        let (found, stats) = walk_and_match(target, SupportLang::Python, query.requirement(), &limits, &|path, parsed| {
            Some((path.strip_prefix(&root).unwrap().display().to_string(), parsed.root().text().to_string()))
        });
        let mut found: Vec<(String, String)> = found;
        found.sort();
        (found, stats)
    };
    // The target itself a symlink to outside: nothing listed or named; said as not walkable.
    let (found, stats) = search(&root.join("swap"));
    assert!(found.is_empty() && stats.files_visited == 0, "{found:?} {stats:?}");
    assert_eq!(stats.unreadable.len(), 1, "{stats:?}");
    assert!(stats.unreadable[0].starts_with("swap: ") && stats.unreadable[0].contains("symlink"), "{stats:?}");
    assert!(!stats.unreadable[0].contains("outside"), "{stats:?}");
    // The whole tree with the symlink in it: the symlink is not entered.
    let (found, stats) = search(&root);
    let names: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["a.py", "sub/f.py"], "{stats:?}");
    // Exchanged again and again during the walks.
    let exchange = crate::files::test_exchange::ExchangeLoop::start(root.join("sub"), root.join("swap"));
    let started = Instant::now();
    let (mut walks, mut wrong, mut listed_f) = (0, Vec::new(), 0);
    while started.elapsed() < Duration::from_millis(1500) || walks == 0 {
        walks += 1;
        let (found, stats) = search(&root);
        let said = format!("{found:?} {:?}", stats.unreadable);
        if said.contains("outside") {
            wrong.push(said);
        }
        // Whichever of sub/ and swap/ was the directory when listed shows the inside f.py.
        listed_f += found.iter().filter(|(name, _)| name.ends_with("f.py")).count();
    }
    let swaps = exchange.finish();
    assert!(swaps > 0 && listed_f > 0, "{swaps} swaps, {walks} walks, f.py found {listed_f} times");
    assert!(wrong.is_empty(), "{} of {walks} walks named or read outside files, e.g. {}", wrong.len(), wrong[0]);
}
