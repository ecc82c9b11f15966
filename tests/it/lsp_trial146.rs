//! Wrong answers from the fresh-user trial 146 (smallvec 1.13.2 with a downstream path crate),
//! against rust-analyzer and cargo, on fixtures of the same shape:
//! - F1: `references` of the `#[macro_export] macro_rules! smallvec`, asked at its definition,
//!   left out downstream calls of the macro (rust-analyzer's own answer in the downstream root
//!   misses some: a macro named like its crate, a call inside another macro's arguments) and
//!   named none of them, though the downstream root's grep cross-check had found them; asked
//!   from a downstream use, the same lines were named.
//! - Minor: the "other whole-word occurrences … are not references" count came once per root,
//!   with different numbers and no root named.
//! - M1: a definition behind a cfg the library's configuration leaves off and the downstream
//!   crate turns on (`#[cfg(feature = "union")] fn from_inline`) was listed through the downstream
//!   root's server, and then named "NOT in this answer" by the library root's cross-check
//!   (workspace symbols), or counted among "9 whole-word occurrences … not in this answer" beside
//!   the 8 listed (references).
//!
//! Ground truth: the macro's calls in the downstream crate are the lines holding `minivec![`
//! (cargo checks them all); the cfg-on copy's uses are what cargo compiles with the feature on.

use crate::support;

use serde_json::json;

/// The library: `minivec!`, named like its crate (`use minivec::{minivec, …}` imports both),
/// used in its own tests, once inside `matches!`.
const MINIVEC: &str = "//! A tiny vector and its `minivec!` macro.

/// Builds a `MiniVec` from its elements.
#[macro_export]
macro_rules! minivec {
    (@one $x:expr) => (1usize);
    ($($x:expr),*$(,)*) => ({
        let count = 0usize $(+ $crate::minivec!(@one $x))*;
        let mut vec = $crate::MiniVec::with_capacity(count);
        $(vec.push($x);)*
        vec
    });
}

/// A vector.
pub struct MiniVec<T>(pub Vec<T>);

impl<T> MiniVec<T> {
    /// An empty vector with room for `n` items.
    pub fn with_capacity(n: usize) -> Self {
        MiniVec(Vec::with_capacity(n))
    }

    /// Appends `x`.
    pub fn push(&mut self, x: T) {
        self.0.push(x);
    }
}

#[cfg(test)]
mod tests {
    use crate::minivec;

    #[test]
    fn builds() {
        let v = minivec![1, 2, 3];
        assert_eq!(v.0, vec![1, 2, 3]);
        assert!(matches!(minivec![1u8].0.len(), 1));
    }
}
";

/// The downstream crate's two files that call the macro (one call inside `matches!`).
const DOWNSTREAM_LIB: &str = "//! Uses of `minivec!` from a downstream crate.
pub mod buf;

use minivec::{minivec, MiniVec};

/// A literal built with the `minivec!` macro.
pub fn primes() -> MiniVec<u32> {
    minivec![2, 3, 5, 7, 11]
}

/// Whether a one-item vector has one item.
pub fn one() -> bool {
    matches!(minivec![1u8].0.len(), 1)
}
";

const DOWNSTREAM_BUF: &str = "//! A byte buffer.
use minivec::{minivec, MiniVec};

/// Bytes.
pub struct ByteBuf {
    /// The bytes.
    pub bytes: MiniVec<u8>,
}

impl ByteBuf {
    /// A buffer holding a header.
    pub fn header() -> Self {
        let bytes: MiniVec<u8> = minivec![0xAB, 0xCD];
        ByteBuf { bytes }
    }
}
";

const DOWNSTREAM_TEST: &str = "use minivec::{minivec, MiniVec};

#[test]
fn builds() {
    let v: MiniVec<u32> = minivec![1, 2, 3, 4];
    assert_eq!(v.0.len(), 4);
    assert_eq!(downstream::primes().0.len(), minivec![3, 1, 3, 2, 1].0.len());
}
";

/// The 1-based lines of `text` holding `needle`.
fn lines_holding(text: &str, needle: &str) -> Vec<usize> {
    text.lines().enumerate().filter(|(_, line)| line.contains(needle)).map(|(index, _)| index + 1).collect()
}

/// The 1-based lines a `references` answer lists under `file` (its `file (N):` heading and the
/// `  line: text` rows below it).
fn listed_lines(answer: &str, file: &str) -> Vec<usize> {
    let heading = format!("{file} (");
    let mut rows = answer.lines().skip_while(|line| !line.starts_with(&heading)).skip(1);
    let mut listed = Vec::new();
    while let Some(row) = rows.next().filter(|row| row.starts_with("  ")) {
        if let Some(number) = row.trim_start().split(':').next().and_then(|number| number.parse().ok()) {
            listed.push(number);
        }
    }
    listed
}

/// Whether a note of `answer` names `file:line` (not a longer line number).
fn named_in_a_note(answer: &str, file: &str, line: usize) -> bool {
    let place = format!("{file}:{line}");
    answer
        .lines()
        .filter(|row| row.starts_with("note"))
        .any(|note| note.match_indices(&place).any(|(at, _)| !note[at + place.len()..].starts_with(|c: char| c.is_ascii_digit())))
}

/// The suite's roomy run configuration, with rust-analyzer priming its caches on one thread.
/// rust-analyzer's references of a macro named like its crate depend on the order its cache
/// priming computed the crates in (several threads by default): in the trial each session left
/// out other downstream calls (27, 24, 23 references). On one thread the order is fixed, and so
/// is the answer: after the warm-up below it leaves out `buf.rs`'s call and the test target's
/// two in every session (3 of 3 without the fix) — the partial answer this test needs.
fn config_priming_on_one_thread() -> runbound::RunConfig {
    let mut config = support::config_with_room();
    let mut server =
        runbound::lsp::builtin_servers().into_iter().find(|server| server.id == "rust-analyzer").expect("built-in rust-analyzer");
    server.initialization_options["cachePriming"] = json!({"numThreads": 1});
    server.settings["rust-analyzer"]["cachePriming"] = json!({"numThreads": 1});
    config.lsp.servers.push(server);
    config
}

#[test]
fn references_of_an_exported_macro_at_its_definition_list_or_name_every_downstream_call() {
    let test = "lsp_trial146::references_of_an_exported_macro_at_its_definition_list_or_name_every_downstream_call";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("minivec/Cargo.toml", "[package]\nname = \"minivec\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("minivec/src/lib.rs", MINIVEC),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nminivec = { path = \"../minivec\" }\n",
        ),
        ("downstream/src/lib.rs", DOWNSTREAM_LIB),
        ("downstream/src/buf.rs", DOWNSTREAM_BUF),
        ("downstream/tests/it.rs", DOWNSTREAM_TEST),
    ]);
    let run = runbound::Run::builder(dir.path()).config(config_priming_on_one_thread()).language_servers().build().expect("build run");
    // Both roots' servers warm, as in the trial.
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "downstream/tests/it.rs", "line": 4, "symbol": "builds"}));
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "minivec/src/lib.rs", "line": 5, "symbol": "minivec"}));
    // Ground truth: every call of the macro in the downstream crate.
    let calls =
        [("downstream/src/lib.rs", DOWNSTREAM_LIB), ("downstream/src/buf.rs", DOWNSTREAM_BUF), ("downstream/tests/it.rs", DOWNSTREAM_TEST)];
    let every_call_listed_or_named = |text: &str| {
        let mut counted = 0;
        for (file, source) in calls {
            let listed = listed_lines(text, file);
            for line in lines_holding(source, "minivec![") {
                counted += 1;
                assert!(
                    listed.contains(&line) || named_in_a_note(text, file, line),
                    "{file}:{line} calls the macro and is neither listed nor named:\n{text}"
                );
            }
        }
        assert_eq!(counted, 5);
        // Each root's count of the occurrences that are no references says its root.
        assert!(!text.contains("the other whole-word occurrences of `minivec` are not references"), "a count without its root:\n{text}");
        assert!(text.contains("the other whole-word occurrences of `minivec` under downstream are not references"), "{text}");
    };
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "minivec/src/lib.rs", "line": 5, "symbol": "minivec"}));
    every_call_listed_or_named(&text);
    // Asked from a downstream call, the same.
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "downstream/src/buf.rs", "line": 13, "symbol": "minivec"}));
    every_call_listed_or_named(&text);
    // The calls compile: they are the macro's, as cargo sees them.
    let checked = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--all-targets"], &[]);
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
}

/// The library: two copies of `Data::from_inline`, one per layout; its own configuration has
/// `union` off.
const TINYVEC: &str = "//! Storage with two layouts.

/// The storage.
pub struct Data(pub Vec<u8>);

#[cfg(feature = \"union\")]
impl Data {
    fn from_inline(bytes: &[u8]) -> Data {
        Data(bytes.to_vec())
    }
}

#[cfg(not(feature = \"union\"))]
impl Data {
    fn from_inline(bytes: &[u8]) -> Data {
        Data(bytes.iter().copied().collect())
    }
}

/// Builds a storage holding `bytes`.
pub fn build(bytes: &[u8]) -> Data {
    Data::from_inline(bytes)
}

/// An empty storage.
pub fn empty() -> Data {
    Data::from_inline(&[])
}
";

#[test]
fn a_definition_only_the_dependent_root_compiles_is_not_said_missing_beside_its_listed_uses() {
    let test = "lsp_trial146::a_definition_only_the_dependent_root_compiles_is_not_said_missing_beside_its_listed_uses";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        (
            "tinyvec/Cargo.toml",
            "[package]\nname = \"tinyvec\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nunion = []\n",
        ),
        ("tinyvec/src/lib.rs", TINYVEC),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\ntinyvec = { path = \"../tinyvec\", features = [\"union\"] }\n",
        ),
        ("downstream/src/lib.rs", "//! Uses the union layout.\n\n/// Two bytes.\npub fn two() -> tinyvec::Data {\n    tinyvec::build(&[1, 2])\n}\n"),
    ]);
    let run = runbound::Run::builder(dir.path()).config(support::config_with_room()).language_servers().build().expect("build run");
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "downstream/src/lib.rs", "line": 5, "symbol": "build"}));
    let union_copy = lines_holding(TINYVEC, "fn from_inline")[0];
    assert_eq!(union_copy, 8);
    let text = support::call_ok(
        &run,
        "lsp",
        json!({"op": "references", "file": "tinyvec/src/lib.rs", "line": union_copy, "symbol": "from_inline"}),
    );
    // The union copy, listed through downstream's server, and its two calls; of the 4 whole-word
    // occurrences only the other copy (line 15) is not in the answer.
    assert!(text.contains("3 references in 1 file:"), "{text}");
    assert_eq!(listed_lines(&text, "tinyvec/src/lib.rs"), vec![8, 22, 27], "{text}");
    assert!(text.contains("note: 1 whole-word occurrence(s) of `from_inline` are not in this answer"), "{text}");
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "from_inline"}));
    assert!(text.contains("tinyvec/src/lib.rs:8: fn from_inline") && text.contains("tinyvec/src/lib.rs:15: fn from_inline"), "{text}");
    assert!(!named_in_a_note(&text, "tinyvec/src/lib.rs", 8), "a listed definition said missing:\n{text}");
    // Ground truth: downstream builds the library with `union` on, and cargo checks that copy there.
    let checked = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline"], &[]);
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
}
