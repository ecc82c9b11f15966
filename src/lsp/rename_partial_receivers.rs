//! Python renames of a member used on a receiver the server types as a union whose other
//! member lacks it (R-REN-1; issue 11, trial150 F1).
//!
//! tomlkit 0.13.2's `Container.__getitem__` returns `Item | Container`; `doc["a"].append("x")`
//! type-checks only through `Container` (pyright already reports `Cannot access attribute
//! "append" for class "Item"` there), yet at run time `doc["a"]` is an `Array`, an `Item`
//! subclass with its own `append`. pyright binds the call to `Container.append`, so renaming
//! `Container.append` rewrites it to `.append_item`, which raises `AttributeError` on the
//! `Array`: 4 tests failed, and the write check said "no new errors" (the error on the line was
//! already there, only renamed in its message).
//!
//! [`partial_receiver_uses`] reads, before the write, the server's diagnostics of each Python file
//! where the plan renames a `receiver.old_name` use (receivers other than `self`/`cls`), and
//! finds that error at the renamed name: such a use is a WARNING and the rename is staged, not
//! written. The server is asked nothing new: a file it has not checked yet is opened, and its
//! diagnostics pulled or awaited, within the deadline; a file it gave none for is said.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::lsp::client::LanguageServer;
use crate::lsp::rename::WorkspaceEditPlan;

/// The most files whose diagnostics [`partial_receiver_uses`] reads; the rest are said.
pub const MAX_FILES_READ: usize = 40;

/// What [`partial_receiver_uses`] found.
#[derive(Debug, Default)]
pub struct PartialReceiverCheck {
    /// The renamed uses on whose name the server reported, before the write, that a class in the
    /// receiver's type has no such attribute: (`path:line`, 1-based, the class the server names).
    pub uses: Vec<(String, String)>,
    /// The renamed `receiver.old_name` uses (receivers other than `self`/`cls`) whose file's
    /// diagnostics were read.
    pub read: usize,
    /// Such uses in files whose diagnostics were not read: the server gave none in time, the
    /// file cap ([`MAX_FILES_READ`]) or the deadline; (`path` as shown, uses).
    pub unread: Vec<(String, usize)>,
}

impl PartialReceiverCheck {
    /// The top `WARNING:` line, `None` when no such use was found.
    pub fn warning(&self, server_name: &str, old_name: &str, new_name: &str) -> Option<String> {
        if self.uses.is_empty() {
            return None;
        }
        const SHOWN: usize = 6;
        let shown: Vec<String> = self.uses.iter().take(SHOWN).map(|(at, class)| format!("{at} (`{class}`)")).collect();
        let more = self.uses.len().saturating_sub(SHOWN);
        let mut classes: Vec<&str> = self.uses.iter().map(|(_, class)| class.as_str()).collect();
        classes.sort_unstable();
        classes.dedup();
        let class_count = classes.len();
        let classes = classes.iter().map(|class| format!("`{class}`")).collect::<Vec<_>>().join(", ");
        Some(format!(
            "WARNING: {} this rename changes from `.{old_name}` to `.{new_name}` {} on a receiver {server_name} types as a union whose other member has no `{old_name}` — {server_name} already reported there, before this write, that {classes} {} no attribute `{old_name}`: {}{}; code like this runs because at run time the receiver holds a subclass of {classes} with its own `{old_name}` (the grep check lists the definitions of `{old_name}` this rename leaves), and after the rename `.{new_name}` raises AttributeError there, with no new error from {server_name}; next step: keep `.{old_name}` on those lines (edit them back after the rename), or rename those subclasses' `{old_name}` too",
            crate::render::plural(self.uses.len(), "use"),
            crate::render::one_or_many(self.uses.len(), "sits", "sit"),
            crate::render::one_or_many(class_count, "has", "have"),
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
        ))
    }

    /// The line for the rename's report, `None` when the plan renames no such use.
    pub fn summary(&self, server_name: &str, old_name: &str) -> Option<String> {
        let unread: usize = self.unread.iter().map(|(_, uses)| uses).sum();
        if self.read == 0 && unread == 0 {
            return None;
        }
        let asked = self.read + unread;
        let mut sentence = format!(
            "union-receiver check: {asked} renamed `.{old_name}` {} on receivers other than `self`/`cls` read against {server_name}'s diagnostics before the write for \"no attribute `{old_name}`\" on a member of the receiver's type: {} such",
            crate::render::one_or_many(asked, "use", "uses"),
            self.uses.len()
        );
        if unread > 0 {
            let files: Vec<String> = self.unread.iter().take(5).map(|(path, uses)| format!("{path} ({uses})")).collect();
            sentence.push_str(&format!(
                "; {} NOT checked — {server_name} gave no diagnostics for {} in time (or past the cap of {MAX_FILES_READ} files): {}{}",
                crate::render::plural(unread, "use"),
                crate::render::one_or_many(self.unread.len(), "its file", "their files"),
                files.join(", "),
                if self.unread.len() > 5 { format!(" and {} more files", self.unread.len() - 5) } else { String::new() }
            ));
        }
        Some(sentence)
    }
}

/// The renamed `receiver.old_name` uses of `plan` (Python files; `self`/`cls` receivers left
/// out) on whose name `server` reported, before the write, that a class of the receiver's type
/// has no attribute `old_name` (pyright: `Cannot access attribute "old" for class "K"`; older
/// pyright: `Cannot access member "old" for type "K"`). Each file is synced with the server (its
/// text on disk is the text before the write) and its diagnostics pulled or awaited, until
/// `deadline`.
pub fn partial_receiver_uses(
    server: &LanguageServer,
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    old_name: &str,
    new_name: &str,
    deadline: Instant,
) -> PartialReceiverCheck {
    let mut check = PartialReceiverCheck::default();
    let encoding = server.position_encoding();
    let mut files_read = 0usize;
    for (path, before, after) in plan.python_texts() {
        // (0-based line, column in the server's encoding) of each renamed use on another receiver.
        let mut renamed_uses: Vec<(u32, u32)> = Vec::new();
        for (line0, (old_line, new_line)) in before.split('\n').zip(after.split('\n')).enumerate() {
            if old_line == new_line {
                continue;
            }
            for at in crate::lsp::rename_overrides::renamed_member_uses(old_line, new_line, old_name, new_name) {
                let receiver_start = crate::lsp::rename_overrides::member_use_receiver_start(old_line, at);
                let receiver = &old_line[receiver_start..at - 1];
                let receiver_is_a_whole_name = receiver_start == 0 || !old_line[..receiver_start].ends_with('.');
                if matches!(receiver, "self" | "cls") && receiver_is_a_whole_name {
                    continue;
                }
                renamed_uses.push((line0 as u32, encoding.column_from_byte(old_line, at)));
            }
        }
        if renamed_uses.is_empty() {
            continue;
        }
        let shown = crate::render::display_path(workspace_root, path);
        let diagnostics = if files_read < MAX_FILES_READ && Instant::now() < deadline {
            files_read += 1;
            diagnostics_before_write(server, path, deadline)
        } else {
            None
        };
        let Some(diagnostics) = diagnostics else {
            check.unread.push((shown, renamed_uses.len()));
            continue;
        };
        check.read += renamed_uses.len();
        for (line0, column) in renamed_uses {
            let class = diagnostics.iter().find_map(|diagnostic| {
                let range = diagnostic.range;
                let at_the_name = range.start.line == line0 && range.start.character == column;
                at_the_name.then(|| missing_attribute_class(&diagnostic.message, old_name)).flatten()
            });
            if let Some(class) = class {
                check.uses.push((format!("{shown}:{}", line0 + 1), class));
            }
        }
    }
    check
}

/// The class a Python server's "no such attribute" message names for `name`: pyright's
/// `Cannot access attribute "name" for class "K"` (1.1.339 on) and `Cannot access member "name"
/// for type "K"` (before); `None` for any other message.
fn missing_attribute_class(message: &str, name: &str) -> Option<String> {
    let first_line = message.lines().next().unwrap_or(message);
    let rest = [format!("Cannot access attribute \"{name}\" for class \""), format!("Cannot access member \"{name}\" for type \"")]
        .iter()
        .find_map(|prefix| first_line.strip_prefix(prefix.as_str()).map(str::to_owned))?;
    let class = rest.split('"').next()?.trim();
    (!class.is_empty()).then(|| class.to_owned())
}

/// `path`'s diagnostics as `server` has them for its text on disk: pulled when the server
/// supports it, else the latest publish made after the server got that text (awaited until
/// `deadline`, at most 10 s). `None` when none came.
fn diagnostics_before_write(server: &LanguageServer, path: &Path, deadline: Instant) -> Option<Vec<lsp_types::Diagnostic>> {
    let sync = server.sync_document(path).ok()?;
    let wait_end = (Instant::now() + Duration::from_secs(10)).min(deadline);
    server.wait_until_ready(wait_end);
    if let Ok(Some(pulled)) = server.pull_diagnostics(path, wait_end) {
        return Some(pulled);
    }
    if let crate::lsp::StoredDiagnostics::Current(set) = server.stored_diagnostics(path) {
        return Some(set.diagnostics);
    }
    let after = server.document_synced_generation(path).unwrap_or(sync.generation_before);
    server.wait_for_published_diagnostics(path, after, server.definition().diagnostics_settle, wait_end).map(|set| set.diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_attribute_message_names_its_class_in_both_wordings() {
        assert_eq!(
            missing_attribute_class("Cannot access attribute \"append\" for class \"Item\"\n  Attribute \"append\" is unknown", "append"),
            Some("Item".to_owned())
        );
        assert_eq!(missing_attribute_class("Cannot access member \"append\" for type \"Item\"", "append"), Some("Item".to_owned()));
        assert_eq!(missing_attribute_class("Cannot access attribute \"appendx\" for class \"Item\"", "append"), None);
        assert_eq!(missing_attribute_class("\"append\" is not a known attribute of \"None\"", "append"), None);
    }

    #[test]
    fn the_warning_names_each_use_with_its_class_and_the_summary_counts_what_was_not_read() {
        let check = PartialReceiverCheck {
            uses: vec![("tests/test_items.py:354".to_owned(), "Item".to_owned())],
            read: 3,
            unread: vec![("tests/test_api.py".to_owned(), 2)],
        };
        let warning = check.warning("pyright", "append", "append_item").unwrap();
        assert!(warning.starts_with("WARNING: 1 use this rename changes from `.append` to `.append_item` sits on a receiver pyright types as a union whose other member has no `append` — pyright already reported there, before this write, that `Item` has no attribute `append`: tests/test_items.py:354 (`Item`);"), "{warning}");
        let summary = check.summary("pyright", "append").unwrap();
        assert!(summary.starts_with("union-receiver check: 5 renamed `.append` uses on receivers other than"), "{summary}");
        assert!(summary.ends_with("2 uses NOT checked — pyright gave no diagnostics for its file in time (or past the cap of 40 files): tests/test_api.py (2)"), "{summary}");
        assert_eq!(PartialReceiverCheck::default().warning("pyright", "a", "b"), None);
        assert_eq!(PartialReceiverCheck::default().summary("pyright", "a"), None);
    }
}
