//! Renames that move a function in or out of what a test runner collects (R-LSP-RENAME, the
//! rename check's warnings): `go test` runs `TestXxx` / `BenchmarkXxx` / `FuzzXxx` / `ExampleXxx`
//! functions of `_test.go` files; pytest collects `test*` functions (and `test*` methods of
//! `Test*` classes and `unittest.TestCase` subclasses) of `test_*.py` / `*_test.py` files, or the
//! patterns a pytest configuration sets.
//!
//! A test renamed out of the pattern is not run any more, and nothing fails: not the compiler, not
//! vet, not the runner (trial73 M2: `TestCollection` → `checkCollection`, `go test` ran 19 tests
//! instead of 21 and printed `ok`). A helper renamed into the pattern starts being collected.

use std::path::Path;

use crate::lsp::rename::WorkspaceEditPlan;

/// The test runners a rename's language has, with what each collects.
enum Runner {
    /// `go test`: functions of `_test.go` files.
    GoTest,
    /// pytest (and unittest's `test` method prefix): the file and function patterns in force.
    Pytest {
        /// `python_files` globs (`test_*.py`, `*_test.py` by default).
        file_patterns: Vec<String>,
        /// `python_functions` globs (`test*` by default).
        function_patterns: Vec<String>,
        /// Where the patterns came from: `pytest's defaults` or a configuration file's name.
        source: String,
    },
}

/// One `WARNING: …` per test function the plan renames out of its runner's pattern, and one
/// `NOTE: …` per function it renames into it, read from the plan's files before and after the
/// edit (`.go` and `.py` files). `old_name` → `new_name` is the rename; `project_root` is where
/// a pytest configuration (`pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]`,
/// `tox.ini`, `setup.cfg`) is looked for, read through `workspace_root`'s reader. `display`
/// shows a path. Empty when the rename changes no test's collection.
pub(crate) fn test_collection_warnings(
    workspace_root: &Path,
    project_root: &Path,
    plan: &WorkspaceEditPlan,
    old_name: &str,
    new_name: &str,
    display: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    let mut sentences = Vec::new();
    let go_test = Runner::GoTest;
    let mut pytest: Option<Runner> = None;
    for (path, old_text, new_text) in plan.texts_with_extensions(&["go", "py"]) {
        let file_name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
        let runner: &Runner = if file_name.ends_with("_test.go") {
            &go_test
        } else if file_name.ends_with(".py") {
            let runner = pytest.get_or_insert_with(|| pytest_patterns(workspace_root, project_root));
            match runner {
                Runner::Pytest { file_patterns, .. } if file_patterns.iter().any(|pattern| glob_matches(pattern, file_name)) => runner,
                _ => continue,
            }
        } else {
            continue;
        };
        let declared_before = collectable_declarations(runner, &old_text, old_name);
        let declared_after = collectable_declarations(runner, &new_text, new_name);
        let Some(&line0) = declared_before.first().or(declared_after.first()) else { continue };
        let place = format!("{}:{}", display(path), line0 + 1);
        let (was_test, is_test) = (is_test_name(runner, old_name), is_test_name(runner, new_name));
        match (runner, was_test && !declared_before.is_empty(), is_test && !declared_after.is_empty()) {
            (Runner::GoTest, true, false) => sentences.push(format!(
                "WARNING: `{old_name}` ({place}) is a function `go test` runs; `{new_name}` is not a test name (`Test`, `Benchmark`, `Fuzz` or `Example`, then a letter that is not lowercase), so after this rename `go test` silently runs it no more and still prints `ok` — no compile or vet error says so; keep the prefix if it is still a test"
            )),
            (Runner::Pytest { function_patterns, source, .. }, true, false) => sentences.push(format!(
                "WARNING: `{old_name}` ({place}) is a test pytest collects (python_functions {}, from {source}); `{new_name}` matches none of those patterns, so after this rename pytest silently runs it no more and still passes — nothing reports it; keep a name that matches if it is still a test",
                function_patterns.iter().map(|pattern| format!("`{pattern}`")).collect::<Vec<_>>().join(" ")
            )),
            (Runner::GoTest, false, true) => sentences.push(format!(
                "NOTE: `{new_name}` ({place}) is a test name: `go test` will now run it as a test (and `go vet` checks its signature: `func {new_name}(t *testing.T)` for `Test…`)"
            )),
            (Runner::Pytest { source, .. }, false, true) => sentences.push(format!(
                "NOTE: `{new_name}` ({place}) matches pytest's test pattern (from {source}): pytest will now collect and run it, and reads its parameters as fixtures"
            )),
            _ => {}
        }
    }
    sentences
}

/// Whether pytest collects the Python file `path` as a test module by its name: its
/// `python_files` patterns (pytest's defaults `test_*.py` / `*_test.py`, or those a configuration
/// in `project_root` sets), read through `workspace_root`'s reader.
pub(crate) fn pytest_collects_file(workspace_root: &Path, project_root: &Path, path: &Path) -> bool {
    let file_name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
    match pytest_patterns(workspace_root, project_root) {
        Runner::Pytest { file_patterns, .. } => file_patterns.iter().any(|pattern| glob_matches(pattern, file_name)),
        Runner::GoTest => false,
    }
}

/// Whether `name` is a test name for `runner`, by name alone.
fn is_test_name(runner: &Runner, name: &str) -> bool {
    match runner {
        Runner::GoTest => ["Test", "Benchmark", "Fuzz", "Example"]
            .iter()
            .any(|prefix| name.strip_prefix(prefix).is_some_and(|rest| rest.chars().next().is_none_or(|first| !first.is_lowercase()))),
        Runner::Pytest { function_patterns, .. } => function_patterns.iter().any(|pattern| glob_matches(pattern, name)),
    }
}

/// The 0-based lines of `text` that declare `name` where `runner` would collect it: a top-level
/// `func name(` for Go; for Python a `def name(` (or `async def`) at module level or directly in
/// a class, or a module-level `from … import name` (pytest collects imported functions too).
fn collectable_declarations(runner: &Runner, text: &str, name: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        match runner {
            Runner::GoTest => {
                if line.strip_prefix("func ").and_then(|rest| rest.strip_prefix(name)).is_some_and(|rest| rest.starts_with(['(', '['])) {
                    found.push(index);
                }
            }
            Runner::Pytest { .. } => {
                let code = line.trim_start();
                let indent = line.len() - code.len();
                let declares = code
                    .strip_prefix("async ")
                    .unwrap_or(code)
                    .strip_prefix("def ")
                    .and_then(|rest| rest.strip_prefix(name))
                    .is_some_and(|rest| rest.trim_start().starts_with('('));
                // pytest also collects a test-named function a test module imports.
                let imports = indent == 0
                    && code.starts_with("from ")
                    && code
                        .split_once(" import ")
                        .is_some_and(|(_, names)| names.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == name));
                if imports {
                    found.push(index);
                    continue;
                }
                if !declares {
                    continue;
                }
                // At module level, or the nearest less-indented code line above is a `class`.
                let in_class = || {
                    lines[..index]
                        .iter()
                        .rev()
                        .map(|above| (above.len() - above.trim_start().len(), above.trim_start()))
                        .find(|(above_indent, above)| *above_indent < indent && !above.is_empty() && !above.starts_with('#'))
                        .is_some_and(|(_, above)| above.starts_with("class "))
                };
                if indent == 0 || in_class() {
                    found.push(index);
                }
            }
        }
    }
    found
}

/// pytest's `python_files` and `python_functions` for the project at `project_root`: from the
/// first of `pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg` there that sets either (a file
/// that sets only one keeps the default of the other), else pytest's defaults.
fn pytest_patterns(workspace_root: &Path, project_root: &Path) -> Runner {
    let defaults = |source: String| Runner::Pytest {
        file_patterns: vec!["test_*.py".to_owned(), "*_test.py".to_owned()],
        function_patterns: vec!["test*".to_owned()],
        source,
    };
    for config in ["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"] {
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &project_root.join(config)) else { continue };
        let value = |key: &str| -> Option<Vec<String>> {
            text.lines().find_map(|line| {
                let (left, right) = line.split_once('=')?;
                (left.trim() == key).then(|| {
                    right
                        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '"' | '\''))
                        .filter(|part| !part.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
            })
        };
        let (files, functions) = (value("python_files"), value("python_functions"));
        if files.is_some() || functions.is_some() {
            let Runner::Pytest { file_patterns, function_patterns, .. } = defaults(String::new()) else { unreachable!() };
            return Runner::Pytest {
                file_patterns: files.filter(|list| !list.is_empty()).unwrap_or(file_patterns),
                function_patterns: functions.filter(|list| !list.is_empty()).unwrap_or(function_patterns),
                source: format!("`{config}`"),
            };
        }
    }
    defaults("pytest's defaults".to_owned())
}

/// pytest's `python_files` and `python_functions` patterns for the project at `project_root`
/// (see [`pytest_patterns`]), for the fixture-request scan of
/// [`crate::lsp::rename_pytest_fixtures`].
pub(crate) fn pytest_file_and_function_patterns(workspace_root: &Path, project_root: &Path) -> (Vec<String>, Vec<String>) {
    match pytest_patterns(workspace_root, project_root) {
        Runner::Pytest { file_patterns, function_patterns, .. } => (file_patterns, function_patterns),
        Runner::GoTest => (Vec::new(), Vec::new()),
    }
}

/// Whether `text` matches the glob `pattern`, where `*` is any run of characters and `?` one
/// character (pytest's `fnmatch` patterns without character classes).
pub(crate) fn glob_matches(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut p, mut t, mut star, mut star_t) = (0, 0, None, 0);
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some(p);
            star_t = t;
            p += 1;
        } else if let Some(at) = star {
            p = at + 1;
            star_t += 1;
            t = star_t;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_fnmatch_does() {
        assert!(glob_matches("test_*.py", "test_a.py"));
        assert!(glob_matches("*_test.py", "a_test.py"));
        assert!(!glob_matches("test_*.py", "a_test.py"));
        assert!(glob_matches("test*", "test"));
        assert!(glob_matches("t?st*", "tost_x"));
        assert!(!glob_matches("check_*", "test_x"));
    }

    #[test]
    fn go_test_names_follow_go_test_rules() {
        let go = Runner::GoTest;
        assert!(is_test_name(&go, "TestCollection"));
        assert!(is_test_name(&go, "Test"));
        assert!(is_test_name(&go, "Test_equal"));
        assert!(is_test_name(&go, "ExampleVersion_String"));
        assert!(!is_test_name(&go, "Testequal"), "a lowercase letter after the prefix");
        assert!(!is_test_name(&go, "checkCollection"));
    }

    #[test]
    fn python_declarations_are_collectable_at_module_level_and_in_classes() {
        let runner = Runner::Pytest { file_patterns: vec![], function_patterns: vec!["test*".into()], source: String::new() };
        let text = "def test_a():\n    def test_a():\n        pass\n\nclass TestX:\n    # c\n    def test_a(self):\n        pass\n";
        assert_eq!(collectable_declarations(&runner, text, "test_a"), vec![0, 6], "the nested def is not collected");
        assert_eq!(collectable_declarations(&runner, "from m import (a, test_a)\n", "test_a"), vec![0], "imported");
        let go = "func TestA(t *testing.T) {}\nfunc (s S) TestA() {}\n";
        assert_eq!(collectable_declarations(&Runner::GoTest, go, "TestA"), vec![0]);
    }
}
