//! Which of gopls' references at a Go method are uses of that method, and which are uses of a
//! method related to it by implementation (issue 11, trial110 F2, F3).
//!
//! gopls answers `textDocument/references` at a method with the uses of the method *and* of the
//! methods related to it through interface satisfaction, in both directions, from the packages
//! it happens to search: on spf13/afero 1.9.3 plus a consumer module, the interface method
//! `Fs.Name` listed a static call `l.Name()` of the consumer's `(*LoggingFs).Name` among its
//! "references" when asked from the library, a different static call when asked from the
//! consumer (go/types: 51 uses of `Fs.Name`; runbound said 52 and 53), and the concrete
//! `(*CountingFile).Readdirnames` listed 2 of the 23 calls through the interface `File` as its
//! references (go/types: no use at all).
//!
//! Each location is classified by gopls' own `textDocument/definition` at it, asked of the server
//! of the project root that holds the file (a consumer module's file of that module's server):
//! a location whose definition is the asked method's declaration is a use of it; any other is a
//! use of the method its definition names (an implementing method, or the interface method a
//! call goes through). Bounded by a deadline and [`LOCATIONS_CLASSIFIED_CAP`]; what was not
//! classified is counted for the answer's note.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::lsp::client::LanguageServer;
use crate::lsp::supervisor::{LspSupervisor, ServerLease};

/// How many locations are classified at most (each is one `textDocument/definition`).
const LOCATIONS_CLASSIFIED_CAP: usize = 600;

/// A location of a references answer: (uri, 0-based line, 0-based character in the server's
/// encoding), as the answer gives its start.
pub(crate) type LocationKey = (String, u32, u32);

/// What the asked method is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AskedMethodKind {
    /// A method of an interface type (`\tName() string` inside `type Fs interface {`).
    Interface,
    /// A method with a receiver (`func (f *CountingFile) Readdirnames(n int) …`).
    Concrete,
}

/// gopls' references at a Go method, classified ([`classify_method_uses`]).
#[derive(Debug)]
pub(crate) struct MethodUses {
    /// What the asked method is.
    pub kind: AskedMethodKind,
    /// The asked method, described for a note: `` `Fs.Name` (afero.go:92) ``.
    pub method: String,
    /// Each location that is a use of another method, with that method described the same way
    /// and what it is (`None`: a declaration runbound could not read as a method).
    pub related: HashMap<LocationKey, (String, Option<AskedMethodKind>)>,
    /// Each related location's declaration (canonical path, 0-based line of the name).
    pub related_declarations: HashMap<LocationKey, (PathBuf, u32)>,
    /// How many workspace locations were not classified (no definition answered, the time or
    /// the cap ran out); they stay in the list as gopls gave them.
    pub unclassified: usize,
    /// How many locations outside the workspace (the standard library, the module cache) were
    /// not classified: no definition answered there, or the declaration it names could not be
    /// read. They stay in the list.
    pub outside_workspace: usize,
}

impl MethodUses {
    /// `; N … were not checked …` for a note, or empty when every location was classified;
    /// `what` names the locations (`locations`, `call sites`).
    pub(crate) fn unclassified_clause(&self, what: &str) -> String {
        let mut clause = String::new();
        if self.unclassified > 0 {
            clause.push_str(&format!(
                "; {} of the {what} were not checked (gopls gave no definition there before the time ran out) and are shown as gopls gave them",
                self.unclassified
            ));
        }
        if self.outside_workspace > 0 {
            clause.push_str(&format!(
                "; {} of the {what} are outside the workspace (the standard library or the module cache) and could not be checked",
                self.outside_workspace
            ));
        }
        clause
    }
}

/// Classifies gopls' `locations` (references at 0-based `line0`/`character` of `path`, the
/// server's encoding) by the definition at each ([`MethodUses`]). `None` when `server` is not
/// gopls, or when the position does not name a method (its declaration line is no interface
/// method line and no `func (receiver) Name(` line): those answers need no classifying.
pub(crate) fn classify_method_uses(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    locations: &[lsp_types::Location],
    deadline: Instant,
) -> Option<MethodUses> {
    if server.id() != "gopls" {
        return None;
    }
    let workspace_root = supervisor.workspace_root();
    let mut targets: Vec<(PathBuf, u32, u32)> =
        crate::lsp::rename_coverage::definition_targets(server, path, line0, character, deadline).into_iter().collect();
    targets.sort();
    let (declaration_file, declaration_line, declaration_character) = targets.into_iter().next()?;
    let declaration_text = crate::files::read_workspace_file_to_string(workspace_root, &declaration_file).ok()?;
    let described = describe_method_declaration(&declaration_text, declaration_line)?;
    let declaration = (canonical(&declaration_file), declaration_line);
    let mut classes = MethodUses {
        kind: described.kind,
        method: format!("`{}` ({}:{})", described.name, supervisor.display_path(&declaration_file), declaration_line + 1),
        related: HashMap::new(),
        related_declarations: HashMap::new(),
        unclassified: 0,
        outside_workspace: 0,
    };
    let this_root = canonical(server.root());
    let canonical_workspace = canonical(workspace_root);
    let dependents: Vec<PathBuf> =
        supervisor.dependent_roots(server.id(), server.root()).roots.iter().map(|root| canonical(root)).collect();
    // One lease per other project root, taken once.
    let mut other_roots: HashMap<PathBuf, Option<ServerLease>> = HashMap::new();
    let mut described_declarations: HashMap<(PathBuf, u32), (String, Option<AskedMethodKind>)> = HashMap::new();
    // Each related location's declaration (canonical path, 0-based line).
    let mut related_targets: HashMap<LocationKey, (PathBuf, u32)> = HashMap::new();
    for (index, location) in locations.iter().enumerate() {
        if index >= LOCATIONS_CLASSIFIED_CAP || Instant::now() >= deadline {
            classes.unclassified += 1;
            continue;
        }
        let Some(file) = crate::lsp::uri::lsp_uri_to_path(&location.uri) else {
            classes.unclassified += 1;
            continue;
        };
        // A file outside the workspace (the standard library: gopls lists calls through
        // `fmt.Stringer` at a `String` method, trial117 F1) is asked without being opened: gopls
        // reads it from disk, as it loaded it.
        let outside = !canonical(&file).starts_with(&canonical_workspace);
        let start = location.range.start;
        if canonical(&file) == declaration.0 && start.line == declaration.1 {
            continue;
        }
        // The file's own project root answers for it, unless that root is a module nested in
        // this one that does not depend on it (a dependency under `_deps/`, loaded by `server`).
        let root = crate::lsp::servers::find_root(server.definition(), workspace_root, &file).root.map(|root| canonical(&root));
        let asked: &LanguageServer = match root.filter(|_| !outside) {
            Some(root) if root != this_root && (dependents.contains(&root) || !root.starts_with(&this_root)) => {
                let lease = other_roots.entry(root.clone()).or_insert_with(|| {
                    crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), &root, &file, deadline)
                        .ok()
                        .map(|(lease, _)| lease)
                });
                match lease {
                    Some(lease) => &lease.server,
                    None => {
                        classes.unclassified += 1;
                        continue;
                    }
                }
            }
            _ => server,
        };
        let mut found: Vec<(PathBuf, u32, u32)> = if outside {
            definition_targets_unopened(asked, &file, start.line, start.character, deadline)
        } else {
            crate::lsp::rename_coverage::definition_targets(asked, &file, start.line, start.character, deadline).into_iter().collect()
        };
        found.sort();
        let Some((target_file, target_line, _)) = found.into_iter().next() else {
            if outside {
                classes.outside_workspace += 1;
            } else {
                classes.unclassified += 1;
            }
            continue;
        };
        let target_key = (canonical(&target_file), target_line);
        if target_key == declaration {
            continue;
        }
        let target_key_for_check = target_key.clone();
        let description = described_declarations
            .entry(target_key)
            .or_insert_with(|| {
                let described =
                    read_go_source(workspace_root, &target_file).and_then(|text| describe_method_declaration(&text, target_line));
                let shown = crate::lsp::listing::ListedPath::new(workspace_root, &target_file).with_line(target_line + 1);
                match described {
                    Some(method) => (format!("`{}` ({shown})", method.name), Some(method.kind)),
                    None => (format!("a declaration at {shown}"), None),
                }
            })
            .clone();
        let location_key = (location.uri.as_str().to_owned(), start.line, start.character);
        related_targets.insert(location_key.clone(), target_key_for_check.clone());
        classes.related.insert(location_key, description);
    }
    // At an interface method, a concrete method counts as implementing it only when gopls'
    // `implementation` there names it (asked of every server used above: a consumer module's
    // server knows its own types): gopls also relates the methods of types that satisfy another
    // interface with a method of the same name (trial117: the standard library's
    // `(*rtype).String` among the "references" of go-kit's `level.Value.String`).
    if classes.kind == AskedMethodKind::Interface && classes.related.values().any(|(_, kind)| *kind == Some(AskedMethodKind::Concrete)) {
        let mut implementing: std::collections::HashSet<(PathBuf, u32)> = std::collections::HashSet::new();
        let servers: Vec<&LanguageServer> =
            std::iter::once(server).chain(other_roots.values().flatten().map(|lease| &*lease.server)).collect();
        for asked in servers {
            if asked.sync_document(&declaration_file).is_err() {
                continue;
            }
            let params = lsp_types::request::GotoImplementationParams {
                text_document_position_params: lsp_types::TextDocumentPositionParams {
                    text_document: lsp_types::TextDocumentIdentifier { uri: crate::lsp::uri::path_to_lsp_uri(&declaration_file) },
                    position: lsp_types::Position { line: declaration_line, character: declaration_character },
                },
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            };
            if let Ok(answer) = asked.request::<lsp_types::request::GotoImplementation>(params, deadline) {
                implementing.extend(crate::lsp::tool::response_locations(answer).into_iter().filter_map(|location| {
                    Some((canonical(&crate::lsp::uri::lsp_uri_to_path(&location.uri)?), location.range.start.line))
                }));
            }
        }
        for (location, (_, kind)) in classes.related.iter_mut() {
            if *kind == Some(AskedMethodKind::Concrete) {
                let target = related_targets.get(location).cloned();
                if !target.is_some_and(|target| implementing.contains(&target)) {
                    *kind = None;
                }
            }
        }
    }
    classes.related_declarations = related_targets;
    Some(classes)
}

/// A references answer at a Go method with the uses of related methods separated
/// ([`separate_related_method_uses`]).
#[derive(Debug)]
pub(crate) struct SeparatedMethodUses {
    /// The list to show: the asked method's own uses and, at an interface method, the static
    /// uses of the methods that implement it (marked); each location once.
    pub locations: Vec<lsp_types::Location>,
    /// The locations to mark in the list, with the method each is a use of.
    pub marks: HashMap<LocationKey, String>,
    /// How many locations gopls gave were left out (uses of other interfaces' methods).
    pub left_out: usize,
    /// What was separated, marked or left unchecked; `None` when every location is a use of the
    /// asked method.
    pub note: Option<String>,
}

/// gopls' `locations` for `references` at a Go method (0-based `line0`/`character` of `path`),
/// with the uses of methods related by implementation told apart ([`classify_method_uses`]):
///
/// - at an interface method, the static uses of the concrete methods that implement it stay in
///   the list, each marked with its method, and the note counts the two apart (trial110 F2:
///   `Fs.Name`, 51 uses of its own, 2 of `(*LoggingFs).Name`); none of them goes through the
///   interface, and a change to its signature breaks none of them by itself (trial157 M2:
///   golang-lru's `LRUCache.Add` lost its result and `lru.Cache`, never used as the interface,
///   and its 21 test calls still built) — the note says so;
/// - the calls through other interface methods are left out and named in the note: at a
///   concrete method, those of the interfaces it implements (trial110 F3: 2 of the 23 calls of
///   `File.Readdirnames` given as "references" of `(*CountingFile).Readdirnames`, which nothing
///   calls statically); at an interface method, those of other interfaces its implementations
///   happen to satisfy too (trial117 F1: the standard library's `fmt.Stringer` calls among the
///   references of go-kit's `level.Value.String`).
///
/// Each location counts once (the merged answers of several roots repeat some; trial117 F2).
/// Locations not classified in time stay in the list and are counted in the note. Servers other
/// than gopls, and positions that name no method, get `locations` back with no note.
pub(crate) fn separate_related_method_uses(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    locations: Vec<lsp_types::Location>,
    deadline: Instant,
) -> SeparatedMethodUses {
    let key =
        |location: &lsp_types::Location| (location.uri.as_str().to_owned(), location.range.start.line, location.range.start.character);
    let mut seen = std::collections::HashSet::new();
    let locations: Vec<lsp_types::Location> = locations.into_iter().filter(|location| seen.insert(key(location))).collect();
    let Some(classes) = classify_method_uses(supervisor, server, path, line0, character, &locations, deadline) else {
        return SeparatedMethodUses { locations, marks: HashMap::new(), left_out: 0, note: None };
    };
    let unclassified = classes.unclassified_clause("locations");
    if classes.related.is_empty() {
        let note = (classes.unclassified > 0)
            .then(|| format!("note: the locations gopls gave at {} were checked to be uses of it{unclassified}", classes.method));
        return SeparatedMethodUses { locations, marks: HashMap::new(), left_out: 0, note };
    }
    // Kept and marked: at an interface method, the uses of the concrete methods implementing it.
    let kept_related =
        |kind: Option<AskedMethodKind>| classes.kind == AskedMethodKind::Interface && kind == Some(AskedMethodKind::Concrete);
    // Each related method with its uses (`path:line:column`), in the order first met.
    let mut marked: Vec<(String, Vec<String>)> = Vec::new();
    let mut left: Vec<(String, Vec<String>)> = Vec::new();
    for location in &locations {
        let Some((method, kind)) = classes.related.get(&key(location)) else { continue };
        let shown = format!(
            "{}:{}:{}",
            crate::lsp::uri::lsp_uri_to_path(&location.uri).map_or_else(
                || location.uri.as_str().to_owned(),
                |path| crate::lsp::listing::ListedPath::new(supervisor.workspace_root(), &path).text
            ),
            location.range.start.line + 1,
            location.range.start.character + 1
        );
        let group = if kept_related(*kind) { &mut marked } else { &mut left };
        match group.iter_mut().find(|(known, _)| known == method) {
            Some((_, places)) => places.push(shown),
            None => group.push((method.clone(), vec![shown])),
        }
    }
    let listed = |groups: &[(String, Vec<String>)], with_places: bool| {
        groups
            .iter()
            .map(|(method, places)| {
                if with_places {
                    let more = if places.len() > 5 { format!(", and {} more", places.len() - 5) } else { String::new() };
                    format!("{method}: {} ({}{more})", places.len(), places.iter().take(5).cloned().collect::<Vec<_>>().join(", "))
                } else {
                    format!("{method}: {}", places.len())
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let marked_count: usize = marked.iter().map(|(_, places)| places.len()).sum();
    let left_count: usize = left.iter().map(|(_, places)| places.len()).sum();
    let own_count = locations.len().saturating_sub(marked_count + left_count + classes.unclassified + classes.outside_workspace);
    let mut parts = Vec::new();
    if classes.kind == AskedMethodKind::Interface {
        parts.push(format!(
            "note: {own_count} of these are checked uses of {} itself (its declaration and the calls through the interface, as go/types counts its uses){}",
            classes.method,
            if marked_count > 0 {
                format!(
                    " and {marked_count} are uses of methods that implement it (their declarations, and static calls on the concrete types), which gopls lists with the interface method: none of them goes through the interface, and a change to its signature breaks none of them by itself — it breaks the places that use such a type as the interface, until that type's method is changed to match, and only then do these uses follow — each marked `← use of …` in the list: {}",
                    listed(&marked, false)
                )
            } else {
                String::new()
            }
        ));
    }
    if left_count > 0 {
        let through = match classes.kind {
            AskedMethodKind::Concrete => format!(
                "calls through the interface {} it implements",
                crate::render::one_or_many(left.len(), "method", "methods")
            ),
            AskedMethodKind::Interface => "of other methods of that name, which gopls relates to it through another interface a type implementing it satisfies too (calls through that interface, static calls of types that implement only that one)".to_owned(),
        };
        parts.push(format!(
            "note: left out of this list: {left_count} {} gopls gave that {} no use of {} but {through} — {}. Such a call may dispatch to a method of the same name at run time, and gopls lists only some of them: `lsp references` at that interface method lists every call through it",
            crate::render::one_or_many(left_count, "location", "locations"),
            crate::render::one_or_many(left_count, "is", "are"),
            classes.method,
            listed(&left, true),
        ));
    }
    let mut note = parts.join("\n");
    note.push_str(&unclassified);
    let marks: HashMap<LocationKey, String> = classes
        .related
        .iter()
        .filter(|(_, (_, kind))| kept_related(*kind))
        .map(|(key, (method, _))| (key.clone(), method.clone()))
        .collect();
    let kept: Vec<lsp_types::Location> =
        locations.into_iter().filter(|location| classes.related.get(&key(location)).is_none_or(|(_, kind)| kept_related(*kind))).collect();
    SeparatedMethodUses { locations: kept, marks, left_out: left_count, note: (!note.is_empty()).then_some(note) }
}

/// The text of a Go file in the workspace, or in a dependency root runbound knows (the
/// standard library, the module cache); `None` elsewhere or unreadable.
fn read_go_source(workspace_root: &Path, path: &Path) -> Option<String> {
    let listed = crate::lsp::listing::ListedPath::new(workspace_root, path);
    match (&listed.class, &listed.origin_root) {
        (crate::lsp::listing::PathClass::Outside, Some(origin_root)) => {
            crate::files::read_dependency_file_to_string(origin_root, path).ok()
        }
        (crate::lsp::listing::PathClass::Outside, None) => None,
        _ => crate::files::read_workspace_file_to_string(workspace_root, path).ok(),
    }
}

/// `textDocument/definition` at a file outside the workspace that is not opened (gopls answers
/// from the file on disk, which it loaded as a dependency): the targets, as
/// [`crate::lsp::rename_coverage::definition_targets`] gives them; empty on no answer.
fn definition_targets_unopened(
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    deadline: Instant,
) -> Vec<(PathBuf, u32, u32)> {
    let params = lsp_types::GotoDefinitionParams {
        text_document_position_params: lsp_types::TextDocumentPositionParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: crate::lsp::uri::path_to_lsp_uri(path) },
            position: lsp_types::Position { line: line0, character },
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let Ok(answer) = server.request::<lsp_types::request::GotoDefinition>(params, deadline) else { return Vec::new() };
    crate::lsp::tool::response_locations(answer)
        .into_iter()
        .filter_map(|location| {
            Some((crate::lsp::uri::lsp_uri_to_path(&location.uri)?, location.range.start.line, location.range.start.character))
        })
        .collect()
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A method declaration, named as Go writes a method expression.
#[derive(Debug, PartialEq, Eq)]
struct DescribedMethod {
    kind: AskedMethodKind,
    /// `Fs.Name` for an interface method, `(*LoggingFs).Name` for a concrete one.
    name: String,
}

/// The method declared on 0-based `line0` of the Go source `text`: a `func (receiver) Name(`
/// line, or a `Name(…)` line inside `type X interface {` (the interface found by reading up from
/// it). `None` for any other line.
fn describe_method_declaration(text: &str, line0: u32) -> Option<DescribedMethod> {
    let lines: Vec<&str> = text.lines().collect();
    let line = *lines.get(line0 as usize)?;
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix("func") {
        let rest = rest.trim_start().strip_prefix('(')?;
        let close = rest.find(')')?;
        // `l *LoggingFs`, `m Map[K, V]`, `*Tree`: the type, its type parameters cut.
        let receiver = rest[..close].split('[').next().unwrap_or_default();
        let receiver_type = receiver.split_whitespace().last()?;
        let name: String = rest[close + 1..].trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            return None;
        }
        let shown = if receiver_type.starts_with('*') { format!("({receiver_type}).{name}") } else { format!("{receiver_type}.{name}") };
        return Some(DescribedMethod { kind: AskedMethodKind::Concrete, name: shown });
    }
    if trimmed.starts_with("//") {
        return None;
    }
    let name: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if name.is_empty() || !trimmed[name.len()..].starts_with('(') {
        return None;
    }
    // Up to the `X interface {` that opens the block (a nested brace closes before it).
    let mut depth = 0i32;
    for above in lines[..line0 as usize].iter().rev() {
        depth += above.matches('}').count() as i32 - above.matches('{').count() as i32;
        if depth < 0 {
            // `type Fs interface {`, `\tLister[T any] interface {`: the name before it.
            let before = &above[..above.find("interface")?];
            let interface = before.split('[').next().unwrap_or_default().split_whitespace().last()?;
            return Some(DescribedMethod { kind: AskedMethodKind::Interface, name: format!("{interface}.{name}") });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_concrete_method_is_named_by_its_receiver_type() {
        let text = "package store\n\nfunc (l *LoggingFs) Name() string {\n\treturn l.Fs.Name()\n}\nfunc (m Map[K, V]) Len() int { return 0 }\nfunc Free() {}\n";
        assert_eq!(
            describe_method_declaration(text, 2),
            Some(DescribedMethod { kind: AskedMethodKind::Concrete, name: "(*LoggingFs).Name".to_owned() })
        );
        assert_eq!(
            describe_method_declaration(text, 5),
            Some(DescribedMethod { kind: AskedMethodKind::Concrete, name: "Map.Len".to_owned() })
        );
        assert_eq!(describe_method_declaration(text, 6), None);
        assert_eq!(describe_method_declaration(text, 3), None);
    }

    #[test]
    fn an_interface_method_is_named_by_the_interface_that_encloses_it() {
        let text = "package afero\n\ntype Fs interface {\n\t// Create a file.\n\tCreate(name string) (File, error)\n\n\tChtimes(name string, atime time.Time, mtime time.Time) error\n}\n\ntype (\n\tLister[T any] interface {\n\t\tList() []T\n\t}\n)\n";
        assert_eq!(
            describe_method_declaration(text, 4),
            Some(DescribedMethod { kind: AskedMethodKind::Interface, name: "Fs.Create".to_owned() })
        );
        assert_eq!(
            describe_method_declaration(text, 6),
            Some(DescribedMethod { kind: AskedMethodKind::Interface, name: "Fs.Chtimes".to_owned() })
        );
        assert_eq!(
            describe_method_declaration(text, 11),
            Some(DescribedMethod { kind: AskedMethodKind::Interface, name: "Lister.List".to_owned() })
        );
        assert_eq!(describe_method_declaration(text, 3), None);
    }

    #[test]
    fn a_call_inside_a_function_body_is_no_interface_method() {
        let text = "package p\n\nfunc f() {\n\tg(1)\n}\n";
        assert_eq!(describe_method_declaration(text, 3), None);
    }
}
