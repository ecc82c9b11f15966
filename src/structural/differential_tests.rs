//! Differential test against the real ast-grep CLI (npm `@ast-grep/cli` 0.51, installed by
//! `.ci/install` into `.tools/node_modules/.bin/ast-grep`; never `sg`, which is another
//! program on Debian): on real trees present on the machine — parts of the installed CPython's
//! standard library and crates under `~/.cargo/registry/src` — the match set (file, byte range)
//! of our engine equals the CLI's, for patterns whose bare and contextual parses agree. The
//! `ast_grep` tool's `total_matches` is checked against the same set.
//!
//! The rule suite does the same for ast-grep rule objects (`ast-grep scan --inline-rules`):
//! rules that together use every key (atomic `pattern` as a string and as a `context` +
//! `selector` object with `strictness`, `kind` and kind selectors, `regex`, `nthChild` as a
//! number, a formula and an object with `reverse` and `ofRule`, `range`; relational `inside`,
//! `has`, `precedes`, `follows` with `stopBy` `neighbor`, `end` and a rule, and `field`;
//! composite `all`, `any`, `not`, `matches` with `utils`; and `constraints`), each compiled by
//! our `rule` argument and searched through our walk, the literal pre-filter on.

use crate::test_support as support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use runbound::structural::compile::compile_pattern;
use runbound::structural::evaluate::MatchBudget;
use runbound::structural::query::scan_file;
use runbound::structural::query::Query;
use runbound::structural::rule::{compile_rule, RuleInput};
use runbound::structural::search::{walk_and_match, WalkLimits};
use runbound::structural::tools::match_source;
use runbound::structural::SupportLang;
use runbound::{Caller, Run};
use serde_json::{json, Value};

type MatchSet = BTreeSet<(PathBuf, usize, usize)>;

fn ast_grep_cli(test_name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/node_modules/.bin/ast-grep");
    if path.exists() {
        return Some(path);
    }
    support::skip_or_fail(test_name, &format!("{} missing (installed by .ci/install)", path.display()));
    None
}

fn cli_matches(cli: &Path, pattern: &str, language: &str, dirs: &[PathBuf]) -> MatchSet {
    let output = Command::new(cli)
        .args(["run", "--pattern", pattern, "--lang", language, "--json=stream"])
        .args(dirs)
        .output()
        .expect("run ast-grep");
    // Exit status 1 with nothing on stderr means "no match", as with grep.
    let no_match = output.status.code() == Some(1) && output.stderr.is_empty();
    assert!(output.status.success() || no_match, "ast-grep failed: {}", String::from_utf8_lossy(&output.stderr));
    let mut set = MatchSet::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let value: Value = serde_json::from_str(line).expect("ast-grep JSON line");
        let file = PathBuf::from(value["file"].as_str().unwrap());
        let start = value["range"]["byteOffset"]["start"].as_u64().unwrap() as usize;
        let end = value["range"]["byteOffset"]["end"].as_u64().unwrap() as usize;
        set.insert((file, start, end));
    }
    set
}

fn our_matches(pattern: &str, language: SupportLang, dirs: &[PathBuf]) -> MatchSet {
    let compiled = compile_pattern(pattern, language).unwrap_or_else(|err| panic!("{pattern}: {err}"));
    let limits = WalkLimits::new(std::time::Instant::now() + std::time::Duration::from_secs(600));
    let mut set = MatchSet::new();
    for dir in dirs {
        let (found, stats) = walk_and_match(dir, language, &compiled.requirement, &limits, &|path, parsed| {
            let found = match_source(&compiled, parsed.source()).unwrap();
            Some(found.into_iter().map(|m| (path.to_path_buf(), m.byte_range.start, m.byte_range.end)).collect::<Vec<_>>())
        });
        assert!(!stats.timed_out);
        set.extend(found.into_iter().flatten());
    }
    set
}

fn compare(test_name: &str, language: SupportLang, language_id: &str, dirs: &[PathBuf], patterns: &[&str]) {
    let Some(cli) = ast_grep_cli(test_name) else {
        return;
    };
    for pattern in patterns {
        let theirs = cli_matches(&cli, pattern, language_id, dirs);
        let ours = our_matches(pattern, language, dirs);
        let only_theirs: Vec<_> = theirs.difference(&ours).take(5).collect();
        let only_ours: Vec<_> = ours.difference(&theirs).take(5).collect();
        assert!(
            only_theirs.is_empty() && only_ours.is_empty(),
            "{language_id} `{pattern}`: ast-grep {} vs ours {}; only ast-grep: {only_theirs:?}; only ours: {only_ours:?}",
            theirs.len(),
            ours.len()
        );
        // `$A == $A` (a comparison of a thing with itself) is rare in real code; the others occur.
        assert!(
            !ours.is_empty() || *pattern == "$A == $A",
            "{language_id} `{pattern}` matched nothing; pick a pattern that occurs in the tree"
        );
        eprintln!("{language_id} `{pattern}`: {} matches, identical to ast-grep", ours.len());
    }
    // The tool reports the same total for the first pattern (one directory, via a run).
    let run = Run::builder(&dirs[0]).with_structural().build().unwrap();
    let result = run.call(Caller::Main, "ast_grep", json!({"pattern": patterns[0], "language": language_id, "max_results": 1}));
    assert!(!result.is_error, "{}", result.joined_text());
    let total = result.structured_content.unwrap()["total_matches"].as_u64().unwrap() as usize;
    assert_eq!(total, cli_matches(&cli, patterns[0], language_id, &dirs[..1]).len());
}

#[test]
fn python_standard_library_matches_equal_ast_grep_cli() {
    let output = Command::new("python3").args(["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"]).output();
    let Some(stdlib) = output.ok().filter(|o| o.status.success()).map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())) else {
        support::skip_or_fail("python_standard_library_matches_equal_ast_grep_cli", "python3 not found");
        return;
    };
    let dirs: Vec<PathBuf> = ["json", "email", "asyncio", "concurrent", "logging", "http", "importlib", "xml", "unittest"]
        .iter()
        .map(|d| stdlib.join(d))
        .filter(|d| d.is_dir())
        .collect();
    assert!(dirs.len() >= 5, "CPython stdlib at {} lacks the expected packages", stdlib.display());
    let patterns = [
        "len($X)",
        "$X.append($Y)",
        "isinstance($X, $T)",
        "raise $E($$$A)",
        "self.$F = $V",
        "$A == $A",
        "if $X is None: $$$B",
        "def $F(self, $$$P): $$$B",
        "print($$$A)",
    ];
    compare("python_standard_library_matches_equal_ast_grep_cli", SupportLang::Python, "python", &dirs, &patterns);
}

#[test]
fn cargo_registry_crates_matches_equal_ast_grep_cli() {
    let wanted = ["ignore-", "regex-syntax-", "serde_json-", "similar-", "crossbeam-channel-", "ast-grep-core-", "clap_builder-"];
    let Some(dirs) = rust_crate_dirs("cargo_registry_crates_matches_equal_ast_grep_cli", &wanted) else {
        return;
    };
    assert!(dirs.len() >= 5, "expected crates in the cargo registry: {dirs:?}");
    let patterns = [
        "$X.unwrap()",
        "Box::new($X)",
        "$A == $A",
        "Some($X)",
        "$X.clone()",
        "let $A = $B;",
        "impl $T for $U { $$$B }",
        "match $E { $$$A }",
    ];
    compare("cargo_registry_crates_matches_equal_ast_grep_cli", SupportLang::Rust, "rust", &dirs, &patterns);
}

/// Go declarations (a fragment the statement context reads only with its metavariable as an
/// ERROR: `func $F(…) { … }` in a function body is a nameless `func_literal`) compile at the
/// top level as the ast-grep CLI reads them, and match the same nodes as the CLI on a real Go
/// module: go-cmp 0.5.9 from Debian's golang-github-google-go-cmp-dev (pinned by `.ci/install`).
/// Function literals and statements keep their statement reading.
#[test]
fn go_module_declarations_match_like_ast_grep_cli() {
    let test_name = "go_module_declarations_match_like_ast_grep_cli";
    let module = Path::new("/usr/share/gocode/src/github.com/google/go-cmp");
    if !module.is_dir() {
        support::skip_or_fail(test_name, &format!("{} missing (golang-github-google-go-cmp-dev, .ci/install)", module.display()));
        return;
    }
    let declaration = compile_pattern("func $F($$$P) { $$$B }", SupportLang::Go).unwrap();
    assert_eq!(declaration.node_kind, "function_declaration", "compiled as {}", declaration.compiled_as());
    let method = compile_pattern("func ($R $T) $M($$$P) $RET { $$$B }", SupportLang::Go).unwrap();
    assert_eq!(method.node_kind, "method_declaration", "compiled as {}", method.compiled_as());
    // A pointer result: in a function body a func-type conversion times a composite literal,
    // which matched nothing (trial153 F2: gorilla/mux's 15 `func (r *Route) … *Route` methods).
    let pointer_result = compile_pattern("func ($R *$T) $M($$$P) *$U { $$$B }", SupportLang::Go).unwrap();
    assert_eq!(pointer_result.node_kind, "method_declaration", "compiled as {}", pointer_result.compiled_as());
    let literal = compile_pattern("func($$$P) { $$$B }", SupportLang::Go).unwrap();
    assert_eq!(literal.node_kind, "func_literal", "compiled as {}", literal.compiled_as());
    let patterns = [
        "func $F($$$P) { $$$B }",
        "func $F($$$P) $R { $$$B }",
        "func ($R $T) $M($$$P) { $$$B }",
        "func ($R $T) $M($$$P) $RET { $$$B }",
        "func ($R *$T) $M($$$P) *$U { $$$B }",
        "func ($$$R) $M($$$P) *$U { $$$B }",
        "func $F($$$P) *$U { $$$B }",
        "type $N struct { $$$F }",
        "func($$$P) { $$$B }",
        "func($$$P) *$U { $$$B }",
        "if $X != nil { $$$B }",
        "$X := $Y",
        "for $K, $V := range $X { $$$B }",
    ];
    compare(test_name, SupportLang::Go, "go", &[module.to_path_buf()], &patterns);
}

/// Declaration fragments compile to the node kind the ast-grep CLI reads them as (its
/// `--debug-query=pattern` root), in the languages where a function body is not the place of a
/// declaration (Go's `func $F`, whose statement-context parse is a nameless `func_literal` with
/// `$F` as an ERROR) as in those where it is (JavaScript's nested `function`, Rust's `fn`).
#[test]
fn declaration_patterns_compile_to_the_kind_the_cli_reads() {
    let Some(cli) = ast_grep_cli("declaration_patterns_compile_to_the_kind_the_cli_reads") else {
        return;
    };
    let empty = tempfile::Builder::new().suffix(".txt").tempfile().unwrap();
    let cases = [
        ("go", SupportLang::Go, "func $F($$$P) { $$$B }"),
        ("go", SupportLang::Go, "func $F($$$P) $R { $$$B }"),
        ("go", SupportLang::Go, "func ($R $T) $M($$$P) $RET { $$$B }"),
        ("go", SupportLang::Go, "func ($R *$T) $M($$$P) *$T { $$$B }"),
        ("go", SupportLang::Go, "type $N struct { $$$F }"),
        ("go", SupportLang::Go, "var $X = $Y"),
        ("javascript", SupportLang::JavaScript, "function $F($$$P) { $$$B }"),
        ("javascript", SupportLang::JavaScript, "class $C { $$$B }"),
        ("typescript", SupportLang::TypeScript, "function $F($$$P): $R { $$$B }"),
        ("typescript", SupportLang::TypeScript, "export function $F($$$P) { $$$B }"),
        ("typescript", SupportLang::TypeScript, "interface $I { $$$B }"),
        ("kotlin", SupportLang::Kotlin, "fun $F($$$P) { $$$B }"),
        ("swift", SupportLang::Swift, "func $F($$$P) { $$$B }"),
        ("rust", SupportLang::Rust, "fn $F($$$P) { $$$B }"),
        ("c", SupportLang::C, "int $F($$$P) { $$$B }"),
        ("java", SupportLang::Java, "class $C { $$$B }"),
        ("php", SupportLang::Php, "function $F($$$P) { $$$B }"),
    ];
    for (language_id, language, pattern) in cases {
        let output = Command::new(&cli)
            .args(["run", "--pattern", pattern, "--lang", language_id, "--debug-query=pattern"])
            .arg(empty.path())
            .output()
            .expect("run ast-grep");
        let stderr = String::from_utf8_lossy(&output.stderr);
        // `Debug Pattern:` then the root's kind on the next line.
        let cli_kind = stderr
            .lines()
            .chain(String::from_utf8_lossy(&output.stdout).lines())
            .skip_while(|line| !line.starts_with("Debug Pattern"))
            .nth(1)
            .map(|line| line.trim().to_owned())
            .unwrap_or_else(|| panic!("{language_id} `{pattern}`: no pattern dump from ast-grep: {stderr}"));
        let compiled = compile_pattern(pattern, language).unwrap_or_else(|err| panic!("{language_id} `{pattern}`: {err}"));
        assert_eq!(compiled.node_kind, cli_kind, "{language_id} `{pattern}`: ours {}", compiled.compiled_as());
    }
}

/// One rule of the differential suite: the rule object and its `constraints` / `utils`.
struct RuleCase {
    rule: Value,
    constraints: Option<Value>,
    utils: Option<Value>,
}

fn case(rule: Value) -> RuleCase {
    RuleCase { rule, constraints: None, utils: None }
}

/// The CLI's matches of every case, one `scan` over `dirs` with all rules (ids `r0`, `r1`, …).
fn cli_rule_matches(cli: &Path, cases: &[RuleCase], language: &str, dirs: &[PathBuf]) -> Vec<MatchSet> {
    let documents: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let mut document = serde_json::Map::new();
            document.insert("id".to_owned(), json!(format!("r{index}")));
            document.insert("language".to_owned(), json!(language));
            document.insert("rule".to_owned(), case.rule.clone());
            if let Some(constraints) = &case.constraints {
                document.insert("constraints".to_owned(), constraints.clone());
            }
            if let Some(utils) = &case.utils {
                document.insert("utils".to_owned(), utils.clone());
            }
            // JSON is YAML: each rule goes to the CLI exactly as our tool receives it.
            Value::Object(document).to_string()
        })
        .collect();
    let inline = documents.join("\n---\n");
    let output =
        Command::new(cli).args(["scan", "--inline-rules", &inline, "--json=stream"]).args(dirs).output().expect("run ast-grep scan");
    assert!(output.status.success(), "ast-grep scan failed on {inline}: {}", String::from_utf8_lossy(&output.stderr));
    let mut sets = vec![MatchSet::new(); cases.len()];
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let value: Value = serde_json::from_str(line).expect("ast-grep JSON line");
        let index: usize = value["ruleId"].as_str().unwrap().trim_start_matches('r').parse().unwrap();
        let file = PathBuf::from(value["file"].as_str().unwrap());
        let start = value["range"]["byteOffset"]["start"].as_u64().unwrap() as usize;
        let end = value["range"]["byteOffset"]["end"].as_u64().unwrap() as usize;
        sets[index].insert((file, start, end));
    }
    sets
}

/// Our matches of every case: each rule compiled through `compile_rule`, one walk over `dirs`
/// parsing every file once, and per file and rule the rule's literal pre-filter applied as the
/// search applies it, then the rule matched.
fn our_rule_matches(cases: &[RuleCase], language: SupportLang, dirs: &[PathBuf]) -> Vec<MatchSet> {
    let queries: Vec<Query> = cases
        .iter()
        .map(|case| {
            let input = RuleInput { rule: &case.rule, constraints: case.constraints.as_ref(), utils: case.utils.as_ref(), transform: None };
            Query::Rule(compile_rule(input, language).unwrap_or_else(|err| panic!("{}: {err}", case.rule)))
        })
        .collect();
    let limits = WalkLimits::new(std::time::Instant::now() + std::time::Duration::from_secs(900));
    let mut sets = vec![MatchSet::new(); cases.len()];
    for dir in dirs {
        let (found, stats) = walk_and_match(dir, language, &Default::default(), &limits, &|path, parsed| {
            let mut per_rule = Vec::new();
            for (index, query) in queries.iter().enumerate() {
                if !query.requirement().admits(parsed.source().as_bytes()) {
                    continue;
                }
                let matches = scan_file(parsed, query, None, &MatchBudget::unlimited(), usize::MAX).matches;
                per_rule.extend(matches.iter().map(|m| (index, path.to_path_buf(), m.range().start, m.range().end)));
            }
            Some(per_rule)
        });
        assert!(!stats.timed_out);
        for (index, path, start, end) in found.into_iter().flatten() {
            sets[index].insert((path, start, end));
        }
    }
    sets
}

/// Every rule's match set equals the CLI's and is not empty; the tool's total equals it for the
/// first rule; returns how many rules were compared.
fn compare_rules(test_name: &str, language: SupportLang, language_id: &str, dirs: &[PathBuf], cases: &[RuleCase]) -> usize {
    let Some(cli) = ast_grep_cli(test_name) else {
        return 0;
    };
    let all_theirs = cli_rule_matches(&cli, cases, language_id, dirs);
    let all_ours = our_rule_matches(cases, language, dirs);
    for ((case, theirs), ours) in cases.iter().zip(&all_theirs).zip(&all_ours) {
        let only_theirs: Vec<_> = theirs.difference(ours).take(5).collect();
        let only_ours: Vec<_> = ours.difference(theirs).take(5).collect();
        assert!(
            only_theirs.is_empty() && only_ours.is_empty(),
            "{language_id} rule {}: ast-grep {} vs ours {}; only ast-grep: {only_theirs:?}; only ours: {only_ours:?}",
            case.rule,
            theirs.len(),
            ours.len()
        );
        assert!(!ours.is_empty(), "{language_id} rule {} matched nothing; pick a rule that occurs in the tree", case.rule);
        eprintln!("{language_id} rule {}: {} matches, identical to ast-grep", case.rule, ours.len());
    }
    // The tool, end to end, reports the same total for the first rule in the first directory.
    let (workspace, path) = match dirs[0].is_file() {
        true => (dirs[0].parent().unwrap().to_path_buf(), dirs[0].file_name().unwrap().to_string_lossy().into_owned()),
        false => (dirs[0].clone(), ".".to_owned()),
    };
    let run = Run::builder(&workspace).with_structural().build().unwrap();
    let first = &cases[0];
    let mut args = json!({"rule": first.rule, "language": language_id, "max_results": 1, "path": path});
    if let Some(constraints) = &first.constraints {
        args["constraints"] = constraints.clone();
    }
    if let Some(utils) = &first.utils {
        args["utils"] = utils.clone();
    }
    let result = run.call(Caller::Main, "ast_grep", args);
    assert!(!result.is_error, "{}", result.joined_text());
    let total = result.structured_content.unwrap()["total_matches"].as_u64().unwrap() as usize;
    assert_eq!(total, cli_rule_matches(&cli, &cases[..1], language_id, &dirs[..1])[0].len());
    cases.len()
}

/// The start and end of the first `kind` node ast-grep finds in `file`, as a `range` rule value
/// (0-based lines and columns, as ast-grep's).
fn range_of_first(cli: &Path, kind: &str, language: &str, file: &Path) -> Value {
    let inline = json!({"id": "range", "language": language, "rule": {"kind": kind}}).to_string();
    let output =
        Command::new(cli).args(["scan", "--inline-rules", &inline, "--json=stream"]).arg(file).output().expect("run ast-grep scan");
    let first = String::from_utf8_lossy(&output.stdout).lines().next().map(|l| serde_json::from_str::<Value>(l).unwrap()).expect("a node");
    let range = &first["range"];
    json!({"start": {"line": range["start"]["line"], "column": range["start"]["column"]}, "end": {"line": range["end"]["line"], "column": range["end"]["column"]}})
}

fn rust_crate_dirs(test_name: &str, wanted: &[&str]) -> Option<Vec<PathBuf>> {
    let Some(index) = std::env::var("HOME")
        .ok()
        .and_then(|home| std::fs::read_dir(Path::new(&home).join(".cargo/registry/src")).ok())
        .and_then(|mut dirs| dirs.next())
        .and_then(|entry| entry.ok())
        .map(|entry| entry.path())
    else {
        support::skip_or_fail(test_name, "no ~/.cargo/registry/src");
        return None;
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&index)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| wanted.iter().any(|w| n.starts_with(w))))
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 3, "expected crates under {}", index.display());
    Some(dirs)
}

#[test]
fn rust_rules_of_every_key_match_like_ast_grep_scan() {
    let test_name = "rust_rules_of_every_key_match_like_ast_grep_scan";
    let Some(dirs) = rust_crate_dirs(test_name, &["ignore-0.4", "serde_json-", "similar-3", "crossbeam-channel-"]) else {
        return;
    };
    let Some(cli) = ast_grep_cli(test_name) else {
        return;
    };
    let ignore_crate =
        dirs.iter().find(|d| d.file_name().is_some_and(|n| n.to_string_lossy().starts_with("ignore-"))).expect("ignore crate");
    let ranged_file = ignore_crate.join("src/walk.rs");
    let range = range_of_first(&cli, "function_item", "rust", &ranged_file);
    let mut cases = vec![
        case(json!({"pattern": "$X.unwrap()", "inside": {"kind": "closure_expression", "stopBy": "end"}})),
        case(json!({"pattern": {"context": "fn f() { let $A = $B; }", "selector": "let_declaration"}})),
        case(json!({"pattern": {"context": "$X.clone()", "strictness": "relaxed"}})),
        case(json!({"pattern": {"context": "fn f() -> $R { $$$B }", "selector": "function_item", "strictness": "signature"}})),
        case(json!({"kind": "closure_expression"})),
        case(json!({"kind": "call_expression > field_expression"})),
        case(json!({"kind": "identifier", "regex": "^[A-Z][A-Z0-9_]+$"})),
        case(json!({"kind": "parameter", "nthChild": 2})),
        case(json!({"kind": "parameter", "nthChild": "2n+1"})),
        case(json!({"kind": "parameter", "nthChild": {"position": 1, "reverse": true, "ofRule": {"kind": "parameter"}}})),
        case(json!({"kind": "function_item", "range": range})),
        case(json!({"kind": "identifier", "inside": {"kind": "let_declaration", "field": "pattern"}})),
        case(json!({"kind": "function_item", "has": {"field": "return_type", "kind": "generic_type"}})),
        case(json!({"kind": "function_item", "has": {"pattern": "$X.unwrap()", "stopBy": {"kind": "closure_expression"}}})),
        case(json!({"kind": "attribute_item", "precedes": {"kind": "function_item"}})),
        case(json!({"kind": "function_item", "follows": {"kind": "attribute_item", "stopBy": "end"}})),
        case(
            json!({"all": [{"kind": "call_expression"}, {"has": {"kind": "field_expression"}}, {"not": {"has": {"kind": "arguments", "has": {"kind": "identifier"}}}}]}),
        ),
        case(json!({"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]})),
        case(json!({"pattern": "$X.clone()", "not": {"inside": {"kind": "closure_expression", "stopBy": "end"}}})),
        RuleCase {
            rule: json!({"matches": "unwrapping"}),
            constraints: None,
            utils: Some(json!({"unwrapping": {"any": [{"pattern": "$X.unwrap()"}, {"pattern": "$X.expect($M)"}]}})),
        },
        RuleCase { rule: json!({"pattern": "$F($$$A)"}), constraints: Some(json!({"F": {"regex": "^(Some|Ok|Err)$"}})), utils: None },
    ];
    // `range` is first in its own single-file run: the node it names is in that file.
    let ranged = cases.remove(10);
    assert_eq!(compare_rules(test_name, SupportLang::Rust, "rust", std::slice::from_ref(&ranged_file), &[ranged]), 1);
    assert_eq!(compare_rules(test_name, SupportLang::Rust, "rust", &dirs, &cases), cases.len());
}

#[test]
fn python_rules_of_every_key_match_like_ast_grep_scan() {
    let test_name = "python_rules_of_every_key_match_like_ast_grep_scan";
    let output = Command::new("python3").args(["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"]).output();
    let Some(stdlib) = output.ok().filter(|o| o.status.success()).map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())) else {
        support::skip_or_fail(test_name, "python3 not found");
        return;
    };
    let dirs: Vec<PathBuf> = ["json", "concurrent", "logging", "http"].iter().map(|d| stdlib.join(d)).filter(|d| d.is_dir()).collect();
    assert!(dirs.len() >= 4, "CPython stdlib at {} lacks the expected packages", stdlib.display());
    let cases = vec![
        case(
            json!({"kind": "function_definition", "not": {"has": {"field": "return_type", "kind": "type"}}, "inside": {"kind": "class_definition", "stopBy": "end"}}),
        ),
        case(json!({"pattern": "print($$$A)", "inside": {"kind": "function_definition", "stopBy": "end"}})),
        case(json!({"kind": "call", "has": {"field": "function", "regex": "^isinstance$"}})),
        case(json!({"any": [{"pattern": "$X is None"}, {"pattern": "$X is not None"}]})),
        case(json!({"kind": "decorator", "precedes": {"kind": "function_definition"}})),
        case(
            json!({"kind": "expression_statement", "nthChild": 1, "has": {"kind": "string"}, "inside": {"kind": "block", "inside": {"kind": "function_definition"}}}),
        ),
        case(json!({"kind": "return_statement", "follows": {"kind": "if_statement"}})),
        RuleCase { rule: json!({"pattern": "self.$A = $B"}), constraints: Some(json!({"A": {"regex": "^_"}})), utils: None },
        case(
            json!({"pattern": {"context": "class A:\n    def $F(self, $$$P): $$$B", "selector": "function_definition"}, "has": {"kind": "identifier", "regex": "^__init__$"}}),
        ),
    ];
    assert_eq!(compare_rules(test_name, SupportLang::Python, "python", &dirs, &cases), cases.len());
}

/// Missed candidates (issue 15 §2) against the CLI on real trees: the nodes the note counts as
/// missed only because of parts the pattern lacks are exactly those the CLI matches with the
/// suggested parts added (union over the combinations) and not without them, per part too, and
/// the suggested texts are the ones that work.
fn compare_missed(
    test_name: &str,
    language_id: &str,
    dir: &Path,
    base: &str,
    variants: &[(&str, &[&str])],
    expected_forms: &[(&str, &str)],
) {
    let Some(cli) = ast_grep_cli(test_name) else {
        return;
    };
    let dirs = [dir.to_path_buf()];
    let matched = cli_matches(&cli, base, language_id, &dirs);
    let mut missed = MatchSet::new();
    let mut by_part: std::collections::BTreeMap<&str, MatchSet> = std::collections::BTreeMap::new();
    for (pattern, parts) in variants {
        let found: MatchSet = cli_matches(&cli, pattern, language_id, &dirs).difference(&matched).cloned().collect();
        for part in *parts {
            by_part.entry(part).or_default().extend(found.iter().cloned());
        }
        missed.extend(found);
    }
    assert!(!missed.is_empty(), "{language_id}: the tree has no candidate missed by `{base}`; pick another tree");
    let run = Run::builder(dir).with_structural().build().unwrap();
    let result = run.call(Caller::Main, "ast_grep", json!({"pattern": base, "language": language_id, "max_results": 1}));
    assert!(!result.is_error, "{}", result.joined_text());
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(structured["total_matches"].as_u64().unwrap() as usize, matched.len());
    let note = &structured["missed_candidates"];
    assert_eq!(note["count"].as_u64().unwrap() as usize, missed.len(), "{language_id} `{base}`: {}", result.joined_text());
    for (part, set) in &by_part {
        assert_eq!(note["by_part"][part].as_u64().unwrap_or(0) as usize, set.len(), "{language_id} part {part}: {}", result.joined_text());
    }
    for (part, add) in expected_forms {
        let forms = note["parts"].as_array().unwrap().iter().find(|p| p["part"] == *part).expect("part listed")["forms"].clone();
        assert!(forms.as_array().unwrap().iter().any(|f| f["add_to_pattern"] == *add), "{language_id} {part}: {add} not among {forms}");
    }
    eprintln!(
        "{language_id} `{base}`: {} matches, {} missed only because of parts it lacks, identical to the CLI with the parts added",
        matched.len(),
        missed.len()
    );
}

#[test]
fn missed_parts_equal_the_cli_matches_of_the_suggested_patterns() {
    let test_name = "structural::differential_tests::missed_parts_equal_the_cli_matches_of_the_suggested_patterns";
    if let Some(redux) = support::corpus::project("redux") {
        let base = "export function $F($$$P) { $$$B }";
        let mut variants: Vec<(String, Vec<&str>)> = Vec::new();
        for (type_parameters, tp) in [("", None), ("<$$$TYPE_PARAMETERS>", Some("type_parameters"))] {
            for (return_type, rt) in
                [("", None), (": $RETURN_TYPE", Some("return_type")), (": asserts $$$RETURN_TYPE", Some("return_type"))]
            {
                if tp.is_none() && rt.is_none() {
                    continue;
                }
                variants.push((
                    format!("export function $F{type_parameters}($$$P){return_type} {{ $$$B }}"),
                    tp.into_iter().chain(rt).collect(),
                ));
            }
        }
        let variants: Vec<(&str, &[&str])> = variants.iter().map(|(p, parts)| (p.as_str(), parts.as_slice())).collect();
        compare_missed(
            test_name,
            "typescript",
            &redux.path().join("src"),
            base,
            &variants,
            &[("type_parameters", "<$$$TYPE_PARAMETERS>"), ("return_type", ": $RETURN_TYPE")],
        );
    }
    let output = Command::new("python3").args(["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"]).output();
    let Some(stdlib) = output.ok().filter(|o| o.status.success()).map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())) else {
        support::skip_or_fail(test_name, "python3 not found");
        return;
    };
    compare_missed(
        test_name,
        "python",
        &stdlib.join("importlib"),
        "def $F($$$P): $$$B",
        &[("def $F($$$P) -> $RETURN_TYPE: $$$B", &["return_type"])],
        &[("return_type", "-> $RETURN_TYPE")],
    );
}

/// The cost of the missed-parts check, as a ratio to the same search without it
/// (`max_missed_candidates: 0`) in one run, alternating per package, over ten packages of
/// CPython's standard library, where every unmatched `def` is a candidate. Printed as a `TIMING` line, never asserted.
#[test]
fn missed_parts_check_cost_ratio_on_the_standard_library() {
    let output = Command::new("python3").args(["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"]).output();
    let Some(stdlib) = output.ok().filter(|o| o.status.success()).map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())) else {
        support::skip_or_fail("structural::differential_tests::missed_parts_check_cost_ratio_on_the_standard_library", "python3 not found");
        return;
    };
    let with_check = Run::builder(&stdlib).with_structural().build().unwrap();
    let mut config = runbound::RunConfig::default();
    config.structural.max_missed_candidates = 0;
    let without_check = Run::builder(&stdlib).with_structural().config(config).build().unwrap();
    let (mut with_total, mut without_total) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    let mut missed = 0;
    for dir in ["importlib", "asyncio", "email", "json", "logging", "http", "unittest", "xml", "tomllib", "concurrent"] {
        if !stdlib.join(dir).is_dir() {
            continue;
        }
        let arguments = json!({"pattern": "def $F($$$P): $$$B", "language": "python", "path": dir, "max_results": 1});
        let start = std::time::Instant::now();
        let result = without_check.call(Caller::Main, "ast_grep", arguments.clone());
        without_total += start.elapsed();
        assert!(!result.is_error, "{}", result.joined_text());
        assert!(result.structured_content.unwrap()["missed_candidates"].is_null());
        let start = std::time::Instant::now();
        let result = with_check.call(Caller::Main, "ast_grep", arguments.clone());
        with_total += start.elapsed();
        assert!(!result.is_error, "{}", result.joined_text());
        missed += result.structured_content.unwrap()["missed_candidates"]["count"].as_u64().unwrap_or(0);
    }
    assert!(missed > 0, "the standard library has annotated functions");
    eprintln!(
        "TIMING missed-parts check on 10 packages of {} (`def $F($$$P): $$$B`, {missed} missed): {:.2}x the search without it ({} ms vs {} ms)",
        stdlib.display(),
        with_total.as_secs_f64() / without_total.as_secs_f64(),
        with_total.as_millis(),
        without_total.as_millis()
    );
}
