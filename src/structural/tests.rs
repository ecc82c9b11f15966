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

/// R-AST-5, issue 13 (fuzz timeout): `$$$:` repeated 46 times is 46 nested C++ labels, each a node right
/// after a `$$$`; ast-grep matches every such node twice, so matching the fragment against
/// itself took 2^46 steps and never finished. The fuzz target's input was the selector byte
/// `Y` (C++, declaration context) and that fragment: now it is refused before any matching,
/// with the count, the limit and what to do instead.
#[test]
fn deeply_nested_multi_metavariables_are_refused_with_count_limit_and_next_step() {
    use super::compile::{compile_pattern_in_context, multi_metavariable_nesting, MAX_MULTI_METAVARIABLE_NESTING};
    use super::contexts::language_contexts;
    let languages = SupportLang::all_langs();
    let selector = b'Y' as usize;
    let language = languages[selector % languages.len()];
    assert_eq!(language, SupportLang::Cpp);
    let contexts = language_contexts(language).contexts;
    let context = contexts[(selector / languages.len()) % (contexts.len() + 1)].kind;
    let fuzz_input = "$$$:".repeat(46);
    for compiled in [compile_pattern_in_context(&fuzz_input, language, Some(context)), compile_pattern(&fuzz_input, language)] {
        let error = compiled.unwrap_err();
        assert!(error.message.starts_with("the pattern `$$$:$$$:$$$:"), "{error}");
        assert!(error.message.contains("46 levels deep"), "{error}");
        assert!(error.message.contains(&format!("at most {MAX_MULTI_METAVARIABLE_NESTING} are accepted")), "{error}");
        assert!(error.hint.contains("\"has\"") && error.hint.contains("`$A`"), "{}", error.hint);
        assert!(error.attempts.is_empty(), "refused, not a parse failure: {error}");
    }
    // The limit itself: one level more is refused, the limit compiles and matches itself.
    let at_limit = "$$$:".repeat(MAX_MULTI_METAVARIABLE_NESTING);
    let compiled = compile_pattern_in_context(&at_limit, language, Some(context)).unwrap();
    assert_eq!(multi_metavariable_nesting(&compiled.pattern.node), MAX_MULTI_METAVARIABLE_NESTING);
    assert_eq!(match_source(&compiled, &at_limit).unwrap().len(), 1);
    let over = "$$$:".repeat(MAX_MULTI_METAVARIABLE_NESTING + 1);
    let error = compile_pattern_in_context(&over, language, Some(context)).unwrap_err();
    assert!(error.message.contains(&format!("{} levels deep", MAX_MULTI_METAVARIABLE_NESTING + 1)), "{error}");
    // Ruby commands nest the same way (`$$$ $$$ $$$ …`); a flat list of `$$$` does not nest.
    let ruby = compile_pattern(&"$$$ ".repeat(46), SupportLang::Ruby).unwrap_err();
    assert!(ruby.message.contains("levels deep") && ruby.message.contains("at most 6"), "{ruby}");
    let flat_pattern = format!("f({})", vec!["$$$"; 46].join(", "));
    let flat = compile_pattern(&flat_pattern, SupportLang::Cpp).unwrap();
    assert_eq!(multi_metavariable_nesting(&flat.pattern.node), 0);
    assert_eq!(match_source(&flat, &format!("void g() {{ f({}); }}", vec!["x"; 100].join(", "))).unwrap().len(), 1);
}

/// How [`super::compile::multi_metavariable_nesting`] counts: nodes with children right after
/// a `$$$` (unnamed tokens skipped), along one path.
#[test]
fn multi_metavariable_nesting_counts_nodes_after_a_multi_metavariable() {
    use super::compile::multi_metavariable_nesting;
    let depth = |pattern: &str, language| multi_metavariable_nesting(&compile_pattern(pattern, language).unwrap().pattern.node);
    assert_eq!(depth("foo($$$ARGS)", SupportLang::Python), 0);
    assert_eq!(depth("fn $F($$$P) { $$$B }", SupportLang::Rust), 0);
    assert_eq!(depth("f($$$A, g($X))", SupportLang::JavaScript), 1);
    assert_eq!(depth("if ($A) { $$$ if ($B) { $$$ return $X; } }", SupportLang::JavaScript), 2);
    assert_eq!(depth(&nested_python_if_pattern(5), SupportLang::Python), 5);
    assert_eq!(depth("class $C:\n    $$$\n    def $M(self):\n        $$$\n        return $X", SupportLang::Python), 2);
}

/// `if $C0:` / `$$$` / `if $C1:` … nested `levels` deep around `raise $E`: `levels` nested
/// nodes right after a `$$$` (each inner `if` and the `raise`).
fn nested_python_if_pattern(levels: usize) -> String {
    let mut lines = Vec::new();
    for level in 0..levels {
        let indent = "    ".repeat(level);
        lines.push(format!("{indent}if $C{level}:"));
        lines.push(format!("{indent}    $$$"));
    }
    lines.push(format!("{}raise $E", "    ".repeat(levels)));
    lines.join("\n")
}

/// Rules compile `pattern:` strings and `{context, selector}` objects themselves (ast-grep's
/// bare reading): the same limit holds there, wherever the pattern sits in the rule.
#[test]
fn rules_refuse_deeply_nested_multi_metavariables_at_their_path() {
    let deep = "$$$:".repeat(46);
    let rules = [
        (json!({"pattern": deep}), "rule.pattern"),
        (json!({"kind": "function_definition", "has": {"pattern": deep, "stopBy": "end"}}), "rule.has.pattern"),
        (
            json!({"any": [{"kind": "labeled_statement"}, {"pattern": {"context": deep, "selector": "labeled_statement"}}]}),
            "rule.any[1].pattern",
        ),
    ];
    for (rule, path) in rules {
        let error = compile_rule(RuleInput { rule: &rule, constraints: None, utils: None, transform: None }, SupportLang::Cpp).unwrap_err();
        assert_eq!(error.path, path, "{error}");
        assert!(error.message.contains("46 levels deep") && error.message.contains("at most 6"), "{error}");
        assert!(error.hint.contains("\"has\""), "{}", error.hint);
    }
    let within = json!({"pattern": nested_python_if_pattern(3)});
    compile_rule(RuleInput { rule: &within, constraints: None, utils: None, transform: None }, SupportLang::Python).unwrap();
}

/// A pattern at the limit against the worst source for it, a file where every function is a
/// match (each nested `if` probed, then matched again): it completes (a thread that fails the
/// test only after 60 s), finds exactly the generated matches, and costs a bounded multiple of
/// a one-level pattern on the same text (2^6 = 64 in theory; the parse dominates).
#[test]
fn pattern_at_the_nesting_limit_matches_a_nested_source_in_bounded_time() {
    use super::compile::MAX_MULTI_METAVARIABLE_NESTING;
    use std::time::{Duration, Instant};
    // Shaped like fastjsonschema's generated validators (setuptools): nested checks, a
    // statement before each nested `if`, a `raise` at the bottom.
    let functions = 300;
    let mut source = String::new();
    for function in 0..functions {
        source.push_str(&format!("def validate_{function}(data):\n"));
        for level in 0..MAX_MULTI_METAVARIABLE_NESTING {
            let indent = "    ".repeat(level + 1);
            source.push_str(&format!("{indent}if isinstance(data, dict) and \"k{level}\" in data:\n"));
            source.push_str(&format!("{indent}    data = data[\"k{level}\"]\n"));
        }
        let indent = "    ".repeat(MAX_MULTI_METAVARIABLE_NESTING + 1);
        source.push_str(&format!("{indent}raise ValueError(\"data must be valid at {function}\")\n    return data\n\n"));
    }
    let deep = compile_pattern(&nested_python_if_pattern(MAX_MULTI_METAVARIABLE_NESTING), SupportLang::Python).unwrap();
    let shallow = compile_pattern("if $C:\n    $$$\n    raise $E", SupportLang::Python).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let time = |compiled: &super::CompiledPattern| {
            let started = Instant::now();
            let found = match_source(compiled, &source).unwrap();
            (found, started.elapsed())
        };
        let _ = sender.send((time(&shallow), time(&deep)));
    });
    let ((shallow_found, shallow_time), (deep_found, deep_time)) =
        receiver.recv_timeout(Duration::from_secs(60)).expect("matching at the nesting limit took over 60 s");
    assert_eq!(deep_found.len(), functions);
    assert!(deep_found.iter().all(|m| m.text.starts_with("if isinstance(data, dict) and \"k0\"")), "{:?}", deep_found[0].text);
    // The one-level pattern finds the innermost `if` of each function.
    assert_eq!(shallow_found.len(), functions);
    let ratio = deep_time.as_secs_f64() / shallow_time.as_secs_f64().max(1e-6);
    assert!(ratio < 256.0, "depth {MAX_MULTI_METAVARIABLE_NESTING} took {deep_time:?}, one level {shallow_time:?}: {ratio:.1}x");
}

/// The missed-candidates tally of `pattern` (Rust) over `source`, and the note `ast_grep` writes
/// for it, as the tool's scan computes them.
fn rust_missed_note(pattern: &str, source: &str) -> (usize, super::missed::MissedParts, Option<String>) {
    let compiled = compile_pattern(pattern, SupportLang::Rust).unwrap();
    let probe = super::missed::MissedPartsProbe::new(&compiled);
    let parsed = super::search::ParsedFile::try_new(source, SupportLang::Rust).unwrap();
    let query = Query::Pattern(compiled);
    let scan = super::query::scan_file(&parsed, &query, probe.as_ref(), &super::evaluate::MatchBudget::unlimited(), usize::MAX);
    let mut missed = scan.missed;
    missed.set_path("src/lib.rs");
    let note = super::tools::missed_note(&missed, &query);
    (scan.matches.len(), missed, note)
}

/// Review49 H3: an unmatched `assert_eq!` is counted only when the widened pattern matches it;
/// here `assert_eq!($$$A, 1)` matches nothing more than `assert_eq!($A, 1)`, so no note.
#[test]
fn a_macro_pattern_counts_no_invocation_its_widened_pattern_does_not_match() {
    let source = "fn f(a: i32, b: f64, n1: i32) {\n    assert_eq!(a, 1); assert_eq!(b, 1.5); assert_eq!(n1, 2); assert_eq!(a, 10);\n}\n";
    let (matches, missed, note) = rust_missed_note("assert_eq!($A, 1)", source);
    assert_eq!(matches, 1);
    // Ground truth: the widened pattern matches the same invocations.
    let widened = match_source(&compile_pattern("assert_eq!($$$A, 1)", SupportLang::Rust).unwrap(), source).unwrap();
    assert_eq!(widened.len(), matches);
    assert_eq!(missed.macro_invocations.count, 0, "{missed:?}");
    assert_eq!(note, None);
}

/// Trial167 M1 (walkdir `itry!`), review49 H3: the invocations counted are exactly those the
/// widened `itry!($$$E)` matches beyond `itry!($E)`, and the note says so.
#[test]
fn a_macro_pattern_counts_the_invocations_its_widened_pattern_adds() {
    let source = "fn step(result: R, p: &Path) -> Option<R> {\n    let a = itry!(result);\n    let b = itry!(fs::read_dir(p));\n    let c = itry!(p.metadata());\n    let d = itry!(other);\n    let e = itry!(a.map_err(|e| Error::from_io(depth, e)));\n    other!(x.y());\n    None\n}\n";
    let (matches, missed, note) = rust_missed_note("itry!($E)", source);
    assert_eq!(matches, 2);
    let widened = match_source(&compile_pattern("itry!($$$E)", SupportLang::Rust).unwrap(), source).unwrap();
    assert_eq!(widened.len(), 5);
    assert_eq!(missed.macro_invocations.count, widened.len() - matches, "{missed:?}");
    let note = note.expect("a note");
    assert!(
        note.contains("3 more `itry!(…)` invocations that `itry!($$$E)` matches and `itry!($E)` does not (e.g. src/lib.rs:3)"),
        "{note}"
    );
    let (matches, missed, note) = rust_missed_note("itry!($$$E)", source);
    assert_eq!((matches, missed.macro_invocations.count, note), (5, 0, None));
}

/// Review49 L11: only a `$E` that is a whole macro argument is widened; one inside an inner group
/// stays single.
#[test]
fn a_macro_pattern_widens_only_its_whole_argument_metavariables() {
    let source = "fn f() {\n    m!(x.y(), (z));\n    m!(x, (z));\n    m!(x.y(), (z.w()));\n}\n";
    let (matches, missed, note) = rust_missed_note("m!($E, ($E2))", source);
    assert_eq!(matches, 1);
    assert_eq!(missed.macro_invocations.widened, "m!($$$E, ($E2))");
    // `m!(x.y(), (z.w()))` has a long inner argument: `m!($$$E, ($E2))` does not match it.
    let widened = match_source(&compile_pattern("m!($$$E, ($E2))", SupportLang::Rust).unwrap(), source).unwrap();
    assert_eq!(widened.len(), 2);
    assert_eq!(missed.macro_invocations.count, 1, "{note:?}");
}

/// Recheck49 N2: with two metavariables in the macro's arguments no widening `$$$A, $$$B` is
/// offered — it matches every call but cannot split at the comma (`$A` empty, `$B` the rest),
/// and a rewrite with it drops tokens. Trial171 F3 (bitflags 2.13.2: `assert_eq!($A, $B)`
/// matched 4 of ~124 two-argument calls, silently): the invocations whose top-level arguments,
/// split at the token tree's commas, fit the pattern's are counted, with the pattern and the
/// rule that reach every invocation.
#[test]
fn a_macro_pattern_with_two_argument_metavariables_counts_the_invocations_it_misses() {
    let source = "fn f(a: i32, r: Vec<i32>) {\n    assert_eq!(a, 1);\n    assert_eq!(1, r.len());\n    assert_eq!(T::ABC, flags, \"with, a message {}\", x.y());\n    assert_eq!(a.b(), c,);\n    assert_eq!(f(x, y), g::<A, B>(z));\n    assert_ne!(a.b(), c);\n}\n";
    let (matches, missed, note) = rust_missed_note("assert_eq!($A, $B)", source);
    assert_eq!(matches, 1, "`r.len()` is several tokens");
    // Ground truth: the two-argument `assert_eq!` calls, by their text (lines 3, 5 and 6; line 4
    // has 4 arguments, line 7 is `assert_ne!`).
    assert_eq!(missed.macro_invocations.count, 3, "{missed:?}");
    assert_eq!(missed.macro_invocations.arguments, Some(2));
    let note = note.expect("a note");
    assert!(
        note.contains("3 more `assert_eq!(…)` invocations with 2 top-level arguments fitting `assert_eq!($A, $B)` that it does not match (e.g. src/lib.rs:3)"),
        "{note}"
    );
    assert!(note.contains("search with `assert_eq!($$$ARGS)`"), "{note}");
    assert!(note.contains(r#"{"kind":"macro_invocation","regex":"^assert_eq\\s*!"}"#), "{note}");
    // The pattern offered reaches every `assert_eq!` (5) and the rule every invocation.
    let reach = match_source(&compile_pattern("assert_eq!($$$ARGS)", SupportLang::Rust).unwrap(), source).unwrap();
    assert_eq!(reach.len(), 5);
    // A literal argument must be equal: `assert_eq!($A, 1)`-like shapes keep their own rule.
    let (matches, missed, _) = rust_missed_note("assert_eq!($A, $B, \"with, a message {}\", $C)", source);
    assert_eq!((matches, missed.macro_invocations.count), (0, 1), "{missed:?}");
}
