//! References of a Rust proc-macro derive, checked and completed (trial175 F1).
//!
//! rust-analyzer's `textDocument/references` at `#[proc_macro_derive(Error)] pub fn
//! derive_error` (thiserror-impl 2.0.21), or at a `use thiserror::Error;`, listed the 14 `use`
//! lines, then ~28 struct literals and type uses of each test's LOCAL `struct Error` (the type
//! the derive is applied to) and `Box<dyn Error>` (std's trait), and none — or, on another run,
//! a varying part — of the 118 `#[derive(Error, …)]` attribute uses.
//!
//! [`check_derive_references`] applies when the queried symbol is a proc-macro derive (the `fn`
//! under `#[proc_macro_derive(NAME…)]`, or a name whose `definition` leads there):
//! - entries that are `derive(…)` attribute items are kept;
//! - a `use` entry is asked `textDocument/definition` (test_backtrace's `use std::error::{self,
//!   Error};` was listed): kept when it leads to the macro or gives no answer in time (said);
//!   dropped when it leads elsewhere only;
//! - every other entry (not a doc comment) is dropped: a derive macro is named only in `use`
//!   paths and `derive(…)` attributes; those whose `definition` leads elsewhere (the local
//!   struct) are counted apart from those where it named the macro too (test_backtrace's
//!   `Box<dyn Error>`, std's trait, with both `Error`s imported) or nothing;
//! - the `#[derive(…, NAME, …)]` uses in the files whose `use` of the macro is in the answer are
//!   read from the syntax tree (tree-sitter) and added, with a note saying how they were found
//!   and what the search leaves out.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

use crate::lsp::client::LanguageServer;
use crate::lsp::position::{is_identifier_char, split_lines};
use crate::lsp::uri::lsp_uri_to_path;

/// Locations named in a note at most (the rest are counted).
const NAMED_IN_NOTE: usize = 12;

/// Lines above a `fn` line searched for its `#[proc_macro_derive(…)]` attribute at most.
const ATTRIBUTE_LINES_ABOVE: usize = 24;

/// The derive macro's name when 0-based `line0` of Rust `source` holds a `fn` whose attributes
/// (the lines above it, through doc comments and other attributes) include
/// `#[proc_macro_derive(NAME…)]`: `Some("Error")` for thiserror-impl's `derive_error`. `None`
/// for any other line.
pub fn proc_macro_derive_name_at(source: &str, line0: u32) -> Option<String> {
    let lines = split_lines(source);
    let fn_line = lines.get(line0 as usize)?;
    if !crate::lsp::position::contains_word(fn_line, "fn") {
        return None;
    }
    for above in lines[..line0 as usize].iter().rev().take(ATTRIBUTE_LINES_ABOVE) {
        let trimmed = above.trim();
        if let Some(rest) = trimmed.strip_prefix("#[proc_macro_derive(") {
            let name: String = rest.trim_start().chars().take_while(|ch| is_identifier_char(*ch)).collect();
            return (!name.is_empty()).then_some(name);
        }
        let part_of_the_item = trimmed.starts_with("#[")
            || trimmed.starts_with("//")
            || trimmed.starts_with(')')
            || trimmed.starts_with(']')
            || (!trimmed.is_empty() && !trimmed.ends_with(';') && !trimmed.ends_with('}') && !trimmed.ends_with('{'));
        if !part_of_the_item {
            return None;
        }
    }
    None
}

/// Whether `line_text` is a `use` declaration (`use x::Error;`, `pub use x::{Error, Other};`).
fn is_use_line(line_text: &str) -> bool {
    let trimmed = line_text.trim_start();
    let without_visibility = trimmed
        .strip_prefix("pub(crate) ")
        .or_else(|| trimmed.strip_prefix("pub(super) "))
        .or_else(|| trimmed.strip_prefix("pub "))
        .unwrap_or(trimmed);
    without_visibility.starts_with("use ")
}

/// Whether the entry starting at byte `column` of `line_text` is a `use` path (the line is a
/// `use` declaration, or the continuation of one: `Error,` inside `use x::{…}` spread over
/// lines is read by the line's own text only) or an item of a `derive(…)` attribute.
fn is_use_or_derive_entry(line_text: &str, column: usize) -> bool {
    if is_use_line(line_text) {
        return true;
    }
    let before = line_text.get(..column).unwrap_or_default();
    before.rfind("#[").is_some_and(|attribute| before[attribute..].contains("derive(") && !before[attribute..].contains(']'))
}

/// The 0-based (line, byte column) of every bare `NAME` item of a `derive(…)` attribute in Rust
/// `source` (`#[derive(Error, Debug)]`, `#[cfg_attr(x, derive(Error))]`); a path item
/// (`derive(krate::Error)`) is not one. Empty when the text does not parse.
pub fn derive_attribute_uses(source: &str, name: &str) -> Vec<(u32, usize)> {
    if !source.contains("derive") || !source.contains(name) {
        return Vec::new();
    }
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Rust) else { return Vec::new() };
    let mut found = Vec::new();
    let mut stack = vec![root.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<tree_sitter::Node<'_>> = node.children(&mut cursor).collect();
        if node.kind() == "token_tree" {
            // `derive` followed by this token tree (in an attribute's arguments or nested
            // inside `cfg_attr(…)`): the tree's identifiers not after `::` are its items.
            let after_derive = node
                .prev_sibling()
                .is_some_and(|before| before.kind() == "identifier" && source.get(before.byte_range()) == Some("derive"))
                || node.parent().is_some_and(|parent| {
                    parent.kind() == "attribute" && parent.child(0).is_some_and(|path| source.get(path.byte_range()) == Some("derive"))
                });
            if after_derive {
                for (index, child) in children.iter().enumerate() {
                    let after_path_separator = index > 0 && children[index - 1].kind() == "::";
                    let before_path_separator = children.get(index + 1).is_some_and(|next| next.kind() == "::");
                    if child.kind() == "identifier"
                        && source.get(child.byte_range()) == Some(name)
                        && !after_path_separator
                        && !before_path_separator
                    {
                        found.push((child.start_position().row as u32, child.start_position().column));
                    }
                }
            }
        }
        stack.extend(children);
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// What [`check_derive_references`] did.
#[derive(Debug, Clone, Default)]
pub struct DeriveReferences {
    /// The references: the kept entries, then the added derive uses.
    pub answer: Vec<lsp_types::Location>,
    /// Notes: what was dropped, added, left unchecked, and how.
    pub notes: Vec<String>,
}

/// For a rust-analyzer `references` answer at 0-based (`line0`, `character`, server encoding) of
/// `origin`: when the queried symbol is a proc-macro derive (the position, or a `definition`
/// target of it, is a `fn` under `#[proc_macro_derive(NAME…)]`), keeps the `derive(…)` entries,
/// asks `definition` at the `use` entries (dropping those that lead elsewhere only), drops the
/// rest (not a place a derive macro is named; counted and named in notes, with where
/// `definition` leads), and adds the `#[derive(…, NAME, …)]` uses of the files whose `use` of the
/// macro is listed, with a note. `None` when the symbol is no proc-macro derive (the answer is
/// then left as it is). Bounded by `deadline`; a `use` entry not asked or not answered in time stays
/// and is said.
pub fn check_derive_references(
    server: &LanguageServer,
    origin: &Path,
    line0: u32,
    character: u32,
    answer: &[lsp_types::Location],
    deadline: Instant,
    shown: &dyn Fn(&Path) -> String,
) -> Option<DeriveReferences> {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let read = |path: &Path| crate::files::read_workspace_file_to_string(server.workspace_root(), path).ok();
    let origin = canonical(origin);
    let origin_text = read(&origin)?;
    // Cheap refusal first: the origin is a proc-macro fn, or a `use` / derive naming a macro.
    let origin_line = split_lines(&origin_text).get(line0 as usize).map(|line| line.to_string())?;
    let origin_is_the_fn = proc_macro_derive_name_at(&origin_text, line0);
    let encoding = server.position_encoding();
    if origin_is_the_fn.is_none() && !is_use_or_derive_entry(&origin_line, encoding.byte_from_column(&origin_line, character)) {
        return None;
    }
    let mut queried: HashSet<(PathBuf, u32, u32)> =
        crate::lsp::rename_coverage::definition_targets(server, &origin, line0, character, deadline);
    queried.insert((origin.clone(), line0, character));
    let (macro_name, macro_fn) = match origin_is_the_fn {
        Some(name) => (name, (origin.clone(), line0)),
        None => queried.iter().find_map(|(path, target_line0, _)| {
            let text = read(path)?;
            proc_macro_derive_name_at(&text, *target_line0).map(|name| (name, (path.clone(), *target_line0)))
        })?,
    };
    let macro_fn_name = {
        let text = read(&macro_fn.0).unwrap_or_default();
        let line = split_lines(&text).get(macro_fn.1 as usize).map(|line| line.to_string()).unwrap_or_default();
        line.split("fn ").nth(1).map(|rest| rest.chars().take_while(|ch| is_identifier_char(*ch)).collect::<String>()).unwrap_or_default()
    };
    let location_path = |location: &lsp_types::Location| lsp_uri_to_path(&location.uri).map(|path| canonical(&path));
    let line_of = |path: &Path, target_line0: u32| -> Option<String> {
        let text = read(path)?;
        split_lines(&text).get(target_line0 as usize).map(|line| line.to_string())
    };
    let mut kept: Vec<lsp_types::Location> = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    let mut unanswered: Vec<String> = Vec::new();
    let mut not_a_derive_position: Vec<String> = Vec::new();
    let mut importing_files: Vec<PathBuf> = Vec::new();
    for location in answer {
        let Some(path) = location_path(location) else {
            kept.push(location.clone());
            continue;
        };
        let start = location.range.start;
        let place = format!("{}:{}", shown(&path), start.line + 1);
        let line_text = line_of(&path, start.line).unwrap_or_default();
        let byte = encoding.byte_from_column(&line_text, start.character);
        let is_use_line = is_use_line(&line_text);
        let mut import = || {
            if is_use_line && !importing_files.contains(&path) {
                importing_files.push(path.clone());
            }
        };
        if queried.contains(&(path.clone(), start.line, start.character)) {
            import();
            kept.push(location.clone());
            continue;
        }
        // A `derive(…)` item is the macro's use, and so is a doc link (`[Error]`).
        if line_text.trim_start().starts_with("//") || (!is_use_line && is_use_or_derive_entry(&line_text, byte)) {
            kept.push(location.clone());
            continue;
        }
        // A `use` may be another `Error` (test_backtrace's `use std::error::{self, Error};` was
        // listed), and any other place is one for certain: a derive macro is named only in `use`
        // paths and `derive(…)` attributes. rust-analyzer's `definition` at test_backtrace's
        // `Box<dyn Error>` (std's trait; `use thiserror::Error` also in scope) named the macro.
        let targets = if Instant::now() >= deadline {
            HashSet::new()
        } else {
            crate::lsp::rename_coverage::definition_targets(server, &path, start.line, start.character, deadline)
        };
        let mut elsewhere: Vec<&(PathBuf, u32, u32)> = targets.iter().filter(|target| !queried.contains(*target)).collect();
        elsewhere.sort();
        if is_use_line {
            if targets.is_empty() {
                unanswered.push(place.clone());
            }
            if targets.is_empty() || elsewhere.len() < targets.len() {
                import();
                kept.push(location.clone());
                continue;
            }
        }
        match elsewhere.first() {
            Some((target, target_line0, _)) => dropped.push(format!("{place} (→ {}:{})", shown(target), target_line0 + 1)),
            None => not_a_derive_position.push(place),
        }
    }
    // The derive uses of the files that import the macro, from their syntax trees.
    let listed: HashSet<(PathBuf, u32)> =
        kept.iter().filter_map(|location| location_path(location).map(|path| (path, location.range.start.line))).collect();
    let mut listed_derives = 0usize;
    let mut added: Vec<lsp_types::Location> = Vec::new();
    for file in &importing_files {
        let Some(text) = read(file) else { continue };
        let lines = split_lines(&text);
        for (use_line0, byte) in derive_attribute_uses(&text, &macro_name) {
            if listed.contains(&(file.clone(), use_line0)) {
                listed_derives += 1;
                continue;
            }
            let line_text = lines.get(use_line0 as usize).copied().unwrap_or_default();
            let start = lsp_types::Position { line: use_line0, character: encoding.column_from_byte(line_text, byte) };
            let end = lsp_types::Position { line: use_line0, character: encoding.column_from_byte(line_text, byte + macro_name.len()) };
            let uri = crate::lsp::uri::path_to_lsp_uri(file);
            added.push(lsp_types::Location { uri, range: lsp_types::Range { start, end } });
        }
    }
    let named = |places: &[String]| -> String {
        let shown_places: Vec<&str> = places.iter().take(NAMED_IN_NOTE).map(String::as_str).collect();
        let more = if places.len() > NAMED_IN_NOTE { format!(", … {} more", places.len() - NAMED_IN_NOTE) } else { String::new() };
        format!("{}{more}", shown_places.join(", "))
    };
    let server_id = server.id();
    let mut notes = Vec::new();
    if !dropped.is_empty() {
        notes.push(format!(
            "note: left out: {} {server_id} gave {} to other symbols named `{macro_name}` — the derive macro `{macro_name}` (`#[proc_macro_derive({macro_name})] fn {macro_fn_name}`) is used only in `use` paths and `#[derive(…)]` attributes, and {server_id}'s own `definition` at each of these leads elsewhere (a type the derive is applied to, a same-named trait): {}",
            crate::render::plural(dropped.len(), "entry"),
            crate::render::one_or_many(dropped.len(), "resolves", "resolve"),
            named(&dropped)
        ));
    }
    if !not_a_derive_position.is_empty() {
        notes.push(format!(
            "note: left out: {} {server_id} gave {} neither a `use` nor a `#[derive(…)]` item, the only places a derive macro is named (a type or expression position: another symbol named `{macro_name}`, though {server_id}'s `definition` there named the macro or nothing): {}",
            crate::render::plural(not_a_derive_position.len(), "entry"),
            crate::render::one_or_many(not_a_derive_position.len(), "is", "are"),
            named(&not_a_derive_position)
        ));
    }
    if !unanswered.is_empty() {
        notes.push(format!(
            "note: not cross-checked: {} listed `use` lines naming `{macro_name}` got no `definition` answer from {server_id} in time, so some may import another `{macro_name}` (a trait, a type); they are kept, and their files' derives searched (ask `definition` at each, or repeat the call once the server is warm): {}",
            unanswered.len(),
            named(&unanswered)
        ));
    }
    let importing_shown: Vec<String> = importing_files.iter().map(|file| shown(file)).collect();
    if importing_files.is_empty() {
        notes.push(format!(
            "note: not searched: no `use` of the derive macro `{macro_name}` is in this answer, so its `#[derive({macro_name})]` uses were not read from the source; grep -rn 'derive(.*{macro_name}' in the crates that depend on the macro's crate to find them"
        ));
    } else {
        notes.push(format!(
            "note: {} `#[derive(…, {macro_name}, …)]` attribute use(s) of the derive macro were read from the syntax trees of the {} file(s) whose listed `use` of it leads to the macro ({}): {} added, {listed_derives} already listed by {server_id}; not searched: derives written as a path (`#[derive(krate::{macro_name})]`), files importing it under another name or through a glob — grep for those",
            added.len() + listed_derives,
            importing_files.len(),
            named(&importing_shown),
            added.len()
        ));
    }
    kept.extend(added);
    Some(DeriveReferences { answer: kept, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derive_name_is_read_from_the_attribute_above_the_fn() {
        let source = "use proc_macro::TokenStream;\n\n/// Derives it.\n#[proc_macro_derive(Error, attributes(backtrace, error))]\n#[allow(missing_docs)]\npub fn derive_error(\n    input: TokenStream,\n) -> TokenStream {\n    input\n}\n\nfn helper() {}\n";
        assert_eq!(proc_macro_derive_name_at(source, 5).as_deref(), Some("Error"));
        assert_eq!(proc_macro_derive_name_at(source, 11), None);
        assert_eq!(proc_macro_derive_name_at(source, 0), None);
    }

    #[test]
    fn derive_items_are_bare_names_inside_derive_attributes_only() {
        let source = "use l::Error;\n\n#[derive(Error, Debug)]\nstruct A;\n\n#[derive(\n    Debug,\n    Error,\n)]\nstruct B;\n\n#[derive(other::Error)]\nstruct C;\n\n#[cfg_attr(test, derive(Error))]\nstruct D;\n\nfn f() -> Error { Error }\n";
        assert_eq!(derive_attribute_uses(source, "Error"), vec![(2, 9), (7, 4), (14, 24)]);
    }

    #[test]
    fn use_lines_and_derive_items_are_recognised_by_their_line() {
        assert!(is_use_or_derive_entry("use thiserror::Error;", 15));
        assert!(is_use_or_derive_entry("    pub use thiserror::{Error, Other};", 24));
        assert!(is_use_or_derive_entry("    #[derive(Debug, Error)]", 20));
        assert!(!is_use_or_derive_entry("    let _ = Error;", 12));
        assert!(!is_use_or_derive_entry("    #[derive(Debug)] struct Error;", 32));
    }
}
