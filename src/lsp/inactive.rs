//! Code a language server reports as not compiled in the current configuration: rust-analyzer's
//! hint-level `inactive-code` diagnostic ("code is inactive due to #[cfg] directives: feature =
//! "serde" is disabled") marks a `#[cfg]`-gated item or module, and nothing inside it is
//! type-checked. An answer about such code must say so instead of "no errors" / "no new
//! errors" (trial 11, W4), name the cfg and say how to check it.
//!
//! Also: the same problem reported twice at one place by rust-analyzer's own analysis and by
//! rustc through cargo check (rust-analyzer's `E0107` "expected 2 arguments, found 1" beside
//! rustc's `E0061` "this function takes 2 arguments but 1 argument was supplied") is counted
//! once ([`collapse_rust_analyzer_repeats`]).

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};

/// A diagnostic's code as text (`E0061`, `inactive-code`), empty when it has none.
pub fn code_text(diagnostic: &Diagnostic) -> String {
    match &diagnostic.code {
        Some(NumberOrString::String(code)) => code.clone(),
        Some(NumberOrString::Number(code)) => code.to_string(),
        None => String::new(),
    }
}

/// Whether `diagnostic` is rust-analyzer's marker of code not compiled in the current
/// configuration (`inactive-code`, `unlinked-file`) rather than a problem in the code.
pub fn is_inactive_marker(diagnostic: &Diagnostic) -> bool {
    matches!(code_text(diagnostic).as_str(), "inactive-code" | "unlinked-file")
}

/// One range rust-analyzer says is inactive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InactiveRange {
    /// 1-based first line.
    pub start_line: u32,
    /// 1-based last line (inclusive).
    pub end_line: u32,
    /// The server's message, e.g. `code is inactive due to #[cfg] directives: feature = "serde" is disabled`.
    pub message: String,
}

/// The `inactive-code` diagnostics among raw LSP diagnostics (any severity), in order; an
/// `unlinked-file` one (the file is in no crate's module tree) covers the whole file.
pub fn inactive_ranges(raw: &[Diagnostic]) -> Vec<InactiveRange> {
    raw.iter()
        .filter(|d| is_inactive_marker(d))
        .map(|d| {
            if code_text(d) == "unlinked-file" {
                // Not part of any crate's module tree: nothing in the file is analysed.
                let message = if d.message.is_empty() { "file is not included in the module tree" } else { d.message.as_str() };
                return InactiveRange { start_line: 1, end_line: u32::MAX, message: message.to_owned() };
            }
            let message = if d.message.is_empty() { "code is inactive due to #[cfg] directives" } else { d.message.as_str() };
            InactiveRange { start_line: d.range.start.line + 1, end_line: d.range.end.line + 1, message: message.to_owned() }
        })
        .collect()
}

/// The features named disabled in an `inactive-code` message (`feature = "serde" is disabled`).
pub fn disabled_features(message: &str) -> Vec<String> {
    let mut features = Vec::new();
    let mut rest = message;
    while let Some(at) = rest.find("feature = \"") {
        let after = &rest[at + "feature = \"".len()..];
        let Some(end) = after.find('"') else { break };
        let name = &after[..end];
        let tail = &after[end + 1..];
        // A message names the disabled ones (`… is disabled`); an attribute (`#[cfg(…)]`) all.
        let named = message.starts_with("#[") || tail.trim_start().starts_with("is disabled");
        if named && !features.iter().any(|known: &String| known == name) {
            features.push(name.to_owned());
        }
        rest = tail;
    }
    features
}

/// What to run to check code gated by `message`'s cfg: `cargo check --features serde` and the
/// rust-analyzer setting, or (another cfg) how to enable it.
pub fn how_to_check(message: &str) -> String {
    let features = disabled_features(message);
    if features.is_empty() {
        return "check it with the cfg enabled (e.g. `cargo check` with the matching `--features`, `--target` or RUSTFLAGS=\"--cfg …\"), or give rust-analyzer that configuration (rust-analyzer.cargo.features / rust-analyzer.cargo.cfgs in its settings)".to_owned();
    }
    let list = features.join(",");
    let quoted: Vec<String> = features.iter().map(|feature| format!("\"{feature}\"")).collect();
    format!(
        "check it with {{\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [{}]}} (`cargo check --features {list}`), or give rust-analyzer the setting rust-analyzer.cargo.features = [{}] so its answers cover it",
        quoted.join(", "),
        quoted.join(", ")
    )
}

/// The inactive ranges that cover any of `lines` (1-based), or every inactive range when `lines`
/// is `None` (the whole file was asked about).
pub fn covering<'a>(ranges: &'a [InactiveRange], lines: Option<&[u32]>) -> Vec<&'a InactiveRange> {
    ranges
        .iter()
        .filter(|range| match lines {
            None => true,
            Some(lines) => lines.iter().any(|line| (range.start_line..=range.end_line).contains(line)),
        })
        .collect()
}

/// The sentence for an answer about `file` whose `ranges` are inactive: which lines, why, and
/// how to check them. `whole_file` when the range covers the file's every line. `path` (absolute)
/// lets an unlinked file's gating `#[cfg]` be found at the `mod` that declares it.
pub fn inactive_sentence(server_id: &str, file: &str, ranges: &[&InactiveRange], whole_file: bool) -> String {
    inactive_sentence_at(server_id, file, None, ranges, whole_file)
}

/// [`inactive_sentence`] with the file's absolute path and the root its declaring module files
/// are read beneath (`(root, path)`; reads never follow a symlink out of `root`).
pub fn inactive_sentence_at(
    server_id: &str,
    file: &str,
    path: Option<(&std::path::Path, &std::path::Path)>,
    ranges: &[&InactiveRange],
    whole_file: bool,
) -> String {
    let Some(first) = ranges.first() else { return String::new() };
    let unlinked = first.end_line == u32::MAX;
    let (place, verb) = if whole_file {
        (format!("all of {file}"), "is")
    } else {
        let spans: Vec<String> = ranges
            .iter()
            .take(5)
            .map(|range| {
                if range.start_line == range.end_line {
                    range.start_line.to_string()
                } else {
                    format!("{}–{}", range.start_line, range.end_line)
                }
            })
            .collect();
        let noun = if spans.len() == 1 && !spans[0].contains('–') { "line" } else { "lines" };
        (format!("{noun} {} of {file}", spans.join(", ")), if noun == "line" { "is" } else { "are" })
    };
    // The server's message, on one line and without its advice to silence it.
    let message: String = first.message.split("\n\n").next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    if unlinked {
        if let Some(declared) = path.and_then(|(root, path)| gating_declaration(root, path)) {
            return format!(
                "NOT checked: {place} {verb} not compiled in the current configuration: its module is declared under `{}` ({}), so {server_id} does not analyse it (\"{message}\") and no error in it is reported; {}",
                declared.cfg,
                declared.location,
                how_to_check(&declared.cfg)
            );
        }
        return format!(
            "NOT checked: {place} {verb} not part of any crate's module tree ({server_id}: \"{message}\"), so no error in it is reported; if a `#[cfg]`-gated `mod` declares it, {}",
            how_to_check("")
        );
    }
    format!(
        "NOT checked: {place} {verb} not compiled in the current configuration ({server_id}: \"{message}\"), so no error in it is reported; {}",
        how_to_check(&message)
    )
}

/// Where a `#[cfg(…)]`-gated `mod` declares a module file.
struct GatingDeclaration {
    /// The attribute, e.g. `#[cfg(feature = "serde")]`.
    cfg: String,
    /// `src/lib.rs:2`-style: the declaring file's name and 1-based line.
    location: String,
}

/// The `#[cfg(…)]` attribute on the `mod` item that declares `path` (`foo.rs` or `foo/mod.rs`),
/// searched in the files that can declare it (`lib.rs`, `main.rs`, `mod.rs` beside it, or the
/// parent module file `<dir>.rs`), each read beneath `root`.
fn gating_declaration(root: &std::path::Path, path: &std::path::Path) -> Option<GatingDeclaration> {
    let (name, dir) = if path.file_name()?.to_str()? == "mod.rs" {
        let dir = path.parent()?;
        (dir.file_name()?.to_str()?.to_owned(), dir.parent()?.to_path_buf())
    } else {
        (path.file_stem()?.to_str()?.to_owned(), path.parent()?.to_path_buf())
    };
    let mut candidates: Vec<std::path::PathBuf> = ["lib.rs", "main.rs", "mod.rs"].iter().map(|file| dir.join(file)).collect();
    if let (Some(parent), Some(dir_name)) = (dir.parent(), dir.file_name()) {
        candidates.push(parent.join(format!("{}.rs", dir_name.to_string_lossy())));
    }
    for candidate in candidates {
        let Ok(text) = crate::files::read_workspace_file_to_string(root, &candidate) else { continue };
        let lines: Vec<&str> = text.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let item = line.trim();
            let item = item.strip_prefix("pub(crate) ").or_else(|| item.strip_prefix("pub ")).unwrap_or(item);
            if item != format!("mod {name};") {
                continue;
            }
            // The attributes right above the item.
            let cfg = lines[..index]
                .iter()
                .rev()
                .map(|line| line.trim())
                .take_while(|line| line.starts_with("#[") || line.starts_with("//"))
                .find(|line| line.starts_with("#[cfg("))?;
            let shown = candidate.file_name().map(|file| file.to_string_lossy().into_owned()).unwrap_or_default();
            return Some(GatingDeclaration { cfg: cfg.to_owned(), location: format!("{shown}:{}", index + 1) });
        }
    }
    None
}

/// Whether `range` covers every non-blank line of `text`.
pub fn covers_whole_text(range: &InactiveRange, text: &str) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|line| !line.trim().is_empty()).map_or(1, |index| index as u32 + 1);
    let last = lines.iter().rposition(|line| !line.trim().is_empty()).map_or(1, |index| index as u32 + 1);
    range.start_line <= first && range.end_line >= last
}

/// rustc codes that rust-analyzer's own diagnostics stand for under another code: its
/// `mismatched-arg-count` (code `E0107`, "expected 2 arguments, found 1") is rustc's `E0061`
/// (function) / `E0060` (variadic) / `E0057` (closure).
const RUST_ANALYZER_EQUIVALENT_CODES: &[(&str, &[&str])] = &[("E0107", &["E0061", "E0060", "E0057", "E0107"])];

/// Drops rust-analyzer's own error diagnostics that repeat a rustc error (cargo check) at the
/// same start line with the same code or an equivalent one (see the table above): the problem
/// is counted once, as cargo reports it. Returns how many were dropped.
pub fn collapse_rust_analyzer_repeats(all: &mut Vec<Diagnostic>) -> usize {
    let source = |d: &Diagnostic| d.source.clone().unwrap_or_default();
    let code = code_text;
    let line = |d: &Diagnostic| Some(u64::from(d.range.start.line));
    let severity = |d: &Diagnostic| d.severity.unwrap_or(DiagnosticSeverity::ERROR);
    let rustc: Vec<(Option<u64>, String)> =
        all.iter().filter(|d| source(d) == "rustc" && severity(d) == DiagnosticSeverity::ERROR).map(|d| (line(d), code(d))).collect();
    if rustc.is_empty() {
        return 0;
    }
    let before = all.len();
    all.retain(|d| {
        if source(d) != "rust-analyzer" || severity(d) != DiagnosticSeverity::ERROR {
            return true;
        }
        let own = code(d);
        if own.is_empty() {
            return true;
        }
        let equivalent: Vec<&str> = RUST_ANALYZER_EQUIVALENT_CODES
            .iter()
            .find(|(native, _)| *native == own)
            .map(|(_, codes)| codes.to_vec())
            .unwrap_or_else(|| vec![own.as_str()]);
        !rustc.iter().any(|(rustc_line, rustc_code)| *rustc_line == line(d) && equivalent.contains(&rustc_code.as_str()))
    });
    before - all.len()
}

/// The 1-based lines of `new` that a write inserted or replaced (a line diff from `old`, Myers);
/// a pure deletion marks the line after it.
pub fn changed_lines(old: &str, new: &str) -> Vec<u32> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let mut lines = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines) {
        let (tag, _, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        if new_range.is_empty() {
            lines.push(new_range.start as u32 + 1);
        } else {
            lines.extend(new_range.map(|index| index as u32 + 1));
        }
    }
    lines
}

/// Whether `path` is Rust code every `cargo check` of its package compiles: under a package's
/// `src/` (the nearest `Cargo.toml` above it, at or below `root`), outside `src/bin/` — a test,
/// bench, example or bin target can be skipped for its `required-features`.
pub fn in_always_compiled_rust_code(path: &std::path::Path, root: &std::path::Path) -> bool {
    let mut dir = path.parent();
    while let Some(current) = dir {
        if current.join("Cargo.toml").is_file() {
            let relative = path.strip_prefix(current).unwrap_or(path);
            let mut components = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned());
            return components.next().as_deref() == Some("src") && components.next().as_deref() != Some("bin");
        }
        if current == root {
            return false;
        }
        dir = current.parent();
    }
    false
}

/// Whether no stored publish holds a rustc error (rust-analyzer's cargo check found none).
pub fn no_rustc_error_published<'a>(sets: impl IntoIterator<Item = &'a Vec<Diagnostic>>) -> bool {
    sets.into_iter().all(|diagnostics| {
        !diagnostics
            .iter()
            .any(|d| d.source.as_deref() == Some("rustc") && d.severity.unwrap_or(DiagnosticSeverity::ERROR) == DiagnosticSeverity::ERROR)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn features_are_read_from_the_message() {
        let message = "code is inactive due to #[cfg] directives: feature = \"serde\" is disabled";
        assert_eq!(disabled_features(message), vec!["serde".to_owned()]);
        assert!(how_to_check(message).contains("cargo check --features serde"));
        assert!(disabled_features("code is inactive due to #[cfg] directives: test is disabled").is_empty());
    }

    #[test]
    fn a_rust_analyzer_arg_count_error_beside_rustc_e0061_is_dropped() {
        let at = |line: u64, code: &str, source: &str| json!({"range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}}, "severity": 1, "code": code, "source": source, "message": "m"});
        let mut all: Vec<Diagnostic> = [
            at(3, "E0107", "rust-analyzer"),
            at(3, "E0061", "rustc"),
            at(7, "E0107", "rust-analyzer"),
            at(9, "E0308", "rust-analyzer"),
            at(9, "E0308", "rustc"),
        ]
        .into_iter()
        .map(|value| serde_json::from_value(value).unwrap())
        .collect();
        assert_eq!(collapse_rust_analyzer_repeats(&mut all), 2);
        let left: Vec<(u64, &str)> = all.iter().map(|d| (u64::from(d.range.start.line), d.source.as_deref().unwrap())).collect();
        assert_eq!(left, vec![(3, "rustc"), (7, "rust-analyzer"), (9, "rustc")]);
    }
}
