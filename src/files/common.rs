//! Helpers shared by the file tools: loading a text file for a tool with LLM-ready errors
//! (missing, directory, binary, not UTF-8), line counting and numbered excerpts.

use std::fs;
use std::io;
use std::path::Path;

use serde_json::json;

use crate::error::{ErrorKind, ToolError};
use crate::render::{cut_chars, display_path, plural, truncation_notice};

/// How many bytes at the start of a file are checked for NUL to call it binary (git's rule).
pub(crate) const BINARY_SNIFF_BYTES: usize = 8000;

/// Most directory entries listed in an error or hint.
const MAX_LISTED_ENTRIES: usize = 50;

/// Reads the regular file at `path` (already resolved) as UTF-8 text for `tool`, or explains
/// why not: missing (listing what is near), a directory (listing it), not a regular file,
/// binary, not UTF-8.
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
    check_regular_file(root, path, tool)?;
    fs::read(path).map_err(|err| ToolError::io("read", Path::new(&display_path(root, path)), &err))
}

/// `Ok` when `path` is an existing regular file; otherwise the error a file tool gives.
pub(crate) fn check_regular_file(root: &Path, path: &Path, tool: &str) -> Result<fs::Metadata, ToolError> {
    let shown = display_path(root, path);
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            return Err(not_found_error(root, path, tool))
        }
        Err(err) => return Err(ToolError::io("open", Path::new(&shown), &err)),
    };
    if metadata.is_dir() {
        return Err(directory_error(root, path, tool));
    }
    if !metadata.is_file() {
        return Err(ToolError::invalid(format!(
            "{shown} is not a regular file (a device, socket or FIFO); {tool} works on regular files only"
        )));
    }
    Ok(metadata)
}

/// "no file X" with the nearest existing directory's entries as a hint.
pub(crate) fn not_found_error(root: &Path, path: &Path, tool: &str) -> ToolError {
    let shown = display_path(root, path);
    let mut ancestor = path.parent();
    while let Some(dir) = ancestor {
        if dir.is_dir() || !dir.starts_with(root) {
            break;
        }
        ancestor = dir.parent();
    }
    let mut error = ToolError::new(ErrorKind::NotFound, format!("{tool}: no file {shown}"));
    let Some(dir) = ancestor.filter(|dir| dir.starts_with(root)) else {
        return error;
    };
    let (entries, total) = list_directory(dir);
    let dir_shown = display_path(root, dir);
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
    let (entries, total) = list_directory(path);
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

/// Sorted entry names of `dir` (directories end with `/`), at most [`MAX_LISTED_ENTRIES`],
/// and the total count.
fn list_directory(dir: &Path) -> (Vec<String>, usize) {
    let Ok(read_dir) = fs::read_dir(dir) else {
        return (Vec::new(), 0);
    };
    let mut entries: Vec<String> = read_dir
        .flatten()
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
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
