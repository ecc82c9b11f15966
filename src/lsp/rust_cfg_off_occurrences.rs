//! Rust occurrences rust-analyzer does not analyze (behind a `#[cfg]` that is off) read by the
//! syntax tree against the member a rename or a references lookup is about (trial167 M2, M3).
//!
//! walkdir 2.5.1 keeps `#[cfg(windows)]` and `#[cfg(not(any(unix, windows)))]` twins of
//! `DirEntry`'s constructors. Renaming its private field `follow_link` left 9 occurrences there
//! — `self.follow_link` inside `impl DirEntry`, `DirEntry { …, follow_link: false, … }` — listed
//! "if they name this symbol, edit them by hand" and the rename was written: the windows build
//! broke. Those occurrences are the same field beyond doubt; others in the same lists never are
//! (`Error::from_path(…)` listed for `DirEntry::from_path`, `Handle::from_path`, the field
//! `metadata` listed for the method `metadata`).
//!
//! [`rust_member_declared_at`] reads what the symbol is at its declaration: a field of a named
//! struct or a function of an inherent `impl` (its owner type's name). [`classify_cfg_off_places`]
//! then tells each occurrence of the name apart, by the syntax tree (tree-sitter parses code
//! behind any cfg) and, inside a macro's token tree, by the text around it:
//!
//! - [`CfgOffOccurrence::SameMember`]: `self.NAME` in an `impl` of the owner (a call for a
//!   function, no call for a field), `Owner::NAME` / `Self::NAME` in that `impl` (a function), a
//!   struct literal or pattern of the owner naming the field, a twin declaration (`fn NAME` in an
//!   inherent `impl Owner`, a field `NAME` of `struct Owner`). A shorthand field (`Owner { NAME }`)
//!   is said as one: it is also a local (read in a literal, bound in a pattern), so its rename is
//!   `NEW: NAME` (review50 H5).
//! - [`CfgOffOccurrence::OtherSymbol`]: a path through another type (`Error::from_path`), a
//!   member of `self` in another type's `impl`, a member of a receiver whose nearest binding in
//!   scope (a `let` before it, else the fn's parameter) is written as another type — a `let`,
//!   `if let`, `match` arm, `for` or closure binding without a written type leaves it undecided
//!   (review50 H4), a field where a function was renamed (or a method call or path where a
//!   field was), a declaration in another type or a local binding (`let NAME`, a parameter).
//! - [`CfgOffOccurrence::Undecided`]: everything else (a method call on a value of unknown type,
//!   a bare word) — it stays a hedge.
//!
//! Type names are compared by their last path segment without generic arguments; a type alias
//! or `use … as …` of the owner under another name is read as another type.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

/// What a renamed or queried Rust symbol is, read at its declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RustMemberKind {
    /// A field of a struct with named fields.
    Field,
    /// A function or method of an inherent `impl` (no trait).
    Function,
}

/// A member of a named type: what [`classify_cfg_off_places`] compares occurrences with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RustMember {
    /// The member's name (`follow_link`).
    pub name: String,
    /// The type that owns it, its last path segment without generic arguments (`DirEntry`).
    pub owner: String,
    /// A field or a function.
    pub kind: RustMemberKind,
}

impl RustMember {
    /// `field `DirEntry::follow_link`` / `function `DirEntry::from_path``, for notes.
    pub(crate) fn described(&self) -> String {
        let kind = match self.kind {
            RustMemberKind::Field => "field",
            RustMemberKind::Function => "function",
        };
        format!("{kind} `{}::{}`", self.owner, self.name)
    }
}

/// What one occurrence behind an off `#[cfg]` is, compared with a [`RustMember`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CfgOffOccurrence {
    /// Certainly the same member: how it is written (`` `self.follow_link` in `impl DirEntry` ``),
    /// and whether it is a shorthand field (`DirEntry { follow_link }` in a literal, which reads a
    /// local of the field's name, or in a pattern, which binds one): renaming it there means
    /// writing `NEW: follow_link`, not replacing the word (review50 H5).
    SameMember { how: String, shorthand_field: bool },
    /// Certainly another symbol of the same name: why (`` `Error::from_path`: another type's ``).
    OtherSymbol(String),
    /// The syntax does not tell.
    Undecided,
}

/// The member declared by the identifier `name` at 0-based `line0`, byte column `byte_column`
/// of the Rust source `text`: a field of a `struct` with named fields or a function of an
/// inherent `impl`. `None` for anything else (a trait's method or a trait impl's, a free
/// function, an enum variant's field, a text that does not parse).
pub(crate) fn rust_member_declared_at(text: &str, line0: u32, byte_column: usize, name: &str) -> Option<RustMember> {
    let tree = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Rust).ok()?;
    let root = tree.root().get_inner_node();
    let identifier = identifier_at(&root, text, line0, byte_column, name)?;
    let parent = identifier.parent()?;
    if parent.child_by_field_name("name").is_none_or(|named| named.id() != identifier.id()) {
        return None;
    }
    match parent.kind() {
        "field_declaration" => {
            let list = parent.parent().filter(|list| list.kind() == "field_declaration_list")?;
            let item = list.parent().filter(|item| item.kind() == "struct_item")?;
            let owner = node_text(text, item.child_by_field_name("name")?)?;
            Some(RustMember { name: name.to_owned(), owner: owner.to_owned(), kind: RustMemberKind::Field })
        }
        "function_item" => {
            let list = parent.parent().filter(|list| list.kind() == "declaration_list")?;
            let item = list.parent().filter(|item| item.kind() == "impl_item")?;
            if item.child_by_field_name("trait").is_some() {
                return None;
            }
            let owner = type_name(node_text(text, item.child_by_field_name("type")?)?)?;
            Some(RustMember { name: name.to_owned(), owner, kind: RustMemberKind::Function })
        }
        _ => None,
    }
}

/// Each of `places` (absolute path, 0-based line, byte column of an occurrence of
/// `member.name`) told apart against `member` (see the module docs), in the same order. Files
/// are read beneath `workspace_root` and parsed once each; an unreadable file's places are
/// [`CfgOffOccurrence::Undecided`]. (Not [`crate::lsp::rename_coverage::classify_occurrences`],
/// which tells code from comments and strings; this one was named so too until review50 M8.)
pub(crate) fn classify_cfg_off_places(
    workspace_root: &Path,
    places: &[(PathBuf, u32, usize)],
    member: &RustMember,
) -> Vec<CfgOffOccurrence> {
    let mut texts: HashMap<&Path, Option<String>> = HashMap::new();
    for (path, _, _) in places {
        texts.entry(path.as_path()).or_insert_with(|| crate::files::read_workspace_file_to_string(workspace_root, path).ok());
    }
    let mut trees: HashMap<&Path, AstGrep<StrDoc<SupportLang>>> = HashMap::new();
    for (path, text) in &texts {
        if let Some(tree) = text.as_deref().and_then(|text| AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Rust).ok()) {
            trees.insert(path, tree);
        }
    }
    places
        .iter()
        .map(|(path, line0, byte_column)| {
            let (Some(Some(text)), Some(tree)) = (texts.get(path.as_path()), trees.get(path.as_path())) else {
                return CfgOffOccurrence::Undecided;
            };
            classify_in(text, &tree.root().get_inner_node(), *line0, *byte_column, member)
        })
        .collect()
}

/// [`classify_cfg_off_places`] for one occurrence of a parsed file.
fn classify_in(text: &str, root: &tree_sitter::Node<'_>, line0: u32, byte_column: usize, member: &RustMember) -> CfgOffOccurrence {
    let name = member.name.as_str();
    let owner = member.owner.as_str();
    let field = member.kind == RustMemberKind::Field;
    let Some(identifier) = identifier_at(root, text, line0, byte_column, name) else { return CfgOffOccurrence::Undecided };
    let impl_type = enclosing_impl_type(text, identifier);
    let resolve_self = |type_text: &str| -> Option<String> {
        let named = type_name(type_text)?;
        if named == "Self" {
            impl_type.clone()
        } else {
            Some(named)
        }
    };
    let same = |how: String| CfgOffOccurrence::SameMember { how, shorthand_field: false };
    let other = |why: String| CfgOffOccurrence::OtherSymbol(why);
    // A function named through a path: the owner's (`DirEntry::f`, `Self::f` in its `impl`) or
    // another type's (`Error::f`) or a module's free function (`fs::metadata`), never a member.
    let qualified = |qualifier: String| {
        if qualifier == owner {
            same(format!("`{qualifier}::{name}`"))
        } else if starts_uppercase(&qualifier) {
            other(format!("`{qualifier}::{name}`: another type's"))
        } else {
            other(format!("`{qualifier}::{name}`: a module's function or a primitive type's, not a member of `{owner}`"))
        }
    };
    let Some(parent) = identifier.parent() else { return CfgOffOccurrence::Undecided };
    let is_named =
        |node: tree_sitter::Node<'_>, field_name: &str| node.child_by_field_name(field_name).is_some_and(|n| n.id() == identifier.id());
    match parent.kind() {
        "field_expression" if is_named(parent, "field") => {
            let called = parent.parent().is_some_and(|call| {
                call.kind() == "call_expression" && call.child_by_field_name("function").is_some_and(|f| f.id() == parent.id())
            });
            if field && called {
                return other(format!("`.{name}(…)`: a method call, never the field"));
            }
            if !field && !called {
                return other(format!("`.{name}` not called: a field, not the function"));
            }
            let Some(receiver) = parent.child_by_field_name("value") else { return CfgOffOccurrence::Undecided };
            let written = if called { format!("self.{name}(…)") } else { format!("self.{name}") };
            if receiver.kind() == "self" {
                return match impl_type {
                    Some(ref implemented) if implemented == owner => same(format!("`{written}` in `impl {owner}`")),
                    Some(ref implemented) => other(format!("`{written}` in `impl {implemented}`: another type's")),
                    None => CfgOffOccurrence::Undecided,
                };
            }
            if receiver.kind() == "identifier" {
                if let Some((binding, typed)) =
                    node_text(text, receiver).and_then(|variable| nearest_binding_type(text, identifier, variable))
                {
                    if typed != owner {
                        return other(format!("a member of a {binding} typed `{typed}`: another type's"));
                    }
                }
            }
            CfgOffOccurrence::Undecided
        }
        "scoped_identifier" if is_named(parent, "name") => {
            if field {
                return other(format!("`…::{name}`: a path, never a field"));
            }
            match parent.child_by_field_name("path").and_then(|path| node_text(text, path)).and_then(resolve_self) {
                Some(qualifier) => qualified(qualifier),
                None => CfgOffOccurrence::Undecided,
            }
        }
        // The field's name in a literal or pattern: `Owner { NAME: … }`, or the shorthand
        // `Owner { NAME }` (its identifier is then also a local's: read in a literal, bound in a
        // pattern). The value or subpattern after `NAME:` (`Owner { other: NAME }`) is a local,
        // not the field, and is left to the rest.
        "field_initializer" | "shorthand_field_initializer" | "field_pattern"
            if is_named(parent, "field")
                || is_named(parent, "name")
                || parent.kind() == "shorthand_field_initializer"
                || identifier.kind() == "shorthand_field_identifier" =>
        {
            if !field {
                return other("a struct field named in a literal or pattern, not the function".to_owned());
            }
            let pattern = parent.kind() == "field_pattern";
            let shorthand_field = parent.kind() == "shorthand_field_initializer" || identifier.kind() == "shorthand_field_identifier";
            let container = if pattern { parent.parent() } else { parent.parent().and_then(|list| list.parent()) };
            let type_field = if pattern { "type" } else { "name" };
            match container
                .and_then(|node| node.child_by_field_name(type_field))
                .and_then(|node| node_text(text, node))
                .and_then(resolve_self)
            {
                Some(literal) if literal == owner && shorthand_field && pattern => CfgOffOccurrence::SameMember {
                    how: format!("a shorthand field in a `{owner} {{ {name}, … }}` pattern, which also binds a local `{name}`"),
                    shorthand_field,
                },
                Some(literal) if literal == owner && shorthand_field => CfgOffOccurrence::SameMember {
                    how: format!("a shorthand field in a `{owner} {{ {name}, … }}` literal, which reads a local `{name}`"),
                    shorthand_field,
                },
                Some(literal) if literal == owner => same(format!("a `{owner} {{ {name}… }}` literal or pattern")),
                Some(literal) => other(format!("a field of `{literal}`: another type's")),
                None => CfgOffOccurrence::Undecided,
            }
        }
        "field_declaration" if is_named(parent, "name") => {
            let owner_of = parent.parent().and_then(|list| list.parent()).filter(|item| item.kind() == "struct_item");
            match owner_of.and_then(|item| item.child_by_field_name("name")).and_then(|named| node_text(text, named)) {
                Some(declared) if field && declared == owner => {
                    same(format!("the field's own declaration in another cfg twin of `struct {owner}`"))
                }
                Some(declared) if declared != owner => other(format!("a field of `{declared}`: another type's")),
                _ if !field => other("a field declaration, not the function".to_owned()),
                _ => CfgOffOccurrence::Undecided,
            }
        }
        "function_item" if is_named(parent, "name") => {
            if field {
                return other("a function declaration, not the field".to_owned());
            }
            let inherent = parent
                .parent()
                .and_then(|list| list.parent())
                .filter(|item| item.kind() == "impl_item")
                .map(|item| item.child_by_field_name("trait").is_none());
            match (impl_type.as_deref(), inherent) {
                (Some(implemented), Some(true)) if implemented == owner => {
                    same(format!("a cfg twin of `fn {name}` in `impl {owner}` (the build that compiles it calls it by this name)"))
                }
                (Some(implemented), Some(_)) if implemented != owner => {
                    other(format!("`fn {name}` of `impl {implemented}`: another type's"))
                }
                (None, None) => other(format!("a free `fn {name}`, not a member of `{owner}`")),
                _ => CfgOffOccurrence::Undecided,
            }
        }
        "parameter" | "let_declaration" | "closure_parameters" if is_named(parent, "pattern") || parent.kind() == "closure_parameters" => {
            other(format!("a local binding `{name}`, never a member"))
        }
        // In a macro's token tree (`itry!(Error::from_path(…))`): the text around it.
        _ if in_token_tree(identifier) => {
            let line = text.lines().nth(line0 as usize).unwrap_or("");
            let before = line.get(..byte_column).unwrap_or("").trim_end();
            let after = line.get(byte_column + name.len()..).unwrap_or("").trim_start();
            let called = after.starts_with('(');
            if let Some(path) = before.strip_suffix("::") {
                let qualifier: String =
                    path.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<Vec<char>>().into_iter().rev().collect();
                if field {
                    return other(format!("`…::{name}`: a path, never a field"));
                }
                return match resolve_self(&qualifier) {
                    Some(qualifier) => qualified(qualifier),
                    None => CfgOffOccurrence::Undecided,
                };
            }
            if before.ends_with('.') && (field == called) {
                return other(if field {
                    format!("`.{name}(…)`: a method call, never the field")
                } else {
                    format!("`.{name}` not called: a field, not the function")
                });
            }
            CfgOffOccurrence::Undecided
        }
        _ => CfgOffOccurrence::Undecided,
    }
}

/// The identifier node `name` at 0-based `line0`, byte column `byte_column` of `text`.
fn identifier_at<'t>(
    root: &tree_sitter::Node<'t>,
    text: &str,
    line0: u32,
    byte_column: usize,
    name: &str,
) -> Option<tree_sitter::Node<'t>> {
    let line_start = crate::lsp::position::line_start_byte(text, line0 as usize);
    let start = line_start + byte_column;
    let node = root.descendant_for_byte_range(start, start + name.len())?;
    (node_text(text, node) == Some(name)).then_some(node)
}

/// The text of `node` in `text`.
fn node_text<'a>(text: &'a str, node: tree_sitter::Node<'_>) -> Option<&'a str> {
    text.get(node.start_byte()..node.end_byte())
}

/// A type as written (`&'a mut walkdir::DirEntry<T>`) reduced to its last path segment without
/// generic arguments (`DirEntry`); `None` when nothing is left.
fn type_name(written: &str) -> Option<String> {
    let mut rest = written.trim();
    loop {
        let trimmed = rest.trim_start_matches('&').trim_start();
        let trimmed = if trimmed.starts_with('\'') {
            trimmed.split_once(char::is_whitespace).map_or("", |(_, after)| after).trim_start()
        } else {
            trimmed
        };
        let trimmed = trimmed.strip_prefix("mut ").unwrap_or(trimmed).trim_start();
        let trimmed = trimmed.strip_prefix("dyn ").unwrap_or(trimmed).trim_start();
        if trimmed == rest {
            break;
        }
        rest = trimmed;
    }
    let without_generics = rest.split('<').next().unwrap_or(rest);
    let last = without_generics.rsplit("::").next().unwrap_or(without_generics).trim();
    (!last.is_empty() && last.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| last.to_owned())
}

/// Whether `name` starts with an uppercase letter: a type's name by Rust's conventions (a
/// lowercase qualifier is a module, which may re-export the owner).
fn starts_uppercase(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// The self type's name of the `impl` around `node` (`impl<T> Foo<T> for Bar` → `Bar`).
fn enclosing_impl_type(text: &str, node: tree_sitter::Node<'_>) -> Option<String> {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        if ancestor.kind() == "impl_item" {
            return type_name(node_text(text, ancestor.child_by_field_name("type")?)?);
        }
        current = ancestor.parent();
    }
    None
}

/// The written type's name of the binding of `variable` that is in scope at `node` — the
/// nearest one: a `let` before it in an enclosing block (`let ent: &Other = …;`), else the
/// parameter of the function around it (`ent: &fs::DirEntry` → `DirEntry`) — with what that
/// binding is (`"parameter"`, `"local"`). `None` when the nearest binding has no written type
/// (`let ent = DirEntry::new();`), when it is bound by a pattern this does not read (an
/// `if let`, `while let`, `match` arm, `for` or closure parameter binding that name), or when
/// none is found: the caller then cannot tell the receiver's type (review50 H4: a `let ent` that
/// shadowed the parameter `ent: &Other` was read as `Other`).
fn nearest_binding_type(text: &str, node: tree_sitter::Node<'_>, variable: &str) -> Option<(&'static str, String)> {
    let mut inner = node;
    let mut current = node.parent();
    while let Some(ancestor) = current {
        match ancestor.kind() {
            "block" => {
                // The last `let` of this block before the statement holding the use binds it.
                let mut cursor = ancestor.walk();
                let statements: Vec<tree_sitter::Node<'_>> = ancestor.named_children(&mut cursor).collect();
                for statement in statements.iter().rev().filter(|statement| statement.end_byte() <= inner.start_byte()) {
                    if statement.kind() != "let_declaration" {
                        continue;
                    }
                    let Some(pattern) = statement.child_by_field_name("pattern") else { continue };
                    if !pattern_binds(text, pattern, variable) {
                        continue;
                    }
                    let simple = pattern.kind() == "identifier"
                        || (pattern.kind() == "mut_pattern" && pattern.named_child(0).is_some_and(|named| named.kind() == "identifier"));
                    let typed = statement.child_by_field_name("type").and_then(|written| node_text(text, written)).and_then(type_name);
                    return typed.filter(|_| simple).map(|typed| ("local", typed));
                }
            }
            "match_arm" | "closure_expression" | "for_expression" | "if_expression" | "while_expression" => {
                let bound = match ancestor.kind() {
                    "match_arm" | "for_expression" => {
                        ancestor.child_by_field_name("pattern").is_some_and(|pattern| pattern_binds(text, pattern, variable))
                    }
                    "closure_expression" => {
                        ancestor.child_by_field_name("parameters").is_some_and(|parameters| pattern_binds(text, parameters, variable))
                    }
                    _ => ancestor.child_by_field_name("condition").is_some_and(|condition| let_condition_binds(text, condition, variable)),
                };
                // A use inside the bound value itself (`for x in ent.items`) is not under the
                // binding, but reading it as unknown only keeps the occurrence undecided.
                if bound {
                    return None;
                }
            }
            "function_item" => {
                let parameters = ancestor.child_by_field_name("parameters")?;
                let mut cursor = parameters.walk();
                let found = parameters.named_children(&mut cursor).find(|parameter| {
                    parameter.kind() == "parameter"
                        && parameter.child_by_field_name("pattern").and_then(|pattern| node_text(text, pattern)) == Some(variable)
                })?;
                return Some(("parameter", type_name(node_text(text, found.child_by_field_name("type")?)?)?));
            }
            _ => {}
        }
        inner = ancestor;
        current = ancestor.parent();
    }
    None
}

/// Whether a `let` pattern of the `if` / `while` condition `condition` (`if let Some(ent) = …`,
/// a `let` chain) binds `variable` (see [`pattern_binds`]).
fn let_condition_binds(text: &str, condition: tree_sitter::Node<'_>, variable: &str) -> bool {
    if condition.kind() == "let_condition" {
        return condition.child_by_field_name("pattern").is_some_and(|pattern| pattern_binds(text, pattern, variable));
    }
    let mut cursor = condition.walk();
    let children: Vec<tree_sitter::Node<'_>> = condition.named_children(&mut cursor).collect();
    children.into_iter().any(|child| child.kind() != "block" && let_condition_binds(text, child, variable))
}

/// Whether an identifier spelled `variable` appears anywhere in `pattern` (a pattern, a
/// closure's parameters, an `if let` condition): read as binding it, which errs toward "bound
/// here" (a path segment of that spelling also counts).
fn pattern_binds(text: &str, pattern: tree_sitter::Node<'_>, variable: &str) -> bool {
    if matches!(pattern.kind(), "identifier" | "shorthand_field_identifier") && node_text(text, pattern) == Some(variable) {
        return true;
    }
    let mut cursor = pattern.walk();
    let children: Vec<tree_sitter::Node<'_>> = pattern.named_children(&mut cursor).collect();
    children.into_iter().any(|child| pattern_binds(text, child, variable))
}

/// Whether `node` sits in a macro invocation's token tree.
fn in_token_tree(node: tree_sitter::Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        if ancestor.kind() == "token_tree" {
            return true;
        }
        current = ancestor.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const DENT: &str = "pub struct DirEntry {\n    follow_link: bool,\n}\n\nimpl DirEntry {\n    #[cfg(windows)]\n    fn metadata(&self) -> bool {\n        if self.follow_link { Error::from_entry(self) } else { DirEntry { follow_link: false } }\n    }\n    #[cfg(unix)]\n    pub(crate) fn from_entry(depth: usize) -> DirEntry {\n        DirEntry { follow_link: false }\n    }\n    #[cfg(windows)]\n    pub(crate) fn from_entry(depth: usize) -> DirEntry {\n        let e = itry!(Error::from_entry(depth));\n        Self::from_entry(depth)\n    }\n}\n\nimpl Error {\n    fn from_entry(dent: &DirEntry) -> Error { if self.follow_link { x } }\n}\n";

    fn classify(text: &str, member: &RustMember) -> Vec<(u32, CfgOffOccurrence)> {
        let tree = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Rust).unwrap();
        let root = tree.root().get_inner_node();
        text.lines()
            .enumerate()
            .flat_map(|(line0, line)| line.match_indices(member.name.as_str()).map(move |(at, _)| (line0 as u32, at)).collect::<Vec<_>>())
            .map(|(line0, at)| (line0 + 1, classify_in(text, &root, line0, at, member)))
            .collect()
    }

    #[test]
    fn a_field_is_read_at_its_declaration_and_its_uses_told_apart_from_other_types() {
        let member = rust_member_declared_at(DENT, 1, 4, "follow_link").unwrap();
        assert_eq!(member, RustMember { name: "follow_link".into(), owner: "DirEntry".into(), kind: RustMemberKind::Field });
        let found = classify(DENT, &member);
        let same: Vec<u32> = found.iter().filter(|(_, v)| matches!(v, CfgOffOccurrence::SameMember { .. })).map(|(l, _)| *l).collect();
        let other: Vec<u32> = found.iter().filter(|(_, v)| matches!(v, CfgOffOccurrence::OtherSymbol(_))).map(|(l, _)| *l).collect();
        // Line 2 is the declaration itself (a field of `DirEntry`); lines 8 (twice) and 12 are
        // uses; line 22's `self.follow_link` is in `impl Error`.
        assert_eq!(same, vec![2, 8, 8, 12]);
        assert_eq!(other, vec![22]);
    }

    #[test]
    fn a_function_is_told_apart_from_another_types_function_of_the_same_name() {
        let member = rust_member_declared_at(DENT, 10, 18, "from_entry").unwrap();
        assert_eq!(member.owner, "DirEntry");
        assert_eq!(member.kind, RustMemberKind::Function);
        let found = classify(DENT, &member);
        let verdict = |line: u32| found.iter().filter(|(l, _)| *l == line).map(|(_, v)| v.clone()).collect::<Vec<_>>();
        assert!(matches!(verdict(8)[0], CfgOffOccurrence::OtherSymbol(_)), "{:?}", verdict(8));
        assert!(matches!(verdict(15)[0], CfgOffOccurrence::SameMember { .. }), "{:?}", verdict(15));
        // Inside `itry!(…)`: by the text, `Error::` qualifies it.
        assert!(matches!(verdict(16)[0], CfgOffOccurrence::OtherSymbol(_)), "{:?}", verdict(16));
        assert!(matches!(verdict(17)[0], CfgOffOccurrence::SameMember { .. }), "{:?}", verdict(17));
        assert!(matches!(verdict(22)[0], CfgOffOccurrence::OtherSymbol(_)), "{:?}", verdict(22));
    }

    /// Review50 H4: the receiver's type is the nearest binding's in scope — a `let`, `if let`,
    /// `match` arm or closure parameter after the parameter shadows it, and an untyped one
    /// leaves the use undecided, never another type's.
    #[test]
    fn a_receiver_shadowing_a_parameter_is_read_by_its_nearest_binding() {
        let text = "pub struct DirEntry {\n    follow_link: bool,\n}\n\
            impl DirEntry {\n\
            fn a(ent: &Other) -> bool { ent.follow_link }\n\
            fn b(ent: &Other) -> bool { let ent = DirEntry::new(); ent.follow_link }\n\
            fn c(ent: &Other) -> bool { if let Some(ent) = x { ent.follow_link } else { false } }\n\
            fn d(ent: &Other) -> bool { { let ent = DirEntry::new(); } ent.follow_link }\n\
            fn e(ent: &Other) -> bool { let ent: &DirEntry = y; ent.follow_link }\n\
            fn f(ent: &DirEntry) -> bool { let mut ent: &Other = y; ent.follow_link }\n\
            fn g(ent: &Other) -> bool { v.iter().any(|ent| ent.follow_link) }\n\
            fn h(ent: &Other) -> bool { match x { ent => ent.follow_link } }\n\
            fn i(ent: &Other) -> bool { let ent = ent.follow_link; ent }\n\
            }\n";
        let member = rust_member_declared_at(text, 1, 4, "follow_link").unwrap();
        let found = classify(text, &member);
        let verdict = |line: u32| found.iter().find(|(l, _)| *l == line).map(|(_, v)| v.clone()).unwrap();
        assert_eq!(verdict(5), CfgOffOccurrence::OtherSymbol("a member of a parameter typed `Other`: another type's".into()));
        for shadowed in [6, 7, 9, 11, 12] {
            assert_eq!(verdict(shadowed), CfgOffOccurrence::Undecided, "line {shadowed}: {found:?}");
        }
        // A `let` in an inner block that ended before the use does not shadow the parameter.
        assert!(matches!(verdict(8), CfgOffOccurrence::OtherSymbol(_)), "{found:?}");
        assert_eq!(verdict(10), CfgOffOccurrence::OtherSymbol("a member of a local typed `Other`: another type's".into()));
        // In its own initializer, the name is still the parameter.
        assert!(matches!(verdict(13), CfgOffOccurrence::OtherSymbol(_)), "{found:?}");
    }

    /// Review50 H5: a shorthand field (`DirEntry { follow_link }`) is the field and a local at
    /// once — said as such, so the edit advised is `NEW: follow_link`; the value after `NAME:`
    /// is a local, not the field.
    #[test]
    fn a_shorthand_field_is_the_member_and_a_local_and_a_value_after_the_colon_is_not_the_field() {
        let text = "pub struct DirEntry {\n    follow_link: bool,\n}\n\
            impl DirEntry {\n\
            fn a(follow_link: bool) -> DirEntry { DirEntry { follow_link } }\n\
            fn b(&self) -> bool { let DirEntry { follow_link, .. } = self; *follow_link }\n\
            fn c(&self) -> bool { let DirEntry { follow_link: f } = self; *f }\n\
            fn d(x: bool) -> Other { Other { shown: follow_link } }\n\
            fn e(&self) -> bool { let Other { shown: follow_link } = x; follow_link }\n\
            }\n";
        let member = rust_member_declared_at(text, 1, 4, "follow_link").unwrap();
        let found = classify(text, &member);
        let verdicts = |line: u32| found.iter().filter(|(l, _)| *l == line).map(|(_, v)| v.clone()).collect::<Vec<_>>();
        let shorthand = |verdict: &CfgOffOccurrence| matches!(verdict, CfgOffOccurrence::SameMember { shorthand_field: true, .. });
        // Line 5: the parameter (a local binding), then the shorthand field of the literal.
        assert!(matches!(verdicts(5)[0], CfgOffOccurrence::OtherSymbol(_)) && shorthand(&verdicts(5)[1]), "{found:?}");
        assert!(
            matches!(&verdicts(5)[1], CfgOffOccurrence::SameMember { how, .. } if how.contains("literal, which reads a local `follow_link`"))
        );
        assert!(
            matches!(&verdicts(6)[0], CfgOffOccurrence::SameMember { how, shorthand_field: true } if how.contains("pattern, which also binds a local `follow_link`")),
            "{found:?}"
        );
        assert_eq!(verdicts(6)[1], CfgOffOccurrence::Undecided);
        assert!(matches!(verdicts(7)[0], CfgOffOccurrence::SameMember { shorthand_field: false, .. }), "{found:?}");
        assert_eq!(verdicts(8), vec![CfgOffOccurrence::Undecided]);
        assert_eq!(verdicts(9), vec![CfgOffOccurrence::Undecided, CfgOffOccurrence::Undecided]);
    }

    #[test]
    fn a_trait_method_or_free_function_is_no_member() {
        let text = "trait T {\n    fn go(&self);\n}\nfn go() {}\n";
        assert_eq!(rust_member_declared_at(text, 1, 7, "go"), None);
        assert_eq!(rust_member_declared_at(text, 3, 3, "go"), None);
    }
}
