//! The taken-name check of `lsp_rename` for TypeScript and JavaScript (issue 11, item 1); Rust
//! and Python files are checked by [`crate::lsp::rename_taken_names_items`] and reported here.
//!
//! typescript-language-server renames to any name it is given: renaming `f` to `g` where the
//! same scope already declares (or imports) a `g` produces code `tsc` rejects (a duplicate
//! identifier: TS2300, TS2393, TS2451), and where another `g` is declared in an enclosing or
//! nested scope the rename changes what a use means (one shadows the other), which `tsc` reports
//! only when the types or the declaration order happen to disagree. This check reads the syntax tree of every TS/JS file the rename changes, *after*
//! the edit (in memory, before anything is written), and resolves each identifier named the new
//! name lexically (JavaScript's scoping: `let`/`const`/`class`/function declarations to their
//! block, `var` to its function, parameters to their function, imports to the module):
//!
//! - two declarations of the new name in one scope, one the renamed symbol and one that was
//!   already there (class members: in one class body) → a duplicate declaration;
//! - a renamed use that now resolves to the other declaration, or a use that was already there
//!   resolving to the renamed declaration (a use of a global or an import, not declared in the
//!   file, counts) → a use that silently binds to another symbol.
//!
//! Limits, said in the check's line: files the rename does not change are not read (a script's
//! global declared in another file, `export *` from two modules); a `type`/`interface` and a
//! value of the same name are told apart (TypeScript keeps them in separate spaces), other
//! declaration merging (a namespace and a function) is reported as a duplicate.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language};
use ast_grep_language::SupportLang;

use crate::files::ExpectedState;
use crate::lsp::position::PositionEncoding;
use crate::lsp::rename::WorkspaceEditPlan;

/// What the check found: warnings for the top of the answer and one line saying what was
/// checked.
#[derive(Debug, Clone, Default)]
pub struct TakenNameFindings {
    /// One `WARNING:` line per finding (file:line of both sides, what happens, the next step);
    /// empty when none was found or nothing was checked.
    pub warnings: Vec<String>,
    /// What was checked (`None` when the rename changes no TypeScript/JavaScript, Rust or Python
    /// file).
    pub summary: Option<String>,
    /// The findings (`path:line: what`, without `WARNING:`) for which the rename is refused: a
    /// Python parameter or local renamed onto a local binding of its function that would then
    /// capture renamed uses, with no error from any checker when nothing is annotated (trial170
    /// F2); also among [`TakenNameFindings::warnings`].
    pub refusals: Vec<String>,
    /// The findings (`path:line`) after which the renamed code does not build, or one
    /// definition silently replaces another: a duplicate declaration tsc rejects (TS2300/TS2393/
    /// TS2451), a duplicate Rust definition, two Python parameters of one name, a Python
    /// `def`/`class` defined twice in one scope; the rename is staged, not written, when there is
    /// one (trial176 M6: zod's `_parse` renamed to `_parseSync` next to an existing
    /// `_parseSync`, written: 637 errors).
    pub blocking: Vec<String>,
}

/// How a declaration's name is used: in TypeScript a type alias or interface and a value of the
/// same name do not collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameSpace {
    /// A variable, function, parameter.
    Value,
    /// A type alias or interface.
    Type,
    /// A class, enum or import: both.
    Both,
    /// A class member (its class body is its scope; no lexical use resolves to it).
    Member,
}

impl NameSpace {
    fn collides_with(self, other: NameSpace) -> bool {
        match (self, other) {
            (NameSpace::Member, NameSpace::Member) => true,
            (NameSpace::Member, _) | (_, NameSpace::Member) => false,
            (NameSpace::Value, NameSpace::Type) | (NameSpace::Type, NameSpace::Value) => false,
            _ => true,
        }
    }
}

/// One identifier named the new name in the renamed text.
struct Occurrence {
    /// Byte offset in the renamed text.
    start: usize,
    /// 1-based line in the renamed text (= the line before the rename: the edit renames
    /// identifiers within lines).
    line: usize,
    /// Whether the rename put it there.
    renamed: bool,
    /// For a declaration: its scope node's id and name space.
    declares: Option<(usize, NameSpace)>,
    /// For a use: the ids of its ancestors, innermost first.
    ancestors: Vec<usize>,
    /// For a use: the name space it reads (a type position, a value, or either: an export).
    space: NameSpace,
    /// A few words for the answer (`function g`, `import g`, `const g`, `parameter g`).
    what: String,
}

/// The TS/JS extensions the check reads.
const CHECKED_EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// Checks the files of `plan` (the rename of `old_name` to `new_name`, not yet written) that are
/// TypeScript or JavaScript (see the module docs), Rust or Python (see
/// [`crate::lsp::rename_taken_names_items`]). `display` names a path for the answer.
pub fn taken_name_findings(
    plan: &WorkspaceEditPlan,
    old_name: &str,
    new_name: &str,
    display: &dyn Fn(&Path) -> String,
) -> TakenNameFindings {
    let mut findings = TakenNameFindings::default();
    let mut checked: Vec<PathBuf> = Vec::new();
    let mut unparsed: Vec<String> = Vec::new();
    // The languages of the checked files, in the order met (the summary names them).
    let mut languages: Vec<&'static str> = Vec::new();
    for change in &plan.changes {
        let script = change.path.extension().and_then(|ext| ext.to_str()).is_some_and(|ext| CHECKED_EXTENSIONS.contains(&ext));
        let language =
            if script { Some("TypeScript/JavaScript") } else { crate::lsp::rename_taken_names_items::checked_language(&change.path) };
        let Some(language) = language else { continue };
        let (ExpectedState::Content(old), Some(new)) = (&change.expected, &change.new_content) else { continue };
        let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
            unparsed.push(display(&change.path));
            continue;
        };
        if script {
            findings.warnings.extend(private_member_made_public(old, new, old_name, new_name, &display(&change.path)));
        }
        let shown = display(&change.path);
        let found = if script {
            file_findings(&change.path, old, new, old_name, new_name).map(|found| {
                findings.blocking.extend(found.iter().filter(|(_, duplicate)| *duplicate).map(|(text, _)| place_of(&shown, text)));
                found.into_iter().map(|(text, _)| text).collect::<Vec<String>>()
            })
        } else {
            // Rust and Python: two definitions of the new name in one scope (trial27b M8).
            let renamed = renamed_offsets(old, new, old_name, new_name);
            crate::lsp::rename_taken_names_items::file_findings(&change.path, new, &renamed, old_name, new_name).map(|found| {
                findings.refusals.extend(found.iter().filter(|finding| finding.refuses).map(|finding| format!("{shown}:{}", finding.text)));
                findings.blocking.extend(found.iter().filter(|finding| finding.breaks).map(|finding| place_of(&shown, &finding.text)));
                found.into_iter().map(|finding| finding.text).collect()
            })
        };
        if !languages.contains(&language) {
            languages.push(language);
        }
        match found {
            Some(found) => {
                findings.warnings.extend(found.into_iter().map(|finding| format!("WARNING: {shown}:{finding}")));
                checked.push(change.path.clone());
            }
            None => unparsed.push(display(&change.path)),
        }
    }
    if checked.is_empty() && unparsed.is_empty() {
        return findings;
    }
    let scripts_only = languages == ["TypeScript/JavaScript"];
    let mut summary = format!(
        "taken-name check: `{new_name}` in the {} this rename changes — {}",
        crate::render::plural(checked.len(), &format!("{} file", languages.join("/"))),
        match (findings.warnings.is_empty(), scripts_only) {
            (true, true) => format!("no other declaration of `{new_name}` in the same scope and no use that would bind to another symbol"),
            (true, false) => format!("no other definition of `{new_name}` in the same scope"),
            (false, _) => format!("{} (listed at the top)", crate::render::plural(findings.warnings.len(), "finding")),
        }
    );
    if scripts_only {
        summary.push_str("; files it does not change are not read (a global of a script file, `export *` of two modules)");
    } else {
        summary.push_str(&format!(
            "; Rust/Python: only definitions are compared (module, impl, class, struct fields, generic parameters; a Python function's parameters and locals — assignments, `for`/`with`/`except` targets, `:=` — but not a comprehension's own targets or a nested function's), and Python reads of `{new_name}` in a class body that the class's own earlier definition of it takes; not other uses that an inner definition of `{new_name}` would capture; files it does not change are not read (a `use`/`import` of `{new_name}` elsewhere, a glob import)"
        ));
    }
    if !unparsed.is_empty() {
        summary.push_str(&format!("; NOT checked (not parsed): {}", unparsed.join(", ")));
    }
    findings.summary = Some(summary);
    findings
}

/// `shown:line` of a finding `line: what` of the file shown as `shown`.
fn place_of(shown: &str, finding: &str) -> String {
    format!("{shown}:{}", finding.split(':').next().unwrap_or(""))
}

/// The findings of one file, each `line: what` (1-based lines of the renamed text) and whether
/// it is a duplicate declaration tsc rejects; `None` when the file does not parse with a bundled
/// grammar.
fn file_findings(path: &Path, old: &str, new: &str, old_name: &str, new_name: &str) -> Option<Vec<(String, bool)>> {
    let language = SupportLang::from_path(path)?;
    if !matches!(language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
        return None;
    }
    // An ES-private member (`#current`): the identifier hunks hold the name without its `#`, so
    // the renamed offsets are found by the bare names and matched one byte into a private
    // identifier (trial80 F1: `#currentQuery` → `#currentResult` beside an existing
    // `#currentResult` read as free; tsc then gave TS2300).
    let renamed_starts = renamed_offsets(old, new, old_name.trim_start_matches('#'), new_name.trim_start_matches('#'));
    // An import alias `import { OLD as NEW }` (or `{ NEW as NEW }`) that the old text did not
    // have is the rename's own binding: tsserver renames a use of an imported name by aliasing
    // the import (trial29 F5: @reduxjs/toolkit 1.9.7, 21 + 6 uses warned as "now refers to
    // another symbol" — that symbol was the renamed binding itself).
    let old_had_alias = old.match_indices(new_name).any(|(at, _)| {
        let before = old[..at].trim_end();
        before.ends_with(" as") && !old[at + new_name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
    });
    // A shorthand the rename expanded (`{ link }` → `{ link: connect }` in an object literal or a
    // destructuring) binds or uses the renamed symbol under its new name: the key keeps the
    // property (trial37 F3: 7 "pick another name" warnings on `connect`, the rename's own).
    let old_had_expanded = old.contains(&format!("{old_name}: {new_name}"));
    // An export the rename wrote to keep the public name (`export { Foo }` → `export { NEW as
    // Foo }`) exports the renamed binding (trial70 F2: immer's `export {Immer}`, warned as
    // shadowing "another `ImmerCore`" no file declared).
    let old_had_export_alias = old.contains(&format!("{new_name} as {old_name}"));
    let created_alias = |node: &tree_sitter::Node<'_>| {
        node.parent().is_some_and(|parent| {
            (!old_had_export_alias
                && parent.kind() == "export_specifier"
                && parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id())
                && parent.child_by_field_name("alias").is_some_and(|alias| new.get(alias.start_byte()..alias.end_byte()) == Some(old_name)))
                || (!old_had_alias
                    && parent.kind() == "import_specifier"
                    && parent.child_by_field_name("alias").is_some_and(|alias| alias.id() == node.id()))
                || (!old_had_expanded
                    && matches!(parent.kind(), "pair" | "pair_pattern")
                    && parent.child_by_field_name("value").is_some_and(|value| value.id() == node.id())
                    && parent.child_by_field_name("key").is_some_and(|key| new.get(key.start_byte()..key.end_byte()) == Some(old_name)))
        })
    };
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(new, language).ok()?;
    let top = root.root().get_inner_node();
    let mut occurrences: Vec<Occurrence> = Vec::new();
    let mut stack = vec![top];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        let kind = node.kind();
        let identifier_kind = matches!(
            kind,
            "identifier"
                | "type_identifier"
                | "property_identifier"
                | "private_property_identifier"
                | "shorthand_property_identifier"
                | "shorthand_property_identifier_pattern"
        );
        if !identifier_kind || new.get(node.start_byte()..node.end_byte()) != Some(new_name) {
            continue;
        }
        // `import { NAME as alias }`: NAME is the other module's export, neither a binding nor a
        // use in this file.
        let imported_under_alias = node.parent().is_some_and(|parent| {
            parent.kind() == "import_specifier"
                && parent.child_by_field_name("alias").is_some()
                && parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id())
        });
        // `export { NAME } from './m'` / `export { NAME as X } from './m'`: NAME is the other
        // module's export, not this file's binding (trial37 F3: a false "shadows" WARNING on a
        // re-export of the renamed function).
        let reexported_from_module = node.parent().is_some_and(|parent| {
            parent.kind() == "export_specifier"
                && parent.child_by_field_name("name").is_some_and(|name| name.id() == node.id())
                && parent
                    .parent()
                    .and_then(|clause| clause.parent())
                    .is_some_and(|statement| statement.kind() == "export_statement" && statement.child_by_field_name("source").is_some())
        });
        if imported_under_alias || reexported_from_module {
            continue;
        }
        let declares = declaration_scope(node);
        if declares.is_none() && matches!(kind, "property_identifier" | "private_property_identifier") {
            // `a.g`, `{ g: 1 }`: a property, not a lexical name.
            continue;
        }
        let mut ancestors = Vec::new();
        let mut up = node.parent();
        while let Some(parent) = up {
            ancestors.push(parent.id());
            up = parent.parent();
        }
        let line_text = new.lines().nth(node.start_position().row).unwrap_or("").trim();
        occurrences.push(Occurrence {
            start: node.start_byte(),
            line: node.start_position().row + 1,
            renamed: renamed_starts.contains(&node.start_byte())
                || (kind == "private_property_identifier" && renamed_starts.contains(&(node.start_byte() + 1)))
                || created_alias(&node),
            what: declares.map_or_else(|| shortened(line_text), |(_, _, what)| format!("{what} {new_name}")),
            declares: declares.map(|(scope, space, _)| (scope, space)),
            space: match (kind, node.parent().map(|parent| parent.kind())) {
                ("type_identifier", _) => NameSpace::Type,
                (_, Some("export_specifier")) => NameSpace::Both,
                _ => NameSpace::Value,
            },
            ancestors: ancestors.clone(),
        });
        // A constructor parameter property (`constructor(private readonly id: string)`) is a
        // parameter and a member of the class: two of one name in the class body are a duplicate
        // tsc rejects (trial84 F1: superjson's `generateIdentifier` renamed to `getValue`, a
        // method of the class: TS2300, read as "no other declaration").
        if let Some(class_body) = parameter_property_class_body(node, new) {
            occurrences.push(Occurrence {
                start: node.start_byte(),
                line: node.start_position().row + 1,
                renamed: renamed_starts.contains(&node.start_byte()),
                what: format!("parameter property {new_name}"),
                declares: Some((class_body, NameSpace::Member)),
                space: NameSpace::Member,
                ancestors,
            });
        }
    }
    occurrences.sort_by_key(|occurrence| occurrence.start);
    let declarations: Vec<&Occurrence> = occurrences.iter().filter(|occurrence| occurrence.declares.is_some()).collect();
    let mut found = Vec::new();
    let mut said: HashSet<(usize, usize)> = HashSet::new();
    let mut duplicated_scopes: HashSet<usize> = HashSet::new();
    for renamed in declarations.iter().filter(|declaration| declaration.renamed) {
        let (scope, space) = renamed.declares.expect("a declaration");
        for existing in declarations.iter().filter(|declaration| !declaration.renamed) {
            let (other_scope, other_space) = existing.declares.expect("a declaration");
            if other_scope == scope && space.collides_with(other_space) && said.insert((renamed.start, existing.start)) {
                duplicated_scopes.insert(scope);
                found.push((
                    format!(
                        "{}: the renamed `{old_name}` becomes `{}`, which line {} already declares in the same scope (`{}`) — a duplicate declaration, which tsc rejects (TS2300/TS2393/TS2451; a class member: TS2300/TS2393); pick another name, or rename that one first",
                        renamed.line, renamed.what, existing.line, existing.what
                    ),
                    true,
                ));
            }
        }
    }
    for use_site in occurrences.iter().filter(|occurrence| occurrence.declares.is_none()) {
        // The declarations of the nearest scope holding one of the use's name space; when one of
        // them has the use's side (both renamed, or both not), the use keeps its meaning.
        let resolved = use_site.ancestors.iter().find_map(|ancestor| {
            let candidates: Vec<&&Occurrence> = declarations
                .iter()
                .filter(|declaration| {
                    declaration.declares.is_some_and(|(scope, space)| scope == *ancestor && use_site.space.collides_with(space))
                })
                .collect();
            (!candidates.is_empty())
                .then(|| candidates.iter().find(|declaration| declaration.renamed == use_site.renamed).copied().unwrap_or(candidates[0]))
        });
        // Uses in a scope with a duplicate declaration are said by that duplicate.
        let resolved = resolved.filter(|declaration| !declaration.declares.is_some_and(|(scope, _)| duplicated_scopes.contains(&scope)));
        match (use_site.renamed, resolved) {
            (true, Some(declaration)) if !declaration.renamed => found.push((
                format!(
                    "{}: this use of the renamed `{old_name}` becomes `{new_name}`, which there means the other `{new_name}` declared at line {} (`{}`, a scope closer to it) — it now refers to another symbol, which tsc reports only when the types or the declaration order disagree; pick another name",
                    use_site.line, declaration.line, declaration.what
                ),
                false,
            )),
            (false, Some(declaration)) if declaration.renamed => found.push((
                format!(
                    "{}: this use of `{new_name}` (`{}`), which meant another `{new_name}`, would mean the renamed symbol (declared at line {}) — its new name shadows the other one there, which tsc reports only when the types or the declaration order disagree; pick another name",
                    use_site.line, use_site.what, declaration.line
                ),
                false,
            )),
            _ => (),
        }
    }
    Some(found)
}

/// The line cut for the answer (at most 60 characters).
fn shortened(line_text: &str) -> String {
    if line_text.chars().count() <= 60 {
        line_text.to_owned()
    } else {
        format!("{}…", line_text.chars().take(59).collect::<String>())
    }
}

/// A `WARNING:` when the rename turns the ES-private member `#old` into `new_name` without a
/// `#` in the file `shown` (old text `old`, new text `new`): a private field or method becomes a
/// public property of the class, visible to every user of it and open to clashes with
/// subclasses, and tsc reports nothing (trial80 M2: @tanstack/query-core's exported
/// `QueryObserver.#currentQuery` renamed to `query`). `None` otherwise.
fn private_member_made_public(old: &str, new: &str, old_name: &str, new_name: &str, shown: &str) -> Option<String> {
    if new_name.starts_with('#') {
        return None;
    }
    let private = format!("#{}", old_name.trim_start_matches('#'));
    let count = |text: &str| crate::lsp::rename_coverage::word_positions(text, &private).len();
    let made_public = count(old).saturating_sub(count(new));
    (made_public > 0).then(|| {
        format!(
            "WARNING: {shown}: `{private}` is an ES-private member; `{new_name}` has no `#`, so this rename makes it a PUBLIC property of its class ({made_public} occurrences change): every user of the class can now read and write it, and a subclass member named `{new_name}` now overrides or collides with it — tsc reports nothing; name it `#{new_name}` to keep it private"
        )
    })
}

/// The byte offsets, in `new`, of the identifiers the rename wrote. When the rename kept the
/// line count (a rename edits identifiers within lines), line `i` of `old` is diffed with line
/// `i` of `new` (a line diff could pair a renamed line with an equal line the rename did not
/// touch: `function f` renamed next to `function g`); else the texts are diffed into identifier
/// edits ([`crate::lsp::rename_coverage::minimal_edits`]). Each hunk replacing `old_name` with
/// `new_name` is kept.
pub(crate) fn renamed_offsets(old: &str, new: &str, old_name: &str, new_name: &str) -> HashSet<usize> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let mut renamed = HashSet::new();
    if old_lines.len() == new_lines.len() {
        let mut new_line_start = 0usize;
        for (old_line, new_line) in old_lines.iter().zip(&new_lines) {
            if old_line != new_line {
                for (old_bytes, new_bytes) in crate::lsp::rename_coverage::identifier_hunks(old_line, new_line) {
                    if old_line.get(old_bytes) == Some(old_name) && new_line.get(new_bytes.clone()) == Some(new_name) {
                        renamed.insert(new_line_start + new_bytes.start);
                    }
                }
            }
            new_line_start += new_line.len();
        }
        return renamed;
    }
    let edits = crate::lsp::rename_coverage::minimal_edits(old, new, PositionEncoding::Utf8);
    let mut line_starts = vec![0usize];
    line_starts.extend(old.match_indices('\n').map(|(at, _)| at + 1));
    let offset =
        |position: lsp_types::Position| -> Option<usize> { Some(line_starts.get(position.line as usize)? + position.character as usize) };
    let mut ordered: Vec<(usize, usize, &str)> =
        edits.iter().filter_map(|edit| Some((offset(edit.range.start)?, offset(edit.range.end)?, edit.new_text.as_str()))).collect();
    ordered.sort_by_key(|(start, _, _)| *start);
    let mut delta: isize = 0;
    for (start, end, text) in ordered {
        if text == new_name && old.get(start..end) == Some(old_name) {
            renamed.insert(start.saturating_add_signed(delta));
        }
        delta += text.len() as isize - (end - start) as isize;
    }
    renamed
}

/// Function-like nodes: a parameter's scope, and a `var`'s.
const FUNCTION_SCOPES: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
];

/// Nodes that hold block-scoped declarations.
const BLOCK_SCOPES: &[&str] =
    &["statement_block", "program", "for_statement", "for_in_statement", "switch_body", "class_body", "module", "internal_module"];

/// The nearest ancestor of `node` of one of `kinds` (or the root).
fn enclosing<'t>(node: tree_sitter::Node<'t>, kinds: &[&[&str]]) -> tree_sitter::Node<'t> {
    let mut current = node;
    while let Some(parent) = current.parent() {
        if kinds.iter().any(|list| list.contains(&parent.kind())) {
            return parent;
        }
        current = parent;
    }
    current
}

/// Whether `node` is `parent`'s field `field`.
fn is_field(parent: tree_sitter::Node<'_>, field: &str, node: tree_sitter::Node<'_>) -> bool {
    parent.child_by_field_name(field).is_some_and(|child| child.id() == node.id())
}

/// When `identifier` declares its name: the id of the scope it declares it in, its name space
/// and a few words for the answer. `None` for a use.
fn declaration_scope(identifier: tree_sitter::Node<'_>) -> Option<(usize, NameSpace, &'static str)> {
    let parent = identifier.parent()?;
    let block = |node: tree_sitter::Node<'_>| enclosing(node, &[BLOCK_SCOPES]).id();
    match parent.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" if is_field(parent, "name", identifier) => {
            Some((block(parent), NameSpace::Value, "function"))
        }
        "class_declaration" | "abstract_class_declaration" if is_field(parent, "name", identifier) => {
            Some((block(parent), NameSpace::Both, "class"))
        }
        "enum_declaration" if is_field(parent, "name", identifier) => Some((block(parent), NameSpace::Both, "enum")),
        "interface_declaration" if is_field(parent, "name", identifier) => Some((block(parent), NameSpace::Type, "interface")),
        "type_alias_declaration" if is_field(parent, "name", identifier) => Some((block(parent), NameSpace::Type, "type")),
        "import_specifier" => {
            let binds = match parent.child_by_field_name("alias") {
                Some(alias) => alias.id() == identifier.id(),
                None => is_field(parent, "name", identifier),
            };
            binds.then(|| (block(parent), NameSpace::Both, "import"))
        }
        "import_clause" | "namespace_import" => Some((block(parent), NameSpace::Both, "import")),
        "method_definition" | "public_field_definition" | "method_signature" | "property_signature" | "abstract_method_signature"
            if is_field(parent, "name", identifier) =>
        {
            Some((enclosing(parent, &[&["class_body", "object_type", "interface_body", "object"]]).id(), NameSpace::Member, "member"))
        }
        // An object literal's keys: two of one name are a duplicate tsc rejects (TS1117, TS1119;
        // trial48 F2: `helpers.bump` → `read` beside `read(obj)`).
        "pair" if is_field(parent, "key", identifier) && parent.parent().is_some_and(|object| object.kind() == "object") => {
            Some((parent.parent()?.id(), NameSpace::Member, "member"))
        }
        // A type parameter is scoped to the declaration that lists it (its body and signature):
        // two of one name in one list are a duplicate tsc rejects (TS2300; trial54 F1: trpc's
        // `ProcedureParams<…, TContextOut, …, TMeta>` with `TContextOut` renamed to `TMeta`).
        "type_parameter" if is_field(parent, "name", identifier) => {
            let list = parent.parent().filter(|list| list.kind() == "type_parameters")?;
            Some((list.parent().unwrap_or(list).id(), NameSpace::Type, "type parameter"))
        }
        "arrow_function" if is_field(parent, "parameter", identifier) => Some((parent.id(), NameSpace::Value, "parameter")),
        "catch_clause" if is_field(parent, "parameter", identifier) => Some((parent.id(), NameSpace::Value, "catch parameter")),
        "for_in_statement" if is_field(parent, "left", identifier) => {
            let var = parent.child_by_field_name("kind").is_some_and(|kind| kind.kind() == "var");
            if var {
                Some((enclosing(parent, &[FUNCTION_SCOPES, &["program"]]).id(), NameSpace::Value, "var"))
            } else if parent.child_by_field_name("kind").is_some() {
                Some((parent.id(), NameSpace::Value, "loop variable"))
            } else {
                None
            }
        }
        "variable_declarator" if is_field(parent, "name", identifier) => Some(declarator_scope(parent)),
        "required_parameter" | "optional_parameter" if is_field(parent, "pattern", identifier) => {
            Some((enclosing(parent, &[FUNCTION_SCOPES]).id(), NameSpace::Value, "parameter"))
        }
        "formal_parameters" => Some((enclosing(parent, &[FUNCTION_SCOPES]).id(), NameSpace::Value, "parameter")),
        "array_pattern" | "rest_pattern" | "object_pattern" => pattern_scope(parent),
        "pair_pattern" if is_field(parent, "value", identifier) => pattern_scope(parent),
        "assignment_pattern" | "object_assignment_pattern" if is_field(parent, "left", identifier) => pattern_scope(parent),
        _ if identifier.kind() == "shorthand_property_identifier_pattern" => pattern_scope(parent),
        _ => None,
    }
}

/// When `identifier` names a constructor parameter property (a parameter of a class's
/// `constructor` with an accessibility modifier or `readonly`, in `source`): the id of the class
/// body it is also a member of.
fn parameter_property_class_body(identifier: tree_sitter::Node<'_>, source: &str) -> Option<usize> {
    let parameter = identifier.parent().filter(|parent| matches!(parent.kind(), "required_parameter" | "optional_parameter"))?;
    if !is_field(parameter, "pattern", identifier) {
        return None;
    }
    let mut cursor = parameter.walk();
    let modified =
        parameter.children(&mut cursor).any(|child| matches!(child.kind(), "accessibility_modifier" | "readonly" | "override_modifier"));
    if !modified {
        return None;
    }
    let method = parameter
        .parent()
        .filter(|list| list.kind() == "formal_parameters")?
        .parent()
        .filter(|method| method.kind() == "method_definition")?;
    let name = method.child_by_field_name("name")?;
    if source.get(name.start_byte()..name.end_byte()) != Some("constructor") {
        return None;
    }
    method.parent().filter(|body| body.kind() == "class_body").map(|body| body.id())
}

/// The scope of a destructuring pattern's binding: that of the declarator or parameter the
/// pattern sits in (`None` for an assignment's pattern, which declares nothing).
fn pattern_scope(pattern: tree_sitter::Node<'_>) -> Option<(usize, NameSpace, &'static str)> {
    let mut current = pattern;
    while let Some(parent) = current.parent() {
        match parent.kind() {
            "variable_declarator" => return Some(declarator_scope(parent)),
            "required_parameter" | "optional_parameter" | "formal_parameters" => {
                return Some((enclosing(parent, &[FUNCTION_SCOPES]).id(), NameSpace::Value, "parameter"))
            }
            "catch_clause" => return Some((parent.id(), NameSpace::Value, "catch parameter")),
            kind if kind.ends_with("pattern") => current = parent,
            _ => return None,
        }
    }
    None
}

/// A `variable_declarator`'s scope: its block for `let`/`const`, its function for `var`.
fn declarator_scope(declarator: tree_sitter::Node<'_>) -> (usize, NameSpace, &'static str) {
    let declaration = declarator.parent();
    let is_var = declaration.is_some_and(|node| node.kind() == "variable_declaration");
    if is_var {
        (enclosing(declarator, &[FUNCTION_SCOPES, &["program"]]).id(), NameSpace::Value, "var")
    } else {
        let keyword = declaration
            .and_then(|node| node.child(0))
            .map(|node| node.kind())
            .filter(|kind| *kind == "const" || *kind == "let")
            .unwrap_or("const");
        (enclosing(declarator, &[BLOCK_SCOPES]).id(), NameSpace::Value, if keyword == "let" { "let" } else { "const" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The findings' texts (the duplicate flag is asserted where it matters).
    fn file_findings(path: &Path, old: &str, new: &str, old_name: &str, new_name: &str) -> Option<Vec<String>> {
        super::file_findings(path, old, new, old_name, new_name).map(|found| found.into_iter().map(|(text, _)| text).collect())
    }

    fn findings(file: &str, old: &str, old_name: &str, new_name: &str) -> Vec<String> {
        let new = crate::lsp::rename_coverage::text_with_word_renamed(old, old_name, new_name);
        file_findings(Path::new(file), old, &new, old_name, new_name).expect("parsed")
    }

    #[test]
    fn a_renamed_function_next_to_a_function_of_the_new_name_is_a_duplicate() {
        let found = findings("a.ts", "export function f() {}\nexport function g() {}\nf();\n", "f", "g");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("1: the renamed `f` becomes `function g`, which line 2 already declares"), "{found:?}");
        // A duplicate tsc rejects: it stages the rename (trial176 M6).
        let old = "export function f() {}\nexport function g() {}\nf();\n";
        let new = crate::lsp::rename_coverage::text_with_word_renamed(old, "f", "g");
        let typed = super::file_findings(Path::new("a.ts"), old, &new, "f", "g").expect("parsed");
        assert!(typed.len() == 1 && typed[0].1, "{typed:?}");
    }

    #[test]
    fn a_private_member_renamed_onto_another_private_member_is_a_duplicate() {
        // @tanstack/query-core 5.59.0 (trial80 F1): `#currentQuery` → `#currentResult`, and
        // `#clearStaleTimeout()` → `#clearRefetchInterval()`, in one class.
        let old = "export class Q {\n  #current = 1;\n  #result = 2;\n  get() { return this.#current + this.#result; }\n  #clear() {}\n  #stop() {}\n}\n";
        for old_name in ["current", "#current"] {
            let new = old.replace("#current", "#result");
            let found = file_findings(Path::new("q.ts"), old, &new, old_name, "#result").expect("parsed");
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(found[0].starts_with("2: the renamed `"), "{found:?}");
            assert!(found[0].contains("becomes `member #result`, which line 3 already declares"), "{found:?}");
        }
        let new = old.replace("#clear", "#stop");
        let found = file_findings(Path::new("q.ts"), old, &new, "clear", "#stop").expect("parsed");
        assert!(found.len() == 1 && found[0].contains("which line 6 already declares"), "{found:?}");
        // A free private name: nothing.
        let new = old.replace("#current", "#latest");
        assert!(file_findings(Path::new("q.ts"), old, &new, "current", "#latest").expect("parsed").is_empty());
    }

    #[test]
    fn a_parameter_property_renamed_onto_a_method_of_its_class_is_a_duplicate() {
        // superjson 1.13.3 (trial84 F1).
        let source = "export class Registry {\n  constructor(private readonly generateIdentifier: (v: unknown) => string) {}\n  getValue(id: string) {\n    return this.generateIdentifier(id);\n  }\n}\n";
        let found = findings("r.ts", source, "generateIdentifier", "getValue");
        assert!(
            found.iter().any(|finding| finding.contains("becomes `parameter property getValue`, which line 3 already declares")),
            "{found:?}"
        );
        // A plain parameter is no member.
        let plain = source.replace("private readonly ", "");
        assert!(findings("r.ts", &plain, "generateIdentifier", "getValue").iter().all(|finding| !finding.contains("parameter property")));
    }

    #[test]
    fn a_private_member_renamed_without_its_hash_is_said_to_become_public() {
        let old = "export class Q {\n  #current = 1;\n  get() { return this.#current; }\n}\n";
        let new = old.replace("#current", "query");
        let warning = private_member_made_public(old, &new, "current", "query", "q.ts").expect("a warning");
        assert!(warning.starts_with("WARNING: q.ts: `#current` is an ES-private member; `query` has no `#`"), "{warning}");
        assert!(warning.contains("(2 occurrences change)"), "{warning}");
        assert_eq!(private_member_made_public(old, &old.replace("#current", "#latest"), "current", "#latest", "q.ts"), None);
        assert_eq!(private_member_made_public("let current = 1;\n", "let query = 1;\n", "current", "query", "q.ts"), None);
    }

    #[test]
    fn a_type_parameter_renamed_onto_a_sibling_type_parameter_is_a_duplicate() {
        // trpc 10.45.2 (trial54 F1): `TContextOut` renamed to `TMeta` in the same list.
        let source = "type TMeta = { outer: true };\nexport interface ProcedureParams<TContextIn, TContextOut, TMeta> {\n  _ctx_out: TContextOut;\n  _meta: TMeta;\n}\nexport function map<TValueBefore, TError>(value: TValueBefore, error: TError): TValueBefore {\n  return value;\n}\n";
        let found = findings("a.ts", source, "TContextOut", "TMeta");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("2: the renamed `TContextOut` becomes `type parameter TMeta`, which line 2 already declares"),
            "{found:?}"
        );
        let found = findings("a.ts", source, "TValueBefore", "TError");
        assert!(found.len() == 1 && found[0].contains("type parameter TError"), "{found:?}");
        // A fresh name, and a type parameter shadowing an outer type of its name: nothing.
        assert!(findings("a.ts", source, "TContextOut", "TOut").is_empty());
        assert!(findings("a.ts", source, "TContextIn", "TOuter").is_empty());
    }

    #[test]
    fn an_object_literal_key_renamed_onto_another_key_of_the_literal_is_a_duplicate() {
        let source = "export const helpers = {\n  read(obj: { a: string }) {\n    return obj.a\n  },\n  bump: (n: number) => n + 1,\n}\nconst other = { read: 1 }\nhelpers.bump(1)\n";
        let found = findings("a.ts", source, "bump", "read");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("5: the renamed `bump` becomes `member read`, which line 2 already declares"), "{found:?}");
        assert!(findings("a.ts", source, "bump", "grow").is_empty());
    }

    #[test]
    fn an_inner_declaration_of_the_new_name_captures_a_renamed_use() {
        let source = "const f = 1;\nfunction h() {\n  const g = 2;\n  return f + g;\n}\n";
        let found = findings("a.ts", source, "f", "g");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("4: this use of the renamed `f` becomes `g`, which there means the other `g` declared at line 3"),
            "{found:?}"
        );
    }

    #[test]
    fn a_renamed_declaration_shadowing_a_global_use_is_said_and_separate_scopes_are_not() {
        let source = "function h() {\n  const f = 1;\n  console.log(f);\n}\nfunction k() {\n  const console = 2;\n  return console;\n}\n";
        let found = findings("a.ts", source, "f", "console");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("3: this use of `console`"), "{found:?}");
        // `f` → `k2` touches nothing named `k2`: clean.
        assert!(findings("a.ts", source, "f", "k2").is_empty());
    }

    #[test]
    fn a_shorthand_the_rename_expands_and_a_re_export_from_a_module_are_no_other_symbol() {
        // @tanstack/store 0.11.3 (trial37 F3): `link` → `connect`, returned as `{ link }` and
        // destructured as `const { link } = …` in another file; the merged rename expands both.
        let old = "export function system() {\n  function link(): number {\n    return 1;\n  }\n  return { link };\n}\n";
        let new = "export function system() {\n  function connect(): number {\n    return 1;\n  }\n  return { link: connect };\n}\n";
        assert_eq!(file_findings(Path::new("alien.ts"), old, new, "link", "connect").unwrap(), Vec::<String>::new());
        let old = "import { system } from './alien';\nconst { link } = system();\nexport const a = link() + link();\n";
        let new = "import { system } from './alien';\nconst { link: connect } = system();\nexport const a = connect() + connect();\n";
        assert_eq!(file_findings(Path::new("atom.ts"), old, new, "link", "connect").unwrap(), Vec::<String>::new());
        // `import { f } …; export { f } from './a'` with `f` → `g`: the re-export names the module's
        // export, which the rename renamed too.
        let old = "import { f } from './a';\nf();\nexport { f } from './a';\n";
        let new = "import { g } from './a';\ng();\nexport { g as f } from './a';\n";
        assert_eq!(file_findings(Path::new("b.ts"), old, new, "f", "g").unwrap(), Vec::<String>::new());
        // trial70 F2 (immer's `export {Immer}`): an import re-exported by name keeps its public
        // name through the alias the rename writes.
        let old = "import {Foo} from \"./a\"\nconst f = new Foo()\nexport const x = f.x\nexport {Foo}\n";
        let new = "import {Bar} from \"./a\"\nconst f = new Bar()\nexport const x = f.x\nexport {Bar as Foo}\n";
        assert_eq!(file_findings(Path::new("index.ts"), old, new, "Foo", "Bar").unwrap(), Vec::<String>::new());
        // A `Bar as Foo` export that was there before names what it named then.
        let old = "import {Foo} from \"./a\"\nimport {Bar} from \"./b\"\nexport {Bar as Foo}\nnew Foo()\n";
        let new = "import {Bar} from \"./a\"\nimport {Bar} from \"./b\"\nexport {Bar as Foo}\nnew Bar()\n";
        assert!(!file_findings(Path::new("index.ts"), old, new, "Foo", "Bar").unwrap().is_empty());
    }

    #[test]
    fn an_import_alias_the_rename_creates_is_the_renamed_binding_not_another_symbol() {
        // @reduxjs/toolkit 1.9.7 (trial29 F5): tsserver renames the uses of an imported
        // `createSlice` in one file by aliasing the import.
        let old = "import { createSlice, createAction } from '@reduxjs/toolkit';\n\nconst slice = createSlice({});\ncreateSlice({});\n";
        let new =
            "import { createSlice as makeSlice, createAction } from '@reduxjs/toolkit';\n\nconst slice = makeSlice({});\nmakeSlice({});\n";
        let found = file_findings(Path::new("a.test.ts"), old, new, "createSlice", "makeSlice").unwrap();
        assert!(found.is_empty(), "{found:?}");
        // The same with the rename from the definition merged in: `{ makeAction as makeAction }`.
        let old = "import { createAction } from './createAction';\nexport const a = createAction('a');\n";
        let new = "import { makeAction as makeAction } from './createAction';\nexport const a = makeAction('a');\n";
        let found = file_findings(Path::new("b.ts"), old, new, "createAction", "makeAction").unwrap();
        assert!(found.is_empty(), "{found:?}");
        // An alias that was there before the rename is another binding: the renamed uses land on
        // it (the taken name is said).
        let old = "import { other as makeAction } from './other';\nimport { createAction } from './a';\ncreateAction();\nmakeAction();\n";
        let new = "import { other as makeAction } from './other';\nimport { createAction as makeAction } from './a';\nmakeAction();\nmakeAction();\n";
        let found = file_findings(Path::new("c.ts"), old, new, "createAction", "makeAction").unwrap();
        assert!(found.iter().any(|line| line.contains("`makeAction` declared at line 1 (`import makeAction`")), "{found:?}");
    }

    #[test]
    fn a_type_and_a_value_of_one_name_do_not_collide_but_two_imports_do() {
        let found = findings("a.ts", "type g = number;\nconst f = 1;\nexport { f };\n", "f", "g");
        assert!(found.is_empty(), "{found:?}");
        let found = findings("b.ts", "import { f } from './a';\nimport { g } from './c';\nf(g);\n", "f", "g");
        assert!(
            found.iter().any(|line| line.starts_with("1: the renamed `f` becomes `import g`, which line 2 already declares")),
            "{found:?}"
        );
    }
}
