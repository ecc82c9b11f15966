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
//! `.rs` files (beneath the workspace root, `target/` and nested packages skipped) for
//! `feature = "NAME"` inside a `cfg(`, `cfg_attr(` or `cfg!(`.

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
    /// `.rs` files left unread for the file cap (0 normally).
    pub files_unread: usize,
    /// The package's build targets (`cargo metadata`'s `targets`, build scripts left out), so a
    /// check can say which of them cargo never got to.
    pub targets: Vec<CargoTarget>,
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
    for package in &packages {
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            let Some(target) = dependency["name"].as_str().filter(|name| tables.contains_key(*name)) else { continue };
            if dependency["path"].as_str().is_none() {
                continue;
            }
            let seed = seeds.entry(target.to_owned()).or_default();
            if dependency["uses_default_features"].as_bool() != Some(false) && tables[target].contains_key("default") {
                seed.insert("default".to_owned());
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
        let enabled = closure(table, &seeds[&name]);
        let not_enabled: Vec<String> =
            table.keys().filter(|feature| *feature != "default" && !enabled.contains(*feature)).cloned().collect();
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or(""));
        let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
        let (gated_files, negated_gates, files_unread) = if table.keys().any(|f| f != "default") {
            let others: Vec<&Path> =
                nested_roots.iter().filter(|other| **other != dir && other.starts_with(&dir)).map(PathBuf::as_path).collect();
            scan_gates(workspace_root, &dir, &others, &not_enabled, &enabled)
        } else {
            (Vec::new(), Vec::new(), 0)
        };
        out.push(PackageFeatures {
            package: name,
            manifest,
            enabled: enabled.into_iter().filter(|feature| feature != "default").collect(),
            not_enabled,
            gated_files,
            negated_gates,
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
) -> (Vec<GatedFile>, Vec<GatedFile>, usize) {
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
    for path in files {
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &path) else { continue };
        let mut off: (Option<u32>, BTreeSet<String>) = (None, BTreeSet::new());
        let mut neg: (Option<u32>, BTreeSet<String>) = (None, BTreeSet::new());
        let mut modules: Vec<GatedFile> = Vec::new();
        for gate in feature_gates(&text) {
            let (line, names) = if gate.negated && enabled.contains(&gate.feature) {
                (&mut neg.0, &mut neg.1)
            } else if gate.negated {
                // `not(feature = "X")` with X off: that code was compiled.
                continue;
            } else if not_enabled.contains(&gate.feature) {
                if let Some(module) = gate.gated_module.as_deref().and_then(|name| module_file(&path, name)) {
                    match modules.iter_mut().find(|known| known.path == module) {
                        Some(known) if !known.features.contains(&gate.feature) => known.features.push(gate.feature.clone()),
                        Some(_) => {}
                        None => modules.push(GatedFile {
                            path: module,
                            line: 1,
                            features: vec![gate.feature.clone()],
                            declared_at: Some((path.clone(), gate.line)),
                        }),
                    }
                }
                (&mut off.0, &mut off.1)
            } else {
                continue;
            };
            line.get_or_insert(gate.line);
            names.insert(gate.feature);
        }
        if let Some(line) = off.0 {
            gated.push(GatedFile { path: path.clone(), line, features: off.1.into_iter().collect(), declared_at: None });
        }
        gated.extend(modules);
        if let Some(line) = neg.0 {
            negated.push(GatedFile { path, line, features: neg.1.into_iter().collect(), declared_at: None });
        }
    }
    // A gated module file is named once, as a whole file (its declaration names the gate).
    gated.sort_by(|a, b| (a.path.as_path(), a.declared_at.is_none()).cmp(&(b.path.as_path(), b.declared_at.is_none())));
    gated.dedup_by(|later, earlier| later.path == earlier.path);
    // Whole gated module files first: they are where unchecked code is certain.
    gated.sort_by_key(|file| file.declared_at.is_none());
    (gated, negated, unread)
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

/// One `feature = "NAME"` inside a cfg.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FeatureGate {
    feature: String,
    /// 1-based line.
    line: u32,
    /// Directly inside `not(…)`.
    negated: bool,
    /// The `NAME` of a `mod NAME;` item the `#[cfg(…)]` attribute sits on (the whole module
    /// file is gated).
    gated_module: Option<String>,
}

/// The `feature = "NAME"` predicates of `text` that sit inside a `cfg(`, `cfg_attr(` or `cfg!(`
/// (at most 400 bytes after it, with no `]` or `;` between): not those in `Cargo.toml`-like
/// strings or docs. Comments (`//` to the end of the line) are skipped.
fn feature_gates(text: &str) -> Vec<FeatureGate> {
    let bytes = text.as_bytes();
    let mut gates = Vec::new();
    let mut search = 0;
    while let Some(found) = text[search..].find("feature") {
        let at = search + found;
        search = at + "feature".len();
        // A whole word.
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = text[search..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else { continue };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix('"') else { continue };
        let Some(end) = rest.find('"') else { continue };
        let name = &rest[..end];
        if name.is_empty() || name.contains(char::is_whitespace) {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if text[line_start..at].contains("//") {
            continue;
        }
        // The cfg it belongs to.
        let window_start = at.saturating_sub(400);
        let window_start = (window_start..=at).find(|i| text.is_char_boundary(*i)).unwrap_or(at);
        let before = &text[window_start..at];
        let Some(cfg_at) = before.rfind("cfg") else { continue };
        let between = &before[cfg_at..];
        let opener = between[3..].trim_start();
        if !(opener.starts_with('(') || opener.starts_with("_attr") || opener.starts_with("!(")) || between.contains([']', ';']) {
            continue;
        }
        // `doc(cfg(feature = "x"))` (docs.rs badges) gates nothing.
        if before[..cfg_at].trim_end().ends_with("doc(") {
            continue;
        }
        let negated = before.trim_end().strip_suffix('(').is_some_and(|head| head.trim_end().ends_with("not"));
        let line = text[..at].matches('\n').count() as u32 + 1;
        let gated_module = if opener.starts_with('(') && !negated { gated_module_after(&text[at..]) } else { None };
        gates.push(FeatureGate { feature: name.to_owned(), line, negated, gated_module });
    }
    gates
}

/// The module name of a `mod NAME;` item right after the attribute that `rest` is inside of
/// (further attributes and blank lines skipped; a `#[path = …]` module is not followed).
fn gated_module_after(rest: &str) -> Option<String> {
    let after = &rest[rest.find(']')? + 1..];
    for line in after.lines().map(str::trim).filter(|line| !line.is_empty()).take(8) {
        if line.starts_with("#[path") {
            return None;
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
        return (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| name.to_owned());
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
        let gates = feature_gates(text);
        let names: Vec<(&str, u32, bool)> = gates.iter().map(|g| (g.feature.as_str(), g.line, g.negated)).collect();
        assert_eq!(names, [("serde", 1, false), ("derive", 3, false), ("multi", 6, false), ("std", 8, true), ("mac", 13, false)]);
        let modules: Vec<Option<&str>> = gates.iter().map(|g| g.gated_module.as_deref()).collect();
        assert_eq!(modules, [Some("a"), None, None, None, None]);
        let gates = feature_gates(
            "#[cfg(feature = \"x\")]\n#[doc(hidden)]\npub(crate) mod inner;\n#[cfg(feature = \"y\")]\n#[path = \"o.rs\"]\nmod p;\n",
        );
        let modules: Vec<Option<&str>> = gates.iter().map(|g| g.gated_module.as_deref()).collect();
        assert_eq!(modules, [Some("inner"), None]);
    }

    #[test]
    fn the_selection_splits_commas_and_builds_cargo_arguments() {
        let selection = FeatureSelection::new(false, &["serde, derive".to_owned(), "serde".to_owned()]);
        assert_eq!(selection.features, ["serde", "derive"]);
        assert_eq!(selection.cargo_args(), ["--features", "serde,derive"]);
        assert!(FeatureSelection::new(false, &[]).is_default());
        assert_eq!(FeatureSelection::new(true, &[]).cargo_args(), ["--all-features"]);
    }
}
