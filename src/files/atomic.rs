//! All-or-nothing file changes: every expected state verified first, each file written through a
//! temp file in its own directory and renamed into place (permissions and ownership kept), and
//! every file already touched restored when a later one fails.
//!
//! Every access goes through directory handles beneath the root ([`crate::files::beneath`]):
//! each change's parent directory is opened once with no symlink followed on the way, its
//! current content is read through that handle, and the temp file, the rename and the delete
//! happen by name inside it. A directory swapped for a symlink after the change was planned
//! makes the commit fail with nothing written; it never redirects a write. Files that the
//! process may not write by their mode bits are refused (also as root).
//!
//! Commits in one process are serialized by a global lock, so the verify-then-write of one
//! commit cannot interleave with another's. Another process may still change a file's content
//! between the check and the rename; the expected-state check narrows that window, it does not
//! close it.

use std::fs::{self, Permissions};
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::files::beneath::{mode_text, writable_by_mode, Beneath, BeneathError, ParentDir};
use crate::render::display_path;

/// What a path must hold before a change is committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectedState {
    /// Whatever is there (or nothing).
    Any,
    /// Nothing: the path must not exist (not even as a dangling symlink).
    Absent,
    /// A regular file with exactly these bytes.
    Content(Vec<u8>),
}

/// One file's change: `new_content: None` deletes the file.
///
/// `path` must be absolute; take it from [`crate::files::resolve_in_workspace`], which has
/// already resolved symlinks: a commit follows no symlink at all, so a path with one on it is
/// refused (a symlink at `path` itself is not replaced either).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Absolute path of the file to write or delete.
    pub path: PathBuf,
    /// The file's new bytes, or `None` to delete it.
    pub new_content: Option<Vec<u8>>,
    /// What the path must hold before anything is written.
    pub expected: ExpectedState,
}

/// Commits all changes or none: verifies every `expected` first (any mismatch →
/// [`ErrorKind::Conflict`] listing every changed file, nothing written), refuses files without
/// write permission by their mode bits, then writes each via temp + rename keeping permissions,
/// creating parent dirs; on any failure restores every file already touched. Returns the
/// absolute paths written or deleted.
///
/// Symlinks in the existing prefix of each path's parent directory are resolved first (this
/// variant has no workspace to confine to); from then on nothing is followed. Paths in error
/// messages are absolute; [`commit_file_changes_in`] shows them relative to a workspace root
/// and confines them to it.
///
/// # Errors
/// - [`ErrorKind::InvalidArguments`]: a path is relative, or two changes name the same path.
/// - [`ErrorKind::Conflict`]: an expected state does not hold, or a file is read-only by its
///   mode bits (`details.conflicts` lists each file with what was expected and what was found,
///   `details.read_only` each read-only file and its mode); nothing was written. Also when a
///   symlink appeared on a path since it was planned.
/// - [`ErrorKind::NotFound`]: a file to delete does not exist; nothing was written.
/// - [`ErrorKind::Io`] / [`ErrorKind::Failed`]: a write failed; every file already written was
///   restored (the message says so, or names any file that could not be restored).
pub fn commit_file_changes(changes: &[FileChange]) -> Result<Vec<PathBuf>, ToolError> {
    commit(None, changes, &[], &|path: &Path| path.display().to_string())
}

/// [`commit_file_changes`] confined to `workspace_root`: under the commit lock, every path is
/// resolved again inside the workspace (as [`crate::files::resolve_in_workspace`] does) and must
/// resolve to itself, then every access goes through a handle of the root with no symlink
/// followed (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`), so a directory swapped for a
/// symlink at any moment (e.g. between `ast_edit` and `resolve`, or during the commit) makes the
/// commit fail instead of writing elsewhere. Paths in messages are shown relative to
/// `workspace_root`.
///
/// # Errors
/// As [`commit_file_changes`], plus [`ErrorKind::OutsideWorkspace`] / [`ErrorKind::Conflict`]
/// when a path no longer resolves to itself inside the workspace (nothing written).
pub fn commit_file_changes_in(workspace_root: &Path, changes: &[FileChange]) -> Result<Vec<PathBuf>, ToolError> {
    commit(Some(workspace_root), changes, &[], &|path: &Path| display_path(workspace_root, path))
}

/// [`commit_file_changes_in`] where `new_file_modes[i]` (when given) is the permission mode of
/// change `i` if it creates a file (a moved file keeps its source's mode). Existing files always
/// keep their own.
pub(crate) fn commit_file_changes_with_modes(
    workspace_root: &Path,
    changes: &[FileChange],
    new_file_modes: &[Option<u32>],
) -> Result<Vec<PathBuf>, ToolError> {
    commit(Some(workspace_root), changes, new_file_modes, &|path: &Path| display_path(workspace_root, path))
}

/// How a staged file stands now compared with the bytes it was staged against, read beneath
/// `workspace_root` with no symlink followed: `None` when unchanged and still writable, else
/// `modified since staging`, `deleted since staging`, `read-only now: mode 0444` or
/// `unreadable now (…)`. Used by `resolve` before it commits.
pub(crate) fn staged_file_state(workspace_root: &Path, path: &Path, staged_original: &[u8]) -> Option<String> {
    let read = Beneath::open(workspace_root).map_err(BeneathError::Io).and_then(|beneath| {
        let relative = beneath.relative(path)?.to_path_buf();
        match beneath.open_parent(&relative)? {
            Some(parent) => parent.read_entry(),
            None => Ok(None),
        }
    });
    match read {
        Ok(Some((content, metadata))) if metadata.is_file() && content == staged_original => {
            (!writable_by_mode(&metadata)).then(|| format!("read-only now: mode {}", mode_text(&metadata)))
        }
        Ok(Some(_)) => Some("modified since staging".to_owned()),
        Ok(None) => Some("deleted since staging".to_owned()),
        Err(err) if err.is_missing() => Some("deleted since staging".to_owned()),
        Err(err) => Some(format!("unreadable now ({err})")),
    }
}

/// Serializes commits within this process.
static COMMIT_LOCK: Mutex<()> = Mutex::new(());

/// What was at a path before the commit touched it.
enum Original {
    Absent,
    File { content: Vec<u8>, permissions: Permissions, uid: u32, gid: u32, read_only: Option<String> },
}

/// Where one change happens: its root-relative path and, once opened, its parent directory.
struct Slot {
    relative: PathBuf,
    parent: Option<ParentDir>,
}

fn commit(
    workspace_root: Option<&Path>,
    changes: &[FileChange],
    new_file_modes: &[Option<u32>],
    show: &dyn Fn(&Path) -> String,
) -> Result<Vec<PathBuf>, ToolError> {
    for (index, change) in changes.iter().enumerate() {
        if !change.path.is_absolute() {
            return Err(ToolError::invalid(format!("file change path {} is relative; commits take absolute paths", change.path.display())));
        }
        if changes[..index].iter().any(|earlier| earlier.path == change.path) {
            return Err(ToolError::invalid(format!("{} is changed twice in one commit", show(&change.path)))
                .with_hint("merge the changes to one file into a single change"));
        }
    }
    let _guard = COMMIT_LOCK.lock();
    if let Some(root) = workspace_root {
        confine_again(root, changes, show)?;
    }
    let root = workspace_root.unwrap_or(Path::new("/"));
    let beneath = Beneath::open(root).map_err(|err| {
        ToolError::new(ErrorKind::Io, format!("cannot open the workspace root {}: {err}; nothing was written", root.display()))
            .with_hint("the workspace directory must exist; restart the run on an existing directory")
    })?;
    let mut slots = Vec::with_capacity(changes.len());
    for change in changes {
        let relative = match workspace_root {
            Some(_) => beneath.relative(&change.path).map(Path::to_path_buf).map_err(|err| access_error(change, &err, show))?,
            None => physical_parent(&change.path)?,
        };
        let parent = beneath.open_parent(&relative).map_err(|err| access_error(change, &err, show))?;
        slots.push(Slot { relative, parent });
    }
    let originals = verify_expected_states(changes, &slots, show)?;
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut touched: usize = 0;
    for (index, (change, original)) in changes.iter().zip(&originals).enumerate() {
        let new_file_mode = new_file_modes.get(index).copied().flatten();
        let outcome = apply_change(&beneath, &mut slots[index], change, original, new_file_mode, &mut created_dirs);
        let Err(err) = outcome else {
            touched += 1;
            continue;
        };
        // The failed change may have been half-done (e.g. its parent dirs created): restore it too.
        let restore_failures = roll_back(&beneath, changes, &slots[..=touched], &originals[..=touched], &created_dirs, show);
        return Err(write_failure(&beneath, change, &slots[index].relative, &err, touched, &restore_failures, show));
    }
    Ok(changes.iter().map(|change| change.path.clone()).collect())
}

/// Writes or deletes one change through its parent directory's handle (created when missing).
fn apply_change(
    beneath: &Beneath,
    slot: &mut Slot,
    change: &FileChange,
    original: &Original,
    new_file_mode: Option<u32>,
    created_dirs: &mut Vec<PathBuf>,
) -> Result<(), BeneathError> {
    if slot.parent.is_none() {
        if change.new_content.is_none() {
            return Err(BeneathError::Io(io::Error::from(io::ErrorKind::NotFound)));
        }
        slot.parent = Some(beneath.create_parent(&slot.relative, created_dirs)?);
    }
    let Some(parent) = slot.parent.as_ref() else { unreachable!("the parent was opened or created above") };
    match &change.new_content {
        Some(content) => write_in(parent, content, original, new_file_mode).map_err(BeneathError::Io),
        None => parent.remove_entry().map_err(BeneathError::Io),
    }
}

/// For [`commit_file_changes`] without a workspace: `path` with the symlinks in its parent's
/// existing prefix resolved, relative to `/`.
fn physical_parent(path: &Path) -> Result<PathBuf, ToolError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(ToolError::invalid(format!("{} names no file", path.display())));
    };
    let Some(parent_text) = parent.to_str() else {
        return Err(ToolError::invalid(format!("{} is not valid UTF-8", path.display())));
    };
    let resolved = crate::files::resolve_in_workspace(Path::new("/"), parent_text)?;
    Ok(resolved.join(name).strip_prefix("/").map(Path::to_path_buf).unwrap_or_default())
}

/// The error for a path that cannot be opened beneath the root at commit time.
fn access_error(change: &FileChange, err: &BeneathError, show: &dyn Fn(&Path) -> String) -> ToolError {
    match err {
        BeneathError::NotBeneath(_) => ToolError::new(
            ErrorKind::OutsideWorkspace,
            format!("{} is not inside the workspace; nothing was written", change.path.display()),
        )
        .with_hint("pass paths resolved inside the workspace (resolve_in_workspace)"),
        BeneathError::SymlinkOnPath { .. } => {
            ToolError::new(ErrorKind::Conflict, format!("cannot write {}: {err}; nothing was written", show(&change.path))).with_hint(
                "a directory on the way was replaced by a symlink since the change was planned; inspect it, then plan the change again",
            )
        }
        BeneathError::Io(io) => {
            ToolError::new(ErrorKind::Io, format!("cannot open the directory of {}: {io}; nothing was written", show(&change.path)))
        }
    }
}

/// Re-resolves every path inside `root` right before the write: the path must still resolve,
/// inside the workspace, to exactly itself (no symlink appeared on the way since planning). The
/// handle-based accesses after it are what make the commit race-free; this check gives the
/// clearer message in the common, non-racing case.
fn confine_again(root: &Path, changes: &[FileChange], show: &dyn Fn(&Path) -> String) -> Result<(), ToolError> {
    for change in changes {
        let Some(text) = change.path.to_str() else {
            return Err(ToolError::invalid(format!("{} is not valid UTF-8", change.path.display())));
        };
        let resolved = crate::files::resolve_in_workspace(root, text).map_err(|err| {
            ToolError::new(err.kind, format!("{} no longer resolves inside the workspace: {}; nothing was written", show(&change.path), err.message))
                .with_hint("a directory on the way was replaced (e.g. by a symlink) since the change was planned; inspect it, then plan the change again")
        })?;
        if resolved != change.path {
            return Err(ToolError::new(
                ErrorKind::Conflict,
                format!(
                    "{} now resolves to {} (a symlink appeared on the way since the change was planned); nothing was written",
                    show(&change.path),
                    show(&resolved)
                ),
            )
            .with_hint("inspect the path, then plan the change again"));
        }
    }
    Ok(())
}

fn verify_expected_states(changes: &[FileChange], slots: &[Slot], show: &dyn Fn(&Path) -> String) -> Result<Vec<Original>, ToolError> {
    let mut originals = Vec::with_capacity(changes.len());
    let mut conflicts: Vec<(String, &'static str, String)> = Vec::new();
    let mut read_only: Vec<(String, String)> = Vec::new();
    let mut missing_deletes = Vec::new();
    for (change, slot) in changes.iter().zip(slots) {
        let original = read_original(slot).map_err(|err| match err {
            BeneathError::SymlinkOnPath { .. } => access_error(change, &err, show),
            other => ToolError::new(ErrorKind::Io, format!("cannot read {} before changing it: {other}", show(&change.path))),
        })?;
        let found = match &original {
            Original::Absent => "absent".to_owned(),
            Original::File { content, .. } => format!("a file of {} bytes", content.len()),
        };
        match (&change.expected, &original) {
            (ExpectedState::Any, _) | (ExpectedState::Absent, Original::Absent) => {}
            (ExpectedState::Content(expected), Original::File { content, .. }) if expected == content => {}
            (ExpectedState::Absent, Original::File { .. }) => {
                conflicts.push((show(&change.path), "absent (a new file)", format!("{found} already exists")));
            }
            (ExpectedState::Content(_), Original::Absent) => {
                conflicts.push((show(&change.path), "the content read earlier", "the file was deleted".to_owned()));
            }
            (ExpectedState::Content(_), Original::File { .. }) => {
                conflicts.push((show(&change.path), "the content read earlier", format!("different content ({found})")));
            }
        }
        if let Original::File { read_only: Some(mode), .. } = &original {
            read_only.push((show(&change.path), mode.clone()));
        }
        if change.new_content.is_none() && matches!(original, Original::Absent) {
            missing_deletes.push(show(&change.path));
        }
        originals.push(original);
    }
    if !conflicts.is_empty() {
        let mut listed: Vec<String> = conflicts.iter().map(|(path, _, found)| format!("{path} ({found})")).collect();
        let mut details: Vec<Value> =
            conflicts.iter().map(|(path, expected, found)| json!({"path": path, "expected": expected, "found": found})).collect();
        for (path, mode) in &read_only {
            if !conflicts.iter().any(|(conflicting, _, _)| conflicting == path) {
                listed.push(format!("{path} (read-only: mode {mode})"));
                details.push(json!({"path": path, "expected": "a writable file", "found": format!("read-only (mode {mode})")}));
            }
        }
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "{} of {} files changed on disk since the change was prepared: {}; nothing was written",
                listed.len(),
                changes.len(),
                listed.join(", ")
            ),
        )
        .with_hint("read the files again and redo the change against their current content")
        .with_details(json!({ "conflicts": details })));
    }
    if !read_only.is_empty() {
        return Err(read_only_error(&read_only, changes.len()));
    }
    if !missing_deletes.is_empty() {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!("cannot delete {}: no such file; nothing was written", missing_deletes.join(", ")),
        )
        .with_hint("check the path (list the directory), or drop the deletion"));
    }
    Ok(originals)
}

/// Files without write permission by their mode bits: the whole change is refused.
fn read_only_error(read_only: &[(String, String)], total: usize) -> ToolError {
    let listed: Vec<String> = read_only.iter().map(|(path, mode)| format!("{path} (mode {mode})")).collect();
    let subject = if total == 1 {
        format!("{} is read-only", listed.join(", "))
    } else {
        format!("{} of {total} files are read-only: {}", read_only.len(), listed.join(", "))
    };
    let example = read_only.first().map(|(path, _)| path.as_str()).unwrap_or("FILE");
    let details: Vec<Value> = read_only.iter().map(|(path, mode)| json!({"path": path, "mode": mode})).collect();
    ToolError::new(
        ErrorKind::Conflict,
        format!("{subject} (no write permission for this process by the mode bits); nothing was written"),
    )
    .with_hint(format!(
        "someone made it read-only on purpose: ask the user before changing it; to change it anyway, make it writable first (chmod u+w {example}) and retry"
    ))
    .with_details(json!({ "read_only": details }))
}

fn read_original(slot: &Slot) -> Result<Original, BeneathError> {
    let Some(parent) = &slot.parent else {
        return Ok(Original::Absent);
    };
    let Some(metadata) = parent.entry_metadata()? else {
        return Ok(Original::Absent);
    };
    if metadata.is_dir() {
        return Err(BeneathError::Io(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory, not a file")));
    }
    if metadata.file_type().is_symlink() {
        // A symlink is replaced by a regular file on write; restoring it as the bytes it pointed
        // to is wrong, so refuse: callers resolve symlinks first.
        return Err(BeneathError::Io(io::Error::other("it is a symlink; resolve it to its target first")));
    }
    if !metadata.is_file() {
        // A FIFO, socket or device: reading it could block forever or never end.
        return Err(BeneathError::Io(io::Error::other("it is not a regular file (a FIFO, socket or device)")));
    }
    let Some((content, metadata)) = parent.read_entry()? else {
        return Ok(Original::Absent);
    };
    if !metadata.is_file() {
        return Err(BeneathError::Io(io::Error::other("it is no longer a regular file")));
    }
    let read_only = (!writable_by_mode(&metadata)).then(|| mode_text(&metadata));
    Ok(Original::File { content, permissions: metadata.permissions(), uid: metadata.uid(), gid: metadata.gid(), read_only })
}

/// Writes `content` as the entry of `parent` via a temp file beside it and a rename.
fn write_in(parent: &ParentDir, content: &[u8], original: &Original, new_file_mode: Option<u32>) -> io::Result<()> {
    let mut temp = parent.create_temp()?;
    temp.write_all(content)?;
    match original {
        Original::File { permissions, uid, gid, .. } => {
            temp.set_mode(permissions.mode() & 0o7777)?;
            // Keep the owner when we can (as root); an unprivileged writer owns what it writes.
            let _ = temp.set_owner(*uid, *gid);
        }
        Original::Absent => temp.set_mode(new_file_mode.unwrap_or(0o666 & !process_umask()))?,
    }
    temp.sync()?;
    temp.persist()
}

/// Restores every change in `changes` to its original and removes the directories the commit
/// created. Returns the failures as display strings (empty when everything was restored).
fn roll_back(
    beneath: &Beneath,
    changes: &[FileChange],
    slots: &[Slot],
    originals: &[Original],
    created_dirs: &[PathBuf],
    show: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    let mut failures = Vec::new();
    for ((change, slot), original) in changes.iter().zip(slots).zip(originals).rev() {
        let Some(parent) = &slot.parent else { continue };
        let outcome = match original {
            Original::Absent => match parent.remove_entry() {
                Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => Ok(()),
                other => other,
            },
            Original::File { content, .. } => {
                let current = parent.read_entry().ok().flatten().map(|(bytes, _)| bytes);
                if current.as_deref() == Some(content.as_slice()) {
                    Ok(())
                } else {
                    write_in(parent, content, original, None)
                }
            }
        };
        if let Err(err) = outcome {
            failures.push(format!("{} ({err})", show(&change.path)));
        }
    }
    for dir in created_dirs.iter().rev() {
        // Only empty directories go; anything else in them was not ours to remove.
        let _ = beneath.remove_empty_dir(dir);
    }
    failures
}

fn write_failure(
    beneath: &Beneath,
    change: &FileChange,
    relative: &Path,
    err: &BeneathError,
    already_written: usize,
    restore_failures: &[String],
    show: &dyn Fn(&Path) -> String,
) -> ToolError {
    let action = if change.new_content.is_some() { "write" } else { "delete" };
    let kind = match err {
        BeneathError::SymlinkOnPath { .. } => ErrorKind::Conflict,
        BeneathError::NotBeneath(_) => ErrorKind::OutsideWorkspace,
        BeneathError::Io(io) if io.kind() == io::ErrorKind::NotFound => ErrorKind::NotFound,
        BeneathError::Io(_) => ErrorKind::Io,
    };
    let restored = if restore_failures.is_empty() {
        match already_written {
            0 => "nothing was changed".to_owned(),
            1 => "nothing was changed: the 1 file already written was restored".to_owned(),
            n => format!("nothing was changed: the {n} files already written were restored"),
        }
    } else {
        format!("rollback FAILED for {}: these files may be left changed, check them", restore_failures.join(", "))
    };
    let reason = explain_error(beneath, relative, err);
    let hint = match err {
        BeneathError::SymlinkOnPath { .. } => {
            "a directory on the way was replaced by a symlink during the write; inspect it, then plan the change again"
        }
        _ => "fix the path (a parent that is a file, or a target that is a directory, cannot be written) and retry",
    };
    ToolError::new(kind, format!("cannot {action} {}: {reason}; {restored}", show(&change.path))).with_hint(hint).with_details(json!({
        "failed_path": show(&change.path),
        "restored_count": already_written,
        "restore_failures": restore_failures,
    }))
}

/// The OS error plus, where it helps, what on disk caused it (looked up beneath the root).
fn explain_error(beneath: &Beneath, relative: &Path, err: &BeneathError) -> String {
    let BeneathError::Io(err) = err else {
        return err.to_string();
    };
    // The OS error alone: wrappers add their own temp path.
    let os_error = err.raw_os_error().map(io::Error::from_raw_os_error);
    let err = os_error.as_ref().unwrap_or(err);
    if err.kind() == io::ErrorKind::NotADirectory {
        let mut cursor = relative.parent();
        while let Some(ancestor) = cursor.filter(|ancestor| !ancestor.as_os_str().is_empty()) {
            if beneath.metadata(ancestor).ok().flatten().is_some_and(|metadata| metadata.is_file()) {
                return format!("{err} ({} is a regular file, not a directory)", beneath.root().join(ancestor).display());
            }
            cursor = ancestor.parent();
        }
    }
    if beneath.metadata(relative).ok().flatten().is_some_and(|metadata| metadata.is_dir()) {
        return format!("{err} (the target is an existing directory)");
    }
    err.to_string()
}

/// The process umask, read from `/proc/self/status` (changing it to read it would race with
/// other threads); `0o022` when unavailable.
fn process_umask() -> u32 {
    let Ok(status) = fs::read_to_string("/proc/self/status") else {
        return 0o022;
    };
    status.lines().find_map(|line| line.strip_prefix("Umask:")).and_then(|value| u32::from_str_radix(value.trim(), 8).ok()).unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &Path, content: Option<&str>, expected: ExpectedState) -> FileChange {
        FileChange { path: path.to_path_buf(), new_content: content.map(|c| c.as_bytes().to_vec()), expected }
    }

    #[test]
    fn writes_creates_parents_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("old.txt"), "old").unwrap();
        let written = commit_file_changes(&[
            change(&root.join("a/b/new.txt"), Some("new"), ExpectedState::Absent),
            change(&root.join("old.txt"), None, ExpectedState::Content(b"old".to_vec())),
        ])
        .unwrap();
        assert_eq!(written, vec![root.join("a/b/new.txt"), root.join("old.txt")]);
        assert_eq!(fs::read_to_string(root.join("a/b/new.txt")).unwrap(), "new");
        assert!(!root.join("old.txt").exists());
        let leftovers: Vec<_> = fs::read_dir(root.join("a/b")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("new.txt")], "no temp files left behind");
    }

    #[test]
    fn keeps_permissions_and_new_files_follow_umask() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("run.sh");
        fs::write(&script, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&script, Permissions::from_mode(0o750)).unwrap();
        commit_file_changes(&[change(&script, Some("#!/bin/sh\necho hi\n"), ExpectedState::Any)]).unwrap();
        assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o7777, 0o750);
        let fresh = dir.path().join("fresh.txt");
        commit_file_changes(&[change(&fresh, Some("x"), ExpectedState::Absent)]).unwrap();
        assert_eq!(fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o666 & !process_umask());
    }

    #[test]
    fn conflicts_list_every_mismatch_and_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "changed").unwrap();
        fs::write(root.join("b.txt"), "exists").unwrap();
        let err = commit_file_changes(&[
            change(&root.join("c.txt"), Some("c"), ExpectedState::Absent),
            change(&root.join("a.txt"), Some("new a"), ExpectedState::Content(b"original".to_vec())),
            change(&root.join("b.txt"), Some("new b"), ExpectedState::Absent),
            change(&root.join("gone.txt"), Some("x"), ExpectedState::Content(b"was here".to_vec())),
        ])
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Conflict);
        assert!(err.message.starts_with("3 of 4 files changed"), "{}", err.message);
        for name in ["a.txt", "b.txt", "gone.txt"] {
            assert!(err.message.contains(name), "{name} missing from {}", err.message);
        }
        assert_eq!(err.details.unwrap()["conflicts"].as_array().unwrap().len(), 3);
        assert!(!root.join("c.txt").exists());
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "changed");
    }

    #[test]
    fn failure_mid_way_restores_everything() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "a").unwrap();
        fs::write(root.join("blocker"), "i am a file").unwrap();
        let err = commit_file_changes(&[
            change(&root.join("a.txt"), Some("A"), ExpectedState::Any),
            change(&root.join("new/dir/b.txt"), Some("B"), ExpectedState::Absent),
            change(&root.join("blocker/c.txt"), Some("C"), ExpectedState::Any),
        ])
        .unwrap_err();
        assert!(err.message.contains("blocker is a regular file"), "{}", err.message);
        assert!(err.message.contains("the 2 files already written were restored"), "{}", err.message);
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a");
        assert!(!root.join("new").exists(), "created directories are removed again");
    }

    #[test]
    fn duplicate_and_relative_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        let err =
            commit_file_changes(&[change(&path, Some("1"), ExpectedState::Any), change(&path, None, ExpectedState::Any)]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
        let err = commit_file_changes(&[change(Path::new("rel.txt"), Some("1"), ExpectedState::Any)]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
    }
}
