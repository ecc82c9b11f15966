//! runbound: built-in agent tools bound to the live resources of one run.
//!
//! A [`Run`] owns a workspace root, a conversation id, a [`RunConfig`], a tool [`Registry`] and
//! the resources its tools are bound to. Every tool is a plain blocking function with an
//! explicit deadline; every call passes one pipeline (tier check, schema validation,
//! guardrails, approvals, the tool under its deadline with panics caught, post-write layers).
//! Results use MCP's `CallToolResult` JSON shape.
//!
//! ```
//! use runbound::{Caller, Run};
//! use serde_json::json;
//!
//! let workspace = tempfile::tempdir().unwrap();
//! std::fs::write(workspace.path().join("hello.txt"), "hello\nworld\n").unwrap();
//! let run = Run::builder(workspace.path()).build().unwrap();
//! let names: Vec<&str> = run.tools(Caller::Readonly).iter().map(|t| t.name.as_str()).collect();
//! assert!(names.contains(&"read") && !names.contains(&"write"));
//! let result = run.call(Caller::Main, "read", json!({"path": "hello.txt"}));
//! assert!(!result.is_error, "{}", result.joined_text());
//! assert!(result.joined_text().contains("2\tworld"));
//! ```

#![deny(missing_docs)]

pub mod ask;
pub mod debug;
pub mod error;
pub mod events;
pub mod files;
pub mod kernel;
pub mod lsp;
pub mod progress;
pub mod python_env;
pub mod registry;
pub mod render;
pub mod result;
pub mod run;
pub mod schema;
pub mod serve;
pub mod staged;
pub mod structural;
pub mod tier;
pub mod transport;
pub mod trust;
pub mod vibe;

pub use error::{ErrorKind, ToolError};
pub use events::{EventLevel, RunEvent};
pub use progress::ProgressUpdate;
pub use registry::{CallContext, CallOptions, CallOrigin, CancelToken, Registry, ToolAnnotations, ToolDescriptor, ToolHandler, ToolOutput};
pub use result::{Content, ToolResult};
pub use run::{Run, RunBuilder, RunConfig, RunError};
pub use tier::{Approval, ApprovalPolicy, Caller, Tier};
pub use trust::WorkspaceTrust;

/// The README's code blocks, compiled and run as doctests so the embedding example stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
