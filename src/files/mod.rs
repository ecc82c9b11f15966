//! The runner's file tools — `read`, `write`, `edit`, `apply_patch` — with workspace
//! confinement and atomic writes. (Being written.)

use crate::registry::Registry;

/// Caps of the file tools.
#[derive(Debug, Clone)]
pub struct FilesConfig {
    /// Most lines `read` returns in one call (default 2000).
    pub read_max_lines: usize,
    /// Most bytes `read` returns in one call (default 256 KiB).
    pub read_max_bytes: usize,
    /// Longest line `read` returns before cutting it with a marker, in characters (default 2000).
    pub read_max_line_chars: usize,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig { read_max_lines: 2000, read_max_bytes: 256 * 1024, read_max_line_chars: 2000 }
    }
}

pub(crate) fn register_tools(_registry: &mut Registry) {}
