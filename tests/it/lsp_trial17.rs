//! Wrong answers from the fresh-user trial 17 (marshmallow 3.21.3, arrayvec 0.7.6,
//! @tanstack/query-core 5.59.0, hashicorp/golang-lru 0.5.4), against the real tools: a breaking
//! edit of a library's function said "no new errors in the other files of the checked project"
//! while cargo never compiled the crate's tests (their library failed); rust-analyzer's
//! implementation answer leaves out `impl Trait for` blocks inside function bodies and the
//! answer names them (the trial-16 check, exercised by arrayvec's `impl Drop for` test helpers).

use crate::support;

use runbound::Caller;
use serde_json::json;

/// A library shaped like arrayvec 0.7.6: `Stack::truncate` in the library is called by the
/// library itself (src/lib.rs, as arrayvec.rs:1166 does) and by an integration test
/// (tests/stack.rs, as tests/tests.rs:255 does), a benchmark target sits in benches/, and the
/// tests define `impl Drop for` helpers inside test functions (arrayvec's `Bump`), besides the
/// library's own top-level `impl Drop for Stack`.
fn stack_crate() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"stack\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[[bench]]\nname = \"grow\"\nharness = false\n"),
        (
            "src/lib.rs",
            "pub struct Stack {\n    pub items: Vec<u8>,\n}\n\nimpl Stack {\n    pub fn truncate(&mut self, new_len: usize) {\n        self.items.truncate(new_len);\n    }\n\n    pub fn clear(&mut self) {\n        self.truncate(0);\n    }\n}\n\nimpl Drop for Stack {\n    fn drop(&mut self) {\n        self.items.clear();\n    }\n}\n",
        ),
        (
            "tests/stack.rs",
            "use stack::Stack;\n\n#[test]\nfn truncates() {\n    struct Bump<'a>(&'a mut u32);\n    impl<'a> Drop for Bump<'a> {\n        fn drop(&mut self) {\n            *self.0 += 1;\n        }\n    }\n    let mut count = 0;\n    drop(Bump(&mut count));\n    let mut stack = Stack { items: vec![1, 2, 3] };\n    stack.truncate(1);\n    assert_eq!(stack.items.len(), count as usize);\n}\n",
        ),
        ("benches/grow.rs", "fn main() {\n    let mut stack = stack::Stack { items: vec![1] };\n    stack.clear();\n}\n"),
    ])
}

#[test]
fn rust_analyzer_breaking_a_library_function_names_the_targets_cargo_never_compiled() {
    if support::require_binary("rust_analyzer_breaking_a_library_function_names_the_targets_cargo_never_compiled", "rust-analyzer")
        .is_none()
    {
        return;
    }
    let dir = stack_crate();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    assert!(!result.is_error, "{}", result.joined_text());
    // arrayvec 0.7.6: adding a parameter to `ArrayVec::truncate` reported arrayvec.rs:1166 only,
    // then "no new errors in the other files of the checked project … checked: the whole cargo
    // workspace", while tests/tests.rs:255 was broken too: cargo never compiled the tests.
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn truncate(&mut self, new_len: usize)", "new_string": "pub fn truncate(&mut self, new_len: usize, keep: bool)"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/lib.rs:11: error[E0061]"), "the error in the library is not reported:\n{text}");
    assert!(
        text.contains("NOT checked: benches/grow.rs, tests/stack.rs — cargo never compiled them: the library `stack` they depend on has compiler errors after this write"),
        "the targets cargo never compiled are not named:\n{text}"
    );
    assert!(
        !text.contains("the files of the checked project not listed above"),
        "the targets cargo never compiled are covered by a clean claim:\n{text}"
    );
    assert!(text.contains("no new errors in the files cargo compiled not listed above"), "{text}");
    // The revert compiles everything again: no target is named as not compiled.
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn truncate(&mut self, new_len: usize, keep: bool)", "new_string": "pub fn truncate(&mut self, new_len: usize)"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("resolved by this write"), "{text}");
    assert!(!text.contains("cargo never compiled"), "the revert still names targets as not compiled:\n{text}");
}

#[test]
fn rust_analyzer_implementation_names_impls_inside_function_bodies_it_leaves_out() {
    if support::require_binary("rust_analyzer_implementation_names_impls_inside_function_bodies_it_leaves_out", "rust-analyzer").is_none() {
        return;
    }
    // arrayvec 0.7.6: `implementation` of `Drop` at tests/tests.rs:108 listed the 4 top-level
    // `impl Drop for` blocks of src/arrayvec.rs (and 91 in the sysroot and registry) but none
    // of the 6 inside function bodies (arrayvec.rs:482, five `Bump`/`DropPanic` helpers in test
    // functions); the answer names them as not listed.
    let dir = stack_crate();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 15, "symbol": "Drop"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/lib.rs:15: impl Drop for Stack {"), "the top-level impl is missing:\n{text}");
    assert!(
        text.contains("note: NOT in this answer: 1 `impl Drop for …` line(s) grep finds: tests/stack.rs:6")
            && text.contains("rust-analyzer leaves out impls inside function bodies"),
        "the impl inside the test function is not named:\n{text}"
    );
}

/// The shape of arrayvec 0.7.6's `extend_from_iter` (src/arrayvec.rs:1091–1097): a closure
/// parameter `self_len: &mut &mut u32` written through `**self_len = …`, which rustc accepts and
/// rust-analyzer's own analysis reports as E0384 "cannot mutate immutable variable `self_len`".
const SCOPE_EXIT_GUARD: &str = "pub struct ScopeExitGuard<T, Data, F>\nwhere\n    F: FnMut(&Data, &mut T),\n{\n    value: T,\n    data: Data,\n    f: F,\n}\n\nimpl<T, Data, F> Drop for ScopeExitGuard<T, Data, F>\nwhere\n    F: FnMut(&Data, &mut T),\n{\n    fn drop(&mut self) {\n        (self.f)(&self.data, &mut self.value)\n    }\n}\n\npub fn store_len(slot: &mut u32, len: u32) {\n    let _guard = ScopeExitGuard {\n        value: slot,\n        data: len,\n        f: move |&len, self_len| {\n            **self_len = len;\n        },\n    };\n}\n";

#[test]
fn rust_analyzer_file_diagnostics_say_an_error_of_its_own_that_a_clean_cargo_check_does_not_confirm() {
    if support::require_binary(
        "rust_analyzer_file_diagnostics_say_an_error_of_its_own_that_a_clean_cargo_check_does_not_confirm",
        "rust-analyzer",
    )
    .is_none()
    {
        return;
    }
    // arrayvec 0.7.6: `lsp diagnostics src/arrayvec.rs` said "1 error" (E0384 at line 1095,
    // rust-analyzer's own) for a crate that compiles and whose tests pass.
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"guarded\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", SCOPE_EXIT_GUARD),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("rust-analyzer diagnostics for src/lib.rs: 0 errors, 0 warnings, 0 other (and 1 error of its own that rustc does NOT confirm, see the note)")
            && text.contains("src/lib.rs:24: error [E0384] cannot mutate immutable variable `self_len` (rust-analyzer) — NOT confirmed by rustc")
            && text.contains("compiled the project with no error, so it is likely a false positive of rust-analyzer"),
        "rust-analyzer's error is presented as the compiler's:\n{text}"
    );
    // A write after which cargo check still finds no error: the phantom is neither "already
    // present" nor new (arrayvec: every write said "1 error already present … (1)").
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn store_len(", "new_string": "/// Stores the length on scope exit.\npub fn store_len("}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("already present"), "rust-analyzer's phantom is counted as present:\n{text}");
    assert!(
        text.contains(
            "note: src/lib.rs: 1 error of rust-analyzer's own analysis left out: its cargo check compiled the library this file belongs to with no error"
        ),
        "{text}"
    );
    // With a real compiler error anywhere, rustc's verdict on the rest is not known: nothing is
    // marked, and rust-analyzer's error counts again.
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn store_len(", "new_string": "pub fn broken() -> u32 {\n    \"text\"\n}\n\npub fn store_len("}),
    );
    assert!(result.joined_text().contains("error[E0308]"), "{}", result.joined_text());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("rust-analyzer diagnostics for src/lib.rs: 2 errors"), "{text}");
    assert!(!text.contains("NOT confirmed by rustc"), "an error is marked unconfirmed while rustc reports errors:\n{text}");
}

#[test]
fn typescript_rename_through_a_re_export_keeps_the_code_compiling_both_ways() {
    if support::require_binary("typescript_rename_through_a_re_export_keeps_the_code_compiling_both_ways", "typescript-language-server")
        .is_none()
    {
        return;
    }
    // @tanstack/query-core 5.59.0: renaming `replaceEqualDeep` (re-exported by src/index.ts)
    // and back. tsserver keeps a re-export's public name (`export { NEW as OLD }`) in some runs
    // and not in others; runbound's second rename from a module importing OLD through that
    // re-export then dropped the import's alias and wrote `import { NEW as NEW } from './index'`
    // (an error: index exports OLD), and the rename back failed with "src/index.ts: two edits
    // overlap (bytes 709..726 and 709..726); nothing was changed".
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"q\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/utils.ts", "export function replaceEqualDeep(a: unknown, b: unknown): unknown {\n  return a === b ? a : b\n}\n"),
        ("src/index.ts", "export {\n  replaceEqualDeep,\n} from './utils'\n"),
        ("src/observer.ts", "import { replaceEqualDeep } from './utils'\n\nexport const kept = replaceEqualDeep(1, 1)\n"),
        ("src/app.ts", "import { replaceEqualDeep } from './index'\n\nexport const same = replaceEqualDeep(2, 2)\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    for (from, to) in [("replaceEqualDeep", "structurallyShare"), ("structurallyShare", "replaceEqualDeep")] {
        let result = run.call(Caller::Main, "lsp_rename", json!({"file": "src/utils.ts", "line": 1, "symbol": from, "new_name": to}));
        let text = result.joined_text();
        assert!(!result.is_error, "the rename {from} → {to} failed:\n{text}");
        assert!(!text.contains("this write introduced"), "the rename {from} → {to} broke the code:\n{text}");
        assert!(text.contains("no new errors in"), "{text}");
        let utils = std::fs::read_to_string(dir.path().join("src/utils.ts")).unwrap();
        assert!(utils.contains(&format!("export function {to}(")), "{utils}\n{text}");
    }
}

/// num-integer 0.1.47's shape: `impl Roots for $T` in a `macro_rules!` body, invoked per integer
/// type, and a helper called from that body. `implementation` of `Roots` lists the expansions;
/// the template line was also named "NOT in this answer … rust-analyzer leaves out impls inside
/// function bodies and in code behind a `#[cfg]` that is off" (trial21 M8), and `references` of
/// the helper named the body's call behind "a `#[cfg]` that is off … nor files no target
/// includes" (trial21 M2, trial20 M1). Both now say that those lines are macro templates.
#[test]
fn rust_analyzer_lines_in_a_macro_rules_body_are_named_as_templates_not_as_cfg_off_code() {
    let test = "rust_analyzer_lines_in_a_macro_rules_body_are_named_as_templates_not_as_cfg_off_code";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"roots\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub trait Roots {\n    fn root(&self) -> u32;\n}\n\npub fn halve(value: u32) -> u32 {\n    value / 2\n}\n\nmacro_rules! roots {\n    ($T:ty) => {\n        impl Roots for $T {\n            fn root(&self) -> u32 {\n                halve(*self as u32)\n            }\n        }\n    };\n}\n\nroots!(u8);\nroots!(u16);\n\npub fn direct() -> u32 {\n    halve(8)\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/lib.rs", "line": 1, "symbol": "Roots"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/lib.rs:19") && text.contains("src/lib.rs:20"), "the two expansions are not listed:\n{text}");
    assert!(!text.contains("NOT in this answer"), "the template line is named as a missing impl:\n{text}");
    assert!(
        text.contains("1 `impl Roots for …` line(s) grep finds are inside `macro_rules!` bodies") && text.contains("src/lib.rs:11"),
        "the template line is not named as one:\n{text}"
    );
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 5, "symbol": "halve"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("  23: halve(8)"), "the direct call is not listed:\n{text}");
    if text.contains("NOT in this answer") {
        assert!(
            text.contains("inside a `macro_rules!` body")
                && text.contains("src/lib.rs:13")
                && !text.contains("behind a `#[cfg]` that is off"),
            "the macro body's call is given a reason that does not apply:\n{text}"
        );
    } else {
        assert!(text.contains("src/lib.rs:13"), "the macro body's call is neither listed nor named:\n{text}");
    }
}
