//! Wrong answers from the fresh-user trial 158 (click 8.1.7, Python 3.11), against the real
//! pyright and CPython, on fixtures of the same shape:
//! - F1: an `ast_edit` rewrite that put `"r"` inside f-strings that use `"` read "no new parse
//!   errors" (tree-sitter's grammar accepts 3.12's PEP 701 f-strings); the project's Python 3.11
//!   could not import the package.
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
