//! Which Python files pyright checks under a root, read from its configuration the way pyright
//! reads it, so that an answer built from pyright's program (`lsp diagnostics "*"`, workspace
//! symbols, implementations) says which files it never looked at.
//!
//! itsdangerous 2.2.0 has `[tool.pyright] include = ["src/itsdangerous"]`: `"*"` answered
//! "0 errors" while the 6 files of `tests/` and `docs/conf.py` — 3 errors there — were never
//! checked, and nothing said so.
//!
//! The rules, from pyright's `docs/configuration.md` and its source enumeration:
//!
//! - The configuration: the first `pyrightconfig.json` from the root up (to the workspace root),
//!   else the first `pyproject.toml` from the root up (its `[tool.pyright]` table, or
//!   `[tool.basedpyright]`; a `pyproject.toml` without either sets nothing). `extends` chains are
//!   followed (at most 8 files): `include`, `exclude`, `ignore` come from the first file of the
//!   chain that sets them, relative to that file's directory.
//! - `include`: paths of directories or files (default: the configuration's directory).
//!   `exclude` overrides it; when it is not set, pyright excludes `**/node_modules`,
//!   `**/__pycache__`, `**/.*` and every virtual environment (a directory holding `pyvenv.cfg`,
//!   `conda-meta`, `bin/activate` or `Scripts/activate`). `ignore`: files pyright checks but
//!   whose diagnostics it suppresses.
//! - Globs: `**` any number of directories, `*` any run of characters within one path
//!   component, `?` one character; every other character is literal. A spec matches a path when
//!   it matches the path or one of its ancestor directories (pyright's `^spec($|/)`).
//!
//! The files counted as NOT checked leave out what pyright skips anyway — hidden directories,
//! `node_modules`, `__pycache__`, virtual environments — and what the walk's ignore files
//! (`.gitignore`) leave out; nothing is said of those.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

/// pyright's excludes when the configuration sets none.
const DEFAULT_EXCLUDES: &[&str] = &["**/node_modules", "**/__pycache__", "**/.*"];

/// Directory names the walk for files outside the scope never enters (pyright skips them by
/// default; a project that excludes explicitly is not told about them either).
const ALWAYS_SKIPPED: &[&str] = &["node_modules", "__pycache__"];

/// How many Python files outside the scope a walk keeps (the count goes on).
pub(crate) const OUTSIDE_FILES_KEPT: usize = 3000;

/// One `include` / `exclude` / `ignore` entry: as written, and its matcher on absolute paths.
#[derive(Debug, Clone)]
struct FileSpec {
    written: String,
    matcher: GlobMatcher,
}

impl FileSpec {
    /// `written` (relative to `base`, or absolute) as pyright turns it into a pattern. `None`
    /// when the pattern cannot be built (it then matches nothing).
    fn new(base: &Path, written: &str) -> Option<FileSpec> {
        let joined = if Path::new(written).is_absolute() { PathBuf::from(written) } else { base.join(written) };
        let normal = crate::files::path::lexically_normal(&joined);
        // The components that come from `base` are literal (a folder named `a[1]`); the
        // entry's own keep `*`, `?` and `**`.
        let literal_components = if normal.starts_with(base) { base.components().count() } else { 0 };
        let mut pattern = String::new();
        for (index, component) in normal.components().enumerate() {
            let text = match component {
                Component::RootDir => {
                    pattern.push('/');
                    continue;
                }
                Component::Normal(text) => text.to_string_lossy().into_owned(),
                _ => continue,
            };
            if !pattern.is_empty() && !pattern.ends_with('/') {
                pattern.push('/');
            }
            if index < literal_components {
                pattern.push_str(&escape_glob(&text, true));
            } else if text == "**" {
                pattern.push_str("**");
            } else {
                // `**` inside a component is two `*` for pyright: one `*` here.
                pattern.push_str(&escape_glob(&text.replace("**", "*"), false));
            }
        }
        let glob = GlobBuilder::new(&pattern).literal_separator(true).backslash_escape(true).build().ok()?;
        Some(FileSpec { written: written.to_owned(), matcher: glob.compile_matcher() })
    }

    /// Whether the spec matches `path` (absolute) or one of its ancestors.
    fn matches(&self, path: &Path) -> bool {
        path.ancestors().any(|ancestor| ancestor.parent().is_some() && self.matcher.is_match(ancestor))
    }
}

/// `text` with globset's special characters made literal; `*` and `?` too when `all`.
fn escape_glob(text: &str, all: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let special = matches!(c, '[' | ']' | '{' | '}' | '\\') || (all && matches!(c, '*' | '?'));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Where a Python file stands in pyright's scope (see [`PyrightScope::classify`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileInScope {
    /// Checked, diagnostics reported.
    Checked,
    /// Checked, but an `ignore` entry (this one, as written) suppresses its diagnostics.
    Ignored(String),
    /// No `include` entry matches it.
    NotIncluded,
    /// An `exclude` entry (this one, as written) matches it.
    Excluded(String),
}

/// pyright's configured scope for one root (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct PyrightScope {
    /// Where it was read, workspace-relative: `pyproject.toml [tool.pyright]`,
    /// `pyrightconfig.json`.
    pub source: String,
    include: Vec<FileSpec>,
    exclude: Vec<FileSpec>,
    ignore: Vec<FileSpec>,
    /// `include` was written (not pyright's default, the configuration's directory).
    include_set: bool,
    /// `exclude` was written (pyright's defaults and its virtual-environment skip are off).
    exclude_set: bool,
}

/// What [`read_pyright_scope`] found.
#[derive(Debug, Clone)]
pub(crate) enum PyrightScopeRead {
    /// No configuration file applies: pyright checks every Python file under the root (less its
    /// default excludes).
    NoConfiguration,
    /// The configuration read.
    Configured(PyrightScope),
    /// A configuration file exists but could not be read or parsed: which files pyright left
    /// out is unknown. `file` is workspace-relative; `why` says what failed.
    Unreadable {
        /// The file.
        file: String,
        /// What failed.
        why: String,
    },
}

impl PyrightScope {
    /// Where `path` (absolute) stands: not included, excluded, ignored or checked, in pyright's
    /// order (an excluded file is not checked, whatever `ignore` says).
    pub(crate) fn classify(&self, path: &Path) -> FileInScope {
        if !self.include.iter().any(|spec| spec.matches(path)) {
            return FileInScope::NotIncluded;
        }
        if let Some(spec) = self.exclude.iter().find(|spec| spec.matches(path)) {
            return FileInScope::Excluded(spec.written.clone());
        }
        match self.ignore.iter().find(|spec| spec.matches(path)) {
            Some(spec) => FileInScope::Ignored(spec.written.clone()),
            None => FileInScope::Checked,
        }
    }

    /// Whether the configuration can leave a file under its directory out or silence it: it
    /// sets `include`, `exclude` or `ignore`.
    pub(crate) fn restricts(&self) -> bool {
        self.include_set || self.exclude_set || !self.ignore.is_empty()
    }

    /// The settings that decide the scope, as written: `include = src; exclude = src/gen`
    /// (`include`, `exclude`, `ignore`, the ones set).
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        let written = |specs: &[FileSpec]| specs.iter().map(|spec| spec.written.as_str()).collect::<Vec<_>>().join(", ");
        if self.include_set {
            parts.push(format!("include = {}", written(&self.include)));
        }
        if self.exclude_set {
            parts.push(format!("exclude = {}", written(&self.exclude)));
        }
        if !self.ignore.is_empty() {
            parts.push(format!("ignore = {}", written(&self.ignore)));
        }
        if parts.is_empty() {
            "no include/exclude/ignore".to_owned()
        } else {
            parts.join("; ")
        }
    }
}

/// Reads pyright's configuration for the checker or server rooted at `root` (absolute, inside
/// `workspace_root`), every file beneath a handle of the workspace root with no symlink followed
/// (a configuration that is a symlink is not read, and counts as absent).
pub(crate) fn read_pyright_scope(root: &Path, workspace_root: &Path) -> PyrightScopeRead {
    let Ok(files) = crate::files::Beneath::open(workspace_root) else { return PyrightScopeRead::NoConfiguration };
    let display = |path: &Path| match path.strip_prefix(workspace_root) {
        Ok(rest) => rest.display().to_string(),
        Err(_) => path.display().to_string(),
    };
    // pyright: a pyrightconfig.json from the root up first, then a pyproject.toml from the root up.
    let mut found: Option<(PathBuf, String)> = None;
    for name in ["pyrightconfig.json", "pyproject.toml"] {
        let mut dir = Some(root);
        while let Some(current) = dir {
            let candidate = current.join(name);
            if let Some(text) = crate::python_env::read_text_beneath(&files, &candidate) {
                found = Some((candidate, text));
                break;
            }
            if current == workspace_root || !current.starts_with(workspace_root) {
                break;
            }
            dir = current.parent();
        }
        if found.is_some() {
            break;
        }
    }
    let Some((primary, text)) = found else { return PyrightScopeRead::NoConfiguration };
    let section = match parse_settings(&primary, &text) {
        Err(why) => return PyrightScopeRead::Unreadable { file: display(&primary), why },
        // A pyproject.toml without a pyright table: pyright's defaults, rooted at its directory.
        Ok(None) => return PyrightScopeRead::NoConfiguration,
        Ok(Some((section, _))) => section,
    };
    let source = if section == "pyrightconfig.json" { display(&primary) } else { format!("{} {section}", display(&primary)) };
    let mut include: Option<Vec<FileSpec>> = None;
    let mut exclude: Option<Vec<FileSpec>> = None;
    let mut ignore: Option<Vec<FileSpec>> = None;
    let mut next = Some(primary.clone());
    let mut seen: Vec<PathBuf> = Vec::new();
    while let Some(file) = next.take() {
        if seen.contains(&file) || seen.len() >= 8 {
            break;
        }
        seen.push(file.clone());
        let table = if file == primary {
            parse_settings(&file, &text)
        } else {
            match crate::python_env::read_text_beneath(&files, &file) {
                Some(text) => parse_settings(&file, &text),
                None => Err("not found inside the workspace".to_owned()),
            }
        };
        let table = match table {
            Ok(Some((_, table))) => table,
            Ok(None) => break,
            Err(why) => return PyrightScopeRead::Unreadable { file: display(&file), why: format!("{why} (named by `extends`)") },
        };
        let base = file.parent().unwrap_or(root).to_path_buf();
        let specs = |key: &str| -> Option<Vec<FileSpec>> {
            let array = table.get(key)?.as_array()?;
            Some(array.iter().filter_map(Value::as_str).filter_map(|written| FileSpec::new(&base, written)).collect())
        };
        if include.is_none() {
            include = specs("include");
        }
        if exclude.is_none() {
            exclude = specs("exclude");
        }
        if ignore.is_none() {
            ignore = specs("ignore");
        }
        next = table.get("extends").and_then(Value::as_str).map(|extends| crate::files::path::lexically_normal(&base.join(extends)));
    }
    let config_dir = primary.parent().unwrap_or(root).to_path_buf();
    // An empty `include` is pyright's default too.
    let include_set = include.as_ref().is_some_and(|specs| !specs.is_empty());
    let exclude_set = exclude.as_ref().is_some_and(|specs| !specs.is_empty());
    let include = match include.filter(|specs| !specs.is_empty()) {
        Some(specs) => specs,
        None => FileSpec::new(&config_dir, ".").into_iter().collect(),
    };
    let exclude = match exclude.filter(|specs| !specs.is_empty()) {
        Some(specs) => specs,
        None => DEFAULT_EXCLUDES.iter().filter_map(|written| FileSpec::new(&config_dir, written)).collect(),
    };
    PyrightScopeRead::Configured(PyrightScope { source, include, exclude, ignore: ignore.unwrap_or_default(), include_set, exclude_set })
}

/// A configuration's section name (`pyrightconfig.json`, `[tool.pyright]`) and its settings.
type Settings = (String, serde_json::Map<String, Value>);

/// The pyright settings of a configuration file: `Ok(None)` for a `pyproject.toml` without a
/// `[tool.pyright]` / `[tool.basedpyright]` table; `Err` when the text does not parse.
fn parse_settings(file: &Path, text: &str) -> Result<Option<Settings>, String> {
    if file.extension().is_some_and(|ext| ext == "toml") {
        if let Err(err) = toml_edit::Document::parse(text.to_owned()) {
            return Err(format!("not valid TOML: {}", err.to_string().lines().next().unwrap_or("").trim()));
        }
    } else if let Err(err) = jsonc_parser::parse_to_serde_value(text, &jsonc_parser::ParseOptions::default()) {
        return Err(format!("not valid JSON: {err}"));
    }
    match crate::python_env::config_table(file, text) {
        Some(table) => Ok(Some(table)),
        None if file.extension().is_some_and(|ext| ext == "toml") => Ok(None),
        None => Err("not a JSON object".to_owned()),
    }
}

/// The Python files under a root that pyright does not check, or checks with diagnostics
/// suppressed (see [`python_files_outside_scope`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FilesOutsideScope {
    /// Files outside `include`/`exclude`, sorted (at most [`OUTSIDE_FILES_KEPT`]).
    pub not_checked: Vec<PathBuf>,
    /// How many there are.
    pub not_checked_total: usize,
    /// Files an `ignore` entry silences, sorted (at most [`OUTSIDE_FILES_KEPT`]).
    pub ignored: Vec<PathBuf>,
    /// How many there are.
    pub ignored_total: usize,
}

/// Walks `root` (beneath a handle of `workspace_root`, no symlink followed) for `.py`/`.pyi`
/// files that `scope` leaves out or silences. Not walked: the directories in `skip` (other
/// checker roots, folders the call excluded), hidden directories, `node_modules`,
/// `__pycache__`, virtual environments, what `.gitignore` ignores.
///
/// # Errors
/// When the root cannot be walked (a sentence naming it).
pub(crate) fn python_files_outside_scope(
    scope: &PyrightScope,
    root: &Path,
    workspace_root: &Path,
    skip: &[PathBuf],
) -> Result<FilesOutsideScope, String> {
    let mut found = FilesOutsideScope::default();
    if !scope.restricts() {
        return Ok(found);
    }
    let handle = crate::files::walk_beneath::handle_for_walk(workspace_root, root)
        .map_err(|err| format!("cannot open {} to list its Python files: {err}", root.display()))?;
    let walk = crate::files::walk_beneath::BeneathWalk::new(&handle, root)
        .map_err(|err| format!("cannot walk {}: {err}", root.display()))?
        .hidden(true)
        .skip_names(ALWAYS_SKIPPED)
        .filter_entry(|entry| !(entry.is_dir() && (skip.iter().any(|dir| entry.path() == dir) || is_virtual_environment(entry.path()))));
    for entry in walk.iter().flatten() {
        let path = entry.path();
        if !entry.is_file() || !path.extension().is_some_and(|ext| ext == "py" || ext == "pyi") {
            continue;
        }
        let (list, total) = match scope.classify(path) {
            FileInScope::Checked => continue,
            FileInScope::Ignored(_) => (&mut found.ignored, &mut found.ignored_total),
            FileInScope::NotIncluded | FileInScope::Excluded(_) => (&mut found.not_checked, &mut found.not_checked_total),
        };
        *total += 1;
        if list.len() < OUTSIDE_FILES_KEPT {
            list.push(path.to_path_buf());
        }
    }
    found.not_checked.sort();
    found.ignored.sort();
    Ok(found)
}

/// pyright's virtual-environment markers: a directory holding one is skipped when the
/// configuration sets no `exclude`. Only the markers' existence is asked (`lstat`), nothing is
/// read.
fn is_virtual_environment(dir: &Path) -> bool {
    ["pyvenv.cfg", "conda-meta", "bin/activate", "Scripts/activate"]
        .iter()
        .any(|marker| std::fs::symlink_metadata(dir.join(marker)).is_ok())
}

/// `tests/test_pkg/ (6 files), docs/conf.py`: `files` (absolute) grouped by their folder, a
/// folder with one file shown as the file, at most `cap` groups (then `, and N more files in M
/// folders`). Paths are shown by `display`.
pub(crate) fn grouped_paths(files: &[PathBuf], total: usize, cap: usize, display: impl Fn(&Path) -> String) -> String {
    let mut groups: Vec<(PathBuf, Vec<&PathBuf>)> = Vec::new();
    for file in files {
        let parent = file.parent().map(Path::to_path_buf).unwrap_or_default();
        match groups.iter_mut().find(|(dir, _)| *dir == parent) {
            Some((_, members)) => members.push(file),
            None => groups.push((parent, vec![file])),
        }
    }
    // Bigger folders first, then by path.
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    let shown: Vec<String> = groups
        .iter()
        .take(cap)
        .map(|(dir, members)| match members.as_slice() {
            [one] => display(one),
            _ => format!("{}/ ({} files)", display(dir), members.len()),
        })
        .collect();
    let shown_files: usize = groups.iter().take(cap).map(|(_, members)| members.len()).sum();
    let mut text = shown.join(", ");
    let more_groups = groups.len().saturating_sub(cap);
    let more_files = total.saturating_sub(shown_files);
    if more_files > 0 {
        text.push_str(&format!(
            ", and {more_files} more file{}{}",
            if more_files == 1 { "" } else { "s" },
            if more_groups > 0 { format!(" in {more_groups}+ folders") } else { String::new() }
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (relative, text) in files {
            write(&root, relative, text);
        }
        (dir, root)
    }

    fn configured(root: &Path) -> PyrightScope {
        match read_pyright_scope(root, root) {
            PyrightScopeRead::Configured(scope) => scope,
            other => panic!("expected a configuration, got {other:?}"),
        }
    }

    fn relative_names(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files.iter().map(|file| file.strip_prefix(root).unwrap().display().to_string()).collect()
    }

    #[test]
    fn globs_match_as_pyright_does() {
        let base = Path::new("/ws/proj");
        let spec = |written: &str| FileSpec::new(base, written).unwrap();
        // A directory includes what lies beneath it, at component boundaries only.
        assert!(spec("src/pkg").matches(Path::new("/ws/proj/src/pkg/a.py")));
        assert!(spec("./src/pkg/").matches(Path::new("/ws/proj/src/pkg/sub/b.py")));
        assert!(!spec("src/pkg").matches(Path::new("/ws/proj/src/pkg2/a.py")));
        // `*` stays within one component; `**` spans any number, zero included.
        assert!(spec("src/*.py").matches(Path::new("/ws/proj/src/a.py")));
        assert!(!spec("src/*.py").matches(Path::new("/ws/proj/src/sub/a.py")));
        assert!(spec("src/*").matches(Path::new("/ws/proj/src/sub/a.py")));
        assert!(spec("**/tests").matches(Path::new("/ws/proj/tests/test_a.py")));
        assert!(spec("**/tests").matches(Path::new("/ws/proj/pkg/tests/test_a.py")));
        assert!(!spec("**/tests").matches(Path::new("/ws/proj/pkg/tests_extra/a.py")));
        assert!(spec("**/.*").matches(Path::new("/ws/proj/.tox/lib/x.py")));
        assert!(!spec("**/.*").matches(Path::new("/ws/proj/src/x.py")));
        assert!(spec("test_?.py").matches(Path::new("/ws/proj/test_a.py")));
        assert!(!spec("test_?.py").matches(Path::new("/ws/proj/test_ab.py")));
        // `**` inside a component is a `*`; brackets and braces are literal for pyright.
        assert!(spec("gen**x").matches(Path::new("/ws/proj/gen_a_x/m.py")));
        assert!(spec("data[1]").matches(Path::new("/ws/proj/data[1]/m.py")));
        assert!(!spec("data[1]").matches(Path::new("/ws/proj/data1/m.py")));
        assert!(spec("{a,b}").matches(Path::new("/ws/proj/{a,b}/m.py")));
        // `..` and absolute entries resolve as paths; the root itself is `.`.
        assert!(spec("../proj/src").matches(Path::new("/ws/proj/src/a.py")));
        assert!(spec("/ws/proj/src").matches(Path::new("/ws/proj/src/a.py")));
        assert!(spec(".").matches(Path::new("/ws/proj/anything/a.py")));
        // The base's own characters are literal.
        let odd = FileSpec::new(Path::new("/ws/p*j"), "src").unwrap();
        assert!(odd.matches(Path::new("/ws/p*j/src/a.py")));
        assert!(!odd.matches(Path::new("/ws/pxj/src/a.py")));
    }

    #[test]
    fn pyproject_include_leaves_tests_and_docs_out_and_skips_what_pyright_skips() {
        let (_dir, root) = workspace(&[
            ("pyproject.toml", "[project]\nname = \"pkg\"\n\n[tool.pyright]\ninclude = [\"src/pkg\"]\n"),
            ("src/pkg/__init__.py", ""),
            ("src/pkg/a.py", ""),
            ("tests/test_a.py", ""),
            ("tests/test_b.py", ""),
            ("docs/conf.py", ""),
            ("node_modules/x/y.py", ""),
            ("src/pkg/__pycache__/a.py", ""),
            (".tox/lib/z.py", ""),
            ("env/pyvenv.cfg", "home = /usr/bin\n"),
            ("env/lib/site.py", ""),
        ]);
        let scope = configured(&root);
        assert_eq!(scope.source, "pyproject.toml [tool.pyright]");
        assert_eq!(scope.describe(), "include = src/pkg");
        assert_eq!(scope.classify(&root.join("src/pkg/a.py")), FileInScope::Checked);
        assert_eq!(scope.classify(&root.join("tests/test_a.py")), FileInScope::NotIncluded);
        let found = python_files_outside_scope(&scope, &root, &root, &[]).unwrap();
        assert_eq!(relative_names(&root, &found.not_checked), vec!["docs/conf.py", "tests/test_a.py", "tests/test_b.py"]);
        assert_eq!(found.not_checked_total, 3);
        assert!(found.ignored.is_empty());
        let text =
            grouped_paths(&found.not_checked, found.not_checked_total, 8, |path| path.strip_prefix(&root).unwrap().display().to_string());
        assert_eq!(text, "tests/ (2 files), docs/conf.py");
        assert_eq!(
            grouped_paths(&found.not_checked, 5, 1, |path| path.strip_prefix(&root).unwrap().display().to_string()),
            "tests/ (2 files), and 3 more files in 1+ folders"
        );
        // A folder another run checks is not walked.
        let found = python_files_outside_scope(&scope, &root, &root, &[root.join("tests")]).unwrap();
        assert_eq!(relative_names(&root, &found.not_checked), vec!["docs/conf.py"]);
    }

    #[test]
    fn pyrightconfig_json_wins_over_pyproject_and_its_exclude_and_ignore_are_read() {
        let (_dir, root) = workspace(&[
            ("pyproject.toml", "[tool.pyright]\ninclude = [\"src\"]\n"),
            (
                "pyrightconfig.json",
                "{\n  // comments and trailing commas, as pyright accepts\n  \"exclude\": [\"tests/fixtures\", \"**/gen_*.py\",],\n  \"ignore\": [\"src/vendored\"],\n}\n",
            ),
            ("src/a.py", ""),
            ("src/gen_b.py", ""),
            ("src/vendored/v.py", ""),
            ("tests/test_a.py", ""),
            ("tests/fixtures/f.py", ""),
        ]);
        let scope = configured(&root);
        assert_eq!(scope.source, "pyrightconfig.json");
        assert_eq!(scope.describe(), "exclude = tests/fixtures, **/gen_*.py; ignore = src/vendored");
        assert_eq!(scope.classify(&root.join("tests/test_a.py")), FileInScope::Checked, "no include: the whole root");
        assert_eq!(scope.classify(&root.join("src/gen_b.py")), FileInScope::Excluded("**/gen_*.py".to_owned()));
        assert_eq!(scope.classify(&root.join("src/vendored/v.py")), FileInScope::Ignored("src/vendored".to_owned()));
        let found = python_files_outside_scope(&scope, &root, &root, &[]).unwrap();
        assert_eq!(relative_names(&root, &found.not_checked), vec!["src/gen_b.py", "tests/fixtures/f.py"]);
        assert_eq!(relative_names(&root, &found.ignored), vec!["src/vendored/v.py"]);
    }

    #[test]
    fn no_configuration_or_no_restriction_leaves_nothing_out_and_a_broken_one_is_said() {
        let (_dir, root) = workspace(&[("pyproject.toml", "[project]\nname = \"pkg\"\n"), ("a.py", ""), ("tests/t.py", "")]);
        assert!(matches!(read_pyright_scope(&root, &root), PyrightScopeRead::NoConfiguration));
        let (_dir, root) = workspace(&[("pyproject.toml", "[tool.pyright]\ntypeCheckingMode = \"strict\"\n"), ("tests/t.py", "")]);
        let scope = configured(&root);
        assert!(!scope.restricts());
        assert_eq!(python_files_outside_scope(&scope, &root, &root, &[]).unwrap(), FilesOutsideScope::default());
        let (_dir, root) = workspace(&[("pyproject.toml", "[tool.pyright\ninclude = [\"src\"]\n"), ("a.py", "")]);
        match read_pyright_scope(&root, &root) {
            PyrightScopeRead::Unreadable { file, why } => {
                assert_eq!(file, "pyproject.toml");
                assert!(why.starts_with("not valid TOML"), "{why}");
            }
            other => panic!("a broken pyproject.toml must be said: {other:?}"),
        }
        let (_dir, root) = workspace(&[("pyrightconfig.json", "{\"include\": [\"src\"\n"), ("a.py", "")]);
        assert!(
            matches!(read_pyright_scope(&root, &root), PyrightScopeRead::Unreadable { ref why, .. } if why.starts_with("not valid JSON"))
        );
    }

    #[test]
    fn extends_supplies_what_the_extending_file_leaves_unset_relative_to_its_own_folder() {
        let (_dir, root) = workspace(&[
            ("base/pyrightconfig.base.json", "{\"include\": [\"../proj/src\"], \"exclude\": [\"../proj/src/gen\"]}"),
            ("proj/pyrightconfig.json", "{\"extends\": \"../base/pyrightconfig.base.json\", \"exclude\": [\"src/old\"]}"),
            ("proj/src/a.py", ""),
            ("proj/src/gen/g.py", ""),
            ("proj/src/old/o.py", ""),
            ("proj/tools/t.py", ""),
        ]);
        let proj = root.join("proj");
        let scope = match read_pyright_scope(&proj, &root) {
            PyrightScopeRead::Configured(scope) => scope,
            other => panic!("{other:?}"),
        };
        assert_eq!(scope.classify(&proj.join("src/gen/g.py")), FileInScope::Checked, "the extending file's exclude wins");
        assert_eq!(scope.classify(&proj.join("src/old/o.py")), FileInScope::Excluded("src/old".to_owned()));
        assert_eq!(scope.classify(&proj.join("tools/t.py")), FileInScope::NotIncluded);
    }
}
