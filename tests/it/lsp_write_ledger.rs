//! The write's new/resolved ledger (issue 11 §2) against real servers and their CLIs
//! (trial 27a F1, F5; trial 27b M3, M6, M7):
//! - Rust (rust-analyzer + cargo check): a breaking edit's warnings are its own, not "reported
//!   now that this write resolved errors"; one rustc error with two primary spans counts once;
//!   a write that adds `unused variable` warnings says so;
//! - Go (gopls): a vet finding `go test` refuses to build on is said as such, not "no new errors";
//! - Python (pyright): a fixing edit does not "introduce" errors its broken state was hiding;
//! - TypeScript: a multi-file rename's accept reports no "resolved" errors from a half-synced state.
//!
//! Ground truth: `cargo check --message-format=short`, `go vet`, `pyright`, `tsc --noEmit`.

use crate::support;

use runbound::Caller;
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// `cargo check --all-targets --message-format=short` in `dir` (its own target directory, so
/// rust-analyzer's is not locked): the error and warning lines, and rustc's error count.
fn cargo_check_short(dir: &Path) -> (Vec<String>, Vec<String>) {
    let target = dir.join("target-ground-truth");
    let output = Command::new("cargo")
        .args(["check", "--all-targets", "--message-format=short", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(dir)
        .output()
        .expect("run cargo check");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors = stderr.lines().filter(|line| line.contains(": error")).map(str::to_owned).collect();
    let warnings = stderr.lines().filter(|line| line.contains(": warning")).map(str::to_owned).collect();
    (errors, warnings)
}

/// csv-core's shape: a `Terminator` enum whose variants `writer.rs` matches through a glob import,
/// and a target with an error of its own (csv-core's benches): cargo skips it while the library
/// does not build, so its error vanishes then without being resolved.
fn terminator_crate() -> tempfile::TempDir {
    support::workspace_with(&[
        ("examples/broken.rs", "fn main() {\n    let count: u32 = \"three\";\n    println!(\"{}\", term::moving(count));\n}\n"),
        ("Cargo.toml", "[package]\nname = \"term\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
        (
            "src/lib.rs",
            "mod writer;\n\npub use writer::{ends_record, moving};\n\n/// A record terminator.\n#[derive(Clone, Copy, Debug)]\npub enum Terminator {\n    /// `\\r\\n`.\n    CRLF,\n    /// One byte.\n    Any(u8),\n}\n",
        ),
        (
            "src/writer.rs",
            "use crate::Terminator;\nuse crate::Terminator::*;\n\n/// Whether `byte` ends a record under `term`.\npub fn ends_record(term: Terminator, byte: u8) -> bool {\n    match term {\n        CRLF | Any(b'\\n') | Any(b'\\r') => byte == b'\\n',\n        Any(other) => byte == other,\n    }\n}\n\n/// Returns `x`.\npub fn moving<T>(x: T) -> T {\n    x\n}\n",
        ),
    ])
}

fn headline_count(text: &str) -> Option<usize> {
    let start = text.find("this write introduced ")? + "this write introduced ".len();
    text[start..].split_whitespace().next()?.parse().ok()
}

/// 27b M3: renaming the variant by hand breaks the match (the pattern now binds a variable);
/// the warnings that come with the new errors are the write's own, and rustc's E0408 with two
/// primary spans is one error, so the count is rustc's.
#[test]
fn a_breaking_rust_edit_owns_its_warnings_and_counts_each_rustc_error_once() {
    let test = "a_breaking_rust_edit_owns_its_warnings_and_counts_each_rustc_error_once";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = terminator_crate();
    let (errors, warnings) = cargo_check_short(dir.path());
    assert!(
        errors.len() == 1 && errors[0].starts_with("examples/broken.rs:2:") && warnings.is_empty(),
        "the fixture has the example's error only: {errors:?} {warnings:?}"
    );
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/writer.rs"}));
    let (text, _) = support::edit_and_first_server_check(&run, "src/lib.rs", "    CRLF,\n", "    CrLf,\n");
    let (errors, warnings) = cargo_check_short(dir.path());
    eprintln!("cargo errors: {errors:#?}\ncargo warnings: {warnings:#?}\nrunbound:\n{text}");
    assert!(!errors.is_empty(), "the edit breaks the crate (cargo check): {errors:?}");
    assert!(errors.iter().all(|line| line.starts_with("src/")), "cargo skips the example while the library fails: {errors:?}");
    assert_eq!(headline_count(&text), Some(errors.len()), "not rustc's count of errors:\n{text}\ncargo: {errors:#?}");
    assert!(!text.contains("reported now that this write resolved errors"), "the write resolved no error:\n{text}");
    assert!(!text.contains("resolved by this write"), "{text}");
    if !warnings.is_empty() {
        assert!(text.contains("this write also introduced"), "the write's warnings are not said as its own:\n{text}");
    }
}

/// 27b M7: a write that leaves an unused variable says so (cargo check and rust-analyzer warn).
#[test]
fn a_rust_write_that_adds_an_unused_variable_says_so() {
    let test = "a_rust_write_that_adds_an_unused_variable_says_so";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = terminator_crate();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "src/writer.rs"}));
    let (text, _) = support::edit_and_first_server_check(
        &run,
        "src/writer.rs",
        "pub fn moving<T>(x: T) -> T {\n",
        "pub fn moving<T>(x: T) -> T {\n    let unused_count = 3;\n",
    );
    let (errors, warnings) = cargo_check_short(dir.path());
    eprintln!("cargo: {errors:#?} {warnings:#?}\nrunbound:\n{text}");
    assert!(errors.iter().all(|line| line.starts_with("examples/broken.rs:")), "{errors:?}");
    assert!(warnings.iter().any(|line| line.contains("src/writer.rs:14:9: warning: unused variable: `unused_count`")), "{warnings:?}");
    assert!(text.contains("no new errors"), "{text}");
    assert!(
        text.contains("note: src/writer.rs: this write also introduced 1 new warning (diagnostics on write lists errors only): src/writer.rs:14: warning[unused_variables] unused variable: `unused_count`"),
        "the unused variable is not said:\n{text}"
    );
}

/// 27b M6: a write that makes `go vet`'s printf check fail — a check `go test` runs before the
/// tests, failing the test build — is said as "go test will refuse to build", not as a plain
/// warning under "no new errors".
#[test]
fn a_go_write_that_breaks_the_go_test_vet_step_says_go_test_will_refuse_to_build() {
    let test = "a_go_write_that_breaks_the_go_test_vet_step_says_go_test_will_refuse_to_build";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/cronish\n\ngo 1.19\n"),
        (
            "parser.go",
            "package cronish\n\nimport \"fmt\"\n\n// Parse refuses descriptors.\nfunc Parse(spec string) error {\n\tif len(spec) > 0 && spec[0] == '@' {\n\t\treturn fmt.Errorf(\"parser does not accept descriptors: %v\", spec)\n\t}\n\treturn nil\n}\n",
        ),
        ("parser_test.go", "package cronish\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tif Parse(\"@hourly\") == nil {\n\t\tt.Fatal(\"accepted a descriptor\")\n\t}\n}\n"),
    ]);
    let go_vet = |dir: &Path| {
        let output = Command::new("go").args(["vet", "./..."]).current_dir(dir).output().expect("run go vet");
        (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (vet_clean, vet_output) = go_vet(dir.path());
    assert!(vet_clean, "the fixture passes go vet: {vet_output}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "parser.go"}));
    let (text, _) = support::edit_and_first_server_check(&run, "parser.go", "descriptors: %v\", spec)", "descriptors: %d\", spec)");
    let (vet_clean, vet_output) = go_vet(dir.path());
    assert!(!vet_clean && vet_output.contains("parser.go:8:"), "go vet finds the printf mismatch: {vet_output}");
    // Without gopls' pre-write state (a cold gopls may not publish it in time) the finding is
    // still said: go test refuses to build whether or not this write introduced it.
    let pre_write_known = !text.contains("its pre-write state is unknown");
    assert!(
        text.contains("go test will refuse to build: 1 finding of the go vet checks `go test` runs before the tests (")
            && text.contains("parser.go:8: warning fmt.Errorf format %d has arg spec of wrong type string")
            && (!pre_write_known || text.contains("(this write introduced 1)")),
        "the go test build failure is not said:\n{text}\n(go vet: {vet_output})"
    );
    assert!(!text.contains("this write also introduced 1 new warning"), "said as a plain warning:\n{text}");
}

/// trial169 M2 (blang/semver v4: `String` given a pointer receiver made 4 printf findings in
/// range_test.go and sort_test.go, on a project whose `go vet ./...` was clean): on a cold
/// session gopls has no pre-write state for the test file, and the answer said "whether this
/// write introduced 4 is not known (no pre-write state)", then ended "no errors in the files
/// that were checked". `go vet` run on the text before the write tells the new finding from
/// the one that was there, and the closing line names the go test failure.
#[test]
fn a_cold_go_write_that_adds_a_go_test_vet_finding_says_it_introduced_it_and_which_was_there() {
    let test = "a_cold_go_write_that_adds_a_go_test_vet_finding_says_it_introduced_it_and_which_was_there";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/versionish\n\ngo 1.19\n"),
        (
            "version.go",
            "package versionish\n\nimport \"strconv\"\n\n// Version is a release number.\ntype Version struct {\n\tMajor uint64\n}\n\n// String renders the version.\nfunc (v Version) String() string {\n\treturn strconv.FormatUint(v.Major, 10)\n}\n",
        ),
        (
            "version_test.go",
            "package versionish\n\nimport \"testing\"\n\nfunc TestString(t *testing.T) {\n\tv := Version{Major: 3}\n\tif v.String() != \"3\" {\n\t\tt.Errorf(\"got %s\", v)\n\t}\n\tt.Logf(\"major %d\", \"three\")\n}\n",
        ),
    ]);
    let go_vet_lines = |dir: &Path| -> Vec<String> {
        let output = Command::new("go").args(["vet", "./..."]).current_dir(dir).output().expect("run go vet");
        String::from_utf8_lossy(&output.stderr).lines().filter(|line| line.starts_with("./")).map(str::to_owned).collect()
    };
    let before = go_vet_lines(dir.path());
    assert!(before.len() == 1 && before[0].starts_with("./version_test.go:10:"), "go vet before the write: {before:?}");
    // No call before the write: the session is cold, as in the trial.
    let run = support::lsp_run_allowing_writes(dir.path());
    let (text, _) = support::edit_and_first_server_check(&run, "version.go", "func (v Version) String()", "func (v *Version) String()");
    let after = go_vet_lines(dir.path());
    eprintln!("go vet after: {after:#?}\nrunbound:\n{text}");
    assert!(
        after.len() == 2 && after.iter().any(|line| line.starts_with("./version_test.go:8:")),
        "go vet after the write: the new finding at line 8 and the old one at 10: {after:?}"
    );
    let line = text.lines().find(|line| line.starts_with("go test will refuse to build")).unwrap_or_else(|| panic!("not said:\n{text}"));
    assert!(line.contains("version_test.go:8:") && line.contains("version_test.go:10:"), "both findings are listed:\n{line}");
    assert!(
        line.contains("(this write introduced 1; 1 was there before this write;") && !line.contains("is not known"),
        "which finding this write introduced is not said (go vet before it: {before:?}):\n{line}"
    );
    let closing = text.lines().last().unwrap_or("");
    assert!(
        !closing.starts_with("no errors in the files that were checked") || closing.contains("go test will refuse to build"),
        "the last line reads clean while go test fails to build:\n{text}"
    );
}

/// trial29 F4 (spf13/pflag 1.0.6, whose flag_test.go:1242 already fails go vet's printf check):
/// a write that adds a printf finding in another file counted the old finding as introduced too
/// ("this write introduced 2"); it was there before the write.
#[test]
fn a_go_vet_finding_that_predates_a_write_is_not_counted_as_introduced_by_it() {
    let test = "a_go_vet_finding_that_predates_a_write_is_not_counted_as_introduced_by_it";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/flagish\n\ngo 1.19\n"),
        ("value.go", "package flagish\n\ntype stringValue string\n\nfunc (s *stringValue) String() string {\n\treturn string(*s)\n}\n"),
        (
            "flag_test.go",
            "package flagish\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestString(t *testing.T) {\n\tv := stringValue(\"x\")\n\tfmt.Println(\"value:\", v.String(), \"\\n\")\n}\n",
        ),
    ]);
    let go_vet = |dir: &Path| {
        let output = Command::new("go").args(["vet", "./..."]).current_dir(dir).output().expect("run go vet");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let before = go_vet(dir.path());
    assert!(before.contains("flag_test.go:10:"), "the fixture's test file fails go vet before the write: {before}");
    let run = support::lsp_run_allowing_writes(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "value.go"}));
    let (text, _) = support::edit_and_first_server_check(
        &run,
        "value.go",
        "func (s *stringValue) String() string {",
        "func describe(s *stringValue) string {\n\treturn fmt.Sprintf(\"%d\", string(*s))\n}\n\nfunc (s *stringValue) String() string {",
    );
    let (text_import, _) =
        support::edit_and_first_server_check(&run, "value.go", "package flagish\n", "package flagish\n\nimport \"fmt\"\n");
    let after = go_vet(dir.path());
    assert!(after.contains("value.go:") && after.contains("flag_test.go:10:"), "go vet after the writes: {after}");
    for said in [&text, &text_import] {
        if let Some(line) = said.lines().find(|line| line.starts_with("go test will refuse to build") && line.contains("flag_test.go:10")) {
            // "whether this write introduced 2 is not known" (a write that resolved the type error
            // that held gopls' vet analysis back, trial61 M3) claims nothing.
            let claims = line.replace("whether this write introduced", "");
            assert!(!claims.contains("this write introduced 2"), "the finding from before the write is counted as introduced:\n{line}");
        }
    }
    let line = text_import
        .lines()
        .find(|line| line.starts_with("go test will refuse to build"))
        .unwrap_or_else(|| panic!("the go test build failure is not said:\n{text_import}"));
    assert!(line.contains("value.go:"), "{line}");
}

/// voluptuous' shape (trial27a F1): `util.py` calls `default_factory(value)` and then calls what
/// it returned; pyright reports `Object of type "Undefined" is not callable` there, and stops
/// reporting it while the call to `default_factory` lacks an argument.
fn masking_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"vol\"\nversion = \"0.1.0\"\n"),
        ("vol/__init__.py", ""),
        (
            "vol/schema_builder.py",
            "import typing\n\n\nclass Undefined(object):\n    def __nonzero__(self) -> bool:\n        return False\n\n\nUNDEFINED = Undefined()\n\nDefaultFactory = typing.Union[Undefined, typing.Callable[[], typing.Any]]\n\n\ndef default_factory(value) -> DefaultFactory:\n    if value is UNDEFINED or callable(value):\n        return value\n    return lambda: value\n",
        ),
        (
            "vol/util.py",
            "import typing\n\nfrom vol.schema_builder import default_factory\n\n\nclass DefaultTo(object):\n    def __init__(self, default_value, msg: typing.Optional[str] = None) -> None:\n        self.default_value = default_factory(default_value)\n        self.msg = msg\n\n    def __call__(self, v):\n        if v is None:\n            v = self.default_value()\n        return v\n\n\nclass SetTo(object):\n    def __init__(self, value) -> None:\n        self.value = default_factory(value)\n\n    def __call__(self, v):\n        return self.value()\n",
        ),
    ])
}

/// The pyright CLI's errors in `dir` as `file:line: message` (first message line).
fn pyright_cli_errors(dir: &Path) -> Vec<String> {
    let output = Command::new("pyright").arg("--outputjson").current_dir(dir).output().expect("run pyright");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("pyright --outputjson prints JSON");
    report["generalDiagnostics"]
        .as_array()
        .expect("generalDiagnostics")
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .map(|diagnostic| {
            let file = Path::new(diagnostic["file"].as_str().unwrap_or("")).file_name().map(|name| name.to_string_lossy().into_owned());
            let line = diagnostic["range"]["start"]["line"].as_u64().unwrap_or(0) + 1;
            let message = diagnostic["message"].as_str().unwrap_or("").lines().next().unwrap_or("").to_owned();
            format!("{}:{line}: {message}", file.unwrap_or_default())
        })
        .collect()
}

const SIGNATURE: &str = "def default_factory(value) -> DefaultFactory:";
const BROKEN: &str = "def default_factory(value, strict: bool) -> DefaultFactory:";
const FIXED: &str = "def default_factory(value, strict: bool = False) -> DefaultFactory:";

/// 27a F1: the fixing edit of a broken intermediate state does not "introduce" the errors the
/// break had hidden, whether the break was seen by a write of the run (its hidden errors are
/// remembered) or not (a break made outside the tools: the errors that show next to the ones the
/// fix resolved are said "may have been hidden"); and no later write calls them "reported as
/// new by an earlier write". pyright's CLI: the final state has exactly the baseline's errors.
#[test]
fn a_fixing_python_edit_is_not_blamed_for_the_errors_the_broken_state_hid() {
    let test = "a_fixing_python_edit_is_not_blamed_for_the_errors_the_broken_state_hid";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "pyright").is_none() {
        return;
    }
    let dir = masking_package();
    let baseline = pyright_cli_errors(dir.path());
    assert_eq!(
        baseline,
        vec!["util.py:13: Object of type \"Undefined\" is not callable", "util.py:22: Object of type \"Undefined\" is not callable"],
        "the fixture's baseline"
    );
    let schema_builder = dir.path().join("vol/schema_builder.py");
    let pristine = std::fs::read_to_string(&schema_builder).expect("read schema_builder.py");
    std::fs::write(&schema_builder, pristine.replace(SIGNATURE, BROKEN)).expect("break outside the tools");
    let masked = pyright_cli_errors(dir.path());
    assert!(
        masked.len() == 2 && masked.iter().all(|line| line.contains("Argument missing for parameter \"strict\"")),
        "pyright hides the Undefined errors while the calls lack an argument: {masked:?}"
    );

    let mut config = runbound::RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);
    let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "vol/util.py"}));

    // A: the break happened outside the tools; the fix's pre-write state is the broken one.
    let (text, server) = support::edit_and_first_server_check(&run, "vol/schema_builder.py", BROKEN, FIXED);
    assert_eq!(pyright_cli_errors(dir.path()), baseline, "the fix restores the baseline");
    assert!(!text.contains("this write introduced"), "the fix is blamed for errors the break hid:\n{text}");
    assert!(!text.contains("new diagnostics introduced by this write"), "{text}");
    assert!(
        text.contains("vol/util.py: reported now that this write resolved errors in vol/util.py; they may have been hidden by them (not known to be introduced by this write) (2, pyright):")
            && text.contains("vol/util.py:13: error[reportCallIssue] Object of type \"Undefined\" is not callable"),
        "the un-masked errors are not said as such:\n{text}"
    );
    assert!(text.contains("vol/util.py: resolved by this write (2, pyright)"), "{text}");
    let files = server["files"].as_array().expect("files");
    let util = files.iter().find(|file| file["file"] == "vol/util.py").expect("util.py checked");
    assert_eq!(util["maybe_unmasked"].as_array().map(Vec::len), Some(2), "{server}");

    // B: the break is a write of this run: its answer does not call the hidden errors resolved,
    // and the fix then finds them known.
    let (text, _) = support::edit_and_first_server_check(&run, "vol/schema_builder.py", FIXED, BROKEN);
    assert!(text.contains("this write introduced 2 new errors"), "{text}");
    assert!(!text.contains("resolved by this write"), "the break claims to resolve the errors it hides:\n{text}");
    assert!(
        text.contains("vol/util.py: 2 earlier diagnostics are no longer reported, but not counted as resolved: the new errors this write introduced in vol/util.py may hide them (pyright)"),
        "{text}"
    );
    let (text, _) = support::edit_and_first_server_check(&run, "vol/schema_builder.py", BROKEN, FIXED);
    assert!(!text.contains("this write introduced") && !text.contains("reported now that this write resolved errors"), "{text}");
    assert!(text.contains("vol/util.py: resolved by this write (2, pyright)"), "{text}");
    assert_eq!(pyright_cli_errors(dir.path()), baseline);

    // A later write to util.py does not remind of the Undefined errors as earlier-reported ones.
    let (text, _) = support::edit_and_first_server_check(&run, "vol/util.py", "class SetTo(object):", "class SetTo(object):  # sets");
    assert!(!text.contains("reported as new by an earlier write"), "the false blame is repeated:\n{text}");
    assert!(text.contains("2 errors already present before this write remain"), "{text}");
}

/// chevrotain's shape (trial27a F5): an interface in a `.d.ts` of its own package (`types/`, a
/// second typescript-language-server root) that a class of the main project implements; renaming
/// its method writes the `.d.ts` (checked by the `types/` server) and the sources (the main
/// server, which reads the `.d.ts` from the disk). The accept reports no errors "resolved by this
/// write" (tsc: none before, none after) and one `checked:` line.
#[test]
fn a_typescript_rename_over_two_servers_invents_no_resolved_errors_and_says_one_checked_line() {
    let test = "a_typescript_rename_over_two_servers_invents_no_resolved_errors_and_says_one_checked_line";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"parser\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\", \"types\"]}\n"),
        ("types/package.json", "{\"name\": \"@parser/types\", \"version\": \"1.0.0\", \"types\": \"api.d.ts\"}\n"),
        ("types/api.d.ts", "export interface LookaheadStrategy {\n  buildLookahead(depth: number): number;\n}\n"),
        (
            "src/llk.ts",
            "import { LookaheadStrategy } from \"../types/api\";\n\nexport class LLkStrategy implements LookaheadStrategy {\n  buildLookahead(depth: number): number {\n    return depth + 1;\n  }\n}\n",
        ),
        (
            "src/looksahead.ts",
            "import { LookaheadStrategy } from \"../types/api\";\nimport { LLkStrategy } from \"./llk\";\n\nexport const strategy: LookaheadStrategy = new LLkStrategy();\nexport const depth = strategy.buildLookahead(2);\n",
        ),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new(), "the fixture compiles");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    for file in ["src/llk.ts", "src/looksahead.ts"] {
        let _ = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": file}));
    }
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/looksahead.ts", "line": 5, "symbol": "buildLookahead", "new_name": "buildAltLookahead"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    eprintln!("{text}");
    let after = support::tsc_errors(dir.path());
    assert!(!text.contains("resolved by this write"), "errors 'resolved' that tsc never had:\n{text}");
    assert_eq!(text.lines().filter(|line| line.starts_with("checked:")).count(), 1, "one checked: line:\n{text}");
    if after.is_empty() {
        assert!(!text.contains("this write introduced"), "tsc finds no error after the rename:\n{text}");
    }
}
