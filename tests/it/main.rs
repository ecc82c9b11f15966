//! The integration tests, as one binary (one link of the crate, its grammars and RustPython
//! instead of one per file). A module per area; each module's doc says what it drives for real.
//! Tests that read or change process-wide state (thread counts, every descendant process,
//! resource limits) run alone in a child process of this binary: `support::alone`.

mod support;

mod cli;
mod containment;
mod contract;
mod corpus_go;
mod corpus_python;
mod corpus_rust;
mod corpus_typescript;
mod debug;
mod debug_corpus;
mod debug_trial14;
mod docs;
mod eval;
mod eval_embedded;
mod files;
mod files_race;
mod host_callbacks;
mod lsp;
mod lsp_cargo_features;
mod lsp_checker;
mod lsp_code_action;
mod lsp_cold_outline;
mod lsp_confinement;
mod lsp_diagnostics_cross_file;
mod lsp_diagnostics_on_write;
mod lsp_file_events;
mod lsp_gopls_multi_file_write;
mod lsp_hierarchy;
mod lsp_lists;
mod lsp_multi_root;
mod lsp_outside_changes;
mod lsp_pyright16;
mod lsp_python_blind_spots;
mod lsp_python_env;
mod lsp_rename;
mod lsp_trial11_wording;
mod lsp_trial14;
mod lsp_trial14_wording;
mod lsp_trial16;
mod lsp_trial17;
mod lsp_trial18;
mod lsp_trial23;
mod lsp_trial24;
mod lsp_trial25;
mod lsp_trial26;
mod lsp_trial27;
mod lsp_write_ledger;
mod mcp_sdk;
mod read_guard;
mod registry;
mod run_drop;
mod serve;
mod structural;
mod structural_limits;
mod structural_rollback;
mod trust;
mod vibe;
mod vibe_ask;
mod vibe_lifecycle;
mod vibe_ray;
mod vibe_worktree;
