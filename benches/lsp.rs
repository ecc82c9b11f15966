//! Bench binary: the `lsp` tool's overhead over the raw LSP request on the same warm server, and
//! cold start to first answer, per server.
//!
//! For each server (pyright and rust-analyzer always; typescript-language-server, gopls, clangd,
//! pylsp when installed) on the fixture projects under `tests/data/lsp/`:
//! - cold: a fresh run; time of the first `definition` call until its complete answer (process
//!   start, `initialize`, indexing wait, the request);
//! - warm: `ITERATIONS` alternating calls of our `definition` / `references` (the whole tool
//!   pipeline: registry, schema validation, symbol resolution, document resync, readiness check,
//!   formatting) and of the same LSP request sent through the same server handle as a typed
//!   `request::<GotoDefinition>` / `request::<References>` (lsp-types params and result); p50 /
//!   p90 of each and the p50 overhead.
//!
//! Run: `cargo bench --bench lsp` (a server that is not installed is skipped with a line saying
//! so). Environment `RUNBOUND_BENCH_ITERATIONS` overrides the iteration count (default 60).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use runbound::lsp::uri::path_to_lsp_uri;
use runbound::{Caller, Run, RunConfig};
use serde_json::json;

struct Case {
    server: &'static str,
    binary: &'static str,
    fixture: &'static str,
    file: &'static str,
    line: u32,
    symbol: &'static str,
    occurrence: usize,
}

const CASES: &[Case] = &[
    Case { server: "pyright", binary: "pyright-langserver", fixture: "python", file: "main.py", line: 6, symbol: "double", occurrence: 2 },
    Case {
        server: "rust-analyzer",
        binary: "rust-analyzer",
        fixture: "rust",
        file: "src/lib.rs",
        line: 10,
        symbol: "double",
        occurrence: 2,
    },
    Case {
        server: "typescript-language-server",
        binary: "typescript-language-server",
        fixture: "typescript",
        file: "src/main.ts",
        line: 5,
        symbol: "double",
        occurrence: 2,
    },
    Case { server: "gopls", binary: "gopls", fixture: "go", file: "apply.go", line: 6, symbol: "Double", occurrence: 2 },
    Case { server: "clangd", binary: "clangd-19", fixture: "c", file: "main.c", line: 10, symbol: "twice_of", occurrence: 2 },
    Case { server: "pylsp", binary: "pylsp", fixture: "python", file: "main.py", line: 6, symbol: "double", occurrence: 2 },
];

fn main() {
    let iterations: usize = std::env::var("RUNBOUND_BENCH_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    println!("lsp bench: {iterations} warm iterations per op; times in ms");
    println!(
        "{:<28} {:>9} | {:<10} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "server", "cold", "op", "ours p50", "ours p90", "raw p50", "raw p90", "overhead"
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
    let workspace = copy_fixture(case.fixture);
    let run = Run::builder(workspace.path()).config(RunConfig::default()).language_servers().build().expect("run");
    let mut arguments = json!({"op": "definition", "file": case.file, "line": case.line, "symbol": case.symbol, "occurrence": case.occurrence, "server": case.server});
    let cold_start = Instant::now();
    let first = run.call(Caller::Main, "lsp", arguments.clone());
    let cold = cold_start.elapsed();
    if first.is_error {
        println!("{:<28} first call failed: {}", case.server, first.joined_text().lines().next().unwrap_or(""));
        return;
    }
    let supervisor = run.lsp_supervisor().expect("supervisor");
    let path = std::fs::canonicalize(workspace.path().join(case.file)).unwrap();
    let lease = supervisor.server_for_file(&path, Some(case.server), Instant::now() + Duration::from_secs(30)).expect("server");
    let server = lease.server;
    // Wait until fully indexed so both sides measure the same warm server.
    server.wait_until_ready(Instant::now() + Duration::from_secs(120));
    let text = std::fs::read_to_string(&path).unwrap();
    let resolved = runbound::lsp::resolve_symbol_on_line(&text, case.line, case.symbol, Some(case.occurrence)).unwrap();
    let (line0, character) = resolved.lsp_position(server.position_encoding());
    let position = lsp_types::TextDocumentPositionParams {
        text_document: lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(&path) },
        position: lsp_types::Position { line: line0, character },
    };
    for op in ["definition", "references"] {
        arguments["op"] = json!(op);
        let mut ours = Vec::with_capacity(iterations);
        let mut raw = Vec::with_capacity(iterations);
        for round in 0..iterations + 5 {
            let start = Instant::now();
            let result = run.call(Caller::Main, "lsp", arguments.clone());
            let ours_elapsed = start.elapsed();
            assert!(!result.is_error, "{}", result.joined_text());
            let start = Instant::now();
            let deadline = Instant::now() + Duration::from_secs(30);
            let found = if op == "definition" {
                let params = lsp_types::GotoDefinitionParams {
                    text_document_position_params: position.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                server.request::<lsp_types::request::GotoDefinition>(params, deadline).expect("raw request").is_some()
            } else {
                let params = lsp_types::ReferenceParams {
                    text_document_position: position.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                    context: lsp_types::ReferenceContext { include_declaration: true },
                };
                server.request::<lsp_types::request::References>(params, deadline).expect("raw request").is_some()
            };
            let raw_elapsed = start.elapsed();
            assert!(found);
            if round >= 5 {
                ours.push(ours_elapsed);
                raw.push(raw_elapsed);
            }
        }
        let (ours_p50, ours_p90) = percentiles(&mut ours);
        let (raw_p50, raw_p90) = percentiles(&mut raw);
        let cold_text = if op == "definition" { format!("{:.0}", ms(cold)) } else { String::new() };
        println!(
            "{:<28} {:>9} | {:<10} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>+9.2}",
            case.server,
            cold_text,
            op,
            ms(ours_p50),
            ms(ours_p90),
            ms(raw_p50),
            ms(raw_p90),
            ms(ours_p50) - ms(raw_p50)
        );
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

fn copy_fixture(name: &str) -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lsp").join(name);
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&source, dir.path());
    dir
}

fn copy_dir(source: &Path, target: &Path) {
    std::fs::create_dir_all(target).unwrap();
    for entry in std::fs::read_dir(source).unwrap().flatten() {
        let destination: PathBuf = target.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &destination);
        } else {
            std::fs::copy(entry.path(), &destination).unwrap();
        }
    }
}
