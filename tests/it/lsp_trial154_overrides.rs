//! Misleading answers from the fresh-user trial 154 (marshmallow 3.21.3), against the real pyright
//! and CPython, on a fixture of the same shape:
//! - M1: after renaming a base method (staged for its override, then accepted), the step the
//!   answer named — rename the override too — warned "`_bind_field` is already a member of
//!   `Field` … choose another name", though restoring that override was the point.
//! - M3: the step "rename it too (lsp_rename … line 380 symbol parent …)" on the line
//!   `self.parent = self.parent or schema` was refused: the symbol occurs twice there.
//!
//! Ground truth: the module run by CPython.

use crate::support;

use serde_json::json;

const FIELDS: &str = "class FieldABC:\n    parent = None\n\n    def bind(self, name: str) -> str:\n        return name\n\n\nclass Field(FieldABC):\n    def attach(self, schema: object) -> None:\n        self.parent = self.parent or schema\n\n    def bind(self, name: str) -> str:\n        return \"field:\" + super().bind(name)\n\n\ndef call(field: FieldABC) -> str:\n    return field.bind(\"x\")\n\n\ndef run() -> str:\n    return call(Field())\n";

fn files(fields: &str) -> Vec<(&'static str, String)> {
    vec![
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n".to_owned()),
        ("pkg/__init__.py", String::new()),
        ("pkg/fields.py", fields.to_owned()),
    ]
}

fn run_module(dir: &std::path::Path) -> String {
    support::python_prints(dir, "import pkg.fields\nprint(pkg.fields.run())")
}

#[test]
fn renaming_an_override_after_its_base_in_the_same_run_is_no_name_conflict() {
    let test = "lsp_trial154_overrides::renaming_an_override_after_its_base_in_the_same_run_is_no_name_conflict";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let owned = files(FIELDS);
    let borrowed: Vec<(&str, &str)> = owned.iter().map(|(path, text)| (*path, text.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    assert_eq!(run_module(dir.path()), "field:x");
    let run = support::lsp_run_allowing_writes(dir.path());
    let staged = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/fields.py", "line": 4, "symbol": "bind", "new_name": "bind_field"}),
    );
    let text = staged.joined_text();
    assert!(text.starts_with("NOT written"), "{text}");
    assert!(
        text.contains("next step: rename the override too (lsp_rename file `pkg/fields.py` line 12 symbol `bind` new_name `bind_field`)"),
        "{text}"
    );
    let edit_id =
        staged.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    // Ground truth: the override no longer overrides.
    assert_eq!(run_module(dir.path()), "x");
    // The step the answer named.
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "pkg/fields.py", "line": 12, "symbol": "bind", "new_name": "bind_field"}));
    assert!(!text.contains("WARNING: `bind_field` is already a member"), "{text}");
    assert!(
        text.contains("note: `FieldABC.bind_field` (pkg/fields.py:4), a base class of `Field`, was renamed from `bind` by an earlier rename of this run: this rename makes the renamed `Field.bind_field` override it again, as before both"),
        "{text}"
    );
    assert!(text.contains("a related class declares `bind_field` renamed from `bind` earlier in this run, which this rename follows: `FieldABC` (pkg/fields.py:4)"), "{text}");
    assert_eq!(run_module(dir.path()), "field:x", "ground truth: the override is restored");

    // A base member that had the new name before this run (renamed in another session), which
    // the member matches parameter for parameter and nothing overrides under the old name any
    // more: the rename restores the override (trial158 M4), said in a note.
    let renamed_base = std::fs::read_to_string(dir.path().join("pkg/fields.py")).unwrap().replace(
        "def bind_field(self, name: str) -> str:\n        return \"field:\"",
        "def bind(self, name: str) -> str:\n        return \"field:\"",
    );
    let owned = files(&renamed_base);
    let borrowed: Vec<(&str, &str)> = owned.iter().map(|(path, text)| (*path, text.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/fields.py", "line": 12, "symbol": "bind", "new_name": "bind_field", "preview": true}),
    );
    assert!(!text.contains("WARNING: `bind_field` is already a member"), "{text}");
    assert!(text.contains("note: `bind_field` is already a member of `FieldABC` (pkg/fields.py:4), a base class of `Field`, with the same parameters, and no base class of `Field` declares `bind`: this rename makes `Field.bind_field` override `FieldABC.bind_field` again"), "{text}");

    // With other parameters it is no restored override but a conflict to warn of.
    let other_parameters =
        renamed_base.replace("def bind_field(self, name: str) -> str:", "def bind_field(self, name: str, strict: bool = False) -> str:");
    let owned = files(&other_parameters);
    let borrowed: Vec<(&str, &str)> = owned.iter().map(|(path, text)| (*path, text.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/fields.py", "line": 12, "symbol": "bind", "new_name": "bind_field", "preview": true}),
    );
    assert!(text.contains("WARNING: `bind_field` is already a member of `FieldABC` (pkg/fields.py:4), a base class of `Field`"), "{text}");
}

#[test]
fn a_step_on_a_line_with_the_symbol_twice_names_its_occurrence_and_runs() {
    let test = "lsp_trial154_overrides::a_step_on_a_line_with_the_symbol_twice_names_its_occurrence_and_runs";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let owned = files(FIELDS);
    let borrowed: Vec<(&str, &str)> = owned.iter().map(|(path, text)| (*path, text.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/fields.py", "line": 2, "symbol": "parent", "new_name": "owner", "preview": true}),
    );
    assert!(
        text.contains("next step: rename it too (lsp_rename file `pkg/fields.py` line 10 symbol `parent` occurrence 1 new_name `owner`)"),
        "{text}"
    );
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/fields.py", "line": 10, "symbol": "parent", "occurrence": 1, "new_name": "owner", "preview": true}),
    );
    assert!(text.contains("(proposed) rename `parent` → `owner`"), "{text}");
}
