//! Python renames of a pytest fixture (R-REN-1; trial154 F2).
//!
//! pytest hands a fixture to every test and fixture function that names it as a parameter, and
//! to `@pytest.mark.usefixtures("name")` and `request.getfixturevalue("name")`: a lookup by name
//! at run time, which no language server follows. pyright renames marshmallow's
//! `tests/conftest.py` fixture `serialized_user` alone; the 14 tests that request it then error
//! with `fixture 'serialized_user' not found`, and the write check said "no new errors".
//!
//! [`fixture_requests`] reads the renamed definition from the server's edit: a `def` decorated
//! `@pytest.fixture`, `@fixture` or `@pytest.fixture(…)`, requested by its function's name (a
//! decorator's `name="…"` is the name it is requested by instead, which the rename leaves). It
//! finds the requests within pytest's scope for it — the conftest.py's directory and below, the
//! test module for a fixture defined in one, the class for one defined in a class — leaving out
//! those under a closer fixture of the same name (a conftest.py further down, a test module's or
//! a class's own), which pytest hands them instead. Each requesting function's parameter and its
//! uses in the function's body (by the syntax tree: not an attribute's name, not a call's
//! keyword, not inside a nested function or lambda with its own parameter of that name) and each
//! string request are edits the rename adds. Files are read beneath the workspace, no symlink
//! followed, at most [`crate::lsp::rename_coverage`]'s file cap.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

use crate::lsp::position::PositionEncoding;

/// The most requesting places [`FixtureRequests::note`] names; the rest are counted.
const NAMED: usize = 8;

/// What [`fixture_requests`] found for a renamed fixture.
#[derive(Debug, Default)]
pub struct FixtureRequests {
    /// Where the fixture is defined (`path:line`, 1-based, as shown) and its scope as said
    /// (`tests/ and below`, `the module tests/test_a.py`).
    pub fixture: String,
    /// The scope's words for the answer: `tests/conftest.py's directory (tests/) and below`.
    pub scope: String,
    /// The edits to add to the rename, by canonical path (server encoding).
    pub edits: BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    /// The requesting functions renamed: (`path:line` of the `def`, the function's name, uses
    /// renamed in its body).
    pub functions: Vec<(String, String, usize)>,
    /// The string requests renamed (`usefixtures` / `getfixturevalue`): `path:line`.
    pub strings: Vec<String>,
    /// Requests of the same name left because a closer fixture of that name serves them:
    /// (`path:line` of the request, `path:line` of the closer fixture).
    pub left_under_closer_fixture: Vec<(String, String)>,
    /// The decorator's `name="…"`, when the fixture is requested by it (the rename leaves it).
    pub requested_as: Option<String>,
    /// The fixture is in a module that is neither a conftest.py nor a test module, and no
    /// conftest.py loads it (`pytest_plugins`, a star or named import) nor the pytest
    /// configuration (`-p`): pytest finds it through a plugin registration this rename cannot
    /// see (an entry point, a command line), so its requests outside its own module were not
    /// renamed (review46 #6). The rename is staged.
    pub plugin_scope_unknown: bool,
}

impl FixtureRequests {
    /// The `note:` for the top of the answer: what the rename added, what it left and why.
    pub fn note(&self, old_name: &str, new_name: &str) -> String {
        if let Some(name) = &self.requested_as {
            return format!(
                "note: `{old_name}` ({}) is a pytest fixture requested as `{name}` (its decorator's `name=`), which this rename leaves: the tests that request `{name}` keep working; rename the `name=` string too to change what they request",
                self.fixture
            );
        }
        let uses: usize = self.functions.iter().map(|(_, _, uses)| uses).sum();
        if self.plugin_scope_unknown {
            return format!(
                "WARNING: `{old_name}` ({}) is a pytest fixture in a plugin module — no conftest.py and no test module — and no conftest.py loads that module (`pytest_plugins = [\"…\"]`, `from … import *` or `from … import {old_name}`) nor the pytest configuration (`-p …`): pytest finds it through a registration this rename cannot see (a `pytest11` entry point, a `-p` on the command line), so the tests that request `{old_name}` by name were NOT renamed ({} renamed in the module itself) — they then fail with \"fixture '{new_name}' not found\" or \"fixture '{old_name}' not found\"; grep the tests for parameters named `{old_name}` and rename them with it",
                self.fixture,
                crate::render::plural(self.functions.len() + uses + self.strings.len(), "request edit"),
            );
        }
        let mut sentence = format!(
            "note: `{old_name}` ({}) is a pytest fixture, which pytest hands to each test or fixture that names it as a parameter — a lookup by name that {} does not follow; runbound renamed its requests within pytest's scope for it ({}): the parameter `{old_name}` → `{new_name}` of {} ({} in all, with the body's uses){}",
            self.fixture,
            "the language server",
            self.scope,
            crate::render::plural(self.functions.len(), "function"),
            crate::render::plural(self.functions.len() + uses, "edit"),
            if self.strings.is_empty() {
                String::new()
            } else {
                format!(" and {} (`usefixtures` / `getfixturevalue`: {})", crate::render::plural(self.strings.len(), "string request"), self.strings.join(", "))
            },
        );
        if !self.functions.is_empty() {
            let named: Vec<String> = self.functions.iter().take(NAMED).map(|(at, name, _)| format!("{at} `{name}`")).collect();
            sentence.push_str(&format!(
                ": {}{}",
                named.join(", "),
                if self.functions.len() > NAMED { format!(" and {} more", self.functions.len() - NAMED) } else { String::new() }
            ));
        }
        if !self.left_under_closer_fixture.is_empty() {
            let named: Vec<String> =
                self.left_under_closer_fixture.iter().take(NAMED).map(|(at, closer)| format!("{at} (fixture {closer})")).collect();
            sentence.push_str(&format!(
                "; left, rightly: {} of `{old_name}` under a closer fixture of that name, which pytest hands them instead: {}{}",
                crate::render::plural(self.left_under_closer_fixture.len(), "request"),
                named.join(", "),
                if self.left_under_closer_fixture.len() > NAMED {
                    format!(" and {} more", self.left_under_closer_fixture.len() - NAMED)
                } else {
                    String::new()
                }
            ));
        }
        sentence
    }

    /// The `references` note: the places that request the fixture by name (functions and
    /// strings), `None` when there are none.
    pub fn references_note(&self, old_name: &str) -> Option<String> {
        if let Some(name) = &self.requested_as {
            return Some(format!(
                "note: `{old_name}` ({}) is a pytest fixture requested as `{name}` (its decorator's `name=`): look for `{name}` parameters",
                self.fixture
            ));
        }
        if self.functions.is_empty() && self.strings.is_empty() {
            return None;
        }
        let mut places: Vec<String> =
            self.functions.iter().map(|(at, name, _)| format!("  {at}: `{name}` requests it as a parameter")).collect();
        places.extend(self.strings.iter().map(|at| format!("  {at}: a `usefixtures` / `getfixturevalue` string")));
        Some(format!(
            "pytest fixture: `{old_name}` ({}) is requested by name, which the server does not follow — {} within pytest's scope for it ({}){}:\n{}",
            self.fixture,
            crate::render::plural(places.len(), "request"),
            self.scope,
            if self.left_under_closer_fixture.is_empty() {
                String::new()
            } else {
                format!("; {} more of that name get a closer fixture of the same name", self.left_under_closer_fixture.len())
            },
            places.join("\n")
        ))
    }
}

/// A fixture definition found in a file's syntax tree.
struct FixtureDefinition {
    /// The name it is requested by: the decorator's `name="…"`, else the function's.
    requested_name: String,
    /// The function's name.
    function_name: String,
    /// 0-based line of the function's name.
    line0: u32,
    /// Byte range of the class body it sits in, `None` at module level.
    class_range: Option<std::ops::Range<usize>>,
}

/// The fixture definitions of a parsed Python file (module level and in classes).
fn fixture_definitions(source: &str, root: tree_sitter::Node<'_>) -> Vec<FixtureDefinition> {
    let mut found = Vec::new();
    collect_fixture_definitions(source, root, None, &mut found);
    found
}

fn collect_fixture_definitions(
    source: &str,
    node: tree_sitter::Node<'_>,
    class_range: Option<std::ops::Range<usize>>,
    found: &mut Vec<FixtureDefinition>,
) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "decorated_definition" => {
                let Some(definition) = child.child_by_field_name("definition") else { continue };
                if definition.kind() == "class_definition" {
                    if let Some(body) = definition.child_by_field_name("body") {
                        collect_fixture_definitions(source, body, Some(body.byte_range()), found);
                    }
                    continue;
                }
                let Some(name) = definition.child_by_field_name("name") else { continue };
                let mut decorators = child.walk();
                for decorator in child.named_children(&mut decorators).filter(|part| part.kind() == "decorator") {
                    if let Some(requested_as) = fixture_decorator(source, decorator) {
                        let function_name = node_text(source, name).to_owned();
                        found.push(FixtureDefinition {
                            requested_name: requested_as.unwrap_or_else(|| function_name.clone()),
                            function_name,
                            line0: name.start_position().row as u32,
                            class_range: class_range.clone(),
                        });
                    }
                }
            }
            "class_definition" => {
                if let Some(body) = child.child_by_field_name("body") {
                    collect_fixture_definitions(source, body, Some(body.byte_range()), found);
                }
            }
            "if_statement" | "try_statement" | "with_statement" | "block" | "else_clause" => {
                collect_fixture_definitions(source, child, class_range.clone(), found);
            }
            _ => {}
        }
    }
}

/// Whether `decorator` makes a pytest fixture (`@pytest.fixture`, `@fixture`, `@pytest.fixture(…)`,
/// `@pytest_asyncio.fixture`): `Some(Some(name))` with the `name="…"` it sets, `Some(None)`
/// without one, `None` for another decorator.
fn fixture_decorator(source: &str, decorator: tree_sitter::Node<'_>) -> Option<Option<String>> {
    let expression = decorator.named_child(0)?;
    let (callee, arguments) = if expression.kind() == "call" {
        (expression.child_by_field_name("function")?, expression.child_by_field_name("arguments"))
    } else {
        (expression, None)
    };
    let callee_text = node_text(source, callee);
    if callee_text != "fixture" && !callee_text.ends_with(".fixture") {
        return None;
    }
    let mut name = None;
    if let Some(arguments) = arguments {
        let mut cursor = arguments.walk();
        for argument in arguments.named_children(&mut cursor).filter(|argument| argument.kind() == "keyword_argument") {
            let is_name = argument.child_by_field_name("name").is_some_and(|key| node_text(source, key) == "name");
            if let (true, Some(value)) = (is_name, argument.child_by_field_name("value")) {
                name = string_literal_content(source, value).map(|(text, _)| text.to_owned());
            }
        }
    }
    Some(name)
}

/// The content of a plain string literal node (`"x"`, `'x'`, no prefix, no interpolation) and
/// its byte range in the file; `None` for another node.
fn string_literal_content<'s>(source: &'s str, node: tree_sitter::Node<'_>) -> Option<(&'s str, std::ops::Range<usize>)> {
    if node.kind() != "string" {
        return None;
    }
    let mut cursor = node.walk();
    let parts: Vec<tree_sitter::Node<'_>> = node.named_children(&mut cursor).collect();
    let content = parts.iter().find(|part| part.kind() == "string_content")?;
    if parts.iter().any(|part| part.kind() == "interpolation") {
        return None;
    }
    let start = node_text(source, node).chars().next()?;
    if !matches!(start, '"' | '\'') {
        return None;
    }
    Some((node_text(source, *content), content.byte_range()))
}

fn node_text<'s>(source: &'s str, node: tree_sitter::Node<'_>) -> &'s str {
    source.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The renamed fixture, when `edits` (the server's rename edit by canonical path) renames the
/// name of a pytest fixture's `def`: (its file, the definition).
fn renamed_fixture(
    edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    read: &dyn Fn(&Path) -> Option<String>,
    old_name: &str,
    encoding: PositionEncoding,
) -> Option<(PathBuf, FixtureDefinition)> {
    for (path, list) in edits {
        if path.extension().is_none_or(|ext| ext != "py") {
            continue;
        }
        let Some(source) = read(path) else { continue };
        let lines: Vec<&str> = source.split('\n').collect();
        let renamed_lines: Vec<u32> = list
            .iter()
            .filter(|edit| {
                let line = lines.get(edit.range.start.line as usize).copied().unwrap_or("");
                let start = encoding.byte_from_column(line, edit.range.start.character);
                line.get(start..).is_some_and(|rest| rest.starts_with(old_name))
            })
            .map(|edit| edit.range.start.line)
            .collect();
        if renamed_lines.is_empty() {
            continue;
        }
        let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(source.as_str(), SupportLang::Python) else { continue };
        let root = grep.root().get_inner_node();
        for definition in fixture_definitions(&source, root) {
            if definition.function_name == old_name && renamed_lines.contains(&definition.line0) {
                return Some((path.clone(), definition));
            }
        }
    }
    None
}

/// What one file in the fixture's scope holds.
struct ScopedFile {
    path: PathBuf,
    source: String,
}

/// The requests of the fixture the server's rename `edits` (by canonical path) renames, if it
/// renames one (see the module docs); `None` for any other rename. `project_root` is where the
/// pytest configuration is read (test file and function patterns); files are read through
/// `workspace_root`'s reader. `display` shows a path.
pub fn fixture_requests(
    workspace_root: &Path,
    project_root: &Path,
    edits: &BTreeMap<PathBuf, Vec<lsp_types::TextEdit>>,
    old_name: &str,
    new_name: &str,
    encoding: PositionEncoding,
    display: &dyn Fn(&Path) -> String,
) -> Option<FixtureRequests> {
    let read = |path: &Path| crate::files::read_workspace_file_to_string(workspace_root, path).ok();
    let (fixture_path, fixture) = renamed_fixture(edits, &read, old_name, encoding)?;
    let mut found = FixtureRequests { fixture: format!("{}:{}", display(&fixture_path), fixture.line0 + 1), ..Default::default() };
    if fixture.requested_name != old_name {
        found.requested_as = Some(fixture.requested_name);
        return Some(found);
    }
    let is_conftest = fixture_path.file_name().is_some_and(|name| name == "conftest.py");
    let (file_patterns, function_patterns) =
        crate::lsp::rename_test_discovery::pytest_file_and_function_patterns(workspace_root, project_root);
    let file_name = fixture_path.file_name().and_then(|name| name.to_str()).unwrap_or("");
    let is_test_module = file_patterns.iter().any(|pattern| crate::lsp::rename_test_discovery::glob_matches(pattern, file_name));
    // A module-level fixture in a plugin module (neither conftest.py nor a test module) serves
    // the directories of the conftest.py files that load it (review46 #6).
    let plugin_module = !is_conftest && !is_test_module && fixture.class_range.is_none();
    let loaders = if plugin_module { plugin_loaders(workspace_root, project_root, &fixture_path, old_name) } else { Vec::new() };
    let scope_dirs: Vec<PathBuf> = if is_conftest {
        vec![fixture_path.parent().unwrap_or(project_root).to_path_buf()]
    } else {
        loaders.iter().map(|loader| loader.scope_dir.clone()).collect()
    };
    found.scope = if is_conftest {
        format!("{}'s directory and below", display(&fixture_path))
    } else if fixture.class_range.is_some() {
        format!("its class in {}", display(&fixture_path))
    } else if !loaders.is_empty() {
        let named: Vec<String> = loaders.iter().map(|loader| format!("{} ({})", display(&loader.file), loader.how)).collect();
        format!("the plugin module {} as loaded by {} — their directories and below", display(&fixture_path), named.join(", "))
    } else {
        found.plugin_scope_unknown = plugin_module;
        format!("the module {}", display(&fixture_path))
    };
    let mut files: Vec<ScopedFile> = Vec::new();
    for scope_dir in &scope_dirs {
        let wanted = |path: &Path| {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            path.starts_with(scope_dir)
                && (name == "conftest.py"
                    || file_patterns.iter().any(|pattern| crate::lsp::rename_test_discovery::glob_matches(pattern, name)))
        };
        crate::lsp::rename_coverage::for_each_text_file_beneath(workspace_root, scope_dir, wanted, |path, text| {
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            if text.contains(old_name) && !files.iter().any(|file| file.path == path) {
                files.push(ScopedFile { path, source: text.to_owned() });
            }
        });
    }
    if !files.iter().any(|file| file.path == fixture_path) {
        if let Some(source) = read(&fixture_path) {
            files.push(ScopedFile { path: fixture_path.clone(), source });
        }
    }
    // Closer fixtures of the same name: conftest.py files further down (their directory), and
    // each module's and class's own.
    let mut closer_dirs: Vec<(PathBuf, String)> = Vec::new();
    for file in &files {
        if file.path == fixture_path || file.path.file_name().is_none_or(|name| name != "conftest.py") {
            continue;
        }
        let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(file.source.as_str(), SupportLang::Python) else { continue };
        if let Some(closer) = fixture_definitions(&file.source, grep.root().get_inner_node()).iter().find(|d| d.requested_name == old_name)
        {
            if let Some(dir) = file.path.parent() {
                closer_dirs.push((dir.to_path_buf(), format!("{}:{}", display(&file.path), closer.line0 + 1)));
            }
        }
    }
    for file in &files {
        let closer_conftest = closer_dirs
            .iter()
            .filter(|(dir, _)| file.path.starts_with(dir))
            .max_by_key(|(dir, _)| dir.components().count())
            .map(|(_, at)| at.clone());
        let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(file.source.as_str(), SupportLang::Python) else { continue };
        let root = grep.root().get_inner_node();
        let definitions = fixture_definitions(&file.source, root);
        let is_fixture_file = file.path == fixture_path;
        // The module's own fixture of the name (not the renamed one) serves the whole module; a
        // class's own serves that class.
        let module_closer = definitions
            .iter()
            .find(|d| d.requested_name == old_name && d.class_range.is_none() && !(is_fixture_file && d.line0 == fixture.line0))
            .map(|d| format!("{}:{}", display(&file.path), d.line0 + 1));
        let class_closers: Vec<(std::ops::Range<usize>, String)> = definitions
            .iter()
            .filter(|d| d.requested_name == old_name && !(is_fixture_file && d.line0 == fixture.line0))
            .filter_map(|d| d.class_range.clone().map(|range| (range, format!("{}:{}", display(&file.path), d.line0 + 1))))
            .collect();
        let closer_at = |byte: usize| -> Option<String> {
            if is_fixture_file && fixture.class_range.as_ref().is_some_and(|range| !range.contains(&byte)) {
                return Some(String::new());
            }
            class_closers
                .iter()
                .filter(|(range, _)| range.contains(&byte))
                .min_by_key(|(range, _)| range.len())
                .map(|(_, at)| at.clone())
                .or_else(|| module_closer.clone())
                .or_else(|| closer_conftest.clone())
        };
        let shown = display(&file.path);
        let mut file_edits: Vec<lsp_types::TextEdit> = Vec::new();
        let line_starts: Vec<usize> = std::iter::once(0).chain(file.source.match_indices('\n').map(|(at, _)| at + 1)).collect();
        let edit_at = |range: std::ops::Range<usize>| -> lsp_types::TextEdit {
            let line0 = line_starts.partition_point(|start| *start <= range.start) - 1;
            let line_end = line_starts.get(line0 + 1).map_or(file.source.len(), |next| next - 1);
            let line = &file.source[line_starts[line0]..line_end];
            let column = |byte: usize| encoding.column_from_byte(line, byte - line_starts[line0]);
            lsp_types::TextEdit {
                range: lsp_types::Range {
                    start: lsp_types::Position { line: line0 as u32, character: column(range.start) },
                    end: lsp_types::Position { line: line0 as u32, character: column(range.end) },
                },
                new_text: new_name.to_owned(),
            }
        };
        let line_of = |byte: usize| line_starts.partition_point(|start| *start <= byte);
        for (function, parameter) in requesting_functions(&file.source, root, old_name, &function_patterns) {
            let Some(name) = function.child_by_field_name("name") else { continue };
            let at = format!("{shown}:{}", name.start_position().row + 1);
            match closer_at(function.start_byte()) {
                Some(closer) if closer.is_empty() => continue,
                Some(closer) => {
                    found.left_under_closer_fixture.push((at, closer));
                    continue;
                }
                None => {}
            }
            let mut uses = Vec::new();
            if let Some(body) = function.child_by_field_name("body") {
                collect_name_uses(&file.source, body, old_name, &mut uses);
            }
            file_edits.push(edit_at(parameter.byte_range()));
            found.functions.push((at, node_text(&file.source, name).to_owned(), uses.len()));
            file_edits.extend(uses.into_iter().map(&edit_at));
        }
        for string in string_requests(&file.source, root, old_name) {
            let at = format!("{shown}:{}", line_of(string.start));
            match closer_at(string.start) {
                Some(closer) if closer.is_empty() => continue,
                Some(closer) => {
                    found.left_under_closer_fixture.push((at, closer));
                    continue;
                }
                None => {}
            }
            file_edits.push(edit_at(string));
            found.strings.push(at);
        }
        if !file_edits.is_empty() {
            found.edits.insert(file.path.clone(), file_edits);
        }
    }
    Some(found)
}

/// A conftest.py (or the pytest configuration) that loads a plugin module ([`plugin_loaders`]).
struct PluginLoader {
    /// The loading file.
    file: PathBuf,
    /// How it loads the module: `pytest_plugins`, `from … import *`, `-p`.
    how: &'static str,
    /// The directory whose tests get the module's fixtures.
    scope_dir: PathBuf,
}

/// The conftest.py files beneath `project_root` that load the plugin module `module_path` — a
/// `pytest_plugins` string naming it, or `from <module> import *` / `from <module> import …
/// name …` (a relative `from .fixtures import *` too) — and the pytest configuration files at
/// `project_root` (`pytest.ini`, `pyproject.toml`, `setup.cfg`, `tox.ini`) with `-p <module>`.
/// The module is matched by any dotted suffix of its path from `project_root` (`tests.fixtures`,
/// `fixtures`). Files are read as [`crate::lsp::rename_coverage::for_each_text_file_beneath`]
/// reads them (no symlink followed, a file cap).
fn plugin_loaders(workspace_root: &Path, project_root: &Path, module_path: &Path, name: &str) -> Vec<PluginLoader> {
    let relative = module_path.strip_prefix(project_root).unwrap_or(module_path).with_extension("");
    let parts: Vec<String> = relative.components().filter_map(|part| part.as_os_str().to_str().map(str::to_owned)).collect();
    let dotted_suffixes: Vec<String> = (0..parts.len()).map(|from| parts[from..].join(".")).collect();
    let names_module = |text: &str| {
        let text = text.trim_start_matches('.');
        dotted_suffixes.iter().any(|suffix| text == suffix)
    };
    let mut loaders = Vec::new();
    let is_conftest = |path: &Path| path.file_name().is_some_and(|file| file == "conftest.py");
    crate::lsp::rename_coverage::for_each_text_file_beneath(workspace_root, project_root, is_conftest, |path, text| {
        let how = if pytest_plugins_strings(text).iter().any(|plugin| names_module(plugin)) {
            Some("`pytest_plugins`")
        } else if imports_from_module(text, name, &names_module) {
            Some("an import")
        } else {
            None
        };
        if let Some(how) = how {
            let file = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            // `pytest_plugins` registers the plugin for the whole session.
            let scope_dir =
                if how == "`pytest_plugins`" { project_root.to_path_buf() } else { file.parent().unwrap_or(project_root).to_path_buf() };
            loaders.push(PluginLoader { file, how, scope_dir });
        }
    });
    for configuration in ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"] {
        let path = project_root.join(configuration);
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &path) else { continue };
        let loads = text.split_whitespace().collect::<Vec<_>>().windows(2).any(|pair| {
            pair[0].trim_matches(|c| c == '"' || c == '\'' || c == '[' || c == ',') == "-p"
                && names_module(pair[1].trim_matches(|c| c == '"' || c == '\'' || c == ']' || c == ','))
        });
        if loads {
            loaders.push(PluginLoader { file: path, how: "`-p`", scope_dir: project_root.to_path_buf() });
        }
    }
    loaders
}

/// The strings of a `pytest_plugins = …` assignment in `text` (a string, a list or a tuple).
fn pytest_plugins_strings(text: &str) -> Vec<String> {
    let Some(at) = text.find("pytest_plugins") else { return Vec::new() };
    let rest = &text[at + "pytest_plugins".len()..];
    let Some(value) = rest.trim_start().strip_prefix('=') else { return Vec::new() };
    let value = value.trim_start();
    let end = if value.starts_with('[') || value.starts_with('(') {
        value.find([']', ')']).unwrap_or(value.len())
    } else {
        value.find('\n').unwrap_or(value.len())
    };
    value[..end].split(['"', '\'']).enumerate().filter(|(index, _)| index % 2 == 1).map(|(_, text)| text.to_owned()).collect()
}

/// Whether `text` holds `from <module> import *` or `from <module> import … name …` (in
/// parentheses over lines too) at a line's start, for a module `names_module` accepts.
fn imports_from_module(text: &str, name: &str, names_module: &dyn Fn(&str) -> bool) -> bool {
    let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1));
    line_starts.filter_map(|start| text[start..].trim_start_matches([' ', '\t']).strip_prefix("from ")).any(|statement| {
        let Some((module, imported)) = statement.split_once(" import ") else { return false };
        if module.contains('\n') || !names_module(module.trim()) {
            return false;
        }
        let imported = imported.trim_start();
        let imported = match imported.strip_prefix('(') {
            Some(inside) => inside.split(')').next().unwrap_or(inside),
            None => imported.lines().next().unwrap_or(imported),
        };
        let imported = imported.split('#').next().unwrap_or(imported);
        imported.trim() == "*" || imported.split([',', ' ', '\n', '\t']).any(|part| part == name)
    })
}

/// The functions of a file that request `name` as a fixture: module-level and class-level
/// `def`s (not nested in a function) that are fixtures or whose name matches pytest's
/// `python_functions` patterns, with a parameter `name` that has no default (pytest passes no
/// fixture to a parameter with a default) and that `@pytest.mark.parametrize` does not set
/// directly; each with that parameter's identifier node.
fn requesting_functions<'t>(
    source: &str,
    node: tree_sitter::Node<'t>,
    name: &str,
    function_patterns: &[String],
) -> Vec<(tree_sitter::Node<'t>, tree_sitter::Node<'t>)> {
    let mut found = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let (definition, decorators): (tree_sitter::Node<'t>, Vec<tree_sitter::Node<'t>>) = match child.kind() {
            "decorated_definition" => {
                let Some(definition) = child.child_by_field_name("definition") else { continue };
                let mut inner = child.walk();
                (definition, child.named_children(&mut inner).filter(|part| part.kind() == "decorator").collect())
            }
            "function_definition" | "class_definition" => (child, Vec::new()),
            "if_statement" | "try_statement" | "with_statement" | "block" | "else_clause" => {
                found.extend(requesting_functions(source, child, name, function_patterns));
                continue;
            }
            _ => continue,
        };
        if definition.kind() == "class_definition" {
            if let Some(body) = definition.child_by_field_name("body") {
                found.extend(requesting_functions(source, body, name, function_patterns));
            }
            continue;
        }
        if definition.kind() != "function_definition" {
            continue;
        }
        let Some(function_name) = definition.child_by_field_name("name") else { continue };
        let is_fixture = decorators.iter().any(|decorator| fixture_decorator(source, *decorator).is_some());
        let is_test = function_patterns
            .iter()
            .any(|pattern| crate::lsp::rename_test_discovery::glob_matches(pattern, node_text(source, function_name)));
        if !is_fixture && !is_test {
            continue;
        }
        // `parametrize("a, user", …)`, and the tuple or list forms `(("a", "user"), …)`: every
        // string before the first `,` outside them up to the values is read (review46 #7).
        let parametrized = decorators.iter().any(|decorator| {
            let text = node_text(source, *decorator);
            text.contains("parametrize") && parametrize_argnames(text).iter().any(|argument| argument == name)
        });
        if parametrized {
            continue;
        }
        if let Some(parameter) = parameter_named(source, definition, name) {
            found.push((definition, parameter));
        }
    }
    found
}

/// The argument names a `@pytest.mark.parametrize(…)` decorator's text sets: its first argument,
/// a string of comma-separated names (`"a, b"`) or a tuple or list of strings (`("a", "b")`).
fn parametrize_argnames(decorator: &str) -> Vec<String> {
    let Some(open) = decorator.find('(') else { return Vec::new() };
    let arguments = decorator[open + 1..].trim_start();
    let first = if let Some(rest) = arguments.strip_prefix(['(', '[']) {
        let close = rest.find([')', ']']).unwrap_or(rest.len());
        &rest[..close]
    } else {
        // One string: up to its closing quote.
        let Some(quote) = arguments.chars().next().filter(|c| *c == '"' || *c == '\'') else { return Vec::new() };
        let body = &arguments[1..];
        &body[..body.find(quote).unwrap_or(body.len())]
    };
    first.split(',').map(|part| part.trim().trim_matches(['"', '\'']).trim().to_owned()).filter(|part| !part.is_empty()).collect()
}

/// The identifier node of `function`'s parameter `name` when it has no default (a plain or
/// annotated parameter).
fn parameter_named<'t>(source: &str, function: tree_sitter::Node<'t>, name: &str) -> Option<tree_sitter::Node<'t>> {
    let parameters = function.child_by_field_name("parameters")?;
    let mut cursor = parameters.walk();
    let found = parameters.named_children(&mut cursor).find_map(|parameter| match parameter.kind() {
        "identifier" if node_text(source, parameter) == name => Some(parameter),
        "typed_parameter" => parameter.named_child(0).filter(|first| first.kind() == "identifier" && node_text(source, *first) == name),
        _ => None,
    });
    found
}

/// Whether `function` (a `function_definition` or `lambda`) declares a parameter `name`.
fn declares_parameter(source: &str, function: tree_sitter::Node<'_>, name: &str) -> bool {
    let Some(parameters) = function.child_by_field_name("parameters") else { return false };
    let mut stack = vec![parameters];
    while let Some(node) = stack.pop() {
        if node.kind() == "identifier" && node_text(source, node) == name {
            let parent_kind = node.parent().map(|parent| parent.kind()).unwrap_or("");
            if matches!(
                parent_kind,
                "parameters"
                    | "lambda_parameters"
                    | "typed_parameter"
                    | "default_parameter"
                    | "typed_default_parameter"
                    | "list_splat_pattern"
                    | "dictionary_splat_pattern"
            ) {
                return true;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor).filter(|child| !matches!(child.kind(), "lambda" | "function_definition")));
    }
    false
}

/// The byte ranges of the identifiers `name` in `node` that are the variable itself: not an
/// attribute's name (`x.name`), not a call's keyword (`f(name=…)`), not inside a nested function
/// or lambda that declares its own parameter `name`.
fn collect_name_uses(source: &str, node: tree_sitter::Node<'_>, name: &str, found: &mut Vec<std::ops::Range<usize>>) {
    if matches!(node.kind(), "function_definition" | "lambda") && declares_parameter(source, node, name) {
        return;
    }
    // A class defined in the function whose body binds `name` (`user = fields.Nested(…)`):
    // a class attribute, not the parameter — its body is left, its bases and decorators are read
    // (the recheck of trial154 F2: marshmallow's nested `HasNestedExclude.user` renamed along, 1
    // test failed with KeyError 'user').
    if node.kind() == "class_definition" && class_body_binds(source, node, name) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor).filter(|child| child.kind() != "block") {
            collect_name_uses(source, child, name, found);
        }
        return;
    }
    if node.kind() == "identifier" && node_text(source, node) == name {
        let parent = node.parent();
        let is_attribute_name = parent.is_some_and(|parent| {
            parent.kind() == "attribute" && parent.child_by_field_name("attribute").is_some_and(|attribute| attribute.id() == node.id())
        });
        let is_keyword = parent.is_some_and(|parent| {
            parent.kind() == "keyword_argument" && parent.child_by_field_name("name").is_some_and(|key| key.id() == node.id())
        });
        if !is_attribute_name && !is_keyword {
            found.push(node.byte_range());
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_name_uses(source, child, name, found);
    }
}

/// Whether the body of `class` (a `class_definition`) binds `name` at its top level: an
/// assignment or annotated assignment to it, or a `def`/`class` of that name.
fn class_body_binds(source: &str, class: tree_sitter::Node<'_>, name: &str) -> bool {
    let Some(body) = class.child_by_field_name("body") else { return false };
    let mut cursor = body.walk();
    let statements: Vec<tree_sitter::Node<'_>> = body.named_children(&mut cursor).collect();
    statements.into_iter().any(|statement| {
        let statement = if statement.kind() == "decorated_definition" {
            statement.child_by_field_name("definition").unwrap_or(statement)
        } else {
            statement
        };
        match statement.kind() {
            "function_definition" | "class_definition" => {
                statement.child_by_field_name("name").is_some_and(|declared| node_text(source, declared) == name)
            }
            "expression_statement" => statement.named_child(0).is_some_and(|expression| {
                matches!(expression.kind(), "assignment" | "augmented_assignment")
                    && expression
                        .child_by_field_name("left")
                        .is_some_and(|left| left.kind() == "identifier" && node_text(source, left) == name)
            }),
            _ => false,
        }
    })
}

/// The byte ranges of the string contents `name` requested by `….usefixtures("name", …)` or
/// `….getfixturevalue("name")` in the file.
fn string_requests(source: &str, root: tree_sitter::Node<'_>, name: &str) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            let callee = node.child_by_field_name("function").map(|callee| node_text(source, callee)).unwrap_or("");
            if callee.ends_with("usefixtures") || callee.ends_with("getfixturevalue") {
                if let Some(arguments) = node.child_by_field_name("arguments") {
                    let mut cursor = arguments.walk();
                    for argument in arguments.named_children(&mut cursor) {
                        if let Some((text, range)) = string_literal_content(source, argument) {
                            if text == name {
                                found.push(range);
                            }
                        }
                    }
                }
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    found.sort_by_key(|range| range.start);
    found
}

/// The (0-based line, byte column) of each keyword argument `name=` of a call in a Python
/// `source` (tree-sitter `keyword_argument`), for the rename check of a parameter's keywords
/// left (trial154 F1). Empty when the file does not parse.
pub fn python_keyword_argument_names(source: &str, name: &str) -> Vec<(u32, usize)> {
    let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python) else { return Vec::new() };
    let mut found = Vec::new();
    let mut stack = vec![grep.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "keyword_argument" {
            if let Some(key) = node.child_by_field_name("name").filter(|key| node_text(source, *key) == name) {
                let position = key.start_position();
                found.push((position.row as u32, position.column));
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    found.sort_unstable();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(source: &str) -> AstGrep<StrDoc<SupportLang>> {
        AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python).unwrap()
    }

    #[test]
    fn fixture_decorators_in_their_shapes_and_the_name_they_set() {
        let source = "import pytest\n\n@pytest.fixture\ndef a():\n    pass\n\n@fixture(scope=\"module\")\ndef b():\n    pass\n\n@pytest.fixture(name=\"c\")\ndef _c():\n    pass\n\nclass TestK:\n    @pytest.fixture()\n    def d(self):\n        pass\n\n@other\ndef e():\n    pass\n";
        let grep = parse(source);
        let found: Vec<(String, String, bool)> = fixture_definitions(source, grep.root().get_inner_node())
            .into_iter()
            .map(|d| (d.requested_name, d.function_name, d.class_range.is_some()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("a".to_owned(), "a".to_owned(), false),
                ("b".to_owned(), "b".to_owned(), false),
                ("c".to_owned(), "_c".to_owned(), false),
                ("d".to_owned(), "d".to_owned(), true),
            ]
        );
    }

    #[test]
    fn parametrize_argnames_are_read_in_every_form() {
        // review46 #7: the tuple and list forms were read as their first string only.
        assert_eq!(parametrize_argnames("@pytest.mark.parametrize(\"x, user\", [(1, 2)])"), ["x", "user"]);
        assert_eq!(parametrize_argnames("@pytest.mark.parametrize((\"x\", \"user\"), [(1, 2)])"), ["x", "user"]);
        assert_eq!(parametrize_argnames("@pytest.mark.parametrize(['x', 'user'], [(1, 2)])"), ["x", "user"]);
        assert_eq!(parametrize_argnames("@pytest.mark.parametrize('user', ['a, b'])"), ["user"]);
        assert!(parametrize_argnames("@pytest.mark.parametrize").is_empty());
    }

    #[test]
    fn a_class_attribute_of_the_name_in_a_class_defined_in_the_test_is_not_a_use() {
        // The recheck of trial154 F2: marshmallow's `class HasNestedExclude(Schema): user = …`
        // inside a test requesting `user`.
        let source = "def test_x(user):\n    class S(Base):\n        user = fields.Nested(Keep)\n\n        def other(self):\n            return 1\n\n    class T:\n        value = user\n\n    return S().dump({\"user\": user})\n";
        let grep = parse(source);
        let root = grep.root().get_inner_node();
        let function = root.named_child(0).unwrap();
        let mut found = Vec::new();
        collect_name_uses(source, function.child_by_field_name("body").unwrap(), "user", &mut found);
        let lines: Vec<usize> = found.iter().map(|range| source[..range.start].matches('\n').count() + 1).collect();
        assert_eq!(lines, vec![9, 11], "`T`'s read of the parameter and the dict's value; not `S`'s class attribute");
    }

    #[test]
    fn a_requesting_functions_parameter_and_body_uses_but_not_attributes_keywords_or_shadowing_lambdas() {
        let source = "def test_x(user, thing):\n    assert thing.thing == f(thing=thing)\n    g = lambda thing: thing\n    h = lambda: thing\n\ndef helper(thing):\n    return thing\n\ndef test_default(thing=1):\n    pass\n";
        let grep = parse(source);
        let root = grep.root().get_inner_node();
        let functions = requesting_functions(source, root, "thing", &["test*".to_owned()]);
        assert_eq!(functions.len(), 1, "helper is no test, a parameter with a default is no request");
        let (function, parameter) = functions[0];
        assert_eq!(&source[parameter.byte_range()], "thing");
        let mut uses = Vec::new();
        collect_name_uses(source, function.child_by_field_name("body").unwrap(), "thing", &mut uses);
        let lines: Vec<usize> = uses.iter().map(|range| source[..range.start].matches('\n').count() + 1).collect();
        assert_eq!(lines, vec![2, 2, 4], "`thing.thing` once, the keyword's value, the closure; not the lambda's own parameter");
    }

    #[test]
    fn keyword_arguments_are_found_by_the_syntax_tree_not_assignments() {
        let source = "flag = 1\nG(flag=True)\nG(\n    x=1,\n    flag=False,\n)\nf(a == flag)\n";
        assert_eq!(python_keyword_argument_names(source, "flag"), vec![(1, 2), (4, 4)]);
    }

    #[test]
    fn string_requests_are_usefixtures_and_getfixturevalue_arguments() {
        let source = "@pytest.mark.usefixtures(\"thing\", \"other\")\ndef test_a(request):\n    v = request.getfixturevalue('thing')\n    w = print(\"thing\")\n";
        let grep = parse(source);
        let found = string_requests(source, grep.root().get_inner_node(), "thing");
        assert_eq!(found.len(), 2);
    }
}
