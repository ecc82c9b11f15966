//! The one way a tool reads a file: beneath the workspace root with no symlink followed at use
//! time, or — named as such — beneath a dependency root outside the workspace.
//!
//! The file tools read through [`crate::files::beneath`] directly. Every other tool (`lsp` and
//! its layers, `debug`, structural search, staging, kernels) reads with this module, so that a
//! directory of the workspace swapped for a symlink after a path was resolved (a concurrent
//! `renameat2(RENAME_EXCHANGE)`) fails the read instead of returning what the link points at:
//!
//! - [`WorkspaceReader`]: a handle of the workspace root, opened once per call or walk, that reads
//!   many files beneath it (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` or an `O_NOFOLLOW`
//!   walk). [`read_workspace_file_to_string`] is the one-file shorthand.
//! - [`read_dependency_file_to_string`]: a file *outside* the workspace that a tool reads on
//!   purpose — dependency code an `lsp` answer quotes (site-packages, toolchain sysroots, module
//!   and registry caches, `node_modules`, system headers; see `lsp::listing`), read beneath that
//!   dependency root with no symlink followed. Nothing else outside the workspace is read.
//!
//! Errors are the file tools' kinds: `not_found` (nothing there), `conflict` (a symlink appeared
//! on the path after it was resolved; nothing was followed), `outside_workspace` (the path is not
//! beneath the root as spelled), `invalid` (a directory or special file; not UTF-8), `io`.
//! `tests/it/read_guard.rs` keeps `std::fs::read*` and `File::open` out of the tool modules.

use std::io::Read;
use std::path::Path;

use crate::error::{ErrorKind, ToolError};
use crate::files::beneath::{Beneath, BeneathError};
use crate::render::display_path;

/// A handle of the workspace root that reads files beneath it, following no symlink.
///
/// Open one per call (or per walk) and read every file of that call through it: one `open` of
/// the root, then one `openat2` per file.
pub(crate) struct WorkspaceReader {
    beneath: Beneath,
}

impl WorkspaceReader {
    /// Opens a handle of `workspace_root` (absolute, canonical: the run's root).
    ///
    /// # Errors
    /// `io` when the root cannot be opened (it was removed).
    pub(crate) fn open(workspace_root: &Path) -> Result<WorkspaceReader, ToolError> {
        Beneath::open(workspace_root).map(|beneath| WorkspaceReader { beneath }).map_err(|err| {
            ToolError::new(ErrorKind::Io, format!("cannot open the workspace root {}: {err}", workspace_root.display()))
                .with_hint("the workspace directory must exist; restart the run on an existing directory")
        })
    }

    /// The root as opened.
    pub(crate) fn root(&self) -> &Path {
        self.beneath.root()
    }

    /// The handle beneath which this reader reads (for a walk that lists through it:
    /// [`crate::files::walk_beneath`]).
    pub(crate) fn beneath(&self) -> &Beneath {
        &self.beneath
    }

    /// The bytes of the regular file at `path` (absolute under the root, or root-relative).
    ///
    /// # Errors
    /// See the module docs: `not_found`, `conflict`, `outside_workspace`, `invalid`, `io`.
    pub(crate) fn read(&self, path: &Path) -> Result<Vec<u8>, ToolError> {
        read_beneath(&self.beneath, path, &display_path(self.root(), path), "the workspace")
    }

    /// Opens the regular file at `path` for reading (for a caller that reads part of it: a
    /// shebang, ELF headers).
    ///
    /// # Errors
    /// As [`WorkspaceReader::read`].
    pub(crate) fn open_file(&self, path: &Path) -> Result<std::fs::File, ToolError> {
        open_beneath(&self.beneath, path, &display_path(self.root(), path), "the workspace")
    }

    /// The regular file at `path` as UTF-8 text.
    ///
    /// # Errors
    /// As [`WorkspaceReader::read`]; `invalid` when the file is not UTF-8.
    pub(crate) fn read_to_string(&self, path: &Path) -> Result<String, ToolError> {
        let bytes = self.read(path)?;
        into_text(bytes, &display_path(self.root(), path))
    }
}

/// The text of the regular file at `path` beneath `workspace_root`, no symlink followed at use
/// time. For a single read; a loop opens a [`WorkspaceReader`] once instead.
///
/// # Errors
/// As [`WorkspaceReader::read_to_string`].
pub(crate) fn read_workspace_file_to_string(workspace_root: &Path, path: &Path) -> Result<String, ToolError> {
    WorkspaceReader::open(workspace_root)?.read_to_string(path)
}

/// The text of `path`, a file OUTSIDE the workspace under the dependency root `dependency_root`
/// (a site-packages directory, a toolchain sysroot, a module or registry cache, a
/// `node_modules`, a system include directory: the roots `lsp::listing` recognises), read
/// beneath that root with no symlink followed. The only way a tool reads outside the workspace.
///
/// # Errors
/// `outside_workspace` when `path` is not under `dependency_root`; otherwise as
/// [`WorkspaceReader::read_to_string`].
pub(crate) fn read_dependency_file_to_string(dependency_root: &Path, path: &Path) -> Result<String, ToolError> {
    let shown = path.display().to_string();
    let beneath = Beneath::open(dependency_root).map_err(|err| ToolError::io("open", dependency_root, &err))?;
    let bytes = read_beneath(&beneath, path, &shown, "its dependency root")?;
    into_text(bytes, &shown)
}

fn read_beneath(beneath: &Beneath, path: &Path, shown: &str, root_name: &str) -> Result<Vec<u8>, ToolError> {
    let mut file = open_beneath(beneath, path, shown, root_name)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|err| ToolError::io("read", Path::new(shown), &err))?;
    Ok(bytes)
}

fn open_beneath(beneath: &Beneath, path: &Path, shown: &str, root_name: &str) -> Result<std::fs::File, ToolError> {
    let relative = beneath.relative(path).map_err(|_| {
        ToolError::new(
            ErrorKind::OutsideWorkspace,
            format!("cannot read {shown}: it is not beneath {root_name} {}", beneath.root().display()),
        )
        .with_hint("use a path inside the workspace, relative to its root (e.g. src/main.rs)")
    })?;
    let (file, metadata) = beneath.open_read(relative).map_err(|err| match err {
        // A missing directory on the way (ENOTDIR included) is a missing file.
        BeneathError::Io(_) if err.is_missing() => ToolError::new(ErrorKind::NotFound, format!("cannot read {shown}: no such file")),
        BeneathError::Io(io) => ToolError::io("read", Path::new(shown), &io),
        BeneathError::SymlinkOnPath { .. } => ToolError::new(ErrorKind::Conflict, format!("cannot read {shown}: {err}"))
            .with_hint("a directory on the way was replaced by a symlink after the path was resolved (is another process changing the workspace?); check the path and retry"),
        BeneathError::NotBeneath(_) => ToolError::new(ErrorKind::OutsideWorkspace, format!("cannot read {shown}: {err}")),
    })?;
    if !metadata.is_file() {
        let what = if metadata.is_dir() { "a directory" } else { "not a regular file (a device, socket or FIFO)" };
        return Err(ToolError::invalid(format!("cannot read {shown}: it is {what}")));
    }
    // Opened non-blocking (a FIFO cannot hang the open); a regular file reads the same.
    Ok(file)
}

fn into_text(bytes: Vec<u8>, shown: &str) -> Result<String, ToolError> {
    String::from_utf8(bytes).map_err(|err| {
        ToolError::invalid(format!("cannot read {shown}: not valid UTF-8 (invalid byte at offset {})", err.utf8_error().valid_up_to()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_beneath_the_root_and_refuses_a_symlink_out() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("m.py"), "SECRET\n").unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(workspace.path()).unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        std::fs::write(root.join("d/m.py"), "inside\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        assert_eq!(reader.read_to_string(&root.join("d/m.py")).unwrap(), "inside\n");
        let through_link = reader.read_to_string(&root.join("link/m.py")).unwrap_err();
        assert_eq!(through_link.kind, ErrorKind::Conflict, "{through_link:?}");
        let missing = reader.read_to_string(&root.join("d/none.py")).unwrap_err();
        assert_eq!(missing.kind, ErrorKind::NotFound, "{missing:?}");
        let elsewhere = reader.read_to_string(&outside.path().join("m.py")).unwrap_err();
        assert_eq!(elsewhere.kind, ErrorKind::OutsideWorkspace, "{elsewhere:?}");
        let directory = reader.read_to_string(&root.join("d")).unwrap_err();
        assert_eq!(directory.kind, ErrorKind::InvalidArguments, "{directory:?}");
        std::fs::write(root.join("d/bytes.bin"), [0xff, 0xfe]).unwrap();
        assert_eq!(reader.read_to_string(&root.join("d/bytes.bin")).unwrap_err().kind, ErrorKind::InvalidArguments);
        assert_eq!(reader.read(&root.join("d/bytes.bin")).unwrap(), vec![0xff, 0xfe]);
    }

    #[test]
    fn a_dependency_file_is_read_only_beneath_its_dependency_root() {
        let dependency = tempfile::tempdir().unwrap();
        let site_packages = std::fs::canonicalize(dependency.path()).unwrap();
        std::fs::create_dir(site_packages.join("pkg")).unwrap();
        std::fs::write(site_packages.join("pkg/__init__.py"), "def f(): ...\n").unwrap();
        assert_eq!(read_dependency_file_to_string(&site_packages, &site_packages.join("pkg/__init__.py")).unwrap(), "def f(): ...\n");
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("x.py"), "SECRET\n").unwrap();
        let refused = read_dependency_file_to_string(&site_packages, &other.path().join("x.py")).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::OutsideWorkspace);
        std::os::unix::fs::symlink(other.path(), site_packages.join("linked")).unwrap();
        let through_link = read_dependency_file_to_string(&site_packages, &site_packages.join("linked/x.py")).unwrap_err();
        assert_eq!(through_link.kind, ErrorKind::Conflict);
    }
}
