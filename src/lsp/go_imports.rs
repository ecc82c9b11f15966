//! Where a Go package's imports are on disk, and whether one of them declares a name (issue 11,
//! the rename check's go vet predictions).
//!
//! go vet's `tests` analyzer reports an `ExampleName` whose `Name` is unknown, and it looks
//! `Name` up in the package's scope *and in the scope of every package the package imports*
//! (`golang.org/x/tools/go/analysis/passes/tests`, `lookup`): after renaming cenkalti/backoff's
//! `Ticker`, `ExampleTicker` is not reported because the package imports `time`, which declares
//! `Ticker` (trial86 F2: the rename predicted a vet report that never came).
//!
//! An import path is resolved as the go command would without a network: the standard library
//! under `$(go env GOROOT)/src`, the nearest go.mod's own module (and its `vendor/`), its
//! `replace` directives to a local directory, and its `require`d modules in the module cache
//! (`$GOMODCACHE`, else `$GOPATH/pkg/mod`, else `~/go/pkg/mod`; upper-case letters escaped as
//! `!` + lower case). Build constraints are not evaluated: every non-test `.go` file of an
//! imported package counts.

use std::path::{Path, PathBuf};

use crate::files::walk_beneath::list_directory;
use crate::lsp::syntax::{GoFileFacts, ParsedSource};

/// The package name a Go file's `package` clause declares (`package uniseg // import "…"` →
/// `uniseg`): the first line starting with `package `; `None` without one.
pub(crate) fn go_package_clause_name(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("package ")).and_then(|rest| rest.split_whitespace().next())
}

/// The most `.go` files read across the imported packages of one lookup; past it the packages
/// not read are said unread.
pub const MAX_IMPORTED_FILES_READ: usize = 600;

/// What [`imported_package_declaring`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ImportedDeclaration {
    /// The import path of the first imported package (in import order) that declares the name.
    DeclaredBy(String),
    /// Every import was read and none declares it.
    NotDeclared,
    /// No import read declares it, but these imports could not be read (not found on disk, past
    /// [`MAX_IMPORTED_FILES_READ`]).
    Unknown {
        /// The import paths not read.
        unread: Vec<String>,
    },
}

/// Whether a package imported by the package of `file` (a `.go` file in the workspace: the
/// imports of every `.go` file in its directory with the same package clause, `_test.go` files
/// included, as go vet analyzes a test package) declares `name` in its package scope. An import
/// of `renamed_package` (the directory of the declaration a rename changes: an external test
/// package imports the package it tests) is left out — its `name` is the one renamed away.
pub(crate) fn imported_package_declaring(workspace_root: &Path, file: &Path, name: &str, renamed_package: &Path) -> ImportedDeclaration {
    let Some(directory) = file.parent() else { return ImportedDeclaration::NotDeclared };
    let Some(own) = go_facts(workspace_root, workspace_root, file) else {
        return ImportedDeclaration::Unknown { unread: vec![format!("(the imports of {}: not parsed)", file.display())] };
    };
    let mut imports: Vec<String> = Vec::new();
    for (path, _) in list_directory(workspace_root, directory) {
        if path.extension().is_none_or(|ext| ext != "go") {
            continue;
        }
        let Some(facts) = (if path == file { Some(own.clone()) } else { go_facts(workspace_root, workspace_root, &path) }) else {
            continue;
        };
        if facts.package != own.package {
            continue;
        }
        for import in facts.imports {
            if import != "C" && !imports.contains(&import) {
                imports.push(import);
            }
        }
    }
    let module = GoModule::nearest(workspace_root, directory);
    let mut unread = Vec::new();
    let mut files_read = 0usize;
    for import in &imports {
        let Some(package_directory) = resolve_import(module.as_ref(), import) else {
            unread.push(import.clone());
            continue;
        };
        if package_directory == renamed_package {
            continue;
        }
        let root = if package_directory.starts_with(workspace_root) { workspace_root } else { package_directory.as_path() };
        let sources: Vec<PathBuf> = list_directory(workspace_root, &package_directory)
            .into_iter()
            .map(|(path, _)| path)
            .filter(|path| path.extension().is_some_and(|ext| ext == "go") && !path.to_string_lossy().ends_with("_test.go"))
            .collect();
        if sources.is_empty() || files_read + sources.len() > MAX_IMPORTED_FILES_READ {
            unread.push(import.clone());
            continue;
        }
        files_read += sources.len();
        if sources.iter().any(|source| {
            go_facts(workspace_root, root, source).is_some_and(|facts| facts.package_scope_names.iter().any(|declared| declared == name))
        }) {
            return ImportedDeclaration::DeclaredBy(import.clone());
        }
    }
    if unread.is_empty() {
        ImportedDeclaration::NotDeclared
    } else {
        ImportedDeclaration::Unknown { unread }
    }
}

/// The facts of the Go file `path`, read beneath `root` (the workspace root, or the dependency
/// directory outside it) with no symlink followed.
fn go_facts(workspace_root: &Path, root: &Path, path: &Path) -> Option<GoFileFacts> {
    let text = if root == workspace_root {
        crate::files::read_workspace_file_to_string(workspace_root, path).ok()?
    } else {
        crate::files::read_dependency_file_to_string(root, path).ok()?
    };
    ParsedSource::parse(path, &text)?.go_file_facts()
}

/// The nearest go.mod at or above a directory (up to the workspace root): its directory, module
/// path, `require`d modules and `replace` directives.
struct GoModule {
    directory: PathBuf,
    path: String,
    /// (module path, version).
    requires: Vec<(String, String)>,
    /// (module path, replacement: a directory — absolute or relative to the go.mod — or a
    /// module path and version).
    replaces: Vec<(String, Replacement)>,
}

enum Replacement {
    Directory(PathBuf),
    Module(String, String),
}

impl GoModule {
    fn nearest(workspace_root: &Path, directory: &Path) -> Option<GoModule> {
        let mut current = Some(directory);
        while let Some(at) = current.filter(|at| at.starts_with(workspace_root)) {
            if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &at.join("go.mod")) {
                return GoModule::parse(at, &text);
            }
            current = at.parent();
        }
        None
    }

    fn parse(directory: &Path, text: &str) -> Option<GoModule> {
        let mut module = GoModule { directory: directory.to_path_buf(), path: String::new(), requires: Vec::new(), replaces: Vec::new() };
        let mut block: Option<&str> = None;
        for line in text.lines() {
            let line = line.split("//").next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if line == ")" {
                block = None;
                continue;
            }
            let (verb, rest) = match block {
                Some(verb) => (verb, line),
                None => {
                    let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                    let rest = rest.trim();
                    if rest == "(" {
                        block = Some(match verb {
                            "require" => "require",
                            "replace" => "replace",
                            _ => "other",
                        });
                        continue;
                    }
                    (verb, rest)
                }
            };
            let words: Vec<&str> = rest.split_whitespace().map(|word| word.trim_matches('"')).collect();
            match verb {
                "module" => module.path = words.first()?.to_string(),
                "require" if words.len() >= 2 => module.requires.push((words[0].to_owned(), words[1].to_owned())),
                "replace" => {
                    let Some(arrow) = words.iter().position(|word| *word == "=>") else { continue };
                    let (Some(from), Some(to)) = (words.first(), words.get(arrow + 1)) else { continue };
                    let replacement = if to.starts_with('.') || to.starts_with('/') {
                        Replacement::Directory(directory.join(to))
                    } else {
                        let Some(version) = words.get(arrow + 2) else { continue };
                        Replacement::Module((*to).to_owned(), (*version).to_owned())
                    };
                    module.replaces.push(((*from).to_owned(), replacement));
                }
                _ => {}
            }
        }
        (!module.path.is_empty()).then_some(module)
    }
}

/// The directory of the package `import` (see the module docs); `None` when it cannot be found.
fn resolve_import(module: Option<&GoModule>, import: &str) -> Option<PathBuf> {
    let first = import.split('/').next().unwrap_or(import);
    if !first.contains('.') {
        if let Some(module) = module.filter(|module| within(import, &module.path).is_some()) {
            return Some(module.directory.join(within(import, &module.path)?));
        }
        return crate::lsp::listing::goroot_sources().iter().map(|sources| sources.join(import)).find(|directory| directory.is_dir());
    }
    let module = module?;
    if let Some(rest) = within(import, &module.path) {
        return Some(module.directory.join(rest));
    }
    let vendored = module.directory.join("vendor").join(import);
    if vendored.is_dir() {
        return Some(vendored);
    }
    // The longest module path the import lies in, replaced or from the module cache.
    let required = module.requires.iter().filter(|(path, _)| within(import, path).is_some()).max_by_key(|(path, _)| path.len())?;
    let rest = within(import, &required.0)?;
    if let Some((_, replacement)) = module.replaces.iter().find(|(from, _)| *from == required.0) {
        return match replacement {
            Replacement::Directory(directory) => Some(directory.join(rest)),
            Replacement::Module(path, version) => Some(module_cache()?.join(format!("{}@{version}", escape_module_path(path))).join(rest)),
        };
    }
    Some(module_cache()?.join(format!("{}@{}", escape_module_path(&required.0), required.1)).join(rest))
}

/// `import` relative to the module path `module` ("" for the module's root package); `None`
/// when it is not in that module.
fn within<'i>(import: &'i str, module: &str) -> Option<&'i str> {
    let rest = import.strip_prefix(module)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// The module cache directory: `$GOMODCACHE`, else the first `$GOPATH` entry's `pkg/mod`, else
/// `~/go/pkg/mod`.
fn module_cache() -> Option<PathBuf> {
    if let Some(cache) = std::env::var_os("GOMODCACHE").filter(|cache| !cache.is_empty()) {
        return Some(PathBuf::from(cache));
    }
    if let Some(gopath) = std::env::var_os("GOPATH").filter(|gopath| !gopath.is_empty()) {
        return std::env::split_paths(&gopath).next().map(|first| first.join("pkg/mod"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join("go/pkg/mod"))
}

/// A module path as the module cache spells it: each upper-case letter as `!` + lower case.
fn escape_module_path(path: &str) -> String {
    let mut escaped = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_uppercase() {
            escaped.push('!');
            escaped.push(c.to_ascii_lowercase());
        } else {
            escaped.push(c);
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_mod_requires_and_replaces_resolve_imports_to_directories() {
        let text = "module github.com/cenkalti/backoff/v4\n\ngo 1.18\n\nrequire (\n\tgithub.com/BurntSushi/toml v1.2.0 // indirect\n\tgolang.org/x/text v0.3.0\n)\nrequire example.com/one v1.0.0\n\nreplace example.com/one => ../one\n";
        let module = GoModule::parse(Path::new("/w/backoff"), text).expect("a module line");
        assert_eq!(module.path, "github.com/cenkalti/backoff/v4");
        assert_eq!(resolve_import(Some(&module), "github.com/cenkalti/backoff/v4/sub"), Some(PathBuf::from("/w/backoff/sub")));
        assert_eq!(resolve_import(Some(&module), "example.com/one/pkg"), Some(PathBuf::from("/w/backoff/../one/pkg")));
        let cache = module_cache().expect("a module cache directory");
        assert_eq!(
            resolve_import(Some(&module), "github.com/BurntSushi/toml/internal"),
            Some(cache.join("github.com/!burnt!sushi/toml@v1.2.0/internal"))
        );
        assert_eq!(resolve_import(Some(&module), "golang.org/x/textual"), None, "a module path is matched by whole segments");
        assert_eq!(within("golang.org/x/text", "golang.org/x/text"), Some(""));
    }
}
