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
/// the prefix cut from it (indentation, `///` or `//!`, one space, a hidden line's `# `), and
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

/// The doc-comment marker a line starts with (after indentation): `"///"` (outer) or `"//!"`
/// (inner); `None` for any other line, `////` (a plain comment) included.
pub(crate) fn doc_comment_marker(text: &str) -> Option<&'static str> {
    let trimmed = text.trim_start();
    if trimmed.starts_with("////") {
        None
    } else if trimmed.starts_with("///") {
        Some("///")
    } else if trimmed.starts_with("//!") {
        Some("//!")
    } else {
        None
    }
}

/// The fenced doc-test block of `lines` (a Rust file) that holds 0-based `line`, found by
/// walking the run of doc comment lines with the same marker (`///` or `//!`) up to the
/// opening fence and down to the closing one, or to the end of the doc comment when the fence
/// is never closed (CommonMark; rustdoc runs such a block). `None` when `line` is not inside
/// such a block.
/// Hidden lines (`# use x;`) are code for rustdoc and stay, without their `# `.
pub fn doc_test_block(lines: &[&str], line: usize) -> Option<DocTestBlock> {
    let marker = doc_comment_marker(lines.get(line)?)?;
    let is_fence = |text: &str| doc_comment_marker(text) == Some(marker) && text.trim_start()[marker.len()..].trim().starts_with("```");
    let mut open = None;
    for index in (0..line).rev() {
        if doc_comment_marker(lines[index]) != Some(marker) {
            break;
        }
        if is_fence(lines[index]) {
            open = Some(index);
            break;
        }
    }
    let open = open?;
    let mut code = Vec::new();
    for (index, text) in lines.iter().enumerate().skip(open + 1) {
        if doc_comment_marker(text) != Some(marker) {
            // An unclosed fence: the block runs to the end of the doc comment (CommonMark), and
            // rustdoc runs it (smallvec 1.16.6 `from_raw_parts`, lib.rs:1920).
            return (index > line).then_some(DocTestBlock { lines: code });
        }
        if is_fence(text) {
            return (index > line).then_some(DocTestBlock { lines: code });
        }
        let indentation = text.len() - text.trim_start().len();
        let mut prefix = indentation + marker.len();
        if text[prefix..].starts_with(' ') {
            prefix += 1;
        }
        let rest = &text[prefix..];
        if rest.starts_with("# ") {
            prefix += 2;
        } else if rest == "#" {
            prefix += 1;
        }
        code.push((index, prefix, text[prefix..].to_owned()));
    }
    // An unclosed fence at the end of the file: the block runs to the end.
    (!code.is_empty()).then_some(DocTestBlock { lines: code })
}

/// The name of the library crate the file at `path` belongs to, as doc-tests spell it: `[lib]
/// name`, else `[package] name` with `-` as `_`, from the nearest `Cargo.toml` above `path`
/// within `root`. `None` without one, and for a file outside the library's sources (`tests/`,
/// `examples/`, `benches/`, `src/main.rs`, `src/bin/`): those targets see the library as a
/// dependency already, and `use crate as NAME;` would name their own root instead.
pub fn library_crate_name(reader: &WorkspaceReader, root: &Path, path: &Path) -> Option<String> {
    let (dir, name) = manifest_crate_name(reader, root, path)?;
    let relative = path.strip_prefix(&dir).ok()?;
    let in_library = relative.starts_with("src") && relative != Path::new("src/main.rs") && !relative.starts_with("src/bin");
    in_library.then_some(name)
}

/// The nearest `Cargo.toml` above `path` (within `root`): its directory and crate name.
fn manifest_crate_name(reader: &WorkspaceReader, root: &Path, path: &Path) -> Option<(PathBuf, String)> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    for dir in path.ancestors().skip(1) {
        if !dir.starts_with(&root) {
            return None;
        }
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = reader.read_to_string(&manifest) else { continue };
        let document = toml_edit::Document::parse(text).ok()?;
        let table = document.as_table();
        let name = table
            .get("lib")
            .and_then(|lib| lib.get("name"))
            .and_then(|name| name.as_str())
            .or_else(|| table.get("package").and_then(|package| package.get("name")).and_then(|name| name.as_str()))?;
        return Some((dir.to_path_buf(), name.replace('-', "_")));
    }
    None
}

/// `source` with the `blocks` appended as functions of a module the server compiles with the
/// file, and for each block the 0-based line of its first code line in the result. With a
/// `crate_name`, each function starts with `use crate as NAME;`.
pub fn source_with_doc_tests(source: &str, crate_name: Option<&str>, blocks: &[DocTestBlock]) -> (String, Vec<usize>) {
    let mut text = source.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("\n#[allow(warnings, clippy::all)]\nmod __runbound_doc_tests {\n");
    let mut firsts = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        text.push_str(&format!("fn __runbound_doc_test_{index}() {{\n"));
        text.push_str(&crate_name.map(|name| format!("use crate as {name};\n")).unwrap_or_else(|| "\n".to_owned()));
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

/// Resolves each of `hits` (doc-test occurrences of a name `word_len` bytes long) with
/// `definition` in a copy of its example (see the module docs), within `deadline`. The
/// occurrences of one file are resolved in one unsaved text of that file. Occurrences outside a
/// Rust file, or whose block or crate cannot be found, are [`DocTestResolution::Unresolved`]
/// with the reason.
pub fn resolve_doc_test_occurrences(
    server: &LanguageServer,
    reader: &WorkspaceReader,
    hits: &[WordHit],
    deadline: Instant,
) -> Vec<(WordHit, DocTestResolution)> {
    let encoding = server.position_encoding();
    let mut by_file: BTreeMap<PathBuf, Vec<&WordHit>> = BTreeMap::new();
    for hit in hits {
        by_file.entry(hit.path.clone()).or_default().push(hit);
    }
    let mut out = Vec::new();
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
        let crate_name = library_crate_name(reader, server.root(), &path);
        let lines = split_lines(&source);
        let mut blocks: Vec<DocTestBlock> = Vec::new();
        // Per hit: (block index, line within the block) or why not.
        let mut placed: Vec<Result<(usize, usize, usize), &str>> = Vec::new();
        for hit in &file_hits {
            let block = match blocks.iter().position(|block| block.lines.iter().any(|(line, _, _)| *line == hit.line as usize)) {
                Some(index) => Some(index),
                None => doc_test_block(&lines, hit.line as usize).filter(|block| block.first_line().is_some()).map(|block| {
                    blocks.push(block);
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
        let (text, firsts) = source_with_doc_tests(&source, crate_name.as_deref(), &blocks);
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
                            let mut targets: Vec<Target> =
                                definition_targets(server, &path, line, character, deadline).into_iter().collect();
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
    fn a_doc_test_block_is_its_code_lines_with_hidden_lines_kept() {
        let source = "/// Text.\n///\n/// ```\n/// # use krate::Map;\n/// let map = Map::new();\n///     map.get(1);\n/// ```\nfn f() {}\n";
        let lines = split_lines(source);
        let block = doc_test_block(&lines, 4).expect("inside");
        assert_eq!(
            block.lines,
            vec![(3, 6, "use krate::Map;".to_owned()), (4, 4, "let map = Map::new();".to_owned()), (5, 4, "    map.get(1);".to_owned())]
        );
        assert_eq!(doc_test_block(&lines, 0), None, "text before the fence");
        assert_eq!(doc_test_block(&lines, 7), None, "code after the doc comment");
        let (text, firsts) = source_with_doc_tests(source, Some("krate"), &[block]);
        let appended = split_lines(&text);
        assert_eq!(appended[firsts[0]], "use krate::Map;");
        assert_eq!(appended[firsts[0] - 1], "use crate as krate;");
        assert_eq!(appended[firsts[0] + 2], "    map.get(1);");
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end_of_the_doc_comment() {
        let source = "    /// ```\n    /// let a = 1;\n    /// a.spilled();\nfn f() {}\n";
        let block = doc_test_block(&split_lines(source), 2).expect("an unclosed fence is a block rustdoc runs");
        assert_eq!(
            block.lines.iter().map(|(line, _, code)| (*line, code.as_str())).collect::<Vec<_>>(),
            vec![(1, "let a = 1;"), (2, "a.spilled();")]
        );
        assert_eq!(doc_test_block(&split_lines(source), 3), None, "code after the doc comment");
    }
}
