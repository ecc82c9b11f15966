//! Bench binary: the latency diagnostics on write (R-DOW-1) adds over the bare write, per
//! server, against the server's own publish time.
//!
//! For each server (pyright, typescript-language-server, gopls, clangd-19, rust-analyzer) on a
//! small project written into a temp dir, `ITERATIONS` rounds (after two warm-up rounds), each
//! writing a new error variant of the same file (so every write changes the content and the
//! diagnostics):
//! - bare: the `write` tool of a run without language servers (the write alone);
//! - dow: the `write` tool of a run with language servers and diagnostics on write (the write,
//!   the sync, the wait for fresh diagnostics, the settle window, the ledger, the rendering);
//! - publish: the same server handle, driven raw: the file written with `std::fs::write`, the
//!   document synced (`didChange` + `didSave`), then the time until the server's first publish
//!   after the sync (`first`) and until its last publish before it stays quiet for the quiet
//!   window (`last`; rust-analyzer's flycheck publishes after its native diagnostics).
//!
//! Printed per server: p50 / p90 of bare and dow, p50 of first and last publish, `added` = dow
//! p50 − bare p50, and `over last` = added − last publish p50, the part that is ours (settle
//! window, pull round trip, waiting for check progress). Target: `over last` ≤ 300 ms.
//!
//! Run: `cargo bench --bench diagnostics_on_write` (a server that is not installed is skipped
//! with a line saying so). Environment `RUNBOUND_BENCH_ITERATIONS` overrides the round count
//! (default 10).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use runbound::{Approval, ApprovalPolicy, Caller, Run, RunConfig};
use serde_json::json;

struct Case {
    server: &'static str,
    binary: &'static str,
    files: &'static [(&'static str, &'static str)],
    file: &'static str,
    /// The file body with `{}` replaced by a per-round number; each variant has one error whose
    /// message names the number, so the ledger sees a new error every round.
    template: &'static str,
    /// How long without a new publish ends the raw measurement.
    quiet_window: Duration,
}

const CASES: &[Case] = &[
    Case {
        server: "pyright",
        binary: "pyright-langserver",
        files: &[("pyproject.toml", "[project]\nname = \"bench\"\nversion = \"0.1.0\"\n")],
        file: "app.py",
        template: "def f() -> int:\n    return 1\n\n\nvalue_{}: int = \"text {}\"\n",
        quiet_window: Duration::from_millis(1000),
    },
    Case {
        server: "typescript-language-server",
        binary: "typescript-language-server",
        files: &[
            ("package.json", "{\"name\": \"bench\", \"version\": \"1.0.0\"}\n"),
            ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ],
        file: "src/app.ts",
        template: "export function f(): number {\n  return 1;\n}\nexport const value_{}: number = missing_{};\n",
        quiet_window: Duration::from_millis(1000),
    },
    Case {
        server: "gopls",
        binary: "gopls",
        files: &[("go.mod", "module example.com/bench\n\ngo 1.19\n")],
        file: "app.go",
        template: "package bench\n\nfunc F() int {\n\treturn 1\n}\n\nvar value_{} int = \"text {}\"\n",
        quiet_window: Duration::from_millis(1000),
    },
    Case {
        server: "clangd",
        binary: "clangd-19",
        files: &[("compile_flags.txt", "-std=c11\n")],
        file: "app.c",
        template: "int f(void) {\n  return 1;\n}\nint value_{} = nope_{};\n",
        quiet_window: Duration::from_millis(1000),
    },
    Case {
        server: "rust-analyzer",
        binary: "rust-analyzer",
        files: &[
            ("Cargo.toml", "[package]\nname = \"bench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n"),
            ("src/lib.rs", "pub mod app;\n"),
        ],
        file: "src/app.rs",
        template: "pub fn f() -> i32 {\n    1\n}\npub const VALUE_{}: i32 = MISSING_{};\n",
        quiet_window: Duration::from_millis(2500),
    },
];

const WARMUP: usize = 2;

fn main() {
    let iterations: usize = std::env::var("RUNBOUND_BENCH_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    println!("diagnostics-on-write bench: {iterations} rounds per server after {WARMUP} warm-up rounds; times in ms");
    println!(
        "{:<28} | {:>8} {:>8} | {:>8} {:>8} | {:>9} {:>9} | {:>8} {:>9} | reported",
        "server", "bare p50", "bare p90", "dow p50", "dow p90", "1st pub", "last pub", "added", "over last"
    );
    for case in CASES {
        if which::which(case.binary).is_err() {
            println!("{:<28} skipped: {} not installed", case.server, case.binary);
            continue;
        }
        bench_case(case, iterations);
    }
}

fn bench_case(case: &Case, iterations: usize) {
    let bare_workspace = workspace_with(case.files);
    let dow_workspace = workspace_with(case.files);
    std::fs::create_dir_all(dow_workspace.path().join(case.file).parent().unwrap()).unwrap();
    std::fs::write(dow_workspace.path().join(case.file), case.template.replace("{}", "0")).unwrap();
    let policy = || ApprovalPolicy::for_write_and_exec(Approval::Allow);
    let bare_run = Run::builder(bare_workspace.path()).approval_policy(policy()).build().expect("bare run");
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = Duration::from_secs(30);
    let dow_run = Run::builder(dow_workspace.path()).config(config).approval_policy(policy()).language_servers().build().expect("dow run");
    let supervisor = dow_run.lsp_supervisor().expect("supervisor");
    let path = std::fs::canonicalize(dow_workspace.path().join(case.file)).unwrap();
    let lease = supervisor.server_for_file(&path, Some(case.server), Instant::now() + Duration::from_secs(60)).expect("server");
    let server = lease.server;
    server.wait_until_ready(Instant::now() + Duration::from_secs(120));

    let (mut bare, mut dow, mut first_publish, mut last_publish) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut reported = 0;
    let mut round_number = 0;
    for round in 0..WARMUP + iterations {
        // The server's own publish time, on the same warm server.
        round_number += 1;
        std::fs::write(&path, case.template.replace("{}", &round_number.to_string())).unwrap();
        let start = Instant::now();
        let sync = server.sync_document(&path).expect("sync");
        let (first, last) = wait_for_publishes(&server, &path, sync.generation_before, start, case.quiet_window);
        // The same kind of write through the tool, with diagnostics on write.
        round_number += 1;
        let content = case.template.replace("{}", &round_number.to_string());
        let start = Instant::now();
        let result = dow_run.call(Caller::Main, "write", json!({"path": case.file, "content": content}));
        let dow_elapsed = start.elapsed();
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        // The bare write of the same content.
        let start = Instant::now();
        let result = bare_run.call(Caller::Main, "write", json!({"path": case.file, "content": content}));
        let bare_elapsed = start.elapsed();
        assert!(!result.is_error, "{}", result.joined_text());
        if round < WARMUP {
            continue;
        }
        if text.contains("new diagnostics introduced by this write") {
            reported += 1;
        }
        bare.push(bare_elapsed);
        dow.push(dow_elapsed);
        // A server that answers pulls only (pyright offers `textDocument/diagnostic`) never
        // publishes: counted, and printed as "none" rather than as 0 ms.
        first_publish.extend(first);
        last_publish.extend(last);
    }
    let (bare_p50, bare_p90) = percentiles(&mut bare);
    let (dow_p50, dow_p90) = percentiles(&mut dow);
    let added = ms(dow_p50) - ms(bare_p50);
    let published = first_publish.len();
    let (first_text, last_text, over_text) = if published == 0 {
        ("none".to_owned(), "none".to_owned(), "n/a".to_owned())
    } else {
        let (first_p50, _) = percentiles(&mut first_publish);
        let (last_p50, _) = percentiles(&mut last_publish);
        (format!("{:.1}", ms(first_p50)), format!("{:.1}", ms(last_p50)), format!("{:+.1}", added - ms(last_p50)))
    };
    println!(
        "{:<28} | {:>8.1} {:>8.1} | {:>8.1} {:>8.1} | {first_text:>9} {last_text:>9} | {added:>8.1} {over_text:>9} | {reported}/{iterations} writes reported their new error; {published}/{iterations} raw syncs got a publish",
        case.server,
        ms(bare_p50),
        ms(bare_p90),
        ms(dow_p50),
        ms(dow_p90),
    );
}

/// Time from `start` to the first publish for `path` after `generation_before`, and to the
/// last one before `quiet_window` passes without another (at most 60 s in all).
fn wait_for_publishes(
    server: &runbound::lsp::client::LanguageServer,
    path: &Path,
    generation_before: u64,
    start: Instant,
    quiet_window: Duration,
) -> (Option<Duration>, Option<Duration>) {
    let (mut first, mut last, mut seen_generation) = (None, None, generation_before);
    let give_up = start + Duration::from_secs(60);
    loop {
        if let Some(set) = server.published_diagnostics(path) {
            if set.generation > seen_generation {
                seen_generation = set.generation;
                let at = set.received_at.saturating_duration_since(start);
                first.get_or_insert(at);
                last = Some(at);
            }
        }
        let quiet_since = last.map(|at| start + at).unwrap_or(start);
        let now = Instant::now();
        if now >= give_up || (now >= quiet_since + quiet_window && (last.is_some() || now >= start + quiet_window * 10)) {
            return (first, last);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn percentiles(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.9))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn workspace_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (relative, content) in files {
        let path: PathBuf = dir.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
    }
    dir
}
