//! A file outline as the FIRST call of a run (issue 11 §3 "no stalls", §4; trial 14 S2): the
//! outline is asked as soon as the server is initialized, not after the project's indexing
//! (rust-analyzer on indexmap had waited the whole 15 s indexing wait for an answer it gave in
//! 22 ms). Proven per server on the real-project corpus: the cold answer carries no "still
//! indexing" note and lists exactly what the same server lists for the same file once it is
//! ready. Latencies are reported as TIMING lines, never asserted.

use std::time::{Duration, Instant};

use crate::support;
use crate::support::corpus;

use serde_json::{json, Value};

/// What one `lsp` call answered: its text and structured content.
fn call(run: &runbound::Run, arguments: Value) -> (String, Value) {
    let result = run.call(runbound::Caller::Main, "lsp", arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "lsp {arguments} failed:\n{text}");
    let Some(structured) = result.structured_content else { panic!("lsp {arguments}: no structured content:\n{text}") };
    (text, structured)
}

/// The readiness `lsp status` gives for the server `server_id` (e.g. `ready`, `indexing (…)`).
fn readiness(run: &runbound::Run, server_id: &str) -> String {
    let (text, status) = call(run, json!({"op": "status"}));
    status["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|server| server["id"] == server_id)
        .flat_map(|server| server["roots"].as_array().cloned().unwrap_or_default())
        .find_map(|root| root["running"]["readiness"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no running {server_id} in the status:\n{text}"))
}

/// Runs the check on `file` of the corpus project `project`: a cold outline first; the server's
/// readiness right after it; then (after `warm_query` made the server index, and its status says
/// ready) the same outline again. Returns whether the server was still busy after the cold
/// answer (the early path was taken).
fn cold_outline_equals_the_ready_outline(run: &runbound::Run, server_id: &str, file: &str, warm_query: &str) -> bool {
    let arguments = json!({"op": "symbols", "file": file});
    let start = Instant::now();
    let (cold_text, cold) = call(run, arguments.clone());
    let cold_elapsed = start.elapsed();
    let after_cold = readiness(run, server_id);
    assert!(
        !cold_text.contains("still indexing") && !cold_text.contains("still starting") && !cold_text.contains("may be incomplete"),
        "the cold outline must not wait for (or blame) the project's indexing — an outline is read from the file's syntax:\n{cold_text}"
    );
    let cold_results = cold["results"].as_array().cloned().unwrap_or_default();
    assert!(!cold_results.is_empty(), "the cold outline of {file} is empty:\n{cold_text}");

    // The server indexes the project for a workspace query; then it is asked again, ready.
    corpus::complete_answer(run, "lsp", json!({"op": "symbols", "query": warm_query}));
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut state = readiness(run, server_id);
    while state != "ready" && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(500));
        state = readiness(run, server_id);
    }
    assert_eq!(state, "ready", "{server_id} never became ready");
    let (ready_text, ready) = call(run, arguments);
    assert_eq!(
        cold["results"], ready["results"],
        "the cold outline differs from the one {server_id} gives once ready:\ncold:\n{cold_text}\nready:\n{ready_text}"
    );
    assert_eq!(cold["total"], ready["total"]);
    assert_eq!(cold["not_listed"], ready["not_listed"], "cold:\n{cold_text}\nready:\n{ready_text}");
    corpus::report_timing(&format!(
        "{server_id} cold outline of {file} (first call of the run): {cold_elapsed:?}, {} symbols; server after it: {after_cold}",
        cold_results.len()
    ));
    after_cold != "ready"
}

#[test]
fn rust_analyzer_cold_outline_answers_before_indexing_and_equals_the_ready_outline() {
    let test = "lsp_cold_outline::rust_analyzer_cold_outline_answers_before_indexing_and_equals_the_ready_outline";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let Some(dir) = corpus::project("semver") else { return };
    let run = corpus::tools_run(dir.path());
    let early = cold_outline_equals_the_ready_outline(&run, "rust-analyzer", "src/lib.rs", "Identifier");
    // rust-analyzer loads the workspace and primes its caches for seconds after it answers; an
    // outline that waited for that (as before) would find it ready.
    assert!(early, "rust-analyzer was ready when the cold outline returned: the outline waited for indexing");
}

#[test]
fn typescript_cold_outline_equals_the_ready_outline() {
    if support::require_binary("lsp_cold_outline::typescript_cold_outline_equals_the_ready_outline", "typescript-language-server").is_none()
    {
        return;
    }
    let Some(dir) = corpus::project("redux") else { return };
    let run = corpus::tools_run(dir.path());
    cold_outline_equals_the_ready_outline(&run, "typescript-language-server", "src/createStore.ts", "kindOf");
}

#[test]
fn pyright_cold_outline_equals_the_ready_outline() {
    if support::require_binary("lsp_cold_outline::pyright_cold_outline_equals_the_ready_outline", "pyright-langserver").is_none() {
        return;
    }
    let Some(dir) = corpus::project("python-dateutil") else { return };
    let run = corpus::tools_run(dir.path());
    cold_outline_equals_the_ready_outline(&run, "pyright", "src/dateutil/tz/tz.py", "UnknownTimezoneWarning");
}

#[test]
fn gopls_cold_outline_equals_the_ready_outline() {
    if support::require_binary("lsp_cold_outline::gopls_cold_outline_equals_the_ready_outline", "gopls").is_none() {
        return;
    }
    let Some(dir) = corpus::project("go-cmp") else { return };
    let run = corpus::tools_run(dir.path());
    cold_outline_equals_the_ready_outline(&run, "gopls", "cmp/compare.go", "NameOf");
}
