//! Rust module files that the current configuration does not compile, found by evaluating the
//! `#[cfg(…)]` on the `mod` items that declare them, and the uses of a write's changed items in
//! them (trial28 M3: after `Bytes::advance` got a second parameter in httparse 1.10.1, the 3
//! `bytes.advance(advance)` calls of `src/simd/neon.rs` — declared under
//! `#[cfg(all(httparse_simd, target_arch = "aarch64", httparse_simd_neon_intrinsics))]` — broke
//! the aarch64 build and no answer named them; rust-analyzer publishes nothing for a file it does
//! not analyze, so nothing else would).
//!
//! A gate counts as off only when it is *known* off on this host: the cfg is evaluated with
//! `cfg-expr` three-valued (`Option<bool>`) — `target_*`, `unix`, `windows` against the host
//! target, `test` and `debug_assertions` on (a `cargo check --all-targets` compiles both),
//! `feature = "…"` against the package's `default` features, and anything else (a cfg a build
//! script sets, a target feature, `proc_macro`) unknown. Unknown never counts as off.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use cfg_expr::{Expression, Predicate};

use crate::lsp::inactive::{gating_declaration, GatingDeclaration};

/// At most this many `.rs` files of a package's `src/` are read per write: 3,000.
const MAX_FILES_READ: usize = 3_000;

/// How deep a module file may sit below `src/` for its ancestors' gates to be read: 8 levels.
const MAX_MODULE_DEPTH: usize = 8;

/// Code the current configuration does not compile that names a changed item: a whole file (a
/// module file behind a gated `mod`, a file under its own `#![cfg(…)]`, a target cargo skips for
/// its `required-features`) or lines of a file behind a `#[cfg(…)]` that is off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CfgOffModuleUses {
    /// Absolute path of the file.
    pub(crate) path: PathBuf,
    /// The sentence for the answer: which lines use which changed items, the gate and where it
    /// is declared, that no check of this configuration shows their errors, the next step.
    pub(crate) reason: String,
    /// The whole file is out of the build; `false`: only the lines named are (the rest of the
    /// file was compiled).
    pub(crate) whole_file: bool,
}

/// What [`cfg_off_module_uses`] found, and what it left unread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CfgOffScan {
    /// The files with uses, sorted by path.
    pub(crate) found: Vec<CfgOffModuleUses>,
    /// `.rs` files left unread for the file cap ([`MAX_FILES_READ`] per package).
    pub(crate) not_read_for_cap: usize,
    /// `.rs` files left unread because the scan's time share ran out.
    pub(crate) not_read_for_time: usize,
}

/// The directories of a package whose `.rs` files cargo builds by its layout conventions: the
/// library and binaries (`src/`), and the test, bench and example targets.
const TARGET_DIRECTORIES: [&str; 4] = ["src", "tests", "benches", "examples"];

/// The files of the packages of `written` (absolute Rust paths, read beneath `workspace_root`),
/// other than `skip` and the written ones, whose code that the current configuration does not
/// compile uses one of `changed_items` (names from
/// [`crate::lsp::inactive::changed_rust_item_names_in_write`]; a macro's name ends in `!`) in
/// code, not in comments — a grep of the name, not a resolution:
///
/// - module files under `src/` whose `mod` item (or one around it) is behind a known-off gate;
/// - files under `src/`, `tests/`, `benches/` and `examples/` with their own `#![cfg(…)]` off,
///   and the files of targets cargo skips because their `required-features` are not among the
///   default features (trial159 F1: arrayvec's `tests/borsh.rs`, under
///   `#![cfg(feature = "borsh")]`, called the deleted `from_byte_string` and the write said
///   "checked: … the whole cargo workspace");
/// - the lines of any other such file behind a `#[cfg(…)]` that is off (whole file unread by the
///   server: rust-analyzer marks inactive code only in the files it has open).
///
/// At most [`MAX_FILES_READ`] files are read per package, none after `until`; the scan says how
/// many it left.
pub(crate) fn cfg_off_module_uses(
    workspace_root: &Path,
    written: &[PathBuf],
    changed_items: &[String],
    skip: &HashSet<PathBuf>,
    server_id: &str,
    until: std::time::Instant,
) -> CfgOffScan {
    let mut scan = CfgOffScan::default();
    if changed_items.is_empty() {
        return scan;
    }
    let mut packages: Vec<PathBuf> = written.iter().filter_map(|path| package_root(workspace_root, path)).collect();
    packages.sort();
    packages.dedup();
    for package in packages {
        let source_dir = package.join("src");
        let default_features = default_features(workspace_root, &package);
        let targets = targets_with_required_features(workspace_root, &package, default_features.as_ref());
        let mut gates = HashMap::new();
        let skipped = &|path: &Path| {
            skip.contains(path)
                || written.iter().any(|written| written == path)
                // A file of a nested package is that package's.
                || package_root(workspace_root, path).as_deref() != Some(package.as_path())
        };
        let mut read = 0usize;
        let (mut not_read_for_cap, mut not_read_for_time) = (0usize, 0usize);
        for directory in TARGET_DIRECTORIES {
            let directory = package.join(directory);
            if !directory.is_dir() {
                continue;
            }
            not_read_for_cap += for_each_rust_file(workspace_root, &directory, skipped, |path| {
                read += 1;
                if read > MAX_FILES_READ {
                    not_read_for_cap += 1;
                    return;
                }
                if std::time::Instant::now() >= until {
                    not_read_for_time += 1;
                    return;
                }
                let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, path) else { return };
                if !changed_items.iter().any(|name| text.contains(name.trim_end_matches('!'))) {
                    return;
                }
                let shown = path.strip_prefix(workspace_root).unwrap_or(path).display().to_string();
                let whole_file = |cfg: String| crate::lsp::inactive::InactiveRange { start_line: 1, end_line: u32::MAX, message: cfg };
                // A target cargo skips for its required features.
                if let Some(target) = targets.iter().find(|target| target.holds(path)) {
                    let uses = crate::lsp::inactive::inactive_uses(&[whole_file(String::new())], &text, changed_items);
                    if !uses.is_empty() {
                        let sentence = required_features_sentence(server_id, &shown, target, &uses);
                        scan.found.push(CfgOffModuleUses { path: path.to_path_buf(), reason: sentence, whole_file: true });
                    }
                    return;
                }
                // A module file behind a gated `mod` (the library's and binaries' sources).
                if path.starts_with(&source_dir) {
                    if let Some(gate) = module_gates(workspace_root, &source_dir, path, &mut gates)
                        .into_iter()
                        .find(|gate| evaluate_cfg_attribute(&gate.cfg, default_features.as_ref()) == Some(false))
                    {
                        let uses = crate::lsp::inactive::inactive_uses(&[whole_file(gate.cfg.clone())], &text, changed_items);
                        if !uses.is_empty() {
                            let sentence = uses_sentence(server_id, &shown, &gate, &uses);
                            scan.found.push(CfgOffModuleUses { path: path.to_path_buf(), reason: sentence, whole_file: true });
                        }
                        return;
                    }
                }
                // The file's own `#![cfg(…)]`, or lines behind a `#[cfg(…)]`, that is off.
                let gated = off_cfg_regions(&text, default_features.as_ref());
                let uses = gated_uses(&text, &gated, changed_items);
                if uses.is_empty() {
                    return;
                }
                let whole = gated.first().is_some_and(|region| region.inner);
                let sentence = gated_uses_sentence(server_id, &shown, &uses, whole);
                scan.found.push(CfgOffModuleUses { path: path.to_path_buf(), reason: sentence, whole_file: whole });
            });
        }
        scan.not_read_for_cap += not_read_for_cap;
        scan.not_read_for_time += not_read_for_time;
    }
    scan.found.sort_by(|a, b| a.path.cmp(&b.path));
    scan
}

/// A test, bench, example or binary target cargo skips in a check with the default features:
/// its `required-features` (Cargo.toml `[[test]]`, `[[bench]]`, `[[example]]`, `[[bin]]`) are not
/// all among them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SkippedTarget {
    /// `test`, `bench`, `example` or `bin`.
    kind: &'static str,
    /// The target's name.
    name: String,
    /// Its root file (absolute).
    root: PathBuf,
    /// The required features the default features lack.
    missing: Vec<String>,
}

impl SkippedTarget {
    /// Whether `path` is this target's code: its root, or a file below the root's directory when
    /// the root is a `main.rs` in a directory of its own (`tests/it/main.rs`).
    fn holds(&self, path: &Path) -> bool {
        if path == self.root {
            return true;
        }
        let own_directory =
            self.root.file_name().is_some_and(|name| name == "main.rs")
                && self.root.parent().and_then(Path::parent).is_some_and(|above| {
                    TARGET_DIRECTORIES.iter().any(|directory| above.ends_with(directory)) || above.ends_with("src/bin")
                });
        own_directory && self.root.parent().is_some_and(|directory| path.starts_with(directory))
    }
}

/// The targets of `package` that cargo skips with `default_features` on (see [`SkippedTarget`]);
/// a target without `path` is found where cargo looks for it (`tests/NAME.rs`,
/// `tests/NAME/main.rs`, `src/bin/NAME.rs`, …). Empty when the manifest does not parse.
fn targets_with_required_features(workspace_root: &Path, package: &Path, default_features: Option<&HashSet<String>>) -> Vec<SkippedTarget> {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &package.join("Cargo.toml")) else { return Vec::new() };
    let Ok(document) = toml_edit::Document::parse(text) else { return Vec::new() };
    let mut targets = Vec::new();
    for (key, kind, directory) in
        [("test", "test", "tests"), ("bench", "bench", "benches"), ("example", "example", "examples"), ("bin", "bin", "src/bin")]
    {
        let Some(entries) = document.get(key).and_then(|item| item.as_array_of_tables()) else { continue };
        for entry in entries.iter() {
            let Some(required) = entry.get("required-features").and_then(|item| item.as_array()) else { continue };
            let missing: Vec<String> = required
                .iter()
                .filter_map(|value| value.as_str())
                .filter(|feature| default_features.is_none_or(|enabled| !enabled.contains(*feature)))
                .map(str::to_owned)
                .collect();
            if missing.is_empty() {
                continue;
            }
            let name = entry.get("name").and_then(|item| item.as_str()).unwrap_or("").to_owned();
            let root = match entry.get("path").and_then(|item| item.as_str()) {
                Some(path) => crate::files::path::lexically_normal(&package.join(path)),
                None if name.is_empty() => continue,
                None => {
                    let flat = package.join(directory).join(format!("{name}.rs"));
                    if flat.is_file() {
                        flat
                    } else {
                        package.join(directory).join(&name).join("main.rs")
                    }
                }
            };
            targets.push(SkippedTarget { kind, name, root, missing });
        }
    }
    targets
}

/// A region of a Rust file behind a `#[cfg(…)]` that is off with the default features.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OffRegion {
    /// The attribute on one line.
    cfg: String,
    /// 1-based line of the attribute.
    line: u32,
    /// 1-based last line of the gated item (the file's last for an inner attribute).
    last: u32,
    /// The file's own `#![cfg(…)]`.
    inner: bool,
}

/// The regions of Rust `text` behind a `#[cfg(…)]` (an item's outer attribute, or the file's own
/// `#![cfg(…)]`, first) that is known off with `features` on (see [`evaluate_cfg_attribute`]).
fn off_cfg_regions(text: &str, features: Option<&HashSet<String>>) -> Vec<OffRegion> {
    use ast_grep_core::tree_sitter::StrDoc;
    let Ok(grep) = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text, ast_grep_language::SupportLang::Rust)
    else {
        return Vec::new();
    };
    let source_of = |node: &tree_sitter::Node<'_>| text.get(node.byte_range()).unwrap_or("").to_owned();
    let is_cfg = |attribute: &str, prefix: &str| attribute.chars().filter(|c| !c.is_whitespace()).collect::<String>().starts_with(prefix);
    let mut regions = Vec::new();
    let root = grep.root().get_inner_node();
    let last_line = text.lines().count().max(1) as u32;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<_> = node.named_children(&mut cursor).collect();
        for (index, child) in children.iter().enumerate() {
            let attribute = source_of(child);
            let off =
                |attribute: &str| evaluate_cfg_attribute(&crate::lsp::inactive::one_line_attribute(attribute), features) == Some(false);
            if child.kind() == "inner_attribute_item" && node.kind() == "source_file" && is_cfg(&attribute, "#![cfg(") && off(&attribute) {
                let line = child.start_position().row as u32 + 1;
                regions
                    .insert(0, OffRegion { cfg: crate::lsp::inactive::one_line_attribute(&attribute), line, last: last_line, inner: true });
                continue;
            }
            if child.kind() != "attribute_item" || !is_cfg(&attribute, "#[cfg(") || !off(&attribute) {
                continue;
            }
            let Some(item) =
                children[index + 1..].iter().find(|next| !matches!(next.kind(), "attribute_item" | "line_comment" | "block_comment"))
            else {
                continue;
            };
            regions.push(OffRegion {
                cfg: crate::lsp::inactive::one_line_attribute(&attribute),
                line: child.start_position().row as u32 + 1,
                last: item.end_position().row as u32 + 1,
                inner: false,
            });
        }
        stack.extend(children);
    }
    regions
}

/// The uses of `names` in `text` on the lines of `regions` (see [`crate::lsp::inactive::inactive_uses`]),
/// each with the outermost region around it as its gate.
fn gated_uses(text: &str, regions: &[OffRegion], names: &[String]) -> Vec<crate::lsp::inactive::InactiveUse> {
    if regions.is_empty() {
        return Vec::new();
    }
    let mut uses = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index as u32 + 1;
        // The widest region around the line: the gate that keeps it out.
        let Some(region) =
            regions.iter().filter(|region| (region.line..=region.last).contains(&number)).max_by_key(|region| region.last - region.line)
        else {
            continue;
        };
        let Some(name) = crate::lsp::inactive::changed_name_used(line, names) else { continue };
        uses.push(crate::lsp::inactive::InactiveUse {
            line: number,
            name: name.clone(),
            features: crate::lsp::inactive::disabled_features(&region.cfg),
            cfg: Some((region.cfg.clone(), region.line)),
        });
    }
    uses
}

/// The next step for code compiled only with `features` on (and `features_off` off): one
/// `lsp diagnostics "*"` call and the cargo command with `--all-targets` (a test, bench or example
/// is compiled only with it), or, for a gate no feature selection turns on, how to enable it.
fn all_targets_next_step(features: &[String], gate: &str) -> String {
    let features_off = crate::lsp::inactive::features_needed_off(gate);
    if features.is_empty() || !features_off.is_empty() {
        return crate::lsp::inactive::how_to_check(gate);
    }
    let quoted: Vec<String> = features.iter().map(|feature| format!("\"{feature}\"")).collect();
    format!(
        "check {} with {{\"op\": \"diagnostics\", \"file\": \"*\", \"features\": [{}]}} (`cargo check --all-targets --features {}`; or {{\"op\": \"diagnostics\", \"file\": \"*\", \"all_features\": true}})",
        if features.len() == 1 { "it" } else { "them all" },
        quoted.join(", "),
        features.join(",")
    )
}

/// The lines of `uses` as `line 3 names `f``, at most 8, and the count of the rest.
fn listed_uses(uses: &[crate::lsp::inactive::InactiveUse], with_gate: bool) -> String {
    const LISTED: usize = 8;
    let shown: Vec<String> = uses
        .iter()
        .take(LISTED)
        .map(|found| match (&found.cfg, with_gate) {
            (Some((attribute, line)), true) => format!("line {} names `{}` (under `{attribute}` at line {line})", found.line, found.name),
            _ => format!("line {} names `{}`", found.line, found.name),
        })
        .collect();
    let more = if uses.len() > LISTED { format!(" and {} more", uses.len() - LISTED) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// The changed names `uses` name, quoted, sorted, no repeats.
fn names_used(uses: &[crate::lsp::inactive::InactiveUse]) -> String {
    let mut names: Vec<&str> = uses.iter().map(|found| found.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
}

/// The sentence for a file (`whole`: under its own `#![cfg(…)]`) or the lines of one behind a
/// `#[cfg(…)]` that is off, that name changed items.
fn gated_uses_sentence(server_id: &str, file: &str, uses: &[crate::lsp::inactive::InactiveUse], whole: bool) -> String {
    let mut features: Vec<String> = Vec::new();
    let mut gates: Vec<String> = Vec::new();
    for found in uses {
        for feature in &found.features {
            if !features.contains(feature) {
                features.push(feature.clone());
            }
        }
        if let Some((gate, _)) = &found.cfg {
            if !gates.contains(gate) {
                gates.push(gate.clone());
            }
        }
    }
    let next = all_targets_next_step(&features, &gates.join(" "));
    if whole {
        let (gate, line) = uses[0].cfg.clone().unwrap_or_default();
        format!(
            "code that uses {} (changed by this write) is not compiled in the current configuration: {file} is gated by its own `{gate}` ({file}:{line}), which is off here, so {server_id} and cargo check cannot show its errors: {} (a word search: check that they mean the changed item); {next}",
            names_used(uses),
            listed_uses(uses, false)
        )
    } else {
        format!(
            "code that uses {} (changed by this write) is not compiled in the current configuration, so {server_id} and cargo check cannot show its errors: {} of {file} (a word search: check that they mean the changed item); {next}",
            names_used(uses),
            listed_uses(uses, true)
        )
    }
}

/// The sentence for a file of a target cargo skips for its required features.
fn required_features_sentence(server_id: &str, file: &str, target: &SkippedTarget, uses: &[crate::lsp::inactive::InactiveUse]) -> String {
    let quoted: Vec<String> = target.missing.iter().map(|feature| format!("\"{feature}\"")).collect();
    format!(
        "code that uses {} (changed by this write) is not compiled in the current configuration: {file} belongs to the {} target `{}`, which Cargo.toml builds only with required-features [{}] (off here: cargo check skips the target), so {server_id} and cargo check cannot show its errors: {} (a word search: check that they mean the changed item); {}",
        names_used(uses),
        target.kind,
        target.name,
        quoted.join(", "),
        listed_uses(uses, false),
        all_targets_next_step(&target.missing, "")
    )
}

/// A module file of a workspace member that no target of a cargo check compiled: its `mod`
/// item (or one around it) is under a `#[cfg]` off in that check for a reason other than a
/// feature (see [`modules_not_compiled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleNotCompiled {
    /// Absolute path of the module file.
    pub path: PathBuf,
    /// The gate, on one line: `#[cfg(all(httparse_simd, target_arch = "aarch64"))]`.
    pub cfg: String,
    /// Where the gated `mod` item is: `src/simd/mod.rs:146`.
    pub declared_at: String,
    /// The gate is off whatever cfgs a build script sets (another target: httparse's
    /// `neon.rs` on x86_64); `false` when it is off because the build script did not set one.
    pub off_whatever_build_scripts_set: bool,
}

impl ModuleNotCompiled {
    /// `src/simd/neon.rs (its `mod` at src/simd/mod.rs:146 is under `#[cfg(…)]`: another
    /// target)`, the module file shown by `shown`.
    pub fn render(&self, shown: impl Fn(&Path) -> String) -> String {
        let why = if self.off_whatever_build_scripts_set { "another target" } else { "a cfg the build script did not set" };
        format!("{} (its `mod` at {} is under `{}`: {why})", shown(&self.path), self.declared_at, self.cfg)
    }
}

/// The cfgs cargo's build scripts set in a check, by package id, from the
/// `build-script-executed` messages of its `--message-format=json` stdout (cargo replays them
/// for fresh build scripts too): `path+file:///…#httparse@1.10.1` → `["httparse_simd", …]`
/// (a `key="value"` cfg as given).
pub(crate) fn build_script_cfgs_set(cargo_stdout: &str) -> std::collections::HashMap<String, Vec<String>> {
    let mut set = std::collections::HashMap::new();
    for line in cargo_stdout.lines().filter(|line| line.contains("\"build-script-executed\"")) {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let (Some(package_id), Some(cfgs)) = (message["package_id"].as_str(), message["cfgs"].as_array()) else { continue };
        set.insert(package_id.to_owned(), cfgs.iter().filter_map(|cfg| cfg.as_str().map(str::to_owned)).collect());
    }
    set
}

/// The module files of the packages at `package_dirs` (their `src/`, read beneath
/// `workspace_root`, at most [`MAX_FILES_READ`] each) that a cargo check did not compile: a gate
/// on their `mod` item or one around it is off, evaluated with the host target,
/// `test`/`debug_assertions` on, and the custom cfgs of `build_script_cfgs` (by package id, as
/// [`build_script_cfgs_set`] reads them): a package whose build script ran sets exactly those,
/// one without a build script sets none (unless `RUSTFLAGS` passes `--cfg`); features count as
/// unknown (the check's feature report names feature-gated code). Sorted by path. Also returns
/// how many `.rs` files were left unread for the cap (0 normally), for the answer to say.
pub(crate) fn modules_not_compiled(
    workspace_root: &Path,
    package_dirs: &[PathBuf],
    build_script_cfgs: &std::collections::HashMap<String, Vec<String>>,
) -> (Vec<ModuleNotCompiled>, usize) {
    let mut files_not_read = 0usize;
    let rustflags_set_cfgs = std::env::var("RUSTFLAGS").is_ok_and(|flags| flags.contains("--cfg"));
    let mut found = Vec::new();
    for package in package_dirs {
        let source_dir = package.join("src");
        // The package's build-script cfgs: from its `build-script-executed` message (the id
        // names its directory), none without a build script, unknown otherwise.
        let package_url = format!("path+file://{}#", package.display());
        let custom: Option<Vec<String>> = match build_script_cfgs.iter().find(|(id, _)| id.starts_with(&package_url)) {
            Some((_, cfgs)) => Some(cfgs.clone()),
            None if !package.join("build.rs").is_file() && !rustflags_set_cfgs => Some(Vec::new()),
            None => None,
        };
        let mut gates = HashMap::new();
        files_not_read += for_each_rust_file(
            workspace_root,
            &source_dir,
            |_| false,
            |path| {
                let off = module_gates(workspace_root, &source_dir, path, &mut gates)
                    .into_iter()
                    .find(|gate| evaluate_cfg_with(&gate.cfg, None, custom.as_deref()) == Some(false));
                if let Some(gate) = off {
                    let off_whatever_build_scripts_set = evaluate_cfg_with(&gate.cfg, None, None) == Some(false);
                    found.push(ModuleNotCompiled {
                        path: path.to_path_buf(),
                        cfg: gate.cfg,
                        declared_at: gate.location,
                        off_whatever_build_scripts_set,
                    });
                }
            },
        );
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    (found, files_not_read)
}

/// Targets with a standard library that a `cargo check --target` is suggested for, in the order
/// one is preferred when several turn a gate on (Windows first: the commonest gate).
const SUGGESTED_TARGETS: &[&str] = &[
    "x86_64-pc-windows-gnu",
    "x86_64-pc-windows-msvc",
    "aarch64-apple-darwin",
    "x86_64-apple-darwin",
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "i686-unknown-linux-gnu",
    "wasm32-unknown-unknown",
    "wasm32-wasip1",
    "x86_64-unknown-freebsd",
    "aarch64-linux-android",
    "armv7-unknown-linux-gnueabihf",
    "riscv64gc-unknown-linux-gnu",
    "powerpc64le-unknown-linux-gnu",
    "s390x-unknown-linux-gnu",
    "x86_64-unknown-netbsd",
    "x86_64-unknown-illumos",
    "aarch64-apple-ios",
];

/// One item behind a `#[cfg(…)]` (or a file's own `#![cfg(…)]`) that is off on this host
/// because of the target, whatever the features and build-script cfgs (see
/// [`items_behind_off_target_cfgs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetGatedItem {
    /// 1-based line of the attribute.
    pub line: u32,
    /// 1-based last line of the gated item (the file's last for a file's own `#![cfg(…)]`).
    pub last: u32,
    /// The gate, on one line: `#[cfg(windows)]`.
    pub cfg: String,
    /// Target triples that turn the gate on (from [`SUGGESTED_TARGETS`] in its order, else the
    /// first of `cfg-expr`'s built-in targets that does); never empty.
    pub targets: Vec<String>,
}

/// A file of a workspace member with items behind target gates that are off on this host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetGatedFile {
    /// Absolute path.
    pub path: PathBuf,
    /// The outermost gated items (a gated item inside another is not counted), by line.
    pub items: Vec<TargetGatedItem>,
}

/// The items of the packages at `package_dirs` (their `.rs` files under `src/`, `tests/`,
/// `benches/`, `examples/`, read beneath `workspace_root`, at most [`MAX_FILES_READ`] per
/// directory; the files in `skip` — module files already reported whole as not compiled — left
/// out) that no check on this host compiles because a `#[cfg(…)]` on them is off for the target:
/// off with the host target whatever the features and build-script cfgs are (those are unknown
/// here), and on for some other target (`#[cfg(windows)]`, `#[cfg(not(any(unix, windows)))]`;
/// `#[cfg(not(test))]` is on for no target and is not counted). A `cargo check` of every
/// feature still says nothing of them (trial167 F2: walkdir's `"*"` said "0 errors" while
/// `cargo check --target x86_64-pc-windows-gnu` failed at src/lib.rs:1064). Sorted by path; also
/// returns how many `.rs` files were left unread for the cap.
pub(crate) fn items_behind_off_target_cfgs(
    workspace_root: &Path,
    package_dirs: &[PathBuf],
    skip: &HashSet<PathBuf>,
) -> (Vec<TargetGatedFile>, usize) {
    let mut files_not_read = 0usize;
    let mut found = Vec::new();
    // Per gate text, the targets that turn it on (`None`: it is no target gate).
    let mut targets_of: HashMap<String, Option<Vec<String>>> = HashMap::new();
    for package in package_dirs {
        for directory in TARGET_DIRECTORIES {
            files_not_read += for_each_rust_file(
                workspace_root,
                &package.join(directory),
                |path| skip.contains(path),
                |path| {
                    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, path) else { return };
                    if !text.contains("cfg") {
                        return;
                    }
                    let mut regions = off_cfg_regions(&text, None);
                    regions.sort_by_key(|region| (region.line, std::cmp::Reverse(region.last)));
                    let lines: Vec<&str> = text.lines().collect();
                    let mut items: Vec<TargetGatedItem> = Vec::new();
                    for region in regions {
                        if items.iter().any(|item| item.line <= region.line && region.last <= item.last) {
                            continue;
                        }
                        // A gated `mod NAME;`: its file is a module not compiled, said as such
                        // ([`modules_not_compiled`]), not counted again here.
                        let item_end = lines.get(region.last as usize - 1).map(|line| line.trim()).unwrap_or("");
                        if !region.inner && item_end.ends_with(';') && item_end.split_whitespace().any(|word| word == "mod") {
                            continue;
                        }
                        let targets = targets_of.entry(region.cfg.clone()).or_insert_with(|| targets_turning_on(&region.cfg)).clone();
                        if let Some(targets) = targets {
                            items.push(TargetGatedItem { line: region.line, last: region.last, cfg: region.cfg, targets });
                        }
                    }
                    if !items.is_empty() {
                        found.push(TargetGatedFile { path: path.to_path_buf(), items });
                    }
                },
            );
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found.dedup_by(|a, b| a.path == b.path);
    (found, files_not_read)
}

/// The targets that turn on a gate that is off on this host (see [`TargetGatedItem::targets`]):
/// evaluated per target with `test`/`debug_assertions` on and features, build-script cfgs and
/// target features unknown (unknown is not off). `None` when no target turns it on.
pub(crate) fn targets_turning_on(attribute: &str) -> Option<Vec<String>> {
    let expression = parse_cfg_attribute(attribute)?;
    let not_off = |target: &cfg_expr::targets::TargetInfo| {
        expression.eval(|predicate| match predicate {
            Predicate::Target(predicate) => Some(predicate.matches(target)),
            Predicate::Test | Predicate::DebugAssertions => Some(true),
            _ => None,
        }) != Some(false)
    };
    let host = host_target().map(|host| host.triple.as_str());
    let suggested: Vec<String> = SUGGESTED_TARGETS
        .iter()
        .filter(|triple| Some(**triple) != host)
        .filter(|triple| cfg_expr::targets::get_builtin_target_by_triple(triple).is_some_and(&not_off))
        .map(|triple| (*triple).to_owned())
        .collect();
    if !suggested.is_empty() {
        return Some(suggested);
    }
    cfg_expr::targets::ALL_BUILTINS
        .iter()
        .find(|target| Some(target.triple.as_str()) != host && not_off(target))
        .map(|target| vec![target.triple.as_str().to_owned()])
}

/// The `cargo check --target` steps that compile `files`' gated items, fewest first: each step
/// a target and the number of items it turns on that no earlier step did, installed targets
/// (`installed(triple)`: `Some(true)` installed, `Some(false)` not, `None` unknown) chosen
/// before others, then the target turning on the most items. At most `cap` steps; the items no
/// step reaches are counted by the caller from the sum.
pub(crate) fn target_check_steps(
    files: &[TargetGatedFile],
    installed: impl Fn(&str) -> Option<bool>,
    cap: usize,
) -> Vec<(String, usize, Option<bool>)> {
    let mut left: Vec<&TargetGatedItem> = files.iter().flat_map(|file| &file.items).collect();
    let mut steps = Vec::new();
    while !left.is_empty() && steps.len() < cap {
        let mut candidates: Vec<&String> = left.iter().flat_map(|item| &item.targets).collect();
        candidates.sort();
        candidates.dedup();
        let reach = |triple: &str| left.iter().filter(|item| item.targets.iter().any(|target| target == triple)).count();
        // Installed first, then most items, then the host's OS (an `aarch64` gate on x86_64
        // Linux: aarch64 Linux), then the suggested order.
        let order = |triple: &str| SUGGESTED_TARGETS.iter().position(|known| *known == triple).unwrap_or(usize::MAX);
        let host_os = host_target().and_then(|host| host.os.as_ref().map(|os| os.as_str().to_owned()));
        let same_os = |triple: &str| {
            cfg_expr::targets::get_builtin_target_by_triple(triple).and_then(|target| target.os.as_ref().map(|os| os.as_str().to_owned()))
                == host_os
        };
        let Some(best) = candidates
            .into_iter()
            .max_by_key(|triple| (installed(triple) == Some(true), reach(triple), same_os(triple), std::cmp::Reverse(order(triple))))
            .cloned()
        else {
            break;
        };
        let count = reach(&best);
        left.retain(|item| !item.targets.contains(&best));
        let state = installed(&best);
        steps.push((best, count, state));
    }
    steps
}

/// Calls `visit` with each `.rs` file beneath `source_dir` that `skipped` does not refuse, listed
/// beneath a handle of `workspace_root` with no symlink followed (issue 13 §1), at most
/// [`MAX_FILES_READ`]; returns how many were left for that cap. A directory that cannot be listed
/// gives none.
fn for_each_rust_file(workspace_root: &Path, source_dir: &Path, skipped: impl Fn(&Path) -> bool, mut visit: impl FnMut(&Path)) -> usize {
    let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, source_dir) else { return 0 };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, source_dir) else { return 0 };
    let mut read = 0usize;
    let mut not_read = 0usize;
    for entry in walk.iter().flatten().filter(|entry| entry.is_file()) {
        let path = entry.path();
        if path.extension().is_none_or(|ext| ext != "rs") || skipped(path) {
            continue;
        }
        read += 1;
        if read > MAX_FILES_READ {
            not_read += 1;
            continue;
        }
        visit(path);
    }
    not_read
}

/// The sentence of [`CfgOffModuleUses::reason`].
fn uses_sentence(server_id: &str, file: &str, gate: &GatingDeclaration, uses: &[crate::lsp::inactive::InactiveUse]) -> String {
    const LISTED: usize = 8;
    let shown: Vec<String> = uses.iter().take(LISTED).map(|found| format!("line {} names `{}`", found.line, found.name)).collect();
    let more = if uses.len() > LISTED { format!(" and {} more", uses.len() - LISTED) } else { String::new() };
    let mut names: Vec<&str> = uses.iter().map(|found| found.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    let next = crate::lsp::inactive::how_to_check(&gate.cfg);
    format!(
        "code that uses {} (changed by this write) is not compiled in the current configuration: {file} is a module declared under `{}` ({}), which is off here, so {server_id} and cargo check cannot show its errors: {}{more}; {next}",
        names.join(", "),
        gate.cfg,
        gate.where_declared(),
        shown.join(", ")
    )
}

/// The nearest `Cargo.toml` directory above `path`, at or below `workspace_root`.
pub(crate) fn package_root(workspace_root: &Path, path: &Path) -> Option<PathBuf> {
    let mut dir = path.parent();
    while let Some(current) = dir {
        if !current.starts_with(workspace_root) {
            return None;
        }
        if current.join("Cargo.toml").is_file() {
            return Some(current.to_path_buf());
        }
        dir = current.parent();
    }
    None
}

/// The features a plain `cargo check` of `package` enables: its `[features] default` and what
/// those enable, transitively (`dep:` entries and `crate/feature` entries are not features of
/// this package). `None` when the manifest cannot be read or parsed.
pub(crate) fn default_features(workspace_root: &Path, package: &Path) -> Option<HashSet<String>> {
    let table = feature_table(workspace_root, package)?;
    let seeds = ["default".to_owned()].into_iter().collect();
    let mut enabled: HashSet<String> = crate::lsp::cargo_features::closure(&table, &seeds).into_iter().collect();
    enabled.remove("default");
    Some(enabled)
}

/// The `[features]` table of `package`'s Cargo.toml (feature → what it enables), with cargo's
/// implicit feature of each optional dependency no list names as `dep:NAME`. `None` when the
/// manifest cannot be read or parsed.
pub(crate) fn feature_table(workspace_root: &Path, package: &Path) -> Option<std::collections::BTreeMap<String, Vec<String>>> {
    let text = crate::files::read_workspace_file_to_string(workspace_root, &package.join("Cargo.toml")).ok()?;
    let document = toml_edit::Document::parse(text).ok()?;
    let table: std::collections::BTreeMap<String, Vec<String>> = document
        .get("features")
        .and_then(|item| item.as_table())
        .map(|table| {
            table
                .iter()
                .map(|(name, item)| {
                    let enables = item.as_array().map(|array| array.iter().filter_map(|value| value.as_str().map(str::to_owned)).collect());
                    (name.to_owned(), enables.unwrap_or_default())
                })
                .collect()
        })
        .unwrap_or_default();
    // An optional dependency is a feature of its own name unless a feature list names it as
    // `dep:NAME` (cargo's implicit features; `cargo metadata` lists them): textwrap 0.16.1's
    // `default = ["unicode-linebreak", …]` names the optional dependency `unicode-linebreak`,
    // and `#[cfg(not(feature = "unicode-linebreak"))]` read as on (trial57 M4).
    let mut table = table;
    let named_as_dependency: HashSet<String> =
        table.values().flatten().filter_map(|value| value.strip_prefix("dep:")).map(str::to_owned).collect();
    let dependency_tables =
        ["dependencies", "build-dependencies"]
            .into_iter()
            .filter_map(|key| document.get(key).and_then(|item| item.as_table_like()))
            .chain(document.get("target").and_then(|item| item.as_table_like()).into_iter().flat_map(|targets| {
                targets.iter().filter_map(|(_, target)| target.get("dependencies").and_then(|item| item.as_table_like()))
            }))
            .collect::<Vec<_>>();
    for dependencies in dependency_tables {
        for (name, declaration) in dependencies.iter() {
            let optional = declaration.get("optional").and_then(|value| value.as_bool()) == Some(true);
            if optional && !named_as_dependency.contains(name) {
                table.entry(name.to_owned()).or_default();
            }
        }
    }
    Some(table)
}

/// The `#[cfg(…)]` gates on the `mod` items that declare `path` and the module files around it,
/// innermost first, up to `source_dir` (at most [`MAX_MODULE_DEPTH`] levels). `known` keeps each
/// module file's gate across the calls of one scan, so the files of a directory do not parse
/// their ancestors' declaring files again.
pub(crate) fn module_gates(
    workspace_root: &Path,
    source_dir: &Path,
    path: &Path,
    known: &mut HashMap<PathBuf, Option<GatingDeclaration>>,
) -> Vec<GatingDeclaration> {
    let mut gates = Vec::new();
    let mut module_file = path.to_path_buf();
    for _ in 0..MAX_MODULE_DEPTH {
        let gate = known.entry(module_file.clone()).or_insert_with(|| gating_declaration(workspace_root, &module_file));
        // A gate on a module around `path` names that module's file (trial155 M1).
        gates.extend(gate.clone().map(|mut gate| {
            if module_file != path {
                gate.gated_module = Some(module_file.strip_prefix(workspace_root).unwrap_or(&module_file).display().to_string());
            }
            gate
        }));
        // The module file of the directory holding this one: `dir/mod.rs` or `dir.rs`.
        let parent = if module_file.file_name().is_some_and(|name| name == "mod.rs") {
            module_file.parent().and_then(Path::parent)
        } else {
            module_file.parent()
        };
        let Some(dir) = parent.map(Path::to_path_buf) else { break };
        if !dir.starts_with(source_dir) || dir == source_dir {
            break;
        }
        let as_mod_rs = dir.join("mod.rs");
        module_file = if as_mod_rs.is_file() { as_mod_rs } else { dir.with_extension("rs") };
    }
    gates
}

/// The cfg names a package's build script sets (`cargo:rustc-cfg=NAME`, `cargo::rustc-cfg=NAME`,
/// with or without `="value"`), read from `build.rs` beside its `Cargo.toml` (beneath
/// `workspace_root`); empty when there is none.
pub(crate) fn build_script_cfgs(workspace_root: &Path, package: &Path) -> Vec<String> {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &package.join("build.rs")) else { return Vec::new() };
    let mut names = Vec::new();
    for (at, marker) in text.match_indices("rustc-cfg=") {
        let rest = &text[at + marker.len()..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The bare cfg names (and `key = "value"` keys) a `#[cfg(…)]` attribute tests that are no
/// built-in cfg (`target_*`, `unix`, `test`, `feature`, …): the ones a build script or
/// `RUSTFLAGS="--cfg …"` sets. Empty when it does not parse.
pub(crate) fn custom_cfg_names(attribute: &str) -> Vec<String> {
    let Some(expression) = parse_cfg_attribute(attribute) else { return Vec::new() };
    let mut names: Vec<String> = Vec::new();
    for predicate in expression.predicates() {
        let name = match predicate {
            Predicate::Flag(name) => name,
            Predicate::KeyValue { key, .. } => key,
            _ => continue,
        };
        if !names.iter().any(|known| known == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// `#[cfg(…)]` (or `#![cfg(…)]`) evaluated on this host, three-valued: `Some(false)` only when
/// the predicate is known off (see the module docs). `None` when it does not parse.
pub(crate) fn evaluate_cfg_attribute(attribute: &str, default_features: Option<&HashSet<String>>) -> Option<bool> {
    evaluate_cfg_with(attribute, default_features, None)
}

/// The cfg expression of a `#[cfg(…)]` / `#![cfg(…)]` attribute (over any number of lines);
/// `None` for another attribute or one `cfg-expr` does not parse.
fn parse_cfg_attribute(attribute: &str) -> Option<Expression> {
    let attribute = crate::lsp::inactive::one_line_attribute(attribute);
    let inner = attribute.trim().trim_start_matches("#!").trim_start_matches('#').trim();
    Expression::parse(inner.strip_prefix('[')?.strip_suffix(']')?.trim()).ok()
}

/// A parsed cfg predicate (`all(feature = "a", not(unix))`, the inside of `cfg(…)`) evaluated as
/// [`evaluate_cfg_attribute`] does, with exactly `features` on. `None` when it does not parse or
/// something other than a feature leaves it unknown.
pub(crate) fn evaluate_cfg_predicate(predicate: &Expression, features: &HashSet<String>) -> Option<bool> {
    evaluate_expression(predicate, Some(features), None)
}

/// [`evaluate_cfg_attribute`] with the custom cfgs known: `Some(set)` makes a bare `name` (or
/// `key = "value"`) cfg on exactly when `set` holds `name` (`key="value"`), `None` leaves them
/// unknown. Features: `None` leaves them unknown.
fn evaluate_cfg_with(attribute: &str, features: Option<&HashSet<String>>, custom_cfgs: Option<&[String]>) -> Option<bool> {
    evaluate_expression(&parse_cfg_attribute(attribute)?, features, custom_cfgs)
}

/// [`evaluate_cfg_with`] on a parsed expression.
fn evaluate_expression(expression: &Expression, features: Option<&HashSet<String>>, custom_cfgs: Option<&[String]>) -> Option<bool> {
    let host = host_target();
    expression.eval(|predicate| match predicate {
        Predicate::Target(target) => host.map(|host| target.matches(host)),
        Predicate::Test | Predicate::DebugAssertions => Some(true),
        Predicate::Feature(name) => features.map(|enabled| enabled.contains(*name)),
        Predicate::Flag(name) => custom_cfgs.map(|set| set.iter().any(|cfg| cfg == name)),
        Predicate::KeyValue { key, val } => custom_cfgs.map(|set| set.iter().any(|cfg| *cfg == format!("{key}=\"{val}\""))),
        Predicate::ProcMacro | Predicate::TargetFeature(_) => None,
    })
}

/// The built-in target description of this host (`x86_64-unknown-linux-gnu`, …), `None` when
/// `cfg-expr` does not list it.
fn host_target() -> Option<&'static cfg_expr::targets::TargetInfo> {
    let triple = match std::env::consts::OS {
        "linux" => format!("{}-unknown-linux-gnu", std::env::consts::ARCH),
        "macos" => format!("{}-apple-darwin", std::env::consts::ARCH),
        "windows" => format!("{}-pc-windows-msvc", std::env::consts::ARCH),
        "freebsd" => format!("{}-unknown-freebsd", std::env::consts::ARCH),
        _ => return None,
    };
    cfg_expr::targets::get_builtin_target_by_triple(&triple)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_optional_dependency_named_in_default_is_an_enabled_feature() {
        // textwrap 0.16.1 (trial57 M4): `unicode-linebreak` is an optional dependency, no
        // `[features]` key, and `default` turns it on.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"wrap\"\nversion = \"0.1.0\"\n\n[dependencies.unicode-linebreak]\nversion = \"0.1\"\noptional = true\n\n[dependencies]\nsmawk = { version = \"0.3\", optional = true }\nhidden = { version = \"1\", optional = true }\n\n[features]\ndefault = [\"unicode-linebreak\", \"smawk\"]\nextra = [\"dep:hidden\"]\n",
        )
        .unwrap();
        let enabled = default_features(&root, &root).expect("read");
        assert!(enabled.contains("unicode-linebreak") && enabled.contains("smawk"), "{enabled:?}");
        assert!(!enabled.contains("hidden") && !enabled.contains("extra"), "{enabled:?}");
        assert_eq!(evaluate_cfg_attribute("#[cfg(not(feature = \"unicode-linebreak\"))]", Some(&enabled)), Some(false));
    }

    #[test]
    fn a_cfg_is_off_only_when_known_off_on_this_host() {
        let features: HashSet<String> = ["std".to_owned()].into_iter().collect();
        let other_arch = if std::env::consts::ARCH == "aarch64" { "x86_64" } else { "aarch64" };
        let host_arch = std::env::consts::ARCH;
        // httparse 1.10.1: a cfg a build script sets is unknown, the arch decides.
        let neon = format!("#[cfg(all(httparse_simd, target_arch = \"{other_arch}\", httparse_simd_neon_intrinsics))]");
        assert_eq!(evaluate_cfg_attribute(&neon, Some(&features)), Some(false));
        let avx2 = format!("#[cfg(all(httparse_simd, any(target_arch = \"x86\", target_arch = \"{host_arch}\")))]");
        assert_eq!(evaluate_cfg_attribute(&avx2, Some(&features)), None, "a build-script cfg makes it unknown, never off");
        assert_eq!(evaluate_cfg_attribute("#[cfg(feature = \"serde\")]", Some(&features)), Some(false));
        assert_eq!(evaluate_cfg_attribute("#[cfg(feature = \"std\")]", Some(&features)), Some(true));
        assert_eq!(evaluate_cfg_attribute("#[cfg(feature = \"serde\")]", None), None, "features unknown without a manifest");
        assert_eq!(evaluate_cfg_attribute("#[cfg(test)]", Some(&features)), Some(true));
        assert_eq!(evaluate_cfg_attribute("#[cfg(not(test))]", Some(&features)), Some(false));
        if cfg!(unix) {
            assert_eq!(evaluate_cfg_attribute("#[cfg(windows)]", Some(&features)), Some(false));
            assert_eq!(evaluate_cfg_attribute("#[cfg(unix)]", Some(&features)), Some(true));
        }
        assert_eq!(
            evaluate_cfg_attribute("#[cfg(all(unix, target_feature = \"avx2\"))]", Some(&features)),
            if cfg!(unix) { None } else { Some(false) }
        );
        assert_eq!(evaluate_cfg_attribute("#[cfg_attr(test, derive(Debug))]", Some(&features)), None, "not a cfg attribute");
    }

    #[test]
    fn another_targets_gates_name_the_targets_that_turn_them_on_installed_first() {
        // walkdir 2.5.1 (trial167 F2): `#[cfg(windows)]` twins and a
        // `#[cfg(not(any(unix, windows)))]` fallback; `not(test)` is on for no target.
        let windows = targets_turning_on("#[cfg(windows)]").expect("a target gate");
        assert_eq!(windows[0], "x86_64-pc-windows-gnu");
        let other = targets_turning_on("#[cfg(not(any(unix, windows)))]").expect("a target gate");
        assert!(other.contains(&"wasm32-unknown-unknown".to_owned()) && !other.iter().any(|t| t.contains("windows")), "{other:?}");
        assert_eq!(targets_turning_on("#[cfg(not(test))]"), None);
        let item = |line: u32, cfg: &str, targets: &[String]| TargetGatedItem {
            line,
            last: line + 2,
            cfg: cfg.to_owned(),
            targets: targets.to_vec(),
        };
        let files = vec![TargetGatedFile {
            path: PathBuf::from("/w/src/dent.rs"),
            items: vec![
                item(57, "#[cfg(windows)]", &windows),
                item(130, "#[cfg(windows)]", &windows),
                item(218, "#[cfg(not(any(unix, windows)))]", &other),
            ],
        }];
        let installed = |triple: &str| Some(triple == "x86_64-pc-windows-gnu");
        assert_eq!(
            target_check_steps(&files, installed, 3),
            [("x86_64-pc-windows-gnu".to_owned(), 2, Some(true)), ("wasm32-unknown-unknown".to_owned(), 1, Some(false))]
        );
        assert_eq!(target_check_steps(&files, installed, 1).len(), 1, "capped");
    }

    #[test]
    fn custom_cfgs_and_build_script_cfgs_are_read() {
        let attribute = "#[cfg(all(\n    httparse_simd,\n    any(\n        httparse_simd_target_feature_avx2,\n        not(httparse_simd_target_feature_sse42),\n    ),\n    any(target_arch = \"x86\", target_arch = \"x86_64\"),\n    foo = \"bar\",\n))]";
        let mut names = custom_cfg_names(attribute);
        names.sort();
        assert_eq!(names, ["foo", "httparse_simd", "httparse_simd_target_feature_avx2", "httparse_simd_target_feature_sse42"]);
        assert!(custom_cfg_names("#[cfg(all(unix, feature = \"std\", test))]").is_empty());
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(
            root.join("build.rs"),
            "fn main() {\n    println!(\"cargo:rustc-cfg=httparse_simd\");\n    println!(\"cargo::rustc-cfg=level=\\\"2\\\"\");\n    println!(\"cargo:rustc-cfg=httparse_simd\");\n}\n",
        )
        .unwrap();
        assert_eq!(build_script_cfgs(&root, &root), ["httparse_simd", "level"]);
        assert!(build_script_cfgs(&root, &root.join("absent")).is_empty());
    }

    #[test]
    fn default_features_follow_what_default_enables() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\", \"dep:memchr\", \"serde?/std\"]\nalloc = []\nserde = []\n",
        )
        .unwrap();
        let enabled = default_features(&root, &root).unwrap();
        let mut enabled: Vec<&str> = enabled.iter().map(String::as_str).collect();
        enabled.sort_unstable();
        assert_eq!(enabled, ["alloc", "std"]);
    }

    #[test]
    fn uses_in_a_module_under_an_off_gate_are_named_with_the_gate_and_only_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let other_arch = if std::env::consts::ARCH == "aarch64" { "x86_64" } else { "aarch64" };
        std::fs::create_dir_all(root.join("src/simd")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[features]\nextra = []\n").unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub mod iter;\nmod simd;\n#[cfg(feature = \"extra\")]\nmod extra;\n").unwrap();
        std::fs::write(root.join("src/iter.rs"), "pub fn advance(n: usize, checked: bool) {}\n").unwrap();
        std::fs::write(
            root.join("src/simd/mod.rs"),
            format!("mod swar;\n#[cfg(all(\n    build_script_cfg,\n    target_arch = \"{other_arch}\",\n))]\nmod neon;\n"),
        )
        .unwrap();
        std::fs::write(root.join("src/simd/swar.rs"), "fn f() { crate::iter::advance(1) }\n").unwrap();
        std::fs::write(root.join("src/simd/neon.rs"), "// advance in a comment\nfn f() {\n    crate::iter::advance(1);\n}\n").unwrap();
        std::fs::write(root.join("src/extra.rs"), "fn g() { crate::iter::advance(2); }\n").unwrap();
        let written = vec![root.join("src/iter.rs")];
        let later = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let scan = cfg_off_module_uses(&root, &written, &["advance".to_owned()], &HashSet::new(), "rust-analyzer", later);
        assert_eq!((scan.not_read_for_cap, scan.not_read_for_time), (0, 0));
        let found = scan.found;
        let paths: Vec<PathBuf> = found.iter().map(|found| found.path.clone()).collect();
        assert_eq!(paths, vec![root.join("src/extra.rs"), root.join("src/simd/neon.rs")], "{found:#?}");
        let neon = &found[1].reason;
        assert!(
            neon.contains("line 3 names `advance`")
                && !neon.contains("line 1 ")
                && neon.contains(&format!(
                    "declared under `#[cfg(all(build_script_cfg, target_arch = \"{other_arch}\"))]` (src/simd/mod.rs:6)"
                ))
                && neon.contains("cargo check --target"),
            "{neon}"
        );
        assert!(found[0].reason.contains("\"features\": [\"extra\"]"), "{}", found[0].reason);
        let skipped: HashSet<PathBuf> = [root.join("src/extra.rs")].into_iter().collect();
        assert_eq!(cfg_off_module_uses(&root, &written, &["advance".to_owned()], &skipped, "rust-analyzer", later).found.len(), 1);
        // Out of time: nothing read, and said.
        let spent =
            cfg_off_module_uses(&root, &written, &["advance".to_owned()], &HashSet::new(), "rust-analyzer", std::time::Instant::now());
        assert!(spent.found.is_empty() && spent.not_read_for_time > 0, "{spent:?}");
    }

    #[test]
    fn uses_in_gated_test_files_required_feature_targets_and_gated_lines_are_named() {
        // arrayvec 0.7.6 (trial159 F1): `tests/borsh.rs` under `#![cfg(feature = "borsh")]`.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for directory in ["src", "tests/it", "examples"] {
            std::fs::create_dir_all(root.join(directory)).unwrap();
        }
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"p\"\nversion = \"0.1.0\"\n\n[features]\ndefault = [\"std\"]\nstd = []\nx = []\n\n[[test]]\nname = \"it\"\nrequired-features = [\"x\", \"std\"]\n\n[[example]]\nname = \"demo\"\npath = \"examples/demo.rs\"\nrequired-features = [\"std\"]\n",
        )
        .unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub mod other;\npub fn bump() {}\n").unwrap();
        std::fs::write(
            root.join("src/other.rs"),
            "pub fn active() {\n    crate::bump();\n}\n\n#[cfg(feature = \"x\")]\npub fn gated() {\n    // bump in a comment\n    crate::bump();\n}\n\n#[cfg(feature = \"std\")]\npub fn on() {\n    crate::bump();\n}\n",
        )
        .unwrap();
        std::fs::write(root.join("tests/gated.rs"), "#![cfg(feature = \"x\")]\n\n#[test]\nfn t() {\n    p::bump();\n}\n").unwrap();
        std::fs::write(root.join("tests/plain.rs"), "#[test]\nfn t() {\n    p::bump();\n}\n").unwrap();
        std::fs::write(root.join("tests/it/main.rs"), "mod helper;\n").unwrap();
        std::fs::write(root.join("tests/it/helper.rs"), "fn h() {\n    p::bump();\n}\n").unwrap();
        std::fs::write(root.join("examples/demo.rs"), "fn main() {\n    p::bump();\n}\n").unwrap();
        let written = vec![root.join("src/lib.rs")];
        let later = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let scan = cfg_off_module_uses(&root, &written, &["bump".to_owned()], &HashSet::new(), "rust-analyzer", later);
        let found: Vec<(String, bool)> =
            scan.found.iter().map(|found| (found.path.strip_prefix(&root).unwrap().display().to_string(), found.whole_file)).collect();
        assert_eq!(
            found,
            [("src/other.rs".to_owned(), false), ("tests/gated.rs".to_owned(), true), ("tests/it/helper.rs".to_owned(), true)],
            "{:#?}",
            scan.found
        );
        let other = &scan.found[0].reason;
        assert!(
            other.contains("line 8 names `bump` (under `#[cfg(feature = \"x\")]` at line 5)")
                && !other.contains("line 2 ")
                && !other.contains("line 13 ")
                && other.contains("`cargo check --all-targets --features x`"),
            "{other}"
        );
        let gated = &scan.found[1].reason;
        assert!(
            gated.contains("gated by its own `#![cfg(feature = \"x\")]` (tests/gated.rs:1)")
                && gated.contains("line 5 names `bump`")
                && gated.contains("\"features\": [\"x\"]"),
            "{gated}"
        );
        let helper = &scan.found[2].reason;
        assert!(
            helper.contains("belongs to the test target `it`, which Cargo.toml builds only with required-features [\"x\"]")
                && helper.contains("`cargo check --all-targets --features x`"),
            "{helper}"
        );
    }
}
