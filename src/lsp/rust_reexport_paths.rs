//! Rust: which module a path names an item through (R-REN-1; issue 11, trial155 F1).
//!
//! Renamed at a `pub use dep::Trait;` of another crate's item, rust-analyzer renames only the
//! exported name (`pub use dep::Trait as NewName;`): the item keeps its name, and its uses are
//! rightly left. Not so the paths that reach it *through that export* — `use crate::Trait;`,
//! `use super::{Trait, …};`, `indexmap::Trait` in a test crate: the export no longer has that
//! name, so they fail to resolve (E0432). indexmap 2.14.2's `Equivalent` re-export: 6 such
//! imports broke while the preview called all 51 uses "rightly" left.
//!
//! A module that imports the name through the export passes the break on: `use super::Trait`
//! in `src/map/mutable.rs` reaches it through `src/map.rs`'s own `use crate::Trait` (2 more of
//! indexmap's 6). [`module_file_qualifying`] says whether the path is a `use`, so the caller can
//! follow such imports.
//!
//! [`module_file_qualifying`] reads the path in front of an occurrence (inside a `use` tree too)
//! and resolves its module part by the file layout: `crate` and the crate's own name lead to the
//! library root, `self` and `super` to the file's module and its parent (inside inline `mod x {}`
//! blocks, each `super` first climbs one of them), a first segment naming a child module of a
//! library file to that child, each further segment to the child module's `name.rs` or
//! `name/mod.rs`. A path that ends inside an inline module, a binary's `crate`, and
//! `#[path]` attributes are not followed (`None`).

use std::path::{Path, PathBuf};

/// The module a path names an occurrence through ([`module_file_qualifying`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QualifyingModule {
    /// The module's file.
    pub file: PathBuf,
    /// The occurrence is in a `use` statement: it imports the name into its own module.
    pub in_use_statement: bool,
}

/// The module file the path in front of the occurrence at byte `byte_start` of 0-based line
/// `line0` of `lines` (the Rust file `path`) names it through: `use crate::{Bucket, Trait}` →
/// the library root, `super::Trait` → the parent module's file. `crate_name` (as code spells it,
/// `-` → `_`) and `lib_root` are the file's package's library. `None` for an occurrence with no
/// such path (a bare use, another crate's path, an inline module, a path the layout does not
/// resolve).
pub(crate) fn module_file_qualifying(
    path: &Path,
    lines: &[&str],
    line0: usize,
    byte_start: usize,
    crate_name: &str,
    lib_root: &Path,
) -> Option<QualifyingModule> {
    let (segments, in_use_statement) = qualifying_segments(lines, line0, byte_start)?;
    // A binary's files (`src/main.rs`, `src/bin/`) are no part of the library: their `crate`
    // is the binary (review46 #8).
    let source = lib_root.parent()?;
    let in_binary = path == source.join("main.rs") || path.starts_with(source.join("bin"));
    let in_library = path.starts_with(source) && !in_binary;
    // Inside inline `mod name { … }` blocks of the file, `self` is the innermost of them and each
    // `super` climbs one of them before it leaves the file (review46 #8: `mod tests { use
    // super::Trait; }` in lib.rs reaches lib.rs's export).
    let mut inline_depth = inline_module_depth(lines, line0, byte_start);
    let mut segments = segments.as_slice();
    if in_library && inline_depth > 0 {
        match segments.first().map(String::as_str) {
            Some("self") => return None,
            Some("super") => {
                while inline_depth > 0 && segments.first().map(String::as_str) == Some("super") {
                    inline_depth -= 1;
                    segments = &segments[1..];
                }
                if inline_depth > 0 {
                    // Still inside an inline module: no file of its own.
                    return None;
                }
                // Now at the file's own module.
                let mut module = path.to_path_buf();
                for segment in segments {
                    module = match segment.as_str() {
                        "super" => parent_module_file(&module, lib_root)?,
                        "self" => module,
                        name => child_module_file(&module, lib_root, name)?,
                    };
                }
                return Some(QualifyingModule { file: module, in_use_statement });
            }
            _ => {}
        }
    }
    let (first, rest) = segments.split_first()?;
    let mut module = match first.as_str() {
        "crate" if in_library => lib_root.to_path_buf(),
        "self" if in_library => path.to_path_buf(),
        "super" if in_library => parent_module_file(path, lib_root)?,
        name if name == crate_name => lib_root.to_path_buf(),
        // A path from a child module of the file's own (`pub use inner::*;` in lib.rs; review47
        // M1): since the 2018 edition a `use` path may start there. In an inline module the
        // child would be the inline module's, which has no file of its own.
        name if in_library && inline_depth == 0 => child_module_file(path, lib_root, name)?,
        _ => return None,
    };
    for segment in rest {
        module = match segment.as_str() {
            "super" => parent_module_file(&module, lib_root)?,
            "self" => module,
            name => child_module_file(&module, lib_root, name)?,
        };
    }
    Some(QualifyingModule { file: module, in_use_statement })
}

/// A glob import (`use crate::*;`, `use indexmap::{map::*, Other};`, `use x::{self, *};`) at a
/// module's level, whose module part the file layout resolves ([`RustFileImports`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GlobImport {
    /// 0-based line of the `*`.
    pub line0: usize,
    /// The path in front of the `*` as code writes it (`indexmap`, `crate::map`): an import
    /// of one name beside the glob is `use {path}::Name;`.
    pub path: String,
    /// The file of the module the glob imports from.
    pub module_file: PathBuf,
    /// The module the glob sits in: 0 for the file's own, else 1 + the 0-based line of the
    /// inline `mod name {` that encloses it.
    module: usize,
}

/// The module-level imports of one Rust file that decide whether a bare name comes from a glob
/// (recheck46 NEW-2: `use indexmap::*;` in a test crate, then `Equivalent<…>`): its glob imports
/// and the modules that import the name by a `use` of their own (an explicit import shadows a
/// glob). Read once per file ([`RustFileImports::read`]); each occurrence is then answered by a
/// lookup ([`RustFileImports::globs_reaching`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct RustFileImports {
    /// The glob imports whose module part resolves, in file order.
    pub globs: Vec<GlobImport>,
    /// The modules (as in [`GlobImport`]) whose own `use` binds the name: `use a::Name;`, `use
    /// a::{Name, …}`, `use a::Other as Name;` — not `use a::Name as Other;`, `as _`, a path
    /// segment `use a::Name::X;`, nor a `use` inside a function body.
    explicit_modules: Vec<usize>,
    /// Each line's module (as in [`GlobImport`]), at the line's start.
    line_modules: Vec<usize>,
}

impl RustFileImports {
    /// Reads the imports of `name` in the Rust file `path` (its text split in `lines`; at most
    /// 20,000 lines read) of the package whose library is `lib_root` (crate name `crate_name`).
    /// Blocks are told by their braces, strings and comments not told apart (a brace in one may
    /// miscount).
    pub(crate) fn read(path: &Path, lines: &[&str], name: &str, crate_name: &str, lib_root: &Path) -> RustFileImports {
        let mut imports = RustFileImports::default();
        // The open blocks: (opens a module, the module id it is in or opens). The braces of a
        // `use` tree are no block.
        let mut stack: Vec<(bool, usize)> = Vec::new();
        let (mut in_use, mut use_depth) = (false, 0usize);
        for (index, line) in lines.iter().enumerate().take(20_000) {
            let module = stack.iter().rev().find(|(is_module, _)| *is_module).map_or(0, |(_, id)| *id);
            let at_module_level = stack.last().is_none_or(|(is_module, _)| *is_module);
            imports.line_modules.push(module);
            let code = line.split("//").next().unwrap_or(line);
            if at_module_level && (code.contains('*') || code.contains(name)) {
                imports.read_use_line(path, lines, index, code, name, crate_name, lib_root, module);
            }
            let mut statement_start = 0;
            for (at, character) in code.char_indices() {
                match character {
                    '{' if in_use || starts_use_statement(&code[statement_start..at]) => {
                        in_use = true;
                        use_depth += 1;
                    }
                    '{' => {
                        let opens_module = opens_inline_module(code[statement_start..at].trim());
                        stack.push((opens_module, if opens_module { index + 1 } else { module }));
                        statement_start = at + 1;
                    }
                    '}' if use_depth > 0 => use_depth -= 1,
                    '}' => {
                        stack.pop();
                        statement_start = at + 1;
                    }
                    ';' => {
                        (in_use, use_depth) = (false, 0);
                        statement_start = at + 1;
                    }
                    _ => {}
                }
            }
        }
        imports
    }

    /// Reads one line of a `use` statement: its `*` tokens (globs) and a binding of `name`.
    #[allow(clippy::too_many_arguments)]
    fn read_use_line(
        &mut self,
        path: &Path,
        lines: &[&str],
        index: usize,
        code: &str,
        name: &str,
        crate_name: &str,
        lib_root: &Path,
        module: usize,
    ) {
        for (at, _) in code.match_indices('*') {
            if use_statement_start(lines, index, at).is_none() {
                continue;
            }
            let Some((segments, true)) = qualifying_segments(lines, index, at) else { continue };
            if let Some(found) = module_file_qualifying(path, lines, index, at, crate_name, lib_root) {
                self.globs.push(GlobImport { line0: index, path: segments.join("::"), module_file: found.file, module });
            }
        }
        let mut from = 0;
        while let Some(found) = code[from..].find(name) {
            let at = from + found;
            from = at + name.len();
            let before = &code[..at];
            let after = code[at + name.len()..].trim_start();
            let whole_word = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                && !code[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            if !whole_word || use_statement_start(lines, index, at).is_none() {
                continue;
            }
            // The name is bound as written (`a::Name,`) or as an alias (`Other as Name`).
            let bound_as_written = after.is_empty() || after.starts_with([',', '}', ';']);
            let bound_as_alias = before.trim_end().ends_with(" as") || before.trim_end() == "as";
            if bound_as_written || bound_as_alias {
                self.explicit_modules.push(module);
            }
        }
    }

    /// The module (0 for the file's own, else 1 + the 0-based line of the inline `mod name {`
    /// around it) that 0-based line `line0` starts in; `None` past the lines read.
    pub(crate) fn module_of_line(&self, line0: usize) -> Option<usize> {
        self.line_modules.get(line0).copied()
    }

    /// The glob imports that bring the name to the bare occurrence at byte `byte_start` of
    /// 0-based line `line0` of `lines`: those of its module, unless that module imports the
    /// name by a `use` of its own. Empty for an occurrence written with a path or in a `use`
    /// statement.
    pub(crate) fn globs_reaching(&self, lines: &[&str], line0: usize, byte_start: usize) -> Vec<&GlobImport> {
        if qualifying_segments(lines, line0, byte_start).is_some() || in_use_statement(lines, line0, byte_start) {
            return Vec::new();
        }
        let Some(&module) = self.line_modules.get(line0) else { return Vec::new() };
        if self.explicit_modules.contains(&module) {
            return Vec::new();
        }
        self.globs.iter().filter(|glob| glob.module == module).collect()
    }
}

impl RustFileImports {
    /// The glob imports at the file's own module level (not inside an inline `mod x { … }`)
    /// through which a path naming this module's `name` can resolve (review47 M1: `pub use
    /// inner::*;` in lib.rs, then `mycrate::Name` in a test crate): none when the module binds
    /// the name itself — an import of its own ([`RustFileImports::read`]) or an item declared at
    /// column 0 (`struct Name`, `pub fn Name`, …) — which shadows any glob.
    pub(crate) fn file_level_globs<'imports>(&'imports self, lines: &[&str], name: &str) -> Vec<&'imports GlobImport> {
        if self.explicit_modules.contains(&0) || declares_item_at_file_level(lines, name) {
            return Vec::new();
        }
        self.globs.iter().filter(|glob| glob.module == 0).collect()
    }
}

/// Whether one of `lines` declares an item `name` at column 0 (rustfmt's layout of the file's
/// own module level): `struct`, `enum`, `union`, `trait`, `type`, `fn`, `const`, `static`,
/// `mod`, after any visibility and `unsafe`/`async`/`const`/`extern "C"` qualifiers.
fn declares_item_at_file_level(lines: &[&str], name: &str) -> bool {
    lines.iter().filter(|line| !line.starts_with(char::is_whitespace)).any(|line| rust_line_declares_item(line, name))
}

/// Whether the Rust `line` (trimmed at the start) declares an item `name`: `struct`, `enum`,
/// `union`, `trait`, `type`, `fn`, `const`, `static`, `mod`, after any attributes on the same line
/// (`#[derive(Debug)] pub struct Name;`, review48 M5), a visibility and `unsafe`/`async`/
/// `const`/`extern "C"` qualifiers.
pub(crate) fn rust_line_declares_item(line: &str, name: &str) -> bool {
    const KEYWORDS: [&str; 9] = ["struct", "enum", "union", "trait", "type", "fn", "const", "static", "mod"];
    let mut line = line.trim_start();
    while let Some(rest) = line.strip_prefix("#[") {
        let Some(close) = rest.find(']') else { break };
        line = rest[close + 1..].trim_start();
    }
    let mut words = without_visibility(line).split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|word| !word.is_empty());
    let mut previous_keyword = false;
    for word in words.by_ref().take(6) {
        if previous_keyword && word == name {
            return true;
        }
        if previous_keyword && word == "mut" {
            continue;
        }
        previous_keyword = KEYWORDS.contains(&word);
        if !previous_keyword && !["unsafe", "async", "extern", "C"].contains(&word) {
            return false;
        }
    }
    false
}

/// `text` (trimmed at the start) without a leading visibility: `pub`, `pub(crate)`,
/// `pub(in path)`.
fn without_visibility(text: &str) -> &str {
    text.strip_prefix("pub").map_or(text, |rest| {
        let rest = rest.trim_start();
        if rest.starts_with('(') {
            rest.find(')').map_or(rest, |close| &rest[close + 1..]).trim_start()
        } else {
            rest
        }
    })
}

/// Whether a statement's text up to some point is a `use` statement: `use …`, `pub use …`,
/// `pub(crate) use …`, after any attributes on the same line.
fn starts_use_statement(text: &str) -> bool {
    let text = text.rsplit(']').next().unwrap_or(text).trim_start();
    let text = without_visibility(text);
    text.starts_with("use ")
}

/// Whether the code in front of a `{` opens an inline module: `mod name`, `pub mod name`,
/// `pub(crate) mod name`, after any attributes on the same line.
fn opens_inline_module(before: &str) -> bool {
    let before = before.rsplit(']').next().unwrap_or(before).trim_start();
    let before = without_visibility(before);
    before.strip_prefix("mod ").is_some_and(|rest| {
        let rest = rest.trim();
        !rest.is_empty() && rest.chars().all(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether byte `byte_start` of 0-based line `line0` lies in a `use` statement (its `use` at
/// most 40 lines above, no `;` between).
fn in_use_statement(lines: &[&str], line0: usize, byte_start: usize) -> bool {
    use_statement_start(lines, line0, byte_start).is_some()
}

/// The path segments in front of the occurrence (`crate`, `map`), from the line's own `a::b::`
/// and, inside a `use` statement, the prefixes of the braces that enclose it; and whether it is
/// in a `use` statement. `None` when no `::` path qualifies it.
fn qualifying_segments(lines: &[&str], line0: usize, byte_start: usize) -> Option<(Vec<String>, bool)> {
    let line = lines.get(line0)?;
    let before = line.get(..byte_start)?;
    let Some(start) = use_statement_start(lines, line0, byte_start) else {
        // No `use`: the path written in front of the occurrence (`crate::Trait<K>`).
        let segments = trailing_path(before);
        return (!segments.is_empty()).then_some((segments, false));
    };
    let mut text: String = lines[start..line0].iter().map(|text| format!("{text}\n")).collect();
    text.push_str(before);
    let body = &text[text.find("use ")? + 4..];
    let segments = use_tree_prefix(body);
    (!segments.is_empty()).then_some((segments, true))
}

/// The 0-based line of the `use` statement that byte `byte_start` of line `line0` lies in: its
/// first line at or above (at most 40 lines up), with no `;` between.
fn use_statement_start(lines: &[&str], line0: usize, byte_start: usize) -> Option<usize> {
    let before = lines.get(line0)?.get(..byte_start)?;
    let statement_start = (0..=line0).rev().take(40).find(|&index| {
        let trimmed = lines[index].trim_start();
        let trimmed = without_visibility(trimmed);
        trimmed.starts_with("use ")
    });
    statement_start.filter(|&start| {
        let between: String =
            lines[start..line0].iter().map(|text| format!("{text}\n")).chain(std::iter::once(before.to_owned())).collect();
        !between.contains(';')
    })
}

/// How many inline `mod name {` blocks of the file enclose byte `byte_start` of line `line0`: the
/// braces of the lines above (and of the line before the byte) counted, strings and comments
/// not told apart (a brace in one may miscount; at most 20,000 lines are read).
fn inline_module_depth(lines: &[&str], line0: usize, byte_start: usize) -> usize {
    // The brace depth at which each open inline module's block began.
    let mut open_modules: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let first = line0.saturating_sub(20_000);
    for (index, line) in lines.iter().enumerate().take(line0 + 1).skip(first) {
        let text = if index == line0 { line.get(..byte_start).unwrap_or(line) } else { line };
        let code = text.split("//").next().unwrap_or(text);
        let trimmed = code.trim_start();
        let declaration = without_visibility(trimmed);
        let opens_module = declaration.strip_prefix("mod ").is_some_and(|rest| {
            let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            name_end > 0 && rest[name_end..].trim_start().starts_with('{')
        });
        let mut module_brace_pending = opens_module;
        for character in code.chars() {
            match character {
                '{' => {
                    // The module line's first brace opens the module's block.
                    if module_brace_pending {
                        open_modules.push(depth);
                        module_brace_pending = false;
                    }
                    depth += 1;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if open_modules.last() == Some(&depth) {
                        open_modules.pop();
                    }
                }
                _ => {}
            }
        }
    }
    open_modules.len()
}

/// The `a::b::` segments that end `text` (`impl<Q: crate::` → `["crate"]`).
fn trailing_path(text: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut rest = text;
    while let Some(stripped) = rest.strip_suffix("::") {
        let name_start = stripped
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
            .last()
            .map_or(stripped.len(), |(index, _)| index);
        if name_start == stripped.len() {
            break;
        }
        segments.push(stripped[name_start..].to_owned());
        rest = &stripped[..name_start];
    }
    segments.reverse();
    segments
}

/// The path prefix in force at the end of `body` (a `use` tree cut at an occurrence): the
/// segments of the enclosing braces and those written since the last `{` or `,` (`crate::{map::{`
/// → `["crate", "map"]`).
fn use_tree_prefix(body: &str) -> Vec<String> {
    let mut stack: Vec<Vec<String>> = vec![Vec::new()];
    let mut current: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut after_as = false;
    let flush = |word: &mut String, current: &mut Vec<String>, after_as: &mut bool| {
        if !word.is_empty() {
            if word == "as" {
                *after_as = true;
            } else if !*after_as {
                current.push(std::mem::take(word));
            }
            word.clear();
        }
    };
    for character in body.chars() {
        if character.is_alphanumeric() || character == '_' {
            word.push(character);
            continue;
        }
        flush(&mut word, &mut current, &mut after_as);
        match character {
            '{' => {
                let mut prefix = stack.last().cloned().unwrap_or_default();
                prefix.append(&mut current);
                stack.push(prefix);
                after_as = false;
            }
            ',' => {
                current.clear();
                after_as = false;
            }
            '}' => {
                if stack.len() > 1 {
                    stack.pop();
                }
                current.clear();
                after_as = false;
            }
            _ => {}
        }
    }
    flush(&mut word, &mut current, &mut after_as);
    let mut prefix = stack.pop().unwrap_or_default();
    prefix.extend(current);
    prefix
}

/// The file of the module that declares the module of `file`: `src/map/core.rs` → `src/map.rs`
/// or `src/map/mod.rs`, `src/map.rs` → the library root.
fn parent_module_file(file: &Path, lib_root: &Path) -> Option<PathBuf> {
    if file == lib_root {
        return None;
    }
    let source = lib_root.parent()?;
    let module_dir = if file.file_name()? == "mod.rs" { file.parent()?.parent()? } else { file.parent()? };
    if module_dir == source {
        return Some(lib_root.to_path_buf());
    }
    let name = module_dir.file_name()?.to_str()?;
    let beside = module_dir.parent()?.join(format!("{name}.rs"));
    let inside = module_dir.join("mod.rs");
    [beside, inside].into_iter().find(|candidate| candidate.is_file())
}

/// The file of the child module `name` of the module in `file`.
fn child_module_file(file: &Path, lib_root: &Path, name: &str) -> Option<PathBuf> {
    let dir = if file == lib_root || file.file_name()? == "mod.rs" {
        file.parent()?.to_path_buf()
    } else {
        file.parent()?.join(file.file_stem()?)
    };
    [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")].into_iter().find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_of_a_use_tree_is_read_up_to_the_occurrence() {
        assert_eq!(use_tree_prefix("crate::{Bucket, "), ["crate"]);
        assert_eq!(use_tree_prefix("crate::{map::{Entry as E, "), ["crate", "map"]);
        assert_eq!(use_tree_prefix("crate::{map::{Entry}, "), ["crate"]);
        assert_eq!(use_tree_prefix("super::"), ["super"]);
        assert_eq!(use_tree_prefix("equivalent::"), ["equivalent"]);
        assert!(use_tree_prefix("").is_empty());
        assert_eq!(trailing_path("impl<Q: ?Sized + crate::"), ["crate"]);
        assert_eq!(trailing_path("    x: super::super::"), ["super", "super"]);
        assert!(trailing_path("let x = ").is_empty());
    }

    /// Review47 M2: the glob spellings, the shadowing rules and the modules of
    /// [`RustFileImports`], each with the bare `Value` on the last line that has it.
    #[test]
    fn glob_imports_reach_a_bare_use_in_their_own_module_unless_it_imports_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["src/lib.rs", "tests/t.rs"] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "").unwrap();
        }
        let lib = root.join("src/lib.rs");
        let reaches = |text: &str| -> Vec<(usize, String)> {
            let lines: Vec<&str> = text.lines().collect();
            let last = lines.iter().rposition(|line| line.contains("Value")).unwrap();
            let byte = lines[last].rfind("Value").unwrap();
            let imports = RustFileImports::read(&root.join("tests/t.rs"), &lines, "Value", "mycrate", &lib);
            imports.globs_reaching(&lines, last, byte).into_iter().map(|glob| (glob.line0, glob.path.clone())).collect()
        };
        let at = |line0: usize| vec![(line0, "mycrate".to_owned())];
        assert_eq!(reaches("use mycrate::*;\nfn f(_: Value) {}"), at(0));
        assert_eq!(reaches("use mycrate::{*, Other};\nfn f(_: Value) {}"), at(0));
        assert_eq!(reaches("use mycrate::{self, *};\nfn f(_: Value) {}"), at(0));
        assert_eq!(reaches("use mycrate::{\n    *,\n};\nfn f(_: Value) {}"), at(1));
        // A function-local use, an alias binding another name, `as _`: no shadowing.
        assert_eq!(reaches("use mycrate::*;\nfn a() {\n    use other::Value as V;\n}\nfn f(_: Value) {}"), at(0));
        assert_eq!(reaches("use mycrate::*;\nuse other::{\n    Value as OtherValue,\n};\nfn f(_: Value) {}"), at(0));
        assert_eq!(reaches("use mycrate::*;\nuse mycrate::Value as _;\nfn f(_: Value) {}"), at(0));
        // An explicit import of the name in the same module shadows the glob.
        assert!(reaches("use mycrate::*;\nuse other::Value;\nfn f(_: Value) {}").is_empty());
        assert!(reaches("use mycrate::*;\nuse other::Thing as Value;\nfn f(_: Value) {}").is_empty());
        // Sibling inline modules: each has its own imports.
        assert_eq!(reaches("mod a {\n    use mycrate::Value;\n}\nmod b {\n    use mycrate::*;\n    fn f(_: Value) {}\n}"), at(4));
        // A glob in another module, or in a function, does not reach a use outside it.
        assert!(reaches("mod a {\n    use mycrate::*;\n}\nfn f(_: Value) {}").is_empty());
        assert!(reaches("fn a() {\n    use mycrate::*;\n}\nfn f(_: Value) {}").is_empty());
        // A path-qualified occurrence is no bare use.
        assert!(reaches("use mycrate::*;\nfn f(_: other::Value) {}").is_empty());
    }

    /// Review47 M1: a module's own file-level globs re-export the name unless the module binds
    /// it itself.
    #[test]
    fn file_level_globs_reexport_the_name_unless_the_module_binds_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["src/lib.rs", "src/inner.rs"] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "").unwrap();
        }
        let lib = root.join("src/lib.rs");
        let globs = |text: &str| -> Vec<PathBuf> {
            let lines: Vec<&str> = text.lines().collect();
            let imports = RustFileImports::read(&lib, &lines, "Value", "mycrate", &lib);
            imports.file_level_globs(&lines, "Value").into_iter().map(|glob| glob.module_file.clone()).collect()
        };
        let inner = vec![root.join("src/inner.rs")];
        assert_eq!(globs("mod inner;\npub use inner::*;"), inner);
        assert_eq!(globs("mod inner;\nuse self::inner::*;"), inner, "a private glob serves the crate's own paths");
        assert_eq!(globs("mod inner;\npub use crate::{inner::*, Other};"), inner);
        assert!(globs("mod inner;\nmod x {\n    pub use super::inner::*;\n}").is_empty(), "an inline module's glob");
        assert!(globs("mod inner;\npub use inner::*;\npub use other::Value;").is_empty(), "an explicit import shadows it");
        assert!(globs("mod inner;\npub use inner::*;\npub struct Value;").is_empty(), "a declared item shadows it");
        assert!(globs("mod inner;\npub use inner::*;\npub(crate) const fn Value() {}").is_empty());
        assert!(globs("mod inner;\npub use inner::*;\nstatic mut Value: u8 = 0;").is_empty());
        assert!(globs("mod inner;\npub use inner::*;\n#[derive(Debug)] pub struct Value;").is_empty(), "an attribute before the item");
        assert_eq!(globs("mod inner;\npub use inner::*;\nimpl X {\n    fn Value() {}\n}"), inner, "a method is no module item");
        assert_eq!(globs("mod inner;\npub use inner::*;\nfn f(_: Value) {}"), inner, "a use is no declaration");
    }

    #[test]
    fn paths_resolve_to_module_files_by_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["src/lib.rs", "src/map.rs", "src/map/core.rs", "src/set/mod.rs", "tests/t.rs"] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "").unwrap();
        }
        let lib = root.join("src/lib.rs");
        let resolve = |file: &str, lines: &[&str], line0: usize, word: &str| {
            let byte = lines[line0].rfind(word).unwrap();
            module_file_qualifying(&root.join(file), lines, line0, byte, "indexmap", &lib).map(|module| module.file)
        };
        assert_eq!(resolve("src/map.rs", &["use crate::{Bucket, Equivalent};"], 0, "Equivalent"), Some(lib.clone()));
        assert_eq!(
            resolve("src/set/mod.rs", &["use super::{", "    Entries,", "    Equivalent,", "};"], 2, "Equivalent"),
            Some(lib.clone())
        );
        assert_eq!(resolve("src/map/core.rs", &["use super::Equivalent;"], 0, "Equivalent"), Some(root.join("src/map.rs")));
        assert_eq!(resolve("src/map/core.rs", &["use crate::map::Equivalent;"], 0, "Equivalent"), Some(root.join("src/map.rs")));
        assert_eq!(resolve("tests/t.rs", &["use indexmap::Equivalent;"], 0, "Equivalent"), Some(lib.clone()));
        assert_eq!(resolve("tests/t.rs", &["use crate::Equivalent;"], 0, "Equivalent"), None, "`crate` of a test crate");
        assert_eq!(resolve("src/map.rs", &["use equivalent::Equivalent;"], 0, "Equivalent"), None);
        assert_eq!(resolve("src/map.rs", &["    Q: ?Sized + Equivalent<K>,"], 0, "Equivalent"), None);
        assert_eq!(resolve("src/map.rs", &["    Q: ?Sized + crate::Equivalent<K>,"], 0, "Equivalent"), Some(lib.clone()));
        assert_eq!(resolve("src/map.rs", &["use crate::Bucket;", "fn f<Q: Equivalent<K>>() {}"], 1, "Equivalent"), None);
        // review46 #8: inline modules and binaries.
        let tests_in_lib = ["pub use equivalent::Equivalent;", "#[cfg(test)]", "mod tests {", "    use super::Equivalent;", "}"];
        assert_eq!(resolve("src/lib.rs", &tests_in_lib, 3, "Equivalent"), Some(lib.clone()), "`super` of lib.rs's `mod tests` is lib.rs");
        let tests_in_map = [
            "mod tests {",
            "    use super::Equivalent;",
            "    mod deeper {",
            "        use super::super::Equivalent;",
            "    }",
            "}",
            "use super::Equivalent;",
        ];
        assert_eq!(resolve("src/map.rs", &tests_in_map, 1, "Equivalent"), Some(root.join("src/map.rs")));
        assert_eq!(resolve("src/map.rs", &tests_in_map, 3, "Equivalent"), Some(root.join("src/map.rs")));
        assert_eq!(resolve("src/map.rs", &tests_in_map, 6, "Equivalent"), Some(lib.clone()), "after the inline modules close");
        let one_line = ["mod a { fn f() {} }", "use super::Equivalent;"];
        assert_eq!(resolve("src/map.rs", &one_line, 1, "Equivalent"), Some(lib.clone()), "a one-line inline module is closed");
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        assert_eq!(resolve("src/main.rs", &["use crate::Equivalent;"], 0, "Equivalent"), None, "a binary's `crate`");
        assert_eq!(resolve("src/main.rs", &["use indexmap::Equivalent;"], 0, "Equivalent"), Some(lib.clone()));
        let lines = ["use crate::Equivalent;", "fn f<Q: crate::Equivalent<K>>() {}"];
        let in_use = |line0: usize| {
            let byte = lines[line0].rfind("Equivalent").unwrap();
            module_file_qualifying(&root.join("src/map.rs"), &lines, line0, byte, "indexmap", &lib).map(|module| module.in_use_statement)
        };
        assert_eq!((in_use(0), in_use(1)), (Some(true), Some(false)));
    }
}
