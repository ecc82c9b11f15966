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
//! struct or a function of an inherent `impl` (its owner type's name). [`classify_occurrences`]
//! then tells each occurrence of the name apart, by the syntax tree (tree-sitter parses code
//! behind any cfg) and, inside a macro's token tree, by the text around it:
//!
//! - [`CfgOffOccurrence::SameMember`]: `self.NAME` in an `impl` of the owner (a call for a
//!   function, no call for a field), `Owner::NAME` / `Self::NAME` in that `impl` (a function), a
//!   struct literal or pattern of the owner naming the field, a twin declaration (`fn NAME` in an
//!   inherent `impl Owner`, a field `NAME` of `struct Owner`).
//! - [`CfgOffOccurrence::OtherSymbol`]: a path through another type (`Error::from_path`), a
//!   member of `self` in another type's `impl`, a method call whose receiver is a parameter typed
//!   as another type, a field where a function was renamed (or a method call or path where a
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

/// A member of a named type: what [`classify_occurrences`] compares occurrences with.
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
    /// Certainly the same member: how it is written (`` `self.follow_link` in `impl DirEntry` ``).
    SameMember(String),
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
/// [`CfgOffOccurrence::Undecided`].
pub(crate) fn classify_occurrences(workspace_root: &Path, places: &[(PathBuf, u32, usize)], member: &RustMember) -> Vec<CfgOffOccurrence> {
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

/// [`classify_occurrences`] for one occurrence of a parsed file.
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
    let same = |how: String| CfgOffOccurrence::SameMember(how);
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
                if let Some(typed) = node_text(text, receiver).and_then(|variable| parameter_type(text, identifier, variable)) {
                    if typed != owner {
                        return other(format!("a member of a parameter typed `{typed}`: another type's"));
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
        "field_initializer" | "shorthand_field_initializer" | "field_pattern" => {
            if !field {
                return other("a struct field named in a literal or pattern, not the function".to_owned());
            }
            let container = if parent.kind() == "field_pattern" { parent.parent() } else { parent.parent().and_then(|list| list.parent()) };
            let type_field = if parent.kind() == "field_pattern" { "type" } else { "name" };
            match container
                .and_then(|node| node.child_by_field_name(type_field))
                .and_then(|node| node_text(text, node))
                .and_then(resolve_self)
            {
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
    let line_start: usize = text.split_inclusive('\n').take(line0 as usize).map(str::len).sum();
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

/// The type's name of the parameter `variable` of the function around `node`, when written
/// (`ent: &fs::DirEntry` → `DirEntry`).
fn parameter_type(text: &str, node: tree_sitter::Node<'_>, variable: &str) -> Option<String> {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        if ancestor.kind() == "function_item" {
            let parameters = ancestor.child_by_field_name("parameters")?;
            let mut cursor = parameters.walk();
            let found = parameters.named_children(&mut cursor).find(|parameter| {
                parameter.kind() == "parameter"
                    && parameter.child_by_field_name("pattern").and_then(|pattern| node_text(text, pattern)) == Some(variable)
            })?;
            return type_name(node_text(text, found.child_by_field_name("type")?)?);
        }
        current = ancestor.parent();
    }
    None
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
        let same: Vec<u32> = found.iter().filter(|(_, v)| matches!(v, CfgOffOccurrence::SameMember(_))).map(|(l, _)| *l).collect();
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
        assert!(matches!(verdict(15)[0], CfgOffOccurrence::SameMember(_)), "{:?}", verdict(15));
        // Inside `itry!(…)`: by the text, `Error::` qualifies it.
        assert!(matches!(verdict(16)[0], CfgOffOccurrence::OtherSymbol(_)), "{:?}", verdict(16));
        assert!(matches!(verdict(17)[0], CfgOffOccurrence::SameMember(_)), "{:?}", verdict(17));
        assert!(matches!(verdict(22)[0], CfgOffOccurrence::OtherSymbol(_)), "{:?}", verdict(22));
    }

    #[test]
    fn a_trait_method_or_free_function_is_no_member() {
        let text = "trait T {\n    fn go(&self);\n}\nfn go() {}\n";
        assert_eq!(rust_member_declared_at(text, 1, 7, "go"), None);
        assert_eq!(rust_member_declared_at(text, 3, 3, "go"), None);
    }
}
