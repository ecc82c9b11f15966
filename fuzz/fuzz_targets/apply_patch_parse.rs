//! Fuzz target: `apply_patch` parsing of arbitrary text in both formats, then applying every
//! parsed update to two texts (a fixed one, and one made of the hunks' own old lines, so the
//! success path runs too). No panic; parse errors carry a line inside the patch; a hunk applied
//! to its own old lines always succeeds when it has no anchors and is alone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runbound::fuzzing::{apply_hunks, parse_patch, FileOperation};

const SAMPLE: &str = "fn main() {\n    let x = 1;\n\tprintln!(\"{x}\");\n}\n\n// end\r\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let patch = match parse_patch(text) {
        Ok(patch) => patch,
        Err(err) => {
            assert!(err.line <= text.split('\n').count(), "error line {} past the patch end", err.line);
            assert!(!err.message.is_empty());
            return;
        }
    };
    assert!(!patch.operations.is_empty());
    for operation in &patch.operations {
        assert!(!operation.path().is_empty());
        let FileOperation::Update { hunks, .. } = operation else { continue };
        let _ = apply_hunks(SAMPLE, hunks);
        let own: String = hunks.iter().flat_map(|hunk| hunk.old_lines()).map(|line| format!("{line}\n")).collect();
        let result = apply_hunks(&own, hunks);
        if let [hunk] = hunks.as_slice() {
            if hunk.anchors.is_empty() && !hunk.end_of_file && hunk.old_start.is_none() {
                if let Err(failure) = result {
                    panic!("a lone hunk failed on its own old lines: {failure}");
                }
            }
        }
    }
});
