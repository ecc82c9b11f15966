//! Wrong answers from the fresh-user trial 144 (inflect 7.4.0), against the real pyright, on a
//! fixture of the same shape:
//! - F1/M4: adding a required parameter made pyright report `Argument missing for parameter
//!   "strict"` on a call of the module in place of that call's pristine argument type error. The
//!   fix brought the type error back and called it "introduced by this write"; with that new
//!   error in the written file the importers' resolved errors were set aside as "hidden", and the
//!   same break written again read "no new errors" in the test files it broke ("reported as new
//!   by an earlier write … not fixed since"). The recheck found the same with a comment-only
//!   write between the break and the fix: it forgot the hidden type error.
//! - F2: `incoming_calls` at depth 2 of `postprocess` listed the callers of its caller
//!   `singular_noun` with no note, while the doctest calls of `singular_noun` and its calls through
//!   an untyped parameter (`check_all(p, …)`: `p.singular_noun(…)`) were missing there — which
//!   the depth-1 answer at `singular_noun` names in two "NOT in this answer" notes.
//!
//! Ground truth: pyright itself, run on each state (the errors it lists just before each write);
//! for F2, CPython (the doctest and the untyped call do call `singular_noun`).

use crate::support;

use serde_json::json;

const ENGINE: &str = "class Engine:\n    def plural_noun(self, text: str, count: int | None = None) -> str:\n        return text + \"s\"\n\n    def use(self) -> str:\n        return self.plural_noun(3)\n";

const TEST_ENGINE: &str = "from pkg import Engine\n\n\ndef test_plural() -> None:\n    assert Engine().plural_noun(\"cat\") == \"cats\"\n";

#[test]
fn a_break_written_again_after_its_fix_reports_the_importers_errors_as_new() {
    let test = "lsp_trial144::a_break_written_again_after_its_fix_reports_the_importers_errors_as_new";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ENGINE),
        ("tests/test_engine.py", TEST_ENGINE),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "pkg/__init__.py"}));
    assert!(text.contains("pkg/__init__.py:6: error [reportArgumentType]"), "the pristine error:\n{text}");
    let break_ = json!({"path": "pkg/__init__.py", "old_string": "text: str, count", "new_string": "text: str, strict: bool, count"});
    let fix = json!({"path": "pkg/__init__.py", "old_string": "text: str, strict: bool, count", "new_string": "text: str, count"});
    let text = support::call_ok(&run, "edit", break_.clone());
    assert!(text.contains("tests/test_engine.py:5: error[reportCallIssue] Argument missing for parameter \"strict\""), "{text}");
    assert!(
        text.contains("pkg/__init__.py: 1 earlier diagnostic is no longer reported, but not counted as resolved: it stood on a line where this write introduced an error"),
        "the type error behind the new one on line 6:\n{text}"
    );
    // A comment-only write in between (the trial's call 3) keeps the hidden error known.
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "pkg/__init__.py", "old_string": "class Engine:", "new_string": "class Engine:  # inflects"}),
    );
    assert!(text.contains("no new errors"), "{text}");
    // The fix: the pristine type error shows again, not new; both breaks are resolved.
    let text = support::call_ok(&run, "edit", fix);
    assert!(text.contains("no new errors in the 2 files checked"), "{text}");
    assert!(text.contains("tests/test_engine.py: resolved by this write (1, pyright)"), "{text}");
    // The same break again: not there just before this write, so new.
    let text = support::call_ok(&run, "edit", break_);
    assert!(
        text.contains("tests/test_engine.py: new diagnostics introduced by this write (1, pyright):\n  tests/test_engine.py:5: error[reportCallIssue]"),
        "{text}"
    );
    assert!(!text.contains("not fixed since"), "{text}");
}

const INFLECTOR: &str = "class Engine:\n    def postprocess(self, orig: str, inflected: str) -> str:\n        return inflected.lower() if orig.islower() else inflected\n\n    def singular_noun(self, text: str) -> str:\n        \"\"\"\n        The singular of a plural noun.\n\n        >>> Engine().singular_noun(\"cats\")\n        'cat'\n        \"\"\"\n        return self.postprocess(text, text[:-1])\n\n    def plural_noun(self, text: str) -> str:\n        return self.postprocess(text, text + \"s\")\n";

const TEST_INFLECTIONS: &str = "from inflectish import Engine\n\n\ndef test_singular() -> None:\n    assert Engine().singular_noun(\"dogs\") == \"dog\"\n\n\ndef check_all(p, plural):\n    assert p.singular_noun(plural) == plural[:-1]\n";

#[test]
fn a_deeper_walk_names_the_calls_its_followed_callers_cannot_list() {
    let test = "lsp_trial144::a_deeper_walk_names_the_calls_its_followed_callers_cannot_list";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"inflectish\"\nversion = \"0.1.0\"\n"),
        ("inflectish/__init__.py", INFLECTOR),
        ("tests/test_inflections.py", TEST_INFLECTIONS),
    ]);
    // Ground truth: the doctest line and the call through the untyped `p` call `singular_noun`.
    assert_eq!(
        support::python_prints(
            dir.path(),
            "import doctest, inflectish; print(doctest.testmod(inflectish).attempted); from tests.test_inflections import check_all; from inflectish import Engine; check_all(Engine(), 'cats'); print('ok')"
        ),
        "1\nok"
    );
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    // Depth 1 at `singular_noun` names both.
    let doctest = "NOT in this answer: 1 occurrence of `singular_noun` in doctest examples (docstrings' `>>>` lines, which the doctests run and pyright does not analyze) — those that call it are callers: inflectish/__init__.py:9";
    let untyped = "NOT in this answer: 1 whole-word occurrence(s) of `singular_noun` in code where pyright gives no definition, so calls there are not listed: tests/test_inflections.py:9";
    let text = support::call_ok(
        &run,
        "lsp",
        json!({"op": "incoming_calls", "file": "inflectish/__init__.py", "line": 5, "symbol": "singular_noun"}),
    );
    assert!(text.contains(doctest) && text.contains(untyped), "{text}");
    // Depth 2 at `postprocess`: `singular_noun` is followed, its typed caller listed and the two
    // it cannot list named, for it.
    let result = run.call(
        runbound::Caller::Main,
        "lsp",
        json!({"op": "incoming_calls", "file": "inflectish/__init__.py", "line": 2, "symbol": "postprocess", "depth": 2}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("depth 2 — "), "{text}");
    assert!(text.contains("5: assert Engine().singular_noun(\"dogs\") == \"dog\""), "the typed caller, listed:\n{text}");
    let entry = "note: for the depth-1 caller `singular_noun` (inflectish/__init__.py:5), whose callers depth 2 lists — ";
    assert!(text.contains(&format!("{entry}{doctest}")), "{text}");
    assert!(text.contains(&format!("{entry}{untyped}")), "{text}");
    // `plural_noun`, followed too, has nothing of the kind.
    assert!(!text.contains("for the depth-1 caller `plural_noun`"), "{text}");
    let structured = result.structured_content.expect("structured content");
    let notes: Vec<&str> = structured["notes"].as_array().expect("notes").iter().filter_map(|note| note.as_str()).collect();
    for expected in [doctest, untyped] {
        assert!(notes.iter().any(|note| note.starts_with(&format!("{entry}{expected}"))), "{expected}: {notes:?}");
    }
}
