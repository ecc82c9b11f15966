//! Trial 163 F1 (typed-path 0.13.0), against the real rust-analyzer and cargo, on a fixture of
//! the same shape: renaming `WindowsPrefix` renamed the `use crate::windows::WindowsPrefix;` and
//! the return type inside a `#[cfg(windows)]` test, but not the 6 `WindowsPrefix::…` inside
//! `assert_eq!` there — listed "if they name this symbol", while the renamed `use` 19 lines above
//! shows they do: the Windows build broke (E0433). A bare occurrence behind a cfg that is off, in
//! the block of a `use` the rename renamed, resolves through it: renamed too.
//!
//! Ground truth: `cargo check --tests` with the cfg turned on (`--cfg legacy`), by hand.

use crate::support;

use serde_json::json;

#[test]
fn uses_behind_an_off_cfg_that_resolve_through_a_renamed_use_are_renamed() {
    let test = "lsp_trial163::uses_behind_an_off_cfg_that_resolve_through_a_renamed_use_are_renamed";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"prefixes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lints.rust]\nunexpected_cfgs = \"allow\"\n"),
        (
            "src/lib.rs",
            "pub mod windows {\n    #[derive(Debug, PartialEq)]\n    pub enum WindowsPrefix {\n        Disk(u8),\n    }\n\n    pub fn prefix() -> WindowsPrefix {\n        WindowsPrefix::Disk(b'C')\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    #[cfg(legacy)]\n    #[test]\n    fn keeps_prefix() {\n        use crate::windows::WindowsPrefix;\n\n        fn get(prefix: WindowsPrefix) -> WindowsPrefix {\n            prefix\n        }\n        assert_eq!(get(crate::windows::prefix()), WindowsPrefix::Disk(b'C'));\n        let other = |WindowsPrefix: u8| WindowsPrefix;\n        assert_eq!(other(1), 1);\n    }\n}\n\n#[cfg(legacy)]\npub fn outside() -> u8 {\n    // Another block: no `use` of the renamed name here.\n    let WindowsPrefix = 2;\n    WindowsPrefix\n}\n",
        ),
    ]);
    let check_with_cfg = |dir: &std::path::Path| {
        let out =
            support::cargo_by_hand(dir, &["check", "--tests", "--offline", "--message-format=short"], &[("RUSTFLAGS", "--cfg legacy")]);
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (ok, stderr) = check_with_cfg(dir.path());
    assert!(ok, "the fixture builds with the cfg on:\n{stderr}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/lib.rs", "line": 3, "symbol": "WindowsPrefix", "new_name": "WinPrefix"}));
    assert!(text.starts_with("Renamed `WindowsPrefix` to `WinPrefix`"), "{text}");
    assert!(
        text.contains("runbound renamed 3 occurrences behind a `#[cfg]` that is off (rust-analyzer does not analyze that code) that resolve through a `use` this rename renamed in the same block (src/lib.rs:17)"),
        "{text}"
    );
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(lib.contains("WinPrefix::Disk(b'C'));\n"), "{lib}");
    assert!(lib.contains("fn get(prefix: WinPrefix) -> WinPrefix {"), "{lib}");
    assert!(lib.contains("let other = |WindowsPrefix: u8| WindowsPrefix;"), "a binding of the name is another symbol:\n{lib}");
    assert!(lib.contains("let WindowsPrefix = 2;\n    WindowsPrefix\n"), "another block's local stays:\n{lib}");
    let (ok, stderr) = check_with_cfg(dir.path());
    assert!(ok, "the build with the cfg on compiles after the rename:\n{stderr}\n{text}");
}

/// Trial163 M6: rust-analyzer refuses to rename a `use … as alias` ("Renaming aliases is
/// currently unsupported") with no way forward; the error now names the alias's lines in the file.
#[test]
fn a_refused_alias_rename_names_the_lines_to_edit_by_hand() {
    let test = "lsp_trial163::a_refused_alias_rename_names_the_lines_to_edit_by_hand";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"aliases\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", "use std::collections::HashMap as Map;\n\npub fn make() -> Map<u8, u8> {\n    Map::new()\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result =
        run.call(runbound::Caller::Main, "lsp_rename", json!({"file": "src/lib.rs", "line": 1, "symbol": "Map", "new_name": "Table"}));
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(text.contains("Renaming aliases is currently unsupported"), "{text}");
    assert!(text.contains("its whole-word occurrences in src/lib.rs are on lines 1, 3, 4"), "{text}");
}
