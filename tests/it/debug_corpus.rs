//! `debug` on real third-party projects of the corpus (`.ci/install-corpus`), driven as a new
//! user would drive it — a test by its name, no adapter, no program path — with every value read
//! through the debugger checked against ground truth computed without it: the project's own
//! interpreter printing the function's locals (`sys.settrace`), the project's own test run, and
//! what the test source says it passes.
//!
//! - python-dateutil 2.9.0.post0 (its `.venv`, pytest 8): a parametrized pytest test by node id;
//!   the locals of `easter()` against the interpreter's; a bug put into `easter()` that its test
//!   catches: the failing test stops on its AssertionError, the text-anchored breakpoint follows
//!   its line when the file is edited, stepping reaches the faulty line and shows the wrong value.
//! - semver 1.0.26 (cargo, lldb-dap): `test_parse` exists in two integration test binaries; the
//!   ambiguity is named, the target-qualified name runs the one asked for, and the parser's locals
//!   are the ones of the input the test passes.

use crate::support;
use crate::support::corpus;

use std::path::Path;
use std::time::{Duration, Instant};

use runbound::debug::{DebugConfig, DebugSupervisor};
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

fn build_run(workspace: &Path) -> Run {
    Run::builder(workspace)
        .config(RunConfig { debug: DebugConfig::default(), ..RunConfig::default() })
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .debug_supervisor(DebugSupervisor::new())
        .build()
        .expect("build run")
}

fn call(run: &Run, arguments: Value) -> ToolResult {
    run.call(Caller::Main, "debug", arguments)
}

fn ok(run: &Run, arguments: Value) -> String {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "debug {arguments} failed:\n{text}");
    eprintln!("--- debug {arguments}\n{text}");
    text
}

fn err(run: &Run, arguments: Value) -> String {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(result.is_error, "debug {arguments} should fail but gave:\n{text}");
    eprintln!("--- debug {arguments} (error)\n{text}");
    text
}

/// The frame_id on the first line of `text` that contains `needle` (`… [frame_id N]`).
fn frame_id_on(text: &str, needle: &str) -> u64 {
    let line = text.lines().find(|line| line.contains(needle)).unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"));
    let rest = &line[line.find("[frame_id ").unwrap_or_else(|| panic!("no frame_id in {line:?}")) + "[frame_id ".len()..];
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().expect("a frame_id")
}

/// The 1-based line of `path` holding `text` (which must occur once): the ground truth for
/// where a text-anchored breakpoint belongs.
fn line_of(path: &Path, text: &str) -> usize {
    let source = std::fs::read_to_string(path).expect("read source");
    let lines: Vec<usize> = source.lines().enumerate().filter(|(_, line)| line.contains(text)).map(|(index, _)| index + 1).collect();
    assert_eq!(lines.len(), 1, "{text:?} in {}: {lines:?}", path.display());
    lines[0]
}

/// The value the debugger shows for local `name` in a `variables` listing (`name: type = value`).
fn shown_value(listing: &str, name: &str) -> String {
    let line = listing
        .lines()
        .find(|line| line.trim_start().starts_with(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no local {name} in:\n{listing}"));
    line.split_once(" = ").map(|(_, value)| value.split("  (reference").next().unwrap_or(value).trim().to_owned()).expect("a value")
}

/// What the project's interpreter says the locals of `dateutil.easter.easter(year, 3)` are when
/// it reaches `line`: traced with `sys.settrace`, printed as JSON.
fn easter_locals_by_python(project: &Path, year: u32, line: usize) -> serde_json::Map<String, Value> {
    let script = format!(
        "import json, sys\nfrom dateutil import easter as E\nseen = {{}}\n\
         def trace(frame, event, arg):\n    if frame.f_code is not E.easter.__code__:\n        return None\n    \
         if event == 'line' and frame.f_lineno == {line} and not seen:\n        seen.update(frame.f_locals)\n    return trace\n\
         sys.settrace(trace)\nE.easter({year}, 3)\nsys.settrace(None)\nprint(json.dumps(seen))\n"
    );
    let python = project.join(".venv/bin/python");
    let out = corpus::run(project, python.to_str().unwrap(), &["-c", &script], &[], Duration::from_secs(60));
    corpus::assert_success(&out, "trace easter() with the project's python");
    let json_line = out.text.lines().rev().find(|line| line.starts_with('{')).expect("the traced locals");
    serde_json::from_str::<Value>(json_line).expect("json").as_object().expect("an object").clone()
}

#[test]
fn dateutil_a_pytest_test_by_node_id_shows_what_python_computes_and_a_planted_bug_is_reached() {
    // One debug session at a time with the tests of `debug` (timing-sensitive on 2 cores).
    let _serial = crate::debug::serial();
    let test = "debug_corpus::dateutil_a_pytest_test_by_node_id_shows_what_python_computes_and_a_planted_bug_is_reached";
    let Some(_python3) = support::require_binary(test, "python3") else { return };
    let debugpy = std::process::Command::new("python3").args(["-c", "import debugpy"]).status().is_ok_and(|status| status.success());
    if !debugpy {
        support::skip_or_fail(test, "python3 cannot import debugpy (see .ci/install)");
        return;
    }
    let Some(project) = corpus::project("python-dateutil") else { return };
    let root = project.path();
    let easter_py = root.join("src/dateutil/easter.py");
    // Western Easter 2024 is the 35th date of the test's list (index 34, 1990 + 34).
    let node_id = "tests/test_easter.py::test_easter_western[easter_date34]";
    let anchor = "p = i - j + e";
    let anchor_line = line_of(&easter_py, anchor);
    let truth = easter_locals_by_python(root, 2024, anchor_line);
    let venv_python = root.join(".venv/bin/python");
    assert!(truth.len() >= 8, "python traced the locals: {truth:?}");

    // The project's own run of that test, for the timing ratio.
    let started = Instant::now();
    let plain = corpus::run(
        root,
        venv_python.to_str().unwrap(),
        &["-m", "pytest", "-q", "-p", "no:cacheprovider", node_id],
        &[],
        Duration::from_secs(120),
    );
    let plain_took = started.elapsed();
    corpus::assert_success(&plain, "the test passes as shipped");

    let run = build_run(root);
    let stored = ok(&run, json!({"op": "breakpoints", "file": "src/dateutil/easter.py", "text": anchor}));
    assert!(stored.contains(&format!("lines {anchor_line} (text `{anchor}`)")), "{stored}");
    let started = Instant::now();
    let launched = ok(&run, json!({"op": "launch", "test": node_id}));
    let launch_took = started.elapsed();
    assert!(launched.contains("under debugpy") && launched.contains("is a pytest node id"), "{launched}");
    assert!(launched.contains("(project venv)"), "the project's interpreter runs the test: {launched}");
    assert!(launched.contains(&format!("#0 src/dateutil/easter.py:{anchor_line} in easter")), "{launched}");
    assert!(launched.contains("#1 tests/test_easter.py:78 in test_easter_western"), "{launched}");

    // The locals of easter(), in one call from the stop's frame_id, against the interpreter's.
    let locals = ok(&run, json!({"op": "variables", "frame_id": frame_id_on(&launched, "in easter  [frame_id")}));
    assert!(locals.starts_with("Locals of frame"), "{locals}");
    for (name, value) in &truth {
        assert_eq!(shown_value(&locals, name), value.to_string(), "local {name}: debugger vs python\n{locals}");
    }
    // The test's own parameter: the date it expects.
    let test_locals = ok(&run, json!({"op": "variables", "frame_id": frame_id_on(&launched, "in test_easter_western")}));
    assert_eq!(shown_value(&test_locals, "easter_date"), "datetime.date(2024, 3, 31)", "{test_locals}");
    let finished = ok(&run, json!({"op": "continue"}));
    assert!(finished.contains("exited with code 0") && finished.contains("1 passed"), "exactly that test ran: {finished}");
    corpus::report_timing(&format!(
        "dateutil {node_id}: launch to the breakpoint {launch_took:?}; the same test run by pytest alone {plain_took:?} (ratio {:.2})",
        launch_took.as_secs_f64() / plain_took.as_secs_f64()
    ));

    // A planted bug (the month formula divides by 3 instead of 30) and a comment line above the
    // anchor, as an edit moves code: the test fails, and pytest says how.
    let source = std::fs::read_to_string(&easter_py).unwrap();
    let planted = source
        .replace("    m = 3 + (p + 26)//30\n", "    m = 3 + (p + 26)//3\n")
        .replace(&format!("    {anchor}\n"), &format!("    # moved one line down by an edit\n    {anchor}\n"));
    assert_ne!(planted, source);
    std::fs::write(&easter_py, &planted).unwrap();
    let failing = corpus::run(
        root,
        venv_python.to_str().unwrap(),
        &["-m", "pytest", "-q", "-p", "no:cacheprovider", node_id],
        &[],
        Duration::from_secs(120),
    );
    assert!(!failing.success() && failing.text.contains("datetime.date(2024, 12, 31)"), "the planted bug fails the test: {}", failing.text);
    let moved_line = line_of(&easter_py, anchor);
    let faulty_line = line_of(&easter_py, "m = 3 + (p + 26)//3");
    assert_eq!(moved_line, anchor_line + 1);

    // The failing test stops where its exception leaves the project's code, naming it.
    ok(&run, json!({"op": "breakpoints", "file": "src/dateutil/easter.py", "lines": []}));
    ok(&run, json!({"op": "exception_breakpoints", "filters": ["userUnhandled"]}));
    let stopped = ok(&run, json!({"op": "launch", "test": node_id}));
    assert!(stopped.contains("stopped: exception AssertionError ("), "{stopped}");
    assert!(!stopped.contains("(note:"), "debugpy's note is cut: {stopped}");
    assert!(stopped.contains("datetime.date(2024, 12, 31)"), "the assertion's message: {stopped}");
    assert!(stopped.contains("#0 tests/test_easter.py:78 in test_easter_western"), "{stopped}");
    ok(&run, json!({"op": "terminate"}));

    // Into easter(): the text anchor follows its line; stepping reaches the faulty line and the
    // value it computes is the wrong month, while the right formula gives March.
    ok(&run, json!({"op": "exception_breakpoints", "filters": []}));
    ok(&run, json!({"op": "breakpoints", "file": "src/dateutil/easter.py", "text": anchor}));
    let status = ok(&run, json!({"op": "status"}));
    assert!(status.contains(&format!("lines {moved_line} (text `{anchor}`)")), "status shows the resolved line: {status}");
    let launched = ok(&run, json!({"op": "launch", "test": node_id}));
    assert!(launched.contains(&format!("#0 src/dateutil/easter.py:{moved_line} in easter")), "{launched}");
    let mut at = launched;
    for _ in 0..5 {
        if at.contains(&format!("#0 src/dateutil/easter.py:{} in easter", faulty_line + 1)) {
            break;
        }
        at = ok(&run, json!({"op": "step_over"}));
    }
    assert!(at.contains(&format!("#0 src/dateutil/easter.py:{} in easter", faulty_line + 1)), "stepped past the faulty line: {at}");
    let month = ok(&run, json!({"op": "evaluate", "expression": "m"}));
    assert!(month.contains("m: int = 12"), "{month}");
    let right = ok(&run, json!({"op": "evaluate", "expression": "3 + (p + 26)//30"}));
    assert!(right.contains("= 3"), "{right}");
    ok(&run, json!({"op": "terminate"}));
}

#[test]
fn semver_a_test_name_two_binaries_share_is_named_and_the_qualified_one_shows_the_parsers_locals() {
    // One debug session at a time with the tests of `debug` (timing-sensitive on 2 cores).
    let _serial = crate::debug::serial();
    let test = "debug_corpus::semver_a_test_name_two_binaries_share_is_named_and_the_qualified_one_shows_the_parsers_locals";
    let Some(_cargo) = support::require_binary(test, "cargo") else { return };
    if !support::lldb_dap_found() {
        support::skip_or_fail(test, "lldb-dap not found (see .ci/install)");
        return;
    }
    let Some(project) = corpus::project("semver") else { return };
    let root = project.path();
    // Ground truth from the sources: both integration test files define `test_parse`, and
    // tests/test_version.rs passes "1.2.3-" expecting an empty pre-release segment.
    for file in ["tests/test_version.rs", "tests/test_version_req.rs"] {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(source.contains("fn test_parse()"), "{file}");
    }
    let test_line = line_of(&root.join("tests/test_version.rs"), "version_err(\"1.2.3-\")");
    let run = build_run(root);
    ok(
        &run,
        json!({"op": "breakpoints", "file": "src/parse.rs", "lines": [
            {"text": "return Err(Error::new(ErrorKind::EmptySegment(pos)));", "occurrence": 1}
        ]}),
    );
    let ambiguous = err(&run, json!({"op": "launch", "test": "test_parse"}));
    assert!(ambiguous.contains("`test_version::test_parse`") && ambiguous.contains("`test_version_req::test_parse`"), "{ambiguous}");

    let started = Instant::now();
    let launched = ok(&run, json!({"op": "launch", "test": "test_version::test_parse"}));
    let took = started.elapsed();
    assert!(launched.contains("in the test target test_version"), "{launched}");
    assert!(launched.contains("Rust formatters: loaded"), "{launched}");
    assert!(launched.contains("in semver::parse::<impl core::str::traits::FromStr for semver::Version>::from_str"), "{launched}");
    let locals = ok(&run, json!({"op": "variables", "frame_id": frame_id_on(&launched, "in semver::parse::")}));
    assert_eq!(shown_value(&locals, "major"), "1", "{locals}");
    assert_eq!(shown_value(&locals, "minor"), "2", "{locals}");
    assert_eq!(shown_value(&locals, "patch"), "3", "{locals}");
    assert_eq!(shown_value(&locals, "pos"), "Pre", "{locals}");
    let stack = ok(&run, json!({"op": "stack"}));
    assert!(stack.contains(&format!("tests/test_version.rs:{test_line} in test_version::test_parse")), "{stack}");
    assert!(stack.contains("frames in") && stack.contains("(outside the workspace)"), "the harness is folded: {stack}");
    ok(&run, json!({"op": "terminate"}));
    // The source file of the target names it as well.
    let other = ok(&run, json!({"op": "launch", "test": "tests/test_version_req.rs::test_parse"}));
    assert!(other.contains("in the test target test_version_req") && other.contains("exited with code 0"), "{other}");
    assert!(other.contains("1 passed"), "{other}");
    corpus::report_timing(&format!(
        "semver test_version::test_parse: launch (cargo test --no-run, lldb-dap, run to the breakpoint) {took:?}"
    ));
}
