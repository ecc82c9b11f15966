//! Candidates a pattern missed only because they have a part the pattern lacks.
//!
//! A pattern matches a node only when the node has no named part the pattern does not mention:
//! `def $F($$$P): $$$B` does not match `def f(x) -> int: …` (the `return_type` part is
//! absent from the pattern), `fn $F() { $$$B }` does not match `pub fn f() {}`, and
//! `export function $F($$$P) { $$$B }` does not match `export function f<T>(x: T): T {…}` (the
//! `type_parameters` and `return_type` of the nested `function_declaration`). To say so
//! instead of returning a silent "0 matches", every node of the pattern's root kind that the
//! pattern did not match is checked, driven by the grammar's field names rather than a list
//! per language: the pattern and the candidate are walked together from the root; at each
//! pattern node of the candidate's kind whose named parts (labelled by field name, else kind)
//! are all present in the candidate, the candidate's extra named parts get a wildcard (plus the
//! candidate's own punctuation before them, such as Python's `->`), and the pattern's parts
//! are aligned with the candidate's in order and walked into. If that specialised pattern
//! matches, the node was missed only because of those parts, and the result counts it per part
//! with an example and the text to add (`-> $RETURN_TYPE`, `<$$$TYPE_PARAMETERS>`).
//!
//! A level whose pattern children include a metavariable that is not a whole field (`foo($A)`'s
//! argument list, a `{ $$$B }` block) is a list: extra elements there are not "parts", so only
//! field-labelled extras count at such a level, and none where a `$$$` stands for elements.
//!
//! Bounded: at most [`MAX_CANDIDATES_EXAMINED`] candidates are examined per search (shared by
//! the walk's threads); the rest are counted as not examined and the result says so.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::{Language, Node, Pattern};
use ast_grep_language::SupportLang;

use crate::structural::compile::{compile_pattern, part_label, CompiledPattern, PartLabel, PartTree};

/// How many unmatched candidates of the pattern's root kind one search examines at most.
pub const MAX_CANDIDATES_EXAMINED: usize = 20_000;

/// The checks for one compiled pattern: parts its root kind's candidates have and it lacks,
/// and occurrences of its literal text inside nodes the parser leaves unparsed (Rust macro
/// arguments). `None` from [`MissedPartsProbe::new`] when neither applies.
#[derive(Clone)]
pub struct MissedPartsProbe {
    parts: Option<PartsCheck>,
    unparsed: Option<UnparsedCheck>,
    macro_arguments: Option<MacroArgumentsCheck>,
}

/// A Rust pattern that is a macro invocation whose token tree holds a single-node metavariable
/// (`itry!($E)`): inside a token tree `$E` binds one token or one bracketed group, so the
/// invocations with longer arguments (`itry!(fs::read_dir(p))`) are not matched (trial167 M1:
/// walkdir's `itry!($E)` matched 2 of its 9 `itry!` invocations, silently; `itry!($$$E)` matched
/// all). The unmatched invocations of the same macro that the widened pattern (`$$$E` at each
/// such whole argument) matches are counted; the others differ from the pattern elsewhere
/// (review49 H3: `assert_eq!($A, 1)` does not count `assert_eq!(b, 1.5)`).
#[derive(Clone)]
struct MacroArgumentsCheck {
    /// `macro_invocation`.
    invocation_kind: u16,
    /// The macro's name as the pattern spells it (`itry`, `log::debug`).
    macro_name: String,
    /// The pattern with each single metavariable that stands as a whole argument of its token
    /// tree made a `$$$` one (`itry!($$$E)`).
    widened: String,
    /// `widened`, compiled: an unmatched invocation is counted only when it matches. `None`
    /// with `arguments` (no widening splits a token tree at its commas).
    widened_pattern: Option<Pattern>,
    /// For a pattern with two or more whole-argument metavariables (`assert_eq!($A, $B)`): its
    /// top-level arguments, an unmatched invocation counted when its own top-level arguments
    /// (split at the token tree's commas) fit them (trial171 F3: `assert_eq!($A, $B)` matched 4
    /// of bitflags' ~124 two-argument `assert_eq!` calls and said nothing).
    arguments: Option<Vec<MacroArgument>>,
}

/// One top-level argument of a macro pattern's token tree (see [`MacroArgumentsCheck`]).
#[derive(Clone, Debug, PartialEq, Eq)]
enum MacroArgument {
    /// A single metavariable (`$A`): any one argument.
    One,
    /// A `$$$A`: any number of arguments, the rest.
    Rest,
    /// Literal tokens, compared without whitespace.
    Text(String),
}

/// Invocations of a pattern's macro that it did not match (see [`MacroArgumentsCheck`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnmatchedMacroInvocations {
    /// The macro, e.g. `itry`.
    pub macro_name: String,
    /// The pattern with `$$$` metavariables in the token tree, e.g. `itry!($$$E)`.
    pub widened: String,
    /// How many invocations of the macro the pattern did not match and `widened` matches (with
    /// `arguments`: whose top-level arguments fit the pattern's).
    pub count: usize,
    /// The pattern's number of top-level arguments when they were counted by splitting the
    /// token trees at their commas (two or more metavariables: `assert_eq!($A, $B)` → 2), the
    /// `widened` pattern then reaching every invocation of the macro; `None` otherwise.
    pub arguments: Option<usize>,
    /// The first: (path, 1-based line); the path is empty until the file is known.
    pub example: Option<(String, usize)>,
}

/// Occurrences of a pattern's literal word inside nodes the parser keeps unparsed: a Rust
/// macro invocation's token tree (`assert_eq!(display_width(s), 3)`), a C/C++ `#define` body
/// (`preproc_arg`). Code there is never a match for any pattern (the parser made no
/// expressions of it), so each occurrence is counted as not searched structurally.
#[derive(Clone)]
struct UnparsedCheck {
    word: String,
    /// `token_tree` (Rust) or `preproc_arg` (C, C++).
    container_kind: u16,
    /// The parent kinds a container must have to be counted (Rust: `macro_invocation`, and
    /// `macro_rule` for a `macro_rules!` body, so a nested token tree is not counted twice);
    /// empty for C.
    parent_kinds: Vec<u16>,
    /// The kind of the leaves compared with the word (Rust: `identifier`); `None` to search
    /// the container's text for the word (C's `preproc_arg` is one leaf).
    leaf_kind: Option<u16>,
}

/// What the check for a pattern's word inside unparsed nodes (Rust macro token trees, C `#define`
/// bodies) found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnparsedOccurrences {
    /// The word looked for (the pattern's longest identifier), e.g. `display_width`.
    pub word: String,
    /// How many occurrences of it lie inside unparsed nodes.
    pub occurrences: usize,
    /// In how many files.
    pub files: usize,
    /// Per container (`assert_eq!`, `#define`): occurrences.
    pub by_container: BTreeMap<String, usize>,
    /// The first: (path, 1-based line); the path is empty until the file is known.
    pub example: Option<(String, usize)>,
}

#[derive(Clone)]
struct PartsCheck {
    pattern: Pattern,
    root_kind: u16,
    parts: PartTree,
    /// Candidates examined so far by this search (all threads).
    examined: Arc<AtomicUsize>,
    cap: usize,
}

/// Distinct forms kept per part; further forms are counted in [`MissedPart::other_forms`].
pub const MAX_FORMS_PER_PART: usize = 4;

/// One part the pattern lacks, over the candidates missed because of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissedPart {
    /// How many missed candidates have it.
    pub count: usize,
    /// The kind of the node it belongs to (e.g. `function_declaration`), from the first one.
    pub of_kind: String,
    /// Where: `before the parameters`, `after the name`.
    pub position: String,
    /// Its forms, most frequent first once merged: a part can take several shapes (a
    /// TypeScript `return_type` is `: T` or `: asserts x is T`), each needing its own text.
    pub forms: Vec<PartForm>,
    /// Candidates whose part had a form beyond the first [`MAX_FORMS_PER_PART`].
    pub other_forms: usize,
}

/// One shape of a missed part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartForm {
    /// What to add to the pattern, e.g. `-> $RETURN_TYPE`, `<$$$TYPE_PARAMETERS>`.
    pub add: String,
    /// How many missed candidates have the part in this form.
    pub count: usize,
    /// The first one: (path, 1-based line, the part's code, cut to one line). The path is empty
    /// until the file is known.
    pub example: (String, usize, String),
}

impl MissedPart {
    fn add_form(&mut self, form: PartForm) {
        if let Some(existing) = self.forms.iter_mut().find(|f| f.add == form.add) {
            existing.count += form.count;
        } else if self.forms.len() < MAX_FORMS_PER_PART {
            self.forms.push(form);
        } else {
            self.other_forms += form.count;
        }
    }
}

/// What the probe found in one file or a whole walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MissedParts {
    /// Candidates missed only because of parts the pattern lacks.
    pub candidates: usize,
    /// Per part label (e.g. `return_type`): how many of those candidates have it, and how to
    /// add it.
    pub by_part: BTreeMap<String, MissedPart>,
    /// The first example: (path, 1-based line, what to add to the pattern, e.g.
    /// `-> $RETURN_TYPE`). The path is empty until the file is known.
    pub example: Option<(String, usize, String)>,
    /// Candidates of the root kind not examined because the search reached
    /// [`MAX_CANDIDATES_EXAMINED`]; the counts above are then a lower bound.
    pub not_examined: usize,
    /// The cap on candidates examined that was in force (see `not_examined`).
    pub examined_cap: usize,
    /// Occurrences of the pattern's literal word inside unparsed nodes (Rust macro arguments).
    pub unparsed: UnparsedOccurrences,
    /// Invocations of a macro pattern's macro that it did not match (a single `$E` in its token
    /// tree binds one token).
    pub macro_invocations: UnmatchedMacroInvocations,
}

impl MissedParts {
    /// Adds another tally (keeps the first examples).
    pub fn merge(&mut self, other: MissedParts) {
        self.candidates += other.candidates;
        self.not_examined += other.not_examined;
        self.examined_cap = self.examined_cap.max(other.examined_cap);
        for (label, part) in other.by_part {
            let entry = self.by_part.entry(label).or_insert_with(|| MissedPart {
                count: 0,
                of_kind: part.of_kind.clone(),
                position: part.position.clone(),
                forms: Vec::new(),
                other_forms: 0,
            });
            entry.count += part.count;
            entry.other_forms += part.other_forms;
            for form in part.forms {
                entry.add_form(form);
            }
            entry.forms.sort_by_key(|form| std::cmp::Reverse(form.count));
        }
        if self.example.is_none() {
            self.example = other.example;
        }
        let unparsed = other.unparsed;
        if unparsed.occurrences > 0 {
            if self.unparsed.word.is_empty() {
                self.unparsed.word = unparsed.word;
            }
            self.unparsed.occurrences += unparsed.occurrences;
            self.unparsed.files += unparsed.files;
            for (container, count) in unparsed.by_container {
                *self.unparsed.by_container.entry(container).or_default() += count;
            }
            if self.unparsed.example.is_none() {
                self.unparsed.example = unparsed.example;
            }
        }
        let invocations = other.macro_invocations;
        if invocations.count > 0 {
            if self.macro_invocations.count == 0 {
                self.macro_invocations.macro_name = invocations.macro_name;
                self.macro_invocations.widened = invocations.widened;
                self.macro_invocations.arguments = invocations.arguments;
            }
            self.macro_invocations.count += invocations.count;
            if self.macro_invocations.example.is_none() {
                self.macro_invocations.example = invocations.example;
            }
        }
    }

    /// Fills the path of examples that do not have one yet (they were found in `path`).
    pub fn set_path(&mut self, path: &str) {
        if let Some((p, _, _)) = &mut self.example {
            if p.is_empty() {
                path.clone_into(p);
            }
        }
        for (p, _) in [&mut self.unparsed.example, &mut self.macro_invocations.example].into_iter().flatten() {
            if p.is_empty() {
                path.clone_into(p);
            }
        }
        for form in self.by_part.values_mut().flat_map(|part| part.forms.iter_mut()) {
            if form.example.0.is_empty() {
                path.clone_into(&mut form.example.0);
            }
        }
    }

    /// Whether there is anything to say (a missed candidate, or candidates not examined).
    pub fn is_empty(&self) -> bool {
        self.candidates == 0 && self.not_examined == 0 && self.unparsed.occurrences == 0 && self.macro_invocations.count == 0
    }
}

/// An extra part of one candidate, found while specialising the pattern.
struct Extra<'t> {
    label: String,
    of_kind: String,
    punctuation: Vec<Node<'t, StrDoc<SupportLang>>>,
    node: Node<'t, StrDoc<SupportLang>>,
    position: String,
}

type Group<'t> = (Vec<Node<'t, StrDoc<SupportLang>>>, Node<'t, StrDoc<SupportLang>>, PartLabel);

impl MissedPartsProbe {
    /// The probe for `compiled`'s first reading, if its root can lack a part.
    pub fn new(compiled: &CompiledPattern) -> Option<MissedPartsProbe> {
        Self::with_cap(compiled, MAX_CANDIDATES_EXAMINED)
    }

    /// [`MissedPartsProbe::new`] with another cap on the candidates examined.
    pub fn with_cap(compiled: &CompiledPattern, cap: usize) -> Option<MissedPartsProbe> {
        let parts = PartsCheck::new(compiled, cap);
        let unparsed = UnparsedCheck::new(compiled);
        let macro_arguments = MacroArgumentsCheck::new(compiled);
        (parts.is_some() || unparsed.is_some() || macro_arguments.is_some()).then_some(MissedPartsProbe {
            parts,
            unparsed,
            macro_arguments,
        })
    }

    /// The kind id of the pattern's root when its candidates are checked (for missing parts, or
    /// as invocations of a macro pattern's macro): only nodes of this kind are candidates.
    pub fn root_kind(&self) -> Option<u16> {
        self.parts.as_ref().map(|parts| parts.root_kind).or_else(|| self.macro_arguments.as_ref().map(|check| check.invocation_kind))
    }

    /// For `candidate` (of the root kind, not matched by the query): records it in `tally`
    /// when the pattern matches once the candidate's extra parts are allowed, or counts it as
    /// not examined past the cap; an invocation of a macro pattern's macro is counted.
    pub fn check(&self, candidate: &Node<'_, StrDoc<SupportLang>>, tally: &mut MissedParts) {
        if let Some(parts) = &self.parts {
            parts.check(candidate, tally);
        }
        if let Some(check) = &self.macro_arguments {
            check.check(candidate, tally);
        }
    }

    /// For any node the scan visits: counts the pattern's word inside it when it is an
    /// unparsed container (a Rust macro invocation's token tree); returns whether it was one.
    /// Only patterns that need a literal word count (the scan visits only subtrees holding
    /// every literal of the pattern).
    pub fn count_unparsed(&self, node: &Node<'_, StrDoc<SupportLang>>, tally: &mut MissedParts) -> bool {
        match &self.unparsed {
            Some(check) => check.count(node, tally),
            None => false,
        }
    }
}

impl UnparsedCheck {
    fn new(compiled: &CompiledPattern) -> Option<UnparsedCheck> {
        let word = compiled
            .literals
            .iter()
            .find(|literal| literal.chars().all(|c| c.is_alphanumeric() || c == '_') && !literal.starts_with(|c: char| c.is_ascii_digit()))?
            .clone();
        let ts = compiled.language.get_ts_language();
        let kind = |name: &str| Some(ts.id_for_node_kind(name, true)).filter(|id| *id != 0);
        match compiled.language {
            SupportLang::Rust => Some(UnparsedCheck {
                word,
                container_kind: kind("token_tree")?,
                // A `macro_rules!` body is a template of token trees too (trial36 M3: bytes'
                // `cmp::min` inside `macro_rules! serde_impl` was neither rewritten nor said).
                parent_kinds: vec![kind("macro_invocation")?, kind("macro_rule")?],
                leaf_kind: Some(kind("identifier")?),
            }),
            SupportLang::C | SupportLang::Cpp => {
                Some(UnparsedCheck { word, container_kind: kind("preproc_arg")?, parent_kinds: Vec::new(), leaf_kind: None })
            }
            _ => None,
        }
    }

    fn count(&self, node: &Node<'_, StrDoc<SupportLang>>, tally: &mut MissedParts) -> bool {
        if node.kind_id() != self.container_kind {
            return false;
        }
        let parent = node.parent();
        if !self.parent_kinds.is_empty() && parent.as_ref().is_none_or(|p| !self.parent_kinds.contains(&p.kind_id())) {
            return false;
        }
        let mut lines = Vec::new();
        match self.leaf_kind {
            Some(leaf_kind) => {
                for leaf in node.dfs() {
                    if leaf.kind_id() == leaf_kind && leaf.text() == self.word {
                        lines.push(leaf.start_pos().line() + 1);
                    }
                }
            }
            None => {
                let text = node.text();
                let first_line = node.start_pos().line() + 1;
                for (offset, _) in text.match_indices(self.word.as_str()) {
                    let before = text[..offset].chars().next_back();
                    let after = text[offset + self.word.len()..].chars().next();
                    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    if !is_word(before) && !is_word(after) {
                        lines.push(first_line + text[..offset].matches('\n').count());
                    }
                }
            }
        }
        if lines.is_empty() {
            return true;
        }
        let container = match parent {
            Some(rule) if !self.parent_kinds.is_empty() && rule.kind() == "macro_rule" => {
                let name = rule.parent().and_then(|definition| definition.field("name")).map(|name| name.text().into_owned());
                format!("macro_rules! {} body", name.unwrap_or_else(|| "macro".to_owned()))
            }
            Some(invocation) if !self.parent_kinds.is_empty() => {
                let name = invocation.field("macro").map(|m| m.text().into_owned()).unwrap_or_else(|| "macro".to_owned());
                format!("{name}!")
            }
            _ => "#define".to_owned(),
        };
        let unparsed = &mut tally.unparsed;
        if unparsed.occurrences == 0 {
            unparsed.files = 1;
            unparsed.word.clone_from(&self.word);
        }
        unparsed.occurrences += lines.len();
        *unparsed.by_container.entry(container).or_default() += lines.len();
        if unparsed.example.is_none() {
            unparsed.example = Some((String::new(), lines[0]));
        }
        true
    }
}

impl MacroArgumentsCheck {
    fn new(compiled: &CompiledPattern) -> Option<MacroArgumentsCheck> {
        if compiled.language != SupportLang::Rust {
            return None;
        }
        let ts = compiled.language.get_ts_language();
        let kind = |name: &str| Some(ts.id_for_node_kind(name, true)).filter(|id| *id != 0);
        let (invocation_kind, token_tree_kind) = (kind("macro_invocation")?, kind("token_tree")?);
        let PatternNode::Internal { kind_id, children } = &compiled.pattern.node else { return None };
        if *kind_id != invocation_kind {
            return None;
        }
        // The single metavariables directly in the invocation's token tree (`$E`, `$_`).
        let mut single: Vec<String> = Vec::new();
        for child in children {
            let PatternNode::Internal { kind_id, children: tokens } = child else { continue };
            if *kind_id != token_tree_kind {
                continue;
            }
            for token in tokens {
                match token {
                    PatternNode::MetaVar { meta_var: MetaVariable::Capture(name, _) } => single.push(name.clone()),
                    PatternNode::MetaVar { meta_var: MetaVariable::Dropped(_) } => single.push("_".to_owned()),
                    _ => {}
                }
            }
        }
        if single.is_empty() {
            return None;
        }
        let source = compiled.source.trim();
        let bang = source.find('!')?;
        let macro_name = source[..bang].trim().to_owned();
        if macro_name.is_empty() || macro_name.contains('$') {
            return None;
        }
        // Two or more whole-argument metavariables: no widening splits the token tree at its
        // commas (recheck49 N2), so the invocations are split here and those with arguments
        // that fit the pattern's counted, the pattern reaching all of them offered.
        if let Some(arguments) = pattern_macro_arguments(compiled, source, invocation_kind, token_tree_kind) {
            if arguments.iter().filter(|argument| matches!(argument, MacroArgument::One | MacroArgument::Rest)).count() >= 2 {
                let open = source[bang + 1..].trim_start().chars().next()?;
                let close = match open {
                    '(' => ')',
                    '[' => ']',
                    '{' => '}',
                    _ => return None,
                };
                return Some(MacroArgumentsCheck {
                    invocation_kind,
                    macro_name: macro_name.clone(),
                    widened: format!("{macro_name}!{open}$$$ARGS{close}"),
                    widened_pattern: None,
                    arguments: Some(arguments),
                });
            }
        }
        // `$E` → `$$$E` only at the single metavariables that stand as whole arguments of the
        // invocation (not a `$E` nested in an inner group, review49 L11).
        let ranges = whole_argument_metavariable_ranges(compiled, source, invocation_kind, token_tree_kind, &single)?;
        let mut widened = String::with_capacity(source.len() + 4 * ranges.len());
        let mut copied = 0;
        for range in &ranges {
            widened.push_str(&source[copied..range.start]);
            let name = &source[range.start + 1..range.end];
            widened.push_str("$$$");
            widened.push_str(if name == "_" { "" } else { name });
            copied = range.end;
        }
        widened.push_str(&source[copied..]);
        // Compiled once: an unmatched invocation counts only when the widened pattern matches it
        // (review49 H3: `assert_eq!($A, 1)` counted `assert_eq!(b, 1.5)`, which
        // `assert_eq!($$$A, 1)` does not match either).
        let widened_pattern = compile_pattern(&widened, SupportLang::Rust).ok()?;
        let PatternNode::Internal { kind_id: widened_kind, .. } = &widened_pattern.pattern.node else { return None };
        if *widened_kind != invocation_kind {
            return None;
        }
        Some(MacroArgumentsCheck { invocation_kind, macro_name, widened, widened_pattern: Some(widened_pattern.pattern), arguments: None })
    }

    fn check(&self, candidate: &Node<'_, StrDoc<SupportLang>>, tally: &mut MissedParts) {
        if candidate.kind_id() != self.invocation_kind || candidate.field("macro").is_none_or(|name| name.text() != self.macro_name) {
            return;
        }
        let fits = match (&self.widened_pattern, &self.arguments) {
            (Some(widened), _) => widened.match_node(candidate.clone()).is_some(),
            (None, Some(arguments)) => candidate
                .children()
                .find(|child| child.kind() == "token_tree")
                .is_some_and(|tree| arguments_fit(arguments, &top_level_arguments(&tree, None))),
            (None, None) => false,
        };
        if !fits {
            return;
        }
        let invocations = &mut tally.macro_invocations;
        if invocations.count == 0 {
            invocations.macro_name.clone_from(&self.macro_name);
            invocations.widened.clone_from(&self.widened);
            invocations.arguments = self.arguments.as_ref().map(Vec::len);
            invocations.example = Some((String::new(), candidate.start_pos().line() + 1));
        }
        invocations.count += 1;
    }
}

/// The top-level arguments of a macro invocation's token tree `tree` (its tokens between the
/// delimiters, split at the commas directly in it, not in a turbofish `::<A, B>`; a trailing
/// comma ends the last), each as its
/// tokens' text without whitespace. With `expando` (a pre-processed pattern's metavariable
/// character), an argument that is one metavariable token reads as [`MacroArgument::One`] or
/// [`MacroArgument::Rest`]; `None` then also when an argument holds a metavariable among other
/// tokens.
fn top_level_arguments(tree: &Node<'_, StrDoc<SupportLang>>, expando: Option<char>) -> Vec<MacroArgument> {
    let children: Vec<Node<'_, StrDoc<SupportLang>>> = tree.children().collect();
    let inner = if children.len() >= 2 { &children[1..children.len() - 1] } else { &children[..0] };
    let mut arguments: Vec<Vec<String>> = vec![Vec::new()];
    // A turbofish's commas (`g::<A, B>(z)`) separate no arguments: `<` after `::` opens one.
    let mut turbofish_depth = 0usize;
    let mut previous = String::new();
    for token in inner {
        let text = token.text();
        match text.as_ref() {
            "," if turbofish_depth == 0 => {
                arguments.push(Vec::new());
                previous.clear();
                continue;
            }
            "<" if previous == "::" => turbofish_depth += 1,
            ">" => turbofish_depth = turbofish_depth.saturating_sub(1),
            ">>" => turbofish_depth = turbofish_depth.saturating_sub(2),
            _ => (),
        }
        let compact: String = text.split_whitespace().collect();
        previous.clone_from(&compact);
        if let Some(last) = arguments.last_mut() {
            last.push(compact);
        }
    }
    if arguments.last().is_some_and(Vec::is_empty) {
        arguments.pop();
    }
    arguments
        .into_iter()
        .map(|tokens| match (expando, tokens.as_slice()) {
            (Some(expando), [one]) if one.starts_with(expando) => {
                if one.chars().take(3).all(|c| c == expando) {
                    MacroArgument::Rest
                } else {
                    MacroArgument::One
                }
            }
            _ => MacroArgument::Text(tokens.concat()),
        })
        .collect()
}

/// Whether an invocation's top-level `arguments` (all [`MacroArgument::Text`]) fit a pattern's
/// `shape`: as many (or, with a `$$$` one, at least as many less one), each literal one equal.
fn arguments_fit(shape: &[MacroArgument], arguments: &[MacroArgument]) -> bool {
    let enough = if shape.contains(&MacroArgument::Rest) { arguments.len() + 1 >= shape.len() } else { arguments.len() == shape.len() };
    enough
        && shape.iter().zip(arguments).take_while(|(wanted, _)| **wanted != MacroArgument::Rest).all(|(wanted, found)| match wanted {
            MacroArgument::Text(text) => found == &MacroArgument::Text(text.clone()),
            _ => true,
        })
}

/// The top-level arguments of the macro pattern `source` (trimmed; its root a macro invocation),
/// read from the pre-processed pattern parsed in a function body (see
/// [`whole_argument_metavariable_ranges`]); `None` when it does not parse so, or an argument holds
/// a metavariable among other tokens (`foo($A)`), whose fit a split cannot decide.
fn pattern_macro_arguments(
    compiled: &CompiledPattern,
    source: &str,
    invocation_kind: u16,
    token_tree_kind: u16,
) -> Option<Vec<MacroArgument>> {
    with_pattern_token_tree(compiled, source, invocation_kind, token_tree_kind, |_, expando, tree| {
        let arguments = top_level_arguments(&tree, Some(expando));
        if arguments.iter().any(|argument| matches!(argument, MacroArgument::Text(text) if text.contains(expando))) {
            return None;
        }
        Some(arguments)
    })
}

/// The text a macro pattern is parsed in: inside a function body, so a macro invocation at the
/// pattern's start is a statement ([`with_pattern_token_tree`]).
const PATTERN_BODY_PREFIX: &str = "fn runbound_pattern() { ";

/// Parses the pre-processed pattern `source` (metavariables spelled with the language's expando
/// character) in a function body and calls `with` with that processed text, the expando
/// character and the token tree of the macro invocation at the pattern's start (its byte range
/// offset by [`PATTERN_BODY_PREFIX`]); `None` when there is no such invocation. The one parse of
/// [`pattern_macro_arguments`] and [`whole_argument_metavariable_ranges`].
fn with_pattern_token_tree<R>(
    compiled: &CompiledPattern,
    source: &str,
    invocation_kind: u16,
    token_tree_kind: u16,
    with: impl FnOnce(&str, char, Node<'_, StrDoc<SupportLang>>) -> Option<R>,
) -> Option<R> {
    let language = compiled.language;
    let expando = language.expando_char();
    let processed = language.pre_process_pattern(source);
    let wrapped = format!("{PATTERN_BODY_PREFIX}{processed};\n}}");
    let root = language.ast_grep(&wrapped);
    let invocation = root.root().dfs().find(|node| node.kind_id() == invocation_kind && node.range().start == PATTERN_BODY_PREFIX.len())?;
    let tree = invocation.children().find(|child| child.kind_id() == token_tree_kind)?;
    with(&processed, expando, tree)
}

/// The byte ranges in `source` (the pattern text, trimmed) of the single metavariables (`$E`,
/// `$_`) among `single` that are direct tokens of the root macro invocation's token tree, i.e.
/// whole macro arguments; a `$E` inside an inner group (`m!(($E))`) is not one. Found by parsing
/// the pre-processed pattern in a function body (the expando character replaces `$` one
/// character for one, so character positions carry back to `source`). `None` when the parse has
/// no macro invocation at the pattern's start or none of its tokens is such a metavariable.
fn whole_argument_metavariable_ranges(
    compiled: &CompiledPattern,
    source: &str,
    invocation_kind: u16,
    token_tree_kind: u16,
    single: &[String],
) -> Option<Vec<std::ops::Range<usize>>> {
    with_pattern_token_tree(compiled, source, invocation_kind, token_tree_kind, |processed, expando, tree| {
        let prefix = PATTERN_BODY_PREFIX;
        // A byte offset in `processed` → the same character's byte offset in `source`.
        let to_source = |offset: usize| -> Option<usize> {
            let characters = processed.get(..offset)?.chars().count();
            source.char_indices().map(|(index, _)| index).chain(std::iter::once(source.len())).nth(characters)
        };
        // Two metavariables in one token tree: a widened `$$$A, $$$B` cannot split the arguments at
        // their commas — ast-grep gives `$A` nothing and `$B` the rest, and a rewrite with them drops
        // tokens (recheck49 N2: `assert_eq!($A, $B)` → `assert_eq!($$$A, $$$B)` matched all 118
        // calls with broken captures). No widening is offered then.
        if tree.children().filter(|token| token.text().starts_with(expando)).count() > 1 {
            return None;
        }
        let mut ranges = Vec::new();
        for token in tree.children() {
            let text = token.text();
            let Some(name) = text.strip_prefix(expando) else { continue };
            if name.starts_with(expando) || !single.iter().any(|single_name| single_name == name) {
                continue;
            }
            let range = token.range();
            let (start, end) = (to_source(range.start - prefix.len())?, to_source(range.end - prefix.len())?);
            if source.get(start..end).is_none_or(|original| original.strip_prefix('$') != Some(name)) {
                return None;
            }
            ranges.push(start..end);
        }
        (!ranges.is_empty()).then_some(ranges)
    })
}

impl PartsCheck {
    fn new(compiled: &CompiledPattern, cap: usize) -> Option<PartsCheck> {
        let parts = compiled.parts.clone()?;
        let PatternNode::Internal { kind_id, children } = &compiled.pattern.node else {
            return None;
        };
        if children.len() != parts.children.len() || !has_named_part(&parts) {
            return None;
        }
        Some(PartsCheck { pattern: compiled.pattern.clone(), root_kind: *kind_id, parts, examined: Arc::new(AtomicUsize::new(0)), cap })
    }

    fn check(&self, candidate: &Node<'_, StrDoc<SupportLang>>, tally: &mut MissedParts) {
        if self.examined.fetch_add(1, Ordering::Relaxed) >= self.cap {
            tally.not_examined += 1;
            tally.examined_cap = self.cap;
            return;
        }
        let mut extras = Vec::new();
        let Some(root) = specialise(&self.pattern.node, &self.parts, candidate, &mut extras) else {
            return;
        };
        let mut specialised = self.pattern.clone();
        specialised.node = root;
        if specialised.match_node(candidate.clone()).is_none() {
            return;
        }
        tally.candidates += 1;
        let mut counted: Vec<&str> = Vec::new();
        for extra in &extras {
            if counted.contains(&extra.label.as_str()) {
                continue;
            }
            counted.push(&extra.label);
            let part = tally.by_part.entry(extra.label.clone()).or_insert_with(|| MissedPart {
                count: 0,
                of_kind: extra.of_kind.clone(),
                position: extra.position.clone(),
                forms: Vec::new(),
                other_forms: 0,
            });
            part.count += 1;
            part.add_form(PartForm {
                add: addition(extra),
                count: 1,
                example: (String::new(), extra.node.start_pos().line() + 1, part_code(extra)),
            });
        }
        if tally.example.is_none() {
            if let Some(first) = extras.first() {
                tally.example = Some((String::new(), first.node.start_pos().line() + 1, addition(first)));
            }
        }
    }
}

fn has_named_part(tree: &PartTree) -> bool {
    tree.children.iter().any(|child| child.label.is_some() || child.parts.as_ref().is_some_and(has_named_part))
}

/// `pattern` with wildcards where `candidate` has parts it lacks, at any depth; `None` when
/// nothing would change (no extra part, or the shapes differ otherwise). The extra parts are
/// pushed onto `extras`.
fn specialise<'t>(
    pattern: &PatternNode,
    parts: &PartTree,
    candidate: &Node<'t, StrDoc<SupportLang>>,
    extras: &mut Vec<Extra<'t>>,
) -> Option<PatternNode> {
    let PatternNode::Internal { kind_id, children } = pattern else {
        return None;
    };
    if *kind_id != candidate.kind_id() || children.len() != parts.children.len() {
        return None;
    }
    // A list level (a metavariable standing for elements, not for a whole field): extra
    // elements are not parts.
    let mut list_level = false;
    for (node, part) in children.iter().zip(&parts.children) {
        if let PatternNode::MetaVar { meta_var } = node {
            if !part.label.as_ref().is_some_and(|label| label.is_field) {
                if matches!(meta_var, MetaVariable::MultiCapture(_) | MetaVariable::Multiple) {
                    return None;
                }
                list_level = true;
            }
        }
    }
    // The candidate's children grouped as (punctuation before, named child, label).
    let inner = candidate.get_inner_node();
    let mut groups: Vec<Group<'t>> = Vec::new();
    let mut pending = Vec::new();
    for (index, child) in candidate.children().enumerate() {
        if child.is_extra() {
            continue;
        }
        if child.is_named() {
            let label = part_label(&inner, index, &child.kind());
            groups.push((std::mem::take(&mut pending), child, label));
        } else {
            pending.push(child);
        }
    }
    // Multiset difference of labels, both ways.
    let mut wanted: BTreeMap<&str, usize> = BTreeMap::new();
    for label in parts.children.iter().filter_map(|child| child.label.as_ref()) {
        *wanted.entry(label.name.as_str()).or_default() += 1;
    }
    let mut is_extra = vec![false; groups.len()];
    for (index, (_, _, label)) in groups.iter().enumerate() {
        match wanted.get_mut(label.name.as_str()) {
            Some(count) if *count > 0 => *count -= 1,
            _ if list_level && !label.is_field => return None,
            _ => is_extra[index] = true,
        }
    }
    if wanted.values().any(|count| *count > 0) {
        return None;
    }
    // The pattern's groups: (punctuation before, named child, its parts) in order, plus
    // trailing punctuation.
    let mut pattern_groups: Vec<(Vec<PatternNode>, &PatternNode, Option<&PartTree>)> = Vec::new();
    let mut pattern_pending: Vec<PatternNode> = Vec::new();
    for (node, part) in children.iter().zip(&parts.children) {
        match &part.label {
            Some(_) => pattern_groups.push((std::mem::take(&mut pattern_pending), node, part.parts.as_ref())),
            None => pattern_pending.push(node.clone()),
        }
    }
    let trailing = pattern_pending;
    let mut changed = false;
    let mut merged: Vec<PatternNode> = Vec::new();
    let mut next_pattern_group = pattern_groups.into_iter();
    for (index, (punctuation, child, label)) in groups.iter().enumerate() {
        if is_extra[index] {
            merged.extend(punctuation.iter().map(terminal_of));
            merged.push(PatternNode::MetaVar { meta_var: MetaVariable::Dropped(true) });
            let position = match groups[index + 1..].iter().zip(&is_extra[index + 1..]).find(|(_, extra)| !**extra) {
                Some(((next_punctuation, _, next), _)) => match next_punctuation.first() {
                    Some(token) => format!("before `{}`", token.text()),
                    None => format!("before the {}", next.name),
                },
                None => match groups[..index].iter().zip(&is_extra[..index]).rev().find(|(_, extra)| !**extra) {
                    Some(((_, _, previous), _)) => format!("after the {}", previous.name),
                    None => format!("in the `{}`", candidate.kind()),
                },
            };
            extras.push(Extra {
                label: label.name.clone(),
                of_kind: candidate.kind().into_owned(),
                punctuation: punctuation.clone(),
                node: child.clone(),
                position,
            });
            changed = true;
        } else if let Some((pattern_punctuation, node, sub_parts)) = next_pattern_group.next() {
            merged.extend(pattern_punctuation);
            match sub_parts.and_then(|sub| specialise(node, sub, child, extras)) {
                Some(nested) => {
                    changed = true;
                    merged.push(nested);
                }
                None => merged.push(node.clone()),
            }
        }
    }
    merged.extend(trailing);
    changed.then_some(PatternNode::Internal { kind_id: *kind_id, children: merged })
}

fn terminal_of(node: &Node<'_, StrDoc<SupportLang>>) -> PatternNode {
    PatternNode::Terminal { text: node.text().into_owned(), is_named: node.is_named(), kind_id: node.kind_id() }
}

fn is_punctuation(text: &str) -> bool {
    !text.is_empty() && !text.chars().any(|c| c.is_alphanumeric() || c == '_')
}

/// The pattern text that covers `extra`: the punctuation before it, then the part's own
/// tokens with a metavariable named after the part for each named piece: `-> $RETURN_TYPE`
/// (Python), `: $RETURN_TYPE` (TypeScript's `type_annotation`), `<$$$TYPE_PARAMETERS>` (a
/// bracketed list), `: asserts $RETURN_TYPE is $RETURN_TYPE_2`, `pub`. Keywords inside the part
/// are kept, since a metavariable stands for one node of the kind the pattern parses there.
fn addition(extra: &Extra<'_>) -> String {
    let name = extra.label.to_ascii_uppercase().replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let mut text: String = extra.punctuation.iter().map(|p| p.text().into_owned()).collect::<Vec<_>>().join(" ");
    let mut counter = 0;
    let skeleton = skeleton(&extra.node, &name, &mut counter, 0);
    if !text.is_empty() && !skeleton.is_empty() {
        text.push(' ');
    }
    text.push_str(&skeleton);
    text
}

/// Whether `node`'s first and last children are the unnamed tokens of a bracket pair around
/// something (`<…>`, `(…)`, `[…]`, `{…}`).
fn is_bracketed(node: &Node<'_, StrDoc<SupportLang>>) -> bool {
    let children: Vec<_> = node.children().filter(|child| !child.is_extra()).collect();
    let (Some(first), Some(last)) = (children.first(), children.last()) else { return false };
    children.len() > 2
        && !first.is_named()
        && !last.is_named()
        && matches!((first.text().as_ref(), last.text().as_ref()), ("<", ">") | ("(", ")") | ("[", "]") | ("{", "}"))
}

fn next_variable(name: &str, counter: &mut usize, multiple: bool) -> String {
    *counter += 1;
    let dollars = if multiple { "$$$" } else { "$" };
    if *counter == 1 {
        format!("{dollars}{name}")
    } else {
        format!("{dollars}{name}_{counter}")
    }
}

fn skeleton(node: &Node<'_, StrDoc<SupportLang>>, name: &str, counter: &mut usize, depth: usize) -> String {
    let children: Vec<_> = node.children().filter(|child| !child.is_extra()).collect();
    if children.is_empty() {
        return if node.is_named() { next_variable(name, counter, false) } else { node.text().into_owned() };
    }
    if children.iter().all(|child| child.is_named()) || depth > 3 {
        return next_variable(name, counter, false);
    }
    // A keyword followed by a list of elements (`where T: Copy, U: Send`, `throws A, B`,
    // `asserts x is T`): the keyword and a `$$$` for the elements.
    let inner = node.get_inner_node();
    let leading_keywords = children.iter().take_while(|child| !child.is_named()).count();
    let named_have_fields = children
        .iter()
        .enumerate()
        .any(|(index, child)| child.is_named() && u32::try_from(index).ok().and_then(|index| inner.field_name_for_child(index)).is_some());
    if leading_keywords > 0
        && children[..leading_keywords].iter().all(|child| !is_punctuation(&child.text()))
        && leading_keywords < children.len()
        && !named_have_fields
    {
        let keywords: Vec<String> = children[..leading_keywords].iter().map(|child| child.text().into_owned()).collect();
        return format!("{} {}", keywords.join(" "), next_variable(name, counter, true));
    }
    if is_bracketed(node) {
        let (first, last) = (children[0].text(), children[children.len() - 1].text());
        return format!("{first}{}{last}", next_variable(name, counter, true));
    }
    let mut pieces: Vec<String> = Vec::new();
    for child in &children {
        if !child.is_named() {
            pieces.push(child.text().into_owned());
        } else if child.children().any(|c| c.is_named())
            && (child.children().any(|c| !c.is_named() && !is_punctuation(&c.text())) || is_bracketed(child))
        {
            // A bracketed list (`<T>`, the type arguments of `extends Observable<T>`) is written
            // as such: a metavariable for the whole list juxtaposed to the previous piece
            // (`extends $A $B`) does not parse (trial152 M6).
            pieces.push(skeleton(child, name, counter, depth + 1));
        } else {
            pieces.push(next_variable(name, counter, false));
        }
    }
    let mut text = String::new();
    for piece in pieces {
        let glue = text.is_empty() || text.ends_with(['<', '(', '[']) || piece.starts_with(['>', ')', ']', ',', '(', '<', '[']);
        if !glue {
            text.push(' ');
        }
        text.push_str(&piece);
    }
    text
}

/// The code of `extra` with the punctuation before it, on one line, at most 60 characters.
fn part_code(extra: &Extra<'_>) -> String {
    let mut text: String = extra.punctuation.iter().map(|p| p.text().into_owned()).collect::<Vec<_>>().join(" ");
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&extra.node.text());
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        let cut: String = one_line.chars().take(59).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}
