//! `incoming_calls`: the calls that reach the queried function through another name that holds
//! it as a value — `export const ok = ResultImpl.ok`, an object property `{ build: make }`, an
//! interface member `ok: typeof ResultImpl.ok`, a renaming `export { make as create }`, a Python
//! module alias `parse_all = parse`, a Go `h := helper`, a bound copy
//! `export const createDraft = immer.createDraft.bind(immer)`.
//!
//! A call hierarchy lists calls of the function's own name only: tsserver lists the binding line
//! among the incoming calls (`referenced as a value`) and none of the calls through the alias,
//! pyright not even the binding. On true-myth 9.4.0, `ResultImpl.ok` read as "1 caller … no call
//! site calls it here" while 229 calls reach it (trial22 F2: 125 through `ok`, 104 through
//! `Result.ok`).
//!
//! The bindings are found among the answer's value references and the server's
//! `textDocument/references` of the queried item, each told by its line's text
//! ([`binding_on_line`]); each bound name is followed one level — the server's references of the
//! name, each told a call (`(` after it) from another use by
//! [`crate::lsp::hierarchy::usage_on_line`], comments and strings left out by the syntax tree —
//! at most [`MAX_ALIASES_FOLLOWED`] names, within the call's deadline. A name bound in turn
//! (`const keep = box.make`) is named, not followed. What was not followed is said.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::lsp::client::LanguageServer;
use crate::lsp::hierarchy::{usage_on_line, SiteUsage};
use crate::lsp::position::{is_identifier_char, split_lines};
use crate::lsp::rename_coverage::{classify_occurrences, OccurrenceKind, WordHit};
use crate::lsp::syntax::{ParsedSource, ReferenceRole};

/// Bound names followed per answer; further ones are named with the request that follows them.
pub const MAX_ALIASES_FOLLOWED: usize = 5;

/// How a name holds the function.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BindingKind {
    /// `const x = F`, `x = F`, `self.x = F`, `x := F`.
    Assignment,
    /// An object or struct property `{ x: F }`.
    Property,
    /// A member typed as the function: `x: typeof F`.
    TypeofMember,
    /// An import or export renaming `F as x`.
    Renamed,
    /// `const x = obj.F.bind(obj)` (also `.bind(obj, ...args)`): a name assigned a bound copy
    /// of the function, whose calls run it.
    BoundCopy,
}

impl BindingKind {
    /// How the binding reads in an answer.
    pub fn describe(self) -> &'static str {
        match self {
            BindingKind::Assignment => "a name assigned it",
            BindingKind::Property => "a property holding it",
            BindingKind::TypeofMember => "a member typed `typeof` it",
            BindingKind::Renamed => "a renaming import or export",
            BindingKind::BoundCopy => "a name assigned its `.bind` copy",
        }
    }
}

/// A name bound to the function at a reference site, as found on the site's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The bound name.
    pub name: String,
    /// Byte column of the bound name on the line.
    pub name_byte: usize,
    pub kind: BindingKind,
}

/// Words that end a binding's left-hand side without naming anything.
const NOT_A_NAME: &[&str] = &[
    "return",
    "lambda",
    "else",
    "case",
    "default",
    "yield",
    "await",
    "throw",
    "new",
    "typeof",
    "in",
    "of",
    "not",
    "and",
    "or",
    "if",
    "while",
    "for",
    "extends",
    "implements",
    "keyof",
];

/// Words that may precede the bound name (declaration keywords and modifiers).
const MODIFIERS: &[&str] = &[
    "export",
    "const",
    "let",
    "var",
    "static",
    "readonly",
    "public",
    "private",
    "protected",
    "declare",
    "pub",
    "mut",
    "global",
    "nonlocal",
    "abstract",
    "override",
];

fn identifier_length(text: &str) -> usize {
    text.chars().take_while(|c| is_identifier_char(*c)).map(char::len_utf8).sum()
}

fn is_name(word: &str) -> bool {
    !word.is_empty()
        && word.chars().all(is_identifier_char)
        && !word.starts_with(|c: char| c.is_ascii_digit())
        && !NOT_A_NAME.contains(&word)
        && !MODIFIERS.contains(&word)
}

/// The name the reference at byte `start` of `line` is bound to, when the line binds it:
/// `const x = F;`, `x = F`, `self.x = F`, `x := F`, `{ x: F }`, `x: typeof F;`, `F as x`
/// (the reference may be qualified: `ResultImpl.ok`, `box.make`, `mod::f`), and the same with a
/// bound copy `obj.F.bind(obj, …)` in the reference's place. `None` for a call,
/// an argument, a return, a comparison, a destructuring or anything else.
pub fn binding_on_line(line: &str, start: usize) -> Option<Binding> {
    let rest = line.get(start..)?;
    let length = identifier_length(rest);
    if length == 0 {
        return None;
    }
    let after_at = start + length;
    let after = line[after_at..].trim_start();
    // `F as x` (import/export renaming, Python `import f as x`).
    if let Some(renamed) = after.strip_prefix("as ") {
        // Only an import or export renames: `let n = encoded_len as u128;` is a Rust cast
        // (trial59 M1: base64's cast was called "a renaming import or export").
        let statement = line.trim_start();
        let importing = ["use ", "pub use ", "pub(crate) use ", "import ", "from ", "export ", "import{", "export{"]
            .iter()
            .any(|keyword| statement.starts_with(keyword))
            || (line[..start].contains('{') && !line[..start].contains('='))
            // A line of a multi-line import list: `    parse as parse_all,`.
            || statement.starts_with(&line[start..after_at]);
        if !importing {
            return None;
        }
        let renamed_trimmed = renamed.trim_start();
        let name_length = identifier_length(renamed_trimmed);
        let tail = renamed_trimmed[name_length..].trim_start();
        let name = &renamed_trimmed[..name_length];
        if is_name(name) && (tail.is_empty() || tail.starts_with([',', '}', ')', ';'])) {
            let name_byte = line.len() - renamed_trimmed.len();
            return Some(Binding { name: name.to_owned(), name_byte, kind: BindingKind::Renamed });
        }
        return None;
    }
    // `F.bind(obj)` / `F.bind(obj, ...args)`: the bound copy holds the function as `F` itself
    // does, its calls run it (trial149 F2: immer's public `createDraft` is
    // `immer.createDraft.bind(immer)`, and every user call reaches the method through it).
    let (after, bound) = match after_bind_call(after) {
        Some(rest) => (rest.trim_start(), true),
        None => (after, false),
    };
    let terminated = after.is_empty() || after.starts_with([';', ',', '}', ')']) || after.starts_with("//") || after.starts_with('#');
    if !terminated {
        return None;
    }
    // Strip the qualifier of the reference: `ResultImpl.`, `self.`, `box.`, `mod::`, `a?.`.
    let mut before = &line[..start];
    loop {
        let stripped = before.strip_suffix("?.").or_else(|| before.strip_suffix('.')).or_else(|| before.strip_suffix("::"));
        let Some(stripped) = stripped else { break };
        let qualifier = stripped.trim_end_matches(is_identifier_char);
        if qualifier.len() == stripped.len() {
            return None;
        }
        before = qualifier;
    }
    let mut before = before.trim_end();
    let mut typeof_member = false;
    if let Some(stripped) = before.strip_suffix("typeof") {
        if !stripped.ends_with(is_identifier_char) {
            typeof_member = true;
            before = stripped.trim_end();
        }
    }
    if let Some(left) = before.strip_suffix('=') {
        if typeof_member {
            return None;
        }
        let left = left.strip_suffix(':').unwrap_or(left);
        if left.ends_with(['=', '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '?']) {
            return None;
        }
        // A type annotation (`x: T = F`) does not name anything; the target is before it.
        let target = left.split(':').next().unwrap_or(left);
        if target.contains(['(', ')', '{', '}', '[', ']', ',', '=', '"', '\'']) {
            return None;
        }
        let words: Vec<&str> = target.split_whitespace().collect();
        let (last, modifiers) = words.split_last()?;
        if !modifiers.iter().all(|word| MODIFIERS.contains(word)) {
            return None;
        }
        let name = last.rsplit('.').next().unwrap_or(last);
        if !is_name(name) || !last.split('.').all(|part| !part.is_empty() && part.chars().all(is_identifier_char)) {
            return None;
        }
        let last_start = target.rfind(last)?;
        let name_byte = last_start + last.len() - name.len();
        let kind = if bound { BindingKind::BoundCopy } else { BindingKind::Assignment };
        return Some(Binding { name: name.to_owned(), name_byte, kind });
    }
    if let Some(left) = before.strip_suffix(':') {
        if left.ends_with(':') {
            return None;
        }
        let left = left.strip_suffix('?').unwrap_or(left).trim_end();
        let segment_start = left.rfind(['{', ',']).map_or(0, |at| at + 1);
        let segment = &left[segment_start..];
        let words: Vec<&str> = segment.split_whitespace().collect();
        let (name, modifiers) = words.split_last()?;
        if !is_name(name) || !modifiers.iter().all(|word| MODIFIERS.contains(word)) {
            return None;
        }
        let name_byte = left.len() - name.len();
        if typeof_member && bound {
            return None;
        }
        let kind = if typeof_member { BindingKind::TypeofMember } else { BindingKind::Property };
        return Some(Binding { name: (*name).to_owned(), name_byte, kind });
    }
    None
}

/// The text after a `.bind(…)` call that directly follows a reference (`after`: the text after
/// the referenced name), its parentheses balanced on the line; `None` when `after` is no such
/// call (`.bind` not called, or its arguments going on past the line).
fn after_bind_call(after: &str) -> Option<&str> {
    let arguments = after.strip_prefix('.')?.trim_start().strip_prefix("bind")?.trim_start().strip_prefix('(')?;
    let mut depth = 1usize;
    for (at, c) in arguments.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return (c == ')').then(|| &arguments[at + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

/// One name bound to the queried function and what following it found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AliasCalls {
    /// The bound name.
    pub name: String,
    pub kind: BindingKind,
    /// Where it is bound: the file and 0-based line of the reference to the function.
    pub uri: String,
    pub line0: u32,
    /// The bound name's 0-based character (server encoding) on that line.
    pub name_character0: u32,
    /// Which whole-word occurrence of the name on its line it is (1-based), when the line has
    /// more than one (the `occurrence` of an `lsp` request); 0 when it has one.
    pub occurrence: usize,
    /// Calls through the name: (uri, 0-based line, character), not already among the answer's
    /// call sites.
    pub calls: Vec<(String, u32, u32)>,
    /// Calls through the name that the answer already lists (a server that follows renamings).
    pub already_listed: usize,
    /// Names bound in turn to this one (`const keep = box.make`): (uri, 0-based line, name,
    /// occurrence as in [`AliasCalls::occurrence`]); not followed.
    pub further: Vec<(String, u32, String, usize)>,
    /// Other references of the name (imports, exports, values passed on).
    pub other_uses: usize,
    /// References in comments or strings (not counted as calls).
    pub in_comments: usize,
    /// Why the name was not followed (`None`: followed).
    pub not_followed: Option<String>,
}

/// The bound names found for an answer and what following them found.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AliasWalk {
    pub aliases: Vec<AliasCalls>,
    /// Requests sent.
    pub requests: usize,
    /// Why the queried item's own references could not be asked (`None`: asked, or not needed).
    pub references_failed: Option<String>,
    /// The queried item's references that are neither among the answer's call sites nor a
    /// binding, an import or export, a declaration or a type, sorted by place: a call through an
    /// expression (`(a || f)(x)`), an argument, another use as a value, or a direct call the
    /// hierarchy did not list — where a call may reach the function that the call hierarchy
    /// does not show (trial29 F1: tsserver's `miniSerializeError` had "1 caller" in tests while
    /// the library calls it as `((o && o.serializeError) || miniSerializeError)(err)`).
    pub uses_not_listed: Vec<UseNotListed>,
    /// Python: whole-word occurrences of the queried name on doctest `>>>` lines (absolute
    /// path, 0-based line), which the doctests run and the server does not analyze: calls there
    /// are callers no hierarchy lists (trial44 M2/M11). From the cross-check of the root's
    /// references (servers with `cross_check_references`).
    pub doctest_occurrences: Vec<(PathBuf, u32)>,
}

/// One reference of the queried function that the call hierarchy does not list as a call site
/// (see [`AliasWalk::uses_not_listed`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct UseNotListed {
    pub uri: String,
    /// 0-based line.
    pub line0: u32,
    /// 0-based character (server encoding).
    pub character0: u32,
    /// What the syntax says the reference does.
    pub role: ReferenceRole,
}

impl AliasWalk {
    /// Calls through all followed names.
    pub fn call_count(&self) -> usize {
        self.aliases.iter().map(|alias| alias.calls.len()).sum()
    }

    /// The bound name at 0-based `line0` of `uri` (the binding site), if one.
    pub fn bound_at(&self, uri: &str, line0: u32) -> Option<&AliasCalls> {
        self.aliases.iter().find(|alias| alias.uri == uri && alias.line0 == line0)
    }
}

/// Lines of the files read for one answer, each file once.
struct Lines<'a> {
    workspace_root: &'a Path,
    files: HashMap<String, Option<(PathBuf, String)>>,
}

impl<'a> Lines<'a> {
    fn new(workspace_root: &'a Path) -> Lines<'a> {
        Lines { workspace_root, files: HashMap::new() }
    }

    fn file(&mut self, uri: &str) -> Option<&(PathBuf, String)> {
        let root = self.workspace_root;
        self.files
            .entry(uri.to_owned())
            .or_insert_with(|| {
                let path = crate::lsp::uri::uri_to_path(uri)?;
                let text = crate::files::read_workspace_file_to_string(root, &path).ok()?;
                Some((path, text))
            })
            .as_ref()
    }

    fn line(&mut self, uri: &str, line0: u32) -> Option<String> {
        let (_, text) = self.file(uri)?;
        split_lines(text).get(line0 as usize).map(|line| (*line).to_owned())
    }
}

/// Finds the names bound to the queried items (`roots`: uri, 0-based line and character) among
/// `value_sites` (the answer's incoming sites) and the server's references of each root, and
/// follows each one level (see the module docs). `listed` holds the answer's call sites (uri,
/// 0-based line, character). Bounded by `deadline` and [`MAX_ALIASES_FOLLOWED`].
pub fn follow_aliases(
    server: &LanguageServer,
    roots: &[(String, u32, u32)],
    value_sites: &[(String, u32, u32)],
    listed: &HashSet<(String, u32, u32)>,
    deadline: Instant,
) -> AliasWalk {
    let encoding = server.position_encoding();
    let mut lines = Lines::new(server.workspace_root());
    let mut walk = AliasWalk::default();
    let mut candidates: Vec<(String, u32, u32)> = value_sites.to_vec();
    let mut root_references: HashSet<(String, u32, u32)> = HashSet::new();
    if server.supports("textDocument/references") {
        for (uri, line0, character0) in roots {
            let found = if server.definition().cross_check_references {
                completed_references(server, uri, *line0, *character0, deadline).map(|(found, doctests)| {
                    walk.doctest_occurrences.extend(doctests);
                    found
                })
            } else {
                references(server, uri, *line0, *character0, deadline)
            };
            match found {
                Ok(found) => {
                    root_references.extend(found.iter().cloned());
                    candidates.extend(found);
                }
                Err(failure) => walk.references_failed = Some(failure),
            }
            walk.requests += 1;
        }
    }
    let root_set: HashSet<(String, u32, u32)> = roots.iter().cloned().collect();
    let listed_lines: HashSet<(&str, u32)> = listed.iter().map(|(uri, line0, _)| (uri.as_str(), *line0)).collect();
    let root_name = |uri: &str, line0: u32, character0: u32, lines: &mut Lines<'_>| -> Option<String> {
        let line = lines.line(uri, line0)?;
        let byte = encoding.byte_from_column(&line, character0);
        let rest = line.get(byte..)?;
        let length = identifier_length(rest);
        (length > 0).then(|| rest[..length].to_owned())
    };
    let root_names: Vec<String> =
        roots.iter().filter_map(|(uri, line0, character0)| root_name(uri, *line0, *character0, &mut lines)).collect();
    // A name assigned an accessor's property (`const n = box.size`) holds what it returned.
    let accessor = roots.iter().any(|(uri, line0, character0)| {
        lines
            .line(uri, *line0)
            .is_some_and(|line| crate::lsp::hierarchy::declares_accessor(&line, encoding.byte_from_column(&line, *character0)))
    });
    let mut parsed: HashMap<String, Option<ParsedSource>> = HashMap::new();
    let mut seen_sites = HashSet::new();
    let mut bound: Vec<(String, u32, Binding)> = Vec::new();
    for (uri, line0, character0) in candidates {
        if root_set.contains(&(uri.clone(), line0, character0)) || !seen_sites.insert((uri.clone(), line0, character0)) {
            continue;
        }
        let Some(line) = lines.line(&uri, line0) else { continue };
        let Some(binding) = binding_on_line(&line, encoding.byte_from_column(&line, character0)).filter(|_| !accessor) else {
            // Not a binding: a reference the hierarchy does not list may still lead to a call.
            if root_references.contains(&(uri.clone(), line0, character0)) && !listed.contains(&(uri.clone(), line0, character0)) {
                let name = root_name(&uri, line0, character0, &mut lines).or_else(|| root_names.first().cloned()).unwrap_or_default();
                let source = parsed.entry(uri.clone()).or_insert_with(|| {
                    let (path, text) = lines.file(&uri)?;
                    ParsedSource::parse(path, text)
                });
                let role = source.as_ref().and_then(|source| source.reference_role(line0, character0, &name));
                let not_listed = match role {
                    Some(ReferenceRole::DirectCall) => !listed_lines.contains(&(uri.as_str(), line0)),
                    Some(ReferenceRole::CalledThroughExpression | ReferenceRole::Argument | ReferenceRole::Value) => true,
                    _ => false,
                };
                if let (true, Some(role)) = (not_listed, role) {
                    walk.uses_not_listed.push(UseNotListed { uri: uri.clone(), line0, character0, role });
                }
            }
            continue;
        };
        if !bound.iter().any(|(known_uri, known_line, known)| *known_uri == uri && *known_line == line0 && known.name == binding.name) {
            bound.push((uri, line0, binding));
        }
    }
    walk.uses_not_listed.sort_by(|a, b| (&a.uri, a.line0, a.character0).cmp(&(&b.uri, b.line0, b.character0)));
    bound.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    for (index, (uri, line0, binding)) in bound.into_iter().enumerate() {
        let line = lines.line(&uri, line0).unwrap_or_default();
        let name_character0 = encoding.column_from_byte(&line, binding.name_byte);
        let mut alias = AliasCalls {
            name: binding.name.clone(),
            kind: binding.kind,
            uri: uri.clone(),
            line0,
            name_character0,
            occurrence: occurrence_on_line(&line, &binding.name, binding.name_byte),
            calls: Vec::new(),
            already_listed: 0,
            further: Vec::new(),
            other_uses: 0,
            in_comments: 0,
            not_followed: None,
        };
        if index >= MAX_ALIASES_FOLLOWED {
            alias.not_followed = Some(format!("only {MAX_ALIASES_FOLLOWED} bound names are followed per answer"));
        } else if Instant::now() >= deadline {
            alias.not_followed = Some("out of time".to_owned());
        } else if !server.supports("textDocument/references") {
            alias.not_followed = Some(format!("{} offers no textDocument/references", server.id()));
        } else {
            walk.requests += 1;
            // The bound name's file is opened first: typescript-language-server answers the
            // references of a renaming export specifier in a file it has not opened (`_multipleOf
            // as multipleOf` in zod 3.25.76's classic/checks.ts) with an empty list, though
            // `checks.multipleOf(…)` calls it three times (trial31 M7).
            if let Some(path) = crate::lsp::uri::uri_to_path(&uri) {
                // A file that cannot be opened is asked as it is.
                let _ = server.sync_document(&path);
            }
            match references(server, &uri, line0, name_character0, deadline) {
                Err(failure) => alias.not_followed = Some(failure),
                Ok(found) => classify_alias_references(&mut alias, found, listed, &mut lines, encoding),
            }
        }
        walk.aliases.push(alias);
    }
    walk
}

/// Which whole-word occurrence of `name` on `line` starts at byte `at` (1-based); 0 when the
/// line has only one.
fn occurrence_on_line(line: &str, name: &str, at: usize) -> usize {
    let positions = crate::lsp::rename_coverage::word_positions(line, name);
    if positions.len() < 2 {
        return 0;
    }
    positions.iter().position(|start| *start == at).map_or(0, |index| index + 1)
}

/// Sorts the references of `alias` into calls, further bindings, other uses and comments.
fn classify_alias_references(
    alias: &mut AliasCalls,
    found: Vec<(String, u32, u32)>,
    listed: &HashSet<(String, u32, u32)>,
    lines: &mut Lines<'_>,
    encoding: crate::lsp::position::PositionEncoding,
) {
    let word_len = alias.name.len();
    // Names called at the references: a renaming (`export { make as create }`) whose calls the
    // server's references already return (tsserver follows renamings) is not a further name.
    let mut called_names: HashSet<String> = HashSet::new();
    let mut renamings: Vec<(String, u32, String, usize)> = Vec::new();
    // Per file: comments and strings told by the syntax tree, one parse per file.
    let mut per_file: BTreeMap<String, Vec<(u32, u32, usize, String)>> = BTreeMap::new();
    for (uri, line0, character0) in found {
        if uri == alias.uri && line0 == alias.line0 && character0 == alias.name_character0 {
            continue;
        }
        let Some(line) = lines.line(&uri, line0) else {
            alias.other_uses += 1;
            continue;
        };
        let byte = encoding.byte_from_column(&line, character0);
        per_file.entry(uri).or_default().push((line0, character0, byte, line));
    }
    for (uri, sites) in per_file {
        let kinds: Vec<OccurrenceKind> = match lines.file(&uri) {
            Some((path, text)) => {
                let hits: Vec<WordHit> = sites
                    .iter()
                    .map(|(line0, _, byte, line)| WordHit { path: path.clone(), line: *line0, byte_start: *byte, line_text: line.clone() })
                    .collect();
                classify_occurrences(text, path, &hits.iter().collect::<Vec<_>>(), word_len)
            }
            None => vec![OccurrenceKind::Code; sites.len()],
        };
        for ((line0, character0, byte, line), kind) in sites.into_iter().zip(kinds) {
            if matches!(kind, OccurrenceKind::Comment | OccurrenceKind::Text | OccurrenceKind::AttributeName | OccurrenceKind::ModulePath) {
                alias.in_comments += 1;
                continue;
            }
            match usage_on_line(&line, byte) {
                Some(SiteUsage::Call) if !line[byte..].trim_start_matches(is_identifier_char).trim_start().is_empty() => {
                    let rest = &line[byte..];
                    called_names.insert(rest[..identifier_length(rest)].to_owned());
                    if listed.contains(&(uri.clone(), line0, character0)) {
                        alias.already_listed += 1;
                    } else {
                        alias.calls.push((uri.clone(), line0, character0));
                    }
                }
                _ => match binding_on_line(&line, byte) {
                    Some(binding) => {
                        let occurrence = occurrence_on_line(&line, &binding.name, binding.name_byte);
                        if binding.kind == BindingKind::Renamed {
                            renamings.push((uri.clone(), line0, binding.name, occurrence));
                        } else {
                            alias.further.push((uri.clone(), line0, binding.name, occurrence));
                        }
                    }
                    None => alias.other_uses += 1,
                },
            }
        }
    }
    for renaming in renamings {
        if called_names.contains(&renaming.2) {
            alias.other_uses += 1;
        } else {
            alias.further.push(renaming);
        }
    }
    alias.further.sort();
    alias.calls.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
}

/// The server's references at 0-based (`line0`, `character0`) of `uri`, the declaration left
/// out, as (uri, 0-based line, character); the failure said as text.
pub(crate) fn references(
    server: &LanguageServer,
    uri: &str,
    line0: u32,
    character0: u32,
    deadline: Instant,
) -> Result<Vec<(String, u32, u32)>, String> {
    reference_locations(server, uri, line0, character0, deadline).map(to_places)
}

/// The server's `textDocument/references` (declaration left out) at (`line0`, `character0`) of
/// `uri`, as locations (a `null` answer is none). gopls' answer at an interface method is
/// completed with its implementing methods' references
/// ([`crate::lsp::go_interface_references`]): it misses a different part of them on each call,
/// so the call hierarchy's "N more direct calls" varied with it (trial61 F2).
fn reference_locations(
    server: &LanguageServer,
    uri: &str,
    line0: u32,
    character0: u32,
    deadline: Instant,
) -> Result<Vec<lsp_types::Location>, String> {
    let parsed: lsp_types::Uri = uri.parse().map_err(|_| format!("`{uri}` is not a URI"))?;
    let params = lsp_types::ReferenceParams {
        text_document_position: lsp_types::TextDocumentPositionParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: parsed },
            position: lsp_types::Position { line: line0, character: character0 },
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
        context: lsp_types::ReferenceContext { include_declaration: false },
    };
    let answer = server
        .request::<lsp_types::request::References>(params, deadline)
        .map_err(|failure| failure.to_tool_error(server.id(), "textDocument/references").message)?;
    let answer = answer.unwrap_or_default();
    let Some(path) = crate::lsp::uri::uri_to_path(uri) else { return Ok(answer) };
    let budget = (deadline.saturating_duration_since(Instant::now()) / 2).min(std::time::Duration::from_secs(10));
    let completed = crate::lsp::go_interface_references::complete_interface_method_references(
        server,
        &path,
        line0,
        character0,
        answer,
        false, // a count of direct calls: no implementing declarations
        Instant::now() + budget,
    );
    Ok(completed.locations)
}

/// What [`completed_references`] gives: the references (uri, 0-based line and character) and the
/// doctest occurrences (absolute path, 0-based line).
type CompletedReferences = (Vec<(String, u32, u32)>, Vec<(PathBuf, u32)>);

/// [`references`] cross-checked against grep -w
/// ([`crate::lsp::rename_coverage::complete_references`], a third of the time left, at most
/// 10 s): pyright's answer from a definition misses the uses in modules that import the name
/// (more-itertools 10.5.0: `take`'s references from recipes.py lacked more.py's
/// `partial(take, n, …)`, so `incoming_calls` did not name it; trial44 M11). Also returns the
/// doctest occurrences the cross-check found (Python).
fn completed_references(
    server: &LanguageServer,
    uri: &str,
    line0: u32,
    character0: u32,
    deadline: Instant,
) -> Result<CompletedReferences, String> {
    let path = crate::lsp::uri::uri_to_path(uri).ok_or_else(|| format!("`{uri}` is not a file URI"))?;
    let answer = reference_locations(server, uri, line0, character0, deadline)?;
    let text = crate::files::read_workspace_file_to_string(server.workspace_root(), &path).unwrap_or_default();
    let line = split_lines(&text).get(line0 as usize).map(|line| (*line).to_owned()).unwrap_or_default();
    let byte = server.position_encoding().byte_from_column(&line, character0);
    let name = line.get(byte..).map(|rest| rest[..identifier_length(rest)].to_owned()).unwrap_or_default();
    if name.is_empty() {
        return Ok((to_places(answer), Vec::new()));
    }
    let budget = (deadline.saturating_duration_since(Instant::now()) / 3).min(std::time::Duration::from_secs(10));
    let coverage = crate::lsp::rename_coverage::complete_references(
        server,
        server.workspace_root(),
        &path,
        line0,
        character0,
        &name,
        Some(answer),
        Instant::now() + budget,
    );
    Ok((to_places(coverage.answer), coverage.doctest_occurrences))
}

/// Locations as (uri, 0-based line, 0-based character) of their starts.
fn to_places(locations: Vec<lsp_types::Location>) -> Vec<(String, u32, u32)> {
    locations
        .into_iter()
        .map(|location| (location.uri.as_str().to_owned(), location.range.start.line, location.range.start.character))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(line: &str, name: &str) -> Option<(String, String, BindingKind)> {
        // The last whole-word occurrence: the reference (`parse` in `import parse as parse_all`).
        let start = *crate::lsp::rename_coverage::word_positions(line, name).last().expect("name on the line");
        binding_on_line(line, start).map(|b| (b.name.clone(), line[b.name_byte..b.name_byte + b.name.len()].to_owned(), b.kind))
    }

    #[test]
    fn a_line_that_binds_the_function_to_another_name_is_told_apart_from_a_use() {
        let some = |name: &str, kind| Some((name.to_owned(), name.to_owned(), kind));
        assert_eq!(binding("export const ok = ResultImpl.ok;", "ok"), some("ok", BindingKind::Assignment));
        assert_eq!(binding("  ok: typeof ResultImpl.ok;", "ok"), some("ok", BindingKind::TypeofMember));
        assert_eq!(binding("  readonly err?: typeof ResultImpl.err;", "err"), some("err", BindingKind::TypeofMember));
        assert_eq!(binding("export const table = { build: BoxImpl.make };", "make"), some("build", BindingKind::Property));
        assert_eq!(binding("const t = { a: 1, build: make, c: 2 };", "make"), some("build", BindingKind::Property));
        assert_eq!(binding("export { make as create };", "make"), some("create", BindingKind::Renamed));
        assert_eq!(binding("from .core import parse as parse_all", "parse"), some("parse_all", BindingKind::Renamed));
        assert_eq!(binding("    parse as parse_all,", "parse"), some("parse_all", BindingKind::Renamed));
        // A Rust cast is no renaming (trial59 M1).
        assert_eq!(binding("    let len_128 = encoded_len as u128;", "encoded_len"), None);
        assert_eq!(binding("parse_all = parse", "parse"), some("parse_all", BindingKind::Assignment));
        assert_eq!(binding("handler: Callable[[str], str] = core.parse  # alias", "parse"), some("handler", BindingKind::Assignment));
        assert_eq!(binding("        self.serializer = serialize", "serialize"), some("serializer", BindingKind::Assignment));
        assert_eq!(binding("\th := helper", "helper"), some("h", BindingKind::Assignment));
        assert_eq!(binding("    let mut f = crate::util::helper;", "helper"), some("f", BindingKind::Assignment));
        // A bound copy (trial149 F2: immer's `createDraft = immer.createDraft.bind(immer)`).
        assert_eq!(
            binding("export const createDraft = immer.createDraft.bind(immer)", "createDraft"),
            some("createDraft", BindingKind::BoundCopy)
        );
        assert_eq!(
            binding("export const resetTo = counter.reset.bind(counter, f(5), [1]);", "reset"),
            some("resetTo", BindingKind::BoundCopy)
        );
        assert_eq!(binding("    this.onClick = this.handle.bind(this)", "handle"), some("onClick", BindingKind::BoundCopy));
        assert_eq!(binding("const api = { run: worker.run.bind(worker) }", "run"), some("run", BindingKind::Property));
        // `.bind` not called here, called at once, or its arguments going on past the line.
        assert_eq!(binding("  const b = obj.f.bind", "f"), None);
        assert_eq!(binding("  const r = obj.f.bind(obj)(1)", "f"), None);
        assert_eq!(binding("  const b = obj.f.bind(obj,", "f"), None);
        assert_eq!(binding("  items.forEach(obj.f.bind(obj))", "f"), None);
        // Uses that bind nothing.
        assert_eq!(binding("  return ResultImpl.ok(value);", "ok"), None);
        assert_eq!(binding("  return helper;", "helper"), None);
        assert_eq!(binding("  items.map(parse);", "parse"), None);
        assert_eq!(binding("  const x = flag ? a : helper;", "helper"), None);
        assert_eq!(binding("  if (f == helper) {", "helper"), None);
        assert_eq!(binding("  const { helper } = mod;", "helper"), None);
        assert_eq!(binding("  run(key=helper)", "helper"), None);
        assert_eq!(binding("import { make, Box } from './box';", "make"), None);
        assert_eq!(binding("  const value = helper(1);", "helper"), None);
        assert_eq!(binding("  x = lambda: helper", "helper"), None);
    }
}
