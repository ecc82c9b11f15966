//! Wrong answers from the fresh-user trial 45 (tomli 2.0.2, go-cmp 0.5.9), against gopls and the
//! Go toolchain on a fixture of the same shape (`go-cmp`'s `teststructs`: a struct embedded as a
//! pointer, a test comparing output with a golden file under `testdata/`):
//! - F1: renaming the field `Public` left the golden file `cmp/testdata/diffs` (39 lines with
//!   the old name) unnamed, and 7 `TestDiff` cases failed after "no new errors".
//! - F2: a go vet `printf` finding, which makes `go test` refuse to build, read as a plain
//!   warning in `lsp diagnostics` of the file ("0 errors, 4 warnings").
//! - F3: renaming the type `PublicStruct` left the uses of the embedded field `*PublicStruct`
//!   (gopls places their definition at the `*`, which the edit's range starts after): "another
//!   symbol", no warning, and the build broke.
//!
//! F4 (`implementation` of go-cmp's `Option` interface: gopls answered null) is in
//! `corpus_go`, on go-cmp itself: the fixtures here did not reproduce gopls's miss.
//!
//! Ground truth: `go build`, `go vet`, `go test` (offline) and the files' text.

use crate::support;

use runbound::Caller;
use serde_json::json;

const STRUCTS: &str = "package structs\n\n// PublicStruct has a public field.\ntype PublicStruct struct{ Public, private int }\n\n// Parent embeds a pointer to PublicStruct.\ntype Parent struct {\n\t*PublicStruct\n}\n\n// NewParent builds a Parent.\nfunc NewParent() Parent {\n\treturn Parent{PublicStruct: new(PublicStruct)}\n}\n";

const STRUCTS_TEST: &str = "package structs\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestGolden(t *testing.T) {\n\tp := NewParent()\n\tp.PublicStruct.Public = 1\n\twant, _ := os.ReadFile(\"testdata/golden.txt\")\n\tif got := fmt.Sprintf(\"%+v\\n\", *p.PublicStruct); got != string(want) {\n\t\tt.Fatalf(\"got %q want %q\", got, want)\n\t}\n}\n";

/// A package with a struct embedded as a pointer and a golden-file test.
fn golden_package() -> tempfile::TempDir {
    support::workspace_with(&[
        ("go.mod", "module example.com/structs\n\ngo 1.19\n"),
        ("structs.go", STRUCTS),
        ("structs_test.go", STRUCTS_TEST),
        ("testdata/golden.txt", "{Public:1 private:0}\n"),
    ])
}

fn go(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new("go")
        .args(args)
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .output()
        .expect("run go");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

fn require_go(test: &str) -> bool {
    support::require_binary(test, "gopls").is_some() && support::require_binary(test, "go").is_some()
}

#[test]
fn renaming_a_type_embedded_as_a_pointer_renames_the_embedded_field_uses_too() {
    let test = "lsp_trial45::renaming_a_type_embedded_as_a_pointer_renames_the_embedded_field_uses_too";
    if !require_go(test) {
        return;
    }
    let dir = golden_package();
    let (ok, output) = go(dir.path(), &["test", "-count=1", "./..."]);
    assert!(ok, "fixture: {output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "structs.go", "line": 4, "symbol": "PublicStruct", "new_name": "ExportedStruct"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(!text.contains("structs_test.go:11: p.PublicStruct.Public = 1   (definition"), "listed as another symbol: {text}");
    let written = std::fs::read_to_string(dir.path().join("structs.go")).unwrap()
        + &std::fs::read_to_string(dir.path().join("structs_test.go")).unwrap();
    // Every use renamed; the one comment that is not the type's doc comment keeps the old name.
    assert_eq!(written.matches("PublicStruct").count(), 1, "{written}\n{text}");
    assert!(
        written.contains("p.ExportedStruct.Public = 1") && written.contains("Parent{ExportedStruct: new(ExportedStruct)}"),
        "{written}"
    );
    // Ground truth: it builds, vets and its test passes (the golden file does not name the type).
    let (ok, output) = go(dir.path(), &["vet", "./..."]);
    assert!(ok, "go vet after the rename: {output}\n{text}");
    let (ok, output) = go(dir.path(), &["test", "-count=1", "./..."]);
    assert!(ok, "go test after the rename: {output}\n{text}");
}

#[test]
fn renaming_a_field_that_a_golden_file_holds_warns_of_the_test_data() {
    let test = "lsp_trial45::renaming_a_field_that_a_golden_file_holds_warns_of_the_test_data";
    if !require_go(test) {
        return;
    }
    let dir = golden_package();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "structs.go", "line": 4, "symbol": "Public,", "new_name": "Exported"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("WARNING: `Public` is left in 1 line of test data (1 file) that no server edits"), "the top warning: {text}");
    assert!(text.contains("not renamed in test data") && text.contains("testdata/golden.txt (1 line: 1)"), "{text}");
    let structured = result.structured_content.expect("structured content");
    assert_eq!(structured["coverage"]["left_in_test_data"], json!(["testdata/golden.txt:1"]), "{structured}");
    // Ground truth: the build is fine, the golden test fails until the file is updated.
    let (ok, output) = go(dir.path(), &["vet", "./..."]);
    assert!(ok, "{output}");
    let (ok, output) = go(dir.path(), &["test", "-count=1", "./..."]);
    assert!(!ok && output.contains("TestGolden"), "{output}");
    std::fs::write(dir.path().join("testdata/golden.txt"), "{Exported:1 private:0}\n").unwrap();
    let (ok, output) = go(dir.path(), &["test", "-count=1", "./..."]);
    assert!(ok, "{output}");
}

#[test]
fn a_file_with_a_printf_finding_says_go_test_refuses_to_build() {
    let test = "lsp_trial45::a_file_with_a_printf_finding_says_go_test_refuses_to_build";
    if !require_go(test) {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/format\n\ngo 1.19\n"),
        (
            "format.go",
            "package format\n\nimport \"fmt\"\n\n// Label formats n.\nfunc Label(n string) string {\n\treturn fmt.Sprintf(\"%d\", n)\n}\n",
        ),
        ("format_test.go", "package format\n\nimport \"testing\"\n\nfunc TestLabel(t *testing.T) {\n\t_ = Label(\"x\")\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp", json!({"op": "diagnostics", "file": "format.go"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("0 errors, 1 warning, 0 other — go test will refuse to build: 1 warning is a finding of the go vet checks `go test` runs before the tests (")
            && text.contains("printf"),
        "{text}"
    );
    let (ok, output) = go(dir.path(), &["test", "-count=1", "./..."]);
    assert!(!ok && output.contains("format.go:7"), "ground truth: {output}");
}

/// Trial 49 F3: renaming an exported Go function leaves the test example named after it
/// (`ExampleHello`); go vet's `tests` analyzer then reports it. The rename says so.
#[test]
fn renaming_a_go_function_names_the_test_examples_named_after_it() {
    let test = "lsp_trial45::renaming_a_go_function_names_the_test_examples_named_after_it";
    if !require_go(test) {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/greet\n\ngo 1.19\n"),
        ("greet.go", "package greet\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n"),
        ("greet_test.go", "package greet\n\nimport \"fmt\"\n\nfunc ExampleHello() {\n\tfmt.Println(Hello())\n\t// Output: hello\n}\n"),
    ]);
    let (ok, output) = go(dir.path(), &["vet", "./..."]);
    assert!(ok, "fixture: {output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "greet.go", "line": 4, "symbol": "Hello", "new_name": "Greet"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("WARNING: 1 test example keeps the old name `Hello` in its function name"), "{text}");
    assert!(text.contains("`ExampleHello` (greet_test.go:5)"), "{text}");
    let (ok, output) = go(dir.path(), &["vet", "./..."]);
    assert!(!ok && output.contains("ExampleHello"), "ground truth: {output}");
}
