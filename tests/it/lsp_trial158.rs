//! Wrong answers from the fresh-user trial 158 (click 8.1.7, Python 3.11), against the real
//! pyright and CPython, on fixtures of the same shape:
//! - F1: an `ast_edit` rewrite that put `"r"` inside f-strings that use `"` read "no new parse
//!   errors" (tree-sitter's grammar accepts 3.12's PEP 701 f-strings); the project's Python 3.11
//!   could not import the package.
//! - F2/M1: a write spanning two nested pyright roots (`.` and `examples/complex/`, each with a
//!   `setup.py`) filed its real new errors as "NOT known to be new" among the old ones.
//! - M4: renaming the override `Group.get_command` → `lookup_command` after its base had been
//!   renamed so (in another process) said "already a member of MultiCommand … choose another
//!   name", though it restores the override.
//! - M2: `lsp references` at a base method (`MultiCommand.get_command`) listed its references and
//!   said nothing of the 6 members overriding it.
//!
//! Ground truth: the project's interpreter (`compile()`), pyright's CLI.

use crate::support;

use serde_json::json;

/// The `python3` on PATH as `(major, minor)`.
fn python3_version(dir: &std::path::Path) -> (u32, u32) {
    let printed = support::python_prints(dir, "import sys; print(sys.version_info[0], sys.version_info[1])");
    let mut parts = printed.split_whitespace().map(|part| part.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// Whether `python` compiles `file` (relative to `dir`).
fn compiles(dir: &std::path::Path, python: &str, file: &str) -> bool {
    std::process::Command::new(python)
        .args(["-c", "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')", file])
        .current_dir(dir)
        .output()
        .expect("run python")
        .status
        .success()
}

const MODULE: &str =
    "def g(x, k=\"w\"):\n    return x + k\n\n\ndef show(x):\n    return f\"<{g(x)}>\"\n\n\ndef plain(x):\n    return g(x)\n";

/// F1: a Python rewrite the project's interpreter (a 3.11 `.venv`) cannot compile — a `"` inside
/// an f-string that uses `"` — is refused like a parse error, naming the interpreter, file and
/// line; with `allow_parse_errors` it is staged with a WARNING; a rewrite it compiles says which
/// interpreter checked it.
#[test]
fn a_rewrite_the_projects_python_cannot_compile_is_refused_naming_the_interpreter() {
    let test = "lsp_trial158::a_rewrite_the_projects_python_cannot_compile_is_refused_naming_the_interpreter";
    if support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/m.py", MODULE),
    ]);
    let venv =
        std::process::Command::new("python3").args(["-m", "venv", "--without-pip", ".venv"]).current_dir(dir.path()).output().unwrap();
    assert!(venv.status.success(), "{}", String::from_utf8_lossy(&venv.stderr));
    let (major, minor) = python3_version(dir.path());
    let run = runbound::Run::builder(dir.path())
        .with_structural()
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .build()
        .expect("build run");
    let version = format!("Python {major}.{minor}.");
    // A rewrite every Python compiles: the check names the interpreter and finds nothing.
    let text =
        support::call_ok(&run, "ast_edit", json!({"pattern": "g($A)", "rewrite": "g($A, k='v')", "language": "python", "path": "pkg"}));
    assert!(text.contains("every rewritten file was parsed again: no new parse errors (tree-sitter); the project's Python compiled every rewritten file it was given — "), "{text}");
    assert!(text.contains(&version) && text.contains(".venv/bin/python") && text.contains("(1 file): no new syntax errors"), "{text}");
    if (major, minor) >= (3, 12) {
        eprintln!("{test}: python3 is {major}.{minor}, which accepts PEP 701 f-strings; the refusal is not exercised");
        return;
    }
    // The rewrite of the finding: `"v"` inside `f"…"`.
    let refused = run.call(
        runbound::Caller::Main,
        "ast_edit",
        json!({"pattern": "g($A)", "rewrite": "g($A, k=\"v\")", "language": "python", "path": "pkg"}),
    );
    let text = refused.joined_text();
    assert!(refused.is_error, "{text}");
    assert!(text.contains("the rewrite would break the syntax of 1 file (pkg/m.py) for the project's Python: Python 3.11."), "{text}");
    assert!(text.contains(".venv/bin/python") && text.contains("pkg/m.py:6: f-string"), "{text}");
    assert!(text.contains("nothing was staged"), "{text}");
    assert!(text.contains("allow_parse_errors: true"), "{text}");
    // Staged anyway on request, with the WARNING.
    let staged = support::call_ok(
        &run,
        "ast_edit",
        json!({"pattern": "g($A)", "rewrite": "g($A, k=\"v\")", "language": "python", "path": "pkg", "allow_parse_errors": true}),
    );
    assert!(
        staged.contains(
            "WARNING: allow_parse_errors: the project's Python cannot compile 1 file (pkg/m.py) after this rewrite — Python 3.11."
        ),
        "{staged}"
    );
    assert!(staged.contains("1 new syntax error in 1 file (see above)"), "{staged}");
    // Ground truth: the staged text, written, is what the interpreter rejects.
    let edit_id = staged.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap().to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!compiles(dir.path(), ".venv/bin/python", "pkg/m.py"), "{}", std::fs::read_to_string(dir.path().join("pkg/m.py")).unwrap());
}

/// The pyright CLI's errors in `dir` (the whole workspace), as `file:line: message` (ground
/// truth of F2).
fn pyright_cli_errors(dir: &std::path::Path) -> Vec<String> {
    let output = std::process::Command::new("pyright").arg("--outputjson").current_dir(dir).output().expect("run pyright");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("pyright --outputjson prints JSON");
    let root = std::fs::canonicalize(dir).unwrap();
    let mut errors: Vec<String> = report["generalDiagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .map(|diagnostic| {
            let file = std::path::Path::new(diagnostic["file"].as_str().unwrap_or(""));
            let file = file.strip_prefix(&root).unwrap_or(file).display().to_string();
            format!("{file}:{}", diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1)
        })
        .collect();
    errors.sort();
    errors
}

const OUTER_A: &str =
    "def total(x: int) -> int:\n    return x + 1\n\n\ndef twice(x: int) -> int:\n    return total(x) * 2\n\n\nOLD: int = \"old\"\n";

const INNER_B: &str = "from pkg.a import total\n\nWRONG: str = 1\n\n\ndef use() -> int:\n    return total(2)\n";

/// F2/M1: a write spanning two pyright roots, one nested in the other (`.` and `sub/`, each
/// with its own `setup.py`; the outer covers the inner's files, the inner imports the outer's
/// package), says exactly the write's new errors as new, not "NOT known to be new … the state
/// before the write is unknown" among the old ones.
#[test]
fn a_write_across_nested_python_roots_says_exactly_its_new_errors() {
    let test = "lsp_trial158::a_write_across_nested_python_roots_says_exactly_its_new_errors";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "pyright").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("setup.py", "from setuptools import setup\n\nsetup(name=\"pkg\")\n"),
        ("pkg/__init__.py", ""),
        ("pkg/a.py", OUTER_A),
        ("sub/setup.py", "from setuptools import setup\n\nsetup(name=\"sub\")\n"),
        ("sub/pyrightconfig.json", "{\"extraPaths\": [\"..\"]}\n"),
        ("sub/b.py", INNER_B),
    ]);
    let before = pyright_cli_errors(dir.path());
    assert_eq!(before, vec!["pkg/a.py:9".to_owned(), "sub/b.py:3".to_owned()]);
    let run = runbound::Run::builder(dir.path())
        .config({
            let mut config = runbound::RunConfig::default();
            config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(40);
            config
        })
        .with_structural()
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .build()
        .expect("build run");
    for file in ["pkg/a.py", "sub/b.py"] {
        support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": file}));
    }
    let staged = support::call_ok(&run, "ast_edit", json!({"pattern": "total($A)", "rewrite": "total(str($A))", "language": "python"}));
    assert!(staged.contains("2 replacements in 2 files"), "{staged}");
    let edit_id = staged.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap().to_owned();
    let started = std::time::Instant::now();
    let text = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    eprintln!("{test}: accept took {:.1} s", started.elapsed().as_secs_f64());
    // Ground truth: the pyright CLI finds exactly two new errors.
    let after = pyright_cli_errors(dir.path());
    let new: Vec<&String> = after.iter().filter(|error| !before.contains(error)).collect();
    assert_eq!(new, vec!["pkg/a.py:6", "sub/b.py:7"], "{after:?}");
    assert!(!text.contains("NOT known to be new"), "{text}");
    assert!(!text.contains("half-applied"), "{text}");
    assert!(text.contains("pkg/a.py:6") && text.contains("sub/b.py:7"), "{text}");
    let block = text.split("this write introduced").nth(1).unwrap_or_else(|| panic!("no new errors said:\n{text}"));
    assert!(!block.contains("pkg/a.py:9: error") && !block.contains("sub/b.py:3: error"), "old errors listed among the new:\n{text}");
    eprintln!("{text}");
}

const RESTORED_BASE: &str = "class Multi:\n    def lookup_command(self, ctx, cmd_name):\n        return None\n\n    def resolve(self, ctx, name):\n        return self.lookup_command(ctx, name)\n\n\nclass Group(Multi):\n    def get_command(self, ctx, cmd_name):\n        return cmd_name\n";

const ACCIDENTAL_BASE: &str = "class Multi:\n    def lookup_command(self, ctx, cmd_name):\n        return None\n\n    def get_command(self, ctx, cmd_name):\n        return None\n\n    def resolve(self, ctx, name):\n        return self.lookup_command(ctx, name)\n\n\nclass Group(Multi):\n    def get_command(self, ctx, cmd_name):\n        return cmd_name\n";

/// M4: with the base method already renamed (`Multi.get_command` → `lookup_command`, in an
/// earlier process: no memory of this run), renaming the override `Group.get_command` to the
/// same name — which overrides nothing under its old name any more, and matches the base's
/// parameters — says it makes the override again, not "choose another name"; a name a base still
/// declaring the old one has too (an accidental override) keeps the WARNING.
#[test]
fn renaming_an_override_to_its_renamed_bases_name_says_it_restores_the_override() {
    let test = "lsp_trial158::renaming_an_override_to_its_renamed_bases_name_says_it_restores_the_override";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/base.py", RESTORED_BASE),
        ("pkg/other.py", ACCIDENTAL_BASE),
    ]);
    let resolve =
        |module: &str| support::python_prints(dir.path(), &format!("from pkg.{module} import Group\nprint(Group().resolve(None, 'x'))"));
    assert_eq!(resolve("base"), "None", "the override was lost with the base's rename");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/base.py", "line": 10, "symbol": "get_command", "new_name": "lookup_command"}),
    );
    assert!(!text.contains("WARNING: `lookup_command` is already a member"), "{text}");
    assert!(!text.starts_with("NOT written"), "{text}");
    assert!(
        text.contains("note: `lookup_command` is already a member of `Multi` (pkg/base.py:2), a base class of `Group`, with the same parameters, and no base class of `Group` declares `get_command`: this rename makes `Group.lookup_command` override `Multi.lookup_command` again"),
        "{text}"
    );
    assert_eq!(resolve("base"), "x", "ground truth: the override is back:\n{text}");
    // A base that still declares the old name: the override of `get_command` is kept by the
    // base, and taking `lookup_command` too is an accidental override.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/other.py", "line": 13, "symbol": "get_command", "new_name": "lookup_command", "preview": true}),
    );
    assert!(text.contains("WARNING: `lookup_command` is already a member of `Multi` (pkg/other.py:2), a base class of `Group`"), "{text}");
    assert!(text.contains("choose another name"), "{text}");
}

const HIERARCHY: &str = "class Base:\n    def get(self, key):\n        return None\n\n    def run(self, key):\n        return self.get(key)\n\n\nclass Mid(Base):\n    def get(self, key):\n        return key\n\n\nclass Leaf(Mid):\n    def get(self, key):\n        return super().get(key) * 2\n";

const SUBCLASS_ELSEWHERE: &str = "from pkg.base import Base\n\n\nclass Other(Base):\n    def get(self, key):\n        return 'other'\n\n\nclass Plain(Base):\n    pass\n";

/// M2: `lsp references` at a base method names the members of subclasses that override it (in
/// the same file and in another, through an intermediate class), which its list does not hold.
#[test]
fn references_at_a_base_method_name_the_members_overriding_it() {
    let test = "lsp_trial158::references_at_a_base_method_name_the_members_overriding_it";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/base.py", HIERARCHY),
        ("pkg/other.py", SUBCLASS_ELSEWHERE),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "pkg/base.py", "line": 2, "symbol": "get"}));
    assert!(
        text.contains("note: NOT in this list: 3 members in subclasses override `get` — `Mid.get` (pkg/base.py:10), `Leaf.get` (pkg/base.py:15), `Other.get` (pkg/other.py:5);"),
        "{text}"
    );
    // Ground truth (the source): each of them is a `def get` in a subclass of `Base`.
    for (file, line) in [("pkg/base.py", 10), ("pkg/base.py", 15), ("pkg/other.py", 5)] {
        let source = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert_eq!(source.lines().nth(line - 1).map(str::trim), Some("def get(self, key):"), "{file}:{line}");
    }
    // At a member nothing overrides: no such note.
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "pkg/base.py", "line": 5, "symbol": "run"}));
    assert!(!text.contains("NOT in this list"), "{text}");
}
