//! Lookups made while a language server is still loading (issue 11 §3, trial27a M8, the
//! coldrace23 brief): an answer built on definition lookups — `lsp_rename`'s grep cross-check,
//! the references cross-check — says which of them got no answer because the server was still
//! loading, instead of filing them under "(no definition)" as facts about the code.
//!
//! Measured: typescript-language-server 5.9.3 on @tanstack/virtual-core 3.19.13 (a fresh server
//! on a 2-core machine under load) holds every request while tsserver loads the project (its
//! "Initializing JS/TS language features…" progress, begun ~4 s after the first file opened),
//! then answers each definition request with `[]` just before the progress ends, 18 s in; a
//! rename asked then covers 8 of the property's 16 uses, and the cross-check's lookups of the
//! others all came back empty. Which lookups those are is recorded per position by
//! [`LanguageServer::note_lookup`] (from [`crate::lsp::rename_coverage::definition_targets`]).
//!
//! A list answer itself (`references`, `implementation`, `definition`, `type_definition`, the
//! call and type hierarchies) given while its server was still starting or loading starts with
//! a `WARNING:` line ([`loading_list_warning`]) instead of a note after the list (small24): a
//! just-started rust-analyzer answers `incomingCalls` from the part of the crate graph it has
//! loaded, and an empty or short list there read as "no callers".

use std::path::{Path, PathBuf};

use crate::lsp::client::{LanguageServer, Readiness, ReadinessReport};

/// The label of an occurrence whose definition lookup found nothing: "(no answer: … was still
/// loading)" when that lookup got no answer while `server` loaded, else "(no definition)".
pub(crate) fn no_definition_label(server: &LanguageServer, path: &Path, line: u32, character: u32) -> String {
    if server.lookup_unanswered_while_loading(path, line, character) {
        format!("   (no answer: {} was still loading the project — not a fact about the code)", server.id())
    } else {
        "   (no definition)".to_owned()
    }
}

/// The label of an occurrence whose definition lookup led to `target` (shown `path:line`):
/// "(definition: …)", with a caution when the lookup was answered while `server` loaded (its
/// answer then may be the import that binds the name in that file, not the symbol).
pub(crate) fn definition_label(server: &LanguageServer, path: &Path, line: u32, character: u32, target: &str) -> String {
    if server.lookup_answered_while_loading(path, line, character) {
        format!(
            "   (definition: {target} — answered while {} was still loading the project: maybe only what binds the name in this file, not a fact about the code)",
            server.id()
        )
    } else {
        format!("   (definition: {target})")
    }
}

/// How many of `positions` (path, 0-based line, character) were last answered — with a
/// location — while `server` was still loading.
pub(crate) fn answered_while_loading_count<'a>(
    server: &LanguageServer,
    positions: impl IntoIterator<Item = (&'a PathBuf, u32, u32)>,
) -> usize {
    positions.into_iter().filter(|(path, line, character)| server.lookup_answered_while_loading(path, *line, *character)).count()
}

/// The note of `what` ("this rename's grep check") of which `answered` lookups got a location
/// while `server` was still loading: those locations are no fact about the code either, with
/// the call to repeat (`ask_again`). `None` when `answered` is 0.
pub(crate) fn answered_while_loading_note(server: &LanguageServer, answered: usize, what: &str, ask_again: &str) -> Option<String> {
    (answered > 0).then(|| {
        format!(
            "note: {id} was still loading the project during {what}: {count} answered then (marked below) — a server that has not loaded the project may resolve a name only to what binds it in the open file (typescript-language-server's syntax server: the `import` line), so those occurrences are not known to be other symbols; ask again in a few seconds ({ask_again}), once `lsp status` shows {id} ready",
            id = server.id(),
            count = crate::render::plural(answered, "definition lookup"),
        )
    })
}

/// How many of `positions` (path, 0-based line, character) last got no answer while `server`
/// was still loading.
pub(crate) fn unanswered_count<'a>(server: &LanguageServer, positions: impl IntoIterator<Item = (&'a PathBuf, u32, u32)>) -> usize {
    positions.into_iter().filter(|(path, line, character)| server.lookup_unanswered_while_loading(path, *line, *character)).count()
}

/// The note of an answer `what` ("this rename's check", "this references answer") of which
/// `unanswered` lookups got no answer while `server` was still loading, with the call to repeat
/// (`ask_again`). `None` when `unanswered` is 0.
pub(crate) fn unanswered_note(server: &LanguageServer, unanswered: usize, what: &str, ask_again: &str) -> Option<String> {
    (unanswered > 0).then(|| {
        format!(
            "note: {id} was still loading the project during {what}: {count} got no answer — not a fact about the code (they are not known to be other symbols, nor code it cannot resolve), and the server's own answer may be incomplete too; ask again in a few seconds ({ask_again}), once `lsp status` shows {id} ready",
            id = server.id(),
            count = crate::render::plural(unanswered, "definition lookup"),
        )
    })
}

/// The first line of a list answer — `what` ("incoming calls", "references", …) with `listed`
/// entries — that `server_id` gave while it was still starting or loading its project
/// (`report`: its readiness then, from [`crate::lsp::tool::unready_when_answered`]): says so
/// before the list, that an empty or short list is no fact about the code, and the next step.
/// Keeps the words of [`ReadinessReport::note`] ("still starting" / "still indexing", "may be
/// incomplete — call again in a few seconds") that callers look for. `None` when `report` is a
/// ready (or exited) server.
pub(crate) fn loading_list_warning(server_id: &str, report: &ReadinessReport, what: &str, listed: usize) -> Option<String> {
    let state = match &report.readiness {
        Readiness::Ready | Readiness::Exited(_) => return None,
        Readiness::Starting => format!("was still starting when it answered (after waiting {} ms)", report.waited.as_millis()),
        Readiness::Indexing(titles) => format!(
            "was still loading the project when it answered (still indexing after waiting {} ms; running: {})",
            report.waited.as_millis(),
            if titles.is_empty() { "unnamed work".to_owned() } else { titles.join("; ") }
        ),
    };
    let partial = if listed == 0 {
        "its empty answer is not a fact about the code (they may well exist)".to_owned()
    } else {
        format!("{listed} listed, and a short list here is not a fact about the code")
    };
    Some(format!(
        "WARNING: {server_id} {state} — the answer may be incomplete ({what}): {partial}; call again in a few seconds for a complete one, once `lsp status` shows {server_id} ready"
    ))
}

/// The `WARNING:` at the top of a rename (preview or applied) that `server_id` computed while it
/// was still starting or loading its project (`report`, as for [`loading_list_warning`]):
/// typescript-language-server hands a rename asked before tsserver's project load ends to its
/// syntax server, which renames in the open files only. `None` when `report` is a ready server.
pub(crate) fn loading_rename_warning(server_id: &str, report: &ReadinessReport) -> Option<String> {
    let state = match &report.readiness {
        Readiness::Ready | Readiness::Exited(_) => return None,
        Readiness::Starting => "was still starting".to_owned(),
        Readiness::Indexing(titles) => format!(
            "was still loading the project (running: {})",
            if titles.is_empty() { "unnamed work".to_owned() } else { titles.join("; ") }
        ),
    };
    Some(format!(
        "WARNING: {server_id} {state} when it computed this rename: its edit may cover only the files it had loaded (the grep check below lists the occurrences it left); call lsp_rename again with the same arguments once `lsp status` shows {server_id} ready"
    ))
}
