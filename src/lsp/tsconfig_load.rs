//! Whether a TypeScript root's `tsconfig.json` (else `jsconfig.json`) loads: every file its
//! `extends` chain names exists and parses.
//!
//! tsserver serves the files of a root whose config fails to load from what it could read of it:
//! without the missing base's `compilerOptions.paths`, `types` or `baseUrl`, imports read as
//! unresolved (TS2307) and errors cascade from them. @reduxjs/toolkit 1.9.7 ships
//! `src/tests/tsconfig.json` = `{"extends": "../../tsconfig.test.json"}`, a file the package does
//! not ship (`tsc -p src/tests`: TS5083). Its test files then had 3 errors from the language
//! server and 1 from `tsc -p .`; "the definition" of an imported function was the import line;
//! a write reported "112 errors already present" where tsc counts 15 — each presented as the
//! project's state, the config never named (trial29 F3, F6, M3). [`config_load_failure`] finds
//! such a config; its description goes on `lsp status`, on every answer from that root
//! (`LspSupervisor` lease notes), on the write check's block of that server and in the `"*"`
//! check (`checker.rs`), which runs `tsc` for the outermost tsconfig only.
//!
//! Resolution follows tsc's: a relative or absolute `extends` is a path from the config's folder,
//! tried as written and with `.json` appended (TS5083 "Cannot read file" when neither exists); a
//! bare specifier (`@tsconfig/node18/tsconfig.json`) is looked up in `node_modules` folders from
//! the config's folder up to the workspace root, as written, with `.json`, and as a folder's
//! `tsconfig.json` (TS6053 "File not found" when none exists). An array `extends` (TypeScript
//! 5.0) checks each entry. Files outside the workspace are checked for existence only, not read.
//! At most [`MAX_EXTENDS_DEPTH`] configs are followed per chain; a cycle stops the walk.
//!
//! [`resolved_compiler_option`] reads one boolean compiler option (`incremental`, `composite`)
//! through the same `extends` chain, JSONC comments ignored, for the `"*"` check's tsc build
//! info (`checker.rs`).

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// Configs followed along one `extends` chain.
pub const MAX_EXTENDS_DEPTH: usize = 10;

/// A TypeScript root whose config does not load (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLoadFailure {
    /// The root's own config (`<root>/tsconfig.json`).
    pub root_config: PathBuf,
    /// The config file where the chain breaks (the root's own, or one it extends).
    pub broken_config: PathBuf,
    /// What is wrong there, in words with workspace-relative paths filled in by
    /// [`ConfigLoadFailure::describe`].
    pub problem: ConfigProblem,
}

/// Where an `extends` chain breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigProblem {
    /// `extends` names a path that does not exist (tsc: TS5083). `resolved` is where tsc looks.
    MissingPath { extends: String, resolved: PathBuf },
    /// `extends` names a package file no `node_modules` folder holds (tsc: TS6053).
    MissingPackage { extends: String },
    /// The file is not valid JSON with comments.
    Unparsable,
}

impl ConfigLoadFailure {
    /// What breaks, as one sentence: which config, where its chain breaks and tsc's error code.
    /// `display` turns a path into the workspace-relative form answers use.
    pub fn problem_sentence(&self, display: impl Fn(&Path) -> String) -> String {
        let subject = if self.broken_config == self.root_config {
            "it".to_owned()
        } else {
            format!("{}, which it extends,", display(&self.broken_config))
        };
        let problem = match &self.problem {
            ConfigProblem::MissingPath { extends, resolved } => {
                format!("{subject} extends `{extends}`, but there is no file at {} (`tsc -p` fails with error TS5083)", display(resolved))
            }
            ConfigProblem::MissingPackage { extends } => {
                format!("{subject} extends `{extends}`, which no node_modules folder holds (`tsc -p` fails with error TS6053)")
            }
            ConfigProblem::Unparsable => {
                if self.broken_config == self.root_config {
                    "it is not valid JSON".to_owned()
                } else {
                    format!("{} is not valid JSON", display(&self.broken_config))
                }
            }
        };
        format!("{} does not load: {problem}", display(&self.root_config))
    }

    /// [`ConfigLoadFailure::problem_sentence`], what it does to the language server's answers,
    /// and the next step.
    pub fn describe(&self, display: impl Fn(&Path) -> String) -> String {
        format!(
            "{}. The language server answers for this root's files without what the missing part sets (`paths`, `baseUrl`, `types`, …), so imports it would resolve read as unresolved (TS2307), definitions stop at import lines and errors cascade from them — they are this config's, not the code's. Fix or remove {}, or compare with `lsp diagnostics \"*\"`",
            self.problem_sentence(&display),
            display(&self.root_config),
        )
    }
}

/// The load failure of the TypeScript config at `root` (`tsconfig.json`, else `jsconfig.json`),
/// if any; `None` when the root has no config or its chain loads. Reads stay beneath
/// `workspace_root` (no symlink followed); paths outside it are checked for existence only.
pub fn config_load_failure(workspace_root: &Path, root: &Path) -> Option<ConfigLoadFailure> {
    let root_config = ["tsconfig.json", "jsconfig.json"].iter().map(|name| root.join(name)).find(|path| path.is_file())?;
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut pending: Vec<PathBuf> = vec![root_config.clone()];
    while let Some(config) = pending.pop() {
        if seen.contains(&config) || seen.len() >= MAX_EXTENDS_DEPTH {
            continue;
        }
        seen.push(config.clone());
        if !config.starts_with(workspace_root) {
            continue;
        }
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &config) else { continue };
        let parsed = jsonc_parser::parse_to_serde_value(&text, &jsonc_parser::ParseOptions::default());
        let value = match parsed {
            Ok(Some(value)) => value,
            Ok(None) => continue,
            Err(_) => return Some(ConfigLoadFailure { root_config, broken_config: config, problem: ConfigProblem::Unparsable }),
        };
        let extends = extends_entries(&value);
        let folder = config.parent().unwrap_or(root).to_path_buf();
        for extends in extends {
            match resolve_extends(workspace_root, &folder, &extends) {
                Ok(found) => pending.push(found),
                Err(problem) => return Some(ConfigLoadFailure { root_config, broken_config: config, problem }),
            }
        }
    }
    None
}

/// The value of the boolean compiler option `option` (`incremental`, `composite`) that `root`'s
/// `tsconfig.json` resolves to: its own `compilerOptions` first, else the configurations it
/// `extends` (for an array, the later entry wins, as in tsc), at most [`MAX_EXTENDS_DEPTH`]
/// configs; comments are JSONC comments, not settings. `None` when no config of the chain sets
/// it, or one cannot be read (outside the workspace) or parsed.
pub fn resolved_compiler_option(workspace_root: &Path, root: &Path, option: &str) -> Option<bool> {
    resolved_compiler_option_value(workspace_root, root, option, &|value, _| value.as_bool())
}

/// The directory the path-valued compiler option `option` (`outDir`, `declarationDir`) of
/// `root`'s `tsconfig.json` resolves to, through the `extends` chain as
/// [`resolved_compiler_option`] reads it; a relative value is resolved from the folder of the
/// config that sets it, as tsc does (an `outDir` in `../tsconfig.base.json` is relative to `..`).
/// `None` when no config of the chain sets it as a string.
pub fn resolved_compiler_option_directory(workspace_root: &Path, root: &Path, option: &str) -> Option<PathBuf> {
    resolved_compiler_option_value(workspace_root, root, option, &|value, folder| value.as_str().map(|dir| normalize(&folder.join(dir))))
}

/// The first value of compiler option `option` that `read` accepts (given the value and the
/// folder of the config that sets it), own `compilerOptions` before the `extends` chain (for an
/// array, the later entry wins), at most [`MAX_EXTENDS_DEPTH`] configs, configs outside the
/// workspace not read.
fn resolved_compiler_option_value<T>(
    workspace_root: &Path,
    root: &Path,
    option: &str,
    read: &dyn Fn(&Value, &Path) -> Option<T>,
) -> Option<T> {
    fn lookup<T>(workspace_root: &Path, config: &Path, option: &str, depth: usize, read: &dyn Fn(&Value, &Path) -> Option<T>) -> Option<T> {
        if depth >= MAX_EXTENDS_DEPTH || !config.starts_with(workspace_root) {
            return None;
        }
        let text = crate::files::read_workspace_file_to_string(workspace_root, config).ok()?;
        let value = jsonc_parser::parse_to_serde_value(&text, &jsonc_parser::ParseOptions::default()).ok()??;
        let folder = config.parent()?;
        if let Some(own) = value.get("compilerOptions").and_then(|options| options.get(option)).and_then(|own| read(own, folder)) {
            return Some(own);
        }
        let extends = extends_entries(&value);
        extends.iter().rev().find_map(|extends| {
            let base = resolve_extends(workspace_root, folder, extends).ok()?;
            lookup(workspace_root, &base, option, depth + 1, read)
        })
    }
    lookup(workspace_root, &root.join("tsconfig.json"), option, 0, read)
}

/// The configs that `root`'s `tsconfig.json` (else `jsconfig.json`) extends, directly or through
/// its bases, resolved as tsc resolves them (see the module docs), in chain order; at most
/// [`MAX_EXTENDS_DEPTH`] configs, those outside `workspace_root` named but not read. Empty when
/// the config extends nothing. tsc follows them into the root config's own run: they are no
/// projects of their own (trial156 M6).
pub fn extended_configs(workspace_root: &Path, root: &Path) -> Vec<PathBuf> {
    let Some(root_config) = ["tsconfig.json", "jsconfig.json"].iter().map(|name| root.join(name)).find(|path| path.is_file()) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = Vec::new();
    let mut pending: Vec<PathBuf> = vec![root_config.clone()];
    while let Some(config) = pending.pop() {
        if found.len() >= MAX_EXTENDS_DEPTH || !config.starts_with(workspace_root) {
            continue;
        }
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &config) else { continue };
        let Ok(Some(value)) = jsonc_parser::parse_to_serde_value(&text, &jsonc_parser::ParseOptions::default()) else { continue };
        let extends = extends_entries(&value);
        let folder = config.parent().unwrap_or(root).to_path_buf();
        for extends in extends {
            if let Ok(base) = resolve_extends(workspace_root, &folder, &extends) {
                if base != root_config && !found.contains(&base) {
                    found.push(base.clone());
                    pending.push(base);
                }
            }
        }
    }
    found
}

/// The file an `extends` entry names, resolved as tsc does (see the module docs).
fn resolve_extends(workspace_root: &Path, folder: &Path, extends: &str) -> Result<PathBuf, ConfigProblem> {
    let relative = extends.starts_with("./") || extends.starts_with("../") || extends == "." || extends == "..";
    if relative || Path::new(extends).is_absolute() {
        let resolved = normalize(&folder.join(extends));
        let with_json = PathBuf::from(format!("{}.json", resolved.display()));
        return [resolved.clone(), with_json]
            .into_iter()
            .find(|candidate| candidate.is_file())
            .ok_or(ConfigProblem::MissingPath { extends: extends.to_owned(), resolved });
    }
    let mut dir = Some(folder);
    while let Some(current) = dir {
        let base = current.join("node_modules").join(extends);
        for candidate in [base.clone(), PathBuf::from(format!("{}.json", base.display())), base.join("tsconfig.json")] {
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
        if current == workspace_root || !current.starts_with(workspace_root) {
            break;
        }
        dir = current.parent();
    }
    Err(ConfigProblem::MissingPackage { extends: extends.to_owned() })
}

/// `path` with `.` and `..` components folded, without touching the file system.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The configs a tsconfig's `extends` names (a string, or an array of them since TypeScript 5.0),
/// as written.
fn extends_entries(value: &Value) -> Vec<String> {
    match value.get("extends") {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many.iter().filter_map(|entry| entry.as_str().map(str::to_owned)).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("dirs");
            std::fs::write(full, text).expect("write");
        }
        dir
    }

    #[test]
    fn a_compiler_option_resolves_through_the_extends_chain_and_comments_set_nothing() {
        let dir = workspace(&[
            // `tsc --init`'s template: the options commented out.
            ("init/tsconfig.json", "{\n  \"compilerOptions\": {\n    // \"incremental\": true,\n    /* \"composite\": true, */\n    \"strict\": true\n  }\n}\n"),
            ("base.json", "{\"compilerOptions\": {\"incremental\": true}}"),
            ("off/tsconfig.json", "{\"extends\": \"../base.json\", \"compilerOptions\": {\"incremental\": false}}"),
            ("on/tsconfig.json", "{\"extends\": \"../base\"}"),
            ("other.json", "{\"compilerOptions\": {\"incremental\": false}}"),
            ("array/tsconfig.json", "{\"extends\": [\"../other.json\", \"../base.json\"]}"),
        ]);
        let root = dir.path().canonicalize().expect("canonical");
        let option = |folder: &str| resolved_compiler_option(&root, &root.join(folder), "incremental");
        assert_eq!(option("init"), None, "a comment sets nothing");
        assert_eq!(resolved_compiler_option(&root, &root.join("init"), "composite"), None);
        assert_eq!(option("off"), Some(false), "the child's own setting wins");
        assert_eq!(option("on"), Some(true), "from the base, `.json` appended");
        assert_eq!(option("array"), Some(true), "the later entry of an array wins");
    }

    #[test]
    fn a_missing_relative_base_is_found_and_described_like_tsc() {
        let dir = workspace(&[
            ("tsconfig.json", "{\"include\": [\"src\"]}"),
            ("src/tests/tsconfig.json", "// tests\n{\"extends\": \"../../tsconfig.test.json\",}"),
        ]);
        let root = dir.path().canonicalize().expect("canonical");
        assert_eq!(config_load_failure(&root, &root), None);
        let failure = config_load_failure(&root, &root.join("src/tests")).expect("a failure");
        assert_eq!(
            failure.problem,
            ConfigProblem::MissingPath { extends: "../../tsconfig.test.json".to_owned(), resolved: root.join("tsconfig.test.json") }
        );
        let text = failure.describe(|path| crate::render::display_path(&root, path));
        assert!(
            text.starts_with("src/tests/tsconfig.json does not load: it extends `../../tsconfig.test.json`, but there is no file at tsconfig.test.json (`tsc -p` fails with error TS5083). The language server"),
            "{text}"
        );
    }

    #[test]
    fn chains_packages_arrays_and_json_suffixes_resolve_like_tsc() {
        let dir = workspace(&[
            ("tsconfig.json", "{\"extends\": [\"./base\", \"@tsconfig/node18/tsconfig.json\"]}"),
            ("base.json", "{\"extends\": \"./deeper.json\"}"),
            ("deeper.json", "{\"extends\": \"@scope/missing\"}"),
            ("node_modules/@tsconfig/node18/tsconfig.json", "{}"),
            ("pkg/tsconfig.json", "{\"extends\": \"@tsconfig/node18/tsconfig.json\"}"),
            ("bad/tsconfig.json", "{\"extends\": "),
            ("cycle/tsconfig.json", "{\"extends\": \"./tsconfig.json\"}"),
        ]);
        let root = dir.path().canonicalize().expect("canonical");
        let failure = config_load_failure(&root, &root).expect("the chain breaks at deeper.json");
        assert_eq!(failure.broken_config, root.join("deeper.json"));
        assert_eq!(failure.problem, ConfigProblem::MissingPackage { extends: "@scope/missing".to_owned() });
        assert_eq!(
            failure.problem_sentence(|path| crate::render::display_path(&root, path)),
            "tsconfig.json does not load: deeper.json, which it extends, extends `@scope/missing`, which no node_modules folder holds (`tsc -p` fails with error TS6053)"
        );
        // node_modules of an ancestor folder counts.
        assert_eq!(config_load_failure(&root, &root.join("pkg")), None);
        assert_eq!(config_load_failure(&root, &root.join("bad")).map(|failure| failure.problem), Some(ConfigProblem::Unparsable));
        assert_eq!(config_load_failure(&root, &root.join("cycle")), None);
        assert_eq!(config_load_failure(&root, &root.join("nowhere")), None);
    }
}
