//! Wrong answers from the fresh-user trial 55 (tenacity 9.0.0), against real pyright and the
//! real interpreter, on a fixture of the same shape:
//! - F1: renaming an instance attribute (`RetryAction.sleep`) also rewrote the `"sleep"` entry of
//!   the package's `__all__`, which names the module-level `sleep` function: `from tenacity
//!   import *` raised AttributeError, and the note said `tenacity.sleep` was gone.
//! - F2: renaming the attribute `BaseRetrying.retry` edited uses of another `.retry` in a test
//!   that imports the `retry` decorator (the wrapper function's attribute): a test failed.
//!
//! - F3 (smallvec 1.13.2): in a session started on a tree whose library did not compile, the edit
//!   that fixed it was said to introduce the bench target's `#![feature]` error (E0554), which
//!   cargo had never reached while the library failed, and the errors it fixed were "not counted
//!   as resolved".
//!
//! Ground truth: the interpreter, importing and running the package after the rename; `cargo
//! check --all-targets` on the committed tree.

use crate::support;

use serde_json::json;

const INIT: &str = "from .nap import sleep\n\n\nclass RetryAction:\n    def __init__(self, sleep: float) -> None:\n        self.sleep = float(sleep)\n\n\nclass BaseRetrying:\n    def __init__(self, retry: object = None) -> None:\n        self.retry = retry\n\n    def wraps(self, f):\n        def wrapped_f(*args, **kwargs):\n            return f(*args, **kwargs)\n\n        wrapped_f.retry = self\n        return wrapped_f\n\n\ndef retry(f):\n    return BaseRetrying().wraps(f)\n\n\n__all__ = [\n    \"sleep\",\n    \"retry\",\n    \"RetryAction\",\n    \"BaseRetrying\",\n]\n";

const USES: &str = "from retrying import retry\n\n\n@retry\ndef decorated():\n    return 1\n\n\ndef statistics():\n    return decorated.retry is not None\n";

fn package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"retrying\"\nversion = \"0.1.0\"\n"),
        ("retrying/__init__.py", INIT),
        ("retrying/nap.py", "def sleep(seconds: float) -> None:\n    return None\n"),
        ("uses.py", USES),
    ])
}

#[test]
fn an_instance_attribute_rename_leaves_the_all_entry_of_a_module_name_of_the_same_spelling() {
    let test = "lsp_trial55::an_instance_attribute_rename_leaves_the_all_entry_of_a_module_name_of_the_same_spelling";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = package();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "retrying/__init__.py", "line": 6, "symbol": "self.sleep", "new_name": "sleep_seconds"}),
    );
    let init = std::fs::read_to_string(dir.path().join("retrying/__init__.py")).unwrap();
    assert!(init.contains("self.sleep_seconds = float(sleep)"), "{init}\n{text}");
    assert!(init.contains("    \"sleep\",\n"), "the `__all__` entry names the module's `sleep` function:\n{init}\n{text}");
    assert!(!text.contains("`__all__` entr"), "{text}");
    assert!(!text.contains("`retrying.sleep` is gone"), "{text}");
    assert_eq!(support::python_prints(dir.path(), "from retrying import *; print(sleep.__name__)"), "sleep");
}

#[test]
fn an_attribute_rename_leaves_uses_of_an_imported_function_of_the_same_spelling() {
    let test = "lsp_trial55::an_attribute_rename_leaves_uses_of_an_imported_function_of_the_same_spelling";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = package();
    assert_eq!(support::python_prints(dir.path(), "import uses; print(uses.statistics())"), "True");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "retrying/__init__.py", "line": 11, "symbol": "self.retry", "new_name": "retry_strategy"}),
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("uses.py")).unwrap(), USES, "{text}");
    assert!(!text.contains("in files that import `retry` from the renamed definition's module"), "{text}");
    let init = std::fs::read_to_string(dir.path().join("retrying/__init__.py")).unwrap();
    assert!(init.contains("self.retry_strategy = retry") && init.contains("    \"retry\",\n"), "{init}");
    assert_eq!(support::python_prints(dir.path(), "import uses; print(uses.statistics())"), "True");
    assert_eq!(support::python_prints(dir.path(), "from retrying import *; print(retry.__name__)"), "retry");
}

#[test]
fn an_error_in_a_target_cargo_skipped_while_the_library_failed_is_not_new_when_the_library_is_fixed() {
    let test = "lsp_trial55::an_error_in_a_target_cargo_skipped_while_the_library_failed_is_not_new_when_the_library_is_fixed";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"vecs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[[bench]]\nname = \"bench\"\nharness = false\n"),
        ("src/lib.rs", "pub fn from_vec(values: Vec<u32>, _hint: usize) -> u32 {\n    values.iter().sum()\n}\n\npub fn one() -> u32 {\n    from_vec(vec![1])\n}\n"),
        ("benches/bench.rs", "#![feature(test)]\n\nfn main() {\n    println!(\"{}\", vecs::one());\n}\n"),
    ]);
    let cargo_check = || {
        let output = std::process::Command::new("cargo")
            .args(["check", "--all-targets", "--offline", "--message-format", "short"])
            .current_dir(dir.path())
            .env("CARGO_TARGET_DIR", dir.path().join("target/ground-truth"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stderr).lines().filter(|line| line.contains(": error[")).map(str::to_owned).collect::<Vec<_>>()
    };
    // Before: the library's error only; cargo never reaches the bench.
    let before = cargo_check();
    assert!(before.len() == 1 && before[0].starts_with("src/lib.rs:6:"), "{before:?}");
    let run = support::lsp_run_allowing_writes(dir.path());
    // The server's first check ends before the write (a write while it runs is a race this test
    // is not about: its errors are then "not known" to be resolved, 3 runs in 6 at 45cb839).
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "values: Vec<u32>, _hint: usize)", "new_string": "values: Vec<u32>)"}),
    );
    // After: the bench's E0554, which was in the file all along.
    let after = cargo_check();
    assert!(after.len() == 1 && after[0].starts_with("benches/bench.rs:1:"), "{after:?}");
    assert!(!text.contains("introduced 1 new error") && !text.contains("new diagnostics introduced by this write"), "{text}");
    assert!(text.contains("src/lib.rs: resolved by this write (1, rust-analyzer)"), "{text}");
    assert!(text.contains("benches/bench.rs: reported now that the library compiles again"), "{text}");
    assert!(text.contains("benches/bench.rs:1: error[E0554]"), "{text}");
}

/// M3 (smallvec 1.13.2): renaming a struct field that the crate's embedded `.natvis` debugger
/// visualizer names said nothing of that file. Ground truth: grep of the visualizer.
#[test]
fn a_field_rename_names_the_debugger_visualizer_lines_that_keep_the_old_name() {
    let test = "lsp_trial55::a_field_rename_names_the_debugger_visualizer_lines_that_keep_the_old_name";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let natvis = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<AutoVisualizer xmlns=\"http://schemas.microsoft.com/vstudio/debugger/natvis/2010\">\n  <Type Name=\"vecs::Small\">\n    <DisplayString>{{ len={capacity} }}</DisplayString>\n    <Item Name=\"[capacity]\">capacity</Item>\n  </Type>\n</AutoVisualizer>\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"vecs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "#![debugger_visualizer(natvis_file = \"../debug_metadata/small.natvis\")]\n\n/// A small vector.\npub struct Small {\n    capacity: usize,\n}\n\nimpl Small {\n    /// Its capacity.\n    pub fn len(&self) -> usize {\n        self.capacity\n    }\n}\n"),
        ("debug_metadata/small.natvis", natvis),
    ]);
    let truth: Vec<usize> = natvis.lines().enumerate().filter(|(_, line)| line.contains("capacity")).map(|(index, _)| index + 1).collect();
    assert_eq!(truth, vec![4, 5]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 5, "symbol": "capacity", "new_name": "cap", "preview": true}),
    );
    assert!(
        text.contains("not renamed in debugger visualizers")
            && text.contains("2 lines in 1 file: debug_metadata/small.natvis (2 lines: 4, 5)"),
        "{text}"
    );
}

/// M1: a `setattr` string whose object is a module (`monkeypatch.setattr(tenacity.nap.time,
/// "sleep", …)`) was the one WARNING of renaming `RetryAction.sleep`; it names the module's
/// attribute. One whose object is an instance of the class stays a WARNING.
#[test]
fn an_attribute_string_whose_object_is_a_module_is_no_warning() {
    let test = "lsp_trial55::an_attribute_string_whose_object_is_a_module_is_no_warning";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = package();
    std::fs::write(
        dir.path().join("patching.py"),
        "import retrying.nap\nfrom retrying import RetryAction\n\n\ndef fake(seconds: float) -> None:\n    return None\n\n\nsetattr(retrying.nap, \"sleep\", fake)\naction = RetryAction(1.0)\nsetattr(action, \"sleep\", 2.0)\n",
    )
    .unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "retrying/__init__.py", "line": 6, "symbol": "self.sleep", "new_name": "sleep_seconds", "preview": true}),
    );
    assert!(text.contains("left unrenamed, rightly: 1 string in getattr / setattr / mock.patch.object calls whose object is a module (`retrying.nap` at patching.py:9)"), "{text}");
    assert!(
        text.contains("WARNING: 1 occurrence left unrenamed in strings that name the attribute") && text.contains("patching.py:11:"),
        "{text}"
    );
}
