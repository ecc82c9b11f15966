//! Wrong answer from the fresh-user trial 177 (marshmallow 4.4.0), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F2: renaming the decorator `validates_schema` to `validate_schema`, which test schemas define
//!   as a method before decorating the next method with `@validate_schema(…)` in the same class
//!   body: the taken-name check said "no other definition … in the same scope", the rename was
//!   written with "no new errors" (the decorator is typed `Callable[..., Any]`: pyright stays
//!   clean), and 4 tests failed — in a class body the name reads the class's own method first.

use crate::support;

use serde_json::json;

const LIB: &str = "from typing import Any, Callable\n\n\ndef deco(fn: Callable[..., Any]) -> Callable[..., Any]:\n    return fn\n";

/// The method `check` comes before the decorated method in class `A`; class `B` defines its
/// `check` only after its decorated method (no capture there).
const USES: &str = "from pkg.lib import deco\n\n\nclass A:\n    def check(self):\n        return 1\n\n    @deco\n    def other(self):\n        return 2\n\n\nclass B:\n    @deco\n    def first(self):\n        return 0\n\n    def check(self):\n        return 1\n\n\ndef run():\n    return (A().other(), B().first())\n";

/// Trial177 F2: the renamed decorator's use in a class body that already defines the new name is
/// a WARNING naming both lines, and the rename is staged, not written; accepted anyway, the
/// decorator call gets the method (ground truth: python3 raises TypeError).
#[test]
fn a_rename_onto_a_method_a_class_body_defines_before_a_renamed_use_is_a_warning_and_staged() {
    let test = "lsp_trial177_class_scope::a_rename_onto_a_method_a_class_body_defines_before_a_renamed_use_is_a_warning_and_staged";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/lib.py", LIB),
        ("pkg/uses.py", USES),
    ]);
    let probe = "import pkg.uses\ntry:\n    print(pkg.uses.run())\nexcept TypeError as error:\n    print('TypeError')";
    assert_eq!(support::python_prints(dir.path(), probe), "(2, 0)");
    let run = runbound::Run::builder(dir.path())
        .config(support::config_with_room())
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .build()
        .expect("build run");
    let result =
        run.call(runbound::Caller::Main, "lsp_rename", json!({"file": "pkg/lib.py", "line": 4, "symbol": "deco", "new_name": "check"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.starts_with("NOT written: `check` is already declared in the same scope as the renamed `deco` (pkg/uses.py:8;"), "{text}");
    let warning = text.lines().find(|line| line.starts_with("WARNING: pkg/uses.py:8: the renamed use of `deco` at line 8 becomes `check` in a class body that already defines `check` at line 5 (`def check`)")).unwrap_or_else(|| panic!("{text}"));
    assert!(warning.contains("pick another name"), "{warning}");
    assert!(!text.contains("pkg/uses.py:14: the renamed"), "class B's decorator comes before its method: {text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("pkg/uses.py")).unwrap(), USES, "nothing written");
    // Ground truth of the WARNING: accepted as is, `@check` in class A calls the method.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert_eq!(support::python_prints(dir.path(), probe), "TypeError");
}
