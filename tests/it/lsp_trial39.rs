//! Wrong answers from the fresh-user trial 39 (@tanstack/pacer 0.22.0's `src`), against the real
//! typescript-language-server and tsc on fixtures of the same shape:
//! - F1: a changed return type broke a file that reaches it through another module's inferred
//!   type; the write's answer read "no new errors … no errors in the files that were checked",
//!   with the partial scope only on the `checked:` line.
//! - F2: `references` of an event-map key missed `emitChange('AsyncQueuer', this)`, a string
//!   argument to a `keyof` parameter, with no note.
//! - F3: a quoted key with a dash (`'d-AsyncQueuer'`) was addressed as `d`, and notes named
//!   strings that only start with `d`.
//! - F4: renaming a member whose old name stays an optional property of another type that code
//!   reads (`emitChange(…, this)` reads `key?`) was tsc-clean and changed behaviour at run time,
//!   with nothing said.
//!
//! Ground truth: tsc.

use crate::support;

use runbound::Caller;
use serde_json::json;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let mut all: Vec<(&str, &str)> = vec![
        ("package.json", "{\"name\": \"pacerlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
    ];
    all.extend_from_slice(files);
    support::workspace_with(&all)
}

/// F1: a write whose check covered some files and found nothing new leads with "NOT the whole
/// project", as a write that found errors does.
#[test]
fn a_clean_partial_check_leads_with_not_the_whole_project() {
    let test = "lsp_trial39::a_clean_partial_check_leads_with_not_the_whole_project";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = project(&[
        ("src/retry.ts", "export async function asyncRetry(): Promise<number> {\n  return 1;\n}\n"),
        ("src/factory.ts", "import { asyncRetry } from './retry';\n\nexport const retried = asyncRetry();\n"),
        // main.ts is three imports away: farther than the importers of importers the check reads.
        ("src/wrap.ts", "import { retried } from './factory';\n\nexport const wrapped = retried;\n"),
        (
            "src/main.ts",
            "import { wrapped } from './wrap';\n\nexport async function total(): Promise<number> {\n  return (await wrapped) + 1;\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let opened = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/retry.ts"}));
    assert!(!opened.is_error, "{}", opened.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/retry.ts", "old_string": "Promise<number> {\n  return 1;", "new_string": "Promise<unknown> {\n  return 1;"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // Ground truth: main.ts breaks, three hops from the written file.
    let truth = support::tsc_errors(dir.path());
    assert!(truth.iter().any(|line| line.starts_with("src/main.ts(4,")), "{truth:?}");
    assert!(!text.contains("src/main.ts:4: error"), "main.ts is checked now: is the fixture still F1's?\n{text}");
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("{text}"));
    let first = block.lines().find(|line| !line.trim().is_empty()).unwrap_or_default();
    assert!(first.starts_with("no new errors in the ") && first.contains("checked — NOT the whole project"), "{text}");
}

/// F2: a string argument that is exactly a key's name is named on the key's references (a
/// `keyof` parameter takes it as the key; tsserver does not count it).
#[test]
fn references_of_a_key_name_the_string_arguments_that_may_name_it() {
    let test = "lsp_trial39::references_of_a_key_name_the_string_arguments_that_may_name_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = project(&[
        ("src/events.ts", "export interface PacerEventMap {\n  AsyncQueuer: number;\n  Debouncer: string;\n}\n\nexport function emitChange<K extends keyof PacerEventMap>(key: K, value: PacerEventMap[K]): void {\n  console.log(key, value);\n}\n"),
        ("src/queuer.ts", "import { emitChange } from './events';\n\nexport function flush(): void {\n  emitChange('AsyncQueuer', 1);\n  console.log('AsyncQueuer flushed');\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/events.ts", "line": 2, "symbol": "AsyncQueuer"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("src/queuer.ts ("), "tsserver counts the argument itself now: is the fixture still F2's?\n{text}");
    let note =
        text.lines().find(|line| line.contains("as a property key")).unwrap_or_else(|| panic!("the string argument is not named:\n{text}"));
    assert!(note.contains("src/queuer.ts:4 (call argument"), "{note}");
    assert!(!note.contains("src/queuer.ts:5"), "a message is no key: {note}");
    // Ground truth: renaming the key breaks the argument.
    std::fs::write(
        dir.path().join("src/events.ts"),
        "export interface PacerEventMap {\n  Queuer: number;\n  Debouncer: string;\n}\n\nexport function emitChange<K extends keyof PacerEventMap>(key: K, value: PacerEventMap[K]): void {\n  console.log(key, value);\n}\n",
    )
    .unwrap();
    assert!(support::tsc_errors(dir.path()).iter().any(|line| line.starts_with("src/queuer.ts(4,")));
}

/// F3: a quoted key that is no identifier (`'d-AsyncQueuer'`) is the symbol asked about, not its
/// first word `d`: the answer and its notes name the key.
#[test]
fn a_quoted_key_with_a_dash_is_addressed_whole() {
    let test = "lsp_trial39::a_quoted_key_with_a_dash_is_addressed_whole";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = project(&[
        ("src/events.ts", "export interface PacerEventMap {\n  'd-AsyncQueuer': number;\n  d: string;\n}\n\nexport function emitChange<K extends keyof PacerEventMap>(key: K, value: PacerEventMap[K]): void {\n  console.log(key, value);\n}\n"),
        ("src/queuer.ts", "import { emitChange } from './events';\n\nexport function flush(d: string): void {\n  emitChange('d-AsyncQueuer', 1);\n  emitChange('d', d);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    for symbol in ["'d-AsyncQueuer'", "d-AsyncQueuer"] {
        let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/events.ts", "line": 2, "symbol": symbol}));
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        assert!(text.contains("d-AsyncQueuer"), "{text}");
        assert!(!text.contains("src/queuer.ts:5") && !text.contains("`d`"), "the key `d` and the parameter `d` are other symbols:\n{text}");
        assert!(text.contains("src/queuer.ts:4"), "the string argument naming the key is named:\n{text}");
    }
}

/// F4: renaming a class member whose old name stays an optional property of another type that
/// code reads warns: a value of the class passed there type-checks without the member and reads
/// `undefined` at run time (tsc stays clean).
#[test]
fn renaming_a_member_read_through_an_optional_property_of_another_type_warns() {
    let test = "lsp_trial39::renaming_a_member_read_through_an_optional_property_of_another_type_warns";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = project(&[
        ("src/events.ts", "export interface Keyed {\n  key?: string;\n  name: string;\n}\n\nexport function emitChange(event: string, instance: Keyed): string {\n  return event + instance.name + (instance.key ?? 'none');\n}\n"),
        (
            "src/queuer.ts",
            "import { emitChange } from './events';\n\nexport class AsyncQueuer {\n  key = 'queue-1';\n  name = 'queuer';\n  flush(): string {\n    return emitChange('AsyncQueuer', this);\n  }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/queuer.ts", "line": 4, "symbol": "key", "new_name": "queueKey", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let warning = text.lines().find(|line| line.contains("OPTIONAL property")).unwrap_or_else(|| panic!("nothing says it:\n{text}"));
    assert!(warning.contains("src/events.ts:2 (1 use)") && warning.contains("`AsyncQueuer`"), "{warning}");
    // Ground truth: with the rename applied, tsc is clean.
    std::fs::write(
        dir.path().join("src/queuer.ts"),
        "import { emitChange } from './events';\n\nexport class AsyncQueuer {\n  queueKey = 'queue-1';\n  name = 'queuer';\n  flush(): string {\n    return emitChange('AsyncQueuer', this);\n  }\n}\n",
    )
    .unwrap();
    assert!(support::tsc_errors(dir.path()).is_empty());
    // A member whose old name is no optional property elsewhere gets no such warning.
    let plain = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/queuer.ts", "line": 6, "symbol": "flush", "new_name": "drain", "preview": true}),
    );
    assert!(!plain.joined_text().contains("OPTIONAL property"), "{}", plain.joined_text());
}
