//! The rewritten Python files checked by the project's own interpreter (trial158 F1).
//!
//! `ast_edit` parses every rewritten file again with tree-sitter, whose Python grammar accepts
//! the newest syntax (3.12's PEP 701 f-strings: `f"{g(x, k="v")}"`). A project on Python 3.11
//! cannot import such a file: a rewrite of click 8.1.7 put `mode="r"` inside f-strings that use
//! `"`, read "no new parse errors", and pytest could not load the package. So a Python rewrite is
//! also compiled (`compile(text, path, "exec")`, nothing run) by the interpreter the project
//! uses — resolved as the language servers, the `"*"` checker and `debug` resolve it
//! ([`crate::python_env::resolve_project_interpreter`], from the file's project root) — in one
//! process per interpreter for all its files, old text and new: only an error the old text did
//! not have counts.
//!
//! The process is bounded ([`CHECK_TIMEOUT_CAP`], the call's remaining time, [`MAX_FILES`],
//! [`MAX_BYTES`]) and started through the process layer (its own process group, stderr drained,
//! killed on drop). It runs isolated and without `site` (`-I -S`): the venv's `.pth` files and
//! `sitecustomize` are not run. A restricted run starts no interpreter that lies inside the
//! workspace: the base interpreter the venv was made from checks instead (same version), and
//! with none outside the check is said not done.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::python_env::{display_interpreter_path, python_project_root, resolve_project_interpreter};
use crate::render::{display_path, one_or_many, plural};
use crate::transport::{run_to_completion, ProcessSpec};
use crate::trust::{resolves_inside, restricted_search_path, WorkspaceTrust};

/// One check process waits at most this long (less when the call has less time left).
pub(crate) const CHECK_TIMEOUT_CAP: Duration = Duration::from_secs(20);
/// At most this many rewritten files are compiled; the others are said not checked.
pub(crate) const MAX_FILES: usize = 2000;
/// At most this many bytes of text (old and new) are handed to the interpreters in all.
pub(crate) const MAX_BYTES: usize = 64 * 1024 * 1024;

/// The script the interpreter runs: reads `{"files": [[path, old, new], …]}` from stdin, compiles
/// each new text (and the old one when the new fails), prints one JSON object.
const SCRIPT: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
def error_of(text, path):
    try:
        compile(text, path, "exec", dont_inherit=True)
        return None
    except SyntaxError as e:
        return [e.msg or "invalid syntax", e.lineno or 0, e.offset or 0, (e.text or "").rstrip("\r\n")]
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        return [type(e).__name__ + ": " + str(e), 0, 0, ""]
request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
results = []
for path, old, new in request["files"]:
    new_error = error_of(new, path)
    old_error = error_of(old, path) if new_error is not None else None
    results.append([path, new_error, old_error])
sys.stdout.write(json.dumps({"version": sys.version.split()[0], "results": results}))
"#;

/// A rewritten file: its path and its text before and after.
pub(crate) struct RewrittenPython<'a> {
    /// The file (absolute).
    pub path: &'a Path,
    /// The text before the rewrite.
    pub old: &'a str,
    /// The rewritten text.
    pub new: &'a str,
}

/// A syntax error the project's interpreter finds in a rewritten file whose old text it
/// compiled.
#[derive(Debug, Clone)]
pub(crate) struct NewSyntaxError {
    /// The file (absolute).
    pub path: PathBuf,
    /// 1-based line in the rewritten text (0: unknown).
    pub line: u64,
    /// The interpreter's message (`f-string: unmatched '('`).
    pub message: String,
    /// The line's text as the interpreter quotes it (may be empty).
    pub text: String,
    /// Which interpreter said so: `Python 3.11.7 (.venv/bin/python)`.
    pub interpreter: String,
}

/// What the project's interpreters said about a rewrite.
#[derive(Debug, Default)]
pub(crate) struct PythonSyntaxCheck {
    /// Per interpreter that ran: `Python 3.11.7 (.venv/bin/python, from .venv beside
    /// pyproject.toml)` and how many files it compiled.
    pub checked_by: Vec<(String, usize)>,
    /// Errors the rewrite brings.
    pub new_errors: Vec<NewSyntaxError>,
    /// Files the interpreter could not compile before the rewrite either (not counted).
    pub failing_before: Vec<PathBuf>,
    /// Why files were not checked, one sentence each (with how many).
    pub not_checked: Vec<String>,
}

impl PythonSyntaxCheck {
    /// Files with new errors.
    pub(crate) fn broken_files(&self) -> usize {
        let mut files: Vec<&Path> = self.new_errors.iter().map(|error| error.path.as_path()).collect();
        files.dedup();
        files.len()
    }

    /// One line per new error: `  path:line: message: `text``, at most `max` (the rest counted).
    pub(crate) fn describe_errors(&self, root: &Path, max: usize) -> String {
        let mut text = String::new();
        for error in self.new_errors.iter().take(max) {
            let quoted = if error.text.trim().is_empty() {
                String::new()
            } else {
                format!(" in `{}`", crate::render::cut_chars(error.text.trim(), 160))
            };
            text.push_str(&format!("  {}:{}: {}{quoted}\n", display_path(root, &error.path), error.line, error.message));
        }
        if self.new_errors.len() > max {
            text.push_str(&format!("  showing {max} of {} new syntax errors\n", self.new_errors.len()));
        }
        text
    }

    /// The sentence for the answer's last line: who compiled the rewritten files and what they
    /// found, and what was not checked.
    pub(crate) fn summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.checked_by.is_empty() {
            let who: Vec<String> =
                self.checked_by.iter().map(|(interpreter, files)| format!("{interpreter} ({})", plural(*files, "file"))).collect();
            let found = if self.new_errors.is_empty() {
                "no new syntax errors".to_owned()
            } else {
                format!("{} in {} (see above)", plural(self.new_errors.len(), "new syntax error"), plural(self.broken_files(), "file"))
            };
            let mut sentence = format!("the project's Python compiled every rewritten file it was given — {}: {found}", who.join(", "));
            if !self.failing_before.is_empty() {
                sentence.push_str(&format!(
                    " ({} it could not compile before the rewrite either, not counted)",
                    plural(self.failing_before.len(), "file")
                ));
            }
            parts.push(sentence);
        }
        parts.extend(self.not_checked.iter().cloned());
        parts.join("; ")
    }
}

/// The interpreter that checks files of one project root, or why none can.
fn interpreter_for(root: &Path, marker: Option<&Path>, workspace_root: &Path, trust: WorkspaceTrust) -> Result<(PathBuf, String), String> {
    let path_env: Option<OsString> = match trust {
        WorkspaceTrust::Trusted => std::env::var_os("PATH"),
        WorkspaceTrust::Restricted => restricted_search_path(std::env::var_os("PATH").as_deref(), workspace_root).value,
    };
    let interpreter = resolve_project_interpreter(root, workspace_root, marker, path_env.as_deref())?;
    let reason = interpreter.reason(workspace_root);
    let shown = display_interpreter_path(workspace_root, &interpreter.python);
    let inside = resolves_inside(workspace_root, &interpreter.python)
        || interpreter.python.starts_with(workspace_root)
        || interpreter.venv_dir().is_some_and(|venv| venv.starts_with(workspace_root));
    if trust.is_restricted() && inside {
        // (`-S` keeps the venv's `.pth` files from running, but the binary itself is the
        // checkout's: a restricted run starts the base the venv was made from.)
        return match interpreter.venv_dir().and_then(|venv| crate::python_env::base_interpreter(venv, workspace_root)) {
            Some(base) => {
                let base_shown = base.display().to_string();
                Ok((base, format!("{base_shown}, the base of {shown} ({reason}): a restricted run starts no interpreter inside the workspace")))
            }
            None => Err(format!(
                "the project's interpreter {shown} lies inside the workspace, which a restricted run does not start, and no base interpreter outside it was found"
            )),
        };
    }
    Ok((interpreter.python.clone(), format!("{shown}, {reason}")))
}

/// Compiles each of `files` (Python) with the interpreter of its project, bounded by `timeout`
/// per process; see the module documentation.
pub(crate) fn check_rewritten_python(
    workspace_root: &Path,
    trust: WorkspaceTrust,
    files: &[RewrittenPython<'_>],
    timeout: Duration,
) -> PythonSyntaxCheck {
    let mut check = PythonSyntaxCheck::default();
    if files.is_empty() {
        return check;
    }
    // Files grouped by interpreter (usually one for the whole workspace).
    let mut roots: BTreeMap<PathBuf, Result<(PathBuf, String), String>> = BTreeMap::new();
    let mut groups: Vec<(PathBuf, PathBuf, String, Vec<&RewrittenPython<'_>>)> = Vec::new();
    let mut unresolved: BTreeMap<String, usize> = BTreeMap::new();
    let (mut bytes, mut over_cap) = (0usize, 0usize);
    for (index, file) in files.iter().enumerate() {
        let size = file.old.len() + file.new.len();
        if index >= MAX_FILES || bytes + size > MAX_BYTES {
            over_cap += 1;
            continue;
        }
        bytes += size;
        let (root, marker) = match python_project_root(file.path, workspace_root) {
            Some((root, marker)) => (root, Some(marker)),
            None => (workspace_root.to_path_buf(), None),
        };
        let resolved = roots.entry(root.clone()).or_insert_with(|| interpreter_for(&root, marker.as_deref(), workspace_root, trust));
        match resolved {
            Ok((python, described)) => match groups.iter_mut().find(|(known, ..)| known == python) {
                Some((.., members)) => members.push(file),
                None => groups.push((python.clone(), root.clone(), described.clone(), vec![file])),
            },
            Err(why) => *unresolved.entry(why.clone()).or_default() += 1,
        }
    }
    for (why, count) in unresolved {
        check.not_checked.push(format!("NOT checked by the project's Python: {} ({why})", plural(count, "rewritten file")));
    }
    if over_cap > 0 {
        check.not_checked.push(format!(
            "NOT checked by the project's Python: {} beyond the check's cap ({MAX_FILES} files, {} MiB of text)",
            plural(over_cap, "rewritten file"),
            MAX_BYTES / (1024 * 1024)
        ));
    }
    for (python, root, described, members) in groups {
        let request =
            json!({"files": members.iter().map(|file| json!([file.path.to_string_lossy(), file.old, file.new])).collect::<Vec<_>>()});
        let spec = ProcessSpec::new(&python, &root)
            .with_args(["-I", "-S", "-c", SCRIPT])
            .with_env("PYTHONDONTWRITEBYTECODE", "1")
            .with_display_name(format!("{} (syntax check)", python.display()));
        let not_done = |why: String| {
            format!(
                "NOT checked by the project's Python ({described}): {} — {why}; run `python -m py_compile <file>` with the project's interpreter after accepting",
                plural(members.len(), "rewritten file")
            )
        };
        let input = request.to_string().into_bytes();
        let completed = match run_to_completion(spec, &input, timeout, 16 * 1024 * 1024) {
            Ok(completed) => completed,
            Err(err) => {
                check.not_checked.push(not_done(format!("it could not be started: {}", err.message)));
                continue;
            }
        };
        if completed.timed_out {
            check.not_checked.push(not_done(format!("it did not finish within {:.0} s", timeout.as_secs_f64())));
            continue;
        }
        let answer: Option<Value> = serde_json::from_slice(&completed.stdout).ok();
        let Some(answer) = answer.filter(|_| completed.status.success()) else {
            let stderr = String::from_utf8_lossy(&completed.stderr);
            let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("no output").trim().to_owned();
            check.not_checked.push(not_done(format!("it failed ({}: {})", completed.status, crate::render::cut_chars(&last, 200))));
            continue;
        };
        let version = answer["version"].as_str().unwrap_or("?").to_owned();
        let interpreter = format!("Python {version} ({described})");
        let short = format!("Python {version} ({})", python_shown(workspace_root, &python));
        let results = answer["results"].as_array().cloned().unwrap_or_default();
        for (file, result) in members.iter().zip(&results) {
            let new_error = &result[1];
            if new_error.is_null() {
                continue;
            }
            if !result[2].is_null() {
                check.failing_before.push(file.path.to_path_buf());
                continue;
            }
            check.new_errors.push(NewSyntaxError {
                path: file.path.to_path_buf(),
                line: new_error[1].as_u64().unwrap_or(0),
                message: new_error[0].as_str().unwrap_or("invalid syntax").to_owned(),
                // The rewritten line itself (3.11 quotes an f-string's inner expression, as
                // it parsed it, not the line).
                text: usize::try_from(new_error[1].as_u64().unwrap_or(0))
                    .ok()
                    .and_then(|line| file.new.lines().nth(line.checked_sub(1)?))
                    .map_or_else(|| new_error[3].as_str().unwrap_or("").to_owned(), str::to_owned),
                interpreter: short.clone(),
            });
        }
        check.checked_by.push((interpreter, results.len().min(members.len())));
    }
    check
}

fn python_shown(workspace_root: &Path, python: &Path) -> String {
    display_interpreter_path(workspace_root, python)
}

/// `N file(s)` with the files' displayed paths, at most 5.
pub(crate) fn files_named(root: &Path, errors: &[NewSyntaxError]) -> String {
    let mut paths: Vec<String> = errors.iter().map(|error| display_path(root, &error.path)).collect();
    paths.dedup();
    let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
    format!(
        "{} {} ({}{})",
        paths.len(),
        one_or_many(paths.len(), "file", "files"),
        shown.join(", "),
        if paths.len() > 5 { ", …" } else { "" }
    )
}
