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

/// trial157 M3: gopls renames a package by text edits in the old paths and a `RenameFile` of its
/// directory. The directory moves as the renames of every file beneath it — a subdirectory, a
/// file that is not UTF-8 and an executable's mode included — in one commit, the edits made
/// before the rename go with their files, and the emptied directories are removed.
#[test]
fn a_directory_rename_moves_every_file_beneath_it_with_its_edits_and_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = support::workspace_with(&[
        ("go.mod", "module fx\n"),
        ("old/a.go", "package old\n"),
        ("old/sub/gen.sh", "#!/bin/sh\n"),
        ("main.go", "package main\n\nimport \"fx/old\"\n"),
    ]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("old/sub/blob.bin"), [0xff_u8, 0xfe, 0x00, 0x80]).unwrap();
    std::fs::create_dir_all(root.join("old/testdata/empty")).unwrap();
    std::fs::set_permissions(root.join("old/sub/gen.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let uri = |name: &str| format!("file://{}", root.join(name).display());
    let range =
        |line: u32, start: u32, end: u32| json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": end}});
    let edit = json!({"documentChanges": [
        {"textDocument": {"uri": uri("old/a.go"), "version": null}, "edits": [{"range": range(0, 8, 11), "newText": "new"}]},
        {"textDocument": {"uri": uri("main.go"), "version": null}, "edits": [{"range": range(2, 11, 14), "newText": "new"}]},
        {"kind": "rename", "oldUri": uri("old"), "newUri": uri("new")},
    ]});
    let plan = plan_workspace_edit(&root, None, &workspace_edit(edit.clone())).expect("plan");
    assert_eq!(plan.moved_directories.len(), 1, "{plan:?}");
    let listed: Vec<String> = plan
        .files
        .iter()
        .map(|file| crate::lsp::rename::planned_file_line(&crate::render::display_path(&root, &file.path), file))
        .collect();
    assert!(listed.contains(&"  old/a.go: moved to new/a.go".to_owned()), "{listed:?}");
    assert!(listed.contains(&"  new/a.go: 1 edit (renamed from old/a.go)".to_owned()), "{listed:?}");
    assert!(listed.contains(&"  new/sub/blob.bin: 0 edits (renamed from old/sub/blob.bin)".to_owned()), "{listed:?}");
    // Review46 #9: the answer says the directory once, and lists only its files with edits.
    let (grouped, structured) = crate::lsp::rename::planned_file_lines(&plan, &|path| crate::render::display_path(&root, path));
    assert_eq!(
        grouped,
        vec![
            "  old/ → new/: directory moved, 3 files (1 with edits, listed below)".to_owned(),
            "  main.go: 1 edit (modified)".to_owned(),
            "  new/a.go: 1 edit (renamed from old/a.go)".to_owned(),
        ],
        "{grouped:?}"
    );
    assert_eq!(structured.len(), 3, "{structured:?}");
    assert_eq!(structured[0].operation, "directory moved to new/ (3 files)");
    commit_workspace_edit(&root, &plan).expect("commit");
    // Review46 #10: an empty directory of the tree moves too.
    assert!(root.join("new/testdata/empty").is_dir(), "the empty directory is recreated under the new path");
    // A tree over the byte cap is refused before anything is read.
    let refused = crate::files::directory_tree_beneath(&root, &root.join("new"), 100, 8).expect_err("over the byte cap");
    assert!(
        refused.message.contains("new holds more than 8 bytes in its files") && refused.message.contains("nothing was changed"),
        "{}",
        refused.message
    );
    // Review47 L2: directories count against the cap too (`new`, `new/sub`, `new/testdata`,
    // `new/testdata/empty`).
    let refused = crate::files::directory_tree_beneath(&root, &root.join("new"), 3, 1 << 30).expect_err("over the directory cap");
    assert!(
        refused.message.contains("new holds more than 3 directories") && refused.message.contains("nothing was changed"),
        "{}",
        refused.message
    );
    assert!(crate::files::directory_tree_beneath(&root, &root.join("new"), 4, 1 << 30).is_ok(), "4 directories, 3 files: within 4");
    assert_eq!(read(&root, "new/a.go"), "package new\n");
    assert_eq!(read(&root, "main.go"), "package main\n\nimport \"fx/new\"\n");
    assert_eq!(std::fs::read(root.join("new/sub/blob.bin")).unwrap(), vec![0xff_u8, 0xfe, 0x00, 0x80]);
    let mode = std::fs::metadata(root.join("new/sub/gen.sh")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
    assert!(!root.join("old").exists(), "the emptied directory stays");
    // Onto an existing directory, or a tree holding a symlink: refused, nothing changed.
    std::fs::create_dir_all(root.join("old")).unwrap();
    std::fs::write(root.join("old/a.go"), "package old\n").unwrap();
    let onto = json!({"documentChanges": [{"kind": "rename", "oldUri": uri("old"), "newUri": uri("new")}]});
    let refused = plan_workspace_edit(&root, None, &workspace_edit(onto)).expect_err("onto an existing directory");
    assert!(refused.message.contains("which already exists; nothing was changed"), "{}", refused.message);
    std::os::unix::fs::symlink("a.go", root.join("old/link.go")).unwrap();
    let with_link = json!({"documentChanges": [{"kind": "rename", "oldUri": uri("old"), "newUri": uri("other")}]});
    let refused = plan_workspace_edit(&root, None, &workspace_edit(with_link)).expect_err("a symlink in the tree");
    assert!(
        refused.message.contains("holds a symlink, old/link.go") && refused.message.contains("nothing was changed"),
        "{}",
        refused.message
    );
}
