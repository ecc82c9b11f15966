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
    /// Each location that is a use of another method, with that method described the same way.
    pub related: HashMap<LocationKey, String>,
    /// How many workspace locations were not classified (no definition answered, the time or
    /// the cap ran out); they stay in the list as gopls gave them.
    pub unclassified: usize,
    /// How many locations outside the workspace (the standard library, the module cache) were
    /// not classified: runbound gives no server a file there. They stay in the list.
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
                "; {} of the {what} are outside the workspace (the standard library or the module cache, where a method of the same signature may implement it) and were not checked",
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
    let (declaration_file, declaration_line, _) = targets.into_iter().next()?;
    let declaration_text = crate::files::read_workspace_file_to_string(workspace_root, &declaration_file).ok()?;
    let described = describe_method_declaration(&declaration_text, declaration_line)?;
    let declaration = (canonical(&declaration_file), declaration_line);
    let mut classes = MethodUses {
        kind: described.kind,
        method: format!("`{}` ({}:{})", described.name, supervisor.display_path(&declaration_file), declaration_line + 1),
        related: HashMap::new(),
        unclassified: 0,
        outside_workspace: 0,
    };
    let this_root = canonical(server.root());
    let canonical_workspace = canonical(workspace_root);
    let dependents: Vec<PathBuf> =
        supervisor.dependent_roots(server.id(), server.root()).roots.iter().map(|root| canonical(root)).collect();
    // One lease per other project root, taken once.
    let mut other_roots: HashMap<PathBuf, Option<ServerLease>> = HashMap::new();
    let mut described_declarations: HashMap<(PathBuf, u32), String> = HashMap::new();
    for (index, location) in locations.iter().enumerate() {
        if index >= LOCATIONS_CLASSIFIED_CAP || Instant::now() >= deadline {
            classes.unclassified += 1;
            continue;
        }
        let Some(file) = crate::lsp::uri::lsp_uri_to_path(&location.uri) else {
            classes.unclassified += 1;
            continue;
        };
        if !canonical(&file).starts_with(&canonical_workspace) {
            classes.outside_workspace += 1;
            continue;
        }
        let start = location.range.start;
        if canonical(&file) == declaration.0 && start.line == declaration.1 {
            continue;
        }
        // The file's own project root answers for it, unless that root is a module nested in
        // this one that does not depend on it (a dependency under `_deps/`, loaded by `server`).
        let root = crate::lsp::servers::find_root(server.definition(), workspace_root, &file).root.map(|root| canonical(&root));
        let asked: &LanguageServer = match root {
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
        let mut found: Vec<(PathBuf, u32, u32)> =
            crate::lsp::rename_coverage::definition_targets(asked, &file, start.line, start.character, deadline).into_iter().collect();
        found.sort();
        let Some((target_file, target_line, _)) = found.into_iter().next() else {
            classes.unclassified += 1;
            continue;
        };
        let target_key = (canonical(&target_file), target_line);
        if target_key == declaration {
            continue;
        }
        let description = described_declarations
            .entry(target_key)
            .or_insert_with(|| {
                let text = crate::files::read_workspace_file_to_string(workspace_root, &target_file).ok();
                let name = text
                    .as_deref()
                    .and_then(|text| describe_method_declaration(text, target_line))
                    .map_or_else(|| "a method".to_owned(), |method| format!("`{}`", method.name));
                format!("{name} ({}:{})", supervisor.display_path(&target_file), target_line + 1)
            })
            .clone();
        classes.related.insert((location.uri.as_str().to_owned(), start.line, start.character), description);
    }
    Some(classes)
}

/// A references answer at a Go method with the uses of related methods separated
/// ([`separate_related_method_uses`]).
#[derive(Debug)]
pub(crate) struct SeparatedMethodUses {
    /// The list to show: at an interface method, every location (the implementing methods' uses
    /// stay, marked); at a concrete method, its own uses only.
    pub locations: Vec<lsp_types::Location>,
    /// The locations to mark in the list, with the method each is a use of.
    pub marks: HashMap<LocationKey, String>,
    /// What was separated, marked or left unchecked; `None` when every location is a use of the
    /// asked method.
    pub note: Option<String>,
}

/// gopls' `locations` for `references` at a Go method (0-based `line0`/`character` of `path`),
/// with the uses of methods related by implementation told apart ([`classify_method_uses`]):
///
/// - at an interface method, the static uses of the methods that implement it stay in the list
///   (a change to the method's signature reaches them too), each marked with its method, and the
///   note counts the two apart (trial110 F2: `Fs.Name`, 51 uses of its own, 2 of
///   `(*LoggingFs).Name`);
/// - at a concrete method, the calls through the interface methods it implements are left out
///   and named in the note: they are no uses of it, and gopls lists only some of them (trial110
///   F3: 2 of the 23 calls of `File.Readdirnames` as "references" of
///   `(*CountingFile).Readdirnames`, which nothing calls statically).
///
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
    let Some(classes) = classify_method_uses(supervisor, server, path, line0, character, &locations, deadline) else {
        return SeparatedMethodUses { locations, marks: HashMap::new(), note: None };
    };
    let clause = classes.unclassified_clause("locations");
    let unclassified = (!clause.is_empty()).then_some(clause);
    if classes.related.is_empty() {
        let note = unclassified
            .filter(|_| classes.unclassified > 0)
            .map(|clause| format!("note: the locations gopls gave at {} were checked to be uses of it{clause}", classes.method));
        return SeparatedMethodUses { locations, marks: HashMap::new(), note };
    }
    let key =
        |location: &lsp_types::Location| (location.uri.as_str().to_owned(), location.range.start.line, location.range.start.character);
    // Each related method with how many of its uses, in the order first met.
    let mut per_method: Vec<(String, usize, Vec<String>)> = Vec::new();
    for location in &locations {
        let Some(method) = classes.related.get(&key(location)) else { continue };
        let shown = format!(
            "{}:{}:{}",
            crate::lsp::uri::lsp_uri_to_path(&location.uri)
                .map_or_else(|| location.uri.as_str().to_owned(), |path| supervisor.display_path(&path)),
            location.range.start.line + 1,
            location.range.start.character + 1
        );
        match per_method.iter_mut().find(|(known, _, _)| known == method) {
            Some((_, count, places)) => {
                *count += 1;
                places.push(shown);
            }
            None => per_method.push((method.clone(), 1, vec![shown])),
        }
    }
    let related_count: usize = per_method.iter().map(|(_, count, _)| count).sum();
    let own_count = locations.len().saturating_sub(related_count + classes.unclassified + classes.outside_workspace);
    let listed = |shown_places: bool| {
        per_method
            .iter()
            .map(|(method, count, places)| {
                if shown_places {
                    let more = if places.len() > 5 { format!(", and {} more", places.len() - 5) } else { String::new() };
                    format!("{method}: {count} ({}{more})", places.iter().take(5).cloned().collect::<Vec<_>>().join(", "))
                } else {
                    format!("{method}: {count}")
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    match classes.kind {
        AskedMethodKind::Interface => SeparatedMethodUses {
            note: Some(format!(
                "note: {own_count} of these are checked uses of {} itself (its declaration and the calls through the interface, as go/types counts its uses) and {related_count} are uses of methods that implement it (static calls, declarations), which gopls lists with the interface method and a change to its signature reaches too — each marked `← use of …` in the list: {}{}",
                classes.method,
                listed(false),
                unclassified.unwrap_or_default()
            )),
            marks: classes.related,
            locations,
        },
        AskedMethodKind::Concrete => {
            let kept: Vec<lsp_types::Location> =
                locations.into_iter().filter(|location| !classes.related.contains_key(&key(location))).collect();
            SeparatedMethodUses {
                note: Some(format!(
                    "note: left out of this list: {related_count} {} gopls gave that {} no use of {} but of the interface {} it implements — {}. Such a call may dispatch to {} at run time, as to every other implementation, and gopls lists only some of them: `lsp references` at the interface method lists every call through it{}",
                    crate::render::one_or_many(related_count, "location", "locations"),
                    crate::render::one_or_many(related_count, "is", "are"),
                    classes.method,
                    crate::render::one_or_many(per_method.len(), "method", "methods"),
                    listed(true),
                    classes.method,
                    unclassified.unwrap_or_default()
                )),
                marks: HashMap::new(),
                locations: kept,
            }
        }
    }
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
