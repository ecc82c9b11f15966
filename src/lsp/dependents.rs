//! The files a write can break, found by scanning source text: Python modules that import the
//! written module, C/C++ files that include the written header. Used by diagnostics on write for
//! servers that check only open files (pyright, basedpyright, clangd; see
//! [`crate::lsp::WriteCheck::OpenImporters`]).
//!
//! The scan over-approximates on purpose: a file counts as an importer when one of its import
//! statements names the written module's last component (`pkg/util.py` → any `import …util…`,
//! `from …util import`, `from … import util`), so a few extra files may be checked; it follows
//! re-exports one module at a time (an importing `__init__.py` makes the importers of its package
//! dependents too, a module importing names from it by name makes its importers that name them
//! dependents; an including header makes its includers dependents). Files under
//! `node_modules`, `target`, `.git`, `.venv`, `venv`, `__pycache__` and hidden directories are not
//! scanned. Bounded: at most [`SCAN_FILES_CAP`] files are read per scan, and the caller's cap
//! bounds the answer (the total found is reported).

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::files::WorkspaceReader;

/// At most this many candidate files are read per scan (a larger tree is scanned partially and
/// the result says so).
pub const SCAN_FILES_CAP: usize = 20_000;

/// What a scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dependents {
    /// The dependent files (absolute), at most the cap, nearest first (direct importers before
    /// importers of re-exporting files), then by path.
    pub files: Vec<PathBuf>,
    /// How many dependents were found in all (≥ `files.len()`).
    pub total_found: usize,
    /// The scan stopped at [`SCAN_FILES_CAP`] files: there may be more dependents.
    pub scan_incomplete: bool,
    /// Every dependent found (not capped) that reaches the written file only through another
    /// file: a Python file that imports a package whose `__init__.py` imports the written module
    /// (importing the package runs it; itsdangerous 2.2.0: `tests/test_encoding.py` imports
    /// `itsdangerous.encoding` only, yet depends on `serializer.py` through the package), or that
    /// imports a module re-exporting names of it and names one of them, a C/C++
    /// translation unit that includes a header that includes the written one. The answer says
    /// how many of the checked importers are such (trial19py M3: "files that import it" read as
    /// direct importers).
    pub found_through_another_file: Vec<PathBuf>,
    /// Python: the modules besides the written one whose importers were followed, because they
    /// re-export it or names of it: an `__init__.py` that imports it, and any other module that
    /// imports a name from it by name (`from ._execution import _multicall` in pluggy 1.7.0's
    /// compatibility shim `_callers.py`, trial166 F1). An importer that imports a name from one
    /// of these imports it from the written module. Empty for C/C++.
    pub reexporting_modules: Vec<PathBuf>,
}

/// Python files under `root` that import `written` (a `.py`/`.pyi` file), directly or through
/// a module that re-exports it; at most `cap`. Absolute imports are matched by module name
/// (a dotted component, or a name imported from a package); relative imports (`from . import
/// wrap`, `from .. import BaseConverter`, `from .mod import name`) are resolved against the
/// importing file's package and matched by path, since their module part does not name the
/// package they import from (cattrs 24.1.2: the nine `preconf/*.py` converters import `wrap` with
/// `from . import wrap`).
///
/// Re-exports are followed two ways. An `__init__.py` that imports a followed module makes every
/// importer of its package a dependent (importing the package runs it). Any other module that
/// imports names by name from a followed module (`from ._execution import _multicall` in pluggy
/// 1.7.0's shim `_callers.py`, listed in its `__all__` or not) re-exports those names: its
/// importers that name one of them (a whole word) are dependents, and are followed in turn for
/// the names they import from it (trial166 F1: `_manager.py` and the tests import `_multicall`
/// through the shim; a signature change broke them and the scan stopped at the shim). The
/// importers of such a module are looked up in an index of the words of every file's import
/// statements, built once, so a write to a module most of the project imports `from` does not
/// re-read every file once per importer. Every file is read beneath a handle of
/// `workspace_root` (the run's root), never of `root`: a server root is a directory inside the
/// workspace, which a concurrent swap can turn into a symlink to outside, and a handle opened on
/// it would follow that link (issue 13 §1).
pub fn python_importers(workspace_root: &Path, root: &Path, written: &Path, cap: usize) -> Dependents {
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return finish(Vec::new(), cap, true, Vec::new()) };
    let (sources, scan_incomplete) = source_files(&reader, root, &["py", "pyi"]);
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    seen.insert(written.to_path_buf());
    let mut found_through_another_file: Vec<PathBuf> = Vec::new();
    let mut reexporting_modules: Vec<PathBuf> = Vec::new();
    // Each imported module with the names of it that are followed (`None`: the whole module —
    // the written one, an `__init__.py` importing it): the written one first.
    let mut queue: VecDeque<(PathBuf, Option<Vec<String>>)> = VecDeque::from([(written.to_path_buf(), None)]);
    let mut targets_done: HashSet<PathBuf> = HashSet::new();
    // The words of each file's import statements → the files (indices into `sources`), built
    // when a re-exporting module that is not an `__init__.py` is first followed.
    let mut import_words: Option<std::collections::HashMap<String, Vec<usize>>> = None;
    while let Some((target, followed_names)) = queue.pop_front() {
        if !targets_done.insert(target.clone()) {
            continue;
        }
        if target != written {
            reexporting_modules.push(target.clone());
        }
        let name = python_module_name(&target);
        let target_is_package = target.file_stem().is_some_and(|stem| stem == "__init__");
        // A module file is imported under its stem only (`import a.mod`, `from .mod import x`,
        // `from . import mod`): its importers are among the files whose import statements name it.
        let candidates: Vec<usize> = match (&followed_names, &name) {
            (Some(_), Some(stem)) if !target_is_package => {
                let index = import_words.get_or_insert_with(|| python_import_word_index(&sources));
                index.get(stem).cloned().unwrap_or_default()
            }
            _ => (0..sources.len()).collect(),
        };
        let dotted = python_dotted_module_name(&reader, &target);
        for at in candidates {
            let (path, text) = &sources[at];
            if seen.contains(path) {
                continue;
            }
            if let Some(names) = &followed_names {
                if !names.iter().any(|followed| crate::lsp::position::contains_word(text, followed)) {
                    continue;
                }
            }
            let by_name = name.as_deref().is_some_and(|name| text.contains(name) && python_text_imports(text, name));
            if !(by_name || (text.contains("from .") && python_text_imports_relatively(path, text, &target))) {
                continue;
            }
            let imported = python_names_imported_from(path, text, &target, dotted.as_deref());
            // The followed names this file binds from the target: imported by name, through a
            // star import (the ones it names), or none.
            let bound: Vec<String> = match &followed_names {
                None => imported.into_iter().filter(|(imported, _)| imported != "*").map(|(_, bound)| bound).collect(),
                Some(names) => {
                    let star = imported.iter().any(|(imported, _)| imported == "*");
                    let mut bound: Vec<String> = imported
                        .into_iter()
                        .filter(|(imported, _)| names.contains(imported))
                        .map(|(_, bound)| bound)
                        .chain(names.iter().filter(|name| star && crate::lsp::position::contains_word(text, name)).cloned())
                        .collect();
                    bound.sort();
                    bound.dedup();
                    // A file that imports the module itself reaches a re-exported name as an
                    // attribute (`shim.f`, `pkg.shim.f`); one that imports other names from it
                    // does not reach them.
                    let as_attribute =
                        name.as_deref().is_some_and(|module| names.iter().any(|followed| text.contains(&format!("{module}.{followed}"))));
                    if bound.is_empty() && !as_attribute {
                        continue;
                    }
                    bound
                }
            };
            seen.insert(path.clone());
            found.push(path.clone());
            if target != written {
                found_through_another_file.push(path.clone());
            }
            let is_package = path.file_name().is_some_and(|file| file == "__init__.py");
            if is_package && followed_names.is_none() {
                queue.push_back((path.clone(), None));
            } else if !bound.is_empty() {
                queue.push_back((path.clone(), Some(bound)));
            }
        }
    }
    let mut dependents = finish(found, cap, scan_incomplete, found_through_another_file);
    dependents.reexporting_modules = reexporting_modules;
    dependents
}

/// Every word (identifier or dotted-name component) of each file's import statements → the
/// indices (into `sources`) of the files whose import statements hold it, each once.
fn python_import_word_index(sources: &[(PathBuf, String)]) -> std::collections::HashMap<String, Vec<usize>> {
    let mut index: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
    for (at, (_, text)) in sources.iter().enumerate() {
        let mut words: HashSet<&str> = HashSet::new();
        let statements = python_import_statements(text);
        for statement in &statements {
            words.extend(statement.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|word| !word.is_empty()));
        }
        for word in words {
            index.entry(word.to_owned()).or_default().push(at);
        }
    }
    index
}

/// The names `text` (the Python file at `importer`) imports by name from the module file
/// `module`, as `(imported, bound)` pairs (`from .m import a, b as c` → `(a, a)`, `(b, c)`), in
/// statement order: `from MODULE import …` whose MODULE is relative and resolves (from the
/// importer's package) to `module`, or is absolute and equals `module_dotted`
/// ([`python_dotted_module_name`]). A star import gives `("*", "*")`.
fn python_names_imported_from(importer: &Path, text: &str, module: &Path, module_dotted: Option<&str>) -> Vec<(String, String)> {
    let mut names = Vec::new();
    for statement in python_import_statements(text) {
        let statement = statement.replace(['(', ')'], " ");
        let mut words = statement.split_whitespace();
        if words.next() != Some("from") {
            continue;
        }
        let Some(module_text) = words.next() else { continue };
        let resolves = if module_text.starts_with('.') {
            python_relative_module(importer, module_text)
                .is_some_and(|(module_dir, names_a_file)| python_module_file_is(&module_dir, names_a_file, module))
        } else {
            module_dotted == Some(module_text)
        };
        let Some((_, imported)) = statement.split_once(" import ").filter(|_| resolves) else { continue };
        for item in imported.split(',') {
            let item: Vec<&str> = item.split_whitespace().collect();
            match item.as_slice() {
                [name] => names.push(((*name).to_owned(), (*name).to_owned())),
                [name, "as", alias] => names.push(((*name).to_owned(), (*alias).to_owned())),
                _ => (),
            }
        }
    }
    names
}

/// C/C++ translation units under `root` that include `written` (a header), directly or through
/// headers that include it; at most `cap`. Headers on the way are followed, not returned.
/// Read beneath `workspace_root`, as [`python_importers`].
pub fn c_includers(workspace_root: &Path, root: &Path, written: &Path, cap: usize) -> Dependents {
    let extensions = ["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "inl", "ipp"];
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return finish(Vec::new(), cap, true, Vec::new()) };
    let (sources, scan_incomplete) = source_files(&reader, root, &extensions);
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    seen.insert(written.to_path_buf());
    let mut found_through_another_file: Vec<PathBuf> = Vec::new();
    let mut queue: VecDeque<PathBuf> = VecDeque::from([written.to_path_buf()]);
    while let Some(header) = queue.pop_front() {
        let Some(file_name) = header.file_name().and_then(|name| name.to_str()).map(str::to_owned) else { continue };
        for (path, text) in &sources {
            if seen.contains(path) || !text.contains(file_name.as_str()) {
                continue;
            }
            if c_text_includes(text, &header) {
                seen.insert(path.clone());
                if is_translation_unit(path) {
                    found.push(path.clone());
                    if header != written {
                        found_through_another_file.push(path.clone());
                    }
                } else {
                    queue.push_back(path.clone());
                }
            }
        }
    }
    finish(found, cap, scan_incomplete, found_through_another_file)
}

/// Whether `path` is a C/C++ header (by extension).
pub fn is_c_header(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("h" | "hh" | "hpp" | "hxx" | "inl" | "ipp"))
}

fn is_translation_unit(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "cc" | "cpp" | "cxx"))
}

fn finish(mut found: Vec<PathBuf>, cap: usize, scan_incomplete: bool, found_through_another_file: Vec<PathBuf>) -> Dependents {
    let total_found = found.len();
    found.truncate(cap);
    Dependents { files: found, total_found, scan_incomplete, found_through_another_file, reexporting_modules: Vec::new() }
}

/// The dotted import name of the module file `path` (`src/attrs/__init__.py` → `attrs`,
/// `src/attr/_funcs.py` → `attr._funcs`): its stem, under every enclosing directory that holds
/// an `__init__.py` or `__init__.pyi`.
pub(crate) fn python_dotted_module_name(reader: &WorkspaceReader, path: &Path) -> Option<String> {
    let mut segments: Vec<String> = Vec::new();
    let stem = path.file_stem()?.to_str()?;
    if stem != "__init__" {
        segments.push(stem.to_owned());
    }
    let mut directory = path.parent()?;
    loop {
        let is_package = ["__init__.py", "__init__.pyi"].iter().any(|init| reader.open_file(&directory.join(init)).is_ok());
        if !is_package {
            break;
        }
        segments.push(directory.file_name()?.to_str()?.to_owned());
        directory = directory.parent()?;
    }
    segments.reverse();
    (!segments.is_empty()).then(|| segments.join("."))
}

/// Whether Python `text` (the file at `importer`) imports `name` by name from the module file
/// `module` (`.py` or `.pyi`): `from .mod import name` resolved from the importer's package, `from
/// pkg.mod import name` from one of its ancestor directories or by `module`'s dotted name
/// ([`python_dotted_module_name`]: a `src/` layout's tests import `attr._make` from beside `src`).
pub(crate) fn python_imports_name_from(reader: &WorkspaceReader, importer: &Path, text: &str, name: &str, module: &Path) -> bool {
    if crate::lsp::rename_python_imports::imports_renamed_name_from(importer, text, name, &[module.to_path_buf()]).is_some() {
        return true;
    }
    let Some(dotted) = python_dotted_module_name(reader, module) else { return false };
    python_import_statements(text).iter().any(|statement| {
        let statement = statement.replace(['(', ')'], " ");
        statement.trim_start().strip_prefix("from ").and_then(|rest| rest.trim_start().strip_prefix(dotted.as_str())).is_some_and(|rest| {
            rest.strip_prefix(" import ")
                .is_some_and(|imported| imported.split(',').any(|item| item.split_whitespace().next() == Some(name)))
        })
    })
}

/// The name other modules use for `path`: the file stem, or the package directory's name for an
/// `__init__.py`.
fn python_module_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    if stem == "__init__" {
        return path.parent()?.file_name()?.to_str().map(str::to_owned);
    }
    Some(stem.to_owned())
}

/// Whether one of `text`'s import statements names module `name` (a dotted component of the
/// imported module, or a name imported from a package).
fn python_text_imports(text: &str, name: &str) -> bool {
    for statement in python_import_statements(text) {
        let statement = statement.replace(['(', ')'], " ");
        let words: Vec<&str> = statement.split_whitespace().collect();
        match words.first().copied() {
            Some("import") => {
                let modules = statement.trim_start().trim_start_matches("import");
                for module in modules.split(',') {
                    let module = module.split_whitespace().next().unwrap_or("");
                    if module.split('.').any(|component| component == name) {
                        return true;
                    }
                }
            }
            Some("from") => {
                let module = words.get(1).copied().unwrap_or("");
                if module.split('.').any(|component| component == name) {
                    return true;
                }
                if let Some((_, imported)) = statement.split_once(" import ") {
                    for item in imported.split(',') {
                        if item.split_whitespace().next() == Some(name) {
                            return true;
                        }
                    }
                }
            }
            _ => (),
        }
    }
    false
}

/// Whether one of `text`'s relative imports (`from . import a`, `from ..pkg.mod import b`), read
/// as the file at `importer` would run it, imports the file `target`: the module it names is
/// `target` (`mod.py`/`mod.pyi`, or a package's `__init__.py`/`__init__.pyi`), or one of the
/// imported names is the submodule `target`.
fn python_text_imports_relatively(importer: &Path, text: &str, target: &Path) -> bool {
    for statement in python_import_statements(text) {
        let statement = statement.replace(['(', ')'], " ");
        let mut words = statement.split_whitespace();
        if words.next() != Some("from") {
            continue;
        }
        let Some(module) = words.next().filter(|module| module.starts_with('.')) else { continue };
        let Some((module_dir, names_a_file)) = python_relative_module(importer, module) else { continue };
        if python_module_file_is(&module_dir, names_a_file, target) {
            return true;
        }
        if let Some((_, imported)) = statement.split_once(" import ") {
            for item in imported.split(',') {
                let Some(item) = item.split_whitespace().next().filter(|item| *item != "*") else { continue };
                if python_module_file_is(&module_dir.join(item), true, target) {
                    return true;
                }
            }
        }
    }
    false
}

/// The module a relative import's module part (`.`, `..pkg.mod`) names, read as the file at
/// `importer` would run it: its path without extension, and whether it may be a module file
/// (`false` for dots alone, which name a package). `None` when the dots climb above the root.
fn python_relative_module(importer: &Path, module: &str) -> Option<(PathBuf, bool)> {
    let package = importer.parent()?;
    let dots = module.chars().take_while(|&c| c == '.').count();
    let base = (1..dots).try_fold(package, |dir, _| dir.parent())?;
    let rest = &module[dots..];
    let module_dir = rest.split('.').filter(|part| !part.is_empty()).fold(base.to_path_buf(), |dir, part| dir.join(part));
    Some((module_dir, !rest.is_empty()))
}

/// Whether `target` is the module at `module` (a path without extension): its package's
/// `__init__.py`/`__init__.pyi`, or (`may_be_file`) `module.py`/`module.pyi`.
fn python_module_file_is(module: &Path, may_be_file: bool, target: &Path) -> bool {
    let in_package =
        target.parent() == Some(module) && matches!(target.file_name().and_then(|n| n.to_str()), Some("__init__.py" | "__init__.pyi"));
    let as_file = may_be_file
        && target.parent() == module.parent()
        && target.file_stem() == module.file_name()
        && matches!(target.extension().and_then(|e| e.to_str()), Some("py" | "pyi"));
    in_package || as_file
}

/// The `import …` / `from … import …` statements of `text`, each joined onto one line
/// (parenthesized lists and backslash continuations followed).
fn python_import_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if !(trimmed.starts_with("import ") || trimmed.starts_with("from ")) {
            continue;
        }
        let mut statement = trimmed.split('#').next().unwrap_or("").to_owned();
        loop {
            let open = statement.matches('(').count() > statement.matches(')').count();
            let continued = statement.trim_end().ends_with('\\');
            if !open && !continued {
                break;
            }
            let Some(next) = lines.next() else { break };
            if continued {
                statement = statement.trim_end().trim_end_matches('\\').to_owned();
            }
            statement.push(' ');
            statement.push_str(next.split('#').next().unwrap_or(""));
        }
        statements.push(statement);
    }
    statements
}

/// Whether `text` has an `#include` whose path names `header` (same file name, and the written
/// path ends with the included path).
fn c_text_includes(text: &str, header: &Path) -> bool {
    for line in text.lines() {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix('#') else { continue };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("include") else { continue };
        let rest = rest.trim();
        let included = if let Some(inner) = rest.strip_prefix('"') {
            inner.split('"').next()
        } else if let Some(inner) = rest.strip_prefix('<') {
            inner.split('>').next()
        } else {
            None
        };
        let Some(included) = included else { continue };
        let included = Path::new(included);
        let relative: PathBuf = included.components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
        if !relative.as_os_str().is_empty() && header.ends_with(&relative) {
            return true;
        }
    }
    false
}

/// The files under `root` with one of `extensions`, with their text (unreadable files skipped),
/// sorted by path; `true` when the walk stopped at [`SCAN_FILES_CAP`]. Each file is read beneath
/// `reader`'s root (opened once by the caller), no symlink followed.
fn source_files(reader: &WorkspaceReader, root: &Path, extensions: &[&str]) -> (Vec<(PathBuf, String)>, bool) {
    let mut files = Vec::new();
    // Listed beneath the same handle, no symlink followed: a directory swapped for a symlink to
    // outside is neither listed nor entered (issue 13 §1).
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return (files, true) };
    let walker = walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__", "site-packages"]).iter();
    // Paths as the servers name them: the root canonicalized once (it is trusted), the
    // listed components (no symlink among them) joined to it.
    let canonical_root = std::fs::canonicalize(reader.root()).unwrap_or_else(|_| reader.root().to_path_buf());
    let mut incomplete = false;
    for entry in walker.flatten() {
        if !entry.is_file() {
            continue;
        }
        let path = entry.path();
        let Some(extension) = path.extension().and_then(|e| e.to_str()) else { continue };
        if !extensions.contains(&extension) {
            continue;
        }
        if files.len() >= SCAN_FILES_CAP {
            incomplete = true;
            break;
        }
        if let Ok(text) = reader.read_to_string(path) {
            files.push((canonical_root.join(entry.relative()), text));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    (files, incomplete)
}

/// The doc-tests of the crate a written Rust file belongs to (`cargo check` does not compile
/// them, `cargo test --doc` does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustDocTests {
    /// The package name from the crate's `Cargo.toml`.
    pub crate_name: String,
    /// The crate's directory (where its `Cargo.toml` is).
    pub manifest_dir: PathBuf,
    /// Doc-test code blocks in the whole crate's library sources (and a README it includes as
    /// docs).
    pub total: usize,
    /// How many files hold them.
    pub files: usize,
    /// Of `total`, the ones in the written file.
    pub in_written: usize,
    /// The scan stopped at [`SCAN_FILES_CAP`] files: there may be more.
    pub scan_incomplete: bool,
    /// The doc-tests whose code names one of the changed names passed in (a word search): the
    /// file, the 1-based line of the opening fence (the line `cargo test --doc` names), the name;
    /// in file order, at most [`DOC_TESTS_NAMED`].
    pub using_changed: Vec<(PathBuf, usize, String)>,
    /// How many doc-tests name a changed name in all (beyond the ones in `using_changed` too).
    pub using_changed_total: usize,
}

/// At most this many doc-tests that use a changed name are named: 8.
pub const DOC_TESTS_NAMED: usize = 8;

/// The doc-tests of the library crate that holds `written` (a `.rs` file under `root`): the
/// nearest `Cargo.toml` above it with a `[package]`; its library sources (the directory of
/// `src/lib.rs` or the `[lib] path`, without `tests/`, `benches/`, `examples/`) are scanned for
/// code blocks in doc comments (`///`, `//!`, `/** */`, `/*! */`) that rustdoc compiles (no info string, or only
/// rustdoc's own attributes such as `rust`, `no_run`, `should_panic`, `compile_fail`,
/// `edition2021`; `ignore` and other languages are not compiled), plus those of a Markdown file
/// a library source includes as docs (`#![doc = include_str!(…)]`, `#[doc = include_str!(…)]`
/// on an item, `doc_comment::doctest!(…)`: see [`included_docs`]), counted with the including
/// file. `None` when the crate has no library target or no
/// doc-test. Read beneath `workspace_root`, as [`python_importers`].
/// The doc-tests whose code names one of `changed` (item names; a macro's ends in `!`) are named
/// in [`RustDocTests::using_changed`] (trial159 M4: a signature change broke the doc-test of
/// `try_extend_from_slice` at arrayvec.rs:553, and the write said only "NOT checked: the
/// doc-tests of crate arrayvec (about 44 …)").
pub fn rust_doc_tests(workspace_root: &Path, root: &Path, written: &Path, changed: &[String]) -> Option<RustDocTests> {
    // The manifest, sources and included documents are read beneath the run's root, never
    // beneath a handle of `root` (the server's root, which a swap could make a symlink).
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let RustLibrary { crate_name, manifest_dir, lib_dir, .. } = rust_library_with(&reader, root, written)?;
    let (sources, scan_incomplete) = source_files(&reader, &lib_dir, &["rs"]);
    let written = std::fs::canonicalize(written).unwrap_or_else(|_| written.to_path_buf());
    let (mut total, mut files, mut in_written) = (0, 0, 0);
    let (mut using_changed, mut using_changed_total) = (Vec::new(), 0usize);
    let mut note_uses = |path: &Path, blocks: Vec<DocTestCode>, line_of: &dyn Fn(usize) -> usize| {
        for block in blocks {
            let Some(name) = block.code.iter().find_map(|line| crate::lsp::inactive::changed_name_used(line, changed)) else { continue };
            using_changed_total += 1;
            if using_changed.len() < DOC_TESTS_NAMED {
                using_changed.push((path.to_path_buf(), line_of(block.fence) + 1, name.clone()));
            }
        }
    };
    for (path, text) in &sources {
        let relative = path.strip_prefix(&lib_dir).unwrap_or(path);
        if relative.components().next().is_some_and(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches" | "examples"))) {
            continue;
        }
        // One doc comment at a time: a fence left open closes at the end of its comment
        // (CommonMark), not at the next comment's opening fence (smallvec 1.16.6 counted 18 for
        // rustdoc's 14). Block doc comments (`/** */`, `/*! */`) count as well (bitflags 2.13.2
        // has 18 of its 20 doc-tests in them).
        let lines = crate::lsp::position::split_lines(text);
        let doc = crate::lsp::doc_tests::doc_comment_lines(&lines);
        let mut count = 0;
        let mut index = 0;
        while index < lines.len() {
            let Some(comment) = doc[index].map(|line| line.comment) else {
                index += 1;
                continue;
            };
            let first = index;
            while doc.get(index).copied().flatten().is_some_and(|line| line.comment == comment) {
                index += 1;
            }
            let blocks = rust_doc_test_code((first..index).map(|line| crate::lsp::doc_tests::doc_comment_text(&lines, &doc, line)));
            count += blocks.len();
            if !changed.is_empty() {
                note_uses(path, blocks, &|fence| first + fence);
            }
        }
        // Markdown the file includes as docs, relative to the file (`include_str!` semantics):
        // the crate root's `#![doc = include_str!("../README.md")]`, an item's `#[doc = …]`, or
        // `doc_comment::doctest!("../README.md")` (trial167 F1: walkdir's 4 README doc-tests
        // were not counted, "about 16" for rustdoc's 20).
        for markdown in included_docs(text) {
            let Some(folder) = path.parent() else { continue };
            let markdown = crate::files::path::lexically_normal(&folder.join(&markdown));
            if let Ok(included) = reader.read_to_string(&markdown) {
                let blocks = rust_doc_test_code(included.lines());
                count += blocks.len();
                if !changed.is_empty() {
                    note_uses(&markdown, blocks, &|fence| fence);
                }
            }
        }
        if count > 0 {
            total += count;
            files += 1;
            if *path == written {
                in_written = count;
            }
        }
    }
    (total > 0).then_some(RustDocTests {
        crate_name,
        manifest_dir,
        total,
        files,
        in_written,
        scan_incomplete,
        using_changed,
        using_changed_total,
    })
}

/// The library target of a cargo package (see [`rust_library_with`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustLibrary {
    /// `[package] name`.
    pub crate_name: String,
    /// The package's directory (where its `Cargo.toml` is).
    pub manifest_dir: PathBuf,
    /// The library's root file (`src/lib.rs` or the `[lib] path`).
    pub lib_path: PathBuf,
    /// The directory of `lib_path`, lexically normal.
    pub lib_dir: PathBuf,
}

/// The other build targets of a package whose library has errors: cargo (`cargo check
/// --all-targets`, rust-analyzer's flycheck) never starts the targets that depend on a library
/// that failed to compile, so their diagnostics are unknown, not clean (arrayvec 0.7.6: a
/// breaking edit of `ArrayVec::truncate` left `tests/tests.rs:255` broken while the write said
/// "no new errors in the other files of the checked project").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustLibraryDependents {
    /// The package name from the crate's `Cargo.toml`.
    pub crate_name: String,
    /// The crate's directory (where its `Cargo.toml` is).
    pub manifest_dir: PathBuf,
    /// The root files (absolute, sorted) of the package's targets besides the library, found by
    /// cargo's layout conventions: `src/main.rs`, `src/bin/*.rs`, `src/bin/*/main.rs`, and the
    /// `*.rs` / `*/main.rs` under `tests/`, `benches/`, `examples/` (targets declared at other
    /// paths in the manifest are not found).
    pub targets: Vec<PathBuf>,
}

/// When `file` (a `.rs` file under `root` with a compiler error) belongs to the library target
/// of its package — the nearest `Cargo.toml` above it with a `[package]`, whose library is
/// `src/lib.rs` or the `[lib] path`; the file lies under the library's directory and is not a
/// binary's (`src/main.rs`, `src/bin/`) — the package's other targets, which cargo did not
/// compile. `None` when the file is not library code or the package has no other target. Read
/// beneath `workspace_root`, as [`rust_doc_tests`].
pub fn rust_library_dependents(workspace_root: &Path, root: &Path, file: &Path) -> Option<RustLibraryDependents> {
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let RustLibrary { crate_name, manifest_dir, lib_dir, .. } = rust_library_with(&reader, root, &file)?;
    if !is_library_code(&manifest_dir, &lib_dir, &file) {
        return None;
    }
    let targets = layout_targets(&reader, &manifest_dir, true);
    (!targets.is_empty()).then_some(RustLibraryDependents { crate_name, manifest_dir, targets })
}

/// Whether `file` (canonical) is code of the library whose directory is `lib_dir` in the package
/// at `manifest_dir`: beneath `lib_dir`, and neither a binary's (`src/main.rs`, `src/bin/`) nor a
/// test's, bench's or example's.
fn is_library_code(manifest_dir: &Path, lib_dir: &Path, file: &Path) -> bool {
    let src = manifest_dir.join("src");
    if !file.starts_with(lib_dir) || file == src.join("main.rs") || file.starts_with(src.join("bin")) {
        return false;
    }
    !["tests", "benches", "examples"].iter().any(|folder| file.starts_with(manifest_dir.join(folder)))
}

/// The root files (absolute, sorted) of the package at `manifest_dir`'s targets besides the
/// library, by cargo's layout conventions: with `binaries`, `src/main.rs`, `src/bin/*.rs` and
/// `src/bin/*/main.rs`; always the `*.rs` / `*/main.rs` under `tests/`, `benches/`, `examples/`.
fn layout_targets(reader: &WorkspaceReader, manifest_dir: &Path, binaries: bool) -> Vec<PathBuf> {
    let src = manifest_dir.join("src");
    let mut targets = Vec::new();
    if binaries && src.join("main.rs").is_file() {
        targets.push(src.join("main.rs"));
    }
    let mut folders = vec![manifest_dir.join("tests"), manifest_dir.join("benches"), manifest_dir.join("examples")];
    if binaries {
        folders.insert(0, src.join("bin"));
    }
    for folder in folders {
        if !folder.is_dir() {
            continue;
        }
        let (sources, _) = source_files(reader, &folder, &["rs"]);
        for (path, _) in sources {
            let Ok(relative) = path.strip_prefix(&folder) else { continue };
            let depth = relative.components().count();
            if depth == 1 || (depth == 2 && relative.file_name().is_some_and(|name| name == "main.rs")) {
                targets.push(path);
            }
        }
    }
    targets.sort();
    targets.dedup();
    targets
}

/// A cargo package of the workspace that depends on a written library by `path` dependencies,
/// directly or through other packages of the workspace (see [`rust_workspace_dependents`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustDependentPackage {
    /// `[package] name`.
    pub crate_name: String,
    /// The package's directory (where its `Cargo.toml` is).
    pub manifest_dir: PathBuf,
    /// Only a `[dev-dependencies]` entry leads to the library: the package's own library and
    /// binaries build without it; its tests, benches, examples and doc-tests link it.
    pub dev_only: bool,
    /// The root files (absolute, sorted) of the package's targets that link the library: its
    /// library root and binaries (unless `dev_only`), and its tests, benches and examples, by
    /// cargo's layout conventions (targets declared at other paths are not found).
    pub targets: Vec<PathBuf>,
    /// The `.rs` files (absolute, sorted) of the package's library when it links the library
    /// (not `dev_only`): a written one of them was not compiled either when the library failed.
    pub library_files: Vec<PathBuf>,
}

/// The written library and the workspace packages that depend on it (see
/// [`rust_workspace_dependents`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustWorkspaceDependents {
    /// The library target of the package holding the file asked about.
    pub library: RustLibrary,
    /// The packages under the root that depend on it, sorted by name.
    pub dependents: Vec<RustDependentPackage>,
}

/// When `file` (a `.rs` file under `root`) is library code of its package (see
/// [`rust_library_dependents`]), the other cargo packages under `root` that depend on that
/// library (trial175 F2/M2: a write to the proc-macro crate `thiserror-impl` broke the doc-tests
/// of `thiserror`, which expand its derive, and its failure kept cargo from compiling any target
/// of `thiserror`, while the write said "checked: … the whole cargo workspace"). The
/// dependencies are read from each package's `Cargo.toml` (every `Cargo.toml` with a `[package]`
/// under `root`, a nested one with its own `[workspace]` table left out — another workspace):
/// `path` entries of `[dependencies]`, `[build-dependencies]` and `[dev-dependencies]`, also under
/// `[target.'…']`, a `{ workspace = true }` entry resolved through the `[workspace.dependencies]`
/// of `root`'s manifest. A package depends on the library when one of its normal or build
/// dependencies is the library or a package that does (followed to the end); a package whose
/// dev-dependency is one of those, and no more, is `dev_only`. `None` when `file` is no library
/// code; the list is empty when nothing depends on it. Read beneath `workspace_root`, as
/// [`rust_doc_tests`].
pub fn rust_workspace_dependents(workspace_root: &Path, root: &Path, file: &Path) -> Option<RustWorkspaceDependents> {
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let library = rust_library_with(&reader, root, &file)?;
    if !is_library_code(&library.manifest_dir, &library.lib_dir, &file) {
        return None;
    }
    let canonical = |dir: &Path| std::fs::canonicalize(dir).unwrap_or_else(|_| crate::files::path::lexically_normal(dir));
    let root = canonical(root);
    let parse = |text: &str| toml_edit::Document::parse(text.to_owned()).ok();
    // `[workspace.dependencies]` of the root's manifest: name → directory.
    let mut workspace_dependencies: std::collections::HashMap<String, PathBuf> = std::collections::HashMap::new();
    if let Some(document) = reader.read_to_string(&root.join("Cargo.toml")).ok().as_deref().and_then(parse) {
        if let Some(entries) =
            document.as_table().get("workspace").and_then(|item| item.get("dependencies")).and_then(|item| item.as_table_like())
        {
            for (name, entry) in entries.iter() {
                if let Some(path) = entry.get("path").and_then(|path| path.as_str()) {
                    workspace_dependencies.insert(name.to_owned(), canonical(&root.join(path)));
                }
            }
        }
    }
    // Every package under the root: (name, directory, normal/build dependency dirs, dev ones).
    struct Package {
        name: String,
        dir: PathBuf,
        normal: Vec<PathBuf>,
        dev: Vec<PathBuf>,
    }
    let (manifests, _) = source_files(&reader, &root, &["toml"]);
    let mut packages: Vec<Package> = Vec::new();
    for (path, text) in &manifests {
        let (Some(dir), Some(document)) = (path.parent(), path.file_name().filter(|name| *name == "Cargo.toml").and_then(|_| parse(text)))
        else {
            continue;
        };
        let table = document.as_table();
        let Some(name) = table.get("package").and_then(|package| package.get("name")).and_then(|name| name.as_str()) else { continue };
        if table.contains_key("workspace") && dir != root {
            continue;
        }
        let mut package = Package { name: name.to_owned(), dir: canonical(dir), normal: Vec::new(), dev: Vec::new() };
        let mut sections: Vec<&dyn toml_edit::TableLike> = vec![table];
        if let Some(targets) = table.get("target").and_then(|item| item.as_table_like()) {
            sections.extend(targets.iter().filter_map(|(_, item)| item.as_table_like()));
        }
        for section in sections {
            for (kind, dev) in [("dependencies", false), ("build-dependencies", false), ("dev-dependencies", true)] {
                let Some(entries) = section.get(kind).and_then(|item| item.as_table_like()) else { continue };
                for (dependency, entry) in entries.iter() {
                    let dependency_dir = match entry.get("path").and_then(|path| path.as_str()) {
                        Some(path) => Some(canonical(&package.dir.join(path))),
                        None if entry.get("workspace").and_then(|flag| flag.as_bool()) == Some(true) => {
                            workspace_dependencies.get(dependency).cloned()
                        }
                        None => None,
                    };
                    if let Some(dependency_dir) = dependency_dir {
                        if dev {
                            package.dev.push(dependency_dir)
                        } else {
                            package.normal.push(dependency_dir)
                        }
                    }
                }
            }
        }
        packages.push(package);
    }
    let library_dir = canonical(&library.manifest_dir);
    let mut linking: HashSet<PathBuf> = HashSet::from([library_dir.clone()]);
    loop {
        let grown: Vec<PathBuf> = packages
            .iter()
            .filter(|package| !linking.contains(&package.dir) && package.normal.iter().any(|dir| linking.contains(dir)))
            .map(|package| package.dir.clone())
            .collect();
        if grown.is_empty() {
            break;
        }
        linking.extend(grown);
    }
    let mut dependents = Vec::new();
    for package in &packages {
        if package.dir == library_dir {
            continue;
        }
        let dev_only = !linking.contains(&package.dir);
        if dev_only && !package.dev.iter().any(|dir| linking.contains(dir)) {
            continue;
        }
        let own_library = (!dev_only).then(|| rust_library_with(&reader, &root, &package.dir.join("Cargo.toml"))).flatten();
        let mut targets = layout_targets(&reader, &package.dir, !dev_only);
        let mut library_files = Vec::new();
        if let Some(own) = &own_library {
            targets.insert(0, own.lib_path.clone());
            library_files = source_files(&reader, &own.lib_dir, &["rs"])
                .0
                .into_iter()
                .map(|(path, _)| path)
                .filter(|path| is_library_code(&own.manifest_dir, &own.lib_dir, path))
                .collect();
        }
        dependents.push(RustDependentPackage {
            crate_name: package.name.clone(),
            manifest_dir: package.dir.clone(),
            dev_only,
            targets,
            library_files,
        });
    }
    dependents.sort_by(|a, b| a.crate_name.cmp(&b.crate_name));
    Some(RustWorkspaceDependents { library, dependents })
}

/// The library target of the cargo package holding `file` (a path under `root`): the nearest
/// `Cargo.toml` above it with a `[package]`, and its `src/lib.rs` or `[lib] path`, read through
/// `reader`. `None` when no package under `root` holds `file` or the package has no library.
fn rust_library_with(reader: &WorkspaceReader, root: &Path, file: &Path) -> Option<RustLibrary> {
    let mut dir = file.parent()?;
    let manifest_dir = loop {
        let manifest = dir.join("Cargo.toml");
        if manifest.is_file() && reader.read_to_string(&manifest).is_ok_and(|text| text.lines().any(|line| line.trim() == "[package]")) {
            break dir.to_path_buf();
        }
        if dir == root || !dir.starts_with(root) {
            return None;
        }
        dir = dir.parent()?;
    };
    let manifest = reader.read_to_string(&manifest_dir.join("Cargo.toml")).ok()?;
    let crate_name = toml_value(&manifest, "package", "name")?;
    let lib_path =
        toml_value(&manifest, "lib", "path").map(|path| manifest_dir.join(path)).unwrap_or_else(|| manifest_dir.join("src/lib.rs"));
    if !lib_path.is_file() {
        return None;
    }
    let lib_dir = crate::files::path::lexically_normal(lib_path.parent()?);
    Some(RustLibrary { crate_name, manifest_dir, lib_path, lib_dir })
}

/// `key = "value"` of `[section]` in a Cargo manifest (single-line string values only).
fn toml_value(manifest: &str, section: &str, key: &str) -> Option<String> {
    let mut in_section = false;
    for line in manifest.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_section = trimmed == format!("[{section}]");
            continue;
        }
        if !in_section {
            continue;
        }
        let Some((name, value)) = trimmed.split_once('=') else { continue };
        if name.trim() == key {
            let value = value.trim();
            return value.strip_prefix('"').and_then(|v| v.split('"').next()).map(str::to_owned);
        }
    }
    None
}

/// The Markdown files a Rust source file includes as docs, whose code blocks rustdoc compiles as
/// doc-tests, as written (relative to the file's directory, as `include_str!` reads them):
/// `#![doc = include_str!("../README.md")]` (crate docs), `#[doc = include_str!(…)]` on an item,
/// and the doc-comment crate's `doctest!("../README.md")` (usually under `#[cfg(doctest)]`;
/// walkdir 2.5.1, trial167 F1). Lines that are plain comments are skipped.
fn included_docs(text: &str) -> Vec<String> {
    let quoted_after = |line: &str, marker: &str| line.split(marker).nth(1)?.split('"').nth(1).map(str::to_owned);
    text.lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| {
            // The attribute form only (`doc = include_str!(`, spaces aside): a `const HELP: &str =
            // include_str!("../docs/help.md")` is no doc (review49 M4).
            let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            if squeezed.contains("doc=include_str!(") {
                quoted_after(line, "include_str!(")
            } else if line.contains("doctest!(") {
                quoted_after(line, "doctest!(")
            } else {
                None
            }
        })
        .collect()
}

/// The Rust source file of the library crate holding `markdown` (a `.md` file under `root`: the
/// nearest `Cargo.toml` above it with a `[package]` and a library) that includes it as docs
/// ([`included_docs`]: `#![doc = include_str!(…)]`, `#[doc = include_str!(…)]`,
/// `doctest!(…)`), so that rustdoc compiles its code blocks as doc-tests; the first such file by
/// path. `None` when no library source includes it. Read beneath `workspace_root`, as
/// [`rust_doc_tests`].
pub fn markdown_doc_test_includer(workspace_root: &Path, root: &Path, markdown: &Path) -> Option<PathBuf> {
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let markdown = std::fs::canonicalize(markdown).unwrap_or_else(|_| markdown.to_path_buf());
    let library = rust_library_with(&reader, root, &markdown)?;
    let (sources, _) = source_files(&reader, &library.lib_dir, &["rs"]);
    sources.into_iter().find_map(|(path, text)| {
        let folder = path.parent()?.to_path_buf();
        let includes = included_docs(&text).iter().any(|included| {
            let included = crate::files::path::lexically_normal(&folder.join(included));
            std::fs::canonicalize(&included).unwrap_or(included) == markdown
        });
        includes.then_some(path)
    })
}

/// One doc-test code block of [`rust_doc_test_code`].
pub struct DocTestCode<'a> {
    /// The 0-based index, among the lines given, of its opening fence; its code lines are the
    /// lines right after it, one per entry of `code`.
    pub fence: usize,
    /// Its code lines, a hidden line's `# ` cut (each a suffix of its line).
    pub code: Vec<&'a str>,
}

/// The fenced code blocks in `lines` (Markdown, doc comment prefixes stripped) that rustdoc
/// compiles as doc-tests, with their code; a block left open runs to the end.
pub fn rust_doc_test_code<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<DocTestCode<'a>> {
    let mut blocks = Vec::new();
    // The open fence, and whether its block is a compiled doc-test.
    let mut open: Option<(&str, bool)> = None;
    for (index, line) in lines.enumerate() {
        let trimmed = line.trim_start();
        let fence = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (open, fence) {
            (Some((opened, _)), Some(fence)) if opened == fence => open = None,
            (Some((_, compiled)), _) => {
                if compiled {
                    if let Some(block) = blocks.last_mut() {
                        let block: &mut DocTestCode<'a> = block;
                        block.code.push(trimmed.strip_prefix("# ").unwrap_or(line));
                    }
                }
            }
            (None, Some(fence)) => {
                let info = trimmed.trim_start_matches(fence.chars().next().unwrap_or('`')).trim();
                let compiled = is_compiled_doc_test(info);
                if compiled {
                    blocks.push(DocTestCode { fence: index, code: Vec::new() });
                }
                open = Some((fence, compiled));
            }
            (None, None) => (),
        }
    }
    blocks
}

/// Whether a code block with this info string is a doc-test rustdoc compiles: no info string,
/// or only rustdoc's attributes, none of them `ignore`.
fn is_compiled_doc_test(info: &str) -> bool {
    let tokens: Vec<&str> = info.split(|c: char| c == ',' || c.is_whitespace()).filter(|token| !token.is_empty()).collect();
    tokens.iter().all(|token| {
        matches!(*token, "rust" | "no_run" | "should_panic" | "compile_fail" | "test_harness" | "standalone_crate")
            || token.starts_with("edition")
            || (token.starts_with('{') || token.starts_with('.') || token.starts_with("class="))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::workspace_with as tree;

    fn names(root: &Path, found: &Dependents) -> Vec<String> {
        let root = std::fs::canonicalize(root).unwrap();
        found.files.iter().map(|path| path.strip_prefix(&root).unwrap().display().to_string()).collect()
    }

    #[test]
    fn python_importers_cover_the_import_forms_and_follow_package_reexports() {
        let dir = tree(&[
            ("pkg/__init__.py", "from .util import helper\n"),
            ("pkg/util.py", "def helper(): ...\n"),
            ("pkg/direct.py", "from pkg.util import helper\n"),
            ("pkg/relative.py", "from . import (\n    other,\n    util as u,\n)\n"),
            ("pkg/plain.py", "import os, pkg.util\n"),
            ("pkg/continued.py", "from pkg \\\n    import util\n"),
            ("app.py", "from pkg import helper\n"),
            ("unrelated.py", "utility = 'util'\nimport utilities\n"),
            ("comment.py", "import os  # util\n"),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let found = python_importers(&root, &root, &root.join("pkg/util.py"), 10);
        let mut got = names(&root, &found);
        got.sort();
        assert_eq!(got, ["app.py", "pkg/__init__.py", "pkg/continued.py", "pkg/direct.py", "pkg/plain.py", "pkg/relative.py"]);
        assert_eq!(found.total_found, 6);
        // `app.py` imports `helper` from the package, which re-exports it from util.py.
        let through: Vec<&Path> = found.found_through_another_file.iter().map(|path| path.strip_prefix(&root).unwrap()).collect();
        assert_eq!(through, [Path::new("app.py")]);
        let capped = python_importers(&root, &root, &root.join("pkg/util.py"), 2);
        assert_eq!((capped.files.len(), capped.total_found), (2, 6));
    }

    #[test]
    fn a_name_imported_from_a_module_is_told_relatively_absolutely_and_in_a_src_layout() {
        // attrs 25.4.0 (trial162 M1): `src/attr/_funcs.py` has `from ._make import … fields`, and
        // tests beside `src/` import `attr._make` by its dotted name.
        let dir = tree(&[
            ("src/attr/__init__.py", ""),
            (
                "src/attr/_make.py",
                "def fields(cls): ...
",
            ),
            (
                "src/attr/_funcs.py",
                "from ._make import NOTHING, fields
",
            ),
            (
                "tests/test_a.py",
                "from attr._make import (
    Attribute,
    fields,
)
",
            ),
            (
                "tests/test_b.py",
                "from attr._make import fields_dict
import attr
attr.fields(C)
",
            ),
            (
                "tests/test_c.py",
                "from attr._makefile import fields
",
            ),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        let module = root.join("src/attr/_make.py");
        assert_eq!(python_dotted_module_name(&reader, &module).as_deref(), Some("attr._make"));
        let imports = |file: &str| {
            let path = root.join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            python_imports_name_from(&reader, &path, &text, "fields", &module)
        };
        assert!(imports("src/attr/_funcs.py"));
        assert!(imports("tests/test_a.py"));
        assert!(!imports("tests/test_b.py"), "another name from the module, and `fields` through the package");
        assert!(!imports("tests/test_c.py"), "another module");
    }

    #[test]
    fn python_relative_imports_are_resolved_against_the_importing_package() {
        // cattrs 24.1.2's shapes: `from . import wrap` in preconf/*.py (wrap lives in
        // preconf/__init__.py), `from .. import BaseConverter` in strategies/ (re-exported by the
        // package's __init__.py from converters.py), `from ..gen import x`, `from .. import mod`.
        let dir = tree(&[
            ("src/cattrs/__init__.py", "from .converters import BaseConverter\n"),
            ("src/cattrs/converters.py", "class BaseConverter: ...\n"),
            ("src/cattrs/gen/__init__.py", "def make(): ...\n"),
            ("src/cattrs/preconf/__init__.py", "def wrap(x): ...\n"),
            ("src/cattrs/preconf/json.py", "from . import wrap\n"),
            ("src/cattrs/preconf/yaml.py", "from . import (\n    validate_datetime,\n    wrap,\n)\n"),
            ("src/cattrs/preconf/star.py", "from . import *\n"),
            ("src/cattrs/strategies/methods.py", "from .. import BaseConverter\n"),
            ("src/cattrs/strategies/subclasses.py", "from ..gen import make\n"),
            ("src/cattrs/strategies/module.py", "from .. import gen as generated\n"),
            ("src/cattrs/strategies/sibling.py", "from . import methods\n"),
            ("src/other/preconf.py", "from . import wrap\n"),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let sorted = |found: &Dependents| {
            let mut got = names(&root, found);
            got.sort();
            got
        };
        let preconf = python_importers(&root, &root, &root.join("src/cattrs/preconf/__init__.py"), 10);
        assert_eq!(sorted(&preconf), ["src/cattrs/preconf/json.py", "src/cattrs/preconf/star.py", "src/cattrs/preconf/yaml.py"]);
        let converters = python_importers(&root, &root, &root.join("src/cattrs/converters.py"), 10);
        // `from .. import gen` imports the package's `__init__.py` too (Python runs it first).
        assert_eq!(sorted(&converters), ["src/cattrs/__init__.py", "src/cattrs/strategies/methods.py", "src/cattrs/strategies/module.py"]);
        let generator = python_importers(&root, &root, &root.join("src/cattrs/gen/__init__.py"), 10);
        assert_eq!(sorted(&generator), ["src/cattrs/strategies/module.py", "src/cattrs/strategies/subclasses.py"]);
        let methods = python_importers(&root, &root, &root.join("src/cattrs/strategies/methods.py"), 10);
        assert_eq!(sorted(&methods), ["src/cattrs/strategies/sibling.py"]);
    }

    #[test]
    fn python_importers_follow_a_module_that_reexports_names_to_the_importers_naming_them() {
        // pluggy 1.7.0 (trial166 F1): `_callers.py` and `_hooks.py` are shims re-exporting
        // `_multicall` and `varnames`; `_manager.py` and the tests import through them.
        let dir = tree(&[
            ("src/pluggy/__init__.py", ""),
            ("src/pluggy/_execution.py", "def _multicall(): ...\ndef other(): ...\n"),
            (
                "src/pluggy/_callers.py",
                "from ._execution import _multicall\nfrom ._execution import other as renamed\n\n__all__ = [\"_multicall\"]\n",
            ),
            ("src/pluggy/_manager.py", "from ._callers import _multicall\n\n_multicall()\n"),
            ("src/pluggy/_names.py", "from . import _callers\n\nprint(_callers.__all__)\n"),
            ("src/pluggy/_alias.py", "from ._callers import (\n    renamed as again,\n)\n"),
            ("src/pluggy/_deeper.py", "from ._alias import again\n"),
            ("testing/test_multicall.py", "from pluggy._callers import _multicall\n"),
            ("testing/test_other.py", "from pluggy._manager import something\n_multicall = 1\n"),
            ("testing/test_attribute.py", "import pluggy._callers\n\npluggy._callers._multicall()\n"),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let found = python_importers(&root, &root, &root.join("src/pluggy/_execution.py"), 10);
        let mut got = names(&root, &found);
        got.sort();
        // `_names.py` imports the shim but names neither re-exported name; `test_other.py`
        // names `_multicall` but imports it from nowhere that re-exports it (`_manager.py`
        // imports it by name and re-exports it too, but `test_other.py` imports `something`).
        assert_eq!(
            got,
            [
                "src/pluggy/_alias.py",
                "src/pluggy/_callers.py",
                "src/pluggy/_deeper.py",
                "src/pluggy/_manager.py",
                "testing/test_attribute.py",
                "testing/test_multicall.py"
            ]
        );
        let mut through = names(&root, &Dependents { files: found.found_through_another_file.clone(), ..Dependents::default() });
        through.sort();
        assert_eq!(
            through,
            [
                "src/pluggy/_alias.py",
                "src/pluggy/_deeper.py",
                "src/pluggy/_manager.py",
                "testing/test_attribute.py",
                "testing/test_multicall.py"
            ]
        );
        let reexporting = names(&root, &Dependents { files: found.reexporting_modules.clone(), ..Dependents::default() });
        assert!(reexporting.contains(&"src/pluggy/_callers.py".to_owned()) && reexporting.contains(&"src/pluggy/_alias.py".to_owned()));
    }

    #[test]
    fn c_includers_follow_headers_to_translation_units() {
        let dir = tree(&[
            ("include/lib/a.h", "int f(int);\n"),
            ("include/lib/b.h", "#include \"lib/a.h\"\n"),
            ("src/one.c", "#include <lib/a.h>\n"),
            ("src/two.c", "#  include \"b.h\"\n"),
            ("src/three.c", "#include \"other/a.h\"\n"),
            ("src/four.c", "// a.h\n"),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let found = c_includers(&root, &root, &root.join("include/lib/a.h"), 10);
        let mut got = names(&root, &found);
        got.sort();
        assert_eq!(got, ["src/one.c", "src/two.c"]);
        let through: Vec<&Path> = found.found_through_another_file.iter().map(|path| path.strip_prefix(&root).unwrap()).collect();
        assert_eq!(through, [Path::new("src/two.c")], "two.c includes b.h, which includes a.h");
        assert!(is_c_header(Path::new("x.hpp")) && !is_c_header(Path::new("x.c")));
    }

    #[test]
    fn rust_workspace_dependents_follow_path_dependencies_through_the_members() {
        // trial175: `thiserror` depends on the proc-macro crate `thiserror-impl` by path.
        let dir = tree(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"p\", \"l\", \"m\", \"n\", \"q\"]\n\n[workspace.dependencies]\nl = { path = \"l\" }\n",
            ),
            ("p/Cargo.toml", "[package]\nname = \"p\"\n\n[lib]\nproc-macro = true\n"),
            ("p/src/lib.rs", "pub fn p() {}\n"),
            ("p/tests/t.rs", "#[test] fn t() {}\n"),
            ("l/Cargo.toml", "[package]\nname = \"l\"\n\n[dependencies]\np = { version = \"=1\", path = \"../p\" }\n"),
            ("l/src/lib.rs", "pub mod a;\n"),
            ("l/src/a.rs", "pub fn a() {}\n"),
            ("l/tests/it/main.rs", "mod x;\n"),
            ("l/tests/it/x.rs", "\n"),
            // Through `l`, by `{ workspace = true }` under a target table.
            ("n/Cargo.toml", "[package]\nname = \"n\"\n\n[target.'cfg(unix)'.dependencies]\nl.workspace = true\n"),
            ("n/src/main.rs", "fn main() {}\n"),
            // A dev-dependency on `l`: only the tests link it.
            ("m/Cargo.toml", "[package]\nname = \"m\"\n\n[dev-dependencies]\nl = { path = \"../l\" }\n"),
            ("m/src/lib.rs", "\n"),
            ("m/tests/t.rs", "\n"),
            // Depends on nothing of the workspace.
            ("q/Cargo.toml", "[package]\nname = \"q\"\n\n[dependencies]\nserde = \"1\"\n"),
            ("q/src/lib.rs", "\n"),
            // Another workspace nested below: not this one's member.
            ("other/Cargo.toml", "[package]\nname = \"other\"\n\n[workspace]\n\n[dependencies]\np = { path = \"../p\" }\n"),
            ("other/src/lib.rs", "\n"),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let found = rust_workspace_dependents(&root, &root, &root.join("p/src/lib.rs")).unwrap();
        assert_eq!(found.library.crate_name, "p");
        let shown: Vec<(String, bool, Vec<String>, usize)> = found
            .dependents
            .iter()
            .map(|dependent| {
                let targets = dependent.targets.iter().map(|target| target.strip_prefix(&root).unwrap().display().to_string()).collect();
                (dependent.crate_name.clone(), dependent.dev_only, targets, dependent.library_files.len())
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("l".to_owned(), false, vec!["l/src/lib.rs".to_owned(), "l/tests/it/main.rs".to_owned()], 2),
                ("m".to_owned(), true, vec!["m/tests/t.rs".to_owned()], 0),
                ("n".to_owned(), false, vec!["n/src/main.rs".to_owned()], 0),
            ]
        );
        // A test of `p` is no library code: nothing links it.
        assert_eq!(rust_workspace_dependents(&root, &root, &root.join("p/tests/t.rs")), None);
        // `l`'s dependents: `n` (normal) and `m` (dev).
        let names: Vec<String> = rust_workspace_dependents(&root, &root, &root.join("l/src/a.rs"))
            .unwrap()
            .dependents
            .into_iter()
            .map(|d| d.crate_name)
            .collect();
        assert_eq!(names, ["m", "n"]);
        assert!(rust_workspace_dependents(&root, &root, &root.join("q/src/lib.rs")).unwrap().dependents.is_empty());
    }

    #[test]
    fn rust_doc_tests_count_the_blocks_rustdoc_compiles() {
        let dir = tree(&[
            ("Cargo.toml", "[package]\nname = \"doccy\"\nversion = \"0.1.0\"\n"),
            ("README.md", "# doccy\n```rust\nassert!(true);\n```\n```toml\n[x]\n```\n"),
            ("src/lib.rs", "#![doc = include_str!(\"../README.md\")]\n//! ```\n//! doccy::one();\n//! ```\npub mod a;\npub fn one() {}\n"),
            ("src/a.rs", "/// ```no_run\n/// x();\n/// ```\n/// ```ignore\n/// y\n/// ```\n/// ```text\n/// z\n/// ```\npub fn x() {}\n"),
            ("src/b.rs", "// ```\n// not a doc comment\n// ```\npub fn b() {}\n"),
            // bitflags 2.13.2: block doc comments hold doc-tests too (two here, and one closed
            // by the comment's end); `/***` and `/**/` are plain comments.
            (
                "src/c.rs",
                "/*!\n```\nc();\n```\n*/\n/**\n * ```\n * c(); /* nested */\n * ``` */\npub fn c() {}\n/*** ```\nno();\n```\n*/\n/**/\n/** ```\nlast(); */\npub fn d() {}\n",
            ),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let found = rust_doc_tests(&root, &root, &root.join("src/a.rs"), &[]).unwrap();
        assert_eq!((found.crate_name.as_str(), found.total, found.files, found.in_written), ("doccy", 6, 3, 1));
        assert_eq!(rust_doc_tests(&root, &root, &root.join("src/c.rs"), &[]).unwrap().in_written, 3);
        assert_eq!(rust_doc_tests(&root, &root, &root.join("src/b.rs"), &[]).unwrap().in_written, 0);
        // The doc-tests whose code names a changed name, by the line of their opening fence
        // (a hidden `# ` line counts; an `ignore` block and a plain comment do not).
        let changed = ["one".to_owned(), "x".to_owned(), "c".to_owned()];
        let found = rust_doc_tests(&root, &root, &root.join("src/a.rs"), &changed).unwrap();
        let named: Vec<(String, usize, String)> = found
            .using_changed
            .iter()
            .map(|(path, line, name)| (path.strip_prefix(&root).unwrap().display().to_string(), *line, name.clone()))
            .collect();
        assert_eq!(
            named,
            [
                ("src/a.rs".to_owned(), 1, "x".to_owned()),
                ("src/c.rs".to_owned(), 2, "c".to_owned()),
                ("src/c.rs".to_owned(), 7, "c".to_owned()),
                ("src/lib.rs".to_owned(), 2, "one".to_owned()),
            ]
        );
        assert_eq!(found.using_changed_total, 4);
        // A binary-only crate has no doc-tests.
        let bin = tree(&[("Cargo.toml", "[package]\nname = \"tool\"\n"), ("src/main.rs", "/// ```\n/// x\n/// ```\nfn main() {}\n")]);
        let bin_root = std::fs::canonicalize(bin.path()).unwrap();
        assert_eq!(rust_doc_tests(&bin_root, &bin_root, &bin_root.join("src/main.rs"), &[]), None);
    }

    #[test]
    fn markdown_included_as_docs_by_any_form_counts_its_doc_tests_and_names_its_includer() {
        // walkdir 2.5.1 (trial167 F1): `#[cfg(doctest)] doc_comment::doctest!("../README.md");`
        // was not read, and its 4 README doc-tests were not counted.
        assert_eq!(
            included_docs(
                "#![doc = include_str!(\"../README.md\")]\n#[cfg(doctest)]\ndoc_comment::doctest!(\"../a.md\");\n    #[doc = include_str!(\"b.md\")]\n// doctest!(\"../commented.md\");\n#[doc = include_str!($x)]\n"
            ),
            ["../README.md", "../a.md", "b.md"]
        );
        // A string constant read from a docs folder is no doc (review49 M4).
        assert!(included_docs("const HELP: &str = include_str!(\"../docs/help.md\");\n").is_empty());
        let dir = tree(&[
            ("Cargo.toml", "[package]\nname = \"walky\"\nversion = \"0.1.0\"\n"),
            ("README.md", "# walky\n```rust,no_run\nwalky::go();\n```\n```toml\n[x]\n```\n"),
            ("docs/item.md", "```\nwalky::go();\n```\n"),
            ("NOTES.md", "```\nwalky::go();\n```\n"),
            ("src/lib.rs", "#[cfg(doctest)]\ndoc_comment::doctest!(\"../README.md\");\npub mod a;\npub fn go() {}\n"),
            ("src/a.rs", "#[doc = include_str!(\"../docs/item.md\")]\npub fn item() {}\n"),
        ]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let found = rust_doc_tests(&root, &root, &root.join("src/a.rs"), &["go".to_owned()]).unwrap();
        assert_eq!((found.total, found.files, found.in_written, found.using_changed_total), (2, 2, 1, 2));
        assert_eq!(markdown_doc_test_includer(&root, &root, &root.join("README.md")), Some(root.join("src/lib.rs")));
        assert_eq!(markdown_doc_test_includer(&root, &root, &root.join("docs/item.md")), Some(root.join("src/a.rs")));
        assert_eq!(markdown_doc_test_includer(&root, &root, &root.join("NOTES.md")), None);
    }

    /// Issue 13 §1: a server root inside the workspace that is (now) a symlink to a directory
    /// outside — a swap caught it so — is never read through: the scans read beneath the run's
    /// root. (An adversarial run saw diagnostics on write read outside `__init__.py`, `mod.py`
    /// and `user.py` when the handle was opened on the server root.)
    #[test]
    fn a_server_root_swapped_for_a_symlink_is_never_read_through() {
        let outside = tree(&[
            ("pkg/mod.py", "def helper(): pass\n"),
            ("pkg/user.py", "from pkg.mod import helper\n"),
            ("pkg/lib.h", "int x;\n"),
            ("pkg/a.c", "#include \"lib.h\"\n"),
            ("crate/Cargo.toml", "[package]\nname = \"outside\"\n"),
            ("crate/src/lib.rs", "#![doc = include_str!(\"../README.md\")]\n/// ```\n/// f();\n/// ```\npub fn f() {}\n"),
            ("crate/README.md", "```\nf();\n```\n"),
        ]);
        let workspace = tempfile::tempdir().unwrap();
        let workspace_root = std::fs::canonicalize(workspace.path()).unwrap();
        for name in ["pkg", "crate"] {
            std::os::unix::fs::symlink(outside.path().join(name), workspace_root.join(name)).unwrap();
        }
        let root = workspace_root.join("pkg");
        assert!(python_importers(&workspace_root, &root, &root.join("mod.py"), 10).files.is_empty());
        assert!(c_includers(&workspace_root, &root, &root.join("lib.h"), 10).files.is_empty());
        let crate_root = workspace_root.join("crate");
        assert_eq!(rust_doc_tests(&workspace_root, &crate_root, &crate_root.join("src/lib.rs"), &[]), None);
        // The same scans with the outside tree as the workspace find them (the test can fail).
        let real = std::fs::canonicalize(outside.path()).unwrap();
        assert_eq!(python_importers(&real, &real.join("pkg"), &real.join("pkg/mod.py"), 10).files.len(), 1);
        assert_eq!(rust_doc_tests(&real, &real.join("crate"), &real.join("crate/src/lib.rs"), &[]).map(|found| found.total), Some(2));
    }
}
