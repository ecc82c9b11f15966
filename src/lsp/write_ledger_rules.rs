//! Rules the write's new/resolved ledger (issue 11 §2, `diagnostics_on_write`) applies to what
//! the servers report, kept apart from the ledger so each rule reads on its own:
//!
//! - one rustc diagnostic with several primary spans is one diagnostic: rust-analyzer's flycheck
//!   publishes one LSP diagnostic per primary span, each carrying the same `data.rendered` text
//!   (trial27b M3: E0408 "variable `CRLF` is not bound in all patterns" counted as 2 new errors,
//!   rustc said 1) — [`merge_multi_span_diagnostics`];
//! - one rustc error that two builds of its cargo target (a crate's `lib` and `lib test`) print
//!   with their type paths written differently is one error (trial155 M2: `&IndexMap<K, V, S>`
//!   and `&map::IndexMap<K, V, S>`, "2 new errors" both at one place) —
//!   [`merge_rustc_build_renderings`];
//! - the go vet analyzers `go test` runs as part of building a test binary make that build fail:
//!   gopls reports them as warnings, but a write that adds one breaks `go test` (trial27b M6:
//!   `fmt.Errorf` with `%d` for a string read "no new errors") — [`go_test_vet_analyzers`],
//!   [`is_go_test_vet_finding`];
//! - the warnings a write adds are listed with the most telling first: those that name (in
//!   backticks) something one of the write's new errors names (trial27b M3: `unused variable:
//!   CRLF` beside E0408 on `CRLF`) — [`most_telling_first`].

use std::path::Path;
use std::sync::OnceLock;

use lsp_types::Diagnostic;

use crate::lsp::diagnostics_on_write::{DiagnosticRecord, Severity};

/// The go vet analyzers of `go test`'s vet step on Go 1.19 (`go help test`), used when the
/// installed `go` cannot be asked.
const GO_TEST_VET_ANALYZERS_FALLBACK: &[&str] =
    &["atomic", "bool", "buildtags", "errorsas", "ifaceassert", "nilfunc", "printf", "stringintconv"];

/// Merges the LSP diagnostics of one file that are one compiler diagnostic reported at several
/// primary spans: same severity, code, source and message, and the same non-empty
/// `data.rendered` text (rust-analyzer's flycheck puts rustc's rendered diagnostic there, which
/// names the first primary span's position, so two distinct diagnostics never share it).
///
/// Returns each kept diagnostic (the first by position, in the input's order) with the other
/// 1-based lines it was also reported at (empty for a diagnostic reported once).
pub(crate) fn merge_multi_span_diagnostics(diagnostics: Vec<Diagnostic>) -> Vec<(Diagnostic, Vec<u32>)> {
    let mut kept: Vec<(Diagnostic, Vec<u32>)> = Vec::with_capacity(diagnostics.len());
    for diagnostic in diagnostics {
        let rendered = rendered_text(&diagnostic);
        let same = rendered.and_then(|rendered| {
            kept.iter_mut().find(|(earlier, _)| {
                rendered_text(earlier) == Some(rendered)
                    && earlier.severity == diagnostic.severity
                    && earlier.code == diagnostic.code
                    && earlier.source == diagnostic.source
                    && earlier.message == diagnostic.message
            })
        });
        match same {
            Some((earlier, also_at)) => {
                let line = diagnostic.range.start.line.saturating_add(1);
                if line != earlier.range.start.line.saturating_add(1) && !also_at.contains(&line) {
                    also_at.push(line);
                }
            }
            None => kept.push((diagnostic, Vec::new())),
        }
    }
    kept
}

/// The words a merged rustc diagnostic's message ends with (see
/// [`merge_rustc_build_renderings`]).
pub(crate) const BUILD_RENDERINGS_MARK: &str =
    " [one error, reported by two of cargo's builds of this file (a target's plain and test builds), which print its type paths differently]";

/// Merges the rustc diagnostics of one file (as [`merge_multi_span_diagnostics`] returns them)
/// that are one error reported by two builds of its cargo target — `cargo check --all-targets`
/// builds a crate's library twice, as `lib` and `lib test`, and the two may print a type's path
/// differently (indexmap 2.14.2: `&IndexMap<K, V, S>` and `&map::IndexMap<K, V, S>`; the write
/// check said "2 new errors", both at `src/map/slice.rs:546`, and `"*"` "8 errors" for 4:
/// trial155 M2). Two diagnostics merge when their source is `rustc`, their severity, code (there
/// is one) and range are the same and their messages are equal once every path is cut to its
/// last segment ([`without_path_qualifiers`]). The first is kept, its message ending with
/// [`BUILD_RENDERINGS_MARK`], and the lines both were also reported at are kept.
pub(crate) fn merge_rustc_build_renderings(diagnostics: Vec<(Diagnostic, Vec<u32>)>) -> Vec<(Diagnostic, Vec<u32>)> {
    let mut kept: Vec<(Diagnostic, Vec<u32>)> = Vec::with_capacity(diagnostics.len());
    for (diagnostic, also_at) in diagnostics {
        let same = (diagnostic.source.as_deref() == Some("rustc") && diagnostic.code.is_some())
            .then(|| {
                kept.iter_mut().find(|(earlier, _)| {
                    earlier.source == diagnostic.source
                        && earlier.severity == diagnostic.severity
                        && earlier.code == diagnostic.code
                        && earlier.range == diagnostic.range
                        && earlier.message != diagnostic.message
                        && !earlier.message.ends_with(BUILD_RENDERINGS_MARK)
                        && without_path_qualifiers(&earlier.message) == without_path_qualifiers(&diagnostic.message)
                })
            })
            .flatten();
        match same {
            Some((earlier, earlier_also_at)) => {
                earlier.message.push_str(BUILD_RENDERINGS_MARK);
                for line in also_at {
                    if !earlier_also_at.contains(&line) {
                        earlier_also_at.push(line);
                    }
                }
            }
            None => kept.push((diagnostic, also_at)),
        }
    }
    kept
}

/// `message` with every Rust path cut to its last segment: each identifier followed by `::`
/// and each `::` dropped (`&'a map::IndexMap<K, V>` → `&'a IndexMap<K, V>`, `::core::hash::Hash`
/// → `Hash`). For comparing two wordings of one message only.
pub(crate) fn without_path_qualifiers(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("::") {
            rest = after;
            continue;
        }
        let identifier_length = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if identifier_length > 0 {
            let (identifier, after) = rest.split_at(identifier_length);
            if !after.starts_with("::") {
                out.push_str(identifier);
            }
            rest = after;
            continue;
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// Drops rust-analyzer's own warnings that repeat a rustc warning of the same code at the same
/// line (rust-analyzer checks `unused_variables` and `non_snake_case` itself, and rustc's
/// `cargo check` reports them too): one warning, counted once. Returns how many were dropped.
pub(crate) fn collapse_rust_analyzer_warning_repeats(diagnostics: &mut Vec<Diagnostic>) -> usize {
    let warning = |d: &Diagnostic| d.severity == Some(lsp_types::DiagnosticSeverity::WARNING);
    let rustc: Vec<(u32, Option<lsp_types::NumberOrString>)> = diagnostics
        .iter()
        .filter(|d| warning(d) && d.source.as_deref() == Some("rustc"))
        .map(|d| (d.range.start.line, d.code.clone()))
        .collect();
    let before = diagnostics.len();
    diagnostics.retain(|d| {
        !(warning(d)
            && d.source.as_deref() == Some("rust-analyzer")
            && d.code.is_some()
            && rustc.iter().any(|(line, code)| *line == d.range.start.line && *code == d.code))
    });
    before - diagnostics.len()
}

fn rendered_text(diagnostic: &Diagnostic) -> Option<&str> {
    diagnostic.data.as_ref()?.get("rendered")?.as_str().filter(|rendered| !rendered.is_empty())
}

/// The go vet analyzers `go test` runs while building a test binary, a finding of which makes
/// the test build fail: the subset `go help test` names for the installed `go` (asked once per
/// process, with `GOTOOLCHAIN=local`, never a `go` inside `workspace_root`), else Go 1.19's
/// (atomic, bool, buildtags, errorsas, ifaceassert, nilfunc, printf, stringintconv; Go 1.21
/// adds directive, Go 1.24 tests).
pub(crate) fn go_test_vet_analyzers(workspace_root: &Path) -> &'static [String] {
    static ANALYZERS: OnceLock<Vec<String>> = OnceLock::new();
    ANALYZERS.get_or_init(|| {
        asked_go_test_vet_analyzers(workspace_root)
            .unwrap_or_else(|| GO_TEST_VET_ANALYZERS_FALLBACK.iter().map(|name| (*name).to_owned()).collect())
    })
}

fn asked_go_test_vet_analyzers(workspace_root: &Path) -> Option<Vec<String>> {
    let go = which::which("go").ok().filter(|found| !crate::trust::resolves_inside(workspace_root, found))?;
    let output = std::process::Command::new(go)
        .args(["help", "test"])
        .env("GOTOOLCHAIN", "local")
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    parse_go_help_test_vet_subset(&String::from_utf8_lossy(&output.stdout))
}

/// The quoted analyzer names of `go help test`'s "That subset is: 'atomic', 'bool', … and
/// 'stringintconv'." sentence (`None` when it is not found).
pub(crate) fn parse_go_help_test_vet_subset(help: &str) -> Option<Vec<String>> {
    let text = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = text.find("That subset is:")? + "That subset is:".len();
    let sentence = &text[start..];
    let end = sentence.find(". ").unwrap_or(sentence.len());
    let names: Vec<String> = sentence[..end].split('\'').skip(1).step_by(2).map(str::to_owned).collect();
    (!names.is_empty()).then_some(names)
}

/// Whether `record` is a gopls finding of one of `analyzers` (its source names the analyzer):
/// `go test` refuses to build the package's tests while it is there.
pub(crate) fn is_go_test_vet_finding(server_id: &str, record: &DiagnosticRecord, analyzers: &[String]) -> bool {
    server_id == "gopls"
        && record.severity != Severity::Error
        && record.source.as_deref().is_some_and(|source| analyzers.iter().any(|name| name == source))
}

/// How the findings of [`go_test_refusal_line`] were known to be new or not.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GoTestRefusalBasis<'a> {
    /// This write resolved type errors, which hold gopls' vet analysis back: the findings not
    /// known to be new may predate it.
    pub resolved_errors: bool,
    /// How many findings' pre-write state `go vet` run on the text before the write gave, gopls
    /// having none ([`crate::lsp::go_vet_before_write`]).
    pub settled_by_pre_write_vet: usize,
    /// Why that run could not tell for the findings still not known (a clause), when it was
    /// asked and could not.
    pub pre_write_vet_not_known: Option<&'a str>,
}

/// The line that says `go test` will refuse to build: `findings` are the checked files' findings
/// of the vet checks `go test` runs (rendered, and whether this write introduced each: `None`
/// when the file's pre-write state is unknown, or when this write resolved type errors, which
/// hold gopls' vet analysis back); `analyzers` are those checks; `basis` says how the state
/// before the write was had, and why it is not known where it is not.
pub(crate) fn go_test_refusal_line(findings: &[(String, Option<bool>)], analyzers: &[String], basis: &GoTestRefusalBasis<'_>) -> String {
    let count = |wanted: Option<bool>| findings.iter().filter(|(_, introduced)| *introduced == wanted).count();
    let (introduced, earlier, unknown) = (count(Some(true)), count(Some(false)), count(None));
    let mut whose: Vec<String> = Vec::new();
    if introduced > 0 {
        whose.push(format!("this write introduced {introduced}"));
    }
    if earlier > 0 {
        whose.push(format!("{earlier} {} there before this write", crate::render::one_or_many(earlier, "was", "were")));
    }
    if basis.settled_by_pre_write_vet > 0 {
        whose.push(format!(
            "{} by running these go vet checks on the text before this write, as gopls had no pre-write state for {}",
            if basis.settled_by_pre_write_vet == findings.len() {
                "known".to_owned()
            } else {
                format!("{} of them known", basis.settled_by_pre_write_vet)
            },
            crate::render::one_or_many(basis.settled_by_pre_write_vet, "its file", "their files")
        ));
    }
    if unknown > 0 {
        let vet = basis
            .pre_write_vet_not_known
            .map(|why| format!("; go vet on the text before this write could not tell: {why}"))
            .unwrap_or_default();
        whose.push(if basis.resolved_errors {
            format!(
                "whether this write introduced {unknown} is not known (found now that this write resolved type errors, which hold gopls' vet analysis back: {} may predate this write{vet})",
                crate::render::one_or_many(unknown, "it", "they")
            )
        } else {
            format!("whether this write introduced {unknown} is not known (no pre-write state{vet})")
        });
    }
    let shown: Vec<&str> = findings.iter().take(5).map(|(rendered, _)| rendered.as_str()).collect();
    let more = if findings.len() > shown.len() { format!("; and {} more", findings.len() - shown.len()) } else { String::new() };
    format!(
        "go test will refuse to build: {} of the go vet checks `go test` runs before the tests ({}) {} in the checked files, and the package's test build fails on {} ({}): {}{more}",
        crate::render::plural(findings.len(), "finding"),
        analyzers.join(", "),
        crate::render::one_or_many(findings.len(), "is", "are"),
        crate::render::one_or_many(findings.len(), "it", "them"),
        whose.join("; "),
        shown.join("; ")
    )
}

/// Takes out of `new` the errors that may only have been hidden until now: in a file the write
/// did not change (`written` false, so no line of it changed), where the same write resolved
/// errors (`resolved`). A checker stops reporting some errors while others stand in the same
/// code — pyright drops `Object of type "Undefined" is not callable` while the call there lacks
/// an argument (trial27a F1: voluptuous' util.py; the fixing edit was said to have introduced 4
/// errors the pristine package already had) — so such an error is not known to be the write's.
/// An error `direct` says is the write's direct effect (its line names a name the write changed,
/// [`line_names_any`]) stays new. Returns the errors taken (warnings stay in `new`).
pub(crate) fn take_maybe_unmasked(
    written: bool,
    resolved: &[DiagnosticRecord],
    new: &mut Vec<DiagnosticRecord>,
    direct: impl Fn(&DiagnosticRecord) -> bool,
) -> Vec<DiagnosticRecord> {
    if written || !resolved.iter().any(|record| record.severity == Severity::Error) {
        return Vec::new();
    }
    let (taken, kept): (Vec<DiagnosticRecord>, Vec<DiagnosticRecord>) =
        std::mem::take(new).into_iter().partition(|record| record.severity == Severity::Error && !direct(record));
    *new = kept;
    taken
}

/// Splits `gone` (errors the write's check no longer reports in a file) into those it resolved
/// and those on a line it left unchanged where it introduced a new error (`new`; old lines
/// mapped through `line_map`): a checker reports one error per expression, so the older one may stand behind
/// the new one — pyright reports `Argument missing for parameter "strict"` in place of the
/// argument's own type error on that call (inflect 7.4.0, trial144 F1/M4: the fix then said it
/// "introduced" the pristine type error, which made every importer's resolved errors "hidden",
/// and the next identical break read "no new errors" in the 9 test files it broke). Returns
/// (resolved, hidden behind a new error).
pub(crate) fn split_hidden_behind_new_errors(
    gone: Vec<DiagnosticRecord>,
    new: &[DiagnosticRecord],
    line_map: &crate::lsp::diagnostics_on_write::LineMap,
) -> (Vec<DiagnosticRecord>, Vec<DiagnosticRecord>) {
    let new_error_lines: std::collections::HashSet<u32> =
        new.iter().filter(|record| record.severity == Severity::Error).map(|record| record.line).collect();
    // (Only on a line the write left unchanged: on a line it wrote, the old error went with the
    // old text — a rename onto another function replaces the call's error, lsp_rename's
    // `an_existing_error_whose_message_names_the_renamed_function_is_not_new`.)
    gone.into_iter().partition(|record| {
        let (line, unchanged) = line_map.map(record.line);
        record.severity != Severity::Error || !unchanged || !new_error_lines.contains(&line)
    })
}

/// For pyright and basedpyright (`server_id`), in a written file (`written`): splits `resolved`
/// (errors gone from it, not behind a new error on their own line) into those resolved and those
/// on an unchanged line after the first new error of the write (`new`; old lines mapped through
/// `line_map`). pyright types what a failing call returns as `Unknown` and reports nothing on
/// what uses it, so an error there may only have stopped being checked (trial177 M1:
/// marshmallow's `data = s.dump(user, mny=True)` made the 9 errors on the next 3 lines read
/// "resolved by this write (9)"). Other servers, and files the write did not change (which the
/// caller handles as possibly masked), keep every record resolved. Returns (resolved, not
/// counted as resolved).
pub(crate) fn split_unchecked_after_new_error(
    server_id: &str,
    written: bool,
    resolved: Vec<DiagnosticRecord>,
    new: &[DiagnosticRecord],
    line_map: &crate::lsp::diagnostics_on_write::LineMap,
) -> (Vec<DiagnosticRecord>, Vec<DiagnosticRecord>) {
    let first_new_error = new.iter().filter(|record| record.severity == Severity::Error).map(|record| record.line).min();
    let Some(first_new_error) = first_new_error.filter(|_| written && matches!(server_id, "pyright" | "basedpyright")) else {
        return (resolved, Vec::new());
    };
    resolved.into_iter().partition(|record| {
        let (line, unchanged) = line_map.map(record.line);
        record.severity != Severity::Error || !unchanged || line <= first_new_error
    })
}

/// Whether the line of `record` (read from its file now, beneath `workspace_root`: a file the
/// write did not change) names one of `names` as a word; `true` when `names` is empty (unknown:
/// every line counts) or the line cannot be read.
pub(crate) fn line_names_any(workspace_root: &Path, record: &DiagnosticRecord, names: &[String]) -> bool {
    if names.is_empty() {
        return true;
    }
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &record.path) else {
        return true;
    };
    let Some(line) = text.lines().nth(record.line.saturating_sub(1) as usize) else {
        return true;
    };
    line.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| names.iter().any(|name| name == word))
}

/// Why the pre-write state `server` gives for its share of a write (`own_written`) is not the
/// state before the write, or `None` when it is: another server of the same write (`groups`:
/// each server with the files it checks) checks written files that lie under this server's
/// root, so it reads them from the disk (or has them resynced from it before its pre-write states
/// are taken), where the whole write already is — its "before" is the written files' old texts against those files' new
/// ones, a half-applied state (trial27a F5: a rename over chevrotain's sources and a `.d.ts`
/// another typescript-language-server served reported 3 errors "resolved by this write" that
/// never existed). What differs from that state is then said not known to be new or resolved.
/// Files in `pinned_old` are held open in this server at their old text through its pre-write
/// states (Python: see `diagnostics_on_write::pin_other_roots_old_texts`) and do not count.
pub(crate) fn half_applied_pre_write_state(
    supervisor: &crate::lsp::supervisor::LspSupervisor,
    server: &crate::lsp::client::LanguageServer,
    own_written: &[std::path::PathBuf],
    pinned_old: &[std::path::PathBuf],
    groups: &[(std::sync::Arc<crate::lsp::client::LanguageServer>, Vec<std::path::PathBuf>)],
) -> Option<String> {
    // A root of its own beneath this one (a `downstream/` crate no member of this cargo
    // workspace, a nested Go module): its files are in none of this server's checks, so their
    // new text does not make this one's pre-write state half-applied (trial95 M1, trial99 M1).
    let separate_project = |other: &crate::lsp::client::LanguageServer| {
        crate::lsp::sibling_roots::nested_roots_are_separate_projects(server.id())
            && other.root() != server.root()
            && other.root().starts_with(server.root())
    };
    let read_from_disk: Vec<String> = groups
        .iter()
        .filter(|(other, _)| !std::ptr::eq(other.as_ref(), server) && other.id() == server.id() && !separate_project(other))
        .flat_map(|(_, written)| written.iter())
        // Open in this server or not, it sees the new text before its pre-write states are
        // taken: the resync before them brings every file changed on disk that it has open up to
        // date, and only its own written files are kept at their old text (session 26: a rename
        // through the root's tsserver, whose test file the `src/tests` server checked, reported
        // an error "resolved by this write" that never existed).
        .filter(|path| path.starts_with(server.root()) && !own_written.contains(path) && !pinned_old.contains(path) && path.exists())
        .map(|path| supervisor.display_path(path))
        .collect();
    // Python: a root of its own that imports the project's package (a `docs/examples/…`
    // project with the package installed) reads the other servers' written modules from the
    // disk as imports (trial120 F2: pluggy's `HookimplMarker` rename, where the example root saw
    // the new `pluggy/__init__.py` with its own old text, and an error that never existed was
    // "resolved by this write").
    let python = server.definition().extensions.iter().any(|(extension, _)| extension == "py");
    let imported: Vec<String> = if python && !own_written.is_empty() {
        groups
            .iter()
            .filter(|(other, _)| !std::ptr::eq(other.as_ref(), server) && other.id() == server.id())
            .flat_map(|(_, written)| written.iter())
            .filter(|path| {
                !path.starts_with(server.root())
                    && !pinned_old.contains(path)
                    && path.extension().is_some_and(|extension| extension == "py" || extension == "pyi")
                    && path.exists()
            })
            .map(|path| supervisor.display_path(path))
            .collect()
    } else {
        Vec::new()
    };
    if read_from_disk.is_empty() && !imported.is_empty() {
        let count = imported.len();
        return Some(format!(
            "{} of this same write ({}) {} checked by another {} process, and this one imports modules from the disk, where {} already written, so its state before the write may be half-applied (the new text of {} with the old text of the files it checks)",
            crate::render::plural(count, "file"),
            imported.iter().take(5).cloned().collect::<Vec<_>>().join(", ") + &if count > 5 { format!(" and {} more", count - 5) } else { String::new() },
            crate::render::one_or_many(count, "is", "are"),
            server.id(),
            crate::render::one_or_many(count, "it is", "they are"),
            crate::render::one_or_many(count, "that file", "those files"),
        ));
    }
    if read_from_disk.is_empty() {
        return None;
    }
    let count = read_from_disk.len();
    Some(format!(
        "{} of this same write ({}) {} checked by another {} process but {} under this one's root, which read {} from the disk, already written (or resynced {} from it), so its state before the write was half-applied (the new text of {} with the old text of the files it checks)",
        crate::render::plural(count, "file"),
        read_from_disk.join(", "),
        crate::render::one_or_many(count, "is", "are"),
        server.id(),
        crate::render::one_or_many(count, "lies", "lie"),
        crate::render::one_or_many(count, "it", "them"),
        crate::render::one_or_many(count, "it", "them"),
        crate::render::one_or_many(count, "that file", "those files"),
    ))
}

/// Orders `warnings` (stable) so that those naming, in backticks, a name one of `new_errors`
/// names in backticks come first: the warning that shows what the write's error did.
pub(crate) fn most_telling_first(warnings: &mut [DiagnosticRecord], new_errors: &[DiagnosticRecord]) {
    let error_names: Vec<&str> = new_errors.iter().flat_map(|record| backticked(&record.message)).collect();
    if error_names.is_empty() {
        return;
    }
    warnings.sort_by_key(|record| !backticked(&record.message).iter().any(|name| error_names.contains(name)));
}

fn backticked(message: &str) -> Vec<&str> {
    message.split('`').skip(1).step_by(2).filter(|name| !name.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn diagnostic(line: u32, message: &str, rendered: Option<&str>) -> Diagnostic {
        serde_json::from_value(json!({
            "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 4}},
            "severity": 1, "code": "E0408", "source": "rustc", "message": message,
            "data": rendered.map(|rendered| json!({"rendered": rendered})),
        }))
        .expect("a Diagnostic")
    }

    #[test]
    fn one_rustc_diagnostic_at_two_primary_spans_is_merged_and_two_distinct_ones_are_not() {
        let rendered = "error[E0408]: variable `CRLF` is not bound in all patterns\n --> src/writer.rs:7:16\n";
        let merged = merge_multi_span_diagnostics(vec![
            diagnostic(6, "variable `CRLF` is not bound in all patterns", Some(rendered)),
            diagnostic(8, "variable `CRLF` is not bound in all patterns", Some(rendered)),
            // Same message, another rustc diagnostic (its rendered text names its own position).
            diagnostic(20, "variable `CRLF` is not bound in all patterns", Some("error[E0408]: … --> src/writer.rs:21:16\n")),
            // No rendered text (rust-analyzer's own diagnostics): never merged.
            diagnostic(30, "variable `CRLF` is not bound in all patterns", None),
            diagnostic(31, "variable `CRLF` is not bound in all patterns", None),
        ]);
        let lines: Vec<(u32, Vec<u32>)> = merged.iter().map(|(diagnostic, also)| (diagnostic.range.start.line + 1, also.clone())).collect();
        assert_eq!(lines, vec![(7, vec![9]), (21, vec![]), (31, vec![]), (32, vec![])]);
    }

    #[test]
    fn one_rustc_error_printed_two_ways_by_the_lib_and_lib_test_builds_is_one() {
        // indexmap 2.14.2 (trial155 M2): the macro call at slice.rs:546, as rust-analyzer
        // publishes it from both builds.
        let at = |line: u32, code: &str, message: &str| -> (Diagnostic, Vec<u32>) {
            let mut diagnostic = diagnostic(line, message, None);
            diagnostic.code = Some(lsp_types::NumberOrString::String(code.to_owned()));
            (diagnostic, Vec::new())
        };
        let lib = "no method named `as_entries` found for reference `&IndexMap<K, V, S>` in the current scope";
        let lib_test = "no method named `as_entries` found for reference `&map::IndexMap<K, V, S>` in the current scope";
        let merged = merge_rustc_build_renderings(vec![
            at(545, "E0599", lib),
            at(545, "E0599", lib_test),
            // Another code at the same place, another place, another type: other errors.
            at(545, "E0308", lib_test),
            at(600, "E0599", lib_test),
            at(545, "E0599", "no method named `as_entries` found for reference `&Vec<K>` in the current scope"),
        ]);
        let got: Vec<(u32, String)> =
            merged.iter().map(|(diagnostic, _)| (diagnostic.range.start.line, diagnostic.message.clone())).collect();
        assert_eq!(got.len(), 4, "{got:#?}");
        assert_eq!(got[0], (545, format!("{lib}{BUILD_RENDERINGS_MARK}")));
        assert_eq!(without_path_qualifiers("`&'a map::IndexMap<K, V>` and `::core::hash::Hash`"), "`&'a IndexMap<K, V>` and `Hash`");
        assert_eq!(without_path_qualifiers("a::b c"), "b c");
    }

    #[test]
    fn go_help_test_names_the_vet_subset() {
        let help = "binary. Only a high-confidence subset of the default go vet checks are\nused. That subset is: 'atomic', 'bool', 'buildtags', 'errorsas',\n'ifaceassert', 'nilfunc', 'printf', and 'stringintconv'. You can see\nthe documentation";
        assert_eq!(
            parse_go_help_test_vet_subset(help).unwrap(),
            vec!["atomic", "bool", "buildtags", "errorsas", "ifaceassert", "nilfunc", "printf", "stringintconv"]
        );
        assert_eq!(parse_go_help_test_vet_subset("no such sentence"), None);
    }

    fn record(severity: Severity, source: &str, message: &str) -> DiagnosticRecord {
        DiagnosticRecord {
            path: PathBuf::from("/w/a.go"),
            line: 1,
            severity,
            code: None,
            message: message.to_owned(),
            source: Some(source.to_owned()),
            repeat_in_step: 0,
            also_at_lines: Vec::new(),
            column: None,
            targets: Vec::new(),
        }
    }

    #[test]
    fn only_gopls_warnings_of_the_go_test_analyzers_break_the_test_build() {
        let analyzers: Vec<String> = GO_TEST_VET_ANALYZERS_FALLBACK.iter().map(|name| (*name).to_owned()).collect();
        assert!(is_go_test_vet_finding("gopls", &record(Severity::Warning, "printf", "format %d"), &analyzers));
        assert!(!is_go_test_vet_finding("gopls", &record(Severity::Warning, "unusedparams", "unused"), &analyzers));
        assert!(!is_go_test_vet_finding("rust-analyzer", &record(Severity::Warning, "printf", "format %d"), &analyzers));
    }

    #[test]
    fn the_go_test_refusal_line_says_which_findings_the_write_introduced() {
        let analyzers = vec!["printf".to_owned()];
        let gopls_state = GoTestRefusalBasis::default();
        let line = go_test_refusal_line(&[("a.go:8: warning format %d (printf)".to_owned(), Some(true))], &analyzers, &gopls_state);
        assert_eq!(line, "go test will refuse to build: 1 finding of the go vet checks `go test` runs before the tests (printf) is in the checked files, and the package's test build fails on it (this write introduced 1): a.go:8: warning format %d (printf)");
        let line = go_test_refusal_line(&[("a".to_owned(), Some(false)), ("b".to_owned(), None)], &analyzers, &gopls_state);
        assert!(
            line.contains("2 findings")
                && line.contains("(1 was there before this write; whether this write introduced 1 is not known (no pre-write state))"),
            "{line}"
        );
        // trial169 M2: gopls had no pre-write state; go vet on the text before the write gave it.
        let by_vet = GoTestRefusalBasis { settled_by_pre_write_vet: 2, ..GoTestRefusalBasis::default() };
        let line = go_test_refusal_line(&[("a".to_owned(), Some(true)), ("b".to_owned(), Some(true))], &analyzers, &by_vet);
        assert!(
            line.contains("(this write introduced 2; known by running these go vet checks on the text before this write, as gopls had no pre-write state for their files)"),
            "{line}"
        );
        let not_run = GoTestRefusalBasis { pre_write_vet_not_known: Some("go was not found"), ..GoTestRefusalBasis::default() };
        let line = go_test_refusal_line(&[("b".to_owned(), None)], &analyzers, &not_run);
        assert!(
            line.contains("(whether this write introduced 1 is not known (no pre-write state; go vet on the text before this write could not tell: go was not found))"),
            "{line}"
        );
    }

    #[test]
    fn errors_next_to_resolved_ones_in_an_unchanged_file_are_not_known_to_be_new() {
        let resolved = vec![record(Severity::Error, "Pyright", "Argument missing for parameter \"strict\"")];
        let fresh = || {
            vec![
                record(Severity::Error, "Pyright", "Object of type \"Undefined\" is not callable"),
                record(Severity::Warning, "Pyright", "w"),
            ]
        };
        let mut new = fresh();
        let taken = take_maybe_unmasked(false, &resolved, &mut new, |_| false);
        assert_eq!((taken.len(), new.len(), new[0].severity), (1, 1, Severity::Warning));
        // A written file, a file where nothing was resolved, an error on a line naming a changed
        // name: the new errors stay new.
        let mut new = fresh();
        assert!(take_maybe_unmasked(true, &resolved, &mut new, |_| false).is_empty() && new.len() == 2);
        let mut new = fresh();
        assert!(take_maybe_unmasked(false, &[], &mut new, |_| false).is_empty() && new.len() == 2);
        let mut new = fresh();
        assert!(take_maybe_unmasked(false, &resolved, &mut new, |_| true).is_empty() && new.len() == 2);
    }

    #[test]
    fn the_warning_that_names_what_a_new_error_names_comes_first() {
        let mut warnings =
            vec![record(Severity::Warning, "rustc", "unreachable pattern"), record(Severity::Warning, "rustc", "unused variable: `CRLF`")];
        most_telling_first(&mut warnings, &[record(Severity::Error, "rustc", "variable `CRLF` is not bound in all patterns")]);
        assert_eq!(warnings[0].message, "unused variable: `CRLF`");
    }
}
