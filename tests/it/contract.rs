//! The tool contract as typed data: every declared `outputSchema` is checked against what the
//! tools really return — successes and errors — so a tool whose structured output drifts from
//! its Rust type's schema fails here; and the descriptors carry what MCP hosts need (titles,
//! complete annotations, object roots, no `$ref`/`$schema`).

use std::collections::BTreeSet;
use std::sync::Arc;

use runbound::ask::{ScriptedAnswer, ScriptedAskPort};
use runbound::debug::DebugSupervisor;
use runbound::kernel::{KernelFactory, KernelSelection};
use runbound::vibe::{CommandBackend, VibeConfig, VibeSetup, WorkerTier};
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

use crate::support;

/// Tools that declare no `outputSchema` yet. Empty: every tool's structured content is typed; a
/// tool added without one must be listed here on purpose.
const WITHOUT_OUTPUT_SCHEMA: [&str; 0] = [];

/// The five `vibe_*` tools, each of which declares an `outputSchema`.
const VIBE_TOOLS: [&str; 5] = ["vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"];

fn allow_all() -> ApprovalPolicy {
    ApprovalPolicy { read: Approval::Allow, write: Approval::Allow, exec: Approval::Allow }
}

/// A run with every tool that needs no external program: files, structural, resolve, eval
/// (embedded kernel), ask_user (scripted answers).
fn contract_run(workspace: &std::path::Path, answers: Vec<ScriptedAnswer>) -> Run {
    Run::builder(workspace)
        .approval_policy(allow_all())
        .with_structural()
        .kernel_factory(KernelFactory::new().selection(KernelSelection::Embedded))
        .ask_port(Arc::new(ScriptedAskPort::new(answers)), "contract-test")
        .build()
        .expect("build the run")
}

/// Calls `name` and checks the result against its declared contract; returns the result.
fn call_checked(run: &Run, name: &str, arguments: Value, expect_error: bool) -> ToolResult {
    call_checked_either(run, name, arguments, Some(expect_error))
}

/// [`call_checked`] for a call whose outcome depends on the installed server (`None`: success or
/// error, either must match the contract).
fn call_checked_either(run: &Run, name: &str, arguments: Value, expect_error: Option<bool>) -> ToolResult {
    let result = run.call(Caller::Main, name, arguments.clone());
    if let Some(expect_error) = expect_error {
        assert_eq!(result.is_error, expect_error, "{name} {arguments}: {}", result.joined_text());
    }
    let descriptor = run.registry().descriptor(name).unwrap_or_else(|| panic!("{name} is registered"));
    assert!(descriptor.output_schema.is_some(), "{name} should declare an outputSchema");
    if let Err(problems) = descriptor.check_output(&result) {
        panic!(
            "{name} {arguments}: structuredContent does not match its outputSchema:\n{}\n{:?}",
            problems.join("\n"),
            result.structured_content
        );
    }
    assert!(result.structured_content.is_some(), "{name} {arguments} returned no structuredContent: {}", result.joined_text());
    result
}

#[test]
fn every_result_validates_against_the_declared_output_schema() {
    let workspace = support::workspace_with(&[
        ("notes.txt", "alpha\nbeta\ngamma\n"),
        ("crlf.txt", "one\r\ntwo\r\n"),
        ("empty.txt", ""),
        ("src/lib.rs", "fn first() -> Option<u8> { None }\nfn second() { let x = first().unwrap(); let y = first().unwrap(); }\n"),
        ("src/util.py", "def f(x):\n    return x\n"),
    ]);
    let run =
        contract_run(workspace.path(), vec![ScriptedAnswer::choose("yes"), ScriptedAnswer::free_text("any port"), ScriptedAnswer::Skip]);
    let mut called = BTreeSet::new();
    let mut check = |name: &str, arguments: Value, expect_error: bool| {
        called.insert(name.to_owned());
        call_checked(&run, name, arguments, expect_error)
    };

    // read: a window, a CRLF file, an empty file, a cut; errors share one shape.
    let window = check("read", json!({"path": "notes.txt", "start_line": 2, "end_line": 2}), false);
    assert_eq!(window.structured_content.as_ref().unwrap()["lines_shown"], 1);
    let crlf = check("read", json!({"path": "crlf.txt"}), false);
    assert_eq!(crlf.structured_content.as_ref().unwrap()["line_ending"], "crlf");
    check("read", json!({"path": "empty.txt"}), false);
    let missing = check("read", json!({"path": "absent.txt"}), true);
    assert_eq!(missing.structured_content.as_ref().unwrap()["error"]["kind"], "not_found");
    check("read", json!({"path": "notes.txt", "start_line": 99}), true);
    check("read", json!({"path": "notes.txt", "bogus": 1}), true);

    // write / edit / apply_patch.
    let created = check("write", json!({"path": "new/file.txt", "content": "a\nb\n"}), false);
    assert_eq!(created.structured_content.as_ref().unwrap()["action"], "created");
    check("write", json!({"path": "new/file.txt", "content": "a\nb\n"}), false);
    check("write", json!({"path": "new/file.txt", "content": "c\n"}), false);
    check("write", json!({"path": "new"}), true);
    check("edit", json!({"path": "notes.txt", "old_string": "beta", "new_string": "BETA"}), false);
    check("edit", json!({"path": "notes.txt", "old_string": "zeta", "new_string": "x"}), true);
    let patched = check(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Add File: added.txt\n+hello\n*** Update File: notes.txt\n@@\n alpha\n-BETA\n+beta again\n*** End Patch\n"}),
        false,
    );
    assert_eq!(patched.structured_content.as_ref().unwrap()["format"], "envelope");
    check("apply_patch", json!({"patch": "not a patch"}), true);

    // ast_grep: a search with matches, one with none, a syntax tree, an error.
    let found = check("ast_grep", json!({"pattern": "$X.unwrap()", "path": "src", "language": "rust"}), false);
    assert_eq!(found.structured_content.as_ref().unwrap()["total_matches"], 2);
    check("ast_grep", json!({"rule": {"kind": "function_definition"}, "path": "src", "language": "python"}), false);
    check("ast_grep", json!({"pattern": "$X.expect($Y)", "path": "src", "language": "rust"}), false);
    check("ast_grep", json!({"syntax_tree": "ast", "code": "x = f(1)", "language": "python"}), false);
    check("ast_grep", json!({"pattern": "$X.unwrap()", "rule": {"kind": "x"}}), true);

    // ast_edit: nothing staged, staged; resolve: discard, accept, an unknown id.
    let nothing = check("ast_edit", json!({"pattern": "$X.nothing_here()", "rewrite": "$X", "path": "src", "language": "rust"}), false);
    assert!(nothing.structured_content.as_ref().unwrap()["edit_id"].is_null());
    let staged =
        check("ast_edit", json!({"pattern": "$X.unwrap()", "rewrite": "$X.expect(\"checked\")", "path": "src", "language": "rust"}), false);
    let first_id = staged.structured_content.as_ref().unwrap()["edit_id"].as_str().unwrap().to_owned();
    check("resolve", json!({"edit_id": first_id, "action": "discard"}), false);
    let staged =
        check("ast_edit", json!({"pattern": "$X.unwrap()", "rewrite": "$X.expect(\"checked\")", "path": "src", "language": "rust"}), false);
    let second_id = staged.structured_content.as_ref().unwrap()["edit_id"].as_str().unwrap().to_owned();
    let accepted = check("resolve", json!({"edit_id": second_id, "action": "accept"}), false);
    assert_eq!(accepted.structured_content.as_ref().unwrap()["replacements"], 2);
    check("resolve", json!({"edit_id": second_id, "action": "accept"}), true);

    // eval: a cell, a raising cell (isError with the cell's shape), a reset-only call.
    let cell = check("eval", json!({"code": "x = 6 * 7\nx", "description": "multiply two numbers and echo it"}), false);
    assert_eq!(cell.structured_content.as_ref().unwrap()["status"], "ok");
    let raised = check("eval", json!({"code": "raise ValueError('no')", "description": "raise an error on purpose here"}), true);
    assert_eq!(raised.structured_content.as_ref().unwrap()["status"], "error");
    check("eval", json!({"code": "", "description": "reset the python kernel state now", "reset": true}), false);
    check("eval", json!({"code": "1", "description": "d", "language": "cobol"}), true);

    // ask_user: a choice, free text, a skip, then no human left (an error).
    let chosen = check("ask_user", json!({"question": "Proceed?", "options": [{"label": "yes"}, {"label": "no"}]}), false);
    assert_eq!(chosen.structured_content.as_ref().unwrap()["selected"], json!(["yes"]));
    check("ask_user", json!({"question": "Which port?"}), false);
    let skipped = check("ask_user", json!({"question": "Anything else?"}), false);
    assert_eq!(skipped.structured_content.as_ref().unwrap()["outcome"], "skipped");
    check("ask_user", json!({"question": "Still there?"}), true);

    // Every tool of this run that declares an outputSchema was exercised above.
    for descriptor in run.tools(Caller::Main) {
        if descriptor.output_schema.is_some() {
            assert!(called.contains(&descriptor.name), "{} declares an outputSchema but this test does not call it", descriptor.name);
        }
    }
}

#[test]
fn a_result_that_drifts_from_its_schema_is_caught() {
    let workspace = support::workspace_with(&[("notes.txt", "alpha\n")]);
    let run = contract_run(workspace.path(), Vec::new());
    let descriptor = run.registry().descriptor("read").unwrap();
    let mut result = run.call(Caller::Main, "read", json!({"path": "notes.txt"}));
    assert!(descriptor.check_output(&result).is_ok());
    result.structured_content.as_mut().unwrap()["lines_shown"] = json!("one");
    let problems = descriptor.check_output(&result).expect_err("a string where an integer is declared must fail");
    assert!(problems.iter().any(|problem| problem.contains("lines_shown")), "{problems:?}");
    result.structured_content.as_mut().unwrap().as_object_mut().unwrap().remove("lines_shown");
    assert!(descriptor.check_output(&result).is_err(), "a missing required field must fail");
    result.structured_content = None;
    assert!(descriptor.check_output(&result).is_err(), "a success without structuredContent must fail");
    let mut error = runbound::ToolError::new(runbound::ErrorKind::NotFound, "x").to_result();
    assert!(descriptor.check_output(&error).is_ok(), "the shared error shape is declared");
    error.structured_content.as_mut().unwrap()["error"]["kind"] = json!("no_such_kind");
    assert!(descriptor.check_output(&error).is_err(), "an unknown error kind must fail");
}

#[test]
fn descriptors_carry_titles_complete_annotations_and_host_friendly_schemas() {
    let workspace = support::workspace_with(&[("notes.txt", "alpha\n")]);
    let run = contract_run(workspace.path(), Vec::new());
    let listed = run.tools_json(Caller::Main);
    let tools = listed.as_array().or_else(|| listed["tools"].as_array()).expect("a tools array");
    let mut without_output = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let title = tool["title"].as_str().unwrap_or_default();
        assert!(!title.is_empty() && title != name, "{name} needs a human title: {tool}");
        assert_eq!(tool["annotations"]["title"], title, "{name}");
        for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
            assert!(tool["annotations"][hint].is_boolean(), "{name} lacks {hint}: {tool}");
        }
        let read_only = tool["annotations"]["readOnlyHint"] == true;
        if tool["tier"] != "read" {
            assert!(!read_only, "{name} changes files or runs code and cannot be readOnly");
        }
        if read_only {
            assert_eq!(tool["annotations"]["destructiveHint"], false, "{name}");
        }
        for (key, schema) in [("inputSchema", &tool["inputSchema"]), ("outputSchema", &tool["outputSchema"])] {
            if schema.is_null() {
                continue;
            }
            assert_eq!(schema["type"], "object", "{name} {key} root must be an object: {schema}");
            let text = schema.to_string();
            for absent in ["\"$ref\"", "\"$schema\"", "\"$defs\"", "\"format\":\"uint", "\"format\":\"int", "\"format\":\"double"] {
                assert!(!text.contains(absent), "{name} {key} contains {absent}: {text}");
            }
        }
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{name} must reject misspelled fields");
        match tool.get("outputSchema") {
            Some(schema) => assert_eq!(schema["anyOf"].as_array().map(Vec::len), Some(2), "{name}: result or error: {schema}"),
            None => without_output.push(name.to_owned()),
        }
    }
    for name in &without_output {
        assert!(WITHOUT_OUTPUT_SCHEMA.contains(&name.as_str()), "{name} declares no outputSchema");
    }
    // Field descriptions come from the argument structs' doc comments.
    let read = tools.iter().find(|tool| tool["name"] == "read").unwrap();
    assert_eq!(read["inputSchema"]["properties"]["start_line"]["minimum"], 1);
    assert!(read["inputSchema"]["properties"]["path"]["description"].as_str().unwrap().contains("workspace root"));
    let edit = tools.iter().find(|tool| tool["name"] == "edit").unwrap();
    assert_eq!(edit["inputSchema"]["properties"]["replace_all"]["default"], false);
    let annotations = |name: &str| tools.iter().find(|tool| tool["name"] == name).unwrap()["annotations"].clone();
    assert_eq!(annotations("read")["idempotentHint"], true);
    assert_eq!(annotations("write")["destructiveHint"], true);
    assert_eq!(annotations("eval")["openWorldHint"], true);
    assert_eq!(annotations("ast_edit")["destructiveHint"], false, "ast_edit only stages");
}

#[test]
fn op_enums_are_deserialized_by_serde_and_listed_in_the_schemas() {
    // The `lsp` and `debug` op enums against the tools' own op lists: `contract_tests::op_enums_of_lsp_and_debug_are_the_tools_op_lists`.
    // An op outside the enum is refused by the schema, before the tool runs, naming the field.
    let workspace = support::workspace_with(&[("notes.txt", "alpha\n")]);
    let run = contract_run(workspace.path(), Vec::new());
    let refused = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "apply"}));
    assert!(refused.is_error && refused.joined_text().contains("action"), "{}", refused.joined_text());
    assert_eq!(runbound::ErrorKind::HiddenFromCaller.as_str(), "hidden_from_caller");
}

/// The language-server tools' results — every `lsp` op's shape, `lsp_rename` applied and staged,
/// `lsp_code_action` applied (an edit, a command), staged and previewed without an edit, and the
/// error shape of each — validate against their declared `outputSchema`s, against real pyright
/// and, for server commands that send `workspace/applyEdit`, the fake edit server.
#[test]
fn lsp_tool_results_validate_against_their_output_schemas() {
    if support::require_binary("contract::lsp_tool_results", "pyright-langserver").is_none()
        || support::require_binary("contract::lsp_tool_results", "python3").is_none()
    {
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"contractpkg\"\nversion = \"0.1.0\"\n"),
        (
            "pkg/core.py",
            "def helper(x: int) -> int:\n    return x + 1\n\n\ndef caller() -> int:\n    return helper(2)\n\n\nclass Base:\n    pass\n\n\nclass Child(Base):\n    pass\n",
        ),
        ("pkg/__init__.py", ""),
        ("pkg/use.py", "from pkg.core import helper, caller\n\nvalue = helper(3) + caller()\nbad: int = \"text\"\n"),
        ("fake/fake.toml", ""),
        ("fake/notes.fake", "original first line\nsecond line\n"),
    ]);
    let mut config = runbound::RunConfig::default();
    let fake_bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lsp_fake_edits/bin");
    let mut search_path = fake_bin.as_os_str().to_owned();
    search_path.push(":");
    search_path.push(std::env::var_os("PATH").unwrap_or_default());
    config.lsp.search_path = Some(search_path);
    let template = runbound::lsp::builtin_servers().into_iter().find(|server| server.id == "pylsp").unwrap();
    config.lsp.servers.push(runbound::lsp::ServerDefinition {
        id: "fake-edits".to_owned(),
        binary_names: vec!["fake-edit-server".to_owned()],
        accept_versioned_binary: false,
        args: Vec::new(),
        extensions: vec![("fake".to_owned(), "plaintext".to_owned())],
        root_markers: vec!["fake.toml".to_owned()],
        initialization_options: Value::Null,
        settings: Value::Null,
        project_settings: runbound::lsp::ProjectSettings::None,
        startup_grace: std::time::Duration::from_millis(200),
        ..template
    });
    let run = Run::builder(workspace.path()).config(config).approval_policy(allow_all()).language_servers().build().expect("build the run");
    let mut called = BTreeSet::new();
    let mut check = |name: &str, arguments: Value, expect_error: Option<bool>| {
        called.insert(name.to_owned());
        call_checked_either(&run, name, arguments, expect_error)
    };
    let at = |op: &str, file: &str, line: u32, symbol: &str| json!({"op": op, "file": file, "line": line, "symbol": symbol});
    let op_of = |result: &ToolResult| result.structured_content.as_ref().unwrap()["op"].clone();

    // lsp: every op, successes tagged with their op.
    let status = check("lsp", json!({"op": "status"}), Some(false));
    assert_eq!(op_of(&status), "status");
    let definition = check("lsp", at("definition", "pkg/use.py", 3, "helper"), Some(false));
    assert_eq!(op_of(&definition), "definition");
    assert_eq!(definition.structured_content.as_ref().unwrap()["results"][0]["path"], "pkg/core.py", "{}", definition.joined_text());
    let references = check("lsp", at("references", "pkg/core.py", 1, "helper"), Some(false));
    assert!(references.structured_content.as_ref().unwrap()["results"].as_array().unwrap().len() >= 3, "{}", references.joined_text());
    check("lsp", at("hover", "pkg/core.py", 1, "helper"), Some(false));
    check("lsp", at("type_definition", "pkg/use.py", 3, "value"), None);
    check("lsp", at("implementation", "pkg/core.py", 13, "Base"), None);
    let incoming = check("lsp", at("incoming_calls", "pkg/core.py", 1, "helper"), Some(false));
    assert_eq!(op_of(&incoming), "incoming_calls");
    check("lsp", at("outgoing_calls", "pkg/core.py", 5, "caller"), Some(false));
    check("lsp", at("supertypes", "pkg/core.py", 13, "Child"), None);
    check("lsp", at("subtypes", "pkg/core.py", 9, "Base"), None);
    check("lsp", at("code_actions", "pkg/use.py", 4, "bad"), Some(false));
    check("lsp", json!({"op": "symbols", "query": "helper"}), Some(false));
    check("lsp", json!({"op": "symbols", "file": "pkg/core.py"}), Some(false));
    let diagnostics = check("lsp", json!({"op": "diagnostics", "file": "pkg/use.py"}), Some(false));
    assert!(diagnostics.structured_content.as_ref().unwrap()["total"].as_u64().unwrap() >= 1, "{}", diagnostics.joined_text());
    check("lsp", json!({"op": "diagnostics", "file": "*"}), None);
    check("lsp", json!({"op": "reload"}), Some(false));
    // lsp errors share the one error shape.
    let missing = check("lsp", json!({"op": "references", "file": "pkg/core.py", "line": 1}), Some(true));
    assert_eq!(missing.structured_content.as_ref().unwrap()["error"]["kind"], "invalid_arguments");
    check("lsp", at("definition", "pkg/absent.py", 1, "x"), Some(true));

    // lsp_rename: staged, applied, an error.
    let mut preview = at("", "pkg/core.py", 1, "helper");
    preview.as_object_mut().unwrap().remove("op");
    preview["new_name"] = json!("assist");
    preview["preview"] = json!(true);
    let staged = check("lsp_rename", preview, Some(false));
    assert!(staged.structured_content.as_ref().unwrap()["edit_id"].is_string(), "{}", staged.joined_text());
    let renamed = check("lsp_rename", json!({"file": "pkg/core.py", "line": 5, "symbol": "caller", "new_name": "invoke"}), Some(false));
    assert_eq!(renamed.structured_content.as_ref().unwrap()["coverage"]["checked"], true, "{}", renamed.joined_text());
    check("lsp_rename", json!({"file": "pkg/core.py", "line": 5, "symbol": "nothing_here", "new_name": "x"}), Some(true));

    // lsp_code_action on the fake server: an edit staged, a command previewed, both applied, errors.
    let action = |number: u32, preview: bool| json!({"file": "fake/notes.fake", "line": 1, "symbol": "original", "apply": number, "preview": preview});
    let listed = check("lsp", at("code_actions", "fake/notes.fake", 1, "original"), Some(false));
    assert_eq!(listed.structured_content.as_ref().unwrap()["results"].as_array().unwrap().len(), 2, "{}", listed.joined_text());
    let staged = check("lsp_code_action", action(2, true), Some(false));
    assert!(staged.structured_content.as_ref().unwrap()["edit_id"].is_string(), "{}", staged.joined_text());
    check("lsp_code_action", action(1, true), Some(false));
    let applied = check("lsp_code_action", action(1, false), Some(false));
    assert_eq!(applied.structured_content.as_ref().unwrap()["written"], json!(["fake/notes.fake"]), "{}", applied.joined_text());
    check("lsp_code_action", action(2, false), None);
    let refused = check("lsp_code_action", action(9, false), Some(true));
    assert!(refused.structured_content.as_ref().unwrap()["error"]["message"].is_string());

    for name in ["lsp", "lsp_rename", "lsp_code_action"] {
        assert!(called.contains(name), "{name} not exercised");
    }
}

/// A workspace with a small Python program for debugpy, and a run with the debug supervisor.
fn debug_run(workspace: &std::path::Path) -> Run {
    Run::builder(workspace).approval_policy(allow_all()).debug_supervisor(DebugSupervisor::new()).build().expect("build the run")
}

#[test]
fn debug_results_validate_against_the_declared_output_schema() {
    let _serial = crate::debug::serial();
    let test = "contract::debug_results_validate_against_the_declared_output_schema";
    let Some(python) = support::require_binary(test, "python3") else { return };
    if !std::process::Command::new(&python).args(["-c", "import debugpy"]).status().is_ok_and(|status| status.success()) {
        support::skip_or_fail(test, "python3 cannot import debugpy (pip install debugpy, see .ci/install)");
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", ""),
        (
            "app.py",
            "def add(a, b):\n    total = a + b\n    return total\n\n\nitems = [10, 20, 30]\nresult = add(2, 3)\nprint('result', result, flush=True)\n",
        ),
    ]);
    let run = debug_run(workspace.path());
    let check = |arguments: Value, expect_error: bool| -> Value {
        let result = call_checked(&run, "debug", arguments.clone(), expect_error);
        eprintln!("--- debug {arguments}\n{}\n{}", result.joined_text(), result.structured_content.as_ref().unwrap());
        result.structured_content.expect("checked above")
    };
    let adapters = check(json!({"op": "adapters"}), false);
    assert!(
        adapters["adapters"].as_array().unwrap().iter().any(|row| row["adapter"] == "debugpy" && row["available"] == true),
        "{adapters}"
    );
    let status = check(json!({"op": "status"}), false);
    assert!(status["session"].is_null(), "{status}");
    let stored = check(json!({"op": "breakpoints", "file": "app.py", "lines": [2, {"text": "print('result'"}]}), false);
    assert_eq!(stored["breakpoints"][0]["sent"], false, "{stored}");
    check(json!({"op": "function_breakpoints", "names": []}), false);
    check(json!({"op": "exception_breakpoints", "filters": ["uncaught"]}), false);
    // Errors before and without a session share the one error shape.
    check(json!({"op": "stack"}), true);
    check(json!({"op": "launch"}), true);
    check(json!({"op": "scopes"}), true);
    check(json!({"op": "fly"}), true);
    check(json!({"op": "breakpoints", "file": "absent.py", "lines": [1]}), true);

    let launched = check(json!({"op": "launch", "program": "app.py"}), false);
    assert_eq!(launched["program"]["state"], "stopped", "{launched}");
    assert_eq!(launched["program"]["reason"], "breakpoint", "{launched}");
    assert_eq!(launched["frames"][0]["file"], "app.py", "{launched}");
    assert_eq!(launched["frames"][0]["line"], 2, "{launched}");
    assert!(launched["session"].as_str().unwrap().contains("debugpy"), "{launched}");
    assert!(launched["breakpoints"].as_array().unwrap().iter().any(|b| b["verified"] == true), "{launched}");
    let status = check(json!({"op": "status"}), false);
    assert_eq!(status["program"]["state"], "stopped", "{status}");
    let threads = check(json!({"op": "threads"}), false);
    assert!(threads["threads"].as_array().unwrap().iter().any(|thread| thread["stopped"] == true), "{threads}");
    let stack = check(json!({"op": "stack"}), false);
    let frame_id = stack["frames"][0]["frame_id"].as_u64().unwrap();
    assert_eq!(stack["frames"][0]["name"], "add", "{stack}");
    let scopes = check(json!({"op": "scopes", "frame_id": frame_id}), false);
    let locals = scopes["scopes"][0]["reference"].as_u64().unwrap();
    let variables = check(json!({"op": "variables", "reference": locals}), false);
    let names: Vec<&str> = variables["variables"]["variables"].as_array().unwrap().iter().filter_map(|v| v["name"].as_str()).collect();
    assert!(names.contains(&"a") && names.contains(&"b"), "{variables}");
    check(json!({"op": "variables", "frame_id": frame_id}), false);
    check(json!({"op": "variables", "frame_id": frame_id, "reference": locals}), true);
    let value = check(json!({"op": "evaluate", "expression": "a + b"}), false);
    assert_eq!(value["value"]["value"], "5", "{value}");
    check(json!({"op": "evaluate", "expression": "undefined_name"}), true);
    let paused = check(json!({"op": "pause"}), false);
    assert_eq!(paused["program"]["state"], "stopped", "{paused}");
    let stepped = check(json!({"op": "step_over"}), false);
    assert_eq!(stepped["frames"][0]["line"], 3, "{stepped}");
    check(json!({"op": "step_out"}), false);
    check(json!({"op": "step_in"}), false);
    // Run to the end (through the text breakpoint on the print, if the step did not pass it).
    let mut printed = String::new();
    let mut states = Vec::new();
    for _ in 0..3 {
        let continued = check(json!({"op": "continue"}), false);
        printed.push_str(continued["new_output"].as_str().unwrap_or_default());
        states.push(continued["program"]["state"].as_str().unwrap_or_default().to_owned());
        if continued["program"]["state"] != "stopped" {
            break;
        }
        assert_eq!(continued["frames"][0]["line"], 8, "only the print's breakpoint is left: {continued}");
    }
    assert!(matches!(states.last().map(String::as_str), Some("exited" | "closed")), "{states:?}");
    assert!(printed.contains("result 5"), "{printed}");
    check(json!({"op": "output"}), false);
    let terminated = check(json!({"op": "terminate"}), false);
    assert!(terminated["session"].is_null(), "{terminated}");
    check(json!({"op": "attach", "port": 1}), true);
}

/// A run whose workers run `tests/data/vibe/worker.sh` (brief lines steer it: `sleep=S`,
/// `mode=fail`), or `None` after a loud SKIP when `sh` is missing.
fn vibe_run(test: &str) -> Option<(tempfile::TempDir, Run)> {
    support::require_binary(test, "sh")?;
    support::require_binary(test, "sleep")?;
    let command = format!("sh {}", std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vibe/worker.sh").display());
    let backend = CommandBackend::new().with_command(WorkerTier::Fast, command.clone()).with_command(WorkerTier::Good, command);
    let workspace = support::workspace_with(&[("README.md", "contract\n")]);
    let config =
        RunConfig { vibe: VibeConfig { wait_min: std::time::Duration::from_millis(100), ..VibeConfig::default() }, ..RunConfig::default() };
    let run = Run::builder(workspace.path()).config(config).vibe_roster(VibeSetup::new(Arc::new(backend))).build().expect("build the run");
    Some((workspace, run))
}

#[test]
fn vibe_results_validate_against_the_declared_output_schema() {
    let Some((_workspace, run)) = vibe_run("contract::vibe_results_validate_against_the_declared_output_schema") else { return };
    let mut called = BTreeSet::new();
    let mut check = |name: &str, arguments: Value, expect_error: bool| -> Value {
        called.insert(name.to_owned());
        call_checked(&run, name, arguments, expect_error).structured_content.expect("checked above")
    };
    let empty = check("vibe_list", json!({}), false);
    assert_eq!(empty["workers"], json!([]));
    let spawned = check("vibe_spawn", json!({"brief": "sleep=0", "label": "quick"}), false);
    let quick = spawned["worker_id"].as_str().unwrap().to_owned();
    let done = check("vibe_wait", json!({"worker_id": quick, "timeout_seconds": 30}), false);
    assert_eq!((done["status"].as_str(), done["timed_out"].as_bool()), (Some("completed"), Some(false)), "{done}");
    assert!(done["last_result"].as_str().unwrap().contains("label=quick"), "{done}");
    let failing = check("vibe_spawn", json!({"brief": "mode=fail", "label": "failing", "tier": "good"}), false)["worker_id"].clone();
    let failed = check("vibe_wait", json!({"worker_id": failing, "timeout_seconds": 30}), false);
    assert_eq!(failed["status"], "failed", "{failed}");
    let slow = check("vibe_spawn", json!({"brief": "sleep=30", "label": "slow"}), false)["worker_id"].as_str().unwrap().to_owned();
    let waited = check("vibe_wait", json!({"worker_id": slow, "timeout_seconds": 0.2}), false);
    assert_eq!(waited["timed_out"], true, "{waited}");
    let sent = check("vibe_send", json!({"worker_id": slow, "message": "sleep=30"}), false);
    assert_eq!(sent["attempt"], 2, "{sent}");
    let resent = check("vibe_send", json!({"worker_id": quick, "message": "again"}), false);
    assert_eq!(resent["previous_status"], "completed", "{resent}");
    let listed = check("vibe_list", json!({}), false);
    assert_eq!(listed["workers"].as_array().map(Vec::len), Some(3), "{listed}");
    let killed = check("vibe_kill", json!({"worker_id": slow}), false);
    assert!(matches!(killed["status"].as_str(), Some("killed" | "stopping")), "{killed}");
    check("vibe_kill", json!({"worker_id": slow}), false);
    // Errors share the one shape.
    check("vibe_wait", json!({"worker_id": "worker_99"}), true);
    check("vibe_send", json!({"worker_id": "worker_99", "message": "x"}), true);
    check("vibe_kill", json!({"worker_id": "worker_99"}), true);
    check("vibe_spawn", json!({"brief": "", "label": "empty"}), true);
    check("vibe_list", json!({"unexpected": 1}), true);
    assert_eq!(called.iter().map(String::as_str).collect::<Vec<_>>(), VIBE_TOOLS);
}

#[test]
fn debug_and_vibe_results_that_drift_from_their_schemas_are_caught() {
    let Some((_workspace, run)) = vibe_run("contract::debug_and_vibe_results_that_drift_from_their_schemas_are_caught") else { return };
    let spawned = run.call(Caller::Main, "vibe_spawn", json!({"brief": "sleep=0", "label": "drift"}));
    let descriptor = run.registry().descriptor("vibe_spawn").unwrap();
    assert!(descriptor.check_output(&spawned).is_ok());
    let mut drifted = spawned.clone();
    drifted.structured_content.as_mut().unwrap()["status"] = json!("asleep");
    assert!(descriptor.check_output(&drifted).is_err(), "a status outside the enum must fail");
    let worker_id = spawned.structured_content.as_ref().unwrap()["worker_id"].clone();
    let mut waited = run.call(Caller::Main, "vibe_wait", json!({"worker_id": worker_id, "timeout_seconds": 30}));
    let wait_descriptor = run.registry().descriptor("vibe_wait").unwrap();
    assert!(wait_descriptor.check_output(&waited).is_ok());
    waited.structured_content.as_mut().unwrap().as_object_mut().unwrap().remove("timed_out");
    assert!(wait_descriptor.check_output(&waited).is_err(), "a missing required field must fail");
    let mut listed = run.call(Caller::Main, "vibe_list", json!({}));
    let list_descriptor = run.registry().descriptor("vibe_list").unwrap();
    assert!(list_descriptor.check_output(&listed).is_ok());
    listed.structured_content.as_mut().unwrap()["workers"][0]["attempt"] = json!("first");
    assert!(list_descriptor.check_output(&listed).is_err(), "a string where an integer is declared must fail");

    let workspace = support::workspace_with(&[("a.py", "x = 1\n")]);
    let debug = debug_run(workspace.path());
    let descriptor = debug.registry().descriptor("debug").unwrap();
    let mut stored = debug.call(Caller::Main, "debug", json!({"op": "breakpoints", "file": "a.py", "lines": [1]}));
    assert!(descriptor.check_output(&stored).is_ok(), "{:?}", stored.structured_content);
    stored.structured_content.as_mut().unwrap()["breakpoints"][0]["requested_line"] = json!(-1);
    assert!(descriptor.check_output(&stored).is_err(), "a negative line must fail");
    let mut status = debug.call(Caller::Main, "debug", json!({"op": "status"}));
    status.structured_content.as_mut().unwrap()["op"] = json!("fly");
    assert!(descriptor.check_output(&status).is_err(), "an op outside the enum must fail");
    status.structured_content.as_mut().unwrap()["op"] = json!("status");
    status.structured_content.as_mut().unwrap()["program"] = json!({"state": "flying"});
    assert!(descriptor.check_output(&status).is_err(), "a program state outside the enum must fail");
}
