//! Go: the findings of the vet checks `go test` runs, on the text before a write (trial169 M2).
//!
//! After a write, gopls reports the findings of the vet analyzers `go test` runs before the
//! tests (printf, …): the test build fails on them. Whether the write introduced them is known
//! from gopls' pre-write state, which a cold session often lacks for the files the write did
//! not touch (`String` given a pointer receiver in blang/semver's semver.go made 4 printf
//! findings in range_test.go and sort_test.go; the answer said "whether this write introduced
//! 4 is not known (no pre-write state)" on a project whose `go vet ./...` was clean).
//!
//! This runs `go vet -json -<analyzers> ./<package dirs>` once on the module as it was before
//! the write. `go vet -overlay` would be the natural way, but vet reads the files from the disk
//! and ignores the overlay (golang/go#44957, Go 1.19), so the pre-write module is a temporary
//! directory instead: the directories on the way to each written file are real directories
//! whose other entries are symlinks to the workspace's, the written files hold their pre-write
//! text, and `go.mod`/`go.sum`/`go.work` are copies (go may update them; the workspace's are
//! never written). Nothing in the workspace is written. `go` is looked up on the run's search
//! path outside the workspace, runs with `GOTOOLCHAIN=local` under the tools' file confinement
//! (plus the temporary directory) and within the call's deadline.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::transport::{run_to_completion, ProcessSpec};

/// Longest the pre-write `go vet` may take (also bounded by the call's deadline).
pub(crate) const PRE_WRITE_GO_VET_TIMEOUT: Duration = Duration::from_secs(20);

/// Most directories of the pre-write module made real (the others are symlinks).
const MAX_DIRECTORIES_MIRRORED: usize = 64;

/// One finding of the pre-write `go vet` run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreWriteVetFinding {
    /// The file (absolute, in the workspace: the temporary directory's path mapped back).
    pub path: PathBuf,
    /// 1-based line in the file's text before the write.
    pub line: u32,
    /// The analyzer (`printf`), as gopls names the finding's source.
    pub analyzer: String,
    /// vet's message.
    pub message: String,
}

/// What the pre-write `go vet` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreWriteGoVet {
    /// Its findings in the packages it analysed.
    pub findings: Vec<PreWriteVetFinding>,
    /// The package directories (absolute, in the workspace) vet did not analyse before the write,
    /// each with why (type errors stop vet before its analyzers run): a finding there is not
    /// known to be new.
    pub not_analysed: Vec<(PathBuf, String)>,
    /// The package directories (absolute, in the workspace) vet was asked about: a finding
    /// elsewhere is not answered.
    pub directories: Vec<PathBuf>,
}

impl PreWriteGoVet {
    /// Whether a gopls finding of `analyzer` in `path` (absolute) at 1-based `line_after` (in
    /// the text after the write) was there before the write: `Some(true)` when vet reported the
    /// same analyzer there at a line that `line_after_write` (1-based line before the write →
    /// line after it: the file's line map, the identity for a file the write did not change)
    /// takes to `line_after`, `Some(false)` when vet analysed the package and did not, `None`
    /// when vet did not analyse it (why: [`Self::why_not_analysed`]).
    pub(crate) fn was_there_before(
        &self,
        path: &Path,
        line_after: u32,
        analyzer: &str,
        line_after_write: impl Fn(u32) -> u32,
    ) -> Option<bool> {
        if self.why_not_analysed(path).is_some()
            || !path.parent().is_some_and(|directory| self.directories.iter().any(|known| known == directory))
        {
            return None;
        }
        Some(
            self.findings
                .iter()
                .any(|finding| finding.path == path && finding.analyzer == analyzer && line_after_write(finding.line) == line_after),
        )
    }

    /// Why vet did not analyse `path`'s package before the write, when it did not.
    pub(crate) fn why_not_analysed(&self, path: &Path) -> Option<&str> {
        let directory = path.parent()?;
        self.not_analysed.iter().find(|(known, _)| known == directory).map(|(_, why)| why.as_str())
    }
}

/// Runs the vet analyzers `go test` runs (`analyzers`) on the packages of `directories`
/// (absolute, beneath `workspace_root`) as they were before a write that changed `written`
/// (absolute paths) from `old_texts` (their text before the write, as the server had it open; a
/// removed file's is its text, and every written `.go` file needs one). `search_path`: the
/// run's PATH (`go` is never taken from inside the workspace).
/// Ends by `deadline` and [`PRE_WRITE_GO_VET_TIMEOUT`].
///
/// # Errors
/// Why it did not run or said nothing usable, as a clause: no `go`, the directories in more
/// than one module or outside a module beneath the workspace, a written Go file whose text
/// before the write is not known, the temporary module not made, the deadline, a `go vet` that
/// failed with no package output (its stderr's last lines).
pub(crate) fn go_vet_before_write(
    workspace_root: &Path,
    search_path: Option<&OsStr>,
    written: &[PathBuf],
    old_texts: &HashMap<PathBuf, String>,
    directories: &[PathBuf],
    analyzers: &[String],
    deadline: Instant,
) -> Result<PreWriteGoVet, String> {
    let module = module_root(workspace_root, directories)?;
    let written_go: Vec<&PathBuf> = written.iter().filter(|path| path.extension().is_some_and(|ext| ext == "go")).collect();
    if let Some(outside) = written_go.iter().find(|path| !path.starts_with(&module)) {
        return Err(format!(
            "the write also changed {}, outside the module at {} (the module vet checks reads it as written)",
            crate::render::display_path(workspace_root, outside),
            crate::render::display_path(workspace_root, &module)
        ));
    }
    if let Some(unknown) = written_go.iter().find(|path| !old_texts.contains_key(**path)) {
        return Err(format!(
            "the text of {} before this write is not known (the server did not have it open)",
            crate::render::display_path(workspace_root, unknown)
        ));
    }
    if std::env::var_os("GOWORK").is_none_or(|value| value != "off") {
        if let Some(go_work) = go_work_above(&module) {
            return Err(format!(
                "the module is part of the Go workspace {} (a go.work above it), which a copy of the module elsewhere would not build the same way",
                crate::render::display_path(workspace_root, &go_work)
            ));
        }
    }
    let go = which::which_in("go", search_path, workspace_root)
        .ok()
        .filter(|found| !crate::trust::resolves_inside(workspace_root, found))
        .ok_or_else(|| "go was not found on the search path (outside the workspace)".to_owned())?;
    let temporary = tempfile::Builder::new()
        .prefix("runbound-go-vet-before-")
        .tempdir()
        .map_err(|err| format!("no temporary directory for the module before the write ({err})"))?;
    let mirror = temporary.path().join("module");
    let before: HashMap<&Path, &str> = written_go.iter().map(|path| (path.as_path(), old_texts[*path].as_str())).collect();
    mirror_module(workspace_root, &module, &mirror, &before)?;
    let mut args: Vec<String> = vec!["vet".to_owned(), "-json".to_owned()];
    args.extend(analyzers.iter().map(|analyzer| format!("-{analyzer}")));
    let mut targets: Vec<String> = directories
        .iter()
        .filter_map(|directory| directory.strip_prefix(&module).ok())
        .map(|relative| if relative.as_os_str().is_empty() { ".".to_owned() } else { format!("./{}", relative.display()) })
        .collect();
    targets.sort();
    targets.dedup();
    args.extend(targets);
    let left = deadline.saturating_duration_since(Instant::now()).min(PRE_WRITE_GO_VET_TIMEOUT);
    if left.is_zero() {
        return Err("the call's deadline left no time for it".to_owned());
    }
    let mut confinement = crate::lsp::confinement::tool_confinement(workspace_root, &go, None, &[]);
    confinement.allow_write(temporary.path());
    if let Ok(resolved) = std::fs::canonicalize(temporary.path()) {
        confinement.allow_write(resolved);
    }
    let spec = ProcessSpec::new(&go, &mirror)
        .with_args(args.iter().cloned())
        .with_env("GOTOOLCHAIN", "local")
        .with_display_name("go vet (before the write)")
        .with_filesystem_confinement(confinement);
    let completed = run_to_completion(spec, b"", left, 8 * 1024 * 1024).map_err(|err| format!("go vet failed to run: {}", err.message))?;
    if completed.timed_out {
        return Err(format!("`go vet` on the text before the write timed out after {} ms", completed.elapsed.as_millis()));
    }
    let stderr = String::from_utf8_lossy(&completed.stderr);
    let parsed = parse_go_vet_json(&stderr, &mirror, &module);
    if parsed.findings.is_empty() && parsed.analysed == 0 && parsed.not_analysed.is_empty() {
        let tail: Vec<&str> = stderr.lines().rev().filter(|line| !line.trim().is_empty()).take(3).collect();
        return Err(format!(
            "`go vet` on the text before the write printed no package's result ({}): {}",
            completed.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ));
    }
    Ok(PreWriteGoVet { findings: parsed.findings, not_analysed: parsed.not_analysed, directories: directories.to_vec() })
}

/// The module root (nearest folder with a go.mod, beneath `workspace_root`) of every one of
/// `directories`: one module, or why not.
fn module_root(workspace_root: &Path, directories: &[PathBuf]) -> Result<PathBuf, String> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for directory in directories {
        let root =
            directory.ancestors().take_while(|dir| dir.starts_with(workspace_root)).find(|dir| dir.join("go.mod").is_file()).ok_or_else(
                || format!("{} is in no Go module beneath the workspace root", crate::render::display_path(workspace_root, directory)),
            )?;
        if !roots.iter().any(|known| known == root) {
            roots.push(root.to_path_buf());
        }
    }
    match roots.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err("no package directory was given".to_owned()),
        _ => Err(format!("the findings are in {} Go modules (one pre-write run covers one)", roots.len())),
    }
}

/// Makes `mirror` the module at `module` as it was before the write: the directories on the way
/// to each written file (keys of `before`, absolute) are real, the written files hold their
/// text from `before`, the module files are copies, every other entry is a symlink to the
/// workspace's.
fn mirror_module(workspace_root: &Path, module: &Path, mirror: &Path, before: &HashMap<&Path, &str>) -> Result<(), String> {
    let failed = |what: &Path, err: std::io::Error| format!("the module before the write could not be made at {} ({err})", what.display());
    let mut real: Vec<PathBuf> = vec![module.to_path_buf()];
    for path in before.keys() {
        for ancestor in path.ancestors().skip(1).take_while(|dir| dir.starts_with(module)) {
            if !real.iter().any(|known| known == ancestor) {
                real.push(ancestor.to_path_buf());
            }
        }
    }
    if real.len() > MAX_DIRECTORIES_MIRRORED {
        return Err(format!("the write's Go files lie in more than {MAX_DIRECTORIES_MIRRORED} directories"));
    }
    for directory in &real {
        let relative = directory.strip_prefix(module).unwrap_or(Path::new(""));
        let target = mirror.join(relative);
        std::fs::create_dir_all(&target).map_err(|err| failed(&target, err))?;
        for (entry, _) in crate::files::walk_beneath::list_directory(workspace_root, directory) {
            let Some(name) = entry.file_name() else { continue };
            let placed = target.join(name);
            if real.contains(&entry) || before.contains_key(entry.as_path()) {
                continue;
            }
            let module_file = directory == module && matches!(name.to_str(), Some("go.mod" | "go.sum" | "go.work" | "go.work.sum"));
            if module_file {
                let bytes = crate::files::read_file_beneath(workspace_root, &entry).map_err(|err| failed(&entry, err))?.unwrap_or_default();
                // A local `replace … => ../x` or `use ../x` names a directory beside the module:
                // made absolute, the copy reaches the same one (review50 M5).
                let text = absolute_local_paths(&String::from_utf8_lossy(&bytes), directory);
                std::fs::write(&placed, text).map_err(|err| failed(&placed, err))?;
            } else {
                std::os::unix::fs::symlink(&entry, &placed).map_err(|err| failed(&placed, err))?;
            }
        }
    }
    for (path, text) in before {
        let placed = mirror.join(path.strip_prefix(module).unwrap_or(path));
        std::fs::write(&placed, text).map_err(|err| failed(&placed, err))?;
    }
    Ok(())
}

/// `text` of a `go.mod` or `go.work` in `directory` with every local path of its `replace`
/// targets and `use` directives (`./x`, `../x`, `.`, quoted or not) made absolute from
/// `directory`; the rest as it was.
fn absolute_local_paths(text: &str, directory: &Path) -> String {
    let is_local = |token: &str| {
        let bare = token.trim_matches('"');
        bare == "." || bare == ".." || bare.starts_with("./") || bare.starts_with("../")
    };
    let absolute = |token: &str| format!("\"{}\"", directory.join(token.trim_matches('"')).display());
    let mut block: Option<&str> = None;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (content, ending) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (line, ""),
        };
        let code = content.split("//").next().unwrap_or(content);
        let words: Vec<&str> = code.split_whitespace().collect();
        let (directive, arguments): (Option<&str>, &[&str]) = match (block, words.first().copied()) {
            (Some(_), Some(")")) => {
                block = None;
                (None, &[])
            }
            (Some(inside), Some(_)) => (Some(inside), &words[..]),
            (None, Some(keyword @ ("replace" | "use"))) if words.get(1) == Some(&"(") => {
                block = Some(keyword);
                (None, &[])
            }
            (None, Some(keyword @ ("replace" | "use"))) => (Some(keyword), &words[1..]),
            _ => (None, &[]),
        };
        let rewrite_at: Option<usize> = match directive {
            Some("replace") => arguments.iter().position(|word| *word == "=>").map(|arrow| arrow + 1),
            Some("use") => Some(0),
            _ => None,
        };
        match rewrite_at.and_then(|at| arguments.get(at)).filter(|token| is_local(token)) {
            Some(token) => {
                let from = content.rfind(token).unwrap_or(0);
                out.push_str(&content[..from]);
                out.push_str(&absolute(token));
                out.push_str(&content[from + token.len()..]);
                out.push_str(ending);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The `go.work` in a directory above `module`, if any: the go command would build the module
/// as part of that workspace, which a copy of the module elsewhere does not reproduce.
fn go_work_above(module: &Path) -> Option<PathBuf> {
    module.ancestors().skip(1).map(|dir| dir.join("go.work")).find(|file| file.is_file())
}

/// What [`parse_go_vet_json`] read.
#[derive(Debug, Default, PartialEq, Eq)]
struct ParsedGoVet {
    findings: Vec<PreWriteVetFinding>,
    /// Packages whose JSON result was read.
    analysed: usize,
    not_analysed: Vec<(PathBuf, String)>,
}

/// Reads `go vet -json`'s stderr: per package a `# import/path` line, then either a JSON object
/// `{"import/path": {"analyzer": [{"posn": "file:line:col", "message": …}]}}` (`{}` when clean)
/// or the text of what stopped it (`vet: ./x.go:3:9: undeclared name: y`, a type error: its
/// analyzers did not run). Paths under `mirror` (or relative to it) are mapped to `module`.
fn parse_go_vet_json(stderr: &str, mirror: &Path, module: &Path) -> ParsedGoVet {
    let mut parsed = ParsedGoVet::default();
    let map_path = |shown: &str| -> PathBuf {
        let path = Path::new(shown);
        let absolute = if path.is_absolute() { path.to_path_buf() } else { mirror.join(path) };
        let normal = crate::files::path::lexically_normal(&absolute);
        match normal.strip_prefix(mirror) {
            Ok(relative) => module.join(relative),
            Err(_) => normal,
        }
    };
    let mut sections: Vec<Vec<&str>> = Vec::new();
    for line in stderr.lines() {
        if line.starts_with("# ") {
            sections.push(Vec::new());
        } else if let Some(section) = sections.last_mut() {
            section.push(line);
        }
    }
    for section in sections {
        let text = section.join("\n");
        let trimmed = text.trim();
        match serde_json::from_str::<serde_json::Value>(trimmed) {
            Ok(serde_json::Value::Object(packages)) => {
                parsed.analysed += 1;
                for analyzers in packages.values() {
                    let Some(analyzers) = analyzers.as_object() else { continue };
                    for (analyzer, findings) in analyzers {
                        for finding in findings.as_array().into_iter().flatten() {
                            let posn = finding.get("posn").and_then(|posn| posn.as_str()).unwrap_or("");
                            let mut parts = posn.rsplitn(3, ':');
                            let (_column, line, file) = (parts.next(), parts.next(), parts.next());
                            let (Some(line), Some(file)) = (line.and_then(|line| line.parse::<u32>().ok()), file) else { continue };
                            parsed.findings.push(PreWriteVetFinding {
                                path: map_path(file),
                                line,
                                analyzer: analyzer.clone(),
                                message: finding.get("message").and_then(|message| message.as_str()).unwrap_or("").to_owned(),
                            });
                        }
                    }
                }
            }
            _ => {
                // `vet: ./range.go:36:23: not enough arguments …`: the package's directory is
                // that of the file named.
                let Some(first) = trimmed.lines().find(|line| !line.trim().is_empty()) else { continue };
                let named = first.trim_start_matches("vet: ");
                let file = named.split(':').next().unwrap_or("");
                if file.ends_with(".go") {
                    if let Some(directory) = map_path(file).parent() {
                        if !parsed.not_analysed.iter().any(|(known, _)| known == directory) {
                            parsed.not_analysed.push((
                                directory.to_path_buf(),
                                format!(
                                    "before this write the package did not type-check, so go vet ran none of its analyzers (`{}`)",
                                    first.trim()
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_vet_json_output_gives_findings_mapped_to_the_module_and_packages_stopped_by_type_errors() {
        let stderr = "# example.com/m\n{\n\t\"example.com/m\": {\n\t\t\"printf\": [\n\t\t\t{\n\t\t\t\t\"posn\": \"/tmp/x/module/range_test.go:320:3\",\n\t\t\t\t\"message\": \"Errorf format %s has arg v1 of wrong type\"\n\t\t\t}\n\t\t]\n\t}\n}\n# example.com/m/sub\n{}\n# example.com/m/broken\nvet: ./broken/a.go:3:9: undeclared name: y\n";
        let parsed = parse_go_vet_json(stderr, Path::new("/tmp/x/module"), Path::new("/work/m"));
        assert_eq!(
            parsed.findings,
            vec![PreWriteVetFinding {
                path: PathBuf::from("/work/m/range_test.go"),
                line: 320,
                analyzer: "printf".to_owned(),
                message: "Errorf format %s has arg v1 of wrong type".to_owned(),
            }]
        );
        assert_eq!(parsed.analysed, 2);
        assert_eq!(parsed.not_analysed.len(), 1);
        assert_eq!(parsed.not_analysed[0].0, PathBuf::from("/work/m/broken"));
        assert!(parsed.not_analysed[0].1.contains("undeclared name: y"), "{:?}", parsed.not_analysed);
        let directories = vec![PathBuf::from("/work/m"), PathBuf::from("/work/m/broken")];
        let outcome = PreWriteGoVet { findings: parsed.findings, not_analysed: parsed.not_analysed, directories };
        let same = |line: u32| line;
        assert_eq!(outcome.was_there_before(Path::new("/work/m/range_test.go"), 320, "printf", same), Some(true));
        assert_eq!(outcome.was_there_before(Path::new("/work/m/range_test.go"), 321, "printf", same), Some(false));
        assert_eq!(outcome.was_there_before(Path::new("/work/m/range_test.go"), 321, "printf", |line| line + 1), Some(true));
        assert_eq!(outcome.was_there_before(Path::new("/work/m/range_test.go"), 320, "bools", same), Some(false));
        assert_eq!(outcome.was_there_before(Path::new("/work/m/broken/a.go"), 3, "printf", same), None);
        assert_eq!(outcome.was_there_before(Path::new("/work/m/sub/b.go"), 3, "printf", same), None, "a package vet was not asked about");
    }

    /// review50 M5: the copy of go.mod lives elsewhere, so a local `replace` target must be made
    /// absolute (else every write in such a module falls back to "not known").
    #[test]
    fn local_replace_and_use_paths_are_made_absolute_in_the_copy() {
        let dir = Path::new("/work/repo/m");
        let go_mod = "module example.com/m\n\ngo 1.21\n\nreplace example.com/x => ../x\n\nreplace (\n\texample.com/y v1.0.0 => ./third_party/y // vendored\n\texample.com/z => example.com/z2 v1.2.0\n)\n\nrequire example.com/x v0.0.0\n";
        let rewritten = absolute_local_paths(go_mod, dir);
        assert!(rewritten.contains("replace example.com/x => \"/work/repo/m/../x\"\n"), "{rewritten}");
        assert!(rewritten.contains("\texample.com/y v1.0.0 => \"/work/repo/m/./third_party/y\" // vendored\n"), "{rewritten}");
        assert!(rewritten.contains("\texample.com/z => example.com/z2 v1.2.0\n"), "{rewritten}");
        assert!(rewritten.ends_with("require example.com/x v0.0.0\n"), "{rewritten}");
        let go_work = "go 1.21\n\nuse (\n\t.\n\t../other\n)\nuse \"./tools\"\n";
        assert_eq!(
            absolute_local_paths(go_work, dir),
            "go 1.21\n\nuse (\n\t\"/work/repo/m/.\"\n\t\"/work/repo/m/../other\"\n)\nuse \"/work/repo/m/./tools\"\n"
        );
        // The mirror made from a module with a local replace holds the absolute target.
        let workspace = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(workspace.path()).unwrap();
        std::fs::create_dir_all(root.join("m")).unwrap();
        std::fs::write(root.join("m/go.mod"), "module example.com/m\n\nreplace example.com/x => ../x\n").unwrap();
        std::fs::write(root.join("m/a.go"), "package m\n").unwrap();
        let mirror = tempfile::tempdir().unwrap();
        let a_go = root.join("m/a.go");
        let before: HashMap<&Path, &str> = HashMap::from([(a_go.as_path(), "package m // before\n")]);
        mirror_module(&root, &root.join("m"), &mirror.path().join("module"), &before).unwrap();
        let copied = std::fs::read_to_string(mirror.path().join("module/go.mod")).unwrap();
        assert!(copied.contains(&format!("=> \"{}\"", root.join("m/../x").display())), "{copied}");
        assert_eq!(std::fs::read_to_string(mirror.path().join("module/a.go")).unwrap(), "package m // before\n");
    }
}
