//! The runner's file tools — `read`, `write`, `edit`, `apply_patch` — with workspace
//! confinement and atomic writes.
//!
//! - [`resolve_in_workspace`] confines every path argument to the workspace (`..`, outside
//!   absolute paths and symlinks resolving outside are refused); `crate::render::display_path`
//!   shows paths relative to it.
//! - Every access after that goes through a handle of the root with no symlink followed
//!   (`beneath`: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, or an `O_NOFOLLOW` walk), so
//!   a directory swapped for a symlink between planning and use fails the call instead of
//!   redirecting it.
//! - [`commit_file_changes`] is the one way files are written: expected states verified first,
//!   read-only files (by mode bits, also as root) refused, temp file + rename per file inside
//!   the pinned parent directory, all-or-nothing across files.
//! - `parse_patch` reads both patch formats `apply_patch` accepts; `apply_hunks` locates a
//!   file's hunks in its text (exact, then whitespace-tolerant, like Codex's apply_patch).
//!
//! Other tools that write files (`ast_edit`/`resolve`, `lsp_rename`, the kernel bridge) use these
//! two so that confinement and atomicity hold everywhere.
//! - Every other tool reads files through `tool_read` (`WorkspaceReader`, and the explicitly
//!   named `read_dependency_file_to_string` for dependency code outside the workspace), never by
//!   path.

pub(crate) mod apply;
mod apply_patch;
mod atomic;
mod beneath;
mod common;
mod edit;
pub(crate) mod generated;
pub(crate) mod patch;
pub(crate) mod path;
mod read;
#[cfg(test)]
pub(crate) mod test_exchange;
mod tool_read;
pub(crate) mod walk_beneath;
mod write;

use std::sync::Arc;

pub(crate) use atomic::{commit_file_changes_with_modes, staged_file_state};
// Public: a host's own writing tool (`RunBuilder::writing_tool`) commits through these, so
// confinement, the read-only check and all-or-nothing hold for it as for the built-in tools.
pub use atomic::{commit_file_changes, commit_file_changes_in, ExpectedState, FileChange};
pub(crate) use beneath::Beneath;
pub(crate) use beneath::{mode_text, writable_by_mode};
pub(crate) use common::{
    create_directories_beneath, directory_tree_beneath, metadata_beneath, read_file_beneath, read_file_in, remove_empty_directories_beneath,
};
pub(crate) use path::resolve_in_workspace;
pub(crate) use tool_read::{read_dependency_file_to_string, read_workspace_file_to_string, WorkspaceReader};

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

/// Registers `read`, `write`, `edit` and `apply_patch` (always wired: their resource is the
/// workspace itself) with `config`, the run's `files` section, and the post-write note that a
/// write landed in generated code ([`generated`], for every tool that writes).
pub(crate) fn register_tools(registry: &mut Registry, config: &FilesConfig) {
    let config = config.clone();
    registry.register(read::descriptor(), Arc::new(move |ctx, arguments| read::run(ctx, arguments, &config)));
    registry.register_writing(write::descriptor(), Arc::new(write::run), Arc::new(write::planned_writes));
    registry.register_writing(edit::descriptor(), Arc::new(edit::run), Arc::new(edit::planned_writes));
    registry.register_writing(apply_patch::descriptor(), Arc::new(apply_patch::run), Arc::new(apply_patch::planned_writes));
    generated::register_layer(registry);
}
