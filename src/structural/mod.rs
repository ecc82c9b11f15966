//! Structural search and staged rewrite: `ast_grep` (tier read), `ast_edit` and `resolve`
//! (tier write), bound to the run's tree-sitter parser set (R-REG-1, R-AST-1..4, R-EDIT-1,
//! R-RES-1).
//!
//! - `compile`: the contextual pattern compiler (a fragment is parsed inside wrapping
//!   contexts, `contexts` is the per-language table, the type context last).
//! - `rule`: ast-grep rule objects through `ast-grep-config`, with errors that name the path
//!   of the offending key and suggest node kinds from the grammar (`suggest`).
//! - `query`: a compiled pattern or rule behind one matcher, and the per-file scan.
//! - `go_generic_calls`: a Go pattern `F[T](…)` read in all three shapes tree-sitter-go gives
//!   such a call (trial173 F1).
//! - `literals`: the literal pre-filter (texts a file must contain to be parsed at all).
//! - `missed`: candidates a pattern missed only because of parts it lacks.
//! - `search`: the parallel gitignore-aware walk (hidden, ignored and vendored paths skipped
//!   and counted).
//! - `syntax_tree`: the `syntax_tree` dump (cst, ast, pattern).
//! - `reparse`: rewritten files parsed again; new ERROR/MISSING nodes refuse the edit.
//! - `precedence`: each captured node substituted into the rewrite is still one node in the
//!   rewritten file (trial164 M2: `Array<$T>` → `$T[]` made `Effect | undefined[]`).
//! - `tools`: `ast_grep` and `ast_edit` and their result text; `ast_edit` stages through the
//!   run's shared store ([`crate::staged`]), whose `resolve` writes or drops the change.
//!
//! Wiring: `Run::builder(root).with_structural().build()` registers `ast_grep`, `ast_edit` and
//! the staged store's `resolve`.

pub(crate) mod compile;
pub(crate) mod contexts;
pub(crate) mod evaluate;
pub(crate) mod go_generic_calls;
pub(crate) mod literals;
pub(crate) mod missed;
mod output;
pub(crate) mod precedence;
pub(crate) mod python_syntax;
pub(crate) mod query;
pub(crate) mod reparse;
pub(crate) mod rule;
pub(crate) mod search;
pub(crate) mod suggest;
pub(crate) mod syntax_tree;
pub(crate) mod tools;

pub(crate) use ast_grep_language::SupportLang;
pub(crate) use compile::{language_id, CompiledPattern};
pub(crate) use contexts::ContextKind;

use crate::error::ToolError;
use crate::registry::Registry;

/// Caps and limits of the structural tools. Part of [`crate::RunConfig`].
#[derive(Debug, Clone)]
pub struct StructuralConfig {
    /// `max_results` of `ast_grep` when the call gives none (default 50).
    pub default_max_results: usize,
    /// Longest matched code shown per match, in lines (default 8); longer matches are cut with
    /// a marker saying how many lines were left out.
    pub max_match_lines: usize,
    /// Longest matched code or binding shown, in characters (default 400).
    pub max_match_chars: usize,
    /// Walker threads; 0 = `min(available_parallelism, 12)`.
    pub walk_threads: usize,
    /// Files larger than this many bytes **and** longer than `max_file_lines` are skipped and
    /// counted (default 3,000,000 bytes, as ast-grep).
    pub max_file_bytes: u64,
    /// See `max_file_bytes` (default 200,000 lines).
    pub max_file_lines: usize,
    /// Most node lines a `syntax_tree` answer shows (default 400); the rest is counted.
    pub max_syntax_tree_nodes: usize,
    /// Longest `code` a `syntax_tree` call accepts, in bytes (default 65,536).
    pub max_syntax_tree_code_bytes: usize,
    /// Most unmatched nodes of a pattern's root kind one search examines for parts the pattern
    /// lacks (default 20,000, `missed::MAX_CANDIDATES_EXAMINED`); past it the result says how
    /// many were not examined. 0 turns the check off.
    pub max_missed_candidates: usize,
    /// Most evaluation steps (one node tried against one sub-rule) one file's match may take
    /// (default 200,000,000, `evaluate::DEFAULT_MAX_MATCH_STEPS_PER_FILE`); past it the file's
    /// match is cut and the result says so, keeping the matches found before. The call's
    /// deadline and cancel are checked within a file's match too, every 1,024 steps.
    pub max_match_steps_per_file: u64,
}

impl Default for StructuralConfig {
    fn default() -> Self {
        StructuralConfig {
            default_max_results: 50,
            max_match_lines: 8,
            max_match_chars: 400,
            walk_threads: 0,
            max_file_bytes: 3_000_000,
            max_file_lines: 200_000,
            max_syntax_tree_nodes: 400,
            max_syntax_tree_code_bytes: 65_536,
            max_missed_candidates: missed::MAX_CANDIDATES_EXAMINED,
            max_match_steps_per_file: evaluate::DEFAULT_MAX_MATCH_STEPS_PER_FILE,
        }
    }
}

/// The run's structural resource: the run's `structural` section (staged edits live in the
/// shared [`crate::staged::StagedResource`]). Exists only when the run was built
/// `with_structural()`; dropped with the run.
#[derive(Debug, Default)]
pub struct StructuralResource {
    config: StructuralConfig,
}

impl StructuralResource {
    /// The resource for tools that run with `config` (the run's `structural` section).
    pub fn new(config: StructuralConfig) -> StructuralResource {
        StructuralResource { config }
    }

    /// The caps and limits the structural tools run with.
    pub fn config(&self) -> &StructuralConfig {
        &self.config
    }
}

impl crate::registry::Resource for StructuralResource {
    const NAME: &'static str = "tree-sitter parser set";
    const WIRED_BY: &'static str = "RunBuilder::with_structural()";
}

/// Parses a language id or alias (`dart`, `py`, `rs`, `ts`, `c++` …; case-insensitive).
///
/// # Errors
/// `invalid_arguments` listing every supported id.
pub(crate) fn parse_language(id: &str) -> Result<SupportLang, ToolError> {
    id.trim().parse::<SupportLang>().map_err(|_| {
        ToolError::invalid(format!("unknown language {id:?}")).with_hint(format!("use one of: {}", supported_language_ids().join(", ")))
    })
}

/// Every bundled grammar's canonical id, sorted.
pub(crate) fn supported_language_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = SupportLang::all_langs().iter().map(|lang| language_id(*lang)).collect();
    ids.sort_unstable();
    ids
}

pub(crate) fn register_tools(registry: &mut Registry) {
    tools::register(registry);
}

/// Differential tests against the ast-grep CLI on real trees (moved from `tests/it`).
#[cfg(test)]
mod differential_tests;

/// Unit tests of the compiler, matcher and walk (moved from `tests/it`).
#[cfg(test)]
mod tests;

/// Bounded matching on hostile rules and big inputs (issue 13): memo, budget, stack guard,
/// rule limits, and agreement with ast-grep's `RuleCore`.
#[cfg(test)]
mod limits_tests;
