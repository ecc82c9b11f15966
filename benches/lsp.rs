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
//! Then, on the real-project corpus (`.corpus/`, fetched by `.ci/install-corpus`), the cost of
//! the `references` cross-check (`rename_coverage::complete_references`: every whole-word
//! occurrence outside the server's answer is asked `definition`) per server, for a common name
//! (many same-named other symbols) and a rare one: on a warm server, `CORPUS_ITERATIONS`
//! interleaved rounds of the raw request, the raw request plus the cross-check (what the tool
//! did for every server before `ServerDefinition::cross_check_references`), and the tool as
//! configured by default; p50 of each and the ratios to the raw request.
//!
//! Run: `cargo bench --bench lsp` (`-- dispatch` or `-- corpus` for one section; a server that is not installed, or a corpus project that was
//! not fetched, is skipped with a line saying so). Environment `RUNBOUND_BENCH_ITERATIONS`
//! overrides the iteration count (default 60), `RUNBOUND_BENCH_CORPUS_ITERATIONS` the corpus one
//! (default 10).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use runbound::benching::path_to_lsp_uri;
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
    // `cargo bench --bench lsp -- corpus` runs only the corpus section, `-- dispatch` only the
    // fixture one; no section name runs both.
    let sections: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let run_section = |name: &str| sections.is_empty() || sections.iter().any(|s| s == name);
    if run_section("dispatch") {
        bench_dispatch();
    }
    if run_section("corpus") {
        bench_corpus();
    }
}

fn bench_dispatch() {
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

fn bench_corpus() {
    let corpus_iterations: usize = std::env::var("RUNBOUND_BENCH_CORPUS_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    println!();
    println!("references cross-check on the corpus: {corpus_iterations} warm rounds per name; p50 in ms; x = ratio to the raw request;");
    println!("found = references the check added to the server's answer (* = it also had notes: uses not listed, not checked)");
    println!(
        "{:<28} {:<36} {:>5} {:>6} {:>9} {:>12} {:>7} {:>12} {:>7} {:>9}",
        "server", "name (grep -w hits)", "refs", "found", "raw", "raw+check", "x", "tool", "x", "default"
    );
    // `RUNBOUND_BENCH_CORPUS_SERVER=rust-analyzer` runs one server's rows only.
    let only = std::env::var("RUNBOUND_BENCH_CORPUS_SERVER").ok();
    for case in CORPUS_CASES {
        if only.as_deref().is_some_and(|only| only != case.server) {
            continue;
        }
        if which::which(case.binary).is_err() {
            println!("{:<28} skipped: {} not installed", case.server, case.binary);
            continue;
        }
        let cached = match case.project.strip_prefix("registry:") {
            // A crate runbound itself depends on, from the cargo registry's unpacked sources.
            Some(name) => registry_source(name).unwrap_or_default(),
            None => Path::new(env!("CARGO_MANIFEST_DIR")).join(".corpus").join(case.project),
        };
        if case.project.starts_with("registry:") && cached.join("Cargo.toml").is_file() {
            bench_cross_check(case, &cached, corpus_iterations);
            continue;
        }
        if !cached.join(".runbound-corpus").is_file() {
            println!("{:<28} skipped: {} not fetched (bash .ci/install-corpus)", case.server, cached.display());
            continue;
        }
        bench_cross_check(case, &cached, corpus_iterations);
    }
}

/// `$CARGO_HOME/registry/src/<index>/<name>` (e.g. `textwrap-0.16.4`), if unpacked there.
fn registry_source(name: &str) -> Option<std::path::PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .map(|index| index.path().join(name))
        .find(|path| path.join("Cargo.toml").is_file())
}

struct CorpusCase {
    server: &'static str,
    binary: &'static str,
    /// Under `.corpus/`.
    project: &'static str,
    file: &'static str,
    /// (label, 1-based line, symbol) of each name asked.
    names: &'static [(&'static str, u32, &'static str)],
}

const CORPUS_CASES: &[CorpusCase] = &[
    CorpusCase {
        server: "pyright",
        binary: "pyright-langserver",
        project: "python/python-dateutil-2.9.0.post0",
        file: "src/dateutil/parser/_parser.py",
        names: &[("common: parser.parse", 572, "parse"), ("rare: UnknownTimezoneWarning", 1608, "UnknownTimezoneWarning")],
    },
    CorpusCase {
        server: "pylsp",
        binary: "pylsp",
        project: "python/python-dateutil-2.9.0.post0",
        file: "src/dateutil/parser/_parser.py",
        names: &[("common: parser.parse", 572, "parse"), ("rare: UnknownTimezoneWarning", 1608, "UnknownTimezoneWarning")],
    },
    CorpusCase {
        server: "rust-analyzer",
        binary: "rust-analyzer",
        project: "rust/semver-1.0.26",
        file: "src/lib.rs",
        names: &[("common: Version::parse", 431, "parse"), ("rare: cmp_precedence", 475, "cmp_precedence")],
    },
    // The same names in the registry's semver 1.0.28 (when `.corpus/` is not fetched).
    CorpusCase {
        server: "rust-analyzer",
        binary: "rust-analyzer",
        project: "registry:semver-1.0.28",
        file: "src/lib.rs",
        names: &[("common: Version::parse", 422, "parse"), ("rare: cmp_precedence", 466, "cmp_precedence")],
    },
    // textwrap: rust-analyzer's own answer misses the 8 uses of `display_width` inside
    // `assert_eq!` in `#[cfg(test)] mod tests` (15 of 23); the cross-check names them.
    CorpusCase {
        server: "rust-analyzer",
        binary: "rust-analyzer",
        project: "registry:textwrap-0.16.4",
        file: "src/core.rs",
        names: &[("macro uses: display_width", 197, "display_width")],
    },
    CorpusCase {
        server: "typescript-language-server",
        binary: "typescript-language-server",
        project: "typescript/redux-5.0.1",
        file: "src/createStore.ts",
        names: &[("common: dispatch", 271, "dispatch"), ("rare: kindOf (import)", 15, "{ kindOf")],
    },
    CorpusCase {
        server: "gopls",
        binary: "gopls",
        project: "go/go-cmp-0.5.9",
        file: "cmp/path.go",
        names: &[("common: Path.String", 99, "String"), ("rare: Path.GoString", 114, "GoString")],
    },
];

fn bench_cross_check(case: &CorpusCase, cached: &Path, iterations: usize) {
    let workspace = tempfile::tempdir().expect("temp dir");
    copy_dir(cached, workspace.path());
    relocate_venv(cached, workspace.path());
    let mut config = RunConfig::default();
    config.lsp.indexing_wait = Duration::from_secs(180);
    let run = Run::builder(workspace.path()).config(config).language_servers().build().expect("run");
    let supervisor = run.lsp_supervisor().expect("supervisor");
    let path = std::fs::canonicalize(workspace.path().join(case.file)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    for (label, line, symbol) in case.names {
        let arguments = json!({"op": "references", "file": case.file, "line": line, "symbol": symbol, "server": case.server});
        // Warm: until the answer is complete (the server finished indexing).
        for _ in 0..40 {
            let first = run.call(Caller::Main, "lsp", arguments.clone());
            // A cold server may use up a call's whole time (cargo metadata, build scripts).
            if !first.is_error && !first.joined_text().contains("may be incomplete") {
                break;
            }
            std::thread::sleep(Duration::from_secs(3));
        }
        let server = runbound::benching::server_for_file(supervisor, &path, Some(case.server), Instant::now() + Duration::from_secs(60))
            .expect("server");
        let resolved = runbound::benching::resolve_symbol_on_line(&text, *line, symbol, None).unwrap();
        let (line0, character) = resolved.lsp_position(server.position_encoding());
        let params = lsp_types::ReferenceParams {
            text_document_position: lsp_types::TextDocumentPositionParams {
                text_document: lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(&path) },
                position: lsp_types::Position { line: line0, character },
            },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
            context: lsp_types::ReferenceContext { include_declaration: true },
        };
        let grep_hits = runbound::benching::grep_word_hit_count(server.definition(), server.root(), &resolved.cursor_identifier);
        let (mut raw, mut checked, mut tool) = (Vec::new(), Vec::new(), Vec::new());
        let (mut references, mut added, mut check_notes) = (0, 0, 0);
        for round in 0..iterations + 2 {
            let start = Instant::now();
            let answer =
                server.request::<lsp_types::request::References>(params.clone(), Instant::now() + Duration::from_secs(60)).expect("raw");
            let raw_elapsed = start.elapsed();
            references = answer.map_or(0, |locations| locations.len());
            let start = Instant::now();
            let answer =
                server.request::<lsp_types::request::References>(params.clone(), Instant::now() + Duration::from_secs(60)).expect("raw");
            let before = answer.as_ref().map_or(0, Vec::len);
            let (completed, notes) = runbound::benching::complete_references(
                &server,
                workspace.path(),
                &path,
                line0,
                character,
                &resolved.cursor_identifier,
                answer,
                Instant::now() + Duration::from_secs(10),
            );
            let checked_elapsed = start.elapsed();
            added = completed.len().saturating_sub(before);
            check_notes = notes;
            let start = Instant::now();
            let result = run.call(Caller::Main, "lsp", arguments.clone());
            let tool_elapsed = start.elapsed();
            assert!(!result.is_error, "{}", result.joined_text());
            if round >= 2 {
                raw.push(raw_elapsed);
                checked.push(checked_elapsed);
                tool.push(tool_elapsed);
            }
        }
        let (raw_p50, _) = percentiles(&mut raw);
        let (checked_p50, _) = percentiles(&mut checked);
        let (tool_p50, _) = percentiles(&mut tool);
        let default = if server.definition().cross_check_references { "checks" } else { "no check" };
        println!(
            "{:<28} {:<36} {:>5} {:>6} {:>9.1} {:>12.1} {:>7.1} {:>12.1} {:>7.1} {:>9}",
            case.server,
            format!("{label} ({grep_hits})"),
            references,
            format!("+{added}{}", if check_notes > 0 { "*" } else { "" }),
            ms(raw_p50),
            ms(checked_p50),
            ms(checked_p50) / ms(raw_p50).max(0.01),
            ms(tool_p50),
            ms(tool_p50) / ms(raw_p50).max(0.01),
            default
        );
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
    let server = runbound::benching::server_for_file(supervisor, &path, Some(case.server), Instant::now() + Duration::from_secs(30))
        .expect("server");
    // Wait until fully indexed so both sides measure the same warm server.
    server.wait_until_ready(Instant::now() + Duration::from_secs(120));
    let text = std::fs::read_to_string(&path).unwrap();
    let resolved = runbound::benching::resolve_symbol_on_line(&text, case.line, case.symbol, Some(case.occurrence)).unwrap();
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
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            // A venv's `bin/python` points at the interpreter it was made from.
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &destination).unwrap();
        } else if kind.is_dir() {
            copy_dir(&entry.path(), &destination);
        } else {
            std::fs::copy(entry.path(), &destination).unwrap();
        }
    }
}

/// Points a copied `.venv` at the copy: its `pyvenv.cfg`, console scripts and the `.pth` files of
/// the project's editable install record the cache's absolute path (else the server resolves the
/// project's own package into the cache, outside the workspace).
fn relocate_venv(from: &Path, to: &Path) {
    let venv = to.join(".venv");
    if !venv.is_dir() {
        return;
    }
    // The venv records where it was made (`command = … -m venv <root>/.venv`), which may be
    // another checkout's corpus than the one copied.
    let configuration = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap_or_default();
    let made_at = configuration
        .lines()
        .find_map(|line| line.strip_prefix("command = "))
        .and_then(|command| command.rsplit(' ').next())
        .and_then(|path| path.strip_suffix("/.venv"))
        .map(str::to_owned);
    let from = made_at.unwrap_or_else(|| from.to_str().unwrap().to_owned());
    let (from, to) = (from.as_str(), to.to_str().unwrap());
    let mut directories = vec![venv.clone(), venv.join("bin")];
    for entry in std::fs::read_dir(venv.join("lib")).into_iter().flatten().flatten() {
        directories.push(entry.path().join("site-packages"));
    }
    for directory in directories {
        for entry in std::fs::read_dir(&directory).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let recorded = directory.ends_with("bin") || name == "pyvenv.cfg" || name.ends_with(".pth") || name.starts_with("__editable__");
            if !recorded || !entry.file_type().is_ok_and(|kind| kind.is_file()) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue }; // binaries are not text
            if text.contains(from) {
                std::fs::write(&path, text.replace(from, to)).unwrap();
            }
        }
    }
}
