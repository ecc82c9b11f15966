//! Wrong answers from the fresh-user trial 40 (once_cell 1.20.2, tomli 2.2.1), against the real
//! servers on fixtures of the same shape:
//! - F1: `"*"` named test modules under `#[cfg(any(feature = "std", feature =
//!   "critical-section"))]` as NOT checked, though `std` is a default feature.
//! - F3: the `#[path = "imp_cs.rs"]` module under `all(feature = "critical-section", not(feature =
//!   "std"))` was never named by `"*"`, with default features or with `all_features`.
//! - F4: a rename's advice for occurrences in that module was a check with features
//!   `[critical-section, std]`, which never compiles it.
//! - F7: `incoming_calls` of `TOMLDecodeError.__init__` said "no callers" and `references` of
//!   `NestedDict.__init__` "1 reference", while the classes are constructed 30 and 2 times.
//!
//! - Trial 42 F2, F5 (hex 0.4.3): a deleted gated `pub use` read clean; an integration test under
//!   its own `#![cfg(all(feature = "serde", feature = "alloc"))]` read "no errors".
//!
//! - Trial 42 F3: a rename left a call in a `macro_rules!` template; the library failed, and the
//!   answer said the errors were "in the library's unit-test build only".
//!
//! - Trial 42 F6 (idna 3.10): `tools/idna-data`, a Python script without an extension, imports the
//!   renamed function; references and the rename's grep check never named it.
//!
//! - Trial 42 F4: a doc-test calling the renamed trait method through an impl a `macro_rules!`
//!   template makes was called "another symbol … leave it"; it broke once the template was renamed.
//!
//! - Trial 43 M1 (strsim 0.11.1, edition 2015): a doc-test importing the renamed variant and
//!   function by `use strsim::{hamming, StrSimError::DifferentLengthArgs};` was half renamed —
//!   the `use` line only — and the doc-test failed with E0425.
//!
//! - Trial 43 M2 (strsim 0.11.1): a write that left multi-line calls one argument short counted
//!   22 new errors where cargo reported 18: rust-analyzer's own `E0107` on each call's `)` line
//!   repeated rustc's `E0061` at the callee.
//!
//! - Trial 43 M7 (@tanstack/virtual-core 3.10.8): renaming the local `horizontal` of `const {
//!   horizontal, isRtl } = instance.options` said the 9 uses of `options.horizontal` reach it
//!   "through a re-export whose public name the server kept"; they are the property's.
//!
//! Ground truth: grep, cargo check, cargo test --doc, tsc, running the script.

use crate::support;

use runbound::Caller;
use serde_json::json;

/// F7: a Python `__init__`'s answers name the constructions of its class, which call it.
#[test]
fn a_python_constructor_names_the_constructions_of_its_class() {
    let test = "lsp_trial40::a_python_constructor_names_the_constructions_of_its_class";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"tomlish\"\nversion = \"0.1.0\"\n"),
        ("tomlish/__init__.py", ""),
        (
            "tomlish/_parser.py",
            "class TOMLDecodeError(ValueError):\n    def __init__(self, msg: str, pos: int) -> None:\n        super().__init__(f\"{msg} at {pos}\")\n\n\ndef parse(src: str) -> None:\n    if not src:\n        raise TOMLDecodeError(\"empty\", 0)\n    raise TOMLDecodeError(\"bad\", 1)\n",
        ),
        ("tomlish/other.py", "from tomlish._parser import TOMLDecodeError\n\nERROR = TOMLDecodeError(\"x\", 2)\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    for op in ["incoming_calls", "references"] {
        let result = run.call(Caller::Main, "lsp", json!({"op": op, "file": "tomlish/_parser.py", "line": 2, "symbol": "__init__"}));
        let text = result.joined_text();
        assert!(!result.is_error, "{op}: {text}");
        let note = text
            .lines()
            .find(|line| line.contains("constructions of `TOMLDecodeError(…)`"))
            .unwrap_or_else(|| panic!("{op}: the constructions are not named:\n{text}"));
        // Ground truth (grep `TOMLDecodeError(`, less the `class` line): 3.
        assert!(note.starts_with("note: NOT in this answer: 3 constructions"), "{op}: {note}");
        assert!(note.contains("tomlish/_parser.py:8") && note.contains("tomlish/other.py:3"), "{op}: {note}");
    }
}

/// F6: `deref` of `impl Deref for Lazy` had "1 reference" and "no callers" while every `*x`
/// calls it; its answers say rust-analyzer lists no implicit call.
#[test]
fn an_implicitly_called_trait_method_says_its_implicit_calls_are_not_listed() {
    let test = "lsp_trial40::an_implicitly_called_trait_method_says_its_implicit_calls_are_not_listed";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"lazyish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "pub struct Lazy(pub u32);\n\nimpl std::ops::Deref for Lazy {\n    type Target = u32;\n    fn deref(&self) -> &u32 {\n        &self.0\n    }\n}\n\npub fn twice(x: &Lazy) -> u32 {\n    *x.deref() + **x\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    for op in ["references", "incoming_calls"] {
        let result = run.call(Caller::Main, "lsp", json!({"op": op, "file": "src/lib.rs", "line": 5, "symbol": "deref"}));
        let text = result.joined_text();
        assert!(!result.is_error, "{op}: {text}");
        assert!(
            text.contains("note: NOT in this answer: the implicit calls of `deref` — it implements `Deref` for `Lazy`"),
            "{op}: {text}"
        );
    }
}

/// A crate of once_cell 1.20.2's shape: `std` (default) or `critical-section` picks an `imp`
/// module by `#[path]`; the tests' sync modules need either.
fn once_cell_shaped() -> tempfile::TempDir {
    let imp = |name: &str| {
        format!("pub(crate) struct OnceCell(pub(crate) bool);\n\nimpl OnceCell {{\n    pub(crate) fn is_initialized(&self) -> bool {{\n        self.0\n    }}\n}}\n\npub(crate) const KIND: &str = \"{name}\";\n")
    };
    support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"oncely\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\"]\nalloc = []\ncritical-section = []\nparking_lot = []\n\n[dependencies]\n",
        ),
        (
            "src/lib.rs",
            "#![cfg_attr(not(feature = \"std\"), no_std)]\n\n#[cfg(all(feature = \"critical-section\", not(feature = \"std\")))]\n#[path = \"imp_cs.rs\"]\nmod imp;\n\n#[cfg(all(feature = \"std\", feature = \"parking_lot\"))]\n#[path = \"imp_pl.rs\"]\nmod imp;\n\n#[cfg(all(feature = \"std\", not(feature = \"parking_lot\")))]\n#[path = \"imp_std.rs\"]\nmod imp;\n\n#[cfg(any(feature = \"std\", feature = \"critical-section\"))]\npub fn ready(flag: bool) -> bool {\n    imp::OnceCell(flag).is_initialized() && !imp::KIND.is_empty()\n}\n",
        ),
        ("src/imp_cs.rs", &imp("cs")),
        ("src/imp_pl.rs", &imp("pl")),
        ("src/imp_std.rs", &imp("std")),
        ("tests/it/main.rs", "#[cfg(any(feature = \"std\", feature = \"critical-section\"))]\nmod sync_lazy;\n"),
        ("tests/it/sync_lazy.rs", "#[test]\nfn ready() {\n    assert!(oncely::ready(true));\n}\n"),
    ])
}

/// F1 and F3: `"*"` names exactly the files its features leave out: not the tests' module under
/// `any(std, critical-section)` (std is on), and the `#[path]` module compiled only without std,
/// with default features and with all of them.
#[test]
fn feature_gates_are_evaluated_whole_and_path_modules_are_named() {
    let test = "lsp_trial40::feature_gates_are_evaluated_whole_and_path_modules_are_named";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = once_cell_shaped();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let default = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let text = default.joined_text();
    assert!(!default.is_error, "{text}");
    assert!(!text.contains("tests/it/sync_lazy.rs"), "compiled with std on:\n{text}");
    let gated = text.lines().find(|line| line.contains("gated code NOT checked")).unwrap_or_else(|| panic!("{text}"));
    assert!(gated.contains("src/imp_pl.rs (whole file: its `mod` at src/lib.rs:7 is gated on parking_lot)"), "{gated}");
    assert!(!gated.contains("imp_cs.rs"), "no feature to enable compiles it: {gated}");
    let negated = text.lines().find(|line| line.contains("cfg(not(feature")).unwrap_or_else(|| panic!("{text}"));
    assert!(negated.contains("src/imp_cs.rs (whole file: its `mod` at src/lib.rs:3 is compiled only without std)"), "{negated}");
    let all = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*", "all_features": true}));
    let text = all.joined_text();
    let negated = text.lines().find(|line| line.contains("cfg(not(feature")).unwrap_or_else(|| panic!("{text}"));
    assert!(negated.contains("src/imp_cs.rs (whole file") && negated.contains("src/imp_std.rs (whole file"), "{negated}");
    // Ground truth: cargo compiles the tests' module with default features (a break there fails).
    std::fs::write(dir.path().join("tests/it/sync_lazy.rs"), "#[test]\nfn ready() {\n    assert!(oncely::ready(1));\n}\n").unwrap();
    let check = std::process::Command::new("cargo").args(["check", "--all-targets", "--quiet"]).current_dir(dir.path()).output().unwrap();
    assert!(!check.status.success(), "cargo compiles tests/it/sync_lazy.rs with default features");
}

/// F4: occurrences a rename leaves in a module compiled only without an enabled feature are
/// checked by a build without the default features, never by one that adds them.
#[test]
fn a_rename_left_in_code_compiled_only_without_std_says_to_check_without_default_features() {
    let test = "lsp_trial40::a_rename_left_in_code_compiled_only_without_std_says_to_check_without_default_features";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = once_cell_shaped();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/imp_std.rs", "line": 4, "symbol": "is_initialized", "new_name": "is_ready", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let cs = text.lines().find(|line| line.contains("src/imp_cs.rs:4:")).unwrap_or_else(|| panic!("imp_cs.rs is not listed:\n{text}"));
    let gate = "`#[cfg(all(feature = \"critical-section\", not(feature = \"std\")))]`";
    assert!(cs.contains(gate), "the listed line names its gate: {cs}");
    // The check for each gate is said once, on the line that names the gates of the listed lines.
    let checks = text.lines().find(|line| line.contains("leaves those cfgs off")).unwrap_or_else(|| panic!("no check is named:\n{text}"));
    assert!(
        checks.contains(&format!(
            "{gate}: it is compiled only with std OFF, so no check with std on covers it: check with {{\"op\": \"diagnostics\", \"file\": \"*\", \"no_default_features\": true, \"features\": [\"critical-section\"]}}"
        )),
        "{checks}"
    );
    assert!(
        !text.contains("\"features\": [\"critical-section\", \"std\"]") && !text.contains("\"features\": [\"std\", \"critical-section\"]"),
        "{text}"
    );
    // Ground truth: that check compiles imp_cs.rs, so it fails once only imp_cs.rs keeps the old name.
    std::fs::write(
        dir.path().join("src/lib.rs"),
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap().replace("is_initialized", "is_ready"),
    )
    .unwrap();
    let check = std::process::Command::new("cargo")
        .args(["check", "--quiet", "--no-default-features", "--features", "critical-section"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!check.status.success(), "the suggested check compiles imp_cs.rs");
}

/// Trial 42 F1 (hex 0.4.3): a use behind `#[cfg(feature = "alloc")]` — on by default — inside a
/// module gated on `serde` is off because of `serde`; the rename's advice names `serde`, never
/// `alloc` (a check with `alloc` compiles nothing new).
#[test]
fn a_gate_on_by_default_inside_a_gated_module_is_not_named_as_the_reason() {
    let test = "lsp_trial40::a_gate_on_by_default_inside_a_gated_module_is_not_named_as_the_reason";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"hexish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\"]\nalloc = []\nserde = []\n\n[dependencies]\n",
        ),
        ("src/lib.rs", "#[cfg(feature = \"serde\")]\npub mod serde;\n\npub fn encode_hex() -> u8 {\n    1\n}\n"),
        ("src/serde.rs", "#[cfg(feature = \"alloc\")]\npub fn serialize() -> u8 {\n    crate::encode_hex()\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 4, "symbol": "encode_hex", "new_name": "to_hex", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let left = text.lines().find(|line| line.contains("src/serde.rs:3:")).unwrap_or_else(|| panic!("serde.rs is not listed:\n{text}"));
    assert!(left.contains("`#[cfg(feature = \"serde\")]`"), "the listed line names its gate: {left}");
    let checks = text.lines().find(|line| line.contains("leaves those cfgs off")).unwrap_or_else(|| panic!("no check is named:\n{text}"));
    assert!(
        checks.contains("`#[cfg(feature = \"serde\")]`: check with {\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [\"serde\"]}"),
        "{checks}"
    );
    assert!(!text.contains("\"features\": [\"alloc\"]"), "{text}");
}

/// `cargo check --all-targets` in `dir` with `args`: whether it succeeded, and its stderr.
fn cargo_check(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new("cargo")
        .args(["check", "--all-targets", "--quiet", "--offline"])
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo check");
    (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Trial 42 F2 and F5 (hex 0.4.3's shape): code behind a feature that is off is never said clean —
/// an integration test under its own `#![cfg(…)]` (its diagnostics and an edit in it), and lines
/// deleted from behind a `#[cfg]` (the write check names them and the check that compiles them).
#[test]
fn code_behind_an_off_feature_is_said_unchecked_when_a_file_gates_itself_or_a_write_deletes_it() {
    let test = "lsp_trial40::code_behind_an_off_feature_is_said_unchecked_when_a_file_gates_itself_or_a_write_deletes_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"hexish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\"]\nalloc = []\nserde = []\n\n[dependencies]\n",
        ),
        (
            "src/lib.rs",
            "#[cfg(feature = \"serde\")]\npub mod serde;\n\n#[cfg(all(feature = \"alloc\", feature = \"serde\"))]\npub use crate::serde::serialize;\n\npub fn encode() -> u8 {\n    1\n}\n",
        ),
        ("src/serde.rs", "pub fn serialize() -> u8 {\n    crate::encode()\n}\n"),
        (
            "tests/serde.rs",
            "#![cfg(all(feature = \"serde\", feature = \"alloc\"))]\n\n#[test]\nfn round_trip() {\n    let foo = hexish::serialize();\n    assert_eq!(foo, 1);\n}\n",
        ),
    ]);
    // Ground truth: clean with the default features and with serde.
    assert!(cargo_check(dir.path(), &[]).0 && cargo_check(dir.path(), &["--features", "serde"]).0, "fixture does not build");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(!result.is_error, "{}", result.joined_text());
    // F5: the file that gates itself.
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "tests/serde.rs"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.starts_with("NOT checked: all of tests/serde.rs is not compiled in the current configuration")
            && text.contains("\"features\": [\"alloc\", \"serde\"]"),
        "{text}"
    );
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "tests/serde.rs", "old_string": "assert_eq!(foo, 1);", "new_string": "assert_eq!(fooo, 1);"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let (builds, stderr) = cargo_check(dir.path(), &["--features", "serde"]);
    assert!(!builds && stderr.contains("fooo"), "the edit should break the serde build: {stderr}");
    assert!(text.contains("tests/serde.rs: NOT checked: all of serde.rs is not compiled"), "{text}");
    assert!(!text.contains("no new errors in tests/serde.rs"), "{text}");
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "tests/serde.rs", "old_string": "assert_eq!(fooo, 1);", "new_string": "assert_eq!(foo, 1);"}),
    );
    assert!(!result.is_error, "{}", result.joined_text());
    // F2: deleting the gated re-export breaks the serde build of tests/serde.rs.
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "#[cfg(all(feature = \"alloc\", feature = \"serde\"))]\npub use crate::serde::serialize;\n", "new_string": ""}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(cargo_check(dir.path(), &[]).0, "the default build still builds");
    let (builds, stderr) = cargo_check(dir.path(), &["--features", "serde"]);
    assert!(!builds && stderr.contains("serialize"), "the deletion should break the serde build: {stderr}");
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(
        block.contains(
            "2 lines deleted from lib.rs (lines 4–5 before the write) stood behind `#[cfg(all(feature = \"alloc\", feature = \"serde\"))]`"
        ) && block.contains("\"features\": [\"alloc\", \"serde\"]"),
        "{text}"
    );
}

/// Trial 42 F3 (hex 0.4.3's shape): a rename leaves the call in a `macro_rules!` template; the
/// library fails to compile (cargo), so the integration test is named never compiled — the error,
/// published with rustc's "a function with a similar name exists" hint at the same place (the new
/// name is close to the old), is not called a unit-test error.
#[test]
fn an_error_in_a_macro_template_holds_back_the_other_targets() {
    let test = "lsp_trial40::an_error_in_a_macro_template_holds_back_the_other_targets";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"hexish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "pub fn decode_to_slice(out: &mut [u8]) -> usize {\n    out.len()\n}\n\nmacro_rules! array_impl {\n    ($($len:expr)+) => {$(\n        impl Decode for [u8; $len] {\n            fn decode() -> usize {\n                let mut out = [0_u8; $len];\n                decode_to_slice(&mut out)\n            }\n        }\n    )+}\n}\n\npub trait Decode {\n    fn decode() -> usize;\n}\n\narray_impl! { 1 2 3 }\n",
        ),
        ("tests/decode.rs", "#[test]\nfn decodes() {\n    assert_eq!(hexish::decode_to_slice(&mut [0; 2]), 2);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(!result.is_error, "{}", result.joined_text());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 1, "symbol": "decode_to_slice", "new_name": "decode_to_slices"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let (_, stderr) = cargo_check(dir.path(), &[]);
    assert!(stderr.contains("could not compile `hexish` (lib)"), "the library should fail: {stderr}");
    assert!(!text.contains("unit-test build only"), "{text}");
    assert!(text.contains("NOT checked: tests/decode.rs — cargo never compiled it"), "{text}");
}

/// Trial 42 F6 (idna 3.10's shape): a script without an extension (`#!/usr/bin/env python3`)
/// imports the function; references name it as NOT in the answer, the rename warns it is NOT
/// renamed — and running it after the rename fails, as the warning says.
#[test]
fn a_script_without_an_extension_that_uses_the_renamed_function_is_named() {
    let test = "lsp_trial40::a_script_without_an_extension_that_uses_the_renamed_function_is_named";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"idnaish\"\nversion = \"0.1.0\"\n"),
        ("idnaish/__init__.py", ""),
        ("idnaish/intranges.py", "def intranges_from_list(values):\n    return tuple(values)\n"),
        ("idnaish/core.py", "from idnaish.intranges import intranges_from_list\n\nTABLE = intranges_from_list([1, 2])\n"),
        (
            "tools/make-data",
            "#!/usr/bin/env python3\nimport os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\nfrom idnaish.intranges import intranges_from_list\nprint(intranges_from_list([3]))\n",
        ),
    ]);
    let script = |dir: &std::path::Path| {
        std::process::Command::new("python3").arg("tools/make-data").current_dir(dir).output().expect("run python3")
    };
    assert!(script(dir.path()).status.success(), "the script runs before the rename");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp",
        json!({"op": "references", "file": "idnaish/intranges.py", "line": 1, "symbol": "intranges_from_list"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("2 whole-word occurrences of `intranges_from_list` in 1 script without a file extension")
            && text.contains("tools/make-data:4, tools/make-data:5"),
        "{text}"
    );
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "idnaish/intranges.py", "line": 1, "symbol": "intranges_from_list", "new_name": "intranges_build"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("WARNING: 2 whole-word occurrences") && text.contains("NOT renamed by this edit: tools/make-data:4"), "{text}");
    let output = script(dir.path());
    assert!(!output.status.success() && String::from_utf8_lossy(&output.stderr).contains("ImportError"), "the script still runs");
}

/// Trial 42 F4 (hex 0.4.3's shape): a doc-test calls the trait method through an impl the
/// `macro_rules!` template makes; the rename does not call it another symbol to leave, but ties it
/// to the template's occurrence.
#[test]
fn a_doc_test_calling_a_method_a_macro_template_defines_is_tied_to_that_template() {
    let test = "lsp_trial40::a_doc_test_calling_a_method_a_macro_template_defines_is_tied_to_that_template";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"hexish\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "/// Decodes.\n///\n/// ```\n/// use hexish::FromHex;\n/// let value = <[u8; 2]>::from_hex(\"00\");\n/// assert_eq!(value, 2);\n/// ```\npub trait FromHex {\n    fn from_hex(text: &str) -> usize;\n}\n\nmacro_rules! array_impl {\n    ($($len:expr)+) => {$(\n        impl FromHex for [u8; $len] {\n            fn from_hex(_text: &str) -> usize {\n                $len\n            }\n        }\n    )+}\n}\n\narray_impl! { 1 2 3 }\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(!result.is_error, "{}", result.joined_text());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 9, "symbol": "from_hex", "new_name": "parse_hex", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("left unrenamed, rightly"), "{text}");
    let line = text.lines().find(|line| line.contains("src/lib.rs:5:")).unwrap_or_else(|| panic!("the doc-test is not listed:\n{text}"));
    assert!(line.contains("a `macro_rules!` template defines at src/lib.rs:15"), "{line}");
}

/// Trial 43 M1: in an edition 2015 crate a doc-test's `use CRATE::…` starts at the crate root.
/// Every use of a name it imports is renamed with it, and the doc-test still passes.
#[test]
fn an_edition_2015_doc_test_importing_the_renamed_names_is_renamed_whole() {
    let test = "lsp_trial40::an_edition_2015_doc_test_importing_the_renamed_names_is_renamed_whole";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        // No `edition`: Cargo's default, 2015 (strsim 0.11.1's manifest).
        ("Cargo.toml", "[package]\nname = \"simshape\"\nversion = \"0.1.0\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "#[derive(Debug, PartialEq)]\npub enum SimError {\n    DifferentLengthArgs,\n}\n\n/// Counts the differing positions.\n///\n/// ```\n/// use simshape::{hamming, SimError::DifferentLengthArgs};\n///\n/// assert_eq!(Ok(1), hamming(\"ab\", \"ac\"));\n/// assert_eq!(Err(DifferentLengthArgs), hamming(\"a\", \"ab\"));\n/// ```\npub fn hamming(a: &str, b: &str) -> Result<usize, SimError> {\n    if a.len() != b.len() {\n        return Err(SimError::DifferentLengthArgs);\n    }\n    Ok(a.bytes().zip(b.bytes()).filter(|(x, y)| x != y).count())\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 3, "symbol": "DifferentLengthArgs", "new_name": "LengthMismatch"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("left unrenamed"), "{text}");
    let source = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(!source.contains("DifferentLengthArgs"), "{source}");
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 14, "symbol": "hamming", "new_name": "hamming_distance"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("left unrenamed"), "{text}");
    // Ground truth: the doc-test compiles and passes.
    let output = std::process::Command::new("cargo")
        .args(["test", "--doc", "--quiet", "--offline"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .output()
        .expect("run cargo test --doc");
    let printed = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(
        output.status.success() && printed.contains("1 passed"),
        "{printed}\n{}",
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap()
    );
}

/// Trial 43 M2: a call written over several lines that the write leaves an argument short is one
/// error, as cargo counts it — not rustc's at the callee plus rust-analyzer's at the `)`.
#[test]
fn a_call_over_several_lines_left_an_argument_short_counts_once_as_cargo_does() {
    let test = "lsp_trial40::a_call_over_several_lines_left_an_argument_short_counts_once_as_cargo_does";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"dice\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "pub fn sorensen_dice(a: &str, b: &str) -> f64 {\n    (a.len() + b.len()) as f64\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn one_line() {\n        assert_eq!(2.0, sorensen_dice(\"a\", \"b\"));\n    }\n\n    #[test]\n    fn several_lines() {\n        assert_eq!(\n            7.0,\n            sorensen_dice(\n                \"abc\",\n                \"abcd\"\n            )\n        );\n        let value = sorensen_dice(\n            \"x\",\n            \"y\",\n        );\n        assert_eq!(2.0, value);\n    }\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    assert!(!result.is_error, "{}", result.joined_text());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "src/lib.rs", "old_string": "pub fn sorensen_dice(a: &str, b: &str) -> f64 {", "new_string": "pub fn sorensen_dice(a: &str, b: &str, _ci: bool) -> f64 {"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let (built, output) = cargo_check(dir.path(), &["--message-format", "short"]);
    assert!(!built, "{output}");
    let cargo_errors = output.lines().filter(|line| line.contains(": error[")).count();
    assert_eq!(cargo_errors, 3, "{output}");
    assert!(text.contains(&format!("this write introduced {cargo_errors} new errors")), "cargo counts {cargo_errors}:\n{output}\n{text}");
    assert!(!text.contains("E0107"), "{text}");
}

/// Trial 43 M7: the uses of the property a renamed local was destructured from are named as the
/// property's, and the rename compiles (tsc).
#[test]
fn a_renamed_destructured_local_leaves_the_property_uses_as_another_symbol() {
    let test = "lsp_trial40::a_renamed_destructured_local_leaves_the_property_uses_as_another_symbol";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\"}, \"include\": [\"src\"]}\n",
        ),
        (
            "src/index.ts",
            "export interface Options {\n  horizontal?: boolean\n}\n\nexport function offset(options: Options): string {\n  const { horizontal } = options\n  const other = options.horizontal ? 'x' : 'y'\n  return horizontal ? other : 'top'\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/index.ts", "line": 6, "symbol": "horizontal", "new_name": "isHorizontal"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("through a re-export"), "{text}");
    assert!(
        text.contains("left unrenamed, rightly: 2 occurrences of the property `horizontal` that the renamed local was destructured from"),
        "{text}"
    );
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
}
