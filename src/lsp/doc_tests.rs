//! Which Rust doc-test occurrences of a renamed name call the renamed item.
//!
//! rust-analyzer renames nothing inside a doc comment's code block and answers no
//! `textDocument/definition` there (it returns null: the example is text to it), so a rename's
//! cross-check ([`crate::lsp::rename_coverage`]) could only list every whole-word occurrence in
//! doc-test code as "may fail". On indexmap 2.7.1 the rename of `IndexMap::get_index_of` listed
//! 33 such occurrences, 16 of which call `IndexSet::get_index_of` — a different method, rightly
//! not renamed, that an agent would "fix" into breakage.
//!
//! [`resolve_doc_test_occurrences`] lets the server itself resolve them: each doc-test block
//! holding an occurrence is copied, as code, into a module appended to its file (`mod
//! __runbound_doc_tests { fn __runbound_doc_test_0() { use crate as CRATE; …example… } }`, the
//! crate's library name from the nearest `Cargo.toml`, so `use indexmap::IndexSet;` in the
//! example resolves as it does in rustdoc), shown to the server as the file's *unsaved* text
//! ([`LanguageServer::with_unsaved_text`]: no `didSave`, the file on disk untouched, the text
//! restored after), and `definition` is asked at each occurrence's position in the copy. The
//! answer leads to the renamed item, to another definition, or nowhere — and the caller renames,
//! leaves, or lists the occurrence accordingly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::files::WorkspaceReader;
use crate::lsp::client::LanguageServer;
use crate::lsp::position::split_lines;
use crate::lsp::rename_coverage::{definition_targets, WordHit};

/// How long to wait for the server's diagnostics of a file's restored text after its examples
/// were resolved in a copy (rust-analyzer publishes within ~100 ms when idle).
const RESTORED_PUBLISH_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// A definition target: canonical path, 0-based line and character of its start.
pub type Target = (PathBuf, u32, u32);

/// How one doc-test occurrence resolved in the server's copy of its example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocTestResolution {
    /// `definition` there answered these targets (at least one).
    Resolved(Vec<Target>),
    /// Not resolved, and why (`rust-analyzer gave no definition there`, `no Cargo.toml above
    /// the file`, `the time budget ran out`, `not a Rust doc-test`).
    Unresolved(String),
}

/// One doc-test code block: the 0-based line of each code line in the file, the byte length of
/// the prefix cut from it (indentation, `///` or `//!` — or `/**`, a block's ` *` — one space, a
/// hidden line's `# `), and
/// the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocTestBlock {
    /// `(0-based file line, prefix bytes cut, code)` per line between the fences.
    pub lines: Vec<(usize, usize, String)>,
}

impl DocTestBlock {
    /// The 0-based file line of the opening fence + 1 (the first code line), or `None` for an
    /// empty block.
    fn first_line(&self) -> Option<usize> {
        self.lines.first().map(|(line, _, _)| *line)
    }
}

/// Where the Markdown text of one line of a Rust doc comment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocCommentLine {
    /// Which doc comment the line belongs to, numbered from 0 in file order: a run of adjacent
    /// `///` lines (or of `//!` lines) is one, a `/** … */` or `/*! … */` block is one.
    pub comment: usize,
    /// The byte where the line's text starts: after the indentation and `///` / `//!`, after
    /// `/**` / `/*!` on a block's first line, after the indentation and `*` on the other lines
    /// of a block whose lines all start with one (rustdoc strips that column), else 0.
    pub start: usize,
    /// The byte where the line's text ends: the line's end, or the `*/` closing a block.
    pub end: usize,
}

/// The doc comment line (see [`DocCommentLine`]) each of `lines` (a Rust file, as
/// [`split_lines`] cuts it) is, `None` for code and plain comments. Line doc comments are `///`
/// and `//!` after indentation (`////` is a plain comment). Block doc comments are `/**` and
/// `/*!` (`/***` and `/**/` are plain, as for rustc), found with tree-sitter so a `/*` in a
/// string is not one and nested `/* */` inside one stay in it (Rust block comments nest); a
/// `///` line inside any block comment is not a line doc comment. Without `/*` in the text the
/// file is not parsed.
pub fn doc_comment_lines(lines: &[&str]) -> Vec<Option<DocCommentLine>> {
    let mut doc: Vec<Option<DocCommentLine>> = vec![None; lines.len()];
    // Block comments: (first line, first byte, last line, end byte), any kind, in file order.
    let mut blocks: Vec<(usize, usize, usize, usize)> = Vec::new();
    if lines.iter().any(|line| line.contains("/*")) {
        use ast_grep_core::tree_sitter::StrDoc;
        use ast_grep_core::AstGrep;
        use ast_grep_language::SupportLang;
        let source = lines.join("\n");
        if let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(&source, SupportLang::Rust) {
            let mut stack = vec![root.root().get_inner_node()];
            while let Some(node) = stack.pop() {
                if node.kind() == "block_comment" {
                    let (from, to) = (node.start_position(), node.end_position());
                    blocks.push((from.row, from.column, to.row, to.column));
                    continue;
                }
                let mut cursor = node.walk();
                stack.extend(node.children(&mut cursor));
            }
        }
        blocks.sort_unstable();
    }
    let mut in_block = vec![false; lines.len()];
    for &(first, _, last, _) in &blocks {
        for flag in in_block.iter_mut().take(last + 1).skip(first) {
            *flag = true;
        }
    }
    // Line doc comments, and block doc comments, numbered in file order.
    let mut comment = 0usize;
    let mut previous_marker: Option<(usize, &str)> = None;
    let mut block_at = blocks.iter().peekable();
    for (index, text) in lines.iter().enumerate() {
        while let Some(&&(first, column, last, end)) = block_at.peek() {
            if first > index {
                break;
            }
            block_at.next();
            let opening = lines[first].get(column..).unwrap_or("");
            let is_doc =
                opening.starts_with("/*!") || (opening.starts_with("/**") && !opening.starts_with("/***") && !opening.starts_with("/**/"));
            if !is_doc {
                continue;
            }
            // rustdoc strips a leading `*` column only when every line after the first has one.
            let starred = (first + 1..=last).all(|line| {
                let text = if line == last { lines[line].get(..end.saturating_sub(2)).unwrap_or("") } else { lines[line] };
                text.trim().is_empty() || text.trim_start().starts_with('*')
            });
            for line in first..=last {
                let text = lines[line];
                let end_byte = if line == last { end.saturating_sub(2).min(text.len()) } else { text.len() };
                let start_byte = if line == first {
                    column + 3
                } else if starred {
                    let indentation = text.len() - text.trim_start().len();
                    if text[indentation..].starts_with('*') && indentation < end_byte {
                        indentation + 1
                    } else {
                        end_byte.min(indentation)
                    }
                } else {
                    0
                };
                doc[line] = Some(DocCommentLine { comment, start: start_byte.min(end_byte), end: end_byte });
            }
            comment += 1;
            previous_marker = None;
        }
        if in_block[index] {
            previous_marker = None;
            continue;
        }
        let trimmed = text.trim_start();
        // A doc attribute is a doc line too: `#![cfg_attr(feature = "alloc", doc = "```")]` opens
        // base64 0.22.1's examples (trial59 F1: the fence was missed, and every example read as
        // prose and the prose as examples); of two adjacent ones with the same text after
        // different predicates (`alloc` / `not(alloc)` choosing "```" or "```ignore"), one applies
        // in a build: the second is read as an empty line.
        let attribute = attribute_doc_text(trimmed);
        let marker = if let Some((inner, _, _)) = attribute {
            Some(if inner { "//!" } else { "///" })
        } else if trimmed.starts_with("////") {
            None
        } else if trimmed.starts_with("///") {
            Some("///")
        } else if trimmed.starts_with("//!") {
            Some("//!")
        } else {
            None
        };
        let Some(marker) = marker else {
            // A blank line between two `///` lines does not end the doc comment: rustdoc joins
            // every doc attribute of the item (trial48 F3: either's `factor_into_iter` example
            // went on after an empty line, and its second half was read as a plain comment).
            if !trimmed.is_empty() {
                previous_marker = None;
            }
            continue;
        };
        let this = match previous_marker {
            Some((number, previous)) if previous == marker => number,
            _ => {
                comment += 1;
                comment - 1
            }
        };
        previous_marker = Some((this, marker));
        let indentation = text.len() - trimmed.len();
        doc[index] = Some(match attribute {
            Some((_, start, end)) => {
                let is_cfg_attr = |line: &str| line.starts_with("#![cfg_attr(") || line.starts_with("#[cfg_attr(");
                let fence =
                    |line: &str, (_, start, end): (bool, usize, usize)| line.get(start..end).unwrap_or("").trim_start().starts_with("```");
                let above = index.checked_sub(1).map(|above| lines[above].trim_start());
                let alternative = is_cfg_attr(trimmed)
                    && fence(trimmed, (true, start, end))
                    && above.is_some_and(|above| is_cfg_attr(above) && attribute_doc_text(above).is_some_and(|found| fence(above, found)));
                if alternative {
                    DocCommentLine { comment: this, start: indentation + start, end: indentation + start }
                } else {
                    DocCommentLine { comment: this, start: indentation + start, end: indentation + end }
                }
            }
            None => DocCommentLine { comment: this, start: indentation + marker.len(), end: text.len() },
        });
    }
    doc
}

/// For a doc attribute on one line — `#![doc = "TEXT"]`, `#[doc = "TEXT"]`, or the same inside
/// `cfg_attr(PREDICATE, doc = "TEXT")` — whether it is an inner one (`#!`) and the byte range of
/// TEXT in `trimmed` (a plain string without escapes); `None` for any other line.
fn attribute_doc_text(trimmed: &str) -> Option<(bool, usize, usize)> {
    let inner = trimmed.starts_with("#![");
    if !inner && !trimmed.starts_with("#[") {
        return None;
    }
    let body = &trimmed[if inner { 3 } else { 2 }..];
    if !(body.starts_with("doc") || body.starts_with("cfg_attr(")) || !trimmed.trim_end().ends_with(']') {
        return None;
    }
    let key = trimmed.find("doc = \"").map(|at| at + "doc = \"".len()).or_else(|| trimmed.find("doc=\"").map(|at| at + "doc=\"".len()))?;
    let length = trimmed[key..].find('"')?;
    if trimmed[key..key + length].contains('\\') {
        return None;
    }
    Some((inner, key, key + length))
}

/// The Markdown text of line `index` of a doc comment (`""` when it is not one).
pub fn doc_comment_text<'a>(lines: &[&'a str], doc: &[Option<DocCommentLine>], index: usize) -> &'a str {
    match doc.get(index).copied().flatten() {
        Some(line) => lines[index].get(line.start..line.end).unwrap_or(""),
        None => "",
    }
}

/// The fenced doc-test block of `lines` (a Rust file; `doc` its [`doc_comment_lines`]) that
/// holds 0-based `line`: an odd number of fences precede the line in its doc comment (`///`,
/// `//!`, `/** */` or `/*! */`), the block runs from the nearest to the closing fence, or to the
/// end of the doc comment when the fence is never closed (CommonMark; rustdoc runs such a
/// block). `None` when `line` is not inside such a block.
/// Hidden lines (`# use x;`) are code for rustdoc and stay, without their `# `. The last line of
/// a block comment ends before its `*/`.
pub fn doc_test_block(lines: &[&str], doc: &[Option<DocCommentLine>], line: usize) -> Option<DocTestBlock> {
    let comment = doc.get(line).copied().flatten()?.comment;
    let same_comment = |index: usize| doc.get(index).copied().flatten().is_some_and(|other| other.comment == comment);
    // A blank line inside a doc comment is no doc line but does not end it (see
    // [`doc_comment_lines`]); rustdoc's text has no line for it.
    let blank = |index: usize| doc.get(index).copied().flatten().is_none() && lines.get(index).is_some_and(|text| text.trim().is_empty());
    let is_fence = |index: usize| doc_comment_text(lines, doc, index).trim_start().starts_with("```");
    let mut open = None;
    let mut fences = 0usize;
    for index in (0..line).rev() {
        if blank(index) {
            continue;
        }
        if !same_comment(index) {
            break;
        }
        if is_fence(index) {
            fences += 1;
            open.get_or_insert(index);
        }
    }
    if fences.is_multiple_of(2) || is_fence(line) {
        return None;
    }
    let open = open?;
    let mut code = Vec::new();
    for index in open + 1..lines.len() {
        if blank(index) && (index + 1..lines.len()).find(|&next| !blank(next)).is_some_and(same_comment) {
            continue;
        }
        // An unclosed fence: the block runs to the end of the doc comment (CommonMark), and
        // rustdoc runs it (smallvec 1.16.6 `from_raw_parts`, lib.rs:1920).
        if !same_comment(index) || is_fence(index) {
            return (index > line).then_some(DocTestBlock { lines: code });
        }
        let Some(place) = doc[index] else { break };
        let text = lines[index];
        let mut prefix = place.start;
        if text[prefix..place.end].starts_with(' ') {
            prefix += 1;
        }
        let rest = &text[prefix..place.end];
        let indentation = rest.len() - rest.trim_start().len();
        if rest.trim_start().starts_with("# ") {
            prefix += indentation + 2;
        } else if rest.trim() == "#" {
            prefix += indentation + 1;
        }
        code.push((index, prefix, text[prefix..place.end].to_owned()));
    }
    // An unclosed fence at the end of the file: the block runs to the end.
    (!code.is_empty()).then_some(DocTestBlock { lines: code })
}

/// The library crate a file belongs to, as its doc-tests see it ([`library_crate`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryCrate {
    /// The crate's name as doc-tests spell it: `[lib] name`, else `[package] name` with `-` as `_`.
    pub name: String,
    /// The manifest names no `edition` (or `"2015"`): a `use` path is relative to the crate root.
    pub edition_2015: bool,
    /// The file is the library's root (`[lib] path`, else `src/lib.rs`).
    pub is_library_root: bool,
}

/// The library crate the file at `path` belongs to, from the nearest `Cargo.toml` above `path`
/// within `root`. `None` without one, and for a file outside the library's sources (`tests/`,
/// `examples/`, `benches/`, `src/main.rs`, `src/bin/`): those targets see the library as a
/// dependency already, and `use crate as NAME;` would name their own root instead.
pub fn library_crate(reader: &WorkspaceReader, root: &Path, path: &Path) -> Option<LibraryCrate> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    for dir in path.ancestors().skip(1) {
        if !dir.starts_with(&root) {
            return None;
        }
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = reader.read_to_string(&manifest) else { continue };
        let document = toml_edit::Document::parse(text).ok()?;
        let table = document.as_table();
        let lib = table.get("lib");
        let package = table.get("package");
        let name = lib
            .and_then(|lib| lib.get("name"))
            .and_then(|name| name.as_str())
            .or_else(|| package.and_then(|package| package.get("name")).and_then(|name| name.as_str()))?;
        let relative = path.strip_prefix(dir).ok()?;
        let in_library = relative.starts_with("src") && relative != Path::new("src/main.rs") && !relative.starts_with("src/bin");
        if !in_library {
            return None;
        }
        // `edition.workspace = true` inherits an edition, which came after 2015.
        let edition = lib.and_then(|lib| lib.get("edition")).or_else(|| package.and_then(|package| package.get("edition")));
        let edition_2015 = edition.is_none_or(|edition| edition.as_str() == Some("2015"));
        let library_root = lib
            .and_then(|lib| lib.get("path"))
            .and_then(|lib_path| lib_path.as_str())
            .map_or_else(|| dir.join("src/lib.rs"), |lib_path| crate::files::path::lexically_normal(&dir.join(lib_path)));
        return Some(LibraryCrate { name: name.replace('-', "_"), edition_2015, is_library_root: path == library_root });
    }
    None
}

/// `source` with the `blocks` appended as functions of a module the server compiles with the
/// file, and for each block the 0-based line of its first code line in the result. With a
/// `library`, each function starts with `use crate as NAME;`; an edition 2015 crate's root file
/// also gets `extern crate self as NAME;` before the module, since there a `use` path starts at
/// the crate root (strsim 0.11.1, trial43 M1: with the block's alias alone rust-analyzer gave no
/// definition for any name `use strsim::{hamming, …}` imports, so the example was half renamed).
pub fn source_with_doc_tests(source: &str, library: Option<&LibraryCrate>, blocks: &[DocTestBlock]) -> (String, Vec<usize>) {
    let mut text = source.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let root_alias = library.filter(|library| library.edition_2015 && library.is_library_root);
    match root_alias {
        Some(library) => text.push_str(&format!("\n#[allow(warnings, clippy::all)]\nextern crate self as {};\n", library.name)),
        None => text.push('\n'),
    }
    text.push_str("#[allow(warnings, clippy::all)]\nmod __runbound_doc_tests {\n");
    let mut firsts = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        text.push_str(&format!("fn __runbound_doc_test_{index}() {{\n"));
        text.push_str(&library.map(|library| format!("use crate as {};\n", library.name)).unwrap_or_else(|| "\n".to_owned()));
        firsts.push(text.matches('\n').count());
        for (_, _, code) in &block.lines {
            text.push_str(code);
            text.push('\n');
        }
        text.push_str("}\n");
    }
    text.push_str("}\n");
    (text, firsts)
}

/// `target` (a definition the server gave in the unsaved text of `path` made by
/// [`source_with_doc_tests`]) in the file as it is: a line of the appended copy of a block is the
/// block's doc-comment line — in `origins[block]`, the file the block was copied from (`path`
/// itself, or a Markdown file `path` includes as docs) — its character shifted by the comment
/// prefix (ASCII, so bytes are characters in every encoding); other targets unchanged.
fn map_copy_target(target: Target, path: &Path, blocks: &[DocTestBlock], origins: &[PathBuf], firsts: &[usize]) -> Target {
    let (target_path, line, character) = &target;
    if target_path.as_path() != path {
        return target;
    }
    for ((block, origin), first) in blocks.iter().zip(origins).zip(firsts) {
        let Some(within) = (*line as usize).checked_sub(*first) else { continue };
        if let Some((original_line, prefix_bytes, _)) = block.lines.get(within) {
            // The comment prefix (`//!     `) is ASCII: its bytes are its characters.
            return (origin.clone(), *original_line as u32, character + *prefix_bytes as u32);
        }
    }
    target
}

/// Whether `path` is a Markdown file (`.md`, `.markdown`): a crate may include one as docs,
/// and rustdoc then compiles its Rust code blocks as doc-tests (trial167 F1).
pub fn is_markdown(path: &Path) -> bool {
    path.extension().and_then(|extension| extension.to_str()).is_some_and(|extension| matches!(extension, "md" | "markdown"))
}

/// The doc-test block of `text` (a Markdown file a crate includes as docs: see
/// [`crate::lsp::dependents::markdown_doc_test_includer`]) that holds 0-based `line`: a fenced
/// code block rustdoc compiles (no info string, or only rustdoc's attributes such as `rust`,
/// `no_run`; not `ignore`, `text`, `toml` …), with each code line's prefix (its hidden line's
/// `# `) cut. `None` when `line` is prose, a fence, or in a block rustdoc does not compile.
pub fn markdown_doc_test_block(text: &str, line: usize) -> Option<DocTestBlock> {
    let lines = split_lines(text);
    crate::lsp::dependents::rust_doc_test_code(lines.iter().copied()).into_iter().find_map(|block| {
        let within = line.checked_sub(block.fence + 1)?;
        (within < block.code.len()).then(|| DocTestBlock {
            lines: block
                .code
                .iter()
                .enumerate()
                .map(|(index, code)| {
                    let file_line = block.fence + 1 + index;
                    (file_line, lines[file_line].len() - code.len(), (*code).to_owned())
                })
                .collect(),
        })
    })
}

/// Resolves each of `hits` (doc-test occurrences of a name `word_len` bytes long) with
/// `definition` in a copy of its example (see the module docs), within `deadline`. The
/// occurrences of one file are resolved in one unsaved text of that file. An occurrence in a
/// Markdown file a library source includes as docs ([`is_markdown`]; rustdoc compiles its code
/// blocks) is resolved in that source's unsaved text, its block copied there, and a target in
/// the copy maps back to the Markdown line. Occurrences outside a Rust file, or whose block,
/// including source or crate cannot be found, are [`DocTestResolution::Unresolved`] with the
/// reason.
pub fn resolve_doc_test_occurrences(
    server: &LanguageServer,
    reader: &WorkspaceReader,
    hits: &[WordHit],
    deadline: Instant,
) -> Vec<(WordHit, DocTestResolution)> {
    let encoding = server.position_encoding();
    let mut out = Vec::new();
    // Per file the server is shown: its own examples' occurrences, and those in the code blocks
    // of a Markdown file it includes as docs (a README through `#![doc = include_str!(…)]` or
    // `doc_comment::doctest!(…)`), whose blocks are copied into it the same way (trial167 F1:
    // walkdir's README examples were left out, and `cargo test` failed after a rename).
    let mut by_file: BTreeMap<PathBuf, Vec<&WordHit>> = BTreeMap::new();
    let mut includers: BTreeMap<PathBuf, Option<PathBuf>> = BTreeMap::new();
    for hit in hits {
        let host = if is_markdown(&hit.path) {
            includers
                .entry(hit.path.clone())
                .or_insert_with(|| crate::lsp::dependents::markdown_doc_test_includer(server.workspace_root(), server.root(), &hit.path))
                .clone()
        } else {
            Some(hit.path.clone())
        };
        match host {
            Some(host) => by_file.entry(host).or_default().push(hit),
            None => out.push((
                hit.clone(),
                DocTestResolution::Unresolved("no Rust library source includes this Markdown file as docs".to_owned()),
            )),
        }
    }
    for (path, file_hits) in by_file {
        let unresolved = |why: &str| -> Vec<(WordHit, DocTestResolution)> {
            file_hits.iter().map(|hit| ((*hit).clone(), DocTestResolution::Unresolved(why.to_owned()))).collect()
        };
        if path.extension().is_none_or(|ext| ext != "rs") {
            out.extend(unresolved(&format!("a doctest in a docstring: {} is not asked there", server.id())));
            continue;
        }
        let Ok(source) = reader.read_to_string(&path) else {
            out.extend(unresolved("the file could not be read again"));
            continue;
        };
        // A file of the library gets `use crate as NAME;` (rustdoc's view of the crate); a
        // test, bench, example or bin sees the library as a dependency already.
        let library = library_crate(reader, server.root(), &path);
        let lines = split_lines(&source);
        let doc = doc_comment_lines(&lines);
        let mut blocks: Vec<DocTestBlock> = Vec::new();
        // The file each block was copied from: `path`, or a Markdown file it includes.
        let mut origins: Vec<PathBuf> = Vec::new();
        let mut markdown_texts: BTreeMap<PathBuf, String> = BTreeMap::new();
        // Per hit: (block index, line within the block) or why not.
        let mut placed: Vec<Result<(usize, usize, usize), &str>> = Vec::new();
        for hit in &file_hits {
            let known = blocks
                .iter()
                .zip(&origins)
                .position(|(block, origin)| *origin == hit.path && block.lines.iter().any(|(line, _, _)| *line == hit.line as usize));
            let block = match known {
                Some(index) => Some(index),
                None if hit.path != path => {
                    let text =
                        markdown_texts.entry(hit.path.clone()).or_insert_with(|| reader.read_to_string(&hit.path).unwrap_or_default());
                    markdown_doc_test_block(text, hit.line as usize).filter(|block| block.first_line().is_some()).map(|block| {
                        blocks.push(block);
                        origins.push(hit.path.clone());
                        blocks.len() - 1
                    })
                }
                None => doc_test_block(&lines, &doc, hit.line as usize).filter(|block| block.first_line().is_some()).map(|block| {
                    blocks.push(block);
                    origins.push(path.clone());
                    blocks.len() - 1
                }),
            };
            placed.push(match block {
                Some(index) => {
                    let position = blocks[index].lines.iter().position(|(line, _, _)| *line == hit.line as usize);
                    match position {
                        Some(within) if hit.byte_start >= blocks[index].lines[within].1 => {
                            Ok((index, within, hit.byte_start - blocks[index].lines[within].1))
                        }
                        _ => Err("the occurrence is outside the example's code"),
                    }
                }
                None => Err("its fenced block could not be found"),
            });
        }
        let (text, firsts) = source_with_doc_tests(&source, library.as_ref(), &blocks);
        let generation_before = server.diagnostics_generation();
        let asked = server.with_unsaved_text(&path, text, || {
            file_hits
                .iter()
                .zip(&placed)
                .map(|(hit, place)| {
                    let resolution = match place {
                        Err(why) => DocTestResolution::Unresolved((*why).to_owned()),
                        Ok(_) if Instant::now() >= deadline => DocTestResolution::Unresolved("the time budget ran out".to_owned()),
                        Ok((block, within, byte)) => {
                            let code = &blocks[*block].lines[*within].2;
                            let line = (firsts[*block] + within) as u32;
                            let character = encoding.column_from_byte(code, *byte);
                            // A definition inside the appended copy of an example is mapped
                            // back to its line in the doc comment (trial40 F5: "src/lib.rs:1423"
                            // in a file of 1412 lines, for `LateInit::init` defined at :220).
                            let mut targets: Vec<Target> = definition_targets(server, &path, line, character, deadline)
                                .into_iter()
                                .map(|target| map_copy_target(target, &path, &blocks, &origins, &firsts))
                                .collect();
                            targets.sort();
                            if targets.is_empty() {
                                DocTestResolution::Unresolved(format!("{} gave no definition there, in a copy of the example", server.id()))
                            } else {
                                DocTestResolution::Resolved(targets)
                            }
                        }
                    };
                    ((*hit).clone(), resolution)
                })
                .collect::<Vec<_>>()
        });
        // The server's diagnostics of the copy must not stand for the file's: when it published
        // for the file meanwhile, wait (briefly) for its publish of the restored text, so a later
        // "before the write" snapshot holds that. (rust-analyzer publishes only sets that
        // changed: an example that adds no diagnostic brings no publish to wait for.)
        let published_meanwhile = server.published_diagnostics(&path).is_some_and(|set| set.generation > generation_before);
        if let (Ok(_), Some(version), true) = (&asked, server.document_version(&path), published_meanwhile) {
            let end = deadline.min(Instant::now() + RESTORED_PUBLISH_WAIT);
            while server.published_for_version(&path, version).is_none() && Instant::now() < end {
                let after = server.diagnostics_generation();
                if server.published_for_version(&path, version).is_some()
                    || server.wait_for_published_diagnostics(&path, after, std::time::Duration::ZERO, end).is_none()
                {
                    break;
                }
            }
        }
        match asked {
            Ok(resolved) => out.extend(resolved),
            Err(err) => out.extend(unresolved(&format!("the example could not be shown to {}: {}", server.id(), err.message))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_in_the_copy_of_an_example_maps_back_to_its_doc_comment_line() {
        // once_cell 1.20.2 (trial40 F5): `LateInit::init`, defined inside the crate docs' own
        // example, was cited at a line of the copy past the end of src/lib.rs.
        let source = "//! ```\n//! struct LateInit;\n//! impl LateInit {\n//!     pub fn init(&self) {}\n//! }\n//! LateInit.init();\n//! ```\npub fn init() {}\n";
        let lines = split_lines(source);
        let doc = doc_comment_lines(&lines);
        let block = doc_test_block(&lines, &doc, 5).expect("the example");
        let blocks = vec![block];
        let (text, firsts) = source_with_doc_tests(source, Some(&library("lazyish", false, true)), &blocks);
        let copy_line = firsts[0] + 2;
        assert!(text.lines().nth(copy_line).unwrap().contains("pub fn init"), "{text}");
        let path = PathBuf::from("/w/src/lib.rs");
        let origins = vec![path.clone()];
        let mapped = map_copy_target((path.clone(), copy_line as u32, 11), &path, &blocks, &origins, &firsts);
        assert_eq!(mapped, (path.clone(), 3, 15), "line 4 of the file, after `//! `");
        let elsewhere = (PathBuf::from("/w/src/other.rs"), copy_line as u32, 11);
        assert_eq!(map_copy_target(elsewhere.clone(), &path, &blocks, &origins, &firsts), elsewhere);
        assert_eq!(map_copy_target((path.clone(), 7, 7), &path, &blocks, &origins, &firsts), (path, 7, 7), "the file's own item");
    }

    #[test]
    fn a_markdown_doc_test_block_is_a_compiled_fence_with_hidden_lines_cut() {
        // walkdir 2.5.1's README (trial167 F1): ```rust,no_run blocks are doc-tests, ```sh is not.
        let text = "# x\nprose follow_links\n```rust,no_run\n# use a::B;\nB::new().follow_links(true);\n```\n```sh\nfollow_links\n```\n";
        let block = markdown_doc_test_block(text, 4).expect("a code line of the rust block");
        assert_eq!(block.lines, [(3, 2, "use a::B;".to_owned()), (4, 0, "B::new().follow_links(true);".to_owned())]);
        for line in [1, 2, 5, 7] {
            assert_eq!(markdown_doc_test_block(text, line), None, "line {line}");
        }
        assert!(is_markdown(Path::new("README.md")) && !is_markdown(Path::new("lib.rs")));
    }

    #[test]
    fn a_fence_made_by_a_cfg_attr_doc_attribute_opens_the_example() {
        // base64 0.22.1 (trial59 F1): the examples open with two alternative `cfg_attr` fences.
        let source = "//! Text with encode in prose.\n//!\n#![cfg_attr(feature = \"alloc\", doc = \"```\")]\n#![cfg_attr(not(feature = \"alloc\"), doc = \"```ignore\")]\n//! use base64::prelude::*;\n//! assert_eq!(BASE64_STANDARD.encode(b\"x\"), \"eA==\");\n//! ```\n//!\n//! More prose about encode.\n";
        let lines = split_lines(source);
        let doc = doc_comment_lines(&lines);
        let block = doc_test_block(&lines, &doc, 5).expect("the example's line is in a doc-test");
        // The alternative fence (`not(alloc)`) reads as an empty line of the example.
        assert_eq!(
            block.lines.iter().map(|(line, _, code)| (*line, code.is_empty())).collect::<Vec<_>>(),
            vec![(3, true), (4, false), (5, false)]
        );
        assert!(doc_test_block(&lines, &doc, 0).is_none(), "prose before");
        assert!(doc_test_block(&lines, &doc, 8).is_none(), "prose after");
        assert_eq!(attribute_doc_text("#[doc = \"```\"]"), Some((false, 9, 12)));
        assert_eq!(attribute_doc_text("#![cfg_attr(docsrs, feature(doc_cfg))]"), None);
    }

    #[test]
    fn a_blank_line_inside_a_doc_comment_does_not_end_its_example() {
        // either 1.13.0 (trial48 F3): `factor_into_iter`'s example goes on after an empty line.
        let source = "    /// ```\n    /// let left = f(1);\n\n    /// let right = f(2);\n    /// ```\n    pub fn f() {}\n\n// a plain comment\nfn g() {}\n";
        let lines = split_lines(source);
        let doc = doc_comment_lines(&lines);
        let block = doc_test_block(&lines, &doc, 3).expect("the line after the blank one is in the example");
        let code: Vec<(usize, String)> = block.lines.iter().map(|(line, _, text)| (*line, text.clone())).collect();
        assert_eq!(code, vec![(1, "let left = f(1);".to_owned()), (3, "let right = f(2);".to_owned())]);
        assert!(doc_test_block(&lines, &doc, 7).is_none(), "a plain comment after a blank line is not in it");
    }

    #[test]
    fn a_doc_test_block_is_its_code_lines_with_hidden_lines_kept() {
        let source = "/// Text.\n///\n/// ```\n/// # use krate::Map;\n/// let map = Map::new();\n///     map.get(1);\n/// ```\nfn f() {}\n";
        let lines = split_lines(source);
        let block = doc_test_block(&lines, &doc_comment_lines(&lines), 4).expect("inside");
        assert_eq!(
            block.lines,
            vec![(3, 6, "use krate::Map;".to_owned()), (4, 4, "let map = Map::new();".to_owned()), (5, 4, "    map.get(1);".to_owned())]
        );
        assert_eq!(doc_test_block(&lines, &doc_comment_lines(&lines), 0), None, "text before the fence");
        assert_eq!(doc_test_block(&lines, &doc_comment_lines(&lines), 7), None, "code after the doc comment");
        let (text, firsts) = source_with_doc_tests(source, Some(&library("krate", false, true)), std::slice::from_ref(&block));
        let appended = split_lines(&text);
        assert_eq!(appended[firsts[0]], "use krate::Map;");
        assert_eq!(appended[firsts[0] - 1], "use crate as krate;");
        assert_eq!(appended[firsts[0] + 2], "    map.get(1);");
        // Edition 2015 (trial43 M1): `use krate::Map;` starts at the crate root, so the root
        // file also names itself there (rust-analyzer resolves the `use` line through the
        // block's alias and the names it imports through the root's).
        let (text, firsts) = source_with_doc_tests(source, Some(&library("krate", true, true)), std::slice::from_ref(&block));
        let appended = split_lines(&text);
        assert_eq!(appended[firsts[0]], "use krate::Map;");
        assert_eq!(appended[firsts[0] - 1], "use crate as krate;");
        let alias = appended.iter().position(|line| *line == "extern crate self as krate;").expect("the root alias");
        let module = appended.iter().position(|line| *line == "mod __runbound_doc_tests {").expect("the module");
        assert!(alias < module, "{text}");
        // A module file of an edition 2015 crate cannot reach the root: only the block alias.
        let (text, firsts) = source_with_doc_tests(source, Some(&library("krate", true, false)), &[block]);
        assert_eq!(split_lines(&text)[firsts[0] - 1], "use crate as krate;");
        assert!(!text.contains("extern crate self"), "{text}");
    }

    fn library(name: &str, edition_2015: bool, is_library_root: bool) -> LibraryCrate {
        LibraryCrate { name: name.to_owned(), edition_2015, is_library_root }
    }

    #[test]
    fn the_library_crate_of_a_file_is_read_with_its_edition_and_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src/bin")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"str-sim\"\nversion = \"0.11.1\"\n").unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        assert_eq!(library_crate(&reader, &root, &root.join("src/lib.rs")), Some(library("str_sim", true, true)));
        assert_eq!(library_crate(&reader, &root, &root.join("src/other.rs")), Some(library("str_sim", true, false)));
        assert_eq!(library_crate(&reader, &root, &root.join("src/bin/tool.rs")), None);
        assert_eq!(library_crate(&reader, &root, &root.join("tests/lib.rs")), None);
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"x\"\nedition.workspace = true\n[lib]\nname = \"y\"\npath = \"src/y.rs\"\n",
        )
        .unwrap();
        assert_eq!(library_crate(&reader, &root, &root.join("src/y.rs")), Some(library("y", false, true)));
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\nedition = \"2021\"\n").unwrap();
        assert_eq!(library_crate(&reader, &root, &root.join("src/lib.rs")), Some(library("x", false, true)));
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end_of_the_doc_comment() {
        let source = "    /// ```\n    /// let a = 1;\n    /// a.spilled();\nfn f() {}\n";
        let lines = split_lines(source);
        let block = doc_test_block(&lines, &doc_comment_lines(&lines), 2).expect("an unclosed fence is a block rustdoc runs");
        assert_eq!(
            block.lines.iter().map(|(line, _, code)| (*line, code.as_str())).collect::<Vec<_>>(),
            vec![(1, "let a = 1;"), (2, "a.spilled();")]
        );
        assert_eq!(doc_test_block(&lines, &doc_comment_lines(&lines), 3), None, "code after the doc comment");
    }

    /// The code lines of the block holding `line`, as `(line, code)`.
    fn code_of(source: &str, line: usize) -> Option<Vec<(usize, String)>> {
        let lines = split_lines(source);
        let doc = doc_comment_lines(&lines);
        doc_test_block(&lines, &doc, line).map(|block| block.lines.into_iter().map(|(line, _, code)| (line, code)).collect())
    }

    #[test]
    fn a_block_doc_comment_with_stars_holds_doc_tests() {
        // bitflags 2.13.2 src/traits.rs: `/** … */` with a ` * ` column, its fence closed on the
        // `*/` line.
        let source = "/**\n * Text.\n *\n * ```\n * # use krate::Flags;\n * f.is_named();\n * ``` */\nfn f() {}\n";
        assert_eq!(code_of(source, 5), Some(vec![(4, "use krate::Flags;".to_owned()), (5, "f.is_named();".to_owned())]));
        assert_eq!(code_of(source, 1), None, "text before the fence");
        assert_eq!(code_of(source, 7), None, "code after the comment");
        let lines = split_lines(source);
        let doc = doc_comment_lines(&lines);
        let block = doc_test_block(&lines, &doc, 5).expect("inside");
        assert_eq!(&lines[5][block.lines[1].1..], "f.is_named();", "the prefix is the bytes cut");
    }

    #[test]
    fn a_block_doc_comment_without_stars_keeps_its_lines_and_closes_on_the_fence_line() {
        // bitflags 2.13.2 src/traits.rs:116: no ` * ` column; rustdoc takes the lines as they are.
        let source = "/**\nText.\n\n```\n*ptr = 1;\nassert!(f.is_named()); ```*/\npub trait Flags {}\n";
        assert_eq!(code_of(source, 4), Some(vec![(4, "*ptr = 1;".to_owned()), (5, "assert!(f.is_named()); ```".to_owned())]));
        let source = "pub mod a {\n    /*!\n    ```\n    a::b();\n    ```\n    */\n}\n";
        assert_eq!(code_of(source, 3), Some(vec![(3, "   a::b();".to_owned())]), "an inner block doc comment, its indentation kept");
    }

    #[test]
    fn nested_block_comments_stay_inside_and_plain_block_comments_are_not_docs() {
        // A `/* */` in the example does not end the doc comment (Rust block comments nest).
        let source = "/** ```\n   let a = 1; /* a note */\n   a.go();\n*/\nfn f() {}\n";
        assert_eq!(
            code_of(source, 2),
            Some(vec![(1, "  let a = 1; /* a note */".to_owned()), (2, "  a.go();".to_owned()), (3, String::new())])
        );
        for plain in ["/*** ```\n a.go();\n*/\n", "/**/ fn g() {}\n/// ```\n/// a.go();\n", "/* ```\n a.go();\n*/\n"] {
            let lines = split_lines(plain);
            let doc = doc_comment_lines(&lines);
            assert!(doc[0].is_none(), "{plain:?} opens with a plain comment");
            let code_line = if plain.starts_with("/**/") { 2 } else { 1 };
            assert_eq!(doc_test_block(&lines, &doc, code_line).is_some(), plain.starts_with("/**/"), "{plain:?}");
        }
        // A `/**` in a string is no comment, and a `///` inside a plain block comment no doc line.
        let source = "const S: &str = \"/** ```\";\n/* old:\n/// ```\n/// a.go();\n*/\nfn f() {}\n";
        let lines = split_lines(source);
        assert!(doc_comment_lines(&lines).iter().all(Option::is_none), "{:?}", doc_comment_lines(&lines));
    }

    #[test]
    fn adjacent_doc_comments_are_separate() {
        let source = "/// ```\n/// a.go();\n/** b.go(); */\n//! ```\n";
        let lines = split_lines(source);
        let doc = doc_comment_lines(&lines);
        let comments: Vec<Option<usize>> = doc.iter().map(|line| line.map(|line| line.comment)).collect();
        assert_eq!(comments, vec![Some(0), Some(0), Some(1), Some(2)]);
        assert_eq!(doc_comment_text(&lines, &doc, 2), " b.go(); ");
        assert_eq!(code_of(source, 1), Some(vec![(1, "a.go();".to_owned())]), "the unclosed fence ends with its comment");
        assert_eq!(code_of(source, 2), None);
    }
}
