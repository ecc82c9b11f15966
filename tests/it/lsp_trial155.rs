//! Wrong or noisy answers from the fresh-user trial 155 (indexmap 2.14.2), against rust-analyzer
//! and cargo, on fixtures of the same shape:
//! - M1: the rename's grep check read the lines of a module inside a `#[cfg(feature)]`-gated
//!   `mod` (indexmap's `src/rayon/map.rs`: `pub mod map;` of `src/rayon/mod.rs`, which
//!   `#[cfg(feature = "rayon")] mod rayon;` declares) as "(no definition)", references lumped
//!   them under a generic "cfg off … nor files no target includes", and a write check there said
//!   only "if a `#[cfg]`-gated `mod` declares it": the gate two `mod`s up was named nowhere.
//!
//! Ground truth: `cargo check` with and without the gate's feature.

use crate::support;

use serde_json::json;

/// The library: `double`, used in the crate and in a module inside the `f`-gated one.
const GATED_LIB: &str = "//! A crate with a feature-gated module tree.

/// Twice `x`.
pub fn double(x: u32) -> u32 {
    x * 2
}

/// Four times `x`.
pub fn quadruple(x: u32) -> u32 {
    double(double(x))
}

#[cfg(feature = \"f\")]
pub mod outer;
";

/// `src/outer/inner.rs`: declared by an ungated `pub mod inner;` in `src/outer/mod.rs`.
const GATED_INNER: &str = "//! Inside the gated module.

/// Six times `x`.
pub fn sextuple(x: u32) -> u32 {
    crate::double(x) * 3
}
";

fn gated_module_tree() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nf = []\n"),
        ("src/lib.rs", GATED_LIB),
        ("src/outer/mod.rs", "//! The gated module.\npub mod inner;\n"),
        ("src/outer/inner.rs", GATED_INNER),
    ])
}

/// The short-form errors of `cargo check --all-targets` in `dir` with `args` added.
fn cargo_check_errors(dir: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["check", "--offline", "--all-targets", "--message-format=short"];
    all.extend_from_slice(args);
    let checked = support::cargo_by_hand(dir, &all, &[]);
    String::from_utf8_lossy(&checked.stderr).lines().filter(|line| line.contains(": error")).collect::<Vec<_>>().join("\n")
}

/// The line of `text` that starts (after indentation) with `place`.
fn line_naming<'t>(text: &'t str, place: &str) -> &'t str {
    text.lines().find(|line| line.trim_start().starts_with(place)).unwrap_or_else(|| panic!("no line for {place} in:\n{text}"))
}

#[test]
fn a_module_inside_a_gated_module_is_said_behind_the_gate_with_its_place() {
    let test = "lsp_trial155::a_module_inside_a_gated_module_is_said_behind_the_gate_with_its_place";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = gated_module_tree();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "src/lib.rs", "line": 4, "symbol": "double"}));
    // The gate, two `mod`s up, named where the occurrence is listed.
    let gate = "in a module declared under `#[cfg(feature = \"f\")]` (src/lib.rs:14, which declares src/outer/mod.rs;";
    let staged = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 4, "symbol": "double", "new_name": "twice", "preview": true}),
    );
    let listed = line_naming(&staged, "src/outer/inner.rs:5:");
    assert!(listed.contains(gate) && listed.contains("\"features\": [\"f\"]"), "{staged}");
    assert!(!listed.contains("(no definition)"), "{staged}");
    assert!(staged.contains("(1 behind a `#[cfg]` that is off, 0 in `macro_rules!` templates)"), "{staged}");
    // references: the same gate, with the check that compiles it.
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 4, "symbol": "double"}));
    let note = line_naming(&references, "note: NOT in this answer:");
    assert!(note.contains("src/outer/inner.rs:5") && note.contains(gate) && note.contains("\"features\": [\"f\"]"), "{references}");
    assert!(!note.contains("nor files no target includes"), "{references}");
    // Ground truth: accepted, the rename leaves the default build clean and breaks the build
    // with `f` on, at the line named.
    let edit_id =
        staged.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_else(|| panic!("no edit_id:\n{staged}"));
    let applied = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert_eq!(cargo_check_errors(dir.path(), &[]), "", "the default build");
    let with_gate = cargo_check_errors(dir.path(), &["--features", "f"]);
    assert!(with_gate.contains("src/outer/inner.rs:5:"), "{with_gate}");
    // The write check of the same change names the module and its gate too.
    assert!(applied.contains("src/outer/inner.rs") && applied.contains("`#[cfg(feature = \"f\")]`"), "{applied}");
}

#[test]
fn a_write_inside_a_module_of_a_gated_module_names_the_gate() {
    let test = "lsp_trial155::a_write_inside_a_module_of_a_gated_module_names_the_gate";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = gated_module_tree();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "src/lib.rs", "line": 4, "symbol": "double"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/outer/inner.rs", "old_string": "crate::double(x) * 3", "new_string": "crate::double(x, 1) * 3"}),
    );
    // Ground truth: only a build with `f` compiles the file, and it breaks there.
    assert_eq!(cargo_check_errors(dir.path(), &[]), "", "the default build");
    assert!(cargo_check_errors(dir.path(), &["--features", "f"]).contains("src/outer/inner.rs:5:"));
    let said = line_naming(&text, "src/outer/inner.rs:");
    assert!(
        said.contains("NOT checked") && said.contains("`#[cfg(feature = \"f\")]` (src/lib.rs:14, which declares src/outer/mod.rs;"),
        "{text}"
    );
    assert!(!said.contains("if a `#[cfg]`-gated `mod` declares it"), "{text}");
}

/// A crate whose lib test build has a second type named `Table` (in its tests module), so rustc
/// prints the library's as `&map::Table` there and as `&Table` in the lib build.
const TABLES_LIB: &str = "//! Two types named `Table` in the test build.
pub mod map {
    /// A table.
    pub struct Table;

    impl Table {
        /// The entries.
        pub fn entries(&self) -> usize {
            0
        }
    }
}

/// The entries of `table`.
pub fn count(table: &map::Table) -> usize {
    table.entries()
}

#[cfg(test)]
mod tests {
    pub struct Table;

    #[test]
    fn counts() {
        let _ = Table;
        assert_eq!(super::count(&super::map::Table), 0);
    }
}
";

#[test]
fn one_error_the_lib_and_lib_test_builds_print_differently_is_counted_once_with_its_builds() {
    let test = "lsp_trial155::one_error_the_lib_and_lib_test_builds_print_differently_is_counted_once_with_its_builds";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"tables\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", TABLES_LIB),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text =
        support::call_ok(&run, "edit", json!({"path": "src/lib.rs", "old_string": "table.entries()", "new_string": "table.entries_len()"}));
    // Ground truth: one error at src/lib.rs:16, which the lib and the lib test builds both
    // report, printing the type two ways.
    let cargo = support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let cargo = String::from_utf8_lossy(&cargo.stderr).into_owned();
    let errors: Vec<&str> = cargo.lines().filter(|line| line.contains(": error[")).collect();
    assert_eq!(errors.len(), 2, "{cargo}");
    assert!(errors.iter().all(|line| line.starts_with("src/lib.rs:16:11: error[E0599]")), "{cargo}");
    assert!(errors[0] != errors[1] && cargo.contains("(lib)") && cargo.contains("(lib test)"), "{cargo}");
    let dow = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(dow.contains("this write introduced 1 new error in 1 file"), "{text}");
    assert_eq!(dow.matches("src/lib.rs:16: error[E0599]").count(), 1, "{text}");
    assert!(dow.contains("one error, reported by two of cargo's builds of this file"), "{text}");
    // The project check: one error, said with both builds of its target.
    let checked = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(checked.starts_with("project check: 1 error, 0 warnings"), "{checked}");
    let listed: Vec<&str> = checked.lines().filter(|line| line.starts_with("src/lib.rs:16: error[E0599]")).collect();
    assert_eq!(listed.len(), 1, "{checked}");
    assert!(listed[0].ends_with("(rustc; in lib `tables` — lib and lib test builds)"), "{checked}");
}

/// A library whose exported macro's template calls `Thing::with_capacity`, invoked only by one
/// integration test; another test uses the library without the macro.
const MACRO_LIB: &str = "//! A thing and a macro that builds one.

/// A thing.
pub struct Thing(pub usize);

impl Thing {
    /// A thing of capacity `n`.
    pub fn with_capacity(n: usize) -> Self {
        Thing(n)
    }

    /// Its capacity.
    pub fn capacity(&self) -> usize {
        self.0
    }
}

/// Builds a thing of capacity 4.
#[macro_export]
macro_rules! thing {
    () => {
        $crate::Thing::with_capacity(4)
    };
}

/// A thing of capacity 1.
pub fn small() -> Thing {
    Thing::with_capacity(1)
}
";

#[test]
fn an_error_only_in_one_test_targets_macro_expansion_holds_back_no_other_target() {
    let test = "lsp_trial155::an_error_only_in_one_test_targets_macro_expansion_holds_back_no_other_target";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"things\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", MACRO_LIB),
        ("tests/full_path.rs", "#[test]\nfn builds() {\n    let t = things::thing!();\n    assert_eq!(t.capacity(), 4);\n}\n"),
        ("tests/plain.rs", "#[test]\nfn small() {\n    assert_eq!(things::small().capacity(), 1);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 8, "symbol": "with_capacity", "new_name": "with_capacity_in"}),
    );
    // Ground truth: cargo compiles the library and the test target `plain`; the one error is in
    // the target `full_path`, inside the macro's expansion.
    let checked =
        support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets", "--keep-going", "--message-format=json"], &[]);
    let stdout = String::from_utf8_lossy(&checked.stdout).into_owned();
    let messages: Vec<serde_json::Value> = stdout.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let built: Vec<String> = messages
        .iter()
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter_map(|message| message.pointer("/target/name").and_then(|name| name.as_str()).map(str::to_owned))
        .collect();
    assert!(built.contains(&"things".to_owned()) && built.contains(&"plain".to_owned()), "{built:?}");
    let failed: Vec<&str> = messages
        .iter()
        .filter(|message| message["reason"] == "compiler-message" && message.pointer("/message/level") == Some(&json!("error")))
        .filter_map(|message| message.pointer("/target/name").and_then(|name| name.as_str()))
        .collect();
    assert_eq!(failed, vec!["full_path"], "{stdout}");
    let dow = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(dow.contains("tests/full_path.rs:3: error[E0599]"), "{text}");
    // The library compiled: the other test target was checked, and no library error is said.
    assert!(!dow.contains("cargo never compiled"), "{text}");
    assert!(!dow.contains("tests/plain.rs — cargo never") && !dow.contains("NOT checked: tests/plain.rs"), "{text}");
    assert!(!dow.contains("src/lib.rs: new diagnostics"), "{text}");
}
