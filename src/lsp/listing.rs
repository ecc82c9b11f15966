//! Long lists in `lsp` answers: pages and the paths of their entries.
//!
//! - [`Page`]: every capped list (outline, workspace symbols, references, implementations,
//!   diagnostics, `"*"`) takes `offset` (entries to skip) and ends with the run-wide notice
//!   `showing A–B of N; next: offset=B` ([`crate::render::page_notice`]) while entries remain.
//!   An offset past the end is an error, never an empty page.
//! - [`ListedPath`]: a location's path for a list. Workspace files are workspace-relative;
//!   dependency code is marked with where it comes from (`site-packages`, `node_modules`, the
//!   Rust sysroot, the cargo registry, the Go module cache, GOROOT, …) and, outside the workspace,
//!   shortened to the package name plus the path inside it (`numpy/core/fromnumeric.py`,
//!   `std/src/io/mod.rs`, `node_modules/react/index.d.ts`, `reflect/type.go` under GOROOT as `go env
//!   GOROOT` names it, symlinks resolved); other outside paths stay absolute.
//!   [`ListedPath::rank`] orders workspace code first, then dependencies inside the workspace,
//!   then everything outside.
//!
//! - [`AnswerCache`]: a later page (`offset` > 0) of an expensive list (references,
//!   implementations, workspace symbols, `"*"`) reuses the answer the first page got, while no
//!   file under the server's root changed ([`workspace_fingerprint`]); the first page always asks
//!   again.
//!

use std::any::Any;
use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::error::ToolError;
use crate::render::plural;

/// One page of a list of `total` entries: entries `offset..end` (0-based, `end` exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Entries skipped (the caller's `offset`).
    pub offset: usize,
    /// One past the last entry shown.
    pub end: usize,
    /// Entries in the whole list.
    pub total: usize,
}

impl Page {
    /// The page of a `total`-entry list that starts at `offset` and holds at most `cap` entries
    /// (`cap` 0 counts as 1).
    ///
    /// # Errors
    /// `invalid_arguments` when `offset` is at or past the end of a non-empty list (the message
    /// says how many entries there are and which offsets are valid).
    pub fn new(total: usize, offset: usize, cap: usize, what: &str) -> Result<Page, ToolError> {
        if total > 0 && offset >= total {
            return Err(ToolError::invalid(format!("offset {offset} is past the end: there are {total} {what} (offsets 0–{})", total - 1))
                .with_hint("pass a smaller `offset`, or none for the first page"));
        }
        let end = total.min(offset.saturating_add(cap.max(1)));
        Ok(Page { offset: offset.min(total), end, total })
    }

    /// The indices of the entries on this page.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.offset..self.end
    }

    /// Entries shown on this page.
    pub fn shown(&self) -> usize {
        self.end - self.offset
    }

    /// The `offset` of the next page, when entries remain.
    pub fn next_offset(&self) -> Option<usize> {
        (self.end < self.total).then_some(self.end)
    }

    /// The run-wide page notice ([`crate::render::page_notice`]): `showing A–B of N; next:
    /// offset=B` (1-based `A`, inclusive `B`) while entries remain, `showing A–B of N` on a later
    /// page that reaches the end, `None` when the page is the whole list. The list's header says
    /// what is counted.
    pub fn notice(&self) -> Option<String> {
        if self.total == 0 {
            return None;
        }
        crate::render::page_notice(self.offset + 1, self.end, self.total, "offset")
    }
}

/// (files, total bytes, newest modification time in ns since the epoch) of the files under a
/// directory, as a gitignore-aware walk sees them (dependency and build directories skipped,
/// at most 200,000 files). Two equal fingerprints mean no file was added, removed, resized or
/// modified in between (to the file system's timestamp resolution).
pub type Fingerprint = (u64, u64, u128);

/// The [`Fingerprint`] of the files under `root` (listed as [`file_stamps`] lists them).
pub fn workspace_fingerprint(workspace_root: &Path, root: &Path) -> Fingerprint {
    let stamps = file_stamps(workspace_root, root);
    let bytes = stamps.values().map(|(size, _)| size).sum();
    let newest = stamps.values().map(|(_, modified)| *modified).max().unwrap_or(0);
    (stamps.len() as u64, bytes, newest)
}

/// (size in bytes, modification time in ns since the epoch) of every file under `root`, as a
/// gitignore-aware walk sees them (`node_modules`, `target`, `.git`, `.venv`, `venv`,
/// `__pycache__` skipped; at most 200,000 files). Two snapshots taken around an action show
/// which files it created, changed or deleted. Listed beneath a handle of `workspace_root` when
/// `root` is in it (`files::walk_beneath`), each stamp asked in the open directory: a directory
/// swapped for a symlink to outside is never listed nor followed (issue 13 §1); an empty map
/// when the root cannot be opened.
pub fn file_stamps(workspace_root: &Path, root: &Path) -> std::collections::BTreeMap<PathBuf, (u64, u128)> {
    let mut stamps = std::collections::BTreeMap::new();
    let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, root) else { return stamps };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, root) else { return stamps };
    let walker = walk.skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter();
    for entry in walker.flatten().take(200_000) {
        if !entry.is_file() {
            continue;
        }
        let Some(stat) = entry.stat() else { continue };
        stamps.insert(entry.into_path(), (stat.len, stat.modified_ns()));
    }
    stamps
}

/// The last few answers of list requests, for their later pages. Keys name the request (server
/// process, method, parameters); an answer is reused only while the fingerprint taken when it was
/// stored still holds and for at most [`AnswerCache::MAX_AGE`]. Answers are kept as the typed
/// values they were decoded into (a request's lsp-types result, a walked hierarchy), and read
/// back as the same type.
#[derive(Default)]
pub struct AnswerCache {
    entries: Mutex<VecDeque<CachedAnswer>>,
}

/// One kept answer: key, fingerprint when stored, when stored, the typed answer.
type CachedAnswer = (String, Fingerprint, Instant, Arc<dyn Any + Send + Sync>);

impl std::fmt::Debug for AnswerCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerCache").field("entries", &self.entries.lock().len()).finish()
    }
}

impl AnswerCache {
    /// Answers kept.
    pub const CAPACITY: usize = 8;
    /// Oldest answer reused.
    pub const MAX_AGE: Duration = Duration::from_secs(600);

    /// The answer of type `T` stored under `key`, with when it was stored, if the fingerprint
    /// still matches (`None` as well when the stored answer is of another type).
    pub fn get<T: Any + Clone>(&self, key: &str, fingerprint: &Fingerprint) -> Option<(Instant, T)> {
        let entries = self.entries.lock();
        entries
            .iter()
            .find(|(stored_key, stored, at, _)| stored_key == key && stored == fingerprint && at.elapsed() < Self::MAX_AGE)
            .and_then(|(_, _, at, answer)| answer.downcast_ref::<T>().map(|answer| (*at, answer.clone())))
    }

    /// Stores `answer` under `key` (replacing an older one; the oldest entry goes when full).
    pub fn put<T: Any + Send + Sync>(&self, key: String, fingerprint: Fingerprint, answer: T) {
        let mut entries = self.entries.lock();
        entries.retain(|(stored_key, ..)| stored_key != &key);
        if entries.len() >= Self::CAPACITY {
            entries.pop_front();
        }
        entries.push_back((key, fingerprint, Instant::now(), Arc::new(answer)));
    }
}

/// Where a listed path lies, in list order: workspace code first, then dependency code inside
/// the workspace, then paths outside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathClass {
    /// The project's own files.
    Workspace,
    /// Inside the workspace but third-party (`node_modules`, `.venv`'s site-packages, `target`).
    WorkspaceDependency,
    /// Outside the workspace.
    Outside,
}

/// The text of the file at `path`, where a list may read it: beneath the workspace root, or
/// beneath its dependency root when it is dependency code outside the workspace (the standard
/// library, a module cache); `None` for any other place outside the workspace or an unreadable
/// file.
pub(crate) fn read_listed_file(workspace_root: &Path, path: &Path) -> Option<String> {
    let listed = ListedPath::new(workspace_root, path);
    match (&listed.class, &listed.origin_root) {
        (PathClass::Outside, Some(dependency_root)) => crate::files::read_dependency_file_to_string(dependency_root, path).ok(),
        (PathClass::Outside, None) => None,
        _ => crate::files::read_workspace_file_to_string(workspace_root, path).ok(),
    }
}

/// A location's path as a list shows it (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedPath {
    /// What the list prints: workspace-relative, or shortened to package + path inside it, or
    /// absolute (an outside path of no known origin).
    pub text: String,
    /// The absolute path.
    pub absolute: PathBuf,
    /// Workspace, dependency inside it, or outside.
    pub class: PathClass,
    /// Where dependency code comes from (`site-packages`, `node_modules`, `rust sysroot`,
    /// `cargo registry`, `go module cache`, …); `None` for project files and unknown outside
    /// paths.
    pub origin: Option<&'static str>,
    /// The directory `text` is relative to when it was shortened (e.g. the site-packages dir).
    pub origin_root: Option<PathBuf>,
}

/// The origin of a file beneath one of the project's outside roots (its repository, a path
/// dependency: [`crate::lsp::confinement::project_outside_roots`]).
pub const PROJECT_OUTSIDE_ORIGIN: &str = "project, outside the workspace";

impl ListedPath {
    /// [`ListedPath::new`], and a path outside the workspace of no other known origin beneath one
    /// of `project_roots` (the granted outside roots of the project) is of origin
    /// [`PROJECT_OUTSIDE_ORIGIN`], shortened to the root's name + the path inside it
    /// (`common/src/lib.rs`), so that it is quoted like dependency code.
    pub fn new_in_project(workspace_root: &Path, path: &Path, project_roots: &[PathBuf]) -> ListedPath {
        let listed = ListedPath::new(workspace_root, path);
        if listed.class != PathClass::Outside || listed.origin.is_some() {
            return listed;
        }
        // The innermost root wins (a path dependency inside the repository).
        let Some(root) = project_roots.iter().filter(|root| path.starts_with(root)).max_by_key(|root| root.components().count()) else {
            return listed;
        };
        let inside = path.strip_prefix(root).unwrap_or(path);
        let text = match root.file_name() {
            Some(name) => Path::new(name).join(inside).display().to_string(),
            None => inside.display().to_string(),
        };
        ListedPath { text, origin: Some(PROJECT_OUTSIDE_ORIGIN), origin_root: Some(root.clone()), ..listed }
    }

    /// Classifies and shortens `path` (absolute) for a list in `workspace_root`.
    pub fn new(workspace_root: &Path, path: &Path) -> ListedPath {
        let dependency = dependency_origin(path);
        match path.strip_prefix(workspace_root) {
            Ok(relative) => {
                let text = if relative.as_os_str().is_empty() { ".".to_owned() } else { relative.display().to_string() };
                let inside_dependency = dependency.as_ref().is_some_and(|(_, root, _)| root.starts_with(workspace_root))
                    || relative.components().next().is_some_and(|first| first.as_os_str() == "target");
                let origin = match (&dependency, inside_dependency) {
                    (Some((origin, _, _)), true) => Some(*origin),
                    (None, true) => Some("build output"),
                    _ => None,
                };
                ListedPath {
                    text,
                    absolute: path.to_path_buf(),
                    class: if inside_dependency { PathClass::WorkspaceDependency } else { PathClass::Workspace },
                    origin,
                    origin_root: None,
                }
            }
            Err(_) => match dependency {
                Some((origin, root, short)) => ListedPath {
                    text: short,
                    absolute: path.to_path_buf(),
                    class: PathClass::Outside,
                    // Not the workspace's own `node_modules/`, whose paths are shown from the
                    // workspace root (trial29 M2: the global tsc's `lib.dom.d.ts` read as
                    // `node_modules/typescript/lib/lib.dom.d.ts`, a workspace path that does not exist).
                    origin: Some(if origin == "node_modules" { OUTSIDE_NODE_MODULES_ORIGIN } else { origin }),
                    origin_root: Some(root),
                },
                None => ListedPath {
                    text: path.display().to_string(),
                    absolute: path.to_path_buf(),
                    class: PathClass::Outside,
                    origin: None,
                    origin_root: None,
                },
            },
        }
    }

    /// Sort rank: [`PathClass`] order.
    pub fn rank(&self) -> PathClass {
        self.class
    }

    /// The path with its mark, for a list line: `src/app.py`, `numpy/core/fromnumeric.py
    /// [site-packages]`, `node_modules/x/y.ts [node_modules]`, `/opt/x.py [outside workspace]`.
    pub fn labeled(&self) -> String {
        format!("{}{}", self.text, self.mark())
    }

    /// The mark alone: empty for workspace code, else ` [origin]` (` [outside workspace]` for an
    /// outside path of no known origin).
    pub fn mark(&self) -> String {
        match (self.class, self.origin) {
            (PathClass::Workspace, _) => String::new(),
            (_, Some(origin)) => format!(" [{origin}]"),
            (_, None) => " [outside workspace]".to_owned(),
        }
    }

    /// `path:line` with the mark after it: `numpy/core/fromnumeric.py:12 [site-packages]`.
    pub fn with_line(&self, line: u32) -> String {
        format!("{}:{line}{}", self.text, self.mark())
    }
}

/// Counts of a list's paths per class and origin, rendered as one line and a legend of the
/// shortened roots (`site-packages = /usr/lib/python3/dist-packages`).
#[derive(Debug, Default)]
pub struct PathTally {
    workspace_entries: usize,
    workspace_files: std::collections::BTreeSet<String>,
    other: std::collections::BTreeMap<(PathClass, &'static str), (usize, std::collections::BTreeSet<String>)>,
    roots: std::collections::BTreeMap<&'static str, std::collections::BTreeSet<PathBuf>>,
}

impl PathTally {
    /// Counts one entry at `path`.
    pub fn add(&mut self, path: &ListedPath) {
        match path.class {
            PathClass::Workspace => {
                self.workspace_entries += 1;
                self.workspace_files.insert(path.text.clone());
            }
            class => {
                let origin = path.origin.unwrap_or("outside workspace");
                let entry = self.other.entry((class, origin)).or_default();
                entry.0 += 1;
                entry.1.insert(path.text.clone());
                if let Some(root) = &path.origin_root {
                    self.roots.entry(origin).or_default().insert(root.clone());
                }
            }
        }
    }

    /// `12 in the workspace (3 files), 5 outside: site-packages 4 (2 files), typeshed 1 (1 file)`
    /// — `None` when every entry is workspace code.
    pub fn summary(&self) -> Option<String> {
        if self.other.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if self.workspace_entries > 0 {
            parts.push(format!("{} in the workspace ({})", self.workspace_entries, plural(self.workspace_files.len(), "file")));
        }
        for class in [PathClass::WorkspaceDependency, PathClass::Outside] {
            let groups: Vec<String> = self
                .other
                .iter()
                .filter(|((c, _), _)| *c == class)
                .map(|((_, origin), (count, files))| format!("{origin} {count} ({})", plural(files.len(), "file")))
                .collect();
            if groups.is_empty() {
                continue;
            }
            let count: usize = self.other.iter().filter(|((c, _), _)| *c == class).map(|(_, (count, _))| count).sum();
            let where_ = if class == PathClass::Outside { "outside" } else { "in dependencies inside the workspace" };
            parts.push(format!("{count} {where_}: {}", groups.join(", ")));
        }
        Some(parts.join("; "))
    }

    /// One line per shortened origin: `site-packages = /x/site-packages` (several roots joined
    /// with `, `).
    pub fn legend(&self) -> Vec<String> {
        self.roots
            .iter()
            .map(|(origin, roots)| format!("{origin} = {}", roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")))
            .collect()
    }
}

/// The origin of a path in a `node_modules` folder outside the workspace (a global install, a
/// parent folder's): its shortened path starts at the package (`typescript/lib/lib.dom.d.ts`).
pub const OUTSIDE_NODE_MODULES_ORIGIN: &str = "node_modules outside the workspace";

/// Whether `path` lies in a known dependency location (a `site-packages`, a `node_modules`, the
/// cargo registry, a sysroot, typeshed …), inside the workspace or not: code no rename edits.
pub fn is_dependency_path(path: &Path) -> bool {
    dependency_origin(path).is_some()
}

/// `(origin, root, path shortened to package + path inside it)` when `path` lies in a known
/// dependency location. The last matching marker wins (a `node_modules` nested in another's).
fn dependency_origin(path: &Path) -> Option<(&'static str, PathBuf, String)> {
    let parts: Vec<String> = path
        .components()
        .filter_map(|component| match component {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let join_from = |start: usize| parts[start..].join("/");
    let root_upto = |end: usize| {
        let mut root = PathBuf::from("/");
        for part in &parts[..end] {
            root.push(part);
        }
        root
    };
    // Scan from the end: the innermost marker wins.
    for index in (0..parts.len().saturating_sub(1)).rev() {
        let part = parts[index].as_str();
        match part {
            "site-packages" | "dist-packages" => return Some(("site-packages", root_upto(index + 1), join_from(index + 1))),
            "node_modules" => return Some(("node_modules", root_upto(index + 1), join_from(index + 1))),
            // pyright / basedpyright ship typeshed: `…/typeshed-fallback/stdlib/builtins.pyi`.
            "typeshed-fallback" | "typeshed" => {
                let short = format!("typeshed/{}", join_from(index + 1));
                return Some(("typeshed", root_upto(index + 1), short));
            }
            _ => {}
        }
        // Rust sysroot: `…/lib/rustlib/src/rust/library/std/src/io/mod.rs` → `std/src/io/mod.rs`.
        if part == "library" && index >= 3 && parts[index - 1] == "rust" && parts[index - 2] == "src" && parts[index - 3] == "rustlib" {
            return Some(("rust sysroot", root_upto(index + 1), join_from(index + 1)));
        }
        // Cargo registry: `~/.cargo/registry/src/<index>/<crate>-<version>/…`.
        if part == "src" && index >= 1 && parts[index - 1] == "registry" && index + 2 < parts.len() {
            return Some(("cargo registry", root_upto(index + 2), join_from(index + 2)));
        }
        // Cargo git checkouts: `~/.cargo/git/checkouts/<repo>-<hash>/<rev>/…` → `<repo>-<hash>/…`.
        if part == "checkouts" && index >= 1 && parts[index - 1] == "git" && index + 3 < parts.len() {
            let short = format!("{}/{}", parts[index + 1], join_from(index + 3));
            return Some(("cargo git", root_upto(index + 1), short));
        }
        // Go module cache: `$GOPATH/pkg/mod/<module>@<version>/…`.
        if part == "mod" && index >= 1 && parts[index - 1] == "pkg" && index + 1 < parts.len() {
            return Some(("go module cache", root_upto(index + 1), join_from(index + 1)));
        }
    }
    // The Go standard library: under `$(go env GOROOT)/src` or where that resolves to (Debian:
    // `/usr/lib/go-1.19/src` → `/usr/share/go-1.19/src`, where gopls's locations point) …
    if path.extension().is_some_and(|ext| ext == "go" || ext == "s") {
        if let Some(sources) = goroot_sources().iter().find(|sources| path.starts_with(sources)) {
            let inside = path.strip_prefix(sources).map(|rest| rest.display().to_string()).unwrap_or_default();
            return Some(("go stdlib", sources.clone(), inside));
        }
    }
    // … else (no `go` on PATH) a `go`/`go-N` directory with a VERSION file beside its `src`, or
    // Debian's canonical `/usr/share/go-1.19/src/…` (its GOROOT links `src` there; no VERSION).
    for index in (1..parts.len().saturating_sub(1)).rev() {
        let goroot = root_upto(index);
        if parts[index] == "src"
            && (parts[index - 1] == "go" || parts[index - 1].starts_with("go-"))
            && (goroot.join("VERSION").is_file() || goroot.join("src/builtin/builtin.go").is_file())
        {
            return Some(("go stdlib", root_upto(index + 1), join_from(index + 1)));
        }
    }
    // The Python standard library: `/usr/lib/python3.11/json/__init__.py`.
    for index in (1..parts.len().saturating_sub(1)).rev() {
        let part = parts[index].as_str();
        if part.starts_with("python3") && parts[index - 1] == "lib" && part[7..].chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Some(("python stdlib", root_upto(index + 1), join_from(index + 1)));
        }
    }
    // C and C++ system headers: `/usr/include/stdio.h`, `/usr/lib/llvm-19/lib/clang/19/include/stddef.h`.
    for index in (0..parts.len().saturating_sub(1)).rev() {
        if parts[index] == "include" && parts.first().is_some_and(|first| first == "usr") {
            return Some(("system headers", root_upto(index + 1), join_from(index + 1)));
        }
    }
    None
}

/// The Go standard library's source directories: `$(go env GOROOT)/src` and, when it is (or lies
/// behind) a symlink, the directory it resolves to. Asked of `go` once per process (5 s at most);
/// empty when `go` is not on `PATH` or fails.
pub(crate) fn goroot_sources() -> &'static [PathBuf] {
    static SOURCES: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    SOURCES.get_or_init(|| {
        let Ok(go) = which::which("go") else { return Vec::new() };
        let spec = crate::transport::process::ProcessSpec::new(go, "/").with_args(["env", "GOROOT"]).with_display_name("go env GOROOT");
        let Ok(completed) = crate::transport::process::run_to_completion(spec, b"", Duration::from_secs(5), 64 * 1024) else {
            return Vec::new();
        };
        let goroot = String::from_utf8_lossy(&completed.stdout).trim().to_owned();
        if completed.timed_out || !completed.status.success() || goroot.is_empty() {
            return Vec::new();
        }
        goroot_source_dirs(Path::new(&goroot))
    })
}

/// `goroot/src` and its resolved form (deduplicated).
fn goroot_source_dirs(goroot: &Path) -> Vec<PathBuf> {
    let sources = goroot.join("src");
    let mut dirs = vec![sources.clone()];
    if let Ok(resolved) = std::fs::canonicalize(&sources) {
        if resolved != sources {
            dirs.push(resolved);
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(path: &str) -> ListedPath {
        ListedPath::new(Path::new("/work/project"), Path::new(path))
    }

    #[test]
    fn pages_say_where_they_are_and_where_the_next_starts() {
        let first = Page::new(137, 0, 50, "references").unwrap();
        assert_eq!(first.range(), 0..50);
        assert_eq!(first.notice().as_deref(), Some("showing 1–50 of 137; next: offset=50"));
        let last = Page::new(137, 100, 50, "references").unwrap();
        assert_eq!(last.range(), 100..137);
        assert_eq!(last.notice().as_deref(), Some("showing 101–137 of 137"));
        assert_eq!(Page::new(20, 0, 50, "references").unwrap().notice(), None);
        assert_eq!(Page::new(0, 0, 50, "references").unwrap().shown(), 0);
        let past = Page::new(20, 20, 50, "references").unwrap_err();
        assert!(past.message.contains("offset 20 is past the end: there are 20 references (offsets 0–19)"), "{}", past.message);
    }

    #[test]
    fn dependency_paths_are_shortened_to_package_and_path_inside() {
        let cases = [
            ("/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py", "numpy/core/fromnumeric.py", "site-packages"),
            ("/home/u/.venv/lib/python3.11/site-packages/requests/api.py", "requests/api.py", "site-packages"),
            (
                "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/std/src/io/mod.rs",
                "std/src/io/mod.rs",
                "rust sysroot",
            ),
            (
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde-1.0.200/src/de/mod.rs",
                "serde-1.0.200/src/de/mod.rs",
                "cargo registry",
            ),
            ("/root/.cargo/git/checkouts/tree-sitter-abc123/4f5e6d7/lib/src/lib.rs", "tree-sitter-abc123/lib/src/lib.rs", "cargo git"),
            ("/srv/other/node_modules/@types/node/fs.d.ts", "@types/node/fs.d.ts", OUTSIDE_NODE_MODULES_ORIGIN),
            (
                "/root/go/pkg/mod/golang.org/x/tools@v0.1.0/go/ast/inspector.go",
                "golang.org/x/tools@v0.1.0/go/ast/inspector.go",
                "go module cache",
            ),
            ("/usr/lib/python3.11/json/__init__.py", "json/__init__.py", "python stdlib"),
            ("/usr/lib/node_modules/pyright/dist/typeshed-fallback/stdlib/builtins.pyi", "typeshed/stdlib/builtins.pyi", "typeshed"),
            ("/usr/include/stdio.h", "stdio.h", "system headers"),
        ];
        for (path, short, origin) in cases {
            let listed = listed(path);
            assert_eq!((listed.text.as_str(), listed.origin, listed.class), (short, Some(origin), PathClass::Outside), "{path}");
        }
        // Without `go env GOROOT`, the Go standard library is recognized by its GOROOT's VERSION
        // file.
        let goroot = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(goroot.path().join("go-1.19/src")).unwrap();
        std::fs::write(goroot.path().join("go-1.19/VERSION"), "go1.19\n").unwrap();
        let print = listed(&goroot.path().join("go-1.19/src/fmt/print.go").display().to_string());
        assert_eq!((print.text.as_str(), print.origin), ("fmt/print.go", Some("go stdlib")));
        // Debian's GOROOT keeps its sources behind a symlink: both spellings are GOROOT sources.
        let share = goroot.path().join("share/go-1.19/src");
        std::fs::create_dir_all(&share).unwrap();
        std::fs::create_dir_all(goroot.path().join("lib/go-1.19")).unwrap();
        std::os::unix::fs::symlink(&share, goroot.path().join("lib/go-1.19/src")).unwrap();
        let dirs = goroot_source_dirs(&goroot.path().join("lib/go-1.19"));
        assert_eq!(dirs, vec![goroot.path().join("lib/go-1.19/src"), std::fs::canonicalize(&share).unwrap()]);
        let not_goroot = listed("/home/u/go/src/example.com/x/y.go");
        assert_eq!(not_goroot.origin, None, "an old-style GOPATH src is not the standard library");
        assert_eq!(listed("/home/u/other/include/x.h").origin, None, "only system include dirs are system headers");
        let unknown = listed("/opt/tools/helper.py");
        assert_eq!((unknown.text.as_str(), unknown.origin), ("/opt/tools/helper.py", None));
        assert_eq!(unknown.labeled(), "/opt/tools/helper.py [outside workspace]");
    }

    #[test]
    fn workspace_code_ranks_before_dependencies_inside_it_and_outside_paths() {
        let own = listed("/work/project/src/app.py");
        assert_eq!((own.text.as_str(), own.class, own.labeled().as_str()), ("src/app.py", PathClass::Workspace, "src/app.py"));
        let vendored = listed("/work/project/.venv/lib/python3.11/site-packages/requests/api.py");
        assert_eq!(vendored.class, PathClass::WorkspaceDependency);
        assert_eq!(vendored.text, ".venv/lib/python3.11/site-packages/requests/api.py", "inside the workspace the path stays readable");
        let modules = listed("/work/project/node_modules/react/index.d.ts");
        assert_eq!((modules.class, modules.origin), (PathClass::WorkspaceDependency, Some("node_modules")));
        let outside = listed("/usr/lib/python3.11/os.py");
        assert!(own.rank() < vendored.rank() && vendored.rank() < outside.rank());
        let mut tally = PathTally::default();
        for path in [&own, &own, &vendored, &outside, &outside] {
            tally.add(path);
        }
        assert_eq!(
            tally.summary().as_deref(),
            Some("2 in the workspace (1 file); 1 in dependencies inside the workspace: site-packages 1 (1 file); 2 outside: python stdlib 2 (1 file)")
        );
        assert_eq!(tally.legend(), vec!["python stdlib = /usr/lib/python3.11".to_owned()]);
    }
}
