//! Go declarations that stand in files of another build configuration (issue 11, trial30 M1).
//!
//! goldmark's `util.BytesToReadOnlyString` is declared twice: in `util/util_unsafe.go` under
//! `// +build !appengine,!js` and in `util/util_safe.go` under `// +build appengine js`. gopls
//! loads one build configuration (the host's GOOS/GOARCH, no tags), so definition, references and
//! hover name only the first, and nothing said the second exists — an agent changing the
//! function's signature there breaks the `appengine`/`js` build unseen. [`build_twins_note`]
//! scans the Go files of the directories involved for another top-level declaration of the name
//! (`func NAME(`, `type NAME`, `var NAME`, `const NAME`, also inside `var (`/`const (`/`type (`
//! blocks) in a file with a build constraint or a GOOS/GOARCH file-name suffix, and names it with
//! the `go vet` that builds it.

use std::path::{Path, PathBuf};

/// Files read per directory before giving up.
const MAX_FILES_PER_DIRECTORY: usize = 500;

/// The note naming the other declarations of `name` in the Go files of `directories` (absolute,
/// under `root`) that a build constraint keeps out of the current build — every file in `known`
/// (canonical: the answer's own files) left out; `None` when there is none.
pub(crate) fn build_twins_note(
    workspace_root: &Path,
    root: &Path,
    server_id: &str,
    name: &str,
    directories: &[PathBuf],
    known: &[PathBuf],
    display: impl Fn(&Path) -> String,
) -> Option<String> {
    if name.is_empty() {
        return None;
    }
    let mut twins: Vec<String> = Vec::new();
    let mut seen_directories: Vec<&PathBuf> = Vec::new();
    for directory in directories {
        if seen_directories.contains(&directory) || !directory.starts_with(root) {
            continue;
        }
        seen_directories.push(directory);
        // Listed beneath the workspace, no symlink followed (sorted by name).
        let files: Vec<PathBuf> = crate::files::walk_beneath::list_directory(workspace_root, directory)
            .into_iter()
            .filter(|(path, kind)| kind.is_file() && path.extension().is_some_and(|ext| ext == "go"))
            .map(|(path, _)| path)
            .take(MAX_FILES_PER_DIRECTORY)
            .collect();
        for path in files {
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if known.contains(&canonical) {
                continue;
            }
            let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &path) else { continue };
            if !text.contains(name) {
                continue;
            }
            let Some(line0) = top_level_declaration_line(&text, name) else { continue };
            let constraint = crate::lsp::diagnostics_on_write::go_build_constraint(&path, root);
            if constraint.lines.is_empty() && !constraint.named_by_file_name {
                continue;
            }
            // A file the current GOOS/GOARCH builds is in the configuration gopls loads: when
            // gopls left it out, its view is broken, not the build (trial178 M3: hover named
            // `command_notwin.go`'s `//go:build !windows` on linux "a configuration gopls does
            // not load").
            let (os, arch) = crate::lsp::diagnostics_on_write::host_go_target();
            let file_name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            if !crate::lsp::go_unbuilt_users::excluded_from_build(file_name, &text, &os, &arch) {
                continue;
            }
            let builds = match &constraint.older_toolchain {
                Some(release) => format!("only a Go toolchain older than {release} builds it"),
                None => format!("`{}` builds it", constraint.check_command),
            };
            twins.push(format!("{}:{} (under {}; {builds})", display(&path), line0 + 1, constraint.summary()));
        }
    }
    if twins.is_empty() {
        return None;
    }
    Some(format!(
        "note: `{name}` is also declared in {} — a build configuration {server_id} does not load, so its uses and errors under that configuration are NOT in this answer; a change to `{name}`'s signature must be made there too",
        twins.join(", ")
    ))
}

/// The names of the top-level functions and types whose declaration a write from `old` to `new`
/// (a Go file's texts) changed, added or removed: the text of each `func NAME(` / `func NAME[` /
/// `type NAME` line up to its first `{` (the signature as far as that line goes; a signature
/// spread over lines is compared by its first line) differs, or is in one text only. Methods are
/// left out (a method's twin is declared on its type). In order of `new`, then `old`; once each.
/// A body change on a one-line function is no change (its `{ … }` is not compared).
pub(crate) fn changed_declaration_names(old: &str, new: &str) -> Vec<String> {
    let declarations = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter_map(|line| {
                let rest = line.strip_prefix("func ").filter(|rest| !rest.starts_with('(')).or_else(|| line.strip_prefix("type "))?;
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let signature = line.split('{').next().unwrap_or(line).trim_end().to_owned();
                (!name.is_empty()).then_some((name, signature))
            })
            .collect()
    };
    let (old_declarations, new_declarations) = (declarations(old), declarations(new));
    let mut names: Vec<String> = Vec::new();
    for (mine, other) in [(&new_declarations, &old_declarations), (&old_declarations, &new_declarations)] {
        for (name, signature) in mine {
            if !other.iter().any(|(other_name, other_signature)| other_name == name && other_signature == signature)
                && !names.contains(name)
            {
                names.push(name.clone());
            }
        }
    }
    names
}

/// The 0-based line of a top-level declaration of `name` in a Go source: `func name(` or
/// `func name[`, `type name`, `var name`, `const name`, or `name` opening a line inside a
/// `var (`, `const (` or `type (` block.
pub(crate) fn top_level_declaration_line(text: &str, name: &str) -> Option<usize> {
    let mut in_block = false;
    for (index, line) in text.lines().enumerate() {
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else if line.starts_with('\t') || line.starts_with("    ") {
                let trimmed = line.trim_start();
                if trimmed.strip_prefix(name).is_some_and(|rest| rest.starts_with([' ', '\t', '=', ','])) {
                    return Some(index);
                }
            }
            continue;
        }
        for keyword in ["func ", "type ", "var ", "const "] {
            let Some(rest) = line.strip_prefix(keyword) else { continue };
            if rest.starts_with('(') && keyword != "func " {
                in_block = true;
                continue;
            }
            if rest.strip_prefix(name).is_some_and(|after| after.starts_with(['(', '[', ' ', '\t', '='])) {
                return Some(index);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_declarations_are_found_and_methods_and_uses_are_not() {
        let text = "// +build appengine js\n\npackage util\n\nfunc BytesToReadOnlyString(b []byte) string {\n\treturn string(b)\n}\n\nfunc (s *S) Method() {}\n\nvar (\n\tLimit = 3\n)\n\nconst Max int = 1\n\ntype Pair[T any] struct{}\n";
        assert_eq!(top_level_declaration_line(text, "BytesToReadOnlyString"), Some(4));
        assert_eq!(top_level_declaration_line(text, "Method"), None, "a method");
        assert_eq!(top_level_declaration_line(text, "Limit"), Some(11));
        assert_eq!(top_level_declaration_line(text, "Max"), Some(14));
        assert_eq!(top_level_declaration_line(text, "Pair"), Some(16));
        assert_eq!(top_level_declaration_line(text, "string"), None);
        assert_eq!(top_level_declaration_line(text, "Bytes"), None, "a prefix of a name");
    }

    #[test]
    fn changed_declaration_names_are_the_functions_and_types_whose_line_changed() {
        // trial139 F1: go-runewidth's `IsEastAsian` gained a parameter.
        let old = "package runewidth\n\nfunc IsEastAsian() bool {\n\treturn false\n}\n\nfunc (c *Condition) Width() int {\n\treturn 1\n}\n";
        let new = "package runewidth\n\nfunc IsEastAsian(getenv func(string) string) bool {\n\treturn false\n}\n\nfunc (c *Condition) Width(x int) int {\n\treturn 1\n}\n";
        assert_eq!(changed_declaration_names(old, new), vec!["IsEastAsian".to_owned()]);
        assert!(changed_declaration_names(old, old).is_empty());
        // A body change on a one-line function keeps its signature.
        let one_line = "package tags\n\nfunc hardware() string { return \"eth0\" }\n";
        assert!(changed_declaration_names(one_line, &one_line.replace("\"eth0\"", "1")).is_empty());
        assert_eq!(changed_declaration_names(one_line, &one_line.replace("() string", "() int")), vec!["hardware".to_owned()]);
    }
}
