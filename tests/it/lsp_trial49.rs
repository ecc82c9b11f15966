//! Wrong answers from the fresh-user trial 49 (pluggy 1.5.0), against real pyright and the real
//! interpreter, on a fixture of the same shape:
//! - F1: renaming a public method of a class the package exports (`pluggy.PluginManager`'s
//!   `parse_hookimpl_opts`, the hook pytest's subclass overrides) gave no public-API note; pytest
//!   crashed at startup after "no new errors".
//! - F2: renaming an instance attribute (`self._hookimpls = []`) that a subclass overrides with a
//!   `@property` gave no dispatch note; two tests failed after "no new errors".
//!
//! Ground truth: the interpreter, running the package's own code after the rename.

use crate::support;

use serde_json::json;

const INIT: &str = "from ._manager import Manager\n\n__all__ = [\"Manager\"]\n";

const MANAGER: &str = "class Manager:\n    def __init__(self) -> None:\n        self.impls: list[str] = []\n\n    def parse_opts(self, name: str) -> str | None:\n        return name if name.startswith(\"hook\") else None\n\n    def register(self, name: str) -> None:\n        opts = self.parse_opts(name)\n        if opts is not None:\n            self.impls.append(opts)\n\n    def count(self) -> int:\n        return len(self.impls)\n\n\nclass Subset(Manager):\n    def __init__(self, orig: Manager) -> None:\n        self._orig = orig\n\n    @property\n    def impls(self) -> list[str]:  # type: ignore[override]\n        return self._orig.impls[:1]\n";

fn package_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"plugs\"\nversion = \"0.1.0\"\n"),
        ("plugs/__init__.py", INIT),
        ("plugs/_manager.py", MANAGER),
    ])
}

const SUBSET_COUNT: &str = "from plugs import Manager; from plugs._manager import Subset; m = Manager(); m.register('hook_a'); m.register('hook_b'); print(Subset(m).count())";

#[test]
fn a_public_method_of_an_exported_class_gets_a_public_api_note() {
    let test = "lsp_trial49::a_public_method_of_an_exported_class_gets_a_public_api_note";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = package_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    // Asked at a call: the note names the definition.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "plugs/_manager.py", "line": 9, "symbol": "parse_opts", "new_name": "parse_options", "preview": true}),
    );
    let said = "note: public API changed: plugs/_manager.py:5 declares `parse_opts`, a public method of the class `Manager`, which the package exports as `plugs.Manager` (plugs/__init__.py:1) — this rename changes `Manager.parse_opts` to `Manager.parse_options`";
    assert!(text.contains(said), "{said}\n{text}");
    assert!(text.contains("also add `parse_opts = parse_options` in the class body"), "{text}");
    // A private member and a member of a class the package does not export get none.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "plugs/_manager.py", "line": 19, "symbol": "_orig", "new_name": "_original", "preview": true}),
    );
    assert!(!text.contains("public API changed"), "{text}");
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "plugs/_manager.py", "line": 22, "symbol": "impls", "new_name": "hooks", "preview": true}),
    );
    assert!(!text.contains("a public property of the class `Subset`"), "Subset is not exported:\n{text}");
    // The advice works: the alias keeps the old name for callers.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "plugs/_manager.py", "line": 5, "symbol": "parse_opts", "new_name": "parse_options"}),
    );
    assert!(text.contains("public API changed"), "{text}");
    let source = std::fs::read_to_string(dir.path().join("plugs/_manager.py")).unwrap();
    let aliased = source.replace("    def register(", "    parse_opts = parse_options\n\n    def register(");
    std::fs::write(dir.path().join("plugs/_manager.py"), aliased).unwrap();
    assert_eq!(support::python_prints(dir.path(), "from plugs import Manager; print(Manager().parse_opts('hook_x'))"), "hook_x");
}

#[test]
fn an_instance_attribute_a_subclass_overrides_with_a_property_gets_a_dispatch_note() {
    let test = "lsp_trial49::an_instance_attribute_a_subclass_overrides_with_a_property_gets_a_dispatch_note";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = package_workspace();
    assert_eq!(support::python_prints(dir.path(), SUBSET_COUNT), "1", "the fixture's subset reads its property");
    let run = support::lsp_run_allowing_writes(dir.path());
    // Asked at a use in the base class's code (line 14: `len(self.impls)`).
    let staged = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "plugs/_manager.py", "line": 14, "symbol": "impls", "new_name": "hooks"}),
    );
    let text = staged.joined_text();
    assert!(!staged.is_error, "{text}");
    // Staged, not written (trial150 M3); accepted, it is written as is.
    assert!(text.starts_with("NOT written: this rename leaves 1 related method"), "{text}");
    let edit_id = staged.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).expect("staged").to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let said =
        "note: dispatch changed: `Manager.impls` is overridden by `Subset.impls` (plugs/_manager.py:22), which this rename does not rename";
    assert!(text.contains(said), "{said}\n{text}");
    assert!(text.contains("`self.hooks` in `Manager`'s code"), "{text}");
    assert!(text.contains("lsp_rename file `plugs/_manager.py` line 22 symbol `impls` new_name `hooks`"), "{text}");
    // Ground truth: the base class's code now reads an attribute the subclass never sets.
    let source = std::fs::read_to_string(dir.path().join("plugs/_manager.py")).unwrap();
    assert!(source.contains("return len(self.hooks)") && source.contains("    def impls(self)"), "{source}");
    assert!(
        support::python_prints(dir.path(), SUBSET_COUNT).contains("AttributeError"),
        "{}",
        support::python_prints(dir.path(), SUBSET_COUNT)
    );
}
