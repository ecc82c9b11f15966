//! Wrong answer from the fresh-user trial 87 (humantime 2.1.0), against cargo on a fixture of the
//! same shape:
//! - F2: `lsp diagnostics "*"` ran `cargo check` at the root only; the repository's own
//!   `downstream/` crate (a path dependency on the root crate, no member of any workspace) was
//!   neither checked nor named, and its error was missing from the total.
//!
//! Ground truth: `cargo check` in each crate by hand.

use crate::support;

use serde_json::json;

/// The root crate `humanish` and, below it, the crate `downstream` (a path dependency on the
/// root, no workspace member) whose `src/main.rs` is `main`.
fn crate_with_downstream(main: &str) -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"humanish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "pub fn parse(text: &str) -> usize {\n    text.len()\n}\n"),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhumanish = { path = \"..\" }\n",
        ),
        ("downstream/src/main.rs", main),
    ])
}

#[test]
fn the_project_check_checks_a_crate_below_the_root_that_is_no_workspace_member() {
    let test = "lsp_trial87::the_project_check_checks_a_crate_below_the_root_that_is_no_workspace_member";
    if support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = crate_with_downstream("fn main() {\n    let parsed: u32 = humanish::parse(\"1s\");\n    println!(\"{parsed}\");\n}\n");
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]).status.success());
    let downstream = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]);
    assert!(String::from_utf8_lossy(&downstream.stderr).contains("error[E0308]"), "{}", String::from_utf8_lossy(&downstream.stderr));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("in downstream ("), "downstream was not checked:\n{text}");
    assert!(text.contains("downstream/src/main.rs:2: error[E0308]"), "{text}");
    assert!(text.starts_with("project check: 1 error"), "{text}");
}

/// F2 (trial 87, trial 91): a write to the root crate that breaks the in-repo `downstream/`
/// crate, whose rust-analyzer was not running, read "no new errors … elsewhere" and did not name
/// it as unchecked; it was then named NOT checked (trial134 M5: on a library the break lands
/// there). Its own `cargo check` now runs before and after the write, and the break is new.
#[test]
fn a_write_checks_a_dependent_crate_whose_server_is_not_running_with_cargo() {
    let test = "lsp_trial87::a_write_checks_a_dependent_crate_whose_server_is_not_running_with_cargo";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = crate_with_downstream("fn main() {\n    println!(\"{}\", humanish::parse(\"1s\"));\n}\n");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn parse(text: &str)", "new_string": "pub fn parse(text: &str, strict: bool)"}),
    );
    assert!(
        text.contains("downstream/src/main.rs: new diagnostics introduced by this write ("),
        "the break in downstream/ is not new:\n{text}"
    );
    assert!(text.contains("cargo check):\n  downstream/src/main.rs:2: error[E0061]"), "{text}");
    assert!(text.contains("checked: downstream/ (a project root that depends on . by path) by its own `cargo check"), "{text}");
    // The next write that leaves the break: not new again, and still counted — once, as cargo
    // counts it, though the bin and its test target both report it (trial143 F2).
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn parse", "new_string": "// parses\npub fn parse"}),
    );
    assert!(
        !text.contains("downstream/src/main.rs: new diagnostics")
            && text.contains("1 error already present before this write remains (not introduced by it): downstream/src/main.rs (1)"),
        "{text}"
    );
    // Ground truth: the dependent crate no longer builds.
    let check = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]);
    assert!(String::from_utf8_lossy(&check.stderr).contains("error[E0061]"), "{}", String::from_utf8_lossy(&check.stderr));
}

/// Trial 95 F3, F4 (hex 0.4.3): `implementation` and `incoming_calls` answer from the asked
/// root only; the dependent crate's callers were left out with no word. Its own server is now
/// asked, and its callers are listed.
#[test]
fn incoming_calls_list_the_callers_in_a_dependent_crate() {
    let test = "lsp_trial87::incoming_calls_list_the_callers_in_a_dependent_crate";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let main = "fn main() {\n    println!(\"{}\", humanish::parse(\"1s\"));\n}\n";
    let dir = crate_with_downstream(main);
    // Ground truth: the dependent crate calls it.
    assert!(std::fs::read_to_string(dir.path().join("downstream/src/main.rs")).unwrap().contains("humanish::parse("));
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/lib.rs", "line": 1, "symbol": "parse"}));
    assert!(
        text.contains("note: also searched downstream/ (it depends on . by path) with its own rust-analyzer: 1 caller and 1 call site"),
        "{text}"
    );
    assert!(text.contains("downstream/src/main.rs"), "the dependent crate's caller `main` is not listed:\n{text}");
    assert!(text.contains("incoming calls of function parse (src/lib.rs:1): 1 caller, 1 call site"), "{text}");
}

/// Trial 95 F1 (hex 0.4.3): a rename that broke the library (a `macro_rules!` template left
/// with the old name) and renamed the downstream crate's use said of the downstream crate
/// "also checked … no new errors", while cargo stopped at the library and compiled none of it.
#[test]
fn a_dependent_crate_whose_path_dependency_fails_to_compile_is_not_called_clean() {
    let test = "lsp_trial87::a_dependent_crate_whose_path_dependency_fails_to_compile_is_not_called_clean";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let lib = "pub fn parse(text: &str) -> usize {\n    text.len()\n}\n\nmacro_rules! twice {\n    ($text:expr) => {\n        parse($text) * 2\n    };\n}\n\npub fn double(text: &str) -> usize {\n    twice!(text)\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"humanish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", lib),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhumanish = { path = \"..\" }\n",
        ),
        ("downstream/src/main.rs", "fn main() {\n    println!(\"{}\", humanish::parse(\"1s\"));\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // The downstream crate's server runs (a lookup there starts it).
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "downstream/src/main.rs", "line": 2, "symbol": "parse"}));
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 1, "symbol": "parse", "new_name": "parse_text"}));
    // Ground truth: the library no longer compiles, so cargo compiles nothing of downstream.
    let check = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]);
    let said = String::from_utf8_lossy(&check.stderr).into_owned();
    assert!(said.contains("could not compile `humanish`"), "{said}");
    let main = std::fs::read_to_string(dir.path().join("downstream/src/main.rs")).unwrap();
    assert!(
        main.contains("humanish::parse_text("),
        "the rename reaches the downstream crate:
{main}
{text}"
    );
    assert!(!text.contains("no new errors in downstream/src/main.rs"), "{text}");
    assert!(text.contains("downstream/src/main.rs") && text.contains("cargo compiled no crate of downstream"), "{text}");
}

/// Trial 95 M4 (hex 0.4.3): `features` meant for the root crate were passed to the dependent
/// crate's own `cargo check` too, which has no such feature; cargo refused it, and the answer
/// said the crate was NOT checked because "something it depends on failed".
#[test]
fn the_root_crates_features_are_not_passed_to_a_dependent_crate_that_lacks_them() {
    let test = "lsp_trial87::the_root_crates_features_are_not_passed_to_a_dependent_crate_that_lacks_them";
    if support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"humanish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = []\nalloc = []\n",
        ),
        ("src/lib.rs", "pub fn parse(text: &str) -> usize {\n    text.len()\n}\n\n#[cfg(feature = \"alloc\")]\npub fn owned() -> u8 {\n    \"not a byte\"\n}\n"),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhumanish = { path = \"..\" }\n",
        ),
        ("downstream/src/main.rs", "fn main() {\n    let parsed: u32 = humanish::parse(\"1s\");\n    println!(\"{parsed}\");\n}\n"),
    ]);
    // Ground truth: cargo refuses the root's feature in the dependent crate; its own check fails
    // with E0308, and the root's feature-gated code has an error of its own.
    let refused = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--features", "alloc"], &[]);
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("does not contain this feature: alloc"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let downstream = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]);
    assert!(String::from_utf8_lossy(&downstream.stderr).contains("error[E0308]"), "{}", String::from_utf8_lossy(&downstream.stderr));
    let root = support::cargo_by_hand(dir.path(), &["check", "--offline", "--features", "alloc"], &[]);
    assert!(String::from_utf8_lossy(&root.stderr).contains("error[E0308]"), "{}", String::from_utf8_lossy(&root.stderr));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*", "features": ["alloc"]}));
    assert!(text.contains("downstream/src/main.rs:2: error[E0308]"), "the dependent crate was not checked:\n{text}");
    assert!(text.contains("src/lib.rs:7: error[E0308]"), "the root's feature was not enabled:\n{text}");
    assert!(text.contains("left out for it: `alloc` (`downstream` declares no such feature)"), "{text}");
    assert!(!text.contains("NOT checked: downstream"), "{text}");
    assert!(text.starts_with("project check: 2 errors"), "{text}");
}

/// Trial 95 M1, trial 99 M1 (hex 0.4.3, indexmap 2.2.6): one write that edits a file of the
/// library and one of its `downstream/` crate read the downstream file as "changed outside the
/// tools" (or the library's pre-write state as half-applied), so the errors it introduced in
/// the library were "NOT known to be new".
#[test]
fn a_write_to_the_library_and_its_dependent_crate_knows_its_errors_are_new() {
    let test = "lsp_trial87::a_write_to_the_library_and_its_dependent_crate_knows_its_errors_are_new";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"humanish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "mod other;\n\npub fn parse(text: &str) -> usize {\n    text.len()\n}\n"),
        ("src/other.rs", "pub fn twice(text: &str) -> usize {\n    crate::parse(text) * 2\n}\n"),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhumanish = { path = \"..\" }\n",
        ),
        ("downstream/src/main.rs", "fn main() {\n    println!(\"{}\", humanish::parse(\"1s\"));\n}\n"),
    ]);
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]).status.success());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // Both crates' servers running, as after a first look at each.
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "downstream/src/main.rs"}));
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn parse(text: &str) -> usize {\n+pub fn parse_text(text: &str) -> usize {\n*** Update File: downstream/src/main.rs\n@@\n-    println!(\"{}\", humanish::parse(\"1s\"));\n+    println!(\"{}\", humanish::parse_text(\"1s\"));\n*** End Patch\n";
    let text = support::call_ok(&run, "apply_patch", json!({"patch": patch}));
    assert!(text.contains("src/other.rs:2: error[E0425]"), "{text}");
    // (A check of the library still running when the write lands — its second initial check,
    // on a loaded machine — is a true reason for "not known to be new".)
    if !text.contains("cargo check was running or due when this write reached the disk, so errors may come from this write or from a change made while it ran") {
        assert!(text.contains("this write introduced 1 new error in 1 file"), "{text}");
    }
    assert!(!text.contains("changed outside the tools"), "{text}");
    assert!(!text.contains("half-applied"), "{text}");
    assert!(!text.contains("no new errors in src/lib.rs or elsewhere"), "{text}");
    // Ground truth: the library no longer compiles, at the line named.
    let check = support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]);
    assert!(String::from_utf8_lossy(&check.stderr).contains("error[E0425]"), "{}", String::from_utf8_lossy(&check.stderr));
}
