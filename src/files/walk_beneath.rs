//! `.gitignore`-aware walks of the workspace done beneath a root handle, with no symlink followed
//! at use time (issue 13 §1).
//!
//! `ignore::WalkBuilder` lists by path: it `stat`s an entry, then reads the directory by its
//! path from `/`, and reads each `.gitignore` / `.ignore` it meets by path too. A workspace
//! directory swapped for a symlink to outside between those steps (a concurrent
//! `renameat2(RENAME_EXCHANGE)`) makes it list the outside directory and read the outside
//! ignore files. These walks ask the same questions through [`Beneath`]: every directory is
//! opened beneath the root handle (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` or an
//! `O_NOFOLLOW` walk) and read through that handle, entry types come from the directory itself
//! (`d_type`, else `fstatat(AT_SYMLINK_NOFOLLOW)` in the open directory), an entry's size and
//! modification time come from `fstatat(AT_SYMLINK_NOFOLLOW)` in its open parent, and ignore
//! files are read beneath the root like any other file. A directory replaced by a symlink while
//! it is walked is an error entry ([`BeneathError::SymlinkOnPath`]) instead of being followed; a
//! symlink present when its parent is listed is yielded as a symlink and never entered, as with
//! the crate's `follow_links(false)`.
//!
//! [`BeneathWalk`] has the `ignore` crate's `WalkBuilder` options the runner uses, with the
//! crate's defaults and its matching (`ignore::gitignore`, `ignore::types`) and precedence: a
//! match in an `.ignore` file (innermost first) wins over one in a `.gitignore`, which wins over
//! `.git/info/exclude`, which wins over the global git excludes file; with `require_git(true)`
//! (the default) the git rules apply only inside a repository (`.git` or `.jj`) and stop at the
//! innermost one; `parents(true)` applies the ignore files of the walk's ancestors; the file
//! types of `types` whitelist a file (even a hidden one) or ignore it; hidden entries are
//! skipped unless whitelisted. Ancestors of the workspace root itself (above the handle) and the
//! global excludes file are read by path: they are as trusted as the root directory the run was
//! given, and no workspace directory can be swapped onto them. Not followed, unlike the crate:
//! ignore files that are symlinks (they would lead out of the root). Entries are yielded in
//! file-name order within a directory (the crate's `sort_by_file_name`), directories before
//! their contents; [`BeneathWalk::run_parallel`] visits from several threads, in no order.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::types::Types;
use ignore::{Match, WalkState};
use parking_lot::{Condvar, Mutex};
use rustix::fs::{AtFlags, FileType};

use crate::files::beneath::{read_directory_entries, Beneath, BeneathError};

/// What [`list_files_beneath`] lists and skips.
#[derive(Debug, Clone)]
pub(crate) struct WalkOptions<'a> {
    /// List hidden entries (names starting with `.`) and walk hidden directories.
    pub(crate) hidden: bool,
    /// Entry names never listed nor walked, at any depth (e.g. `.git`, `node_modules`).
    pub(crate) skip_names: &'a [&'a str],
}

/// The root-relative paths of the regular files under `start` (root-relative; empty: the root)
/// that the walk keeps, sorted. Symlinks are skipped (never followed), as are entries named in
/// `options.skip_names`, hidden entries unless `options.hidden`, and what the ignore files say:
/// `.ignore`, `.gitignore` (with or without a repository, as the crate's `require_git(false)`)
/// and `.git/info/exclude`; not the walk's ancestors' nor the global excludes file.
///
/// # Errors
/// The first directory that cannot be opened or read beneath the root: a symlink on its path
/// now ([`BeneathError::SymlinkOnPath`]: it was swapped after its parent was listed), removed
/// meanwhile, or unreadable. Unreadable or unparsable ignore files are skipped, as the `ignore`
/// crate skips them.
pub(crate) fn list_files_beneath(beneath: &Beneath, start: &Path, options: &WalkOptions<'_>) -> Result<Vec<PathBuf>, BeneathError> {
    let walk = BeneathWalk::new(beneath, start)?
        .hidden(!options.hidden)
        .require_git(false)
        .parents(false)
        .git_global(false)
        .skip_names(options.skip_names);
    let mut files = Vec::new();
    for entry in walk.iter() {
        let entry = entry.map_err(|err| err.error)?;
        if entry.is_file() {
            files.push(entry.into_relative());
        }
    }
    files.sort();
    Ok(files)
}

/// The root a walk of `directory` lists beneath: `workspace_root` when `directory` is in the
/// workspace (as spelled), so that no directory between them is followed either; else
/// `directory` itself (a tree outside the workspace that the caller chose: a dependency root, a
/// test's temporary tree).
pub(crate) fn root_for_walk<'p>(workspace_root: &'p Path, directory: &'p Path) -> &'p Path {
    if directory.starts_with(workspace_root) {
        workspace_root
    } else {
        directory
    }
}

/// A handle of [`root_for_walk`].
///
/// # Errors
/// The root directory cannot be opened (missing, not a directory, permission).
pub(crate) fn handle_for_walk(workspace_root: &Path, directory: &Path) -> std::io::Result<Beneath> {
    Beneath::open(root_for_walk(workspace_root, directory))
}

/// The entries of the one directory `directory` (absolute), listed beneath a handle of
/// [`root_for_walk`] with no symlink followed: (absolute path, type as listed — a symlink is a
/// symlink), sorted by name. Empty when it cannot be listed (missing, now a symlink, unreadable).
pub(crate) fn list_directory(workspace_root: &Path, directory: &Path) -> Vec<(PathBuf, FileType)> {
    let Ok(handle) = handle_for_walk(workspace_root, directory) else { return Vec::new() };
    let Ok(relative) = handle.relative(directory) else { return Vec::new() };
    let Ok(entries) = handle.list_entries(relative) else { return Vec::new() };
    entries.into_iter().map(|(name, kind)| (directory.join(name), kind)).collect()
}

/// A directory a walk could not list beneath the root: swapped for a symlink after its parent
/// was listed ([`BeneathError::SymlinkOnPath`]), removed meanwhile, or unreadable.
#[derive(Debug)]
pub(crate) struct WalkError {
    /// The directory, relative to the root handle.
    pub(crate) directory: PathBuf,
    /// What failed.
    pub(crate) error: BeneathError,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = if self.directory.as_os_str().is_empty() { Path::new(".") } else { self.directory.as_path() };
        write!(f, "{}: cannot list this directory beneath the workspace root: {}", shown.display(), self.error)
    }
}

/// Why a walk did not yield an entry (told to [`BeneathWalk::run_parallel`]'s `skipped`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skipped {
    /// Hidden, or ignored by an ignore file (`.ignore`, `.gitignore`, git excludes).
    HiddenOrIgnored,
    /// A file whose name the walk's `types` do not select.
    NotOfTheTypes,
    /// Refused by the walk's `filter_entry`.
    Filtered,
    /// Named in the walk's `skip_names`.
    Named,
}

/// One entry of a walk: a file, directory, symlink (never followed) or other file type, as its
/// parent directory listed it.
#[derive(Debug)]
pub(crate) struct WalkEntry {
    relative: PathBuf,
    path: PathBuf,
    kind: FileType,
    depth: usize,
    /// The open parent directory (`None` for the walk's starting point).
    parent: Option<Arc<OwnedFd>>,
}

/// Size and modification time of an entry, from `fstatat(AT_SYMLINK_NOFOLLOW)` in its parent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryStat {
    /// Size in bytes.
    pub(crate) len: u64,
    /// Modification time.
    pub(crate) modified: SystemTime,
}

impl EntryStat {
    /// The modification time in ns since the Unix epoch (0 before it).
    pub(crate) fn modified_ns(&self) -> u128 {
        self.modified.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |since| since.as_nanos())
    }
}

impl WalkEntry {
    /// The absolute path: the root as opened joined with [`WalkEntry::relative`].
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The absolute path, owned.
    pub(crate) fn into_path(self) -> PathBuf {
        self.path
    }

    /// The path relative to the walk's root handle.
    pub(crate) fn relative(&self) -> &Path {
        &self.relative
    }

    /// The path relative to the walk's root handle, owned.
    pub(crate) fn into_relative(self) -> PathBuf {
        self.relative
    }

    /// The final component of the path (the whole path for the walk's start at the root).
    pub(crate) fn file_name(&self) -> &OsStr {
        self.path.file_name().unwrap_or(self.path.as_os_str())
    }

    /// 0 for the walk's starting point, 1 for its children, ...
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// The type as listed (a symlink is a symlink).
    pub(crate) fn file_type(&self) -> FileType {
        self.kind
    }

    /// A directory (not a symlink to one).
    pub(crate) fn is_dir(&self) -> bool {
        self.kind == FileType::Directory
    }

    /// A regular file (not a symlink to one).
    pub(crate) fn is_file(&self) -> bool {
        self.kind == FileType::RegularFile
    }

    /// Size and modification time, asked in the open parent directory without following a
    /// symlink (`None`: removed meanwhile, or the walk's starting point).
    pub(crate) fn stat(&self) -> Option<EntryStat> {
        let parent = self.parent.as_ref()?;
        let stat = rustix::fs::statat(parent.as_ref(), self.file_name(), AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let seconds = u64::try_from(stat.st_mtime).ok()?;
        let nanos = u32::try_from(stat.st_mtime_nsec).unwrap_or(0);
        let modified = SystemTime::UNIX_EPOCH + std::time::Duration::new(seconds, nanos);
        Some(EntryStat { len: u64::try_from(stat.st_size).unwrap_or(0), modified })
    }
}

/// The ignore rules of one directory: one walked, or an ancestor of the walk's start.
struct DirectoryRules {
    /// From its `.ignore`.
    dot_ignore: Gitignore,
    /// From its `.gitignore`.
    git_ignore: Gitignore,
    /// From `.git/info/exclude` when it holds a `.git`.
    git_exclude: Gitignore,
    /// It is a repository root (`.git` or `.jj`), as far as `require_git` asks.
    has_git: bool,
    /// An ancestor of the walk's start (its rules apply only with `parents(true)`).
    ancestor: bool,
    parent: Option<Arc<DirectoryRules>>,
}

impl DirectoryRules {
    /// An ancestor that adds no rule and no repository.
    fn nothing(parent: Option<Arc<DirectoryRules>>) -> DirectoryRules {
        DirectoryRules {
            dot_ignore: Gitignore::empty(),
            git_ignore: Gitignore::empty(),
            git_exclude: Gitignore::empty(),
            has_git: false,
            ancestor: true,
            parent,
        }
    }

    fn chain(&self) -> impl Iterator<Item = &DirectoryRules> {
        std::iter::successors(Some(self), |rules| rules.parent.as_deref())
    }
}

/// A predicate on entries (true: keep; a refused directory is not entered).
type EntryFilter<'w> = Box<dyn Fn(&WalkEntry) -> bool + Send + Sync + 'w>;

/// A walk of the directory `start` beneath a root handle, configured like `ignore::WalkBuilder`
/// (same option names, same defaults: every standard filter on, `require_git(true)`, no depth
/// limit, no file types). See the module docs for what it reads and how.
pub(crate) struct BeneathWalk<'w> {
    beneath: &'w Beneath,
    start: PathBuf,
    skip_hidden: bool,
    dot_ignore: bool,
    git_ignore: bool,
    git_exclude: bool,
    git_global: bool,
    parents: bool,
    require_git: bool,
    max_depth: Option<usize>,
    types: Option<Types>,
    skip_names: Vec<OsString>,
    filter: Option<EntryFilter<'w>>,
}

/// What a walk computes once before listing: the ancestors' rules and the global excludes.
struct Prepared {
    /// The canonical root, which ignore rules are matched against (as the crate matches the
    /// canonical walk root's ancestors).
    match_root: PathBuf,
    global: Gitignore,
    top: Option<Arc<DirectoryRules>>,
}

/// One directory to list.
struct DirectoryJob {
    relative: PathBuf,
    depth: usize,
    rules: Option<Arc<DirectoryRules>>,
}

/// An entry of a listed directory with why it is skipped (`None`: kept).
type DecidedEntry = (WalkEntry, Option<Skipped>);

/// A listed directory: its rules and its decided entries.
type Listing = (Arc<DirectoryRules>, Vec<DecidedEntry>);

impl<'w> BeneathWalk<'w> {
    /// A walk of `start` (absolute under the root as opened, or root-relative; empty or the
    /// root: the whole tree) with the crate's defaults.
    ///
    /// # Errors
    /// [`BeneathError::NotBeneath`] when `start` is not under the root as spelled.
    pub(crate) fn new(beneath: &'w Beneath, start: &Path) -> Result<BeneathWalk<'w>, BeneathError> {
        let start = beneath.relative(start)?.to_path_buf();
        Ok(BeneathWalk {
            beneath,
            start,
            skip_hidden: true,
            dot_ignore: true,
            git_ignore: true,
            git_exclude: true,
            git_global: true,
            parents: true,
            require_git: true,
            max_depth: None,
            types: None,
            skip_names: Vec::new(),
            filter: None,
        })
    }

    /// Turns hidden, parents, `.ignore`, `.gitignore`, global and exclude rules on or off.
    pub(crate) fn standard_filters(mut self, yes: bool) -> Self {
        self.skip_hidden = yes;
        self.parents = yes;
        self.dot_ignore = yes;
        self.git_ignore = yes;
        self.git_global = yes;
        self.git_exclude = yes;
        self
    }

    /// Skip hidden entries (names starting with `.`), the crate's `hidden(true)`.
    pub(crate) fn hidden(mut self, yes: bool) -> Self {
        self.skip_hidden = yes;
        self
    }

    /// Apply `.gitignore` files only inside a repository.
    pub(crate) fn require_git(mut self, yes: bool) -> Self {
        self.require_git = yes;
        self
    }

    /// Apply the ignore files of the start's ancestors.
    pub(crate) fn parents(mut self, yes: bool) -> Self {
        self.parents = yes;
        self
    }

    /// Apply the global git excludes file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`).
    pub(crate) fn git_global(mut self, yes: bool) -> Self {
        self.git_global = yes;
        self
    }

    /// Yield nothing deeper than `depth` (0: only the start); directories at that depth are
    /// yielded, not listed.
    pub(crate) fn max_depth(mut self, depth: Option<usize>) -> Self {
        self.max_depth = depth;
        self
    }

    /// Only files these types select (a selected file is kept even when hidden).
    pub(crate) fn types(mut self, types: Types) -> Self {
        self.types = Some(types);
        self
    }

    /// Entries with one of these names are neither yielded nor entered, at any depth below the
    /// start.
    pub(crate) fn skip_names(mut self, names: &[&str]) -> Self {
        self.skip_names.extend(names.iter().map(OsString::from));
        self
    }

    /// Entries (below the start) the filter refuses are neither yielded nor entered; it is asked
    /// only about entries the ignore rules keep, as the crate's `filter_entry`.
    pub(crate) fn filter_entry(mut self, filter: impl Fn(&WalkEntry) -> bool + Send + Sync + 'w) -> Self {
        self.filter = Some(Box::new(filter));
        self
    }

    /// The entries, depth first, the start first.
    pub(crate) fn iter(self) -> BeneathWalkIter<'w> {
        let prepared = self.prepare();
        BeneathWalkIter { walk: self, prepared, started: false, to_list: None, stack: Vec::new() }
    }

    /// Visits every entry from `threads` threads (0: the available parallelism, at most 12),
    /// the calling thread among them; returns when every directory is done or a visit said
    /// [`WalkState::Quit`]. `visit` gets every kept entry and every directory that could not be
    /// listed; [`WalkState::Skip`] for a directory does not enter it. `skipped` hears of every
    /// entry of a listed directory that was not kept, and why.
    pub(crate) fn run_parallel(
        self,
        threads: usize,
        visit: &(dyn Fn(Result<WalkEntry, WalkError>) -> WalkState + Sync),
        skipped: &(dyn Fn(&WalkEntry, Skipped) + Sync),
    ) {
        let prepared = self.prepare();
        let threads = if threads == 0 { std::thread::available_parallelism().map_or(2, |n| n.get()).min(12) } else { threads };
        let start = match self.start_entry() {
            Ok(entry) => entry,
            Err(err) => {
                visit(Err(err));
                return;
            }
        };
        let start_is_dir = start.is_dir();
        let relative = start.relative.clone();
        if visit(Ok(start)) != WalkState::Continue || !start_is_dir || self.max_depth == Some(0) {
            return;
        }
        // Pending directories and how many workers are listing one.
        let queue: Mutex<(Vec<DirectoryJob>, usize)> =
            Mutex::new((vec![DirectoryJob { relative, depth: 0, rules: prepared.top.clone() }], 0));
        let changed = Condvar::new();
        let quit = AtomicBool::new(false);
        let worker = || loop {
            let job = {
                let mut state = queue.lock();
                loop {
                    if quit.load(Ordering::Relaxed) {
                        return;
                    }
                    if let Some(job) = state.0.pop() {
                        state.1 += 1;
                        break job;
                    }
                    if state.1 == 0 {
                        changed.notify_all();
                        return;
                    }
                    changed.wait(&mut state);
                }
            };
            let mut found = Vec::new();
            match self.list(&prepared, &job) {
                Err(err) => {
                    if visit(Err(err)) == WalkState::Quit {
                        quit.store(true, Ordering::Relaxed);
                    }
                }
                Ok((rules, entries)) => {
                    for (entry, skip) in entries {
                        if let Some(why) = skip {
                            skipped(&entry, why);
                            continue;
                        }
                        let descend = entry.is_dir() && self.max_depth.is_none_or(|max| entry.depth < max);
                        let (relative, depth) = (entry.relative.clone(), entry.depth);
                        match visit(Ok(entry)) {
                            WalkState::Quit => {
                                quit.store(true, Ordering::Relaxed);
                                break;
                            }
                            WalkState::Continue if descend => found.push(DirectoryJob { relative, depth, rules: Some(Arc::clone(&rules)) }),
                            _ => {}
                        }
                        if quit.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                }
            }
            let mut state = queue.lock();
            state.0.extend(found);
            state.1 -= 1;
            changed.notify_all();
        };
        std::thread::scope(|scope| {
            for index in 1..threads {
                // A thread that cannot be spawned leaves the work to the others (the calling
                // thread always works).
                let _ = std::thread::Builder::new().name(format!("runbound-walk-{index}")).spawn_scoped(scope, worker);
            }
            worker();
        });
    }

    /// The start itself (depth 0), as the crate yields it.
    fn start_entry(&self) -> Result<WalkEntry, WalkError> {
        let failed = |error| WalkError { directory: self.start.clone(), error };
        let metadata = self
            .beneath
            .metadata(&self.start)
            .map_err(failed)?
            .ok_or_else(|| failed(BeneathError::Io(std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"))))?;
        let kind = FileType::from_raw_mode(std::os::unix::fs::MetadataExt::mode(&metadata));
        Ok(WalkEntry { relative: self.start.clone(), path: self.path_of(&self.start), kind, depth: 0, parent: None })
    }

    fn path_of(&self, relative: &Path) -> PathBuf {
        if relative.as_os_str().is_empty() {
            self.beneath.root().to_path_buf()
        } else {
            self.beneath.root().join(relative)
        }
    }

    fn check_vcs(&self) -> bool {
        self.require_git && (self.git_ignore || self.git_exclude)
    }

    /// The global excludes and the rules of the start's ancestors (those above the root read by
    /// path, those from the root down beneath it), outermost at the end of the chain.
    fn prepare(&self) -> Prepared {
        let match_root = std::fs::canonicalize(self.beneath.root()).unwrap_or_else(|_| self.beneath.root().to_path_buf());
        let global = if self.git_global { Gitignore::global().0 } else { Gitignore::empty() };
        let mut top: Option<Arc<DirectoryRules>> = None;
        if !(self.parents || self.git_ignore || self.git_exclude || self.git_global) {
            return Prepared { match_root, global, top };
        }
        // Above the root: by path (as trusted as the root itself).
        let above: Vec<&Path> = match_root.ancestors().skip(1).collect();
        for directory in above.into_iter().rev() {
            let rules = self.ancestor_rules_by_path(directory, top.take());
            top = Some(Arc::new(rules));
        }
        // The root and below, down to the start's parent: beneath the root.
        let mut relative = PathBuf::new();
        let components: Vec<&OsStr> = self.start.iter().collect();
        for component in components {
            let rules = self.ancestor_rules_beneath(&relative, &match_root, top.take());
            top = Some(Arc::new(rules));
            relative.push(component);
        }
        Prepared { match_root, global, top }
    }

    fn ancestor_rules_by_path(&self, directory: &Path, parent: Option<Arc<DirectoryRules>>) -> DirectoryRules {
        if !self.check_vcs() && !self.parents {
            return DirectoryRules::nothing(parent);
        }
        let read = |name: &str| std::fs::read(directory.join(name)).ok();
        let dot_git = std::fs::metadata(directory.join(".git")).ok();
        let has_git = self.check_vcs() && (dot_git.is_some() || directory.join(".jj").exists());
        let rules_of = |wanted: bool, name: &str| match (wanted && self.parents).then(|| read(name)).flatten() {
            Some(bytes) => rules_from_bytes(directory, &directory.join(name), &bytes),
            None => Gitignore::empty(),
        };
        let git_exclude = if self.git_exclude && self.parents && dot_git.is_some() {
            git_exclude_by_path(directory, dot_git.is_some_and(|m| m.is_file()))
        } else {
            Gitignore::empty()
        };
        DirectoryRules {
            dot_ignore: rules_of(self.dot_ignore, ".ignore"),
            git_ignore: rules_of(self.git_ignore, ".gitignore"),
            git_exclude,
            has_git,
            ancestor: true,
            parent,
        }
    }

    fn ancestor_rules_beneath(&self, relative: &Path, match_root: &Path, parent: Option<Arc<DirectoryRules>>) -> DirectoryRules {
        if !self.check_vcs() && !self.parents {
            return DirectoryRules::nothing(parent);
        }
        let dot_git = self.beneath.metadata(&relative.join(".git")).ok().flatten();
        let dot_git_kind = dot_git.map(|m| FileType::from_raw_mode(std::os::unix::fs::MetadataExt::mode(&m)));
        let has_jj = self.beneath.metadata(&relative.join(".jj")).ok().flatten().is_some();
        let mut rules = self.directory_rules(relative, match_root, dot_git_kind, has_jj, true, true, parent);
        rules.ancestor = true;
        if !self.parents {
            rules.dot_ignore = Gitignore::empty();
            rules.git_ignore = Gitignore::empty();
            rules.git_exclude = Gitignore::empty();
        }
        rules
    }

    /// The rules of the directory `relative` beneath the root (`has_*`: whether the listing saw
    /// those ignore files; `dot_git`: the type of its `.git`, if any).
    #[allow(clippy::too_many_arguments)]
    fn directory_rules(
        &self,
        relative: &Path,
        match_root: &Path,
        dot_git: Option<FileType>,
        has_jj: bool,
        has_dot_ignore: bool,
        has_git_ignore: bool,
        parent: Option<Arc<DirectoryRules>>,
    ) -> DirectoryRules {
        let absolute = match_root.join(relative);
        let read_rules = |wanted: bool, name: &str| {
            if !wanted {
                return Gitignore::empty();
            }
            match read_bytes(self.beneath, &relative.join(name)) {
                Some(bytes) => rules_from_bytes(&absolute, &absolute.join(name), &bytes),
                None => Gitignore::empty(),
            }
        };
        let git_exclude = match dot_git {
            Some(kind) if self.git_exclude => git_exclude_beneath(self.beneath, relative, &absolute, kind == FileType::RegularFile),
            _ => Gitignore::empty(),
        };
        DirectoryRules {
            dot_ignore: read_rules(self.dot_ignore && has_dot_ignore, ".ignore"),
            git_ignore: read_rules(self.git_ignore && has_git_ignore, ".gitignore"),
            git_exclude,
            has_git: self.check_vcs() && (dot_git.is_some() || has_jj),
            ancestor: false,
            parent,
        }
    }

    /// Lists the directory of `job` beneath the root and decides about each entry.
    fn list(&self, prepared: &Prepared, job: &DirectoryJob) -> Result<Listing, WalkError> {
        let failed = |error| WalkError { directory: job.relative.clone(), error };
        let fd = Arc::new(self.beneath.open_dir_for_listing(&job.relative).map_err(failed)?);
        let entries = read_directory_entries(&fd).map_err(|err| failed(BeneathError::Io(err)))?;
        let find = |name: &str| entries.iter().find(|(entry, _)| entry == name).map(|(_, kind)| *kind);
        let rules = Arc::new(self.directory_rules(
            &job.relative,
            &prepared.match_root,
            find(".git"),
            find(".jj").is_some(),
            find(".ignore").is_some(),
            find(".gitignore").is_some(),
            job.rules.clone(),
        ));
        let mut decided = Vec::with_capacity(entries.len());
        for (name, kind) in entries {
            let relative = job.relative.join(&name);
            let is_dir = kind == FileType::Directory;
            let skip = if self.skip_names.contains(&name) {
                Some(Skipped::Named)
            } else {
                self.decide(prepared, &rules, &prepared.match_root.join(&relative), &name, is_dir)
            };
            let entry = WalkEntry { path: self.path_of(&relative), relative, kind, depth: job.depth + 1, parent: Some(Arc::clone(&fd)) };
            let skip = match (skip, &self.filter) {
                (None, Some(filter)) if !filter(&entry) => Some(Skipped::Filtered),
                (skip, _) => skip,
            };
            decided.push((entry, skip));
        }
        Ok((rules, decided))
    }

    /// The crate's `Ignore::matched_dir_entry`: ignore rules, then types, then hiddenness.
    fn decide(&self, prepared: &Prepared, rules: &DirectoryRules, path: &Path, name: &OsStr, is_dir: bool) -> Option<Skipped> {
        let matched = self.matched_ignore(prepared, rules, path, is_dir);
        if matched.is_ignore() {
            return Some(Skipped::HiddenOrIgnored);
        }
        let mut whitelisted = matched.is_whitelist();
        if let Some(types) = &self.types {
            let by_type = types.matched(path, is_dir);
            if by_type.is_ignore() {
                return Some(Skipped::NotOfTheTypes);
            }
            whitelisted |= by_type.is_whitelist();
        }
        if !whitelisted && self.skip_hidden && name.as_encoded_bytes().starts_with(b".") {
            return Some(Skipped::HiddenOrIgnored);
        }
        None
    }

    /// The crate's `Ignore::matched_ignore` over the chain of directories from `rules` up.
    fn matched_ignore(&self, prepared: &Prepared, rules: &DirectoryRules, path: &Path, is_dir: bool) -> Match<()> {
        let any_git = !self.require_git || rules.chain().any(|rules| rules.has_git);
        let (mut dot_ignore, mut git_ignore, mut git_exclude) = (Match::None, Match::None, Match::None);
        let mut saw_git = false;
        for directory in rules.chain() {
            if directory.ancestor && !self.parents {
                break;
            }
            if dot_ignore.is_none() {
                dot_ignore = directory.dot_ignore.matched(path, is_dir).map(|_| ());
            }
            if any_git && !saw_git && git_ignore.is_none() {
                git_ignore = directory.git_ignore.matched(path, is_dir).map(|_| ());
            }
            if any_git && !saw_git && git_exclude.is_none() {
                git_exclude = directory.git_exclude.matched(path, is_dir).map(|_| ());
            }
            saw_git = saw_git || directory.has_git;
        }
        let global = if any_git { prepared.global.matched(path, is_dir).map(|_| ()) } else { Match::None };
        dot_ignore.or(git_ignore).or(git_exclude).or(global)
    }
}

/// The sequential walk ([`BeneathWalk::iter`]): `Ok` entries, and `Err` for a directory that
/// could not be listed beneath the root (swapped for a symlink, removed, unreadable), after
/// which the walk goes on with the rest.
pub(crate) struct BeneathWalkIter<'w> {
    walk: BeneathWalk<'w>,
    prepared: Prepared,
    started: bool,
    to_list: Option<DirectoryJob>,
    stack: Vec<(Arc<DirectoryRules>, std::vec::IntoIter<DecidedEntry>)>,
}

impl Iterator for BeneathWalkIter<'_> {
    type Item = Result<WalkEntry, WalkError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.started {
            self.started = true;
            let start = match self.walk.start_entry() {
                Ok(start) => start,
                Err(err) => return Some(Err(err)),
            };
            if start.is_dir() && self.walk.max_depth != Some(0) {
                self.to_list = Some(DirectoryJob { relative: start.relative.clone(), depth: 0, rules: self.prepared.top.clone() });
            }
            return Some(Ok(start));
        }
        loop {
            if let Some(job) = self.to_list.take() {
                match self.walk.list(&self.prepared, &job) {
                    Ok((rules, entries)) => self.stack.push((rules, entries.into_iter())),
                    Err(err) => return Some(Err(err)),
                }
            }
            let (rules, entries) = self.stack.last_mut()?;
            match entries.next() {
                None => {
                    self.stack.pop();
                }
                Some((_, Some(_))) => {}
                Some((entry, None)) => {
                    if entry.is_dir() && self.walk.max_depth.is_none_or(|max| entry.depth < max) {
                        self.to_list =
                            Some(DirectoryJob { relative: entry.relative.clone(), depth: entry.depth, rules: Some(Arc::clone(rules)) });
                    }
                    return Some(Ok(entry));
                }
            }
        }
    }
}

/// `.git/info/exclude` of a repository root (`.git` a directory beneath the root), or of the
/// common git directory of a worktree (`.git` a file `gitdir: <path>`, whose `commondir` names
/// the repository's git directory: read beneath a handle of that directory, as git's own
/// metadata outside the walked tree).
fn git_exclude_beneath(beneath: &Beneath, directory: &Path, absolute_directory: &Path, dot_git_is_file: bool) -> Gitignore {
    let dot_git = directory.join(".git");
    if !dot_git_is_file {
        return match read_bytes(beneath, &dot_git.join("info/exclude")) {
            Some(bytes) => rules_from_bytes(absolute_directory, &absolute_directory.join(".git/info/exclude"), &bytes),
            None => Gitignore::empty(),
        };
    }
    let Some(pointer) = read_bytes(beneath, &dot_git) else { return Gitignore::empty() };
    common_dir_exclude(absolute_directory, &pointer)
}

/// The same for an ancestor above the root, by path.
fn git_exclude_by_path(directory: &Path, dot_git_is_file: bool) -> Gitignore {
    if !dot_git_is_file {
        return match std::fs::read(directory.join(".git/info/exclude")) {
            Ok(bytes) => rules_from_bytes(directory, &directory.join(".git/info/exclude"), &bytes),
            Err(_) => Gitignore::empty(),
        };
    }
    let Ok(pointer) = std::fs::read(directory.join(".git")) else { return Gitignore::empty() };
    common_dir_exclude(directory, &pointer)
}

/// The exclude rules of the common git directory named by a worktree's `.git` file (`pointer`).
fn common_dir_exclude(absolute_directory: &Path, pointer: &[u8]) -> Gitignore {
    let pointer = String::from_utf8_lossy(pointer);
    let Some(git_dir) =
        pointer.lines().next().and_then(|line| line.strip_prefix("gitdir: ")).map(|path| absolute_directory.join(path.trim()))
    else {
        return Gitignore::empty();
    };
    let Ok(git_dir_handle) = Beneath::open(&git_dir) else { return Gitignore::empty() };
    let Some(common) = read_bytes(&git_dir_handle, Path::new("commondir")) else { return Gitignore::empty() };
    let common = String::from_utf8_lossy(&common);
    let common_dir = crate::files::path::lexically_normal(&git_dir.join(common.lines().next().unwrap_or("").trim()));
    let Ok(common_handle) = Beneath::open(&common_dir) else { return Gitignore::empty() };
    match read_bytes(&common_handle, Path::new("info/exclude")) {
        Some(bytes) => rules_from_bytes(absolute_directory, &common_dir.join("info/exclude"), &bytes),
        None => Gitignore::empty(),
    }
}

/// Rules from an ignore file's bytes as the crate reads them (`GitignoreBuilder::add`): line by
/// line, a UTF-8 byte-order mark dropped, stopping at the first line that is not UTF-8, invalid
/// globs skipped.
fn rules_from_bytes(absolute_directory: &Path, file: &Path, bytes: &[u8]) -> Gitignore {
    let mut builder = GitignoreBuilder::new(absolute_directory);
    let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    for (index, line) in text.split(|byte| *byte == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(mut line) = std::str::from_utf8(line) else { break };
        if index == 0 {
            line = line.trim_start_matches('\u{feff}');
        }
        // A line that is not a valid glob is skipped, as the crate skips it.
        let _ = builder.add_line(Some(file.to_path_buf()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The bytes of the regular file `relative` beneath `beneath` (`None`: absent, a symlink on the
/// way, not a regular file, unreadable).
fn read_bytes(beneath: &Beneath, relative: &Path) -> Option<Vec<u8>> {
    let (mut file, metadata) = beneath.open_read(relative).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::fs;

    fn names(list: &[PathBuf]) -> Vec<OsString> {
        list.iter().map(|path| path.as_os_str().to_os_string()).collect()
    }

    const RAY_LIKE: WalkOptions<'static> = WalkOptions { hidden: true, skip_names: &[".git"] };

    /// The same files as `ignore::WalkBuilder` with the options Ray packaging used.
    fn ignore_crate_listing(root: &Path) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = ignore::WalkBuilder::new(root)
            .hidden(false)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .require_git(false)
            .parents(false)
            .follow_links(false)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build()
            .flatten()
            .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
            .map(|entry| entry.path().strip_prefix(root).unwrap().to_path_buf())
            .collect();
        paths.sort();
        paths
    }

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn lists_what_the_ignore_crate_lists_with_its_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        write(&root, ".gitignore", "*.log\nbuild/\n!keep.log\n/only_root.txt\n");
        write(&root, "a.log", "x");
        write(&root, "keep.log", "x");
        write(&root, "only_root.txt", "x");
        write(&root, "sub/only_root.txt", "x");
        write(&root, "build/out.o", "x");
        write(&root, "src/build/under_a_build_dir.txt", "`build/` matches at any depth");
        write(&root, "src/main.rs", "x");
        write(&root, "src/.gitignore", "generated.rs\n!a.log\n");
        write(&root, "src/generated.rs", "x");
        write(&root, "src/a.log", "x");
        write(&root, ".ignore", "secret.txt\n");
        write(&root, "src/.ignore", "!generated.rs\n");
        write(&root, "secret.txt", "x");
        write(&root, ".hidden/file", "x");
        write(&root, ".git/info/exclude", "excluded.txt\n");
        write(&root, ".git/HEAD", "ref: refs/heads/main\n");
        write(&root, "excluded.txt", "x");
        write(&root, "nested/.git/info/exclude", "");
        write(&root, "nested/a.log", "the outer .gitignore applies in a nested repository too (require_git(false))");
        write(&root, "nested/kept.txt", "x");
        std::os::unix::fs::symlink(root.join("src"), root.join("link_dir")).unwrap();
        std::os::unix::fs::symlink(root.join("src/main.rs"), root.join("link_file")).unwrap();
        let beneath = Beneath::open(&root).unwrap();
        let ours = list_files_beneath(&beneath, Path::new(""), &RAY_LIKE).unwrap();
        assert_eq!(names(&ours), names(&ignore_crate_listing(&root)));
        // And what that is, so both cannot be wrong together.
        let expected = [
            ".gitignore",
            ".hidden/file",
            ".ignore",
            "keep.log",
            "nested/kept.txt",
            "src/.gitignore",
            "src/.ignore",
            "src/a.log",
            "src/generated.rs",
            "src/main.rs",
            "sub/only_root.txt",
        ];
        assert_eq!(ours, expected.iter().map(PathBuf::from).collect::<Vec<_>>());
        let visible = list_files_beneath(&beneath, Path::new("src"), &WalkOptions { hidden: false, skip_names: &["build"] }).unwrap();
        assert_eq!(visible, ["src/a.log", "src/generated.rs", "src/main.rs"].iter().map(PathBuf::from).collect::<Vec<_>>());
    }

    #[test]
    fn a_worktree_reads_the_exclude_file_of_its_common_git_directory() {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        write(&base, "repo/.git/info/exclude", "scratch.txt\n");
        write(&base, "repo/.git/worktrees/wt/commondir", "../..\n");
        let worktree = base.join("wt");
        write(&worktree, ".git", &format!("gitdir: {}\n", base.join("repo/.git/worktrees/wt").display()));
        write(&worktree, "scratch.txt", "x");
        write(&worktree, "kept.txt", "x");
        let listed = list_files_beneath(&Beneath::open(&worktree).unwrap(), Path::new(""), &RAY_LIKE).unwrap();
        assert_eq!(listed, vec![PathBuf::from("kept.txt")]);
        assert_eq!(names(&listed), names(&ignore_crate_listing(&worktree)));
    }

    /// Every entry `ignore::WalkBuilder` yields with `configure` applied, sorted, relative.
    fn crate_entries(root: &Path, configure: impl Fn(&mut ignore::WalkBuilder)) -> Vec<String> {
        let mut builder = ignore::WalkBuilder::new(root);
        configure(&mut builder);
        let mut paths: Vec<String> =
            builder.build().flatten().map(|entry| entry.path().strip_prefix(root).unwrap().display().to_string()).collect();
        paths.sort();
        paths
    }

    fn our_entries(walk: BeneathWalk<'_>) -> Vec<String> {
        let mut paths: Vec<String> = walk.iter().map(|entry| entry.unwrap().relative().display().to_string()).collect();
        paths.sort();
        paths
    }

    /// The crate's defaults (every standard filter, `require_git(true)`: `.gitignore` only inside
    /// a repository and not across a nested one), types, depth and filters: the same entries.
    #[test]
    fn default_walks_yield_what_the_ignore_crate_yields() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        // Not a repository: .gitignore does not apply, .ignore does.
        write(&root, "norepo/.gitignore", "*.log\n");
        write(&root, "norepo/.ignore", "secret.txt\n");
        write(&root, "norepo/a.log", "x");
        write(&root, "norepo/secret.txt", "x");
        write(&root, "norepo/.hidden.py", "x");
        write(&root, "norepo/.hdir/in.py", "x");
        // A repository with a nested one.
        write(&root, "repo/.git/HEAD", "ref: refs/heads/main\n");
        write(&root, "repo/.git/info/exclude", "excluded.py\n");
        write(&root, "repo/.gitignore", "*.log\nbuild/\n!keep.log\n");
        write(&root, "repo/a.log", "x");
        write(&root, "repo/keep.log", "x");
        write(&root, "repo/excluded.py", "x");
        write(&root, "repo/build/out.py", "x");
        write(&root, "repo/src/main.py", "x");
        write(&root, "repo/src/.hidden.py", "a hidden file of the type is whitelisted by the type");
        write(&root, "repo/src/.hidden.txt", "x");
        write(&root, "repo/src/deep/deeper/x.py", "x");
        write(&root, "repo/src/node_modules/m.py", "x");
        write(&root, "repo/inner/.git/HEAD", "ref: refs/heads/main\n");
        write(&root, "repo/inner/b.log", "the outer .gitignore stops at the nested repository");
        write(&root, "repo/inner/c.py", "x");
        std::os::unix::fs::symlink(root.join("repo/src"), root.join("repo/link")).unwrap();
        let beneath = Beneath::open(&root).unwrap();
        for start in ["", "repo", "repo/src", "norepo"] {
            let at = if start.is_empty() { root.clone() } else { root.join(start) };
            let strip = |list: Vec<String>| -> Vec<String> {
                list.into_iter()
                    .map(|path| if start.is_empty() { path } else { format!("{start}/{path}").trim_end_matches('/').to_owned() })
                    .collect()
            };
            let theirs = strip(crate_entries(&at, |_| {}));
            assert_eq!(our_entries(BeneathWalk::new(&beneath, &at).unwrap()), theirs, "defaults from {start:?}");
            let mut python = ignore::types::TypesBuilder::new();
            python.add_defaults();
            python.select("py");
            let python = python.build().unwrap();
            let theirs = strip(crate_entries(&at, |builder| {
                builder.types(python.clone()).max_depth(Some(3)).filter_entry(|entry| entry.file_name() != "node_modules");
            }));
            let ours = BeneathWalk::new(&beneath, &at)
                .unwrap()
                .types(python.clone())
                .max_depth(Some(3))
                .filter_entry(|entry| entry.file_name() != "node_modules");
            assert_eq!(our_entries(ours), theirs, "types, depth, filter from {start:?}");
            let theirs = strip(crate_entries(&at, |builder| {
                builder.standard_filters(false);
            }));
            assert_eq!(our_entries(BeneathWalk::new(&beneath, &at).unwrap().standard_filters(false)), theirs, "no filters from {start:?}");
            let theirs = strip(crate_entries(&at, |builder| {
                builder.hidden(false);
            }));
            assert_eq!(our_entries(BeneathWalk::new(&beneath, &at).unwrap().hidden(false)), theirs, "hidden listed from {start:?}");
        }
        // And what the defaults are, so both cannot be wrong together.
        let files: Vec<String> = our_entries(BeneathWalk::new(&beneath, &root).unwrap());
        for kept in ["norepo/a.log", "repo/keep.log", "repo/inner/b.log", "repo/src/main.py", "repo/link"] {
            assert!(files.contains(&kept.to_owned()), "{kept} missing from {files:?}");
        }
        for dropped in
            ["norepo/secret.txt", "repo/a.log", "repo/excluded.py", "repo/build", "repo/src/.hidden.py", "repo/.git", "repo/link/main.py"]
        {
            assert!(!files.contains(&dropped.to_owned()), "{dropped} listed: {files:?}");
        }
        // The parallel walk yields the same entries.
        let seen = Mutex::new(Vec::new());
        BeneathWalk::new(&beneath, &root).unwrap().run_parallel(
            3,
            &|entry| {
                seen.lock().push(entry.unwrap().relative().display().to_string());
                WalkState::Continue
            },
            &|_, _| {},
        );
        let mut seen = seen.into_inner();
        seen.sort();
        assert_eq!(seen, files);
    }

    /// Issue 13 §1: a directory swapped with a symlink to outside, again and again, while the
    /// tree is listed: no listing may name an outside-only file, and the outside ignore file
    /// (which would hide the inside file) is never applied.
    #[test]
    fn a_directory_swapped_for_a_symlink_while_listing_is_never_followed() {
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "sub/only_outside.txt", "x");
        write(outside.path(), "sub/.gitignore", "f.txt\n");
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        write(&root, "sub/f.txt", "inside");
        write(&root, "a.txt", "a");
        std::os::unix::fs::symlink(outside.path().join("sub"), root.join("swap")).unwrap();
        let exchange = crate::files::test_exchange::ExchangeLoop::start(root.join("sub"), root.join("swap"));
        let beneath = Beneath::open(&root).unwrap();
        let (mut listings, mut refused, mut wrong) = (0, 0, Vec::new());
        let started = std::time::Instant::now();
        while (listings + refused < 2000 && started.elapsed() < std::time::Duration::from_millis(1500))
            || (listings == 0 && started.elapsed() < std::time::Duration::from_secs(10))
        {
            match list_files_beneath(&beneath, Path::new(""), &RAY_LIKE) {
                Ok(listed) => {
                    listings += 1;
                    // `sub` may be listed as the directory (with f.txt) or skipped as the symlink;
                    // `swap` likewise. Never an outside-only name, never f.txt hidden by the outside rule.
                    let allowed: [&[&str]; 4] =
                        [&["a.txt", "sub/f.txt"], &["a.txt", "swap/f.txt"], &["a.txt"], &["a.txt", "sub/f.txt", "swap/f.txt"]];
                    let shown: Vec<String> = listed.iter().map(|path| path.display().to_string()).collect();
                    if !allowed.iter().any(|allowed| shown == *allowed) {
                        wrong.push(shown);
                    }
                }
                Err(BeneathError::SymlinkOnPath { .. }) => refused += 1,
                Err(BeneathError::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => refused += 1,
                Err(other) => panic!("unexpected error: {other}"),
            }
        }
        let swaps = exchange.finish();
        assert!(swaps > 0 && listings > 0, "{swaps} swaps, {listings} listings");
        assert!(wrong.is_empty(), "{} of {listings} listings went outside, e.g. {:?}", wrong.len(), wrong.first());
    }
}
