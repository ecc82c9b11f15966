//! Which documentation files pytest collects as doctests (issue 11, trial27a M1).
//!
//! voluptuous 0.16.0's pyproject.toml has `[tool.pytest.ini_options] testpaths =
//! "voluptuous/tests"` and `addopts = "--doctest-glob=*.md -v"`: `voluptuous/tests/tests.md` is a
//! test file, and a rename that leaves the old name in it makes `pytest` fail — while runbound
//! filed it with README.md under "documentation files … examples may now be wrong", past the cap.
//! [`pytest_doctest_config`] reads the `--doctest-glob` options and `testpaths` from the first
//! pytest configuration found at the server's root, in pytest's order — `pytest.ini` (`[pytest]`),
//! `pyproject.toml` (`[tool.pytest.ini_options]`), `tox.ini` (`[pytest]`), `setup.cfg`
//! (`[tool:pytest]`) — and [`PytestDoctestConfig::collects`] says whether a file is collected: its
//! name (or, for a glob with a `/`, its path) matches a glob, and it lies under a `testpaths`
//! entry (anywhere under the root without one). Options given on the command line or in
//! `conftest.py` are not seen.

use std::path::{Path, PathBuf};

use crate::files::WorkspaceReader;

/// The doctest globs of one pytest configuration.
#[derive(Debug, Clone)]
pub struct PytestDoctestConfig {
    /// The configuration file and section, for the answer (`pyproject.toml [tool.pytest.ini_options]`).
    pub source: String,
    /// The `--doctest-glob` patterns, as written.
    pub globs: Vec<String>,
    /// The `testpaths` entries, absolute (empty: the whole root).
    pub testpaths: Vec<PathBuf>,
    matchers: Vec<globset::GlobMatcher>,
}

impl PytestDoctestConfig {
    /// Whether pytest collects `path` as a doctest file under this configuration.
    pub fn collects(&self, root: &Path, path: &Path) -> bool {
        let under_testpaths = self.testpaths.is_empty() || self.testpaths.iter().any(|testpath| path.starts_with(testpath));
        if !under_testpaths {
            return false;
        }
        let name = path.file_name().map(Path::new);
        let relative = path.strip_prefix(root).ok();
        self.globs.iter().zip(&self.matchers).any(|(glob, matcher)| {
            if glob.contains('/') {
                relative.is_some_and(|relative| matcher.is_match(relative))
            } else {
                name.is_some_and(|name| matcher.is_match(name))
            }
        })
    }

    /// The configuration in words: `--doctest-glob=*.md in pyproject.toml [tool.pytest.ini_options] addopts, testpaths voluptuous/tests`.
    pub fn describe(&self, shown: &dyn Fn(&Path) -> String) -> String {
        let globs: Vec<String> = self.globs.iter().map(|glob| format!("--doctest-glob={glob}")).collect();
        let mut text = format!("{} in {} addopts", globs.join(" "), self.source);
        if !self.testpaths.is_empty() {
            let paths: Vec<String> = self.testpaths.iter().map(|path| shown(path)).collect();
            text.push_str(&format!(", testpaths {}", paths.join(" ")));
        }
        text
    }
}

/// The `--doctest-glob` patterns in an `addopts` value (`--doctest-glob=*.md`, `--doctest-glob
/// *.rst`).
fn doctest_globs(addopts: &[String]) -> Vec<String> {
    let words: Vec<&str> = addopts.iter().flat_map(|value| value.split_whitespace()).collect();
    let mut globs = Vec::new();
    for (index, word) in words.iter().enumerate() {
        if let Some(glob) = word.strip_prefix("--doctest-glob=") {
            globs.push(glob.trim_matches(|c| c == '"' || c == '\'').to_owned());
        } else if *word == "--doctest-glob" {
            if let Some(glob) = words.get(index + 1) {
                globs.push(glob.trim_matches(|c| c == '"' || c == '\'').to_owned());
            }
        }
    }
    globs
}

/// The `key`'s value in section `section` of an ini-style file (continuation lines joined).
fn ini_value(text: &str, section: &str, key: &str) -> Option<Vec<String>> {
    let mut in_section = false;
    let mut value: Option<Vec<String>> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            if value.is_some() {
                break;
            }
            in_section = trimmed == format!("[{section}]");
            continue;
        }
        if !in_section || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(collected) = value.as_mut() {
            if line.starts_with(char::is_whitespace) && !trimmed.is_empty() {
                collected.push(trimmed.to_owned());
                continue;
            }
            break;
        }
        if let Some((name, rest)) = trimmed.split_once('=') {
            if name.trim() == key {
                let rest = rest.trim();
                value = Some(if rest.is_empty() { Vec::new() } else { vec![rest.to_owned()] });
            }
        }
    }
    value
}

/// The `[tool.pytest.ini_options]` `key` of a pyproject.toml: a string or an array of strings.
fn pyproject_value(text: &str, key: &str) -> Option<Vec<String>> {
    let document = toml_edit::Document::parse(text.to_owned()).ok()?;
    let item = document.as_table().get("tool")?.get("pytest")?.get("ini_options")?.get(key)?;
    if let Some(value) = item.as_str() {
        return Some(vec![value.to_owned()]);
    }
    Some(item.as_array()?.iter().filter_map(|value| value.as_str().map(str::to_owned)).collect())
}

/// The pytest doctest configuration at `root` (see the module docs); `None` when no pytest
/// configuration there sets `--doctest-glob`.
pub fn pytest_doctest_config(reader: &WorkspaceReader, root: &Path) -> Option<PytestDoctestConfig> {
    // pytest's order: the first file that holds a pytest section is the configuration.
    let candidates: [(&str, &str); 4] =
        [("pytest.ini", "pytest"), ("pyproject.toml", "tool.pytest.ini_options"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")];
    for (file, section) in candidates {
        let Ok(text) = reader.read_to_string(&root.join(file)) else { continue };
        let (addopts, testpaths) = if file == "pyproject.toml" {
            let has_section = toml_edit::Document::parse(text.clone())
                .ok()
                .is_some_and(|document| document.as_table().get("tool").and_then(|tool| tool.get("pytest")).is_some());
            if !has_section {
                continue;
            }
            (pyproject_value(&text, "addopts"), pyproject_value(&text, "testpaths"))
        } else {
            let has_section = text.lines().any(|line| line.trim() == format!("[{section}]"));
            if !has_section {
                continue;
            }
            (ini_value(&text, section, "addopts"), ini_value(&text, section, "testpaths"))
        };
        let globs = doctest_globs(&addopts.unwrap_or_default());
        if globs.is_empty() {
            return None;
        }
        let matchers =
            globs.iter().map(|glob| globset::Glob::new(glob).map(|glob| glob.compile_matcher())).collect::<Result<Vec<_>, _>>().ok()?;
        let testpaths = testpaths
            .unwrap_or_default()
            .iter()
            .flat_map(|value| value.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .map(|entry| root.join(entry))
            .collect();
        return Some(PytestDoctestConfig { source: format!("{file} [{section}]"), globs, testpaths, matchers });
    }
    None
}

/// How many occurrences in collected doctest files [`doctest_files_line`] names.
const MAX_LISTED: usize = 40;

/// The rename's line for the occurrences left in collected doctest files, at most
/// [`MAX_LISTED`] named (each is a failing test): `  left unrenamed in test files pytest runs as doctests
/// (--doctest-glob=*.md in pyproject.toml [tool.pytest.ini_options] addopts, testpaths
/// voluptuous/tests) — pytest now FAILS where they use the old name; rename them by hand: …`.
pub fn doctest_files_line(
    old_name: &str,
    config: &PytestDoctestConfig,
    hits: &[(PathBuf, usize)],
    shown: &dyn Fn(&Path) -> String,
) -> String {
    let mut files: Vec<String> = Vec::new();
    for (path, _) in hits {
        let name = shown(path);
        if !files.contains(&name) {
            files.push(name);
        }
    }
    let mut places: Vec<String> = hits.iter().take(MAX_LISTED).map(|(path, line)| format!("{}:{line}", shown(path))).collect();
    if hits.len() > MAX_LISTED {
        places.push(format!("({})", crate::render::showing(MAX_LISTED, hits.len(), "")));
    }
    format!(
        "  left unrenamed: {} of `{old_name}` in {} that pytest runs as doctests ({}) — pytest now FAILS where an example uses the old name; rename them by hand: {}",
        crate::render::plural(hits.len(), "occurrence"),
        if files.len() == 1 { format!("the test file {}", files[0]) } else { format!("{} test files ({})", files.len(), files.join(", ")) },
        config.describe(shown),
        places.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, Option<PytestDoctestConfig>) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (name, text) in files {
            std::fs::write(root.join(name), text).unwrap();
        }
        let reader = WorkspaceReader::open(&root).unwrap();
        let found = pytest_doctest_config(&reader, &root);
        (dir, root, found)
    }

    #[test]
    fn a_pyproject_doctest_glob_with_testpaths_collects_the_test_markdown_not_the_readme() {
        let pyproject = "[tool.pytest.ini_options]\ntestpaths = \"voluptuous/tests\"\naddopts = \"--doctest-glob=*.md -v\"\n";
        let (_dir, root, found) = config(&[("pyproject.toml", pyproject)]);
        let found = found.expect("a doctest glob");
        assert!(found.collects(&root, &root.join("voluptuous/tests/tests.md")));
        assert!(!found.collects(&root, &root.join("README.md")));
        assert_eq!(found.source, "pyproject.toml [tool.pytest.ini_options]");
    }

    #[test]
    fn ini_files_with_a_separate_glob_argument_and_list_testpaths_are_read() {
        let setup = "[metadata]\nname = x\n\n[tool:pytest]\naddopts =\n    --doctest-glob '*.rst'\n    -q\ntestpaths = docs tests\n";
        let (_dir, root, found) = config(&[("setup.cfg", setup)]);
        let found = found.expect("a doctest glob");
        assert_eq!(found.globs, ["*.rst"]);
        assert!(found.collects(&root, &root.join("docs/usage.rst")));
        assert!(!found.collects(&root, &root.join("README.rst")));
        // pytest.ini wins over setup.cfg, and without a glob nothing is collected.
        let (_dir, _root, found) = config(&[("pytest.ini", "[pytest]\naddopts = -q\n"), ("setup.cfg", setup)]);
        assert!(found.is_none());
    }
}
