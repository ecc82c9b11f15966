//! Criterion benchmarks of the structural engine: pattern and rule compilation (contexts tried
//! in order, per language), and matching one real source file (parse + find_all) with patterns
//! and rules.
//!
//! Run: `cargo bench --bench ast_grep`. The whole-tree comparison with the ast-grep CLI is
//! `benches/compare_ast_grep.sh`.
//!
//! The same binary has a second mode for that script, the parse-only ceiling: with
//! `--parse-only DIR LANGUAGE` it walks DIR exactly as `ast_grep` does (same walker, same
//! threads, same file filters), parses every file of the language, matches nothing, and prints
//! one line `parse-only: FILES files, BYTES bytes, SECONDS s` (wall time of the walk). The script
//! times it beside the search: search time / parse-only time says how close a search is to the
//! cost of parsing alone.

use criterion::{BenchmarkId, Criterion, Throughput};
use runbound::benching::LiteralRequirement;
use runbound::benching::{compile_pattern, compile_rule, match_source, match_source_with, parse_language, Query, RuleInput, SupportLang};
use runbound::benching::{walk_and_match, WalkLimits};
use serde_json::json;

fn compilation(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile_pattern");
    let cases = [
        ("dart_seed_statement", "if ($X != null) $X.dispose()", SupportLang::Dart),
        ("dart_call_expression", "dispose($X)", SupportLang::Dart),
        ("rust_method_call", "$X.unwrap()", SupportLang::Rust),
        ("rust_type", "Either<$L, $R>", SupportLang::Rust),
        ("python_function", "def $F($$$P): $$$B", SupportLang::Python),
        ("python_type_with_alternative", "List[$T]", SupportLang::Python),
        ("java_class_member", "public void $M() { $$$B }", SupportLang::Java),
        ("c_unparseable_all_contexts", "a(); b(", SupportLang::C),
    ];
    for (name, pattern, language) in cases {
        group.bench_function(name, |b| b.iter(|| compile_pattern(std::hint::black_box(pattern), language)));
    }
    group.finish();
    let mut group = c.benchmark_group("compile_rule");
    let rule = json!({"pattern": "$X.unwrap()", "inside": {"kind": "function_item", "stopBy": "end"}, "not": {"inside": {"kind": "closure_expression", "stopBy": "end"}}});
    group.bench_function("rust_inside_not", |b| {
        b.iter(|| {
            compile_rule(
                RuleInput { rule: std::hint::black_box(&rule), constraints: None, utils: None, transform: None },
                SupportLang::Rust,
            )
        })
    });
    group.finish();
}

fn single_file_matching(c: &mut Criterion) {
    let source = include_str!("../src/structural/tools.rs");
    let mut group = c.benchmark_group("match_source");
    group.throughput(Throughput::Bytes(source.len() as u64));
    for pattern in ["$X.unwrap()", "format!($$$A)", "$A == $A", "let $A = $B;", "Option<$T>"] {
        let compiled = compile_pattern(pattern, SupportLang::Rust).expect("pattern compiles");
        group.bench_with_input(BenchmarkId::new("rust_tools_rs", pattern), &compiled, |b, compiled| {
            b.iter(|| match_source(compiled, std::hint::black_box(source)).expect("parse"))
        });
    }
    let rule = json!({"kind": "call_expression", "has": {"field": "function", "regex": "^format"}, "inside": {"kind": "function_item", "stopBy": "end"}});
    let query = Query::Rule(
        compile_rule(RuleInput { rule: &rule, constraints: None, utils: None, transform: None }, SupportLang::Rust).expect("rule compiles"),
    );
    group.bench_function("rust_tools_rs/rule_kind_has_inside", |b| {
        b.iter(|| match_source_with(&query, std::hint::black_box(source)).expect("parse"))
    });
    group.finish();
}

/// `--parse-only DIR LANGUAGE`: parse every file of LANGUAGE under DIR as `ast_grep` walks it.
fn parse_only(dir: &str, language: &str) {
    let language = parse_language(language).unwrap_or_else(|err| panic!("{}", err.message));
    let mut limits = WalkLimits::new(std::time::Instant::now() + std::time::Duration::from_secs(3600));
    limits.count_skipped = false;
    let started = std::time::Instant::now();
    let (_, stats) = walk_and_match::<()>(std::path::Path::new(dir), language, &LiteralRequirement::none(), &limits, &|_, _| None);
    let elapsed = started.elapsed();
    println!("parse-only: {} files, {} bytes, {:.3} s", stats.files_parsed, stats.bytes_parsed, elapsed.as_secs_f64());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(index) = args.iter().position(|a| a == "--parse-only") {
        let (Some(dir), Some(language)) = (args.get(index + 1), args.get(index + 2)) else {
            eprintln!("usage: ast_grep --parse-only DIR LANGUAGE");
            std::process::exit(2);
        };
        parse_only(dir, language);
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    compilation(&mut criterion);
    single_file_matching(&mut criterion);
    criterion.final_summary();
}
