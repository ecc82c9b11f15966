//! What `ast_grep` and `ast_edit` search for: a compiled pattern or a compiled rule, behind one
//! matcher, with the per-file scan both tools share (every match in pre-order, and the
//! candidates a pattern missed only because of parts it lacks).

use std::borrow::Cow;

use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::meta_var::MetaVarEnv;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Doc, Matcher, Node, NodeMatch};
use ast_grep_language::SupportLang;
use bit_set::BitSet;

use crate::structural::compile::{language_id, CompiledPattern};
use crate::structural::evaluate::{CutReason, FileEvaluation, MatchBudget};
use crate::structural::literals::{LiteralIndex, LiteralRequirement};
use crate::structural::missed::{MissedParts, MissedPartsProbe};
use crate::structural::rule::CompiledRule;
use crate::structural::search::ParsedFile;

/// A compiled pattern or rule.
#[derive(Debug)]
pub enum Query {
    /// A `pattern` string compiled by the contextual compiler.
    Pattern(CompiledPattern),
    /// A `rule` object compiled by ast-grep-config.
    Rule(CompiledRule),
}

impl Query {
    /// The language it was compiled for.
    pub fn language(&self) -> SupportLang {
        match self {
            Query::Pattern(p) => p.language,
            Query::Rule(r) => r.language,
        }
    }

    /// What a file must contain to be parsed.
    pub fn requirement(&self) -> &LiteralRequirement {
        match self {
            Query::Pattern(p) => &p.requirement,
            Query::Rule(r) => &r.requirement,
        }
    }

    /// What a matched node's own text must contain: a pattern's literals are all inside the
    /// node; a rule's exclude what `inside`, `precedes` and `follows` relate to.
    pub fn node_requirement(&self) -> &LiteralRequirement {
        match self {
            Query::Pattern(p) => &p.requirement,
            Query::Rule(r) => &r.node_requirement,
        }
    }

    /// Metavariables it can bind, sorted.
    pub fn metavariables(&self) -> &[String] {
        match self {
            Query::Pattern(p) => &p.metavariables,
            Query::Rule(r) => &r.metavariables,
        }
    }

    /// Compile warnings.
    pub fn warnings(&self) -> &[String] {
        match self {
            Query::Pattern(p) => &p.warnings,
            Query::Rule(r) => &r.warnings,
        }
    }

    /// How to name it in a message: `` `$X.unwrap()` `` or `rule {…}` (cut to 300 characters).
    pub fn display(&self) -> String {
        match self {
            Query::Pattern(p) => format!("`{}`", p.source),
            Query::Rule(r) => {
                let mut text: String = r.source.chars().take(300).collect();
                if r.source.chars().count() > 300 {
                    text.push('…');
                }
                format!("rule {text}")
            }
        }
    }

    /// One line saying what it compiled to: `pattern compiled as statement context →
    /// call_expression`, or `rule → call_expression`.
    pub fn compiled_as(&self) -> String {
        match self {
            Query::Pattern(p) => format!("pattern compiled as {}", p.compiled_as()),
            Query::Rule(r) => r.compiled_as(),
        }
    }

    /// The canonical language id.
    pub fn language_id(&self) -> &'static str {
        language_id(self.language())
    }

    /// The missed-parts probe of a pattern whose root can lack parts, examining at most `cap`
    /// candidates (`None` when `cap` is 0).
    pub fn missed_parts_probe(&self, cap: usize) -> Option<MissedPartsProbe> {
        if cap == 0 {
            return None;
        }
        match self {
            Query::Pattern(p) => MissedPartsProbe::with_cap(p, cap),
            Query::Rule(_) => None,
        }
    }
}

impl Matcher for Query {
    fn match_node_with_env<'tree, D: Doc>(&self, node: Node<'tree, D>, env: &mut Cow<MetaVarEnv<'tree, D>>) -> Option<Node<'tree, D>> {
        match self {
            Query::Pattern(p) => p.match_node_with_env(node, env),
            Query::Rule(r) => r.match_node_with_env(node, env),
        }
    }

    fn potential_kinds(&self) -> Option<BitSet> {
        match self {
            Query::Pattern(p) => p.potential_kinds(),
            Query::Rule(r) => r.potential_kinds(),
        }
    }

    fn get_match_len<D: Doc>(&self, node: Node<'_, D>) -> Option<usize> {
        match self {
            Query::Pattern(p) => p.get_match_len(node),
            Query::Rule(r) => r.get_match_len(node),
        }
    }
}

/// What [`scan_file`] found in one file.
pub struct FileScan<'tree> {
    /// The matches kept, in pre-order (an enclosing match before the matches inside it): the
    /// first `keep_matches` found.
    pub matches: Vec<NodeMatch<'tree, StrDoc<SupportLang>>>,
    /// Matches found past `keep_matches`: counted, not kept (issue 13 §6: a pattern such as
    /// `$X` matches every node of a file).
    pub matches_not_kept: usize,
    /// Candidates a pattern missed only because of parts it lacks.
    pub missed: MissedParts,
    /// Why the scan stopped before the end of the file; the matches found before are kept
    /// (each was complete when found), the rest of the file was not searched.
    pub cut: Option<CutReason>,
}

/// Every match of `query` in `parsed`, in pre-order (an enclosing match before the matches
/// inside it), and what `probe` found among the nodes of the pattern's root kind that did not
/// match; at most `keep_matches` matches are kept (the rest counted), and the scan stops when
/// `budget` runs out (deadline, cancel, steps, stack), saying so in [`FileScan::cut`].
///
/// A rule is evaluated by its bounded program ([`crate::structural::evaluate`]); a pattern
/// counts one step per node it is tried on.
///
/// The walk skips every subtree whose text cannot hold a match: when the query's node
/// requirement is not empty (a pattern's identifiers and operators, a rule's pattern, regex and
/// `has` literals), the occurrences of those texts are indexed once per file, and a subtree
/// whose byte range contains no occurrence of some clause is not entered. A match's text
/// contains them all, so nothing is lost; most of a file's tree is never visited.
pub fn scan_file<'tree>(
    parsed: &'tree ParsedFile,
    query: &Query,
    probe: Option<&MissedPartsProbe>,
    budget: &MatchBudget,
    keep_matches: usize,
) -> FileScan<'tree> {
    let kinds = query.potential_kinds();
    let program = match query {
        Query::Rule(rule) => Some(&*rule.program),
        Query::Pattern(_) => None,
    };
    let mut evaluation = FileEvaluation::new(program, budget);
    let mut found = Vec::new();
    let mut matches_not_kept = 0usize;
    let mut missed = MissedParts::default();
    // `false` once the budget ran out: the scan stops.
    let mut visit = |node: Node<'tree, StrDoc<SupportLang>>, evaluation: &mut FileEvaluation<'_, 'tree>| -> bool {
        let kind = node.kind_id();
        let probe_here = probe.filter(|p| p.root_kind() == Some(kind));
        if probe_here.is_none() && kinds.as_ref().is_some_and(|k| !k.contains(kind.into())) {
            return true;
        }
        let matched = match program {
            Some(_) => evaluation.match_node(node.clone()),
            None => {
                if !evaluation.step() {
                    return false;
                }
                query.match_node(node.clone())
            }
        };
        if evaluation.cut().is_some() {
            return false;
        }
        match matched {
            Some(matched) if found.len() < keep_matches => found.push(matched),
            Some(_) => matches_not_kept += 1,
            None => {
                if let Some(probe) = probe_here {
                    probe.check(&node, &mut missed);
                }
            }
        }
        true
    };
    let requirement = query.node_requirement();
    if requirement.is_empty() {
        for node in parsed.root().dfs() {
            if !visit(node, &mut evaluation) {
                break;
            }
        }
        let cut = evaluation.cut();
        return FileScan { matches: found, matches_not_kept, missed, cut };
    }
    let index = LiteralIndex::new(requirement, parsed.source().as_bytes());
    // Occurrences of the pattern's word in unparsed nodes (Rust macro arguments), tallied
    // apart from `visit`'s candidates and merged at the end.
    let mut unparsed = MissedParts::default();
    // Pre-order with an explicit stack (children pushed in reverse). Not ast-grep's `Prune`
    // walk: it builds each node through `Root::adopt`, whose debug assertion walks the parent
    // chain, quadratic over a minified file's thousands of siblings in debug builds.
    let mut stack = vec![parsed.root()];
    while let Some(node) = stack.pop() {
        if !index.admits_range(node.range()) {
            continue;
        }
        if let Some(probe) = probe {
            probe.count_unparsed(&node, &mut unparsed);
        }
        let first_child = stack.len();
        stack.extend(node.children());
        stack[first_child..].reverse();
        if !visit(node, &mut evaluation) {
            break;
        }
    }
    missed.merge(unparsed);
    let cut = evaluation.cut();
    FileScan { matches: found, matches_not_kept, missed, cut }
}

/// Whether every metavariable of `names` is bound in `env` (a `$$$` binding of zero nodes
/// counts as bound; a variable of an `any` branch that did not match, or of a `not`, is not).
pub fn unbound_in<'a>(env: &MetaVarEnv<'_, StrDoc<SupportLang>>, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let bound: Vec<String> = env.get_matched_variables().map(|v| metavariable_name(&v)).collect();
    names.into_iter().filter(|name| !bound.iter().any(|b| b == name)).collect()
}

fn metavariable_name(variable: &ast_grep_core::meta_var::MetaVariable) -> String {
    use ast_grep_core::meta_var::MetaVariable as M;
    match variable {
        M::Capture(name, _) | M::MultiCapture(name) => name.clone(),
        M::Dropped(_) | M::Multiple => String::new(),
    }
}

/// The code bound to metavariable `name` in `env`: one node's text, a `$$$` binding's source
/// from its first to its last node (empty when it matched no node), or a transformed value;
/// `None` when `name` is not bound.
pub fn binding_text<'s>(env: &MetaVarEnv<'_, StrDoc<SupportLang>>, name: &str, source: &'s str) -> Option<Cow<'s, str>> {
    if let Some(node) = env.get_match(name) {
        return Some(Cow::Borrowed(&source[node.range()]));
    }
    if let Some(transformed) = env.get_transformed(name) {
        return Some(Cow::Owned(String::from_utf8_lossy(transformed).into_owned()));
    }
    if !env.get_matched_variables().any(|v| metavariable_name(&v) == name) {
        return None;
    }
    let nodes = env.get_multiple_matches(name);
    Some(Cow::Borrowed(match (nodes.first(), nodes.last()) {
        (Some(first), Some(last)) => &source[first.range().start..last.range().end],
        _ => "",
    }))
}
