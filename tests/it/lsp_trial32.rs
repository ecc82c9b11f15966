//! Wrong answers from the fresh-user trial 32 (@trpc/server 11.0.0's `src`), against the real
//! typescript-language-server and tsc on fixtures of the same shape:
//! - F1, F3: `implementation` of a type (or of an interface member) whose only implementations are
//!   values declared with it — `const jsonContentTypeHandler: ContentTypeHandler = {…}`, the
//!   property `createCaller: …` of `const router: BuiltRouter = {…}` — said those values "do not
//!   implement or extend" it (the zod rule for values cast with `as` was applied to them).
//!
//! Ground truth: the source read by hand, and tsc (a declared value that stops matching the type
//! is an error; a cast one is not).

use crate::support;

use runbound::Caller;
use serde_json::json;

/// F1, F3: values declared with the type are named as implementations; a cast value only claims it.
#[test]
fn values_declared_with_a_type_are_its_implementations_and_a_cast_value_only_claims_it() {
    let test = "lsp_trial32::values_declared_with_a_type_are_its_implementations_and_a_cast_value_only_claims_it";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"trpclike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/contentType.ts",
            "export type ContentTypeHandler = {\n  isMatch: (type: string) => boolean;\n  parse: (body: string) => unknown;\n};\n\nexport const jsonHandler: ContentTypeHandler = {\n  isMatch: (type) => type === 'json',\n  parse: (body) => JSON.parse(body),\n};\n\nexport const textHandler = {\n  isMatch: (type: string) => type === 'text',\n  parse: (body: string) => body,\n} satisfies ContentTypeHandler;\n\nexport const loose = {\n  isMatch: () => true,\n} as unknown as ContentTypeHandler;\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp",
        json!({"op": "implementation", "file": "src/contentType.ts", "line": 1, "symbol": "ContentTypeHandler"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("do not implement"), "{text}");
    let note = text.lines().find(|line| line.starts_with("note: of these locations:")).unwrap_or_else(|| panic!("{text}"));
    // The annotated `jsonHandler` is an implementation whenever tsserver lists it.
    if text.contains("src/contentType.ts:6:") {
        let declared = note.split("; ").find(|part| part.contains("declared with its type")).unwrap_or_else(|| panic!("{note}"));
        assert!(declared.contains("src/contentType.ts:6 (object literal)") && declared.contains("checked by the compiler"), "{note}");
    }
    if text.contains("src/contentType.ts:16:") {
        let cast = note.split("; ").find(|part| part.contains("cast with `as`")).unwrap_or_else(|| panic!("{note}"));
        assert!(cast.contains("src/contentType.ts:16"), "{note}");
    }
    assert!(text.contains("src/contentType.ts:6:"), "tsserver no longer lists the annotated object: is the fixture still F1's?\n{text}");
}

/// F2: a rename at the declaration of a function a barrel re-exports. tsserver keeps the barrel's
/// public name (`export { NEW as OLD }`) and leaves its importers alone; the grep cross-check took
/// those importers for missed references and renamed again from them, which aliased their imports
/// back (`OLD as NEW`) and renamed a second barrel's public name — reported "N of N renamed".
/// Now the importers through the kept name (and through a barrel re-exporting it) keep OLD, are
/// listed as such, and no `OLD as NEW` alias is written.
#[test]
fn importers_through_a_barrel_that_keeps_the_public_name_keep_it_without_aliases() {
    let test = "lsp_trial32::importers_through_a_barrel_that_keeps_the_public_name_keep_it_without_aliases";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"trpclike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/core/error.ts", "export function getErrorShape(cause: unknown): string {\n  return String(cause);\n}\n"),
        ("src/core/user.ts", "import { getErrorShape } from './error';\n\nexport const direct = getErrorShape(1);\n"),
        ("src/index.ts", "export {\n  getErrorShape,\n} from './core/error';\n"),
        ("src/compat.ts", "export { getErrorShape } from './index';\n"),
        ("src/adapters/ws.ts", "import { getErrorShape } from '../index';\n\nexport const shape = getErrorShape(2);\n"),
        ("src/adapters/legacy.ts", "import { getErrorShape } from '../compat';\n\nexport const old = getErrorShape(3);\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/core/error.ts", "line": 1, "symbol": "getErrorShape", "new_name": "buildErrorShape"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let read = |file: &str| std::fs::read_to_string(dir.path().join(file)).unwrap();
    assert!(read("src/core/error.ts").contains("export function buildErrorShape("), "{text}");
    assert!(read("src/core/user.ts").contains("buildErrorShape(1)"), "the direct importer is renamed:\n{text}");
    for file in ["src/adapters/ws.ts", "src/compat.ts", "src/adapters/legacy.ts"] {
        let content = read(file);
        assert!(!content.contains("as buildErrorShape"), "{file} got an alias back to the new name:\n{content}\n{text}");
    }
    // tsserver kept the barrel's public name: its importers keep it, and are said to.
    assert!(read("src/index.ts").contains("buildErrorShape as getErrorShape"), "{text}");
    assert!(read("src/adapters/ws.ts").contains("getErrorShape(2)"), "{text}");
    assert!(text.contains("through a re-export whose public name the server kept as `getErrorShape`"), "{text}");
    assert!(text.contains("src/adapters/ws.ts:3:") && text.contains("src/compat.ts:1:"), "{text}");
    // trial34 M5: the kept public name is said.
    assert!(text.contains("note: public name kept: src/index.ts:2 now reads `buildErrorShape as getErrorShape`"), "{text}");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}\n{text}", support::tsc_errors(dir.path()));
}
