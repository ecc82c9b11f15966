//! Entry points of the cargo-fuzz targets in `fuzz/fuzz_targets/` (hidden from the docs).
//!
//! The fuzz crate is a separate crate, so what it drives has to be `pub`; it is re-exported here
//! and nowhere else. Not part of runbound's API and exempt from semver: nothing but `fuzz/` may
//! use this module. Add an item here only together with the fuzz target that needs it.

/// `apply_patch` parsing and hunk location (`fuzz_targets/apply_patch_parse.rs`).
pub use crate::files::apply::apply_hunks;
/// `apply_patch` parsing (`fuzz_targets/apply_patch_parse.rs`).
pub use crate::files::patch::{parse_patch, FileOperation};
/// Workspace path resolution (`fuzz_targets/workspace_path_resolution.rs`).
pub use crate::files::path::resolve_in_workspace;
/// The pattern and rule compilers and matching (`fuzz_targets/pattern_compiler.rs`,
/// `fuzz_targets/rule_compiler.rs`).
pub use crate::structural::compile::{compile_pattern, compile_pattern_in_context};
/// The context table the pattern compiler tries (`fuzz_targets/pattern_compiler.rs` picks one
/// context of it by the input's first byte).
pub use crate::structural::contexts::language_contexts;
/// The bounded rule evaluator through the tool's per-file scan, its budget and cut, and
/// ast-grep's own `RuleCore` as the reference (`fuzz_targets/rule_evaluator.rs`).
pub use crate::structural::evaluate::{CutReason, MatchBudget};
/// See above.
pub use crate::structural::query::Query;
/// See above.
pub use crate::structural::rule::{compile_rule, RuleInput};
/// See above.
pub use crate::structural::tools::{match_source, match_source_with};
/// See above.
pub use crate::structural::tools::{match_source_with_rule_core, match_source_within, StructuralMatch};
/// Framing: Content-Length (LSP, DAP), DAP envelopes and JSON lines
/// (`fuzz_targets/content_length_framing.rs`, `dap_message_decode.rs`, `json_lines_framing.rs`).
pub use crate::transport::framing::{
    decode_lsp_message, read_content_length_frame_reporting_junk, read_json_line, write_content_length_frame, write_json_line, DapMessage,
    FramingLimits,
};
/// See above.
pub use ast_grep_language::SupportLang;

/// One `serve` session over `reader` with a run built once by the caller, the output collected
/// in memory (`fuzz_targets/serve_jsonrpc_input.rs`): returns the session summary and the
/// output bytes, one JSON-RPC message per line. The session is `serve`'s own (reader, JSON-RPC
/// parse, routing, method handlers, a worker thread per `tools/call`, the writer loop); what it
/// skips is building a run per session and the writer thread (the writer loop drains the output
/// after the session). At `initialize` no ask port is attached and the run's events are not
/// forwarded, since `run` outlives the session.
///
/// # Errors
/// As [`crate::serve::serve`]: [`crate::serve::ServeError::Framing`] when the input ends inside a
/// message.
pub fn serve_in_memory_with_run(
    reader: &mut dyn std::io::BufRead,
    run: std::sync::Arc<crate::Run>,
    config: &crate::serve::ServeConfig,
) -> Result<(crate::serve::ServeSummary, Vec<u8>), crate::serve::ServeError> {
    crate::serve::serve_in_memory_with_run(reader, run, config)
}
