//! Unit tests of the WorkspaceEdit planner and atomic applier (`rename.rs`), moved from
//! `tests/it/lsp_rename.rs` (which renames through real servers via the `lsp_rename` tool):
//! a stale plan, overlapping edits, and `documentChanges` with file operations.

use std::path::Path;

use serde_json::json;

use crate::test_support as support;

use super::rename::{commit_workspace_edit, plan_workspace_edit};

/// A `WorkspaceEdit` as a server sends it, decoded like a server's answer.
fn workspace_edit(json: serde_json::Value) -> lsp_types::WorkspaceEdit {
    serde_json::from_value(json).expect("a WorkspaceEdit")
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|err| panic!("read {file}: {err}"))
}

#[test]
fn a_file_changed_between_edit_and_apply_is_rejected() {
    let dir = support::workspace_with(&[("a.py", "foo = 1\n"), ("b.py", "print(foo)\n")]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let uri = |name: &str| format!("file://{}", root.join(name).display());
    let edit = json!({"changes": {
        uri("a.py"): [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "newText": "bar"}],
        uri("b.py"): [{"range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 9}}, "newText": "bar"}],
    }});
    let plan = plan_workspace_edit(&root, None, &workspace_edit(edit)).expect("plan");
    std::fs::write(root.join("b.py"), "print(foo)  # edited meanwhile\n").unwrap();
    let err = commit_workspace_edit(&root, &plan).expect_err("stale plan must be rejected");
    assert_eq!(err.kind, runbound::ErrorKind::Conflict, "{}", err.message);
    assert_eq!(read(&root, "a.py"), "foo = 1\n");
    assert_eq!(read(&root, "b.py"), "print(foo)  # edited meanwhile\n");
    // Overlapping edits are rejected before anything is read for writing.
    let overlapping = json!({"changes": {uri("a.py"): [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "newText": "x"},
        {"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 5}}, "newText": "y"}]}});
    assert!(plan_workspace_edit(&root, None, &workspace_edit(overlapping)).unwrap_err().message.contains("overlap"));
    // documentChanges with create + rename file operations, applied together.
    let ops = json!({"documentChanges": [
        {"kind": "create", "uri": uri("new.py")},
        {"textDocument": {"uri": uri("new.py"), "version": null}, "edits": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": "x = 2\n"}]},
        {"kind": "rename", "oldUri": uri("a.py"), "newUri": uri("c.py")},
    ]});
    let plan = plan_workspace_edit(&root, None, &workspace_edit(ops)).expect("plan ops");
    commit_workspace_edit(&root, &plan).expect("commit ops");
    assert_eq!(read(&root, "new.py"), "x = 2\n");
    assert_eq!(read(&root, "c.py"), "foo = 1\n");
    assert!(!root.join("a.py").exists());
}
