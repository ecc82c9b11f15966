//! Candidates a pattern missed only because they have a part the pattern lacks.
//!
//! A pattern matches a node only when the node has no named part the pattern does not mention:
//! `def $F($$$P): $$$B` does not match `def f(x) -> int: …` (the `return_type` part is
//! absent from the pattern), `fn $F() { $$$B }` does not match `pub fn f() {}`. To say so
//! instead of returning a silent "0 matches", every node of the pattern's root kind that the
//! pattern did not match is checked: when the node has named parts (labelled by field name,
//! else kind) that the pattern's root lacks, and no part of the pattern is absent from the
//! node, the pattern is re-matched with a wildcard (plus the node's own punctuation, such as
//! `->`) inserted where each extra part sits. If that specialised pattern matches, the node was
//! missed only because of those parts, and the result counts it per part with an example and
//! the text to add (`-> $RETURN_TYPE`).

use std::collections::BTreeMap;

use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Node, Pattern};
use ast_grep_language::SupportLang;

use crate::structural::compile::{part_label, CompiledPattern};

/// The check for one compiled pattern; `None` from [`MissedPartsProbe::new`] when the pattern's
/// root cannot lack a part (a metavariable, a leaf).
#[derive(Clone)]
pub struct MissedPartsProbe {
    pattern: Pattern,
    root_kind: u16,
    /// Root children of the pattern with their part labels (`None` for punctuation).
    children: Vec<(PatternNode, Option<String>)>,
}

/// What the probe found in one file or a whole walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissedParts {
    /// Candidates missed only because of parts the pattern lacks.
    pub candidates: usize,
    /// Per part label (e.g. `return_type`), how many of those candidates have it.
    pub by_part: BTreeMap<String, usize>,
    /// The first example: (path, 1-based line, what to add to the pattern, e.g.
    /// `-> $RETURN_TYPE`). The path is empty until the file is known.
    pub example: Option<(String, usize, String)>,
}

impl MissedParts {
    /// Adds another tally (keeps the first example).
    pub fn merge(&mut self, other: MissedParts) {
        self.candidates += other.candidates;
        for (part, count) in other.by_part {
            *self.by_part.entry(part).or_default() += count;
        }
        if self.example.is_none() {
            self.example = other.example;
        }
    }
}

impl MissedPartsProbe {
    /// The probe for `compiled`'s first reading, if its root can lack a part.
    pub fn new(compiled: &CompiledPattern) -> Option<MissedPartsProbe> {
        let labels = compiled.root_parts.as_ref()?;
        let PatternNode::Internal { kind_id, children } = &compiled.pattern.node else {
            return None;
        };
        if children.len() != labels.len() || !labels.iter().any(Option::is_some) {
            return None;
        }
        Some(MissedPartsProbe {
            pattern: compiled.pattern.clone(),
            root_kind: *kind_id,
            children: children.iter().cloned().zip(labels.iter().cloned()).collect(),
        })
    }

    /// The kind id of the pattern's root: only nodes of this kind are candidates.
    pub fn root_kind(&self) -> u16 {
        self.root_kind
    }

    /// For `candidate` (of the root kind, not matched by the query): records it in `tally`
    /// when the pattern matches once the candidate's extra parts are allowed.
    pub fn check(&self, candidate: &Node<'_, StrDoc<SupportLang>>, tally: &mut MissedParts) {
        let inner = candidate.get_inner_node();
        // The candidate's children grouped as (punctuation before, named child, label).
        let mut groups: Vec<(Vec<Node<'_, StrDoc<SupportLang>>>, Node<'_, StrDoc<SupportLang>>, String)> = Vec::new();
        let mut pending: Vec<Node<'_, StrDoc<SupportLang>>> = Vec::new();
        for (index, child) in candidate.children().enumerate() {
            if child.is_named() && !child.is_extra() {
                let label = part_label(&inner, index, &child.kind());
                groups.push((std::mem::take(&mut pending), child, label));
            } else if !child.is_extra() {
                pending.push(child);
            }
        }
        // Multiset difference of labels, both ways.
        let mut wanted: BTreeMap<&str, usize> = BTreeMap::new();
        for label in self.children.iter().filter_map(|(_, label)| label.as_deref()) {
            *wanted.entry(label).or_default() += 1;
        }
        let mut extra_indices = Vec::new();
        for (index, (_, _, label)) in groups.iter().enumerate() {
            match wanted.get_mut(label.as_str()) {
                Some(count) if *count > 0 => *count -= 1,
                _ => extra_indices.push(index),
            }
        }
        if extra_indices.is_empty() || wanted.values().any(|count| *count > 0) {
            return;
        }
        // The pattern's groups: (punctuation before, named child) in order, plus trailing
        // punctuation.
        let mut pattern_groups: Vec<(Vec<PatternNode>, PatternNode, String)> = Vec::new();
        let mut pattern_pending: Vec<PatternNode> = Vec::new();
        for (node, label) in &self.children {
            match label {
                Some(label) => pattern_groups.push((std::mem::take(&mut pattern_pending), node.clone(), label.clone())),
                None => pattern_pending.push(node.clone()),
            }
        }
        let trailing = pattern_pending;
        let mut merged: Vec<PatternNode> = Vec::new();
        let mut next_pattern_group = pattern_groups.into_iter();
        for (index, (punctuation, _, _)) in groups.iter().enumerate() {
            if extra_indices.contains(&index) {
                merged.extend(punctuation.iter().map(terminal_of));
                merged.push(PatternNode::MetaVar { meta_var: MetaVariable::Dropped(true) });
            } else if let Some((pattern_punctuation, node, _)) = next_pattern_group.next() {
                merged.extend(pattern_punctuation);
                merged.push(node);
            }
        }
        merged.extend(trailing);
        let mut specialised = self.pattern.clone();
        specialised.node = PatternNode::Internal { kind_id: self.root_kind, children: merged };
        if specialised.match_node(candidate.clone()).is_none() {
            return;
        }
        tally.candidates += 1;
        for &index in &extra_indices {
            *tally.by_part.entry(groups[index].2.clone()).or_default() += 1;
        }
        if tally.example.is_none() {
            let (punctuation, node, label) = &groups[extra_indices[0]];
            let mut addition: String = punctuation.iter().map(|p| p.text().into_owned()).collect::<Vec<_>>().join(" ");
            if !addition.is_empty() {
                addition.push(' ');
            }
            addition.push('$');
            addition.push_str(&label.to_ascii_uppercase());
            tally.example = Some((String::new(), node.start_pos().line() + 1, addition));
        }
    }

    /// Whether `node` is a candidate: of the root kind and not matched by `query`.
    pub fn is_candidate(&self, node: &Node<'_, StrDoc<SupportLang>>) -> bool {
        node.kind_id() == self.root_kind
    }
}

fn terminal_of(node: &Node<'_, StrDoc<SupportLang>>) -> PatternNode {
    PatternNode::Terminal { text: node.text().into_owned(), is_named: node.is_named(), kind_id: node.kind_id() }
}
