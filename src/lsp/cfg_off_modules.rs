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

/// A module file the current configuration does not compile that names a changed item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CfgOffModuleUses {
    /// Absolute path of the module file.
    pub(crate) path: PathBuf,
    /// The sentence for the answer: which lines use which changed items, the gate and where it
    /// is declared, that no check of this configuration shows their errors, the next step.
    pub(crate) reason: String,
}

/// The module files under the `src/` of the packages of `written` (absolute Rust paths, read
/// beneath `workspace_root`), other than `skip`, that a known-off gate keeps out of the build
/// and that use one of `changed_items` (names from
/// [`crate::lsp::inactive::changed_rust_item_names`]; a macro's name ends in `!`) in code, not
/// in comments. At most [`MAX_FILES_READ`] files are read per package; sorted by path. Also
/// returns how many `.rs` files were left unread for that cap (0 normally), for the answer to say.
pub(crate) fn cfg_off_module_uses(
    workspace_root: &Path,
    written: &[PathBuf],
    changed_items: &[String],
    skip: &HashSet<PathBuf>,
    server_id: &str,
) -> (Vec<CfgOffModuleUses>, usize) {
    let mut files_not_read = 0usize;
    if changed_items.is_empty() {
        return (Vec::new(), files_not_read);
    }
    let mut packages: Vec<PathBuf> = written.iter().filter_map(|path| package_root(workspace_root, path)).collect();
    packages.sort();
    packages.dedup();
    let mut found = Vec::new();
    for package in packages {
        let source_dir = package.join("src");
        if !source_dir.is_dir() {
            continue;
        }
        let default_features = default_features(workspace_root, &package);
        let mut gates = HashMap::new();
        let skipped = |path: &Path| skip.contains(path) || written.iter().any(|written| written == path);
        files_not_read += for_each_rust_file(workspace_root, &source_dir, skipped, |path| {
            let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, path) else { return };
            if !changed_items.iter().any(|name| text.contains(name.trim_end_matches('!'))) {
                return;
            }
            let Some(gate) = module_gates(workspace_root, &source_dir, path, &mut gates)
                .into_iter()
                .find(|gate| evaluate_cfg_attribute(&gate.cfg, default_features.as_ref()) == Some(false))
            else {
                return;
            };
            let whole_file = crate::lsp::inactive::InactiveRange { start_line: 1, end_line: u32::MAX, message: gate.cfg.clone() };
            let uses = crate::lsp::inactive::inactive_uses(&[whole_file], &text, changed_items);
            if uses.is_empty() {
                return;
            }
            let shown = path.strip_prefix(workspace_root).unwrap_or(path).display().to_string();
            found.push(CfgOffModuleUses { path: path.to_path_buf(), reason: uses_sentence(server_id, &shown, &gate, &uses) });
        });
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    (found, files_not_read)
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
        let (found, files_not_read) = cfg_off_module_uses(&root, &written, &["advance".to_owned()], &HashSet::new(), "rust-analyzer");
        assert_eq!(files_not_read, 0);
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
        assert_eq!(cfg_off_module_uses(&root, &written, &["advance".to_owned()], &skipped, "rust-analyzer").0.len(), 1);
    }
}
