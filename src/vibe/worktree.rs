//! `isolation: "worktree"`: a worker attempt runs in a fresh `git worktree` of the workspace, and
//! what it changed comes back as a diff against the worktree's base.
//!
//! The base is "HEAD plus the uncommitted changes": a commit made without touching the user's
//! index, working tree or stash — the repository's index is copied to a private file,
//! `git add -A` runs against that copy (`GIT_INDEX_FILE`; ignored files stay out), `write-tree`
//! and `commit-tree` (parent HEAD) make the commit, and `git worktree add -b <branch>` checks
//! it out into a private temp dir (mode 0700). The worker's working directory is the
//! workspace's place inside that checkout (the workspace may be a subdirectory of the repository).
//!
//! The changes of an attempt are read the same way: the worktree's index is copied, `git add -A`
//! records the worktree's files in the copy, and `git diff --cached --raw --no-renames` against
//! the base names every added, modified and deleted file; the old and new bytes come from
//! `git cat-file --batch`, i.e. exactly what git hashed. Symlinks, submodules and files outside
//! the workspace are named and left out (a staged change writes regular files inside the
//! workspace only).
//!
//! Every git command runs through [`crate::transport::process`] (the only place that spawns),
//! with hooks and fsmonitor turned off (`-c core.hooksPath=/dev/null -c core.fsmonitor=false`:
//! nothing the checkout provides is executed), no terminal prompts, and `GIT_DIR`,
//! `GIT_WORK_TREE` and `GIT_INDEX_FILE` removed from the inherited environment. The `git` binary
//! was chosen over a library: `git2` builds libgit2 (C) and `gix` adds well over a hundred crates
//! and minutes of build on 2 cores, while every machine that has a git checkout has `git`; the
//! operations here are a handful of plumbing commands with stable output formats.
//!
//! Dropping a [`Worktree`] removes it: `git worktree remove --force`, `git branch -D`, then the
//! temp dir.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::transport::process::{run_to_completion, ProcessSpec};

/// Longest a single git command may run (a first `git add -A` of a large repository hashes every
/// changed file).
const GIT_TIMEOUT: Duration = Duration::from_secs(300);
/// Most bytes read from one git command's stdout (blob contents of a large change included).
const GIT_OUTPUT_MAX_BYTES: usize = 512 * 1024 * 1024;
/// Serializes this process's `git worktree add` / `remove` (see [`Worktree::create`]).
static WORKTREE_ADMIN_LOCK: parking_lot::Mutex<()> = parking_lot::Mutex::new(());
/// Identity of the base commits (`commit-tree` refuses to run without one).
const GIT_IDENTITY_NAME: &str = "runbound";
const GIT_IDENTITY_EMAIL: &str = "runbound@localhost";

/// The git repository a workspace lives in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitWorkspace {
    /// The repository's top-level directory (absolute).
    pub(crate) toplevel: PathBuf,
    /// The workspace's path relative to `toplevel` (empty when the workspace is the top level).
    pub(crate) prefix: PathBuf,
}

impl GitWorkspace {
    /// The git repository `workspace_root` belongs to.
    ///
    /// # Errors
    /// A message for the model when `git` is missing, the workspace is not inside a git
    /// repository, or the repository has no commit yet.
    pub(crate) fn probe(workspace_root: &Path) -> Result<GitWorkspace, String> {
        let output = git(workspace_root, &["rev-parse", "--show-toplevel", "--show-prefix"], &[], b"").map_err(|err| {
            if err.contains("not a git repository") {
                format!(
                    "isolation \"worktree\" needs a git repository, and the workspace {} is not inside one; spawn without \
                     isolation, or run `git init` and commit the workspace first",
                    workspace_root.display()
                )
            } else {
                format!("isolation \"worktree\": cannot inspect the workspace's git repository: {err}")
            }
        })?;
        let text = String::from_utf8_lossy(&output);
        let mut lines = text.lines();
        let toplevel = PathBuf::from(lines.next().unwrap_or_default().trim());
        let prefix = PathBuf::from(lines.next().unwrap_or_default().trim().trim_end_matches('/'));
        if !toplevel.is_absolute() {
            return Err(format!("isolation \"worktree\": git named no top-level directory for {}", workspace_root.display()));
        }
        if let Err(err) = git(&toplevel, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], &[], b"") {
            return Err(format!(
                "isolation \"worktree\" starts from HEAD, and the repository at {} has no commit yet ({}); commit once, then spawn again",
                toplevel.display(),
                err.lines().next().unwrap_or("HEAD does not resolve")
            ));
        }
        Ok(GitWorkspace { toplevel, prefix })
    }
}

/// A private `git worktree` of a workspace, removed on drop.
#[derive(Debug)]
pub(crate) struct Worktree {
    repo: GitWorkspace,
    /// Holds the private temp dir (mode 0700) the worktree lives in.
    dir: Option<tempfile::TempDir>,
    /// The worktree's top level (inside `dir`).
    root: PathBuf,
    branch: String,
    base_commit: String,
    removed: AtomicBool,
}

/// One file an attempt changed, relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChangedFile {
    /// Path relative to the workspace root.
    pub(crate) relative_path: PathBuf,
    /// The bytes at the base; `None` when the attempt created the file.
    pub(crate) old: Option<Vec<u8>>,
    /// The bytes now; `None` when the attempt deleted the file.
    pub(crate) new: Option<Vec<u8>>,
    /// Set when the file's executable bit differs from the base (not carried by the staged
    /// change; said in the result).
    pub(crate) mode_note: Option<String>,
}

/// What an attempt changed in its worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WorktreeChanges {
    /// Added, modified and deleted regular files inside the workspace, in path order.
    pub(crate) files: Vec<ChangedFile>,
    /// Changes that cannot be staged, each with the reason (symlinks, submodules, files outside
    /// the workspace).
    pub(crate) left_out: Vec<String>,
}

impl Worktree {
    /// Makes the base commit of the workspace's current state (HEAD plus uncommitted changes,
    /// ignored files excepted) and checks it out on a new branch `runbound/<worker_id>-<nonce>`
    /// in a private temp dir.
    ///
    /// # Errors
    /// What git said, for the model.
    pub(crate) fn create(repo: &GitWorkspace, worker_id: &str) -> Result<Worktree, String> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("runbound-worktree-{worker_id}-"))
            .tempdir()
            .map_err(|err| format!("cannot create a private temp dir for the worktree: {err}"))?;
        let base_commit = snapshot_commit(repo, dir.path(), worker_id)?;
        refuse_symlinks_leaving_the_worktree(repo, &base_commit)?;
        let name = repo.toplevel.file_name().map_or_else(|| "workspace".into(), |name| name.to_os_string());
        let root = dir.path().join(name);
        let branch = format!("runbound/{worker_id}-{}", unique_suffix());
        let root_arg = root.as_os_str().to_owned();
        // `git worktree add` names its admin dir `.git/worktrees/<basename>` with a
        // check-then-create that races when several adds run at once (found with 4 workers
        // starting together on python-dateutil: "failed to read .git/worktrees/…/commondir");
        // adds and removes of this process take turns.
        let _turn = WORKTREE_ADMIN_LOCK.lock();
        git_os(
            &repo.toplevel,
            &[
                OsString::from("worktree"),
                OsString::from("add"),
                OsString::from("--quiet"),
                OsString::from("-b"),
                OsString::from(&branch),
                root_arg,
                OsString::from(&base_commit),
            ],
            &[],
            b"",
        )
        .map_err(|err| format!("git worktree add failed: {err}"))?;
        Ok(Worktree { repo: repo.clone(), dir: Some(dir), root, branch, base_commit, removed: AtomicBool::new(false) })
    }

    /// Where the worker works: the workspace's place inside the worktree.
    pub(crate) fn working_dir(&self) -> PathBuf {
        self.root.join(&self.repo.prefix)
    }

    /// The worktree's top level.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The branch the worktree is on.
    pub(crate) fn branch(&self) -> &str {
        &self.branch
    }

    /// What changed in the worktree since its base, inside the workspace.
    ///
    /// # Errors
    /// What git said, for the model.
    pub(crate) fn changes(&self) -> Result<WorktreeChanges, String> {
        let scratch = self.dir.as_ref().map_or_else(std::env::temp_dir, |dir| dir.path().to_path_buf());
        let index = scratch.join(format!("changes-index-{}", unique_suffix()));
        let result = self.changes_with_index(&index);
        let _ = std::fs::remove_file(&index);
        result
    }

    fn changes_with_index(&self, index: &Path) -> Result<WorktreeChanges, String> {
        copy_index(&self.root, index)?;
        let index_env = [(OsString::from("GIT_INDEX_FILE"), index.as_os_str().to_owned())];
        git_os(&self.root, &[OsString::from("add"), OsString::from("-A")], &index_env, b"")
            .map_err(|err| format!("git add -A in the worktree failed: {err}"))?;
        let raw = git_os(
            &self.root,
            &[
                OsString::from("diff"),
                OsString::from("--cached"),
                OsString::from("--raw"),
                OsString::from("-z"),
                OsString::from("--no-renames"),
                OsString::from("--no-abbrev"),
                OsString::from(&self.base_commit),
            ],
            &index_env,
            b"",
        )
        .map_err(|err| format!("git diff in the worktree failed: {err}"))?;
        let entries = parse_raw_diff(&raw)?;
        let mut changes = WorktreeChanges::default();
        let mut wanted: Vec<&str> = Vec::new();
        let mut kept: Vec<(&RawEntry, PathBuf)> = Vec::new();
        for entry in &entries {
            let Some(relative) = inside_prefix(&entry.path, &self.repo.prefix) else {
                changes.left_out.push(format!("{} (outside the workspace, which is {} of the repository)", entry.path, self.prefix_text()));
                continue;
            };
            if let Some(reason) = unstageable(entry) {
                changes.left_out.push(format!("{} ({reason})", relative.display()));
                continue;
            }
            if entry.old_oid != NULL_OID {
                wanted.push(&entry.old_oid);
            }
            if entry.new_oid != NULL_OID {
                wanted.push(&entry.new_oid);
            }
            kept.push((entry, relative));
        }
        let blobs = read_blobs(&self.root, &wanted)?;
        for (entry, relative) in kept {
            let old = (entry.old_oid != NULL_OID).then(|| blobs.get(&entry.old_oid).cloned()).flatten();
            let new = (entry.new_oid != NULL_OID).then(|| blobs.get(&entry.new_oid).cloned()).flatten();
            if (entry.old_oid != NULL_OID && old.is_none()) || (entry.new_oid != NULL_OID && new.is_none()) {
                return Err(format!("git cat-file did not return the contents of {}", entry.path));
            }
            let mode_note = (entry.old_mode != "000000" && entry.new_mode != "000000" && entry.old_mode != entry.new_mode)
                .then(|| format!("mode {} → {} not carried over", entry.old_mode, entry.new_mode));
            if old == new {
                // A mode-only change: nothing for a content change to write.
                if let Some(note) = mode_note {
                    changes.left_out.push(format!("{} ({note}: a staged change writes contents only)", relative.display()));
                }
                continue;
            }
            changes.files.push(ChangedFile { relative_path: relative, old, new, mode_note });
        }
        changes.files.sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
        Ok(changes)
    }

    fn prefix_text(&self) -> String {
        if self.repo.prefix.as_os_str().is_empty() {
            "the top level".to_owned()
        } else {
            format!("{}/", self.repo.prefix.display())
        }
    }

    /// Removes the worktree, its branch and its temp dir. Idempotent.
    ///
    /// # Errors
    /// What git said when the worktree could not be unregistered (the temp dir is removed
    /// anyway; `git worktree prune` cleans the registration later).
    pub(crate) fn remove(&self) -> Result<(), String> {
        if self.removed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let mut problems = Vec::new();
        let _turn = WORKTREE_ADMIN_LOCK.lock();
        if let Err(err) = git_os(
            &self.repo.toplevel,
            &[OsString::from("worktree"), OsString::from("remove"), OsString::from("--force"), self.root.as_os_str().to_owned()],
            &[],
            b"",
        ) {
            problems.push(format!("git worktree remove: {err}"));
            let _ = std::fs::remove_dir_all(&self.root);
            let _ = git(&self.repo.toplevel, &["worktree", "prune"], &[], b"");
        }
        if let Err(err) = git(&self.repo.toplevel, &["branch", "-D", "--quiet", &self.branch], &[], b"") {
            problems.push(format!("git branch -D {}: {err}", self.branch));
        }
        match problems.is_empty() {
            true => Ok(()),
            false => Err(problems.join("; ")),
        }
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let _ = self.remove();
        // The TempDir removes the (now empty or leftover) private directory.
        drop(self.dir.take());
    }
}

/// The base commit: the workspace's tracked and untracked (not ignored) files as they are now,
/// with HEAD as parent; HEAD itself when nothing is uncommitted.
fn snapshot_commit(repo: &GitWorkspace, scratch: &Path, worker_id: &str) -> Result<String, String> {
    let head = git_text(&repo.toplevel, &["rev-parse", "--verify", "HEAD^{commit}"])?;
    let index = scratch.join("snapshot-index");
    copy_index(&repo.toplevel, &index)?;
    let index_env = [(OsString::from("GIT_INDEX_FILE"), index.as_os_str().to_owned())];
    let result = (|| {
        git_os(&repo.toplevel, &[OsString::from("add"), OsString::from("-A")], &index_env, b"")
            .map_err(|err| format!("git add -A (into a private index) failed: {err}"))?;
        let tree = String::from_utf8_lossy(&git_os(&repo.toplevel, &[OsString::from("write-tree")], &index_env, b"")?).trim().to_owned();
        let head_tree = git_text(&repo.toplevel, &["rev-parse", "--verify", "HEAD^{tree}"])?;
        if tree == head_tree {
            return Ok(head.clone());
        }
        let message = format!("runbound: the workspace as {worker_id} found it (HEAD plus uncommitted changes)");
        let commit = git(&repo.toplevel, &["commit-tree", &tree, "-p", &head, "-m", &message], &[], b"")?;
        Ok(String::from_utf8_lossy(&commit).trim().to_owned())
    })();
    let _ = std::fs::remove_file(&index);
    result
}

/// Most symlinks named in the refusal of [`refuse_symlinks_leaving_the_worktree`].
const SYMLINKS_NAMED: usize = 5;

/// Refuses a base whose tree holds a symlink that leads out of the worktree: an absolute target
/// (in the worktree it names the real file system — the real workspace itself, or a place
/// outside it), or a relative one whose `..` climb above the repository's top level. git
/// records a symlink as it finds it, so a workspace directory swapped for a symlink to outside
/// while the snapshot was taken (issue 13 §1), or a checkout that holds such a link, would give
/// the worker — an approved, unsandboxed process — a path out of its isolation: it would read and
/// write outside files through it, and a write through a link to the workspace would bypass the
/// staged change. Symlinks that stay inside the checkout are fine.
///
/// # Errors
/// The links (up to 5, path relative to the repository's top level and target), why, and the
/// next step.
fn refuse_symlinks_leaving_the_worktree(repo: &GitWorkspace, commit: &str) -> Result<(), String> {
    let listing = git(&repo.toplevel, &["ls-tree", "-r", "-z", "--full-tree", commit], &[], b"")?;
    // `<mode> SP <type> SP <oid> TAB <path>` per entry, NUL-terminated.
    let links: Vec<(String, String)> = listing
        .split(|&byte| byte == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (header, path) = entry.split_once('\t')?;
            let mut fields = header.split(' ');
            if fields.next()? != "120000" {
                return None;
            }
            Some((fields.nth(1)?.to_owned(), path.to_owned()))
        })
        .collect();
    if links.is_empty() {
        return Ok(());
    }
    let oids: Vec<&str> = links.iter().map(|(oid, _)| oid.as_str()).collect();
    let targets = read_blobs(&repo.toplevel, &oids)?;
    let leaving: Vec<String> = links
        .iter()
        .filter_map(|(oid, path)| {
            let target = String::from_utf8_lossy(targets.get(oid)?).into_owned();
            symlink_leaves_checkout(Path::new(path), Path::new(&target)).then(|| format!("{path} -> {target}"))
        })
        .collect();
    if leaving.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = leaving.iter().take(SYMLINKS_NAMED).map(String::as_str).collect();
    let more = if leaving.len() > SYMLINKS_NAMED { format!(" and {} more", leaving.len() - SYMLINKS_NAMED) } else { String::new() };
    Err(format!(
        "isolation \"worktree\" refused: the workspace as found holds {} symlink{} leading out of the checkout ({}{more}); in a worktree \
         the worker would read and write outside files (or the real workspace) through {}. Next step: replace or remove {} (an \
         untracked one can also go into .gitignore), or if a directory was being swapped for a symlink, wait for it to settle and spawn \
         again; or spawn with isolation \"none\"",
        leaving.len(),
        if leaving.len() == 1 { "" } else { "s" },
        shown.join(", "),
        if leaving.len() == 1 { "it" } else { "them" },
        if leaving.len() == 1 { "the link" } else { "the links" },
    ))
}

/// Whether a symlink at `path` (relative to the top level) with `target` leads out of the
/// checkout: an absolute target, or `..` climbing above the top level (lexically, as the link is
/// resolved from its directory; links to links inside the checkout are checked on their own).
fn symlink_leaves_checkout(path: &Path, target: &Path) -> bool {
    if target.is_absolute() {
        return true;
    }
    let mut depth = path.parent().map_or(0, |parent| parent.components().count()) as isize;
    for component in target.components() {
        match component {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return true,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// Copies the index of the repository or worktree at `dir` to `destination` (so `git add -A`
/// into the copy only hashes files whose stat data changed); an absent index is fine.
fn copy_index(dir: &Path, destination: &Path) -> Result<(), String> {
    let index_path = git_text(dir, &["rev-parse", "--path-format=absolute", "--git-path", "index"])?;
    match std::fs::copy(&index_path, destination) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            // No index yet: start from HEAD's tree.
            let env = [(OsString::from("GIT_INDEX_FILE"), destination.as_os_str().to_owned())];
            git_os(dir, &[OsString::from("read-tree"), OsString::from("HEAD")], &env, b"").map(|_| ())
        }
        Err(err) => Err(format!("cannot copy the git index {index_path}: {err}")),
    }
}

const NULL_OID: &str = "0000000000000000000000000000000000000000";

#[derive(Debug, Clone, PartialEq, Eq)]
struct RawEntry {
    old_mode: String,
    new_mode: String,
    old_oid: String,
    new_oid: String,
    status: char,
    path: String,
}

/// Parses `git diff --raw -z --no-abbrev` output: `:<old mode> <new mode> <old oid> <new oid>
/// <status>\0<path>\0` per entry (no renames, so one path each).
fn parse_raw_diff(raw: &[u8]) -> Result<Vec<RawEntry>, String> {
    let mut entries = Vec::new();
    let mut fields = raw.split(|&byte| byte == 0).filter(|field| !field.is_empty());
    while let Some(header) = fields.next() {
        let header = String::from_utf8_lossy(header);
        let Some(header) = header.strip_prefix(':') else {
            return Err(format!("unexpected git diff --raw output: {header:?}"));
        };
        let parts: Vec<&str> = header.split(' ').collect();
        let [old_mode, new_mode, old_oid, new_oid, status] = parts.as_slice() else {
            return Err(format!("unexpected git diff --raw header: {header:?}"));
        };
        let Some(path) = fields.next() else {
            return Err(format!("git diff --raw header without a path: {header:?}"));
        };
        let path = String::from_utf8(path.to_vec()).map_err(|_| "a changed path is not UTF-8; it cannot be staged".to_owned())?;
        let null = if old_oid.len() == 64 { "0".repeat(64) } else { NULL_OID.to_owned() };
        let normalize = |oid: &str| if oid == null { NULL_OID.to_owned() } else { oid.to_owned() };
        entries.push(RawEntry {
            old_mode: (*old_mode).to_owned(),
            new_mode: (*new_mode).to_owned(),
            old_oid: normalize(old_oid),
            new_oid: normalize(new_oid),
            status: status.chars().next().unwrap_or('?'),
            path,
        });
    }
    Ok(entries)
}

/// Why an entry cannot be staged as a regular-file change, if it cannot.
fn unstageable(entry: &RawEntry) -> Option<&'static str> {
    let kind = |mode: &str| match mode {
        "120000" => Some("a symlink: staged changes write regular files only"),
        "160000" => Some("a submodule: staged changes write regular files only"),
        _ => None,
    };
    kind(&entry.new_mode).or_else(|| kind(&entry.old_mode))
}

/// `path` (relative to the repository top level, `/`-separated) relative to the workspace
/// `prefix`, or `None` when it lies outside the workspace or is not a plain relative path.
fn inside_prefix(path: &str, prefix: &Path) -> Option<PathBuf> {
    let path = Path::new(path);
    let relative = if prefix.as_os_str().is_empty() { path } else { path.strip_prefix(prefix).ok()? };
    let plain = relative.components().all(|component| matches!(component, Component::Normal(_)));
    (plain && !relative.as_os_str().is_empty()).then(|| relative.to_path_buf())
}

/// The contents of `oids` (blobs), read with one `git cat-file --batch`.
fn read_blobs(dir: &Path, oids: &[&str]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut blobs = BTreeMap::new();
    if oids.is_empty() {
        return Ok(blobs);
    }
    let mut input = String::new();
    for oid in oids {
        input.push_str(oid);
        input.push('\n');
    }
    let output = git(dir, &["cat-file", "--batch"], &[], input.as_bytes())?;
    let mut rest = output.as_slice();
    while !rest.is_empty() {
        let Some(newline) = rest.iter().position(|&byte| byte == b'\n') else { break };
        let header = String::from_utf8_lossy(&rest[..newline]).into_owned();
        rest = &rest[newline + 1..];
        let parts: Vec<&str> = header.split(' ').collect();
        let [oid, _kind, size] = parts.as_slice() else {
            return Err(format!("git cat-file --batch said {header:?}"));
        };
        let size: usize = size.parse().map_err(|_| format!("git cat-file --batch said {header:?}"))?;
        if rest.len() < size {
            return Err(format!("git cat-file --batch output ended inside blob {oid}"));
        }
        blobs.insert((*oid).to_owned(), rest[..size].to_vec());
        rest = &rest[size..];
        // Each blob is followed by a newline.
        rest = rest.strip_prefix(b"\n").unwrap_or(rest);
    }
    Ok(blobs)
}

fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.subsec_nanos());
    format!("{:x}{:04x}{:x}", std::process::id(), nanos & 0xffff, COUNTER.fetch_add(1, Ordering::Relaxed))
}

fn git_text(dir: &Path, args: &[&str]) -> Result<String, String> {
    git(dir, args, &[], b"").map(|output| String::from_utf8_lossy(&output).trim().to_owned())
}

fn git(dir: &Path, args: &[&str], env: &[(OsString, OsString)], stdin: &[u8]) -> Result<Vec<u8>, String> {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    git_os(dir, &args, env, stdin)
}

/// Runs `git -C <dir> <args>` through the process layer with hooks and fsmonitor off and no
/// prompts; stdout on success, else a message with the exit status and stderr.
pub(crate) fn git_os(dir: &Path, args: &[OsString], env: &[(OsString, OsString)], stdin: &[u8]) -> Result<Vec<u8>, String> {
    let mut spec = ProcessSpec::new("git", dir)
        .with_args(["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "advice.detachedHead=false"])
        .with_args(args.iter().cloned())
        .with_env("GIT_TERMINAL_PROMPT", "0")
        .with_env("GIT_EDITOR", "true")
        .with_env("GIT_PAGER", "cat")
        .with_env("LC_ALL", "C")
        .with_env("GIT_AUTHOR_NAME", GIT_IDENTITY_NAME)
        .with_env("GIT_AUTHOR_EMAIL", GIT_IDENTITY_EMAIL)
        .with_env("GIT_COMMITTER_NAME", GIT_IDENTITY_NAME)
        .with_env("GIT_COMMITTER_EMAIL", GIT_IDENTITY_EMAIL)
        .with_env_remove("GIT_DIR")
        .with_env_remove("GIT_WORK_TREE")
        .with_env_remove("GIT_INDEX_FILE")
        .with_env_remove("GIT_OBJECT_DIRECTORY")
        .with_env_remove("GIT_COMMON_DIR")
        .with_display_name(format!("git {}", args.first().map(|arg| arg.to_string_lossy().into_owned()).unwrap_or_default()));
    for (key, value) in env {
        spec = spec.with_env(key.clone(), value.clone());
    }
    let completed = run_to_completion(spec, stdin, GIT_TIMEOUT, GIT_OUTPUT_MAX_BYTES).map_err(|err| {
        if err.kind == crate::error::ErrorKind::NotFound {
            format!("git is not installed or not on PATH ({})", err.message)
        } else {
            err.message
        }
    })?;
    let args_text: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
    if completed.timed_out {
        return Err(format!("`git {}` did not finish within {} s and was killed", args_text.join(" "), GIT_TIMEOUT.as_secs()));
    }
    if completed.stdout_total_bytes > completed.stdout.len() as u64 {
        return Err(format!(
            "`git {}` wrote more than {} MiB; the change is too large to stage",
            args_text.join(" "),
            GIT_OUTPUT_MAX_BYTES / (1024 * 1024)
        ));
    }
    if !completed.status.success() {
        let stderr = String::from_utf8_lossy(&completed.stderr);
        return Err(format!("`git {}` failed ({}): {}", args_text.join(" "), completed.status, stderr.trim()));
    }
    Ok(completed.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_diff_entries_and_workspace_prefix() {
        let raw = b":100644 100644 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 M\0sub/a.txt\0:000000 100755 0000000000000000000000000000000000000000 3333333333333333333333333333333333333333 A\0sub/new.sh\0:120000 000000 4444444444444444444444444444444444444444 0000000000000000000000000000000000000000 D\0link\0";
        let entries = parse_raw_diff(raw).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!((entries[0].status, entries[0].path.as_str()), ('M', "sub/a.txt"));
        assert_eq!(entries[1].old_oid, NULL_OID);
        assert_eq!(unstageable(&entries[2]), Some("a symlink: staged changes write regular files only"));
        assert_eq!(inside_prefix("sub/a.txt", Path::new("sub")), Some(PathBuf::from("a.txt")));
        assert_eq!(inside_prefix("other/a.txt", Path::new("sub")), None);
        assert_eq!(inside_prefix("a.txt", Path::new("")), Some(PathBuf::from("a.txt")));
        assert!(parse_raw_diff(b"garbage\0").is_err());
    }

    #[test]
    fn symlinks_leave_the_checkout_when_absolute_or_climbing_above_the_top_level() {
        let leaves = |path: &str, target: &str| symlink_leaves_checkout(Path::new(path), Path::new(target));
        assert!(leaves("sub", "/tmp/outside/sub"));
        assert!(leaves("a/b/link", "/work/ws/a"), "an absolute link into the workspace names the real one, not the worktree's");
        assert!(leaves("link", "../x"));
        assert!(leaves("a/link", "../../x"));
        assert!(leaves("a/link", "b/../../../x"), "climbing out in the middle counts");
        assert!(!leaves("a/link", "../x"));
        assert!(!leaves("a/b/link", "../../c/d"));
        assert!(!leaves("link", "a.txt"));
        assert!(!leaves("link", "./a/./b"));
    }
}
