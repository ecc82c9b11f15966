//! Wrong answers from the fresh-user trial 28 (httparse 1.10.1, pathspec 0.12.1), against the
//! real pyright and rust-analyzer on fixtures of the same shape:
//! - F2: a write giving `RegexPattern.__init__` a required parameter skipped the modules that
//!   construct only the subclass `GitWildMatchPattern` ("they use none of the names whose
//!   definitions this write changed"), whose calls then fail (pyright CLI).
//! - F1: renaming `struct Bytes`, re-exported only inside `pub mod _benchable { … }`, said the
//!   rename replaces `httparse::Bytes` (a path that does not exist); the public path is
//!   `httparse::_benchable::Bytes`.
//!
//! - M4: an error only in the library's unit-test build (`#[cfg(test)]` code, a lint that
//!   `#![cfg_attr(test, deny(warnings))]` makes an error) had the bench and integration tests
//!   called "never compiled: the library has compiler errors"; cargo compiled them.
//!
//! - M6: a hover in code behind `#[cfg(feature = …)]` that is off came back "rust-analyzer
//!   returned null" and nothing said why.
//!
//! - M3: a changed signature whose uses in the aarch64-only `src/simd/neon.rs` broke that build
//!   was answered with the host build's errors alone.
//! - M5: a write whose changed lines all stand behind a `#[cfg]` that is off called the whole
//!   file "not built".
//!
//! - M9: restricted and confined, pyright crashed 2–4 s after every start when the venv's
//!   `.pth` named a directory outside the workspace; every call said "call again".
//! - M10: restricted, code behind a cfg that build.rs sets was said to be off for a feature or
//!   another target OS.
//! - M12: `"*"` on Rust said nothing of build-script warnings or of module files behind cfgs the
//!   build script did not set.
//!
//! Ground truth: the pyright CLI, cargo's JSON messages, and `cargo check` of a crate that depends on the fixture.

use crate::support;

use runbound::{Caller, RunConfig};
use serde_json::json;
use std::path::Path;
use std::process::Command;

use support::edit_and_first_server_check as edit;

/// The diagnostics-on-write block of a write's answer.
fn block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

/// The pyright CLI's error lines for `file` in `dir` (`pyright --outputjson`), as `line:message`.
fn pyright_errors(dir: &Path, file: &str) -> Vec<String> {
    let output = Command::new("pyright").args(["--outputjson", file]).current_dir(dir).output().expect("run pyright");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("pyright --outputjson prints JSON");
    report["generalDiagnostics"]
        .as_array()
        .expect("generalDiagnostics")
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .map(|diagnostic| {
            format!("{}:{}", diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1, diagnostic["message"].as_str().unwrap_or(""))
        })
        .collect()
}

fn pyright_only_run(workspace: &Path) -> runbound::Run {
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    support::lsp_run_allowing_writes_with_config(workspace, config)
}

/// pathspec's shape: a base class in `pat/pattern.py`, a subclass in another module, tests that
/// name only the subclass (and reach the base's module through the package's `__init__.py`).
fn subclass_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pat\"\nversion = \"0.1.0\"\n"),
        ("pat/__init__.py", "from .pattern import RegexPattern\nfrom .patterns.wild import WildPattern\n"),
        (
            "pat/pattern.py",
            "class RegexPattern(object):\n    def __init__(\n        self,\n        pattern: str,\n    ) -> None:\n        self.pattern = pattern\n",
        ),
        ("pat/patterns/__init__.py", "from .wild import WildPattern\n"),
        ("pat/patterns/wild.py", "from ..pattern import RegexPattern\n\n\nclass WildPattern(RegexPattern):\n    pass\n"),
        (
            "tests/test_wild.py",
            "from pat.patterns.wild import WildPattern\n\n\ndef test_wild() -> None:\n    assert WildPattern(\"*.py\").pattern == \"*.py\"\n",
        ),
    ])
}

/// F2: the base class's constructor gets a required parameter: the test module that constructs
/// only the subclass is checked and its new error listed (= the pyright CLI's).
#[test]
fn a_changed_base_class_checks_the_modules_that_use_only_a_subclass() {
    let test = "a_changed_base_class_checks_the_modules_that_use_only_a_subclass";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "pyright").is_none() {
        return;
    }
    let dir = subclass_package();
    assert!(pyright_errors(dir.path(), "tests/test_wild.py").is_empty(), "the fixture type-checks");
    let run = pyright_only_run(dir.path());
    // A comment opens pattern.py in the server (its pre-write state is then known).
    let (text, _) = edit(&run, "pat/pattern.py", "class RegexPattern", "# A pattern.\nclass RegexPattern");
    assert!(text.contains("no new errors in pat/pattern.py (pyright)"), "{text}");
    let (text, server) = edit(&run, "pat/pattern.py", "        pattern: str,\n", "        pattern: str,\n        flags: int,\n");
    let truth = pyright_errors(dir.path(), "tests/test_wild.py");
    assert_eq!(truth.len(), 1, "pyright CLI: {truth:?}");
    assert!(truth[0].starts_with("5:") && truth[0].contains("flags"), "pyright CLI: {truth:?}");
    assert!(!text.contains("tests/test_wild.py was not checked"), "{text}");
    assert!(text.contains("tests/test_wild.py:5:") && text.contains("\"flags\""), "the subclass's broken call is not listed:\n{text}");
    let checked: Vec<&str> = server["files"]
        .as_array()
        .map(|files| files.iter().filter(|file| file["status"] == "checked").filter_map(|file| file["file"].as_str()).collect())
        .unwrap_or_default();
    assert!(checked.contains(&"tests/test_wild.py"), "{text}");
}

/// `cargo check` of a consumer crate whose `src/main.rs` is `main_rs` and that depends on the
/// crate at `library`: (success, output).
fn consumer_checks(library: &Path, main_rs: &str) -> (bool, String) {
    let consumer = tempfile::tempdir().expect("consumer dir");
    let manifest = format!(
        "[package]\nname = \"consumer\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhttp-shape = {{ path = {:?} }}\n",
        library.display().to_string()
    );
    std::fs::write(consumer.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir_all(consumer.path().join("src")).unwrap();
    std::fs::write(consumer.path().join("src/main.rs"), main_rs).unwrap();
    let output = Command::new("cargo")
        .args(["check", "--offline", "--message-format", "short"])
        .current_dir(consumer.path())
        .env("CARGO_TARGET_DIR", consumer.path().join("target"))
        .output()
        .expect("run cargo check");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

/// F1: the public-API note of a rename names the path through the inline `pub mod` that holds
/// the re-export (`http_shape::_benchable::Bytes`), not `http_shape::Bytes`; a re-export in a
/// private inline module gets no note. A consumer crate confirms which path exists.
#[test]
fn rust_rename_of_a_type_re_exported_in_an_inline_pub_mod_names_the_path_through_it() {
    let test = "rust_rename_of_a_type_re_exported_in_an_inline_pub_mod_names_the_path_through_it";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    // httparse 1.10.1's shape (src/lib.rs:31 and 40-45).
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"http-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "mod iter;\n\nuse crate::iter::Bytes;\n\n#[doc(hidden)]\npub mod _benchable {\n    pub use super::iter::Bytes;\n}\n\nmod hidden {\n    #[allow(unused_imports)]\n    pub use super::iter::Bytes;\n}\n\npub fn length(bytes: &[u8]) -> usize {\n    Bytes(bytes.len()).0\n}\n",
        ),
        ("src/iter.rs", "pub struct Bytes(pub usize);\n"),
    ]);
    let uses_benchable = "fn main() {\n    println!(\"{}\", http_shape::_benchable::Bytes(1).0);\n}\n";
    let (built, output) = consumer_checks(dir.path(), uses_benchable);
    assert!(built, "the consumer of `_benchable::Bytes` does not compile before the rename:\n{output}");
    let (built, _) = consumer_checks(dir.path(), "fn main() {\n    println!(\"{}\", http_shape::Bytes(1).0);\n}\n");
    assert!(!built, "`http_shape::Bytes` exists: the fixture is not httparse's shape");
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(120);
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(20);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/iter.rs", "line": 1, "symbol": "Bytes", "new_name": "ByteCursor", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        text.contains("note: public API changed: src/lib.rs:7 re-exports `Bytes`")
            && text.contains("replaces `http_shape::_benchable::Bytes` with `http_shape::_benchable::ByteCursor`")
            && text.contains("`pub use super::iter::ByteCursor as Bytes;`"),
        "no note naming the path through `_benchable`:\n{text}"
    );
    assert!(!text.contains("`http_shape::Bytes`"), "names a path that does not exist:\n{text}");
    assert!(!text.contains("src/lib.rs:12 re-exports"), "a re-export in a private module is not public API:\n{text}");
    let structured = preview.structured_content.clone().expect("structured");
    assert_eq!(structured["public_name_changes"].as_array().map(Vec::len), Some(1), "{structured}");
    let edit_id = structured["edit_id"].as_str().expect("edit_id").to_owned();
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    // Ground truth: the path the note named is gone.
    let (built, output) = consumer_checks(dir.path(), uses_benchable);
    assert!(!built && output.contains("Bytes"), "the consumer of `_benchable::Bytes` still compiles after the rename:\n{output}");
}

/// `cargo check --all-targets --keep-going --message-format=json` of `dir`: the kinds of the
/// targets cargo emitted an artifact for (`lib`, `bench`, `test`: compiled), and whether it failed.
fn cargo_compiled_target_kinds(dir: &Path) -> (Vec<String>, bool) {
    let output = Command::new("cargo")
        .args(["check", "--offline", "--all-targets", "--keep-going", "--message-format=json"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target/ground-truth"))
        .output()
        .expect("run cargo check");
    let mut kinds = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if message["reason"] == "compiler-artifact" {
            kinds.extend(message["target"]["kind"].as_array().into_iter().flatten().filter_map(|kind| kind.as_str()).map(str::to_owned));
        }
    }
    (kinds, !output.status.success())
}

/// M4: an error only the library's unit-test build has — a lint that
/// `#![cfg_attr(test, deny(warnings))]` makes an error, or a broken call in `#[cfg(test)] mod
/// tests` — does not make the answer call the bench and the integration test "never compiled";
/// cargo's JSON shows both compiled (ground truth).
#[test]
fn errors_of_the_library_test_build_only_are_not_said_to_stop_the_other_targets() {
    let test = "errors_of_the_library_test_build_only_are_not_said_to_stop_the_other_targets";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    // httparse 1.10.1's shape: `#![cfg_attr(test, deny(warnings))]`, unit tests in lib.rs, a
    // bench and an integration test.
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"deny-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "#![cfg_attr(test, deny(warnings))]\n\npub fn position(bytes: &[u8]) -> usize {\n    bytes.len()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn position_counts() {\n        assert_eq!(super::position(b\"ab\"), 2);\n    }\n}\n",
        ),
        ("benches/parse.rs", "#[test]\nfn bench_position() {\n    assert_eq!(deny_shape::position(b\"a\"), 1);\n}\n"),
        ("tests/uri.rs", "#[test]\nfn uri_position() {\n    assert_eq!(deny_shape::position(b\"abc\"), 3);\n}\n"),
    ]);
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(120);
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    for (old, new) in
        [("    bytes.len()\n", "    let trial_unused = 1;\n    bytes.len()\n"), ("super::position(b\"ab\")", "super::position_of(b\"ab\")")]
    {
        let (text, _) = edit(&run, "src/lib.rs", old, new);
        let (kinds, failed) = cargo_compiled_target_kinds(dir.path());
        assert!(failed, "cargo check --all-targets does not fail after {new:?}: the fixture is not httparse's shape");
        assert!(kinds.iter().any(|kind| kind == "bench") && kinds.iter().any(|kind| kind == "test"), "cargo: {kinds:?}");
        assert!(!text.contains("cargo never compiled"), "the compiled bench and test are called never compiled after {new:?}:\n{text}");
        assert!(text.contains("the errors in src/lib.rs are in the library's unit-test build only"), "after {new:?}:\n{text}");
        let (text, _) = edit(&run, "src/lib.rs", new, old);
        assert!(!text.contains("cargo never compiled"), "{text}");
    }
    // Control: an error in the library build itself still says the other targets were held back.
    let (text, _) = edit(&run, "src/lib.rs", "    bytes.len()\n", "    bytes.len() + missing_name\n");
    assert!(text.contains("cargo never compiled them: the library `deny-shape`"), "{text}");
}

/// M9: a restricted, confined run on a project whose `.venv` has a `.pth` naming a directory
/// outside the workspace (an editable install of another checkout): pyright answered nothing
/// but "exited … call again: the server is restarted", forever. Now the directory is withheld
/// and said, pyright stays up (two calls seconds apart, no restart), and the venv's own
/// packages still resolve.
#[test]
fn a_restricted_pyright_with_a_venv_pth_naming_an_outside_directory_answers_and_says_it_is_withheld() {
    let test = "a_restricted_pyright_with_a_venv_pth_naming_an_outside_directory_answers_and_says_it_is_withheld";
    let Some(python) = support::require_binary(test, "python3") else { return };
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    if let Err(reason) = runbound::lsp::confinement::landlock_abi_version() {
        support::skip_or_fail(test, &format!("no Landlock on this kernel: {reason}"));
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pathish\"\nversion = \"0.1.0\"\n"),
        ("app/main.py", "from venvonly_rates import vat_rate\nfrom sibling_checkout import helper\n\nprice: float = 100 * (1 + vat_rate(\"fr\"))\nhelped = helper()\n"),
    ]);
    let outside = support::workspace_with(&[("sibling_checkout/__init__.py", "def helper() -> int:\n    return 1\n")]);
    let created =
        Command::new(python).args(["-m", "venv", "--without-pip"]).arg(workspace.path().join(".venv")).status().expect("python3 -m venv");
    assert!(created.success());
    let site_packages = std::fs::read_dir(workspace.path().join(".venv/lib"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path().join("site-packages"))
        .find(|dir| dir.is_dir())
        .expect("site-packages");
    std::fs::create_dir_all(site_packages.join("venvonly_rates")).unwrap();
    std::fs::write(site_packages.join("venvonly_rates/__init__.py"), "def vat_rate(country: str) -> float:\n    return 0.2\n").unwrap();
    let outside_dir = std::fs::canonicalize(outside.path()).unwrap();
    std::fs::write(site_packages.join("sibling.pth"), format!("{}\n", outside_dir.display())).unwrap();
    let run = runbound::Run::builder(workspace.path())
        .workspace_trust(runbound::WorkspaceTrust::Restricted)
        .language_servers()
        .build()
        .expect("build run");
    let definition = json!({"op": "definition", "file": "app/main.py", "line": 4, "symbol": "vat_rate", "server": "pyright"});
    let first = run.call(Caller::Readonly, "lsp", definition.clone());
    let text = first.joined_text();
    assert!(!first.is_error, "{text}");
    assert!(text.contains("venvonly_rates/__init__.py"), "{text}");
    assert!(
        text.contains(&format!(
            "the venv's .pth files name a directory outside the workspace ({}), not read: workspace trust is restricted",
            outside_dir.display()
        )),
        "{text}"
    );
    // pyright exited 2–4 s after each start before: it is still the same process later.
    std::thread::sleep(std::time::Duration::from_secs(6));
    let second = run.call(Caller::Readonly, "lsp", definition);
    let text = second.joined_text();
    assert!(!second.is_error && text.contains("venvonly_rates/__init__.py"), "{text}");
    assert!(!text.contains("restarted"), "{text}");
    let status = run.call(Caller::Readonly, "lsp", json!({"op": "status"}));
    let status = status.structured_content.expect("status");
    fn restart_counts(value: &serde_json::Value, found: &mut Vec<u64>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(count) = map.get("restarts").and_then(serde_json::Value::as_u64) {
                    found.push(count);
                }
                map.values().for_each(|inner| restart_counts(inner, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|inner| restart_counts(inner, found)),
            _ => (),
        }
    }
    let mut restarts = Vec::new();
    restart_counts(&status, &mut restarts);
    assert!(!restarts.is_empty() && restarts.iter().all(|count| *count == 0), "{status}");
}

/// M11: a method called only through a crate macro whose pattern spells the call
/// (`expect!(cursor.advance_one() == b'H' => …)`, as httparse's `next!`/`expect!`): the
/// invocation's occurrence, compiled code that rust-analyzer does not resolve, is named as such —
/// not as code "behind a `#[cfg]` that is off" — and the template's occurrence as a template.
/// Ground truth: `cargo check` compiles the invocation (a typo in it is an error).
#[test]
fn references_through_a_macro_whose_pattern_spells_the_call_name_the_invocation_as_compiled_code() {
    let test = "references_through_a_macro_whose_pattern_spells_the_call_name_the_invocation_as_compiled_code";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let lib = "macro_rules! expect {\n    ($cursor:ident.advance_one() == $pat:pat => $ret:expr) => {\n        match $cursor.advance_one() {\n            Some($pat) => (),\n            _ => return $ret,\n        }\n    };\n}\n\npub struct Cursor {\n    at: usize,\n    data: Vec<u8>,\n}\n\nimpl Cursor {\n    pub fn advance_one(&mut self) -> Option<u8> {\n        let byte = self.data.get(self.at).copied();\n        self.at += 1;\n        byte\n    }\n}\n\npub fn parse(cursor: &mut Cursor) -> Result<(), ()> {\n    expect!(cursor.advance_one() == b'H' => Err(()));\n    Ok(())\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"macro-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", lib),
    ]);
    let check = |dir: &Path| {
        Command::new("cargo")
            .args(["check", "--offline", "--message-format", "short"])
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", dir.join("target/ground-truth"))
            .output()
            .expect("run cargo check")
    };
    assert!(check(dir.path()).status.success(), "the fixture compiles");
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(120);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    let result = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 16, "symbol": "advance_one"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    if text.contains("src/lib.rs:24 — in the arguments of a macro invocation") || text.contains("(in the arguments of a macro invocation")
    {
        assert!(!text.contains("behind a `#[cfg]` that is off"), "the invocation is called cfg-off code:\n{text}");
    } else {
        // rust-analyzer resolved the invocation's tokens itself: then it lists the use.
        assert!(text.contains("24:"), "the use in the invocation is neither listed nor named:\n{text}");
    }
    // Ground truth: the invocation's tokens are compiled (a wrong method name there is an error).
    let broken = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"macro-shape\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", &lib.replace("expect!(cursor.advance_one()", "expect!(cursor.advance_two()")),
    ]);
    assert!(!check(broken.path()).status.success(), "a wrong name in the invocation compiles: the fixture is not httparse's shape");
}

/// trial28 M6 (httparse 1.10.1: a hover in `#[cfg(feature = "std")]`-off code answered "null").
/// rust-analyzer answers nothing in code behind a `#[cfg]` that is off, in a module declared
/// under one (a file outside every module tree), or in a `macro_rules!` template (a method call
/// there: it resolves a plain path in such code by name): the empty answer says which and the next step;
/// code behind a cfg that is on (`#[cfg(unix)]`) gets its hover.
#[test]
fn rust_analyzer_an_empty_hover_in_cfg_off_code_says_why_and_how_to_check_it() {
    let name = "rust_analyzer_an_empty_hover_in_cfg_off_code_says_why_and_how_to_check_it";
    if support::require_binary(name, "rust-analyzer").is_none() || support::require_binary(name, "cargo").is_none() {
        return;
    }
    let lib = "pub fn helper() -> usize {\n    1\n}\n\npub fn active() -> usize {\n    helper()\n}\n\n#[cfg(feature = \"extra\")]\npub fn gated() -> usize {\n    let numbers = vec![helper()];\n    numbers.len() + 1\n}\n\n#[cfg(unix)]\npub fn on_unix() -> usize {\n    helper() + 2\n}\n\nmacro_rules! twice {\n    ($e:expr) => {\n        helper() + $e\n    };\n}\n\npub fn uses_macro() -> usize {\n    twice!(2)\n}\n\n#[cfg(feature = \"extra\")]\nmod extra;\n";
    let extra = "pub fn in_module() -> usize {\n    crate::helper() + 3\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gated\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n"),
        ("src/lib.rs", lib),
        ("src/extra.rs", extra),
    ]);
    // Ground truth: the gated code is real code of the `extra` build.
    let check = Command::new("cargo")
        .args(["check", "--offline", "--features", "extra"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target/ground-truth"))
        .output()
        .expect("run cargo check");
    assert!(check.status.success(), "the fixture compiles with `extra`: {}", String::from_utf8_lossy(&check.stderr));
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(180);
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    let hover_at = |file: &str, line: usize, symbol: &str| {
        let result = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": file, "line": line, "symbol": symbol}));
        assert!(!result.is_error, "{}", result.joined_text());
        result.joined_text()
    };
    let hover = |file: &str, line: usize| hover_at(file, line, "helper");
    let line_of = |needle: &str| lib.lines().position(|line| line.contains(needle)).unwrap() + 1;
    let active = hover("src/lib.rs", line_of("    helper()"));
    assert!(active.contains("fn helper() -> usize"), "the active call has no hover (the server was not ready?):\n{active}");
    let on_unix = hover("src/lib.rs", line_of("helper() + 2"));
    assert!(
        on_unix.contains("fn helper() -> usize") && !on_unix.contains("leaves off"),
        "code behind a cfg that is on was not answered:\n{on_unix}"
    );
    // rust-analyzer resolves a plain path in cfg-off code by name, but infers no types there: a
    // method call has no hover.
    let gated = hover_at("src/lib.rs", line_of("numbers.len() + 1"), "len");
    assert!(gated.contains("no hover information found"), "rust-analyzer answered in cfg-off code (the fixture is wrong):\n{gated}");
    assert!(
        gated.contains(&format!("behind `#[cfg(feature = \"extra\")]` at src/lib.rs:{}", line_of("#[cfg(feature = \"extra\")]")))
            && gated.contains("\"features\": [\"extra\"]"),
        "the empty hover in cfg-off code does not say why and how to check it:\n{gated}"
    );
    let in_module = hover("src/extra.rs", 2);
    assert!(
        in_module.contains("no hover information found")
            && in_module.contains("in a module declared under `#[cfg(feature = \"extra\")]`")
            && in_module.contains("\"features\": [\"extra\"]"),
        "the empty hover in a cfg-off module does not say why:\n{in_module}"
    );
    let template = hover("src/lib.rs", line_of("helper() + $e"));
    assert!(
        template.contains("no hover information found")
            && template.contains("inside the `macro_rules! twice` body")
            && template.contains(&format!("invoked at src/lib.rs:{}", line_of("twice!(2)"))),
        "the empty hover in a macro template does not say why or where it is invoked:\n{template}"
    );
}

/// trial28 M5 (httparse 1.10.1 `src/simd/mod.rs`): a write whose every changed line stands
/// behind a `#[cfg]` that is off called the whole file "not built by rust-analyzer"; the file is
/// built, only those lines are not. The next step names the target that compiles them.
#[test]
fn rust_analyzer_a_write_only_in_cfg_off_lines_names_those_lines_not_the_file_as_unbuilt() {
    let name = "rust_analyzer_a_write_only_in_cfg_off_lines_names_those_lines_not_the_file_as_unbuilt";
    if support::require_binary(name, "rust-analyzer").is_none() || support::require_binary(name, "cargo").is_none() {
        return;
    }
    let lib = "pub fn active() -> u8 {\n    1\n}\n\n#[cfg(target_arch = \"aarch64\")]\npub fn on_arm() -> u8 {\n    2\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"armonly\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("src/lib.rs", lib),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let warm = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    assert!(!warm.is_error, "{}", warm.joined_text());
    // A type error in the aarch64-only function: the host build does not compile it.
    let (text, _) = edit(&run, "src/lib.rs", "    2\n}", "    \"two\"\n}");
    let host_check = Command::new("cargo")
        .args(["check", "--offline", "--message-format", "short"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", dir.path().join("target/ground-truth"))
        .output()
        .expect("run cargo check");
    assert!(host_check.status.success(), "the host build compiles the gated line (the fixture is wrong)");
    // The rest of the file is checked (trial71 F5: errors the write causes in its other lines
    // are new); the written lines are named as what is not.
    assert!(
        text.contains("src/lib.rs: NOT checked: the written code: lines 5–8")
            && text.contains("except the written lines of src/lib.rs that rust-analyzer does not compile"),
        "the written lines are not named as what is unbuilt:\n{text}"
    );
    assert!(!text.contains("not checked: src/lib.rs (not built"), "the whole file is called unbuilt:\n{text}");
    assert!(text.contains("cargo check --target aarch64-unknown-linux-gnu"), "the next step does not name the target:\n{text}");
}

/// trial28 M3 (httparse 1.10.1: `Bytes::advance` given a second parameter; the 3 calls in the
/// aarch64-only `src/simd/neon.rs` broke that build and no answer named them): a write that
/// changes an item's declaration names the module files a known-off `#[cfg]` keeps out of the
/// build that use it — another target's module, a module of a feature that is off by default —
/// with the gate and the next step; a module under a gate that is on is not named.
#[test]
fn rust_analyzer_a_changed_signature_names_its_uses_in_modules_the_build_leaves_out() {
    let name = "rust_analyzer_a_changed_signature_names_its_uses_in_modules_the_build_leaves_out";
    if support::require_binary(name, "rust-analyzer").is_none() || support::require_binary(name, "cargo").is_none() {
        return;
    }
    let other_arch = if std::env::consts::ARCH == "aarch64" { "x86_64" } else { "aarch64" };
    let lib = format!(
        "pub fn helper(n: usize) -> usize {{\n    n\n}}\n\nmod active;\n\n#[cfg(all(\n    target_arch = \"{other_arch}\",\n    not(miri),\n))]\nmod arm;\n\n#[cfg(feature = \"extra\")]\nmod extra;\n\n#[cfg(unix)]\nmod on_unix;\n"
    );
    let user = "pub fn call() -> usize {\n    // helper in a comment\n    crate::helper(1)\n}\n";
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"gatedmods\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n"),
        ("src/lib.rs", &lib),
        ("src/active.rs", user),
        ("src/arm.rs", user),
        ("src/extra.rs", user),
        ("src/on_unix.rs", user),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let warm = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/lib.rs"}));
    assert!(!warm.is_error, "{}", warm.joined_text());
    let (text, _) = edit(
        &run,
        "src/lib.rs",
        "pub fn helper(n: usize) -> usize {",
        "pub fn helper(n: usize, scale: usize) -> usize {\n    let _ = scale;",
    );
    // Ground truth: the feature build breaks in extra.rs too (the default build in active.rs and
    // on_unix.rs only).
    let errors_in = |features: &[&str]| {
        let mut args = vec!["check", "--offline", "--message-format", "short"];
        if !features.is_empty() {
            args.extend(["--features", features[0]]);
        }
        let output = Command::new("cargo")
            .args(&args)
            .current_dir(dir.path())
            .env("CARGO_TARGET_DIR", dir.path().join("target/ground-truth"))
            .output()
            .expect("run cargo check");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let default_build = errors_in(&[]);
    assert!(default_build.contains("src/active.rs:3") && !default_build.contains("src/extra.rs"), "{default_build}");
    assert!(errors_in(&["extra"]).contains("src/extra.rs:3"), "the feature build does not break in extra.rs");
    let dow = block(&text);
    let line_of =
        |file: &str| dow.lines().find(|line| line.starts_with(&format!("{file}: NOT checked: code that uses `helper`"))).map(str::to_owned);
    let arm = line_of("src/arm.rs").unwrap_or_else(|| panic!("the other target's module is not named:\n{text}"));
    assert!(
        arm.contains(&format!("declared under `#[cfg(all(target_arch = \"{other_arch}\", not(miri)))]` (src/lib.rs:12)"))
            && arm.contains("line 3 names `helper`")
            && !arm.contains("line 2 ")
            && arm.contains("cargo check --target"),
        "{arm}"
    );
    let extra = line_of("src/extra.rs").unwrap_or_else(|| panic!("the feature's module is not named:\n{text}"));
    assert!(extra.contains("\"features\": [\"extra\"]") && extra.contains("line 3 names `helper`"), "{extra}");
    assert!(line_of("src/on_unix.rs").is_none() && line_of("src/active.rs").is_none(), "a built module is called unbuilt:\n{text}");
    assert!(dow.contains("src/active.rs:3: error[E0061]"), "the active caller's break is not reported:\n{text}");
}

/// trial28 M10 (httparse 1.10.1, restricted): with build scripts off, the code behind
/// `#[cfg(httparse_simd)]` — a cfg build.rs sets — was left out of `references` with the reason
/// "a `#[cfg]` that is off — a cargo feature not enabled, another target OS": the real reason is
/// that a restricted run does not run build scripts. A gate off whatever build.rs sets (another
/// target) keeps the general reason. (Method calls: rust-analyzer resolves a plain path in
/// cfg-off code by name, but infers no types there.)
#[test]
fn rust_analyzer_restricted_references_name_build_script_cfgs_as_why_code_is_left_out() {
    let name = "rust_analyzer_restricted_references_name_build_script_cfgs_as_why_code_is_left_out";
    if support::require_binary(name, "rust-analyzer").is_none() || support::require_binary(name, "cargo").is_none() {
        return;
    }
    let other_arch = if std::env::consts::ARCH == "aarch64" { "x86_64" } else { "aarch64" };
    let lib = format!(
        "pub struct Cursor;\n\nimpl Cursor {{\n    pub fn advance(&self, n: usize) -> usize {{\n        n\n    }}\n}}\n\npub fn plain() -> usize {{\n    Cursor.advance(1)\n}}\n\n#[cfg(fast_path)]\npub fn fast() -> usize {{\n    Cursor.advance(2)\n}}\n\n#[cfg(all(fast_path, target_arch = \"{other_arch}\"))]\npub fn other_target() -> usize {{\n    Cursor.advance(3)\n}}\n"
    );
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"withbuild\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "build.rs",
            "fn main() {\n    println!(\"cargo:rustc-check-cfg=cfg(fast_path)\");\n    println!(\"cargo:rustc-cfg=fast_path\");\n}\n",
        ),
        ("src/lib.rs", &lib),
    ]);
    // Ground truth: a real build compiles `fast` (a wrong call there fails the build).
    let broken = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"withbuild\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "build.rs",
            "fn main() {\n    println!(\"cargo:rustc-check-cfg=cfg(fast_path)\");\n    println!(\"cargo:rustc-cfg=fast_path\");\n}\n",
        ),
        ("src/lib.rs", &lib.replace("advance(2)", "advance(2, 3)")),
    ]);
    let check = Command::new("cargo")
        .args(["check", "--offline"])
        .current_dir(broken.path())
        .env("CARGO_TARGET_DIR", broken.path().join("target/ground-truth"))
        .output()
        .expect("run cargo check");
    assert!(!check.status.success(), "the build-script cfg is not on in a real build: the fixture is wrong");
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = std::time::Duration::from_secs(180);
    let run = runbound::Run::builder(dir.path())
        .config(config)
        .workspace_trust(runbound::WorkspaceTrust::Restricted)
        .language_servers()
        .build()
        .expect("build run");
    let result = run.call(Caller::Plan, "lsp", json!({"op": "references", "file": "src/lib.rs", "line": 4, "symbol": "advance"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let note =
        text.lines().find(|line| line.starts_with("note: NOT in this answer")).unwrap_or_else(|| panic!("no left-out note:\n{text}"));
    let fast_line = lib.lines().position(|line| line.contains("advance(2)")).unwrap() + 1;
    let other_line = lib.lines().position(|line| line.contains("advance(3)")).unwrap() + 1;
    assert!(
        note.contains(&format!(
            "1 of them — src/lib.rs:{fast_line} — behind a `#[cfg]` naming `fast_path`, which the crate's build.rs sets"
        )) && note.contains("a restricted run (workspace trust) does not"),
        "the build-script cfg is not named as the reason:\n{note}"
    );
    // The other target's gate is named with the check for that target (trial155 M1).
    assert!(
        note.contains(&format!(
            "1 of them — src/lib.rs:{other_line} — behind `#[cfg(all(fast_path, target_arch = \"{other_arch}\"))]` at src/lib.rs:{}",
            other_line - 2
        )) && note.contains("cargo check --target"),
        "the other target's code is not kept apart:\n{note}"
    );
}

/// trial28 M12 (httparse 1.10.1 with `no_default_features`): `"*"` said nothing of the build
/// script's `cargo:warning` ("building for no_std disables httparse SIMD") nor of the SIMD module
/// files the check did not compile (behind cfgs the build script did not set, or another target's
/// `target_arch`). Ground truth: the dep-info cargo writes lists the source files a build
/// compiled.
#[test]
fn cargo_project_check_names_build_script_warnings_and_module_files_it_did_not_compile() {
    let name = "cargo_project_check_names_build_script_warnings_and_module_files_it_did_not_compile";
    if support::require_binary(name, "cargo").is_none() {
        return;
    }
    let other_arch = if std::env::consts::ARCH == "aarch64" { "x86_64" } else { "aarch64" };
    let build = "fn main() {\n    println!(\"cargo:rustc-check-cfg=cfg(fast_path)\");\n    if std::env::var_os(\"CARGO_FEATURE_FAST\").is_some() {\n        println!(\"cargo:rustc-cfg=fast_path\");\n    } else {\n        println!(\"cargo:warning=building without `fast` disables the fast path\");\n    }\n}\n";
    let lib = format!("mod plain;\n\n#[cfg(fast_path)]\nmod fast;\n\n#[cfg(all(\n    target_arch = \"{other_arch}\",\n))]\nmod arm;\n");
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"buildcfg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nfast = []\n"),
        ("build.rs", build),
        ("src/lib.rs", &lib),
        ("src/plain.rs", "pub fn plain() {}\n"),
        ("src/fast.rs", "pub fn fast() {}\n"),
        ("src/arm.rs", "pub fn arm() {}\n"),
    ]);
    // Ground truth: the source files each build compiled, from cargo's dep-info.
    let compiled = |features: &[&str]| -> String {
        let target = dir.path().join(format!("target/ground-truth-{}", features.len()));
        let mut args = vec!["check", "--offline", "--lib"];
        args.extend(features.iter().flat_map(|feature| ["--features", feature]));
        let output =
            Command::new("cargo").args(&args).current_dir(dir.path()).env("CARGO_TARGET_DIR", &target).output().expect("run cargo");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let deps = target.join("debug/deps");
        std::fs::read_dir(&deps)
            .unwrap()
            .flatten()
            .filter(|entry| {
                entry.file_name().to_string_lossy().starts_with("buildcfg-") && entry.path().extension().is_some_and(|ext| ext == "d")
            })
            .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
            .collect()
    };
    let default_build = compiled(&[]);
    assert!(default_build.contains("src/plain.rs") && !default_build.contains("src/fast.rs") && !default_build.contains("src/arm.rs"));
    assert!(compiled(&["fast"]).contains("src/fast.rs"));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let ask = |arguments: serde_json::Value| {
        let result = run.call(Caller::Main, "lsp", arguments);
        assert!(!result.is_error, "{}", result.joined_text());
        result
    };
    let result = ask(json!({"op": "diagnostics", "file": "*"}));
    let text = result.joined_text();
    assert!(text.contains("build script warning: buildcfg@0.1.0: building without `fast` disables the fast path"), "{text}");
    let modules = text.lines().find(|line| line.contains("module files NOT compiled in this check")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        modules.contains(&format!(
            "src/arm.rs (its `mod` at src/lib.rs:9 is under `#[cfg(all(target_arch = \"{other_arch}\"))]`: another target)"
        )) && modules.contains("src/fast.rs (its `mod` at src/lib.rs:4 is under `#[cfg(fast_path)]`: a cfg the build script did not set)")
            && !modules.contains("plain.rs")
            && modules.contains("cargo check --target"),
        "{modules}"
    );
    let structured = result.structured_content.clone().unwrap();
    let runs = structured["runs"].as_array().unwrap();
    assert_eq!(runs[0]["modules_not_compiled"].as_array().map(Vec::len), Some(2), "{structured}");
    // With the feature, the build script sets the cfg: only the other target's module is left.
    let with_fast = ask(json!({"op": "diagnostics", "file": "*", "features": ["fast"]})).joined_text();
    let modules =
        with_fast.lines().find(|line| line.contains("module files NOT compiled in this check")).unwrap_or_else(|| panic!("{with_fast}"));
    assert!(modules.contains("src/arm.rs") && !modules.contains("src/fast.rs"), "{modules}");
    assert!(!with_fast.contains("build script warning"), "{with_fast}");
}
