//! Project roots of one language that depend on each other inside the workspace (issue 11,
//! trial27b F1): a Go module whose `go.mod` has `replace example.com/lib => ../lib`, a crate whose
//! `Cargo.toml` names `path = "../lib"`, with no `go.work` / `[workspace]` joining them. runbound
//! runs one server per root, and a server answers only from what its root loads: the library's
//! server does not see the consumer's uses. The consumer's server does load the library's files
//! (through the replace / path dependency), so asking it at the same file position finds them.
//!
//! Found by reading manifests: every `go.mod` / `Cargo.toml` beneath the workspace (listed
//! beneath a handle of the workspace root, no symlink followed; `target`, `node_modules`,
//! `vendor`, `.git` and hidden directories skipped), at most [`MANIFESTS_CAP`] manifests and
//! [`ENTRIES_CAP`] listed entries. Direct dependents only (a consumer of a consumer is not
//! followed).

use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use lsp_types::request::{References, Request as _};

use crate::files::WorkspaceReader;
use crate::lsp::client::LanguageServer;
use crate::lsp::position::ResolvedSymbol;
use crate::lsp::servers::ServerDefinition;
use crate::lsp::supervisor::LspSupervisor;

/// For an answer `server` gives from its own root only (incoming calls, implementations): the
/// `note: NOT searched: …` naming the project roots that depend on its root by path, whose
/// `what` (callers, implementations) are not in it, and that `references` searches them
/// (trial95 F3, F4: hex's downstream `impl FromHex` and callers; trial98 F3). `None` when no
/// root depends on it.
pub(crate) fn dependent_roots_not_searched_note(supervisor: &LspSupervisor, server: &LanguageServer, what: &str) -> Option<String> {
    let dependents = supervisor.dependent_roots(server.id(), server.root());
    if dependents.roots.is_empty() {
        return None;
    }
    let shown: Vec<String> = dependents.roots.iter().map(|root| format!("{}/", supervisor.display_path(root))).collect();
    Some(format!(
        "note: NOT searched: {}{} — {} that {} on {} by path; {} there are not in this answer ({} answers for its own root); `references` searches {} too",
        shown.join(", "),
        if dependents.scan_incomplete { " (and maybe more: the manifest scan stopped at its cap)" } else { "" },
        crate::render::one_or_many(shown.len(), "a project root", "project roots"),
        crate::render::one_or_many(shown.len(), "depends", "depend"),
        supervisor.display_path(server.root()),
        what,
        server.id(),
        crate::render::one_or_many(shown.len(), "it", "them"),
    ))
}

/// For `implementation` asked in a root that depends on other project roots of the workspace by
/// path (a consumer module that `replace`s the library by `../`, a crate with a path
/// dependency): the `note:` that interfaces or traits of those roots that the queried type
/// satisfies may be missing — the server loads them as dependencies only, and gopls was seen to
/// answer none for a consumer type satisfying gorilla/mux's unexported `matcher` (trial106 F3:
/// "no implementations found", while go/types says it implements it). `None` when the root
/// depends on no other root of the workspace.
pub(crate) fn dependency_roots_partial_note(supervisor: &LspSupervisor, server: &LanguageServer) -> Option<String> {
    manifest_name(server.id())?;
    let mut dependencies: Vec<String> = supervisor
        .sibling_dependency_dirs(server.id(), server.root())
        .iter()
        .filter(|dir| dir.as_path() != server.root())
        .map(|dir| format!("{}/", supervisor.display_path(dir)))
        .collect();
    dependencies.sort();
    dependencies.dedup();
    if dependencies.is_empty() {
        return None;
    }
    Some(format!(
        "note: {} @ {} loads {} (a project root it depends on by path) as a dependency only: what the queried type implements there (an interface or trait of that root, exported or not) may be missing from this answer ({} was seen to answer none for a type satisfying an unexported interface of the module it replaces); to check, call implementation on the interface or trait in a file of {}",
        server.id(),
        supervisor.display_path(server.root()),
        dependencies.join(", "),
        server.id(),
        dependencies.join(", ")
    ))
}

/// At most this many manifests are read per scan.
pub const MANIFESTS_CAP: usize = 200;
/// At most this many directory entries are listed per scan.
pub const ENTRIES_CAP: usize = 50_000;

/// The roots that depend on a root, from [`dependent_roots_scan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DependentRoots {
    /// Each dependent root (the directory of its manifest, canonical), by path.
    pub roots: Vec<PathBuf>,
    /// The scan stopped at a cap: there may be more dependents.
    pub scan_incomplete: bool,
}

/// The manifest file name that makes a root for `server_id`, for the servers whose roots can
/// depend on each other by path (gopls: `go.mod` replace; rust-analyzer: `Cargo.toml` path
/// dependency). `None` for the others.
pub fn manifest_name(server_id: &str) -> Option<&'static str> {
    match server_id {
        "gopls" => Some("go.mod"),
        "rust-analyzer" => Some("Cargo.toml"),
        // An npm / yarn / pnpm workspace package that names another by its package name, linked
        // through `node_modules/<name>` (trial164 F1: `@tanstack/react-store` beside
        // `@tanstack/store`), see [`package_json_dependency_dirs`].
        "typescript-language-server" => Some("package.json"),
        _ => None,
    }
}

/// Whether a root of `server_id` nested beneath another of its roots is a project of its own,
/// which the outer root's server does not compile (a nested Go module, a `downstream/` crate
/// no member of the cargo workspace). Not so for typescript-language-server, though it has
/// dependent roots ([`manifest_name`]): an outer `tsconfig.json` may include a nested
/// package's files (a `types/` package with its own package.json), so its files are the outer
/// program's too.
pub fn nested_roots_are_separate_projects(server_id: &str) -> bool {
    matches!(server_id, "gopls" | "rust-analyzer")
}

/// The directories a manifest named `manifest` (in `manifest_dir`, canonical, beneath the
/// canonical `workspace_root`) with `text` names as local dependencies: a `go.mod` replace's and
/// a `Cargo.toml` `path`'s directories joined to `manifest_dir`; a `package.json`'s from
/// [`package_json_dependency_dirs`].
fn named_dependency_dirs(manifest: &str, text: &str, manifest_dir: &Path, workspace_root: &Path) -> Vec<PathBuf> {
    match manifest {
        "go.mod" => go_mod_replace_dirs(text).into_iter().map(|dir| manifest_dir.join(dir)).collect(),
        "Cargo.toml" => cargo_path_dependencies(text).into_iter().map(|dir| manifest_dir.join(dir)).collect(),
        _ => package_json_dependency_dirs(text, manifest_dir, workspace_root),
    }
}

/// The directories inside the workspace that a `package.json` (`text`, in the canonical
/// `manifest_dir`) depends on (trial164 F1): each package named in `dependencies`,
/// `devDependencies`, `peerDependencies` or `optionalDependencies` is resolved as Node resolves
/// it — the first `node_modules/<name>` that exists in `manifest_dir` or an ancestor of it up to
/// the canonical `workspace_root` — and kept when its canonical path (a workspace link's target)
/// lies in the workspace outside every `node_modules` directory: another package of the
/// workspace, not an installed one. A `file:` / `link:` version names its directory directly.
/// Canonical, in the manifest's order, each once; a manifest that is no JSON object names none.
pub fn package_json_dependency_dirs(text: &str, manifest_dir: &Path, workspace_root: &Path) -> Vec<PathBuf> {
    let Ok(serde_json::Value::Object(manifest)) = serde_json::from_str::<serde_json::Value>(text) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = Vec::new();
    for field in ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] {
        let Some(serde_json::Value::Object(named)) = manifest.get(field) else { continue };
        for (name, version) in named {
            // A name with `..` or an absolute path would leave node_modules.
            if name.is_empty() || name.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
                continue;
            }
            let local = version.as_str().and_then(|version| version.strip_prefix("file:").or_else(|| version.strip_prefix("link:")));
            let candidate = match local {
                Some(dir) => Some(manifest_dir.join(dir)),
                None => manifest_dir
                    .ancestors()
                    .take_while(|dir| dir.starts_with(workspace_root))
                    .map(|dir| dir.join("node_modules").join(name))
                    .find(|linked| linked.exists()),
            };
            let Some(resolved) = candidate.and_then(|path| std::fs::canonicalize(path).ok()) else { continue };
            let installed = resolved.components().any(|part| part.as_os_str() == "node_modules");
            if resolved.starts_with(workspace_root) && !installed && resolved.is_dir() && !dirs.contains(&resolved) {
                dirs.push(resolved);
            }
        }
    }
    dirs
}

/// One [`dependent_roots_scan`]: what it found and the stamps (modification time, size) of the
/// manifests it read, to tell whether it still holds ([`DependentRootsScan::is_current`]).
#[derive(Debug, Clone, Default)]
pub struct DependentRootsScan {
    /// What the scan found.
    pub found: DependentRoots,
    /// Each manifest read (absolute path) with its modification time and size when read.
    pub manifest_stamps: Vec<(PathBuf, Option<std::time::SystemTime>, u64)>,
}

impl DependentRootsScan {
    /// Whether every manifest the scan read still has the modification time and size it had
    /// (a manifest gone counts as changed). A manifest created since in a directory the scan
    /// did not read is not seen here.
    pub fn is_current(&self) -> bool {
        self.manifest_stamps.iter().all(|(path, modified, size)| manifest_stamp(path) == Some((*modified, *size)))
    }
}

/// `path`'s (modification time, size), not following a symlink; `None` when it is gone.
fn manifest_stamp(path: &Path) -> Option<(Option<std::time::SystemTime>, u64)> {
    std::fs::symlink_metadata(path).ok().map(|metadata| (metadata.modified().ok(), metadata.len()))
}

/// The project root `definition` finds for the manifest `manifest` (its cargo workspace, its
/// go.work, or its own directory), canonical; the manifest's directory when none is found.
fn root_of(definition: &ServerDefinition, workspace_root: &Path, manifest: &Path) -> PathBuf {
    let directory = manifest.parent().unwrap_or(manifest).to_path_buf();
    crate::lsp::servers::find_root(definition, workspace_root, manifest)
        .root
        .map(|root| std::fs::canonicalize(&root).unwrap_or(root))
        .unwrap_or(directory)
}

/// The other project roots of `definition`'s language beneath `workspace_root` whose manifest
/// names `root` as a local dependency: a `go.mod` `replace … => <dir>` (one line or a block), a
/// `Cargo.toml` `path = "<dir>"` (any table: dependencies, dev-dependencies, patches), a
/// `package.json` dependency linked through `node_modules` or named `file:`/`link:`
/// ([`package_json_dependency_dirs`]; a root containing `root` is none, review48 M6). Relative
/// directories are resolved against the manifest's directory and compared canonically. Empty for
/// servers with no such manifests ([`manifest_name`]). Scans every time it is called (with the stamps of the manifests it read, see
/// [`DependentRootsScan`]): a run asks [`LspSupervisor::dependent_roots`], which keeps the scan while its manifests are unchanged.
pub fn dependent_roots_scan(workspace_root: &Path, definition: &ServerDefinition, root: &Path) -> DependentRootsScan {
    let mut scan = DependentRootsScan::default();
    let found = &mut scan.found;
    let Some(manifest) = manifest_name(&definition.id) else { return scan };
    let Ok(reader) = WorkspaceReader::open(workspace_root) else {
        found.scan_incomplete = true;
        return scan;
    };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), workspace_root) else {
        found.scan_incomplete = true;
        return scan;
    };
    let canonical_workspace = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut manifests = 0usize;
    for (listed, entry) in
        walk.hidden(true).skip_names(&["node_modules", "target", "vendor", ".git", ".venv", "venv"]).iter().flatten().enumerate()
    {
        if listed >= ENTRIES_CAP || manifests >= MANIFESTS_CAP {
            found.scan_incomplete = true;
            break;
        }
        if !entry.is_file() || entry.path().file_name().and_then(|name| name.to_str()) != Some(manifest) {
            continue;
        }
        manifests += 1;
        let manifest_path = canonical_workspace.join(entry.relative());
        let Some(manifest_dir) = manifest_path.parent() else { continue };
        if manifest_dir.starts_with(&canonical_root) && root_of(definition, &canonical_workspace, &manifest_path) == canonical_root {
            // A manifest of the root itself (a member crate of its cargo workspace, a module of
            // its go.work): what it names is the root's own business.
            continue;
        }
        // Stamped before it is read: a change while reading makes the next call scan again.
        let (modified, size) = manifest_stamp(&manifest_path).unwrap_or((None, 0));
        scan.manifest_stamps.push((manifest_path.clone(), modified, size));
        let Ok(text) = reader.read_to_string(entry.path()) else { continue };
        let named = named_dependency_dirs(manifest, &text, manifest_dir, &canonical_workspace);
        // A named directory depends on `root` when the root that serves it is `root` (the
        // directory itself, or a member crate / module of the root's cargo workspace / go.work).
        let depends = named.iter().any(|joined| {
            let named_dir = std::fs::canonicalize(joined).unwrap_or_else(|_| joined.clone());
            named_dir == canonical_root
                || (named_dir.starts_with(&canonical_root)
                    && root_of(definition, &canonical_workspace, &named_dir.join(manifest)) == canonical_root)
        });
        // The dependent is the root that serves the manifest (a member crate's cargo workspace,
        // not the member's own directory: the server runs there).
        let dependent = root_of(definition, &canonical_workspace, &manifest_path);
        // For TypeScript a root that contains the owning root (a monorepo's root `package.json`
        // listing its workspace packages in `devDependencies`) is no separate consumer project:
        // asking its server would load the whole monorepo for each query (review48 M6).
        let contains_owner = manifest == "package.json" && canonical_root.starts_with(&dependent);
        if depends && dependent != canonical_root && !contains_owner && !found.roots.contains(&dependent) {
            found.roots.push(dependent);
        }
    }
    found.roots.sort();
    scan
}

/// The directories inside the workspace, outside `root`, that the manifests beneath `root` name
/// as local dependencies (a `Cargo.toml` `path = "../lib"`, a `go.mod` `replace … => ../lib`):
/// the library crates and modules `root`'s server loads from another root of the workspace,
/// canonical, sorted (`found.roots`). The server's own scan of served files stops at its root, so
/// a file there changed outside the tools (a `cp`, a `git checkout`) reaches it only if these
/// directories are scanned too ([`LanguageServer::watch_sibling_dependency_dirs`], issue 11 §5).
/// Manifests are listed beneath `root` as [`dependent_roots_scan`] lists the workspace's (same
/// skips and caps); a directory that does not exist, or lies outside the workspace (the project's
/// outside roots, watched on their own), is left out.
pub fn dependency_dirs_scan(workspace_root: &Path, server_id: &str, root: &Path) -> DependentRootsScan {
    let mut scan = DependentRootsScan::default();
    let Some(manifest) = manifest_name(server_id) else { return scan };
    let Ok(reader) = WorkspaceReader::open(workspace_root) else {
        scan.found.scan_incomplete = true;
        return scan;
    };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), root) else {
        scan.found.scan_incomplete = true;
        return scan;
    };
    let canonical_workspace = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut manifests = 0usize;
    for (listed, entry) in
        walk.hidden(true).skip_names(&["node_modules", "target", "vendor", ".git", ".venv", "venv"]).iter().flatten().enumerate()
    {
        if listed >= ENTRIES_CAP || manifests >= MANIFESTS_CAP {
            scan.found.scan_incomplete = true;
            break;
        }
        if !entry.is_file() || entry.path().file_name().and_then(|name| name.to_str()) != Some(manifest) {
            continue;
        }
        manifests += 1;
        let manifest_path = canonical_workspace.join(entry.relative());
        let Some(manifest_dir) = manifest_path.parent() else { continue };
        let (modified, size) = manifest_stamp(&manifest_path).unwrap_or((None, 0));
        scan.manifest_stamps.push((manifest_path.clone(), modified, size));
        let Ok(text) = reader.read_to_string(entry.path()) else { continue };
        for joined in named_dependency_dirs(manifest, &text, manifest_dir, &canonical_workspace) {
            let Ok(named_dir) = std::fs::canonicalize(&joined) else { continue };
            if named_dir.starts_with(&canonical_workspace)
                && !named_dir.starts_with(&canonical_root)
                && named_dir.is_dir()
                && !scan.found.roots.contains(&named_dir)
            {
                scan.found.roots.push(named_dir);
            }
        }
    }
    scan.found.roots.sort();
    // A directory inside another one listed is scanned with it.
    let all = scan.found.roots.clone();
    scan.found.roots.retain(|dir| !all.iter().any(|other| other != dir && dir.starts_with(other)));
    scan
}

/// What [`references_in_dependent_roots`] adds to an answer.
#[derive(Debug, Default)]
pub struct DependentReferences {
    /// The answer with the dependent roots' locations merged in (exact duplicates dropped; the
    /// rendering drops the rest by position). `None` stays `None` when nothing was added.
    pub locations: Option<Vec<lsp_types::Location>>,
    /// One line per dependent root: searched (and how many references it added), or not searched
    /// and why, with the call that searches it.
    pub notes: Vec<String>,
    /// Whole-word occurrences the owning root's server does not list though their definition
    /// leads to the symbol ([`crate::lsp::rename_coverage::ReferencesCoverage::not_listed`]),
    /// merged into the answer once every root's list is. Empty from
    /// [`references_in_dependent_roots`].
    pub not_listed: Vec<crate::lsp::rename_coverage::UnlistedReference>,
}

/// `own` (one server's answer) with the locations of `others` (what the other roots' servers
/// listed) that lie under `root`, the root whose files that server's grep cross-check reads
/// ([`crate::lsp::rename_coverage::complete_references`]): a use another root's server lists
/// is in the answer, and the cross-check neither names it as missing nor counts it as
/// unchecked (trial146 M1: the library's cross-check said "9 whole-word occurrences of
/// `from_inline` are not in this answer" beside the 8 that downstream's server listed).
pub(crate) fn with_listed_under_root(
    mut own: Vec<lsp_types::Location>,
    others: &[lsp_types::Location],
    root: &Path,
) -> Vec<lsp_types::Location> {
    for location in others {
        let under_root = crate::lsp::uri::lsp_uri_to_path(&location.uri).is_some_and(|path| path.starts_with(root));
        if under_root && !own.contains(location) {
            own.push(location.clone());
        }
    }
    own
}

/// Names `root` (as shown) in the cross-check's count of the occurrences that are no
/// references ("the other whole-word occurrences of `name` are not references: …"), for an
/// answer that merges several roots' cross-checks: each root says its own counts (trial146
/// minor: the sentence came twice, "54 are in comments" and "2 are in comments", with no
/// root named).
pub(crate) fn name_root_in_cross_check_notes(notes: &mut [String], name: &str, root: &str) {
    let unnamed = format!("the other whole-word occurrences of `{name}` are not references:");
    let named = format!("the other whole-word occurrences of `{name}` under {root} are not references:");
    for note in notes.iter_mut() {
        if note.contains(&unnamed) {
            *note = note.replacen(&unnamed, &named, 1);
        }
    }
}

/// The references of the symbol at `resolved` in `path` (a file of `server`'s root) that the
/// servers of the roots depending on that root find ([`LspSupervisor::dependent_roots`]): each is started if
/// needed, given `path` (it loads the file through its replace / path dependency) and asked
/// `textDocument/references` at the same position; its locations are merged into `found`.
/// Each root's wait is bounded by its share of the time to `deadline` (at least 2 s); a root
/// not answered in time, or whose server cannot start, is named as not searched (trial27b F1:
/// `cron`'s references missed the 2 uses in the consumer module `app`).
pub fn references_in_dependent_roots(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    found: Option<Vec<lsp_types::Location>>,
    deadline: Instant,
) -> DependentReferences {
    let mut result = DependentReferences { locations: found, notes: Vec::new(), not_listed: Vec::new() };
    let dependents = supervisor.dependent_roots(server.id(), server.root());
    if dependents.scan_incomplete {
        result.notes.push(format!(
            "the scan for other {} roots that depend on {} stopped at its cap ({MANIFESTS_CAP} manifests, {ENTRIES_CAP} entries): a consumer root beyond it was not searched",
            server.id(),
            supervisor.display_path(server.root())
        ));
    }
    let mut remaining = dependents.roots.len() as u32;
    for root in &dependents.roots {
        let display = supervisor.display_path(root);
        let share = deadline.saturating_duration_since(Instant::now()) / remaining.max(1);
        remaining = remaining.saturating_sub(1);
        let root_deadline = Instant::now() + share.max(Duration::from_secs(2));
        let root_deadline = root_deadline.min(deadline.max(Instant::now()));
        let not_searched = |why: String| {
            format!(
                "{display} depends on {} (its manifest names it as a local dependency) and was NOT searched: {why}; next step: call lsp {{\"op\": \"references\"}} again with a longer wait, or on a use of the symbol in a file of {display}",
                supervisor.display_path(server.root())
            )
        };
        let lease = match supervisor.server_for_root(server.id(), root, root_deadline) {
            Ok(lease) => lease,
            Err(err) => {
                result.notes.push(not_searched(format!("{} could not be started there: {}", server.id(), err.message)));
                continue;
            }
        };
        let consumer = &*lease.server;
        let _ = consumer.resync_from_disk();
        if let Err(err) = consumer.sync_document(path) {
            result.notes.push(not_searched(format!(
                "{} could not be given {}: {}",
                consumer.id(),
                supervisor.display_path(path),
                err.message
            )));
            continue;
        }
        // (After the file: its open may load its own package's project, which the semantic
        // request of `open_own_project_file` waits for too.)
        open_own_project_file(consumer, supervisor.workspace_root(), path, false, root_deadline);
        let readiness = consumer.wait_until_ready_for_lookups(root_deadline);
        let (line0, character) = resolved.lsp_position(consumer.position_encoding());
        let params = crate::lsp::client::reference_params(path, line0, character, true);
        match consumer.request::<References>(params, root_deadline) {
            Ok(answer) => {
                // gopls at an interface method: completed with the uses of the implementing
                // methods that root holds (trial110 F2: a static call of the consumer's
                // `(*LoggingFs).Name` in its external test package was missing).
                let answer = crate::lsp::go_interface_references::complete_interface_method_references(
                    consumer,
                    path,
                    line0,
                    character,
                    answer.unwrap_or_default(),
                    true, // a references answer: with the implementing declarations
                    root_deadline,
                )
                .locations;
                // The uses that root's server does not analyze (code behind a cfg that is off
                // there) are named as for the queried root (trial134 F1: downstream's
                // `into_inner()` under `#[cfg(feature = "extra")]` was in no note, asked from the
                // library's definition).
                let answer = if consumer.definition().cross_check_references {
                    // What the servers asked before listed under this root is in the answer.
                    let listed = result.locations.as_deref().unwrap_or_default();
                    let checked = crate::lsp::rename_coverage::complete_references(
                        consumer,
                        supervisor.workspace_root(),
                        path,
                        line0,
                        character,
                        &resolved.cursor_identifier,
                        Some(with_listed_under_root(answer, listed, consumer.root())),
                        root_deadline,
                    );
                    let mut checked_notes = checked.notes;
                    name_root_in_cross_check_notes(&mut checked_notes, &resolved.cursor_identifier, &display);
                    result.notes.extend(checked_notes);
                    result.not_listed.extend(checked.not_listed.into_iter().filter(|unlisted| unlisted.path.starts_with(root)));
                    checked.answer
                } else {
                    answer
                };
                let merged = result.locations.get_or_insert_with(Vec::new);
                let before = merged.len();
                for location in answer {
                    if !merged.contains(&location) {
                        merged.push(location);
                    }
                }
                let added = merged.len() - before;
                let in_root = merged
                    .iter()
                    .filter(|location| crate::lsp::uri::uri_to_path(location.uri.as_str()).is_some_and(|p| p.starts_with(root)))
                    .count();
                let mut note = format!(
                    "also searched {display} (it depends on {} through its manifest) with its own {}: {in_root} of these references are in it ({added} not found by {} @ {})",
                    supervisor.display_path(server.root()),
                    consumer.id(),
                    server.id(),
                    supervisor.display_path(server.root())
                );
                if !matches!(readiness.readiness, crate::lsp::client::Readiness::Ready) {
                    note.push_str(&format!(
                        "; note: that server was still {} — its list may be incomplete",
                        readiness.readiness.describe()
                    ));
                }
                result.notes.push(note);
            }
            Err(failure) => {
                let err = failure.to_tool_error(consumer.id(), References::METHOD);
                result.notes.push(not_searched(err.message));
            }
        }
    }
    result
}

/// The project root of `server`'s language that owns the definition of the symbol at `path`
/// (`line0`, `character`, the server's encoding) when it is not `server`'s own root: a consumer
/// module asking about a function of the library it `replace`s by a directory, a downstream
/// crate asking about its path dependency's item. `server` loads that root only as a dependency
/// (gopls without its `_test.go` files), so its uses there are in none of `server`'s answers
/// (trial106 F2: mux's `HandleFunc` asked from the consumer, "3 call sites" of 73). Returns
/// (the owning root, the definition's file, 0-based line, character). `None` for servers
/// without such roots ([`manifest_name`]), a definition outside the workspace, or in this root.
pub(crate) fn owning_root_of_definition(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    deadline: Instant,
) -> Option<(PathBuf, PathBuf, u32, u32)> {
    manifest_name(server.id())?;
    let workspace_root = supervisor.workspace_root();
    let mut inside: Vec<(PathBuf, u32, u32)> = crate::lsp::rename_coverage::definition_targets(server, path, line0, character, deadline)
        .into_iter()
        .filter(|(target, _, _)| {
            target.starts_with(workspace_root) && !target.starts_with(server.root()) && server.definition().serves(target)
        })
        .collect();
    inside.sort();
    let (target, line, column) = inside.into_iter().next()?;
    let owner = crate::lsp::servers::find_root(server.definition(), workspace_root, &target).root?;
    (owner != server.root()).then_some((owner, target, line, column))
}

/// The owning root's server, ready to be asked at the definition ([`owning_root_server`]).
struct OwningRootServer {
    lease: crate::lsp::supervisor::ServerLease,
    owner: PathBuf,
    definition: PathBuf,
    line0: u32,
    character: u32,
    /// Why its answer may be incomplete (it was still loading), said in the note.
    still_loading: Option<String>,
}

/// Where an owning root could not be asked: the root, the definition's file and 0-based line,
/// and why.
type OwningRootNotAsked = (PathBuf, PathBuf, u32, String);

/// For a lookup asked in `server`'s root about a symbol another root owns (see
/// [`owning_root_of_definition`]): that root's server, started if need be, given the
/// definition's file and waited for until `deadline`. `None` when the definition is in
/// `server`'s root (or outside the workspace); `Some(Err(…))` when the owning root could not be
/// asked.
fn owning_root_server(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    deadline: Instant,
) -> Option<Result<OwningRootServer, OwningRootNotAsked>> {
    let (line0, character) = resolved.lsp_position(server.position_encoding());
    let (owner, definition, line0, character) = owning_root_of_definition(supervisor, server, path, line0, character, deadline)?;
    Some(match root_server_given(supervisor, server.id(), &owner, &definition, deadline) {
        Ok((lease, still_loading)) => Ok(OwningRootServer { lease, owner, definition, line0, character, still_loading }),
        Err(why) => Err((owner, definition, line0, why)),
    })
}

/// The `server_id` server of another project `root` (started if need be), resynced and given
/// `file`, waited for until `deadline` for lookups: the lease and, when it was still loading,
/// the `; that server was still …` clause for a note. `Err` says why it could not be asked (not
/// started, the file not given).
pub(crate) fn root_server_given(
    supervisor: &LspSupervisor,
    server_id: &str,
    root: &Path,
    file: &Path,
    deadline: Instant,
) -> Result<(crate::lsp::supervisor::ServerLease, Option<String>), String> {
    let lease = supervisor
        .server_for_root(server_id, root, deadline)
        .map_err(|err| format!("{server_id} could not be started there: {}", err.message))?;
    let _ = lease.server.resync_from_disk();
    lease.server.sync_document(file).map_err(|err| format!("its {} could not be given the file: {}", lease.server.id(), err.message))?;
    open_own_project_file(&lease.server, supervisor.workspace_root(), file, false, deadline);
    let readiness = lease.server.wait_until_ready_for_lookups(deadline);
    let still_loading = (!matches!(readiness.readiness, crate::lsp::client::Readiness::Ready))
        .then(|| format!("; that server was still {} — its list may be incomplete", readiness.readiness.describe()));
    Ok((lease, still_loading))
}

/// A call of a function in a file of a dependent root: (file, 0-based line, character in the
/// server's encoding), see [`dependent_typescript_server_for_hierarchy`].
pub(crate) type CallInRoot = (PathBuf, u32, u32);

/// typescript-language-server of `root`, a workspace package that depends on the package
/// holding `file` (see [`package_json_dependency_dirs`]), made ready for a call hierarchy asked
/// at `file`: tsserver answers `callHierarchy/incomingCalls` from the file's default project
/// only — for a file open there, the project of its nearest `tsconfig.json` (the library's,
/// which holds none of `root`'s callers). So `file` is closed there (if it was open) and a file
/// of `root` is opened ([`open_own_project_file`]), which drops the library's project that no
/// open file keeps and loads `root`'s, whose program holds `file` through the `node_modules`
/// link: its callers in both packages are answered (trial164 F1: `createAtom`'s calls in
/// `useCreateAtom.ts` were missing). typescript-language-server prepares a call hierarchy only
/// in an open file, so it is asked at the first call of `name` in `root`'s own files
/// ([`first_call_of_name_under`], returned and opened; `None` when there is none — the caller
/// checks the prepared item is the queried function). As [`root_server_given`] otherwise.
pub(crate) fn dependent_typescript_server_for_hierarchy(
    supervisor: &LspSupervisor,
    root: &Path,
    file: &Path,
    name: &str,
    deadline: Instant,
) -> Result<(crate::lsp::supervisor::ServerLease, Option<String>, Option<CallInRoot>), String> {
    let server_id = "typescript-language-server";
    let lease = supervisor
        .server_for_root(server_id, root, deadline)
        .map_err(|err| format!("{server_id} could not be started there: {}", err.message))?;
    let _ = lease.server.resync_from_disk();
    lease.server.close_document(file);
    open_own_project_file(&lease.server, supervisor.workspace_root(), file, true, deadline);
    let readiness = lease.server.wait_until_ready_for_lookups(deadline);
    let still_loading = (!matches!(readiness.readiness, crate::lsp::client::Readiness::Ready))
        .then(|| format!("; that server was still {} — its list may be incomplete", readiness.readiness.describe()));
    let call = first_call_of_name_under(supervisor.workspace_root(), &lease.server, name);
    if let Some((path, _, _)) = &call {
        let _ = lease.server.sync_document(path);
    }
    Ok((lease, still_loading, call))
}

/// The first place in a source file of `server`'s root (walked as [`open_own_project_file`]
/// walks it) where `name` is called: a whole-word `name` followed by `(` on a line that is no
/// comment (`//`, `*`) — (file, 0-based line, character in the server's encoding). tsserver's
/// `prepareCallHierarchy` there gives the called function's declaration, whatever file holds it.
fn first_call_of_name_under(workspace_root: &Path, server: &LanguageServer, name: &str) -> Option<(PathBuf, u32, u32)> {
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let walk = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), server.root()).ok()?;
    let canonical_workspace = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    for (listed, entry) in walk.hidden(false).skip_names(&["node_modules", "dist", "build", ".git"]).iter().flatten().enumerate() {
        if listed >= ENTRIES_CAP {
            break;
        }
        if !entry.is_file() || !server.definition().serves(entry.path()) || entry.path().to_string_lossy().ends_with(".d.ts") {
            continue;
        }
        let Ok(text) = reader.read_to_string(entry.path()) else { continue };
        for (line0, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") || trimmed.starts_with('*') || trimmed.starts_with("import ") {
                continue;
            }
            for (at, _) in line.match_indices(name) {
                let before = line[..at].chars().next_back();
                let after = &line[at + name.len()..];
                let called = after.trim_start().starts_with('(') || after.starts_with('<');
                if called && !before.is_some_and(is_ident) && !after.chars().next().is_some_and(is_ident) {
                    let character = server.position_encoding().column_from_byte(line, at);
                    return Some((canonical_workspace.join(entry.relative()), line0 as u32, character));
                }
            }
        }
    }
    None
}

/// Before `server` (typescript-language-server of a root that depends on another, see
/// [`package_json_dependency_dirs`]) is asked about `asked`, a file of that other root, and
/// after `asked` was given to it (its open loads its own package's project): opens a
/// file of `server`'s own root that imports the package `asked` belongs to (its nearest
/// `package.json`'s `name`, quoted; else the first source file found), so that tsserver loads
/// the root's own configured project, whose program holds the library's files through the
/// `node_modules` link (trial164 F1). tsserver gives a file the project of its nearest
/// `tsconfig.json`: given only the library's file, the consumer's server loads the library's
/// project and answers as the library's own server does, without the consumer's uses. With
/// the consumer's project loaded, `references`, `rename` and the call hierarchy at the
/// library's position search both programs. Does nothing for other servers, or when `asked`
/// is in `server`'s root. With `reopen`, a file already open is closed and opened again (an
/// open makes tsserver drop the projects no open file keeps). Waits for the load until
/// `deadline`. Lists at most [`ENTRIES_CAP`] entries (skipping `node_modules`,
/// `dist`, `build` and hidden directories) and reads at most 400 source files.
pub(crate) fn open_own_project_file(server: &LanguageServer, workspace_root: &Path, asked: &Path, reopen: bool, deadline: Instant) {
    if server.id() != "typescript-language-server" || asked.starts_with(server.root()) {
        return;
    }
    let package_name = asked
        .ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(workspace_root))
        .find_map(|dir| crate::files::read_workspace_file_to_string(workspace_root, &dir.join("package.json")).ok())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|manifest| manifest.get("name").and_then(|name| name.as_str()).map(str::to_owned));
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), server.root()) else { return };
    let canonical_workspace = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let mut first: Option<PathBuf> = None;
    let mut read = 0usize;
    let quoted = package_name.map(|name| [format!("'{name}'"), format!("\"{name}\""), format!("'{name}/"), format!("\"{name}/")]);
    for (listed, entry) in walk.hidden(false).skip_names(&["node_modules", "dist", "build", ".git"]).iter().flatten().enumerate() {
        if listed >= ENTRIES_CAP || read >= 400 {
            break;
        }
        let is_source = crate::lsp::syntax::is_typescript_family(entry.path()) && !entry.path().to_string_lossy().ends_with(".d.ts");
        if !entry.is_file() || !is_source || !server.definition().serves(entry.path()) {
            continue;
        }
        let path = canonical_workspace.join(entry.relative());
        let Some(quoted) = &quoted else {
            first = Some(path);
            break;
        };
        read += 1;
        let Ok(text) = reader.read_to_string(entry.path()) else { continue };
        if quoted.iter().any(|needle| text.contains(needle.as_str())) {
            first = Some(path);
            break;
        }
        first.get_or_insert(path);
    }
    if let Some(file) = first {
        if reopen {
            server.close_document(&file);
        }
        let _ = server.sync_document(&file);
        // tsserver loads the file's project on the open, but typescript-language-server routes
        // `references` and `rename` to its syntax server (open files only) while a project
        // loads, and the load's progress may not have reached runbound yet: a semantic-only
        // request (semantic tokens of the file's first line), answered after the load, makes
        // the next request find the project loaded (seen on a loaded machine: "0 of these
        // references are in it").
        let params = lsp_types::SemanticTokensRangeParams {
            text_document: crate::lsp::client::text_document(&file),
            range: lsp_types::Range::new(lsp_types::Position::new(0, 0), lsp_types::Position::new(1, 0)),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        };
        let _ = server.request::<lsp_types::request::SemanticTokensRangeRequest>(params, deadline);
    }
}

/// `references` asked in a root that depends on another (see [`owning_root_of_definition`]):
/// the owning root's own server is asked at the definition and its references merged into
/// `found`; one note says what it added, or why it was NOT searched. `found` unchanged and no
/// note when the definition is in `server`'s root.
pub fn references_in_owning_root(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    found: Option<Vec<lsp_types::Location>>,
    deadline: Instant,
) -> DependentReferences {
    let mut result = DependentReferences { locations: found, notes: Vec::new(), not_listed: Vec::new() };
    let this_root = supervisor.display_path(server.root());
    let not_searched = |owner: &Path, definition: &Path, line0: u32, why: String| {
        format!(
            "note: NOT searched: {} — the project root that owns the definition ({}), which {this_root} depends on by path: its own uses of the symbol are not in this answer ({why}); next step: call lsp {{\"op\": \"references\"}} on the definition, {}:{}",
            supervisor.display_path(owner),
            supervisor.display_path(definition),
            supervisor.display_path(definition),
            line0 + 1
        )
    };
    let owning = match owning_root_server(supervisor, server, path, resolved, deadline) {
        None => return result,
        Some(Err((owner, definition, line0, why))) => {
            result.notes.push(not_searched(&owner, &definition, line0, why));
            return result;
        }
        Some(Ok(owning)) => owning,
    };
    let owner = &owning.owner;
    let params = crate::lsp::client::reference_params(&owning.definition, owning.line0, owning.character, true);
    match owning.lease.server.request::<References>(params, deadline) {
        Ok(answer) => {
            let answer = crate::lsp::go_interface_references::complete_interface_method_references(
                &owning.lease.server,
                &owning.definition,
                owning.line0,
                owning.character,
                answer.unwrap_or_default(),
                true, // a references answer: with the implementing declarations
                deadline,
            )
            .locations;
            // The uses the owning root's server does not analyze (code behind a cfg that is off,
            // doc tests) are named as asked from there (trial112 M2: arrayvec's borsh-gated
            // `self.as_slice()` was said from the library's side, not from downstream's).
            let answer = if owning.lease.server.definition().cross_check_references {
                // What the consumer's server listed under the owning root is in the answer.
                let listed = result.locations.as_deref().unwrap_or_default();
                let checked = crate::lsp::rename_coverage::complete_references(
                    &owning.lease.server,
                    supervisor.workspace_root(),
                    &owning.definition,
                    owning.line0,
                    owning.character,
                    &resolved.cursor_identifier,
                    Some(with_listed_under_root(answer, listed, owner)),
                    deadline,
                );
                let mut checked_notes = checked.notes;
                name_root_in_cross_check_notes(&mut checked_notes, &resolved.cursor_identifier, &supervisor.display_path(owner));
                result.notes.extend(checked_notes);
                result.not_listed = checked.not_listed;
                checked.answer
            } else {
                answer
            };
            let merged = result.locations.get_or_insert_with(Vec::new);
            let before = merged.len();
            for location in answer {
                if !merged.contains(&location) {
                    merged.push(location);
                }
            }
            let added = merged.len() - before;
            let in_owner = merged
                .iter()
                .filter(|location| {
                    crate::lsp::uri::uri_to_path(location.uri.as_str())
                        .is_some_and(|p| p.starts_with(owner) && !(server.root().starts_with(owner) && p.starts_with(server.root())))
                })
                .count();
            result.notes.push(format!(
                "note: also searched {} (it owns the definition, and {this_root} depends on it by path) with its own {}: {in_owner} of these references are in it ({added} not found by {} @ {this_root}){}",
                supervisor.display_path(owner),
                owning.lease.server.id(),
                server.id(),
                owning.still_loading.clone().unwrap_or_default()
            ));
        }
        Err(failure) => {
            let why = failure.to_tool_error(owning.lease.server.id(), References::METHOD).message;
            result.notes.push(not_searched(owner, &owning.definition, owning.line0, why));
        }
    }
    result
}

/// `implementation` asked in a root that depends on another (see
/// [`owning_root_of_definition`]) about that root's interface or trait: the owning root's own
/// server is asked at the definition and its implementations merged into `found` (each location
/// once). The consumer's server loads only the library packages the consumer imports (trial110
/// F1: afero's `Fs` asked from the consumer listed 10 of 13 implementations; sftpfs, tarfs and
/// zipfs were missing, with no note). One note says what was added, or why the owning root was
/// NOT searched; `found` unchanged and no note when the definition is in `server`'s root.
pub fn implementations_in_owning_root(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    found: Vec<lsp_types::Location>,
    deadline: Instant,
) -> (Vec<lsp_types::Location>, Option<String>) {
    use lsp_types::request::GotoImplementation;
    let this_root = supervisor.display_path(server.root());
    let not_searched = |owner: &Path, definition: &Path, line0: u32, why: String| {
        format!(
            "note: NOT searched: {} — the project root that owns the definition ({}:{}), which {this_root} depends on by path: implementations in its packages that {this_root} does not import are not in this answer ({why}); next step: call lsp {{\"op\": \"implementation\"}} on the definition",
            supervisor.display_path(owner),
            supervisor.display_path(definition),
            line0 + 1
        )
    };
    let owning = match owning_root_server(supervisor, server, path, resolved, deadline) {
        None => return (found, None),
        Some(Err((owner, definition, line0, why))) => return (found, Some(not_searched(&owner, &definition, line0, why))),
        Some(Ok(owning)) => owning,
    };
    let params = lsp_types::request::GotoImplementationParams {
        text_document_position_params: lsp_types::TextDocumentPositionParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: crate::lsp::uri::path_to_lsp_uri(&owning.definition) },
            position: lsp_types::Position { line: owning.line0, character: owning.character },
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    match owning.lease.server.request::<GotoImplementation>(params, deadline) {
        Ok(answer) => {
            let answered = crate::lsp::tool::response_locations(answer);
            let mut merged = found;
            let before = merged.len();
            for location in answered {
                if !merged.iter().any(|known| known.uri == location.uri && known.range.start == location.range.start) {
                    merged.push(location);
                }
            }
            let added = merged.len() - before;
            let note = format!(
                "note: also searched {} (it owns the definition, and {this_root} depends on it by path) with its own {}: {added} more implementation{} found there{}",
                supervisor.display_path(&owning.owner),
                owning.lease.server.id(),
                if added == 1 { "" } else { "s" },
                owning.still_loading.clone().unwrap_or_default()
            );
            (merged, Some(note))
        }
        Err(failure) => {
            let why = failure.to_tool_error(owning.lease.server.id(), GotoImplementation::METHOD).message;
            (found, Some(not_searched(&owning.owner, &owning.definition, owning.line0, why)))
        }
    }
}

/// For a rename whose edit (`plan`, from `server`) writes files under ANOTHER project root of the
/// same language (a rename started in a consumer module edits the library it depends on): one
/// line per such root counting the whole-word occurrences of `old_name` in that root's served
/// files that the edit leaves (grep -w, comments and strings included), with the files, and the
/// call that renames through the root's own server. The consumer's server loads the library only
/// as a dependency — gopls without its `_test.go` files — so those uses are neither renamed nor
/// checked (trial27b F6: 8 uses in cron's tests left while the preview looked complete). Lines
/// start with two spaces (the rename repeats indented findings when the edit is accepted).
/// Reads at most [`ENTRIES_CAP`] entries per root; a root cut short says so.
///
/// A rename run through several roots ([`crate::lsp::rename_across_roots`]) passes the roots
/// whose own server renamed their files (`renamed_by_own_server`: no line for them, their own
/// check reports them) and the roots it should have asked and could not (`not_asked`, with why:
/// a line for each, whether the edit writes there or not); of those, `refused` are the roots
/// whose server refused the rename (their next step is another name, not another call).
pub fn rename_in_other_roots_notes(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    plan: &crate::lsp::rename::WorkspaceEditPlan,
    old_name: &str,
    renamed_by_own_server: &[PathBuf],
    not_asked: &[(PathBuf, String)],
    refused: &[PathBuf],
) -> Vec<String> {
    let workspace_root = supervisor.workspace_root();
    let mut other_roots: Vec<PathBuf> = not_asked.iter().map(|(root, _)| root.clone()).collect();
    for file in &plan.files {
        if file.path.starts_with(server.root()) {
            continue;
        }
        if let Some(root) = crate::lsp::servers::find_root(server.definition(), workspace_root, &file.path).root {
            if root != server.root() && !other_roots.contains(&root) && !renamed_by_own_server.contains(&root) {
                other_roots.push(root);
            }
        }
    }
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return Vec::new() };
    let canonical_workspace = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let mut notes = Vec::new();
    for root in other_roots {
        let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), &root) else { continue };
        let mut left: Vec<(PathBuf, usize)> = Vec::new();
        let mut cut_short = false;
        for (listed, entry) in walk.hidden(true).skip_names(&["node_modules", "target", "vendor", ".git"]).iter().flatten().enumerate() {
            if listed >= ENTRIES_CAP {
                cut_short = true;
                break;
            }
            if !entry.is_file() || !server.definition().serves(entry.path()) {
                continue;
            }
            let Ok(text) = reader.read_to_string(entry.path()) else { continue };
            let occurrences = whole_word_count(&text, old_name);
            let path = canonical_workspace.join(entry.relative());
            let renamed = plan.files.iter().find(|file| file.path == path).map_or(0, |file| file.edit_count);
            if occurrences > renamed {
                left.push((path, occurrences - renamed));
            }
        }
        left.sort();
        let total: usize = left.iter().map(|(_, count)| count).sum();
        let display_root = supervisor.display_path(&root);
        if total == 0 && !cut_short {
            continue;
        }
        let shown: Vec<String> = left.iter().take(8).map(|(path, count)| format!("{} ({count})", supervisor.display_path(path))).collect();
        let more = if left.len() > 8 { format!(", and {} more files", left.len() - 8) } else { String::new() };
        if let Some((_, why)) = not_asked.iter().find(|(asked, _)| *asked == root) {
            let (asked, next_step) = if refused.contains(&root) {
                ("refused the rename", "next step: pick another name, or first change the code there so the rename is free (asking again gives the same refusal)")
            } else {
                (
                    "was not asked",
                    "next step: call lsp_rename again once its server is up (`lsp` op status), or rename from the definition's root",
                )
            };
            notes.push(format!(
                "  NOT complete: {display_root}, another {} root this rename must cover, {asked} ({why}); {total} whole-word occurrence{} of `{old_name}` under {display_root} (grep -w: comments and strings included) stay{} unrenamed: {}{more}{}; {next_step}",
                server.id(),
                if total == 1 { "" } else { "s" },
                if total == 1 { "s" } else { "" },
                shown.join(", "),
                if cut_short { format!(" (listing stopped at {ENTRIES_CAP} entries: there may be more)") } else { String::new() },
            ));
            continue;
        }
        notes.push(format!(
            "  NOT complete: this edit writes into {display_root}, another {} root, which {} @ {} loads only as a dependency (for Go: without its _test.go files); {total} whole-word occurrence{} of `{old_name}` under {display_root} (grep -w: comments and strings included) stay{} unrenamed: {}{more}{}; next step: run the rename from the definition in {display_root} (its own server renames that root's uses, and also searches the roots that depend on it)",
            server.id(),
            server.id(),
            supervisor.display_path(server.root()),
            if total == 1 { "" } else { "s" },
            if total == 1 { "s" } else { "" },
            shown.join(", "),
            if cut_short { format!(" (listing stopped at {ENTRIES_CAP} entries: there may be more)") } else { String::new() },
        ));
    }
    notes
}

/// Whole-word (identifier-boundary) occurrences of `word` in `text`.
fn whole_word_count(text: &str, word: &str) -> usize {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
        })
        .count()
}

/// The local directories a `go.mod` replaces modules with (`replace a => ../a`, `replace ( … )`
/// blocks): right-hand sides starting with `./`, `../` or `/`.
pub fn go_mod_replace_dirs(text: &str) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        let directive = if in_block {
            if line.starts_with(')') {
                in_block = false;
                continue;
            }
            line
        } else if let Some(rest) = line.strip_prefix("replace") {
            let rest = rest.trim_start();
            if rest.starts_with('(') {
                in_block = true;
                continue;
            }
            rest
        } else {
            continue;
        };
        let Some((_, target)) = directive.split_once("=>") else { continue };
        let Some(dir) = target.split_whitespace().next() else { continue };
        let dir = dir.trim_matches('"');
        if dir.starts_with("./") || dir.starts_with("../") || dir.starts_with('/') || dir == "." || dir == ".." {
            dirs.push(dir.to_owned());
        }
    }
    dirs
}

/// The directories a `Cargo.toml` names with `path = "…"` keys (dependencies of any table,
/// patches), by a scan of its lines: a `path` key after `{`, `,` or at the line's start.
pub fn cargo_path_dependencies(text: &str) -> Vec<String> {
    let mut dirs = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("path") {
            let before = rest[..at].trim_end();
            let key_start = before.is_empty() || before.ends_with('{') || before.ends_with(',');
            let after = rest[at + 4..].trim_start();
            rest = &rest[at + 4..];
            if !key_start {
                continue;
            }
            let Some(value) = after.strip_prefix('=') else { continue };
            let value = value.trim_start();
            let Some(quoted) = value.strip_prefix('"') else { continue };
            if let Some(end) = quoted.find('"') {
                dirs.push(quoted[..end].to_owned());
            }
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: &str) -> ServerDefinition {
        crate::lsp::servers::builtin_servers().into_iter().find(|definition| definition.id == id).expect("a built-in server")
    }

    #[test]
    fn go_mod_replace_lines_and_blocks_give_their_local_directories() {
        let text = "module example.com/app\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\nreplace (\n\texample.com/b v1.0.0 => ./third_party/b // local\n\texample.com/c => example.com/c2 v1.2.0\n)\n";
        assert_eq!(go_mod_replace_dirs(text), vec!["../lib".to_owned(), "./third_party/b".to_owned()]);
    }

    #[test]
    fn cargo_path_keys_give_their_directories_and_other_keys_do_not() {
        let text = "[package]\nname = \"app\"\n\n[dependencies]\ncsv-core = { path = \"../csv-core\" }\nserde = { version = \"1\", features = [\"derive\"] }\n# x = { path = \"../commented\" }\n\n[dependencies.other]\npath = \"../other\"\n[lib]\nlibpath = \"nope\"\n";
        assert_eq!(cargo_path_dependencies(text), vec!["../csv-core".to_owned(), "../other".to_owned()]);
    }

    #[test]
    fn dependent_roots_are_the_manifests_that_name_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let write = |relative: &str, text: &str| {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("lib/go.mod", "module example.com/lib\n");
        write("app/go.mod", "module example.com/app\nreplace example.com/lib => ../lib\n");
        write("other/go.mod", "module example.com/other\n");
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let scan = dependent_roots_scan(&root, &server("gopls"), &root.join("lib"));
        assert_eq!(scan.found.roots, vec![root.join("app")]);
        assert!(!scan.found.scan_incomplete);
        assert!(dependent_roots_scan(&root, &server("gopls"), &root.join("app")).found.roots.is_empty());
        assert!(dependent_roots_scan(&root, &server("pyright"), &root.join("lib")).found.roots.is_empty());
    }

    /// Trial164 F1 and review48 M6: a consumer package linked through `node_modules` is a
    /// dependent root; the monorepo's root `package.json` that lists the package is not.
    #[test]
    fn a_linked_consumer_package_is_a_dependent_root_and_the_monorepo_root_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let write = |relative: &str, text: &str| {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("package.json", "{\"private\": true, \"workspaces\": [\"a\", \"b\"], \"devDependencies\": {\"a\": \"*\"}}\n");
        write("a/package.json", "{\"name\": \"a\", \"version\": \"1.0.0\"}\n");
        write("a/tsconfig.json", "{}\n");
        write("b/package.json", "{\"name\": \"b\", \"dependencies\": {\"a\": \"*\"}}\n");
        write("b/tsconfig.json", "{}\n");
        std::fs::create_dir_all(dir.path().join("node_modules")).unwrap();
        std::os::unix::fs::symlink("../a", dir.path().join("node_modules/a")).unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let scan = dependent_roots_scan(&root, &server("typescript-language-server"), &root.join("a"));
        assert_eq!(scan.found.roots, vec![root.join("b")]);
    }

    #[test]
    fn a_member_crate_of_a_cargo_workspace_makes_the_workspace_a_dependent_root() {
        // `lib/` is a root of its own; `ws/` is a cargo workspace whose member `ws/app` names
        // `../../lib`: the dependent root is `ws` (where rust-analyzer runs), not `ws/app`. The
        // members of one cargo workspace naming each other are no dependents of it.
        let dir = tempfile::tempdir().unwrap();
        let write = |relative: &str, text: &str| {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("lib/Cargo.toml", "[package]\nname = \"mylib\"\n");
        write("ws/Cargo.toml", "[workspace]\nmembers = [\"app\", \"core\"]\n");
        write(
            "ws/app/Cargo.toml",
            "[package]\nname = \"app\"\n[dependencies]\nmylib = { path = \"../../lib\" }\ncore2 = { path = \"../core\" }\n",
        );
        write("ws/core/Cargo.toml", "[package]\nname = \"core2\"\n");
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let rust_analyzer = server("rust-analyzer");
        assert_eq!(dependent_roots_scan(&root, &rust_analyzer, &root.join("lib")).found.roots, vec![root.join("ws")]);
        assert!(dependent_roots_scan(&root, &rust_analyzer, &root.join("ws")).found.roots.is_empty());
        // The other way: what `ws` depends on outside itself is `lib` (its member's path), and
        // `lib` depends on nothing.
        assert_eq!(dependency_dirs_scan(&root, "rust-analyzer", &root.join("ws")).found.roots, vec![root.join("lib")]);
        assert!(dependency_dirs_scan(&root, "rust-analyzer", &root.join("lib")).found.roots.is_empty());
        assert!(dependency_dirs_scan(&root, "pyright", &root.join("ws")).found.roots.is_empty());
    }

    #[test]
    fn a_kept_scan_holds_until_a_manifest_it_read_changes() {
        // The run keeps this scan (LspSupervisor::dependent_roots) while it is current: a
        // manifest that no longer names the root (or is gone) makes it stale.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        std::fs::create_dir_all(dir.path().join("app")).unwrap();
        std::fs::create_dir_all(dir.path().join("tool")).unwrap();
        std::fs::write(dir.path().join("lib/go.mod"), "module example.com/lib\n").unwrap();
        std::fs::write(dir.path().join("app/go.mod"), "module example.com/app\nreplace example.com/lib => ../lib\n").unwrap();
        std::fs::write(dir.path().join("tool/go.mod"), "module example.com/tool\n").unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let scan = dependent_roots_scan(&root, &server("gopls"), &root.join("lib"));
        assert_eq!(scan.found.roots, vec![root.join("app")]);
        assert_eq!(scan.manifest_stamps.len(), 2, "{:?}", scan.manifest_stamps);
        assert!(scan.is_current());
        // A manifest that did not name the root now does (a different size): stale.
        std::fs::write(dir.path().join("tool/go.mod"), "module example.com/tool\nreplace example.com/lib => ../lib\n").unwrap();
        assert!(!scan.is_current());
        let again = dependent_roots_scan(&root, &server("gopls"), &root.join("lib"));
        assert_eq!(again.found.roots, vec![root.join("app"), root.join("tool")]);
        // A manifest gone: stale.
        std::fs::remove_file(dir.path().join("app/go.mod")).unwrap();
        assert!(!again.is_current());
    }

    #[test]
    fn another_roots_locations_under_this_root_join_the_cross_checked_list_once() {
        let location = |path: &str, line: u32| lsp_types::Location {
            uri: crate::lsp::uri::path_to_lsp_uri(Path::new(path)),
            range: lsp_types::Range::new(lsp_types::Position::new(line, 4), lsp_types::Position::new(line, 15)),
        };
        let own = vec![location("/ws/lib/src/lib.rs", 644)];
        // downstream's server: the cfg-on copy's uses in the library, and its own files.
        let others = [location("/ws/lib/src/lib.rs", 644), location("/ws/lib/src/lib.rs", 787), location("/ws/downstream/src/lib.rs", 3)];
        let listed = with_listed_under_root(own, &others, Path::new("/ws/lib"));
        assert_eq!(listed, vec![location("/ws/lib/src/lib.rs", 644), location("/ws/lib/src/lib.rs", 787)]);
    }

    #[test]
    fn each_roots_count_of_other_occurrences_names_its_root() {
        let mut notes = vec![
            "note: the other whole-word occurrences of `smallvec` are not references: 4 in code lead elsewhere, 2 are in comments or strings".to_owned(),
            "note: the other whole-word occurrences of `SmallVec` are not references: 1 in code lead elsewhere, 0 are in comments or strings".to_owned(),
        ];
        name_root_in_cross_check_notes(&mut notes, "smallvec", "downstream");
        assert_eq!(
            notes[0],
            "note: the other whole-word occurrences of `smallvec` under downstream are not references: 4 in code lead elsewhere, 2 are in comments or strings"
        );
        assert!(notes[1].contains("of `SmallVec` are not references"), "another name's note is left: {}", notes[1]);
    }
}
