//! Wrong answers from the fresh-user trial 70 (immer 10.1.1), against the real
//! typescript-language-server and tsc, on a fixture of the same shape:
//! - F1: `implementation` of an interface called `const traps: ProxyHandler<[Sub]> = {}` a value
//!   "declared with its type … it implements it, checked by the compiler"; tsc rejects it as one.
//! - F2: renaming a class that the entry re-exports as `export {Foo}` warned of a use that
//!   "meant another `Bar`" (the `Bar as Foo` the server wrote itself): "pick another name".
//! - F3: the occurrences outside the tsconfig that a rename leaves left out `.js` files (immer's
//!   JavaScript test suites, which import the sources).
//! - F4: renaming at an export specifier of the entry (`export { isDraft } from "./internal"`)
//!   "missed references", aliased the imports of the binding elsewhere, and the preview had no
//!   public-API note though the package export changed.
//!
//! Ground truth: tsc (`const c: Base = traps` is TS2739), grep.

use crate::support;

use serde_json::json;

fn immer_like() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"name\": \"immerlike\", \"version\": \"1.0.0\", \"main\": \"dist/index.js\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/a.ts",
            "export class Foo {\n  x = 1\n}\nexport interface Base {\n  a: number\n}\nexport interface Sub extends Base {\n  b: number\n}\nexport const traps: ProxyHandler<[Sub]> = {}\nexport const s: Sub = {a: 1, b: 2}\n",
        ),
        ("src/internal.ts", "export function isDraft(value: unknown): boolean {\n  return !!value\n}\n"),
        ("src/user.ts", "import {isDraft} from \"./internal\"\nexport const y = isDraft(1)\n"),
        ("src/index.ts", "import {Foo} from \"./a\"\nconst f = new Foo()\nexport const x = f.x\nexport {Foo}\nexport {\n  isDraft,\n} from \"./internal\"\n"),
        ("test/use.js", "const {Foo} = require(\"../src/a\")\nconsole.log(new Foo().x)\n"),
    ])
}

#[test]
fn a_generic_annotation_taking_the_type_is_no_implementation_checked_by_the_compiler() {
    let test = "lsp_trial70::a_generic_annotation_taking_the_type_is_no_implementation_checked_by_the_compiler";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = immer_like();
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    // Ground truth: the ProxyHandler is no `Base`; `s` is.
    std::fs::write(
        dir.path().join("src/proof.ts"),
        "import {Base, traps, s} from \"./a\"\nexport const c: Base = traps\nexport const d: Base = s\n",
    )
    .unwrap();
    let errors = support::tsc_errors(dir.path());
    assert!(
        errors.len() == 1 && errors[0].contains("src/proof.ts(2,") && (errors[0].contains("TS2739") || errors[0].contains("TS2741")),
        "{errors:?}"
    );
    std::fs::remove_file(dir.path().join("src/proof.ts")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "src/a.ts", "line": 4, "symbol": "Base"}));
    let note = text.lines().find(|line| line.starts_with("note: of these locations:")).unwrap_or_else(|| panic!("{text}"));
    let checked = note.split("; ").find(|part| part.contains("checked by the compiler")).unwrap_or("");
    assert!(!checked.contains("src/a.ts:10"), "the ProxyHandler is said to implement it:\n{note}");
    if text.contains("src/a.ts:10:") {
        assert!(note.contains("src/a.ts:10 (object literal, `ProxyHandler<[Sub]>`)"), "{note}");
    }
}

#[test]
fn renames_at_a_re_exported_class_and_at_an_export_specifier_are_told_right() {
    let test = "lsp_trial70::renames_at_a_re_exported_class_and_at_an_export_specifier_are_told_right";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = immer_like();
    let run = support::lsp_run_allowing_writes(dir.path());
    // F2, F3.
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/a.ts", "line": 1, "symbol": "Foo", "new_name": "Bar", "preview": true}));
    assert!(!text.contains("pick another name"), "{text}");
    assert!(text.contains("outside tsconfig.json's files/include/exclude (test/use.js)"), "the JavaScript user is counted:\n{text}");
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_1", "action": "discard"}));
    // F4.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 6, "symbol": "isDraft", "new_name": "isDraftX", "preview": true}),
    );
    assert!(
        text.contains("note: public API changed: src/index.ts:6 exports `isDraft`, which the package `immerlike` exports as `isDraft`"),
        "{text}"
    );
    assert!(text.contains("`export { isDraft } from \"./internal\";`"), "{text}");
    assert!(!text.contains("renamed again from"), "{text}");
    support::call_ok(&run, "resolve", json!({"edit_id": "edit_2", "action": "accept"}));
    let user = std::fs::read_to_string(dir.path().join("src/user.ts")).unwrap();
    assert_eq!(user, "import {isDraft} from \"./internal\"\nexport const y = isDraft(1)\n", "the binding's importer is left as it was");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

/// M2: renaming a member that overrides a member of a built-in base (`DraftMap.forEach` of
/// `Map`, declared in lib.d.ts as an interface) is warned of: the base's member is what calls
/// through the base reach then.
#[test]
fn renaming_an_override_of_a_built_in_base_member_is_warned_of() {
    let test = "lsp_trial70::renaming_an_override_of_a_built_in_base_member_is_warned_of";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"maps\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/draft.ts",
            "export class DraftMap<K, V> extends Map<K, V> {\n  forEach(callback: (value: V, key: K, map: Map<K, V>) => void): void {\n    super.forEach(callback)\n  }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/draft.ts", "line": 2, "symbol": "forEach", "new_name": "forEachEntry", "preview": true}),
    );
    assert!(text.contains("WARNING: `DraftMap.forEach` overrides `forEach` of its base `Map` (declared outside the workspace"), "{text}");
}
