//! The real-project corpus (issue 11 §6): pinned third-party projects that `.ci/install-corpus`
//! fetched from the package registries into `.corpus/` (git-ignored), and the independent ground
//! truth the corpus tests check the tools against (a word search over the sources, the project's
//! own compiler and test suite), plus a timing line for the report.
//!
//! `project(name)` hands a test a fresh copy of one cached project, so every test may change it.
//! A project that was not fetched prints a loud SKIP locally and fails under `CI`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The cached projects: (name a test asks for, directory under `.corpus/`).
const PROJECTS: &[(&str, &str)] = &[
    ("python-dateutil", "python/python-dateutil-2.9.0.post0"),
    ("semver", "rust/semver-1.0.26"),
    ("redux", "typescript/redux-5.0.1"),
    ("table-core", "typescript/table-core-8.20.5"),
    ("go-cmp", "go/go-cmp-0.5.9"),
    ("gods", "go/gods-1.12.0"),
];

/// The name the test harness gives the current test's thread (`module::test`), for SKIP lines.
fn current_test() -> String {
    std::thread::current().name().unwrap_or("corpus test").to_owned()
}

/// Where `.ci/install-corpus` caches `name`, whether or not it is there.
pub fn cached_path(name: &str) -> PathBuf {
    let (_, relative) =
        PROJECTS.iter().find(|(known, _)| *known == name).unwrap_or_else(|| panic!("unknown corpus project {name:?}; known: {PROJECTS:?}"));
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".corpus").join(relative)
}

/// A fresh copy of the cached project `name` (one of `python-dateutil`, `semver`, `redux`,
/// `table-core`, `go-cmp`, `gods`) in a new temp dir whose root is the project's root. Symlinks are copied as symlinks;
/// a Python project's `.venv` is relocated to the copy (its scripts and its editable install's
/// `.pth` named the cache's absolute path), so the copy's own code is what its interpreter imports.
///
/// Returns `None` after a loud SKIP line locally, and panics under `CI`, when `.ci/install-corpus`
/// has not fetched the project (no `.runbound-corpus` stamp in its directory).
pub fn project(name: &str) -> Option<tempfile::TempDir> {
    let cached = cached_path(name);
    if !cached.join(".runbound-corpus").is_file() {
        super::skip_or_fail(
            &current_test(),
            &format!("corpus project {name} is not in {} (run `bash .ci/install-corpus`, part of .ci/install)", cached.display()),
        );
        return None;
    }
    let copy = tempfile::Builder::new().prefix(&format!("corpus-{name}-")).tempdir().expect("create a temp dir for the corpus copy");
    copy_tree(&cached, copy.path());
    let venv = copy.path().join(".venv");
    if venv.is_dir() {
        // The venv records the path it was made at: the cache's real path, which differs from
        // `cached` when `.corpus` (or a part of it) is a symlink to another checkout's cache.
        let real = std::fs::canonicalize(&cached).unwrap_or_else(|_| cached.clone());
        relocate_venv(&venv, &real, copy.path());
        if real != cached {
            relocate_venv(&venv, &cached, copy.path());
        }
    }
    Some(copy)
}

fn copy_tree(source: &Path, target: &Path) {
    std::fs::create_dir_all(target).expect("create dir");
    for entry in std::fs::read_dir(source).unwrap_or_else(|err| panic!("read {}: {err}", source.display())) {
        let entry = entry.expect("dir entry");
        let (path, destination) = (entry.path(), target.join(entry.file_name()));
        let kind = entry.file_type().expect("file type");
        if kind.is_symlink() {
            let link = std::fs::read_link(&path).expect("read symlink");
            std::os::unix::fs::symlink(&link, &destination).expect("copy symlink");
        } else if kind.is_dir() {
            copy_tree(&path, &destination);
        } else {
            std::fs::copy(&path, &destination).unwrap_or_else(|err| panic!("copy {}: {err}", path.display()));
        }
    }
}

/// Rewrites the cache's absolute path to the copy's in the venv's text files that record it:
/// console scripts' shebangs, `activate*`, `pyvenv.cfg`, and `.pth` files (the editable install).
///
/// The path replaced is the one the venv records (`command = … -m venv <root>/.venv` in
/// `pyvenv.cfg`), else the cache's: a corpus copied from another checkout records that one.
fn relocate_venv(venv: &Path, from: &Path, to: &Path) {
    let configuration = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap_or_default();
    let made_at = configuration
        .lines()
        .find_map(|line| line.strip_prefix("command = "))
        .and_then(|command| command.rsplit(' ').next())
        .and_then(|path| path.strip_suffix("/.venv"))
        .map(str::to_owned);
    let from = made_at.unwrap_or_else(|| from.to_str().expect("utf-8 cache path").to_owned());
    let (from, to) = (from.as_str(), to.to_str().expect("utf-8 temp path"));
    let mut candidates: Vec<PathBuf> = vec![venv.join("pyvenv.cfg")];
    for dir in [venv.join("bin")].into_iter().chain(site_packages(venv)) {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let is_file = entry.file_type().is_ok_and(|kind| kind.is_file());
            let in_bin = dir.ends_with("bin");
            let recorded = path.extension().is_some_and(|ext| ext == "pth")
                || path.file_name().is_some_and(|file| file.to_string_lossy().starts_with("__editable__"));
            if is_file && (in_bin || recorded) {
                candidates.push(path);
            }
        }
    }
    for path in candidates {
        let Ok(text) = std::fs::read_to_string(&path) else { continue }; // binaries are not text
        if text.contains(from) {
            std::fs::write(&path, text.replace(from, to)).unwrap_or_else(|err| panic!("relocate {}: {err}", path.display()));
        }
    }
}

fn site_packages(venv: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(venv.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("site-packages"))
        .filter(|path| path.is_dir())
        .collect()
}

/// What a command printed and how it ended.
#[derive(Debug)]
pub struct CommandOutput {
    /// The command line, for messages.
    pub command: String,
    /// Exit status code (`None`: killed by a signal or by the timeout).
    pub code: Option<i32>,
    /// Standard output and standard error, interleaved as text (stdout first).
    pub text: String,
    /// Wall time.
    pub elapsed: Duration,
}

impl CommandOutput {
    /// Whether the command exited with status 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `program args` in `dir` with extra `env`, at most `timeout` (then kills it); captures
/// its output. For the projects' own build and test commands (the ground truth), never for
/// anything the tools under test should do.
pub fn run(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)], timeout: Duration) -> CommandOutput {
    let command = format!("{program} {}", args.join(" "));
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("start `{command}` in {}: {err}", dir.display()));
    let read_all = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("piped stderr")));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the command") {
            break Some(status);
        }
        if start.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!("{}{}", stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    let code = status.and_then(|status| status.code());
    let text = if status.is_none() { format!("{text}\n[killed after {timeout:?}]") } else { text };
    CommandOutput { command, code, text, elapsed: start.elapsed() }
}

/// Asserts that `output` succeeded, showing its last 60 lines otherwise.
pub fn assert_success(output: &CommandOutput, what: &str) {
    assert!(
        output.success(),
        "{what}: `{}` exited {:?} after {:?}:\n{}",
        output.command,
        output.code,
        output.elapsed,
        tail(&output.text, 60)
    );
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// One occurrence of a word in a source file: path relative to the project root (with `/`),
/// 1-based line, the line's text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Occurrence {
    /// Path relative to the project root.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The whole line.
    pub text: String,
}

impl Occurrence {
    /// `file:line`, the form the tools print.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Every line under `roots` (relative to `dir`) of a file ending in one of `extensions` where
/// `word` occurs as a whole identifier (not inside a longer identifier), after removing what
/// `strip` says is not code on that line (e.g. a `//` comment). Sorted by file, then line.
/// The independent ground truth for references and renames: a grep, not a language server.
pub fn word_occurrences(dir: &Path, roots: &[&str], extensions: &[&str], word: &str, strip: fn(&str) -> Cow<'_, str>) -> Vec<Occurrence> {
    let mut found = Vec::new();
    for root in roots {
        let mut pending = vec![dir.join(root)];
        while let Some(path) = pending.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap_or_else(|err| panic!("read {}: {err}", path.display())).flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if !(name.starts_with('.') || name == "node_modules" || name == "target" || name == "__pycache__") {
                        pending.push(entry.path());
                    }
                }
                continue;
            }
            if !extensions.iter().any(|ext| path.to_string_lossy().ends_with(&format!(".{ext}"))) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let relative = path.strip_prefix(dir).expect("under the project").to_string_lossy().replace('\\', "/");
            for (index, line) in text.lines().enumerate() {
                if contains_word(&strip(line), word) {
                    found.push(Occurrence { file: relative.clone(), line: index + 1, text: line.to_owned() });
                }
            }
        }
    }
    found.sort();
    found
}

/// Whether `word` occurs in `text` delimited by non-identifier characters.
pub fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// Keeps a line as it is (Python: a `#` inside a string would make stripping wrong; callers pick
/// words that comments do not mention).
pub fn keep_line(line: &str) -> Cow<'_, str> {
    Cow::Borrowed(line)
}

/// Cuts a `//` line comment (Rust, TypeScript, Go) and a line that continues a `/* */` or doc block
/// (starts with `*` after indentation).
pub fn strip_slash_comment(line: &str) -> Cow<'_, str> {
    if line.trim_start().starts_with('*') || line.trim_start().starts_with("/*") {
        return Cow::Borrowed("");
    }
    Cow::Borrowed(line.find("//").map_or(line, |at| &line[..at]))
}

/// Like [`strip_slash_comment`], and cuts an import's module specifier (`from './utils/kindOf'`),
/// a string that names a file, not the symbol (TypeScript).
pub fn strip_ts_comment_and_module_path(line: &str) -> Cow<'_, str> {
    let code = strip_slash_comment(line);
    match code.find(" from '").or_else(|| code.find(" from \"")) {
        Some(at) => Cow::Owned(code[..at].to_owned()),
        None => code,
    }
}

/// Like [`strip_slash_comment`], with the contents of string literals on the line blanked
/// (`"…"` with escapes, `` `…` ``), so a name inside a message is not counted as code (Go).
pub fn strip_go_comment_and_strings(line: &str) -> Cow<'_, str> {
    let mut code = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                code.push(c);
            }
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(_) => {}
            None if c == '"' || c == '`' => {
                quote = Some(c);
                code.push(c);
            }
            None if c == '/' && chars.peek() == Some(&'/') => break,
            None => code.push(c),
        }
    }
    Cow::Owned(code)
}

/// Cuts a Python `#` comment when the line has no quote before it.
pub fn strip_hash_comment(line: &str) -> Cow<'_, str> {
    match line.find('#') {
        Some(at) if !line[..at].contains(['"', '\'']) => Cow::Borrowed(&line[..at]),
        _ => Cow::Borrowed(line),
    }
}

/// The `file:line` locations a compiler printed, for the files under `prefix` (e.g. `src/`),
/// from lines shaped `path:line:col: …` (rustc --message-format=short, go) or
/// `path(line,col): error …` (tsc). Paths are made relative to `dir` when they are absolute.
pub fn compiler_error_locations(output: &str, dir: &Path) -> Vec<String> {
    let root = format!("{}/", dir.display());
    let mut locations = Vec::new();
    for line in output.lines() {
        let line = line.trim_start_matches("vet: ").trim_start();
        let line = line.strip_prefix(&root).unwrap_or(line);
        let (path, rest) = if let Some(open) = line.find('(').filter(|&at| line[at..].contains("): error")) {
            (&line[..open], &line[open + 1..])
        } else if let Some(colon) = line.find(':') {
            (&line[..colon], &line[colon + 1..])
        } else {
            continue;
        };
        let path = path.trim_start_matches("./");
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let is_source = [".rs", ".go", ".ts", ".py"].iter().any(|ext| path.ends_with(ext));
        if is_source && !digits.is_empty() && !path.contains(' ') {
            let location = format!("{path}:{digits}");
            if !locations.contains(&location) {
                locations.push(location);
            }
        }
    }
    locations
}

/// Prints a `TIMING …` line straight to stderr (past the harness's capture, like SKIP lines), so
/// the measured latencies of a corpus run show in a plain `cargo test` log for the report.
pub fn report_timing(what: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "\nTIMING {}: {what}\n", current_test());
}

/// The text of the diagnostics-on-write block of a writing tool's result (after `Diagnostics
/// after the write:`). Panics when there is none: every write with language servers has one.
pub fn diagnostics_block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics-on-write block in:\n{text}"))
}

/// Asserts that no file of a diagnostics block is called clean ("no new errors", in a per-file
/// line `path: no new errors …` or a summary `no new errors in a, b …`) while the block says its
/// diagnostics could not be obtained (a failed pull, no response, a timeout) on that file's line
/// or in the notes under it: issue 11 §3, a failure is `diagnostics unavailable: <reason>`, never
/// "clean".
pub fn assert_no_clean_beside_failure(block: &str) {
    let looks_like_path = |text: &str| !text.is_empty() && !text.contains(' ') && (text.contains('.') || text.contains('/'));
    let mut header_file: Option<&str> = None;
    let mut failing: Vec<(&str, &str)> = Vec::new();
    for line in block.lines() {
        if !line.starts_with(' ') {
            header_file = line.split_once(": ").map(|(file, _)| file).filter(|file| looks_like_path(file));
        }
        let failure = ["pull failed", "got no response", "no time left", "timed out"].iter().any(|sign| line.contains(sign));
        if let (true, Some(file)) = (failure, header_file) {
            failing.push((file, line));
        }
    }
    for (file, failure) in failing {
        for line in block.lines() {
            let per_file = line.starts_with(&format!("{file}: ")) && line.contains("no new errors");
            let summary = line.starts_with("no new errors in ") && line.contains(file);
            assert!(
                !(per_file || summary),
                "{file} is called clean beside a failure to get its diagnostics:\n  {line}\n  {failure}\nin:\n{block}"
            );
        }
    }
}

/// Asserts that a diagnostics block reports a clean result for `files` (every one named, "no new
/// errors", nothing introduced, nothing unavailable, no failure beside "clean"), in either shape
/// of the block: one line per file or one summary line with the files checked.
pub fn assert_clean_block(block: &str, files: &[&str], what: &str) {
    assert_no_clean_beside_failure(block);
    let unnamed: Vec<&&str> = files.iter().filter(|file| !block.contains(**file)).collect();
    // "N errors already present before this write remain (not introduced by it)" is the
    // remaining count, not a new error: only an unqualified "introduced" reports one.
    let introduced = block.replace("not introduced by this write", "").replace("not introduced by it", "").contains("introduced");
    assert!(
        block.contains("no new errors") && !block.contains("unavailable") && !introduced && unnamed.is_empty(),
        "{what}: expected a clean result naming {files:?} (issue 11 §3: a clean write is reported clean, promptly; not named: {unnamed:?}):\n{block}"
    );
}

/// Every `showing A–B of N` notice in `text`, as `(A, B, N)` (an ASCII `-` also accepted).
pub fn showing_ranges(text: &str) -> Vec<(usize, usize, usize)> {
    let mut ranges = Vec::new();
    for (at, _) in text.match_indices("showing ") {
        let rest = &text[at + "showing ".len()..];
        let numbers: Vec<usize> =
            rest.split(|c: char| !c.is_ascii_digit()).filter(|part| !part.is_empty()).take(3).map(|n| n.parse().unwrap()).collect();
        let shaped = rest.split_whitespace().nth(1) == Some("of")
            && rest.split_whitespace().next().is_some_and(|range| range.contains('–') || range.contains('-'));
        if numbers.len() == 3 && shaped {
            ranges.push((numbers[0], numbers[1], numbers[2]));
        }
    }
    ranges
}

/// The `next: offset=B` value in `text`, if any.
pub fn next_offset(text: &str) -> Option<usize> {
    let at = text.find("next: offset=")?;
    text[at + "next: offset=".len()..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// The entries of an outline (`symbols` of a file): `(1-based first line, the entry's text)` for
/// every line shaped `<indent><line>: <text>` or `<indent><first>-<last>: <text>` (a range), in
/// the order printed.
pub fn outline_entries(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .filter_map(|line| {
            let trimmed = line.trim_start();
            let (lines, rest) = trimmed.split_once(": ")?;
            let first = lines.split_once(['-', '–']).map_or(lines, |(first, _)| first);
            let number: usize = first.parse().ok()?;
            lines.chars().all(|c| c.is_ascii_digit() || c == '-' || c == '–').then(|| (number, rest.to_owned()))
        })
        .collect()
}

/// The file's contents relative to the project, for before/after comparisons.
pub fn read(dir: &Path, relative: &str) -> String {
    std::fs::read_to_string(dir.join(relative)).unwrap_or_else(|err| panic!("read {relative}: {err}"))
}

/// Every `file:line` location a navigation answer lists, in order, from its two shapes: grouped
/// (`path (N):` then indented `line: text` entries, as `references` prints) and flat (`path:line:`
/// anywhere on a line, as `definition` and workspace `symbols` print). Locations outside the
/// workspace keep the path the tool printed.
pub fn listed_locations(text: &str) -> Vec<String> {
    let mut locations = Vec::new();
    let mut group: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indented = trimmed.len() != line.len();
        if !indented && line.ends_with("):") && line.contains(" (") {
            let file = &line[..line.rfind(" (").expect("checked")];
            group = (!file.contains(' ') || file.contains("(outside workspace)"))
                .then(|| file.trim_end_matches(" (outside workspace)").to_owned());
            continue;
        }
        if indented {
            if let (Some(file), Some((number, _))) = (&group, trimmed.split_once(": ")) {
                if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) {
                    locations.push(format!("{file}:{number}"));
                    continue;
                }
            }
        } else {
            group = None;
        }
        for token in line.split_whitespace() {
            let token = token.trim_end_matches(':');
            let Some((path, number)) = token.rsplit_once(':') else { continue };
            let looks_like_path = path.contains('/') || path.contains('.');
            if looks_like_path && !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) && !path.contains("://") {
                locations.push(format!("{path}:{number}"));
            }
        }
    }
    locations
}

/// A run over a corpus copy with every tool a user of the CLI gets for code: language servers
/// (diagnostics on write within 20 s, cold servers on a loaded 2-core machine), the structural
/// tools; write and exec allowed without asking. Answers wait up to 3 minutes for a server's
/// indexing (a complete answer is what the checks compare against the ground truth).
pub fn tools_run(workspace: &Path) -> runbound::Run {
    tools_run_with(workspace, |_| ())
}

/// [`tools_run`] with a last change to the configuration (e.g. a server's environment).
pub fn tools_run_with(workspace: &Path, configure: impl FnOnce(&mut runbound::RunConfig)) -> runbound::Run {
    let mut config = runbound::RunConfig::default();
    // The corpus tests assert what a write reports (the errors it causes in other files, a
    // clean result naming every written file), not how fast. The budget covers the written
    // files too (issue 11), which only the calls' own timeouts bounded before (30 s for `edit`,
    // `lsp_rename` and `resolve`): a loaded 2-core CI machine (load 20 seen) needs longer for
    // pyright's first analysis of several of dateutil's modules, so the writing tools get a
    // timeout above the budget.
    // The budget contract itself is tested with a small explicit budget
    // (corpus_python::a_write_stays_within_its_diagnostics_budget_…); latency is reported as
    // TIMING lines and in benches/diagnostics_on_write.rs.
    config.lsp.write_diagnostics_budget = Duration::from_secs(120);
    for tool in ["write", "edit", "apply_patch", "resolve", "lsp_rename", "lsp_code_action"] {
        config.tool_timeouts.insert(tool.to_owned(), Duration::from_secs(180));
    }
    config.lsp.indexing_wait = Duration::from_secs(180);
    configure(&mut config);
    runbound::Run::builder(workspace)
        .config(config)
        .approval_policy(runbound::ApprovalPolicy::for_write_and_exec(runbound::Approval::Allow))
        .language_servers()
        .with_structural()
        .build()
        .expect("build a run over the corpus copy")
}

/// Calls `tool` as the main caller and expects success; returns the text.
pub fn ok(run: &runbound::Run, tool: &str, arguments: serde_json::Value) -> String {
    let result = run.call(runbound::Caller::Main, tool, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "expected success for {tool} {arguments}, got:\n{text}");
    text
}

/// Like [`timed_ok`] for a navigation query, and follows the tool's advice when the answer says
/// the server was still starting or indexing ("the answer may be incomplete — call again in a few
/// seconds"): calls again, every 5 s, up to 12 times, and returns the first complete answer and
/// the wall time of the first call.
pub fn complete_answer(run: &runbound::Run, tool: &str, arguments: serde_json::Value) -> (String, Duration) {
    let (mut text, first) = timed_ok(run, tool, arguments.clone());
    for _ in 0..12 {
        if !text.contains("may be incomplete") {
            break;
        }
        std::thread::sleep(Duration::from_secs(5));
        text = ok(run, tool, arguments.clone());
    }
    assert!(!text.contains("may be incomplete"), "still incomplete after a minute of retries:\n{text}");
    (text, first)
}

/// Like [`ok`], and the wall time of the call.
pub fn timed_ok(run: &runbound::Run, tool: &str, arguments: serde_json::Value) -> (String, Duration) {
    let start = Instant::now();
    let text = ok(run, tool, arguments);
    (text, start.elapsed())
}

/// The ast-grep CLI that `.ci/install` puts in `.tools/` (the reference peer for `ast_edit`), or
/// `None` after a loud SKIP locally (a failure under `CI`).
pub fn ast_grep_cli() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/node_modules/.bin/ast-grep");
    if path.is_file() {
        Some(path)
    } else {
        super::skip_or_fail(&current_test(), &format!("the ast-grep CLI is not at {} (installed by .ci/install)", path.display()));
        None
    }
}

/// Applies `pattern` → `rewrite` with the ast-grep CLI to `paths` of `dir` (`--update-all`), the
/// independent reference for what `ast_edit` + `resolve accept` must write; returns the files the
/// CLI matched (relative, sorted) and the number of matches.
pub fn ast_grep_cli_rewrite(dir: &Path, pattern: &str, rewrite: &str, language: &str, path: &str) -> (Vec<String>, usize) {
    let cli = ast_grep_cli().expect("checked by the caller");
    let cli = cli.to_str().expect("utf-8 path");
    let listed = run(dir, cli, &["run", "-p", pattern, "-l", language, "--json=compact", path], &[], Duration::from_secs(120));
    assert_success(&listed, "ast-grep CLI search");
    let matches: Vec<serde_json::Value> = serde_json::from_str(listed.text.trim()).expect("ast-grep --json output");
    let mut files: Vec<String> = matches.iter().map(|m| m["file"].as_str().expect("file").trim_start_matches("./").to_owned()).collect();
    files.sort();
    files.dedup();
    let rewritten =
        run(dir, cli, &["run", "-p", pattern, "-r", rewrite, "-l", language, "--update-all", path], &[], Duration::from_secs(120));
    assert_success(&rewritten, "ast-grep CLI rewrite");
    (files, matches.len())
}

/// Opens `file` on its server and waits until the server answers `diagnostics` for it (at most
/// five tries, as the tool's own "call again in a few seconds" advises), so the first timed write
/// that follows measures the write, not the server's start.
pub fn warm_up(run: &runbound::Run, file: &str) {
    let mut last = String::new();
    for _ in 0..5 {
        let result = run.call(runbound::Caller::Main, "lsp", serde_json::json!({"op": "diagnostics", "file": file}));
        if !result.is_error {
            return;
        }
        last = result.joined_text();
        std::thread::sleep(Duration::from_secs(2));
    }
    panic!("{file}: no diagnostics after five tries; last answer:\n{last}");
}

/// One step of an edit sequence on one file: replace `old` by `new`; `error` is a fragment of the
/// error the step introduces (`None`: the step leaves the file clean).
pub struct EditStep {
    /// Label for the timing line, e.g. `clean (comment)`.
    pub label: &'static str,
    /// Exact text replaced (unique in the file).
    pub old: String,
    /// Replacement.
    pub new: String,
    /// A fragment of the error the step introduces (`a|b`: either), or `None` for a clean step.
    pub error: Option<&'static str>,
}

/// Applies `steps` to `file` with `edit`, one by one, and checks each diagnostics block: a clean
/// step says `no new errors` for the file (no `unavailable`, no failure beside "clean"), an
/// error step names its error. Returns `label wall-time` per step for the timing line.
pub fn timed_edit_sequence(run: &runbound::Run, file: &str, steps: &[EditStep]) -> Vec<String> {
    let mut timings = Vec::new();
    for step in steps {
        let (text, elapsed) = timed_ok(run, "edit", serde_json::json!({"path": file, "old_string": step.old, "new_string": step.new}));
        let block = diagnostics_block(&text);
        assert_no_clean_beside_failure(block);
        match step.error {
            Some(fragment) => assert!(
                fragment.split('|').any(|alternative| block.contains(alternative)),
                "{}: the new error ({fragment}) is not reported:\n{text}",
                step.label
            ),
            None => assert_clean_block(block, &[file], step.label),
        }
        timings.push(format!("{} {elapsed:?}", step.label));
    }
    timings
}

/// What [`ast_edit_then_accept`] measured.
pub struct StructuralEdit {
    /// Files the rule matched (relative, sorted), per the ast-grep CLI.
    pub files: Vec<String>,
    /// Number of matches, per the ast-grep CLI.
    pub matches: usize,
    /// Wall time of `ast_edit` (staging).
    pub staging: Duration,
    /// Wall time of `resolve accept`.
    pub accepting: Duration,
}

/// Stages `pattern` → `rewrite` over `path` with `ast_edit` in `dir` and checks the preview
/// against the ast-grep CLI run on `reference` (another copy of the same project): same number
/// of replacements and files, nothing written before accept. Then `resolve accept`: each file is
/// byte-for-byte what the CLI wrote, the result names it, and its diagnostics block is clean.
pub fn ast_edit_then_accept(
    run: &runbound::Run,
    dir: &Path,
    reference: &Path,
    pattern: &str,
    rewrite: &str,
    language: &str,
    path: &str,
) -> StructuralEdit {
    let (files, matches) = ast_grep_cli_rewrite(reference, pattern, rewrite, language, path);
    assert!(files.len() >= 2, "ground truth: {pattern} should match in several files: {files:?}");
    let before: Vec<String> = files.iter().map(|file| read(dir, file)).collect();
    let arguments = serde_json::json!({"pattern": pattern, "rewrite": rewrite, "path": path, "language": language});
    let (text, staging) = timed_ok(run, "ast_edit", arguments);
    assert!(
        text.contains(&format!("{matches} replacements in {} files", files.len())),
        "the preview should count what the ast-grep CLI matched ({matches} in {files:?}):\n{text}"
    );
    let after_staging: Vec<String> = files.iter().map(|file| read(dir, file)).collect();
    assert!(before == after_staging, "ast_edit wrote before accept");
    let edit_id = text.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).expect("an edit_id in the preview").to_owned();
    // An agent reviews the files' diagnostics before accepting; this also lets a cold server
    // (pyright on dateutil's 1,600-line _parser.py needs 8–45 s on a loaded 2-core machine)
    // analyse them first, so the accept's check has a pre-write state to compare with. Without
    // it the honest answer is "not known to be new", which is right but not what this test is
    // about (the rewrite, the CLI's bytes and the project's tests).
    for file in &files {
        let _ = run.call(runbound::Caller::Main, "lsp", serde_json::json!({"op": "diagnostics", "file": file}));
    }
    let (text, accepting) = timed_ok(run, "resolve", serde_json::json!({"edit_id": edit_id, "action": "accept"}));
    for file in &files {
        assert!(read(dir, file) == read(reference, file), "{file} differs from the ast-grep CLI's rewrite");
        assert!(text.contains(file.as_str()), "the accept result does not name {file}:\n{text}");
    }
    let file_names: Vec<&str> = files.iter().map(String::as_str).collect();
    assert_clean_block(diagnostics_block(&text), &file_names, "accepting a rewrite the compiler accepts");
    StructuralEdit { files, matches, staging, accepting }
}

/// Checks a `references` answer against a word search: every `required` location is listed and
/// nothing outside `allowed` is. `label` names the server in the message.
pub fn assert_references(label: &str, text: &str, required: &[String], allowed: &[String]) {
    let listed = listed_locations(text);
    let missing: Vec<&String> = required.iter().filter(|location| !listed.contains(location)).collect();
    let extra: Vec<&String> = listed.iter().filter(|location| !allowed.contains(location)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{label}: references differ from the word search: missing {missing:?}, extra {extra:?}\n{text}"
    );
}

/// Every entry of a file outline, following `next: offset=B` until the last page; checks each
/// page's `showing A–B of N` notice against the page before. Returns the entries and the number
/// of pages.
pub fn outline_pages(run: &runbound::Run, mut arguments: serde_json::Value) -> (Vec<(usize, String)>, usize) {
    let mut entries = Vec::new();
    let mut offset = 0;
    let mut pages = 0;
    for page in 0.. {
        pages += 1;
        assert!(page < 50, "outline paging did not end after 50 pages");
        arguments["offset"] = serde_json::json!(offset);
        let text = ok(run, "lsp", arguments.clone());
        // A later page repeats the container it continues (`22-4615: class T (continued)`) for
        // context; that line is not one of the page's entries.
        let page_entries: Vec<(usize, String)> =
            outline_entries(&text).into_iter().filter(|(_, entry)| !entry.ends_with("(continued)")).collect();
        let ranges = showing_ranges(&text);
        let old_style_cap = text.contains("showing ") && ranges.is_empty();
        assert!(!old_style_cap, "a capped outline must say `showing A–B of N; next: offset=B` (issue 11 §4):\n{text}");
        entries.extend(page_entries.iter().cloned());
        let Some(&(first, last, total)) = ranges.first() else {
            assert_eq!(offset, 0, "a later page without a `showing A–B of N` notice:\n{text}");
            break;
        };
        assert_eq!(first, offset + 1, "page at offset {offset} starts at entry {first}:\n{text}");
        assert_eq!(last - first + 1, page_entries.len(), "the notice's range does not match the entries shown:\n{text}");
        if last >= total {
            assert!(next_offset(&text).is_none(), "the last page offers a next offset:\n{text}");
            break;
        }
        let next = next_offset(&text).unwrap_or_else(|| panic!("a page short of the total without `next: offset=B`:\n{text}"));
        assert_eq!(next, last, "next offset is not the last entry shown:\n{text}");
        offset = next;
    }
    (entries, pages)
}

/// Asserts that a workspace `symbols` answer lists `location` (`file:line`), before any entry
/// outside the workspace (issue 11 §4: workspace results come first).
pub fn assert_symbol_listed_before_outside(text: &str, location: &str) {
    let listed = listed_locations(text);
    assert!(listed.iter().any(|found| found == location), "workspace symbols should list {location}:\n{text}");
    // Entry lines only: the first line is the answer's header, which may count outside results.
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let at = lines.iter().position(|line| line.contains(&format!("{location}:"))).expect("listed");
    let outside = [
        "outside workspace",
        "[site-packages]",
        "[node_modules]",
        "[typeshed]",
        "[stdlib]",
        "[rust sysroot]",
        "[cargo registry]",
        "[go module cache]",
        "[go stdlib]",
    ];
    if let Some(first_outside) = lines.iter().position(|line| outside.iter().any(|mark| line.contains(mark))) {
        assert!(at < first_outside, "{location} is listed after entries outside the workspace:\n{text}");
    }
}

/// Files with extension `extension` (no dot) under `dir`, recursively, sorted (ground truth for
/// what a walk should visit).
pub fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("read a corpus directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A fresh copy of the crate `name_version` (e.g. `heck-0.5.0`) from `~/.cargo/registry/src`
/// (a dependency of this build puts it there), or `None` after a loud SKIP locally (a failure
/// under `CI`).
pub fn registry_crate(name_version: &str) -> Option<tempfile::TempDir> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let found = std::fs::read_dir(home.join("registry/src"))
        .ok()
        .and_then(|indexes| indexes.flatten().map(|index| index.path().join(name_version)).find(|dir| dir.join("Cargo.toml").is_file()));
    let Some(source) = found else {
        super::skip_or_fail(&current_test(), &format!("crate {name_version} is not in the cargo registry cache (~/.cargo/registry/src)"));
        return None;
    };
    let copy = tempfile::Builder::new().prefix(&format!("crate-{name_version}-")).tempdir().expect("create a temp dir for the crate copy");
    copy_tree(&source, copy.path());
    Some(copy)
}
