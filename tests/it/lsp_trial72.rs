//! Wrong answers from the fresh-user trial 72 (marshmallow 3.21.3), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F1: renaming `Field._deserialize`, which implements the `@abstractmethod`
//!   `FieldABC._deserialize`, said of the base "no type error shows it": `Field` became abstract
//!   (142 pyright errors, the tests could not import).
//! - F2: renaming the keyword parameter `data_key` of `Field(…, **additional_metadata)` said
//!   callers "break with a TypeError": the keyword went into `**additional_metadata` silently.
//!
//! Ground truth: CPython.

use crate::support;

use serde_json::json;

const FIELDS: &str = "from abc import ABC, abstractmethod\nimport typing\n\n\nclass FieldABC(ABC):\n    @abstractmethod\n    def _deserialize(self, value: typing.Any) -> typing.Any:\n        raise NotImplementedError\n\n\nclass Field(FieldABC):\n    def __init__(self, *, data_key: str | None = None, **additional_metadata: typing.Any) -> None:\n        self.data_key = data_key\n        self.metadata = additional_metadata\n\n    def _deserialize(self, value: typing.Any) -> typing.Any:\n        return value\n";

#[test]
fn an_abstract_base_method_and_a_keyword_splat_are_said_on_rename() {
    let test = "lsp_trial72::an_abstract_base_method_and_a_keyword_splat_are_said_on_rename";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"marsh\"\nversion = \"0.1.0\"\n"),
        ("marsh/__init__.py", ""),
        ("marsh/fields.py", FIELDS),
    ]);
    // Ground truth: renamed in `Field` only, `Field` is abstract; a renamed keyword goes to the splat.
    let abstract_after = FIELDS.replace(
        "    def _deserialize(self, value: typing.Any) -> typing.Any:\n        return value",
        "    def _load(self, value: typing.Any) -> typing.Any:\n        return value",
    );
    std::fs::write(dir.path().join("marsh/fields.py"), &abstract_after).unwrap();
    assert!(support::python_prints(dir.path(), "from marsh.fields import Field; Field()").contains("TypeError"));
    let splat_after = FIELDS
        .replace("data_key: str | None = None", "key_name: str | None = None")
        .replace("self.data_key = data_key", "self.data_key = key_name");
    std::fs::write(dir.path().join("marsh/fields.py"), &splat_after).unwrap();
    assert_eq!(
        support::python_prints(dir.path(), "from marsh.fields import Field; f = Field(data_key='k'); print(f.data_key, f.metadata)"),
        "None {'data_key': 'k'}"
    );
    std::fs::write(dir.path().join("marsh/fields.py"), FIELDS).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "marsh/fields.py", "line": 16, "symbol": "_deserialize", "new_name": "_load", "preview": true}),
    );
    assert!(text.contains("implements the abstract `FieldABC._deserialize`") && text.contains("becomes ABSTRACT"), "{text}");
    assert!(!text.contains("no type error shows it"), "{text}");
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "discard"}));
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "marsh/fields.py", "line": 12, "symbol": "data_key", "new_name": "key_name", "preview": true}),
    );
    assert!(text.contains("which also takes `**additional_metadata`: a caller that still passes `data_key=…` gets NO error"), "{text}");
    assert!(!text.contains("break with a TypeError"), "{text}");
}

/// M2, M4: past the cap of classes read, the overrides among the subclasses are still found —
/// a direct subclass, and one two levels down — and an override of an override is named too.
#[test]
fn overrides_past_the_class_cap_and_at_every_level_are_named() {
    let test = "lsp_trial72::overrides_past_the_class_cap_and_at_every_level_are_named";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let mut schemas = String::from("class Schema:\n    def handle_error(self, error: Exception) -> None:\n        raise error\n\n    def load(self) -> None:\n        self.handle_error(ValueError())\n");
    for index in 0..70 {
        schemas.push_str(&format!("\n\nclass Plain{index}(Schema):\n    pass\n"));
    }
    schemas.push_str("\n\nclass Direct(Schema):\n    def handle_error(self, error: Exception) -> None:\n        pass\n");
    schemas.push_str("\n\nclass Deep(Plain69):\n    def handle_error(self, error: Exception) -> None:\n        pass\n");
    schemas.push_str("\n\nclass Deeper(Direct):\n    def handle_error(self, error: Exception) -> None:\n        pass\n");
    let dir =
        support::workspace_with(&[("pyproject.toml", "[project]\nname = \"schemas\"\nversion = \"0.1.0\"\n"), ("schemas.py", &schemas)]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "schemas.py", "line": 2, "symbol": "handle_error", "new_name": "on_error", "preview": true}),
    );
    for class in ["Direct", "Deep", "Deeper"] {
        assert!(text.contains(&format!("is overridden by `{class}.handle_error`")), "{class} is not named:\n{text}");
    }
}
