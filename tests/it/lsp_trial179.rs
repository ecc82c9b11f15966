//! Wrong answers from the fresh-user trial 179 (@fp-ts/core 0.2.1 as a pnpm workspace), against
//! the real typescript-language-server and `tsc -b`, on a fixture of the report's minimal shape
//! (`/work/trial/179/repro3`): packages `lib` (`@x/lib`, its `index.ts` re-exporting the module
//! `mod.ts` as a namespace, `import * as mod from "./mod"; export { mod }`) and `app` (its
//! consumer, `import { mod as M } from "@x/lib"`), each a composite project, app referencing lib,
//! `packages/app/node_modules/@x/lib -> ../../../lib` as pnpm links a workspace package.
//! - F1: renaming the namespace re-export `mod` asked the consumer root's server at what
//!   runbound took for the declaration — tsserver's definition of a namespace binding is the
//!   module, its span at the module's first statement (`import type { LazyArg } from "./fn"`) —
//!   and that server renamed `LazyArg` (the import made `LazyArg as modNs`, every use `modNs<A>`),
//!   under a "only the local binding was renamed … now imports `mod as modNs`" WARNING.
//! - M4: `definition` of the namespace binding quoted that line (`mod.ts:5: import type {
//!   LazyArg } …`) as if it were the declaration.
//!
//! Ground truth: `tsc -b` of the solution.

use crate::support;

use serde_json::json;

const PROJECT: &str = "{\"compilerOptions\":{\"composite\":true,\"declaration\":true,\"strict\":true,\"module\":\"node16\",\"moduleResolution\":\"node16\",\"target\":\"ES2020\",\"rootDir\":\"src\",\"outDir\":\"dist\"},\"include\":[\"src\"]";

/// `mod.ts` as the trial's repro has it: a leading comment, then the import whose line
/// tsserver's definition of the namespace binding starts at.
const MODULE: &str = "/**\n * a module\n */\n\nimport type { LazyArg } from \"./fn\"\nexport const orElse = <A>(f: LazyArg<A>): A => f()\nexport const orElse2 = <A>(f: LazyArg<A>): A => f()\n";

/// The workspace of the module docs.
fn workspace() -> tempfile::TempDir {
    let app_tsconfig = format!("{PROJECT},\"references\":[{{\"path\":\"../lib\"}}]}}\n");
    let lib_tsconfig = format!("{PROJECT}}}\n");
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\":\"r3\",\"private\":true}\n"),
        ("pnpm-workspace.yaml", "packages: [\"packages/*\"]\n"),
        ("tsconfig.json", "{\"files\":[],\"references\":[{\"path\":\"packages/lib\"},{\"path\":\"packages/app\"}]}\n"),
        (
            "packages/lib/package.json",
            "{\"name\":\"@x/lib\",\"version\":\"1.0.0\",\"exports\":{\".\":{\"types\":\"./dist/index.d.ts\",\"default\":\"./dist/index.js\"},\"./*\":{\"types\":\"./dist/*.d.ts\",\"default\":\"./dist/*.js\"}}}\n",
        ),
        ("packages/lib/tsconfig.json", &lib_tsconfig),
        ("packages/lib/src/fn.ts", "export interface LazyArg<A> { (): A }\nexport const twice = (n: number): number => n * 2\n"),
        ("packages/lib/src/mod.ts", MODULE),
        ("packages/lib/src/index.ts", "import * as mod from \"./mod\"\nexport {\n  mod,\n}\n"),
        ("packages/app/package.json", "{\"name\":\"app\",\"private\":true,\"dependencies\":{\"@x/lib\":\"workspace:*\"}}\n"),
        ("packages/app/tsconfig.json", &app_tsconfig),
        ("packages/app/src/use.ts", "import { mod as M } from \"@x/lib\"\nexport const v = M.orElse(() => 1)\n"),
    ]);
    std::fs::create_dir_all(dir.path().join("packages/app/node_modules/@x")).expect("create node_modules/@x");
    std::os::unix::fs::symlink("../../../lib", dir.path().join("packages/app/node_modules/@x/lib")).expect("link node_modules/@x/lib");
    dir
}

/// `tsc -b` of the solution at `dir`: its error lines.
fn tsc_build_errors(dir: &std::path::Path) -> Vec<String> {
    let output = std::process::Command::new("tsc").args(["-b", "--pretty", "false"]).current_dir(dir).output().expect("run tsc -b");
    String::from_utf8_lossy(&output.stdout).lines().filter(|line| line.contains("error TS")).map(str::to_owned).collect()
}

/// F1: the consumer root is asked where the rename was asked (the export specifier), not at the
/// module's first statement: `LazyArg` keeps its name, app's import follows the new export, the
/// solution builds, and the answer says the definition is the module and the export alone was
/// renamed (no "now imports" WARNING); `definition` of the binding names the module (M4).
#[test]
fn renaming_a_namespace_reexport_asks_no_root_at_the_module() {
    const NAME: &str = "lsp_trial179::renaming_a_namespace_reexport_asks_no_root_at_the_module";
    if support::require_binary(NAME, "typescript-language-server").is_none() || support::require_binary(NAME, "tsc").is_none() {
        return;
    }
    let dir = workspace();
    assert_eq!(tsc_build_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // M4: the definition is the module, not its line 5; a definition on a line naming the
    // symbol has no such label.
    let definition =
        support::call_ok(&run, "lsp", json!({"op": "definition", "file": "packages/app/src/use.ts", "line": 1, "symbol": "mod"}));
    assert!(
        definition.contains(
            "packages/lib/src/mod.ts:5: import type { LazyArg } from \"./fn\"   ← the module packages/lib/src/mod.ts itself, not this line: this line does not name `mod`"
        ),
        "{definition}"
    );
    let declaration =
        support::call_ok(&run, "lsp", json!({"op": "definition", "file": "packages/lib/src/mod.ts", "line": 6, "symbol": "LazyArg"}));
    assert!(declaration.contains("packages/lib/src/fn.ts:1: export interface LazyArg<A> { (): A }"), "{declaration}");
    assert!(!declaration.contains("the module"), "{declaration}");
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "packages/lib/src/index.ts", "line": 3, "symbol": "mod", "new_name": "modNs"}));
    let module = std::fs::read_to_string(dir.path().join("packages/lib/src/mod.ts")).unwrap();
    assert_eq!(module, MODULE, "the module is not the renamed symbol:\n{text}");
    let index = std::fs::read_to_string(dir.path().join("packages/lib/src/index.ts")).unwrap();
    assert!(index.contains("mod as modNs"), "{index}\n{text}");
    let app = std::fs::read_to_string(dir.path().join("packages/app/src/use.ts")).unwrap();
    assert!(app.starts_with("import { modNs as M } from \"@x/lib\""), "{app}\n{text}");
    assert_eq!(tsc_build_errors(dir.path()), Vec::<String>::new(), "{text}");
    assert!(
        text.contains(
            "'s definition of `mod` is packages/lib/src/mod.ts:5 (`import type { LazyArg } from \"./fn\"`), no declaration named `mod`"
        ),
        "{text}"
    );
    assert!(text.contains("note: only the exported name was renamed: packages/lib/src/index.ts:3 now exports `mod as modNs`"), "{text}");
    assert!(!text.contains("only the local binding was renamed"), "{text}");
    assert!(!text.contains("LazyArg as modNs"), "{text}");
}
