//! Helpers shared by the file tools: loading a text file for a tool with LLM-ready errors
//! (missing, directory, binary, not UTF-8), line counting and numbered excerpts.

use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde_json::json;

use crate::error::{ErrorKind, ToolError};
use crate::files::beneath::{Beneath, BeneathError};
use crate::render::{cut_chars, display_path, plural, truncation_notice};

/// How many bytes at the start of a file are checked for NUL to call it binary (git's rule).
pub(crate) const BINARY_SNIFF_BYTES: usize = 8000;

/// Most directory entries listed in an error or hint.
const MAX_LISTED_ENTRIES: usize = 50;

/// Reads the regular file at `path` (already resolved) as UTF-8 text for `tool`, or explains
/// why not: missing (listing what is near), a directory (listing it), not a regular file,
/// binary, not UTF-8. Read beneath the root with no symlink followed (see
/// [`crate::files::beneath`]).
pub(crate) fn read_text_file(root: &Path, path: &Path, tool: &str) -> Result<String, ToolError> {
    let bytes = read_regular_file(root, path, tool)?;
    let shown = display_path(root, path);
    if is_binary(&bytes) {
        return Err(binary_error(&shown, bytes.len() as u64, &bytes, tool));
    }
    String::from_utf8(bytes).map_err(|err| {
        ToolError::invalid(format!(
            "{shown} is not valid UTF-8 (invalid byte at offset {}); {tool} changes UTF-8 text files only",
            err.utf8_error().valid_up_to()
        ))
        .with_hint("convert the file to UTF-8 first, or replace it whole with write")
    })
}

/// Reads the bytes of the regular file at `path`, with the errors of [`read_text_file`] for a
/// missing path, a directory or a special file.
pub(crate) fn read_regular_file(root: &Path, path: &Path, tool: &str) -> Result<Vec<u8>, ToolError> {
    let (mut file, metadata) = open_regular_file(root, path, tool)?;
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.read_to_end(&mut bytes).map_err(|err| ToolError::io("read", Path::new(&display_path(root, path)), &err))?;
    Ok(bytes)
}

/// A handle of the workspace root for the file tools.
pub(crate) fn open_root(root: &Path) -> Result<Beneath, ToolError> {
    Beneath::open(root).map_err(|err| {
        ToolError::new(ErrorKind::Io, format!("cannot open the workspace root {}: {err}", root.display()))
            .with_hint("the workspace directory must exist; restart the run on an existing directory")
    })
}

/// `path` (absolute, from `resolve_in_workspace`) relative to the root of `beneath`.
pub(crate) fn relative_to<'p>(beneath: &Beneath, path: &'p Path) -> Result<&'p Path, ToolError> {
    beneath.relative(path).map_err(|_| {
        ToolError::new(ErrorKind::OutsideWorkspace, format!("{} is not inside the workspace {}", path.display(), beneath.root().display()))
            .with_hint("use a path inside the workspace, relative to its root (e.g. src/main.rs)")
    })
}

/// The error for an access that met a symlink that was not there when the path was resolved.
pub(crate) fn access_error(shown: &str, action: &str, err: BeneathError) -> ToolError {
    match err {
        BeneathError::SymlinkOnPath { .. } => ToolError::new(ErrorKind::Conflict, format!("cannot {action} {shown}: {err}"))
            .with_hint("a directory on the way was replaced by a symlink after the path was resolved (is another process changing the workspace?); check the path and retry"),
        BeneathError::NotBeneath(_) => ToolError::new(ErrorKind::OutsideWorkspace, format!("cannot {action} {shown}: {err}")),
        BeneathError::Io(io) => ToolError::io(action, Path::new(shown), &io),
    }
}

/// The bytes of the regular file at the absolute `path`, read beneath `root` with no symlink
/// followed (`Ok(None)` when nothing is there). For other tools' planning reads (`lsp_rename`)
/// so that a swapped directory cannot make them read outside the workspace.
///
/// # Errors
/// The I/O error; a symlink on the path, a path outside `root`, or a directory or special file
/// at it are errors too.
pub(crate) fn read_file_beneath(root: &Path, path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    read_file_in(&Beneath::open(root)?, path)
}

/// [`read_file_beneath`] with the root already opened: for callers that read many files (a
/// structural walk opens the root once, not once per file).
///
/// # Errors
/// As [`read_file_beneath`].
pub(crate) fn read_file_in(beneath: &Beneath, path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    let relative = beneath.relative(path).map_err(|err| std::io::Error::other(err.to_string()))?;
    let (mut file, metadata) = match beneath.open_read(relative) {
        Ok(opened) => opened,
        Err(err) if err.is_missing() => return Ok(None),
        Err(BeneathError::Io(err)) => return Err(err),
        Err(err) => return Err(std::io::Error::other(err.to_string())),
    };
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Metadata of what is at `path` beneath the root (`Ok(None)`: nothing there), no symlink
/// followed.
pub(crate) fn metadata_beneath(root: &Path, path: &Path) -> Result<Option<fs::Metadata>, ToolError> {
    let beneath = open_root(root)?;
    let relative = relative_to(&beneath, path)?;
    beneath.metadata(relative).map_err(|err| access_error(&display_path(root, path), "inspect", err))
}

/// What a directory beneath the root holds, for moving it whole ([`directory_tree_beneath`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct DirectoryTree {
    /// Every regular file beneath it, at any depth (absolute paths, sorted), with its permission
    /// bits (`mode & 0o7777`), which a moved file keeps.
    pub(crate) files: Vec<(std::path::PathBuf, u32)>,
    /// The directory itself and every directory beneath it (absolute), outermost first.
    pub(crate) directories: Vec<std::path::PathBuf>,
}

/// The tree of the directory at `directory` beneath the root (listed through handles beneath it,
/// no symlink followed): `Ok(None)` when `directory` is not a directory (a file, or nothing).
///
/// # Errors
/// `failed` when the tree holds an entry that is neither a regular file nor a directory (a
/// symlink, a FIFO, a socket, a device: moving it as a file would change what it is), more than
/// `max_files` files (or directories) or more than `max_bytes` bytes in them (each file is read into memory for
/// the all-or-nothing commit; review46 #10), each error naming the path and saying nothing was
/// changed; `io` /
/// `conflict` when a directory cannot be listed beneath the root.
pub(crate) fn directory_tree_beneath(
    root: &Path,
    directory: &Path,
    max_files: usize,
    max_bytes: u64,
) -> Result<Option<DirectoryTree>, ToolError> {
    let beneath = open_root(root)?;
    let relative = relative_to(&beneath, directory)?.to_path_buf();
    match beneath.metadata(&relative).map_err(|err| access_error(&display_path(root, directory), "inspect", err))? {
        Some(metadata) if metadata.is_dir() => {}
        _ => return Ok(None),
    }
    let mut tree = DirectoryTree::default();
    let mut total_bytes: u64 = 0;
    let mut pending = vec![relative];
    while let Some(current) = pending.pop() {
        // Directories count against the cap too: each is recreated under the new path
        // (review47 L2: a tree of 100k empty directories was listed and recreated unbounded).
        if tree.directories.len() >= max_files {
            return Err(ToolError::new(
                ErrorKind::Failed,
                format!(
                    "{} holds more than {max_files} directories: runbound moves at most that many in one all-or-nothing change; nothing was changed",
                    display_path(root, directory)
                ),
            )
            .with_hint("move the directory yourself (`git mv` or `mv`), then rename the package with the files in place"));
        }
        tree.directories.push(root.join(&current));
        let entries = beneath.list_entries(&current).map_err(|err| access_error(&display_path(root, &root.join(&current)), "list", err))?;
        let mut subdirectories = Vec::new();
        for (name, kind) in entries {
            let entry = current.join(&name);
            let shown = display_path(root, &root.join(&entry));
            match kind {
                rustix::fs::FileType::Directory => subdirectories.push(entry),
                rustix::fs::FileType::RegularFile => {
                    if tree.files.len() >= max_files {
                        return Err(ToolError::new(
                            ErrorKind::Failed,
                            format!(
                                "{} holds more than {max_files} files: runbound moves at most that many in one all-or-nothing change; nothing was changed",
                                display_path(root, directory)
                            ),
                        ));
                    }
                    let metadata = beneath.metadata(&entry).map_err(|err| access_error(&shown, "inspect", err))?;
                    let mode = metadata.as_ref().map_or(0o644, |metadata| metadata.mode() & 0o7777);
                    total_bytes += metadata.as_ref().map_or(0, |metadata| metadata.len());
                    if total_bytes > max_bytes {
                        return Err(ToolError::new(
                            ErrorKind::Failed,
                            format!(
                                "{} holds more than {} in its files (at {shown}): runbound moves at most that much in one all-or-nothing change, each file read into memory; nothing was changed",
                                display_path(root, directory),
                                byte_cap_text(max_bytes)
                            ),
                        )
                        .with_hint("move the directory yourself (`git mv` or `mv`), then rename the package with the files in place"));
                    }
                    tree.files.push((root.join(&entry), mode));
                }
                other => {
                    let what = if other == rustix::fs::FileType::Symlink { "a symlink" } else { "a special file (FIFO, socket or device)" };
                    return Err(ToolError::new(
                        ErrorKind::Failed,
                        format!(
                            "{} holds {what}, {shown}: runbound moves directories of regular files only (a moved copy would not be {what}); nothing was changed",
                            display_path(root, directory)
                        ),
                    ));
                }
            }
        }
        // Depth first, in name order: the listing is sorted by name.
        pending.extend(subdirectories.into_iter().rev());
    }
    tree.files.sort();
    Ok(Some(tree))
}

/// A byte cap as a message says it: `64 MiB` for a whole number of MiB, else exactly in bytes
/// (`1572865 bytes`; review47 L4: `max_bytes >> 20` said "1 MiB" for 1.5 MiB).
fn byte_cap_text(max_bytes: u64) -> String {
    if max_bytes >= 1 << 20 && max_bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", max_bytes >> 20)
    } else {
        format!("{max_bytes} bytes")
    }
}

/// Removes each of `directories` (absolute, beneath the root) that is empty, innermost first
/// (deepest path first), through handles beneath the root; a directory that is not empty, or
/// cannot be removed, stays. Returns those that stay (the directories a move left behind).
pub(crate) fn remove_empty_directories_beneath(root: &Path, directories: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let Ok(beneath) = Beneath::open(root) else { return directories.to_vec() };
    let mut deepest_first: Vec<&std::path::PathBuf> = directories.iter().collect();
    deepest_first.sort_by_key(|directory| std::cmp::Reverse(directory.components().count()));
    deepest_first
        .into_iter()
        .filter(|directory| {
            let Ok(relative) = beneath.relative(directory) else { return true };
            beneath.remove_empty_dir(relative).is_err()
        })
        .cloned()
        .collect()
}

/// Creates each of `directories` (absolute, beneath the root) that is missing, with the
/// directories above it, through handles beneath the root (no symlink followed). Returns those
/// that could not be created. A directory move recreates the empty directories of the tree it
/// moved with this (review46 #10: `testdata/empty/` vanished).
pub(crate) fn create_directories_beneath(root: &Path, directories: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let Ok(beneath) = Beneath::open(root) else { return directories.to_vec() };
    directories
        .iter()
        .filter(|directory| {
            let Ok(relative) = beneath.relative(directory) else { return true };
            let mut created = Vec::new();
            // The parent of a child name inside it is the directory itself.
            beneath.create_parent(&relative.join("child"), &mut created).is_err()
        })
        .cloned()
        .collect()
}

/// Opens the existing regular file at `path` for reading, beneath the root with no symlink
/// followed; otherwise the error a file tool gives (missing, directory, special file).
pub(crate) fn open_regular_file(root: &Path, path: &Path, tool: &str) -> Result<(File, fs::Metadata), ToolError> {
    let shown = display_path(root, path);
    let beneath = open_root(root)?;
    let relative = relative_to(&beneath, path)?;
    // Look before opening: opening a device can have effects of its own.
    let metadata = match beneath.metadata(relative) {
        Ok(Some(metadata)) => metadata,
        Ok(None) => return Err(not_found_error(root, path, tool)),
        Err(err) => return Err(access_error(&shown, "open", err)),
    };
    if metadata.is_dir() {
        return Err(directory_error(root, path, tool));
    }
    if !metadata.is_file() {
        return Err(ToolError::invalid(format!(
            "{shown} is not a regular file (a device, socket or FIFO); {tool} works on regular files only"
        )));
    }
    let (file, opened) = match beneath.open_read(relative) {
        Ok(opened) => opened,
        Err(err) if err.is_missing() => return Err(not_found_error(root, path, tool)),
        Err(err) => return Err(access_error(&shown, "open", err)),
    };
    if (opened.dev(), opened.ino()) != (metadata.dev(), metadata.ino()) || !opened.is_file() {
        return Err(ToolError::new(ErrorKind::Conflict, format!("{shown} was replaced while {tool} opened it"))
            .with_hint("another process is changing the file; retry"));
    }
    Ok((file, opened))
}

/// "no file X" with the nearest existing directory's entries as a hint.
pub(crate) fn not_found_error(root: &Path, path: &Path, tool: &str) -> ToolError {
    let shown = display_path(root, path);
    let mut error = ToolError::new(ErrorKind::NotFound, format!("{tool}: no file {shown}"));
    let Ok(beneath) = Beneath::open(root) else {
        return error;
    };
    let Ok(relative) = beneath.relative(path) else {
        return error;
    };
    let mut ancestor = relative.parent();
    while let Some(dir) = ancestor {
        if dir.as_os_str().is_empty() || beneath.metadata(dir).ok().flatten().is_some_and(|metadata| metadata.is_dir()) {
            break;
        }
        ancestor = dir.parent();
    }
    let Some(dir) = ancestor else {
        return error;
    };
    let (entries, total) = list_directory(&beneath, dir);
    let dir_shown = display_path(root, &root.join(dir));
    let wanted = path.file_name().map(|name| name.to_string_lossy().to_lowercase()).unwrap_or_default();
    let similar: Vec<&String> = entries
        .iter()
        .filter(|entry| {
            let entry = entry.trim_end_matches('/').to_lowercase();
            !wanted.is_empty()
                && (entry.contains(&wanted)
                    || wanted.contains(&entry)
                    || similar::TextDiff::from_chars(entry.as_str(), wanted.as_str()).ratio() >= 0.75)
        })
        .collect();
    let hint = if similar.is_empty() {
        format!("{dir_shown} holds {}", describe_entries(&entries, total))
    } else {
        let names: Vec<&str> = similar.iter().map(|entry| entry.as_str()).collect();
        format!("did you mean one of these in {dir_shown}: {}?", names.join(", "))
    };
    error = error.with_hint(hint);
    error.with_details(json!({"path": shown, "nearest_directory": dir_shown, "entries": entries, "entry_count": total}))
}

/// "X is a directory" listing its entries.
pub(crate) fn directory_error(root: &Path, path: &Path, tool: &str) -> ToolError {
    let shown = display_path(root, path);
    let (entries, total) = match Beneath::open(root) {
        Ok(beneath) => match beneath.relative(path) {
            Ok(relative) => list_directory(&beneath, relative),
            Err(_) => (Vec::new(), 0),
        },
        Err(_) => (Vec::new(), 0),
    };
    let example = entries.iter().find(|entry| !entry.ends_with('/'));
    let hint = match example {
        Some(file) if shown == "." => format!("call {tool} on one of its files, e.g. {file}"),
        Some(file) => format!("call {tool} on one of its files, e.g. {shown}/{file}"),
        None => format!("call {tool} on a file, not a directory"),
    };
    ToolError::invalid(format!("{shown} is a directory, not a file; it holds {}", describe_entries(&entries, total)))
        .with_hint(hint)
        .with_details(json!({"path": shown, "entries": entries, "entry_count": total}))
}

/// Whether `bytes` look binary: a NUL in the first [`BINARY_SNIFF_BYTES`].
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// "X is a binary file (N bytes, PNG image)"; `head` is the file's first bytes.
pub(crate) fn binary_error(shown: &str, size: u64, head: &[u8], tool: &str) -> ToolError {
    let kind = binary_kind(head).map(|kind| format!(", {kind}")).unwrap_or_default();
    ToolError::invalid(format!("{shown} is a binary file ({size} bytes{kind}); {tool} works on text files only"))
        .with_hint("binary files cannot be shown or edited as text; use a tool that understands the format")
}

/// A name for common binary formats by their magic bytes.
pub(crate) fn binary_kind(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: [(&[u8], &str); 9] = [
        (b"\x89PNG", "PNG image"),
        (b"\xFF\xD8\xFF", "JPEG image"),
        (b"GIF8", "GIF image"),
        (b"%PDF", "PDF document"),
        (b"PK\x03\x04", "zip archive"),
        (b"\x7FELF", "ELF executable"),
        (b"\x1F\x8B", "gzip archive"),
        (b"\0asm", "WebAssembly module"),
        (b"SQLite format 3", "SQLite database"),
    ];
    MAGIC.iter().find(|(magic, _)| bytes.starts_with(magic)).map(|(_, name)| *name)
}

/// Number of lines of `text`: a final line without a newline counts; a trailing newline does
/// not start another line.
pub(crate) fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    text.matches('\n').count() + usize::from(!text.ends_with('\n'))
}

/// 1-based line number of byte `offset` in `text`.
pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&byte| byte == b'\n').count() + 1
}

/// Lines `first..=last` (1-based, clamped) of `text` as `N\tline`, each cut at 400 characters.
pub(crate) fn numbered_excerpt(text: &str, first: usize, last: usize) -> String {
    let mut out = String::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if number < first.max(1) {
            continue;
        }
        if number > last {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        out.push_str(&format!("{number}\t{}", cut_chars(line, 400)));
    }
    out
}

/// Sorted entry names of the directory `relative` beneath the root (directories end with
/// `/`), at most [`MAX_LISTED_ENTRIES`], and the total count. Symlinks are listed by name, not
/// followed.
fn list_directory(beneath: &Beneath, relative: &Path) -> (Vec<String>, usize) {
    let Ok(listed) = beneath.list_dir(relative) else {
        return (Vec::new(), 0);
    };
    let mut entries: Vec<String> = listed.into_iter().map(|(name, is_dir)| if is_dir { format!("{name}/") } else { name }).collect();
    entries.sort();
    let total = entries.len();
    entries.truncate(MAX_LISTED_ENTRIES);
    (entries, total)
}

fn describe_entries(entries: &[String], total: usize) -> String {
    if total == 0 {
        return "no entries (it is empty)".to_owned();
    }
    let mut text = format!("{}: {}", plural(total, "entry"), entries.join(", "));
    if let Some(notice) = truncation_notice(entries.len(), total, "entries") {
        text.push_str(&format!(" ({notice})"));
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_byte_cap_is_said_exactly() {
        assert_eq!(super::byte_cap_text(64 << 20), "64 MiB");
        assert_eq!(super::byte_cap_text((3 << 20) / 2), "1572864 bytes");
        assert_eq!(super::byte_cap_text(8), "8 bytes");
    }
}
