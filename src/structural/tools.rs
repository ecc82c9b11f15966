//! The tool functions `ast_grep`, `ast_edit` and `resolve`, their descriptors, and the text
//! they answer with.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ast_grep_core::meta_var::MetaVarEnv;
use ast_grep_core::replacer::TemplateFix;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Language, NodeMatch};
use ast_grep_language::SupportLang;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::files::{commit_file_changes_in, resolve_in_workspace, ExpectedState, FileChange};
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolOutput};
use crate::render::{cut_marker, display_path, one_or_many, truncation_notice};
use crate::result::ToolResult;
use crate::structural::compile::{compile_pattern_in_context, language_id, CompiledPattern};
use crate::structural::contexts::ContextKind;
use crate::structural::search::{walk_and_match, ParsedFile, WalkLimits, WalkStats};
use crate::structural::staged::{ClosedEdit, EditOrigin, StagedEdit, StagedFile};
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
    /// source text from its first to its last node (empty when it matched no node).
    pub bindings: Vec<(String, String)>,
}

/// Matches `compiled` against one source text (no file system): every match, in source order,
/// nested matches included. Used by benchmarks and tests.
///
/// # Errors
/// The parser's message when tree-sitter fails (e.g. its internal timeout).
pub fn match_source(compiled: &CompiledPattern, source: &str) -> Result<Vec<StructuralMatch>, String> {
    let parsed = ParsedFile::try_new(source, compiled.language)?;
    Ok(collect_matches(Path::new(""), &parsed, compiled))
}

pub(crate) fn register(registry: &mut Registry) {
    registry.register(ast_grep_descriptor(), Arc::new(ast_grep));
    registry.register(ast_edit_descriptor(), Arc::new(ast_edit));
    registry.register(resolve_descriptor(), Arc::new(resolve));
}

fn ast_grep_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "ast_grep".to_owned(),
        description: format!(
            "Find code by its syntax-tree shape, not its text (tree-sitter + ast-grep). The pattern is a code fragment of the \
target language with metavariables: `$NAME` matches any one node, `$$$NAME` a run of sibling nodes (arguments, \
statements), `$_` any node without binding. A metavariable used twice must match the same code both times. Strings \
and comments never match, and spacing or line breaks do not matter. The fragment is parsed as a statement, then \
an expression, a class member, a top-level declaration; the result says which one it compiled to, and an \
unparseable pattern is an error listing each context tried.\n\
Examples:\n\
- {{\"pattern\": \"if ($X != null) $X.dispose()\", \"language\": \"dart\"}}: a null-guard that disposes the object it checked\n\
- {{\"pattern\": \"$X.unwrap()\", \"path\": \"src\", \"language\": \"rust\"}}\n\
- {{\"pattern\": \"def $F($$$ARGS): $$$BODY\", \"language\": \"python\"}}\n\
- {{\"pattern\": \"$A == $A\", \"language\": \"typescript\"}}: comparisons of a thing with itself\n\
Returns `path:line` (1-based), the matched code and the bindings, sorted by path and position; at most \
`max_results` (default 50), saying \"showing N of M matches in K files\" when capped. Notes: Rust macro arguments \
(`assert!(…)`, `vec![…]`) are token trees, not code, to the parser, so they do not match. Language ids: {}.",
            supported_language_ids().join(", ")
        ),
        tier: Tier::Read,
        input_schema: json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1, "description": "Code fragment with $METAVARIABLES, e.g. `$X.unwrap()`."},
                "path": {"type": "string", "description": "File or directory to search, relative to the workspace (default: the whole workspace)."},
                "language": {"type": "string", "description": "Grammar id or alias (dart, python/py, rust/rs, c, cpp, go, java, javascript/js, typescript/ts, tsx, kotlin, swift, ruby, php, bash, …). Inferred from the extension when path names one file; required for a directory."},
                "context": {"type": "string", "enum": ["statement", "expression", "class_member", "declaration"], "description": "Parse the pattern only in this context (default: try statement, expression, class_member, declaration in order and take the first that parses cleanly). Use it when the result says the pattern compiled to an unintended node kind."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 100000, "description": "Most matches returned (default 50). The total is always counted."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        parallel_safe: true,
        default_timeout: Duration::from_secs(120),
    }
}

fn ast_edit_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "ast_edit".to_owned(),
        description: "Rewrite code by syntax-tree shape across files, staged first: matches `pattern` exactly as ast_grep \
does and substitutes the metavariables into `rewrite` (every `$NAME`/`$$$NAME` of the rewrite must occur in the pattern). \
Nothing is written: the answer is a proposal with an edit_id and a unified-diff preview; call `resolve` with that \
edit_id and action \"accept\" to write all files at once (refused if any file changed since staging), or \"discard\". \
Where matches nest or overlap, the outermost is rewritten and the result says how many inner ones were skipped (run \
again after accepting to rewrite them). The rewrite replaces the matched code only: a `;` after the match is kept, so \
do not end the rewrite with `;` when the pattern has none.\n\
Example: {\"pattern\": \"dispose($X)\", \"rewrite\": \"$X.dispose()\", \"language\": \"dart\"} → \
`(proposed) 12 replacements in 4 files … call resolve with edit_id \"edit_1\"`."
            .to_owned(),
        tier: Tier::Write,
        input_schema: json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "minLength": 1, "description": "Code fragment with $METAVARIABLES, as for ast_grep."},
                "rewrite": {"type": "string", "description": "Replacement code; $NAME and $$$NAME are replaced by what they matched."},
                "path": {"type": "string", "description": "File or directory, relative to the workspace (default: the whole workspace)."},
                "language": {"type": "string", "description": "Grammar id or alias; inferred when path names one file."},
                "context": {"type": "string", "enum": ["statement", "expression", "class_member", "declaration"], "description": "Parse the pattern only in this context (default: try statement, expression, class_member, declaration in order and take the first that parses cleanly). Use it when the result says the pattern compiled to an unintended node kind."}
            },
            "required": ["pattern", "rewrite"],
            "additionalProperties": false
        }),
        parallel_safe: true,
        default_timeout: Duration::from_secs(120),
    }
}

fn resolve_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "resolve".to_owned(),
        description: "Accept or discard a change staged by ast_edit. `accept` re-reads every file of the change and \
compares it with what was read at staging time: if any file changed, the whole change is rejected, the changed files \
are listed and nothing is written; otherwise every file is written atomically (all or nothing). `discard` drops the \
change. An edit_id can be resolved once.\n\
Example: {\"edit_id\": \"edit_1\", \"action\": \"accept\"}"
            .to_owned(),
        tier: Tier::Write,
        input_schema: json!({
            "type": "object",
            "properties": {
                "edit_id": {"type": "string", "minLength": 1, "description": "The id ast_edit returned, e.g. \"edit_1\"."},
                "action": {"type": "string", "enum": ["accept", "discard"], "description": "accept writes the change; discard drops it."}
            },
            "required": ["edit_id", "action"],
            "additionalProperties": false
        }),
        parallel_safe: true,
        default_timeout: Duration::from_secs(60),
    }
}

#[derive(Deserialize)]
struct AstGrepArgs {
    pattern: String,
    path: Option<String>,
    language: Option<String>,
    max_results: Option<usize>,
    context: Option<ContextKind>,
}

#[derive(Deserialize)]
struct AstEditArgs {
    pattern: String,
    rewrite: String,
    path: Option<String>,
    language: Option<String>,
    context: Option<ContextKind>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ResolveAction {
    Accept,
    Discard,
}

#[derive(Deserialize)]
struct ResolveArgs {
    edit_id: String,
    action: ResolveAction,
}

/// What a search call works on: the resolved target, the language, the compiled pattern.
struct SearchSetup {
    target: PathBuf,
    target_display: String,
    compiled: CompiledPattern,
}

fn setup(
    root: &Path,
    pattern: &str,
    path: Option<&str>,
    language: Option<&str>,
    context: Option<ContextKind>,
) -> Result<SearchSetup, ToolError> {
    let user_path = path.filter(|p| !p.trim().is_empty()).unwrap_or(".");
    let target = resolve_in_workspace(root, user_path)?;
    let target_display = display_path(root, &target);
    let metadata = std::fs::metadata(&target).map_err(|err| {
        ToolError::new(ErrorKind::NotFound, format!("path {user_path:?} ({target_display}) cannot be searched: {err}"))
            .with_hint("pass an existing file or directory relative to the workspace root, or omit path to search the whole workspace")
    })?;
    let language = match language {
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
    let compiled = compile_pattern_in_context(pattern, language, context).map_err(|err| err.to_tool_error())?;
    Ok(SearchSetup { target, target_display, compiled })
}

fn walk_limits(ctx: &CallContext<'_>, config: &StructuralConfig) -> WalkLimits {
    WalkLimits {
        threads: config.walk_threads,
        max_file_bytes: config.max_file_bytes,
        max_file_lines: config.max_file_lines,
        deadline: ctx.deadline(),
        cancel: ctx.cancel_token().clone(),
        use_literal_prefilter: true,
    }
}

fn check_walk_finished(ctx: &CallContext<'_>, stats: &WalkStats, found: usize) -> Result<(), ToolError> {
    let progress = format!("after {} files ({found} matches so far)", stats.files_visited);
    if stats.cancelled {
        return Err(ToolError::new(ErrorKind::Cancelled, format!("{} was cancelled by the host {progress}", ctx.descriptor().name)));
    }
    if stats.timed_out {
        return Err(ctx
            .timeout_error(&format!("walking the tree, {progress}"))
            .with_hint("narrow path to a subdirectory, or give the pattern a distinctive identifier so fewer files are parsed"));
    }
    Ok(())
}

fn ast_grep(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let resource = ctx.resource::<StructuralResource>()?;
    let args: AstGrepArgs = ctx.parse_arguments(arguments)?;
    let root = ctx.workspace_root();
    let config = resource.config();
    let setup = setup(root, &args.pattern, args.path.as_deref(), args.language.as_deref(), args.context)?;
    let max_results = args.max_results.unwrap_or(config.default_max_results).max(1);
    let compiled = &setup.compiled;
    let (mut files, stats) = walk_and_match(&setup.target, compiled, &walk_limits(ctx, config), &|path, parsed| {
        FileMatches::extract(path, parsed, compiled, config)
    });
    let total: usize = files.iter().map(|file| file.matches.len()).sum();
    check_walk_finished(ctx, &stats, total)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let files_with_matches = files.len();
    let lang = language_id(compiled.language);

    let mut text = String::new();
    let _ = write!(
        text,
        "{total} {} in {files_with_matches} {} for `{}` ({lang}; pattern compiled as {})",
        one_or_many(total, "match", "matches"),
        one_or_many(files_with_matches, "file", "files"),
        compiled.source,
        compiled.compiled_as()
    );
    for warning in &compiled.warnings {
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
            let mut bindings = serde_json::Map::new();
            for (name, value) in compiled.metavariables.iter().zip(file.bindings(found)) {
                let _ = write!(text, "\n    ${name} = {}", indent_continuation(value, "      "));
                bindings.insert(name.clone(), Value::String(value.to_owned()));
            }
            structured_matches.push(json!({
                "path": display,
                "line": found.start_line,
                "column": found.start_column,
                "end_line": found.end_line,
                "text": code,
                "bindings": bindings,
            }));
        }
    }
    drop(files);
    if let Some(notice) = truncation_notice(shown, total, &format!("matches in {files_with_matches} files")) {
        let _ = write!(text, "\n{notice}; raise max_results or narrow path to see more");
    }
    let _ = write!(text, "\n{}", describe_stats(&stats, lang, &setup.target_display, compiled));
    if total == 0 {
        let _ = write!(text, "\nhint: {}", zero_match_hint(&stats, compiled));
    }
    let structured = json!({
        "pattern": compiled.source,
        "language": lang,
        "compiled_as": {"context": compiled.context, "node_kind": compiled.node_kind, "with_terminator": compiled.with_terminator},
        "total_matches": total,
        "files_with_matches": files_with_matches,
        "shown": shown,
        "truncated": shown < total,
        "matches": structured_matches,
        "warnings": compiled.warnings,
        "stats": stats_json(&stats),
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)))
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
    /// each binding in the order of `CompiledPattern::metavariables`.
    pieces: Vec<std::ops::Range<u32>>,
    /// `1 + metavariable_count`.
    pieces_per_match: usize,
    matches: Vec<CompactMatch>,
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
    /// Every match in `parsed`, sorted by position (start ascending, the enclosing match
    /// first), or `None` when there is none.
    fn extract(path: &Path, parsed: &ParsedFile, compiled: &CompiledPattern, config: &StructuralConfig) -> Option<FileMatches> {
        let source = parsed.source();
        let mut found_all: Vec<_> = parsed.root().find_all(&compiled.pattern).collect();
        if found_all.is_empty() {
            return None;
        }
        found_all.sort_by(|a, b| {
            let (a, b) = (a.range(), b.range());
            a.start.cmp(&b.start).then(b.end.cmp(&a.end))
        });
        let pieces_per_match = 1 + compiled.metavariables.len();
        let mut file = FileMatches {
            path: path.to_path_buf(),
            snippets: String::new(),
            pieces: Vec::with_capacity(found_all.len() * pieces_per_match),
            pieces_per_match,
            matches: Vec::with_capacity(found_all.len()),
        };
        let mut columns = CharColumnCursor::default();
        for found in &found_all {
            let first_piece = file.pieces.len();
            let code = cut_code(&source[found.range()], config.max_match_lines, config.max_match_chars);
            file.push_piece(&code);
            let env = found.get_env();
            for name in &compiled.metavariables {
                let value = binding_text(env, name, source);
                file.push_piece(&cut_code(value, 3, 200));
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

    fn push_piece(&mut self, piece: &str) {
        let start = self.snippets.len();
        self.snippets.push_str(piece);
        // A file's snippets are cut copies of a file of at most a few MB, far below 4 GiB.
        self.pieces.push(start as u32..self.snippets.len() as u32);
    }

    fn piece(&self, index: usize) -> &str {
        let range = &self.pieces[index];
        &self.snippets[range.start as usize..range.end as usize]
    }

    fn code(&self, found: &CompactMatch) -> &str {
        self.piece(found.first_piece)
    }

    fn bindings<'a>(&'a self, found: &CompactMatch) -> impl Iterator<Item = &'a str> + 'a {
        let start = found.first_piece + 1;
        let end = found.first_piece + self.pieces_per_match;
        (start..end).map(move |index| self.piece(index))
    }
}

/// Every match of `compiled` in one parsed file, in source order (nested matches included).
fn collect_matches(path: &Path, parsed: &ParsedFile, compiled: &CompiledPattern) -> Vec<StructuralMatch> {
    let source = parsed.source();
    let mut columns = CharColumnCursor::default();
    parsed
        .root()
        .find_all(&compiled.pattern)
        .map(|found| {
            let range = found.range();
            StructuralMatch {
                path: path.to_path_buf(),
                start_line: found.start_pos().line() + 1,
                start_column: columns.char_column(source, found.start_pos().byte_point(), range.start) + 1,
                end_line: found.end_pos().line() + 1,
                text: source[range.clone()].to_owned(),
                bindings: bindings(&found, compiled, source),
                byte_range: range,
            }
        })
        .collect()
}

fn bindings(found: &NodeMatch<'_, StrDoc<SupportLang>>, compiled: &CompiledPattern, source: &str) -> Vec<(String, String)> {
    let env = found.get_env();
    compiled.metavariables.iter().map(|name| (name.clone(), binding_text(env, name, source).to_owned())).collect()
}

/// The code bound to metavariable `name`: one node's text, or for a `$$$` binding the source
/// from its first to its last node (empty when it matched no node).
fn binding_text<'s>(env: &MetaVarEnv<'_, StrDoc<SupportLang>>, name: &str, source: &'s str) -> &'s str {
    if let Some(node) = env.get_match(name) {
        return &source[node.range()];
    }
    let nodes = env.get_multiple_matches(name);
    match (nodes.first(), nodes.last()) {
        (Some(first), Some(last)) => &source[first.range().start..last.range().end],
        _ => "",
    }
}

fn describe_stats(stats: &WalkStats, lang: &str, target: &str, compiled: &CompiledPattern) -> String {
    let mut text = format!("searched {} {lang} {} under {target}", stats.files_visited, one_or_many(stats.files_visited, "file", "files"));
    if !compiled.literals.is_empty() {
        let _ = write!(
            text,
            "; {} contained the pattern's literal text ({}) and were parsed",
            stats.files_with_literals,
            compiled.literals.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
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
    text
}

fn stats_json(stats: &WalkStats) -> Value {
    json!({
        "files_visited": stats.files_visited,
        "files_with_literals": stats.files_with_literals,
        "files_parsed": stats.files_parsed,
        "files_not_utf8": stats.files_not_utf8,
        "files_too_large": stats.files_too_large,
        "unreadable": stats.unreadable,
        "unreadable_count": stats.unreadable_count,
    })
}

fn zero_match_hint(stats: &WalkStats, compiled: &CompiledPattern) -> String {
    let lang = language_id(compiled.language);
    if stats.files_visited == 0 {
        return format!("no {lang} files were found there (hidden and .gitignored files are skipped); check path and language");
    }
    if !compiled.literals.is_empty() && stats.files_with_literals > 0 {
        let macro_note = match compiled.language {
            SupportLang::Rust => " Rust macro arguments (`assert_eq!(…)`, `vec![…]`, `println!(…)`) are token trees the parser does not read as expressions, so code inside them never matches.",
            SupportLang::C | SupportLang::Cpp => " Code inside preprocessor macros and disabled `#if` branches is not parsed as code.",
            _ => "",
        };
        return format!(
            "{} {lang} {} contain the pattern's literal text but no code of the pattern's shape ({}): the text may occur only in comments or strings, or the code has another shape.{macro_note} Try a looser pattern (replace parts with `$X` or `$$$`), or search the text with grep.",
            stats.files_with_literals,
            one_or_many(stats.files_with_literals, "file does", "files do"),
            compiled.compiled_as()
        );
    }
    format!(
        "no {lang} code has this shape (pattern compiled as {}); if you expected matches, loosen the pattern with `$X` / `$$$` or check that the fragment is written as it appears in code",
        compiled.compiled_as()
    )
}

struct FileRewrite {
    path: PathBuf,
    original: Vec<u8>,
    new_content: Vec<u8>,
    replacements: usize,
    nested_skipped: usize,
}

fn ast_edit(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let resource = ctx.resource::<StructuralResource>()?;
    let args: AstEditArgs = ctx.parse_arguments(arguments)?;
    let root = ctx.workspace_root();
    let config = resource.config();
    let setup = setup(root, &args.pattern, args.path.as_deref(), args.language.as_deref(), args.context)?;
    let compiled = &setup.compiled;
    let template = validate_template(&args.rewrite, compiled)?;
    let (mut rewrites, stats) = walk_and_match(&setup.target, compiled, &walk_limits(ctx, config), &|path, parsed| {
        let total = parsed.root().find_all(&compiled.pattern).count();
        if total == 0 {
            return None;
        }
        let edits = parsed.root().replace_all(&compiled.pattern, &template);
        let original = parsed.source().as_bytes();
        let mut new_content = original.to_vec();
        for edit in edits.iter().rev() {
            new_content.splice(edit.position..edit.position + edit.deleted_length, edit.inserted_text.iter().copied());
        }
        Some(FileRewrite {
            path: path.to_path_buf(),
            original: original.to_vec(),
            new_content,
            replacements: edits.len(),
            nested_skipped: total.saturating_sub(edits.len()),
        })
    });
    check_walk_finished(ctx, &stats, rewrites.len())?;
    rewrites.sort_by(|a, b| a.path.cmp(&b.path));
    let lang = language_id(compiled.language);
    let replacements: usize = rewrites.iter().map(|r| r.replacements).sum();
    let nested_skipped: usize = rewrites.iter().map(|r| r.nested_skipped).sum();
    let unchanged_files = rewrites.iter().filter(|r| r.new_content == r.original).count();
    rewrites.retain(|r| r.new_content != r.original);
    let changed_replacements: usize = rewrites.iter().map(|r| r.replacements).sum();

    if rewrites.is_empty() {
        let mut text = if replacements == 0 {
            format!(
                "0 replacements for `{}` ({lang}; pattern compiled as {}): nothing staged, no edit_id",
                compiled.source,
                compiled.compiled_as()
            )
        } else {
            format!(
                "{replacements} matches for `{}` but the rewrite leaves all {unchanged_files} files byte-identical: nothing staged, no edit_id",
                compiled.source
            )
        };
        for warning in &compiled.warnings {
            let _ = write!(text, "\nwarning: {warning}");
        }
        let _ = write!(text, "\n{}", describe_stats(&stats, lang, &setup.target_display, compiled));
        if replacements == 0 {
            let _ = write!(text, "\nhint: {}", zero_match_hint(&stats, compiled));
        }
        let structured = json!({"edit_id": Value::Null, "replacements": 0, "files": 0, "stats": stats_json(&stats)});
        return Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)));
    }

    let preview = render_preview(root, &rewrites, config.max_preview_hunks);
    let files: Vec<StagedFile> = rewrites
        .into_iter()
        .map(|r| StagedFile {
            display: display_path(root, &r.path),
            path: r.path,
            original: Some(r.original),
            new_content: Some(r.new_content),
            replacements: r.replacements,
        })
        .collect();
    let file_summaries: Vec<Value> = files.iter().map(|f| json!({"path": f.display, "replacements": f.replacements})).collect();
    let file_count = files.len();
    let origin = EditOrigin::Rewrite { pattern: compiled.source.clone(), rewrite: args.rewrite.clone(), language: lang };
    let staged = StagedEdit { origin, files };
    let (edit_id, evicted) = resource.staged_edits.stage(staged, config.max_pending_edits);

    let mut text = format!(
        "(proposed) {changed_replacements} {} in {file_count} {} for `{}` → `{}` ({lang}; pattern compiled as {}). Nothing was written: call resolve with edit_id \"{edit_id}\" and action \"accept\" to write it, or \"discard\" to drop it.",
        one_or_many(changed_replacements, "replacement", "replacements"),
        one_or_many(file_count, "file", "files"),
        compiled.source,
        args.rewrite,
        compiled.compiled_as()
    );
    if nested_skipped > 0 {
        let _ = write!(
            text,
            "\n{nested_skipped} nested {} inside other matches {} skipped (the outermost match wins); run ast_edit again after accepting to rewrite them",
            one_or_many(nested_skipped, "match", "matches"),
            one_or_many(nested_skipped, "was", "were")
        );
    }
    if unchanged_files > 0 {
        let _ = write!(text, "\n{unchanged_files} files matched but the rewrite left them unchanged; they are not part of the edit");
    }
    if !evicted.is_empty() {
        let _ = write!(text, "\nolder pending edits dropped to stay within {} pending: {}", config.max_pending_edits, evicted.join(", "));
    }
    for warning in &compiled.warnings {
        let _ = write!(text, "\nwarning: {warning}");
    }
    let _ = write!(text, "\n{}", preview.text);
    let structured = json!({
        "edit_id": edit_id,
        "replacements": changed_replacements,
        "files": file_summaries,
        "nested_skipped": nested_skipped,
        "compiled_as": {"context": compiled.context, "node_kind": compiled.node_kind, "with_terminator": compiled.with_terminator},
        "preview_hunks_shown": preview.shown,
        "preview_hunks_total": preview.total,
        "warnings": compiled.warnings,
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)))
}

fn validate_template(rewrite: &str, compiled: &CompiledPattern) -> Result<TemplateFix, ToolError> {
    let template = match TemplateFix::try_new(rewrite, &compiled.language) {
        Ok(template) => template,
        Err(err) => match err {},
    };
    let mut undefined: Vec<&str> =
        template.used_vars().into_iter().filter(|name| !compiled.metavariables.iter().any(|m| m == name)).collect();
    undefined.sort_unstable();
    if !undefined.is_empty() {
        let defined = if compiled.metavariables.is_empty() {
            "none".to_owned()
        } else {
            compiled.metavariables.iter().map(|m| format!("${m}")).collect::<Vec<_>>().join(", ")
        };
        return Err(ToolError::invalid(format!(
            "the rewrite uses {} that the pattern `{}` does not bind",
            undefined.iter().map(|n| format!("${n}")).collect::<Vec<_>>().join(", "),
            compiled.source
        ))
        .with_hint(format!("use only metavariables the pattern defines ({defined}), or add them to the pattern")));
    }
    Ok(template)
}

struct Preview {
    text: String,
    shown: usize,
    total: usize,
}

fn render_preview(root: &Path, rewrites: &[FileRewrite], max_hunks: usize) -> Preview {
    let entries: Vec<PreviewFile<'_>> = rewrites
        .iter()
        .map(|rewrite| PreviewFile {
            display: display_path(root, &rewrite.path),
            original: Some(&rewrite.original),
            new_content: Some(&rewrite.new_content),
        })
        .collect();
    render_file_previews(&entries, max_hunks)
}

/// One file of a preview: `original: None` = created, `new_content: None` = deleted.
pub(crate) struct PreviewFile<'a> {
    pub(crate) display: String,
    pub(crate) original: Option<&'a [u8]>,
    pub(crate) new_content: Option<&'a [u8]>,
}

/// A unified diff (2 lines of context) of `files`, at most `max_hunks` hunks, the cut said.
fn render_file_previews(files: &[PreviewFile<'_>], max_hunks: usize) -> Preview {
    let mut text = String::new();
    let mut shown = 0;
    let mut total = 0;
    for file in files {
        let old = String::from_utf8_lossy(file.original.unwrap_or_default());
        let new = String::from_utf8_lossy(file.new_content.unwrap_or_default());
        let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
        let display = &file.display;
        let old_header = if file.original.is_some() { format!("a/{display}") } else { "/dev/null".to_owned() };
        let new_header = if file.new_content.is_some() { format!("b/{display}") } else { "/dev/null".to_owned() };
        let mut unified = diff.unified_diff();
        unified.context_radius(2);
        let mut header_written = false;
        let mut file_hunks = 0;
        for hunk in unified.iter_hunks() {
            total += 1;
            file_hunks += 1;
            if shown >= max_hunks {
                continue;
            }
            if !header_written {
                let _ = write!(text, "--- {old_header}\n+++ {new_header}\n");
                header_written = true;
            }
            let _ = write!(text, "{hunk}");
            shown += 1;
        }
        if file_hunks == 0 && file.original != file.new_content && shown < max_hunks {
            // Created or deleted empty file, or a change invisible as text (bytes that are not UTF-8).
            let what = match (file.original, file.new_content) {
                (None, _) => "created (empty)",
                (_, None) => "deleted (was empty)",
                _ => "changed (binary or non-UTF-8 bytes; no text diff)",
            };
            let _ = writeln!(text, "--- {old_header}\n+++ {new_header}\n{display}: {what}");
        }
    }
    if let Some(notice) = truncation_notice(shown, total, "hunks") {
        let _ = write!(text, "{notice} (the staged edit contains all of them)");
    }
    Preview { text: text.trim_end().to_owned(), shown, total }
}

impl crate::vibe::ChangeStaging for StructuralResource {
    fn stage(
        &self,
        change: crate::vibe::WorkerChange,
        on_closed: crate::vibe::ClosedHook,
    ) -> Result<crate::vibe::StagedWorkerChange, String> {
        if change.files.is_empty() {
            return Err(format!("{}: no file changed; nothing to stage", change.description));
        }
        let config = self.config();
        let previews: Vec<PreviewFile<'_>> = change
            .files
            .iter()
            .map(|file| PreviewFile {
                display: file.display.clone(),
                original: file.original.as_deref(),
                new_content: file.new_content.as_deref(),
            })
            .collect();
        let preview = render_file_previews(&previews, config.max_preview_hunks).text;
        let files: Vec<StagedFile> = change
            .files
            .into_iter()
            .map(|file| StagedFile {
                replacements: file.lines_added + file.lines_removed,
                path: file.path,
                display: file.display,
                original: file.original,
                new_content: file.new_content,
            })
            .collect();
        let edit = StagedEdit { origin: EditOrigin::Worker { description: change.description, warnings: change.warnings }, files };
        let (edit_id, evicted) = self.staged_edits.stage_with_hook(edit, config.max_pending_edits, Some(on_closed));
        Ok(crate::vibe::StagedWorkerChange { edit_id, preview, evicted })
    }

    fn withdraw(&self, edit_id: &str, reason: &str) -> bool {
        self.staged_edits.withdraw(edit_id, reason)
    }
}

/// Whether the file at `path` is still what a staged edit started from: `None` when it is, else
/// what changed. `original: None` means the edit creates the file, so it must still be absent.
fn staged_state(workspace_root: &Path, path: &Path, original: Option<&[u8]>) -> Option<String> {
    match original {
        Some(original) => crate::files::staged_file_state(workspace_root, path, original),
        None => match std::fs::symlink_metadata(path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Ok(_) => Some("created since staging (the edit creates it)".to_owned()),
            Err(err) => Some(format!("unreadable now ({err})")),
        },
    }
}

fn resolve(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let resource = ctx.resource::<StructuralResource>()?;
    let args: ResolveArgs = ctx.parse_arguments(arguments)?;
    let id = args.edit_id.trim().to_owned();
    let staged = resource.staged_edits.take(&id)?;
    let replacements: usize = staged.files.iter().map(|f| f.replacements).sum();
    let (summary, warnings, restage_hint) = match &staged.origin {
        EditOrigin::Rewrite { pattern, rewrite, language } => (
            format!(
                "{replacements} {} of `{pattern}` → `{rewrite}` ({language}) in {} {}",
                one_or_many(replacements, "replacement", "replacements"),
                staged.files.len(),
                one_or_many(staged.files.len(), "file", "files")
            ),
            Vec::new(),
            "run ast_edit again to stage the change against the current files, then resolve the new edit_id",
        ),
        EditOrigin::Worker { description, warnings } => (
            format!("the change of {description} ({} {})", staged.files.len(), one_or_many(staged.files.len(), "file", "files")),
            warnings.clone(),
            "the worker's change was staged against older files: vibe_send the worker to redo it on the current files, or \
             make the change yourself",
        ),
    };
    if matches!(args.action, ResolveAction::Discard) {
        resource.staged_edits.close(&id, ClosedEdit::Discarded);
        return Ok(ToolOutput::text(format!("discarded {id}: {summary} dropped; nothing was written")));
    }
    let mut changed: Vec<Value> = Vec::new();
    for file in &staged.files {
        // Read beneath the workspace with no symlink followed; a file made read-only since
        // staging is a conflict like a changed one.
        if let Some(state) = staged_state(ctx.workspace_root(), &file.path, file.original.as_deref()) {
            changed.push(json!({"path": file.display, "state": state}));
        }
    }
    if !changed.is_empty() {
        resource.staged_edits.close(&id, ClosedEdit::Rejected);
        let list: Vec<String> =
            changed.iter().map(|c| format!("{} ({})", c["path"].as_str().unwrap_or(""), c["state"].as_str().unwrap_or(""))).collect();
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "{id} rejected: {} of its {} files changed after it was staged: {}; nothing was written",
                changed.len(),
                staged.files.len(),
                list.join(", ")
            ),
        )
        .with_hint(restage_hint)
        .with_details(json!({"changed_files": changed})));
    }
    let changes: Vec<FileChange> = staged
        .files
        .iter()
        .map(|f| FileChange {
            path: f.path.clone(),
            new_content: f.new_content.clone(),
            expected: match &f.original {
                Some(original) => ExpectedState::Content(original.clone()),
                None => ExpectedState::Absent,
            },
        })
        .collect();
    match commit_file_changes_in(ctx.workspace_root(), &changes) {
        Ok(written) => {
            resource.staged_edits.close(&id, ClosedEdit::Accepted);
            let names: Vec<&str> = staged.files.iter().map(|f| f.display.as_str()).collect();
            let deleted: Vec<&str> = staged.files.iter().filter(|f| f.new_content.is_none()).map(|f| f.display.as_str()).collect();
            let mut text = format!("accepted {id}: wrote {summary}: {}", names.join(", "));
            if !deleted.is_empty() {
                let _ = write!(text, "\ndeleted: {}", deleted.join(", "));
            }
            for warning in &warnings {
                let _ = write!(text, "\nwarning: {warning}");
            }
            let structured =
                json!({"edit_id": id, "written": names, "deleted": deleted, "replacements": replacements, "warnings": warnings});
            Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)).with_written_paths(written))
        }
        Err(err) => {
            resource.staged_edits.close(&id, ClosedEdit::Rejected);
            let mut err = err;
            err.message = format!("{id} was not applied: {}", err.message);
            if err.hint.is_none() {
                err.hint = Some(restage_hint.to_owned());
            }
            Err(err)
        }
    }
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
