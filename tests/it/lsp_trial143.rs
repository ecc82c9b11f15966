//! Wrong answers from the fresh-user trial 143 (spf13/cast 1.5.0 with a consumer module),
//! against the real gopls and go, on a fixture of the same shape:
//! - F1: renaming the library's `ToFloat64` to `Name` also edited the consumer's dot-importing
//!   file, and the consumer already declares `Name`: `go build` fails ("Name already declared
//!   through dot-import"), gopls drops that error (its other position lies in the library
//!   module), and the write read "no errors in the files that were checked".
//! - Review BUG 5 of that fix: when gopls reported any other error in the consumer's file, the
//!   compiler's view of the file was dropped whole, and the dot-import error with it.
//!
//! Ground truth: `go build ./...` in the consumer module.

use crate::support;

use serde_json::json;

#[test]
fn a_rename_across_both_modules_reports_the_consumer_build_error_gopls_drops() {
    let text = rename_onto_a_name_the_consumer_declares(
        "lsp_trial143::a_rename_across_both_modules_reports_the_consumer_build_error_gopls_drops",
        "package conv\n\n// Name names a value.\nfunc Name(v interface{}) string {\n\treturn \"value\"\n}\n",
    );
    let Some(text) = text else { return };
    assert!(text.contains("consumer/conv/conv.go: new diagnostics introduced by this write (1, go build and go vet):"), "{text}");
    assert!(text.contains("consumer/conv/conv.go:4: error Name already declared through dot-import"), "{text}");
    assert!(text.contains("no errors in the files that were checked besides the 1 new error listed above"), "{text}");
}

/// BUG 5: the consumer's file that dot-imports the library is written too, and holds an error
/// both gopls and go build report (there before the write): gopls reports the file with that
/// error only, and the compiler's dot-import error was dropped with the compiler's whole view of
/// the file ("no new errors"). Now it is reported as new, the older error is not, and the gopls
/// block does not call the file clean.
#[test]
fn the_consumer_build_error_gopls_drops_is_reported_beside_an_error_gopls_reports() {
    let text = rename_onto_a_name_the_consumer_declares(
        "lsp_trial143::the_consumer_build_error_gopls_drops_is_reported_beside_an_error_gopls_reports",
        BROKEN_DOT_IMPORTING_CONV,
    );
    let Some(text) = text else { return };
    assert!(text.contains("consumer/conv/conv.go: new diagnostics introduced by this write (1, go build and go vet):"), "{text}");
    assert!(text.contains("consumer/conv/conv.go:6: error Name already declared through dot-import"), "{text}");
    assert_eq!(text.matches("cannot use \"not a number\"").count(), 0, "the older error is not new:\n{text}");
    assert!(text.contains("1 error already present before this write remains"), "{text}");
    assert!(!text.contains("no new errors in consumer/conv/conv.go"), "{text}");
    assert!(
        text.contains("consumer/conv/conv.go: gopls reports no new diagnostics in it, but the compiler's run listed above does"),
        "{text}"
    );
}

/// Review44 RISK 1: the same asked from the consumer's use (its folder sorting first too), so its
/// gopls check comes first in the write: the file is still not called clean above the
/// compiler's new error.
#[test]
fn the_consumer_build_error_gopls_drops_is_not_denied_when_the_rename_starts_in_the_consumer() {
    let text = rename_onto_a_name_a_consumer_in_folder_declares(
        "lsp_trial143::the_consumer_build_error_gopls_drops_is_not_denied_when_the_rename_starts_in_the_consumer",
        "app",
        BROKEN_DOT_IMPORTING_CONV,
        true,
    );
    let Some(text) = text else { return };
    assert!(text.contains("app/conv/conv.go:6: error Name already declared through dot-import"), "{text}");
    assert!(!text.contains("no new errors in app/conv/conv.go"), "{text}");
    assert!(text.contains("app/conv/conv.go: gopls reports no new diagnostics in it, but the compiler's run listed above does"), "{text}");
}

/// A consumer file that dot-imports the library, declares `Name` and holds an older type error.
const BROKEN_DOT_IMPORTING_CONV: &str = "package conv\n\nimport . \"example.com/cast\"\n\n// Name names a value.\nfunc Name(v interface{}) string {\n\treturn \"value\"\n}\n\n// Half halves a value.\nfunc Half(v interface{}) float64 { return ToFloat64(v) / 2 }\n\nvar Broken int = \"not a number\"\n";

/// Renames the library's `ToFloat64` to `Name`, which the consumer's `conv.go` (text `conv`)
/// declares, with both modules' gopls running; returns the rename's text, `None`
/// when gopls or go is missing (skipped loudly).
fn rename_onto_a_name_the_consumer_declares(test: &str, conv: &str) -> Option<String> {
    rename_onto_a_name_a_consumer_in_folder_declares(test, "consumer", conv, false)
}

/// As [`rename_onto_a_name_the_consumer_declares`], with the consumer module in the folder `consumer`.
/// `from_consumer`: the rename is asked at the consumer's use (its server's check comes first).
fn rename_onto_a_name_a_consumer_in_folder_declares(test: &str, consumer: &str, conv: &str, from_consumer: bool) -> Option<String> {
    support::require_binary(test, "gopls")?;
    support::require_binary(test, "go")?;
    let dir = support::workspace_with(&[
        ("cast/go.mod", "module example.com/cast\n\ngo 1.21\n"),
        ("cast/cast.go", "package cast\n\n// ToFloat64 casts an interface to a float64.\nfunc ToFloat64(v interface{}) float64 {\n\tf, _ := v.(float64)\n\treturn f\n}\n"),
        (&format!("{consumer}/go.mod"), "module example.com/consumer\n\ngo 1.21\n\nrequire example.com/cast v0.0.0\n\nreplace example.com/cast => ../cast\n"),
        (&format!("{consumer}/conv/conv.go"), conv),
        (&format!("{consumer}/conv/dot.go"), "package conv\n\nimport . \"example.com/cast\"\n\n// Ratio is a percentage.\nfunc Ratio(v interface{}) float64 { return ToFloat64(v) / 100 }\n"),
    ]);
    let go_build = |dir: &std::path::Path| String::from_utf8_lossy(&support::go_offline(dir, &["build", "./..."]).stderr).into_owned();
    let before = go_build(&dir.path().join(consumer));
    assert!(!before.contains("Name already declared"), "{before}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // Both modules' servers run, as when the agent has read files of both.
    support::call_ok(&run, "lsp", json!({"op": "hover", "file": format!("{consumer}/conv/dot.go"), "line": 6, "symbol": "ToFloat64"}));
    let (file, line) = if from_consumer { (format!("{consumer}/conv/dot.go"), 6) } else { ("cast/cast.go".to_owned(), 4) };
    let text = support::call_ok(&run, "lsp_rename", json!({"file": file, "line": line, "symbol": "ToFloat64", "new_name": "Name"}));
    // Ground truth: the consumer no longer builds.
    let built = go_build(&dir.path().join(consumer));
    assert!(built.contains("Name already declared through dot-import"), "{built}");
    Some(text)
}
