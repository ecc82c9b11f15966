//! Code actions and previews: `lsp` op `code_actions` (tier read) lists, `lsp_code_action`
//! (tier write) applies or stages one, `lsp_rename` with `preview: true` stages a rename, and
//! `resolve` accepts or discards what was staged — against real servers (rust-analyzer's
//! `codeAction/resolve` edits, typescript-language-server's refactorings that run as commands and
//! send `workspace/applyEdit` back, pyright's rename) and, for the protocol edge case of a server
//! that sends `workspace/applyEdit` on its own, a fake server
//! (`tests/data/lsp_fake_edits/bin/fake-edit-server`).
//!
//! The tier rule is proven here: a read-only (or plan) caller can list code actions and can
//! apply none — not by `lsp` (no argument writes), not by calling `lsp_code_action`, `lsp_rename`
//! or `resolve` (hidden), not through a read-tier host tool's nested call or the `eval` bridge
//! (both keep the caller), and not by a server pushing an edit during a read call (refused
//! outside `lsp_code_action`'s apply window).

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use runbound::lsp::{builtin_servers, LspConfig, ServerDefinition};
use runbound::registry::CallOrigin;
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig, Tier, ToolDescriptor, ToolError, ToolOutput, ToolResult};
use serde_json::{json, Value};

fn lsp_run(workspace: &Path, configure: impl FnOnce(&mut LspConfig)) -> Run {
    let mut config = RunConfig::default();
    configure(&mut config.lsp);
    support::lsp_run_allowing_writes_with_config(workspace, config)
}

fn ok(run: &Run, caller: Caller, tool: &str, arguments: Value) -> (String, Value) {
    let result = run.call(caller, tool, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "expected success for {tool} {arguments}, got:\n{text}");
    (text, result.structured_content.unwrap_or(Value::Null))
}

fn err(run: &Run, caller: Caller, tool: &str, arguments: Value) -> String {
    let result = run.call(caller, tool, arguments.clone());
    let text = result.joined_text();
    assert!(result.is_error, "expected an error for {tool} {arguments}, got:\n{text}");
    text
}

fn wait_ready(run: &Run, id: &str, timeout: Duration) {
    let start = Instant::now();
    loop {
        let status = run.call(Caller::Readonly, "lsp", json!({"op": "status"})).structured_content.expect("status json");
        let ready =
            status["servers"].as_array().unwrap().iter().filter(|server| server["id"] == id).any(|server| {
                server["roots"].as_array().unwrap().iter().any(|root| root["running"]["readiness"].as_str() == Some("ready"))
            });
        if ready {
            return;
        }
        assert!(start.elapsed() < timeout, "{id} not ready after {timeout:?}: {status}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn read(workspace: &Path, file: &str) -> String {
    std::fs::read_to_string(workspace.join(file)).unwrap()
}

/// The fake server as a run's server for `*.fake` files under a `fake.toml` root.
fn fake_config(config: &mut LspConfig) {
    let fake_bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lsp_fake_edits/bin");
    let mut search_path = fake_bin.as_os_str().to_owned();
    search_path.push(":");
    search_path.push(std::env::var_os("PATH").unwrap_or_default());
    config.search_path = Some(search_path);
    let template = builtin_servers().into_iter().find(|server| server.id == "pylsp").unwrap();
    config.servers.push(ServerDefinition {
        id: "fake-edits".to_owned(),
        binary_names: vec!["fake-edit-server".to_owned()],
        accept_versioned_binary: false,
        args: Vec::new(),
        extensions: vec![("fake".to_owned(), "plaintext".to_owned())],
        root_markers: vec!["fake.toml".to_owned()],
        initialization_options: Value::Null,
        settings: Value::Null,
        project_settings: runbound::lsp::ProjectSettings::None,
        startup_grace: Duration::from_millis(200),
        ..template
    });
    config.write_diagnostics = false;
}

/// A read-tier host tool that asks for `lsp_code_action` through a nested call (as any bridge
/// would): the nested call keeps the caller, so a read-only caller is refused.
fn nested_apply_tool() -> (ToolDescriptor, runbound::ToolHandler) {
    (
        ToolDescriptor {
            name: "nested_apply".to_owned(),
            description: "Calls lsp_code_action through a nested call (test tool).".to_owned(),
            tier: Tier::Read,
            input_schema: json!({"type": "object", "properties": {"arguments": {"type": "object"}}, "required": ["arguments"], "additionalProperties": false}),
            title: "Test tool".to_owned(),
            output_schema: None,
            annotations: runbound::ToolAnnotations::for_tier(Tier::Read),
            parallel_safe: true,
            default_timeout: Duration::from_secs(60),
        },
        Arc::new(|ctx: &runbound::CallContext<'_>, arguments: Value| -> Result<ToolOutput, ToolError> {
            let nested =
                ctx.call_nested("lsp_code_action", arguments["arguments"].clone(), CallOrigin::Bridge { via: "nested_apply".to_owned() });
            Ok(ToolOutput::new(ToolResult::text(nested.joined_text()).with_structured(json!({"nested_is_error": nested.is_error}))))
        }),
    )
}

#[test]
fn a_read_only_caller_lists_code_actions_and_applies_none_by_any_route() {
    if support::require_binary("lsp_code_action::a_read_only_caller", "python3").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[("fake.toml", ""), ("notes.fake", "original first line\nsecond line\n")]);
    let original = read(workspace.path(), "notes.fake");
    let mut config = RunConfig::default();
    fake_config(&mut config.lsp);
    let (descriptor, handler) = nested_apply_tool();
    let run = Run::builder(workspace.path())
        .config(config)
        .approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow))
        .language_servers()
        .kernel_factory(runbound::kernel::KernelFactory::new())
        .tool(descriptor, handler)
        .build()
        .expect("build run");
    let address = json!({"file": "notes.fake", "line": 1, "symbol": "original"});
    let mut apply = address.clone();
    apply["apply"] = json!(1);

    for caller in [Caller::Readonly, Caller::Plan] {
        // What a read-only caller sees: `lsp`, never a tool that writes.
        let visible: BTreeSet<String> = run.tools(caller).iter().map(|tool| tool.name.clone()).collect();
        assert!(visible.contains("lsp"), "{visible:?}");
        for hidden in ["lsp_code_action", "lsp_rename", "resolve", "eval", "write"] {
            assert!(!visible.contains(hidden), "{caller:?} sees {hidden}: {visible:?}");
        }
        // It lists the actions…
        let mut list = address.clone();
        list["op"] = json!("code_actions");
        let (text, structured) = ok(&run, caller, "lsp", list.clone());
        assert!(text.contains("1. Rewrite first line [command] — runs command fake.rewrite"), "{text}");
        assert!(text.contains("2. Replace with edit [quickfix] — edits notes.fake"), "{text}");
        assert_eq!(structured["results"].as_array().unwrap().len(), 2);
        // …`lsp` has no argument that applies one…
        let mut with_apply = list.clone();
        with_apply["apply"] = json!(1);
        let text = err(&run, caller, "lsp", with_apply);
        assert!(text.contains("invalid_arguments") && text.contains("apply"), "{text}");
        // …the applying tool is hidden, directly and through a nested call…
        let text = err(&run, caller, "lsp_code_action", apply.clone());
        assert!(text.contains("hidden_from_caller"), "{text}");
        let (text, structured) = ok(&run, caller, "nested_apply", json!({"arguments": apply}));
        assert_eq!(structured["nested_is_error"], true, "{text}");
        assert!(text.contains("hidden_from_caller"), "{text}");
        // …and the eval bridge is out of reach (eval itself is exec tier).
        let text =
            err(&run, caller, "eval", json!({"code": format!("tool('lsp_code_action', {apply})"), "description": "apply from read only"}));
        assert!(text.contains("hidden_from_caller"), "{text}");
        let text = err(&run, caller, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
        assert!(text.contains("hidden_from_caller"), "{text}");
        // A server that pushes an edit during a read call is refused.
        let mut hover = address.clone();
        hover["op"] = json!("hover");
        let (text, _) = ok(&run, caller, "lsp", hover);
        assert!(text.contains("applyEdit answered") && text.contains("\"applied\": false"), "{text}");
        assert!(text.contains("only while its write-tier tool lsp_code_action runs"), "{text}");
        assert_eq!(read(workspace.path(), "notes.fake"), original, "a read-only caller changed the file");
    }
    // The `lsp` schema has no argument that writes, and the tool is read tier (`features`,
    // `all_features`, `no_default_features` choose what `diagnostics "*"` compiles).
    let lsp = run.tools(Caller::Main).into_iter().find(|tool| tool.name == "lsp").unwrap();
    assert_eq!(lsp.tier, Tier::Read);
    assert_eq!(lsp.input_schema["additionalProperties"], false);
    let properties: BTreeSet<&str> = lsp.input_schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    let read_only: BTreeSet<&str> = [
        "op",
        "file",
        "line",
        "symbol",
        "occurrence",
        "server",
        "query",
        "offset",
        "kind",
        "depth",
        "locals",
        "features",
        "all_features",
        "no_default_features",
        "exclude",
    ]
    .into_iter()
    .collect();
    assert_eq!(properties, read_only, "every `lsp` argument only reads");
    let code_action = run.tools(Caller::Main).into_iter().find(|tool| tool.name == "lsp_code_action").unwrap();
    assert_eq!(code_action.tier, Tier::Write);

    // The main caller applies the command action: the server's edit lands during the call.
    let (text, structured) = ok(
        &run,
        Caller::Main,
        "lsp_code_action",
        json!({"file": "notes.fake", "line": 1, "symbol": "original", "apply": 1, "title": "Rewrite first line"}),
    );
    assert!(text.contains("ran command fake.rewrite: fake-edits sent 1 edit, applied to notes.fake"), "{text}");
    assert_eq!(structured["written"], json!(["notes.fake"]));
    assert_eq!(read(workspace.path(), "notes.fake"), "REWRITTEN BY COMMAND 1\nsecond line\n");
    // Outside the call the window is closed again: a hover's pushed edit is refused, also for main.
    let (text, _) = ok(&run, Caller::Main, "lsp", json!({"op": "hover", "file": "notes.fake", "line": 1, "symbol": "REWRITTEN"}));
    assert!(text.contains("\"applied\": false"), "{text}");
    assert_eq!(read(workspace.path(), "notes.fake"), "REWRITTEN BY COMMAND 1\nsecond line\n");

    // A stale title is refused with the current list; nothing changes.
    let text = err(
        &run,
        Caller::Main,
        "lsp_code_action",
        json!({"file": "notes.fake", "line": 1, "symbol": "REWRITTEN", "apply": 1, "title": "Replace with edit"}),
    );
    assert!(text.contains("is now \"Rewrite first line\", not \"Replace with edit\"") && text.contains("2. Replace with edit"), "{text}");
    let text = err(&run, Caller::Main, "lsp_code_action", json!({"file": "notes.fake", "line": 1, "symbol": "REWRITTEN", "apply": 3}));
    assert!(text.contains("there is no action 3") && text.contains("offers 2 actions"), "{text}");

    // Preview of the command action: the server's edit is refused and captured, then staged.
    let (text, structured) = ok(
        &run,
        Caller::Main,
        "lsp_code_action",
        json!({"file": "notes.fake", "line": 1, "symbol": "REWRITTEN", "apply": 1, "preview": true}),
    );
    assert!(text.contains("ran command fake.rewrite in preview mode") && text.contains("Nothing was written"), "{text}");
    assert!(text.contains("-REWRITTEN BY COMMAND 1\n+REWRITTEN BY COMMAND 2"), "{text}");
    let first_id = structured["edit_id"].as_str().unwrap().to_owned();
    assert_eq!(read(workspace.path(), "notes.fake"), "REWRITTEN BY COMMAND 1\nsecond line\n");
    // Preview of the edit action; accept writes it.
    let (text, structured) = ok(
        &run,
        Caller::Main,
        "lsp_code_action",
        json!({"file": "notes.fake", "line": 1, "symbol": "REWRITTEN", "apply": 2, "preview": true}),
    );
    assert!(text.contains("-REWRITTEN BY COMMAND 1\n+REPLACED BY EDIT"), "{text}");
    let second_id = structured["edit_id"].as_str().unwrap().to_owned();
    assert_ne!(first_id, second_id);
    assert_eq!(read(workspace.path(), "notes.fake"), "REWRITTEN BY COMMAND 1\nsecond line\n", "a preview writes nothing");
    let (text, _) = ok(&run, Caller::Main, "resolve", json!({"edit_id": second_id, "action": "accept"}));
    assert!(text.contains(&format!("accepted {second_id}")) && text.contains("notes.fake"), "{text}");
    assert_eq!(read(workspace.path(), "notes.fake"), "REPLACED BY EDIT\nsecond line\n");
    // The first staged change was captured against the old text: accepting it now is refused.
    let text = err(&run, Caller::Main, "resolve", json!({"edit_id": first_id, "action": "accept"}));
    assert!(text.contains("rejected") && text.contains("notes.fake (modified since staging)"), "{text}");
    assert_eq!(read(workspace.path(), "notes.fake"), "REPLACED BY EDIT\nsecond line\n");
}

#[test]
fn code_actions_on_rust_analyzer_apply_and_preview_resolved_edits() {
    if support::require_binary("lsp_code_action::code_actions_on_rust_analyzer", "rust-analyzer").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/rust");
    let run = lsp_run(workspace.path(), |_| ());
    // The first call starts rust-analyzer (its answer may time out while it indexes the sysroot
    // on a loaded machine); then wait until it is ready.
    let _ = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "src/pipeline.rs", "line": 8, "symbol": "total"}));
    wait_ready(&run, "rust-analyzer", Duration::from_secs(240));
    let address = json!({"file": "src/pipeline.rs", "line": 8, "symbol": "total"});
    let mut list = address.clone();
    list["op"] = json!("code_actions");
    let (text, structured) = ok(&run, Caller::Readonly, "lsp", list);
    let number_of = |title: &str| -> u64 {
        structured["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|action| action["title"] == title)
            .unwrap_or_else(|| panic!("no {title:?} in\n{text}"))["number"]
            .as_u64()
            .unwrap()
    };
    let explicit_type = number_of("Insert explicit type `i32`");
    assert!(text.contains("Insert explicit type `i32` [refactor.rewrite] — edit computed when applied"), "{text}");
    let before = read(workspace.path(), "src/pipeline.rs");

    // Preview: the edit comes from codeAction/resolve, is staged, and nothing is written.
    let mut preview = address.clone();
    preview["apply"] = json!(explicit_type);
    preview["title"] = json!("Insert explicit type `i32`");
    preview["preview"] = json!(true);
    let (text, structured) = ok(&run, Caller::Main, "lsp_code_action", preview);
    assert!(
        text.contains("-    let total = step_a(value) + step_b(value);\n+    let total: i32 = step_a(value) + step_b(value);"),
        "{text}"
    );
    assert_eq!(read(workspace.path(), "src/pipeline.rs"), before);
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    let (text, _) = ok(&run, Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(text.contains("src/pipeline.rs"), "{text}");
    let after = read(workspace.path(), "src/pipeline.rs");
    assert_eq!(after, before.replace("let total = ", "let total: i32 = "));

    // Applied directly: inline `total` (the file changed on disk; the server is resynced).
    let (text, structured) =
        ok(&run, Caller::Readonly, "lsp", json!({"op": "code_actions", "file": "src/pipeline.rs", "line": 8, "symbol": "total"}));
    let inline = structured["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|action| action["title"] == "Inline variable")
        .unwrap_or_else(|| panic!("{text}"));
    let (text, structured) = ok(
        &run,
        Caller::Main,
        "lsp_code_action",
        json!({"file": "src/pipeline.rs", "line": 8, "symbol": "total", "apply": inline["number"], "title": "Inline variable"}),
    );
    assert!(text.contains("Applied code action \"Inline variable\"") && text.contains("src/pipeline.rs"), "{text}");
    assert_eq!(structured["written"], json!(["src/pipeline.rs"]));
    let inlined = read(workspace.path(), "src/pipeline.rs");
    assert!(!inlined.contains("let total") && inlined.contains("(step_a(value) + step_b(value)).max(0)"), "{inlined}");
}

#[test]
fn code_actions_on_typescript_run_commands_inside_the_apply_window() {
    if support::require_binary("lsp_code_action::code_actions_on_typescript", "typescript-language-server").is_none() {
        return;
    }
    let applied = support::copy_fixture("lsp_hierarchy/typescript");
    let previewed = support::copy_fixture("lsp_hierarchy/typescript");
    let move_address = json!({"file": "src/basics.ts", "line": 5, "symbol": "stepA", "title": "Move to a new file"});
    let number = |run: &Run| -> u64 {
        let (text, structured) =
            ok(run, Caller::Readonly, "lsp", json!({"op": "code_actions", "file": "src/basics.ts", "line": 5, "symbol": "stepA"}));
        assert!(text.contains("Move to a new file [refactor.move.newFile] — runs command _typescript.applyRefactoring"), "{text}");
        structured["results"].as_array().unwrap().iter().find(|action| action["title"] == "Move to a new file").unwrap()["number"]
            .as_u64()
            .unwrap()
    };

    // Applied: the command runs, the server's edit (a new file and two changed ones) lands.
    let run = lsp_run(applied.path(), |config| config.write_diagnostics = false);
    let mut arguments = move_address.clone();
    arguments["apply"] = json!(number(&run));
    let (text, structured) = ok(&run, Caller::Main, "lsp_code_action", arguments);
    assert!(text.contains("ran command _typescript.applyRefactoring: typescript-language-server sent 1 edit"), "{text}");
    let written: BTreeSet<&str> = structured["written"].as_array().unwrap().iter().map(|path| path.as_str().unwrap()).collect();
    assert_eq!(written, BTreeSet::from(["src/basics.ts", "src/pipeline.ts", "src/stepA.ts"]), "{text}");
    let moved = read(applied.path(), "src/stepA.ts");
    assert!(moved.contains("export function stepA(value: number): number {"), "{moved}");
    assert!(!read(applied.path(), "src/basics.ts").contains("function stepA"));
    assert!(read(applied.path(), "src/pipeline.ts").contains("import { stepA } from \"./stepA\";"));
    drop(run);

    // Previewed: the server's edit is refused and staged, the empty file it created itself is
    // removed again, and accepting writes the same three files.
    let run = lsp_run(previewed.path(), |config| config.write_diagnostics = false);
    let mut arguments = move_address.clone();
    arguments["apply"] = json!(number(&run));
    arguments["preview"] = json!(true);
    let (text, structured) = ok(&run, Caller::Main, "lsp_code_action", arguments);
    assert!(text.contains("src/stepA.ts: 1 edit (created)") && text.contains("+++ b/src/stepA.ts (created)"), "{text}");
    assert!(text.contains("runbound removed it again"), "{text}");
    assert!(!previewed.path().join("src/stepA.ts").exists(), "a preview leaves no file behind");
    assert_eq!(read(previewed.path(), "src/basics.ts"), read(&support_fixture("lsp_hierarchy/typescript"), "src/basics.ts"));
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    let (text, _) = ok(&run, Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(text.contains("src/stepA.ts (created)"), "{text}");
    for file in ["src/basics.ts", "src/pipeline.ts", "src/stepA.ts"] {
        assert_eq!(read(previewed.path(), file), read(applied.path(), file), "{file}: the preview accepted equals the direct apply");
    }
}

/// A rename the server answers with ContentModified (rust-analyzer does so for a rename sent
/// while it still loads the workspace: a cold `lsp_rename` on semver 1.0.28 under load failed with
/// "-32801: content modified") is asked again: the rename only computes an edit that runbound
/// applies, so asking again is safe, and the second answer is written.
#[test]
fn a_rename_answered_content_modified_is_asked_again() {
    if support::require_binary("lsp_code_action::a_rename_answered_content_modified_is_asked_again", "python3").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[("fake.toml", ""), ("notes.fake", "original first line\nsecond line\n")]);
    let run = lsp_run(workspace.path(), fake_config);
    let (text, _) =
        ok(&run, Caller::Main, "lsp_rename", json!({"file": "notes.fake", "line": 1, "symbol": "original", "new_name": "renamed"}));
    assert_eq!(read(workspace.path(), "notes.fake"), "renamed first line\nsecond line\n", "{text}");
    assert!(!text.contains("content modified"), "{text}");
}

fn support_fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Whole-word occurrences of `word` in the workspace's `.py` files.
fn word_count(workspace: &Path, word: &str) -> usize {
    let mut count = 0;
    for entry in std::fs::read_dir(workspace).unwrap().flatten() {
        if entry.path().extension().and_then(|e| e.to_str()) != Some("py") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        count += text
            .match_indices(word)
            .filter(|(at, _)| {
                let before = text[..*at].chars().next_back();
                let after = text[at + word.len()..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
            .count();
    }
    count
}

#[test]
fn lsp_rename_preview_stages_and_resolve_checks_the_captured_files() {
    if support::require_binary("lsp_code_action::lsp_rename_preview", "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/python");
    let run = lsp_run(workspace.path(), |_| ());
    let helper_uses = word_count(workspace.path(), "helper");
    assert_eq!(helper_uses, 5, "def + 3 calls + 1 import");
    let before: Vec<String> = ["basics.py", "pipeline.py"].iter().map(|file| read(workspace.path(), file)).collect();
    let rename = json!({"file": "basics.py", "line": 1, "symbol": "helper", "new_name": "assist", "preview": true});
    let (text, structured) = ok(&run, Caller::Main, "lsp_rename", rename.clone());
    assert!(text.starts_with("(proposed) rename `helper` → `assist` (pyright): 5 edits in 2 files:"), "{text}");
    assert!(text.contains("Nothing was written: call resolve with edit_id"), "{text}");
    assert!(
        text.contains("--- a/basics.py\n+++ b/basics.py")
            && text.contains("-def helper(value: int) -> int:\n+def assist(value: int) -> int:"),
        "{text}"
    );
    assert!(text.contains("-from basics import helper, step_a\n+from basics import assist, step_a"), "{text}");
    let after_preview: Vec<String> = ["basics.py", "pipeline.py"].iter().map(|file| read(workspace.path(), file)).collect();
    assert_eq!(after_preview, before, "a preview writes nothing");
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    assert_eq!(structured["edits"], 5);

    // Accept: every file written; grep finds no `helper` and five `assist`.
    let (text, structured) = ok(&run, Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(text.contains(&format!("accepted {edit_id}: wrote 5 edits of rename `helper` → `assist` (pyright) in 2 files")), "{text}");
    assert_eq!(structured["staged_by"], "lsp_rename");
    assert_eq!((word_count(workspace.path(), "helper"), word_count(workspace.path(), "assist")), (0, 5));
    let text = err(&run, Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(text.contains("already accepted"), "{text}");

    // A file changed after staging rejects the whole change; nothing is written.
    let (_, structured) = ok(
        &run,
        Caller::Main,
        "lsp_rename",
        json!({"file": "basics.py", "line": 5, "symbol": "step_a", "new_name": "first_step", "preview": true}),
    );
    let changed_id = structured["edit_id"].as_str().unwrap().to_owned();
    let pipeline = read(workspace.path(), "pipeline.py");
    std::fs::write(workspace.path().join("pipeline.py"), format!("{pipeline}# touched\n")).unwrap();
    let basics = read(workspace.path(), "basics.py");
    let text = err(&run, Caller::Main, "resolve", json!({"edit_id": changed_id, "action": "accept"}));
    assert!(text.contains("rejected: 1 of its 2 files changed after it was staged: pipeline.py (modified since staging)"), "{text}");
    assert!(text.contains("run lsp_rename again"), "{text}");
    assert_eq!(read(workspace.path(), "basics.py"), basics, "all or nothing: the unchanged file was not written either");

    // A file made read-only after staging is refused whole; only its mode changed, so the staged
    // rename stays pending (issue 13 §4) and the next step is chmod, not staging again.
    let (_, structured) = ok(
        &run,
        Caller::Main,
        "lsp_rename",
        json!({"file": "basics.py", "line": 5, "symbol": "step_a", "new_name": "first_step", "preview": true}),
    );
    let read_only_id = structured["edit_id"].as_str().unwrap().to_owned();
    let target = workspace.path().join("pipeline.py");
    let mut permissions = std::fs::metadata(&target).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&target, permissions).unwrap();
    let text = err(&run, Caller::Main, "resolve", json!({"edit_id": read_only_id, "action": "accept"}));
    assert!(text.contains("pipeline.py (mode 0444) is read-only") && text.contains("stays pending"), "{text}");
    assert!(text.contains("chmod u+w pipeline.py") && !text.contains("run lsp_rename again"), "{text}");
    assert_eq!(read(workspace.path(), "basics.py"), basics);
    let (text, _) = ok(&run, Caller::Main, "resolve", json!({"edit_id": read_only_id, "action": "discard"}));
    assert!(text.contains("discarded"), "the read-only refusal left the rename pending: {text}");
    let mut permissions = std::fs::metadata(&target).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&target, permissions).unwrap();

    // Discard drops a staged rename; without preview lsp_rename writes at once, as before.
    let (_, structured) = ok(
        &run,
        Caller::Main,
        "lsp_rename",
        json!({"file": "basics.py", "line": 10, "symbol": "countdown", "new_name": "count_down", "preview": true}),
    );
    let discard_id = structured["edit_id"].as_str().unwrap().to_owned();
    let (text, _) = ok(&run, Caller::Main, "resolve", json!({"edit_id": discard_id, "action": "discard"}));
    assert!(text.contains("discarded") && text.contains("nothing was written"), "{text}");
    assert_eq!(word_count(workspace.path(), "count_down"), 0);
    let (text, _) =
        ok(&run, Caller::Main, "lsp_rename", json!({"file": "basics.py", "line": 10, "symbol": "countdown", "new_name": "count_down"}));
    assert!(text.starts_with("Renamed `countdown` to `count_down`"), "{text}");
    assert_eq!(word_count(workspace.path(), "count_down"), 2);
}
