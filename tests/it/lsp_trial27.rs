//! Wrong answers from the fresh-user trial 27 (voluptuous 0.16.0, chevrotain 11.2.0), against
//! the real pyright and typescript-language-server on fixtures of the same shape:
//! - F2: renaming a class that the package re-exports with `from pkg.validators import *` (no
//!   `__all__`) said `public_name_changes: []` while `pkg.Clamp` disappeared;
//! - F3: removing a star import from the package's `__init__.py`, or adding `__all__` to a
//!   star-imported module, "changed no name another module sees": the test module that now
//!   fails to import was not checked;
//! - F4: a TypeScript rename silently rewrote a `.d.ts` under `node_modules` (the interface a
//!   project class implements), which `npm ci` reverts.
//!
//! Ground truth: the Python interpreter (what `import pkg` exposes), the pyright CLI and `tsc`.

use crate::support;

use runbound::{Caller, RunConfig};
use serde_json::json;
use std::path::Path;
use std::process::Command;

use support::edit_and_first_server_check as edit;

/// `python3 -c code` in `dir`: its stdout, trimmed (the call must succeed).
fn python(dir: &Path, code: &str) -> String {
    let output = Command::new("python3").arg("-c").arg(code).current_dir(dir).output().expect("run python3");
    assert!(output.status.success(), "python3 -c {code:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

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

/// voluptuous's shape: the package's `__init__.py` star-imports its modules, which have no
/// `__all__`, and the tests import everything from the package.
fn star_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"vol\"\nversion = \"0.1.0\"\n"),
        ("vol/__init__.py", "\"\"\"Schema validation.\"\"\"\n\nfrom vol.validators import *\nfrom vol.util import *\n\n__version__ = \"0.1.0\"\n"),
        (
            "vol/validators.py",
            "import typing\n\n\nclass Clamp(object):\n    def __init__(self, low: int) -> None:\n        self.low = low\n\n    def __call__(self, v: int) -> int:\n        return max(self.low, v)\n\n\ndef _check(v: typing.Any) -> bool:\n    return v is not None\n",
        ),
        (
            "vol/util.py",
            "from vol.validators import Clamp  # noqa: F401\n\n\ndef Lower(v: str) -> str:\n    return v.lower()\n\n\nclass Literal(object):\n    def __init__(self, lit: str) -> None:\n        self.lit = lit\n",
        ),
        ("tests/test_vol.py", "from vol import Clamp, Literal, Lower\n\n\ndef test_all() -> None:\n    assert Clamp(1)(0) == 1\n    assert Lower(\"A\") == \"a\"\n    assert Literal(\"x\").lit == \"x\"\n"),
    ])
}

fn pyright_only_run(workspace: &Path) -> runbound::Run {
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    support::lsp_run_allowing_writes_with_config(workspace, config)
}

/// F2: renaming `Clamp`, defined in a module without `__all__` that the package star-imports,
/// says that `vol.Clamp` changes (text and `public_name_changes`); the interpreter confirms the
/// old package-level name is gone after the rename.
#[test]
fn renaming_a_name_the_package_star_imports_says_its_public_name_changes() {
    let test = "renaming_a_name_the_package_star_imports_says_its_public_name_changes";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = star_package();
    assert_eq!(python(dir.path(), "import vol; print(hasattr(vol, 'Clamp'))"), "True", "the fixture publishes vol.Clamp");
    let run = pyright_only_run(dir.path());
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "vol/validators.py", "line": 4, "symbol": "Clamp", "new_name": "ClampRange"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let said = "note: public name changed: vol/validators.py:4 defines `Clamp` at module level and has no `__all__`, so `from vol.validators import *` in the package's `__init__.py` publishes it: this rename replaces the package-level `vol.Clamp`";
    assert!(text.contains(said), "{text}");
    let structured = result.structured_content.clone().expect("structured content");
    let notes = structured["public_name_changes"].as_array().cloned().unwrap_or_default();
    assert_eq!(notes.len(), 1, "{structured}");
    assert!(notes[0].as_str().unwrap_or("").contains("`vol.Clamp`"), "{structured}");
    // Ground truth: the package no longer has the old name, and has the new one.
    assert_eq!(python(dir.path(), "import vol; print(hasattr(vol, 'Clamp'), hasattr(vol, 'ClampRange'))"), "False True", "{text}");

    // `_check` is private: `*` does not carry it, no note.
    let private =
        run.call(Caller::Main, "lsp_rename", json!({"file": "vol/validators.py", "line": 12, "symbol": "_check", "new_name": "_checked"}));
    let text = private.joined_text();
    assert!(!private.is_error, "{text}");
    assert!(!text.contains("public name changed"), "{text}");
    assert_eq!(private.structured_content.unwrap()["public_name_changes"], json!([]));
}

/// F3: removing `from vol.util import *` from the package's `__init__.py`, and adding `__all__`
/// to `vol/util.py`, each break `from vol import Literal` in the tests (pyright CLI: `"Literal"
/// is unknown import symbol`): the write checks the test module and lists that error instead of
/// calling the write one that "changed no name another module sees".
#[test]
fn removing_a_star_import_or_adding_all_checks_the_modules_that_import_through_it() {
    let test = "removing_a_star_import_or_adding_all_checks_the_modules_that_import_through_it";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "pyright").is_none() {
        return;
    }
    let dir = star_package();
    let baseline = pyright_errors(dir.path(), "tests/test_vol.py");
    assert!(baseline.is_empty(), "the fixture's tests type-check: {baseline:?}");
    let run = pyright_only_run(dir.path());
    let unknown = "\"Literal\" is unknown import symbol";

    // A comment opens `__init__.py` in the server (its pre-write state is then known).
    let (text, _) = edit(&run, "vol/__init__.py", "__version__", "# The version.\n__version__");
    assert!(text.contains("no new errors in vol/__init__.py (pyright)"), "{text}");
    let (text, server) = edit(&run, "vol/__init__.py", "from vol.util import *\n", "");
    let truth = pyright_errors(dir.path(), "tests/test_vol.py");
    assert!(truth.iter().any(|error| error.contains(unknown)), "pyright CLI: {truth:?}");
    assert!(!text.contains("changed no name another module sees"), "{text}");
    assert!(text.contains("tests/test_vol.py:1:") && text.contains(unknown), "the broken import is not listed:\n{text}");
    let checked: Vec<&str> = server["files"]
        .as_array()
        .map(|files| files.iter().filter(|file| file["status"] == "checked").filter_map(|file| file["file"].as_str()).collect())
        .unwrap_or_default();
    assert!(checked.contains(&"tests/test_vol.py"), "{text}");
    let (text, _) =
        edit(&run, "vol/__init__.py", "from vol.validators import *\n", "from vol.validators import *\nfrom vol.util import *\n");
    assert!(!text.contains("changed no name another module sees"), "{text}");
    assert!(text.contains(unknown), "putting the line back does not say the error is resolved:\n{text}");
    assert!(pyright_errors(dir.path(), "tests/test_vol.py").is_empty());

    // `__all__` in the star-imported module: `Literal` is no longer exported.
    let (text, _) = edit(&run, "vol/util.py", "def Lower(", "# Lower-cases.\ndef Lower(");
    assert!(text.contains("no new errors in"), "{text}");
    let anchor = "from vol.validators import Clamp  # noqa: F401\n";
    let (text, _) = edit(&run, "vol/util.py", anchor, &format!("{anchor}\n__all__ = [\"Lower\"]\n"));
    let truth = pyright_errors(dir.path(), "tests/test_vol.py");
    assert!(truth.iter().any(|error| error.contains(unknown)), "pyright CLI: {truth:?}");
    assert!(!text.contains("they use none of the names whose definitions this write changed (`__all__`)"), "{text}");
    assert!(text.contains("tests/test_vol.py:1:") && text.contains(unknown), "the broken import is not listed:\n{text}");
}

/// F4: a method declared by an interface in an installed package (`node_modules/@demo/types`),
/// implemented by a project class and called through the interface type (chevrotain 11.2.0's
/// `ILookaheadStrategy`): typescript-language-server's rename edits the package's `.d.ts` too. The rename is refused whole, naming that file; nothing is written, and `tsc`
/// still compiles the project.
#[test]
fn a_typescript_rename_that_edits_node_modules_is_refused_and_names_the_file() {
    let test = "a_typescript_rename_that_edits_node_modules_is_refused_and_names_the_file";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let declaration = "export interface LookaheadStrategy {\n    buildLookaheadForAlternation(alternatives: number): number;\n}\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"demo\", \"version\": \"1.0.0\", \"dependencies\": {\"@demo/types\": \"1.0.0\"}}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"commonjs\", \"target\": \"es2020\"}, \"include\": [\"src/**/*.ts\"]}\n"),
        ("node_modules/@demo/types/package.json", "{\"name\": \"@demo/types\", \"version\": \"1.0.0\", \"types\": \"api.d.ts\"}\n"),
        ("node_modules/@demo/types/api.d.ts", declaration),
        (
            "src/lookahead.ts",
            "import type { LookaheadStrategy } from \"@demo/types\";\n\nexport class LLkLookahead implements LookaheadStrategy {\n    buildLookaheadForAlternation(alternatives: number): number {\n        return alternatives + 1;\n    }\n\n    own(): number {\n        return 2;\n    }\n}\n",
        ),
        (
            "src/use.ts",
            "import type { LookaheadStrategy } from \"@demo/types\";\nimport { LLkLookahead } from \"./lookahead\";\n\nexport function run(): number {\n    const strategy: LookaheadStrategy = new LLkLookahead();\n    return strategy.buildLookaheadForAlternation(1) + new LLkLookahead().own();\n}\n",
        ),
    ]);
    let tsc = |what: &str| {
        let output = Command::new("tsc").args(["--noEmit", "-p", "."]).current_dir(dir.path()).output().expect("run tsc");
        assert!(output.status.success(), "tsc {what}: {}", String::from_utf8_lossy(&output.stdout));
    };
    tsc("before the rename");
    let sources =
        ["src/lookahead.ts", "src/use.ts", "node_modules/@demo/types/api.d.ts"].map(|file| support::corpus::read(dir.path(), file));
    let run = support::lsp_run_allowing_writes(dir.path());
    // The call through the interface type leads to the package's declaration once the server
    // has loaded the project (a few tries: its first answers may come before that).
    let mut definition = String::new();
    for _ in 0..5 {
        let arguments = json!({"op": "definition", "file": "src/use.ts", "line": 6, "symbol": "buildLookaheadForAlternation"});
        definition = run.call(Caller::Main, "lsp", arguments).joined_text();
        if definition.contains("api.d.ts") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    assert!(definition.contains("node_modules/@demo/types/api.d.ts"), "the call does not lead to the package's interface:\n{definition}");
    for preview in [true, false] {
        let arguments = json!({"file": "src/lookahead.ts", "line": 4, "symbol": "buildLookaheadForAlternation", "new_name": "buildAltLookahead", "preview": preview});
        let result = run.call(Caller::Main, "lsp_rename", arguments);
        let text = result.joined_text();
        assert!(result.is_error, "the rename into node_modules was not refused (preview {preview}):\n{text}");
        assert!(text.contains("node_modules/@demo/types/api.d.ts (1 edit, node_modules)"), "{text}");
        assert!(text.contains("it also changes 2 files of the project; nothing was changed"), "{text}");
        assert!(text.contains("keep the name"), "no next step:\n{text}");
    }
    let after = ["src/lookahead.ts", "src/use.ts", "node_modules/@demo/types/api.d.ts"].map(|file| support::corpus::read(dir.path(), file));
    assert_eq!(after, sources, "a refused rename changed a file");
    tsc("after the refused rename");

    // A method only the project declares renames as before.
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "src/lookahead.ts", "line": 8, "symbol": "own", "new_name": "ownValue"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(support::corpus::read(dir.path(), "src/use.ts").contains(".ownValue()"), "{text}");
    assert_eq!(support::corpus::read(dir.path(), "node_modules/@demo/types/api.d.ts"), declaration);
    tsc("after renaming a project-only method");
}
