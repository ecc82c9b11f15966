//! Fuzz target: arbitrary pattern text × language × context through the contextual pattern
//! compiler. Properties: no panic, and bounded time per input (the compiler refuses patterns
//! over `MAX_PATTERN_BYTES`, and patterns nesting `$$$` deeper than
//! `MAX_MULTI_METAVARIABLE_NESTING`, whose matching time doubles per level; each accepted
//! pattern is also matched against itself as source so the compiled tree is exercised).
//!
//! Input: the first byte selects the language (`byte % languages`) and, from its remaining
//! range (`byte / languages`), either one of that language's wrapping contexts
//! (`compile_pattern_in_context(.., Some(kind))`: one parse, or two with the statement
//! terminator) or, for one value in `contexts + 1`, the full search `compile_pattern` does for
//! the tools (every context in order, then the type reading). The rest is the pattern text.
//! Per input this is one compile in one context instead of up to ten parses, so the target
//! runs several times faster while every context of every language, and the full search, stay
//! reachable. Corpora from the earlier layout (first byte = language only) stay valid inputs.
//!
//! Seeds: `fuzz/seeds/pattern_compiler/` (`nested_cpp_labels_46.txt`: selector `Y` = C++ in
//! the declaration context, then `$$$:` 46 times, the input that timed out before the compiler
//! refused `$$$` nested deeper than `MAX_MULTI_METAVARIABLE_NESTING`;
//! `deep_rust_reference_chain_error.txt`: selector 166 = Rust, the full search, then 3.4 KB of
//! `&` with a `%` and `$A` in it, which took 2.2 s in release builds — one tree-sitter `parent()`
//! on a deep chain of hidden nodes walks O(depth²) — before the compiler's error search kept
//! each node's parent from its own walk).
//!
//! Run: `cargo +nightly fuzz run pattern_compiler fuzz/corpus/pattern_compiler fuzz/seeds/pattern_compiler -- -max_total_time=120 -timeout=5`
//! (libFuzzer writes new inputs to the first directory only, so the seeds stay as committed).
#![no_main]

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{compile_pattern, compile_pattern_in_context, language_contexts, match_source, SupportLang};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let languages = SupportLang::all_langs();
    let language = languages[selector as usize % languages.len()];
    let Ok(pattern) = std::str::from_utf8(rest) else {
        return;
    };
    let contexts = language_contexts(language).contexts;
    let context_choice = (selector as usize / languages.len()) % (contexts.len() + 1);
    let compiled = match contexts.get(context_choice) {
        Some(context) => compile_pattern_in_context(pattern, language, Some(context.kind)),
        None => compile_pattern(pattern, language),
    };
    if let Ok(compiled) = compiled {
        assert!(!compiled.node_kind.is_empty());
        let _ = match_source(&compiled, pattern);
    }
});
