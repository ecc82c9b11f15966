//! `lsp_rename` (R-REN-1) against real servers: renames across files with exact expected trees,
//! a target whose directory cannot be written (immutable, so even root fails) → nothing changed
//! anywhere, and a file changed between the edit and the apply → rejected.

use crate::support;

use std::path::Path;

use runbound::Caller;
use serde_json::json;

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

struct Case {
    test: &'static str,
    binary: &'static str,
    files: Vec<(&'static str, &'static str)>,
    file: &'static str,
    line: u32,
    symbol: &'static str,
    new_name: &'static str,
    expected: Vec<(&'static str, &'static str)>,
    immutable_dir: &'static str,
}

fn rename_case(case: &Case) {
    if support::require_binary(case.test, case.binary).is_none() {
        return;
    }
    let dir = support::workspace_with(&case.files);
    let run = support::lsp_run_allowing_writes(dir.path());
    // Let the server see every source file of the project first (tsserver loads on open).
    for (file, _) in &case.files {
        if file.ends_with(".ts") {
            let _ = run.call(Caller::Main, "lsp", json!({"op": "symbols", "file": file}));
        }
    }
    let args = json!({"file": case.file, "line": case.line, "symbol": case.symbol, "new_name": case.new_name});
    // An immutable directory holding one target: the commit fails, nothing changes anywhere.
    let locked = dir.path().join(case.immutable_dir);
    let status = std::process::Command::new("chattr").arg("+i").arg(&locked).status().expect("chattr");
    assert!(status.success());
    let result = run.call(Caller::Main, "lsp_rename", args.clone());
    std::process::Command::new("chattr").arg("-i").arg(&locked).status().expect("chattr");
    assert!(result.is_error, "rename into an immutable dir succeeded:\n{}", result.joined_text());
    for (file, content) in &case.files {
        assert_eq!(&read(dir.path(), file), content, "{file} changed after a failed rename:\n{}", result.joined_text());
    }
    let result = run.call(Caller::Main, "lsp_rename", args);
    let text = result.joined_text();
    assert!(!result.is_error, "rename failed:\n{text}");
    assert!(text.contains("Diagnostics after the write:"), "{text}");
    for (file, content) in &case.expected {
        assert_eq!(&read(dir.path(), file), content, "{file} after rename:\n{text}");
    }
}

#[test]
fn python_rename_across_files() {
    rename_case(&Case {
        test: "python_rename_across_files",
        binary: "pyright-langserver",
        files: vec![
            ("pyproject.toml", "[project]\nname = \"r\"\nversion = \"0.1.0\"\n"),
            ("lib/shapes.py", "def area(side: float) -> float:\n    return side * side\n"),
            ("app.py", "from lib.shapes import area\n\nprint(area(2.0) + area(3.0))\n"),
            ("lib/__init__.py", ""),
        ],
        file: "app.py",
        line: 3,
        symbol: "area(2.0)",
        new_name: "square_area",
        expected: vec![
            ("lib/shapes.py", "def square_area(side: float) -> float:\n    return side * side\n"),
            ("app.py", "from lib.shapes import square_area\n\nprint(square_area(2.0) + square_area(3.0))\n"),
        ],
        immutable_dir: "lib",
    });
}

#[test]
fn typescript_rename_across_files() {
    rename_case(&Case {
        test: "typescript_rename_across_files",
        binary: "typescript-language-server",
        files: vec![
            ("package.json", "{\"name\": \"r\", \"version\": \"1.0.0\"}\n"),
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
            ("src/lib/shapes.ts", "export function area(side: number): number {\n  return side * side;\n}\n"),
            ("src/app.ts", "import { area } from \"./lib/shapes\";\n\nconsole.log(area(2) + area(3));\n"),
        ],
        // At the declaration: from an import site tsserver renames only the local binding
        // (`area as squareArea`).
        file: "src/lib/shapes.ts",
        line: 1,
        symbol: "area",
        new_name: "squareArea",
        expected: vec![
            ("src/lib/shapes.ts", "export function squareArea(side: number): number {\n  return side * side;\n}\n"),
            ("src/app.ts", "import { squareArea } from \"./lib/shapes\";\n\nconsole.log(squareArea(2) + squareArea(3));\n"),
        ],
        immutable_dir: "src/lib",
    });
}

#[test]
fn go_rename_across_files() {
    rename_case(&Case {
        test: "go_rename_across_files",
        binary: "gopls",
        files: vec![
            ("go.mod", "module example.com/r\n\ngo 1.19\n"),
            ("shapes/shapes.go", "package shapes\n\nfunc Area(side int) int {\n\treturn side * side\n}\n"),
            ("main.go", "package main\n\nimport \"example.com/r/shapes\"\n\nfunc main() {\n\tprintln(shapes.Area(2) + shapes.Area(3))\n}\n"),
        ],
        file: "main.go",
        line: 6,
        symbol: "Area(2)",
        new_name: "SquareArea",
        expected: vec![
            ("shapes/shapes.go", "package shapes\n\nfunc SquareArea(side int) int {\n\treturn side * side\n}\n"),
            ("main.go", "package main\n\nimport \"example.com/r/shapes\"\n\nfunc main() {\n\tprintln(shapes.SquareArea(2) + shapes.SquareArea(3))\n}\n"),
        ],
        immutable_dir: "shapes",
    });
}

#[test]
fn rust_rename_across_files() {
    rename_case(&Case {
        test: "rust_rename_across_files",
        binary: "rust-analyzer",
        files: vec![
            ("Cargo.toml", "[package]\nname = \"r\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
            ("src/lib.rs", "pub mod shapes;\n\npub fn total() -> i32 {\n    shapes::area(2) + shapes::area(3)\n}\n"),
            ("src/shapes.rs", "pub fn area(side: i32) -> i32 {\n    side * side\n}\n"),
        ],
        file: "src/lib.rs",
        line: 4,
        symbol: "shapes::area(2)",
        new_name: "square_area",
        expected: vec![
            ("src/lib.rs", "pub mod shapes;\n\npub fn total() -> i32 {\n    shapes::square_area(2) + shapes::square_area(3)\n}\n"),
            ("src/shapes.rs", "pub fn square_area(side: i32) -> i32 {\n    side * side\n}\n"),
        ],
        immutable_dir: "src",
    });
}

#[test]
fn unrenamed_comment_occurrences_are_listed_once_per_line_cut_around_the_name() {
    if support::require_binary("unrenamed_comment_occurrences_are_listed_once_per_line_cut_around_the_name", "typescript-language-server")
        .is_none()
    {
        return;
    }
    // The trial on reselect: `src/createSelectorCreator.ts:30: * @template MemoizeFunction - … the
    // `resultFu… [cut: showing 100 of 169 characters]` (the name cut off) and line 31 listed twice.
    let long = format!(
        " * @template MemoizeFunction - The type of the memoize function that is used to memoize the {}`resultFunc` inside `createSelector`. {}",
        "results of the selector's input functions and ",
        "It is called with the results of every input selector, in order, and what it returns is memoized."
    );
    let source = format!(
        "/**\n{long}\n * Both `resultFunc` and resultFunc are named here.\n */\nexport function resultFunc(x: number): number {{\n  return x;\n}}\n"
    );
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"r\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/create.ts", &source),
        ("src/app.ts", "import { resultFunc } from \"./create\";\n\nconsole.log(resultFunc(2));\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let _ = run.call(Caller::Main, "lsp", json!({"op": "symbols", "file": "src/app.ts"}));
    let result =
        run.call(Caller::Main, "lsp_rename", json!({"file": "src/create.ts", "line": 5, "symbol": "resultFunc", "new_name": "combiner"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let listed: Vec<&str> = text.lines().filter(|line| line.starts_with("    src/create.ts:")).collect();
    // One entry per line: 2 (the long JSDoc line) and 3 (the name twice).
    let line_numbers: Vec<&str> = listed.iter().map(|line| line.trim_start().split(": ").next().unwrap()).collect();
    assert_eq!(line_numbers, vec!["src/create.ts:2", "src/create.ts:3"], "{text}");
    // The long line is cut around the name, both ends marked, the name whole.
    let long_entry = listed[0];
    assert!(long_entry.contains("`resultFunc`"), "the name was cut off:\n{text}");
    assert!(long_entry.contains(": …") && long_entry.contains("… [cut: showing characters "), "both ends marked:\n{text}");
    assert!(long_entry.contains(&format!("of {}]", long.trim().chars().count())), "{text}");
    assert!(listed[1].contains("(2 occurrences on this line)"), "{text}");
}

/// itsdangerous 2.2.0 (trial19py M4): renaming `want_bytes` also renamed the explicit re-export
/// `from .encoding import want_bytes as want_bytes` in the package's `__init__.py`, so the public
/// `itsdangerous.want_bytes` vanished and nothing said so. The preview and the applied rename say
/// which public name changed (text and structured content); a rename of a name the package does
/// not publish says nothing of the kind.
#[test]
fn renaming_a_name_a_python_package_re_exports_says_its_public_name_changes() {
    if support::require_binary("renaming_a_name_a_python_package_re_exports_says_its_public_name_changes", "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"signing\"\nversion = \"0.1.0\"\n"),
        ("signing/__init__.py", "from .encoding import want_bytes as want_bytes\nfrom .encoding import base64_encode\n"),
        (
            "signing/encoding.py",
            "def want_bytes(s: str | bytes) -> bytes:\n    return s.encode() if isinstance(s, str) else s\n\n\ndef _pad(b: bytes) -> bytes:\n    return b\n\n\ndef base64_encode(s: str | bytes) -> bytes:\n    return _pad(want_bytes(s))\n",
        ),
        ("app.py", "from signing import want_bytes\n\nprint(want_bytes(\"x\"))\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let arguments = json!({"file": "signing/encoding.py", "line": 1, "symbol": "want_bytes", "new_name": "ensure_bytes", "preview": true});
    let preview = run.call(Caller::Main, "lsp_rename", arguments);
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    let said = "note: public name changed: signing/__init__.py:1 re-exports `want_bytes` (`from .encoding import want_bytes as want_bytes`), so this rename replaces `signing.want_bytes` with `signing.ensure_bytes`";
    assert!(text.contains(said), "{text}");
    assert!(text.contains("to keep it, also add `want_bytes = ensure_bytes` in signing/__init__.py"), "{text}");
    let structured = preview.structured_content.clone().unwrap();
    // The module's own path is public too (trial69 M2: `from itsdangerous.signer import
    // HMACAlgorithm` broke while only the re-export was named).
    assert_eq!(structured["public_name_changes"].as_array().map(Vec::len), Some(2), "{structured}");
    assert!(
        text.contains("note: public name changed: signing/encoding.py:1 defines `want_bytes` at module level in `signing.encoding`, a public module of its package"),
        "{text}"
    );
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    let discarded = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "discard"}));
    assert!(!discarded.is_error, "{}", discarded.joined_text());
    assert!(read(dir.path(), "signing/__init__.py").contains("want_bytes as want_bytes"), "a discarded preview changed nothing");

    let applied = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "signing/encoding.py", "line": 1, "symbol": "want_bytes", "new_name": "ensure_bytes"}),
    );
    let text = applied.joined_text();
    assert!(!applied.is_error, "{text}");
    assert!(text.contains(said), "{text}");
    assert_eq!(
        read(dir.path(), "signing/__init__.py"),
        "from .encoding import ensure_bytes as ensure_bytes\nfrom .encoding import base64_encode\n",
        "{text}"
    );

    // `_pad` is published by nothing: no such note.
    let private =
        run.call(Caller::Main, "lsp_rename", json!({"file": "signing/encoding.py", "line": 5, "symbol": "_pad", "new_name": "_padded"}));
    let text = private.joined_text();
    assert!(!private.is_error, "{text}");
    assert!(!text.contains("public name changed"), "{text}");
    assert_eq!(private.structured_content.unwrap()["public_name_changes"], json!([]));
}

/// Markdown 3.11.3 (trial21 F4): `lsp_rename` `parseChunk` → `parse_chunk` edited the line of a
/// pre-existing pyright error whose message names the method, and the report said "this write
/// introduced 1 new error" (and "resolved" it). An error already there whose message differs
/// only by a name the write replaced on its line is the same error: not new, not resolved, said
/// in a note and still counted among the errors already present — for a rename and for an
/// `edit` that replaced the name. A rename that really breaks something (onto an existing name,
/// whose error on the same line and rule says more than the new name) is still reported.
#[test]
fn an_existing_error_whose_message_names_the_renamed_function_is_not_new() {
    if support::require_binary("an_existing_error_whose_message_names_the_renamed_function_is_not_new", "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"renamed\"\nversion = \"0.1.0\"\n"),
        (
            "lib.py",
            "def scale(x: int) -> int:\n    return x\n\n\ndef double(x: int) -> int:\n    return 2 * x\n\n\ndef pack(x: bytes) -> bytes:\n    return x\n",
        ),
        ("app.py", "from lib import scale, double\n\nvalue = scale(\"text\")\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let not_new = |text: &str, old: &str, new: &str| {
        let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
        assert!(!block.contains("this write introduced") && !block.contains("new diagnostics introduced"), "{text}");
        assert!(!block.contains("resolved by this write") && block.contains("no new errors in app.py"), "{text}");
        let note = format!(
            "note: app.py:3: error[reportArgumentType] already present before this write, renamed in the message (`{old}` → `{new}`, as this write changed its line), not counted as new or resolved: now \"Argument of type \"Literal['text']\" cannot be assigned to parameter \"x\" of type \"int\" in function \"{new}\""
        );
        assert!(block.contains(&note), "{text}");
        assert!(block.contains("1 error already present before this write remains (not introduced by it): app.py (1)"), "{text}");
    };

    // An edit that replaced the called name on the error's line.
    let edited =
        run.call(Caller::Main, "edit", json!({"path": "app.py", "old_string": "scale(\"text\")", "new_string": "double(\"text\")"}));
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    not_new(&text, "scale", "double");

    // The rename of the called function (its definition, the import and the call).
    let renamed = run.call(Caller::Main, "lsp_rename", json!({"file": "lib.py", "line": 5, "symbol": "double", "new_name": "twice"}));
    let text = renamed.joined_text();
    assert!(!renamed.is_error, "{text}");
    assert_eq!(read(dir.path(), "app.py"), "from lib import scale, twice\n\nvalue = twice(\"text\")\n", "{text}");
    not_new(&text, "double", "twice");
    let files = renamed.structured_content.as_ref().unwrap()["diagnostics_on_write"]["servers"][0]["files"].clone();
    let app = files.as_array().unwrap().iter().find(|file| file["file"] == "app.py").unwrap_or_else(|| panic!("{files}"));
    assert_eq!(app["renamed_in_message"][0]["line"], 3, "{files}");
    assert_eq!(app["new"], json!([]), "{files}");

    // Renamed onto `pack`: the later `def pack(x: bytes)` wins, so the call's error now says
    // `bytes` as well as `pack` — a new error, the old one resolved; and `def twice` → a second
    // `def pack` is obscured (reportRedeclaration).
    // Staged first (trial176 M6: a def defined twice in one scope), then accepted as is.
    let broken = run.call(Caller::Main, "lsp_rename", json!({"file": "lib.py", "line": 5, "symbol": "twice", "new_name": "pack"}));
    let staged = broken.joined_text();
    assert!(!broken.is_error, "{staged}");
    assert!(staged.starts_with("NOT written: `pack` is already declared in the same scope as the renamed `twice` (lib.py:5;"), "{staged}");
    let edit_id =
        broken.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{staged}")).to_owned();
    let text = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let block = text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block:\n{text}"));
    assert!(block.starts_with("\nthis write introduced 2 new errors in 2 files"), "{text}");
    assert!(block.contains("app.py:3: error[reportArgumentType] Argument of type \"Literal['text']\" cannot be assigned to parameter \"x\" of type \"bytes\" in function \"pack\""), "{text}");
    assert!(block.contains("lib.py:5: error[reportRedeclaration]"), "{text}");
    assert!(block.contains("app.py: resolved by this write (1,"), "{text}");
    assert!(!block.contains("renamed in the message"), "{text}");
}

#[test]
fn go_rename_names_the_build_constraint_of_a_twin_definition_it_did_not_reach() {
    // trial22 M6: the twin of a renamed function in a file gopls does not build (`//go:build
    // appengine`) was listed as "(no definition)"; the reason is the build constraint, and the
    // tagged build breaks (ground truth: `go vet -tags=appengine ./conv` fails after the rename).
    let test = "go_rename_names_the_build_constraint_of_a_twin_definition_it_did_not_reach";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/r\n\ngo 1.19\n"),
        ("conv/fast.go", "//go:build !appengine\n\npackage conv\n\nfunc ToText(b []byte) string {\n\treturn string(b)\n}\n"),
        ("conv/safe.go", "//go:build appengine\n\npackage conv\n\nfunc ToText(b []byte) string {\n\treturn string(b)\n}\n"),
        ("conv/use.go", "package conv\n\nfunc Twice(b []byte) string {\n\treturn ToText(b) + ToText(b)\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(Caller::Main, "lsp_rename", json!({"file": "conv/fast.go", "line": 5, "symbol": "ToText", "new_name": "AsText"}));
    let text = result.joined_text();
    assert!(!result.is_error, "rename failed:\n{text}");
    assert_eq!(
        read(dir.path(), "conv/use.go"),
        "package conv\n\nfunc Twice(b []byte) string {\n\treturn AsText(b) + AsText(b)\n}\n",
        "{text}"
    );
    assert!(read(dir.path(), "conv/safe.go").contains("func ToText("), "{text}");
    assert!(
        text.contains("conv/safe.go:5: func ToText(b []byte) string {   (in a file gopls does not build: its build constraint `//go:build appengine` excludes it under the toolchain, GOOS/GOARCH and tags in force, so the rename did not reach it and that build now breaks if this is the renamed symbol — check with `go vet -tags=appengine ./conv`)"),
        "{text}"
    );
    assert!(!text.contains("(no definition)"), "{text}");
    // Ground truth: the suggested command fails on the old name in use.go.
    let vet = std::process::Command::new("go").args(["vet", "-tags=appengine", "./conv"]).current_dir(dir.path()).output().unwrap();
    assert!(!vet.status.success() && String::from_utf8_lossy(&vet.stderr).contains("AsText"), "{vet:?}");
}
