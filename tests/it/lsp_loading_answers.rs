//! issue 11 §3 (small24): a list answer — `incoming_calls`, `references` — that a language server
//! gave while it was still starting or loading its project starts with a `WARNING:` that says
//! so (an empty or short list there is no fact about the code) and names the next step; once
//! the server has loaded, the same call lists what grep finds, without it. Real rust-analyzer on
//! heck 0.5.0 (a crate from the cargo registry cache; a dependency of this build), asked at once
//! on a fresh run with `indexing_wait` 0, so the first call meets the loading by construction.

use std::time::{Duration, Instant};

use crate::support;

use runbound::Caller;
use serde_json::{json, Value};

/// The `WARNING:` a list answer given while loading starts with.
const LOADING_WARNING: &str = "WARNING: rust-analyzer was still";

/// Calls `lsp` with `arguments`; the text and the structured content.
fn lsp_call(run: &runbound::Run, arguments: &Value) -> (String, Value) {
    let result = run.call(Caller::Main, "lsp", arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "{arguments}:\n{text}");
    (text, result.structured_content.unwrap_or(Value::Null))
}

/// The files (relative, sorted, deduplicated) of `src/` whose lines call `transform(` (not its
/// definition): the ground truth for the callers of heck's `transform`.
fn transform_callers_by_grep(root: &std::path::Path) -> Vec<String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("src")).expect("heck's src/").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("read a source file");
        if text.lines().any(|line| line.contains("transform(") && !line.contains("fn transform")) {
            files.push(format!("src/{}", entry.file_name().to_string_lossy()));
        }
    }
    files.sort();
    files
}

/// Every answer's loading state and its text agree: the structured `still_indexing` is set
/// exactly when the text starts with the loading `WARNING:`, which says "may be incomplete"
/// and names the next step.
fn assert_loading_said_at_the_top(when: &str, text: &str, structured: &Value) {
    let warned = text.starts_with(LOADING_WARNING);
    assert_eq!(structured["still_indexing"], json!(warned), "{when}: still_indexing and the text disagree:\n{text}\n{structured}");
    if warned {
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.contains("may be incomplete") && first.contains("not a fact about the code") && first.contains("`lsp status`"),
            "{when}: the warning lacks what it means or the next step:\n{text}"
        );
        assert_eq!(structured["notes"][0].as_str(), Some(first), "{when}: the warning is not the first structured note:\n{structured}");
    }
}

#[test]
fn rust_analyzer_incoming_calls_and_references_asked_while_loading_say_so_at_the_top() {
    let test = "rust_analyzer_incoming_calls_and_references_asked_while_loading_say_so_at_the_top";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let Some(workspace) = support::corpus::registry_crate("heck-0.5.0") else { return };
    let lib = std::fs::read_to_string(workspace.path().join("src/lib.rs")).expect("heck's src/lib.rs");
    assert_eq!(lib.lines().nth(68).map(str::trim), Some("fn transform<F, G>("), "heck 0.5.0's src/lib.rs changed");
    let truth = transform_callers_by_grep(workspace.path());
    assert_eq!(truth.len(), 8, "heck 0.5.0 calls transform from 8 case modules: {truth:?}");
    // The calls do not wait for the loading: the first one starts the server and asks at once.
    let mut config = runbound::RunConfig::default();
    config.lsp.indexing_wait = Duration::ZERO;
    let run = support::lsp_run_allowing_writes_with_config(workspace.path(), config);
    let incoming = json!({"op": "incoming_calls", "file": "src/lib.rs", "line": 69, "symbol": "transform"});
    let references = json!({"op": "references", "file": "src/lib.rs", "line": 69, "symbol": "transform"});
    let started = Instant::now();
    let (cold, cold_structured) = lsp_call(&run, &incoming);
    let cold_seconds = started.elapsed().as_secs_f64();
    assert!(cold.starts_with(LOADING_WARNING), "asked on a server that had just started, the answer does not say so first:\n{cold}");
    assert_loading_said_at_the_top("cold incoming_calls", &cold, &cold_structured);
    let (cold_references, cold_references_structured) = lsp_call(&run, &references);
    assert_loading_said_at_the_top("cold references", &cold_references, &cold_references_structured);
    // Loaded: asked again until the answer no longer warns (the advice the warning gives).
    let deadline = Instant::now() + Duration::from_secs(240);
    let (warm, warm_structured) = loop {
        let (text, structured) = lsp_call(&run, &incoming);
        assert_loading_said_at_the_top("incoming_calls", &text, &structured);
        if !text.starts_with(LOADING_WARNING) {
            break (text, structured);
        }
        assert!(Instant::now() < deadline, "rust-analyzer still loading after 4 minutes:\n{text}");
        std::thread::sleep(Duration::from_secs(3));
    };
    let loaded_seconds = started.elapsed().as_secs_f64();
    for file in &truth {
        assert!(warm.contains(&format!("{file} (")), "the loaded answer lacks the caller in {file} that grep finds:\n{warm}");
    }
    assert_eq!(warm_structured["total"], json!(truth.len()), "the loaded answer's callers differ from grep's {truth:?}:\n{warm}");
    let (warm_references, warm_references_structured) = lsp_call(&run, &references);
    assert_loading_said_at_the_top("loaded references", &warm_references, &warm_references_structured);
    for file in &truth {
        assert!(warm_references.contains(file.as_str()), "the loaded references lack {file}:\n{warm_references}");
    }
    // What the cold answers' cross-checks say of the uses they could not resolve is no claim
    // about the code that the loaded answers do not make too (heck has no `#[cfg]`-gated use).
    for (claim, cold_text, warm_text) in [
        ("gives no definition, so calls there are not listed", &cold, &warm),
        ("gave no definition here", &cold_references, &warm_references),
    ] {
        assert!(
            !cold_text.contains(claim) || warm_text.contains(claim),
            "a cold answer says \"{claim}\" of uses the loaded server resolves:\n{cold_text}\n--- loaded:\n{warm_text}"
        );
    }
    let cold_total = cold_structured["total"].as_u64().unwrap_or(0);
    eprintln!(
        "{test}: cold incoming_calls (asked {cold_seconds:.1} s after the run began) listed {cold_total} of {} callers and warned; loaded after {loaded_seconds:.1} s\n--- cold:\n{cold}\n--- cold references:\n{cold_references}",
        truth.len()
    );
}
