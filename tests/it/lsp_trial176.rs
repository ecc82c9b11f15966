//! Wrong answers from trial 176 (zod 3.25.76's sources as `packages/lib`, composite, `types` →
//! `dist/index.d.ts`, and a consumer `packages/app` with `references: [../lib]`, in one npm
//! workspace built by `tsc -b`), against the real tsc and typescript-language-server, on a
//! fixture of that shape: `lib` (composite, built to `dist/`), `app` (references `lib`, imports
//! it by package name through `node_modules/lib -> ../lib`), a solution `tsconfig.json`
//! (`"files": []` + references).
//! - F1: a lib write that broke app read "checked: app/ … by its own `tsc --noEmit -p` … no
//!   errors": `tsc -p` resolves `lib` through its stale `dist/*.d.ts`.
//! - F2: `"*"` ran `tsc --noEmit -p` per root and missed app's errors the same way.
//! - F3: on a fresh clone (no `dist/`), `"*"` reported `Cannot find module` errors that `tsc -b`
//!   does not have.
//!
//! Ground truth: `tsc -b --pretty false` in a copy of the workspace.

use std::path::Path;

use crate::support;

use serde_json::json;

const COMPOSITE: &str = "{\"compilerOptions\": {\"composite\": true, \"strict\": true, \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\", \"target\": \"ES2020\", \"rootDir\": \"src\", \"outDir\": \"dist\"}, \"include\": [\"src\"]";

const LIBRARY: &str = "export function f(): number {\n  return 1;\n}\nexport const g = 2;\n";

const CONSUMER: &str = "import { f, g } from 'lib';\nexport const x: number = f() + g;\n";

/// The workspace, unbuilt (a fresh clone): `lib`, `app`, the solution config and the npm link.
fn workspace() -> tempfile::TempDir {
    let lib_config = format!("{COMPOSITE}}}\n");
    let app_config = format!("{COMPOSITE}, \"references\": [{{\"path\": \"../lib\"}}]}}\n");
    let dir = support::workspace_with(&[
        ("package.json", "{\"private\": true, \"workspaces\": [\"lib\", \"app\"]}\n"),
        ("tsconfig.json", "{\"files\": [], \"references\": [{\"path\": \"./lib\"}, {\"path\": \"./app\"}]}\n"),
        ("lib/package.json", "{\"name\": \"lib\", \"version\": \"1.0.0\", \"types\": \"./dist/index.d.ts\"}\n"),
        ("lib/tsconfig.json", &lib_config),
        ("lib/src/index.ts", LIBRARY),
        ("app/package.json", "{\"name\": \"app\", \"version\": \"1.0.0\", \"dependencies\": {\"lib\": \"*\"}}\n"),
        ("app/tsconfig.json", &app_config),
        ("app/src/u.ts", CONSUMER),
    ]);
    std::fs::create_dir_all(dir.path().join("node_modules")).expect("create node_modules");
    std::os::unix::fs::symlink("../lib", dir.path().join("node_modules/lib")).expect("link node_modules/lib");
    dir
}

/// `tsc -b --pretty false`'s error lines for `workspace`, run in a copy of it (`cp -a`, links
/// kept): the project's own checker, which builds `lib` before `app`.
fn tsc_build_errors(workspace: &Path) -> Vec<String> {
    let copy = tempfile::tempdir().expect("temporary directory");
    let status = std::process::Command::new("cp")
        .args(["-a", &format!("{}/.", workspace.display()), &copy.path().display().to_string()])
        .status()
        .expect("run cp");
    assert!(status.success());
    let output = std::process::Command::new("tsc").args(["-b", "--pretty", "false"]).current_dir(copy.path()).output().expect("run tsc -b");
    String::from_utf8_lossy(&output.stdout).lines().filter(|line| line.contains("error TS")).map(str::to_owned).collect()
}

/// The workspace's files (relative, sorted) outside `node_modules`, with their modification
/// times: what a check must leave as it is.
fn files_and_times(workspace: &Path) -> Vec<(String, std::time::SystemTime)> {
    let mut found = Vec::new();
    let mut pending = vec![workspace.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("list a fixture folder") {
            let entry = entry.expect("fixture entry");
            let path = entry.path();
            if entry.file_name() == "node_modules" {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else {
                let modified = entry.metadata().expect("stat").modified().expect("mtime");
                found.push((path.strip_prefix(workspace).expect("under the fixture").display().to_string(), modified));
            }
        }
    }
    found.sort();
    found
}

/// Whether the real tools this module drives are found (else the test is skipped, said).
fn tools_found(test: &str) -> bool {
    support::require_binary(test, "typescript-language-server").is_some() && support::require_binary(test, "tsc").is_some()
}

/// F1 and F2: with `lib` built once (its `dist/` then stale), removing the export `app` imports
/// names app's error in the write check (by `tsc -b` in a mirror, before and after) and in
/// `"*"`, as `tsc -b` reports it; nothing is written into the workspace.
#[test]
fn a_library_write_that_breaks_a_referencing_project_is_checked_against_the_library_sources() {
    if !tools_found("lsp_trial176::a_library_write_that_breaks_a_referencing_project_is_checked_against_the_library_sources") {
        return;
    }
    let dir = workspace();
    let built = std::process::Command::new("tsc").args(["-b", "--pretty", "false"]).current_dir(dir.path()).output().expect("tsc -b");
    assert!(built.status.success(), "the fixture builds clean: {}", String::from_utf8_lossy(&built.stdout));
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "lib/src/index.ts"}));
    let before_write = files_and_times(dir.path());
    let (text, _) = support::edit_and_first_server_check(&run, "lib/src/index.ts", "export const g = 2;\n", "");
    let expected = tsc_build_errors(dir.path());
    assert_eq!(expected.len(), 1, "tsc -b: {expected:?}");
    assert!(expected[0].starts_with("app/src/u.ts(1,") && expected[0].contains("error TS2305"), "{expected:?}");
    // `tsc -p` in app, the old check, sees the stale dist/ and nothing wrong.
    assert_eq!(support::tsc_errors(&dir.path().join("app")), Vec::<String>::new());
    assert!(text.contains("app/src/u.ts:1: error[TS2305]"), "the write check misses app's error:\n{text}");
    assert!(text.contains("by its own `tsc -b tsconfig.json --pretty false`"), "{text}");

    let all = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(all.starts_with("project check: 1 error,"), "{all}");
    assert!(all.contains("app/src/u.ts:1: error[TS2305]"), "{all}");
    assert!(all.contains("ran `tsc -b tsconfig.json --pretty false` in . ("), "{all}");
    assert!(all.contains("app/tsconfig.json (a TypeScript project that tsconfig.json references) has no run of its own"), "{all}");
    // Only the edited file changed: no output, no build info written into the workspace.
    let after = files_and_times(dir.path());
    let changed: Vec<&String> = after
        .iter()
        .filter(|(path, time)| !before_write.iter().any(|(known, at)| known == path && at == time))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(changed, vec!["lib/src/index.ts"], "{all}");
}

/// F3: a fresh clone (no `dist/`, no build info): `"*"` has what `tsc -b` has (nothing), not the
/// `Cannot find module 'lib'` of `tsc -p` in app, and writes nothing.
#[test]
fn the_project_check_of_an_unbuilt_workspace_with_project_references_has_tsc_b_errors_only() {
    if !tools_found("lsp_trial176::the_project_check_of_an_unbuilt_workspace_with_project_references_has_tsc_b_errors_only") {
        return;
    }
    let dir = workspace();
    assert_eq!(tsc_build_errors(dir.path()), Vec::<String>::new());
    assert!(support::tsc_errors(&dir.path().join("app")).iter().any(|error| error.contains("TS2307")), "tsc -p in app: no lib");
    let before = files_and_times(dir.path());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let all = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(all.starts_with("project check: 0 errors"), "{all}");
    assert!(all.contains("build mode (the config has project references)"), "{all}");
    assert_eq!(files_and_times(dir.path()), before, "{all}");
}
