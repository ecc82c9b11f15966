//! Locating and applying a file's hunks in its text, tolerant the way Codex's apply_patch is:
//! each hunk's old lines are sought exactly, then ignoring trailing whitespace, then ignoring
//! surrounding whitespace, then also equating typographic punctuation with ASCII.
//!
//! Pure text in, text out; the tool in `apply_patch.rs` does the file system.

use std::fmt;

use crate::files::patch::{Hunk, HunkLine};

/// How closely a hunk's old lines matched the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchQuality {
    /// Byte-identical lines.
    Exact,
    /// Equal after removing trailing whitespace.
    IgnoringTrailingWhitespace,
    /// Equal after removing leading and trailing whitespace.
    IgnoringWhitespace,
    /// Equal after also mapping typographic dashes, quotes and spaces to ASCII.
    IgnoringPunctuation,
}

impl MatchQuality {
    const ALL: [MatchQuality; 4] = [
        MatchQuality::Exact,
        MatchQuality::IgnoringTrailingWhitespace,
        MatchQuality::IgnoringWhitespace,
        MatchQuality::IgnoringPunctuation,
    ];

    /// `exact`, `ignoring_trailing_whitespace`, `ignoring_whitespace`, `ignoring_punctuation`.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchQuality::Exact => "exact",
            MatchQuality::IgnoringTrailingWhitespace => "ignoring_trailing_whitespace",
            MatchQuality::IgnoringWhitespace => "ignoring_whitespace",
            MatchQuality::IgnoringPunctuation => "ignoring_punctuation",
        }
    }

    fn lines_equal(self, file_line: &str, patch_line: &str) -> bool {
        match self {
            MatchQuality::Exact => file_line == patch_line,
            MatchQuality::IgnoringTrailingWhitespace => file_line.trim_end() == patch_line.trim_end(),
            MatchQuality::IgnoringWhitespace => file_line.trim() == patch_line.trim(),
            MatchQuality::IgnoringPunctuation => {
                let mut file_chars = file_line.trim().chars().map(ascii_punctuation);
                let mut patch_chars = patch_line.trim().chars().map(ascii_punctuation);
                loop {
                    match (file_chars.next(), patch_chars.next()) {
                        (None, None) => return true,
                        (Some(a), Some(b)) if a == b => {}
                        _ => return false,
                    }
                }
            }
        }
    }
}

/// The result of applying a file's hunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedText {
    /// The new text (line ending style and final newline kept from the original unless a
    /// `\ No newline at end of file` marker changed it).
    pub content: String,
    /// One entry per hunk, in patch order.
    pub hunks: Vec<AppliedHunk>,
}

/// Where one hunk landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedHunk {
    /// 1-based line of the original file where the hunk's old lines started (for a pure
    /// insertion: the line the new lines were inserted before; one past the end at the end).
    pub old_line: usize,
    /// How closely the old lines matched.
    pub quality: MatchQuality,
}

/// Why a hunk could not be applied. Says which hunk, what it looked for and what is closest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkFailure {
    /// 1-based number of the failing hunk within its file.
    pub hunk_number: usize,
    /// How many hunks the file section has.
    pub hunk_count: usize,
    /// 1-based line of the patch where the hunk starts.
    pub patch_line: usize,
    /// What went wrong, e.g. "its 4 context/removed lines were not found after line 12".
    pub reason: String,
    /// The lines the hunk looked for (the anchor, or context and removed lines), as written.
    pub looked_for: Vec<String>,
    /// The nearest thing found in the file, when anything came close.
    pub closest: Option<String>,
}

impl fmt::Display for HunkFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hunk {} of {} (patch line {}): {}", self.hunk_number, self.hunk_count, self.patch_line, self.reason)
    }
}

/// Applies `hunks` to `original` (see the module docs for the tolerance). Hunks are located in
/// order, each after the previous one (falling back to anywhere that does not overlap an
/// earlier hunk); a unified `@@ -a,b` start picks the nearest of several matches; envelope
/// `@@ anchor` lines are found first; `*** End of File` hunks must match at the end. A hunk
/// with no old lines inserts after its anchor, at its `-a,0` position, or at the end of file.
///
/// # Errors
/// A `HunkFailure` for the first hunk that cannot be located or overlaps another.
pub fn apply_hunks(original: &str, hunks: &[Hunk]) -> Result<AppliedText, HunkFailure> {
    let text = SplitText::new(original);
    let lines = &text.lines;
    let mut replacements: Vec<Replacement> = Vec::new();
    let mut applied = Vec::with_capacity(hunks.len());
    let mut cursor = 0;
    let mut final_newline = text.final_newline || lines.is_empty();
    for (index, hunk) in hunks.iter().enumerate() {
        let failure = |reason: String, looked_for: Vec<String>, closest: Option<String>| HunkFailure {
            hunk_number: index + 1,
            hunk_count: hunks.len(),
            patch_line: hunk.patch_line,
            reason,
            looked_for,
            closest,
        };
        for anchor in &hunk.anchors {
            let Some(found) = find_anchor(lines, anchor, cursor) else {
                let closest = closest_line(lines, anchor);
                return Err(failure(
                    format!("its `@@ {anchor}` anchor line was not found{}", after_line(cursor)),
                    vec![anchor.clone()],
                    closest,
                ));
            };
            cursor = found + 1;
        }
        let old: Vec<&str> = hunk.old_lines();
        let (start, quality) = if old.is_empty() {
            (insertion_point(hunk, lines.len(), cursor), MatchQuality::Exact)
        } else {
            match locate(lines, &old, hunk, cursor, &replacements) {
                Some(found) => found,
                None => {
                    let looked_for: Vec<String> = old.iter().map(|line| (*line).to_owned()).collect();
                    if let Some((start, _)) = locate(lines, &old, hunk, cursor, &[]) {
                        let other = replacements.iter().find(|r| overlaps(r, start, old.len())).map_or(0, |r| r.hunk_number);
                        return Err(failure(
                            format!("its lines are found only at line {}, which overlaps hunk {other}", start + 1),
                            looked_for,
                            None,
                        ));
                    }
                    let reason = format!(
                        "its {} context/removed line{} {} not found{}{}",
                        old.len(),
                        if old.len() == 1 { "" } else { "s" },
                        if old.len() == 1 { "was" } else { "were" },
                        after_line(cursor),
                        if hunk.end_of_file { " at the end of the file" } else { "" }
                    );
                    return Err(failure(reason, looked_for, closest_window(lines, &old)));
                }
            }
        };
        let old_len = old.len();
        if let Some(other) = replacements.iter().find(|r| overlaps(r, start, old_len)) {
            return Err(failure(
                format!("it overlaps hunk {} (both change line {})", other.hunk_number, start.max(other.start) + 1),
                old.iter().map(|line| (*line).to_owned()).collect(),
                None,
            ));
        }
        let new_lines = replacement_lines(hunk, &lines[start..start + old_len]);
        if start + old_len == lines.len() {
            if hunk.new_missing_final_newline {
                final_newline = false;
            } else if hunk.old_missing_final_newline {
                final_newline = true;
            }
        }
        replacements.push(Replacement { start, old_len, new_lines, hunk_number: index + 1 });
        applied.push(AppliedHunk { old_line: start + 1, quality });
        cursor = start + old_len;
    }
    replacements.sort_by_key(|r| (r.start, r.hunk_number));
    let mut new_lines: Vec<String> = lines.clone();
    for replacement in replacements.into_iter().rev() {
        new_lines.splice(replacement.start..replacement.start + replacement.old_len, replacement.new_lines);
    }
    Ok(AppliedText { content: text.join(&new_lines, final_newline), hunks: applied })
}

/// A text split into lines, remembering its line ending and whether it ended with one.
pub(crate) struct SplitText {
    /// Lines without terminators.
    pub(crate) lines: Vec<String>,
    /// `"\r\n"` when most lines end so, else `"\n"`.
    pub(crate) line_ending: &'static str,
    /// Whether the text ended with a line ending.
    pub(crate) final_newline: bool,
}

impl SplitText {
    pub(crate) fn new(text: &str) -> SplitText {
        let newline_count = text.matches('\n').count();
        let crlf_count = text.matches("\r\n").count();
        let line_ending = if crlf_count > 0 && crlf_count * 2 >= newline_count { "\r\n" } else { "\n" };
        let final_newline = text.ends_with('\n');
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines = if text.is_empty() {
            Vec::new()
        } else {
            body.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line).to_owned()).collect()
        };
        SplitText { lines, line_ending, final_newline }
    }

    pub(crate) fn join(&self, lines: &[String], final_newline: bool) -> String {
        let mut out = lines.join(self.line_ending);
        if final_newline && !lines.is_empty() {
            out.push_str(self.line_ending);
        }
        out
    }
}

/// The most similar window of `lines` to `pattern`, described for an LLM, or `None` when no
/// line of the pattern occurs in the file. Lines are compared ignoring surrounding whitespace.
pub(crate) fn closest_window(lines: &[String], pattern: &[&str]) -> Option<String> {
    if pattern.is_empty() || lines.is_empty() {
        return None;
    }
    // Bound the work: a 100k-line file against a 40-line hunk is 4M comparisons.
    if lines.len().saturating_mul(pattern.len()) > 8_000_000 {
        return None;
    }
    let window = pattern.len().min(lines.len());
    let mut best: Option<(usize, usize)> = None;
    for start in 0..=lines.len() - window {
        let score = (0..window).filter(|&offset| lines[start + offset].trim() == pattern[offset].trim()).count();
        if score > 0 && best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((start, score));
        }
    }
    let (start, score) = best?;
    let mut description = format!("lines {}-{} match {score} of the hunk's {} lines", start + 1, start + window, pattern.len());
    if let Some(offset) = (0..window).find(|&offset| lines[start + offset].trim() != pattern[offset].trim()) {
        description.push_str(&format!(
            "; first difference at line {}: the file has {:?}, the patch expects {:?}",
            start + offset + 1,
            lines[start + offset],
            pattern[offset]
        ));
    } else if window < pattern.len() {
        description.push_str(&format!("; the file ends after line {}", lines.len()));
    }
    Some(description)
}

/// The line most similar to `wanted` (by character diff ratio ≥ 0.6), described for an LLM.
pub(crate) fn closest_line(lines: &[String], wanted: &str) -> Option<String> {
    let wanted = wanted.trim();
    if wanted.is_empty() || lines.len() > 50_000 {
        return None;
    }
    let mut best: Option<(usize, f32)> = None;
    for (index, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.len() > 4 * wanted.len() + 40 || wanted.len() > 4 * line.len() + 40 {
            continue;
        }
        let ratio = similar::TextDiff::from_chars(line, wanted).ratio();
        if ratio >= 0.6 && best.is_none_or(|(_, best_ratio)| ratio > best_ratio) {
            best = Some((index, ratio));
        }
    }
    let (index, ratio) = best?;
    Some(format!("most similar: line {} {:?} ({:.0}% similar)", index + 1, lines[index], ratio * 100.0))
}

struct Replacement {
    start: usize,
    old_len: usize,
    new_lines: Vec<String>,
    hunk_number: usize,
}

fn overlaps(replacement: &Replacement, start: usize, old_len: usize) -> bool {
    let end = start + old_len;
    let other_end = replacement.start + replacement.old_len;
    if old_len == 0 {
        return start > replacement.start && start < other_end;
    }
    if replacement.old_len == 0 {
        return replacement.start > start && replacement.start < end;
    }
    start < other_end && replacement.start < end
}

fn after_line(cursor: usize) -> String {
    if cursor == 0 {
        return String::new();
    }
    format!(" after line {cursor}")
}

fn find_anchor(lines: &[String], anchor: &str, cursor: usize) -> Option<usize> {
    for quality in MatchQuality::ALL {
        if let Some(found) = (cursor..lines.len()).find(|&index| quality.lines_equal(&lines[index], anchor)) {
            return Some(found);
        }
    }
    for quality in MatchQuality::ALL {
        if let Some(found) = (0..cursor.min(lines.len())).find(|&index| quality.lines_equal(&lines[index], anchor)) {
            return Some(found);
        }
    }
    None
}

fn insertion_point(hunk: &Hunk, line_count: usize, cursor: usize) -> usize {
    if !hunk.anchors.is_empty() {
        return cursor.min(line_count);
    }
    match hunk.old_start {
        // `@@ -a,0 +c,d @@`: insert after old line `a`.
        Some(start) if !hunk.end_of_file => start.min(line_count),
        _ => line_count,
    }
}

fn locate(lines: &[String], old: &[&str], hunk: &Hunk, cursor: usize, taken: &[Replacement]) -> Option<(usize, MatchQuality)> {
    if old.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - old.len();
    for quality in MatchQuality::ALL {
        let matches_at = |start: usize| {
            old.iter().enumerate().all(|(offset, wanted)| quality.lines_equal(&lines[start + offset], wanted))
                && !taken.iter().any(|r| overlaps(r, start, old.len()))
        };
        if hunk.end_of_file {
            if matches_at(last_start) {
                return Some((last_start, quality));
            }
            continue;
        }
        if let Some(hint) = hunk.old_start {
            let target = hint.saturating_sub(1);
            let mut best: Option<usize> = None;
            for start in (0..=last_start).filter(|&start| matches_at(start)) {
                if best.is_none_or(|b| start.abs_diff(target) < b.abs_diff(target)) {
                    best = Some(start);
                }
            }
            if let Some(start) = best {
                return Some((start, quality));
            }
            continue;
        }
        if let Some(start) = (cursor.min(last_start + 1)..=last_start).find(|&start| matches_at(start)) {
            return Some((start, quality));
        }
        if let Some(start) = (0..cursor.min(last_start + 1)).find(|&start| matches_at(start)) {
            return Some((start, quality));
        }
    }
    None
}

/// The lines that replace the matched window: context lines keep the file's own text (so a
/// whitespace-tolerant match does not rewrite them), added lines come from the patch.
fn replacement_lines(hunk: &Hunk, window: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut old_index = 0;
    for line in &hunk.lines {
        match line {
            HunkLine::Context(_) => {
                out.push(window[old_index].clone());
                old_index += 1;
            }
            HunkLine::Remove(_) => old_index += 1,
            HunkLine::Add(text) => out.push(text.clone()),
        }
    }
    out
}

fn ascii_punctuation(character: char) -> char {
    match character {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}'..='\u{201B}' => '\'',
        '\u{201C}'..='\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::patch::{parse_patch, FileOperation};

    fn hunks_of(patch: &str) -> Vec<Hunk> {
        match parse_patch(patch).unwrap().operations.remove(0) {
            FileOperation::Update { hunks, .. } => hunks,
            other => panic!("not an update: {other:?}"),
        }
    }

    fn envelope(body: &str) -> Vec<Hunk> {
        hunks_of(&format!("*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch"))
    }

    #[test]
    fn exact_then_whitespace_tolerant_matching() {
        let original = "fn a() {\n    one();   \n    two();\n}\n";
        let applied = apply_hunks(original, &envelope("@@\n     one();\n-    two();\n+    three();")).unwrap();
        assert_eq!(applied.content, "fn a() {\n    one();   \n    three();\n}\n");
        assert_eq!(applied.hunks[0].quality, MatchQuality::IgnoringTrailingWhitespace);
        let applied = apply_hunks(original, &envelope("@@\n one();\n-two();\n+    three();")).unwrap();
        assert_eq!(applied.hunks[0].quality, MatchQuality::IgnoringWhitespace);
        assert_eq!(applied.content, "fn a() {\n    one();   \n    three();\n}\n", "context keeps the file's text");
        let applied = apply_hunks("let s = \u{201C}hi\u{201D};\n", &envelope("@@\n-let s = \"hi\";\n+let s = 1;")).unwrap();
        assert_eq!(applied.hunks[0].quality, MatchQuality::IgnoringPunctuation);
        assert_eq!(applied.content, "let s = 1;\n");
    }

    #[test]
    fn anchors_pick_the_right_occurrence() {
        let original = "fn a() {\n    x = 1;\n}\nfn b() {\n    x = 1;\n}\n";
        let applied = apply_hunks(original, &envelope("@@ fn b() {\n-    x = 1;\n+    x = 2;")).unwrap();
        assert_eq!(applied.content, "fn a() {\n    x = 1;\n}\nfn b() {\n    x = 2;\n}\n");
        assert_eq!(applied.hunks[0].old_line, 5);
    }

    #[test]
    fn end_of_file_hunk_matches_at_the_end() {
        let original = "x\nend\nx\nend\n";
        let applied = apply_hunks(original, &envelope("@@\n x\n-end\n+END\n*** End of File")).unwrap();
        assert_eq!(applied.content, "x\nend\nx\nEND\n");
    }

    #[test]
    fn unified_start_hint_picks_the_nearest_match() {
        let original = "a\nb\na\nb\na\nb\n";
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -5,2 +5,2 @@\n a\n-b\n+B\n");
        assert_eq!(apply_hunks(original, &hunks).unwrap().content, "a\nb\na\nb\na\nB\n");
    }

    #[test]
    fn pure_insertions() {
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,0 +2,1 @@\n+inserted\n");
        assert_eq!(apply_hunks("one\ntwo\n", &hunks).unwrap().content, "one\ninserted\ntwo\n");
        let appended = apply_hunks("one\n", &envelope("@@\n+two")).unwrap();
        assert_eq!(appended.content, "one\ntwo\n");
    }

    #[test]
    fn crlf_and_missing_final_newline_are_kept() {
        let applied = apply_hunks("a\r\nb\r\nc", &envelope("@@\n a\n-b\n+B")).unwrap();
        assert_eq!(applied.content, "a\r\nB\r\nc");
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
        assert_eq!(apply_hunks("a\nb", &hunks).unwrap().content, "a\nb\n");
    }

    #[test]
    fn failure_names_the_hunk_and_the_closest_lines() {
        let original = "one\ntwo\nthree\nfour\n";
        let err = apply_hunks(original, &envelope("@@\n one\n-two\n+2\n@@\n three\n-FIVE\n+5")).unwrap_err();
        assert_eq!((err.hunk_number, err.hunk_count, err.patch_line), (2, 2, 7));
        assert_eq!(err.looked_for, vec!["three".to_owned(), "FIVE".to_owned()]);
        assert!(err.reason.contains("were not found after line 2"), "{}", err.reason);
        let closest = err.closest.unwrap();
        assert!(closest.contains("line 4: the file has \"four\", the patch expects \"FIVE\""), "{closest}");
        let err = apply_hunks(original, &envelope("@@ fn missing()\n-one\n+1")).unwrap_err();
        assert!(err.reason.contains("`@@ fn missing()` anchor"), "{}", err.reason);
    }

    #[test]
    fn overlapping_hunks_are_refused() {
        let err = apply_hunks("a\nb\nc\n", &hunks_of("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -2,2 +2,2 @@\n-b\n+X\n c\n"));
        let err = err.unwrap_err();
        assert_eq!(err.hunk_number, 2);
        assert!(err.reason.contains("overlaps hunk 1"), "{}", err.reason);
    }
}
