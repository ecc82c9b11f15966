//! Wrong answers from the fresh-user trial 57 (textwrap 0.16.1), against the real
//! rust-analyzer and the real `cargo test --doc`, on a fixture of the same shape:
//! - F1: renaming the trait method `Fragment::whitespace_width` left the `impl Fragment for …`
//!   methods inside two doc-test examples unrenamed and said "left unrenamed, rightly … not this
//!   symbol; leave them"; `cargo test --doc` then failed twice (E0407, E0046).
//!
//! Ground truth: `cargo test --doc` after the rename.

use crate::support;

use serde_json::json;

const LIB: &str = "/// A piece of text.\npub trait Fragment {\n    /// Its width.\n    fn whitespace_width(&self) -> f64;\n}\n\n/// Sums the widths; see [Fragment::whitespace_width].\n///\n/// ```\n/// use frags::Fragment;\n/// struct Task {\n///     sweep: f64,\n/// }\n/// impl Fragment for Task {\n///     fn whitespace_width(&self) -> f64 {\n///         self.sweep\n///     }\n/// }\n/// assert_eq!(frags::total(&[Task { sweep: 1.0 }]), 1.0);\n/// ```\npub fn total<F: Fragment>(fragments: &[F]) -> f64 {\n    fragments.iter().map(|fragment| fragment.whitespace_width()).sum()\n}\n";

#[test]
fn a_trait_method_rename_renames_the_impls_of_it_in_doc_test_examples() {
    let test = "lsp_trial57::a_trait_method_rename_renames_the_impls_of_it_in_doc_test_examples";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"frags\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", LIB),
    ]);
    let doc_tests_pass = || support::cargo_doc_tests_pass(dir.path());
    assert!(doc_tests_pass(), "the fixture's doc-test passes");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 4, "symbol": "whitespace_width", "new_name": "ws_width"}),
    );
    let written = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(written.contains("///     fn ws_width(&self) -> f64 {"), "{written}\n{text}");
    assert!(!text.contains("not this symbol; leave them"), "{text}");
    // trial59 M2: the intra-doc link names the renamed method.
    assert!(text.contains("(an intra-doc link to the renamed `Fragment::whitespace_width`"), "{text}");
    assert!(doc_tests_pass(), "the doc-test implements the renamed method:\n{written}\n{text}");
}

/// M1 (humanize 4.10.0): renaming a member of an Enum the package looks up by name
/// (`Unit[minimum_unit.upper()]`) said "no new errors", and 200 tests failed with KeyError.
/// Ground truth: the interpreter.
#[test]
fn renaming_a_member_of_an_enum_looked_up_by_name_is_a_warning() {
    let test = "lsp_trial57::renaming_a_member_of_an_enum_looked_up_by_name_is_a_warning";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"humane\"\nversion = \"0.1.0\"\n"),
        ("humane/__init__.py", "from .time import naturaldelta\n"),
        ("humane/time.py", "from enum import Enum\n\n\nclass Unit(Enum):\n    MINUTES = 0\n    SECONDS = 1\n\n\ndef naturaldelta(value: int, minimum_unit: str = \"seconds\") -> str:\n    unit = Unit[minimum_unit.upper()]\n    return f\"{value} {unit.name.lower()}\"\n"),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import humane; print(humane.naturaldelta(5))"), "5 seconds");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "humane/time.py", "line": 6, "symbol": "SECONDS", "new_name": "SECS"}));
    let warning = text
        .lines()
        .find(|line| line.starts_with("WARNING: `Unit` is an Enum that code looks up by member name at 1 place"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(warning.contains("humane/time.py:10 `unit = Unit[minimum_unit.upper()]`"), "{warning}");
    // Ground truth: the default lookup now fails; the advised alias keeps it working.
    assert!(support::python_prints(dir.path(), "import humane; print(humane.naturaldelta(5))").contains("KeyError"));
    let source = std::fs::read_to_string(dir.path().join("humane/time.py")).unwrap();
    std::fs::write(dir.path().join("humane/time.py"), source.replace("    SECS = 1\n", "    SECS = 1\n    SECONDS = SECS\n")).unwrap();
    assert_eq!(support::python_prints(dir.path(), "import humane; print(humane.naturaldelta(5))"), "5 secs");
    // A member of a class that is no Enum gets no such warning.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "humane/time.py", "line": 10, "symbol": "minimum_unit", "new_name": "smallest", "preview": true}),
    );
    assert!(!text.contains("is an Enum that code looks up"), "{text}");
}
