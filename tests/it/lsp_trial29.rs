//! Wrong answers from the fresh-user trial 29 (@reduxjs/toolkit 1.9.7), against the real
//! typescript-language-server and tsc on a fixture of the same shape:
//! - F3, F6, M3: the package ships `src/tests/tsconfig.json` = `{"extends":
//!   "../../tsconfig.test.json"}`, a file it does not ship. tsserver served the test files from
//!   that broken project: "the definition" of an imported function was the import line, a write
//!   reported the cascade of unresolved imports as "errors already present", and `"*"` (tsc for
//!   the root config only) disagreed with the file's own answer — the config never named.
//! - M9: a rename listed `from './createAction'` among the strings left for the agent to edit.
//!
//! F1 (incoming calls through `(a || f)(x)`) is in `lsp_hierarchy`; M7 (gopls methods labelled
//! "function") is a unit test of `lsp::hierarchy`.
//!
//! Ground truth: `tsc -p` of each config.

use crate::support;

use runbound::Caller;
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// `tsc --noEmit -p <config> --pretty false` in `dir`: its output lines.
fn tsc(dir: &Path, config: &str) -> Vec<String> {
    let output = Command::new("tsc").args(["--noEmit", "-p", config, "--pretty", "false"]).current_dir(dir).output().expect("run tsc");
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect()
}

/// rtk's shape: a root config with `paths` to the package's own source, and a tests folder whose
/// config extends a base that does not exist.
fn broken_nested_config() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"name\": \"kit\", \"version\": \"0.1.0\", \"private\": true}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true, \"baseUrl\": \".\", \"paths\": {\"kit\": [\"src/index.ts\"]}}, \"include\": [\"src\"]}\n",
        ),
        ("src/index.ts", "export { createSlice } from './createSlice';\n"),
        ("src/createSlice.ts", "export function createSlice(name: string): { name: string } {\n  return { name };\n}\n"),
        ("src/tests/tsconfig.json", "{\n  \"extends\": \"../../tsconfig.test.json\"\n}\n"),
        (
            "src/tests/createSlice.test.ts",
            "import { createSlice } from 'kit';\n\nexport function check(): boolean {\n  const slice = createSlice('todos');\n  return slice.name === 'todos';\n}\n",
        ),
    ])
}

/// F3, F6, M3: status, a lookup, a write and `"*"` each name the config that fails to load.
#[test]
fn a_nested_tsconfig_whose_base_is_missing_is_named_in_every_answer_from_it() {
    let test = "lsp_trial29::a_nested_tsconfig_whose_base_is_missing_is_named_in_every_answer_from_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = broken_nested_config();
    // Ground truth: the root config checks clean; the nested one fails to load (TS5083).
    assert!(tsc(dir.path(), "tsconfig.json").is_empty(), "{:?}", tsc(dir.path(), "tsconfig.json"));
    let nested = tsc(dir.path(), "src/tests/tsconfig.json");
    assert!(nested.iter().any(|line| line.contains("TS5083")), "{nested:?}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let definition = run.call(
        Caller::Readonly,
        "lsp",
        json!({"op": "definition", "file": "src/tests/createSlice.test.ts", "line": 4, "symbol": "createSlice"}),
    );
    let text = definition.joined_text();
    assert!(!definition.is_error, "{text}");
    let named = "src/tests/tsconfig.json does not load: it extends `../../tsconfig.test.json`, but there is no file at tsconfig.test.json (`tsc -p` fails with error TS5083)";
    assert!(text.contains(named), "the lookup does not name the broken config:\n{text}");
    assert!(text.contains("typescript-language-server answers for src/tests from a project whose config fails to load"), "{text}");

    let status = run.call(Caller::Readonly, "lsp", json!({"op": "status"})).joined_text();
    assert!(status.contains(&format!("project config: {named}")), "{status}");
    // The root's own config loads: its line has no such note.
    let root_section = status.split("root . (").nth(1).map(|rest| rest.split("\n  root ").next().unwrap_or(rest)).unwrap_or("");
    assert!(!root_section.contains("project config:"), "{status}");

    // A write in the tests folder: the server's block names the config.
    let (text, server) = support::edit_and_first_server_check(&run, "src/tests/createSlice.test.ts", "=== 'todos'", "=== 'todo'");
    assert!(text.contains(named), "the write's check does not name the broken config:\n{text}");
    assert!(server["notes"].to_string().contains("TS5083"), "{server}");

    let check = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"})).joined_text();
    assert!(
        check.contains("src/tests/tsconfig.json (a TypeScript project inside the workspace root) has no tsc run of its own"),
        "{check}"
    );
    assert!(check.contains(named), "{check}");
}

/// M9: `import { createAction } from './createAction'` — the module path names the file, not the
/// symbol. It was listed among the "strings left unrenamed — edit them yourself", with the line
/// whose identifier the rename did change.
#[test]
fn a_rename_leaves_module_paths_out_of_the_strings_to_edit() {
    let test = "lsp_trial29::a_rename_leaves_module_paths_out_of_the_strings_to_edit";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"kit\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/createAction.ts", "export function createAction(type: string): { type: string } {\n  return { type };\n}\n"),
        (
            "src/use.ts",
            "import { createAction } from './createAction';\n\nexport const label = 'createAction';\n\nexport function make(): { type: string } {\n  return createAction('x');\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/createAction.ts", "line": 1, "symbol": "createAction", "new_name": "makeAction", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("left unrenamed, rightly: 1 occurrence in the module paths of imports or exports"), "{text}");
    assert!(text.contains("left unrenamed: 0 in comments and 1 in strings"), "{text}");
    assert!(!text.contains("from './createAction'   (string)"), "{text}");
}

/// F2 (rename form, seen again on rtk in session 26): a rename through the root's tsserver wrote
/// a test file that the `src/tests` server (a config that fails to load) serves too. That server
/// had not run before the write; its view of the file was compared with another server's state
/// of it recorded moments earlier in the same write (rtk: 4 errors "introduced by this write");
/// the root's server, which had the file open and resynced it from the disk before taking its
/// "before", said an error that never existed "resolved by this write", and the unknown state
/// "already present before this write". `tsc -p .` after the rename: clean.
#[test]
fn one_servers_view_of_a_file_is_no_baseline_for_another_servers() {
    let test = "lsp_trial29::one_servers_view_of_a_file_is_no_baseline_for_another_servers";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = broken_nested_config();
    std::fs::write(
        dir.path().join("src/tests/createSlice.test.ts"),
        "import { createSlice } from '../createSlice';\nimport { createSlice as fromKit } from 'kit';\n\nexport function check(): boolean {\n  return createSlice('todos').name === fromKit('todos').name;\n}\n",
    )
    .expect("write the test file");
    assert!(tsc(dir.path(), "tsconfig.json").is_empty(), "{:?}", tsc(dir.path(), "tsconfig.json"));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/createSlice.ts", "line": 1, "symbol": "createSlice", "new_name": "makeSlice"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(tsc(dir.path(), "tsconfig.json").is_empty(), "the rename broke the project: {:?}\n{text}", tsc(dir.path(), "tsconfig.json"));
    let renamed = std::fs::read_to_string(dir.path().join("src/tests/createSlice.test.ts")).expect("read");
    assert!(renamed.contains("makeSlice('todos')"), "the rename did not reach the test file:\n{renamed}\n{text}");
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(!block.contains("new diagnostics introduced by this write"), "errors of another server's view called new:\n{text}");
    assert!(!block.contains("this write introduced"), "{text}");
    // The root's server read the test file already written (resynced from the disk): its
    // "before" was half-applied, so nothing is "resolved" from it (an error `makeSlice` not
    // exported was, before), and the unknown state is never "already present before this write".
    assert!(!block.contains("resolved by this write"), "{text}");
    assert!(!block.contains("already present before this write"), "{text}");
    assert!(block.contains("so its state before the write was half-applied"), "{text}");
}
