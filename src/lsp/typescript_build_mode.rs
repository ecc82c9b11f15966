//! TypeScript project references: the project check runs `tsc -b` (build mode) in a scratch
//! mirror of the workspace, so each project sees its references' CURRENT sources (trial176 F1,
//! F2, F3).
//!
//! `tsc --noEmit -p app` of a project whose tsconfig has `references: [../lib]` resolves
//! `@ws/lib` through lib's build output (`dist/index.d.ts`, package.json `types`), which stays
//! stale until lib is rebuilt: on zod 3's sources as `packages/lib` + a consumer `packages/app`,
//! a lib write that broke app read "checked packages/app … no errors" (tsc -b: 5 errors), `"*"`
//! said 0 (and 74 where tsc -b had 75), and on a fresh clone (no `dist/`) `"*"` reported 7
//! `Cannot find module '@ws/lib'` errors tsc -b does not have. `tsc -p` cannot be told to read
//! referenced sources (only tsserver redirects them), and `tsc -b --noEmit` refuses a referenced
//! composite project (TS6310), so build mode has to emit: it runs where its outputs harm
//! nothing.
//!
//! The mirror ([`TypeScriptBuildMirrors`], one per run, kept between checks so later builds are
//! incremental: zod's lib + app, 17–23 s cold, 3–8 s after a one-file change) is a temporary
//! directory whose directories are real and whose files are:
//! - symlinks to the workspace's TypeScript sources (`.ts`, `.tsx`, `.mts`, `.cts`): tsc never
//!   writes a file of those names, and a symlinked source keeps the mirror path (tsc takes the
//!   real path of modules resolved through `node_modules` only);
//! - copies of the files tsc may also write (`.js`, `.jsx`, `.mjs`, `.cjs`, `.json`, `.map`,
//!   declaration files): a build that writes one of them writes the copy, never the workspace;
//! - for each `node_modules` folder, a real folder (and real `@scope` folders) whose entries are
//!   symlinks to the installed packages, except the workspace's own packages (npm/yarn/pnpm
//!   workspace links), which point at their mirror folders, so `@ws/lib` resolves to the mirror's
//!   lib and its fresh output.
//!
//! Left out: `.git`, every `*.tsbuildinfo`, and the `outDir`/`declarationDir`/`tsBuildInfoFile`
//! of each project the build reaches (stale outputs: the mirror's build writes its own). Files of
//! other kinds are not mirrored (tsc reads none). Nothing is ever written into the workspace.
//! Record paths are mapped back: a symlinked source by its real path, a mirror file by its place.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use parking_lot::{Mutex, MutexGuard};
use serde_json::Value;

use crate::lsp::diagnostics_on_write::DiagnosticRecord;

/// At most this many files are mirrored; a larger workspace is not checked in build mode (the
/// check says so).
pub(crate) const MAX_MIRRORED_FILES: usize = 60_000;
/// At most this many bytes are copied into the mirror (see the module docs); beyond it the
/// workspace is not checked in build mode.
pub(crate) const MAX_COPIED_BYTES: u64 = 256 * 1024 * 1024;
/// At most this many projects are followed through `references` from one config.
const MAX_REFERENCED_PROJECTS: usize = 200;

/// The tsconfig.json of `dir` (a project folder), parsed as JSONC; `None` when missing, outside
/// the workspace, unreadable or unparsable.
fn read_config(workspace_root: &Path, config: &Path) -> Option<Value> {
    if !config.starts_with(workspace_root) {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(workspace_root, config).ok()?;
    jsonc_parser::parse_to_serde_value(&text, &jsonc_parser::ParseOptions::default()).ok()?
}

/// The project folders the `references` of `config` (a tsconfig file) name, as tsc resolves a
/// reference's `path` (a folder, whose `tsconfig.json` is meant, or a config file), absolute
/// and normalized, in order. Empty when it has none or cannot be read. (`references` is not
/// inherited through `extends`, as in tsc.)
fn direct_references(workspace_root: &Path, config: &Path) -> Vec<(PathBuf, PathBuf)> {
    let Some(value) = read_config(workspace_root, config) else { return Vec::new() };
    let folder = config.parent().unwrap_or(workspace_root);
    let Some(references) = value.get("references").and_then(Value::as_array) else { return Vec::new() };
    references
        .iter()
        .filter_map(|reference| reference.get("path").and_then(Value::as_str))
        .map(|path| {
            let target = crate::lsp::tsconfig_load::normalize(&folder.join(path));
            if target.extension().is_some_and(|extension| extension == "json") {
                (target.parent().map(Path::to_path_buf).unwrap_or_else(|| folder.to_path_buf()), target)
            } else {
                (target.clone(), target.join("tsconfig.json"))
            }
        })
        .collect()
}

/// Whether `root`'s `tsconfig.json` names other projects in `references`: then its project check
/// runs in build mode (`tsc -b`, see the module docs), not `tsc --noEmit -p`.
pub(crate) fn config_has_references(workspace_root: &Path, root: &Path) -> bool {
    !direct_references(workspace_root, &root.join("tsconfig.json")).is_empty()
}

/// The project folders `tsc -b` of `root`'s `tsconfig.json` builds besides `root` itself: its
/// `references`, and theirs, transitively (absolute, each once, at most
/// [`MAX_REFERENCED_PROJECTS`]), in the order first met.
pub(crate) fn projects_built_with(workspace_root: &Path, root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let mut pending: Vec<PathBuf> = vec![root.join("tsconfig.json")];
    let mut seen_configs: HashSet<PathBuf> = HashSet::new();
    while let Some(config) = pending.pop() {
        if !seen_configs.insert(config.clone()) || seen_configs.len() > MAX_REFERENCED_PROJECTS {
            continue;
        }
        for (folder, referenced_config) in direct_references(workspace_root, &config) {
            if folder != root && !found.contains(&folder) {
                found.push(folder);
            }
            pending.push(referenced_config);
        }
    }
    found
}

/// The paths (absolute) a build of `root` writes in the projects it builds, which the mirror
/// leaves out (stale outputs) and the `"*"` check does not count as files left unchecked: each
/// project's `outDir` and `declarationDir` when strictly inside its folder, and its
/// `tsBuildInfoFile`.
pub(crate) fn build_output_paths(workspace_root: &Path, root: &Path) -> Vec<PathBuf> {
    let mut outputs = Vec::new();
    for project in std::iter::once(root.to_path_buf()).chain(projects_built_with(workspace_root, root)) {
        for option in ["outDir", "declarationDir"] {
            if let Some(dir) = crate::lsp::tsconfig_load::resolved_compiler_option_directory(workspace_root, &project, option) {
                if dir.starts_with(&project) && dir != project {
                    outputs.push(dir);
                }
            }
        }
        if let Some(file) = crate::lsp::tsconfig_load::resolved_compiler_option_directory(workspace_root, &project, "tsBuildInfoFile") {
            outputs.push(file);
        }
    }
    outputs
}

/// How a mirrored file was placed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Placed {
    /// A symlink to this target.
    Link(PathBuf),
    /// A copy of a workspace file of this size and modification time (ns).
    Copy { len: u64, modified_ns: u128 },
}

/// Whether tsc may write a file of this name (JavaScript, JSON, maps, declaration files, build
/// info): such a file is copied into the mirror, never symlinked (see the module docs).
fn tsc_may_write(name: &str) -> bool {
    [".js", ".jsx", ".mjs", ".cjs", ".json", ".map", ".tsbuildinfo"].iter().any(|suffix| name.ends_with(suffix))
        || crate::lsp::typescript_build_output::is_declaration_file_name(name)
        || name.ends_with(".d.ts")
}

/// Whether tsc reads files of this name (sources, declarations, JavaScript, JSON).
fn tsc_may_read(name: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts"].iter().any(|suffix| name.ends_with(suffix)) || tsc_may_write(name)
}

/// One mirror of a workspace (see the module docs).
struct BuildMirror {
    /// The temporary directory (removed on drop).
    dir: tempfile::TempDir,
    /// The workspace it mirrors, as given and canonical.
    workspace_root: PathBuf,
    canonical_workspace_root: PathBuf,
    /// What was placed at each mirror-relative path at the last sync.
    placed: HashMap<PathBuf, Placed>,
}

/// The build mirrors of a run's workspace, one at a time, kept between checks (owned by the
/// supervisor): a later `tsc -b` in it rebuilds only what changed.
#[derive(Default)]
pub(crate) struct TypeScriptBuildMirrors {
    mirror: Mutex<Option<BuildMirror>>,
}

/// The mirror, synced with the workspace and held for one build (no other check uses it
/// meanwhile).
pub(crate) struct MirrorLease<'a> {
    guard: MutexGuard<'a, Option<BuildMirror>>,
    /// Files placed or updated by this sync, and removed (for the answer).
    pub(crate) synced: MirrorSync,
}

/// What one sync of the mirror did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MirrorSync {
    /// Files mirrored in all.
    pub(crate) files: usize,
    /// Files placed anew or replaced by this sync.
    pub(crate) placed: usize,
    /// Whether the mirror was made by this sync (its build starts from nothing).
    pub(crate) fresh: bool,
}

impl TypeScriptBuildMirrors {
    /// The mirror of `workspace_root`, made or synced for a `tsc -b` of `root`'s tsconfig.json
    /// (whose projects' outputs are left out).
    ///
    /// # Errors
    /// What kept the mirror from being made: no temporary directory, a workspace directory that
    /// cannot be listed, more than [`MAX_MIRRORED_FILES`] files or [`MAX_COPIED_BYTES`] to copy,
    /// a file that cannot be placed. A sentence for the answer.
    pub(crate) fn lease(&self, workspace_root: &Path, root: &Path) -> Result<MirrorLease<'_>, String> {
        let mut guard = self.mirror.lock();
        if guard.as_ref().is_some_and(|mirror| mirror.workspace_root != workspace_root) {
            *guard = None;
        }
        let fresh = guard.is_none();
        if fresh {
            let dir = tempfile::Builder::new()
                .prefix("runbound-tsc-build-")
                .tempdir()
                .map_err(|err| format!("no temporary directory for the build mirror: {err}"))?;
            let canonical_workspace_root = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
            *guard =
                Some(BuildMirror { dir, workspace_root: workspace_root.to_path_buf(), canonical_workspace_root, placed: HashMap::new() });
        }
        let mirror = guard.as_mut().expect("set above");
        let mut synced = match mirror.sync(&build_output_paths(workspace_root, root)) {
            Ok(synced) => synced,
            Err(why) => {
                *guard = None;
                return Err(why);
            }
        };
        synced.fresh = fresh;
        Ok(MirrorLease { guard, synced })
    }
}

impl BuildMirror {
    /// The mirror path of workspace path `path` (absolute, under the workspace as given or
    /// canonical).
    fn mirror_path(&self, path: &Path) -> Option<PathBuf> {
        let relative = path.strip_prefix(&self.workspace_root).or_else(|_| path.strip_prefix(&self.canonical_workspace_root)).ok()?;
        Some(self.dir.path().join(relative))
    }

    /// Where a `node_modules` entry's symlink in the mirror points: a workspace package (its real
    /// folder in the workspace, outside any `node_modules`) at its mirror folder, anything else at
    /// its real path.
    fn node_modules_target(&self, entry: &Path) -> PathBuf {
        let real = std::fs::canonicalize(entry).unwrap_or_else(|_| entry.to_path_buf());
        match real.strip_prefix(&self.canonical_workspace_root) {
            Ok(relative) if !relative.components().any(|component| component.as_os_str() == "node_modules") => {
                self.dir.path().join(relative)
            }
            _ => real,
        }
    }

    /// Makes the mirror match the workspace (see the module docs); `outputs` are left out.
    fn sync(&mut self, outputs: &[PathBuf]) -> Result<MirrorSync, String> {
        let workspace_root = self.workspace_root.clone();
        let handle =
            crate::files::Beneath::open(&workspace_root).map_err(|err| format!("cannot open the workspace root to mirror it: {err}"))?;
        let node_modules_found: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
        let outputs_owned: Vec<PathBuf> = outputs.to_vec();
        let walk = crate::files::walk_beneath::BeneathWalk::new(&handle, &workspace_root)
            .map_err(|err| format!("cannot walk the workspace to mirror it: {err}"))?
            .standard_filters(false)
            .filter_entry(|entry| {
                let name = entry.file_name().to_string_lossy();
                if name == "node_modules" && entry.is_dir() {
                    if let Ok(mut found) = node_modules_found.lock() {
                        found.push(entry.path().to_path_buf());
                    }
                    return false;
                }
                name != ".git" && !name.ends_with(".tsbuildinfo") && !outputs_owned.iter().any(|output| entry.path() == output)
            });
        let mut wanted: HashMap<PathBuf, Placed> = HashMap::new();
        let mut copied_bytes: u64 = 0;
        for entry in walk.iter() {
            let entry = entry.map_err(|err| format!("cannot mirror the workspace: {err}"))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_symlink = entry.file_type() == rustix::fs::FileType::Symlink;
            if !(entry.is_file() || is_symlink) || !tsc_may_read(&name) {
                continue;
            }
            let relative = entry.relative().to_path_buf();
            let placed = if is_symlink || !tsc_may_write(&name) {
                // A symlinked file: followed to its real file (a workspace file's mirror place
                // when it is one the mirror copies).
                let real = std::fs::canonicalize(entry.path()).unwrap_or_else(|_| entry.path().to_path_buf());
                if is_symlink && tsc_may_write(&name) {
                    let Some(stat) = std::fs::metadata(&real).ok() else { continue };
                    copied_bytes += stat.len();
                    Placed::Copy { len: stat.len(), modified_ns: modified_ns(&stat) }
                } else {
                    Placed::Link(real)
                }
            } else {
                let Some(stat) = entry.stat() else { continue };
                copied_bytes += stat.len;
                Placed::Copy { len: stat.len, modified_ns: stat.modified_ns() }
            };
            wanted.insert(relative, placed);
            if wanted.len() > MAX_MIRRORED_FILES {
                return Err(format!("the workspace has more than {MAX_MIRRORED_FILES} TypeScript, JavaScript and JSON files to mirror"));
            }
            if copied_bytes > MAX_COPIED_BYTES {
                return Err(format!(
                    "the JavaScript, JSON and declaration files to copy into the mirror exceed {} MB",
                    MAX_COPIED_BYTES / (1024 * 1024)
                ));
            }
        }
        let node_modules = node_modules_found.into_inner().unwrap_or_default();
        for folder in node_modules {
            let Ok(relative) = folder.strip_prefix(&workspace_root) else { continue };
            for (entry, kind) in crate::files::walk_beneath::list_directory(&workspace_root, &folder) {
                let Some(name) = entry.file_name().map(|name| name.to_string_lossy().into_owned()) else { continue };
                if name.starts_with('.') {
                    continue;
                }
                if name.starts_with('@') && kind == rustix::fs::FileType::Directory {
                    for (scoped, _) in crate::files::walk_beneath::list_directory(&workspace_root, &entry) {
                        let Some(scoped_name) = scoped.file_name() else { continue };
                        wanted.insert(relative.join(&name).join(scoped_name), Placed::Link(self.node_modules_target(&scoped)));
                    }
                } else {
                    wanted.insert(relative.join(&name), Placed::Link(self.node_modules_target(&entry)));
                }
            }
        }
        let mut sync = MirrorSync { files: wanted.len(), ..MirrorSync::default() };
        let gone: Vec<PathBuf> = self.placed.keys().filter(|relative| !wanted.contains_key(*relative)).cloned().collect();
        for relative in gone {
            let _ = std::fs::remove_file(self.dir.path().join(&relative));
            self.placed.remove(&relative);
        }
        for (relative, placed) in wanted {
            if self.placed.get(&relative) == Some(&placed) {
                continue;
            }
            let target = self.dir.path().join(&relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|err| format!("cannot make {} in the build mirror: {err}", parent.display()))?;
            }
            if std::fs::symlink_metadata(&target).is_ok() {
                std::fs::remove_file(&target).map_err(|err| format!("cannot replace {} in the build mirror: {err}", target.display()))?;
            }
            match &placed {
                Placed::Link(real) => std::os::unix::fs::symlink(real, &target)
                    .map_err(|err| format!("cannot link {} in the build mirror: {err}", target.display()))?,
                Placed::Copy { .. } => {
                    let source = workspace_root.join(&relative);
                    let reader = crate::files::WorkspaceReader::open(&workspace_root).map_err(|err| err.message.clone())?;
                    // A symlinked file is read at its real path, which must lie beneath the
                    // workspace too: every read of this layer stays beneath the root.
                    let bytes = reader
                        .read(&source)
                        .or_else(|err| {
                            let real = std::fs::canonicalize(&source).map_err(|_| err.message.clone())?;
                            if !real.starts_with(&self.canonical_workspace_root) {
                                return Err("it is a link to a file outside the workspace, which the mirror does not copy".to_owned());
                            }
                            reader.read(&real).map_err(|err| err.message.clone())
                        })
                        .map_err(|err| {
                            format!("cannot copy {} into the build mirror: {err}", crate::render::display_path(&workspace_root, &source))
                        })?;
                    std::fs::write(&target, bytes)
                        .map_err(|err| format!("cannot write {} in the build mirror: {err}", target.display()))?;
                }
            }
            self.placed.insert(relative, placed);
            sync.placed += 1;
        }
        Ok(sync)
    }
}

/// Modification time in ns since the epoch (0 when unknown).
fn modified_ns(metadata: &std::fs::Metadata) -> u128 {
    metadata.modified().ok().and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |since| since.as_nanos())
}

impl MirrorLease<'_> {
    fn mirror(&self) -> &BuildMirror {
        self.guard.as_ref().expect("a lease holds a mirror")
    }

    /// The mirror's directory (absolute).
    pub(crate) fn directory(&self) -> &Path {
        self.mirror().dir.path()
    }

    /// The mirror folder where `tsc -b` of workspace folder `root` runs.
    pub(crate) fn folder_of(&self, root: &Path) -> PathBuf {
        self.mirror().mirror_path(root).unwrap_or_else(|| self.directory().to_path_buf())
    }

    /// `records` of a build in the mirror with their paths in the workspace: a path in the
    /// mirror (`..` folded) is taken to the same place in the workspace, and the mirror's
    /// folder named in a message is the workspace's.
    pub(crate) fn records_in_workspace(&self, mut records: Vec<DiagnosticRecord>) -> Vec<DiagnosticRecord> {
        let mirror = self.mirror();
        let directory = mirror.dir.path();
        let canonical = std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_path_buf());
        for record in &mut records {
            let path = crate::lsp::tsconfig_load::normalize(&record.path);
            if let Ok(relative) = path.strip_prefix(directory).or_else(|_| path.strip_prefix(&canonical)) {
                record.path = mirror.workspace_root.join(relative);
            }
            for shown in [canonical.to_string_lossy().into_owned(), directory.to_string_lossy().into_owned()] {
                if record.message.contains(&shown) {
                    record.message = record.message.replace(&shown, &mirror.workspace_root.to_string_lossy());
                }
            }
        }
        records
    }

    /// A sentence for the answer: how this build ran, `projects` (display paths) being the ones
    /// its references add.
    pub(crate) fn describe(&self, projects: &[String]) -> String {
        format!(
            "build mode (the config has project references): `tsc -b` in a scratch mirror of the workspace ({} files; {}), so {} checked against the current sources of the projects it references ({}), not against their build output in the workspace; nothing is written into the workspace",
            self.synced.files,
            if self.synced.fresh {
                "made for this check: the first build compiles every project".to_owned()
            } else {
                format!("kept from an earlier check, {} updated: tsc rebuilds what changed", self.synced.placed)
            },
            "each project is",
            if projects.is_empty() { "none".to_owned() } else { projects.join(", ") }
        )
    }
}
