//! Wrong answers from the fresh-user trial 146 (smallvec 1.13.2 with a downstream crate that
//! enables its `write` feature), against the real rust-analyzer and cargo, on a fixture of the
//! same shape:
//! - F2: a write that broke the library's `#[cfg(feature = "write")]` impl read "no new errors"
//!   (rust-analyzer checks the library without the feature) and downstream "not known" (cargo
//!   compiled none of it), while downstream's own `cargo check`, which runbound had run, reported
//!   E0053 in the written file; the next write then called that error "already present".
//!
//! - F3: after a write to a downstream file while the library failed under downstream's build,
//!   that file's one-file `diagnostics` read "no errors or warnings … (checked after sync)".
//!
//! Ground truth: `cargo check` in `downstream/`.

use crate::support;

use serde_json::json;

const LIBRARY_MANIFEST: &str =
    "[package]\nname = \"featlib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nwrite = []\n\n[workspace]\nexclude = [\"downstream\"]\n";

/// downstream's manifest: it enables the library's `write` feature.
const DOWNSTREAM_MANIFEST: &str = "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nfeatlib = { path = \"..\", features = [\"write\"] }\n";

const DOWNSTREAM: &str = "use featlib::{Buf, Sink};\n\npub fn fill(b: &mut Buf) -> usize {\n    b.put(&[1])\n}\n";

/// The edit that breaks the `write` impl (E0053), as (old, new).
const BREAK: (&str, &str) = (
    "-> usize {\n        self.0.extend_from_slice(bytes);\n        bytes.len()",
    "-> u32 {\n        self.0.extend_from_slice(bytes);\n        bytes.len() as u32",
);

/// The library: a `Sink` impl behind its `write` feature, which rust-analyzer (default features)
/// does not compile.
const LIBRARY: &str = "pub struct Buf(pub Vec<u8>);\n\npub trait Sink {\n    fn put(&mut self, bytes: &[u8]) -> usize;\n}\n\n#[cfg(feature = \"write\")]\nimpl Sink for Buf {\n    fn put(&mut self, bytes: &[u8]) -> usize {\n        self.0.extend_from_slice(bytes);\n        bytes.len()\n    }\n}\n";

#[test]
fn a_break_of_the_library_under_the_dependents_features_is_new_and_its_fix_resolved() {
    let Some((dir, run)) =
        library_and_downstream("lsp_trial146_write::a_break_of_the_library_under_the_dependents_features_is_new_and_its_fix_resolved")
    else {
        return;
    };
    let downstream_check = || {
        let checked = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--message-format=short"], &[]);
        String::from_utf8_lossy(&checked.stderr).into_owned()
    };
    assert!(!downstream_check().contains("error"), "{}", downstream_check());
    let broke = support::call_ok(&run, "edit", json!({"path": "src/lib.rs", "old_string": BREAK.0, "new_string": BREAK.1}));
    // Ground truth: the library compiles alone; downstream's build of it does not.
    assert!(support::cargo_by_hand(dir.path(), &["check", "--offline"], &[]).status.success());
    let cargo = downstream_check();
    assert!(cargo.contains("src/lib.rs:9:") && cargo.contains("error[E0053]"), "{cargo}");
    assert!(broke.contains("this write introduced 1 new error in 1 file"), "{broke}");
    assert!(
        broke.contains("src/lib.rs: new errors introduced by this write under downstream/'s build of it (1, cargo check in downstream/"),
        "{broke}"
    );
    assert!(broke.contains("  src/lib.rs:9: error[E0053]"), "{broke}");
    assert!(!broke.contains("no new errors in src/lib.rs"), "{broke}");
    assert!(broke.contains("itself no longer compiles in downstream/'s build: its new errors there are listed above"), "{broke}");
    // A later write that leaves the break is not silent about it (review44 RISK 2).
    let comment = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub struct Buf(pub Vec<u8>);", "new_string": "/// Bytes.\npub struct Buf(pub Vec<u8>);"}),
    );
    assert!(
        comment.contains("itself does not compile in downstream/'s build: 1 error there, already present before this write"),
        "{comment}"
    );
    assert!(!comment.contains("new errors introduced by this write"), "{comment}");
    // The fix is seen to land.
    let fixed = support::call_ok(&run, "edit", json!({"path": "src/lib.rs", "old_string": BREAK.1, "new_string": BREAK.0}));
    assert!(!downstream_check().contains("error"), "{}", downstream_check());
    assert!(
        fixed.contains("src/lib.rs: errors resolved by this write under downstream/'s build of it (1, cargo check in downstream/"),
        "{fixed}"
    );
    assert!(!fixed.contains("new errors introduced by this write"), "{fixed}");
}

/// F3: downstream's server running, the library broken under downstream's build, then a write to
/// a downstream file that adds a borrow error only rustc reports: a one-file `diagnostics` of it
/// read "no errors or warnings … (checked after sync)", though cargo never compiled it (the write
/// itself had said "diagnostics unavailable"). It is now said NOT checked by rustc.
#[test]
fn a_downstream_file_cargo_never_compiled_after_a_write_is_not_called_clean() {
    let Some((dir, run)) =
        library_and_downstream("lsp_trial146_write::a_downstream_file_cargo_never_compiled_after_a_write_is_not_called_clean")
    else {
        return;
    };
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "downstream/src/lib.rs"}));
    support::call_ok(&run, "edit", json!({"path": "src/lib.rs", "old_string": BREAK.0, "new_string": BREAK.1}));
    support::call_ok(
        &run,
        "edit",
        json!({"path": "downstream/src/lib.rs", "old_string": "    b.put(&[1])\n}\n", "new_string": "    b.put(&[1])\n}\n\npub fn label(b: &Buf) -> &str {\n    let s = format!(\"{} bytes\", b.0.len());\n    &s\n}\n"}),
    );
    // Ground truth: cargo stops in the library and never compiles downstream's own code.
    let checked = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--message-format=short"], &[]);
    let cargo = String::from_utf8_lossy(&checked.stderr);
    assert!(cargo.contains("error[E0053]") && !cargo.contains("E0515"), "{cargo}");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "downstream/src/lib.rs"}));
    assert!(text.contains("NOT checked by rustc: cargo never compiled it"), "{text}");
    assert!(!text.contains("reports no errors or warnings in downstream/src/lib.rs"), "{text}");
}

/// The library and the downstream crate in a fresh workspace, with a run that may write; `None`
/// (skipped loudly) without rust-analyzer or cargo.
fn library_and_downstream(test: &str) -> Option<(tempfile::TempDir, runbound::Run)> {
    support::require_binary(test, "rust-analyzer")?;
    support::require_binary(test, "cargo")?;
    let dir = support::workspace_with(&[
        ("Cargo.toml", LIBRARY_MANIFEST),
        ("src/lib.rs", LIBRARY),
        ("downstream/Cargo.toml", DOWNSTREAM_MANIFEST),
        ("downstream/src/lib.rs", DOWNSTREAM),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    Some((dir, run))
}
