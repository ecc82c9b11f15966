//! Wrong or noisy answers from the fresh-user trial 155 (indexmap 2.14.2), against rust-analyzer
//! and cargo, on fixtures of the same shape:
//! - M1: the rename's grep check read the lines of a module inside a `#[cfg(feature)]`-gated
//!   `mod` (indexmap's `src/rayon/map.rs`: `pub mod map;` of `src/rayon/mod.rs`, which
//!   `#[cfg(feature = "rayon")] mod rayon;` declares) as "(no definition)", references lumped
//!   them under a generic "cfg off … nor files no target includes", and a write check there said
//!   only "if a `#[cfg]`-gated `mod` declares it": the gate two `mod`s up was named nowhere.
//!
//! Ground truth: `cargo check` with and without the gate's feature.

use crate::support;

use serde_json::json;

/// The library: `double`, used in the crate and in a module inside the `f`-gated one.
const GATED_LIB: &str = "//! A crate with a feature-gated module tree.

/// Twice `x`.
pub fn double(x: u32) -> u32 {
    x * 2
}

/// Four times `x`.
pub fn quadruple(x: u32) -> u32 {
    double(double(x))
}

#[cfg(feature = \"f\")]
pub mod outer;
";

/// `src/outer/inner.rs`: declared by an ungated `pub mod inner;` in `src/outer/mod.rs`.
const GATED_INNER: &str = "//! Inside the gated module.

/// Six times `x`.
pub fn sextuple(x: u32) -> u32 {
    crate::double(x) * 3
}
";

fn gated_module_tree() -> tempfile::TempDir {
    support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nf = []\n"),
        ("src/lib.rs", GATED_LIB),
        ("src/outer/mod.rs", "//! The gated module.\npub mod inner;\n"),
        ("src/outer/inner.rs", GATED_INNER),
    ])
}

/// The short-form errors of `cargo check --all-targets` in `dir` with `args` added.
fn cargo_check_errors(dir: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["check", "--offline", "--all-targets", "--message-format=short"];
    all.extend_from_slice(args);
    let checked = support::cargo_by_hand(dir, &all, &[]);
    String::from_utf8_lossy(&checked.stderr).lines().filter(|line| line.contains(": error")).collect::<Vec<_>>().join("\n")
}

/// The line of `text` that starts (after indentation) with `place`.
fn line_naming<'t>(text: &'t str, place: &str) -> &'t str {
    text.lines().find(|line| line.trim_start().starts_with(place)).unwrap_or_else(|| panic!("no line for {place} in:\n{text}"))
}

#[test]
fn a_module_inside_a_gated_module_is_said_behind_the_gate_with_its_place() {
    let test = "lsp_trial155::a_module_inside_a_gated_module_is_said_behind_the_gate_with_its_place";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = gated_module_tree();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "src/lib.rs", "line": 4, "symbol": "double"}));
    // The gate, two `mod`s up, named where the occurrence is listed.
    let gate = "in a module declared under `#[cfg(feature = \"f\")]` (src/lib.rs:14, which declares src/outer/mod.rs;";
    let staged = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 4, "symbol": "double", "new_name": "twice", "preview": true}),
    );
    let listed = line_naming(&staged, "src/outer/inner.rs:5:");
    // The gate on the line; its check once for the listed lines (trial167 M2: ~400 characters of
    // the same reason had been repeated on each line).
    assert!(listed.contains(gate), "{staged}");
    let checks = staged.lines().find(|line| line.contains("configuration leaves those cfgs off")).unwrap_or_else(|| panic!("{staged}"));
    assert!(checks.contains("\"features\": [\"f\"]"), "{staged}");
    assert!(!listed.contains("(no definition)"), "{staged}");
    assert!(staged.contains("(1 behind a `#[cfg]` that is off, 0 in `macro_rules!` templates)"), "{staged}");
    // references: the same gate, with the check that compiles it.
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 4, "symbol": "double"}));
    let note = line_naming(&references, "note: NOT in this answer:");
    assert!(note.contains("src/outer/inner.rs:5") && note.contains(gate) && note.contains("\"features\": [\"f\"]"), "{references}");
    assert!(!note.contains("nor files no target includes"), "{references}");
    // Ground truth: accepted, the rename leaves the default build clean and breaks the build
    // with `f` on, at the line named.
    let edit_id =
        staged.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_else(|| panic!("no edit_id:\n{staged}"));
    let applied = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert_eq!(cargo_check_errors(dir.path(), &[]), "", "the default build");
    let with_gate = cargo_check_errors(dir.path(), &["--features", "f"]);
    assert!(with_gate.contains("src/outer/inner.rs:5:"), "{with_gate}");
    // The write check of the same change names the module and its gate too.
    assert!(applied.contains("src/outer/inner.rs") && applied.contains("`#[cfg(feature = \"f\")]`"), "{applied}");
}

#[test]
fn a_write_inside_a_module_of_a_gated_module_names_the_gate() {
    let test = "lsp_trial155::a_write_inside_a_module_of_a_gated_module_names_the_gate";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = gated_module_tree();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "src/lib.rs", "line": 4, "symbol": "double"}));
    let text = support::call_ok(
        &run,
        "edit",
        json!({"path": "src/outer/inner.rs", "old_string": "crate::double(x) * 3", "new_string": "crate::double(x, 1) * 3"}),
    );
    // Ground truth: only a build with `f` compiles the file, and it breaks there.
    assert_eq!(cargo_check_errors(dir.path(), &[]), "", "the default build");
    assert!(cargo_check_errors(dir.path(), &["--features", "f"]).contains("src/outer/inner.rs:5:"));
    let said = line_naming(&text, "src/outer/inner.rs:");
    assert!(
        said.contains("NOT checked") && said.contains("`#[cfg(feature = \"f\")]` (src/lib.rs:14, which declares src/outer/mod.rs;"),
        "{text}"
    );
    assert!(!said.contains("if a `#[cfg]`-gated `mod` declares it"), "{text}");
}

/// A crate whose lib test build has a second type named `Table` (in its tests module), so rustc
/// prints the library's as `&map::Table` there and as `&Table` in the lib build.
const TABLES_LIB: &str = "//! Two types named `Table` in the test build.
pub mod map {
    /// A table.
    pub struct Table;

    impl Table {
        /// The entries.
        pub fn entries(&self) -> usize {
            0
        }
    }
}

/// The entries of `table`.
pub fn count(table: &map::Table) -> usize {
    table.entries()
}

#[cfg(test)]
mod tests {
    pub struct Table;

    #[test]
    fn counts() {
        let _ = Table;
        assert_eq!(super::count(&super::map::Table), 0);
    }
}
";

#[test]
fn one_error_the_lib_and_lib_test_builds_print_differently_is_counted_once_with_its_builds() {
    let test = "lsp_trial155::one_error_the_lib_and_lib_test_builds_print_differently_is_counted_once_with_its_builds";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"tables\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", TABLES_LIB),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text =
        support::call_ok(&run, "edit", json!({"path": "src/lib.rs", "old_string": "table.entries()", "new_string": "table.entries_len()"}));
    // Ground truth: one error at src/lib.rs:16, which the lib and the lib test builds both
    // report, printing the type two ways.
    let cargo = support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let cargo = String::from_utf8_lossy(&cargo.stderr).into_owned();
    let errors: Vec<&str> = cargo.lines().filter(|line| line.contains(": error[")).collect();
    assert_eq!(errors.len(), 2, "{cargo}");
    assert!(errors.iter().all(|line| line.starts_with("src/lib.rs:16:11: error[E0599]")), "{cargo}");
    assert!(errors[0] != errors[1] && cargo.contains("(lib)") && cargo.contains("(lib test)"), "{cargo}");
    let dow = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(dow.contains("this write introduced 1 new error in 1 file"), "{text}");
    assert_eq!(dow.matches("src/lib.rs:16: error[E0599]").count(), 1, "{text}");
    assert!(dow.contains("one error, reported by two of cargo's builds of this file"), "{text}");
    // The project check: one error, said with both builds of its target.
    let checked = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(checked.starts_with("project check: 1 error, 0 warnings"), "{checked}");
    let listed: Vec<&str> = checked.lines().filter(|line| line.starts_with("src/lib.rs:16: error[E0599]")).collect();
    assert_eq!(listed.len(), 1, "{checked}");
    assert!(listed[0].ends_with("(rustc; in lib `tables` — lib and lib test builds)"), "{checked}");
}

/// A library whose exported macro's template calls `Thing::with_capacity`, invoked only by one
/// integration test; another test uses the library without the macro.
const MACRO_LIB: &str = "//! A thing and a macro that builds one.

/// A thing.
pub struct Thing(pub usize);

impl Thing {
    /// A thing of capacity `n`.
    pub fn with_capacity(n: usize) -> Self {
        Thing(n)
    }

    /// Its capacity.
    pub fn capacity(&self) -> usize {
        self.0
    }
}

/// Builds a thing of capacity 4.
#[macro_export]
macro_rules! thing {
    () => {
        $crate::Thing::with_capacity(4)
    };
}

/// A thing of capacity 1.
pub fn small() -> Thing {
    Thing::with_capacity(1)
}
";

#[test]
fn an_error_only_in_one_test_targets_macro_expansion_holds_back_no_other_target() {
    let test = "lsp_trial155::an_error_only_in_one_test_targets_macro_expansion_holds_back_no_other_target";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"things\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("src/lib.rs", MACRO_LIB),
        ("tests/full_path.rs", "#[test]\nfn builds() {\n    let t = things::thing!();\n    assert_eq!(t.capacity(), 4);\n}\n"),
        ("tests/plain.rs", "#[test]\nfn small() {\n    assert_eq!(things::small().capacity(), 1);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 8, "symbol": "with_capacity", "new_name": "with_capacity_in"}),
    );
    // Ground truth: cargo compiles the library and the test target `plain`; the one error is in
    // the target `full_path`, inside the macro's expansion.
    let checked =
        support::cargo_by_hand(dir.path(), &["check", "--offline", "--all-targets", "--keep-going", "--message-format=json"], &[]);
    let stdout = String::from_utf8_lossy(&checked.stdout).into_owned();
    let messages: Vec<serde_json::Value> = stdout.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let built: Vec<String> = messages
        .iter()
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter_map(|message| message.pointer("/target/name").and_then(|name| name.as_str()).map(str::to_owned))
        .collect();
    assert!(built.contains(&"things".to_owned()) && built.contains(&"plain".to_owned()), "{built:?}");
    let failed: Vec<&str> = messages
        .iter()
        .filter(|message| message["reason"] == "compiler-message" && message.pointer("/message/level") == Some(&json!("error")))
        .filter_map(|message| message.pointer("/target/name").and_then(|name| name.as_str()))
        .collect();
    assert_eq!(failed, vec!["full_path"], "{stdout}");
    let dow = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(dow.contains("tests/full_path.rs:3: error[E0599]"), "{text}");
    // The library compiled: the other test target was checked, and no library error is said.
    assert!(!dow.contains("cargo never compiled"), "{text}");
    assert!(!dow.contains("tests/plain.rs — cargo never") && !dow.contains("NOT checked: tests/plain.rs"), "{text}");
    assert!(!dow.contains("src/lib.rs: new diagnostics"), "{text}");
}

/// The library: `minimap!`, named like its crate and exported only with the default feature
/// `std` (indexmap's `indexmap!`), used by three integration tests.
const MINIMAP_LIB: &str = "//! A tiny map and its `minimap!` macro.
#[macro_use]
mod macros;

/// A map.
pub struct MiniMap<K, V>(pub Vec<(K, V)>);

impl<K, V> MiniMap<K, V> {
    /// An empty map with room for `n` pairs.
    pub fn with_capacity(n: usize) -> Self {
        MiniMap(Vec::with_capacity(n))
    }

    /// Appends a pair.
    pub fn insert(&mut self, key: K, value: V) {
        self.0.push((key, value));
    }
}

/// Something else to import.
pub fn other() -> usize {
    1
}
";

const MINIMAP_MACROS: &str = "#[cfg(feature = \"std\")]
#[macro_export]
/// Builds a `MiniMap` from pairs.
macro_rules! minimap {
    ($($key:expr => $value:expr),* $(,)?) => {{
        let mut map = $crate::MiniMap::with_capacity(0);
        $(
            map.insert($key, $value);
        )*
        map
    }};
}
";

/// The integration tests that use `minimap!`: imported alone, with another name, or called by
/// its full path.
const MINIMAP_TESTS: [(&str, &str); 3] = [
    (
        "tests/tests.rs",
        "use minimap::{minimap, other};\n\n#[test]\nfn sorts() {\n    let m = minimap! {\n        1 => 2,\n        7 => 1,\n    };\n    assert_eq!(m.0.len(), 2);\n    assert_eq!(other(), 1);\n}\n",
    ),
    (
        "tests/equivalent.rs",
        "use minimap::minimap;\n\n#[test]\nfn looks_up() {\n    let map = minimap! {\n        \"a\" => 1,\n    };\n    assert_eq!(map.0.len(), 1);\n}\n\n#[test]\nfn strings() {\n    let map = minimap! {\n        \"a\" => 1, \"b\" => 2,\n    };\n    assert_eq!(map.0.len(), 2);\n}\n",
    ),
    ("tests/full_path.rs", "#[test]\nfn full_path() {\n    let m = minimap::minimap! {\n        1 => 2,\n    };\n    assert_eq!(m.0.len(), 1);\n}\n"),
];

fn minimap_crate(macros: &str) -> tempfile::TempDir {
    let mut files = vec![
        (
            "Cargo.toml",
            "[package]\nname = \"minimap\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\ndefault = [\"std\"]\nstd = []\n",
        ),
        ("src/lib.rs", MINIMAP_LIB),
        ("src/macros.rs", macros),
    ];
    files.extend(MINIMAP_TESTS);
    support::workspace_with(&files)
}

/// The `path:line` places a `references` answer lists (its `file (N):` headings and the
/// `  line: text` rows under them), sorted.
fn listed_places(answer: &str) -> Vec<String> {
    let mut places = Vec::new();
    let mut file: Option<&str> = None;
    for row in answer.lines() {
        if let Some(heading) = row.strip_suffix("):").and_then(|row| row.rsplit_once(" (")).map(|(file, _)| file) {
            file = (!heading.starts_with(' ')).then_some(heading);
            continue;
        }
        if let (Some(file), Some(rest)) = (file, row.strip_prefix("  ")) {
            if let Some(line) = rest.split(':').next().and_then(|line| line.parse::<usize>().ok()) {
                places.push(format!("{file}:{line}"));
                continue;
            }
        }
        if !row.starts_with("  ") {
            file = None;
        }
    }
    places.sort();
    places
}

#[test]
fn references_of_a_macro_count_the_calls_rust_analyzer_leaves_out() {
    let test = "lsp_trial155::references_of_a_macro_count_the_calls_rust_analyzer_leaves_out";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    // Ground truth: the macro marked `#[deprecated]`, cargo warns at each use.
    let oracle = minimap_crate(&MINIMAP_MACROS.replace("#[macro_export]\n", "#[macro_export]\n#[deprecated]\n"));
    let checked = support::cargo_by_hand(oracle.path(), &["check", "--offline", "--all-targets", "--message-format=short"], &[]);
    let stderr = String::from_utf8_lossy(&checked.stderr).into_owned();
    let mut uses: Vec<String> = stderr
        .lines()
        .filter(|line| line.contains(": warning: use of deprecated macro"))
        // `tests/tests.rs:5:13: warning: …` → `tests/tests.rs:5`
        .filter_map(|line| line.split_once(": warning:").and_then(|(place, _)| place.rsplit_once(':')).map(|(place, _)| place.to_owned()))
        .collect();
    uses.push("src/macros.rs:4".to_owned());
    uses.sort();
    uses.dedup();
    assert_eq!(uses.len(), 7, "{stderr}");
    let dir = minimap_crate(MINIMAP_MACROS);
    // A cold server and a warm one: rust-analyzer's own list leaves out different calls.
    let run = runbound::Run::builder(dir.path()).config(support::config_with_room()).language_servers().build().expect("build run");
    for _ in 0..2 {
        let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/macros.rs", "line": 4, "symbol": "minimap"}));
        assert!(text.contains("\n7 references in 4 files:"), "{text}");
        assert_eq!(listed_places(&text), uses, "{text}");
        assert!(!text.contains("does not list them as references"), "{text}");
    }
}

/// A struct with a field `hash`, in a crate that names the module `core::hash` in code, in a
/// `macro_rules!` template, in a doc link and in a feature-gated module that also reads the
/// field.
const BUCKET_LIB: &str = "//! Buckets keyed by a [`core::hash::Hash`] value.
use core::hash::{BuildHasher, Hash};

/// One entry.
pub struct Bucket {
    /// The key's hash.
    pub hash: u64,
    /// The key.
    pub key: u32,
}

/// A bucket for `key`, hashed by `builder`.
pub fn bucket<S: BuildHasher>(builder: &S, key: u32) -> Bucket {
    let hash = builder.hash_one(key);
    Bucket { hash, key }
}

/// Whether two buckets have the same hash.
pub fn same(a: &Bucket, b: &Bucket) -> bool {
    a.hash == b.hash
}

/// Hashes anything hashable.
pub fn digest<T: Hash>(value: &T) -> u64 {
    ::core::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), value)
}

/// A default hasher for a type.
#[macro_export]
macro_rules! default_hasher {
    ($h:ty) => {
        ::core::hash::BuildHasherDefault::<$h>::default()
    };
}

#[cfg(feature = \"extra\")]
pub mod extra;
";

const BUCKET_EXTRA: &str = "//! Behind the `extra` feature.
use core::hash::Hasher;

/// The bucket's hash, folded.
pub fn folded(bucket: &crate::Bucket) -> u32 {
    (bucket.hash >> 32) as u32
}

/// Writes the bucket's key.
pub fn write<H: Hasher>(bucket: &crate::Bucket, state: &mut H) {
    state.write_u32(bucket.key);
}
";

#[test]
fn a_field_rename_leaves_path_segments_of_the_same_word_without_noise() {
    let test = "lsp_trial155::a_field_rename_leaves_path_segments_of_the_same_word_without_noise";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"buckets\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nextra = []\n"),
        ("src/lib.rs", BUCKET_LIB),
        ("src/extra.rs", BUCKET_EXTRA),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "src/lib.rs", "line": 7, "symbol": "hash"}));
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 7, "symbol": "hash", "new_name": "hash_value"}));
    // Ground truth: the rename left no `core::hash` path to edit — cargo builds by default; with
    // `extra` on, the only break is the field read in the gated module.
    assert_eq!(cargo_check_errors(dir.path(), &[]), "", "the default build");
    let with_extra = cargo_check_errors(dir.path(), &["--features", "extra"]);
    assert!(with_extra.contains("src/extra.rs:6:") && with_extra.lines().count() == 1, "{with_extra}");
    let check = text.split("taken-name check").next().unwrap_or(&text);
    // The path segments: one line, none of them to "rename by hand" or "check".
    let segments = line_naming(check, "left unrenamed, rightly:");
    assert!(segments.trim_start().starts_with("left unrenamed, rightly: 5 occurrences that are a segment of a path"), "{text}");
    for path_line in ["src/lib.rs:1:", "src/lib.rs:2:", "src/lib.rs:25:", "src/lib.rs:32:", "src/extra.rs:2:"] {
        assert!(!check.lines().any(|line| line.trim_start().starts_with(path_line)), "{path_line} listed:\n{text}");
    }
    // What matters stays: the gated field read, with its gate.
    let gated = line_naming(check, "src/extra.rs:6:");
    assert!(gated.contains("`#[cfg(feature = \"extra\")]`"), "{text}");
}
