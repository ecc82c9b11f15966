//! Trial 154 M7 (marshmallow 3.21.3, 957 errors before any edit): a second `"*"` check in the
//! same run reported 963 errors over 10 pages, with the 6 the writes added nowhere told apart.
//! The check now says what changed since the previous one of the run, against the real pyright.
//!
//! Ground truth: the two checks' own totals (the change is their difference) and the edit made.

use crate::support;

use serde_json::json;

#[test]
fn a_second_project_check_names_the_diagnostics_new_and_gone_since_the_first() {
    let test = "lsp_trial154_check_delta::a_second_project_check_names_the_diagnostics_new_and_gone_since_the_first";
    if support::require_binary(test, "pyright").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/a.py", "def name() -> str:\n    return \"a\"\n\n\ndef count() -> int:\n    return \"many\"\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let check = |run: &runbound::Run| {
        let result = run.call(runbound::Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
        assert!(!result.is_error, "{}", result.joined_text());
        let structured = result.structured_content.clone().unwrap_or_else(|| panic!("{}", result.joined_text()));
        (result.joined_text(), structured)
    };
    let (text, first) = check(&run);
    assert_eq!(first["errors"], 1, "{text}");
    assert!(first["since_previous_check"].is_null() && !text.contains("since the previous check"), "the first check has none:\n{text}");
    // One error added above the one that stays (which moves down two lines: not new).
    support::call_ok(
        &run,
        "edit",
        json!({"path": "pkg/a.py", "old_string": "def name() -> str:\n    return \"a\"\n", "new_string": "def name() -> str:\n    return 1\n\n\ndef other() -> int:\n    return 2\n"}),
    );
    let (text, second) = check(&run);
    assert_eq!(second["errors"], 2, "{text}");
    let delta = &second["since_previous_check"];
    assert_eq!((delta["new_count"].as_u64(), delta["gone_count"].as_u64()), (Some(1), Some(0)), "{text}");
    assert_eq!(delta["new"][0]["line"], 2, "{text}");
    assert!(text.contains("1 new, 0 gone (compared per file, severity, code and message, lines aside); the new ones:\n    + pkg/a.py:2: error[reportReturnType]"), "{text}");
    // The moved error is not named; fixing it is one gone.
    support::call_ok(&run, "edit", json!({"path": "pkg/a.py", "old_string": "    return \"many\"", "new_string": "    return 3"}));
    let (text, third) = check(&run);
    assert_eq!(third["errors"], 1, "{text}");
    let delta = &third["since_previous_check"];
    assert_eq!((delta["new_count"].as_u64(), delta["gone_count"].as_u64()), (Some(0), Some(1)), "{text}");
    assert!(text.contains("gone (lines as they were):\n    - pkg/a.py:10: error[reportReturnType]"), "{text}");
    // Unchanged: said so.
    let (text, _) = check(&run);
    assert!(text.contains("no diagnostic new or gone"), "{text}");
}
