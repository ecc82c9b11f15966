//! gopls's refusals of a rename, said once and readable (trial157 M5).
//!
//! gopls (Debian's 0.11 era) answers a rename it refuses with an error whose message holds one
//! entry per conflict it found, each `renaming this func "NewARC" to "New"` followed by its
//! details after a tab (`\tconflicts with func in same block`). A package with in-package test
//! files is checked twice (the package and its test variant), so the same conflict comes twice,
//! glued together with no separator: `…in same blockrenaming this func …` (golang-lru's
//! `NewARC` → `New`). [`deduplicated_gopls_message`] splits the entries, says each once and
//! turns the tabs into spaces.

/// The word that opens each of gopls's rename conflict entries (`renaming this method "Peek" to
/// "Get"`, `renaming "M" to "N" not possible because …`).
const ENTRY_OPENER: &str = "renaming ";

/// gopls's rename error `message` with each conflict entry once, in its first order, entries
/// joined by `"; "` and every run of whitespace (its tabs) made one space. A message with no
/// entry opener is only whitespace-normalized.
pub(crate) fn deduplicated_gopls_message(message: &str) -> String {
    let mut starts: Vec<usize> = message.match_indices(ENTRY_OPENER).map(|(at, _)| at).collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut entries: Vec<String> = Vec::new();
    for (index, start) in starts.iter().enumerate() {
        let end = starts.get(index + 1).copied().unwrap_or(message.len());
        let entry = message[*start..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let entry = entry.trim_end_matches([';', ',']).trim().to_owned();
        if !entry.is_empty() && !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    entries.join("; ")
}

#[cfg(test)]
mod tests {
    use super::deduplicated_gopls_message;

    #[test]
    fn a_conflict_gopls_repeats_for_the_test_variant_is_said_once() {
        // golang-lru 0.5.4, `NewARC` → `New` (trial157 M5), as gopls sent it.
        let message = "renaming this func \"NewARC\" to \"New\"\tconflicts with func in same blockrenaming this func \"NewARC\" to \"New\"\tconflicts with func in same block";
        assert_eq!(deduplicated_gopls_message(message), "renaming this func \"NewARC\" to \"New\" conflicts with func in same block");
    }

    #[test]
    fn distinct_entries_stay_in_order_and_a_plain_message_is_only_normalized() {
        let message = "renaming this method \"M\" to \"N\"\twould make *gx/p.A no longer assignable to interface I\t(rename gx/p.I.M if you intend to change both types)renaming this method \"M\" to \"N\"\twould conflict with this method";
        assert_eq!(
            deduplicated_gopls_message(message),
            "renaming this method \"M\" to \"N\" would make *gx/p.A no longer assignable to interface I (rename gx/p.I.M if you intend to change both types); renaming this method \"M\" to \"N\" would conflict with this method"
        );
        assert_eq!(deduplicated_gopls_message("no object found\n"), "no object found");
        assert_eq!(
            deduplicated_gopls_message("renaming \"M\" to \"N\" not possible because \"gx/q\" has errors"),
            "renaming \"M\" to \"N\" not possible because \"gx/q\" has errors"
        );
    }
}
