//! Workspace confinement: resolving a tool's path argument to an absolute path inside the
//! workspace, and showing paths relative to it.
//!
//! Resolution walks the path one component at a time against the real file system, following
//! every symlink it meets (including a dangling one, whose target is resolved the same way) and
//! applying `..` to the already-resolved physical directory. The result is the path the
//! operating system would reach, so "inside the workspace" is decided on the real location, not
//! on the spelling.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde_json::json;

use crate::error::{ErrorKind, ToolError};

/// Most symlinks followed while resolving one path (Linux's own limit, `ELOOP`).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// Resolves a tool's path argument (relative to the workspace root, or absolute inside it) to an
/// absolute path inside the workspace, refusing escapes (`..`, outside absolute paths, symlinks
/// resolving outside). The path need not exist (its existing prefix is canonicalized).
///
/// `workspace_root` should be absolute and canonical (as [`crate::Run::workspace_root`] is); it is
/// canonicalized again when it is not. Every symlink on the way is followed, including a dangling
/// final one (so a write through it would land at its target), and `..` is applied to the
/// physical directory reached so far. The returned path has no symlinks in its existing prefix.
///
/// # Errors
/// - [`ErrorKind::InvalidArguments`]: the path is empty or contains a NUL byte.
/// - [`ErrorKind::OutsideWorkspace`]: the path resolves outside the workspace (through `..`, an
///   absolute path, or a symlink — the message names the symlink and its target).
/// - [`ErrorKind::Io`]: more than `MAX_SYMLINK_HOPS` symlinks, or the file system refused to
///   inspect a component (e.g. permission denied).
pub fn resolve_in_workspace(workspace_root: &Path, user_path: &str) -> Result<PathBuf, ToolError> {
    if user_path.is_empty() {
        return Err(ToolError::invalid("path is empty")
            .with_hint("pass a path relative to the workspace root, e.g. src/main.rs, or \".\" for the root itself"));
    }
    if user_path.contains('\0') {
        return Err(ToolError::invalid(format!("path {user_path:?} contains a NUL byte")));
    }
    let root = canonical_root(workspace_root)?;
    let resolution = resolve_physically(&root, Path::new(user_path))?;
    if resolution.path.starts_with(&root) {
        return Ok(resolution.path);
    }
    Err(outside_error(&root, user_path, &resolution))
}

struct Resolution {
    path: PathBuf,
    /// Symlinks followed, as (link path, link target as stored), in order.
    symlinks: Vec<(PathBuf, PathBuf)>,
    /// What last took the walk from inside the root to outside it.
    last_exit: Option<Exit>,
}

#[derive(Clone, Copy)]
enum Exit {
    /// The path as given is absolute.
    AbsolutePath,
    /// A `..` written in the path itself.
    ParentDir,
    /// The symlink at this index of `Resolution::symlinks` (its target, or a `..` in it).
    Symlink(usize),
}

fn canonical_root(workspace_root: &Path) -> Result<PathBuf, ToolError> {
    std::fs::canonicalize(workspace_root).map_err(|err| {
        ToolError::new(ErrorKind::Io, format!("workspace root {} cannot be resolved: {err}", workspace_root.display()))
            .with_hint("the workspace directory must exist; restart the run on an existing directory")
    })
}

fn resolve_physically(root: &Path, user_path: &Path) -> Result<Resolution, ToolError> {
    // Each pending component remembers the symlink whose target it came from (None: the path).
    let mut pending: VecDeque<(OsString, Option<usize>)> = VecDeque::new();
    let mut current = root.to_path_buf();
    let mut last_exit = None;
    if user_path.is_absolute() {
        current = PathBuf::from("/");
        last_exit = Some(Exit::AbsolutePath);
    }
    push_components_front(&mut pending, user_path, None);
    let mut symlinks: Vec<(PathBuf, PathBuf)> = Vec::new();
    while let Some((component, origin)) = pending.pop_front() {
        let was_inside = current.starts_with(root);
        if component == ".." {
            current.pop();
            if was_inside && !current.starts_with(root) {
                last_exit = Some(origin.map_or(Exit::ParentDir, Exit::Symlink));
            }
            continue;
        }
        let candidate = current.join(&component);
        let metadata = match std::fs::symlink_metadata(&candidate) {
            Ok(metadata) => metadata,
            Err(err) if is_missing(&err) => {
                current = candidate;
                continue;
            }
            Err(err) => {
                return Err(ToolError::new(
                    ErrorKind::Io,
                    format!("cannot inspect {} while resolving {}: {err}", candidate.display(), user_path.display()),
                ))
            }
        };
        if !metadata.file_type().is_symlink() {
            current = candidate;
            continue;
        }
        if symlinks.len() >= MAX_SYMLINK_HOPS {
            return Err(ToolError::new(
                ErrorKind::Io,
                format!("more than {MAX_SYMLINK_HOPS} symlinks while resolving {} (a symlink loop?)", user_path.display()),
            ));
        }
        let target = std::fs::read_link(&candidate)
            .map_err(|err| ToolError::new(ErrorKind::Io, format!("cannot read symlink {}: {err}", candidate.display())))?;
        let index = symlinks.len();
        symlinks.push((candidate, target.clone()));
        if target.is_absolute() {
            current = PathBuf::from("/");
            if was_inside && !target.starts_with(root) {
                last_exit = Some(Exit::Symlink(index));
            }
        }
        push_components_front(&mut pending, &target, Some(index));
    }
    Ok(Resolution { path: current, symlinks, last_exit })
}

/// Puts the components of `path` in front of `pending`, in order, tagged with `origin`. Root
/// and `.` components are dropped (the caller handles an absolute path by resetting to `/`).
fn push_components_front(pending: &mut VecDeque<(OsString, Option<usize>)>, path: &Path, origin: Option<usize>) {
    let mut components = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::CurDir => {}
            Component::ParentDir => components.push(OsString::from("..")),
            Component::Normal(name) => components.push(name.to_os_string()),
        }
    }
    for component in components.into_iter().rev() {
        pending.push_front((component, origin));
    }
}

fn is_missing(err: &io::Error) -> bool {
    // ENOTDIR: a component of the prefix is a regular file; the path cannot exist.
    matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory)
}

fn outside_error(root: &Path, user_path: &str, resolution: &Resolution) -> ToolError {
    let resolved = resolution.path.display();
    let root_shown = root.display();
    let message = match resolution.last_exit {
        Some(Exit::Symlink(index)) => {
            let (link, target) = &resolution.symlinks[index];
            format!(
                "path {user_path:?} resolves to {resolved}, outside the workspace {root_shown}, through the symlink {} -> {}",
                crate::render::display_path(root, link),
                target.display()
            )
        }
        Some(Exit::ParentDir) => {
            format!("path {user_path:?} resolves to {resolved}, outside the workspace {root_shown} (through `..`)")
        }
        Some(Exit::AbsolutePath) | None => {
            format!("path {user_path:?} is outside the workspace {root_shown}")
        }
    };
    let symlinks: Vec<_> = resolution
        .symlinks
        .iter()
        .map(|(link, target)| json!({"link": link.display().to_string(), "target": target.display().to_string()}))
        .collect();
    ToolError::new(ErrorKind::OutsideWorkspace, message)
        .with_hint("use a path inside the workspace, relative to its root (e.g. src/main.rs); files outside it are not reachable")
        .with_details(json!({
            "path": user_path,
            "resolved": resolution.path.display().to_string(),
            "workspace_root": root.display().to_string(),
            "symlinks_followed": symlinks,
        }))
}

/// `path` with `.` and `..` components folded away by name, without touching the file system
/// (`src/../README.md` → `README.md`, `a/b/../c.json` → `a/c.json`), so that it can be read beneath
/// a root, which refuses `..`. A `..` above the start is dropped.
pub(crate) fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        (dir, root)
    }

    #[test]
    fn relative_and_absolute_inside_resolve() {
        let (_dir, root) = workspace();
        assert_eq!(resolve_in_workspace(&root, "src/a.rs").unwrap(), root.join("src/a.rs"));
        assert_eq!(resolve_in_workspace(&root, "./src/../src/a.rs").unwrap(), root.join("src/a.rs"));
        let absolute = root.join("src/new/b.rs");
        assert_eq!(resolve_in_workspace(&root, absolute.to_str().unwrap()).unwrap(), absolute);
        assert_eq!(resolve_in_workspace(&root, ".").unwrap(), root);
    }

    #[test]
    fn parent_escape_is_refused() {
        let (_dir, root) = workspace();
        let err = resolve_in_workspace(&root, "../outside.txt").unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideWorkspace);
        assert!(err.message.contains("through `..`"), "{}", err.message);
        let err = resolve_in_workspace(&root, "src/../../ws2/x").unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideWorkspace);
        let err = resolve_in_workspace(&root, "/etc/passwd").unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideWorkspace);
    }

    #[test]
    fn symlinks_resolving_outside_are_refused() {
        let (dir, root) = workspace();
        let outside = std::fs::canonicalize(dir.path()).unwrap().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        symlink(&outside, root.join("linkdir")).unwrap();
        symlink(outside.join("missing.txt"), root.join("dangling")).unwrap();
        symlink("../outside", root.join("relative_link")).unwrap();
        for path in ["linkdir/x.txt", "dangling", "relative_link/y", "linkdir"] {
            let err = resolve_in_workspace(&root, path).unwrap_err();
            assert_eq!(err.kind, ErrorKind::OutsideWorkspace, "{path}");
            assert!(err.message.contains("symlink"), "{path}: {}", err.message);
        }
    }

    #[test]
    fn symlinks_inside_resolve_to_their_target() {
        let (_dir, root) = workspace();
        symlink("src", root.join("source")).unwrap();
        symlink("src/missing.rs", root.join("dangling_inside")).unwrap();
        assert_eq!(resolve_in_workspace(&root, "source/a.rs").unwrap(), root.join("src/a.rs"));
        assert_eq!(resolve_in_workspace(&root, "dangling_inside").unwrap(), root.join("src/missing.rs"));
        // `..` applies to the physical directory the symlink reached.
        assert_eq!(resolve_in_workspace(&root, "source/../src/a.rs").unwrap(), root.join("src/a.rs"));
    }

    #[test]
    fn symlink_loop_is_an_error() {
        let (_dir, root) = workspace();
        symlink("loop_b", root.join("loop_a")).unwrap();
        symlink("loop_a", root.join("loop_b")).unwrap();
        let err = resolve_in_workspace(&root, "loop_a/x").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Io);
        assert!(err.message.contains("symlink loop"), "{}", err.message);
    }

    #[test]
    fn empty_and_nul_paths_are_invalid() {
        let (_dir, root) = workspace();
        assert_eq!(resolve_in_workspace(&root, "").unwrap_err().kind, ErrorKind::InvalidArguments);
        assert_eq!(resolve_in_workspace(&root, "a\0b").unwrap_err().kind, ErrorKind::InvalidArguments);
    }
}
