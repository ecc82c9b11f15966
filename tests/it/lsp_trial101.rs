//! Wrong answers from the fresh-user trial 101 (io-ts 2.2.21 with fp-ts 2.16), against the real
//! typescript-language-server, tsc and node, on a fixture of the same shape:
//! - F1: renaming `RecursiveType.runDefinition`, a member declared as a constructor parameter
//!   property (`public runDefinition: () => C`), dismissed `this.runDefinition()` in an untyped
//!   `Object.defineProperty` getter as "not this binding … not asked" (the parameter was taken
//!   for a local of the constructor); tsc stayed clean and the renamed code threw.
//! - M1: the same member had no "public API changed" note.
//!
//! Ground truth: tsc (clean after the rename) and node (the getter throws after it).

use crate::support;

use serde_json::json;

const INDEX: &str = "export class Recursive<C> {\n  constructor(readonly name: string, public runDefinition: () => C) {}\n}\n\nObject.defineProperty(Recursive.prototype, 'type', {\n  get: function () {\n    return this.runDefinition()\n  },\n  enumerable: true,\n  configurable: true\n})\n\nexport function recursion<C>(name: string, definition: () => C): Recursive<C> {\n  const runDefinition = definition\n  return new Recursive(name, runDefinition)\n}\n";

#[test]
fn renaming_a_parameter_property_names_its_untyped_this_uses_and_the_public_api() {
    let test = "lsp_trial101::renaming_a_parameter_property_names_its_untyped_this_uses_and_the_public_api";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"recursive\", \"version\": \"1.0.0\", \"main\": \"out/index.js\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"commonjs\", \"strict\": true, \"outDir\": \"out\"}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", INDEX),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 2, "symbol": "runDefinition", "new_name": "definition", "preview": true}),
    );
    assert!(text.contains("src/index.ts:7: return this.runDefinition()   (no definition)"), "the untyped use is not listed:\n{text}");
    assert!(!text.contains("where the renamed local is not visible"), "the member was taken for a local:\n{text}");
    assert!(
        text.contains("note: public API changed: src/index.ts:2 declares `runDefinition`, a member of the exported class `Recursive`"),
        "{text}"
    );
    // Ground truth: the edit tsserver proposes (the declaration only) leaves tsc clean, and the
    // getter then calls a member that no longer exists.
    let renamed = INDEX.replacen("public runDefinition", "public definition", 1);
    std::fs::write(dir.path().join("src/index.ts"), &renamed).unwrap();
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    if support::require_binary(test, "node").is_some() {
        let compiled = std::process::Command::new("tsc").args(["-p", "."]).current_dir(dir.path()).status().expect("run tsc");
        assert!(compiled.success());
        let output = std::process::Command::new("node")
            .args(["-e", "const m = require('./out/index.js'); m.recursion('R', () => 1).type"])
            .current_dir(dir.path())
            .output()
            .expect("run node");
        assert!(String::from_utf8_lossy(&output.stderr).contains("this.runDefinition is not a function"), "{output:?}");
    }
}

/// Trial 109 F1 (@tanstack/form-core 1.33.5): renaming `FormValidators.onDynamic` warned that
/// `T['onDynamic']` in the `T extends FieldValidators<…>` branch of a conditional type named it
/// and "the renamed code does not compile until it is edited"; there `T` is a
/// `FieldValidators`, tsc stayed clean, and the advised edit broke it (TS2536).
#[test]
fn a_key_of_a_type_parameter_narrowed_to_another_type_is_not_said_to_name_the_member() {
    let test = "lsp_trial101::a_key_of_a_type_parameter_narrowed_to_another_type_is_not_said_to_name_the_member";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let source = "export interface FormV {\n  onDynamic?: () => string\n  onBlur?: () => string\n}\nexport interface FieldV {\n  onDynamic?: () => number\n  onBlur?: () => number\n}\nexport type Fns<T> = T extends FieldV\n  ? T['onDynamic'] | T['onBlur']\n  : T extends FormV\n    ? T['onDynamic'] | T['onBlur']\n    : never\n";
    let dir = support::workspace_with(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/a.ts", source),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/a.ts", "line": 2, "symbol": "onDynamic", "new_name": "onDyn"}));
    assert!(!text.contains("does not compile until"), "{text}");
    assert!(text.contains("src/a.ts:10: ? T['onDynamic'] | T['onBlur']   (string key of `FieldV`, not of `FormV`"), "{text}");
    // Ground truth: the rename as written compiles; editing the FieldV branch's key too does not.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let written = std::fs::read_to_string(dir.path().join("src/a.ts")).unwrap();
    std::fs::write(dir.path().join("src/a.ts"), written.replacen("? T['onDynamic']", "? T['onDyn']", 1)).unwrap();
    assert!(!support::tsc_errors(dir.path()).is_empty());
}
