//! `ast_grep` with `syntax_tree`: the tree of a snippet, the way ast-grep's playground and its
//! MCP server's `dump_syntax_tree` show it, so an agent can write `kind:` rules and see why a
//! pattern compiled the way it did.
//!
//! - `cst`: every node, punctuation and keywords included (quoted: `"("`);
//! - `ast`: named nodes only;
//! - `pattern`: the snippet compiled as a pattern (the context it compiled in, the root kind,
//!   metavariables, the texts the pre-filter requires), then the compiled pattern tree.
//!
//! Each line is `field: kind  L:C-L:C` (1-based lines and columns, columns in characters),
//! with the text of leaves; ERROR and MISSING nodes are flagged. At most `max_nodes` lines,
//! and the cut is said.

use std::fmt::Write as _;

use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::{AstGrep, Language, Node};
use ast_grep_language::SupportLang;
use serde::Deserialize;

use crate::error::ToolError;
use crate::structural::compile::{compile_pattern_in_context, language_id};
use crate::structural::contexts::ContextKind;

/// Which tree to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SyntaxTreeFormat {
    /// Every node, including punctuation and keywords.
    Cst,
    /// Named nodes only.
    Ast,
    /// The snippet compiled as a pattern.
    Pattern,
}

/// A rendered tree.
#[derive(Debug, Clone)]
pub struct SyntaxTreeDump {
    /// The text (header, then one line per node).
    pub text: String,
    /// Node lines shown.
    pub nodes_shown: usize,
    /// Node lines in the whole tree.
    pub nodes_total: usize,
    /// ERROR and MISSING nodes in the snippet's parse (0 for `pattern`).
    pub parse_problems: usize,
}

/// Longest text shown for a leaf, in characters.
const MAX_LEAF_CHARS: usize = 60;

/// Renders `code`'s tree in `format`.
///
/// # Errors
/// `invalid_arguments` when the parser fails, or (for `pattern`) when the snippet does not
/// compile as a pattern (the error lists every context tried).
pub fn dump_syntax_tree(
    code: &str,
    language: SupportLang,
    format: SyntaxTreeFormat,
    context: Option<ContextKind>,
    max_nodes: usize,
) -> Result<SyntaxTreeDump, ToolError> {
    match format {
        SyntaxTreeFormat::Cst | SyntaxTreeFormat::Ast => dump_parse(code, language, format == SyntaxTreeFormat::Cst, max_nodes),
        SyntaxTreeFormat::Pattern => dump_pattern(code, language, context, max_nodes),
    }
}

fn dump_parse(code: &str, language: SupportLang, concrete: bool, max_nodes: usize) -> Result<SyntaxTreeDump, ToolError> {
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(code, language)
        .map_err(|err| ToolError::invalid(format!("the {} parser failed on the code: {err}", language_id(language))))?;
    let lines = LineIndex::new(code);
    let mut out = Lines { text: String::new(), shown: 0, total: 0, max: max_nodes };
    let mut problems = 0;
    walk(&root.root(), concrete, &lines, &mut out, &mut problems);
    let mut text = format!(
        "{} syntax tree ({}) of {} {} of {} code{}",
        if concrete { "concrete" } else { "abstract" },
        if concrete { "every node; punctuation and keywords quoted" } else { "named nodes only" },
        code.lines().count().max(1),
        if code.lines().count() == 1 { "line" } else { "lines" },
        language_id(language),
        match problems {
            0 => String::new(),
            n => format!("; the code has {n} parse {} (ERROR/MISSING below)", if n == 1 { "problem" } else { "problems" }),
        }
    );
    text.push_str("; `field: kind L:C-L:C` with 1-based lines and columns\n");
    text.push_str(&out.text);
    if let Some(notice) = crate::render::truncation_notice(out.shown, out.total, "nodes") {
        let _ = write!(text, "\n{notice}; pass a smaller snippet to see the rest");
    }
    Ok(SyntaxTreeDump { text: text.trim_end().to_owned(), nodes_shown: out.shown, nodes_total: out.total, parse_problems: problems })
}

struct Lines {
    text: String,
    shown: usize,
    total: usize,
    max: usize,
}

impl Lines {
    fn push(&mut self, depth: usize, line: &str) {
        self.total += 1;
        if self.shown >= self.max {
            return;
        }
        self.shown += 1;
        for _ in 0..depth {
            self.text.push_str("  ");
        }
        self.text.push_str(line);
        self.text.push('\n');
    }
}

/// Pushes the lines of `root`'s tree in source order, depth first. Iterative (an explicit
/// stack): code nested thousands of levels deep (4,000 nested calls in a 16 KB snippet) must
/// not overflow the call thread's stack, which would abort the whole process, `serve` too.
fn walk(root: &Node<'_, StrDoc<SupportLang>>, concrete: bool, lines: &LineIndex, out: &mut Lines, problems: &mut usize) {
    let mut stack = vec![(root.clone(), None::<String>, 0usize)];
    while let Some((node, field, depth)) = stack.pop() {
        let children = visit(&node, field.as_deref(), depth, concrete, lines, out, problems);
        stack.extend(children.into_iter().rev());
    }
}

/// One node's line (when shown), and its children with their field names and depth.
fn visit<'r>(
    node: &Node<'r, StrDoc<SupportLang>>,
    field: Option<&str>,
    depth: usize,
    concrete: bool,
    lines: &LineIndex,
    out: &mut Lines,
    problems: &mut usize,
) -> Vec<(Node<'r, StrDoc<SupportLang>>, Option<String>, usize)> {
    let shown = concrete || node.is_named() || node.is_missing() || node.is_error();
    let mut line = String::new();
    if shown {
        if let Some(field) = field {
            let _ = write!(line, "{field}: ");
        }
        let range = node.range();
        let (start_line, start_column) = lines.position(range.start);
        let (end_line, end_column) = lines.position(range.end);
        if node.is_missing() {
            *problems += 1;
            let _ =
                write!(line, "MISSING {} {start_line}:{start_column} (the parser inserted it: the code lacks it here)", quote_kind(node));
        } else if node.is_error() {
            *problems += 1;
            let _ = write!(line, "ERROR {start_line}:{start_column}-{end_line}:{end_column} {:?}", cut(&node.text()));
        } else {
            let kind = if node.is_named() { node.kind().into_owned() } else { format!("{:?}", node.kind()) };
            let _ = write!(line, "{kind} {start_line}:{start_column}-{end_line}:{end_column}");
            if node.is_named() && node.children().len() == 0 {
                let _ = write!(line, " {:?}", cut(&node.text()));
            }
            if node.is_extra() {
                line.push_str(" (extra)");
            }
        }
        out.push(depth, &line);
    }
    if node.is_missing() {
        return Vec::new();
    }
    let inner = node.get_inner_node();
    let child_depth = if shown { depth + 1 } else { depth };
    node.children()
        .enumerate()
        .map(|(index, child)| {
            let child_field = u32::try_from(index).ok().and_then(|i| inner.field_name_for_child(i)).map(str::to_owned);
            (child, child_field, child_depth)
        })
        .collect()
}

fn quote_kind(node: &Node<'_, StrDoc<SupportLang>>) -> String {
    if node.is_named() {
        node.kind().into_owned()
    } else {
        format!("{:?}", node.kind())
    }
}

fn cut(text: &str) -> String {
    let mut out: String = text.chars().take(MAX_LEAF_CHARS).collect();
    if text.chars().count() > MAX_LEAF_CHARS {
        out.push('…');
    }
    out
}

fn dump_pattern(code: &str, language: SupportLang, context: Option<ContextKind>, max_nodes: usize) -> Result<SyntaxTreeDump, ToolError> {
    let compiled = compile_pattern_in_context(code, language, context).map_err(|err| err.to_tool_error())?;
    let ts = language.get_ts_language();
    let mut text = format!("pattern `{}` ({}) compiled as {}", compiled.source, language_id(language), compiled.compiled_as());
    if compiled.metavariables.is_empty() {
        text.push_str("\nmetavariables: none");
    } else {
        let _ = write!(text, "\nmetavariables: {}", compiled.metavariables.iter().map(|m| format!("${m}")).collect::<Vec<_>>().join(", "));
    }
    if compiled.requirement.is_empty() {
        text.push_str("\npre-filter: none (every file of the language is parsed)");
    } else {
        let _ = write!(text, "\npre-filter: a file is parsed only if it contains {}", compiled.requirement.describe());
    }
    for warning in &compiled.warnings {
        let _ = write!(text, "\nwarning: {warning}");
    }
    text.push_str("\nmatching compares, in order: kinds (named nodes), exact text (named leaves), `\"…\"` tokens by kind; `$X` binds one node, `$$$X` a run of siblings; trailing punctuation in the code is skipped\n");
    let mut out = Lines { text: String::new(), shown: 0, total: 0, max: max_nodes };
    walk_pattern(&compiled.pattern.node, 0, &ts, language, &mut out);
    for alternative in &compiled.alternatives {
        match &alternative.reading {
            Some((how, shape)) => {
                let _ = writeln!(out.text, "also, {how} → {shape}:");
            }
            None => {
                let _ = writeln!(out.text, "also, as {} context → {}:", alternative.context.as_str(), alternative.node_kind);
            }
        }
        walk_pattern(&alternative.pattern.node, 1, &ts, language, &mut out);
    }
    text.push_str(&out.text);
    if let Some(notice) = crate::render::truncation_notice(out.shown, out.total, "nodes") {
        let _ = write!(text, "\n{notice}; pass a smaller pattern to see the rest");
    }
    Ok(SyntaxTreeDump { text: text.trim_end().to_owned(), nodes_shown: out.shown, nodes_total: out.total, parse_problems: 0 })
}

fn walk_pattern(node: &PatternNode, depth: usize, ts: &tree_sitter::Language, language: SupportLang, out: &mut Lines) {
    match node {
        PatternNode::MetaVar { meta_var } => {
            let line = match meta_var {
                MetaVariable::Capture(name, true) => format!("${name} (metavariable: any one named node)"),
                MetaVariable::Capture(name, false) => format!("$${name} (metavariable: any one node, punctuation too)"),
                MetaVariable::Dropped(_) => "$_ (wildcard: any one node, not bound)".to_owned(),
                MetaVariable::MultiCapture(name) => format!("$$${name} (metavariable: zero or more sibling nodes)"),
                MetaVariable::Multiple => "$$$ (zero or more sibling nodes, not bound)".to_owned(),
            };
            out.push(depth, &line);
        }
        PatternNode::Terminal { text, is_named, kind_id } => {
            let kind = ts.node_kind_for_id(*kind_id).unwrap_or("?");
            let shown = text.replace(language.expando_char(), "$");
            if *is_named {
                out.push(depth, &format!("{kind} {:?} (text must be equal)", cut(&shown)));
            } else {
                out.push(depth, &format!("{:?}", cut(&shown)));
            }
        }
        PatternNode::Internal { kind_id, children } => {
            let kind = if *kind_id == u16::MAX { "ERROR" } else { ts.node_kind_for_id(*kind_id).unwrap_or("?") };
            out.push(depth, kind);
            for child in children {
                walk_pattern(child, depth + 1, ts, language, out);
            }
        }
    }
}

/// Byte offset → 1-based (line, character column).
struct LineIndex<'a> {
    source: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(source: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1));
        LineIndex { source, starts }
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&start| start <= offset).saturating_sub(1);
        let start = self.starts[line];
        let column = self.source.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, column + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cst_and_ast_of_rust() {
        let dump = dump_syntax_tree("fn main() { let a = 1; }", SupportLang::Rust, SyntaxTreeFormat::Cst, None, 100).unwrap();
        assert!(dump.text.contains("function_item 1:1-1:25"), "{}", dump.text);
        assert!(dump.text.contains("name: identifier 1:4-1:8 \"main\""), "{}", dump.text);
        assert!(dump.text.contains("\"fn\" 1:1-1:3"), "{}", dump.text);
        let dump = dump_syntax_tree("fn main() { let a = 1; }", SupportLang::Rust, SyntaxTreeFormat::Ast, None, 100).unwrap();
        assert!(!dump.text.contains("\"fn\""), "{}", dump.text);
        assert!(dump.text.contains("pattern: identifier"), "{}", dump.text);
    }

    #[test]
    fn code_nested_thousands_deep_is_dumped_without_overflowing_the_stack() {
        // adv21: 4,000 nested calls aborted the process (recursive walk) under `serve` too.
        let depth = 4000;
        let code = format!("{}1{}", "f(".repeat(depth), ")".repeat(depth));
        let dumped = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || dump_syntax_tree(&code, SupportLang::JavaScript, SyntaxTreeFormat::Ast, None, 50).map(|dump| dump.nodes_total))
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(dumped.unwrap() > depth * 2);
    }

    #[test]
    fn problems_and_cap() {
        let dump = dump_syntax_tree("def f(:\n  pass\n", SupportLang::Python, SyntaxTreeFormat::Ast, None, 100).unwrap();
        assert!(dump.parse_problems > 0 && dump.text.contains("ERROR"), "{}", dump.text);
        let dump = dump_syntax_tree("x = [1, 2, 3, 4, 5, 6]\n", SupportLang::Python, SyntaxTreeFormat::Cst, None, 5).unwrap();
        assert_eq!(dump.nodes_shown, 5);
        assert!(dump.text.contains(&format!("showing 5 of {} nodes", dump.nodes_total)), "{}", dump.text);
    }

    #[test]
    fn pattern_dump() {
        let dump = dump_syntax_tree("$X.unwrap()", SupportLang::Rust, SyntaxTreeFormat::Pattern, None, 100).unwrap();
        assert!(dump.text.contains("compiled as statement context → call_expression"), "{}", dump.text);
        assert!(dump.text.contains("$X (metavariable"), "{}", dump.text);
        assert!(dump.text.contains("field_identifier \"unwrap\""), "{}", dump.text);
    }
}
