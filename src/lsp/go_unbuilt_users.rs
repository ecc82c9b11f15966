//! Go files outside the build gopls checks that use what a write changed (trial161 M4).
//!
//! google/btree's `btree_mem.go` is `// +build ignore` / `package main` and calls `btree.New`. A
//! write that added a parameter to `New` in btree.go read "no new errors … (gopls)": gopls loads
//! one build configuration, and a file its build constraints exclude (`ignore`, another
//! GOOS/GOARCH, a tag) is in no package it checks, so its errors cannot show. The whole-project
//! check names such files NOT compiled; the write check did not.
//!
//! [`unbuilt_users`] finds, for the functions, types and methods whose declaration a write
//! changed ([`changed_names`]), the `.go` files under the server's root that the build
//! constraints exclude under the current GOOS/GOARCH and no tags ([`excluded_from_build`]) and
//! that use one of them: by its bare name in a file of the written package's directory and
//! package, or as `pkg.Name` (a method: `.Name(`) in a file that imports the written package.
//! Bounded: at most [`MAX_GO_FILES_READ`] files, within the deadline given.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::lsp::diagnostics_on_write::{host_go_target, GO_ARCH_NAMES, GO_OS_NAMES};

/// Most `.go` files read under the root per write.
pub(crate) const MAX_GO_FILES_READ: usize = 2000;

/// Most files named.
const MAX_FILES_NAMED: usize = 5;

/// Most use lines kept per file (see [`UnbuiltUse::lines0`]).
const MAX_USE_LINES_KEPT: usize = 20;

/// GOOS values the `unix` build tag matches.
const UNIX_OS_NAMES: &[&str] =
    &["aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux", "netbsd", "openbsd", "solaris"];

/// A file outside the checked build that uses a changed name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnbuiltUse {
    /// The file.
    pub path: PathBuf,
    /// The 0-based line of its first use.
    pub line0: usize,
    /// The 0-based lines of all its uses of that name, `line0` first (at most
    /// [`MAX_USE_LINES_KEPT`]).
    pub lines0: Vec<usize>,
    /// The name as used there (`btree.New`, `New`, `.Len`).
    pub used_as: String,
}

/// The names of the top-level functions and types (see
/// [`crate::lsp::go_build_twins::changed_declaration_names`]) and of the methods whose declaration
/// line (up to its `{`) a write from `old` to `new` changed, added or removed, methods as
/// `Type.Name`.
pub(crate) fn changed_names(old: &str, new: &str) -> Vec<String> {
    let mut names = crate::lsp::go_build_twins::changed_declaration_names(old, new);
    let methods = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter(|line| line.starts_with("func ("))
            .filter_map(|line| {
                let receiver = crate::lsp::rename_public_api::go_method_receiver(line)?;
                let after = line.find(')').map(|end| line[end + 1..].trim_start())?;
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let signature = line.split('{').next().unwrap_or(line).trim_end().to_owned();
                (!name.is_empty()).then(|| (format!("{receiver}.{name}"), signature))
            })
            .collect()
    };
    let (old_methods, new_methods) = (methods(old), methods(new));
    for (mine, other) in [(&new_methods, &old_methods), (&old_methods, &new_methods)] {
        for (name, signature) in mine {
            if !other.contains(&(name.clone(), signature.clone())) && !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// Whether a build tag is satisfied under `os`/`arch` with no `-tags`: the GOOS and GOARCH (and
/// what they imply: `unix`, `linux` on android, `solaris` on illumos, `darwin` on ios), `gc`,
/// `cgo` and the release tags (`go1.N`).
fn tag_satisfied(tag: &str, os: &str, arch: &str) -> bool {
    tag == os
        || tag == arch
        || (tag == "unix" && UNIX_OS_NAMES.contains(&os))
        || (tag == "linux" && os == "android")
        || (tag == "solaris" && os == "illumos")
        || (tag == "darwin" && os == "ios")
        || tag == "gc"
        || tag == "cgo"
        || tag.strip_prefix("go1.").is_some_and(|minor| !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()))
}

/// A `//go:build` expression evaluated (`||`, `&&`, `!`, parentheses); `None` when it does not
/// parse. Iterative: the operands and operators go on explicit stacks (shunting-yard).
fn evaluate_go_build_expression(expression: &str, satisfied: &dyn Fn(&str) -> bool) -> Option<bool> {
    #[derive(Clone, Copy, PartialEq)]
    enum Operator {
        Not,
        And,
        Or,
        Open,
    }
    fn precedence(operator: Operator) -> u8 {
        match operator {
            Operator::Not => 3,
            Operator::And => 2,
            Operator::Or => 1,
            Operator::Open => 0,
        }
    }
    fn apply(operator: Operator, values: &mut Vec<bool>) -> Option<()> {
        match operator {
            Operator::Not => {
                let value = values.pop()?;
                values.push(!value);
            }
            Operator::And | Operator::Or => {
                let right = values.pop()?;
                let left = values.pop()?;
                values.push(if operator == Operator::And { left && right } else { left || right });
            }
            Operator::Open => return None,
        }
        Some(())
    }
    let mut values: Vec<bool> = Vec::new();
    let mut operators: Vec<Operator> = Vec::new();
    let bytes = expression.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b' ' | b'\t' => at += 1,
            b'(' => {
                operators.push(Operator::Open);
                at += 1;
            }
            b')' => {
                loop {
                    match operators.pop()? {
                        Operator::Open => break,
                        operator => apply(operator, &mut values)?,
                    }
                }
                // A `!` right before the parenthesis applies to it alone.
                while operators.last() == Some(&Operator::Not) {
                    operators.pop();
                    apply(Operator::Not, &mut values)?;
                }
                at += 1;
            }
            b'!' => {
                operators.push(Operator::Not);
                at += 1;
            }
            b'&' | b'|' => {
                if bytes.get(at + 1) != Some(&byte) {
                    return None;
                }
                let operator = if byte == b'&' { Operator::And } else { Operator::Or };
                while let Some(&top) = operators.last() {
                    if top != Operator::Open && precedence(top) >= precedence(operator) {
                        operators.pop();
                        apply(top, &mut values)?;
                    } else {
                        break;
                    }
                }
                operators.push(operator);
                at += 2;
            }
            _ => {
                let start = at;
                while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_' || bytes[at] == b'.') {
                    at += 1;
                }
                if at == start {
                    return None;
                }
                values.push(satisfied(&expression[start..at]));
                // A `!` right before an operand applies to it alone.
                while operators.last() == Some(&Operator::Not) {
                    operators.pop();
                    apply(Operator::Not, &mut values)?;
                }
            }
        }
    }
    while let Some(operator) = operators.pop() {
        apply(operator, &mut values)?;
    }
    (values.len() == 1).then(|| values[0])
}

/// Whether the Go file named `file_name` with source `text` is excluded from the build under
/// `os`/`arch` and no tags: its file-name suffix names another GOOS/GOARCH, or its `//go:build`
/// line (else its `// +build` lines: each a list of options, any of which — all of its
/// comma-separated terms — satisfies it, every line required) is false. A constraint that does
/// not parse counts as satisfied (nothing is claimed of it).
pub(crate) fn excluded_from_build(file_name: &str, text: &str, os: &str, arch: &str) -> bool {
    let stem = file_name.strip_suffix(".go").unwrap_or(file_name);
    let stem = stem.strip_suffix("_test").unwrap_or(stem);
    let parts: Vec<&str> = stem.split('_').skip(1).collect();
    let file_name_excludes = match parts.as_slice() {
        [.., file_os, file_arch] if GO_OS_NAMES.contains(file_os) && GO_ARCH_NAMES.contains(file_arch) => {
            !tag_satisfied(file_os, os, arch) || *file_arch != arch
        }
        [.., last] if GO_OS_NAMES.contains(last) => !tag_satisfied(last, os, arch),
        [.., last] if GO_ARCH_NAMES.contains(last) => *last != arch,
        _ => false,
    };
    if file_name_excludes {
        return true;
    }
    let satisfied = |tag: &str| tag_satisfied(tag, os, arch);
    let mut plus_build: Vec<&str> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("package ") {
            break;
        }
        if let Some(expression) = trimmed.strip_prefix("//go:build") {
            return evaluate_go_build_expression(expression, &satisfied).is_some_and(|value| !value);
        }
        if let Some(options) = trimmed.strip_prefix("//").map(str::trim_start).and_then(|rest| rest.strip_prefix("+build")) {
            plus_build.push(options);
        }
    }
    plus_build.iter().any(|options| {
        !options.split_whitespace().any(|option| {
            option.split(',').all(|term| match term.strip_prefix('!') {
                Some(negated) => !satisfied(negated),
                None => satisfied(term),
            })
        })
    })
}

/// The package clause of a Go source.
fn package_name(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("package ")).map(|rest| rest.split_whitespace().next().unwrap_or("").trim())
}

/// The name under which `text` imports `import_path` (its alias, else `default_name`); `.` for
/// a dot import; `None` when it does not import it or imports it blank (`_`).
fn import_name<'t>(text: &'t str, import_path: &str, default_name: &'t str) -> Option<&'t str> {
    let quoted = format!("\"{import_path}\"");
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let Some(at) = code.find(&quoted) else { continue };
        let before = code[..at].trim().trim_start_matches("import").trim_start_matches('(').trim();
        return match before {
            "" => Some(default_name),
            "_" => None,
            alias => Some(alias),
        };
    }
    None
}

/// The 0-based lines of `text` (at most [`MAX_USE_LINES_KEPT`], in order), outside `//`
/// comments, where `needle` occurs with no identifier character after it (and, when `bare`, none
/// and no `.` before it), that are no top-level declaration of the name.
fn use_lines(text: &str, needle: &str, bare: bool) -> Vec<usize> {
    let is_identifier = |c: char| c.is_alphanumeric() || c == '_';
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            if line.starts_with("func ") || line.starts_with("type ") {
                // A declaration of the name in the file itself is another build's twin, not a use.
                let declared: String =
                    line.trim_start_matches("func ").trim_start_matches("type ").chars().take_while(|c| is_identifier(*c)).collect();
                if needle.trim_start_matches('.') == declared {
                    return false;
                }
            }
            let code = line.split("//").next().unwrap_or("");
            code.match_indices(needle).any(|(at, _)| {
                let after_ok = !code[at + needle.len()..].starts_with(is_identifier);
                let before_ok = !bare || !code[..at].ends_with(|c: char| is_identifier(c) || c == '.');
                after_ok && before_ok
            })
        })
        .map(|(index, _)| index)
        .take(MAX_USE_LINES_KEPT)
        .collect()
}

/// The import path of the Go package in `directory`, from the `go.mod` at or above it (up to
/// `root`): its `module` path joined with the directory's path below it.
fn import_path_of(workspace_root: &Path, root: &Path, directory: &Path) -> Option<String> {
    let mut module_dir = directory;
    loop {
        if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &module_dir.join("go.mod")) {
            let module = text.lines().find_map(|line| line.trim().strip_prefix("module "))?.trim().trim_matches('"').to_owned();
            let below = directory.strip_prefix(module_dir).ok()?;
            return Some(if below.as_os_str().is_empty() { module } else { format!("{module}/{}", below.display()) });
        }
        if module_dir == root {
            return None;
        }
        module_dir = module_dir.parent().filter(|parent| parent.starts_with(root))?;
    }
}

/// The `.go` files under `root` (no `vendor`, `testdata`, hidden or ignored directories) that
/// the build constraints exclude under the current GOOS/GOARCH and no tags, and that use a name
/// of `changed` (as [`changed_names`] gives them: `Type.Method` for a method) declared in the
/// package of `written` (a written `.go` file): the file's first use of any. Files in `known`
/// (canonical) are left out. At most [`MAX_GO_FILES_READ`] files read, until `deadline`; a
/// search cut short by either sets `stopped` to why (the files after are unsearched, which the
/// answer must say).
#[allow(clippy::too_many_arguments)]
pub(crate) fn unbuilt_users(
    workspace_root: &Path,
    root: &Path,
    written: &Path,
    package: &str,
    changed: &[String],
    known: &[PathBuf],
    deadline: Instant,
    stopped: &mut Option<String>,
) -> Vec<UnbuiltUse> {
    let mut found = Vec::new();
    let Some(directory) = written.parent() else { return found };
    if changed.is_empty() || package.is_empty() {
        return found;
    }
    let import_path = import_path_of(workspace_root, root, directory);
    let Ok(reader) = crate::files::WorkspaceReader::open(workspace_root) else { return found };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return found };
    let (os, arch) = host_go_target();
    let mut read = 0usize;
    for entry in walk.hidden(true).skip_names(&["vendor", "testdata", ".git", "node_modules"]).iter().flatten() {
        if read >= MAX_GO_FILES_READ || Instant::now() >= deadline {
            *stopped = Some(if read >= MAX_GO_FILES_READ {
                format!("it read its cap of {MAX_GO_FILES_READ} .go files")
            } else {
                format!("its time ran out after {read} .go files")
            });
            break;
        }
        let file_name = entry.file_name().to_str().unwrap_or("");
        if !entry.is_file() || !file_name.ends_with(".go") {
            continue;
        }
        let path = entry.path().to_path_buf();
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if known.contains(&canonical) {
            continue;
        }
        read += 1;
        let Ok(text) = reader.read_to_string(&path) else { continue };
        if !excluded_from_build(file_name, &text, &os, &arch) {
            continue;
        }
        let same_package = path.parent() == Some(directory) && package_name(&text) == Some(package);
        let qualifier = if same_package {
            Some(String::new())
        } else {
            import_path.as_deref().and_then(|import_path| import_name(&text, import_path, package)).map(|name| {
                if name == "." {
                    String::new()
                } else {
                    format!("{name}.")
                }
            })
        };
        let Some(qualifier) = qualifier else { continue };
        let first = changed
            .iter()
            .filter_map(|name| {
                let (needle, bare) = match name.split_once('.') {
                    Some((_, method)) => (format!(".{method}("), false),
                    None if qualifier.is_empty() => (name.clone(), true),
                    None => (format!("{qualifier}{name}"), false),
                };
                let needle_shown = needle.trim_end_matches('(').to_owned();
                let lines0 = use_lines(&text, &needle, bare);
                lines0.first().copied().map(|line0| (line0, needle_shown, lines0))
            })
            .min();
        if let Some((line0, used_as, lines0)) = first {
            found.push(UnbuiltUse { path, line0, lines0, used_as });
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// The note naming `uses` (files outside the checked build that use what the write changed),
/// each with its constraint and the command that checks it; `None` when there are none.
pub(crate) fn unbuilt_users_note(root: &Path, server_id: &str, uses: &[UnbuiltUse], display: impl Fn(&Path) -> String) -> Option<String> {
    if uses.is_empty() {
        return None;
    }
    let named: Vec<String> = uses
        .iter()
        .take(MAX_FILES_NAMED)
        .map(|found| {
            let constraint = crate::lsp::diagnostics_on_write::go_build_constraint(&found.path, root);
            format!(
                "{}:{} uses `{}`, which this write changed (under {}; {})",
                display(&found.path),
                found.line0 + 1,
                found.used_as,
                constraint.summary(),
                constraint.check_sentence()
            )
        })
        .collect();
    let more = if uses.len() > named.len() { format!(" and {} more", uses.len() - named.len()) } else { String::new() };
    Some(format!(
        "NOT checked: {}{more} — {} whose build constraints keep {} out of the build {server_id} checks, so the errors this write causes there cannot show here",
        named.join(", "),
        crate::render::one_or_many(uses.len(), "a file", "files"),
        crate::render::one_or_many(uses.len(), "it", "them"),
    ))
}

/// The note of a gopls `references` answer for `name` naming its uses in `.go` files the build
/// constraints keep out of the one build gopls loads (trial173 F3: `raceEnabled`, declared in
/// slices_test.go and set in `//go:build race` slices_race_test.go, read "2 references in 1 file"
/// without a word, while the rename of it named the file): each file's use lines, its constraint
/// and the command that checks it. `answer_files` are the files of the answer and the queried
/// file (canonical); the name's declaration is looked for in them: a top-level function, type,
/// variable or constant (used bare in its package's directory, `pkg.Name` by importers) or a
/// method (`.Name(`, as [`unbuilt_users`] reads it). `None` when it declares none of them there
/// (a local or a field: no other file names it by itself) or no excluded file uses it. The
/// declaration found must be one of the answer's places (`answer_lines`: canonical path, 0-based
/// line and the server's column of each reference): another symbol of the same name declared in an answer file
/// (a method `Client.Timeout` beside the queried field `Config.Timeout`) is not the one asked
/// about (review50 M2). A method's uses are read by their text `.Name(` whatever the receiver,
/// and said so. Bounded as [`unbuilt_users`], until `deadline`; a search cut short is said.
#[allow(clippy::too_many_arguments)]
pub(crate) fn unbuilt_references_note(
    workspace_root: &Path,
    root: &Path,
    server_id: &str,
    name: &str,
    answer_files: &[PathBuf],
    answer_lines: &[(PathBuf, u32, u32)],
    deadline: Instant,
    display: impl Fn(&Path) -> String,
) -> Option<String> {
    let reader = crate::files::WorkspaceReader::open(workspace_root).ok()?;
    let mut looked_at: Vec<&PathBuf> = Vec::new();
    let declaration = answer_files.iter().find_map(|file| {
        if looked_at.contains(&file) || file.extension().and_then(|ext| ext.to_str()) != Some("go") {
            return None;
        }
        looked_at.push(file);
        let text = reader.read_to_string(file).ok()?;
        let package = package_name(&text)?.to_owned();
        // The declaration's name is one of the answer's places: its line and column (the
        // server's column is UTF-16 or bytes; either matches).
        let in_answer = |line0: usize, line: &str, byte: usize| {
            let columns = [byte as u32, line[..byte].encode_utf16().count() as u32];
            answer_lines
                .iter()
                .any(|(answered, at_line, at_column)| answered == file && *at_line as usize == line0 && columns.contains(at_column))
        };
        let lines: Vec<&str> = text.lines().collect();
        let top_level = crate::lsp::go_build_twins::top_level_declaration_line(&text, name).and_then(|line0| {
            let line = lines.get(line0)?;
            let byte = *crate::lsp::rename_coverage::word_positions(line, name).first()?;
            in_answer(line0, line, byte).then_some(())
        });
        if top_level.is_some() {
            return Some((file.clone(), package, name.to_owned()));
        }
        lines.iter().enumerate().find_map(|(line0, line)| {
            let receiver = crate::lsp::rename_public_api::go_method_receiver(line)?;
            let close = line.find(')')? + 1;
            let after = line[close..].trim_start();
            let declared = after.strip_prefix(name).is_some_and(|rest| rest.starts_with(['(', '[']));
            let byte = close + (line[close..].len() - after.len());
            (declared && in_answer(line0, line, byte)).then(|| (file.clone(), package.clone(), format!("{receiver}.{name}")))
        })
    })?;
    let (declared_in, package, searched) = declaration;
    let mut stopped = None;
    let uses =
        unbuilt_users(workspace_root, root, &declared_in, &package, std::slice::from_ref(&searched), answer_files, deadline, &mut stopped);
    let stopped_said =
        stopped.map(|why| format!(" (the search for them stopped: {why}; files after that point were not searched)")).unwrap_or_default();
    if uses.is_empty() {
        return None;
    }
    let line_count: usize = uses.iter().map(|found| found.lines0.len()).sum();
    let named: Vec<String> = uses
        .iter()
        .take(MAX_FILES_NAMED)
        .map(|found| {
            let constraint = crate::lsp::diagnostics_on_write::go_build_constraint(&found.path, root);
            let lines: Vec<String> = found.lines0.iter().map(|line0| (line0 + 1).to_string()).collect();
            format!(
                "{}:{} (`{}`; under {}; {})",
                display(&found.path),
                lines.join(", "),
                found.used_as,
                constraint.summary(),
                constraint.check_sentence()
            )
        })
        .collect();
    let more = if uses.len() > named.len() { format!(" and {} more", uses.len() - named.len()) } else { String::new() };
    let (using, consequence) = if searched.contains('.') {
        (
            format!("calling a method named `.{name}(` (by text: the receiver's type is not checked)"),
            format!("changing or removing `{searched}` breaks {{}} builds where those calls are on its type"),
        )
    } else {
        (format!("using `{name}`"), format!("changing or removing `{name}` breaks {{}} builds"))
    };
    let consequence = consequence.replace("{}", crate::render::one_or_many(uses.len(), "that file's", "those files'"));
    Some(format!(
        "note: NOT in this list: {} {using} in {} whose build constraints keep {} out of the one build {server_id} loads, so it lists none of them: {}{more}{stopped_said} — {consequence}; read the lines there",
        crate::render::plural(line_count, "line"),
        crate::render::one_or_many(uses.len(), "a file", &format!("{} files", uses.len())),
        crate::render::one_or_many(uses.len(), "it", "them"),
        named.join(", "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_constraints_are_evaluated_for_the_current_target() {
        let excluded = |name: &str, text: &str| excluded_from_build(name, text, "linux", "amd64");
        assert!(excluded("btree_mem.go", "// +build ignore\n\npackage main\n"));
        assert!(excluded("a.go", "//go:build ignore\n\npackage main\n"));
        assert!(!excluded("a.go", "package a\n"));
        assert!(excluded("a_windows.go", "package a\n"));
        assert!(!excluded("a_linux_amd64.go", "package a\n"));
        assert!(excluded("a_linux_arm64.go", "package a\n"));
        assert!(!excluded("a.go", "//go:build !windows\n\npackage a\n"));
        assert!(excluded("a.go", "//go:build windows || (js && wasm)\n\npackage a\n"));
        assert!(!excluded("a.go", "//go:build unix && !(js || wasip1)\n\npackage a\n"));
        assert!(excluded("a.go", "//go:build appengine\n\npackage a\n"));
        assert!(!excluded("a.go", "// +build !appengine,!js\n\npackage a\n"));
        assert!(excluded("a.go", "// +build appengine js\n\npackage a\n"));
        assert!(excluded("a.go", "// +build linux\n// +build arm\n\npackage a\n"));
        assert!(!excluded("a.go", "//go:build go1.18\n\npackage a\n"));
        assert!(!excluded("a.go", "//go:build (linux\n\npackage a\n"), "unparsable: nothing claimed");
    }

    #[test]
    fn changed_methods_and_functions_are_named() {
        let old = "package p\n\nfunc New(d int) *T {\n}\n\nfunc (t *T) Len() int {\n}\n\nfunc (t *T) Has(x int) bool {\n}\n";
        let new =
            "package p\n\nfunc New(d int, name string) *T {\n}\n\nfunc (t *T) Len() int {\n}\n\nfunc (t *T) Has(x, y int) bool {\n}\n";
        assert_eq!(changed_names(old, new), vec!["New".to_owned(), "T.Has".to_owned()]);
    }

    #[test]
    fn a_use_is_told_from_a_declaration_and_a_longer_name() {
        let text = "package main\n\nimport (\n\tb \"example.com/btree\"\n)\n\n// b.New in a comment\nfunc main() {\n\t_ = b.NewWithFreeList\n\t_ = b.New(3)\n}\n";
        assert_eq!(import_name(text, "example.com/btree", "btree"), Some("b"));
        assert_eq!(use_lines(text, "b.New", false), vec![9]);
        assert_eq!(use_lines("package p\n\nfunc New() {}\n\nvar x = New()\n", "New", true), vec![4]);
        assert_eq!(use_lines("package p\n\nvar x = t.New()\n", "New", true), Vec::<usize>::new());
        // Every use line, in order (a references note names them all: trial173 F3).
        assert_eq!(
            use_lines("package p\n\nfunc init() {\n\traceEnabled = true\n\t_ = raceEnabled // raceEnabled\n}\n", "raceEnabled", true),
            vec![3, 4]
        );
    }
}
