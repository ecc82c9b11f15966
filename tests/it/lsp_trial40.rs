//! Wrong answers from the fresh-user trial 40 (once_cell 1.20.2, tomli 2.2.1), against the real
//! servers on fixtures of the same shape:
//! - F7: `incoming_calls` of `TOMLDecodeError.__init__` said "no callers" and `references` of
//!   `NestedDict.__init__` "1 reference", while the classes are constructed 30 and 2 times.
//!
//! Ground truth: grep.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// F7: a Python `__init__`'s answers name the constructions of its class, which call it.
#[test]
fn a_python_constructor_names_the_constructions_of_its_class() {
    let test = "lsp_trial40::a_python_constructor_names_the_constructions_of_its_class";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"tomlish\"\nversion = \"0.1.0\"\n"),
        ("tomlish/__init__.py", ""),
        (
            "tomlish/_parser.py",
            "class TOMLDecodeError(ValueError):\n    def __init__(self, msg: str, pos: int) -> None:\n        super().__init__(f\"{msg} at {pos}\")\n\n\ndef parse(src: str) -> None:\n    if not src:\n        raise TOMLDecodeError(\"empty\", 0)\n    raise TOMLDecodeError(\"bad\", 1)\n",
        ),
        ("tomlish/other.py", "from tomlish._parser import TOMLDecodeError\n\nERROR = TOMLDecodeError(\"x\", 2)\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    for op in ["incoming_calls", "references"] {
        let result = run.call(Caller::Main, "lsp", json!({"op": op, "file": "tomlish/_parser.py", "line": 2, "symbol": "__init__"}));
        let text = result.joined_text();
        assert!(!result.is_error, "{op}: {text}");
        let note = text
            .lines()
            .find(|line| line.contains("constructions of `TOMLDecodeError(…)`"))
            .unwrap_or_else(|| panic!("{op}: the constructions are not named:\n{text}"));
        // Ground truth (grep `TOMLDecodeError(`, less the `class` line): 3.
        assert!(note.starts_with("note: NOT in this answer: 3 constructions"), "{op}: {note}");
        assert!(note.contains("tomlish/_parser.py:8") && note.contains("tomlish/other.py:3"), "{op}: {note}");
    }
}

/// F6: `deref` of `impl Deref for Lazy` had "1 reference" and "no callers" while every `*x`
/// calls it; its answers say rust-analyzer lists no implicit call.
#[test]
fn an_implicitly_called_trait_method_says_its_implicit_calls_are_not_listed() {
    let test = "lsp_trial40::an_implicitly_called_trait_method_says_its_implicit_calls_are_not_listed";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"lazyish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "pub struct Lazy(pub u32);\n\nimpl std::ops::Deref for Lazy {\n    type Target = u32;\n    fn deref(&self) -> &u32 {\n        &self.0\n    }\n}\n\npub fn twice(x: &Lazy) -> u32 {\n    *x.deref() + **x\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    for op in ["references", "incoming_calls"] {
        let result = run.call(Caller::Main, "lsp", json!({"op": op, "file": "src/lib.rs", "line": 5, "symbol": "deref"}));
        let text = result.joined_text();
        assert!(!result.is_error, "{op}: {text}");
        assert!(
            text.contains("note: NOT in this answer: the implicit calls of `deref` — it implements `Deref` for `Lazy`"),
            "{op}: {text}"
        );
    }
}
