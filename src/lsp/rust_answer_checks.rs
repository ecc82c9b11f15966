//! rust-analyzer answers checked against the source text (issue 11, trial 23 F2 and F4).
//!
//! - **Workspace symbols** come from rust-analyzer's index, which holds only code compiled in
//!   its configuration: a definition behind a `#[cfg(windows)]` (walkdir's second
//!   `device_num`), a `#[cfg(feature = "…")]` of a feature not enabled, or a template inside a
//!   `macro_rules!` body is not in the answer, and the answer read as complete.
//!   [`rust_definitions_not_listed`] walks the server's `.rs` files (tree-sitter, bounded), finds
//!   the `fn`/`struct`/`enum`/`trait`/`type`/`const`/`static`/`mod`/`union` definitions whose
//!   name matches the query as rust-analyzer matches (its fuzzy search: a subsequence,
//!   smart case) and that the answer does not hold, and names them with the reason the syntax shows.
//! - **References**: rust-analyzer 1.95's `textDocument/references` of scopeguard 1.2's function
//!   `guard` lists uses of same-named locals and parameters (`let mut guard =
//!   ManuallyDrop::new(guard)` in `into_inner(guard: Self)`), while its own
//!   `textDocument/definition` at those uses names the local binding.
//!   [`drop_references_to_other_bindings`] asks `definition` at each listed use in a file that
//!   binds a local of that name (bounded) and drops the uses it resolves to a local binding (a
//!   `let` pattern, a parameter, a closure or match binding) other than the queried symbol,
//!   naming them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

use crate::files::WorkspaceReader;
use crate::lsp::client::LanguageServer;
use crate::lsp::position::{is_identifier_char, split_lines};
use crate::lsp::uri::lsp_uri_to_path;

/// Rust files the workspace-symbol scan reads at most.
pub const MAX_SCANNED_FILES: usize = 2_000;
/// Time the workspace-symbol scan spends at most.
pub const SCAN_BUDGET: Duration = Duration::from_secs(4);
/// Definitions named in the workspace-symbol note at most (the rest are counted).
pub const NAMED_DEFINITIONS: usize = 15;
/// `textDocument/definition` requests the references check sends at most.
pub const MAX_DEFINITION_CHECKS: usize = 150;
/// Time the references check spends at most.
pub const CHECK_BUDGET: Duration = Duration::from_secs(8);

/// A Rust item definition found in the source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustDefinition {
    /// 0-based line of the item's first token (after its attributes).
    pub line0: u32,
    /// 0-based line of its name.
    pub name_line0: u32,
    /// `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`, `mod` or `union`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Why rust-analyzer may not index it, as the syntax shows: under a `#[cfg(…)]` attribute
    /// (of the item or an enclosing one, or the file's `#![cfg(…)]`), inside a `macro_rules!`
    /// body, or inside a function body; `None` when the syntax shows none of these.
    pub reason: Option<String>,
}

/// Whether `name` matches a workspace-symbol `query` as rust-analyzer's fuzzy search matches:
/// the query's characters appear in the name in order (`dvcnm` matches `device_num`), ignoring
/// case unless the query holds a capital letter (smart case: `Literal` does not match
/// `literal`, `guard` matches `Guard`). rust-analyzer strips `#` and `*` (its scope and kind
/// switches) first.
pub fn rust_analyzer_fuzzy_match(name: &str, query: &str) -> bool {
    let case_sensitive = query.chars().any(char::is_uppercase);
    let mut rest = name.chars();
    query
        .chars()
        .filter(|c| !matches!(c, '#' | '*'))
        .all(|wanted| rest.by_ref().any(|c| if case_sensitive { c == wanted } else { c.eq_ignore_ascii_case(&wanted) }))
}

/// The item definitions in Rust `source` whose name satisfies `matches`, in source order, each
/// with the reason rust-analyzer may not index it ([`RustDefinition::reason`]). Empty when the
/// text does not parse.
pub fn rust_item_definitions(source: &str, matches: &dyn Fn(&str) -> bool) -> Vec<RustDefinition> {
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Rust) else { return Vec::new() };
    let root = root.root().get_inner_node();
    let text = |node: tree_sitter::Node<'_>| source.get(node.byte_range()).unwrap_or_default().to_owned();
    // The file's own `#![cfg(…)]`.
    let mut file_cfg = None;
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() == "inner_attribute_item" && text(child).replace(' ', "").starts_with("#![cfg(") {
            file_cfg = Some(format!("under the file's `{}` (line {})", one_line(&text(child)), child.start_position().row + 1));
        }
    }
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if node.kind() == "macro_definition" {
            found.extend(macro_template_definitions(source, node, matches));
            continue;
        }
        let kind = match node.kind() {
            "function_item" | "function_signature_item" => "fn",
            "struct_item" => "struct",
            "enum_item" => "enum",
            "trait_item" => "trait",
            "type_item" | "associated_type" => "type",
            "const_item" => "const",
            "static_item" => "static",
            "mod_item" => "mod",
            "union_item" => "union",
            _ => continue,
        };
        let Some(name_node) = node.child_by_field_name("name") else { continue };
        let name = text(name_node);
        if !matches(&name) {
            continue;
        }
        found.push(RustDefinition {
            line0: node.start_position().row as u32,
            name_line0: name_node.start_position().row as u32,
            kind,
            name,
            reason: syntax_reason(source, node).or_else(|| file_cfg.clone()),
        });
    }
    found.sort_by_key(|definition| (definition.line0, definition.name_line0));
    found
}

/// The definitions written literally in the body of the `macro_rules!` definition `node`
/// (`fn name`, `struct Name`, … in its token trees; a `$name` metavariable is no name):
/// templates rust-analyzer indexes only through their expansions.
fn macro_template_definitions(source: &str, node: tree_sitter::Node<'_>, matches: &dyn Fn(&str) -> bool) -> Vec<RustDefinition> {
    let macro_name = node.child_by_field_name("name").and_then(|name| source.get(name.byte_range())).unwrap_or("?");
    let mut leaves = Vec::new();
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        if current.child_count() == 0 {
            leaves.push(current);
            continue;
        }
        let mut cursor = current.walk();
        let children: Vec<tree_sitter::Node<'_>> = current.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    let text = |node: tree_sitter::Node<'_>| source.get(node.byte_range()).unwrap_or_default();
    let mut found = Vec::new();
    for pair in leaves.windows(2) {
        let kind = match text(pair[0]) {
            "fn" => "fn",
            "struct" => "struct",
            "enum" => "enum",
            "trait" => "trait",
            "type" => "type",
            "const" => "const",
            "static" => "static",
            "mod" => "mod",
            "union" => "union",
            _ => continue,
        };
        if pair[1].kind() != "identifier" || !matches(text(pair[1])) {
            continue;
        }
        found.push(RustDefinition {
            line0: pair[0].start_position().row as u32,
            name_line0: pair[1].start_position().row as u32,
            kind,
            name: text(pair[1]).to_owned(),
            reason: Some(format!(
                "inside the `macro_rules! {macro_name}` body (line {}): a template; rust-analyzer indexes only its expansions, where the macro is invoked",
                node.start_position().row + 1
            )),
        });
    }
    found
}

/// `text` on one line, runs of whitespace collapsed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Why rust-analyzer may not index the item `node`, by its place in the syntax tree: the nearest
/// `#[cfg(…)]` on it or an enclosing item, or a function body around it.
fn syntax_reason(source: &str, node: tree_sitter::Node<'_>) -> Option<String> {
    // The innermost `#[cfg]` gating an item around the node (the file's `#![cfg]` is said by the
    // caller), found as the other unanalysed-code notes find it.
    let mut root = node;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    let gate = crate::lsp::inactive::cfg_gate_at(&root, source, node.start_position().row as u32, false)
        .filter(|(attribute, _, _)| !attribute.starts_with("#!["));
    if let Some((attribute, line0, item_start)) = gate {
        let whose = if item_start == node.start_byte() { "" } else { " of an enclosing item" };
        return Some(format!(
            "under `{}` (line {}{whose}): code behind a cfg that is off in rust-analyzer's configuration (target OS, features) is not indexed",
            one_line(&attribute),
            line0 + 1
        ));
    }
    let mut current = Some(node);
    let mut inside_function: Option<String> = None;
    while let Some(item) = current {
        if item.id() != node.id() && item.kind() == "function_item" && inside_function.is_none() {
            let name = item.child_by_field_name("name").and_then(|name| source.get(name.byte_range())).unwrap_or("?");
            inside_function = Some(format!("declared inside the body of `fn {name}` (line {})", item.start_position().row + 1));
        }
        current = item.parent();
    }
    inside_function
}

/// One listed place of a workspace-symbol answer: canonical path, 0-based line, name.
pub type ListedSymbol = (PathBuf, u32, String);

/// For rust-analyzer's workspace symbols of `query`: the note naming the definitions grep and
/// tree-sitter find under the server's root that match the query as rust-analyzer matches
/// ([`rust_analyzer_fuzzy_match`]) and are not in the answer (`listed`: every place the server
/// answered, by canonical path, 0-based line and name), with their reason; bounded by
/// [`MAX_SCANNED_FILES`] and [`SCAN_BUDGET`] (said when reached), [`NAMED_DEFINITIONS`]
/// named. `None` when every such definition is listed. `answer_was_cut` (the answer reached
/// the server's cap) makes the note say that the scan was not run, since a missing definition
/// then proves nothing. A query holding other than identifier characters (and rust-analyzer's
/// `#`/`*` switches) is not matched here (a path query): the note says so.
pub fn rust_definitions_not_listed(
    server: &LanguageServer,
    query: &str,
    listed: &HashSet<ListedSymbol>,
    answer_was_cut: bool,
    shown: &dyn Fn(&Path) -> String,
) -> Option<String> {
    if answer_was_cut {
        return Some(format!(
            "note: not cross-checked: the source scan for definitions {} leaves out (behind a `#[cfg]` that is off, in `macro_rules!` bodies) was not run, because its answer reached its cap; narrow the query",
            server.id()
        ));
    }
    let bare: String = query.chars().filter(|c| !matches!(c, '#' | '*')).collect();
    if bare.is_empty() {
        return None;
    }
    if !bare.chars().all(is_identifier_char) {
        return Some(format!(
            "note: not cross-checked: {query:?} is not a plain name, so the source scan for definitions {} leaves out (behind a `#[cfg]` that is off, in `macro_rules!` bodies) was not run; ask with the bare name to get it",
            server.id()
        ));
    }
    let started = Instant::now();
    let mut missing: Vec<(PathBuf, RustDefinition)> = Vec::new();
    let mut stopped: Option<String> = None;
    let scanned = for_each_rust_file(server, &mut |path, text| {
        if started.elapsed() > SCAN_BUDGET {
            stopped = Some(format!("its time budget of {} s ran out", SCAN_BUDGET.as_secs()));
            return false;
        }
        // Parsed only when a keyword is followed by a matching name somewhere in the text.
        if !may_define_a_match(text, &bare) {
            return true;
        }
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        for definition in rust_item_definitions(text, &|name| rust_analyzer_fuzzy_match(name, &bare)) {
            let is_listed = [definition.line0, definition.name_line0]
                .iter()
                .any(|line0| listed.contains(&(canonical.clone(), *line0, definition.name.clone())));
            if !is_listed {
                missing.push((path.to_path_buf(), definition));
            }
        }
        true
    });
    if scanned.truncated && stopped.is_none() {
        stopped = Some(format!("it reads at most {MAX_SCANNED_FILES} files"));
    }
    let scope = format!(
        "{} .rs file(s) under {} scanned{}",
        scanned.files,
        shown(server.root()),
        stopped.as_ref().map(|why| format!(", then stopped: {why}")).unwrap_or_default()
    );
    if missing.is_empty() {
        return stopped.map(|why| {
            format!(
                "note: the source scan for definitions matching {query:?} that {} leaves out was cut short ({why}): {scope}",
                server.id()
            )
        });
    }
    // A file no reason was found in the syntax for: its gating `mod` declaration, if any.
    let mut gated_files: HashMap<PathBuf, Option<String>> = HashMap::new();
    let entries: Vec<String> = missing
        .iter()
        .take(NAMED_DEFINITIONS)
        .map(|(path, definition)| {
            let reason = definition.reason.clone().unwrap_or_else(|| {
                gated_files
                    .entry(path.clone())
                    .or_insert_with(|| {
                        crate::lsp::inactive::off_gating_declaration_up_the_module_chain(server.workspace_root(), path).map(|(declared, _)| {
                            format!(
                                "its module is declared under `{}` ({}): code behind a cfg that is off is not indexed",
                                declared.cfg,
                                declared.where_declared()
                            )
                        })
                    })
                    .clone()
                    .unwrap_or_else(|| {
                        "no `#[cfg]` or `macro_rules!` around it: a file no crate's module tree includes, or another reason the server does not say".to_owned()
                    })
            });
            format!("{}:{} {} {} — {reason}", shown(path), definition.name_line0 + 1, definition.kind, definition.name)
        })
        .collect();
    let more = if missing.len() > NAMED_DEFINITIONS {
        format!("; … {} more not named (at most {NAMED_DEFINITIONS} are)", missing.len() - NAMED_DEFINITIONS)
    } else {
        String::new()
    };
    Some(format!(
        "note: NOT in this answer: {} definition(s) whose name matches {query:?} (as {} matches: its letters in order, case ignored unless the query has a capital) that the source text holds but {} does not know — it indexes only code compiled in its configuration; they are not analysed, so no claim is made about them beyond their text ({scope}): {}{more}",
        missing.len(),
        server.id(),
        server.id(),
        entries.join("; ")
    ))
}

/// Whether Rust `text` may define a name matching `query` ([`rust_analyzer_fuzzy_match`]): some
/// `fn`/`struct`/`enum`/`trait`/`type`/`const`/`static`/`mod`/`union` word is followed by such
/// a name. A cheap text test before parsing (it misses only a name parted from its keyword
/// by a comment).
fn may_define_a_match(text: &str, query: &str) -> bool {
    const KEYWORDS: &[&str] = &["fn", "struct", "enum", "trait", "type", "const", "static", "mod", "union"];
    let words: Vec<&str> = text.split(|c: char| !is_identifier_char(c)).filter(|word| !word.is_empty()).collect();
    words.windows(2).any(|pair| KEYWORDS.contains(&pair[0]) && rust_analyzer_fuzzy_match(pair[1], query))
}

/// How far [`for_each_rust_file`] got.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScannedFiles {
    /// Files read.
    pub files: usize,
    /// Whether [`MAX_SCANNED_FILES`] stopped the walk.
    pub truncated: bool,
}

/// Calls `visit` with each file `server` serves under its root (path, text), read beneath the
/// run's root (no symlink followed), `.gitignore` honoured, hidden and `target` directories
/// skipped, at most [`MAX_SCANNED_FILES`]; `visit` returns `false` to stop.
fn for_each_rust_file(server: &LanguageServer, visit: &mut dyn FnMut(&Path, &str) -> bool) -> ScannedFiles {
    let mut scanned = ScannedFiles::default();
    let root = server.root().to_path_buf();
    let Ok(reader) = WorkspaceReader::open(crate::files::walk_beneath::root_for_walk(server.workspace_root(), &root)) else {
        return scanned;
    };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), &root) else { return scanned };
    let walker = walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter();
    let canonical_root = std::fs::canonicalize(reader.root()).unwrap_or_else(|_| reader.root().to_path_buf());
    // A crate of its own beneath the root (a `downstream/` path dependant, no workspace member)
    // is its own server's: the root's rust-analyzer indexes none of it, so its definitions are
    // not this server's to miss (trial112 F2: `downstream/`'s listed definitions were called
    // "NOT in this answer … does not know").
    let scope = crate::lsp::project_scope::WalkScope::for_server(server.definition(), &root);
    let canonical_server_root = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
    for entry in walker.flatten() {
        let path = entry.path();
        if !entry.is_file() || path.extension().and_then(|ext| ext.to_str()) != Some("rs") {
            continue;
        }
        let full = canonical_root.join(entry.relative());
        if full.strip_prefix(&canonical_server_root).is_ok_and(|relative| scope.prunes(relative)) {
            continue;
        }
        if scanned.files >= MAX_SCANNED_FILES {
            scanned.truncated = true;
            break;
        }
        scanned.files += 1;
        let Ok(text) = reader.read_to_string(path) else { continue };
        if !visit(&canonical_root.join(entry.relative()), &text) {
            break;
        }
    }
    scanned
}

/// Whether the identifier node `node` is a binding of a local: the pattern of a `let`, a
/// function or closure parameter, an `if let` / `while let`, a `for` loop or a `match` arm
/// (through nested tuple, struct, reference, `mut`, `ref`, `|` and `@` patterns).
fn is_local_binding(node: tree_sitter::Node<'_>) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        let same = |field: &str| parent.child_by_field_name(field).is_some_and(|at| at.id() == child.id());
        match parent.kind() {
            "let_declaration" | "parameter" | "let_condition" | "for_expression" => return same("pattern"),
            "closure_parameters" => return true,
            "match_pattern" => return !same("condition"),
            "tuple_struct_pattern" | "struct_pattern" if same("type") => return false,
            "tuple_pattern"
            | "tuple_struct_pattern"
            | "struct_pattern"
            | "field_pattern"
            | "reference_pattern"
            | "ref_pattern"
            | "mut_pattern"
            | "or_pattern"
            | "slice_pattern"
            | "captured_pattern" => child = parent,
            _ => return false,
        }
    }
    false
}

/// The 0-based (line, byte column) of every local binding ([`is_local_binding`]) named `name`
/// in Rust `source`. Empty when the text does not parse.
pub fn local_bindings(source: &str, name: &str) -> Vec<(u32, usize)> {
    if !source.contains(name) {
        return Vec::new();
    }
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Rust) else { return Vec::new() };
    let mut found = Vec::new();
    let mut stack = vec![root.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "identifier" && source.get(node.byte_range()) == Some(name) && is_local_binding(node) {
            found.push((node.start_position().row as u32, node.start_position().column));
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    found.sort_unstable();
    found
}

/// A file's text and its local bindings of the name ([`local_bindings`]); `None` when the file
/// cannot be read beneath the workspace root.
type FileBindings = Option<(std::rc::Rc<str>, std::rc::Rc<Vec<(u32, usize)>>)>;

/// What [`drop_references_to_other_bindings`] did.
#[derive(Debug, Clone, Default)]
pub struct CheckedReferences {
    /// The references kept.
    pub answer: Vec<lsp_types::Location>,
    /// Notes: what was dropped and why, what was not checked.
    pub notes: Vec<String>,
}

/// For a rust-analyzer `references` answer for `name` at (`line0`, `character`) of `origin`:
/// each listed use in a file that also binds a local named `name` (tree-sitter,
/// [`local_bindings`]) is asked `textDocument/definition`; a use whose definition is only local
/// bindings (a `let` pattern, a parameter, …) and none of the queried symbol's definitions is a
/// different symbol of the same name and is dropped, named in a note with the binding. Skipped
/// when the queried symbol is itself a local binding. Bounded by [`MAX_DEFINITION_CHECKS`]
/// requests and [`CHECK_BUDGET`] (and `deadline`); what was not checked is said, and so is a
/// use whose `definition` request got no answer in time (kept in the answer: a cold or loaded
/// server is not taken to mean "the queried symbol").
#[allow(clippy::too_many_arguments)]
pub fn drop_references_to_other_bindings(
    server: &LanguageServer,
    origin: &Path,
    line0: u32,
    character: u32,
    name: &str,
    answer: Vec<lsp_types::Location>,
    deadline: Instant,
    shown: &dyn Fn(&Path) -> String,
) -> CheckedReferences {
    let encoding = server.position_encoding();
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let origin = canonical(origin);
    let sources: std::cell::RefCell<HashMap<PathBuf, FileBindings>> = Default::default();
    let bindings_of = |path: &Path| -> FileBindings {
        sources
            .borrow_mut()
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let text = crate::files::read_workspace_file_to_string(server.workspace_root(), path).ok()?;
                let bindings = std::rc::Rc::new(local_bindings(&text, name));
                Some((std::rc::Rc::from(text), bindings))
            })
            .clone()
    };
    // Whether (path, line0, character in the server's encoding) is a local binding of `name`.
    let is_binding_at = |path: &Path, target_line0: u32, target_character: u32| -> bool {
        let Some((text, bindings)) = bindings_of(path) else { return false };
        let Some(line_text) = split_lines(&text).get(target_line0 as usize).map(|line| line.to_string()) else { return false };
        let byte = encoding.byte_from_column(&line_text, target_character);
        bindings.contains(&(target_line0, byte))
    };
    let kept_unchanged = |answer: Vec<lsp_types::Location>| CheckedReferences { answer, notes: Vec::new() };
    if is_binding_at(&origin, line0, character) {
        return kept_unchanged(answer);
    }
    let check_deadline = deadline.min(Instant::now() + CHECK_BUDGET);
    let mut queried: HashSet<(PathBuf, u32, u32)> =
        crate::lsp::rename_coverage::definition_targets(server, &origin, line0, character, check_deadline);
    queried.insert((origin.clone(), line0, character));
    let location_path = |location: &lsp_types::Location| lsp_uri_to_path(&location.uri).map(|path| canonical(&path));
    // The uses to ask: not the queried symbol's own definition, in a file binding a local `name`.
    let candidates: Vec<usize> = answer
        .iter()
        .enumerate()
        .filter(|(_, location)| {
            let Some(path) = location_path(location) else { return false };
            let start = location.range.start;
            !queried.contains(&(path.clone(), start.line, start.character))
                && bindings_of(&path).is_some_and(|(_, found)| !found.is_empty())
        })
        .map(|(index, _)| index)
        .collect();
    if candidates.is_empty() {
        return kept_unchanged(answer);
    }
    let mut dropped: Vec<(usize, String)> = Vec::new();
    let mut asked = 0usize;
    let mut unchecked: Vec<usize> = Vec::new();
    let mut unanswered: Vec<usize> = Vec::new();
    for &index in &candidates {
        if asked >= MAX_DEFINITION_CHECKS || Instant::now() >= check_deadline {
            unchecked.push(index);
            continue;
        }
        asked += 1;
        let location = &answer[index];
        let Some(path) = location_path(location) else { continue };
        let targets = crate::lsp::rename_coverage::definition_targets(
            server,
            &path,
            location.range.start.line,
            location.range.start.character,
            check_deadline,
        );
        if targets.is_empty() {
            // No answer in time (a server still loading, a request cut by the budget): the use
            // stays listed, and is said to be unchecked.
            unanswered.push(index);
            continue;
        }
        if targets.iter().any(|target| queried.contains(target)) {
            continue;
        }
        let mut sorted: Vec<&(PathBuf, u32, u32)> = targets.iter().collect();
        sorted.sort();
        // A local binding among the definitions (rust-analyzer adds the `Index::index` impl for a
        // use inside `buf[0..encoded_len]`: trial59 F2 kept that local as a reference) is it.
        if let Some((target, target_line0, _)) =
            sorted.iter().find(|(target, target_line0, target_character)| is_binding_at(target, *target_line0, *target_character))
        {
            dropped.push((
                index,
                format!("{}:{} (bound at {}:{})", shown(&path), location.range.start.line + 1, shown(target), target_line0 + 1),
            ));
        }
    }
    let mut notes = Vec::new();
    if !dropped.is_empty() {
        const NAMED: usize = 15;
        let named: Vec<&str> = dropped.iter().take(NAMED).map(|(_, text)| text.as_str()).collect();
        let more = if dropped.len() > NAMED { format!(", … {} more", dropped.len() - NAMED) } else { String::new() };
        notes.push(format!(
            "note: left out: {} location(s) {} listed as references of `{name}` that are a different symbol — a local variable or parameter also named `{name}`: {}'s own definition at each is that local binding, not the queried `{name}`: {}{more}",
            dropped.len(),
            server.id(),
            server.id(),
            named.join(", ")
        ));
    }
    let named_locations = |indices: &[usize]| -> String {
        let named: Vec<String> = indices
            .iter()
            .take(10)
            .filter_map(|&index| {
                let location = &answer[index];
                location_path(location).map(|path| format!("{}:{}", shown(&path), location.range.start.line + 1))
            })
            .collect();
        format!("{}{}", named.join(", "), if indices.len() > named.len() { ", …" } else { "" })
    };
    if !unanswered.is_empty() {
        notes.push(format!(
            "note: not cross-checked: {} listed location(s) in files that also bind a local `{name}` got no `definition` answer from {} in time, so some may be that local rather than `{name}` (ask `definition` at each, or repeat the call once the server is warm): {}",
            unanswered.len(),
            server.id(),
            named_locations(&unanswered)
        ));
        let while_loading = unanswered
            .iter()
            .filter_map(|&index| location_path(&answer[index]).map(|path| (path, answer[index].range.start)))
            .filter(|(path, start)| server.lookup_unanswered_while_loading(path, start.line, start.character))
            .count();
        let ask_again = "call lsp with the same references arguments";
        notes.extend(crate::lsp::loading_lookups::unanswered_note(server, while_loading, "this answer's cross-check", ask_again));
    }
    if !unchecked.is_empty() {
        notes.push(format!(
            "note: not cross-checked: {} listed location(s) in files that also bind a local `{name}` were not asked `definition` (the check's budget of {MAX_DEFINITION_CHECKS} requests / {} s ran out after {asked}), so some may be that local rather than `{name}`: {}",
            unchecked.len(),
            CHECK_BUDGET.as_secs(),
            named_locations(&unchecked)
        ));
    }
    let dropped_indices: HashSet<usize> = dropped.iter().map(|(index, _)| *index).collect();
    let answer =
        answer.into_iter().enumerate().filter(|(index, _)| !dropped_indices.contains(index)).map(|(_, location)| location).collect();
    CheckedReferences { answer, notes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fuzzy_match_is_rust_analyzers_case_insensitive_subsequence() {
        assert!(rust_analyzer_fuzzy_match("device_num", "dvcnm"));
        assert!(rust_analyzer_fuzzy_match("DirEntry", "direntry"));
        assert!(rust_analyzer_fuzzy_match("metadata_internal", "#metadata*"));
        assert!(!rust_analyzer_fuzzy_match("device_num", "numdev"));
        // Smart case, as rust-analyzer 1.95 answers: a capital makes the match case-sensitive.
        assert!(rust_analyzer_fuzzy_match("ScopeGuard", "Guard"));
        assert!(!rust_analyzer_fuzzy_match("literal", "Literal"));
        assert!(rust_analyzer_fuzzy_match("Guard", "guard"));
    }

    #[test]
    fn definitions_are_found_with_the_cfg_or_macro_that_hides_them() {
        let source = "#[cfg(unix)]\npub fn device_num() {}\n\n#[cfg(windows)]\n/// doc\npub fn device_num() {}\n\n#[cfg(feature = \"x\")]\nmod extra {\n    pub struct DeviceExtra;\n}\n\nmacro_rules! make {\n    () => { pub fn device_made() {} };\n}\n\nfn outer() {\n    fn device_inner() {}\n    let device = 1;\n}\n";
        let found = rust_item_definitions(source, &|name| rust_analyzer_fuzzy_match(name, "device"));
        let summary: Vec<(u32, &str, &str)> = found.iter().map(|d| (d.name_line0 + 1, d.kind, d.name.as_str())).collect();
        assert_eq!(
            summary,
            vec![
                (2, "fn", "device_num"),
                (6, "fn", "device_num"),
                (10, "struct", "DeviceExtra"),
                (14, "fn", "device_made"),
                (18, "fn", "device_inner")
            ]
        );
        assert!(found[0].reason.as_deref().unwrap().starts_with("under `#[cfg(unix)]` (line 1)"), "{:?}", found[0].reason);
        assert!(found[1].reason.as_deref().unwrap().starts_with("under `#[cfg(windows)]` (line 4)"), "{:?}", found[1].reason);
        assert!(
            found[2].reason.as_deref().unwrap().contains("`#[cfg(feature = \"x\")]` (line 8 of an enclosing item)"),
            "{:?}",
            found[2].reason
        );
        assert!(found[4].reason.as_deref().unwrap().starts_with("declared inside the body of `fn outer`"), "{:?}", found[4].reason);
        let template = rust_item_definitions(source, &|name| name == "device_made");
        assert_eq!(template.len(), 1, "{template:?}");
        assert_eq!((template[0].name_line0 + 1, template[0].kind), (14, "fn"));
        assert!(template[0].reason.as_deref().unwrap().starts_with("inside the `macro_rules! make` body (line 13)"), "{template:?}");
    }

    #[test]
    fn local_bindings_are_let_patterns_and_parameters_not_calls_or_items() {
        let source = "pub fn guard(v: u8) -> u8 { v }\n\nfn into_inner(guard: u8) -> u8 {\n    let mut guard = guard + 1;\n    guard\n}\n\nfn t() {\n    let (a, guard) = (1, guard(2));\n    let f = |guard: u8| guard;\n    if let Some(guard) = Some(3) { drop(guard) }\n    match 4 { guard if guard > 1 => {}, _ => {} }\n}\n";
        assert_eq!(local_bindings(source, "guard"), vec![(2, 14), (3, 12), (8, 12), (9, 13), (10, 16), (11, 14)]);
    }
}
