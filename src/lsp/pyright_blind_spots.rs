//! What pyright cannot see of a Python write (R-DOW-1; issue 11, pyover21 M1 and M3), said in
//! the diagnostics-on-write block so that "no new errors" is not read as "nothing broke".
//!
//! - A `.pyi` stub beside a written `.py` ([`stub_notes`]): importers are type-checked against
//!   the stub (cachetools 8.0.2 ships `src/cachetools/__init__.pyi` beside `__init__.py`), so a
//!   signature change in the `.py` that the stub does not repeat is invisible to the checker in
//!   every file that imports it. A stub is the same stem in the same directory, the same module
//!   path in a `<package>-stubs` directory beside the package, or under `typings/` at the
//!   workspace root (pyright's default `stubPath`).
//! - A pragma or setting that turns checks off for a checked file ([`checks_turned_off`]):
//!   `# type: ignore` before the first statement, a docstring included (PEP 484; pyright then
//!   reports nothing in the file),
//!   `# pyright: basic`, `# pyright: reportXxx=false` / `=none`, and the configuration's
//!   `typeCheckingMode` `"off"` / `"basic"` or `reportXxx` rules set to `false` / `"none"` (the
//!   first `pyrightconfig.json`, else `pyproject.toml` `[tool.pyright]`, from the file's
//!   directory up to the workspace root); and the lines carrying a line-level `# type: ignore` /
//!   `# pyright: ignore` (errors there are not reported) — every one in a written file, those
//!   naming a changed name in an importer — collapsed into one note for all files
//!   ([`line_ignores_note`]).
//!
//! Files are read beneath the workspace root ([`crate::files::WorkspaceReader`]).

use std::path::{Path, PathBuf};

use crate::files::WorkspaceReader;

/// The most lines with a line-level ignore comment named in a note (the rest are counted).
pub const MAX_IGNORE_LINES_NAMED: usize = 5;

/// Whether `path` is a Python source or stub file.
pub fn is_python(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("py" | "pyi"))
}

/// The stubs (`.pyi`) of the `.py` file `path` that exist beneath `workspace_root`: the sibling
/// `x.pyi`, the same module in a `<package>-stubs` directory beside an enclosing package, and
/// `typings/<module path>.pyi`. Empty for other files.
pub fn stubs_of(reader: &WorkspaceReader, workspace_root: &Path, path: &Path) -> Vec<PathBuf> {
    if path.extension().and_then(|e| e.to_str()) != Some("py") {
        return Vec::new();
    }
    let mut candidates = vec![path.with_extension("pyi")];
    // Every enclosing directory beneath the root: `<dir>-stubs/<rest>.pyi` beside it, and
    // `typings/<dir>/<rest>.pyi`.
    let Ok(relative) = path.strip_prefix(workspace_root) else { return Vec::new() };
    let components: Vec<&std::ffi::OsStr> = relative.iter().collect();
    for top in 0..components.len().saturating_sub(1) {
        let rest: PathBuf = components[top + 1..].iter().collect();
        let parent: PathBuf = components[..top].iter().collect();
        let mut stubs_dir = components[top].to_owned();
        stubs_dir.push("-stubs");
        candidates.push(workspace_root.join(&parent).join(stubs_dir).join(&rest).with_extension("pyi"));
        let module: PathBuf = components[top..].iter().collect();
        candidates.push(workspace_root.join("typings").join(module).with_extension("pyi"));
    }
    candidates.sort();
    candidates.dedup();
    candidates.into_iter().filter(|candidate| candidate != path && reader.read(candidate).is_ok()).collect()
}

/// One note per written `.py` file with a stub that the same write did not change, e.g.
/// `` `src/pkg/__init__.pyi` stubs `src/pkg/__init__.py`: files that import it are type-checked
/// against the stub, which this write did not change …``; and one note naming the modules that
/// import from a written module and have stubs of their own — those that name one of
/// `changed_names` (the top-level names the write changed; empty: unknown, all of them).
/// `display` shows a path.
pub fn stub_notes(workspace_root: &Path, written: &[PathBuf], changed_names: &[String], display: impl Fn(&Path) -> String) -> Vec<String> {
    let Ok(reader) = WorkspaceReader::open(workspace_root) else { return Vec::new() };
    let mut notes = Vec::new();
    let has_stubs = std::cell::OnceCell::new();
    for path in written {
        for stub in stubs_of(&reader, workspace_root, path) {
            if written.contains(&stub) {
                continue;
            }
            let (stub_shown, source_shown) = (display(&stub), display(path));
            notes.push(format!(
                "`{stub_shown}` stubs `{source_shown}`: files that import it are type-checked against the stub, which this write did not change — a signature, name or type changed in `{source_shown}` is invisible to the checker there (\"no new errors\" in them says nothing about it); next step: make the same change in `{stub_shown}`, or check that its declarations still match"
            ));
        }
        // A module that imports from the written one and has a stub of its own (a package's
        // `__init__.py` re-exporting it beside an `__init__.pyi`): code using the names through
        // that module is checked against its stub, which may not even bind them to the written
        // module (trial162 F1: attrs 25.4.0's `attrs/__init__.py` re-exports
        // `attr._next_gen.asdict`, its `__init__.pyi` binds `asdict` from `attr`; a new required
        // parameter gave "no new errors" and a failing test).
        // The importers are read only when some stub exists to hide them: the scan reads every
        // Python file, and the write check has just run its own.
        if path.extension().is_none_or(|extension| extension != "py")
            || !*has_stubs.get_or_init(|| workspace_has_stub_files(&reader, workspace_root))
        {
            continue;
        }
        let importers = crate::lsp::dependents::python_importers(workspace_root, workspace_root, path, REEXPORTING_IMPORTERS_READ);
        let mut stubbed: Vec<(String, String)> = Vec::new();
        for importer in importers.files.iter().filter(|importer| !importers.found_through_another_file.contains(importer)) {
            // Only a module that names one of the changed names (when they are known) passes
            // the change on (recheck48 M2: attrs' filters.py, which imports `fields`-less names
            // from _make.py, was named).
            let names_a_changed_name = changed_names.is_empty()
                || reader.read_to_string(importer).is_ok_and(|text| {
                    changed_names.iter().any(|name| !crate::lsp::rename_coverage::word_positions(&text, name).is_empty())
                });
            if !names_a_changed_name {
                continue;
            }
            for stub in stubs_of(&reader, workspace_root, importer) {
                let pair = (display(&stub), display(importer));
                if !written.contains(&stub) && !stubbed.contains(&pair) {
                    stubbed.push(pair);
                }
            }
        }
        if stubbed.is_empty() {
            continue;
        }
        // One note for all of them (attrs' `_make.py` has 8 such importers).
        const NAMED: usize = 6;
        let source_shown = display(path);
        let pairs: Vec<String> = stubbed.iter().take(NAMED).map(|(stub, importer)| format!("`{stub}` stubs `{importer}`")).collect();
        let more = if stubbed.len() > NAMED { format!(" and {} more", stubbed.len() - NAMED) } else { String::new() };
        notes.push(format!(
            "{} that {} from the written `{source_shown}` {} a stub of {} own ({}{more}): code that uses those names through {} is type-checked against the stub, not against this change — a signature or name changed in `{source_shown}` is invisible to the checker there (\"no new errors\" says nothing about those uses; a stub may bind the names elsewhere); next step: check the stubs' declarations of the changed names, and run the code that calls them (its tests)",
            crate::render::plural(stubbed.len(), "module"),
            crate::render::one_or_many(stubbed.len(), "imports", "import"),
            crate::render::one_or_many(stubbed.len(), "has", "have"),
            crate::render::one_or_many(stubbed.len(), "its", "their"),
            pairs.join(", "),
            crate::render::one_or_many(stubbed.len(), "it", "them"),
        ));
    }
    notes
}

/// Whether any `.pyi` file lies beneath `workspace_root` (names only, no file read; the usual
/// skipped directories left out; at most 20,000 entries listed, past which it answers yes).
fn workspace_has_stub_files(reader: &WorkspaceReader, workspace_root: &Path) -> bool {
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), workspace_root) else { return true };
    for (listed, entry) in
        walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter().flatten().enumerate()
    {
        if listed >= 20_000 {
            return true;
        }
        if entry.is_file() && entry.path().extension().is_some_and(|extension| extension == "pyi") {
            return true;
        }
    }
    false
}

/// The most importers of a written module [`stub_notes`] reads for stubs of their own.
const REEXPORTING_IMPORTERS_READ: usize = 500;

/// What turns pyright's checks off in one checked Python file with no new errors
/// ([`checks_turned_off`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChecksTurnedOff {
    /// The note for the file-wide pragmas (`# type: ignore` before the first statement, `#
    /// pyright: basic`, `# pyright: reportXxx=false`), naming the file and the next step; `None`
    /// when it has none.
    pub file_wide_note: Option<String>,
    /// The selected lines carrying a line-level `# type: ignore` / `# pyright: ignore` comment
    /// (1-based), each with the first changed name its code names, if any.
    pub ignore_lines: Vec<(usize, Option<String>)>,
}

/// For a checked Python file with no new errors: what may hide errors in it, or `None` when
/// nothing does. The line-level ignore comments selected: in a `written` file every one (an
/// ignore on a line the write left still hides an error the write causes there, review48 M4); in
/// a file the write did not change (an importer), only those on a line whose code names one of
/// `changed_names` (a whole word; none when the names are unknown, empty): there a call of a
/// changed function can break unseen (trial166 M2: every importer's unrelated ignores were noise).
/// `display` is how the file is shown.
pub fn checks_turned_off(
    workspace_root: &Path,
    path: &Path,
    written: bool,
    changed_names: &[String],
    display: &str,
) -> Option<ChecksTurnedOff> {
    if !is_python(path) {
        return None;
    }
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let text = reader.read_to_string(path).ok()?;
    let mut reasons: Vec<String> = Vec::new();
    let mut before_first_statement = true;
    let mut ignore_lines: Vec<(usize, Option<String>)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(comment) = trimmed.strip_prefix('#') {
            let comment = comment.trim();
            if let Some(directive) = comment.strip_prefix("pyright:") {
                let directive = directive.trim();
                let items: Vec<&str> = directive.split(',').map(str::trim).collect();
                if items.contains(&"basic") {
                    reasons.push(format!("`# pyright: basic` (line {}) checks this file with pyright's basic rule set only", index + 1));
                }
                let off: Vec<&str> = items
                    .iter()
                    .copied()
                    .filter(|setting| setting.split_once('=').is_some_and(|(_, value)| matches!(value.trim(), "false" | "none")))
                    .collect();
                if !off.is_empty() {
                    reasons.push(format!("`# pyright: {}` (line {}) turns those rules off in this file", off.join(", "), index + 1));
                }
            } else if before_first_statement && (comment == "type: ignore" || comment.starts_with("type: ignore[")) {
                reasons.push(format!(
                    "`# type: ignore` before the first statement (line {}) makes pyright report no errors at all in this file",
                    index + 1
                ));
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        before_first_statement = false;
        // The pragma's own `#`, not the first one on the line (`f("#", g(1))  # type: ignore`,
        // review49 L4), nor a later comment's (`# type: ignore  # noqa`).
        let pragma = line.match_indices('#').map(|(byte, _)| byte).find(|&byte| {
            let comment = line[byte + 1..].trim_start();
            comment.starts_with("type: ignore") || comment.starts_with("pyright: ignore")
        });
        if let Some(byte) = pragma {
            let code = &line[..byte];
            let named = changed_names.iter().find(|name| crate::lsp::position::contains_word(code, name)).cloned();
            if written || named.is_some() {
                ignore_lines.push((index + 1, named));
            }
        }
    }
    if reasons.is_empty() && ignore_lines.is_empty() {
        return None;
    }
    let file_wide_note = (!reasons.is_empty()).then(|| {
        format!(
            "{display}: pyright's checks are turned off in part in this file, so \"no new errors\" there may hide errors this write introduced: {}; next step: check the change without the pragma (remove it, call lsp with {{\"op\": \"diagnostics\", \"file\": \"{display}\"}}, put it back)",
            reasons.join("; ")
        )
    });
    Some(ChecksTurnedOff { file_wide_note, ignore_lines })
}

/// One checked file's line-level ignore comments, for [`line_ignores_note`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLineIgnores {
    /// The file as shown.
    pub display: String,
    /// The write changed it.
    pub written: bool,
    /// Its [`ChecksTurnedOff::ignore_lines`].
    pub lines: Vec<(usize, Option<String>)>,
}

/// One note for the line-level ignore comments of every checked file with no new errors
/// (trial166 M2: one note per file, 7 of ~15 lines of a rename's block, buried the verdict).
/// The lines naming a changed name are named (`file:line`,
/// the name), at most [`MAX_IGNORE_LINES_NAMED`]; the others are counted per file (at most 8
/// files named). `None` when no file has one.
pub fn line_ignores_note(files: &[FileLineIgnores]) -> Option<String> {
    let files: Vec<&FileLineIgnores> = files.iter().filter(|file| !file.lines.is_empty()).collect();
    if files.is_empty() {
        return None;
    }
    let total: usize = files.iter().map(|file| file.lines.len()).sum();
    let naming: Vec<String> = files
        .iter()
        .flat_map(|file| {
            file.lines.iter().filter_map(move |(line, name)| name.as_ref().map(|name| format!("{}:{line} (`{name}`)", file.display)))
        })
        .collect();
    let mut parts: Vec<String> = Vec::new();
    if !naming.is_empty() {
        let mut named: Vec<String> = naming.iter().take(MAX_IGNORE_LINES_NAMED).cloned().collect();
        if naming.len() > MAX_IGNORE_LINES_NAMED {
            named.push(format!("and {} more", naming.len() - MAX_IGNORE_LINES_NAMED));
        }
        parts.push(format!(
            "{} on a line naming what this write changed, where an error it causes is not reported: {}",
            naming.len(),
            named.join(", ")
        ));
    }
    // The written files' other ignores: on lines the write may reach (a call left as it was,
    // its callee changed; review48 M4), counted.
    let others: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let unnamed = file.lines.iter().filter(|(_, name)| name.is_none()).count();
            (file.written && unnamed > 0).then(|| format!("{} {unnamed}", file.display))
        })
        .collect();
    if !others.is_empty() {
        let unnamed_total: usize =
            files.iter().filter(|file| file.written).map(|file| file.lines.iter().filter(|(_, name)| name.is_none()).count()).sum();
        let mut shown: Vec<String> = others.iter().take(8).cloned().collect();
        if others.len() > 8 {
            shown.push(format!("and {} more files", others.len() - 8));
        }
        parts.push(format!(
            "{unnamed_total} in the written files on lines naming no changed name, which still hide an error there ({})",
            shown.join(", ")
        ));
    }
    Some(format!(
        "{total} line-level `# type: ignore` / `# pyright: ignore` {} in the checked files with no new errors, whose errors pyright does not report, so \"no new errors\" there may hide errors this write introduced: {}; next step: for a line you doubt, check it without the pragma (remove it, call lsp with {{\"op\": \"diagnostics\", \"file\": \"{}\"}} for its file, put it back)",
        crate::render::one_or_many(total, "comment", "comments"),
        parts.join("; "),
        files.first().map_or("…", |file| file.display.as_str()),
    ))
}

/// For a write of Python files: the pyright configuration that applies to the first of
/// `written` when it turns checks off (`typeCheckingMode` `"off"` / `"basic"`, `report…` rules
/// set to `false` / `"none"`), as a note for the whole check; `None` otherwise.
pub fn configuration_note(workspace_root: &Path, written: &[PathBuf]) -> Option<String> {
    let path = written.iter().find(|path| is_python(path))?;
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let setting = configuration_turning_checks_off(&reader, workspace_root, path)?;
    Some(format!(
        "the pyright configuration turns checks off: {setting}; \"no new errors\" covers only the rules still on — errors of the rules turned off are not reported in any checked file"
    ))
}

/// The configuration file that applies to `path` (the first `pyrightconfig.json`, else the first
/// `pyproject.toml` with a pyright table, from its directory up to `workspace_root`) when it sets
/// `typeCheckingMode` to `"off"` / `"basic"` or turns `report…` rules off: a sentence naming
/// them; `None` otherwise.
fn configuration_turning_checks_off(reader: &WorkspaceReader, workspace_root: &Path, path: &Path) -> Option<String> {
    let mut found: Option<(PathBuf, String, serde_json::Map<String, serde_json::Value>)> = None;
    for name in ["pyrightconfig.json", "pyproject.toml"] {
        let mut directory = path.parent();
        while let Some(dir) = directory.filter(|dir| dir.starts_with(workspace_root)) {
            let candidate = dir.join(name);
            if let Ok(text) = reader.read_to_string(&candidate) {
                if let Some((section, table)) = crate::python_env::config_table(&candidate, &text) {
                    found = Some((candidate, section, table));
                    break;
                }
            }
            directory = dir.parent();
        }
        if found.is_some() {
            break;
        }
    }
    let (file, section, table) = found?;
    let mut off: Vec<String> = Vec::new();
    if let Some(mode) = table.get("typeCheckingMode").and_then(|value| value.as_str()).filter(|mode| matches!(*mode, "off" | "basic")) {
        off.push(format!("typeCheckingMode = \"{mode}\""));
    }
    for (key, value) in &table {
        let turned_off = value.as_bool() == Some(false) || value.as_str() == Some("none");
        if key.starts_with("report") && turned_off {
            off.push(format!("{key} = {value}"));
        }
    }
    if off.is_empty() {
        return None;
    }
    let shown = crate::render::display_path(workspace_root, &file);
    let section = if section == "pyrightconfig.json" { String::new() } else { format!(" {section}") };
    Some(format!("{shown}{section} sets {}", off.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for (file, text) in files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        (dir, root)
    }

    #[test]
    fn stubs_are_found_beside_the_file_in_a_stubs_package_and_under_typings() {
        let (_dir, root) = workspace(&[
            ("src/pkg/__init__.py", ""),
            ("src/pkg/core.py", ""),
            ("src/pkg/core.pyi", ""),
            ("src/pkg-stubs/core.pyi", ""),
            ("typings/pkg/core.pyi", ""),
            ("src/pkg/other.py", ""),
            ("src/pkg/other.pyi.bak", ""),
        ]);
        let reader = WorkspaceReader::open(&root).unwrap();
        let shown = |paths: Vec<PathBuf>| -> Vec<String> {
            paths.iter().map(|path| path.strip_prefix(&root).unwrap().display().to_string()).collect()
        };
        assert_eq!(
            shown(stubs_of(&reader, &root, &root.join("src/pkg/core.py"))),
            ["src/pkg/core.pyi", "src/pkg-stubs/core.pyi", "typings/pkg/core.pyi"]
        );
        assert!(stubs_of(&reader, &root, &root.join("src/pkg/other.py")).is_empty());
        // A stub is no `.py`: nothing stubs it.
        assert!(stubs_of(&reader, &root, &root.join("src/pkg/core.pyi")).is_empty());
        // Written together with its stubs: no note; written alone: one note per stub.
        let written = [root.join("src/pkg/core.py"), root.join("src/pkg/core.pyi")];
        let notes = stub_notes(&root, &written, &[], |path| path.strip_prefix(&root).unwrap().display().to_string());
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("`src/pkg-stubs/core.pyi` stubs `src/pkg/core.py`"), "{notes:?}");
    }

    /// Trial162 F1: a package re-exporting the written module's names beside a stub of its own.
    #[test]
    fn a_stub_of_a_module_reexporting_the_written_one_is_named() {
        let (_dir, root) = workspace(&[
            ("pkg/__init__.py", "from ._impl import f\n"),
            ("pkg/__init__.pyi", "from ._other import f as f\n"),
            ("pkg/_impl.py", "def f(x):\n    return x\n"),
            ("pkg/_other.py", "def f(x: int) -> int: ...\n"),
            ("use.py", "import pkg\npkg.f(1)\n"),
        ]);
        let shown = |path: &Path| path.strip_prefix(&root).unwrap().display().to_string();
        let notes = stub_notes(&root, &[root.join("pkg/_impl.py")], &[], shown);
        assert!(stub_notes(&root, &[root.join("pkg/_impl.py")], &["other".to_owned()], shown).is_empty(), "no changed name named there");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("1 module that imports from the written `pkg/_impl.py` has a stub of its own (`pkg/__init__.pyi` stubs `pkg/__init__.py`): code that uses those names through it is type-checked against the stub"),
            "{notes:?}"
        );
        // Written with the stub: no note; a module nothing re-exports: none.
        assert!(stub_notes(&root, &[root.join("pkg/_impl.py"), root.join("pkg/__init__.pyi")], &[], shown).is_empty());
        assert!(stub_notes(&root, &[root.join("pkg/_other.py")], &["f".to_owned()], shown).is_empty());
    }

    #[test]
    fn pragmas_that_turn_checks_off_are_named_and_others_are_not() {
        let (_dir, root) = workspace(&[
            ("a.py", "#!/usr/bin/env python\n# type: ignore\nx = 1\n"),
            ("b.py", "import os\n# type: ignore\nx: int = 'a'  # pyright: ignore[reportAssignmentType]\ny = f(1)  # type: ignore\n"),
            ("c.py", "# pyright: strict\n# pyright: reportMissingImports=true\nx = 1\n"),
            ("d.py", "# pyright: reportMissingImports=none, reportUnusedImport=false\nx = 1\n"),
            ("e.txt", "# type: ignore\n"),
        ]);
        let changed = ["f".to_owned()];
        let turned_off = |file: &str, written: bool| checks_turned_off(&root, &root.join(file), written, &changed, file);
        let note = |file: &str, written: bool| turned_off(file, written).and_then(|found| found.file_wide_note);
        assert!(note("a.py", false).unwrap().contains("`# type: ignore` before the first statement (line 2)"));
        // After a statement `# type: ignore` is no file-level pragma; a line-level ignore is
        // selected in a written file, and in an importer only where it names a changed name.
        assert_eq!(note("b.py", true), None);
        assert_eq!(turned_off("b.py", true).unwrap().ignore_lines, [(3, None), (4, Some("f".to_owned()))]);
        assert_eq!(turned_off("b.py", false).unwrap().ignore_lines, [(4, Some("f".to_owned()))]);
        assert_eq!(checks_turned_off(&root, &root.join("b.py"), false, &[], "b.py"), None, "no changed name known");
        assert_eq!(turned_off("c.py", true), None, "strict and rules turned on hide nothing");
        assert!(note("d.py", false).unwrap().contains("`# pyright: reportMissingImports=none, reportUnusedImport=false` (line 1)"));
        assert_eq!(turned_off("e.txt", true), None);
    }

    /// trial166 M2: a rename of pluggy's `HookimplMarker` gave 7 notes, one per written file,
    /// naming unrelated ignore lines; one note now counts them, and names the lines that name a
    /// changed name.
    #[test]
    fn line_ignores_of_every_file_make_one_note_naming_the_lines_with_a_changed_name() {
        let file = |display: &str, written: bool, lines: Vec<(usize, Option<String>)>| FileLineIgnores {
            display: display.to_owned(),
            written,
            lines,
        };
        let files = vec![
            file("src/pkg/impl.py", true, vec![(282, None), (288, None)]),
            file("testing/test_a.py", true, vec![(20, None)]),
            file("testing/test_b.py", false, vec![(33, Some("varnames".to_owned()))]),
            file("testing/test_c.py", false, vec![]),
        ];
        let note = line_ignores_note(&files).unwrap();
        assert!(
            note.starts_with("4 line-level `# type: ignore` / `# pyright: ignore` comments in the checked files with no new errors"),
            "{note}"
        );
        assert!(
            note.contains(
                "1 on a line naming what this write changed, where an error it causes is not reported: testing/test_b.py:33 (`varnames`)"
            ),
            "{note}"
        );
        assert!(note.contains("3 in the written files on lines naming no changed name, which still hide an error there (src/pkg/impl.py 2, testing/test_a.py 1)"), "{note}");
        assert!(!note.contains("test_c"), "{note}");
        // A path to pass, not a placeholder (review49 M9).
        assert!(note.contains("call lsp with {\"op\": \"diagnostics\", \"file\": \"src/pkg/impl.py\"} for its file"), "{note}");
        assert_eq!(line_ignores_note(&files[3..]), None);
    }

    /// review49 L4: the pragma is found by its own `#`, not the line's first one.
    #[test]
    fn an_ignore_comment_is_found_after_a_hash_in_a_string_and_before_another_comment() {
        let (_dir, root) = workspace(&[(
            "app.py",
            "x = f(\"#\", changed(1))  # type: ignore\ny = changed(2)  # type: ignore[arg-type]  # noqa: E501\nw = unrelated(3)  # pyright: ignore\n",
        )]);
        let found = checks_turned_off(&root, &root.join("app.py"), false, &["changed".to_owned()], "app.py").unwrap();
        assert_eq!(found.ignore_lines, vec![(1, Some("changed".to_owned())), (2, Some("changed".to_owned()))]);
        // A written file: every pragma.
        let written = checks_turned_off(&root, &root.join("app.py"), true, &["changed".to_owned()], "app.py").unwrap();
        let lines: Vec<usize> = written.ignore_lines.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, vec![1, 2, 3]);
    }

    #[test]
    fn configuration_that_turns_checks_off_is_named_from_the_nearest_file() {
        let (_dir, root) = workspace(&[
            ("pyproject.toml", "[tool.pyright]\ntypeCheckingMode = \"basic\"\nreportMissingImports = false\nreportUnusedImport = true\n"),
            ("pkg/a.py", ""),
            ("sub/pyrightconfig.json", "{\"typeCheckingMode\": \"strict\", // comment\n}\n"),
            ("sub/b.py", ""),
        ]);
        let note = configuration_note(&root, &[root.join("pkg/a.py")]).unwrap();
        assert!(note.contains("pyproject.toml [tool.pyright] sets typeCheckingMode = \"basic\", reportMissingImports = false"), "{note}");
        assert!(!note.contains("reportUnusedImport"), "{note}");
        assert_eq!(configuration_note(&root, &[root.join("sub/b.py")]), None, "the nearer pyrightconfig.json wins and turns nothing off");
    }
}
