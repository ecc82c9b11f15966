//! Wrong answers from the fresh-user trial 56 (@tanstack/virtual-core 3.10.8), against the real
//! tsserver and tsc, on fixtures of the same shape:
//! - F1: renaming a destructured parameter (`calculateRange({ …, scrollOffset })`) also renamed
//!   another function's parameter of the same name, reached through a shorthand `{ scrollOffset }`
//!   argument, and said the server's edit "missed references"; with a name that function uses,
//!   the build broke (TS2349) where the server's own edit compiles.
//!
//! Ground truth: tsserver's own rename locations and `tsc --noEmit` on the written project.

use crate::support;

use serde_json::json;

const TSCONFIG: (&str, &str) =
    ("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020"}, "include": ["src"]}"#);

const INDEX: &str = "export function calculateRange({\n  measurements,\n  outerSize,\n  scrollOffset,\n}: {\n  measurements: number[]\n  outerSize: number\n  scrollOffset: number\n}) {\n  return measurements.length + outerSize + scrollOffset\n}\n\nexport class Virtualizer {\n  compute = (measurements: number[], outerSize: number, scrollOffset: number) => {\n    return calculateRange({ measurements, outerSize, scrollOffset })\n  }\n}\n";

#[test]
fn a_destructured_parameter_rename_leaves_another_functions_local_passed_by_shorthand() {
    let test = "lsp_trial56::a_destructured_parameter_rename_leaves_another_functions_local_passed_by_shorthand";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[TSCONFIG, ("src/index.ts", INDEX)]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "the fixture compiles");
    let run = support::lsp_run_allowing_writes(dir.path());
    // `calculateRange` as the new name: renaming the other function's parameter too would make
    // its call `calculateRange(…)` call that parameter (TS2349).
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 4, "symbol": "scrollOffset", "new_name": "calculateRange"}),
    );
    let written = std::fs::read_to_string(dir.path().join("src/index.ts")).unwrap();
    assert!(written.contains("  scrollOffset: calculateRange,\n"), "{written}");
    assert!(written.contains("outerSize + calculateRange\n"), "{written}");
    assert!(written.contains("compute = (measurements: number[], outerSize: number, scrollOffset: number) =>"), "{written}\n{text}");
    assert!(written.contains("return calculateRange({ measurements, outerSize, scrollOffset })"), "{written}\n{text}");
    assert!(!text.contains("first edit missed references"), "{text}");
    assert!(
        text.contains("src/index.ts:15: return calculateRange({ measurements, outerSize, scrollOffset })"),
        "the shorthand is listed as the kept property:\n{text}"
    );
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "{text}");
}

/// M1: renaming a property of a class member's type literal (`range: { startIndex: number }`)
/// named `Virtualizer.startIndex`, a member that does not exist; the public change is
/// `Virtualizer.range.startIndex`. Ground truth: tsc, on a consumer that reads the old path.
#[test]
fn a_property_of_a_members_type_is_named_through_the_member() {
    let test = "lsp_trial56::a_property_of_a_members_type_is_named_through_the_member";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        TSCONFIG,
        ("package.json", r#"{"name": "@demo/virtual", "version": "1.0.0", "main": "dist/index.js", "types": "dist/index.d.ts"}"#),
        ("src/index.ts", "export class Virtualizer {\n  range: { startIndex: number; endIndex: number } | null = null\n\n  first(): number {\n    return this.range?.startIndex ?? 0\n  }\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 2, "symbol": "startIndex", "new_name": "first", "preview": true}),
    );
    let note = text
        .lines()
        .find(|line| line.starts_with("note: public API changed: src/index.ts:2 declares `startIndex`"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("a property in the type of `Virtualizer.range`, part of the exported class `Virtualizer`"), "{note}");
    assert!(note.contains("this rename changes `Virtualizer.range.startIndex` to `Virtualizer.range.first`"), "{note}");
    // Ground truth: a consumer reading `v.range.startIndex` breaks once it is renamed.
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    std::fs::write(
        dir.path().join("src/consumer.ts"),
        "import { Virtualizer } from './index'\nexport const start = (v: Virtualizer) => v.range?.startIndex\n",
    )
    .unwrap();
    let errors = support::tsc_error_locations(dir.path());
    assert_eq!(errors, vec!["src/consumer.ts:2: error[2339]".to_owned()], "{errors:?}");
}

/// M2 (google/btree 1.0.0): an `edit` that renames an exported method (`BTree.Has` →
/// `Contains`) that nothing in the module calls said only "no new errors"; a rename of it gives
/// a public-API note. Ground truth: `go doc`, which lists the package's exported surface.
#[test]
fn an_edit_that_drops_an_exported_go_method_says_the_public_api_changed() {
    let test = "lsp_trial56::an_edit_that_drops_an_exported_go_method_says_the_public_api_changed";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/btree\n\ngo 1.19\n"),
        ("btree.go", "package btree\n\n// BTree is a tree.\ntype BTree struct{ length int }\n\n// Has reports whether the tree holds key.\nfunc (t *BTree) Has(key int) bool {\n\treturn key < t.length\n}\n"),
        ("cmd/use/main.go", "package main\n\nimport \"example.com/btree\"\n\nfunc main() {\n\tprintln(new(btree.BTree).Has(1))\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let warm = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "btree.go"}));
    assert!(!warm.contains("error["), "{warm}");
    // The consumer is the outside code: moved out of the module, it is what breaks.
    std::fs::remove_dir_all(dir.path().join("cmd")).unwrap();
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "btree.go", "old_string": "func (t *BTree) Has(", "new_string": "func (t *BTree) Contains("}),
    );
    assert!(text.contains("no new errors"), "nothing in the module uses it (the case this test covers):\n{text}");
    assert!(
        text.contains(
            "note: public API changed: this write removed 1 exported name that the package `example.com/btree` exports: `BTree.Has`"
        ),
        "{text}"
    );
    // A private helper renamed is no public change.
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "btree.go", "old_string": "type BTree struct{ length int }", "new_string": "type BTree struct{ size int }"}),
    );
    assert!(!text.contains("public API changed"), "{text}");
}
