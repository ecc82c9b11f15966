//! TypeScript: keys of object literals type-asserted to the type whose member a rename renames
//! (R-REN-1; trial160 F1, M1).
//!
//! A literal cast through `unknown` or `any` (`{ overscan: 1, measureElement } as unknown as
//! Required<VirtualizerOptions<…>>`), or asserted with `<T>`, is not contextually typed: tsserver
//! does not link its keys to the type's members, so renaming `VirtualizerOptions.overscan` left
//! the default `overscan: 1` under the old name. tsc stays clean (nothing relates the literal to
//! the type), the write check says "no new errors", and the renamed option reads `undefined` at
//! run time (@tanstack/virtual-core 3.19.13's `setOptions` defaults: `Invalid array length`,
//! `this.options.measureItem is not a function`).
//!
//! [`asserted_literal_keys`] finds, in the files the server's project holds (the word search of
//! [`crate::lsp::rename_coverage::grep_word`]), each key of the old name — plain (`overscan: 1`),
//! shorthand (`measureElement,`), a method (`f() {}`) or a quoted key — of an object literal whose
//! value is asserted (`as T`, `as unknown as T`, `as any as T`, `<T>x`, `satisfies T`) to a type
//! that is, or wraps in `Required`/`Partial`/`Readonly`/`Pick`/`Omit`/`NonNullable` (or an
//! intersection holds), a type that declares the renamed member. The asserted type's name is
//! resolved by the server's definition, not by its text: a key is renamed only where the name leads
//! to that declaration; where the server gives no definition, the key is reported unresolved (the
//! rename warns and is staged). Keys the server's own edit already renames (a plain `as T` is
//! contextually typed) are left to it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language as _};
use ast_grep_language::SupportLang;

use crate::files::WorkspaceReader;
use crate::lsp::client::LanguageServer;

/// The most keys a note or warning names; the rest are counted.
const NAMED: usize = 6;

/// Type wrappers whose first type argument is the type whose keys the literal holds.
const WRAPPERS: [&str; 6] = ["Required", "Partial", "Readonly", "Pick", "Omit", "NonNullable"];

/// One key of an asserted object literal.
#[derive(Debug, Clone)]
pub(crate) struct AssertedKey {
    /// `path:line` (1-based) as shown.
    pub place: String,
    /// The key as written (`overscan: 1`, `measureElement,`), cut.
    pub written: String,
    /// The assertion as written after the literal (`as unknown as Required<VirtualizerOptions<…>>`), cut.
    pub assertion: String,
    /// A shorthand key (`measureElement,`): renamed as `NEW: OLD`.
    pub shorthand: bool,
}

/// What [`asserted_literal_keys`] found.
#[derive(Debug, Default)]
pub(crate) struct AssertedLiteralKeys {
    /// The types that declare the renamed member (`VirtualizerOptions`).
    pub owners: Vec<String>,
    /// The edits that rename the keys found, by canonical path (server encoding).
    pub edits: BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    /// The keys renamed: their asserted type leads to an owner.
    pub renamed: Vec<AssertedKey>,
    /// The keys whose asserted type the server could not resolve (no definition): not renamed.
    pub unresolved: Vec<AssertedKey>,
}

impl AssertedLiteralKeys {
    fn places(keys: &[AssertedKey]) -> String {
        let named: Vec<String> =
            keys.iter().take(NAMED).map(|key| format!("{} `{}` ({})", key.place, key.written, key.assertion)).collect();
        let more = if keys.len() > NAMED { format!(" and {} more", keys.len() - NAMED) } else { String::new() };
        format!("{}{more}", named.join(", "))
    }

    fn owners_shown(&self) -> String {
        self.owners.iter().map(|owner| format!("`{owner}`")).collect::<Vec<_>>().join(", ")
    }

    /// The rename's `note:` on the keys it added, `None` when there are none.
    pub(crate) fn rename_note(&self, server_id: &str, old_name: &str, new_name: &str) -> Option<String> {
        if self.renamed.is_empty() {
            return None;
        }
        let shorthand = self.renamed.iter().any(|key| key.shorthand);
        Some(format!(
            "note: runbound renamed {} named `{old_name}` in object literals type-asserted to {} ({}): {server_id} does not link them to the property — a literal cast through `unknown`/`any` or asserted with `<T>` gets no contextual type — and tsc reports nothing, yet the code reads them as the renamed property at run time (a default left as `{old_name}` reads `undefined` as `{new_name}`){}",
            crate::render::plural(self.renamed.len(), "key"),
            self.owners_shown(),
            Self::places(&self.renamed),
            if shorthand { format!("; a shorthand key keeps its value: `{old_name},` became `{new_name}: {old_name},`") } else { String::new() },
        ))
    }

    /// The rename's `WARNING:` on the keys whose asserted type could not be resolved, `None`
    /// when there are none.
    pub(crate) fn unresolved_warning(&self, server_id: &str, old_name: &str, new_name: &str) -> Option<String> {
        if self.unresolved.is_empty() {
            return None;
        }
        Some(format!(
            "WARNING: {} named `{old_name}` in object literals type-asserted to a type {server_id} could not resolve ({}) {} NOT renamed: where that type is {} (or wraps it), the key sets the renamed property, and left as `{old_name}` it is ignored at run time (the property reads `undefined`) — tsc reports nothing, since the cast relates nothing; check each and rename it to `{new_name}` where the type is one of those (a shorthand `{old_name},` as `{new_name}: {old_name},`)",
            crate::render::plural(self.unresolved.len(), "key"),
            Self::places(&self.unresolved),
            crate::render::one_or_many(self.unresolved.len(), "was", "were"),
            self.owners_shown(),
        ))
    }

    /// Why the rename is staged when keys stay unresolved, `None` when there are none.
    pub(crate) fn staged_because(&self, old_name: &str, new_name: &str) -> Option<String> {
        if self.unresolved.is_empty() {
            return None;
        }
        Some(format!(
            "NOT written: this rename meets {} named `{old_name}` in object literals asserted to a type the server could not resolve (see the WARNING below): where it is {}, the key sets the renamed property and, left unrenamed, is ignored at run time with no error from tsc; it is staged instead — `resolve` accept and then rename those keys to `{new_name}` where the type is that one, or discard",
            crate::render::plural(self.unresolved.len(), "key"),
            self.owners_shown(),
        ))
    }

    /// The `references` note: the keys that set the property though the server does not list
    /// them, `None` when there are none.
    pub(crate) fn references_note(&self, server_id: &str, old_name: &str) -> Option<String> {
        if self.renamed.is_empty() && self.unresolved.is_empty() {
            return None;
        }
        let mut sentence = String::new();
        if !self.renamed.is_empty() {
            sentence = format!(
                "note: {} named `{old_name}` in object literals type-asserted to {} {} not in this list ({}): {server_id} does not link them — a literal cast through `unknown`/`any` or asserted with `<T>` gets no contextual type — yet they set this property at run time; lsp_rename renames them with it",
                crate::render::plural(self.renamed.len(), "key"),
                self.owners_shown(),
                crate::render::one_or_many(self.renamed.len(), "is", "are"),
                Self::places(&self.renamed),
            );
        }
        if !self.unresolved.is_empty() {
            if !sentence.is_empty() {
                sentence.push_str("; ");
            } else {
                sentence.push_str("note: ");
            }
            sentence.push_str(&format!(
                "{} named `{old_name}` in object literals asserted to a type {server_id} could not resolve ({}): {} this property where that type is {}",
                crate::render::plural(self.unresolved.len(), "key"),
                Self::places(&self.unresolved),
                crate::render::one_or_many(self.unresolved.len(), "it sets", "they set"),
                self.owners_shown(),
            ));
        }
        Some(sentence)
    }
}

/// The declaration of a type that declares the renamed member.
struct Owner {
    /// Canonical path.
    path: PathBuf,
    /// 0-based lines from the declaration's start to its name's line: a definition of the
    /// type's name leads there.
    lines: std::ops::RangeInclusive<u32>,
}

fn language_of(path: &Path) -> Option<SupportLang> {
    SupportLang::from_path(path).filter(|language| matches!(language, SupportLang::TypeScript | SupportLang::Tsx))
}

fn text_of<'s>(source: &'s str, node: tree_sitter::Node<'_>) -> &'s str {
    source.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The type declaring the member named `name` at byte `start` of `source`, when the word there
/// is the name of a property or method of an interface, type literal or class.
fn owner_of_member(source: &str, root: tree_sitter::Node<'_>, start: usize, name: &str) -> Option<(String, u32, u32)> {
    let identifier = root.descendant_for_byte_range(start, start + name.len())?;
    if identifier.start_byte() != start || identifier.end_byte() != start + name.len() {
        return None;
    }
    let (declaration, owner) = crate::lsp::syntax::typescript_member_declaration(identifier)?;
    // An `export` before the declaration: its definition may lead to the statement.
    let start = declaration.parent().filter(|up| up.kind() == "export_statement").unwrap_or(declaration);
    Some((text_of(source, owner).to_owned(), start.start_position().row as u32, owner.start_position().row as u32))
}

/// The object-literal key node of the word at byte `start` (length `len`) and whether it is a
/// shorthand; `None` for any other occurrence.
fn object_key(root: tree_sitter::Node<'_>, start: usize, len: usize) -> Option<(tree_sitter::Node<'_>, tree_sitter::Node<'_>, bool)> {
    let node = root.descendant_for_byte_range(start, start + len)?;
    if node.start_byte() != start || node.end_byte() != start + len {
        return None;
    }
    let parent = node.parent()?;
    match (node.kind(), parent.kind()) {
        ("shorthand_property_identifier", "object") => Some((node, parent, true)),
        ("property_identifier", "pair") if parent.child_by_field_name("key").is_some_and(|key| key.id() == node.id()) => {
            Some((node, parent.parent().filter(|up| up.kind() == "object")?, false))
        }
        ("property_identifier", "method_definition") if parent.child_by_field_name("name").is_some_and(|key| key.id() == node.id()) => {
            Some((node, parent.parent().filter(|up| up.kind() == "object")?, false))
        }
        ("string_fragment", "string") => {
            let pair = parent.parent().filter(|up| up.kind() == "pair")?;
            if pair.child_by_field_name("key").is_none_or(|key| key.id() != parent.id()) || parent.named_child_count() != 1 {
                return None;
            }
            Some((node, pair.parent().filter(|up| up.kind() == "object")?, false))
        }
        _ => None,
    }
}

/// The type an object literal is asserted to: the type of the outermost assertion around it
/// (through parentheses), past `unknown` / `any` steps; `None` when it is not asserted, or only
/// to `unknown`/`any`/`const`.
fn asserted_type<'t>(object: tree_sitter::Node<'t>, source: &str) -> Option<(tree_sitter::Node<'t>, tree_sitter::Node<'t>)> {
    let mut value = object;
    let mut found: Option<tree_sitter::Node<'t>> = None;
    let mut outermost = object;
    while let Some(up) = value.parent() {
        match up.kind() {
            "parenthesized_expression" => {
                value = up;
                continue;
            }
            "as_expression" | "satisfies_expression" => {
                let mut cursor = up.walk();
                let named: Vec<tree_sitter::Node<'_>> = up.named_children(&mut cursor).collect();
                if named.len() != 2 || named[0].id() != value.id() {
                    break;
                }
                let ty = named[1];
                if !(ty.kind() == "predefined_type" && matches!(text_of(source, ty), "unknown" | "any")) {
                    found = Some(ty);
                }
                outermost = up;
                value = up;
            }
            "type_assertion" => {
                let mut cursor = up.walk();
                let named: Vec<tree_sitter::Node<'_>> = up.named_children(&mut cursor).collect();
                if named.len() != 2 || named[1].id() != value.id() || named[0].kind() != "type_arguments" {
                    break;
                }
                let ty = named[0].named_child(0)?;
                if !(ty.kind() == "predefined_type" && matches!(text_of(source, ty), "unknown" | "any")) {
                    found = Some(ty);
                }
                outermost = up;
                value = up;
            }
            _ => break,
        }
    }
    found.map(|ty| (ty, outermost))
}

/// The type names whose members a literal of type `ty` holds: `T`, `ns.T`, `T<…>`, and through
/// the wrappers and intersections.
fn type_names<'t>(ty: tree_sitter::Node<'t>, source: &str, out: &mut Vec<tree_sitter::Node<'t>>) {
    match ty.kind() {
        "type_identifier" => out.push(ty),
        "nested_type_identifier" => {
            if let Some(name) = ty.child_by_field_name("name").or_else(|| ty.named_child((ty.named_child_count() as u32).saturating_sub(1)))
            {
                out.push(name);
            }
        }
        "generic_type" => {
            let Some(name) = ty.child_by_field_name("name") else { return };
            let last = text_of(source, name).rsplit('.').next().unwrap_or("");
            if WRAPPERS.contains(&last) {
                let arguments = ty.child_by_field_name("type_arguments").or_else(|| {
                    let mut cursor = ty.walk();
                    let found = ty.named_children(&mut cursor).find(|child| child.kind() == "type_arguments");
                    found
                });
                if let Some(first) = arguments.and_then(|arguments| arguments.named_child(0)) {
                    type_names(first, source, out);
                }
            } else {
                type_names(name, source, out);
            }
        }
        "parenthesized_type" | "intersection_type" => {
            let mut cursor = ty.walk();
            for child in ty.named_children(&mut cursor).collect::<Vec<_>>() {
                type_names(child, source, out);
            }
        }
        _ => {}
    }
}

/// The keys of object literals asserted to a type that declares the renamed member `old_name`
/// (see the module docs). `declarations` holds, by canonical path, 0-based positions
/// (line, character in the server's encoding) where the renamed member may be declared (the
/// server's rename edits, a references answer): those that name a member of an interface, type
/// or class give the owners. `covered` holds the server's own edits (keys they rename are left
/// to them). Files are read beneath `workspace_root`; definitions are asked before `deadline`.
pub(crate) fn asserted_literal_keys(
    server: &LanguageServer,
    workspace_root: &Path,
    declarations: &BTreeMap<PathBuf, Vec<(u32, u32)>>,
    covered: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    old_name: &str,
    new_name: &str,
    deadline: Instant,
) -> AssertedLiteralKeys {
    let mut found = AssertedLiteralKeys::default();
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return found };
    let encoding = server.position_encoding();
    let shown = |path: &Path| crate::render::display_path(workspace_root, path);
    let mut owners: Vec<Owner> = Vec::new();
    for (path, positions) in declarations {
        let Some(language) = language_of(path) else { continue };
        let Ok(source) = reader.read_to_string(path) else { continue };
        let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(source.as_str(), language) else { continue };
        let root = grep.root().get_inner_node();
        let lines: Vec<&str> = source.split('\n').collect();
        let mut line_starts = vec![0usize];
        line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        for (line, character) in positions {
            let Some(line_text) = lines.get(*line as usize) else { continue };
            let byte = encoding.byte_from_column(line_text, *character);
            let start = line_starts[*line as usize] + byte;
            let Some((name, first, last)) = owner_of_member(&source, root, start, old_name) else { continue };
            if !owners.iter().any(|owner| owner.path == *path && owner.lines == (first..=last)) {
                if !found.owners.contains(&name) {
                    found.owners.push(name);
                }
                owners.push(Owner { path: path.clone(), lines: first..=last });
            }
        }
    }
    if owners.is_empty() {
        return found;
    }
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), workspace_root, server.root(), old_name);
    let mut by_file: BTreeMap<&Path, Vec<&crate::lsp::rename_coverage::WordHit>> = BTreeMap::new();
    for hit in &grep.hits {
        by_file.entry(hit.path.as_path()).or_default().push(hit);
    }
    // Definitions asked once per type name's position.
    let mut resolved: HashMap<(PathBuf, u32, u32), bool> = HashMap::new();
    for (path, hits) in by_file {
        let Some(language) = language_of(path) else { continue };
        let Ok(source) = reader.read_to_string(path) else { continue };
        let Ok(parsed) = AstGrep::<StrDoc<SupportLang>>::try_new(source.as_str(), language) else { continue };
        let root = parsed.root().get_inner_node();
        let mut line_starts = vec![0usize];
        line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        for hit in hits {
            let start_column = encoding.column_from_byte(&hit.line_text, hit.byte_start);
            let end_column = encoding.column_from_byte(&hit.line_text, hit.byte_start + old_name.len());
            let already = covered.get(path).is_some_and(|list| {
                list.iter().any(|edit| {
                    edit.range.start.line == hit.line
                        && edit.range.start.character <= start_column
                        && edit.range.end.character >= end_column
                })
            });
            if already {
                continue;
            }
            let Some(&line_start) = line_starts.get(hit.line as usize) else { continue };
            let Some((key_node, object, shorthand)) = object_key(root, line_start + hit.byte_start, old_name.len()) else { continue };
            // The key as written: the pair (`overscan: 1`), the shorthand, the method's first line.
            let written = match key_node.parent() {
                Some(pair) if pair.kind() == "pair" => text_of(&source, pair),
                Some(string) if string.kind() == "string" => string.parent().map_or("", |pair| text_of(&source, pair)),
                Some(method) if method.kind() == "method_definition" => text_of(&source, method).lines().next().unwrap_or(""),
                _ => text_of(&source, key_node),
            };
            let written = crate::render::cut_chars(&written.split_whitespace().collect::<Vec<_>>().join(" "), 50);
            let Some((ty, assertion)) = asserted_type(object, &source) else { continue };
            let mut names = Vec::new();
            type_names(ty, &source, &mut names);
            let mut leads_to_owner = false;
            let mut unresolved = false;
            for name in names {
                let position = name.start_position();
                let name_line = source[line_starts[position.row]..].split('\n').next().unwrap_or("");
                let character = encoding.column_from_byte(name_line, position.column);
                let key = (path.to_path_buf(), position.row as u32, character);
                let leads = match resolved.get(&key) {
                    Some(known) => Some(*known),
                    None if Instant::now() >= deadline => None,
                    None => {
                        let targets = crate::lsp::rename_coverage::definition_targets(server, path, key.1, key.2, deadline);
                        if targets.is_empty() {
                            None
                        } else {
                            let leads = targets.iter().any(|(target, line, _)| {
                                owners.iter().any(|owner| {
                                    owner.lines.contains(line)
                                        && (*target == owner.path || std::fs::canonicalize(&owner.path).is_ok_and(|owner| owner == *target))
                                })
                            });
                            resolved.insert(key, leads);
                            Some(leads)
                        }
                    }
                };
                match leads {
                    Some(true) => leads_to_owner = true,
                    Some(false) => {}
                    None => unresolved = true,
                }
            }
            if !leads_to_owner && !unresolved {
                continue;
            }
            // The assertion as written after the literal: `as unknown as Required<…>`.
            let assertion_text = source.get(object.end_byte()..assertion.end_byte()).unwrap_or("").trim();
            let assertion_text = if assertion.kind() == "type_assertion" {
                source.get(assertion.start_byte()..object.start_byte()).unwrap_or("").trim().to_owned()
            } else {
                assertion_text.trim_start_matches(')').trim().to_owned()
            };
            let key = AssertedKey {
                place: format!("{}:{}", shown(path), hit.line + 1),
                written,
                assertion: crate::render::cut_chars(&assertion_text.split_whitespace().collect::<Vec<_>>().join(" "), 100),
                shorthand,
            };
            if leads_to_owner {
                let new_text = if shorthand { format!("{new_name}: {old_name}") } else { new_name.to_owned() };
                found.edits.entry(path.to_path_buf()).or_default().push(lsp_types::TextEdit {
                    range: lsp_types::Range {
                        start: lsp_types::Position { line: hit.line, character: start_column },
                        end: lsp_types::Position { line: hit.line, character: end_column },
                    },
                    new_text,
                });
                found.renamed.push(key);
            } else {
                found.unresolved.push(key);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(source: &str) -> AstGrep<StrDoc<SupportLang>> {
        AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::TypeScript).unwrap()
    }

    /// The asserted type names of the literal holding the first object-literal key `key` of
    /// `source`, as text.
    fn asserted_names(source: &str, key: &str) -> Option<Vec<String>> {
        let grep = parse(source);
        let root = grep.root().get_inner_node();
        // The first occurrence that is a key of an object literal.
        let (_, object, _) =
            crate::lsp::rename_coverage::word_positions(source, key).into_iter().find_map(|start| object_key(root, start, key.len()))?;
        let (ty, _) = asserted_type(object, source)?;
        let mut names = Vec::new();
        type_names(ty, source, &mut names);
        Some(names.into_iter().map(|name| text_of(source, name).to_owned()).collect())
    }

    #[test]
    fn keys_of_literals_asserted_through_unknown_and_wrappers_name_the_type() {
        let names = |source: &str| asserted_names(source, "a");
        assert_eq!(names("const d = { a: 1 } as unknown as Required<O<T>>;\n"), Some(vec!["O".to_owned()]));
        assert_eq!(names("const d = ({ b, a }) as any as Readonly<Partial<ns.O>>;\n"), Some(vec!["O".to_owned()]));
        assert_eq!(names("const d = <Pick<O, 'a'>>{ a() {} };\n"), Some(vec!["O".to_owned()]));
        assert_eq!(names("const d = { 'a': 1 } satisfies O & P;\n"), Some(vec!["O".to_owned(), "P".to_owned()]));
        assert_eq!(names("const d = { a: 1 } as const;\n"), None);
        assert_eq!(names("const d = { a: 1 } as unknown;\n"), None);
        // A nested literal's key, a value named like it, an unasserted literal: not keys of it.
        assert_eq!(names("const d = { b: { a: 1 } } as unknown as O;\n"), None);
        assert_eq!(names("const d = { b: a } as unknown as O;\n"), None);
        assert_eq!(names("const d: O = { a: 1 };\n"), None);
    }

    #[test]
    fn the_owner_of_a_member_is_its_interface_type_or_class() {
        let source = "export interface O<T> {\n  a?: number\n}\ntype P = { a: string }\nclass C { a = 1 }\nconst x = { a: 1 }\n";
        let grep = parse(source);
        let root = grep.root().get_inner_node();
        let owners: Vec<Option<(String, u32, u32)>> =
            crate::lsp::rename_coverage::word_positions(source, "a").into_iter().map(|at| owner_of_member(source, root, at, "a")).collect();
        assert_eq!(
            owners,
            vec![Some(("O".to_owned(), 0, 0)), Some(("P".to_owned(), 3, 3)), Some(("C".to_owned(), 4, 4)), None],
            "{source}"
        );
    }
}
