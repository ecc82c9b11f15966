//! Go: the next step after a rename of an interface method that leaves its implementations with
//! the old name (trial157 M1).
//!
//! gopls (Debian's 0.11 era) renames an interface method alone. Whether it renames one of the
//! implementations alone depends on the code, not on the kind of method:
//! - it refuses when the implementation's own package assigns its type to the interface
//!   (`renaming this method "M" to "N" would make *q.B no longer assignable to interface I`):
//!   gods' containers each assert `var _ Container = (*List)(nil)` in their package (trial61 M1,
//!   "lsp_rename at each declaration" failed 18 times);
//! - it refuses every rename in a package with type errors (`… not possible because "q" has
//!   errors`), and writing the interface rename breaks the packages that use an implementing type
//!   as the interface until its method is renamed too;
//! - otherwise it renames the method with its static calls: golang-lru's `(*LRU).Get`, assigned
//!   to `LRUCache` only in the root package, was renamed on a clean tree and after the interface
//!   rename, where it resolved every error.
//!
//! So the advice asks gopls now ([`probe_implementation_renames`]: `textDocument/rename` at each
//! implementation, nothing applied), leads with `lsp_rename` at each implementation gopls accepts
//! — file, line and symbol spelled out — and says the order rule for packages with errors; the
//! structural `ast_edit` recipe is the fallback for the implementations gopls refuses, with its
//! caveats (it matches every method of that name and results, other types' too).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::lsp::client::{LanguageServer, RequestFailure};

/// Most implementations asked ([`probe_implementation_renames`]); the others are "not asked".
pub(crate) const MAX_IMPLEMENTATIONS_ASKED: usize = 12;

/// The longest one answer of the probe may take; the call's own deadline bounds them all.
const PROBE_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// One implementation of the renamed interface method, as the advice names it.
#[derive(Debug, Clone)]
pub(crate) struct ImplementationToRename {
    /// Absolute path of the file declaring it.
    pub path: PathBuf,
    /// The file as shown (workspace-relative).
    pub shown: String,
    /// 0-based line of the declaration.
    pub line0: u32,
    /// Character of the method's name on that line, in the server's position encoding.
    pub character: u32,
    /// `Cache.Get` (receiver type and method), or the method name alone when the line names no
    /// receiver runbound can read.
    pub described: String,
}

/// What gopls answered to renaming one implementation alone, on the files as they are now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProbeAnswer {
    /// gopls computed an edit (nothing applied).
    Accepted,
    /// gopls refused, with its message said once ([`crate::lsp::go_rename_refusals`]).
    Refused(String),
    /// Not asked: the cap or the deadline came first, or the transport failed.
    NotAsked,
}

/// Asks `server` (gopls) to rename each of `implementations` to `new_name`, one after another,
/// and applies nothing: each answer says whether gopls renames that method alone on the files
/// as they are now. At most [`MAX_IMPLEMENTATIONS_ASKED`] are asked, each for at most
/// [`PROBE_REQUEST_TIMEOUT`], all before `deadline`; the rest are [`ProbeAnswer::NotAsked`].
pub(crate) fn probe_implementation_renames(
    server: &LanguageServer,
    implementations: &[ImplementationToRename],
    new_name: &str,
    deadline: Instant,
) -> Vec<ProbeAnswer> {
    implementations
        .iter()
        .enumerate()
        .map(|(index, implementation)| {
            if index >= MAX_IMPLEMENTATIONS_ASKED || Instant::now() >= deadline || server.sync_document(&implementation.path).is_err() {
                return ProbeAnswer::NotAsked;
            }
            let params = lsp_types::RenameParams {
                text_document_position: crate::lsp::rename_coverage::text_document_position(
                    &implementation.path,
                    implementation.line0,
                    implementation.character,
                ),
                new_name: new_name.to_owned(),
                work_done_progress_params: Default::default(),
            };
            match server.request::<lsp_types::request::Rename>(params, (Instant::now() + PROBE_REQUEST_TIMEOUT).min(deadline)) {
                Ok(Some(_)) => ProbeAnswer::Accepted,
                Ok(None) => ProbeAnswer::Refused("it returned no edit".to_owned()),
                Err(RequestFailure::Server(error)) => {
                    ProbeAnswer::Refused(crate::lsp::go_rename_refusals::deduplicated_gopls_message(&error.message))
                }
                Err(RequestFailure::Transport(_)) => ProbeAnswer::NotAsked,
            }
        })
        .collect()
}

/// The `lsp_rename` arguments that rename `implementation` to `new_name`, as JSON text.
fn lsp_rename_arguments(implementation: &ImplementationToRename, old_name: &str, new_name: &str) -> String {
    let quoted = |text: &str| serde_json::Value::from(text).to_string();
    format!(
        "{{\"file\": {}, \"line\": {}, \"symbol\": {}, \"new_name\": {}}}",
        quoted(&implementation.shown),
        implementation.line0 + 1,
        quoted(old_name),
        quoted(new_name)
    )
}

/// The next step of an interface-method rename (`old_name` → `new_name`) whose
/// `implementations` keep the old name, given gopls's `answers` to renaming each alone (same
/// order; [`probe_implementation_renames`]) and `rewrites`, the structural recipe (`None` when
/// the interface's line gives none). Ends with "or rename this one back". No trailing colon.
pub(crate) fn implementation_rename_advice(
    implementations: &[ImplementationToRename],
    answers: &[ProbeAnswer],
    old_name: &str,
    new_name: &str,
    rewrites: Option<&str>,
) -> String {
    let answer_of = |index: usize| answers.get(index).cloned().unwrap_or(ProbeAnswer::NotAsked);
    let renamable: Vec<(&ImplementationToRename, ProbeAnswer)> = implementations
        .iter()
        .enumerate()
        .map(|(index, implementation)| (implementation, answer_of(index)))
        .filter(|(_, answer)| !matches!(answer, ProbeAnswer::Refused(_)))
        .collect();
    let refused: Vec<String> = implementations
        .iter()
        .enumerate()
        .filter_map(|(index, implementation)| match answer_of(index) {
            ProbeAnswer::Refused(why) => {
                Some(format!("`{}` ({}:{}) — \"{}\"", implementation.described, implementation.shown, implementation.line0 + 1, why))
            }
            _ => None,
        })
        .collect();
    let fallback = |which: &str| match rewrites {
        Some(rewrites) => format!("{which}: {rewrites}"),
        None => format!("{which}: rename the declaration and its calls by hand (`lsp references` at each lists its uses)"),
    };
    if renamable.is_empty() {
        return format!(
            "gopls refuses to rename them alone (asked now: {}); {}; or rename this one back",
            refused.join("; "),
            fallback(if refused.len() == 1 { "rename it structurally instead" } else { "rename them structurally instead" })
        );
    }
    let calls: Vec<String> = renamable.iter().map(|(implementation, _)| lsp_rename_arguments(implementation, old_name, new_name)).collect();
    let accepted = renamable.iter().filter(|(_, answer)| *answer == ProbeAnswer::Accepted).count();
    let asked = if accepted == renamable.len() {
        if accepted == 1 {
            " (asked now, gopls renames it alone)".to_owned()
        } else {
            " (asked now, gopls renames each of these alone)".to_owned()
        }
    } else if accepted > 0 {
        format!(" (asked now, gopls renames {accepted} of these alone; the others were not asked in time)")
    } else {
        " (not asked in time whether gopls renames them alone)".to_owned()
    };
    let mut advice = format!(
        "rename {} to `{new_name}` too, once this change is written: `lsp_rename` at each — {}{asked}. gopls renames nothing in a package that has errors, and this change breaks the build wherever one of these types is used as the interface: if gopls refuses one for that, rename the others first (each one renamed clears the errors its type caused), then that one again",
        if implementations.len() == 1 { "it" } else { "them" },
        calls.join("; "),
    );
    if refused.is_empty() {
        advice.push_str(&format!("; {}", fallback("only for one gopls still refuses, the structural rename")));
    } else {
        advice.push_str(&format!(
            "; gopls refuses to rename {} alone (asked now: {}): {}",
            if refused.len() == 1 { "this one" } else { "these" },
            refused.join("; "),
            fallback(if refused.len() == 1 { "rename it structurally" } else { "rename them structurally" })
        ));
    }
    advice.push_str("; or rename this one back");
    advice
}

#[cfg(test)]
mod tests {
    use super::*;

    fn implementation(shown: &str, line0: u32, described: &str) -> ImplementationToRename {
        ImplementationToRename {
            path: PathBuf::from("/w").join(shown),
            shown: shown.to_owned(),
            line0,
            character: 16,
            described: described.to_owned(),
        }
    }

    #[test]
    fn implementations_gopls_renames_alone_lead_with_lsp_rename_and_the_recipe_is_the_fallback() {
        let implementations = [implementation("lru.go", 48, "Cache.Get"), implementation("simplelru/lru.go", 72, "LRU.Get")];
        let advice = implementation_rename_advice(
            &implementations,
            &[ProbeAnswer::Accepted, ProbeAnswer::Accepted],
            "Get",
            "Lookup",
            Some("`ast_edit` with {…}"),
        );
        assert!(
            advice.starts_with("rename them to `Lookup` too, once this change is written: `lsp_rename` at each — {\"file\": \"lru.go\", \"line\": 49, \"symbol\": \"Get\", \"new_name\": \"Lookup\"}; {\"file\": \"simplelru/lru.go\", \"line\": 73, \"symbol\": \"Get\", \"new_name\": \"Lookup\"} (asked now, gopls renames each of these alone)."),
            "{advice}"
        );
        assert!(
            advice.contains("; only for one gopls still refuses, the structural rename: `ast_edit` with {…}; or rename this one back"),
            "{advice}"
        );
        assert!(!advice.contains("renames none"), "{advice}");
    }

    #[test]
    fn refused_implementations_are_named_with_the_reason_and_get_the_recipe() {
        let implementations = [implementation("p/p.go", 8, "A.M"), implementation("q/q.go", 10, "C.M")];
        let refused = "renaming this method \"M\" to \"N\" would make *gx/p.A no longer assignable to interface I";
        let advice = implementation_rename_advice(
            &implementations,
            &[ProbeAnswer::Refused(refused.to_owned()), ProbeAnswer::Accepted],
            "M",
            "N",
            Some("RECIPE"),
        );
        assert!(
            advice.starts_with(
                "rename them to `N` too, once this change is written: `lsp_rename` at each — {\"file\": \"q/q.go\", \"line\": 11,"
            ),
            "{advice}"
        );
        assert!(advice.contains(&format!("gopls refuses to rename this one alone (asked now: `A.M` (p/p.go:9) — \"{refused}\"): rename it structurally: RECIPE; or rename this one back")), "{advice}");
        let all_refused =
            implementation_rename_advice(&implementations[..1], &[ProbeAnswer::Refused(refused.to_owned())], "M", "N", Some("RECIPE"));
        assert!(all_refused.starts_with("gopls refuses to rename them alone (asked now: `A.M` (p/p.go:9)"), "{all_refused}");
        assert!(all_refused.ends_with("rename it structurally instead: RECIPE; or rename this one back"), "{all_refused}");
        let unasked = implementation_rename_advice(&implementations[1..], &[ProbeAnswer::NotAsked], "M", "N", None);
        assert!(unasked.contains("(not asked in time whether gopls renames them alone)"), "{unasked}");
        assert!(unasked.contains("by hand"), "{unasked}");
    }
}
