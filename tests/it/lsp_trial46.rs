//! Wrong answers from the fresh-user trial 46 (@tanstack/query-core 5.59.0, semver 1.0.23),
//! against the real servers on fixtures of the same shape:
//! - F1: renaming a Rust struct field whose constructor uses the field-init shorthand (`major,`
//!   expanded by rust-analyzer to `maj: major,`, which is right) got a top WARNING calling that
//!   edit a renamed use of a local and telling the agent to undo it.
//! - F5: runbound's own rename of a doc-test example wrote `maj,` for the shorthand `major,`, and
//!   `cargo test --doc` failed with E0425.
//!
//! Ground truth: `cargo test` (doc-tests included) and the files' text.

use crate::support;

use runbound::Caller;
use serde_json::json;

const SHORTHAND_LIB: &str = "//! ```\n//! let v = shorty::Version { major: 1, minor: 2 };\n//! assert_eq!(v.major, 1);\n//! ```\n\n/// A version.\npub struct Version {\n    /// The major number.\n    pub major: u64,\n    /// The minor number.\n    pub minor: u64,\n}\n\nimpl Version {\n    /// ```\n    /// let major = 1;\n    /// let minor = 2;\n    /// let v = shorty::Version { major, minor };\n    /// assert_eq!(v.minor, 2);\n    /// ```\n    pub const fn new(major: u64, minor: u64) -> Self {\n        Version { major, minor }\n    }\n}\n\n#[test]\nfn built() {\n    assert_eq!(Version::new(3, 4).major, 3);\n}\n";

fn cargo_test(dir: &std::path::Path) -> (bool, String) {
    let output = std::process::Command::new("cargo")
        .args(["test", "--quiet", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo test");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_rust_field_renamed_through_field_init_shorthands_keeps_the_locals_in_code_and_doc_tests() {
    let test = "lsp_trial46::a_rust_field_renamed_through_field_init_shorthands_keeps_the_locals_in_code_and_doc_tests";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"shorty\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", SHORTHAND_LIB),
    ]);
    let (ok, output) = cargo_test(dir.path());
    assert!(ok && output.contains("2 passed"), "fixture: {output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "src/lib.rs", "line": 9, "symbol": "major", "new_name": "maj"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("rename a use of a local"), "a right shorthand expansion is no renamed local use: {text}");
    let source = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(source.contains("        Version { maj: major, minor }"), "the code's shorthand: {source}\n{text}");
    assert!(source.contains("    /// let v = shorty::Version { maj: major, minor };"), "the doc-test's shorthand: {source}\n{text}");
    assert!(source.contains("//! let v = shorty::Version { maj: 1, minor: 2 };"), "{source}");
    // Ground truth: the unit test and both doc-tests compile and pass.
    let (ok, output) = cargo_test(dir.path());
    assert!(ok && output.contains("2 passed") && output.contains("1 passed"), "{output}\n{source}");
}

/// F2: a helper of a test module that several test crates share (`mod util;` in each) had "no
/// callers" from rust-analyzer, which lists the calls of one crate at most; the calls its
/// references show (inside `assert_eq!` too) are named, and the headline says the answer is
/// incomplete. Ground truth: grep of `helper(` in tests/.
#[test]
fn incoming_calls_of_a_shared_test_helper_name_the_calls_in_every_test_crate() {
    let test = "lsp_trial46::incoming_calls_of_a_shared_test_helper_name_the_calls_in_every_test_crate";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"shared\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n"),
        ("tests/util/mod.rs", "pub(super) fn helper(n: u32) -> u32 {\n    n + shared::one()\n}\n"),
        ("tests/first.rs", "mod util;\n\n#[test]\nfn first() {\n    assert_eq!(util::helper(1), 2);\n}\n"),
        ("tests/second.rs", "mod util;\n\n#[test]\nfn second() {\n    let got = util::helper(2);\n    assert_eq!(got, 3);\n}\n\n#[test]\nfn third() {\n    assert_ne!(util::helper(0), util::helper(5));\n}\n"),
    ]);
    let mut sites: Vec<String> = Vec::new();
    for file in ["tests/first.rs", "tests/second.rs"] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        for (index, line) in text.lines().enumerate() {
            if line.contains("helper(") {
                sites.push(format!("{file}:{}", index + 1));
            }
        }
    }
    assert_eq!(sites.len(), 3, "ground truth: {sites:?}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "incoming_calls", "file": "tests/util/mod.rs", "line": 1, "symbol": "helper"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let listed_as_callers = |site: &str| {
        let (file, line) = site.rsplit_once(':').unwrap();
        text.contains(&format!("{file} (")) && text.contains(&format!("\n      {line}: "))
    };
    for site in &sites {
        assert!(text.contains(&format!("{site}: ")) || listed_as_callers(site), "{site} is not named:\n{text}");
    }
    if text.contains("NOT in this answer as call sites") {
        assert!(text.contains("— INCOMPLETE: its references show"), "{text}");
    }
}

/// F3: a TypeScript member renamed to a name its base class or a subclass already declares
/// overrides it (or is overridden) with no type error; the preview warns of both directions, and
/// says nothing for a fresh name. Ground truth: tsc is clean after the overriding rename, so
/// nothing else would tell, and the subclass's method now carries the base's name.
#[test]
fn a_typescript_member_renamed_to_a_name_of_its_class_hierarchy_warns_of_the_override() {
    let test = "lsp_trial46::a_typescript_member_renamed_to_a_name_of_its_class_hierarchy_warns_of_the_override";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\"}, \"include\": [\"src\"]}\n"),
        ("src/base.ts", "export class Observer {\n  refetch(): string {\n    return 'refetched'\n  }\n\n  result(): string {\n    return this.refetch()\n  }\n}\n"),
        (
            "src/infinite.ts",
            "import { Observer } from './base'\n\nexport class InfiniteObserver extends Observer {\n  fetchPrevious(): string {\n    return 'previous page'\n  }\n\n  fetchNext(): string {\n    return 'next page'\n  }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let preview = |file: &str, line: u32, symbol: &str, new_name: &str| {
        let result = run.call(
            Caller::Main,
            "lsp_rename",
            json!({"file": file, "line": line, "symbol": symbol, "new_name": new_name, "preview": true}),
        );
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        text
    };
    let up = preview("src/infinite.ts", 4, "fetchPrevious", "refetch");
    assert!(
        up.contains("WARNING: the base class `Observer` already has a member `refetch` (src/base.ts:2): the renamed member of `InfiniteObserver` now OVERRIDES it"),
        "{up}"
    );
    let down = preview("src/base.ts", 2, "refetch", "fetchNext");
    assert!(
        down.contains("WARNING: the subclass `InfiniteObserver` already has a member `fetchNext` (src/infinite.ts:8): it now OVERRIDES the renamed member of `Observer`"),
        "{down}"
    );
    let fresh = preview("src/base.ts", 2, "refetch", "reload");
    assert!(!fresh.contains("OVERRIDES") && fresh.contains("class hierarchy check: `reload` among the members of 1 class"), "{fresh}");
    // Ground truth: tsc accepts the overriding rename, so only the warning tells.
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/infinite.ts", "line": 4, "symbol": "fetchPrevious", "new_name": "refetch"}),
    );
    assert!(!result.is_error, "{}", result.joined_text());
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let infinite = std::fs::read_to_string(dir.path().join("src/infinite.ts")).unwrap();
    assert!(infinite.contains("  refetch(): string {\n    return 'previous page'"), "{infinite}");
}

/// F6: a member of a class (or of the object a function returns) that the package exports only
/// as an instance (`export const focusManager = new FocusManager()`) is public API: the rename
/// says so, naming the instance's path. Ground truth: the package entry exports the instances.
#[test]
fn renaming_a_member_of_an_exported_instance_says_the_public_api_changes() {
    let test = "lsp_trial46::renaming_a_member_of_an_exported_instance_says_the_public_api_changes";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"managers\", \"version\": \"1.0.0\", \"main\": \"./dist/index.js\", \"types\": \"./dist/index.d.ts\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\"}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "export { focusManager } from './focusManager'\nexport { notifyManager } from './notifyManager'\n"),
        (
            "src/focusManager.ts",
            "export class FocusManager {\n  #focused = false\n\n  setFocused(focused: boolean): void {\n    this.#focused = focused\n  }\n}\n\nexport const focusManager = new FocusManager()\n",
        ),
        (
            "src/notifyManager.ts",
            "export function createNotifyManager() {\n  return {\n    batch: (callback: () => void): void => {\n      callback()\n    },\n  }\n}\n\nexport const notifyManager = createNotifyManager()\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let preview = |file: &str, line: u32, symbol: &str, new_name: &str| {
        let result = run.call(
            Caller::Main,
            "lsp_rename",
            json!({"file": file, "line": line, "symbol": symbol, "new_name": new_name, "preview": true}),
        );
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        text
    };
    let focus = preview("src/focusManager.ts", 4, "setFocused", "setWindowFocused");
    assert!(
        focus.contains("note: public API changed: src/focusManager.ts:4 declares `setFocused`, a member of the class `FocusManager`, and the package `managers` exports an instance of it as `focusManager`")
            && focus.contains("changes `focusManager.setFocused` to `focusManager.setWindowFocused`"),
        "{focus}"
    );
    let notify = preview("src/notifyManager.ts", 3, "batch", "runBatch");
    assert!(
        notify.contains("declares `batch`, a member of the object `createNotifyManager` returns, and the package `managers` exports one as `notifyManager`"),
        "{notify}"
    );
}

/// F1: renaming a local asked at the shorthand `{ form }` (whose definitions include the property
/// it fills) is no member rename: no WARNING about the property's string keys or optional
/// declarations, and tsc stays clean after (editing the key as the warning said broke it).
#[test]
fn a_local_renamed_at_its_shorthand_property_gets_no_member_warnings() {
    let test = "lsp_trial46::a_local_renamed_at_its_shorthand_property_gets_no_member_warnings";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\"}, \"include\": [\"src\"]}\n"),
        (
            "src/atypes.ts",
            "export interface Opts {\n  form?: string\n  name: string\n}\n\nexport type FormOf = Opts['form']\n\nexport function readForm(o: Opts): string {\n  return o.form ?? ''\n}\n",
        ),
        (
            "src/tracked.ts",
            "import { Opts, readForm } from './atypes'\n\nfunction make(o: Opts): string {\n  return readForm(o)\n}\n\nexport function makeField(form: string): string {\n  return make({ form, name: 'a' })\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "src/tracked.ts", "line": 8, "symbol": "form", "new_name": "theForm"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("WARNING"), "{text}");
    let tracked = std::fs::read_to_string(dir.path().join("src/tracked.ts")).unwrap();
    assert!(tracked.contains("makeField(theForm: string)") && tracked.contains("make({ form: theForm, name: 'a' })"), "{tracked}");
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}

/// Trial 50 F2: a variant's field (`Safe { strict: bool }`, declared on one line) renamed
/// through a doc-test's shorthand `Mode::Safe { strict }` keeps the local: `hard: strict`.
/// Ground truth: `cargo test --doc`.
#[test]
fn a_variant_field_renamed_through_a_doc_test_shorthand_keeps_the_local() {
    let test = "lsp_trial46::a_variant_field_renamed_through_a_doc_test_shorthand_keeps_the_local";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"modes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "/// A mode.\n///\n/// ```\n/// let strict = true;\n/// let m = modes::Mode::Safe { strict };\n/// assert!(matches!(m, modes::Mode::Safe { strict: true }));\n/// ```\npub enum Mode {\n    /// Safe.\n    Safe { strict: bool },\n    /// Fast.\n    Fast,\n}\n\npub fn make(strict: bool) -> Mode {\n    Mode::Safe { strict }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "src/lib.rs", "line": 10, "symbol": "strict", "new_name": "hard"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let source = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(source.contains("/// let m = modes::Mode::Safe { hard: strict };"), "{source}\n{text}");
    assert!(source.contains("    Mode::Safe { hard: strict }"), "{source}");
    let (ok, output) = cargo_test(dir.path());
    assert!(ok && output.contains("1 passed"), "{output}\n{source}");
}
