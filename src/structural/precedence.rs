//! The structure-preservation check of `ast_edit` (trial164 M2): a rewrite that puts a captured
//! node into a template where the grammar's precedence splits it apart changes what the code
//! means while still parsing cleanly. `Array<$T>` → `$T[]` with `$T` = `Effect | undefined`
//! gives `Effect | undefined[]` (a union of `Effect` and an array), `$A * 2` with `$A` = `x + 1`
//! gives `x + 1 * 2`; the parse check saw no error and tsc saw the 7 type errors only after the
//! edit was written.
//!
//! For every single-node metavariable substitution (`$NAME`, not `$$$NAME` or a `transform`
//! variable) whose captured node is a named node with named children (a union type, a binary
//! expression, a conditional, an arrow function, …), [`SubstitutionPlan::substitutions`] finds
//! where its text lands in the replacement (ast-grep's `TemplateFix` re-indents multi-line
//! captures, so the span is measured by generating the template up to the variable's start and
//! end), and [`changed_groupings`] looks in the re-parsed rewritten file for a node spanning
//! exactly that text (its whitespace trimmed), or a parenthesized node around it. When there is
//! none the text no longer forms one node: the change of meaning is reported with the node it
//! became part of and the template with the variable parenthesized as the fix.
//!
//! Limits: a node of another kind spanning the same text is accepted (the same text read in
//! another context — an expression as a pattern, a statement taken out of its block — is no
//! change of grouping); a capture glued to a word character of the template (`$Xs`) is
//! concatenation by intent and not checked; leaves (identifiers, literals) cannot be regrouped
//! and are not checked.
//!
//! The whole replacement is checked against the code around it too ([`regrouped_replacement`],
//! trial173 M7): `less($A, $B)` → `cmp($A, $B) < 0` under `!less(a, b)` gives `!cmp(a, b) < 0`,
//! which Go reads as `(!cmp(a, b)) < 0`. Such a replacement is no longer one node (nor a run of
//! whole sibling nodes); `ast_edit` parenthesizes it, and names it when parentheses do not make
//! it one node either.

use std::ops::Range;

use ast_grep_core::replacer::{Replacer, TemplateFix};
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Language, NodeMatch};
use ast_grep_language::SupportLang;

use crate::structural::search::ParsedFile;

/// One `$NAME` of a rewrite template that [`SubstitutionPlan`] checks: its name, its byte range
/// in the template, and the template cut at its start and at its end (generated against a match,
/// their lengths are where the variable's text starts and ends in the replacement).
struct CheckedVariable {
    name: String,
    in_template: Range<usize>,
    before: TemplateFix,
    through: TemplateFix,
}

/// The single-node metavariables of one rewrite template and how to find where each lands in a
/// replacement; built once per `ast_edit` call.
pub(crate) struct SubstitutionPlan {
    template: String,
    variables: Vec<CheckedVariable>,
}

/// Where one single-node substitution landed in one replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Substitution {
    /// The metavariable's name, without `$`.
    pub name: String,
    /// Its occurrence in the template (byte range), for the parenthesized fix.
    pub in_template: Range<usize>,
    /// The captured node's kind (`union_type`, `binary_expression`).
    pub kind: String,
    /// The captured node's text in the original.
    pub captured: String,
    /// 1-based line of the match in the original.
    pub line: usize,
    /// Byte range of the substituted text inside the replacement text.
    pub in_replacement: Range<usize>,
}

/// A substitution whose text is no longer one node in the rewritten file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChangedGrouping {
    /// The substitution.
    pub substitution: Substitution,
    /// 1-based line of the substituted text in the rewritten file.
    pub new_line: usize,
    /// The smallest node of the rewritten file that holds the substituted text: its kind and its
    /// text (what the capture became part of).
    pub became_kind: String,
    /// See `became_kind`.
    pub became_text: String,
}

impl SubstitutionPlan {
    /// The plan for `template` as ast-grep reads it (`$NAME` single, `$$$NAME` multiple, a
    /// `transform` variable computed), in `language`; `None` when the template has no single-node
    /// metavariable to check.
    pub(crate) fn new(template: &str, language: SupportLang, transforms: &[String]) -> Option<SubstitutionPlan> {
        let variables: Vec<CheckedVariable> = template_variables(template, language.meta_var_char())
            .into_iter()
            .filter(|(name, _, multiple)| !multiple && !transforms.contains(name))
            .map(|(name, in_template, _)| CheckedVariable {
                before: TemplateFix::with_transform(&template[..in_template.start], &language, transforms),
                through: TemplateFix::with_transform(&template[..in_template.end], &language, transforms),
                name,
                in_template,
            })
            .collect();
        (!variables.is_empty()).then(|| SubstitutionPlan { template: template.to_owned(), variables })
    }

    /// The substitutions of `matched`'s replacement worth checking: each single-node variable
    /// whose captured node is named and has named children, with where its text lands in the
    /// replacement `TemplateFix` generates for `matched`.
    pub(crate) fn substitutions(&self, matched: &NodeMatch<'_, StrDoc<SupportLang>>, source: &str) -> Vec<Substitution> {
        let env = matched.get_env();
        let mut found = Vec::new();
        for variable in &self.variables {
            let Some(node) = env.get_match(&variable.name) else { continue };
            if !node.is_named() || node.get_inner_node().named_child_count() == 0 {
                continue;
            }
            let start = variable.before.generate_replacement(matched).len();
            let end = variable.through.generate_replacement(matched).len();
            if end <= start {
                continue;
            }
            found.push(Substitution {
                name: variable.name.clone(),
                in_template: variable.in_template.clone(),
                kind: node.kind().into_owned(),
                captured: source[node.range()].to_owned(),
                line: matched.start_pos().line() + 1,
                in_replacement: start..end,
            });
        }
        found
    }

    /// The template with the metavariable occurrences of `changed` parenthesized: the fix the
    /// refusal names (`$T[]` → `($T)[]`).
    pub(crate) fn parenthesized(&self, changed: &[ChangedGrouping]) -> String {
        let mut ranges: Vec<Range<usize>> = changed.iter().map(|c| c.substitution.in_template.clone()).collect();
        ranges.sort_by_key(|range| range.start);
        ranges.dedup();
        let mut text = self.template.clone();
        for range in ranges.iter().rev() {
            text.insert(range.end, ')');
            text.insert(range.start, '(');
        }
        text
    }
}

/// The metavariables of a rewrite template in order, as ast-grep's template parser reads them
/// (`$NAME` or `$$NAME` single, `$$$NAME` multiple; a name starts with `A`–`Z` or `_` and goes on
/// with those and digits; `$5` is text): (name, byte range of the whole `$…NAME`, multiple).
fn template_variables(template: &str, meta_char: char) -> Vec<(String, Range<usize>, bool)> {
    let is_first = |c: char| c.is_ascii_uppercase() || c == '_';
    let is_name = |c: char| is_first(c) || c.is_ascii_digit();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = template[at..].find(meta_char) {
        let start = at + offset;
        let mut name_start = start;
        let mut dollars = 0;
        while dollars < 3 && template[name_start..].starts_with(meta_char) {
            name_start += meta_char.len_utf8();
            dollars += 1;
        }
        let name_len = template[name_start..].find(|c: char| !is_name(c)).unwrap_or(template.len() - name_start);
        if name_len == 0 || !template[name_start..].starts_with(is_first) {
            at = start + meta_char.len_utf8();
            continue;
        }
        let end = name_start + name_len;
        found.push((template[name_start..end].to_owned(), start..end, dollars == 3));
        at = end;
    }
    found
}

/// The substitutions of `rewritten` (the re-parsed file) that no longer form one node.
/// `substitutions` hold, per replacement, where the replacement starts in the rewritten file and
/// its checked substitutions.
pub(crate) fn changed_groupings(rewritten: &ParsedFile, substitutions: &[(usize, Vec<Substitution>)]) -> Vec<ChangedGrouping> {
    let text = rewritten.source();
    let root = rewritten.root();
    let root = root.get_inner_node();
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
    let mut changed = Vec::new();
    for (replacement_start, list) in substitutions {
        for substitution in list {
            let start = replacement_start + substitution.in_replacement.start;
            let end = replacement_start + substitution.in_replacement.end;
            let Some(substituted) = text.get(start..end) else { continue };
            // Glued to a word of the template (`$Xs`): concatenation by intent.
            if (is_word(text[..start].chars().next_back()) && is_word(substituted.chars().next()))
                || (is_word(text[end..].chars().next()) && is_word(substituted.chars().next_back()))
            {
                continue;
            }
            let trimmed_start = start + (substituted.len() - substituted.trim_start().len());
            let trimmed_end = end - (substituted.len() - substituted.trim_end().len());
            if trimmed_end <= trimmed_start {
                continue;
            }
            let Some(holder) = root.descendant_for_byte_range(trimmed_start, trimmed_end) else { continue };
            let holder_range = holder.byte_range();
            if holder_range == (trimmed_start..trimmed_end) || holder_range == (start..end) {
                continue;
            }
            // `(…)` around exactly the text (a parenthesized node whose inner text is it).
            if holder.kind().starts_with("parenthesized") {
                let inner = text[holder_range.clone()].trim();
                let inner = inner.strip_prefix('(').and_then(|inner| inner.strip_suffix(')')).map(str::trim);
                if inner == Some(substituted.trim()) {
                    continue;
                }
            }
            // A leaf holding more than the text: tokens glued, not regrouped.
            if holder.child_count() == 0 {
                continue;
            }
            // Inside a macro call's tokens (Rust `format!("{}", $X)`, `vec![$X]`): the grammar
            // sees loose tokens there, and the grouping is decided when the macro expands — not
            // checked (review48 M1: every such rewrite was refused).
            if inside_macro_tokens(holder) {
                continue;
            }
            changed.push(ChangedGrouping {
                substitution: substitution.clone(),
                new_line: text[..start].matches('\n').count() + 1,
                became_kind: holder.kind().to_owned(),
                became_text: text[holder_range].to_owned(),
            });
        }
    }
    changed
}

/// A replacement that is no longer one node (nor a run of whole sibling nodes) where it lands in
/// the rewritten file: the code around it took part of it by precedence (trial173 M7: `less($A,
/// $B)` → `cmp($A, $B) < 0` under `!less(…)` gave `!cmp(…) < 0`, which Go reads as
/// `(!cmp(…)) < 0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegroupedReplacement {
    /// The smallest node of the rewritten file holding the replacement: its kind …
    pub became_kind: String,
    /// … and its text.
    pub became_text: String,
}

/// Whether the text at `range` of the rewritten file (a whole replacement; its surrounding
/// whitespace ignored) stands as one node or as a run of whole sibling nodes (a rewrite into two
/// statements); `Some` with the node that took it apart when it does not. A leaf holding more
/// than the text (tokens glued) and text inside a Rust macro's token tree are not judged
/// (`None`), as for captures in [`changed_groupings`].
pub(crate) fn regrouped_replacement(rewritten: &ParsedFile, range: Range<usize>) -> Option<RegroupedReplacement> {
    let text = rewritten.source();
    let replaced = text.get(range.clone())?;
    let start = range.start + (replaced.len() - replaced.trim_start().len());
    let end = range.end - (replaced.len() - replaced.trim_end().len());
    if end <= start {
        return None;
    }
    let root = rewritten.root();
    let holder = root.get_inner_node().descendant_for_byte_range(start, end)?;
    let holder_range = holder.byte_range();
    if holder_range == (start..end) || holder.child_count() == 0 || inside_macro_tokens(holder) {
        return None;
    }
    let mut cursor = holder.walk();
    let children: Vec<tree_sitter::Node<'_>> = holder.children(&mut cursor).collect();
    let starts_a_child = children.iter().any(|child| child.start_byte() == start);
    let ends_a_child = children.iter().any(|child| child.end_byte() == end);
    if starts_a_child && ends_a_child {
        return None;
    }
    Some(RegroupedReplacement { became_kind: holder.kind().to_owned(), became_text: text[holder_range].to_owned() })
}

/// Whether `node` lies in a Rust macro call's tokens, where the grammar sees loose tokens and
/// the macro decides the grouping (review48 M1).
fn inside_macro_tokens(node: tree_sitter::Node<'_>) -> bool {
    let mut up = Some(node);
    while let Some(node) = up {
        if matches!(node.kind(), "token_tree" | "macro_invocation") {
            return true;
        }
        up = node.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::AstGrep;

    use crate::structural::compile::compile_pattern_in_context;
    use crate::structural::contexts::ContextKind;

    /// Rewrites every outermost match of `pattern` in `source` with `rewrite` (as ast_edit does)
    /// and returns the rewritten text and what the check says about it.
    fn rewrite(
        source: &str,
        pattern: &str,
        rewrite: &str,
        language: SupportLang,
        context: Option<ContextKind>,
    ) -> (String, Vec<ChangedGrouping>) {
        let compiled = compile_pattern_in_context(pattern, language, context).unwrap();
        let parsed = AstGrep::<StrDoc<SupportLang>>::try_new(source, language).unwrap();
        let template = TemplateFix::try_new(rewrite, &language).unwrap();
        let plan = SubstitutionPlan::new(rewrite, language, &[]);
        let mut edits: Vec<(usize, usize, String, Vec<Substitution>)> = Vec::new();
        let mut last_end = 0;
        for matched in parsed.root().find_all(&compiled) {
            if !edits.is_empty() && matched.range().start < last_end {
                continue;
            }
            last_end = matched.range().end;
            let edit = matched.make_edit(&compiled, &template);
            let subs = plan.as_ref().map(|plan| plan.substitutions(&matched, source)).unwrap_or_default();
            edits.push((edit.position, edit.deleted_length, String::from_utf8(edit.inserted_text).unwrap(), subs));
        }
        let mut new = String::new();
        let mut copied = 0;
        let mut placed = Vec::new();
        for (position, deleted, inserted, subs) in &edits {
            new.push_str(&source[copied..*position]);
            placed.push((new.len(), subs.clone()));
            new.push_str(inserted);
            copied = position + deleted;
        }
        new.push_str(&source[copied..]);
        let reparsed = AstGrep::<StrDoc<SupportLang>>::try_new(new.as_str(), language).unwrap();
        let changed = changed_groupings(&reparsed, &placed);
        (new, changed)
    }

    #[test]
    fn a_union_type_put_before_array_brackets_is_split() {
        let source = "const q: Array<Effect | undefined> = []\nlet a: Array<string> = []\nfunction f(): Array<() => void> { return [] }\n";
        let (new, changed) = rewrite(source, "Array<$T>", "$T[]", SupportLang::TypeScript, Some(ContextKind::Type));
        assert_eq!(new, "const q: Effect | undefined[] = []\nlet a: string[] = []\nfunction f(): () => void[] { return [] }\n");
        assert_eq!(changed.len(), 2, "{changed:#?}");
        assert_eq!(changed[0].substitution.captured, "Effect | undefined");
        assert_eq!(changed[0].substitution.kind, "union_type");
        assert_eq!(changed[0].became_text, "Effect | undefined[]");
        assert_eq!(changed[0].new_line, 1);
        assert_eq!(changed[1].substitution.kind, "function_type");
        assert_eq!(changed[1].new_line, 3);
        let plan = SubstitutionPlan::new("$T[]", SupportLang::TypeScript, &[]).unwrap();
        assert_eq!(plan.parenthesized(&changed), "($T)[]");
    }

    #[test]
    fn the_parenthesized_template_keeps_the_grouping() {
        let source = "const q: Array<Effect | undefined> = []\n";
        let (new, changed) = rewrite(source, "Array<$T>", "($T)[]", SupportLang::TypeScript, Some(ContextKind::Type));
        assert_eq!(new, "const q: (Effect | undefined)[] = []\n");
        assert_eq!(changed, Vec::new());
    }

    #[test]
    fn expressions_regrouped_by_precedence_in_python_and_rust() {
        let (new, changed) = rewrite("y = double(x + 1)\nz = double(w)\n", "double($A)", "$A * 2", SupportLang::Python, None);
        assert_eq!(new, "y = x + 1 * 2\nz = w * 2\n");
        assert_eq!(changed.len(), 1, "{changed:#?}");
        assert_eq!((changed[0].substitution.kind.as_str(), changed[0].became_kind.as_str()), ("binary_operator", "binary_operator"));
        assert_eq!(changed[0].became_text, "x + 1 * 2");
        let (new, changed) = rewrite("fn f() { let y = double(a + b); }\n", "double($A)", "$A * 2", SupportLang::Rust, None);
        assert_eq!(new, "fn f() { let y = a + b * 2; }\n");
        assert_eq!(changed.len(), 1, "{changed:#?}");
        let (_, changed) = rewrite("fn f() { let y = double(a + b); }\n", "double($A)", "($A) * 2", SupportLang::Rust, None);
        assert_eq!(changed, Vec::new());
    }

    /// Review48 M1: a capture put into a macro call's tokens is not checked (the grammar sees
    /// loose tokens; the macro decides the grouping).
    #[test]
    fn a_capture_inside_a_rust_macro_call_is_not_refused() {
        let (new, changed) = rewrite("fn f() { show(a + b); wrap(c.d()); }\n", "show($X)", "println!(\"{}\", $X)", SupportLang::Rust, None);
        assert_eq!(new, "fn f() { println!(\"{}\", a + b); wrap(c.d()); }\n");
        assert_eq!(changed, Vec::new());
        let (new, changed) = rewrite("fn f() { wrap(c.d()); }\n", "wrap($X)", "vec![$X]", SupportLang::Rust, None);
        assert_eq!(new, "fn f() { vec![c.d()]; }\n");
        assert_eq!(changed, Vec::new());
    }

    #[test]
    fn a_conditional_and_an_arrow_function_lose_their_grouping_too() {
        let (new, changed) = rewrite("const v = get(a ? b : c)\n", "get($X)", "$X.value", SupportLang::TypeScript, None);
        assert_eq!(new, "const v = a ? b : c.value\n");
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].substitution.kind, "ternary_expression");
        let (new, changed) = rewrite("run(() => 1)\n", "run($F)", "$F()", SupportLang::TypeScript, None);
        assert_eq!(new, "() => 1()\n");
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].substitution.kind, "arrow_function");
    }

    #[test]
    fn multi_node_captures_leaves_glued_names_and_statements_out_of_blocks_are_not_flagged() {
        // `$$$A` is a run of nodes, never checked.
        let (new, changed) = rewrite("f(a + b, c)\n", "f($$$A)", "g($$$A) * 2", SupportLang::TypeScript, None);
        assert_eq!(new, "g(a + b, c) * 2\n");
        assert_eq!(changed, Vec::new());
        // A statement taken out of its block: a node of the same text is there.
        let (new, changed) = rewrite("if (ok) { x = a + b; }\n", "if (ok) { $S }", "$S", SupportLang::TypeScript, None);
        assert_eq!(new, "x = a + b;\n");
        assert_eq!(changed, Vec::new());
        // A Python statement out of its block, re-indented.
        let (new, changed) =
            rewrite("def f():\n    if ok:\n        y = [\n            a + b,\n        ]\n", "if ok: $S", "$S", SupportLang::Python, None);
        assert_eq!(new, "def f():\n    y = [\n        a + b,\n    ]\n");
        assert_eq!(changed, Vec::new());
        // Glued to a word of the template: concatenation.
        let (new, changed) = rewrite("use(a.b)\n", "use($X)", "$Xs", SupportLang::TypeScript, None);
        assert_eq!(new, "a.bs\n");
        assert_eq!(changed, Vec::new());
        // An identical kind that another context reads otherwise (an object literal as a pattern).
        let (new, changed) = rewrite("take({ a, b })\n", "take($O)", "const $O = v", SupportLang::TypeScript, None);
        assert_eq!(new, "const { a, b } = v\n");
        assert_eq!(changed, Vec::new());
    }

    /// The whole replacement against the code around it (trial173 M7), for each edit of
    /// `rewrite`'s output: `Some(became_text)` when it was taken apart.
    fn replacements_regrouped(source: &str, pattern: &str, template: &str, language: SupportLang) -> (String, Vec<Option<String>>) {
        let compiled = compile_pattern_in_context(pattern, language, None).unwrap();
        let parsed = AstGrep::<StrDoc<SupportLang>>::try_new(source, language).unwrap();
        let fix = TemplateFix::try_new(template, &language).unwrap();
        let mut new = String::new();
        let mut copied = 0;
        let mut ranges = Vec::new();
        for matched in parsed.root().find_all(&compiled) {
            let edit = matched.make_edit(&compiled, &fix);
            new.push_str(&source[copied..edit.position]);
            let start = new.len();
            new.push_str(&String::from_utf8(edit.inserted_text).unwrap());
            ranges.push(start..new.len());
            copied = edit.position + edit.deleted_length;
        }
        new.push_str(&source[copied..]);
        let reparsed = AstGrep::<StrDoc<SupportLang>>::try_new(new.as_str(), language).unwrap();
        let found = ranges.into_iter().map(|range| regrouped_replacement(&reparsed, range).map(|r| r.became_text)).collect();
        (new, found)
    }

    #[test]
    fn a_replacement_under_a_unary_operator_is_taken_apart_in_go_typescript_and_python() {
        let (new, found) = replacements_regrouped(
            "package p
func f() { if !less(a, b) { x() }; if less(c, d) { y() } }
",
            "less($A, $B)",
            "cmp($A, $B) < 0",
            SupportLang::Go,
        );
        assert!(new.contains("if !cmp(a, b) < 0 {"), "{new}");
        assert_eq!(found, vec![Some("!cmp(a, b) < 0".to_owned()), None]);
        let (_, found) = replacements_regrouped(
            "const ok = !f(x) && f(y)
",
            "f($X)",
            "g($X) < 0",
            SupportLang::TypeScript,
        );
        assert_eq!(found, vec![Some("!g(x) < 0".to_owned()), None]);
        // Python's `not` binds looser than `==`: `not g(x) == 0` is `not (g(x) == 0)`, one node.
        let (_, found) = replacements_regrouped(
            "ok = not f(x)
",
            "f($X)",
            "g($X) == 0",
            SupportLang::Python,
        );
        assert_eq!(found, vec![None]);
        // … but tighter than `or`.
        let (_, found) = replacements_regrouped(
            "ok = not f(x)
",
            "f($X)",
            "g($X) or h($X)",
            SupportLang::Python,
        );
        assert_eq!(found, vec![Some("not g(x) or h(x)".to_owned())]);
        // A binary operator on the right: `f(x) * 2` → `g(x) + 1 * 2`.
        let (_, found) = replacements_regrouped(
            "y = f(x) * 2
",
            "f($X)",
            "g($X) + 1",
            SupportLang::Python,
        );
        assert_eq!(found, vec![Some("g(x) + 1 * 2".to_owned())]);
    }

    #[test]
    fn a_replacement_of_whole_statements_or_in_parentheses_is_not_taken_apart() {
        // Two statements for one: whole siblings of the block.
        let (new, found) = replacements_regrouped(
            "function f() {
  a(1);
  b();
}
",
            "a($X);",
            "c($X); d($X);",
            SupportLang::TypeScript,
        );
        assert!(new.contains("c(1); d(1);"), "{new}");
        assert_eq!(found, vec![None]);
        let (_, found) = replacements_regrouped(
            "const ok = !f(x)
",
            "f($X)",
            "(g($X) < 0)",
            SupportLang::TypeScript,
        );
        assert_eq!(found, vec![None]);
    }

    #[test]
    fn template_variables_are_read_as_ast_grep_reads_them() {
        assert_eq!(
            template_variables("$A + $$$B - $$C $5 $_X1 $a", '$'),
            vec![
                ("A".to_owned(), 0..2, false),
                ("B".to_owned(), 5..9, true),
                ("C".to_owned(), 12..15, false),
                ("_X1".to_owned(), 19..23, false)
            ]
        );
    }

    #[test]
    fn a_multi_line_capture_is_found_where_the_template_re_indents_it() {
        let source = "function f() {\n  if (x) {\n    wrap(\n      a +\n        b\n    )\n  }\n}\n";
        let (new, changed) = rewrite(source, "wrap($A)", "{\n  const v = $A\n}", SupportLang::TypeScript, None);
        assert!(new.contains("const v = a +\n"), "{new}");
        assert_eq!(changed, Vec::new());
        let (_, changed) = rewrite(source, "wrap($A)", "{\n  const v = $A * 2\n}", SupportLang::TypeScript, None);
        assert_eq!(changed.len(), 1, "{changed:#?}");
        assert!(changed[0].became_text.ends_with("b * 2"), "{changed:#?}");
    }
}
