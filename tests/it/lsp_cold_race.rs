//! issue 11 §3 (coldrace23): a write made while the language server has not finished loading
//! the project must not be answered "no new errors" from a check that did not cover it.
//! Nor an answer built on definition lookups that the server left unanswered while it loaded
//! (trial27a M8) be given as facts about the code. Real servers on real third-party code:
//! rust-analyzer on adler2 2.0.1 (a crate from the cargo registry cache), ground truth `cargo
//! check`; typescript-language-server on the corpus' redux 5.0.1, ground truth the loaded
//! server's own lookups.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// Which way a cold write's answer went.
#[derive(Debug, Default)]
struct Branches {
    error_listed: usize,
    not_checked: usize,
}

/// rust-analyzer, fresh run, breaking write before its loading ends: the answer lists the error
/// that `cargo check` finds, or says the project was NOT checked — never "no new errors" alone.
#[test]
fn rust_analyzer_cold_write_is_never_answered_clean_from_a_check_that_missed_it() {
    let test = "rust_analyzer_cold_write_is_never_answered_clean_from_a_check_that_missed_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let rounds: usize = std::env::var("RUNBOUND_COLD_RACE_ROUNDS").ok().and_then(|value| value.parse().ok()).unwrap_or(1);
    let mut branches = Branches::default();
    // (edit call's timeout, check budget) in seconds: a short call and budget make the write land
    // while rust-analyzer still loads and indexes (its first indexing outlasts them: ~16 s here;
    // the pre-write half gets half of the call); the default budget lets it finish loading.
    let settings: [(u64, u64); 2] = [(6, 8), (60, 30)];
    for round in 0..rounds * settings.len() {
        let (edit_seconds, check_seconds) = settings[round % settings.len()];
        let Some(workspace) = support::corpus::registry_crate("adler2-2.0.1") else { return };
        let algo = workspace.path().join("src/algo.rs");
        let original = std::fs::read_to_string(&algo).expect("adler2's src/algo.rs");
        assert!(original.contains("pub(crate) fn compute(&mut self, bytes: &[u8])"), "adler2 2.0.1's src/algo.rs changed");
        // The run's servers start with the first call that needs one: the write itself.
        let mut config = runbound::RunConfig::default();
        config.lsp.write_diagnostics_check_budget = std::time::Duration::from_secs(check_seconds);
        config.tool_timeouts.insert("edit".to_owned(), std::time::Duration::from_secs(edit_seconds));
        let run = support::lsp_run_allowing_writes_with_config(workspace.path(), config);
        let result = run.call(
            Caller::Main,
            "edit",
            json!({"path": "src/algo.rs", "old_string": "pub(crate) fn compute(&mut self", "new_string": "pub(crate) fn compute_bytes(&mut self"}),
        );
        let text = result.joined_text();
        assert!(!result.is_error, "round {round}: edit failed:\n{text}");
        // Ground truth: cargo check of the written crate finds E0599 at src/lib.rs:143.
        let checked = support::corpus::run(
            workspace.path(),
            "cargo",
            &["check", "--all-targets", "--offline", "--message-format=short"],
            &[("CARGO_TARGET_DIR", &workspace.path().join("target-truth").to_string_lossy())],
            std::time::Duration::from_secs(300),
        );
        let truth = checked.text.clone();
        assert!(truth.contains("src/lib.rs:143") && truth.contains("E0599"), "round {round}: cargo check did not find the E0599:\n{truth}");
        let block = support::corpus::diagnostics_block(&text);
        let listed = block.contains("src/lib.rs:143") && block.contains("compute");
        // Not checked, said: while loading, or (a loaded 2-core machine, session 26's suite) no
        // check started within the wait — either way `diagnostics unavailable`, never clean.
        let not_checked = block.contains("diagnostics unavailable") && block.contains("src/algo.rs");
        eprintln!(
            "round {round} (edit {edit_seconds} s, check budget {check_seconds} s): listed={listed} said_not_checked={not_checked}\n{text}\n"
        );
        assert!(
            listed || not_checked,
            "round {round}: the write's answer neither lists the E0599 cargo check finds nor says it did not check:\n{text}"
        );
        assert!(listed || !block.contains("no new errors"), "round {round}: a clean claim beside a check that did not count:\n{text}");
        if listed {
            branches.error_listed += 1;
        } else {
            branches.not_checked += 1;
        }
    }
    eprintln!("{test}: {branches:?} over {} rounds", rounds * settings.len());
}

/// The lines of a rename preview that say what the server renamed and what each left occurrence
/// leads to (not the edit id, which changes with every call).
fn answer_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| {
            line.starts_with("(proposed)")
                || line.contains("(definition:")
                || line.contains("(no definition)")
                || line.contains("(no answer")
        })
        .collect()
}

/// The lines a rename preview lists as "(no definition)", as `path:line`.
fn no_definition_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.ends_with("(no definition)"))
        .filter_map(|line| line.trim_start().split(": ").next().map(str::to_owned))
        .collect()
}

/// The first line of `text` that starts with `prefix`, if any.
fn line_starting<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    text.lines().find(|line| line.starts_with(prefix))
}

/// typescript-language-server on redux 5.0.1, asked at once — `indexing_wait` 0: a call does not
/// wait for tsserver's project load — on a fresh server and right after `lsp reload` (trial27a
/// M8). Until the semantic tsserver reports its project loaded (`projectLoadingFinish`, or a
/// diagnostics event), typescript-language-server hands `references`, `definition` and `rename`
/// to its syntax server, which knows the open files only; its "Initializing JS/TS language
/// features…" progress begins only after the first `didOpen` reached the semantic server.
/// Each call below starts (or reloads) the server
/// and asks within milliseconds while the load takes seconds, so it meets the loading by
/// construction — the earlier version waited for readiness (15 s) and never did in 4 runs.
/// Asserted: the answers given then start with the WARNING that the server was still starting or
/// loading, with the next step; a definition lookup that got no answer then is never listed as
/// "(no definition)" — only occurrences that have none once the server is loaded are — and when
/// lookups got no answer the answer says so; ground truth: the loaded server's answers (asked
/// until they no longer warn and two agree).
#[test]
fn typescript_answers_right_after_start_and_reload_say_the_server_was_still_loading() {
    let test = "typescript_answers_right_after_start_and_reload_say_the_server_was_still_loading";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let Some(workspace) = support::corpus::project("redux") else { return };
    // `Store.getState` (src/types/store.ts:119); `MiddlewareAPI.getState` (src/types/middleware.ts:5)
    // is another symbol with that name, whose uses a rename of the first leaves.
    let declaration = support::corpus::read(workspace.path(), "src/types/store.ts");
    assert_eq!(declaration.lines().nth(118).map(str::trim), Some("getState(): S & StateExt"), "redux 5.0.1's src/types/store.ts changed");
    let mut config = runbound::RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::ZERO;
    let run = support::lsp_run_allowing_writes_with_config(workspace.path(), config);
    let rename = json!({"file": "src/types/store.ts", "line": 119, "symbol": "getState", "new_name": "readState", "preview": true});
    // `kindOf` (src/utils/kindOf.ts:62) is used in three files no call here opens, so the syntax
    // server, which knows the open files only, cannot list those uses.
    let kind_of = support::corpus::read(workspace.path(), "src/utils/kindOf.ts");
    assert_eq!(kind_of.lines().nth(61).map(str::trim), Some("export function kindOf(val: any) {"), "redux 5.0.1's kindOf.ts changed");
    let references = json!({"op": "references", "file": "src/utils/kindOf.ts", "line": 62, "symbol": "kindOf"});
    let call = |tool: &str, arguments: &serde_json::Value, round: &str| {
        let result = run.call(Caller::Main, tool, arguments.clone());
        let text = result.joined_text();
        assert!(!result.is_error, "{round}: {text}");
        (text, result.structured_content.unwrap_or_default())
    };
    const LOADING: &str = "WARNING: typescript-language-server was still";
    // Ground truth: the loaded server's answers (asked until they do not warn and two agree).
    let loaded = |tool: &str, arguments: &serde_json::Value, round: &str| {
        let (mut text, mut structured) = call(tool, arguments, round);
        for _ in 0..40 {
            std::thread::sleep(std::time::Duration::from_secs(3));
            let (again, again_structured) = call(tool, arguments, round);
            let settled = if tool == "lsp" { again == text } else { answer_lines(&again) == answer_lines(&text) };
            if line_starting(&again, LOADING).is_none() && !again.contains("was still loading") && settled {
                return (again, again_structured);
            }
            (text, structured) = (again, again_structured);
        }
        panic!("{round}: the answers did not settle:\n{text}\n{structured}");
    };
    // A fresh server: its first call starts it and asks the rename at once.
    let (fresh, _) = call("lsp_rename", &rename, "fresh");
    let warned =
        line_starting(&fresh, LOADING).unwrap_or_else(|| panic!("a rename on a server that had just started does not say so:\n{fresh}"));
    assert!(warned.contains("when it computed this rename") && warned.contains("`lsp status`"), "{fresh}");
    assert!(fresh.find(LOADING) < fresh.find("  src/"), "the warning is not above the file list:\n{fresh}");
    // Reloaded, then asked at once: references first, then the rename.
    let reloaded = run.call(Caller::Main, "lsp", json!({"op": "reload", "file": "src/types/store.ts"}));
    assert!(!reloaded.is_error, "{}", reloaded.joined_text());
    let (cold_references, cold_references_structured) = call("lsp", &references, "references right after the reload");
    let (cold, _) = call("lsp_rename", &rename, "rename right after the reload");
    assert!(
        cold_references.starts_with(LOADING) && cold_references.lines().next().is_some_and(|line| line.contains("may be incomplete")),
        "references asked right after the reload do not say first that the server was loading:\n{cold_references}"
    );
    assert_eq!(cold_references_structured["still_indexing"], json!(true), "{cold_references_structured}");
    let (warm_references, warm_references_structured) = loaded("lsp", &references, "references once loaded");
    let (warm, _) = loaded("lsp_rename", &rename, "rename once loaded");
    assert!(
        warm.contains("(definition: src/types/middleware.ts:5)"),
        "the loaded server does not tell MiddlewareAPI.getState apart:\n{warm}"
    );
    let cold_count = cold_references_structured["results"].as_array().map_or(0, Vec::len);
    let warm_count = warm_references_structured["results"].as_array().map_or(0, Vec::len);
    // The race itself: the answer given while tsserver loaded missed uses the loaded one lists.
    assert!(
        cold_count < warm_count,
        "the answer asked while loading is not shorter — the race was not met:\n{cold_references}\n---\n{warm_references}"
    );
    for file in ["src/createStore.ts", "src/bindActionCreators.ts", "src/combineReducers.ts"] {
        assert!(warm_references.contains(file), "the loaded references lack {file}, where grep finds kindOf calls:\n{warm_references}");
    }
    let truly_none = no_definition_lines(&warm);
    for (when, answer) in [("on a fresh server", &fresh), ("right after the reload", &cold)] {
        for line in no_definition_lines(answer) {
            assert!(
                truly_none.contains(&line),
                "{line} is listed as \"(no definition)\" {when}, but the loaded server gives it one:\n{answer}\n--- loaded:\n{warm}"
            );
        }
        let unanswered =
            answer.lines().filter(|line| line.contains("(no answer: typescript-language-server was still loading the project")).count();
        let noted = answer.lines().any(|line| {
            line.contains("typescript-language-server was still loading the project during this rename's grep check")
                && line.contains("got no answer — not a fact about the code")
                && line.contains("call lsp_rename again with the same arguments")
        });
        assert_eq!(unanswered > 0, noted, "{when}: lookups without an answer and the note disagree:\n{answer}");
        // Lookups answered while tsserver loaded (its syntax server: the `import` in the same
        // file) are marked as such, and a note counts them.
        let answered_then =
            answer.lines().filter(|line| line.contains("answered while typescript-language-server was still loading the project")).count();
        let answered_noted = answer.lines().any(|line| {
            line.contains("typescript-language-server was still loading the project during this rename's grep check")
                && line.contains("answered then (marked below)")
                && line.contains("call lsp_rename again with the same arguments")
        });
        assert_eq!(answered_then > 0, answered_noted, "{when}: lookups answered while loading and the note disagree:\n{answer}");
        for line in answer.lines().filter(|line| line.contains("(definition: ") && !line.contains("answered while")) {
            let place = line.trim_start().split(": ").next().unwrap_or_default();
            assert!(
                warm.lines().any(|warm_line| warm_line == line),
                "{when}: {place} is given a definition as a fact while the server loaded, which the loaded server does not give:\n{answer}\n--- loaded:\n{warm}"
            );
        }
        eprintln!(
            "{test}: {when}, {unanswered} listed lookup(s) had no answer (noted: {noted}), {answered_then} answered while loading; loading warning: {}; (no definition) when loaded: {}",
            line_starting(answer, LOADING).is_some(),
            truly_none.len()
        );
    }
    eprintln!("{test}: references right after the reload listed {cold_count}, once loaded {warm_count}\n--- fresh rename:\n{fresh}\n--- cold references:\n{cold_references}");
}
