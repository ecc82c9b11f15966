//! Wrong answer from the fresh-user trial 78 (rxjs 7.8.1), against the real
//! typescript-language-server and tsc, on a fixture of the same shape:
//! - F1: `implementation` of the interface member `TimestampProvider.now` listed the object
//!   literals' `now()` and not `public now: () => number;` of `Scheduler`, which implements
//!   `SchedulerLike extends TimestampProvider` — with no note.
//!
//! Ground truth: tsc (without the property, TS2420).

use crate::support;

use serde_json::json;

const TYPES: &str = "export interface TimestampProvider {\n  now(): number;\n}\n\nexport interface SchedulerLike extends TimestampProvider {\n  schedule(work: () => void): void;\n}\n\nexport const dateTimestampProvider: TimestampProvider = {\n  now() {\n    return Date.now();\n  },\n};\n\nexport class Scheduler implements SchedulerLike {\n  public static now: () => number = dateTimestampProvider.now;\n\n  public now: () => number;\n\n  constructor(now: () => number = Scheduler.now) {\n    this.now = now;\n  }\n\n  schedule(work: () => void): void {\n    work();\n  }\n}\n";

#[test]
fn a_class_property_implementing_an_interface_member_is_named() {
    let test = "lsp_trial78::a_class_property_implementing_an_interface_member_is_named";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"sched\", \"version\": \"1.0.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/types.ts", TYPES),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    // Ground truth: the property is what makes `Scheduler` implement the member.
    std::fs::write(
        dir.path().join("src/types.ts"),
        TYPES.replace("  public now: () => number;\n", "").replace("    this.now = now;\n", "    void now;\n"),
    )
    .unwrap();
    assert!(support::tsc_errors(dir.path()).iter().any(|error| error.contains("TS2420")), "{:?}", support::tsc_errors(dir.path()));
    std::fs::write(dir.path().join("src/types.ts"), TYPES).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "src/types.ts", "line": 2, "symbol": "now"}));
    let listed = text.contains("src/types.ts:18:");
    let named = text.contains("`Scheduler.now` (src/types.ts:18)");
    assert!(listed || named, "the class property is neither listed nor named:\n{text}");
    assert!(!text.contains("(src/types.ts:16)"), "the static member is no instance's:\n{text}");
}
