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
//!
//! # Public API
//!
//! What a runtime embedding runbound needs, and nothing of the machinery below the tools
//! (transport, framing, rendering, schemas, the language-server and DAP clients, the pattern
//! compiler: crate-private, tested by unit tests next to them). ARCHITECTURE.md, "Public API",
//! says the same with the reasons.
//!
//! - The run, at the root: [`Run`], [`RunBuilder`], [`RunConfig`] (one section per area: the
//!   configuration types below), [`RunError`].
//! - The vocabulary, at the root and in its modules: [`ToolResult`] / [`Content`]
//!   ([`result`]), [`ToolError`] / [`ErrorKind`] ([`error`]), [`Caller`], [`Tier`], [`Approval`],
//!   [`ApprovalPolicy`] ([`tier`]), [`WorkspaceTrust`] ([`trust`]), [`RunEvent`] / [`EventLevel`]
//!   ([`events`]), [`ProgressUpdate`] ([`progress`]).
//! - The registry's extension points ([`registry`]): a host's own tools ([`ToolDescriptor`],
//!   [`ToolHandler`], [`ToolOutput`], `WritePlanner`), resources, guardrails, pre-/post-write and
//!   post-call layers, permission prompts, [`CallOptions`], [`CallContext`], [`CancelToken`].
//! - Per area, its configuration section, its resource handle (what `Run::kernels()`,
//!   `Run::lsp_supervisor()`, … return) and what a host plugs in:
//!   [`ask`] (the `AskPort` trait, `ScriptedAskPort`, `TerminalAskPort`, `ChannelAskPort`,
//!   `AskConfig`), [`vibe`] (`WorkerBackend`, `CommandBackend`, `ClosureBackend`, `RayBackend`,
//!   `VibeSetup`, `VibeConfig`, the `Roster` handle, `tools_for_worker`, the inherited-caller
//!   environment), [`kernel`] (`KernelFactory`, `KernelSelection`, `Sandbox`, `KernelConfig`,
//!   `Kernels`), [`debug`] (`DebugSupervisor`, `DebugConfig`), [`lsp`] (`LspConfig`, the server
//!   table `ServerDefinition` / `builtin_servers`, `LspSupervisor` and its `LspStatus`),
//!   [`structural`] (`StructuralConfig`, `StructuralResource`), [`staged`] (`StagedConfig`,
//!   `StagedResource::pending_count`), [`files`] (`FilesConfig`, and the atomic commit a host's
//!   own writing tool uses: `commit_file_changes_in`).
//! - Hosting: [`serve`] (one run as an MCP server over stdio), [`status`] (the kernels and
//!   debug-adapter reports a status display shows), [`processes`] (reaping adopted orphans and
//!   finding descendants, for a host that is a child subreaper; the CLI is one).
//!
//! Two modules are `#[doc(hidden)]` and not API: `fuzzing` and `benching` re-export the entry
//! points of `fuzz/` and `benches/`, which are separate crates.

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
