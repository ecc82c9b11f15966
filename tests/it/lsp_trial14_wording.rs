//! Misleading answers from the fresh-user trial 14 on indexmap 2.7.1, against the real tools:
//! a project check after a breaking edit names the cargo targets cargo never compiled (the
//! library they depend on failed) instead of reading as complete; a rename's list of doc-test
//! occurrences left unrenamed holds only those that call the renamed item.

use crate::support;

use runbound::{Caller, Run, RunConfig};
use serde_json::json;

fn checker_run(workspace: &std::path::Path) -> Run {
    Run::builder(workspace).config(RunConfig::default()).language_servers().build().expect("build run")
}

/// A crate whose library, integration test, bench and feature-gated example all compile; the
/// library can be broken by `broken`.
fn crate_with_targets(broken: bool) -> tempfile::TempDir {
    let library = if broken { "pub fn double(x: u32) -> u32 { x * \"2\" }\n" } else { "pub fn double(x: u32) -> u32 { x * 2 }\n" };
    support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"targets\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n\n\
             [[example]]\nname = \"gated\"\nrequired-features = [\"extra\"]\n",
        ),
        ("src/lib.rs", library),
        ("tests/double.rs", "#[test]\nfn doubles() { assert_eq!(targets::double(2), 4); }\n"),
        ("benches/speed.rs", "fn main() { let unused = targets::double(3); }\n"),
        ("examples/plain.rs", "fn main() { println!(\"{}\", targets::double(1)); }\n"),
        ("examples/gated.rs", "fn main() { println!(\"{}\", targets::double(5)); }\n"),
    ])
}

#[test]
fn a_project_check_names_the_cargo_targets_a_failed_library_kept_cargo_from_compiling() {
    if support::require_binary("lsp_trial14_wording::a_project_check_names_the_cargo_targets", "cargo").is_none() {
        return;
    }
    // Sound library: every target compiled (the bench's warning is seen), only the example whose
    // required feature is off is skipped, and said so.
    let sound = crate_with_targets(false);
    let run = checker_run(sound.path());
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("benches/speed.rs:1: warning[unused_variables]"), "the bench was compiled: {text}");
    assert!(
        text.contains("NOT checked: examples/gated.rs (example `gated`): skipped by cargo: its required-features extra are not enabled"),
        "{text}"
    );
    assert!(!text.contains("which failed to compile"), "{text}");
    let structured = result.structured_content.expect("structured");
    assert_eq!(structured["targets_not_checked"].as_array().map(Vec::len), Some(1), "{structured}");
    drop(run);

    // Broken library (trial 14: indexmap after a breaking edit said "6 errors, 1 warning" and
    // nothing of the benches that had E0554 before): the test, bench and examples are named as
    // not compiled, with the library's failure as the reason, in the headline too.
    let broken = crate_with_targets(true);
    let run = checker_run(broken.path());
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let headline = text.lines().next().unwrap_or("");
    assert!(headline.starts_with("project check: 1 error"), "{text}");
    let (_, not_checked) = headline.split_once(" — NOT checked: examples/").expect("the targets are in the headline");
    let reason = "(cargo never compiled them: the library `targets` that they depend on failed to compile; their diagnostics are \
                  unknown, not clean — fix those errors and check again)";
    let (named, _) = not_checked.split_once(reason).unwrap_or_else(|| panic!("{headline}"));
    let mut named: Vec<&str> = named.trim().split(", ").collect();
    named.sort_unstable();
    assert_eq!(named, ["benches/speed.rs", "plain.rs", "tests/double.rs"], "{headline}");
    assert!(headline.ends_with("; examples/gated.rs (required-features not enabled, see below)"), "{headline}");
    for (path, kind, name) in
        [("tests/double.rs", "test", "double"), ("benches/speed.rs", "bench", "speed"), ("examples/plain.rs", "example", "plain")]
    {
        assert!(
            text.contains(&format!(
                "NOT checked: {path} ({kind} `{name}`): not compiled: it depends on the library `targets`, which failed to compile"
            )),
            "{path}: {text}"
        );
    }
    assert!(!text.contains("benches/speed.rs:1: warning"), "the bench was not compiled, so its warning is unknown: {text}");
    let structured = result.structured_content.expect("structured");
    assert_eq!(structured["targets_not_checked"].as_array().map(Vec::len), Some(4), "{structured}");
    assert_eq!(structured["runs"][0]["targets_not_checked"].as_array().map(Vec::len), Some(4), "{structured}");
}

/// A crate with two types that each have a `position_of` method, and doc-tests calling each
/// (indexmap's `IndexMap::get_index_of` beside `IndexSet::get_index_of`), one with a hidden line.
fn crate_with_two_methods_of_one_name() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"two-maps\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            r#"//! Two containers.
//!
//! ```
//! let map = two_maps::Map::new(vec![3, 4]);
//! assert_eq!(map.position_of(4), Some(1));
//! ```

pub mod set;

/// A map.
pub struct Map {
    keys: Vec<u32>,
}

impl Map {
    /// A map of `keys`.
    pub fn new(keys: Vec<u32>) -> Map {
        Map { keys }
    }

    /// Where `key` is.
    ///
    /// ```
    /// # use two_maps::Map;
    /// let map = Map::new(vec![1, 2]);
    /// assert_eq!(map.position_of(2), Some(1));
    /// let set = two_maps::set::Set::new(vec![5]);
    /// assert_eq!(set.position_of(5), Some(0));
    /// ```
    pub fn position_of(&self, key: u32) -> Option<usize> {
        self.keys.iter().position(|k| *k == key)
    }
}
"#,
        ),
        (
            "src/set.rs",
            r#"//! A set.

/// A set.
pub struct Set {
    values: Vec<u32>,
}

impl Set {
    /// A set of `values`.
    pub fn new(values: Vec<u32>) -> Set {
        Set { values }
    }

    /// Where `value` is.
    ///
    /// ```
    /// use two_maps::set::Set;
    /// let set = Set::new(vec![7, 8]);
    /// assert_eq!(set.position_of(8), Some(1));
    /// assert_eq!(set.position_of(9), None);
    /// ```
    pub fn position_of(&self, value: u32) -> Option<usize> {
        self.values.iter().position(|v| *v == value)
    }
}
"#,
        ),
        (
            "tests/uses.rs",
            "/// An integration test sees the library as a dependency:\n///\n/// ```\n/// let map = two_maps::Map::new(vec![1]);\n/// map.position_of(1);\n/// ```\n#[test]\nfn uses() {\n    assert_eq!(two_maps::Map::new(vec![1]).position_of(1), Some(0));\n}\n",
        ),
    ])
}

fn cargo_in(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new("cargo").args(args).current_dir(dir).output().expect("run cargo");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_rename_renames_the_doc_test_calls_of_the_renamed_method_and_leaves_another_types_method() {
    let test = "lsp_trial14_wording::a_rename_renames_the_doc_test_calls_of_the_renamed_method";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = crate_with_two_methods_of_one_name();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // Warm the server (indexing) before the rename.
    let _ = run.call(Caller::Main, "lsp", json!({"op": "definition", "file": "src/lib.rs", "line": 30, "symbol": "position_of"}));
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 30, "symbol": "position_of", "new_name": "index_of_key"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    eprintln!("{text}");
    assert!(!text.contains("WARNING"), "every doc-test occurrence was resolved: {text}");
    assert!(
        text.contains(
            "runbound renamed 3 occurrences in doc-test examples (doc comments) — rust-analyzer resolved each, in an unsaved copy of its example, to the renamed symbol"
        ),
        "{text}"
    );
    assert!(
        text.contains("left unrenamed, rightly: 3 occurrences in doc-test examples that call another `position_of` (rust-analyzer resolved them in a copy of the example to: src/set.rs:22 (3))"),
        "{text}"
    );
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    let set = std::fs::read_to_string(dir.path().join("src/set.rs")).unwrap();
    assert!(lib.contains("//! assert_eq!(map.index_of_key(4), Some(1));"), "{lib}");
    assert!(lib.contains("/// assert_eq!(map.index_of_key(2), Some(1));"), "{lib}");
    assert!(lib.contains("/// assert_eq!(set.position_of(5), Some(0));"), "{lib}");
    assert_eq!(set.matches("set.position_of(").count(), 2, "{set}");
    assert!(!lib.contains("__runbound"), "the copy of the examples was never written: {lib}");
    let uses = std::fs::read_to_string(dir.path().join("tests/uses.rs")).unwrap();
    assert!(uses.contains("/// map.index_of_key(1);") && uses.contains(".index_of_key(1), Some(0))"), "{uses}");
    // Ground truth: the crate's own doc-tests pass after the rename (before this fix, two of
    // them failed and three passing calls were listed as "may fail").
    let (passed, output) = cargo_in(dir.path(), &["test", "--offline", "-q"]);
    assert!(passed, "cargo test (with the doc-tests) after the rename:\n{output}");
    let structured = result.structured_content.expect("structured");
    let coverage = &structured["coverage"];
    assert_eq!(coverage["renamed_in_doc_tests"].as_array().map(Vec::len), Some(3), "{coverage}");
    assert_eq!(coverage["doc_tests_of_other_symbols"], 3, "{coverage}");
    assert_eq!(coverage["left_in_doc_tests"].as_array().map(Vec::len), Some(0), "{coverage}");
}
