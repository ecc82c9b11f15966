//! The taken-name check across a class hierarchy for a TypeScript/JavaScript member rename
//! (issue 11, trial46 F3).
//!
//! [`crate::lsp::rename_taken_names`] reads the files the rename changes, so a new name that a
//! base class or a subclass already declares as a member passes it: renaming
//! `InfiniteQueryObserver.fetchPreviousPage` to `refetch` (query-core 5.59.0) made the method
//! override `QueryObserver.refetch`, which `createResult` hands to every result — tsc stayed
//! clean (the signatures are compatible) and 4 tests failed. [`inherited_member_warnings`]
//! follows the renamed member's class up its `extends` chain (`textDocument/definition` on the
//! base's name) and down to its subclasses (`textDocument/implementation` on the class's name,
//! which tsserver answers with the derived classes), reads each class with tree-sitter and
//! warns of every member already named the new name: the renamed member would override it, or
//! be overridden by it. At most [`MAX_CLASSES_READ`] classes, within the deadline; what was not
//! read is said in the summary.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Instant;

use lsp_types::request::{GotoDefinition, GotoImplementation, Request};

use crate::lsp::client::LanguageServer;
use crate::lsp::syntax::{ParsedSource, TypeScriptClassFacts};

/// The most classes (bases and subclasses, the renamed member's own not counted) read.
pub const MAX_CLASSES_READ: usize = 32;

/// What [`inherited_member_warnings`] found.
#[derive(Debug, Clone, Default)]
pub struct InheritedMemberFindings {
    /// One `WARNING:` line per related class that already declares a member of the new name.
    pub warnings: Vec<String>,
    /// The classes read, or why the hierarchy was not (fully) followed; `None` when the renamed
    /// symbol is no class member of a TS/JS file.
    pub summary: Option<String>,
}

/// For the TS/JS class member `old_name` declared at 0-based `line0` of `path`, renamed to
/// `new_name`: the base classes and subclasses that already declare a member `new_name` (see the
/// module docs). `display` names a path for the answer.
pub fn inherited_member_warnings(
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    old_name: &str,
    new_name: &str,
    deadline: Instant,
    display: &dyn Fn(&Path) -> String,
) -> InheritedMemberFindings {
    let mut findings = InheritedMemberFindings::default();
    let Some(class) = read_parsed(server, path).and_then(|parsed| parsed.typescript_class_of_member(line0, old_name)) else {
        return findings;
    };
    let mut read = 0usize;
    let mut not_read: Vec<String> = Vec::new();
    let mut seen: HashSet<(PathBuf, u32)> = HashSet::from([(path.to_path_buf(), class.name_line0)]);
    // Up: each base class in turn.
    let mut current = (path.to_path_buf(), class.clone());
    while let Some((extends_line0, extends_byte)) = current.1.extends {
        if read >= MAX_CLASSES_READ || Instant::now() >= deadline {
            not_read.push(format!("the bases of `{}`", current.1.name));
            break;
        }
        let (base_path, base) = match class_at_definition(server, &current.0, extends_line0, extends_byte, deadline) {
            Ok(found) => found,
            Err(why) => {
                // A built-in error class (lib.d.ts, outside the workspace): its members are known.
                let base_name = read_parsed(server, &current.0)
                    .and_then(|parsed| parsed.line_text(extends_line0).map(|line| identifier_at_byte(line, extends_byte)))
                    .unwrap_or_default();
                // A built-in or library class declared as an interface (lib.d.ts' `interface
                // Map<K, V> { forEach(…) }` with `declare var Map: MapConstructor`): its members
                // are read from those declarations (trial70 M2: immer's `DraftMap.forEach`
                // renamed away from `Map.forEach`, "no new errors", 22 tests failed).
                let declared = ask::<GotoDefinition>(server, &current.0, extends_line0, extends_byte, deadline)
                    .map(|locations| interface_members_at_definitions(server, &locations, &base_name))
                    .unwrap_or_default();
                if let Some((declared_at, members)) = declared.first().filter(|_| builtin_error_members(&base_name).is_none()) {
                    read += 1;
                    let at = format!("{}:{}", display(&declared_at.0), declared_at.1 + 1);
                    if members.iter().any(|member| member == old_name) {
                        findings.warnings.push(format!(
                            "WARNING: `{}.{old_name}` overrides `{old_name}` of its base `{base_name}` (declared outside the workspace, {at}), which this rename cannot rename: after it, `{old_name}` on a `{}` — called by code that holds it as a `{base_name}`, the runtime's and libraries' own calls included — reaches `{base_name}`'s member, not the renamed one, and tsc says nothing; keep the name `{old_name}`",
                            class.name, class.name
                        ));
                    }
                    if members.iter().any(|member| member == new_name) {
                        findings.warnings.push(format!(
                            "WARNING: the base `{base_name}` (declared outside the workspace, {at}) already has a member `{new_name}`: the renamed member of `{}` now OVERRIDES it, and tsc says nothing when the signatures are compatible; choose another name",
                            class.name
                        ));
                    }
                } else if let Some(members) = builtin_error_members(&base_name) {
                    read += 1;
                    if members.contains(&new_name) {
                        findings.warnings.push(format!(
                            "WARNING: the built-in base class `{base_name}` already has a member `{new_name}` (lib.d.ts: `{}`): the renamed member of `{}` now OVERRIDES it — `err.{new_name}` on an instance of `{}` (and every library that reads `{new_name}` of an error: loggers, `toString`, stack traces) reaches the renamed member, and tsc says nothing when the types are compatible; choose another name",
                            members.join("`, `"),
                            class.name,
                            class.name,
                        ));
                    }
                } else {
                    not_read.push(format!("the base of `{}` ({why})", current.1.name));
                }
                break;
            }
        };
        if !seen.insert((base_path.clone(), base.name_line0)) {
            break;
        }
        read += 1;
        if let Some((_, member_line0)) = base.members.iter().find(|(name, _)| name == new_name) {
            findings.warnings.push(format!(
                "WARNING: the base class `{}` already has a member `{new_name}` ({}:{}): the renamed member of `{}` now OVERRIDES it — every use of `{new_name}` on an instance of `{}` (the base class's own uses included) reaches the renamed member, and tsc says nothing when the signatures are compatible; choose another name",
                base.name,
                display(&base_path),
                member_line0 + 1,
                class.name,
                class.name,
            ));
        }
        current = (base_path, base);
    }
    // Across: the interfaces the class implements, whose member of the new name the renamed
    // member would now implement — an optional one (`label?(): string`) silently, and code that
    // calls it on the interface (`s.label?.()`) reaches the renamed member (trial93 F1:
    // neverthrow fixture's `Circle.tag` renamed to `label`, tsc clean, a test failed).
    for (implements_line0, implements_byte) in class.implements.iter().copied() {
        if Instant::now() >= deadline {
            not_read.push(format!("the interfaces of `{}`", class.name));
            break;
        }
        let interface_name = read_parsed(server, path)
            .and_then(|parsed| parsed.line_text(implements_line0).map(|line| identifier_at_byte(line, implements_byte)))
            .unwrap_or_default();
        let Some(locations) = ask::<GotoDefinition>(server, path, implements_line0, implements_byte, deadline) else {
            not_read.push(format!("the interface `{interface_name}` of `{}`", class.name));
            continue;
        };
        read += 1;
        let mut outside_warned = false;
        for (declared_at, members) in interface_members_at_definitions(server, &locations, &interface_name) {
            // A member the class owes an interface declared outside the workspace (lib.d.ts'
            // `Set<T>.add`, which `class ObservableSet<T> implements Set<T>` provides): no rename
            // here renames the interface's member, so the class stops implementing it, and
            // tsserver's edit renames the calls on plain `Set`s it relates to the member too
            // (trial133 F2: mobx's `ObservableSet.add`, `ObservableMap.has` and `.forEach`
            // renamed with no warning; tsc then gave 6, 10 and 4 errors).
            let outside = !declared_at.0.starts_with(server.workspace_root())
                || declared_at.0.components().any(|component| component.as_os_str() == "node_modules");
            if outside && !outside_warned && members.iter().any(|member| member == old_name) {
                outside_warned = true;
                findings.warnings.push(format!(
                    "WARNING: `{}.{old_name}` implements `{old_name}` of the interface `{interface_name}` (declared outside the workspace, {}:{}), which this rename cannot rename: after it `{}` no longer implements `{interface_name}` (tsc: \"incorrectly implements interface\"), code that holds one as a `{interface_name}` calls a `{old_name}` that is gone, and the server's edit may also rename calls of `{old_name}` on other `{interface_name}` values (tsc: \"Property … does not exist\"); keep the name `{old_name}`",
                    class.name,
                    display(&declared_at.0),
                    declared_at.1 + 1,
                    class.name,
                ));
            }
            if members.iter().any(|member| member == new_name) && !members.iter().any(|member| member == old_name) {
                findings.warnings.push(format!(
                    "WARNING: the interface `{interface_name}` that `{}` implements already has a member `{new_name}` ({}:{}): the renamed member now IMPLEMENTS it — code that uses `{new_name}` on a `{interface_name}` (an optional member called as `x.{new_name}?.()` included) reaches the renamed member, and tsc says nothing when the signatures are compatible; choose another name",
                    class.name,
                    display(&declared_at.0),
                    declared_at.1 + 1,
                ));
            }
        }
    }
    // Down: the subclasses, breadth first.
    let mut queue: VecDeque<(PathBuf, TypeScriptClassFacts)> = VecDeque::from([(path.to_path_buf(), class.clone())]);
    while let Some((class_path, parent)) = queue.pop_front() {
        if Instant::now() >= deadline || read >= MAX_CLASSES_READ {
            not_read.push(format!("the subclasses of `{}`", parent.name));
            break;
        }
        for (sub_path, sub) in subclasses(server, &class_path, &parent, deadline) {
            if !seen.insert((sub_path.clone(), sub.name_line0)) {
                continue;
            }
            read += 1;
            if let Some((_, member_line0)) = sub.members.iter().find(|(name, _)| name == new_name) {
                findings.warnings.push(format!(
                    "WARNING: the subclass `{}` already has a member `{new_name}` ({}:{}): it now OVERRIDES the renamed member of `{}` — uses of `{new_name}` on an instance of `{}` (the base class's own uses included) reach its member instead, and tsc says nothing when the signatures are compatible; choose another name",
                    sub.name,
                    display(&sub_path),
                    member_line0 + 1,
                    class.name,
                    sub.name,
                ));
            }
            queue.push_back((sub_path, sub));
        }
    }
    findings.summary = Some(format!(
        "class hierarchy check: `{new_name}` among the members of {} related to `{}` (bases by definition, subclasses by implementation) — {}{}",
        crate::render::plural(read, "class"),
        class.name,
        if findings.warnings.is_empty() { "none declares it".to_owned() } else { format!("{} (at the top)", crate::render::plural(findings.warnings.len(), "finding")) },
        if not_read.is_empty() { String::new() } else { format!("; NOT read: {}", not_read.join(", ")) },
    ));
    findings
}

/// For the definitions of a base named `name` (path, 0-based line) that are `interface name` or
/// `declare class name` declarations — lib.d.ts' `interface Map<K, V>`, spread over several
/// files — each declaration's place and its member names; read beneath the workspace or the
/// server's dependency roots. Empty when none is such a declaration.
fn interface_members_at_definitions(
    server: &LanguageServer,
    locations: &[(PathBuf, u32)],
    name: &str,
) -> Vec<((PathBuf, u32), Vec<String>)> {
    use ast_grep_core::tree_sitter::StrDoc;
    let mut found = Vec::new();
    for (path, line0) in locations.iter().take(8) {
        let Some(text) = crate::lsp::listing::read_listed_file(server.workspace_root(), path) else { continue };
        let Ok(tree) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(
            text.as_str(),
            ast_grep_language::SupportLang::TypeScript,
        ) else {
            continue;
        };
        let bytes = text.as_bytes();
        let mut stack = vec![tree.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            let (first, last) = (node.start_position().row as u32, node.end_position().row as u32);
            if !(first..=last).contains(line0) {
                continue;
            }
            let declares = matches!(node.kind(), "interface_declaration" | "class_declaration" | "abstract_class_declaration")
                && node.child_by_field_name("name").and_then(|declared| declared.utf8_text(bytes).ok()) == Some(name)
                && first == *line0;
            if declares {
                let mut members = Vec::new();
                if let Some(body) = node.child_by_field_name("body") {
                    let mut cursor = body.walk();
                    for member in body.named_children(&mut cursor) {
                        if let Some(member_name) =
                            member.child_by_field_name("name").and_then(|member_name| member_name.utf8_text(bytes).ok())
                        {
                            members.push(member_name.to_owned());
                        }
                    }
                }
                found.push(((path.clone(), *line0), members));
                break;
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
    }
    // One declaration of many (`interface Map` in lib.es2015.collection.d.ts and
    // lib.es2015.iterable.d.ts): every member, at the place of the first that has any.
    if found.len() > 1 {
        let place = found.iter().find(|(_, members)| !members.is_empty()).unwrap_or(&found[0]).0.clone();
        let members: Vec<String> = found.iter().flat_map(|(_, members)| members.iter().cloned()).collect();
        return vec![(place, members)];
    }
    found
}

/// The members an instance of the built-in error class `name` has (ES2022 lib: `Error` and its
/// standard subclasses, `AggregateError` with `errors`); `None` for other names.
fn builtin_error_members(name: &str) -> Option<Vec<&'static str>> {
    const ERROR: [&str; 4] = ["name", "message", "stack", "cause"];
    match name {
        "Error" | "EvalError" | "RangeError" | "ReferenceError" | "SyntaxError" | "TypeError" | "URIError" => Some(ERROR.to_vec()),
        "AggregateError" => Some(ERROR.iter().copied().chain(["errors"]).collect()),
        _ => None,
    }
}

/// The identifier starting at byte `byte` of `line` (empty when none does).
pub(crate) fn identifier_at_byte(line: &str, byte: usize) -> String {
    line.get(byte..).unwrap_or("").chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect()
}

/// `path` read beneath the workspace and parsed.
fn read_parsed(server: &LanguageServer, path: &Path) -> Option<ParsedSource> {
    let text = crate::files::read_workspace_file_to_string(server.workspace_root(), path).ok()?;
    ParsedSource::parse(path, &text)
}

/// The class declared where the server's definition of the name at (`line0`, byte `byte`) of
/// `path` lands, or why none was found.
fn class_at_definition(
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    byte: usize,
    deadline: Instant,
) -> Result<(PathBuf, TypeScriptClassFacts), &'static str> {
    let locations = ask::<GotoDefinition>(server, path, line0, byte, deadline)
        .ok_or("its definition got no answer: the server failed or the time ran out")?;
    locations
        .into_iter()
        .find_map(|(target, target_line0)| {
            let class = read_parsed(server, &target)?.typescript_class_named_at(target_line0)?;
            Some((target, class))
        })
        .ok_or("its definition is no class declaration that could be read: a class outside the workspace, or an expression")
}

/// The direct subclasses of `class` (declared in `path`): the server's implementations of its
/// name that are classes whose `extends` names it.
fn subclasses(
    server: &LanguageServer,
    path: &Path,
    class: &TypeScriptClassFacts,
    deadline: Instant,
) -> Vec<(PathBuf, TypeScriptClassFacts)> {
    let Some(locations) = ask::<GotoImplementation>(server, path, class.name_line0, class.name_byte, deadline) else { return Vec::new() };
    locations
        .into_iter()
        .filter_map(|(target, target_line0)| {
            let sub = read_parsed(server, &target)?.typescript_class_named_at(target_line0)?;
            (sub.name != class.name || target != path).then_some((target, sub))
        })
        .collect()
}

/// A goto-style request at (`line0`, byte `byte`) of `path`: the (path, 0-based line) of each
/// location answered.
fn ask<R>(server: &LanguageServer, path: &Path, line0: u32, byte: usize, deadline: Instant) -> Option<Vec<(PathBuf, u32)>>
where
    R: Request<Params = lsp_types::GotoDefinitionParams, Result = Option<lsp_types::GotoDefinitionResponse>>,
{
    // tsserver answers for the files it has open.
    if !server.supports(R::METHOD) || server.sync_document(path).is_err() {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(server.workspace_root(), path).ok()?;
    let line = text.lines().nth(line0 as usize)?;
    let params = lsp_types::GotoDefinitionParams {
        text_document_position_params: lsp_types::TextDocumentPositionParams {
            text_document: crate::lsp::client::text_document(path),
            position: lsp_types::Position { line: line0, character: server.position_encoding().column_from_byte(line, byte) },
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let answer = server.request::<R>(params, deadline).ok()??;
    let locations: Vec<(String, u32)> = match answer {
        lsp_types::GotoDefinitionResponse::Scalar(location) => vec![(location.uri.as_str().to_owned(), location.range.start.line)],
        lsp_types::GotoDefinitionResponse::Array(list) => {
            list.into_iter().map(|l| (l.uri.as_str().to_owned(), l.range.start.line)).collect()
        }
        lsp_types::GotoDefinitionResponse::Link(links) => {
            links.into_iter().map(|l| (l.target_uri.as_str().to_owned(), l.target_selection_range.start.line)).collect()
        }
    };
    Some(locations.into_iter().filter_map(|(uri, line0)| Some((crate::lsp::uri::uri_to_path(&uri)?, line0))).collect())
}
