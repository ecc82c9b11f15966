//! Fuzz target: arbitrary pattern text × language through the contextual pattern compiler.
//! Properties: no panic, and bounded time per input (the compiler refuses patterns over
//! `MAX_PATTERN_BYTES`; each accepted pattern is also matched against a small source so the
//! compiled tree is exercised).
//!
//! Run: `cargo +nightly fuzz run pattern_compiler -- -max_total_time=120 -timeout=5`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{compile_pattern, match_source, SupportLang};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let languages = SupportLang::all_langs();
    let language = languages[selector as usize % languages.len()];
    let Ok(pattern) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(compiled) = compile_pattern(pattern, language) {
        assert!(!compiled.node_kind.is_empty());
        let _ = match_source(&compiled, pattern);
    }
});
