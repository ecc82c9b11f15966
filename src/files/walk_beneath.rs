//! A `.gitignore`-aware listing of the files under a directory, done beneath a root handle with
//! no symlink followed at use time (issue 13 §1).
//!
//! `ignore::WalkBuilder` lists by path: it `stat`s an entry, then reads the directory by its
//! path from `/`, and reads each `.gitignore` / `.ignore` it meets by path too. A workspace
//! directory swapped for a symlink to outside between those steps (a concurrent
//! `renameat2(RENAME_EXCHANGE)`) makes it list the outside directory and read the outside
//! ignore files. This walk asks the same questions through [`Beneath`]: every directory is
//! opened beneath the root handle (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` or an
//! `O_NOFOLLOW` walk) and read through that handle, entry types come from the directory itself
//! (`d_type`, else `fstatat(AT_SYMLINK_NOFOLLOW)` in the open directory), and ignore files are
//! read beneath the root like any other file. A directory replaced by a symlink while it is
//! walked fails the walk ([`BeneathError::SymlinkOnPath`]) instead of being followed; a symlink
//! present when its parent is listed is skipped, as `follow_links(false)` does.
//!
//! Matching is the `ignore` crate's own (`ignore::gitignore`), with its precedence: a match in an
//! `.ignore` file (any level, innermost first) wins over one in a `.gitignore`, which wins over
//! `.git/info/exclude`; as with the crate's `require_git(false)`, `.gitignore` files apply
//! without a repository and across nested repositories. Not read: ignore files above the walked
//! directory, the global git excludes file, ignore files that are symlinks (the crate would
//! follow them; here they would lead out of the root).

use std::io::Read;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::files::beneath::{Beneath, BeneathError};

/// What [`list_files_beneath`] lists and skips.
#[derive(Debug, Clone)]
pub(crate) struct WalkOptions<'a> {
    /// List hidden entries (names starting with `.`) and walk hidden directories.
    pub(crate) hidden: bool,
    /// Entry names never listed nor walked, at any depth (e.g. `.git`, `node_modules`).
    pub(crate) skip_names: &'a [&'a str],
}

/// The ignore rules of one directory of the walk.
struct DirectoryRules {
    /// From its `.ignore`.
    dot_ignore: Gitignore,
    /// From its `.gitignore`.
    git_ignore: Gitignore,
    /// From `.git/info/exclude` when it holds a `.git`.
    git_exclude: Gitignore,
}

/// The root-relative paths of the regular files under `start` (root-relative; empty: the root)
/// that the walk keeps, sorted. Symlinks are skipped (never followed), as are entries named in
/// `options.skip_names`, hidden entries unless `options.hidden`, and what the ignore files say.
///
/// # Errors
/// The first directory that cannot be opened or read beneath the root: a symlink on its path
/// now ([`BeneathError::SymlinkOnPath`]: it was swapped after its parent was listed), removed
/// meanwhile, or unreadable. Unreadable or unparsable ignore files are skipped, as the `ignore`
/// crate skips them.
pub(crate) fn list_files_beneath(beneath: &Beneath, start: &Path, options: &WalkOptions<'_>) -> Result<Vec<PathBuf>, BeneathError> {
    let mut files = Vec::new();
    let mut rules: Vec<DirectoryRules> = Vec::new();
    walk_directory(beneath, start, options, &mut rules, &mut files)?;
    files.sort();
    Ok(files)
}

fn walk_directory(
    beneath: &Beneath,
    directory: &Path,
    options: &WalkOptions<'_>,
    rules: &mut Vec<DirectoryRules>,
    files: &mut Vec<PathBuf>,
) -> Result<(), BeneathError> {
    let entries = beneath.list_entries(directory)?;
    let has_git = entries.iter().any(|(name, _)| name == ".git");
    let absolute = beneath.root().join(directory);
    rules.push(DirectoryRules {
        dot_ignore: ignore_file_rules(beneath, directory, &absolute, ".ignore"),
        git_ignore: ignore_file_rules(beneath, directory, &absolute, ".gitignore"),
        git_exclude: if has_git { git_exclude_rules(beneath, directory, &absolute) } else { Gitignore::empty() },
    });
    for (name, kind) in entries {
        let Some(text) = name.to_str() else { continue };
        if options.skip_names.contains(&text) || (!options.hidden && text.starts_with('.')) {
            continue;
        }
        let is_dir = kind == rustix::fs::FileType::Directory;
        if !is_dir && kind != rustix::fs::FileType::RegularFile {
            // Symlinks (never followed), sockets, FIFOs, devices.
            continue;
        }
        let relative = directory.join(&name);
        if is_ignored(rules, &beneath.root().join(&relative), is_dir) {
            continue;
        }
        if is_dir {
            walk_directory(beneath, &relative, options, rules, files)?;
        } else {
            files.push(relative);
        }
    }
    rules.pop();
    Ok(())
}

/// The `ignore` crate's decision for `path` (absolute) given the rules of its directory and
/// every directory above it in the walk (`rules`, outermost first).
fn is_ignored(rules: &[DirectoryRules], path: &Path, is_dir: bool) -> bool {
    let (mut dot_ignore, mut git_ignore, mut git_exclude) = (Match::None, Match::None, Match::None);
    for directory in rules.iter().rev() {
        if dot_ignore.is_none() {
            dot_ignore = directory.dot_ignore.matched(path, is_dir).map(|_| ());
        }
        if git_ignore.is_none() {
            git_ignore = directory.git_ignore.matched(path, is_dir).map(|_| ());
        }
        if git_exclude.is_none() {
            git_exclude = directory.git_exclude.matched(path, is_dir).map(|_| ());
        }
    }
    for decided in [dot_ignore, git_ignore, git_exclude] {
        if !decided.is_none() {
            return decided.is_ignore();
        }
    }
    false
}

/// The rules of `directory/name` read beneath the root (empty when absent, a symlink, not
/// UTF-8 or unreadable).
fn ignore_file_rules(beneath: &Beneath, directory: &Path, absolute_directory: &Path, name: &str) -> Gitignore {
    match read_text(beneath, &directory.join(name)) {
        Some(text) => rules_from_text(absolute_directory, &absolute_directory.join(name), &text),
        None => Gitignore::empty(),
    }
}

/// `.git/info/exclude` of a repository root (`.git` a directory beneath the root), or of the
/// common git directory of a worktree (`.git` a file `gitdir: <path>`, whose `commondir` names
/// the repository's git directory: read beneath a handle of that directory, as git's own
/// metadata outside the walked tree).
fn git_exclude_rules(beneath: &Beneath, directory: &Path, absolute_directory: &Path) -> Gitignore {
    let dot_git = directory.join(".git");
    if let Some(text) = read_text(beneath, &dot_git.join("info/exclude")) {
        return rules_from_text(absolute_directory, &absolute_directory.join(".git/info/exclude"), &text);
    }
    let Some(pointer) = read_text(beneath, &dot_git) else { return Gitignore::empty() };
    let Some(git_dir) =
        pointer.lines().next().and_then(|line| line.strip_prefix("gitdir: ")).map(|path| absolute_directory.join(path.trim()))
    else {
        return Gitignore::empty();
    };
    let Ok(git_dir_handle) = Beneath::open(&git_dir) else { return Gitignore::empty() };
    let Some(common) = read_text(&git_dir_handle, Path::new("commondir")) else { return Gitignore::empty() };
    let common_dir = crate::files::path::lexically_normal(&git_dir.join(common.lines().next().unwrap_or("").trim()));
    let Ok(common_handle) = Beneath::open(&common_dir) else { return Gitignore::empty() };
    match read_text(&common_handle, Path::new("info/exclude")) {
        Some(text) => rules_from_text(absolute_directory, &common_dir.join("info/exclude"), &text),
        None => Gitignore::empty(),
    }
}

fn rules_from_text(absolute_directory: &Path, file: &Path, text: &str) -> Gitignore {
    let mut builder = GitignoreBuilder::new(absolute_directory);
    for line in text.lines() {
        // A line that is not a valid glob is skipped, as the crate skips it.
        let _ = builder.add_line(Some(file.to_path_buf()), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The text of the regular file `relative` beneath `beneath` (`None`: absent, a symlink on the
/// way, not a regular file, unreadable, not UTF-8).
fn read_text(beneath: &Beneath, relative: &Path) -> Option<String> {
    let (mut file, metadata) = beneath.open_read(relative).ok()?;
    if !metadata.is_file() {
        return None;
    }
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    Some(text)
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
