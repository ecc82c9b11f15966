//! Differential test against the real ast-grep CLI (npm `@ast-grep/cli` 0.51, installed by
//! `.ci/install` into `.tools/node_modules/.bin/ast-grep`; never `sg`, which is another
//! program on Debian): on real trees present on the machine — parts of the installed CPython's
//! standard library and crates under `~/.cargo/registry/src` — the match set (file, byte range)
//! of our engine equals the CLI's, for patterns whose bare and contextual parses agree. The
//! `ast_grep` tool's `total_matches` is checked against the same set.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use runbound::structural::search::{walk_and_match, WalkLimits};
use runbound::structural::{compile_pattern, match_source, SupportLang};
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
    let Some(index) = std::env::var("HOME")
        .ok()
        .and_then(|home| std::fs::read_dir(Path::new(&home).join(".cargo/registry/src")).ok())
        .and_then(|mut dirs| dirs.next())
        .and_then(|entry| entry.ok())
        .map(|entry| entry.path())
    else {
        support::skip_or_fail("cargo_registry_crates_matches_equal_ast_grep_cli", "no ~/.cargo/registry/src");
        return;
    };
    let wanted = ["ignore-", "regex-syntax-", "serde_json-", "similar-", "crossbeam-channel-", "ast-grep-core-", "clap_builder-"];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&index)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| wanted.iter().any(|w| n.starts_with(w))))
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5, "expected crates under {}", index.display());
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
