//! Wrong or missing answers from the fresh-user trial 159 (arrayvec 0.7.6), against
//! rust-analyzer and cargo, on fixtures of the same shape:
//! - F1: after a write deleted an item, diagnostics on write said "checked: … the whole cargo
//!   workspace" and nothing of `tests/borsh.rs` (under `#![cfg(feature = "borsh")]`, off by
//!   default), which used it and broke under that feature.
//! - F2: `lsp_rename` of `const CAP` to `T` in `impl<T, const CAP: usize>` said "no other
//!   definition of `T` in the same scope"; cargo check then gave E0403.
//! - M3: after renaming `CapacityError`, the write's NOT-checked note named `new` as "changed by
//!   this write" (`fn new(…) -> CapacityError` changed only by the rename) and listed unrelated
//!   gated `…::new()` calls.
//! - M4: after a signature change, the write named no doc-test, though one calling the changed
//!   function then failed in `cargo test --doc`.
//!
//! Ground truth: `cargo check --all-targets` with and without the feature, `cargo test --doc`.

use crate::support;

use serde_json::json;

/// The diagnostics-on-write block of a write's answer.
fn dow(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"))
}

/// The short-form errors of `cargo check --all-targets --keep-going` in `dir` with `args` added.
fn cargo_check_errors(dir: &std::path::Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", "--offline", "--all-targets", "--keep-going", "--message-format=short"];
    all.extend_from_slice(args);
    let checked = support::cargo_by_hand(dir, &all, &[]);
    let mut errors: Vec<String> =
        String::from_utf8_lossy(&checked.stderr).lines().filter(|line| line.contains(": error")).map(str::to_owned).collect();
    errors.sort();
    errors.dedup();
    errors
}

/// The line of `text` that starts with `place`.
fn line_starting<'t>(text: &'t str, place: &str) -> &'t str {
    text.lines().find(|line| line.starts_with(place)).unwrap_or_else(|| panic!("no line for {place} in:\n{text}"))
}

/// The library: `bump`, which the library itself does not call.
const GATED_USERS_LIB: &str = "//! A crate whose feature-gated code uses `bump`.
pub mod other;

/// One more than `x`.
pub fn bump(x: u32) -> u32 {
    x + 1
}

/// Two more than `x`.
pub fn bump_twice(x: u32) -> u32 {
    x + 2
}
";

/// `src/other.rs`: one use of `bump` behind a `#[cfg(feature = \"y\")]`, in a file no write touches.
const GATED_USERS_OTHER: &str = "//! Other code.

/// Three more than `x`.
pub fn three(x: u32) -> u32 {
    crate::bump_twice(x) + 1
}

/// Through `bump`, with `y` only.
#[cfg(feature = \"y\")]
pub fn via(x: u32) -> u32 {
    crate::bump(x)
}
";

fn gated_users() -> tempfile::TempDir {
    support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nx = []\ny = []\n\n[[test]]\nname = \"needs_x\"\npath = \"tests/needs_x.rs\"\nrequired-features = [\"x\"]\n",
        ),
        ("src/lib.rs", GATED_USERS_LIB),
        ("src/other.rs", GATED_USERS_OTHER),
        ("tests/plain.rs", "#[test]\nfn plain() {\n    assert_eq!(gated::bump(1), 2);\n}\n"),
        ("tests/gated.rs", "#![cfg(feature = \"x\")]\n\n#[test]\nfn gated() {\n    assert_eq!(gated::bump(2), 3);\n}\n"),
        ("tests/needs_x.rs", "#[test]\nfn needs_x() {\n    assert_eq!(gated::bump(3), 4);\n}\n"),
    ])
}

#[test]
fn a_deleted_item_used_in_feature_gated_files_the_write_did_not_touch_is_named_not_checked() {
    let test = "lsp_trial159::a_deleted_item_used_in_feature_gated_files_the_write_did_not_touch_is_named_not_checked";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = gated_users();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "/// One more than `x`.\npub fn bump(x: u32) -> u32 {\n    x + 1\n}\n\n", "new_string": ""}),
    );
    // Ground truth: the default build breaks in tests/plain.rs only; with `x`, the gated test
    // and the required-features test break too; with `y`, the gated fn of src/other.rs.
    let default = cargo_check_errors(dir.path(), &[]);
    assert!(default.len() == 1 && default[0].starts_with("tests/plain.rs:3:"), "{default:?}");
    let with_x = cargo_check_errors(dir.path(), &["--features", "x"]);
    for place in ["tests/gated.rs:5:", "tests/needs_x.rs:3:", "tests/plain.rs:3:"] {
        assert!(with_x.iter().any(|error| error.starts_with(place)), "{place} in {with_x:?}");
    }
    let with_y = cargo_check_errors(dir.path(), &["--features", "y"]);
    assert!(with_y.len() == 1 && with_y[0].starts_with("src/other.rs:11:"), "{with_y:?}");
    let block = dow(&text);
    assert!(block.contains("tests/plain.rs:3: error"), "{text}");
    let gated = line_starting(block, "tests/gated.rs: NOT checked:");
    assert!(
        gated.contains("`#![cfg(feature = \"x\")]`") && gated.contains("line 5 names `bump`") && gated.contains("\"features\": [\"x\"]"),
        "{text}"
    );
    let needs_x = line_starting(block, "tests/needs_x.rs: NOT checked:");
    assert!(
        needs_x.contains("required-features [\"x\"]")
            && needs_x.contains("line 3 names `bump`")
            && needs_x.contains("`cargo check --all-targets --features x`"),
        "{text}"
    );
    let other = line_starting(block, "src/other.rs: NOT checked:");
    assert!(
        other.contains("line 11 names `bump` (under `#[cfg(feature = \"y\")]` at line 9)")
            && other.contains("\"features\": [\"y\"]")
            && !other.contains("line 5 "),
        "{text}"
    );
    // The `checked:` line does not stand unqualified.
    let checked = line_starting(block, "checked: ");
    assert!(
        checked.contains("the whole cargo workspace")
            && checked.contains("not checked: tests/gated.rs, tests/needs_x.rs")
            && checked.contains("except the code of src/other.rs that uses an item this write changed behind a `#[cfg]` that is off"),
        "{text}"
    );
}

/// A library whose error type is renamed, left named in doc comments; `Thing::new` (unrelated) is
/// called under a gate, and a gated function names the error type.
const RENAMED_ERROR_LIB: &str = "//! A crate with an error type.

/// An error; see `CapErr::new`.
#[derive(Debug)]
pub struct CapErr;

impl CapErr {
    /// Makes a `CapErr`.
    pub fn new() -> CapErr {
        CapErr
    }
}

/// A thing.
pub struct Thing;

impl Thing {
    /// Makes a thing.
    pub fn new() -> Thing {
        Thing
    }
}

/// A thing, with `x` only.
#[cfg(feature = \"x\")]
pub fn gated_thing() -> Thing {
    Thing::new()
}

/// An error, with `x` only.
#[cfg(feature = \"x\")]
pub fn gated_error() -> CapErr {
    CapErr
}
";

#[test]
fn a_rename_names_the_renamed_type_as_changed_not_the_functions_whose_signature_mentions_it() {
    let test = "lsp_trial159::a_rename_names_the_renamed_type_as_changed_not_the_functions_whose_signature_mentions_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"errs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nx = []\n"),
        ("src/lib.rs", RENAMED_ERROR_LIB),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 5, "symbol": "CapErr", "new_name": "CapacityErr"}));
    // Ground truth: rust-analyzer renamed the gated uses too, and `Thing::new()` is no use of
    // the renamed type: the build with `x` is clean.
    assert!(cargo_check_errors(dir.path(), &[]).is_empty());
    assert!(cargo_check_errors(dir.path(), &["--features", "x"]).is_empty());
    let block = dow(&text);
    assert!(block.contains("lines 30–34 (x) of lib.rs are not compiled"), "{text}");
    assert!(!block.contains("`new`") && !block.contains("line 27"), "{text}");
}

/// A library whose `add` is called in doc-tests of two files and in a test.
const DOC_TESTED_LIB: &str = "//! Sums.
//!
//! ```
//! assert_eq!(sums::add(1, 2), 3);
//! ```
pub mod more;

/// `a` plus `b`.
///
/// ```
/// assert_eq!(sums::add(2, 2), 4);
/// ```
pub fn add(a: u32, b: u32) -> u32 {
    a + b
}

/// `a` times two.
///
/// ```
/// assert_eq!(sums::double(2), 4);
/// ```
pub fn double(a: u32) -> u32 {
    a * 2
}
";

const DOC_TESTED_MORE: &str = "//! More.

/// Three numbers.
///
/// ```
/// # let s = sums::add(1, 1);
/// assert_eq!(sums::more::add3(s, 1, 1), 4);
/// ```
pub fn add3(a: u32, b: u32, c: u32) -> u32 {
    a + b + c
}
";

#[test]
fn a_signature_change_names_the_doc_tests_that_use_the_changed_function() {
    let test = "lsp_trial159::a_signature_change_names_the_doc_tests_that_use_the_changed_function";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"sums\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", DOC_TESTED_LIB),
        ("src/more.rs", DOC_TESTED_MORE),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn add(a: u32, b: u32) -> u32 {\n    a + b", "new_string": "pub fn add(a: u32, b: u32, c: u32) -> u32 {\n    a + b + c"}),
    );
    // Ground truth: cargo check is clean; the three doc-tests that call `add` fail.
    assert!(cargo_check_errors(dir.path(), &[]).is_empty());
    let doc = support::cargo_by_hand(dir.path(), &["test", "--offline", "--doc"], &[]);
    let out = String::from_utf8_lossy(&doc.stdout).into_owned();
    for failed in ["src/lib.rs - (line 3)", "src/lib.rs - add (line 10)", "src/more.rs - more::add3 (line 5)"] {
        assert!(out.lines().any(|line| line.contains(failed) && line.ends_with("FAILED")), "{failed}:\n{out}");
    }
    let block = dow(&text);
    assert!(
        block.contains(
            "of them, 3 use a name this write changed (a word search; the line of each opening ```, as `cargo test --doc` names it): src/lib.rs:3 (`add`), src/lib.rs:10 (`add`), src/more.rs:5 (`add`)"
        ),
        "{text}"
    );
    assert!(!block.contains("src/lib.rs:19"), "{text}");
}

#[test]
fn a_generic_parameter_renamed_onto_another_of_its_impl_is_a_taken_name() {
    let test = "lsp_trial159::a_generic_parameter_renamed_onto_another_of_its_impl_is_a_taken_name";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"generic\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        (
            "src/lib.rs",
            "//! A generic array.\n\n/// An array of `N` `T`s.\npub struct S<T, const N: usize>(pub [T; N]);\n\nimpl<T, const N: usize> S<T, N> {\n    /// The capacity.\n    pub fn capacity(&self) -> usize {\n        N\n    }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let staged = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 6, "symbol": "const N", "new_name": "T", "preview": true}),
    );
    let warning = line_starting(&staged, "WARNING: src/lib.rs:6:");
    assert!(warning.contains("`const parameter T`") && warning.contains("E0403"), "{staged}");
    let summary = line_starting(&staged, "taken-name check:");
    assert!(!summary.contains("no other definition"), "{staged}");
    // Ground truth: written, cargo check rejects it with E0403.
    let edit_id =
        staged.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_else(|| panic!("no edit_id:\n{staged}"));
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let errors = cargo_check_errors(dir.path(), &[]);
    assert!(errors.iter().any(|error| error.contains("error[E0403]")), "{errors:?}");
}
