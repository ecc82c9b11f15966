//! The literal pre-filter: texts a file must contain for a pattern or rule to match anywhere in
//! it, checked with a SIMD substring search before the file is parsed (parsing is ~100× the
//! cost of a substring scan per byte).
//!
//! A requirement is a conjunction of clauses, each clause a disjunction of texts: a file passes
//! when, for every clause, it contains at least one of the clause's texts. A pattern yields one
//! single-text clause per text every match must contain; `any` of several sub-rules yields
//! clauses that pick one text from each branch; `not`, `kind`, `regex`, `nthChild` and `range`
//! yield none. Every derivation only ever weakens what is required, never strengthens it, so the
//! filter never drops a file that has a match (tests compare with the filter off).

use ast_grep_core::matcher::PatternNode;
use ast_grep_core::MatchStrictness;

/// Most clauses kept in one requirement; an `or` of two requirements multiplies clause counts,
/// and dropping clauses only weakens the filter (it stays exact, just less selective).
const MAX_CLAUSES: usize = 16;

/// Texts a file must contain: every clause must have at least one of its texts in the file.
/// Empty = no requirement (every file is parsed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiteralRequirement {
    /// Each clause lists alternatives (sorted, deduplicated); clauses sorted longest first.
    clauses: Vec<Vec<String>>,
    /// Operators that must occur with the same code on both sides (a pattern `$A == $A`): see
    /// [`same_code_around_operator_possible`]. Sorted, deduplicated.
    equal_operands: Vec<String>,
}

impl LiteralRequirement {
    /// No requirement: every file passes.
    pub fn none() -> LiteralRequirement {
        LiteralRequirement::default()
    }

    /// Every one of `texts` is required.
    pub fn all_of(texts: impl IntoIterator<Item = String>) -> LiteralRequirement {
        let mut requirement = LiteralRequirement {
            clauses: texts.into_iter().filter(|t| !t.is_empty()).map(|t| vec![t]).collect(),
            equal_operands: Vec::new(),
        };
        requirement.normalize();
        requirement
    }

    /// The operator `operator` must occur with the same code on both sides (for a pattern
    /// `$A == $A` of a language whose comments are `//`, `/* */` or `#`); see
    /// [`same_code_around_operator_possible`].
    pub fn same_code_around(operator: &str) -> LiteralRequirement {
        LiteralRequirement { clauses: Vec::new(), equal_operands: vec![operator.to_owned()] }
    }

    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty() && self.equal_operands.is_empty()
    }

    /// The clauses (each a list of alternative texts).
    pub fn clauses(&self) -> &[Vec<String>] {
        &self.clauses
    }

    /// Both requirements hold.
    pub fn and(mut self, other: LiteralRequirement) -> LiteralRequirement {
        self.clauses.extend(other.clauses);
        self.equal_operands.extend(other.equal_operands);
        self.normalize();
        self
    }

    /// At least one of the requirements holds: (A1 ∧ A2) ∨ (B1 ∧ B2) = ∧ᵢⱼ (Aᵢ ∨ Bⱼ), capped.
    /// When either side requires nothing, nothing is required.
    pub fn or(self, other: LiteralRequirement) -> LiteralRequirement {
        if self.is_empty() || other.is_empty() {
            return LiteralRequirement::none();
        }
        let mut clauses = Vec::new();
        'outer: for left in &self.clauses {
            for right in &other.clauses {
                if clauses.len() >= MAX_CLAUSES {
                    break 'outer;
                }
                let mut clause = left.clone();
                clause.extend(right.iter().cloned());
                clauses.push(clause);
            }
        }
        // Operators required on both sides stay required.
        let equal_operands = self.equal_operands.iter().filter(|op| other.equal_operands.contains(op)).cloned().collect();
        let mut requirement = LiteralRequirement { clauses, equal_operands };
        requirement.normalize();
        requirement
    }

    /// Whether `haystack` satisfies every clause (and, for each operator of
    /// [`LiteralRequirement::same_code_around`], has an occurrence that could have the same
    /// code on both sides).
    pub fn admits(&self, haystack: &[u8]) -> bool {
        self.clauses.iter().all(|clause| clause.iter().any(|text| memchr::memmem::find(haystack, text.as_bytes()).is_some()))
            && self.equal_operands.iter().all(|op| same_code_around_operator_possible(haystack, op.as_bytes()))
    }

    /// A short human form: `` `a`, `b` or `c` `` (clauses joined by ", ", alternatives by " or "),
    /// then `` `==` with the same code on both sides `` for each such operator.
    pub fn describe(&self) -> String {
        self.clauses
            .iter()
            .map(|clause| clause.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(" or "))
            .chain(self.equal_operands.iter().map(|op| format!("`{op}` with the same code on both sides")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn normalize(&mut self) {
        self.equal_operands.sort();
        self.equal_operands.dedup();
        for clause in &mut self.clauses {
            clause.sort();
            clause.dedup();
        }
        // A clause that contains another clause's every alternative is implied by it.
        self.clauses.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| b[0].len().cmp(&a[0].len())).then_with(|| a.cmp(b)));
        self.clauses.dedup();
        let mut kept: Vec<Vec<String>> = Vec::with_capacity(self.clauses.len());
        for clause in self.clauses.drain(..) {
            if !kept.iter().any(|k| k.iter().all(|text| clause.contains(text))) {
                kept.push(clause);
            }
        }
        kept.truncate(MAX_CLAUSES);
        self.clauses = kept;
    }
}

/// Where the texts of a requirement occur in one file, to ask of any byte range whether the
/// requirement could hold inside it: a subtree whose range does not is skipped without visiting
/// its nodes.
#[derive(Debug, Clone)]
pub struct LiteralIndex {
    /// Per clause, per alternative: (text length, sorted start offsets).
    clauses: Vec<Vec<(usize, Vec<usize>)>>,
}

impl LiteralIndex {
    /// Indexes every occurrence of the requirement's texts in `haystack`.
    pub fn new(requirement: &LiteralRequirement, haystack: &[u8]) -> LiteralIndex {
        let clauses = requirement
            .clauses
            .iter()
            .map(|clause| clause.iter().map(|text| (text.len(), memchr::memmem::find_iter(haystack, text.as_bytes()).collect())).collect())
            .collect();
        LiteralIndex { clauses }
    }

    /// Whether every clause has an occurrence lying wholly inside `range`.
    pub fn admits_range(&self, range: std::ops::Range<usize>) -> bool {
        self.clauses.iter().all(|clause| {
            clause.iter().any(|(len, starts)| {
                let first = starts.partition_point(|&start| start < range.start);
                starts.get(first).is_some_and(|&start| start + len <= range.end)
            })
        })
    }
}

/// Bytes a projection drops: ASCII whitespace, every byte of a non-ASCII character (which
/// covers Unicode whitespace and the zero-width characters grammars skip as extras) and `\\`
/// (line continuations). Dropping a fixed set of bytes from two equal strings leaves them equal.
fn dropped_from_projection(byte: u8) -> bool {
    byte.is_ascii_whitespace() || byte == 0x0b || byte >= 0x80 || byte == b'\\'
}

/// Whether `haystack` has an occurrence of `operator` that could be a match of `$A op $A`: the
/// same code on both sides.
///
/// In a match the operator's left operand L ends right before it and the right operand R starts
/// right after it, with only whitespace and comments between; and R equals L (ast-grep compares
/// a repeated metavariable's bindings leaf by leaf: the same leaf texts, whatever the
/// whitespace between them). So in the file with the dropped bytes removed (the projection, see
/// `dropped_from_projection`), some k ≥ 1 bytes right before the operator equal the k bytes
/// right after it. An occurrence is checked that way unless a comment may stand between an
/// operand and the operator, which is then assumed possible: the byte before the operator's
/// left gap is `/` (a `*/`), the line holding it contains `//` or `#` while the gap crosses a
/// line end, or the first byte after the right gap is `/` or `#`. (Only for languages whose
/// comments are `//`, `/* */` and `#`.) The search for k is bounded by a budget proportional to
/// the file's size; past it the file is admitted. The check never rejects a file holding a
/// match; it rejects most files holding the operator only between different operands.
pub fn same_code_around_operator_possible(haystack: &[u8], operator: &[u8]) -> bool {
    if operator.is_empty() || operator.iter().any(|&b| dropped_from_projection(b)) {
        return true;
    }
    let finder = memchr::memmem::Finder::new(operator);
    // Every occurrence, overlapping ones too (`===` holds `==` at two offsets).
    let mut occurrences = Vec::new();
    let mut from = 0;
    while let Some(found) = finder.find(&haystack[from..]) {
        occurrences.push(from + found);
        from += found + 1;
    }
    if occurrences.is_empty() {
        return false;
    }
    // The projection, and each occurrence's offset in it (the operator has no dropped byte).
    let mut projection = Vec::with_capacity(haystack.len());
    let mut projected = Vec::with_capacity(occurrences.len());
    let mut next = occurrences.iter().peekable();
    for (index, &byte) in haystack.iter().enumerate() {
        while next.peek().is_some_and(|&&at| at == index) {
            projected.push(projection.len());
            next.next();
        }
        if !dropped_from_projection(byte) {
            projection.push(byte);
        }
    }
    let mut budget = 16 * haystack.len() + 100_000;
    for (&at, &p) in occurrences.iter().zip(&projected) {
        // The left gap: dropped bytes before the operator.
        let mut left = at;
        let mut left_gap_has_newline = false;
        while left > 0 && dropped_from_projection(haystack[left - 1]) {
            left_gap_has_newline |= haystack[left - 1] == b'\n';
            left -= 1;
        }
        if left == 0 {
            continue;
        }
        if haystack[left - 1] == b'/' {
            return true;
        }
        if left_gap_has_newline {
            let line_start = memchr::memrchr(b'\n', &haystack[..left]).map_or(0, |n| n + 1);
            let line = &haystack[line_start..left];
            if memchr::memmem::find(line, b"//").is_some() || memchr::memchr(b'#', line).is_some() {
                return true;
            }
        }
        // The right gap.
        let mut right = at + operator.len();
        while right < haystack.len() && dropped_from_projection(haystack[right]) {
            right += 1;
        }
        if right == haystack.len() {
            continue;
        }
        if haystack[right] == b'/' || haystack[right] == b'#' {
            return true;
        }
        let q = p + operator.len();
        let Some(&first) = projection.get(q) else { continue };
        let mut scanned_to = p;
        for j in memchr::memrchr_iter(first, &projection[..p]) {
            let k = p - j;
            if q + k > projection.len() {
                break;
            }
            let cost = 1 + (scanned_to - j) / 32 + k / 32;
            scanned_to = j;
            if cost >= budget {
                return true;
            }
            budget -= cost;
            if projection[j..p] == projection[q..q + k] {
                return true;
            }
        }
    }
    false
}

/// The texts every match of a compiled pattern contains verbatim, longest first:
///
/// - named leaves outside metavariables (identifiers, literals), which the matcher compares by
///   exact text (comments excluded: the matcher may skip them);
/// - operator tokens of two or more ASCII punctuation characters (`==`, `->`, `::`, `&&`) whose
///   text is their node kind: anonymous tokens are compared by kind, and such a kind always has
///   that text. Keyword tokens (`fn`, `def`) are not used: some grammars (PHP) match keywords
///   case-insensitively, so the text in a file may differ.
///
/// Nothing is derived under an ERROR node (ERROR matches any kind) nor for the strictness
/// levels that compare no text (`signature`) or skip pattern tokens (`ast`, `relaxed`,
/// `template` keep named leaves only).
pub fn pattern_required_texts(node: &PatternNode, strictness: &MatchStrictness, ts_language: &tree_sitter::Language) -> Vec<String> {
    let (named, anonymous) = match strictness {
        MatchStrictness::Smart | MatchStrictness::Cst => (true, true),
        MatchStrictness::Ast | MatchStrictness::Relaxed | MatchStrictness::Template => (true, false),
        MatchStrictness::Signature => (false, false),
    };
    let mut out = Vec::new();
    collect(node, ts_language, named, anonymous, &mut out);
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

/// ERROR's kind id in every tree-sitter grammar.
const ERROR_KIND: u16 = u16::MAX;

fn collect(node: &PatternNode, ts_language: &tree_sitter::Language, named: bool, anonymous: bool, out: &mut Vec<String>) {
    match node {
        PatternNode::MetaVar { .. } => {}
        PatternNode::Terminal { text, is_named, kind_id } => {
            if *kind_id == ERROR_KIND {
                return;
            }
            let kind = ts_language.node_kind_for_id(*kind_id).unwrap_or("");
            if *is_named {
                if named && !text.trim().is_empty() && !kind.contains("comment") {
                    out.push(text.clone());
                }
            } else if anonymous && text == kind && is_operator_token(text) {
                out.push(text.clone());
            }
        }
        PatternNode::Internal { kind_id, children } => {
            if *kind_id == ERROR_KIND {
                return;
            }
            for child in children {
                collect(child, ts_language, named, anonymous, out);
            }
        }
    }
}

/// Texts of two or more characters that every match of `regex` contains: the literal runs of
/// its top-level concatenation (inside groups and repetitions of at least one), never inside an
/// alternation, an optional part or a case-insensitive class. Empty when the regex does not
/// parse or requires no such text.
pub fn regex_required_texts(regex: &str) -> Vec<String> {
    let Ok(hir) = regex_syntax::parse(regex) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut run = Vec::new();
    collect_regex(&hir, &mut run, &mut out);
    flush(&mut run, &mut out);
    out.retain(|text| text.chars().count() >= 2);
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

fn collect_regex(hir: &regex_syntax::hir::Hir, run: &mut Vec<u8>, out: &mut Vec<String>) {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(literal) => run.extend_from_slice(&literal.0),
        HirKind::Concat(parts) => {
            for part in parts {
                collect_regex(part, run, out);
            }
        }
        HirKind::Capture(capture) => collect_regex(&capture.sub, run, out),
        HirKind::Repetition(repetition) if repetition.min >= 1 => {
            // The sub-expression occurs at least once, but what follows it is not adjacent.
            flush(run, out);
            collect_regex(&repetition.sub, run, out);
            flush(run, out);
        }
        // Anchors and word boundaries match no text: a run continues across them.
        HirKind::Look(_) | HirKind::Empty => {}
        _ => flush(run, out),
    }
}

fn flush(run: &mut Vec<u8>, out: &mut Vec<String>) {
    if let Ok(text) = String::from_utf8(std::mem::take(run)) {
        if !text.is_empty() {
            out.push(text);
        }
    }
}

fn is_operator_token(text: &str) -> bool {
    text.len() >= 2 && text.bytes().all(|b| b.is_ascii_punctuation())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(clauses: &[&[&str]]) -> LiteralRequirement {
        let mut r = LiteralRequirement {
            clauses: clauses.iter().map(|c| c.iter().map(|s| s.to_string()).collect()).collect(),
            equal_operands: Vec::new(),
        };
        r.normalize();
        r
    }

    #[test]
    fn and_or_admits() {
        let a = LiteralRequirement::all_of(["foo".to_owned(), "bar".to_owned()]);
        assert!(a.admits(b"xx foo yy bar"));
        assert!(!a.admits(b"xx foo yy"));
        let b = LiteralRequirement::all_of(["baz".to_owned()]);
        let either = a.clone().or(b.clone());
        assert!(either.admits(b"baz"));
        assert!(either.admits(b"foo bar"));
        assert!(!either.admits(b"foo"));
        assert!(a.clone().or(LiteralRequirement::none()).is_empty());
        let both = a.and(b);
        assert!(!both.admits(b"foo bar"));
        assert!(both.admits(b"foo bar baz"));
    }

    #[test]
    fn index_answers_for_ranges() {
        let requirement = LiteralRequirement::all_of(["==".to_owned()]).and(req(&[&["foo", "bar"]]));
        let index = LiteralIndex::new(&requirement, b"a == b; foo(x); c != d; bar == q");
        assert!(index.admits_range(0..14));
        assert!(!index.admits_range(0..6), "no foo/bar in `a == b`");
        assert!(!index.admits_range(8..23), "no == in `foo(x); c != d`");
        assert!(index.admits_range(24..33));
        assert!(!index.admits_range(25..33), "`ar == q` lacks bar");
        assert!(LiteralIndex::new(&LiteralRequirement::none(), b"x").admits_range(0..0));
    }

    #[test]
    fn implied_clauses_are_dropped() {
        let r = req(&[&["a", "b"], &["a"], &["c", "a", "b"]]);
        assert_eq!(r.clauses(), &[vec!["a".to_owned()]]);
    }

    #[test]
    fn regex_literals() {
        assert_eq!(regex_required_texts("^Result<"), vec!["Result<"]);
        assert_eq!(regex_required_texts("^test_[a-z]+$"), vec!["test_"]);
        assert_eq!(regex_required_texts("foo|bar"), Vec::<String>::new());
        assert_eq!(regex_required_texts("(?i)unwrap"), Vec::<String>::new());
        assert_eq!(regex_required_texts("a(bc)?de"), vec!["de"]);
        assert_eq!(regex_required_texts("(abc)+x"), vec!["abc"]);
        // Anchors and boundaries consume no text: `x` and `y` are adjacent in every match.
        assert_eq!(regex_required_texts("x\\by"), vec!["xy"]);
        assert_eq!(regex_required_texts("self\\.items"), vec!["self.items"]);
        assert_eq!(regex_required_texts("("), Vec::<String>::new());
    }

    #[test]
    fn same_code_around_operator() {
        let check = |text: &str| same_code_around_operator_possible(text.as_bytes(), b"==");
        assert!(check("if a == a:\n"));
        assert!(check("x = self.items[0]  ==  self.items[ 0 ]\n"));
        assert!(check("return f(x, y)==f(x,y)"));
        assert!(check("assert (p.q\n    == p.q)"));
        // A block comment before the operator, a line comment after it or on the line before: possible.
        assert!(check("a /* c */ == b"));
        assert!(check("(a # c\n == b)"));
        assert!(!check("if x\n   == y // c\n"), "the comment is after both operands");
        assert!(check("(x  // c\n == y)"));
        // Non-ASCII and backslash bytes are dropped on both sides alike.
        assert!(check("é.x == é.x"));
        assert!(check("a \\\n == a"));
        // Different operands only.
        assert!(!check("if a == b:\n    return x == 0\n"));
        assert!(!check("self.x == other.x and y == z"));
        assert!(!check("no operator here"));
        assert!(!check("a == "));
        // `===` holds `==` twice: `=== a` after `a` is no match, nor `== a` after `a =`.
        assert!(!check("a === b"));
    }

    #[test]
    fn same_code_requirement_combines() {
        let eq = LiteralRequirement::all_of(["==".to_owned()]).and(LiteralRequirement::same_code_around("=="));
        assert!(eq.admits(b"a == a"));
        assert!(!eq.admits(b"a == b"));
        assert_eq!(eq.describe(), "`==`, `==` with the same code on both sides");
        // `or` keeps only what both sides require.
        let either = eq.clone().or(LiteralRequirement::all_of(["!=".to_owned()]));
        assert!(either.admits(b"a == b"));
        assert!(!LiteralRequirement::same_code_around("==").is_empty());
    }

    #[test]
    fn operator_tokens_only() {
        assert!(is_operator_token("=="));
        assert!(is_operator_token("->"));
        assert!(!is_operator_token(";"));
        assert!(!is_operator_token("fn"));
        assert!(!is_operator_token("=a"));
    }
}
