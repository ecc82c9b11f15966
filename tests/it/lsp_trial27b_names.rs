//! Misleading rename answers from the fresh-user trial 27b (csv-core 0.1.13, robfig/cron
//! v3.0.1), against the real rust-analyzer, pyright and gopls on fixtures of the same shape:
//! - M8: a rename to a name the same module / impl / class already defines said nothing in the
//!   preview (neither rust-analyzer nor pyright checks it); ground truth `cargo check` (E0428) and
//!   the pyright CLI (`reportRedeclaration`) after the accept.

use crate::support;

use std::path::Path;
use std::process::Command;

use runbound::Caller;
use serde_json::json;

/// `cargo check` of the fixture: the `error[…]` lines (short format).
fn cargo_check_errors(dir: &Path) -> Vec<String> {
    let output = Command::new("cargo")
        .args(["check", "--offline", "--all-targets", "--message-format", "short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo check");
    String::from_utf8_lossy(&output.stderr).lines().filter(|line| line.contains(": error")).map(str::to_owned).collect()
}

/// The pyright CLI's diagnostics of `file` in `dir` as `line:rule` (1-based lines).
fn pyright_rules(dir: &Path, file: &str) -> Vec<String> {
    let output = Command::new("pyright").args(["--outputjson", file]).current_dir(dir).output().expect("run pyright");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("pyright --outputjson prints JSON");
    report["generalDiagnostics"]
        .as_array()
        .expect("generalDiagnostics")
        .iter()
        .map(|diagnostic| {
            format!("{}:{}", diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1, diagnostic["rule"].as_str().unwrap_or(""))
        })
        .collect()
}

/// csv-core's writer.rs shape: two private writers side by side in one module.
const WRITER_RS: &str = "pub struct Writer {\n    quoting: bool,\n}\n\nimpl Writer {\n    pub fn field(&self, input: &[u8]) -> usize {\n        if self.quoting {\n            write_pessimistic(input)\n        } else {\n            write_optimistic(input)\n        }\n    }\n}\n\nfn write_optimistic(input: &[u8]) -> usize {\n    input.len()\n}\n\nfn write_pessimistic(input: &[u8]) -> usize {\n    input.len() + 2\n}\n";

#[test]
fn rust_rename_to_a_name_the_module_already_defines_is_warned_in_the_preview_and_cargo_rejects_it() {
    let test = "rust_rename_to_a_name_the_module_already_defines_is_warned_in_the_preview_and_cargo_rejects_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"taken\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "mod writer;\npub use writer::Writer;\n"),
        ("src/writer.rs", WRITER_RS),
    ]);
    assert_eq!(cargo_check_errors(dir.path()), Vec::<String>::new(), "the fixture does not compile");
    let run = support::lsp_run_allowing_writes(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/writer.rs", "line": 15, "symbol": "write_optimistic", "new_name": "write_pessimistic", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    let warning = text
        .find("WARNING: src/writer.rs:15: the renamed `write_optimistic` becomes `fn write_pessimistic`, which line 19 already defines in the same scope")
        .unwrap_or_else(|| panic!("no taken-name warning in the preview:\n{text}"));
    assert!(warning < text.find("  src/writer.rs:").expect("file list"), "the warning is not at the top:\n{text}");
    assert!(text.contains("taken-name check: `write_pessimistic` in the 1 Rust file this rename changes — 1 finding"), "{text}");
    let structured = preview.structured_content.clone().expect("structured");
    assert_eq!(structured["name_conflicts"].as_array().map(Vec::len), Some(1), "{structured}");
    // Ground truth: what the accept writes, cargo rejects as a duplicate definition.
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    let errors = cargo_check_errors(dir.path());
    assert!(errors.iter().any(|line| line.contains("src/writer.rs:19:") && line.contains("E0428")), "cargo check: {errors:#?}");
    // A free name: the check says it found nothing.
    let free = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/writer.rs", "line": 6, "symbol": "field", "new_name": "write_field", "preview": true}),
    );
    let text = free.joined_text();
    assert!(!free.is_error, "{text}");
    assert!(text.contains("taken-name check: `write_field` in the 1 Rust file this rename changes — no other definition"), "{text}");
    assert!(!text.contains("WARNING: src/writer.rs"), "{text}");
}

#[test]
fn python_rename_onto_a_method_of_the_same_class_is_warned_and_pyright_reports_the_redeclaration() {
    let test = "python_rename_onto_a_method_of_the_same_class_is_warned_and_pyright_reports_the_redeclaration";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "pyright").is_none() {
        return;
    }
    let source = "class Schedule:\n    def next_run(self, now: int) -> int:\n        return now + 60\n\n    def next_time(self, now: int) -> int:\n        return now + 1\n\n\ndef first(schedule: Schedule) -> int:\n    return schedule.next_time(0) + schedule.next_run(0)\n";
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"sched\"\nversion = \"0.1.0\"\n"), ("sched.py", source)]);
    assert!(!pyright_rules(dir.path(), "sched.py").iter().any(|line| line.ends_with("reportRedeclaration")), "the fixture is not clean");
    let run = support::lsp_run_allowing_writes(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "sched.py", "line": 5, "symbol": "next_time", "new_name": "next_run", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        text.contains(
            "WARNING: sched.py:5: the renamed `next_time` becomes `def next_run`, which line 2 already defines in the same scope"
        ),
        "no taken-name warning:\n{text}"
    );
    assert!(text.contains("the later definition replaces the earlier one at run time (line 2 is lost"), "{text}");
    let structured = preview.structured_content.clone().expect("structured");
    assert_eq!(structured["name_conflicts"].as_array().map(Vec::len), Some(1), "{structured}");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    // Ground truth: pyright reports the first method obscured by the renamed one.
    let rules = pyright_rules(dir.path(), "sched.py");
    assert!(rules.contains(&"2:reportRedeclaration".to_owned()), "pyright: {rules:?}");
}
