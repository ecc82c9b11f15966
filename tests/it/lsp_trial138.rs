//! Wrong answer from the fresh-user trial 138 (camino 1.1.9 with a downstream crate), against
//! rust-analyzer and cargo, on a fixture of the same shape:
//! - F1: `incoming_calls` at the library's `Utf8Path::join` read "2 callers, 2 call sites" with no
//!   note, while the downstream crate calls it behind `#[cfg(feature = "serde")]` (the library's
//!   own callers behind an off cfg were named; the downstream root's were not).
//!
//! Ground truth: `cargo check --features extra` in the downstream crate compiles the call.

use crate::support;

use serde_json::json;

#[test]
fn incoming_calls_from_the_library_name_the_downstream_calls_behind_an_off_cfg() {
    let test = "lsp_trial138::incoming_calls_from_the_library_name_the_downstream_calls_behind_an_off_cfg";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pathlib/Cargo.toml", "[package]\nname = \"pathlib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        (
            "pathlib/src/lib.rs",
            "pub struct Path(pub String);\n\nimpl Path {\n    pub fn join(&self, part: &str) -> Path {\n        Path(format!(\"{}/{part}\", self.0))\n    }\n}\n",
        ),
        (
            "downstream/Cargo.toml",
            "[package]\nname = \"downstream\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[features]\nextra = []\n\n[dependencies]\npathlib = { path = \"../pathlib\" }\n",
        ),
        (
            "downstream/src/lib.rs",
            "use pathlib::Path;\n\npub fn full(p: &Path) -> Path {\n    p.join(\"a\")\n}\n\n#[cfg(feature = \"extra\")]\npub fn marker(p: &Path) -> Path {\n    p.join(\"extra\")\n}\n",
        ),
    ]);
    // Ground truth: the cfg-gated function compiles with the feature, and calls `join`.
    let checked = support::cargo_by_hand(&dir.path().join("downstream"), &["check", "--offline", "--features", "extra"], &[]);
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": "pathlib/src/lib.rs", "line": 4, "symbol": "join"}));
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "pathlib/src/lib.rs", "line": 4, "symbol": "join"}));
    assert!(text.contains("1 caller, 1 call site"), "{text}");
    assert!(
        text.contains("in code where rust-analyzer gives no definition, so calls there are not listed")
            && text.contains("downstream/src/lib.rs:9"),
        "the downstream call behind the off cfg is not named:\n{text}"
    );
}
