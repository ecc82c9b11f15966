//! The contextual pattern compiler (R-AST-1..4).
//!
//! A pattern is a code fragment with metavariables (`$NAME` one node, `$$$NAME` a run of
//! siblings, `$_` binds nothing). It is parsed inside each wrapping context of its language's
//! table ([`crate::structural::contexts`]), in order, first as written and then (C-like
//! languages) with a trailing `;`. A context is accepted only when the whole parse has no
//! ERROR node — except an ERROR whose text is a single metavariable — and no MISSING node, and
//! when one node covers exactly the fragment's bytes. That node (descending single-child
//! chains, as ast-grep does) is the compiled pattern. A context whose parse needed a
//! metavariable read as an ERROR is accepted only when no later context parses the fragment
//! cleanly: there the grammar refuses the metavariable at that place, so the fragment means
//! something else (Go `func $F($$$P) { $$$B }` in a function body is a nameless `func_literal`
//! with an ERROR for `$F`; at the top level it is the `function_declaration` the user meant,
//! as the ast-grep CLI reads it). When no context accepts the fragment the
//! error lists every context tried and where its parse failed: a pattern is never searched in a
//! shape that silently matches nothing. A pattern that nests `$$$` deeper than
//! [`MAX_MULTI_METAVARIABLE_NESTING`] is refused: ast-grep's matching time doubles per level.

use std::fmt::Write as _;
use std::ops::Range;

use std::borrow::Cow;

use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::{MetaVarEnv, MetaVariable};
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::{AstGrep, Doc, Language, Matcher, Node, Pattern};
use ast_grep_language::SupportLang;
use bit_set::BitSet;
use serde_json::json;

use crate::error::ToolError;
use crate::structural::contexts::{language_contexts, ContextKind, LanguageContexts, PatternContext};
use crate::structural::go_generic_calls;
use crate::structural::literals::{pattern_required_texts, LiteralRequirement};

/// Longest pattern the compiler accepts, in bytes. Longer input is an error, which keeps the
/// compile time of any input bounded (each context parse is linear in the input).
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;

/// Deepest `$$$` nesting the compiler accepts, as [`multi_metavariable_nesting`] counts it (R-AST-5).
/// Each level doubles the time ast-grep's matcher spends on a match and the matcher cannot be
/// interrupted, so a deeper pattern is refused: at 6 the worst case measured (a file made only
/// of matches) costs a few times a one-level pattern, while `$$$:` repeated 46 times (C++
/// labels) never finished. Patterns people write need 1 to 3 levels.
pub const MAX_MULTI_METAVARIABLE_NESTING: usize = 6;

/// A pattern compiled for one language, ready to match.
#[derive(Clone)]
pub struct CompiledPattern {
    /// The language the pattern was compiled for.
    pub language: SupportLang,
    /// The pattern text as given (trimmed).
    pub source: String,
    /// The ast-grep matcher (Smart strictness: comments and trivial punctuation in the code are
    /// skipped, everything else compared).
    pub pattern: Pattern,
    /// The context that accepted the fragment.
    pub context: ContextKind,
    /// Whether the accepted parse needed the trailing statement terminator (`;`).
    pub with_terminator: bool,
    /// The tree-sitter kind of the compiled root, e.g. `if_statement`; `metavariable` when the
    /// whole pattern is one metavariable.
    pub node_kind: String,
    /// Other readings matched as well: the type context's reading when it differs from the
    /// first accepted one (Python `List[$T]` is a `subscript` as an expression and a
    /// `generic_type` in an annotation). Empty for most patterns.
    pub alternatives: Vec<AlternativePattern>,
    /// Texts that every match must contain verbatim (named leaves outside metavariables, and
    /// operator tokens such as `==`), longest first; for display. The filter applied is
    /// [`CompiledPattern::requirement`], which also covers the alternatives.
    pub literals: Vec<String>,
    /// What a file must contain to be parsed at all (see [`crate::structural::literals`]).
    pub requirement: LiteralRequirement,
    /// Metavariable names the pattern binds (without `$`), sorted.
    pub metavariables: Vec<String>,
    /// Lint warnings to show with the result (e.g. a lower-case `$x` in Dart).
    pub warnings: Vec<String>,
    /// The parts of the compiled pattern, parallel to [`CompiledPattern::pattern`]'s tree: for
    /// each internal node, one entry per child with the child's label (its field name, else
    /// its kind) for a named child, `None` for punctuation and keywords, and the child's own
    /// parts; e.g. the root of `def $F($$$P): $$$B` has `[None, name, parameters, None, body]`.
    /// `None` as a whole when the root is a metavariable or a leaf. Used to say which
    /// candidates were not matched only because they have a part the pattern lacks, at any
    /// depth (`export function $F() {}` misses `export function f<T>() {}` by the
    /// `type_parameters` of the nested `function_declaration`).
    pub parts: Option<PartTree>,
    kinds: Option<BitSet>,
}

/// The labelled children of one internal pattern node (see [`CompiledPattern::parts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartTree {
    /// One entry per child of the pattern node, in order.
    pub children: Vec<PartChild>,
}

/// One child of a pattern node: its label and, for an internal node, its own parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartChild {
    /// `Some` for a named child: its field name in the parent, else its kind.
    pub label: Option<PartLabel>,
    /// The child's own parts, `None` for a leaf or a metavariable.
    pub parts: Option<PartTree>,
}

/// The label of a named child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartLabel {
    /// Field name (e.g. `return_type`), else node kind (e.g. `visibility_modifier`).
    pub name: String,
    /// Whether `name` is a field name of the grammar.
    pub is_field: bool,
}

/// A further reading of a pattern, matched in addition to the first.
#[derive(Clone)]
pub struct AlternativePattern {
    /// The context of this reading.
    pub context: ContextKind,
    /// Its root kind, e.g. `generic_type`.
    pub node_kind: String,
    /// The matcher.
    pub pattern: Pattern,
    /// How this reading came about when it is not a context's parse: the words for it and the
    /// shape, e.g. (`read as a call F[T](…)…`, `call_expression with type_arguments`) for a Go
    /// generic call pattern in another of its shapes ([`crate::structural::go_generic_calls`]).
    pub reading: Option<(&'static str, String)>,
    /// The metavariables a match of this reading must bind to type-shaped nodes (a Go index
    /// call `F[$T](…)` read from a generic call pattern; review50 H3). Empty for most readings.
    pub index_metavariables: Vec<String>,
}

impl Matcher for CompiledPattern {
    fn match_node_with_env<'tree, D: Doc>(&self, node: Node<'tree, D>, env: &mut Cow<MetaVarEnv<'tree, D>>) -> Option<Node<'tree, D>> {
        if let Some(kinds) = &self.kinds {
            if !kinds.contains(node.kind_id().into()) {
                return None;
            }
        }
        if self.alternatives.is_empty() {
            return self.pattern.match_node_with_env(node, env);
        }
        let no_names: &[String] = &[];
        std::iter::once((&self.pattern, no_names))
            .chain(self.alternatives.iter().map(|a| (&a.pattern, a.index_metavariables.as_slice())))
            .find_map(|(pattern, index_metavariables)| {
                let mut attempt = env.clone();
                let matched = pattern.match_node_with_env(node.clone(), &mut attempt)?;
                // A Go index-call reading holds only where the brackets hold a type (review50 H3).
                if !go_generic_calls::index_captures_are_type_shaped(attempt.as_ref(), index_metavariables) {
                    return None;
                }
                *env = attempt;
                Some(matched)
            })
    }

    fn potential_kinds(&self) -> Option<BitSet> {
        self.kinds.clone()
    }

    fn get_match_len<D: Doc>(&self, node: Node<'_, D>) -> Option<usize> {
        std::iter::once(&self.pattern)
            .chain(self.alternatives.iter().map(|a| &a.pattern))
            .find_map(|pattern| pattern.get_match_len(node.clone()))
    }
}

impl std::fmt::Debug for CompiledPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledPattern")
            .field("language", &self.language)
            .field("source", &self.source)
            .field("context", &self.context)
            .field("node_kind", &self.node_kind)
            .field("literals", &self.literals)
            .finish_non_exhaustive()
    }
}

impl CompiledPattern {
    /// One line saying how the pattern compiled, e.g. `statement context → if_statement`, or
    /// with an alternative reading `statement context → subscript, and type context →
    /// generic_type`.
    pub fn compiled_as(&self) -> String {
        let terminator = if self.with_terminator { " (with a trailing `;`)" } else { "" };
        let mut text = format!("{} context{terminator} → {}", self.context.as_str(), self.node_kind);
        let mut readings: Vec<(&str, Vec<&str>)> = Vec::new();
        for alternative in &self.alternatives {
            match &alternative.reading {
                None => {
                    let _ = write!(text, ", and {} context → {}", alternative.context.as_str(), alternative.node_kind);
                }
                Some((how, shape)) => match readings.iter_mut().find(|(known, _)| known == how) {
                    Some((_, shapes)) => shapes.push(shape),
                    None => readings.push((how, vec![shape])),
                },
            }
        }
        for (how, shapes) in readings {
            let _ = write!(text, ", and {how} → {}", shapes.join(", "));
        }
        text
    }
}

/// One context the compiler tried and why it was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextAttempt {
    /// The context.
    pub context: ContextKind,
    /// Whether this attempt appended the statement terminator (`;`).
    pub with_terminator: bool,
    /// Why the parse was rejected, with the position inside the fragment (1-based line and
    /// column) when the failure is inside it.
    pub failure: String,
}

/// Why a pattern did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternCompileError {
    /// What is wrong with the pattern.
    pub message: String,
    /// Every context tried, in order (empty when the pattern was refused before parsing).
    pub attempts: Vec<ContextAttempt>,
    /// The next step.
    pub hint: String,
}

impl std::fmt::Display for PatternCompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        for attempt in &self.attempts {
            let terminator = if attempt.with_terminator { " + `;`" } else { "" };
            write!(f, "\n  - {}{terminator}: {}", attempt.context.as_str(), attempt.failure)?;
        }
        Ok(())
    }
}

impl std::error::Error for PatternCompileError {}

impl PatternCompileError {
    /// The error as a [`ToolError`] (`invalid_arguments`) whose message lists every context
    /// tried; `details.contexts_tried` carries the same list.
    pub fn to_tool_error(&self) -> ToolError {
        let attempts: Vec<_> = self
            .attempts
            .iter()
            .map(|a| json!({"context": a.context, "with_terminator": a.with_terminator, "failure": a.failure}))
            .collect();
        ToolError::invalid(self.to_string()).with_hint(self.hint.clone()).with_details(json!({ "contexts_tried": attempts }))
    }

    fn refused(message: String, hint: &str) -> PatternCompileError {
        PatternCompileError { message, attempts: Vec::new(), hint: hint.to_owned() }
    }
}

/// Compiles `pattern` for `language` (see the module doc for the rules).
///
/// # Errors
/// `PatternCompileError` when the pattern is empty, longer than `MAX_PATTERN_BYTES`, is a
/// bare `$$$`/`$$$NAME`, nests `$$$` deeper than 6 levels (along one path of the
/// pattern tree, each node with children right after a `$$$` is a level), or no context of the language accepts it (the error lists
/// each context and where its parse failed).
pub fn compile_pattern(pattern: &str, language: SupportLang) -> Result<CompiledPattern, PatternCompileError> {
    compile_pattern_in_context(pattern, language, None)
}

/// [`compile_pattern`] restricted to one context kind when `only` is given (for a fragment
/// that an earlier context reads differently, e.g. TypeScript `private $F: $T;` which the
/// statement context reads as a labeled statement).
///
/// # Errors
/// As [`compile_pattern`]; also when the language's table has no context of kind `only`.
pub fn compile_pattern_in_context(
    pattern: &str,
    language: SupportLang,
    only: Option<ContextKind>,
) -> Result<CompiledPattern, PatternCompileError> {
    let fragment = pattern.trim();
    if fragment.is_empty() {
        return Err(PatternCompileError::refused(
            "the pattern is empty".to_owned(),
            "write a code fragment with metavariables, e.g. `$X.unwrap()` or `if ($X != null) $X.dispose()`",
        ));
    }
    if fragment.len() > MAX_PATTERN_BYTES {
        return Err(PatternCompileError::refused(
            format!("the pattern is {} bytes; at most {MAX_PATTERN_BYTES} are accepted", fragment.len()),
            "use a shorter fragment: a pattern describes one node, with `$$$` for the parts that vary",
        ));
    }
    if is_bare_multi_metavariable(fragment) {
        return Err(PatternCompileError::refused(
            format!("`{fragment}` alone is not a pattern: a `$$$` metavariable matches a run of sibling nodes and needs surrounding code"),
            "use `$X` for any single node, or put the `$$$` inside a larger fragment such as `foo($$$ARGS)` or `{ $$$BODY }`",
        ));
    }
    let table = language_contexts(language);
    let warnings = lint_metavariables(fragment, language, table.dollar_is_identifier_char);
    let processed = language.pre_process_pattern(fragment).into_owned();
    let mut attempts = Vec::new();
    let mut lenient_fallback: Option<(ContextKind, bool, Accepted)> = None;
    if let Some(kind) = only {
        if !table.contexts.iter().any(|c| c.kind == kind) {
            let available: Vec<&str> = table.contexts.iter().map(|c| c.kind.as_str()).collect();
            return Err(PatternCompileError::refused(
                format!("{} has no {} context", language_id(language), kind.as_str()),
                &format!("use one of: {}, or omit context to try them in order", available.join(", ")),
            ));
        }
    }
    // A fragment that starts with one of the language's declaration-first keywords tries the
    // declaration context first (see `LanguageContexts::declaration_first_keywords`).
    let declaration_first = only.is_none()
        && table
            .declaration_first_keywords
            .iter()
            .any(|keyword| fragment.strip_prefix(keyword).is_some_and(|rest| rest.starts_with(|c: char| c.is_whitespace() || c == '(')));
    let mut ordered: Vec<&PatternContext> = table.contexts.iter().filter(|c| only.is_none_or(|kind| c.kind == kind)).collect();
    if declaration_first {
        ordered.sort_by_key(|context| context.kind != ContextKind::Declaration);
    }
    for context in ordered {
        let terminators: &[Option<&str>] = match table.statement_terminator {
            Some(term) if !matches!(context.kind, ContextKind::Expression | ContextKind::Type) && !processed.ends_with(term) => {
                &[None, Some(term)][..]
            }
            _ => &[None][..],
        };
        for terminator in terminators.iter().copied() {
            match try_context(&processed, language, context, terminator, table.statement_terminator) {
                Ok(accepted) if accepted.tolerated_metavariable_error => {
                    // Accepted only by reading a metavariable the grammar refuses here as an
                    // ERROR (Go `func $F($$$P) { … }` in a function body is a `func_literal`,
                    // which has no name): a later context that parses it cleanly is the
                    // intended reading (the top level's `function_declaration`); this one is
                    // the fallback when none does.
                    if lenient_fallback.is_none() {
                        lenient_fallback = Some((context.kind, terminator.is_some(), accepted));
                    }
                }
                Ok(accepted) => {
                    return refuse_deep_multi_metavariable_nesting(accept(
                        &processed,
                        fragment,
                        language,
                        &table,
                        only,
                        context.kind,
                        terminator.is_some(),
                        accepted,
                        warnings,
                    ));
                }
                Err(failure) => attempts.push(ContextAttempt {
                    context: context.kind,
                    with_terminator: terminator.is_some(),
                    failure: display_fragment_text(&failure, language),
                }),
            }
        }
    }
    if let Some((kind, with_terminator, accepted)) = lenient_fallback {
        return refuse_deep_multi_metavariable_nesting(accept(
            &processed,
            fragment,
            language,
            &table,
            only,
            kind,
            with_terminator,
            accepted,
            warnings,
        ));
    }
    let mut hint = context_selector_rule_hint(fragment, language).unwrap_or_default();
    hint.push_str(
        "fix the fragment so it is valid code in one of these places; to match several statements put them in a block `{ … }` or use `$$$` for the varying part; metavariables are `$` + upper-case letters, digits or `_` (e.g. `$X`, `$$$ARGS`)",
    );
    for warning in &warnings {
        hint.push_str("; ");
        hint.push_str(warning);
    }
    Err(PatternCompileError {
        message: format!("the pattern `{fragment}` is not valid {} code in any context this tool tries", language_id(language)),
        attempts,
        hint,
    })
}

/// For a fragment that parses as a node only inside a larger construct — a Rust match arm
/// (`Trait::$V => $S`, only inside a `match`), a Python or TypeScript/JavaScript decorator
/// (`@typing.overload`, only above a definition) — the rule that searches it: the fragment in
/// that construct as the pattern's context and the node's kind as its selector, after checking
/// that the fragment parses there; the first sentence of the refusal's hint (trial175 M6:
/// `Trait::$V => $S` was refused with only the contexts tried, and that rule found the 9 arms
/// of thiserror-impl's attr.rs; trial174 M6: `@typing.overload` in packaging). `None` for other
/// fragments, or when the fragment does not parse there either.
fn context_selector_rule_hint(fragment: &str, language: SupportLang) -> Option<String> {
    let (context, selector, what) = match language {
        SupportLang::Rust if fragment.contains("=>") => {
            // The last arm, without its comma: ast-grep skips the target's unnamed tokens, so
            // arms with a comma and block arms without one match alike (recheck51 N5: with the
            // comma, `Trait::X => { … }` arms were missed, 18 of 21).
            (format!("match __sg_x {{ {} }}", fragment.trim_end_matches(',')), "match_arm", "a match arm is a node only inside a `match`")
        }
        SupportLang::Python if fragment.starts_with('@') && !fragment.contains('\n') => {
            (format!("{fragment}\ndef __sg_f(): pass"), "decorator", "a decorator is a node only above a definition")
        }
        SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript if fragment.starts_with('@') && !fragment.contains('\n') => {
            (format!("{fragment}\nclass __SgC {{}}"), "decorator", "a decorator is a node only above a definition")
        }
        _ => return None,
    };
    let table = language_contexts(language);
    let parses = table.contexts.iter().filter(|candidate| matches!(candidate.kind, ContextKind::Statement | ContextKind::Declaration)).any(
        |candidate| {
            let processed = language.pre_process_pattern(&context).into_owned();
            try_context(&processed, language, candidate, None, table.statement_terminator)
                .is_ok_and(|accepted| !accepted.tolerated_metavariable_error)
        },
    );
    if !parses {
        return None;
    }
    let rule = serde_json::json!({"pattern": {"context": context, "selector": selector}});
    Some(format!("{what}: search it with the rule {rule} (the `rule` argument, in place of `pattern`); "))
}

/// The compiled pattern, or its refusal when it or an alternative reading nests `$$$` deeper
/// than [`MAX_MULTI_METAVARIABLE_NESTING`].
fn refuse_deep_multi_metavariable_nesting(compiled: CompiledPattern) -> Result<CompiledPattern, PatternCompileError> {
    let readings = std::iter::once(&compiled.pattern).chain(compiled.alternatives.iter().map(|a| &a.pattern));
    for pattern in readings {
        if let Some((message, hint)) = multi_metavariable_nesting_refusal(&compiled.source, &pattern.node) {
            return Err(PatternCompileError::refused(message, &hint));
        }
    }
    Ok(compiled)
}

/// How deep `node` nests `$$$` multi-metavariables, counted as ast-grep's matcher pays for
/// them: the largest number of nodes with children, on one path from the root, that come right
/// after a `$$$` in their sibling list (unnamed tokens in between are skipped, as the matcher
/// skips them). To find where a `$$$` ends, the matcher tries the node after it on each
/// candidate (a probe on a copy of the bindings) and, where it fits, matches it again for
/// real: every such level doubles the work of a match. `f($$$A, $B)` is 0, `{ $$$ if ($C) { $$$
/// return $X; } }` is 2 (the `if` and the `return`), `$$$: $$$: $$$: …` (nested C++ labels)
/// is the number of `$$$:`. Iterative, so a pattern nested thousands deep is measured
/// without recursion.
pub fn multi_metavariable_nesting(node: &PatternNode) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(node, 0usize)];
    while let Some((node, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        let PatternNode::Internal { children, .. } = node else {
            continue;
        };
        let mut after_multi_metavariable = false;
        for child in children {
            if matches!(child, PatternNode::MetaVar { meta_var: MetaVariable::Multiple | MetaVariable::MultiCapture(_) }) {
                after_multi_metavariable = true;
                continue;
            }
            if child.is_trivial() {
                continue;
            }
            let probed = after_multi_metavariable && matches!(child, PatternNode::Internal { .. });
            pending.push((child, depth + usize::from(probed)));
            after_multi_metavariable = false;
        }
    }
    deepest
}

/// The refusal (message, hint) for a pattern whose tree nests `$$$` deeper than
/// [`MAX_MULTI_METAVARIABLE_NESTING`]; `None` when it is within the limit. Shared by the
/// pattern compiler and the rule checker (`pattern:` strings and objects in rules).
pub(crate) fn multi_metavariable_nesting_refusal(text: &str, node: &PatternNode) -> Option<(String, String)> {
    let depth = multi_metavariable_nesting(node);
    if depth <= MAX_MULTI_METAVARIABLE_NESTING {
        return None;
    }
    let message = format!(
        "the pattern `{}` nests `$$$` multi-metavariables {depth} levels deep (a node right after a `$$$` that itself holds a node right after a `$$$`, and so on); at most {MAX_MULTI_METAVARIABLE_NESTING} are accepted: ast-grep matches the node after each `$$$` twice (once to find where the `$$$` ends, once for real), so every level doubles the matching time, and a match in progress cannot be interrupted",
        snippet(text, 120)
    );
    let hint = format!(
        "split the pattern: keep at most {MAX_MULTI_METAVARIABLE_NESTING} levels and move the inner part into a rule, e.g. {{\"pattern\": \"<outer part>\", \"has\": {{\"pattern\": \"<inner part>\", \"stopBy\": \"end\"}}}} (or `inside` for the outer part); or write single metavariables (`$A`, `$B`) where one node is meant: only a node after a `$$$` is matched twice"
    );
    Some((message, hint))
}

/// Finishes an accepted reading: adds the type context's reading as an alternative where it
/// differs (see [`type_reading`]), and a Go generic call's other shapes
/// ([`go_generic_calls::generic_call_readings`]).
#[allow(clippy::too_many_arguments)]
fn accept(
    processed: &str,
    fragment: &str,
    language: SupportLang,
    table: &LanguageContexts,
    only: Option<ContextKind>,
    kind: ContextKind,
    with_terminator: bool,
    accepted: Accepted,
    warnings: Vec<String>,
) -> CompiledPattern {
    let mut alternatives =
        if only.is_none() && kind != ContextKind::Type { type_reading(processed, language, table, &accepted) } else { Vec::new() };
    if language == SupportLang::Go {
        // `F[T](…)` has three shapes in tree-sitter-go; the pattern matches all of them
        // (trial173 F1).
        alternatives.extend(go_generic_calls::generic_call_readings(&accepted.pattern).readings.into_iter().map(|reading| {
            AlternativePattern {
                context: kind,
                node_kind: reading.node_kind,
                pattern: reading.pattern,
                reading: Some((go_generic_calls::GENERIC_CALL_READING, reading.shape)),
                index_metavariables: reading.index_metavariables,
            }
        }));
    }
    finish(fragment, language, kind, with_terminator, accepted, alternatives, warnings)
}

/// The canonical lower-case id of `language` (`dart`, `python`, `rust`, `typescript` …).
pub fn language_id(language: SupportLang) -> &'static str {
    use SupportLang as L;
    match language {
        L::Bash => "bash",
        L::C => "c",
        L::Cpp => "cpp",
        L::CSharp => "csharp",
        L::Css => "css",
        L::Dart => "dart",
        L::Elixir => "elixir",
        L::Go => "go",
        L::Haskell => "haskell",
        L::Hcl => "hcl",
        L::Html => "html",
        L::Java => "java",
        L::JavaScript => "javascript",
        L::Json => "json",
        L::Kotlin => "kotlin",
        L::Lua => "lua",
        L::Markdown => "markdown",
        L::Nix => "nix",
        L::Php => "php",
        L::Python => "python",
        L::Ruby => "ruby",
        L::Rust => "rust",
        L::Scala => "scala",
        L::Solidity => "solidity",
        L::Swift => "swift",
        L::Tsx => "tsx",
        L::TypeScript => "typescript",
        L::Yaml => "yaml",
        L::Zig => "zig",
    }
}

/// The type context's reading of a fragment that an earlier context accepted, when it is a
/// different tree (C++ `std::vector<$T>` is a `qualified_identifier` both ways, but its name is
/// a `template_function` in an expression and a `template_type` in a type) and the earlier
/// reading is not a lone metavariable.
fn type_reading(processed: &str, language: SupportLang, table: &LanguageContexts, accepted: &Accepted) -> Vec<AlternativePattern> {
    if accepted.node_kind == "metavariable" {
        return Vec::new();
    }
    let Some(type_context) = table.contexts.iter().find(|c| c.kind == ContextKind::Type) else {
        return Vec::new();
    };
    match try_context(processed, language, type_context, None, table.statement_terminator) {
        Ok(reading) if reading.node_kind != "metavariable" && !same_pattern_tree(&reading.pattern.node, &accepted.pattern.node) => {
            vec![AlternativePattern {
                context: ContextKind::Type,
                node_kind: reading.node_kind,
                pattern: reading.pattern,
                reading: None,
                index_metavariables: Vec::new(),
            }]
        }
        _ => Vec::new(),
    }
}

/// Whether two compiled trees are the same (kinds, texts, metavariables).
fn same_pattern_tree(a: &PatternNode, b: &PatternNode) -> bool {
    match (a, b) {
        (PatternNode::MetaVar { meta_var: x }, PatternNode::MetaVar { meta_var: y }) => x == y,
        (PatternNode::Terminal { text: tx, is_named: nx, kind_id: kx }, PatternNode::Terminal { text: ty, is_named: ny, kind_id: ky }) => {
            tx == ty && nx == ny && kx == ky
        }
        (PatternNode::Internal { kind_id: kx, children: cx }, PatternNode::Internal { kind_id: ky, children: cy }) => {
            kx == ky && cx.len() == cy.len() && cx.iter().zip(cy).all(|(x, y)| same_pattern_tree(x, y))
        }
        _ => false,
    }
}

/// A context's successful parse of the fragment.
struct Accepted {
    pattern: Pattern,
    node_kind: String,
    parts: Option<PartTree>,
    /// Whether the parse had an ERROR node whose text is a lone metavariable (tolerated, but
    /// a context without one is preferred).
    tolerated_metavariable_error: bool,
}

fn finish(
    fragment: &str,
    language: SupportLang,
    context: ContextKind,
    with_terminator: bool,
    accepted: Accepted,
    alternatives: Vec<AlternativePattern>,
    mut warnings: Vec<String>,
) -> CompiledPattern {
    let ts_language = language.get_ts_language();
    let Accepted { pattern, node_kind, parts, .. } = accepted;
    let literals = pattern_required_texts(&pattern.node, &pattern.strictness, &ts_language);
    let mut requirement = LiteralRequirement::all_of(literals.iter().cloned());
    for alternative in &alternatives {
        let texts = pattern_required_texts(&alternative.pattern.node, &alternative.pattern.strictness, &ts_language);
        requirement = requirement.or(LiteralRequirement::all_of(texts));
    }
    if alternatives.is_empty() && comments_are_slashes_or_hash(language) {
        if let Some(operator) = same_metavariable_around_operator(&pattern, &ts_language) {
            requirement = requirement.and(LiteralRequirement::same_code_around(&operator));
        }
    }
    let mut metavariables: Vec<String> = pattern.defined_vars().into_iter().map(str::to_owned).collect();
    for alternative in &alternatives {
        // Not the names given to anonymous metavariables of a Go index-call reading (review50 H3).
        metavariables.extend(
            alternative
                .pattern
                .defined_vars()
                .into_iter()
                .filter(|name| !name.starts_with(go_generic_calls::HIDDEN_INDEX_METAVARIABLE))
                .map(str::to_owned),
        );
    }
    metavariables.sort();
    metavariables.dedup();
    if matches!(pattern.node, PatternNode::MetaVar { .. }) {
        warnings.push(format!(
            "`{fragment}` is a lone metavariable: it matches every node of every file; add surrounding code to say what you look for"
        ));
    }
    let mut kinds = pattern.potential_kinds();
    for alternative in &alternatives {
        kinds = match (kinds, alternative.pattern.potential_kinds()) {
            (Some(mut a), Some(b)) => {
                a.union_with(&b);
                Some(a)
            }
            _ => None,
        };
    }
    CompiledPattern {
        language,
        source: fragment.to_owned(),
        pattern,
        context,
        with_terminator,
        node_kind,
        alternatives,
        literals,
        requirement,
        metavariables,
        warnings,
        parts,
        kinds,
    }
}

/// The languages whose comments are only `//`, `/* … */` and `#` (what
/// [`crate::structural::literals::same_code_around_operator_possible`] recognises).
fn comments_are_slashes_or_hash(language: SupportLang) -> bool {
    use SupportLang as L;
    matches!(language, L::Rust | L::Python | L::Go | L::JavaScript | L::TypeScript | L::Tsx | L::Java | L::C | L::Cpp | L::CSharp)
}

/// The operator of a pattern `$A op $A`: a root of exactly three parts, the same named
/// metavariable on both sides of an anonymous punctuation token whose text is its kind (`==`,
/// `!=`, `-`), compared by text (smart or cst strictness).
fn same_metavariable_around_operator(pattern: &Pattern, ts_language: &tree_sitter::Language) -> Option<String> {
    if !matches!(pattern.strictness, ast_grep_core::MatchStrictness::Smart | ast_grep_core::MatchStrictness::Cst) {
        return None;
    }
    let PatternNode::Internal { children, .. } = &pattern.node else {
        return None;
    };
    let [PatternNode::MetaVar { meta_var: MetaVariable::Capture(left, _) }, PatternNode::Terminal { text, is_named: false, kind_id }, PatternNode::MetaVar { meta_var: MetaVariable::Capture(right, _) }] =
        children.as_slice()
    else {
        return None;
    };
    let is_punctuation = !text.is_empty() && text.bytes().all(|b| b.is_ascii_punctuation() && b != b'\\');
    (left == right && is_punctuation && ts_language.node_kind_for_id(*kind_id) == Some(text.as_str())).then(|| text.clone())
}

/// Parses `processed` in one context; the compiled pattern and its root kind, or why not.
fn try_context(
    processed: &str,
    language: SupportLang,
    context: &PatternContext,
    terminator: Option<&str>,
    language_terminator: Option<&str>,
) -> Result<Accepted, String> {
    let terminator_text = terminator.unwrap_or("");
    let source = format!("{}{processed}{terminator_text}{}", context.prefix, context.suffix);
    let span = context.prefix.len()..context.prefix.len() + processed.len();
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(&source, language).map_err(|err| format!("the parser failed: {err}"))?;
    let top = root.root();
    let tolerated_metavariable_error = first_parse_problem(&top, language, &span, &source)?;
    let exact = top.dfs().find(|node| node.range() == span);
    let (node, strip_terminator) = match exact {
        Some(node) => (node, false),
        None => {
            let with_term = span.start..span.end + terminator_text.len();
            // A fragment ending in its own `;` where the grammar keeps the `;` outside the node
            // (a TypeScript class field): the node without it.
            let without_own_term = language_terminator
                .filter(|term| processed.ends_with(term) && processed.len() > term.len())
                .map(|term| span.start..span.end - term.len());
            let appended = terminator.and_then(|_| top.dfs().find(|node| node.range() == with_term));
            let own = without_own_term.and_then(|range| top.dfs().find(|node| node.range() == range));
            match (appended, own) {
                (Some(node), _) => (node, true),
                (None, Some(node)) => (node, false),
                (None, None) => return Err(describe_no_spanning_node(&top, &span)),
            }
        }
    };
    let mut node = node;
    while is_single_node(&node) {
        let Some(child) = node.child(0) else { break };
        node = child;
    }
    let mut pattern = Pattern::from(node.clone());
    let mut parts = part_tree(&node, language);
    if strip_terminator {
        if let Some(term) = terminator {
            if strip_last_terminal(&mut pattern.node, term) {
                if let Some(tree) = &mut parts {
                    strip_last_part(tree);
                }
            }
        }
        loop {
            let only_child = match &pattern.node {
                PatternNode::Internal { children, .. } if children.len() == 1 => children[0].clone(),
                _ => break,
            };
            pattern.node = only_child;
            parts = parts.and_then(|tree| tree.children.into_iter().next()).and_then(|child| child.parts);
        }
    }
    if let PatternNode::MetaVar { meta_var: MetaVariable::MultiCapture(_) | MetaVariable::Multiple } = &pattern.node {
        return Err("the fragment compiles to a lone `$$$` metavariable, which needs surrounding code".to_owned());
    }
    if language == SupportLang::Dart {
        dart_set_literal_to_block(&mut pattern.node, &language.get_ts_language());
    }
    let node_kind = match &pattern.node {
        PatternNode::MetaVar { .. } => "metavariable".to_owned(),
        PatternNode::Terminal { kind_id, .. } | PatternNode::Internal { kind_id, .. } => {
            language.get_ts_language().node_kind_for_id(*kind_id).unwrap_or("unknown").to_owned()
        }
    };
    if matches!(pattern.node, PatternNode::MetaVar { .. }) {
        parts = None;
    }
    Ok(Accepted { pattern, node_kind, parts, tolerated_metavariable_error })
}

/// The parts of `node` as `Pattern::from` converts it (MISSING children left out): for each
/// child its label (a metavariable too: `$$$B` as a Python `def` body is labelled `body`) and
/// its own parts; `None` when `node` is a metavariable or a leaf.
fn part_tree(node: &Node<'_, StrDoc<SupportLang>>, language: SupportLang) -> Option<PartTree> {
    if language.extract_meta_var(node.text().trim()).is_some() || node.is_leaf() {
        return None;
    }
    let inner = node.get_inner_node();
    let mut children = Vec::new();
    for (index, child) in node.children().enumerate() {
        if child.is_missing() {
            continue;
        }
        let label = (child.is_named() && !child.is_extra()).then(|| part_label(&inner, index, &child.kind()));
        children.push(PartChild { label, parts: part_tree(&child, language) });
    }
    Some(PartTree { children })
}

/// Mirrors [`strip_last_terminal`] on the parts: drops the last child of the innermost last
/// internal node.
fn strip_last_part(tree: &mut PartTree) {
    match tree.children.last_mut() {
        Some(PartChild { parts: Some(inner), .. }) => strip_last_part(inner),
        Some(_) => {
            tree.children.pop();
        }
        None => {}
    }
}

/// A child's label: its field name in `parent`, else its kind.
pub(crate) fn part_label(parent: &tree_sitter::Node<'_>, child_index: usize, child_kind: &str) -> PartLabel {
    let field = u32::try_from(child_index).ok().and_then(|index| parent.field_name_for_child(index));
    PartLabel { name: field.map(str::to_owned).unwrap_or_else(|| child_kind.to_owned()), is_field: field.is_some() }
}

/// The first ERROR (that is not a lone metavariable) or MISSING node of the parse, described
/// with its position inside the fragment, as `Err`; else whether an ERROR that is a lone
/// metavariable was tolerated.
fn first_parse_problem(
    top: &Node<'_, StrDoc<SupportLang>>,
    language: SupportLang,
    span: &Range<usize>,
    source: &str,
) -> Result<bool, String> {
    let mut tolerated_metavariable_error = false;
    // Pre-order, each node with its parent from the walk: tree-sitter's `parent()` walks down
    // from the root, and on a deep tree of hidden nodes one call cost O(depth²) — 3.3 s for
    // the 4 KB pattern `&&…&%&&…&$A` in Rust (found by the pattern_compiler fuzz target).
    // Each node also carries its nearest ancestor with text (a zero-width node has none).
    type WalkNode<'t> = Node<'t, StrDoc<SupportLang>>;
    let mut stack: Vec<(WalkNode<'_>, Option<WalkNode<'_>>, Option<WalkNode<'_>>)> = vec![(top.clone(), None, None)];
    while let Some((node, parent, ancestor_with_text)) = stack.pop() {
        let children: Vec<_> = node.children().collect();
        let for_children = if node.text().trim().is_empty() { ancestor_with_text.clone() } else { Some(node.clone()) };
        stack.extend(children.into_iter().rev().map(|child| (child, Some(node.clone()), for_children.clone())));
        if node.is_missing() {
            // A statement made of a lone metavariable (`{ $$$B }` in C) gets a MISSING `;`:
            // benign, the whole statement compiles to the metavariable. So does a Go type
            // parameter list `[$$$TP]`, whose lone declaration gets a MISSING constraint inside
            // an empty `type_constraint` (trial153: the CLI accepts `func $F[$$$TP](…)`).
            let is_metavariable =
                |node: &Option<WalkNode<'_>>| node.as_ref().is_some_and(|n| language.extract_meta_var(n.text().trim()).is_some());
            if is_metavariable(&parent) || is_metavariable(&ancestor_with_text) {
                continue;
            }
            let kind = node.kind();
            let what = if node.is_named() { format!("a `{kind}` node") } else { format!("`{kind}`") };
            return Err(format!("the parser had to insert a missing {what} {}", locate(node.range().start, span, source)));
        }
        if node.is_error() {
            let text = node.text();
            if language.extract_meta_var(text.trim()).is_some() {
                tolerated_metavariable_error = true;
                continue;
            }
            let parent = parent.as_ref().map(|p| p.kind().into_owned()).unwrap_or_else(|| "the file".to_owned());
            return Err(format!(
                "syntax error {} at `{}` (inside `{parent}`)",
                locate(node.range().start, span, source),
                snippet(&text, 60)
            ));
        }
    }
    Ok(tolerated_metavariable_error)
}

fn locate(offset: usize, span: &Range<usize>, source: &str) -> String {
    if offset < span.start || offset > span.end {
        return "in the code around the fragment (the fragment breaks this context)".to_owned();
    }
    let before = &source[span.start..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map(|s| s.chars().count()).unwrap_or(0) + 1;
    format!("at fragment line {line}, column {column}")
}

fn describe_no_spanning_node(top: &Node<'_, StrDoc<SupportLang>>, span: &Range<usize>) -> String {
    // The smallest node containing the whole span; its children overlapping the span are the
    // pieces the fragment parsed into.
    let mut container = top.clone();
    loop {
        let inner = container.children().find(|child| child.range().start <= span.start && child.range().end >= span.end);
        match inner {
            Some(child) => container = child,
            None => break,
        }
    }
    let pieces: Vec<String> = container
        .children()
        .filter(|child| child.range().start < span.end && child.range().end > span.start && child.is_named())
        .map(|child| format!("`{}`", child.kind()))
        .collect();
    if pieces.len() > 1 {
        return format!(
            "no single node covers the fragment: it parses as {} sibling nodes ({}); a pattern must be one node",
            pieces.len(),
            pieces.join(", ")
        );
    }
    format!("no single node covers exactly the fragment (the nearest enclosing node is `{}`)", container.kind())
}

/// ast-grep's rule for descending: one child, or two where the second is MISSING or has an
/// empty kind.
fn is_single_node(node: &Node<'_, StrDoc<SupportLang>>) -> bool {
    match node.children().len() {
        1 => true,
        2 => node.child(1).is_some_and(|second| second.is_missing() || second.kind().is_empty()),
        _ => false,
    }
}

/// Removes the synthetic terminator: the last unnamed terminal on the rightmost path.
fn strip_last_terminal(node: &mut PatternNode, terminator: &str) -> bool {
    let PatternNode::Internal { children, .. } = node else {
        return false;
    };
    match children.last_mut() {
        Some(PatternNode::Terminal { text, is_named: false, .. }) if text == terminator => {
            children.pop();
            true
        }
        Some(last @ PatternNode::Internal { .. }) => strip_last_terminal(last, terminator),
        _ => false,
    }
}

/// Dart reads `{ $$$B }` after `if (…)` as an expression statement holding a set literal; in a
/// statement position it is a block. Rewrites `expression_statement(set_or_map_literal{…})`
/// into `block{…}` everywhere in the pattern.
fn dart_set_literal_to_block(node: &mut PatternNode, ts_language: &tree_sitter::Language) {
    let (Some(expression_statement), Some(set_literal), Some(block)) =
        (kind_id(ts_language, "expression_statement"), kind_id(ts_language, "set_or_map_literal"), kind_id(ts_language, "block"))
    else {
        return;
    };
    rewrite(node, expression_statement, set_literal, block);

    fn rewrite(node: &mut PatternNode, expression_statement: u16, set_literal: u16, block: u16) {
        let PatternNode::Internal { kind_id, children } = node else {
            return;
        };
        if *kind_id == expression_statement {
            let only_punctuation_after = children.iter().skip(1).all(|c| matches!(c, PatternNode::Terminal { is_named: false, .. }));
            if let (Some(PatternNode::Internal { kind_id: first_kind, children: inner }), true) = (children.first(), only_punctuation_after)
            {
                if *first_kind == set_literal {
                    let inner = inner.clone();
                    *node = PatternNode::Internal { kind_id: block, children: inner };
                    if let PatternNode::Internal { children, .. } = node {
                        for child in children {
                            rewrite(child, expression_statement, set_literal, block);
                        }
                    }
                    return;
                }
            }
        }
        for child in children {
            rewrite(child, expression_statement, set_literal, block);
        }
    }
}

fn kind_id(ts_language: &tree_sitter::Language, kind: &str) -> Option<u16> {
    let id = ts_language.id_for_node_kind(kind, true);
    (id != 0).then_some(id)
}

fn is_bare_multi_metavariable(fragment: &str) -> bool {
    let Some(rest) = fragment.strip_prefix("$$$") else {
        return false;
    };
    rest.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Lint: `$` followed by a lower-case letter or a digit is not a metavariable.
pub(crate) fn lint_metavariables(fragment: &str, language: SupportLang, dollar_is_identifier_char: bool) -> Vec<String> {
    if matches!(language, SupportLang::Php | SupportLang::Bash) {
        // `$x` is a variable in these languages: ordinary code, nothing to warn about.
        return Vec::new();
    }
    let mut suspicious: Vec<String> = Vec::new();
    let bytes = fragment.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] != b'$' {
            index += 1;
            continue;
        }
        let start = index;
        while index < bytes.len() && bytes[index] == b'$' {
            index += 1;
        }
        let name_start = index;
        while index < bytes.len() && (bytes[index].is_ascii_alphanumeric() || bytes[index] == b'_') {
            index += 1;
        }
        let name = &fragment[name_start..index];
        let first = name.chars().next();
        let is_metavariable = matches!(first, Some(c) if c.is_ascii_uppercase() || c == '_')
            && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if !name.is_empty() && !is_metavariable {
            let word = &fragment[start..index];
            if !suspicious.iter().any(|s| s == word) {
                suspicious.push(word.to_owned());
            }
        }
    }
    suspicious
        .into_iter()
        .map(|word| {
            let upper = word.to_ascii_uppercase();
            if dollar_is_identifier_char {
                format!(
                    "`{word}` is not a metavariable (those are `$` + upper-case letters, digits, `_`): in {} it is an ordinary identifier and matches only the literal name `{word}`; write `{upper}` to match any node",
                    language_id(language)
                )
            } else {
                format!("`{word}` is not a metavariable (those are `$` + upper-case letters, digits, `_`); write `{upper}` to match any node")
            }
        })
        .collect()
}

/// Replaces the expando character of `language` back with `$` in text shown to the model.
fn display_fragment_text(text: &str, language: SupportLang) -> String {
    let expando = language.expando_char();
    if expando == '$' || expando.is_ascii() {
        return text.to_owned();
    }
    text.replace(expando, "$")
}

fn snippet(text: &str, max_chars: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max_chars {
        return one_line;
    }
    let mut out: String = one_line.chars().take(max_chars).collect();
    let _ = write!(out, "…");
    out
}
