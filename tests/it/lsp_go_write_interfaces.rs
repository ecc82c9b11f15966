//! A Go write that changes which values implement an interface the standard library checks at
//! run time is warned about (issue 11, trial169 M1), against real gopls and `go test`: blang/semver
//! v4's `MarshalJSON` given a pointer receiver compiled, vetted clean, read "no new errors", and
//! `TestJSONMarshal` failed — `json.Marshal(v)` of a value silently encoded the struct's fields.

use crate::support;

use runbound::Caller;
use serde_json::json;

const VERSION_GO: &str = "package semver\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n)\n\n// Version is a version.\ntype Version struct{ Major int }\n\n// MarshalJSON encodes the version as a string.\nfunc (v Version) MarshalJSON() ([]byte, error) {\n\treturn json.Marshal(fmt.Sprintf(\"v%d\", v.Major))\n}\n\n// Next is the next major version.\nfunc (v Version) Next() Version {\n\treturn Version{Major: v.Major + 1}\n}\n";
const JSON_TEST_GO: &str = "package semver\n\nimport (\n\t\"encoding/json\"\n\t\"testing\"\n)\n\nfunc TestJSONMarshal(t *testing.T) {\n\tb, err := json.Marshal(Version{Major: 3})\n\tif err != nil || string(b) != `\"v3\"` {\n\t\tt.Fatalf(\"got %s\", b)\n\t}\n}\n";

fn go_test_passes(dir: &std::path::Path) -> (bool, String) {
    let output = std::process::Command::new("go")
        .args(["test", "./..."])
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .expect("go runs");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_receiver_made_a_pointer_on_a_json_marshaler_is_warned_though_it_compiles() {
    let test = "a_receiver_made_a_pointer_on_a_json_marshaler_is_warned_though_it_compiles";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/semver\n\ngo 1.19\n"),
        ("version.go", VERSION_GO),
        ("json_test.go", JSON_TEST_GO),
    ]);
    assert!(go_test_passes(dir.path()).0, "the fixture's test passes before the write");
    let run = support::lsp_run_allowing_writes(dir.path());

    // A method no interface is checked for: no warning.
    let edited = run.call(
        Caller::Main,
        "edit",
        json!({"path": "version.go", "old_string": "func (v Version) Next()", "new_string": "func (v *Version) Next()"}),
    );
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    assert!(!text.contains("WARNING"), "{text}");

    let edited = run.call(
        Caller::Main,
        "edit",
        json!({"path": "version.go", "old_string": "func (v Version) MarshalJSON()", "new_string": "func (v *Version) MarshalJSON()"}),
    );
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    assert!(text.contains("no new errors"), "it compiles; gopls sees nothing:\n{text}");
    assert!(
        text.contains("WARNING: this write to version.go changes which values implement an interface the standard library checks at run time — `MarshalJSON` now has a pointer receiver, so a `Version` value no longer implements `json.Marshaler` (only `*Version` does)"),
        "{text}"
    );
    // Ground truth: the test that encodes a value now fails.
    let (passes, output) = go_test_passes(dir.path());
    assert!(!passes && output.contains("got {\"Major\":3}"), "{output}");

    // Back to a value receiver: values implement it again, and that is said too.
    let edited = run.call(
        Caller::Main,
        "edit",
        json!({"path": "version.go", "old_string": "func (v *Version) MarshalJSON()", "new_string": "func (v Version) MarshalJSON()"}),
    );
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    assert!(text.contains("a `Version` value implements `json.Marshaler` (before, only `*Version` did)"), "{text}");
    assert!(go_test_passes(dir.path()).0);
}

/// review49 M8 (blang/semver v4, `lsp_rename` `MarshalJSON` → `ToJSON`): the rename's WARNING
/// that the type no longer implements `json.Marshaler` was followed by the write check's
/// WARNING of the same loss. Said once; an `edit` that drops the method by hand still gets the
/// write check's.
#[test]
fn a_rename_of_a_json_marshaler_method_warns_of_the_lost_interface_once() {
    let test = "a_rename_of_a_json_marshaler_method_warns_of_the_lost_interface_once";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/semver\n\ngo 1.19\n"),
        ("version.go", VERSION_GO),
        ("json_test.go", JSON_TEST_GO),
    ]);
    assert!(go_test_passes(dir.path()).0, "the fixture's test passes before the write");
    let run = support::lsp_run_allowing_writes(dir.path());
    let warnings_of_the_loss = |text: &str| -> usize {
        text.lines()
            .filter(|line| line.contains("WARNING") && line.contains("json.Marshaler") && line.contains("no longer implement"))
            .count()
    };

    // By hand: only the write check can say it.
    let edited = run.call(Caller::Main, "edit", json!({"path": "version.go", "old_string": "MarshalJSON() (", "new_string": "ToJSON() ("}));
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    assert_eq!(warnings_of_the_loss(&text), 1, "the hand edit's loss is said by the write check:\n{text}");
    let (passes, output) = go_test_passes(dir.path());
    assert!(!passes && output.contains("got {\"Major\":3}"), "ground truth: the test fails after the hand edit: {output}");
    let edited = run.call(Caller::Main, "edit", json!({"path": "version.go", "old_string": "ToJSON() (", "new_string": "MarshalJSON() ("}));
    assert!(!edited.is_error, "{}", edited.joined_text());
    assert!(go_test_passes(dir.path()).0, "restored");

    // By the rename: its own WARNING, not repeated by the write check.
    let renamed =
        run.call(Caller::Main, "lsp_rename", json!({"file": "version.go", "line": 12, "symbol": "MarshalJSON", "new_name": "ToJSON"}));
    let text = renamed.joined_text();
    assert!(!renamed.is_error, "{text}");
    assert!(std::fs::read_to_string(dir.path().join("version.go")).unwrap().contains("func (v Version) ToJSON()"), "{text}");
    assert_eq!(warnings_of_the_loss(&text), 1, "the loss of json.Marshaler is said once:\n{text}");
    let (passes, output) = go_test_passes(dir.path());
    assert!(!passes && output.contains("got {\"Major\":3}"), "ground truth: the test fails after the rename: {output}");
}
