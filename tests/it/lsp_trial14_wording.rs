//! Misleading answers from the fresh-user trial 14 on indexmap 2.7.1, against the real tools:
//! a project check after a breaking edit names the cargo targets cargo never compiled (the
//! library they depend on failed) instead of reading as complete; a rename's list of doc-test
//! occurrences left unrenamed holds only those that call the renamed item.

use crate::support;

use runbound::{Caller, Run, RunConfig};
use serde_json::json;

fn checker_run(workspace: &std::path::Path) -> Run {
    Run::builder(workspace).config(RunConfig::default()).language_servers().build().expect("build run")
}

/// A crate whose library, integration test, bench and feature-gated example all compile; the
/// library can be broken by `broken`.
fn crate_with_targets(broken: bool) -> tempfile::TempDir {
    let library = if broken { "pub fn double(x: u32) -> u32 { x * \"2\" }\n" } else { "pub fn double(x: u32) -> u32 { x * 2 }\n" };
    support::workspace_with(&[
        (
            "Cargo.toml",
            "[package]\nname = \"targets\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n\n\
             [[example]]\nname = \"gated\"\nrequired-features = [\"extra\"]\n",
        ),
        ("src/lib.rs", library),
        ("tests/double.rs", "#[test]\nfn doubles() { assert_eq!(targets::double(2), 4); }\n"),
        ("benches/speed.rs", "fn main() { let unused = targets::double(3); }\n"),
        ("examples/plain.rs", "fn main() { println!(\"{}\", targets::double(1)); }\n"),
        ("examples/gated.rs", "fn main() { println!(\"{}\", targets::double(5)); }\n"),
    ])
}

#[test]
fn a_project_check_names_the_cargo_targets_a_failed_library_kept_cargo_from_compiling() {
    if support::require_binary("lsp_trial14_wording::a_project_check_names_the_cargo_targets", "cargo").is_none() {
        return;
    }
    // Sound library: every target compiled (the bench's warning is seen), only the example whose
    // required feature is off is skipped, and said so.
    let sound = crate_with_targets(false);
    let run = checker_run(sound.path());
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("benches/speed.rs:1: warning[unused_variables]"), "the bench was compiled: {text}");
    assert!(
        text.contains("NOT checked: examples/gated.rs (example `gated`): skipped by cargo: its required-features extra are not enabled"),
        "{text}"
    );
    assert!(!text.contains("which failed to compile"), "{text}");
    let structured = result.structured_content.expect("structured");
    assert_eq!(structured["targets_not_checked"].as_array().map(Vec::len), Some(1), "{structured}");
    drop(run);

    // Broken library (trial 14: indexmap after a breaking edit said "6 errors, 1 warning" and
    // nothing of the benches that had E0554 before): the test, bench and examples are named as
    // not compiled, with the library's failure as the reason, in the headline too.
    let broken = crate_with_targets(true);
    let run = checker_run(broken.path());
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let headline = text.lines().next().unwrap_or("");
    assert!(headline.starts_with("project check: 1 error"), "{text}");
    let (_, not_checked) = headline.split_once(" — NOT checked: examples/").expect("the targets are in the headline");
    let reason = "(cargo never compiled them: the library `targets` that they depend on failed to compile; their diagnostics are \
                  unknown, not clean — fix those errors and check again)";
    let (named, _) = not_checked.split_once(reason).unwrap_or_else(|| panic!("{headline}"));
    let mut named: Vec<&str> = named.trim().split(", ").collect();
    named.sort_unstable();
    assert_eq!(named, ["benches/speed.rs", "plain.rs", "tests/double.rs"], "{headline}");
    assert!(headline.ends_with("; examples/gated.rs (required-features not enabled, see below)"), "{headline}");
    for (path, kind, name) in
        [("tests/double.rs", "test", "double"), ("benches/speed.rs", "bench", "speed"), ("examples/plain.rs", "example", "plain")]
    {
        assert!(
            text.contains(&format!(
                "NOT checked: {path} ({kind} `{name}`): not compiled: it depends on the library `targets`, which failed to compile"
            )),
            "{path}: {text}"
        );
    }
    assert!(!text.contains("benches/speed.rs:1: warning"), "the bench was not compiled, so its warning is unknown: {text}");
    let structured = result.structured_content.expect("structured");
    assert_eq!(structured["targets_not_checked"].as_array().map(Vec::len), Some(4), "{structured}");
    assert_eq!(structured["runs"][0]["targets_not_checked"].as_array().map(Vec::len), Some(4), "{structured}");
}
