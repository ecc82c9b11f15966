//! Wrong answers from the fresh-user trial 23 (walkdir 2.5, scopeguard 1.2), against the real
//! rust-analyzer: workspace symbols silently left out the definitions behind an inactive
//! `#[cfg]` (F2), and `references` of the function `scopeguard::guard` listed uses of locals and
//! parameters also named `guard` (F4: rust-analyzer's own answer, which its own `definition`
//! at those uses contradicts).

use crate::support;

use runbound::Caller;
use serde_json::json;

/// The 1-based lines of `file` a references answer's text lists (`  554: let value = …`) under
/// the `file (N):` heading.
fn listed_lines(text: &str, file: &str) -> Vec<u32> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            inside = line.starts_with(&format!("{file} ("));
            continue;
        }
        if inside {
            if let Some(number) = line.trim_start().split(':').next().and_then(|number| number.parse().ok()) {
                lines.push(number);
            }
        }
    }
    lines
}

/// The note naming definitions the answer does not hold, or "" when there is none.
fn not_listed_note(text: &str) -> &str {
    text.lines().find(|line| line.starts_with("note: NOT in this answer:")).unwrap_or("")
}

#[test]
fn rust_analyzer_workspace_symbols_name_the_definitions_behind_an_inactive_cfg() {
    let test = "rust_analyzer_workspace_symbols_name_the_definitions_behind_an_inactive_cfg";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"devices\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nx = []\n"),
        (
            "src/lib.rs",
            "#[cfg(unix)]\npub fn device_num() -> u64 {\n    1\n}\n\n#[cfg(windows)]\npub fn device_num() -> u64 {\n    2\n}\n\n#[cfg(feature = \"x\")]\npub struct DeviceExtra {\n    pub id: u64,\n}\n\nmacro_rules! make_device {\n    () => {\n        pub fn device_made() -> u64 {\n            3\n        }\n    };\n}\n\npub fn device_count() -> u64 {\n    device_num()\n}\n\npub fn unrelated() {}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "device"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // What rust-analyzer indexes on this (unix) target is listed, and not named again.
    assert!(text.contains("src/lib.rs:2: pub fn device_num"), "the active device_num is not listed:\n{text}");
    assert!(text.contains("src/lib.rs:24: pub fn device_count"), "device_count is not listed:\n{text}");
    let note = not_listed_note(&text);
    assert!(note.contains("3 definition(s) whose name matches \"device\""), "the cfg-off definitions are not counted:\n{text}");
    assert!(
        note.contains("src/lib.rs:7 fn device_num — under `#[cfg(windows)]` (line 6)"),
        "the #[cfg(windows)] fn is not named with its cfg:\n{text}"
    );
    assert!(
        note.contains("src/lib.rs:12 struct DeviceExtra — under `#[cfg(feature = \"x\")]` (line 11)"),
        "the struct of the feature left off is not named with its cfg:\n{text}"
    );
    assert!(
        note.contains("src/lib.rs:18 fn device_made — inside the `macro_rules! make_device` body (line 16)"),
        "the macro template is not named as one:\n{text}"
    );
    assert!(!note.contains("src/lib.rs:2 ") && !note.contains("device_count"), "an indexed definition is named as missing:\n{text}");
    // A query only indexed definitions match says nothing more.
    let result = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "device_count"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/lib.rs:24: pub fn device_count"), "{text}");
    assert!(not_listed_note(&text).is_empty(), "a definition is named as missing though every match is listed:\n{text}");
}

#[test]
fn rust_analyzer_workspace_symbols_on_walkdir_name_its_windows_definitions() {
    let test = "rust_analyzer_workspace_symbols_on_walkdir_name_its_windows_definitions";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let Some(workspace) = support::corpus::registry_crate("walkdir-2.5.1") else { return };
    // Ground truth by text: every `fn device_num` line of walkdir's sources (3 in src/util.rs:
    // unix, windows and the other targets; only the unix one is compiled on Linux).
    let util = std::fs::read_to_string(workspace.path().join("src/util.rs")).expect("walkdir's src/util.rs");
    let by_grep: Vec<usize> =
        util.lines().enumerate().filter(|(_, line)| line.contains("fn device_num")).map(|(index, _)| index + 1).collect();
    assert_eq!(by_grep.len(), 3, "walkdir 2.5.1's src/util.rs changed: {by_grep:?}");
    let run = support::lsp_run_allowing_writes_with_room(workspace.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "symbols", "query": "device_num"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let listed: Vec<usize> = by_grep.iter().copied().filter(|line| text.contains(&format!("src/util.rs:{line}: "))).collect();
    let note = not_listed_note(&text);
    let named: Vec<usize> = by_grep.iter().copied().filter(|line| note.contains(&format!("src/util.rs:{line} fn device_num"))).collect();
    assert_eq!(listed.len(), 1, "rust-analyzer should list the unix device_num only:\n{text}");
    assert_eq!(listed.len() + named.len(), by_grep.len(), "listed {listed:?} and named {named:?} do not cover grep's {by_grep:?}:\n{text}");
    assert!(note.contains("under `#[cfg(windows)]`"), "the windows definition's cfg is not said:\n{text}");
}

#[test]
fn rust_analyzer_references_of_a_function_never_list_a_same_named_local_or_parameter() {
    let test = "rust_analyzer_references_of_a_function_never_list_a_same_named_local_or_parameter";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"guards\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub struct Guard<T> {\n    pub value: T,\n}\n\npub fn guard<T>(value: T) -> Guard<T> {\n    Guard { value }\n}\n\npub fn into_inner<T>(guard: Guard<T>) -> T {\n    let guard = std::mem::ManuallyDrop::new(guard);\n    unsafe { std::ptr::read(&guard.value) }\n}\n\npub fn twice() -> u8 {\n    let guard = guard(1u8);\n    into_inner(guard)\n}\n",
        ),
        ("examples/use_it.rs", "use guards::guard;\n\nfn main() {\n    let guard = guard(2u8);\n    let _ = guards::into_inner(guard);\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // Asked from the example, so src/lib.rs is read by the server from disk.
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "examples/use_it.rs", "line": 1, "symbol": "guard"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // A listed use the cross-check could not ask (its budget ran out, or the server gave no
    // `definition` answer in time: a cold rust-analyzer on a loaded machine) stays listed and is
    // named in a "not cross-checked" note; anything else listed must be the function's.
    let not_cross_checked: String = text.lines().filter(|line| line.starts_with("note: not cross-checked:")).collect();
    // The function's own uses are listed; a line listed beyond them is said to be unchecked.
    let function_uses_then_unsaid = |file: &str, expected: &[u32]| -> Vec<u32> {
        let listed = listed_lines(&text, file);
        let unsaid = listed.iter().copied().filter(|line| !not_cross_checked.contains(&format!("{file}:{line}")));
        expected.iter().copied().filter(|line| listed.contains(line)).chain(unsaid.filter(|line| !expected.contains(line))).collect()
    };
    assert_eq!(
        function_uses_then_unsaid("src/lib.rs", &[5, 15]),
        vec![5, 15],
        "the references in src/lib.rs are not the function's:\n{text}"
    );
    assert_eq!(
        function_uses_then_unsaid("examples/use_it.rs", &[1, 4]),
        vec![1, 4],
        "the references in the example are not the function's:\n{text}"
    );
    if !not_cross_checked.is_empty() {
        eprintln!("{test}: the cross-check did not finish here (said in the answer), so the drop was not exercised:\n{not_cross_checked}");
        return;
    }
    // rust-analyzer 1.95 lists some of the locals' uses here (which ones varies from run to run:
    // src/lib.rs 10, 11 and 16, examples/use_it.rs 5); each one left out is named with the
    // binding its definition gives.
    let locals_with_bindings = [
        "src/lib.rs:10 (bound at src/lib.rs:9)",
        "src/lib.rs:11 (bound at src/lib.rs:10)",
        "src/lib.rs:16 (bound at src/lib.rs:15)",
        "examples/use_it.rs:5 (bound at examples/use_it.rs:4)",
    ];
    if let Some(note) = text.lines().find(|line| line.starts_with("note: left out:")) {
        let named = note.rsplit("not the queried `guard`: ").next().unwrap_or_default();
        for entry in named.split(", ") {
            assert!(
                locals_with_bindings.contains(&entry),
                "the left-out use `{entry}` is not a local's use named with its binding:\n{text}"
            );
        }
    }
}

#[test]
fn rust_analyzer_references_of_scopeguard_guard_leave_out_the_locals_it_lists() {
    let test = "rust_analyzer_references_of_scopeguard_guard_leave_out_the_locals_it_lists";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let Some(workspace) = support::corpus::registry_crate("scopeguard-1.2.0") else { return };
    // Ground truth by text: the lines of src/lib.rs outside comments that call `guard(` or
    // declare `fn guard` (the `$crate::guard(` of the `defer!` template aside).
    let source = std::fs::read_to_string(workspace.path().join("src/lib.rs")).expect("scopeguard's src/lib.rs");
    let by_grep: Vec<u32> = source
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//") && !line.contains("$crate::guard"))
        .filter(|(_, line)| {
            line.contains("fn guard<")
                || line
                    .match_indices("guard(")
                    .any(|(at, _)| at == 0 || !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':' || c == '.'))
        })
        .map(|(index, _)| index as u32 + 1)
        .collect();
    assert_eq!(by_grep, vec![375, 554, 556, 568, 570, 589, 590], "scopeguard 1.2.0's src/lib.rs changed");
    let run = support::lsp_run_allowing_writes_with_room(workspace.path());
    // rust-analyzer 1.95, asked from the example (src/lib.rs read from disk), lists 6 uses of
    // the parameter and locals named `guard` too (360, 362, 366, 559, 580, 591).
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "examples/readme.rs", "line": 4, "symbol": "guard"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert_eq!(listed_lines(&text, "src/lib.rs"), by_grep, "the references listed in src/lib.rs are not the function's:\n{text}");
    if let Some(note) = text.lines().find(|line| line.starts_with("note: left out:")) {
        for line in [360, 362, 366, 559, 580, 591] {
            assert!(note.contains(&format!("src/lib.rs:{line} (bound at")), "the left-out use at line {line} is not named:\n{text}");
        }
        assert!(note.contains("src/lib.rs:360 (bound at src/lib.rs:357)"), "the parameter binding is not named:\n{text}");
    }
}

#[test]
fn rust_analyzer_references_include_code_under_cfg_not_miri_which_cargo_compiles() {
    // trial26 (bitflags 2.11.1): rust-analyzer enables `miri` by default, so `#[cfg(not(miri))]`
    // test code was inactive to it: references of `to_writer` missed src/tests/parser.rs:15,
    // which cargo compiles and a rename then broke (E0423). runbound sets `cargo.cfgs` to what
    // cargo builds with.
    let test = "rust_analyzer_references_include_code_under_cfg_not_miri_which_cargo_compiles";
    if support::require_binary(test, "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"writer\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub fn to_writer(value: u32) -> String {\n    value.to_string()\n}\n\npub fn plain() -> String {\n    to_writer(1)\n}\n\n#[cfg(not(miri))]\nmod slow;\n",
        ),
        ("src/slow.rs", "pub fn slow_path() -> String {\n    crate::to_writer(2)\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let mut text = String::new();
    // rust-analyzer may answer before it has indexed the crate: ask until both uses or 5 tries.
    for _ in 0..5 {
        let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 1, "symbol": "to_writer"}));
        text = result.joined_text();
        assert!(!result.is_error, "{text}");
        if listed_lines(&text, "src/lib.rs").contains(&6) && listed_lines(&text, "src/slow.rs").contains(&2) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    let lines = listed_lines(&text, "src/lib.rs");
    assert!(lines.contains(&6), "the plain use is not listed:\n{text}");
    assert!(
        listed_lines(&text, "src/slow.rs").contains(&2),
        "the use in a module under #[cfg(not(miri))], which cargo compiles, is not listed:\n{text}"
    );
}
