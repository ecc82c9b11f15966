//! Call hierarchy labels from the fresh-user trials, against the real gopls and pyright:
//! - trial27b M10: gopls lists an interface method called through the interface
//!   (`entry.Schedule.Next(now)`) and a conversion to a workspace type (`byTime(entries)`) as
//!   callees of kind function / type; they were labelled `[type Next]` and `[type byTime]`.
//!   Ground truth: the source declares `Next` inside `type Timetable interface` and `byTime` as a
//!   slice type.
//! - mbatch item 5: a Python `__init__` callee was `[method __init__]`, not naming its class.
//! - trial27b M4: rust-analyzer's workspace symbols list csv-core's `pub use crate::writer::{…}`
//!   as a second `struct Writer`; ground truth: one `struct Writer` in the source (grep).

use crate::support;

use runbound::{Caller, Run};
use serde_json::{json, Value};

/// A run whose calls wait for a cold server's indexing up to 2 minutes (the machine may be
/// loaded; rust-analyzer answers partly while it loads the crate).
fn patient_run(dir: &std::path::Path) -> runbound::Run {
    let mut config = runbound::RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(120);
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(20);
    support::lsp_run_allowing_writes_with_config(dir, config)
}

/// The `entries` of a successful hierarchy answer as `kind name` labels, and the text.
fn entry_labels(run: &Run, arguments: Value) -> (Vec<String>, String) {
    let result = run.call(Caller::Main, "lsp", arguments);
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let structured = result.structured_content.expect("structured");
    let entries = structured["results"].as_array().cloned().unwrap_or_default();
    (
        entries.iter().map(|entry| format!("{} {}", entry["kind"].as_str().unwrap_or(""), entry["name"].as_str().unwrap_or(""))).collect(),
        text,
    )
}

const CRON_GO: &str = "package cron\n\nimport (\n\t\"sort\"\n\t\"time\"\n)\n\n// Timetable describes a job's duty cycle.\ntype Timetable interface {\n\t// Next returns the next activation time, later than the given time.\n\tNext(time.Time) time.Time\n}\n\ntype Entry struct {\n\tSchedule Timetable\n\tNext     time.Time\n}\n\ntype byTime []*Entry\n\nfunc (s byTime) Len() int           { return len(s) }\nfunc (s byTime) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }\nfunc (s byTime) Less(i, j int) bool { return s[i].Next.Before(s[j].Next) }\n\nfunc run(entries []*Entry, now time.Time) {\n\tfor _, entry := range entries {\n\t\tentry.Next = entry.Schedule.Next(now)\n\t}\n\tsort.Sort(byTime(entries))\n}\n";

#[test]
fn go_outgoing_calls_label_interface_methods_with_their_interface_and_conversions_as_conversions() {
    let test = "go_outgoing_calls_label_interface_methods_with_their_interface_and_conversions_as_conversions";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("go.mod", "module example.com/cron\n\ngo 1.21\n"), ("cron.go", CRON_GO)]);
    let run = patient_run(dir.path());
    let (labels, text) = entry_labels(&run, json!({"op": "outgoing_calls", "file": "cron.go", "line": 25, "symbol": "run"}));
    assert!(labels.contains(&"interface method Timetable.Next".to_owned()), "{labels:?}\n{text}");
    assert!(text.contains("[interface method Timetable.Next]"), "{text}");
    assert!(!text.contains("[type Next]"), "{text}");
    // gopls lists the conversion when it lists it at all; either way never as a plain `type`.
    assert!(!text.contains("[type byTime]"), "{text}");
    if text.contains("byTime") && !text.contains("also not listed") {
        assert!(labels.contains(&"conversion to type byTime".to_owned()), "{labels:?}\n{text}");
    }
}

#[test]
fn python_call_hierarchy_names_a_method_with_its_class() {
    let test = "python_call_hierarchy_names_a_method_with_its_class";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let source = "class Schema:\n    def __init__(self, schema: dict) -> None:\n        self.schema = schema\n\n    def validate(self, data: dict) -> bool:\n        return data == self.schema\n\n\ndef check(data: dict) -> bool:\n    schema = Schema({})\n    return schema.validate(data)\n";
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"schema\"\nversion = \"0.1.0\"\n"), ("schema.py", source)]);
    let run = patient_run(dir.path());
    let (labels, text) = entry_labels(&run, json!({"op": "outgoing_calls", "file": "schema.py", "line": 9, "symbol": "check"}));
    assert!(labels.contains(&"method Schema.validate".to_owned()), "{labels:?}\n{text}");
    // pyright lists the constructor call as the class or as `__init__`; a method is named with its class.
    assert!(!labels.contains(&"method __init__".to_owned()) && !labels.contains(&"method validate".to_owned()), "{labels:?}\n{text}");
    let (labels, text) = entry_labels(&run, json!({"op": "incoming_calls", "file": "schema.py", "line": 2, "symbol": "__init__"}));
    assert!(text.contains("method Schema.__init__"), "the queried method is not named with its class:\n{text}\n{labels:?}");
}

#[test]
fn rust_workspace_symbols_mark_a_pub_use_as_a_re_export_of_the_one_definition() {
    let test = "rust_workspace_symbols_mark_a_pub_use_as_a_re_export_of_the_one_definition";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let writer = "pub struct Writer {\n    pub delimiter: u8,\n}\n\npub struct WriterBuilder {\n    delimiter: u8,\n}\n\nimpl WriterBuilder {\n    pub fn build(&self) -> Writer {\n        Writer { delimiter: self.delimiter }\n    }\n}\n";
    let lib = "mod writer;\n\npub use crate::writer::{Writer, WriterBuilder};\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"csv-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", lib),
        ("src/writer.rs", writer),
    ]);
    // Ground truth: one definition of `struct Writer`, one `pub use` naming it.
    let definitions = [lib, writer].iter().flat_map(|text| text.lines()).filter(|line| line.contains("struct Writer ")).count();
    assert_eq!(definitions, 1);
    let run = patient_run(dir.path());
    // The outline waits for rust-analyzer to load the crate; the workspace search then sees it.
    let outline = run.call(Caller::Main, "lsp", json!({"op": "symbols", "file": "src/writer.rs"}));
    assert!(!outline.is_error, "{}", outline.joined_text());
    let result = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "Writer"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("struct Writer — src/writer.rs:1:"), "{text}");
    assert!(
        text.contains("re-export Writer (re-export of src/writer.rs:1) — src/lib.rs:3:"),
        "the pub use is not marked as a re-export:\n{text}"
    );
    assert!(!text.contains("struct Writer — src/lib.rs"), "{text}");
    let structured = result.structured_content.expect("structured");
    let kinds: Vec<&str> = structured["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|entry| entry["name"] == "Writer")
        .map(|entry| entry["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds.iter().filter(|kind| **kind == "struct").count(), definitions, "{kinds:?}\n{text}");
}
