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

/// Whether `diagnostic` is rust-analyzer's `unlinked-file` (the file is in no crate's module tree).
pub(crate) fn is_unlinked_file(diagnostic: &Diagnostic) -> bool {
    code_text(diagnostic) == "unlinked-file"
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

/// The features to turn on to compile code gated by `message`: those named disabled in an
/// `inactive-code` message (`feature = "serde" is disabled`), or for an attribute (`#[cfg(…)]`)
/// those it names outside `not(…)` — `#[cfg(all(feature = "critical-section", not(feature =
/// "std")))]` needs `critical-section`, never `std` (trial40 F4).
pub fn disabled_features(message: &str) -> Vec<String> {
    if message.trim_start().starts_with("#") {
        return crate::lsp::cargo_features::feature_polarity(message).0.into_iter().collect();
    }
    features_said(message, "is disabled")
}

/// The features to turn off to compile code gated by `message`: those an `inactive-code`
/// message names enabled (`feature = "std" is enabled`), or for an attribute those it names
/// inside `not(…)`.
pub fn features_needed_off(message: &str) -> Vec<String> {
    if message.trim_start().starts_with("#") {
        return crate::lsp::cargo_features::feature_polarity(message).1.into_iter().collect();
    }
    features_said(message, "is enabled")
}

/// The `feature = "NAME"` of an `inactive-code` message followed by `state`, in order, no repeats.
fn features_said(message: &str, state: &str) -> Vec<String> {
    let mut features = Vec::new();
    let mut rest = message;
    while let Some(at) = rest.find("feature = \"") {
        let after = &rest[at + "feature = \"".len()..];
        let Some(end) = after.find('"') else { break };
        let name = &after[..end];
        let tail = &after[end + 1..];
        if tail.trim_start().starts_with(state) && !features.iter().any(|known: &String| known == name) {
            features.push(name.to_owned());
        }
        rest = tail;
    }
    features
}

/// What to run to check code gated by `message`'s cfg: `cargo check --features serde` and the
/// rust-analyzer setting, `--no-default-features` when the cfg needs an enabled feature off,
/// or (another cfg) how to enable it.
pub fn how_to_check(message: &str) -> String {
    let features = disabled_features(message);
    let features_off = features_needed_off(message);
    // A bare cfg the code needs OFF that is on here (`std_backtrace is enabled`): no feature
    // turns it off — a build script sets it (anyhow's on every rustc ≥ 1.65), or RUSTFLAGS
    // (trial130 F1: the step `"features": ["backtrace"]` was given, and its check said "0
    // errors" without compiling the code).
    let set_here = bare_cfgs_enabled(message);
    if !set_here.is_empty() {
        let cfgs = set_here.iter().map(|cfg| format!("`{cfg}`")).collect::<Vec<_>>().join(", ");
        return format!(
            "it is compiled only where {cfgs} is NOT set, and it is set here (by the crate's build script, typically from the compiler's version, or by RUSTFLAGS): no `cargo check` on this toolchain compiles it{} — read it by hand, or check it where the build script does not set {cfgs} (another toolchain){}",
            if features.is_empty() {
                String::new()
            } else {
                format!(" unless its cfg is an `any(…)` that the features {} also satisfy (read the attribute)", features.join(", "))
            },
            if features.is_empty() { String::new() } else { format!(", with the features {}", features.join(", ")) }
        );
    }
    // A gate on a target as well as features (`all(target_arch = "wasm32", target_os = "unknown",
    // feature = "js")`): the features alone compile nothing on this host (trial66 F2: fastrand's
    // wasm seed code was said to be compiled by `"features": ["js"]`).
    if let Some(target) = target_for_cfg(message).filter(|target| !is_host_target(target)) {
        let cargo = if features.is_empty() { String::new() } else { format!(" --features {}", features.join(",")) };
        return format!(
            "check it for that target with `rustup target add {target}` and `cargo check --target {target}{cargo}` (no check on this host compiles it, whatever its features), or give rust-analyzer the setting rust-analyzer.cargo.target = \"{target}\" so its answers cover it"
        );
    }
    if !features_off.is_empty() {
        return how_to_check_without(&features, &features_off);
    }
    if features.is_empty() {
        // A triple that is this host's says nothing: the code is off here for another reason.
        if let Some(target) = target_for_cfg(message).filter(|target| !is_host_target(target)) {
            return format!(
                "check it for that target with `rustup target add {target}` and `cargo check --target {target} --all-targets` (its build scripts then set the target's own cfgs; `--all-targets` compiles the tests too), or give rust-analyzer the setting rust-analyzer.cargo.target = \"{target}\" so its answers cover it"
            );
        }
        return "check it with the cfg enabled (e.g. `cargo check` with the matching `--features`, `--target` or RUSTFLAGS=\"--cfg …\"), or give rust-analyzer that configuration (rust-analyzer.cargo.features / rust-analyzer.cargo.cfgs in its settings)".to_owned();
    }
    how_to_check_features(&features)
}

/// The bare cfgs (no `= "value"`) an `inactive-code` message names enabled (`std_backtrace is
/// enabled`), other than the ones cargo and rustc set for a build profile or a platform (`test`,
/// `doc`, `debug_assertions`, `unix`, `windows`, `miri`): cfgs a build script or RUSTFLAGS set.
fn bare_cfgs_enabled(message: &str) -> Vec<String> {
    let Some((_, conditions)) = message.split_once("directives:") else { return Vec::new() };
    conditions
        .split(" and ")
        .flat_map(|part| part.split(", "))
        .filter_map(|part| part.trim().strip_suffix(" is enabled"))
        .map(str::trim)
        .filter(|cfg| {
            !cfg.is_empty()
                && cfg.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !matches!(
                    *cfg,
                    "test"
                        | "doc"
                        | "doctest"
                        | "debug_assertions"
                        | "unix"
                        | "windows"
                        | "miri"
                        | "proc_macro"
                        | "rust_analyzer"
                        | "clippy"
                )
        })
        .map(str::to_owned)
        .collect()
}

/// [`how_to_check`] for code compiled only with `features_off` off (`cfg(not(feature = "std"))`)
/// and `features` on: a check without the default features.
pub fn how_to_check_without(features: &[String], features_off: &[String]) -> String {
    let off = features_off.join(", ");
    // No `"features": []`: the schema wants at least one (trial67 F1(b)).
    let selection =
        CompilingFeatureSelection { no_default_features: true, features: features.to_vec(), dropped_defaults: features_off.to_vec() };
    format!(
        "it is compiled only with {off} OFF, so no check with {off} on covers it: check it with {} (`{}`, with `-p` its package in a cargo workspace, where another member's dependency can keep the defaults on — the project check does that itself; add back the default features it needs other than {off})",
        selection.diagnostics_arguments(),
        selection.cargo_command()
    )
}

/// Whether `target` (a triple from [`target_for_cfg`]) has the host's architecture and OS: code
/// gated on it is compiled here.
pub fn is_host_target(target: &str) -> bool {
    let arch = match std::env::consts::ARCH {
        "x86" => "i686",
        "arm" => "armv7",
        other => other,
    };
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    target.starts_with(arch) && target.contains(os)
}

/// A target triple that turns on the `target_arch = "…"` / `target_os = "…"` a cfg text names
/// (an `inactive-code` message, `target_arch = "aarch64" is disabled`, or a `#[cfg(all(…))]`
/// attribute): `aarch64-unknown-linux-gnu`, `x86_64-pc-windows-gnu`, `aarch64-apple-darwin`, ….
/// `None` when it names neither, names a value not listed here, or negates one (`not(…)`
/// around it: the code is off because the host *is* that target; a `not(…)` elsewhere, as in
/// `all(target_arch = "aarch64", not(miri))`, does not count).
pub fn target_for_cfg(cfg: &str) -> Option<String> {
    // Whether byte `at` lies inside the parentheses of a `not(`.
    let negated = |at: usize| {
        cfg.match_indices("not(").any(|(start, _)| {
            let mut depth = 0usize;
            for (offset, c) in cfg[start + 3..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            return (start..start + 3 + offset).contains(&at);
                        }
                    }
                    _ => {}
                }
            }
            true
        })
    };
    let value_of = |key: &str| -> Option<String> {
        let at = cfg.find(key)?;
        if negated(at) {
            return None;
        }
        let rest = cfg[at + key.len()..].trim_start().strip_prefix('=')?.trim_start().strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_owned())
    };
    // `target_pointer_width = "32"` on Linux is i686 (trial87 F1: humantime's
    // `all(target_pointer_width = "32", target_os = "linux")` test was sent to the 64-bit host
    // target, whose check passes); another target key (`target_env`, `target_feature`,
    // `target_endian`, …) is not modelled: no triple is named rather than a wrong one.
    let pointer_width = value_of("target_pointer_width");
    let arch = value_of("target_arch").or_else(|| (pointer_width.as_deref() == Some("32")).then(|| "x86".to_owned()));
    let os = value_of("target_os");
    if ["target_arch", "target_os", "target_pointer_width"].iter().any(|key| cfg.match_indices(key).any(|(at, _)| negated(at))) {
        return None;
    }
    if !matches!(pointer_width.as_deref(), None | Some("32" | "64")) {
        return None;
    }
    let other_target_key = cfg
        .match_indices("target_")
        .any(|(at, _)| !["target_arch", "target_os", "target_pointer_width"].iter().any(|known| cfg[at..].starts_with(known)));
    if other_target_key {
        return None;
    }
    let arch_prefix = |arch: &str| -> Option<&'static str> {
        Some(match arch {
            "x86_64" => "x86_64",
            "aarch64" => "aarch64",
            "x86" => "i686",
            "arm" => "armv7",
            "riscv64" => "riscv64gc",
            "wasm32" => "wasm32",
            "powerpc64" => "powerpc64le",
            "s390x" => "s390x",
            _ => return None,
        })
    };
    let (default_arch, vendor_os) = match os.as_deref() {
        None | Some("linux") => ("x86_64", "unknown-linux-gnu"),
        Some("windows") => ("x86_64", "pc-windows-gnu"),
        Some("macos") => ("aarch64", "apple-darwin"),
        Some("ios") => ("aarch64", "apple-ios"),
        Some("android") => ("aarch64", "linux-android"),
        Some("freebsd") => ("x86_64", "unknown-freebsd"),
        // `target_os = "unknown"`: bare wasm (`wasm32-unknown-unknown`).
        Some("unknown") => ("wasm32", "unknown-unknown"),
        Some(_) => return None,
    };
    if arch.is_none() && os.is_none() {
        return None;
    }
    let prefix = arch_prefix(arch.as_deref().unwrap_or(default_arch))?;
    Some(match (prefix, vendor_os) {
        ("wasm32", _) => "wasm32-unknown-unknown".to_owned(),
        ("armv7", "unknown-linux-gnu") => "armv7-unknown-linux-gnueabihf".to_owned(),
        ("powerpc64le" | "riscv64gc" | "s390x", "unknown-linux-gnu") => format!("{prefix}-unknown-linux-gnu"),
        (_, vendor_os) => format!("{prefix}-{vendor_os}"),
    })
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
    let merged = merge_adjacent(ranges);
    let (place, verb) = if whole_file {
        (format!("all of {file}"), "is")
    } else {
        let spans: Vec<String> = merged.iter().take(LISTED_RANGES).map(MergedRange::render).collect();
        let more = if merged.len() > LISTED_RANGES {
            let rest = &merged[LISTED_RANGES..];
            format!(
                " and {} more range{} (lines {}–{})",
                rest.len(),
                if rest.len() == 1 { "" } else { "s" },
                rest[0].start_line,
                rest[rest.len() - 1].end_line
            )
        } else {
            String::new()
        };
        let noun = if merged.len() == 1 && merged[0].start_line == merged[0].end_line { "line" } else { "lines" };
        (format!("{noun} {}{more} of {file}", spans.join(", ")), if noun == "line" { "is" } else { "are" })
    };
    // The server's message, on one line and without its advice to silence it.
    let message: String = first.message.split("\n\n").next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    if unlinked {
        // The gate may sit on a `mod` further up: indexmap's `src/rayon/map.rs` is `pub mod
        // map;` of `src/rayon/mod.rs`, gated in `src/lib.rs` (trial155 M1: the write check of an
        // `ast_edit` there said only "if a `#[cfg]`-gated `mod` declares it").
        if let Some((declared, _)) = path.and_then(|(root, path)| off_gating_declaration_up_the_module_chain(root, path)) {
            return format!(
                "NOT checked: {place} {verb} not compiled in the current configuration: its module is declared under `{}` ({}), so {server_id} does not analyse it (\"{message}\") and no error in it is reported; {}",
                declared.cfg,
                declared.where_declared(),
                how_to_check(&declared.cfg)
            );
        }
        return format!(
            "NOT checked: {place} {verb} not part of any crate's module tree ({server_id}: \"{message}\"), so no error in it is reported; if a `#[cfg]`-gated `mod` declares it, {}",
            how_to_check("")
        );
    }
    // Every feature of every range, so that one next step covers them all.
    let mut features: Vec<String> = Vec::new();
    for range in &merged {
        for feature in &range.features {
            if !features.contains(feature) {
                features.push(feature.clone());
            }
        }
    }
    let other_cfgs = merged.iter().filter(|range| range.features.is_empty()).count();
    let server_says = if merged.len() == 1 || features.is_empty() {
        format!("{server_id}: \"{message}\"")
    } else {
        format!("{server_id} marks them inactive-code: a `#[cfg]` that is off, the features disabled are named beside each range")
    };
    // Ranges that need an enabled feature off (`feature = "std" is enabled and feature = "libm"
    // is disabled`): a check without the default features, said apart from the ranges that need
    // features on only (trial71 F2: num-traits' `all(not(feature = "std"), feature = "libm")`
    // was sent to `"features": ["libm"]`, which keeps std on and compiles none of it).
    let needs_off: Vec<&MergedRange> = merged.iter().filter(|range| !range.features_off.is_empty()).collect();
    let next = if !needs_off.is_empty() {
        let mut on: Vec<String> = Vec::new();
        let mut off: Vec<String> = Vec::new();
        for range in &needs_off {
            on.extend(range.features.iter().filter(|feature| !on.contains(feature)).cloned().collect::<Vec<_>>());
            off.extend(range.features_off.iter().filter(|feature| !off.contains(feature)).cloned().collect::<Vec<_>>());
        }
        let mut next = how_to_check_without(&on, &off);
        let others: Vec<String> = merged
            .iter()
            .filter(|range| range.features_off.is_empty())
            .flat_map(|range| range.features.iter().cloned())
            .fold(Vec::new(), |mut all, feature| {
                if !all.contains(&feature) {
                    all.push(feature);
                }
                all
            });
        if !others.is_empty() {
            next.push_str(&format!("; for the other ranges, {}", how_to_check_features(&others)));
        }
        next
    } else if features.is_empty() || (merged.len() == 1 && !bare_cfgs_enabled(&message).is_empty()) {
        // One range gated on a cfg a build script sets here too: no feature compiles it.
        how_to_check(&message)
    } else {
        let mut next = how_to_check_features(&features);
        if other_cfgs > 0 {
            next.push_str(&format!(
                "; {} marked (other cfg) {} off by a cfg other than a feature: {}",
                crate::render::plural(other_cfgs, "range"),
                if other_cfgs == 1 { "is" } else { "are" },
                how_to_check("")
            ));
        }
        next
    };
    format!(
        "NOT checked: {place} {verb} not compiled in the current configuration ({server_says}), so no error in {} is reported; {next}",
        if verb == "is" { "it" } else { "them" }
    )
}

/// How many merged inactive ranges a sentence lists before "and N more ranges".
const LISTED_RANGES: usize = 12;

/// Inactive ranges that touch or overlap, merged, with the features each names disabled.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MergedRange {
    /// 1-based first line.
    start_line: u32,
    /// 1-based last line (inclusive).
    end_line: u32,
    /// The features named disabled in the merged ranges' messages, in order, no repeats.
    features: Vec<String>,
    /// The features named enabled there (`feature = "std" is enabled`): the code needs them off.
    features_off: Vec<String>,
}

impl MergedRange {
    /// `116–139 (malloc_size_of, serde)`; `(other cfg)` when no feature is named.
    fn render(&self) -> String {
        let lines =
            if self.start_line == self.end_line { self.start_line.to_string() } else { format!("{}–{}", self.start_line, self.end_line) };
        if self.features.is_empty() {
            format!("{lines} (other cfg)")
        } else {
            format!("{lines} ({})", self.features.join(", "))
        }
    }
}

/// `ranges` sorted by line, those that touch (the next starts at most one line after the last
/// ends) or overlap merged into one.
fn merge_adjacent(ranges: &[&InactiveRange]) -> Vec<MergedRange> {
    let mut sorted: Vec<&InactiveRange> = ranges.to_vec();
    sorted.sort_by_key(|range| (range.start_line, range.end_line));
    let mut merged: Vec<MergedRange> = Vec::new();
    for range in sorted {
        let features = disabled_features(&range.message);
        let features_off = features_needed_off(&range.message);
        match merged.last_mut() {
            Some(last) if range.start_line <= last.end_line.saturating_add(1) => {
                last.end_line = last.end_line.max(range.end_line);
                for feature in features {
                    if !last.features.contains(&feature) {
                        last.features.push(feature);
                    }
                }
                for feature in features_off {
                    if !last.features_off.contains(&feature) {
                        last.features_off.push(feature);
                    }
                }
            }
            _ => merged.push(MergedRange { start_line: range.start_line, end_line: range.end_line, features, features_off }),
        }
    }
    merged
}

/// [`how_to_check`] for a list of features: one call that enables them all.
pub fn how_to_check_features(features: &[String]) -> String {
    let list = features.join(",");
    let quoted: Vec<String> = features.iter().map(|feature| format!("\"{feature}\"")).collect();
    format!(
        "check {} with {{\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [{}]}} (`cargo check --features {list}`; or {{\"op\": \"diagnostics\", \"file\": \"*\", \"all_features\": true}}), or give rust-analyzer the setting rust-analyzer.cargo.features = [{}] so its answers cover it",
        if features.len() == 1 { "it" } else { "them all" },
        quoted.join(", "),
        quoted.join(", ")
    )
}

/// A selection of a package's features for `cargo check` that turns a set of `#[cfg]` gates on
/// (see [`feature_selection_compiling`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CompilingFeatureSelection {
    /// `--no-default-features`: a default feature must be off.
    pub no_default_features: bool,
    /// The features to pass, sorted (with `no_default_features`: the default features kept too).
    pub features: Vec<String>,
    /// With `no_default_features`: the default features left off (`std`), sorted.
    pub dropped_defaults: Vec<String>,
}

impl CompilingFeatureSelection {
    /// The `lsp diagnostics "*"` arguments that check with this selection, as JSON text
    /// (`{"op": "diagnostics", "file": "*", "no_default_features": true, "features": ["a"]}`);
    /// `features` is left out when empty (the schema wants at least one).
    pub fn diagnostics_arguments(&self) -> String {
        let mut text = String::from("{\"op\": \"diagnostics\", \"file\": \"*\"");
        if self.no_default_features {
            text.push_str(", \"no_default_features\": true");
        }
        if !self.features.is_empty() {
            let quoted: Vec<String> = self.features.iter().map(|feature| format!("\"{feature}\"")).collect();
            text.push_str(&format!(", \"features\": [{}]", quoted.join(", ")));
        }
        text.push('}');
        text
    }

    /// The same as a cargo command: `cargo check --no-default-features --features a,b`.
    pub fn cargo_command(&self) -> String {
        let mut text = String::from("cargo check");
        if self.no_default_features {
            text.push_str(" --no-default-features");
        }
        if !self.features.is_empty() {
            text.push_str(&format!(" --features {}", self.features.join(",")));
        }
        text
    }
}

/// The feature names `gate` (a `#[cfg(…)]` attribute) tests with `feature = "…"`, in order.
fn features_named(gate: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = gate;
    while let Some(at) = rest.find("feature") {
        let after = rest[at + "feature".len()..].trim_start();
        rest = &rest[at + "feature".len()..];
        let Some(value) = after.strip_prefix('=').map(str::trim_start).and_then(|value| value.strip_prefix('"')) else { continue };
        let Some(end) = value.find('"') else { continue };
        if !names.iter().any(|known| known == &value[..end]) {
            names.push(value[..end].to_owned());
        }
    }
    names
}

/// The feature selection closest to a plain `cargo check` of the package holding `path` that
/// turns every one of `gates` (`#[cfg(…)]` attributes: the line's own and its module's
/// declaration) on on this host: first with the default features (the fewest features added),
/// else without them (the fewest defaults dropped, then the fewest added), features read
/// through the manifest's `[features]` (what each enables). once_cell 1.19.0's `imp_cs.rs`
/// (`all(not(feature = "std"), feature = "critical-section")`) needs `--no-default-features
/// --features critical-section`; the union of several places' features had been offered as one
/// check that turned `std` back on (trial67 F1). `None` when the manifest cannot be read, a gate
/// depends on more than what features decide here (another target), or more than 10 features
/// or 6 default features are involved.
pub fn feature_selection_compiling(
    workspace_root: &std::path::Path,
    path: &std::path::Path,
    gates: &[String],
) -> Option<CompilingFeatureSelection> {
    use std::collections::{BTreeSet, HashSet};
    let package = crate::lsp::cfg_off_modules::package_root(workspace_root, path)?;
    let table = crate::lsp::cfg_off_modules::feature_table(workspace_root, &package)?;
    let mut mentioned: Vec<String> = gates.iter().flat_map(|gate| features_named(gate)).collect();
    mentioned.sort();
    mentioned.dedup();
    let defaults: Vec<String> = table.get("default").cloned().unwrap_or_default();
    if mentioned.len() > 10 || defaults.len() > 6 {
        return None;
    }
    let on_with = |seeds: &BTreeSet<String>| -> bool {
        let mut enabled: HashSet<String> = crate::lsp::cargo_features::closure(&table, seeds).into_iter().collect();
        enabled.remove("default");
        gates.iter().all(|gate| crate::lsp::cfg_off_modules::evaluate_cfg_attribute(gate, Some(&enabled)) == Some(true))
    };
    let subsets = |items: &[String]| -> Vec<Vec<String>> {
        let mut all: Vec<Vec<String>> = (0u32..(1 << items.len()))
            .map(|mask| items.iter().enumerate().filter(|(index, _)| mask & (1 << index) != 0).map(|(_, item)| item.clone()).collect())
            .collect();
        all.sort_by(|a: &Vec<String>, b: &Vec<String>| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        all
    };
    let added_sets = subsets(&mentioned);
    // With the default features: the fewest added.
    for added in &added_sets {
        let seeds: BTreeSet<String> = std::iter::once("default".to_owned()).chain(added.iter().cloned()).collect();
        if on_with(&seeds) {
            return Some(CompilingFeatureSelection { no_default_features: false, features: added.clone(), dropped_defaults: Vec::new() });
        }
    }
    // Without them: the fewest defaults dropped, then the fewest added.
    for dropped in subsets(&defaults).iter().skip(1) {
        for added in &added_sets {
            let seeds: BTreeSet<String> =
                defaults.iter().filter(|feature| !dropped.contains(feature)).chain(added.iter()).cloned().collect();
            if on_with(&seeds) {
                let mut dropped = dropped.clone();
                dropped.sort();
                return Some(CompilingFeatureSelection {
                    no_default_features: true,
                    features: seeds.into_iter().collect(),
                    dropped_defaults: dropped,
                });
            }
        }
    }
    None
}

/// Where a `#[cfg(…)]`-gated `mod` declares a module file.
#[derive(Debug, Clone)]
pub(crate) struct GatingDeclaration {
    /// The attribute with its whitespace collapsed to one line, e.g. `#[cfg(feature = "serde")]`
    /// or `#[cfg(all(httparse_simd, any(target_arch = "aarch64")))]`.
    pub(crate) cfg: String,
    /// `src/lib.rs:2`-style: the declaring file, relative to the root it was read beneath, and
    /// the 1-based line of the `mod` item.
    pub(crate) location: String,
    /// The module file the gated `mod` declares when that is a module around the file asked
    /// about rather than the file itself, relative to the root (`src/rayon/mod.rs` for
    /// `src/rayon/map.rs`, which `src/rayon/mod.rs` declares with an ungated `pub mod map;`);
    /// `None` when the gated `mod` declares the file itself. See
    /// [`gating_declarations_up_the_module_chain`].
    pub(crate) gated_module: Option<String>,
}

impl GatingDeclaration {
    /// Where the gate is, for "declared under `CFG` (…)": the `mod` item's place, and for a
    /// module inside the gated one the module file that `mod` declares — `src/lib.rs:126, which
    /// declares src/rayon/mod.rs; this file is a module inside it`.
    pub(crate) fn where_declared(&self) -> String {
        match &self.gated_module {
            None => self.location.clone(),
            Some(module) => format!("{}, which declares {module}; this file is a module inside it", self.location),
        }
    }
}

/// Levels of `mod` declarations [`gating_declarations_up_the_module_chain`] follows up from a
/// file (a crate root is rarely more than a few levels above any module file).
const MAX_MODULE_CHAIN_DEPTH: usize = 8;

/// The `mod NAME;` item that declares the module file `path` (`NAME.rs` or `NAME/mod.rs`),
/// looked up in the files that can declare it — `lib.rs`, `main.rs`, `mod.rs` beside it, or the
/// parent module file `<dir>.rs` — each read beneath `root` and parsed: `on_declaration` gets the
/// declaring file, its text, its syntax tree's root and the item's 0-based line, and its result
/// is returned. `None` when no such file declares it.
fn with_module_declaration<R>(
    root: &std::path::Path,
    path: &std::path::Path,
    on_declaration: impl FnOnce(&std::path::Path, &str, &tree_sitter::Node<'_>, u32) -> R,
) -> Option<R> {
    use ast_grep_core::tree_sitter::StrDoc;
    let (name, candidates) = parent_module_candidates(path)?;
    for candidate in &candidates {
        let Ok(text) = crate::files::read_workspace_file_to_string(root, candidate) else { continue };
        let Ok(tree) =
            ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text.as_str(), ast_grep_language::SupportLang::Rust)
        else {
            continue;
        };
        let top = tree.root().get_inner_node();
        let mut stack = vec![top];
        while let Some(node) = stack.pop() {
            if node.kind() == "mod_item" && node.child_by_field_name("body").is_none() {
                // `#[path = "imp_cs.rs"] mod imp;` declares the file at that path, whatever its
                // name (once_cell 1.20.2: trial40 F3/F4).
                let declared = match path_attribute_of(&node, &text) {
                    Some(file) => candidate.parent().is_some_and(|folder| folder.join(file) == path),
                    None => node.child_by_field_name("name").and_then(|found| found.utf8_text(text.as_bytes()).ok()) == Some(name.as_str()),
                };
                if declared {
                    return Some(on_declaration(candidate, &text, &top, node.start_position().row as u32));
                }
                continue;
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
    }
    None
}

/// The module name the Rust file `path` stands for (`foo` for `foo.rs` and `foo/mod.rs`) and
/// the files that may declare it with `mod foo;`: the `lib.rs`, `main.rs` and `mod.rs` of the
/// folder it belongs to, and that folder's own `folder.rs` (2018 layout); `path` itself left out.
fn parent_module_candidates(path: &std::path::Path) -> Option<(String, Vec<std::path::PathBuf>)> {
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
    candidates.retain(|candidate| candidate.as_path() != path);
    Some((name, candidates))
}

/// Why the Rust file `path` is in no crate's module tree, by its package's sources alone: it is
/// no target root cargo finds (`src/lib.rs`, `src/main.rs`, `build.rs`, `src/bin/`, `tests/`,
/// `examples/`, `benches/` — a file or a folder's `main.rs` — or a path `Cargo.toml` names), no
/// parent module file declares it (`mod name;`, `#[path]`), and no `.rs` file of the package
/// has a `mod name` or names its file in a string (an inline module's `mod name;`, an
/// `include!`): cargo check and rust-analyzer compile none of it. A file written with a type
/// error and no `mod` read "no new errors" while rust-analyzer was still indexing (the
/// `unlinked-file` diagnostic comes from its own analysis only), and so did a module moved to a
/// new name with `apply_patch` (trial52 M8). The sentence names the file, the parent module
/// files read and the next step; `None` when the file may be compiled (or `path` is outside a
/// package, is no `.rs` file, or the package's files could not all be read).
pub(crate) fn unlinked_rust_file(workspace_root: &std::path::Path, path: &std::path::Path, server_id: &str) -> Option<String> {
    if path.extension().is_none_or(|extension| extension != "rs") {
        return None;
    }
    let package = crate::lsp::cfg_off_modules::package_root(workspace_root, path)?;
    let relative = path.strip_prefix(&package).ok()?;
    let parts: Vec<&str> = relative.iter().filter_map(|part| part.to_str()).collect();
    let target_root = matches!(
        parts.as_slice(),
        ["build.rs"]
            | ["src", "lib.rs" | "main.rs"]
            | ["src", "bin", _]
            | ["tests" | "examples" | "benches", _]
            | ["src", "bin", _, "main.rs"]
            | ["tests" | "examples" | "benches", _, "main.rs"]
    );
    if target_root {
        return None;
    }
    let manifest = crate::files::read_workspace_file_to_string(workspace_root, &package.join("Cargo.toml")).ok()?;
    let relative_text = parts.join("/");
    if manifest.contains(&relative_text) {
        return None;
    }
    if with_module_declaration(workspace_root, path, |_, _, _, _| ()).is_some() {
        return None;
    }
    let file_name = path.file_name()?.to_str()?.to_owned();
    let (module_name, candidates) = parent_module_candidates(path)?;
    // The folders holding the file, below the package root and two deep at least (`tests/ui`):
    // a string naming one may be a glob a harness compiles (trybuild's `tests/ui/*.rs`) or a
    // macro that declares a folder's files (`automod::dir!("tests/regression")`).
    let folders: Vec<String> = relative
        .parent()
        .into_iter()
        .flat_map(std::path::Path::ancestors)
        .filter(|folder| folder.components().count() >= 2)
        .filter_map(|folder| folder.to_str().map(|folder| format!("\"{folder}")))
        .collect();
    let mut declared_somewhere = false;
    let mut files_read = 0usize;
    crate::lsp::rename_coverage::for_each_text_file_beneath(
        workspace_root,
        &package,
        |candidate| candidate != path && candidate.extension().is_some_and(|extension| extension == "rs"),
        |_, text| {
            files_read += 1;
            if declared_somewhere {
                return;
            }
            let names_module = crate::lsp::rename_coverage::word_positions(text, &module_name).into_iter().any(|at| {
                // `mod name`, `mod r#name` (zerocopy's `mod r#ref;`), or the name inside a macro
                // call on its line, which may declare it (safe_arch's `submodule!(pub fma)`).
                let before = text[..at].strip_suffix("r#").unwrap_or(&text[..at]).trim_end();
                let line_before = &text[text[..at].rfind('\n').map_or(0, |newline| newline + 1)..at];
                (before.ends_with("mod") && !before[..before.len() - 3].ends_with(crate::lsp::position::is_identifier_char))
                    || line_before.contains("!(")
                    || line_before.contains("!{")
                    || line_before.contains("![")
            });
            declared_somewhere =
                names_module || text.contains(&format!("{file_name}\"")) || folders.iter().any(|folder| text.contains(folder.as_str()));
        },
    );
    if declared_somewhere || files_read >= crate::lsp::rename_coverage::MAX_FILES {
        return None;
    }
    let declaring: Vec<String> = candidates
        .iter()
        .filter(|candidate| candidate.is_file())
        .map(|candidate| candidate.strip_prefix(workspace_root).unwrap_or(candidate).display().to_string())
        .collect();
    let next = match declaring.first() {
        // zerocopy's `tests/ui/*.rs`: compile tests trybuild builds one by one under cargo test.
        _ if relative.starts_with("tests") && manifest.contains("trybuild") => {
            "if it is a compile test the package's trybuild harness builds, run `cargo test` to check it; else declare it with a `mod` in its parent module".to_owned()
        }
        Some(first) => format!("add `mod {module_name};` (or `pub mod {module_name};`) to {first}"),
        None => format!("declare it with `mod {module_name};` in its parent module"),
    };
    let shown = path.strip_prefix(workspace_root).unwrap_or(path).display().to_string();
    Some(format!(
        "all of {shown} is not part of any crate's module tree: no `mod {module_name};` declares it ({} of the package read{}) and it is no target cargo builds, so neither {server_id} nor cargo check compiles it and no error in it is reported; next step: {next}, or remove the file if it is left over",
        crate::render::plural(files_read, "other .rs file"),
        if declaring.is_empty() { String::new() } else { format!("; its parent module would be {}", declaring.join(" or ")) },
    ))
}

/// The FILE of a `#[path = "FILE"]` attribute on `item` (among the attributes right before it).
fn path_attribute_of<'t>(item: &tree_sitter::Node<'_>, text: &'t str) -> Option<&'t str> {
    let mut sibling = item.prev_named_sibling();
    while let Some(attribute) = sibling.filter(|node| matches!(node.kind(), "attribute_item" | "line_comment" | "block_comment")) {
        let written = text.get(attribute.start_byte()..attribute.end_byte()).unwrap_or("");
        let compact = written.trim_start_matches("#[").trim_start();
        if let Some(value) = compact.strip_prefix("path").map(str::trim_start).and_then(|rest| rest.strip_prefix('=')) {
            return value.trim_start().strip_prefix('"')?.split('"').next();
        }
        sibling = attribute.prev_named_sibling();
    }
    None
}

/// The `#[cfg(…)]` attribute that gates the `mod` item declaring `path` (`foo.rs` or
/// `foo/mod.rs`) — on the item itself, over any number of lines, or on an item around it (see
/// [`cfg_gate_at`]) — searched in the files that can declare it (`lib.rs`, `main.rs`,
/// `mod.rs` beside it, or the parent module file `<dir>.rs`), each read beneath `root` and
/// parsed. `None` when no declaring file is found, none parses, or the declaration is ungated.
/// (httparse 1.10.1 gates `mod neon;` under a 9-line `#[cfg(all(httparse_simd, …))]`, which a
/// line scan missed: trial28 M2/M3.)
pub(crate) fn gating_declaration(root: &std::path::Path, path: &std::path::Path) -> Option<GatingDeclaration> {
    with_module_declaration(root, path, |declaring, text, top, line0| {
        let (attribute, _, _) = cfg_gate_at(top, text, line0, false)?;
        let shown = declaring.strip_prefix(root).unwrap_or(declaring).display().to_string();
        Some(GatingDeclaration { cfg: one_line_attribute(&attribute), location: format!("{shown}:{}", line0 + 1), gated_module: None })
    })
    .flatten()
}

/// The `#[cfg(…)]` gates on the `mod` items up the module chain of the Rust file `path`,
/// innermost first: the `mod` that declares the file, the one that declares that module's file,
/// and so on up to the crate root (found by [`with_module_declaration`], each declaring file read
/// beneath `root`, at most [`MAX_MODULE_CHAIN_DEPTH`] levels). A gate on an outer `mod` carries
/// the module file it declares ([`GatingDeclaration::gated_module`]). indexmap 2.14.2's
/// `src/rayon/map.rs` is `pub mod map;` of `src/rayon/mod.rs`, which `#[cfg(feature = "rayon")]
/// mod rayon;` declares in `src/lib.rs`: one level up only, the rename's grep check read its
/// lines as "(no definition)" while the write check of the same answer named the gate (trial155
/// M1). Empty when no `mod` up the chain is gated, or the chain cannot be read.
pub(crate) fn gating_declarations_up_the_module_chain(root: &std::path::Path, path: &std::path::Path) -> Vec<GatingDeclaration> {
    let mut gates = Vec::new();
    let mut module_file = path.to_path_buf();
    for _ in 0..MAX_MODULE_CHAIN_DEPTH {
        let declared = with_module_declaration(root, &module_file, |declaring, text, top, line0| {
            let gate = cfg_gate_at(top, text, line0, false).map(|(attribute, _, _)| {
                let shown = declaring.strip_prefix(root).unwrap_or(declaring).display().to_string();
                GatingDeclaration {
                    cfg: one_line_attribute(&attribute),
                    location: format!("{shown}:{}", line0 + 1),
                    gated_module: (module_file != path)
                        .then(|| module_file.strip_prefix(root).unwrap_or(&module_file).display().to_string()),
                }
            });
            (declaring.to_path_buf(), gate)
        });
        let Some((declaring, gate)) = declared else { break };
        gates.extend(gate);
        module_file = declaring;
    }
    gates
}

/// The innermost gate up the module chain of `path` ([`gating_declarations_up_the_module_chain`])
/// that is not known to be on with its package's default features — a `#[cfg(test)]` or
/// `#[cfg(feature = "std")]` (a default feature) on a `mod` keeps nothing out of rust-analyzer's
/// configuration —, with every gate of the chain (for the feature selection that compiles the
/// file, which must turn them all on). `None` when no gate up the chain may be off.
pub(crate) fn off_gating_declaration_up_the_module_chain(
    root: &std::path::Path,
    path: &std::path::Path,
) -> Option<(GatingDeclaration, Vec<GatingDeclaration>)> {
    let chain = gating_declarations_up_the_module_chain(root, path);
    if chain.is_empty() {
        return None;
    }
    let default_features = crate::lsp::cfg_off_modules::package_root(root, path)
        .and_then(|package| crate::lsp::cfg_off_modules::default_features(root, &package));
    let off = chain
        .iter()
        .find(|gate| crate::lsp::cfg_off_modules::evaluate_cfg_attribute(&gate.cfg, default_features.as_ref()) != Some(true))?
        .clone();
    Some((off, chain))
}

/// The file's own `#![cfg(…)]` (an inner attribute at its top level, e.g. an integration test's
/// `#![cfg(all(feature = "serde", feature = "alloc"))]`) when it is off with the package's
/// default features: the whole file compiles to nothing, and rust-analyzer reports no inactive
/// code and no error in it (trial42 F5: hex 0.4.3's `tests/serde.rs`, edited to a broken name,
/// read "no errors" twice where `cargo check --features serde` gives E0425). `location` is the
/// file (relative to `workspace_root`) and the attribute's 1-based line. `None` when there is no
/// such attribute, it is on or unknown (a cfg other than a feature), or the file cannot be read.
pub(crate) fn own_cfg_gate_off(workspace_root: &std::path::Path, path: &std::path::Path) -> Option<GatingDeclaration> {
    use ast_grep_core::tree_sitter::StrDoc;
    if path.extension().is_none_or(|extension| extension != "rs") {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(workspace_root, path).ok()?;
    if !text.contains("#![") {
        return None;
    }
    let package = crate::lsp::cfg_off_modules::package_root(workspace_root, path)?;
    let features = crate::lsp::cfg_off_modules::default_features(workspace_root, &package);
    let tree =
        ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text.as_str(), ast_grep_language::SupportLang::Rust)
            .ok()?;
    let root = tree.root();
    let gate = root.children().find_map(|child| {
        if child.kind() != "inner_attribute_item" {
            return None;
        }
        let attribute = one_line_attribute(&child.text());
        let compact: String = attribute.chars().filter(|c| !c.is_whitespace()).collect();
        (compact.starts_with("#![cfg(")
            && crate::lsp::cfg_off_modules::evaluate_cfg_attribute(&attribute, features.as_ref()) == Some(false))
        .then(|| (attribute, child.start_pos().line()))
    })?;
    let shown = path.strip_prefix(workspace_root).unwrap_or(path).display().to_string();
    Some(GatingDeclaration { cfg: gate.0, location: format!("{shown}:{}", gate.1 + 1), gated_module: None })
}

/// The lines a write removed from `old` (1-based, of `old`) that stood behind a `#[cfg(…)]` that
/// is off with the package's default features, each with that attribute (on one line), and
/// whether the write did nothing but remove lines. Deleted code leaves no written line to mark
/// inactive: hex 0.4.3's `#[cfg(all(feature = "alloc", feature = "serde"))] pub use
/// crate::serde::{serialize, serialize_upper};`, deleted, read "no new errors" while `cargo
/// check --features serde` breaks `tests/serde.rs` twice (trial42 F2). Empty when nothing
/// removed was gated off, or `old` does not parse.
pub(crate) fn removed_lines_behind_off_gates(
    workspace_root: &std::path::Path,
    path: &std::path::Path,
    old: &str,
    new: &str,
) -> (Vec<(u32, String)>, bool) {
    use ast_grep_core::tree_sitter::StrDoc;
    // (Run on every Rust write: a text with no `cfg` is not diffed.)
    if !old.contains("cfg") {
        return (Vec::new(), false);
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let mut removed: Vec<u32> = Vec::new();
    let mut only_removed = true;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        only_removed &= new_range.is_empty();
        removed.extend(old_range.map(|index| index as u32));
    }
    if removed.is_empty() {
        return (Vec::new(), only_removed);
    }
    let Some(package) = crate::lsp::cfg_off_modules::package_root(workspace_root, path) else { return (Vec::new(), only_removed) };
    let features = crate::lsp::cfg_off_modules::default_features(workspace_root, &package);
    let Ok(tree) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(old, ast_grep_language::SupportLang::Rust)
    else {
        return (Vec::new(), only_removed);
    };
    let root = tree.root().get_inner_node();
    let mut gated = Vec::new();
    for line0 in removed {
        // The removed line's gate, or the attribute the line itself is (`#[cfg(…)]` deleted with
        // its item).
        let attribute = cfg_gate_at(&root, old, line0, false).map(|(attribute, _, _)| attribute).or_else(|| {
            let line = old_lines.get(line0 as usize)?.trim();
            let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            compact.starts_with("#[cfg(").then(|| line.to_owned())
        });
        if let Some(attribute) = attribute {
            let attribute = one_line_attribute(&attribute);
            if crate::lsp::cfg_off_modules::evaluate_cfg_attribute(&attribute, features.as_ref()) == Some(false) {
                gated.push((line0 + 1, attribute));
            }
        }
    }
    (gated, only_removed)
}

/// The 1-based lines of `lines` (lines of `text`, the Rust file `path`) that lie inside a
/// `#[cfg_attr(PREDICATE, …)]` attribute whose predicate is known off in a plain `cargo check`
/// of the file's package (its default features), each with the attribute on one line. Such an
/// attribute's arguments (a `derive`, a serde attribute) are not compiled, and rust-analyzer
/// marks nothing inactive there (trial83 F1: rand_core's `#[cfg_attr(feature = "serde1",
/// derive(Serialize, Deserialize))]` edited to `Deserialise` read as checked and clean; `cargo
/// check --features serde1` failed on that line). Empty when none is.
pub(crate) fn lines_in_off_cfg_attr(
    workspace_root: &std::path::Path,
    path: &std::path::Path,
    text: &str,
    lines: &[u32],
) -> Vec<(u32, String)> {
    use ast_grep_core::tree_sitter::StrDoc;
    if lines.is_empty() || !text.contains("cfg_attr") {
        return Vec::new();
    }
    let Some(package) = crate::lsp::cfg_off_modules::package_root(workspace_root, path) else { return Vec::new() };
    let features = crate::lsp::cfg_off_modules::default_features(workspace_root, &package);
    let Ok(tree) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let mut off_attributes: Vec<(u32, u32, String)> = Vec::new();
    let mut stack = vec![tree.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let (first, last) = (child.start_position().row as u32 + 1, child.end_position().row as u32 + 1);
            if !lines.iter().any(|line| (first..=last).contains(line)) {
                continue;
            }
            if matches!(child.kind(), "attribute_item" | "inner_attribute_item") {
                let attribute = text.get(child.start_byte()..child.end_byte()).unwrap_or("");
                let compact: String = attribute.chars().filter(|c| !c.is_whitespace()).collect();
                if !compact.starts_with("#[cfg_attr(") && !compact.starts_with("#![cfg_attr(") {
                    continue;
                }
                let Some(arguments) = attribute.split_once("cfg_attr").and_then(|(_, rest)| rest.trim_start().strip_prefix('(')) else {
                    continue;
                };
                let Some(predicate) = crate::lsp::cargo_features::cfg_predicate(arguments, true) else { continue };
                let gate = format!("#[cfg({predicate})]");
                if crate::lsp::cfg_off_modules::evaluate_cfg_attribute(&gate, features.as_ref()) == Some(false) {
                    off_attributes.push((first, last, one_line_attribute(attribute)));
                }
                continue;
            }
            stack.push(child);
        }
    }
    lines
        .iter()
        .filter_map(|line| {
            off_attributes
                .iter()
                .find(|(first, last, _)| (*first..=*last).contains(line))
                .map(|(_, _, attribute)| (*line, attribute.clone()))
        })
        .collect()
}

/// The sentence for a file [`own_cfg_gate_off`] found off (`file` as shown), without a
/// `NOT checked: ` prefix: what is not compiled, why, and the check that compiles it.
pub(crate) fn own_cfg_gate_sentence(server_id: &str, file: &str, gate: &GatingDeclaration) -> String {
    format!(
        "all of {file} is not compiled in the current configuration: its own `{}` ({}) is off with the package's default features, so the file compiles to nothing and neither {server_id} nor cargo check reports any error in it; {}",
        gate.cfg,
        gate.location,
        how_to_check(&gate.cfg)
    )
}

/// An attribute written over several lines, on one: whitespace runs become one space, and none
/// is kept after `(` or before `)` and `,)` (a trailing comma) becomes `)`.
pub(crate) fn one_line_attribute(attribute: &str) -> String {
    let joined = attribute.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.replace("( ", "(").replace(" )", ")").replace(",)", ")")
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

/// Drops rust-analyzer's own error diagnostics (of the file at `path`) that repeat a rustc error
/// (cargo check) with the same code or an equivalent one (see the table above), at the rustc
/// error's start line — or, for an equivalent code, on a line one of its spans in the same file
/// covers: rust-analyzer puts `expected 3 arguments, found 2` on the `)` line of a call written
/// over several lines, while rustc's `E0061` starts at the callee and names the argument list as
/// a related span (strsim 0.11.1, trial43 M2: 22 new errors said where cargo reported 18). The
/// problem is counted once, as cargo reports it. Returns how many were dropped.
pub fn collapse_rust_analyzer_repeats(path: &std::path::Path, all: &mut Vec<Diagnostic>) -> usize {
    let source = |d: &Diagnostic| d.source.clone().unwrap_or_default();
    let code = code_text;
    let line = |d: &Diagnostic| d.range.start.line;
    let severity = |d: &Diagnostic| d.severity.unwrap_or(DiagnosticSeverity::ERROR);
    // Per rustc error: its code, its start line, and the lines its spans in this file cover.
    let rustc: Vec<(String, u32, Vec<std::ops::RangeInclusive<u32>>)> = all
        .iter()
        .filter(|d| source(d) == "rustc" && severity(d) == DiagnosticSeverity::ERROR)
        .map(|d| {
            let mut spans = vec![d.range.start.line..=d.range.end.line];
            for related in d.related_information.iter().flatten() {
                if crate::lsp::uri::lsp_uri_to_path(&related.location.uri).as_deref() == Some(path) {
                    spans.push(related.location.range.start.line..=related.location.range.end.line);
                }
            }
            (code(d), line(d), spans)
        })
        .collect();
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
        let equivalent: &[&str] = RUST_ANALYZER_EQUIVALENT_CODES.iter().find(|(native, _)| *native == own).map_or(&[], |(_, codes)| codes);
        !rustc.iter().any(|(rustc_code, rustc_line, spans)| {
            (*rustc_code == own && *rustc_line == line(d))
                || (equivalent.contains(&rustc_code.as_str()) && spans.iter().any(|span| span.contains(&line(d))))
        })
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

/// The names of the Rust items whose declaration a write changed: a `fn`'s signature (up to its
/// body), a `struct`, `enum`, `union` or `trait` (fields, variants, methods), a `type`, `const`,
/// `static` or `macro_rules!`, in `old` or in `new`, that spans a line the write inserted, removed
/// or replaced (a line diff, Myers). Callers of such an item may break; sorted, no repeats. Empty
/// when neither text parses as Rust. One file's [`changed_rust_item_names_in_write`].
#[cfg(test)]
pub fn changed_rust_item_names(old: &str, new: &str) -> Vec<String> {
    changed_rust_item_names_in_write(&[(old, new)])
}

/// The names of the Rust items whose declaration a write changed, over every Rust file of one
/// write (`(old, new)` texts): a `fn`'s signature (up to its body), a `struct`, `enum`, `union`
/// or `trait` (fields, variants, methods), a `type`, `const`, `static` or `macro_rules!`, in the
/// old or the new text, that spans a line the write inserted, removed or replaced (a line diff,
/// Myers) — callers of such an item may break. A line replaced by one that differs from it only
/// in identifiers that the write renames — a declaration of the old name renamed in one of the
/// files (`pub struct CapacityError` → `pub struct CapError`), or an old name the file no longer
/// uses in code (comments and strings aside) for a new name it did not use before — changes those
/// names, not the items whose lines hold them. Any other changed line names the items whose
/// declaration spans it. Sorted, no repeats.
pub fn changed_rust_item_names_in_write(files: &[(&str, &str)]) -> Vec<String> {
    // Per file: the 0-based rows of each side that changed in ways other than a rename, and the
    // identifier pairs of the lines that changed only in identifiers (with the rows they are on).
    struct FileChange {
        old_rows: Vec<usize>,
        new_rows: Vec<usize>,
        /// `(old row, new row, pairs)` of a line that differs only in identifiers.
        renamed_lines: Vec<(usize, usize, IdentifierPairs)>,
    }
    let mut changes: Vec<FileChange> = Vec::new();
    // (old, new) identifier pairs whose old name a declaration line of the write renamed.
    let mut declared_renames: Vec<(String, String)> = Vec::new();
    for (old, new) in files {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        let mut change = FileChange { old_rows: Vec::new(), new_rows: Vec::new(), renamed_lines: Vec::new() };
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines) {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if tag == similar::DiffTag::Equal {
                continue;
            }
            if old_range.len() != new_range.len() {
                change.old_rows.extend(old_range);
                change.new_rows.extend(new_range);
                continue;
            }
            for (old_row, new_row) in old_range.zip(new_range) {
                match identifier_pairs(old_lines[old_row], new_lines[new_row]) {
                    Some((pairs, declared)) => {
                        declared_renames.extend(declared);
                        change.renamed_lines.push((old_row, new_row, pairs));
                    }
                    None => {
                        change.old_rows.push(old_row);
                        change.new_rows.push(new_row);
                    }
                }
            }
        }
        changes.push(change);
    }
    let mut names: Vec<String> = Vec::new();
    for ((old, new), mut change) in files.iter().zip(changes) {
        // A rename leaves no whole-word use of the old name in the file's code (`u8` → `u16` in
        // one field is a type change, not a rename of `u8`), unless a declaration of it was
        // renamed (trial159 M3: `CapacityError` → `CapError` left `CapacityError` in comments,
        // and `fn new(…) -> CapacityError` was taken for a change of `new`).
        // Nor did the old text use the new name (`a: Foo` → `a: Bar` beside another `Bar` is a
        // type change).
        let (new_code_uses, old_code_uses) = (rust_code_word_uses(new), rust_code_word_uses(old));
        // A line whose identifiers changed inside a macro call in a function's body (a `quote!`
        // template) renames nothing this crate declares: the words are tokens handed to the
        // macro (trial175 M1: `AsDisplay` → `AsDisplayX` in thiserror-impl's `quote!` had the
        // cfg-off uses of the trait `AsDisplay` in thiserror/src/display.rs called NOT checked).
        let (old_template_spans, new_template_spans) = if change.renamed_lines.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            (function_body_macro_token_spans(old), function_body_macro_token_spans(new))
        };
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        for (old_row, new_row, pairs) in std::mem::take(&mut change.renamed_lines) {
            let (old_line, new_line) = (old_lines.get(old_row).copied().unwrap_or(""), new_lines.get(new_row).copied().unwrap_or(""));
            // The first byte where the two lines differ, and the last (from the end), on each side.
            let prefix = old_line.bytes().zip(new_line.bytes()).take_while(|(a, b)| a == b).count();
            let suffix = old_line
                .bytes()
                .rev()
                .zip(new_line.bytes().rev())
                .take_while(|(a, b)| a == b)
                .count()
                .min(old_line.len().min(new_line.len()) - prefix);
            let within = |spans: &[TokenSpan], row: usize, line: &str| {
                let (first, last) = ((row, prefix), (row, line.len() - suffix));
                spans.iter().any(|(start, end)| *start <= first && last <= *end)
            };
            if within(&old_template_spans, old_row, old_line) && within(&new_template_spans, new_row, new_line) {
                // Said as a changed line: the items whose declaration spans it (a function's
                // body spans none) are the ones it changes.
                change.old_rows.push(old_row);
                change.new_rows.push(new_row);
                continue;
            }
            let renamed = pairs.iter().all(|pair| declared_renames.contains(pair) || (!new_code_uses(&pair.0) && !old_code_uses(&pair.1)));
            if renamed {
                names.extend(pairs.into_iter().flat_map(|(from, to)| [from, to]));
            } else {
                change.old_rows.push(old_row);
                change.new_rows.push(new_row);
            }
        }
        names.extend(rust_items_spanning(old, &change.old_rows));
        names.extend(rust_items_spanning(new, &change.new_rows));
    }
    names.sort();
    names.dedup();
    names
}

/// The token trees (start and end as (0-based row, byte column)) of the macro invocations in
/// Rust `source` that lie inside a function's body (`quote! { … }`, `format!(…)`): tokens handed
/// to a macro there declare no item of the crate (an item-level `cfg_if!` or `bitflags!` may).
/// Empty when the text does not parse as Rust.
fn function_body_macro_token_spans(source: &str) -> Vec<TokenSpan> {
    use ast_grep_core::tree_sitter::StrDoc;
    let Ok(root) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let mut spans = Vec::new();
    // (node, whether it lies inside a function's body)
    let mut stack = vec![(root.root().get_inner_node(), false)];
    while let Some((node, in_body)) = stack.pop() {
        if in_body && node.kind() == "macro_invocation" {
            let mut cursor = node.walk();
            let tokens = node.named_children(&mut cursor).find(|child| child.kind() == "token_tree");
            if let Some(tokens) = tokens {
                let (start, end) = (tokens.start_position(), tokens.end_position());
                spans.push(((start.row, start.column), (end.row, end.column)));
                continue;
            }
        }
        let body = (node.kind() == "function_item").then(|| node.child_by_field_name("body")).flatten();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let child_in_body = in_body || body.is_some_and(|body| body.id() == child.id());
            stack.push((child, child_in_body));
        }
    }
    spans
}

/// Where a token tree starts and ends: (0-based row, byte column) each.
type TokenSpan = ((usize, usize), (usize, usize));

/// (old, new) identifier pairs of a line a write changed.
type IdentifierPairs = Vec<(String, String)>;

/// When `new_line` differs from `old_line` only in identifiers (token by token: `CapacityError`
/// → `CapError`), those (old, new) identifier pairs and, of them, the ones whose old identifier
/// the line declares (after `struct`, `enum`, `union`, `trait`, `type`, `fn`, `const`, `static`,
/// `mod` or `macro_rules!`); `None` when the lines differ in anything else or not at all.
fn identifier_pairs(old_line: &str, new_line: &str) -> Option<(IdentifierPairs, IdentifierPairs)> {
    let tokens = |line: &str| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut current = String::new();
        let mut in_word = false;
        for c in line.chars() {
            let word = c.is_alphanumeric() || c == '_';
            if word != in_word && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            in_word = word;
            current.push(c);
        }
        if !current.is_empty() {
            out.push(current);
        }
        out
    };
    let is_identifier = |token: &str| token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
    let (before, after) = (tokens(old_line), tokens(new_line));
    if before.len() != after.len() {
        return None;
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut declared: Vec<(String, String)> = Vec::new();
    for (index, (from, to)) in before.iter().zip(&after).enumerate() {
        if from == to {
            continue;
        }
        if !is_identifier(from) || !is_identifier(to) {
            return None;
        }
        let pair = (from.clone(), to.clone());
        // The word before it, past whitespace (and the `!` of `macro_rules!`).
        let keyword = before[..index].iter().rev().find(|token| !token.trim().is_empty() && token.trim() != "!").map(String::as_str);
        if matches!(keyword, Some("struct" | "enum" | "union" | "trait" | "type" | "fn" | "const" | "static" | "mod" | "macro_rules"))
            && !declared.contains(&pair)
        {
            declared.push(pair.clone());
        }
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    (!pairs.is_empty()).then_some((pairs, declared))
}

/// Whether a word occurs in the code of the Rust `source` (whole word, outside comments and
/// string literals, by the syntax tree; the whole text when it does not parse).
fn rust_code_word_uses(source: &str) -> impl Fn(&str) -> bool + '_ {
    use ast_grep_core::tree_sitter::StrDoc;
    let mut skipped: Vec<std::ops::Range<usize>> = Vec::new();
    if let Ok(grep) =
        ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source, ast_grep_language::SupportLang::Rust)
    {
        let mut stack = vec![grep.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            if matches!(node.kind(), "line_comment" | "block_comment" | "string_literal" | "raw_string_literal" | "char_literal") {
                skipped.push(node.byte_range());
                continue;
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    move |word: &str| {
        crate::lsp::rename_coverage::word_positions(source, word).into_iter().any(|at| !skipped.iter().any(|range| range.contains(&at)))
    }
}

/// The names of the items of Rust `source` whose declaration (see [`changed_rust_item_names_in_write`])
/// spans any of the 0-based `rows`.
fn rust_items_spanning(source: &str, rows: &[usize]) -> Vec<String> {
    use ast_grep_core::tree_sitter::StrDoc;
    if rows.is_empty() {
        return Vec::new();
    }
    let Ok(grep) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut stack = vec![grep.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        let declaration_end = match node.kind() {
            // A function's callers see its signature, not its body.
            "function_item" => node.child_by_field_name("body").map_or(node.end_position().row, |body| body.start_position().row),
            "function_signature_item"
            | "struct_item"
            | "enum_item"
            | "union_item"
            | "trait_item"
            | "type_item"
            | "const_item"
            | "static_item"
            | "macro_definition" => node.end_position().row,
            _ => continue,
        };
        let Some(name) = node.child_by_field_name("name").and_then(|name| source.get(name.byte_range())) else { continue };
        if rows.iter().any(|row| (node.start_position().row..=declaration_end).contains(row)) {
            // A macro is used as `name!`: kept with its `!`, so a use of the function `write`
            // and one of the macro `write!` are told apart.
            names.push(if node.kind() == "macro_definition" { format!("{name}!") } else { name.to_owned() });
        }
    }
    names
}

/// A line of code rust-analyzer does not compile (a `#[cfg]` that is off) that names an item a
/// write changed ([`inactive_uses`]): its errors cannot show in any check of the current
/// configuration (bitflags 2.13.2 `parser.rs:89`, `to_writer` called under
/// `#[cfg(feature = "serde")]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InactiveUse {
    /// 1-based line.
    pub line: u32,
    /// The changed item's name used there.
    pub name: String,
    /// The features the inactive range names disabled (empty: another cfg).
    pub features: Vec<String>,
    /// The gating attribute and its 1-based line, when found.
    pub cfg: Option<(String, u32)>,
}

/// The [`InactiveUse`]s of `names` in `text` (a Rust file): the lines inside `ranges` holding
/// one of `names` as a whole word before any `//` (a name ending in `!` as a macro call, the
/// others not followed by `!`), one use per line, each with the features its
/// range names disabled and the `#[cfg(…)]` that gates it (tree-sitter; none for an unlinked
/// file's whole-file range or when not found).
pub fn inactive_uses(ranges: &[InactiveRange], text: &str, names: &[String]) -> Vec<InactiveUse> {
    use ast_grep_core::tree_sitter::StrDoc;
    if ranges.is_empty() || names.is_empty() {
        return Vec::new();
    }
    let grep = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text, ast_grep_language::SupportLang::Rust).ok();
    let mut uses = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index as u32 + 1;
        let Some(range) = ranges.iter().find(|range| (range.start_line..=range.end_line).contains(&number)) else { continue };
        let Some(name) = changed_name_used(line, names) else { continue };
        let cfg = grep.as_ref().filter(|_| range.end_line != u32::MAX).and_then(|grep| {
            cfg_gate_at(&grep.root().get_inner_node(), text, index as u32, false).map(|(attribute, row, _)| (attribute, row + 1))
        });
        uses.push(InactiveUse { line: number, name: name.clone(), features: disabled_features(&range.message), cfg });
    }
    uses
}

/// The [`InactiveUse`]s of `names` in `text` (the Rust file `path`, read beneath
/// `workspace_root`) found by the syntax tree alone: the lines using one of `names` whose
/// nearest `#[cfg(…)]` gate, or the nearest past `#[cfg(test)]` and `#[cfg(not(…))]` ones, is
/// off with the package's default features (`#[cfg(test)]` counts on, as in rust-analyzer). For when
/// rust-analyzer's `inactive-code` ranges are missing: it holds its own diagnostics back while it
/// indexes, and cargo's say nothing of code it never compiled (trial171 F2: `to_writer` given a
/// third parameter, and the call at bitflags' `parser.rs:89` under `#[cfg(feature = "serde")]`
/// went unmentioned). Each use's features are those its gate names that are off by default.
/// Empty when `text` has no `cfg`, the package or its manifest is not found, or nothing is off.
pub(crate) fn inactive_uses_by_syntax(
    workspace_root: &std::path::Path,
    path: &std::path::Path,
    text: &str,
    names: &[String],
) -> Vec<InactiveUse> {
    use ast_grep_core::tree_sitter::StrDoc;
    if names.is_empty() || !text.contains("cfg") {
        return Vec::new();
    }
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, line)| changed_name_used(line, names).is_some()).collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let Some(package) = crate::lsp::cfg_off_modules::package_root(workspace_root, path) else { return Vec::new() };
    let Some(features) = crate::lsp::cfg_off_modules::default_features(workspace_root, &package) else { return Vec::new() };
    let Ok(tree) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let root = tree.root().get_inner_node();
    let mut uses = Vec::new();
    for (index, line) in lines {
        let Some(name) = changed_name_used(line, names) else { continue };
        // The nearest gate, else the nearest past `#[cfg(test)]`/`#[cfg(not(…))]` ones: the first
        // that is off.
        let off_gate = [false, true].into_iter().find_map(|past_on_ones| {
            let (attribute, row, _) = cfg_gate_at(&root, text, index as u32, past_on_ones)?;
            let attribute = one_line_attribute(&attribute);
            (crate::lsp::cfg_off_modules::evaluate_cfg_attribute(&attribute, Some(&features)) == Some(false)).then_some((attribute, row))
        });
        let Some((attribute, row)) = off_gate else { continue };
        let off: Vec<String> = features_named(&attribute).into_iter().filter(|feature| !features.contains(feature)).collect();
        uses.push(InactiveUse { line: index as u32 + 1, name: name.clone(), features: off, cfg: Some((attribute, row + 1)) });
    }
    uses
}

/// The first of `names` that the Rust `line` uses as a whole word before any `//` (a name ending
/// in `!` as a macro call, the others not followed by `!`).
pub(crate) fn changed_name_used<'n>(line: &str, names: &'n [String]) -> Option<&'n String> {
    let code = line.split("//").next().unwrap_or("");
    names.iter().find(|name| {
        let (word, macro_call) = match name.strip_suffix('!') {
            Some(word) => (word, true),
            None => (name.as_str(), false),
        };
        crate::lsp::rename_coverage::word_positions(code, word)
            .into_iter()
            .any(|at| code[at + word.len()..].trim_start().starts_with('!') == macro_call)
    })
}

/// The sentence for `uses` in `file` (see [`inactive_uses`]): which lines name which changed
/// items, under which cfg, that their errors cannot show, and how to check them. At most 8 uses
/// are listed, the rest counted.
pub fn inactive_uses_sentence(server_id: &str, file: &str, uses: &[InactiveUse]) -> String {
    const LISTED: usize = 8;
    let shown: Vec<String> = uses
        .iter()
        .take(LISTED)
        .map(|found| {
            let gate = match &found.cfg {
                Some((attribute, line)) => format!("under `{}` at line {line}", attribute.split_whitespace().collect::<Vec<_>>().join(" ")),
                None if found.features.is_empty() => "in code off by a cfg".to_owned(),
                None => format!("feature {} off", found.features.join(", ")),
            };
            format!("line {} uses `{}` ({gate})", found.line, found.name)
        })
        .collect();
    let more = if uses.len() > LISTED { format!(" and {} more", uses.len() - LISTED) } else { String::new() };
    let mut features: Vec<String> = Vec::new();
    for found in uses {
        for feature in &found.features {
            if !features.contains(feature) {
                features.push(feature.clone());
            }
        }
    }
    // A gate that needs an enabled feature off (`all(not(feature = "std"), feature = "libm")`):
    // a check without the default features (trial71 F2: num-traits' float.rs:2043 was sent to
    // `"features": ["libm"]`, which keeps std on).
    let mut features_off: Vec<String> = Vec::new();
    for found in uses {
        for feature in found.cfg.as_ref().map(|(attribute, _)| features_needed_off(attribute)).unwrap_or_default() {
            if !features_off.contains(&feature) {
                features_off.push(feature);
            }
        }
    }
    let next = if !features_off.is_empty() {
        how_to_check_without(&features, &features_off)
    } else if features.is_empty() {
        how_to_check("")
    } else {
        how_to_check_features(&features)
    };
    let mut names: Vec<&str> = uses.iter().map(|found| found.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    format!(
        "code that uses {} (changed by this write) is not compiled in the current configuration, so {server_id} and cargo check cannot show its errors: {} of {file}{more}; {next}",
        names.join(", "),
        shown.join(", ")
    )
}

/// Whether `path` is Rust code every `cargo check` of its package compiles: under a package's
/// `src/` (the nearest `Cargo.toml` above it, at or below `root`), outside `src/bin/` — a test,
/// bench, example or bin target can be skipped for its `required-features`.
pub fn in_always_compiled_rust_code(path: &std::path::Path, root: &std::path::Path) -> bool {
    let Some(package) = crate::lsp::cfg_off_modules::package_root(root, path) else { return false };
    let mut components = path.strip_prefix(&package).unwrap_or(path).components().map(|c| c.as_os_str().to_string_lossy().into_owned());
    components.next().as_deref() == Some("src") && components.next().as_deref() != Some("bin")
}

/// Whether no stored publish holds a rustc error (rust-analyzer's cargo check found none).
pub fn no_rustc_error_published<'a>(sets: impl IntoIterator<Item = &'a Vec<Diagnostic>>) -> bool {
    sets.into_iter().all(|diagnostics| {
        !diagnostics
            .iter()
            .any(|d| d.source.as_deref() == Some("rustc") && d.severity.unwrap_or(DiagnosticSeverity::ERROR) == DiagnosticSeverity::ERROR)
    })
}

/// The 0-based line ranges (first, last; inclusive) of the `macro_rules!` definitions in Rust
/// `source` (tree-sitter's `macro_definition`): templates rust-analyzer resolves names in only
/// where the macro is invoked. Empty when the text does not parse as Rust.
pub fn macro_rules_line_ranges(source: &str) -> Vec<(u32, u32)> {
    use ast_grep_core::tree_sitter::StrDoc;
    let Ok(root) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let mut ranges = Vec::new();
    let mut stack = vec![root.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "macro_definition" {
            ranges.push((node.start_position().row as u32, node.end_position().row as u32));
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    ranges.sort_unstable();
    ranges
}

/// Why rust-analyzer gives no definition at `places` (absolute path, 0-based line: occurrences
/// grep finds that an answer built from its index leaves out), as a parenthesis for a
/// "NOT in this answer" note: the places inside a `macro_rules!` body are templates (their
/// expansions, where the macro is invoked, are what the server resolves), named by `shown`; the
/// places in the arguments of a macro invocation that no off-by-default `#[cfg]` gates are
/// compiled code whose tokens the macro's pattern may consume (`expect!(bytes.next() == b'H' =>
/// …)` with a pattern that spells `.next()`: the call is made by the template), named too
/// (trial28 M11: 16 such places in httparse were said to be behind a `#[cfg]` that is off); the
/// others are code behind a `#[cfg]` that is off — grouped by that gate, on the line or on a
/// `mod` up the module chain ([`rust_unresolved_place`], at most [`MAX_GATES_LOOKED_UP`] places),
/// with the check that compiles them — or files no target includes. Files are read beneath
/// `workspace_root`; one that cannot be read counts among the others.
pub fn rust_unanalyzed_hint(
    workspace_root: &std::path::Path,
    places: &[(std::path::PathBuf, u32)],
    shown: &dyn Fn(&std::path::Path, u32) -> String,
) -> String {
    let mut in_macro_rules: Vec<String> = Vec::new();
    let mut in_invocations: Vec<String> = Vec::new();
    // Places behind a gate that names a cfg the package's build.rs sets (httparse 1.10.1:
    // `httparse_simd`, off in a restricted run, trial28 M10), and those names.
    let mut behind_build_script_cfgs: Vec<String> = Vec::new();
    let mut build_script_cfg_names: Vec<String> = Vec::new();
    let mut packages_read: std::collections::HashMap<std::path::PathBuf, PackageCfgFacts> = std::collections::HashMap::new();
    // Places behind a gate named by its place: (where and which gate, the check, the places).
    let mut behind_named_gates: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut gates_looked_up = 0usize;
    // Per file: the `macro_rules!` line ranges and the active macro invocations' line ranges.
    type FileRanges = (Vec<(u32, u32)>, Vec<(u32, u32)>);
    let mut ranges_by_file: std::collections::HashMap<&std::path::Path, FileRanges> = std::collections::HashMap::new();
    for (path, line0) in places {
        let (templates, invocations) = ranges_by_file.entry(path.as_path()).or_insert_with(|| {
            crate::files::read_workspace_file_to_string(workspace_root, path)
                .map(|text| {
                    // A file whose `mod` is gated off, or that no module tree declares, is not
                    // compiled: its invocations are no active code.
                    let invocations = if rust_file_in_an_ungated_module_tree(workspace_root, path, 0) {
                        active_macro_invocation_line_ranges(&text)
                    } else {
                        Vec::new()
                    };
                    (macro_rules_line_ranges(&text), invocations)
                })
                .unwrap_or_default()
        });
        if templates.iter().any(|(first, last)| (*first..=*last).contains(line0)) {
            in_macro_rules.push(shown(path, *line0));
        } else if invocations.iter().any(|(first, last)| (*first..=*last).contains(line0)) {
            in_invocations.push(shown(path, *line0));
        } else if let Some(name) = build_script_cfg_gating(workspace_root, path, *line0, &mut packages_read) {
            if !build_script_cfg_names.contains(&name) {
                build_script_cfg_names.push(name);
            }
            behind_build_script_cfgs.push(shown(path, *line0));
        } else if gates_looked_up < MAX_GATES_LOOKED_UP {
            // The gate itself, with the check that compiles it (trial155 M1: indexmap's
            // `src/rayon/map.rs` lines were "behind a `#[cfg]` that is off … nor files no target
            // includes", the `rayon` gate two `mod`s up not named).
            gates_looked_up += 1;
            let found = rust_unresolved_place(workspace_root, path, *line0, shown).filter(|found| !found.in_macro_template);
            if let Some((gate, check)) = found.and_then(|found| Some((found.gate?, found.check))) {
                match behind_named_gates.iter_mut().find(|(known, _, _)| *known == gate) {
                    Some((_, _, places)) => places.push(shown(path, *line0)),
                    None => behind_named_gates.push((gate, check, vec![shown(path, *line0)])),
                }
            }
        }
    }
    let build_script_reason = format!(
        "behind a `#[cfg]` naming {}, which the crate's build.rs sets (`cargo:rustc-cfg`): rust-analyzer analyzes that code only when it runs build scripts — a restricted run (workspace trust) does not, so there the code is left out though a real build compiles it; a trusted run covers it",
        build_script_cfg_names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
    );
    const CFG_REASON: &str = "rust-analyzer does not analyze code behind a `#[cfg]` that is off — a cargo feature not enabled, another target OS — nor files no target includes";
    const MACRO_REASON: &str =
        "inside a `macro_rules!` body: a template whose names rust-analyzer resolves only in its expansions, where the macro is invoked";
    const INVOCATION_REASON: &str = "in the arguments of a macro invocation, compiled code: rust-analyzer finds a name there only where the macro's expansion keeps those tokens as code; a macro whose pattern spells the tokens itself (`m!(x.next() == …)` matched by `($x:ident.next() == …)`) makes the call from its `macro_rules!` template, so these uses are real — read the invocations";
    let listed = |places: &[String]| -> String {
        let shown: Vec<String> = places.iter().take(8).cloned().collect();
        let more = if places.len() > 8 { format!(" and {} more", places.len() - 8) } else { String::new() };
        format!("{}{more}", shown.join(", "))
    };
    let named_gate_reasons: Vec<(String, &Vec<String>)> = behind_named_gates
        .iter()
        .map(|(gate, check, found)| (format!("{gate}, which rust-analyzer's configuration leaves off: {check}"), found))
        .collect();
    let behind_named = behind_named_gates.iter().map(|(_, _, found)| found.len()).sum::<usize>();
    let others = places.len() - in_macro_rules.len() - in_invocations.len() - behind_build_script_cfgs.len() - behind_named;
    let mut parts: Vec<String> = Vec::new();
    for (found, reason) in
        [(&in_macro_rules, MACRO_REASON), (&in_invocations, INVOCATION_REASON), (&behind_build_script_cfgs, build_script_reason.as_str())]
            .into_iter()
            .chain(named_gate_reasons.iter().map(|(reason, found)| (*found, reason.as_str())))
    {
        if found.is_empty() {
            continue;
        }
        if found.len() == places.len() {
            return format!(" ({reason})");
        }
        parts.push(format!("{} of them — {} — {reason}", found.len(), listed(found)));
    }
    if parts.is_empty() {
        return format!(" ({CFG_REASON})");
    }
    if others > 0 {
        parts.push(format!("for the others, {CFG_REASON}"));
    }
    format!(" ({})", parts.join("; "))
}

/// Places [`rust_unanalyzed_hint`] asks [`rust_unresolved_place`] for their gate (each reads and
/// parses the file and its module chain); the rest are said with the generic reason.
const MAX_GATES_LOOKED_UP: usize = 64;

/// What [`build_script_cfg_gating`] reads once per package of one hint: the cfgs its build.rs
/// sets, its default features and the gates of its module files read so far.
struct PackageCfgFacts {
    build_script_cfgs: Vec<String>,
    default_features: Option<std::collections::HashSet<String>>,
    module_gates: std::collections::HashMap<std::path::PathBuf, Option<GatingDeclaration>>,
}

/// The first cfg name the package's build.rs sets that gates `line0` (0-based) of the Rust file
/// `path` — through a `#[cfg]` around the line or on a `mod` item that declares the file or a
/// module around it. `packages` keeps what is read of each package. `None` when the package
/// has no build.rs, no gate names one of its cfgs, or a gate is off on this host whatever the
/// build script sets (see [`crate::lsp::cfg_off_modules::evaluate_cfg_attribute`]).
fn build_script_cfg_gating(
    workspace_root: &std::path::Path,
    path: &std::path::Path,
    line0: u32,
    packages: &mut std::collections::HashMap<std::path::PathBuf, PackageCfgFacts>,
) -> Option<String> {
    use ast_grep_core::tree_sitter::StrDoc;
    let package = crate::lsp::cfg_off_modules::package_root(workspace_root, path)?;
    let facts = packages.entry(package.clone()).or_insert_with(|| PackageCfgFacts {
        build_script_cfgs: crate::lsp::cfg_off_modules::build_script_cfgs(workspace_root, &package),
        default_features: crate::lsp::cfg_off_modules::default_features(workspace_root, &package),
        module_gates: std::collections::HashMap::new(),
    });
    if facts.build_script_cfgs.is_empty() {
        return None;
    }
    let mut gates: Vec<String> = Vec::new();
    if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, path) {
        if let Ok(tree) =
            ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text.as_str(), ast_grep_language::SupportLang::Rust)
        {
            gates.extend(cfg_gate_at(&tree.root().get_inner_node(), &text, line0, true).map(|(attribute, _, _)| attribute));
        }
    }
    gates.extend(
        crate::lsp::cfg_off_modules::module_gates(workspace_root, &package.join("src"), path, &mut facts.module_gates)
            .into_iter()
            .map(|gate| gate.cfg),
    );
    // A gate known off whatever the build script sets (httparse's `neon.rs`: also
    // `target_arch = "aarch64"`) is no build-script matter: a real build leaves it out too.
    if gates.iter().any(|gate| crate::lsp::cfg_off_modules::evaluate_cfg_attribute(gate, facts.default_features.as_ref()) == Some(false)) {
        return None;
    }
    gates.iter().flat_map(|gate| crate::lsp::cfg_off_modules::custom_cfg_names(gate)).find(|name| facts.build_script_cfgs.contains(name))
}

/// Whether the Rust file `path` is a target root (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
/// `tests/*.rs`, `benches/*.rs`, `examples/*.rs` beside a `Cargo.toml`) or declared by a `mod
/// name;` item that no off-by-default `#[cfg]` gates (attributes over several lines and gated
/// inline modules around the item count, read from the syntax tree) in a file that is itself
/// so, at most 8 levels up. `false` when no declaration is found (a `#[path]` module, a file no
/// target includes): unknown counts as not compiled. Files are read beneath `workspace_root`.
fn rust_file_in_an_ungated_module_tree(workspace_root: &std::path::Path, path: &std::path::Path, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    let Some(file) = path.file_name().and_then(|name| name.to_str()) else { return false };
    let Some(dir) = path.parent() else { return false };
    let dir_name = dir.file_name().and_then(|name| name.to_str()).unwrap_or("");
    let beside_manifest = |folder: &std::path::Path| folder.parent().is_some_and(|package| package.join("Cargo.toml").is_file());
    if dir_name == "src" && (file == "lib.rs" || file == "main.rs") && beside_manifest(dir) {
        return true;
    }
    if matches!(dir_name, "tests" | "benches" | "examples") && beside_manifest(dir) {
        return true;
    }
    if dir_name == "bin" && dir.parent().is_some_and(|src| src.file_name().is_some_and(|name| name == "src") && beside_manifest(src)) {
        return true;
    }
    with_module_declaration(workspace_root, path, |declaring, text, top, line0| {
        cfg_gate_at(top, text, line0, true).is_none() && rust_file_in_an_ungated_module_tree(workspace_root, declaring, depth + 1)
    })
    .unwrap_or(false)
}

/// The 0-based line ranges (first, last; inclusive) of the macro invocations (`name!(…)`) in
/// Rust `source` that lie outside `macro_rules!` bodies and behind no `#[cfg]` that is off by
/// default (see [`cfg_gate_at`]): compiled code whose tokens a macro's pattern may consume.
/// Empty when the text does not parse as Rust.
fn active_macro_invocation_line_ranges(source: &str) -> Vec<(u32, u32)> {
    use ast_grep_core::tree_sitter::StrDoc;
    let Ok(root) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let top = root.root().get_inner_node();
    let mut ranges = Vec::new();
    let mut stack = vec![top];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "macro_definition" => continue,
            "macro_invocation" => {
                let first = node.start_position().row as u32;
                if cfg_gate_at(&top, source, first, true).is_none() {
                    ranges.push((first, node.end_position().row as u32));
                }
                continue;
            }
            _ => (),
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    ranges.sort_unstable();
    ranges
}

/// Why rust-analyzer could not resolve an occurrence in Rust code: the `#[cfg]` that gates it
/// or its module, or the `macro_rules!` template it sits in. For a rename's "left unrenamed"
/// list and the write check that follows it (smallvec 1.16.6: occurrences behind
/// `#[cfg(feature = "const_new")]` and inside `macro_rules! impl_array` were called "(no
/// definition) … another symbol with this name").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustUnresolvedPlace {
    /// The parenthesis for the listing: the cfg and its line, or the template and where the
    /// macro is invoked, and the next step.
    pub reason: String,
    /// The same place said for a lookup (hover, definition, references) that rust-analyzer
    /// answered with nothing: where the code stands, why the server has no answer there and
    /// the next step, without the rename's consequences (trial28 M6).
    pub lookup_reason: String,
    /// The features to enable to compile it (empty for a template or a cfg that is no feature).
    pub features: Vec<String>,
    /// The features to turn off to compile it (`cfg(not(feature = "std"))`: `std`).
    pub features_off: Vec<String>,
    /// `true` inside a `macro_rules!` body; `false` behind a `#[cfg]`.
    pub in_macro_template: bool,
    /// Behind a `#[cfg]`: the gate and where it stands, short, for a note that groups places by
    /// their gate — `` behind `#[cfg(feature = "x")]` at src/a.rs:3 `` or `` in a module declared
    /// under `#[cfg(feature = "rayon")]` (src/lib.rs:126, …) ``; `None` for a template.
    pub gate: Option<String>,
    /// Behind a `#[cfg]`: the gate's attribute as written (`#[cfg(windows)]`), on the line or on
    /// the gated `mod`; `None` for a template.
    pub gate_attribute: Option<String>,
    /// Behind a `#[cfg]`: the check that compiles the place (`check with {"op": "diagnostics",
    /// …}`); empty for a template.
    pub check: String,
    /// The features that compile it, solved over the line's gate and its module's declaration
    /// ([`feature_selection_compiling`]); `None` for a template, a gate features alone do not
    /// turn on here, or a manifest that cannot be read.
    pub selection: Option<CompilingFeatureSelection>,
}

/// The `#[cfg(…)]` attribute nearest around `line0` (0-based) of parsed Rust: the innermost item
/// or statement it gates that spans the line, as (attribute text, 0-based attribute line, start
/// byte of the gated item — of the file's root for an inner `#![cfg(…)]`, which counts for
/// every line). With `only_off_by_default`, gates that
/// are on in rust-analyzer's usual configuration (`#[cfg(test)]`, `#[cfg(not(…))]`) are passed
/// over for the next one out.
pub(crate) fn cfg_gate_at(
    root: &tree_sitter::Node<'_>,
    source: &str,
    line0: u32,
    only_off_by_default: bool,
) -> Option<(String, u32, usize)> {
    let passed_over = |attribute: &str| {
        let compact = attribute.replace(' ', "");
        only_off_by_default
            && (compact.starts_with("#[cfg(test)") || compact.starts_with("#[cfg(not(") || compact.starts_with("#![cfg(test)"))
    };
    let text = |node: &tree_sitter::Node<'_>| source.get(node.start_byte()..node.end_byte()).unwrap_or("").to_owned();
    // (attribute, 0-based line, span in bytes, gated item's start byte)
    let mut found: Option<(String, u32, usize, usize)> = None;
    let mut stack = vec![*root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<_> = node.named_children(&mut cursor).collect();
        for (index, child) in children.iter().enumerate() {
            let kind = child.kind();
            if kind == "inner_attribute_item"
                && node.kind() == "source_file"
                && text(child).replace(' ', "").starts_with("#![cfg(")
                && !passed_over(&text(child))
            {
                found.get_or_insert((text(child), child.start_position().row as u32, usize::MAX, root.start_byte()));
                continue;
            }
            if kind != "attribute_item" || !text(child).replace(' ', "").starts_with("#[cfg(") || passed_over(&text(child)) {
                continue;
            }
            // The gated item: the next sibling that is no attribute or comment.
            let Some(item) =
                children[index + 1..].iter().find(|next| !matches!(next.kind(), "attribute_item" | "line_comment" | "block_comment"))
            else {
                continue;
            };
            let item_last = item.end_position().row as u32;
            let span = item.end_byte().saturating_sub(child.start_byte());
            let narrower = match &found {
                Some((_, _, known, _)) => span < *known,
                None => true,
            };
            if (child.start_position().row as u32..=item_last).contains(&line0) && narrower {
                found = Some((text(child), child.start_position().row as u32, span, item.start_byte()));
            }
        }
        stack.extend(children.into_iter().filter(|child| {
            let (first, last) = (child.start_position().row as u32, child.end_position().row as u32);
            (first..=last).contains(&line0)
        }));
    }
    found.map(|(attribute, line, _, item_start)| (attribute, line, item_start))
}

/// Why rust-analyzer gives no definition at `line0` (0-based) of the Rust file `path` (read
/// beneath `workspace_root`): inside a `macro_rules!` body (a template: named with the
/// invocations of the macro in the same file and whether each is gated), behind a `#[cfg(…)]`
/// (the attribute and its line), or in a module file whose `mod` is gated. `None` when none of
/// these holds or the file cannot be read or parsed. `shown` renders a place (`src/lib.rs:12`).
pub fn rust_unresolved_place(
    workspace_root: &std::path::Path,
    path: &std::path::Path,
    line0: u32,
    shown: &dyn Fn(&std::path::Path, u32) -> String,
) -> Option<RustUnresolvedPlace> {
    use ast_grep_core::tree_sitter::StrDoc;
    let source = crate::files::read_workspace_file_to_string(workspace_root, path).ok()?;
    let grep =
        ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source.as_str(), ast_grep_language::SupportLang::Rust)
            .ok()?;
    let root = grep.root().get_inner_node();
    let check_for = |_: &[String], cfg: &str| -> String {
        how_to_check(cfg).replacen("check it with", "check with", 1).replacen("check them all with", "check with", 1)
    };
    // A macro_rules! template.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let (first, last) = (node.start_position().row as u32, node.end_position().row as u32);
        if !(first..=last).contains(&line0) {
            continue;
        }
        if node.kind() == "macro_definition" {
            let name = node.child_by_field_name("name").and_then(|name| source.get(name.start_byte()..name.end_byte())).unwrap_or("");
            let mut invocations: Vec<String> = Vec::new();
            let mut active = 0usize;
            for (index, line) in source.lines().enumerate() {
                let index = index as u32;
                if (first..=last).contains(&index) || line.trim_start().starts_with("//") || name.is_empty() {
                    continue;
                }
                let called = line
                    .match_indices(&format!("{name}!"))
                    .any(|(at, _)| !line[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_'));
                if !called {
                    continue;
                }
                match cfg_gate_at(&root, &source, index, false) {
                    Some((attribute, _, _)) => invocations.push(format!("{} (under `{attribute}`)", shown(path, index))),
                    None => {
                        active += 1;
                        invocations.push(format!("{} (not gated: compiled in every build)", shown(path, index)));
                    }
                }
            }
            let (invoked_at, active_note) = if invocations.is_empty() {
                (format!("no invocation of `{name}!` in this file: look for them in the files that use the macro"), "")
            } else {
                let listed: Vec<String> = invocations.iter().take(4).cloned().collect();
                let more = if invocations.len() > 4 { format!(" and {} more", invocations.len() - 4) } else { String::new() };
                let active_note = if active > 0 {
                    " — an active invocation compiles this template, so a build breaks if it names the renamed symbol"
                } else {
                    ""
                };
                (format!("invoked at {}{more}", listed.join(", ")), active_note)
            };
            return Some(RustUnresolvedPlace {
                reason: format!(
                    "inside the `macro_rules! {name}` body at {}: a template rust-analyzer resolves only where the macro is invoked, so no rename reaches it — rename it by hand if it names this symbol; {invoked_at}{active_note}",
                    shown(path, first)
                ),
                lookup_reason: format!(
                    "inside the `macro_rules! {name}` body at {}: a template whose names rust-analyzer resolves only in its expansions — ask at an invocation; {invoked_at}",
                    shown(path, first)
                ),
                features: Vec::new(),
                features_off: Vec::new(),
                in_macro_template: true,
                gate: None,
                gate_attribute: None,
                check: String::new(),
                selection: None,
            });
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    // A gate that is on with the package's default features (hex 0.4.3's `#[cfg(feature =
    // "alloc")]` inside the `serde`-gated module) is not why the code is off: the module's own
    // gate is (trial42 F1 advised `"features": ["alloc"]`, which compiles nothing new).
    let default_features = crate::lsp::cfg_off_modules::package_root(workspace_root, path)
        .and_then(|package| crate::lsp::cfg_off_modules::default_features(workspace_root, &package));
    let gate = cfg_gate_at(&root, &source, line0, true)
        .filter(|(attribute, _, _)| crate::lsp::cfg_off_modules::evaluate_cfg_attribute(attribute, default_features.as_ref()) != Some(true))
        // A `#[cfg(not(feature = "x"))]` is off when `x` is a default feature (trial57 M4:
        // textwrap's `#[cfg(not(feature = "unicode-linebreak"))]` statement read "compiled
        // code", "0 behind a #[cfg] that is off").
        .or_else(|| {
            cfg_gate_at(&root, &source, line0, false).filter(|(attribute, _, _)| {
                attribute.replace(' ', "").starts_with("#[cfg(not(")
                    && crate::lsp::cfg_off_modules::evaluate_cfg_attribute(attribute, default_features.as_ref()) == Some(false)
            })
        });
    // Features alone do not compile code that is also gated on another target.
    let features_for = |cfg: &str| -> Vec<String> {
        if target_for_cfg(cfg).is_some_and(|target| !is_host_target(&target)) {
            Vec::new()
        } else {
            disabled_features(cfg)
        }
    };
    // The module's own declaration gate counts too: a `#[cfg(not(feature = "std"))]` test in a
    // module declared under `any(feature = "std", feature = "critical-section")` compiles only
    // with critical-section on (trial67 F1(b): `--no-default-features` compiled nothing of it).
    // Every `mod` up the chain counts, and the one that keeps the file out may be further up
    // than its own declaration (trial155 M1: indexmap's `src/rayon/map.rs`, a module inside the
    // `#[cfg(feature = "rayon")]` one, read "(no definition)").
    let (declared, module_gates) = match off_gating_declaration_up_the_module_chain(workspace_root, path) {
        Some((declared, chain)) => (Some(declared), chain.into_iter().map(|gate| gate.cfg).collect()),
        None => (None, gating_declarations_up_the_module_chain(workspace_root, path).into_iter().map(|gate| gate.cfg).collect::<Vec<_>>()),
    };
    // The check that compiles it: one feature selection solved over both gates, said with the
    // gate's own advice when none exists (another target, an unreadable manifest).
    let solved_check = |gates: Vec<String>, attribute: &str| -> (Option<CompilingFeatureSelection>, String) {
        let selection = feature_selection_compiling(workspace_root, path, &gates)
            .filter(|selection| selection.no_default_features || !selection.features.is_empty());
        let check = match &selection {
            Some(selection) if selection.no_default_features => format!(
                "it is compiled only with {off} OFF, so no check with {off} on covers it: check with {} (`{} --all-targets`)",
                selection.diagnostics_arguments(),
                selection.cargo_command(),
                off = selection.dropped_defaults.join(", ")
            ),
            Some(selection) => format!("check with {} (`{} --all-targets`)", selection.diagnostics_arguments(), selection.cargo_command()),
            None => check_for(&features_for(attribute), attribute),
        };
        (selection, check)
    };
    if let Some((attribute, at, _)) = gate {
        let features = features_for(&attribute);
        let gates: Vec<String> = std::iter::once(attribute.clone()).chain(module_gates.iter().cloned()).collect();
        let (selection, check) = solved_check(gates, &attribute);
        return Some(RustUnresolvedPlace {
            reason: format!(
                "behind `{attribute}` at {}, which rust-analyzer's configuration leaves off: it does not analyze this code, so the rename did not reach it and the write check does not compile it; a build with that cfg breaks if this is the renamed symbol — {check}",
                shown(path, at),
            ),
            lookup_reason: format!(
                "behind `{attribute}` at {}, which rust-analyzer's configuration leaves off: it does not analyze this code, so it has no answer there — {check}",
                shown(path, at),
            ),
            features_off: features_needed_off(&attribute),
            features,
            in_macro_template: false,
            gate: Some(format!("behind `{attribute}` at {}", shown(path, at))),
            gate_attribute: Some(attribute.clone()),
            check,
            selection,
        });
    }
    let declared = declared?;
    let features = features_for(&declared.cfg);
    let (selection, check) = solved_check(module_gates, &declared.cfg);
    Some(RustUnresolvedPlace {
        reason: format!(
            "in a module declared under `{}` ({}), which rust-analyzer's configuration leaves off: it does not analyze the file, so the rename did not reach it and the write check does not compile it; a build with that cfg breaks if this is the renamed symbol — {check}",
            declared.cfg,
            declared.where_declared(),
        ),
        lookup_reason: format!(
            "in a module declared under `{}` ({}), which rust-analyzer's configuration leaves off: it does not analyze the file, so it has no answer there — {check}",
            declared.cfg,
            declared.where_declared(),
        ),
        features_off: features_needed_off(&declared.cfg),
        features,
        in_macro_template: false,
        gate: Some(format!("in a module declared under `{}` ({})", declared.cfg, declared.where_declared())),
        gate_attribute: Some(declared.cfg.clone()),
        check,
        selection,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_lines_inside_an_off_cfg_attr_are_found() {
        // rand_core 0.6.4 (trial83 F1): `serde1` is no default feature.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"cores\"\nversion = \"0.1.0\"\n\n[features]\ndefault = [\"std\"]\nstd = []\nserde1 = []\n",
        )
        .unwrap();
        let path = root.join("src/block.rs");
        let text = "#[derive(Clone)]\n#[cfg_attr(\n    feature = \"serde1\",\n    derive(Serialize, Deserialise)\n)]\npub struct BlockRng {\n    index: usize,\n}\n\n#[cfg_attr(feature = \"std\", derive(Debug))]\npub struct On;\n";
        std::fs::write(&path, text).unwrap();
        let found = lines_in_off_cfg_attr(&root, &path, text, &[4, 7, 10]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 4);
        assert!(found[0].1.starts_with("#[cfg_attr(feature = \"serde1\","), "{found:?}");
        assert!(lines_in_off_cfg_attr(&root, &path, text, &[7, 10, 11]).is_empty(), "an enabled feature's attribute is compiled");
    }

    #[test]
    fn the_feature_selection_that_compiles_gated_code_is_solved_over_its_gates() {
        // trial67 F1: once_cell 1.19.0's backends and its `not(std)` test in a module gated on
        // `any(std, critical-section)`.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"cells\"\nversion = \"0.1.0\"\n\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\"]\nalloc = []\ncritical-section = []\nparking_lot = [\"std\"]\n",
        )
        .unwrap();
        let path = root.join("src/lib.rs");
        let solve = |gates: &[&str]| {
            let gates: Vec<String> = gates.iter().map(|gate| gate.to_string()).collect();
            feature_selection_compiling(&root, &path, &gates)
        };
        let selection = |no_default_features: bool, features: &[&str]| {
            Some(CompilingFeatureSelection {
                no_default_features,
                features: features.iter().map(|f| f.to_string()).collect(),
                dropped_defaults: if no_default_features { vec!["std".to_owned()] } else { Vec::new() },
            })
        };
        assert_eq!(solve(&["#[cfg(all(feature = \"critical-section\", not(feature = \"std\")))]"]), selection(true, &["critical-section"]));
        assert_eq!(solve(&["#[cfg(all(feature = \"std\", feature = \"parking_lot\"))]"]), selection(false, &["parking_lot"]));
        assert_eq!(
            solve(&["#[cfg(not(feature = \"std\"))]", "#[cfg(any(feature = \"std\", feature = \"critical-section\"))]"]),
            selection(true, &["critical-section"])
        );
        // parking_lot enables std: no selection has it on and std off.
        assert_eq!(solve(&["#[cfg(all(feature = \"parking_lot\", not(feature = \"std\")))]"]), None);
        // Another target: features alone do not compile it here.
        assert_eq!(solve(&["#[cfg(all(target_arch = \"wasm32\", target_os = \"unknown\", feature = \"alloc\"))]"]), None);
        let text = selection(true, &[]).unwrap();
        assert_eq!(text.diagnostics_arguments(), "{\"op\": \"diagnostics\", \"file\": \"*\", \"no_default_features\": true}");
        assert_eq!(text.cargo_command(), "cargo check --no-default-features");
    }

    #[test]
    fn the_items_whose_declaration_a_write_changed_are_named() {
        let old = "pub fn to_writer(value: u8) -> String {\n    format!(\"{value}\")\n}\n\npub fn untouched() -> u8 {\n    1\n}\n\npub struct Flag {\n    name: u8,\n}\n";
        // A signature change names the function; a body change does not; a field names its struct.
        let new = old
            .replace("to_writer(value: u8)", "to_writer(value: u8, upper: bool)")
            .replace("    1\n", "    2\n")
            .replace("name: u8", "name: u16");
        assert_eq!(changed_rust_item_names(old, &new), vec!["Flag".to_owned(), "to_writer".to_owned()]);
        // A rename names the old and the new name.
        let renamed = old.replace("pub fn untouched()", "pub fn touched()");
        assert_eq!(changed_rust_item_names(old, &renamed), vec!["touched".to_owned(), "untouched".to_owned()]);
        assert!(changed_rust_item_names(old, old).is_empty());
        // A type changed in one field is no rename of the type: the struct changed.
        assert_eq!(changed_rust_item_names(old, &old.replace("name: u8", "name: u16")), vec!["Flag".to_owned()]);
    }

    #[test]
    fn a_write_that_only_renames_an_identifier_names_it_not_the_items_that_mention_it() {
        let old = "pub struct CapacityError<T>(T);

impl<T> CapacityError<T> {
    pub const fn new(element: T) -> CapacityError<T> {
        CapacityError(element)
    }
}

impl std::str::FromStr for Stack {
    type Err = CapacityError<char>;
}
";
        let new = old.replace("CapacityError", "CapError");
        assert_eq!(changed_rust_item_names(old, &new), vec!["CapError".to_owned(), "CapacityError".to_owned()]);
        // trial159 M3: the old name left in a comment, a string, and in code the rename did not
        // reach in another file, is still a rename; its declaration renamed decides.
        let old = format!("/// Make a `CapacityError`.\n{old}fn msg() -> &'static str {{ \"CapacityError\" }}\n");
        let new = old.replace("pub struct CapacityError", "pub struct CapError").replace("CapacityError<", "CapError<");
        assert_eq!(changed_rust_item_names(&old, &new), vec!["CapError".to_owned(), "CapacityError".to_owned()]);
        let user_old = "use crate::CapacityError;\npub fn make() -> CapacityError<u8> { todo!() }\n#[cfg(feature = \"x\")]\nfn gated(e: CapacityError<u8>) {}\n";
        let user_new =
            "use crate::CapError;\npub fn make() -> CapError<u8> { todo!() }\n#[cfg(feature = \"x\")]\nfn gated(e: CapacityError<u8>) {}\n";
        assert_eq!(
            changed_rust_item_names_in_write(&[(&old, &new), (user_old, user_new)]),
            vec!["CapError".to_owned(), "CapacityError".to_owned()]
        );
        // Alone, the user file's change still reads as a change of `make` (the old name is used).
        assert!(changed_rust_item_names(user_old, user_new).contains(&"make".to_owned()));
        // A parameter's type changed to another type the file already uses is a change of the fn.
        let old = "pub struct Foo;\npub struct Bar;\npub fn take(a: Foo) {}\n";
        assert_eq!(changed_rust_item_names(old, &old.replace("a: Foo", "a: Bar")), vec!["take".to_owned()]);
    }

    #[test]
    fn a_word_changed_inside_a_macro_call_in_a_function_body_changes_no_declaration() {
        // trial175 M1: thiserror-impl's `quote!` template names the trait `AsDisplay` of another
        // crate; changing that token declares nothing.
        let old = "fn use_as_display(needs: bool) -> Option<TokenStream> {\n    if needs {\n        Some(quote! {\n            use ::thiserror::#private::AsDisplay as _;\n        })\n    } else {\n        None\n    }\n}\n";
        let new = old.replace("AsDisplay as", "AsDisplayX as");
        assert!(changed_rust_item_names(old, &new).is_empty(), "{:?}", changed_rust_item_names(old, &new));
        // On one line with the macro's name, and inside `format!` too.
        let old = "fn f() -> String {\n    format!(\"{}\", Alpha::NAME)\n}\n";
        assert!(changed_rust_item_names(old, &old.replace("Alpha", "Beta")).is_empty());
        // The same word changed outside a macro call is still a rename.
        let old = "fn f() -> Alpha {\n    todo!()\n}\n";
        assert_eq!(changed_rust_item_names(old, &old.replace("-> Alpha", "-> Beta")), vec!["Alpha".to_owned(), "Beta".to_owned()]);
        // An item declared in an item-level macro call (`cfg_if!`, `bitflags!`) is a declaration.
        let old = "cfg_if! {\n    if #[cfg(unix)] {\n        pub fn alpha() {}\n    }\n}\n";
        assert_eq!(changed_rust_item_names(old, &old.replace("alpha", "beta")), vec!["alpha".to_owned(), "beta".to_owned()]);
    }

    #[test]
    fn cfg_off_uses_of_changed_items_are_found_with_their_gate() {
        // bitflags 2.13.2 parser.rs: `to_writer` called under `#[cfg(feature = "serde")]`.
        let text = "pub fn to_writer() {}\n\n#[cfg(feature = \"serde\")]\nimpl Show {\n    fn show(&self) {\n        // to_writer in a comment\n        to_writer();\n    }\n}\n\npub fn active() {\n    to_writer();\n}\n";
        let ranges = vec![InactiveRange {
            start_line: 3,
            end_line: 9,
            message: "code is inactive due to #[cfg] directives: feature = \"serde\" is disabled".to_owned(),
        }];
        let uses = inactive_uses(&ranges, text, &["to_writer".to_owned()]);
        assert_eq!(
            uses,
            vec![InactiveUse {
                line: 7,
                name: "to_writer".to_owned(),
                features: vec!["serde".to_owned()],
                cfg: Some(("#[cfg(feature = \"serde\")]".to_owned(), 3)),
            }]
        );
        let sentence = inactive_uses_sentence("rust-analyzer", "parser.rs", &uses);
        assert!(sentence.contains("line 7 uses `to_writer` (under `#[cfg(feature = \"serde\")]` at line 3) of parser.rs"), "{sentence}");
        assert!(sentence.contains("\"features\": [\"serde\"]"), "{sentence}");
        assert!(inactive_uses(&ranges, text, &["active".to_owned()]).is_empty(), "a name used in active code only");
        // bitflags 2.13.2 parser.rs:309: `write!(…)` under `#[cfg(feature = "std")]` is no use
        // of a changed function `write`, and a changed macro is found only as a call.
        let text = "#[cfg(feature = \"std\")]\nfn f() {\n    write!(f, \"x\");\n}\n";
        let ranges = vec![InactiveRange { start_line: 1, end_line: 4, message: "feature = \"std\" is disabled".to_owned() }];
        assert!(inactive_uses(&ranges, text, &["write".to_owned()]).is_empty());
        assert_eq!(inactive_uses(&ranges, text, &["write!".to_owned()]).len(), 1);
    }

    #[test]
    fn cfg_off_uses_of_changed_items_are_found_by_the_syntax_tree_without_rust_analyzers_ranges() {
        // bitflags 2.13.2 (trial171 F2): rust-analyzer, indexing, published no `inactive-code`,
        // and the call at parser.rs:89 under `#[cfg(feature = "serde")]` went unsaid.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"flags\"\nversion = \"0.1.0\"\n\n[features]\ndefault = [\"std\"]\nstd = []\nserde = []\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        let path = root.join("src/parser.rs");
        let text = "pub fn to_writer(a: u8, b: u8) {}\n\n#[cfg(feature = \"serde\")]\nimpl Show {\n    fn show(&self) {\n        to_writer(1);\n    }\n}\n\n#[cfg(feature = \"std\")]\nfn on() {\n    to_writer(1);\n}\n\n#[cfg(not(feature = \"std\"))]\nfn off() {\n    to_writer(1);\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n        super::to_writer(1);\n    }\n}\n";
        std::fs::write(&path, text).unwrap();
        let uses = inactive_uses_by_syntax(&root, &path, text, &["to_writer".to_owned()]);
        let lines: Vec<(u32, Vec<String>)> = uses.iter().map(|found| (found.line, found.features.clone())).collect();
        // Line 6 (serde off), line 17 (`not(std)` with std on by default); not line 12 (std on),
        // nor line 24 (`cfg(test)`, on in rust-analyzer's configuration).
        assert_eq!(lines, vec![(6, vec!["serde".to_owned()]), (17, Vec::new())]);
        assert_eq!(uses[0].cfg, Some(("#[cfg(feature = \"serde\")]".to_owned(), 3)));
        let sentence = inactive_uses_sentence("rust-analyzer", "parser.rs", &uses);
        assert!(sentence.contains("line 6 uses `to_writer` (under `#[cfg(feature = \"serde\")]` at line 3), line 17"), "{sentence}");
        assert!(inactive_uses_by_syntax(&root, &path, text, &["other".to_owned()]).is_empty());
    }

    #[test]
    fn a_range_that_needs_an_enabled_feature_off_is_sent_to_a_check_without_default_features() {
        // num-traits 0.2.19 float.rs:2082 (trial71 F2): `all(not(feature = "std"), feature = "libm")`.
        let libm = InactiveRange {
            start_line: 2082,
            end_line: 2126,
            message: "code is inactive due to #[cfg] directives: feature = \"std\" is enabled and feature = \"libm\" is disabled"
                .to_owned(),
        };
        let serde = InactiveRange {
            start_line: 10,
            end_line: 12,
            message: "code is inactive due to #[cfg] directives: feature = \"serde\" is disabled".to_owned(),
        };
        let sentence = inactive_sentence("rust-analyzer", "src/float.rs", &[&libm], false);
        assert!(sentence.contains("compiled only with std OFF"), "{sentence}");
        assert!(
            sentence.contains("{\"op\": \"diagnostics\", \"file\": \"*\", \"no_default_features\": true, \"features\": [\"libm\"]}"),
            "{sentence}"
        );
        assert!(!sentence.contains("\"all_features\": true"), "all features keep std on:\n{sentence}");
        let both = inactive_sentence("rust-analyzer", "src/float.rs", &[&serde, &libm], false);
        assert!(
            both.contains("compiled only with std OFF")
                && both
                    .contains("for the other ranges, check it with {\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [\"serde\"]}"),
            "{both}"
        );
    }

    #[test]
    fn the_lines_of_macro_rules_definitions_are_found_and_nothing_else() {
        let source = "fn a() {}\n\nmacro_rules! roots {\n    ($T:ty) => {\n        impl Roots for $T {}\n    };\n}\n\nroots!(u8);\nmod inner {\n    macro_rules! two { () => { checked_pow(1) } }\n}\n";
        assert_eq!(macro_rules_line_ranges(source), vec![(2, 6), (10, 10)]);
        assert!(macro_rules_line_ranges("fn main() {}\n").is_empty());
    }

    #[test]
    fn a_cfg_naming_a_target_gets_that_targets_triple_in_its_next_step() {
        assert_eq!(
            target_for_cfg("code is inactive due to #[cfg] directives: target_arch = \"aarch64\" is disabled").as_deref(),
            Some("aarch64-unknown-linux-gnu")
        );
        assert_eq!(
            target_for_cfg("#[cfg(all(httparse_simd, target_arch = \"aarch64\", httparse_simd_neon_intrinsics))]").as_deref(),
            Some("aarch64-unknown-linux-gnu")
        );
        assert_eq!(target_for_cfg("#[cfg(windows)]"), None);
        assert_eq!(target_for_cfg("#[cfg(target_os = \"windows\")]").as_deref(), Some("x86_64-pc-windows-gnu"));
        assert_eq!(target_for_cfg("#[cfg(all(target_os = \"macos\", target_arch = \"x86_64\"))]").as_deref(), Some("x86_64-apple-darwin"));
        assert_eq!(target_for_cfg("#[cfg(target_arch = \"wasm32\")]").as_deref(), Some("wasm32-unknown-unknown"));
        assert_eq!(target_for_cfg("#[cfg(not(target_arch = \"x86_64\"))]"), None);
        // trial66 F2: a feature gate with a target gate names the target, not the feature alone.
        let wasm_js = "#[cfg(all(any(target_arch = \"wasm32\", target_arch = \"wasm64\"), target_os = \"unknown\", feature = \"js\"))]";
        if !is_host_target("wasm32-unknown-unknown") {
            assert!(
                how_to_check(wasm_js).contains("`cargo check --target wasm32-unknown-unknown --features js`"),
                "{}",
                how_to_check(wasm_js)
            );
        }
        assert!(is_host_target(&format!("{}-unknown-linux-gnu", std::env::consts::ARCH)) || std::env::consts::OS != "linux");
        assert_eq!(target_for_cfg("#[cfg(all(not(miri), not(target_os = \"linux\"), target_arch = \"aarch64\"))]"), None);
        assert_eq!(target_for_cfg("#[cfg(all(target_arch = \"aarch64\", not(miri)))]").as_deref(), Some("aarch64-unknown-linux-gnu"));
        assert_eq!(
            target_for_cfg("#[cfg(all(target_pointer_width=\"32\", target_os=\"linux\"))]").as_deref(),
            Some("i686-unknown-linux-gnu"),
            "humantime's 32-bit test (trial87 F1)"
        );
        assert_eq!(target_for_cfg("#[cfg(all(target_arch = \"x86_64\", target_feature = \"avx2\"))]"), None);
        assert_eq!(target_for_cfg("#[cfg(target_pointer_width = \"16\")]"), None);
        if is_host_target("x86_64-unknown-linux-gnu") {
            let advice = how_to_check("#[cfg(all(target_arch = \"x86_64\", target_os = \"linux\", debug_assertions))]");
            assert!(!advice.contains("--target x86_64-unknown-linux-gnu"), "the host's own triple is no advice: {advice}");
        }
        assert_eq!(target_for_cfg("#[cfg(target_arch = \"mips\")]"), None);
        assert_eq!(target_for_cfg("#[cfg(feature = \"serde\")]"), None);
        let build_script =
            how_to_check("code is inactive due to #[cfg] directives: std_backtrace is enabled and feature = \"backtrace\" is disabled");
        assert!(build_script.starts_with("it is compiled only where `std_backtrace` is NOT set"), "{build_script}");
        assert!(!build_script.contains("\"features\""), "{build_script}");
        assert!(bare_cfgs_enabled("code is inactive due to #[cfg] directives: test is enabled").is_empty());
        assert!(bare_cfgs_enabled("code is inactive due to #[cfg] directives: feature = \"std\" is enabled").is_empty());
        let next = how_to_check("code is inactive due to #[cfg] directives: target_arch = \"aarch64\" is disabled");
        assert!(next.contains("cargo check --target aarch64-unknown-linux-gnu") && next.contains("rust-analyzer.cargo.target"), "{next}");
    }

    #[test]
    fn a_rust_file_no_module_declares_is_unlinked_and_every_declared_shape_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let files = [
            ("Cargo.toml", "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\n\n[[bin]]\nname = \"tool\"\npath = \"tools/tool.rs\"\n"),
            ("src/lib.rs", "mod plain;\npub mod nested;\nmod r#ref;\n#[path = \"elsewhere/imp.rs\"]\nmod imp;\nmod inline {\n    pub mod inner;\n}\nsubmodule!(pub generated);\n"),
            ("src/plain.rs", ""),
            ("src/nested.rs", "mod deeper;\n"),
            ("src/nested/deeper.rs", ""),
            ("src/ref.rs", ""),
            ("src/elsewhere/imp.rs", ""),
            ("src/inline/inner.rs", ""),
            ("src/generated.rs", ""),
            ("src/bin/cli.rs", ""),
            ("tests/integration.rs", "mod regression {\n    automod::dir!(\"tests/regression\");\n}\n"),
            ("tests/regression/issue1.rs", ""),
            ("tools/tool.rs", ""),
            ("build.rs", ""),
            ("src/orphan.rs", "pub fn broken() -> u32 { \"text\" }\n"),
            ("src/nested/stray.rs", ""),
        ];
        for (file, text) in files {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        let unlinked: Vec<&str> = files
            .iter()
            .map(|(file, _)| *file)
            .filter(|file| unlinked_rust_file(&root, &root.join(file), "rust-analyzer").is_some())
            .collect();
        assert_eq!(unlinked, vec!["src/orphan.rs", "src/nested/stray.rs"]);
        let sentence = unlinked_rust_file(&root, &root.join("src/orphan.rs"), "rust-analyzer").unwrap();
        assert!(
            sentence.starts_with("all of src/orphan.rs is not part of any crate's module tree: no `mod orphan;` declares it"),
            "{sentence}"
        );
        assert!(sentence.contains("next step: add `mod orphan;` (or `pub mod orphan;`) to src/lib.rs"), "{sentence}");
        let stray = unlinked_rust_file(&root, &root.join("src/nested/stray.rs"), "rust-analyzer").unwrap();
        assert!(stray.contains("its parent module would be src/nested.rs"), "{stray}");
        // Once declared, it is linked.
        std::fs::write(root.join("src/lib.rs"), "mod orphan;\n").unwrap();
        assert!(unlinked_rust_file(&root, &root.join("src/orphan.rs"), "rust-analyzer").is_none());
    }

    #[test]
    fn a_statement_behind_cfg_not_of_a_default_feature_is_unanalyzed_code() {
        // textwrap 0.16.1 (trial57 M4): `#[cfg(not(feature = "unicode-linebreak"))]` on a statement,
        // the feature an optional dependency that `default` turns on.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"wrap\"\nversion = \"0.1.0\"\n\n[dependencies]\nunicode-linebreak = { version = \"0.1\", optional = true }\n\n[features]\ndefault = [\"unicode-linebreak\"]\n",
        )
        .unwrap();
        std::fs::write(
            root.join("src/lib.rs"),
            "#[test]\nfn new() {\n    #[cfg(feature = \"unicode-linebreak\")]\n    assert!(true);\n\n    #[cfg(not(feature = \"unicode-linebreak\"))]\n    assert!(matches!(1, AsciiSpace));\n}\n",
        )
        .unwrap();
        let shown = |path: &std::path::Path, line0: u32| format!("{}:{}", path.strip_prefix(&root).unwrap().display(), line0 + 1);
        let place = rust_unresolved_place(&root, &root.join("src/lib.rs"), 6, &shown).expect("behind an off gate");
        assert!(place.reason.starts_with("behind `#[cfg(not(feature = \"unicode-linebreak\"))]` at src/lib.rs:6"), "{}", place.reason);
        // The other branch is compiled: no reason.
        assert!(rust_unresolved_place(&root, &root.join("src/lib.rs"), 3, &shown).is_none());
    }

    #[test]
    fn a_module_gated_over_several_lines_is_named_with_its_cfg_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src/simd")).unwrap();
        // httparse 1.10.1 `src/simd/mod.rs:141`: `mod neon;` under a 5-line `#[cfg(all(…))]`.
        std::fs::write(
            root.join("src/simd/mod.rs"),
            "mod swar;\n\n#[cfg(all(\n    httparse_simd,\n    target_arch = \"aarch64\",\n))]\nmod neon;\n",
        )
        .unwrap();
        let neon = gating_declaration(&root, &root.join("src/simd/neon.rs")).expect("neon's gate is found");
        assert_eq!(neon.cfg, "#[cfg(all(httparse_simd, target_arch = \"aarch64\"))]");
        assert_eq!(neon.location, "src/simd/mod.rs:7");
        assert!(gating_declaration(&root, &root.join("src/simd/swar.rs")).is_none(), "an ungated module was called gated");
        assert!(gating_declaration(&root, &root.join("src/simd/absent.rs")).is_none(), "an undeclared module was called gated");
    }

    #[test]
    fn the_gate_of_a_module_around_a_file_is_found_up_the_module_chain() {
        // indexmap 2.14.2 (trial155 M1): `src/rayon/map.rs` is `pub mod map;` of
        // `src/rayon/mod.rs`, which `#[cfg(feature = "rayon")] mod rayon;` declares.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src/rayon")).unwrap();
        std::fs::create_dir_all(root.join("src/tests")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"map\"\nversion = \"0.1.0\"\n\n[features]\ndefault = [\"std\"]\nstd = []\nrayon = []\n",
        )
        .unwrap();
        std::fs::write(
            root.join("src/lib.rs"),
            "pub mod plain;\n\n#[cfg(feature = \"rayon\")]\nmod rayon;\n\n#[cfg(test)]\nmod tests;\n\n#[cfg(feature = \"std\")]\nmod with_std;\n",
        )
        .unwrap();
        std::fs::write(root.join("src/rayon/mod.rs"), "pub mod map;\n").unwrap();
        std::fs::write(root.join("src/rayon/map.rs"), "fn f() {\n    crate::plain::g();\n}\n").unwrap();
        std::fs::write(root.join("src/tests/mod.rs"), "mod deep;\n").unwrap();
        std::fs::write(root.join("src/with_std.rs"), "mod deep;\n").unwrap();
        let chain = gating_declarations_up_the_module_chain(&root, &root.join("src/rayon/map.rs"));
        assert_eq!(chain.len(), 1, "{chain:?}");
        assert_eq!(chain[0].cfg, "#[cfg(feature = \"rayon\")]");
        assert_eq!(chain[0].location, "src/lib.rs:4");
        assert_eq!(chain[0].gated_module.as_deref(), Some("src/rayon/mod.rs"));
        assert_eq!(chain[0].where_declared(), "src/lib.rs:4, which declares src/rayon/mod.rs; this file is a module inside it");
        // The gated file itself: no module around it.
        let own = gating_declarations_up_the_module_chain(&root, &root.join("src/rayon/mod.rs"));
        assert_eq!(own.len(), 1);
        assert_eq!(own[0].gated_module, None);
        assert!(gating_declarations_up_the_module_chain(&root, &root.join("src/plain.rs")).is_empty(), "an ungated module");
        // A gate that is on in rust-analyzer's configuration (`test`, a default feature) keeps
        // nothing out.
        assert!(off_gating_declaration_up_the_module_chain(&root, &root.join("src/tests/deep.rs")).is_none());
        assert!(off_gating_declaration_up_the_module_chain(&root, &root.join("src/with_std/deep.rs")).is_none());
        let (off, _) = off_gating_declaration_up_the_module_chain(&root, &root.join("src/rayon/map.rs")).expect("the rayon gate");
        assert_eq!(off.cfg, "#[cfg(feature = \"rayon\")]");
        // The rename's reason names it, with the check that compiles the file.
        let shown = |path: &std::path::Path, line0: u32| format!("{}:{}", path.strip_prefix(&root).unwrap().display(), line0 + 1);
        let place = rust_unresolved_place(&root, &root.join("src/rayon/map.rs"), 1, &shown).expect("behind the rayon gate");
        assert!(
            place
                .reason
                .starts_with("in a module declared under `#[cfg(feature = \"rayon\")]` (src/lib.rs:4, which declares src/rayon/mod.rs;"),
            "{}",
            place.reason
        );
        assert_eq!(place.features, vec!["rayon".to_owned()]);
        let hint = rust_unanalyzed_hint(&root, &[(root.join("src/rayon/map.rs"), 1)], &shown);
        assert!(hint.contains("`#[cfg(feature = \"rayon\")]` (src/lib.rs:4") && hint.contains("\"features\": [\"rayon\"]"), "{hint}");
    }

    #[test]
    fn the_unanalyzed_hint_names_macro_template_places_apart_from_cfg_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("lib.rs"), "macro_rules! m {\n    () => { helper() };\n}\n#[cfg(feature = \"x\")]\nfn g() { helper() }\n")
            .unwrap();
        let shown = |path: &std::path::Path, line0: u32| format!("{}:{}", path.file_name().unwrap().to_string_lossy(), line0 + 1);
        let all_macro = rust_unanalyzed_hint(&root, &[(root.join("lib.rs"), 1)], &shown);
        assert!(all_macro.contains("inside a `macro_rules!` body") && !all_macro.contains("#[cfg]"), "{all_macro}");
        let none_macro = rust_unanalyzed_hint(&root, &[(root.join("lib.rs"), 4)], &shown);
        // The gate is named, with the check that compiles the code (trial155 M1).
        let gate = "behind `#[cfg(feature = \"x\")]` at lib.rs:4, which rust-analyzer's configuration leaves off: check with";
        assert!(none_macro.contains(gate) && !none_macro.contains("macro_rules"), "{none_macro}");
        let mixed = rust_unanalyzed_hint(&root, &[(root.join("lib.rs"), 1), (root.join("lib.rs"), 4)], &shown);
        assert!(
            mixed.contains("1 of them — lib.rs:2 — inside a `macro_rules!` body")
                && mixed.contains(&format!("1 of them — lib.rs:5 — {gate}")),
            "{mixed}"
        );
        // A place no gate explains: the generic reason.
        std::fs::write(root.join("other.rs"), "fn h() { helper() }\n").unwrap();
        let mixed = rust_unanalyzed_hint(&root, &[(root.join("lib.rs"), 1), (root.join("other.rs"), 0)], &shown);
        assert!(mixed.contains("for the others, rust-analyzer does not analyze code behind a `#[cfg]` that is off"), "{mixed}");
    }

    #[test]
    fn the_unanalyzed_hint_names_active_macro_invocation_places_as_compiled_code() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        // httparse 1.10.1's shape: `expect!(bytes.next() == …)` whose pattern spells `.next()`.
        let source = "macro_rules! expect {\n    ($bytes:ident.next() == $pat:pat => $ret:expr) => {\n        match $bytes.next() { Some($pat) => (), _ => return $ret }\n    };\n}\nfn parse(bytes: &mut std::slice::Iter<'_, u8>) -> Result<(), ()> {\n    expect!(bytes.next() == b'H' => Err(()));\n    Ok(())\n}\n#[cfg(feature = \"x\")]\nfn gated(bytes: &mut std::slice::Iter<'_, u8>) -> Result<(), ()> {\n    expect!(bytes.next() == b'H' => Err(()));\n    Ok(())\n}\n";
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"shape\"\nversion = \"0.1.0\"\n").unwrap();
        std::fs::create_dir_all(root.join("src/simd")).unwrap();
        std::fs::write(root.join("src/lib.rs"), format!("{source}mod simd;\n")).unwrap();
        // A module file declared under a cfg that is off (attribute over several lines), and one
        // no module declares: their invocations are not compiled code.
        std::fs::write(
            root.join("src/simd/mod.rs"),
            "#[cfg(all(\n    feature = \"neon\",\n    target_arch = \"aarch64\",\n))]\nmod neon;\n",
        )
        .unwrap();
        let invocation = "fn parse(bytes: &mut std::slice::Iter<'_, u8>) -> Result<(), ()> {\n    expect!(bytes.next() == b'H' => Err(()));\n    Ok(())\n}\n";
        std::fs::write(root.join("src/simd/neon.rs"), invocation).unwrap();
        std::fs::write(root.join("src/orphan.rs"), invocation).unwrap();
        let root = root.join("src");
        let shown = |path: &std::path::Path, line0: u32| format!("{}:{}", path.file_name().unwrap().to_string_lossy(), line0 + 1);
        let hint = rust_unanalyzed_hint(&root, &[(root.join("simd/neon.rs"), 1)], &shown);
        assert!(
            hint.contains("in a module declared under `#[cfg(all(feature = \"neon\", target_arch = \"aarch64\"))]` (simd/mod.rs:5)")
                && !hint.contains("macro invocation"),
            "{hint}"
        );
        let hint = rust_unanalyzed_hint(&root, &[(root.join("orphan.rs"), 1)], &shown);
        assert!(hint.contains("behind a `#[cfg]` that is off") && !hint.contains("macro invocation"), "{hint}");
        let only_invocation = rust_unanalyzed_hint(&root, &[(root.join("lib.rs"), 6)], &shown);
        assert!(
            only_invocation.contains("in the arguments of a macro invocation, compiled code")
                && !only_invocation.contains("#[cfg]` that is off"),
            "{only_invocation}"
        );
        let all = rust_unanalyzed_hint(&root, &[(root.join("lib.rs"), 2), (root.join("lib.rs"), 6), (root.join("lib.rs"), 11)], &shown);
        assert!(all.contains("1 of them — lib.rs:3 — inside a `macro_rules!` body"), "{all}");
        assert!(all.contains("1 of them — lib.rs:7 — in the arguments of a macro invocation"), "{all}");
        assert!(all.contains("1 of them — lib.rs:12 — behind `#[cfg(feature = \"x\")]` at lib.rs:10"), "{all}");
    }

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
        let path = std::path::Path::new("/w/src/lib.rs");
        assert_eq!(collapse_rust_analyzer_repeats(path, &mut all), 2);
        let left: Vec<(u64, &str)> = all.iter().map(|d| (u64::from(d.range.start.line), d.source.as_deref().unwrap())).collect();
        assert_eq!(left, vec![(3, "rustc"), (7, "rust-analyzer"), (9, "rustc")]);
    }

    #[test]
    fn a_rust_analyzer_arg_count_error_on_the_closing_line_of_a_call_is_rustc_e0061_of_its_callee() {
        // rust-analyzer 2025 and rustc on `f(\n 1,\n 2,\n )` (trial43 M2): rustc's E0061 starts at
        // `f` (0-based line 3) with a related span over the arguments (lines 3–6) and a related
        // `function defined here` in another file; rust-analyzer's E0107 is on the `)` line (6).
        let related = |file: &str, start: u32, end: u32| json!({"location": {"uri": format!("file://{file}"), "range": {"start": {"line": start, "character": 5}, "end": {"line": end, "character": 5}}}, "message": "argument #3 of type `bool` is missing"});
        let rustc = json!({"range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 5}}, "severity": 1, "code": "E0061", "source": "rustc", "message": "this function takes 3 arguments but 2 arguments were supplied",
            "relatedInformation": [related("/w/src/lib.rs", 3, 6), related("/w/src/other.rs", 10, 20)]});
        let native = |line: u32| json!({"range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 5}}, "severity": 1, "code": "E0107", "source": "rust-analyzer", "message": "expected 3 arguments, found 2"});
        let mut all: Vec<Diagnostic> =
            [rustc, native(6), native(15)].into_iter().map(|value| serde_json::from_value(value).unwrap()).collect();
        assert_eq!(collapse_rust_analyzer_repeats(std::path::Path::new("/w/src/lib.rs"), &mut all), 1);
        let left: Vec<u32> = all.iter().map(|d| d.range.start.line).collect();
        assert_eq!(left, vec![3, 15], "line 15 is covered only by a span in another file");
    }
}
