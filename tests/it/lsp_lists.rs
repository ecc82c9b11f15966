//! Long `lsp` lists an agent can page through, against real servers: file outlines in source
//! order as a tree with readable kinds, parameters and locals hidden, `kind` and `depth`
//! filters (pyright, typescript-language-server, rust-analyzer, gopls, clangd); `offset` paging
//! whose pages together are exactly the whole list, checked against `grep` (outlines,
//! references, workspace symbols, diagnostics, `"*"`); references with workspace code first and
//! dependency paths shortened (rust-analyzer into the Rust sysroot, typescript-language-server
//! into TypeScript's `node_modules`); workspace symbols on a cold run without `file`; hover text
//! with HTML entities decoded; an unsupported op naming the installed server that offers it;
//! and, with a fake peer that never answers `initialize` (a protocol edge case no real server
//! shows on demand), the start backoff.

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use runbound::lsp::LspConfig;
use runbound::{Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

fn lsp_run(workspace: &Path, configure: impl FnOnce(&mut LspConfig)) -> Run {
    let mut config = RunConfig::default();
    configure(&mut config.lsp);
    Run::builder(workspace).config(config).language_servers().build().expect("build run")
}

fn call(run: &Run, arguments: Value) -> ToolResult {
    run.call(Caller::Readonly, "lsp", arguments)
}

/// Calls and expects success; returns the text and the structured content.
fn ok(run: &Run, arguments: Value) -> (String, Value) {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "expected success for {arguments}, got:\n{text}");
    (text, result.structured_content.unwrap_or(Value::Null))
}

fn err(run: &Run, arguments: Value) -> String {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(result.is_error, "expected an error for {arguments}, got:\n{text}");
    text
}

/// Every page of a list, following `next: offset=B` until the last page; returns the results
/// of all pages and the texts. Checks the notice of each page against its structured page.
fn all_pages(run: &Run, arguments: Value) -> (Vec<Value>, Vec<String>) {
    let mut results = Vec::new();
    let mut texts = Vec::new();
    let mut offset = 0u64;
    loop {
        let mut page_arguments = arguments.clone();
        page_arguments["offset"] = json!(offset);
        let (text, structured) = ok(run, page_arguments);
        let page = &structured["page"];
        let shown = page["shown"].as_u64().unwrap();
        let total = page["total"].as_u64().unwrap();
        assert_eq!(structured["results"].as_array().unwrap().len() as u64, shown, "{text}");
        match page["next_offset"].as_u64() {
            Some(next) => {
                assert_eq!(next, offset + shown);
                assert!(text.contains(&format!("showing {}–{next} of {total}; next: offset={next}", offset + 1)), "{text}");
            }
            None if offset > 0 => {
                assert!(text.contains(&format!("showing {}–{total} of {total}", offset + 1)) && !text.contains("next: offset"), "{text}")
            }
            None => assert!(!text.contains("showing "), "a whole list has no page notice:\n{text}"),
        }
        results.extend(structured["results"].as_array().unwrap().iter().cloned());
        texts.push(text);
        match page["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
        assert!(texts.len() < 100, "too many pages");
    }
    (results, texts)
}

/// `grep` run in `dir`; returns its stdout lines (the independent ground truth).
fn grep(dir: &Path, args: &[&str]) -> Vec<String> {
    let output = std::process::Command::new("grep").args(args).current_dir(dir).output().expect("run grep");
    String::from_utf8(output.stdout).unwrap().lines().map(str::to_owned).collect()
}

/// A Python module of `functions` top-level functions and `classes` classes with two methods
/// each, named so that alphabetical order is not source order; each function has parameters and
/// locals.
fn big_python_module(functions: usize, classes: usize) -> String {
    let words = ["zulu", "alpha", "mike", "bravo", "yankee"];
    let mut text =
        String::from("\"\"\"A generated module.\"\"\"\nimport os\nfrom typing import TypeAlias\n\nNumber: TypeAlias = int\nLIMIT = 10\n\n");
    for index in 0..functions.max(classes) {
        let word = words[index % words.len()];
        if index < functions {
            text.push_str(&format!(
                "def {word}_function_{index}(alpha, beta):\n    local_a = alpha + beta\n    local_b = local_a * 2\n    return local_b + len(os.sep)\n\n"
            ));
        }
        if index < classes {
            text.push_str(&format!(
                "class {}Class{index}:\n    attribute = {index}\n\n    def method_one(self, value):\n        temporary = value\n        return temporary\n\n    def method_two(self):\n        return self.attribute\n\n",
                word.to_uppercase()
            ));
        }
    }
    text
}

#[test]
fn pyright_outline_is_a_source_order_tree_without_locals_and_pages_cover_it_exactly() {
    if support::require_binary("pyright_outline_is_a_source_order_tree_without_locals_and_pages_cover_it_exactly", "pyright-langserver")
        .is_none()
    {
        return;
    }
    let module = big_python_module(120, 40);
    let workspace = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"big\"\n"), ("pkg/big.py", &module)]);
    let run = lsp_run(workspace.path(), |config| {
        config.document_symbols_cap = 45;
        config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    });
    let file = "pkg/big.py";
    // Ground truth: every def and class line, in file order, and the top-level ones.
    let definitions = grep(&workspace.path().join("pkg"), &["-n", "-E", r"^\s*(def|class) ", "big.py"]);
    let top_level = grep(&workspace.path().join("pkg"), &["-n", "-E", r"^(def|class) ", "big.py"]);
    assert_eq!((definitions.len(), top_level.len()), (120 + 40 * 3, 160));
    let name_of = |grep_line: &str| -> (u64, String) {
        let (line, text) = grep_line.split_once(':').unwrap();
        let name = text.split_whitespace().nth(1).unwrap().split(['(', ':']).next().unwrap().to_owned();
        (line.parse().unwrap(), name)
    };

    // The default outline, page by page: exactly the def/class lines (plus class attributes and
    // module constants), in source order, with no parameter or local.
    let (entries, texts) = all_pages(&run, json!({"op": "symbols", "file": file}));
    let defined: Vec<(u64, String)> = entries
        .iter()
        .filter(|entry| matches!(entry["kind"].as_str(), Some("function" | "method" | "class")))
        .map(|entry| (entry["line"].as_u64().unwrap(), entry["name"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(defined, definitions.iter().map(|line| name_of(line)).collect::<Vec<_>>(), "pages ≠ grep of def/class lines");
    let lines: Vec<u64> = entries.iter().map(|entry| entry["line"].as_u64().unwrap()).collect();
    assert!(lines.windows(2).all(|pair| pair[0] <= pair[1]), "source order: {lines:?}");
    assert!(entries
        .iter()
        .all(|entry| !["alpha", "beta", "local_a", "local_b", "value", "temporary", "self"].contains(&entry["name"].as_str().unwrap())));
    let attributes = entries.iter().filter(|entry| entry["kind"] == "field" && entry["name"] == "attribute").count();
    assert_eq!(attributes, 40, "class attributes are members, listed");
    assert_eq!(entries.len(), definitions.len() + attributes + 2, "def/class lines + attributes + Number + LIMIT");
    assert_eq!(texts.len(), entries.len().div_ceil(45));
    let first = &texts[0];
    assert!(first.starts_with(&format!("pyright outline of pkg/big.py: {} symbols in source order", entries.len())), "{first}");
    assert!(first.contains("5: type alias Number") && first.contains("6: constant LIMIT"), "{first}");
    assert!(first.contains("not listed: 560 parameters and locals (pass \"locals\": true)"), "hidden entries are counted:\n{first}");
    assert!(first.contains("(fewer levels: \"depth\": 1 → 162)"), "{first}");
    // A page that starts inside a class names the class first.
    let continued = texts.iter().skip(1).find(|text| text.contains("(continued)"));
    assert!(
        continued.is_some_and(|text| text.lines().nth(1).is_some_and(|line| line.contains(": class ") && line.ends_with("(continued)"))),
        "{texts:?}"
    );
    let class_members: Vec<&Value> = entries.iter().filter(|entry| entry["container"] == "ALPHAClass1").collect();
    assert_eq!(
        class_members.iter().map(|entry| entry["name"].as_str().unwrap()).collect::<Vec<_>>(),
        ["attribute", "method_one", "method_two"]
    );
    assert!(class_members.iter().all(|entry| entry["depth"] == 2));

    // depth 1 + kind filter: exactly `grep '^(def|class) '`.
    let (top, _) = all_pages(&run, json!({"op": "symbols", "file": file, "depth": 1, "kind": ["class", "function"]}));
    let top: Vec<(u64, String)> =
        top.iter().map(|entry| (entry["line"].as_u64().unwrap(), entry["name"].as_str().unwrap().to_owned())).collect();
    assert_eq!(top, top_level.iter().map(|line| name_of(line)).collect::<Vec<_>>());
    // A kind filter alone shows members with their enclosing symbol named.
    let (text, structured) = ok(&run, json!({"op": "symbols", "file": file, "kind": ["method"]}));
    assert_eq!(structured["total"], json!(80), "{text}");
    assert!(text.contains(": method method_one (in ZULUClass0)"), "{text}");
    assert!(text.contains("not listed:") && text.contains("of other kinds"), "{text}");
    // `locals: true` lists them (parameters and locals of 120 functions and 80 methods).
    let (with_locals, _) = all_pages(&run, json!({"op": "symbols", "file": file, "locals": true}));
    let locals = with_locals.iter().filter(|entry| entry["hidden"] == "local").count();
    assert_eq!(
        locals,
        120 * 4 + 40 * 2,
        "alpha, beta, local_a, local_b per function; value, temporary per class (pyright does not list `self`)"
    );
    // Unknown kinds and offsets past the end are errors that say what is valid.
    let text = err(&run, json!({"op": "symbols", "file": file, "kind": ["klass"]}));
    assert!(text.contains("unknown symbol kind(s) in `kind`: klass") && text.contains("type alias"), "{text}");
    let text = err(&run, json!({"op": "symbols", "file": file, "offset": 10_000}));
    assert!(text.contains("offset 10000 is past the end"), "{text}");
}

/// pyright's outline gives one symbol per name: the `@overload` signatures of a method and a
/// name assigned in both branches of an `if` are not entries (itsdangerous 2.2.0
/// serializer.py: 5 `@t.overload def __init__` and the second `_TSerialized =`, while the
/// answer read "30 symbols in source order"). The outline names each such definition by line,
/// in the text and the structured `not_listed`, against grep's count of them.
#[test]
fn pyright_outline_names_the_overloads_and_redefinitions_it_folds_into_one_symbol() {
    if support::require_binary("pyright_outline_names_the_overloads_and_redefinitions_it_folds_into_one_symbol", "pyright-langserver")
        .is_none()
    {
        return;
    }
    let module = "import typing as t\n\nif t.TYPE_CHECKING:\n    _Kind = t.TypeVar(\"_Kind\", bound=str)\nelse:\n    _Kind = t.TypeVar(\"_Kind\", bound=t.Union[str, bytes])\n\n\nclass Serializer:\n    @t.overload\n    def __init__(\n        self,\n        key: str,\n    ) -> None: ...\n\n    @t.overload\n    def __init__(self, key: bytes) -> None: ...\n\n    def __init__(self, key: t.Any) -> None:\n        self.key = key\n\n    def dumps(self, value: str) -> str:\n        return value\n";
    let workspace = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"ser\"\n"), ("pkg/ser.py", module)]);
    let run = lsp_run(workspace.path(), |config| config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()]);
    let (text, structured) = ok(&run, json!({"op": "symbols", "file": "pkg/ser.py"}));
    // grep's ground truth: the `def`s right after `@t.overload`, and the second `_Kind =`.
    let lines: Vec<&str> = module.lines().collect();
    let overloads: Vec<usize> = (1..lines.len()).filter(|&index| lines[index - 1].trim() == "@t.overload").map(|index| index + 1).collect();
    assert_eq!(overloads, vec![11, 17], "the fixture's overload signatures");
    let listed: Vec<(String, u64)> = structured["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| (entry["name"].as_str().unwrap().to_owned(), entry["line"].as_u64().unwrap()))
        .collect();
    assert!(listed.contains(&("__init__".to_owned(), 19)) && listed.contains(&("_Kind".to_owned(), 4)), "{text}");
    assert!(!listed.iter().any(|(name, line)| name == "__init__" && *line != 19), "pyright lists one __init__:\n{text}");
    assert!(
        text.contains("not listed: 3 more definitions in the file that no entry stands for (pyright gives one symbol per name): _Kind at line 6 (redefinition), __init__ at lines 11, 17 (@overload)"),
        "the folded definitions must be said:\n{text}"
    );
    assert_eq!(structured["not_listed"]["other_definitions"], json!(3), "{text}");
    assert_eq!(
        structured["not_listed"]["other_definition_lines"],
        json!(["_Kind:6 (redefinition)", "__init__:11 (@overload)", "__init__:17 (@overload)"]),
        "{text}"
    );
}

/// pyright reports an Enum's members as the class's constants and variables; the outline names
/// the class an `enum` (by its bases: the standard enum classes, `enum.IntFlag`, an enum class of
/// the same file) and its value assignments `enum member`s, and leaves a plain class, a method,
/// `_ignore_` and a bare annotation alone.
#[test]
fn pyright_enum_members_are_enum_members() {
    if support::require_binary("pyright_enum_members_are_enum_members", "pyright-langserver").is_none() {
        return;
    }
    let module = "import enum\nfrom enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n    green = 2\n    _ignore_ = [\"scratch\"]\n    label: str\n\n    def describe(self) -> str:\n        return self.name\n\n\nclass Permission(enum.IntFlag):\n    READ = 4\n\n\nclass Sized(Enum):\n    def half(self) -> int:\n        return 1\n\n\nclass Size(Sized):\n    SMALL = 1\n\n\nclass Config:\n    DEBUG = True\n";
    let workspace = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"colors\"\n"), ("pkg/colors.py", module)]);
    let run = lsp_run(workspace.path(), |config| config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()]);
    let (entries, texts) = all_pages(&run, json!({"op": "symbols", "file": "pkg/colors.py"}));
    let kind_of = |name: &str| -> String {
        entries
            .iter()
            .find(|e| e["name"] == name)
            .map(|e| e["kind"].as_str().unwrap().to_owned())
            .unwrap_or_else(|| panic!("{name} listed: {texts:?}"))
    };
    for (name, kind) in [
        ("Color", "enum"),
        ("RED", "enum member"),
        ("green", "enum member"),
        ("describe", "method"),
        ("Permission", "enum"),
        ("READ", "enum member"),
        ("Sized", "enum"),
        ("Size", "enum"),
        ("SMALL", "enum member"),
        ("Config", "class"),
        ("DEBUG", "constant"),
    ] {
        assert_eq!(kind_of(name), kind, "{name}: {texts:?}");
    }
    for name in ["_ignore_", "label"] {
        if let Some(entry) = entries.iter().find(|e| e["name"] == name) {
            assert_ne!(entry["kind"], "enum member", "{name} is no member: {entry}");
        }
    }
}

#[test]
fn pyright_references_page_through_every_call_site_that_grep_finds() {
    if support::require_binary("pyright_references_page_through_every_call_site_that_grep_finds", "pyright-langserver").is_none() {
        return;
    }
    let mut files: Vec<(String, String)> = vec![
        ("pyproject.toml".to_owned(), "[project]\nname = \"refs\"\n".to_owned()),
        ("lib.py".to_owned(), "def target(value):\n    return value\n".to_owned()),
    ];
    for file in 0..4 {
        let mut text = String::from("from lib import target\n\n");
        for call in 0..30 {
            text.push_str(&format!("result_{call} = target({call})\n"));
        }
        files.push((format!("use_{file}.py"), text));
    }
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
    let workspace = support::workspace_with(&borrowed);
    let run = lsp_run(workspace.path(), |config| config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()]);
    let expected: BTreeSet<(String, u64)> = grep(workspace.path(), &["-rnw", "--include=*.py", "target", "."])
        .iter()
        .map(|line| {
            let mut parts = line.splitn(3, ':');
            (parts.next().unwrap().trim_start_matches("./").to_owned(), parts.next().unwrap().parse().unwrap())
        })
        .collect();
    assert_eq!(expected.len(), 1 + 4 * 31);
    let (results, texts) = all_pages(&run, json!({"op": "references", "file": "lib.py", "line": 1, "symbol": "target"}));
    let found: Vec<(String, u64)> = results.iter().map(|r| (r["path"].as_str().unwrap().to_owned(), r["line"].as_u64().unwrap())).collect();
    assert_eq!(found.iter().cloned().collect::<BTreeSet<_>>(), expected, "pages ≠ grep -rnw");
    assert_eq!(found.len(), expected.len(), "no location twice across pages");
    assert_eq!(found[0], ("lib.py".to_owned(), 1), "the queried file first");
    assert_eq!(texts.len(), 3, "125 references at 50 per page");
    assert!(texts[0].contains("125 references in 5 files:") && texts[0].contains("showing 1–50 of 125; next: offset=50"), "{}", texts[0]);
    assert!(texts[2].contains("showing 101–125 of 125") && !texts[2].contains("next: offset"), "{}", texts[2]);
}

#[test]
fn rust_analyzer_outline_kinds_and_references_into_the_sysroot() {
    if support::require_binary("rust_analyzer_outline_kinds_and_references_into_the_sysroot", "rust-analyzer").is_none() {
        return;
    }
    let lib = "//! Kinds.\n\
pub type Meters = f64;\n\
pub static GREETING: &str = \"hi\";\n\
macro_rules! twice { ($e:expr) => { $e * 2 }; }\n\
pub trait Shape { fn area(&self) -> f64; }\n\
#[derive(Clone)]\n\
pub struct Square { pub side: f64 }\n\
impl Shape for Square { fn area(&self) -> f64 { let local = self.side; local * local } }\n\
pub fn taken(first: &mut Vec<u8>, second: &mut Vec<u8>) -> (Vec<u8>, Vec<u8>) { (std::mem::take(first), std::mem::take(second)) }\n\
pub fn doubled() -> usize { twice!(2) }\n";
    let workspace = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"kinds\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/lib.rs", lib),
    ]);
    std::fs::write(workspace.path().join("Cargo.lock"), "version = 3\n\n[[package]]\nname = \"kinds\"\nversion = \"0.1.0\"\n").unwrap();
    let run = lsp_run(workspace.path(), |config| config.references_cap = 15);
    let started = Instant::now();
    loop {
        let (text, _) = ok(&run, json!({"op": "symbols", "file": "src/lib.rs"}));
        if !text.contains("still") || started.elapsed() > Duration::from_secs(180) {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let (text, _) = ok(&run, json!({"op": "symbols", "file": "src/lib.rs"}));
    for expected in [
        "2: type alias Meters — f64",
        "3: static GREETING — &str",
        "4: macro twice",
        "5: trait Shape",
        "  5: method area — fn(&self) -> f64",
        "7: struct Square",
        "8: impl Shape for Square",
        "  8: method area — fn(&self) -> f64",
        "9: function taken",
    ] {
        assert!(text.contains(expected), "missing {expected:?}:\n{text}");
    }
    assert!(!text.contains("local"), "locals are not listed:\n{text}");
    let positions: Vec<usize> =
        ["type alias Meters", "static GREETING", "macro twice", "trait Shape", "struct Square", "impl Shape for Square", "function taken"]
            .iter()
            .map(|needle| text.find(needle).unwrap())
            .collect();
    assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "source order:\n{text}");

    // `std::mem::take` is used across the Rust sysroot: workspace first (two calls on one line
    // stay two references), then shortened sysroot paths, counted; the pages together are the
    // whole list, and later pages reuse the first page's answer.
    let (results, texts) =
        all_pages(&run, json!({"op": "references", "file": "src/lib.rs", "line": 9, "symbol": "mem::take", "occurrence": 1}));
    let workspace_hits: Vec<&Value> = results.iter().filter(|r| r["class"] == "workspace").collect();
    let grep_hits = grep(workspace.path(), &["-rno", r"mem::take(", "src"]);
    assert_eq!(workspace_hits.len(), grep_hits.len(), "workspace references = grep -o of `mem::take(`: {workspace_hits:?}");
    assert!(texts.len() >= 2, "{texts:?}");
    assert!(texts[1].contains("note: this page comes from rust-analyzer's answer"), "{}", texts[1]);
    let first_outside =
        results.iter().position(|r| r["class"] != "workspace").unwrap_or_else(|| panic!("no sysroot references: {texts:?}"));
    assert!(results[first_outside..].iter().all(|r| r["class"] != "workspace"), "workspace references come first");
    let sysroot: Vec<&Value> = results.iter().filter(|r| r["origin"] == "rust sysroot").collect();
    assert!(!sysroot.is_empty() && sysroot.iter().all(|r| !r["path"].as_str().unwrap().starts_with('/')), "{sysroot:?}");
    assert!(sysroot.iter().all(|r| r["absolute_path"].as_str().unwrap().ends_with(r["path"].as_str().unwrap())));
    assert!(sysroot.iter().any(|r| r["path"] == "core/src/mem/mod.rs"), "the definition in core: {sysroot:?}");
    let first = &texts[0];
    assert!(
        first.contains(&format!("{} in the workspace (1 file)", grep_hits.len()))
            && first.contains("outside: ")
            && first.contains("rust sysroot "),
        "{first}"
    );
    assert!(
        first.contains("shortened paths: ") && first.contains("rust sysroot = /") && first.contains("/lib/rustlib/src/rust/library"),
        "{first}"
    );
    let unique: BTreeSet<(String, u64, u64)> = results
        .iter()
        .map(|r| {
            (
                r["absolute_path"].as_str().or(r["path"].as_str()).unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
                r["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(unique.len(), results.len(), "no location twice across pages");
}

#[test]
fn typescript_outline_is_in_source_order_not_alphabetical_and_outside_paths_are_short() {
    if support::require_binary(
        "typescript_outline_is_in_source_order_not_alphabetical_and_outside_paths_are_short",
        "typescript-language-server",
    )
    .is_none()
    {
        return;
    }
    let mut source = String::from("export type Meters = number;\nexport enum Color { Red, Green }\n");
    let words = ["zulu", "alpha", "mike", "bravo"];
    for index in 0..60 {
        let word = words[index % words.len()];
        source.push_str(&format!(
            "export function {word}{index}(value: number): number {{\n  const doubled = value * 2;\n  return doubled;\n}}\n"
        ));
        if index % 10 == 0 {
            source.push_str(&format!(
                "export class {}Shape{index} {{\n  side = 1;\n  area(): number {{ const local = this.side; return local * local; }}\n}}\n",
                word.to_uppercase()
            ));
        }
    }
    source.push_str("console.log(Math.max(1, 2));\n");
    // Top-level block-scoped variables (a loop's, an if block's) are locals, not the module's
    // API: tsserver lists them at top level (observed in the trial on immer).
    source.push_str("export const VERSION = \"1\";\nfor (const key of [\"a\", \"b\"]) {\n  const upper = key.toUpperCase();\n  void upper;\n}\nif (VERSION) {\n  let flag = 1;\n  flag += 1;\n}\n");
    let workspace = support::workspace_with(&[
        ("package.json", "{\"name\": \"order\", \"version\": \"1.0.0\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2020\", \"lib\": [\"es2020\", \"dom\"]}}\n"),
        ("src/order.ts", &source),
    ]);
    let run = lsp_run(workspace.path(), |config| config.document_symbols_cap = 25);
    let (entries, _) = all_pages(&run, json!({"op": "symbols", "file": "src/order.ts"}));
    let top: Vec<(u64, String)> =
        entries.iter().filter(|e| e["depth"] == 1).map(|e| (e["line"].as_u64().unwrap(), e["name"].as_str().unwrap().to_owned())).collect();
    let grep_top: Vec<(u64, String)> =
        grep(&workspace.path().join("src"), &["-n", "-E", r"^export (type|enum|function|class|const) ", "order.ts"])
            .iter()
            .map(|line| {
                let (number, text) = line.split_once(':').unwrap();
                let name = text.split_whitespace().nth(2).unwrap().split(['(', ' ']).next().unwrap().to_owned();
                (number.parse().unwrap(), name)
            })
            .collect();
    assert_eq!(top, grep_top, "top level = grep, in source order");
    assert_eq!(entries[0]["kind"], "type alias", "{:?}", entries[0]);
    assert_eq!(entries[0]["lsp_kind"], "variable");
    let members: Vec<&str> = entries.iter().filter(|e| e["container"] == "Color").map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(members, ["enum member", "enum member"]);
    assert!(entries.iter().all(|e| e["name"] != "doubled" && e["name"] != "local" && e["name"] != "value"), "no locals or parameters");
    assert!(entries.iter().all(|e| !matches!(e["name"].as_str(), Some("key" | "upper" | "flag"))), "no block-scoped locals");
    let (with_locals, _) = all_pages(&run, json!({"op": "symbols", "file": "src/order.ts", "locals": true}));
    for name in ["key", "upper", "flag"] {
        let entry = with_locals.iter().find(|e| e["name"] == name).unwrap_or_else(|| panic!("{name} listed with locals: true"));
        assert_eq!(entry["hidden"], "local", "{entry}");
    }

    // A reference into TypeScript's own lib files (the global install, outside the workspace) is
    // shortened to typescript/lib/…, labelled as outside the workspace: not `node_modules/…`, which
    // reads as a path of the workspace's own node_modules (trial29 M2).
    let line = source.lines().position(|line| line.starts_with("console.log(")).expect("the console.log line") as u32 + 1;
    let (text, structured) = ok(&run, json!({"op": "references", "file": "src/order.ts", "line": line, "symbol": "console.log"}));
    let outside: Vec<&Value> = structured["results"].as_array().unwrap().iter().filter(|r| r["class"] != "workspace").collect();
    assert!(!outside.is_empty(), "{text}");
    assert!(outside.iter().all(|r| r["path"].as_str().unwrap().starts_with("typescript/lib/lib.")), "{outside:?}");
    assert!(outside.iter().all(|r| r["origin"] == "node_modules outside the workspace"), "{outside:?}");
    assert_eq!(structured["results"][0]["path"], "src/order.ts", "workspace first: {text}");
    assert!(text.contains("[node_modules outside the workspace]") && text.contains("1 in the workspace (1 file)"), "{text}");
    assert!(
        text.contains("node_modules outside the workspace = ") && text.contains("/node_modules"),
        "the legend names the folder:\n{text}"
    );
}

#[test]
fn gopls_and_clangd_outline_kinds_name_types_and_aliases() {
    if support::require_binary("gopls_and_clangd_outline_kinds_name_types_and_aliases", "gopls").is_some() {
        let workspace = support::workspace_with(&[
            ("go.mod", "module example.com/kinds\n\ngo 1.19\n"),
            (
                "kinds.go",
                "package kinds\n\ntype Meters = float64\ntype Celsius float64\ntype Shape interface{ Area() float64 }\ntype Square struct{ Side float64 }\n\nfunc (s Square) Area() float64 { local := s.Side; return local * local }\n",
            ),
        ]);
        let run = lsp_run(workspace.path(), |_| ());
        let (text, _) = ok(&run, json!({"op": "symbols", "file": "kinds.go"}));
        for expected in ["3: type alias Meters", "4: type Celsius", "5: interface Shape", "6: struct Square", "8: method (Square).Area"] {
            assert!(text.contains(expected), "missing {expected:?}:\n{text}");
        }
    }
    if support::require_binary("gopls_and_clangd_outline_kinds_name_types_and_aliases (clangd)", "clangd-19").is_some() {
        let workspace = support::workspace_with(&[
            ("compile_flags.txt", "-std=c11\n"),
            ("kinds.c", "typedef double meters;\nstruct square { double side; };\nenum color { RED, GREEN };\nint twice(int value) { int local = value; return local * 2; }\n"),
        ]);
        let run = lsp_run(workspace.path(), |_| ());
        let (text, _) = ok(&run, json!({"op": "symbols", "file": "kinds.c"}));
        for expected in [
            "1: type alias meters\n",
            "2: struct square\n",
            "  2: field side — double",
            "3: enum color",
            "  3: enum member RED",
            "4: function twice — int (int)",
        ] {
            assert!(text.contains(expected), "missing {expected:?}:\n{text}");
        }
    }
}

#[test]
fn workspace_symbols_on_a_cold_run_start_the_root_server_and_page() {
    if support::require_binary("workspace_symbols_on_a_cold_run_start_the_root_server_and_page", "pyright-langserver").is_none() {
        return;
    }
    let mut module = String::new();
    for index in 0..30 {
        module.push_str(&format!("class Widget{index}:\n    pass\n\n"));
    }
    module.push_str("class Widget:\n    pass\n");
    let workspace = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"cold\"\n"), ("app/widgets.py", &module)]);
    let run = lsp_run(workspace.path(), |config| {
        config.workspace_symbols_cap = 12;
        config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    });
    // No `file`, nothing running: the server whose marker sits at the workspace root starts.
    let (results, texts) = all_pages(&run, json!({"op": "symbols", "query": "Widget"}));
    assert!(texts[0].contains("note: started pyright for . to answer a workspace-wide query"), "{}", texts[0]);
    assert!(!texts[1].contains("started pyright"), "started once:\n{}", texts[1]);
    let names: Vec<&str> = results.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let grep_count = grep(&workspace.path().join("app"), &["-c", "^class Widget", "widgets.py"])[0].parse::<usize>().unwrap();
    assert_eq!(names.len(), grep_count, "{names:?}");
    assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), names.len(), "no symbol twice across pages");
    assert_eq!(names[0], "Widget", "the exact name match first");
    assert!(results.iter().all(|r| r["path"] == "app/widgets.py" && r["kind"] == "class"));

    // A workspace without a marker at its top but with a few roots below, nothing running: each
    // root's server starts (trial130 M9: a cold query failed, asking for `file`).
    let split = support::workspace_with(&[
        ("one/pyproject.toml", "[project]\nname = \"a\"\n"),
        ("one/a.py", "xylophone = 1\n"),
        ("two/package.json", "{}\n"),
        ("two/b.ts", "export const yodel = 1;\n"),
    ]);
    let run = lsp_run(split.path(), |config| config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()]);
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "xylophone"}));
    assert!(text.contains("note: started pyright for one to answer a workspace-wide query"), "{text}");
    assert!(text.contains("one/a.py"), "{text}");
    // More roots than are started for one query: the error lists them.
    let files: Vec<(String, String)> = (1..=5)
        .flat_map(|n| {
            [(format!("p{n}/pyproject.toml"), format!("[project]\nname = \"p{n}\"\n")), (format!("p{n}/m.py"), "x = 1\n".to_owned())]
        })
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
    let many = support::workspace_with(&files);
    let run = lsp_run(many.path(), |_| ());
    let text = err(&run, json!({"op": "symbols", "query": "x"}));
    assert!(text.contains("no project root at its top but 5 below it (p1, p2, p3, p4, p5)") && text.contains("pass `file`"), "{text}");
}

#[test]
fn pyright_hover_entities_outside_definitions_and_diagnostics_pages() {
    if support::require_binary("pyright_hover_entities_outside_definitions_and_diagnostics_pages", "pyright-langserver").is_none() {
        return;
    }
    let documented = "def documented(a, b):\n    \"\"\"Adds things.\n\n    Args:\n        a: the first\n            continued deeper\n        b: the second <b> & more\n\n    Example:\n        >>> documented(1, 2)\n        3\n    \"\"\"\n    return a + b\n\n\ndocumented(1, 2)\n";
    let mut broken = String::new();
    for index in 0..23 {
        broken.push_str(&format!("value_{index} = undefined_name_{index}\n"));
    }
    let imports = "import json\nfrom dateutil.parser import parse\n\njson.dumps(1)\nparse(\"2024-01-01\")\n";
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"hover\"\n"),
        ("doc.py", documented),
        ("broken.py", &broken),
        ("imports.py", imports),
    ]);
    let run = lsp_run(workspace.path(), |config| {
        config.diagnostics_cap = 10;
        config.checker_cap = 10;
        config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    });
    let (text, _) = ok(&run, json!({"op": "hover", "file": "doc.py", "line": 16, "symbol": "documented"}));
    assert!(!text.contains("&nbsp;") && !text.contains("&lt;") && !text.contains('\u{a0}'), "{text}");
    assert!(text.contains("\n    a: the first\n        continued deeper\n    b: the second <b> & more"), "{text}");
    assert!(text.contains(">>> documented(1, 2)"), "{text}");

    // Definitions outside the workspace: the standard library and an installed package (pandas,
    // which `.ci/install` installs, brings python-dateutil), shortened and marked.
    let (text, structured) = ok(&run, json!({"op": "definition", "file": "imports.py", "line": 4, "symbol": "dumps"}));
    let location = &structured["results"][0];
    assert_eq!((location["class"].as_str(), location["path"].as_str()), (Some("outside"), Some("json/__init__.py")), "{text}");
    assert!(text.contains("json/__init__.py:") && text.contains(" [python stdlib]: def dumps("), "{text}");
    assert!(
        text.contains("shortened paths: python stdlib = /") && location["absolute_path"].as_str().unwrap().ends_with("/json/__init__.py"),
        "{text}"
    );
    let (text, structured) = ok(&run, json!({"op": "definition", "file": "imports.py", "line": 5, "symbol": "parse"}));
    let location = &structured["results"][0];
    assert_eq!(location["origin"], "site-packages", "{text}");
    assert!(location["path"].as_str().unwrap().starts_with("dateutil/parser/"), "{text}");
    assert!(text.contains("1 outside: site-packages 1 (1 file)"), "{text}");

    let expected: BTreeSet<u64> = grep(workspace.path(), &["-n", "undefined_name_", "broken.py"])
        .iter()
        .map(|line| line.split(':').next().unwrap().parse().unwrap())
        .collect();
    let (results, texts) = all_pages(&run, json!({"op": "diagnostics", "file": "broken.py"}));
    let lines: BTreeSet<u64> = results.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, expected, "{texts:?}");
    assert_eq!((results.len(), texts.len()), (23, 3));

    if support::require_binary("pyright_hover_entities_outside_definitions_and_diagnostics_pages (\"*\")", "pyright").is_some() {
        let (results, texts) = all_pages(&run, json!({"op": "diagnostics", "file": "*"}));
        let lines: BTreeSet<u64> = results.iter().filter(|r| r["path"] == "broken.py").map(|r| r["line"].as_u64().unwrap()).collect();
        assert_eq!(lines, expected, "{texts:?}");
        assert!(texts[1].contains("this page comes from the check run") && !texts[0].contains("this page comes from"), "{texts:?}");
        // A change in the workspace makes the next page run the checker again.
        std::fs::write(workspace.path().join("broken.py"), format!("{broken}extra = undefined_extra\n")).unwrap();
        let (text, structured) = ok(&run, json!({"op": "diagnostics", "file": "*", "offset": 10}));
        assert_eq!(structured["reused_previous_run"], json!(false), "{text}");
        assert_eq!(structured["total"], json!(24), "{text}");
    }
}

#[test]
fn an_op_the_server_lacks_names_the_installed_server_that_offers_it() {
    if support::require_binary("an_op_the_server_lacks_names_the_installed_server_that_offers_it", "pyright-langserver").is_none()
        || support::require_binary("an_op_the_server_lacks_names_the_installed_server_that_offers_it", "basedpyright-langserver").is_none()
    {
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"impl\"\n"),
        (
            "shapes.py",
            "class Shape:\n    def area(self):\n        return 0\n\n\nclass Square(Shape):\n    def area(self):\n        return 1\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |config| config.disabled_servers = vec!["pylsp".to_owned()]);
    // basedpyright has not started in this run: it is not started just to learn whether it
    // offers the op (trial27a M3: 16 s to say "unsupported"); it is named, with the call.
    let text = err(&run, json!({"op": "implementation", "file": "shapes.py", "line": 1, "symbol": "Shape"}));
    assert!(text.contains("implementation is unsupported by pyright"), "{text}");
    assert!(text.contains("not started in this run, so not asked whether they offer it") && text.contains("basedpyright"), "{text}");
    assert!(text.contains("\"server\": \"basedpyright\""), "{text}");
    let (_, status) = ok(&run, json!({"op": "status"}));
    let basedpyright_running = status["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|server| server["id"] == "basedpyright")
        .any(|server| server["roots"].as_array().unwrap().iter().any(|root| root["running"].is_object()));
    assert!(!basedpyright_running, "basedpyright was started to learn its capabilities: {status}");
    let (text, _) = ok(&run, json!({"op": "implementation", "file": "shapes.py", "line": 1, "symbol": "Shape", "server": "basedpyright"}));
    assert!(text.contains("shapes.py:6: class Square(Shape):"), "{text}");
    // Now that it runs, what it offers is known: the error names it as offering the op.
    let text = err(&run, json!({"op": "implementation", "file": "shapes.py", "line": 1, "symbol": "Shape"}));
    assert!(text.contains("basedpyright, also installed for shapes.py, offers it"), "{text}");
    // And what it lacks: no Python server has a type hierarchy.
    let text = err(&run, json!({"op": "subtypes", "file": "shapes.py", "line": 1, "symbol": "Shape"}));
    assert!(text.contains("subtypes is unsupported by pyright") && text.contains("do not offer it either: basedpyright"), "{text}");
    assert!(!text.contains("not started in this run"), "{text}");
}

/// A fake language server (protocol edge case: a binary that starts but never answers
/// `initialize`). It appends its pid to `starts.log` beside it, then sleeps.
/// A `pyright-langserver` in `dir` that never answers; each start appends its pid to
/// `starts_log`, which must lie beneath the workspace: the server runs confined to it.
fn silent_server(dir: &Path, starts_log: &Path) -> std::path::PathBuf {
    let script = dir.join("pyright-langserver");
    std::fs::write(&script, format!("#!/bin/sh\necho $$ >> '{}'\nexec sleep 600\n", starts_log.display())).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script
}

fn starts(starts_log: &Path) -> Vec<u32> {
    std::fs::read_to_string(starts_log).unwrap_or_default().lines().map(|line| line.trim().parse().unwrap()).collect()
}

#[test]
fn a_server_that_never_answers_initialize_is_not_started_again_within_its_backoff() {
    let workspace = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"silent\"\n"), ("app.py", "x = 1\n")]);
    let bin = tempfile::tempdir().unwrap();
    let starts_log = workspace.path().join("starts.log");
    silent_server(bin.path(), &starts_log);
    let run = lsp_run(workspace.path(), |config| {
        config.search_path = Some(bin.path().as_os_str().to_owned());
        config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
        config.initialize_timeout = Duration::from_secs(2);
        config.start_failure_backoff_initial = Duration::from_secs(6);
        config.start_failure_backoff_max = Duration::from_secs(60);
    });
    let hover = json!({"op": "hover", "file": "app.py", "line": 1, "symbol": "x"});
    let first_started = Instant::now();
    let text = err(&run, hover.clone());
    let first_took = first_started.elapsed();
    let first_returned = Instant::now();
    assert!(text.contains("failed during initialize") && text.contains("calls in the next 6 s answer with this failure"), "{text}");
    assert!(first_took >= Duration::from_secs(2), "the first start waited for initialize: {first_took:?}");
    assert_eq!(starts(&starts_log).len(), 1);

    // Within the backoff: the earlier failure at once, no new process.
    let again = Instant::now();
    let text = err(&run, hover.clone());
    let again_took = again.elapsed();
    assert!(text.contains("did not start (1 failed start in a row") && text.contains("failed during initialize"), "{text}");
    assert!(text.contains("the next start attempt is allowed in") && text.contains("this call did not try again"), "{text}");
    // Both figures count from the end of the failed attempt: the attempt took 2 s (initialize
    // timeout), yet it failed 0 s ago and the retry is the whole 6 s backoff from now.
    assert!(text.contains("the last failed 0 s ago") && text.contains("allowed in 6 s from now"), "{text}");
    assert!(again_took < Duration::from_secs(2), "answered without waiting for another initialize: {again_took:?}");
    assert_eq!(starts(&starts_log).len(), 1, "no new start within the backoff");
    let status = ok(&run, json!({"op": "status"})).0;
    assert!(status.contains("start backoff: 1 failed start(s) in a row; next attempt allowed in"), "{status}");

    // After the backoff the next call starts it again (and the backoff doubles).
    std::thread::sleep(Duration::from_millis(6300).saturating_sub(first_returned.elapsed()));
    let text = err(&run, hover.clone());
    assert!(text.contains("failed during initialize") && text.contains("calls in the next 12 s"), "{text}");
    assert_eq!(starts(&starts_log).len(), 2);
    let text = err(&run, hover.clone());
    assert!(text.contains("did not start (2 failed starts in a row"), "{text}");
    assert_eq!(starts(&starts_log).len(), 2);

    // `reload` retries at once.
    let text = ok(&run, json!({"op": "reload", "file": "app.py"})).0;
    assert!(text.contains("reload failed") && text.contains("failed during initialize"), "{text}");
    assert_eq!(starts(&starts_log).len(), 3);

    // Every failed start's process is gone.
    let pids = starts(&starts_log);
    let gone = support::wait_until(Duration::from_secs(5), || {
        pids.iter().all(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map_or(true, |stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
        })
    });
    assert!(gone, "a silent server survived its failed start: {pids:?}");
}

/// rust-analyzer's workspace symbol search is types-only by default whenever a type matches:
/// on aho-corasick 1.1.3 `symbols` with query `prefilter` listed 10 types and none of the 10
/// `fn prefilter` (trial20 F4). runbound asks for all symbols: the function, the struct and a
/// nested function all come back.
#[test]
fn rust_analyzer_workspace_symbols_list_functions_beside_a_matching_type() {
    if support::require_binary("rust_analyzer_workspace_symbols_list_functions_beside_a_matching_type", "rust-analyzer").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"symbols\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        (
            "src/lib.rs",
            "pub struct Prefilter;\n\npub fn prefilter() -> Prefilter {\n    Prefilter\n}\n\npub mod inner {\n    pub fn prefilter_again() {}\n}\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| {});
    let text = ok(&run, json!({"op": "symbols", "query": "prefilter"})).0;
    for listed in ["function prefilter — src/lib.rs:3", "struct Prefilter — src/lib.rs:1", "function prefilter_again — src/lib.rs:8"]
    {
        assert!(text.contains(listed), "{listed} missing:\n{text}");
    }
}

/// pyparsing 3.3.3 (trial21 F5): a nested pyright root (then `tests/requirements.txt`; since
/// trial36 a requirements.txt alone makes no nested root, a `pyrightconfig.json` does) is covered
/// by the outer root's pyright too; a workspace symbol query asked both and listed a symbol of
/// `tests/` twice ("5 symbols" for 3). Listed once, and the overlap said.
#[test]
fn workspace_symbols_of_overlapping_pyright_roots_are_listed_once() {
    if support::require_binary("workspace_symbols_of_overlapping_pyright_roots_are_listed_once", "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"overlap\"\nversion = \"0.1.0\"\n"),
        ("overlap/__init__.py", "def zebra_helper() -> int:\n    return 1\n"),
        ("tests/pyrightconfig.json", "{}\n"),
        (
            "tests/test_zebra.py",
            "from overlap import zebra_helper\n\n\ndef test_zebra_helper_value() -> None:\n    assert zebra_helper() == 1\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |config| config.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()]);
    // Both roots' servers running: one for the package, one for tests/.
    ok(&run, json!({"op": "symbols", "file": "overlap/__init__.py"}));
    ok(&run, json!({"op": "symbols", "file": "tests/test_zebra.py"}));
    let status = ok(&run, json!({"op": "status"})).0;
    let text = ok(&run, json!({"op": "symbols", "query": "test_zebra_helper_value"})).0;
    let listed = text.lines().filter(|line| line.contains("tests/test_zebra.py:4")).count();
    assert_eq!(listed, 1, "status:\n{status}\nanswer:\n{text}");
    assert!(text.contains("reported by more than one server root at the same place is listed once"), "status:\n{status}\nanswer:\n{text}");
}
