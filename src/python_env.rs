//! The project's Python interpreter, resolved one way for every area that runs or analyses
//! Python code: the language servers (pyright, basedpyright, pylsp), the `"*"` project checker,
//! the debugger (debugpy runs the program under the project venv's python) and the `eval`
//! kernel. It sits below `lsp`, `debug` and `kernel`, which all use it.
//!
//! [`resolve_project_interpreter`] answers, for a project root (the directory of its root
//! marker) inside the workspace, in this order:
//!
//! 1. a virtual environment the project's pyright configuration names: `venvPath` + `venv` of
//!    `pyrightconfig.json`, or of `[tool.pyright]` / `[tool.basedpyright]` in `pyproject.toml`
//!    (the first configuration file found from the root up to the workspace root, `extends`
//!    followed) — when that environment exists. pyright and basedpyright themselves give such a
//!    configured venv precedence over any `python.pythonPath` a client sends, so an answer that
//!    put a `.venv` first would misreport what the server uses;
//! 2. `.venv` or `venv` beside the root marker ([`project_venv_python`]), else in a directory
//!    between the root and the workspace root (a monorepo's shared environment);
//! 3. `python3`, then `python`, on the search path.
//!
//! The answer carries the interpreter's path and why it was chosen
//! ([`PythonInterpreter::reason`]: "from .venv beside pyproject.toml", "from pyrightconfig.json
//! venv", "python3 on PATH"), and notes about configuration that the servers ignore (a `venv`
//! without `venvPath`, a configured venv that does not exist).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use crate::files::Beneath;

/// The project-local virtualenv python of `dir`: `.venv/bin/python`, then `venv/bin/python`
/// (then the same with `python3`). `None` when neither exists as an executable file.
pub fn project_venv_python(dir: &Path) -> Option<PathBuf> {
    [".venv/bin/python", "venv/bin/python", ".venv/bin/python3", "venv/bin/python3"]
        .iter()
        .map(|relative| dir.join(relative))
        .find(|candidate| is_executable_file(candidate))
}

/// The files that make a directory the root of a Python project, as the Python language
/// servers' definitions list them (`lsp::servers::builtin_servers`).
pub const PYTHON_ROOT_MARKERS: [&str; 5] = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"];

/// The Python project root of `file` (absolute, inside `workspace_root`) and the marker that
/// makes it one: the nearest directory from `file`'s up to the workspace root that holds one of
/// [`PYTHON_ROOT_MARKERS`] — where a language server for the file is rooted — skipping, as the
/// servers do, a folder whose only marker is a `requirements.txt` (a test or docs environment)
/// inside an outer project. `None` when no directory up to the workspace root holds a marker.
pub fn python_project_root(file: &Path, workspace_root: &Path) -> Option<(PathBuf, PathBuf)> {
    let start = file.parent().unwrap_or(workspace_root);
    let ancestors: Vec<&Path> = start.ancestors().take_while(|dir| dir.starts_with(workspace_root)).collect();
    let marker_in = |dir: &Path| PYTHON_ROOT_MARKERS.iter().map(|name| dir.join(name)).find(|candidate| candidate.exists());
    for (index, dir) in ancestors.iter().enumerate() {
        let Some(marker) = marker_in(dir) else { continue };
        let requirements_only = dir.join("requirements.txt").is_file()
            && PYTHON_ROOT_MARKERS.iter().filter(|name| **name != "requirements.txt").all(|name| !dir.join(name).exists())
            && !dir.join(".venv").is_dir()
            && !dir.join("venv").is_dir();
        if requirements_only && ancestors[index + 1..].iter().any(|outer| marker_in(outer).is_some()) {
            continue;
        }
        return Some((dir.to_path_buf(), marker));
    }
    None
}

/// Where a [`PythonInterpreter`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterpreterSource {
    /// `venvPath` + `venv` of a pyright configuration file.
    ConfiguredVenv {
        /// The file that set `venv` (absolute): a `pyrightconfig.json` or a `pyproject.toml`.
        config_file: PathBuf,
        /// The table it was read from: `pyrightconfig.json`, `[tool.pyright]` or
        /// `[tool.basedpyright]`.
        section: String,
        /// The environment directory (`<venvPath>/<venv>`, absolute).
        venv_dir: PathBuf,
    },
    /// A `.venv` / `venv` directory of the project.
    ProjectVenv {
        /// The environment directory (absolute), e.g. `/ws/.venv`.
        venv_dir: PathBuf,
        /// The root marker it sits beside (absolute), when it is in the root's directory.
        beside_marker: Option<PathBuf>,
    },
    /// `python3` or `python` found on the search path.
    SearchPath {
        /// The name looked up: `python3` or `python`.
        name: String,
    },
}

/// A resolved interpreter for one project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonInterpreter {
    /// The interpreter to run (absolute; inside a venv this is the venv's `bin/python`, not the
    /// file it links to, so `sys.prefix` is the venv).
    pub python: PathBuf,
    /// Why this one.
    pub source: InterpreterSource,
    /// Configuration the servers ignore or that points nowhere, one sentence each (e.g.
    /// "pyproject.toml [tool.pyright] sets venv = \"env\" but no venvPath; pyright ignores it").
    pub notes: Vec<String>,
}

impl PythonInterpreter {
    /// Why this interpreter, for status lines: `from .venv beside pyproject.toml`,
    /// `from venv in the workspace root`, `from pyrightconfig.json venv ".venv"`,
    /// `from pyproject.toml [tool.pyright] venv "env"`, `python3 on PATH`. Paths are shown
    /// relative to `workspace_root`.
    pub fn reason(&self, workspace_root: &Path) -> String {
        match &self.source {
            InterpreterSource::ConfiguredVenv { config_file, section, venv_dir } => {
                let file = relative(workspace_root, config_file);
                let venv = venv_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if section == "pyrightconfig.json" {
                    format!("from {file} venv \"{venv}\"")
                } else {
                    format!("from {file} {section} venv \"{venv}\"")
                }
            }
            InterpreterSource::ProjectVenv { venv_dir, beside_marker } => {
                let name = venv_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                match beside_marker {
                    Some(marker) => format!("from {name} beside {}", relative(workspace_root, marker)),
                    None => match venv_dir.parent() {
                        Some(parent) if parent == workspace_root => format!("from {name} in the workspace root"),
                        Some(parent) => format!("from {name} in {}", relative(workspace_root, parent)),
                        None => format!("from {name}"),
                    },
                }
            }
            InterpreterSource::SearchPath { name } => format!("{name} on PATH"),
        }
    }

    /// The environment directory when the interpreter belongs to a virtual environment.
    pub fn venv_dir(&self) -> Option<&Path> {
        match &self.source {
            InterpreterSource::ConfiguredVenv { venv_dir, .. } | InterpreterSource::ProjectVenv { venv_dir, .. } => Some(venv_dir),
            InterpreterSource::SearchPath { .. } => None,
        }
    }

    /// A value that changes when the interpreter, its source, or the set of packages installed
    /// into its environment changes (the modification times of the venv's `site-packages`
    /// directories: installing or removing a distribution adds or removes entries there).
    /// Servers whose fingerprint changed must re-resolve imports (runbound restarts them).
    pub fn fingerprint(&self) -> String {
        let mut text = format!("{}|{:?}", self.python.display(), self.source);
        if let Some(venv_dir) = self.venv_dir() {
            for site_packages in site_packages_dirs(venv_dir) {
                let modified = std::fs::metadata(&site_packages)
                    .and_then(|meta| meta.modified())
                    .ok()
                    .and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map(|since| since.as_nanos())
                    .unwrap_or(0);
                text.push_str(&format!("|{}@{modified}", site_packages.display()));
            }
        }
        text
    }
}

/// The `site-packages` directories of a virtual environment: `lib/python3.*/site-packages`
/// (and `lib64`), sorted.
///
/// Listed beneath a handle of `venv_dir` with no symlink followed at use time: a `lib64` that
/// is a symlink (`lib64 -> lib`, as `venv` makes it on Linux) is not listed twice, and a
/// directory swapped for a symlink while listing is skipped, never followed.
pub fn site_packages_dirs(venv_dir: &Path) -> Vec<PathBuf> {
    match Beneath::open(venv_dir) {
        Ok(beneath) => site_packages_dirs_beneath(&beneath, venv_dir),
        Err(_) => Vec::new(),
    }
}

/// [`site_packages_dirs`] through `beneath`, a handle of `venv_dir` or of a root above it.
fn site_packages_dirs_beneath(beneath: &Beneath, venv_dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for lib in ["lib", "lib64"] {
        let lib_dir = venv_dir.join(lib);
        let Ok(relative) = beneath.relative(&lib_dir) else { continue };
        let Ok(entries) = beneath.list_dir(relative) else { continue };
        for (name, is_dir) in entries {
            if !is_dir || !name.starts_with("python") {
                continue;
            }
            let candidate = lib_dir.join(&name).join("site-packages");
            let Ok(relative) = beneath.relative(&candidate) else { continue };
            if matches!(beneath.metadata(relative), Ok(Some(metadata)) if metadata.is_dir()) && !found.contains(&candidate) {
                found.push(candidate);
            }
        }
    }
    found.sort();
    found
}

/// A handle to read a virtual environment's files with: of `workspace_root` when the venv is
/// inside it (so no symlink anywhere below the workspace root is followed, the venv directory
/// included), else of the venv directory itself (an environment outside the workspace, trusted
/// as the place the configuration names).
fn venv_files(venv_dir: &Path, workspace_root: &Path) -> Option<Beneath> {
    let root = if venv_dir.starts_with(workspace_root) { workspace_root } else { venv_dir };
    Beneath::open(root).ok()
}

/// The text of the regular file `path` beneath `beneath`, no symlink followed at use time;
/// `None` when it is missing, not a regular file, not UTF-8, or a symlink is on its path.
pub(crate) fn read_text_beneath(beneath: &Beneath, path: &Path) -> Option<String> {
    let relative = beneath.relative(path).ok()?;
    let (mut file, metadata) = beneath.open_read(relative).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut file, &mut text).ok()?;
    Some(text)
}

/// Resolves the interpreter for the project rooted at `root` (absolute, inside or equal to
/// `workspace_root`), in the order of the module documentation. `root_marker` (the marker file
/// that made `root` a root, when known) names what a `.venv` sits beside. `path_env` is the
/// `PATH` value searched for `python3` / `python` (`None`: no search-path lookup).
///
/// # Errors
/// A sentence listing what was tried when no interpreter resolves at all.
pub fn resolve_project_interpreter(
    root: &Path,
    workspace_root: &Path,
    root_marker: Option<&Path>,
    path_env: Option<&OsStr>,
) -> Result<PythonInterpreter, String> {
    let mut notes = Vec::new();
    if let Some(config) = find_pyright_config(root, workspace_root) {
        match (&config.venv_path, &config.venv) {
            (Some(venv_path), Some(venv)) => {
                let venv_dir = venv_path.join(venv);
                let python = project_venv_python_in(&venv_dir);
                match python {
                    Some(python) if !site_packages_dirs(&venv_dir).is_empty() => {
                        return Ok(PythonInterpreter {
                            python,
                            source: InterpreterSource::ConfiguredVenv {
                                config_file: config.file.clone(),
                                section: config.section.clone(),
                                venv_dir,
                            },
                            notes,
                        });
                    }
                    _ => notes.push(format!(
                        "{} {} names venv {} which has no bin/python and lib/python3.*/site-packages; pyright reports it and falls back to the interpreter below",
                        relative(workspace_root, &config.file),
                        config.section,
                        relative(workspace_root, &venv_dir)
                    )),
                }
            }
            (None, Some(venv)) => notes.push(format!(
                "{} {} sets venv \"{venv}\" but no venvPath; pyright ignores it",
                relative(workspace_root, &config.file),
                config.section
            )),
            _ => (),
        }
    }
    let mut dir = Some(root);
    while let Some(current) = dir {
        if let Some(python) = project_venv_python(current) {
            let venv_dir = python.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_else(|| current.to_path_buf());
            let beside_marker = root_marker.filter(|marker| marker.parent() == Some(current)).map(Path::to_path_buf);
            return Ok(PythonInterpreter { python, source: InterpreterSource::ProjectVenv { venv_dir, beside_marker }, notes });
        }
        if current == workspace_root || !current.starts_with(workspace_root) {
            break;
        }
        dir = current.parent();
    }
    if let Some(path_env) = path_env {
        for name in ["python3", "python"] {
            if let Ok(python) = which::which_in(name, Some(path_env), root) {
                return Ok(PythonInterpreter { python, source: InterpreterSource::SearchPath { name: name.to_owned() }, notes });
            }
        }
    }
    let mut message = format!(
        "no Python interpreter: no venv configured for pyright, no .venv or venv between {} and the workspace root, no python3 or python on PATH",
        relative(workspace_root, root)
    );
    for note in &notes {
        message.push_str(&format!("; {note}"));
    }
    Err(message)
}

/// Whether a pyright configuration applies to `root`: a `pyrightconfig.json`, or a
/// `pyproject.toml` with `[tool.pyright]` / `[tool.basedpyright]`, from `root` up to the
/// workspace root (pyright then reads its settings from there, not from the command line).
pub fn has_pyright_config(root: &Path, workspace_root: &Path) -> bool {
    find_pyright_config(root, workspace_root).is_some()
}

/// The interpreter a virtual environment was made from, when it resolves outside
/// `workspace_root`: the target of the venv's `bin/python` symlink, else `home` of its
/// `pyvenv.cfg` joined with `python3.X` (the venv's own version), `python3` or `python`. A
/// restricted run starts this one instead of the venv's: started from the venv, Python runs the
/// venv's `.pth` files and `sitecustomize` at startup — code the checkout may provide — while
/// the base interpreter reads only its own installation. `None` when nothing outside resolves.
pub fn base_interpreter(venv_dir: &Path, workspace_root: &Path) -> Option<PathBuf> {
    let outside = |candidate: &Path| is_executable_file(candidate) && !crate::trust::resolves_inside(workspace_root, candidate);
    for link in ["bin/python", "bin/python3"] {
        if let Ok(target) = std::fs::canonicalize(venv_dir.join(link)) {
            if target != venv_dir.join(link) && outside(&target) {
                return Some(target);
            }
        }
    }
    // Read beneath a handle, no symlink followed: a venv directory swapped for a link cannot
    // make this read another file's `home`.
    let files = venv_files(venv_dir, workspace_root)?;
    let config = read_text_beneath(&files, &venv_dir.join("pyvenv.cfg"))?;
    let home = config.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "home").then(|| PathBuf::from(value.trim()))
    })?;
    let versioned: Vec<String> = site_packages_dirs_beneath(&files, venv_dir)
        .iter()
        .filter_map(|dir| dir.parent()?.file_name()?.to_str().map(str::to_owned))
        .collect();
    let found = versioned
        .iter()
        .map(String::as_str)
        .chain(["python3", "python"])
        .map(|name| home.join(name))
        .find(|candidate| home.is_absolute() && outside(candidate));
    found
}

/// The import roots of a virtual environment read as files, without starting its interpreter:
/// its `site-packages` directories, then the directories its `.pth` files add (the lines that
/// are paths; `import` lines, which Python would execute, are skipped), resolved against the
/// `site-packages` directory as Python's `site` module does, existing directories only, each
/// once. What pyright gets as `extraPaths` in a restricted run.
///
/// The listing and the `.pth` files are read beneath a handle of `workspace_root` when the venv
/// is inside it (else of `venv_dir`), with no symlink followed at use time: a `.pth` that is a
/// symlink, or a venv directory swapped for one, is skipped, never read.
pub fn static_search_paths(venv_dir: &Path, workspace_root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let Some(files) = venv_files(venv_dir, workspace_root) else { return found };
    for site_packages in site_packages_dirs_beneath(&files, venv_dir) {
        if !found.contains(&site_packages) {
            found.push(site_packages.clone());
        }
        let Ok(relative) = files.relative(&site_packages) else { continue };
        let Ok(entries) = files.list_dir(relative) else { continue };
        let pth_files: Vec<PathBuf> = entries
            .into_iter()
            .filter(|(name, is_dir)| !is_dir && name.ends_with(".pth"))
            .map(|(name, _)| site_packages.join(name))
            .collect();
        for pth in pth_files {
            let Some(text) = read_text_beneath(&files, &pth) else { continue };
            for line in text.lines() {
                let line = line.trim_end();
                if line.is_empty() || line.starts_with('#') || line.starts_with("import ") || line.starts_with("import\t") {
                    continue;
                }
                let Ok(dir) = std::fs::canonicalize(site_packages.join(line)) else { continue };
                if dir.is_dir() && !found.contains(&dir) {
                    found.push(dir);
                }
            }
        }
    }
    found
}

/// The `venvPath` / `venv` settings of the pyright configuration that applies to `root`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PyrightConfig {
    /// The primary configuration file.
    file: PathBuf,
    /// `pyrightconfig.json`, `[tool.pyright]` or `[tool.basedpyright]`.
    section: String,
    /// `venvPath`, resolved against the directory of the file that set it.
    venv_path: Option<PathBuf>,
    /// `venv`.
    venv: Option<String>,
}

/// Finds the pyright configuration for `root` the way pyright does, bounded by the workspace:
/// from `root` up, the first directory with a `pyrightconfig.json`, or with a `pyproject.toml`
/// that has a `[tool.pyright]` / `[tool.basedpyright]` table; `extends` chains are followed (at
/// most 8 files), the settings of the extending file winning.
///
/// Every file is read beneath a handle of `workspace_root` with no symlink followed at use time
/// (issue 13 §1): a configuration file that is a symlink, or sits under a directory swapped for
/// one, is not read; an `extends` that leaves the workspace ends the chain there (its settings
/// are not read).
fn find_pyright_config(root: &Path, workspace_root: &Path) -> Option<PyrightConfig> {
    let files = Beneath::open(workspace_root).ok()?;
    let mut dir = Some(root);
    while let Some(current) = dir {
        let json = current.join("pyrightconfig.json");
        let toml = current.join("pyproject.toml");
        let primary = if let Some(text) = read_text_beneath(&files, &json) {
            Some((json, text))
        } else {
            read_text_beneath(&files, &toml).filter(|text| config_table(&toml, text).is_some()).map(|text| (toml, text))
        };
        if let Some((primary, text)) = primary {
            let (section, _) = config_table(&primary, &text)?;
            let mut config = PyrightConfig { file: primary.clone(), section, venv_path: None, venv: None };
            let mut next = Some(primary);
            let mut seen = Vec::new();
            while let Some(file) = next.take() {
                if seen.contains(&file) || seen.len() >= 8 {
                    break;
                }
                seen.push(file.clone());
                let Some(table) = read_text_beneath(&files, &file).and_then(|text| config_table(&file, &text)).map(|(_, table)| table)
                else {
                    break;
                };
                let base = file.parent().unwrap_or(current);
                if config.venv_path.is_none() {
                    config.venv_path = table.get("venvPath").and_then(Value::as_str).map(|path| base.join(path));
                }
                if config.venv.is_none() {
                    config.venv = table.get("venv").and_then(Value::as_str).map(str::to_owned);
                }
                // `..` folded by name: the file is then read beneath the workspace root, which
                // refuses `..` components (and an `extends` that leaves the workspace).
                next =
                    table.get("extends").and_then(Value::as_str).map(|extends| crate::files::path::lexically_normal(&base.join(extends)));
            }
            return Some(config);
        }
        if current == workspace_root || !current.starts_with(workspace_root) {
            break;
        }
        dir = current.parent();
    }
    None
}

/// The pyright settings table of a configuration file's `text`: the whole object of a
/// `pyrightconfig.json` (JSON with comments and trailing commas, as pyright accepts), or the
/// `[tool.basedpyright]` / `[tool.pyright]` table of a `pyproject.toml` (string, boolean and
/// string-array values; enough for `venvPath`, `venv`, `extends`, `include`, `report…` rules). `None` when the text cannot be parsed, or a
/// `pyproject.toml` has neither table.
pub(crate) fn config_table(file: &Path, text: &str) -> Option<(String, serde_json::Map<String, Value>)> {
    if file.extension().is_some_and(|ext| ext == "toml") {
        let document = toml_edit::Document::parse(text.to_owned()).ok()?;
        let tool = document.as_table().get("tool")?.as_table_like()?;
        for section in ["basedpyright", "pyright"] {
            if let Some(table) = tool.get(section).and_then(|item| item.as_table_like()) {
                let mut map = serde_json::Map::new();
                for (key, item) in table.iter() {
                    if let Some(value) = item.as_str() {
                        map.insert(key.to_owned(), Value::String(value.to_owned()));
                    } else if let Some(value) = item.as_bool() {
                        // `reportMissingImports = false`: read by the diagnostics-on-write note
                        // on rules turned off (`lsp::pyright_blind_spots`).
                        map.insert(key.to_owned(), Value::Bool(value));
                    } else if let Some(array) = item.as_array() {
                        // `include` / `exclude`: arrays of strings.
                        let strings: Vec<Value> =
                            array.iter().filter_map(|value| value.as_str()).map(|s| Value::String(s.to_owned())).collect();
                        map.insert(key.to_owned(), Value::Array(strings));
                    }
                }
                return Some((format!("[tool.{section}]"), map));
            }
        }
        return None;
    }
    let value = jsonc_parser::parse_to_serde_value(text, &jsonc_parser::ParseOptions::default()).ok()??;
    match value {
        Value::Object(map) => Some(("pyrightconfig.json".to_owned(), map)),
        _ => None,
    }
}

fn project_venv_python_in(venv_dir: &Path) -> Option<PathBuf> {
    ["bin/python", "bin/python3"].iter().map(|relative| venv_dir.join(relative)).find(|candidate| is_executable_file(candidate))
}

/// `path` for status lines: relative to `workspace_root` when inside it (`.venv/bin/python`),
/// else absolute without a mark (an interpreter outside the workspace is normal, unlike a
/// source location: see [`crate::render::display_path`]).
pub fn display_interpreter_path(workspace_root: &Path, path: &Path) -> String {
    relative(workspace_root, path)
}

fn relative(workspace_root: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace_root) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
        Ok(rest) => rest.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(path: &Path) {
        crate::test_support::write_executable(path, "#!/bin/sh\n");
    }

    fn venv(dir: &Path) {
        executable(&dir.join("bin/python"));
        std::fs::create_dir_all(dir.join("lib/python3.11/site-packages")).unwrap();
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn venv_beside_the_marker_wins_over_path_and_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let marker = ws.join("pyproject.toml");
        write(&marker, "[project]\nname = \"p\"\n");
        let bin = ws.join("elsewhere/bin");
        executable(&bin.join("python3"));
        let path_env = bin.clone().into_os_string();
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), Some(&path_env)).unwrap();
        assert_eq!(found.python, bin.join("python3"));
        assert_eq!(found.reason(&ws), "python3 on PATH");
        venv(&ws.join("venv"));
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), Some(&path_env)).unwrap();
        assert_eq!((found.python.clone(), found.reason(&ws)), (ws.join("venv/bin/python"), "from venv beside pyproject.toml".to_owned()));
        venv(&ws.join(".venv"));
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), Some(&path_env)).unwrap();
        assert_eq!(found.reason(&ws), "from .venv beside pyproject.toml");
        assert_eq!(found.venv_dir(), Some(ws.join(".venv").as_path()));
        // A sub-project without its own venv uses the workspace's; never one above the workspace.
        let sub = ws.join("packages/a");
        write(&sub.join("setup.py"), "");
        let found = resolve_project_interpreter(&sub, &ws, Some(&sub.join("setup.py")), None).unwrap();
        assert_eq!(found.reason(&ws), "from .venv in the workspace root");
        let err = resolve_project_interpreter(&sub, &sub, Some(&sub.join("setup.py")), None).unwrap_err();
        assert!(err.contains("no Python interpreter"), "{err}");
    }

    #[test]
    fn a_configured_venv_wins_and_a_venv_without_venv_path_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        venv(&ws.join(".venv"));
        venv(&ws.join("envs/py311"));
        let marker = ws.join("pyproject.toml");
        write(&marker, "[project]\nname = \"p\"\n[tool.pyright]\nvenv = \"py311\"\n");
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), None).unwrap();
        assert_eq!(found.reason(&ws), "from .venv beside pyproject.toml");
        assert_eq!(found.notes, vec!["pyproject.toml [tool.pyright] sets venv \"py311\" but no venvPath; pyright ignores it".to_owned()]);
        write(&marker, "[project]\nname = \"p\"\n[tool.pyright]\nvenvPath = \"envs\"\nvenv = \"py311\"\n");
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), None).unwrap();
        assert_eq!(found.python, ws.join("envs/py311/bin/python"));
        assert_eq!(found.reason(&ws), "from pyproject.toml [tool.pyright] venv \"py311\"");
        // pyrightconfig.json (JSON with comments and trailing commas) beats pyproject.toml, and
        // `extends` supplies what the file leaves out.
        write(&ws.join("base.json"), "{\"venvPath\": \"envs\"}");
        write(&ws.join("pyrightconfig.json"), "{\n  // the env\n  \"extends\": \"base.json\",\n  \"venv\": \"py311\",\n}\n");
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), None).unwrap();
        assert_eq!(found.reason(&ws), "from pyrightconfig.json venv \"py311\"");
        // A configured venv that does not exist falls through, with a note.
        write(&ws.join("pyrightconfig.json"), "{\"venvPath\": \".\", \"venv\": \"missing\"}");
        let found = resolve_project_interpreter(&ws, &ws, Some(&marker), None).unwrap();
        assert_eq!(found.reason(&ws), "from .venv beside pyproject.toml");
        assert!(found.notes[0].contains("names venv missing"), "{:?}", found.notes);
    }

    #[test]
    fn the_fingerprint_changes_when_a_package_is_installed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        venv(&ws.join(".venv"));
        let found = resolve_project_interpreter(&ws, &ws, None, None).unwrap();
        let before = found.fingerprint();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::create_dir(ws.join(".venv/lib/python3.11/site-packages/newpkg")).unwrap();
        assert_ne!(found.fingerprint(), before);
    }

    #[test]
    fn a_venv_is_read_as_files_and_its_base_interpreter_found_outside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("python/bin");
        executable(&home.join("python3.11"));
        let ws = base.join("ws");
        let venv = ws.join(".venv");
        let site = venv.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("pkg")).unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(
            site.join("a.pth"),
            format!("# comment\nimport os; os.system('x')\n{}\nmissing-dir\n../../../../src\n", ws.join("src").display()),
        )
        .unwrap();
        assert_eq!(static_search_paths(&venv, &ws), vec![site.clone(), ws.join("src")], "each directory once, resolved");
        // No symlink, no pyvenv.cfg: nothing outside to start.
        executable(&venv.join("bin/python"));
        assert_eq!(base_interpreter(&venv, &ws), None);
        std::fs::write(venv.join("pyvenv.cfg"), format!("home = {}\nversion = 3.11.7\n", home.display())).unwrap();
        assert_eq!(base_interpreter(&venv, &ws), Some(home.join("python3.11")));
        // A home inside the workspace is the checkout's own binary: refused.
        executable(&ws.join("tools/python3"));
        std::fs::write(venv.join("pyvenv.cfg"), format!("home = {}\n", ws.join("tools").display())).unwrap();
        assert_eq!(base_interpreter(&venv, &ws), None);
        // A bin/python symlink to an interpreter outside wins.
        std::fs::remove_file(venv.join("bin/python")).unwrap();
        std::os::unix::fs::symlink(home.join("python3.11"), venv.join("bin/python")).unwrap();
        assert_eq!(base_interpreter(&venv, &ws), Some(home.join("python3.11")));
    }

    /// Issue 13 §1: pyvenv.cfg, `.pth` files and pyright configuration that are symlinks out of
    /// the workspace are not read (each would otherwise decide an interpreter, extraPaths or a
    /// venv from a file the checkout points at).
    #[test]
    fn venv_and_pyright_files_that_are_symlinks_out_of_the_workspace_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let evil_home = base.join("evil/bin");
        executable(&evil_home.join("python3"));
        std::fs::create_dir_all(base.join("evil/pkgs")).unwrap();
        write(&base.join("evil/pyvenv.cfg"), &format!("home = {}\n", evil_home.display()));
        write(&base.join("evil/evil.pth"), &format!("{}\n", base.join("evil/pkgs").display()));
        write(&base.join("evil/pyrightconfig.json"), r#"{"venvPath": "/", "venv": "evil"}"#);
        let ws = base.join("ws");
        let venv_dir = ws.join(".venv");
        venv(&venv_dir);
        let venv = venv_dir;
        let site = venv.join("lib/python3.11/site-packages");
        std::os::unix::fs::symlink(base.join("evil/pyvenv.cfg"), venv.join("pyvenv.cfg")).unwrap();
        std::os::unix::fs::symlink(base.join("evil/evil.pth"), site.join("evil.pth")).unwrap();
        std::os::unix::fs::symlink(base.join("evil/pyrightconfig.json"), ws.join("pyrightconfig.json")).unwrap();
        assert_eq!(base_interpreter(&venv, &ws), None, "pyvenv.cfg through a symlink");
        assert_eq!(static_search_paths(&venv, &ws), vec![site.clone()], "a .pth through a symlink");
        assert!(!has_pyright_config(&ws, &ws), "pyrightconfig.json through a symlink");
        // The same files as regular files are read.
        std::fs::remove_file(venv.join("pyvenv.cfg")).unwrap();
        std::fs::copy(base.join("evil/pyvenv.cfg"), venv.join("pyvenv.cfg")).unwrap();
        assert_eq!(base_interpreter(&venv, &ws), Some(evil_home.join("python3")));
        std::fs::remove_file(ws.join("pyrightconfig.json")).unwrap();
        std::fs::copy(base.join("evil/pyrightconfig.json"), ws.join("pyrightconfig.json")).unwrap();
        assert!(has_pyright_config(&ws, &ws));
        // An `extends` that leaves the workspace is not read.
        write(&ws.join("pyrightconfig.json"), r#"{"extends": "../evil/pyrightconfig.json"}"#);
        let config = find_pyright_config(&ws, &ws).unwrap();
        assert_eq!((config.venv_path, config.venv), (None, None));
    }

    /// The same files under a concurrent `renameat2(RENAME_EXCHANGE)` of a workspace directory
    /// with a symlink to an outside copy: no answer may come from the outside copy.
    #[test]
    fn venv_and_pyright_reads_under_a_symlink_exchange_race_never_read_outside() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let good_home = base.join("good/bin");
        executable(&good_home.join("python3"));
        let evil_home = base.join("evil/bin");
        executable(&evil_home.join("python3"));
        let ws = base.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        // 1. pyvenv.cfg: ws/.venv swapped with a link to an outside venv whose home is evil.
        let venv_dir = ws.join(".venv");
        venv(&venv_dir);
        let venv = venv_dir;
        write(&venv.join("pyvenv.cfg"), &format!("home = {}\n", good_home.display()));
        let decoy_venv = base.join("decoy_venv");
        std::fs::create_dir_all(decoy_venv.join("lib/python3.11/site-packages")).unwrap();
        write(&decoy_venv.join("pyvenv.cfg"), &format!("home = {}\n", evil_home.display()));
        std::fs::create_dir_all(base.join("evil/pkgs")).unwrap();
        write(&decoy_venv.join("lib/python3.11/site-packages/evil.pth"), &format!("{}\n", base.join("evil/pkgs").display()));
        std::os::unix::fs::symlink(&decoy_venv, ws.join("venv_swap")).unwrap();
        // 2. pyright config: ws/proj (no configuration) swapped with a link to a configured one.
        std::fs::create_dir_all(ws.join("proj")).unwrap();
        write(&base.join("decoy_proj/pyrightconfig.json"), r#"{"venvPath": "/", "venv": "evil"}"#);
        std::os::unix::fs::symlink(base.join("decoy_proj"), ws.join("proj_swap")).unwrap();

        let hammer = |a: &str, b: &str, check: &dyn Fn() -> bool| {
            let exchange = crate::files::test_exchange::ExchangeLoop::start(ws.join(a), ws.join(b));
            let started = std::time::Instant::now();
            let (mut checks, mut outside) = (0, 0);
            while checks < 2000 && started.elapsed() < std::time::Duration::from_millis(1000) {
                checks += 1;
                outside += usize::from(check());
            }
            let swaps = exchange.finish();
            assert!(swaps > 0, "the exchange loop of {a} never swapped");
            assert_eq!(outside, 0, "{outside} of {checks} reads of {a} came from outside ({swaps} swaps)");
        };
        hammer(".venv", "venv_swap", &|| base_interpreter(&venv, &ws) == Some(evil_home.join("python3")));
        hammer(".venv", "venv_swap", &|| static_search_paths(&venv, &ws).iter().any(|path| path.starts_with(base.join("evil"))));
        hammer("proj", "proj_swap", &|| has_pyright_config(&ws.join("proj"), &ws));
    }

    use crate::test_support::corpus;

    /// Issue 13 §1 on the real project: `python_env` reads the `.venv` (site-packages listing, the
    /// editable install's `.pth`, `pyvenv.cfg`) and the pyright configuration beneath the workspace
    /// root with no symlink followed, and still finds what Python itself finds: the import roots
    /// inside the workspace equal the venv interpreter's own `sys.path` entries there (in order), the
    /// base interpreter is the real path of the venv's base installation, and a pyright table is
    /// reported exactly when `pyproject.toml` has one. The venv's `lib64 -> lib` symlink is not
    /// listed twice.
    #[test]
    fn python_env_reads_the_real_venv_beneath_the_workspace_as_python_does() {
        let Some(dir) = corpus::project("python-dateutil") else { return };
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let venv = ws.join(".venv");
        let python = venv.join("bin/python");
        let script = "import json, os, sys; print(json.dumps({'path': [os.path.realpath(p) for p in sys.path if p], \
                      'base': os.path.realpath(os.path.join(sys.base_prefix, 'bin', 'python3'))}))";
        let output = corpus::run(&ws, python.to_str().unwrap(), &["-c", script], &[], std::time::Duration::from_secs(60));
        corpus::assert_success(&output, "the venv interpreter's sys.path");
        let line = output.text.lines().find(|line| line.starts_with('{')).unwrap_or_else(|| panic!("no JSON line: {}", output.text));
        let truth: serde_json::Value = serde_json::from_str(line).unwrap();
        let inside: Vec<std::path::PathBuf> = truth["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|path| std::path::PathBuf::from(path.as_str().unwrap()))
            .filter(|path| path.starts_with(&ws) && path.is_dir())
            .collect();
        assert!(inside.len() >= 2, "sys.path has the venv's site-packages and the editable src: {truth}");

        let started = std::time::Instant::now();
        let rounds = 50;
        let mut search_paths = Vec::new();
        let mut base = None;
        for _ in 0..rounds {
            search_paths = static_search_paths(&venv, &ws);
            base = base_interpreter(&venv, &ws);
        }
        let per_round = started.elapsed() / rounds;
        assert_eq!(search_paths, inside, "static_search_paths vs the interpreter's own sys.path inside the workspace");
        assert_eq!(site_packages_dirs(&venv), vec![venv.join("lib/python3.11/site-packages")]);
        assert_eq!(base.as_deref().and_then(|path| path.to_str()), truth["base"].as_str(), "base interpreter");

        let pyproject = std::fs::read_to_string(ws.join("pyproject.toml")).unwrap();
        let has_table = pyproject
            .lines()
            .any(|line| line.trim_start().starts_with("[tool.pyright") || line.trim_start().starts_with("[tool.basedpyright"));
        assert_eq!(has_pyright_config(&ws, &ws), has_table);
        corpus::report_timing(&format!(
            "python-dateutil .venv: static_search_paths + base_interpreter through handles {per_round:?} per round ({rounds} rounds); {} import roots",
            search_paths.len()
        ));
    }
}
