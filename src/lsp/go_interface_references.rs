//! gopls' references of an interface method, made whole and repeatable (trial61 F1/F2).
//!
//! gopls answers `textDocument/references` at an interface method with the uses of the
//! method and of every concrete method that implements it — and that search of the implementing
//! methods' uses misses a different part of them on each call: on emirpasic/gods 1.12.0,
//! `Container.Size` answered 93, 105, 106, 114 and 129 of its 213 uses (`gopls references` by hand:
//! 147, 82, 103), `EnumerableWithIndex.Each` once only its declaration. The references of each
//! concrete method are stable. So, at an interface method, the answer is completed with the
//! references of each method `textDocument/implementation` lists (stable too: 18 = a line scan
//! of `func (…) Size() int`), and the note says how many uses gopls' own answer missed.
//!
//! An interface method is told by its declaration line (`Name(…)` with no `func`, from
//! `textDocument/definition`) and by implementations that are all `func (receiver) Name(`
//! declarations; anything else is left as gopls answered.

use crate::lsp::client::LanguageServer;

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use lsp_types::request::{GotoDefinition, GotoImplementation, References};
use lsp_types::{GotoDefinitionResponse, Location, TextDocumentPositionParams};

/// How many implementing methods' references are asked at most (each is one request).
const IMPLEMENTATIONS_ASKED_CAP: usize = 200;

/// gopls' references at an interface method completed with its implementations' references.
#[derive(Debug)]
pub(crate) struct CompletedInterfaceReferences {
    /// gopls' answer and every use the implementations' references add (deduplicated by uri and
    /// start), in gopls' order, then the added ones in the order asked.
    pub locations: Vec<Location>,
    /// What was added, for the answer's notes; `None` when the position is no interface method
    /// (or the server is not gopls), or nothing was missing. A caller that tells each location's
    /// method apart ([`crate::lsp::go_method_uses`]) says it there instead.
    pub added_note: Option<String>,
    /// What was left undone (implementations not asked or failed): `INCOMPLETE: …`.
    pub incomplete_note: Option<String>,
}

/// Completes gopls' `answer` (references at `line0`/`character0` of `path`, 0-based, in the
/// server's encoding) with the references of each implementing method when the position names
/// an interface method — and, `with_implementing_declarations` (a `references` answer, not a
/// count of calls), with the workspace's implementing declarations themselves — bounded by
/// `deadline` (what was not asked by then is said). Servers other
/// than gopls, and positions that are no interface method, get `answer` back unchanged.
pub(crate) fn complete_interface_method_references(
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character0: u32,
    answer: Vec<Location>,
    with_implementing_declarations: bool,
    deadline: Instant,
) -> CompletedInterfaceReferences {
    let unchanged = |locations| CompletedInterfaceReferences { locations, added_note: None, incomplete_note: None };
    if server.id() != "gopls" {
        return unchanged(answer);
    }
    let uri = crate::lsp::uri::path_to_lsp_uri(path);
    let position = TextDocumentPositionParams {
        text_document: lsp_types::TextDocumentIdentifier { uri },
        position: lsp_types::Position { line: line0, character: character0 },
    };
    let definition = server
        .request::<GotoDefinition>(
            lsp_types::GotoDefinitionParams {
                text_document_position_params: position.clone(),
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            },
            deadline,
        )
        .map(locations_of)
        .unwrap_or_default();
    let workspace_root = server.workspace_root();
    let Some(declaration) = definition.first() else { return unchanged(answer) };
    let Some(name) = interface_method_name(&line_of(workspace_root, declaration).unwrap_or_default()) else {
        return unchanged(answer);
    };
    let implementations = server
        .request::<GotoImplementation>(
            lsp_types::request::GotoImplementationParams {
                text_document_position_params: position,
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            },
            deadline,
        )
        .map(locations_of)
        .unwrap_or_default();
    let concrete: Vec<&Location> = implementations
        .iter()
        .filter(|location| line_of(workspace_root, location).is_some_and(|line| declares_concrete_method(&line, &name)))
        .collect();
    if concrete.is_empty() {
        return unchanged(answer);
    }
    let key = |location: &Location| (location.uri.as_str().to_owned(), location.range.start.line, location.range.start.character);
    let mut seen: HashSet<(String, u32, u32)> = answer.iter().map(key).collect();
    let gopls_count = answer.len();
    let mut locations = answer;
    let mut asked = 0;
    let mut failed = 0;
    for implementation in concrete.iter().take(IMPLEMENTATIONS_ASKED_CAP) {
        if Instant::now() >= deadline {
            break;
        }
        let params = lsp_types::ReferenceParams {
            text_document_position: TextDocumentPositionParams {
                text_document: lsp_types::TextDocumentIdentifier { uri: implementation.uri.clone() },
                position: implementation.range.start,
            },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
            context: lsp_types::ReferenceContext { include_declaration: false },
        };
        asked += 1;
        // The implementing declaration itself: a change to the interface method's signature
        // edits it too (trial139 F3: `Measurer.StringWidth` listed 13 static calls of
        // `(*Condition).StringWidth` and neither implementing declaration).
        // (Those of the workspace: a standard library type that happens to implement it is no
        // place this workspace edits.)
        let in_workspace = crate::lsp::uri::lsp_uri_to_path(&implementation.uri).is_some_and(|path| path.starts_with(workspace_root));
        if with_implementing_declarations && in_workspace && seen.insert(key(implementation)) {
            locations.push((*implementation).clone());
        }
        match server.request::<References>(params, deadline) {
            Ok(found) => {
                for location in found.unwrap_or_default() {
                    if seen.insert(key(&location)) {
                        locations.push(location);
                    }
                }
            }
            Err(_) => failed += 1,
        }
    }
    let added = locations.len() - gopls_count;
    let unasked = concrete.len() - asked;
    let mut added_note = None;
    let mut incomplete_note = None;
    if added > 0 {
        added_note = Some(format!(
            "gopls' own answer for the interface method `{name}` missed {added} of these locations (it answers this query differently from call to call); the list adds what the references of its {} implementing methods (`implementation`) found",
            concrete.len()
        ));
    }
    if unasked > 0 || failed > 0 {
        incomplete_note = Some(format!(
            "INCOMPLETE: the references of {} of the {} implementing methods of `{name}` were not obtained ({unasked} not asked before the time ran out, {failed} failed); gopls' answer for an interface method misses uses from call to call: ask again with a larger timeout, or call lsp references at each implementation",
            unasked + failed,
            concrete.len()
        ));
    }
    CompletedInterfaceReferences { locations, added_note, incomplete_note }
}

/// The method name an interface's method line declares (`\tSize() int`, `Each(f func(int))`),
/// `None` for any other line (a `func` declaration, a field, an embedded interface).
fn interface_method_name(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("func") || trimmed.starts_with("//") {
        return None;
    }
    let name: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let rest = &trimmed[name.len()..];
    (!name.is_empty() && rest.starts_with('(')).then_some(name)
}

/// Whether `line` declares a concrete method `name` (`func (tree *Tree) Size() int {`).
fn declares_concrete_method(line: &str, name: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("func") else { return false };
    let rest = rest.trim_start();
    if !rest.starts_with('(') {
        return false;
    }
    // The receiver's closing parenthesis, then the name.
    let mut depth = 0usize;
    for (index, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let after = rest[index + 1..].trim_start();
                    return after.strip_prefix(name).is_some_and(|tail| tail.starts_with('(') || tail.starts_with('['));
                }
            }
            _ => {}
        }
    }
    false
}

/// The locations of a definition-like answer (`Location`, `Location[]`, `LocationLink[]`: a
/// link's target selection range).
fn locations_of(answer: Option<GotoDefinitionResponse>) -> Vec<Location> {
    match answer {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(location)) => vec![location],
        Some(GotoDefinitionResponse::Array(list)) => list,
        Some(GotoDefinitionResponse::Link(links)) => {
            links.into_iter().map(|link| Location { uri: link.target_uri, range: link.target_selection_range }).collect()
        }
    }
}

/// The text of `location`'s first line, read beneath `workspace_root` (`None` outside it or
/// unreadable).
fn line_of(workspace_root: &Path, location: &Location) -> Option<String> {
    let path = crate::lsp::uri::lsp_uri_to_path(&location.uri)?;
    let text = crate::files::read_workspace_file_to_string(workspace_root, &path).ok()?;
    text.lines().nth(location.range.start.line as usize).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interface_method_line_is_told_from_other_lines() {
        assert_eq!(interface_method_name("\tSize() int"), Some("Size".to_owned()));
        assert_eq!(interface_method_name("\tEach(f func(index int, value interface{}))"), Some("Each".to_owned()));
        assert_eq!(interface_method_name("func (list *List) Size() int {"), None);
        assert_eq!(interface_method_name("\tContainer"), None);
        assert_eq!(interface_method_name("\tsize int"), None);
        assert_eq!(interface_method_name("\t// Size() int"), None);
    }

    #[test]
    fn a_concrete_method_declaration_is_found_by_its_name_after_the_receiver() {
        assert!(declares_concrete_method("func (list *List) Size() int {", "Size"));
        assert!(declares_concrete_method("func (m *Map[K, V]) Size() int {", "Size"));
        assert!(declares_concrete_method("func (s Set[T]) Size[U any]() int {", "Size"));
        assert!(!declares_concrete_method("func (list *List) Sizes() int {", "Size"));
        assert!(!declares_concrete_method("func Size() int {", "Size"));
        assert!(!declares_concrete_method("\tSize() int", "Size"));
    }
}
