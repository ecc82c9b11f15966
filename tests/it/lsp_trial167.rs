//! Wrong or missing answers from the fresh-user trial 167 (walkdir 2.5.1), against
//! rust-analyzer and cargo, on fixtures of the same shape:
//! - F1: walkdir compiles its README's examples as doc-tests through `#[cfg(doctest)]
//!   doc_comment::doctest!("../README.md")`. The rename of `follow_links` renamed the `///`
//!   example and filed README.md:60 under "documentation files (examples there may now be
//!   wrong)"; `cargo test` then failed (E0599). `references` left the README use out, and the
//!   write's doc-test count said "about 16" for rustdoc's 20.
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
