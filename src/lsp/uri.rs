//! `file://` URIs ↔ absolute paths (lsp-types 0.97's `Uri` has no path conversion).
//!
//! Encoding percent-escapes every byte outside RFC 3986 unreserved characters and `/`; decoding
//! accepts any escapes (servers spell the same file differently: `%3A` vs `:`, upper or lower hex)
//! and an optional `localhost` authority.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path, e.g. `/a b/é.rs` → `file:///a%20b/%C3%A9.rs`.
pub fn path_to_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'/' | b'-' | b'.' | b'_' | b'~') {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The absolute path of a `file://` URI; `None` for another scheme, a remote authority or a
/// malformed escape.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://").or_else(|| uri.strip_prefix("FILE://"))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut idx = 0;
    while idx < bytes.len() {
        if bytes[idx] == b'%' {
            let hex = std::str::from_utf8(bytes.get(idx + 1..idx + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            idx += 3;
        } else {
            decoded.push(bytes[idx]);
            idx += 1;
        }
    }
    Some(PathBuf::from(OsStr::from_bytes(&decoded)))
}

/// `path_to_uri` as lsp-types' [`lsp_types::Uri`], for typed requests and notifications.
pub fn path_to_lsp_uri(path: &Path) -> lsp_types::Uri {
    // Every byte outside RFC 3986 unreserved characters and `/` is percent-escaped: the text is
    // always a valid URI.
    path_to_uri(path).parse().expect("a percent-escaped file URI is a valid URI")
}

/// [`uri_to_path`] of lsp-types' [`lsp_types::Uri`].
pub fn lsp_uri_to_path(uri: &lsp_types::Uri) -> Option<PathBuf> {
    uri_to_path(uri.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_spaces_and_non_ascii() {
        let path = Path::new("/tmp/a b/é😀[1].rs");
        let uri = path_to_uri(path);
        assert_eq!(uri, "file:///tmp/a%20b/%C3%A9%F0%9F%98%80%5B1%5D.rs");
        assert_eq!(uri_to_path(&uri).unwrap(), path);
        assert_eq!(lsp_uri_to_path(&path_to_lsp_uri(path)).unwrap(), path);
    }

    #[test]
    fn accepts_other_spellings() {
        assert_eq!(uri_to_path("file://localhost/x/a%3ab.rs").unwrap(), Path::new("/x/a:b.rs"));
        assert_eq!(uri_to_path("file:///x/a:b.rs").unwrap(), Path::new("/x/a:b.rs"));
        assert_eq!(uri_to_path("untitled:foo"), None);
        assert_eq!(uri_to_path("file:///x/%zz"), None);
    }
}
