//! One way to say a thing: how every tool renders paths, cuts, counts and ranges for the model.
//!
//! - Paths: relative to the workspace root (`src/a.rs`, `.` for the root itself); a path outside
//!   it is absolute and marked `(outside workspace)` — [`display_path`].
//! - Cuts: one marker, `… [cut: showing N of M <unit>]` (optionally `; <where to see all>`) —
//!   [`cut_chars`], [`cut_marker`]; head-and-tail and tail-only cuts say the same numbers in
//!   the same words ([`cut_middle`], [`cut_tail`]; their notices alone, for cuts made elsewhere,
//!   in bytes: [`middle_cut_notice`], [`tail_cut_notice`]).
//! - Counts: `1 file`, `3 files`, `2 matches`, `4 entries` — [`plural`]; a word that agrees
//!   with a count given elsewhere (`was`/`were`) — [`one_or_many`].
//! - Caps and pages: `showing N of M <what>` — [`showing`], [`truncation_notice`]; a window of a
//!   list, `showing A–B of N` (1-based, inclusive) and `; next: offset=B` when more follow —
//!   [`showing_range`], [`page_notice`].
//!
//! This module sits at the bottom of the dependency order with `error`, `result` and `tier`: it
//! depends on nothing else in the crate.

use std::path::Path;

/// `path` for the model: relative to `workspace_root` (`src/a.rs`; `.` for the root itself),
/// else absolute with ` (outside workspace)` appended.
///
/// `workspace_root` should be absolute and canonical (as the run's is). No file-system access
/// except when `path` is not under `workspace_root` as spelled: then the root is canonicalized
/// once to compare again.
pub fn display_path(workspace_root: &Path, path: &Path) -> String {
    if let Some(relative) = relative_display(workspace_root, path) {
        return relative;
    }
    if let Ok(canonical) = std::fs::canonicalize(workspace_root) {
        if let Some(relative) = relative_display(&canonical, path) {
            return relative;
        }
    }
    format!("{}{OUTSIDE_WORKSPACE}", path.display())
}

/// What [`display_path`] appends to a path outside the workspace: ` (outside workspace)`.
pub const OUTSIDE_WORKSPACE: &str = " (outside workspace)";

fn relative_display(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    if relative.as_os_str().is_empty() {
        return Some(".".to_owned());
    }
    Some(relative.display().to_string())
}

/// What a file type is, said as a noun phrase for messages about an entry that is not a
/// regular file: `a directory`, `a FIFO (named pipe)`, `a socket`, `a character device`,
/// `a block device`, `a symlink`, else `not a regular file`.
pub fn file_type_name(file_type: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

/// `showing {shown} of {total} {what}` — the phrase every cap uses (`what` may be empty).
pub fn showing(shown: usize, total: usize, what: &str) -> String {
    if what.is_empty() {
        format!("showing {shown} of {total}")
    } else {
        format!("showing {shown} of {total} {what}")
    }
}

/// [`showing`] when `shown < total`, else `None`: used by every tool that caps its output so
/// that a cut is always said.
pub fn truncation_notice(shown: usize, total: usize, what: &str) -> Option<String> {
    (shown < total).then(|| showing(shown, total, what))
}

/// `showing A–B of N` for the items `first..=last` (1-based, inclusive) of `total`; `showing
/// none of N` when the window is empty (`last < first`).
pub fn showing_range(first: usize, last: usize, total: usize) -> String {
    if last < first {
        return format!("showing none of {total}");
    }
    format!("showing {first}–{last} of {total}")
}

/// The notice for one page of a list: `None` when the page is the whole list; else
/// [`showing_range`] followed by `; next: {next_parameter}={last}` when more follow (`last` is
/// the 0-based offset of the next item), e.g. `showing 1–50 of 120; next: offset=50`.
pub fn page_notice(first: usize, last: usize, total: usize, next_parameter: &str) -> Option<String> {
    if first <= 1 && last >= total {
        return None;
    }
    let mut notice = showing_range(first, last, total);
    if last < total {
        notice.push_str(&format!("; next: {next_parameter}={last}"));
    }
    Some(notice)
}

/// The one truncation marker: `… [cut: {detail}]`, where `detail` is normally a
/// [`showing`] phrase (`showing 400 of 1002 characters`), optionally followed by `; <where to
/// see all>`.
pub fn cut_marker(detail: &str) -> String {
    format!("… [cut: {detail}]")
}

/// `text` cut to its first `max_chars` characters followed by
/// `… [cut: showing {max_chars} of {total} characters]`; unchanged when short enough.
pub fn cut_chars(text: &str, max_chars: usize) -> String {
    cut_chars_with(text, max_chars, "")
}

/// [`cut_chars`] with `; {where_to_see_all}` inside the marker when `where_to_see_all` is not
/// empty (e.g. `vibe_wait shows the whole result`).
pub fn cut_chars_with(text: &str, max_chars: usize, where_to_see_all: &str) -> String {
    let Some((byte, _)) = text.char_indices().nth(max_chars) else {
        return text.to_owned();
    };
    let mut detail = showing(max_chars, text.chars().count(), "characters");
    if !where_to_see_all.is_empty() {
        detail.push_str("; ");
        detail.push_str(where_to_see_all);
    }
    format!("{}{}", &text[..byte], cut_marker(&detail))
}

/// `text` cut to a window of at most `max_chars` characters centred on the bytes `focus` (an
/// occurrence inside it; a byte range on character boundaries), each cut end marked `…`, then
/// ` [cut: showing characters {first}–{last} of {total}]` (1-based, inclusive); unchanged when
/// short enough. For a listed occurrence in a long line: the name stays in view.
pub fn cut_around(text: &str, focus: std::ops::Range<usize>, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars || max_chars == 0 {
        return text.to_owned();
    }
    let focus_start = text.get(..focus.start.min(text.len())).map_or(0, |head| head.chars().count());
    let focus_len = text.get(focus.start.min(text.len())..focus.end.min(text.len())).map_or(0, |part| part.chars().count());
    // Centre the occurrence; a window that would run past either end slides back in.
    let margin = max_chars.saturating_sub(focus_len) / 2;
    let first = focus_start.saturating_sub(margin).min(total - max_chars);
    let window: String = text.chars().skip(first).take(max_chars).collect();
    let left = if first > 0 { "…" } else { "" };
    let right = if first + max_chars < total { "…" } else { "" };
    format!("{left}{window}{right} [cut: showing characters {}–{} of {total}]", first + 1, first + max_chars)
}

/// Keeps the head and tail of `text` within `max_chars` characters, with
/// `[… cut: showing the first H and last T of M characters …]` on its own line between them;
/// unchanged when short enough.
pub fn cut_middle(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let head_chars = max_chars / 2;
    let tail_chars = max_chars - head_chars;
    let head: String = text.chars().take(head_chars).collect();
    let tail: String = text.chars().skip(total - tail_chars).collect();
    format!("{head}\n{}\n{tail}", middle_cut_notice(head_chars as u64, tail_chars as u64, total as u64, "characters"))
}

/// The line between the kept head and tail of a middle cut:
/// `[… cut: showing the first {head} and last {tail} of {total} {unit} …]` (`unit` e.g.
/// `characters`, `bytes of output`). [`cut_middle`] uses it; a producer that cuts elsewhere (a
/// kernel that keeps the head and tail of a cell's output) says its cut with it.
pub fn middle_cut_notice(head: u64, tail: u64, total: u64, unit: &str) -> String {
    format!("[… cut: showing the first {head} and last {tail} of {total} {unit} …]")
}

/// The line before the kept tail of a tail-only cut: `[cut: showing the last {shown} of
/// {total} {unit}]`. [`cut_tail`] uses it.
pub fn tail_cut_notice(shown: u64, total: u64, unit: &str) -> String {
    format!("[cut: showing the last {shown} of {total} {unit}]")
}

/// The last `max_chars` characters of `text` after a `[cut: showing the last N of M
/// characters]` line; unchanged when short enough.
pub fn cut_tail(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let tail: String = text.chars().skip(total - max_chars).collect();
    format!("{}\n{tail}", tail_cut_notice(max_chars as u64, total as u64, "characters"))
}

/// `count` and `noun` in the form the count needs: `1 file`, `3 files`, `2 matches`,
/// `4 entries`, `0 processes` (regular English plurals: `-s`, `-es` after s/x/z/ch/sh,
/// consonant + `y` → `-ies`).
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        return format!("1 {noun}");
    }
    format!("{count} {}", plural_noun(noun))
}

/// `one` when `count` is 1, else `many`: for words that agree with a count shown elsewhere
/// (`was` / `were`, `file does` / `files do`).
pub fn one_or_many<'a>(count: usize, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 {
        one
    } else {
        many
    }
}

fn plural_noun(noun: &str) -> String {
    let lower = noun.to_ascii_lowercase();
    if ["s", "x", "z", "ch", "sh"].iter().any(|ending| lower.ends_with(ending)) {
        return format!("{noun}es");
    }
    let mut chars = lower.chars().rev();
    if let (Some('y'), Some(before)) = (chars.next(), chars.next()) {
        if !"aeiou".contains(before) {
            return format!("{}ies", &noun[..noun.len() - 1]);
        }
    }
    format!("{noun}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_around_an_occurrence_keeps_it_whole_and_marks_both_ends() {
        let text = format!("{}`resultFunc`{}", "a".repeat(150), "b".repeat(150));
        let cut = cut_around(&text, 151..161, 40);
        assert_eq!(cut, format!("…{}`resultFunc`{}… [cut: showing characters 137–176 of 312]", "a".repeat(14), "b".repeat(14)));
        // Near an end the window slides in: only the other end is marked.
        assert_eq!(cut_around(&text, 0..3, 10), format!("{}… [cut: showing characters 1–10 of 312]", "a".repeat(10)));
        assert_eq!(cut_around(&text, 310..312, 10), format!("…{} [cut: showing characters 303–312 of 312]", "b".repeat(10)));
        assert_eq!(cut_around("short", 0..5, 100), "short");
        // Multi-byte characters count as one.
        let accents = format!("{}x{}", "é".repeat(60), "é".repeat(60));
        assert!(cut_around(&accents, 120..121, 11).starts_with("…ééééé"));
    }

    #[test]
    fn paths_are_workspace_relative_or_marked_outside() {
        let root = Path::new("/ws");
        assert_eq!(display_path(root, Path::new("/ws/src/a.rs")), "src/a.rs");
        assert_eq!(display_path(root, Path::new("/ws")), ".");
        assert_eq!(display_path(root, Path::new("/etc/passwd")), "/etc/passwd (outside workspace)");
        assert_eq!(display_path(root, Path::new("/wsx/a.rs")), "/wsx/a.rs (outside workspace)");
    }

    #[test]
    fn cuts_use_one_marker() {
        assert_eq!(cut_chars("short", 10), "short");
        assert_eq!(cut_chars("abcdefghij", 10), "abcdefghij");
        assert_eq!(cut_chars("abcdefghij", 4), "abcd… [cut: showing 4 of 10 characters]");
        assert_eq!(cut_chars("ééééé", 2), "éé… [cut: showing 2 of 5 characters]");
        assert_eq!(cut_chars_with("abcdefghij", 4, "see vibe_wait"), "abcd… [cut: showing 4 of 10 characters; see vibe_wait]");
        assert_eq!(cut_middle("abc", 3), "abc");
        assert_eq!(cut_middle("abcdefghij", 4), "ab\n[… cut: showing the first 2 and last 2 of 10 characters …]\nij");
        assert_eq!(cut_tail("abcdefghij", 3), "[cut: showing the last 3 of 10 characters]\nhij");
        assert_eq!(cut_tail("abc", 3), "abc");
        assert_eq!(
            middle_cut_notice(32768, 32768, 100000, "bytes of output"),
            "[… cut: showing the first 32768 and last 32768 of 100000 bytes of output …]"
        );
        assert_eq!(tail_cut_notice(10, 40, "bytes of raw stderr"), "[cut: showing the last 10 of 40 bytes of raw stderr]");
    }

    #[test]
    fn counts_and_ranges() {
        assert_eq!(plural(1, "file"), "1 file");
        assert_eq!(plural(0, "file"), "0 files");
        assert_eq!(plural(2, "match"), "2 matches");
        assert_eq!(plural(3, "entry"), "3 entries");
        assert_eq!(plural(3, "key"), "3 keys");
        assert_eq!(plural(2, "process"), "2 processes");
        assert_eq!(plural(2, "hint-level diagnostic"), "2 hint-level diagnostics");
        assert_eq!(one_or_many(1, "was", "were"), "was");
        assert_eq!(one_or_many(2, "was", "were"), "were");
        assert_eq!(truncation_notice(50, 50, "matches"), None);
        assert_eq!(truncation_notice(50, 75, "matches").as_deref(), Some("showing 50 of 75 matches"));
        assert_eq!(showing_range(51, 100, 120), "showing 51–100 of 120");
        assert_eq!(showing_range(121, 120, 120), "showing none of 120");
        assert_eq!(page_notice(1, 50, 120, "offset").as_deref(), Some("showing 1–50 of 120; next: offset=50"));
        assert_eq!(page_notice(101, 120, 120, "offset").as_deref(), Some("showing 101–120 of 120"));
        assert_eq!(page_notice(1, 20, 20, "offset"), None);
    }
}
