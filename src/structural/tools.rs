//! The tool functions `ast_grep` and `ast_edit`, their descriptors, and the text they answer
//! with (`resolve` is the staged store's: `crate::staged`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ast_grep_core::replacer::TemplateFix;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Language, Matcher, NodeMatch};
use ast_grep_language::SupportLang;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::{ErrorKind, ToolError};
use crate::files::resolve_in_workspace;
use crate::registry::{CallContext, Registry, ToolAnnotations, ToolDescriptor, ToolOutput};
use crate::render::{cut_marker, display_path, one_or_many, truncation_notice};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::staged::{StagedChange, StagedFile};
use crate::structural::compile::{compile_pattern_in_context, language_id, CompiledPattern};
use crate::structural::contexts::ContextKind;
use crate::structural::evaluate::{CutReason, MatchBudget};
use crate::structural::missed::MissedParts;
use crate::structural::output::{
    AstEditFile, AstEditOutput, AstGrepOutput, AstGrepSearch, CompiledAs, MissedCandidates, StructuralMatchOutput, SyntaxTreeOutput,
};
use crate::structural::precedence::{ChangedGrouping, Substitution, SubstitutionPlan};
use crate::structural::python_syntax::{self, PythonSyntaxCheck, RewrittenPython};
use crate::structural::query::{binding_text, scan_file, unbound_in, Query};
use crate::structural::reparse::{new_parse_problems, parse_problems, reparse, AppliedEdit, NewParseProblem};
use crate::structural::rule::{compile_rule, RuleInput};
use crate::structural::search::{walk_and_match, walk_and_match_owned, ParsedFile, WalkLimits, WalkStats};
use crate::structural::syntax_tree::{dump_syntax_tree, SyntaxTreeFormat};
use crate::structural::{parse_language, supported_language_ids, StructuralConfig, StructuralResource};
use crate::tier::Tier;

/// One structural match, owned (no borrow of the parse tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructuralMatch {
    /// Absolute path of the file (empty for [`match_source`]).
    pub path: PathBuf,
    /// Byte range of the matched node in the file.
    pub byte_range: std::ops::Range<usize>,
    /// 1-based line of the first character.
    pub start_line: usize,
    /// 1-based column (in characters) of the first character.
    pub start_column: usize,
    /// 1-based line of the last character.
    pub end_line: usize,
    /// The matched code, whole.
    pub text: String,
    /// Metavariable bindings by name (without `$`), sorted by name; a `$$$` binding is the
    /// source text from its first to its last node (empty when it matched no node). Variables
    /// a match left unbound (a rule's `any` branch that did not match) are absent.
    pub bindings: Vec<(String, String)>,
}

/// Matches `compiled` against one source text (no file system): every match, in source order,
/// nested matches included. Used by benchmarks and tests.
///
/// # Errors
/// The parser's message when tree-sitter fails (e.g. its internal timeout).
pub fn match_source(compiled: &CompiledPattern, source: &str) -> Result<Vec<StructuralMatch>, String> {
    let parsed = ParsedFile::try_new(source, compiled.language)?;
    Ok(collect_matches(Path::new(""), &parsed, compiled, &compiled.metavariables))
}

/// Matches a compiled pattern or rule against one source text, like [`match_source`].
///
/// # Errors
/// The parser's message when tree-sitter fails.
pub fn match_source_with(query: &Query, source: &str) -> Result<Vec<StructuralMatch>, String> {
    match_source_within(query, source, &MatchBudget::unlimited()).map(|(matches, _)| matches)
}

/// Matches a compiled pattern or rule against one source text within `budget` (the bounded
/// evaluator of `structural::evaluate`, as `ast_grep` runs it): the matches found, in
/// pre-order, and why the match was cut before the end of the text, if it was (the matches
/// found before the cut are complete and kept).
///
/// # Errors
/// The parser's message when tree-sitter fails.
pub fn match_source_within(query: &Query, source: &str, budget: &MatchBudget) -> Result<(Vec<StructuralMatch>, Option<CutReason>), String> {
    let parsed = ParsedFile::try_new(source, query.language())?;
    let scan = scan_file(&parsed, query, None, budget, usize::MAX);
    let mut columns = CharColumnCursor::default();
    let matches = scan
        .matches
        .iter()
        .map(|found| {
            let range = found.range();
            StructuralMatch {
                path: PathBuf::new(),
                start_line: found.start_pos().line() + 1,
                start_column: columns.char_column(source, found.start_pos().byte_point(), range.start) + 1,
                end_line: found.end_pos().line() + 1,
                text: source[range.clone()].to_owned(),
                bindings: bindings(found, query.metavariables(), source),
                byte_range: range,
            }
        })
        .collect();
    Ok((matches, scan.cut))
}

/// Matches a compiled rule against one source text with ast-grep-config's own `RuleCore`
/// (unbounded: no step budget, deadline or stack guard), every match in pre-order: the
/// reference the bounded evaluator is checked against (`fuzz_targets/rule_evaluator.rs`).
/// `Ok(None)` for a pattern query.
///
/// # Errors
/// The parser's message when tree-sitter fails.
pub fn match_source_with_rule_core(query: &Query, source: &str) -> Result<Option<Vec<StructuralMatch>>, String> {
    let Query::Rule(rule) = query else { return Ok(None) };
    let parsed = ParsedFile::try_new(source, rule.language)?;
    Ok(Some(collect_matches(Path::new(""), &parsed, &rule.core, &rule.metavariables)))
}

/// The match budget of one call: its deadline and cancel token, and the per-file step budget.
fn match_budget(ctx: &CallContext<'_>, config: &StructuralConfig) -> MatchBudget {
    MatchBudget {
        deadline: Some(ctx.deadline()),
        cancel: Some(ctx.cancel_token().clone()),
        max_steps_per_file: config.max_match_steps_per_file,
    }
}

/// Records the files whose match was cut in `stats` (count and up to 5 `path: why`); returns
/// the files the deadline cut (displayed, sorted): where the call stopped.
fn record_cut_files<'a>(stats: &mut WalkStats, root: &Path, cut: impl Iterator<Item = (&'a Path, CutReason)>) -> Vec<String> {
    let mut examples: Vec<String> = Vec::new();
    let mut stopped_at: Vec<String> = Vec::new();
    for (path, reason) in cut {
        stats.files_match_cut += 1;
        // A deadline or cancel inside a file is the call's own timeout or cancel.
        stats.timed_out |= reason == CutReason::Deadline;
        stats.cancelled |= reason == CutReason::Cancelled;
        examples.push(format!("{}: {}", display_path(root, path), reason.describe()));
        if reason == CutReason::Deadline {
            stopped_at.push(display_path(root, path));
        }
    }
    examples.sort();
    examples.truncate(5);
    stats.match_cut_examples = examples;
    stopped_at.sort();
    stopped_at
}

/// The line saying that the call's deadline passed and where the search stopped: the files
/// whose match it cut (`stopped_at`, at most 5 named) and how many files were not searched;
/// `None` when the deadline did not pass.
fn describe_deadline(stats: &WalkStats, stopped_at: &[String], budget: Duration, what_was_kept: &str) -> Option<String> {
    if !stats.timed_out {
        return None;
    }
    let place = match stopped_at {
        [] => "between files".to_owned(),
        [file] => format!("at {file} (inside its match)"),
        files if files.len() <= 5 => format!("at {} (inside their matches)", files.join(", ")),
        files => format!("at {} and {} more files (inside their matches)", files[..5].join(", "), files.len() - 5),
    };
    let not_searched = match (stats.files_not_searched, stats.files_not_searched_is_lower_bound) {
        (0, _) => "every other file was searched".to_owned(),
        (count, false) => format!("{count} {} not searched", one_or_many(count, "file was", "files were")),
        (count, true) => format!("at least {count} files were not searched (counting them stopped)"),
    };
    Some(format!(
        "partial: the call's deadline ({} ms) passed: stopped {place}: deadline; {not_searched}; {what_was_kept}. Next: narrow `path` to a subdirectory or file, give the pattern a distinctive identifier so fewer files are parsed, or call again with a longer timeout",
        budget.as_millis()
    ))
}

/// The line saying which files' matches were cut, or `None`.
fn describe_cut_files(stats: &WalkStats, what_happened: &str) -> Option<String> {
    if stats.files_match_cut == 0 {
        return None;
    }
    Some(format!(
        "partial: the match of {} {} was cut before the end ({}{}); {what_happened}. Next: narrow `path` to the file or a part of the tree, or simplify the rule (fewer `stopBy: \"end\"` relations, no utility that recurses through `has`/`inside`)",
        stats.files_match_cut,
        one_or_many(stats.files_match_cut, "file", "files"),
        if stats.files_match_cut > stats.match_cut_examples.len() { "e.g. " } else { "" },
        stats.match_cut_examples.join("; ")
    ))
}

pub(crate) fn register(registry: &mut Registry) {
    registry.register(ast_grep_descriptor(), Arc::new(ast_grep));
    registry.register(ast_edit_descriptor(), Arc::new(ast_edit));
}

fn ast_grep_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "ast_grep".to_owned(),
        title: "Structural code search".to_owned(),
        description: format!(
            "Find code by its syntax-tree shape, not its text (tree-sitter + ast-grep). Give exactly one of `pattern`, `rule` or `syntax_tree`.\n\
`pattern` is a code fragment of the target language with metavariables: `$NAME` matches any one node, `$$$NAME` a run of sibling nodes \
(arguments, statements), `$_` any node without binding. A metavariable used twice must match the same code both times. Strings \
and comments never match, and spacing or line breaks do not matter. The fragment is parsed as a statement, then \
an expression, a class member, a top-level declaration, a type (`Vec<$T>`, `Map<$K, $V>`, `List[$T]`, `*$T`); the result says which \
one it compiled to, and an unparseable pattern is an error listing each context tried. A part the pattern leaves out does not match \
a part the code has: `def $F($$$A): $$$B` misses `def f() -> int:` (write `def $F($$$A) -> $R: $$$B` for those) and \
`fn $F() {{ $$$B }}` misses `pub fn`; the result counts the candidates missed that way.\n\
`rule` is an ast-grep rule object (kind, has, inside, not, any, …, see its field) for what one fragment cannot say.\n\
Examples:\n\
- {{\"pattern\": \"if ($X != null) $X.dispose()\", \"language\": \"dart\"}}: a null-guard that disposes the object it checked\n\
- {{\"pattern\": \"$X.unwrap()\", \"path\": \"src\", \"language\": \"rust\"}}\n\
- {{\"pattern\": \"Option<$T>\", \"language\": \"rust\"}}: a type anywhere (fields, signatures, generics)\n\
- {{\"rule\": {{\"pattern\": \"$X.unwrap()\", \"inside\": {{\"kind\": \"function_item\", \"follows\": {{\"pattern\": \"#[test]\"}}, \"stopBy\": \"end\"}}}}, \"language\": \"rust\"}}: \
`.unwrap()` in `#[test]` functions (an attribute is the sibling just before its item, not inside it: `follows`, not `has`)\n\
- {{\"rule\": {{\"kind\": \"function_definition\", \"not\": {{\"has\": {{\"field\": \"return_type\", \"kind\": \"type\"}}}}}}, \"language\": \"python\"}}: functions without a return annotation\n\
- {{\"syntax_tree\": \"ast\", \"code\": \"x: List[int] = []\", \"language\": \"python\"}}\n\
Returns `path:line` (1-based), the matched code and the bindings, sorted by path and position; at most \
`max_results` (default 50), saying \"showing N of M matches in K files\" when capped; matches in build output (TypeScript \
declaration and JavaScript files a build wrote) are counted and named. Hidden, .gitignored and vendored \
(node_modules, virtual environments, target/) paths are skipped and counted; `no_ignore: true` searches them. Notes: Rust macro \
arguments (`assert!(…)`, `vec![…]`) are token trees, not code, to the parser, so they do not match. Language ids: {}.",
            supported_language_ids().join(", ")
        ),
        tier: Tier::Read,
        input_schema: crate::schema::input_schema::<AstGrepArgs>(),
        output_schema: Some(crate::schema::output_schema::<AstGrepOutput>()),
        annotations: ToolAnnotations::READ_ONLY,
        parallel_safe: true,
        // A whole-tree walk parses every candidate file: a 150 MB tree takes well over a minute
        // on a loaded 2-core machine. The host can cancel sooner.
        default_timeout: Duration::from_secs(300),
    }
}

fn ast_edit_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "ast_edit".to_owned(),
        title: "Structural rewrite (staged)".to_owned(),
        description: "Rewrite code by syntax-tree shape across files, staged first: matches `pattern` (or an ast-grep `rule`) exactly as ast_grep \
does and substitutes the metavariables into `rewrite`. Every metavariable of the rewrite must be bound by every match (an unbound one is an error, \
never an empty string). Every rewritten file is parsed again: a rewrite that introduces a syntax error is refused for the whole edit, naming each \
broken file and line and the replacement, unless `allow_parse_errors` is true; Python files are also compiled by the project's own interpreter \
(its version may not accept newer syntax the parser does). A captured node substituted into the rewrite must stay one node there: \
`Array<$T>` → `$T[]` with `$T` = `A | B` gives `A | B[]` (precedence changed the meaning), which is refused with the parenthesized \
rewrite to use (`($T)[]`) unless `allow_precedence_changes` is true. A replacement the code around it would take apart by precedence \
(`less($A, $B)` → `cmp($A, $B) < 0` under `!less(a, b)`) is parenthesized (`!(cmp(a, b) < 0)`) and listed. Build output (TypeScript declaration and JavaScript files a build \
wrote, e.g. a package's dist/*.d.ts with source maps) is left out and named unless `include_build_output` is true. Nothing is written: the answer is a proposal with an edit_id and a \
unified-diff preview; call `resolve` with that edit_id and action \"accept\" to write all files at once (refused if any file changed since \
staging), or \"discard\". Where matches nest or overlap, the outermost is rewritten and the result says how many inner ones were skipped (run \
again after accepting to rewrite them). The rewrite replaces the matched code only: a `;` after the match is kept, so do not end the rewrite \
with `;` when the pattern has none. Files are chosen as by ast_grep (hidden, ignored and vendored paths skipped unless `no_ignore`).\n\
Examples: {\"pattern\": \"dispose($X)\", \"rewrite\": \"$X.dispose()\", \"language\": \"dart\"} → \
`(proposed) 12 replacements in 4 files … call resolve with edit_id \"edit_1\"`; \
{\"rule\": {\"pattern\": \"$X.unwrap()\", \"inside\": {\"kind\": \"function_item\", \"stopBy\": \"end\"}}, \"rewrite\": \"$X.expect(\\\"checked\\\")\", \"language\": \"rust\"}."
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<AstEditArgs>(),
        output_schema: Some(crate::schema::output_schema::<AstEditOutput>()),
        // Stages a proposal and writes nothing (resolve writes); each call stages a new edit_id.
        annotations: ToolAnnotations { read_only: false, destructive: false, idempotent: false, open_world: false },
        parallel_safe: true,
        // A whole-tree walk parses every candidate file: a 150 MB tree takes well over a minute
        // on a loaded 2-core machine. The host can cancel sooner.
        default_timeout: Duration::from_secs(300),
    }
}

/// The arguments of `ast_grep`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AstGrepArgs {
    /// Code fragment with $METAVARIABLES, e.g. `$X.unwrap()`.
    #[schemars(length(min = 1))]
    pattern: Option<String>,
    /// An ast-grep rule object instead of `pattern`, same keys and meaning as ast-grep's YAML
    /// rules. Atomic: `pattern` (string, or {"context": code, "selector": node_kind,
    /// "strictness"?}), `kind` (node kind or kind selector), `regex` (on the node text),
    /// `nthChild` (1-based, "2n+1", or {position, reverse, ofRule}), `range` ({start: {line,
    /// column}, end} 0-based as in ast-grep). Relational (each takes a rule plus `stopBy`:
    /// "neighbor" (default) | "end" | rule): `inside`, `has` (these two also take `field`),
    /// `precedes`, `follows`. Composite: `all`, `any` (lists of rules), `not`, `matches` (an id
    /// of `utils`). Patterns inside a rule are parsed bare, as ast-grep does. See a snippet's
    /// node kinds and fields with {"syntax_tree": "ast", "code": …}.
    #[schemars(with = "Option<Map<String, Value>>")]
    rule: Option<Value>,
    /// With `rule`: {"VAR": rule} — the node bound to single metavariable $VAR must also match
    /// that rule (e.g. {"F": {"regex": "^test_"}}).
    #[schemars(with = "Option<Map<String, Value>>")]
    constraints: Option<Value>,
    /// With `rule`: {"id": rule} — utility rules that `matches` refers to.
    #[schemars(with = "Option<Map<String, Value>>")]
    utils: Option<Value>,
    /// Instead of searching, show the syntax tree of `code` (with `language`): "cst" every
    /// node, "ast" named nodes only, "pattern" how `code` compiles as a pattern. Lines are
    /// `field: kind L:C-L:C` (1-based). Use it to write `kind`/`field` rules or to see why a
    /// pattern matched nothing.
    syntax_tree: Option<SyntaxTreeFormat>,
    /// The snippet for syntax_tree.
    code: Option<String>,
    /// File or directory to search, relative to the workspace (default: the whole workspace).
    path: Option<String>,
    /// Grammar id or alias (dart, python/py, rust/rs, c, cpp, go, java, javascript/js,
    /// typescript/ts, tsx, kotlin, swift, ruby, php, bash, …). Inferred from the extension when
    /// path names one file; required for a directory and for syntax_tree.
    language: Option<String>,
    /// Most matches returned (default 50). The total is always counted.
    #[schemars(range(min = 1, max = 100_000))]
    max_results: Option<usize>,
    /// Parse the pattern only in this context (default: try statement, expression,
    /// class_member, declaration, type in order and take the first that parses cleanly). Use
    /// it when the result says the pattern compiled to an unintended node kind.
    context: Option<ContextKind>,
    /// Also search hidden files, paths ignored by .gitignore/.ignore, and vendored directories
    /// (node_modules, Python virtual environments, directories with CACHEDIR.TAG such as
    /// cargo's target/). The result always says how many were skipped.
    #[serde(default)]
    no_ignore: bool,
}

/// The arguments of `ast_edit`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AstEditArgs {
    /// Code fragment with $METAVARIABLES, as for ast_grep.
    #[schemars(length(min = 1))]
    pattern: Option<String>,
    /// An ast-grep rule object instead of `pattern`, same keys and meaning as ast-grep's YAML
    /// rules. Atomic: `pattern` (string, or {"context": code, "selector": node_kind,
    /// "strictness"?}), `kind` (node kind or kind selector), `regex` (on the node text),
    /// `nthChild` (1-based, "2n+1", or {position, reverse, ofRule}), `range` ({start: {line,
    /// column}, end} 0-based as in ast-grep). Relational (each takes a rule plus `stopBy`:
    /// "neighbor" (default) | "end" | rule): `inside`, `has` (these two also take `field`),
    /// `precedes`, `follows`. Composite: `all`, `any` (lists of rules), `not`, `matches` (an id
    /// of `utils`). Patterns inside a rule are parsed bare, as ast-grep does. See a snippet's
    /// node kinds and fields with {"syntax_tree": "ast", "code": …}.
    #[schemars(with = "Option<Map<String, Value>>")]
    rule: Option<Value>,
    /// With `rule`: {"VAR": rule} — the node bound to single metavariable $VAR must also match
    /// that rule (e.g. {"F": {"regex": "^test_"}}).
    #[schemars(with = "Option<Map<String, Value>>")]
    constraints: Option<Value>,
    /// With `rule`: {"id": rule} — utility rules that `matches` refers to.
    #[schemars(with = "Option<Map<String, Value>>")]
    utils: Option<Value>,
    /// With `rule`: ast-grep transformations defining new variables for `rewrite`, e.g.
    /// {"NAME": {"convert": {"source": "$N", "toCase": "snakeCase"}}} (substring, replace,
    /// convert).
    #[schemars(with = "Option<Map<String, Value>>")]
    transform: Option<Value>,
    /// Replacement code; $NAME and $$$NAME are replaced by what they matched (with
    /// `transform`, also the new variables it defines).
    rewrite: String,
    /// File or directory, relative to the workspace (default: the whole workspace).
    path: Option<String>,
    /// Grammar id or alias; inferred when path names one file.
    language: Option<String>,
    /// Parse the pattern only in this context (default: try statement, expression,
    /// class_member, declaration, type in order and take the first that parses cleanly).
    context: Option<ContextKind>,
    /// Stage the edit even when a rewritten file no longer parses (default false: such an edit
    /// is refused, naming each broken file and line).
    #[serde(default)]
    allow_parse_errors: bool,
    /// Stage the edit even when a captured node substituted into `rewrite` is no longer one
    /// node in the rewritten code, so its meaning changed by operator precedence (`Array<$T>` →
    /// `$T[]` with `$T` = `A | B` gives `A | B[]`); default false: such an edit is refused,
    /// naming each place and the parenthesized rewrite (`($T)[]`).
    #[serde(default)]
    allow_precedence_changes: bool,
    /// Also rewrite build output: TypeScript declaration and JavaScript files that a build wrote
    /// (a source map of their own, a package's typings or tsconfig `outDir` directory, beside
    /// mapped declarations), which the next build overwrites from the sources. Default false:
    /// they are left out and named.
    #[serde(default)]
    include_build_output: bool,
    /// Also search hidden files, paths ignored by .gitignore/.ignore, and vendored directories
    /// (node_modules, Python virtual environments, directories with CACHEDIR.TAG such as
    /// cargo's target/). The result always says how many were skipped.
    #[serde(default)]
    no_ignore: bool,
}

/// The search half of the arguments, common to both tools.
struct QueryArgs<'a> {
    pattern: Option<&'a str>,
    rule: Option<&'a Value>,
    constraints: Option<&'a Value>,
    utils: Option<&'a Value>,
    transform: Option<&'a Value>,
    context: Option<ContextKind>,
    path: Option<&'a str>,
    language: Option<&'a str>,
}

/// What a search call works on: the resolved target and the compiled query.
struct SearchSetup {
    target: PathBuf,
    target_display: String,
    query: Query,
}

fn setup(root: &Path, args: &QueryArgs<'_>) -> Result<SearchSetup, ToolError> {
    match (args.pattern, args.rule) {
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid("give either `pattern` or `rule`, not both")
                .with_hint("a rule can hold the pattern itself: {\"rule\": {\"pattern\": \"…\", \"inside\": {…}}}"))
        }
        (None, None) => {
            return Err(ToolError::invalid("give `pattern` (a code fragment) or `rule` (an ast-grep rule object)")
                .with_hint("e.g. {\"pattern\": \"$X.unwrap()\", \"language\": \"rust\"}"))
        }
        _ => {}
    }
    if args.pattern.is_some() {
        for (name, value) in [("constraints", args.constraints), ("utils", args.utils), ("transform", args.transform)] {
            if value.is_some_and(|v| !v.is_null()) {
                return Err(ToolError::invalid(format!("`{name}` works only with `rule`, not with `pattern`"))
                    .with_hint(format!("write {{\"rule\": {{\"pattern\": \"…\"}}, \"{name}\": …}}")));
            }
        }
    } else if args.context.is_some() {
        return Err(ToolError::invalid("`context` works only with `pattern`; inside a rule use a pattern object")
            .with_hint("{\"rule\": {\"pattern\": {\"context\": \"…code around the fragment…\", \"selector\": \"node_kind\"}}}"));
    }
    let user_path = args.path.filter(|p| !p.trim().is_empty()).unwrap_or(".");
    let target = resolve_in_workspace(root, user_path)?;
    let target_display = display_path(root, &target);
    let metadata = std::fs::metadata(&target).map_err(|err| {
        ToolError::new(ErrorKind::NotFound, format!("path {user_path:?} ({target_display}) cannot be searched: {err}"))
            .with_hint("pass an existing file or directory relative to the workspace root, or omit path to search the whole workspace")
    })?;
    let language = match args.language {
        Some(id) => parse_language(id)?,
        None if metadata.is_file() => SupportLang::from_path(&target).ok_or_else(|| {
            ToolError::invalid(format!("cannot infer the language of {target_display} from its extension"))
                .with_hint(format!("pass language, one of: {}", supported_language_ids().join(", ")))
        })?,
        None => {
            return Err(ToolError::invalid(format!("{target_display} is a directory and no language was given"))
                .with_hint(format!("pass language, one of: {}", supported_language_ids().join(", "))))
        }
    };
    let query = match (args.pattern, args.rule) {
        (Some(pattern), _) => {
            Query::Pattern(compile_pattern_in_context(pattern, language, args.context).map_err(|err| err.to_tool_error())?)
        }
        (None, rule) => {
            let null = Value::Null;
            Query::Rule(
                compile_rule(
                    RuleInput { rule: rule.unwrap_or(&null), constraints: args.constraints, utils: args.utils, transform: args.transform },
                    language,
                )
                .map_err(|err| err.to_tool_error())?,
            )
        }
    };
    Ok(SearchSetup { target, target_display, query })
}

fn walk_limits(ctx: &CallContext<'_>, config: &StructuralConfig, no_ignore: bool) -> WalkLimits {
    WalkLimits {
        threads: config.walk_threads,
        max_file_bytes: config.max_file_bytes,
        max_file_lines: config.max_file_lines,
        deadline: ctx.deadline(),
        cancel: ctx.cancel_token().clone(),
        use_literal_prefilter: true,
        confine_reads_to: Some(ctx.workspace_root().to_path_buf()),
        no_ignore,
        count_skipped: true,
    }
}

/// `Err` when the host cancelled the call, or (`timeout_is_error`: `ast_edit`, whose edit must
/// cover every file it names) when the deadline passed; `ast_grep` answers a timed-out walk
/// with what it found, said partial ([`describe_deadline`]).
fn check_walk_finished(ctx: &CallContext<'_>, stats: &WalkStats, found: usize, timeout_is_error: bool) -> Result<(), ToolError> {
    let progress = format!("after {} files ({found} matches so far)", stats.files_visited);
    if stats.cancelled {
        return Err(ToolError::new(ErrorKind::Cancelled, format!("{} was cancelled by the host {progress}", ctx.descriptor().name)));
    }
    if stats.timed_out && timeout_is_error {
        let cut = if stats.files_match_cut > 0 { format!("; cut inside {}", stats.match_cut_examples.join("; ")) } else { String::new() };
        let cut = match (stats.files_not_searched, stats.files_not_searched_is_lower_bound) {
            (0, _) => cut,
            (count, false) => format!("{cut}; {count} {} not searched", one_or_many(count, "file was", "files were")),
            (count, true) => format!("{cut}; at least {count} files were not searched"),
        };
        return Err(ctx
            .timeout_error(&format!("walking the tree, {progress}{cut}"))
            .with_hint("narrow path to a subdirectory, or give the pattern a distinctive identifier so fewer files are parsed"));
    }
    Ok(())
}

fn ast_grep(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let resource = ctx.resource::<StructuralResource>()?;
    let args: AstGrepArgs = ctx.parse_arguments(arguments)?;
    if let Some(format) = args.syntax_tree {
        return syntax_tree(resource.config(), &args, format);
    }
    if args.code.is_some() {
        return Err(ToolError::invalid("`code` is the snippet of `syntax_tree`; to search files give `pattern` or `rule` with `path`")
            .with_hint("e.g. {\"syntax_tree\": \"ast\", \"code\": \"…\", \"language\": \"python\"}"));
    }
    let root = ctx.workspace_root();
    let config = resource.config();
    let query_args = QueryArgs {
        pattern: args.pattern.as_deref(),
        rule: args.rule.as_ref(),
        constraints: args.constraints.as_ref(),
        utils: args.utils.as_ref(),
        transform: None,
        context: args.context,
        path: args.path.as_deref(),
        language: args.language.as_deref(),
    };
    let setup = setup(root, &query_args)?;
    let max_results = args.max_results.unwrap_or(config.default_max_results).max(1);
    let query = &setup.query;
    let probe = query.missed_parts_probe(config.max_missed_candidates);
    let budget = match_budget(ctx, config);
    let (mut files, mut stats) =
        walk_and_match(&setup.target, query.language(), query.requirement(), &walk_limits(ctx, config, args.no_ignore), &|path, parsed| {
            FileMatches::extract(path, parsed, query, probe.as_ref(), config, &budget, max_results)
        });
    let stopped_at = record_cut_files(&mut stats, root, files.iter().filter_map(|file| Some((file.path.as_path(), file.cut?))));
    let total: usize = files.iter().map(|file| file.matches.len() + file.matches_not_kept).sum();
    let not_kept: usize = files.iter().map(|file| file.matches_not_kept).sum();
    check_walk_finished(ctx, &stats, total, false)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let build_output = build_output_of(
        root,
        query.language(),
        files.iter().map(|file| (file.path.as_path(), file.matches.len() + file.matches_not_kept)).filter(|(_, count)| *count > 0),
    );
    let files_with_matches = files.iter().filter(|f| !f.matches.is_empty()).count();
    let lang = query.language_id();
    // Files whose matches were all past the per-file cap still count as files with matches.
    let files_with_matches = files_with_matches + files.iter().filter(|f| f.matches.is_empty() && f.matches_not_kept > 0).count();
    let mut missed = MissedParts::default();
    for file in &mut files {
        if let Some(mut found) = file.missed.take() {
            found.set_path(&display_path(root, &file.path));
            missed.merge(found);
        }
    }

    let mut text = String::new();
    let _ = write!(
        text,
        "{total} {} in {files_with_matches} {} for {} ({lang}; {})",
        one_or_many(total, "match", "matches"),
        one_or_many(files_with_matches, "file", "files"),
        query.display(),
        query.compiled_as()
    );
    for warning in query.warnings() {
        let _ = write!(text, "\nwarning: {warning}");
    }
    // One pass over the compact records builds the text and the structured list; each file's
    // records are dropped as soon as they are written out.
    let shown = total.min(max_results);
    let mut structured_matches = Vec::with_capacity(shown);
    for file in files.drain(..) {
        if structured_matches.len() >= shown {
            break;
        }
        let display = display_path(root, &file.path);
        for found in &file.matches {
            if structured_matches.len() >= shown {
                break;
            }
            let code = file.code(found);
            let _ = write!(text, "\n{display}:{}: {}", found.start_line, indent_continuation(code, "    "));
            let mut bindings = std::collections::BTreeMap::new();
            for (name, value) in query.metavariables().iter().zip(file.bindings(found)) {
                let Some(value) = value else { continue };
                let _ = write!(text, "\n    ${name} = {}", indent_continuation(value, "      "));
                bindings.insert(name.clone(), value.to_owned());
            }
            structured_matches.push(StructuralMatchOutput {
                path: display.clone(),
                line: found.start_line,
                column: found.start_column,
                end_line: found.end_line,
                text: code.to_owned(),
                bindings: bindings.clone(),
            });
        }
    }
    drop(files);
    if let Some(notice) = truncation_notice(shown, total, &format!("matches in {files_with_matches} files")) {
        let _ = write!(text, "\n{notice}; raise max_results or narrow path to see more");
    }
    if not_kept > 0 {
        let _ = write!(
            text,
            "\n{not_kept} of the matches were counted but not kept: each file keeps its first max_results ({max_results}) matches, so a pattern that matches most nodes (such as `$X`) does not hold a file's every node in memory; narrow path or the pattern to see them"
        );
    }
    if let Some(cut) =
        describe_cut_files(&stats, "the matches shown are those found before the cut, and the rest of each such file was not searched")
    {
        let _ = write!(text, "\n{cut}");
    }
    if let Some(deadline) = describe_deadline(
        &stats,
        &stopped_at,
        ctx.budget(),
        "the matches shown are those of the files searched to the end and those found before the cut",
    ) {
        let _ = write!(text, "\n{deadline}");
    }
    let _ = write!(text, "\n{}", describe_stats(&stats, lang, &setup.target_display, query));
    if let Some(note) = build_output.search_note(root, total) {
        let _ = write!(text, "\n{note}");
    }
    if let Some(note) = missed_note(&missed, query) {
        let _ = write!(text, "\nnote: {note}");
    }
    if total == 0 && !stats.timed_out {
        let _ = write!(text, "\nhint: {}", zero_match_hint(&stats, query, &missed));
    }
    let structured = to_structured(&AstGrepOutput::Search(Box::new(AstGrepSearch {
        pattern: match query {
            Query::Pattern(p) => Some(p.source.clone()),
            Query::Rule(_) => None,
        },
        rule: match &args.rule {
            Some(Value::Object(rule)) => Some(rule.clone()),
            _ => None,
        },
        language: lang.to_owned(),
        compiled_as: CompiledAs::of(query),
        total_matches: total,
        files_with_matches,
        shown,
        truncated: shown < total,
        matches: structured_matches,
        warnings: query.warnings().to_vec(),
        missed_candidates: MissedCandidates::of(&missed),
        unparsed_occurrences: crate::structural::output::UnparsedOccurrencesOutput::of(&missed, query.language()),
        matches_in_build_output: build_output.matches(),
        build_output_files: build_output.displayed(root),
        stats: stats.clone(),
    })));
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)))
}

fn syntax_tree(config: &StructuralConfig, args: &AstGrepArgs, format: SyntaxTreeFormat) -> Result<ToolOutput, ToolError> {
    let conflicting: Vec<&str> = [
        ("pattern", args.pattern.is_some()),
        ("rule", args.rule.is_some()),
        ("path", args.path.is_some()),
        ("max_results", args.max_results.is_some()),
        ("constraints", args.constraints.is_some()),
        ("utils", args.utils.is_some()),
    ]
    .iter()
    .filter(|(_, present)| *present)
    .map(|(name, _)| *name)
    .collect();
    if !conflicting.is_empty() {
        return Err(ToolError::invalid(format!(
            "`syntax_tree` shows the tree of `code` and takes no {}",
            conflicting.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        ))
        .with_hint(
            "pass the snippet as `code` with `language`; for the tree of a pattern use syntax_tree \"pattern\" with the pattern as `code`",
        ));
    }
    let Some(code) = args.code.as_deref().filter(|c| !c.trim().is_empty()) else {
        return Err(ToolError::invalid("`syntax_tree` needs `code`: the snippet to show")
            .with_hint("e.g. {\"syntax_tree\": \"ast\", \"code\": \"x = f(1)\", \"language\": \"python\"}"));
    };
    let Some(language) = args.language.as_deref() else {
        return Err(
            ToolError::invalid("`syntax_tree` needs `language`").with_hint(format!("one of: {}", supported_language_ids().join(", ")))
        );
    };
    let language = parse_language(language)?;
    if format != SyntaxTreeFormat::Pattern && args.context.is_some() {
        return Err(ToolError::invalid("`context` applies to syntax_tree \"pattern\" only"));
    }
    if code.len() > config.max_syntax_tree_code_bytes {
        return Err(ToolError::invalid(format!(
            "`code` is {} bytes; syntax_tree takes at most {}",
            code.len(),
            config.max_syntax_tree_code_bytes
        ))
        .with_hint("pass the part of the code you want to see"));
    }
    let dump = dump_syntax_tree(code, language, format, args.context, config.max_syntax_tree_nodes)?;
    let structured = to_structured(&AstGrepOutput::SyntaxTree(SyntaxTreeOutput {
        syntax_tree: format,
        language: crate::structural::compile::language_id(language).to_owned(),
        nodes_shown: dump.nodes_shown,
        nodes_total: dump.nodes_total,
        truncated: dump.nodes_shown < dump.nodes_total,
        parse_problems: dump.parse_problems,
    }));
    Ok(ToolOutput::new(ToolResult::text(dump.text).with_structured(structured)))
}

/// The matches of one file as `ast_grep` keeps them while the walk goes on: the parse tree and
/// the source are dropped as soon as these are extracted, and only the shown form of each
/// match (code cut to `max_match_lines`/`max_match_chars`, bindings cut to 3 lines and 200
/// characters) is kept, back to back in one string, so that a search with tens of thousands
/// of matches holds a few allocations per file rather than several per match.
struct FileMatches {
    path: PathBuf,
    /// The cut code and cut bindings of every match, back to back.
    snippets: String,
    /// For each match, `1 + metavariable_count` byte ranges into `snippets`: the code, then
    /// each binding in the order of the query's metavariables (`None`: unbound in this match).
    pieces: Vec<Option<std::ops::Range<u32>>>,
    /// `1 + metavariable_count`.
    pieces_per_match: usize,
    matches: Vec<CompactMatch>,
    /// Candidates missed only because of parts the pattern lacks.
    missed: Option<MissedParts>,
    /// Matches past the per-file cap (`max_results`): counted, not kept.
    matches_not_kept: usize,
    /// Why the file's match was cut, if it was: `matches` are those found before.
    cut: Option<CutReason>,
}

/// One match of a [`FileMatches`]; lines and columns are 1-based, as shown.
struct CompactMatch {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    /// Index of this match's first entry in [`FileMatches::pieces`].
    first_piece: usize,
}

impl FileMatches {
    /// The first `keep` matches in `parsed` (the rest counted), sorted by position (start
    /// ascending, the enclosing match first), or `None` when there is none, no candidate was
    /// missed and the match was not cut.
    fn extract(
        path: &Path,
        parsed: &ParsedFile,
        query: &Query,
        probe: Option<&crate::structural::missed::MissedPartsProbe>,
        config: &StructuralConfig,
        budget: &MatchBudget,
        keep: usize,
    ) -> Option<FileMatches> {
        let source = parsed.source();
        let scan = scan_file(parsed, query, probe, budget, keep);
        let (mut found_all, missed) = (scan.matches, scan.missed);
        if found_all.is_empty() && missed.is_empty() && scan.cut.is_none() && scan.matches_not_kept == 0 {
            return None;
        }
        found_all.sort_by(|a, b| {
            let (a, b) = (a.range(), b.range());
            a.start.cmp(&b.start).then(b.end.cmp(&a.end))
        });
        let metavariables = query.metavariables();
        let pieces_per_match = 1 + metavariables.len();
        let mut file = FileMatches {
            path: path.to_path_buf(),
            snippets: String::new(),
            pieces: Vec::with_capacity(found_all.len() * pieces_per_match),
            pieces_per_match,
            matches: Vec::with_capacity(found_all.len()),
            missed: (!missed.is_empty()).then_some(missed),
            matches_not_kept: scan.matches_not_kept,
            cut: scan.cut,
        };
        let mut columns = CharColumnCursor::default();
        for found in &found_all {
            let first_piece = file.pieces.len();
            let code = cut_code(&source[found.range()], config.max_match_lines, config.max_match_chars);
            file.push_piece(Some(&code));
            let env = found.get_env();
            for name in metavariables {
                let value = binding_text(env, name, source).map(|value| cut_code(&value, 3, 200));
                file.push_piece(value.as_deref());
            }
            file.matches.push(CompactMatch {
                start_line: found.start_pos().line() + 1,
                start_column: columns.char_column(source, found.start_pos().byte_point(), found.range().start) + 1,
                end_line: found.end_pos().line() + 1,
                first_piece,
            });
        }
        file.snippets.shrink_to_fit();
        Some(file)
    }

    fn push_piece(&mut self, piece: Option<&str>) {
        let Some(piece) = piece else {
            self.pieces.push(None);
            return;
        };
        let start = self.snippets.len();
        self.snippets.push_str(piece);
        // A file's snippets are cut copies of a file of at most a few MB, far below 4 GiB.
        self.pieces.push(Some(start as u32..self.snippets.len() as u32));
    }

    fn piece(&self, index: usize) -> Option<&str> {
        let range = self.pieces[index].as_ref()?;
        Some(&self.snippets[range.start as usize..range.end as usize])
    }

    fn code(&self, found: &CompactMatch) -> &str {
        self.piece(found.first_piece).unwrap_or("")
    }

    fn bindings<'a>(&'a self, found: &CompactMatch) -> impl Iterator<Item = Option<&'a str>> + 'a {
        let start = found.first_piece + 1;
        let end = found.first_piece + self.pieces_per_match;
        (start..end).map(move |index| self.piece(index))
    }
}

/// Every match of `matcher` in one parsed file, in source order (nested matches included).
fn collect_matches<M: Matcher>(path: &Path, parsed: &ParsedFile, matcher: &M, metavariables: &[String]) -> Vec<StructuralMatch> {
    let source = parsed.source();
    let mut columns = CharColumnCursor::default();
    parsed
        .root()
        .find_all(matcher)
        .map(|found| {
            let range = found.range();
            StructuralMatch {
                path: path.to_path_buf(),
                start_line: found.start_pos().line() + 1,
                start_column: columns.char_column(source, found.start_pos().byte_point(), range.start) + 1,
                end_line: found.end_pos().line() + 1,
                text: source[range.clone()].to_owned(),
                bindings: bindings(&found, metavariables, source),
                byte_range: range,
            }
        })
        .collect()
}

fn bindings(found: &NodeMatch<'_, StrDoc<SupportLang>>, metavariables: &[String], source: &str) -> Vec<(String, String)> {
    let env = found.get_env();
    metavariables.iter().filter_map(|name| binding_text(env, name, source).map(|value| (name.clone(), value.into_owned()))).collect()
}

fn describe_stats(stats: &WalkStats, lang: &str, target: &str, query: &Query) -> String {
    let mut text = format!("searched {} {lang} {} under {target}", stats.files_visited, one_or_many(stats.files_visited, "file", "files"));
    let requirement = query.requirement();
    if !requirement.is_empty() {
        let _ = write!(
            text,
            "; {} contained the literal text every match has ({}) and were parsed",
            stats.files_with_literals,
            requirement.describe()
        );
    }
    if stats.files_not_utf8 > 0 {
        let _ = write!(text, "; skipped {} files that are not UTF-8", stats.files_not_utf8);
    }
    if stats.files_too_large > 0 {
        let _ = write!(text, "; skipped {} files over 3 MB and 200,000 lines", stats.files_too_large);
    }
    if stats.unreadable_count > 0 {
        let _ = write!(text, "; {} entries could not be read (e.g. {})", stats.unreadable_count, stats.unreadable.join("; "));
    }
    if let Some(skipped) = describe_skipped(stats, lang) {
        let _ = write!(text, "\n{skipped}");
    }
    if let Some(sibling) = describe_sibling_grammar_files(stats, query.language()) {
        let _ = write!(text, "\n{sibling}");
    }
    text
}

/// `not searched: N .tsx files …` when the walk passed over files of the language's sibling
/// grammar (see [`super::search::sibling_grammar`]), or `None`.
fn describe_sibling_grammar_files(stats: &WalkStats, language: SupportLang) -> Option<String> {
    if stats.sibling_grammar_files == 0 {
        return None;
    }
    let lang = language_id(language);
    let sibling_name = language_id(super::search::sibling_grammar(language)?);
    Some(format!(
        "not searched: {} {} of the {sibling_name} grammar ({}{}): the {lang} grammar does not parse them; search them with language: \"{sibling_name}\" (same pattern)",
        stats.sibling_grammar_files,
        one_or_many(stats.sibling_grammar_files, "file", "files"),
        if stats.sibling_grammar_files > stats.sibling_grammar_examples.len() { "e.g. " } else { "" },
        stats.sibling_grammar_examples.join(", ")
    ))
}

/// `not searched: …` for hidden, ignored and vendored paths, or `None` when nothing was skipped.
fn describe_skipped(stats: &WalkStats, lang: &str) -> Option<String> {
    if !stats.skipped_any() {
        return None;
    }
    let mut parts = Vec::new();
    if stats.ignored_dirs + stats.ignored_files > 0 {
        let mut what = Vec::new();
        if stats.ignored_dirs > 0 {
            what.push(format!("{} {}", stats.ignored_dirs, one_or_many(stats.ignored_dirs, "directory", "directories")));
        }
        if stats.ignored_files > 0 {
            what.push(format!("{} {lang} {}", stats.ignored_files, one_or_many(stats.ignored_files, "file", "files")));
        }
        parts.push(format!(
            "{} hidden or ignored by .gitignore/.ignore ({}{})",
            what.join(" and "),
            if stats.ignored_dirs + stats.ignored_files > stats.ignored_examples.len() { "e.g. " } else { "" },
            stats.ignored_examples.join(", ")
        ));
    }
    if stats.vendored_dirs > 0 {
        parts.push(format!(
            "{} vendored {} ({}; node_modules, Python virtual environments and cache directories such as cargo's target/ are skipped)",
            stats.vendored_dirs,
            one_or_many(stats.vendored_dirs, "directory", "directories"),
            stats.vendored_examples.join(", ")
        ));
    }
    Some(format!("not searched: {}; pass no_ignore: true, or a path inside them, to search them", parts.join("; ")))
}

/// The note about candidates a pattern missed only because of parts it lacks: per part, how
/// many, what to add where, and an example.
pub(super) fn missed_note(missed: &MissedParts, query: &Query) -> Option<String> {
    let Query::Pattern(pattern) = query else { return None };
    let mut text = String::new();
    if missed.candidates > 0 {
        let parts: Vec<String> = missed.by_part.iter().map(|(part, tally)| format!("`{part}` ({})", tally.count)).collect();
        let _ = write!(
            text,
            "{}{} `{}` {} not matched only because {} parts the pattern lacks: {}",
            if missed.not_examined > 0 { "at least " } else { "" },
            missed.candidates,
            pattern.node_kind,
            one_or_many(missed.candidates, "node was", "nodes were"),
            one_or_many(missed.candidates, "it has", "they have"),
            parts.join(", ")
        );
        if let Some((path, line, _)) = &missed.example {
            let _ = write!(text, " (e.g. {path}:{line})");
        }
        text.push_str(". A part absent from a pattern never matches a part the code has; to include them:");
        for (label, part) in &missed.by_part {
            let _ = write!(text, "\n  `{label}` of `{}` ({}), {}: ", part.of_kind, part.count, part.position);
            let forms: Vec<String> = part
                .forms
                .iter()
                .map(|form| {
                    let (path, line, code) = &form.example;
                    format!("add `{}` ({}; e.g. {path}:{line} `{code}`)", form.add, form.count)
                })
                .collect();
            text.push_str(&forms.join(", or "));
            if part.other_forms > 0 {
                let _ = write!(text, ", and {} in other forms", part.other_forms);
            }
        }
        text.push_str("\n  in a second search, or both shapes at once with a rule {\"any\": [{\"pattern\": …}, {\"pattern\": …}]}");
    }
    if missed.not_examined > 0 {
        if !text.is_empty() {
            text.push_str("\n  ");
        }
        let _ = write!(
            text,
            "the check for parts the pattern lacks stopped after {} unmatched `{}` nodes (the cap); {} more {} not examined",
            missed.examined_cap,
            pattern.node_kind,
            missed.not_examined,
            one_or_many(missed.not_examined, "was", "were")
        );
    }
    let unparsed = &missed.unparsed;
    if let (true, Some((path, line))) = (unparsed.occurrences > 0, &unparsed.example) {
        if !text.is_empty() {
            text.push_str("\nnote: ");
        }
        let containers: Vec<String> = unparsed.by_container.iter().map(|(name, count)| format!("`{name}` {count}")).collect();
        let (where_, why) = if pattern.language == SupportLang::Rust {
            (
                "macro invocations or `macro_rules!` bodies",
                "the parser keeps macro arguments and macro templates as token trees, not expressions",
            )
        } else {
            ("`#define` bodies", "the parser keeps a macro's body as text")
        };
        let _ = write!(
            text,
            "`{}` also occurs {} {} in {} {} inside {where_} ({}; e.g. {path}:{line}): {why}, so {} not searched structurally. \
Reach them with grep, or the rule {} (each {} whose text has the word)",
            unparsed.word,
            unparsed.occurrences,
            one_or_many(unparsed.occurrences, "time", "times"),
            unparsed.files,
            one_or_many(unparsed.files, "file", "files"),
            containers.join(", "),
            one_or_many(unparsed.occurrences, "it was", "they were"),
            crate::structural::output::unparsed_rule(&unparsed.word, pattern.language),
            if pattern.language == SupportLang::Rust { "macro invocation or `macro_rules!` rule" } else { "macro body" },
        );
    }
    // A single metavariable in a macro's token tree binds one token (trial167 M1: `itry!($E)`
    // matched 2 of walkdir's 9 `itry!` invocations and said nothing). Only the invocations the
    // widened pattern matches are counted (review49 H3).
    let invocations = &missed.macro_invocations;
    if let (true, Some((path, line))) = (invocations.count > 0, &invocations.example) {
        if !text.is_empty() {
            text.push_str("\nnote: ");
        }
        match invocations.arguments {
            // Trial171 F3: `assert_eq!($A, $B)` matched 4 of ~124 two-argument calls, silently.
            Some(arguments) => {
                let _ = write!(
                    text,
                    "{} more `{}!(…)` {} with {arguments} top-level arguments fitting `{}` that it does not match (e.g. {path}:{line}): inside a macro's arguments (a token tree, not parsed as expressions) a single metavariable such as `$A` binds exactly one token or one bracketed group, so an argument like `a.b()` or `X::Y` is never matched; no pattern splits a token tree at its commas (`$$$A, $$$B` gives `$A` nothing and `$B` the rest), so search with `{}` (every invocation, its arguments in one capture) or the rule {} and split the arguments yourself",
                    invocations.count,
                    invocations.macro_name,
                    one_or_many(invocations.count, "invocation", "invocations"),
                    pattern.source.trim(),
                    invocations.widened,
                    serde_json::json!({"kind": "macro_invocation", "regex": format!("^{}\\s*!", regex_syntax::escape(&invocations.macro_name))}),
                );
            }
            None => {
                let _ = write!(
                    text,
                    "{} more `{}!(…)` {} that `{}` matches and `{}` does not (e.g. {path}:{line}): inside a macro's arguments (a token tree, not parsed as expressions) a single metavariable such as `$E` binds exactly one token or one bracketed group, a `$$$E` any run of tokens; search with `{}` to include them",
                    invocations.count,
                    invocations.macro_name,
                    one_or_many(invocations.count, "invocation", "invocations"),
                    invocations.widened,
                    pattern.source.trim(),
                    invocations.widened
                );
            }
        }
    }
    (!text.is_empty()).then_some(text)
}

fn zero_match_hint(stats: &WalkStats, query: &Query, missed: &MissedParts) -> String {
    let lang = query.language_id();
    if let Some(glued) = glued_metavariable_hint(query) {
        return glued;
    }
    if missed.candidates > 0 {
        return "see the note above: the code has this shape with more parts than the pattern".to_owned();
    }
    if missed.unparsed.occurrences > 0 {
        return "see the note above: the text occurs inside macro code the parser does not parse".to_owned();
    }
    if missed.macro_invocations.count > 0 {
        let invocations = &missed.macro_invocations;
        let source = match query {
            Query::Pattern(pattern) => pattern.source.trim(),
            Query::Rule(_) => "the pattern",
        };
        if let Some(arguments) = invocations.arguments {
            return format!(
                "see the note above: {} `{}!(…)` {} with {arguments} top-level arguments that `{source}` does not match (an argument of several tokens); search with `{}` and split the arguments yourself",
                invocations.count,
                invocations.macro_name,
                one_or_many(invocations.count, "invocation", "invocations"),
                invocations.widened
            );
        }
        return format!(
            "see the note above: {} `{}!(…)` {} that `{}` matches and `{source}` does not; search with `{}`",
            invocations.count,
            invocations.macro_name,
            one_or_many(invocations.count, "invocation", "invocations"),
            invocations.widened,
            invocations.widened
        );
    }
    let skipped = if stats.skipped_any() {
        format!(
            "{} hidden, ignored or vendored paths were not searched (see above); if the code is there, pass no_ignore: true or a path inside them. ",
            stats.ignored_dirs + stats.ignored_files + stats.vendored_dirs
        )
    } else {
        String::new()
    };
    if stats.files_visited == 0 {
        return format!("{skipped}no {lang} files were found there; check path and language");
    }
    let go_generic_call = match query {
        Query::Pattern(pattern) if pattern.language == SupportLang::Go => {
            crate::structural::go_generic_calls::zero_match_hint(&pattern.pattern)
        }
        _ => None,
    };
    match go_generic_call {
        // Calls `F[T](…)` past the readings' cap were searched in one of their three shapes:
        // the code may well exist (trial173 F1).
        Some((false, hint)) => return format!("{skipped}no match in the shape searched ({}): {hint}", query.compiled_as()),
        Some((true, hint)) => {
            return format!(
                "{skipped}no {lang} code has this shape ({}): {hint}; else loosen the pattern with `$X` / `$$$`, or compare with the code's tree: ast_grep {{\"syntax_tree\": \"ast\", \"code\": \"…\"}}",
                query.compiled_as()
            )
        }
        None => {}
    }
    let requirement = query.requirement();
    if !requirement.is_empty() && stats.files_with_literals > 0 {
        let macro_note = match query.language() {
            SupportLang::Rust => " Rust macro arguments (`assert_eq!(…)`, `vec![…]`, `println!(…)`) are token trees the parser does not read as expressions, so code inside them never matches.",
            SupportLang::C | SupportLang::Cpp => " Code inside preprocessor macros and disabled `#if` branches is not parsed as code.",
            _ => "",
        };
        return format!(
            "{skipped}{} {lang} {} contain the literal text every match has but no code of this shape ({}): the text may occur only in comments or strings, or the code has another shape.{macro_note} Try a looser pattern (replace parts with `$X` or `$$$`; a part the pattern leaves out never matches a part the code has), see the tree with syntax_tree, or search the text with grep{}.",
            stats.files_with_literals,
            one_or_many(stats.files_with_literals, "file does", "files do"),
            query.compiled_as(),
            python_keyword_argument_hint(query).unwrap_or_default()
        );
    }
    format!(
        "{skipped}no {lang} code has this shape ({}); if you expected matches, loosen the pattern with `$X` / `$$$` (a part the pattern leaves out never matches a part the code has, e.g. a return type or a modifier), or compare with the code's tree: ast_grep {{\"syntax_tree\": \"ast\", \"code\": \"…\"}}{}",
        query.compiled_as(),
        python_keyword_argument_hint(query).unwrap_or_default()
    )
}

/// For a Python pattern `name=$V` that compiled as an assignment: the rule that matches the
/// keyword argument `name=…` in a call instead (trial154 M6: `allow_none=$V` found nothing in a
/// project with 20 such keywords).
fn python_keyword_argument_hint(query: &Query) -> Option<String> {
    let Query::Pattern(pattern) = query else { return None };
    if pattern.language != SupportLang::Python || pattern.node_kind != "assignment" {
        return None;
    }
    let (name, value) = pattern.source.trim().split_once('=')?;
    let name = name.trim();
    let value = value.trim();
    let is_name = name.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_')
        && name.chars().all(|character| character.is_alphanumeric() || character == '_');
    if !is_name || value.is_empty() || value.starts_with('=') {
        return None;
    }
    Some(format!(
        ". A Python `{name}={value}` inside a call's parentheses is a keyword argument, not an assignment: to match those, pass the rule {{\"pattern\": {{\"context\": \"f({name}={value})\", \"selector\": \"keyword_argument\"}}}}"
    ))
}

/// A pattern whose `$NAME` is glued to other text in one token (`this.#$F($$$A)`, `get$F`):
/// ast-grep takes a metavariable only as a whole identifier, so `#$F` is the literal text
/// `#$F`, which no code has — the ast-grep CLI reads it the same way (0 matches). Names the
/// token and the working form: the metavariable alone with a constraint on its text or, for a
/// TypeScript/JavaScript `#private` name, on its kind `private_property_identifier` (trial156 M4:
/// 55 `this.#x(…)` calls, "no typescript code has this shape"). `None` for a rule or a pattern
/// without such a token.
fn glued_metavariable_hint(query: &Query) -> Option<String> {
    let Query::Pattern(pattern) = query else { return None };
    let source = pattern.source.as_str();
    let bytes = source.as_bytes();
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let mut at = 0;
    while let Some(found) = source[at..].find('$') {
        let dollar = at + found;
        let dollars = source[dollar..].bytes().take_while(|byte| *byte == b'$').count();
        let name_start = dollar + dollars;
        let name_len =
            source[name_start..].bytes().take_while(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit() || *byte == b'_').count();
        at = name_start.max(dollar + 1);
        if name_len == 0 || dollar == 0 {
            continue;
        }
        let before = bytes[dollar - 1];
        if before != b'#' && !is_word(before) {
            continue;
        }
        let token_start = source[..dollar].bytes().rev().take_while(|byte| is_word(*byte) || *byte == b'#').count();
        let token = &source[dollar - token_start..name_start + name_len];
        let prefix = &source[dollar - token_start..dollar];
        let metavariable = &source[dollar..name_start + name_len];
        let name = &source[name_start..name_start + name_len];
        let without_prefix = format!("{}{}", &source[..dollar - token_start], &source[dollar..]);
        let private = prefix == "#" && matches!(pattern.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript);
        let constraint = if private {
            format!("{{\"{name}\": {{\"kind\": \"private_property_identifier\"}}}}")
        } else {
            format!("{{\"{name}\": {{\"regex\": \"^{prefix}\"}}}}")
        };
        return Some(format!(
            "`{token}` in the pattern is no metavariable: ast-grep reads `{metavariable}` only as a whole identifier, so `{token}` is the literal text `{token}`, which no code has (the ast-grep CLI reads it the same way). Drop the `{prefix}` and constrain `{metavariable}` instead — ast_grep with \"rule\": {{\"pattern\": \"{}\"}} and \"constraints\": {constraint}{} — or search `{}` alone, which matches {}",
            without_prefix.replace('\\', "\\\\").replace('"', "\\\""),
            if private { "" } else { " (a regex on the name's text)" },
            without_prefix,
            if private { format!("`#private` and public names alike (`{metavariable}` then holds `#name`)") } else { "any name there".to_owned() },
        ));
    }
    None
}

/// The rewrite of an `ast_edit` call as each file's rewrite reads it: ast-grep's template, the
/// structure check's plan of its single-node metavariables (`precedence`; `None` when it has
/// none) and the metavariables it uses, sorted.
#[derive(Clone, Copy)]
struct RewriteTemplate<'a> {
    template: &'a TemplateFix,
    plan: Option<&'a SubstitutionPlan>,
    used: &'a [String],
}

/// One file's rewrite, computed in a walker thread.
struct FileRewrite {
    path: PathBuf,
    original: Vec<u8>,
    new_content: Vec<u8>,
    replacements: usize,
    nested_skipped: usize,
    /// Matches whose rewrite uses a metavariable the match left unbound: (1-based line, names).
    unbound: Vec<(usize, Vec<String>)>,
    /// Parse problems the rewrite introduced.
    parse_problems: Vec<NewParseProblem>,
    /// The rewritten file could not be parsed at all (tree-sitter failed).
    reparse_failure: Option<String>,
    /// Candidates the pattern missed only because of parts it lacks.
    missed: MissedParts,
    /// Why the file's match was cut, if it was: the file is then not rewritten at all (a
    /// partial rewrite of a file is never staged).
    cut: Option<CutReason>,
    /// Replacements that put a multi-line match on fewer lines (the template's layout, not the
    /// match's): (1-based line of the match, its line count, the replacement's line count).
    collapsed: Vec<(usize, usize, usize)>,
    /// Substitutions whose captured node is no longer one node in the rewritten file
    /// (`precedence`; checked only when the rewrite parses without new problems).
    changed_groupings: Vec<ChangedGrouping>,
    /// Replacements the code around them would have taken apart: parenthesized, or named when
    /// parentheses did not help (trial173 M7).
    grouping: ReplacementGrouping,
}

/// The formatter a language's projects conventionally run, as the command to run on changed
/// files: `npx prettier --write` (TypeScript, JavaScript), `gofmt -w` (Go), `rustfmt` (Rust);
/// `None` for the others.
fn formatter_command(language_id: &str) -> Option<&'static str> {
    match language_id {
        "typescript" | "tsx" | "javascript" => Some("npx prettier --write"),
        "go" => Some("gofmt -w"),
        "rust" => Some("rustfmt"),
        _ => None,
    }
}

/// The one note of an ast_edit whose replacements put multi-line matches on fewer lines, naming
/// the language's formatter as the next step (trial156 M5: a one-line `{ $$$B }` template put
/// `notifyManager.batch(() => {…})`'s 9-line bodies on one line, as the ast-grep CLI does, and
/// nothing said to run prettier). `None` when no replacement did or the language has no
/// formatter convention.
fn collapsed_lines_note(root: &Path, rewrites: &[FileRewrite], language_id: &str) -> Option<String> {
    let formatter = formatter_command(language_id)?;
    let collapsed: Vec<(&FileRewrite, &(usize, usize, usize))> =
        rewrites.iter().flat_map(|rewrite| rewrite.collapsed.iter().map(move |found| (rewrite, found))).collect();
    let (first_file, (line, before, after)) = collapsed.first()?;
    let files: Vec<String> =
        rewrites.iter().filter(|rewrite| !rewrite.collapsed.is_empty()).map(|rewrite| display_path(root, &rewrite.path)).collect();
    Some(format!(
        "note: {} {} a multi-line match on fewer lines (the rewrite template's layout; e.g. {}:{line}, {before} lines → {after}) — the line breaks are the template's, not a change of the rewrite's meaning (check the rewrite itself in the diff); after accepting, run `{formatter} {}` to restore the project's layout",
        collapsed.len(),
        one_or_many(collapsed.len(), "replacement puts", "replacements put"),
        display_path(root, &first_file.path),
        files.join(" "),
    ))
}

fn ast_edit(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let resource = ctx.resource::<StructuralResource>()?;
    let args: AstEditArgs = ctx.parse_arguments(arguments)?;
    let root = ctx.workspace_root();
    let config = resource.config();
    let query_args = QueryArgs {
        pattern: args.pattern.as_deref(),
        rule: args.rule.as_ref(),
        constraints: args.constraints.as_ref(),
        utils: args.utils.as_ref(),
        transform: args.transform.as_ref(),
        context: args.context,
        path: args.path.as_deref(),
        language: args.language.as_deref(),
    };
    let setup = setup(root, &query_args)?;
    let query = &setup.query;
    let (template, used) = validate_template(&args.rewrite, query)?;
    let language = query.language();
    let transforms: &[String] = match query {
        Query::Rule(rule) => &rule.transform_variables,
        Query::Pattern(_) => &[],
    };
    let plan = SubstitutionPlan::new(&args.rewrite, language, transforms);
    let probe = query.missed_parts_probe(config.max_missed_candidates);
    let budget = match_budget(ctx, config);
    let (mut rewrites, mut stats) =
        walk_and_match_owned(&setup.target, language, query.requirement(), &walk_limits(ctx, config, args.no_ignore), &|path, parsed| {
            rewrite_file(
                path,
                parsed,
                query,
                probe.as_ref(),
                &RewriteTemplate { template: &template, plan: plan.as_ref(), used: &used },
                &budget,
            )
        });
    record_cut_files(&mut stats, root, rewrites.iter().filter_map(|r| Some((r.path.as_path(), r.cut?))));
    check_walk_finished(ctx, &stats, rewrites.len(), true)?;
    rewrites.sort_by(|a, b| a.path.cmp(&b.path));
    let lang = query.language_id();
    let mut missed = MissedParts::default();
    for rewrite in &mut rewrites {
        let mut found = std::mem::take(&mut rewrite.missed);
        found.set_path(&display_path(root, &rewrite.path));
        missed.merge(found);
    }

    // Build output (a package's dist/ typings and JavaScript) is left out unless asked for: the
    // next build overwrites it from the sources (trial164 M2).
    let build_output =
        build_output_of(root, language, rewrites.iter().filter(|r| r.replacements > 0).map(|r| (r.path.as_path(), r.replacements)));
    if !args.include_build_output && !build_output.files.is_empty() {
        rewrites.retain(|r| !build_output.files.iter().any(|(path, _, _)| *path == r.path));
    }

    // Refusals first: an unbound metavariable, then rewrites that break the parse.
    let unbound: Vec<(String, usize, Vec<String>)> = rewrites
        .iter()
        .flat_map(|r| r.unbound.iter().map(move |(line, names)| (display_path(root, &r.path), *line, names.clone())))
        .collect();
    if !unbound.is_empty() {
        let listed: Vec<String> = unbound
            .iter()
            .take(10)
            .map(|(path, line, names)| format!("{path}:{line} ({})", names.iter().map(|n| format!("${n}")).collect::<Vec<_>>().join(", ")))
            .collect();
        return Err(ToolError::invalid(format!(
            "the rewrite uses metavariables that {} {} left unbound (a branch of `any` that did not match, or a variable only inside `not`): {}{}; nothing was staged",
            unbound.len(),
            one_or_many(unbound.len(), "match", "matches"),
            listed.join(", "),
            if unbound.len() > 10 { format!(" and {} more", unbound.len() - 10) } else { String::new() }
        ))
        .with_hint("bind every variable the rewrite uses in every branch of the rule (the same names in each `any` member), or use separate ast_edit calls per branch")
        .with_details(json!({"unbound": unbound.iter().map(|(p, l, n)| json!({"path": p, "line": l, "metavariables": n})).collect::<Vec<_>>()})));
    }
    let reparse_failures: Vec<String> =
        rewrites.iter().filter_map(|r| r.reparse_failure.as_ref().map(|e| format!("{}: {e}", display_path(root, &r.path)))).collect();
    let broken: Vec<&FileRewrite> = rewrites.iter().filter(|r| !r.parse_problems.is_empty()).collect();
    let broken_report = describe_parse_problems(root, &broken, 20);
    let broken_files = broken.len() + reparse_failures.len();
    if broken_files > 0 && !args.allow_parse_errors {
        let problems: usize = broken.iter().map(|r| r.parse_problems.len()).sum();
        let mut message = format!(
            "the rewrite would break the syntax of {} {} ({problems} new parse {}); nothing was staged:\n{broken_report}",
            broken.len() + reparse_failures.len(),
            one_or_many(broken.len() + reparse_failures.len(), "file", "files"),
            one_or_many(problems, "error", "errors")
        );
        for failure in &reparse_failures {
            let _ = write!(message, "\n{failure} (the parser failed on the rewritten file)");
        }
        return Err(ToolError::invalid(message.trim_end().to_owned())
            .with_hint("fix the rewrite template so the result is valid code (a rewrite replaces the matched node only; keep what the code around it needs), or pass allow_parse_errors: true to stage it anyway")
            .with_details(json!({"broken_files": broken.iter().map(|r| json!({
                "path": display_path(root, &r.path),
                "problems": r.parse_problems.iter().map(|p| json!({"line": p.line, "problem": p.what, "replacement": p.replacement.as_ref().map(|(line, old, new)| json!({"line": line, "old": old, "new": new}))})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>()})));
    }
    drop(broken);
    let changed_groupings: Vec<(&FileRewrite, &ChangedGrouping)> =
        rewrites.iter().flat_map(|r| r.changed_groupings.iter().map(move |changed| (r, changed))).collect();
    let precedence_report =
        (!changed_groupings.is_empty()).then(|| describe_changed_groupings(root, &changed_groupings, plan.as_ref(), &args.rewrite));
    if let (Some(report), false) = (&precedence_report, args.allow_precedence_changes) {
        let build_output_note = build_output.note(root, args.include_build_output).map(|note| format!("\n{note}")).unwrap_or_default();
        return Err(ToolError::invalid(format!("{}; nothing was staged:\n{}{build_output_note}", report.summary, report.places))
            .with_hint(format!(
                "parenthesize the capture in the rewrite: call ast_edit again with rewrite `{}` (parentheses a formatter such as prettier may drop where they are redundant), or pass allow_precedence_changes: true to stage it anyway",
                report.fixed_rewrite
            ))
            .with_details(json!({"changed_groupings": changed_groupings.iter().map(|(r, changed)| json!({
                "path": display_path(root, &r.path),
                "line": changed.substitution.line,
                "metavariable": format!("${}", changed.substitution.name),
                "captured": changed.substitution.captured,
                "kind": changed.substitution.kind,
                "became": changed.became_text,
                "became_kind": changed.became_kind,
            })).collect::<Vec<_>>(), "fixed_rewrite": report.fixed_rewrite})));
    }
    let precedence_count = changed_groupings.len();
    drop(changed_groupings);
    // Replacements the code around them takes apart (trial173 M7): parenthesized where that
    // keeps them whole; the others refused unless allowed.
    let regrouped: Vec<String> = rewrites
        .iter()
        .flat_map(|r| {
            let path = display_path(root, &r.path);
            r.grouping.regrouped.iter().map(move |(line, replacement, kind, became)| {
                format!(
                    "  {path}:{line}: `{}` becomes part of `{}` ({kind})",
                    cut_code(&one_line(replacement), 1, 80),
                    cut_code(&one_line(became), 1, 100)
                )
            })
        })
        .collect();
    if !regrouped.is_empty() && !args.allow_precedence_changes {
        // A replacement of several statements whose pieces land in a statement list (`if (c)
        // f(1);` → `if (c) a(1); b(1);`): no operator is involved, the statement slot around it
        // holds one (review50 M3).
        let statement_lists = ["program", "source_file", "module", "block", "statement_block", "compound_statement", "translation_unit"];
        let split_statements = rewrites
            .iter()
            .flat_map(|r| r.grouping.regrouped.iter())
            .filter(|(_, _, kind, _)| statement_lists.contains(&kind.as_str()))
            .count();
        let (why, hint) = if split_statements == regrouped.len() {
            (
                "the replacement is several statements where the code around it holds one (a braceless `if`/`for`/`while` body, an arrow function's or lambda's expression body), so only the first stays there and the rest run unconditionally".to_owned(),
                "wrap the rewrite in braces (`{ … }`) so it is one block where it lands, narrow the pattern to the places where a statement list holds it, or pass allow_precedence_changes: true to stage it anyway",
            )
        } else {
            (
                format!(
                    "the code's own operators take part of the replacement by precedence, and parentheses around it did not keep it one node{}",
                    if split_statements > 0 { format!(" ({split_statements} of them: several statements where one statement stands — wrap those in braces)") } else { String::new() }
                ),
                "write the rewrite so it is one expression where it lands (parenthesize it yourself), narrow the pattern to the places where it fits, or pass allow_precedence_changes: true to stage it anyway",
            )
        };
        return Err(ToolError::invalid(format!(
            "the rewrite would change what the code around {} {} means: {why}; nothing was staged:\n{}",
            regrouped.len(),
            one_or_many(regrouped.len(), "replacement", "replacements"),
            regrouped.join("\n")
        ))
        .with_hint(hint));
    }
    let parenthesized: Vec<(String, (usize, String, String))> = rewrites
        .iter()
        .flat_map(|r| r.grouping.parenthesized.iter().map(move |site| (display_path(root, &r.path), site.clone())))
        .collect();

    // Python: tree-sitter's grammar accepts the newest syntax; the project's own interpreter
    // compiles each rewritten file too (trial158 F1: `f"{g(x, k="r")}"` under Python 3.11).
    let python_check = (query.language_id() == "python").then(|| {
        let texts: Vec<(&Path, &str, &str)> = rewrites
            .iter()
            .filter(|r| r.new_content != r.original && r.parse_problems.is_empty() && r.reparse_failure.is_none())
            .filter_map(|r| Some((r.path.as_path(), std::str::from_utf8(&r.original).ok()?, std::str::from_utf8(&r.new_content).ok()?)))
            .collect();
        let files: Vec<RewrittenPython<'_>> = texts.iter().map(|(path, old, new)| RewrittenPython { path, old, new }).collect();
        let timeout = ctx.remaining().saturating_sub(Duration::from_secs(1)).min(python_syntax::CHECK_TIMEOUT_CAP);
        python_syntax::check_rewritten_python(root, ctx.workspace_trust(), &files, timeout)
    });
    let python_broken = python_check.as_ref().map_or(0, PythonSyntaxCheck::broken_files);
    if let Some(check) = python_check.as_ref().filter(|check| !check.new_errors.is_empty()) {
        if !args.allow_parse_errors {
            let interpreter = check.new_errors[0].interpreter.clone();
            return Err(ToolError::invalid(format!(
                "the rewrite would break the syntax of {} for the project's Python: {interpreter} cannot compile the rewritten text (tree-sitter's grammar, which accepts newer Python, parsed it); nothing was staged:\n{}",
                python_syntax::files_named(root, &check.new_errors),
                check.describe_errors(root, 20).trim_end()
            ))
            .with_hint("fix the rewrite template so the project's Python accepts the result (before Python 3.12 an f-string cannot reuse its own quote inside `{…}`: write the template's strings with the other quote), or pass allow_parse_errors: true to stage it anyway")
            .with_details(json!({"python_syntax_errors": check.new_errors.iter().map(|error| json!({
                "path": display_path(root, &error.path),
                "line": error.line,
                "message": error.message,
                "interpreter": error.interpreter,
            })).collect::<Vec<_>>()})));
        }
    }

    let replacements: usize = rewrites.iter().map(|r| r.replacements).sum();
    let nested_skipped: usize = rewrites.iter().map(|r| r.nested_skipped).sum();
    let unchanged_files = rewrites.iter().filter(|r| r.new_content == r.original && r.replacements > 0).count();
    rewrites.retain(|r| r.new_content != r.original);
    let changed_replacements: usize = rewrites.iter().map(|r| r.replacements).sum();

    if rewrites.is_empty() {
        let mut text = if replacements == 0 {
            format!("0 replacements for {} ({lang}; {}): nothing staged, no edit_id", query.display(), query.compiled_as())
        } else {
            format!(
                "{replacements} matches for {} but the rewrite leaves all {unchanged_files} files byte-identical: nothing staged, no edit_id",
                query.display()
            )
        };
        for warning in query.warnings() {
            let _ = write!(text, "\nwarning: {warning}");
        }
        let _ = write!(text, "\n{}", describe_stats(&stats, lang, &setup.target_display, query));
        if let Some(note) = build_output.note(root, args.include_build_output) {
            let _ = write!(text, "\n{note}");
        }
        if let Some(note) = missed_note(&missed, query) {
            let _ = write!(text, "\nnote: {note}");
        }
        if let Some(cut) = describe_cut_files(&stats, "such a file is not rewritten at all (a partial rewrite is never staged)") {
            let _ = write!(text, "\n{cut}");
        }
        // Every match in build output left out: the note above says where they are.
        if replacements == 0 && stats.files_match_cut == 0 && (args.include_build_output || build_output.files.is_empty()) {
            let _ = write!(text, "\nhint: {}", zero_match_hint(&stats, query, &missed));
        }
        let structured = to_structured(&AstEditOutput {
            edit_id: None,
            replacements: 0,
            files: Vec::new(),
            nested_skipped,
            compiled_as: CompiledAs::of(query),
            preview_hunks_shown: 0,
            preview_hunks_total: 0,
            preview_bytes_left_out: 0,
            warnings: query.warnings().to_vec(),
            files_with_new_parse_errors: 0,
            python_check: None,
            precedence_changes: 0,
            build_output_files: build_output.displayed(root),
            build_output_included: args.include_build_output,
            stats: stats.clone(),
        });
        return Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)));
    }

    let mut warnings: Vec<String> = Vec::new();
    if !regrouped.is_empty() {
        warnings.push(format!(
            "WARNING: allow_precedence_changes: {} {} taken apart by the code's own operators around {} (parentheses did not keep {} one node):\n{}",
            regrouped.len(),
            one_or_many(regrouped.len(), "replacement is", "replacements are"),
            one_or_many(regrouped.len(), "it", "them"),
            one_or_many(regrouped.len(), "it", "them"),
            regrouped.join("\n")
        ));
    }
    if !parenthesized.is_empty() {
        let listed: Vec<String> = parenthesized
            .iter()
            .take(10)
            .map(|(path, (line, now, became))| {
                format!("  {path}:{line}: `{}` (without them: `{}`)", cut_code(&one_line(now), 1, 80), cut_code(&one_line(became), 1, 100))
            })
            .collect();
        warnings.push(format!(
            "note: {} {} parenthesized: the code around {} would have taken part of the rewrite by operator precedence (a `!` or an operator next to the match binds tighter than the rewrite's own operator), changing what it means; check the parentheses in the diff{}:\n{}{}",
            parenthesized.len(),
            one_or_many(parenthesized.len(), "replacement was", "replacements were"),
            one_or_many(parenthesized.len(), "it", "them"),
            if parenthesized.len() > listed.len() { format!(" (first {} listed)", listed.len()) } else { String::new() },
            listed.join("\n"),
            if parenthesized.len() > listed.len() { format!("\n  … and {} more", parenthesized.len() - listed.len()) } else { String::new() },
        ));
    }
    if let Some(report) = &precedence_report {
        warnings.push(format!(
            "WARNING: allow_precedence_changes: {}:\n{}\nthe rewrite that keeps the meaning: `{}`",
            report.summary, report.places, report.fixed_rewrite
        ));
    }
    warnings.extend(query.warnings().iter().map(|w| format!("warning: {w}")));
    if let Some(note) = build_output.note(root, args.include_build_output) {
        warnings.push(note);
    }
    if nested_skipped > 0 {
        warnings.push(format!(
            "{nested_skipped} nested {} inside other matches {} skipped (the outermost match wins); run ast_edit again after accepting to rewrite them",
            one_or_many(nested_skipped, "match", "matches"),
            one_or_many(nested_skipped, "was", "were")
        ));
    }
    if broken_files > 0 {
        let mut report = broken_report.trim_end().to_owned();
        for failure in &reparse_failures {
            let _ = write!(report, "\n  {failure} (the parser failed on the rewritten file)");
        }
        warnings.push(format!(
            "allow_parse_errors: the rewrite leaves {broken_files} {} with new parse errors:\n{report}",
            one_or_many(broken_files, "file", "files"),
        ));
    }
    if let Some(check) = python_check.as_ref().filter(|check| !check.new_errors.is_empty()) {
        warnings.push(format!(
            "WARNING: allow_parse_errors: the project's Python cannot compile {} after this rewrite — {} (tree-sitter's grammar, which accepts newer Python, parsed it); importing {} fails with SyntaxError:\n{}",
            python_syntax::files_named(root, &check.new_errors),
            check.new_errors[0].interpreter,
            one_or_many(python_broken, "that file", "those files"),
            check.describe_errors(root, 20).trim_end()
        ));
    }
    if unchanged_files > 0 {
        warnings.push(format!("{unchanged_files} files matched but the rewrite left them unchanged; they are not part of the edit"));
    }
    warnings.extend(collapsed_lines_note(root, &rewrites, lang));
    if let Some(note) = missed_note(&missed, query) {
        warnings.push(format!("note: {note} (not rewritten)"));
    }
    if let Some(skipped) = describe_skipped(&stats, lang) {
        warnings.push(skipped);
    }
    if let Some(cut) =
        describe_cut_files(&stats, "such a file is not rewritten at all (a partial rewrite is never staged) and is not part of this edit")
    {
        warnings.push(cut);
    }

    let files: Vec<StagedFile> = rewrites
        .into_iter()
        .map(|r| StagedFile {
            display: display_path(root, &r.path),
            path: r.path,
            original: Some(r.original),
            new_content: Some(r.new_content),
            changes: r.replacements,
            operation: crate::staged::PlannedOperation::Modified,
            new_file_mode: None,
        })
        .collect();
    let file_summaries: Vec<AstEditFile> = files.iter().map(|f| AstEditFile { path: f.display.clone(), replacements: f.changes }).collect();
    let file_count = files.len();
    let description = format!("{} → `{}` ({lang})", query.display(), args.rewrite);
    warnings.extend(crate::staged::read_only_warning(&files));
    let store = ctx.resource::<crate::staged::StagedResource>()?;
    let max_pending = store.config().max_pending_edits;
    let staged = store.stage(StagedChange {
        tool: "ast_edit",
        description,
        change_noun: "replacement",
        files,
        warnings: warnings.clone(),
        write_check_blind_spots: Vec::new(),
        restage_hint: None,
        held: false,
        moved_directories: Vec::new(),
    });
    let (edit_id, evicted, preview) = (staged.edit_id, staged.evicted, staged.preview);

    let mut text = format!(
        "(proposed) {changed_replacements} {} in {file_count} {} for {} → `{}` ({lang}; {}). Nothing was written: call resolve with edit_id \"{edit_id}\" and action \"accept\" to write it, or \"discard\" to drop it.",
        one_or_many(changed_replacements, "replacement", "replacements"),
        one_or_many(file_count, "file", "files"),
        query.display(),
        args.rewrite,
        query.compiled_as()
    );
    for warning in &warnings {
        let _ = write!(text, "\n{warning}");
    }
    if !evicted.is_empty() {
        let _ = write!(text, "\nolder pending edits dropped to stay within {max_pending} pending: {}", evicted.join(", "));
    }
    let _ = write!(
        text,
        "\nevery rewritten file was parsed again: {}",
        if broken_files == 0 { "no new parse errors" } else { "new parse errors allowed (see above)" }
    );
    if let Some(check) = &python_check {
        let _ = write!(text, " (tree-sitter); {}", check.summary());
    }
    if plan.is_some() {
        let _ = write!(
            text,
            "; {}",
            if precedence_count == 0 {
                "each captured node substituted into the rewrite is still one node there".to_owned()
            } else {
                format!(
                    "{precedence_count} substituted {} no longer one node (allowed, see the WARNING above)",
                    one_or_many(precedence_count, "capture is", "captures are")
                )
            }
        );
    }
    if broken_files == 0 {
        let _ = write!(
            text,
            "; {}",
            match (parenthesized.len(), regrouped.len()) {
                (0, 0) =>
                    "each replacement is one node where it lands (the code around it does not take part of it by precedence)".to_owned(),
                (wrapped, 0) => format!(
                    "{wrapped} {} parenthesized to keep {} meaning (see the note above)",
                    one_or_many(wrapped, "replacement was", "replacements were"),
                    one_or_many(wrapped, "its", "their")
                ),
                (_, taken) => format!(
                    "{taken} {} taken apart by the code around {} (allowed, see the WARNING above)",
                    one_or_many(taken, "replacement is", "replacements are"),
                    one_or_many(taken, "it", "them")
                ),
            }
        );
    }
    let _ = write!(text, "\n{}", preview.text);
    let structured = to_structured(&AstEditOutput {
        edit_id: Some(edit_id),
        replacements: changed_replacements,
        files: file_summaries,
        nested_skipped,
        compiled_as: CompiledAs::of(query),
        preview_hunks_shown: preview.shown,
        preview_hunks_total: preview.total,
        preview_bytes_left_out: preview.bytes_left_out,
        warnings,
        files_with_new_parse_errors: broken_files + python_broken,
        python_check: python_check.as_ref().map(PythonSyntaxCheck::summary),
        precedence_changes: precedence_count,
        build_output_files: build_output.displayed(root),
        build_output_included: args.include_build_output,
        stats: stats.clone(),
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)))
}

/// Computes one file's rewrite: outermost matches win, each replacement must find every
/// template variable bound, and the result is parsed again.
/// The rewrite of one file. Takes the parse by value: the original tree is dropped (its parse
/// problems read first) before the rewritten text is parsed again, so a file's peak memory is
/// one tree, not two (harden23: a 3 MB array rewrite held both).
fn rewrite_file(
    path: &Path,
    parsed: ParsedFile,
    query: &Query,
    probe: Option<&crate::structural::missed::MissedPartsProbe>,
    rewrite: &RewriteTemplate<'_>,
    budget: &MatchBudget,
) -> Option<FileRewrite> {
    let RewriteTemplate { template, plan, used } = *rewrite;
    let scan = scan_file(&parsed, query, probe, budget, usize::MAX);
    let (found, missed) = (scan.matches, scan.missed);
    if found.is_empty() || scan.cut.is_some() {
        if missed.is_empty() && scan.cut.is_none() {
            return None;
        }
        let original = parsed.source().as_bytes().to_vec();
        return Some(FileRewrite {
            path: path.to_path_buf(),
            new_content: original.clone(),
            original,
            replacements: 0,
            nested_skipped: 0,
            unbound: Vec::new(),
            parse_problems: Vec::new(),
            reparse_failure: None,
            missed,
            cut: scan.cut,
            collapsed: Vec::new(),
            changed_groupings: Vec::new(),
            grouping: ReplacementGrouping::default(),
        });
    }
    let total = found.len();
    let source = parsed.source();
    let mut edits: Vec<AppliedEdit> = Vec::new();
    // Per edit (same order): the substitutions the structure check reads.
    let mut substitutions: Vec<(usize, Vec<Substitution>)> = Vec::new();
    let mut unbound = Vec::new();
    let mut last_end = 0;
    let mut replaced = 0;
    for matched in &found {
        let range = matched.range();
        if replaced > 0 && range.start < last_end {
            continue;
        }
        replaced += 1;
        last_end = range.end;
        let missing = unbound_in(matched.get_env(), used.iter().map(String::as_str));
        if !missing.is_empty() {
            unbound.push((matched.start_pos().line() + 1, missing.into_iter().map(str::to_owned).collect()));
            continue;
        }
        let edit = matched.make_edit(query, template);
        if let Some(plan) = plan {
            substitutions.push((edit.position, plan.substitutions(matched, source)));
        }
        edits.push(AppliedEdit {
            position: edit.position,
            deleted_length: edit.deleted_length,
            inserted: String::from_utf8_lossy(&edit.inserted_text).into_owned(),
        });
    }
    edits.sort_by_key(|e| e.position);
    substitutions.sort_by_key(|(position, _)| *position);
    // A multi-line match whose replacement has fewer lines (a one-line `{ $$$B }` template).
    // Lines are counted once through the file (the edits are sorted and do not overlap).
    let mut collapsed: Vec<(usize, usize, usize)> = Vec::new();
    let (mut counted_to, mut line) = (0usize, 1usize);
    for edit in &edits {
        let Some(matched) = source.get(edit.position..edit.position + edit.deleted_length) else { continue };
        line += source.as_bytes()[counted_to.min(edit.position)..edit.position].iter().filter(|byte| **byte == b'\n').count();
        counted_to = edit.position;
        let before = matched.matches('\n').count() + 1;
        let after = edit.inserted.matches('\n').count() + 1;
        if before > 1 && after < before {
            collapsed.push((line, before, after));
        }
    }
    let mut new_content = applied_edits(source, &edits);
    let original = source.to_owned();
    let problems_before = parse_problems(&parsed);
    // The matches (their bindings hold nodes of the tree) and the tree go before the reparse.
    drop(found);
    drop(parsed);
    let (mut parse_problems, mut reparse_failure, mut changed_groupings) = (Vec::new(), None, Vec::new());
    let mut grouping = ReplacementGrouping::default();
    if unbound.is_empty() && new_content != original.as_bytes() {
        match std::str::from_utf8(&new_content)
            .map_err(|_| "the rewritten file is not valid UTF-8".to_owned())
            .and_then(|new_text| reparse(new_text, query.language()))
        {
            Ok(mut reparsed) => {
                parse_problems = new_parse_problems(&problems_before, &original, &reparsed, &edits);
                if parse_problems.is_empty() {
                    // Each replacement against the code around it (trial173 M7): one the
                    // surrounding operators would take apart is parenthesized.
                    if let Some(parenthesized) = parenthesize_regrouped_replacements(
                        &original,
                        &problems_before,
                        &mut edits,
                        &reparsed,
                        query.language(),
                        &mut grouping,
                    ) {
                        (new_content, reparsed) = parenthesized;
                    }
                }
                if parse_problems.is_empty() && substitutions.iter().any(|(_, list)| !list.is_empty()) {
                    // Where each replacement's template text starts in the rewritten file (after
                    // the `(` of a parenthesized replacement).
                    let placed: Vec<(usize, Vec<Substitution>)> = replacement_starts(&edits)
                        .into_iter()
                        .zip(&edits)
                        .zip(substitutions)
                        .map(|((start, edit), (_, list))| (start + usize::from(grouping.wrapped.contains(&edit.position)), list))
                        .collect();
                    changed_groupings = crate::structural::precedence::changed_groupings(&reparsed, &placed);
                }
            }
            Err(err) => reparse_failure = Some(err),
        }
    }
    Some(FileRewrite {
        path: path.to_path_buf(),
        original: original.into_bytes(),
        new_content,
        replacements: replaced,
        nested_skipped: total.saturating_sub(replaced),
        unbound,
        parse_problems,
        reparse_failure,
        missed,
        cut: None,
        collapsed,
        changed_groupings,
        grouping,
    })
}

/// `source` with `edits` (sorted, not overlapping) applied.
fn applied_edits(source: &str, edits: &[AppliedEdit]) -> Vec<u8> {
    let mut content = source.as_bytes().to_vec();
    for edit in edits.iter().rev() {
        content.splice(edit.position..edit.position + edit.deleted_length, edit.inserted.bytes());
    }
    content
}

/// Where each of `edits` (sorted) starts in the rewritten file.
fn replacement_starts(edits: &[AppliedEdit]) -> Vec<usize> {
    let mut delta: isize = 0;
    edits
        .iter()
        .map(|edit| {
            let start = (edit.position as isize + delta) as usize;
            delta += edit.inserted.len() as isize - edit.deleted_length as isize;
            start
        })
        .collect()
}

/// The replacements of one file checked against the code around them (trial173 M7).
#[derive(Default)]
struct ReplacementGrouping {
    /// Original positions of the edits that were parenthesized.
    wrapped: Vec<usize>,
    /// The parenthesized ones: (1-based line in the original, the replacement as written now, what
    /// the code around it would have made of it without the parentheses).
    parenthesized: Vec<(usize, String, String)>,
    /// Replacements taken apart that parentheses did not keep whole (a new parse problem, or
    /// still not one node): (1-based line, replacement, the node that took it apart: kind, text).
    regrouped: Vec<(usize, String, String, String)>,
}

/// Whether a `(` written at byte `position` of `original` in TypeScript/JavaScript would join the
/// previous line as a call's arguments (ASI: no `;` is inserted before a line starting with `(`):
/// the position starts its line and the previous line's last non-blank character ends an
/// expression (a name, a literal, `)`, `]`, `}`). The parenthesized replacement is then written
/// `;(…)`, as prettier and standard do (review50 H2: `const r = fetchIt()` followed by
/// `(r.ok || r.retry) && run()` is `fetchIt()(r.ok || r.retry)`). Limit: a previous line ending
/// in a `//` comment is read as it ends.
fn statement_start_joins_previous_line(original: &str, position: usize, language: SupportLang) -> bool {
    if !matches!(language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
        return false;
    }
    let before = &original[..position];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    if !before[line_start..].trim().is_empty() || line_start == 0 {
        return false;
    }
    before[..line_start]
        .trim_end()
        .chars()
        .next_back()
        .is_some_and(|last| last.is_alphanumeric() || matches!(last, '_' | '$' | ')' | ']' | '}' | '"' | '\'' | '`'))
}

/// Checks each replacement of `edits` against the code around it in `reparsed` (the file with
/// `edits` applied): a replacement that is no longer one node there (`!less(a, b)` with
/// `less($A, $B)` → `cmp($A, $B) < 0` gives `!cmp(a, b) < 0`, read `(!cmp(a, b)) < 0`) is
/// wrapped in parentheses. When the parenthesized file parses without new problems and each
/// such replacement is then one node, `edits` are updated, `grouping` lists them, and the new
/// content and its parse are returned; else `grouping.regrouped` names them and nothing changes.
fn parenthesize_regrouped_replacements(
    original: &str,
    problems_before: &[crate::structural::reparse::Problem],
    edits: &mut Vec<AppliedEdit>,
    reparsed: &ParsedFile,
    language: SupportLang,
    grouping: &mut ReplacementGrouping,
) -> Option<(Vec<u8>, ParsedFile)> {
    let starts = replacement_starts(edits);
    let regrouped: Vec<(usize, crate::structural::precedence::RegroupedReplacement)> = edits
        .iter()
        .zip(&starts)
        .enumerate()
        .filter_map(|(index, (edit, start))| {
            crate::structural::precedence::regrouped_replacement(reparsed, *start..*start + edit.inserted.len()).map(|found| (index, found))
        })
        .collect();
    if regrouped.is_empty() {
        return None;
    }
    let line_of = |position: usize| original[..position].matches('\n').count() + 1;
    let mut wrapped = edits.clone();
    // The `;` written before a `(` that would join the previous line (ASI), by edit index.
    let mut semicolon_before = vec![false; wrapped.len()];
    for (index, _) in &regrouped {
        semicolon_before[*index] = statement_start_joins_previous_line(original, wrapped[*index].position, language);
        let prefix = if semicolon_before[*index] { ";" } else { "" };
        wrapped[*index].inserted = format!("{prefix}({})", wrapped[*index].inserted);
    }
    let content = applied_edits(original, &wrapped);
    let kept_whole = std::str::from_utf8(&content).ok().and_then(|text| reparse(text, language).ok()).filter(|parsed| {
        let starts = replacement_starts(&wrapped);
        new_parse_problems(problems_before, original, parsed, &wrapped).is_empty()
            && regrouped.iter().all(|(index, _)| {
                // The parenthesized expression, after a `;` written before it.
                let start = starts[*index] + usize::from(semicolon_before[*index]);
                crate::structural::precedence::regrouped_replacement(parsed, start..starts[*index] + wrapped[*index].inserted.len())
                    .is_none()
            })
    });
    match kept_whole {
        Some(parsed) => {
            for (index, found) in &regrouped {
                let edit = &wrapped[*index];
                grouping.wrapped.push(edit.position);
                grouping.parenthesized.push((line_of(edit.position), edit.inserted.clone(), found.became_text.clone()));
            }
            *edits = wrapped;
            Some((content, parsed))
        }
        None => {
            for (index, found) in regrouped {
                let edit = &edits[index];
                grouping.regrouped.push((line_of(edit.position), edit.inserted.clone(), found.became_kind, found.became_text));
            }
            None
        }
    }
}

/// The matches of a search or rewrite that lie in build output (see
/// `lsp::typescript_build_output`): TypeScript declaration and JavaScript files a build wrote,
/// which the next build overwrites from the sources (trial164 M2: `Array<$T>` → `$T[]` rewrote
/// `packages/*/dist/*.d.ts`, 6 of 14 replacements, with no note).
struct BuildOutputMatches {
    /// (path, matches in it, why it is build output as said), sorted by path.
    files: Vec<(PathBuf, usize, String)>,
}

impl BuildOutputMatches {
    /// The files, relative to the workspace root (at most 20).
    fn displayed(&self, root: &Path) -> Vec<String> {
        self.files.iter().take(20).map(|(path, _, _)| display_path(root, path)).collect()
    }

    /// How many matches lie in build output.
    fn matches(&self) -> usize {
        self.files.iter().map(|(_, count, _)| count).sum()
    }

    /// Up to 5 files, `path (why)`, and how many more.
    fn named(&self, root: &Path) -> String {
        let mut named: Vec<String> =
            self.files.iter().take(5).map(|(path, _, why)| format!("{} ({why})", display_path(root, path))).collect();
        if self.files.len() > 5 {
            named.push(format!("and {} more", self.files.len() - 5));
        }
        named.join(", ")
    }

    /// `ast_grep`'s note: how many of the `total` matches lie in build output and where; `None`
    /// when none does.
    fn search_note(&self, root: &Path, total: usize) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let (matches, files) = (self.matches(), self.files.len());
        Some(format!(
            "note: {matches} of the {total} {} in build output, {files} {} written by a build, which overwrites them from the sources: {}; ast_edit leaves them out unless include_build_output: true",
            one_or_many(total, "match is", "matches are"),
            one_or_many(files, "file", "files"),
            self.named(root)
        ))
    }

    /// `ast_edit`'s note: the files left out and how to include them (`included`: the note that
    /// they were rewritten); `None` when no match lies in build output.
    fn note(&self, root: &Path, included: bool) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let (matches, files) = (self.matches(), self.files.len());
        Some(if included {
            format!(
                "note: include_build_output: {matches} {} in {files} build-output {} (written by a build, which overwrites them from the sources): {}",
                one_or_many(matches, "replacement is", "replacements are"),
                one_or_many(files, "file", "files"),
                self.named(root)
            )
        } else {
            format!(
                "note: left out {matches} {} in {files} build-output {} (written by a build, which overwrites them from the sources): {}; rebuild after accepting, or pass include_build_output: true to rewrite them too",
                one_or_many(matches, "match", "matches"),
                one_or_many(files, "file", "files"),
                self.named(root)
            )
        })
    }
}

/// Which of `files` (path, matches) are build output, for the TypeScript and JavaScript
/// grammars (no other language has it); classified by the lsp tools' own rules
/// (`typescript_build_output::WorkspaceBuildOutput`).
fn build_output_of<'a>(root: &Path, language: SupportLang, files: impl Iterator<Item = (&'a Path, usize)>) -> BuildOutputMatches {
    let mut found = Vec::new();
    if matches!(language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
        let mut classifier: Option<crate::lsp::typescript_build_output::WorkspaceBuildOutput> = None;
        for (path, count) in files {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            if !crate::lsp::typescript_build_output::is_declaration_file_name(name)
                && !crate::lsp::typescript_build_output::is_javascript_file_name(name)
            {
                continue;
            }
            let classifier = classifier.get_or_insert_with(|| crate::lsp::typescript_build_output::WorkspaceBuildOutput::new(root));
            if let Some(reason) = classifier.reason(path) {
                found.push((path.to_path_buf(), count, reason.describe(&|path| display_path(root, path))));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    BuildOutputMatches { files: found }
}

/// The refusal (or, with `allow_precedence_changes`, the WARNING) of an `ast_edit` whose
/// substituted captures are no longer one node (`precedence`).
struct PrecedenceReport {
    /// `the rewrite would change what the code means in N places …`.
    summary: String,
    /// One line per place (at most 20): `path:line: $T = `…` (kind) becomes part of `…` (kind)`.
    places: String,
    /// The rewrite with the offending metavariables parenthesized.
    fixed_rewrite: String,
}

fn describe_changed_groupings(
    root: &Path,
    changed: &[(&FileRewrite, &ChangedGrouping)],
    plan: Option<&SubstitutionPlan>,
    rewrite: &str,
) -> PrecedenceReport {
    let files = {
        let mut paths: Vec<&Path> = changed.iter().map(|(r, _)| r.path.as_path()).collect();
        paths.dedup();
        paths.len()
    };
    let names = {
        let mut names: Vec<String> = changed.iter().map(|(_, c)| format!("${}", c.substitution.name)).collect();
        names.sort();
        names.dedup();
        names.join(", ")
    };
    let summary = format!(
        "the rewrite would change what the code means in {} {} ({files} {}): the code {names} captured is no longer one node where the rewrite puts it — the grammar's operator precedence joins it with the rewrite's own text, and the result still parses",
        changed.len(),
        one_or_many(changed.len(), "place", "places"),
        one_or_many(files, "file", "files"),
    );
    let mut places = String::new();
    for (rewrite, grouping) in changed.iter().take(20) {
        let substitution = &grouping.substitution;
        let _ = writeln!(
            places,
            "  {}:{}: ${} = `{}` ({}) becomes part of `{}` ({})",
            display_path(root, &rewrite.path),
            substitution.line,
            substitution.name,
            cut_code(&one_line(&substitution.captured), 1, 120),
            substitution.kind,
            cut_code(&one_line(&grouping.became_text), 1, 160),
            grouping.became_kind
        );
    }
    if changed.len() > 20 {
        let _ = writeln!(places, "  showing 20 of {} places", changed.len());
    }
    let fixed: Vec<ChangedGrouping> = changed.iter().map(|(_, c)| (*c).clone()).collect();
    PrecedenceReport {
        summary,
        places: places.trim_end().to_owned(),
        fixed_rewrite: plan.map_or_else(|| rewrite.to_owned(), |plan| plan.parenthesized(&fixed)),
    }
}

/// Each broken file with its new parse problems and the replacement held responsible.
fn describe_parse_problems(root: &Path, broken: &[&FileRewrite], max_lines: usize) -> String {
    let mut text = String::new();
    let mut lines = 0;
    let total: usize = broken.iter().map(|r| r.parse_problems.len()).sum();
    for rewrite in broken {
        let display = display_path(root, &rewrite.path);
        for problem in &rewrite.parse_problems {
            if lines >= max_lines {
                break;
            }
            lines += 1;
            let _ = write!(text, "  {display}:{}: {}", problem.line, problem.what);
            if let Some((line, old, new)) = &problem.replacement {
                let _ = write!(text, ", after the replacement at line {line}: `{}` → `{}`", cut_code(old, 3, 120), cut_code(new, 3, 120));
            }
            text.push('\n');
        }
    }
    if lines < total {
        let _ = writeln!(text, "  showing {lines} of {total} new parse errors");
    }
    text
}

/// The template, and the metavariables it uses, sorted.
fn validate_template(rewrite: &str, query: &Query) -> Result<(TemplateFix, Vec<String>), ToolError> {
    let template = match query {
        Query::Rule(rule) if !rule.transform_variables.is_empty() => {
            TemplateFix::with_transform(rewrite, &query.language(), &rule.transform_variables)
        }
        _ => match TemplateFix::try_new(rewrite, &query.language()) {
            Ok(template) => template,
            Err(err) => match err {},
        },
    };
    let mut used: Vec<String> = template.used_vars().into_iter().map(str::to_owned).collect();
    used.sort();
    used.dedup();
    let defined = query.metavariables();
    let undefined: Vec<&String> = used.iter().filter(|name| !defined.iter().any(|m| m == *name)).collect();
    if !undefined.is_empty() {
        let defined_text =
            if defined.is_empty() { "none".to_owned() } else { defined.iter().map(|m| format!("${m}")).collect::<Vec<_>>().join(", ") };
        return Err(ToolError::invalid(format!(
            "the rewrite uses {} that the {} {} does not bind",
            undefined.iter().map(|n| format!("${n}")).collect::<Vec<_>>().join(", "),
            if matches!(query, Query::Pattern(_)) { "pattern" } else { "rule" },
            query.display()
        ))
        .with_hint(format!("use only metavariables it defines ({defined_text}), or add them to it")));
    }
    if query.language().expando_char() != '$' && rewrite.contains(query.language().expando_char()) {
        return Err(ToolError::invalid("the rewrite contains the internal metavariable character; write metavariables with `$`"));
    }
    Ok((template, used))
}

/// Cuts `code` to `max_lines` lines and `max_chars` characters, saying what was left out.
fn cut_code(code: &str, max_lines: usize, max_chars: usize) -> String {
    let total_lines = code.lines().count().max(1);
    let mut out = String::new();
    let mut cut = false;
    for (index, line) in code.lines().enumerate() {
        if index >= max_lines {
            cut = true;
            break;
        }
        if index > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    if out.chars().count() > max_chars {
        out = out.chars().take(max_chars).collect();
        cut = true;
    }
    if cut {
        let shown_lines = out.lines().count().max(1);
        let detail = format!("showing {shown_lines} of {total_lines} lines, {} characters", out.chars().count());
        out.push(' ');
        out.push_str(&cut_marker(&detail));
    }
    out
}

/// `code` on one line: each run of whitespace (line breaks included) as one space.
fn one_line(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn indent_continuation(text: &str, indent: &str) -> String {
    text.replace('\n', &format!("\n{indent}"))
}

/// Character columns (0-based) of positions visited in increasing byte order, in time linear in
/// the bytes crossed. ast-grep's `Position::column` rescans the line from its start for every
/// match, which is quadratic on a minified one-line file with thousands of matches.
#[derive(Default)]
struct CharColumnCursor {
    /// `(line, byte offset, char column)` of the last position, if any.
    last: Option<(usize, usize, usize)>,
}

impl CharColumnCursor {
    /// The char column of the position on 0-based `line` at `byte_column` (bytes from the line
    /// start) and absolute `byte_offset` in `source`.
    fn char_column(&mut self, source: &str, (line, byte_column): (usize, usize), byte_offset: usize) -> usize {
        let column = match self.last {
            Some((last_line, last_offset, last_column)) if last_line == line && last_offset <= byte_offset => {
                last_column + source.get(last_offset..byte_offset).map_or(0, |crossed| crossed.chars().count())
            }
            _ => source.get(byte_offset.saturating_sub(byte_column)..byte_offset).map_or(byte_column, |prefix| prefix.chars().count()),
        };
        self.last = Some((line, byte_offset, column));
        column
    }
}
