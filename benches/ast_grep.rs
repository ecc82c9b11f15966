//! Criterion benchmarks of the structural engine: pattern compilation (contexts tried in
//! order, per language) and matching one real source file (parse + find_all).
//!
//! Run: `cargo bench --bench ast_grep`. The whole-tree comparison with the ast-grep CLI is
//! `benches/compare_ast_grep.sh`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use runbound::structural::{compile_pattern, match_source, SupportLang};

fn compilation(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile_pattern");
    let cases = [
        ("dart_seed_statement", "if ($X != null) $X.dispose()", SupportLang::Dart),
        ("dart_call_expression", "dispose($X)", SupportLang::Dart),
        ("rust_method_call", "$X.unwrap()", SupportLang::Rust),
        ("python_function", "def $F($$$P): $$$B", SupportLang::Python),
        ("java_class_member", "public void $M() { $$$B }", SupportLang::Java),
        ("c_unparseable_all_contexts", "a(); b(", SupportLang::C),
    ];
    for (name, pattern, language) in cases {
        group.bench_function(name, |b| b.iter(|| compile_pattern(std::hint::black_box(pattern), language)));
    }
    group.finish();
}

fn single_file_matching(c: &mut Criterion) {
    let source = include_str!("../src/structural/tools.rs");
    let mut group = c.benchmark_group("match_source");
    group.throughput(Throughput::Bytes(source.len() as u64));
    for pattern in ["$X.unwrap()", "format!($$$A)", "$A == $A", "let $A = $B;"] {
        let compiled = compile_pattern(pattern, SupportLang::Rust).expect("pattern compiles");
        group.bench_with_input(BenchmarkId::new("rust_tools_rs", pattern), &compiled, |b, compiled| {
            b.iter(|| match_source(compiled, std::hint::black_box(source)).expect("parse"))
        });
    }
    group.finish();
}

criterion_group!(benches, compilation, single_file_matching);
criterion_main!(benches);
