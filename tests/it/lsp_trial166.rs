//! Wrong answers from the fresh-user trial 166 (pluggy 1.7.0, Python 3.11), against the real
//! pyright and CPython, on fixtures of the same shape:
//! - M3/M4: a rename listed under "left unrenamed … check them" the occurrences pyright resolves
//!   to another declaration: another function's parameter (`HookImpl.__init__`'s `plugin_name`,
//!   `load_recipe(name)`), an attribute of another class when a parameter is renamed
//!   (`HookCaller.name` beside `register(name=)`), typeshed's setuptools `setup(name=…)` — 96 lines
//!   to check, none to rename. They are counted as rightly left; a same-named parameter of an
//!   override stays listed.
//!
//! (F1 and M2 are tested in lsp_diagnostics_cross_file.rs and lsp_python_blind_spots.rs.)
//! Ground truth: CPython runs the renamed code.

use crate::support;

use serde_json::json;

const CORE: &str = "class Registry:
    def __init__(self, name: str) -> None:
        self.name = name

    def register(self, plugin: object, name: str | None = None) -> str:
        return name or str(plugin)


class Sub(Registry):
    def register(self, plugin: object, name: str | None = None) -> str:
        return name or \"sub\"


def load(name: str) -> str:
    return name.upper()
";

const USE: &str = "import pathlib

from pkg.core import Registry, load

r = Registry(name=\"r\")
print(r.register(1, name=\"one\"), load(name=\"x\"), pathlib.Path(\"a/b\").name, r.name)
";

/// trial166 M4 (pluggy's `register(name=)` → `plugin_name`) and M3.
#[test]
fn a_renamed_parameter_counts_occurrences_resolved_to_other_declarations_as_rightly_left() {
    let test = "a_renamed_parameter_counts_occurrences_resolved_to_other_declarations_as_rightly_left";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/core.py", CORE),
        ("use.py", USE),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import use"), "one X b r");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/core.py", "line": 5, "symbol": "name", "new_name": "label", "preview": true}),
    );
    // core.py: `__init__`'s parameter and its use, `self.name`, `load`'s parameter and its use;
    // use.py: `Registry(name=…)`, `load(name=…)`, typeshed's `Path.name`, `r.name`.
    assert!(
        text.contains("left unrenamed, rightly: 9 occurrences in 2 files (pkg/core.py, use.py) whose definition pyright resolves to another declaration not tied to the renamed one"),
        "{text}"
    );
    // The override's parameter and its use stay to check.
    let check = text.lines().position(|line| line.contains("— check them")).unwrap_or_else(|| panic!("{text}"));
    assert!(text.lines().nth(check).unwrap().contains("left unrenamed: 2 occurrences"), "{text}");
    let listed: Vec<&str> = text.lines().skip(check + 1).take_while(|line| line.starts_with("    ")).collect();
    assert!(listed.len() == 2 && listed.iter().all(|line| line.contains("pkg/core.py:10:") || line.contains("pkg/core.py:11:")), "{text}");
    // Ground truth: with the parameter renamed, the other symbols work as before.
    let edit_id = text.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_else(|| panic!("{text}"));
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let core = std::fs::read_to_string(dir.path().join("pkg/core.py")).unwrap();
    assert!(
        core.contains("def register(self, plugin: object, label: str | None = None) -> str:\n        return label or str(plugin)"),
        "{core}"
    );
    assert_eq!(support::python_prints(dir.path(), "import use"), "one X b r");
}
