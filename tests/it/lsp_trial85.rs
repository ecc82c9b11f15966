//! Wrong answer from the fresh-user trial 85 (bidict 0.23.1), against the real pyright and
//! CPython, on a fixture of the same shape: `MutableBidict` and `bidict` redeclare `inv` inside
//! `if TYPE_CHECKING:` in their class bodies (a narrower return type for the type checker), while
//! at run time the only `inv` is `BidictBase`'s:
//! - F1: renaming `MutableBidict.inv` renamed the stub and its uses, printed no override check
//!   at all and said "no new errors"; 46 tests then failed with AttributeError.
//! - M1: renaming `BidictBase.inverse` said pyright reports each instantiation of the classes
//!   that became abstract, while the stubs keep pyright silent.
//!
//! Ground truth: CPython (the AttributeError and the TypeError after the rename is written).

use crate::support;

use serde_json::json;

const BASE: &str = "from abc import ABC, abstractmethod\n\n\nclass BidirectionalMapping(ABC):\n    @property\n    @abstractmethod\n    def inverse(self) -> 'BidirectionalMapping': ...\n\n\nclass BidictBase(BidirectionalMapping):\n    def __init__(self) -> None:\n        self._fwd: dict = {}\n\n    @property\n    def inverse(self) -> 'BidictBase':\n        return self\n\n    @property\n    def inv(self) -> 'BidictBase':\n        return self.inverse\n";

const MUTABLE: &str = "import typing as t\n\nfrom .base import BidictBase\n\n\nclass MutableBidict(BidictBase):\n    if t.TYPE_CHECKING:\n        @property\n        def inverse(self) -> 'MutableBidict': ...\n        @property\n        def inv(self) -> 'MutableBidict': ...\n\n    def put(self, key: int, value: int) -> None:\n        self._fwd[key] = value\n\n\nclass bidict(MutableBidict):\n    if t.TYPE_CHECKING:\n        @property\n        def inverse(self) -> 'bidict': ...\n";

const USE: &str = "from pkg.mutable import MutableBidict\n\n\ndef flip(b: MutableBidict) -> MutableBidict:\n    return b.inv\n";

#[test]
fn renaming_a_member_declared_only_under_type_checking_warns_of_the_run_time_member_it_leaves() {
    let test = "lsp_trial85::renaming_a_member_declared_only_under_type_checking_warns_of_the_run_time_member_it_leaves";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/base.py", BASE),
        ("pkg/mutable.py", MUTABLE),
        ("app.py", USE),
    ]);
    let flip = "from pkg.mutable import MutableBidict; import app; print(type(app.flip(MutableBidict())).__name__)";
    assert_eq!(support::python_prints(dir.path(), flip), "MutableBidict");
    let run = support::lsp_run_allowing_writes(dir.path());
    let staged = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/mutable.py", "line": 11, "symbol": "inv", "new_name": "flipped"}),
    );
    let text = staged.joined_text();
    // review45 RISK 5: a run-time break the WARNING names stages the rename, like changed dispatch.
    assert!(
        text.starts_with("NOT written: this rename leaves 1 related declaration with the old name that the renamed code still reaches — `BidictBase.inv` (pkg/base.py:19)"),
        "{text}"
    );
    assert_eq!(support::python_prints(dir.path(), flip), "MutableBidict", "nothing written yet");
    let edit_id =
        staged.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    let accepted = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(
        text.contains("WARNING: `MutableBidict.inv` (pkg/mutable.py:11) is declared only for the type checker (inside `if TYPE_CHECKING:`): at run time `MutableBidict` has no `inv` of its own, the attribute is `BidictBase.inv` (pkg/base.py:19), and this rename does not rename it"),
        "{text}"
    );
    assert!(text.contains("override check: `MutableBidict.inv` is a class member"), "{text}");
    // Ground truth: the renamed use raises at run time, and pyright sees nothing.
    assert!(support::python_prints(dir.path(), flip).contains("AttributeError"), "{}", support::python_prints(dir.path(), flip));
    assert!(accepted.contains("no new errors"), "pyright found an error after all, so the warning is not the only signal:\n{accepted}");

    // The other side: the run-time member renamed, the stubs left; the abstract note does not
    // promise pyright errors for the classes whose stubs keep pyright silent.
    let preview = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/base.py", "line": 15, "symbol": "inverse", "new_name": "flipped", "preview": true}),
    );
    let text = preview.joined_text();
    for (class, line) in [("MutableBidict", 9), ("bidict", 20)] {
        assert!(
            text.contains(&format!("WARNING: `{class}.inverse` (pkg/mutable.py:{line}) redeclares `inverse` only for the type checker")),
            "{text}"
        );
    }
    assert!(text.contains("but NOT those of `MutableBidict`, `bidict`, which redeclare `inverse` under `if TYPE_CHECKING:`"), "{text}");
    let edit_id =
        preview.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let make = "from pkg.mutable import bidict; bidict()";
    assert!(support::python_prints(dir.path(), make).contains("TypeError"), "{}", support::python_prints(dir.path(), make));
}

const EXPRESSIONS: &str = "from typing import TYPE_CHECKING\n\n\nclass Expression:\n    if TYPE_CHECKING:\n        members: \"tuple[Expression, ...]\"\n\n    def first(self) -> \"Expression\":\n        return self.members[0]\n\n\nclass Compound(Expression):\n    def __init__(self, *members: Expression) -> None:\n        self.members = members\n\n\nclass Literal(Expression):\n    pass\n";

/// Trial 88 F1 (parsimonious 0.10.0, `Expression.members` declared under `if TYPE_CHECKING:`):
/// the run-time definition is an instance attribute a subclass assigns, which the rename renames
/// along — no warning that no run-time definition exists, and the renamed uses work.
#[test]
fn a_type_checking_declaration_whose_run_time_assignment_is_renamed_along_is_not_said_to_lack_one() {
    let test = "lsp_trial85::a_type_checking_declaration_whose_run_time_assignment_is_renamed_along_is_not_said_to_lack_one";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pars\"\nversion = \"0.1.0\"\n"),
        ("pars/__init__.py", ""),
        ("pars/expressions.py", EXPRESSIONS),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pars/expressions.py", "line": 6, "symbol": "members", "new_name": "subexprs"}),
    );
    assert!(
        text.contains("self.subexprs = members")
            || std::fs::read_to_string(dir.path().join("pars/expressions.py")).unwrap().contains("self.subexprs = members"),
        "{text}"
    );
    assert!(!text.contains("no run-time definition of `members` was found"), "{text}");
    assert!(text.contains("`Expression.members` is declared only for the type checker"), "{text}");
    // Ground truth: the renamed uses work at run time.
    let first = "from pars.expressions import Compound, Literal; print(type(Compound(Literal()).first()).__name__)";
    assert_eq!(support::python_prints(dir.path(), first), "Literal");
}
