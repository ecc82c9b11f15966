//! Misleading rename answers from the fresh-user trial 27b (csv-core 0.1.13, robfig/cron
//! v3.0.1), against the real rust-analyzer, pyright and gopls on fixtures of the same shape:
//! - M8: a rename to a name the same module / impl / class already defines said nothing in the
//!   preview (neither rust-analyzer nor pyright checks it); ground truth `cargo check` (E0428) and
//!   the pyright CLI (`reportRedeclaration`) after the accept;
//! - M9: renaming a crate's re-exported function or a Go package's exported function said nothing
//!   about the public API; ground truth: a consumer outside the workspace that uses the old name
//!   stops compiling (`cargo check`, `go build`);
//! - M11: renaming a local listed every same-named local of other functions under "check them";
//!   ground truth: `grep -w` of the name outside the renamed binding's function.

use crate::support;

use std::path::Path;
use std::process::Command;

use runbound::Caller;
use serde_json::json;

/// A run whose calls wait for a cold server's indexing up to 2 minutes (the machine may be
/// loaded; rust-analyzer answers partly while it loads the crate).
fn patient_run(dir: &std::path::Path) -> runbound::Run {
    let mut config = runbound::RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(120);
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(20);
    support::lsp_run_allowing_writes_with_config(dir, config)
}

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
    let run = patient_run(dir.path());
    // Asked to write, it stages instead (trial176 M6): the duplicate does not build.
    let staged = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/writer.rs", "line": 15, "symbol": "write_optimistic", "new_name": "write_pessimistic"}),
    );
    let text = staged.joined_text();
    assert!(
        text.starts_with(
            "NOT written: `write_pessimistic` is already declared in the same scope as the renamed `write_optimistic` (src/writer.rs:15;"
        ),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("src/writer.rs")).unwrap(), WRITER_RS, "nothing written");
    let edit_id = staged.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).expect("edit_id").to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "discard"}));
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
    let run = patient_run(dir.path());
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

/// A consumer project outside the workspace: `cargo check` / `go build` in it, (success, output).
fn build_consumer(dir: &Path, program: &str, args: &[&str]) -> (bool, String) {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .expect("build the consumer");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn rust_rename_of_a_re_exported_function_says_the_crate_api_changes_and_a_dependent_crate_breaks() {
    let test = "rust_rename_of_a_re_exported_function_says_the_crate_api_changes_and_a_dependent_crate_breaks";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    // csv-core's shape: a private `mod writer` whose function the crate root re-exports.
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"csv-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "mod writer;\n\npub use crate::writer::{\n    is_non_numeric, quote,\n};\n"),
        ("src/writer.rs", "pub fn is_non_numeric(byte: u8) -> bool {\n    !byte.is_ascii_digit()\n}\n\npub fn quote(byte: u8) -> bool {\n    is_non_numeric(byte)\n}\n"),
    ]);
    let consumer = tempfile::tempdir().expect("consumer dir");
    let manifest = format!(
        "[package]\nname = \"consumer\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ncsv-shape = {{ path = {:?} }}\n",
        dir.path().display().to_string()
    );
    std::fs::write(consumer.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir_all(consumer.path().join("src")).unwrap();
    std::fs::write(consumer.path().join("src/main.rs"), "fn main() {\n    println!(\"{}\", csv_shape::is_non_numeric(b'a'));\n}\n")
        .unwrap();
    let (built, output) = build_consumer(consumer.path(), "cargo", &["check", "--offline", "--message-format", "short"]);
    assert!(built, "the consumer does not compile before the rename:\n{output}");
    let run = patient_run(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/writer.rs", "line": 1, "symbol": "is_non_numeric", "new_name": "is_not_numeric", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        text.contains("note: public API changed: src/lib.rs:3 re-exports `is_non_numeric`")
            && text.contains("replaces `csv_shape::is_non_numeric` with `csv_shape::is_not_numeric`")
            && text.contains("`pub use crate::writer::is_not_numeric as is_non_numeric;`"),
        "no public API note:\n{text}"
    );
    let structured = preview.structured_content.clone().expect("structured");
    assert_eq!(structured["public_name_changes"].as_array().map(Vec::len), Some(1), "{structured}");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    // Ground truth: the dependent crate no longer compiles.
    let (built, output) = build_consumer(consumer.path(), "cargo", &["check", "--offline", "--message-format", "short"]);
    assert!(!built && output.contains("is_non_numeric"), "the consumer still compiles after the rename:\n{output}");
}

#[test]
fn rust_rename_of_a_public_enum_variant_says_the_crate_api_changes_and_a_dependent_crate_breaks() {
    // trial43 F1: strsim's `pub enum StrSimError { DifferentLengthArgs }`. The variant carries
    // no `pub` of its own, so its rename read as no public API change while a dependent crate
    // that matched on it failed with E0599.
    let test = "rust_rename_of_a_public_enum_variant_says_the_crate_api_changes_and_a_dependent_crate_breaks";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"strsim-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "#[derive(Debug, PartialEq)]\npub enum StrSimError {\n    DifferentLengthArgs,\n}\n\npub fn hamming(a: &str, b: &str) -> Result<usize, StrSimError> {\n    if a.len() != b.len() {\n        return Err(StrSimError::DifferentLengthArgs);\n    }\n    Ok(a.bytes().zip(b.bytes()).filter(|(x, y)| x != y).count())\n}\n",
        ),
    ]);
    let consumer = tempfile::tempdir().expect("consumer dir");
    let manifest = format!(
        "[package]\nname = \"consumer\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nstrsim-shape = {{ path = {:?} }}\n",
        dir.path().display().to_string()
    );
    std::fs::write(consumer.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir_all(consumer.path().join("src")).unwrap();
    std::fs::write(
        consumer.path().join("src/main.rs"),
        "fn main() {\n    match strsim_shape::hamming(\"a\", \"ab\") {\n        Err(strsim_shape::StrSimError::DifferentLengthArgs) => println!(\"lengths\"),\n        Ok(distance) => println!(\"{distance}\"),\n    }\n}\n",
    )
    .unwrap();
    let (built, output) = build_consumer(consumer.path(), "cargo", &["check", "--offline", "--message-format", "short"]);
    assert!(built, "the consumer does not compile before the rename:\n{output}");
    let run = patient_run(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 3, "symbol": "DifferentLengthArgs", "new_name": "LengthMismatch", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        text.contains("note: public API changed: src/lib.rs:3 defines the variant `StrSimError::DifferentLengthArgs` of the public enum `strsim_shape::StrSimError`")
            && text.contains("no alias keeps a variant's name"),
        "no public API note for the variant:\n{text}"
    );
    let structured = preview.structured_content.clone().expect("structured");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    // Ground truth: the dependent crate no longer compiles, on the old variant's name.
    let (built, output) = build_consumer(consumer.path(), "cargo", &["check", "--offline", "--message-format", "short"]);
    assert!(
        !built && output.contains("E0599") && output.contains("DifferentLengthArgs"),
        "the consumer still compiles after the rename:\n{output}"
    );
}

#[test]
fn go_rename_of_an_exported_function_says_the_package_api_changes_and_an_importer_breaks() {
    let test = "go_rename_of_an_exported_function_says_the_package_api_changes_and_an_importer_breaks";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/cron\n\ngo 1.21\n"),
        ("constantdelay.go", "package cron\n\nimport \"time\"\n\n// Every returns a schedule that runs every duration.\nfunc Every(duration time.Duration) time.Duration {\n\treturn duration.Round(time.Second)\n}\n"),
    ]);
    let consumer = tempfile::tempdir().expect("consumer dir");
    let go_mod = format!(
        "module example.com/app\n\ngo 1.21\n\nrequire example.com/cron v0.0.0\n\nreplace example.com/cron => {}\n",
        dir.path().display()
    );
    std::fs::write(consumer.path().join("go.mod"), go_mod).unwrap();
    std::fs::write(
        consumer.path().join("main.go"),
        "package main\n\nimport (\n\t\"fmt\"\n\t\"time\"\n\n\t\"example.com/cron\"\n)\n\nfunc main() {\n\tfmt.Println(cron.Every(time.Minute))\n}\n",
    )
    .unwrap();
    let (built, output) = build_consumer(consumer.path(), "go", &["build", "-o", "/dev/null", "."]);
    assert!(built, "the consumer does not build before the rename:\n{output}");
    let run = patient_run(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "constantdelay.go", "line": 6, "symbol": "Every", "new_name": "EveryDuration", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        text.contains("note: public API changed: constantdelay.go:6 declares the exported func `Every` of package `cron` (import path `example.com/cron`)")
            && text.contains("`var Every = EveryDuration`"),
        "no public API note:\n{text}"
    );
    let structured = preview.structured_content.clone().expect("structured");
    assert_eq!(structured["public_name_changes"].as_array().map(Vec::len), Some(1), "{structured}");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    let (built, output) = build_consumer(consumer.path(), "go", &["build", "-o", "/dev/null", "."]);
    assert!(!built && output.contains("Every"), "the importer still builds after the rename:\n{output}");
}

/// csv-core's writer tests: a `let inp` in several test functions, each used in a macro call.
const LOCALS_RS: &str = "macro_rules! assert_quote {\n    ($inp:expr, $out:expr) => {\n        assert_eq!(quote($inp), $out);\n    };\n}\n\npub fn quote(inp: &[u8]) -> usize {\n    inp.len() + 2\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn quote_empty() {\n        let inp = b\"\";\n        assert_quote!(inp, 2);\n    }\n\n    #[test]\n    fn quote_one() {\n        let inp = b\"a\";\n        assert_quote!(inp, 3);\n    }\n\n    #[test]\n    fn quote_two() {\n        let inp = b\"ab\";\n        let n = inp.len();\n        assert_quote!(inp, n + 2);\n    }\n}\n";

#[test]
fn rust_rename_of_a_local_counts_the_other_functions_locals_in_one_line_instead_of_listing_them() {
    let test = "rust_rename_of_a_local_counts_the_other_functions_locals_in_one_line_instead_of_listing_them";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"locals\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", LOCALS_RS),
    ]);
    // Ground truth: `grep -w inp` outside `quote_empty` (lines 16-19; the file has no comment),
    // less the macro's `$inp` metavariables, which the word search does not take for `inp`.
    let outside: usize = LOCALS_RS
        .lines()
        .enumerate()
        .filter(|(index, _)| !(15..=18).contains(index))
        .map(|(_, line)| {
            line.match_indices("inp")
                .filter(|(at, _)| {
                    let before = line[..*at].chars().last();
                    let after = line[at + 3..].chars().next();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
                        && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
                .count()
        })
        .sum();
    let run = patient_run(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 17, "symbol": "inp", "new_name": "input_bytes", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(text.contains("2 edits in 1 file"), "{text}");
    assert!(
        text.contains(&format!("not this binding: {outside} other whole-word occurrences of `inp` in 3 other functions (other locals or symbols outside `quote_empty`, lines 16–19 of src/lib.rs")),
        "no one-line count of the other locals ({outside} expected):\n{text}"
    );
    assert!(!text.contains("check them:"), "the other functions' locals are still listed:\n{text}");
    let structured = preview.structured_content.clone().expect("structured");
    assert_eq!(structured["coverage"]["outside_local_scope"], json!(outside), "{structured}");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    let errors = cargo_check_errors(dir.path());
    assert!(errors.is_empty(), "the local rename broke the build: {errors:#?}");
}
