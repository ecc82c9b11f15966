//! Whether a Go rename leaves files that gofmt would change (trial157 M4).
//!
//! gopls renames by replacing the identifier only: a struct field whose new name has another
//! length shifts the alignment gofmt keeps in its block (`lru  simplelru.LRUCache` became
//! `inner  simplelru.LRUCache` in golang-lru's `Cache`), and nothing said so. The planned text of
//! each changed `.go` file is piped to `gofmt -l` (nothing is read by path, nothing written),
//! and so is its text before the change: a file that was formatted and would not be is named,
//! with the command that formats it. gofmt is looked up on the run's search path (restricted
//! runs: never a binary inside the workspace) and runs under the tools' file confinement.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::files::ExpectedState;
use crate::lsp::rename::WorkspaceEditPlan;
use crate::transport::{run_to_completion, ProcessSpec};

/// Most changed Go files checked; the others are counted as not checked.
const MAX_FILES_CHECKED: usize = 40;

/// Longest one gofmt run may take.
const GOFMT_RUN_TIMEOUT: Duration = Duration::from_secs(5);

/// What [`go_files_left_unformatted`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GoFormatCheck {
    /// The files (absolute) gofmt reads as formatted before the change and not after it.
    pub unformatted: Vec<PathBuf>,
    /// Changed Go files not checked (the cap, the deadline, a gofmt run that failed).
    pub not_checked: usize,
    /// Why nothing was checked (gofmt not found); `None` when gofmt ran.
    pub skipped: Option<String>,
}

impl GoFormatCheck {
    /// The note a rename's answer carries (`written`: the change was written, else staged), with
    /// each file shown by `shown`; `None` when there is nothing to say.
    pub(crate) fn note(&self, written: bool, shown: &dyn Fn(&Path) -> String) -> Option<String> {
        let not_checked = if self.not_checked > 0 {
            format!(
                " ({} not checked: gofmt could not read the text before or after the rename, or the time or the cap of {MAX_FILES_CHECKED} files ran out)",
                crate::render::plural(self.not_checked, "changed Go file")
            )
        } else {
            String::new()
        };
        if let Some(why) = &self.skipped {
            return Some(format!("note: whether the changed Go files stay gofmt-formatted was not checked: {why}"));
        }
        if self.unformatted.is_empty() {
            return (!not_checked.is_empty()).then(|| format!("note: gofmt formatting checked{not_checked}"));
        }
        let files: Vec<String> = self.unformatted.iter().map(|path| shown(path)).collect();
        Some(format!(
            "note: gofmt: {} {} gofmt-formatted before this rename and {} after it{not_checked} — gopls replaces the name only, and a name of another length shifts the alignment gofmt keeps in its block (struct fields, comments, composite literals); {}run `gofmt -w {}`",
            files.join(", "),
            if files.len() == 1 { "was" } else { "were" },
            match (written, files.len() == 1) {
                (true, true) => "is not",
                (true, false) => "are not",
                (false, _) => "would not be",
            },
            if written { "" } else { "once it is written, " },
            files
                .iter()
                .map(|file| if file.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
                    format!("'{}'", file.replace('\'', "'\\''"))
                } else {
                    file.clone()
                })
                .collect::<Vec<_>>()
                .join(" ")
        ))
    }
}

/// The changed Go files of `plan` that gofmt reads as formatted before the change and not after
/// it (a renamed file is compared with its source), each checked by piping its text to
/// `gofmt -l`; at most [`MAX_FILES_CHECKED`] files, before `deadline`. `search_path`: where gofmt
/// is looked for (the run's, already restricted in a restricted run).
pub(crate) fn go_files_left_unformatted(
    workspace_root: &Path,
    search_path: Option<&std::ffi::OsStr>,
    plan: &WorkspaceEditPlan,
    deadline: Instant,
) -> GoFormatCheck {
    let is_go = |path: &Path| path.extension().is_some_and(|extension| extension == "go");
    // (path, text before, text after) of each changed Go file that exists after the change.
    let changed: Vec<(&Path, &[u8], &[u8])> = plan
        .changes
        .iter()
        .zip(&plan.files)
        .filter(|(change, _)| is_go(&change.path))
        .filter_map(|(change, planned)| {
            let after = change.new_content.as_deref()?;
            let before: &[u8] = match &change.expected {
                ExpectedState::Content(bytes) => bytes,
                _ => {
                    let source_path = planned.operation.renamed_from()?;
                    match &plan.changes.iter().find(|other| other.path == source_path)?.expected {
                        ExpectedState::Content(bytes) => bytes,
                        _ => return None,
                    }
                }
            };
            (before != after).then_some((change.path.as_path(), before, after))
        })
        .collect();
    let mut check = GoFormatCheck::default();
    if changed.is_empty() {
        return check;
    }
    let Some(gofmt) =
        which::which_in("gofmt", search_path, workspace_root).ok().filter(|found| !crate::trust::resolves_inside(workspace_root, found))
    else {
        check.skipped = Some("gofmt was not found on the search path (outside the workspace)".to_owned());
        return check;
    };
    let confinement = crate::lsp::confinement::tool_confinement(workspace_root, &gofmt, None, &[]);
    // `Some(true)`: gofmt reads the text as formatted; `None`: no answer (a parse error, a
    // failed or timed-out run).
    let formatted = |text: &[u8]| -> Option<bool> {
        let left = deadline.saturating_duration_since(Instant::now()).min(GOFMT_RUN_TIMEOUT);
        if left.is_zero() {
            return None;
        }
        let spec = ProcessSpec::new(&gofmt, workspace_root)
            .with_args(["-l"])
            .with_display_name("gofmt -l")
            .with_filesystem_confinement(confinement.clone());
        let completed = run_to_completion(spec, text, left, 64 * 1024).ok()?;
        (completed.status.success() && !completed.timed_out).then_some(completed.stdout.is_empty())
    };
    for (index, (path, before, after)) in changed.iter().enumerate() {
        if index >= MAX_FILES_CHECKED || Instant::now() >= deadline {
            check.not_checked += changed.len() - index;
            break;
        }
        match (formatted(before), formatted(after)) {
            (Some(true), Some(false)) => check.unformatted.push(path.to_path_buf()),
            (Some(_), Some(_)) => {}
            // Unformatted before: the rename is not what unformatted it.
            (Some(false), None) => {}
            _ => check.not_checked += 1,
        }
    }
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_the_files_and_the_command_and_says_a_staged_change_apart() {
        let shown = |path: &Path| path.strip_prefix("/w").unwrap().display().to_string();
        let check = GoFormatCheck { unformatted: vec![PathBuf::from("/w/lru.go")], not_checked: 0, skipped: None };
        let written = check.note(true, &shown).unwrap();
        assert!(written.starts_with("note: gofmt: lru.go was gofmt-formatted before this rename and is not after it — "), "{written}");
        assert!(written.ends_with("; run `gofmt -w lru.go`"), "{written}");
        let staged = check.note(false, &shown).unwrap();
        assert!(staged.contains("lru.go was gofmt-formatted before this rename and would not be after it — "), "{staged}");
        assert!(staged.ends_with("once it is written, run `gofmt -w lru.go`"), "{staged}");
        assert_eq!(GoFormatCheck::default().note(true, &shown), None);
        let skipped = GoFormatCheck { skipped: Some("gofmt was not found".to_owned()), ..GoFormatCheck::default() };
        assert!(skipped.note(true, &shown).unwrap().contains("was not checked: gofmt was not found"));
        // review46 #14: the reason names gofmt's failures too, and a path with a space is quoted.
        let spaced = GoFormatCheck { unformatted: vec![PathBuf::from("/w/my pkg/a.go")], not_checked: 1, skipped: None };
        let note = spaced.note(true, &shown).unwrap();
        assert!(
            note.contains("(1 changed Go file not checked: gofmt could not read the text before or after the rename, or the time"),
            "{note}"
        );
        assert!(note.ends_with("run `gofmt -w 'my pkg/a.go'`"), "{note}");
    }
}
