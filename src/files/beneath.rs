//! File access beneath the workspace root through directory handles, with no symlink followed
//! at use time.
//!
//! [`crate::files::resolve_in_workspace`] plans: it turns a tool's path argument into the
//! physical path inside the workspace (in-workspace symlinks resolved to their targets, escapes
//! refused with a message naming the symlink). This module uses that plan without re-reading
//! the path from `/`: every open starts at a handle of the root directory and resolves the rest
//! with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)` (on kernels or
//! sandboxes without `openat2`, an `O_NOFOLLOW` walk one component at a time). A symlink that
//! appears on the planned path after planning — a directory swapped for a link, even one that
//! points inside the workspace — makes the access fail ([`BeneathError::SymlinkOnPath`]) instead
//! of being followed, so what a tool reports as written or read is exactly the planned file.
//!
//! Writes pin the parent directory as a handle and work by name inside it: temp files are
//! created with `openat(O_CREAT | O_EXCL | O_NOFOLLOW)`, renamed into place with `renameat`,
//! deleted with `unlinkat`; metadata comes from `fstat` of an open handle. A temp file is
//! removed on every failure path by its guard ([`TempFile`]).
//!
//! rustix (already in the tree through tempfile) provides the system calls; it has no async
//! runtime and is maintained by the Bytecode Alliance.

use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// Prefix of the temp files a write creates next to its target (`.runbound-<random>.tmp`).
pub(crate) const TEMP_PREFIX: &str = ".runbound-";

/// Why an access beneath the root failed.
#[derive(Debug)]
pub(crate) enum BeneathError {
    /// The path is not under the root (as spelled), or has `..`/root components after it.
    NotBeneath(PathBuf),
    /// A symlink sits on the path (`at`: the root-relative prefix that is one, when known).
    SymlinkOnPath { at: Option<PathBuf> },
    /// Any other error of the file system (missing, not a directory, permission, ...).
    Io(io::Error),
}

impl From<io::Error> for BeneathError {
    fn from(err: io::Error) -> BeneathError {
        BeneathError::Io(err)
    }
}

impl std::fmt::Display for BeneathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BeneathError::NotBeneath(path) => write!(f, "{} is not beneath the workspace root", path.display()),
            BeneathError::SymlinkOnPath { at: Some(at) } => {
                write!(f, "{} is now a symlink (it was not when the path was resolved); nothing was followed", at.display())
            }
            BeneathError::SymlinkOnPath { at: None } => {
                write!(f, "a symlink appeared on the path after it was resolved; nothing was followed")
            }
            BeneathError::Io(err) => write!(f, "{err}"),
        }
    }
}

impl BeneathError {
    /// The `io::ErrorKind` of an I/O error (`Other` for the confinement errors).
    pub(crate) fn io_kind(&self) -> io::ErrorKind {
        match self {
            BeneathError::Io(err) => err.kind(),
            _ => io::ErrorKind::Other,
        }
    }

    /// Whether the path (or a prefix of it) does not exist.
    pub(crate) fn is_missing(&self) -> bool {
        matches!(self.io_kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory)
    }
}

/// When `openat2` turned out unavailable (ENOSYS, or EPERM from a seccomp filter), every later
/// open walks instead of asking again.
static OPENAT2_UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// A handle of the workspace root (or of `/` for commits without a workspace) and the
/// operations that resolve beneath it.
pub(crate) struct Beneath {
    root: PathBuf,
    fd: OwnedFd,
    /// Walk with `O_NOFOLLOW` even when `openat2` exists (tests of the fallback).
    force_walk: bool,
}

impl Beneath {
    /// Opens a handle of `root`, which must be an absolute path of a directory (symlinks in it
    /// are followed once, here: the root itself is trusted).
    pub(crate) fn open(root: &Path) -> io::Result<Beneath> {
        let fd = rustix::fs::open(root, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
        Ok(Beneath { root: root.to_path_buf(), fd, force_walk: false })
    }

    /// The root as opened.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root: it must be the root or under it as spelled, with only
    /// normal components after it (what `resolve_in_workspace` returns).
    pub(crate) fn relative<'p>(&self, path: &'p Path) -> Result<&'p Path, BeneathError> {
        let relative = if path.is_absolute() {
            path.strip_prefix(&self.root).map_err(|_| BeneathError::NotBeneath(path.to_path_buf()))?
        } else {
            path
        };
        if relative.components().all(|component| matches!(component, Component::Normal(_))) {
            return Ok(relative);
        }
        Err(BeneathError::NotBeneath(path.to_path_buf()))
    }

    /// Opens `relative` (normal components only; empty: the root) beneath `dir` with `flags`,
    /// following no symlink: with `openat2`, else by an `O_NOFOLLOW` walk.
    fn open_at(&self, dir: BorrowedFd<'_>, relative: &Path, flags: OFlags) -> Result<OwnedFd, BeneathError> {
        let flags = flags | OFlags::CLOEXEC;
        if relative.as_os_str().is_empty() {
            return open_here(dir, flags);
        }
        if !self.force_walk && !OPENAT2_UNAVAILABLE.load(Ordering::Relaxed) {
            let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            let mut attempts = 0;
            loop {
                // No O_NOFOLLOW here: with it, RESOLVE_NO_SYMLINKS hands out an O_PATH handle of a
                // final symlink instead of refusing it.
                match rustix::fs::openat2(dir, relative, flags, Mode::empty(), resolve) {
                    Ok(fd) => return Ok(fd),
                    // The kernel saw a concurrent rename during resolution: try again.
                    Err(Errno::AGAIN) if attempts < 16 => attempts += 1,
                    Err(Errno::NOSYS | Errno::PERM) => {
                        OPENAT2_UNAVAILABLE.store(true, Ordering::Relaxed);
                        break;
                    }
                    Err(Errno::LOOP | Errno::XDEV) => return Err(self.locate_symlink(dir, relative)),
                    Err(err) => return Err(BeneathError::Io(err.into())),
                }
            }
        }
        self.walk(dir, relative, flags)
    }

    /// The `O_NOFOLLOW` walk: each directory opened by name in the one before (`O_PATH`), the
    /// last component opened with `flags | O_NOFOLLOW`; a symlink anywhere is refused.
    fn walk(&self, dir: BorrowedFd<'_>, relative: &Path, flags: OFlags) -> Result<OwnedFd, BeneathError> {
        let components: Vec<&OsStr> = relative.iter().collect();
        let mut current: Option<OwnedFd> = None;
        let mut walked = PathBuf::new();
        for (index, name) in components.iter().enumerate() {
            let here = current.as_ref().map_or(dir, |fd| fd.as_fd());
            walked.push(name);
            let last = index + 1 == components.len();
            let step_flags =
                if last { flags | OFlags::NOFOLLOW } else { OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC };
            let opened = match rustix::fs::openat(here, *name, step_flags, Mode::empty()) {
                Ok(fd) => fd,
                Err(Errno::LOOP) => return Err(BeneathError::SymlinkOnPath { at: Some(walked) }),
                Err(Errno::NOTDIR) if is_symlink_at(here, name) => return Err(BeneathError::SymlinkOnPath { at: Some(walked) }),
                Err(err) => return Err(BeneathError::Io(err.into())),
            };
            // `O_PATH | O_NOFOLLOW` opens a symlink itself instead of failing.
            if (last && flags.contains(OFlags::PATH)) && File::from(opened.try_clone()?).metadata()?.file_type().is_symlink() {
                return Err(BeneathError::SymlinkOnPath { at: Some(walked) });
            }
            current = Some(opened);
        }
        current.ok_or_else(|| BeneathError::Io(io::Error::from(io::ErrorKind::InvalidInput)))
    }

    /// After `openat2` refused a symlink: which prefix of `relative` is one (for the message).
    fn locate_symlink(&self, dir: BorrowedFd<'_>, relative: &Path) -> BeneathError {
        match self.walk(dir, relative, OFlags::PATH) {
            Err(BeneathError::SymlinkOnPath { at }) => BeneathError::SymlinkOnPath { at },
            // Swapped back meanwhile: still a symlink was on the way when we looked.
            _ => BeneathError::SymlinkOnPath { at: None },
        }
    }

    /// Opens the directory `relative` (empty: the root) as an `O_PATH` handle.
    pub(crate) fn open_dir(&self, relative: &Path) -> Result<OwnedFd, BeneathError> {
        self.open_at(self.fd.as_fd(), relative, OFlags::PATH | OFlags::DIRECTORY)
    }

    /// Metadata of what is at `relative` (`Ok(None)` when it does not exist), without following
    /// a symlink there; a symlink on the path is [`BeneathError::SymlinkOnPath`].
    pub(crate) fn metadata(&self, relative: &Path) -> Result<Option<Metadata>, BeneathError> {
        match self.open_at(self.fd.as_fd(), relative, OFlags::PATH) {
            Ok(fd) => Ok(Some(File::from(fd).metadata()?)),
            Err(err) if err.is_missing() => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Opens the file at `relative` for reading (non-blocking open, so a FIFO cannot hang the
    /// call) and returns it with its metadata. A directory opens too: check the metadata.
    pub(crate) fn open_read(&self, relative: &Path) -> Result<(File, Metadata), BeneathError> {
        let fd = self.open_at(self.fd.as_fd(), relative, OFlags::RDONLY | OFlags::NONBLOCK)?;
        let file = File::from(fd);
        let metadata = file.metadata()?;
        Ok((file, metadata))
    }

    /// The names in the directory `relative`, sorted, with whether each is a directory
    /// (entries that are symlinks count as what they are: not directories).
    pub(crate) fn list_dir(&self, relative: &Path) -> Result<Vec<(String, bool)>, BeneathError> {
        let entries = self.list_entries(relative)?;
        let mut listed: Vec<(String, bool)> = entries
            .into_iter()
            .map(|(name, kind)| (name.to_string_lossy().into_owned(), kind == rustix::fs::FileType::Directory))
            .collect();
        listed.sort();
        Ok(listed)
    }

    /// The entries of the directory `relative` (opened beneath the root, read through that
    /// handle), sorted by name, each with its type as the directory says it — a symlink is
    /// `Symlink`, never what it points at (`d_type`; `fstatat(AT_SYMLINK_NOFOLLOW)` in the open
    /// directory when the file system leaves it unknown). `.` and `..` are left out.
    pub(crate) fn list_entries(&self, relative: &Path) -> Result<Vec<(OsString, rustix::fs::FileType)>, BeneathError> {
        let fd = self.open_dir_for_listing(relative)?;
        Ok(read_directory_entries(&fd)?)
    }

    /// Opens the directory `relative` (empty: the root) beneath the root for reading its entries
    /// ([`read_directory_entries`]) and asking about them (`fstatat` in it).
    pub(crate) fn open_dir_for_listing(&self, relative: &Path) -> Result<OwnedFd, BeneathError> {
        self.open_at(self.fd.as_fd(), relative, OFlags::RDONLY | OFlags::DIRECTORY)
    }

    /// Opens the parent directory of `relative` and returns it with the final name. `Ok(None)`
    /// when the parent does not exist.
    pub(crate) fn open_parent(&self, relative: &Path) -> Result<Option<ParentDir>, BeneathError> {
        let (parent, name) = split_parent(relative)?;
        match self.open_dir(parent) {
            Ok(fd) => Ok(Some(ParentDir { fd, relative: parent.to_path_buf(), name: name.to_os_string() })),
            Err(err) if err.is_missing() => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Opens the parent directory of `relative`, creating the missing directories on the way
    /// (each with `mkdirat` in the handle of the one before, mode `0o777` less the umask).
    /// `created` gets the root-relative path of each directory created, outermost first.
    pub(crate) fn create_parent(&self, relative: &Path, created: &mut Vec<PathBuf>) -> Result<ParentDir, BeneathError> {
        let (parent, name) = split_parent(relative)?;
        let mut current = self.open_dir(Path::new(""))?;
        let mut walked = PathBuf::new();
        for component in parent.iter() {
            walked.push(component);
            let opened = match self.open_at(current.as_fd(), Path::new(component), OFlags::PATH | OFlags::DIRECTORY) {
                Ok(fd) => fd,
                Err(err) if err.io_kind() == io::ErrorKind::NotFound => {
                    match rustix::fs::mkdirat(current.as_fd(), component, Mode::from_raw_mode(0o777)) {
                        Ok(()) => created.push(walked.clone()),
                        // Created by someone else meanwhile: use theirs.
                        Err(Errno::EXIST) => {}
                        Err(err) => return Err(BeneathError::Io(err.into())),
                    }
                    self.open_at(current.as_fd(), Path::new(component), OFlags::PATH | OFlags::DIRECTORY)
                        .map_err(|err| with_prefix(err, &walked))?
                }
                Err(err) => return Err(with_prefix(err, &walked)),
            };
            current = opened;
        }
        Ok(ParentDir { fd: current, relative: parent.to_path_buf(), name: name.to_os_string() })
    }

    /// Removes the empty directory `relative` (the commit's rollback of directories it created).
    pub(crate) fn remove_empty_dir(&self, relative: &Path) -> Result<(), BeneathError> {
        let (parent, name) = split_parent(relative)?;
        let fd = self.open_dir(parent)?;
        rustix::fs::unlinkat(fd.as_fd(), name, AtFlags::REMOVEDIR).map_err(|err| BeneathError::Io(err.into()))
    }
}

/// The entries of the open directory `fd`, sorted by name, each with its type as the directory
/// says it — a symlink is `Symlink`, never what it points at (`d_type`; `fstatat(AT_SYMLINK_NOFOLLOW)`
/// in the directory when the file system leaves it unknown). `.` and `..` are left out; an entry
/// removed meanwhile is not listed.
pub(crate) fn read_directory_entries(fd: &OwnedFd) -> io::Result<Vec<(OsString, rustix::fs::FileType)>> {
    let mut dir = rustix::fs::Dir::read_from(fd).map_err(io::Error::from)?;
    let mut entries = Vec::new();
    while let Some(entry) = dir.read() {
        let entry = entry.map_err(io::Error::from)?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let mut kind = entry.file_type();
        if kind == rustix::fs::FileType::Unknown {
            kind = match rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => rustix::fs::FileType::from_raw_mode(stat.st_mode),
                // Removed meanwhile: not listed.
                Err(_) => continue,
            };
        }
        entries.push((name.to_os_string(), kind));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// A symlink error keeps its location; others stay as they are.
fn with_prefix(err: BeneathError, walked: &Path) -> BeneathError {
    match err {
        BeneathError::SymlinkOnPath { .. } => BeneathError::SymlinkOnPath { at: Some(walked.to_path_buf()) },
        other => other,
    }
}

fn open_here(dir: BorrowedFd<'_>, flags: OFlags) -> Result<OwnedFd, BeneathError> {
    rustix::fs::openat(dir, ".", flags, Mode::empty()).map_err(|err| BeneathError::Io(err.into()))
}

fn is_symlink_at(dir: BorrowedFd<'_>, name: &OsStr) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink)
}

fn split_parent(relative: &Path) -> Result<(&Path, &OsStr), BeneathError> {
    match (relative.parent(), relative.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(BeneathError::Io(io::Error::new(io::ErrorKind::InvalidInput, "the workspace root itself is not a file"))),
    }
}

/// A pinned parent directory and the final name of a path inside it.
pub(crate) struct ParentDir {
    fd: OwnedFd,
    /// The directory's root-relative path when it was opened (for messages).
    pub(crate) relative: PathBuf,
    /// The final component.
    pub(crate) name: OsString,
}

impl ParentDir {
    /// Opens the entry for reading without following a symlink there (non-blocking open).
    /// `Ok(None)` when it does not exist; a symlink is [`BeneathError::SymlinkOnPath`].
    pub(crate) fn open_entry(&self) -> Result<Option<(File, Metadata)>, BeneathError> {
        match rustix::fs::openat(
            self.fd.as_fd(),
            &self.name,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => {
                let file = File::from(fd);
                let metadata = file.metadata()?;
                Ok(Some((file, metadata)))
            }
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::LOOP) => Err(BeneathError::SymlinkOnPath { at: Some(self.relative.join(&self.name)) }),
            // A FIFO with no writer cannot be opened O_NONBLOCK for writing, but we open for
            // reading: ENXIO only for sockets; report what it is from the entry itself.
            Err(err) => Err(BeneathError::Io(err.into())),
        }
    }

    /// Metadata of the entry itself (a symlink is reported as one), `Ok(None)` when absent.
    pub(crate) fn entry_metadata(&self) -> Result<Option<Metadata>, BeneathError> {
        match rustix::fs::openat(self.fd.as_fd(), &self.name, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty()) {
            Ok(fd) => Ok(Some(File::from(fd).metadata()?)),
            Err(Errno::NOENT) => Ok(None),
            Err(err) => Err(BeneathError::Io(err.into())),
        }
    }

    /// Creates a temp file next to the entry (`.runbound-<random>.tmp`, mode 0600 until
    /// [`TempFile::set_mode`]), removed again unless [`TempFile::persist`] renames it into place.
    pub(crate) fn create_temp(&self) -> io::Result<TempFile<'_>> {
        for _ in 0..64 {
            let name = OsString::from(format!("{TEMP_PREFIX}{}.tmp", random_suffix()));
            match rustix::fs::openat(
                self.fd.as_fd(),
                &name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            ) {
                Ok(fd) => return Ok(TempFile { parent: self, name, file: File::from(fd), persisted: false }),
                Err(Errno::EXIST) => continue,
                Err(err) => return Err(err.into()),
            }
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "could not find a free temp file name"))
    }

    /// Deletes the entry (`unlinkat`; a symlink there is removed itself, never followed).
    pub(crate) fn remove_entry(&self) -> io::Result<()> {
        rustix::fs::unlinkat(self.fd.as_fd(), &self.name, AtFlags::empty()).map_err(Into::into)
    }

    /// Reads the whole entry when it is a regular file (`Ok(None)` when absent).
    pub(crate) fn read_entry(&self) -> Result<Option<(Vec<u8>, Metadata)>, BeneathError> {
        let Some((mut file, metadata)) = self.open_entry()? else {
            return Ok(None);
        };
        if !metadata.is_file() {
            return Ok(Some((Vec::new(), metadata)));
        }
        let mut content = Vec::with_capacity(metadata.len() as usize);
        file.read_to_end(&mut content)?;
        Ok(Some((content, metadata)))
    }
}

/// A temp file in a pinned directory; unlinked on drop unless persisted.
pub(crate) struct TempFile<'p> {
    parent: &'p ParentDir,
    name: OsString,
    file: File,
    persisted: bool,
}

impl TempFile<'_> {
    /// Writes all of `content`.
    pub(crate) fn write_all(&mut self, content: &[u8]) -> io::Result<()> {
        self.file.write_all(content)
    }

    /// Sets the permission bits (`fchmod`, no umask).
    pub(crate) fn set_mode(&self, mode: u32) -> io::Result<()> {
        rustix::fs::fchmod(self.file.as_fd(), Mode::from_raw_mode(mode)).map_err(Into::into)
    }

    /// Sets the owner and group (`fchown`); fails without privilege.
    pub(crate) fn set_owner(&self, uid: u32, gid: u32) -> io::Result<()> {
        std::os::unix::fs::fchown(&self.file, Some(uid), Some(gid))
    }

    /// `fsync`.
    pub(crate) fn sync(&self) -> io::Result<()> {
        self.file.sync_all()
    }

    /// Renames the temp file over the entry (`renameat` within the pinned directory).
    pub(crate) fn persist(mut self) -> io::Result<()> {
        rustix::fs::renameat(self.parent.fd.as_fd(), &self.name, self.parent.fd.as_fd(), &self.parent.name)?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = rustix::fs::unlinkat(self.parent.fd.as_fd(), &self.name, AtFlags::empty());
        }
    }
}

/// 12 base-36 characters from the standard library's random hasher keys and a counter.
fn random_suffix() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    let mut value = hasher.finish();
    let mut out = String::with_capacity(12);
    for _ in 0..12 {
        let digit = (value % 36) as u32;
        out.push(char::from_digit(digit, 36).unwrap_or('x'));
        value /= 36;
    }
    out
}

/// Whether this process may write the file by its mode bits (also as root, whom the kernel
/// would let write anything): as root, the owner's write bit decides (a `chmod 0444` or
/// `chmod u-w` file is read-only); otherwise the bit of the class the process falls in (owner,
/// group — effective or supplementary —, others), as `ls -l` shows it.
pub(crate) fn writable_by_mode(metadata: &Metadata) -> bool {
    let mode = metadata.mode();
    // SAFETY: these calls only read process credentials.
    let euid = unsafe { libc::geteuid() };
    if euid == 0 || euid == metadata.uid() {
        return mode & 0o200 != 0;
    }
    if in_group(metadata.gid()) {
        return mode & 0o020 != 0;
    }
    mode & 0o002 != 0
}

fn in_group(gid: u32) -> bool {
    // SAFETY: reads process credentials into a buffer of the size asked for.
    unsafe {
        if libc::getegid() == gid {
            return true;
        }
        let count = libc::getgroups(0, std::ptr::null_mut());
        if count <= 0 {
            return false;
        }
        let mut groups = vec![0 as libc::gid_t; count as usize];
        let count = libc::getgroups(count, groups.as_mut_ptr());
        count > 0 && groups[..count as usize].contains(&gid)
    }
}

/// `ls`-style octal permission bits, e.g. `0444`.
pub(crate) fn mode_text(metadata: &Metadata) -> String {
    format!("{:04o}", metadata.mode() & 0o7777)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/file.txt"), "inside").unwrap();
        std::fs::create_dir_all(root.parent().unwrap().join("outside")).unwrap();
        std::fs::write(root.parent().unwrap().join("outside/file.txt"), "outside").unwrap();
        (dir, root)
    }

    fn both(root: &Path) -> [Beneath; 2] {
        let walk = Beneath { force_walk: true, ..Beneath::open(root).unwrap() };
        [Beneath::open(root).unwrap(), walk]
    }

    #[test]
    fn reads_plain_paths_and_refuses_every_symlink() {
        let (_dir, root) = tree();
        symlink(root.parent().unwrap().join("outside"), root.join("out")).unwrap();
        symlink("a", root.join("inside_link")).unwrap();
        symlink("file.txt", root.join("a/b/link.txt")).unwrap();
        for beneath in both(&root) {
            let (mut file, metadata) = beneath.open_read(Path::new("a/b/file.txt")).unwrap();
            let mut text = String::new();
            file.read_to_string(&mut text).unwrap();
            assert_eq!((text.as_str(), metadata.is_file()), ("inside", true));
            for path in ["out/file.txt", "inside_link/b/file.txt", "a/b/link.txt"] {
                match beneath.open_read(Path::new(path)) {
                    Err(BeneathError::SymlinkOnPath { at: Some(at) }) => {
                        assert!(Path::new(path).starts_with(&at), "{path}: {at:?}")
                    }
                    other => panic!("{path} (walk {}): {:?}", beneath.force_walk, other.map(|_| ())),
                }
            }
            assert!(beneath.metadata(Path::new("a/missing/x")).unwrap().is_none());
            assert!(matches!(beneath.metadata(Path::new("a/b/link.txt")), Err(BeneathError::SymlinkOnPath { .. })));
            assert!(beneath.relative(&root.join("../x")).is_err());
            assert!(beneath.relative(Path::new("/elsewhere")).is_err());
        }
    }

    #[test]
    fn creates_parents_writes_through_temp_and_cleans_up() {
        let (_dir, root) = tree();
        for (index, beneath) in both(&root).into_iter().enumerate() {
            let relative = PathBuf::from(format!("new{index}/deeper/file.txt"));
            let mut created = Vec::new();
            let parent = beneath.create_parent(&relative, &mut created).unwrap();
            assert_eq!(created, vec![PathBuf::from(format!("new{index}")), PathBuf::from(format!("new{index}/deeper"))]);
            let mut temp = parent.create_temp().unwrap();
            temp.write_all(b"x").unwrap();
            drop(temp);
            let mut temp = parent.create_temp().unwrap();
            temp.write_all(b"written").unwrap();
            temp.set_mode(0o640).unwrap();
            temp.persist().unwrap();
            let entries = beneath.list_dir(relative.parent().unwrap()).unwrap();
            assert_eq!(entries, vec![("file.txt".to_owned(), false)], "only the file, no temp file");
            assert_eq!(std::fs::read_to_string(root.join(&relative)).unwrap(), "written");
            parent.remove_entry().unwrap();
            for dir in created.iter().rev() {
                beneath.remove_empty_dir(dir).unwrap();
            }
            assert!(!root.join(format!("new{index}")).exists());
        }
    }

    #[test]
    fn mode_bits_decide_writability() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "x").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(!writable_by_mode(&std::fs::metadata(&path).unwrap()));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(writable_by_mode(&std::fs::metadata(&path).unwrap()));
        assert_eq!(mode_text(&std::fs::metadata(&path).unwrap()), "0644");
    }
}
