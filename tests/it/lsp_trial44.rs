//! Wrong answers from the fresh-user trial 44 (more-itertools 10.5.0, google/uuid 1.3.0),
//! against the real servers on fixtures of the same shape:
//! - F1: `more.py`'s `from .recipes import (_zip_equal, …)` — a name `recipes.pyi` does not
//!   declare, so pyright resolves the import to nothing — was left by the rename of
//!   `recipes._zip_equal`, and `import more_itertools` raised `ImportError`.
//! - F4: `recipes.py` binds `_zip_strict` at module level inside `try`/`except`/`else`; a `def`
//!   renamed to `_zip_strict` replaced it, and the taken-name check said "no other definition".
//!
//! - M2: `references` of `take` counted its six `>>> take(…)` doctest calls as "comments or
//!   strings … not references".
//! - M11: `incoming_calls` of `take` (stubbed by `recipes.pyi`) did not name more.py's
//!   `partial(take, n, …)`: pyright's references from the definition miss the importing
//!   module's uses, and the doctest calls were not named either.
//!
//! Ground truth: the interpreter (importing the package, running the function) and grep.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// A package whose stub does not declare a name another module imports from the stubbed one.
fn stubbed_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", "from .more import zip_equal\n"),
        (
            "pkg/recipes.py",
            "try:\n    zip(strict=True)\nexcept TypeError:\n    _zip_strict = zip\nelse:\n    _zip_strict = zip\n\n\ndef _zip_equal(*iterables):\n    return list(zip(*iterables))\n\n\ndef transpose(it):\n    return _zip_strict(*it)\n",
        ),
        ("pkg/recipes.pyi", "from typing import Any\n\ndef transpose(it: Any) -> Any: ...\n"),
        (
            "pkg/more.py",
            "from .recipes import (\n    _zip_equal,\n    transpose,\n)\n\n__all__ = ['zip_equal', 'transpose']\n\n\ndef zip_equal(*iterables):\n    return _zip_equal(*iterables)\n",
        ),
    ])
}

fn python_says(dir: &std::path::Path, code: &str) -> (bool, String) {
    let output = std::process::Command::new("python3").args(["-c", code]).current_dir(dir).output().expect("run python3");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_rename_follows_an_import_of_the_name_from_its_module_that_pyright_cannot_resolve() {
    let test = "lsp_trial44::a_rename_follows_an_import_of_the_name_from_its_module_that_pyright_cannot_resolve";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = stubbed_package();
    let (ok, output) = python_says(dir.path(), "import pkg; print(pkg.zip_equal([1], [2]))");
    assert!(ok && output.contains("[(1, 2)]"), "{output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/recipes.py", "line": 9, "symbol": "_zip_equal", "new_name": "_zip_checked"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("runbound renamed 2 occurrences in files that import `_zip_equal` from the renamed definition's module"),
        "{text}"
    );
    let more = std::fs::read_to_string(dir.path().join("pkg/more.py")).unwrap();
    assert!(!more.contains("_zip_equal") && more.matches("_zip_checked").count() == 2, "{more}");
    // Ground truth: the package still imports and works.
    let (ok, output) = python_says(dir.path(), "import pkg; print(pkg.zip_equal([1], [2]))");
    assert!(ok && output.contains("[(1, 2)]"), "{output}\n{text}");
}

#[test]
fn a_def_renamed_onto_a_name_bound_in_a_module_level_try_is_said_to_replace_it() {
    let test = "lsp_trial44::a_def_renamed_onto_a_name_bound_in_a_module_level_try_is_said_to_replace_it";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = stubbed_package();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/recipes.py", "line": 9, "symbol": "_zip_equal", "new_name": "_zip_strict", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("the renamed `_zip_equal` becomes `def _zip_strict`, which line 4 already defines in the same scope"), "{text}");
    // Ground truth: accepted, the module's `_zip_strict` is the renamed def, and transpose()
    // changes behaviour (it returns a list where zip returned an iterator).
    let edit_id = result.structured_content.as_ref().and_then(|s| s["edit_id"].as_str()).expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    let (ok, output) = python_says(dir.path(), "from pkg import recipes; print(type(recipes.transpose([[1], [2]])).__name__)");
    assert!(ok && output.trim() == "list", "the rename replaced the try/except binding: {output}");
}

/// A Go package whose type implements `fmt.Stringer` and `encoding.TextMarshaler`, with a test
/// that marshals it to JSON and a call of `String` through `fmt.Stringer` on another type.
fn stringer_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/ident\n\ngo 1.19\n"),
        (
            "ident.go",
            "package ident\n\nimport \"fmt\"\n\n// ID is an identifier.\ntype ID [2]byte\n\n// String formats the ID.\nfunc (id ID) String() string {\n\treturn fmt.Sprintf(\"%02x%02x\", id[0], id[1])\n}\n\n// MarshalText implements encoding.TextMarshaler.\nfunc (id ID) MarshalText() ([]byte, error) {\n\treturn []byte(id.String()), nil\n}\n\n// Kind is a kind.\ntype Kind int\n\n// String names the kind.\nfunc (k Kind) String() string {\n\treturn \"kind\"\n}\n",
        ),
        (
            "ident_test.go",
            "package ident\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestJSON(t *testing.T) {\n\tout, _ := json.Marshal(ID{1, 2})\n\tif string(out) != `\"0102\"` {\n\t\tt.Fatalf(\"got %s\", out)\n\t}\n}\n\nfunc TestKinds(t *testing.T) {\n\tfor _, v := range []interface{}{Kind(1)} {\n\t\tif s, ok := v.(fmt.Stringer); ok && s.String() != \"kind\" {\n\t\t\tt.Fatal(s.String())\n\t\t}\n\t}\n}\n",
        ),
    ])
}

fn go_test(dir: &std::path::Path) -> (bool, String) {
    let output = std::process::Command::new("go")
        .args(["test", "-count=1", "./..."])
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .expect("run go test");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

/// Trial 44 F2 and F6 (google/uuid 1.3.0): renaming a method that implements a standard
/// interface warns that the type stops implementing it — silently at run time where it is used
/// dynamically — and calls of the interface method on other types do not hold the rename back
/// as "the build would break".
#[test]
fn renaming_a_go_method_that_implements_a_standard_interface_warns_of_the_dynamic_uses() {
    let test = "lsp_trial44::renaming_a_go_method_that_implements_a_standard_interface_warns_of_the_dynamic_uses";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = stringer_package();
    let (ok, output) = go_test(dir.path());
    assert!(ok, "fixture: {output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // `String`: written (not staged), the call through fmt.Stringer on Kind rightly left.
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "ident.go", "line": 9, "symbol": "String", "new_name": "Text"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("NOT written") && text.starts_with("Renamed"), "{text}");
    assert!(text.contains("the renamed method implements `fmt.Stringer.String`") && text.contains("NO compile error"), "{text}");
    assert!(!text.contains("runtime.stringer"), "an unexported interface of another package is named only when nothing else is: {text}");
    assert!(text.contains("left unrenamed, rightly: 2 calls through the interface method"), "{text}");
    let (ok, output) = go_test(dir.path());
    assert!(ok, "the String rename compiles and keeps the tests: {output}");
    // `MarshalText`: the JSON form changes with no compile error, as the warning says.
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "ident.go", "line": 14, "symbol": "MarshalText", "new_name": "EncodeText"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("implements `encoding.TextMarshaler.MarshalText`"), "{text}");
    assert!(text.contains("no new errors"), "{text}");
    let (ok, output) = go_test(dir.path());
    assert!(!ok && output.contains("TestJSON"), "ground truth: the JSON test fails: {output}");
}

/// Trial 44 F7: a new file that redeclares names of its package, written as the first call of a
/// run, breaks the files that declare them too: every error is new (the package was clean).
#[test]
fn a_new_go_file_written_first_in_a_run_counts_the_redeclarations_it_causes_as_new() {
    let test = "lsp_trial44::a_new_go_file_written_first_in_a_run_counts_the_redeclarations_it_causes_as_new";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = stringer_package();
    let (ok, output) = go_test(dir.path());
    assert!(ok, "fixture: {output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "write",
        json!({"path": "extra_test.go", "content": "package ident\n\nimport \"testing\"\n\nfunc TestJSON(t *testing.T) {}\n"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("this write introduced 2 new errors in 2 files"), "{text}");
    assert!(text.contains("ident_test.go: new diagnostics introduced by this write"), "{text}");
    assert!(!text.contains("already present before this write"), "{text}");
    let (ok, output) = go_test(dir.path());
    assert!(!ok && output.contains("TestJSON redeclared"), "ground truth: {output}");
}

/// Trial 44 M2: a Python doctest's `>>>` calls are named as doctest occurrences to read, not
/// counted among comments and strings.
#[test]
fn python_references_name_the_doctest_calls_apart_from_comments_and_strings() {
    let test = "lsp_trial44::python_references_name_the_doctest_calls_apart_from_comments_and_strings";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        (
            "pkg/recipes.py",
            "def take(n, iterable):\n    \"\"\"Return the first n items.\n\n    >>> take(2, range(5))\n    [0, 1]\n    \"\"\"\n    return list(iterable)[:n]\n\n\n# take is a recipe\nFIRST = take(1, [9])\n",
        ),
        ("pkg/more.py", "from .recipes import take\n\n\ndef head(it):\n    return take(1, it)\n"),
    ]);
    let grep = std::fs::read_to_string(dir.path().join("pkg/recipes.py")).unwrap();
    assert_eq!(grep.lines().filter(|line| line.contains(">>> take(")).count(), 1);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "pkg/recipes.py", "line": 1, "symbol": "take"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("1 occurrence of `take` in doctest examples") && text.contains("pkg/recipes.py:4"), "{text}");
}

#[test]
fn python_incoming_calls_name_a_stubbed_function_passed_as_a_value_in_an_importer_and_its_doctest_calls() {
    let test = "lsp_trial44::python_incoming_calls_name_a_stubbed_function_passed_as_a_value_in_an_importer_and_its_doctest_calls";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        (
            "pkg/recipes.py",
            "def take(n, iterable):\n    \"\"\"Return the first n items.\n\n    >>> take(2, range(5))\n    [0, 1]\n    \"\"\"\n    return list(iterable)[:n]\n",
        ),
        ("pkg/recipes.pyi", "from typing import Any, Iterable\n\ndef take(n: int, iterable: Iterable[Any]) -> list[Any]: ...\n"),
        (
            "pkg/more.py",
            "from functools import partial\n\nfrom .recipes import take\n\n\ndef head(it):\n    return take(1, it)\n\n\ndef chunked(it, n):\n    return iter(partial(take, n, iter(it)), [])\n",
        ),
    ]);
    // Ground truth (grep): one direct call, one use as a value, one doctest call.
    let more = std::fs::read_to_string(dir.path().join("pkg/more.py")).unwrap();
    assert_eq!(more.lines().position(|line| line.contains("partial(take,")), Some(10));
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "incoming_calls", "file": "pkg/recipes.py", "line": 1, "symbol": "take"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("1 caller, 1 call site") && text.contains("7: return take(1, it)"), "{text}");
    assert!(
        text.contains("NOT in this answer as call sites: 1 reference of `take`")
            && text.contains("pkg/more.py:11: return iter(partial(take, n, iter(it)), [])   (passed as an argument)"),
        "{text}"
    );
    assert!(text.contains("1 occurrence of `take` in doctest examples") && text.contains("are callers: pkg/recipes.py:4"), "{text}");
}
