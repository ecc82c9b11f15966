//! Wrong answers from the fresh-user trial 106 (gorilla/mux 1.8.0 with a consumer module),
//! against the go command and gopls, on fixtures of the same shape:
//! - F1: `lsp diagnostics "*"` left out the errors of the external test package (`mux_test`)
//!   when the in-package test files failed to compile ("1 error" where there were 2), and did
//!   not name the package NOT compiled.
//! - F3: `implementation` on a consumer type that satisfies the library's unexported `matcher`
//!   interface answered "no implementations found" (gopls's own answer), with no caveat that
//!   the library module, loaded as a dependency only, may hold what it implements.
//!
//! Ground truth: `gopls check` of the test files by hand (go compiles none of the external test
//! package then).

use crate::support;

use serde_json::json;

#[test]
fn the_project_check_type_checks_an_external_test_package_whose_package_tests_do_not_compile() {
    let test = "lsp_trial106::the_project_check_type_checks_an_external_test_package_whose_package_tests_do_not_compile";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/mux\n\ngo 1.19\n"),
        ("mux.go", "package mux\n\n// Vars is the route's variables.\nfunc Vars() map[string]string { return nil }\n"),
        ("middleware_test.go", "package mux\n\nvar _ int = \"in-package\"\n"),
        ("example_test.go", "package mux_test\n\nimport \"example.com/mux\"\n\nvar _ = mux.Vars()\n\nvar _ int = \"external\"\n"),
    ]);
    // Ground truth: go vet stops at the in-package test error; both files hold one.
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(String::from_utf8_lossy(&vet.stderr).contains("middleware_test.go:3"), "{}", String::from_utf8_lossy(&vet.stderr));
    assert!(!String::from_utf8_lossy(&vet.stderr).contains("example_test.go"), "{}", String::from_utf8_lossy(&vet.stderr));
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.starts_with("project check: 2 errors"), "{text}");
    assert!(text.contains("example_test.go:7: error"), "{text}");
    assert!(text.contains("imports failed example.com/mux (its in-package test files)"), "{text}");
}

#[test]
fn implementation_asked_in_a_consumer_module_says_the_replaced_module_may_hold_more() {
    let test = "lsp_trial106::implementation_asked_in_a_consumer_module_says_the_replaced_module_may_hold_more";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/mux\n\ngo 1.19\n"),
        (
            "mux.go",
            "package mux\n\nimport \"net/http\"\n\ntype matcher interface {\n\tMatch(*http.Request) bool\n}\n\n// MatcherFunc adapts a function.\ntype MatcherFunc func(*http.Request) bool\n\n// Match calls the function.\nfunc (m MatcherFunc) Match(r *http.Request) bool { return m(r) }\n\nvar _ matcher = MatcherFunc(nil)\n",
        ),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/mux v0.0.0\n\nreplace example.com/mux => ../\n",
        ),
        (
            "consumer/matchers.go",
            "package consumer\n\nimport (\n\t\"net/http\"\n\n\t\"example.com/mux\"\n)\n\n// HeaderPresent matches a request with the header.\ntype HeaderPresent struct{ Name string }\n\n// Match reports whether the header is there.\nfunc (h HeaderPresent) Match(r *http.Request) bool { return r.Header.Get(h.Name) != \"\" }\n\nvar _ = mux.MatcherFunc(nil)\n",
        ),
    ]);
    // Ground truth: both modules build (HeaderPresent has mux's unexported matcher's method set).
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(
        &run,
        "lsp",
        json!({"op": "implementation", "file": "consumer/matchers.go", "line": 10, "symbol": "HeaderPresent"}),
    );
    assert!(
        text.contains("note: gopls @ consumer loads ./ (a project root it depends on by path) as a dependency only: what the queried type implements there"),
        "{text}"
    );
}

/// Trial 110 F1 (spf13/afero with a consumer module): `implementation` of `afero.Fs` asked from
/// the consumer listed 10 of 13: the consumer's gopls loads only the library packages the
/// consumer imports, and the implementations in sftpfs, tarfs and zipfs were missing, unsaid.
#[test]
fn implementation_asked_in_a_consumer_module_lists_the_replaced_modules_implementations() {
    let test = "lsp_trial106::implementation_asked_in_a_consumer_module_lists_the_replaced_modules_implementations";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/afero\n\ngo 1.19\n"),
        ("fs.go", "package afero\n\n// Fs is a file system.\ntype Fs interface {\n\tName() string\n}\n\n// OsFs is the OS's.\ntype OsFs struct{}\n\n// Name names it.\nfunc (OsFs) Name() string { return \"os\" }\n"),
        ("tarfs/tarfs.go", "package tarfs\n\n// Fs reads a tar archive.\ntype Fs struct{}\n\n// Name names it.\nfunc (Fs) Name() string { return \"tar\" }\n"),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/afero v0.0.0\n\nreplace example.com/afero => ../\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/afero\"\n\n// LoggingFs logs.\ntype LoggingFs struct{ afero.Fs }\n\nvar _ afero.Fs = LoggingFs{}\n\nfunc main() {}\n"),
    ]);
    // Ground truth: both modules build; tarfs.Fs has afero.Fs's method set.
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    assert!(support::go_offline(&dir.path().join("consumer"), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "implementation", "file": "consumer/main.go", "line": 8, "symbol": "Fs"}));
    assert!(text.contains("tarfs/tarfs.go"), "the module's implementation in a package the consumer does not import is missing:\n{text}");
    assert!(text.contains("fs.go:9"), "{text}");
    assert!(text.contains("consumer/main.go:6"), "{text}");
    assert!(
        text.contains("note: also searched . (it owns the definition, and consumer depends on it by path) with its own gopls"),
        "{text}"
    );
}

/// Trial 110 F5 (spf13/afero): renaming `File.Readdirnames` listed the 8 workspace methods to
/// rename too, and not the standard library's `*os.File.Readdirnames`, which `OsFs` returns as
/// a `File`: following the advice still left 3 build errors.
#[test]
fn renaming_an_interface_method_the_standard_library_implements_is_warned_of() {
    let test = "lsp_trial106::renaming_an_interface_method_the_standard_library_implements_is_warned_of";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/afero\n\ngo 1.19\n"),
        (
            "afero.go",
            "package afero\n\nimport \"os\"\n\n// File is a file.\ntype File interface {\n\tReaddirnames(n int) ([]string, error)\n}\n\n// Open opens an OS file.\nfunc Open(name string) (File, error) {\n\tf, err := os.Open(name)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn f, nil\n}\n",
        ),
        ("mem.go", "package afero\n\n// MemFile is in memory.\ntype MemFile struct{}\n\n// Readdirnames lists nothing.\nfunc (MemFile) Readdirnames(n int) ([]string, error) { return nil, nil }\n\nvar _ File = MemFile{}\n"),
        (
            "consumer/go.mod",
            "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/afero v0.0.0\n\nreplace example.com/afero => ../\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/afero\"\n\nfunc main() {\n\tf, _ := afero.Open(\".\")\n\t_, _ = f.Readdirnames(1)\n}\n"),
    ]);
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "afero.go", "line": 7, "symbol": "Readdirnames", "new_name": "ReadDirNames", "preview": true}),
    );
    assert!(text.contains("WARNING: the renamed interface method is implemented outside the workspace by"), "{text}");
    // Said once (the afero recheck, where the consumer root was asked too, had it twice).
    assert_eq!(text.matches("WARNING: the renamed interface method is implemented outside").count(), 1, "{text}");
    assert!(text.contains("os/dir.go"), "{text}");
    // Ground truth: with the workspace's implementation renamed too, *os.File no longer is a File.
    for (file, from, to) in [("afero.go", "\tReaddirnames(", "\tReadDirNames("), ("mem.go", ") Readdirnames(", ") ReadDirNames(")] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap().replace(from, to);
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let build = support::go_offline(dir.path(), &["build", "./..."]);
    assert!(
        String::from_utf8_lossy(&build.stderr).contains("does not implement File (missing ReadDirNames method)"),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
}

/// Trial 110 M5 (spf13/afero with its dependencies under `_deps/`, wired by `replace`): each
/// dependency module was checked as a project root of its own ("INCOMPLETE", 37 warnings of
/// dependencies, 164 s).
#[test]
fn the_project_check_does_not_run_in_a_module_the_root_replaces_by_a_directory() {
    let test = "lsp_trial106::the_project_check_does_not_run_in_a_module_the_root_replaces_by_a_directory";
    if support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/afero\n\ngo 1.19\n\nrequire example.com/fs v0.0.0\n\nreplace example.com/fs => ./_deps/fs\n"),
        ("afero.go", "package afero\n\nimport \"example.com/fs\"\n\n// Name names it.\nfunc Name() string { return fs.Name() }\n"),
        ("_deps/fs/go.mod", "module example.com/fs\n\ngo 1.19\n"),
        ("_deps/fs/fs.go", "package fs\n\n// Name names it.\nfunc Name() string { return \"fs\" }\n"),
        ("_deps/fs/fs_test.go", "package fs\n\nimport \"fmt\"\n\nfunc helper() { fmt.Printf(\"%d\", \"x\") }\n"),
    ]);
    // Ground truth: the root builds; the dependency's own vet finds its test's printf misuse.
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
    assert!(!support::go_offline(&dir.path().join("_deps/fs"), &["vet", "./..."]).status.success());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "*"}));
    assert!(text.starts_with("project check: 0 errors, 0 warnings"), "{text}");
    assert!(!text.contains("in _deps/fs ("), "{text}");
    assert!(text.contains("_deps/fs/ has no run of its own: 1 Go module that the workspace root replaces by a directory"), "{text}");
}

/// Trial 111 M1 (spf13/cobra with its dependencies under `_deps/`): renaming `Command.Use` put a
/// golden-file WARNING at the top naming blackfriday's Markdown testdata under `_deps/` — another
/// project's files — beside the root's own.
#[test]
fn a_renames_test_data_warning_leaves_out_the_modules_nested_below() {
    let test = "lsp_trial106::a_renames_test_data_warning_leaves_out_the_modules_nested_below";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/cobra\n\ngo 1.19\n"),
        ("command.go", "package cobra\n\n// Command is a command.\ntype Command struct {\n\tUse string\n}\n\n// Line is the use line.\nfunc (c *Command) Line() string { return c.Use }\n"),
        ("testdata/help.golden", "Use the command like this\n"),
        ("_deps/md/go.mod", "module example.com/md\n\ngo 1.19\n"),
        ("_deps/md/md.go", "package md\n"),
        ("_deps/md/testdata/emphasis.text", "Use two asterisks for bold\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "command.go", "line": 5, "symbol": "Use", "new_name": "Usage", "preview": true}),
    );
    assert!(text.contains("testdata/help.golden"), "the root's own test data is not named:\n{text}");
    assert!(!text.contains("_deps/md/testdata"), "another module's test data is named:\n{text}");
}

/// Trial 110 M4 (spf13/afero): gopls's refusal of `implementation` at an embedded field ("not a
/// type name or method") came with "retry in a few seconds", though a ready server gives the
/// same answer again.
#[test]
fn a_ready_servers_refusal_is_not_called_transient() {
    let test = "lsp_trial106::a_ready_servers_refusal_is_not_called_transient";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/afero\n\ngo 1.19\n"),
        ("fs.go", "package afero\n\n// Fs is a file system.\ntype Fs interface {\n\tName() string\n}\n\n// Afero wraps one.\ntype Afero struct {\n\tFs\n}\n"),
    ]);
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    let result = run.call(runbound::Caller::Main, "lsp", json!({"op": "implementation", "file": "fs.go", "line": 10, "symbol": "Fs"}));
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(text.contains("not a type name or method"), "{text}");
    assert!(!text.contains("retry in a few seconds"), "{text}");
    assert!(text.contains("gopls was ready and refused this request at this position: asking again gives the same answer"), "{text}");
}
