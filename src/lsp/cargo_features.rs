//! Cargo features and what `cargo check` did not compile because of them (`lsp` `diagnostics`
//! `"*"` on a Rust root). `cargo check` builds each package with its `default` features (plus
//! what the call asked for: `features`, `all_features`); code behind `#[cfg(feature = "…")]` /
//! `#[cfg_attr(feature = "…", …)]` for any other feature is not compiled, so an error there is
//! not reported. Trial on `either` 1.15: a type error added to its `serde` module gave
//! "0 errors" — the answer must say which features were off and where their gates are.
//!
//! The features come from `cargo metadata --no-deps --format-version 1` (the packages of the
//! workspace, each with its `features` table, implicit `dep:` features of optional dependencies
//! included). The enabled set per package is the closure of `default` (unless the call asked
//! for `all_features`) and the requested features, plus what other workspace members enable in
//! it through their dependency declarations. Gated files are found by reading the package's
//! `.rs` files (beneath the workspace root, `target/` and nested packages skipped) for the
//! `cfg(`, `cfg_attr(` and `cfg!(` whose predicate names a feature, each predicate evaluated
//! whole with the enabled features (`any(feature = "std", feature = "x")` with `std` on is
//! compiled); a gated `mod` item (also one with `#[path = "FILE"]`) names its whole file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

/// How many gated files are named per package (the rest are counted).
pub const GATED_FILES_SHOWN: usize = 10;

/// How many `.rs` files of one package are read for gates (the rest are said unread).
const FILES_READ_CAP: usize = 2000;

/// The features a `"*"` check asks cargo for: `all_features` (`--all-features`), a list
/// (`--features a,b`; `member/feature` names one member's feature), `no_default_features`
/// (`--no-default-features`). Empty and false: each package's `default` features.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureSelection {
    /// `--all-features`.
    pub all_features: bool,
    /// `--no-default-features`.
    pub no_default_features: bool,
    /// `--features` (deduplicated, in the order given).
    pub features: Vec<String>,
}

impl FeatureSelection {
    /// The selection of a call's `all_features` and `features` arguments (use
    /// [`FeatureSelection::without_defaults`] for `no_default_features`).
    pub fn new(all_features: bool, features: &[String]) -> FeatureSelection {
        let mut list: Vec<String> = Vec::new();
        for feature in features.iter().flat_map(|feature| feature.split([',', ' '])).map(str::trim).filter(|f| !f.is_empty()) {
            if !list.iter().any(|known| known == feature) {
                list.push(feature.to_owned());
            }
        }
        FeatureSelection { all_features, no_default_features: false, features: list }
    }

    /// The same selection with `--no-default-features` when `no_default_features`.
    pub fn without_defaults(mut self, no_default_features: bool) -> FeatureSelection {
        self.no_default_features = no_default_features;
        self
    }

    /// Whether the call asked for nothing beyond the default features.
    pub fn is_default(&self) -> bool {
        !self.all_features && !self.no_default_features && self.features.is_empty()
    }

    /// The cargo arguments: `--all-features`, `--features a,b`, or none.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.all_features {
            args.push("--all-features".to_owned());
        }
        if self.no_default_features {
            args.push("--no-default-features".to_owned());
        }
        if !self.features.is_empty() {
            args.push("--features".to_owned());
            args.push(self.features.join(","));
        }
        args
    }
}

/// A selection narrowed to one of several cargo roots of the workspace (a crate and one beneath
/// it that is no member of its workspace, a `downstream/` crate with a path dependency on it),
/// each checked by a `cargo check` of its own: cargo refuses a `--features` name the package it builds does not declare (trial95 M4: hex's
/// `alloc` failed the downstream check, and the answer blamed "something it depends on").
///
/// Kept: `all_features`; a plain feature the manifest's `[features]` table (or an optional
/// dependency) declares; `dependency/feature` when `dependency` is the package or one of its
/// dependencies; `no_default_features` when the package declares a `default` feature and no
/// requested feature was left out. The second element names what was left out and why, for the
/// answer. A manifest with no `[package]` (a virtual workspace) or one that does not parse keeps
/// the selection whole (cargo then judges it).
pub fn selection_for_other_root(selection: &FeatureSelection, manifest_text: &str) -> (FeatureSelection, Vec<String>) {
    let Ok(document) = toml_edit::Document::parse(manifest_text.to_owned()) else { return (selection.clone(), Vec::new()) };
    let table = document.as_table();
    let Some(package) = table.get("package").and_then(|item| item.get("name")).and_then(|name| name.as_str()) else {
        return (selection.clone(), Vec::new());
    };
    let mut declared: BTreeSet<String> = table
        .get("features")
        .and_then(|item| item.as_table_like())
        .map(|features| features.iter().map(|(name, _)| name.to_owned()).collect())
        .unwrap_or_default();
    let mut dependencies: BTreeSet<String> = BTreeSet::new();
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        let Some(entries) = table.get(section).and_then(|item| item.as_table_like()) else { continue };
        for (name, dependency) in entries.iter() {
            dependencies.insert(name.to_owned());
            if section == "dependencies" && dependency.get("optional").and_then(|optional| optional.as_bool()) == Some(true) {
                declared.insert(name.to_owned());
            }
        }
    }
    let mut kept = FeatureSelection { all_features: selection.all_features, no_default_features: false, features: Vec::new() };
    let mut left_out: Vec<String> = Vec::new();
    for feature in &selection.features {
        match feature.split_once('/') {
            Some((owner, _)) if owner == package || dependencies.contains(owner) => kept.features.push(feature.clone()),
            Some((owner, _)) => left_out.push(format!("`{feature}` (`{owner}` is neither `{package}` nor a dependency of it)")),
            None if declared.contains(feature) => kept.features.push(feature.clone()),
            None => left_out.push(format!("`{feature}` (`{package}` declares no such feature)")),
        }
    }
    if selection.no_default_features && declared.contains("default") {
        if left_out.is_empty() {
            kept.no_default_features = true;
        } else {
            left_out.push(format!(
                "`--no-default-features` (the features asked for are not `{package}`'s, so it keeps its `default` features)"
            ));
        }
    }
    (kept, left_out)
}

/// One package's features against what the check enabled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFeatures {
    /// The package name.
    pub package: String,
    /// Its manifest (absolute).
    pub manifest: PathBuf,
    /// Features enabled in the check (after closure), sorted; `default` is not listed.
    pub enabled: Vec<String>,
    /// Features of the package not enabled in the check, sorted.
    pub not_enabled: Vec<String>,
    /// Files (absolute, sorted) with a `cfg`/`cfg_attr`/`cfg!` naming a feature in `not_enabled`,
    /// with the 1-based line of the first such gate and the features it names.
    pub gated_files: Vec<GatedFile>,
    /// Files with `cfg(not(feature = "X"))` for an enabled X: code compiled only without X,
    /// not checked either.
    pub negated_gates: Vec<GatedFile>,
    /// Gates (one entry per gate, its file and 1-based line) that name a feature in
    /// `not_enabled` and stay off with it on: they need another target or `--cfg` too
    /// (fastrand's `all(target_arch = "wasm32", target_os = "unknown", feature = "js")`, trial66
    /// F3), so no check on this host compiles their code.
    pub gates_off_with_them_on: Vec<GatedFile>,
    /// `.rs` files left unread for the file cap (0 normally).
    pub files_unread: usize,
    /// The package's build targets (`cargo metadata`'s `targets`, build scripts left out), so a
    /// check can say which of them cargo never got to.
    pub targets: Vec<CargoTarget>,
    /// With `no_default_features`: the other workspace members whose (path) dependency on this
    /// package keeps its `default` features, so a workspace-wide `cargo check
    /// --no-default-features` compiles it WITH them (cargo unifies features across the packages
    /// it builds; trial180 F1: itertools under an `app` member read "0 errors" where `cargo check
    /// -p itertools --no-default-features` gave 114). Such a package gets a `cargo check -p` of
    /// its own, and `enabled`/`not_enabled`/the gates are what that check enables. Empty otherwise.
    pub defaults_kept_by: Vec<String>,
    /// The package as a cargo package spec, `name@version` (`itertools@0.14.0`): a bare name is
    /// ambiguous when a dependency pulls another version of it (criterion's itertools 0.10.5).
    pub spec: String,
    /// For a package in `defaults_kept_by`'s case: the requested features that are its own
    /// (plain names it declares, `package/feature` as `feature`), for its `--features`.
    pub own_features: Vec<String>,
}

/// One build target of a workspace member, from `cargo metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CargoTarget {
    /// The target's name (`indexmap`, `bench`).
    pub name: String,
    /// Its first kind: `lib`, `bin`, `test`, `bench`, `example` (a `proc-macro`, `rlib`, …
    /// library kind is said as `lib`).
    pub kind: String,
    /// Its root source file (absolute).
    pub src_path: PathBuf,
    /// `required-features`: cargo skips the target, silently, when one is not enabled.
    pub required_features: Vec<String>,
}

/// A `cargo metadata` target kind list as one kind: the library kinds (`rlib`, `proc-macro`, …)
/// are `lib`.
pub fn target_kind(kinds: &[&str]) -> String {
    match kinds.first() {
        Some(&("bin" | "test" | "bench" | "example" | "custom-build")) => kinds[0].to_owned(),
        Some(_) => "lib".to_owned(),
        None => String::new(),
    }
}

/// A file with feature gates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatedFile {
    /// Absolute path.
    pub path: PathBuf,
    /// 1-based line of the first gate of interest.
    pub line: u32,
    /// The features its gates name (of interest), sorted.
    pub features: Vec<String>,
    /// A module file declared by a gated `mod NAME;`: the whole file is gated; the declaring
    /// file (absolute) and the gate's 1-based line.
    pub declared_at: Option<(PathBuf, u32)>,
}

/// Runs `cargo metadata --no-deps --format-version 1` in `root` and works out, for every
/// workspace member, which features `selection` leaves off and which files gate code on them.
/// `env` is passed to cargo (a restricted PATH). Bounded by `timeout`. With `confinement`, cargo
/// runs under it (Landlock; see [`crate::lsp::confinement`]).
///
/// # Errors
/// What failed, as a sentence: cargo could not run, timed out, or printed no metadata (with the
/// tail of its stderr).
pub fn package_features(
    cargo: &Path,
    root: &Path,
    workspace_root: &Path,
    selection: &FeatureSelection,
    env: &[(String, String)],
    timeout: Duration,
    confinement: Option<crate::transport::FilesystemConfinement>,
) -> Result<Vec<PackageFeatures>, String> {
    let mut spec = crate::transport::process::ProcessSpec::new(cargo, root)
        .with_args(["metadata", "--no-deps", "--format-version", "1", "--offline"].map(str::to_owned))
        .with_display_name("checker cargo metadata");
    for (key, value) in env {
        spec = spec.with_env(key, value);
    }
    spec.filesystem_confinement = confinement;
    let completed = crate::transport::process::run_to_completion(spec, b"", timeout, 32 * 1024 * 1024)
        .map_err(|err| format!("`cargo metadata` failed to run: {}", err.message))?;
    if completed.timed_out {
        return Err(format!("`cargo metadata --no-deps` timed out after {} ms", completed.elapsed.as_millis()));
    }
    let stdout = String::from_utf8_lossy(&completed.stdout);
    let metadata: Value = serde_json::from_str(stdout.trim()).map_err(|_| {
        let stderr = String::from_utf8_lossy(&completed.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
        format!(
            "`cargo metadata --no-deps` printed no metadata ({}): {}",
            completed.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )
    })?;
    Ok(features_from_metadata(&metadata, workspace_root, selection))
}

/// [`package_features`] from parsed metadata (the workspace members' packages).
pub fn features_from_metadata(metadata: &Value, workspace_root: &Path, selection: &FeatureSelection) -> Vec<PackageFeatures> {
    let members: BTreeSet<&str> = metadata["workspace_members"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let packages: Vec<&Value> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|package| package["id"].as_str().is_some_and(|id| members.contains(id)))
        .collect();
    let tables: BTreeMap<String, BTreeMap<String, Vec<String>>> = packages
        .iter()
        .map(|package| {
            let table = package["features"]
                .as_object()
                .map(|features| {
                    features
                        .iter()
                        .map(|(name, values)| {
                            (name.clone(), values.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect())
                        })
                        .collect()
                })
                .unwrap_or_default();
            (package["name"].as_str().unwrap_or("").to_owned(), table)
        })
        .collect();
    // The roots of each member's enabled set: `default` and the requested features (a plain
    // name applies to every member that has it; `member/feature` to that member).
    let mut seeds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, table) in &tables {
        let seed = seeds.entry(name.clone()).or_default();
        if selection.all_features {
            seed.extend(table.keys().cloned());
        } else if table.contains_key("default") && !selection.no_default_features {
            seed.insert("default".to_owned());
        }
        for feature in &selection.features {
            match feature.split_once('/') {
                Some((package, feature)) if package == name => {
                    seed.insert(feature.to_owned());
                }
                Some(_) => {}
                None if table.contains_key(feature.as_str()) => {
                    seed.insert(feature.clone());
                }
                None => {}
            }
        }
    }
    // What members enable in each other through their dependency declarations (cargo unifies
    // features across the packages it builds).
    let own_seeds = seeds.clone();
    let mut defaults_kept_by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for package in &packages {
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            let Some(target) = dependency["name"].as_str().filter(|name| tables.contains_key(*name)) else { continue };
            if dependency["path"].as_str().is_none() {
                continue;
            }
            let seed = seeds.entry(target.to_owned()).or_default();
            if dependency["uses_default_features"].as_bool() != Some(false) && tables[target].contains_key("default") {
                seed.insert("default".to_owned());
                let by = package["name"].as_str().unwrap_or("");
                if selection.no_default_features && !selection.all_features && by != target {
                    let kept_by = defaults_kept_by.entry(target.to_owned()).or_default();
                    if !kept_by.iter().any(|known| known == by) {
                        kept_by.push(by.to_owned());
                    }
                }
            }
            seed.extend(dependency["features"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned));
        }
    }
    let nested_roots: Vec<PathBuf> =
        packages.iter().filter_map(|package| Path::new(package["manifest_path"].as_str()?).parent().map(Path::to_path_buf)).collect();
    let mut out = Vec::new();
    for package in &packages {
        let name = package["name"].as_str().unwrap_or("").to_owned();
        let table = &tables[&name];
        let kept_by = defaults_kept_by.get(&name).cloned().unwrap_or_default();
        // A package whose defaults another member keeps is checked on its own (`-p`), with only
        // the requested features: its enabled set is theirs.
        let enabled = closure(table, if kept_by.is_empty() { &seeds[&name] } else { &own_seeds[&name] });
        let own_features: Vec<String> = if kept_by.is_empty() {
            Vec::new()
        } else {
            selection
                .features
                .iter()
                .filter_map(|feature| match feature.split_once('/') {
                    Some((package, feature)) if package == name => Some(feature.to_owned()),
                    Some(_) => None,
                    None => table.contains_key(feature.as_str()).then(|| feature.clone()),
                })
                .collect()
        };
        let not_enabled: Vec<String> =
            table.keys().filter(|feature| *feature != "default" && !enabled.contains(*feature)).cloned().collect();
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or(""));
        let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
        let (gated_files, negated_gates, gates_off_with_them_on, files_unread) = if table.keys().any(|f| f != "default") {
            let others: Vec<&Path> =
                nested_roots.iter().filter(|other| **other != dir && other.starts_with(&dir)).map(PathBuf::as_path).collect();
            scan_gates(workspace_root, &dir, &others, &not_enabled, &enabled)
        } else {
            (Vec::new(), Vec::new(), Vec::new(), 0)
        };
        let spec = match package["version"].as_str() {
            Some(version) => format!("{name}@{version}"),
            None => name.clone(),
        };
        out.push(PackageFeatures {
            package: name,
            manifest,
            enabled: enabled.into_iter().filter(|feature| feature != "default").collect(),
            not_enabled,
            gated_files,
            negated_gates,
            gates_off_with_them_on,
            files_unread,
            targets: package["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|target| {
                    let kinds: Vec<&str> = target["kind"].as_array()?.iter().filter_map(Value::as_str).collect();
                    let kind = target_kind(&kinds);
                    (kind != "custom-build").then(|| CargoTarget {
                        name: target["name"].as_str().unwrap_or("").to_owned(),
                        kind,
                        src_path: PathBuf::from(target["src_path"].as_str().unwrap_or("")),
                        required_features: target["required-features"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect(),
                    })
                })
                .collect(),
            spec,
            defaults_kept_by: kept_by,
            own_features,
        });
    }
    out.sort_by(|a, b| a.package.cmp(&b.package));
    out
}

/// The features `seeds` turn on in a package with `table`: feature names inside a feature's
/// list are followed; `dep:x` and `x?/y` are dependencies only; `x/y` also turns on feature `x`
/// when the package has one (an optional dependency's implicit feature).
pub(crate) fn closure(table: &BTreeMap<String, Vec<String>>, seeds: &BTreeSet<String>) -> BTreeSet<String> {
    let mut enabled: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<String> = seeds.iter().cloned().collect();
    while let Some(feature) = stack.pop() {
        let feature = match feature.split_once('/') {
            Some((dependency, _)) if !dependency.ends_with('?') => dependency.to_owned(),
            Some(_) => continue,
            None => feature,
        };
        if feature.starts_with("dep:") || !table.contains_key(&feature) || !enabled.insert(feature.clone()) {
            continue;
        }
        stack.extend(table[&feature].iter().cloned());
    }
    enabled
}

/// The package's `.rs` files (beneath `dir`, skipping `target/`, hidden folders and nested
/// packages `others`) with a gate naming one of `not_enabled`, and those with
/// `not(feature = "X")` for an enabled X. Returns them and how many files were left unread.
fn scan_gates(
    workspace_root: &Path,
    dir: &Path,
    others: &[&Path],
    not_enabled: &[String],
    enabled: &BTreeSet<String>,
) -> (Vec<GatedFile>, Vec<GatedFile>, Vec<GatedFile>, usize) {
    let others: Vec<PathBuf> = others.iter().map(|other| other.to_path_buf()).collect();
    // Listed beneath a handle of the run's root, no symlink followed (issue 13 §1).
    let mut files: Vec<PathBuf> = Vec::new();
    if let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, dir) {
        if let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, dir) {
            files = walk
                .skip_names(&["target"])
                .filter_entry(move |entry| !others.iter().any(|other| entry.path() == other))
                .iter()
                .flatten()
                .filter(|entry| entry.is_file() && entry.path().extension().is_some_and(|ext| ext == "rs"))
                .map(|entry| entry.into_path())
                .collect();
        }
    }
    files.sort();
    let unread = files.len().saturating_sub(FILES_READ_CAP);
    files.truncate(FILES_READ_CAP);
    let mut gated = Vec::new();
    let mut negated = Vec::new();
    let mut off_with_them_on = Vec::new();
    for path in files {
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &path) else { continue };
        let mut off: (Option<u32>, BTreeSet<String>) = (None, BTreeSet::new());
        let mut neg: (Option<u32>, BTreeSet<String>) = (None, BTreeSet::new());
        let mut modules: Vec<GatedFile> = Vec::new();
        let mut negated_modules: Vec<GatedFile> = Vec::new();
        for site in cfg_sites(&text) {
            let Some(gate) = classify_site(&site, not_enabled, enabled) else { continue };
            let (first_line, names, module_list) = match gate {
                SiteGate::Off(_) => (&mut off.0, &mut off.1, &mut modules),
                SiteGate::OffForEnabled(_) => (&mut neg.0, &mut neg.1, &mut negated_modules),
                SiteGate::OffWithThemOn(features) => {
                    off_with_them_on.push(GatedFile { path: path.clone(), line: site.line, features, declared_at: None });
                    continue;
                }
            };
            let features = gate.features();
            if let Some(module) = site.gated_module.as_ref().and_then(|module| module.file(&path)) {
                match module_list.iter_mut().find(|known| known.path == module) {
                    Some(known) => {
                        for feature in features {
                            if !known.features.contains(feature) {
                                known.features.push(feature.clone());
                            }
                        }
                        known.features.sort();
                    }
                    None => module_list.push(GatedFile {
                        path: module,
                        line: 1,
                        features: features.to_vec(),
                        declared_at: Some((path.clone(), site.line)),
                    }),
                }
            }
            first_line.get_or_insert(site.line);
            names.extend(features.iter().cloned());
        }
        if let Some(line) = off.0 {
            gated.push(GatedFile { path: path.clone(), line, features: off.1.into_iter().collect(), declared_at: None });
        }
        gated.extend(modules);
        if let Some(line) = neg.0 {
            negated.push(GatedFile { path, line, features: neg.1.into_iter().collect(), declared_at: None });
        }
        negated.extend(negated_modules);
    }
    for list in [&mut gated, &mut negated] {
        // A gated module file is named once, as a whole file (its declaration names the gate).
        list.sort_by(|a, b| (a.path.as_path(), a.declared_at.is_none()).cmp(&(b.path.as_path(), b.declared_at.is_none())));
        list.dedup_by(|later, earlier| later.path == earlier.path);
        // Whole gated module files first: they are where unchecked code is certain.
        list.sort_by_key(|file| file.declared_at.is_none());
    }
    (gated, negated, off_with_them_on, unread)
}

/// The file of module `name` declared by `mod name;` in `declaring` (`lib.rs`, `main.rs` and
/// `mod.rs` declare beside them, `foo.rs` in `foo/`): `name.rs` or `name/mod.rs`, whichever
/// exists.
fn module_file(declaring: &Path, name: &str) -> Option<PathBuf> {
    let dir = declaring.parent()?;
    let stem = declaring.file_stem()?.to_str()?;
    let base = if matches!(stem, "lib" | "main" | "mod") || dir.ends_with("src/bin") { dir.to_path_buf() } else { dir.join(stem) };
    [base.join(format!("{name}.rs")), base.join(name).join("mod.rs")].into_iter().find(|candidate| candidate.is_file())
}

/// The `mod` item a `#[cfg(…)]` attribute sits on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum GatedModule {
    /// `mod NAME;`: the file is found by the module rules ([`module_file`]).
    Named(String),
    /// `#[path = "FILE"] mod NAME;`: FILE relative to the declaring file's folder (the rule for
    /// a `mod` outside inline module blocks).
    AtPath(String),
}

impl GatedModule {
    /// The module's file when it exists, for a declaration in `declaring`.
    fn file(&self, declaring: &Path) -> Option<PathBuf> {
        match self {
            GatedModule::Named(name) => module_file(declaring, name),
            GatedModule::AtPath(file) => Some(declaring.parent()?.join(file)).filter(|candidate| candidate.is_file()),
        }
    }
}

/// One `cfg(PREDICATE)`, `cfg_attr(PREDICATE, …)` or `cfg!(PREDICATE)` of a file whose predicate
/// names a feature.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CfgSite {
    /// 1-based line of `cfg`.
    line: u32,
    /// The predicate (`all(feature = "a", not(feature = "b"))`), as written.
    predicate: String,
    /// The `mod` item a `#[cfg(…)]` attribute sits on (the whole module file is gated).
    gated_module: Option<GatedModule>,
}

/// What a feature gate leaves out of a check with the enabled features.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SiteGate {
    /// Off; enabling these features (not enabled, named outside `not(…)`) turns it on or makes it
    /// depend on something else.
    Off(Vec<String>),
    /// Off because these enabled features are named inside `not(…)`: compiled only without them.
    OffForEnabled(Vec<String>),
    /// Off, naming these features (not enabled), and still off with them on: it needs another
    /// target or `--cfg` as well.
    OffWithThemOn(Vec<String>),
}

impl SiteGate {
    fn features(&self) -> &[String] {
        match self {
            SiteGate::Off(features) | SiteGate::OffForEnabled(features) | SiteGate::OffWithThemOn(features) => features,
        }
    }
}

/// Whether the gate of `site` leaves its code out of a check with `enabled` (the closure of the
/// selected features; `not_enabled` the package's other features), by evaluating the whole
/// predicate ([`crate::lsp::cfg_off_modules::evaluate_cfg_predicate`]): `any(feature = "std",
/// feature = "critical-section")` with `std` on is compiled (trial40 F1 named it NOT checked).
/// `None` when it is compiled, or names no feature that is off, or is unknown whatever the
/// features; [`SiteGate::OffWithThemOn`] when the features it names are off and turning them on
/// still leaves it off (another target or `--cfg`: the module scan also names such modules).
fn classify_site(site: &CfgSite, not_enabled: &[String], enabled: &BTreeSet<String>) -> Option<SiteGate> {
    let (positive, negative) = feature_polarity(&site.predicate);
    // Parsed once; evaluated with up to three feature sets.
    let predicate = cfg_expr::Expression::parse(&site.predicate).ok();
    let evaluate = |features: &std::collections::HashSet<String>| {
        predicate.as_ref().and_then(|predicate| crate::lsp::cfg_off_modules::evaluate_cfg_predicate(predicate, features))
    };
    let mut with_more: std::collections::HashSet<String> = enabled.iter().cloned().collect();
    if evaluate(&with_more) == Some(true) {
        return None;
    }
    let to_enable: Vec<String> = positive.into_iter().filter(|feature| not_enabled.contains(feature)).collect();
    with_more.extend(to_enable.iter().cloned());
    if !to_enable.is_empty() && evaluate(&with_more) != Some(false) {
        return Some(SiteGate::Off(to_enable));
    }
    let to_disable: Vec<String> = negative.into_iter().filter(|feature| enabled.contains(feature)).collect();
    for feature in &to_disable {
        with_more.remove(feature);
    }
    if !to_disable.is_empty() && evaluate(&with_more) != Some(false) {
        return Some(SiteGate::OffForEnabled(to_disable));
    }
    (!to_enable.is_empty() && evaluate(&with_more) == Some(false)).then_some(SiteGate::OffWithThemOn(to_enable))
}

/// The features `predicate` names outside any `not(…)` (or inside an even number of them) and
/// those it names inside an odd number, sorted.
pub(crate) fn feature_polarity(predicate: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut positive, mut negative) = (BTreeSet::new(), BTreeSet::new());
    let mut negations: Vec<bool> = Vec::new();
    let mut word = String::new();
    let mut chars = predicate.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        match ch {
            '(' => {
                negations.push(word == "not");
                word.clear();
            }
            ')' => {
                negations.pop();
                word.clear();
            }
            '"' => {
                // A string outside `feature = "…"` (a target's value): skipped whole.
                for (_, inner) in chars.by_ref() {
                    if inner == '"' {
                        break;
                    }
                }
                word.clear();
            }
            ch if ch.is_alphanumeric() || ch == '_' => word.push(ch),
            ch if ch.is_whitespace() => {}
            '=' if word == "feature" => {
                let rest = predicate[at + 1..].trim_start();
                if let Some(name) = rest.strip_prefix('"').and_then(|rest| rest.split('"').next()) {
                    let negated = negations.iter().filter(|not| **not).count() % 2 == 1;
                    if negated { &mut negative } else { &mut positive }.insert(name.to_owned());
                }
                word.clear();
            }
            _ => word.clear(),
        }
    }
    (positive, negative)
}

/// The `cfg(`, `cfg_attr(` and `cfg!(` of `text` whose predicate names a feature (not in `//`
/// comments, not a docs.rs `doc(cfg(…))` badge), with the `mod` item a `#[cfg(…)]` sits on.
fn cfg_sites(text: &str) -> Vec<CfgSite> {
    let bytes = text.as_bytes();
    let mut sites = Vec::new();
    let mut search = 0;
    while let Some(found) = text[search..].find("cfg") {
        let at = search + found;
        search = at + "cfg".len();
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if text[line_start..at].contains("//") || text[..at].trim_end().ends_with("doc(") {
            continue;
        }
        let after = &text[search..];
        let (is_attr, rest) = match after.strip_prefix("_attr") {
            Some(rest) => (true, rest.trim_start()),
            None => (false, after.strip_prefix('!').unwrap_or(after).trim_start()),
        };
        if !rest.starts_with('(') {
            continue;
        }
        let open = text.len() - rest.len();
        let Some(predicate) = cfg_predicate(&text[open + 1..], is_attr) else { continue };
        if !predicate.contains("feature") {
            continue;
        }
        let is_cfg_attribute = !is_attr && !after.starts_with('!') && text[..at].trim_end().ends_with("#[");
        let line = text[..at].matches('\n').count() as u32 + 1;
        let gated_module = if is_cfg_attribute { gated_module_after(&text[at..]) } else { None };
        sites.push(CfgSite { line, predicate: predicate.to_owned(), gated_module });
    }
    sites
}

/// The predicate at the start of `inside` (the text after `cfg(` / `cfg_attr(`): up to the
/// matching `)`, or for `cfg_attr` up to the first comma outside parentheses and strings.
/// `None` when it does not close within 2,000 bytes.
pub(crate) fn cfg_predicate(inside: &str, stop_at_comma: bool) -> Option<&str> {
    let mut depth = 0usize;
    let mut in_string = false;
    for (at, ch) in inside.char_indices().take_while(|(at, _)| *at < 2_000) {
        match ch {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' => depth += 1,
            ')' if depth == 0 => return Some(inside[..at].trim()),
            ')' => depth -= 1,
            ',' if depth == 0 && stop_at_comma => return Some(inside[..at].trim()),
            _ => {}
        }
    }
    None
}

/// The module a `mod NAME;` item right after the attribute that `rest` starts in declares
/// (further attributes and blank lines skipped; a `#[path = "FILE"]` among them names its file).
fn gated_module_after(rest: &str) -> Option<GatedModule> {
    let after = &rest[rest.find(']')? + 1..];
    let mut path_attribute: Option<String> = None;
    for line in after.lines().map(str::trim).filter(|line| !line.is_empty()).take(8) {
        if let Some(value) = line.strip_prefix("#[path") {
            let file = value.trim_start().strip_prefix('=')?.trim_start().strip_prefix('"')?.split('"').next()?;
            path_attribute = Some(file.to_owned());
            continue;
        }
        if line.starts_with("#[") || line.starts_with("//") {
            continue;
        }
        let item = line
            .strip_prefix("pub ")
            .or_else(|| line.strip_prefix("pub(crate) "))
            .or_else(|| line.strip_prefix("pub(super) "))
            .unwrap_or(line);
        let name = item.strip_prefix("mod ")?.strip_suffix(';')?.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        return Some(path_attribute.map_or_else(|| GatedModule::Named(name.to_owned()), GatedModule::AtPath));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        entries.iter().map(|(name, values)| ((*name).to_owned(), values.iter().map(|v| (*v).to_owned()).collect())).collect()
    }

    #[test]
    fn the_closure_follows_feature_lists_and_implicit_dependency_features() {
        let table = table(&[
            ("default", &["std"]),
            ("std", &["alloc"]),
            ("alloc", &[]),
            ("serde", &["dep:serde"]),
            ("json", &["serde/derive"]),
            ("weak", &["tokio?/rt"]),
            ("tokio", &["dep:tokio"]),
        ]);
        let seeds: BTreeSet<String> = ["default".to_owned()].into();
        let enabled = closure(&table, &seeds);
        assert_eq!(enabled.into_iter().collect::<Vec<_>>(), ["alloc", "default", "std"]);
        let seeds: BTreeSet<String> = ["json".to_owned(), "weak".to_owned()].into();
        let enabled = closure(&table, &seeds);
        assert_eq!(enabled.into_iter().collect::<Vec<_>>(), ["json", "serde", "weak"]);
    }

    #[test]
    fn gates_are_found_in_cfg_cfg_attr_and_cfg_macro_only() {
        let text = "#[cfg(feature = \"serde\")]\nmod a;\n#[cfg_attr(feature = \"derive\", derive(X))]\nstruct S;\n\
#[cfg(any(test,\n    feature = \"multi\"))]\nfn f() {}\n#[cfg(not(feature = \"std\"))]\nfn g() {}\n\
// #[cfg(feature = \"commented\")]\n#[cfg_attr(docsrs, doc(cfg(feature = \"badge\")))]\nconst DOC: &str = \"feature = \\\"text\\\"\";\nfn h() { if cfg!(feature = \"mac\") {} }\n";
        let sites = cfg_sites(text);
        let found: Vec<(&str, u32)> = sites.iter().map(|site| (site.predicate.as_str(), site.line)).collect();
        assert_eq!(
            found,
            [
                ("feature = \"serde\"", 1),
                ("feature = \"derive\"", 3),
                ("any(test,\n    feature = \"multi\")", 5),
                ("not(feature = \"std\")", 8),
                ("feature = \"mac\"", 13)
            ]
        );
        let modules: Vec<Option<GatedModule>> = sites.iter().map(|site| site.gated_module.clone()).collect();
        assert_eq!(modules, [Some(GatedModule::Named("a".to_owned())), None, None, None, None]);
        let sites = cfg_sites(
            "#[cfg(feature = \"x\")]\n#[doc(hidden)]\npub(crate) mod inner;\n#[cfg(all(feature = \"y\", not(feature = \"std\")))]\n#[path = \"imp_cs.rs\"]\nmod imp;\n",
        );
        let modules: Vec<Option<GatedModule>> = sites.iter().map(|site| site.gated_module.clone()).collect();
        assert_eq!(modules, [Some(GatedModule::Named("inner".to_owned())), Some(GatedModule::AtPath("imp_cs.rs".to_owned()))]);
    }

    #[test]
    fn a_gate_is_off_only_when_its_whole_predicate_is_off_with_the_enabled_features() {
        // once_cell 1.20.2, default features (std, alloc, race), trial40 F1 and F3.
        let enabled: BTreeSet<String> = ["std", "alloc", "race"].iter().map(|f| f.to_string()).collect();
        let not_enabled: Vec<String> = ["critical-section", "parking_lot", "portable-atomic"].iter().map(|f| f.to_string()).collect();
        let site = |predicate: &str| CfgSite { line: 1, predicate: predicate.to_owned(), gated_module: None };
        let classify = |predicate: &str| classify_site(&site(predicate), &not_enabled, &enabled);
        assert_eq!(classify("any(feature = \"std\", feature = \"critical-section\")"), None, "std is on: compiled");
        assert_eq!(classify("all(feature = \"std\", feature = \"parking_lot\")"), Some(SiteGate::Off(vec!["parking_lot".to_owned()])));
        assert_eq!(
            classify("all(feature = \"critical-section\", not(feature = \"std\"))"),
            Some(SiteGate::OffForEnabled(vec!["std".to_owned()])),
            "enabling critical-section alone does not compile it"
        );
        assert_eq!(classify("not(feature = \"std\")"), Some(SiteGate::OffForEnabled(vec!["std".to_owned()])));
        assert_eq!(classify("not(not(feature = \"parking_lot\"))"), Some(SiteGate::Off(vec!["parking_lot".to_owned()])));
        assert_eq!(classify("not(feature = \"parking_lot\")"), None, "compiled: parking_lot is off");
        assert_eq!(classify("any(test, feature = \"parking_lot\")"), None, "compiled in the test build");
        assert_eq!(classify("feature = \"undeclared\""), None, "no feature of the package can turn it on");
        // trial66 F3: named, and off on this host with it on (another target).
        assert_eq!(
            classify("all(target_os = \"unknown\", target_arch = \"wasm32\", feature = \"parking_lot\")"),
            Some(SiteGate::OffWithThemOn(vec!["parking_lot".to_owned()]))
        );
        let (positive, negative) = feature_polarity("all(feature = \"a\", not(any(feature = \"b\", target_os = \"x\")), feature=\"c\")");
        assert_eq!(
            (positive.into_iter().collect::<Vec<_>>(), negative.into_iter().collect::<Vec<_>>()),
            (vec!["a".to_owned(), "c".to_owned()], vec!["b".to_owned()])
        );
    }

    #[test]
    fn the_selection_splits_commas_and_builds_cargo_arguments() {
        let selection = FeatureSelection::new(false, &["serde, derive".to_owned(), "serde".to_owned()]);
        assert_eq!(selection.features, ["serde", "derive"]);
        assert_eq!(selection.cargo_args(), ["--features", "serde,derive"]);
        assert!(FeatureSelection::new(false, &[]).is_default());
        assert_eq!(FeatureSelection::new(true, &[]).cargo_args(), ["--all-features"]);
    }

    #[test]
    fn another_root_keeps_only_the_features_its_package_declares() {
        let manifest = "[package]\nname = \"downstream\"\n\n[features]\ndefault = [\"std\"]\nstd = []\n\n[dependencies]\nhex = { path = \"..\" }\nserde = { version = \"1\", optional = true }\n";
        let asked = FeatureSelection::new(
            false,
            &["alloc".to_owned(), "std".to_owned(), "serde".to_owned(), "hex/serde".to_owned(), "other/x".to_owned()],
        )
        .without_defaults(true);
        let (kept, left_out) = selection_for_other_root(&asked, manifest);
        assert_eq!(kept.features, ["std", "serde", "hex/serde"]);
        assert!(!kept.no_default_features, "a selection meant for another package keeps this one's defaults");
        assert_eq!(left_out.len(), 3, "{left_out:?}");
        assert!(left_out[0].starts_with("`alloc` (`downstream` declares no such feature)"), "{left_out:?}");
        assert!(left_out[1].starts_with("`other/x`"), "{left_out:?}");
        assert!(left_out[2].starts_with("`--no-default-features`"), "{left_out:?}");
        let (kept, left_out) =
            selection_for_other_root(&FeatureSelection::new(false, &["std".to_owned()]).without_defaults(true), manifest);
        assert!(kept.no_default_features && left_out.is_empty());
        // A virtual workspace manifest: cargo judges the selection.
        let (kept, left_out) = selection_for_other_root(&asked, "[workspace]\nmembers = [\"a\"]\n");
        assert_eq!(kept, asked);
        assert!(left_out.is_empty());
    }
}
