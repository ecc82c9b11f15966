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
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/contentType.ts", "line": 1, "symbol": "ContentTypeHandler"}));
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
