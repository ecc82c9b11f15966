//! "Did you mean …?" for names an LLM misspells or borrows from another grammar: rule keys
//! (`nth_child` → `nthChild`), node kinds (`fn_item` → `function_item`) and field names.

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;

/// Every named, visible node kind of `language`'s grammar, sorted and deduplicated (what a
/// `kind:` rule or a pattern `selector` may name).
pub fn node_kinds(language: SupportLang) -> Vec<String> {
    let ts = language.get_ts_language();
    let mut kinds: Vec<String> = (0..ts.node_kind_count())
        .filter_map(|id| u16::try_from(id).ok())
        .filter(|&id| ts.node_kind_is_named(id) && ts.node_kind_is_visible(id))
        .filter_map(|id| ts.node_kind_for_id(id))
        .map(str::to_owned)
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Every field name of `language`'s grammar, sorted (what `field:` of `inside`/`has` may name).
pub fn field_names(language: SupportLang) -> Vec<String> {
    let ts = language.get_ts_language();
    let mut fields: Vec<String> = (1..=ts.field_count())
        .filter_map(|id| u16::try_from(id).ok())
        .filter_map(|id| ts.field_name_for_id(id))
        .map(str::to_owned)
        .collect();
    fields.sort();
    fields.dedup();
    fields
}

/// Up to `limit` names from `candidates` close to `wanted`, best first: the same name in
/// another case or with `_`/`-` dropped, names within a small edit distance, abbreviations
/// (`fn_item` for `function_item`: each word a prefix-subsequence of the candidate's word), and
/// names sharing words with it (`function_definition` → `function_item`).
pub fn closest<'a>(wanted: &str, candidates: &'a [String], limit: usize) -> Vec<&'a str> {
    let wanted_lower = wanted.to_ascii_lowercase();
    let squash = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').collect::<String>().to_ascii_lowercase();
    let wanted_squashed = squash(wanted);
    let wanted_words: Vec<&str> = wanted_lower.split(['_', '-']).filter(|w| !w.is_empty()).collect();
    let threshold = (wanted.len() / 4).max(2);
    let mut scored: Vec<(u32, usize, &'a str)> = Vec::new();
    for candidate in candidates {
        let lower = candidate.to_ascii_lowercase();
        let distance = levenshtein(&wanted_lower, &lower);
        let tier = if squash(candidate) == wanted_squashed {
            0
        } else if distance <= threshold {
            1
        } else if is_abbreviation(&wanted_words, &lower) {
            2
        } else {
            let shared = lower
                .split(['_', '-'])
                .filter(|w| w.len() > 2 && wanted_words.iter().any(|ww| ww.len() > 2 && (ww.starts_with(w) || w.starts_with(ww))))
                .count();
            if shared == 0 {
                continue;
            }
            // More shared words rank higher.
            3 + 10u32.saturating_sub(shared as u32)
        };
        scored.push((tier, distance, candidate.as_str()));
    }
    scored.sort();
    scored.into_iter().take(limit).map(|(_, _, name)| name).collect()
}

/// `did you mean a, b or c?` for the closest names, or an empty string when none is close.
pub fn did_you_mean(wanted: &str, candidates: &[String]) -> String {
    let close = closest(wanted, candidates, 3);
    match close.as_slice() {
        [] => String::new(),
        [one] => format!("did you mean `{one}`?"),
        [init @ .., last] => {
            format!("did you mean {} or `{last}`?", init.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
        }
    }
}

/// Each word of `wanted` abbreviates the candidate's word at the same position: same first
/// letter, the rest a subsequence (`fn` ↔ `function`, `decl` ↔ `declaration`).
fn is_abbreviation(wanted_words: &[&str], candidate: &str) -> bool {
    let words: Vec<&str> = candidate.split('_').filter(|w| !w.is_empty()).collect();
    if words.len() != wanted_words.len() || words.is_empty() {
        return false;
    }
    wanted_words.iter().zip(&words).all(|(short, long)| {
        let mut long_chars = long.chars();
        let mut short_chars = short.chars();
        match (short_chars.next(), long_chars.next()) {
            (Some(a), Some(b)) if a == b => {}
            _ => return false,
        }
        short_chars.all(|c| long_chars.any(|l| l == c))
    })
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_kind_suggestions() {
        let kinds = node_kinds(SupportLang::Rust);
        assert!(kinds.iter().any(|k| k == "function_item"));
        assert_eq!(closest("fn_item", &kinds, 3).first(), Some(&"function_item"));
        assert_eq!(closest("Function_Item", &kinds, 1), vec!["function_item"]);
        assert!(closest("function_definition", &kinds, 5).contains(&"function_item"), "{:?}", closest("function_definition", &kinds, 5));
        assert_eq!(closest("call_expresion", &kinds, 1), vec!["call_expression"]);
    }

    #[test]
    fn key_suggestions() {
        let keys: Vec<String> = ["nthChild", "stopBy", "has", "inside"].iter().map(|s| s.to_string()).collect();
        assert_eq!(closest("nth_child", &keys, 1), vec!["nthChild"]);
        assert_eq!(closest("stop_by", &keys, 1), vec!["stopBy"]);
        assert_eq!(did_you_mean("insde", &keys), "did you mean `inside`?");
        assert_eq!(did_you_mean("zzzzzz", &keys), "");
    }

    #[test]
    fn python_fields() {
        let fields = field_names(SupportLang::Python);
        assert!(fields.iter().any(|f| f == "return_type"), "{fields:?}");
        assert!(closest("returns", &fields, 3).contains(&"return_type"), "{:?}", closest("returns", &fields, 3));
    }
}
