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
//!    root (`.venv`, `venv`, `node_modules`, `target`, `.git`, `__pycache__` skipped, and what
//!    the project's configuration leaves out: [`crate::lsp::project_scope`]; at most
//!    [`MAX_FILES`] files and [`MAX_HITS`] occurrences);
//! 2. each occurrence the edit does not cover and that is code — not inside a comment or a
//!    string by the file's tree-sitter syntax tree ([`classify_occurrences`]) — is asked
//!    `textDocument/definition`; when the
//!    answer leads to the renamed symbol (a location the definition of the renamed position
//!    also gives), the occurrence is a missed reference;
//! 3. for a missed reference the server is asked to rename again *from there* (at most
//!    [`MAX_EXTRA_RENAMES`] times; pyright's rename from a use covers both the stub and the
//!    source declaration), and the edits are merged; a missed reference that is still not
//!    covered after that gets an edit of its identifier from runbound itself — only when the
//!    edit renames the declaration (else renaming a use would break it);
//! 4. what stays unrenamed is listed: occurrences in comments and strings, occurrences whose
//!    definition leads elsewhere (other symbols with the same name) or nowhere (code the server
//!    cannot resolve), and those not checked because the time budget ran out.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::files::WorkspaceReader;
use crate::lsp::client::LanguageServer;
use crate::lsp::doc_tests::DocTestResolution;
use crate::lsp::output::{CheckedRenameCoverage, RenameCoverageSummary, UncheckedRenameCoverage};
use crate::lsp::position::{is_identifier_char, split_lines, PositionEncoding};
use crate::lsp::project_scope::WalkScope;
use crate::lsp::servers::ServerDefinition;
use crate::lsp::typescript_build_output::{BuildOutputReason, DeclarationBuildOutput};
use crate::lsp::uri::{lsp_uri_to_path, path_to_lsp_uri};

/// Files scanned for occurrences at most.
pub const MAX_FILES: usize = 20_000;
/// Occurrences collected at most (the rest are counted as not checked).
pub const MAX_HITS: usize = 2_000;
/// Renames requested again from a missed reference, at most.
pub const MAX_EXTRA_RENAMES: usize = 3;
/// Occurrences listed in the report at most per group.
const LISTED: usize = 15;
/// Doc-test occurrences listed at most (each is a test that may now fail).
const DOC_TESTS_LISTED: usize = 50;

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

/// Whether byte `byte_start` of a Python line lies in an import's module path: between `from`
/// and `import` in `from a.b import c`, or in the dotted name of `import a.b` (before any `as`).
fn python_import_module_path(line: &str, byte_start: usize) -> bool {
    let indent = line.len() - line.trim_start().len();
    let code = &line[indent..];
    if let Some(rest) = code.strip_prefix("from ") {
        let module_end = rest.find(" import").map_or(code.len(), |at| at + "from ".len());
        return byte_start >= indent + "from ".len() && byte_start < indent + module_end;
    }
    if let Some(rest) = code.strip_prefix("import ") {
        let names_end = rest.find(" as ").map_or(code.len(), |at| at + "import ".len());
        return byte_start >= indent + "import ".len() && byte_start < indent + names_end;
    }
    false
}

/// The methods of Python's built-in `list`, `dict`, `set`, `str`, `bytes` and file objects: an
/// untyped receiver's `.name` of one of these is as likely a built-in value's.
const PYTHON_BUILTIN_METHOD_NAMES: &[&str] = &[
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "clear",
    "copy",
    "count",
    "index",
    "reverse",
    "sort",
    "get",
    "items",
    "keys",
    "values",
    "update",
    "setdefault",
    "popitem",
    "add",
    "discard",
    "union",
    "intersection",
    "difference",
    "join",
    "split",
    "strip",
    "replace",
    "format",
    "startswith",
    "endswith",
    "lower",
    "upper",
    "encode",
    "decode",
    "read",
    "write",
    "close",
    "readline",
    "readlines",
    "flush",
    "seek",
    "tell",
];

/// The name of the Example function whose `// Output:` (or `// Unordered output:`) comment block
/// holds 0-based `line` of a Go test file's `lines`; `None` for any other line.
fn go_example_output_comment(lines: &[String], line: usize) -> Option<String> {
    if !lines.get(line)?.trim_start().starts_with("//") {
        return None;
    }
    let mut at = line;
    loop {
        let comment = lines.get(at)?.trim_start().strip_prefix("//")?.trim();
        let lower = comment.to_ascii_lowercase();
        if lower.starts_with("output:") || lower.starts_with("unordered output:") {
            break;
        }
        at = at.checked_sub(1)?;
    }
    let function = lines[..at].iter().rev().find(|candidate| candidate.starts_with("func ") || candidate.starts_with('}'))?;
    let name = function.strip_prefix("func Example")?;
    let name: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    Some(format!("Example{name}"))
}

/// Whether `hit` is the whole content of a string literal on its line: the word of `word_len`
/// bytes between two equal quotes (`'invalidate'`, `"invalidate"`, `` `invalidate` ``).
fn string_literal_of_exactly(hit: &WordHit, word_len: usize) -> bool {
    let before = hit.line_text[..hit.byte_start].chars().next_back();
    let after = hit.line_text.get(hit.byte_start + word_len..).and_then(|rest| rest.chars().next());
    matches!(before, Some('\'' | '"' | '`')) && before == after
}

fn path_is_python(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "py" || extension == "pyi")
}

/// Whole-word occurrences of `word` in the files `definition` serves under `root`, and how many
/// files were scanned. The walk honours `.gitignore`, skips hidden directories and the
/// environment/build directories named in the module docs, keeps to the project's files by its
/// configuration ([`WalkScope`]: a tsconfig's `include`/`exclude`/`outDir`, else no `dist/`), and stops at [`MAX_FILES`] files or
/// [`MAX_HITS`] occurrences (`truncated` then says so).
pub fn grep_word(definition: &ServerDefinition, workspace_root: &Path, root: &Path, word: &str) -> GrepResult {
    grep_word_walking(definition, workspace_root, root, word, &[])
}

/// [`grep_word`], with the directories the scope prunes as project roots of their own (a nested
/// Go module no go.work uses, a crate of its own) walked when one of `edited` (absolute) lies in
/// them: a rename that edits a file there (gopls renames in a module it loads as a `replace`d
/// dependency) leaves that module's other uses — its tests, which the server does not load —
/// unrenamed, and the check must see them (trial139 F6: uniseg's `NewGraphemes`, 16 uses in its
/// tests left, "skipped uniseg/ … their own server answers for them" where none ran).
pub fn grep_word_walking(definition: &ServerDefinition, workspace_root: &Path, root: &Path, word: &str, edited: &[PathBuf]) -> GrepResult {
    let mut scope = WalkScope::for_server(definition, root);
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let edited_relative: Vec<PathBuf> = edited
        .iter()
        .filter_map(|path| {
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            path.strip_prefix(&canonical_root).ok().map(Path::to_path_buf)
        })
        .collect();
    let walked = scope.walk_pruned_directories_holding(&edited_relative);
    let mut result = GrepResult { scope: scope.describe().map(str::to_owned), ..GrepResult::default() };
    if !walked.is_empty() {
        let walked: Vec<String> = walked.iter().map(|dir| format!("{}/", dir.display())).collect();
        let said = format!(
            "walked {} too, a project root of its own that this rename edits (its server here loads it as a dependency only: its own tests and packages are not renamed by it)",
            walked.join(", ")
        );
        result.scope = Some(match result.scope.take() {
            Some(scope) => format!("{scope}; {said}"),
            None => said,
        });
    }
    let mut canonical_root: Option<PathBuf> = None;
    visit_served_files(definition, workspace_root, root, &scope, |path, relative, reader| {
        if result.files_scanned >= MAX_FILES || result.hits.len() >= MAX_HITS {
            result.truncated = true;
            return ControlFlow::Break(());
        }
        result.files_scanned += 1;
        let Ok(text) = reader.read_to_string(path) else { return ControlFlow::Continue(()) };
        if !text.contains(word) {
            return ControlFlow::Continue(());
        }
        let canonical_root =
            canonical_root.get_or_insert_with(|| std::fs::canonicalize(reader.root()).unwrap_or_else(|_| reader.root().to_path_buf()));
        let path = canonical_root.join(relative);
        for (line, line_text) in split_lines(&text).into_iter().enumerate() {
            for byte_start in word_positions(line_text, word) {
                if result.hits.len() >= MAX_HITS {
                    result.truncated = true;
                    break;
                }
                result.hits.push(WordHit { path: path.clone(), line: line as u32, byte_start, line_text: line_text.to_owned() });
            }
        }
        ControlFlow::Continue(())
    });
    result
}

/// The files `definition` serves under `root` in `scope`, listed and read beneath a handle of
/// the run's root (not of the server root, a directory a concurrent swap can turn into a
/// symlink), no symlink followed (issue 13 §1), `.gitignore` honoured, hidden and
/// environment/build directories skipped: `visit` gets each one's path (as walked), its path
/// relative to the reader's root and the reader, and ends the walk with `ControlFlow::Break`.
/// Nothing is visited when the root cannot be opened. The one walk of [`grep_word_walking`] and
/// [`for_each_served_file_until`].
fn visit_served_files(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    scope: &WalkScope,
    mut visit: impl FnMut(&Path, &Path, &WorkspaceReader) -> ControlFlow<()>,
) {
    let walk_root = root.to_path_buf();
    let walk_scope = scope.clone();
    let Ok(reader) = WorkspaceReader::open(crate::files::walk_beneath::root_for_walk(workspace_root, root)) else { return };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return };
    let walker = walk
        .hidden(true)
        .skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"])
        .filter_entry(move |entry| {
            let relative = entry.path().strip_prefix(&walk_root).unwrap_or(entry.path());
            !entry.is_dir() || walk_scope.walks_directory(relative)
        })
        .iter();
    for entry in walker.flatten() {
        let path = entry.path();
        if !entry.is_file() || !definition.serves(path) || !scope.walks_file(path.strip_prefix(root).unwrap_or(path)) {
            continue;
        }
        if visit(path, entry.relative(), &reader).is_break() {
            break;
        }
    }
}

/// How a [`for_each_served_file_until`] walk ended.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ServedFilesWalk {
    /// Files read (and handed to the visitor).
    pub files_read: usize,
    /// The walk stopped at [`MAX_FILES`].
    pub truncated: bool,
    /// The walk stopped at the deadline: the files after it were not read.
    pub out_of_time: bool,
}

/// The walk of [`grep_word`] (the files `definition` serves under `root`, in its [`WalkScope`],
/// read beneath the run's root, no symlink followed), handing each file's path (as walked) and
/// text to `visit`, until `deadline` or [`MAX_FILES`] files (the result says which stopped it).
pub(crate) fn for_each_served_file_until(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    deadline: Instant,
    mut visit: impl FnMut(&Path, &str),
) -> ServedFilesWalk {
    let mut walked = ServedFilesWalk::default();
    let scope = WalkScope::for_server(definition, root);
    visit_served_files(definition, workspace_root, root, &scope, |path, _, reader| {
        if walked.files_read >= MAX_FILES {
            walked.truncated = true;
            return ControlFlow::Break(());
        }
        if Instant::now() >= deadline {
            walked.out_of_time = true;
            return ControlFlow::Break(());
        }
        walked.files_read += 1;
        if let Ok(text) = reader.read_to_string(path) {
            visit(path, &text);
        }
        ControlFlow::Continue(())
    });
    walked
}

/// Whole-word occurrences of `word` in the documentation files (`.md`, `.markdown`, `.rst`,
/// `.adoc`) under `root` — README code examples no language server edits: `(path, 1-based line)`,
/// the same walk as [`grep_word`], at most [`MAX_HITS`].
pub fn grep_documentation(workspace_root: &Path, root: &Path, word: &str) -> Vec<(PathBuf, usize)> {
    let is_documentation =
        |path: &Path| path.extension().and_then(|ext| ext.to_str()).is_some_and(|ext| matches!(ext, "md" | "markdown" | "rst" | "adoc"));
    let mut found = Vec::new();
    for_each_text_file_beneath(workspace_root, root, is_documentation, |path, text| push_word_lines(&mut found, path, text, word));
    found
}

/// Whole-word occurrences of `word` in the Rust code blocks of the Markdown files under `root`
/// that a Rust library includes as docs (`#![doc = include_str!("../README.md")]`, an item's
/// `#[doc = include_str!(…)]`, `doc_comment::doctest!("../README.md")`): rustdoc compiles those
/// blocks as doc-tests (not `ignore`, `text` or other languages), so they are doc-test code like
/// a `///` example, not prose (trial167 F1: walkdir's README examples were filed under
/// "documentation files", and `cargo test` failed after renaming `follow_links`). Only blocks
/// [`crate::lsp::doc_tests::markdown_doc_test_block`] finds count; a Markdown file no library
/// source includes adds nothing. The walk of [`grep_documentation`]; at most [`MAX_HITS`].
pub fn grep_included_doc_tests(workspace_root: &Path, root: &Path, word: &str) -> Vec<WordHit> {
    let mut candidates: Vec<WordHit> = Vec::new();
    for_each_text_file_beneath(workspace_root, root, crate::lsp::doc_tests::is_markdown, |path, text| {
        if !text.contains(word) {
            return;
        }
        let lines = split_lines(text);
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        for block in crate::lsp::dependents::rust_doc_test_code(lines.iter().copied()) {
            for (index, code) in block.code.iter().enumerate() {
                let line = block.fence + 1 + index;
                let prefix = lines[line].len() - code.len();
                for byte_start in word_positions(lines[line], word).into_iter().filter(|start| *start >= prefix) {
                    if candidates.len() < MAX_HITS {
                        candidates.push(WordHit { path: path.clone(), line: line as u32, byte_start, line_text: lines[line].to_owned() });
                    }
                }
            }
        }
    });
    // Only a file some library source includes (one lookup per file that has candidates).
    let mut included: BTreeMap<PathBuf, bool> = BTreeMap::new();
    candidates.retain(|hit| {
        *included
            .entry(hit.path.clone())
            .or_insert_with(|| crate::lsp::dependents::markdown_doc_test_includer(workspace_root, root, &hit.path).is_some())
    });
    candidates
}

/// Folder names that hold test data: files the tests read and often compare output with
/// (Go's `testdata`, golden files, snapshot folders, fixtures).
const TEST_DATA_FOLDERS: &[&str] =
    &["testdata", "test_data", "test-data", "fixtures", "golden", "goldens", "__snapshots__", "snapshots", "expected"];

/// Extensions of files that hold expected output wherever they are (`.golden`, `.snap`).
const TEST_DATA_EXTENSIONS: &[&str] = &["golden", "snap", "expected"];

/// Whole-word occurrences of `word` in test data under `root` — files in a folder named as in
/// [`TEST_DATA_FOLDERS`] or with an extension in [`TEST_DATA_EXTENSIONS`], other than source
/// files of `source_extensions` (which the grep -w check reads) and documentation files: golden
/// files a test compares output with, which no server edits (go-cmp: `cmp/testdata/diffs` holds
/// 39 lines with the field name `Public`, and the rename of that field failed 7 `TestDiff` cases
/// while the answer named no such file; trial45 F1). `(path, 1-based line)`, the same walk as
/// [`grep_documentation`], at most [`MAX_HITS`].
pub fn grep_test_data(workspace_root: &Path, root: &Path, word: &str, source_extensions: &[String]) -> Vec<(PathBuf, usize)> {
    let is_test_data = |path: &Path| {
        let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
        if matches!(extension, "md" | "markdown" | "rst" | "adoc") || source_extensions.iter().any(|source| source == extension) {
            return false;
        }
        let relative = path.strip_prefix(root).unwrap_or(path);
        let in_folder = relative
            .parent()
            .is_some_and(|parent| parent.components().any(|part| TEST_DATA_FOLDERS.iter().any(|name| part.as_os_str() == *name)));
        in_folder || TEST_DATA_EXTENSIONS.contains(&extension)
    };
    let mut found = Vec::new();
    for_each_text_file_beneath(workspace_root, root, is_test_data, |path, text| push_word_lines(&mut found, path, text, word));
    found
}

/// Whole-word occurrences of `word` in the debugger visualizers under `root` (`.natvis` files,
/// which a Rust crate embeds with `#[debugger_visualizer(natvis_file = …)]`): their expressions
/// name fields and no compiler checks them (trial55 M3: smallvec's `debug_metadata/smallvec.natvis`
/// names the field `capacity` on 6 lines, and its rename said nothing of it). `(path, 1-based
/// line)`, the same walk as [`grep_documentation`], at most [`MAX_HITS`].
pub fn grep_debugger_visualizers(workspace_root: &Path, root: &Path, word: &str) -> Vec<(PathBuf, usize)> {
    let is_visualizer = |path: &Path| path.extension().is_some_and(|extension| extension == "natvis");
    let mut found = Vec::new();
    for_each_text_file_beneath(workspace_root, root, is_visualizer, |path, text| push_word_lines(&mut found, path, text, word));
    found
}

/// The trait of the Rust block around 0-based line `line0` of `text`: `trait Name {` (its name)
/// or `impl<…> path::Name<…> for Type {` (the trait's last path segment, generics dropped), found
/// by the braces above the line. `doc_comment`: read only the doc-comment lines (`///`, `//!`)
/// directly above, as a doc-test's code. `None` outside such a block.
fn rust_enclosing_trait(text: &str, line0: usize, doc_comment: bool) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut depth = 0i64;
    for line in lines.get(..line0)?.iter().rev() {
        let trimmed = line.trim_start();
        let code = if doc_comment {
            trimmed.strip_prefix("///").or_else(|| trimmed.strip_prefix("//!"))?
        } else {
            line.split("//").next().unwrap_or("")
        };
        depth += code.matches('}').count() as i64 - code.matches('{').count() as i64;
        if depth >= 0 {
            continue;
        }
        let code = code.trim();
        let word_after = |rest: &str| -> String { rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
        if let Some(at) = code.find("trait ") {
            let name = word_after(&code[at + "trait ".len()..]);
            return (!name.is_empty()).then_some(name);
        }
        let rest = code.strip_prefix("unsafe ").unwrap_or(code);
        let rest = rest.strip_prefix("impl")?;
        // Skip `impl<…>` generics, then take the trait path before ` for `.
        let rest = if rest.starts_with('<') {
            let mut level = 0i64;
            let end = rest.char_indices().find_map(|(at, c)| {
                match c {
                    '<' => level += 1,
                    '>' => level -= 1,
                    _ => {}
                }
                (level == 0).then_some(at + 1)
            })?;
            &rest[end..]
        } else {
            rest
        };
        let (trait_path, _) = rest.split_once(" for ")?;
        let trait_path = trait_path.trim().split('<').next().unwrap_or("").trim();
        let name = trait_path.rsplit("::").next().unwrap_or("").to_owned();
        return (!name.is_empty()).then_some(name);
    }
    None
}

/// The trait a doc-test example's method definition `fn NAME` on 0-based line `line0` of `text`
/// implements (its `impl Trait for Type` block in the same doc comment); `None` when the line
/// defines no such method or its block is no trait impl.
fn doc_test_impl_method_of(text: &str, line0: usize, name: &str) -> Option<String> {
    let line = text.lines().nth(line0)?.trim_start();
    let code = line.strip_prefix("///").or_else(|| line.strip_prefix("//!"))?.trim_start();
    let code = code.strip_prefix("pub ").unwrap_or(code);
    let after = code.strip_prefix("fn ")?.trim_start().strip_prefix(name)?;
    if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    rust_enclosing_trait(text, line0, true)
}

/// The rename report's line on the test data that holds the old name (`found`: path,
/// 1-based line, in walk order): each file with its line count and first lines.
fn test_data_line(found: &[(PathBuf, usize)], shown: &dyn Fn(&Path) -> String) -> String {
    files_and_lines_line(
        "not renamed in test data (no server edits it; a test that compares output with such a file, a golden file, fails until the file is updated)",
        found,
        shown,
    )
}

/// A report line `  HEADING: N lines in M files: file (k lines: 1, 2, …); …` over `found`
/// (path, 1-based line, in walk order).
fn files_and_lines_line(heading: &str, found: &[(PathBuf, usize)], shown: &dyn Fn(&Path) -> String) -> String {
    const LINES_PER_FILE: usize = 10;
    let mut files: Vec<(&PathBuf, Vec<usize>)> = Vec::new();
    for (path, line) in found {
        match files.iter_mut().find(|(known, _)| *known == path) {
            Some((_, lines)) => lines.push(*line),
            None => files.push((path, vec![*line])),
        }
    }
    let named: Vec<String> = files
        .iter()
        .take(LISTED)
        .map(|(path, lines)| {
            let first: Vec<String> = lines.iter().take(LINES_PER_FILE).map(usize::to_string).collect();
            let more = if lines.len() > LINES_PER_FILE { ", …" } else { "" };
            format!("{} ({}: {}{more})", shown(path), crate::render::plural(lines.len(), "line"), first.join(", "))
        })
        .collect();
    format!(
        "  {heading}: {} in {}: {}{}",
        crate::render::plural(found.len(), "line"),
        crate::render::plural(files.len(), "file"),
        named.join("; "),
        if files.len() > LISTED { format!("; and {} more files", files.len() - LISTED) } else { String::new() },
    )
}

/// Calls `visit` with each file under `root` whose path `wanted` accepts and its text, read
/// beneath the workspace root with no symlink followed (issue 13 §1): hidden files walked, the
/// usual build and environment folders (`node_modules`, `target`, `.git`, virtual environments,
/// `__pycache__`) not, at most [`MAX_FILES`] entries.
pub(crate) fn for_each_text_file_beneath(
    workspace_root: &Path,
    root: &Path,
    wanted: impl Fn(&Path) -> bool,
    mut visit: impl FnMut(&Path, &str),
) {
    let Ok(reader) = WorkspaceReader::open(crate::files::walk_beneath::root_for_walk(workspace_root, root)) else { return };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return };
    let walker = walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter();
    for entry in walker.flatten().take(MAX_FILES) {
        let path = entry.path();
        if !entry.is_file() || !wanted(path) {
            continue;
        }
        if let Ok(text) = reader.read_to_string(path) {
            visit(path, &text);
        }
    }
}

/// Adds `(path, 1-based line)` to `found` for each line of `text` holding `word` as a whole word,
/// up to [`MAX_HITS`] entries in all.
fn push_word_lines(found: &mut Vec<(PathBuf, usize)>, path: &Path, text: &str, word: &str) {
    for (index, line) in split_lines(text).into_iter().enumerate() {
        if !word_positions(line, word).is_empty() && found.len() < MAX_HITS {
            found.push((path.to_path_buf(), index + 1));
        }
    }
}

/// The source extension a script's shebang line names the language of (`#!/usr/bin/env
/// python3` → `py`, `node` → `js`, `ts-node`/`tsx`/`deno`/`bun` → `ts`, `bash`/`sh` → none);
/// `None` without a shebang or for another interpreter.
fn shebang_extension(first_line: &str) -> Option<&'static str> {
    let rest = first_line.strip_prefix("#!")?;
    let mut words = rest.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|word| !word.starts_with('-'))?;
    }
    let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match name {
        "python" | "pypy" => Some("py"),
        "node" | "nodejs" => Some("js"),
        "ts-node" | "tsx" | "deno" | "bun" => Some("ts"),
        _ => None,
    }
}

/// Whole-word occurrences of `word` in scripts without a file extension under `root` whose
/// shebang names an interpreter of `definition`'s language (`tools/idna-data`, `#!/usr/bin/env
/// python3`): `(path, 1-based line)`, the walk of [`grep_word`], at most [`MAX_HITS`]. No server
/// reads such a file and [`grep_word`], walking the server's file types, never sees it: idna
/// 3.10's data generator imports `intranges_from_list`, and a rename said "7 of 7 renamed" and
/// left it failing with ImportError (trial42 F6).
pub fn grep_scripts_without_extension(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    word: &str,
) -> Vec<(PathBuf, usize)> {
    let mut found = Vec::new();
    // Every file without an extension is read (its first line says whether it is a script).
    for_each_text_file_beneath(
        workspace_root,
        root,
        |path| path.extension().is_none(),
        |path, text| {
            let is_script = shebang_extension(text.lines().next().unwrap_or(""))
                .is_some_and(|extension| definition.serves(Path::new(&format!("script.{extension}"))));
            if is_script && text.contains(word) {
                push_word_lines(&mut found, path, text, word);
            }
        },
    );
    found
}

/// The sentence naming the occurrences [`grep_scripts_without_extension`] found (`shown`
/// renders a path), at most [`LISTED`] of them; `what` says what they are not (`renamed by this
/// edit`, `in this answer`).
pub fn scripts_without_extension_sentence(
    server_id: &str,
    word: &str,
    found: &[(PathBuf, usize)],
    what: &str,
    shown: impl Fn(&Path) -> String,
) -> String {
    let listed: Vec<String> = found.iter().take(LISTED).map(|(path, line)| format!("{}:{line}", shown(path))).collect();
    let mut files: Vec<&PathBuf> = found.iter().map(|(path, _)| path).collect();
    files.dedup();
    format!(
        "{} whole-word {} of `{word}` in {} without a file extension (a shebang names the interpreter), which {server_id} does not read, NOT {what}: {}{} — a script that imports or calls the old name fails when it runs; check {} by hand",
        found.len(),
        if found.len() == 1 { "occurrence" } else { "occurrences" },
        crate::render::plural(files.len(), "script"),
        listed.join(", "),
        if found.len() > listed.len() { format!(" ({})", crate::render::showing(LISTED, found.len(), "")) } else { String::new() },
        crate::render::one_or_many(files.len(), "it", "them"),
    )
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
    /// What the project's configuration left out of the walk
    /// ([`crate::lsp::project_scope::WalkScope::describe`]); `None` for a walk of everything.
    pub scope: Option<String>,
}

/// `text` with every whole-word occurrence of `old_name` replaced by `new_name`, line by line
/// (what a rename's edits make of a file: the unit tests of the rename checks, and the run's
/// memory of renamed lines, [`crate::lsp::LspSupervisor::record_planned_rename`]).
pub(crate) fn text_with_word_renamed(text: &str, old_name: &str, new_name: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let mut out = line.to_owned();
            for at in word_positions(line, old_name).into_iter().rev() {
                out.replace_range(at..at + old_name.len(), new_name);
            }
            out
        })
        .collect()
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
        // A backslash before it makes an escape sequence (`\n` in a string is no word `n`:
        // trial92 M3, trial108 M1 listed six `\n` escapes among a parameter `n`'s occurrences);
        // no identifier follows a backslash in the languages served.
        // The letter of a one-letter escape before it is no part of the word either:
        // `b"cpackaging._structures\nInfinityType\n"` in a pickle names `InfinityType`
        // (trial174 M4: 2 of the 3 pickled names were not listed, and 3 pickle tests failed
        // after the rename); `\\n` is a backslash and a letter, glued to the word.
        let before = &line[..start];
        let after_escape_letter = before.strip_suffix(['n', 't', 'r', 'f', 'v', 'b', 'a', '0']).is_some_and(|rest| {
            let backslashes = rest.len() - rest.trim_end_matches('\\').len();
            backslashes % 2 == 1
        });
        let before_ok = after_escape_letter || before.chars().next_back().is_none_or(|ch| !is_identifier_char(ch) && ch != '\\');
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
    // Files stay open after the check: closing them made the next check re-open and re-analyse
    // each (attrs: warm references 0.5 s -> 15 s with pyright).
    if server.sync_document(path).is_err() {
        return HashSet::new();
    }
    let params = lsp_types::GotoDefinitionParams {
        text_document_position_params: text_document_position(path, line, character),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    // An empty answer while the server loads is no answer (see `LanguageServer::note_lookup`).
    let loading_when_asked = server.is_loading();
    let targets = match server.request::<lsp_types::request::GotoDefinition>(params, deadline) {
        Ok(answer) => response_targets(&answer),
        Err(_) => HashSet::new(),
    };
    server.note_lookup(path, line, character, loading_when_asked, !targets.is_empty());
    targets
}

/// The hover text (markdown) at 0-based (`line`, `character`) of `path`, as the server knows the
/// file now; `None` when the server offers no hover, answers nothing or fails before `deadline`.
pub(crate) fn hover_text(server: &LanguageServer, path: &Path, line: u32, character: u32, deadline: Instant) -> Option<String> {
    use lsp_types::request::Request as _;
    if !server.supports(lsp_types::request::HoverRequest::METHOD) || server.sync_document(path).is_err() {
        return None;
    }
    let params = lsp_types::HoverParams {
        text_document_position_params: text_document_position(path, line, character),
        work_done_progress_params: Default::default(),
    };
    let hover = server.request::<lsp_types::request::HoverRequest>(params, deadline).ok()??;
    Some(crate::lsp::tool::hover_contents_text(hover.contents))
}

/// The targets of `textDocument/implementation` at (`line`, `character`) of `path`: for gopls,
/// the concrete methods implementing an interface method, or the interface methods a concrete
/// method implements. Empty when the server does not offer it, answers nothing, or fails.
fn implementation_targets(server: &LanguageServer, path: &Path, line: u32, character: u32, deadline: Instant) -> HashSet<Target> {
    if !server.supports("textDocument/implementation") || server.sync_document(path).is_err() {
        return HashSet::new();
    }
    let params = lsp_types::GotoDefinitionParams {
        text_document_position_params: text_document_position(path, line, character),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let Ok(answer) = server.request::<lsp_types::request::GotoImplementation>(params, deadline) else { return HashSet::new() };
    response_targets(&answer)
}

/// The Go interface method declared at 0-based `line` of `path` as `package.Interface.Method`
/// (`fmt.Stringer.String`), read beneath the workspace root or the dependency root the path
/// belongs to (GOROOT's sources, the module cache: only the names are taken); `None` when the
/// line is no method of an interface type, or the file lies under neither.
fn go_interface_method_name(workspace_root: &Path, path: &Path, line: u32) -> Option<String> {
    let text = crate::lsp::listing::read_listed_file(workspace_root, path)?;
    let lines: Vec<&str> = text.lines().collect();
    let method: String = lines.get(line as usize)?.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let package = lines.iter().find_map(|l| l.strip_prefix("package "))?.split_whitespace().next()?.to_owned();
    let opener = lines[..line as usize].iter().rev().find(|l| !l.starts_with(char::is_whitespace) && !l.trim().is_empty())?;
    let interface = opener.strip_prefix("type ")?.split_whitespace().collect::<Vec<_>>();
    (interface.get(1).is_some_and(|kind| kind.starts_with("interface")) && !method.is_empty())
        .then(|| format!("{package}.{}.{method}", interface[0]))
}

/// For the Go interface method declared at 0-based `line` of `path` (in the workspace): the
/// interface's name — its `type NAME interface {` above, a function-local one too — and the
/// first place (`file:line`) in the `.go` files of its directory where a type assertion
/// (`.(NAME)`) or a type switch case (`case NAME`) uses it. `None` when none does.
fn go_interface_asserted(workspace_root: &Path, reader: &WorkspaceReader, path: &Path, line: u32) -> Option<(String, String)> {
    let text = reader.read_to_string(path).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let name = lines[..(line as usize).min(lines.len())].iter().rev().take(60).find_map(|text| {
        let words: Vec<&str> = text.trim_start().strip_prefix("type ")?.split_whitespace().collect();
        (words.get(1).is_some_and(|kind| kind.starts_with("interface"))).then(|| words[0].to_owned())
    })?;
    let directory = path.parent()?;
    let uses = |code: &str| {
        code.contains(&format!(".({name})"))
            || code
                .trim_start()
                .strip_prefix("case ")
                .is_some_and(|cases| cases.trim_end_matches(':').split(',').any(|case| case.trim() == name))
    };
    for (file, file_type) in crate::files::walk_beneath::list_directory(workspace_root, directory) {
        if !file_type.is_file() || file.extension().is_none_or(|ext| ext != "go") {
            continue;
        }
        let Ok(source) = reader.read_to_string(&file) else { continue };
        if let Some(index) = source.lines().position(|text| uses(text.split("//").next().unwrap_or(text))) {
            return Some((name, format!("{}:{}", crate::render::display_path(workspace_root, &file), index + 1)));
        }
    }
    None
}

/// The struct types declared in the `.go` files of `directory` (one package) that have an
/// embedded field of type `interface` (`BackOff`, `*BackOff` or `pkg.BackOff`), listed beneath
/// `workspace_root` and read through `reader`. Each struct's field lines are read up to its
/// closing `}`; a struct declared on one line (`struct{ BackOff }`) is not read.
fn go_types_embedding(
    workspace_root: &Path,
    reader: &WorkspaceReader,
    directory: &Path,
    interface: &str,
    interface_package: Option<&(PathBuf, String)>,
) -> HashSet<String> {
    let mut embedding = HashSet::new();
    for (file, file_type) in crate::files::walk_beneath::list_directory(workspace_root, directory) {
        if !file_type.is_file() || file.extension().is_none_or(|ext| ext != "go") {
            continue;
        }
        let Ok(text) = reader.read_to_string(&file) else { continue };
        let mut in_struct: Option<&str> = None;
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("").trim();
            let Some(type_name) = in_struct else {
                in_struct = code.strip_prefix("type ").and_then(|rest| rest.strip_suffix('{')).and_then(|rest| {
                    let mut words = rest.split_whitespace();
                    let name = words.next()?;
                    (words.next() == Some("struct") && words.next().is_none()).then_some(name)
                });
                continue;
            };
            if code.starts_with('}') {
                in_struct = None;
                continue;
            }
            // An embedded field is a type alone (a tag may follow): `BackOff`, `*pkg.BackOff`.
            let mut words = code.split_whitespace();
            let Some(first) = words.next() else { continue };
            if words.next().is_some_and(|second| !second.starts_with('`')) {
                continue;
            }
            // The embedded type names the interface: unqualified in the interface's own package,
            // qualified by its package name elsewhere (an import alias is not followed).
            let embedded = first.trim_start_matches('*');
            let names_it = match (embedded.split_once('.'), interface_package) {
                (None, Some((package_directory, _))) => embedded == interface && directory == package_directory,
                (Some((qualifier, name)), Some((package_directory, package))) => {
                    name == interface && qualifier == package && directory != package_directory
                }
                (None, None) => embedded == interface,
                (Some((_, name)), None) => name == interface,
            };
            if names_it {
                embedding.insert(type_name.to_owned());
            }
        }
    }
    embedding
}

/// The start of each location of a definition or implementation answer (canonical paths).
pub(crate) fn response_targets(answer: &Option<lsp_types::GotoDefinitionResponse>) -> HashSet<Target> {
    let starts: Vec<(&lsp_types::Uri, lsp_types::Position)> = match answer {
        None => Vec::new(),
        Some(lsp_types::GotoDefinitionResponse::Scalar(location)) => vec![(&location.uri, location.range.start)],
        Some(lsp_types::GotoDefinitionResponse::Array(locations)) => {
            locations.iter().map(|location| (&location.uri, location.range.start)).collect()
        }
        Some(lsp_types::GotoDefinitionResponse::Link(links)) => {
            links.iter().map(|link| (&link.target_uri, link.target_selection_range.start)).collect()
        }
    };
    let mut targets = HashSet::new();
    for (uri, start) in starts {
        let Some(target) = lsp_uri_to_path(uri) else { continue };
        let target = std::fs::canonicalize(&target).unwrap_or(target);
        targets.insert((target, start.line, start.character));
    }
    targets
}

/// The `textDocument` + `position` of a request at 0-based (`line`, `character`) of `path`.
pub(crate) fn text_document_position(path: &Path, line: u32, character: u32) -> lsp_types::TextDocumentPositionParams {
    lsp_types::TextDocumentPositionParams {
        text_document: crate::lsp::client::text_document(path),
        position: lsp_types::Position { line, character },
    }
}

/// A text edit replacing 0-based `line`, `start`..`end` (server encoding) with `new_text`.
fn text_edit(line: u32, start: u32, end: u32, new_text: &str) -> lsp_types::TextEdit {
    lsp_types::TextEdit {
        range: lsp_types::Range {
            start: lsp_types::Position { line, character: start },
            end: lsp_types::Position { line, character: end },
        },
        new_text: new_text.to_owned(),
    }
}

/// Text edits of a `WorkspaceEdit` by canonical path, each file's list normalised to the
/// identifiers that change ([`minimal_edits`]: pylsp answers with whole-file replacements).
/// `None` when the edit has resource operations (create, rename, delete), which the check
/// leaves alone.
fn text_edits_by_path(
    reader: &WorkspaceReader,
    edit: &lsp_types::WorkspaceEdit,
    encoding: PositionEncoding,
) -> Option<BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>> {
    let mut by_path = raw_text_edits_by_path(edit)?;
    for (path, edits) in by_path.iter_mut() {
        let Ok(original) = reader.read_to_string(path) else { continue };
        let Ok(changed) = crate::lsp::rename::apply_text_edits(&original, edits.iter(), encoding) else { continue };
        *edits = minimal_edits(&original, &changed, encoding);
    }
    by_path.retain(|_, edits| !edits.is_empty());
    Some(by_path)
}

/// The edits that turn `old` into `new`, one per changed identifier where lines correspond
/// (a line-level diff, then a character-level diff of each changed line widened to whole
/// identifiers); a run of inserted or deleted lines becomes one whole-line edit.
pub fn minimal_edits(old: &str, new: &str, encoding: PositionEncoding) -> Vec<lsp_types::TextEdit> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let position = |line: usize, character: u32| lsp_types::Position { line: line as u32, character };
    let mut edits = Vec::new();
    let mut ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines);
    // A rename keeps the line count. Where line i before is line i after with no more lines
    // changed than the diff changes, lines are paired in place: among identical lines the diff
    // may insert one and delete another (rust-analyzer renaming the first of `u32,` `u32,` in
    // fastrand's `rng_integer!(u32, u32, …)` — its edit inserted `rand_u32,` before them and
    // deleted the second), which is the same text but no edit of the renamed token (trial66 M2).
    if old_lines.len() == new_lines.len() {
        let changed_in_place = old_lines.iter().zip(&new_lines).filter(|(a, b)| a != b).count();
        let changed_by_diff: usize =
            ops.iter().filter(|op| op.tag() != similar::DiffTag::Equal).map(|op| op.old_range().len().max(op.new_range().len())).sum();
        if changed_in_place <= changed_by_diff {
            ops = (0..old_lines.len())
                .filter(|&index| old_lines[index] != new_lines[index])
                .map(|index| similar::DiffOp::Replace { old_index: index, old_len: 1, new_index: index, new_len: 1 })
                .collect();
        }
    }
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let same_endings = old_range.len() == new_range.len()
            && old_range.clone().zip(new_range.clone()).all(|(a, b)| old_lines[a].ends_with('\n') == new_lines[b].ends_with('\n'));
        if tag == similar::DiffTag::Replace && same_endings {
            for (old_index, new_index) in old_range.zip(new_range) {
                let old_line = old_lines[old_index].trim_end_matches(['\n', '\r']);
                let new_line = new_lines[new_index].trim_end_matches(['\n', '\r']);
                for (old_bytes, new_bytes) in identifier_hunks(old_line, new_line) {
                    edits.push(lsp_types::TextEdit {
                        range: lsp_types::Range {
                            start: position(old_index, encoding.column_from_byte(old_line, old_bytes.start)),
                            end: position(old_index, encoding.column_from_byte(old_line, old_bytes.end)),
                        },
                        new_text: new_line[new_bytes].to_owned(),
                    });
                }
            }
        } else {
            edits.push(lsp_types::TextEdit {
                range: lsp_types::Range { start: position(old_range.start, 0), end: position(old_range.end, 0) },
                new_text: new_lines[new_range].concat(),
            });
        }
    }
    edits
}

/// The changed spans of one line, as (old byte range, new byte range), each widened to whole
/// identifiers and merged when they touch.
pub(crate) fn identifier_hunks(old: &str, new: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let old_chars: Vec<(usize, char)> = old.char_indices().collect();
    let new_chars: Vec<(usize, char)> = new.char_indices().collect();
    let old_only: Vec<char> = old_chars.iter().map(|(_, ch)| *ch).collect();
    let new_only: Vec<char> = new_chars.iter().map(|(_, ch)| *ch).collect();
    // Hunks in char indices: (old start, old end, new start, new end).
    let mut hunks: Vec<(usize, usize, usize, usize)> = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_only, &new_only) {
        let (tag, a, b) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let (mut a0, mut a1, mut b0, mut b1) = (a.start, a.end, b.start, b.end);
        // Widen over identifier characters of the surrounding equal text (the same characters
        // on both sides), never into the previous hunk.
        let floor = hunks.last().map_or((0, 0), |last| (last.1, last.3));
        while a0 > floor.0 && b0 > floor.1 && is_identifier_char(old_only[a0 - 1]) && old_only[a0 - 1] == new_only[b0 - 1] {
            a0 -= 1;
            b0 -= 1;
        }
        while a1 < old_only.len() && b1 < new_only.len() && is_identifier_char(old_only[a1]) && old_only[a1] == new_only[b1] {
            a1 += 1;
            b1 += 1;
        }
        match hunks.last_mut() {
            Some(last) if a0 <= last.1 && b0 <= last.3 => {
                last.1 = last.1.max(a1);
                last.3 = last.3.max(b1);
            }
            _ => hunks.push((a0, a1, b0, b1)),
        }
    }
    let byte = |chars: &[(usize, char)], text: &str, index: usize| chars.get(index).map_or(text.len(), |(at, _)| *at);
    hunks
        .into_iter()
        .map(|(a0, a1, b0, b1)| {
            (byte(&old_chars, old, a0)..byte(&old_chars, old, a1), byte(&new_chars, new, b0)..byte(&new_chars, new, b1))
        })
        .collect()
}

/// The text edits of `edit` by canonical path (annotated edits as plain ones); `None` when it
/// has resource operations (create, rename, delete). `documentChanges` wins over `changes`, as
/// in [`crate::lsp::rename::plan_workspace_edit`].
pub(crate) fn raw_text_edits_by_path(edit: &lsp_types::WorkspaceEdit) -> Option<BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>> {
    let mut by_path: BTreeMap<PathBuf, Vec<lsp_types::TextEdit>> = BTreeMap::new();
    let mut add = |uri: &lsp_types::Uri, edits: &mut dyn Iterator<Item = &lsp_types::TextEdit>| {
        if let Some(path) = lsp_uri_to_path(uri) {
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            by_path.entry(path).or_default().extend(edits.cloned());
        }
    };
    let plain = |edit: &lsp_types::OneOf<lsp_types::TextEdit, lsp_types::AnnotatedTextEdit>| -> lsp_types::TextEdit {
        match edit {
            lsp_types::OneOf::Left(edit) => edit.clone(),
            lsp_types::OneOf::Right(annotated) => annotated.text_edit.clone(),
        }
    };
    match (&edit.document_changes, &edit.changes) {
        (Some(lsp_types::DocumentChanges::Edits(document_edits)), _) => {
            for document_edit in document_edits {
                let edits: Vec<lsp_types::TextEdit> = document_edit.edits.iter().map(plain).collect();
                add(&document_edit.text_document.uri, &mut edits.iter());
            }
        }
        (Some(lsp_types::DocumentChanges::Operations(operations)), _) => {
            for operation in operations {
                let lsp_types::DocumentChangeOperation::Edit(document_edit) = operation else { return None };
                let edits: Vec<lsp_types::TextEdit> = document_edit.edits.iter().map(plain).collect();
                add(&document_edit.text_document.uri, &mut edits.iter());
            }
        }
        (None, Some(changes)) => {
            for (uri, edits) in changes {
                add(uri, &mut edits.iter());
            }
        }
        (None, None) => {}
    }
    Some(by_path)
}

/// Whether the comment occurrence `hit` is qualified (`Owner.name`, `Owner::name`) by an owner
/// that is not the one of the declaration on `declaration_line`: a Go method's receiver type
/// (`func (r *Router) Path(…)`), else a word of the declaration line.
fn qualified_by_another_owner(hit: &WordHit, declaration_line: &str) -> bool {
    let before = &hit.line_text[..hit.byte_start];
    let Some(qualified) = before.strip_suffix('.').or_else(|| before.strip_suffix("::")) else { return false };
    let owner: String =
        qualified.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<Vec<_>>().into_iter().rev().collect();
    if owner.is_empty() {
        return false;
    }
    match crate::lsp::rename_public_api::go_method_receiver(declaration_line) {
        Some(receiver) => receiver != owner,
        None => !crate::lsp::position::contains_word(declaration_line, &owner),
    }
}

/// The declaration a comment at 0-based `comment_line` of `path` documents, when it declares
/// `name`: the first line after the comment's block of `//`, `#`, `///`, `*` lines that is no
/// comment, when it starts a `func`, `type`, `def`, `class`, `fn`, `function`, `interface`,
/// `struct`, `enum`, `trait`, `const`, `var` or `let` declaration naming `name` (after a Go
/// receiver, Rust `pub`, TypeScript `export` and the like): `name`'s occurrence there.
/// Decorators and attributes between are skipped.
fn documented_declaration(reader: &WorkspaceReader, path: &Path, comment_line: u32, name: &str) -> Option<WordHit> {
    let text = reader.read_to_string(path).ok()?;
    for (index, line) in text.lines().enumerate().skip(comment_line as usize + 1).take(30) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            return None;
        }
        if ["//", "#", "*", "/*", "@"].iter().any(|prefix| trimmed.starts_with(prefix)) {
            continue;
        }
        let first_word = trimmed.split(|c: char| c.is_whitespace() || c == '(').find(|word| {
            !matches!(
                *word,
                "pub"
                    | "pub(crate)"
                    | "export"
                    | "default"
                    | "async"
                    | "abstract"
                    | "static"
                    | "unsafe"
                    | "public"
                    | "private"
                    | "protected"
                    | "declare"
                    | ""
            )
        })?;
        if !matches!(
            first_word,
            "func" | "type" | "def" | "class" | "fn" | "function" | "interface" | "struct" | "enum" | "trait" | "const" | "var" | "let"
        ) {
            return None;
        }
        // The declared name: the first identifier after the keyword (and a Go receiver).
        let keyword_end = line.find(first_word)? + first_word.len();
        let mut rest = line[keyword_end..].trim_start();
        if first_word == "func" && rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
        let declared: String = rest.chars().take_while(|c| crate::lsp::position::is_identifier_char(*c)).collect();
        if declared != name {
            return None;
        }
        let byte_start = line.len() - rest.len();
        return Some(WordHit { path: path.to_path_buf(), line: index as u32, byte_start, line_text: line.to_owned() });
    }
    None
}

/// The modules (as [`crate::lsp::project_scope::module_key`]s) through which `old_name` stays a
/// public name after the first edit of a TypeScript rename: the files the edit gives an `export {
/// NEW as OLD }` (tsserver keeps a barrel's public name so), then, repeatedly, the files among
/// `hits`' that re-export OLD from one of those (`export { OLD } from`, `export * from`).
fn modules_keeping_public_name(
    reader: &WorkspaceReader,
    edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    hits: &[WordHit],
    old_name: &str,
    new_name: &str,
) -> HashSet<PathBuf> {
    let kept = format!("{new_name} as {old_name}");
    let mut modules: HashSet<PathBuf> = edits
        .iter()
        .filter(|(_, list)| list.iter().any(|edit| edit.new_text == kept))
        .map(|(path, _)| crate::lsp::project_scope::module_key(path))
        .collect();
    if modules.is_empty() {
        return modules;
    }
    let mut files: Vec<&PathBuf> = hits.iter().map(|hit| &hit.path).collect();
    files.sort();
    files.dedup();
    for _ in 0..8 {
        let mut grew = false;
        for file in &files {
            let key = crate::lsp::project_scope::module_key(file);
            if modules.contains(&key) {
                continue;
            }
            if imports_name_from(reader, file, old_name, &modules) == Some(true) {
                modules.insert(key);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    modules
}

/// Whether the TypeScript/JavaScript file `path` imports or re-exports `name` (by name, or
/// through `import * as ns` / `export *`) from one of `modules` by a relative specifier:
/// `Some(true)` when a re-export (`export … from`) does, `Some(false)` for an import, `None`
/// when neither (or the file is no TypeScript/JavaScript).
fn imports_name_from(reader: &WorkspaceReader, path: &Path, name: &str, modules: &HashSet<PathBuf>) -> Option<bool> {
    let extension = path.extension().and_then(|ext| ext.to_str())?;
    if !crate::lsp::syntax::is_typescript_family_extension(extension) {
        return None;
    }
    let text = reader.read_to_string(path).ok()?;
    let directory = path.parent()?;
    let lines: Vec<&str> = text.lines().collect();
    let mut found: Option<bool> = None;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].trim_start();
        index += 1;
        let reexport = line.starts_with("export");
        if !(line.starts_with("import") || reexport) {
            continue;
        }
        // The statement up to its `from '…'` (at most 40 lines).
        let mut statement = line.to_owned();
        let mut taken = 0;
        while !statement.contains(" from ") && !statement.contains('}') && index < lines.len() && taken < 40 {
            statement.push(' ');
            statement.push_str(lines[index].trim());
            index += 1;
            taken += 1;
        }
        let Some(at) = statement.rfind(" from ") else { continue };
        let after = statement[at + 6..].trim_start();
        let Some(quote) = after.chars().next().filter(|quote| matches!(quote, '"' | '\'')) else { continue };
        let Some(end) = after[1..].find(quote) else { continue };
        let specifier = &after[1..1 + end];
        if !specifier.starts_with('.') {
            continue;
        }
        let key = crate::lsp::project_scope::module_key(&crate::files::path::lexically_normal(&directory.join(specifier)));
        if !modules.contains(&key) {
            continue;
        }
        let head = &statement[..at];
        let names_it =
            !word_positions(head, name).is_empty() || (head.contains('*') && (reexport || !word_positions(&text, name).is_empty()));
        if names_it {
            found = Some(found.unwrap_or(false) || reexport);
        }
    }
    found
}

fn range_of(edit: &lsp_types::TextEdit) -> (u32, u32, u32, u32) {
    let range = &edit.range;
    (range.start.line, range.start.character, range.end.line, range.end.character)
}

fn location_range(location: &lsp_types::Location) -> (u32, u32, u32, u32) {
    let range = &location.range;
    (range.start.line, range.start.character, range.end.line, range.end.character)
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
    pub edit: lsp_types::WorkspaceEdit,
    /// Lines for the tool result (the first says what was checked).
    pub report: Vec<String>,
    /// The same, typed (`structuredContent.coverage`).
    pub summary: RenameCoverageSummary,
    /// What the result must say near its top (occurrences left in doc-test code).
    pub warnings: Vec<String>,
    /// What the write check after this rename cannot see (occurrences left in code behind a
    /// `#[cfg]` that is off), for its `checked:` line.
    pub write_check_blind_spots: Vec<String>,
    /// Python, a renamed parameter: the `old=` keyword arguments of calls left unrenamed where
    /// the server gives no definition (`path:line`) — a call through a subclass whose
    /// `__init__` forwards `**kwargs`; they stage the rename (trial154 F1).
    pub keyword_arguments_left: Vec<String>,
    /// The callees of the calls of [`RenameCoverage::keyword_arguments_left`], as written
    /// (`hookspec`), each once: the advice's `ast_edit` rule is narrowed to them (trial166 M5: a
    /// rule for every `firstresult=` also rewrote 4 calls of another function).
    pub keyword_argument_callees: Vec<String>,
    /// The calls of [`RenameCoverage::keyword_arguments_left`] through the class of `self`
    /// (`self.__class__(…)`, `cls(…)`, `type(self)(…)`, `super().__init__(…)`), as (callee as
    /// written, name of the class around the call), each once: the advice's rule narrows them to
    /// those classes (trial174 F1: packaging's other class `SpecifierSet` calls
    /// `self.__class__(prereleases=…)` too, and a rule for every `self.__class__` rewrote it).
    pub keyword_argument_class_calls: Vec<(String, String)>,
    /// Python, a renamed constructor parameter: the `old=` keyword arguments left because the
    /// server resolves them to a `TypedDict` key that subclasses unpack as `**kwargs` and pass
    /// on to the renamed function, by key; they stage the rename, and the advice renames the key
    /// (trial177 F1).
    pub typed_dict_keywords_left: Vec<crate::lsp::python_typed_dict_keys::TypedDictKeywordsLeft>,
    /// Go, a renamed concrete method: the anonymous interface types that name a method of the
    /// old name (`x.(interface{ StackTrace() StackTrace })`, `path:line`), which the renamed
    /// method's type stops satisfying with no compile error; they stage the rename (trial161 M8).
    pub anonymous_interfaces_left: Vec<String>,
    /// Go, a renamed concrete method: the workspace's named interfaces it implemented, which
    /// the rename leaves, that a type assertion or type switch in their package uses
    /// (`` `causer` (errors.go:277), asserted at errors.go:283 ``): it silently stops matching;
    /// they stage the rename (recheck47 N2).
    pub asserted_interfaces_left: Vec<String>,
    /// Rust: the places (`path:line`) behind a `#[cfg]` that is off where the syntax tree shows
    /// the renamed member itself (`self.field` in its type's `impl`, a literal of its type naming
    /// the field, `Type::function`, a cfg twin's `fn`), which rust-analyzer's rename cannot
    /// reach: a build with that cfg breaks; they stage the rename (trial167 M2). A shorthand
    /// field's place carries its edit: `` src/lib.rs:16 (write `new: old` for the shorthand `old`) ``
    /// (review50 H5).
    pub cfg_off_same_member_uses: Vec<String>,
    /// Python, a renamed test parameter: the `@pytest.mark.parametrize` argnames items of the
    /// old name on a class around its test or in a `pytestmark` (`` tests/t.py:4 (a
    /// `@pytest.mark.parametrize` decorator of the class `TestX`) ``), which pytest applies to
    /// other tests too and which the rename therefore leaves: the renamed test fails to collect;
    /// they stage the rename (review50 M7).
    pub shared_parametrize_argnames_left: Vec<String>,
    /// Go, a renamed method: the old method name, when one of [`RenameCoverage::warnings`]
    /// already says its type no longer implements an interface it implemented by that name (gopls'
    /// `implementation`, or the name and parameters of a standard interface the library calls
    /// dynamically): the write check does not say it again (review49 M8: `MarshalJSON` →
    /// `ToJSON` warned twice of `json.Marshaler`).
    pub interface_loss_warned_method: Option<String>,
    /// The renamed symbol's scope when it is a local variable or parameter (its function) or a
    /// JavaScript/TypeScript private member (its class): no occurrence outside it can name it.
    pub symbol_scope: Option<crate::lsp::rename_local_scope::LocalScope>,
    /// The references left because the edit does not rename their declaration (the
    /// `left unrenamed: N references to the symbol; … so they keep working` block), and the
    /// report lines of that block ([`declaration_kept_listing`]): a rename across project roots
    /// settles them once the root owning the declaration renamed it — an import alias made
    /// plain, an import whose entry point stops exporting the old name — and says the block
    /// again (trial172 F1, M10).
    pub declaration_kept: Vec<WordHit>,
    /// The report lines listing [`RenameCoverage::declaration_kept`] (empty when none).
    pub declaration_kept_lines: Vec<String>,
    /// The report line `files with `OLD` the edit does not change: …` when it lists the files
    /// by name, with those files: said again after a rename across roots (trial172 M10).
    pub untouched_files_line: Option<(String, Vec<PathBuf>)>,
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
    edit: lsp_types::WorkspaceEdit,
    deadline: Instant,
) -> RenameCoverage {
    let shown = |path: &Path| crate::render::display_path(workspace_root, path);
    let root_shown = shown(server.root());
    let extensions: Vec<String> = server.definition().extensions.iter().map(|(ext, _)| format!(".{ext}")).collect();
    let reader = match WorkspaceReader::open(workspace_root) {
        Ok(reader) => reader,
        Err(err) => {
            return RenameCoverage {
                edit,
                report: vec![format!("grep -w check skipped: {}", err.message)],
                summary: RenameCoverageSummary::NotChecked(UncheckedRenameCoverage {
                    checked: false,
                    reason: "workspace root unreadable".to_owned(),
                }),
                warnings: Vec::new(),
                write_check_blind_spots: Vec::new(),
                keyword_arguments_left: Vec::new(),
                keyword_argument_callees: Vec::new(),
                keyword_argument_class_calls: Vec::new(),
                typed_dict_keywords_left: Vec::new(),
                anonymous_interfaces_left: Vec::new(),
                asserted_interfaces_left: Vec::new(),
                cfg_off_same_member_uses: Vec::new(),
                shared_parametrize_argnames_left: Vec::new(),
                interface_loss_warned_method: None,
                symbol_scope: None,
                declaration_kept: Vec::new(),
                declaration_kept_lines: Vec::new(),
                untouched_files_line: None,
            }
        }
    };
    let Some(mut edits) = text_edits_by_path(&reader, &edit, server.position_encoding()) else {
        // The occurrences are not each asked for their definition (a file the edit renames has
        // no stable name to ask at), but those in code the server does not analyze — behind an
        // off `#[cfg]` — are found and said (trial64 F1: slab's module `builder` renamed,
        // `serde.rs`'s `use super::{builder::Builder, …}` under the `serde` feature left, "no
        // new errors", and `cargo check --all-features` failed).
        let mut report = vec!["grep -w check skipped: the edit creates, renames or deletes files".to_owned()];
        let mut write_check_blind_spots = Vec::new();
        let unanalyzed = occurrences_unanalyzed_outside_edit(server, workspace_root, &edit, old_name);
        let cfg_off_same_member_uses = report_unanalyzed(
            &mut report,
            &mut write_check_blind_spots,
            &unanalyzed,
            server.id(),
            old_name,
            new_name,
            None,
            workspace_root,
            &shown,
        );
        return RenameCoverage {
            cfg_off_same_member_uses,
            edit,
            report,
            summary: RenameCoverageSummary::NotChecked(UncheckedRenameCoverage {
                checked: false,
                reason: "resource operations".to_owned(),
            }),
            warnings: Vec::new(),
            write_check_blind_spots,
            keyword_arguments_left: Vec::new(),
            keyword_argument_callees: Vec::new(),
            keyword_argument_class_calls: Vec::new(),
            typed_dict_keywords_left: Vec::new(),
            anonymous_interfaces_left: Vec::new(),
            asserted_interfaces_left: Vec::new(),
            shared_parametrize_argnames_left: Vec::new(),
            interface_loss_warned_method: None,
            symbol_scope: None,
            declaration_kept: Vec::new(),
            declaration_kept_lines: Vec::new(),
            untouched_files_line: None,
        };
    };
    // Build output's declaration files (see `typescript_build_output`) are never edited, not even
    // by the server's first edit; the rename asked in one of them (the origin) edits it.
    let mut build_output = DeclarationBuildOutput::new(workspace_root, server.root());
    edits.retain(|path, _| same_file(path, origin) || build_output.reason(&reader, path).is_none());
    let started = Instant::now();
    let mut origin_targets = without_rust_macro_calls(
        workspace_root,
        renamable_targets(workspace_root, definition_targets(server, origin, line, character, deadline)),
        server.position_encoding(),
    );
    // Asked at a binding an import statement declares in this module only (a default import,
    // a namespace import, an `as` alias), the rename is of that local binding: the uses in other
    // files whose definition leads to the imported declaration are no missed references
    // (trial89 F3: true-myth's `import Maybe from 'true-myth/maybe'` in a test, renamed to `M`,
    // grew into a 397-edit rename of the library's `Maybe` and its public export).
    if reader.read_to_string(origin).ok().and_then(|text| text.lines().nth(line as usize).map(str::to_owned)).is_some_and(|line_text| {
        is_local_import_binding(&line_text, server.position_encoding().byte_from_column(&line_text, character), old_name)
    }) {
        let origin_canonical = std::fs::canonicalize(origin).unwrap_or_else(|_| origin.to_path_buf());
        origin_targets = HashSet::from([(origin_canonical, line, character)]);
    }
    let edited: Vec<PathBuf> = raw_text_edits_by_path(&edit).map(|edits| edits.into_keys().collect()).unwrap_or_default();
    let grep = grep_word_walking(server.definition(), server.workspace_root(), server.root(), old_name, &edited);
    let encoding = server.position_encoding();
    let columns = |hit: &WordHit| -> (u32, u32) {
        (
            encoding.column_from_byte(&hit.line_text, hit.byte_start),
            encoding.column_from_byte(&hit.line_text, hit.byte_start + old_name.len()),
        )
    };
    // A local variable or parameter: occurrences outside its function cannot be references, and
    // are counted in one line instead of asked and listed (trial27b M11). The same for a private
    // member (`#name`) and the occurrences outside its class or without the `#` (trial156 M2).
    let local_scope = origin_targets.iter().min().and_then(|(path, target_line, target_character)| {
        let line_text = reader.read_to_string(path).ok()?.lines().nth(*target_line as usize)?.to_owned();
        let byte_column = encoding.byte_from_column(&line_text, *target_character);
        crate::lsp::rename_local_scope::local_binding_scope(&reader, path, *target_line, byte_column)
            .or_else(|| crate::lsp::rename_local_scope::private_member_scope(&reader, path, *target_line, byte_column))
    });
    let mut outside_local_scope: Vec<(PathBuf, u32)> = Vec::new();
    let mut text_outside_local_scope = 0usize;
    let is_covered = |edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>, hit: &WordHit| -> bool {
        let (start, end) = columns(hit);
        edits.get(&hit.path).is_some_and(|list| list.iter().map(range_of).any(|range| covers(range, hit.line, start, end)))
    };
    // Whether the edit renames the identifier at a target (a binding the edit changes). gopls
    // places the definition of an embedded pointer field at its `*` (`*PublicStruct`): the edit
    // of the type name after it renames that field too (trial45 F3: go-cmp's 7 uses of the
    // embedded field were "another symbol", and the build broke).
    // The same for an embedded field of a type from another package (`*multierror.Error`,
    // `pkg.T`): the edit renames the type's name after the qualifier, which renames the field
    // (trial90 M1: the importing package's `collector{Error: …}` and `c.Error` were "another
    // symbol", and the build broke).
    let embedded_name_column = |path: &Path, target_line: u32, target_char: u32| -> Option<u32> {
        if path.extension().is_none_or(|ext| ext != "go") {
            return None;
        }
        let text = reader.read_to_string(path).ok()?;
        let line = text.lines().nth(target_line as usize)?;
        let byte = encoding.byte_from_column(line, target_char);
        let rest = line.get(byte..)?;
        let mut skipped = usize::from(rest.starts_with('*'));
        let after_star = &rest[skipped..];
        let qualifier: usize = after_star.chars().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum();
        if qualifier > 0 && after_star[qualifier..].starts_with('.') {
            skipped += qualifier + 1;
        }
        let name = &rest[skipped..];
        let is_old = name.starts_with(old_name) && !name[old_name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        (skipped > 0 && is_old).then(|| encoding.column_from_byte(line, byte + skipped))
    };
    let renamed_by = |edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>, (path, target_line, target_char): &Target| -> bool {
        edits.get(path).is_some_and(|list| {
            list.iter().map(range_of).any(|range| {
                covers(range, *target_line, *target_char, *target_char + 1)
                    || (range.0 == *target_line
                        && range.1 > *target_char
                        && embedded_name_column(path, *target_line, *target_char) == Some(range.1))
            })
        })
    };
    let renames_declaration =
        |edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>| -> bool { origin_targets.iter().any(|t| renamed_by(edits, t)) };
    // Python `__all__` entries name a module's bindings in strings no definition request
    // resolves; one whose file has its binding of the name renamed by the edit is a reference.
    let mut dunder_all: BTreeMap<PathBuf, Vec<std::ops::Range<usize>>> = BTreeMap::new();
    let mut in_dunder_all = |hit: &WordHit| -> bool {
        if !hit.path.extension().is_some_and(|ext| ext == "py" || ext == "pyi") {
            return false;
        }
        let ranges = dunder_all.entry(hit.path.clone()).or_insert_with(|| python_dunder_all_strings(&reader, &hit.path));
        let Some(offset) = byte_offset(&reader, &hit.path, hit.line, hit.byte_start) else { return false };
        ranges.iter().any(|range| range.start <= offset && offset + old_name.len() <= range.end)
    };
    let mut extra_renames: Vec<String> = Vec::new();
    let mut added: Vec<WordHit> = Vec::new();
    let mut elsewhere: Vec<(WordHit, Option<Target>)> = Vec::new();
    // Those of `elsewhere` whose definition is only a Rust macro call's range (trial171 F1).
    let mut only_macro_call: Vec<(PathBuf, u32, u32, Target, String)> = Vec::new();
    // Python: occurrences in an import's module path (`from .retry import …`): a module's name.
    let mut import_module_paths: Vec<WordHit> = Vec::new();
    let mut generated_declarations: Vec<(WordHit, BuildOutputReason)> = Vec::new();
    let mut declaration_kept: Vec<WordHit> = Vec::new();
    let mut kept_by_export_alias: Vec<WordHit> = Vec::new();
    // TypeScript: uses of the property a renamed local was destructured from (the edit wrote
    // `{ OLD: NEW }`, keeping the property's name): another symbol.
    let mut destructured_property: Vec<WordHit> = Vec::new();
    let mut kept_local_bindings: Vec<WordHit> = Vec::new();
    // Asked at an export specifier, the server renamed only the exported name (`export {
    // isDraft as isDraftX } from "./internal"`): the local binding it names keeps its name, and
    // the uses of that binding are no missed references (trial70 F4: immer's `isDraft`, where
    // renaming again from 3 importers of `./internal` aliased their imports).
    let export_alias = format!("{old_name} as {new_name}");
    let export_name_only =
        edits.get(origin).is_some_and(|list| list.iter().any(|edit| edit.new_text == export_alias && range_of(edit).0 == line))
            && !origin_targets.iter().any(|target| renamed_by(&edits, target));
    let mut binding_kept: Vec<WordHit> = Vec::new();
    // Rust, at a renamed export of another crate's item: paths that reach it through that export
    // (whether each is a `use`), and the uses named through another module's path, decided once
    // the modules that import it through the export are known.
    // Each path: whether it is a `use`, and whether it names the export's module itself (not
    // another module that imports the name through it, nor a glob of such a module).
    let mut through_export: Vec<(WordHit, bool, bool)> = Vec::new();
    let mut binding_kept_qualified: Vec<(WordHit, crate::lsp::rust_reexport_paths::QualifyingModule)> = Vec::new();
    let mut dunder_all_added: Vec<WordHit> = Vec::new();
    let mut dunder_all_pending: Vec<WordHit> = Vec::new();
    // Whether the renamed symbol is a struct field (its declaration line reads `NAME: Type`).
    // A variant's field too (`Safe { strict: bool },` on one line; trial50 F2): the name at the
    // declaration is followed by a single `:`.
    let renamed_is_field = origin_targets.iter().next().is_some_and(|(path, target_line, _)| {
        path_is_rust(path)
            && reader.read_to_string(path).ok().and_then(|text| text.lines().nth(*target_line as usize).map(str::to_owned)).is_some_and(
                |line| {
                    // A field is declared `[pub[(…)]] NAME: Type` — the name first; `pub trait
                    // Float: Num` is a trait with supertraits (trial71 F4: num-traits' doc-test
                    // `use num_traits::{Zero, Float};` became `{Zero, Floating: Float}`).
                    // Also in braces on one line: `Safe { strict: bool },` (trial46 F5).
                    word_positions(&line, old_name).into_iter().any(|at| {
                        let before = line[..at].trim_end();
                        let after = line[at + old_name.len()..].trim_start();
                        let field_place = before.is_empty()
                            || before.ends_with('{')
                            || before.ends_with(',')
                            || before.ends_with("pub")
                            || (before.ends_with(')') && before.contains("pub("));
                        field_place && after.starts_with(':') && !after.starts_with("::")
                    })
                },
            )
    });
    // Whether the renamed symbol is a Rust function or method (its declaration line reads `fn
    // NAME`, after any modifiers).
    let renamed_is_function = !renamed_is_field
        && origin_targets.iter().next().is_some_and(|(path, target_line, _)| {
            path_is_rust(path)
                && reader
                    .read_to_string(path)
                    .ok()
                    .and_then(|text| text.lines().nth(*target_line as usize).map(str::to_owned))
                    .is_some_and(|line| word_positions(&line, old_name).into_iter().any(|at| line[..at].trim_end().ends_with("fn")))
        });
    // Rust: occurrences that are a segment of a path leading on (`core::hash::Hash`, `use
    // core::hash::{…}`), or, for a field, any path segment: a module, type or trait, never the
    // renamed field or function (trial155 M5: renaming the field `Bucket::hash` listed 12
    // `core::hash::…` lines to "rename by hand if it names this symbol" and more among those to
    // check). Counted in one line, in code and comments alike.
    let mut path_segments: Vec<WordHit> = Vec::new();
    let mut in_text: Vec<(WordHit, OccurrenceKind)> = Vec::new();
    let mut classifier = Classifier::new(&grep, old_name.len(), server.workspace_root(), server.root());
    let mut unchecked: Vec<WordHit> = Vec::new();
    let mut unchecked_no_definition: Vec<WordHit> = Vec::new();
    let mut conflicts = 0usize;
    let pending: Vec<WordHit> = grep.hits.iter().filter(|hit| !is_covered(&edits, hit)).cloned().collect();
    let first_uncovered = pending.len();
    // The modules through which OLD stays public (computed at the first occurrence that needs it).
    let mut kept_alias_modules: Option<HashSet<PathBuf>> = None;
    let mut index = 0;
    while index < pending.len() {
        let hit = pending[index].clone();
        index += 1;
        if is_covered(&edits, &hit) {
            continue;
        }
        // With no definition for the renamed position (a string literal type's member), no
        // occurrence can be asked: said with that reason, not as a time limit (trial156 M1).
        if origin_targets.is_empty() {
            unchecked_no_definition.push(hit);
            continue;
        }
        // Outside a local's function or a private member's class (or without the `#`): another
        // symbol, counted in one line, whatever file holds it — build output's declarations too
        // (trial156 M2: a parameter `client` had 216 of them said). A comment or string in the
        // function's own doc comment names its parameters: listed below, not counted.
        if let Some(scope) = &local_scope {
            if !scope.may_name(&hit.path, hit.line, &hit.line_text, hit.byte_start) && !scope.in_doc_comment(&hit.path, hit.line) {
                if classifier.kind(&hit) == OccurrenceKind::Code {
                    outside_local_scope.push((hit.path.clone(), hit.line));
                } else {
                    text_outside_local_scope += 1;
                }
                continue;
            }
        }
        if Instant::now() >= deadline {
            unchecked.push(hit);
            continue;
        }
        if in_dunder_all(&hit) {
            // Decided after every other occurrence: the binding it names may be renamed only by
            // a later extra rename (a stub's `def` after its `__all__`).
            dunder_all_pending.push(hit);
            continue;
        }
        // TypeScript: a declaration file tsc generated from the sources (a `.d.ts` with a
        // declaration map) is build output: its definition leads to the source only through the
        // map, and renaming in it made the shipped typings disagree with the JavaScript beside
        // them (trial152 F1, F2: rxjs 7.8.1's `dist/types`, `export { pipe }` rewritten to
        // `export { pipe as pipeWith }`, every consumer's `import { pipe }` broken, tsc clean).
        // A stub or barrel without a map of its own beside mapped ones, or under the package's
        // typings or the tsconfig's output directory, is build output too (trial156 F1:
        // @tanstack/query-core's `build/legacy/index.d.ts`, renamed again from and rewritten).
        if let Some(reason) = build_output.reason(&reader, &hit.path) {
            generated_declarations.push((hit, reason));
            continue;
        }
        let kind = classifier.kind(&hit);
        if (renamed_is_field || renamed_is_function)
            && matches!(kind, OccurrenceKind::Code | OccurrenceKind::Comment)
            && path_is_rust(&hit.path)
            && rust_path_segment_never_the_renamed(&hit.line_text, hit.byte_start, old_name.len(), renamed_is_field)
        {
            path_segments.push(hit);
            continue;
        }
        if kind != OccurrenceKind::Code {
            // A local's name in a comment or string outside its function names something else
            // (trial35 M5: a parameter's rename listed 71 comments of other files to edit): those
            // were counted above.
            in_text.push((hit, kind));
            continue;
        }
        // A TypeScript file that imports or re-exports OLD from a module where the first edit
        // kept OLD as a public name (`export { NEW as OLD }`), directly or through barrels that
        // re-export it from there: its uses are meant to keep OLD. Asking the server to rename
        // again from them aliased the imports back (`OLD as NEW`) and renamed a second barrel's
        // public name (trial32 F2: trpc's `getErrorShape`, `@trpc/server/shared`).
        if kept_alias_modules.is_none() {
            kept_alias_modules = Some(modules_keeping_public_name(&reader, &edits, &grep.hits, old_name, new_name));
        }
        // A member access (`e.request`) names a property, not the imported binding (trial74 F1:
        // graphql-request's `ClientError.request` was listed as reaching the function through
        // the kept export).
        let member_access = hit.line_text[..hit.byte_start].trim_end().ends_with('.');
        if !member_access
            && kept_alias_modules
                .as_ref()
                .is_some_and(|modules| !modules.is_empty() && imports_name_from(&reader, &hit.path, old_name, modules).is_some())
        {
            kept_by_export_alias.push(hit);
            continue;
        }
        // Python: a name in an import's module path (`from .retry import …`) names a module,
        // never the renamed binding, whatever the definition there gives (trial124 F1:
        // tenacity's function `retry` renamed, and 16 `from .retry import …` of the submodule
        // `retry.py` were renamed too; the package no longer imported).
        // They are listed apart, not among the occurrences to check: ranked first as "no
        // definition", 15 of them hid every real suspect of the listing (trial124 recheck).
        if path_is_python(&hit.path) && python_import_module_path(&hit.line_text, hit.byte_start) {
            import_module_paths.push(hit);
            continue;
        }
        let (start, _) = columns(&hit);
        let targets = definition_targets(server, &hit.path, hit.line, start, deadline);
        // A missed reference leads to the renamed symbol, or to a binding the edit renames (an
        // import of it, a stub of it).
        // A target in a Rust macro call's arguments counts only as the renamed symbol itself:
        // that token can be another item's name and, in the expansion, a use of this one
        // (trial66 F1: fastrand's `integer!(u32, …)` names the free fn `u32` and expands to a
        // call of the method `Rng::u32`; the free fn's caller was renamed with the method).
        // A Rust macro call's range leads nowhere in particular (trial171 F1: the `bitflags! {`
        // line "led" `TestExternal::ABC` to `TestFlags::ABC`, and both were renamed).
        let leads_to_renamed =
            match definition_leads_here(workspace_root, &targets, &origin_targets, &|target| renamed_by(&edits, target), encoding) {
                DefinitionLeads::ThisSymbol => true,
                DefinitionLeads::Elsewhere => false,
                DefinitionLeads::OnlyMacroCall(target, macro_name) => {
                    only_macro_call.push((hit.path.clone(), hit.line, start, target.clone(), macro_name));
                    elsewhere.push((hit, Some(target)));
                    continue;
                }
            };
        if leads_to_renamed && export_name_only {
            // Rust: a path through the module whose export was renamed (`use crate::Trait;`)
            // names the export, not the binding: it no longer resolves (trial155 F1).
            match qualifying_module(&reader, &hit) {
                Some(module) if same_file(&module.file, origin) => through_export.push((hit, module.in_use_statement, true)),
                Some(module) => binding_kept_qualified.push((hit, module)),
                None => binding_kept.push(hit),
            }
            continue;
        }
        // TypeScript: a use whose definition leads to the renamed symbol AND to a declaration the
        // edit leaves is first that other symbol's use, reaching the renamed one only through its
        // initializer (`static serialize = SuperJSON.defaultInstance.serialize.bind(…)`): tsserver
        // left it out of the rename on purpose, and renaming again from it renamed the other
        // declaration and its 10 uses too (trial84 F2: superjson's static `SuperJSON.serialize`,
        // "missed references"). It is listed among the occurrences that lead elsewhere.
        if leads_to_renamed && server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests {
            let other = targets.iter().filter(|target| !origin_targets.contains(*target) && !renamed_by(&edits, target)).min().cloned();
            if let Some(other) = other {
                elsewhere.push((hit, Some(other)));
                continue;
            }
        }
        if !leads_to_renamed {
            let first = targets.into_iter().min();
            elsewhere.push((hit, first));
            continue;
        }
        // A use of a local variable that destructures the renamed property: the first edit wrote
        // `{ NEW: OLD }` to keep the local name, and the use names the variable (trial33 F2:
        // table-core's `const { index: pageIndex } = …` then `pageIndex < pageCount`, said to go
        // "through a re-export whose public name the server kept").
        let kept_local = format!("{new_name}: {old_name}");
        let local_binding = targets.iter().any(|(path, target_line, target_char)| {
            edits.get(path).is_some_and(|list| {
                list.iter().any(|edit| edit.new_text == kept_local && covers(range_of(edit), *target_line, *target_char, *target_char + 1))
            })
        });
        if local_binding {
            kept_local_bindings.push(hit);
            continue;
        }
        // A destructured binding renamed with its property's name kept (`{ OLD: NEW }`): the
        // binding's definition gives the type's member too, which the edit keeps. A use that
        // leads to the renamed set only through that member names the property — a shorthand
        // `{ OLD }` passing another function's local — and renaming again from it renamed that
        // other local (trial56 F1: virtual-core's `calculateRange({ …, scrollOffset })` in
        // another member, after renaming `calculateRange`'s own `scrollOffset`).
        let destructured = format!("{old_name}: {new_name}");
        if edits.values().flatten().any(|edit| edit.new_text == destructured) && !targets.iter().any(|target| renamed_by(&edits, target)) {
            destructured_property.push(hit);
            continue;
        }
        // A missed reference: ask the server again from here, else edit it ourselves.
        if extra_renames.len() < MAX_EXTRA_RENAMES {
            let params = lsp_types::RenameParams {
                text_document_position: text_document_position(&hit.path, hit.line, start),
                new_name: new_name.to_owned(),
                work_done_progress_params: Default::default(),
            };
            if let Ok(Some(more)) = server.request::<lsp_types::request::Rename>(params, deadline) {
                if let Some(mut more) = text_edits_by_path(&reader, &more, encoding) {
                    // Never edited: build output's declarations (trial156 F1), said below with
                    // their occurrences.
                    more.retain(|path, _| build_output.reason(&reader, path).is_none());
                    // An import-site alias `OLD as NEW` is dropped (the module now exports
                    // NEW) unless the first edit kept OLD as a public name (`export { NEW as
                    // OLD }`): a module importing through that re-export still gets OLD.
                    let export_alias_kept = edits.values().flatten().any(|edit| edit.new_text == format!("{new_name} as {old_name}"));
                    if renames_declaration(&edits) && !export_alias_kept {
                        drop_import_site_aliases(&mut more, old_name, new_name);
                    }
                    // A second rename that overlaps the first one's edits (tsserver renaming
                    // the exported name of `export { NEW as OLD }`, which its first edit wrote
                    // to keep the public name) would be merged only in part — its importers
                    // renamed, the export not — and break them: none of it is taken, and the
                    // occurrence is said as kept through that alias (@tanstack/query-core
                    // 5.59.0 shape, trial 17: `import { NEW as NEW } from './index'`).
                    if overlapping_edits(&edits, &more) > 0 {
                        // The renamed local was destructured from a property of the old name:
                        // the server's second rename is the property's (trial43 M7: the uses of
                        // `options.horizontal` were said to go "through a re-export").
                        let destructured = format!("{old_name}: {new_name}");
                        if edits.values().flatten().any(|edit| edit.new_text == destructured) {
                            destructured_property.push(hit);
                        } else {
                            kept_by_export_alias.push(hit);
                        }
                        continue;
                    }
                    extra_renames.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                    conflicts += merge_edits(&mut edits, more);
                    if is_covered(&edits, &hit) {
                        continue;
                    }
                }
            }
        }
        if edits.values().flatten().any(|edit| edit.new_text == format!("{new_name} as {old_name}")) {
            // The public name OLD was kept by a re-export (`export { NEW as OLD }`): this
            // occurrence imports or uses OLD through it and must keep it (renaming it would
            // import a name the module does not export).
            kept_by_export_alias.push(hit);
        } else if renames_declaration(&edits) {
            let (start, end) = columns(&hit);
            let own = text_edit(hit.line, start, end, new_name);
            conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
            added.push(hit);
        } else {
            declaration_kept.push(hit);
        }
    }
    // Python: a file that imports the renamed name from the renamed definition's own module,
    // where the server resolved nothing (a stub that does not declare it), renames the import
    // and — when it binds the name itself and nothing else does — its uses (trial44 F1:
    // more-itertools' `from .recipes import _zip_equal` left, and the package did not import).
    let mut import_followers: Vec<WordHit> = Vec::new();
    // Only a module-level definition is what an import brings: an attribute of the same
    // spelling is not (trial55 F2: tenacity's `BaseRetrying.retry` renamed edited uses of the
    // imported `retry` decorator's wrapper attribute, and a test failed).
    let module_level_definition = origin_targets.iter().min().is_some_and(|(path, target_line, target_character)| {
        reader.read_to_string(path).ok().is_some_and(|text| {
            text.lines().nth(*target_line as usize).is_some_and(|line| {
                let byte = encoding.byte_from_column(line, *target_character);
                crate::lsp::rename_public_names::python_module_level_occurrence(&text, *target_line as usize, byte)
            })
        })
    });
    if renames_declaration(&edits) && module_level_definition {
        let definition_files: Vec<PathBuf> = origin_targets.iter().map(|(path, _, _)| path.clone()).collect();
        let mut files: Vec<PathBuf> = elsewhere
            .iter()
            .filter(|(hit, first)| first.is_none() && hit.path.extension().is_some_and(|ext| ext == "py" || ext == "pyi"))
            .map(|(hit, _)| hit.path.clone())
            .collect();
        files.dedup();
        for path in files {
            let Ok(text) = reader.read_to_string(&path) else { continue };
            let Some(import) = crate::lsp::rename_python_imports::imports_renamed_name_from(&path, &text, old_name, &definition_files)
            else {
                continue;
            };
            let follow: Vec<WordHit> = elsewhere
                .iter()
                .filter(|(hit, first)| {
                    // An attribute (`wrapped.retry`) or an import's module path (`from .retry
                    // import …`) is no use of the imported binding (trial124 F1, F2).
                    let attribute = hit.line_text.get(..hit.byte_start).is_some_and(|before| before.trim_end().ends_with('.'));
                    hit.path == path
                        && first.is_none()
                        && !attribute
                        && !python_import_module_path(&hit.line_text, hit.byte_start)
                        && (hit.line as usize == import.import_line || (import.binds_the_name && !import.also_bound_elsewhere))
                })
                .map(|(hit, _)| hit.clone())
                .collect();
            for hit in follow {
                let (start, end) = columns(&hit);
                let own = text_edit(hit.line, start, end, new_name);
                conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
                import_followers.push(hit);
            }
        }
    }
    // Python: `pkg.sub.NAME` uses whose receiver spells the renamed definition's own module by its
    // import path — or a variable every binding of which is `importlib.import_module("pkg.sub")` —
    // where the server resolved nothing: pyright does not follow a submodule reached as a package
    // attribute (`import humanize` then `humanize.i18n.activate(…)`), yet at run time that is
    // the module once anything imported it. They are renamed with the definition (trial170 F1:
    // humanize's `activate` renamed, 24 `humanize.i18n.activate(…)` calls left, "no new errors",
    // 142 tests failed).
    let mut module_path_followers: Vec<(WordHit, String)> = Vec::new();
    if renames_declaration(&edits) && module_level_definition && path_is_python(origin) {
        let mut module_names: Vec<String> =
            origin_targets.iter().filter_map(|(path, _, _)| crate::lsp::dependents::python_dotted_module_name(&reader, path)).collect();
        module_names.sort();
        module_names.dedup();
        let mut variables: BTreeMap<PathBuf, BTreeMap<String, String>> = BTreeMap::new();
        let mut follow: Vec<(WordHit, String)> = Vec::new();
        let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
        for (hit, first) in &elsewhere {
            if first.is_some() || !path_is_python(&hit.path) || module_names.is_empty() {
                continue;
            }
            let Some(receiver) = crate::lsp::rename_python_imports::dotted_receiver_before(&hit.line_text, hit.byte_start) else {
                continue;
            };
            // A receiver spelled like the module counts only where its first segment is the
            // package the file imports, not a parameter or local of that name (review50 H6:
            // `def flush(db): db.session.commit()` renamed with `db/session.py`'s `commit`).
            let mut imported_package = || {
                let package = receiver.split('.').next().unwrap_or(receiver);
                let text = texts.entry(hit.path.clone()).or_insert_with(|| reader.read_to_string(&hit.path).unwrap_or_default());
                crate::lsp::rename_python_imports::python_name_is_module_import_at(
                    text,
                    package,
                    hit.line as usize,
                    hit.byte_start - receiver.len() - 1,
                )
            };
            let spelled = if module_names.iter().any(|module| module == receiver) {
                imported_package().then(|| receiver.to_owned())
            } else if !receiver.contains('.') {
                let in_file = variables.entry(hit.path.clone()).or_insert_with(|| {
                    reader
                        .read_to_string(&hit.path)
                        .map(|text| crate::lsp::rename_python_imports::import_module_variables(&text))
                        .unwrap_or_default()
                });
                in_file
                    .get(receiver)
                    .filter(|module| module_names.contains(module))
                    .map(|module| format!("{receiver} = importlib.import_module(\"{module}\")"))
            } else {
                None
            };
            if let Some(spelled) = spelled {
                follow.push((hit.clone(), spelled));
            }
        }
        for (hit, spelled) in follow {
            let (start, end) = columns(&hit);
            let own = text_edit(hit.line, start, end, new_name);
            conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
            module_path_followers.push((hit, spelled));
        }
    }
    // Doc links that resolve to the renamed declaration (Go `[Name]`, `[Owner.Name]`,
    // `[pkg.Name]`; rustdoc ``[`Name`]`` in a file the rename edits): broken links once it is
    // renamed, and the servers rename few of them (trial165 M2, trial163 M1) — renamed here.
    let mut doc_links_renamed: Vec<WordHit> = Vec::new();
    if renames_declaration(&edits) && !export_name_only {
        let origin_definition = origin_targets.iter().min().cloned();
        let go_symbol = origin_definition
            .as_ref()
            .filter(|(path, _, _)| path.extension().is_some_and(|ext| ext == "go"))
            .and_then(|(path, target_line, _)| crate::lsp::rename_doc_links::GoRenamedSymbol::at(&reader, path, *target_line, old_name));
        let rust_edited_files: Vec<PathBuf> = if path_is_rust(origin) { edits.keys().cloned().collect() } else { Vec::new() };
        let mut file_texts: BTreeMap<PathBuf, String> = BTreeMap::new();
        let mut links: Vec<WordHit> = Vec::new();
        in_text.retain(|(hit, kind)| {
            if *kind != OccurrenceKind::Comment || is_covered(&edits, hit) {
                return true;
            }
            let is_link = if let Some(symbol) = go_symbol.as_ref().filter(|_| hit.path.extension().is_some_and(|ext| ext == "go")) {
                let text = file_texts.entry(hit.path.clone()).or_insert_with(|| reader.read_to_string(&hit.path).unwrap_or_default());
                crate::lsp::rename_doc_links::go_doc_link_names_symbol(symbol, &hit.path, text, &hit.line_text, hit.byte_start, old_name)
            } else {
                // rust-analyzer resolves intra-doc links: a link is renamed only when its
                // definition there is the renamed symbol (review48 H1: `parse.rs`'s own `Error`
                // behind a bare ``[`Error`]`` was renamed with `error::Error`).
                path_is_rust(&hit.path)
                    && rust_edited_files.iter().any(|file| same_file(file, &hit.path))
                    && (crate::lsp::rename_doc_links::rust_intra_doc_link_names(&hit.line_text, hit.byte_start, old_name)
                        || crate::lsp::rename_doc_links::rust_link_definition_names(&hit.line_text, hit.byte_start, old_name))
                    && Instant::now() < deadline
                    && {
                        let targets = definition_targets(server, &hit.path, hit.line, columns(hit).0, deadline);
                        let resolves = !targets.is_disjoint(&origin_targets) || targets.iter().any(|target| renamed_by(&edits, target));
                        // A link reference definition's target (`[label]: Owner::name`), which
                        // rust-analyzer does not resolve: the renamed member's own owner names it.
                        let owner_path = crate::lsp::rename_doc_links::rust_link_definition_names(&hit.line_text, hit.byte_start, old_name)
                            && origin_targets.iter().min().is_some_and(|(path, target_line, _)| {
                                let owner = reader
                                    .read_to_string(path)
                                    .ok()
                                    .and_then(|text| crate::lsp::rename_doc_links::rust_enclosing_impl_type(&text, *target_line));
                                owner.is_some_and(|owner| hit.line_text[..hit.byte_start].trim_end().ends_with(&format!("{owner}::")))
                            });
                        let resolves = resolves || owner_path;
                        // The same for a link definition's target that starts with the name
                        // (`[label]: Name`, `[label]: Name::x`).
                        let starts_definition_target =
                            crate::lsp::rename_doc_links::rust_link_definition_names(&hit.line_text, hit.byte_start, old_name)
                                && hit.line_text[..hit.byte_start].trim_end().trim_end_matches('`').ends_with("]:");
                        // `[Name::member]`: rust-analyzer resolves the link to the member, so the
                        // name is taken for the renamed one when code of the same module that
                        // the edit renames uses it (the file's `use` of it, a call through it).
                        resolves
                            || ((hit.line_text[hit.byte_start + old_name.len()..].starts_with("::") || starts_definition_target) && {
                                let text = file_texts
                                    .entry(hit.path.clone())
                                    .or_insert_with(|| reader.read_to_string(&hit.path).unwrap_or_default());
                                let lines: Vec<&str> = text.lines().collect();
                                let imports =
                                    crate::lsp::rust_reexport_paths::RustFileImports::read(&hit.path, &lines, old_name, "", Path::new(""));
                                let module = imports.module_of_line(hit.line as usize);
                                grep.hits.iter().any(|other| {
                                    same_file(&other.path, &hit.path)
                                        && other.line != hit.line
                                        && !other.line_text.trim_start().starts_with("//")
                                        && is_covered(&edits, other)
                                        && imports.module_of_line(other.line as usize) == module
                                })
                            })
                    }
            };
            if is_link {
                links.push(hit.clone());
            }
            !is_link
        });
        for hit in links {
            let (start, end) = columns(&hit);
            let own = text_edit(hit.line, start, end, new_name);
            conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
            doc_links_renamed.push(hit);
        }
    }
    // Python: the `@pytest.mark.parametrize("a, b", …)` argnames item of a renamed parameter on
    // its own test function, which pytest matches to the parameter by name at collection: left,
    // the whole module fails to collect (trial170 F3). Renamed here; the same string on another
    // test is that test's and stays.
    let mut parametrize_renamed: Vec<WordHit> = Vec::new();
    // Argnames items of a class's decorator or a `pytestmark` that also reach the renamed
    // parameter's test: shared with the other tests there, so not renamed; said and staged
    // (review50 M7). `path:line (holder)`.
    let mut shared_parametrize_argnames_left: Vec<String> = Vec::new();
    if renames_declaration(&edits) && path_is_python(origin) {
        for (path, target_line, target_character) in origin_targets.iter().filter(|(path, _, _)| path_is_python(path)) {
            let Ok(text) = reader.read_to_string(path) else { continue };
            let Some(line_text) = text.lines().nth(*target_line as usize) else { continue };
            let byte_column = encoding.byte_from_column(line_text, *target_character);
            let Some(offset) = byte_offset(&reader, path, *target_line, byte_column) else { continue };
            for shared in crate::lsp::rename_pytest_fixtures::shared_parametrize_argnames(&text, offset, old_name) {
                let line = text[..shared.range.start].matches('\n').count() + 1;
                let place = format!("{}:{line} ({})", shown(path), shared.holder);
                if !shared_parametrize_argnames_left.contains(&place) {
                    shared_parametrize_argnames_left.push(place);
                }
            }
            let ranges = crate::lsp::rename_pytest_fixtures::parametrize_argname_ranges(&text, offset, old_name);
            if ranges.is_empty() {
                continue;
            }
            in_text.retain(|(hit, _)| {
                let at = if same_file(&hit.path, path) { byte_offset(&reader, &hit.path, hit.line, hit.byte_start) } else { None };
                let argname = at.is_some_and(|at| ranges.iter().any(|range| range.start == at));
                if argname {
                    parametrize_renamed.push(hit.clone());
                }
                !argname
            });
        }
        for hit in &parametrize_renamed {
            let (start, end) = columns(hit);
            let own = text_edit(hit.line, start, end, new_name);
            conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
        }
    }
    // A later rename (from another missed reference) may have covered an occurrence judged
    // before it: only what the final edit leaves is said as left.
    elsewhere.retain(|(hit, _)| !is_covered(&edits, hit));
    import_module_paths.retain(|hit| !is_covered(&edits, hit));
    path_segments.retain(|hit| !is_covered(&edits, hit));
    declaration_kept.retain(|hit| !is_covered(&edits, hit));
    kept_by_export_alias.retain(|hit| !is_covered(&edits, hit));
    destructured_property.retain(|hit| !is_covered(&edits, hit));
    kept_local_bindings.retain(|hit| !is_covered(&edits, hit));
    binding_kept.retain(|hit| !is_covered(&edits, hit));
    // A module that imports the name through the export passes the break on to the paths
    // through it (`use super::Trait` below a `use crate::Trait`), module after module.
    // A module whose own file-level glob brings the export (`pub use inner::*;` in lib.rs) is
    // an export of it too: a path through it (`mycrate::Trait` in a test crate) breaks as a path
    // through the export's own module does, and is mended the same way (review47 M1). A module
    // that imports the name through the export — by a `use`, or by globs from such a module —
    // passes the break on to the paths through it (`use super::Trait` below a `use
    // crate::Trait`), module after module; those resolve again once that import keeps the name.
    let follow_globs = export_name_only && path_is_rust(origin);
    let mut export_modules: Vec<PathBuf> = vec![origin.to_path_buf()];
    loop {
        let mut importing = importing_through_export(&through_export);
        if follow_globs {
            let mut modules: Vec<PathBuf> = binding_kept_qualified.iter().map(|(_, module)| module.file.clone()).collect();
            modules.sort();
            modules.dedup();
            for module in modules {
                if export_modules.iter().chain(&importing).any(|file| same_file(file, &module)) {
                    continue;
                }
                match glob_chain_reach(&reader, &module, &export_modules, &importing, old_name) {
                    Some(GlobChainReach::Export) => export_modules.push(module),
                    Some(GlobChainReach::Importing) => importing.push(module),
                    None => {}
                }
            }
        }
        let mut reached: Vec<(WordHit, bool, bool)> = Vec::new();
        binding_kept_qualified.retain(|(hit, module)| {
            let direct = export_modules.iter().any(|file| same_file(file, &module.file));
            if direct || importing.iter().any(|file| same_file(file, &module.file)) {
                reached.push((hit.clone(), module.in_use_statement, direct));
                return false;
            }
            true
        });
        if reached.is_empty() {
            break;
        }
        through_export.extend(reached);
    }
    binding_kept.extend(binding_kept_qualified.into_iter().map(|(hit, _)| hit));
    // A bare use in a module whose glob import reaches the export (`use indexmap::*;` then
    // `Equivalent<…>`) breaks as the paths do (recheck46 NEW-2: E0405 in indexmap's
    // tests/equivalent_trait.rs, filed as "rightly left"). Each file's imports are read once
    // (review47 M3), and a glob is said once with its bare uses counted (review47 M4).
    let mut through_globs: Vec<GlobReach> = Vec::new();
    if export_name_only && path_is_rust(origin) {
        let importing: Vec<PathBuf> = importing_through_export(&through_export);
        let mut glob_reaches: BTreeMap<PathBuf, Option<GlobChainReach>> = BTreeMap::new();
        let mut by_file: BTreeMap<PathBuf, Vec<WordHit>> = BTreeMap::new();
        let mut rest = Vec::new();
        for hit in std::mem::take(&mut binding_kept) {
            if path_is_rust(&hit.path) && !same_file(&hit.path, origin) {
                by_file.entry(hit.path.clone()).or_default().push(hit);
            } else {
                rest.push(hit);
            }
        }
        for (file, hits) in by_file {
            let library = crate::lsp::rename_public_api::rust_library_crate(reader.root(), &file);
            let text = reader.read_to_string(&file).ok();
            let (Some((_, crate_name, lib_root)), Some(text)) = (library, text) else {
                rest.extend(hits);
                continue;
            };
            let lines: Vec<&str> = text.lines().collect();
            let imports = crate::lsp::rust_reexport_paths::RustFileImports::read(&file, &lines, old_name, &crate_name, &lib_root);
            for hit in hits {
                let globs = imports.globs_reaching(&lines, hit.line as usize, hit.byte_start);
                // From the export's module or a module re-exporting it by a glob of its own
                // (review47 M1): `use mycrate::NEW as OLD;` beside the glob mends it.
                let reaches: Vec<Option<GlobChainReach>> = globs
                    .iter()
                    .map(|glob| {
                        if export_modules.iter().any(|file| same_file(file, &glob.module_file)) {
                            Some(GlobChainReach::Export)
                        } else if importing.iter().any(|file| same_file(file, &glob.module_file)) {
                            Some(GlobChainReach::Importing)
                        } else {
                            *glob_reaches
                                .entry(glob.module_file.clone())
                                .or_insert_with(|| glob_chain_reach(&reader, &glob.module_file, &export_modules, &importing, old_name))
                        }
                    })
                    .collect();
                let reaching =
                    |wanted: GlobChainReach| globs.iter().zip(&reaches).find(|(_, reach)| **reach == Some(wanted)).map(|(glob, _)| glob);
                let direct = reaching(GlobChainReach::Export);
                let through = direct.or_else(|| reaching(GlobChainReach::Importing));
                let Some(glob) = through else {
                    rest.push(hit);
                    continue;
                };
                // Said at its `use` statement's first line: an import added "beside" the `*,` line
                // of a multi-line `use {…}` would land inside its braces (recheck48).
                let statement_line0 = (0..=glob.line0)
                    .rev()
                    .take(50)
                    .find(|index| {
                        lines.get(*index).is_some_and(|line| {
                            let trimmed = line.trim_start();
                            let trimmed = trimmed.strip_prefix("pub(crate) ").or_else(|| trimmed.strip_prefix("pub ")).unwrap_or(trimmed);
                            trimmed.starts_with("use ")
                        })
                    })
                    .unwrap_or(glob.line0);
                match through_globs.iter_mut().find(|reach| reach.file == file && reach.line0 == statement_line0) {
                    Some(reach) => reach.uses += 1,
                    None => through_globs.push(GlobReach {
                        file: file.clone(),
                        line0: statement_line0,
                        line_text: lines.get(statement_line0).map_or(String::new(), |line| line.trim().to_owned()),
                        glob_path: glob.path.clone(),
                        direct: direct.is_some(),
                        uses: 1,
                    }),
                }
            }
        }
        binding_kept = rest;
    }
    binding_kept.sort_by(|a, b| (&a.path, a.line, a.byte_start).cmp(&(&b.path, b.line, b.byte_start)));
    through_export.sort_by(|(a, _, _), (b, _, _)| (&a.path, a.line, a.byte_start).cmp(&(&b.path, b.line, b.byte_start)));
    through_export.retain(|(hit, _, _)| !is_covered(&edits, hit));
    let through_export_direct: Vec<WordHit> =
        through_export.iter().filter(|(_, _, direct)| *direct).map(|(hit, _, _)| hit.clone()).collect();
    let through_export: Vec<WordHit> = through_export.into_iter().map(|(hit, _, _)| hit).collect();
    for hit in dunder_all_pending {
        // The module's own binding of the name, renamed: not an attribute of the same spelling.
        let module_text = reader.read_to_string(&hit.path).unwrap_or_default();
        let binding_renamed = grep.hits.iter().any(|other| {
            other.path == hit.path
                && other.line != hit.line
                && is_covered(&edits, other)
                && crate::lsp::rename_public_names::python_module_level_occurrence(&module_text, other.line as usize, other.byte_start)
        });
        if binding_renamed {
            let (start, end) = columns(&hit);
            let own = text_edit(hit.line, start, end, new_name);
            conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
            dunder_all_added.push(hit);
        } else {
            in_text.push((hit, OccurrenceKind::Text));
        }
    }
    // Python doctests, read as doctest reads them (trial148 F1, M4): a name in an example's
    // expected output (an exception class in a traceback) is compared when the doctests run, so
    // it is doctest content, not docstring prose; and only the occurrences that can name the
    // renamed symbol are at risk — a parameter as a keyword of a call of its function, a member as
    // an attribute, a module-level name bare or qualified — the rest are other names, counted.
    // What the renamed symbol is (a parameter, a member, a module-level name, a local) is read
    // once, when something needs it.
    let python_symbol: std::cell::OnceCell<Option<crate::lsp::python_doctests::RenamedPythonSymbol>> = std::cell::OnceCell::new();
    let python_symbol =
        || python_symbol.get_or_init(|| renamed_python_symbol_at(&reader, &origin_targets, local_scope.is_some(), encoding)).clone();
    let python_doctests = python_doctest_occurrences(&reader, &mut in_text, python_symbol, old_name);
    // Doc-test occurrences: the server resolves each in a copy of its example (it answers
    // nothing in the doc comment itself); those that lead to the renamed symbol are renamed like
    // missed references, those that lead elsewhere are another item's (left, counted), and the
    // rest are listed as unresolved.
    // A Rust crate's Markdown docs with doc-tests (a README it includes; trial167 F1) are
    // resolved with its examples; not for a local (no README names it).
    let included_doc_test_hits: Vec<WordHit> = if local_scope.is_none() && extensions.iter().any(|extension| extension == ".rs") {
        grep_included_doc_tests(server.workspace_root(), server.root(), old_name)
    } else {
        Vec::new()
    };
    let doc_test_hits: Vec<WordHit> = in_text
        .iter()
        .filter(|(_, kind)| *kind == OccurrenceKind::DocTest)
        .map(|(hit, _)| hit.clone())
        .chain(included_doc_test_hits.iter().cloned())
        .collect();
    in_text.retain(|(_, kind)| *kind != OccurrenceKind::DocTest);
    let doc_tests_started = Instant::now();
    let doc_test_resolutions: Vec<(WordHit, DocTestResolution)> = if doc_test_hits.is_empty() {
        Vec::new()
    } else if origin_targets.is_empty() {
        let why = format!("{} gave no definition for the renamed position", server.id());
        doc_test_hits.into_iter().map(|hit| (hit, DocTestResolution::Unresolved(why.clone()))).collect()
    } else {
        crate::lsp::doc_tests::resolve_doc_test_occurrences(server, &reader, &doc_test_hits, deadline)
    };
    let doc_tests_elapsed = doc_tests_started.elapsed();
    let mut doc_tests_renamed: Vec<WordHit> = Vec::new();
    // Whether an occurrence stands alone between `{`/`,` and `,`/`}` (a shorthand `NAME,`).
    let is_shorthand_field = |hit: &WordHit| -> bool {
        let before = hit.line_text[..hit.byte_start].trim_end();
        let after = hit.line_text[hit.byte_start + old_name.len()..].trim_start();
        let before_code = before.trim_start().trim_start_matches("///").trim_start_matches("//!").trim();
        (before_code.is_empty() || before_code.ends_with('{') || before_code.ends_with(','))
            && (after.is_empty() || after.starts_with(',') || after.starts_with('}'))
    };
    let mut doc_tests_of_others: Vec<(WordHit, Target)> = Vec::new();
    let mut doc_tests: Vec<(WordHit, String)> = Vec::new();
    // The trait whose method is renamed (its declaration, or an impl of it), for the examples'
    // own impls of it.
    let renamed_trait: Option<String> = origin_targets
        .iter()
        .min()
        .filter(|(path, _, _)| path_is_rust(path))
        .and_then(|(path, target_line, _)| rust_enclosing_trait(&reader.read_to_string(path).ok()?, *target_line as usize, false));
    for (hit, resolution) in doc_test_resolutions {
        match resolution {
            DocTestResolution::Resolved(targets) => {
                // An example's own `impl Trait for Type { fn NAME … }` of the renamed trait method
                // resolves to itself: it implements this symbol (trial57 F1: textwrap's doc-tests
                // implement `Fragment::whitespace_width`, were called another symbol, "leave them",
                // and failed with E0407/E0046 after the rename).
                let implements_renamed_trait = path_is_rust(&hit.path)
                    && renamed_trait.as_deref().is_some_and(|trait_name| {
                        reader
                            .read_to_string(&hit.path)
                            .ok()
                            .is_some_and(|text| doc_test_impl_method_of(&text, hit.line as usize, old_name).as_deref() == Some(trait_name))
                    });
                // As for code: a target in a Rust macro call's arguments counts only as the symbol
                // itself — `forward! { Float::sqrt(self) -> Self; }` in `impl Real for T` names
                // `Real::sqrt` and calls `Float::sqrt` with one token (trial71 F1: the doc-tests of
                // `Real::sqrt` were renamed with `Float::sqrt`, those of `Float::sqrt` left).
                let leads_to_renamed = implements_renamed_trait
                    || targets.iter().any(|target| {
                        origin_targets.contains(target)
                            || (renamed_by(&edits, target) && !in_rust_macro_arguments(workspace_root, target, encoding))
                    });
                // A definition inside a `macro_rules!` template is an item the macro makes (an
                // impl of the renamed trait method, say): the rename does not reach it, and whether
                // it is this symbol is what the template's own occurrence decides (trial42 F4: hex's
                // doc-test `<[u8; 12]>::from_hex(…)` was called another symbol, "leave it", and
                // failed with E0599 once the template was renamed as advised).
                let in_macro_template = |(path, target_line, _): &Target| {
                    reader.read_to_string(path).ok().is_some_and(|text| {
                        crate::lsp::inactive::macro_rules_line_ranges(&text)
                            .iter()
                            .any(|(first, last)| (*first..=*last).contains(target_line))
                    })
                };
                let template_target = (!leads_to_renamed && path_is_rust(&hit.path))
                    .then(|| targets.iter().find(|target| in_macro_template(target)))
                    .flatten();
                if let Some((path, target_line, _)) = template_target {
                    doc_tests.push((
                        hit,
                        format!(
                            "it calls the `{old_name}` a `macro_rules!` template defines at {}:{} (an item the macro makes, which the rename does not reach): it is this symbol if that template occurrence is — rename both together, and run the doc-tests",
                            shown(path),
                            target_line + 1
                        ),
                    ));
                } else if !leads_to_renamed {
                    let first = targets.into_iter().min().expect("resolved to at least one target");
                    doc_tests_of_others.push((hit, first));
                } else if renames_declaration(&edits) {
                    let (start, end) = columns(&hit);
                    // A field-init (or struct-pattern) shorthand keeps its local: `major,` becomes
                    // `maj: major,` as rust-analyzer writes it in code (trial46 F5: `maj,` failed
                    // the doc-test with E0425).
                    let replacement =
                        if renamed_is_field && is_shorthand_field(&hit) { format!("{new_name}: {old_name}") } else { new_name.to_owned() };
                    let own = text_edit(hit.line, start, end, &replacement);
                    conflicts += merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![own])]));
                    doc_tests_renamed.push(hit);
                } else {
                    doc_tests.push((hit, "it calls the renamed symbol, but the edit does not rename its declaration".to_owned()));
                }
            }
            DocTestResolution::Unresolved(why) => doc_tests.push((hit, why)),
        }
    }
    // A doctest's expected output: no server edits it, and the doctests compare it.
    for hit in &python_doctests.expected_output {
        doc_tests.push((hit.clone(), "a doctest's expected output, which the doctests compare: edit it by hand".to_owned()));
    }
    if !python_doctests.expected_output.is_empty() {
        doc_tests.sort_by(|(a, _), (b, _)| (&a.path, a.line, a.byte_start).cmp(&(&b.path, b.line, b.byte_start)));
    }
    let covered_now = grep.hits.iter().filter(|hit| is_covered(&edits, hit)).count();
    // Edits in files the scan does not walk (build output, files the tsconfig leaves out): said
    // beside the count, which counts the scanned files' occurrences only (trial160 M6: "0 renamed
    // by this edit" beside "3 edits" in `dist/esm/index.js`).
    let scanned_files: HashSet<&PathBuf> = grep.hits.iter().map(|hit| &hit.path).collect();
    let unscanned: Vec<(&PathBuf, usize)> = edits
        .iter()
        .filter(|(path, list)| {
            !list.is_empty() && !scanned_files.contains(path) && !included_doc_test_hits.iter().any(|hit| hit.path == **path)
        })
        .map(|(path, list)| (path, list.len()))
        .collect();
    let unscanned_said = if unscanned.is_empty() {
        String::new()
    } else {
        let count: usize = unscanned.iter().map(|(_, count)| count).sum();
        format!(
            ", and {} in {} outside this scan ({}{})",
            crate::render::plural(count, "edit"),
            crate::render::plural(unscanned.len(), "file"),
            unscanned.iter().take(3).map(|(path, _)| shown(path)).collect::<Vec<_>>().join(", "),
            if unscanned.len() > 3 { ", …" } else { "" }
        )
    };
    let mut report = vec![format!(
        "grep -w check: {} whole-word occurrence{} of `{old_name}` in {} of the {} {} file{} under {root_shown}{}; {covered_now} of them renamed by this edit{unscanned_said} ({} ms)",
        grep.hits.len(),
        if grep.hits.len() == 1 { "" } else { "s" },
        grep.hits.iter().map(|hit| &hit.path).collect::<HashSet<_>>().len(),
        grep.files_scanned,
        extensions.join("/"),
        if grep.files_scanned == 1 { "" } else { "s" },
        if grep.truncated { " (scan capped: there may be more)" } else { "" },
        started.elapsed().as_millis()
    )];
    if let Some(scope) = &grep.scope {
        report.push(format!("  {scope}"));
    }
    let positions: Vec<(&PathBuf, u32, u32)> =
        elsewhere.iter().filter(|(_, target)| target.is_none()).map(|(hit, _)| (&hit.path, hit.line, columns(hit).0)).collect();
    let unanswered = crate::lsp::loading_lookups::unanswered_count(server, positions);
    let ask_again = "call lsp_rename again with the same arguments";
    if let Some(note) = crate::lsp::loading_lookups::unanswered_note(server, unanswered, "this rename's grep check", ask_again) {
        report.push(format!("  {note}"));
    }
    let answered_positions: Vec<(&PathBuf, u32, u32)> =
        elsewhere.iter().filter(|(_, target)| target.is_some()).map(|(hit, _)| (&hit.path, hit.line, columns(hit).0)).collect();
    let answered_while_loading = crate::lsp::loading_lookups::answered_while_loading_count(server, answered_positions);
    if let Some(note) =
        crate::lsp::loading_lookups::answered_while_loading_note(server, answered_while_loading, "this rename's grep check", ask_again)
    {
        report.push(format!("  {note}"));
    }
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
        let lines = one_per_line(added.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !import_followers.is_empty() {
        report.push(format!(
            "  runbound renamed {} in files that import `{old_name}` from the renamed definition's module, which {} did not resolve there (a stub that does not declare it?) — the import and the file's uses of it:",
            crate::render::plural(import_followers.len(), "occurrence"),
            server.id()
        ));
        let lines = one_per_line(import_followers.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !parametrize_renamed.is_empty() {
        report.push(format!(
            "  runbound renamed {} of the renamed parameter's own test function (pytest matches argnames to its parameters by name: left, the module fails to collect); the same string on other tests is theirs and was left:",
            crate::render::plural(parametrize_renamed.len(), "`@pytest.mark.parametrize` argnames item")
        ));
        let lines = one_per_line(parametrize_renamed.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !module_path_followers.is_empty() {
        let mut receivers: Vec<&str> = module_path_followers.iter().map(|(_, spelled)| spelled.as_str()).collect();
        receivers.sort();
        receivers.dedup();
        report.push(format!(
            "  runbound renamed {} through the renamed definition's module by its import path ({}), which {} did not resolve (a submodule reached as a package attribute, or a module imported by name): at run time they are this definition, and left they would raise AttributeError:",
            crate::render::plural(module_path_followers.len(), "use"),
            receivers.iter().map(|receiver| format!("`{receiver}`")).collect::<Vec<_>>().join(", "),
            server.id()
        ));
        let lines = one_per_line(module_path_followers.iter(), |(hit, _)| hit);
        list_lines(&mut report, &lines, LISTED, |(hit, _)| hit, &shown, old_name.len(), |_| String::new());
    }
    if !doc_links_renamed.is_empty() {
        let kind = if path_is_rust(origin) { "rustdoc intra-doc link" } else { "Go doc link" };
        report.push(format!(
            "  runbound renamed {} that {} to the renamed symbol (had {} been left as {}, {} a broken link in {}); as {} before the rename:",
            crate::render::plural(doc_links_renamed.len(), kind),
            crate::render::one_or_many(doc_links_renamed.len(), "resolves", "resolve"),
            crate::render::one_or_many(doc_links_renamed.len(), "it", "they"),
            crate::render::one_or_many(doc_links_renamed.len(), "it was", "they were"),
            crate::render::one_or_many(doc_links_renamed.len(), "it would be", "each would be"),
            if path_is_rust(origin) { "`cargo doc`" } else { "`go doc` and pkg.go.dev" },
            crate::render::one_or_many(doc_links_renamed.len(), "it read", "they read"),
        ));
        let lines = one_per_line(doc_links_renamed.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !dunder_all_added.is_empty() {
        report.push(format!(
            "  runbound renamed {} `__all__` entr{} naming the renamed binding: {}",
            dunder_all_added.len(),
            if dunder_all_added.len() == 1 { "y" } else { "ies" },
            dunder_all_added.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect::<Vec<_>>().join(", ")
        ));
    }
    if conflicts > 0 {
        report.push(format!("  {conflicts} edit(s) from the extra renames overlapped the first edit and were dropped"));
    }
    // Module paths of imports and exports name a file or package, not the symbol (trial29 M9),
    // quoted as the project writes them (trial157 M4: a Go field rename explained its import
    // paths with a JavaScript `from './lru'`).
    let module_path_hits: Vec<&WordHit> =
        in_text.iter().filter(|(_, kind)| *kind == OccurrenceKind::ModulePath).map(|(hit, _)| hit).collect();
    if let Some(first) = module_path_hits.first() {
        let quoted = quoted_string_around(&first.line_text, first.byte_start).map_or_else(|| old_name.to_owned(), str::to_owned);
        let (paths, next_step) = if path_is_go(&first.path) {
            (
                "import paths",
                "a package, not this symbol; renaming the word there would break the import) — rename the package (`lsp_rename` at its `package` clause) if you mean to",
            )
        } else {
            (
                "module paths of imports or exports",
                "a file or package, not this symbol; renaming the word there would break the import) — rename the file with its importers if you mean to",
            )
        };
        report.push(format!(
            "  left unrenamed, rightly: {} in the {paths} ({}{quoted}{} names {next_step}",
            crate::render::plural(module_path_hits.len(), "occurrence"),
            if module_path_hits.len() == 1 { "`" } else { "e.g. `" },
            "`",
        ));
    }
    in_text.retain(|(_, kind)| *kind != OccurrenceKind::ModulePath);
    // Python strings that name the attribute in getattr / setattr / hasattr / mock.patch.object
    // calls: live references, said first and apart from docstrings and comments.
    let mut attribute_names: Vec<WordHit> =
        in_text.iter().filter(|(_, kind)| *kind == OccurrenceKind::AttributeName).map(|(hit, _)| hit.clone()).collect();
    in_text.retain(|(_, kind)| *kind != OccurrenceKind::AttributeName);
    // A string naming an attribute of a module (`monkeypatch.setattr(tenacity.nap.time, "sleep",
    // …)`) is no member of the renamed class (trial55 M1: it was the one WARNING of renaming
    // `RetryAction.sleep`): the object's hover says `(module)`.
    let mut attribute_names_of_modules: Vec<(WordHit, String)> = Vec::new();
    // A module-level definition (`def retry` at column 0) is an attribute of its module only: a
    // string naming the attribute of any other object (`hasattr(_retryable_coroutine, "retry")`,
    // the attribute tenacity's decorator sets on what it wraps) is another attribute (tenacity
    // 9.0.0 recheck: it was the one WARNING of renaming the function `retry`, and renaming the
    // string as told would have failed the test).
    let renamed_module_level = origin_targets.iter().any(|(path, target_line, _)| {
        path_is_python(path)
            && reader.read_to_string(path).is_ok_and(|text| {
                text.lines().nth(*target_line as usize).is_some_and(|line| python_module_level_definition_line(line, old_name))
            })
    });
    // The names the renamed definition's module goes by (`nap` of nap.py, `tenacity` of
    // tenacity/__init__.py): a string on another module names that module's attribute.
    let renamed_module_names: HashSet<String> = origin_targets
        .iter()
        .filter(|(path, _, _)| path_is_python(path))
        .filter_map(|(path, _, _)| {
            let stem = path.file_stem()?.to_str()?;
            if stem == "__init__" {
                path.parent()?.file_name()?.to_str().map(str::to_owned)
            } else {
                Some(stem.to_owned())
            }
        })
        .collect();
    let mut attribute_names_of_other_objects: Vec<(WordHit, String)> = Vec::new();
    // The class of the renamed member (`SchemaOpts` of `self.datetimeformat`): a string read
    // on an object of another class names that class's attribute (trial154 F3: the WARNING
    // named `getattr(meta, "datetimeformat", None)`, the user's `class Meta` option, which must
    // stay).
    let renamed_class = if renamed_module_level || local_scope.is_some() {
        None
    } else {
        crate::lsp::rename_attribute_objects::renamed_python_class(&reader, &origin_targets, old_name)
    };
    let mut attribute_names_of_other_classes: Vec<(WordHit, String, String)> = Vec::new();
    let mut attribute_names_copied_untyped: Vec<(WordHit, String)> = Vec::new();
    attribute_names.retain(|hit| match attribute_call_object(&hit.line_text, hit.byte_start) {
        Some((object, identifier_at)) if Instant::now() < deadline => {
            let character = server.position_encoding().column_from_byte(&hit.line_text, identifier_at);
            let Some(hover) = hover_text(server, &hit.path, hit.line, character, deadline) else { return true };
            let first_line = hover.lines().map(str::trim).find(|line| !line.is_empty() && !line.starts_with("```")).unwrap_or_default();
            // A module's attribute is what a module-level definition is: there the string names
            // the renamed function itself (trial132 F1: packaging's `monkeypatch.setattr(tags,
            // "_cpython_abis", …)` was "left rightly", and 2 tests failed with AttributeError).
            if first_line.starts_with("(module)") {
                let module = first_line.trim_start_matches("(module)").trim();
                let module = module.rsplit('.').next().unwrap_or(module);
                if renamed_module_level && renamed_module_names.contains(module) {
                    return true;
                }
                attribute_names_of_modules.push((hit.clone(), object));
                return false;
            }
            // A variable or parameter holding a module (`mod: Module("tenacity")`, a
            // `ModuleType` from `importlib.import_module`) may be the renamed definition's
            // module: kept.
            if renamed_module_level && !first_line.contains("Module(") && !first_line.contains("ModuleType") && !first_line.is_empty() {
                attribute_names_of_other_objects.push((hit.clone(), object));
                return false;
            }
            if let Some(renamed_class) = &renamed_class {
                use crate::lsp::rename_attribute_objects::ObjectClass;
                let at = (hit.path.as_path(), hit.line, character);
                match crate::lsp::rename_attribute_objects::object_class(
                    server,
                    workspace_root,
                    &reader,
                    at,
                    first_line,
                    renamed_class,
                    deadline,
                ) {
                    ObjectClass::Other(class) => {
                        attribute_names_of_other_classes.push((hit.clone(), object, class));
                        return false;
                    }
                    ObjectClass::Untyped if crate::lsp::rename_attribute_objects::copies_same_named_attribute(&hit.line_text, old_name) => {
                        attribute_names_copied_untyped.push((hit.clone(), object));
                        return false;
                    }
                    _ => {}
                }
            }
            true
        }
        _ => true,
    });
    // A string `"old"` assigned to a constant that getattr / setattr / hasattr reads on an object
    // of the renamed class (`SCHEMA_OPTS_VAR_NAME = "datetimeformat"`, read by
    // `getattr(self.root.opts, self.SCHEMA_OPTS_VAR_NAME)`) is a live reference too (trial154
    // F3: it was filed among plain strings, and the suite failed at import).
    let mut attribute_name_notes: HashMap<(PathBuf, u32, usize), String> = HashMap::new();
    if let Some(renamed_class) = &renamed_class {
        let reads = crate::lsp::rename_attribute_objects::constant_strings_read_as_attribute_names(
            server,
            workspace_root,
            &reader,
            &in_text,
            renamed_class,
            old_name,
            &shown,
            deadline,
        );
        let promoted: HashSet<usize> = reads.iter().map(|read| read.index).collect();
        for read in reads {
            let hit = in_text[read.index].0.clone();
            attribute_name_notes.insert((hit.path.clone(), hit.line, hit.byte_start), format!("   (string constant {})", read.note));
            attribute_names.push(hit);
        }
        let mut index = 0usize;
        in_text.retain(|_| {
            index += 1;
            !promoted.contains(&(index - 1))
        });
    }
    if !attribute_names_of_other_classes.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} in getattr / setattr / hasattr / mock.patch.object calls whose object is another class's ({}): the renamed `{old_name}` is a member of `{}` — these name another object's attribute of the same name, not renamed; leave them",
            crate::render::plural(attribute_names_of_other_classes.len(), "string"),
            attribute_names_of_other_classes
                .iter()
                .map(|(hit, object, class)| format!("`{object}` (a `{class}`) at {}:{}", shown(&hit.path), hit.line + 1))
                .take(LISTED)
                .collect::<Vec<_>>()
                .join(", "),
            renamed_class.as_ref().map_or("", |class| class.name.as_str())
        ));
    }
    if !attribute_names_copied_untyped.is_empty() {
        report.push(format!(
            "  left unrenamed, likely rightly: {} where an untyped object's attribute of the same name is copied into the renamed one ({}): `self.{old_name} = getattr(obj, \"{old_name}\", …)` reads another object's option (a user's `class Meta`, a settings object), not renamed — rename it only if that object is itself a `{}`",
            crate::render::plural(attribute_names_copied_untyped.len(), "string"),
            attribute_names_copied_untyped
                .iter()
                .map(|(hit, object)| format!("`{object}` at {}:{}", shown(&hit.path), hit.line + 1))
                .take(LISTED)
                .collect::<Vec<_>>()
                .join(", "),
            renamed_class.as_ref().map_or("", |class| class.name.as_str())
        ));
    }
    if !attribute_names_of_other_objects.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} in getattr / setattr / hasattr / mock.patch.object calls whose object is not a module ({}): the renamed `{old_name}` is a module-level definition, an attribute of its module only — these name another attribute of that object (one a decorator or setattr put there)",
            crate::render::plural(attribute_names_of_other_objects.len(), "string"),
            attribute_names_of_other_objects
                .iter()
                .map(|(hit, object)| format!("`{object}` at {}:{}", shown(&hit.path), hit.line + 1))
                .take(LISTED)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !attribute_names_of_modules.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} in getattr / setattr / mock.patch.object calls whose object is a module ({}): an attribute of that module, not the renamed `{old_name}` (a member of a class, or a definition of another module)",
            crate::render::plural(attribute_names_of_modules.len(), "string"),
            attribute_names_of_modules.iter().map(|(hit, object)| format!("`{object}` at {}:{}", shown(&hit.path), hit.line + 1)).take(LISTED).collect::<Vec<_>>().join(", ")
        ));
    }
    if !attribute_names.is_empty() {
        report.push(format!(
            "  left unrenamed: {} — string attribute names used by mock.patch.object / getattr / setattr / hasattr (by the syntax tree): live references that will fail at run time (AttributeError, or a patch of an attribute that no longer exists); rename each to \"{new_name}\" unless its object is another class's:",
            crate::render::plural(attribute_names.len(), "occurrence"),
        ));
        let lines = one_per_line(attribute_names.iter(), |hit| hit);
        list_lines(
            &mut report,
            &lines,
            LISTED,
            |hit| hit,
            &shown,
            old_name.len(),
            |hit| {
                attribute_name_notes
                    .get(&(hit.path.clone(), hit.line, hit.byte_start))
                    .cloned()
                    .unwrap_or_else(|| "   (attribute name string)".to_owned())
            },
        );
    }
    if !doc_tests_renamed.is_empty() {
        report.push(format!(
            "  runbound renamed {} in doc-test examples ({}) — {} resolved each, in an unsaved copy of its example, to the renamed symbol ({} ms); run {} to confirm:",
            crate::render::plural(doc_tests_renamed.len(), "occurrence"),
            if doc_tests_renamed.iter().any(|hit| crate::lsp::doc_tests::is_markdown(&hit.path)) {
                "doc comments, and code blocks of Markdown files the crate includes as docs, which rustdoc compiles"
            } else {
                "doc comments"
            },
            server.id(),
            doc_tests_elapsed.as_millis(),
            doc_test_command(doc_tests_renamed.iter())
        ));
        let lines = one_per_line(doc_tests_renamed.iter(), |hit| hit);
        list_lines(&mut report, &lines, DOC_TESTS_LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !path_segments.is_empty() {
        let example = path_segments.iter().find(|hit| hit.line_text.contains(&format!("::{old_name}::"))).unwrap_or(&path_segments[0]);
        let mut places: Vec<String> = Vec::new();
        for hit in &path_segments {
            let place = format!("{}:{}", shown(&hit.path), hit.line + 1);
            if !places.contains(&place) {
                places.push(place);
            }
        }
        report.push(format!(
            "  left unrenamed, rightly: {} that {} a segment of a path (`{}` at {}:{}: a module, type or trait), which never names {}: {}{}",
            crate::render::plural(path_segments.len(), "occurrence"),
            crate::render::one_or_many(path_segments.len(), "is", "are"),
            example.line_text.trim(),
            shown(&example.path),
            example.line + 1,
            if renamed_is_field { format!("a field such as `{old_name}`") } else { format!("the function `{old_name}`") },
            places.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", "),
            if places.len() > LISTED { format!(" and {} more lines", places.len() - LISTED) } else { String::new() },
        ));
    }
    if !doc_tests_of_others.is_empty() {
        let mut definitions: BTreeMap<String, usize> = BTreeMap::new();
        for (_, (path, target_line, _)) in &doc_tests_of_others {
            *definitions.entry(format!("{}:{}", shown(path), target_line + 1)).or_default() += 1;
        }
        let definitions: Vec<String> = definitions.into_iter().map(|(at, count)| format!("{at} ({count})")).collect();
        report.push(format!(
            "  left unrenamed, rightly: {} in doc-test examples that call another `{old_name}` ({} resolved {} in a copy of the example to: {}) — not this symbol; leave {}",
            crate::render::plural(doc_tests_of_others.len(), "occurrence"),
            server.id(),
            if doc_tests_of_others.len() == 1 { "it" } else { "them" },
            definitions.join(", "),
            if doc_tests_of_others.len() == 1 { "it" } else { "them" }
        ));
    }
    if !doc_tests.is_empty() {
        report.push(format!(
            "  left unrenamed: {} in doc comments (doc-tests may fail) — {}, then run {}:",
            doc_tests.len(),
            match (doc_tests.len() - python_doctests.expected_output.len(), python_doctests.expected_output.len()) {
                (_, 0) => format!("code examples whose `{old_name}` could not be resolved; edit those that use this symbol"),
                (0, _) => format!("doctests' expected output that names `{old_name}` (no server edits expected output); edit it by hand"),
                _ => format!("code examples whose `{old_name}` could not be resolved, and doctests' expected output that names it (no server edits expected output); edit those that use this symbol and the expected output by hand"),
            },
            doc_test_command(doc_tests.iter().map(|(hit, _)| hit))
        ));
        let lines = one_per_line(doc_tests.iter(), |(hit, _)| hit);
        list_lines(&mut report, &lines, DOC_TESTS_LISTED, |(hit, _)| hit, &shown, old_name.len(), |(_, why)| format!("   ({why})"));
    }
    if let Some(line) = python_doctests.other_names_line(old_name, &shown) {
        report.push(line);
    }
    // The TypeScript type that declares the renamed member (`QueryOptions` for
    // `QueryOptions.queryKeyHashFn`), read once: string keys over it, and double casts to it.
    // A renamed local is no member: none of the member checks apply. Of several definitions (a
    // shorthand `{ form }` leads to its local and to the property it fills), the renamed symbol
    // is the one the edit renames; asked at the shorthand itself, the definitions may be the
    // property's alone while the edit there keeps the key (`form: theForm`): the renamed symbol
    // is the local value (trial48 F1: two false WARNINGs, one telling the agent to edit a key
    // tsc then rejects).
    let renamed_definition = origin_targets.iter().filter(|target| renamed_by(&edits, target)).min();
    let canonical_origin = std::fs::canonicalize(origin).unwrap_or_else(|_| origin.to_path_buf());
    let expanded_shorthand = format!("{old_name}: {new_name}");
    let asked_at_expanded_shorthand = [origin.to_path_buf(), canonical_origin].iter().any(|path| {
        edits.get(path).is_some_and(|list| list.iter().any(|edit| edit.new_text == expanded_shorthand && edit.range.start.line == line))
    });
    let member_owner = renamed_definition
        .or_else(|| origin_targets.iter().min())
        .filter(|_| local_scope.is_none() && !asked_at_expanded_shorthand)
        .and_then(|(path, target_line, _)| {
            let text = reader.read_to_string(path).ok()?;
            crate::lsp::syntax::ParsedSource::parse(path, &text)?.typescript_member_owner_name(*target_line, old_name)
        });
    // The types whose member declaration of the old name the rename edits too (tsserver renames
    // the interface member a class method implements): their keys name the renamed member as
    // well (trial129 F1: `Pick<RouterHistory, 'createHref'>` under a rename asked at
    // `ServerHistory.createHref` was "another property … leave it", and tsc then failed).
    // Each with the canonical path of its file: a key over a type that extends one of them
    // names the member too (trial168 F1).
    let renamed_member_owner_declarations: Vec<(PathBuf, String)> = edits
        .iter()
        .filter(|(path, _)| path.extension().is_some_and(|extension| matches!(extension.to_str(), Some("ts" | "tsx" | "mts" | "cts"))))
        .flat_map(|(path, list)| {
            let parsed = reader.read_to_string(path).ok().and_then(|text| crate::lsp::syntax::ParsedSource::parse(path, &text));
            let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            list.iter()
                .filter_map(|edit| parsed.as_ref().and_then(|parsed| parsed.typescript_member_owner_name(edit.range.start.line, old_name)))
                .map(|owner| (canonical.clone(), owner))
                .collect::<Vec<_>>()
        })
        .collect();
    let renamed_member_owners: Vec<String> = renamed_member_owner_declarations.iter().map(|(_, owner)| owner.clone()).collect();
    // The declarations a key's type may be built on to name the renamed member: the renamed
    // member's own type and those whose member of the old name the edit renames.
    let member_owner_declarations: Vec<(PathBuf, String)> = renamed_definition
        .or_else(|| origin_targets.iter().min())
        .and_then(|(path, _, _)| {
            member_owner.as_ref().map(|owner| (std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()), owner.clone()))
        })
        .into_iter()
        .chain(renamed_member_owner_declarations.iter().cloned())
        .collect();
    // The string keys in types that name the renamed member for certain — over its own type, a
    // type whose member the edit renames too, or a type built on one of those — renamed with it
    // (tsserver renames no string with a member): each hit and why it names the member
    // (trial168 F1: `PartialKeys<TableOptionsResolved<TData>, 'onStateChange'>`, whose
    // `TableOptionsResolved` extends `CoreOptions`, was left, and tsc failed in both packages).
    let mut type_keys_renamed: Vec<(WordHit, String)> = Vec::new();
    // Keys over a type parameter constrained to the member's type: left, warned of.
    let mut keys_naming_member: Vec<String> = Vec::new();
    // Strings that name the member as a key of a value in code (`'value' in received`,
    // `Object.hasOwn(r, 'value')`, an argument of a `keyof` parameter): `file:line` and the
    // expression (trial145 F3: the four `in` keys tsc then failed on were the 70-somethingth
    // lines of the unrenamed list, behind doc comments, with no warning).
    let mut value_keys_naming_member: Vec<(String, String)> = Vec::new();
    // Decorators right above the renamed declaration that name it by a string (`@once_per('n')`).
    let mut decorator_strings: Vec<String> = Vec::new();
    if !in_text.is_empty() {
        // A comment right above a declaration of the same name that the rename did not touch
        // documents another symbol (trial30 M2: renaming goldmark's `util.IsBlank` listed
        // `// IsBlank returns true if this node…`, `CodeSpan.IsBlank`'s doc comment, as one to edit).
        let mut labels: std::collections::HashMap<(PathBuf, u32), String> = std::collections::HashMap::new();
        // A string that is a property key (`T["_def"]["unknownKeys"]`) likely names a renamed
        // property, and on an `any` base no compiler error ever flags it (trial30 M10).
        let mut parsed: std::collections::HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = std::collections::HashMap::new();
        let mut key_checker = crate::lsp::string_keys::StringKeyChecker::new(server, workspace_root, deadline);
        // The lines listed first: the strings the warnings name.
        let mut keys_first: HashSet<(PathBuf, u32)> = HashSet::new();
        // A key over `member_owner` names this member for certain (trial34 M2:
        // `Pick<QueryOptions<…>, 'queryKeyHashFn'>` was hedged on).
        for (hit, kind) in &in_text {
            if *kind == OccurrenceKind::Text {
                let source = parsed.entry(hit.path.clone()).or_insert_with(|| {
                    let text = reader.read_to_string(&hit.path).ok()?;
                    crate::lsp::syntax::ParsedSource::parse(&hit.path, &text)
                });
                let Some(source) = source.as_ref() else { continue };
                let role = source.string_property_key_role(hit.line, hit.byte_start, old_name.len());
                // A key of a value in code: by the syntax (`in`, a built-in key lookup), by the
                // callee's parameter (an argument: a `keyof` one only, trial145 M6) or by the
                // server (an element access it resolves names another declaration's property).
                if let Some(role) = role.filter(|role| crate::lsp::syntax::is_key_of_a_value_role(role)) {
                    let label = match key_checker.check(&hit.path, source, hit.line, hit.byte_start, role) {
                        crate::lsp::string_keys::KeyCheck::Key(role) => {
                            let expression = source
                                .string_key_expression_text(hit.line, hit.byte_start)
                                .unwrap_or_else(|| hit.line_text.trim().to_owned());
                            value_keys_naming_member.push((
                                format!("{}:{}", shown(&hit.path), hit.line + 1),
                                format!("{role}: `{}`", crate::render::cut_chars(&expression, 60)),
                            ));
                            keys_first.insert((hit.path.clone(), hit.line));
                            format!("   (property key in code: {role} — it names `{old_name}` by the syntax; edit it to '{new_name}' where the value has the renamed member: see the WARNING)")
                        }
                        crate::lsp::string_keys::KeyCheck::Defined(target, target_line) => format!(
                            "   (element-access key of the property declared at {}:{}, which this rename leaves: another property — leave it)",
                            shown(&target),
                            target_line + 1
                        ),
                        crate::lsp::string_keys::KeyCheck::NotKey { callee: Some(callee), parameter: Some(parameter) } => format!(
                            "   (string argument of `{callee}`, whose parameter `{parameter}` is no `keyof`: the same word, not a key — leave it)"
                        ),
                        crate::lsp::string_keys::KeyCheck::NotKey { callee: Some(callee), parameter: None } => format!(
                            "   (string argument of `{callee}`, whose declaration shows no `keyof` parameter: the same word, not a key — leave it unless it names this property)"
                        ),
                        crate::lsp::string_keys::KeyCheck::NotKey { callee: None, .. } => {
                            "   (string argument of a call whose callee is no name: a key only where its parameter is a `keyof` — leave it unless it names this property)".to_owned()
                        }
                        crate::lsp::string_keys::KeyCheck::Unchecked => "   (string argument or element access not checked in time: it names this property only where the callee's parameter is a `keyof`, or the base has this member — check it)".to_owned(),
                    };
                    // One line, several strings: the key's label is the one said.
                    if keys_first.contains(&(hit.path.clone(), hit.line)) == label.starts_with("   (property key in code") {
                        labels.insert((hit.path.clone(), hit.line), label);
                    }
                    continue;
                }
                if let Some(role) = role {
                    let type_keys_before = keys_naming_member.len();
                    let base = source.string_key_base_type_name(hit.line, hit.byte_start);
                    // A type parameter in the true branch of `T extends X ? … : …` is an `X` there:
                    // its key names X's member (trial109 F1: form-core's
                    // `T['onDynamic']` under `T extends FieldValidators<…>` was said to need an edit
                    // for a rename of `FormValidators.onDynamic`, and the edit broke tsc).
                    let narrowed = base.as_ref().and_then(|base| source.typescript_conditional_narrowing(hit.line, hit.byte_start, base));
                    let is_narrowed = narrowed.is_some();
                    let base = narrowed.or(base);
                    let in_omit = if role == crate::lsp::syntax::OMIT_KEY_ROLE { " in `Omit<…>`" } else { "" };
                    // Renamed with the member: the key, and why it names the member.
                    let mut rename_key = |why: String| {
                        let (start, end) = columns(hit);
                        conflicts +=
                            merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![text_edit(hit.line, start, end, new_name)])]));
                        type_keys_renamed.push((hit.clone(), why));
                        String::new()
                    };
                    // Whether the keyed type is the member's own declaration (or one whose member
                    // the edit renames) or built on one, by the server's definitions: a type of the
                    // same name declared elsewhere is another type (review49 H1: `Pick<Options,
                    // 'timeout'>` over b.ts's own `Options` was renamed under a rename of a.ts's
                    // `Options.timeout`, and tsc failed). A narrowed type parameter is not asked.
                    let confirmed = |key_checker: &mut crate::lsp::string_keys::StringKeyChecker<'_>| {
                        if is_narrowed {
                            crate::lsp::string_keys::KeyedTypeBase::Unchecked
                        } else {
                            key_checker.keyed_type_base(&hit.path, source, hit.line, hit.byte_start, &member_owner_declarations, old_name)
                        }
                    };
                    // A key whose type has the name of a type that declares the member, the
                    // server not confirming it is that type: warned of, not renamed.
                    let omit_said = if role == crate::lsp::syntax::OMIT_KEY_ROLE {
                        " — `Omit` accepts a key its type lacks: left as is, the type it builds keeps the renamed member"
                    } else {
                        ""
                    };
                    let label = match (member_owner.as_ref(), base) {
                        (Some(owner), Some(base)) if *owner == base || renamed_member_owners.contains(&base) && !source.typescript_type_parameter_in_scope(hit.line, hit.byte_start, &base) => {
                            let declares = if *owner == base {
                                "the type that declares this member".to_owned()
                            } else {
                                format!("whose `{old_name}` this rename renames too")
                            };
                            match confirmed(&mut key_checker) {
                                built_on @ crate::lsp::string_keys::KeyedTypeBase::BuiltOn(_) => match built_on.chain_said() {
                                    Some(chain) => rename_key(format!("   (string key{in_omit} of `{base}`: {chain}, which declares this member: {role})")),
                                    None => rename_key(format!("   (string key{in_omit} of `{base}`, {declares}: {role})")),
                                },
                                crate::lsp::string_keys::KeyedTypeBase::Unrelated => format!(
                                    "   (string key of another `{base}`: {role} — the server's definition of this `{base}` leads to a declaration of the same name that neither is nor extends the one that declares this member: another property; leave it)"
                                ),
                                crate::lsp::string_keys::KeyedTypeBase::Unchecked => {
                                    keys_naming_member.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                                    format!("   (string key{in_omit} of `{base}`, by its name {declares}: {role}{omit_said} — the server did not confirm in time that this `{base}` is that declaration (a type of the same name elsewhere is another type): edit it if it is, or the renamed code does not compile)")
                                }
                            }
                        }
                        // A key over a type parameter (`TParams['_ctx_out']` with `TParams extends
                        // ProcedureParams`): tsc rejects it once the member is renamed (TS2536,
                        // trial54 F6).
                        (Some(owner), Some(base)) if source.typescript_type_parameter_in_scope(hit.line, hit.byte_start, &base) => {
                            keys_naming_member.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                            format!("   (string key of the type parameter `{base}`: {role} — it names this member where `{base}` is constrained to `{owner}` (or a type that has it); edit it, or the renamed code does not compile)")
                        }
                        // Another type's key (trial35 F1: the other branch's `T['onBlurAsync']`,
                        // `Pick<FieldMetaBase, "errorMap">` under a rename of `BaseFormState.errorMap`),
                        // unless that type is built on the member's (trial168 F1).
                        (Some(owner), Some(base)) => {
                            match confirmed(&mut key_checker) {
                                built_on @ crate::lsp::string_keys::KeyedTypeBase::BuiltOn(_) => {
                                    let chain = built_on.chain_said().unwrap_or_else(|| format!("`{base}` is `{owner}`"));
                                    rename_key(format!("   (string key{in_omit} of `{base}`: {chain}, which declares this member: {role})"))
                                }
                                crate::lsp::string_keys::KeyedTypeBase::Unrelated => format!(
                                    "   (string key of `{base}`, not of `{owner}`, which declares this member: {role} — `{base}` neither is nor extends `{owner}` (its declarations followed by the server's definitions): another property; leave it)"
                                ),
                                crate::lsp::string_keys::KeyedTypeBase::Unchecked => format!(
                                    "   (string key of `{base}`, not of `{owner}`, which declares this member: {role} — whether `{base}` extends `{owner}` was not settled in time (or the server resolved no declaration of it): another property unless `{base}` is or inherits `{owner}`; check its declaration's `extends` and leave it otherwise)"
                                ),
                            }
                        }
                        _ => format!("   (string used as a property key: {role} — it likely names this property; no compiler error flags it where the base is `any`)"),
                    };
                    if label.is_empty() {
                        // Renamed: listed with the keys runbound renamed, not among those left.
                        continue;
                    }
                    if keys_naming_member.len() > type_keys_before {
                        keys_first.insert((hit.path.clone(), hit.line));
                        labels.insert((hit.path.clone(), hit.line), label);
                    } else if !keys_first.contains(&(hit.path.clone(), hit.line)) {
                        labels.insert((hit.path.clone(), hit.line), label);
                    }
                }
                continue;
            }
            if *kind != OccurrenceKind::Comment {
                continue;
            }
            // A rustdoc intra-doc link `[Owner::OLD]` to the renamed trait item: rustdoc reports it
            // unresolved after the rename (trial59 M2: base64's `[Engine::encode]`, 5 broken links,
            // had been called "doc comment of another `encode`").
            if let Some(owner) = renamed_trait.as_deref() {
                let before = &hit.line_text[..hit.byte_start];
                let in_link =
                    before.ends_with(&format!("{owner}::")) && before.rfind('[').is_some_and(|open| !before[open..].contains(']'));
                if in_link {
                    labels.insert(
                        (hit.path.clone(), hit.line),
                        format!("   (an intra-doc link to the renamed `{owner}::{old_name}`: rustdoc reports it unresolved until it names `{owner}::{new_name}` — edit it)"),
                    );
                    continue;
                }
            }
            let Some(declaration) = documented_declaration(&reader, &hit.path, hit.line, old_name) else { continue };
            // A qualified mention (`See Route.Path().`) names its owner's member: another
            // owner's than the documented declaration's is no mention of that declaration
            // (trial153 M1: gorilla/mux's `// See Route.Path().` above `Router.Path` was called
            // "not this symbol" under a rename of `Route.Path`).
            if qualified_by_another_owner(hit, &declaration.line_text) {
                continue;
            }
            if !is_covered(&edits, &declaration) {
                labels.insert(
                    (hit.path.clone(), hit.line),
                    format!(
                        "   (doc comment of another `{old_name}`, declared at {}:{}, which this rename leaves: not this symbol)",
                        shown(&hit.path),
                        declaration.line + 1
                    ),
                );
            }
        }
        if !type_keys_renamed.is_empty() {
            let renamed_places: HashSet<(PathBuf, u32, usize)> =
                type_keys_renamed.iter().map(|(hit, _)| (hit.path.clone(), hit.line, hit.byte_start)).collect();
            in_text.retain(|(hit, _)| !renamed_places.contains(&(hit.path.clone(), hit.line, hit.byte_start)));
            report.push(format!(
                "  runbound renamed {} in types that {} the renamed member — a key of the type that declares it, or of a type built on it ({} renames no string with a member; left, tsc would reject the key, or `Omit` would stop leaving the member out):",
                crate::render::plural(type_keys_renamed.len(), "string key"),
                crate::render::one_or_many(type_keys_renamed.len(), "names", "name"),
                server.id()
            ));
            let why: HashMap<(PathBuf, u32), String> =
                type_keys_renamed.iter().map(|(hit, why)| ((hit.path.clone(), hit.line), why.clone())).collect();
            let lines = one_per_line(type_keys_renamed.iter().map(|(hit, _)| hit), |hit| hit);
            list_lines(
                &mut report,
                &lines,
                LISTED,
                |hit| hit,
                &shown,
                old_name.len(),
                |hit| why.get(&(hit.path.clone(), hit.line)).cloned().unwrap_or_default(),
            );
        }
        let comments = in_text.iter().filter(|(_, kind)| *kind == OccurrenceKind::Comment).count();
        if !in_text.is_empty() {
            report.push(format!(
                "  left unrenamed: {comments} in comments and {} in strings (by the syntax tree) — edit them yourself if they name this symbol:",
                in_text.len() - comments
            ));
        }
        // Strings right around the renamed declaration first, each said: a decorator or a call
        // next to it that names it by a string (funcy's `@once_per('n')` above `def call(n, …)`,
        // trial108 M1: the one string that mattered was past the listed 15, behind `\n` escapes).
        // The declaration is where the server's definition leads, not where the rename was asked
        // (trial169 M6: a printf label beside a use in another package was listed first as "next
        // to the renamed declaration").
        let origin_canonical = std::fs::canonicalize(origin).unwrap_or_else(|_| origin.to_path_buf());
        let declarations: Vec<(PathBuf, u32)> = if origin_targets.is_empty() {
            vec![(origin_canonical.clone(), line)]
        } else {
            origin_targets.iter().map(|(path, target_line, _)| (path.clone(), *target_line)).collect()
        };
        let near_declaration = |hit: &WordHit| {
            let hit_path = std::fs::canonicalize(&hit.path).unwrap_or_else(|_| hit.path.clone());
            declarations.iter().any(|(path, line)| hit_path == *path && hit.line + 3 >= *line && hit.line <= *line + 1)
        };
        let beside_it = if path_is_python(origin) { "a decorator or a call beside it" } else { "a call beside it" };
        let mut in_text_listed: Vec<&(WordHit, OccurrenceKind)> = in_text.iter().collect();
        // The keys the warnings name lead the list, before comments (trial145 F3).
        in_text_listed.sort_by_key(|(hit, kind)| {
            (!keys_first.contains(&(hit.path.clone(), hit.line)), !(*kind == OccurrenceKind::Text && near_declaration(hit)))
        });
        for (hit, kind) in &in_text_listed {
            let quoted = [format!("'{old_name}'"), format!("\"{old_name}\"")];
            if *kind == OccurrenceKind::Text
                && near_declaration(hit)
                && hit.line_text.trim_start().starts_with('@')
                && quoted.iter().any(|quoted| hit.line_text.contains(quoted.as_str()))
            {
                decorator_strings.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
            }
            if *kind == OccurrenceKind::Text && near_declaration(hit) && !labels.contains_key(&(hit.path.clone(), hit.line)) {
                labels.insert(
                    (hit.path.clone(), hit.line),
                    format!("   (string next to the renamed declaration: {beside_it} may name it by this string — check it first)"),
                );
            }
        }
        // Go: a comment line of an Example's `// Output:` block is the output `go test`
        // compares, not prose: edited to the new name, the example fails unless what it prints
        // changes too (trial153 M2: gorilla/mux's `// Match: true …` under `Output:`, printed by
        // `fmt.Printf("Match: …")`, listed as a comment to edit).
        // Each test file's lines, read and split once.
        let mut go_lines: HashMap<PathBuf, Option<Vec<String>>> = HashMap::new();
        for (hit, kind) in &in_text_listed {
            if *kind != OccurrenceKind::Comment || !hit.path.to_string_lossy().ends_with("_test.go") {
                continue;
            }
            let lines = go_lines
                .entry(hit.path.clone())
                .or_insert_with(|| reader.read_to_string(&hit.path).ok().map(|text| text.lines().map(str::to_owned).collect()));
            if let Some(example) = lines.as_deref().and_then(|lines| go_example_output_comment(lines, hit.line as usize)) {
                labels.entry((hit.path.clone(), hit.line)).or_insert_with(|| {
                    format!(
                        "   (expected output of `{example}`, which go test compares: it changes only if what the example prints changes)"
                    )
                });
            }
        }
        let lines = one_per_line(in_text_listed.iter().copied(), |(hit, _)| hit);
        list_lines(
            &mut report,
            &lines,
            LISTED,
            |(hit, _)| hit,
            &shown,
            old_name.len(),
            |(hit, kind)| {
                labels
                    .get(&(hit.path.clone(), hit.line))
                    .cloned()
                    .unwrap_or_else(|| format!("   ({})", if *kind == OccurrenceKind::Comment { "comment" } else { "string" }))
            },
        );
    }
    // Rust occurrences rust-analyzer does not analyze (behind a `#[cfg]` that is off, inside a
    // `macro_rules!` template): said apart, each with its reason and next step (smallvec 1.16.6:
    // they were "(no definition) … another symbol with this name").
    let mut unanalyzed: Vec<(WordHit, crate::lsp::inactive::RustUnresolvedPlace)> = Vec::new();
    elsewhere.retain(|(hit, target)| {
        if target.is_some() || hit.path.extension().and_then(|ext| ext.to_str()) != Some("rs") {
            return true;
        }
        let place = |path: &Path, line0: u32| format!("{}:{}", shown(path), line0 + 1);
        match crate::lsp::inactive::rust_unresolved_place(workspace_root, &hit.path, hit.line, &place) {
            Some(found) => {
                unanalyzed.push((hit.clone(), found));
                false
            }
            None => true,
        }
    });
    // A bare occurrence behind a `#[cfg]` that is off, in the block of a `use` this rename renamed
    // (`use crate::windows::WindowsPrefix;` then `WindowsPrefix::Disk` inside `assert_eq!`),
    // resolves through that `use`: it is the renamed symbol, renamed too (trial163 F1: typed-path's
    // `#[cfg(windows)]` test was left half-renamed, 6 uses behind the renamed `use`).
    let mut unanalyzed_through_use: Vec<(WordHit, u32)> = Vec::new();
    if renames_declaration(&edits) && !export_name_only {
        let mut rest = Vec::new();
        for (hit, place) in std::mem::take(&mut unanalyzed) {
            let use_line = (!place.in_macro_template).then(|| reader.read_to_string(&hit.path).ok()).flatten().and_then(|text| {
                edits.get(&hit.path).and_then(|file_edits| rust_renamed_use_in_scope(&text, file_edits, &hit, old_name, new_name, encoding))
            });
            match use_line {
                Some(use_line) => {
                    let (start, end) = columns(&hit);
                    // Said with the occurrences below (an overlap would be one of them).
                    let _ = merge_edits(&mut edits, BTreeMap::from([(hit.path.clone(), vec![text_edit(hit.line, start, end, new_name)])]));
                    unanalyzed_through_use.push((hit, use_line));
                }
                None => rest.push((hit, place)),
            }
        }
        unanalyzed = rest;
    }
    let mut write_check_blind_spots: Vec<String> = Vec::new();
    // Go: occurrences whose definition is a method tied to the renamed one by an interface —
    // an implementation of the renamed interface method, or the interface method the renamed
    // concrete method implements (gopls's `implementation` at the renamed method lists them).
    // gopls may rename only the one method; those left are no other symbol: the types stop
    // implementing the interface, and the build breaks where one is used as it.
    // Whether the renamed symbol is an interface's method: its declaration line is a method
    // spec `Name(…) …` (a type's line, `type Text struct {`, is no method: trial131 F1, gobwas/
    // glob's struct `match.Text` renamed, "the build breaks after this rename" for the standard
    // library interfaces gopls lists as the type's implementations, and it built).
    let declaration_line = origin_targets.iter().next().and_then(|(path, target_line, _)| {
        reader.read_to_string(path).ok().and_then(|text| text.lines().nth(*target_line as usize).map(str::to_owned))
    });
    let renamed_is_interface_method = declaration_line
        .as_deref()
        .is_some_and(|text| text.trim_start().strip_prefix(old_name).is_some_and(|after| after.trim_start().starts_with('(')));
    // Tied types that embed the interface (see the report below): said as warnings.
    let mut embedding_warnings: Vec<String> = Vec::new();
    // Go, an interface method: its implementations outside the workspace (the standard
    // library's `*os.File.Readdirnames`), which no rename here can follow.
    let mut outside_implementations: Vec<Target> = Vec::new();
    let mut tied_methods: Vec<(WordHit, Target)> = Vec::new();
    let mut tied_method_calls: Vec<(WordHit, Target)> = Vec::new();
    // Go, a concrete method: the interface methods it implements that the edit leaves (a
    // standard library interface cannot be renamed), and the calls through them.
    let mut implemented_interfaces: Vec<Target> = Vec::new();
    // Go, a concrete method: interfaces of the roots this one depends on that its type
    // satisfies by method names, which gopls did not list.
    let mut implemented_by_names: Vec<Target> = Vec::new();
    let mut interface_calls: Vec<(WordHit, Target)> = Vec::new();
    // Go, a concrete method: anonymous interface types that name a method of the old name.
    let mut anonymous_interfaces: Vec<String> = Vec::new();
    // Go, a concrete method: named interfaces of the workspace it implemented that a type
    // assertion or switch uses (recheck47 N2).
    let mut asserted_interfaces: Vec<String> = Vec::new();
    let origin_is_go = origin.extension().is_some_and(|ext| ext == "go");
    let renamed_is_go_method = origin_is_go && declaration_line.as_deref().is_some_and(|text| text.trim_start().starts_with("func ("));
    if origin_is_go && (renamed_is_go_method || elsewhere.iter().any(|(_, target)| target.is_some())) && Instant::now() < deadline {
        let tied = implementation_targets(server, origin, line, character, deadline);
        let tied_lines: HashSet<(&PathBuf, u32)> = tied.iter().map(|(path, target_line, _)| (path, *target_line)).collect();
        if renamed_is_go_method {
            // The type stops implementing those interfaces: where it is used as one in code, the
            // build breaks (the write check shows it); where it is used dynamically (fmt's
            // verbs, encoding/json, a type assertion) the behaviour changes with no error
            // (trial44 F2: uuid's `MarshalText` renamed, UUIDs marshal as byte arrays; F6: the
            // calls of `fmt.Stringer.String` on other types were said to break the build).
            implemented_interfaces = tied.iter().filter(|target| !renamed_by(&edits, target)).cloned().collect();
            // The interfaces of the project roots this root depends on by path, which the
            // type satisfies by its methods' names: gopls in a consumer root does not report
            // every one (trial135 F1: reflectwalk's `EnterExitWalker`, whose methods take the
            // library's `Location`, was not among `Counter`'s implementations; renaming
            // `Counter.Enter` had no warning, and `Walk` silently stopped calling it).
            // The declaration's package is read (the rename may be asked at a call elsewhere).
            let declaration_file = origin_targets.iter().next().map_or(origin, |(path, _, _)| path.as_path());
            if let Some(receiver) = declaration_line.as_deref().and_then(crate::lsp::rename_public_api::go_method_receiver) {
                let methods = go_method_names_of_type(&reader, declaration_file, &receiver);
                let dependency_dirs =
                    crate::lsp::sibling_roots::dependency_dirs_scan(workspace_root, server.id(), server.root()).found.roots;
                for found in go_interfaces_satisfied_by_names(&reader, &dependency_dirs, &methods, old_name, deadline) {
                    let known = implemented_interfaces.iter().chain(tied.iter()).any(|(path, target_line, _)| {
                        std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()) == found.0 && *target_line == found.1
                    });
                    if !known && !renamed_by(&edits, &found) {
                        implemented_by_names.push(found);
                    }
                }
            }
            implemented_interfaces.sort();
            // A named interface of the workspace (a function-local `type causer interface {
            // Cause() error }` too) that a type assertion or switch in its package uses stops
            // matching silently, as an anonymous one does (recheck47 N2: pkg/errors' `Cause`).
            for (path, target_line, _) in implemented_interfaces.iter().filter(|(path, _, _)| path.starts_with(workspace_root)) {
                if let Some(found) = go_interface_asserted(workspace_root, &reader, path, *target_line) {
                    asserted_interfaces.push(format!("`{}` ({}:{}), asserted at {}", found.0, shown(path), target_line + 1, found.1));
                }
            }
            elsewhere.retain(|(hit, target)| match target {
                Some(found @ (path, target_line, _)) if tied_lines.contains(&(path, *target_line)) => {
                    interface_calls.push((hit.clone(), found.clone()));
                    false
                }
                _ => true,
            });
            // Anonymous interfaces that name the method (`x.(interface{ StackTrace() StackTrace })`):
            // no `implementation` lists them, and a type assertion on one silently stops matching
            // (trial60 M4: pkg/errors' TestStackTrace failed after "no new errors").
            for (hit, _) in &elsewhere {
                if hit.path.extension().is_none_or(|ext| ext != "go") {
                    continue;
                }
                let Ok(text) = reader.read_to_string(&hit.path) else { continue };
                let lines: Vec<&str> = text.lines().collect();
                if go_anonymous_interface_method(&lines, hit.line as usize, hit.byte_start, old_name) {
                    anonymous_interfaces.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                }
            }
        } else {
            if renamed_is_interface_method {
                outside_implementations = tied.iter().filter(|(path, _, _)| !path.starts_with(workspace_root)).cloned().collect();
                outside_implementations.sort();
            }
            // The tied methods' own declarations; a call of one (on its concrete type) keeps
            // compiling with it (trial58 M4: golang-lru's 2 test calls of `RemoveOldest` were
            // counted among "4 methods").
            elsewhere.retain(|(hit, target)| match target {
                Some(found @ (path, target_line, _)) if tied_lines.contains(&(path, *target_line)) => {
                    if *path == hit.path && *target_line == hit.line {
                        tied_methods.push((hit.clone(), found.clone()));
                    } else {
                        tied_method_calls.push((hit.clone(), found.clone()));
                    }
                    false
                }
                _ => true,
            });
        }
    }
    // Calls listed under a heading, each with the definition it reaches.
    let list_calls = |report: &mut Vec<String>, heading: String, calls: &[(WordHit, Target)]| {
        if calls.is_empty() {
            return;
        }
        report.push(heading);
        let lines = one_per_line(calls.iter(), |(hit, _)| hit);
        list_lines(
            report,
            &lines,
            LISTED,
            |(hit, _)| hit,
            &shown,
            old_name.len(),
            |(_, (path, target_line, _))| format!("   (definition: {}:{})", shown(path), target_line + 1),
        );
    };
    list_calls(
        &mut report,
        format!(
            "  left unrenamed: {} of those methods on their own types, which keep the old name with them (they compile while the methods keep it; rename them with the methods):",
            crate::render::plural(tied_method_calls.len(), "call")
        ),
        &tied_method_calls,
    );
    list_calls(
        &mut report,
        format!(
            "  left unrenamed, rightly: {} through the interface method the renamed method implemented (another type's method at run time; the renamed type no longer reaches it):",
            crate::render::plural(interface_calls.len(), "call")
        ),
        &interface_calls,
    );
    if !tied_methods.is_empty() {
        let implementations = renamed_is_interface_method;
        // gopls renames no implementation alone: it refuses a rename that would break the
        // interface, and renames nothing in a package with errors (trial61 M1: "lsp_rename at
        // each declaration" failed 18 times on gods' `Container.Size`). A structural rewrite of
        // the declarations and the calls does it.
        // An implementation that also implements another interface's method of the old name
        // breaks that interface when renamed (trial63 M5: golang-set's `threadSafeSet.Add`
        // implements the renamed `Adder.Add` and the public `Set.Add`; following the remedy gave
        // 54 errors): said, with those interface methods.
        let mut other_interfaces: Vec<String> = Vec::new();
        if implementations && server.id() == "gopls" {
            for (hit, _) in tied_methods.iter().take(50) {
                if Instant::now() >= deadline {
                    break;
                }
                let character = encoding.column_from_byte(&hit.line_text, hit.byte_start);
                for (path, target_line, _) in implementation_targets(server, &hit.path, hit.line, character, deadline) {
                    if origin_targets.iter().any(|(origin_path, origin_line, _)| *origin_path == path && *origin_line == target_line) {
                        continue;
                    }
                    let place = format!("{}:{}", shown(&path), target_line + 1);
                    let named = match go_interface_method_name(workspace_root, &path, target_line) {
                        Some(name) => format!("`{name}` ({place})"),
                        None => format!("the interface method at {place}"),
                    };
                    if !other_interfaces.contains(&named) {
                        other_interfaces.push(named);
                    }
                }
            }
        }
        let how = match declaration_line.as_deref().and_then(|line| go_interface_method_rewrites(line, old_name, new_name)) {
            Some(_) if !other_interfaces.is_empty() => format!(
                "but {} also {} {}, which this rename leaves: renaming {} breaks {} the same way — rename {} too (and {} other implementations), or rename this one back",
                if tied_methods.len() == 1 { "it" } else { "they" },
                if tied_methods.len() == 1 { "implements" } else { "implement" },
                other_interfaces.join(", "),
                if tied_methods.len() == 1 { "it" } else { "them" },
                if other_interfaces.len() == 1 { "that interface" } else { "those interfaces" },
                if other_interfaces.len() == 1 { "that interface method" } else { "those interface methods" },
                if other_interfaces.len() == 1 { "its" } else { "their" },
            ),
            // gopls renames an implementation alone unless its own package uses the type as the
            // interface, or a package with errors holds it (trial157 M1: golang-lru's
            // `(*LRU).Get` was renamed alone, and the advice called it impossible): asked now,
            // each one it accepts is named as an `lsp_rename` call; the structural recipe is the
            // fallback, with the other types' methods it would match too named.
            rewrites if implementations && server.id() == "gopls" => {
                let encoding = server.position_encoding();
                let to_rename: Vec<crate::lsp::go_implementation_renames::ImplementationToRename> = tied_methods
                    .iter()
                    .map(|(hit, _)| crate::lsp::go_implementation_renames::ImplementationToRename {
                        path: hit.path.clone(),
                        shown: shown(&hit.path),
                        line0: hit.line,
                        character: encoding.column_from_byte(&hit.line_text, hit.byte_start),
                        described: match crate::lsp::rename_public_api::go_method_receiver(&hit.line_text) {
                            Some(receiver) => format!("{receiver}.{old_name}"),
                            None => old_name.to_owned(),
                        },
                    })
                    .collect();
                let answers =
                    crate::lsp::go_implementation_renames::probe_implementation_renames(server, &to_rename, new_name, deadline);
                let interface_results = declaration_line.as_deref().and_then(|line| go_method_results(line, old_name));
                let same_shaped_others: Vec<String> = elsewhere
                    .iter()
                    .filter(|(hit, target)| {
                        target.as_ref().is_some_and(|(path, target_line, _)| *path == hit.path && *target_line == hit.line)
                            && interface_results.is_some()
                            && go_method_declaration_results(&hit.line_text, old_name) == interface_results
                    })
                    .map(|(hit, _)| match crate::lsp::rename_public_api::go_method_receiver(&hit.line_text) {
                        Some(receiver) => format!("`{receiver}.{old_name}` ({}:{})", shown(&hit.path), hit.line + 1),
                        None => format!("{}:{}", shown(&hit.path), hit.line + 1),
                    })
                    .collect();
                let rewrites = rewrites.map(|rewrites| with_same_shaped_others(&rewrites, old_name, &same_shaped_others));
                crate::lsp::go_implementation_renames::implementation_rename_advice(
                    &to_rename,
                    &answers,
                    old_name,
                    new_name,
                    rewrites.as_deref(),
                )
            }
            _ => format!(
                "rename {} to `{new_name}` too (lsp_rename at each declaration), or rename this one back",
                if implementations { "them" } else { "the interface method (and its other implementations)" }
            ),
        };
        // A type that embeds the interface keeps implementing it through the embedded field's
        // promoted method: no build break, and its own method silently stops being called
        // through the interface (trial86 F1: backoff's `backOffContext` embeds `BackOff`; with
        // the other implementations renamed, the build passed and a cancelled context no longer
        // stopped the backoff).
        let interface_definition = origin_targets.iter().min().cloned();
        let interface_name = interface_definition
            .as_ref()
            .and_then(|(path, target_line, _)| go_interface_method_name(workspace_root, path, *target_line))
            .and_then(|name| name.split('.').nth(1).map(str::to_owned));
        // Where the interface is declared: an embedded `fs.File` is io/fs's, not this `File`
        // (trial110 F4: afero's `fromIOFSFile` embeds `fs.File`, and was said to keep
        // implementing `afero.File` with "NO build error", while the build broke).
        let interface_package: Option<(PathBuf, String)> = interface_definition.as_ref().and_then(|(path, _, _)| {
            let text = reader.read_to_string(path).ok()?;
            let package = text.lines().find_map(|line| line.trim().strip_prefix("package ").map(|name| name.trim().to_owned()))?;
            Some((path.parent()?.to_path_buf(), package))
        });
        // Each package directory is scanned once for the struct types that embed it.
        let mut embedding_types: HashMap<PathBuf, HashSet<String>> = HashMap::new();
        embedding_warnings = match (&interface_name, implementations) {
            (Some(interface), true) => tied_methods
                .iter()
                .filter_map(|(hit, _)| {
                    let receiver = crate::lsp::rename_public_api::go_method_receiver(&hit.line_text)?;
                    let directory = hit.path.parent()?;
                    let embedding = embedding_types
                        .entry(directory.to_path_buf())
                        .or_insert_with(|| go_types_embedding(workspace_root, &reader, directory, interface, interface_package.as_ref()));
                    embedding.contains(&receiver).then(|| {
                        format!(
                            "`{receiver}` ({}:{}) embeds `{interface}`: after this rename it still implements `{interface}` through the embedded field's promoted `{new_name}`, so NO build error shows it, and its own `{old_name}` is no longer called through the interface — behaviour changes silently; rename it to `{new_name}` too",
                            shown(&hit.path),
                            hit.line + 1
                        )
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        report.push(format!(
            "  left unrenamed: {} of {} — {} did not rename {}: {}, so the build breaks wherever one is used as that interface (except a type that embeds the interface, said above), and a type assertion on it (`x.(Iface)`) stops matching at run time with no error (gopls and go vet see none); {how}:",
            crate::render::plural(tied_methods.len(), "occurrence"),
            if implementations {
                "methods that implement the renamed interface method (the server's `implementation` at it lists them)"
            } else {
                "the interface method that the renamed method implements (the server's `implementation` at it lists it)"
            },
            server.id(),
            if tied_methods.len() == 1 { "it" } else { "them" },
            if implementations {
                "their types no longer implement the interface"
            } else {
                "its type no longer implements that interface"
            },
        ));
        let lines = one_per_line(tied_methods.iter(), |(hit, _)| hit);
        list_lines(
            &mut report,
            &lines,
            LISTED,
            |(hit, _)| hit,
            &shown,
            old_name.len(),
            |(_, (path, target_line, _))| {
                format!(
                    "   ({}: {}:{})",
                    if implementations { "definition, an implementation" } else { "definition, the interface method" },
                    shown(path),
                    target_line + 1
                )
            },
        );
    }
    if !unanalyzed_through_use.is_empty() {
        let mut uses: Vec<String> =
            unanalyzed_through_use.iter().map(|(hit, use_line)| format!("{}:{}", shown(&hit.path), use_line + 1)).collect();
        uses.dedup();
        report.push(format!(
            "  runbound renamed {} behind a `#[cfg]` that is off ({} does not analyze that code) that {} through a `use` this rename renamed in the same block ({}); a build with that cfg compiles them only so:",
            crate::render::plural(unanalyzed_through_use.len(), "occurrence"),
            server.id(),
            crate::render::one_or_many(unanalyzed_through_use.len(), "resolves", "resolve"),
            uses.join(", "),
        ));
        let lines = one_per_line(unanalyzed_through_use.iter(), |(hit, _)| hit);
        list_lines(&mut report, &lines, LISTED, |(hit, _)| hit, &shown, old_name.len(), |_| String::new());
    }
    // The renamed member, for telling its own uses behind an off `#[cfg]` (trial167 M2) from
    // other symbols of the same name there (M3).
    let renamed_member = rust_member_of_targets(workspace_root, &origin_targets, old_name, encoding);
    let cfg_off_same_member_uses = report_unanalyzed(
        &mut report,
        &mut write_check_blind_spots,
        &unanalyzed,
        server.id(),
        old_name,
        new_name,
        renamed_member.as_ref(),
        workspace_root,
        &shown,
    );
    // Go package clauses (`package lru`) name the package, which no other rename changes: never
    // the renamed symbol, so they are no occurrence to check (trial157 M4: renaming the field
    // `Cache.lru` listed 7 `package lru` lines under "check them").
    let mut package_clauses: Vec<WordHit> = Vec::new();
    elsewhere.retain(|(hit, _)| {
        let clause = path_is_go(&hit.path) && go_package_clause_name_at(&hit.line_text, hit.byte_start);
        if clause {
            package_clauses.push(hit.clone());
        }
        !clause
    });
    if let Some(first) = package_clauses.first() {
        report.push(format!(
            "  left unrenamed, rightly: {} (`{}`): the package's own name, never this symbol",
            crate::render::plural(package_clauses.len(), "package clause"),
            first.line_text.split("//").next().unwrap_or("").trim(),
        ));
    }
    // Occurrences whose definition the server resolved to a local variable or parameter of the
    // same name (`for _, testCase := range …` beside a renamed type `testCase`): another symbol,
    // each with its own binding — counted, not listed to check (trial165 M5: 279 and 310 such
    // lines buried the answer). Not for a renamed local, whose other occurrences are said above.
    let mut local_bindings_elsewhere: Vec<WordHit> = Vec::new();
    if local_scope.is_none() {
        let mut texts: HashMap<PathBuf, Option<String>> = HashMap::new();
        let mut is_local: HashMap<Target, bool> = HashMap::new();
        elsewhere.retain(|(hit, target)| {
            let Some(target) = target else { return true };
            // A JavaScript/TypeScript destructuring (`const { foo } = obj`) binds a local that
            // reads a property of the same name — maybe the renamed one, on an untyped object:
            // kept listed (review48 M2).
            if crate::lsp::syntax::is_typescript_family(&hit.path)
                && (destructures_at(&hit.line_text, hit.byte_start)
                    || shorthand_property_at(&hit.line_text, hit.byte_start, old_name.len()))
            {
                return true;
            }
            let local = *is_local.entry(target.clone()).or_insert_with(|| {
                let (path, target_line, target_character) = target;
                let text = texts.entry(path.clone()).or_insert_with(|| reader.read_to_string(path).ok());
                let Some(line_text) = text.as_deref().and_then(|text| text.lines().nth(*target_line as usize)) else { return false };
                let byte = encoding.byte_from_column(line_text, *target_character);
                crate::lsp::rename_local_scope::local_binding_scope(&reader, path, *target_line, byte).is_some()
            });
            if local {
                local_bindings_elsewhere.push(hit.clone());
            }
            !local
        });
    }
    // Occurrences whose definition the server resolved to another declaration that cannot be the
    // renamed symbol nor be renamed with it: a parameter of another Python function (named by
    // keyword arguments at its own calls; not one of a function of the renamed parameter's name,
    // which may be an override), and a declaration outside the workspace (typeshed, the standard
    // library, installed packages): counted with their files, not listed to check (trial166 M4:
    // renaming pluggy's `register(name=)` listed 96 to "check", among them setuptools' `setup(name=…)`
    // in typeshed and `load_recipe(name)`'s uses; M3: `HookImpl.__init__`'s parameter beside the
    // renamed attribute `self.plugin_name`). Other same-named declarations in the workspace stay
    // listed: a subclass's override, a structurally typed member may be tied to the renamed one.
    // Python, a constructor's parameter: `old=` keywords on calls of a subclass whose `__init__`
    // takes `**kwargs: Unpack[TD]` resolve to the key `TD.old`, not to the parameter they reach
    // at run time through `super().__init__(**kwargs)` (trial177 F1: marshmallow's
    // `Field.__init__(data_key=…)` renamed left 10 `fields.Integer(data_key=…)` among the
    // "rightly" left, written, 9 tests failed). Taken out of the "rightly" count: a WARNING, and
    // they stage the rename.
    let mut typed_dict_keywords_left: Vec<crate::lsp::python_typed_dict_keys::TypedDictKeywordsLeft> = Vec::new();
    if let Some(crate::lsp::python_doctests::RenamedPythonSymbol::Parameter { function, callables }) = python_symbol() {
        if matches!(function.as_str(), "__init__" | "__new__") && local_scope.is_none() {
            let mut keyword_callees = crate::lsp::rename_pytest_fixtures::KeywordCallees::default();
            let mut keys: HashMap<(PathBuf, u32), Option<crate::lsp::python_typed_dict_keys::UnpackedTypedDictKey>> = HashMap::new();
            elsewhere.retain(|(hit, target)| {
                let Some((key_path, key_line, _)) = target else { return true };
                if !path_is_python(&hit.path) || !path_is_python(key_path) {
                    return true;
                }
                let Some(callee) = keyword_callees.callee_at(&reader, &hit.path, old_name, hit.line, hit.byte_start) else {
                    return true;
                };
                let last = callee.rsplit('.').next().unwrap_or(callee);
                if !last.starts_with(|first: char| first.is_uppercase()) {
                    return true;
                }
                let key = keys
                    .entry((key_path.clone(), *key_line))
                    .or_insert_with(|| {
                        let text = reader.read_to_string(key_path).ok()?;
                        crate::lsp::python_typed_dict_keys::unpacked_typed_dict_key(key_path, &text, *key_line, old_name, &callables)
                    })
                    .clone();
                let Some(key) = key else { return true };
                let place = format!("{}:{}", shown(&hit.path), hit.line + 1);
                let file = shown(&key.path);
                match typed_dict_keywords_left.iter_mut().find(|left| left.file == file && left.line == key.line0 + 1) {
                    Some(left) => left.uses.push(place),
                    None => typed_dict_keywords_left.push(crate::lsp::python_typed_dict_keys::TypedDictKeywordsLeft {
                        class: key.class,
                        file,
                        line: key.line0 + 1,
                        unpacking_classes: key.unpacking_classes,
                        uses: vec![place],
                    }),
                }
                false
            });
        }
    }
    let mut other_declarations_elsewhere: Vec<WordHit> = Vec::new();
    let mut renamed_is_python_parameter = false;
    if local_scope.is_none() {
        let origin_parameter_function = origin_targets.iter().min().and_then(|(path, target_line, target_character)| {
            let line_text = reader.read_to_string(path).ok()?.lines().nth(*target_line as usize)?.to_owned();
            let byte = encoding.byte_from_column(&line_text, *target_character);
            crate::lsp::rename_local_scope::python_parameter_function(&reader, path, *target_line, byte)
        });
        renamed_is_python_parameter = origin_parameter_function.is_some();
        // The workspace as given, as the server names it, and canonical: a target under none of
        // them is outside.
        let canonical_workspace = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
        let in_workspace = |path: &Path| {
            path.starts_with(workspace_root) || path.starts_with(server.workspace_root()) || path.starts_with(&canonical_workspace)
        };
        let mut texts: HashMap<PathBuf, Option<String>> = HashMap::new();
        let mut is_other: HashMap<Target, bool> = HashMap::new();
        elsewhere.retain(|(hit, target)| {
            let Some(target) = target else { return true };
            let other = *is_other.entry(target.clone()).or_insert_with(|| {
                let (path, target_line, target_character) = target;
                if !in_workspace(path) {
                    return true;
                }
                if !path_is_python(path) {
                    return false;
                }
                let text = texts.entry(path.clone()).or_insert_with(|| reader.read_to_string(path).ok());
                let Some(line_text) = text.as_deref().and_then(|text| text.lines().nth(*target_line as usize)) else { return false };
                let byte = encoding.byte_from_column(line_text, *target_character);
                match crate::lsp::rename_local_scope::python_parameter_function(&reader, path, *target_line, byte) {
                    Some(function) => origin_parameter_function.as_ref() != Some(&function),
                    // A renamed parameter is tied only to the same parameter of functions of its
                    // function's name (overrides): any other declaration is another symbol
                    // (pluggy: `HookCaller.name` beside `register(name=)`).
                    None => origin_parameter_function.is_some(),
                }
            });
            if other {
                other_declarations_elsewhere.push(hit.clone());
            }
            !other
        });
    }
    // `N occurrences in M files (a.py, b.py and K more)`, for the occurrences left rightly.
    let counted_in_files = |hits: &[WordHit]| {
        let files: std::collections::BTreeSet<&Path> = hits.iter().map(|hit| hit.path.as_path()).collect();
        let named: Vec<String> = files.iter().take(5).map(|path| shown(path)).collect();
        format!(
            "{} in {} ({}{})",
            crate::render::plural(hits.len(), "occurrence"),
            crate::render::plural(files.len(), "file"),
            named.join(", "),
            if files.len() > named.len() { format!(" and {} more", files.len() - named.len()) } else { String::new() },
        )
    };
    if !other_declarations_elsewhere.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} whose definition {} resolves to another declaration not tied to the renamed one — a parameter of another function, {}or one outside the workspace (typeshed, the standard library, an installed package) — another symbol, not listed",
            counted_in_files(&other_declarations_elsewhere),
            server.id(),
            if renamed_is_python_parameter { "any other declaration (the renamed symbol is a parameter: only the same parameter of an override is tied to it), " } else { "" },
        ));
    }
    if !local_bindings_elsewhere.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} whose definition {} resolves to a local variable or parameter named `{old_name}` (another symbol with its own binding, not listed)",
            counted_in_files(&local_bindings_elsewhere),
            server.id(),
        ));
    }
    // Python: a renamed member's attribute uses (`.name`) in test files pytest collects where the
    // server gives no definition — an object whose type it cannot tell, such as a class attribute
    // a subclass sets (`PeekableMixinTests.cls = None`, `PeekableTests.cls = mi.peekable`): if it
    // is this class, the tests fail (trial148 M1: `peekable.peek` renamed, 2 tests failed with
    // AttributeError, and those lines sat among other symbols' under "check them").
    // The same in the project's own code (trial150 F2, F3: tomlkit's `Trivia.comment_ws` and
    // `Key.sep` renamed, `_render_simple_item(self, key, item)` reads `item.trivia.comment_ws`
    // and `key.sep` on untyped parameters: 424 of 859 tests failed with AttributeError, and
    // those lines sat in the "check them" list with no WARNING).
    let (untyped_test_uses, untyped_code_uses): (Vec<&WordHit>, Vec<&WordHit>) = {
        let unresolved_python = |(hit, target): &&(WordHit, Option<Target>)| target.is_none() && path_is_python(&hit.path);
        if elsewhere.iter().any(|entry| unresolved_python(&entry))
            && matches!(python_symbol(), Some(crate::lsp::python_doctests::RenamedPythonSymbol::Member { .. }))
        {
            let mut collected: HashMap<PathBuf, bool> = HashMap::new();
            elsewhere
                .iter()
                .filter(unresolved_python)
                .filter(|(hit, _)| hit.line_text.get(..hit.byte_start).is_some_and(|before| before.trim_end().ends_with('.')))
                .map(|(hit, _)| hit)
                .partition(|hit| {
                    *collected.entry(hit.path.clone()).or_insert_with(|| {
                        crate::lsp::rename_test_discovery::pytest_collects_file(server.workspace_root(), server.root(), &hit.path)
                    })
                })
        } else {
            (Vec::new(), Vec::new())
        }
    };
    let is_untyped_attribute_use = |hit: &WordHit| {
        untyped_test_uses
            .iter()
            .chain(&untyped_code_uses)
            .any(|other| other.path == hit.path && other.line == hit.line && other.byte_start == hit.byte_start)
    };
    only_macro_call.retain(|(path, line0, character, _, _)| {
        elsewhere.iter().any(|(hit, _)| hit.path == *path && hit.line == *line0 && columns(hit).0 == *character)
    });
    if let Some(note) = only_macro_call_note(server, &only_macro_call, old_name, "not renamed", &shown) {
        report.push(format!("  {}", note.trim_start_matches("note: ")));
    }
    if !elsewhere.is_empty() {
        report.push(format!(
            "  left unrenamed: {} occurrence{} in code whose definition leads elsewhere or nowhere (another symbol with this name, code the server cannot resolve) — check them{}:",
            elsewhere.len(),
            if elsewhere.len() == 1 { "" } else { "s" },
            if elsewhere.iter().any(|(_, target)| target.is_none()) && elsewhere.iter().any(|(_, target)| target.is_some()) {
                " (those the server cannot resolve first)"
            } else {
                ""
            }
        ));
        // The occurrences the server cannot resolve first: they may be uses of the renamed
        // symbol it cannot type; those that lead to another definition are most often other
        // symbols (cachetools 5.5.0: 15 `getsizeof=None` parameters filled the listing and cut off
        // the 8 unresolved `cache.getsizeof(…)` calls that broke the tests, trial51 F2).
        // The attribute uses among them first (trial148 M1, trial150 F2).
        let mut ranked: Vec<&(WordHit, Option<Target>)> = elsewhere.iter().collect();
        ranked.sort_by_key(|(hit, target)| (target.is_some(), !is_untyped_attribute_use(hit)));
        let lines = one_per_line(ranked.iter().copied(), |(hit, _)| hit);
        list_lines(
            &mut report,
            &lines,
            LISTED,
            |(hit, _)| hit,
            &shown,
            old_name.len(),
            |(hit, target)| {
                match target {
                Some((path, target_line, _)) => crate::lsp::loading_lookups::definition_label(
                    server,
                    &hit.path,
                    hit.line,
                    columns(hit).0,
                    &format!("{}:{}", shown(path), target_line + 1),
                ),
                None => match go_file_outside_the_build(server, &hit.path) {
                    Some(constraint) => format!(
                        "   (in a file {} does not build: its build constraint {} excludes it under the toolchain, GOOS/GOARCH and tags in force, so the rename did not reach it and that build now breaks if this is the renamed symbol — {})",
                        server.id(),
                        constraint.summary(),
                        constraint.check_sentence()
                    ),
                    None => crate::lsp::loading_lookups::no_definition_label(server, &hit.path, hit.line, columns(hit).0),
                },
            }
            },
        );
    }
    let (own_maps, other_build_output): (Vec<_>, Vec<_>) =
        generated_declarations.iter().partition(|(_, reason)| *reason == BuildOutputReason::OwnMap);
    if !own_maps.is_empty() {
        let files: std::collections::BTreeSet<String> = own_maps.iter().map(|(hit, _)| shown(&hit.path)).collect();
        report.push(format!(
            "  left unrenamed: {} in {} tsc generated from the sources (a declaration map beside each: {}) — build output, not edited: the project's build regenerates them with the new name (until then they describe the old one, like the JavaScript built beside them):",
            crate::render::plural(own_maps.len(), "occurrence"),
            crate::render::plural(files.len(), "declaration file"),
            files.iter().take(3).cloned().collect::<Vec<_>>().join(", ") + if files.len() > 3 { ", …" } else { "" },
        ));
        let lines = one_per_line(own_maps.iter(), |(hit, _)| hit);
        list_lines(&mut report, &lines, LISTED, |(hit, _)| hit, &shown, old_name.len(), |_| "   (generated declaration file)".to_owned());
    }
    if !other_build_output.is_empty() {
        // The reasons, each once ("in build/legacy/, beside declaration files with maps").
        let mut reasons: Vec<String> = Vec::new();
        for (_, reason) in &other_build_output {
            let said = reason.describe(&shown);
            if !reasons.contains(&said) {
                reasons.push(said);
            }
        }
        let files: std::collections::BTreeSet<String> = other_build_output.iter().map(|(hit, _)| shown(&hit.path)).collect();
        report.push(format!(
            "  left unrenamed: {} in {} of the build output with no declaration map of their own ({}{}) — not edited and not renamed again from: the project's build regenerates them from the renamed sources; edited, a re-export there (`export {{ {old_name} }}`) would change the public name the package's consumers import, which no check of this project sees:",
            crate::render::plural(other_build_output.len(), "occurrence"),
            crate::render::plural(files.len(), "declaration file"),
            reasons.iter().take(3).cloned().collect::<Vec<_>>().join("; "),
            if reasons.len() > 3 { "; …" } else { "" },
        ));
        let lines = one_per_line(other_build_output.iter(), |(hit, _)| hit);
        list_lines(&mut report, &lines, LISTED, |(hit, _)| hit, &shown, old_name.len(), |_| "   (build output)".to_owned());
    }
    if !import_module_paths.is_empty() {
        report.push(format!(
            "  left unrenamed: {} in import module paths (`from .{old_name} import …`, `import a.{old_name}`) — they name a module `{old_name}`, not this symbol; nothing to do unless that module is renamed too:",
            crate::render::plural(import_module_paths.len(), "occurrence"),
        ));
        let lines = one_per_line(import_module_paths.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| "   (module path)".to_owned());
    }
    if let (Some(scope), false) = (&local_scope, outside_local_scope.is_empty()) {
        let functions = crate::lsp::rename_local_scope::enclosing_function_count(&reader, &outside_local_scope);
        report.push(crate::lsp::rename_local_scope::other_locals_line(
            old_name,
            scope,
            &shown(&scope.path),
            outside_local_scope.len(),
            functions,
        ));
    }
    if let (Some(scope), true) = (&local_scope, text_outside_local_scope > 0) {
        report.push(format!(
            "  not this binding: {} in comments and strings {}`{}` (lines {}–{} of {}), where {} is not visible — left as they are, not listed",
            crate::render::plural(text_outside_local_scope, "occurrence"),
            if scope.private_member { "without the `#` or outside class " } else { "outside " },
            scope.function,
            scope.first_line + 1,
            scope.last_line + 1,
            shown(&scope.path),
            scope.binding_shown(old_name),
        ));
    }
    let declaration_kept_lines = declaration_kept_listing(&declaration_kept, &shown, old_name);
    report.extend(declaration_kept_lines.iter().cloned());
    if !kept_by_export_alias.is_empty() {
        let aliases: Vec<String> = edits
            .iter()
            .flat_map(|(path, list)| {
                list.iter().filter(|edit| edit.new_text == format!("{new_name} as {old_name}")).map(move |edit| (path, edit))
            })
            .map(|(path, edit)| format!("{}:{}", shown(path), edit.range.start.line + 1))
            .collect();
        let through = if aliases.is_empty() { String::new() } else { format!(" (`{new_name} as {old_name}` at {})", aliases.join(", ")) };
        report.push(format!(
            "  left unrenamed: {} reference{} that {} the symbol through a re-export whose public name the server kept as `{old_name}`{through}; renaming {} would rename that export only in part, so {} the old name and {} working — rename the export too if the public name should change:",
            kept_by_export_alias.len(),
            if kept_by_export_alias.len() == 1 { "" } else { "s" },
            if kept_by_export_alias.len() == 1 { "reaches" } else { "reach" },
            if kept_by_export_alias.len() == 1 { "it" } else { "them" },
            if kept_by_export_alias.len() == 1 { "it keeps" } else { "they keep" },
            if kept_by_export_alias.len() == 1 { "keeps" } else { "keep" }
        ));
        let lines = one_per_line(kept_by_export_alias.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !destructured_property.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} of the property `{old_name}` that the renamed local was destructured from (the edit wrote `{old_name}: {new_name}`, keeping the property's name): another symbol — rename the property itself if its name should change:",
            crate::render::plural(destructured_property.len(), "occurrence")
        ));
        let lines = one_per_line(destructured_property.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    let mut through_export_warning: Option<String> = None;
    if !through_export.is_empty() || !through_globs.is_empty() {
        let place = |hit: &WordHit| format!("{}:{}", shown(&hit.path), hit.line + 1);
        let listed: Vec<String> = through_export.iter().take(6).map(place).collect();
        let more = |all: usize, shown: usize| if all > shown { format!(" and {} more", all - shown) } else { String::new() };
        // Only the paths that name the export's module itself need a change: those that reach it
        // through another module's import (`use super::Trait` below `use crate::Trait`) resolve
        // again once that import keeps the local name (recheck46 NEW-3: changing them too gave
        // E0432 at `super::Equiv`). With no direct path left to change (the server's edit
        // covered them), the plain advice stands (review47 M7).
        let indirect = through_export.len() - through_export_direct.len();
        let mut steps: Vec<String> = Vec::new();
        if !through_export.is_empty() && (indirect == 0 || through_export_direct.is_empty()) {
            steps.push(format!(
                "change {} to `{new_name}` (keeping the local name with `{new_name} as {old_name}` in a `use`)",
                if through_globs.is_empty() {
                    crate::render::one_or_many(through_export.len(), "it", "them").to_owned()
                } else {
                    format!("the {}", crate::render::plural(through_export.len(), "path"))
                }
            ));
        } else if !through_export.is_empty() {
            let direct: Vec<String> = through_export_direct.iter().take(6).map(place).collect();
            steps.push(format!(
                "change the {} that {} the export's module itself ({}{}) to `{new_name}` (keeping the local name with `{new_name} as {old_name}` in a `use`) — the {} other{} {} `{old_name}` only through those modules' imports and {} again once they keep the local name, with no change of {} own",
                crate::render::plural(through_export_direct.len(), "path"),
                crate::render::one_or_many(through_export_direct.len(), "names", "name"),
                direct.join(", "),
                more(through_export_direct.len(), direct.len()),
                indirect,
                if indirect == 1 { "" } else { "s" },
                crate::render::one_or_many(indirect, "reaches", "reach"),
                crate::render::one_or_many(indirect, "resolves", "resolve"),
                crate::render::one_or_many(indirect, "its", "their"),
            ));
        }
        // A glob gets one import beside it, not an edit per bare use (review47 M4).
        let direct_globs: Vec<&GlobReach> = through_globs.iter().filter(|reach| reach.direct).collect();
        if !direct_globs.is_empty() {
            let beside: Vec<String> = direct_globs
                .iter()
                .take(6)
                .map(|reach| {
                    format!("`use {}::{new_name} as {old_name};` beside {}:{}", reach.glob_path, shown(&reach.file), reach.line0 + 1)
                })
                .collect();
            steps.push(format!("add {}{}", beside.join(", "), more(direct_globs.len(), beside.len())));
        }
        if direct_globs.len() < through_globs.len() {
            steps.push(format!(
                "the {} other glob import{} {} the name from a module that imports it through the export: {} again once that import keeps the local name",
                through_globs.len() - direct_globs.len(),
                if through_globs.len() - direct_globs.len() == 1 { "" } else { "s" },
                crate::render::one_or_many(through_globs.len() - direct_globs.len(), "takes", "take"),
                crate::render::one_or_many(through_globs.len() - direct_globs.len(), "it resolves", "they resolve"),
            ));
        }
        let mut what: Vec<String> = Vec::new();
        if !through_export.is_empty() {
            // Modules re-exporting it by a glob of their own (review47 M1) are named.
            let glob_reexports: Vec<String> = export_modules.iter().skip(1).take(6).map(|file| shown(file)).collect();
            what.push(format!(
                "{} {} `{old_name}` through the module whose export this rename changes to `{export_alias}` ({}:{}){} — {}{}",
                crate::render::plural(through_export.len(), "path"),
                crate::render::one_or_many(through_export.len(), "names", "name"),
                shown(origin),
                line + 1,
                if glob_reexports.is_empty() {
                    String::new()
                } else {
                    format!(" or a module re-exporting it by a glob ({})", glob_reexports.join(", "))
                },
                listed.join(", "),
                more(through_export.len(), listed.len()),
            ));
        }
        if !through_globs.is_empty() {
            let uses: usize = through_globs.iter().map(|reach| reach.uses).sum();
            let globs: Vec<String> = through_globs
                .iter()
                .take(6)
                .map(|reach| format!("{}:{} `{}`", shown(&reach.file), reach.line0 + 1, reach.line_text))
                .collect();
            what.push(format!(
                "{} {} `{old_name}` {}to {} through {}{}",
                crate::render::plural(through_globs.len(), "glob import"),
                crate::render::one_or_many(through_globs.len(), "brings", "bring"),
                if through_export.is_empty() {
                    format!("(the export this rename changes to `{export_alias}` at {}:{}) ", shown(origin), line + 1)
                } else {
                    String::new()
                },
                crate::render::plural(uses, "bare use"),
                globs.join(", "),
                more(through_globs.len(), globs.len()),
            ));
        }
        let count = through_export.len() + through_globs.len();
        through_export_warning = Some(format!(
            "WARNING: {}: the export no longer has the name `{old_name}`, so {} (rustc E0432/E0433/E0405), and this rename leaves {}; next step: {}, or keep the old export beside the new one",
            what.join("; and "),
            crate::render::one_or_many(count, "it no longer resolves", "they no longer resolve"),
            crate::render::one_or_many(count, "it", "them"),
            steps.join("; "),
        ));
        if !through_export.is_empty() {
            report.push(format!(
                "  left unrenamed: {} that {} `{old_name}` through the renamed export (a `crate::`/`super::`/`self::` path, the crate's name, or a module re-exporting it by a glob) — {}:",
                crate::render::plural(through_export.len(), "path"),
                crate::render::one_or_many(through_export.len(), "names", "name"),
                crate::render::one_or_many(through_export.len(), "it breaks", "they break"),
            ));
            let lines = one_per_line(through_export.iter(), |hit| hit);
            list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
        }
        if !through_globs.is_empty() {
            let uses: usize = through_globs.iter().map(|reach| reach.uses).sum();
            report.push(format!(
                "  left unrenamed: {} of `{old_name}` that a glob import brings through the renamed export — {}:",
                crate::render::plural(uses, "bare use"),
                crate::render::one_or_many(uses, "it breaks", "they break")
            ));
            for reach in through_globs.iter().take(LISTED) {
                report.push(format!(
                    "    {}:{}: {}   ({} in its module)",
                    shown(&reach.file),
                    reach.line0 + 1,
                    reach.line_text,
                    crate::render::plural(reach.uses, "bare use")
                ));
            }
        }
    }
    if !binding_kept.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} of the binding `{old_name}` that the renamed export names — this rename changes only the exported name (`{export_alias}` at {}:{}), the binding keeps its name; rename at the binding's declaration to rename it everywhere:",
            crate::render::plural(binding_kept.len(), "use"),
            shown(origin),
            line + 1
        ));
        let lines = one_per_line(binding_kept.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !kept_local_bindings.is_empty() {
        report.push(format!(
            "  left unrenamed, rightly: {} of local variables named `{old_name}` that destructure the renamed property (the server wrote `{{ {new_name}: {old_name} }}` to keep their name): they name the variable, not the property — rename the variables too if their name should follow:",
            crate::render::plural(kept_local_bindings.len(), "use")
        ));
        let lines = one_per_line(kept_local_bindings.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    if !unchecked_no_definition.is_empty() {
        // A string literal that is exactly the old name (`case 'invalidate':`) is the same value
        // the renamed literal was: a switch case or a comparison that stops matching, which a
        // reader of a mixed list of comments missed (trial156 M1: tsserver renamed 2 of 3
        // `'invalidate'` literals; tsc TS2678 at the case left).
        let (same_literals, rest): (Vec<WordHit>, Vec<WordHit>) =
            unchecked_no_definition.iter().cloned().partition(|hit| string_literal_of_exactly(hit, old_name.len()));
        if !same_literals.is_empty() {
            report.push(format!(
                "  left unrenamed: {} with the same text, `{old_name}` in quotes, as the renamed position — the same value as a string literal type's member: a `case`, comparison or argument of it no longer matches the renamed type (tsc: TS2678, TS2367, TS2345); rename each that means the same value:",
                crate::render::plural(same_literals.len(), "string literal"),
            ));
            let lines = one_per_line(same_literals.iter(), |hit| hit);
            list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| "   (same string literal)".to_owned());
        }
        if !rest.is_empty() {
            let files: HashSet<&PathBuf> = rest.iter().map(|hit| &hit.path).collect();
            report.push(format!(
                "  NOT CHECKED: {} in {} outside the edit ({} gave no definition for the renamed position, so none could be asked); they may be missed references:",
                crate::render::plural(rest.len(), "other occurrence"),
                crate::render::plural(files.len(), "file"),
                server.id(),
            ));
            let kinds: Vec<(WordHit, OccurrenceKind)> = rest.iter().map(|hit| (hit.clone(), classifier.kind(hit))).collect();
            let lines = one_per_line(kinds.iter(), |(hit, _)| hit);
            list_lines(
                &mut report,
                &lines,
                LISTED,
                |(hit, _)| hit,
                &shown,
                old_name.len(),
                |(_, kind)| match kind {
                    OccurrenceKind::Comment => "   (comment)".to_owned(),
                    OccurrenceKind::Text => "   (string)".to_owned(),
                    _ => String::new(),
                },
            );
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
        let lines = one_per_line(unchecked.iter(), |hit| hit);
        list_lines(&mut report, &lines, LISTED, |hit| hit, &shown, old_name.len(), |_| String::new());
    }
    let untouched_paths: Vec<PathBuf> = {
        let mut files: Vec<PathBuf> = grep.hits.iter().map(|hit| &hit.path).filter(|path| !edits.contains_key(*path)).cloned().collect();
        files.dedup();
        files
    };
    let untouched_files: Vec<String> = untouched_paths.iter().map(|path| shown(path)).collect();
    let mut untouched_files_line: Option<(String, Vec<PathBuf>)> = None;
    match &local_scope {
        // Files other than the scope's cannot name a local or a private member: counted, not
        // listed (trial156 M2: 40 files, build output among them, listed for a parameter).
        Some(scope) if !untouched_files.is_empty() && !untouched_files.contains(&shown(&scope.path)) => report.push(format!(
            "  files with `{old_name}` the edit does not change: {} — not {}, the only file where {} can be named",
            crate::render::plural(untouched_files.len(), "file"),
            shown(&scope.path),
            scope.binding_shown(old_name),
        )),
        _ if !untouched_files.is_empty() => {
            let line = format!("  files with `{old_name}` the edit does not change: {}", untouched_files.join(", "));
            untouched_files_line = Some((line.clone(), untouched_paths.clone()));
            report.push(line)
        }
        _ => {}
    }
    let scripts = grep_scripts_without_extension(server.definition(), server.workspace_root(), server.root(), old_name);
    if !scripts.is_empty() {
        // First after the check's own header (and its scope line): code that breaks at run time.
        let first_detail = (1 + usize::from(grep.scope.is_some())).min(report.len());
        report.insert(
            first_detail,
            format!("  WARNING: {}", scripts_without_extension_sentence(server.id(), old_name, &scripts, "renamed by this edit", shown)),
        );
    }
    let source_extensions: Vec<String> = server.definition().extensions.iter().map(|(extension, _)| extension.clone()).collect();
    // A local (a parameter, a `let`) is named in no documentation or test data (trial46 M10).
    let test_data = if local_scope.is_some() {
        Vec::new()
    } else {
        // Not in a project root of its own nested below (a dependency module under `_deps/`,
        // a consumer module): its test data is another project's (trial111 M1: blackfriday's
        // Markdown testdata under cobra's `_deps/` named as golden files of a cobra rename).
        let scope = crate::lsp::project_scope::WalkScope::for_server(server.definition(), server.root());
        let mut found = grep_test_data(server.workspace_root(), server.root(), old_name, &source_extensions);
        found.retain(|(path, _)| !scope.prunes(path.strip_prefix(server.root()).unwrap_or(path)));
        found
    };
    if !test_data.is_empty() {
        // First after the check's own header (and its scope line): tests that compare output with
        // these files fail until they are updated.
        let first_detail = (1 + usize::from(grep.scope.is_some())).min(report.len());
        report.insert(first_detail, test_data_line(&test_data, &shown));
    }
    // Rust: debugger visualizers that name the old name (a field in a `.natvis` expression).
    let visualizers = if local_scope.is_some() || origin.extension().is_none_or(|ext| ext != "rs") {
        Vec::new()
    } else {
        grep_debugger_visualizers(server.workspace_root(), server.root(), old_name)
    };
    if !visualizers.is_empty() {
        report.push(files_and_lines_line(
            "not renamed in debugger visualizers (`.natvis` files a crate embeds with `#[debugger_visualizer]`: no compiler checks their expressions, and a debugger shows what they name as missing until they are updated)",
            &visualizers,
            &shown,
        ));
    }
    // Go: test examples named after the renamed identifier (`ExampleOld`, `ExampleOld_suffix`,
    // `ExampleType_Old`), which go vet's `tests` analyzer then reports as naming an unknown
    // identifier (trial49 F3: go-difflib's `ExampleGetContextDiffString`, "no new errors").
    // (file, 0-based line, example name, named after an implementation left unrenamed).
    let go_examples: Vec<(PathBuf, u32, String, bool)> = if origin.extension().is_some_and(|ext| ext == "go")
        && old_name.starts_with(char::is_uppercase)
    {
        // A method (of a type, or of an interface) is named by `ExampleOwner_Method`; a
        // package-level name by `ExampleName`, `ExampleName_suffix` and its methods'
        // `ExampleName_Method` (trial60 F2: renaming the method `Cause` called
        // `ExampleCause`, the function `Cause`'s example, a vet report to fix).
        let method_owner: Option<String> = origin_targets.iter().min().and_then(|(path, target_line, _)| {
            let text = reader.read_to_string(path).ok()?;
            let lines: Vec<&str> = text.lines().collect();
            let line = lines.get(*target_line as usize)?;
            if line.trim_start().starts_with("func (") {
                crate::lsp::rename_public_api::go_method_receiver(line)
            } else {
                crate::lsp::rename_public_api::go_enclosing_type(&lines, *target_line as usize)
                    .filter(|_| line.trim_start().starts_with(old_name) && line.contains('('))
            }
        });
        // The implementations left with the old name, which the remedy renames too, are
        // named by their types' examples (trial65 M2: bitset's `ExampleBitSet_Len` after
        // `Tester.Len` and the remedy's rewrite of `BitSet.Len`: go vet failed).
        // Each owner with the directory of its package: go vet looks an example's name up in
        // the example's own package (and its imports), so an `ExampleCache_Put` of another
        // package that declares its own `Cache` is no concern of this rename (trial94 F1:
        // golang-lru's `typed.Cache` rename named `lru`'s `ExampleCache_Add`, and renaming
        // it as advised made vet fail).
        let canonical_dir = |path: &Path| path.parent().map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()));
        let origin_dir: Option<PathBuf> = origin_targets.iter().min().and_then(|(path, _, _)| canonical_dir(path));
        let mut owners: Vec<String> = method_owner.iter().cloned().collect();
        let mut owner_dirs: Vec<(String, Option<PathBuf>)> = method_owner.iter().map(|owner| (owner.clone(), origin_dir.clone())).collect();
        if method_owner.is_some() {
            for (hit, _) in &tied_methods {
                if let Some(owner) = crate::lsp::rename_public_api::go_method_receiver(&hit.line_text) {
                    let dir = canonical_dir(&hit.path);
                    if !owner_dirs.contains(&(owner.clone(), dir.clone())) {
                        owner_dirs.push((owner.clone(), dir));
                    }
                    if !owners.contains(&owner) {
                        owners.push(owner);
                    }
                }
            }
        }
        let mut found = Vec::new();
        let is_test_file = |path: &Path| path.to_string_lossy().ends_with("_test.go");
        for_each_text_file_beneath(server.workspace_root(), server.root(), is_test_file, |path, text| {
            let example_dir = canonical_dir(path);
            // Owners whose package is this file's (an unknown directory counts everywhere).
            let owners: Vec<String> = owners
                .iter()
                .filter(|owner| owner_dirs.iter().any(|(named, dir)| named == *owner && (dir.is_none() || *dir == example_dir)))
                .cloned()
                .collect();
            if method_owner.is_none() && origin_dir.is_some() && origin_dir != example_dir {
                return;
            }
            if method_owner.is_some() && owners.is_empty() {
                return;
            }
            for (line0, line) in split_lines(text).into_iter().enumerate() {
                let Some(rest) = line.strip_prefix("func Example") else { continue };
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let names_method_of = |owner: &String| {
                    name.strip_prefix(owner.as_str()).and_then(|rest| rest.strip_prefix('_')).is_some_and(|method| {
                        method == old_name || method.strip_prefix(old_name).is_some_and(|suffix| suffix.starts_with('_'))
                    })
                };
                let names_it = if owners.is_empty() {
                    name == old_name || name.strip_prefix(old_name).is_some_and(|suffix| suffix.starts_with('_'))
                } else {
                    owners.iter().any(names_method_of)
                };
                if names_it {
                    // Named after an implementation left unrenamed: it breaks once that is
                    // renamed too.
                    let of_implementation = !owners.is_empty() && !method_owner.as_ref().is_some_and(names_method_of);
                    found.push((path.to_path_buf(), line0 as u32, format!("Example{name}"), of_implementation));
                }
            }
        });
        found
    } else {
        Vec::new()
    };
    // go vet looks an example's name up in the packages its package imports too: an imported
    // package that declares the old name (`time.Ticker` for `ExampleTicker`) keeps vet quiet
    // (trial86 F2). Only an example named after a package-level name is looked up so.
    let mut go_examples_vet_accepts: Vec<(PathBuf, u32, String, String)> = Vec::new();
    let mut go_examples_imports_unread: Vec<String> = Vec::new();
    let go_examples: Vec<(PathBuf, u32, String, bool)> = {
        let mut by_file: HashMap<PathBuf, crate::lsp::go_imports::ImportedDeclaration> = HashMap::new();
        let renamed_package: PathBuf =
            origin_targets.iter().min().and_then(|(path, _, _)| path.parent()).map(Path::to_path_buf).unwrap_or_default();
        let mut reported = Vec::new();
        for (path, line0, name, of_implementation) in go_examples {
            // `ExampleOld` or `ExampleOld_suffix`; for `ExampleOld_Method` vet also looks the
            // method up on the imported declaration, which is not read here.
            let package_level = name.strip_prefix("Example").is_some_and(|rest| {
                let mut parts = rest.split('_');
                parts.next() == Some(old_name) && parts.next().is_none_or(|suffix| !suffix.starts_with(char::is_uppercase))
            });
            if !package_level {
                reported.push((path, line0, name, of_implementation));
                continue;
            }
            let declaration = by_file
                .entry(path.clone())
                .or_insert_with(|| {
                    crate::lsp::go_imports::imported_package_declaring(server.workspace_root(), &path, old_name, &renamed_package)
                })
                .clone();
            match declaration {
                crate::lsp::go_imports::ImportedDeclaration::DeclaredBy(import) => {
                    go_examples_vet_accepts.push((path, line0, name, import))
                }
                crate::lsp::go_imports::ImportedDeclaration::Unknown { unread } => {
                    for import in unread {
                        if !go_examples_imports_unread.contains(&import) {
                            go_examples_imports_unread.push(import);
                        }
                    }
                    reported.push((path, line0, name, of_implementation));
                }
                crate::lsp::go_imports::ImportedDeclaration::NotDeclared => reported.push((path, line0, name, of_implementation)),
            }
        }
        reported
    };
    if !go_examples_vet_accepts.is_empty() {
        let first_detail = (1 + usize::from(grep.scope.is_some())).min(report.len());
        report.insert(
            first_detail,
            format!(
                "  not renamed: {} named after `{old_name}` that go vet does NOT report, because a package {} imports declares `{old_name}` too (its `tests` analyzer accepts a name of an imported package): {} — {} no longer {} a name of this package (go doc shows {} with none); rename {} to name `{new_name}`",
                crate::render::plural(go_examples_vet_accepts.len(), "test example"),
                crate::render::one_or_many(go_examples_vet_accepts.len(), "its package", "their packages"),
                go_examples_vet_accepts
                    .iter()
                    .map(|(path, line0, name, import)| format!("`{name}` ({}:{}; `{import}`.{old_name})", shown(path), line0 + 1))
                    .collect::<Vec<_>>()
                    .join(", "),
                crate::render::one_or_many(go_examples_vet_accepts.len(), "it", "they"),
                crate::render::one_or_many(go_examples_vet_accepts.len(), "documents", "document"),
                crate::render::one_or_many(go_examples_vet_accepts.len(), "it", "them"),
                crate::render::one_or_many(go_examples_vet_accepts.len(), "it", "them"),
            ),
        );
    }
    if !go_examples.is_empty() {
        let first_detail = (1 + usize::from(grep.scope.is_some())).min(report.len());
        report.insert(
            first_detail,
            format!(
                "  not renamed: {} named after `{old_name}` — go vet's `tests` analyzer reports an example naming an unknown identifier: {}; rename {} to name `{new_name}`",
                crate::render::plural(go_examples.len(), "test example"),
                go_examples
                    .iter()
                    .map(|(path, line0, name, of_implementation)| format!(
                        "`{name}` ({}:{}{})",
                        shown(path),
                        line0 + 1,
                        if *of_implementation { ", once its type's method is renamed too" } else { "" }
                    ))
                    .collect::<Vec<_>>()
                    .join(", "),
                crate::render::one_or_many(go_examples.len(), "it", "them"),
            ),
        );
    }
    let mut documentation =
        if local_scope.is_some() { Vec::new() } else { grep_documentation(server.workspace_root(), server.root(), old_name) };
    // Files pytest collects as doctests (`--doctest-glob`) are tests that now fail: said first,
    // apart from documentation (trial27a M1).
    let doctest_config = crate::lsp::pytest_doctest_files::pytest_doctest_config(&reader, server.root());
    let (doctest_files, rest): (Vec<_>, Vec<_>) =
        documentation.into_iter().partition(|(path, _)| doctest_config.as_ref().is_some_and(|config| config.collects(server.root(), path)));
    documentation = rest;
    // Lines of Markdown doc-tests are said with the doc-test examples above, not as prose.
    documentation.retain(|(path, line)| !included_doc_test_hits.iter().any(|hit| hit.path == *path && hit.line as usize + 1 == *line));
    if let (Some(config), false) = (&doctest_config, doctest_files.is_empty()) {
        // First after the check's own header (and its scope line).
        let first_detail = (1 + usize::from(grep.scope.is_some())).min(report.len());
        report.insert(first_detail, crate::lsp::pytest_doctest_files::doctest_files_line(old_name, config, &doctest_files, &shown));
    }
    if !documentation.is_empty() {
        let shown_docs: Vec<String> = documentation.iter().take(LISTED).map(|(path, line)| format!("{}:{line}", shown(path))).collect();
        report.push(format!(
            "  not renamed in documentation files (no server edits them; examples there may now be wrong): {}{}",
            shown_docs.join(", "),
            if documentation.len() > LISTED {
                format!(" ({})", crate::render::showing(LISTED, documentation.len(), ""))
            } else {
                String::new()
            }
        ));
    }
    let summary = RenameCoverageSummary::Checked(Box::new(CheckedRenameCoverage {
        checked: true,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        occurrences: grep.hits.len(),
        files_scanned: grep.files_scanned,
        scan_capped: grep.truncated,
        scope: grep.scope.clone(),
        renamed: covered_now,
        extra_renames_from: extra_renames,
        added_by_runbound: added
            .iter()
            .chain(dunder_all_added.iter())
            .chain(import_followers.iter())
            .chain(module_path_followers.iter().map(|(hit, _)| hit))
            .chain(parametrize_renamed.iter())
            .chain(doc_tests_renamed.iter())
            .chain(type_keys_renamed.iter().map(|(hit, _)| hit))
            .map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1))
            .collect(),
        left_in_import_module_paths: import_module_paths.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        left_in_path_segments: path_segments.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        left_in_attribute_name_strings: attribute_names.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        left_in_comments_and_strings: in_text.iter().map(|(hit, _)| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        left_in_doc_tests: doc_tests.iter().map(|(hit, _)| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        renamed_in_doc_tests: doc_tests_renamed.iter().map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        doc_tests_of_other_symbols: doc_tests_of_others.len(),
        left_in_doctest_expected_output: python_doctests
            .expected_output
            .iter()
            .map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1))
            .collect(),
        doctest_other_names: python_doctests.other_names.len(),
        left_in_documentation_files: documentation.iter().map(|(path, line)| format!("{}:{line}", shown(path))).collect(),
        left_in_test_data: test_data.iter().map(|(path, line)| format!("{}:{line}", shown(path))).collect(),
        left_in_scripts_without_extension: scripts.iter().map(|(path, line)| format!("{}:{line}", shown(path))).collect(),
        left_in_pytest_doctest_files: doctest_files.iter().map(|(path, line)| format!("{}:{line}", shown(path))).collect(),
        left_in_interface_tied_methods: tied_methods.iter().map(|(hit, _)| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        left_unrenamed: elsewhere
            .iter()
            .map(|(hit, _)| hit)
            .chain(unanalyzed.iter().map(|(hit, _)| hit))
            .chain(tied_methods.iter().map(|(hit, _)| hit))
            .chain(tied_method_calls.iter().map(|(hit, _)| hit))
            .map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1))
            .collect(),
        not_checked: unchecked.iter().chain(&unchecked_no_definition).map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect(),
        outside_local_scope: outside_local_scope.len(),
        files_not_changed: untouched_files,
    }));
    // Rust: edits that rename a use of a local binding (a `let`, a closure parameter) that
    // shadows the renamed item, while leaving the local itself: the server's edit is wrong there
    // (trial38 F2: rust-analyzer, through rstest's proc macro, renamed `encode_buf.truncate(
    // encoded_len)` where `encoded_len` is `let encoded_len = …` two lines above).
    let mut local_uses_renamed: Vec<String> = Vec::new();
    let mut renamed_by_file: BTreeMap<PathBuf, HashSet<(u32, usize)>> = BTreeMap::new();
    // A field-init shorthand the edit expands (`pre,` → `prerelease: pre,`) keeps the local's use:
    // not a use renamed (trial46 F1: a WARNING told the agent to undo rust-analyzer's right edit).
    let shorthand_expansion = format!("{new_name}: {old_name}");
    let kept_by_shorthand = |hit: &WordHit| -> bool {
        let (start, end) = columns(hit);
        edits.get(&hit.path).is_some_and(|list| {
            list.iter().any(|edit| edit.new_text == shorthand_expansion && covers(range_of(edit), hit.line, start, end))
        })
    };
    for hit in grep.hits.iter().filter(|hit| hit.path.extension().is_some_and(|ext| ext == "rs") && is_covered(&edits, hit)) {
        if kept_by_shorthand(hit) {
            continue;
        }
        renamed_by_file.entry(hit.path.clone()).or_default().insert((hit.line, hit.byte_start));
    }
    for (path, renamed) in &renamed_by_file {
        let Some(source) = reader.read_to_string(path).ok().and_then(|text| crate::lsp::syntax::ParsedSource::parse(path, &text)) else {
            continue;
        };
        for (use_line, binding_line) in rust_local_uses_renamed(&source, renamed, old_name) {
            local_uses_renamed.push(format!("{}:{} (the local at line {})", shown(path), use_line + 1, binding_line + 1));
        }
    }
    // TypeScript/JavaScript, asked at an import of another module's declaration: the server
    // renames the local binding only (`import { ReadonlyStore as DerivedStore }`), and the
    // declaration keeps its name (trial164 M1: "Renamed `ReadonlyStore` to `DerivedStore`", the
    // class in the library package unchanged, nothing saying so).
    let alias = format!("{old_name} as {new_name}");
    let local_alias_only = (crate::lsp::syntax::is_typescript_family(origin) && !renames_declaration(&edits))
        .then(|| {
            // Whole (`Store as Box`) or, normalized to what changes, the inserted ` as Box`.
            let inserted = format!("as {new_name}");
            edits.iter().find_map(|(path, list)| {
                list.iter()
                    .find(|edit| edit.new_text == alias || edit.new_text.trim() == inserted)
                    .map(|edit| (path.clone(), edit.range.start.line))
            })
        })
        .flatten();
    // The declaration is a definition whose line names `old_name`: tsserver's definition of a
    // namespace binding (`import * as either`) is the module, its span at the module's first
    // statement (trial179 M4: "the imported declaration `either` (Either.ts:5)", a line
    // importing `LazyArg`).
    let line_names_old = |path: &Path, line: u32| -> bool {
        reader.read_to_string(path).ok().is_some_and(|text| {
            text.lines().nth(line as usize).is_some_and(|line_text| crate::lsp::position::contains_word(line_text, old_name))
        })
    };
    let alias_warning = local_alias_only.map(|(path, alias_line)| {
        let declaration = origin_targets.iter().min().filter(|(path, target_line, _)| line_names_old(path, *target_line));
        let declared = declaration.map_or_else(String::new, |(path, target_line, _)| format!(" ({}:{})", shown(path), target_line + 1));
        // An export specifier (`export { mod as modNs }`, over lines too): the exported name
        // changes, the binding keeps its name — not an import (trial179 F1).
        let in_export = reader.read_to_string(&path).ok().is_some_and(|text| {
            let lines: Vec<&str> = text.lines().take(alias_line as usize + 1).collect();
            lines.iter().rev().take(200).map(|line| line.trim_start()).find(|line| line.starts_with("export") || line.starts_with("import")).is_some_and(|line| line.starts_with("export"))
        });
        if in_export {
            let module = origin_targets
                .iter()
                .min()
                .filter(|_| declaration.is_none())
                .map_or_else(String::new, |(path, _, _)| format!(" (a namespace binding: its definition is the module {})", shown(path)));
            return format!(
                "note: only the exported name was renamed: {}:{} now exports `{alias}`; the binding `{old_name}`{module}{declared} keeps its name, as do its uses in that file; to rename the binding too, rename at its declaration",
                shown(&path),
                alias_line + 1
            );
        }
        format!(
            "WARNING: only the local binding was renamed: {}:{} now imports `{alias}`, and the imported declaration `{old_name}`{declared} keeps its name, as do its other uses; to rename the declaration everywhere, rename at the declaration",
            shown(&path),
            alias_line + 1
        )
    });
    let merged = lsp_types::WorkspaceEdit {
        changes: Some(edits.into_iter().map(|(path, list)| (path_to_lsp_uri(&path), list)).collect()),
        ..lsp_types::WorkspaceEdit::default()
    };
    let mut warnings: Vec<String> = through_export_warning.into_iter().chain(alias_warning).collect();
    // Python: a method looked up by a name built at run time from a prefix (`getattr(self,
    // 'visit_' + node.expr_name)`, a visitor's dispatch): renaming `visit_regex` changes which
    // value reaches it, and neither the server nor a type checker sees the lookup (trial88 M1:
    // parsimonious's `RuleVisitor.visit_regex`, after which `import parsimonious` failed).
    if origin.extension().is_some_and(|ext| ext == "py" || ext == "pyi") {
        let mut lookups: Vec<String> = Vec::new();
        let mut matched_prefix = String::new();
        let is_python = |path: &Path| path.extension().is_some_and(|ext| ext == "py");
        for_each_text_file_beneath(server.workspace_root(), server.root(), is_python, |path, text| {
            for (line0, line) in text.lines().enumerate() {
                let Some(prefix) = built_attribute_name_prefix(line) else { continue };
                if old_name.len() > prefix.len() && old_name.starts_with(&prefix) && lookups.len() < 5 {
                    if prefix.len() > matched_prefix.len() {
                        matched_prefix = prefix;
                    }
                    lookups.push(format!("{}:{} (`{}`)", shown(path), line0 + 1, crate::render::cut_chars(line.trim(), 90)));
                }
            }
        });
        if !lookups.is_empty() {
            // A dunder built as `f"__{op}__"`: the value is `lt` of `__lt__`, not `lt__` (trial132
            // M4), and an inherited method of that name (object's) may answer the lookup.
            let dunder = matched_prefix == "__" && old_name.ends_with("__") && old_name.len() > 4;
            let old_suffix = if dunder { &old_name[2..old_name.len() - 2] } else { &old_name[matched_prefix.len()..] };
            let new_suffix = new_name.strip_prefix(matched_prefix.as_str()).map(|suffix| {
                if dunder {
                    suffix.strip_suffix("__").unwrap_or(suffix)
                } else {
                    suffix
                }
            });
            warnings.push(format!(
                "WARNING: {} {} `{matched_prefix}…` up by a name built at run time, which `{old_name}` matches for the value `{old_suffix}`: after this rename that value finds no `{old_name}` (the lookup's fallback{}, or AttributeError){} — no server or type checker sees it; check which values reach the lookup (grammar rules, event or command names) before accepting",
                lookups.join(", "),
                crate::render::one_or_many(lookups.len(), "looks", "look"),
                if dunder { ", an inherited one such as object's" } else { "" },
                match new_suffix {
                    Some(suffix) if !suffix.is_empty() => format!(", and `{new_name}` is reached only by the value `{suffix}`"),
                    _ => format!(", and `{new_name}` is not reached by it at all"),
                },
            ));
        }
    }
    if !embedding_warnings.is_empty() {
        warnings.push(format!("WARNING: {}", embedding_warnings.join("; ")));
    }
    // An implementation outside the workspace keeps the old name whatever is renamed here: a
    // type of it used as the interface breaks the build for good (trial110 F5: afero's
    // `File.Readdirnames`, implemented by the standard library's `*os.File`, which `OsFs`
    // returns as a `File`; renaming the 8 listed implementations still left 3 build errors).
    if !outside_implementations.is_empty() {
        let places: Vec<String> = outside_implementations
            .iter()
            .take(5)
            .map(|(path, target_line, _)| crate::lsp::listing::ListedPath::new(workspace_root, path).with_line(target_line + 1))
            .collect();
        warnings.push(format!(
            "WARNING: the renamed interface method is implemented outside the workspace by {}, which no rename here can change: {}{} — wherever such a type is used as the interface (returned or passed as it), the build breaks after this rename, whatever else is renamed; keep the name `{old_name}`, or stop using those types as the interface",
            crate::render::plural(outside_implementations.len(), "method"),
            places.join(", "),
            if outside_implementations.len() > places.len() { format!(" and {} more", outside_implementations.len() - places.len()) } else { String::new() }
        ));
    }
    if !attribute_names.is_empty() {
        warnings.push(format!(
            "WARNING: {} left unrenamed in strings that name the attribute for mock.patch.object / getattr / setattr / hasattr (they fail at run time) — listed below",
            crate::render::plural(attribute_names.len(), "occurrence")
        ));
    }
    // The old method name when a warning below says its type loses an interface by it.
    let mut interface_loss_warned_method: Option<String> = None;
    if !implemented_interfaces.is_empty() {
        if renamed_is_go_method {
            interface_loss_warned_method = Some(old_name.to_owned());
        }
        let all: Vec<(String, bool)> = implemented_interfaces
            .iter()
            .map(|(path, target_line, _)| {
                let place = format!("{}:{}", shown(path), target_line + 1);
                match go_interface_method_name(workspace_root, path, *target_line) {
                    // An unexported interface of another package (the runtime's and context's
                    // `stringer`) is named only when nothing else is.
                    Some(name) => {
                        let interface = name.split('.').nth(1).unwrap_or("");
                        let foreign_private = !path.starts_with(workspace_root) && interface.starts_with(char::is_lowercase);
                        (format!("`{name}` ({place})"), foreign_private)
                    }
                    None => (format!("the interface method at {place}"), false),
                }
            })
            .collect();
        let named: Vec<String> = if all.iter().any(|(_, foreign_private)| !foreign_private) {
            all.into_iter().filter(|(_, foreign_private)| !foreign_private).map(|(name, _)| name).collect()
        } else {
            all.into_iter().map(|(name, _)| name).collect()
        };
        warnings.push(format!(
            "WARNING: the renamed method implements {}, which this rename leaves: its type no longer implements {} — where a value of it is used as {} in code the build breaks (the write check shows it), and where it is used dynamically (fmt's verbs for `Stringer`, encoding/json for `TextMarshaler`/`Marshaler`, database/sql for `Valuer`, a type assertion, reflection) the behaviour changes with NO compile error; keep a `// Deprecated:` method `{old_name}` that calls `{new_name}` if those uses matter",
            named.join(", "),
            if named.len() == 1 { "that interface" } else { "those interfaces" },
            if named.len() == 1 { "it" } else { "one" },
        ));
    }
    if !implemented_by_names.is_empty() {
        let named: Vec<String> = implemented_by_names
            .iter()
            .map(|(path, target_line, _)| {
                let place = format!("{}:{}", shown(path), target_line + 1);
                match go_interface_method_name(workspace_root, path, *target_line) {
                    Some(name) => format!("`{name}` ({place})"),
                    None => format!("the interface method at {place}"),
                }
            })
            .collect();
        warnings.push(format!(
            "WARNING: by its method names, the renamed method's type appears to implement {} of a project root this one depends on, which {} does not list here (check the signatures): after this rename it no longer would — where a value of it is used as that interface in code the build breaks, and where it is checked dynamically (a type assertion `x.(Iface)`, a type switch) the behaviour changes with NO compile error; keep a `// Deprecated:` method `{old_name}` that calls `{new_name}` if those uses matter",
            named.join(", "),
            server.id()
        ));
    }
    if renamed_is_go_method && !anonymous_interfaces.is_empty() {
        warnings.push(format!(
            "WARNING: {} an anonymous interface type with a method `{old_name}` ({}; listed below among occurrences whose definition leads elsewhere): where the renamed method's type satisfied one, it no longer does, so a type assertion or type switch on it (`x.(interface{{ {old_name}() … }})`) silently stops matching — no compile error, and a test that asserts it fails; rename `{old_name}` there too where it means this method",
            if anonymous_interfaces.len() == 1 { "1 place declares".to_owned() } else { format!("{} places declare", anonymous_interfaces.len()) },
            anonymous_interfaces.join(", ")
        ));
    }
    // gopls answers no `implementation` for some methods of standard interfaces (pkg/errors'
    // `Frame.Format`, a `fmt.Formatter`: "gopls returned null", trial60 M3 — 11 tests failed after
    // "no new errors"): a Go method whose name and parameters are those of a standard interface
    // that the library calls dynamically is said from the table.
    // A several-method interface (sort.Interface) counts only when the type has its other
    // methods too (trial161 M1: a false WARNING at `BTree.Len`, a type with no `Less`/`Swap`).
    let declaration_file = origin_targets.iter().next().map_or(origin, |(path, _, _)| path.as_path());
    let completes = |line: &str, method: &str, interface: &str| {
        go_type_completes_standard_interface(&reader, declaration_file, line, method, interface)
    };
    if renamed_is_go_method && implemented_interfaces.is_empty() {
        if let Some(interface) = declaration_line
            .as_deref()
            .and_then(|line| go_dynamic_standard_interface(line, old_name).filter(|interface| completes(line, old_name, interface)))
        {
            interface_loss_warned_method = Some(old_name.to_owned());
            warnings.push(format!(
                "WARNING: the renamed method has the name and parameters of `{interface}`, which the standard library calls dynamically ({}): after this rename its type no longer implements it, and those calls stop reaching it with NO compile error ({} did not list the interfaces it implements); keep a method `{old_name}` that calls `{new_name}` if they matter",
                go_dynamic_caller(interface),
                server.id()
            ));
        }
    }
    // The other direction: a Go method renamed to the name and signature of a standard interface
    // the library calls dynamically makes its type implement it, with no compile error (trial73
    // M1: `Version.Original` → `Error` made fmt print `Error()` instead of `String()` for every
    // `%v` of a `*Version`; build, vet and tests all passed).
    if renamed_is_go_method {
        if let Some(interface) = declaration_line.as_deref().and_then(|line| {
            go_standard_interface_gained(line, old_name, new_name).filter(|interface| completes(line, new_name, interface))
        }) {
            warnings.push(format!(
                "WARNING: after this rename the method has the name and signature of `{interface}`, which the standard library calls dynamically ({}): its type now implements `{interface}`, so those calls reach `{new_name}` where they did not before — behaviour changes with NO compile error (for `error` and `fmt.Stringer`: every `%v`/`%s`/Println of a value of the type now prints `{new_name}()`); pick another name if that is not meant",
                go_dynamic_caller(interface),
            ));
        }
    }
    if !tied_methods.is_empty() {
        warnings.push(format!(
            "WARNING: {} tied to the renamed method by an interface {} the old name (the build breaks where the interface is used as a type; a type assertion on it silently stops matching) — listed below",
            crate::render::plural(tied_methods.len(), "occurrence"),
            if tied_methods.len() == 1 { "keeps" } else { "keep" }
        ));
    }
    if !local_uses_renamed.is_empty() {
        warnings.push(format!(
            "WARNING: {} of {}'s edits rename a use of a local `{old_name}` (a `let` or closure parameter that shadows the renamed item) and leave the local itself: {} — those uses now name the renamed item instead, which breaks the build or changes what the code does; the edit is wrong there: rename with those lines left as they are (edit them back after accepting), or rename the locals too",
            local_uses_renamed.len(),
            server.id(),
            local_uses_renamed.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
                + &if local_uses_renamed.len() > 8 { format!(" and {} more", local_uses_renamed.len() - 8) } else { String::new() }
        ));
    }
    // A member of a TypeScript type that values reach only through double casts (`x as unknown
    // as Atom<T>`): the compiler relates nothing there, so the cast objects' own members of the
    // old name are not renamed and break at run time (trial37 F4: `Readable.get` → `read`, "no
    // new errors", every Store threw `this.atom.read is not a function`).
    if let Some(owner) =
        member_owner.as_ref().filter(|_| !elsewhere.is_empty() || !unchecked.is_empty() || !unchecked_no_definition.is_empty())
    {
        let (types, casts) = double_casts_to_type_or_subtypes(server, owner);
        if !casts.is_empty() {
            let shown: Vec<String> = casts.iter().take(8).map(|(path, line0)| format!("{}:{}", shown(path), line0 + 1)).collect();
            warnings.push(format!(
                "WARNING: {} through `unknown`/`any` make values of {} ({}{}): the compiler does not check that those values have `{new_name}`, so their own members named `{old_name}` (listed below among occurrences whose definition leads elsewhere) were NOT renamed and break at run time — rename them too, or check each cast",
                crate::render::plural(casts.len(), "double cast"),
                types.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", "),
                shown.join(", "),
                if casts.len() > shown.len() { format!(" and {} more", casts.len() - shown.len()) } else { String::new() }
            ));
        }
    }
    // A member of a TypeScript type whose old name stays an optional property of another type
    // that code reads: a value of the renamed member's type that reaches such a use (passed as an
    // argument, assigned) still type-checks, since the property is optional, and reads
    // `undefined` there at run time (trial39 F4: `emitChange('AsyncQueuer', this)` read `key?`).
    if let Some(owner) = member_owner.as_ref() {
        let optional = optional_declarations_read_elsewhere(&reader, server.position_encoding(), &elsewhere, old_name);
        if !optional.is_empty() {
            let listed: Vec<String> = optional
                .iter()
                .take(5)
                .map(|((path, line0), uses)| format!("{}:{} ({})", shown(path), line0 + 1, crate::render::plural(*uses, "use")))
                .collect();
            warnings.push(format!(
                "WARNING: `{old_name}` stays an OPTIONAL property of {} that code reads ({}{}): where a value of `{owner}` reaches one of those uses (an argument, an assignment, `this` passed on), the compiler accepts it without `{old_name}` and it reads `undefined` there at run time — no error will say so; check those uses (listed below among occurrences whose definition leads elsewhere) and rename the optional property too where `{owner}` values reach it",
                crate::render::plural(optional.len(), "other type"),
                listed.join(", "),
                if optional.len() > listed.len() { format!(" and {} more", optional.len() - listed.len()) } else { String::new() }
            ));
        }
    }
    // A shared parametrize argnames item has its own WARNING (review50 M7), said once.
    decorator_strings.retain(|place| !shared_parametrize_argnames_left.iter().any(|shared| shared.starts_with(&format!("{place} ("))));
    if !decorator_strings.is_empty() {
        warnings.push(format!(
            "WARNING: a decorator of the renamed declaration names `{old_name}` by a string ({}), left unrenamed: a decorator that looks the name up at run time (an argument by name, an attribute) fails or silently does nothing after this rename, and no type checker sees it — read it, and edit the string too if it names this symbol",
            decorator_strings.join(", ")
        ));
    }
    if !value_keys_naming_member.is_empty() {
        let count = value_keys_naming_member.len();
        let shown_keys: Vec<String> =
            value_keys_naming_member.iter().take(10).map(|(place, expression)| format!("{place} ({expression})")).collect();
        // How to edit one, on the first: `'value' in received` → `'okValue' in received`.
        let example = value_keys_naming_member.first().and_then(|(_, expression)| {
            let written = expression.split_once(": `")?.1.strip_suffix('`')?;
            let renamed = written.replacen(&format!("'{old_name}'"), &format!("'{new_name}'"), 1).replacen(
                &format!("\"{old_name}\""),
                &format!("\"{new_name}\""),
                1,
            );
            (renamed != written).then(|| format!(" (`{written}` → `{renamed}`)"))
        });
        warnings.push(format!(
            "WARNING: {} {} `{old_name}` as a property key in code and {} left unrenamed — {} renames no such string with the property: {}{} — where the value there has the renamed member, tsc will likely fail (an `in` test no longer narrows to a type with `{new_name}`, and the reads it guarded no longer compile) or the lookup silently misses at run time; after accepting, edit {} to '{new_name}'{}, and leave one whose value is of another type",
            crate::render::plural(count, "string"),
            crate::render::one_or_many(count, "names", "name"),
            crate::render::one_or_many(count, "is", "are"),
            server.id(),
            shown_keys.join(", "),
            if count > shown_keys.len() { format!(" and {} more (listed first below)", count - shown_keys.len()) } else { String::new() },
            crate::render::one_or_many(count, "it", "each"),
            example.unwrap_or_default()
        ));
    }
    if !keys_naming_member.is_empty() {
        warnings.push(format!(
            "WARNING: {} that {} the renamed member as a key of the type that declares it {} left unrenamed ({}): the renamed code does not compile until {} edited — listed below",
            crate::render::plural(keys_naming_member.len(), "string"),
            crate::render::one_or_many(keys_naming_member.len(), "names", "name"),
            crate::render::one_or_many(keys_naming_member.len(), "is", "are"),
            keys_naming_member.join(", "),
            crate::render::one_or_many(keys_naming_member.len(), "it is", "they are")
        ));
    }
    if !go_examples.is_empty() {
        warnings.push(format!(
            "WARNING: {} {} the old name `{old_name}` in {} function name; go vet reports {} (`tests` analyzer){} — listed below",
            crate::render::plural(go_examples.len(), "test example"),
            crate::render::one_or_many(go_examples.len(), "keeps", "keep"),
            crate::render::one_or_many(go_examples.len(), "its", "their"),
            crate::render::one_or_many(go_examples.len(), "it", "them"),
            if go_examples_imports_unread.is_empty() {
                String::new()
            } else {
                format!(
                    " unless an imported package declares `{old_name}` (not read: {})",
                    go_examples_imports_unread.iter().map(|import| format!("`{import}`")).collect::<Vec<_>>().join(", ")
                )
            },
        ));
    }
    if !test_data.is_empty() {
        let files: HashSet<&PathBuf> = test_data.iter().map(|(path, _)| path).collect();
        warnings.push(format!(
            "WARNING: `{old_name}` is left in {} of test data ({}) that no server edits: a test that compares output with such a file (a golden file) fails until it is updated — run the tests; listed below",
            crate::render::plural(test_data.len(), "line"),
            crate::render::plural(files.len(), "file"),
        ));
    }
    if !doctest_files.is_empty() {
        warnings.push(format!(
            "WARNING: {} left unrenamed in test files pytest runs as doctests (pytest now fails where they use the old name) — listed below",
            crate::render::plural(doctest_files.len(), "occurrence")
        ));
    }
    if !doc_tests.is_empty() {
        warnings.push(doc_tests_warning(doc_tests.len(), &python_doctests.expected_output, old_name, &shown));
    }
    // The untyped attribute uses, in test files and in the project's code: (the uses, where,
    // what an untyped receiver may be, what they may break, whether a built-in method name is
    // only noted).
    let untyped_groups = [
        (
            &untyped_test_uses,
            "test files pytest runs",
            "a class attribute a subclass sets, an untyped parameter or fixture",
            "those tests now fail with AttributeError",
            false,
        ),
        (
            &untyped_code_uses,
            "the project's code",
            "an untyped parameter, an attribute of one",
            "that code now fails with AttributeError at run time, which no type checker reports",
            true,
        ),
    ];
    for (uses, place, examples, consequence, builtin_names_only_noted) in untyped_groups {
        if uses.is_empty() {
            continue;
        }
        // A name Python's built-in types define too (`append`, `get`, `items`): an untyped
        // `x.append` in the project's code is as likely a list's (review45 RISK 6; the recheck
        // of trial150 warned of tomlkit's plain list at container.py:817) — listed first, not
        // warned of.
        if builtin_names_only_noted && PYTHON_BUILTIN_METHOD_NAMES.contains(&old_name) {
            report.push(format!(
                "  note: {} of `.{old_name}` in the project's code {} no definition from {} (listed first among those to check); `{old_name}` is also a method of Python's built-in types, so they are not warned of",
                crate::render::plural(uses.len(), "use"),
                crate::render::one_or_many(uses.len(), "has", "have"),
                server.id()
            ));
            continue;
        }
        const NAMED: usize = 10;
        let places: Vec<String> = uses.iter().take(NAMED).map(|hit| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect();
        warnings.push(format!(
            "WARNING: {} of `.{old_name}` in {place} ({}{}) {} left unrenamed: {} gives no definition there (an object whose type it cannot tell — {examples}); if it is this class's `{old_name}`, {consequence} — check them first (listed first below)",
            crate::render::plural(uses.len(), "use"),
            places.join(", "),
            if uses.len() > NAMED { format!(" and {} more", uses.len() - NAMED) } else { String::new() },
            if uses.len() == 1 { "was" } else { "were" },
            server.id(),
        ));
    }
    // Python: a renamed parameter's `old=` keyword arguments left where the server gives no
    // definition — calls of a subclass whose `__init__` takes `**kwargs` and passes them on, or
    // of a class in a variable: the keyword now lands in a `**kwargs` the function takes, or
    // raises TypeError, at run time only (trial154 F1: marshmallow's `allow_none` renamed in
    // `Field.__init__`, 20 `fields.List(…, allow_none=True)` left, 32 tests failed, no error).
    let mut keyword_argument_callees: Vec<String> = Vec::new();
    let mut keyword_argument_class_calls: Vec<(String, String)> = Vec::new();
    // A field of a class whose generated constructor takes it as a keyword (a dataclass, an attrs
    // class: recheck51 N2) is such a parameter too: `cls(old=…)` in a classmethod, and
    // `self.__class__(old=…)`, get no definition from pyright and keep the old keyword.
    let keyword_target: Option<(bool, bool, Vec<String>)> = match python_symbol() {
        Some(crate::lsp::python_doctests::RenamedPythonSymbol::Parameter { function, callables }) => {
            Some((matches!(function.as_str(), "__init__" | "__new__"), false, callables))
        }
        Some(crate::lsp::python_doctests::RenamedPythonSymbol::Member { constructor_class: Some(class) }) => {
            Some((true, true, vec![class]))
        }
        _ => None,
    };
    let renamed_is_generated_constructor_field = keyword_target.as_ref().is_some_and(|(_, field, _)| *field);
    let keyword_arguments_left: Vec<String> = if let Some((constructor, field, callables)) = keyword_target {
        // A constructor's parameter reaches calls of any subclass (`fields.List(…)` for
        // `Field.__init__`); any other function's only calls spelled by its name
        // (`obj.method(old=…)`): `self.msg.format(validator=…)` is no call of a test
        // method's parameter `validator` (review of the change: attrs' `TestOptional`).
        // A generated constructor's field: calls through the class of `self` inside its
        // class or a direct subclass, and calls spelled by its class's name (a subclass's
        // generated constructor gets a definition from the server).
        // Each file's `old=` keyword arguments with their callees, and its syntax tree, parsed once.
        let mut keyword_callees = crate::lsp::rename_pytest_fixtures::KeywordCallees::default();
        let mut parsed: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
        let mut left: Vec<String> = Vec::new();
        for (hit, target) in &elsewhere {
            if target.is_some() || !path_is_python(&hit.path) {
                continue;
            }
            let Some(callee_text) = keyword_callees.callee_at(&reader, &hit.path, old_name, hit.line, hit.byte_start) else {
                continue;
            };
            let last = callee_text.rsplit('.').next().unwrap_or(callee_text);
            let mut class_call: Option<String> = None;
            let reaches = if callables.iter().any(|callable| callable == last) {
                true
            } else if !constructor {
                // Any other function's parameter: only calls spelled by its name
                // (`obj.method(old=…)`); `self.msg.format(validator=…)` is no call of a test
                // method's parameter `validator` (attrs' `TestOptional`).
                false
            } else if matches!(callee_text, "self.__class__" | "cls" | "type(self)" | "super().__init__" | "super().__new__")
                || (field && COPY_WITH_CHANGES_CALLEES.contains(&callee_text) && {
                    let text = reader.read_to_string(&hit.path).unwrap_or_default();
                    python_call_on_self(&text, hit.line, hit.byte_start, callee_text)
                })
            {
                // (A generated constructor's field: `dataclasses.replace(self, old=…)` and the
                // like build a new instance of the class of `self` with those keywords —
                // recheck52 N1: typeshed types them `**changes: Any`, so no checker sees it.)
                // The class around the call, or its base for `super()`: the renamed class or
                // a direct subclass of it (trial174 F1: packaging's `SpecifierSet.__replace__`
                // calls `self.__class__(prereleases=…)`, which reaches `SpecifierSet`, not the
                // renamed `Specifier.__init__`).
                let source = parsed.entry(hit.path.clone()).or_insert_with(|| {
                    let text = reader.read_to_string(&hit.path).ok()?;
                    crate::lsp::syntax::ParsedSource::parse(&hit.path, &text)
                });
                let around = source.as_ref().and_then(|source| source.python_class_enclosing(hit.line)).filter(|class| {
                    let base_named = |base: &crate::lsp::syntax::PythonBaseClass| {
                        let base = base.text.split('[').next().unwrap_or("").rsplit('.').next().unwrap_or("").trim();
                        callables.iter().any(|callable| callable == base)
                    };
                    (!callee_text.starts_with("super()") && callables.contains(&class.name)) || class.bases.iter().any(base_named)
                });
                class_call = around.map(|class| class.name);
                class_call.is_some()
            } else {
                // A constructor's parameter reaches calls of any subclass (`fields.List(…)`
                // for `Field.__init__`, trial154 F1), spelled as classes are; a lower-case
                // function's keywords (hypothesis' `@given(prereleases=…)`) are its own.
                !field && last.starts_with(|first: char| first.is_uppercase())
            };
            if reaches {
                left.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                if let Some(class) = class_call {
                    let call = (callee_text.to_owned(), class);
                    if !keyword_argument_class_calls.contains(&call) {
                        keyword_argument_class_calls.push(call);
                    }
                } else if !keyword_argument_callees.iter().any(|known| known == callee_text) {
                    keyword_argument_callees.push(callee_text.to_owned());
                }
            }
        }
        left
    } else {
        Vec::new()
    };
    if !keyword_arguments_left.is_empty() && renamed_is_generated_constructor_field {
        const NAMED: usize = 10;
        warnings.push(format!(
            "WARNING: {} `{old_name}=` in calls through the class of `self` ({}{}) {} left unrenamed where {} gives no definition: inside the class whose generated constructor takes the renamed field as a keyword (or a subclass of it), `cls(…)`, `self.__class__(…)`, `type(self)(…)` and `dataclasses.replace(self, …)` (or `attrs.evolve`) call that constructor, which after this rename takes `{new_name}=` — each such call raises TypeError at run time; rename each to `{new_name}=` (listed first below)",
            crate::render::plural(keyword_arguments_left.len(), "keyword argument"),
            keyword_arguments_left.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", "),
            if keyword_arguments_left.len() > NAMED { format!(" and {} more", keyword_arguments_left.len() - NAMED) } else { String::new() },
            crate::render::one_or_many(keyword_arguments_left.len(), "is", "are"),
            server.id(),
        ));
    } else if !keyword_arguments_left.is_empty() {
        const NAMED: usize = 10;
        warnings.push(format!(
            "WARNING: {} `{old_name}=` in calls {} left unrenamed where {} gives no definition ({}{}): a call of a subclass whose `__init__` takes `**kwargs` and passes them on to the renamed parameter's function, or of a class held in a variable — after this rename the keyword no longer reaches `{new_name}`: it goes silently into a `**kwargs` the function takes (and stops having its effect) or raises TypeError at run time, and a type checker that resolves no definition there may report nothing; rename each to `{new_name}=` where the call reaches this function (listed first below)",
            crate::render::plural(keyword_arguments_left.len(), "keyword argument"),
            crate::render::one_or_many(keyword_arguments_left.len(), "is", "are"),
            server.id(),
            keyword_arguments_left.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", "),
            if keyword_arguments_left.len() > NAMED { format!(" and {} more", keyword_arguments_left.len() - NAMED) } else { String::new() },
        ));
    }
    for left in &typed_dict_keywords_left {
        const NAMED: usize = 10;
        let unpacking: Vec<String> = left.unpacking_classes.iter().take(5).map(|class| format!("`{class}`")).collect();
        warnings.push(format!(
            "WARNING: {} `{old_name}=` in calls ({}{}) {} left unrenamed: {} resolves {} to the TypedDict key `{}.{old_name}` ({}:{}), not to the renamed parameter — yet {}{} {} `**kwargs: Unpack[{}]` in `__init__` and, when {} {} them on (`super().__init__(**kwargs)`), the keyword reaches the renamed function: after this rename each such call raises TypeError (unexpected keyword argument '{old_name}') at run time, and {} reports only the lines that pass the `**kwargs` on; rename the key too, which renames those keywords: lsp_rename {{\"file\":\"{}\",\"line\":{},\"symbol\":\"{old_name}\",\"new_name\":\"{new_name}\"}}",
            crate::render::plural(left.uses.len(), "keyword argument"),
            left.uses.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", "),
            if left.uses.len() > NAMED { format!(" and {} more", left.uses.len() - NAMED) } else { String::new() },
            crate::render::one_or_many(left.uses.len(), "is", "are"),
            server.id(),
            crate::render::one_or_many(left.uses.len(), "it", "them"),
            left.class,
            left.file,
            left.line,
            unpacking.join(", "),
            if left.unpacking_classes.len() > unpacking.len() { format!(" and {} more", left.unpacking_classes.len() - unpacking.len()) } else { String::new() },
            crate::render::one_or_many(left.unpacking_classes.len(), "takes", "take"),
            left.class,
            crate::render::one_or_many(left.unpacking_classes.len(), "it", "they"),
            crate::render::one_or_many(left.unpacking_classes.len(), "passes", "pass"),
            server.id(),
            left.file,
            left.line,
        ));
    }
    if !shared_parametrize_argnames_left.is_empty() {
        warnings.push(format!(
            "WARNING: the renamed parameter `{old_name}` is also set by the `@pytest.mark.parametrize` argnames item `{old_name}` at {}, which pytest applies to every test there that takes `{old_name}`, this one included: renamed here and left there, pytest fails to collect this test (\"function uses no argument '{old_name}'\"); runbound did not rename {} because the other tests there share {} — rename {} and the `{old_name}` parameter of each test {} reaches together (one rename per test, then edit the argnames), or keep `{old_name}`",
            shared_parametrize_argnames_left.join(", "),
            crate::render::one_or_many(shared_parametrize_argnames_left.len(), "that item", "those items"),
            crate::render::one_or_many(shared_parametrize_argnames_left.len(), "it", "them"),
            crate::render::one_or_many(shared_parametrize_argnames_left.len(), "it", "them"),
            crate::render::one_or_many(shared_parametrize_argnames_left.len(), "it", "they"),
        ));
    }
    let anonymous_interfaces_left = if renamed_is_go_method { anonymous_interfaces } else { Vec::new() };
    let asserted_interfaces_left = if renamed_is_go_method { asserted_interfaces } else { Vec::new() };
    RenameCoverage {
        edit: merged,
        report,
        summary,
        warnings,
        write_check_blind_spots,
        keyword_arguments_left,
        keyword_argument_callees,
        keyword_argument_class_calls,
        typed_dict_keywords_left,
        anonymous_interfaces_left,
        asserted_interfaces_left,
        cfg_off_same_member_uses,
        shared_parametrize_argnames_left,
        interface_loss_warned_method,
        symbol_scope: local_scope,
        declaration_kept,
        declaration_kept_lines,
        untouched_files_line,
    }
}

/// The functions that copy a dataclass or attrs instance with some fields changed, passed as
/// keyword arguments to its generated constructor: `dataclasses.replace(obj, x=…)`,
/// `copy.replace` (Python 3.13), `attrs.evolve` / `attr.evolve`, as written at a call.
const COPY_WITH_CHANGES_CALLEES: &[&str] = &["replace", "dataclasses.replace", "copy.replace", "evolve", "attrs.evolve", "attr.evolve"];

/// Whether the keyword argument at 0-based `line`/`byte_start` of the Python `text` is in a call
/// of `callee` whose first argument is `self` (`replace(self, x=…)`, also across lines).
fn python_call_on_self(text: &str, line: u32, byte_start: usize, callee: &str) -> bool {
    let line_start: usize = text.split_inclusive('\n').take(line as usize).map(str::len).sum();
    let Some(before) = text.get(..line_start + byte_start) else { return false };
    let opening = format!("{callee}(");
    let Some(at) = before.rfind(&opening) else { return false };
    let arguments = before[at + opening.len()..].trim_start();
    arguments.strip_prefix("self").is_some_and(|rest| rest.trim_start().starts_with(','))
}

/// Whether the `name` at 0-based `line`/`byte_start` of a Go file (`lines`) is a method of an
/// anonymous interface type — `x.(interface{ StackTrace() StackTrace })`, a `var` or parameter of
/// type `interface { … }` across lines — not of a named one (`type T interface {`, a member of a
/// `type ( … )` group) and no call.
fn go_anonymous_interface_method(lines: &[&str], line: usize, byte_start: usize, name: &str) -> bool {
    let Some(text) = lines.get(line) else { return false };
    if !text.get(byte_start + name.len()..).is_some_and(|rest| rest.starts_with('(')) {
        return false;
    }
    let named_opening = |opening: &str| {
        let trimmed = opening.trim_start();
        if trimmed.starts_with("type ") {
            return true;
        }
        let first: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        !first.is_empty() && trimmed[first.len()..].trim_start().starts_with("interface")
    };
    // On the same line: the last `interface` opened before the name and not closed.
    let before = &text[..byte_start.min(text.len())];
    if let Some(at) = before.rfind("interface") {
        let after = before[at + "interface".len()..].trim_start();
        if after.starts_with('{') && !after.contains('}') {
            return !named_opening(text);
        }
    }
    // Across lines: the method line is alone in the block; the nearest line above that opens an
    // `interface {` with no closing brace between.
    if !before.trim().is_empty() {
        return false;
    }
    for opening in lines[..line].iter().rev().take(50) {
        let trimmed = opening.trim_end();
        if trimmed.trim_start().starts_with('}') {
            return false;
        }
        if let Some(at) = trimmed.rfind("interface") {
            if trimmed[at + "interface".len()..].trim() == "{" {
                return !named_opening(trimmed);
            }
        }
    }
    false
}

/// The two `ast_edit` calls that rename the implementations of the Go interface method declared
/// on `interface_line` (`\tSize() int`, `Each(f func(int))`) and their calls from `old_name` to
/// `new_name`: the declarations by a pattern with the method's results (and one naming each
/// result with a metavariable, for implementations that name them), then `$X.old(…)`.
/// `None` when the line is no method of an interface.
fn go_interface_method_rewrites(interface_line: &str, old_name: &str, new_name: &str) -> Option<String> {
    let results = go_interface_method_results_as_written(interface_line, old_name)?;
    // An implementation may name its results (`Len() (l int)`), which the interface's `int`
    // does not match (trial131 M1: gobwas/glob's AnyOf, EveryOf and Row were left, 22 errors):
    // a second declaration pattern names each result with a metavariable.
    let named_results = go_named_results_pattern(results);
    let results = if results.is_empty() { String::new() } else { format!(" {results}") };
    let named_declarations = named_results
        .map(|named| {
            format!(
                ", then the same with {{\"pattern\": \"func ($$$R) {old_name}($$$P) {named} {{ $$$B }}\", \"rewrite\": \"func ($$$R) {new_name}($$$P) {named} {{ $$$B }}\", \"language\": \"go\"}} for implementations that name their results"
            )
        })
        .unwrap_or_default();
    Some(format!(
        "`ast_edit` with {{\"pattern\": \"func ($$$R) {old_name}($$$P){results} {{ $$$B }}\", \"rewrite\": \"func ($$$R) {new_name}($$$P){results} {{ $$$B }}\", \"language\": \"go\"}} renames the declarations (receivers with or without a name; `gofmt -w` the changed files after, it puts a body's first statement back on its own line){named_declarations}, then {{\"pattern\": \"$X.{old_name}($$$A)\", \"rewrite\": \"$X.{new_name}($$$A)\", \"language\": \"go\"}} their calls (read each staged change before accepting: other types' `{old_name}` methods match too, and check that every declaration listed above was renamed)"
    ))
}

/// The string literal around byte `byte_start` of `line`, quotes included (`"fx/simplelru"`,
/// `'./lru'`); `None` when the byte is inside no quotes on the line.
fn quoted_string_around(line: &str, byte_start: usize) -> Option<&str> {
    let before = line.get(..byte_start)?;
    let (open, quote) = before.char_indices().rev().find(|(_, c)| matches!(c, '"' | '\'' | '`'))?;
    let close = line[byte_start..].find(quote)? + byte_start;
    Some(&line[open..=close])
}

/// Whether byte `byte_start` of the Go `line` is the name of a package clause (`package lru`).
fn go_package_clause_name_at(line: &str, byte_start: usize) -> bool {
    let indent = line.len() - line.trim_start().len();
    line[indent..].strip_prefix("package").is_some_and(|rest| {
        let name_start = indent + "package".len() + (rest.len() - rest.trim_start().len());
        rest.starts_with(char::is_whitespace) && name_start == byte_start
    })
}

/// Whether the identifier at `byte_start` of a JavaScript/TypeScript line sits in a destructuring
/// pattern: inside a `{` or `[` opened on the line before it and not closed, with the pattern
/// assigned or iterated after it (`const { foo } = obj`, `for (const { foo } of list)`).
fn destructures_at(line: &str, byte_start: usize) -> bool {
    let (Some(before), Some(after)) = (line.get(..byte_start), line.get(byte_start..)) else { return false };
    let opened = before.matches(['{', '[']).count() > before.matches(['}', ']']).count();
    let declared = ["const ", "let ", "var "].iter().any(|keyword| before.contains(keyword));
    let assigned = after.find(['}', ']']).is_some_and(|close| {
        let rest = after[close + 1..].trim_start();
        (rest.starts_with('=') && !rest.starts_with("==")) || rest.starts_with("of ") || rest.starts_with(':')
    });
    opened && declared && assigned
}

/// Whether the identifier at `byte_start` (`length` bytes) of a JavaScript/TypeScript line is a
/// shorthand property of an object literal (`f({ a, scrollOffset })`): inside a `{` opened on
/// the line, between `{`/`,` and `,`/`}` — it names a property too, not only the local it reads
/// (trial56: the kept property's shorthand, listed to check).
fn shorthand_property_at(line: &str, byte_start: usize, length: usize) -> bool {
    let (Some(before), Some(after)) = (line.get(..byte_start), line.get(byte_start + length..)) else { return false };
    let opened = before.matches('{').count() > before.matches('}').count();
    let before = before.trim_end();
    let after = after.trim_start();
    opened && (before.ends_with('{') || before.ends_with(',')) && (after.starts_with(',') || after.starts_with('}'))
}

/// Whether `path` is a Go source file.
fn path_is_go(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "go")
}

/// The results of the Go interface method `name` declared on `interface_line` (`\tGet(key
/// interface{}) (value interface{}, ok bool)`), as written: `(value interface{}, ok bool)`,
/// `int`, or empty for none. `None` when the line declares no method `name`.
fn go_interface_method_results_as_written<'l>(interface_line: &'l str, name: &str) -> Option<&'l str> {
    let rest = interface_line.trim().strip_prefix(name)?;
    let after_parameters = go_after_parameter_list(rest)?;
    Some(after_parameters.split("//").next().unwrap_or("").trim())
}

/// The text after the parenthesized list `text` starts with (`(a, b int) int` → ` int`); `None`
/// when `text` does not start with `(` or the list does not close.
fn go_after_parameter_list(text: &str) -> Option<&str> {
    if !text.starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    for (index, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[index + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The results of the Go interface method `name` declared on `interface_line`, whitespace
/// removed so two spellings compare equal (`(value interface{}, ok bool)` →
/// `(valueinterface{},okbool)`); see [`go_method_declaration_results`].
fn go_method_results(interface_line: &str, name: &str) -> Option<String> {
    go_interface_method_results_as_written(interface_line, name).map(|results| results.split_whitespace().collect())
}

/// The results of the Go method `name` declared on `line` (`func (c *TwoQueueCache) Get(key
/// interface{}) (value interface{}, ok bool) {`), whitespace removed as [`go_method_results`]
/// gives an interface method's; `None` when the line declares no method `name`. The results end
/// at the body's ` {` (gofmt puts a space before it; `interface{}` has none).
fn go_method_declaration_results(line: &str, name: &str) -> Option<String> {
    let receiver_list = line.trim_start().strip_prefix("func")?.trim_start();
    let after_receiver = go_after_parameter_list(receiver_list)?.trim_start();
    let after_name = after_receiver.strip_prefix(name)?;
    let after_parameters = go_after_parameter_list(after_name)?;
    let results = after_parameters.find(" {").map_or(after_parameters, |body| &after_parameters[..body]);
    Some(results.split("//").next().unwrap_or("").split_whitespace().collect())
}

/// The structural recipe `rewrites` ([`go_interface_method_rewrites`]) with the methods of other
/// types its declaration pattern matches named (`same_shaped_others`: each `` `T.Get` (file:line)
/// ``, declared with the interface method's name and results but implementing nothing of it):
/// trial157 M1, golang-lru's `TwoQueueCache.Get` and `ARCCache.Get` were renamed by it too.
fn with_same_shaped_others(rewrites: &str, old_name: &str, same_shaped_others: &[String]) -> String {
    if same_shaped_others.is_empty() {
        return rewrites.to_owned();
    }
    let generic = format!("other types' `{old_name}` methods match too");
    let named = format!(
        "other types' `{old_name}` methods with these results match too — here {}, which {} nothing of this interface: to leave {} out, run the declaration pattern with `path` set to each listed implementation's file; the calls' pattern renames {} calls as well, so edit those back",
        same_shaped_others.join(", "),
        if same_shaped_others.len() == 1 { "implements" } else { "implement" },
        if same_shaped_others.len() == 1 { "it" } else { "them" },
        if same_shaped_others.len() == 1 { "its" } else { "their" },
    );
    rewrites.replacen(&generic, &named, 1)
}

/// The names of the methods declared on the Go type `type_name` (value or pointer receiver) in
/// the package of `file`: the `.go` files of its directory.
fn go_method_names_of_type(reader: &WorkspaceReader, file: &Path, type_name: &str) -> HashSet<String> {
    go_method_declarations_of_type(reader, file, type_name).into_iter().map(|(name, _)| name).collect()
}

/// The methods of the Go type `type_name` declared in the `.go` files of `file`'s directory
/// (receiver `T` or `*T`), each as (name, declaration line).
fn go_method_declarations_of_type(reader: &WorkspaceReader, file: &Path, type_name: &str) -> Vec<(String, String)> {
    let mut names = Vec::new();
    let Some(dir) = file.parent() else { return names };
    for (path, _) in crate::files::walk_beneath::list_directory(reader.root(), dir).into_iter().take(500) {
        if path.extension().is_none_or(|extension| extension != "go") {
            continue;
        }
        let Ok(text) = reader.read_to_string(&path) else { continue };
        for line in text.lines().filter(|line| line.starts_with("func (")) {
            if crate::lsp::rename_public_api::go_method_receiver(line).as_deref() != Some(type_name) {
                continue;
            }
            let Some(after) = line.find(')').map(|end| line[end + 1..].trim_start()) else { continue };
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                names.push((name, line.to_owned()));
            }
        }
    }
    names
}

/// The other methods of the standard interface `interface` (from [`go_dynamic_standard_interface`])
/// than `method`: sort.Interface's `Len`, `Less`, `Swap`; none for the one-method interfaces.
fn go_standard_interface_other_methods(interface: &str, method: &str) -> Vec<&'static str> {
    match interface {
        "sort.Interface" => ["Len", "Less", "Swap"].into_iter().filter(|other| *other != method).collect(),
        _ => Vec::new(),
    }
}

/// Whether the Go method declared on `declaration_line` in `declaration_file`, named `method`
/// there (or after a rename), completes the standard interface `interface` of its type: the type
/// has each of the interface's other methods with the name and parameters it requires, declared
/// in the files of its directory on `T` or `*T` (a pointer's method set holds both, so `*T`
/// implements it whichever receivers they have). Always true for a one-method interface (trial161
/// M1: `*BTree` has `Len` but no `Less`/`Swap`, and never implemented sort.Interface).
fn go_type_completes_standard_interface(
    reader: &WorkspaceReader,
    declaration_file: &Path,
    declaration_line: &str,
    method: &str,
    interface: &str,
) -> bool {
    let others = go_standard_interface_other_methods(interface, method);
    if others.is_empty() {
        return true;
    }
    let Some(receiver) = crate::lsp::rename_public_api::go_method_receiver(declaration_line) else { return false };
    let declared = go_method_declarations_of_type(reader, declaration_file, &receiver);
    others
        .iter()
        .all(|other| declared.iter().any(|(name, line)| name == other && go_dynamic_standard_interface(line, other) == Some(interface)))
}

/// The method specs named `old_name` of the Go interfaces declared in the `.go` files (tests
/// left out) beneath `dirs` whose every method name is in `methods` (a type with those methods
/// satisfies them by name; an interface that embeds another is left out): each as (canonical
/// path, 0-based line of the method spec, 0). At most 2,000 files are read, until `deadline`.
fn go_interfaces_satisfied_by_names(
    reader: &WorkspaceReader,
    dirs: &[PathBuf],
    methods: &HashSet<String>,
    old_name: &str,
    deadline: Instant,
) -> Vec<Target> {
    let mut found = Vec::new();
    let mut read = 0usize;
    for dir in dirs {
        if read >= 2000 || Instant::now() >= deadline {
            break;
        }
        let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), dir) else { continue };
        for entry in walk.hidden(true).skip_names(&["vendor", "testdata", ".git", "node_modules"]).iter().flatten() {
            let path = entry.path();
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            if read >= 2000 || Instant::now() >= deadline {
                break;
            }
            if !entry.is_file() || !name.ends_with(".go") || name.ends_with("_test.go") {
                continue;
            }
            read += 1;
            let Ok(text) = reader.read_to_string(path) else { continue };
            let lines: Vec<&str> = text.lines().collect();
            let mut index = 0;
            while index < lines.len() {
                let line = lines[index].trim();
                let opens = line.starts_with("type ") && line.ends_with("interface {");
                index += 1;
                if !opens {
                    continue;
                }
                let mut specs: Vec<(String, usize)> = Vec::new();
                let mut embeds = false;
                while index < lines.len() && lines[index].trim() != "}" {
                    let spec = lines[index].split("//").next().unwrap_or("").trim();
                    if !spec.is_empty() {
                        let name: String = spec.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                        if spec[name.len()..].trim_start().starts_with('(') {
                            specs.push((name, index));
                        } else {
                            embeds = true;
                        }
                    }
                    index += 1;
                }
                let satisfied = !embeds && !specs.is_empty() && specs.iter().all(|(name, _)| methods.contains(name));
                if let Some((_, line0)) = specs.iter().find(|(name, _)| name == old_name).filter(|_| satisfied) {
                    found.push((std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()), *line0 as u32, 0));
                }
            }
        }
    }
    found
}

/// The results of a Go method spec written without names (`int`, `(int, bool)`) as a pattern that
/// names each with a metavariable (`($N1 int)`, `($N1 int, $N2 bool)`). `None` without results,
/// for results already named, or for a result type with a space or a comma inside brackets
/// (`chan int`, `func(a, b int) error`), which the split cannot read.
fn go_named_results_pattern(results: &str) -> Option<String> {
    let inner = results.strip_prefix('(').and_then(|rest| rest.strip_suffix(')')).unwrap_or(results).trim();
    if inner.is_empty() || inner.contains(['(', '{', ' ']) && inner.split(',').any(|part| part.trim().contains([' ', '(', '{'])) {
        return None;
    }
    let types: Vec<&str> = inner.split(',').map(str::trim).collect();
    if types.iter().any(|type_text| type_text.is_empty() || type_text.contains([' ', '(', '{'])) {
        return None;
    }
    let named: Vec<String> = types.iter().enumerate().map(|(index, type_text)| format!("$N{} {type_text}", index + 1)).collect();
    Some(format!("({})", named.join(", ")))
}

/// Whole-word occurrences of `old_name` in Rust files that `edit`'s text edits do not cover
/// (its file operations left aside) and that rust-analyzer does not analyze (behind a `#[cfg]`
/// that is off, inside a `macro_rules!` template), with where each is and why. Empty for other
/// languages.
fn occurrences_unanalyzed_outside_edit(
    server: &LanguageServer,
    workspace_root: &Path,
    edit: &lsp_types::WorkspaceEdit,
    old_name: &str,
) -> Vec<(WordHit, crate::lsp::inactive::RustUnresolvedPlace)> {
    if server.id() != "rust-analyzer" {
        return Vec::new();
    }
    let mut covered: BTreeMap<PathBuf, Vec<(u32, u32, u32, u32)>> = BTreeMap::new();
    if let Some(lsp_types::DocumentChanges::Operations(operations)) = &edit.document_changes {
        for operation in operations {
            if let lsp_types::DocumentChangeOperation::Edit(document_edit) = operation {
                let Some(path) = lsp_uri_to_path(&document_edit.text_document.uri) else { continue };
                let path = std::fs::canonicalize(&path).unwrap_or(path);
                covered.entry(path).or_default().extend(document_edit.edits.iter().map(|edit| match edit {
                    lsp_types::OneOf::Left(edit) => range_of(edit),
                    lsp_types::OneOf::Right(annotated) => range_of(&annotated.text_edit),
                }));
            }
        }
    }
    let encoding = server.position_encoding();
    let place = |path: &Path, line0: u32| format!("{}:{}", crate::render::display_path(workspace_root, path), line0 + 1);
    grep_word(server.definition(), server.workspace_root(), server.root(), old_name)
        .hits
        .into_iter()
        .filter(|hit| hit.path.extension().is_some_and(|ext| ext == "rs"))
        .filter(|hit| {
            let start = encoding.column_from_byte(&hit.line_text, hit.byte_start);
            let end = encoding.column_from_byte(&hit.line_text, hit.byte_start + old_name.len());
            !covered.get(&hit.path).is_some_and(|ranges| ranges.iter().any(|range| covers(*range, hit.line, start, end)))
        })
        .filter_map(|hit| {
            let found = crate::lsp::inactive::rust_unresolved_place(workspace_root, &hit.path, hit.line, &place)?;
            Some((hit, found))
        })
        .collect()
}

/// The 0-based line of a `use` statement of the Rust file `text` on which `file_edits` (the
/// rename's edits of that file) rename `old_name` to `new_name`, before the bare occurrence `hit`
/// and in its block or a block enclosing it (braces counted, strings and comments not told
/// apart), with no binding of the name on the way (`let OLD`, `|OLD: u8|`, a parameter): the
/// occurrence resolves through that `use`. `None` for an occurrence written with a path
/// (`a::OLD`), as a member (`.OLD`), in a `use` itself, a binding, or with no such `use` in
/// scope.
fn rust_renamed_use_in_scope(
    text: &str,
    file_edits: &[lsp_types::TextEdit],
    hit: &WordHit,
    old_name: &str,
    new_name: &str,
    encoding: PositionEncoding,
) -> Option<u32> {
    let before = hit.line_text.get(..hit.byte_start)?.trim_end();
    if before.ends_with("::") || before.ends_with('.') || before.trim_start().starts_with("use ") || before.contains(" use ") {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    // A binding of the name (`let OLD`, a closure's `|OLD: u8|`, a parameter `OLD: T`, a pattern
    // `OLD @ …`) is another symbol from there on: nothing after it is said to resolve through a
    // `use`. (`(OLD` is no binding: `assert_eq!(OLD::Disk, …)`, review48 H4.)
    let binds_name = |line: &str, up_to: usize| {
        word_positions(line, old_name).into_iter().filter(|at| *at <= up_to).any(|at| {
            let before = line[..at].trim_end();
            let after = line[at + old_name.len()..].trim_start();
            ["let", "mut", "ref", "|"].iter().any(|binding| before.ends_with(binding))
                || (after.starts_with(':') && !after.starts_with("::"))
                || after.starts_with('@')
        })
    };
    // An item or another `use` of the name in the block shadows the renamed `use` in all of it.
    let declares_name = |line: &str| {
        let code = rust_code_only(line);
        let item = code.trim_start();
        let item = item.strip_prefix("pub(crate) ").or_else(|| item.strip_prefix("pub ")).unwrap_or(item);
        crate::lsp::rust_reexport_paths::rust_line_declares_item(&code, old_name)
            || (item.starts_with("use ") && !word_positions(&code, old_name).is_empty())
    };
    file_edits
        .iter()
        .filter(|edit| edit.new_text == new_name && edit.range.start.line < hit.line && edit.range.start.line == edit.range.end.line)
        .filter_map(|edit| {
            let line0 = edit.range.start.line;
            let line = *lines.get(line0 as usize)?;
            let byte = encoding.byte_from_column(line, edit.range.start.character);
            let statement = line.get(..byte)?;
            let is_use = {
                let trimmed = statement.trim_start();
                let trimmed = trimmed.strip_prefix("pub(crate) ").or_else(|| trimmed.strip_prefix("pub ")).unwrap_or(trimmed);
                trimmed.starts_with("use ")
            };
            // The `use` binds the name itself: `…::OLD;`, `…::{…, OLD}`, not `OLD::x` or `OLD as Y`.
            let after = line.get(byte + old_name.len()..)?.trim_start();
            let binds = after.starts_with([';', ',', '}']) && line.get(byte..byte + old_name.len()) == Some(old_name);
            (is_use && binds).then_some(line0)
        })
        .filter(|use_line| {
            let between = lines.get(*use_line as usize + 1..hit.line as usize).unwrap_or_default();
            !between.iter().any(|line| binds_name(line, line.len())) && !binds_name(&hit.line_text, hit.byte_start)
        })
        .filter(|use_line| {
            // From the `use` on: the occurrence must sit in the `use`'s block (or a block inside
            // it that is no `mod`: a module does not inherit its parent's imports), and nothing in
            // that block may declare or import the name again. Strings, chars and comments are
            // left out of the count.
            let mut openers: Vec<bool> = Vec::new();
            let mut reached = false;
            for (index, line) in lines.iter().enumerate().skip(*use_line as usize + 1) {
                let at_hit = index == hit.line as usize;
                let code = rust_code_only(if at_hit { hit.line_text.get(..hit.byte_start).unwrap_or("") } else { line });
                if openers.is_empty() && declares_name(line) {
                    return false;
                }
                let mut statement_start = 0;
                for (at, character) in code.char_indices() {
                    match character {
                        '{' => {
                            let head = code[statement_start..at].trim();
                            let opens_mod = head.split_whitespace().any(|word| word == "mod");
                            openers.push(opens_mod);
                            statement_start = at + 1;
                        }
                        '}' => {
                            if openers.pop().is_none() {
                                // The `use`'s block closed: past the occurrence it is done.
                                return reached;
                            }
                            statement_start = at + 1;
                        }
                        ';' => statement_start = at + 1,
                        _ => {}
                    }
                }
                if at_hit {
                    if openers.iter().any(|opens_mod| *opens_mod) {
                        return false;
                    }
                    reached = true;
                }
            }
            reached
        })
        .max()
}

/// A Rust line's code: with its `//` comment, string literals and char literals blanked (their
/// braces are no blocks). Raw strings and strings over lines are not told apart.
fn rust_code_only(line: &str) -> String {
    let mut code = String::with_capacity(line.len());
    let mut characters = line.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '/' if characters.peek() == Some(&'/') => break,
            '"' => {
                code.push(' ');
                while let Some(inner) = characters.next() {
                    if inner == '\\' {
                        characters.next();
                    } else if inner == '"' {
                        break;
                    }
                }
            }
            // A char literal (`'{'`, `'\\''`), not a lifetime (`'a`): closed within 3 characters.
            '\'' => {
                let rest: String = characters.clone().take(4).collect();
                let closes = rest.chars().nth(1) == Some('\'') || (rest.starts_with('\\') && rest.chars().nth(2) == Some('\''));
                if closes {
                    let skip = if rest.starts_with('\\') { 3 } else { 2 };
                    for _ in 0..skip {
                        characters.next();
                    }
                    code.push(' ');
                } else {
                    code.push(character);
                }
            }
            _ => code.push(character),
        }
    }
    code
}

/// The definition targets a rename can reach: those in the workspace when there is one. A Rust
/// macro call's argument that the template uses both as a new item's name and as a path to
/// another (`float_const_impl! { PI, … }`, expanded to `fn PI() -> Self` and `$T::consts::PI`)
/// has rust-analyzer's definition there lead to the standard library's constants too; a use of
/// those is no reference of the renamed item (trial71 F3: num-traits' `consts::PI` in a test and
/// 24 doc-test lines were renamed with `FloatConst::PI`, and 20 doc-tests failed).
/// Whether the whole-word occurrence at `byte_start` (`length` bytes) of a Rust `line` is a path
/// segment that never names a renamed field or function: one the path leads on through (`hash`
/// of `core::hash::Hash` or `use core::hash::{…}`: a module, type or trait), except a function's
/// turbofish (`NAME::<T>()`); for a field (`field`), any path segment (`use core::hash;`) — a
/// field is never named by a path.
fn rust_path_segment_never_the_renamed(line: &str, byte_start: usize, length: usize, field: bool) -> bool {
    let after = line.get(byte_start + length..).unwrap_or("").trim_start();
    let before = line.get(..byte_start).unwrap_or("").trim_end();
    let leads_on = after.starts_with("::") && (field || !after.starts_with("::<"));
    leads_on || (field && before.ends_with("::"))
}

/// Whether the identifier `name` at byte `byte_column` of a JavaScript/TypeScript `line_text`
/// is a binding its import statement declares for this module alone: the default import
/// (`import NAME from`, `import NAME, { … } from`), a namespace import (`import * as NAME`) or
/// an alias (`import { x as NAME }`). One-line import statements only.
fn is_local_import_binding(line_text: &str, byte_column: usize, name: &str) -> bool {
    let trimmed = line_text.trim_start();
    let Some(after_import) = trimmed.strip_prefix("import ") else { return false };
    if !line_text.get(byte_column..).is_some_and(|rest| rest.starts_with(name)) {
        return false;
    }
    let before = line_text[..byte_column].trim_end();
    let clause_start = line_text.len() - after_import.len();
    if byte_column < clause_start {
        return false;
    }
    let clause = line_text[clause_start..byte_column].trim();
    // `import NAME` / `import type NAME`: the default import; `… as NAME`: an alias or `* as`.
    clause.is_empty() || clause == "type" || before.ends_with(" as")
}

/// The string prefix of an attribute name a Python line builds at run time for `getattr`
/// (`getattr(self, 'visit_' + node.expr_name, …)`, `getattr(obj, f"on_{event}")`, `getattr(x,
/// "do_%s" % verb)`): `visit_`, `on_`, `do_`. `None` for a literal name or no `getattr`.
fn built_attribute_name_prefix(line: &str) -> Option<String> {
    let at = line.find("getattr(")?;
    let arguments = &line[at + "getattr(".len()..];
    let second = arguments[arguments.find(',')? + 1..].trim_start();
    let (formatted, rest) = match second.strip_prefix('f') {
        Some(rest) if rest.starts_with(['\'', '"']) => (true, rest),
        _ => (false, second),
    };
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &rest[1..];
    let end = body.find(quote)?;
    let literal = &body[..end];
    let after = body[end + 1..].trim_start();
    let prefix: String = if formatted {
        literal.split('{').next().filter(|head| head.len() < literal.len())?.to_owned()
    } else if after.starts_with('+') {
        literal.to_owned()
    } else if after.starts_with('%') {
        literal.split('%').next().filter(|head| head.len() < literal.len())?.to_owned()
    } else {
        return None;
    };
    (!prefix.is_empty() && prefix.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(prefix)
}

fn renamable_targets(workspace_root: &Path, targets: HashSet<Target>) -> HashSet<Target> {
    let canonical_root = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let inside = |path: &Path| path.starts_with(workspace_root) || path.starts_with(&canonical_root);
    if targets.iter().any(|(path, _, _)| inside(path)) {
        targets.into_iter().filter(|(path, _, _)| inside(path)).collect()
    } else {
        targets
    }
}

/// Whether `target` (a definition's start: canonical path, 0-based line, column in `encoding`)
/// lies in a Rust macro call's arguments (`integer!(u32, …)`), read beneath `workspace_root`.
fn in_rust_macro_arguments(workspace_root: &Path, (path, line, character): &Target, encoding: PositionEncoding) -> bool {
    if path.extension().is_none_or(|ext| ext != "rs") {
        return false;
    }
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, path) else { return false };
    let Some(line_text) = text.lines().nth(*line as usize) else { return false };
    let byte = encoding.byte_from_column(line_text, *character);
    // By the syntax tree: a macro call's token tree holds statements too (`forward! {
    // Float::sqrt(self) -> Self; … }`, trial71 F1), which a scan back to a `;` misses.
    let Some(parsed) = crate::lsp::syntax::ParsedSource::parse(path, &text) else { return false };
    parsed.in_macro_invocation_arguments(*line, byte)
}

/// The name (`bitflags`) and 0-based last line of the Rust macro call whose range `target` (a
/// definition's start: canonical path, 0-based line, column in `encoding`) starts, read beneath
/// `workspace_root` (see [`crate::lsp::syntax::ParsedSource::rust_macro_call_starting_at`]);
/// `None` for an identifier, another language or an unreadable file.
fn rust_macro_call_target(workspace_root: &Path, (path, line, character): &Target, encoding: PositionEncoding) -> Option<(String, u32)> {
    if !path_is_rust(path) {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(workspace_root, path).ok()?;
    let line_text = text.lines().nth(*line as usize)?;
    let byte = encoding.byte_from_column(line_text, *character);
    // Parsed only where the text can start one: a path then `!`, or an attribute.
    let rest = line_text.get(byte..)?;
    let after_path = rest.trim_start_matches(|ch: char| is_identifier_char(ch) || ch == ':' || ch == '$');
    if !rest.starts_with('#') && (after_path.len() == rest.len() || !after_path.trim_start().starts_with('!')) {
        return None;
    }
    crate::lsp::syntax::ParsedSource::parse(path, &text)?.rust_macro_call_starting_at(*line, byte)
}

/// `targets` without the Rust macro calls' ranges among them (see [`rust_macro_call_target`])
/// when a declaration is left: rust-analyzer gives the call's range beside the item's own
/// declaration for an item a macro generates (`two_flags!(First, Second)` beside `pub const ABC`
/// in the template), and the first target then stood for the symbol (trial171 F1). Unchanged
/// when every target is such a call.
fn without_rust_macro_calls(workspace_root: &Path, targets: HashSet<Target>, encoding: PositionEncoding) -> HashSet<Target> {
    let identifiers: HashSet<Target> =
        targets.iter().filter(|target| rust_macro_call_target(workspace_root, target, encoding).is_none()).cloned().collect();
    if identifiers.is_empty() {
        targets
    } else {
        identifiers
    }
}

/// What the definition answer at an occurrence (`targets`) says about the symbol asked, whose
/// own definition answer is `origin_targets` (see [`definition_leads_here`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum DefinitionLeads {
    /// A target is one of the asked symbol's own (or `listed` among its references or edits).
    ThisSymbol,
    /// Every target is another declaration.
    Elsewhere,
    /// The only target is a Rust macro call's range (with the macro's name) that may have
    /// generated the symbol asked: not an identifier, so it says nothing about which of the
    /// items the call generates the occurrence names.
    OnlyMacroCall(Target, String),
}

/// Whether the definition answer at an occurrence (`targets`) leads to the symbol asked (its
/// own definition answer `origin_targets`; `listed`: whether a target is one of the answer's
/// references or the rename's edits). A target in a Rust macro call's arguments counts only as
/// the symbol itself (trial66 F1). A target that is a Rust macro call's range (`bitflags! {`,
/// not an identifier) never counts, on either side: one call generates several items of the
/// same name, and rust-analyzer gives that range for each of them while it cannot map their
/// names back (trial171 F1: `TestExternal::ABC` "led" to `TestFlags::ABC` through the shared
/// `bitflags! {` line and both were merged into one rename, 31 edits instead of 25, 7 tests
/// failing). Such a call leads elsewhere when it cannot have generated the symbol asked (the
/// symbol's declaration lies in another call's arguments: a fn-local `bitflags!` in another
/// file), and is said ambiguous otherwise.
fn definition_leads_here(
    workspace_root: &Path,
    targets: &HashSet<Target>,
    origin_targets: &HashSet<Target>,
    listed: &dyn Fn(&Target) -> bool,
    encoding: PositionEncoding,
) -> DefinitionLeads {
    // Whether the call from `call` to its 0-based `last_line` may have generated the symbol asked:
    // its own declaration lies in the call's arguments, or in a `macro_rules!` template (which
    // call made it is unknown), or the asked symbol's definition is that very call.
    let may_generate_it = |call: &Target, last_line: u32| {
        origin_targets.contains(call)
            || origin_targets.iter().any(|(path, line, _)| {
                (same_file(path, &call.0) && (call.1..=last_line).contains(line))
                    || crate::files::read_workspace_file_to_string(workspace_root, path).is_ok_and(|text| {
                        crate::lsp::inactive::macro_rules_line_ranges(&text).iter().any(|(first, last)| (*first..=*last).contains(line))
                    })
            })
    };
    let mut macro_call: Option<(Target, String)> = None;
    let mut identifiers: Vec<&Target> = Vec::new();
    let mut other_calls = 0usize;
    for target in targets {
        match rust_macro_call_target(workspace_root, target, encoding) {
            Some((name, last_line)) if may_generate_it(target, last_line) => {
                if macro_call.as_ref().is_none_or(|(first, _)| target < first) {
                    macro_call = Some((target.clone(), name));
                }
            }
            Some(_) => other_calls += 1,
            None => identifiers.push(target),
        }
    }
    let leads = identifiers
        .iter()
        .any(|target| origin_targets.contains(*target) || (listed(target) && !in_rust_macro_arguments(workspace_root, target, encoding)));
    match (leads, macro_call) {
        (true, _) => DefinitionLeads::ThisSymbol,
        (false, Some((target, name))) if identifiers.is_empty() && other_calls == 0 => DefinitionLeads::OnlyMacroCall(target, name),
        (false, _) => DefinitionLeads::Elsewhere,
    }
}

/// The note on the occurrences (`only_macro_call`: path, 0-based line and character, the macro
/// call's target and name) whose definition `server` gives only as a Rust macro call's range, each call
/// named once, with what became of them (`what`: "not merged into this answer", "not renamed")
/// and the next step; `None` when there are none (trial171 F1).
fn only_macro_call_note(
    server: &LanguageServer,
    only_macro_call: &[(PathBuf, u32, u32, Target, String)],
    name: &str,
    what: &str,
    shown: &dyn Fn(&Path) -> String,
) -> Option<String> {
    if only_macro_call.is_empty() {
        return None;
    }
    let mut calls: Vec<String> = Vec::new();
    for (_, _, _, (path, line0, _), macro_name) in only_macro_call {
        let call = format!("`{macro_name}!` at {}:{}", shown(path), line0 + 1);
        if !calls.contains(&call) {
            calls.push(call);
        }
    }
    let while_loading = server.is_loading()
        || only_macro_call.iter().any(|(path, line0, character, _, _)| server.lookup_answered_while_loading(path, *line0, *character));
    let places: Vec<String> = only_macro_call.iter().map(|(path, line0, _, _, _)| format!("{}:{}", shown(path), line0 + 1)).collect();
    Some(format!(
        "note: {what}: {} of `{name}` whose definition {id} gives only as the macro call {}{} — a macro call's range, not a declaration: one call can generate several items named `{name}` (other types' members), so whether these name this symbol is unknown{}: {}{} — read them, or ask `definition` there again{}",
        crate::render::plural(only_macro_call.len(), "occurrence"),
        calls.iter().take(2).cloned().collect::<Vec<_>>().join(", "),
        if calls.len() > 2 { format!(" and {} more", calls.len() - 2) } else { String::new() },
        if while_loading { format!(" ({} was still loading the project)", server.id()) } else { String::new() },
        places.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", "),
        if places.len() > LISTED { format!(" and {} more", places.len() - LISTED) } else { String::new() },
        if while_loading { format!(" once `lsp status` shows {} ready", server.id()) } else { String::new() },
        id = server.id(),
    ))
}

/// The Rust member (a struct's field, an inherent `impl`'s function) declared at the first of
/// `origin_targets` (canonical path, 0-based line, column in `encoding`), read beneath
/// `workspace_root`; `None` for anything else or another language (see
/// [`crate::lsp::rust_cfg_off_occurrences::rust_member_declared_at`]).
fn rust_member_of_targets(
    workspace_root: &Path,
    origin_targets: &HashSet<Target>,
    name: &str,
    encoding: PositionEncoding,
) -> Option<crate::lsp::rust_cfg_off_occurrences::RustMember> {
    let (path, target_line, target_character) = origin_targets.iter().min()?;
    if !path_is_rust(path) {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(workspace_root, path).ok()?;
    let line_text = text.lines().nth(*target_line as usize)?;
    let byte_column = encoding.byte_from_column(line_text, *target_character);
    crate::lsp::rust_cfg_off_occurrences::rust_member_declared_at(&text, *target_line, byte_column, name)
}

/// The report lines and write-check blind spots of Rust occurrences rust-analyzer does not
/// analyze (`unanalyzed`: behind a `#[cfg]` that is off, inside a `macro_rules!` template), each
/// with where it stands, and the check that compiles it. With the renamed `member` known, the
/// gated ones the syntax tree shows to be that very member are listed first, as uses a build
/// with the cfg needs renamed (trial167 M2), and those it shows to be other symbols of the same
/// name are counted in one line (trial167 M3); the rest stay "if they name this symbol". Returns
/// the places (`path:line`) of the uses of the member, which stage the rename. Nothing when
/// there are none.
#[allow(clippy::too_many_arguments)]
fn report_unanalyzed(
    report: &mut Vec<String>,
    write_check_blind_spots: &mut Vec<String>,
    unanalyzed: &[(WordHit, crate::lsp::inactive::RustUnresolvedPlace)],
    server_id: &str,
    old_name: &str,
    new_name: &str,
    member: Option<&crate::lsp::rust_cfg_off_occurrences::RustMember>,
    workspace_root: &Path,
    shown: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    use crate::lsp::rust_cfg_off_occurrences::CfgOffOccurrence;
    if unanalyzed.is_empty() {
        return Vec::new();
    }
    let verdicts: Vec<CfgOffOccurrence> = match member {
        Some(member) => {
            let places: Vec<(PathBuf, u32, usize)> =
                unanalyzed.iter().map(|(hit, _)| (hit.path.clone(), hit.line, hit.byte_start)).collect();
            crate::lsp::rust_cfg_off_occurrences::classify_cfg_off_places(workspace_root, &places, member)
                .into_iter()
                .zip(unanalyzed)
                .map(|(verdict, (_, place))| if place.in_macro_template { CfgOffOccurrence::Undecided } else { verdict })
                .collect()
        }
        None => vec![CfgOffOccurrence::Undecided; unanalyzed.len()],
    };
    let same: Vec<(&(WordHit, crate::lsp::inactive::RustUnresolvedPlace), String)> = unanalyzed
        .iter()
        .zip(&verdicts)
        .filter_map(|(item, verdict)| match verdict {
            CfgOffOccurrence::SameMember { how, .. } => Some((item, how.clone())),
            _ => None,
        })
        .collect();
    // Shorthand fields (`Owner { old }`) take `new: old`, not the word replaced (review50 H5:
    // `DirEntry { follow }` reads a local `follow` that does not exist; in a pattern, the local
    // the lines below read loses its name).
    let shorthand_lines: Vec<(&Path, u32)> = unanalyzed
        .iter()
        .zip(&verdicts)
        .filter(|(_, verdict)| matches!(verdict, CfgOffOccurrence::SameMember { shorthand_field: true, .. }))
        .map(|((hit, _), _)| (hit.path.as_path(), hit.line))
        .collect();
    let shorthand_edit = format!("write `{new_name}: {old_name}` for the shorthand `{old_name}`");
    let others: Vec<(&(WordHit, crate::lsp::inactive::RustUnresolvedPlace), String)> = unanalyzed
        .iter()
        .zip(&verdicts)
        .filter_map(|(item, verdict)| match verdict {
            CfgOffOccurrence::OtherSymbol(why) => Some((item, why.clone())),
            _ => None,
        })
        .collect();
    let undecided: Vec<&(WordHit, crate::lsp::inactive::RustUnresolvedPlace)> =
        unanalyzed.iter().zip(&verdicts).filter(|(_, verdict)| **verdict == CfgOffOccurrence::Undecided).map(|(item, _)| item).collect();
    // Where a gated place stands, short: its gate; the gate's check is said once below.
    let short_place = |place: &crate::lsp::inactive::RustUnresolvedPlace| place.gate.clone().unwrap_or_else(|| place.reason.clone());
    let mut same_member_places: Vec<String> = Vec::new();
    if let (Some(member), false) = (member, same.is_empty()) {
        let lines = one_per_line(same.iter(), |((hit, _), _)| hit);
        let shorthand_on = |hit: &WordHit| shorthand_lines.contains(&(hit.path.as_path(), hit.line));
        same_member_places = lines
            .iter()
            .map(|(((hit, _), _), _)| {
                let edit = if shorthand_on(hit) { format!(" ({shorthand_edit})") } else { String::new() };
                format!("{}:{}{edit}", shown(&hit.path), hit.line + 1)
            })
            .collect();
        let shorthand_said = if shorthand_lines.is_empty() {
            String::new()
        } else {
            format!(
                " — but on {} with a shorthand field, {shorthand_edit} instead (it keeps the local `{old_name}` the line reads or binds)",
                crate::render::one_or_many(lines.iter().filter(|(((hit, _), _), _)| shorthand_on(hit)).count(), "the line", "the lines"),
            )
        };
        report.push(format!(
            "  left unrenamed: {} of the renamed {} behind a `#[cfg]` that is off — {server_id} does not analyze that code, so its rename could not reach {}; by the syntax tree {} this same member (how, on each line), so a build with that cfg breaks until {} renamed too — after `resolve` accept, replace `{old_name}` with `{new_name}` at {} on these {}{shorthand_said} (the edit tool), then run the check below:",
            crate::render::plural(same.len(), "use"),
            member.described(),
            crate::render::one_or_many(same.len(), "it", "them"),
            crate::render::one_or_many(same.len(), "it is", "each is"),
            crate::render::one_or_many(same.len(), "it is", "they are"),
            crate::render::one_or_many(same.len(), "that occurrence", "those occurrences"),
            crate::render::plural(lines.len(), "line"),
        ));
        list_lines(
            report,
            &lines,
            LISTED,
            |((hit, _), _)| hit,
            shown,
            old_name.len(),
            |((hit, place), how)| {
                let edit = if shorthand_on(hit) { format!(": {shorthand_edit} here") } else { String::new() };
                format!("   ({how}{edit}; {})", short_place(place))
            },
        );
    }
    if !others.is_empty() {
        let mut reasons: Vec<&str> = Vec::new();
        for (_, why) in &others {
            if !reasons.contains(&why.as_str()) {
                reasons.push(why);
            }
        }
        let mut places: Vec<String> = others.iter().map(|((hit, _), _)| format!("{}:{}", shown(&hit.path), hit.line + 1)).collect();
        places.dedup();
        let more = if places.len() > LISTED { format!(" and {} more", places.len() - LISTED) } else { String::new() };
        report.push(format!(
            "  left unrenamed, rightly: {} behind a `#[cfg]` that is off that name other symbols of the same name, by the syntax tree ({}): {}{more}",
            crate::render::plural(others.len(), "occurrence"),
            reasons.iter().take(4).copied().collect::<Vec<_>>().join("; "),
            places.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", "),
        ));
    }
    if !undecided.is_empty() {
        let templates = undecided.iter().filter(|(_, place)| place.in_macro_template).count();
        report.push(format!(
            "  left unrenamed: {} in code {} does not analyze ({} behind a `#[cfg]` that is off, {templates} in `macro_rules!` templates), so its rename could not reach {} — if {} this symbol, edit {} by hand:",
            crate::render::plural(undecided.len(), "occurrence"),
            server_id,
            undecided.len() - templates,
            if undecided.len() == 1 { "it" } else { "them" },
            if undecided.len() == 1 { "it names" } else { "they name" },
            if undecided.len() == 1 { "it" } else { "them" },
        ));
        let lines = one_per_line(undecided.iter().copied(), |(hit, _)| hit);
        list_lines(report, &lines, LISTED, |(hit, _)| hit, shown, old_name.len(), |(_, place)| format!("   ({})", short_place(place)));
    }
    // The gates' checks, once each (their places were listed above): a gate that is off on this
    // host for its target whatever the features (`#[cfg(windows)]`) gets the `cargo check
    // --target` of a target that turns it on (trial167 M2: "e.g. `cargo check` with the matching
    // `--target`" named none).
    let mut checks: Vec<String> = Vec::new();
    for ((_, place), _) in unanalyzed.iter().zip(&verdicts).filter(|((_, place), verdict)| {
        !place.in_macro_template && place.gate.is_some() && !matches!(verdict, CfgOffOccurrence::OtherSymbol(_))
    }) {
        let attribute = place.gate_attribute.as_deref().unwrap_or("");
        let by_target =
            (place.selection.is_none() && place.features.is_empty() && place.features_off.is_empty() && !attribute.contains("feature"))
                .then(|| crate::lsp::cfg_off_modules::targets_turning_on(attribute))
                .flatten()
                .and_then(|targets| targets.into_iter().next());
        let check = match by_target {
            Some(target) => format!(
                "`{attribute}`: `cargo check --all-targets --target {target}` (`rustup target list --installed` shows whether it is installed, else `rustup target add {target}` first)"
            ),
            None => format!("`{attribute}`: {}", place.check),
        };
        if !checks.contains(&check) {
            checks.push(check);
        }
    }
    if !checks.is_empty() && (!same.is_empty() || undecided.iter().any(|(_, place)| !place.in_macro_template)) {
        report.push(format!(
            "  {server_id}'s configuration leaves those cfgs off: it does not analyze that code and the write check does not compile it — {}",
            checks.join("; ")
        ));
    }
    let gated = unanalyzed.iter().filter(|(_, place)| !place.in_macro_template).count() - others.len();
    if gated > 0 {
        // One check per feature selection that compiles some of them: places gated differently
        // may need contradicting selections (trial67 F1: once_cell's `imp_cs.rs` needs std off,
        // `imp_pl.rs` std and parking_lot on; their union had been offered as one check).
        let mut selections: Vec<(crate::lsp::inactive::CompilingFeatureSelection, Vec<String>)> = Vec::new();
        let mut features: Vec<String> = Vec::new();
        let mut features_off: Vec<String> = Vec::new();
        let mut unsolved = 0usize;
        let counted = unanalyzed
            .iter()
            .zip(&verdicts)
            .filter(|((_, place), verdict)| !place.in_macro_template && !matches!(verdict, CfgOffOccurrence::OtherSymbol(_)))
            .map(|(item, _)| item);
        for (hit, place) in counted {
            let at = format!("{}:{}", shown(&hit.path), hit.line + 1);
            match &place.selection {
                Some(selection) => match selections.iter_mut().find(|(known, _)| known == selection) {
                    Some((_, places)) => places.push(at),
                    None => selections.push((selection.clone(), vec![at])),
                },
                None => {
                    unsolved += 1;
                    for (from, into) in [(&place.features, &mut features), (&place.features_off, &mut features_off)] {
                        for feature in from {
                            if !into.contains(feature) {
                                into.push(feature.clone());
                            }
                        }
                    }
                }
            }
        }
        let mut checks: Vec<String> = selections
            .iter()
            .map(|(selection, places)| {
                let shown_places: Vec<&str> = places.iter().take(3).map(String::as_str).collect();
                let more = if places.len() > 3 { format!(" and {} more", places.len() - 3) } else { String::new() };
                format!(
                    "{} (`{}`) compiles {}{more}",
                    selection.diagnostics_arguments(),
                    selection.cargo_command(),
                    shown_places.join(", ")
                )
            })
            .collect();
        if unsolved > 0 {
            let check = if !features_off.is_empty() {
                let selection = crate::lsp::inactive::CompilingFeatureSelection {
                    no_default_features: true,
                    features: features.clone(),
                    dropped_defaults: features_off.clone(),
                };
                format!(
                    "only a check with {} OFF ({}, plus the default features it needs other than those)",
                    features_off.join(", "),
                    selection.diagnostics_arguments()
                )
            } else if features.is_empty() {
                "a `cargo check` with the cfg enabled".to_owned()
            } else {
                crate::lsp::inactive::CompilingFeatureSelection {
                    no_default_features: false,
                    features: features.clone(),
                    dropped_defaults: Vec::new(),
                }
                .diagnostics_arguments()
            };
            checks.push(if selections.is_empty() {
                format!("{check} compiles {}", if unsolved == 1 { "it" } else { "them" })
            } else {
                format!("{check} compiles the other {}", crate::render::plural(unsolved, "occurrence"))
            });
        }
        write_check_blind_spots.push(format!(
            "{} of `{old_name}` left unrenamed behind a `#[cfg]` that is off (listed above) — {}",
            crate::render::plural(gated, "occurrence"),
            checks.join("; ")
        ));
    }
    same_member_places
}

/// For a Rust file: the renamed occurrences of `name` (`renamed`: 0-based line, byte column) that
/// are uses of a local binding of `name` ([`crate::lsp::syntax::ParsedSource::rust_local_binding_of`])
/// whose own identifier the rename leaves: (use line, binding line), 0-based, in order.
fn rust_local_uses_renamed(source: &crate::lsp::syntax::ParsedSource, renamed: &HashSet<(u32, usize)>, name: &str) -> Vec<(u32, u32)> {
    let mut ordered: Vec<&(u32, usize)> = renamed.iter().collect();
    ordered.sort();
    ordered
        .into_iter()
        .filter_map(|&(line, column)| {
            let binding = source.rust_local_binding_of(line, column, name)?;
            (binding != (line, column) && !renamed.contains(&binding)).then_some((line, binding.0))
        })
        .collect()
}

/// For a TypeScript type `owner`: `owner` and the interfaces and classes of the server's files
/// that extend or implement it (one level, by their declaration lines), and the lines that cast
/// to one of them through `unknown` or `any` (`x as unknown as Atom<T>`, `as any as Owner`):
/// values the compiler relates to nothing (0-based lines).
fn double_casts_to_type_or_subtypes(server: &LanguageServer, owner: &str) -> (Vec<String>, Vec<(PathBuf, u32)>) {
    let mut types = vec![owner.to_owned()];
    let grep = grep_word(server.definition(), server.workspace_root(), server.root(), owner);
    for hit in &grep.hits {
        let code = hit.line_text.trim_start();
        let declaration = code.strip_prefix("export ").unwrap_or(code);
        let declaration = declaration.strip_prefix("abstract ").unwrap_or(declaration);
        let Some(rest) = declaration.strip_prefix("interface ").or_else(|| declaration.strip_prefix("class ")) else { continue };
        // `owner` must stand in the heritage clause, after `extends`/`implements`.
        let heritage = ["extends ", "implements "].iter().filter_map(|word| hit.line_text.find(word)).min();
        if heritage.is_none_or(|at| hit.byte_start < at) {
            continue;
        }
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
        if !name.is_empty() && name != owner && !types.contains(&name) {
            types.push(name);
        }
    }
    let mut casts: Vec<(PathBuf, u32)> = Vec::new();
    for name in &types {
        let hits = if name == owner {
            grep.hits.clone()
        } else {
            grep_word(server.definition(), server.workspace_root(), server.root(), name).hits
        };
        for hit in hits {
            let before = hit.line_text[..hit.byte_start.min(hit.line_text.len())].trim_end();
            // `this as unknown as Owner` inside the class casts the renamed class's own instance:
            // it has the renamed member (trial46 M11: query-core's `Query.state`).
            let through = ["as unknown as", "as any as"].iter().any(|cast| {
                before.strip_suffix(cast).is_some_and(|rest| {
                    let cast_value = rest.trim_end();
                    let of_this = cast_value.strip_suffix("this").is_some_and(|head| {
                        head.is_empty() || head.ends_with(|c: char| !crate::lsp::position::is_identifier_char(c) && c != '.')
                    });
                    (rest.is_empty() || rest.ends_with(|c: char| !crate::lsp::position::is_identifier_char(c)))
                        && !(name == owner && of_this)
                })
            });
            if through && !casts.contains(&(hit.path.clone(), hit.line)) {
                casts.push((hit.path.clone(), hit.line));
            }
        }
    }
    casts.sort();
    (types, casts)
}

/// The declarations of `name` as an optional property (`name?:`, `name?(`) that occurrences the
/// rename left lead to (`elsewhere`: each occurrence with its definition), with how many of those
/// occurrences are uses (not the declaration itself), in path/line order; declarations no use
/// leads to are left out.
fn optional_declarations_read_elsewhere(
    reader: &WorkspaceReader,
    encoding: PositionEncoding,
    elsewhere: &[(WordHit, Option<Target>)],
    name: &str,
) -> Vec<((PathBuf, u32), usize)> {
    let mut uses_by_declaration: BTreeMap<(PathBuf, u32), usize> = BTreeMap::new();
    let mut texts: std::collections::HashMap<PathBuf, Option<String>> = std::collections::HashMap::new();
    for (hit, target) in elsewhere {
        let Some((path, target_line, target_character)) = target else { continue };
        if hit.path == *path && hit.line == *target_line {
            continue;
        }
        let text = texts.entry(path.clone()).or_insert_with(|| reader.read_to_string(path).ok());
        let Some(line_text) = text.as_deref().and_then(|text| split_lines(text).get(*target_line as usize).map(|line| line.to_string()))
        else {
            continue;
        };
        let start = encoding.byte_from_column(&line_text, *target_character);
        let after = line_text.get(start..).and_then(|rest| rest.strip_prefix(name)).map(str::trim_start);
        // An optional parameter (`value?: any`) is no property a value of the type reaches
        // (trial52 M3: table-core's `shouldAutoRemoveFilter(filterFn?, value?, column?)`).
        let parameter = || {
            text.as_deref()
                .and_then(|text| crate::lsp::syntax::ParsedSource::parse(path, text))
                .is_some_and(|parsed| parsed.typescript_names_optional_parameter(*target_line, start))
        };
        if after.is_some_and(|rest| rest.starts_with("?:") || rest.starts_with("?(")) && !parameter() {
            *uses_by_declaration.entry((path.clone(), *target_line)).or_default() += 1;
        }
    }
    uses_by_declaration.into_iter().collect()
}

/// The Python doctest occurrences of a rename that [`crate::lsp::python_doctests`] sets apart
/// from the rest of its comments, strings and doctest code (trial148 F1, M4).
#[derive(Debug, Default)]
struct PythonDoctestOccurrences {
    /// What the renamed symbol is, when its definition says.
    symbol: Option<crate::lsp::python_doctests::RenamedPythonSymbol>,
    /// Occurrences in doctests' expected output that the doctests compare and that can name the
    /// renamed symbol (an exception class in a traceback): left, and failing the doctests.
    expected_output: Vec<WordHit>,
    /// Occurrences in doctests that cannot name the renamed symbol, with why.
    other_names: Vec<(WordHit, crate::lsp::python_doctests::OtherDoctestName)>,
}

impl PythonDoctestOccurrences {
    /// The one line counting the doctest occurrences that are other names: `N other occurrences
    /// of `X` in doctests are other names: <why> (<where>), left alone`.
    fn other_names_line(&self, old_name: &str, shown: &dyn Fn(&Path) -> String) -> Option<String> {
        if self.other_names.is_empty() {
            return None;
        }
        let mut reasons: BTreeMap<crate::lsp::python_doctests::OtherDoctestName, usize> = BTreeMap::new();
        for (_, why) in &self.other_names {
            *reasons.entry(*why).or_default() += 1;
        }
        let reasons: Vec<String> =
            reasons.into_iter().map(|(why, count)| format!("{count} {}", why.describe(old_name, self.symbol.as_ref()))).collect();
        const SHOWN: usize = 5;
        let mut places: Vec<String> = Vec::new();
        for (hit, _) in &self.other_names {
            let place = format!("{}:{}", shown(&hit.path), hit.line + 1);
            if !places.contains(&place) {
                places.push(place);
            }
        }
        let more = places.len().saturating_sub(SHOWN);
        places.truncate(SHOWN);
        Some(format!(
            "  {} of `{old_name}` in doctests {}: {} ({}{}), left alone",
            crate::render::plural(self.other_names.len(), "other occurrence"),
            if self.other_names.len() == 1 { "is another name" } else { "are other names" },
            reasons.join("; "),
            places.join(", "),
            if more > 0 { format!(" and {more} more lines") } else { String::new() },
        ))
    }
}

/// What the renamed Python symbol is, read at the first Python target of `origin_targets` (a
/// local when `renamed_local`); `None` when no target says.
fn renamed_python_symbol_at(
    reader: &WorkspaceReader,
    origin_targets: &HashSet<Target>,
    renamed_local: bool,
    encoding: PositionEncoding,
) -> Option<crate::lsp::python_doctests::RenamedPythonSymbol> {
    if renamed_local {
        return Some(crate::lsp::python_doctests::RenamedPythonSymbol::Local);
    }
    let mut targets: Vec<&Target> = origin_targets.iter().filter(|(path, _, _)| path_is_python(path)).collect();
    targets.sort();
    targets.into_iter().find_map(|(path, line, character)| {
        let text = reader.read_to_string(path).ok()?;
        let byte = encoding.byte_from_column(text.lines().nth(*line as usize)?, *character);
        crate::lsp::python_doctests::renamed_python_symbol(&text, *line as usize, byte)
    })
}

/// Sets apart, of `in_text` (a rename's occurrences in comments, strings and doc-test code), the
/// Python doctest occurrences that sit in an example's expected output and those that cannot
/// name the renamed symbol ([`crate::lsp::python_doctests`]; `symbol` says what was renamed,
/// asked only when there are such occurrences). The doctest code occurrences that can name it
/// stay in `in_text`. A doc-test occurrence on a `>>>` line in no example of a file that parsed
/// cleanly (a prompt in a string that is no docstring) is relabelled plain text (review44 RISK 7).
fn python_doctest_occurrences(
    reader: &WorkspaceReader,
    in_text: &mut Vec<(WordHit, OccurrenceKind)>,
    symbol: impl FnOnce() -> Option<crate::lsp::python_doctests::RenamedPythonSymbol>,
    old_name: &str,
) -> PythonDoctestOccurrences {
    use crate::lsp::python_doctests::{DoctestOccurrence, ExamplePart, PythonDoctests};
    let mut out = PythonDoctestOccurrences::default();
    let candidate =
        |hit: &WordHit, kind: OccurrenceKind| path_is_python(&hit.path) && matches!(kind, OccurrenceKind::DocTest | OccurrenceKind::Text);
    if !in_text.iter().any(|(hit, kind)| candidate(hit, *kind)) {
        return out;
    }
    out.symbol = symbol();
    let mut files: BTreeMap<PathBuf, Option<PythonDoctests>> = BTreeMap::new();
    let mut kept = Vec::with_capacity(in_text.len());
    for (hit, kind) in in_text.drain(..) {
        if !candidate(&hit, kind) {
            kept.push((hit, kind));
            continue;
        }
        let doctests = files.entry(hit.path.clone()).or_insert_with(|| reader.read_to_string(&hit.path).ok().map(PythonDoctests::parse));
        let part = doctests.as_ref().and_then(|doctests| doctests.part_of(hit.line as usize)).map(|(_, _, part)| part);
        // A string or comment of an example's own code stays what it is (`incomplete='strict'`).
        let applies = match kind {
            OccurrenceKind::DocTest => part.is_some(),
            _ => part == Some(ExamplePart::ExpectedOutput),
        };
        let occurrence = doctests
            .as_ref()
            .filter(|_| applies)
            .and_then(|doctests| doctests.occurrence(hit.line as usize, hit.byte_start, old_name.len(), out.symbol.as_ref()));
        // A prompt in a string that is no docstring (a REPL prompt constant): plain text, which
        // doctest never runs (review44 RISK 7).
        let not_a_doctest =
            kind == OccurrenceKind::DocTest && part.is_none() && doctests.as_ref().is_some_and(PythonDoctests::knows_every_docstring);
        if not_a_doctest {
            kept.push((hit, OccurrenceKind::Text));
            continue;
        }
        match occurrence {
            Some(DoctestOccurrence::ExpectedOutput) => out.expected_output.push(hit),
            // Doctest code that cannot name the renamed symbol. Expected output that cannot
            // stays a string, listed as before for the reader to judge.
            Some(DoctestOccurrence::Other(why)) if kind == OccurrenceKind::DocTest => out.other_names.push((hit, why)),
            _ => kept.push((hit, kind)),
        }
    }
    *in_text = kept;
    out
}

/// The WARNING of a rename that leaves `count` occurrences in doc-test code and doctests'
/// expected output (`expected_output`, named in it: no server edits expected output).
fn doc_tests_warning(count: usize, expected_output: &[WordHit], old_name: &str, shown: &dyn Fn(&Path) -> String) -> String {
    let in_code = count - expected_output.len();
    let in_output = expected_output.len();
    let what = match (in_code, in_output) {
        (1, 0) => "1 occurrence in example code that could not be resolved was".to_owned(),
        (_, 0) => format!("{in_code} occurrences in example code that could not be resolved were"),
        (0, _) => format!(
            "{} in doctests' expected output {}",
            crate::render::plural(in_output, "occurrence"),
            if in_output == 1 { "was" } else { "were" }
        ),
        _ => format!(
            "{} in example code that could not be resolved and {in_output} in doctests' expected output were",
            crate::render::plural(in_code, "occurrence")
        ),
    };
    let detail = if in_output == 0 {
        String::new()
    } else {
        const NAMED: usize = 10;
        let mut lines: Vec<String> = Vec::new();
        for hit in expected_output {
            let line = format!("{}:{}", shown(&hit.path), hit.line + 1);
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        let more = lines.len().saturating_sub(NAMED);
        lines.truncate(NAMED);
        format!(
            ": the expected output at {}{} names `{old_name}` and must be edited by hand",
            lines.join(", "),
            if more > 0 { format!(" and {more} more lines") } else { String::new() }
        )
    };
    format!("WARNING: {what} left unrenamed in doc comments (doc-tests may fail{detail}) — listed below")
}

/// `` `cargo test --doc` `` when one of `hits` is in a Rust file or a Markdown file (only a Rust
/// crate's included docs are resolved as doc-tests there), else `the doctests`.
fn doc_test_command<'a>(mut hits: impl Iterator<Item = &'a WordHit>) -> &'static str {
    if hits.any(|hit| hit.path.extension().is_some_and(|ext| ext == "rs") || crate::lsp::doc_tests::is_markdown(&hit.path)) {
        "`cargo test --doc`"
    } else {
        "the doctests"
    }
}

/// What an occurrence of a name is, by the file's syntax tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OccurrenceKind {
    /// Code (an identifier, including one inside an f-string or template interpolation), or a
    /// file no bundled grammar parses.
    Code,
    /// Inside a comment.
    Comment,
    /// Inside a string literal.
    Text,
    /// Python: a string literal that is exactly the name, passed as the attribute name of
    /// `getattr` / `setattr` / `hasattr` / `delattr`, `mock.patch.object` (`patch.object`,
    /// `mocker.patch.object`) or `monkeypatch.setattr` — a live reference: left with the old
    /// name it fails at run time (`AttributeError`, or a patch of an attribute that is gone).
    AttributeName,
    /// Inside the module path of an import or export — TypeScript/JavaScript `from
    /// './createAction'`, `require('./x')`, `import('./x')`, a Go import path: it names a file or
    /// package, not the symbol; renaming the word there breaks the import (trial29 M9: rtk's
    /// `import { createAction } from './createAction'` was listed as a string left unrenamed).
    ModulePath,
    /// Code inside documentation that a test runs: a Rust doc comment's fenced code block (a
    /// doc-test, unless fenced as `ignore` or another language) or a Python docstring's `>>>` /
    /// `...` example line (a doctest). The server does not rename there (rust-analyzer does not),
    /// and a rename that leaves it makes `cargo test --doc` / the doctests fail.
    DocTest,
}

/// The listed line of an occurrence: its line trimmed, cut around the occurrence when longer
/// than 100 characters (the name stays in view), with how many occurrences the line holds when
/// more than one.
fn occurrence_line(hit: &WordHit, word_len: usize, on_line: usize) -> String {
    let trimmed = hit.line_text.trim();
    let lead = hit.line_text.len() - hit.line_text.trim_start().len();
    let start = hit.byte_start.saturating_sub(lead).min(trimmed.len());
    let text = crate::render::cut_around(trimmed, start..(start + word_len).min(trimmed.len()), 100);
    if on_line > 1 {
        format!("{text}   ({on_line} occurrences on this line)")
    } else {
        text
    }
}

/// `items` one per (file, line), in order, each with how many of them the line holds.
/// The report lines for references left because the edit does not rename their declaration
/// (an import alias the server wrote, a declaration another root owns): a header and the lines,
/// at most [`LISTED`]; empty for none. Said again after a rename across roots settles them
/// ([`RenameCoverage::declaration_kept`]).
pub(crate) fn declaration_kept_listing(hits: &[WordHit], shown: &dyn Fn(&Path) -> String, old_name: &str) -> Vec<String> {
    let mut report = Vec::new();
    if hits.is_empty() {
        return report;
    }
    report.push(format!(
        "  left unrenamed: {} reference{} to the symbol; the edit does not rename its declaration (an import alias?), so they keep working:",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" }
    ));
    let lines = one_per_line(hits.iter(), |hit| hit);
    list_lines(&mut report, &lines, LISTED, |hit| hit, shown, old_name.len(), |_| String::new());
    report
}

fn one_per_line<'a, T>(items: impl IntoIterator<Item = &'a T>, hit: impl Fn(&T) -> &WordHit) -> Vec<(&'a T, usize)> {
    let mut lines: Vec<(&'a T, usize)> = Vec::new();
    for item in items {
        let this = hit(item);
        match lines.iter_mut().find(|(known, _)| hit(known).path == this.path && hit(known).line == this.line) {
            Some((_, count)) => *count += 1,
            None => lines.push((item, 1)),
        }
    }
    lines
}

/// The listing lines of `lines` (see [`one_per_line`]), at most `cap`, then `(showing N of M
/// lines)` when cut; `suffix` adds a per-entry note.
/// The build constraint of `path` when it is a Go file served by gopls that its build
/// constraint (or file-name suffix) excludes under the host's GOOS/GOARCH and no tags: the file
/// needs another GOOS/GOARCH, a tag, or is `ignore`d (trial22 M6: util/util_safe.go's
/// `// +build appengine js` twin of a renamed function read as "no definition").
fn go_file_outside_the_build(server: &LanguageServer, path: &Path) -> Option<crate::lsp::diagnostics_on_write::GoBuildConstraint> {
    if server.id() != "gopls" || path.extension().and_then(|e| e.to_str()) != Some("go") {
        return None;
    }
    let constraint = crate::lsp::diagnostics_on_write::go_build_constraint(path, server.root());
    let needs_more = constraint.ignored || constraint.check_command.contains('=') || constraint.older_toolchain.is_some();
    ((!constraint.lines.is_empty() || constraint.named_by_file_name) && needs_more).then_some(constraint)
}

fn list_lines<T>(
    report: &mut Vec<String>,
    lines: &[(&T, usize)],
    cap: usize,
    hit: impl Fn(&T) -> &WordHit,
    shown: &dyn Fn(&Path) -> String,
    word_len: usize,
    suffix: impl Fn(&T) -> String,
) {
    for (item, count) in lines.iter().take(cap) {
        let at = hit(item);
        report.push(format!("    {}:{}: {}{}", shown(&at.path), at.line + 1, occurrence_line(at, word_len, *count), suffix(item)));
    }
    if lines.len() > cap {
        report.push(format!("    ({})", crate::render::showing(cap, lines.len(), "lines")));
    }
}

/// Classifies each of `hits` (all in `path`) with tree-sitter (the grammars ast-grep bundles):
/// the smallest node spanning the occurrence and its ancestors decide — an interpolation first
/// means code, a comment means comment, a string means text. Servers answer `definition` on
/// words in comments too (clangd looks them up by name), so comments and strings are never
/// asked and never edited.
pub fn classify_occurrences(source: &str, path: &Path, hits: &[&WordHit], word_len: usize) -> Vec<OccurrenceKind> {
    use ast_grep_core::tree_sitter::StrDoc;
    use ast_grep_core::{AstGrep, Language};
    use ast_grep_language::SupportLang;
    let code = || vec![OccurrenceKind::Code; hits.len()];
    let Some(language) = SupportLang::from_path(path) else { return code() };
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(source, language) else { return code() };
    let top = root.root().get_inner_node();
    let mut line_starts = vec![0usize];
    line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
    let lines = split_lines(source);
    // The doc comment lines, found when the first occurrence in a comment needs them.
    let doc = std::cell::OnceCell::new();
    hits.iter()
        .map(|hit| {
            let Some(line_start) = line_starts.get(hit.line as usize) else { return OccurrenceKind::Code };
            let start = line_start + hit.byte_start;
            let Some(mut node) = top.descendant_for_byte_range(start, start + word_len) else { return OccurrenceKind::Code };
            loop {
                let kind = node.kind();
                if kind.contains("interpolation") || kind.contains("substitution") {
                    return OccurrenceKind::Code;
                }
                if kind.contains("comment") {
                    let doc = doc.get_or_init(|| crate::lsp::doc_tests::doc_comment_lines(&lines));
                    if language == SupportLang::Rust && in_rust_doc_test(&lines, doc, hit.line as usize, hit.byte_start) {
                        // A string or comment of the example itself is text there too (trial43
                        // M3: `hamming("hamming", "hammers")` listed the literal as unresolved).
                        return rust_doc_test_text_kind(&lines, doc, hit.line as usize, hit.byte_start, word_len)
                            .unwrap_or(OccurrenceKind::DocTest);
                    }
                    return OccurrenceKind::Comment;
                }
                if kind.contains("string") || kind.contains("char_literal") || kind.contains("heredoc") {
                    let line_text = lines.get(hit.line as usize).copied().unwrap_or("");
                    if language == SupportLang::Python && is_python_doctest_line(line_text) {
                        // A string or comment of the example's own code is text there too
                        // (trial44 M1: `incomplete='strict'` warned "doc-tests may fail").
                        return python_doctest_text_kind(line_text, hit.byte_start, word_len).unwrap_or(OccurrenceKind::DocTest);
                    }
                    if language == SupportLang::Python && python_attribute_name_argument(node, source, start, word_len).is_some() {
                        return OccurrenceKind::AttributeName;
                    }
                    if is_module_path_string(node, source) {
                        return OccurrenceKind::ModulePath;
                    }
                    return OccurrenceKind::Text;
                }
                match node.parent() {
                    Some(parent) => node = parent,
                    None => return OccurrenceKind::Code,
                }
            }
        })
        .collect()
}

/// Whether `node` (a string literal or a part of one) is the module path of an import or export:
/// the `source` of a TypeScript/JavaScript `import`/`export … from` statement or of an `import x
/// = require(…)`, the first argument of `require(…)` or a dynamic `import(…)`, or the `path` of
/// a Go `import_spec`.
fn is_module_path_string(node: tree_sitter::Node<'_>, source: &str) -> bool {
    let mut string = node;
    while !matches!(string.kind(), "string" | "interpreted_string_literal" | "raw_string_literal") {
        match string.parent() {
            Some(parent) => string = parent,
            None => return false,
        }
    }
    let Some(parent) = string.parent() else { return false };
    let is_field = |field: &str| parent.child_by_field_name(field).is_some_and(|child| child.id() == string.id());
    match parent.kind() {
        "import_statement" | "export_statement" | "import_require_clause" => is_field("source"),
        "import_spec" => is_field("path"),
        "arguments" => {
            let Some(call) = parent.parent().filter(|call| call.kind() == "call_expression") else { return false };
            let callee = call.child_by_field_name("function").and_then(|callee| source.get(callee.start_byte()..callee.end_byte()));
            let first = parent.named_child(0).is_some_and(|first| first.id() == string.id());
            first && matches!(callee, Some("require" | "import"))
        }
        _ => false,
    }
}

/// The standard interface a Go method declaration `line` (`func (f Frame) Format(s fmt.State,
/// verb rune) {`) satisfies by its name and parameter types, among those the standard library
/// calls through a dynamic check (fmt's `Formatter`, `Stringer`, `GoStringer`, `error`,
/// encoding's and encoding/json's marshalers, errors' `Unwrap`/`Is`/`As`, io's `Reader`/`Writer`/
/// `Closer`, sort's `Interface`, net/http's `Handler`, database/sql's `driver.Valuer` and
/// `sql.Scanner`, fmt's `Scanner`, gob's encoder and decoder); `None` for other methods.
pub(crate) fn go_dynamic_standard_interface(line: &str, name: &str) -> Option<&'static str> {
    let after_receiver = line.trim_start().strip_prefix("func (")?.split_once(')')?.1.trim_start();
    let parameters = after_receiver.strip_prefix(name)?.strip_prefix('(')?;
    let parameters = parameters.split(')').next().unwrap_or("");
    let types: Vec<String> = parameters
        .split(',')
        .map(|parameter| parameter.split_whitespace().last().unwrap_or("").to_owned())
        .filter(|parameter| !parameter.is_empty())
        .collect();
    let types: Vec<&str> = types.iter().map(String::as_str).collect();
    Some(match (name, types.as_slice()) {
        ("Format", ["fmt.State", "rune"]) => "fmt.Formatter",
        ("String", []) => "fmt.Stringer",
        ("GoString", []) => "fmt.GoStringer",
        ("Error", []) => "error",
        ("Unwrap", []) => "errors.Unwrap's interface{ Unwrap() error }",
        ("Is", ["error"]) => "errors.Is's interface{ Is(error) bool }",
        ("As", ["any" | "interface{}"]) => "errors.As's interface{ As(any) bool }",
        ("MarshalJSON", []) => "json.Marshaler",
        ("UnmarshalJSON", ["[]byte"]) => "json.Unmarshaler",
        ("MarshalText", []) => "encoding.TextMarshaler",
        ("UnmarshalText", ["[]byte"]) => "encoding.TextUnmarshaler",
        ("MarshalBinary", []) => "encoding.BinaryMarshaler",
        ("UnmarshalBinary", ["[]byte"]) => "encoding.BinaryUnmarshaler",
        ("WriteTo", ["io.Writer"]) => "io.WriterTo",
        ("ReadFrom", ["io.Reader"]) => "io.ReaderFrom",
        ("Read", ["[]byte"]) => "io.Reader",
        ("Write", ["[]byte"]) => "io.Writer",
        ("Close", []) => "io.Closer",
        ("ServeHTTP", [_, _]) => "http.Handler",
        // database/sql converts arguments and scans rows through these (trial68 F1: google/uuid's
        // `UUID.Value` and `Scan`, which gopls listed no interface of).
        ("Value", []) => "driver.Valuer",
        ("Scan", ["any" | "interface{}"]) => "sql.Scanner",
        ("Scan", ["fmt.ScanState", "rune"]) => "fmt.Scanner",
        ("GobEncode", []) => "gob.GobEncoder",
        ("GobDecode", ["[]byte"]) => "gob.GobDecoder",
        ("Len", []) | ("Less" | "Swap", [_, "int"]) => "sort.Interface",
        _ => return None,
    })
}

/// The standard interface (see [`go_dynamic_standard_interface`]) a Go method declaration `line`
/// named `old_name` comes to satisfy when renamed to `new_name`, when it did not satisfy it under
/// its old name; methods whose interface requires a result (`Error`, `String`, `GoString`:
/// `string`; `MarshalJSON`, `MarshalText`, `MarshalBinary`: `([]byte, error)`) are checked for
/// it. `None` otherwise.
pub(crate) fn go_standard_interface_gained(line: &str, old_name: &str, new_name: &str) -> Option<&'static str> {
    if old_name == new_name || go_dynamic_standard_interface(line, old_name).is_some() {
        return None;
    }
    let after_receiver_start = line.find(')')? + 1;
    let (receiver, after_receiver) = line.split_at(after_receiver_start);
    let renamed_rest = after_receiver.trim_start().strip_prefix(old_name)?;
    let renamed = format!("{receiver} {new_name}{renamed_rest}");
    let interface = go_dynamic_standard_interface(&renamed, new_name)?;
    // The result: the text after the parameters' `)` up to the body's `{`.
    let after_parameters = renamed_rest.split_once(')').map(|(_, rest)| rest).unwrap_or("");
    let result: String = after_parameters.split('{').next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    let required = match new_name {
        "Error" | "String" | "GoString" => Some("string"),
        "MarshalJSON" | "MarshalText" | "MarshalBinary" | "GobEncode" => Some("([]byte, error)"),
        "Is" | "As" => Some("bool"),
        _ => None,
    };
    match required {
        Some(required) if result != required => None,
        None if new_name == "Unwrap" && result != "error" && result != "[]error" => None,
        _ => Some(interface),
    }
}

/// Who calls the standard interface `interface` (from [`go_dynamic_standard_interface`]) dynamically.
pub(crate) fn go_dynamic_caller(interface: &str) -> &'static str {
    match interface {
        "fmt.Formatter" | "fmt.Stringer" | "fmt.GoStringer" => "fmt's verbs: `%v`, `%+v`, `%s`, `%q`",
        "error" => "fmt and every caller that holds it as an `error`",
        interface if interface.starts_with("errors.") => "errors.Is, errors.As and errors.Unwrap",
        interface if interface.starts_with("json.") || interface.starts_with("encoding.") => {
            "encoding/json, encoding/xml and flag through a type check"
        }
        interface if interface.starts_with("io.") => "io.Copy and every function taking an io interface",
        "sort.Interface" => "sort.Sort",
        "driver.Valuer" | "sql.Scanner" => "database/sql, converting query arguments and scanning rows",
        "fmt.Scanner" => "fmt's Scan, Fscan and Sscan",
        interface if interface.starts_with("gob.") => "encoding/gob",
        _ => "net/http's server",
    }
}

/// The object argument of the attribute call whose name string starts after byte `byte_start`
/// of `line` (`setattr(tenacity.nap.time, "sleep", …)` → `tenacity.nap.time`) and the byte where
/// its last identifier starts; `None` when the call's `(` or the `,` before the string are not on
/// the line, or the object does not end with an identifier.
/// Whether a Python line is a module-level definition of `name`: at column 0, `def name`,
/// `async def name`, `class name`, or an assignment or annotation of `name` (`name = …`,
/// `name: T`).
pub(crate) fn python_module_level_definition_line(line: &str, name: &str) -> bool {
    let rest = ["async def ", "def ", "class "].iter().find_map(|keyword| line.strip_prefix(keyword)).unwrap_or(line);
    let Some(after) = rest.strip_prefix(name) else { return false };
    if rest.len() == line.len() {
        // No keyword: an assignment or annotation of the name.
        let after = after.trim_start();
        return (after.starts_with('=') && !after.starts_with("==")) || after.starts_with(':');
    }
    after.starts_with(['(', ':', '[', ' '])
}

fn attribute_call_object(line: &str, byte_start: usize) -> Option<(String, usize)> {
    let before = line.get(..byte_start.checked_sub(1)?)?;
    let comma = before.trim_end().strip_suffix(',')?.len();
    let open = before[..comma].rfind('(')?;
    let object = before[open + 1..comma].trim();
    let object_end = open + 1 + before[open + 1..comma].trim_end().len();
    let identifier_len = object.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum::<usize>();
    (identifier_len > 0).then(|| (object.to_owned(), object_end - identifier_len))
}

/// When `node` (a Python string literal or a part of one) is a string whose content is exactly
/// the occurrence at `start..start + word_len` of `source`, passed as the attribute-name
/// argument (the second) of `getattr` / `setattr` / `hasattr` / `delattr`, of a call ending in
/// `patch.object` (`mock.patch.object`, `mocker.patch.object`) or of `monkeypatch.setattr`: the
/// called function's text (`mock.patch.object`). `None` otherwise.
pub fn python_attribute_name_argument(node: tree_sitter::Node<'_>, source: &str, start: usize, word_len: usize) -> Option<String> {
    let string = if node.kind() == "string" { node } else { node.parent().filter(|parent| parent.kind() == "string")? };
    // The string holds the name and nothing else (its quotes and prefix aside).
    let content_start = string.named_children(&mut string.walk()).find(|child| child.kind() == "string_content")?;
    if content_start.start_byte() != start || content_start.end_byte() != start + word_len {
        return None;
    }
    let arguments = string.parent().filter(|parent| parent.kind() == "argument_list")?;
    let call = arguments.parent().filter(|parent| parent.kind() == "call")?;
    let positional: Vec<tree_sitter::Node<'_>> =
        arguments.named_children(&mut arguments.walk()).filter(|child| !matches!(child.kind(), "comment" | "keyword_argument")).collect();
    if positional.get(1).map(|second| second.id()) != Some(string.id()) {
        return None;
    }
    let function = call.child_by_field_name("function")?;
    let function_text = source.get(function.start_byte()..function.end_byte())?;
    let attribute_call = matches!(function_text, "getattr" | "setattr" | "hasattr" | "delattr" | "builtins.getattr" | "builtins.setattr")
        || function_text.ends_with("patch.object")
        || function_text == "monkeypatch.setattr"
        || function_text == "monkeypatch.delattr";
    attribute_call.then(|| function_text.to_owned())
}

/// Whether byte `byte_start` of 0-based `line` of a Rust file (`doc` its
/// [`crate::lsp::doc_tests::doc_comment_lines`]) is code inside a doc comment's fenced code block
/// that rustdoc runs as a doc-test: the line is in a doc comment (`///`, `//!`, `/** */`,
/// `/*! */`) and the occurrence in its text, an odd number of fences precede it in that
/// comment, the opening one plain (```` ``` ````) or with rustdoc's attributes only (`rust`,
/// `no_run`, `should_panic`, `compile_fail`, `edition20xx`, …) — not `ignore`, `text` or another
/// language — and the occurrence is not in a `//` or `/*` comment of the example itself.
/// For an occurrence (`word_len` bytes at `byte_start` of 0-based `line`) inside a Rust doc-test,
/// what it is in the example's own code: [`OccurrenceKind::Text`] inside a string or character
/// literal, [`OccurrenceKind::Comment`] inside a comment, `None` for code (or when the example
/// cannot be read).
fn rust_doc_test_text_kind(
    lines: &[&str],
    doc: &[Option<crate::lsp::doc_tests::DocCommentLine>],
    line: usize,
    byte_start: usize,
    word_len: usize,
) -> Option<OccurrenceKind> {
    use ast_grep_language::SupportLang;
    let block = crate::lsp::doc_tests::doc_test_block(lines, doc, line)?;
    let mut code = String::new();
    let mut start = None;
    for (index, prefix, text) in &block.lines {
        if *index == line {
            start = Some(code.len() + byte_start.checked_sub(*prefix)?);
        }
        code.push_str(text);
        code.push('\n');
    }
    example_text_kind(&code, SupportLang::Rust, start?, word_len)
}

/// What the `word_len` bytes at byte `start` of `code` (an example's own code, parsed as
/// `language`) are in it: [`OccurrenceKind::Text`] inside a string or character literal,
/// [`OccurrenceKind::Comment`] inside a comment, `None` for code (an interpolation is code) or
/// when the code does not parse.
fn example_text_kind(code: &str, language: ast_grep_language::SupportLang, start: usize, word_len: usize) -> Option<OccurrenceKind> {
    use ast_grep_core::tree_sitter::StrDoc;
    use ast_grep_core::AstGrep;
    let example = AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(code, language).ok()?;
    let mut node = example.root().get_inner_node().descendant_for_byte_range(start, start + word_len)?;
    loop {
        let kind = node.kind();
        if kind.contains("interpolation") {
            return None;
        }
        if kind.contains("comment") {
            return Some(OccurrenceKind::Comment);
        }
        if kind.contains("string") || kind.contains("char_literal") {
            return Some(OccurrenceKind::Text);
        }
        node = node.parent()?;
    }
}

fn in_rust_doc_test(lines: &[&str], doc: &[Option<crate::lsp::doc_tests::DocCommentLine>], line: usize, byte_start: usize) -> bool {
    use crate::lsp::doc_tests::doc_comment_text;
    let Some(here) = doc.get(line).copied().flatten() else { return false };
    if byte_start < here.start || byte_start >= here.end {
        return false;
    }
    if doc_comment_text(lines, doc, line).trim().starts_with("```") {
        return false;
    }
    if lines[line]
        .get(here.start..byte_start)
        .is_none_or(|before| before.contains("//") || before.rfind("/*").is_some_and(|opened| !before[opened..].contains("*/")))
    {
        return false;
    }
    // The lines of the same doc comment above, nearest first.
    let mut opening: Option<String> = None;
    let mut fences = 0usize;
    for index in (0..line).rev() {
        // A blank line does not end a doc comment (see `doc_comment_lines`; trial48 F3).
        if doc[index].is_none() && lines[index].trim().is_empty() {
            continue;
        }
        if doc[index].is_none_or(|other| other.comment != here.comment) {
            break;
        }
        if let Some(info) = doc_comment_text(lines, doc, index).trim().strip_prefix("```") {
            fences += 1;
            if fences == 1 {
                opening = Some(info.trim().to_owned());
            }
        }
    }
    if fences.is_multiple_of(2) {
        return false;
    }
    // The nearest fence above opens the block this line is in; its info string decides.
    let info = opening.unwrap_or_default();
    info.split([',', ' ']).filter(|token| !token.is_empty()).all(|token| {
        matches!(token, "rust" | "no_run" | "should_panic" | "compile_fail" | "test_harness" | "standalone_crate" | "allow_fail")
            || token.starts_with("edition")
            || token.starts_with('E')
    })
}

/// Whether a Python line is a doctest example (`>>> call()` or its `... ` continuation).
/// For an occurrence (`word_len` bytes at `byte_start`) on a Python doctest line (`>>> code` or
/// `... code`), what it is in that line's own code: [`OccurrenceKind::Text`] inside a string,
/// [`OccurrenceKind::Comment`] inside a comment, `None` for code (or a line that does not parse
/// alone: a continuation).
fn python_doctest_text_kind(line: &str, byte_start: usize, word_len: usize) -> Option<OccurrenceKind> {
    let lead = line.len() - line.trim_start().len();
    let code_start = lead + 4.min(line.len() - lead);
    let code = line.get(code_start..)?;
    example_text_kind(code, ast_grep_language::SupportLang::Python, byte_start.checked_sub(code_start)?, word_len)
}

fn is_python_doctest_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with(">>> ") || trimmed == ">>>" || trimmed.starts_with("... ")
}

/// Classifies one position of `path` (0-based `line`, byte column `byte_start`, identifier of
/// `len` bytes) like [`classify_occurrences`]; `None` when no bundled grammar handles the file
/// (the caller falls back to a scan of the line).
pub fn classify_position(workspace_root: &Path, path: &Path, line: u32, byte_start: usize, len: usize) -> Option<OccurrenceKind> {
    <ast_grep_language::SupportLang as ast_grep_core::Language>::from_path(path)?;
    let hit = WordHit { path: path.to_path_buf(), line, byte_start, line_text: String::new() };
    // An unreadable file (or a symlink swapped onto its path) classifies as code, as before.
    let Ok(source) = crate::files::read_workspace_file_to_string(workspace_root, path) else { return Some(OccurrenceKind::Code) };
    classify_occurrences(&source, path, &[&hit], len).into_iter().next()
}

/// Per-file cache of [`classify_occurrences`] for the occurrences of one [`GrepResult`].
struct Classifier<'a> {
    grep: &'a GrepResult,
    /// The root the grep walked beneath (the run's, or the server's when outside the run's),
    /// opened once: each file is read beneath it, no symlink followed.
    reader: Option<WorkspaceReader>,
    word_len: usize,
    cache: BTreeMap<PathBuf, Vec<(u32, usize, OccurrenceKind)>>,
}

impl<'a> Classifier<'a> {
    fn new(grep: &'a GrepResult, word_len: usize, workspace_root: &Path, root: &Path) -> Classifier<'a> {
        let reader = WorkspaceReader::open(crate::files::walk_beneath::root_for_walk(workspace_root, root)).ok();
        Classifier { grep, reader, word_len, cache: BTreeMap::new() }
    }

    fn kind(&mut self, hit: &WordHit) -> OccurrenceKind {
        let (grep, word_len, reader) = (self.grep, self.word_len, &self.reader);
        let entries = self.cache.entry(hit.path.clone()).or_insert_with(|| {
            let in_file: Vec<&WordHit> = grep.hits.iter().filter(|other| other.path == hit.path).collect();
            let kinds = match reader.as_ref().map(|reader| reader.read_to_string(&hit.path)) {
                Some(Ok(source)) => classify_occurrences(&source, &hit.path, &in_file, word_len),
                _ => vec![OccurrenceKind::Code; in_file.len()],
            };
            in_file.iter().zip(kinds).map(|(other, kind)| (other.line, other.byte_start, kind)).collect()
        });
        entries
            .iter()
            .find(|(line, byte, _)| *line == hit.line && *byte == hit.byte_start)
            .map_or(OccurrenceKind::Code, |(_, _, kind)| *kind)
    }
}

/// Byte ranges of the string literals inside `__all__ = [...]` / `__all__ += [...]` (lists or
/// tuples) of a Python file, parsed with tree-sitter. Empty when the file cannot be read.
fn python_dunder_all_strings(reader: &WorkspaceReader, path: &Path) -> Vec<std::ops::Range<usize>> {
    use ast_grep_core::tree_sitter::StrDoc;
    use ast_grep_core::AstGrep;
    use ast_grep_language::SupportLang;
    let Ok(source) = reader.read_to_string(path) else { return Vec::new() };
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(&source, SupportLang::Python) else { return Vec::new() };
    let mut ranges = Vec::new();
    for node in root.root().dfs() {
        if !matches!(node.kind().as_ref(), "assignment" | "augmented_assignment") {
            continue;
        }
        if node.field("left").is_none_or(|left| left.text() != "__all__") {
            continue;
        }
        let Some(right) = node.field("right") else { continue };
        ranges.extend(right.dfs().filter(|inner| inner.kind() == "string").map(|string| string.range()));
    }
    ranges
}

/// The byte offset of (0-based `line`, `byte_column`) in `path`'s current text.
fn byte_offset(reader: &WorkspaceReader, path: &Path, line: u32, byte_column: usize) -> Option<usize> {
    let text = reader.read_to_string(path).ok()?;
    let mut offset = 0;
    for (index, line_text) in text.split_inclusive('\n').enumerate() {
        if index == line as usize {
            return Some(offset + byte_column);
        }
        offset += line_text.len();
    }
    None
}

/// A rename asked again from an import site renames only the local binding there: tsserver
/// answers `{generateName}` with `generateName as makeUniqueName` (its prefix text keeps the
/// imported name). When the edit already renames the declaration, that alias imports a name
/// that no longer exists (json-schema-to-typescript 15.0.3, a cold `runbound call lsp_rename`:
/// `import {generateName as makeUniqueName} from './utils'`, TS2305 on write), so the alias
/// becomes the new name alone. Returns how many edits were changed.
fn drop_import_site_aliases(edits: &mut BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>, old_name: &str, new_name: &str) -> usize {
    let alias = format!("{old_name} as {new_name}");
    let mut changed = 0;
    for edit in edits.values_mut().flatten() {
        if edit.new_text == alias {
            edit.new_text = new_name.to_owned();
            changed += 1;
        }
    }
    changed
}

/// How many edits of `more` disagree with an edit already in `edits`: they overlap it, or
/// replace the same range with other text (an identical edit agrees).
fn overlapping_edits(edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>, more: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>) -> usize {
    let mut disagreeing = 0;
    for (path, list) in more {
        let Some(existing) = edits.get(path) else { continue };
        for edit in list {
            let range = range_of(edit);
            let disagrees = existing.iter().any(|other| {
                let other_range = range_of(other);
                if other_range == range {
                    return other.new_text != edit.new_text;
                }
                // Two answers that both change an import or export specifier's line, one of
                // them by an alias (`as X`) or an insertion, change the same specifier: tsserver's
                // first answer inserted `as ImmerX ` into `export { Immer }`, another replaced
                // `Immer` there by `ImmerX as Immer`, and the merge wrote `export { ImmerX as
                // Immer as ImmerX }` (trial41 F1).
                let aliasing = |edit: &lsp_types::TextEdit| {
                    edit.new_text.contains(" as ") || edit.new_text.starts_with("as ") || edit.range.start == edit.range.end
                };
                let same_line = range.0 == other_range.0 || range.2 == other_range.2;
                ranges_collide(range, other_range) || (same_line && (aliasing(edit) || aliasing(other)))
            });
            if disagrees {
                disagreeing += 1;
            }
        }
    }
    disagreeing
}

/// Whether `path` is a Rust source file.
fn path_is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "rs")
}

/// Whether two edit ranges (as [`range_of`] gives them) change the same text: they overlap, or
/// one is an insertion at either end of (or inside) the other. An insertion beside a replacement
/// changes the same name: tsserver's prefix text (`ImmerX as ` before `Immer`) from one answer
/// and a replacement of that name from another composed `export { ImmerX as Immer as ImmerX }`
/// (trial41 F1's rename at `export { Immer }`, merged with the rename from the class).
fn ranges_collide(a: (u32, u32, u32, u32), b: (u32, u32, u32, u32)) -> bool {
    let (a_start, a_end) = ((a.0, a.1), (a.2, a.3));
    let (b_start, b_end) = ((b.0, b.1), (b.2, b.3));
    let inside = |point: (u32, u32), start: (u32, u32), end: (u32, u32)| start <= point && point <= end;
    (a_start < b_end && b_start < a_end)
        || (a_start == a_end && inside(a_start, b_start, b_end))
        || (b_start == b_end && inside(b_start, a_start, a_end))
}

/// Adds `more` to `edits`, skipping edits identical to one already there and edits overlapping
/// one already there (counted and returned).
fn merge_edits(edits: &mut BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>, more: BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>) -> usize {
    let mut conflicts = 0;
    for (path, list) in more {
        let existing = edits.entry(path).or_default();
        for edit in list {
            let range = range_of(&edit);
            let mut duplicate = false;
            let mut overlaps = false;
            for other in existing.iter() {
                let other_range = range_of(other);
                if other_range == range {
                    duplicate = true;
                    break;
                }
                if ranges_collide(range, other_range) {
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

/// Occurrences `complete_references` checks at most; a name with more is not cross-checked
/// (the answer says so).
pub const MAX_REFERENCE_CHECKS: usize = 400;

/// The result of [`complete_references`].
#[derive(Debug, Clone)]
pub struct ReferencesCoverage {
    /// The references to render: the server's, plus those found from missed uses (a server's
    /// `null` becomes an empty list).
    pub answer: Vec<lsp_types::Location>,
    /// Notes for the answer (empty when the server's answer already covered every use grep
    /// finds).
    pub notes: Vec<String>,
    /// Python: the whole-word occurrences on doctest `>>>` lines that the server does not
    /// analyze (absolute path, 0-based line), named in `notes` too; empty for other languages.
    pub doctest_occurrences: Vec<(PathBuf, u32)>,
    /// Whole-word occurrences in code whose definition leads to the symbol but which the server
    /// does not list even when asked from there, as [`UnlistedReference`]s: NOT in `answer` nor
    /// `notes`, because another root's server may list them once its answer is merged (trial95
    /// M3: hex's 7 lines, listed by the downstream crate's server and said "not listed" beside
    /// it). Merge with [`merge_references_not_listed`] after the other roots' answers.
    pub not_listed: Vec<UnlistedReference>,
}

/// A whole-word occurrence whose definition leads to the queried symbol but which the server
/// does not list among its references (see [`ReferencesCoverage::not_listed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnlistedReference {
    /// The file, absolute (canonical when it exists).
    pub path: PathBuf,
    /// 0-based line.
    pub line: u32,
    /// The name's start and end characters on the line, in the server's position encoding.
    pub start: u32,
    /// See `start`.
    pub end: u32,
}

/// A location of a references list as its marks are keyed: (URI, 0-based line, start
/// character in the server's encoding).
pub type ReferenceKey = (String, u32, u32);

/// The mark a references list puts beside each location [`merge_references_not_listed`] added.
pub const NOT_LISTED_BY_SERVER_MARK: &str = "not in the server's own list (grep -w found it; its definition here leads to this symbol)";

/// Adds to `listed` (the answer as finally rendered, other roots' references merged) the
/// [`ReferencesCoverage::not_listed`] occurrences it still leaves out, so the list and its
/// count hold every use whose definition leads to the symbol (trial155 M4: indexmap's
/// `indexmap!` macro, "6 references" and 3 more invocations named only in a trailing note).
/// Returns the note saying so and the added locations' keys (`(uri, 0-based line, character)`,
/// as the list marks them with [`NOT_LISTED_BY_SERVER_MARK`]); `None` and nothing when none is
/// left out. Places are `path:line` (1-based) as `shown` writes paths, at most 10.
pub fn merge_references_not_listed(
    not_listed: &[UnlistedReference],
    server_id: &str,
    name: &str,
    listed: &mut Vec<lsp_types::Location>,
    shown: impl Fn(&Path) -> String,
) -> Option<(String, Vec<ReferenceKey>)> {
    let listed_lines: Vec<(PathBuf, u32)> = listed
        .iter()
        .filter_map(|location| {
            let path = lsp_uri_to_path(&location.uri)?;
            Some((std::fs::canonicalize(&path).unwrap_or(path), location.range.start.line))
        })
        .collect();
    let mut added: Vec<ReferenceKey> = Vec::new();
    let mut places: Vec<String> = Vec::new();
    for left in not_listed {
        let on_a_listed_line = listed_lines.iter().any(|(path, line0)| *path == left.path && *line0 == left.line);
        let key = (crate::lsp::uri::path_to_lsp_uri(&left.path).as_str().to_owned(), left.line, left.start);
        if on_a_listed_line || added.contains(&key) {
            continue;
        }
        listed.push(lsp_types::Location {
            uri: crate::lsp::uri::path_to_lsp_uri(&left.path),
            range: lsp_types::Range::new(lsp_types::Position::new(left.line, left.start), lsp_types::Position::new(left.line, left.end)),
        });
        added.push(key);
        places.push(format!("{}:{}", shown(&left.path), left.line + 1));
    }
    (!added.is_empty()).then(|| {
        let note = format!(
            "note: {} of these references (marked `← not in the server's own list`) {server_id} does not list, even asked from there: grep -w finds `{name}` there and {server_id}'s own definition at each leads to this symbol, so they count: {}{}",
            added.len(),
            places.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", "),
            if places.len() > LISTED { format!(" and {} more", places.len() - LISTED) } else { String::new() },
        );
        (note, added)
    })
}

/// Whole-word occurrences of `name` in code (not comments or strings) under the server's root
/// that are not at one of the `covered` places (absolute path, 0-based line) and where the
/// server gives no definition: code it does not analyze (rust-analyzer: behind a `#[cfg]` that
/// is off, or a `macro_rules!` body), so an answer built from its index (incoming calls) cannot
/// include them. As (absolute path, 0-based line, whether that lookup got no answer because the
/// server was still loading — see [`LanguageServer::note_lookup`] — rather than no definition),
/// at most [`MAX_REFERENCE_CHECKS`] occurrences asked; `None` when there are more (not checked)
/// or the deadline passed first.
pub fn unresolved_occurrences(
    server: &LanguageServer,
    name: &str,
    covered: &HashSet<(PathBuf, u32)>,
    deadline: Instant,
) -> Option<Vec<(PathBuf, u32, bool)>> {
    let grep = grep_word(server.definition(), server.workspace_root(), server.root(), name);
    let encoding = server.position_encoding();
    let uncovered: Vec<&WordHit> = grep
        .hits
        .iter()
        .filter(|hit| !covered.contains(&(std::fs::canonicalize(&hit.path).unwrap_or_else(|_| hit.path.clone()), hit.line)))
        .collect();
    if uncovered.len() > MAX_REFERENCE_CHECKS {
        return None;
    }
    let mut classifier = Classifier::new(&grep, name.len(), server.workspace_root(), server.root());
    let mut nowhere = Vec::new();
    for hit in uncovered {
        if Instant::now() >= deadline {
            return None;
        }
        if classifier.kind(hit) != OccurrenceKind::Code {
            continue;
        }
        let start = encoding.column_from_byte(&hit.line_text, hit.byte_start);
        if definition_targets(server, &hit.path, hit.line, start, deadline).is_empty() {
            nowhere.push((hit.path.clone(), hit.line, server.lookup_unanswered_while_loading(&hit.path, hit.line, start)));
        }
    }
    Some(nowhere)
}

/// At most this many doc-test occurrences are resolved for a references or incoming-calls note.
const MAX_DOC_TEST_OCCURRENCES: usize = 40;

/// The note for a Rust references or incoming-calls answer about the symbol at (`line`,
/// `character`) of `origin` named `name`: its whole-word occurrences inside doc-test examples
/// (the fenced code blocks of doc comments, which rustdoc compiles and rust-analyzer does not
/// analyze), each resolved in a copy of its example ([`crate::lsp::doc_tests`]); those that lead
/// to this symbol, and those that could not be resolved, are listed. `None` when there are none
/// or the server is not rust-analyzer's kind (its write check is a cargo check run). At most
/// [`MAX_DOC_TEST_OCCURRENCES`] are resolved; the rest are counted.
pub fn doc_test_uses_note(
    server: &LanguageServer,
    origin: &Path,
    line: u32,
    character: u32,
    name: &str,
    what: &str,
    deadline: Instant,
) -> Option<String> {
    if server.definition().write_check != crate::lsp::WriteCheck::ProjectCheckRun {
        return None;
    }
    let grep = grep_word(server.definition(), server.workspace_root(), server.root(), name);
    let mut classifier = Classifier::new(&grep, name.len(), server.workspace_root(), server.root());
    // With the code blocks of Markdown files the crate includes as docs (trial167 F1: walkdir's
    // README.md:60 `follow_links` use was missing from the references of `follow_links`).
    let doc_test_hits: Vec<WordHit> = grep
        .hits
        .iter()
        .filter(|hit| classifier.kind(hit) == OccurrenceKind::DocTest)
        .cloned()
        .chain(grep_included_doc_tests(server.workspace_root(), server.root(), name))
        .collect();
    if doc_test_hits.is_empty() {
        return None;
    }
    let shown = |hit: &WordHit| format!("{}:{}", crate::render::display_path(server.workspace_root(), &hit.path), hit.line + 1);
    let resolved_part: Vec<WordHit> = doc_test_hits.iter().take(MAX_DOC_TEST_OCCURRENCES).cloned().collect();
    let not_resolved = doc_test_hits.len() - resolved_part.len();
    let mut origin_targets = definition_targets(server, origin, line, character, deadline);
    // A trait's method: a doc-test calls it on a concrete type, which resolves to that type's
    // impl of it — a use of the trait method all the same (bytes 1.7.2: `buf.remaining()` in 7
    // examples resolved to `impl Buf for &[u8]`, and `references` of `Buf::remaining` said
    // nothing of them, trial54 F4).
    if !origin_targets.is_empty() {
        origin_targets.extend(implementation_targets(server, origin, line, character, deadline));
    }
    let reader = WorkspaceReader::open(server.workspace_root()).ok()?;
    let resolutions = if origin_targets.is_empty() {
        Vec::new()
    } else {
        crate::lsp::doc_tests::resolve_doc_test_occurrences(server, &reader, &resolved_part, deadline)
    };
    let mut here: Vec<String> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    let mut others = 0usize;
    if resolutions.is_empty() {
        unknown.extend(resolved_part.iter().map(&shown));
    }
    for (hit, resolution) in &resolutions {
        match resolution {
            DocTestResolution::Resolved(targets) if targets.iter().any(|target| origin_targets.contains(target)) => here.push(shown(hit)),
            DocTestResolution::Resolved(_) => others += 1,
            DocTestResolution::Unresolved(_) => unknown.push(shown(hit)),
        }
    }
    if here.is_empty() && unknown.is_empty() && not_resolved == 0 {
        return None;
    }
    let list = |places: &[String]| {
        let listed: Vec<String> = places.iter().take(LISTED).cloned().collect();
        let more = if places.len() > LISTED { format!(" and {} more", places.len() - LISTED) } else { String::new() };
        format!("{}{more}", listed.join(", "))
    };
    let mut parts: Vec<String> = Vec::new();
    if !here.is_empty() {
        parts.push(format!(
            "{} that {} resolved, in a copy of the example, to this symbol: {}",
            crate::render::plural(here.len(), "use"),
            server.id(),
            list(&here)
        ));
    }
    if !unknown.is_empty() {
        parts.push(format!("{} it could not resolve (read them): {}", crate::render::plural(unknown.len(), "occurrence"), list(&unknown)));
    }
    if not_resolved > 0 {
        parts.push(format!("{not_resolved} more not resolved (cap of {MAX_DOC_TEST_OCCURRENCES})"));
    }
    let others_text = if others > 0 { format!("; {others} more lead to another `{name}`, not listed") } else { String::new() };
    Some(format!(
        "note: NOT in this answer: {what} in doc-test examples ({}: not analyzed by {}; `cargo test --doc` compiles them): {}{others_text}",
        if doc_test_hits.iter().any(|hit| crate::lsp::doc_tests::is_markdown(&hit.path)) {
            "doc comments' code blocks, and those of Markdown files the crate includes as docs"
        } else {
            "doc comments' code blocks"
        },
        server.id(),
        parts.join("; ")
    ))
}

/// Cross-checks a `textDocument/references` answer for `name` at (`line`, `character`) of
/// `origin` against `grep -w` (the same ground truth as [`complete_rename`]): an occurrence
/// outside the answer whose definition leads to the symbol (or to a reference in the answer)
/// is a missed use; the server is asked again from there (at most [`MAX_EXTRA_RENAMES`] times)
/// and the answers merged; a missed use it still omits is named in a note, never added.
/// Occurrences in comments and strings ([`classify_occurrences`]) are not asked. Bounded by
/// `deadline` and
/// [`MAX_REFERENCE_CHECKS`]; what was not checked is said.
#[allow(clippy::too_many_arguments)]
pub fn complete_references(
    server: &LanguageServer,
    workspace_root: &Path,
    origin: &Path,
    line: u32,
    character: u32,
    name: &str,
    answer: Option<Vec<lsp_types::Location>>,
    deadline: Instant,
) -> ReferencesCoverage {
    let shown = |path: &Path| crate::render::display_path(workspace_root, path);
    let references: Vec<lsp_types::Location> = answer.unwrap_or_default();
    let grep = grep_word(server.definition(), server.workspace_root(), server.root(), name);
    // Scripts no server reads (trial42 F6): named whatever the cross-check finds.
    let scripts = grep_scripts_without_extension(server.definition(), server.workspace_root(), server.root(), name);
    let scripts_note = (!scripts.is_empty())
        .then(|| format!("note: {}", scripts_without_extension_sentence(server.id(), name, &scripts, "in this answer", shown)));
    let mut references = references;
    let alias_notes = references_through_rust_aliases(server, workspace_root, origin, line, character, name, &mut references, deadline);
    let mut coverage =
        complete_references_in_served_files(server, workspace_root, origin, line, character, name, references, grep, deadline);
    coverage.notes.extend(alias_notes);
    coverage.notes.extend(scripts_note);
    coverage
}

/// Rust uses through a renaming import that the answer lists (`use super::imp::OnceCell as
/// Imp;`): rust-analyzer lists the `use` among the references of the item and none of the uses
/// of `Imp`, even when asked from the alias (trial67 F3: once_cell's `sync::OnceCell(Imp<T>)`,
/// `Imp::new()` and `Imp::with_value(value)` were missing from the references of
/// `imp::OnceCell`). Each occurrence of the alias in the file of the `use` whose definition
/// leads to the queried item (or to the alias) is added to `references`; one note per alias says
/// how many (at most 3 aliases, 200 occurrences each). Empty for other servers.
#[allow(clippy::too_many_arguments)]
fn references_through_rust_aliases(
    server: &LanguageServer,
    workspace_root: &Path,
    origin: &Path,
    line: u32,
    character: u32,
    name: &str,
    references: &mut Vec<lsp_types::Location>,
    deadline: Instant,
) -> Vec<String> {
    if origin.extension().is_none_or(|ext| ext != "rs") {
        return Vec::new();
    }
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return Vec::new() };
    let encoding = server.position_encoding();
    // (file, 0-based line of the `use`, alias).
    let mut aliases: Vec<(PathBuf, u32, String, String)> = Vec::new();
    // Each file read once: an answer lists many references in one file.
    let mut texts: HashMap<PathBuf, Option<String>> = HashMap::new();
    for location in references.iter() {
        let Some(path) = lsp_uri_to_path(&location.uri) else { continue };
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let Some(text) = texts.entry(path.clone()).or_insert_with(|| reader.read_to_string(&path).ok()) else { continue };
        let Some(line_text) = text.lines().nth(location.range.start.line as usize) else { continue };
        let byte = encoding.byte_from_column(line_text, location.range.start.character);
        let Some(rest) = line_text.get(byte..).and_then(|rest| rest.strip_prefix(name)) else { continue };
        let Some(after_as) = rest.trim_start().strip_prefix("as ") else { continue };
        let alias: String = after_as.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let lines_up_to: Vec<&str> = text.lines().take(location.range.start.line as usize + 1).collect();
        let in_use = lines_up_to.iter().rev().take(20).any(|above| {
            let above = above.trim_start();
            above.starts_with("use ") || above.starts_with("pub use ") || above.starts_with("pub(")
        });
        if alias.is_empty() || alias == "_" || !in_use || aliases.iter().any(|(known, _, named, _)| *known == path && *named == alias) {
            continue;
        }
        aliases.push((path, location.range.start.line, alias, line_text.trim().to_owned()));
    }
    if aliases.is_empty() {
        return Vec::new();
    }
    let origin_targets = definition_targets(server, origin, line, character, deadline);
    let mut notes = Vec::new();
    for (path, use_line, alias, use_text) in aliases.into_iter().take(3) {
        let Some(Some(text)) = texts.get(&path) else { continue };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let mut added: Vec<u32> = Vec::new();
        let mut checked = 0usize;
        for (line0, line_text) in text.lines().enumerate() {
            let line0 = line0 as u32;
            if line0 == use_line {
                continue;
            }
            for at in word_positions(line_text, &alias) {
                if checked >= 200 || Instant::now() >= deadline {
                    break;
                }
                checked += 1;
                let start = encoding.column_from_byte(line_text, at);
                let targets = definition_targets(server, &path, line0, start, deadline);
                let leads_here = !targets.is_disjoint(&origin_targets)
                    || targets.iter().any(|(target_path, target_line, _)| *target_path == canonical && *target_line == use_line);
                if !leads_here {
                    continue;
                }
                let end = encoding.column_from_byte(line_text, at + alias.len());
                let listed = references.iter().any(|location| {
                    lsp_uri_to_path(&location.uri).is_some_and(|listed| std::fs::canonicalize(&listed).unwrap_or(listed) == canonical)
                        && covers(location_range(location), line0, start, end)
                });
                if listed {
                    continue;
                }
                references.push(lsp_types::Location {
                    uri: crate::lsp::uri::path_to_lsp_uri(&path),
                    range: lsp_types::Range {
                        start: lsp_types::Position { line: line0, character: start },
                        end: lsp_types::Position { line: line0, character: end },
                    },
                });
                added.push(line0 + 1);
            }
        }
        if !added.is_empty() {
            let shown_lines: Vec<String> = added.iter().take(10).map(u32::to_string).collect();
            notes.push(format!(
                "note: {} through the alias `{alias}` (`{use_text}` at {}:{}) added — {} lists the renaming `use` among the references but none of the uses of the alias: lines {}{}",
                crate::render::plural(added.len(), "use"),
                crate::render::display_path(workspace_root, &path),
                use_line + 1,
                server.id(),
                shown_lines.join(", "),
                if added.len() > 10 { format!(" and {} more", added.len() - 10) } else { String::new() }
            ));
        }
    }
    notes
}

/// [`complete_references`] over the files the server reads (`grep`: [`grep_word`]'s answer).
#[allow(clippy::too_many_arguments)]
fn complete_references_in_served_files(
    server: &LanguageServer,
    workspace_root: &Path,
    origin: &Path,
    line: u32,
    character: u32,
    name: &str,
    mut references: Vec<lsp_types::Location>,
    grep: GrepResult,
    deadline: Instant,
) -> ReferencesCoverage {
    let shown = |path: &Path| crate::render::display_path(workspace_root, path);
    let encoding = server.position_encoding();
    let columns = |hit: &WordHit| -> (u32, u32) {
        (encoding.column_from_byte(&hit.line_text, hit.byte_start), encoding.column_from_byte(&hit.line_text, hit.byte_start + name.len()))
    };
    let location_path = |location: &lsp_types::Location| -> Option<PathBuf> {
        let path = lsp_uri_to_path(&location.uri)?;
        Some(std::fs::canonicalize(&path).unwrap_or(path))
    };
    let contains = |references: &[lsp_types::Location], path: &Path, line: u32, start: u32, end: u32| -> bool {
        references
            .iter()
            .any(|location| location_path(location).is_some_and(|p| p == path) && covers(location_range(location), line, start, end))
    };
    let uncovered: Vec<&WordHit> = grep
        .hits
        .iter()
        .filter(|hit| {
            let (start, end) = columns(hit);
            !contains(&references, &hit.path, hit.line, start, end)
        })
        .collect();
    if uncovered.is_empty() {
        return ReferencesCoverage { answer: references, notes: Vec::new(), doctest_occurrences: Vec::new(), not_listed: Vec::new() };
    }
    if uncovered.len() > MAX_REFERENCE_CHECKS {
        return ReferencesCoverage {
            answer: references,
            doctest_occurrences: Vec::new(),
            not_listed: Vec::new(),
            notes: vec![format!(
                "note: {} whole-word occurrences of `{name}` under {} are not in this answer; too many to cross-check (more than {MAX_REFERENCE_CHECKS}) — most are probably other symbols with this name",
                uncovered.len(),
                shown(server.root())
            )],
        };
    }
    let origin_targets = without_rust_macro_calls(workspace_root, definition_targets(server, origin, line, character, deadline), encoding);
    if origin_targets.is_empty() {
        // No definition at the queried position because the server was still loading is no
        // fact about the code (small24: heck 0.5.0 on a just-started rust-analyzer).
        let why = if server.lookup_unanswered_while_loading(origin, line, character) {
            format!(
                "{id}'s definition lookup here got no answer: it was still loading the project — not a fact about the code; ask again in a few seconds, once `lsp status` shows {id} ready",
                id = server.id()
            )
        } else {
            format!("{} gave no definition here", server.id())
        };
        return ReferencesCoverage {
            answer: references,
            doctest_occurrences: Vec::new(),
            not_listed: Vec::new(),
            notes: vec![format!(
                "note: {} whole-word occurrence(s) of `{name}` are not in this answer and could not be cross-checked ({why})",
                uncovered.len(),
            )],
        };
    }
    let mut asked_again: Vec<String> = Vec::new();
    let mut not_listed: Vec<UnlistedReference> = Vec::new();
    let mut in_text = 0usize;
    let mut classifier = Classifier::new(&grep, name.len(), server.workspace_root(), server.root());
    let mut unchecked = 0usize;
    let mut elsewhere = 0usize;
    let mut nowhere: Vec<(PathBuf, u32)> = Vec::new();
    // The byte column of each of `nowhere`'s occurrences, for reading them by the syntax tree.
    let mut nowhere_columns: Vec<usize> = Vec::new();
    let mut unanswered_while_loading = 0usize;
    let mut in_doctests: Vec<(PathBuf, u32)> = Vec::new();
    // The occurrences whose definition is only a Rust macro call's range (trial171 F1).
    let mut only_macro_call: Vec<(PathBuf, u32, u32, Target, String)> = Vec::new();
    let before = references.len();
    for hit in uncovered {
        let (start, end) = columns(hit);
        if contains(&references, &hit.path, hit.line, start, end) {
            continue;
        }
        if Instant::now() >= deadline {
            unchecked += 1;
            continue;
        }
        let kind = classifier.kind(hit);
        // A Python doctest's `>>>` line is code the doctests run, which the server does not
        // analyze: listed for reading, not counted among comments and strings (trial44 M2:
        // six `>>> take(…)` calls were "not references … in comments or strings"). Rust's are
        // resolved by `doc_test_uses_note`.
        if kind == OccurrenceKind::DocTest && server.definition().write_check != crate::lsp::WriteCheck::ProjectCheckRun {
            in_doctests.push((hit.path.clone(), hit.line));
            continue;
        }
        if kind != OccurrenceKind::Code {
            in_text += 1;
            continue;
        }
        let targets = definition_targets(server, &hit.path, hit.line, start, deadline);
        if targets.is_empty() {
            // The server cannot resolve it: code it does not analyze (behind a `#[cfg]` that is
            // off, a file outside every target) may call this very symbol.
            unanswered_while_loading += usize::from(server.lookup_unanswered_while_loading(&hit.path, hit.line, start));
            nowhere.push((hit.path.clone(), hit.line));
            nowhere_columns.push(hit.byte_start);
            continue;
        }
        // As in `complete_rename`: a target in a Rust macro call's arguments counts only as the
        // symbol itself (trial66 F1), a macro call's range never (trial171 F1).
        let listed = |(path, target_line, target_char): &Target| contains(&references, path, *target_line, *target_char, *target_char + 1);
        match definition_leads_here(workspace_root, &targets, &origin_targets, &listed, encoding) {
            DefinitionLeads::ThisSymbol => (),
            DefinitionLeads::Elsewhere => {
                elsewhere += 1;
                continue;
            }
            DefinitionLeads::OnlyMacroCall(target, macro_name) => {
                only_macro_call.push((hit.path.clone(), hit.line, start, target, macro_name));
                continue;
            }
        }
        if asked_again.len() < MAX_EXTRA_RENAMES {
            let params = lsp_types::ReferenceParams {
                text_document_position: text_document_position(&hit.path, hit.line, start),
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
                context: lsp_types::ReferenceContext { include_declaration: true },
            };
            if let Ok(Some(more)) = server.request::<lsp_types::request::References>(params, deadline) {
                asked_again.push(format!("{}:{}", shown(&hit.path), hit.line + 1));
                for location in more {
                    let Some(path) = location_path(&location) else { continue };
                    let range = location_range(&location);
                    if !contains(&references, &path, range.0, range.1, range.1) {
                        references.push(location);
                    }
                }
                if contains(&references, &hit.path, hit.line, start, end) {
                    continue;
                }
            }
        }
        // The server does not list it even when asked from there: said, not added.
        not_listed.push(UnlistedReference { path: hit.path.clone(), line: hit.line, start, end });
    }
    let mut notes = Vec::new();
    let found = references.len() - before;
    if found > 0 {
        let mut note = format!(
            "note: {}'s answer from here missed {found} reference{} that grep -w finds and whose definition leads to this symbol",
            server.id(),
            if found == 1 { "" } else { "s" }
        );
        if !asked_again.is_empty() {
            note.push_str(&format!("; asked again from {} and merged", asked_again.join(", ")));
        }
        notes.push(note);
    }
    if let Some(note) = doc_test_uses_note(server, origin, line, character, name, "references", deadline) {
        notes.push(note);
    }
    if !in_doctests.is_empty() {
        notes.push(format!(
            "note: NOT in this answer: {} of `{name}` in doctest examples (docstrings' `>>>` lines, which the doctests run and {} does not analyze) — those that call this symbol are uses: {}{}",
            crate::render::plural(in_doctests.len(), "occurrence"),
            server.id(),
            in_doctests.iter().take(LISTED).map(|(path, line0)| format!("{}:{}", shown(path), line0 + 1)).collect::<Vec<_>>().join(", "),
            if in_doctests.len() > LISTED { format!(" and {} more", in_doctests.len() - LISTED) } else { String::new() },
        ));
    }
    if unchecked > 0 {
        notes.push(format!(
            "note: {unchecked} whole-word occurrence(s) of `{name}` outside this answer were NOT checked (time budget); they may be references"
        ));
    }
    let ask_again = "call lsp with the same references arguments";
    notes.extend(crate::lsp::loading_lookups::unanswered_note(server, unanswered_while_loading, "this answer's cross-check", ask_again));
    // Rust: the occurrences the server cannot resolve read by the syntax tree against the asked
    // member (trial167 M3: `Error::from_path(…)` calls and `Handle::from_path` were listed "read
    // them" for `DirEntry::from_path`): other symbols of the same name counted in one line, the
    // member's own uses said as such, the rest listed as before.
    let member = (server.definition().write_check == crate::lsp::WriteCheck::ProjectCheckRun && !nowhere.is_empty())
        .then(|| rust_member_of_targets(workspace_root, &renamable_targets(workspace_root, origin_targets.clone()), name, encoding))
        .flatten();
    if let Some(member) = &member {
        use crate::lsp::rust_cfg_off_occurrences::CfgOffOccurrence;
        let places: Vec<(PathBuf, u32, usize)> =
            nowhere.iter().zip(&nowhere_columns).map(|((path, line0), column)| (path.clone(), *line0, *column)).collect();
        let verdicts = crate::lsp::rust_cfg_off_occurrences::classify_cfg_off_places(workspace_root, &places, member);
        let mut same: Vec<(PathBuf, u32)> = Vec::new();
        let mut hows: Vec<String> = Vec::new();
        let mut others: Vec<(PathBuf, u32)> = Vec::new();
        let mut reasons: Vec<String> = Vec::new();
        let mut rest: Vec<(PathBuf, u32)> = Vec::new();
        for (place, verdict) in nowhere.drain(..).zip(verdicts) {
            let (into, why) = match verdict {
                CfgOffOccurrence::SameMember { how, .. } => (&mut same, Some((&mut hows, how))),
                CfgOffOccurrence::OtherSymbol(why) => (&mut others, Some((&mut reasons, why))),
                CfgOffOccurrence::Undecided => (&mut rest, None),
            };
            if !into.contains(&place) {
                into.push(place);
            }
            if let Some((said, why)) = why {
                if !said.contains(&why) {
                    said.push(why);
                }
            }
        }
        let place = |path: &Path, line0: u32| format!("{}:{}", shown(path), line0 + 1);
        let listed = |places: &[(PathBuf, u32)]| {
            let more = if places.len() > LISTED { format!(" and {} more", places.len() - LISTED) } else { String::new() };
            format!("{}{more}", places.iter().take(LISTED).map(|(path, line0)| place(path, *line0)).collect::<Vec<_>>().join(", "))
        };
        if !same.is_empty() {
            let hint = crate::lsp::inactive::rust_unanalyzed_hint(server.workspace_root(), &same, &place);
            notes.push(format!(
                "note: NOT in this answer: {} of the {} in code {} gives no definition for, which the syntax tree shows to be this member ({}){hint}: {}",
                crate::render::plural(same.len(), "line"),
                member.described(),
                server.id(),
                hows.iter().take(4).cloned().collect::<Vec<_>>().join("; "),
                listed(&same),
            ));
        }
        if !others.is_empty() {
            notes.push(format!(
                "note: not references: {} in code {} gives no definition for name other symbols of the same name, by the syntax tree ({}): {}",
                crate::render::plural(others.len(), "line"),
                server.id(),
                reasons.iter().take(4).cloned().collect::<Vec<_>>().join("; "),
                listed(&others),
            ));
        }
        nowhere = rest;
    }
    if !nowhere.is_empty() {
        // similar 2.7.0: `get_diff_ratio` is called in src/text/inline.rs, a module behind
        // `#[cfg(feature = "inline")]` (off by default); rust-analyzer's 3 references left it
        // out and nothing said so.
        // aho-corasick src/tests.rs:681 and num-integer src/roots.rs:267 sit in `macro_rules!`
        // bodies, not behind a cfg (trial20 M1, trial21 M2): the hint says which is which.
        let place = |path: &Path, line0: u32| format!("{}:{}", shown(path), line0 + 1);
        let cfg_hint = if server.definition().write_check == crate::lsp::WriteCheck::ProjectCheckRun {
            crate::lsp::inactive::rust_unanalyzed_hint(server.workspace_root(), &nowhere, &place)
        } else {
            String::new()
        };
        notes.push(format!(
            "note: NOT in this answer: {} whole-word occurrence(s) of `{name}` in code where {} gives no definition, so it cannot say whether they are references{cfg_hint}: {}{} — read them before relying on this list",
            nowhere.len(),
            server.id(),
            nowhere.iter().take(LISTED).map(|(path, line0)| place(path, *line0)).collect::<Vec<_>>().join(", "),
            if nowhere.len() > LISTED { format!(" and {} more", nowhere.len() - LISTED) } else { String::new() },
        ));
    }
    if let Some(note) = only_macro_call_note(server, &only_macro_call, name, "not merged into this answer", &shown) {
        notes.push(note);
    }
    if found > 0 || !not_listed.is_empty() {
        notes.push(format!(
            "note: the other whole-word occurrences of `{name}` are not references: {elsewhere} in code lead elsewhere, {in_text} are in comments or strings"
        ));
    }
    ReferencesCoverage { answer: references, notes, doctest_occurrences: in_doctests, not_listed }
}

/// The module the path in front of the Rust occurrence `hit` names it through (`use
/// crate::Trait;`, `super::Trait`, `indexmap::Trait`; see [`crate::lsp::rust_reexport_paths`]);
/// `None` for another file, or an occurrence no such path qualifies.
fn qualifying_module(reader: &WorkspaceReader, hit: &WordHit) -> Option<crate::lsp::rust_reexport_paths::QualifyingModule> {
    if hit.path.extension().is_none_or(|extension| extension != "rs") {
        return None;
    }
    let (_, crate_name, lib_root) = crate::lsp::rename_public_api::rust_library_crate(reader.root(), &hit.path)?;
    let text = reader.read_to_string(&hit.path).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    crate::lsp::rust_reexport_paths::module_file_qualifying(&hit.path, &lines, hit.line as usize, hit.byte_start, &crate_name, &lib_root)
}

/// A glob import through which bare uses reach a renamed Rust export (`use indexmap::*;` then
/// `Equivalent<…>`; recheck46 NEW-2), said once with its uses counted.
struct GlobReach {
    /// The file of the glob (absolute).
    file: PathBuf,
    /// 0-based line of the glob's `use` statement (its first line).
    line0: usize,
    /// That line's text, trimmed.
    line_text: String,
    /// The path in front of the `*` (`indexmap`): `use {glob_path}::New as Old;` beside it keeps
    /// the uses working.
    glob_path: String,
    /// The glob imports from the export's own module (not from a module that imports the name
    /// through it, which resolves again once its import keeps the local name).
    direct: bool,
    /// The bare uses in its module that it brings the name to.
    uses: usize,
}

/// The files whose `use` imports the name through the renamed export (they pass the break on
/// to the paths that go through them).
fn importing_through_export(through_export: &[(WordHit, bool, bool)]) -> Vec<PathBuf> {
    through_export.iter().filter(|(_, in_use, _)| *in_use).map(|(hit, _, _)| hit.path.clone()).collect()
}

/// How a Rust module file reaches a renamed export through file-level glob imports
/// ([`glob_chain_reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GlobChainReach {
    /// Its globs lead to the export's own module, or to a module that re-exports it by a glob:
    /// the module re-exports the export, whose name changed.
    Export,
    /// Its globs lead to a module that imports the name through the export by a `use` (which,
    /// once it keeps the local name, mends this one too).
    Importing,
}

/// Whether the library module `file` gets `name` through its own file-level glob imports
/// (`pub use inner::*;`, followed glob after glob, at most 32 files read) from one of
/// `export_modules` (the renamed export's module and modules re-exporting it by a glob) or from
/// one of `importing` (files importing it through the export). `None` when no glob chain leads
/// there, when a module on the way binds the name itself, or when `file` is no module of a
/// library whose layout resolves the globs (review47 M1).
fn glob_chain_reach(
    reader: &WorkspaceReader,
    file: &Path,
    export_modules: &[PathBuf],
    importing: &[PathBuf],
    name: &str,
) -> Option<GlobChainReach> {
    let (_, crate_name, lib_root) = crate::lsp::rename_public_api::rust_library_crate(reader.root(), file)?;
    let mut queue: std::collections::VecDeque<PathBuf> = std::collections::VecDeque::from([file.to_path_buf()]);
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut found: Option<GlobChainReach> = None;
    while let Some(current) = queue.pop_front() {
        if seen.len() >= 32 || seen.iter().any(|file| same_file(file, &current)) {
            continue;
        }
        seen.push(current.clone());
        let Ok(text) = reader.read_to_string(&current) else { continue };
        let lines: Vec<&str> = text.lines().collect();
        let imports = crate::lsp::rust_reexport_paths::RustFileImports::read(&current, &lines, name, &crate_name, &lib_root);
        for glob in imports.file_level_globs(&lines, name) {
            if export_modules.iter().any(|file| same_file(file, &glob.module_file)) {
                return Some(GlobChainReach::Export);
            }
            if importing.iter().any(|file| same_file(file, &glob.module_file)) {
                found = Some(GlobChainReach::Importing);
            } else {
                queue.push_back(glob.module_file.clone());
            }
        }
    }
    found
}

/// Whether two paths name the same file (as written, or once resolved).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(a).ok().is_some_and(|a| std::fs::canonicalize(b).ok() == Some(a))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_copy_with_changes_call_is_on_self_only_when_self_is_its_first_argument() {
        let text = "def f(self, other):\n    a = replace(self, x=1)\n    b = dataclasses.replace(\n        self,\n        x=2,\n    )\n    c = replace(other, x=3)\n    d = replace(selfish, x=4)\n";
        let at = |line: u32| {
            let line_text = text.lines().nth(line as usize).unwrap();
            line_text.find("x=").unwrap()
        };
        assert!(super::python_call_on_self(text, 1, at(1), "replace"));
        assert!(super::python_call_on_self(text, 4, at(4), "dataclasses.replace"), "across lines");
        assert!(!super::python_call_on_self(text, 6, at(6), "replace"));
        assert!(!super::python_call_on_self(text, 7, at(7), "replace"), "`selfish` is not `self`");
    }

    #[test]
    fn destructuring_patterns_are_told_from_plain_locals() {
        let at = |line: &str| super::destructures_at(line, line.find("foo").unwrap());
        assert!(at("const { foo } = obj;"));
        assert!(at("for (const { bar, foo } of list) {"));
        assert!(at("let [foo] = pair;"));
        assert!(!at("const foo = obj.foo;"));
        assert!(!at("if (x) { foo(); }"));
        assert!(!at("function f({ foo }: Options) {"), "a parameter's pattern is typed by its annotation");
        let shorthand = |line: &str| super::shorthand_property_at(line, line.find("foo").unwrap(), 3);
        assert!(shorthand("return calc({ a, foo })"));
        assert!(shorthand("g({ foo, b: 1 })"));
        assert!(!shorthand("const x = foo;"));
        assert!(!shorthand("if (x) { foo(); }"));
    }

    /// Trial163 F1 and review48 H4: which cfg-off occurrences resolve through a renamed `use`.
    #[test]
    fn an_occurrence_resolves_through_a_renamed_use_only_in_its_block_unshadowed() {
        // The renamed `use` is on line `use_line` (0-based), `Foo` → `Bar`; the occurrence is the
        // last `Foo` of the last line that has one.
        let resolves = |text: &str, use_line: u32| -> Option<u32> {
            let lines: Vec<&str> = text.lines().collect();
            let last = lines.iter().rposition(|line| line.contains("Foo")).unwrap();
            let byte_start = lines[last].rfind("Foo").unwrap();
            let column = lines[use_line as usize].rfind("Foo").unwrap() as u32;
            let edit = super::text_edit(use_line, column, column + 3, "Bar");
            let hit = super::WordHit { path: "/w/src/lib.rs".into(), line: last as u32, byte_start, line_text: lines[last].to_owned() };
            super::rust_renamed_use_in_scope(text, &[edit], &hit, "Foo", "Bar", super::PositionEncoding::Utf8)
        };
        let trial = "fn t() {\n    use crate::w::Foo;\n    fn get(p: Foo) -> Foo { p }\n    assert_eq!(get(x()), Foo::Disk(b'C'));\n}\n";
        assert_eq!(resolves(trial, 1), Some(1));
        assert_eq!(resolves("fn t() {\n    use crate::w::Foo;\n    assert_eq!(Foo::Disk, x());\n}\n", 1), Some(1), "`(Foo` is no binding");
        let nested_mod = "use crate::a::Foo;\n#[cfg(windows)]\nmod imp {\n    use crate::b::Foo;\n    fn f() { Foo::new(); }\n}\n";
        assert_eq!(resolves(nested_mod, 0), None, "a module does not inherit the parent's imports");
        let local_item = "fn g() {\n    use crate::a::Foo;\n    #[cfg(windows)]\n    {\n        let _ = Foo;\n    }\n    struct Foo;\n}\n";
        assert_eq!(resolves(local_item, 1), None, "a local item of the name shadows it in the block");
        let char_brace = "fn g(c: char) {\n    {\n        use crate::a::Foo;\n        if c == '{' {}\n    }\n    let _ = Foo::Disk;\n}\n";
        assert_eq!(resolves(char_brace, 2), None, "the `use`'s block closed; the `{{` in a char literal is no block");
        assert_eq!(resolves("fn g() {\n    use crate::a::Foo;\n    let Foo = 1;\n    let _ = Foo;\n}\n", 1), None, "a binding");
    }

    #[test]
    fn a_qualified_comment_mention_of_another_owner_is_no_mention_of_the_documented_declaration() {
        let hit = |line: &str, word: &str| super::WordHit {
            path: std::path::PathBuf::from("/w/mux.go"),
            line: 0,
            byte_start: line.find(&format!(".{word}")).map_or_else(|| line.find(word).unwrap(), |at| at + 1),
            line_text: line.to_owned(),
        };
        let router_path = "func (r *Router) Path(tpl string) *Route {";
        assert!(super::qualified_by_another_owner(&hit("// See Route.Path().", "Path"), router_path));
        assert!(!super::qualified_by_another_owner(&hit("// See Router.Path().", "Path"), router_path));
        assert!(!super::qualified_by_another_owner(&hit("// Path registers a route.", "Path"), router_path), "unqualified");
        // Rust or Python: the owner named on the declaration line, else another owner.
        assert!(super::qualified_by_another_owner(&hit("/// Like `Other::path`.", "path"), "    pub fn path(&self) -> &str {"));
    }

    #[test]
    fn a_go_example_output_comment_is_told_from_prose() {
        let text = "package mux\n\n// Match reports.\nfunc ExampleRoute_HeadersRegexp() {\n\t// Match the header.\n\tfmt.Printf(\"Match: %v\\n\", ok)\n\t// Output:\n\t// Match: true\n\t// Match: false\n}\n\nfunc TestMatch(t *testing.T) {\n\t// Match: no output block\n}\n";
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let at = |line: usize| super::go_example_output_comment(&lines, line);
        assert_eq!(at(7).as_deref(), Some("ExampleRoute_HeadersRegexp"));
        assert_eq!(at(8).as_deref(), Some("ExampleRoute_HeadersRegexp"));
        assert_eq!(at(6).as_deref(), Some("ExampleRoute_HeadersRegexp"), "the Output: line itself");
        assert_eq!(at(4), None, "a comment above the output block");
        assert_eq!(at(2), None, "a doc comment");
        assert_eq!(at(12), None, "no Example");
    }

    #[test]
    fn an_escape_sequence_is_no_whole_word_occurrence() {
        assert_eq!(word_positions("print('a\\n', n)", "n"), vec![13]);
        assert_eq!(word_positions("n = \"\\t\" + t", "t"), vec![11]);
        assert_eq!(word_positions("n\\n", "n"), vec![0]);
        // A name right after a one-letter escape is a whole word (trial174 M4: pickled
        // `\nInfinityType\n`); after an escaped backslash and a letter it is glued to the letter.
        assert_eq!(word_positions("b\"cpkg._structures\\nInfinityType\\nq\\n\"", "InfinityType"), vec![20]);
        assert_eq!(word_positions("\"\\tInfinityType\"", "InfinityType"), vec![3]);
        assert_eq!(word_positions("r\"C:\\\\nInfinityType\"", "InfinityType"), Vec::<usize>::new());
        assert_eq!(word_positions("nInfinityType", "InfinityType"), Vec::<usize>::new());
    }

    #[test]
    fn a_struct_embedding_another_packages_interface_of_the_same_name_does_not_embed_this_one() {
        // afero 1.9.3 (trial110 F4): `fromIOFSFile` embeds io/fs's `fs.File`, not afero's `File`.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("afero.go"), "package afero\n\ntype File interface {\n\tName() string\n}\n").unwrap();
        std::fs::write(
            root.join("iofs.go"),
            "package afero\n\nimport \"io/fs\"\n\ntype fromIOFSFile struct {\n\tfs.File\n\tname string\n}\n\ntype wrapped struct {\n\tFile\n}\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("consumer")).unwrap();
        std::fs::write(root.join("consumer/c.go"), "package consumer\n\ntype CountingFile struct {\n\tafero.File\n\tn int\n}\n").unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        let package = (root.clone(), "afero".to_owned());
        let here = go_types_embedding(&root, &reader, &root, "File", Some(&package));
        assert_eq!(here, HashSet::from(["wrapped".to_owned()]));
        let there = go_types_embedding(&root, &reader, &root.join("consumer"), "File", Some(&package));
        assert_eq!(there, HashSet::from(["CountingFile".to_owned()]));
    }

    #[test]
    fn a_macro_calls_range_never_leads_to_the_symbol_asked() {
        // bitflags 2.13.2 (trial171 F1): one `bitflags!` call declares `TestFlags::ABC` and
        // `TestFlagsInvert::ABC`; rust-analyzer, still loading, gave the call's start (line 39,
        // character 0 there) as the definition of `TestExternal::ABC` and listed it among
        // `TestFlags::ABC`'s references.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let tests = root.join("tests.rs");
        std::fs::write(
            &tests,
            "bitflags! {\n    pub struct TestFlags: u8 {\n        const A = 1;\n        const ABC = Self::A.bits();\n    }\n    pub struct TestFlagsInvert: u8 {\n        const ABC = 1;\n    }\n}\n\n#[rustfmt::skip]\ncrate::two_flags!(First, Second);\n",
        )
        .unwrap();
        let encoding = PositionEncoding::Utf8;
        let target = |line: u32, character: u32| (tests.clone(), line, character);
        let call = target(0, 0);
        let declaration = target(3, 14);
        let other_declaration = target(6, 14);
        // The server's references list the call's line: `listed` covers its start.
        let listed = |listed: &Target| *listed == call || *listed == declaration;
        let leads = |targets: &[Target], origin: &[Target]| {
            let origin = without_rust_macro_calls(&root, origin.iter().cloned().collect(), encoding);
            definition_leads_here(&root, &targets.iter().cloned().collect(), &origin, &listed, encoding)
        };
        let only_call = DefinitionLeads::OnlyMacroCall(call.clone(), "bitflags".to_owned());
        assert_eq!(leads(std::slice::from_ref(&call), std::slice::from_ref(&declaration)), only_call);
        assert_eq!(leads(std::slice::from_ref(&call), &[declaration.clone(), call.clone()]), only_call, "the origin's own call range");
        assert_eq!(leads(std::slice::from_ref(&call), std::slice::from_ref(&call)), only_call, "an origin with only the call");
        assert_eq!(leads(&[other_declaration.clone(), call.clone()], &[declaration.clone(), call.clone()]), DefinitionLeads::Elsewhere);
        assert_eq!(leads(&[declaration.clone(), call.clone()], &[declaration.clone(), call.clone()]), DefinitionLeads::ThisSymbol);
        assert_eq!(leads(std::slice::from_ref(&other_declaration), std::slice::from_ref(&declaration)), DefinitionLeads::Elsewhere);
        // Another call (a fn-local `bitflags!` elsewhere) cannot have generated `TestFlags::ABC`.
        assert_eq!(leads(&[target(11, 0)], std::slice::from_ref(&declaration)), DefinitionLeads::Elsewhere);
        // A call with an attribute in front starts at the attribute; its path may be qualified.
        let call_name = |line: u32| rust_macro_call_target(&root, &target(line, 0), encoding);
        assert_eq!(call_name(10), Some(("crate::two_flags".to_owned(), 11)));
        assert_eq!(call_name(11), Some(("crate::two_flags".to_owned(), 11)));
        assert_eq!(call_name(0), Some(("bitflags".to_owned(), 8)));
        assert_eq!(rust_macro_call_target(&root, &target(11, 18), encoding), None, "an argument");
        assert_eq!(rust_macro_call_target(&root, &declaration, encoding), None);
    }

    #[test]
    fn a_path_segment_never_names_a_renamed_field_or_function() {
        // indexmap 2.14.2 (trial155 M5): renaming the field `Bucket::hash`.
        let at = |line: &str| line.find("hash").unwrap();
        let segment = |line: &str, field: bool| rust_path_segment_never_the_renamed(line, at(line), 4, field);
        for line in ["use core::hash::BuildHasher;", "    ::core::hash::BuildHasherDefault::<$H>::new(),", "/// [`X`][core::hash::X]"] {
            assert!(segment(line, true) && segment(line, false), "{line}");
        }
        // A field is never reached by a path; a function is (`Self::hash(x)`), and its turbofish
        // leads on through no module.
        assert!(segment("use core::hash;", true) && !segment("use core::hash;", false));
        assert!(!segment("    Self::hash(x)", false) && segment("    Self::hash(x)", true));
        assert!(!segment("    hash::<u64>(x)", false));
        for line in ["entry.hash.get()", "Bucket { hash, key, value }", "hash: HashValue,", "let hash = 1;", "// the hash table"] {
            assert!(!segment(line, true) && !segment(line, false), "{line}");
        }
    }

    #[test]
    fn occurrences_another_roots_server_listed_are_not_said_unlisted() {
        let dir = tempfile::tempdir().unwrap();
        let lib = std::fs::canonicalize(dir.path()).unwrap().join("lib.rs");
        std::fs::write(&lib, "x\n").unwrap();
        let location = |line: u32| lsp_types::Location {
            uri: crate::lsp::uri::path_to_lsp_uri(&lib),
            range: lsp_types::Range::new(lsp_types::Position::new(line, 4), lsp_types::Position::new(line, 9)),
        };
        let unlisted = |line: u32| UnlistedReference { path: lib.clone(), line, start: 4, end: 9 };
        let not_listed = vec![unlisted(413), unlisted(431)];
        let shown = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
        // The downstream server's answer, merged, lists line 414 (0-based 413): only 432 is left,
        // and it is added to the list (trial155 M4), marked.
        let mut listed = vec![location(413)];
        let (note, added) = merge_references_not_listed(&not_listed, "rust-analyzer", "FromHexError", &mut listed, shown).unwrap();
        assert!(
            note.starts_with("note: 1 of these references (marked `← not in the server's own list`) rust-analyzer does not list"),
            "{note}"
        );
        assert!(note.ends_with(": lib.rs:432"), "{note}");
        assert_eq!(listed, vec![location(413), location(431)]);
        assert_eq!(added, vec![(location(431).uri.as_str().to_owned(), 431, 4)]);
        let mut listed = vec![location(413), location(431)];
        assert_eq!(merge_references_not_listed(&not_listed, "rust-analyzer", "FromHexError", &mut listed, shown), None);
        assert_eq!(listed.len(), 2);
    }

    #[test]
    fn attribute_names_built_from_a_prefix_for_getattr() {
        assert_eq!(
            built_attribute_name_prefix("        method = getattr(self, 'visit_' + node.expr_name, self.generic_visit)").as_deref(),
            Some("visit_")
        );
        assert_eq!(built_attribute_name_prefix("    handler = getattr(obj, f\"on_{event}\")").as_deref(), Some("on_"));
        assert_eq!(built_attribute_name_prefix("    return getattr(cmd, 'do_%s' % verb)()").as_deref(), Some("do_"));
        assert_eq!(built_attribute_name_prefix("    getattr(self, '_inv', None)"), None);
        assert_eq!(built_attribute_name_prefix("    getattr(self, name)"), None);
    }

    #[test]
    fn local_import_bindings_are_default_namespace_and_alias_imports() {
        let at = |line: &str, name: &str| is_local_import_binding(line, line.find(name).unwrap(), name);
        assert!(at("import Maybe from 'true-myth/maybe';", "Maybe"));
        assert!(at("import type Maybe from './maybe';", "Maybe"));
        assert!(at("import * as Maybe from './maybe';", "Maybe"));
        let alias = "import { just, Maybe as M } from './maybe';";
        assert!(is_local_import_binding(alias, alias.find("as M").unwrap() + 3, "M"));
        assert!(!at(alias, "Maybe"), "the imported name, not the local binding");
        assert!(!at("import { Maybe } from './maybe';", "Maybe"));
        assert!(!at("export default Maybe;", "Maybe"));
        assert!(!at("const Maybe = 1;", "Maybe"));
    }

    #[test]
    fn go_anonymous_interface_methods_are_told_from_named_ones() {
        let at = |lines: &[&str], line: usize| {
            let byte = lines[line].find("StackTrace()").unwrap();
            go_anonymous_interface_method(lines, line, byte, "StackTrace")
        };
        assert!(at(&["\tif st, ok := err.(interface{ StackTrace() StackTrace }); ok {"], 0));
        assert!(at(&["func dump(err error) {", "\tvar tracer interface {", "\t\tStackTrace() StackTrace", "\t}"], 2));
        assert!(!at(&["type stackTracer interface {", "\tStackTrace() StackTrace", "}"], 1));
        assert!(!at(&["type (", "\ttracer interface {", "\t\tStackTrace() StackTrace", "\t}", ")"], 2));
        assert!(!at(&["\treturn f.StackTrace()"], 0));
        assert!(!at(&["func (w *withStack) StackTrace() StackTrace {"], 0));
    }

    #[test]
    fn a_python_module_level_definition_line_is_told_from_members_and_uses() {
        assert!(python_module_level_definition_line("def retry(func):", "retry"));
        assert!(python_module_level_definition_line("async def retry(func):", "retry"));
        assert!(python_module_level_definition_line("class Retry(Base):", "Retry"));
        assert!(python_module_level_definition_line("class Retry:", "Retry"));
        assert!(python_module_level_definition_line("retry = make()", "retry"));
        assert!(python_module_level_definition_line("retry: Callable = make()", "retry"));
        assert!(!python_module_level_definition_line("    def retry(self):", "retry"));
        assert!(!python_module_level_definition_line("def retry_all(func):", "retry"));
        assert!(!python_module_level_definition_line("retry == 1", "retry"));
        assert!(!python_module_level_definition_line("retry(1)", "retry"));
    }

    #[test]
    fn a_python_import_module_path_is_told_from_the_imported_names() {
        let line = "from .retry import retry_all, retry_any";
        assert!(python_import_module_path(line, 6));
        assert!(!python_import_module_path(line, 19));
        assert!(python_import_module_path("    import tenacity.retry as r", 20));
        assert!(!python_import_module_path("    import tenacity.retry as retry", 30));
        assert!(!python_import_module_path("retry = 1", 0));
    }

    #[test]
    fn go_package_clauses_import_strings_and_method_results_are_read_from_the_line() {
        assert!(go_package_clause_name_at("package lru", 8));
        assert!(go_package_clause_name_at("package  lru // the cache", 9));
        assert!(!go_package_clause_name_at("\tlru  simplelru.LRUCache", 1));
        assert!(!go_package_clause_name_at("// package lru", 11));
        let import = "\t\"github.com/hashicorp/golang-lru/simplelru\"";
        assert_eq!(quoted_string_around(import, import.find("lru").unwrap()), Some("\"github.com/hashicorp/golang-lru/simplelru\""));
        assert_eq!(quoted_string_around("import { a } from './lru';", 21), Some("'./lru'"));
        assert_eq!(quoted_string_around("lru := 1", 0), None);
        // trial157 M1: the same results as the interface method's, however spaced.
        let interface = go_method_results("\tGet(key interface{}) (value interface{}, ok bool)", "Get");
        assert_eq!(interface.as_deref(), Some("(valueinterface{},okbool)"));
        assert_eq!(
            go_method_declaration_results("func (c *TwoQueueCache) Get(key interface{}) (value interface{}, ok bool) {", "Get"),
            interface
        );
        assert_eq!(go_method_declaration_results("func (c *C) Len() int { return 3 }", "Len").as_deref(), Some("int"));
        assert_eq!(go_method_declaration_results("func (c *C) Get(key int) {", "Get").as_deref(), Some(""));
        assert_eq!(go_method_declaration_results("func Get(key int) int {", "Get"), None);
    }

    #[test]
    fn go_interface_method_rewrites_keep_the_methods_results() {
        let size = go_interface_method_rewrites("\tSize() int", "Size", "Len").expect("an interface method");
        assert!(
            size.contains(
                r#"{"pattern": "func ($$$R) Size($$$P) int { $$$B }", "rewrite": "func ($$$R) Len($$$P) int { $$$B }", "language": "go"}"#
            ),
            "{size}"
        );
        assert!(size.contains(r#"{"pattern": "$X.Size($$$A)", "rewrite": "$X.Len($$$A)", "language": "go"}"#), "{size}");
        let each = go_interface_method_rewrites("\tEach(f func(index int, value interface{})) // calls f", "Each", "ForEach").unwrap();
        assert!(each.contains(r#""pattern": "func ($$$R) Each($$$P) { $$$B }""#), "{each}");
        assert!(
            size.contains(r#"{"pattern": "func ($$$R) Size($$$P) ($N1 int) { $$$B }", "rewrite": "func ($$$R) Len($$$P) ($N1 int) { $$$B }", "language": "go"}"#),
            "{size}"
        );
        assert!(!each.contains("name their results"), "{each}");
        let pair = go_interface_method_rewrites("\tNext() (int, bool)", "Next", "Advance").unwrap();
        assert!(pair.contains(r#""pattern": "func ($$$R) Next($$$P) ($N1 int, $N2 bool) { $$$B }""#), "{pair}");
        assert_eq!(go_named_results_pattern("(n int, ok bool)"), None);
        assert_eq!(go_named_results_pattern("map[string]int"), Some("($N1 map[string]int)".to_owned()));
        assert_eq!(go_named_results_pattern("chan int"), None);
        assert_eq!(go_named_results_pattern(""), None);
        assert!(pair.contains(r#""pattern": "func ($$$R) Next($$$P) (int, bool) { $$$B }""#), "{pair}");
        assert_eq!(go_interface_method_rewrites("func (l *List) Size() int {", "Size", "Len"), None);
    }

    #[test]
    fn a_go_method_of_a_standard_dynamic_interface_is_known_by_name_and_parameters() {
        use super::go_dynamic_standard_interface as standard;
        assert_eq!(standard("func (f Frame) Format(s fmt.State, verb rune) {", "Format"), Some("fmt.Formatter"));
        assert_eq!(
            standard("func (e *wrapped) Unwrap() error { return e.err }", "Unwrap"),
            Some("errors.Unwrap's interface{ Unwrap() error }")
        );
        assert_eq!(standard("func (s byAge) Less(i, j int) bool {", "Less"), Some("sort.Interface"));
        assert_eq!(standard("func (f Frame) Format(verb rune) string {", "Format"), None, "other parameters");
        assert_eq!(standard("func Format(s fmt.State, verb rune) {", "Format"), None, "no method");
        // trial68 F1: google/uuid's database/sql methods.
        assert_eq!(standard("func (uuid UUID) Value() (driver.Value, error) {", "Value"), Some("driver.Valuer"));
        assert_eq!(standard("func (uuid *UUID) Scan(src interface{}) error {", "Scan"), Some("sql.Scanner"));
        assert_eq!(standard("func (nu *NullUUID) Scan(value any) error {", "Scan"), Some("sql.Scanner"));
        assert_eq!(standard("func (s *T) Scan(dst []byte) error {", "Scan"), None, "other parameters");
    }

    #[test]
    fn a_go_method_renamed_into_a_standard_dynamic_interface_is_known() {
        use super::go_standard_interface_gained as gained;
        // trial73 M1: go-version's `Original() string` renamed to `Error` / `GoString`.
        assert_eq!(gained("func (v *Version) Original() string {", "Original", "Error"), Some("error"));
        assert_eq!(gained("func (v *Version) Metadata() string {", "Metadata", "GoString"), Some("fmt.GoStringer"));
        assert_eq!(gained("func (v *Version) Original() int {", "Original", "Error"), None, "another result");
        assert_eq!(gained("func (v *Version) String() string {", "String", "Error"), None, "it implemented one before");
        assert_eq!(gained("func (v *Version) Original() string {", "Original", "Origin"), None, "no standard name");
        assert_eq!(gained("func (v T) Encode() ([]byte, error) {", "Encode", "MarshalJSON"), Some("json.Marshaler"));
        assert_eq!(gained("func (w *W) Cause() []error {", "Cause", "Unwrap"), Some("errors.Unwrap's interface{ Unwrap() error }"));
        assert_eq!(gained("func (w *W) Cause() string {", "Cause", "Unwrap"), None, "Unwrap returns error");
    }

    #[test]
    fn the_object_of_an_attribute_call_is_read_off_its_line() {
        let line = "    monkeypatch.setattr(tenacity.nap.time, \"sleep\", sleep)";
        let at = line.find("sleep\"").unwrap();
        let (object, identifier_at) = super::attribute_call_object(line, at).unwrap();
        assert_eq!(object, "tenacity.nap.time");
        assert_eq!(&line[identifier_at..identifier_at + 4], "time");
        assert_eq!(super::attribute_call_object("getattr(self._x(), \"y\")", 21), None, "a call is no name");
    }

    #[test]
    fn the_trait_of_a_block_and_of_a_doc_test_impl_method_is_read_by_the_braces() {
        let text = "pub trait Fragment {\n    fn width(&self) -> f64;\n}\n\nimpl<'a> crate::core::Fragment<'a> for Word<'a> {\n    fn width(&self) -> f64 {\n        1.0\n    }\n}\n\n/// ```\n/// use demo::Fragment;\n/// struct Task;\n/// impl Fragment for Task {\n///     fn width(&self) -> f64 {\n///         2.0\n///     }\n/// }\n/// fn width() {}\n/// ```\npub fn wrap() {}\n";
        assert_eq!(super::rust_enclosing_trait(text, 1, false).as_deref(), Some("Fragment"));
        assert_eq!(super::rust_enclosing_trait(text, 5, false).as_deref(), Some("Fragment"));
        assert_eq!(super::doc_test_impl_method_of(text, 14, "width").as_deref(), Some("Fragment"));
        assert_eq!(super::doc_test_impl_method_of(text, 18, "width"), None, "a free function of the example");
        assert_eq!(super::doc_test_impl_method_of(text, 15, "width"), None, "no definition on the line");
    }

    #[test]
    fn a_shebang_names_the_language_of_a_script() {
        assert_eq!(super::shebang_extension("#!/usr/bin/env python3"), Some("py"));
        assert_eq!(super::shebang_extension("#!/usr/bin/python3.12 -u"), Some("py"));
        assert_eq!(super::shebang_extension("#!/usr/bin/env -S node --experimental"), Some("js"));
        assert_eq!(super::shebang_extension("#!/usr/bin/env ts-node"), Some("ts"));
        assert_eq!(super::shebang_extension("#!/bin/bash"), None);
        assert_eq!(super::shebang_extension("import os"), None);
    }

    #[test]
    fn renamed_uses_of_a_local_that_shadows_the_renamed_item_are_found() {
        use super::*;
        // base64 0.22.1's engine tests (trial38 F2): rust-analyzer renamed the uses of locals
        // named like the renamed function, through rstest's proc macro, and left the locals.
        let text = "fn check(engine: &E) {\n    let n = encoded_len(3);\n    let encoded_len = engine.encode(n);\n    buf.truncate(encoded_len);\n    [1].iter().for_each(|encoded_len| drop(encoded_len));\n}\n";
        let source = crate::lsp::syntax::ParsedSource::parse(Path::new("tests.rs"), text).expect("parsed");
        let at = |line0: u32, nth: usize| -> (u32, usize) {
            (line0, text.lines().nth(line0 as usize).unwrap().match_indices("encoded_len").nth(nth).unwrap().0)
        };
        // The server renamed the call (right), the truncate's use (wrong) and the closure's use
        // (wrong), leaving both locals.
        let renamed: HashSet<(u32, usize)> = [at(1, 0), at(3, 0), at(4, 1)].into_iter().collect();
        assert_eq!(rust_local_uses_renamed(&source, &renamed, "encoded_len"), vec![(3, 2), (4, 4)]);
        // Renaming the locals with their uses is consistent.
        let all: HashSet<(u32, usize)> = [at(1, 0), at(2, 0), at(3, 0), at(4, 0), at(4, 1)].into_iter().collect();
        assert!(rust_local_uses_renamed(&source, &all, "encoded_len").is_empty());
    }

    #[test]
    fn a_comment_above_a_declaration_of_the_name_documents_it() {
        use super::*;
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let source = "// IsBlank returns true if this node consists of spaces.\n// More.\nfunc (n *CodeSpan) IsBlank(source []byte) bool {\n\treturn true\n}\n\n// IsBlank is used below.\nvar x = IsBlank\n// IsBlank again\n\nfunc IsBlank() {}\n";
        std::fs::write(root.join("inline.go"), source).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        let found = documented_declaration(&reader, &root.join("inline.go"), 0, "IsBlank").expect("the method it documents");
        assert_eq!((found.line, found.byte_start), (2, 19));
        assert!(documented_declaration(&reader, &root.join("inline.go"), 6, "IsBlank").is_none(), "`var x` declares `x`");
        assert!(documented_declaration(&reader, &root.join("inline.go"), 8, "IsBlank").is_none(), "a blank line ends the comment's reach");
        assert!(documented_declaration(&reader, &root.join("inline.go"), 0, "Other").is_none());
    }

    #[test]
    fn an_import_site_alias_from_a_second_rename_becomes_the_new_name_when_the_declaration_is_renamed() {
        use super::*;
        let edit = |line: u32, start: u32, end: u32, text: &str| lsp_types::TextEdit {
            range: lsp_types::Range::new(lsp_types::Position::new(line, start), lsp_types::Position::new(line, end)),
            new_text: text.to_owned(),
        };
        // tsserver's answer to a rename at `import {generateName, log} from './utils'` (line 17)
        // plus the call at line 334.
        let mut more = BTreeMap::from([(
            PathBuf::from("/w/src/parser.ts"),
            vec![edit(16, 8, 20, "generateName as makeUniqueName"), edit(333, 11, 23, "makeUniqueName")],
        )]);
        assert_eq!(drop_import_site_aliases(&mut more, "generateName", "makeUniqueName"), 1);
        let texts: Vec<&str> = more.values().flatten().map(|edit| edit.new_text.as_str()).collect();
        assert_eq!(texts, vec!["makeUniqueName", "makeUniqueName"]);
        // Any other text (an export keeping its public name) is left alone.
        let mut other = BTreeMap::from([(PathBuf::from("/w/src/index.ts"), vec![edit(1, 9, 21, "makeUniqueName as generateName")])]);
        assert_eq!(drop_import_site_aliases(&mut other, "generateName", "makeUniqueName"), 0);
    }

    use super::*;

    /// Every whole-word occurrence of `word` in `source`, as the grep pass finds them.
    fn word_hits(source: &str, word: &str) -> Vec<WordHit> {
        split_lines(source)
            .into_iter()
            .enumerate()
            .flat_map(|(line, text)| {
                word_positions(text, word).into_iter().map(move |byte_start| WordHit {
                    path: PathBuf::new(),
                    line: line as u32,
                    byte_start,
                    line_text: text.to_owned(),
                })
            })
            .collect()
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(word_positions("evolve(evolved, _evolve, x.evolve) # evolve", "evolve"), vec![0, 27, 37]);
        assert_eq!(word_positions("", "x"), Vec::<usize>::new());
    }

    #[test]
    fn whole_file_replacements_become_identifier_edits() {
        let old = "from shop.pricing import total_price\n__all__ = [\"total_price\"]\nx = total_price(1)  # é\n";
        let new = "from shop.pricing import gross_price\n__all__ = [\"total_price\"]\nx = gross_price(1)  # é\n";
        let edits = minimal_edits(old, new, PositionEncoding::Utf16);
        let ranges: Vec<(u32, u32, u32, &str)> =
            edits.iter().map(|e| (e.range.start.line, e.range.start.character, e.range.end.character, e.new_text.as_str())).collect();
        assert_eq!(ranges, vec![(0, 25, 36, "gross_price"), (2, 4, 15, "gross_price")]);
        assert_eq!(crate::lsp::rename::apply_text_edits(old, &edits, PositionEncoding::Utf16).unwrap(), new);
        // Identical lines: the renamed one is edited in place, not an inserted line and a
        // deleted one (trial66 M2: fastrand's `rng_integer!(\n u32,\n u32,`).
        let old = "m!(\n    u32,\n    u32,\n);\n";
        let new = "m!(\n    rand_u32,\n    u32,\n);\n";
        let edits = minimal_edits(old, new, PositionEncoding::Utf8);
        let ranges: Vec<(u32, u32, u32, &str)> =
            edits.iter().map(|e| (e.range.start.line, e.range.start.character, e.range.end.character, e.new_text.as_str())).collect();
        assert_eq!(ranges, vec![(1, 4, 7, "rand_u32")]);
        // Inserted lines become one whole-line edit.
        let grown = "a\nb\nc\n";
        let edits = minimal_edits("a\nc\n", grown, PositionEncoding::Utf8);
        assert_eq!(crate::lsp::rename::apply_text_edits("a\nc\n", &edits, PositionEncoding::Utf8).unwrap(), grown);
    }

    #[test]
    fn comments_and_strings_are_told_apart_from_code() {
        let dir = tempfile::tempdir().unwrap();
        let py = dir.path().join("a.py");
        std::fs::write(&py, "# total here\nx = total  # total\ns = \"total\"\nf = f\"{total} total\"\n").unwrap();
        let grep = GrepResult {
            hits: std::fs::read_to_string(&py)
                .unwrap()
                .lines()
                .enumerate()
                .flat_map(|(line, text)| {
                    word_positions(text, "total").into_iter().map(move |byte_start| WordHit {
                        path: PathBuf::new(),
                        line: line as u32,
                        byte_start,
                        line_text: text.to_owned(),
                    })
                })
                .collect(),
            files_scanned: 1,
            truncated: false,
            scope: None,
        };
        let hits: Vec<&WordHit> = grep.hits.iter().collect();
        use OccurrenceKind::{Code, Comment, Text};
        assert_eq!(
            classify_occurrences(&std::fs::read_to_string(&py).unwrap(), &py, &hits, 5),
            vec![Comment, Code, Comment, Text, Code, Text]
        );
        let c = dir.path().join("m.c");
        std::fs::write(&c, "int total(void);\n// total twice\n").unwrap();
        let hits = [
            WordHit { path: c.clone(), line: 0, byte_start: 4, line_text: String::new() },
            WordHit { path: c.clone(), line: 1, byte_start: 3, line_text: String::new() },
        ];
        assert_eq!(
            classify_occurrences(&std::fs::read_to_string(&c).unwrap(), &c, &hits.iter().collect::<Vec<_>>(), 5),
            vec![Code, Comment]
        );
    }

    #[test]
    fn module_paths_of_imports_and_exports_are_told_from_other_strings() {
        let dir = tempfile::tempdir().unwrap();
        let ts = dir.path().join("m.ts");
        let source = "import { createAction } from './createAction'\nexport * from './createAction'\nconst x = require('./createAction')\nconst y = import('./createAction')\nconst z = 'createAction'\nimport q = require('./createAction')\nlog('a', 'createAction')\n";
        let hits = word_hits(source, "createAction");
        use OccurrenceKind::{Code, ModulePath, Text};
        assert_eq!(
            classify_occurrences(source, &ts, &hits.iter().collect::<Vec<_>>(), 12),
            vec![Code, ModulePath, ModulePath, ModulePath, ModulePath, Text, ModulePath, Text]
        );
        let go = dir.path().join("m.go");
        let source = "package m\n\nimport (\n\t\"example.com/flags\"\n)\n\nvar s = \"flags\"\n";
        let hits = word_hits(source, "flags");
        assert_eq!(classify_occurrences(source, &go, &hits.iter().collect::<Vec<_>>(), 5), vec![ModulePath, Text]);
    }

    #[test]
    fn doc_test_code_is_told_apart_from_doc_prose_and_plain_comments() {
        // semver's crate docs: a doc-test calling `.matches(`, prose naming it, an `ignore` block.
        let dir = tempfile::tempdir().unwrap();
        let rs = dir.path().join("lib.rs");
        let source = "//! Check with [`VersionReq::matches`].\n//!\n//! ```\n//! assert!(req.matches(&version));\n//! ```\n//!\n//! ```ignore\n//! req.matches(&v)\n//! ```\n/// ```no_run\n/// req.matches(&v); // it matches\n/// ```\n// matches\npub fn matches() {}\n";
        std::fs::write(&rs, source).unwrap();
        let hits = word_hits(source, "matches");
        use OccurrenceKind::{Code, Comment, DocTest};
        let lines: Vec<u32> = hits.iter().map(|hit| hit.line + 1).collect();
        assert_eq!(lines, vec![1, 4, 8, 11, 11, 13, 14]);
        assert_eq!(
            classify_occurrences(source, &rs, &hits.iter().collect::<Vec<_>>(), 7),
            vec![Comment, DocTest, Comment, DocTest, Comment, Comment, Code]
        );
        // bitflags 2.13.2 src/traits.rs: doc-tests in block doc comments, with and without a ` * `
        // column, the fence closed on the `*/` line; `/***` is a plain comment.
        let source = "/**\nCall [`is_named`].\n\n```\nf.is_named();\n```\n*/\n/*!\n * ```\n * f.is_named(); /* is_named */\n * ``` */\n/***\n```\nf.is_named();\n```\n*/\nfn is_named() {}\n";
        std::fs::write(&rs, source).unwrap();
        let hits = word_hits(source, "is_named");
        let lines: Vec<u32> = hits.iter().map(|hit| hit.line + 1).collect();
        assert_eq!(lines, vec![2, 5, 10, 10, 14, 17]);
        assert_eq!(
            classify_occurrences(source, &rs, &hits.iter().collect::<Vec<_>>(), 8),
            vec![Comment, DocTest, DocTest, Comment, Comment, Code]
        );
        // strsim 0.11.1 (trial43 M3): a string or comment of the example is text, not a use.
        let source = "/// ```\n/// assert_eq!(Ok(3), hamming(\"hamming\", 'h'.to_string() + \"x\")); // hamming\n/// let s = r#\"hamming\"#;\n/// ```\npub fn hamming() {}\n";
        std::fs::write(&rs, source).unwrap();
        let hits = word_hits(source, "hamming");
        let lines: Vec<u32> = hits.iter().map(|hit| hit.line + 1).collect();
        assert_eq!(lines, vec![2, 2, 2, 3, 5]);
        assert_eq!(
            classify_occurrences(source, &rs, &hits.iter().collect::<Vec<_>>(), 7),
            vec![DocTest, OccurrenceKind::Text, Comment, OccurrenceKind::Text, Code]
        );
        // Python: a docstring's `>>>` example is a doctest; its prose is a string.
        let py = dir.path().join("m.py");
        let source = "def total():\n    \"\"\"Sum with total().\n\n    >>> total()\n    0\n    \"\"\"\n";
        std::fs::write(&py, source).unwrap();
        let hit = |line: u32, byte_start: usize| WordHit { path: PathBuf::new(), line, byte_start, line_text: String::new() };
        let hits = [hit(0, 4), hit(1, 17), hit(3, 8)];
        assert_eq!(classify_occurrences(source, &py, &hits.iter().collect::<Vec<_>>(), 5), vec![Code, OccurrenceKind::Text, DocTest]);
        // more-itertools 10.5.0 (trial44 M1): a doctest's own string or comment is text.
        let source = "def total():\n    \"\"\"Sum.\n\n    >>> total('total')  # total\n    0\n    \"\"\"\n";
        std::fs::write(&py, source).unwrap();
        let hits = [hit(3, 8), hit(3, 15), hit(3, 26)];
        assert_eq!(classify_occurrences(source, &py, &hits.iter().collect::<Vec<_>>(), 5), vec![DocTest, OccurrenceKind::Text, Comment]);
    }

    #[test]
    fn merging_skips_duplicates_and_overlaps() {
        let edit = |l: u32, a: u32, b: u32| text_edit(l, a, b, "n");
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
