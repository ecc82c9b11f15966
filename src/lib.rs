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

// The public API is what an embedding runtime needs (see ARCHITECTURE.md, "Public API"):
// the run and its builder and configuration at the root, the vocabulary (errors, results,
// tiers, trust, events, progress), the registry's extension points, and per area the
// configuration section, the resource handle and what a host plugs in (ask ports, worker
// backends, kernel factory, debug supervisor, server table). Everything else is crate-private:
// its tests are unit tests next to it.
pub mod ask;
pub mod debug;
pub mod error;
pub mod events;
pub mod files;
pub mod kernel;
pub mod lsp;
pub mod processes;
pub mod progress;
mod python_env;
pub mod registry;
mod render;
pub mod result;
mod run;
mod schema;
pub mod serve;
pub mod staged;
pub mod status;
pub mod structural;
pub mod tier;
mod transport;
pub mod trust;
pub mod vibe;

#[cfg(test)]
mod contract_tests;
#[cfg(test)]
mod test_support;
// Lets unit tests moved from `tests/it` and the helpers shared with it (`src/test_support.rs`)
// name the crate `runbound::` as the integration tests do.
#[cfg(test)]
extern crate self as runbound;

// Entry points of the fuzz targets in `fuzz/` (a separate crate, so they must be `pub`); not
// part of the API and exempt from semver: nothing else may use this module.
#[doc(hidden)]
pub mod fuzzing;

// Entry points of the benches in `benches/` (separate crates too); same terms as `fuzzing`.
#[doc(hidden)]
pub mod benching;

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
