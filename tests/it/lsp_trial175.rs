//! Trial 175 (thiserror 2.0.21 + thiserror-impl 2.0.21 as a two-member cargo workspace): the
//! write check's claim when the written crate is a proc macro another member expands.
//!
//! - F2: a write to the proc-macro crate that broke only the dependent crate's doc-tests (which
//!   derive its macro) said "no new errors … checked: … the whole cargo workspace" with no
//!   doc-test named; `cargo test --doc` failed.
//! - M2: a write that broke the proc-macro crate's compilation left the dependent crate's
//!   library and tests uncompiled (cargo never starts them), and the block still said "checked:
//!   … the whole cargo workspace" and "no new errors in the files of the checked project".
//!
//! Ground truth: `cargo test --doc -p l` and `cargo check --workspace --all-targets`.

use crate::support;

use serde_json::json;

const WORKSPACE_MANIFEST: &str = "[workspace]\nmembers = [\"p\", \"l\"]\nresolver = \"2\"\n";

const MACRO_MANIFEST: &str = "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\nproc-macro = true\n";

/// The proc-macro crates' first lines: their imports and `type_name`, the name of the type a
/// derive is applied to, read without syn (a literal, for `concat!`).
macro_rules! type_name_source {
    () => {
        "use proc_macro::{TokenStream, TokenTree};

fn type_name(input: TokenStream) -> String {
    let mut after_struct = false;
    for token in input {
        if let TokenTree::Ident(ident) = token {
            if after_struct {
                return ident.to_string();
            }
            after_struct = ident.to_string() == \"struct\";
        }
    }
    String::new()
}
"
    };
}

/// `#[derive(Hello)]`: `impl NAME { pub fn hello() -> &'static str { "hi" } }`, read without syn.
const MACRO: &str = concat!(
    type_name_source!(),
    "
#[proc_macro_derive(Hello)]
pub fn derive_hello(input: TokenStream) -> TokenStream {
    let name = type_name(input);
    format!(\"impl {name} {{ pub fn hello() -> &'static str {{ \\\"hi\\\" }} }}\").parse().unwrap()
}
"
);

const LIBRARY_MANIFEST: &str =
    "[package]\nname = \"l\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\np = { version = \"0.1.0\", path = \"../p\" }\n";

/// The dependent crate: re-exports the derive; its one doc-test derives it on `DataStore`.
const LIBRARY: &str = "//! ```
//! use l::Hello;
//! #[derive(Hello)]
//! struct DataStore;
//! assert_eq!(DataStore::hello(), \"hi\");
//! ```

pub use p::Hello;

/// Greets.
pub fn greet() -> &'static str {
    \"hi\"
}
";

const LIBRARY_TEST: &str = "use l::Hello;

#[derive(Hello)]
struct Widget;

#[test]
fn widget_says_hi() {
    assert_eq!(Widget::hello(), l::greet());
}
";

/// The proc macro and the crate that expands it in a fresh workspace, with a run that may
/// write; `None` (skipped loudly) without rust-analyzer or cargo.
fn macro_and_dependent(test: &str) -> Option<(tempfile::TempDir, runbound::Run)> {
    support::require_binary(test, "rust-analyzer")?;
    support::require_binary(test, "cargo")?;
    let dir = support::workspace_with(&[
        ("Cargo.toml", WORKSPACE_MANIFEST),
        ("p/Cargo.toml", MACRO_MANIFEST),
        ("p/src/lib.rs", MACRO),
        ("l/Cargo.toml", LIBRARY_MANIFEST),
        ("l/src/lib.rs", LIBRARY),
        ("l/tests/widget.rs", LIBRARY_TEST),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    Some((dir, run))
}

/// Whether `cargo test --doc -p l` passes (offline, a target directory of its own).
fn dependent_doc_tests_pass(dir: &std::path::Path) -> bool {
    support::cargo_by_hand(dir, &["test", "--doc", "-p", "l", "--offline", "--quiet"], &[]).status.success()
}

/// F2: the macro now refuses `DataStore`, which only `l`'s doc-test derives: `cargo check
/// --workspace --all-targets` stays clean, `cargo test --doc -p l` fails, and the write names
/// `l`'s doc-tests NOT checked, with the command that checks them.
#[test]
fn a_proc_macro_write_names_the_doc_tests_of_the_crates_that_depend_on_it() {
    let Some((dir, run)) = macro_and_dependent("lsp_trial175::a_proc_macro_write_names_the_doc_tests_of_the_crates_that_depend_on_it")
    else {
        return;
    };
    assert!(dependent_doc_tests_pass(dir.path()));
    let text = support::call_ok(
        &run,
        "edit",
        json!({
            "path": "p/src/lib.rs",
            "old_string": "    let name = type_name(input);\n",
            "new_string": "    let name = type_name(input);\n    if name == \"DataStore\" {\n        return \"compile_error!(\\\"DataStore is reserved\\\");\".parse().unwrap();\n    }\n",
        }),
    );
    // Ground truth: the workspace's targets compile, the doc-test does not.
    let checked =
        support::cargo_by_hand(dir.path(), &["check", "--workspace", "--all-targets", "--offline", "--message-format=short"], &[]);
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
    assert!(!dependent_doc_tests_pass(dir.path()));
    assert!(text.contains("NOT checked: the doc-tests of crate l, which depends on the written library `p`"), "{text}");
    assert!(text.contains("run `cargo test --doc -p l` in l to check them"), "{text}");
}

/// M2: the macro no longer compiles: cargo compiles none of `l`'s targets, and the write names
/// them NOT checked instead of covering them with "the whole cargo workspace".
#[test]
fn a_proc_macro_that_stops_compiling_leaves_the_dependent_crates_targets_not_checked() {
    let Some((dir, run)) =
        macro_and_dependent("lsp_trial175::a_proc_macro_that_stops_compiling_leaves_the_dependent_crates_targets_not_checked")
    else {
        return;
    };
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "p/src/lib.rs", "old_string": "fn type_name(input: TokenStream) -> String {", "new_string": "fn type_name(input: TokenStream, upper: bool) -> String {"}),
    );
    // Ground truth: E0061 in p, and no artifact nor message for any target of l.
    let checked = support::cargo_by_hand(dir.path(), &["check", "--workspace", "--all-targets", "--offline", "--message-format=json"], &[]);
    let stdout = String::from_utf8_lossy(&checked.stdout);
    assert!(stdout.contains("E0061"), "{stdout}");
    assert!(!stdout.lines().any(|line| line.contains("\"src_path\"") && line.contains("/l/")), "{stdout}");
    assert!(text.contains("p/src/lib.rs:"), "{text}");
    assert!(text.contains("NOT checked: l/src/lib.rs, l/tests/widget.rs — cargo never compiled them"), "{text}");
    assert!(text.contains("among them the targets of package `l`, which depends on `p`"), "{text}");
    assert!(!text.contains("elsewhere in the checked project") && !text.contains("in the files of the checked project"), "{text}");
}

/// M5: outgoing calls of a `#[proc_macro_derive]` function got the TypeScript hint ("a function
/// held by a property or variable … call lsp references"), whose answer was wrong for a derive
/// (F1); rust-analyzer prepares no call hierarchy item for a proc-macro entry point, and the
/// answer now says so and where its calls are. Ground truth: the function is the file's
/// `#[proc_macro_derive]` one; `type_name`, an ordinary function, gets an item.
#[test]
fn call_hierarchy_at_a_proc_macro_entry_point_says_what_it_is_without_the_typescript_hint() {
    let test = "lsp_trial175::call_hierarchy_at_a_proc_macro_entry_point_says_what_it_is_without_the_typescript_hint";
    let Some((_dir, run)) = macro_and_dependent(test) else { return };
    let line = MACRO.lines().position(|line| line.starts_with("pub fn derive_hello")).expect("the entry point") + 1;
    assert!(MACRO.lines().nth(line - 2).is_some_and(|above| above.starts_with("#[proc_macro_derive")));
    let mut text = String::new();
    // rust-analyzer may still be loading the workspace: asked again until it answers for the
    // ordinary function, at most a minute.
    for _ in 0..30 {
        let ordinary =
            support::call_ok(&run, "lsp", json!({"op": "outgoing_calls", "file": "p/src/lib.rs", "line": 3, "symbol": "type_name"}));
        if !ordinary.contains("no call hierarchy item") {
            text = support::call_ok(
                &run,
                "lsp",
                json!({"op": "outgoing_calls", "file": "p/src/lib.rs", "line": line, "symbol": "derive_hello"}),
            );
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    assert!(!text.is_empty(), "rust-analyzer never prepared a call hierarchy item for `type_name`");
    if text.contains("no call hierarchy item") {
        assert!(text.contains("`derive_hello` is a proc-macro entry point (`#[proc_macro…]`)"), "{text}");
        assert!(!text.contains("a function held by a property or variable"), "{text}");
    } else {
        // A rust-analyzer that prepares the item answers with the body's calls: `type_name` among them.
        assert!(text.contains("type_name"), "{text}");
    }
}

/// F1's proc-macro crate: `#[derive(Error)]` adds `impl NAME { pub fn describe() }`, `Display`
/// (the type's name) and `std::error::Error`, as thiserror's derive does.
const ERROR_MACRO: &str = concat!(
    type_name_source!(),
    "
#[proc_macro_derive(Error, attributes(error))]
pub fn derive_error(input: TokenStream) -> TokenStream {
    let name = type_name(input);
    format!(\"impl {name} {{ pub fn describe() -> &'static str {{ \\\"{name}\\\" }} }} impl ::core::fmt::Display for {name} {{ fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {{ f.write_str(\\\"{name}\\\") }} }} impl ::std::error::Error for {name} {{}}\").parse().unwrap()
}
"
);

/// The dependent crate re-exports the derive, as `thiserror` re-exports `thiserror_impl::*`.
const ERROR_LIBRARY: &str = "pub use p::*;\n";

/// Each test derives `Error` on a LOCAL `struct Error` and uses that struct, as thiserror's tests do.
const ERROR_TEST: &str = "use l::Error;

fn shown<T: std::fmt::Display>(expected: &str, value: T) {
    assert_eq!(expected, value.to_string());
}

#[test]
fn unit() {
    #[derive(Error, Debug)]
    #[error(\"unit\")]
    struct Error;
    let _ = Error;
    shown(\"Error\", Error);
    assert_eq!(Error::describe(), \"Error\");
}

#[test]
fn braced() {
    #[derive(
        Debug,
        Error,
    )]
    struct Error {
        code: u8,
    }
    shown(\"Error\", Error { code: 1 });
    assert_eq!(Error::describe(), \"Error\");
}

#[derive(Error, Debug)]
pub struct Failure;

mod both_namespaces {
    use std::error::{self, Error};
    use l::Error;

    #[derive(Error, Debug)]
    pub struct Wrapped {
        pub source: Box<dyn Error>,
    }

    pub fn wrapped() -> Box<dyn error::Error> {
        Box::new(Wrapped { source: \"inner\".into() })
    }
}

#[test]
fn named() {
    let boxed: Box<dyn std::error::Error> = \"x\".into();
    assert_eq!(boxed.to_string(), \"x\");
    assert_eq!(Failure::describe(), \"Failure\");
    assert_eq!(both_namespaces::wrapped().to_string(), \"Wrapped\");
}
";

/// F1: references of `derive_error` (the `fn` under `#[proc_macro_derive(Error)]`) and of the
/// `use l::Error;` list the `use` and every `#[derive(…, Error, …)]` (3, ground truth: the
/// tree's `derive(` attributes naming `Error`, and `cargo test` passes, so each expands this
/// macro), and none of the local `struct Error`'s uses (`let _ = Error;`, `Error { code: 1 }`),
/// which rust-analyzer's own `definition` resolves to the local struct.
#[test]
fn references_of_a_derive_macro_list_its_derive_uses_and_not_the_local_structs_it_derives() {
    let test = "lsp_trial175::references_of_a_derive_macro_list_its_derive_uses_and_not_the_local_structs_it_derives";
    let (Some(_), Some(_)) = (support::require_binary(test, "rust-analyzer"), support::require_binary(test, "cargo")) else {
        return;
    };
    let dir = support::workspace_with(&[
        ("Cargo.toml", WORKSPACE_MANIFEST),
        ("p/Cargo.toml", MACRO_MANIFEST),
        ("p/src/lib.rs", ERROR_MACRO),
        ("l/Cargo.toml", LIBRARY_MANIFEST),
        ("l/src/lib.rs", ERROR_LIBRARY),
        ("l/tests/errors.rs", ERROR_TEST),
    ]);
    // Ground truth: the derives expand this macro (the tests pass), at these lines.
    let tested = support::cargo_by_hand(dir.path(), &["test", "-p", "l", "--offline", "--quiet"], &[]);
    assert!(tested.status.success(), "{}", String::from_utf8_lossy(&tested.stderr));
    let derive_lines: Vec<usize> = ERROR_TEST
        .lines()
        .enumerate()
        .filter(|(_, line)| line.trim() == "Error," || (line.contains("derive(") && line.contains("Error")))
        .map(|(index, _)| index + 1)
        .collect();
    assert_eq!(derive_lines.len(), 4, "{derive_lines:?}");
    let local_struct_uses: Vec<usize> = ERROR_TEST
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            line.contains("let _ = Error;")
                || line.contains("Error { code: 1 }")
                || line.contains("Error::describe()")
                || line.contains("shown(\"Error\", Error)")
                || line.contains("dyn Error")
                || line.contains("std::error::{")
        })
        .map(|(index, _)| index + 1)
        .collect();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let fn_line = ERROR_MACRO.lines().position(|line| line.starts_with("pub fn derive_error")).expect("the entry point") + 1;
    for (file, line, symbol) in [("p/src/lib.rs", fn_line, "derive_error"), ("l/tests/errors.rs", 1, "Error")] {
        // rust-analyzer may still be loading the workspace: asked until the `use` is listed, at most a minute.
        let mut text = String::new();
        for _ in 0..30 {
            text = support::call_ok(&run, "lsp", json!({"op": "references", "file": file, "line": line, "symbol": symbol}));
            if text.contains("use l::Error;") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_secs(2));
        }
        assert!(text.contains("use l::Error;"), "{text}");
        // Both imports of the macro, and not `use std::error::{self, Error};` (std's trait).
        let listed_uses = text
            .lines()
            .filter(|listed| {
                listed.trim_start().split_once(": ").is_some_and(|(number, rest)| number.parse::<u32>().is_ok() && rest.starts_with("use "))
            })
            .count();
        assert_eq!(listed_uses, 2, "{text}");
        for derive_line in &derive_lines {
            assert!(text.contains(&format!("\n  {derive_line}: ")), "derive at line {derive_line} not listed: {text}");
        }
        for local_line in &local_struct_uses {
            assert!(!text.contains(&format!("\n  {local_line}: ")), "local struct use at line {local_line} listed: {text}");
        }
        assert!(text.contains("attribute use(s) of the derive macro were read from the syntax trees of the 1 file(s) whose listed `use` of it leads to the macro (l/tests/errors.rs)"), "{text}");
    }
}
