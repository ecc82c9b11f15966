//! Python servers use the project's interpreter (issue 11 §1), against real pyright,
//! basedpyright and pylsp and a real virtual environment made with `python3 -m venv`.
//!
//! The fixture: a src-layout project (`pyproject.toml`, `src/shop/`, `tests/`) whose `.venv`
//! holds a package, `venvonly_tax`, that the `python3` on `PATH` does not have (written straight
//! into the venv's site-packages), and an editable-install `.pth` pointing at `src/` (what
//! `pip install -e .` writes). `shop/__init__.pyi` is a stub beside the package source, as in
//! attrs: pyright binds `from shop import total_price` in tests/ to the stub, which is what made
//! a rename started at the source definition miss tests/.
//!
//! Checked per server: definition of the venv-only import lands in `.venv`; diagnostics report
//! no unresolved import; `lsp status` names the interpreter and why; references from the source
//! definition include the uses in tests/ and the stub; a rename at the
//! definition changes src/ and tests/ and the project's own tests (`python -m unittest`, with
//! the venv's python) still pass. And the `"*"` checker runs pyright with the same interpreter.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use runbound::{Caller, Run, RunConfig};
use serde_json::{json, Value};

const PRICING: &str = "\
from venvonly_tax import vat_rate


def total_price(net: float, country: str) -> float:
    \"\"\"The gross price of `net` in `country`.\"\"\"
    return round(net * (1 + vat_rate(country)), 2)


def describe(net: float) -> str:
    return f\"{total_price(net, 'fr'):.2f} EUR\"
";

const TESTS: &str = "\
import unittest

from shop import total_price
from shop.pricing import describe


class TotalPriceTest(unittest.TestCase):
    def test_total_price_adds_vat(self) -> None:
        self.assertEqual(total_price(100.0, \"fr\"), 120.0)

    def test_describe_formats(self) -> None:
        self.assertEqual(describe(10.0), \"12.00 EUR\")


if __name__ == \"__main__\":
    unittest.main()
";

/// A project with a real `.venv`; `None` (after a loud skip) when python3 or the server is
/// missing.
struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    site_packages: PathBuf,
}

fn project(test: &str, server_binary: &str) -> Option<Project> {
    support::require_binary(test, server_binary)?;
    let python = support::require_binary(test, "python3")?;
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n"),
        ("src/shop/__init__.py", "from shop.pricing import total_price\n\n__all__ = [\"total_price\"]\n"),
        ("src/shop/__init__.pyi", "def total_price(net: float, country: str) -> float: ...\n"),
        ("src/shop/pricing.py", PRICING),
        ("tests/__init__.py", ""),
        ("tests/test_pricing.py", TESTS),
    ]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let created = std::process::Command::new(&python)
        .args(["-m", "venv", "--without-pip"])
        .arg(root.join(".venv"))
        .status()
        .expect("run python3 -m venv");
    assert!(created.success(), "python3 -m venv failed");
    let lib = root.join(".venv/lib");
    let site_packages = std::fs::read_dir(&lib)
        .unwrap()
        .flatten()
        .map(|entry| entry.path().join("site-packages"))
        .find(|candidate| candidate.is_dir())
        .expect("the venv has lib/python3.X/site-packages");
    std::fs::create_dir_all(site_packages.join("venvonly_tax")).unwrap();
    std::fs::write(
        site_packages.join("venvonly_tax/__init__.py"),
        "RATES = {\"fr\": 0.2, \"de\": 0.19}\n\n\ndef vat_rate(country: str) -> float:\n    return RATES[country]\n",
    )
    .unwrap();
    std::fs::write(site_packages.join("_shop_editable.pth"), format!("{}\n", root.join("src").display())).unwrap();
    // The package must be absent from the interpreter on PATH, or the test proves nothing.
    let on_path = std::process::Command::new(&python).args(["-c", "import venvonly_tax"]).output().unwrap();
    assert!(!on_path.status.success(), "python3 on PATH must not have venvonly_tax");
    Some(Project { dir, root, site_packages })
}

fn run_for(project: &Project) -> Run {
    let mut config = RunConfig::default();
    config.lsp.diagnostics_wait = Duration::from_secs(20);
    config.lsp.write_diagnostics_budget = Duration::from_secs(20);
    support::lsp_run_allowing_writes_with_config(project.dir.path(), config)
}

fn ok(run: &Run, tool: &str, arguments: Value) -> (String, Value) {
    let result = run.call(Caller::Main, tool, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "{tool} {arguments} failed:\n{text}");
    (text, result.structured_content.unwrap_or(Value::Null))
}

/// The project's own tests, run by the venv's python.
fn unittest(project: &Project) -> (bool, String) {
    let output = std::process::Command::new(project.root.join(".venv/bin/python"))
        .args(["-m", "unittest", "discover", "-s", "tests", "-t", "."])
        .current_dir(&project.root)
        .output()
        .expect("run the project's tests");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

fn interpreter_of(run: &Run, server: &str) -> Value {
    let (_, status) = ok(run, "lsp", json!({"op": "status"}));
    let entry = status["servers"].as_array().unwrap().iter().find(|s| s["id"] == server).unwrap().clone();
    entry["roots"][0]["interpreter"].clone()
}

fn read(project: &Project, file: &str) -> String {
    std::fs::read_to_string(project.root.join(file)).unwrap()
}

/// Definition into the venv, no unresolved import, status naming the interpreter, and a rename
/// across src/ and tests/ after which the project's tests pass.
fn project_interpreter_case(test: &str, server: &str, binary: &str) {
    let Some(project) = project(test, binary) else { return };
    let (passing, output) = unittest(&project);
    assert!(passing, "the fixture's own tests fail before any change:\n{output}");
    let run = run_for(&project);

    // Definition of the venv-only import resolves into .venv.
    let (text, _) =
        ok(&run, "lsp", json!({"op": "definition", "file": "src/shop/pricing.py", "line": 1, "symbol": "vat_rate", "server": server}));
    let expected = project.site_packages.join("venvonly_tax/__init__.py");
    let shown = expected.strip_prefix(&project.root).unwrap().display().to_string();
    assert!(text.contains(&shown), "{server}: definition of vat_rate should land in {shown}:\n{text}");

    // No unresolved import in the file that imports the venv-only package, nor in the tests.
    for file in ["src/shop/pricing.py", "tests/test_pricing.py"] {
        let (text, structured) = ok(&run, "lsp", json!({"op": "diagnostics", "file": file, "server": server}));
        let lowered = text.to_lowercase();
        assert!(
            !lowered.contains("could not be resolved") && !lowered.contains("unresolved import") && !lowered.contains("import-error"),
            "{server}: unresolved import in {file}:\n{text}\n{structured}"
        );
    }

    // Status names the interpreter and why.
    let interpreter = interpreter_of(&run, server);
    assert_eq!(interpreter["python"], ".venv/bin/python", "{server}: {interpreter}");
    assert_eq!(interpreter["reason"], "from .venv beside pyproject.toml", "{server}: {interpreter}");
    let (status_text, _) = ok(&run, "lsp", json!({"op": "status"}));
    assert!(status_text.contains("interpreter: .venv/bin/python (from .venv beside pyproject.toml)"), "{status_text}");

    // References from the source definition include the uses in tests/ (bound through the
    // stub `shop/__init__.pyi`, which pyright's own answer from the source skips).
    let (text, _) =
        ok(&run, "lsp", json!({"op": "references", "file": "src/shop/pricing.py", "line": 4, "symbol": "total_price", "server": server}));
    assert!(text.contains("tests/test_pricing.py (2):"), "{server}: references miss the uses in tests/:\n{text}");
    assert!(text.contains("src/shop/__init__.pyi (1):"), "{server}: references miss the stub:\n{text}");

    // Rename at the definition: src/ and tests/ change together, and the tests still pass.
    let (text, structured) = ok(
        &run,
        "lsp_rename",
        json!({"file": "src/shop/pricing.py", "line": 4, "symbol": "total_price", "new_name": "gross_price", "server": server}),
    );
    let tests_after = read(&project, "tests/test_pricing.py");
    assert!(
        tests_after.contains("from shop import gross_price") && tests_after.contains("gross_price(100.0"),
        "{server}: the tests still use the old name after the rename:\n{text}\n--- tests/test_pricing.py\n{tests_after}"
    );
    assert!(read(&project, "src/shop/pricing.py").contains("def gross_price("), "{text}");
    assert!(read(&project, "src/shop/__init__.py").contains("from shop.pricing import gross_price"), "{text}");
    assert!(text.contains("grep -w check:"), "{text}");
    let coverage = &structured["coverage"];
    assert_eq!(coverage["checked"], true, "{structured}");
    assert_eq!(coverage["not_checked"], json!([]), "{text}");
    let mut leftover = Vec::new();
    for path in ["src", "tests"] {
        for entry in walk(&project.root.join(path)) {
            let content = std::fs::read_to_string(&entry).unwrap();
            if content.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == "total_price") {
                leftover.push(entry.display().to_string());
            }
        }
    }
    assert!(leftover.is_empty(), "{server}: `total_price` survives the rename in {leftover:?}:\n{text}");
    let (passing, output) = unittest(&project);
    assert!(passing, "{server}: the project's tests fail after the rename:\n{output}\n--- rename result\n{text}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|ext| ext == "py" || ext == "pyi") {
            files.push(path);
        }
    }
    files
}

#[test]
fn pyright_uses_the_project_venv() {
    project_interpreter_case("lsp_python_env::pyright_uses_the_project_venv", "pyright", "pyright-langserver");
}

#[test]
fn basedpyright_uses_the_project_venv() {
    project_interpreter_case("lsp_python_env::basedpyright_uses_the_project_venv", "basedpyright", "basedpyright-langserver");
}

#[test]
fn pylsp_uses_the_project_venv() {
    project_interpreter_case("lsp_python_env::pylsp_uses_the_project_venv", "pylsp", "pylsp");
}

/// The `"*"` checker gives pyright the same interpreter: no unresolved import of the venv-only
/// package, and the answer names the interpreter.
#[test]
fn project_checker_uses_the_project_venv() {
    let Some(project) = project("lsp_python_env::project_checker_uses_the_project_venv", "pyright") else { return };
    let run = run_for(&project);
    let (text, structured) = ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("--pythonpath") && text.contains("interpreter: .venv/bin/python (from .venv beside pyproject.toml)"), "{text}");
    assert!(!text.contains("could not be resolved"), "{text}");
    assert_eq!(structured["complete"], true, "{text}");
}

/// A venv that appears (or a package installed into it) after the server started is picked up:
/// the next call restarts the server against it and says so.
#[test]
fn a_venv_created_after_the_start_restarts_pyright_against_it() {
    let test = "lsp_python_env::a_venv_created_after_the_start_restarts_pyright_against_it";
    let Some(project) = project(test, "pyright-langserver") else { return };
    let hidden = project.root.join("hidden-venv");
    std::fs::rename(project.root.join(".venv"), &hidden).unwrap();
    let run = run_for(&project);
    let (text, _) = ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/shop/pricing.py", "server": "pyright"}));
    assert!(text.contains("venvonly_tax") && text.contains("could not be resolved"), "without the venv the import is unresolved:\n{text}");
    let interpreter = interpreter_of(&run, "pyright");
    assert_ne!(interpreter["reason"], "from .venv beside pyproject.toml", "{interpreter}");
    std::fs::rename(&hidden, project.root.join(".venv")).unwrap();
    std::thread::sleep(Duration::from_millis(3100));
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/shop/pricing.py", "server": "pyright"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("restarted") && text.contains("interpreter changed"), "the restart is said:\n{text}");
    assert!(!text.contains("could not be resolved"), "after the restart the import resolves:\n{text}");
    assert_eq!(interpreter_of(&run, "pyright")["reason"], "from .venv beside pyproject.toml");
}
