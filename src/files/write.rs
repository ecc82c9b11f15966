//! The `write` tool: create or replace a whole file, atomically, creating parent directories.

use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::files::atomic::{commit_file_changes_in, ExpectedState, FileChange};
use crate::files::common::{count_lines, directory_error, metadata_beneath, read_regular_file};
use crate::files::path::resolve_in_workspace;
use crate::registry::{CallContext, ToolAnnotations, ToolDescriptor, ToolOutput};
use crate::render::{display_path, plural};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

pub(crate) fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "write".to_owned(),
        title: "Write file".to_owned(),
        description: "Create a file, or replace a file's whole content, in the workspace. Parent directories \
                      are created. The write is atomic (temp file + rename) and keeps the file's permissions. \
                      Prefer edit or apply_patch to change part of an existing file. Returns what was written \
                      (`wrote src/a.rs (12 lines, 345 bytes; created)`)."
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<WriteArguments>(),
        output_schema: Some(crate::schema::writing_output_schema::<WriteOutput>()),
        // Replaces a file's content; writing the same content again changes nothing.
        annotations: ToolAnnotations { read_only: false, destructive: true, idempotent: true, open_world: false },
        parallel_safe: true,
        default_timeout: Duration::from_secs(30),
    }
}

/// The arguments of `write`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArguments {
    /// File path relative to the workspace root (or absolute inside it).
    path: String,
    /// The file's complete new content.
    content: String,
}

/// The `structuredContent` of `write`.
#[derive(Serialize, JsonSchema)]
struct WriteOutput {
    /// The file, relative to the workspace root.
    path: String,
    /// What happened to the file.
    action: WriteAction,
    /// Lines of the new content.
    lines: usize,
    /// Bytes of the new content.
    bytes: usize,
    /// Lines the file had before (overwritten), else absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    previous_lines: Option<usize>,
}

/// What `write` did to the file.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum WriteAction {
    /// The file did not exist.
    Created,
    /// The file's content was replaced.
    Overwritten,
    /// The file already had this content: nothing was written.
    Unchanged,
}

/// The file a `write` call will write (its `path`, resolved in the workspace), for the
/// registry's pre-write layers; nothing when the arguments or the path will be refused.
pub(crate) fn planned_writes(ctx: &CallContext<'_>, arguments: &Value) -> Vec<PathBuf> {
    WriteArguments::deserialize(arguments)
        .ok()
        .and_then(|arguments| resolve_in_workspace(ctx.workspace_root(), &arguments.path).ok())
        .into_iter()
        .collect()
}

pub(crate) fn run(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let arguments: WriteArguments = ctx.parse_arguments(arguments)?;
    let root = ctx.workspace_root();
    let path = resolve_in_workspace(root, &arguments.path)?;
    let shown = display_path(root, &path);
    let previous = match metadata_beneath(root, &path)? {
        Some(metadata) if metadata.is_dir() => return Err(directory_error(root, &path, "write")),
        Some(metadata) if metadata.file_type().is_symlink() => {
            return Err(ToolError::new(
                ErrorKind::Conflict,
                format!("{shown} became a symlink after its path was resolved; nothing was written"),
            )
            .with_hint("another process is changing the workspace; check the path and retry"))
        }
        Some(metadata) if !metadata.is_file() => {
            return Err(ToolError::invalid(format!(
                "{shown} is not a regular file (a FIFO, socket or device); write replaces regular files only"
            ))
            .with_hint("write to a regular file path"))
        }
        Some(_) => Some(read_regular_file(root, &path, "write")?),
        None => None,
    };
    let lines = count_lines(&arguments.content);
    let bytes = arguments.content.len();
    if previous.as_deref() == Some(arguments.content.as_bytes()) {
        let result = ToolResult::text(format!("{shown} unchanged: it already has this content ({}, {bytes} bytes)", plural(lines, "line")))
            .with_structured(to_structured(&WriteOutput {
                path: shown,
                action: WriteAction::Unchanged,
                lines,
                bytes,
                previous_lines: None,
            }));
        return Ok(ToolOutput::new(result));
    }
    let expected = match &previous {
        Some(content) => ExpectedState::Content(content.clone()),
        None => ExpectedState::Absent,
    };
    let change = FileChange { path, new_content: Some(arguments.content.into_bytes()), expected };
    // A call cancelled (or out of time) before this point writes nothing.
    ctx.check_continue("about to write")?;
    let written = commit_file_changes_in(root, &[change])?;
    let (action, detail) = match &previous {
        None => (WriteAction::Created, "created".to_owned()),
        Some(old) => (WriteAction::Overwritten, format!("replaced {}", plural(count_lines(&String::from_utf8_lossy(old)), "line"))),
    };
    let result = ToolResult::text(format!("wrote {shown} ({}, {bytes} bytes; {detail})", plural(lines, "line"))).with_structured(
        to_structured(&WriteOutput {
            path: shown,
            action,
            lines,
            bytes,
            previous_lines: previous.as_ref().map(|old| count_lines(&String::from_utf8_lossy(old))),
        }),
    );
    Ok(ToolOutput::new(result).with_written_paths(written))
}
