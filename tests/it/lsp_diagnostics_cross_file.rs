//! Diagnostics on write beyond the written file, against real servers (issue 11 §2, §3, §5):
//! a breaking edit's errors in other files are reported under those files' names (TypeScript
//! through tsserver's fileReferences and re-exports, Python through the import scan, Rust through
//! rust-analyzer's cargo check of the workspace, Go through gopls' package diagnostics, C through
//! the #include scan); the fix reports them resolved; a comment-only write says
//! `no new errors in <checked files>` and which files were checked (for the servers checked
//! importer by importer, that no other file needs a re-check); a check without an answer
//! says `diagnostics unavailable` and never "no new errors"; a file changed outside the tools is
//! resynced before an answer about it.

use crate::support;

use std::time::Duration;

use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig};
use serde_json::json;

fn write(run: &Run, path: &str, content: &str) -> String {
    let result = run.call(Caller::Main, "write", json!({"path": path, "content": content}));
    let text = result.joined_text();
    assert!(!result.is_error, "write {path} failed:\n{text}");
    text
}

fn block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

/// One language's project: `target` is the written module; `clean`, `broken` and again `clean`
/// (plus a comment) are written in turn; `dependents` lists (file, error fragment, count) the
/// break must report under each file; `checked_fragment` is what the `checked:` line says.
struct CrossFile {
    test: &'static str,
    binary: &'static str,
    files: Vec<(&'static str, &'static str)>,
    target: &'static str,
    clean: &'static str,
    commented: &'static str,
    broken: &'static str,
    dependents: Vec<(&'static str, &'static str, usize)>,
    checked_fragment: &'static str,
}

fn run_cross_file(case: &CrossFile) {
    if support::require_binary(case.test, case.binary).is_none() {
        return;
    }
    let dir = support::workspace_with(&case.files);
    let run = support::lsp_run_allowing_writes(dir.path());
    // A comment-only write: clean, with the checked set said. Where the servers check importers
    // one by one (tsserver, pyright, clangd), a write whose syntax tree keeps its tokens needs no
    // importer re-checked, and says why.
    let per_file_importers = matches!(case.binary, "typescript-language-server" | "pyright-langserver" | "clangd-19");
    let text = write(&run, case.target, case.commented);
    let dow = block(&text);
    assert!(dow.contains(&format!("no new errors in {}", case.target)), "comment-only write not clean:\n{text}");
    if per_file_importers {
        assert!(
            dow.contains(&format!("checked: {}; other files need no re-check: the write changed only comments or whitespace", case.target)),
            "a comment-only write re-checked the importers:\n{text}"
        );
        assert!(!dow.contains("that import it"), "{text}");
    } else {
        assert!(
            dow.contains(&format!("checked: {} and ", case.target)) && dow.contains(case.checked_fragment),
            "checked set not said:\n{text}"
        );
    }
    assert!(!dow.contains("unavailable") && !dow.contains("new diagnostics introduced"), "{text}");
    // The break: every dependent's errors under its own name, none under the target.
    let text = write(&run, case.target, case.broken);
    let dow = block(&text);
    assert!(
        dow.contains(&format!("checked: {} and ", case.target)) && dow.contains(case.checked_fragment),
        "checked set not said for a write that changes code:\n{text}"
    );
    for (file, fragment, count) in &case.dependents {
        let header = format!("{file}: new diagnostics introduced by this write ({count}, ");
        assert!(dow.contains(&header), "expected {header:?} in:\n{text}");
        let listed = dow.lines().filter(|line| line.starts_with(&format!("  {file}:")) && line.contains(fragment)).count();
        assert_eq!(listed, *count, "expected {count} lines of {file} containing {fragment:?} in:\n{text}");
    }
    assert!(!dow.contains(&format!("{}: new diagnostics", case.target)), "the target itself is fine:\n{text}");
    assert!(!dow.contains("unavailable"), "{text}");
    // The fix: the same errors reported resolved, nothing new.
    let text = write(&run, case.target, case.clean);
    let dow = block(&text);
    for (file, fragment, count) in &case.dependents {
        let header = format!("{file}: resolved by this write ({count}, ");
        assert!(dow.contains(&header), "expected {header:?} in:\n{text}");
        assert!(dow.lines().any(|line| line.starts_with(&format!("  {file}:")) && line.contains(fragment)), "{text}");
    }
    assert!(!dow.contains("new diagnostics introduced") && !dow.contains("unavailable"), "{text}");
    assert!(dow.contains(&format!("no new errors in {}", case.target)), "{text}");
}

#[test]
fn typescript_break_in_importers_is_reported_under_their_names() {
    run_cross_file(&CrossFile {
        test: "typescript_break_in_importers_is_reported_under_their_names",
        binary: "typescript-language-server",
        files: vec![
            ("package.json", "{\"name\": \"cross\", \"version\": \"1.0.0\"}\n"),
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
            ("src/a.ts", "export function scale(x: number): number {\n  return x * 2;\n}\n"),
            ("src/b.ts", "import { scale } from \"./a\";\nexport const one = scale(1);\nexport const two = scale(2);\nexport const three = scale(3);\n"),
            ("src/index.ts", "export * from \"./a\";\n"),
            ("src/c.ts", "import { scale } from \"./index\";\nexport const four = scale(4);\n"),
            ("src/unrelated.ts", "export const z: number = 1;\n"),
        ],
        target: "src/a.ts",
        clean: "export function scale(x: number): number {\n  return x * 2;\n}\n",
        commented: "// Doubles.\nexport function scale(x: number): number {\n  return x * 2;\n}\n",
        broken: "export function scale(x: number, factor: number): number {\n  return x * factor;\n}\n",
        dependents: vec![("src/b.ts", "error[2554] Expected 2 arguments, but got 1.", 3), ("src/c.ts", "error[2554]", 1)],
        checked_fragment: "3 files that import it (tsserver fileReferences",
    });
}

#[test]
fn pyright_break_in_importers_is_reported_under_their_names() {
    run_cross_file(&CrossFile {
        test: "pyright_break_in_importers_is_reported_under_their_names",
        binary: "pyright-langserver",
        files: vec![
            ("pyproject.toml", "[project]\nname = \"cross\"\nversion = \"0.1.0\"\n"),
            ("pkg/__init__.py", "from .a import scale\n"),
            ("pkg/a.py", "def scale(x: int) -> int:\n    return x * 2\n"),
            ("pkg/b.py", "from pkg.a import scale\n\none = scale(1)\ntwo = scale(2)\n"),
            ("app.py", "from pkg import scale\n\nfour = scale(4)\n"),
            ("unrelated.py", "z: int = 1\n"),
        ],
        target: "pkg/a.py",
        clean: "def scale(x: int) -> int:\n    return x * 2\n",
        commented: "# Doubles.\ndef scale(x: int) -> int:\n    return x * 2\n",
        broken: "def scale(x: int, factor: int) -> int:\n    return x * factor\n",
        dependents: vec![
            ("pkg/b.py", "Argument missing for parameter \"factor\"", 2),
            ("app.py", "Argument missing for parameter \"factor\"", 1),
        ],
        checked_fragment: "3 files that import it (a scan of import statements under .; 1 of the 3 found import it only through another module that re-exports it (a package's `__init__.py`, a module importing names from it))",
    });
}

/// pluggy 1.7.0 (trial166 F1): `_callers.py` is a compatibility shim (`from ._execution import
/// _multicall`, `__all__`); `_manager.py` and the tests import `_multicall` from the shim. A
/// required parameter added to `_multicall` broke them, and the write check stopped at the shim:
/// "no errors in the files that were checked". `pkg/names.py` imports the shim but names no name
/// it re-exports: it is not among the 3 found.
#[test]
fn pyright_break_through_a_reexporting_module_is_reported_under_the_importers_names() {
    run_cross_file(&CrossFile {
        test: "pyright_break_through_a_reexporting_module_is_reported_under_the_importers_names",
        binary: "pyright-langserver",
        files: vec![
            ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
            ("pkg/__init__.py", ""),
            ("pkg/impl.py", "def f(a: int) -> int:\n    return a\n"),
            ("pkg/shim.py", "\"\"\"Re-exports for backward compatibility.\"\"\"\n\nfrom .impl import f\n\n__all__ = [\"f\"]\n"),
            ("pkg/manager.py", "from .shim import f\n\n\ndef run() -> int:\n    return f(1) + f(2)\n"),
            ("pkg/names.py", "from . import shim\n\nprint(shim.__all__)\n"),
            ("tests/test_user.py", "from pkg.shim import f\n\n\ndef test_f() -> None:\n    assert f(3) == 3\n"),
        ],
        target: "pkg/impl.py",
        clean: "def f(a: int) -> int:\n    return a\n",
        commented: "# Identity.\ndef f(a: int) -> int:\n    return a\n",
        broken: "def f(a: int, b: int) -> int:\n    return a + b\n",
        dependents: vec![
            ("pkg/manager.py", "Argument missing for parameter \"b\"", 2),
            ("tests/test_user.py", "Argument missing for parameter \"b\"", 1),
        ],
        checked_fragment: "3 files that import it (a scan of import statements under .; 2 of the 3 found import it only through another module that re-exports it",
    });
}

#[test]
fn rust_analyzer_break_in_callers_is_reported_under_their_names() {
    run_cross_file(&CrossFile {
        test: "rust_analyzer_break_in_callers_is_reported_under_their_names",
        binary: "rust-analyzer",
        files: vec![
            ("Cargo.toml", "[package]\nname = \"cross\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
            ("src/lib.rs", "pub mod a;\npub mod b;\n"),
            ("src/a.rs", "pub fn scale(x: i32) -> i32 {\n    x * 2\n}\n"),
            ("src/b.rs", "use crate::a::scale;\n\npub fn one() -> i32 {\n    scale(1)\n}\n\npub fn two() -> i32 {\n    scale(2)\n}\n"),
        ],
        target: "src/a.rs",
        clean: "pub fn scale(x: i32) -> i32 {\n    x * 2\n}\n",
        commented: "// Doubles.\npub fn scale(x: i32) -> i32 {\n    x * 2\n}\n",
        broken: "pub fn scale(x: i32, factor: i32) -> i32 {\n    x * factor\n}\n",
        dependents: vec![("src/b.rs", "error[E0061] this function takes 2 arguments but 1 argument was supplied", 2)],
        checked_fragment: "the whole cargo workspace (rust-analyzer's cargo check",
    });
}

#[test]
fn gopls_break_in_package_and_importers_is_reported_under_their_names() {
    run_cross_file(&CrossFile {
        test: "gopls_break_in_package_and_importers_is_reported_under_their_names",
        binary: "gopls",
        files: vec![
            ("go.mod", "module example.com/cross\n\ngo 1.19\n"),
            ("a.go", "package cross\n\nfunc Scale(x int) int {\n\treturn x * 2\n}\n"),
            ("b.go", "package cross\n\nvar One = Scale(1)\nvar Two = Scale(2)\n"),
            ("sub/c.go", "package sub\n\nimport \"example.com/cross\"\n\nvar Four = cross.Scale(4)\n"),
        ],
        target: "a.go",
        clean: "package cross\n\nfunc Scale(x int) int {\n\treturn x * 2\n}\n",
        commented: "package cross\n\n// Scale doubles.\nfunc Scale(x int) int {\n\treturn x * 2\n}\n",
        broken: "package cross\n\nfunc Scale(x int, factor int) int {\n\treturn x * factor\n}\n",
        dependents: vec![
            ("b.go", "not enough arguments in call to Scale", 2),
            ("sub/c.go", "not enough arguments in call to cross.Scale", 1),
        ],
        checked_fragment: "every package gopls re-checked",
    });
}

#[test]
fn clangd_break_in_includers_is_reported_under_their_names() {
    run_cross_file(&CrossFile {
        test: "clangd_break_in_includers_is_reported_under_their_names",
        binary: "clangd-19",
        files: vec![
            ("compile_flags.txt", "-std=c11\n"),
            ("scale.h", "int scale(int x);\n"),
            ("scale.c", "#include \"scale.h\"\nint scale(int x) { return x * 2; }\n"),
            ("use.c", "#include \"scale.h\"\nint one(void) { return scale(1); }\nint two(void) { return scale(2); }\n"),
        ],
        target: "scale.h",
        clean: "int scale(int x);\n",
        commented: "/* Doubles. */\nint scale(int x);\n",
        broken: "int scale(int x, int factor);\n",
        dependents: vec![("use.c", "Too few arguments to function call, expected 2, have 1", 2)],
        checked_fragment: "2 files that import it (a scan of #include directives",
    });
}

/// An ambient declaration file (no import or export: its declarations are global) has
/// dependents that import nothing, so tsserver's fileReferences finds none. The write must not
/// read as "0 files import it" (observed in the trial: "0 importers" beside files "not
/// checked"): it says the dependents are unknown and names the project check. The project check
/// then finds the break in `src/main.ts`, which uses the renamed global without importing it.
#[test]
fn an_ambient_declaration_file_says_its_dependents_are_unknown() {
    if support::require_binary("an_ambient_declaration_file_says_its_dependents_are_unknown", "typescript-language-server").is_none()
        || support::require_binary("an_ambient_declaration_file_says_its_dependents_are_unknown", "tsc").is_none()
    {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"ambient\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/globals.d.ts", "declare const APP_VERSION: string;\n"),
        ("src/main.ts", "export const banner: string = `v${APP_VERSION}`;\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/main.ts"}));
    let text = write(&run, "src/globals.d.ts", "declare const APP_RELEASE: string;\n");
    let dow = block(&text);
    assert!(!dow.contains("0 files that import it"), "an ambient file's dependents read as none:\n{text}");
    assert!(
        dow.contains("checked: src/globals.d.ts only (src/globals.d.ts has no import or export, so its declarations are global: the files that use them import nothing, and which files depend on it is unknown)"),
        "{text}"
    );
    assert!(dow.contains("{\"op\": \"diagnostics\", \"file\": \"*\"}"), "the next step is the project check:\n{text}");
    let check = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let check_text = check.joined_text();
    assert!(check_text.contains("src/main.ts:1") && check_text.contains("APP_VERSION"), "the project check finds the break:\n{check_text}");
}

#[test]
fn a_check_without_an_answer_says_unavailable_and_never_clean() {
    if support::require_binary("a_check_without_an_answer_says_unavailable_and_never_clean", "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"cross\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/a.ts", "export const a: number = 1;\n"),
        ("src/b.ts", "import { a } from \"./a\";\nexport const b = a;\n"),
    ]);
    // A budget of 1 ms: no request can be answered in time.
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_millis(1);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    // A change of code (a comment alone would need no importer re-checked).
    let text = write(&run, "src/a.ts", "export const a: number = 2;\n");
    let dow = block(&text);
    assert!(dow.contains("src/a.ts: diagnostics unavailable: "), "{text}");
    assert!(dow.contains("(this is not a clean result)"), "{text}");
    assert!(!dow.contains("no new errors"), "a clean claim beside an unavailable answer:\n{text}");
    assert!(dow.contains("were not checked"), "{text}");
}

#[test]
fn a_file_changed_outside_the_tools_is_resynced_before_answers() {
    if support::require_binary("a_file_changed_outside_the_tools_is_resynced_before_answers", "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"cross\"\nversion = \"0.1.0\"\n"),
        ("lib.py", "def scale(x: int) -> int:\n    return x * 2\n"),
        ("use.py", "from lib import scale\n\none = scale(1)\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let diagnostics = |file: &str| {
        let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": file}));
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        text
    };
    assert!(diagnostics("use.py").contains("reports no errors"), "use.py starts clean");
    // A plain file copy breaks use.py's call (like a `git checkout`): the next answer sees it.
    std::fs::write(dir.path().join("lib.py"), "def scale(x: int, factor: int) -> int:\n    return x * factor\n").unwrap();
    let text = diagnostics("use.py");
    assert!(text.contains("Argument missing for parameter \"factor\""), "the change outside the tools was not seen:\n{text}");
    // And back: the error computed before this change is not returned again.
    std::fs::write(dir.path().join("lib.py"), "def scale(x: int) -> int:\n    return x * 2\n").unwrap();
    let text = diagnostics("use.py");
    assert!(text.contains("reports no errors") && !text.contains("factor"), "stale diagnostics returned:\n{text}");
    // A write right after an outside change compares with the changed state: the break done
    // outside the tools is not blamed on the write.
    std::fs::write(dir.path().join("lib.py"), "def scale(x: int, factor: int) -> int:\n    return x * factor\n").unwrap();
    let text = write(&run, "use.py", "from lib import scale\n\none = scale(1)\nprint(one)\n");
    let dow = block(&text);
    assert!(!dow.contains("new diagnostics introduced"), "an outside change blamed on the write:\n{text}");
}

#[test]
fn rust_analyzer_flycheck_errors_from_before_an_outside_change_are_not_returned() {
    if support::require_binary("rust_analyzer_flycheck_errors_from_before_an_outside_change_are_not_returned", "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
        ("src/lib.rs", "pub fn broken() -> i32 {\n    \"text\"\n}\n"),
    ]);
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = Duration::from_secs(60);
    config.lsp.diagnostics_wait = Duration::from_secs(30);
    let run = Run::builder(dir.path()).config(config).language_servers().build().expect("build run");
    let diagnostics = || {
        let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
        result.joined_text()
    };
    // Wait until the compiler's E0308 (flycheck) is there.
    assert!(support::wait_until(Duration::from_secs(120), || diagnostics().contains("E0308")), "{}", diagnostics());
    // A plain copy fixes the file: the E0308 computed from the old text must not come back.
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn broken() -> i32 {\n    1\n}\n").unwrap();
    let text = diagnostics();
    assert!(!text.contains("E0308"), "flycheck's error from before the change was returned:\n{text}");
}

#[test]
fn rust_analyzer_check_that_cannot_run_says_unavailable() {
    if support::require_binary("rust_analyzer_check_that_cannot_run_says_unavailable", "rust-analyzer").is_none() {
        return;
    }
    // cargo check fails before compiling anything (a bench target whose file is missing): it
    // ends without a diagnostic, like a clean check, and must not be reported as one.
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"broken\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[[bench]]\nname = \"gone\"\npath = \"benches/gone.rs\"\n",
        ),
        ("src/lib.rs", "pub fn one() -> i32 {\n    1\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = write(&run, "src/lib.rs", "pub fn one() -> i32 {\n    \"text\"\n}\n");
    let dow = block(&text);
    assert!(dow.contains("src/lib.rs: diagnostics unavailable: rust-analyzer's check did not run: cargo check failed"), "{text}");
    assert!(!dow.contains("no new errors"), "a clean claim beside a check that did not run:\n{text}");
}

#[test]
fn rust_analyzer_write_after_an_outside_change_is_not_blamed_for_it() {
    if support::require_binary("rust_analyzer_write_after_an_outside_change_is_not_blamed_for_it", "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
        ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("src/a.rs", "pub fn scale(x: i32) -> i32 {\n    x * 2\n}\n"),
        ("src/b.rs", "pub fn one() -> i32 {\n    crate::a::scale(1)\n}\n"),
        ("src/c.rs", "pub fn three() -> i32 {\n    3\n}\n"),
    ]);
    // Room for the fresh server's first indexing: until it ends, rust-analyzer withholds its
    // check's results, and a write answered before then is NOT checked (coldrace23).
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = write(&run, "src/c.rs", "// Three.\npub fn three() -> i32 {\n    3\n}\n");
    assert!(block(&text).contains("no new errors in src/c.rs"), "{text}");
    // Outside the tools (a `git checkout`): a.rs changes and breaks b.rs.
    std::fs::write(dir.path().join("src/a.rs"), "pub fn scale(x: i32, factor: i32) -> i32 {\n    x * factor\n}\n").unwrap();
    let text = write(&run, "src/c.rs", "// Three, again.\npub fn three() -> i32 {\n    3\n}\n");
    let dow = block(&text);
    assert!(!dow.contains("src/b.rs: new diagnostics"), "an error made outside the tools blamed on the write:\n{text}");
    assert!(dow.contains("no new errors in src/c.rs"), "{text}");
}

/// A crate whose `scale` (src/a.rs) is called twice from src/b.rs; src/c.rs is independent.
fn scale_crate(name: &str) -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n")),
        ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("src/a.rs", "pub fn scale(x: i32) -> i32 {\n    x * 2\n}\n"),
        ("src/b.rs", "pub fn one() -> i32 {\n    crate::a::scale(1)\n}\n\npub fn two() -> i32 {\n    crate::a::scale(2)\n}\n"),
        ("src/c.rs", "pub fn three() -> i32 {\n    3\n}\n"),
    ])
}

const SCALE_BROKEN: &str = "pub fn scale(x: i32, factor: i32) -> i32 {\n    x * factor\n}\n";

#[test]
fn rust_analyzer_write_after_an_outside_change_reports_what_the_write_breaks() {
    if support::require_binary("rust_analyzer_write_after_an_outside_change_reports_what_the_write_breaks", "rust-analyzer").is_none() {
        return;
    }
    // The trial on heck 0.5.0: `sed -i '1i // outside edit' src/train.rs`, then an edit adding a
    // parameter to `capitalize` was called clean while cargo check showed 4 errors in callers.
    // The check run started for the outside change compiled the written text too, and its
    // result became the "before" state.
    let dir = scale_crate("outside_then_break");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = write(&run, "src/a.rs", "// Doubles.\npub fn scale(x: i32) -> i32 {\n    x * 2\n}\n");
    assert!(block(&text).contains("no new errors in src/a.rs"), "{text}");
    // Outside the tools, like the sed: a comment line on top of c.rs.
    std::fs::write(dir.path().join("src/c.rs"), "// outside edit\npub fn three() -> i32 {\n    3\n}\n").unwrap();
    let text = write(&run, "src/a.rs", SCALE_BROKEN);
    let dow = block(&text);
    assert!(
        dow.contains("src/b.rs: new diagnostics introduced by this write (2, rust-analyzer):"),
        "the write's breakage not reported:\n{text}"
    );
    let listed = dow.lines().filter(|line| line.starts_with("  src/b.rs:") && line.contains("error[E0061]")).count();
    assert_eq!(listed, 2, "{text}");
    assert!(!dow.contains("elsewhere in the checked project"), "a clean claim for the other files beside their new errors:\n{text}");
    assert!(!dow.contains("not known to be new"), "the outside change was checked before the write, so the comparison is sound:\n{text}");
    assert!(!dow.contains("doc-tests"), "the crate has no doc-tests:\n{text}");
    // The fix lands as resolved; the outside change is still no one's error.
    let text = write(&run, "src/a.rs", "pub fn scale(x: i32) -> i32 {\n    x * 2\n}\n");
    let dow = block(&text);
    assert!(dow.contains("src/b.rs: resolved by this write (2, rust-analyzer):"), "{text}");
    assert!(!dow.contains("new diagnostics introduced"), "{text}");
}

#[test]
fn rust_analyzer_check_over_an_outside_change_and_a_write_says_not_known_to_be_new() {
    if support::require_binary("rust_analyzer_check_over_an_outside_change_and_a_write_says_not_known_to_be_new", "rust-analyzer").is_none()
    {
        return;
    }
    // A host tool writes without the seed that lets the outside change's check end first: the
    // one check covers the outside change (an error in c.rs) and the write (errors in b.rs).
    // Neither may be called new (the c.rs error is not the write's), and neither may be hidden.
    let dir = scale_crate("outside_with_write");
    let descriptor = runbound::ToolDescriptor {
        name: "host_writer".to_owned(),
        title: "Host writer".to_owned(),
        description: "Writes src/a.rs with the given content.".to_owned(),
        tier: runbound::Tier::Write,
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(runbound::Tier::Write),
        parallel_safe: true,
        default_timeout: Duration::from_secs(120),
    };
    let handler: runbound::ToolHandler = std::sync::Arc::new(|ctx: &runbound::CallContext<'_>, arguments: serde_json::Value| {
        let root = ctx.workspace_root();
        let content = arguments["content"].as_str().unwrap_or_default().as_bytes().to_vec();
        let change = runbound::files::FileChange {
            path: root.join("src/a.rs"),
            new_content: Some(content),
            expected: runbound::files::ExpectedState::Any,
        };
        let written = runbound::files::commit_file_changes_in(root, &[change])?;
        Ok(runbound::ToolOutput::text("wrote src/a.rs").with_written_paths(written))
    });
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_secs(20);
    let run = Run::builder(dir.path())
        .config(config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .tool(descriptor, handler)
        .language_servers()
        .build()
        .expect("build run");
    let host_write = |content: &str| {
        let result = run.call(Caller::Main, "host_writer", json!({"content": content}));
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        text
    };
    let text = host_write("// Doubles.\npub fn scale(x: i32) -> i32 {\n    x * 2\n}\n");
    assert!(block(&text).contains("no new errors in src/a.rs"), "{text}");
    std::fs::write(dir.path().join("src/c.rs"), "pub fn three() -> i32 {\n    \"three\"\n}\n").unwrap();
    let text = host_write(SCALE_BROKEN);
    let dow = block(&text);
    assert!(!dow.contains("new diagnostics introduced by this write"), "attributed to the write without knowing:\n{text}");
    for (file, code, count) in [("src/b.rs", "error[E0061]", 2), ("src/c.rs", "error[E0308]", 1)] {
        let header = format!("{file}: diagnostics after this write, not known to be new (rust-analyzer's cargo check was running or due when this write reached the disk (for files changed outside the tools: src/c.rs)");
        assert!(dow.contains(&header), "expected {header:?} in:\n{text}");
        let listed = dow.lines().filter(|line| line.starts_with(&format!("  {file}:")) && line.contains(code)).count();
        assert_eq!(listed, count, "{text}");
    }
    assert!(dow.contains("note: what differs from the state before this write is not known to be new: "), "{text}");
    assert!(!dow.contains("elsewhere in the checked project"), "{text}");
}

#[test]
fn rust_analyzer_write_to_a_crate_with_doc_tests_says_they_were_not_checked() {
    if support::require_binary("rust_analyzer_write_to_a_crate_with_doc_tests_says_they_were_not_checked", "rust-analyzer").is_none() {
        return;
    }
    // The trial on heck 0.5.0: `pub struct AsKebabCase<T>(pub T)` → `(T)` breaks the doc-test
    // that builds one (E0423); cargo check, even with all targets, does not compile doc-tests,
    // and the write was called clean with "the whole cargo workspace" checked.
    let documented = "/// Wraps a string.\n///\n/// ```\n/// use doccy::Wrapped;\n/// let w = Wrapped(\"x\");\n/// assert_eq!(w.0, \"x\");\n/// ```\npub struct Wrapped<T>(pub T);\n\n/// ```text\n/// not rust\n/// ```\npub fn plain() {}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"doccy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", documented),
    ]);
    // The write is the run's first call: rust-analyzer loads and runs its first cargo check
    // inside it (under CI load past the default budget; the answer then said "unavailable").
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = write(&run, "src/lib.rs", &documented.replace("pub struct Wrapped<T>(pub T);", "pub struct Wrapped<T>(T);"));
    let dow = block(&text);
    assert!(
        dow.contains("; NOT checked: the doc-tests of crate doccy (about 1 in 1 file, 1 of them in src/lib.rs, by a scan of doc comments — `///`, `//!`, `/** */`, `/*! */` — and of the Markdown files they include (`include_str!`, `doctest!`): docs another macro adds are not counted, those of items behind a `#[cfg]` that is off are (rustdoc skips them) — `cargo test --doc -p doccy -- --list` lists them), which cargo check does not compile: run `cargo test --doc -p doccy` to check them"),
        "the doc-tests the check skips are not said:\n{text}"
    );
    assert!(dow.contains("checked: src/lib.rs and the whole cargo workspace"), "{text}");
    // Ground truth: the write did break the doc-test.
    let output = std::process::Command::new("cargo")
        .args(["test", "--doc", "--quiet"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target-doc"))
        .output()
        .expect("run cargo test --doc");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success() && stdout.contains("E0423"), "cargo test --doc should fail with E0423:\n{stdout}");
}

/// A package shaped like spf13/pflag: `getFlagType` in flag.go, called once from bool.go and
/// int.go and twice (lines 4 and 8) from bytes.go.
fn flag_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/flagset\n\ngo 1.19\n"),
        ("flag.go", FLAG_GO),
        ("bool.go", "package flagset\n\nfunc (f *FlagSet) GetBool(name string) int {\n\treturn f.getFlagType(name, \"bool\")\n}\n"),
        (
            "bytes.go",
            "package flagset\n\nfunc (f *FlagSet) GetBytesHex(name string) int {\n\treturn f.getFlagType(name, \"bytesHex\")\n}\n\nfunc (f *FlagSet) GetBytesBase64(name string) int {\n\treturn f.getFlagType(name, \"bytesBase64\")\n}\n",
        ),
        ("int.go", "package flagset\n\n// -- int Value\nfunc (f *FlagSet) GetInt(name string) int {\n\treturn f.getFlagType(name, \"int\")\n}\n"),
    ])
}

const FLAG_GO: &str = "package flagset\n\n// FlagSet is a set of flags.\ntype FlagSet struct{ n int }\n\nfunc (f *FlagSet) getFlagType(name string, ftype string) int {\n\treturn len(name) + len(ftype) + f.n\n}\n";

fn edit(run: &Run, path: &str, old: &str, new: &str) -> String {
    let result = run.call(Caller::Main, "edit", json!({"path": path, "old_string": old, "new_string": new}));
    let text = result.joined_text();
    assert!(!result.is_error, "edit {path} failed:\n{text}");
    text
}

#[test]
fn gopls_open_file_changed_outside_the_tools_is_resynced_before_answers_and_writes() {
    if support::require_binary("gopls_open_file_changed_outside_the_tools_is_resynced_before_answers_and_writes", "gopls").is_none() {
        return;
    }
    // The trial on spf13/pflag: `sed -i` added a parameter to getFlagType in flag.go (open in
    // gopls); a comment-only edit of int.go was blamed for int.go's broken call, and after
    // `git checkout .` bool.go's stale error came back until flag.go itself was asked about.
    let dir = flag_package();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = edit(&run, "flag.go", "// FlagSet is", "// FlagSet (a comment) is");
    assert!(block(&text).contains("no new errors in flag.go"), "{text}");
    let diagnostics = |file: &str| {
        let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": file}));
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        text
    };
    assert!(diagnostics("bool.go").contains("reports no errors"), "bool.go starts clean");
    // Outside the tools: flag.go (open in gopls) gets a parameter; every call breaks.
    let broken = FLAG_GO.replace("getFlagType(name string, ftype string)", "getFlagType(name string, extra int, ftype string)");
    std::fs::write(dir.path().join("flag.go"), &broken).unwrap();
    let text = edit(&run, "int.go", "// -- int Value", "// -- int Value (probe)");
    let dow = block(&text);
    assert!(!dow.contains("new diagnostics introduced"), "an outside change was blamed on a comment-only write:\n{text}");
    assert!(dow.contains("no new errors in int.go"), "{text}");
    let text = diagnostics("bool.go");
    assert!(text.contains("not enough arguments in call to f.getFlagType"), "the outside change was not seen in bool.go:\n{text}");
    // Back (`git checkout .`): the error computed before it is not returned for bool.go.
    std::fs::write(dir.path().join("flag.go"), FLAG_GO).unwrap();
    let text = diagnostics("bool.go");
    assert!(text.contains("reports no errors") && !text.contains("getFlagType"), "stale diagnostics returned for bool.go:\n{text}");
}

#[test]
fn gopls_resolved_duplicate_is_named_by_the_line_the_write_fixed() {
    if support::require_binary("gopls_resolved_duplicate_is_named_by_the_line_the_write_fixed", "gopls").is_none() {
        return;
    }
    // The trial on spf13/pflag: with the same WrongArgCount at bytes.go 54 and 154, a write fixing
    // the call on line 54 said `resolved by this write: bytes.go:154`.
    let dir = flag_package();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = edit(&run, "flag.go", "// FlagSet is", "// FlagSet (a comment) is");
    assert!(block(&text).contains("no new errors in flag.go"), "{text}");
    let broken = FLAG_GO.replace("getFlagType(name string, ftype string)", "getFlagType(name string, extra int, ftype string)");
    std::fs::write(dir.path().join("flag.go"), &broken).unwrap();
    let text = edit(&run, "bytes.go", "f.getFlagType(name, \"bytesHex\")", "f.getFlagType(name, 0, \"bytesHex\")");
    let dow = block(&text);
    assert!(dow.contains("bytes.go: resolved by this write (1, gopls):\n  bytes.go:4: error[WrongArgCount]"), "{text}");
    assert!(!dow.contains("bytes.go:8:") && !dow.contains("new diagnostics introduced"), "{text}");
}

#[test]
fn rust_analyzer_duplicate_errors_are_named_by_line_through_the_write() {
    if support::require_binary("rust_analyzer_duplicate_errors_are_named_by_line_through_the_write", "rust-analyzer").is_none() {
        return;
    }
    // The trial on textwrap: E0061 at src/wrap.rs 227 and 230; an edit fixing 227 answered
    // `resolved by this write (2, rust-analyzer): src/wrap.rs:230 …` while cargo check still
    // reported 230. Here: the same E0061 on lines 2, 5 and 8 of src/b.rs.
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"dupes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("src/a.rs", SCALE_BROKEN),
        (
            "src/b.rs",
            "pub fn one() -> i32 {\n    crate::a::scale(1)\n}\n\npub fn two() -> i32 {\n    crate::a::scale(2)\n}\n\npub fn three() -> i32 {\n    crate::a::scale(3)\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    // rust-analyzer loaded and its cargo check ended: the three errors are there.
    let diagnostics = || run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/b.rs"})).joined_text();
    assert!(support::wait_until(Duration::from_secs(180), || diagnostics().matches("[E0061]").count() == 3), "{}", diagnostics());
    // The middle call is fixed: line 6 is resolved, 2 and 10 remain.
    let text = edit(&run, "src/b.rs", "crate::a::scale(2)", "crate::a::scale(2, 1)");
    let dow = block(&text);
    let resolved: Vec<&str> = dow.lines().filter(|line| line.starts_with("  src/b.rs:")).collect();
    assert!(!resolved.is_empty() && resolved.iter().all(|line| line.starts_with("  src/b.rs:6:")), "wrong line named resolved:\n{text}");
    assert!(dow.contains("src/b.rs: resolved by this write ("), "{text}");
    assert!(!dow.contains("new diagnostics introduced"), "{text}");
    // A broken call added above the others (lines shift by 4): the added one is new, not the last.
    let text =
        edit(&run, "src/b.rs", "pub fn one() -> i32 {", "pub fn zero() -> i32 {\n    crate::a::scale(0)\n}\n\npub fn one() -> i32 {");
    let dow = block(&text);
    assert!(dow.contains("src/b.rs: new diagnostics introduced by this write ("), "{text}");
    let new: Vec<&str> = dow.lines().filter(|line| line.starts_with("  src/b.rs:")).collect();
    assert!(!new.is_empty() && new.iter().all(|line| line.starts_with("  src/b.rs:2:")), "wrong line named new:\n{text}");
    assert!(!dow.contains("resolved by this write"), "{text}");
}

#[test]
fn every_write_says_how_many_errors_already_present_remain() {
    if support::require_binary("every_write_says_how_many_errors_already_present_remain", "gopls").is_none() {
        return;
    }
    // The trial on textwrap: a comment-only write to a file with 2 errors (from an outside change)
    // said only `no new errors in src/refill.rs`.
    let dir = flag_package();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = edit(&run, "flag.go", "// FlagSet is", "// FlagSet (a comment) is");
    assert!(block(&text).contains("\nno errors in the files that were checked"), "{text}");
    let broken = FLAG_GO.replace("getFlagType(name string, ftype string)", "getFlagType(name string, extra int, ftype string)");
    std::fs::write(dir.path().join("flag.go"), &broken).unwrap();
    // The written file's own error, then the other files of the package gopls checked.
    let text = edit(&run, "int.go", "// -- int Value", "// -- int Value (probe)");
    let dow = block(&text);
    assert!(
        dow.contains("\n4 errors already present before this write remain (not introduced by it): int.go (1), bool.go (1), bytes.go (2)"),
        "{text}"
    );
    assert!(dow.contains("no new errors in int.go"), "{text}");
    // A write that fixes one: 3 remain, 1 resolved.
    let text = edit(&run, "bool.go", "f.getFlagType(name, \"bool\")", "f.getFlagType(name, 0, \"bool\")");
    let dow = block(&text);
    assert!(dow.contains("bool.go: resolved by this write (1, gopls)"), "{text}");
    assert!(dow.contains("\n3 errors already present before this write remain (not introduced by it): bytes.go (2), int.go (1)"), "{text}");
}

/// trial22 M7: a type's edit breaks a file that reaches the type only through other modules
/// (`main.ts` calls `m` of `app.ts`, whose type comes from `maker` of `lib.ts`, which imports
/// `Maker`); the written file, its importers and theirs are checked (as tsc's builder re-checks
/// them, trial50 F1), the file farther away is not, and the headline says its count is the
/// checked files', not the project's (it read "12 new errors in 1 file" while tsc found 20 in 2).
#[test]
fn typescript_headline_of_a_partial_check_carries_its_scope() {
    if support::require_binary("typescript_headline_of_a_partial_check_carries_its_scope", "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"scope\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", "export type Maker = () => number;\n"),
        ("src/lib.ts", "import type { Maker } from \"./types\";\nexport function run(make: Maker): number {\n  return make();\n}\nexport function maker(): Maker {\n  return () => 1;\n}\n"),
        ("src/app.ts", "import { maker } from \"./lib\";\nexport const m = maker();\n"),
        ("src/main.ts", "import { m } from \"./app\";\nexport const k: number = m();\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = write(&run, "src/types.ts", "export type Maker = () => string;\n");
    let dow = block(&text);
    // lib.ts (an importer) breaks and is checked; app.ts (an importer's importer) is checked and
    // does not break; main.ts breaks (`m()` is a string now) but is three imports away, so it is
    // not checked and not listed.
    assert!(dow.contains("src/lib.ts: new diagnostics introduced by this write (2, "), "{text}");
    assert!(dow.contains("src/app.ts") && !dow.contains("src/app.ts:"), "app.ts is checked and clean:\n{text}");
    assert!(!dow.contains("src/main.ts"), "main.ts is not among the checked files:\n{text}");
    let headline = dow.lines().find(|line| line.starts_with("this write introduced")).unwrap_or_else(|| panic!("no headline in:\n{text}"));
    assert!(
        headline.starts_with("this write introduced 2 new errors in 1 file (listed below) — counted in the 3 files checked only, NOT the whole project: files that reach the changed code only through another module (an inferred type, a value built from it) were not checked; for the whole count, call lsp with {\"op\": \"diagnostics\", \"file\": \"*\"} to check the whole project"),
        "{headline}"
    );
    // The whole project's check finds main.ts's error too: the headline's warning was needed.
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let project = result.joined_text();
    assert!(project.contains("src/main.ts:2") && project.contains("src/lib.ts:3"), "{project}");
}
