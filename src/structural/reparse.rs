//! Rewrites must still parse: a rewritten file is parsed again with the same grammar and every
//! ERROR or MISSING node that was not in the original (at the same place, after shifting by the
//! edits before it) is a new parse problem, reported with its line and the replacement that
//! most likely caused it (the nearest one at or before it).

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Node};
use ast_grep_language::SupportLang;

use crate::structural::search::ParsedFile;

/// One replacement in a file, in the original's bytes.
#[derive(Debug, Clone)]
pub struct AppliedEdit {
    /// Byte offset in the original.
    pub position: usize,
    /// Bytes of the original replaced.
    pub deleted_length: usize,
    /// The replacement text.
    pub inserted: String,
}

/// A parse problem the rewrite introduced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewParseProblem {
    /// 1-based line in the rewritten file.
    pub line: usize,
    /// `syntax error near `…`` or `missing `;``.
    pub what: String,
    /// The replacement held responsible: 1-based line in the original, old text, new text.
    pub replacement: Option<(usize, String, String)>,
}

/// An ERROR or MISSING node of a parse: what it is, where, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    tag: String,
    start: usize,
    end: usize,
    text: String,
}

/// The parse problems of a parsed file (top-level ERROR nodes and MISSING nodes, in order):
/// what [`new_parse_problems`] compares the rewritten file's with, read before the original
/// tree is dropped.
pub fn parse_problems(original: &ParsedFile) -> Vec<Problem> {
    problems(&original.root())
}

/// The rewritten text parsed again with `language`'s grammar (the original's tree is not
/// needed, so the caller drops it first): what [`new_parse_problems`] and the structure check
/// (`precedence::changed_groupings`) read.
///
/// # Errors
/// The parser's message when tree-sitter fails on the new content.
pub fn reparse(new_content: &str, language: SupportLang) -> Result<ParsedFile, String> {
    AstGrep::<StrDoc<SupportLang>>::try_new(new_content, language)
}

/// The parse problems of `reparsed` (`original_source` with `edits` applied, sorted by
/// position, parsed again by [`reparse`]) that the original did not have (`before`, from
/// [`parse_problems`]).
pub fn new_parse_problems(before: &[Problem], original_source: &str, reparsed: &ParsedFile, edits: &[AppliedEdit]) -> Vec<NewParseProblem> {
    let new_content = reparsed.source();
    let after = problems(&reparsed.root());
    if after.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for problem in after {
        let existed = before
            .iter()
            .any(|old| old.tag == problem.tag && old.text == problem.text && map_offset(old.start, edits) == Some(problem.start));
        if existed {
            continue;
        }
        let line_of = |offset: usize| new_content[..offset.min(new_content.len())].matches('\n').count() + 1;
        let mut line = line_of(problem.start);
        let responsible = responsible_edit(problem.start..problem.end, edits);
        let replacement = responsible.map(|(_, edit)| {
            let old_line = original_source[..edit.position.min(original_source.len())].matches('\n').count() + 1;
            let old_text = original_source.get(edit.position..edit.position + edit.deleted_length).unwrap_or("").to_owned();
            (old_line, old_text, edit.inserted.clone())
        });
        // tree-sitter's recovery can open an ERROR node lines before the replacement that broke
        // the parse (trial27a M5: an unclosed `raise er.SchemaError($M` at line 41 gave an ERROR
        // from line 2): the replacement inside it is where the problem is, so its line is named.
        let recovery = responsible.filter(|(start, edit)| {
            problem.tag == "ERROR" && problem.start <= *start && start + edit.inserted.len() <= problem.end && line_of(*start) > line
        });
        if let Some((start, _)) = recovery {
            let error_lines = (line, line_of(problem.end));
            line = line_of(start);
            let line_start = new_content[..start].rfind('\n').map_or(0, |at| at + 1);
            let line_text = new_content[line_start..].lines().next().unwrap_or("");
            let near: String = line_text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(50).collect();
            found.push(NewParseProblem {
                line,
                what: format!(
                    "syntax error at the replacement `{near}` (the parser's error node spans lines {}–{}, from where its recovery began)",
                    error_lines.0, error_lines.1
                ),
                replacement,
            });
            continue;
        }
        let what = if problem.tag == "ERROR" {
            let near: String = problem.text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(50).collect();
            if near.is_empty() {
                "syntax error".to_owned()
            } else {
                format!("syntax error near `{near}`")
            }
        } else {
            problem.tag.clone()
        };
        found.push(NewParseProblem { line, what, replacement });
    }
    found
}

/// Top-level ERROR nodes (not inside another ERROR) and MISSING nodes, in order.
fn problems(root: &Node<'_, StrDoc<SupportLang>>) -> Vec<Problem> {
    if !root.get_inner_node().has_error() {
        return Vec::new();
    }
    let mut out = Vec::new();
    collect(root, &mut out);
    out
}

fn collect(node: &Node<'_, StrDoc<SupportLang>>, out: &mut Vec<Problem>) {
    let inner = node.get_inner_node();
    if !inner.has_error() {
        return;
    }
    if node.is_missing() {
        let kind = node.kind();
        let tag = if node.is_named() { format!("missing `{kind}` node") } else { format!("missing `{kind}`") };
        out.push(Problem { tag, start: node.range().start, end: node.range().end, text: String::new() });
        return;
    }
    if node.is_error() {
        out.push(Problem { tag: "ERROR".to_owned(), start: node.range().start, end: node.range().end, text: node.text().into_owned() });
        return;
    }
    for child in node.children() {
        collect(&child, out);
    }
}

/// Where an original offset lands after the edits; `None` inside a replaced range.
fn map_offset(offset: usize, edits: &[AppliedEdit]) -> Option<usize> {
    let mut shifted = offset as isize;
    for edit in edits {
        if edit.position + edit.deleted_length <= offset {
            shifted += edit.inserted.len() as isize - edit.deleted_length as isize;
        } else if edit.position < offset {
            return None;
        } else {
            break;
        }
    }
    usize::try_from(shifted).ok()
}

/// The edit closest to `problem` (a byte range of the rewritten file): one whose replacement
/// overlaps or touches it, else the nearest one; with its start in the rewritten file.
fn responsible_edit(problem: std::ops::Range<usize>, edits: &[AppliedEdit]) -> Option<(usize, &AppliedEdit)> {
    let mut delta: isize = 0;
    let mut best: Option<(usize, usize, &AppliedEdit)> = None;
    for edit in edits {
        let start = (edit.position as isize + delta).max(0) as usize;
        let end = start + edit.inserted.len();
        let distance = if end < problem.start { problem.start - end } else { start.saturating_sub(problem.end) };
        if best.is_none_or(|(best_distance, _, _)| distance < best_distance) {
            best = Some((distance, start, edit));
        }
        delta += edit.inserted.len() as isize - edit.deleted_length as isize;
    }
    best.map(|(_, start, edit)| (start, edit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(source: &str, language: SupportLang) -> ParsedFile {
        AstGrep::<StrDoc<SupportLang>>::try_new(source, language).unwrap()
    }

    #[test]
    fn new_error_is_found_and_attributed() {
        let original = "def f():\n    msg = build(a)\n    return msg\n";
        let parsed = parse(original, SupportLang::Python);
        let position = original.find("build(a)").unwrap();
        let edits = vec![AppliedEdit { position, deleted_length: "build(a)".len(), inserted: String::new() }];
        let new_content = original.replace("build(a)", "");
        let problems = new_parse_problems(&parse_problems(&parsed), original, &parse(&new_content, SupportLang::Python), &edits);
        assert!(!problems.is_empty());
        // The parser notices the dangling `msg =` where the next statement starts.
        assert!(matches!(problems[0].line, 2 | 3), "{problems:?}");
        assert_eq!(problems[0].replacement, Some((2, "build(a)".to_owned(), String::new())));
    }

    #[test]
    fn an_error_node_opened_lines_before_the_replacement_is_named_at_the_replacement() {
        // voluptuous 0.16.0's shape (trial27a M5): every `raise er.SchemaError($M)` of the module
        // rewritten to an unclosed call; tree-sitter's ERROR node starts at the imports.
        let original = "# fmt: off\nfrom __future__ import annotations\n\nimport collections\n\n\ndef Self():\n    raise er.SchemaError('a')\n\n\ndef Extra():\n    raise er.SchemaError('b')\n\n\nclass Schema:\n    def check(self):\n        raise er.SchemaError('c')\n";
        let parsed = parse(original, SupportLang::Python);
        let mut edits = Vec::new();
        let mut new_content = String::new();
        let mut copied = 0;
        for (position, _) in original.match_indices("raise er.SchemaError(") {
            let end = position + original[position..].find(')').unwrap() + 1;
            new_content.push_str(&original[copied..position]);
            let inserted = original[position..end - 1].to_owned();
            new_content.push_str(&inserted);
            copied = end;
            edits.push(AppliedEdit { position, deleted_length: end - position, inserted });
        }
        new_content.push_str(&original[copied..]);
        let problems = new_parse_problems(&parse_problems(&parsed), original, &parse(&new_content, SupportLang::Python), &edits);
        assert!(!problems.is_empty());
        assert_eq!(problems[0].line, 8, "{problems:?}");
        assert!(problems[0].what.contains("the parser's error node spans lines 2–17"), "{problems:?}");
        assert_eq!(problems[0].replacement, Some((8, "raise er.SchemaError('a')".to_owned(), "raise er.SchemaError('a'".to_owned())));
    }

    #[test]
    fn each_problem_is_attributed_to_its_own_replacement() {
        let original = "def f():\n    msg = build(a)\n    return msg\n\ndef g():\n    x = build(b)\n";
        let parsed = parse(original, SupportLang::Python);
        let edits: Vec<AppliedEdit> = original
            .match_indices("build(")
            .map(|(position, _)| AppliedEdit { position, deleted_length: "build(a)".len(), inserted: String::new() })
            .collect();
        let new_content = original.replace("build(a)", "").replace("build(b)", "");
        let problems = new_parse_problems(&parse_problems(&parsed), original, &parse(&new_content, SupportLang::Python), &edits);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].replacement.as_ref().map(|r| r.0), Some(2), "{problems:?}");
        assert_eq!(problems[1].replacement.as_ref().map(|r| r.1.as_str()), Some("build(b)"), "{problems:?}");
    }

    #[test]
    fn existing_errors_are_not_new() {
        let original = "fn a() { let x = ; }\nfn b() { foo(1); }\n";
        let parsed = parse(original, SupportLang::Rust);
        let position = original.find("foo(1)").unwrap();
        let edits = vec![AppliedEdit { position, deleted_length: 6, inserted: "bar(1, 2)".to_owned() }];
        let new_content = original.replace("foo(1)", "bar(1, 2)");
        assert_eq!(new_parse_problems(&parse_problems(&parsed), original, &parse(&new_content, SupportLang::Rust), &edits), Vec::new());
    }

    #[test]
    fn offsets_shift_and_replaced_ranges_do_not_map() {
        let edits = vec![AppliedEdit { position: 10, deleted_length: 5, inserted: "abcdefgh".to_owned() }];
        assert_eq!(map_offset(3, &edits), Some(3));
        assert_eq!(map_offset(12, &edits), None);
        assert_eq!(map_offset(20, &edits), Some(23));
    }
}
