//! Which files under a server's root belong to the project, for the word searches of
//! [`crate::lsp::rename_coverage`] (the `grep -w` cross-check of renames and references).
//!
//! A word search that walks build output asks the server about code no compilation sees: on
//! redux and immer (npm tarballs with `dist/` beside `src/`) the rename cross-check spent 13.7 s
//! and 29.8 s asking tsserver for definitions in bundled `dist/*.js` and `dist/*.d.ts` files,
//! outside the project's `tsconfig.json` `include`, and left the post-rename diagnostics without
//! time. The scope keeps the walk to what the project compiles:
//!
//! - TypeScript/JavaScript servers with a `tsconfig.json` (else `jsconfig.json`) at the root: the
//!   file's `files` and `include` (default `**/*`), minus `exclude` (when absent: `node_modules`,
//!   `bower_components`, `jspm_packages` and `compilerOptions.outDir` / `declarationDir`; an
//!   explicit `exclude` replaces all of them, as in tsc, so the build output counts again), with
//!   tsc's glob rules (`*` and `?` within one path segment, `**/` any depth, a pattern whose last
//!   segment has no wildcard and no extension names a directory). `.js`/`.jsx`/`.mjs`/`.cjs`
//!   files count only with `compilerOptions.allowJs` (or for a `jsconfig.json`). A tsconfig that
//!   `extends` another and sets neither `files` nor `include` inherits them: then, and without
//!   any config, the conventional build output directories `dist`, `build` and `out` at the
//!   root are skipped instead.
//! - Other servers: everything (the caller's own skips of `.venv`, `target`, … still apply).
//!
//! What the scope leaves out is said by [`WalkScope::describe`], so a cross-check never hides
//! that it did not look somewhere.

use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;

use crate::lsp::servers::ServerDefinition;

/// Build output directories skipped at a TypeScript root when no tsconfig says what the project
/// is.
pub const CONVENTIONAL_BUILD_OUTPUT: &[&str] = &["dist", "build", "out"];

/// What a word search walks under one root (see the module docs).
#[derive(Debug, Clone)]
pub struct WalkScope {
    /// Include patterns (tsconfig `include`), matched against root-relative paths; `None`: all.
    include: Option<GlobSet>,
    /// The literal directory prefixes of the include patterns (a directory outside every one of
    /// them, and not above one, is pruned).
    include_bases: Vec<PathBuf>,
    /// tsconfig `files`: root-relative paths always walked.
    files: Vec<PathBuf>,
    /// Exclude patterns: a matching directory is pruned, a matching file skipped.
    exclude: Option<GlobSet>,
    /// Root-relative directories pruned by name (conventional build output).
    pruned_directories: Vec<PathBuf>,
    /// Extensions left out (JavaScript without `allowJs`).
    excluded_extensions: Vec<&'static str>,
    /// One line for the report: where the scope comes from and what it leaves out; `None` for an
    /// unrestricted walk.
    description: Option<String>,
}

impl WalkScope {
    /// Everything under the root.
    pub fn everything() -> WalkScope {
        WalkScope {
            include: None,
            include_bases: Vec::new(),
            files: Vec::new(),
            exclude: None,
            pruned_directories: Vec::new(),
            excluded_extensions: Vec::new(),
            description: None,
        }
    }

    /// The scope of `definition`'s project at `root` (see the module docs). Never fails: a config
    /// that cannot be read or parsed gives the conventional skips, and the description says so.
    pub fn for_server(definition: &ServerDefinition, root: &Path) -> WalkScope {
        let typescript = definition.extensions.iter().any(|(extension, _)| extension == "ts");
        if definition.extensions.iter().any(|(extension, _)| extension == "rs") {
            return WalkScope::rust_packages_of_their_own(root);
        }
        if definition.extensions.iter().any(|(extension, _)| extension == "go") {
            return WalkScope::go_modules_of_their_own(root);
        }
        if !typescript {
            return WalkScope::everything();
        }
        for config_name in ["tsconfig.json", "jsconfig.json"] {
            let config_path = root.join(config_name);
            // Read beneath the server's root (inside the workspace), no symlink followed.
            let Ok(text) = crate::files::read_workspace_file_to_string(root, &config_path) else { continue };
            let parsed = jsonc_parser::parse_to_serde_value(&text, &jsonc_parser::ParseOptions::default());
            return match parsed {
                Ok(Some(Value::Object(config))) => WalkScope::from_tsconfig(config_name, &Value::Object(config))
                    .unwrap_or_else(|reason| WalkScope::conventional(root, &format!("{config_name} {reason}"))),
                _ => WalkScope::conventional(root, &format!("{config_name} could not be parsed")),
            };
        }
        WalkScope::conventional(root, "no tsconfig.json or jsconfig.json at the root")
    }

    /// Under a Rust root: the directories below it with a Cargo.toml of their own that is no
    /// member of the root's cargo workspace (a `downstream/` crate with a path dependency on the
    /// root, an example project) are pruned — the root's rust-analyzer does not load them, their
    /// own server answers for them, and a word found there read as "no definition" or "left
    /// unrenamed" beside that server's edits of the same lines (trial91 F3, M1). Vendored crates
    /// (a `.cargo-checksum.json` beside) are dependencies, not pruned here. Found by a walk of at
    /// most 4 levels.
    fn rust_packages_of_their_own(root: &Path) -> WalkScope {
        WalkScope::nested_roots_of_their_own(
            root,
            "Cargo.toml",
            &["target", ".git", "node_modules", "vendor"],
            |directory| {
                directory.join(".cargo-checksum.json").exists() || crate::lsp::checker::cargo_workspace_includes(root, root, directory)
            },
            "cargo packages of their own, no members of this root's workspace",
        )
    }

    /// Under a Go root: the directories below it with a go.mod of their own that no go.work at
    /// the root uses (a `consumer/` module that `replace`s the root by `../`) are pruned — gopls
    /// at the root does not load them (a file of theirs opened there puts it in "You have opened a
    /// nested module", trial102 M1, trial106 M1), and their own server answers for them. Found by
    /// a walk of at most 4 levels (`vendor`, `testdata` and hidden directories skipped).
    fn go_modules_of_their_own(root: &Path) -> WalkScope {
        WalkScope::nested_roots_of_their_own(
            root,
            "go.mod",
            &[".git", "node_modules", "vendor", "testdata"],
            |directory| crate::lsp::checker::go_work_uses(root, root, directory),
            "Go modules of their own, which no go.work here uses",
        )
    }

    /// The directories below `root` (a walk of at most 4 levels, `skip` names not entered) that
    /// hold a `manifest` of their own and that `belongs_to_root` does not claim for the root,
    /// pruned (the outermost of nested ones), with a description that says them as `what`.
    fn nested_roots_of_their_own(
        root: &Path,
        manifest: &str,
        skip: &[&str],
        belongs_to_root: impl Fn(&Path) -> bool,
        what: &str,
    ) -> WalkScope {
        let Ok(reader) = crate::files::WorkspaceReader::open(root) else { return WalkScope::everything() };
        let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return WalkScope::everything() };
        let mut pruned: Vec<PathBuf> = Vec::new();
        for entry in walk.max_depth(Some(4)).skip_names(skip).iter().flatten() {
            if entry.file_name() != manifest || !entry.is_file() {
                continue;
            }
            let Some(directory) = entry.path().parent() else { continue };
            if directory == root || pruned.iter().any(|done| directory.starts_with(root.join(done))) || belongs_to_root(directory) {
                continue;
            }
            if let Ok(relative) = directory.strip_prefix(root) {
                pruned.push(relative.to_path_buf());
            }
        }
        let description = (!pruned.is_empty()).then(|| {
            format!(
                "skipped {} ({what}: their own server answers for them)",
                pruned.iter().map(|dir| format!("{}/", dir.display())).collect::<Vec<_>>().join(", ")
            )
        });
        WalkScope { pruned_directories: pruned, description, ..WalkScope::everything() }
    }

    /// The conventional build output directories that exist at `root`, pruned.
    fn conventional(root: &Path, why: &str) -> WalkScope {
        let pruned: Vec<PathBuf> = CONVENTIONAL_BUILD_OUTPUT.iter().filter(|name| root.join(name).is_dir()).map(PathBuf::from).collect();
        let description = (!pruned.is_empty()).then(|| {
            format!(
                "skipped build output {} ({why})",
                pruned.iter().map(|dir| format!("{}/", dir.display())).collect::<Vec<_>>().join(", ")
            )
        });
        WalkScope { pruned_directories: pruned, description, ..WalkScope::everything() }
    }

    /// The scope a tsconfig/jsconfig describes; `Err(reason)` when it inherits its file list.
    fn from_tsconfig(config_name: &str, config: &Value) -> Result<WalkScope, String> {
        let strings = |key: &str| -> Option<Vec<String>> {
            config.get(key)?.as_array().map(|items| items.iter().filter_map(|item| item.as_str().map(str::to_owned)).collect())
        };
        let files = strings("files");
        let include = strings("include");
        if files.is_none() && include.is_none() && config.get("extends").is_some() {
            return Err("extends another config for its file list".to_owned());
        }
        let options = config.get("compilerOptions");
        let option_string = |key: &str| options.and_then(|o| o.get(key)).and_then(Value::as_str).map(str::to_owned);
        let allow_js = config_name == "jsconfig.json" || options.and_then(|o| o.get("allowJs")).and_then(Value::as_bool).unwrap_or(false);
        // tsc: no `include` and no `files` means every file; `files` alone means only those.
        let include_patterns: Vec<String> = match (&include, &files) {
            (Some(include), _) => include.clone(),
            (None, Some(_)) => Vec::new(),
            (None, None) => vec!["**/*".to_owned()],
        };
        // tsc (`getConfigFileSpecs`): an `exclude` property replaces the default, and only without
        // one do `outDir` and `declarationDir` become excludes; with one, the build output is
        // compiled again (json-schema-to-typescript 15.0.3: `"exclude": ["example",
        // "node_modules"]` beside `"outDir": "dist"`, and `tsc --listFilesOnly` lists its
        // dist/src/*.d.ts). The package folders are never walked (the walkers skip node_modules).
        let exclude_patterns: Vec<String> = match strings("exclude") {
            Some(exclude) => exclude,
            None => ["node_modules", "bower_components", "jspm_packages"]
                .into_iter()
                .map(str::to_owned)
                .chain([option_string("outDir"), option_string("declarationDir")].into_iter().flatten())
                .collect(),
        };
        let include_globs = build_globs(&include_patterns, true);
        let exclude_globs = build_globs(&exclude_patterns, false);
        let include_bases = include_patterns.iter().map(|pattern| literal_base(pattern)).collect();
        let mut said = Vec::new();
        said.push(match (&include, &files) {
            (Some(include), _) => format!("include {}", include.join(", ")),
            (None, Some(_)) => "its `files` list".to_owned(),
            (None, None) => "every file".to_owned(),
        });
        if !exclude_patterns.is_empty() {
            said.push(format!("exclude {}", exclude_patterns.join(", ")));
        }
        if !allow_js {
            said.push("no .js files (allowJs off)".to_owned());
        }
        Ok(WalkScope {
            include: Some(include_globs),
            include_bases,
            files: files.unwrap_or_default().iter().map(|file| normalize(Path::new(file))).collect(),
            exclude: Some(exclude_globs),
            pruned_directories: Vec::new(),
            excluded_extensions: if allow_js { Vec::new() } else { vec!["js", "jsx", "mjs", "cjs"] },
            description: Some(format!("walked what {config_name} compiles: {}", said.join("; "))),
        })
    }

    /// Whether root-relative `relative` lies in a directory the scope prunes as a project root of
    /// its own (a nested crate or Go module) or as build output — whatever `include` says.
    pub fn prunes(&self, relative: &Path) -> bool {
        self.pruned_directories.iter().any(|pruned| relative.starts_with(pruned))
    }

    /// Stops pruning the project roots of their own that hold one of `files` (root-relative),
    /// and returns them (root-relative); the description still names the others as skipped.
    pub fn walk_pruned_directories_holding(&mut self, files: &[PathBuf]) -> Vec<PathBuf> {
        let (walked, kept): (Vec<PathBuf>, Vec<PathBuf>) =
            std::mem::take(&mut self.pruned_directories).into_iter().partition(|pruned| files.iter().any(|file| file.starts_with(pruned)));
        // "skipped a/, b/ (…)": the walked ones are no longer skipped.
        if !walked.is_empty() {
            self.description = self.description.take().and_then(|description| {
                let (list, why) = description.strip_prefix("skipped ")?.split_once(" (")?;
                let still: Vec<&str> =
                    list.split(", ").filter(|dir| !walked.iter().any(|walked| format!("{}/", walked.display()) == *dir)).collect();
                (!still.is_empty()).then(|| format!("skipped {} ({why}", still.join(", ")))
            });
        }
        self.pruned_directories = kept;
        walked
    }

    /// Whether the walk enters the directory at root-relative `relative`.
    pub fn walks_directory(&self, relative: &Path) -> bool {
        if relative.as_os_str().is_empty() {
            return true;
        }
        if self.pruned_directories.iter().any(|pruned| relative == pruned) {
            return false;
        }
        if self.exclude.as_ref().is_some_and(|exclude| exclude.is_match(relative)) {
            return false;
        }
        if self.include.is_none() {
            return true;
        }
        // Inside an include base, or on the way to one (or to a `files` entry).
        self.include_bases.iter().any(|base| relative.starts_with(base) || base.starts_with(relative))
            || self.files.iter().any(|file| file.starts_with(relative))
    }

    /// Whether the walk reads the file at root-relative `relative`.
    pub fn walks_file(&self, relative: &Path) -> bool {
        if self.files.iter().any(|file| file == relative) {
            return true;
        }
        let extension = relative.extension().and_then(|ext| ext.to_str()).unwrap_or("");
        if self.excluded_extensions.contains(&extension) {
            return false;
        }
        if self.exclude.as_ref().is_some_and(|exclude| exclude.is_match(relative)) {
            return false;
        }
        self.include.as_ref().is_none_or(|include| include.is_match(relative))
    }

    /// Whether the file at root-relative `relative` is in the scope: every folder on its way
    /// is walked and the file itself is ([`WalkScope::walks_directory`], [`WalkScope::walks_file`]).
    pub fn includes(&self, relative: &Path) -> bool {
        relative.parent().is_none_or(|parent| {
            let mut ancestors: Vec<&Path> = parent.ancestors().collect();
            ancestors.reverse();
            ancestors.into_iter().all(|dir| self.walks_directory(dir))
        }) && self.walks_file(relative)
    }

    /// One line saying where the scope comes from and what it leaves out; `None` when the walk
    /// is unrestricted.
    pub fn describe(&self) -> Option<&str> {
        self.description.as_deref()
    }
}

/// Files a TypeScript server's root holds that its tsconfig's program leaves out (see
/// [`files_outside_config`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilesOutsideConfig {
    /// How many (up to [`OUTSIDE_CONFIG_WALK_CAP`] files walked).
    pub count: usize,
    /// The first few, absolute, in walk order.
    pub examples: Vec<PathBuf>,
    /// The walk stopped at the cap: `count` is a lower bound.
    pub truncated: bool,
    /// The config (`tsconfig.json` or `jsconfig.json`).
    pub config_name: &'static str,
    /// JavaScript files count too (`allowJs`, or a `jsconfig.json`); else only TypeScript ones.
    pub javascript_counted: bool,
}

/// Files walked per root by [`files_outside_config`].
pub const OUTSIDE_CONFIG_WALK_CAP: usize = 20_000;

/// The source files of `definition`'s languages under `root` (a TypeScript server's root with a
/// `tsconfig.json` or `jsconfig.json` that says what it compiles) that the config's
/// `files`/`include`/`exclude` leave out, `node_modules` and `.git` not walked; `None` for other
/// servers, a root without such a config, or when none is left out. tsc checks none of them and
/// tsserver searches their symbols only once one of them is open (trial30 F2: `symbols
/// "ZodString"` answered 5 at first and 46 later in the same run; M4: `"*"` said "0 errors" and
/// nothing of 167 files outside the config, 32 errors among them). Read beneath `workspace_root`,
/// no symlink followed.
pub fn files_outside_config(definition: &ServerDefinition, workspace_root: &Path, root: &Path) -> Option<FilesOutsideConfig> {
    let (config_name, scope) = restricting_config(definition, root)?;
    let javascript_counted = scope.excluded_extensions.is_empty();
    let mut found = FilesOutsideConfig { count: 0, examples: Vec::new(), truncated: false, config_name, javascript_counted };
    found.truncated = !for_each_file_outside_config(definition, workspace_root, root, &scope, false, |path, _| {
        found.count += 1;
        if found.examples.len() < 3 {
            found.examples.push(path.to_path_buf());
        }
    });
    (found.count > 0).then_some(found)
}

/// [`files_outside_config`] for a `tsc -b` of `root`'s config that also builds `projects` (its
/// project references, absolute folders): a file under one of them counts only when that
/// project's own config leaves it out too, and files under `outputs` (the build's own output
/// folders, [`crate::lsp::typescript_build_mode::build_output_paths`]) do not count (trial176
/// M4: a solution `tsconfig.json` with `"files": []` said all 157 files of its referenced
/// projects and their `dist/` were NOT checked). `None` when every file is in some project's
/// program or output.
pub fn files_outside_build(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    projects: &[PathBuf],
    outputs: &[PathBuf],
) -> Option<FilesOutsideConfig> {
    let mut outside_projects: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for project in projects {
        if let Some((_, scope)) = restricting_config(definition, project) {
            for_each_file_outside_config(definition, workspace_root, project, &scope, false, |path, _| {
                outside_projects.insert(path.to_path_buf());
            });
        }
    }
    let (config_name, scope) = restricting_config(definition, root)?;
    let javascript_counted = scope.excluded_extensions.is_empty();
    let mut found = FilesOutsideConfig { count: 0, examples: Vec::new(), truncated: false, config_name, javascript_counted };
    found.truncated = !for_each_file_outside_config(definition, workspace_root, root, &scope, false, |path, _| {
        let in_a_project = projects.iter().any(|project| path.starts_with(project)) && !outside_projects.contains(path);
        if in_a_project || outputs.iter().any(|output| path.starts_with(output)) {
            return;
        }
        found.count += 1;
        if found.examples.len() < 3 {
            found.examples.push(path.to_path_buf());
        }
    });
    (found.count > 0).then_some(found)
}

/// The config (`tsconfig.json`, else `jsconfig.json`) at a TypeScript server's `root` and its
/// scope, when that scope leaves anything out (`include`, `exclude` or `files` set); `None` for
/// other servers and for roots without such a config.
fn restricting_config(definition: &ServerDefinition, root: &Path) -> Option<(&'static str, WalkScope)> {
    if !definition.extensions.iter().any(|(extension, _)| extension == "ts") {
        return None;
    }
    let config_name = ["tsconfig.json", "jsconfig.json"].into_iter().find(|name| root.join(name).is_file())?;
    let scope = WalkScope::for_server(definition, root);
    (scope.include.is_some() || scope.exclude.is_some() || !scope.files.is_empty()).then_some((config_name, scope))
}

/// Calls `visit` with each file of `definition`'s languages under `root` that `scope` leaves out
/// (and the reader beneath the workspace, to read it), `node_modules` and `.git` not walked;
/// `.js` files without `allowJs` count only with `javascript_too` (no part of any TypeScript
/// program, but a JavaScript test importing the sources uses their names), and not under
/// `dist/`, `build/` or `out/`; declaration files of build output count (tsserver reads them
/// only when opened). Returns false when the
/// walk stopped at [`OUTSIDE_CONFIG_WALK_CAP`] files, or could not start.
fn for_each_file_outside_config(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    scope: &WalkScope,
    javascript_too: bool,
    visit: impl FnMut(&Path, &crate::files::WorkspaceReader),
) -> bool {
    for_each_served_file(definition, workspace_root, root, scope, false, javascript_too, visit)
}

/// Calls `visit` with each file of `definition`'s languages under `root` (every one when
/// `inside_too`, else only those `scope` leaves out), as [`for_each_file_outside_config`] walks
/// them. Returns false when the walk stopped at [`OUTSIDE_CONFIG_WALK_CAP`] files, or could not
/// start.
fn for_each_served_file(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    scope: &WalkScope,
    inside_too: bool,
    javascript_too: bool,
    mut visit: impl FnMut(&Path, &crate::files::WorkspaceReader),
) -> bool {
    let Ok(reader) = crate::files::WorkspaceReader::open(crate::files::walk_beneath::root_for_walk(workspace_root, root)) else {
        return false;
    };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return false };
    let mut walked = 0usize;
    for entry in walk.hidden(true).skip_names(&["node_modules", ".git"]).iter().flatten() {
        let path = entry.path();
        if !entry.is_file() || !definition.serves(path) {
            continue;
        }
        let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
        // JavaScript without `allowJs` is in no TypeScript program, yet a JavaScript test that
        // imports the sources uses their names (trial70 F3: immer's 13 `__tests__/*.js` suites,
        // 334 uses of `produce`, were left out of the count of what a rename leaves): counted
        // outside the config, except as build output.
        let built_javascript = path
            .strip_prefix(root)
            .ok()
            .and_then(|relative| relative.components().next())
            .is_some_and(|first| CONVENTIONAL_BUILD_OUTPUT.iter().any(|output| first.as_os_str() == *output));
        if scope.excluded_extensions.contains(&extension) && (inside_too || !javascript_too || built_javascript) {
            continue;
        }
        walked += 1;
        if walked > OUTSIDE_CONFIG_WALK_CAP {
            return false;
        }
        if inside_too || !scope.includes(path.strip_prefix(root).unwrap_or(path)) {
            visit(path, &reader);
        }
    }
    true
}

/// The files of `definition`'s languages under `root` that the project compiles (the tsconfig's
/// scope, see [`WalkScope::for_server`]) and that hold one of `words` as a whole word, in walk
/// order: the candidate users of a member a write gave a name (a member renamed by `edit` to
/// `getValue` is used where `getValue` is written; no server can say so before the write,
/// trial52 F2). Empty when the walk cannot start; a walk past [`OUTSIDE_CONFIG_WALK_CAP`] files
/// stops there.
pub fn files_naming_words(definition: &ServerDefinition, workspace_root: &Path, root: &Path, words: &[String]) -> Vec<PathBuf> {
    let scope = WalkScope::for_server(definition, root);
    let mut found = Vec::new();
    for_each_served_file(definition, workspace_root, root, &scope, true, false, |path, reader| {
        if !scope.includes(path.strip_prefix(root).unwrap_or(path)) {
            return;
        }
        let Ok(text) = reader.read_to_string(path) else { return };
        if words.iter().any(|word| crate::lsp::position::contains_word(&text, word)) {
            found.push(path.to_path_buf());
        }
    });
    found
}

/// Whole-word occurrences of `word` in the files [`files_outside_config`] finds (at most
/// [`OUTSIDE_CONFIG_WALK_CAP`] files walked): (occurrences, files holding them, in walk order).
/// tsserver's references and renames never reach them (trial31: 33 uses of `nonoptional` in 11
/// excluded test files stayed, 7 tests failed, the rename read clean). Files in `known` (the
/// answer's or the plan's own files, absolute) are left out: the server reached them through an
/// inferred project. `None` when there is no such file or no occurrence.
pub fn word_outside_config(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    word: &str,
    known: &[PathBuf],
) -> Option<(usize, Vec<PathBuf>)> {
    if word.is_empty() {
        return None;
    }
    let (_, scope) = restricting_config(definition, root)?;
    let mut occurrences = 0usize;
    let mut files = Vec::new();
    for_each_file_outside_config(definition, workspace_root, root, &scope, true, |path, reader| {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if known.iter().any(|file| *file == canonical || file == path) {
            return;
        }
        let Ok(text) = reader.read_to_string(path) else { return };
        if !text.contains(word) {
            return;
        }
        let found: usize = text.lines().map(|line| crate::lsp::rename_coverage::word_positions(line, word).len()).sum();
        if found > 0 {
            occurrences += found;
            files.push(path.to_path_buf());
        }
    });
    (occurrences > 0).then_some((occurrences, files))
}

/// What tsc does with files outside the root's config, said right: "tsc compiles none of them"
/// when the workspace has no other `tsconfig*.json` / `jsconfig*.json` (within 3 levels of
/// `root`, `node_modules` skipped), else that the root config's tsc run does not and which other
/// configs may (trial93 M1: neverthrow's `tests/tsconfig.tests.json` compiles its tests; the
/// answer said no tsc did).
/// A config that `config` extends (directly or through its bases) is no other project: tsc
/// follows it into the same run, and runbound reads it for the build info's settings; it is named
/// as such (trial156 M6: `tsconfig.base.json` was "another config, which runbound neither checks
/// nor follows", and its suggested `tsc -p` would have type-checked the build output).
pub fn tsc_outside_config_clause(root: &Path, config: &str, display: impl Fn(&Path) -> String) -> String {
    let bases = crate::lsp::tsconfig_load::extended_configs(root, root);
    let (bases_here, others): (Vec<PathBuf>, Vec<PathBuf>) =
        other_typescript_configs(root, config).into_iter().partition(|path| bases.contains(path));
    let bases_said = (!bases_here.is_empty()).then(|| {
        let shown: Vec<String> = bases_here.iter().map(|path| display(path)).collect();
        format!(
            "{} {} the base {config} extends, no project of {}: tsc reads {} compilerOptions into this same run, and {} files/include where {config} sets none; runbound reads {} for the run's `incremental`/`composite` build info",
            shown.join(", "),
            if bases_here.len() == 1 { "is" } else { "are" },
            if bases_here.len() == 1 { "its own" } else { "their own" },
            if bases_here.len() == 1 { "its" } else { "their" },
            if bases_here.len() == 1 { "its" } else { "their" },
            if bases_here.len() == 1 { "it" } else { "them" },
        )
    });
    if others.is_empty() {
        return match bases_said {
            Some(bases_said) => format!("tsc compiles none of them ({bases_said})"),
            None => "tsc compiles none of them".to_owned(),
        };
    }
    let shown: Vec<String> = others.iter().take(3).map(|path| display(path)).collect();
    format!(
        "the tsc run of {config} compiles none of them ({} may: another config, which runbound neither checks nor follows — run `tsc --noEmit -p {}` for {}{})",
        shown.join(", "),
        shown[0],
        if others.len() == 1 { "it" } else { "each" },
        bases_said.map(|said| format!("; {said}")).unwrap_or_default(),
    )
}

/// The `tsconfig*.json` / `jsconfig*.json` files within 3 levels of `root` other than `root`'s
/// own `config`, sorted.
fn other_typescript_configs(root: &Path, config: &str) -> Vec<PathBuf> {
    let Ok(reader) = crate::files::WorkspaceReader::open(root) else { return Vec::new() };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else { return Vec::new() };
    let mut found: Vec<PathBuf> = walk
        .max_depth(Some(3))
        .skip_names(&["node_modules", ".git", "dist", "build", "out"])
        .iter()
        .flatten()
        .filter(|entry| entry.is_file())
        .map(|entry| entry.into_path())
        .filter(|path| {
            let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
            (name.starts_with("tsconfig") || name.starts_with("jsconfig")) && name.ends_with(".json") && *path != root.join(config)
        })
        .collect();
    found.sort();
    found
}

/// The note or warning naming [`word_outside_config`]'s findings for `word` (`known` as there):
/// `what` says what they are not (`in this list`, `renamed`).
pub fn word_outside_config_sentence(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    word: &str,
    known: &[PathBuf],
    what: &str,
    display: impl Fn(&Path) -> String,
) -> Option<String> {
    let (occurrences, files) = word_outside_config(definition, workspace_root, root, word, known)?;
    let config = ["tsconfig.json", "jsconfig.json"].into_iter().find(|name| root.join(name).is_file()).unwrap_or("tsconfig.json");
    let shown: Vec<String> = files.iter().take(5).map(|path| display(path)).collect();
    // Declaration files only: build output, which the build regenerates; else a rename's reader
    // is warned about tests (trial32 M2: the warning about tests was given for `dist/*.d.ts` and
    // on a references answer, where no name changes).
    let built = files.iter().all(|path| {
        let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts")
    });
    let advice = match (built, what) {
        (true, _) => "declaration files only (build output, which the build regenerates from the sources)",
        (false, "renamed") => "read them (tests among them fail if they use the old name)",
        (false, _) => "read them",
    };
    Some(format!(
        "{} of `{word}` in {} outside {config}'s files/include/exclude ({}{}) are NOT {what}: {} knows only the projects of open files, and {} — {advice}",
        crate::render::plural(occurrences, "whole-word occurrence"),
        crate::render::plural(files.len(), "file"),
        shown.join(", "),
        if files.len() > 5 { format!(" and {} more", files.len() - 5) } else { String::new() },
        definition.id,
        tsc_outside_config_clause(root, config, &display),
    ))
}

/// Of `paths` (absolute, under `root`), those the tsconfig/jsconfig at a TypeScript server's
/// `root` leaves out of its program; empty for other servers and roots without such a config.
/// A rename asked in an excluded test file edits what tsserver's inferred project sees — the
/// built `v4/classic/schemas.d.cts` instead of the source (trial31 F3).
pub fn paths_outside_config(definition: &ServerDefinition, root: &Path, paths: &[PathBuf]) -> Vec<PathBuf> {
    let Some((_, scope)) = restricting_config(definition, root) else { return Vec::new() };
    paths.iter().filter(|path| path.strip_prefix(root).is_ok_and(|relative| !scope.includes(relative))).cloned().collect()
}

/// The files [`files_outside_config`] finds (at most [`OUTSIDE_CONFIG_WALK_CAP`] walked) that
/// import one of `targets` (absolute) by a relative module specifier (`from "../../locales/en.js"`,
/// `import("./x")`, `require("./x")`, `export … from`), in walk order: tsserver's
/// `fileReferences` knows only the program, so a write check never reaches them (trial31 F5: an
/// edit of zod's `locales/en.ts` read "1 new error"; the excluded `core/tests/locales/en.test.ts`
/// imports it and got 13 × TS2554 from tsc). A specifier matches a target when both name the
/// same file once a source or output extension (`.ts`, `.tsx`, `.js`, `.mjs`, …, `.d.ts`) and a
/// trailing `/index` are dropped. Package-name imports (`zod/v4`) are not resolved. Empty for
/// other servers and roots without a restricting config.
pub fn importers_outside_config(definition: &ServerDefinition, workspace_root: &Path, root: &Path, targets: &[PathBuf]) -> Vec<PathBuf> {
    let Some((_, scope)) = restricting_config(definition, root) else { return Vec::new() };
    importers_by_import_lines(definition, workspace_root, root, targets, &scope, false).into_iter().map(|(path, _)| path).collect()
}

/// The files under `root` of `definition`'s languages (`node_modules` and `.git` not walked, at
/// most [`OUTSIDE_CONFIG_WALK_CAP`] files read) that import one of `targets` (absolute) by a
/// relative module specifier, matched as [`importers_outside_config`] matches them, each with
/// whether one of those imports is a re-export (its line starts with `export`: `export * from
/// "./x"`). A textual scan that needs no server: a deleted module is known to tsserver's
/// `fileReferences` only while a project still holds it, and a project that learned of the
/// deletion first answers none (trial41 F2: immer 11.2.14's `src/utils/env.ts`, moved away,
/// "0 files that import it" where tsc counts 45 errors in 11 files through `src/internal.ts`).
pub fn relative_importers(definition: &ServerDefinition, workspace_root: &Path, root: &Path, targets: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let scope = WalkScope::for_server(definition, root);
    importers_by_import_lines(definition, workspace_root, root, targets, &scope, true)
}

/// The files that import one of `targets` by a relative module specifier, with whether one such
/// import re-exports: every served file under `root` with `inside_too`, else only those `scope`
/// leaves out (see [`for_each_served_file`]).
fn importers_by_import_lines(
    definition: &ServerDefinition,
    workspace_root: &Path,
    root: &Path,
    targets: &[PathBuf],
    scope: &WalkScope,
    inside_too: bool,
) -> Vec<(PathBuf, bool)> {
    let keys: Vec<PathBuf> = targets.iter().map(|target| module_key(target)).collect();
    let stems: Vec<String> = keys.iter().filter_map(|key| key.file_name().map(|name| name.to_string_lossy().into_owned())).collect();
    let mut found = Vec::new();
    for_each_served_file(definition, workspace_root, root, scope, inside_too, false, |path, reader| {
        let Ok(text) = reader.read_to_string(path) else { return };
        if !stems.iter().any(|stem| text.contains(stem.as_str())) {
            return;
        }
        let directory = path.parent().unwrap_or(root);
        let mut imports = false;
        let mut reexports = false;
        for specifier in relative_module_specifiers(&text) {
            let key = module_key(&crate::files::path::lexically_normal(&directory.join(specifier)));
            if keys.contains(&key) {
                imports = true;
                // The specifier is a slice of `text`: its line is found from its offset.
                let at = specifier.as_ptr() as usize - text.as_ptr() as usize;
                let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
                reexports |= text[line_start..].trim_start().starts_with("export");
            }
        }
        if imports {
            found.push((path.to_path_buf(), reexports));
        }
    });
    found
}

/// `path` without a TypeScript/JavaScript source or output extension and without a trailing
/// `/index`: what a module specifier and a file are compared by.
pub(crate) fn module_key(path: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    let mut key: &str = &text;
    for extension in [".d.ts", ".d.mts", ".d.cts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs"] {
        if let Some(stripped) = key.strip_suffix(extension) {
            key = stripped;
            break;
        }
    }
    let key = key.strip_suffix("/index").unwrap_or(key);
    PathBuf::from(key)
}

/// The relative module specifiers (`./…`, `../…`) of a TypeScript/JavaScript text: the string
/// after `from`, after `import` (a side-effect import), and inside `import(` / `require(`. A
/// textual scan: a specifier-shaped string in a comment counts too.
fn relative_module_specifiers(text: &str) -> Vec<&str> {
    let mut specifiers = Vec::new();
    for keyword in ["from", "import", "import(", "require("] {
        for (at, _) in text.match_indices(keyword) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(crate::lsp::position::is_identifier_char) {
                continue;
            }
            let rest = text[at + keyword.len()..].trim_start();
            let Some(quote) = rest.chars().next().filter(|quote| matches!(quote, '"' | '\'' | '`')) else { continue };
            let Some(end) = rest[1..].find(quote) else { continue };
            let specifier = &rest[1..1 + end];
            if specifier.starts_with("./") || specifier.starts_with("../") {
                specifiers.push(specifier);
            }
        }
    }
    specifiers
}

/// The note for `paths` (absolute) that the tsconfig at a TypeScript server's `root` leaves out
/// of its program ([`paths_outside_config`]): their diagnostics come from tsserver's inferred
/// project (its own compiler options; package imports may resolve to built `.d.ts` files), and
/// `"*"` (tsc on the config) never counts them (trial31 M6: a written excluded test file got "2
/// new errors … for the whole count, call `*`", and `*` then said 0). Without a `note: ` prefix.
/// `None` when none is left out.
pub fn outside_config_note(
    definition: &ServerDefinition,
    root: &Path,
    paths: &[PathBuf],
    display: impl Fn(&Path) -> String,
) -> Option<String> {
    let outside = paths_outside_config(definition, root, paths);
    if outside.is_empty() {
        return None;
    }
    let config = ["tsconfig.json", "jsconfig.json"].into_iter().find(|name| root.join(name).is_file()).unwrap_or("tsconfig.json");
    let names: Vec<String> = outside.iter().map(|path| display(path)).collect();
    Some(format!(
        "{} {} outside {config}'s files/include/exclude: {} checked {} in an inferred project of its own (its own compiler options; package imports may resolve to built .d.ts files), and {{\"file\": \"*\"}} (tsc on {config}) does not count {} — the errors shown here are the only count",
        names.join(", "),
        crate::render::one_or_many(outside.len(), "is", "are"),
        definition.id,
        crate::render::one_or_many(outside.len(), "it", "them"),
        crate::render::one_or_many(outside.len(), "it", "them"),
    ))
}

impl FilesOutsideConfig {
    /// `167 .ts/.tsx/… files under src are outside tsconfig.json's include/exclude (e.g. a, b, c)`.
    pub fn describe(&self, root_display: &str, display: impl Fn(&Path) -> String) -> String {
        let examples: Vec<String> = self.examples.iter().map(|path| display(path)).collect();
        format!(
            "{}{} under {root_display} {} outside {}'s files/include/exclude (e.g. {})",
            if self.truncated { "at least " } else { "" },
            // Without allowJs the JavaScript files are no part of any program and not counted
            // (trial32 M3: "97 TypeScript/JavaScript files" were 97 TypeScript files).
            crate::render::plural(self.count, if self.javascript_counted { "TypeScript/JavaScript file" } else { "TypeScript file" }),
            crate::render::one_or_many(self.count, "is", "are"),
            self.config_name,
            examples.join(", ")
        )
    }
}

/// The root-relative form of a tsconfig path (`./src/` → `src`).
fn normalize(path: &Path) -> PathBuf {
    path.components().filter(|component| !matches!(component, Component::CurDir)).collect()
}

/// The directory part of `pattern` before its first wildcard segment (`src/**/*.ts` → `src`).
fn literal_base(pattern: &str) -> PathBuf {
    let normalized = normalize(Path::new(pattern));
    let mut base = PathBuf::new();
    let segments: Vec<&std::ffi::OsStr> = normalized.iter().collect();
    for (index, segment) in segments.iter().enumerate() {
        let text = segment.to_string_lossy();
        let last = index + 1 == segments.len();
        if text.contains(['*', '?']) || (last && is_file_pattern(&text)) {
            break;
        }
        base.push(segment);
    }
    base
}

/// Whether a pattern's last segment names files (has a wildcard or an extension) rather than a
/// directory.
fn is_file_pattern(last_segment: &str) -> bool {
    last_segment.contains(['*', '?']) || last_segment.contains('.')
}

/// tsc's include/exclude patterns as globs over root-relative paths. A pattern naming a
/// directory matches everything beneath it (and, for excludes, the directory itself).
fn build_globs(patterns: &[String], files_only: bool) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let normalized = normalize(Path::new(pattern)).to_string_lossy().into_owned();
        if normalized.is_empty() {
            continue;
        }
        let last = normalized.rsplit('/').next().unwrap_or("");
        let mut globs = Vec::new();
        if is_file_pattern(last) {
            globs.push(normalized.clone());
        } else {
            globs.push(format!("{normalized}/**/*"));
            if !files_only {
                globs.push(normalized.clone());
            }
        }
        for glob in globs {
            if let Ok(glob) = glob_of(&glob) {
                builder.add(glob);
            }
        }
    }
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

fn glob_of(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(true).build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn another_tsconfig_is_named_where_the_root_configs_tsc_run_compiles_none_of_the_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tsconfig.json"), "{}").unwrap();
        let display = |path: &Path| path.strip_prefix(dir.path()).unwrap_or(path).display().to_string();
        assert_eq!(tsc_outside_config_clause(dir.path(), "tsconfig.json", display), "tsc compiles none of them");
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/tsconfig.tests.json"), "{}").unwrap();
        let clause = tsc_outside_config_clause(dir.path(), "tsconfig.json", display);
        assert!(clause.starts_with("the tsc run of tsconfig.json compiles none of them (tests/tsconfig.tests.json may"), "{clause}");
    }

    #[test]
    fn relative_module_specifiers_and_their_keys() {
        let text = "import { a } from \"../../locales/en.js\";\nimport './side';\nexport * from '../index';\nconst b = require(\"./b\");\nconst c = await import('./c.mjs');\nimport { z } from \"zod/v4\";\nconst platform = 'x'; // transform('./not-a-module')\n";
        assert_eq!(relative_module_specifiers(text), ["../../locales/en.js", "../index", "./side", "./c.mjs", "./b"]);
        assert_eq!(module_key(Path::new("/r/src/locales/en.ts")), module_key(Path::new("/r/src/locales/en.js")));
        assert_eq!(module_key(Path::new("/r/src/index.ts")), module_key(Path::new("/r/src")));
        assert_eq!(module_key(Path::new("/r/types.d.ts")), PathBuf::from("/r/types"));
        assert_ne!(module_key(Path::new("/r/en.ts")), module_key(Path::new("/r/en.test.ts")));
    }

    #[test]
    fn tsconfig_include_keeps_the_walk_out_of_dist_and_javascript() {
        let scope =
            WalkScope::from_tsconfig("tsconfig.json", &json!({"include": ["src"], "compilerOptions": {"outDir": "dist"}})).expect("scope");
        assert!(scope.walks_directory(Path::new("src")));
        assert!(scope.walks_directory(Path::new("src/utils")));
        assert!(!scope.walks_directory(Path::new("dist")));
        assert!(!scope.walks_directory(Path::new("test")));
        assert!(scope.walks_file(Path::new("src/utils/kindOf.ts")));
        assert!(!scope.walks_file(Path::new("src/legacy.js")));
        assert!(!scope.walks_file(Path::new("dist/redux.d.ts")));
        assert!(scope.describe().unwrap().contains("include src"));
    }

    #[test]
    fn tsconfig_globs_follow_tsc_rules() {
        let scope = WalkScope::from_tsconfig(
            "tsconfig.json",
            &json!({"include": ["src/**/*.ts", "./types/*.d.ts"], "exclude": ["src/**/*.test.ts"], "files": ["extra/index.ts"], "compilerOptions": {"allowJs": true}}),
        )
        .expect("scope");
        assert!(scope.walks_file(Path::new("src/a/b.ts")));
        assert!(!scope.walks_file(Path::new("src/a/b.test.ts")));
        assert!(scope.walks_file(Path::new("types/global.d.ts")));
        assert!(!scope.walks_file(Path::new("types/deep/global.d.ts")));
        assert!(scope.walks_file(Path::new("extra/index.ts")));
        assert!(scope.walks_directory(Path::new("extra")));
        assert!(!scope.walks_directory(Path::new("dist")));
        // No include and no files: everything but the default excludes and the output dir.
        let scope = WalkScope::from_tsconfig("tsconfig.json", &json!({"compilerOptions": {"outDir": "./lib"}})).expect("scope");
        assert!(scope.walks_file(Path::new("index.ts")));
        assert!(!scope.walks_directory(Path::new("lib")));
        assert!(!scope.walks_directory(Path::new("node_modules")));
        // An explicit `exclude` replaces the default, outDir included (tsc's getConfigFileSpecs):
        // json-schema-to-typescript 15.0.3 compiles its dist/src/*.d.ts.
        let scope = WalkScope::from_tsconfig(
            "tsconfig.json",
            &json!({"exclude": ["example", "node_modules"], "compilerOptions": {"outDir": "dist", "declarationDir": "types"}}),
        )
        .expect("scope");
        assert!(scope.walks_directory(Path::new("dist")));
        assert!(scope.walks_file(Path::new("dist/src/utils.d.ts")));
        assert!(scope.walks_directory(Path::new("types")));
        assert!(!scope.walks_directory(Path::new("example")));
        let said = scope.describe().unwrap();
        assert!(said.contains("exclude example, node_modules") && !said.contains("dist"), "{said}");
        // An inherited file list is not guessed.
        assert!(WalkScope::from_tsconfig("tsconfig.json", &json!({"extends": "./base.json"})).is_err());
    }
}
