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
}

impl LiteralRequirement {
    /// No requirement: every file passes.
    pub fn none() -> LiteralRequirement {
        LiteralRequirement::default()
    }

    /// Every one of `texts` is required.
    pub fn all_of(texts: impl IntoIterator<Item = String>) -> LiteralRequirement {
        let mut requirement = LiteralRequirement { clauses: texts.into_iter().filter(|t| !t.is_empty()).map(|t| vec![t]).collect() };
        requirement.normalize();
        requirement
    }

    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }

    /// The clauses (each a list of alternative texts).
    pub fn clauses(&self) -> &[Vec<String>] {
        &self.clauses
    }

    /// Both requirements hold.
    pub fn and(mut self, other: LiteralRequirement) -> LiteralRequirement {
        self.clauses.extend(other.clauses);
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
        let mut requirement = LiteralRequirement { clauses };
        requirement.normalize();
        requirement
    }

    /// Whether `haystack` satisfies every clause.
    pub fn admits(&self, haystack: &[u8]) -> bool {
        self.clauses.iter().all(|clause| clause.iter().any(|text| memchr::memmem::find(haystack, text.as_bytes()).is_some()))
    }

    /// A short human form: `` `a`, `b` or `c` `` (clauses joined by ", ", alternatives by " or ").
    pub fn describe(&self) -> String {
        self.clauses
            .iter()
            .map(|clause| clause.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(" or "))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn normalize(&mut self) {
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
        let mut r = LiteralRequirement { clauses: clauses.iter().map(|c| c.iter().map(|s| s.to_string()).collect()).collect() };
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
    fn operator_tokens_only() {
        assert!(is_operator_token("=="));
        assert!(is_operator_token("->"));
        assert!(!is_operator_token(";"));
        assert!(!is_operator_token("fn"));
        assert!(!is_operator_token("=a"));
    }
}
