//! Wrong or missing answers from the fresh-user trial 167 (walkdir 2.5.1), against
//! rust-analyzer and cargo, on fixtures of the same shape:
//! - F1: walkdir compiles its README's examples as doc-tests through `#[cfg(doctest)]
//!   doc_comment::doctest!("../README.md")`. The rename of `follow_links` renamed the `///`
//!   example and filed README.md:60 under "documentation files (examples there may now be
//!   wrong)"; `cargo test` then failed (E0599). `references` left the README use out, and the
//!   write's doc-test count said "about 16" for rustdoc's 20.
//! - F2: `lsp diagnostics "*"` said "0 errors" and nothing of the `#[cfg(windows)]` code it
//!   never compiled, broken by a rename.
//! - M1: `ast_grep` `itry!($E)` matched 2 of the 9 `itry!` invocations and said nothing.
//!
//! Ground truth: `cargo test --doc` (and its `--list`), the files' text.

use crate::support;

use serde_json::json;

/// The library: `Walker::follow_links`, and another type's `follow_links` that the README calls
/// too; the README is compiled as doc-tests through a `doctest!` macro shaped as the doc-comment
/// crate's (`#[doc = include_str!($x)] extern "C" {}`), so the fixture needs no registry.
const README_DOCTESTS_LIB: &str = "//! Walks things.

#[cfg(doctest)]
macro_rules! doctest {
    ($x:expr) => {
        #[doc = include_str!($x)]
        extern \"C\" {}
    };
}

#[cfg(doctest)]
doctest!(\"../README.md\");

/// A walker.
pub struct Walker {
    links: bool,
}

impl Walker {
    /// A walker that follows no links.
    pub fn new() -> Walker {
        Walker { links: false }
    }

    /// Follows links when `yes`.
    ///
    /// ```
    /// let walker = readmed::Walker::new().follow_links(true);
    /// assert!(walker.follows());
    /// ```
    pub fn follow_links(mut self, yes: bool) -> Walker {
        self.links = yes;
        self
    }

    /// Whether it follows links.
    pub fn follows(&self) -> bool {
        self.links
    }
}

/// Another type with a method of the same name.
pub struct Other;

impl Other {
    /// Always true.
    pub fn follow_links(&self) -> bool {
        true
    }
}
";

/// The README: prose naming `follow_links`, a compiled example calling `Walker::follow_links`
/// (line 6), one calling `Other::follow_links` (line 11), and a `text` block rustdoc does not
/// compile (line 15).
const README_DOCTESTS_README: &str = "# readmed

Call `follow_links` to follow links.

```rust
let walker = readmed::Walker::new().follow_links(true);
assert!(walker.follows());
```

```rust,no_run
assert!(readmed::Other.follow_links());
```

```text
follow_links(true)
```
";

/// The doc-tests `cargo test --doc -- --list` lists in `dir`.
fn listed_doc_tests(dir: &std::path::Path) -> usize {
    let listed = support::cargo_by_hand(dir, &["test", "--doc", "--offline", "--", "--list"], &[]);
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    String::from_utf8_lossy(&listed.stdout).lines().filter(|line| line.ends_with(": test")).count()
}

#[test]
fn readme_examples_compiled_as_doc_tests_are_renamed_referenced_and_counted() {
    let test = "lsp_trial167::readme_examples_compiled_as_doc_tests_are_renamed_referenced_and_counted";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"readmed\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", README_DOCTESTS_LIB),
        ("README.md", README_DOCTESTS_README),
    ]);
    // Ground truth before: rustdoc compiles the README's two Rust blocks beside the `///` one.
    assert_eq!(listed_doc_tests(dir.path()), 3);
    assert!(support::cargo_doc_tests_pass(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 31, "symbol": "follow_links"}));
    let note = references
        .lines()
        .find(|line| line.starts_with("note: NOT in this answer: references in doc-test examples"))
        .unwrap_or_else(|| panic!("no doc-test note:\n{references}"));
    assert!(note.contains("src/lib.rs:28") && note.contains("README.md:6"), "{references}");
    assert!(!note.contains("README.md:11") && !note.contains("README.md:15"), "another type's and a text block's:\n{references}");
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 31, "symbol": "follow_links", "new_name": "follow_symlinks"}),
    );
    let renamed = text
        .split("runbound renamed ")
        .nth(1)
        .and_then(|rest| rest.split("\n  left").next())
        .unwrap_or_else(|| panic!("no doc-test renames:\n{text}"));
    assert!(renamed.contains("README.md:6:") && renamed.contains("src/lib.rs:28:"), "{text}");
    assert!(!text.contains("documentation files (no server edits them; examples there may now be wrong): README.md:6"), "{text}");
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(readme.contains("readmed::Walker::new().follow_symlinks(true);"), "{readme}");
    assert!(readme.contains("Call `follow_links` to follow links.") && readme.contains("readmed::Other.follow_links()"), "{readme}");
    assert!(readme.contains("```text\nfollow_links(true)\n```"), "a block rustdoc does not compile is prose:\n{readme}");
    // The write's doc-test count holds the README's, and the README block that uses the new name.
    let listed = listed_doc_tests(dir.path());
    assert!(text.contains(&format!("NOT checked: the doc-tests of crate readmed (about {listed} in 1 file")), "{listed}:\n{text}");
    assert!(text.contains("README.md:5 (`follow_symlinks`)"), "{text}");
    // Ground truth after: every doc-test, the README's included, compiles and passes.
    assert!(support::cargo_doc_tests_pass(dir.path()), "{readme}\n{text}");
}

/// `src/plat.rs`: a unix function, its Windows twin (gate at line 10, broken at line 12: `helper`
/// takes one argument)
/// and a fallback for other targets (gate at line 16).
const PLATFORM_TWINS: &str = "//! Platform twins.

/// The platform's name.
#[cfg(unix)]
pub fn name() -> &'static str {
    helper(1)
}

/// The platform's name.
#[cfg(windows)]
pub fn name() -> &'static str {
    helper()
}

/// The platform's name elsewhere.
#[cfg(not(any(unix, windows)))]
pub fn name() -> &'static str {
    \"other\"
}

#[cfg(any(unix, windows))]
fn helper(_x: u32) -> &'static str {
    \"known\"
}
";

/// Trial 167 F2: the whole-project check of a crate whose only error is in its `#[cfg(windows)]`
/// twin said "0 errors" and nothing of the code it never compiled. It now names the file, the
/// gated items' lines and gates, and the `cargo check --target …` that compiles them — an
/// installed target said as such, else with its `rustup target add`.
#[test]
fn the_whole_project_check_names_code_behind_another_targets_cfg_and_the_check_that_compiles_it() {
    let test = "lsp_trial167::the_whole_project_check_names_code_behind_another_targets_cfg_and_the_check_that_compiles_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    if !cfg!(target_os = "linux") {
        eprintln!("{test}: skipped, the fixture's gates are read against a Linux host");
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"twins\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", "//! Twins.\nmod plat;\npub use plat::name;\n"),
        ("src/plat.rs", PLATFORM_TWINS),
    ]);
    let host = support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets"], &[]);
    assert!(host.status.success(), "{}", String::from_utf8_lossy(&host.stderr));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.contains("0 errors"), "{text}");
    assert!(text.contains("NOT checked: 2 items behind a `#[cfg]` for another target in 1 file"), "{text}");
    let line = text
        .lines()
        .find(|line| line.contains("code behind a `#[cfg]` for another target"))
        .unwrap_or_else(|| panic!("no line for the gated code:\n{text}"));
    assert!(line.contains("src/plat.rs (2: lines 10, 16)"), "{line}");
    assert!(line.contains("`#[cfg(windows)]` 1") && line.contains("`#[cfg(not(any(unix, windows)))]` 1"), "{line}");
    let windows_step = "`cargo check --all-targets --target x86_64-pc-windows-gnu` (1 item; the target is installed here)";
    let sysroot = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc --print sysroot");
    let sysroot = std::path::PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    if sysroot.join("lib/rustlib/x86_64-pc-windows-gnu/lib").is_dir() {
        assert!(line.contains(windows_step), "{line}");
        // Ground truth: the named check finds the Windows twin's error the host check cannot.
        let windows = support::cargo_by_hand(
            dir.path(),
            &["check", "--offline", "--all-targets", "--message-format=short", "--target", "x86_64-pc-windows-gnu"],
            &[],
        );
        let stderr = String::from_utf8_lossy(&windows.stderr);
        assert!(!windows.status.success() && stderr.contains("src/plat.rs:12:"), "{stderr}");
    } else {
        assert!(
            line.contains("`rustup target add x86_64-pc-windows-gnu` then `cargo check --all-targets --target x86_64-pc-windows-gnu`"),
            "{line}"
        );
    }
}

/// Trial 167 M1: in a macro's token tree a single `$E` binds one token, so `itry!($E)` matched
/// only the single-token invocations; the unmatched ones of the same macro are counted with the
/// `$$$` pattern that matches them all.
#[test]
fn a_single_metavariable_in_a_macro_pattern_says_how_many_invocations_it_missed() {
    let source = "macro_rules! itry {\n    ($e:expr) => {\n        match $e {\n            Ok(v) => v,\n            Err(err) => return Some(Err(err)),\n        }\n    };\n}\n\nfn step(result: Result<u32, String>) -> Option<Result<u32, String>> {\n    let a = itry!(result);\n    let b = itry!(Ok::<u32, String>(a + 1));\n    let c = itry!(parse(\"7\").map_err(|e| e.to_string()));\n    Some(Ok(a + b + c))\n}\n\nfn parse(text: &str) -> Result<u32, std::num::ParseIntError> {\n    text.parse()\n}\n";
    let dir = support::workspace_with(&[("src/lib.rs", source)]);
    // Ground truth: the invocations, by the text (the `macro_rules!` line is the definition).
    let invocations = source.matches("itry!(").count();
    assert_eq!(invocations, 3);
    let run = runbound::Run::builder(dir.path()).with_structural().build().expect("build run");
    let single = support::call_ok(&run, "ast_grep", json!({"pattern": "itry!($E)", "path": "src", "language": "rust"}));
    assert!(single.starts_with("1 match in 1 file"), "{single}");
    assert!(
        single.contains(&format!(
            "note: {} more `itry!(…)` invocations that `itry!($$$E)` matches and `itry!($E)` does not (e.g. src/lib.rs:12)",
            invocations - 1
        )) && single.contains("search with `itry!($$$E)` to include them"),
        "{single}"
    );
    let widened = support::call_ok(&run, "ast_grep", json!({"pattern": "itry!($$$E)", "path": "src", "language": "rust"}));
    assert!(widened.starts_with(&format!("{invocations} matches in 1 file")), "{widened}");
    assert!(!widened.contains("not matched"), "{widened}");
}
