//! Entry points of the criterion benches in `benches/` (hidden from the docs).
//!
//! Benches are separate crates, so what they time below the tool API (the pattern compiler,
//! the parallel walk, the raw LSP and DAP requests a tool's overhead is measured against) has to
//! be `pub`; it is re-exported here and nowhere else. Not part of runbound's API and exempt from
//! semver: nothing but `benches/` may use this module. Add an item here only together with the
//! bench that needs it.

/// `benches/ast_grep.rs`: compile and match without a run, and the walk the `ast_grep` tool
/// does.
pub use crate::fuzzing::{compile_pattern, compile_rule, match_source, match_source_with, Query, RuleInput, SupportLang};
/// See above.
pub use crate::structural::literals::LiteralRequirement;

/// `benches/ast_grep.rs`: a language id (`rust`, `python`, `ts`, …) as the `ast_grep` tool reads
/// it. `Err` names the supported ids.
pub fn parse_language(id: &str) -> Result<SupportLang, crate::ToolError> {
    crate::structural::parse_language(id)
}
/// `benches/debug.rs`: the raw DAP baseline over the same transport, and lldb-dap's lookup.
pub use crate::debug::adapters::BinarySearch;
/// `benches/lsp.rs`: the raw LSP request and the references cross-check the `lsp` tool's
/// overhead is measured against.
pub use crate::lsp::position::resolve_symbol_on_line;
/// See above: how many whole-word occurrences of `word` the `grep -w` ground truth of the
/// rename and references cross-checks finds under `root` for `definition`'s languages.
pub fn grep_word_hit_count(definition: &crate::lsp::ServerDefinition, root: &std::path::Path, word: &str) -> usize {
    crate::lsp::rename_coverage::grep_word(definition, root, root, word).hits.len()
}

/// See above: the `references` cross-check of `answer` (the server's typed locations) for
/// `name` at 0-based `line`/`character` of `origin`, bounded by `deadline`; the completed answer
/// and how many notes it carries.
#[allow(clippy::too_many_arguments, private_interfaces)]
pub fn complete_references(
    server: &crate::lsp::client::LanguageServer,
    workspace_root: &std::path::Path,
    origin: &std::path::Path,
    line: u32,
    character: u32,
    name: &str,
    answer: Option<Vec<lsp_types::Location>>,
    deadline: std::time::Instant,
) -> (Vec<lsp_types::Location>, usize) {
    let coverage =
        crate::lsp::rename_coverage::complete_references(server, workspace_root, origin, line, character, name, answer, deadline);
    let notes = coverage.notes.len();
    (coverage.answer, notes)
}

/// See above.
pub use crate::lsp::uri::path_to_lsp_uri;

/// See above: the running server (started if needed, `server_id` when given) a `lsp` call on
/// `file` would ask, for raw typed requests (`request::<R>`) on the same warm process.
///
/// # Errors
/// As the `lsp` tool's: no server for the file, not installed, did not start by `deadline`.
#[allow(private_interfaces)]
pub fn server_for_file(
    supervisor: &crate::lsp::LspSupervisor,
    file: &std::path::Path,
    server_id: Option<&str>,
    deadline: std::time::Instant,
) -> Result<std::sync::Arc<crate::lsp::client::LanguageServer>, crate::ToolError> {
    supervisor.server_for_file(file, server_id, deadline).map(|lease| lease.server)
}
/// See above.
pub use crate::structural::search::{walk_and_match, WalkLimits};
/// See above.
pub use crate::transport::{ChildProcess, Incoming, ProcessSpec, RpcConnection, RpcOptions, WireProtocol};
