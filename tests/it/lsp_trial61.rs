//! Misleading answers from the fresh-user trial 61 (emirpasic/gods 1.12.0), against the real
//! gopls and the real `go vet`, on a fixture of the same shape:
//! - M3: an edit that only removed an unused variable (a type error) was said to have introduced
//!   the printf finding on a line the edit before had written: gopls runs no vet analysis of a
//!   package with type errors, so the finding showed up only once they were resolved.
//!
//! Ground truth: `go vet` after each edit.

use crate::support;

use serde_json::json;

const SORT_TEST: &str = "package utils\n\nimport \"testing\"\n\nfunc TestSort(t *testing.T) {\n\tt.Logf(\"sorted\")\n}\n";

#[test]
fn a_vet_finding_seen_once_a_write_resolved_type_errors_is_not_known_to_be_new() {
    let test = "lsp_trial61::a_vet_finding_seen_once_a_write_resolved_type_errors_is_not_known_to_be_new";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/sorts\n\ngo 1.19\n"),
        ("utils/sort.go", "package utils\n\n// Three is three.\nfunc Three() int { return 3 }\n"),
        ("utils/sort_test.go", SORT_TEST),
    ]);
    let vet = || String::from_utf8_lossy(&support::go_offline(dir.path(), &["vet", "./..."]).stderr).into_owned();
    let run = support::lsp_run_allowing_writes(dir.path());
    // Edit 1: the printf mistake and a type error (an unused variable) together.
    let first = support::call_ok(
        &run,
        "edit",
        json!({"path": "utils/sort_test.go", "old_string": "\tt.Logf(\"sorted\")\n", "new_string": "\tvar unused = 3\n\tt.Logf(\"%d items %s\", 3)\n"}),
    );
    assert!(first.contains("this write introduced 1 new error "), "{first}");
    let by_hand = vet();
    assert!(by_hand.contains("declared and not used") || by_hand.contains("declared but not used"), "ground truth: {by_hand}");
    assert!(!by_hand.contains("Logf format %s reads arg #2"), "ground truth: the type error holds vet's printf check back: {by_hand}");
    // Edit 2 removes only the type error: the printf finding shows, written by edit 1.
    let second_result = run.call(
        runbound::Caller::Main,
        "edit",
        json!({"path": "utils/sort_test.go", "old_string": "\tvar unused = 3\n", "new_string": ""}),
    );
    let second = second_result.joined_text();
    assert!(!second_result.is_error, "{second}");
    // trial178 M1: the structured result carries the findings `go test` refuses to build on (a
    // host reading only `new_errors: 0` saw a clean write).
    let structured = second_result.structured_content.clone().unwrap_or_default();
    let findings =
        structured["diagnostics_on_write"]["go_test_vet_findings"].as_array().cloned().unwrap_or_else(|| panic!("{structured:#}"));
    assert_eq!(findings.len(), 1, "{structured:#}");
    assert!(findings[0]["finding"].as_str().unwrap_or_default().contains("Logf format %s reads arg #2"), "{structured:#}");
    assert!(findings[0]["introduced"].is_null(), "not known: {structured:#}");
    assert!(vet().contains("Logf format %s reads arg #2, but call has 1 arg"), "ground truth");
    let refusal = second.lines().find(|line| line.starts_with("go test will refuse to build:")).unwrap_or_else(|| panic!("{second}"));
    assert!(!refusal.contains("(this write introduced 1"), "{second}");
    assert!(
        refusal.contains("whether this write introduced 1 is not known (found now that this write resolved type errors, which hold gopls' vet analysis back: it may predate this write)"),
        "{second}"
    );
    assert!(second.contains("resolved by this write (1, gopls)"), "{second}");
}
