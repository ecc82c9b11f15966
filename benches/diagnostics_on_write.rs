//! Bench binary: the latency diagnostics on write (issue 11 §3) adds to a write, per server, on
//! real third-party projects: a comment-only write (the file stays clean) against a write that
//! adds an error, p50 and p95. Goal: the clean write's p95 within 1 s of the error write's p95 on
//! every server (a clean file gets no publish from most servers, so a wait for one stalls).
//!
//! Projects (each copied into a temp dir first): the run-wide corpus of `.ci/install-corpus`
//! (`.corpus/`: semver, python-dateutil, redux, go-cmp) when it is there, else (or with
//! `RUNBOUND_BENCH_OWN_PROJECTS` set) these, which `bash benches/dow_projects.sh` fetches into
//! `target/dow-bench-projects` where they come from registries (`RUNBOUND_DOW_PROJECTS` points
//! elsewhere); clangd always uses liblzma:
//! - rust-analyzer: regex-syntax 0.8.12 (cargo registry cache; `benches/` removed, it needs
//!   nightly), writing `src/hir/interval.rs`;
//! - pyright: packaging 24.1 (PyPI sdist), writing `src/packaging/version.py`;
//! - typescript-language-server: mobx 6.13.5 (npm, TypeScript sources; a `tsconfig.json` added),
//!   writing `src/utils/utils.ts`;
//! - gopls: go-cmp (Debian's golang-github-google-go-cmp-dev), writing `cmp/internal/value/name.go`;
//! - clangd: xz's liblzma as bundled by liblzma-sys 0.4.9 (cargo registry cache; a
//!   `compile_flags.txt` from its build.rs added), writing the header
//!   `xz/src/liblzma/delta/delta_common.h`.
//!
//! Per round, on one warm run: `clean` = the file plus a new comment line (clean → clean);
//! `error` = that plus a line with a new type error (clean → error); `fix` = back to the clean
//! text (error → clean). Each is the `write` tool's whole call with diagnostics on write; `bare`
//! is the same write in a run without language servers. Printed per server: p50 and p95 of each
//! (ms), `clean p95 − error p95`, how many writes answered as expected (clean: "no new errors in
//! <file>"; error: the new error listed; fix: it listed as resolved), the checked set, and the
//! median time of each phase of the check per kind of write (the result's `phases_ms`).
//!
//! pyright runs twice: as configured by default, and with
//! `write_diagnostics_reuse_pulled_states` off (every state pulled), the ratio of the two in one
//! run being what reusing states saves.
//!
//! Run: `cargo bench --bench diagnostics_on_write` (a server or project that is missing is skipped
//! with a line saying so). `RUNBOUND_BENCH_ITERATIONS` sets the rounds (default 10, after 2
//! warm-up rounds); `RUNBOUND_BENCH_SERVERS` (comma-separated ids) picks servers.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig};
use serde_json::json;

struct Case {
    server: &'static str,
    /// Printed in the `server` column (the server id, or a variant of its configuration).
    label: &'static str,
    /// A last change to the run's configuration (a variant compared with the default).
    configure: fn(&mut RunConfig),
    binary: &'static str,
    /// The project of the run-wide corpus (`.ci/install-corpus`, `.corpus/`) preferred when it
    /// is there: (name, directory under `.corpus`, file to write). The corpus prepares its
    /// projects itself (no `prepare`).
    corpus: Option<(&'static str, &'static str, &'static str)>,
    project: &'static str,
    /// Where the project is, when it is on this machine.
    locate: fn() -> Option<PathBuf>,
    /// Makes the copy checkable (config files the package does not ship).
    prepare: fn(&Path),
    file: &'static str,
    comment: fn(usize) -> String,
    error: fn(usize) -> String,
}

const WARMUP: usize = 2;

fn cases() -> Vec<Case> {
    vec![
        Case {
            server: "rust-analyzer",
            label: "rust-analyzer",
            configure: |_| (),
            binary: "rust-analyzer",
            corpus: Some(("semver 1.0.26 (corpus)", "rust/semver-1.0.26", "src/parse.rs")),
            project: "regex-syntax 0.8.12",
            locate: || cargo_registry_crate("regex-syntax-0.8.12"),
            prepare: |dir| {
                // Its bench needs nightly: drop it and its manifest entry.
                let _ = std::fs::remove_dir_all(dir.join("benches"));
                let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
                let mut kept = Vec::new();
                let mut skipping = false;
                for line in manifest.lines() {
                    if line.starts_with('[') {
                        skipping = line.trim() == "[[bench]]";
                    }
                    if !skipping {
                        kept.push(line);
                    }
                }
                std::fs::write(dir.join("Cargo.toml"), kept.join("\n") + "\n").unwrap();
            },
            file: "src/hir/interval.rs",
            comment: |n| format!("// bench comment {n}\n"),
            error: |n| format!("pub fn dow_bench_{n}() -> u8 {{ \"text\" }}\n"),
        },
        Case {
            server: "pyright",
            label: "pyright",
            configure: |_| (),
            binary: "pyright-langserver",
            corpus: Some(("python-dateutil 2.9.0 (corpus)", "python/python-dateutil-2.9.0.post0", "src/dateutil/relativedelta.py")),
            project: "packaging 24.1 (PyPI sdist)",
            locate: || projects_dir().map(|dir| dir.join("packaging-24.1")).filter(|dir| dir.is_dir()),
            prepare: |_| (),
            file: "src/packaging/version.py",
            comment: |n| format!("# bench comment {n}\n"),
            error: |n| format!("dow_bench_{n}: int = \"text\"\n"),
        },
        // The same with every state pulled (no reuse of the last pull while nothing changed, none
        // carried across a comment-only write): the importers' pre-write states of the error
        // write after a comment write cost a re-analysis each (issue 11: error-write p50 1.7x).
        Case {
            server: "pyright",
            label: "pyright, states not reused",
            configure: |config| config.lsp.write_diagnostics_reuse_pulled_states = false,
            binary: "pyright-langserver",
            corpus: Some(("python-dateutil 2.9.0 (corpus)", "python/python-dateutil-2.9.0.post0", "src/dateutil/relativedelta.py")),
            project: "packaging 24.1 (PyPI sdist)",
            locate: || projects_dir().map(|dir| dir.join("packaging-24.1")).filter(|dir| dir.is_dir()),
            prepare: |_| (),
            file: "src/packaging/version.py",
            comment: |n| format!("# bench comment {n}\n"),
            error: |n| format!("dow_bench_{n}: int = \"text\"\n"),
        },
        Case {
            server: "typescript-language-server",
            label: "typescript-language-server",
            configure: |_| (),
            binary: "typescript-language-server",
            corpus: Some(("redux 5.0.1 (corpus)", "typescript/redux-5.0.1", "src/utils/isPlainObject.ts")),
            project: "mobx 6.13.5 (npm)",
            locate: || projects_dir().map(|dir| dir.join("mobx-6.13.5")).filter(|dir| dir.is_dir()),
            prepare: |dir| {
                let tsconfig = r#"{"compilerOptions": {"strict": true, "noImplicitAny": false, "noImplicitThis": false, "noEmit": true, "target": "es2019", "lib": ["es2019", "dom"], "downlevelIteration": true, "experimentalDecorators": true, "skipLibCheck": true}, "include": ["src"]}"#;
                std::fs::write(dir.join("tsconfig.json"), tsconfig).unwrap();
            },
            file: "src/utils/utils.ts",
            comment: |n| format!("// bench comment {n}\n"),
            error: |n| format!("export const dowBench{n}: number = \"text\"\n"),
        },
        Case {
            server: "gopls",
            label: "gopls",
            configure: |_| (),
            binary: "gopls",
            corpus: Some(("go-cmp 0.5.9 (corpus)", "go/go-cmp-0.5.9", "cmp/internal/value/name.go")),
            project: "go-cmp (Debian golang-github-google-go-cmp-dev)",
            locate: || Some(PathBuf::from("/usr/share/gocode/src/github.com/google/go-cmp")).filter(|dir| dir.join("go.mod").is_file()),
            prepare: |_| (),
            file: "cmp/internal/value/name.go",
            comment: |n| format!("// bench comment {n}\n"),
            error: |n| format!("var dowBench{n} int = \"text\"\n"),
        },
        Case {
            server: "clangd",
            label: "clangd",
            configure: |_| (),
            binary: "clangd-19",
            corpus: None,
            project: "xz liblzma (liblzma-sys 0.4.9)",
            locate: || cargo_registry_crate("liblzma-sys-0.4.9"),
            prepare: |dir| {
                let mut flags = String::from("-DHAVE_CONFIG_H=1\n-DNDEBUG\n-I.\n-Ixz/src/common\n");
                for sub in ["api", "lzma", "lz", "check", "simple", "delta", "common", "rangecoder"] {
                    flags.push_str(&format!("-Ixz/src/liblzma/{sub}\n"));
                }
                std::fs::write(dir.join("compile_flags.txt"), flags).unwrap();
            },
            file: "xz/src/liblzma/delta/delta_common.h",
            comment: |n| format!("// bench comment {n}\n"),
            error: |n| format!("static const int dow_bench_{n} = dow_undeclared_{n};\n"),
        },
    ]
}

fn main() {
    let iterations: usize = std::env::var("RUNBOUND_BENCH_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    let only: Option<Vec<String>> =
        std::env::var("RUNBOUND_BENCH_SERVERS").ok().map(|list| list.split(',').map(|id| id.trim().to_owned()).collect());
    println!("diagnostics-on-write bench: {iterations} rounds per server after {WARMUP} warm-up rounds; whole write calls, ms");
    println!(
        "{:<27} | {:<32} | {:>7} | {:>8} {:>8} | {:>8} {:>8} | {:>8} {:>8} | {:>9} | answered as expected",
        "server", "project", "bare", "clean50", "clean95", "error50", "error95", "fix50", "fix95", "c95-e95"
    );
    for case in cases() {
        if only.as_ref().is_some_and(|only| !only.iter().any(|id| id == case.server)) {
            continue;
        }
        if which::which(case.binary).is_err() {
            println!("{:<27} skipped: {} not installed", case.label, case.binary);
            continue;
        }
        let prefer_own = std::env::var_os("RUNBOUND_BENCH_OWN_PROJECTS").is_some();
        let corpus = case
            .corpus
            .map(|(name, dir, file)| (name, Path::new(env!("CARGO_MANIFEST_DIR")).join(".corpus").join(dir), file))
            .filter(|(_, dir, file)| !prefer_own && dir.join(".runbound-corpus").is_file() && dir.join(file).is_file());
        match corpus {
            Some((name, dir, file)) => {
                let case = Case { project: name, file, prepare: |_| (), ..case };
                bench_case(&case, &dir, iterations);
            }
            None => {
                let Some(source) = (case.locate)() else {
                    println!("{:<27} skipped: project {} not found (run `bash benches/dow_projects.sh`)", case.label, case.project);
                    continue;
                };
                bench_case(&case, &source, iterations);
            }
        }
    }
}

fn bench_case(case: &Case, source: &Path, iterations: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(source, dir.path());
    (case.prepare)(dir.path());
    let bare_dir = tempfile::tempdir().expect("temp dir");
    copy_tree(source, bare_dir.path());
    let original = std::fs::read_to_string(dir.path().join(case.file)).expect("target file");
    let policy = || ApprovalPolicy::for_write_and_exec(Approval::Allow);
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_check_budget = Duration::from_secs(120);
    config.lsp.write_diagnostics_budget = Duration::from_secs(60);
    config.tool_timeouts.insert("write".to_owned(), Duration::from_secs(300));
    (case.configure)(&mut config);
    let run = Run::builder(dir.path()).config(config).approval_policy(policy()).language_servers().build().expect("run");
    let bare = Run::builder(bare_dir.path()).approval_policy(policy()).build().expect("bare run");
    // Where each write's check spent its time (`phases_ms` of the result), per kind of write.
    let phases: std::cell::RefCell<std::collections::BTreeMap<(&str, String), Vec<u64>>> = Default::default();
    let write_as = |run: &Run, content: &str, kind: &'static str| -> (Duration, String) {
        let start = Instant::now();
        let result = run.call(Caller::Main, "write", json!({"path": case.file, "content": content}));
        let elapsed = start.elapsed();
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        let servers = result.structured_content.as_ref().and_then(|content| content.pointer("/diagnostics_on_write/servers")).cloned();
        for server in servers.as_ref().and_then(|servers| servers.as_array()).into_iter().flatten() {
            if let Some(reused) = server["states_reused"].as_u64() {
                phases.borrow_mut().entry((kind, "states reused (files, not ms)".to_owned())).or_default().push(reused);
            }
            for phase in server["phases_ms"].as_array().into_iter().flatten() {
                if let (Some(name), Some(ms)) = (phase[0].as_str(), phase[1].as_u64()) {
                    phases.borrow_mut().entry((kind, name.to_owned())).or_default().push(ms);
                }
            }
        }
        (elapsed, text)
    };
    let write = |run: &Run, content: &str| -> (Duration, String) { write_as(run, content, "other") };
    let (mut bare_times, mut clean_times, mut error_times, mut fix_times) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut clean_ok, mut error_ok, mut fix_ok) = (0, 0, 0);
    let mut checked_line = String::new();
    let mut odd_answers: Vec<String> = Vec::new();
    let file = case.file;
    for round in 0..WARMUP + iterations {
        let clean = format!("{}{}", (case.comment)(round), original);
        let broken = format!("{clean}{}", (case.error)(round));
        let measured = round >= WARMUP;
        let (clean_time, clean_text) = write_as(&run, &clean, if measured { "clean" } else { "warm-up" });
        let (error_time, error_text) = write_as(&run, &broken, if measured { "error" } else { "warm-up" });
        let (fix_time, fix_text) = write_as(&run, &clean, if measured { "fix" } else { "warm-up" });
        let (bare_time, _) = write(&bare, &clean);
        if round < WARMUP {
            continue;
        }
        bare_times.push(bare_time);
        clean_times.push(clean_time);
        error_times.push(error_time);
        fix_times.push(fix_time);
        let block = |text: &str| text.split("Diagnostics after the write:").nth(1).unwrap_or("").to_owned();
        let clean_block = block(&clean_text);
        if clean_block.contains(&format!("no new errors in {file}")) && !clean_block.contains("unavailable") {
            clean_ok += 1;
        } else {
            odd_answers.push(format!("clean write: {clean_block}"));
        }
        if block(&error_text).contains(&format!("{file}: new diagnostics introduced by this write")) {
            error_ok += 1;
        } else {
            odd_answers.push(format!("error write: {}", block(&error_text)));
        }
        if block(&fix_text).contains(&format!("{file}: resolved by this write")) {
            fix_ok += 1;
        } else {
            odd_answers.push(format!("fix write: {}", block(&fix_text)));
        }
        if let Some(line) = clean_block.lines().find(|line| line.starts_with("checked: ")) {
            checked_line = line.to_owned();
        }
    }
    let p = |samples: &mut Vec<Duration>| percentiles(samples);
    let (bare50, _) = p(&mut bare_times);
    let (clean50, clean95) = p(&mut clean_times);
    let (error50, error95) = p(&mut error_times);
    let (fix50, fix95) = p(&mut fix_times);
    println!(
        "{:<27} | {:<32} | {:>7.1} | {:>8.0} {:>8.0} | {:>8.0} {:>8.0} | {:>8.0} {:>8.0} | {:>+9.0} | clean {clean_ok}/{iterations}, error {error_ok}/{iterations}, fix {fix_ok}/{iterations}",
        case.label,
        case.project,
        ms(bare50),
        ms(clean50),
        ms(clean95),
        ms(error50),
        ms(error95),
        ms(fix50),
        ms(fix95),
        ms(clean95) - ms(error95),
    );
    println!("{:<27}   {checked_line}", "");
    for kind in ["clean", "error", "fix"] {
        let medians: Vec<String> = phases
            .borrow_mut()
            .iter_mut()
            .filter(|((of, _), _)| *of == kind)
            .map(|((_, name), samples)| {
                samples.sort();
                format!("{name} {}", samples[samples.len() / 2])
            })
            .collect();
        if !medians.is_empty() {
            println!("{:<27}   {kind} write phases, median ms: {}", "", medians.join(", "));
        }
    }
    for answer in odd_answers.iter().take(3) {
        println!("{:<27}   unexpected answer: {}", "", answer.replace('\n', " | "));
    }
}

fn percentiles(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.95))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn projects_dir() -> Option<PathBuf> {
    match std::env::var_os("RUNBOUND_DOW_PROJECTS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("target/dow-bench-projects")),
    }
}

fn cargo_registry_crate(name: &str) -> Option<PathBuf> {
    let home =
        std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let registry = home.join("registry/src");
    std::fs::read_dir(registry).ok()?.flatten().map(|index| index.path().join(name)).find(|dir| dir.join("Cargo.toml").is_file())
}

/// Copies `from` into `to` (files and directories; symlinks skipped), without `target/`,
/// `node_modules/` and `.git/`.
fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read project dir").flatten() {
        let name = entry.file_name();
        if matches!(name.to_str(), Some("target" | "node_modules" | ".git")) {
            continue;
        }
        let source = entry.path();
        let destination = to.join(&name);
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            std::fs::create_dir_all(&destination).unwrap();
            copy_tree(&source, &destination);
        } else if kind.is_file() {
            std::fs::copy(&source, &destination).unwrap();
            // Registry sources are read-only; the bench writes into its copy.
            let mut permissions = std::fs::metadata(&destination).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            std::fs::set_permissions(&destination, permissions).unwrap();
        }
    }
}
