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
//!
//! A fixture in a plugin module (neither a conftest.py nor a test module, `tests/fixtures.py`)
//! reaches the tests of the files that load it ([`project_reach`]), each with its own scope: a
//! conftest.py's `pytest_plugins = [...]`, a `-p` in the pytest configuration or a `pytest11`
//! entry point (pyproject.toml, setup.cfg) — the whole project, and for an entry point the name
//! is public to the suites that install the package; a conftest.py's `from <module> import *` /
//! `import name` — its directory and below; a test module's import or `pytest_plugins` — that
//! module. Module names resolve as Python does: a relative import from the importer's package,
//! an absolute name from the project root, its `src/` or the module's first ancestor without an
//! `__init__.py` ([`module_files`]). A conftest.py or test module that imports a fixture of the
//! same name from another module gets that closer fixture. The other plugin modules of the same
//! `pytest_plugins` / `-p` list are read for fixtures requesting it. When nothing in the project
//! loads the module, the requests elsewhere in the project (tests, conftest.py and plugin
//! fixtures) are listed, not renamed, and the rename is staged (rename.rs); with none, it is
//! written.

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
    /// The fixture is in a plugin module (neither a conftest.py nor a test module) that nothing
    /// in the project loads ([`project_reach`]): no conftest.py or test module names it in
    /// `pytest_plugins` or imports it, no `-p` in the pytest configuration, no `pytest11` entry
    /// point.
    pub plugin_without_loader: bool,
    /// [`Self::plugin_without_loader`] and tests or fixtures elsewhere request the name
    /// ([`Self::unrenamed_requests`]): pytest finds the module through a registration outside
    /// the project (a `-p` on the command line, an installed plugin), so those requests are left
    /// and would fail with "fixture 'old' not found" (review46 #6, review47 M5). The rename is
    /// staged.
    pub plugin_scope_unknown: bool,
    /// The requests left for [`Self::plugin_scope_unknown`]: `path:line \`function\`` or
    /// `path:line (a … string)`.
    pub unrenamed_requests: Vec<String>,
    /// The configuration file (pyproject.toml, setup.cfg) whose `pytest11` entry point loads the
    /// plugin module: the fixture's name is public to the test suites that install the package.
    pub public_through: Option<String>,
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
            let named: Vec<&str> = self.unrenamed_requests.iter().take(NAMED).map(String::as_str).collect();
            return format!(
                "WARNING: `{old_name}` ({}) is a pytest fixture in a plugin module — no conftest.py and no test module — and nothing in this project loads that module (no `pytest_plugins = [\"…\"]` or import of it in a conftest.py or test module, no `-p …` in the pytest configuration, no `pytest11` entry point in pyproject.toml or setup.cfg): pytest finds it through a registration outside the project (a `-p` on the command line, an installed plugin), so {} of `{old_name}` outside the module were NOT renamed ({} renamed in the module itself): {}{} — after this rename they fail with \"fixture '{old_name}' not found\"; rename each of those parameters (and its uses in the body) to `{new_name}` too",
                self.fixture,
                crate::render::plural(self.unrenamed_requests.len(), "request"),
                crate::render::plural(self.functions.len() + uses + self.strings.len(), "request edit"),
                named.join(", "),
                if self.unrenamed_requests.len() > NAMED { format!(" and {} more", self.unrenamed_requests.len() - NAMED) } else { String::new() },
            );
        }
        if self.plugin_without_loader && self.functions.is_empty() && self.strings.is_empty() {
            return format!(
                "note: `{old_name}` ({}) is a pytest fixture in a plugin module that nothing in this project loads (no `pytest_plugins`, import, `-p` or `pytest11` entry point), and no test or fixture here requests `{old_name}` by name: nothing else to rename; a test suite outside the project that loads the module (a `-p` on its command line) would need `{new_name}` now",
                self.fixture
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
        if let Some(configuration) = &self.public_through {
            sentence.push_str(&format!(
                "; the fixture's name is public: the `pytest11` entry point in {configuration} hands `{old_name}` to every test suite that installs this package, and theirs still request `{old_name}` — say the rename in the changelog, or keep an alias fixture `{old_name}` that returns `{new_name}` for a release"
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
    /// Its canonical path.
    path: PathBuf,
    /// Its text.
    source: String,
    /// A plugin module (neither conftest.py nor a test module): only its fixtures request, its
    /// `test*` functions are no tests.
    fixtures_only: bool,
    /// Its requests are listed as left ([`FixtureRequests::unrenamed_requests`]), not renamed: the
    /// plugin module's fixture reaches them through no loader in sight.
    record_only: bool,
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
    let project_root = std::fs::canonicalize(project_root).unwrap_or_else(|_| project_root.to_path_buf());
    let project_root = project_root.as_path();
    let is_conftest = fixture_path.file_name().is_some_and(|name| name == "conftest.py");
    let (file_patterns, function_patterns) =
        crate::lsp::rename_test_discovery::pytest_file_and_function_patterns(workspace_root, project_root);
    let is_test_module = |path: &Path| {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
        file_patterns.iter().any(|pattern| crate::lsp::rename_test_discovery::glob_matches(pattern, name))
    };
    let is_test_file = |path: &Path| path.file_name().is_some_and(|name| name == "conftest.py") || is_test_module(path);
    // A module-level fixture in a plugin module (neither conftest.py nor a test module) serves
    // the tests its loaders reach (review46 #6, review47 H3/M5).
    let plugin_module = !is_conftest && !is_test_module(&fixture_path) && fixture.class_range.is_none();
    let reach = if is_conftest || plugin_module {
        // A conftest.py fixture needs only the closer fixtures imported beneath its directory.
        let walk_root = if is_conftest { fixture_path.parent().unwrap_or(project_root) } else { project_root };
        project_reach(workspace_root, project_root, walk_root, &fixture_path, old_name, &file_patterns, display)
    } else {
        ProjectReach::default()
    };
    let loaders = if plugin_module { reach.loaders } else { Vec::new() };
    let companions = if plugin_module { reach.companions } else { Vec::new() };
    let no_loader = plugin_module && loaders.is_empty();
    // The paths (directories, or a test module's file) whose tests get the fixture.
    let scope_paths: Vec<PathBuf> = if is_conftest {
        vec![fixture_path.parent().unwrap_or(project_root).to_path_buf()]
    } else if no_loader {
        vec![project_root.to_path_buf()]
    } else {
        loaders.iter().map(|loader| loader.scope.path(project_root).to_path_buf()).collect()
    };
    found.scope = if is_conftest {
        format!("{}'s directory and below", display(&fixture_path))
    } else if fixture.class_range.is_some() {
        format!("its class in {}", display(&fixture_path))
    } else if !loaders.is_empty() {
        let named: Vec<String> = loaders
            .iter()
            .map(|loader| format!("{} ({}: {})", display(&loader.file), loader.kind, loader.scope.describe(project_root, display)))
            .collect();
        format!("the plugin module {} as loaded by {}", display(&fixture_path), named.join(", "))
    } else {
        format!("the module {}", display(&fixture_path))
    };
    found.public_through = loaders.iter().find(|loader| loader.kind == LoaderKind::EntryPoint).map(|loader| display(&loader.file));
    let mut files: Vec<ScopedFile> = Vec::new();
    if !scope_paths.is_empty() || !companions.is_empty() {
        let walk_root = if is_conftest { scope_paths[0].clone() } else { project_root.to_path_buf() };
        let wanted = |path: &Path| {
            let in_scope = scope_paths.iter().any(|scope| path.starts_with(scope));
            (in_scope && (is_test_file(path) || (no_loader && path.extension().is_some_and(|ext| ext == "py"))))
                || companions.iter().any(|companion| companion == path)
        };
        crate::lsp::rename_coverage::for_each_text_file_beneath(workspace_root, &walk_root, wanted, |path, text| {
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            if text.contains(old_name) && !files.iter().any(|file| file.path == path) {
                let fixtures_only = !is_test_file(&path);
                let record_only = no_loader && path != fixture_path;
                files.push(ScopedFile { path, source: text.to_owned(), fixtures_only, record_only });
            }
        });
    }
    if !files.iter().any(|file| file.path == fixture_path) {
        if let Some(source) = read(&fixture_path) {
            let fixtures_only = !is_test_file(&fixture_path);
            files.push(ScopedFile { path: fixture_path.clone(), source, fixtures_only, record_only: false });
        }
    }
    // Closer fixtures of the same name: conftest.py files further down (their directory), a
    // conftest.py or test module that imports another module's fixture of the name (its
    // directory, or itself), and each module's and class's own.
    let mut closers: Vec<(PathBuf, String)> = reach.closers;
    for file in &files {
        if file.path == fixture_path || file.path.file_name().is_none_or(|name| name != "conftest.py") {
            continue;
        }
        let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(file.source.as_str(), SupportLang::Python) else { continue };
        if let Some(closer) = fixture_definitions(&file.source, grep.root().get_inner_node()).iter().find(|d| d.requested_name == old_name)
        {
            if let Some(dir) = file.path.parent() {
                closers.push((dir.to_path_buf(), format!("{}:{}", display(&file.path), closer.line0 + 1)));
            }
        }
    }
    for file in &files {
        let closer_conftest = closers
            .iter()
            .filter(|(scope, _)| file.path.starts_with(scope))
            .max_by_key(|(scope, _)| scope.components().count())
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
        let patterns: &[String] = if file.fixtures_only { &[] } else { &function_patterns };
        for (function, parameter) in requesting_functions(&file.source, root, old_name, patterns) {
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
            if file.record_only {
                found.unrenamed_requests.push(format!("{at} `{}`", node_text(&file.source, name)));
                continue;
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
            if file.record_only {
                found.unrenamed_requests.push(format!("{at} (a `usefixtures` / `getfixturevalue` string)"));
                continue;
            }
            file_edits.push(edit_at(string));
            found.strings.push(at);
        }
        if !file_edits.is_empty() {
            found.edits.insert(file.path.clone(), file_edits);
        }
    }
    // No loader in sight: staged only when tests or fixtures elsewhere request the name, which
    // the rename then leaves (review47 M5).
    found.plugin_without_loader = no_loader;
    found.plugin_scope_unknown = no_loader && !found.unrenamed_requests.is_empty();
    Some(found)
}

/// How a loader brings a plugin module's fixtures into pytest's reach ([`project_reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LoaderKind {
    /// A `pytest_plugins = [...]` naming the module.
    PytestPlugins,
    /// `from <module> import *` or `from <module> import <fixture>`.
    Import,
    /// `-p <module>` in the pytest configuration's options.
    CommandLineOption,
    /// A `pytest11` entry point in pyproject.toml or setup.cfg.
    EntryPoint,
}

impl std::fmt::Display for LoaderKind {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            LoaderKind::PytestPlugins => "pytest_plugins",
            LoaderKind::Import => "an import",
            LoaderKind::CommandLineOption => "-p",
            LoaderKind::EntryPoint => "a pytest11 entry point",
        })
    }
}

/// Which tests a loader hands the plugin module's fixtures to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LoaderScope {
    /// Every test of the session (`pytest_plugins` in a conftest.py, `-p`, an entry point).
    Project,
    /// A conftest.py's directory and below (its import).
    Directory(PathBuf),
    /// One test module (its import, or its `pytest_plugins`).
    Module(PathBuf),
}

impl LoaderScope {
    /// The path whose files are in the scope (a directory, or a test module's file).
    fn path<'p>(&'p self, project_root: &'p Path) -> &'p Path {
        match self {
            LoaderScope::Project => project_root,
            LoaderScope::Directory(path) | LoaderScope::Module(path) => path,
        }
    }

    /// The scope in words: `the whole project`, `tests/unit/ and below`, `that module`.
    fn describe(&self, project_root: &Path, display: &dyn Fn(&Path) -> String) -> String {
        match self {
            LoaderScope::Project => "the whole project".to_owned(),
            LoaderScope::Directory(dir) if dir == project_root => "the whole project".to_owned(),
            LoaderScope::Directory(dir) => format!("{}/ and below", display(dir).trim_end_matches('/')),
            LoaderScope::Module(_) => "that module".to_owned(),
        }
    }
}

/// A file that loads a plugin module ([`project_reach`]).
#[derive(Debug)]
struct PluginLoader {
    /// The loading file (a conftest.py, a test module, the pytest configuration).
    file: PathBuf,
    /// How it loads the module.
    kind: LoaderKind,
    /// Whose tests get the module's fixtures.
    scope: LoaderScope,
}

/// What the project's conftest.py files, test modules and configuration say about a fixture's
/// module ([`project_reach`]).
#[derive(Debug, Default)]
struct ProjectReach {
    /// The files that load the module.
    loaders: Vec<PluginLoader>,
    /// The other plugin modules listed beside it (the same `pytest_plugins` or `-p` options):
    /// their fixtures may request the renamed one.
    companions: Vec<PathBuf>,
    /// Closer fixtures of the same name imported from another module: (the importing
    /// conftest.py's directory or the importing test module, `path:line` of that fixture).
    closers: Vec<(PathBuf, String)>,
}

/// Whether `path` is a regular file (no symlink followed).
fn is_regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// The loaders of the module `module_path` (which defines the fixture `name`) in the project:
/// each conftest.py and test module beneath `walk_root` (by `file_patterns`) whose
/// `pytest_plugins` names it or that imports it (`from <module> import *`, `from <module> import
/// name`; relative imports resolved from the importing file's package, absolute names from an
/// import root — see [`module_files`]); the pytest configuration's `-p <module>`; a `pytest11`
/// entry point in pyproject.toml or setup.cfg. Also the companions of those `pytest_plugins` /
/// `-p` lists, and the closer fixtures of the same name a file imports from another module
/// (review47 H3, M5). Files are read as [`crate::lsp::rename_coverage::for_each_text_file_beneath`]
/// reads them (no symlink followed, a file cap).
fn project_reach(
    workspace_root: &Path,
    project_root: &Path,
    walk_root: &Path,
    module_path: &Path,
    name: &str,
    file_patterns: &[String],
    display: &dyn Fn(&Path) -> String,
) -> ProjectReach {
    let roots = import_roots(project_root, module_path, &is_regular_file);
    let mut reach = ProjectReach::default();
    let wanted = |path: &Path| {
        let file = path.file_name().and_then(|file| file.to_str()).unwrap_or("");
        file == "conftest.py" || file_patterns.iter().any(|pattern| crate::lsp::rename_test_discovery::glob_matches(pattern, file))
    };
    // The `path:line` of the fixture `name` a module file defines, if it defines one.
    let defines_fixture = |file: &Path| -> Option<String> {
        let source = crate::files::read_workspace_file_to_string(workspace_root, file).ok()?;
        let grep = AstGrep::<StrDoc<SupportLang>>::try_new(source.as_str(), SupportLang::Python).ok()?;
        let definitions = fixture_definitions(&source, grep.root().get_inner_node());
        let definition = definitions.iter().find(|d| d.requested_name == name && d.class_range.is_none())?;
        Some(format!("{}:{}", display(file), definition.line0 + 1))
    };
    crate::lsp::rename_coverage::for_each_text_file_beneath(workspace_root, walk_root, wanted, |path, text| {
        // Only a `pytest_plugins`, a star import or an import of the name can load a fixture.
        if !text.contains("pytest_plugins") && !(text.contains("import") && (text.contains('*') || text.contains(name))) {
            return;
        }
        let file = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let is_conftest = file.file_name().is_some_and(|file| file == "conftest.py");
        let mut file_roots = roots.clone();
        file_roots.push(package_base_directory(&file, &is_regular_file));
        // `pytest_plugins` in a conftest.py registers the plugin for the whole session (pytest
        // allows it in the rootdir's conftest.py only); in a test module, the module is scoped.
        let listed: Vec<Vec<PathBuf>> =
            pytest_plugins_strings(text).iter().map(|plugin| module_files(&file, plugin, &file_roots)).collect();
        if listed.iter().any(|candidates| candidates.iter().any(|candidate| candidate == module_path)) {
            let scope = if is_conftest { LoaderScope::Project } else { LoaderScope::Module(file.clone()) };
            reach.loaders.push(PluginLoader { file: file.clone(), kind: LoaderKind::PytestPlugins, scope });
            push_companions(&mut reach.companions, listed, module_path);
        }
        // The last import that binds `name` decides what the file's namespace holds.
        let mut bound: Option<Option<String>> = None;
        for import in module_imports(text) {
            if !import.star && !import.names.iter().any(|bound_name| bound_name == name) {
                continue;
            }
            let candidates = module_files(&file, &import.module, &file_roots);
            if candidates.iter().any(|candidate| candidate == module_path) {
                bound = Some(None);
            } else if let Some(at) = candidates.iter().filter(|candidate| is_regular_file(candidate)).find_map(|c| defines_fixture(c)) {
                bound = Some(Some(at));
            }
        }
        let scope_path = if is_conftest { file.parent().unwrap_or(project_root).to_path_buf() } else { file.clone() };
        match bound {
            Some(None) => {
                let scope = if is_conftest { LoaderScope::Directory(scope_path) } else { LoaderScope::Module(scope_path) };
                reach.loaders.push(PluginLoader { file, kind: LoaderKind::Import, scope });
            }
            Some(Some(at)) => reach.closers.push((scope_path, at)),
            None => {}
        }
    });
    for configuration in ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"] {
        let path = project_root.join(configuration);
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &path) else { continue };
        let listed: Vec<Vec<PathBuf>> = command_line_plugins(&text).iter().map(|plugin| module_files(&path, plugin, &roots)).collect();
        if listed.iter().any(|candidates| candidates.iter().any(|candidate| candidate == module_path)) {
            reach.loaders.push(PluginLoader { file: path.clone(), kind: LoaderKind::CommandLineOption, scope: LoaderScope::Project });
            push_companions(&mut reach.companions, listed, module_path);
        }
        let entry_points = match configuration {
            "pyproject.toml" => pyproject_pytest11_modules(&text),
            "setup.cfg" => setup_cfg_pytest11_modules(&text),
            _ => Vec::new(),
        };
        if entry_points.iter().any(|module| module_files(&path, module, &roots).iter().any(|candidate| candidate == module_path)) {
            reach.loaders.push(PluginLoader { file: path, kind: LoaderKind::EntryPoint, scope: LoaderScope::Project });
        }
    }
    reach
}

/// Adds to `companions` the existing files of the modules `listed` beside `module_path`.
fn push_companions(companions: &mut Vec<PathBuf>, listed: Vec<Vec<PathBuf>>, module_path: &Path) {
    for candidate in listed.into_iter().flatten() {
        if candidate != module_path && is_regular_file(&candidate) && !companions.contains(&candidate) {
            companions.push(candidate);
        }
    }
}

/// The directories absolute module names resolve from, for the module `module_path`: the
/// project root, its `src/`, and the first ancestor of the module without an `__init__.py`
/// (pytest's rootdir / `prepend` import mode puts it on `sys.path`). `is_file` says whether a
/// path is a file.
fn import_roots(project_root: &Path, module_path: &Path, is_file: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut roots = vec![project_root.to_path_buf(), project_root.join("src")];
    let base = package_base_directory(module_path, is_file);
    if !roots.contains(&base) {
        roots.push(base);
    }
    roots
}

/// The first ancestor directory of `file` that has no `__init__.py` (the directory pytest's
/// `prepend` import mode puts on `sys.path` for it).
fn package_base_directory(file: &Path, is_file: &dyn Fn(&Path) -> bool) -> PathBuf {
    let mut dir = file.parent().unwrap_or(file);
    while is_file(&dir.join("__init__.py")) {
        let Some(parent) = dir.parent() else { break };
        dir = parent;
    }
    dir.to_path_buf()
}

/// The files the module name `module` may be, as written in `importer`: a relative name
/// (`.fixtures`, `..x.y`, `.`) climbs from the importer's package one level per dot after the
/// first; an absolute one (`tests.fixtures`) is joined to each of `roots`. Each name gives
/// `<path>.py` and `<path>/__init__.py` (a package); the bare `.` gives the package's
/// `__init__.py`. Pure: nothing is read.
fn module_files(importer: &Path, module: &str, roots: &[PathBuf]) -> Vec<PathBuf> {
    let module = module.trim();
    let dots = module.chars().take_while(|c| *c == '.').count();
    let parts: Vec<&str> = module[dots..].split('.').filter(|part| !part.is_empty()).collect();
    if parts.iter().any(|part| !part.chars().all(|c| c.is_alphanumeric() || c == '_')) {
        return Vec::new();
    }
    let bases: Vec<PathBuf> = if dots > 0 {
        let mut base = importer.parent();
        for _ in 1..dots {
            base = base.and_then(Path::parent);
        }
        base.map(Path::to_path_buf).into_iter().collect()
    } else if parts.is_empty() {
        Vec::new()
    } else {
        roots.to_vec()
    };
    let mut files = Vec::new();
    for base in bases {
        let dir = parts.iter().fold(base, |dir, part| dir.join(part));
        if !parts.is_empty() {
            let mut file = dir.clone().into_os_string();
            file.push(".py");
            files.push(PathBuf::from(file));
        }
        files.push(dir.join("__init__.py"));
    }
    files
}

/// The statements at a module's top level, also inside `if` / `try` / `with` blocks (not inside
/// a function or a class).
fn module_level_statements<'t>(node: tree_sitter::Node<'t>, found: &mut Vec<tree_sitter::Node<'t>>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "if_statement" | "try_statement" | "with_statement" | "block" | "else_clause" | "elif_clause" | "except_clause"
            | "finally_clause" => module_level_statements(child, found),
            _ => found.push(child),
        }
    }
}

/// The strings of the module-level `pytest_plugins` assignments in `source` (by the syntax tree:
/// `=`, annotated `pytest_plugins: list[str] = …`, `+=`; a string, a list or a tuple, and their
/// `+`; comments and other expressions ignored).
fn pytest_plugins_strings(source: &str) -> Vec<String> {
    if !source.contains("pytest_plugins") {
        return Vec::new();
    }
    let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python) else { return Vec::new() };
    let mut statements = Vec::new();
    module_level_statements(grep.root().get_inner_node(), &mut statements);
    let mut found = Vec::new();
    for statement in statements.into_iter().filter(|statement| statement.kind() == "expression_statement") {
        let Some(assignment) = statement.named_child(0) else { continue };
        let plain = assignment.kind() == "assignment";
        let added = assignment.kind() == "augmented_assignment"
            && assignment.child_by_field_name("operator").is_some_and(|operator| node_text(source, operator) == "+=");
        let names_plugins = assignment
            .child_by_field_name("left")
            .is_some_and(|left| left.kind() == "identifier" && node_text(source, left) == "pytest_plugins");
        if !(plain || added) || !names_plugins {
            continue;
        }
        let Some(value) = assignment.child_by_field_name("right") else { continue };
        let mut stack = vec![value];
        while let Some(node) = stack.pop() {
            if let Some((text, _)) = string_literal_content(source, node) {
                found.push(text.to_owned());
            } else if matches!(node.kind(), "list" | "tuple" | "parenthesized_expression" | "binary_operator" | "expression_list") {
                let mut cursor = node.walk();
                let children: Vec<tree_sitter::Node<'_>> = node.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
        }
    }
    found
}

/// A module-level `from <module> import …` statement ([`module_imports`]).
#[derive(Debug, PartialEq, Eq)]
struct ModuleImport {
    /// The module as written, leading dots kept (`.fixtures`, `tests.fixtures`).
    module: String,
    /// `import *`.
    star: bool,
    /// The names the statement binds (an `as` alias's target).
    names: Vec<String>,
}

/// The module-level `from … import …` statements of `source`, by the syntax tree.
fn module_imports(source: &str) -> Vec<ModuleImport> {
    let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python) else { return Vec::new() };
    let mut statements = Vec::new();
    module_level_statements(grep.root().get_inner_node(), &mut statements);
    let mut found = Vec::new();
    for statement in statements.into_iter().filter(|statement| statement.kind() == "import_from_statement") {
        let Some(module) = statement.child_by_field_name("module_name") else { continue };
        let module_id = module.id();
        let mut cursor = statement.walk();
        let mut star = false;
        let mut names = Vec::new();
        for child in statement.named_children(&mut cursor).filter(|child| child.id() != module_id) {
            match child.kind() {
                "wildcard_import" => star = true,
                "dotted_name" => names.push(node_text(source, child).to_owned()),
                "aliased_import" => {
                    if let Some(alias) = child.child_by_field_name("alias") {
                        names.push(node_text(source, alias).to_owned());
                    }
                }
                _ => {}
            }
        }
        let module: String = node_text(source, module).chars().filter(|c| !c.is_whitespace()).collect();
        found.push(ModuleImport { module, star, names });
    }
    found
}

/// The modules a pytest configuration's options load with `-p <module>` (or `-p<module>`),
/// `no:` disablings left out.
fn command_line_plugins(text: &str) -> Vec<String> {
    let trim = |token: &str| token.trim_matches(|c: char| matches!(c, '"' | '\'' | '[' | ']' | ',')).to_owned();
    let tokens: Vec<String> = text.split_whitespace().map(trim).collect();
    let mut found = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        let module = if token == "-p" {
            tokens.get(index + 1).cloned()
        } else {
            token.strip_prefix("-p").filter(|rest| rest.starts_with(|c: char| c.is_alphabetic() || c == '_')).map(str::to_owned)
        };
        if let Some(module) = module.filter(|module| !module.starts_with("no:") && !module.is_empty()) {
            found.push(module);
        }
    }
    found
}

/// The modules of the `pytest11` entry points in a pyproject.toml (`[project.entry-points.pytest11]`,
/// poetry's `[tool.poetry.plugins."pytest11"]`): each value's module, before any `:attribute`.
fn pyproject_pytest11_modules(text: &str) -> Vec<String> {
    let Ok(document) = text.parse::<toml_edit::DocumentMut>() else { return Vec::new() };
    let tables = [
        document.get("project").and_then(|project| project.get("entry-points")).and_then(|points| points.get("pytest11")),
        document
            .get("tool")
            .and_then(|tool| tool.get("poetry"))
            .and_then(|poetry| poetry.get("plugins"))
            .and_then(|plugins| plugins.get("pytest11")),
    ];
    let mut found = Vec::new();
    for table in tables.into_iter().flatten() {
        let Some(table) = table.as_table_like() else { continue };
        for (_, value) in table.iter() {
            if let Some(value) = value.as_str() {
                found.push(value.split(':').next().unwrap_or(value).trim().to_owned());
            }
        }
    }
    found
}

/// The modules of the `pytest11` entry points in a setup.cfg's `[options.entry_points]`
/// (`pytest11 =` followed by indented `name = module[:attribute]` lines).
fn setup_cfg_pytest11_modules(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_section = false;
    let mut in_key = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_section = trimmed == "[options.entry_points]";
            in_key = false;
            continue;
        }
        if !in_section || trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if !indented {
            let (key, value) = trimmed.split_once('=').unwrap_or((trimmed, ""));
            in_key = key.trim() == "pytest11";
            if in_key && !value.trim().is_empty() {
                if let Some((_, module)) = value.split_once('=') {
                    found.push(module.split(':').next().unwrap_or(module).trim().to_owned());
                }
            }
            continue;
        }
        if in_key {
            if let Some((_, module)) = trimmed.split_once('=') {
                found.push(module.split(':').next().unwrap_or(module).trim().to_owned());
            }
        }
    }
    found
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

/// The byte ranges, in Python `source`, of the items equal to `name` in the argnames of the
/// `@pytest.mark.parametrize(…)` decorators (`@mark.parametrize` too; the first argument or
/// `argnames=`: a string of comma-separated names, or a list or tuple of strings) of the one
/// function whose parameter list holds byte `parameter_offset`; empty when no function's
/// parameters hold it. pytest matches argnames to that function's parameters by name at
/// collection, so a renamed parameter whose argnames item is left makes the whole module fail
/// to collect (trial170 F3: humanize's `test_naturaldelta_minimum_unit_explicit(minimum_unit, …)`
/// renamed, its `"minimum_unit, seconds, expected"` left, and test_time.py stopped running);
/// another test's identical string is not its.
pub(crate) fn parametrize_argname_ranges(source: &str, parameter_offset: usize, name: &str) -> Vec<std::ops::Range<usize>> {
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python) else { return Vec::new() };
    let root = root.root().get_inner_node();
    let Some(function) = function_of_parameter(root, parameter_offset) else { return Vec::new() };
    let Some(decorated) = function.parent().filter(|up| up.kind() == "decorated_definition") else { return Vec::new() };
    let mut found = Vec::new();
    let mut cursor = decorated.walk();
    for decorator in decorated.named_children(&mut cursor).filter(|child| child.kind() == "decorator") {
        if let Some(call) = decorator.named_child(0) {
            found.extend(parametrize_call_argname_ranges(source, call, name));
        }
    }
    found
}

/// The `function_definition` whose parameter list holds byte `parameter_offset`, if any.
fn function_of_parameter(root: tree_sitter::Node<'_>, parameter_offset: usize) -> Option<tree_sitter::Node<'_>> {
    let mut node = root.descendant_for_byte_range(parameter_offset, parameter_offset)?;
    loop {
        if node.kind() == "parameters" {
            return node.parent().filter(|function| function.kind() == "function_definition");
        }
        if matches!(node.kind(), "block" | "module" | "lambda") {
            return None;
        }
        node = node.parent()?;
    }
}

/// The byte ranges of the argnames items equal to `name` of `call` when it is a
/// `pytest.mark.parametrize(…)` call (`mark.parametrize` too; the first argument or `argnames=`:
/// a string of comma-separated names, or a list or tuple of strings); empty for any other node.
fn parametrize_call_argname_ranges(source: &str, call: tree_sitter::Node<'_>, name: &str) -> Vec<std::ops::Range<usize>> {
    if call.kind() != "call" {
        return Vec::new();
    }
    let callee = call.child_by_field_name("function").map(|callee| node_text(source, callee)).unwrap_or("");
    if callee != "mark.parametrize" && !callee.ends_with(".mark.parametrize") {
        return Vec::new();
    }
    let Some(arguments) = call.child_by_field_name("arguments") else { return Vec::new() };
    let mut cursor = arguments.walk();
    let children: Vec<tree_sitter::Node<'_>> = arguments.named_children(&mut cursor).collect();
    let argnames = children
        .iter()
        .find(|argument| {
            argument.kind() == "keyword_argument"
                && argument.child_by_field_name("name").is_some_and(|keyword| node_text(source, keyword) == "argnames")
        })
        .and_then(|keyword| keyword.child_by_field_name("value"))
        .or_else(|| children.first().copied().filter(|first| first.kind() != "keyword_argument"));
    let Some(argnames) = argnames else { return Vec::new() };
    let strings: Vec<tree_sitter::Node<'_>> = match argnames.kind() {
        "string" => vec![argnames],
        "list" | "tuple" => {
            let mut cursor = argnames.walk();
            argnames.named_children(&mut cursor).filter(|item| item.kind() == "string").collect()
        }
        _ => Vec::new(),
    };
    let mut found = Vec::new();
    for string in strings {
        let Some((content, range)) = string_literal_content(source, string) else { continue };
        let mut offset = range.start;
        for item in content.split(',') {
            let leading = item.len() - item.trim_start().len();
            if item.trim() == name {
                found.push(offset + leading..offset + leading + name.len());
            }
            offset += item.len() + 1;
        }
    }
    found
}

/// A `@pytest.mark.parametrize` argnames item that names a renamed test parameter but belongs
/// to more than its function: a decorator of a class around it, or a `pytestmark` of that class
/// or of the module (review50 M7). pytest applies it to every test of the class or module, and
/// a test that then takes no parameter of that name fails to collect ("function uses no argument
/// …"); renaming the item instead breaks the other tests that take the old name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SharedParametrizeArgname {
    /// The item's byte range in the source.
    pub range: std::ops::Range<usize>,
    /// What sets it, for the answer: `` the class `TestX`'s decorator `` or `` the module's `pytestmark` ``.
    pub holder: String,
}

/// The [`SharedParametrizeArgname`]s equal to `name` that apply to the function whose parameter
/// list holds byte `parameter_offset` in Python `source`: the `parametrize` decorators of each
/// class around it, a `pytestmark = …` (a mark or a list/tuple of marks) in those classes' bodies
/// and at module level. Empty when no function's parameters hold the offset.
pub(crate) fn shared_parametrize_argnames(source: &str, parameter_offset: usize, name: &str) -> Vec<SharedParametrizeArgname> {
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python) else { return Vec::new() };
    let root = root.root().get_inner_node();
    let Some(function) = function_of_parameter(root, parameter_offset) else { return Vec::new() };
    let mut found = Vec::new();
    let mut holder_node = function.parent();
    while let Some(node) = holder_node {
        if node.kind() == "class_definition" {
            let class_name = node.child_by_field_name("name").map_or("", |class| node_text(source, class));
            if let Some(decorated) = node.parent().filter(|up| up.kind() == "decorated_definition") {
                let mut cursor = decorated.walk();
                for decorator in decorated.named_children(&mut cursor).filter(|child| child.kind() == "decorator") {
                    let Some(call) = decorator.named_child(0) else { continue };
                    found.extend(parametrize_call_argname_ranges(source, call, name).into_iter().map(|range| SharedParametrizeArgname {
                        range,
                        holder: format!("a `@pytest.mark.parametrize` decorator of the class `{class_name}`"),
                    }));
                }
            }
            if let Some(body) = node.child_by_field_name("body") {
                found.extend(
                    pytestmark_argname_ranges(source, body, name)
                        .into_iter()
                        .map(|range| SharedParametrizeArgname { range, holder: format!("the `pytestmark` of the class `{class_name}`") }),
                );
            }
        }
        if node.kind() == "module" {
            found.extend(
                pytestmark_argname_ranges(source, node, name)
                    .into_iter()
                    .map(|range| SharedParametrizeArgname { range, holder: "the module's `pytestmark`".to_owned() }),
            );
        }
        holder_node = node.parent();
    }
    found.sort_by_key(|shared| shared.range.start);
    found
}

/// The argnames items equal to `name` of the `parametrize` marks a `pytestmark = …` statement
/// directly in `block` (a module or class body) assigns: one mark, or a list or tuple of marks.
fn pytestmark_argname_ranges(source: &str, block: tree_sitter::Node<'_>, name: &str) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    let mut cursor = block.walk();
    for statement in block.named_children(&mut cursor).filter(|statement| statement.kind() == "expression_statement") {
        let Some(assignment) = statement.named_child(0).filter(|assignment| assignment.kind() == "assignment") else { continue };
        if assignment.child_by_field_name("left").map(|left| node_text(source, left)) != Some("pytestmark") {
            continue;
        }
        let Some(value) = assignment.child_by_field_name("right") else { continue };
        let marks: Vec<tree_sitter::Node<'_>> = match value.kind() {
            "list" | "tuple" => {
                let mut cursor = value.walk();
                value.named_children(&mut cursor).collect()
            }
            _ => vec![value],
        };
        for mark in marks {
            found.extend(parametrize_call_argname_ranges(source, mark, name));
        }
    }
    found
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
/// left (trial154 F1). Empty when the file does not parse. (Test view of
/// [`python_keyword_arguments`].)
#[cfg(test)]
pub fn python_keyword_argument_names(source: &str, name: &str) -> Vec<(u32, usize)> {
    python_keyword_arguments(source, Some(name)).into_iter().map(|(line0, byte, _)| (line0, byte)).collect()
}

/// The callee of the call whose keyword argument's name starts at 0-based (`line0`, `byte`) of
/// Python `source`, as written (`hookspec`, `self.marker`, `MC`): the `function` of the `call`
/// around its argument list. `None` when no keyword argument starts there, or it is no call's.
/// (Test view of [`python_keyword_arguments`].)
#[cfg(test)]
pub fn python_keyword_argument_callee(source: &str, line0: u32, byte: usize) -> Option<String> {
    python_keyword_arguments(source, None).into_iter().find(|(line, at, _)| (*line, *at) == (line0, byte))?.2
}

/// The `name=` keyword arguments of the Python files asked about, each file read beneath the
/// workspace and parsed once ([`python_keyword_arguments`]): the rename's and `references`'
/// checks of keyword arguments left on calls the server does not resolve ask it per occurrence.
#[derive(Debug, Default)]
pub(crate) struct KeywordCallees {
    by_file: std::collections::HashMap<PathBuf, Vec<(u32, usize, Option<String>)>>,
}

impl KeywordCallees {
    /// The callee, as written, of the call whose keyword argument `name=` starts at 0-based
    /// `line`/`byte` of `path`; `None` when no such keyword argument starts there, its argument
    /// list is no call's, or the file cannot be read.
    pub(crate) fn callee_at(
        &mut self,
        reader: &crate::files::WorkspaceReader,
        path: &Path,
        name: &str,
        line: u32,
        byte: usize,
    ) -> Option<&str> {
        let keywords = self.by_file.entry(path.to_path_buf()).or_insert_with(|| {
            let text = reader.read_to_string(path).unwrap_or_default();
            python_keyword_arguments(&text, Some(name))
        });
        keywords.iter().find(|(at_line, at_byte, _)| (*at_line, *at_byte) == (line, byte))?.2.as_deref()
    }
}

/// Every keyword argument of a call in Python `source` (those named `name` when given), in one
/// parse: (0-based line, byte column) of its name, and the callee of its call as written
/// (`None` when its argument list is no call's), sorted by position (trial166 M5).
pub fn python_keyword_arguments(source: &str, name: Option<&str>) -> Vec<(u32, usize, Option<String>)> {
    let Ok(grep) = AstGrep::<StrDoc<SupportLang>>::try_new(source, SupportLang::Python) else { return Vec::new() };
    let mut found = Vec::new();
    let mut stack = vec![grep.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "keyword_argument" {
            if let Some(key) = node.child_by_field_name("name").filter(|key| name.is_none_or(|name| node_text(source, *key) == name)) {
                let position = key.start_position();
                let callee = node
                    .parent()
                    .filter(|list| list.kind() == "argument_list")
                    .and_then(|list| list.parent())
                    .filter(|call| call.kind() == "call")
                    .and_then(|call| call.child_by_field_name("function"))
                    .map(|function| node_text(source, function).to_owned());
                found.push((position.row as u32, position.column, callee));
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

    #[test]
    fn the_callee_of_a_keyword_argument_is_the_function_of_its_call() {
        // pluggy (trial166 M5): `@hookspec(firstresult=True)` and `MC([m1], {}, firstresult=True)`.
        let source =
            "@hookspec(firstresult=True)\ndef h(): ...\n\nMC([m1, m2], {}, firstresult=True)\nself.mark.spec(\n    firstresult=False,\n)\n";
        assert_eq!(python_keyword_argument_callee(source, 0, 10).as_deref(), Some("hookspec"));
        assert_eq!(python_keyword_argument_callee(source, 3, 17).as_deref(), Some("MC"));
        assert_eq!(python_keyword_argument_callee(source, 5, 4).as_deref(), Some("self.mark.spec"));
        assert_eq!(python_keyword_argument_callee(source, 3, 0), None);
    }

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
    fn pytest_plugins_is_read_from_module_level_assignments_by_the_syntax_tree() {
        // review47 M5: each of these gave `[]` or a partial list with the text scan.
        let cases: [(&str, &[&str]); 8] = [
            ("# pytest_plugins below\npytest_plugins = [\"tests.fixtures\"]\n", &["tests.fixtures"]),
            ("\"\"\"Uses pytest_plugins.\"\"\"\npytest_plugins = \"tests.fixtures\"\n", &["tests.fixtures"]),
            ("pytest_plugins: list[str] = [\"tests.fixtures\"]\n", &["tests.fixtures"]),
            ("pytest_plugins = [\n    \"tests.fixtures\",  # db (see docs)\n    \"tests.more\",\n]\n", &["tests.fixtures", "tests.more"]),
            ("pytest_plugins = [\"a\"] + [\"tests.fixtures\"]\n", &["a", "tests.fixtures"]),
            ("pytest_plugins = (\"a\", \"b\")\npytest_plugins += [\"c\"]\n", &["a", "b", "c"]),
            ("def f():\n    pytest_plugins = [\"inner\"]\nx = \"pytest_plugins\"\n", &[]),
            ("pytest_plugins = [name, \"s\", f\"t{x}\"]\n", &["s"]),
        ];
        for (source, expected) in cases {
            assert_eq!(pytest_plugins_strings(source), expected, "{source}");
        }
    }

    #[test]
    fn from_imports_are_read_with_their_dots_star_and_bound_names() {
        let source = "from .fixtures import *  # noqa\nfrom ..x import (\n    a,\n    thing as other,\n)\nfrom tests.fixtures import thing\nimport tests.more\ndef f():\n    from inner import *\n";
        assert_eq!(
            module_imports(source),
            vec![
                ModuleImport { module: ".fixtures".to_owned(), star: true, names: vec![] },
                ModuleImport { module: "..x".to_owned(), star: false, names: vec!["a".to_owned(), "other".to_owned()] },
                ModuleImport { module: "tests.fixtures".to_owned(), star: false, names: vec!["thing".to_owned()] },
            ]
        );
    }

    #[test]
    fn module_names_resolve_relative_to_the_importer_and_absolute_from_the_roots() {
        // review47 H3: a relative import climbs from the importer's package, one level per dot
        // after the first; no dotted-suffix match.
        let conftest = Path::new("/p/tests/unit/conftest.py");
        let roots = vec![PathBuf::from("/p"), PathBuf::from("/p/src")];
        let files = |module: &str| module_files(conftest, module, &roots);
        assert_eq!(files(".fixtures"), [PathBuf::from("/p/tests/unit/fixtures.py"), PathBuf::from("/p/tests/unit/fixtures/__init__.py")]);
        assert_eq!(files("..fixtures"), [PathBuf::from("/p/tests/fixtures.py"), PathBuf::from("/p/tests/fixtures/__init__.py")]);
        assert_eq!(files("..a.b")[0], PathBuf::from("/p/tests/a/b.py"));
        assert_eq!(files("."), [PathBuf::from("/p/tests/unit/__init__.py")]);
        assert_eq!(
            files("tests.fixtures"),
            [
                PathBuf::from("/p/tests/fixtures.py"),
                PathBuf::from("/p/tests/fixtures/__init__.py"),
                PathBuf::from("/p/src/tests/fixtures.py"),
                PathBuf::from("/p/src/tests/fixtures/__init__.py"),
            ]
        );
        // `fixtures` names a root `fixtures.py`, not `tests/fixtures.py`.
        assert!(!files("fixtures").contains(&PathBuf::from("/p/tests/fixtures.py")));
        assert!(files("no:cacheprovider").is_empty());
    }

    #[test]
    fn import_roots_add_the_first_ancestor_without_an_init_and_a_package_plugin_is_its_init() {
        let packages = [PathBuf::from("/p/tests/__init__.py"), PathBuf::from("/p/tests/fixtures/__init__.py")];
        let is_file = |path: &Path| packages.iter().any(|package| package == path);
        // tests/ is a package: the base is the project root, already a root.
        let roots = import_roots(Path::new("/p"), Path::new("/p/tests/fixtures/__init__.py"), &is_file);
        assert_eq!(roots, [PathBuf::from("/p"), PathBuf::from("/p/src")]);
        let plugin = Path::new("/p/tests/fixtures/__init__.py");
        assert!(module_files(Path::new("/p/tests/conftest.py"), "tests.fixtures", &roots).iter().any(|file| file == plugin));
        // No `__init__.py` in other/: rootdir mode puts other/ on sys.path, `helpers` names it.
        let roots = import_roots(Path::new("/p"), Path::new("/p/other/helpers.py"), &is_file);
        assert_eq!(roots[2], PathBuf::from("/p/other"));
        assert!(module_files(Path::new("/p/other/conftest.py"), "helpers", &roots).contains(&PathBuf::from("/p/other/helpers.py")));
    }

    #[test]
    fn command_line_plugins_and_pytest11_entry_points_are_read() {
        let ini = "[tool.pytest.ini_options]\naddopts = \"-p tests.fixtures -ptests.more -p no:cacheprovider\"\n";
        assert_eq!(command_line_plugins(ini), ["tests.fixtures", "tests.more"]);
        let pyproject = "[project]\nname = \"app\"\n\n[project.entry-points.pytest11]\napp = \"app.plugin:main\"\n\n[tool.poetry.plugins.\"pytest11\"]\nother = \"app.other\"\n";
        assert_eq!(pyproject_pytest11_modules(pyproject), ["app.plugin", "app.other"]);
        let setup_cfg = "[metadata]\nname = app\n\n[options.entry_points]\nconsole_scripts =\n    app = app.cli:main\npytest11 =\n    app = app.plugin\n    more = app.more:hook\n\n[flake8]\nx = y\n";
        assert_eq!(setup_cfg_pytest11_modules(setup_cfg), ["app.plugin", "app.more"]);
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
    #[test]
    fn shared_parametrize_argnames_are_read_from_classes_around_and_pytestmark() {
        // review50 M7: a class's decorator, a class's and the module's `pytestmark` apply to the
        // test; another class's decorator and the test's own decorator are not shared items.
        let source = "import pytest\n\npytestmark = [pytest.mark.slow, pytest.mark.parametrize(\"unit, n\", [])]\n\n\n@pytest.mark.parametrize(argnames=[\"unit\"], argvalues=[])\nclass TestOuter:\n    pytestmark = pytest.mark.parametrize(\"unit\", [])\n\n    @pytest.mark.parametrize(\"unit\", [])\n    def test_a(self, unit):\n        pass\n\n\n@pytest.mark.parametrize(\"unit\", [])\nclass TestOther:\n    pass\n";
        let parameter = source.find("self, unit").unwrap() + "self, ".len();
        let found = shared_parametrize_argnames(source, parameter, "unit");
        let lines: Vec<(usize, &str)> =
            found.iter().map(|shared| (source[..shared.range.start].lines().count(), shared.holder.as_str())).collect();
        assert_eq!(
            lines,
            [
                (3, "the module's `pytestmark`"),
                (6, "a `@pytest.mark.parametrize` decorator of the class `TestOuter`"),
                (8, "the `pytestmark` of the class `TestOuter`"),
            ]
        );
        assert!(found.iter().all(|shared| &source[shared.range.clone()] == "unit"));
        // An offset outside a parameter list: nothing.
        assert!(shared_parametrize_argnames(source, source.find("pass").unwrap(), "unit").is_empty());
    }

    #[test]
    fn parametrize_argnames_of_the_parameters_own_function_are_found() {
        // humanize 4.17.0 (trial170 F3): two tests share one argnames string; only the renamed
        // parameter's own function's decorator counts.
        let source = "import pytest\n\n\n@pytest.mark.parametrize(\n    \"minimum_unit, seconds, expected\",\n    [(\"s\", 1, \"x\")],\n)\ndef test_a(minimum_unit, seconds, expected):\n    assert minimum_unit\n\n\n@pytest.mark.parametrize(\"minimum_unit, seconds, expected\", [])\ndef test_b(minimum_unit, seconds, expected):\n    pass\n\n\n@pytest.mark.parametrize(argnames=[\"x\", \"minimum_unit\"], argvalues=[])\ndef test_c(x, minimum_unit):\n    pass\n";
        let parameter = source.find("test_a(minimum_unit").unwrap() + "test_a(".len();
        let found = parametrize_argname_ranges(source, parameter, "minimum_unit");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(&source[found[0].clone()], "minimum_unit");
        assert_eq!(source[..found[0].start].lines().count(), 5, "line 5 holds test_a's argnames");
        let in_list = source.find("test_c(x, minimum_unit").unwrap() + "test_c(x, ".len();
        let found = parametrize_argname_ranges(source, in_list, "minimum_unit");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(source[..found[0].start].ends_with("argnames=[\"x\", \""), "{found:?}");
        // An offset in a body, or another name: nothing.
        assert!(parametrize_argname_ranges(source, source.find("assert minimum_unit").unwrap() + 7, "minimum_unit").is_empty());
        assert!(parametrize_argname_ranges(source, parameter, "seconds_x").is_empty());
    }
}
