//! Misleading answer from the fresh-user trial 177 (marshmallow 4.4.0), against the real pyright:
//! - M1: a typo'd keyword in `data = s.dump(user, mny=True)` introduced 1 error and made the 9
//!   errors on the next 3 lines (uses of `data`) read "resolved by this write (9)": pyright types
//!   what the failing call returns as `Unknown` and stops reporting on its uses; nothing was fixed.

use crate::support;

use serde_json::json;

const MODULE: &str = "def dump(obj: object, *, many: bool = False):\n    return [obj] if many else obj\n\n\nprint(dump(2)[\"other\"])\ndata = dump(1)\nprint(data[\"name\"])\n";

/// Trial177 M1: the errors on the uses of a failing call's result after this write's new error
/// are "not counted as resolved"; an error gone above the new one (a real fix) stays resolved;
/// the fix of the typo shows them again, not new.
#[test]
fn errors_after_a_new_error_of_the_written_file_are_not_counted_as_resolved_by_pyright() {
    let test = "lsp_trial177_write_checks::errors_after_a_new_error_of_the_written_file_are_not_counted_as_resolved_by_pyright";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"m\"\nversion = \"0.1.0\"\n"), ("m.py", MODULE)]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "m.py"}));
    assert!(text.contains("m.py:7: error"), "the pristine errors on line 7:\n{text}");
    assert!(text.contains("m.py:5: error"), "the pristine errors on line 5:\n{text}");
    // Line 5 fixed (a real fix, above the new error) and line 6 broken in one write.
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "m.py", "old_string": "print(dump(2)[\"other\"])\ndata = dump(1)", "new_string": "print(dump(2))\ndata = dump(1, mny=True)"}),
    );
    assert!(text.contains("m.py:6: error[reportCallIssue] No parameter named \"mny\""), "{text}");
    assert!(text.contains("after this write's new error at line 6 are no longer reported, but not counted as resolved"), "{text}");
    let hidden_at = text.find("after this write's new error at line 6").unwrap();
    assert!(text[hidden_at..].contains("m.py:7: error"), "line 7's errors listed as not resolved:\n{text}");
    let resolved = text.lines().find(|line| line.starts_with("m.py: resolved by this write")).unwrap_or_else(|| panic!("{text}"));
    let resolved_at = text.find(resolved).unwrap();
    let resolved_list: Vec<&str> = text[resolved_at..].lines().skip(1).take_while(|line| line.starts_with("  ")).collect();
    assert!(resolved_list.iter().all(|line| line.contains("m.py:5:")), "only line 5's are resolved: {resolved_list:?}\n{text}");
    // The typo fixed: line 7's errors show again, not new.
    let text = support::call_ok(&run, "edit", json!({"path": "m.py", "old_string": "dump(1, mny=True)", "new_string": "dump(1)"}));
    assert!(!text.contains("new diagnostics introduced by this write"), "{text}");
}
