//! pyright on a real-sized project (trial 14 on tomlkit 0.13.2, S1/M1): a write re-checks the
//! importers that use a name whose definition the write changed — callers in other files are
//! reported under their names — and names the importers it left unchecked because they use none
//! of those names (a body change under a declared return type changes no name another module
//! sees), for pyright and basedpyright alike; the project check (`"*"`) of a Python project with
//! a vendored Go module whose dependencies are not available locally says which run could not
//! check what and why, keeps the Python run's completeness apart, and `exclude` leaves the Go
//! module out.

use crate::support;

use runbound::{Caller, Run, RunConfig};
use serde_json::{json, Value};

use support::edit_and_first_server_check as edit;

fn names(value: &Value) -> Vec<String> {
    value.as_array().map(|items| items.iter().filter_map(|item| item.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

fn checked_files(server: &Value) -> Vec<String> {
    server["files"]
        .as_array()
        .map(|files| {
            files.iter().filter(|file| file["status"] == "checked").filter_map(|file| file["file"].as_str().map(str::to_owned)).collect()
        })
        .unwrap_or_default()
}

const UTIL: &str =
    "def parse(raw: str) -> int:\n    value = int(raw)\n    return value\n\n\ndef label(n: int) -> str:\n    return str(n)\n";

fn write_checks_the_importers_that_use_a_changed_name(test: &str, binary: &str, server_id: &str, disabled: &[&str]) {
    if support::require_binary(test, binary).is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"names\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/util.py", UTIL),
        ("pkg/calls.py", "from pkg.util import parse\n\nfirst = parse(\"1\")\nsecond = parse(\"2\")\n"),
        ("pkg/labels.py", "from pkg.util import label\n\nname: str = label(3)\n"),
        ("tests/test_util.py", "from pkg import util\n\n\ndef test_parse() -> None:\n    assert util.parse(\"3\") == 3\n"),
    ]);
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = disabled.iter().map(|id| (*id).to_owned()).collect();
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);

    // A comment opens the module in the server (its pre-write state is then known).
    let (text, _) = edit(&run, "pkg/util.py", "def parse(raw: str) -> int:", "# Parses.\ndef parse(raw: str) -> int:");
    assert!(text.contains(&format!("no new errors in pkg/util.py ({server_id})")), "{text}");

    // A required parameter: the callers in two other files break; labels.py uses only `label`.
    let (text, server) = edit(&run, "pkg/util.py", "def parse(raw: str) -> int:", "def parse(raw: str, base: int) -> int:");
    assert_eq!(server["server"], server_id, "{text}");
    let missing = "Argument missing for parameter \"base\"";
    for (file, count) in [("pkg/calls.py", 2), ("tests/test_util.py", 1)] {
        let listed = text.lines().filter(|line| line.trim_start().starts_with(&format!("{file}:")) && line.contains(missing)).count();
        assert_eq!(listed, count, "new errors under {file}:\n{text}");
    }
    assert_eq!(names(&server["not_checked_use_no_changed_name"]), vec!["pkg/labels.py".to_owned()], "{text}");
    assert!(
        text.contains("1 that import it was not checked because it uses none of the names whose definitions this write changed (`parse`)"),
        "{text}"
    );
    assert!(!checked_files(&server).contains(&"pkg/labels.py".to_owned()), "{server}");

    // The revert resolves all three.
    let (text, _) = edit(&run, "pkg/util.py", "def parse(raw: str, base: int) -> int:", "def parse(raw: str) -> int:");
    assert_eq!(text.matches(missing).count(), 3, "the revert lists the three errors as resolved:\n{text}");
    assert!(text.contains("resolved by this write"), "{text}");

    // A body change under a declared return type: no importer can see it, none is re-checked.
    let (text, server) = edit(&run, "pkg/util.py", "    value = int(raw)", "    value = int(raw, 10)");
    assert_eq!(checked_files(&server), vec!["pkg/util.py".to_owned()], "{text}");
    let mut unchecked = names(&server["not_checked_use_no_changed_name"]);
    unchecked.sort();
    assert_eq!(unchecked, ["pkg/calls.py", "pkg/labels.py", "tests/test_util.py"].map(str::to_owned).to_vec(), "{text}");
    assert!(text.contains("this write changed no name another module sees"), "{text}");

    // A changed return type reaches labels.py (it uses `label`), not calls.py.
    let (text, server) =
        edit(&run, "pkg/util.py", "def label(n: int) -> str:\n    return str(n)", "def label(n: int) -> int:\n    return n");
    assert!(
        text.lines().any(|line| line.trim_start().starts_with("pkg/labels.py:3: error[reportAssignmentType]")),
        "the changed return type's error in labels.py is not listed:\n{text}"
    );
    assert!(checked_files(&server).contains(&"pkg/labels.py".to_owned()), "{text}");
    assert!(names(&server["not_checked_use_no_changed_name"]).contains(&"pkg/calls.py".to_owned()), "{text}");
}

#[test]
fn pyright_write_checks_the_importers_that_use_a_changed_name_and_names_the_others() {
    write_checks_the_importers_that_use_a_changed_name(
        "pyright_write_checks_the_importers_that_use_a_changed_name_and_names_the_others",
        "pyright-langserver",
        "pyright",
        &["basedpyright", "pylsp"],
    );
}

#[test]
fn basedpyright_write_checks_the_importers_that_use_a_changed_name_and_names_the_others() {
    write_checks_the_importers_that_use_a_changed_name(
        "basedpyright_write_checks_the_importers_that_use_a_changed_name_and_names_the_others",
        "basedpyright-langserver",
        "basedpyright",
        &["pyright", "pylsp"],
    );
}

#[test]
fn python_project_check_names_a_go_module_whose_dependencies_are_missing_and_exclude_leaves_it_out() {
    let test = "python_project_check_names_a_go_module_whose_dependencies_are_missing_and_exclude_leaves_it_out";
    if support::require_binary(test, "pyright").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    // tomlkit 0.13.2 vendors tests/toml-test (its own go.mod, requiring modules from a proxy
    // this machine cannot reach); `.invalid` never resolves, whatever the network.
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"mixed\"\nversion = \"0.1.0\"\n"),
        ("app.py", "count: int = \"three\"\n"),
        ("helper/go.mod", "module example.com/helper\n\ngo 1.19\n\nrequire example.invalid/missing v1.0.0\n"),
        (
            "helper/go.sum",
            "example.invalid/missing v1.0.0 h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nexample.invalid/missing v1.0.0/go.mod h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
        ),
        ("helper/main.go", "package main\n\nimport \"example.invalid/missing\"\n\nfunc main() {\n\tmissing.Run()\n}\n"),
    ]);
    let run = Run::builder(dir.path()).config(RunConfig::default()).language_servers().build().expect("build run");
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let header = text.lines().next().unwrap_or_default();
    assert!(header.starts_with("project check: 1 error,"), "{text}");
    assert!(header.contains("INCOMPLETE: 1 of 2 checker runs had problems, listed below: the Go module at helper"), "{text}");
    assert!(header.contains("complete: the Python project at ."), "{text}");
    assert!(
        text.contains(
            "the Go module at helper could not be checked: its dependencies are not available locally (example.invalid/missing v1.0.0)"
        ),
        "{text}"
    );
    assert!(text.contains("{\"op\": \"diagnostics\", \"file\": \"*\", \"exclude\": [\"helper\"]}"), "the exact call is not named:\n{text}");
    assert!(
        !text.lines().any(|line| line.starts_with("helper/main.go")),
        "a failed download is listed as a diagnostic of the project:\n{text}"
    );
    assert!(text.contains("app.py:1: error[reportAssignmentType]"), "{text}");
    let structured = result.structured_content.expect("structured content");
    assert_eq!(structured["complete"], false);

    // The call the answer names: the Python run alone, the Go module said to be left out.
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*", "exclude": ["helper"]}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("INCOMPLETE"), "{text}");
    assert!(text.contains("NOT checked (left out by `exclude`): the Go module at helper"), "{text}");
    let structured = result.structured_content.expect("structured content");
    assert_eq!(structured["complete"], true, "{text}");
    assert_eq!(structured["errors"], 1, "{text}");
    assert_eq!(names(&structured["excluded_roots"]), vec!["the Go module at helper".to_owned()]);

    // A folder that is not there is refused, not silently ignored.
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*", "exclude": ["nowhere"]}));
    assert!(result.is_error, "{}", result.joined_text());
    assert!(result.joined_text().contains("\"nowhere\" is not an existing folder of the workspace"), "{}", result.joined_text());
}
