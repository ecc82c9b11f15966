//! Fuzz target: arbitrary JSON text × language through the rule compiler (`rule` objects of
//! `ast_grep`/`ast_edit`, checked by our path-aware validator, then compiled by ast-grep-config).
//! Properties: no panic; a rule that compiles also matches a small source without panicking;
//! an error always names a path that starts at an argument (`rule`, `constraints`, `utils`).
//!
//! Run: `cargo +nightly fuzz run rule_compiler -- -max_total_time=120 -timeout=5`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{compile_rule, match_source_with, Query, RuleInput, SupportLang};

const SOURCES: &[(SupportLang, &str)] = &[
    (SupportLang::Rust, "fn main() { let a = x.unwrap(); if a == a { foo(1, 2); } }\n"),
    (SupportLang::Python, "def f(x) -> int:\n    return len(x) + 1\n"),
    (SupportLang::TypeScript, "const m: Map<string, number> = new Map(); m.set('a', 1);\n"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (language, source) = SOURCES[selector as usize % SOURCES.len()];
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    // `{"rule": …, "constraints": …, "utils": …}` when the input has that shape, else the
    // whole value is the rule.
    let (rule, constraints, utils) = match value.get("rule") {
        Some(rule) => (rule.clone(), value.get("constraints").cloned(), value.get("utils").cloned()),
        None => (value.clone(), None, None),
    };
    let input = RuleInput { rule: &rule, constraints: constraints.as_ref(), utils: utils.as_ref(), transform: None };
    match compile_rule(input, language) {
        Ok(compiled) => {
            let _ = match_source_with(&Query::Rule(compiled), source);
        }
        Err(err) => {
            assert!(
                ["rule", "constraints", "utils", "transform"].iter().any(|root| err.path.starts_with(root)),
                "error path {:?} does not start at an argument",
                err.path
            );
        }
    }
});
