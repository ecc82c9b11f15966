//! All-or-nothing file changes: every expected state verified first, each file written through a
//! temp file in its own directory and renamed into place (permissions and ownership kept), and
//! every file already touched restored when a later one fails.
//!
//! Commits in one process are serialized by a global lock, so the verify-then-write of one
//! commit cannot interleave with another's. Another process may still write between the check
//! and the rename; the expected-state check narrows that window, it does not close it.

use std::fs::{self, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
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
/// already resolved symlinks (a symlink at `path` itself would be replaced by a regular file).
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
/// [`ErrorKind::Conflict`] listing every changed file, nothing written), then writes each via
/// temp + rename keeping permissions, creating parent dirs; on any failure restores every file
/// already touched. Returns the absolute paths written or deleted.
///
/// Paths in error messages are absolute; [`commit_file_changes_in`] shows them relative to a
/// workspace root instead.
///
/// # Errors
/// - [`ErrorKind::InvalidArguments`]: a path is relative, or two changes name the same path.
/// - [`ErrorKind::Conflict`]: an expected state does not hold (`details.conflicts` lists each
///   file with what was expected and what was found); nothing was written.
/// - [`ErrorKind::NotFound`]: a file to delete does not exist; nothing was written.
/// - [`ErrorKind::Io`] / [`ErrorKind::Failed`]: a write failed; every file already written was
///   restored (the message says so, or names any file that could not be restored).
pub fn commit_file_changes(changes: &[FileChange]) -> Result<Vec<PathBuf>, ToolError> {
    commit(None, changes, &[], &|path: &Path| path.display().to_string())
}

/// [`commit_file_changes`] confined to `workspace_root`: under the commit lock, just before
/// anything is written, every path is resolved again inside the workspace (as
/// [`crate::files::resolve_in_workspace`] does) and must resolve to itself. A directory swapped
/// for a symlink since the change was planned (e.g. between `ast_edit` and `resolve`) is caught
/// here. Paths in messages are shown relative to `workspace_root`.
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

/// Serializes commits within this process.
static COMMIT_LOCK: Mutex<()> = Mutex::new(());

/// What was at a path before the commit touched it.
enum Original {
    Absent,
    File { content: Vec<u8>, permissions: Permissions, uid: u32, gid: u32 },
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
    let originals = verify_expected_states(changes, show)?;
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut touched: usize = 0;
    for (index, (change, original)) in changes.iter().zip(&originals).enumerate() {
        let new_file_mode = new_file_modes.get(index).copied().flatten();
        let outcome = match &change.new_content {
            Some(content) => write_change(&change.path, content, original, new_file_mode, &mut created_dirs),
            None => fs::remove_file(&change.path),
        };
        let Err(err) = outcome else {
            touched += 1;
            continue;
        };
        // The failed change may have been half-done (e.g. its parent dirs created): restore it too.
        let restore_failures = roll_back(&changes[..=touched], &originals[..=touched], &created_dirs, show);
        return Err(write_failure(change, &err, touched, &restore_failures, show));
    }
    Ok(changes.iter().map(|change| change.path.clone()).collect())
}

/// Re-resolves every path inside `root` right before the write: the path must still resolve,
/// inside the workspace, to exactly itself (no symlink appeared on the way since planning).
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

fn verify_expected_states(changes: &[FileChange], show: &dyn Fn(&Path) -> String) -> Result<Vec<Original>, ToolError> {
    let mut originals = Vec::with_capacity(changes.len());
    let mut conflicts: Vec<(String, &'static str, String)> = Vec::new();
    let mut missing_deletes = Vec::new();
    for change in changes {
        let original = read_original(&change.path)
            .map_err(|err| ToolError::new(ErrorKind::Io, format!("cannot read {} before changing it: {err}", show(&change.path))))?;
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
        if change.new_content.is_none() && matches!(original, Original::Absent) {
            missing_deletes.push(show(&change.path));
        }
        originals.push(original);
    }
    if !conflicts.is_empty() {
        let listed: Vec<String> = conflicts.iter().map(|(path, _, found)| format!("{path} ({found})")).collect();
        let details: Vec<Value> =
            conflicts.iter().map(|(path, expected, found)| json!({"path": path, "expected": expected, "found": found})).collect();
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "{} of {} files changed on disk since the change was prepared: {}; nothing was written",
                conflicts.len(),
                changes.len(),
                listed.join(", ")
            ),
        )
        .with_hint("read the files again and redo the change against their current content")
        .with_details(json!({ "conflicts": details })));
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

fn read_original(path: &Path) -> io::Result<Original> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => return Ok(Original::Absent),
        Err(err) => return Err(err),
    };
    if metadata.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory, not a file"));
    }
    if metadata.file_type().is_symlink() {
        // A symlink is replaced by a regular file on write; restore it as the bytes it pointed to
        // is wrong, so refuse: callers resolve symlinks first.
        return Err(io::Error::other("it is a symlink; resolve it to its target first"));
    }
    if !metadata.is_file() {
        // A FIFO, socket or device: reading it could block forever or never end.
        return Err(io::Error::other("it is not a regular file (a FIFO, socket or device)"));
    }
    let content = fs::read(path)?;
    Ok(Original::File { content, permissions: metadata.permissions(), uid: metadata.uid(), gid: metadata.gid() })
}

/// Writes `content` to `path` via a temp file in the same directory and a rename.
fn write_change(
    path: &Path,
    content: &[u8],
    original: &Original,
    new_file_mode: Option<u32>,
    created_dirs: &mut Vec<PathBuf>,
) -> io::Result<()> {
    let Some(parent) = path.parent() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "path has no parent directory"));
    };
    create_parent_dirs(parent, created_dirs)?;
    let mut temp = tempfile::Builder::new().prefix(".runbound-").suffix(".tmp").tempfile_in(parent)?;
    temp.write_all(content)?;
    match original {
        Original::File { permissions, uid, gid, .. } => {
            temp.as_file().set_permissions(permissions.clone())?;
            // Keep the owner when we can (as root); an unprivileged writer owns what it writes.
            let _ = std::os::unix::fs::fchown(temp.as_file(), Some(*uid), Some(*gid));
        }
        Original::Absent => {
            let mode = new_file_mode.unwrap_or(0o666 & !process_umask());
            temp.as_file().set_permissions(Permissions::from_mode(mode))?;
        }
    }
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
}

/// Creates the missing ancestors of `dir`, recording each one created (outermost first).
fn create_parent_dirs(dir: &Path, created_dirs: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(candidate) = cursor {
        match fs::symlink_metadata(candidate) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => missing.push(candidate.to_path_buf()),
            // Exists, or cannot exist (a prefix is a file): the write itself reports that.
            _ => break,
        }
        cursor = candidate.parent();
    }
    for missing_dir in missing.into_iter().rev() {
        fs::create_dir(&missing_dir)?;
        created_dirs.push(missing_dir);
    }
    Ok(())
}

/// Restores every change in `changes` to its original and removes the directories the commit
/// created. Returns the failures as display strings (empty when everything was restored).
fn roll_back(changes: &[FileChange], originals: &[Original], created_dirs: &[PathBuf], show: &dyn Fn(&Path) -> String) -> Vec<String> {
    let mut failures = Vec::new();
    for (change, original) in changes.iter().zip(originals).rev() {
        let outcome = match original {
            Original::Absent => match fs::remove_file(&change.path) {
                Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => Ok(()),
                other => other,
            },
            Original::File { content, .. } => {
                let current = fs::read(&change.path).ok();
                if current.as_deref() == Some(content.as_slice()) {
                    Ok(())
                } else {
                    write_change(&change.path, content, original, None, &mut Vec::new())
                }
            }
        };
        if let Err(err) = outcome {
            failures.push(format!("{} ({err})", show(&change.path)));
        }
    }
    for dir in created_dirs.iter().rev() {
        // Only empty directories go; anything else in them was not ours to remove.
        let _ = fs::remove_dir(dir);
    }
    failures
}

fn write_failure(
    change: &FileChange,
    err: &io::Error,
    already_written: usize,
    restore_failures: &[String],
    show: &dyn Fn(&Path) -> String,
) -> ToolError {
    let action = if change.new_content.is_some() { "write" } else { "delete" };
    let kind = match err.kind() {
        io::ErrorKind::NotFound => ErrorKind::NotFound,
        _ => ErrorKind::Io,
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
    let reason = explain_io_error(&change.path, err);
    ToolError::new(kind, format!("cannot {action} {}: {reason}; {restored}", show(&change.path)))
        .with_hint("fix the path (a parent that is a file, or a target that is a directory, cannot be written) and retry")
        .with_details(json!({
            "failed_path": show(&change.path),
            "restored_count": already_written,
            "restore_failures": restore_failures,
        }))
}

/// The OS error plus, where it helps, what on disk caused it.
fn explain_io_error(path: &Path, err: &io::Error) -> String {
    // The OS error alone: wrappers (such as the temp file's) add their own temp path.
    let os_error = err.raw_os_error().map(io::Error::from_raw_os_error);
    let err = os_error.as_ref().unwrap_or(err);
    if err.kind() == io::ErrorKind::NotADirectory {
        let mut cursor = path.parent();
        while let Some(ancestor) = cursor {
            if fs::symlink_metadata(ancestor).is_ok_and(|metadata| metadata.is_file()) {
                return format!("{err} ({} is a regular file, not a directory)", ancestor.display());
            }
            cursor = ancestor.parent();
        }
    }
    if fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_dir()) {
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
