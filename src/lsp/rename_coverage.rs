//! The `grep -w` check of `lsp_rename`: does the server's edit cover every real reference?
//!
//! A language server renames only the references it resolves to the renamed declaration. On
//! real projects it misses some: pyright, asked at a function's source definition, skips the
//! uses that bind through a `.pyi` stub next to the source (attrs: 27 uses of `evolve` in
//! `tests/`), and uses it cannot resolve at all (a package it imports from another copy). A
//! rename that misses them leaves the project broken while saying it succeeded.
//!
//! [`complete_rename`] checks the edit against ground truth found independently:
//!
//! 1. every whole-word occurrence of the old name in the files the server serves under its
//!    root (`.venv`, `venv`, `node_modules`, `target`, `.git`, `__pycache__` skipped; at most
//!    [`MAX_FILES`] files and [`MAX_HITS`] occurrences);
//! 2. each occurrence the edit does not cover is asked `textDocument/definition`; when the
//!    answer leads to the renamed symbol (a location the definition of the renamed position
//!    also gives), the occurrence is a missed reference;
//! 3. for a missed reference the server is asked to rename again *from there* (at most
//!    [`MAX_EXTRA_RENAMES`] times; pyright's rename from a use covers both the stub and the
//!    source declaration), and the edits are merged; a missed reference that is still not
//!    covered after that gets an edit of its identifier from runbound itself — only when the
//!    edit renames the declaration (else renaming a use would break it);
//! 4. what stays unrenamed is listed: occurrences whose definition leads elsewhere (other
//!    symbols with the same name), nowhere (comments, strings, unresolvable code), and those
//!    not checked because the time budget ran out.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use crate::lsp::client::LanguageServer;
use crate::lsp::position::{is_identifier_char, split_lines};
use crate::lsp::servers::ServerDefinition;
use crate::lsp::uri::{path_to_uri, uri_to_path};

/// Files scanned for occurrences at most.
pub const MAX_FILES: usize = 20_000;
/// Occurrences collected at most (the rest are counted as not checked).
pub const MAX_HITS: usize = 2_000;
/// Renames requested again from a missed reference, at most.
pub const MAX_EXTRA_RENAMES: usize = 3;
/// Occurrences listed in the report at most per group.
const LISTED: usize = 15;

/// One whole-word occurrence of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordHit {
    /// Absolute path.
    pub path: PathBuf,
    /// 0-based line.
    pub line: u32,
    /// Byte column (0-based) of the first character.
    pub byte_start: usize,
    /// The line's text.
    pub line_text: String,
}

/// Whole-word occurrences of `word` in the files `definition` serves under `root`, and how many
/// files were scanned. The walk honours `.gitignore`, skips hidden directories and the
/// environment/build directories named in the module docs, and stops at [`MAX_FILES`] files or
/// [`MAX_HITS`] occurrences (`truncated` then says so).
pub fn grep_word(definition: &ServerDefinition, root: &Path, word: &str) -> GrepResult {
    let mut result = GrepResult::default();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .filter_entry(|entry| {
            !matches!(entry.file_name().to_str(), Some("node_modules" | "target" | ".git" | ".venv" | "venv" | "__pycache__"))
        })
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker.flatten() {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) || !definition.serves(path) {
            continue;
        }
        if result.files_scanned >= MAX_FILES || result.hits.len() >= MAX_HITS {
            result.truncated = true;
            break;
        }
        result.files_scanned += 1;
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        if !text.contains(word) {
            continue;
        }
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        for (line, line_text) in split_lines(&text).into_iter().enumerate() {
            for byte_start in word_positions(line_text, word) {
                if result.hits.len() >= MAX_HITS {
                    result.truncated = true;
                    break;
                }
                result.hits.push(WordHit { path: path.clone(), line: line as u32, byte_start, line_text: line_text.to_owned() });
            }
        }
    }
    result
}

/// What [`grep_word`] found.
#[derive(Debug, Clone, Default)]
pub struct GrepResult {
    /// The occurrences, by file (sorted by name) then position.
    pub hits: Vec<WordHit>,
    /// Files read.
    pub files_scanned: usize,
    /// A cap was reached: there may be more occurrences.
    pub truncated: bool,
}

/// Byte offsets of whole-word occurrences of `word` in `line` (neighbours are not identifier
/// characters).
pub fn word_positions(line: &str, word: &str) -> Vec<usize> {
    let mut found = Vec::new();
    if word.is_empty() {
        return found;
    }
    let mut from = 0;
    while let Some(at) = line[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let before_ok = line[..start].chars().next_back().is_none_or(|ch| !is_identifier_char(ch));
        let after_ok = line[end..].chars().next().is_none_or(|ch| !is_identifier_char(ch));
        if before_ok && after_ok {
            found.push(start);
        }
        from = end;
    }
    found
}

/// A definition target: canonical path, 0-based line and character of its start.
type Target = (PathBuf, u32, u32);

/// The targets of `textDocument/definition` at (`line`, `character`) of `path` (the file is
/// synced first). Empty when the server answers null, an empty list, or fails.
pub fn definition_targets(server: &LanguageServer, path: &Path, line: u32, character: u32, deadline: Instant) -> HashSet<Target> {
    if server.sync_document(path).is_err() {
        return HashSet::new();
    }
    let params = json!({"textDocument": {"uri": path_to_uri(path)}, "position": {"line": line, "character": character}});
    let Ok(answer) = server.request("textDocument/definition", params, deadline, true) else { return HashSet::new() };
    let mut targets = HashSet::new();
    let items: Vec<Value> = match answer {
        Value::Array(items) => items,
        Value::Null => Vec::new(),
        single => vec![single],
    };
    for item in items {
        let (uri, start) = match (item.get("targetUri"), item.get("uri")) {
            (Some(uri), _) => (uri, item.pointer("/targetSelectionRange/start").or_else(|| item.pointer("/targetRange/start"))),
            (None, Some(uri)) => (uri, item.pointer("/range/start")),
            _ => continue,
        };
        let (Some(target), Some(start)) = (uri.as_str().and_then(uri_to_path), start) else { continue };
        let target = std::fs::canonicalize(&target).unwrap_or(target);
        let line = start.get("line").and_then(Value::as_u64).unwrap_or(0) as u32;
        let character = start.get("character").and_then(Value::as_u64).unwrap_or(0) as u32;
        targets.insert((target, line, character));
    }
    targets
}

/// Text edits of a `WorkspaceEdit` by canonical path, in the form `[(start line, start char,
/// end line, end char, newText)]`. `None` when the edit has resource operations (create,
/// rename, delete), which the check leaves alone.
fn text_edits_by_path(edit: &Value) -> Option<BTreeMap<PathBuf, Vec<Value>>> {
    let mut by_path: BTreeMap<PathBuf, Vec<Value>> = BTreeMap::new();
    let mut add = |uri: &str, edits: &[Value]| {
        if let Some(path) = uri_to_path(uri) {
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            by_path.entry(path).or_default().extend(edits.iter().cloned());
        }
    };
    if let Some(changes) = edit.get("documentChanges").and_then(Value::as_array) {
        for change in changes {
            if change.get("kind").is_some() {
                return None;
            }
            let uri = change.pointer("/textDocument/uri").and_then(Value::as_str).unwrap_or("");
            add(uri, change.get("edits").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]));
        }
    } else if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (uri, edits) in changes {
            add(uri, edits.as_array().map(Vec::as_slice).unwrap_or(&[]));
        }
    }
    Some(by_path)
}

fn range_of(edit: &Value) -> Option<(u32, u32, u32, u32)> {
    let get = |pointer: &str| edit.pointer(pointer).and_then(Value::as_u64).map(|v| v as u32);
    Some((get("/range/start/line")?, get("/range/start/character")?, get("/range/end/line")?, get("/range/end/character")?))
}

/// Whether an edit range (pre-edit positions) covers the hit's identifier.
fn covers(range: (u32, u32, u32, u32), line: u32, start: u32, end: u32) -> bool {
    let (start_line, start_char, end_line, end_char) = range;
    (start_line, start_char) <= (line, start) && (line, end) <= (end_line, end_char)
}

/// The result of [`complete_rename`].
#[derive(Debug, Clone)]
pub struct RenameCoverage {
    /// The edit to apply: the server's, merged with the renames from missed references and the
    /// edits runbound added.
    pub edit: Value,
    /// Lines for the tool result (the first says what was checked).
    pub report: Vec<String>,
    /// The same as JSON (`structuredContent.coverage`).
    pub json: Value,
}

/// Checks and completes the server's rename `edit` of `old_name` → `new_name` requested at
/// (`line`, `character`) of `origin` (see the module docs), within `deadline`.
#[allow(clippy::too_many_arguments)]
pub fn complete_rename(
    server: &LanguageServer,
    workspace_root: &Path,
    origin: &Path,
    line: u32,
    character: u32,
    old_name: &str,
    new_name: &str,
    edit: Value,
    deadline: Instant,
) -> RenameCoverage {
    let shown = |path: &Path| crate::files::display_path(workspace_root, path);
    let root_shown = shown(server.root());
    let extensions: Vec<String> = server.definition().extensions.iter().map(|(ext, _)| format!(".{ext}")).collect();
    let Some(mut edits) = text_edits_by_path(&edit) else {
        return RenameCoverage {
            edit,
            report: vec!["grep -w check skipped: the edit creates, renames or deletes files".to_owned()],
            json: json!({"checked": false, "reason": "resource operations"}),
        };
    };
    let origin_targets = definition_targets(server, origin, line, character, deadline);
    let grep = grep_word(server.definition(), server.root(), old_name);
    let encoding = server.position_encoding();
    let columns = |hit: &WordHit| -> (u32, u32) {
        (
            encoding.column_from_byte(&hit.line_text, hit.byte_start),
            encoding.column_from_byte(&hit.line_text, hit.byte_start + old_name.len()),
        )
    };
    let is_covered = |edits: &BTreeMap<PathBuf, Vec<Value>>, hit: &WordHit| -> bool {
        let (start, end) = columns(hit);
        edits.get(&hit.path).is_some_and(|list| list.iter().filter_map(range_of).any(|range| covers(range, hit.line, start, end)))
    };
    let renames_declaration = |edits: &BTreeMap<PathBuf, Vec<Value>>| -> bool {
        origin_targets.iter().any(|(path, target_line, target_char)| {
            edits.get(path).is_some_and(|list| {
                list.iter().filter_map(range_of).any(|range| covers(range, *target_line, *target_char, *target_char + 1))
            })
        })
    };
    let mut extra_renames: Vec<String> = Vec::new();
    let mut added: Vec<WordHit> = Vec::new();
    let mut elsewhere: Vec<(WordHit, Option<Target>)> = Vec::new();
    let mut declaration_kept: Vec<WordHit> = Vec::new();
    let mut unchecked: Vec<WordHit> = Vec::new();
    let mut conflicts = 0usize;
    let pending: Vec<WordHit> = grep.hits.iter().filter(|hit| !is_covered(&edits, hit)).cloned().collect();
    let first_uncovered = pending.len();
    let mut index = 0;
    while index < pending.len() {
        let hit = pending[index].clone();
        index += 1;
        if is_covered(&edits, &hit) {
            continue;
        }
        if Instant::now() >= deadline || origin_targets.is_empty() {
            unchecked.push(hit);
            continue;
        }
        let (start, _) = columns(&hit);
        let targets = definition_targets(server, &hit.path, hit.line, start, deadline);
        if targets.is_disjoint(&origin_targets) {
            let first = targets.into_iter().min();
            elsewhere.push((hit, first));
            continue;
        }
        // A missed reference: ask the server again from here, else edit it ourselves.
        if extra_renames.len() < MAX_EXTRA_RENAMES {
            let params = json!({"textDocument": {"uri": path_to_uri(&hit.path)}, "position": {"line": hit.line, "character": start}, "newName": new_name});
            if let Ok(more) = server.request("textDocument/rename", params, deadline, false) {
                if let Some(more) = text_edits_by_path(&more) {
                    extra_renames.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                    conflicts += merge_edits(&mut edits, more);
                    if is_covered(&edits, &hit) {
                        continue;
                    }
                }
            }
        }
        if renames_declaration(&edits) {
            let (start, end) = columns(&hit);
            let own = json!({"range": {"start": {"line": hit.line, "character": start}, "end": {"line": hit.line, "character": end}}, "newText": new_name});
            conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
            added.push(hit);
        } else {
            declaration_kept.push(hit);
        }
    }
    let covered_now = grep.hits.iter().filter(|hit| is_covered(&edits, hit)).count();
    let mut report = vec![format!(
        "grep -w check: {} whole-word occurrence{} of `{old_name}` in {} of the {} {} file{} under {root_shown}{}; {covered_now} renamed by this edit",
        grep.hits.len(),
        if grep.hits.len() == 1 { "" } else { "s" },
        grep.hits.iter().map(|hit| &hit.path).collect::<HashSet<_>>().len(),
        grep.files_scanned,
        extensions.join("/"),
        if grep.files_scanned == 1 { "" } else { "s" },
        if grep.truncated { " (scan capped: there may be more)" } else { "" },
    )];
    if origin_targets.is_empty() && first_uncovered > 0 {
        report.push(format!(
            "  coverage NOT verified: {} gave no definition for the renamed position, so the {first_uncovered} occurrence(s) outside the edit could not be told apart from other symbols",
            server.id()
        ));
    }
    if !extra_renames.is_empty() {
        report.push(format!(
            "  {}'s first edit missed references that lead to the renamed symbol; renamed again from {} and merged the edits",
            server.id(),
            extra_renames.join(", ")
        ));
    }
    if !added.is_empty() {
        report.push(format!(
            "  runbound added {} edit{} the server's rename missed (each checked: definition there leads to the renamed symbol):",
            added.len(),
            if added.len() == 1 { "" } else { "s" }
        ));
        for hit in added.iter().take(LISTED) {
            report.push(format!("    {}:{}: {}", shown(&hit.path), hit.line + 1, hit.line_text.trim()));
        }
        if added.len() > LISTED {
            report.push(format!("    (showing {LISTED} of {})", added.len()));
        }
    }
    if conflicts > 0 {
        report.push(format!("  {conflicts} edit(s) from the extra renames overlapped the first edit and were dropped"));
    }
    if !elsewhere.is_empty() {
        report.push(format!(
            "  left unrenamed: {} occurrence{} whose definition leads elsewhere or nowhere (another symbol with this name, a comment, a string) — check them:",
            elsewhere.len(),
            if elsewhere.len() == 1 { "" } else { "s" }
        ));
        for (hit, target) in elsewhere.iter().take(LISTED) {
            let leads = match target {
                Some((path, target_line, _)) => format!("definition: {}:{}", shown(path), target_line + 1),
                None => "no definition".to_owned(),
            };
            report.push(format!("    {}:{}: {}   ({leads})", shown(&hit.path), hit.line + 1, shorten(hit.line_text.trim(), 100)));
        }
        if elsewhere.len() > LISTED {
            report.push(format!("    (showing {LISTED} of {})", elsewhere.len()));
        }
    }
    if !declaration_kept.is_empty() {
        report.push(format!(
            "  left unrenamed: {} reference{} to the symbol; the edit does not rename its declaration (an import alias?), so they keep working:",
            declaration_kept.len(),
            if declaration_kept.len() == 1 { "" } else { "s" }
        ));
        for hit in declaration_kept.iter().take(LISTED) {
            report.push(format!("    {}:{}: {}", shown(&hit.path), hit.line + 1, shorten(hit.line_text.trim(), 100)));
        }
    }
    if !unchecked.is_empty() {
        let files: HashSet<&PathBuf> = unchecked.iter().map(|hit| &hit.path).collect();
        report.push(format!(
            "  NOT CHECKED: {} occurrence{} in {} file{} outside the edit (the time budget ran out); they may be missed references:",
            unchecked.len(),
            if unchecked.len() == 1 { "" } else { "s" },
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ));
        for hit in unchecked.iter().take(LISTED) {
            report.push(format!("    {}:{}: {}", shown(&hit.path), hit.line + 1, shorten(hit.line_text.trim(), 100)));
        }
    }
    let untouched_files: Vec<String> = {
        let mut files: Vec<&PathBuf> = grep.hits.iter().map(|hit| &hit.path).filter(|path| !edits.contains_key(*path)).collect();
        files.dedup();
        files.into_iter().map(|path| shown(path)).collect()
    };
    if !untouched_files.is_empty() {
        report.push(format!("  files with `{old_name}` the edit does not change: {}", untouched_files.join(", ")));
    }
    let json = json!({
        "checked": true,
        "occurrences": grep.hits.len(),
        "files_scanned": grep.files_scanned,
        "scan_capped": grep.truncated,
        "renamed": covered_now,
        "extra_renames_from": extra_renames,
        "added_by_runbound": added.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect::<Vec<_>>(),
        "left_unrenamed": elsewhere.iter().map(|(hit, _)| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect::<Vec<_>>(),
        "not_checked": unchecked.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect::<Vec<_>>(),
        "files_not_changed": untouched_files,
    });
    let merged = json!({"changes": edits.into_iter().map(|(path, list)| (path_to_uri(&path), Value::Array(list))).collect::<serde_json::Map<String, Value>>()});
    RenameCoverage { edit: merged, report, json }
}

/// Adds `more` to `edits`, skipping edits identical to one already there and edits overlapping
/// one already there (counted and returned).
fn merge_edits(edits: &mut BTreeMap<PathBuf, Vec<Value>>, more: BTreeMap<PathBuf, Vec<Value>>) -> usize {
    let mut conflicts = 0;
    for (path, list) in more {
        let existing = edits.entry(path).or_default();
        for edit in list {
            let Some(range) = range_of(&edit) else { continue };
            let mut duplicate = false;
            let mut overlaps = false;
            for other in existing.iter() {
                let Some(other_range) = range_of(other) else { continue };
                if other_range == range {
                    duplicate = true;
                    break;
                }
                let (a_start, a_end) = ((range.0, range.1), (range.2, range.3));
                let (b_start, b_end) = ((other_range.0, other_range.1), (other_range.2, other_range.3));
                if a_start < b_end && b_start < a_end {
                    overlaps = true;
                }
            }
            if duplicate {
                continue;
            }
            if overlaps {
                conflicts += 1;
                continue;
            }
            existing.push(edit);
        }
    }
    conflicts
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    format!("{}…", text.chars().take(max_chars).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert_eq!(word_positions("evolve(evolved, _evolve, x.evolve) # evolve", "evolve"), vec![0, 27, 37]);
        assert_eq!(word_positions("", "x"), Vec::<usize>::new());
    }

    #[test]
    fn merging_skips_duplicates_and_overlaps() {
        let edit = |l: u32, a: u32, b: u32| json!({"range": {"start": {"line": l, "character": a}, "end": {"line": l, "character": b}}, "newText": "n"});
        let mut edits = BTreeMap::from([(PathBuf::from("/a.py"), vec![edit(1, 0, 6)])]);
        let conflicts = merge_edits(
            &mut edits,
            BTreeMap::from([
                (PathBuf::from("/a.py"), vec![edit(1, 0, 6), edit(1, 3, 9), edit(2, 0, 6)]),
                (PathBuf::from("/b.py"), vec![edit(0, 0, 1)]),
            ]),
        );
        assert_eq!(conflicts, 1);
        assert_eq!(edits[&PathBuf::from("/a.py")].len(), 2);
        assert_eq!(edits[&PathBuf::from("/b.py")].len(), 1);
        assert!(covers((1, 0, 1, 6), 1, 0, 6) && !covers((1, 0, 1, 6), 1, 2, 8) && covers((0, 5, 2, 0), 1, 0, 3));
    }
}
