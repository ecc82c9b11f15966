//! R-DOW-3: deletions, re-creations and project-configuration edits reach the language servers and the
//! diagnostics on write (issue 11, trial25): deleting an imported file names the errors it causes
//! in its importers; a file deleted then written back leaves its importers clean (tsserver is told
//! of the creation, not only sent a `didOpen`); an edit of `go.mod` is passed on to gopls and
//! answered with the whole-project next step.

use crate::support;

use runbound::{Caller, Run};
use serde_json::json;

fn call_ok(run: &Run, tool: &str, args: serde_json::Value) -> String {
    let result = run.call(Caller::Main, tool, args.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "{tool} {args} failed:\n{text}");
    text
}

fn diagnostics(run: &Run, file: &str) -> String {
    call_ok(run, "lsp", json!({"op": "diagnostics", "file": file}))
}

fn delete_patch(path: &str) -> serde_json::Value {
    json!({"patch": format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n")})
}

const HELPER_TS: &str = "export function helper(x: number): number {\n  return x + 1;\n}\n";

fn typescript_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"name\": \"events\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/helper.ts", HELPER_TS),
        ("src/a.ts", "import { helper } from \"./helper\";\nexport const one = helper(1);\n"),
        ("src/b.ts", "import { helper } from \"./helper\";\nexport const two = helper(2);\n"),
        ("src/unrelated.ts", "export const z: number = 1;\n"),
    ])
}

#[test]
fn typescript_deleting_an_imported_file_names_the_errors_in_its_importers() {
    let test = "typescript_deleting_an_imported_file_names_the_errors_in_its_importers";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = typescript_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    // The importers are clean first.
    assert!(diagnostics(&run, "src/a.ts").contains("no errors"), "fixture not clean");
    let text = call_ok(&run, "apply_patch", delete_patch("src/helper.ts"));
    let dow =
        text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("a deletion carried no diagnostics block:\n{text}"));
    for importer in ["src/a.ts", "src/b.ts"] {
        assert!(dow.contains(&format!("{importer}: new diagnostics introduced by this write (1, ")), "{importer} not named:\n{text}");
        assert!(
            dow.lines().any(|line| line.starts_with(&format!("  {importer}:1:")) && line.contains("2307")),
            "no TS2307 listed for {importer}:\n{text}"
        );
    }
    assert!(dow.contains("src/helper.ts was deleted"), "{text}");
}

#[test]
fn typescript_a_deleted_file_written_back_leaves_its_importers_clean() {
    let test = "typescript_a_deleted_file_written_back_leaves_its_importers_clean";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = typescript_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    // As in trial25: only one importer is asked about after the deletion; the other is first
    // opened after the re-creation.
    assert!(diagnostics(&run, "src/unrelated.ts").contains("no errors"), "fixture not clean");
    call_ok(&run, "apply_patch", delete_patch("src/helper.ts"));
    let text = diagnostics(&run, "src/b.ts");
    assert!(text.contains("2307"), "the deletion's error is not seen:\n{text}");
    let text = call_ok(&run, "write", json!({"path": "src/helper.ts", "content": HELPER_TS}));
    assert!(!text.contains("new diagnostics introduced"), "{text}");
    // Within the normal wait: the next answers about the importers are clean.
    for importer in ["src/a.ts", "src/b.ts", "src/a.ts"] {
        let text = diagnostics(&run, importer);
        assert!(!text.contains("2307") && text.contains("no errors"), "{importer} still stale after the re-creation:\n{text}");
    }
    // Deleted and re-created by hand (rm, then a copy): the same.
    std::fs::remove_file(dir.path().join("src/helper.ts")).unwrap();
    let text = diagnostics(&run, "src/a.ts");
    assert!(text.contains("2307"), "a deletion by hand is not seen:\n{text}");
    std::fs::write(dir.path().join("src/helper.ts"), HELPER_TS).unwrap();
    let text = diagnostics(&run, "src/a.ts");
    assert!(!text.contains("2307") && text.contains("no errors"), "stale after a re-creation by hand:\n{text}");
}

const ENV_TS: &str = "// Should be no imports here!\n\nexport const NOTHING: unique symbol = Symbol.for(\"nothing\")\n\nexport const DRAFT_STATE: unique symbol = Symbol.for(\"state\")\n";

/// immer 11.2.14's shape (trial41 F2, F3): a module with no imports, re-exported by a barrel
/// (`export * from "./env"`) that every other module imports from.
fn barrel_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"name\": \"barrel\", \"version\": \"1.0.0\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/env.ts", ENV_TS),
        ("src/internal.ts", "export * from \"./env\"\nexport * from \"./common\"\n"),
        ("src/common.ts", "import { DRAFT_STATE } from \"./internal\"\nexport function isDraft(value: any): boolean {\n  return !!value && !!value[DRAFT_STATE]\n}\n"),
        ("src/proxy.ts", "import { DRAFT_STATE, NOTHING } from \"./internal\"\nexport const state = { [DRAFT_STATE]: 1 }\nexport const nothing = NOTHING\n"),
        ("src/scope.ts", "import { DRAFT_STATE } from \"./internal\"\nexport const key = DRAFT_STATE\n"),
    ])
}

fn move_patch(from: &str, to: &str) -> serde_json::Value {
    json!({"patch": format!("*** Begin Patch\n*** Update File: {from}\n*** Move to: {to}\n@@\n // Should be no imports here!\n+// moved\n \n*** End Patch\n")})
}

/// trial41 F2: a move checked the importers of the moved module through its importers' import
/// lines and their states before the deletion reached the disk; F3: moved back, tsserver's
/// projects are reloaded, so references and the next write's check see the module again.
#[test]
fn typescript_moving_a_reexported_module_away_and_back_is_checked_against_tsc() {
    let test = "typescript_moving_a_reexported_module_away_and_back_is_checked_against_tsc";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = barrel_workspace();
    assert!(support::tsc_errors(dir.path()).is_empty(), "fixture not clean: {:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = call_ok(&run, "apply_patch", move_patch("src/env.ts", "src/environment.ts"));
    let tsc = support::tsc_errors(dir.path());
    assert!(tsc.len() >= 4, "the move should break the barrel's users: {tsc:?}");
    let dow = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(
        dow.contains(&format!("this write introduced {} new errors", tsc.len())),
        "tsc counts {} errors after the move ({tsc:?}):\n{text}",
        tsc.len()
    );
    for file in ["src/internal.ts", "src/common.ts", "src/proxy.ts", "src/scope.ts"] {
        assert!(dow.contains(&format!("{file}: new diagnostics introduced by this write")), "{file} not named:\n{text}");
    }
    // Moved back: clean, as tsc says.
    let back = json!({"patch": "*** Begin Patch\n*** Update File: src/environment.ts\n*** Move to: src/env.ts\n@@\n // Should be no imports here!\n-// moved\n \n*** End Patch\n"});
    let broken = tsc.len();
    let text = call_ok(&run, "apply_patch", back);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    assert!(!text.contains("new diagnostics introduced"), "{text}");
    // trial43 M5: the errors the move back fixed are said fixed, all of them.
    assert_eq!(resolved_count(&text), broken, "tsc counted {broken} errors before the move back:\n{text}");
    let text = diagnostics(&run, "src/internal.ts");
    assert!(!text.contains("2307") && text.contains("no errors"), "tsserver still stale after the move back:\n{text}");
    let text = call_ok(&run, "lsp", json!({"op": "references", "file": "src/env.ts", "line": 5, "symbol": "DRAFT_STATE"}));
    for file in ["src/common.ts", "src/proxy.ts", "src/scope.ts"] {
        assert!(text.contains(&format!("{file} (")), "references miss {file} after the move back:\n{text}");
    }
    // The next write that breaks the users is seen breaking them.
    let text = call_ok(
        &run,
        "edit",
        json!({"path": "src/env.ts", "old_string": "export const DRAFT_STATE", "new_string": "export const DRAFT_STATE_X"}),
    );
    let tsc = support::tsc_errors(dir.path());
    assert!(text.contains(&format!("this write introduced {} new errors", tsc.len())), "tsc: {tsc:?}\n{text}");
}

/// The errors a write's answer says it resolved: the sum of its `FILE: resolved by this write
/// (N, …)` (or `(showing A of N, …)`) counts.
fn resolved_count(text: &str) -> usize {
    text.lines()
        .filter_map(|line| line.split_once(": resolved by this write (").map(|(_, rest)| rest))
        .map(|rest| {
            let count = rest.split(',').next().unwrap_or("");
            let count = count.rsplit(" of ").next().unwrap_or(count);
            count.trim().parse::<usize>().unwrap_or_else(|_| panic!("unreadable count in {rest}"))
        })
        .sum()
}

/// trial43 M5 and M6: writing the module an import waits for checks that importer — its failed
/// import ends, and what it asks of the module that is not there is new, as tsc says — and the
/// created file is not said to change "only comments or whitespace".
#[test]
fn typescript_creating_the_module_an_import_waits_for_checks_that_importer_against_tsc() {
    let test = "typescript_creating_the_module_an_import_waits_for_checks_that_importer_against_tsc";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\"}, \"include\": [\"src\"]}\n"),
        ("src/consumer.ts", "export const total = (a: number, b: number): number => a + b\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = call_ok(
        &run,
        "edit",
        json!({"path": "src/consumer.ts", "old_string": "export const total", "new_string": "import { clamp } from \"./math\"\nexport const c = clamp(1, 2, 3)\nexport const total"}),
    );
    let tsc = support::tsc_errors(dir.path());
    assert_eq!(tsc.len(), 1, "{tsc:?}");
    assert!(text.contains("this write introduced 1 new error"), "{text}");
    // The module comes, without the name the import asks for.
    let text = call_ok(
        &run,
        "write",
        json!({"path": "src/math.ts", "content": "export function clampValue(v: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, v))\n}\n"}),
    );
    let tsc = support::tsc_errors(dir.path());
    assert_eq!(tsc.len(), 1, "{tsc:?}");
    assert!(tsc[0].contains("TS2305") && tsc[0].contains("consumer.ts"), "{tsc:?}");
    assert!(!text.contains("only comments or whitespace"), "a created file is no comment-only change:\n{text}");
    assert!(text.contains("checked: src/math.ts and 1 file that imports it"), "{text}");
    assert!(
        text.contains("this write introduced 1 new error")
            && text.contains("src/consumer.ts: new diagnostics introduced by this write (1,"),
        "tsc: {tsc:?}\n{text}"
    );
    assert!(text.contains("[2305]") || text.contains("2305"), "{text}");
    // The name is given: the importer is clean, and the write says its error is gone.
    let text = call_ok(
        &run,
        "edit",
        json!({"path": "src/math.ts", "old_string": "export function clampValue", "new_string": "export function clamp"}),
    );
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    assert_eq!(resolved_count(&text), 1, "{text}");
}

const LSTATER_GO: &str = "package events\n\n// Lstater can Lstat.\ntype Lstater interface {\n\tLstat(name string) (bool, error)\n}\n";

#[test]
fn gopls_deleting_a_file_names_the_errors_in_its_package() {
    let test = "gopls_deleting_a_file_names_the_errors_in_its_package";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/events\n\ngo 1.19\n"),
        ("lstater.go", LSTATER_GO),
        ("use.go", "package events\n\nvar _ Lstater = nil\n\nfunc Has(l Lstater) bool {\n\treturn l != nil\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    assert!(diagnostics(&run, "use.go").contains("no errors"), "fixture not clean");
    let text = call_ok(&run, "apply_patch", delete_patch("lstater.go"));
    let dow =
        text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("a deletion carried no diagnostics block:\n{text}"));
    assert!(dow.contains("use.go: new diagnostics introduced by this write (2, "), "use.go not named:\n{text}");
    assert_eq!(dow.lines().filter(|line| line.starts_with("  use.go:") && line.contains("Lstater")).count(), 2, "{text}");
    assert!(!dow.contains("checked: lstater.go"), "the deleted file is named as checked:\n{text}");
}

#[test]
fn gopls_an_edit_of_go_mod_that_breaks_the_module_does_not_read_clean() {
    let test = "gopls_an_edit_of_go_mod_that_breaks_the_module_does_not_read_clean";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/events\n\ngo 1.19\n"),
        ("sub/sub.go", "package sub\n\n// One is one.\nconst One = 1\n"),
        ("use.go", "package events\n\nimport \"example.com/events/sub\"\n\n// Two is two.\nconst Two = sub.One + 1\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    assert!(diagnostics(&run, "use.go").contains("no errors"), "fixture not clean");
    // The module renamed: example.com/events/sub no longer exists in it.
    let text = call_ok(
        &run,
        "edit",
        json!({"path": "go.mod", "old_string": "module example.com/events", "new_string": "module example.com/renamed"}),
    );
    assert!(
        text.contains("go.mod is a project configuration file") && text.contains("\"file\": \"*\""),
        "the go.mod edit said nothing about the project:\n{text}"
    );
    let text = diagnostics(&run, "use.go");
    assert!(!text.contains("no errors"), "use.go reads clean after go.mod broke its import:\n{text}");
}

#[test]
fn gopls_a_workspace_that_fails_to_load_is_said_not_clean_without_waiting_it_out() {
    let test = "gopls_a_workspace_that_fails_to_load_is_said_not_clean_without_waiting_it_out";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/events\n\ngo 1.19\n"),
        ("use.go", "package events\n\n// Two is two.\nconst Two = 2\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    assert!(diagnostics(&run, "use.go").contains("no errors"), "fixture not clean");
    // A requirement no proxy can provide (GOPROXY=off in the tests' environment or not: the
    // module does not exist): gopls' workspace load fails.
    call_ok(
        &run,
        "edit",
        json!({"path": "go.mod", "old_string": "go 1.19\n", "new_string": "go 1.19\n\nrequire example.invalid/missing v1.0.0\n"}),
    );
    let started = std::time::Instant::now();
    let mut text = diagnostics(&run, "use.go");
    // gopls reloads in the background: the failure shows within a few answers.
    for _ in 0..5 {
        if text.contains("could not load the workspace") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
        text = diagnostics(&run, "use.go");
    }
    assert!(text.contains("could not load the workspace") && !text.contains("reports no errors"), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(25), "the failed load was waited out: {:?}", started.elapsed());
    let text = call_ok(&run, "write", json!({"path": "use.go", "content": "package events\n\n// Two is two.\nconst Two = 1 + 1\n"}));
    assert!(!text.contains("no new errors"), "a write under a failed load read clean:\n{text}");
}

#[test]
fn typescript_moving_a_file_names_the_errors_in_the_importers_of_its_old_path() {
    let test = "typescript_moving_a_file_names_the_errors_in_the_importers_of_its_old_path";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = typescript_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    assert!(diagnostics(&run, "src/a.ts").contains("no errors"), "fixture not clean");
    let patch = "*** Begin Patch\n*** Update File: src/helper.ts\n*** Move to: src/helper-moved.ts\n@@\n export function helper(x: number): number {\n-  return x + 1;\n+  return x + 2;\n*** End Patch\n";
    let text = call_ok(&run, "apply_patch", json!({"patch": patch}));
    let dow = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    for importer in ["src/a.ts", "src/b.ts"] {
        assert!(
            dow.lines().any(|line| line.starts_with(&format!("  {importer}:1:")) && line.contains("2307")),
            "the importers of the old path are not named:\n{text}"
        );
    }
    // The new file did not exist: no "pre-write state is unknown" for it.
    assert!(!dow.contains("src/helper-moved.ts was not open"), "{text}");
}
