//! The `structuredContent` of `ast_grep` and `ast_edit` as types: serialized into each result,
//! and the source of the tools' declared `outputSchema`s (see [`crate::schema`]).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::structural::contexts::ContextKind;
use crate::structural::missed::MissedParts;
use crate::structural::query::Query;
use crate::structural::search::WalkStats;
use crate::structural::syntax_tree::SyntaxTreeFormat;
use ast_grep_language::SupportLang;

/// What `ast_grep` answers: a search, or a syntax-tree dump (`syntax_tree` given).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum AstGrepOutput {
    /// The matches of a pattern or rule.
    Search(Box<AstGrepSearch>),
    /// The syntax tree of a snippet.
    SyntaxTree(SyntaxTreeOutput),
}

/// The matches of a pattern or rule.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AstGrepSearch {
    /// The pattern searched for; null for a rule search.
    pub pattern: Option<String>,
    /// The rule searched with, as given; null for a pattern search.
    pub rule: Option<Map<String, Value>>,
    /// The canonical language id, e.g. `rust`.
    pub language: String,
    /// What the pattern compiled to (or the node kinds a rule can match).
    pub compiled_as: CompiledAs,
    /// Matches found in all files (always counted in full).
    pub total_matches: usize,
    /// Files with at least one match.
    pub files_with_matches: usize,
    /// Matches listed in `matches` (at most `max_results`).
    pub shown: usize,
    /// Whether `matches` leaves some out.
    pub truncated: bool,
    /// The matches shown, sorted by path and position.
    pub matches: Vec<StructuralMatchOutput>,
    /// Warnings about the pattern (e.g. a metavariable used once in a rewrite-less search).
    pub warnings: Vec<String>,
    /// Nodes the pattern missed only because of parts it lacks, or null when none.
    pub missed_candidates: Option<MissedCandidates>,
    /// Occurrences of the pattern's literal word inside code the parser leaves unparsed (Rust
    /// macro arguments, C/C++ `#define` bodies), which no pattern can match; null when none.
    pub unparsed_occurrences: Option<UnparsedOccurrencesOutput>,
    /// Matches (of `total_matches`) in build output: TypeScript declaration and JavaScript files
    /// a build wrote, which `ast_edit` leaves out unless `include_build_output` (trial164 M2).
    pub matches_in_build_output: usize,
    /// The build-output files with matches, relative to the workspace root (at most 20).
    pub build_output_files: Vec<String>,
    /// What the walk visited, parsed and skipped.
    pub stats: WalkStats,
}

/// One match of `ast_grep`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StructuralMatchOutput {
    /// The file, relative to the workspace root.
    pub path: String,
    /// 1-based line of the match's first character.
    pub line: usize,
    /// 1-based column (characters) of the match's first character.
    pub column: usize,
    /// 1-based line of the match's last character.
    pub end_line: usize,
    /// The matched code (cut to the configured lines and characters, marked).
    pub text: String,
    /// Metavariable bindings by name (without `$`).
    pub bindings: BTreeMap<String, String>,
}

/// What a query compiled to.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum CompiledAs {
    /// A pattern: the context it parsed in and the node kind it matches.
    Pattern {
        /// The context the pattern parsed in.
        context: ContextKind,
        /// The tree-sitter node kind the pattern's root matches.
        node_kind: String,
        /// Whether the pattern's statement terminator (`;`) is part of the match.
        with_terminator: bool,
        /// Other readings of the pattern that also match (the type context's).
        alternatives: Vec<AlternativeReading>,
    },
    /// A rule: the node kinds its root can match.
    Rule {
        /// Node kinds the rule's root can match (empty: any).
        rule_kinds: Vec<String>,
    },
}

/// Another reading of a pattern.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AlternativeReading {
    /// The context of this reading.
    pub context: ContextKind,
    /// The node kind it matches.
    pub node_kind: String,
    /// How the reading came about when it is not the context's parse, with its shape (a Go
    /// `F[T](…)` pattern read as each of the call's shapes, trial173 F1); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
}

impl CompiledAs {
    /// What `query` compiled to.
    pub(crate) fn of(query: &Query) -> CompiledAs {
        match query {
            Query::Pattern(pattern) => CompiledAs::Pattern {
                context: pattern.context,
                node_kind: pattern.node_kind.clone(),
                with_terminator: pattern.with_terminator,
                alternatives: pattern
                    .alternatives
                    .iter()
                    .map(|alternative| AlternativeReading {
                        context: alternative.context,
                        node_kind: alternative.node_kind.clone(),
                        reading: alternative.reading.as_ref().map(|(how, shape)| format!("{how} → {shape}")),
                    })
                    .collect(),
            },
            Query::Rule(rule) => CompiledAs::Rule { rule_kinds: rule.root_kinds.clone() },
        }
    }
}

/// Candidates a pattern missed only because of parts it lacks.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissedCandidates {
    /// How many nodes were missed that way.
    pub count: usize,
    /// How many were missed for each part (e.g. `return_type`).
    pub by_part: BTreeMap<String, usize>,
    /// Per part: what to add to the pattern, where, and an example.
    pub parts: Vec<MissedPartOutput>,
    /// One of them, when known.
    pub example: Option<MissedExample>,
    /// Candidates not examined because the check's cap was reached (the counts above are then
    /// a lower bound); 0 when every candidate was examined.
    pub not_examined: usize,
}

/// One part a pattern lacks.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissedPartOutput {
    /// The part's field name (e.g. `type_parameters`), else its node kind.
    pub part: String,
    /// How many missed candidates have it.
    pub count: usize,
    /// The kind of the node it belongs to (e.g. `function_declaration`).
    pub of_kind: String,
    /// Where, e.g. `before the parameters`.
    pub position: String,
    /// Its shapes (at most 4, most frequent first), each with its own text to add.
    pub forms: Vec<MissedPartForm>,
    /// Candidates whose part had another shape than those listed.
    pub other_forms: usize,
}

/// Occurrences of a pattern's word inside unparsed code.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct UnparsedOccurrencesOutput {
    /// The word (the pattern's longest identifier), e.g. `display_width`.
    pub word: String,
    /// How many occurrences lie inside unparsed code.
    pub occurrences: usize,
    /// In how many files.
    pub files: usize,
    /// Per container (`assert_eq!`, `#define`): occurrences.
    pub by_container: BTreeMap<String, usize>,
    /// The first: path relative to the workspace root.
    pub example_path: String,
    /// Its 1-based line.
    pub example_line: usize,
    /// A rule that finds the containers holding the word.
    pub rule: Value,
}

impl UnparsedOccurrencesOutput {
    /// `None` when there is none.
    pub(crate) fn of(missed: &MissedParts, language: SupportLang) -> Option<UnparsedOccurrencesOutput> {
        let unparsed = &missed.unparsed;
        let (path, line) = unparsed.example.clone()?;
        (unparsed.occurrences > 0).then(|| UnparsedOccurrencesOutput {
            word: unparsed.word.clone(),
            occurrences: unparsed.occurrences,
            files: unparsed.files,
            by_container: unparsed.by_container.clone(),
            example_path: path,
            example_line: line,
            rule: unparsed_rule(&unparsed.word, language),
        })
    }
}

/// The rule that finds the unparsed containers whose text has `word` as a whole word.
pub(crate) fn unparsed_rule(word: &str, language: SupportLang) -> Value {
    let regex = format!("\\b{word}\\b");
    if language == SupportLang::Rust {
        // Macro invocations and `macro_rules!` rules (their templates) alike.
        serde_json::json!({"any": [{"kind": "macro_invocation", "regex": regex}, {"kind": "macro_rule", "regex": regex}]})
    } else {
        serde_json::json!({"kind": "preproc_arg", "regex": regex})
    }
}

/// One shape of a missed part.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissedPartForm {
    /// What to add to the pattern, e.g. `<$$$TYPE_PARAMETERS>` or `: $RETURN_TYPE`.
    pub add_to_pattern: String,
    /// How many missed candidates have the part in this shape.
    pub count: usize,
    /// The first of them: path relative to the workspace root.
    pub example_path: String,
    /// Its 1-based line.
    pub example_line: usize,
    /// The part's code there, on one line, cut to 60 characters.
    pub example_code: String,
}

/// One missed candidate.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MissedExample {
    /// The file, relative to the workspace root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// What the pattern would need to match it.
    pub add_to_pattern: String,
}

impl MissedCandidates {
    /// `None` when nothing was missed and every candidate was examined.
    pub(crate) fn of(missed: &MissedParts) -> Option<MissedCandidates> {
        (missed.candidates > 0 || missed.not_examined > 0).then(|| MissedCandidates {
            count: missed.candidates,
            by_part: missed.by_part.iter().map(|(label, part)| (label.clone(), part.count)).collect(),
            parts: missed
                .by_part
                .iter()
                .map(|(label, part)| MissedPartOutput {
                    part: label.clone(),
                    count: part.count,
                    of_kind: part.of_kind.clone(),
                    position: part.position.clone(),
                    forms: part
                        .forms
                        .iter()
                        .map(|form| MissedPartForm {
                            add_to_pattern: form.add.clone(),
                            count: form.count,
                            example_path: form.example.0.clone(),
                            example_line: form.example.1,
                            example_code: form.example.2.clone(),
                        })
                        .collect(),
                    other_forms: part.other_forms,
                })
                .collect(),
            not_examined: missed.not_examined,
            example: missed.example.as_ref().map(|(path, line, add)| MissedExample {
                path: path.clone(),
                line: *line,
                add_to_pattern: add.clone(),
            }),
        })
    }
}

/// The syntax tree of a snippet (`ast_grep` with `syntax_tree`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SyntaxTreeOutput {
    /// Which tree was shown.
    pub syntax_tree: SyntaxTreeFormat,
    /// The canonical language id.
    pub language: String,
    /// Nodes shown.
    pub nodes_shown: usize,
    /// Nodes in the tree.
    pub nodes_total: usize,
    /// Whether nodes were left out.
    pub truncated: bool,
    /// ERROR and MISSING nodes in the snippet's parse.
    pub parse_problems: usize,
}

/// What `ast_edit` answers: the staged change, or nothing staged.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AstEditOutput {
    /// The staged change's id for `resolve`; null when nothing was staged (no match, or the
    /// rewrite changed no file).
    pub edit_id: Option<String>,
    /// Replacements in the staged change.
    pub replacements: usize,
    /// The files of the staged change (empty when nothing was staged).
    pub files: Vec<AstEditFile>,
    /// Matches nested in other matches and not rewritten (the outermost wins).
    pub nested_skipped: usize,
    /// What the query compiled to.
    pub compiled_as: CompiledAs,
    /// Hunks shown in the preview.
    pub preview_hunks_shown: usize,
    /// Hunks in the staged change.
    pub preview_hunks_total: usize,
    /// Bytes of diff text the preview left out by its byte cap (`staged.max_preview_bytes`);
    /// 0 when the whole diff is shown (issue 13 §5).
    pub preview_bytes_left_out: usize,
    /// Warnings and notes (nested matches skipped, parse errors allowed, files unchanged, …).
    pub warnings: Vec<String>,
    /// Rewritten files with new parse errors (only with `allow_parse_errors`).
    pub files_with_new_parse_errors: usize,
    /// Python: which interpreter of the project compiled the rewritten files and what it found,
    /// or why it did not (null for other languages and when nothing was staged).
    pub python_check: Option<String>,
    /// Substituted captures no longer one node in the rewritten code (staged only with
    /// `allow_precedence_changes`; trial164 M2).
    pub precedence_changes: usize,
    /// Build-output files with matches (relative to the workspace root): left out of the edit,
    /// or rewritten with `include_build_output` (see `build_output_included`).
    pub build_output_files: Vec<String>,
    /// Whether `build_output_files` are part of the edit.
    pub build_output_included: bool,
    /// What the walk visited, parsed and skipped.
    pub stats: WalkStats,
}

/// One file of an `ast_edit` change.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AstEditFile {
    /// The file, relative to the workspace root.
    pub path: String,
    /// Replacements in it.
    pub replacements: usize,
}
