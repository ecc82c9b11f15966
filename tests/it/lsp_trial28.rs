//! Wrong answers from the fresh-user trial 28 (httparse 1.10.1, pathspec 0.12.1), against the
//! real pyright and rust-analyzer on fixtures of the same shape:
//! - F2: a write giving `RegexPattern.__init__` a required parameter skipped the modules that
//!   construct only the subclass `GitWildMatchPattern` ("they use none of the names whose
//!   definitions this write changed"), whose calls then fail (pyright CLI).
//! - F1: renaming `struct Bytes`, re-exported only inside `pub mod _benchable { … }`, said the
//!   rename replaces `httparse::Bytes` (a path that does not exist); the public path is
//!   `httparse::_benchable::Bytes`.
//!
//! - M4: an error only in the library's unit-test build (`#[cfg(test)]` code, a lint that
//!   `#![cfg_attr(test, deny(warnings))]` makes an error) had the bench and integration tests
//!   called "never compiled: the library has compiler errors"; cargo compiled them.
//!
//! - M9: restricted and confined, pyright crashed 2–4 s after every start when the venv's
//!   `.pth` named a directory outside the workspace; every call said "call again".
//!
//! Ground truth: the pyright CLI, cargo's JSON messages, and `cargo check` of a crate that depends on the fixture.

use crate::support;

use runbound::{Caller, RunConfig};
use serde_json::json;
use std::path::Path;
use std::process::Command;

use support::edit_and_first_server_check as edit;

/// The pyright CLI's error lines for `file` in `dir` (`pyright --outputjson`), as `line:message`.
fn pyright_errors(dir: &Path, file: &str) -> Vec<String> {
    let output = Command::new("pyright").args(["--outputjson", file]).current_dir(dir).output().expect("run pyright");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("pyright --outputjson prints JSON");
    report["generalDiagnostics"]
        .as_array()
        .expect("generalDiagnostics")
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .map(|diagnostic| {
            format!("{}:{}", diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1, diagnostic["message"].as_str().unwrap_or(""))
        })
        .collect()
}

fn pyright_only_run(workspace: &Path) -> runbound::Run {
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    support::lsp_run_allowing_writes_with_config(workspace, config)
}

/// pathspec's shape: a base class in `pat/pattern.py`, a subclass in another module, tests that
/// name only the subclass (and reach the base's module through the package's `__init__.py`).
fn subclass_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pat\"\nversion = \"0.1.0\"\n"),
        ("pat/__init__.py", "from .pattern import RegexPattern\nfrom .patterns.wild import WildPattern\n"),
        (
            "pat/pattern.py",
            "class RegexPattern(object):\n    def __init__(\n        self,\n        pattern: str,\n    ) -> None:\n        self.pattern = pattern\n",
        ),
        ("pat/patterns/__init__.py", "from .wild import WildPattern\n"),
        ("pat/patterns/wild.py", "from ..pattern import RegexPattern\n\n\nclass WildPattern(RegexPattern):\n    pass\n"),
        (
            "tests/test_wild.py",
            "from pat.patterns.wild import WildPattern\n\n\ndef test_wild() -> None:\n    assert WildPattern(\"*.py\").pattern == \"*.py\"\n",
        ),
    ])
}

/// F2: the base class's constructor gets a required parameter: the test module that constructs
/// only the subclass is checked and its new error listed (= the pyright CLI's).
#[test]
fn a_changed_base_class_checks_the_modules_that_use_only_a_subclass() {
    let test = "a_changed_base_class_checks_the_modules_that_use_only_a_subclass";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "pyright").is_none() {
        return;
    }
    let dir = subclass_package();
    assert!(pyright_errors(dir.path(), "tests/test_wild.py").is_empty(), "the fixture type-checks");
    let run = pyright_only_run(dir.path());
    // A comment opens pattern.py in the server (its pre-write state is then known).
    let (text, _) = edit(&run, "pat/pattern.py", "class RegexPattern", "# A pattern.\nclass RegexPattern");
    assert!(text.contains("no new errors in pat/pattern.py (pyright)"), "{text}");
    let (text, server) = edit(&run, "pat/pattern.py", "        pattern: str,\n", "        pattern: str,\n        flags: int,\n");
    let truth = pyright_errors(dir.path(), "tests/test_wild.py");
    assert_eq!(truth.len(), 1, "pyright CLI: {truth:?}");
    assert!(truth[0].starts_with("5:") && truth[0].contains("flags"), "pyright CLI: {truth:?}");
    assert!(!text.contains("tests/test_wild.py was not checked"), "{text}");
    assert!(text.contains("tests/test_wild.py:5:") && text.contains("\"flags\""), "the subclass's broken call is not listed:\n{text}");
    let checked: Vec<&str> = server["files"]
        .as_array()
        .map(|files| files.iter().filter(|file| file["status"] == "checked").filter_map(|file| file["file"].as_str()).collect())
        .unwrap_or_default();
    assert!(checked.contains(&"tests/test_wild.py"), "{text}");
}

