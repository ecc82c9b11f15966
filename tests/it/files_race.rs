//! Confinement under attack: a thread swaps a workspace directory with a symlink to a directory
//! outside the workspace (`renameat2(RENAME_EXCHANGE)` in a tight loop) while `read`, `write`,
//! `edit`, `apply_patch` and `ast_edit` + `resolve accept` run on paths inside that directory.
//! Whatever the interleaving, nothing outside may be read or written and no temp file may be
//! left behind. Each tool runs for a bounded number of calls (and at most a few seconds); the
//! test asserts counts, never timings. A second test does the same to `lsp` outline, hover and
//! a workspace symbol query on a real pyright: no answer may quote the outside file or list a
//! symbol name from it.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use runbound::{Approval, ApprovalPolicy, Caller, Run};
use serde_json::{json, Value};

use crate::support;

/// Calls per tool (fewer when the time cap below runs out first).
const CALLS_PER_TOOL: usize = 300;
/// Wall-clock cap per tool, so the test stays within a few seconds on a loaded machine.
const TIME_CAP_PER_TOOL: Duration = Duration::from_millis(1500);
/// Longest a tool is called while none of its calls has succeeded yet.
const GIVE_UP_AFTER: Duration = Duration::from_secs(10);
/// Files prepared per tool (calls past this reuse names; their outcome still counts).
const FILES_PER_TOOL: usize = CALLS_PER_TOOL;
/// What only the outside copy of `secret.txt` contains.
const OUTSIDE_MARKER: &str = "OUTSIDE-SECRET";

/// The exchange loop the unit tests of by-path reads use too (`src/files/test_exchange.rs`).
#[path = "../../src/files/test_exchange.rs"]
mod test_exchange;
use test_exchange::ExchangeLoop;

/// Every file under `dir` (recursively, not following symlinks) with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                out.push((entry.path(), fs::read(entry.path()).unwrap()));
            } else {
                out.push((entry.path(), b"<symlink or special>".to_vec()));
            }
        }
    }
    out.sort();
    out
}

fn temp_files_under(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir)
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with(".runbound-") || name.ends_with(".tmp")
        })
        .collect()
}

struct Tally {
    calls: usize,
    successes: usize,
    outside_reads: usize,
}

/// Runs `call(i)` [`CALLS_PER_TOOL`] times, or fewer when [`TIME_CAP_PER_TOOL`] runs out after
/// a first success; more (up to [`GIVE_UP_AFTER`]) while none has succeeded, so that a tool
/// that only ever failed cannot pass for a safe one.
fn hammer(mut call: impl FnMut(usize) -> (bool, String)) -> Tally {
    let mut tally = Tally { calls: 0, successes: 0, outside_reads: 0 };
    let started = Instant::now();
    let mut index = 0;
    loop {
        let enough = index >= CALLS_PER_TOOL || started.elapsed() > TIME_CAP_PER_TOOL;
        if (enough && tally.successes > 0) || started.elapsed() > GIVE_UP_AFTER {
            break;
        }
        let (ok, text) = call(index);
        tally.calls += 1;
        tally.successes += usize::from(ok);
        tally.outside_reads += usize::from(text.contains(OUTSIDE_MARKER));
        index += 1;
    }
    tally
}

fn call(run: &Run, tool: &str, arguments: Value) -> (bool, String, Value) {
    let result = run.call(Caller::Main, tool, arguments);
    let structured = result.structured_content.clone().unwrap_or(Value::Null);
    (!result.is_error, result.joined_text(), structured)
}

#[test]
fn symlink_exchange_race_reaches_nothing_outside_and_leaves_no_temp_files() {
    let parent = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(parent.path()).unwrap();
    let root = base.join("workspace");
    let inside = root.join("d");
    let outside = base.join("outside");
    fs::create_dir_all(&inside).unwrap();
    fs::create_dir_all(&outside).unwrap();
    // Both copies of the directory hold the same files (so that a redirected edit, patch or
    // resolve would pass its content checks and land), except the secret read targets.
    let mut files: Vec<(String, String)> = vec![("secret.txt".to_owned(), String::new())];
    for index in 0..FILES_PER_TOOL {
        files.push((format!("e{index}.txt"), "value = 1\n".to_owned()));
        files.push((format!("p{index}.txt"), "value = 1\n".to_owned()));
        files.push((format!("r{index}.py"), "compute(1)\n".to_owned()));
    }
    for (name, content) in &files {
        fs::write(inside.join(name), content).unwrap();
        fs::write(outside.join(name), content).unwrap();
    }
    fs::write(inside.join("secret.txt"), "inside secret\n").unwrap();
    fs::write(outside.join("secret.txt"), format!("{OUTSIDE_MARKER}\n")).unwrap();
    symlink(&outside, root.join("s")).unwrap();
    let outside_before = snapshot(&outside);
    let run = Run::builder(&root).approval_policy(ApprovalPolicy::for_write_and_exec(Approval::Allow)).with_structural().build().unwrap();

    let exchange = ExchangeLoop::start(root.join("d"), root.join("s"));
    let read = hammer(|_| {
        let (ok, text, _) = call(&run, "read", json!({"path": "d/secret.txt"}));
        (ok, text)
    });
    let write = hammer(|index| {
        let (ok, text, _) = call(&run, "write", json!({"path": format!("d/w{index}.txt"), "content": format!("written {index}\n")}));
        (ok, text)
    });
    let edit = hammer(|index| {
        let (ok, text, _) = call(
            &run,
            "edit",
            json!({"path": format!("d/e{}.txt", index % FILES_PER_TOOL), "old_string": "value = 1", "new_string": "value = 2"}),
        );
        (ok, text)
    });
    let patch = hammer(|index| {
        let patch = format!(
            "*** Begin Patch\n*** Update File: d/p{}.txt\n@@\n-value = 1\n+value = 2\n*** Add File: d/pa{index}.txt\n+added\n*** End Patch\n",
            index % FILES_PER_TOOL
        );
        let (ok, text, _) = call(&run, "apply_patch", json!({"patch": patch}));
        (ok, text)
    });
    let resolve = hammer(|index| {
        let (ok, text, structured) = call(
            &run,
            "ast_edit",
            json!({"pattern": "compute($X)", "rewrite": "calculate($X)", "path": format!("d/r{}.py", index % FILES_PER_TOOL), "language": "python"}),
        );
        let Some(edit_id) = structured["edit_id"].as_str().filter(|_| ok) else {
            return (false, text);
        };
        let (ok, text, _) = call(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
        (ok, text)
    });
    let swaps = exchange.finish();

    assert!(inside.is_dir() && !fs::symlink_metadata(&inside).unwrap().file_type().is_symlink(), "d is the directory again");
    let outside_after = snapshot(&outside);
    let changed_outside: Vec<String> = outside_after
        .iter()
        .filter(|entry| !outside_before.contains(entry))
        .map(|(path, _)| path.strip_prefix(&outside).unwrap().display().to_string())
        .collect();
    let leftovers = temp_files_under(&base);
    let report = format!(
        "swaps {swaps}; read {}/{} ok, {} outside reads; write {}/{} ok; edit {}/{} ok; apply_patch {}/{} ok; resolve {}/{} ok; \
         {} files created or changed outside: {:?}; {} leftover temp files: {:?}",
        read.successes,
        read.calls,
        read.outside_reads,
        write.successes,
        write.calls,
        edit.successes,
        edit.calls,
        patch.successes,
        patch.calls,
        resolve.successes,
        resolve.calls,
        changed_outside.len(),
        changed_outside.iter().take(10).collect::<Vec<_>>(),
        leftovers.len(),
        leftovers.iter().take(10).collect::<Vec<_>>(),
    );
    eprintln!("files_race: {report}");
    assert!(swaps > 0, "the exchange loop never swapped: {report}");
    for (tool, tally) in [("read", &read), ("write", &write), ("edit", &edit), ("apply_patch", &patch), ("resolve", &resolve)] {
        assert!(tally.successes > 0, "{tool} never succeeded under the race, so it proved nothing: {report}");
    }
    assert_eq!(read.outside_reads, 0, "read returned the outside file: {report}");
    assert!(changed_outside.is_empty(), "files outside the workspace were written: {report}");
    assert!(leftovers.is_empty(), "temp files were left behind: {report}");
}

/// How long each `lsp` op is called under the race (pyright answers in tens to hundreds of ms).
const LSP_TIME_PER_OP: Duration = Duration::from_secs(12);
/// Successful answers wanted per op (a waiting pyright can take the whole time on one call).
const LSP_MIN_SUCCESSES: usize = 3;
/// Longest an op is called while it has fewer than [`LSP_MIN_SUCCESSES`] successes.
const LSP_GIVE_UP_AFTER: Duration = Duration::from_secs(90);
/// What only the outside copy of `m.py` contains (an identifier, so pyright lists it).
const OUTSIDE_IDENTIFIER: &str = "OUTSIDE_SECRET_fn";

/// `lsp` outline (`symbols`) and `hover` on a real pyright while `d` is exchanged with a symlink
/// to an outside directory holding a different `m.py`: the text sent to the server
/// (`didOpen`/`didChange`) and the text the answer quotes are read beneath the workspace root,
/// so no answer may name the outside file's function (issue 13 §1; before the reads went
/// through `files::WorkspaceReader` this leaked in about 1 call in 12).
#[test]
fn symlink_exchange_race_never_makes_lsp_answer_from_outside() {
    if support::require_binary("files_race::symlink_exchange_race_never_makes_lsp_answer_from_outside", "pyright-langserver").is_none() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(parent.path()).unwrap();
    let root = base.join("workspace");
    let outside = base.join("outside");
    fs::create_dir_all(root.join("d")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("pyproject.toml"), "[project]\nname = 'race'\nversion = '0'\n").unwrap();
    fs::write(root.join("d/m.py"), "def inside_fn():\n    return 1\n").unwrap();
    fs::write(outside.join("m.py"), format!("def {OUTSIDE_IDENTIFIER}():\n    return 1\n")).unwrap();
    symlink(&outside, root.join("s")).unwrap();
    let run = Run::builder(&root).language_servers().build().unwrap();
    let symbols = json!({"op": "symbols", "file": "d/m.py"});
    let hover = json!({"op": "hover", "file": "d/m.py", "line": 1, "symbol": "fn"});
    // pyright reads the files it indexes by path itself: under the race it can index the
    // outside copy; a symbol's name is that file's content, so the answer must not list it.
    let workspace_symbols = json!({"op": "symbols", "query": "fn"});
    // Warm up without the race: pyright started, the file analysed.
    let warm = Instant::now();
    loop {
        let (ok, text, _) = call(&run, "lsp", symbols.clone());
        if ok && text.contains("inside_fn") {
            break;
        }
        assert!(warm.elapsed() < Duration::from_secs(90), "pyright never answered the outline before the race: {text}");
        std::thread::sleep(Duration::from_millis(500));
    }

    let exchange = ExchangeLoop::start(root.join("d"), root.join("s"));
    let mut tallies = Vec::new();
    for (op, arguments) in [("symbols", &symbols), ("hover", &hover), ("workspace symbols", &workspace_symbols)] {
        let mut tally = Tally { calls: 0, successes: 0, outside_reads: 0 };
        let mut leaked: Vec<String> = Vec::new();
        let started = Instant::now();
        while started.elapsed() < LSP_TIME_PER_OP || (tally.successes < LSP_MIN_SUCCESSES && started.elapsed() < LSP_GIVE_UP_AFTER) {
            let (ok, text, structured) = call(&run, "lsp", arguments.clone());
            tally.calls += 1;
            tally.successes += usize::from(ok);
            if text.contains(OUTSIDE_IDENTIFIER) || structured.to_string().contains(OUTSIDE_IDENTIFIER) {
                tally.outside_reads += 1;
                leaked.push(text.chars().take(200).collect());
            }
        }
        tallies.push((op, tally, leaked));
    }
    let swaps = exchange.finish();
    let report: Vec<String> = tallies
        .iter()
        .map(|(op, tally, leaked)| {
            format!(
                "{op} {}/{} ok, {} outside reads {:?}",
                tally.successes,
                tally.calls,
                tally.outside_reads,
                leaked.iter().take(2).collect::<Vec<_>>()
            )
        })
        .collect();
    let report = format!("swaps {swaps}; {}", report.join("; "));
    eprintln!("files_race lsp: {report}");
    assert!(swaps > 0, "the exchange loop never swapped: {report}");
    for (op, tally, _) in &tallies {
        assert!(tally.successes > 0, "lsp {op} never succeeded under the race, so it proved nothing: {report}");
        assert_eq!(tally.outside_reads, 0, "lsp {op} answered from the outside file: {report}");
    }
}
