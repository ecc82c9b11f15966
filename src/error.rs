//! `ToolError`: a failure written for an LLM to act on — what failed, on what input, next step.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::result::ToolResult;

/// The class of a tool failure. Stable wire names (snake_case) in `structuredContent.error.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// No tool of that name is registered for this run.
    UnknownTool,
    /// The arguments do not match the tool's input schema or are otherwise invalid.
    InvalidArguments,
    /// The tool exists but its tier is hidden from this caller (R-TIER-2).
    HiddenFromCaller,
    /// A host guardrail refused the call.
    GuardrailDenied,
    /// The approval policy or the human refused the call.
    ApprovalDenied,
    /// A path resolves outside the workspace.
    OutsideWorkspace,
    /// A file or object named by the call does not exist.
    NotFound,
    /// The state on disk or in a session differs from what the call expected.
    Conflict,
    /// The backing resource cannot serve (binary or root marker missing, crashed, not attached).
    Unavailable,
    /// The call ran out of its time budget.
    Timeout,
    /// The call was cancelled by the host.
    Cancelled,
    /// The tool panicked; the run survives.
    Panicked,
    /// An I/O error.
    Io,
    /// Anything else the tool reports.
    Failed,
}

impl ErrorKind {
    /// The snake_case wire name, as serde writes it (`#[serde(rename_all = "snake_case")]`).
    pub fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("failed")
    }
}

/// The shape of every failed call's `structuredContent`: `{"error": {...}}`. Every tool's
/// `outputSchema` declares it next to the tool's own result (see `crate::schema::output_schema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolErrorContent {
    /// What failed and what to do next.
    pub error: ToolErrorBody,
}

/// The error of a failed call, as the model and the host read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolErrorBody {
    /// The class of failure (stable snake_case names).
    pub kind: ErrorKind,
    /// What failed, on what input.
    pub message: String,
    /// The next step, when there is one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hint: Option<String>,
    /// Extra machine-readable detail (e.g. the files that changed since an edit was staged).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub details: Option<Value>,
}

/// A tool failure. `message` says what failed and on what input; `hint` says the next step.
///
/// Rendered into a [`ToolResult`] with `isError: true`: text `error (<kind>): <message>` plus
/// `next: <hint>`, and `structuredContent.error = {kind, message, hint, details}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// The class of failure.
    pub kind: ErrorKind,
    /// What failed, on what input. No trailing period.
    pub message: String,
    /// The next step the model can take, when there is one.
    pub hint: Option<String>,
    /// Extra machine-readable detail (e.g. the list of files that changed).
    pub details: Option<Value>,
}

impl ToolError {
    /// A new error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ToolError {
        ToolError { kind, message: message.into(), hint: None, details: None }
    }

    /// Shorthand for [`ErrorKind::InvalidArguments`].
    pub fn invalid(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::InvalidArguments, message)
    }

    /// Shorthand for [`ErrorKind::Failed`].
    pub fn failed(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Failed, message)
    }

    /// An I/O error on `path` while doing `action` (e.g. "read", "write").
    pub fn io(action: &str, path: &std::path::Path, err: &std::io::Error) -> ToolError {
        let kind = match err.kind() {
            std::io::ErrorKind::NotFound => ErrorKind::NotFound,
            _ => ErrorKind::Io,
        };
        ToolError::new(kind, format!("cannot {action} {}: {err}", path.display()))
    }

    /// Sets the next-step hint.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> ToolError {
        self.hint = Some(hint.into());
        self
    }

    /// Sets machine-readable details.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> ToolError {
        self.details = Some(details);
        self
    }

    /// Renders the error as an MCP result with `isError: true`. The message and the hint are
    /// each cut to [`MAX_ERROR_TEXT_CHARS`] characters (marked): an error that quotes an argument
    /// must not hand a huge one back to the host (a 5 MB path came back twice in a 20 MB answer;
    /// issue 13 adversarial re-run M2).
    pub fn to_result(&self) -> ToolResult {
        let message = crate::render::cut_chars(&self.message, MAX_ERROR_TEXT_CHARS);
        let hint = self.hint.as_deref().map(|hint| crate::render::cut_chars(hint, MAX_ERROR_TEXT_CHARS));
        let mut text = format!("error ({}): {message}", self.kind.as_str());
        if let Some(hint) = &hint {
            text.push_str("\nnext: ");
            text.push_str(hint);
        }
        let content = ToolErrorContent { error: ToolErrorBody { kind: self.kind, message, hint, details: self.details.clone() } };
        ToolResult::error_text(text).with_structured(crate::schema::to_structured(&content))
    }
}

/// The most characters of an error's message (and of its hint) a result carries.
pub const MAX_ERROR_TEXT_CHARS: usize = 16_000;

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (next: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_message_is_cut_in_the_result() {
        let path = "a".repeat(5_000_000);
        let result = ToolError::io("inspect", std::path::Path::new(&path), &std::io::Error::other("File name too long")).to_result();
        let text = result.joined_text();
        assert!(text.len() < 2 * MAX_ERROR_TEXT_CHARS && text.contains("[cut: showing"), "{}", text.len());
        let structured = serde_json::to_string(&result.structured_content).unwrap();
        assert!(structured.len() < 2 * MAX_ERROR_TEXT_CHARS, "{}", structured.len());
    }

    #[test]
    fn renders_kind_message_and_hint() {
        let err = ToolError::new(ErrorKind::NotFound, "no file src/x.rs").with_hint("list the directory first");
        let res = err.to_result();
        assert!(res.is_error);
        assert_eq!(res.joined_text(), "error (not_found): no file src/x.rs\nnext: list the directory first");
        let structured = res.structured_content.unwrap();
        assert_eq!(structured["error"]["kind"], "not_found");
        assert_eq!(structured["error"]["hint"], "list the directory first");
    }
}
