//! Wrong answers from the fresh-user trial 174 (packaging 26.4, a src-layout library with a
//! 64k-test pytest suite), against the real pyright and CPython, on fixtures of the same shape:
//! - M1: renaming the abstract `BaseSpecifier.contains` left its implementations and said that
//!   calls "reach another class's member with no error at all, and no checker reports it"; the
//!   implementing classes became abstract (TypeError on every instantiation) and pyright reported
//!   511 errors.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// packaging's `BaseSpecifier(metaclass=abc.ABCMeta)` with the abstract `contains`, implemented
/// by `Specifier`.
const SPECIFIERS: &str = "import abc\n\n\nclass BaseSpecifier(metaclass=abc.ABCMeta):\n    @abc.abstractmethod\n    def contains(self, item):\n        \"\"\"Whether item is in it.\"\"\"\n\n\nclass Specifier(BaseSpecifier):\n    def contains(self, item):\n        return item == \"1\"\n\n\ndef check(item):\n    return Specifier().contains(item)\n";

/// M1: the renamed abstract method's implementations left with the old name make their classes
/// abstract: the staged result says so (TypeError on instantiation, pyright's reportAbstractUsage),
/// not that no checker reports it. Ground truth: accepted as is, instantiating raises TypeError.
#[test]
fn renaming_an_abstract_method_left_implemented_by_the_old_name_says_its_classes_become_abstract() {
    let test = "lsp_trial174::renaming_an_abstract_method_left_implemented_by_the_old_name_says_its_classes_become_abstract";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"spec\"\nversion = \"0.1.0\"\n"), ("spec.py", SPECIFIERS)]);
    assert_eq!(support::python_prints(dir.path(), "import spec; print(spec.check('1'))"), "True");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "spec.py", "line": 6, "symbol": "contains", "new_name": "includes"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.starts_with("NOT written: this rename leaves 1 related method"), "{text}");
    assert!(text.contains("the renamed `contains` is an `@abstractmethod`, so the classes that implemented it become abstract and raise TypeError when instantiated"), "{text}");
    assert!(!text.contains("no checker reports it") && !text.contains("no type error shows it"), "{text}");
    assert!(
        text.contains("note: `BaseSpecifier.contains` is an `@abstractmethod` implemented by `Specifier.contains` (spec.py:11)"),
        "{text}"
    );
    // Ground truth: written as is, `Specifier()` raises TypeError.
    assert_eq!(accepted_then_instantiated(&run, &result, dir.path()), "TypeError", "{text}");
}

/// Recheck51 N1: the abstract method with `@typing.overload` stubs before it (packaging's
/// `BaseSpecifier.filter`): the stubs' decorators were read, not the `@abc.abstractmethod` of the
/// definition, and the old "no checker reports it" came back.
const OVERLOADED: &str = "import abc\nimport typing\n\n\nclass BaseSpecifier(metaclass=abc.ABCMeta):\n    @typing.overload\n    def filter(self, items: list[int]) -> list[int]: ...\n    @typing.overload\n    def filter(self, items: list[str]) -> list[str]: ...\n    @abc.abstractmethod\n    def filter(self, items):\n        \"\"\"Keep the items in it.\"\"\"\n\n\nclass Specifier(BaseSpecifier):\n    def filter(self, items):\n        return [item for item in items if item]\n";

#[test]
fn renaming_an_overloaded_abstract_method_says_its_implementations_classes_become_abstract() {
    let test = "lsp_trial174::renaming_an_overloaded_abstract_method_says_its_implementations_classes_become_abstract";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"spec\"\nversion = \"0.1.0\"\n"), ("spec.py", OVERLOADED)]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "spec.py", "line": 11, "symbol": "filter", "new_name": "keep"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("the renamed `filter` is an `@abstractmethod`, so the classes that implemented it become abstract"), "{text}");
    assert!(!text.contains("no checker reports it"), "{text}");
    assert_eq!(accepted_then_instantiated(&run, &result, dir.path()), "TypeError", "{text}");
}

/// The staged rename of `result` accepted as is, then what instantiating `spec.Specifier()`
/// prints: `TypeError` when the class became abstract.
fn accepted_then_instantiated(run: &runbound::Run, result: &runbound::ToolResult, dir: &std::path::Path) -> String {
    let edit_id = result
        .structured_content
        .as_ref()
        .and_then(|content| content["edit_id"].as_str())
        .unwrap_or_else(|| panic!("{}", result.joined_text()))
        .to_owned();
    support::call_ok(run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    support::python_prints(dir, "import spec\ntry:\n    spec.Specifier()\nexcept TypeError as error:\n    print('TypeError')\n")
}
