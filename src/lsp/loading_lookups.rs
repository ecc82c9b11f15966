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

use std::path::{Path, PathBuf};

use crate::lsp::client::LanguageServer;

/// The label of an occurrence whose definition lookup found nothing: "(no answer: … was still
/// loading)" when that lookup got no answer while `server` loaded, else "(no definition)".
pub(crate) fn no_definition_label(server: &LanguageServer, path: &Path, line: u32, character: u32) -> String {
    if server.lookup_unanswered_while_loading(path, line, character) {
        format!("   (no answer: {} was still loading the project — not a fact about the code)", server.id())
    } else {
        "   (no definition)".to_owned()
    }
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
