//! Doc links to a renamed symbol (R-REN-1; issue 11, trial165 M2, trial163 M1).
//!
//! A Go doc link (`[FirstGraphemeCluster]`, `[Graphemes.Next]`, `[uniseg.Step]`) and a rustdoc
//! intra-doc link (``[`WindowsEncoding`]``, `[WindowsEncoding::new]`) resolve to a symbol the way
//! code does: after a rename they are broken links (`go doc` and pkg.go.dev show them as plain
//! text, `cargo doc` warns "unresolved link"). The servers rename few of them (gopls only those in
//! the renamed declaration's own doc comment, rust-analyzer none), and they were listed among
//! prose mentions "to edit yourself if they name this symbol" (rivo/uniseg 0.4.2: five
//! `[Graphemes.Next]` links; typed-path 0.13.0: two ``[`WindowsEncoding`]`` links).
//!
//! [`doc_link_body`] reads the bracketed link around an occurrence; [`GoRenamedSymbol`] and
//! [`go_doc_link_names_symbol`] say whether a Go link resolves to the renamed declaration
//! (its package's links by name, another package's by the name it imports the package under);
//! [`rust_intra_doc_link_names`] whether a rustdoc link names the renamed name itself.

use std::path::{Path, PathBuf};

use crate::files::WorkspaceReader;

/// The text inside the brackets around the occurrence at bytes `byte_start..byte_start +
/// name_len` of `line`, split around the occurrence: (before, after), e.g. `("Graphemes.", "")`
/// for `[Graphemes.Next]` at `Next`. `None` when the occurrence is in no `[…]` on the line, or
/// the brackets are a link target definition (`[Name]: https://…`) or a Markdown link's text
/// (`[text](url)`).
pub(crate) fn doc_link_body(line: &str, byte_start: usize, name_len: usize) -> Option<(&str, &str)> {
    let end = byte_start + name_len;
    let before = line.get(..byte_start)?;
    let after = line.get(end..)?;
    let open = before.rfind('[')?;
    if before[open..].contains(']') {
        return None;
    }
    let close = after.find(']')?;
    if after[..close].contains('[') {
        return None;
    }
    let rest = &after[close + 1..];
    // A link target definition (`[Name]: …`), a Markdown link's text (`[text](url)`) or a
    // reference link's text (`[text][label]`): no link by its own text (review48 M3).
    if rest.starts_with(':') || rest.starts_with('(') || rest.starts_with('[') {
        return None;
    }
    Some((&before[open + 1..], &after[..close]))
}

/// Whether `text` is a Go identifier.
fn is_identifier(text: &str) -> bool {
    let mut characters = text.chars();
    characters.next().is_some_and(|first| first.is_alphabetic() || first == '_') && characters.all(|c| c.is_alphanumeric() || c == '_')
}

/// The Go declaration a rename renames, as doc links name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GoRenamedSymbol {
    /// The package's directory (canonical).
    pub package_dir: PathBuf,
    /// The package's name (its `package` clause).
    pub package_name: String,
    /// The package's import path (`github.com/rivo/uniseg`), when its go.mod names the module.
    pub import_path: Option<String>,
    /// The type whose method or field it is; `None` for a package-level declaration.
    pub owner: Option<String>,
}

impl GoRenamedSymbol {
    /// The Go declaration of `name` on 0-based `line0` of the Go file `path` (canonical): a
    /// package-level `func`, `type`, `var` or `const` (one line, or an entry at one tab in a
    /// `var (`/`const (`/`type (` block), or a method `func (r *Owner) name(`. `None` for any
    /// other declaration (a local, a parameter, a field), or a file that does not read.
    pub(crate) fn at(reader: &WorkspaceReader, path: &Path, line0: u32, name: &str) -> Option<GoRenamedSymbol> {
        let text = reader.read_to_string(path).ok()?;
        let lines: Vec<&str> = text.lines().collect();
        let line = *lines.get(line0 as usize)?;
        let package_name = crate::lsp::go_imports::go_package_clause_name(&text)?.to_owned();
        let owner = if let Some(rest) = line.strip_prefix("func (") {
            // `func (r *Owner[T]) name(`: the receiver's type.
            let (receiver, after) = rest.split_once(')')?;
            if !after.trim_start().starts_with(&format!("{name}(")) && !after.trim_start().starts_with(&format!("{name}[")) {
                return None;
            }
            let receiver_type = receiver.split_whitespace().last()?.trim_start_matches('*');
            let receiver_type = receiver_type.split('[').next()?;
            Some(receiver_type.to_owned())
        } else {
            let package_level = ["func ", "type ", "var ", "const "].iter().any(|keyword| {
                line.strip_prefix(keyword).is_some_and(|rest| {
                    rest.starts_with(name) && !rest[name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            });
            let in_block = line.starts_with('\t')
                && !line.starts_with("\t\t")
                && line.trim_start().starts_with(name)
                && lines[..line0 as usize]
                    .iter()
                    .rev()
                    .find(|line| !line.starts_with('\t') && !line.trim().is_empty())
                    .is_some_and(|opening| ["var (", "const (", "type ("].iter().any(|block| opening.trim_end() == *block));
            if !package_level && !in_block {
                return None;
            }
            None
        };
        let package_dir = path.parent()?.to_path_buf();
        let import_path = go_import_path(reader, &package_dir);
        Some(GoRenamedSymbol { package_dir, package_name, import_path, owner })
    }
}

/// The import path of the Go package in `package_dir`: the nearest go.mod's `module` path joined
/// with the directory's path below it. `None` without a go.mod naming a module.
fn go_import_path(reader: &WorkspaceReader, package_dir: &Path) -> Option<String> {
    let mut dir = Some(package_dir);
    while let Some(current) = dir.filter(|current| current.starts_with(reader.root())) {
        if let Ok(go_mod) = reader.read_to_string(&current.join("go.mod")) {
            let module =
                go_mod.lines().find_map(|line| line.trim().strip_prefix("module ").map(|rest| rest.trim().trim_matches('"').to_owned()))?;
            let below = package_dir.strip_prefix(current).ok()?;
            let below = below.to_str()?;
            return Some(if below.is_empty() { module } else { format!("{module}/{below}") });
        }
        dir = current.parent();
    }
    None
}

/// The name the Go file `text` imports the package `import_path` under (its alias, else
/// `package_name`); `None` when it does not import it, or imports it as `_` or `.`.
fn go_import_name(text: &str, import_path: &str, package_name: &str) -> Option<String> {
    let quoted = format!("\"{import_path}\"");
    let mut in_block = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("import (") {
            in_block = true;
            continue;
        }
        if in_block && trimmed.starts_with(')') {
            in_block = false;
            continue;
        }
        let spec = if in_block {
            trimmed
        } else if let Some(rest) = trimmed.strip_prefix("import ") {
            rest.trim()
        } else {
            continue;
        };
        let spec = spec.split("//").next().unwrap_or(spec).trim();
        if !spec.ends_with(&quoted) {
            continue;
        }
        let alias = spec[..spec.len() - quoted.len()].trim();
        return match alias {
            "" => Some(package_name.to_owned()),
            "_" | "." => None,
            alias => Some(alias.to_owned()),
        };
    }
    None
}

/// Whether the Go doc link around the occurrence of `name` at `byte_start` of `line` (a comment
/// line of the Go file `path`, canonical, whose text is `file_text`) resolves to `symbol`: in the
/// symbol's own package (same directory and `package` clause) `[name]`, `[*name]`, `[name.X]` for
/// a package-level declaration and `[Owner.name]` for a method; in another package the same
/// after the name that file imports the package under (`[uniseg.Step]`).
pub(crate) fn go_doc_link_names_symbol(
    symbol: &GoRenamedSymbol,
    path: &Path,
    file_text: &str,
    line: &str,
    byte_start: usize,
    name: &str,
) -> bool {
    let Some((before, after)) = doc_link_body(line, byte_start, name.len()) else { return false };
    let before = before.strip_prefix('*').unwrap_or(before);
    // After the name: nothing, or `.Member` (a package-level type's method or field).
    let after_ok = after.is_empty() || (symbol.owner.is_none() && after.strip_prefix('.').is_some_and(is_identifier));
    if !after_ok {
        return false;
    }
    let qualifiers: Vec<&str> = if before.is_empty() {
        Vec::new()
    } else {
        match before.strip_suffix('.') {
            Some(qualified) => qualified.split('.').collect(),
            None => return false,
        }
    };
    if !qualifiers.iter().all(|qualifier| is_identifier(qualifier)) {
        return false;
    }
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let same_package = canonical.parent() == Some(symbol.package_dir.as_path())
        && crate::lsp::go_imports::go_package_clause_name(file_text) == Some(symbol.package_name.as_str());
    let owner: Vec<&str> = symbol.owner.iter().map(String::as_str).collect();
    if same_package {
        return qualifiers == owner;
    }
    let Some(import_path) = &symbol.import_path else { return false };
    let Some(imported_as) = go_import_name(file_text, import_path, &symbol.package_name) else { return false };
    qualifiers.first() == Some(&imported_as.as_str()) && qualifiers[1..] == owner[..]
}

/// The comment text of a Go source, by line: (0-based line, byte start, byte end) of each part of
/// a line inside a `//` comment or a `/* … */` block (a block over several lines gives one span
/// per line). String, raw string and rune literals are skipped, so `"//"` opens nothing.
pub(crate) fn go_comment_spans(text: &str) -> Vec<(u32, usize, usize)> {
    let mut spans = Vec::new();
    let mut in_block = false;
    let mut in_raw_string = false;
    for (index, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let mut at = 0;
        let mut block_start = in_block.then_some(0);
        while at < bytes.len() {
            if in_block {
                // Bytes, not `line[at..]`: `at` steps byte by byte through the comment's text,
                // which may be inside a multi-byte character (review50 H1: `/* Copyright © */`).
                if bytes[at..].starts_with(b"*/") {
                    spans.push((index as u32, block_start.unwrap_or(0), at));
                    in_block = false;
                    block_start = None;
                    at += 2;
                } else {
                    at += 1;
                }
                continue;
            }
            if in_raw_string {
                if bytes[at] == b'`' {
                    in_raw_string = false;
                }
                at += 1;
                continue;
            }
            match bytes[at] {
                b'/' if bytes[at..].starts_with(b"//") => {
                    spans.push((index as u32, at + 2, line.len()));
                    break;
                }
                b'/' if bytes[at..].starts_with(b"/*") => {
                    in_block = true;
                    block_start = Some(at + 2);
                    at += 2;
                }
                b'`' => {
                    in_raw_string = true;
                    at += 1;
                }
                quote @ (b'"' | b'\'') => {
                    at += 1;
                    while at < bytes.len() && bytes[at] != quote {
                        at += if bytes[at] == b'\\' { 2 } else { 1 };
                    }
                    at += 1;
                }
                _ => at += 1,
            }
        }
        if in_block {
            spans.push((index as u32, block_start.unwrap_or(0), line.len()));
        }
    }
    spans
}

/// What [`go_doc_links_naming`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct GoDocLinkScan {
    /// Each doc link naming the symbol: (file as walked, 0-based line).
    pub links: Vec<(PathBuf, u32)>,
    /// Go files read.
    pub files_read: usize,
    /// Of those, the files searched for links: the symbol's package and the files that import it.
    pub files_searched: usize,
    /// Why the walk stopped before its end (the deadline, the file cap), when it did.
    pub stopped: Option<String>,
}

/// The Go doc links under `root` (the files `definition` serves, in its walk scope) that resolve
/// to `symbol`, declared as `name`: only the files of the symbol's package and those that import
/// it are searched — the only places a `[Name]`, `[Owner.Name]` or `[pkg.Name]` link resolves to
/// it ([`go_doc_link_names_symbol`]) — in `//` and `/* */` comments ([`go_comment_spans`]).
/// Stops at `deadline` (review49 M2: a workspace-wide grep with no deadline on every gopls
/// `references` answer).
pub(crate) fn go_doc_links_naming(
    definition: &crate::lsp::servers::ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    symbol: &GoRenamedSymbol,
    name: &str,
    deadline: std::time::Instant,
) -> GoDocLinkScan {
    let mut scan = GoDocLinkScan::default();
    let quoted_import = symbol.import_path.as_ref().map(|import_path| format!("\"{import_path}\""));
    let walked = crate::lsp::rename_coverage::for_each_served_file_until(definition, workspace_root, root, deadline, |path, text| {
        if !text.contains(name) {
            return;
        }
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let in_package = canonical.parent() == Some(symbol.package_dir.as_path());
        let imports = quoted_import.as_ref().is_some_and(|quoted| text.contains(quoted.as_str()));
        if !in_package && !imports {
            return;
        }
        scan.files_searched += 1;
        let lines: Vec<&str> = text.split('\n').collect();
        for (line0, start, end) in go_comment_spans(text) {
            let line = lines[line0 as usize];
            for byte_start in crate::lsp::rename_coverage::word_positions(&line[start..end], name) {
                if go_doc_link_names_symbol(symbol, &canonical, text, line, start + byte_start, name)
                    && !scan.links.iter().any(|(known, known_line)| *known == canonical && *known_line == line0)
                {
                    scan.links.push((canonical.clone(), line0));
                }
            }
        }
    });
    scan.files_read = walked.files_read;
    if walked.out_of_time {
        scan.stopped = Some(format!("the call's deadline came after {} Go files were read", walked.files_read));
    } else if walked.truncated {
        scan.stopped = Some(format!("the walk stops at {} files", crate::lsp::rename_coverage::MAX_FILES));
    }
    scan
}

/// Whether the rustdoc intra-doc link around the occurrence of `name` at `byte_start` of `line`
/// (a `///` or `//!` doc comment line) names `name` itself: ``[`name`]``, `[name]`, `[name()]`,
/// `[name!]`, `[struct@name]`, `[name::x]` (an item beneath it) — not a path ending in it
/// (`[other::name]`, `[Self::name]`), which names it through something this check does not read.
pub(crate) fn rust_intra_doc_link_names(line: &str, byte_start: usize, name: &str) -> bool {
    let trimmed = line.trim_start();
    if !(trimmed.starts_with("///") || trimmed.starts_with("//!")) {
        return false;
    }
    let Some((before, after)) = doc_link_body(line, byte_start, name.len()) else { return false };
    let before = before.strip_prefix('`').unwrap_or(before);
    let after = after.strip_suffix('`').unwrap_or(after);
    // A disambiguator (`struct@`, `fn@`, `macro@`) is the only thing allowed before the name.
    let before_ok =
        before.is_empty() || before.strip_suffix('@').is_some_and(|kind| kind.chars().all(|c| c.is_ascii_lowercase()) && !kind.is_empty());
    let after_ok = matches!(after, "" | "()" | "!")
        || after
            .strip_prefix("::")
            .is_some_and(|rest| !rest.is_empty() && rest.split("::").all(|segment| is_identifier(segment.trim_end_matches("()"))));
    before_ok && after_ok
}

/// Whether the occurrence of `name` at `byte_start` of `line` (a `///` or `//!` doc comment line)
/// is in the target of a Markdown link reference definition, `[label]: path`, as a path segment
/// (`/// [normalizing]: TypedPath::normalize`; recheck48: left, and `cargo doc` reported the link
/// unresolved): rustdoc resolves that path as an intra-doc link.
pub(crate) fn rust_link_definition_names(line: &str, byte_start: usize, name: &str) -> bool {
    let trimmed = line.trim_start();
    let Some(body) = trimmed.strip_prefix("///").or_else(|| trimmed.strip_prefix("//!")) else { return false };
    let body = body.trim_start();
    let offset = line.len() - body.len();
    let Some(rest) = body.strip_prefix('[') else { return false };
    let Some(close) = rest.find("]:") else { return false };
    let target_start = offset + 1 + close + 2;
    if byte_start < target_start {
        return false;
    }
    let target = line[target_start..].trim();
    let target = target.trim_matches('`');
    // A path of identifiers (`TypedPath::normalize`, `crate::a::Name`, `Name()`): not a URL.
    !target.contains('/')
        && !target.contains(' ')
        && target.split("::").any(|segment| segment.trim_end_matches("()").trim_end_matches('!') == name)
        && target.split("::").all(|segment| is_identifier(segment.trim_end_matches("()").trim_end_matches('!')))
}

/// The type of the `impl` block (or the trait of the `trait` block) around 0-based `line0` of the
/// Rust file `text`, by the nearest `impl …`/`trait …` line above at a smaller indentation:
/// `impl<'a> TypedPath<'a> {` → `TypedPath`, `impl Encoding for Utf8 {` → `Utf8`. `None` for an
/// item at the file's level.
pub(crate) fn rust_enclosing_impl_type(text: &str, line0: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let own_indent = lines.get(line0 as usize)?.len() - lines.get(line0 as usize)?.trim_start().len();
    lines[..line0 as usize].iter().rev().find_map(|line| {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        if indent >= own_indent || trimmed.is_empty() {
            return None;
        }
        let header = trimmed.strip_prefix("pub ").unwrap_or(trimmed);
        let header = header.strip_prefix("unsafe ").unwrap_or(header);
        let rest = header.strip_prefix("impl").or_else(|| header.strip_prefix("trait "))?;
        // Skip the impl's own generics (`impl<'a, T: X<Y>>`).
        let mut rest = rest.trim_start();
        if rest.starts_with('<') {
            let mut depth = 0usize;
            let close = rest.char_indices().find(|(_, c)| {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })?;
            rest = rest[close.0 + 1..].trim_start();
        }
        // `Trait for Type`: the type.
        let rest = rest.split_once(" for ").map_or(rest, |(_, after)| after.trim_start());
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        Some(name).filter(|name| !name.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_comment_spans_cover_line_and_block_comments_and_skip_literals() {
        let text = "/*\nPackage p: [A].\n*/\npackage p\n\nconst s = \"// [B]\" // [C]\nvar r = `/* [D]` /* [E] */ + 1\nvar c = '/'\n";
        let lines: Vec<&str> = text.split('\n').collect();
        let spans: Vec<String> =
            go_comment_spans(text).into_iter().map(|(line, start, end)| lines[line as usize][start..end].to_owned()).collect();
        assert_eq!(spans, vec!["", "Package p: [A].", "", " [C]", " [E] "]);
    }

    /// review50 H1: non-ASCII text in a `/* … */` comment (a license header's `©`, a name's `ë`,
    /// CJK text over several lines) panicked gopls `references` by slicing inside a character.
    #[test]
    fn go_comment_spans_read_non_ascii_text_in_block_comments() {
        let text = "/* Copyright © 2024 Zoë. Package p: see [Helper]. */\npackage p\n/* é */ var x = \"ü//\" /*\n説明 [Helper] 説明\n終わり */ // ß\n";
        let lines: Vec<&str> = text.split('\n').collect();
        let spans: Vec<String> =
            go_comment_spans(text).into_iter().map(|(line, start, end)| lines[line as usize][start..end].to_owned()).collect();
        assert_eq!(spans, vec![" Copyright © 2024 Zoë. Package p: see [Helper]. ", " é ", "", "説明 [Helper] 説明", "終わり ", " ß"]);
    }

    fn at(line: &str, name: &str) -> usize {
        line.find(name).unwrap()
    }

    #[test]
    fn a_link_body_is_read_around_the_occurrence() {
        let line = "// The specialized functions [FirstGraphemeCluster], [Graphemes.Next] and more.";
        assert_eq!(doc_link_body(line, at(line, "FirstGraphemeCluster"), 20), Some(("", "")));
        let next = line.find("Next").unwrap();
        assert_eq!(doc_link_body(line, next, 4), Some(("Graphemes.", "")));
        assert_eq!(doc_link_body("// [Graphemes]: https://x", 4, 9), None, "a link target definition");
        assert_eq!(doc_link_body("/// [the Graphemes](Graphemes)", 9, 9), None, "a Markdown link's text");
        assert_eq!(doc_link_body("/// [Graphemes][label]", 5, 9), None, "a reference link's text");
        assert_eq!(doc_link_body("// Graphemes is plain", 3, 9), None);
        assert_eq!(doc_link_body("// a] Graphemes [b", 6, 9), None);
    }

    #[test]
    fn go_links_resolve_by_package_and_owner() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("cmd")).unwrap();
        std::fs::write(root.join("go.mod"), "module github.com/rivo/uniseg\n\ngo 1.19\n").unwrap();
        let grapheme = "package uniseg\n\ntype Graphemes struct{}\n\nfunc (g *Graphemes) Next() bool {\n\treturn false\n}\n\nfunc FirstGraphemeCluster() {}\n\nconst (\n\tprAny = iota\n)\n";
        std::fs::write(root.join("grapheme.go"), grapheme).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        let path = root.join("grapheme.go");
        let function = GoRenamedSymbol::at(&reader, &path, 8, "FirstGraphemeCluster").unwrap();
        assert_eq!((function.owner.as_deref(), function.import_path.as_deref()), (None, Some("github.com/rivo/uniseg")));
        let method = GoRenamedSymbol::at(&reader, &path, 4, "Next").unwrap();
        assert_eq!(method.owner.as_deref(), Some("Graphemes"));
        assert!(GoRenamedSymbol::at(&reader, &path, 11, "prAny").is_some(), "a const block entry");
        assert!(GoRenamedSymbol::at(&reader, &path, 5, "false").is_none());
        let check = |symbol: &GoRenamedSymbol, file: &Path, text: &str, line: &str, name: &str| {
            go_doc_link_names_symbol(symbol, file, text, line, line.rfind(name).unwrap(), name)
        };
        let same = root.join("doc.go");
        let same_text = "// Package uniseg.\npackage uniseg\n";
        assert!(check(&function, &same, same_text, "// see [FirstGraphemeCluster].", "FirstGraphemeCluster"));
        assert!(check(&method, &same, same_text, "// see [Graphemes.Next].", "Next"));
        assert!(check(&method, &same, same_text, "// see [*Graphemes.Next].", "Next"));
        assert!(!check(&method, &same, same_text, "// see [Other.Next].", "Next"), "another type's method");
        assert!(!check(&method, &same, same_text, "// see [Next].", "Next"), "a package-level Next is another symbol");
        assert!(!check(&function, &same, "package uniseg_test\n", "// see [FirstGraphemeCluster].", "FirstGraphemeCluster"));
        let other = root.join("cmd/main.go");
        let imports = "package main\n\nimport (\n\tu \"github.com/rivo/uniseg\"\n)\n";
        assert!(check(&function, &other, imports, "// see [u.FirstGraphemeCluster].", "FirstGraphemeCluster"));
        assert!(check(&method, &other, imports, "// see [u.Graphemes.Next].", "Next"));
        assert!(!check(&function, &other, imports, "// see [uniseg.FirstGraphemeCluster].", "FirstGraphemeCluster"));
        let plain = "package main\n\nimport \"github.com/rivo/uniseg\"\n";
        assert!(check(&function, &other, plain, "// see [uniseg.FirstGraphemeCluster].", "FirstGraphemeCluster"));
        assert!(!check(&function, &other, plain, "// see [FirstGraphemeCluster].", "FirstGraphemeCluster"), "not imported by name");
    }

    #[test]
    fn rust_links_name_the_item_itself() {
        let check = |line: &str, name: &str| rust_intra_doc_link_names(line, line.rfind(name).unwrap(), name);
        assert!(check("/// Uses [`WindowsEncoding`].", "WindowsEncoding"));
        assert!(check("//! Uses [WindowsEncoding].", "WindowsEncoding"));
        assert!(check("/// Calls [`parse()`] and [parse].", "parse"));
        assert!(check("/// See [`struct@WindowsEncoding`].", "WindowsEncoding"));
        assert!(check("/// See [`WindowsEncoding::new`].", "WindowsEncoding"));
        assert!(!check("/// See [`other::WindowsEncoding`].", "WindowsEncoding"));
        assert!(!check("/// See [`Self::parse`].", "parse"));
        assert!(!check("// Uses [`WindowsEncoding`].", "WindowsEncoding"), "no doc comment");
        assert!(!check("/// Uses `WindowsEncoding`.", "WindowsEncoding"));
        let source =
            "impl<'a> TypedPath<'a> {\n    pub fn normalize(&self) {}\n}\nimpl Encoding for Utf8 {\n    fn label() {}\n}\nfn free() {}\n";
        assert_eq!(rust_enclosing_impl_type(source, 1).as_deref(), Some("TypedPath"));
        assert_eq!(rust_enclosing_impl_type(source, 4).as_deref(), Some("Utf8"));
        assert_eq!(rust_enclosing_impl_type(source, 6), None);
        let definition = |line: &str, name: &str| rust_link_definition_names(line, line.rfind(name).unwrap(), name);
        assert!(definition("/// [normalizing]: TypedPath::normalize", "TypedPath"));
        assert!(definition("/// [normalizing]: `crate::TypedPath::normalize`", "normalize"));
        assert!(!definition("/// [TypedPath]: https://docs.rs/x/TypedPath", "TypedPath"), "a URL");
        assert!(!definition("/// See [TypedPath]: it works", "TypedPath"), "no definition line");
    }
}
