//! Wrong answers from the fresh-user trial 155 (indexmap 2.14.2), against the real rust-analyzer
//! and cargo, on a fixture of the same shape (`std`'s `HashMap` in place of the `equivalent`
//! crate's `Equivalent`: both are another crate's item, which rust-analyzer renames only as
//! exported, `pub use … as NewName;`):
//! - F1: the preview called all 51 uses "rightly" left, while 6 `use crate::Equivalent` /
//!   `use super::{…, Equivalent}` imports reach the item through the renamed export: E0432 (2 of
//!   them through a parent module's own `use crate::Equivalent`).
//! - F2: the advice to keep the old name, `pub use equivalent::Equiv as Equivalent;`, names an
//!   item that does not exist (E0432).
//!
//! Ground truth: `cargo check --all-targets` by hand.

use crate::support;

use serde_json::json;

const FILES: [(&str, &str); 6] = [
    ("Cargo.toml", "[package]\nname = \"reexp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    (
        "src/lib.rs",
        "pub use std::collections::HashMap;\n\nmod inner;\npub mod table;\n\npub fn make() -> HashMap<String, u32> {\n    table::fill(HashMap::new())\n}\n",
    ),
    (
        "src/table.rs",
        "use crate::{inner::double, HashMap};\n\npub fn fill(mut map: HashMap<String, u32>) -> HashMap<String, u32> {\n    map.insert(\"a\".to_owned(), double(1));\n    map\n}\n",
    ),
    (
        "src/inner/mod.rs",
        "use super::{\n    HashMap,\n};\n\nmod deep;\n\npub fn double(x: u32) -> u32 {\n    let _unused: Option<HashMap<u8, u8>> = None;\n    x * deep::two()\n}\n",
    ),
    // Reaches the item through its parent module's import of the export.
    ("src/inner/deep.rs", "use super::HashMap;\n\npub fn two() -> u32 {\n    HashMap::<u8, u8>::new().len() as u32 + 2\n}\n"),
    (
        "tests/use_it.rs",
        "use reexp::HashMap;\n\n#[test]\nfn fills() {\n    let map: HashMap<String, u32> = reexp::make();\n    assert_eq!(map[\"a\"], 2);\n}\n",
    ),
];

/// Replaces the first `from` in the fixture file `path` with `to` (the advice followed by hand);
/// `from` must be there.
fn replace_once(dir: &std::path::Path, path: &str, from: &str, to: &str) {
    let file = dir.join(path);
    let before = std::fs::read_to_string(&file).unwrap();
    assert!(before.contains(from), "{path}: {before}");
    std::fs::write(&file, before.replacen(from, to, 1)).unwrap();
}

fn cargo_check_errors(dir: &std::path::Path) -> String {
    let checked = support::cargo_by_hand(dir, &["check", "--all-targets", "--offline", "--message-format=short"], &[]);
    String::from_utf8_lossy(&checked.stderr).into_owned()
}

#[test]
fn imports_through_a_renamed_export_of_another_crates_item_are_a_warning_and_the_advice_compiles() {
    let test = "lsp_trial155_reexport::imports_through_a_renamed_export_of_another_crates_item_are_a_warning_and_the_advice_compiles";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&FILES);
    assert!(!cargo_check_errors(dir.path()).contains("error"), "the fixture builds");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 1, "symbol": "HashMap", "new_name": "Map", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("+pub use std::collections::HashMap as Map;"), "rust-analyzer renames the export only:\n{text}");
    assert!(
        text.contains("WARNING: 4 paths name `HashMap` through the module whose export this rename changes to `HashMap as Map` (src/lib.rs:1) — src/inner/deep.rs:1, src/inner/mod.rs:2, src/table.rs:1, tests/use_it.rs:1:"),
        "{text}"
    );
    assert!(text.contains("left unrenamed, rightly: 5 uses of the binding `HashMap`"), "the other uses stay rightly left:\n{text}");
    assert!(text.contains("to keep it, keep the old export beside the new one: `pub use std::collections::HashMap;`"), "{text}");
    // Ground truth: accepted, the paths fail to resolve (the test target's once the library builds).
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let errors = cargo_check_errors(dir.path());
    for at in ["src/inner/mod.rs:2:", "src/table.rs:1:"] {
        assert!(errors.contains(at) && errors.contains("E0432"), "{at} missing in:\n{errors}");
    }
    // rustc names `deep.rs`'s import once its parent's import resolves without the old name.
    let inner = dir.path().join("src/inner/mod.rs");
    let inner_text = std::fs::read_to_string(&inner).unwrap();
    std::fs::write(&inner, inner_text.replace("    HashMap,\n", "    Map as Table,\n").replace("HashMap<u8, u8>", "Table<u8, u8>"))
        .unwrap();
    let errors = cargo_check_errors(dir.path());
    assert!(errors.contains("src/inner/deep.rs:1:") && errors.contains("E0432"), "{errors}");
    std::fs::write(&inner, inner_text).unwrap();
    // The advice, followed, builds again (the library first: the test target needs it).
    let lib = dir.path().join("src/lib.rs");
    let renamed = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("pub use std::collections::HashMap;\n{renamed}")).unwrap();
    let errors = cargo_check_errors(dir.path());
    assert!(!errors.contains("error"), "{errors}");
}

/// Recheck46 NEW-2 and NEW-3: a glob import through the renamed export (`use reexp::*;` then
/// `HashMap<…>`) breaks as the paths do (E0405/E0412, filed as "rightly left" before), and the
/// advice names only the paths that name the export's module itself: `src/inner/deep.rs`'s
/// `use super::HashMap` reaches it through `src/inner/mod.rs`'s import and resolves again once
/// that import keeps the local name (changing it too gave E0432 at `super::Map`).
#[test]
fn a_glob_import_through_a_renamed_export_is_counted_and_the_advice_changes_only_direct_paths() {
    let test = "lsp_trial155_reexport::a_glob_import_through_a_renamed_export_is_counted_and_the_advice_changes_only_direct_paths";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let mut files: Vec<(&str, &str)> = FILES.to_vec();
    files.push((
        "tests/glob_it.rs",
        "use reexp::*;\n\n#[test]\nfn globbed() {\n    let map: HashMap<String, u32> = make();\n    assert_eq!(map.len(), 1);\n}\n",
    ));
    let dir = support::workspace_with(&files);
    assert!(!cargo_check_errors(dir.path()).contains("error"), "the fixture builds");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 1, "symbol": "HashMap", "new_name": "Map", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("WARNING: 4 paths name `HashMap` through the module whose export this rename changes to `HashMap as Map` (src/lib.rs:1) — src/inner/deep.rs:1, src/inner/mod.rs:2, src/table.rs:1, tests/use_it.rs:1; and 1 glob import brings `HashMap` to 1 bare use through tests/glob_it.rs:1 `use reexp::*;`:"),
        "{text}"
    );
    assert!(
        text.contains("change the 3 paths that name the export's module itself (src/inner/mod.rs:2, src/table.rs:1, tests/use_it.rs:1) to `Map` (keeping the local name with `Map as HashMap` in a `use`) — the 1 other reaches `HashMap` only through those modules' imports"),
        "{text}"
    );
    assert!(
        text.contains("add `use reexp::Map as HashMap;` beside tests/glob_it.rs:1, or keep the old export beside the new one"),
        "{text}"
    );
    // Ground truth: accepted, then the advice followed on the 3 direct paths and the glob only,
    // cargo builds.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let edit = |path: &str, from: &str, to: &str| replace_once(dir.path(), path, from, to);
    edit("src/inner/mod.rs", "    HashMap,\n", "    Map as HashMap,\n");
    edit("src/table.rs", "HashMap}", "Map as HashMap}");
    edit("tests/use_it.rs", "use reexp::HashMap;", "use reexp::Map as HashMap;");
    // Before the glob use is changed, rustc names it once the library builds.
    let errors = cargo_check_errors(dir.path());
    assert!(errors.contains("tests/glob_it.rs:5:"), "the glob use breaks:\n{errors}");
    edit("tests/glob_it.rs", "use reexp::*;\n", "use reexp::*;\nuse reexp::Map as HashMap;\n");
    let errors = cargo_check_errors(dir.path());
    assert!(!errors.contains("error"), "the advice builds, src/inner/deep.rs unchanged:\n{errors}");
}

/// Review47 M1: a module that re-exports the renamed export by a glob of its own (`pub use
/// inner::*;` in lib.rs) passes the break on: `use reexp::HashMap;` in a test crate and the bare
/// uses under `use reexp::*;` reach the item through it (E0432/E0412 once accepted), and were
/// filed as "rightly left" before. Each is mended as a path through the export's own module is.
#[test]
fn a_glob_reexport_of_a_renamed_export_passes_the_break_on_and_the_advice_compiles() {
    let test = "lsp_trial155_reexport::a_glob_reexport_of_a_renamed_export_passes_the_break_on_and_the_advice_compiles";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let files: [(&str, &str); 5] = [
        ("Cargo.toml", "[package]\nname = \"reexp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/inner.rs", "pub use std::collections::HashMap;\n"),
        (
            "src/lib.rs",
            "mod inner;\npub use inner::*;\n\npub fn make() -> HashMap<String, u32> {\n    let mut map = HashMap::new();\n    map.insert(\"a\".to_owned(), 2);\n    map\n}\n",
        ),
        (
            "tests/use_it.rs",
            "use reexp::HashMap;\n\n#[test]\nfn made() {\n    let map: HashMap<String, u32> = reexp::make();\n    assert_eq!(map[\"a\"], 2);\n}\n",
        ),
        (
            "tests/glob_it.rs",
            "use reexp::*;\n\n#[test]\nfn globbed() {\n    let map: HashMap<String, u32> = make();\n    assert_eq!(map.len(), 1);\n}\n",
        ),
    ];
    let dir = support::workspace_with(&files);
    assert!(!cargo_check_errors(dir.path()).contains("error"), "the fixture builds");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "src/inner.rs", "line": 1, "symbol": "HashMap", "new_name": "Map", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("+pub use std::collections::HashMap as Map;"), "rust-analyzer renames the export only:\n{text}");
    assert!(text.contains("left unrenamed: 1 path that names `HashMap` through the renamed export"), "{text}");
    assert!(
        text.contains("left unrenamed, rightly: 1 use of the binding `HashMap`") && text.contains("tests/use_it.rs:5:"),
        "only the use under the test's own import (kept with `Map as HashMap`) is rightly left:\n{text}"
    );
    assert!(
        text.contains("WARNING: 1 path names `HashMap` through the module whose export this rename changes to `HashMap as Map` (src/inner.rs:1) or a module re-exporting it by a glob (src/lib.rs) — tests/use_it.rs:1; and 2 glob imports bring `HashMap` to 3 bare uses through src/lib.rs:2 `pub use inner::*;`, tests/glob_it.rs:1 `use reexp::*;`:"),
        "{text}"
    );
    assert!(
        text.contains("add `use inner::Map as HashMap;` beside src/lib.rs:2, `use reexp::Map as HashMap;` beside tests/glob_it.rs:1"),
        "{text}"
    );
    // Ground truth: accepted, every one of them fails; the advice followed, cargo builds.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let edit = |path: &str, from: &str, to: &str| replace_once(dir.path(), path, from, to);
    let errors = cargo_check_errors(dir.path());
    assert!(errors.contains("src/lib.rs:4:"), "the library's bare use breaks:\n{errors}");
    edit("src/lib.rs", "pub use inner::*;\n", "pub use inner::*;\nuse inner::Map as HashMap;\n");
    let errors = cargo_check_errors(dir.path());
    for at in ["tests/use_it.rs:1:", "tests/glob_it.rs:5:"] {
        assert!(errors.contains(at), "{at} missing in:\n{errors}");
    }
    edit("tests/use_it.rs", "use reexp::HashMap;", "use reexp::Map as HashMap;");
    edit("tests/glob_it.rs", "use reexp::*;\n", "use reexp::*;\nuse reexp::Map as HashMap;\n");
    let errors = cargo_check_errors(dir.path());
    assert!(!errors.contains("error"), "the advice builds:\n{errors}");
}

/// Recheck48: a multi-line glob `use reexp::{\n    *,\n};` is said at its statement's first
/// line, where an added `use` compiles (the `*,` line is inside the braces).
#[test]
fn a_multi_line_glob_import_is_said_at_its_statements_first_line() {
    let test = "lsp_trial155_reexport::a_multi_line_glob_import_is_said_at_its_statements_first_line";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let mut files: Vec<(&str, &str)> = FILES.to_vec();
    files.push((
        "tests/glob_it.rs",
        "use reexp::{\n    *,\n};\n\n#[test]\nfn globbed() {\n    let map: HashMap<String, u32> = make();\n    assert_eq!(map.len(), 1);\n}\n",
    ));
    let dir = support::workspace_with(&files);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 1, "symbol": "HashMap", "new_name": "Map", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("1 glob import brings `HashMap` to 1 bare use through tests/glob_it.rs:1 `use reexp::{`"), "{text}");
    assert!(text.contains("add `use reexp::Map as HashMap;` beside tests/glob_it.rs:1"), "{text}");
}
