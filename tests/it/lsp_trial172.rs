//! Wrong answers from the fresh-user trial 172 (@trpc/server + @trpc/client 11.25.2 as a yarn
//! workspace), against the real typescript-language-server and tsc, on a fixture of the report's
//! minimal shape: packages `server` (`@s/server`) and `client` (its consumer), each its own root,
//! `node_modules/@s/server -> ../../server` as yarn links a workspace package, and the server's
//! `exports` mapping `.` to `src/index.ts` (an explicit export list) and `./core` to
//! `src/core.ts` (`export * from './router'`).
//! - F1: renaming the public type from a client use site kept the old name in the explicit list
//!   (`RouterDef as Router`) while the `export *` entry exported only the new one; the client's
//!   imports from that entry were said to "keep working", and tsc failed there (TS2724/TS2305).
//! - M10: the "left unrenamed … keep working" list named import lines the same call had made
//!   plain imports of the new name.
//! - M9: a parameter's rename asked the consumer root's server and ran the consumer's `tsc`
//!   before and after the write (58 s), though no other file can name a parameter.
//!
//! Ground truth: tsc in each package.

use crate::support;

use serde_json::json;

const TSCONFIG: &str =
    "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\", \"target\": \"ES2020\"}, \"include\": [\"src\"]}\n";

/// The client files importing `Router` from the `export *` entry `@s/server/core`: more than
/// the grep check renames again by asking the server from each (3), as in the trial (7 files).
const CORE_IMPORTERS: [&str; 7] = ["a", "b", "c", "e4", "e5", "e6", "e7"];

/// The workspace of the module docs; the client's `d.ts` imports `Router` from `@s/server`,
/// whose export list keeps the old name.
fn workspace() -> tempfile::TempDir {
    let mut files: Vec<(String, String)> = vec![
        ("package.json".into(), "{\"private\": true, \"workspaces\": [\"server\", \"client\"]}\n".into()),
        (
            "server/package.json".into(),
            "{\"name\": \"@s/server\", \"version\": \"1.0.0\", \"exports\": {\".\": {\"types\": \"./src/index.ts\"}, \"./core\": {\"types\": \"./src/core.ts\"}}}\n".into(),
        ),
        ("server/tsconfig.json".into(), TSCONFIG.into()),
        (
            "server/src/router.ts".into(),
            "export type Router = { name: string };\nexport function makeRouter(label: string): Router {\n  const name = label.trim();\n  return { name };\n}\n".into(),
        ),
        ("server/src/core.ts".into(), "export * from './router';\n".into()),
        ("server/src/index.ts".into(), "export { type Router, makeRouter } from './router';\n".into()),
        ("client/package.json".into(), "{\"name\": \"@s/client\", \"version\": \"1.0.0\", \"dependencies\": {\"@s/server\": \"*\"}}\n".into()),
        ("client/tsconfig.json".into(), TSCONFIG.into()),
        ("client/src/d.ts".into(), "import type { Router } from '@s/server';\nexport const d: Router = { name: 'd' };\n".into()),
    ];
    for name in CORE_IMPORTERS {
        files.push((
            format!("client/src/{name}.ts"),
            format!("import type {{ Router }} from '@s/server/core';\nexport function use_{name}(router: Router): string {{\n  return router.name;\n}}\n"),
        ));
    }
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
    let dir = support::workspace_with(&borrowed);
    std::fs::create_dir_all(dir.path().join("node_modules/@s")).expect("create node_modules/@s");
    std::os::unix::fs::symlink("../../server", dir.path().join("node_modules/@s/server")).expect("link node_modules/@s/server");
    dir
}

/// F1 and M10: the rename asked at a client use renames the imports from the `export *` entry
/// (which exports only the new name afterwards) and keeps the import from the entry whose export
/// list keeps the old name; the listing of what is left names no line the call renamed; tsc is
/// clean in both packages.
#[test]
fn a_rename_from_a_consumer_renames_the_imports_from_an_export_star_entry() {
    if support::require_binary(
        "lsp_trial172::a_rename_from_a_consumer_renames_the_imports_from_an_export_star_entry",
        "typescript-language-server",
    )
    .is_none()
        || support::require_binary("lsp_trial172::a_rename_from_a_consumer_renames_the_imports_from_an_export_star_entry", "tsc").is_none()
    {
        return;
    }
    let dir = workspace();
    let (server, client) = (dir.path().join("server"), dir.path().join("client"));
    assert_eq!(support::tsc_errors(&server), Vec::<String>::new());
    assert_eq!(support::tsc_errors(&client), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // Warm, as in the trial (a hover first): the client's server has loaded the project.
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "client/src/a.ts", "line": 2, "symbol": "Router"}));
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "client/src/a.ts", "line": 2, "symbol": "Router", "new_name": "RouterDef"}));
    // Ground truth first: both packages compile.
    assert_eq!(support::tsc_errors(&server), Vec::<String>::new(), "{text}");
    assert_eq!(support::tsc_errors(&client), Vec::<String>::new(), "{text}");
    for name in CORE_IMPORTERS {
        let written = std::fs::read_to_string(client.join(format!("src/{name}.ts"))).unwrap();
        assert!(
            written.starts_with("import type { RouterDef } from '@s/server/core';") && written.contains("(router: RouterDef)"),
            "client/src/{name}.ts:\n{written}\n{text}"
        );
    }
    let kept = std::fs::read_to_string(client.join("src/d.ts")).unwrap();
    assert!(kept.starts_with("import type { Router } from '@s/server';"), "the import through the kept export list is kept:\n{kept}");
    assert!(
        text.contains(
            "that import `Router` from `@s/server/core`: that entry point re-exports the renamed declaration only through `export *`"
        ),
        "{text}"
    );
    // M10: what is said to be left is what the files still read.
    let left: Vec<&str> = text.lines().filter(|line| line.starts_with("    client/src/")).collect();
    assert!(!left.is_empty() && left.iter().all(|line| line.starts_with("    client/src/d.ts:")), "{left:#?}\n{text}");
    assert!(!text.contains("files with `Router` the edit does not change: client/src/a.ts"), "{text}");
}

/// M9: a parameter's rename stays in its function: no other root is asked, the consumer's `tsc`
/// does not run before and after the write, and the check says why the consumer is not checked.
#[test]
fn a_parameter_rename_does_not_check_the_consumer_root() {
    if support::require_binary("lsp_trial172::a_parameter_rename_does_not_check_the_consumer_root", "typescript-language-server").is_none()
        || support::require_binary("lsp_trial172::a_parameter_rename_does_not_check_the_consumer_root", "tsc").is_none()
    {
        return;
    }
    let dir = workspace();
    let (server, client) = (dir.path().join("server"), dir.path().join("client"));
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "server/src/router.ts", "line": 2, "symbol": "label"}));
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "server/src/router.ts", "line": 2, "symbol": "label", "new_name": "title"}));
    let written = std::fs::read_to_string(server.join("src/router.ts")).unwrap();
    assert!(written.contains("makeRouter(title: string)") && written.contains("const name = title.trim();"), "{written}\n{text}");
    assert_eq!(support::tsc_errors(&server), Vec::<String>::new(), "{text}");
    assert_eq!(support::tsc_errors(&client), Vec::<String>::new(), "{text}");
    assert!(!text.contains("renamed across"), "no other root is asked for a parameter:\n{text}");
    assert!(
        text.contains("not checked, rightly: client/ — a project root that depends on server by path: this rename stays inside function `makeRouter` (lines 2–5 of server/src/router.ts)"),
        "{text}"
    );
    assert!(!text.contains("tsc --noEmit"), "the consumer's tsc does not run:\n{text}");
}
