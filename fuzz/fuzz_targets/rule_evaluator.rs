//! Fuzz target: an arbitrary rule (JSON, at most 4 KiB) × an arbitrary source text (at most
//! 4 KiB) × a language, through the bounded rule evaluator as `ast_grep` runs it: the rule
//! compiler (`compile_rule`), then the per-file scan with a step budget, a deadline and the
//! stack guard (`match_source_within`, the same `scan_file` the tool's walk calls per file).
//!
//! Properties:
//! - no panic, and no input runs long: the budgets are small (a few thousand steps, a 2 s
//!   deadline), so a hostile rule is cut, never run to its end; a run the deadline cut is not
//!   compared (the deadline depends on the machine's load);
//! - a compile error names a path that starts at an argument (`rule`, `constraints`, `utils`);
//! - every rule ast-grep compiles is read by the bounded evaluator (never refused as one it
//!   cannot read, which is what stands in for ast-grep's unbounded `RuleCore`);
//! - the match is deterministic and a cut keeps a prefix: the matches found with a small budget
//!   are the first matches found with a larger one (same ranges, same bindings), all of them when
//!   the small budget was not cut;
//! - when the rule is small (at most two relational, `matches` or `ofRule` keys, so ast-grep's
//!   own evaluation stays polynomial and short) and the source short (256 bytes), an uncut
//!   answer is exactly ast-grep-config's `RuleCore`'s (ranges and bindings).
//!
//! Input: the first byte selects the language (`byte % 5`: Rust, Python, TypeScript,
//! JavaScript, Go); the rest is the rule document, a NUL byte, then the source text (no NUL:
//! the whole rest is the rule, the source is empty). The rule document is
//! `{"rule": …, "constraints": …, "utils": …}` when it has a `rule` key, else the rule itself.
//!
//! Seeds: `fuzz/seeds/rule_evaluator/` (one rule per relation, a recursive utility, an
//! `nthChild` with `ofRule`; each with a matching source).
//!
//! Run (no cargo-fuzz needed; the flags are cargo-fuzz's coverage flags):
//! `cd fuzz && RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions" cargo +nightly build --release --target x86_64-unknown-linux-gnu --bin rule_evaluator`
//! then `target/x86_64-unknown-linux-gnu/release/rule_evaluator -dict=rule_evaluator.dict corpus/rule_evaluator seeds/rule_evaluator -max_total_time=300 -timeout=10`
//! (or `cargo +nightly fuzz run rule_evaluator fuzz/corpus/rule_evaluator fuzz/seeds/rule_evaluator -- -dict=fuzz/rule_evaluator.dict -max_total_time=300 -timeout=10`).
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{
    compile_rule, match_source_with_rule_core, match_source_within, CutReason, MatchBudget, Query, RuleInput, StructuralMatch,
    SupportLang,
};

const LANGUAGES: [SupportLang; 5] =
    [SupportLang::Rust, SupportLang::Python, SupportLang::TypeScript, SupportLang::JavaScript, SupportLang::Go];
const MAX_RULE_BYTES: usize = 4096;
const MAX_SOURCE_BYTES: usize = 4096;
/// Steps of the small and the large budget (a step: one node tried against one sub-rule).
const SMALL_STEPS: u64 = 2_000;
const LARGE_STEPS: u64 = 40_000;
/// The differential check against `RuleCore` runs only on sources this short…
const REFERENCE_MAX_SOURCE_BYTES: usize = 256;
/// …and rules with at most this many relational, `matches` and `ofRule` keys.
const REFERENCE_MAX_NESTED_KEYS: usize = 2;

fn budget(steps: u64) -> MatchBudget {
    MatchBudget { deadline: Some(Instant::now() + Duration::from_secs(2)), cancel: None, max_steps_per_file: steps }
}

fn key(found: &StructuralMatch) -> (std::ops::Range<usize>, &[(String, String)]) {
    (found.byte_range.clone(), &found.bindings)
}

fn nested_keys(rule_text: &str) -> usize {
    ["\"has\"", "\"inside\"", "\"follows\"", "\"precedes\"", "\"matches\"", "\"ofRule\""].iter().map(|k| rule_text.matches(k).count()).sum()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let language = LANGUAGES[selector as usize % LANGUAGES.len()];
    let (rule_bytes, source_bytes) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    if rule_bytes.len() > MAX_RULE_BYTES || source_bytes.len() > MAX_SOURCE_BYTES {
        return;
    }
    let (Ok(rule_text), Ok(source)) = (std::str::from_utf8(rule_bytes), std::str::from_utf8(source_bytes)) else {
        return;
    };
    let Ok(document) = serde_json::from_str::<serde_json::Value>(rule_text) else {
        return;
    };
    let (rule, constraints, utils) = match document.get("rule") {
        Some(rule) => (rule.clone(), document.get("constraints").cloned(), document.get("utils").cloned()),
        None => (document.clone(), None, None),
    };
    let input = RuleInput { rule: &rule, constraints: constraints.as_ref(), utils: utils.as_ref(), transform: None };
    let compiled = match compile_rule(input, language) {
        Ok(compiled) => compiled,
        Err(err) => {
            assert!(
                !err.message.contains("bounded rule evaluator cannot read"),
                "{rule_text}: ast-grep compiles it, the evaluator cannot read it"
            );
            assert!(
                ["rule", "constraints", "utils", "transform"].iter().any(|root| err.path.starts_with(root)),
                "error path {:?} does not start at an argument",
                err.path
            );
            return;
        }
    };
    let query = Query::Rule(compiled);
    let Ok((small, small_cut)) = match_source_within(&query, source, &budget(SMALL_STEPS)) else {
        return;
    };
    let Ok((large, large_cut)) = match_source_within(&query, source, &budget(LARGE_STEPS)) else {
        return;
    };
    // A deadline cut depends on how loaded the machine is, not on the input (session 34: two
    // "the small budget was enough, the large one cut" crashes at load 12 replayed in 3 ms): the
    // properties compare step-budget runs only.
    if matches!(small_cut, Some(CutReason::Deadline)) || matches!(large_cut, Some(CutReason::Deadline)) {
        return;
    }
    if large_cut.is_none() || small_cut.is_none() {
        let shorter = small.len().min(large.len());
        let prefix: Vec<_> = large.iter().take(shorter).map(key).collect();
        assert_eq!(small.iter().take(shorter).map(key).collect::<Vec<_>>(), prefix, "{rule_text}\n{source}: a cut must keep a prefix");
    }
    if small_cut.is_none() {
        assert_eq!(large_cut, None, "{rule_text}\n{source}: the small budget was enough, the large one cut");
        assert_eq!(small, large, "{rule_text}\n{source}: two uncut runs differ");
    }
    if large_cut.is_none() && source.len() <= REFERENCE_MAX_SOURCE_BYTES && nested_keys(rule_text) <= REFERENCE_MAX_NESTED_KEYS {
        if let Ok(Some(reference)) = match_source_with_rule_core(&query, source) {
            assert_eq!(
                large.iter().map(key).collect::<Vec<_>>(),
                reference.iter().map(key).collect::<Vec<_>>(),
                "{rule_text}\n{source}: the bounded evaluator and RuleCore disagree"
            );
        }
    }
});
