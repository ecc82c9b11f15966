//! `resolve accept` when a write fails in the middle: every file already written is rolled
//! back and the tree is byte-identical to before (R-RES-1).
//!
//! The failure is real, not simulated: the process's file-size limit (`RLIMIT_FSIZE`, which
//! binds root too) is lowered between staging and accepting, so writing the second, larger file
//! fails with `EFBIG` after the first file was already replaced. The test runs alone in a
//! child process (`support::alone`) because the limit is process-wide.

use crate::support;

use runbound::{Approval, ApprovalPolicy, Caller, Run};
use serde_json::json;

#[test]
fn write_failure_in_the_middle_of_accept_rolls_back_every_file() {
    if !support::alone("structural_rollback::write_failure_in_the_middle_of_accept_rolls_back_every_file") {
        return;
    }
    let small = "void a(Object x) {\n  dispose(x);\n}\n";
    // About 40 KB of calls; the rewrite grows each line by one byte.
    let big: String = std::iter::once("void b(Object x) {\n".to_owned())
        .chain((0..2000).map(|i| format!("  dispose(v{i:04});\n")))
        .chain(std::iter::once("}\n".to_owned()))
        .collect();
    let dir = support::workspace_with(&[("lib/a.dart", small), ("lib/b.dart", &big)]);
    let run =
        Run::builder(dir.path()).with_structural().approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).build().unwrap();
    let staged = run.call(Caller::Main, "ast_edit", json!({"pattern": "dispose($X)", "rewrite": "$X.dispose()", "language": "dart"}));
    assert!(!staged.is_error, "{}", staged.joined_text());
    assert!(staged.joined_text().starts_with("(proposed) 2001 replacements in 2 files"), "{}", staged.joined_text());

    // Allow files up to the old size of b.dart plus a margin, below its new size.
    let limit = (big.len() + 1000) as libc::rlim_t;
    let mut old = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain libc calls on valid pointers; SIGXFSZ is ignored so the write returns EFBIG.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut old), 0);
        let lowered = libc::rlimit { rlim_cur: limit, rlim_max: old.rlim_max };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lowered), 0);
    }
    let result = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    // SAFETY: restores the limit read above.
    unsafe {
        libc::setrlimit(libc::RLIMIT_FSIZE, &old);
    }
    let text = result.joined_text();
    assert!(result.is_error, "accept must fail: {text}");
    assert!(text.contains("edit_1 was not applied"), "{text}");
    assert!(text.contains("File too large") && text.contains("the 1 file already written was restored"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/a.dart")).unwrap(), small, "a.dart must be rolled back");
    assert_eq!(std::fs::read_to_string(dir.path().join("lib/b.dart")).unwrap(), big, "b.dart must be untouched");
    let leftovers: Vec<String> = std::fs::read_dir(dir.path().join("lib"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "a.dart" && name != "b.dart")
        .collect();
    assert!(leftovers.is_empty(), "temp files left behind: {leftovers:?}");
}
