//! The runner's file tools through the whole registry pipeline: `read`, `write`, `edit`,
//! `apply_patch` (both formats), workspace confinement on every path argument, atomic and
//! all-or-nothing writes, and `commit_file_changes` conflict detection.

use crate::support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use runbound::files::{commit_file_changes, ExpectedState, FileChange};
use runbound::registry::PostWriteLayer;
use runbound::{Approval, ApprovalPolicy, CallContext, Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

/// A workspace inside a parent temp dir, with `outside/` next to it for escape attempts.
struct Fixture {
    _parent: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    written: Arc<Mutex<Vec<PathBuf>>>,
    run: Run,
}

struct RecordWrites(Arc<Mutex<Vec<PathBuf>>>);

impl PostWriteLayer for RecordWrites {
    fn after_write(&self, _ctx: &CallContext<'_>, written_paths: &[PathBuf], _result: &mut ToolResult) {
        self.0.lock().extend_from_slice(written_paths);
    }
}

fn fixture(files: &[(&str, &str)]) -> Fixture {
    fixture_with_config(files, RunConfig::default())
}

fn fixture_with_config(files: &[(&str, &str)], config: RunConfig) -> Fixture {
    let parent = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(parent.path()).unwrap();
    let root = base.join("workspace");
    let outside = base.join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    for (relative, content) in files {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
    let written = Arc::new(Mutex::new(Vec::new()));
    let run = Run::builder(&root)
        .config(config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .post_write_layer(Arc::new(RecordWrites(written.clone())))
        .build()
        .unwrap();
    Fixture { _parent: parent, root, outside, written, run }
}

impl Fixture {
    fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.run.call(Caller::Main, tool, arguments)
    }

    fn ok(&self, tool: &str, arguments: Value) -> ToolResult {
        let result = self.call(tool, arguments.clone());
        assert!(!result.is_error, "{tool} {arguments} failed: {}", result.joined_text());
        result
    }

    fn err(&self, tool: &str, arguments: Value) -> (String, String) {
        let result = self.call(tool, arguments.clone());
        assert!(result.is_error, "{tool} {arguments} should fail, got: {}", result.joined_text());
        let kind = result.structured_content.as_ref().unwrap()["error"]["kind"].as_str().unwrap().to_owned();
        (kind, result.joined_text())
    }

    fn read_file(&self, relative: &str) -> String {
        fs::read_to_string(self.root.join(relative)).unwrap()
    }

    fn take_written(&self) -> Vec<PathBuf> {
        std::mem::take(&mut *self.written.lock())
    }
}

/// Every entry under `dir`: relative path → (kind, bytes or link target, mode).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (char, Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let metadata = fs::symlink_metadata(&path).unwrap();
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            let mode = metadata.permissions().mode();
            if metadata.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.insert(relative, ('l', target.into_os_string().into_encoded_bytes(), mode));
            } else if metadata.is_dir() {
                out.insert(relative, ('d', Vec::new(), mode));
                stack.push(path);
            } else {
                out.insert(relative, ('f', fs::read(&path).unwrap(), mode));
            }
        }
    }
    out
}

fn text_of(result: &ToolResult) -> String {
    result.joined_text()
}

// ---------------------------------------------------------------------------------------------
// Confinement

#[test]
fn every_path_escape_form_is_refused_by_every_file_tool() {
    let fx = fixture(&[("inside.txt", "inside\n"), ("src/a.txt", "a\n")]);
    symlink(&fx.outside, fx.root.join("link_out")).unwrap();
    symlink(fx.outside.join("missing.txt"), fx.root.join("dangling_out")).unwrap();
    symlink(fx.outside.join("secret.txt"), fx.root.join("file_link_out")).unwrap();
    symlink("../outside", fx.root.join("relative_link_out")).unwrap();
    let outside_absolute = fx.outside.join("secret.txt").display().to_string();
    let escapes = [
        "../outside/secret.txt".to_owned(),
        "src/../../outside/secret.txt".to_owned(),
        outside_absolute,
        "/etc/passwd".to_owned(),
        "link_out/secret.txt".to_owned(),
        "link_out/new_file.txt".to_owned(),
        "relative_link_out/secret.txt".to_owned(),
        "dangling_out".to_owned(),
        "file_link_out".to_owned(),
    ];
    let inside_before = snapshot(&fx.root);
    let outside_before = snapshot(&fx.outside);
    for escape in &escapes {
        let mut attempts: Vec<(&str, Value)> = vec![
            ("read", json!({"path": escape})),
            ("write", json!({"path": escape, "content": "pwned\n"})),
            ("edit", json!({"path": escape, "old_string": "secret", "new_string": "pwned"})),
        ];
        let patches = [
            format!("*** Begin Patch\n*** Add File: {escape}\n+pwned\n*** End Patch"),
            format!("*** Begin Patch\n*** Update File: {escape}\n@@\n-secret\n+pwned\n*** End Patch"),
            format!("*** Begin Patch\n*** Delete File: {escape}\n*** End Patch"),
            // Move source outside, destination inside.
            format!("*** Begin Patch\n*** Update File: {escape}\n*** Move to: stolen.txt\n@@\n-secret\n+pwned\n*** End Patch"),
            // Move source inside, destination outside.
            format!("*** Begin Patch\n*** Update File: inside.txt\n*** Move to: {escape}\n@@\n-inside\n+moved\n*** End Patch"),
            // A good first section does not sneak through when a later one escapes.
            format!("*** Begin Patch\n*** Add File: fine.txt\n+fine\n*** Add File: {escape}\n+pwned\n*** End Patch"),
            format!("--- /dev/null\n+++ {escape}\n@@ -0,0 +1 @@\n+pwned\n"),
            format!("--- {escape}\n+++ {escape}\n@@ -1 +1 @@\n-secret\n+pwned\n"),
        ];
        for patch in &patches {
            attempts.push(("apply_patch", json!({"patch": patch})));
        }
        for (tool, arguments) in attempts {
            let (kind, text) = fx.err(tool, arguments.clone());
            assert_eq!(kind, "outside_workspace", "{tool} {arguments}: {text}");
            assert!(text.contains("outside the workspace"), "{tool} {arguments}: {text}");
        }
    }
    assert_eq!(snapshot(&fx.root), inside_before, "the workspace changed");
    assert_eq!(snapshot(&fx.outside), outside_before, "a file outside the workspace changed");
    assert!(fx.take_written().is_empty());
    // The symlink is named in the error.
    let (_, text) = fx.err("read", json!({"path": "link_out/secret.txt"}));
    assert!(text.contains("through the symlink link_out ->"), "{text}");
}

#[test]
fn symlinks_inside_the_workspace_work_and_results_use_relative_paths() {
    let fx = fixture(&[("src/real.txt", "one\n")]);
    symlink("src", fx.root.join("alias")).unwrap();
    let text = text_of(&fx.ok("edit", json!({"path": "alias/real.txt", "old_string": "one", "new_string": "two"})));
    assert!(text.starts_with("edited src/real.txt: 1 replacement at line 1"), "{text}");
    assert!(fs::symlink_metadata(fx.root.join("alias")).unwrap().file_type().is_symlink(), "the symlink is kept");
    let absolute = fx.root.join("src/real.txt").display().to_string();
    assert!(text_of(&fx.ok("read", json!({"path": absolute}))).contains("1\ttwo"));
}

// ---------------------------------------------------------------------------------------------
// read

#[test]
fn read_numbers_lines_and_reads_ranges() {
    let fx = fixture(&[("a.txt", "alpha\nbeta\ngamma\ndelta\n")]);
    let result = fx.ok("read", json!({"path": "a.txt"}));
    assert_eq!(text_of(&result), "1\talpha\n2\tbeta\n3\tgamma\n4\tdelta");
    assert_eq!(result.structured_content.as_ref().unwrap()["total_lines"], 4);
    let result = fx.ok("read", json!({"path": "a.txt", "start_line": 2, "end_line": 3}));
    assert_eq!(text_of(&result), "2\tbeta\n3\tgamma\n[showing lines 2-3 of 4 in a.txt]");
    let text = text_of(&fx.ok("read", json!({"path": "a.txt", "start_line": 3, "end_line": 99})));
    assert!(text.starts_with("3\tgamma\n4\tdelta\n["), "{text}");
    assert!(text.contains("end_line 99 is past the end of the file (4 lines)"), "{text}");
    let (kind, text) = fx.err("read", json!({"path": "a.txt", "start_line": 9}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("start_line 9 is past the end of a.txt (4 lines)"), "{text}");
    let (kind, _) = fx.err("read", json!({"path": "a.txt", "start_line": 3, "end_line": 2}));
    assert_eq!(kind, "invalid_arguments");
    let (kind, _) = fx.err("read", json!({"path": "a.txt", "start_line": 0}));
    assert_eq!(kind, "invalid_arguments");
}

#[test]
fn read_caps_say_what_was_shown_and_how_to_continue() {
    let mut config = RunConfig::default();
    config.files.read_max_lines = 3;
    config.files.read_max_line_chars = 10;
    let long_line = "x".repeat(25);
    let body: String = (1..=10).map(|n| if n == 2 { format!("{long_line}\n") } else { format!("line {n}\n") }).collect();
    let fx = fixture_with_config(&[("big.txt", &body)], config);
    let result = fx.ok("read", json!({"path": "big.txt"}));
    let text = text_of(&result);
    assert!(text.starts_with("1\tline 1\n2\txxxxxxxxxx… [cut: showing 10 of 25 characters]\n3\tline 3\n"), "{text}");
    assert!(text.contains("showing 3 of 10 lines (lines 1-3 of 10 in big.txt)"), "{text}");
    assert!(text.contains("read returns at most 3 lines per call; continue with start_line 4"), "{text}");
    assert!(text.contains("1 line longer than 10 characters was cut"), "{text}");
    let structured = result.structured_content.unwrap();
    assert_eq!((structured["truncated"].clone(), structured["next_start_line"].clone()), (json!(true), json!(4)));
    let text = text_of(&fx.ok("read", json!({"path": "big.txt", "start_line": 8})));
    assert_eq!(text, "8\tline 8\n9\tline 9\n10\tline 10\n[showing lines 8-10 of 10 in big.txt]");

    let mut config = RunConfig::default();
    config.files.read_max_bytes = 30;
    let fx = fixture_with_config(&[("big.txt", &body)], config);
    let text = text_of(&fx.ok("read", json!({"path": "big.txt", "start_line": 3})));
    assert!(text.starts_with("3\tline 3\n4\tline 4\n5\tline 5\n["), "{text}");
    assert!(text.contains("showing 3 of 8 requested lines 3-10"), "{text}");
    assert!(text.contains("at most 30 bytes per call; continue with start_line 6"), "{text}");
}

#[test]
fn read_explains_empty_binary_directory_missing_and_crlf() {
    let fx = fixture(&[("empty.txt", ""), ("dir/one.rs", "1\n"), ("dir/two.rs", "2\n"), ("crlf.txt", "a\r\nb\r\n")]);
    fs::write(fx.root.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    assert_eq!(text_of(&fx.ok("read", json!({"path": "empty.txt"}))), "empty.txt is empty (0 bytes)");
    let (kind, text) = fx.err("read", json!({"path": "image.png"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("image.png is a binary file (16 bytes, PNG image)"), "{text}");
    let (kind, text) = fx.err("read", json!({"path": "dir"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("dir is a directory, not a file; it holds 2 entries: one.rs, two.rs"), "{text}");
    assert!(text.contains("e.g. dir/one.rs"), "{text}");
    let (kind, text) = fx.err("read", json!({"path": "dir/ones.rs"}));
    assert_eq!(kind, "not_found");
    assert!(text.contains("no file dir/ones.rs") && text.contains("did you mean one of these in dir: one.rs"), "{text}");
    let result = fx.ok("read", json!({"path": "crlf.txt"}));
    assert_eq!(text_of(&result), "1\ta\n2\tb");
    assert_eq!(result.structured_content.unwrap()["line_ending"], "crlf");
}

#[test]
fn read_is_visible_to_read_only_callers_and_writers_are_not() {
    let fx = fixture(&[("a.txt", "a\n")]);
    for caller in [Caller::Plan, Caller::Readonly] {
        let names: Vec<String> = fx.run.tools(caller).iter().map(|tool| tool.name.clone()).collect();
        assert!(names.contains(&"read".to_owned()), "{names:?}");
        for writer in ["write", "edit", "apply_patch"] {
            assert!(!names.contains(&writer.to_owned()), "{writer} visible to {caller}");
            let result = fx.run.call(caller, writer, json!({"path": "a.txt", "content": "x"}));
            assert!(result.is_error);
        }
    }
    assert_eq!(fx.read_file("a.txt"), "a\n");
}

// ---------------------------------------------------------------------------------------------
// write

#[test]
fn write_creates_parents_reports_and_feeds_the_post_write_layer() {
    let fx = fixture(&[("old.txt", "1\n2\n")]);
    let result = fx.ok("write", json!({"path": "deep/er/new.rs", "content": "fn main() {}\n// end\n"}));
    assert_eq!(text_of(&result), "wrote deep/er/new.rs (2 lines, 20 bytes; created)");
    assert_eq!(result.structured_content.unwrap()["action"], "created");
    assert_eq!(fx.read_file("deep/er/new.rs"), "fn main() {}\n// end\n");
    assert_eq!(fx.take_written(), vec![fx.root.join("deep/er/new.rs")]);
    let text = text_of(&fx.ok("write", json!({"path": "old.txt", "content": "only\n"})));
    assert_eq!(text, "wrote old.txt (1 line, 5 bytes; replaced 2 lines)");
    let text = text_of(&fx.ok("write", json!({"path": "old.txt", "content": "only\n"})));
    assert!(text.starts_with("old.txt unchanged"), "{text}");
    assert!(fx.take_written().len() == 1, "an unchanged write reports no written path");
    let (kind, text) = fx.err("write", json!({"path": "deep", "content": "x"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("deep is a directory"), "{text}");
}

/// Trial173 M8: writes to golang.org/x/exp's generated `zsortfunc.go` said nothing of the
/// `// Code generated by gen_sort_variants.go; DO NOT EDIT.` header; the next `go generate`
/// replaces them. Every writing tool says so now; a hand-written file gets no note.
#[test]
fn writes_to_generated_files_say_the_generator_replaces_them() {
    let header = "// Code generated by gen_sort_variants.go; DO NOT EDIT.";
    let fx = fixture(&[
        ("slices/zsortfunc.go", &format!("{header}\n\npackage slices\n\nfunc insertionSortLessFunc() {{}}\n")),
        ("proto/a_pb2.py", "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\nNAME = 'a'\n"),
        ("slices/slices.go", "package slices\n\nfunc Index() {}\n"),
    ]);
    let expected = format!("slices/zsortfunc.go (line 1: `{header}`)");
    let edited = text_of(
        &fx.ok("edit", json!({"path": "slices/zsortfunc.go", "old_string": "insertionSortLessFunc", "new_string": "insertionSortCmpFunc"})),
    );
    assert!(edited.contains("note: generated code written — this file is made by a generator"), "{edited}");
    assert!(edited.contains(&expected), "{edited}");
    assert!(edited.contains("edit the generator or its input (the header names it) and regenerate"), "{edited}");
    let patched = text_of(&fx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: slices/zsortfunc.go\n@@\n-package slices\n+package slices // sorted\n*** Update File: slices/slices.go\n@@\n-func Index() {}\n+func Index() int { return 0 }\n*** End Patch\n"}),
    ));
    assert!(patched.contains(&expected) && !patched.contains("slices/slices.go (line"), "{patched}");
    let hand_written = text_of(&fx.ok("edit", json!({"path": "slices/slices.go", "old_string": "Index", "new_string": "IndexOf"})));
    assert!(!hand_written.contains("generated code"), "{hand_written}");
    // "DO NOT EDIT" in a comment among the first lines counts (protobuf's Python header).
    let proto = text_of(&fx.ok("edit", json!({"path": "proto/a_pb2.py", "old_string": "'a'", "new_string": "'b'"})));
    assert!(proto.contains("proto/a_pb2.py (line 2: `# Generated by the protocol buffer compiler.  DO NOT EDIT!`)"), "{proto}");
}

#[test]
fn write_edit_and_patch_keep_permissions() {
    let fx = fixture(&[("run.sh", "#!/bin/sh\necho one\n")]);
    let script = fx.root.join("run.sh");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o751)).unwrap();
    fx.ok("edit", json!({"path": "run.sh", "old_string": "one", "new_string": "two"}));
    assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o7777, 0o751);
    fx.ok("write", json!({"path": "run.sh", "content": "#!/bin/sh\necho three\n"}));
    assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o7777, 0o751);
    fx.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: run.sh\n@@\n-echo three\n+echo four\n*** End Patch"}));
    assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o7777, 0o751);
    assert_eq!(fx.read_file("run.sh"), "#!/bin/sh\necho four\n");
    // Moves keep the mode too.
    fx.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n*** End Patch"}));
    assert_eq!(fs::metadata(fx.root.join("bin/run.sh")).unwrap().permissions().mode() & 0o7777, 0o751);
}

// ---------------------------------------------------------------------------------------------
// Read-only files (decided by the mode bits, also as root, which these tests usually run as)

fn make_read_only(path: &Path) {
    fs::set_permissions(path, fs::Permissions::from_mode(0o444)).unwrap();
}

#[test]
fn write_edit_and_patch_refuse_a_read_only_file_and_change_nothing() {
    let fx = fixture(&[("locked.txt", "value = 1\n"), ("free.txt", "value = 1\n")]);
    make_read_only(&fx.root.join("locked.txt"));
    let before = snapshot(&fx.root);
    let (kind, text) = fx.err("write", json!({"path": "locked.txt", "content": "replaced\n"}));
    assert_eq!(kind, "conflict", "{text}");
    assert!(text.contains("locked.txt (mode 0444) is read-only"), "{text}");
    assert!(text.contains("nothing was written") && text.contains("chmod u+w locked.txt"), "{text}");
    let (kind, text) = fx.err("edit", json!({"path": "locked.txt", "old_string": "value = 1", "new_string": "value = 2"}));
    assert_eq!(kind, "conflict", "{text}");
    assert!(text.contains("locked.txt (mode 0444) is read-only"), "{text}");
    // A multi-file patch with one read-only file is refused whole: the writable file stays too.
    let patch = "*** Begin Patch\n*** Update File: free.txt\n@@\n-value = 1\n+value = 2\n*** Update File: locked.txt\n@@\n-value = 1\n+value = 2\n*** Add File: new.txt\n+new\n*** End Patch";
    let (kind, text) = fx.err("apply_patch", json!({"patch": patch}));
    assert_eq!(kind, "conflict", "{text}");
    assert!(text.contains("1 of 3 files are read-only: locked.txt (mode 0444)"), "{text}");
    // Deleting a read-only file is refused too (rm would ask).
    let (kind, text) = fx.err("apply_patch", json!({"patch": "*** Begin Patch\n*** Delete File: locked.txt\n*** End Patch"}));
    assert_eq!(kind, "conflict", "{text}");
    assert_eq!(snapshot(&fx.root), before, "nothing changed on disk, modes included");
    assert!(fx.take_written().is_empty());
    // Made writable again, the same write goes through.
    fs::set_permissions(fx.root.join("locked.txt"), fs::Permissions::from_mode(0o644)).unwrap();
    fx.ok("write", json!({"path": "locked.txt", "content": "replaced\n"}));
    assert_eq!(fx.read_file("locked.txt"), "replaced\n");
}

#[test]
fn resolve_accept_of_a_file_made_read_only_after_staging_is_a_conflict() {
    let fx = fixture(&[("a.py", "compute(1)\n"), ("b.py", "compute(2)\n")]);
    let run =
        Run::builder(&fx.root).approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).with_structural().build().unwrap();
    let staged = run.call(Caller::Main, "ast_edit", json!({"pattern": "compute($X)", "rewrite": "calculate($X)", "language": "python"}));
    assert!(!staged.is_error, "{}", staged.joined_text());
    let edit_id = staged.structured_content.as_ref().unwrap()["edit_id"].as_str().unwrap().to_owned();
    make_read_only(&fx.root.join("b.py"));
    let before = snapshot(&fx.root);
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(text.contains("error (conflict)"), "{text}");
    assert!(text.contains("b.py (mode 0444) is read-only"), "{text}");
    assert!(text.contains("nothing was written") && text.contains("stays pending"), "{text}");
    assert!(text.contains("chmod u+w b.py") && !text.contains("run ast_edit again"), "the next step can succeed: {text}");
    assert_eq!(snapshot(&fx.root), before, "a.py was not written either; b.py keeps content and mode");
    // Made writable, the same edit_id is accepted: only the mode had changed.
    fs::set_permissions(fx.root.join("b.py"), fs::Permissions::from_mode(0o644)).unwrap();
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!result.is_error, "{}", result.joined_text());
    assert_eq!(fx.read_file("b.py"), "calculate(2)\n");
}

/// A file already read-only when `ast_edit` stages is named loudly at staging, with `chmod u+w`;
/// `resolve` then keeps the edit pending with the same next step, and accepts it once the file is
/// writable (issue 13 re-run: it staged silently, then `resolve` said to stage again, which could
/// never succeed).
#[test]
fn staging_over_a_read_only_file_warns_and_resolve_names_chmod_not_restaging() {
    let fx = fixture(&[("n.py", "compute(1)\n")]);
    make_read_only(&fx.root.join("n.py"));
    let run =
        Run::builder(&fx.root).approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).with_structural().build().unwrap();
    let staged = run.call(Caller::Main, "ast_edit", json!({"pattern": "compute($X)", "rewrite": "calculate($X)", "language": "python"}));
    let text = staged.joined_text();
    assert!(!staged.is_error, "{text}");
    assert!(text.contains("WARNING: n.py (mode 0444) is read-only: resolve accept refuses the whole change"), "{text}");
    assert!(text.contains("chmod u+w n.py"), "{text}");
    let structured = staged.structured_content.unwrap();
    assert!(structured["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("read-only")), "{structured}");
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let text = result.joined_text();
    assert!(result.is_error && text.contains("chmod u+w n.py") && text.contains("stays pending"), "{text}");
    assert!(!text.contains("again to stage"), "{text}");
    assert_eq!(fx.read_file("n.py"), "compute(1)\n");
    fs::set_permissions(fx.root.join("n.py"), fs::Permissions::from_mode(0o644)).unwrap();
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!result.is_error, "{}", result.joined_text());
    assert_eq!(fx.read_file("n.py"), "calculate(1)\n");
}

#[test]
fn commit_refuses_read_only_files_whole_for_every_committer() {
    // lsp_rename and the kernel bridge commit through commit_file_changes_in like this.
    let fx = fixture(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    make_read_only(&fx.root.join("b.txt"));
    let changes = vec![
        FileChange { path: fx.root.join("a.txt"), new_content: Some(b"A\n".to_vec()), expected: ExpectedState::Content(b"a\n".to_vec()) },
        FileChange { path: fx.root.join("b.txt"), new_content: Some(b"B\n".to_vec()), expected: ExpectedState::Any },
    ];
    let err = runbound::files::commit_file_changes_in(&fx.root, &changes).unwrap_err();
    assert_eq!(err.kind, runbound::ErrorKind::Conflict);
    assert!(err.message.contains("1 of 2 files are read-only: b.txt (mode 0444)"), "{}", err.message);
    assert_eq!(err.details.unwrap()["read_only"][0]["mode"], "0444");
    assert_eq!(fx.read_file("a.txt"), "a\n");
    assert_eq!(fx.read_file("b.txt"), "b\n");
}

// ---------------------------------------------------------------------------------------------
// edit

#[test]
fn edit_replaces_a_unique_match_and_shows_the_change() {
    let fx = fixture(&[("src/a.rs", "fn a() {\n    let x = 1;\n}\n\nfn b() {\n    let y = 2;\n}\n")]);
    let result = fx.ok("edit", json!({"path": "src/a.rs", "old_string": "let y = 2;", "new_string": "let y = 3;\n    let z = 4;"}));
    let text = text_of(&result);
    assert!(text.starts_with("edited src/a.rs: 1 replacement at line 6\n"), "{text}");
    assert!(text.contains("6\t    let y = 3;\n7\t    let z = 4;\n8\t}"), "{text}");
    assert_eq!(fx.read_file("src/a.rs"), "fn a() {\n    let x = 1;\n}\n\nfn b() {\n    let y = 3;\n    let z = 4;\n}\n");
    assert_eq!(fx.take_written(), vec![fx.root.join("src/a.rs")]);
}

#[test]
fn edit_non_unique_match_says_how_many_and_where() {
    let fx = fixture(&[("a.py", "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")]);
    let (kind, text) = fx.err("edit", json!({"path": "a.py", "old_string": "x = 1", "new_string": "x = 9"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("old_string occurs 3 times in a.py (at lines 1, 3, 5)"), "{text}");
    assert!(text.contains("replace_all"), "{text}");
    assert_eq!(fx.read_file("a.py"), "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n", "nothing written");
    let text = text_of(&fx.ok("edit", json!({"path": "a.py", "old_string": "x = 1", "new_string": "x = 9\n#", "replace_all": true})));
    assert!(text.starts_with("edited a.py: 3 replacements at lines 1, 4, 7"), "{text}");
    assert_eq!(fx.read_file("a.py"), "x = 9\n#\ny = 2\nx = 9\n#\nz = 3\nx = 9\n#\n");
}

#[test]
fn edit_not_found_points_at_whitespace_mismatch_or_closest_line() {
    let fx = fixture(&[("a.rs", "fn main() {\n\tlet value = compute();\n\tprintln!(\"{value}\");\n}\n")]);
    let (kind, text) =
        fx.err("edit", json!({"path": "a.rs", "old_string": "    let value = compute();\n    println!(\"{value}\");", "new_string": "x"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("old_string was not found in a.rs; lines 2-3 match it when whitespace is ignored"), "{text}");
    assert!(text.contains("2\t\tlet value = compute();"), "{text}");
    let (_, text) = fx.err("edit", json!({"path": "a.rs", "old_string": "let value = compute_all();", "new_string": "x"}));
    assert!(text.contains("closest: most similar: line 2"), "{text}");
    let (_, text) = fx.err("edit", json!({"path": "a.rs", "old_string": "zzz qqq", "new_string": "x"}));
    assert!(text.contains("no line of old_string occurs in a.rs"), "{text}");
    let (kind, text) = fx.err("edit", json!({"path": "missing.rs", "old_string": "a", "new_string": "b"}));
    assert_eq!(kind, "not_found");
    assert!(text.contains("use write"), "{text}");
    let (kind, _) = fx.err("edit", json!({"path": "a.rs", "old_string": "", "new_string": "b"}));
    assert_eq!(kind, "invalid_arguments");
}

#[test]
fn edit_whose_change_is_already_in_the_file_says_it_looks_applied() {
    let fx = fixture(&[("a.py", "def total(items):\n    return sum(items, start=0)\n\nprint(total([1]))\n")]);
    // The same edit sent twice (e.g. the first result was lost): the second one is recognised.
    let (kind, text) =
        fx.err("edit", json!({"path": "a.py", "old_string": "    return sum(items)\n", "new_string": "    return sum(items, start=0)\n"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("this change looks already applied: old_string is not in a.py, but new_string is, at line 2"), "{text}");
    assert!(text.contains("2\t    return sum(items, start=0)"), "{text}");
    assert!(!text.contains("was not found"), "{text}");
    // A short replacement that merely occurs somewhere is not taken for an applied change.
    let (_, text) = fx.err("edit", json!({"path": "a.py", "old_string": "qqq", "new_string": "sum"}));
    assert!(text.contains("old_string was not found in a.py"), "{text}");
    assert!(!text.contains("already applied"), "{text}");
}

#[test]
fn edit_matches_lf_strings_in_a_crlf_file() {
    let fx = fixture(&[("win.txt", "one\r\ntwo\r\nthree\r\n")]);
    fx.ok("edit", json!({"path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"}));
    assert_eq!(fx.read_file("win.txt"), "1\r\n2\r\nthree\r\n");
}

// ---------------------------------------------------------------------------------------------
// apply_patch

#[test]
fn apply_patch_envelope_adds_updates_deletes_and_moves() {
    let fx = fixture(&[
        ("src/lib.rs", "mod a;\n\nfn helper() {\n    old();\n}\n\nfn main() {\n    helper();\n}\n"),
        ("src/old.rs", "// obsolete\n"),
        ("src/name.rs", "pub fn name() -> &'static str {\n    \"old\"\n}\n"),
    ]);
    let patch = "*** Begin Patch
*** Add File: src/new.rs
+pub fn new() {}
*** Update File: src/lib.rs
@@ fn helper() {
-    old();
+    new();
*** Delete File: src/old.rs
*** Update File: src/name.rs
*** Move to: src/renamed.rs
@@
 pub fn name() -> &'static str {
-    \"old\"
+    \"new\"
 }
*** End of File
*** End Patch";
    let result = fx.ok("apply_patch", json!({"patch": patch}));
    let text = text_of(&result);
    assert!(text.starts_with("applied patch: 4 files (1 added, 1 updated, 1 deleted, 1 moved src/name.rs → src/renamed.rs)"), "{text}");
    assert!(text.contains("M src/lib.rs: 1 hunk at line 4 (+1 -1)"), "{text}");
    assert_eq!(fx.read_file("src/new.rs"), "pub fn new() {}\n");
    assert_eq!(fx.read_file("src/lib.rs"), "mod a;\n\nfn helper() {\n    new();\n}\n\nfn main() {\n    helper();\n}\n");
    assert!(!fx.root.join("src/old.rs").exists());
    assert!(!fx.root.join("src/name.rs").exists());
    assert_eq!(fx.read_file("src/renamed.rs"), "pub fn name() -> &'static str {\n    \"new\"\n}\n");
    let structured = result.structured_content.unwrap();
    assert_eq!(structured["format"], "envelope");
    assert_eq!((structured["added"].clone(), structured["moved"].clone()), (json!(1), json!(1)));
    let mut written = fx.take_written();
    written.sort();
    let mut expected: Vec<PathBuf> =
        ["src/lib.rs", "src/name.rs", "src/new.rs", "src/old.rs", "src/renamed.rs"].iter().map(|p| fx.root.join(p)).collect();
    expected.sort();
    assert_eq!(written, expected);
}

#[test]
fn apply_patch_git_diff_adds_updates_deletes_and_renames() {
    let fx = fixture(&[("src/a.c", "int a(void) {\n  return 1;\n}\n"), ("gone.txt", "bye\n"), ("docs/old name.md", "# title\n")]);
    let patch = "diff --git a/src/a.c b/src/a.c
index 1111111..2222222 100644
--- a/src/a.c
+++ b/src/a.c
@@ -1,3 +1,3 @@ int a(void) {
 int a(void) {
-  return 1;
+  return 2;
 }
diff --git a/src/b.c b/src/b.c
new file mode 100644
--- /dev/null
+++ b/src/b.c
@@ -0,0 +1,2 @@
+int b(void);
+int b(void) { return 0; }
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/docs/old name.md b/docs/new name.md
similarity index 100%
rename from docs/old name.md
rename to docs/new name.md
";
    let result = fx.ok("apply_patch", json!({"patch": patch}));
    let text = text_of(&result);
    assert!(
        text.starts_with("applied patch: 4 files (1 added, 1 updated, 1 deleted, 1 moved docs/old name.md → docs/new name.md)"),
        "{text}"
    );
    assert_eq!(fx.read_file("src/a.c"), "int a(void) {\n  return 2;\n}\n");
    assert_eq!(fx.read_file("src/b.c"), "int b(void);\nint b(void) { return 0; }\n");
    assert!(!fx.root.join("gone.txt").exists());
    assert_eq!(fx.read_file("docs/new name.md"), "# title\n");
    assert!(!fx.root.join("docs/old name.md").exists());
    assert_eq!(result.structured_content.unwrap()["format"], "unified_diff");
}

#[test]
fn apply_patch_tolerates_whitespace_and_says_so() {
    let fx = fixture(&[("a.py", "def f():\n    if x:   \n        return 1\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n  if x:\n-     return 1\n+        return 2\n*** End Patch";
    let text = text_of(&fx.ok("apply_patch", json!({"patch": patch})));
    assert!(text.contains("note: hunk 1 matched ignoring indentation and whitespace at line 2"), "{text}");
    assert_eq!(fx.read_file("a.py"), "def f():\n    if x:   \n        return 2\n");
}

#[test]
fn multi_file_patch_whose_last_hunk_fails_changes_nothing() {
    let fx = fixture(&[("one.txt", "1\n2\n3\n"), ("two.txt", "a\nb\nc\nd\ne\n"), ("three.txt", "x\ny\n")]);
    let before = snapshot(&fx.root);
    let patch = "*** Begin Patch
*** Add File: added/new.txt
+new
*** Update File: one.txt
@@
 1
-2
+two
*** Delete File: three.txt
*** Update File: two.txt
*** Move to: moved/two.txt
@@
 a
-b
+B
@@
 d
-NOT THERE
+E
*** End Patch";
    let (kind, text) = fx.err("apply_patch", json!({"patch": patch}));
    assert_eq!(kind, "conflict");
    assert!(text.contains("cannot apply the patch to two.txt: hunk 2 of 2 (patch line 16)"), "{text}");
    assert!(text.contains("looked for:\n  |d\n  |NOT THERE"), "{text}");
    assert!(text.contains("closest: lines 4-5 match 1 of the hunk's 2 lines; first difference at line 5: the file has \"e\""), "{text}");
    assert!(text.contains("nothing was changed"), "{text}");
    assert_eq!(snapshot(&fx.root), before, "the tree must be byte-identical");
    assert!(fx.take_written().is_empty());

    // Same in unified format.
    let patch =
        "--- a/one.txt\n+++ b/one.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n--- a/two.txt\n+++ b/two.txt\n@@ -3,2 +3,2 @@\n c\n-zzz\n+Z\n";
    let (kind, text) = fx.err("apply_patch", json!({"patch": patch}));
    assert_eq!(kind, "conflict");
    assert!(text.contains("two.txt: hunk 1 of 1"), "{text}");
    assert_eq!(snapshot(&fx.root), before);
}

#[test]
fn write_failure_mid_way_rolls_back_every_file() {
    let fx = fixture(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("blocker", "i am a regular file\n")]);
    let before = snapshot(&fx.root);
    // Sections apply in memory; the commit then fails on the last file because a component of
    // its path is a regular file (fails even for root).
    let patch = "*** Begin Patch
*** Update File: a.txt
@@
-a
+A
*** Add File: fresh/dir/new.txt
+new
*** Delete File: b.txt
*** Add File: blocker/inner.txt
+cannot be written
*** End Patch";
    let (kind, text) = fx.err("apply_patch", json!({"patch": patch}));
    assert_eq!(kind, "io");
    assert!(text.contains("cannot write blocker/inner.txt"), "{text}");
    assert!(text.contains("is a regular file, not a directory"), "{text}");
    assert!(text.contains("nothing was changed: the 3 files already written were restored"), "{text}");
    assert_eq!(snapshot(&fx.root), before, "every file restored and created directories removed");

    // A destination that is an existing directory fails before anything is written.
    fs::create_dir_all(fx.root.join("adir/sub")).unwrap();
    let before = snapshot(&fx.root);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n*** Move to: adir\n*** End Patch";
    let (_, text) = fx.err("apply_patch", json!({"patch": patch}));
    assert!(text.contains("adir"), "{text}");
    assert_eq!(snapshot(&fx.root), before);
}

#[test]
fn apply_patch_refuses_adding_an_existing_file_and_updating_a_missing_one() {
    let fx = fixture(&[("here.txt", "x\n")]);
    let (kind, text) = fx.err("apply_patch", json!({"patch": "*** Begin Patch\n*** Add File: here.txt\n+y\n*** End Patch"}));
    assert_eq!(kind, "conflict");
    assert!(text.contains("the file already exists") && text.contains("*** Update File: here.txt"), "{text}");
    let (kind, text) = fx.err("apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch"}));
    assert_eq!(kind, "not_found");
    assert!(text.contains("nope.txt") && text.contains("no such file"), "{text}");
    // Delete then add in one patch replaces the file.
    fx.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Delete File: here.txt\n*** Add File: here.txt\n+y\n*** End Patch"}));
    assert_eq!(fx.read_file("here.txt"), "y\n");
    let (kind, text) = fx.err("apply_patch", json!({"patch": "not a patch at all"}));
    assert_eq!(kind, "invalid_arguments");
    assert!(text.contains("the patch cannot be parsed: not a patch"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// commit_file_changes (the API other tools write through)

#[test]
fn commit_file_changes_detects_conflicts_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::write(root.join("a.txt"), "edited by someone else\n").unwrap();
    fs::write(root.join("b.txt"), "b\n").unwrap();
    let before = snapshot(&root);
    let changes = vec![
        FileChange { path: root.join("b.txt"), new_content: Some(b"B\n".to_vec()), expected: ExpectedState::Content(b"b\n".to_vec()) },
        FileChange { path: root.join("a.txt"), new_content: Some(b"A\n".to_vec()), expected: ExpectedState::Content(b"a\n".to_vec()) },
        FileChange { path: root.join("b2.txt"), new_content: Some(b"new\n".to_vec()), expected: ExpectedState::Absent },
    ];
    let err = commit_file_changes(&changes).unwrap_err();
    assert_eq!(err.kind, runbound::ErrorKind::Conflict);
    assert!(err.message.contains("1 of 3 files changed on disk") && err.message.contains("a.txt"), "{}", err.message);
    assert_eq!(snapshot(&root), before);
    let mut fixed = changes;
    fixed[1].expected = ExpectedState::Content(b"edited by someone else\n".to_vec());
    let written = commit_file_changes(&fixed).unwrap();
    assert_eq!(written, vec![root.join("b.txt"), root.join("a.txt"), root.join("b2.txt")]);
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "A\n");
}

/// A directory swapped for a symlink to outside the workspace between planning a change and
/// committing it (the window between `ast_edit` and `resolve`) is caught at commit time.
#[test]
fn commit_re_confines_paths_after_a_symlink_swap() {
    use runbound::files::{commit_file_changes_in, ExpectedState, FileChange};
    let workspace = support::workspace_with(&[("src2/t.rs", "fn main() { x.unwrap(); }\n")]);
    let outside = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(workspace.path()).unwrap();
    let planned = root.join("src2/t.rs");
    let change = FileChange {
        path: planned.clone(),
        new_content: Some(b"fn main() { x.expect(\"swapped\"); }\n".to_vec()),
        expected: ExpectedState::Content(b"fn main() { x.unwrap(); }\n".to_vec()),
    };
    // The swap: the directory moves outside and a symlink takes its place.
    std::fs::rename(root.join("src2"), outside.path().join("src2")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("src2"), root.join("src2")).unwrap();
    let err = commit_file_changes_in(&root, &[change]).unwrap_err();
    assert_eq!(err.kind, runbound::ErrorKind::OutsideWorkspace, "{err}");
    assert!(err.message.contains("no longer resolves inside the workspace"), "{err}");
    let outside_text = std::fs::read_to_string(outside.path().join("src2/t.rs")).unwrap();
    assert_eq!(outside_text, "fn main() { x.unwrap(); }\n", "nothing may be written outside");
}

/// A FIFO in the workspace is refused by write and apply_patch instead of blocking forever.
#[test]
fn write_and_apply_patch_refuse_fifos_instead_of_blocking() {
    let workspace = support::workspace_with(&[]);
    let fifo = workspace.path().join("fifo");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().expect("run mkfifo");
    assert!(status.success());
    let run = Run::builder(workspace.path()).approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).build().unwrap();
    let started = std::time::Instant::now();
    let written = run.call(Caller::Main, "write", json!({"path": "fifo", "content": "x"}));
    assert!(written.is_error && written.joined_text().contains("not a regular file"), "{}", written.joined_text());
    let patched =
        run.call(Caller::Main, "apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: fifo\n@@\n-a\n+b\n*** End Patch\n"}));
    assert!(patched.is_error && patched.joined_text().contains("not a regular file"), "{}", patched.joined_text());
    let deleted = run.call(Caller::Main, "apply_patch", json!({"patch": "*** Begin Patch\n*** Delete File: fifo\n*** End Patch\n"}));
    assert!(deleted.is_error && deleted.joined_text().contains("not a regular file"), "{}", deleted.joined_text());
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "must not block on the FIFO");
}

// ---------------------------------------------------------------------------------------------
// Writes that land in a call the caller gave up on

/// A host tool that commits `late.txt`, then lets `after` happen (sleep past the deadline, or the
/// host's cancel arriving) before it returns.
fn late_writer(after: fn(&CallContext<'_>)) -> (runbound::ToolDescriptor, runbound::ToolHandler) {
    let descriptor = runbound::ToolDescriptor {
        name: "late_writer".to_owned(),
        description: "Writes late.txt, then finishes late.".to_owned(),
        tier: runbound::Tier::Write,
        input_schema: json!({"type": "object"}),
        title: "Test tool".to_owned(),
        output_schema: None,
        annotations: runbound::ToolAnnotations::for_tier(runbound::Tier::Write),
        parallel_safe: true,
        default_timeout: std::time::Duration::from_secs(30),
    };
    let handler: runbound::ToolHandler = Arc::new(move |ctx: &CallContext<'_>, _arguments: Value| {
        let root = ctx.workspace_root();
        let change = FileChange { path: root.join("late.txt"), new_content: Some(b"late\n".to_vec()), expected: ExpectedState::Any };
        let written = runbound::files::commit_file_changes_in(root, &[change])?;
        after(ctx);
        Ok(runbound::ToolOutput::text("wrote late.txt").with_written_paths(written))
    });
    (descriptor, handler)
}

#[test]
fn a_write_that_lands_past_the_deadline_or_after_a_cancel_says_it_landed() {
    let fx = fixture(&[]);
    for (after, expected) in [
        (
            (|_ctx: &CallContext<'_>| std::thread::sleep(std::time::Duration::from_millis(150))) as fn(&CallContext<'_>),
            "note: this call ran past its 50 ms deadline, but its write had already landed: late.txt changed on disk",
        ),
        (
            |ctx: &CallContext<'_>| ctx.cancel_token().cancel(),
            "note: the host cancelled this call, but its write had already landed: late.txt",
        ),
    ] {
        let (descriptor, handler) = late_writer(after);
        let run = Run::builder(&fx.root)
            .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
            .tool(descriptor, handler)
            .build()
            .unwrap();
        let mut options = runbound::CallOptions::new(Caller::Main);
        options.timeout = Some(std::time::Duration::from_millis(50));
        let result = run.call_with("late_writer", json!({}), &options);
        assert!(result.joined_text().contains(expected), "{}", result.joined_text());
        assert_eq!(options.cancel.landed_writes(), vec![fx.root.join("late.txt")]);
        fs::remove_file(fx.root.join("late.txt")).unwrap();
    }
    // A write tool cancelled before it commits writes nothing and says so.
    let options = runbound::CallOptions::new(Caller::Main);
    options.cancel.cancel();
    let result = fx.run.call_with("write", json!({"path": "never.txt", "content": "x"}), &options);
    assert!(result.is_error && result.joined_text().contains("cancelled"), "{}", result.joined_text());
    assert!(!fx.root.join("never.txt").exists());
}

#[test]
fn an_eval_that_times_out_after_a_bridged_write_says_the_write_landed() {
    if support::require_binary("files::an_eval_that_times_out_after_a_bridged_write_says_the_write_landed", "python3").is_none() {
        return;
    }
    let fx = fixture(&[]);
    let run = Run::builder(&fx.root)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .kernel_factory(runbound::kernel::KernelFactory::new().selection(runbound::kernel::KernelSelection::Cpython))
        .build()
        .unwrap();
    let mut options = runbound::CallOptions::new(Caller::Main);
    options.timeout = Some(std::time::Duration::from_secs(6));
    let code = "tool('write', {'path': 'bridged.txt', 'content': 'from the cell\\n'})\nimport time\ntime.sleep(60)";
    let result = run.call_with("eval", json!({"code": code, "description": "write a file then wait for long"}), &options);
    let text = result.joined_text();
    assert!(result.is_error, "the cell ran out of time: {text}");
    assert!(
        text.contains("note: although eval did not complete, writes made through it had already landed and stay on disk: bridged.txt"),
        "{text}"
    );
    assert_eq!(fx.read_file("bridged.txt"), "from the cell\n");
}

/// Each pre-write announcement: the paths with the files' content at that moment.
type Announcements = Vec<Vec<(PathBuf, Option<String>)>>;

/// Records every pre-write announcement with the files' content at that moment.
struct RecordPreWrites(Arc<Mutex<Announcements>>);

impl runbound::registry::PreWriteLayer for RecordPreWrites {
    fn before_write(&self, _ctx: &CallContext<'_>, paths: &[PathBuf]) {
        self.0.lock().push(paths.iter().map(|path| (path.clone(), fs::read_to_string(path).ok())).collect());
    }
}

#[test]
fn writing_tools_declare_the_paths_they_will_write_before_writing_them() {
    let workspace = support::workspace_with(&[("a.txt", "alpha\n"), ("b.txt", "beta\n"), ("src/lib.rs", "fn f() { g().unwrap(); }\n")]);
    let root = fs::canonicalize(workspace.path()).unwrap();
    let announced = Arc::new(Mutex::new(Vec::new()));
    let written = Arc::new(Mutex::new(Vec::new()));
    let run = Run::builder(&root)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .with_structural()
        .pre_write_layer(Arc::new(RecordPreWrites(announced.clone())))
        .post_write_layer(Arc::new(RecordWrites(written.clone())))
        .build()
        .unwrap();
    let call = |tool: &str, arguments: Value| {
        let result = run.call(Caller::Main, tool, arguments.clone());
        assert!(!result.is_error, "{tool} {arguments}: {}", result.joined_text());
    };
    let last = || announced.lock().last().cloned().unwrap_or_default();
    let at = |relative: &str| root.join(relative);
    call("write", json!({"path": "a.txt", "content": "one\n"}));
    assert_eq!(last(), vec![(at("a.txt"), Some("alpha\n".to_owned()))], "write: declared with the old content");
    call("edit", json!({"path": "a.txt", "old_string": "one", "new_string": "two"}));
    assert_eq!(last(), vec![(at("a.txt"), Some("one\n".to_owned()))]);
    call(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-beta\n+gamma\n*** Add File: d.txt\n+delta\n*** End Patch\n"}),
    );
    assert_eq!(last(), vec![(at("b.txt"), Some("beta\n".to_owned())), (at("c.txt"), None), (at("d.txt"), None)]);
    let staged = run.call(Caller::Main, "ast_edit", json!({"pattern": "$X.unwrap()", "rewrite": "$X?", "path": "src", "language": "rust"}));
    let edit_id = staged.structured_content.as_ref().unwrap()["edit_id"].as_str().expect("staged").to_owned();
    let before_accept = announced.lock().len();
    assert_eq!(before_accept, 3, "ast_edit only stages: nothing announced");
    call("resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert_eq!(last(), vec![(at("src/lib.rs"), Some("fn f() { g().unwrap(); }\n".to_owned()))]);
    // The paths announced are the paths written, call by call.
    let written = written.lock().clone();
    let announced_paths: Vec<PathBuf> = announced.lock().iter().flatten().map(|(path, _)| path.clone()).collect();
    assert_eq!(announced_paths.iter().collect::<std::collections::BTreeSet<_>>(), written.iter().collect());
    // A path the tool will refuse (outside the workspace) is never announced.
    let refused = run.call(Caller::Main, "write", json!({"path": "../outside.txt", "content": "x"}));
    assert!(refused.is_error);
    assert_eq!(announced.lock().len(), 4, "a path outside the workspace is never announced");
}
