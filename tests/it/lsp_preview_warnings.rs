//! small24: a staged rename's preview — what an agent reads before `resolve accept` — says the
//! rename's warnings at its top, as the applied result does, and `structuredContent.warnings`
//! carries them; `resolve accept` repeats them. Real pyright; ground truth: the project's own
//! test, which the accepted rename breaks exactly where the warning said.

use crate::support;

use runbound::Caller;
use serde_json::json;

const STORE: &str = "class Store:\n    def fetch(self, key):\n        \"\"\"Return the value; fetch is cached.\"\"\"\n        return key\n";
const TEST_STORE: &str = "from unittest import mock\n\nfrom pkg.store import Store\n\n\ndef test_fetch():\n    with mock.patch.object(Store, \"fetch\", return_value=1):\n        assert Store().fetch(\"k\") == 1\n    assert getattr(Store(), \"fetch\")(\"x\") == \"x\"\n\n\nif __name__ == \"__main__\":\n    test_fetch()\n";

/// The warning the grep check gives for the two attribute-name strings.
const ATTRIBUTE_WARNING: &str = "WARNING: 2 occurrences left unrenamed in strings that name the attribute";

#[test]
fn python_rename_preview_says_its_warnings_at_the_top_and_accept_repeats_them() {
    let test = "python_rename_preview_says_its_warnings_at_the_top_and_accept_repeats_them";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let files = [
        ("pyproject.toml", "[project]\nname = \"store\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/store.py", STORE),
        ("tests/__init__.py", ""),
        ("tests/test_store.py", TEST_STORE),
    ];
    let dir = support::workspace_with(&files);
    let run_test =
        || std::process::Command::new("python3").args(["-m", "tests.test_store"]).current_dir(dir.path()).output().expect("run python3");
    assert!(run_test().status.success(), "the fixture's test fails before the rename");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/store.py", "line": 2, "symbol": "fetch", "new_name": "load", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("(proposed) rename `fetch` → `load`"), "{text}");
    // The warning comes right under the headline, before the file list and the diff.
    assert!(lines[1].starts_with(ATTRIBUTE_WARNING), "the preview's warning is not at its top:\n{text}");
    let file_list = text.find("  pkg/store.py: ").unwrap_or_else(|| panic!("no file list:\n{text}"));
    assert!(text.find(ATTRIBUTE_WARNING).unwrap() < file_list, "{text}");
    let structured = result.structured_content.as_ref().expect("structured");
    let warnings: Vec<&str> = structured["warnings"].as_array().expect("warnings").iter().filter_map(|w| w.as_str()).collect();
    assert!(warnings.first().is_some_and(|first| first.starts_with(ATTRIBUTE_WARNING)), "{structured}");
    assert_eq!(std::fs::read_to_string(dir.path().join("pkg/store.py")).unwrap(), STORE, "a preview wrote the file");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let accepted_text = accepted.joined_text();
    assert!(!accepted.is_error, "{accepted_text}");
    assert!(accepted_text.contains("staging warned:") && accepted_text.contains(ATTRIBUTE_WARNING), "{accepted_text}");
    // Ground truth: the warned strings now name an attribute that is gone.
    let after = run_test();
    let stderr = String::from_utf8_lossy(&after.stderr);
    assert!(!after.status.success() && stderr.contains("AttributeError") && stderr.contains("fetch"), "{stderr}");
}
