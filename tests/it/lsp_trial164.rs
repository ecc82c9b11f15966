//! Wrong answers from the fresh-user trial 164 (@tanstack/store 0.11.3 + @tanstack/react-store
//! 0.11.4 in one npm-workspaces workspace), against the real typescript-language-server and tsc,
//! on a fixture of the report's minimal shape: packages `a` (the library) and `b` (its consumer,
//! `"dependencies": {"a": "*"}`), each with its own `tsconfig.json`, so each its own root, and
//! `node_modules/a -> ../a` as npm links a workspace package.
//! - F1: `references` and `incoming_calls` asked in the library missed every use in the consumer
//!   package, with no note.
//! - F2: `lsp_rename` of a library export left the consumer failing tsc (TS2724, TS2339) while
//!   the answer read clean.
//! - F3: diagnostics on write after a library edit missed the consumer's new errors and did not
//!   name the consumer as unchecked.
//!
//! Ground truth: tsc in each package.

use crate::support;

use serde_json::json;

const LIBRARY: &str = "export function f(): number {\n  return 1;\n}\nexport const g = f() + 1;\n\nexport class Store {\n  state = 0;\n  setState(next: number): void {\n    this.state = next;\n  }\n}\n";

const CONSUMER: &str = "import { f, Store } from 'a';\nexport const x: number = f();\nexport function h(): number {\n  return f() + x;\n}\nexport function bump(store: Store): void {\n  store.setState(store.state + 1);\n}\n";

const TSCONFIG: &str =
    "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\", \"target\": \"ES2020\"}, \"include\": [\"src\"]}\n";

/// The workspace: `a` and `b` with their manifests and tsconfigs, `node_modules/a` linking `a`
/// (what `npm install` makes for a workspace package).
fn workspace() -> tempfile::TempDir {
    let dir = support::workspace_with(&[
        ("package.json", "{\"private\": true, \"workspaces\": [\"a\", \"b\"]}\n"),
        ("a/package.json", "{\"name\": \"a\", \"version\": \"1.0.0\", \"types\": \"./src/index.ts\"}\n"),
        ("a/tsconfig.json", TSCONFIG),
        ("a/src/index.ts", LIBRARY),
        ("b/package.json", "{\"name\": \"b\", \"version\": \"1.0.0\", \"dependencies\": {\"a\": \"*\"}}\n"),
        ("b/tsconfig.json", TSCONFIG),
        ("b/src/u.ts", CONSUMER),
    ]);
    std::fs::create_dir_all(dir.path().join("node_modules")).expect("create node_modules");
    std::os::unix::fs::symlink("../a", dir.path().join("node_modules/a")).expect("link node_modules/a");
    dir
}

/// Whether the real servers this module drives are found (else the test is skipped, said).
fn servers_found(test: &str) -> bool {
    support::require_binary(test, "typescript-language-server").is_some() && support::require_binary(test, "tsc").is_some()
}

/// F1 and F2: references and incoming calls asked at the library's definition list the
/// consumer's uses; a rename there renames them too, and tsc is clean in both packages after it.
#[test]
fn library_references_calls_and_rename_cover_the_consumer_package() {
    if !servers_found("lsp_trial164::library_references_calls_and_rename_cover_the_consumer_package") {
        return;
    }
    let dir = workspace();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    assert_eq!(support::tsc_errors(&a), Vec::<String>::new());
    assert_eq!(support::tsc_errors(&b), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes_with_room(dir.path());

    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "a/src/index.ts", "line": 1, "symbol": "f"}));
    assert!(text.contains("5 references in 2 files"), "{text}");
    for line in ["  1: import { f, Store } from 'a';", "  2: export const x: number = f();", "  4: return f() + x;"] {
        assert!(text.contains(line), "the consumer's use `{line}` is missing:\n{text}");
    }
    assert!(text.contains("also searched b (it depends on a through its manifest)"), "{text}");

    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "a/src/index.ts", "line": 8, "symbol": "setState"}));
    assert!(text.contains("7: store.setState(store.state + 1);"), "the consumer's call of the method is missing:\n{text}");

    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "a/src/index.ts", "line": 1, "symbol": "f"}));
    assert!(text.contains("3 callers, 3 call sites"), "{text}");
    assert!(text.contains("2: export const x: number = f();") && text.contains("4: return f() + x;"), "{text}");
    assert!(!text.contains("NOT searched"), "{text}");

    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "a/src/index.ts", "line": 8, "symbol": "setState", "new_name": "updateState"}));
    assert!(text.contains("b/src/u.ts"), "the consumer's call is not renamed:\n{text}");
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "a/src/index.ts", "line": 1, "symbol": "f", "new_name": "first"}));
    assert!(text.contains("b/src/u.ts"), "the consumer's uses are not renamed:\n{text}");
    assert_eq!(support::tsc_errors(&a), Vec::<String>::new(), "after the renames:\n{text}");
    let consumer = std::fs::read_to_string(b.join("src/u.ts")).expect("read the consumer");
    assert_eq!(support::tsc_errors(&b), Vec::<String>::new(), "after the renames:\n{consumer}\n{text}");
    assert!(consumer.contains("store.updateState(") && consumer.contains("first()"), "{consumer}");
}

/// F3: a library edit that breaks the consumer names the consumer's new errors, as tsc reports
/// them there.
#[test]
fn a_library_write_names_the_errors_it_causes_in_the_consumer_package() {
    if !servers_found("lsp_trial164::a_library_write_names_the_errors_it_causes_in_the_consumer_package") {
        return;
    }
    let dir = workspace();
    let b = dir.path().join("b");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // The library's server is running, as after any earlier call.
    support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "a/src/index.ts"}));
    let (text, _) =
        support::edit_and_first_server_check(&run, "a/src/index.ts", "export function f(): number {", "export function f(): string {");
    let expected: Vec<String> = support::tsc_error_locations(&b).into_iter().filter(|error| error.starts_with("src/u.ts")).collect();
    assert_eq!(expected.len(), 2, "the fixture's edit breaks the consumer twice: {expected:?}");
    for location in ["b/src/u.ts:2", "b/src/u.ts:4"] {
        assert!(text.contains(location), "the consumer's new error at {location} is not named:\n{text}");
    }
}

/// M1: a rename asked at the consumer's import of a library class: tsserver renames the local
/// binding only (`import { Store as Box }`), the answer read "Renamed `Store` to `Box`" and the
/// class kept its name. Now the library's root renames the declaration (F2's cross-root rename),
/// and the consumer's alias is made a plain import of the renamed class: both packages compile,
/// and nothing says "local binding only".
#[test]
fn a_rename_at_a_consumer_import_renames_the_declaration_and_imports_it_plainly() {
    if !servers_found("lsp_trial164::a_rename_at_a_consumer_import_renames_the_declaration_and_imports_it_plainly") {
        return;
    }
    let dir = workspace();
    // A second consumer file importing over lines, one name per line (review48 H2).
    std::fs::write(
        dir.path().join("b/src/w.ts"),
        "import {\n  f,\n  Store,\n} from 'a';\nexport const made: Store = new Store();\nexport const one = f();\n",
    )
    .unwrap();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "b/src/u.ts", "line": 1, "symbol": "Store", "new_name": "Box"}));
    assert!(text.contains("import alias") && text.contains("of the renamed declaration plain (`Store as Box` → `Box`)"), "{text}");
    let other = std::fs::read_to_string(dir.path().join("b/src/w.ts")).unwrap();
    assert!(other.contains("  Box,\n} from 'a';") && other.contains("made: Box = new Box()"), "{other}");
    assert!(!text.contains("only the local binding was renamed"), "{text}");
    let consumer = std::fs::read_to_string(dir.path().join("b/src/u.ts")).unwrap();
    assert!(consumer.starts_with("import { f, Box } from 'a';") && consumer.contains("bump(store: Box)"), "{consumer}");
    assert!(std::fs::read_to_string(dir.path().join("a/src/index.ts")).unwrap().contains("export class Box {"));
    // Ground truth: both packages compile.
    assert_eq!(support::tsc_errors(&dir.path().join("a")), Vec::<String>::new());
    assert_eq!(support::tsc_errors(&dir.path().join("b")), Vec::<String>::new(), "{text}");
}

/// M1 in one project: asked at an import of another file's class, tsserver renames the local
/// binding only; the answer says so, with where the declaration is, and the project compiles.
#[test]
fn a_rename_at_an_import_that_makes_a_local_alias_says_the_declaration_keeps_its_name() {
    if !servers_found("lsp_trial164::a_rename_at_an_import_that_makes_a_local_alias_says_the_declaration_keeps_its_name") {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"x\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", TSCONFIG),
        ("src/a.ts", "export class Store {\n  n = 1;\n}\n"),
        ("src/b.ts", "import { Store } from './a';\nexport const s: Store = new Store();\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/b.ts", "line": 1, "symbol": "Store", "new_name": "Box"}));
    assert!(
        text.contains("WARNING: only the local binding was renamed: src/b.ts:1 now imports `Store as Box`, and the imported declaration `Store` (src/a.ts:1) keeps its name"),
        "{text}"
    );
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "{text}");
}
