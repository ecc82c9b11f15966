//! Wrong answers from the fresh-user trial 177 (marshmallow 4.4.0), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: renaming `Field.__init__`'s keyword parameter `data_key` left the 10
//!   `fields.Integer(data_key=…)` calls whose class takes `**kwargs: Unpack[_BaseFieldKwargs]` and
//!   passes them on with `super().__init__(**kwargs)`: pyright resolves those keywords to the
//!   TypedDict key `_BaseFieldKwargs.data_key`, so they were counted "left unrenamed, rightly",
//!   the rename was written and 9 tests failed with TypeError; `references` on the parameter left
//!   them out with no note.
//!
//! Ground truth: the fixture run by CPython (`typing.Unpack` needs Python 3.11).

use crate::support;

use serde_json::json;

/// repro4's shape: a base class's constructor parameter `key`, a `TypedDict` declaring the key
/// `key`, and a subclass whose `__init__` unpacks it as `**kwargs` and passes them on.
const LIB: &str = "from typing import TypedDict, Unpack\n\n\nclass _Kw(TypedDict, total=False):\n    key: str | None\n\n\nclass Base:\n    def __init__(self, *, key: str | None = None) -> None:\n        self.key = key\n\n\nclass Typed(Base):\n    def __init__(self, *, extra: int = 0, **kwargs: Unpack[_Kw]) -> None:\n        super().__init__(**kwargs)\n";

const USE: &str = "from pkg.lib import Base, Typed\n\n\ndef run():\n    return (Base(key=\"a\").key, Typed(key=\"b\").key)\n";

/// F1: the keyword arguments that reach a renamed constructor parameter through a `TypedDict`
/// key unpacked as `**kwargs` are named by `references`, are a WARNING that stages the rename,
/// and the advised rename of the key, followed, leaves the code running.
#[test]
fn a_keyword_reaching_the_parameter_through_an_unpacked_typed_dict_key_stages_the_rename() {
    let test = "lsp_trial177::a_keyword_reaching_the_parameter_through_an_unpacked_typed_dict_key_stages_the_rename";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/lib.py", LIB),
        ("pkg/use.py", USE),
    ]);
    let run_use = |dir: &std::path::Path| support::python_prints(dir, "import pkg.use\nprint(pkg.use.run())");
    if run_use(dir.path()) != "('a', 'b')" {
        support::skip_or_fail("lsp_trial177 (CPython ground truth)", "python3 does not run the fixture (typing.Unpack needs 3.11)");
        return;
    }
    let run = support::lsp_run_allowing_writes(dir.path());
    // references: pyright lists `Typed(key=…)` under the key only; the answer names it.
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "pkg/lib.py", "line": 9, "symbol": "key"}));
    assert!(
        references.contains("note: NOT in this answer: 1 keyword argument `key=` that reaches this parameter through the TypedDict key `_Kw.key` (pkg/lib.py:5), which `Typed` unpacks it as `**kwargs: Unpack[_Kw]` in `__init__` and passes them on to it — pyright lists it as uses of that key, not of this parameter: pkg/use.py:5;"),
        "{references}"
    );
    // The rename: staged, not written, with the key named and the next step.
    let result =
        run.call(runbound::Caller::Main, "lsp_rename", json!({"file": "pkg/lib.py", "line": 9, "symbol": "key", "new_name": "name"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.starts_with("NOT written: this rename leaves 1 keyword argument `key=` in calls that reach the renamed parameter through the TypedDict key `_Kw.key` (pkg/lib.py:5)"),
        "{text}"
    );
    assert!(
        text.contains("WARNING: 1 keyword argument `key=` in calls (pkg/use.py:5) is left unrenamed: pyright resolves it to the TypedDict key `_Kw.key` (pkg/lib.py:5), not to the renamed parameter — yet `Typed` takes `**kwargs: Unpack[_Kw]`"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("pkg/lib.py")).unwrap(), LIB, "nothing written");
    // Ground truth: accepted as is, `Typed(key=…)` raises TypeError.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let broken = run_use(dir.path());
    assert!(broken.contains("TypeError") && broken.contains("unexpected keyword argument 'key'"), "{broken}");
    // The advice, followed: the key renamed, with the keywords pyright resolves to it.
    let advice =
        text.split("which renames those keywords: lsp_rename ").nth(1).and_then(|rest| rest.split(" — or discard").next()).unwrap();
    let args: serde_json::Value = serde_json::from_str(advice).unwrap_or_else(|err| panic!("{err}: {advice}"));
    assert_eq!(args, json!({"file": "pkg/lib.py", "line": 5, "symbol": "key", "new_name": "name"}));
    let renamed = support::call_ok(&run, "lsp_rename", args);
    assert!(!renamed.starts_with("NOT written"), "{renamed}");
    assert_eq!(run_use(dir.path()), "('a', 'b')");
    let used = std::fs::read_to_string(dir.path().join("pkg/use.py")).unwrap();
    assert!(used.contains("Base(name=\"a\").key, Typed(name=\"b\").key"), "{used}");
}
