//! `ast_grep` / `ast_edit` through a real run on hostile rules and big inputs (issue 13,
//! harden22): a file whose match runs out of its budget is named and its results said to be
//! partial (`ast_grep`) or left out of the edit (`ast_edit`); matches past the per-file cap are
//! counted; oversized rules are refused naming the limit; previews are capped in bytes. No
//! timing assertions: the budgets are steps and bytes.

use crate::support;

use std::path::Path;

use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

fn run_with(dir: &Path, config: RunConfig) -> Run {
    Run::builder(dir)
        .with_structural()
        .config(config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .build()
        .expect("build run")
}

fn ok(result: ToolResult) -> (String, Value) {
    assert!(!result.is_error, "unexpected error: {}", result.joined_text());
    (result.joined_text(), result.structured_content.clone().unwrap_or(Value::Null))
}

/// 400 declarations: `big.js`, where a quadratic rule runs out of a small budget, and one
/// declaration in `small.js`, which fits.
fn workspace() -> tempfile::TempDir {
    let big: String = (0..400).map(|i| format!("let a{i} = {i};\n")).collect();
    support::workspace_with(&[("big.js", &big), ("small.js", "let b0 = 0;\nlet b1 = 1;\n")])
}

/// `let $A = $B;` after an earlier `let $C = 0;` (metavariables: not memoised, quadratic).
fn quadratic_rule() -> Value {
    json!({"pattern": "let $A = $B;", "follows": {"stopBy": "end", "pattern": "let $C = 0;"}})
}

fn small_budget() -> RunConfig {
    let mut config = RunConfig::default();
    config.structural.max_match_steps_per_file = 20_000;
    config
}

#[test]
fn ast_grep_names_the_file_whose_match_was_cut_and_keeps_its_earlier_matches() {
    let dir = workspace();
    let run = run_with(dir.path(), small_budget());
    let (text, structured) =
        ok(run.call(Caller::Main, "ast_grep", json!({"rule": quadratic_rule(), "language": "javascript", "max_results": 1000})));
    assert_eq!(structured["stats"]["files_match_cut"], 1, "{text}");
    let example = structured["stats"]["match_cut_examples"][0].as_str().unwrap();
    assert!(example.starts_with("big.js: ") && example.contains("matching budget"), "{example}");
    assert!(text.contains("partial: the match of 1 file was cut before the end (big.js: "), "{text}");
    assert!(text.contains("narrow `path`"), "{text}");
    let paths: Vec<&str> = structured["matches"].as_array().unwrap().iter().map(|m| m["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&"small.js"), "the other file is whole: {text}");
    let big = paths.iter().filter(|p| **p == "big.js").count();
    assert!(big > 0 && big < 399, "big.js: the matches before the cut, {big} of 399");
    // With the default budget the same call is whole.
    let run = run_with(dir.path(), RunConfig::default());
    let (text, structured) =
        ok(run.call(Caller::Main, "ast_grep", json!({"rule": quadratic_rule(), "language": "javascript", "max_results": 1000})));
    assert_eq!(structured["stats"]["files_match_cut"], 0, "{text}");
    assert_eq!(structured["total_matches"], 400, "{text}");
    assert!(!text.contains("partial"), "{text}");
}

#[test]
fn ast_edit_leaves_a_cut_file_out_of_the_edit_and_says_so() {
    let dir = workspace();
    let run = run_with(dir.path(), small_budget());
    let (text, structured) =
        ok(run.call(Caller::Main, "ast_edit", json!({"rule": quadratic_rule(), "language": "javascript", "rewrite": "const $A = $B;"})));
    assert_eq!(structured["stats"]["files_match_cut"], 1, "{text}");
    let files: Vec<&str> = structured["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(files, ["small.js"], "{text}");
    assert!(text.contains("such a file is not rewritten at all (a partial rewrite is never staged)"), "{text}");
    assert!(text.contains("big.js: the file used up its matching budget"), "{text}");
}

#[test]
fn matches_past_the_per_file_cap_are_counted_and_said() {
    let dir = workspace();
    let run = run_with(dir.path(), RunConfig::default());
    let (text, structured) =
        ok(run.call(Caller::Main, "ast_grep", json!({"pattern": "$X", "language": "javascript", "path": "big.js", "max_results": 10})));
    let total = structured["total_matches"].as_u64().unwrap();
    assert!(total > 1_600, "every named node of big.js matches `$X`: {total}");
    assert_eq!(structured["shown"], 10);
    assert!(text.contains("were counted but not kept: each file keeps its first max_results (10) matches"), "{text}");
}

#[test]
fn oversized_rules_are_refused_naming_the_limit() {
    let dir = workspace();
    let run = run_with(dir.path(), RunConfig::default());
    let mut deep = json!({"kind": "identifier"});
    for _ in 0..80 {
        deep = json!({"kind": "statement_block", "has": deep});
    }
    let result = run.call(Caller::Main, "ast_grep", json!({"rule": deep, "language": "javascript"}));
    assert!(result.is_error);
    let text = result.joined_text();
    assert!(text.contains("nest more than 64 deep"), "{text}");
    assert!(text.contains("stopBy"), "{text}");
}

#[test]
fn ast_edit_preview_is_capped_in_bytes() {
    let array = format!("const a = [{}];\n", (0..5_000).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    let dir = support::workspace_with(&[("array.js", &array)]);
    let mut config = RunConfig::default();
    config.staged.max_preview_bytes = 4_096;
    let run = run_with(dir.path(), config);
    let (text, structured) =
        ok(run.call(Caller::Main, "ast_edit", json!({"pattern": "[$$$A]", "language": "javascript", "rewrite": "[$$$A, $$$A]"})));
    assert!(structured["edit_id"].is_string(), "{text}");
    let left_out = structured["preview_bytes_left_out"].as_u64().unwrap();
    assert!(left_out as usize > 2 * array.len() - 4_096 - 500, "{left_out}");
    assert!(text.len() < 4_096 + 3_000, "{}", text.len());
    assert!(text.contains("preview capped at 4096 bytes of diff"), "{text}");
}

/// harden23 item 2: the call's deadline passing inside a file's match is a partial result, not
/// a timeout error: the file where it stopped is named, the files never reached are counted,
/// and the structured stats say so. One walker thread, so the order is the file-name order:
/// `a_slow.js` first (a utility that binds `$N` and recurses through `has` twice is exponential
/// in its 40 nested arrays), then four small files the deadline leaves unsearched.
#[test]
fn a_deadline_inside_a_file_is_a_partial_result_naming_where_it_stopped() {
    let slow = format!("let x = {}{};\n", "[".repeat(40), "]".repeat(40));
    let dir = support::workspace_with(&[
        ("a_slow.js", &slow),
        ("b.js", "let b = [[]];\n"),
        ("c.js", "let c = [[]];\n"),
        ("d.js", "let d = [[]];\n"),
        ("e.js", "let e = [[]];\n"),
    ]);
    let mut config = RunConfig::default();
    config.structural.walk_threads = 1;
    let run = run_with(dir.path(), config);
    let utils = json!({"u": {"any": [
        {"pattern": "$N", "kind": "number"},
        {"has": {"matches": "u"}},
        {"all": [{"kind": "array"}, {"has": {"matches": "u"}}]},
    ]}});
    let arguments = json!({"rule": {"kind": "array", "not": {"matches": "u"}}, "utils": utils, "language": "javascript"});
    let options = runbound::CallOptions { timeout: Some(std::time::Duration::from_secs(2)), ..runbound::CallOptions::new(Caller::Main) };
    let (text, structured) = ok(run.call_with("ast_grep", arguments, &options));
    assert_eq!(structured["stats"]["timed_out"], true, "{text}");
    assert_eq!(structured["stats"]["files_match_cut"], 1, "{text}");
    assert_eq!(structured["stats"]["files_not_searched"], 4, "{text}");
    assert_eq!(structured["stats"]["files_not_searched_is_lower_bound"], false, "{text}");
    assert!(
        text.contains(
            "partial: the call's deadline (2000 ms) passed: stopped at a_slow.js (inside its match): deadline; 4 files were not searched"
        ),
        "{text}"
    );
    assert!(text.contains("a_slow.js: the call's deadline passed during this file's match"), "{text}");
    assert!(!text.contains("hint: "), "no zero-match hint on a partial answer: {text}");
    assert_eq!(structured["total_matches"], 0, "{text}");
    // The files not searched hold matches (two number-free arrays each): the answer above is
    // partial, as it says.
    let whole = json!({"rule": {"kind": "array", "not": {"matches": "u"}}, "utils": utils, "language": "javascript", "path": "b.js"});
    let (text, structured) = ok(run.call(Caller::Main, "ast_grep", whole));
    assert_eq!(structured["stats"]["timed_out"], false, "{text}");
    assert_eq!(structured["total_matches"], 2, "{text}");
}
