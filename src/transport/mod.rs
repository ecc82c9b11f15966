//! Child processes and message framing shared by language servers, debug adapters and kernels.
//!
//! - [`process`]: the only place in the crate that spawns a child process ([`ChildProcess`]:
//!   own process group, absolute cwd, stderr drained into a bounded tail, group killed and
//!   reaped on drop; [`run_to_completion`] for one-shot checker and shell commands).
//! - [`confinement`]: Landlock confinement of a child's file access ([`FilesystemConfinement`]
//!   on a [`ProcessSpec`]): language servers and project checkers read only beneath the
//!   workspace, the dependency roots and system hierarchies, whatever symlink they follow.
//! - [`framing`]: Content-Length frames (LSP, DAP) with header resync and size caps, the DAP
//!   envelope ([`DapMessage`]), and newline-delimited JSON (kernel pipe, MCP stdio host).
//! - [`guardian`]: a Python guardian that runs a program as a child subreaper and kills every
//!   descendant when the host dies (even by SIGKILL); program sources handed to interpreters
//!   through pipes instead of `-c` arguments.
//! - [`rpc`]: [`RpcConnection`], one named reader thread and one named writer thread per peer,
//!   request/response correlation with per-request timeouts, for JSON-RPC 2.0 (`id`: kernel
//!   drivers over JSON lines, Content-Length peers in tests) and DAP (`seq` / `request_seq`).
//! - [`lsp_connection`]: [`LspConnection`], the same shape for language servers in lsp-server's
//!   vocabulary (`lsp_server::{Message, Request, Response, Notification, RequestId}`) over the
//!   hardened framing.
//!
//! Invariants: every blocking wait has a timeout; every thread is named and joined (bounded);
//! every child lives in its own process group and dies with its handle.

pub mod confinement;
pub mod framing;
pub mod guardian;
pub mod lsp_connection;
pub mod process;
// `RpcError` carries the peer's name and stderr tail (~180 bytes): clippy's result_large_err
// stayed quiet while the module was public API and speaks now that it is crate-private; boxing
// the error is its own change.
#[allow(clippy::result_large_err)]
pub mod rpc;

pub use confinement::{ConfinementOutcome, FilesystemConfinement};
pub use lsp_connection::{LspConnection, LspIncoming, LspPendingResponse};
pub use process::{run_to_completion, ChildProcess, ProcessSpec};
pub use rpc::{Incoming, PendingResponse, ResponseError, RpcConnection, RpcError, RpcErrorKind, RpcOptions, WireProtocol};

/// The transport's tests, moved from `tests/it` (they drive real processes: `sleep`, `sh`,
/// `python3`): framing, process groups and reaping, JSON-RPC correlation.
#[cfg(test)]
mod tests;
