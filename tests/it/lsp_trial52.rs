//! Wrong answers from the fresh-user trial 52 (@tanstack/table-core 8.20.5), against the real
//! tsserver and tsc, on fixtures of the same shape:
//! - F1: a patch that moves a module and edits a module importing it: the errors the move caused
//!   in files that import that importer read "already present before this write" (their state
//!   before was taken after the move reached the server), or, when the patch fixed the imports,
//!   "resolved by this write" though the base was clean.
//! - F2: an `edit` that gives a member back a name (`getVal` → `getValue`, with another
//!   parameter type): the users of the new name were not checked (9 of tsc's 41 errors).
//!
//! - M8: a Rust module moved (`apply_patch` Move to) to a name no `mod` declares, and a new file
//!   written with a type error and no `mod`: the moved or written file read "no new errors"
//!   while nothing compiles it.
//!
//! Ground truth: `tsc --noEmit` on the written project, error by error; `cargo check` and
//! `rustc` for the Rust module tree.

use crate::support;

use runbound::Caller;
use serde_json::json;

fn assert_new_errors_are_tscs(text: &str, dir: &std::path::Path) {
    let block = support::assert_block_names_every_tsc_error(text, dir);
    assert!(!block.contains("already present before this write"), "the base was clean (tsc):\n{text}");
    assert!(!block.contains("resolved by this write"), "the base was clean (tsc):\n{text}");
}

const TSCONFIG: (&str, &str) = (
    "tsconfig.json",
    r#"{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "esnext", "moduleResolution": "bundler"}, "include": ["src"]}"#,
);

#[test]
fn a_move_with_an_importer_edit_counts_the_errors_of_the_importers_importers_as_new() {
    let test = "lsp_trial52::a_move_with_an_importer_edit_counts_the_errors_of_the_importers_importers_as_new";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        TSCONFIG,
        ("src/pagination.ts", "export interface PaginationInstance {\n  getPage(): number\n}\n"),
        ("src/types.ts", "import type { PaginationInstance } from './pagination'\n\nexport interface Table extends PaginationInstance {\n  id: string\n}\n"),
        ("src/selection.ts", "import type { Table } from './types'\n\nexport function page(table: Table): number {\n  return table.getPage()\n}\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "fixture not clean: {:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let patch = "*** Begin Patch\n*** Update File: src/pagination.ts\n*** Move to: src/features/pagination.ts\n*** Update File: src/types.ts\n@@\n import type { PaginationInstance } from './pagination'\n+// moved pagination\n*** End Patch\n";
    let text = support::call_ok(&run, "apply_patch", json!({"patch": patch}));
    assert!(text.contains("src/selection.ts:4: error[2339]"), "selection.ts breaks through types.ts:\n{text}");
    assert_new_errors_are_tscs(&text, dir.path());
}

#[test]
fn a_member_given_back_its_name_by_an_edit_is_checked_where_that_name_is_used() {
    let test = "lsp_trial52::a_member_given_back_its_name_by_an_edit_is_checked_where_that_name_is_used";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    // fns.ts reaches `Row` through three modules: farther than the importer walk goes.
    let dir = support::workspace_with(&[
        TSCONFIG,
        ("src/row.ts", "export interface Row {\n  getValue: (columnId: string) => number\n}\n"),
        ("src/cell.ts", "import type { Row } from './row'\n\nexport interface Cell {\n  row: Row\n}\n"),
        ("src/table.ts", "import type { Cell } from './cell'\n\nexport interface Table {\n  cells: Cell[]\n}\n"),
        ("src/fns.ts", "import type { Table } from './table'\n\nexport const total = (table: Table, id: string): number => table.cells[0].row.getValue(id)\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "fixture not clean: {:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/row.ts", "old_string": "  getValue: (columnId: string)", "new_string": "  getVal: (columnId: string)"}),
    );
    assert_new_errors_are_tscs(&text, dir.path());
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/row.ts", "old_string": "  getVal: (columnId: string)", "new_string": "  getValue: (columnId: number)"}),
    );
    let errors = support::tsc_error_locations(dir.path());
    assert_eq!(errors, vec!["src/fns.ts:3: error[2345]".to_owned()], "ground truth");
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(block.contains("this write introduced 1 new error ") && block.contains("src/fns.ts:3: error[2345]"), "{text}");
    assert!(block.contains("the files that name the member name this write gave a member (`getValue`"), "{text}");
}

/// M7: renaming a field of a struct behind a `#[cfg(feature)]` that is off: rust-analyzer's
/// prepareRename says only "No references found at position"; the error says why and how to
/// check. Ground truth: the struct is compiled only with the feature on (`cargo check`).
#[test]
fn a_rename_in_code_behind_an_off_feature_says_why_it_cannot_be_done() {
    let test = "lsp_trial52::a_rename_in_code_behind_an_off_feature_says_why_it_cannot_be_done";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndrain = []\n\n[dependencies]\n"),
        ("src/lib.rs", "/// Always here.\npub fn len() -> usize {\n    1\n}\n\n/// Only with `drain`.\n#[cfg(feature = \"drain\")]\npub struct Drain {\n    /// The length before.\n    pub old_len: usize,\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "src/lib.rs", "line": 10, "symbol": "old_len", "new_name": "original_len"}));
    let text = result.joined_text();
    if !result.is_error {
        // A rust-analyzer that renames in inactive code is right too: nothing to explain.
        assert!(std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap().contains("original_len"), "{text}");
        return;
    }
    assert!(text.contains("#[cfg(feature = \"drain\")]") && text.contains("\"features\": [\"drain\"]"), "{text}");
}

/// M8: a file no `mod` declares is said not checked, with the `mod` to add; the rest of the
/// crate is still checked (the moved module's old `mod` line is a new error). Ground truth:
/// `cargo check` passes with the orphan's type error in it, and fails once it is declared.
#[test]
fn a_rust_file_no_module_declares_is_said_not_checked() {
    let test = "lsp_trial52::a_rust_file_no_module_declares_is_said_not_checked";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"orphans\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "mod helpers;\n\npub fn total(values: &[u32]) -> u32 {\n    helpers::sum(values)\n}\n"),
        ("src/helpers.rs", "pub fn sum(values: &[u32]) -> u32 {\n    values.iter().sum()\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "write",
        json!({"path": "src/orphan.rs", "content": "pub fn broken() -> u32 {\n    let x: u32 = \"text\";\n    x\n}\n"}),
    );
    let cargo_check =
        || std::process::Command::new("cargo").args(["check", "--quiet"]).current_dir(dir.path()).output().unwrap().status.success();
    assert!(cargo_check(), "cargo check compiles no orphan (the case this test covers)");
    assert!(
        text.contains(
            "src/orphan.rs: NOT checked: all of src/orphan.rs is not part of any crate's module tree: no `mod orphan;` declares it"
        ),
        "{text}"
    );
    assert!(text.contains("next step: add `mod orphan;` (or `pub mod orphan;`) to src/lib.rs"), "{text}");
    assert!(!text.contains("no new errors in src/orphan.rs"), "{text}");
    // The move: the new file is not checked, the old `mod` line's error is new.
    let patch = "*** Begin Patch\n*** Update File: src/helpers.rs\n*** Move to: src/util.rs\n@@\n pub fn sum(values: &[u32]) -> u32 {\n-    values.iter().sum()\n+    let y: u32 = \"no\";\n+    values.iter().sum::<u32>() + y\n }\n*** End Patch";
    let text = support::call_ok(&run, "apply_patch", json!({"patch": patch}));
    assert!(text.contains("src/util.rs: NOT checked: all of src/util.rs is not part of any crate's module tree"), "{text}");
    assert!(text.contains("src/lib.rs:1: error[E0583]"), "{text}");
    assert!(text.contains("; NOT checked: src/util.rs (is not built by rust-analyzer"), "{text}");
    assert!(!text.contains("nothing is known about errors after this write"), "{text}");
    // Declared, the orphan's error is the compiler's.
    std::fs::write(dir.path().join("src/lib.rs"), "mod orphan;\n").unwrap();
    assert!(!cargo_check(), "declared, the orphan's type error fails cargo check");
}
