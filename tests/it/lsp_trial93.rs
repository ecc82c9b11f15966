//! Wrong answer from the fresh-user trial 93 (neverthrow 8.2.0 with a shapes module), against
//! the real typescript-language-server and tsc, on a fixture of the same shape:
//! - F1: renaming `Circle.tag` to `label`, an optional member of the interface `Shape` that
//!   `Circle` implements, made the method implement it silently: `labels()` (which calls
//!   `x.label?.()`) now reached it, tsc stayed clean, a test failed, and the class hierarchy
//!   check said "none declares it".
//!
//! Ground truth: tsc (clean after the rename: only the warning can tell), and the code's output
//! under node after compiling.

use crate::support;

use serde_json::json;

const SHAPES: &str = "export interface Shape {\n  area(): number;\n  label?(): string;\n}\n\nexport class Circle implements Shape {\n  area(): number {\n    return 3;\n  }\n\n  tag(): string {\n    return 'circle';\n  }\n}\n\nexport function labels(shapes: Shape[]): string[] {\n  return shapes.map((shape) => shape.label?.() ?? 'none');\n}\n";

#[test]
fn renaming_a_member_to_an_optional_member_of_an_implemented_interface_is_warned_of() {
    let test = "lsp_trial93::renaming_a_member_to_an_optional_member_of_an_implemented_interface_is_warned_of";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"shapes\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2022\", \"module\": \"commonjs\", \"strict\": true, \"outDir\": \"out\"}, \"include\": [\"src\"]}\n"),
        ("src/shapes.ts", SHAPES),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/shapes.ts", "line": 11, "symbol": "tag", "new_name": "label"}));
    assert!(text.contains("WARNING: the interface `Shape` that `Circle` implements already has a member `label`"), "{text}");
    // Ground truth: tsc sees nothing, and the interface's callers now reach the renamed method.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let compiled = std::process::Command::new("tsc").args(["-p", "."]).current_dir(dir.path()).status().expect("run tsc");
    assert!(compiled.success());
    if support::require_binary(test, "node").is_some() {
        let output = std::process::Command::new("node")
            .args(["-e", "const s = require('./out/shapes.js'); console.log(s.labels([new s.Circle()]).join(','))"])
            .current_dir(dir.path())
            .output()
            .expect("run node");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "circle");
    }
}
