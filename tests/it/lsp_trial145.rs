//! Wrong answers from the fresh-user trial 145 (ts-results-es 4.2.0), against the real
//! typescript-language-server and tsc, on fixtures of the same shape.
//! - F3: `references` of `OkImpl.value` never named the `'value' in received` keys of the test
//!   helper (the line also reads `received.value`, a listed reference, and was skipped whole),
//!   and the rename preview gave no warning: the keys hid at the end of a long "left unrenamed"
//!   list behind doc comments. Accepted, the rename broke tsc at each of them.
//! - M6: the "strings that name X as a property key" note fired on test titles (`test('map',
//!   …)`), `new Ok('Ok')` and `.includes('ErrImpl')`: arguments whose parameters are plain
//!   strings, not `keyof`.
//!
//! Ground truth: tsc after the rename runbound proposes, and after editing the strings it names.

use crate::support;

use runbound::Caller;
use serde_json::json;

const RESULT: &str = "export class OkImpl<T> {\n  readonly value: T;\n  constructor(val: T) {\n    this.value = val;\n  }\n}\n\nexport class ErrImpl<E> {\n  readonly error: E;\n  constructor(err: E) {\n    this.error = err;\n  }\n}\n\nexport type Result<T, E> = OkImpl<T> | ErrImpl<E>;\n\nexport function pluck<T, K extends keyof T>(obj: T, key: K): T[K] {\n  return obj[key];\n}\n";

/// The test helper's shape: `in` keys on lines that also read the property (6, 7), an argument
/// of a `keyof` parameter (11); a test title (13), a constructor's argument (14) and a
/// `.includes` argument (16) are the same word and no keys.
const UTIL: &str = "import { OkImpl, ErrImpl, Result, pluck } from './result';\n\ndeclare function test(name: string, fn: () => void): void;\n\nexport function inner(received: Result<number, string>, result: Result<number, string>): [unknown, unknown] {\n  const receivedInner = 'value' in received ? received.value : received.error;\n  const resultInner = 'value' in result ? result.value : result.error;\n  return [receivedInner, resultInner];\n}\nexport function picked(ok: OkImpl<number>): number {\n  return pluck(ok, 'value');\n}\ntest('value', () => {\n  const made = new OkImpl('value');\n  const failed = new ErrImpl('boom');\n  String(failed.error).includes('value');\n  void made;\n});\n";

fn project() -> tempfile::TempDir {
    // Doc comments that mention the word, in a file listed before the helper: the unrenamed
    // list's first 15 lines were all such comments in the trial. 9 of them: the list shows 15
    // lines, the helper's 6 strings after them.
    let docs: String = (0..9).map(|n| format!("/** Returns the value number {n}. */\nexport const doc{n} = {n};\n")).collect();
    let docs: &'static str = Box::leak(docs.into_boxed_str());
    support::workspace_with(&[
        ("package.json", "{\"name\": \"resultlike\", \"version\": \"0.1.0\", \"private\": true}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n",
        ),
        ("src/a_docs.ts", docs),
        ("src/result.ts", RESULT),
        ("src/util.ts", UTIL),
    ])
}

/// F3 and M6 in `references`: the keys are named, each with its line; the same word in a test
/// title, a constructor's argument and a `.includes` argument is not.
#[test]
fn references_of_a_member_name_its_in_keys_and_not_the_same_word_in_other_strings() {
    let test = "lsp_trial145::references_of_a_member_name_its_in_keys_and_not_the_same_word_in_other_strings";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = project();
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/result.ts", "line": 2, "symbol": "value"}));
    // The lines of the `in` keys are listed for their `received.value`: is the fixture still F3's?
    assert!(text.contains("  6: const receivedInner = 'value' in received"), "{text}");
    let note =
        text.lines().find(|line| line.contains("as a property key")).unwrap_or_else(|| panic!("the `in` keys are not named:\n{text}"));
    assert!(note.starts_with("note: 3 strings that name `value` as a property key are NOT in this list"), "{note}");
    assert!(note.contains("src/util.ts:6 (left operand of `in`: `'value' in received`)"), "{note}");
    assert!(note.contains("src/util.ts:7 (left operand of `in`: `'value' in result`)"), "{note}");
    assert!(note.contains("src/util.ts:11 (call argument to `key: K` of `pluck`, a `keyof` parameter"), "{note}");
    for line in [13, 14, 16] {
        assert!(!note.contains(&format!("src/util.ts:{line}")), "line {line} is the same word, no key (M6):\n{note}");
    }
}

/// F3 and M6 in the rename preview: a WARNING before the unrenamed list names each key and says
/// tsc will likely fail there and how to edit it; the keys lead the list; the other strings are
/// said to be no keys. Ground truth: tsc fails at exactly those keys after the rename, and
/// passes once they (and only they) are edited as the WARNING says.
#[test]
fn rename_preview_warns_of_the_in_keys_it_leaves_before_the_unrenamed_list() {
    let test = "lsp_trial145::rename_preview_warns_of_the_in_keys_it_leaves_before_the_unrenamed_list";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = project();
    let run = support::lsp_run_allowing_writes(dir.path());
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/result.ts", "line": 2, "symbol": "value", "new_name": "okValue", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let warning_at =
        lines.iter().position(|line| line.contains("as a property key in code")).unwrap_or_else(|| panic!("no warning:\n{text}"));
    let warning = lines[warning_at];
    assert!(warning.starts_with("WARNING: 3 strings name `value` as a property key in code and are left unrenamed"), "{warning}");
    for place in [
        "src/util.ts:6 (left operand of `in`",
        "src/util.ts:7 (left operand of `in`",
        "src/util.ts:11 (call argument to `key: K` of `pluck`",
    ] {
        assert!(warning.contains(place), "{place} is not named:\n{warning}");
    }
    assert!(warning.contains("tsc will likely fail"), "{warning}");
    assert!(warning.contains("(`'value' in received` → `'okValue' in received`)"), "{warning}");
    assert!(!warning.contains("src/util.ts:13") && !warning.contains("src/util.ts:14") && !warning.contains("src/util.ts:16"), "{warning}");
    let list_at =
        lines.iter().position(|line| line.contains("left unrenamed:") && line.contains("in strings")).unwrap_or_else(|| panic!("{text}"));
    assert!(warning_at < list_at, "the warning comes after the list:\n{text}");
    // The keys lead the list, before the doc comments of src/a_docs.ts.
    let listed: Vec<&str> = lines[list_at + 1..].iter().take(3).map(|line| line.trim_start()).collect();
    assert!(
        listed[0].starts_with("src/util.ts:6:") && listed[1].starts_with("src/util.ts:7:") && listed[2].starts_with("src/util.ts:11:"),
        "{text}"
    );
    let title = lines.iter().find(|line| line.trim_start().starts_with("src/util.ts:13:")).unwrap_or_else(|| panic!("{text}"));
    assert!(title.contains("(string argument of `test`, whose parameter `name: string` is no `keyof`"), "{title}");
    let constructed = lines.iter().find(|line| line.trim_start().starts_with("src/util.ts:14:")).unwrap_or_else(|| panic!("{text}"));
    assert!(constructed.contains("whose parameter `val: T` is no `keyof`"), "{constructed}");
    // Ground truth: accepted, the rename breaks tsc at the keys, and nowhere else.
    let edit_id =
        preview.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let broken = support::tsc_errors(dir.path());
    for line in [6, 7, 11] {
        assert!(broken.iter().any(|error| error.starts_with(&format!("src/util.ts({line},"))), "line {line}: {broken:?}");
    }
    assert!(
        broken.iter().all(|error| ["src/util.ts(6,", "src/util.ts(7,", "src/util.ts(11,"].iter().any(|at| error.starts_with(at))),
        "{broken:?}"
    );
    // Edited as the warning says (the other strings left), tsc passes.
    let util = dir.path().join("src/util.ts");
    let renamed = std::fs::read_to_string(&util).unwrap();
    let fixed = renamed.replace("'value' in", "'okValue' in").replace("pluck(ok, 'value')", "pluck(ok, 'okValue')");
    std::fs::write(&util, fixed).unwrap();
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
}
