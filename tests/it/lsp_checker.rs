//! The project checker (`lsp` `diagnostics` with `file: "*"`) against the real checkers on the
//! fixture projects under `tests/data/lsp_checker/`: `cargo check` (Rust), `pyright` (Python),
//! `tsc` (TypeScript), `go vet` + `go build` (+ a compile-only `go test` of the packages whose
//! type errors stopped `go vet`) (Go) and `clangd-19 --check` (C; clang-tidy is not
//! installed by `.ci/install`). Each test compares the exact records (path, 1-based line,
//! severity, code, message, source) in their order (errors first), and the page ("showing A–B of
//! N"), a tiny timeout (an honest timeout message, the checker killed) and a missing checker
//! (`dart`: no SDK installs here → "looked for dart") are checked too.
//!
//! A missing checker skips loudly locally and fails under `CI` (see `support::require_binary`).

use crate::support;

use std::path::Path;
use std::time::Duration;

use runbound::lsp::LspConfig;
use runbound::{Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

fn checker_run(workspace: &Path, configure: impl FnOnce(&mut LspConfig)) -> Run {
    let mut config = RunConfig::default();
    configure(&mut config.lsp);
    Run::builder(workspace).config(config).language_servers().build().expect("build run")
}

fn project_check(run: &Run) -> ToolResult {
    run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "*"}))
}

/// Calls `*` and expects success; returns the text and the structured content.
fn check_ok(run: &Run) -> (String, Value) {
    let result = project_check(run);
    let text = result.joined_text();
    assert!(!result.is_error, "expected success, got:\n{text}");
    (text, result.structured_content.expect("structured content"))
}

/// The records of a structured answer as (path, line, severity, code, message, source).
fn records(structured: &Value) -> Vec<ExpectedRow> {
    structured["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
                r["severity"].as_str().unwrap().to_owned(),
                r["code"].as_str().map(str::to_owned),
                r["message"].as_str().unwrap().to_owned(),
                r["source"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// One listed diagnostic: path, line, severity, code, message, source.
type ExpectedRow = (String, u64, String, Option<String>, String, String);

/// [`ExpectedRow`] as the tests write it.
type ExpectedRowText<'a> = (&'a str, u64, &'a str, Option<&'a str>, &'a str, &'a str);

fn expected(rows: &[ExpectedRowText]) -> Vec<ExpectedRow> {
    rows.iter()
        .map(|(path, line, severity, code, message, source)| {
            ((*path).to_owned(), *line, (*severity).to_owned(), code.map(str::to_owned), (*message).to_owned(), (*source).to_owned())
        })
        .collect()
}

#[test]
fn cargo_check_reports_workspace_errors_first_with_workspace_relative_paths() {
    if support::require_binary("cargo_check_reports_workspace_errors_first_with_workspace_relative_paths", "cargo").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/rust");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert_eq!(
        records(&structured),
        expected(&[
            ("broken/src/lib.rs", 4, "error", Some("E0308"), "mismatched types", "rustc"),
            ("broken/src/lib.rs", 8, "error", Some("E0308"), "mismatched types", "rustc"),
            ("helper/src/lib.rs", 4, "warning", Some("unused_variables"), "unused variable: `unused`", "rustc"),
        ]),
        "{text}"
    );
    assert!(text.starts_with("project check: 2 errors, 1 warning, 0 other\n"), "{text}");
    // In rust-analyzer's target directory (`cargo.targetDir: true`), which `$CARGO_TARGET_DIR`
    // moves as it moves rust-analyzer's.
    let target_dir = match std::env::var("CARGO_TARGET_DIR") {
        Ok(dir) if !dir.is_empty() => format!("{}/rust-analyzer", dir.trim_end_matches('/')),
        _ => "target/rust-analyzer".to_owned(),
    };
    assert!(
        text.contains(&format!(
            "ran `cargo check --all-targets --keep-going --message-format=json --quiet --target-dir {target_dir}` in . ("
        )),
        "{text}"
    );
    // The library and its test target compile the same file: each finding once, counted once.
    assert!(text.contains("): 3 diagnostics (+3 repeated by another target or step, listed once)"), "{text}");
    // With the cargo target whose builds reported it (trial155 M2).
    assert!(
        text.contains("broken/src/lib.rs:4: error[E0308] mismatched types (rustc; in lib `broken` — lib and lib test builds)"),
        "{text}"
    );
    // cargo check compiles no doc-test: said per package (trial62 M3).
    assert!(
        text.contains("NOT checked: the doc-tests of crate helper (about 1 in 1 file, by a scan of doc comments), which cargo check does not compile: run `cargo test --doc -p helper` to check them"),
        "{text}"
    );
    assert_eq!(structured["complete"], true);
}

/// A `docs/requirements.txt` (the docs build's pins, no Python sources) is no second Python
/// project, and an `examples/` folder with its own `requirements.txt` and `.py` files is covered
/// by the project's run: one pyright run over the project, each finding once (observed on
/// humanize 4.9.0: pyright ran twice, 42 s, because `docs/` sorts before `pyproject.toml`).
#[test]
fn a_python_marker_in_a_subfolder_starts_no_second_pyright_run() {
    if support::require_binary("a_python_marker_in_a_subfolder_starts_no_second_pyright_run", "pyright").is_none() {
        return;
    }
    let workspace = tempfile::tempdir().expect("temp dir");
    let root = workspace.path();
    let write = |relative: &str, text: &str| {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("pyproject.toml", "[project]\nname = \"shop\"\nversion = \"1.0\"\n");
    write("shop/__init__.py", "");
    write("shop/prices.py", "def total(values: list[int]) -> int:\n    return sum(values)\n\n\ncount: int = \"three\"\n");
    write("docs/requirements.txt", "sphinx==7.2.6\n");
    write("docs/index.md", "# shop\n");
    write("examples/requirements.txt", "requests\n");
    write("examples/demo.py", "from shop.prices import total\n\nanswer: str = total([1, 2])\n");
    let run = checker_run(root, |_| ());
    let (text, structured) = check_ok(&run);
    let runs = structured["runs"].as_array().expect("runs");
    let pyright_roots: Vec<&str> = runs
        .iter()
        .filter(|run| run["command"].as_str().unwrap_or("").contains("pyright"))
        .map(|run| run["root"].as_str().unwrap())
        .collect();
    assert_eq!(pyright_roots, vec!["."], "one pyright run over the project root:\n{text}");
    let found: Vec<(String, u64)> = records(&structured).into_iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(found, vec![("examples/demo.py".to_owned(), 3), ("shop/prices.py".to_owned(), 5)], "each error once:\n{text}");
    assert_eq!(structured["not_python_projects"], json!(["docs"]), "{text}");
    assert_eq!(structured["python_roots_covered_by_outer_run"], json!(["examples"]), "{text}");
    assert!(text.contains("docs has a Python root marker but no .py/.pyi files"), "{text}");
}

/// The Python files that pyright's configured `include`/`exclude` leave out are said, counted
/// and listed (text and structured), with the next step — never a silent "0 errors" over a
/// project whose tests pyright never looked at (itsdangerous 2.2.0: `include =
/// ["src/itsdangerous"]`, `"*"` said "0 errors" while tests/ held 3). `pyrightconfig.json` wins
/// over `pyproject.toml`; without a restricting configuration nothing is said.
#[test]
fn pyright_project_check_names_the_python_files_outside_its_configured_include_and_exclude() {
    let test = "pyright_project_check_names_the_python_files_outside_its_configured_include_and_exclude";
    if support::require_binary(test, "pyright").is_none() || support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let error_line = "count: int = \"three\"\n";
    let project = |pyproject: &str, extra: &[(&str, &str)]| {
        let mut files: Vec<(&str, &str)> =
            vec![("pyproject.toml", pyproject), ("src/pkg/__init__.py", ""), ("src/pkg/a.py", error_line), ("tests/test_x.py", error_line)];
        files.extend_from_slice(extra);
        support::workspace_with(&files)
    };
    let paths = |structured: &Value| -> Vec<String> { records(structured).into_iter().map(|r| format!("{}:{}", r.0, r.1)).collect() };

    // `[tool.pyright] include`: tests/ and docs/ are outside it.
    let dir = project(
        "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[tool.pyright]\ninclude = [\"src/pkg\"]\n",
        &[("docs/requirements.txt", "sphinx\n"), ("docs/conf.py", "project = \"pkg\"\n")],
    );
    let run = checker_run(dir.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert_eq!(paths(&structured), vec!["src/pkg/a.py:1"], "only the included file's error is pyright's:\n{text}");
    assert!(
        text.starts_with("project check: 1 error, 0 warnings, 0 other — NOT checked: 2 Python files outside pyright's configured include/exclude (pyproject.toml [tool.pyright]); their errors are not counted, see below"),
        "the headline must say what was not checked:\n{text}"
    );
    assert!(
        text.contains("NOT checked: 2 Python files under . are outside pyright's configured include/exclude (pyproject.toml [tool.pyright]: include = src/pkg): docs/conf.py, tests/test_x.py — pyright did not check them")
            && text.contains("ask `lsp diagnostics` with `file` set to one of them to check it"),
        "the run must list them with the next step:\n{text}"
    );
    assert!(text.contains("docs (a Python root marker inside .) is covered by the run in .: no second run (pyright reads the same configuration there, and its Python files outside that configuration's include/exclude are NOT checked"), "{text}");
    let pyright_run = &structured["runs"][0];
    assert_eq!(pyright_run["python_scope"], json!("pyproject.toml [tool.pyright]: include = src/pkg"), "{text}");
    assert_eq!(pyright_run["python_files_not_checked_total"], json!(2), "{text}");
    assert_eq!(pyright_run["python_files_not_checked"], json!(["docs/conf.py", "tests/test_x.py"]), "{text}");
    // The next step the answer names finds the error pyright's project run never saw.
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "tests/test_x.py"}));
    let file_text = result.joined_text();
    assert!(!result.is_error && file_text.contains("tests/test_x.py:1: error"), "{file_text}");

    // pyrightconfig.json wins over pyproject.toml: its `exclude` leaves tests/ out, and the
    // pyproject's include (which would have left tests/ in) is not read.
    let dir = project(
        "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[tool.pyright]\ninclude = [\"src\", \"tests\"]\n",
        &[
            ("pyrightconfig.json", "{\"exclude\": [\"tests\"], \"ignore\": [\"src/pkg/generated.py\"]}\n"),
            ("src/pkg/generated.py", error_line),
        ],
    );
    let (text, structured) = check_ok(&checker_run(dir.path(), |_| ()));
    assert_eq!(paths(&structured), vec!["src/pkg/a.py:1"], "pyright reports nothing for the ignored file:\n{text}");
    assert!(
        text.contains("NOT checked: 1 Python file under . is outside pyright's configured include/exclude (pyrightconfig.json: exclude = tests; ignore = src/pkg/generated.py): tests/test_x.py — pyright did not check it and its errors are not in the counts above"),
        "{text}"
    );
    assert!(
        text.contains("diagnostics suppressed: 1 Python file under . is in pyright's `ignore` (pyrightconfig.json: exclude = tests; ignore = src/pkg/generated.py): src/pkg/generated.py — pyright checks it but reports nothing for it"),
        "{text}"
    );
    assert_eq!(structured["runs"][0]["python_files_not_checked"], json!(["tests/test_x.py"]), "{text}");
    assert_eq!(structured["runs"][0]["python_files_ignored"], json!(["src/pkg/generated.py"]), "{text}");

    // No include/exclude: pyright checks both files, and no line says otherwise.
    let dir = project("[project]\nname = \"pkg\"\nversion = \"0\"\n", &[]);
    let (text, structured) = check_ok(&checker_run(dir.path(), |_| ()));
    assert_eq!(paths(&structured), vec!["src/pkg/a.py:1", "tests/test_x.py:1"], "{text}");
    assert!(!text.contains("NOT checked") && !text.contains("include/exclude"), "{text}");
    assert_eq!(structured["runs"][0]["python_scope"], Value::Null, "{text}");
    assert_eq!(structured["runs"][0]["python_files_not_checked_total"], json!(0), "{text}");

    // A configuration pyright cannot parse: the answer says the scope is unknown, not nothing.
    let dir = project("[project]\nname = \"pkg\"\n\n[tool.pyright\ninclude = [\"src/pkg\"]\n", &[]);
    let result = project_check(&checker_run(dir.path(), |_| ()));
    let text = result.joined_text();
    assert!(
        text.contains("pyright's scope unknown: pyright's configuration pyproject.toml could not be read (not valid TOML"),
        "a broken configuration must be said:\n{text}"
    );
}

#[test]
fn pyright_reports_exact_records_and_the_cap_says_showing_n_of_m() {
    if support::require_binary("pyright_reports_exact_records_and_the_cap_says_showing_n_of_m", "pyright").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/python");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert_eq!(
        records(&structured),
        expected(&[
            ("main.py", 3, "error", Some("reportUndefinedVariable"), "\"missing_name\" is not defined", "pyright"),
            (
                "shapes.py",
                8,
                "error",
                Some("reportAssignmentType"),
                "Type \"Literal['not a number']\" is not assignable to declared type \"int\" \"Literal['not a number']\" is not assignable to \"int\"",
                "pyright"
            ),
            (
                "shapes.py",
                9,
                "error",
                Some("reportArgumentType"),
                "Argument of type \"Literal['wide']\" cannot be assigned to parameter \"width\" of type \"int\" in function \"area\" \"Literal['wide']\" is not assignable to \"int\"",
                "pyright"
            ),
            ("shapes.py", 10, "warning", Some("reportUnusedExpression"), "Expression value is unused", "pyright"),
        ]),
        "{text}"
    );
    assert!(text.starts_with("project check: 3 errors, 1 warning, 0 other\n"), "{text}");
    assert!(!text.contains("showing"), "{text}");

    // The cap keeps the errors (they sort first) and says what was left out.
    let capped = checker_run(workspace.path(), |lsp| lsp.checker_cap = 2);
    let (text, structured) = check_ok(&capped);
    let shown = records(&structured);
    assert_eq!(shown.iter().map(|r| (r.0.as_str(), r.1)).collect::<Vec<_>>(), vec![("main.py", 3), ("shapes.py", 8)], "{text}");
    assert_eq!((structured["total"].as_u64(), structured["shown"].as_u64()), (Some(4), Some(2)));
    assert!(text.contains("showing 1–2 of 4; next: offset=2"), "{text}");
    assert!(text.starts_with("project check: 3 errors, 1 warning"), "the counts cover all, not the shown: {text}");
}

#[test]
fn tsc_reports_exact_records() {
    if support::require_binary("tsc_reports_exact_records", "tsc").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/typescript");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert_eq!(
        records(&structured),
        expected(&[
            ("src/app.ts", 6, "error", Some("TS2322"), "Type 'string' is not assignable to type 'number'.", "typescript"),
            (
                "src/app.ts",
                7,
                "error",
                Some("TS2345"),
                "Argument of type 'string' is not assignable to parameter of type 'number'.",
                "typescript"
            ),
        ]),
        "{text}"
    );
    assert!(text.contains("ran `tsc --noEmit -p tsconfig.json --pretty false` in ."), "{text}");
}

/// go vet's analyzer findings are warnings; those of the analyzers `go test` runs before the
/// tests (printf here, not unreachable) are also said to make `go test` refuse to build, from a
/// second `go vet` with only those analyzers over the packages with findings (trial44 M7: "0
/// errors, 1 warning" while `go test` failed to build). Ground truth: `go test` of the root
/// package fails on the printf finding, and lib's `go test` builds with its unreachable code.
#[test]
fn go_vet_and_go_build_report_once_each_with_vet_findings_as_warnings() {
    if support::require_binary("go_vet_and_go_build_report_once_each_with_vet_findings_as_warnings", "go").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/go");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    // The type error is printed by `go vet`, `go build` and the compile-only `go test` of the
    // package vet stopped in: listed once, naming all three.
    assert_eq!(
        records(&structured),
        expected(&[
            (
                "bad/bad.go",
                3,
                "error",
                None,
                "cannot use \"seven\" (untyped string constant) as int value in variable declaration",
                "go vet, go build, go test (compile only)"
            ),
            ("lib/lib.go", 6, "warning", None, "unreachable code", "go vet"),
            ("main.go", 7, "warning", None, "fmt.Printf format %d has arg name of wrong type string", "go vet"),
        ]),
        "{text}"
    );
    // bad/ stopped go vet at a type error: its test variant is compiled (it has no tests); the
    // packages with findings get the second go vet.
    assert!(
        text.contains("ran `go vet ./... && go build -buildvcs=false -gcflags=-e -o /dev/null ./... && go list -e -f <packages, files, imports> ./... && go vet -atomic -bool "),
        "{text}"
    );
    assert!(
        text.contains(" -printf ")
            && text.contains(" . ./lib && go test -gcflags=-e -vet=off -count=1 -run=^$ -exec=/bin/true example.com/checker/bad` in ."),
        "{text}"
    );
    assert_eq!(
        structured["runs"][0]["go_test_vet_findings"],
        json!(["main.go:7: warning fmt.Printf format %d has arg name of wrong type string (go vet)"]),
        "{text}"
    );
    assert!(
        text.contains(" — go test will refuse to build: 1 warning of the go vet checks `go test` runs before the tests (atomic, bool, "),
        "{text}"
    );
    assert!(text.contains("\n    go test refuses to build on: main.go:7: warning fmt.Printf format %d"), "{text}");
    assert!(!text.contains("go test refuses to build on: lib/lib.go"), "{text}");
    // Ground truth: go test refuses to build the root package and builds lib.
    let go_test = |package: &str| {
        std::process::Command::new("go").args(["test", "-count=1", package]).current_dir(workspace.path()).output().expect("go test")
    };
    let root = go_test(".");
    assert!(!root.status.success() && String::from_utf8_lossy(&root.stderr).contains("main.go:7:2: fmt.Printf format %d"), "{root:?}");
    assert!(go_test("./lib").status.success());
}

/// trial51 F1: a package whose own code compiles but whose test variant does not (a parameter
/// added to a test helper, go-humanize's `testList.validate`): go vet prints the compiler's
/// errors under a `# path [path.test]` header, at most 10. They are errors, all of them are
/// counted (the compile-only `go test`), and the packages importing the package are not called
/// "never compiled". Ground truth: `go test -gcflags=-e` of the package.
#[test]
fn go_test_variant_compile_errors_are_errors_and_all_counted() {
    if support::require_binary("go_test_variant_compile_errors_are_errors_and_all_counted", "go").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("go.mod", "module example.com/helpers\n\ngo 1.19\n"),
        ("lib.go", "package helpers\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n"),
        ("helper_test.go", "package helpers\n\nimport \"testing\"\n\ntype testList []int\n\nfunc (tl testList) validate(t *testing.T, strict bool) {}\n"),
        ("calls_test.go", "package helpers\n\nimport \"testing\"\n\nfunc TestAll(t *testing.T) {\n    testList{0}.validate(t)\n    testList{1}.validate(t)\n    testList{2}.validate(t)\n    testList{3}.validate(t)\n    testList{4}.validate(t)\n    testList{5}.validate(t)\n    testList{6}.validate(t)\n    testList{7}.validate(t)\n    testList{8}.validate(t)\n    testList{9}.validate(t)\n    testList{10}.validate(t)\n    testList{11}.validate(t)\n}\n"),
        ("sub/sub.go", "package sub\n\nimport \"example.com/helpers\"\n\n// Quad quadruples.\nfunc Quad(x int) int { return helpers.Double(helpers.Double(x)) }\n"),
    ]);
    let output = std::process::Command::new("go")
        .args(["test", "-gcflags=-e", "-count=1", "-run=^$", "."])
        .current_dir(workspace.path())
        .output()
        .expect("go test");
    let truth = String::from_utf8_lossy(&output.stdout)
        .lines()
        .chain(String::from_utf8_lossy(&output.stderr).lines())
        .filter(|line| line.contains("not enough arguments"))
        .count();
    assert_eq!(truth, 12, "{output:?}");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert!(text.starts_with("project check: 12 errors, 0 warnings, 0 other"), "{text}");
    let rows = records(&structured);
    assert_eq!(rows.len(), 12, "{text}");
    assert!(rows.iter().all(|row| row.0 == "calls_test.go" && row.2 == "error"), "{text}");
    assert!(!text.contains("never compiled"), "sub compiles: {text}");
}

/// One type error that go vet (go/types) and go build (types2) word differently is one error
/// (google/btree 1.0.0: "2 errors" for the compiler's 1, trial56 F2). Ground truth: the compiler's
/// own count from a compile-only `go test -gcflags=-e`.
#[test]
fn one_go_error_worded_two_ways_by_vet_and_build_is_counted_once() {
    if support::require_binary("one_go_error_worded_two_ways_by_vet_and_build_is_counted_once", "go").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("go.mod", "module example.com/trees\n\ngo 1.19\n"),
        ("tree.go", "package trees\n\n// NewWithDegree makes a tree.\nfunc NewWithDegree(degree int) int { return degree }\n\n// New makes a tree.\nfunc New(degree int) int {\n\treturn NewWithDegree(uint(degree))\n}\n"),
    ]);
    let output = std::process::Command::new("go")
        .args(["test", "-gcflags=-e", "-count=1", "-run=^$", "."])
        .current_dir(workspace.path())
        .output()
        .expect("go test");
    let truth = String::from_utf8_lossy(&output.stderr)
        .lines()
        .chain(String::from_utf8_lossy(&output.stdout).lines())
        .filter(|line| line.contains("tree.go:8:"))
        .count();
    assert_eq!(truth, 1, "{output:?}");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert!(text.starts_with("project check: 1 error, 0 warnings, 0 other"), "{text}");
    let rows = records(&structured);
    assert_eq!(rows.len(), 1, "{text}");
    assert!(rows[0].5.contains("go vet") && rows[0].5.contains("go build"), "both steps are named: {text}");
}

/// A `main` package in a git checkout: `go build` would stamp it with its VCS status by running
/// git, which the file-access confinement keeps from what it reads ("error obtaining VCS status",
/// trial27b M5: the check read INCOMPLETE). The check passes `-buildvcs=false` and is complete.
#[test]
fn go_build_of_a_main_package_in_a_git_checkout_is_complete_under_confinement() {
    let test = "go_build_of_a_main_package_in_a_git_checkout_is_complete_under_confinement";
    if support::require_binary(test, "go").is_none() || support::require_binary(test, "git").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/go");
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(workspace.path())
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "fixture"]);
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert!(!text.contains("VCS status") && !text.contains("INCOMPLETE"), "{text}");
    let files: Vec<String> = records(&structured).into_iter().map(|record| record.0).collect();
    assert!(files.iter().any(|file| file == "bad/bad.go") && files.iter().any(|file| file == "main.go"), "{text}");
}

#[test]
fn clangd_check_fallback_reports_errors_of_every_source_file() {
    if support::require_binary("clangd_check_fallback_reports_errors_of_every_source_file", "clangd-19").is_none() {
        return;
    }
    if which::which("clang-tidy").is_ok() || which::which("clang-tidy-19").is_ok() {
        support::skip_or_fail(
            "clangd_check_fallback_reports_errors_of_every_source_file",
            "clang-tidy is installed, so the checker uses it instead of the clangd --check fallback",
        );
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/c");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert_eq!(
        records(&structured),
        expected(&[
            ("main.c", 4, "error", Some("undeclared_var_use"), "use of undeclared identifier 'missing_value'", "clangd"),
            (
                "main.c",
                5,
                "error",
                Some("typecheck_convert_incompatible"),
                "initializing 'int *' with an expression of incompatible type 'double'",
                "clangd"
            ),
            (
                "util.c",
                2,
                "error",
                Some("-Wimplicit-function-declaration"),
                "call to undeclared function 'undeclared_helper'; ISO C99 and later do not support implicit function declarations",
                "clangd"
            ),
        ]),
        "{text}"
    );
    assert!(text.contains("clangd-19 --log=error --check="), "{text}");
}

#[test]
fn a_tiny_timeout_kills_the_checker_and_says_so() {
    if support::require_binary("a_tiny_timeout_kills_the_checker_and_says_so", "cargo").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/rust");
    let run = checker_run(workspace.path(), |lsp| lsp.checker_timeout = Duration::from_millis(50));
    let result = project_check(&run);
    let text = result.joined_text();
    // Nothing came back before the timeout: an error, not "0 errors".
    assert!(result.is_error, "{text}");
    assert!(text.contains("the project checker could not run"), "{text}");
    assert!(text.contains("cargo timed out after") && text.contains("was killed; the list is incomplete"), "{text}");
    assert!(!text.contains("0 errors"), "{text}");
    // Other tests of this binary run checkers in parallel: look only at processes working in
    // this workspace.
    let root = std::fs::canonicalize(workspace.path()).unwrap();
    let in_workspace = || {
        support::descendant_pids()
            .into_iter()
            .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(&root)))
            .count()
    };
    assert!(support::wait_until(Duration::from_secs(5), || in_workspace() == 0), "the timed-out checker was left running");
}

#[test]
fn a_missing_checker_names_the_binary_looked_for() {
    if which::which("dart").is_ok() {
        support::skip_or_fail("a_missing_checker_names_the_binary_looked_for", "dart is installed here; this test needs it absent");
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/dart");
    let run = checker_run(workspace.path(), |_| ());
    let result = project_check(&run);
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(text.contains("missing checker: looked for dart on PATH and in node_modules/.bin, .venv/bin, venv/bin"), "{text}");
    assert!(text.contains("unavailable"), "{text}");
}

#[test]
fn one_missing_checker_beside_a_working_one_marks_the_answer_incomplete() {
    if which::which("dart").is_ok() {
        support::skip_or_fail(
            "one_missing_checker_beside_a_working_one_marks_the_answer_incomplete",
            "dart is installed here; this test needs it absent",
        );
        return;
    }
    if support::require_binary("one_missing_checker_beside_a_working_one_marks_the_answer_incomplete", "tsc").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker");
    // Every project of the fixture but these two goes (a fixture added later, go_chain, made
    // a third checker run when this listed what to remove).
    for entry in std::fs::read_dir(workspace.path()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() && !["typescript", "dart"].contains(&entry.file_name().to_str().unwrap()) {
            std::fs::remove_dir_all(entry.path()).unwrap();
        }
    }
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert!(text.starts_with("project check: 2 errors, 0 warnings, 0 other (INCOMPLETE: 1 of 2 checker runs had problems"), "{text}");
    assert!(text.contains("ran `dart` in dart (") && text.contains("PROBLEM: missing checker: looked for dart"), "{text}");
    assert_eq!(structured["complete"], false);
    assert_eq!(records(&structured).iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), vec!["typescript/src/app.ts"; 2]);
}

#[test]
fn a_workspace_without_project_markers_is_unavailable_with_the_markers_looked_for() {
    let workspace = support::workspace_with(&[("notes.txt", "x\n")]);
    let run = checker_run(workspace.path(), |_| ());
    let result = project_check(&run);
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(text.contains("no project checker applies") && text.contains("Cargo.toml") && text.contains("go.mod"), "{text}");
}

#[test]
fn go_packages_importing_a_failed_package_are_type_checked_by_gopls_and_constrained_files_are_named() {
    // issue 11 (trial22 F3, F5): `go vet`/`go build` compile nothing that imports a package
    // that failed, so c (a ← b ← c), c's tests and d's external tests were never type-checked
    // and "*" reported b's one error as the whole project's; a file excluded by build
    // constraints (a/a_appengine.go, an error under `-tags=appengine`) went unmentioned.
    let name = "go_packages_importing_a_failed_package_are_type_checked_by_gopls_and_constrained_files_are_named";
    if support::require_binary(name, "go").is_none() || support::require_binary(name, "gopls").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_checker/go_chain");
    let a = workspace.path().join("a/a.go");
    let source = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&a, source.replace("func Scale(x int) int { return x * 2 }", "func Scale(x, factor int) int { return x * factor }"))
        .unwrap();
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    let not_enough = "not enough arguments in call to a.Scale\n\thave (int)\n\twant (int, int)";
    let rows: Vec<(String, u64, String, String)> = records(&structured)
        .into_iter()
        .map(|(path, line, severity, _, message, source)| (path, line, severity, source + " | " + &message))
        .collect();
    let expected_rows: Vec<(String, u64, String, String)> = [
        ("b/b.go", 6, "go build, go vet"),
        ("c/c.go", 9, "gopls check"),
        ("c/c_test.go", 10, "gopls check"),
        ("d/d_test.go", 11, "gopls check"),
    ]
    .iter()
    .map(|(path, line, source)| {
        ((*path).to_owned(), *line, "error".to_owned(), format!("{source} | {}", not_enough.lines().next().unwrap()))
    })
    .collect();
    let first_lines: Vec<(String, u64, String, String)> = rows
        .iter()
        .map(|(path, line, severity, message)| {
            (path.clone(), *line, severity.clone(), message.split(" have (").next().unwrap_or("").to_owned())
        })
        .collect();
    assert_eq!(first_lines, expected_rows, "{text}");
    // The go command's tab-indented lines continue the message (trial77 M3).
    assert!(rows[0].3.ends_with("not enough arguments in call to a.Scale have (int) want (int, int)"), "{text}");
    assert!(text.starts_with("project check: 4 errors, 0 warnings, 0 other"), "{text}");
    // Which packages go never compiled, and that gopls check covered them.
    assert!(
        text.contains(
            "2 packages go never compiled (they import a package that failed to compile); `gopls check` type-checked their 3 files instead"
        ),
        "{text}"
    );
    assert!(text.contains("example.com/chain/c (2 files, imports failed example.com/chain/b)"), "{text}");
    assert!(text.contains("example.com/chain/d (tests) (1 file, imports failed example.com/chain/b)"), "{text}");
    let run_summary = &structured["runs"][0];
    assert_eq!(run_summary["go_packages_checked_by_gopls"], json!(true), "{run_summary}");
    // The constrained file: named in the headline with the command that compiles it.
    assert!(
        text.contains("NOT checked: 1 Go file is excluded by build constraints for the toolchain, GOOS/GOARCH and tags in force and was NOT compiled: a/a_appengine.go (appengine) — check with `go vet -tags=appengine ./a`"),
        "{text}"
    );
    assert_eq!(
        run_summary["go_files_excluded_by_build_constraints"],
        json!(["a/a_appengine.go (appengine): check with `go vet -tags=appengine ./a`"]),
        "{run_summary}"
    );
}

#[test]
fn go_packages_importing_a_failed_package_are_named_not_checked_when_gopls_is_missing() {
    // Without gopls the packages go never compiled cannot be checked: the headline names them
    // NOT checked (issue 11 (b)), never "1 error" alone.
    let name = "go_packages_importing_a_failed_package_are_named_not_checked_when_gopls_is_missing";
    let Some(go) = support::require_binary(name, "go") else { return };
    let workspace = support::copy_fixture("lsp_checker/go_chain");
    let a = workspace.path().join("a/a.go");
    let source = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&a, source.replace("func Scale(x int) int { return x * 2 }", "func Scale(x, factor int) int { return x * factor }"))
        .unwrap();
    // A search path holding go alone (the checker looks binaries up in it under restricted
    // trust; go runs no module code, so its steps run there too).
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(std::fs::canonicalize(&go).unwrap(), bin.path().join("go")).unwrap();
    let mut config = RunConfig::default();
    config.lsp.search_path = Some(bin.path().as_os_str().to_owned());
    let run = Run::builder(workspace.path())
        .config(config)
        .workspace_trust(runbound::WorkspaceTrust::Restricted)
        .language_servers()
        .build()
        .expect("build run");
    let result = project_check(&run);
    let text = result.joined_text();
    assert!(text.starts_with("project check: 1 error, 0 warnings, 0 other (INCOMPLETE"), "{text}");
    assert!(
        text.contains("NOT checked: 2 Go packages (example.com/chain/c, example.com/chain/d (tests)) import a package that failed to compile (example.com/chain/b), so go never compiled them and gopls check could not check them either"),
        "{text}"
    );
    assert!(text.contains("missing checker: looked for gopls"), "{text}");
    assert!(text.contains("NOT checked: 2 packages go never compiled"), "{text}");
    let structured = result.structured_content.expect("structured content");
    assert_eq!(structured["runs"][0]["go_packages_checked_by_gopls"], json!(false));
}

/// An external test package (`package xt_test`) with a type error: vet names it
/// `example.com/xt_test`, which is no import path; the compile-only `go test` compiles it with
/// `example.com/xt`, and the compiler's rewording of vet's error on that line is not a second
/// error (trial47 M5: "INCOMPLETE … go get github.com/spf13/pflag_test"). Ground truth: go vet.
#[test]
fn an_external_test_package_with_a_type_error_is_checked_complete_and_counted_once() {
    if support::require_binary("an_external_test_package_with_a_type_error_is_checked_complete_and_counted_once", "go").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("go.mod", "module example.com/xt\n\ngo 1.19\n"),
        ("xt.go", "package xt\n\n// One is one.\nfunc One() int { return 1 }\n"),
        ("xt_test.go", "package xt_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/xt\"\n)\n\nfunc TestOne(t *testing.T) {\n\tvar s string = xt.One()\n\t_ = s\n}\n"),
    ]);
    let vet = std::process::Command::new("go").args(["vet", "./..."]).current_dir(workspace.path()).output().expect("go vet");
    let vet_text = String::from_utf8_lossy(&vet.stderr);
    assert!(vet_text.contains("# example.com/xt_test") && vet_text.contains("xt_test.go:10:17"), "ground truth: {vet_text}");
    let run = checker_run(workspace.path(), |_| ());
    let (text, structured) = check_ok(&run);
    assert!(!text.contains("INCOMPLETE") && !text.contains("go get"), "{text}");
    assert!(text.contains("-exec=/bin/true example.com/xt` in ."), "{text}");
    let rows = records(&structured);
    assert_eq!(rows.len(), 1, "{text}");
    assert_eq!((rows[0].0.as_str(), rows[0].1, rows[0].2.as_str()), ("xt_test.go", 10, "error"), "{text}");
}
