//! Wrong answer from the fresh-user trial 84 (superjson 1.13.3), against the real
//! typescript-language-server and tsc, on a fixture of the same shape:
//! - F2: renaming the instance method `SuperJSON.serialize` also renamed the static property
//!   `SuperJSON.serialize` (initialized from the method with `.bind`) and its calls, said as the
//!   server's "missed references"; tsserver's own rename leaves them.
//!
//! Ground truth: tsc, and the static property's name after the rename.

use crate::support;

use serde_json::json;

const INDEX: &str = "export class SuperJSON {\n  serialize(value: unknown): string {\n    return JSON.stringify(value);\n  }\n\n  static defaultInstance = new SuperJSON();\n  static serialize = SuperJSON.defaultInstance.serialize.bind(SuperJSON.defaultInstance);\n}\n";

#[test]
fn a_static_member_bound_from_the_renamed_method_is_not_renamed_with_it() {
    let test = "lsp_trial84::a_static_member_bound_from_the_renamed_method_is_not_renamed_with_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"superish\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", INDEX),
        ("src/usage.ts", "import { SuperJSON } from './index';\n\nexport const viaStatic = SuperJSON.serialize(1);\nexport const viaInstance = new SuperJSON().serialize(2);\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/index.ts", "line": 2, "symbol": "serialize", "new_name": "toSuperJSON"}));
    assert!(!text.contains("missed references"), "{text}");
    let index = std::fs::read_to_string(dir.path().join("src/index.ts")).unwrap();
    let usage = std::fs::read_to_string(dir.path().join("src/usage.ts")).unwrap();
    assert!(index.contains("static serialize = SuperJSON.defaultInstance.toSuperJSON.bind"), "{index}");
    assert!(usage.contains("SuperJSON.serialize(1)") && usage.contains("new SuperJSON().toSuperJSON(2)"), "{usage}");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}
