//! What a restricted run ([`crate::trust::WorkspaceTrust::Restricted`]) turns off, per language
//! server and per `"*"` checker, so that nothing the checkout provides is executed.
//!
//! Every server and checker: no project-local binary (`node_modules/.bin`, `.venv/bin`,
//! `venv/bin` are not searched) and no `PATH` entry that is relative or resolves inside the
//! workspace — neither for finding the binary nor in the child's own `PATH` (a
//! `#!/usr/bin/env node` script looks `node` up there).
//!
//! | server | restricted mode |
//! |---|---|
//! | rust-analyzer | `cargo.buildScripts.enable`, `procMacro.enable`, `checkOnSave` false (settings and `initializationOptions`); `linkedProjects` = the root's `Cargo.toml` only, so a checkout's `rust-project.json` (which names a sysroot whose `bin/rustc` rust-analyzer runs) is never read, and a root with only a `rust-project.json` gets no server; `cargo.sysroot` pinned to `rustc --print sysroot` of the rustc on the restricted search path; `cargo.extraEnv`, `check.extraEnv` empty and the override commands and proc-macro server unset (a `rust-analyzer.toml` in the checkout could set them); `RUSTC_WRAPPER` and `RUSTC_WORKSPACE_WRAPPER` empty. `cargo metadata`, which rust-analyzer still runs, applies the checkout's `.cargo/config.toml`: `build.rustc`, the wrappers and `rustflags` are overridden through the environment; `[env]` (e.g. `LD_PRELOAD` for the rustc processes cargo starts), `[unstable]`, `include`, credential providers and sections runbound does not know refuse the server, as does a `rust-toolchain(.toml)` naming a toolchain by `path` (rustup would run its binaries) |
//! | pyright, basedpyright | a project interpreter inside the workspace is not given as `python.pythonPath` (pyright runs it to list its search paths, and its startup runs the venv's `.pth` files): the interpreter the venv was made from (outside the workspace) is, and the venv's `site-packages` plus the paths its `.pth` files add are read as `extraPaths` — those outside the workspace (an editable install of another checkout) only when a restricted run may read them (system hierarchies, the repository around the workspace): the others are paths the checkout names, withheld and said |
//! | pylsp | the same interpreter swap for jedi's `environment`; the venv's packages are not added (jedi imports compiled extensions found on its `sys.path`), nor `<root>/src` when it holds compiled extensions |
//! | typescript-language-server | `tsserver.path` = the `typescript` installed beside the server (or the global `tsc`'s), never the project's `node_modules/typescript`; automatic type acquisition off; tsconfig plugins are loaded by tsserver only from its own install (no `--allowLocalPluginLoads`) |
//! | gopls | `GOTOOLCHAIN=local` (a `toolchain` line cannot switch to another Go); `go list` runs no module code, cgo flags are allow-listed by the go command |
//! | clangd | nothing more: compile commands are parsed, never run (no `--query-driver`) |
//! | dart | refused: the analysis server runs the analyzer plugins `analysis_options.yaml` names |
//! | a host-defined server | only the binary rule (runbound cannot know what it runs) |
//!
//! | checker | restricted mode |
//! |---|---|
//! | `cargo check` | refused: it runs build scripts and proc macros |
//! | `pyright` | global binary; `--pythonpath` = the base interpreter as above; with no pyright configuration in the project, a generated one (outside the workspace) names the venv so pyright reads its packages as files |
//! | `tsc` | global binary (tsc runs no tsconfig plugins) |
//! | `go vet` / `go build` | `GOTOOLCHAIN=local`; no module code runs (no build scripts in Go) |
//! | `dart analyze` | refused (analyzer plugins) |
//! | clang-tidy / `clangd --check` | as clangd |

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::lsp::servers::{merge_json, RootConfiguration, ServerDefinition};
use crate::python_env::{display_interpreter_path, PythonInterpreter};
use crate::trust::{resolves_inside, RestrictedSearchPath};

/// The project-local binary directories a trusted run searches first (relative to a root and
/// to the workspace root) and a restricted run never does.
pub const PROJECT_LOCAL_BIN_DIRS: [&str; 3] = ["node_modules/.bin", ".venv/bin", "venv/bin"];

/// Why `definition` cannot run for `root` without executing the checkout's code, when that is
/// so (checked before anything starts; see the module table).
pub fn server_refusal(definition: &ServerDefinition, root: &Path, workspace_root: &Path) -> Option<String> {
    match definition.id.as_str() {
        "dart" => Some(
            "the Dart analysis server runs the analyzer plugins that analysis_options.yaml names (code from the project and its packages)"
                .to_owned(),
        ),
        "rust-analyzer" => {
            let mut reasons = rust_toolchain_refusal(root, workspace_root).into_iter().collect::<Vec<_>>();
            reasons.extend(cargo_config_review(root, workspace_root).refused);
            (!reasons.is_empty()).then(|| {
                format!("rust-analyzer runs `cargo metadata`, and cargo would act on what the checkout configures: {}", reasons.join("; "))
            })
        }
        _ => None,
    }
}

/// Splits a restricted run's venv import roots ([`crate::python_env::static_search_paths`]) into
/// those a restricted run reads — inside the workspace, under a system hierarchy, or under an
/// outside root granted in restricted runs too (the repository around the workspace) — and
/// those it withholds: directories outside that the venv's `.pth` files name.
fn readable_search_paths(found: Vec<PathBuf>, workspace_root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let granted: Vec<PathBuf> = crate::lsp::confinement::project_outside_roots(workspace_root, crate::trust::WorkspaceTrust::Restricted)
        .into_iter()
        .filter(|root| root.granted)
        .map(|root| root.path)
        .collect();
    found.into_iter().partition(|path| {
        path.starts_with(workspace_root)
            || crate::lsp::confinement::SYSTEM_READ_ROOTS.iter().any(|system| path.starts_with(system))
            || granted.iter().any(|root| path.starts_with(root))
    })
}

/// Adjusts `configured` (a server's start configuration for `root`) for a restricted run and
/// returns the line its answers carry. `binary` is the resolved server binary; `child_path` is
/// the restricted `PATH` for the child; `search` the restricted search path for binaries.
///
/// # Errors
/// The refusal of [`server_refusal`], or a sentence when something the restricted start needs
/// is missing (typescript-language-server without a `typescript` outside the workspace).
pub fn restrict_server(
    configured: &mut RootConfiguration,
    root: &Path,
    workspace_root: &Path,
    binary: &Path,
    child_path: &RestrictedSearchPath,
    search: Option<&OsString>,
) -> Result<String, String> {
    let id = configured.definition.id.clone();
    if let Some(refusal) = server_refusal(&configured.definition, root, workspace_root) {
        return Err(refusal);
    }
    let mut off: Vec<String> = Vec::new();
    let skipped = project_local_candidates(&configured.definition.binary_names, root, workspace_root);
    if !skipped.is_empty() {
        off.push(format!(
            "the project's own {} not run (using {})",
            skipped.iter().map(|path| display_interpreter_path(workspace_root, path)).collect::<Vec<_>>().join(", "),
            binary.display()
        ));
    }
    if !child_path.removed.is_empty() {
        configured.definition.env.push(("PATH".to_owned(), child_path.value.clone().unwrap_or_default().to_string_lossy().into_owned()));
        off.push(format!(
            "PATH entries inside the workspace or relative removed ({})",
            child_path.removed.iter().map(|dir| dir.display().to_string()).collect::<Vec<_>>().join(", ")
        ));
    }
    let definition = &mut configured.definition;
    match id.as_str() {
        "rust-analyzer" => {
            let sysroot = toolchain_sysroot(root, workspace_root, search)?;
            let manifest = root.join("Cargo.toml");
            let mut off_settings = json!({
                "cargo": {
                    "buildScripts": {"enable": false, "overrideCommand": null},
                    "extraEnv": {},
                    "sysroot": sysroot.as_ref().map(|path| path.to_string_lossy().into_owned()),
                },
                "procMacro": {"enable": false, "server": null},
                "checkOnSave": false,
                "check": {"overrideCommand": null, "extraEnv": {}},
                "linkedProjects": [manifest.to_string_lossy()],
            });
            if let Some(sysroot) = &sysroot {
                let source = sysroot.join("lib/rustlib/src/rust/library");
                merge_json(&mut off_settings, json!({"cargo": {"sysrootSrc": source.to_string_lossy()}}));
            }
            merge_json(&mut definition.settings, json!({"rust-analyzer": off_settings.clone()}));
            merge_json(&mut definition.initialization_options, off_settings);
            let project_json: Vec<String> = [root.join("rust-project.json"), root.join(".rust-project.json")]
                .iter()
                .filter(|path| path.exists())
                .map(|path| display_interpreter_path(workspace_root, path))
                .collect();
            off.push(format!(
                "only {} is loaded (linkedProjects){}; sysroot pinned to {}",
                display_interpreter_path(workspace_root, &manifest),
                if project_json.is_empty() {
                    String::new()
                } else {
                    format!(", the checkout's {} is not read (it can name a sysroot whose binaries rust-analyzer runs)", project_json.join(", "))
                },
                match &sysroot {
                    Some(path) => format!("the toolchain's own {}", path.display()),
                    None => "none (no rustc outside the workspace answered `rustc --print sysroot`): the standard library is missing from answers".to_owned(),
                }
            ));
            definition.env.push(("RUSTC_WRAPPER".to_owned(), String::new()));
            definition.env.push(("RUSTC_WORKSPACE_WRAPPER".to_owned(), String::new()));
            off.push(
                "no build scripts (build.rs), proc macros or cargo check: code they generate or expand is missing from answers".to_owned(),
            );
            let review = cargo_config_review(root, workspace_root);
            if review.sets_rustc {
                definition.env.push(("RUSTC".to_owned(), "rustc".to_owned()));
            }
            if review.sets_rustflags && std::env::var_os("CARGO_ENCODED_RUSTFLAGS").is_none() && std::env::var_os("RUSTFLAGS").is_none() {
                definition.env.push(("CARGO_ENCODED_RUSTFLAGS".to_owned(), String::new()));
            }
            off.extend(review.neutralized);
        }
        "pyright" | "basedpyright" => {
            if let Some(Ok(interpreter)) = &configured.interpreter {
                if interpreter_inside(interpreter, workspace_root) {
                    let base = base_or_search_path_python(interpreter, workspace_root, search);
                    if let Some(python) = definition.settings.get_mut("python").and_then(Value::as_object_mut) {
                        python.remove("pythonPath");
                    }
                    if let Some(base) = &base {
                        merge_json(&mut definition.settings, json!({"python": {"pythonPath": base.to_string_lossy()}}));
                    }
                    let found =
                        interpreter.venv_dir().map(|venv| crate::python_env::static_search_paths(venv, workspace_root)).unwrap_or_default();
                    // A `.pth` line of the venv (checkout content) naming a directory outside the
                    // workspace is a path the checkout chose: like a manifest's, not opened in a
                    // restricted run. Confined, pyright could not read it and exited 2–4 s after
                    // every start, each call answering "call again: the server is restarted"
                    // (trial28 M9: an editable install of another checkout).
                    let (readable, withheld) = readable_search_paths(found, workspace_root);
                    let extra: Vec<String> = readable.iter().map(|path| path.to_string_lossy().into_owned()).collect();
                    if !withheld.is_empty() {
                        let shown: Vec<String> = withheld.iter().take(3).map(|path| path.display().to_string()).collect();
                        off.push(format!(
                            "the venv's .pth files name {} outside the workspace ({}{}), not read: workspace trust is restricted, so a path the checkout names is not opened — imports of the packages there (an editable install of another checkout) are unresolved here; a human who trusts this checkout can pass --workspace-trust trusted",
                            if withheld.len() == 1 { "a directory".to_owned() } else { format!("{} directories", withheld.len()) },
                            shown.join(", "),
                            if withheld.len() > shown.len() { format!(" and {} more", withheld.len() - shown.len()) } else { String::new() }
                        ));
                    }
                    let section = if id == "basedpyright" { "basedpyright" } else { "python" };
                    merge_json(&mut definition.settings, json!({section: {"analysis": {"extraPaths": extra.clone()}}}));
                    if section != "python" {
                        merge_json(&mut definition.settings, json!({"python": {"analysis": {"extraPaths": extra.clone()}}}));
                    }
                    off.push(format!(
                        "the project interpreter {} is not run (its startup runs the environment's .pth files); {} reads {} as extraPaths{}",
                        display_interpreter_path(workspace_root, &interpreter.python),
                        id,
                        plural_dirs(extra.len()),
                        match &base {
                            Some(base) => format!(" and asks {} for the standard library", base.display()),
                            None => " (no interpreter outside the workspace found for the standard library)".to_owned(),
                        }
                    ));
                }
            }
        }
        "pylsp" => {
            if let Some(Ok(interpreter)) = &configured.interpreter {
                if interpreter_inside(interpreter, workspace_root) {
                    let base = base_or_search_path_python(interpreter, workspace_root, search);
                    for value in [&mut definition.settings, &mut definition.initialization_options] {
                        if let Some(jedi) = value.pointer_mut("/pylsp/plugins/jedi").and_then(Value::as_object_mut) {
                            match &base {
                                Some(base) => {
                                    jedi.insert("environment".to_owned(), json!(base.to_string_lossy()));
                                }
                                None => {
                                    jedi.remove("environment");
                                }
                            }
                        }
                    }
                    off.push(format!(
                        "the project interpreter {} is not run; jedi uses {} and does not see the packages installed there",
                        display_interpreter_path(workspace_root, &interpreter.python),
                        base.as_ref().map_or_else(|| "pylsp's own interpreter".to_owned(), |base| base.display().to_string())
                    ));
                }
            }
            let src = root.join("src");
            if has_compiled_extension(workspace_root, &src) {
                for value in [&mut definition.settings, &mut definition.initialization_options] {
                    if let Some(jedi) = value.pointer_mut("/pylsp/plugins/jedi").and_then(Value::as_object_mut) {
                        jedi.insert("extra_paths".to_owned(), json!([]));
                    }
                }
                off.push(format!(
                    "{} is not added to jedi's search path: it holds compiled extensions, which jedi would import",
                    display_interpreter_path(workspace_root, &src)
                ));
            }
        }
        "typescript-language-server" => {
            let Some(tsserver) = trusted_tsserver(binary, search, workspace_root) else {
                return Err(format!(
                    "typescript-language-server would use the project's node_modules/typescript: no typescript outside the workspace was found beside {} or for `tsc` on PATH (install typescript globally)",
                    binary.display()
                ));
            };
            merge_json(
                &mut definition.initialization_options,
                json!({"tsserver": {"path": tsserver.to_string_lossy()}, "disableAutomaticTypingAcquisition": true}),
            );
            let local = root.join("node_modules/typescript/lib/tsserver.js");
            off.push(format!(
                "tsserver from {}{}; automatic type acquisition off; tsconfig plugins load only from that install",
                tsserver.display(),
                if local.is_file() { " (the project's node_modules/typescript is not run)" } else { "" }
            ));
        }
        "gopls" => {
            definition.env.push(("GOTOOLCHAIN".to_owned(), "local".to_owned()));
            off.push("GOTOOLCHAIN=local (go.mod cannot switch to another Go toolchain)".to_owned());
        }
        "clangd" => {}
        _ => off.push(format!(
            "{id} is not a built-in server: only project-local binaries are refused; runbound cannot tell whether it runs project code"
        )),
    }
    if off.is_empty() {
        off.push("nothing of the checkout is run by this server".to_owned());
    }
    Ok(format!("workspace trust: restricted — {id}: {}", off.join("; ")))
}

/// The sysroot of the toolchain a restricted rust-analyzer is pinned to: `rustc --print sysroot`
/// of the `rustc` on the restricted search path (never one inside the workspace), run in `root` so
/// that rustup honours a `rust-toolchain.toml` naming an installed channel (one naming a path was
/// refused before). `Ok(None)` when no such rustc answers (rust-analyzer then loads no sysroot).
///
/// # Errors
/// A sentence when the sysroot the toolchain reports lies inside the workspace.
pub fn toolchain_sysroot(root: &Path, workspace_root: &Path, search: Option<&OsString>) -> Result<Option<PathBuf>, String> {
    let Some(rustc) = which::which_in("rustc", search, workspace_root).ok().filter(|found| !resolves_inside(workspace_root, found)) else {
        return Ok(None);
    };
    let mut spec = crate::transport::ProcessSpec::new(rustc, root)
        .with_args(["--print", "sysroot"])
        .with_display_name("rustc --print sysroot")
        .with_env_remove("RUSTC_WRAPPER");
    if let Some(search) = search {
        spec = spec.with_env("PATH", search.clone());
    }
    let done = match crate::transport::run_to_completion(spec, b"", std::time::Duration::from_secs(20), 64 * 1024) {
        Ok(done) if done.status.success() && !done.timed_out => done,
        _ => return Ok(None),
    };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&done.stdout).trim());
    if sysroot.as_os_str().is_empty() || !sysroot.is_absolute() {
        return Ok(None);
    }
    if resolves_inside(workspace_root, &sysroot) {
        return Err(format!(
            "the toolchain's sysroot {} lies inside the workspace, and rust-analyzer runs the binaries found there",
            sysroot.display()
        ));
    }
    Ok(Some(sysroot))
}

/// The extraPaths a restricted Python server reads in words: `count` directories, the first the
/// environment's site-packages (a `.venv` without `lib/` has none: no directory is read).
fn plural_dirs(count: usize) -> String {
    match count {
        0 => "no directory of it (it has no site-packages)".to_owned(),
        1 => "its site-packages".to_owned(),
        n => format!("its site-packages and {} more director{}", n - 1, if n == 2 { "y" } else { "ies" }),
    }
}

/// Whether an interpreter, or the environment it belongs to, lies inside the workspace.
pub fn interpreter_inside(interpreter: &PythonInterpreter, workspace_root: &Path) -> bool {
    interpreter.python.starts_with(workspace_root)
        || resolves_inside(workspace_root, &interpreter.python)
        || interpreter.venv_dir().is_some_and(|venv| venv.starts_with(workspace_root) || resolves_inside(workspace_root, venv))
}

/// The interpreter a restricted run may start in place of `interpreter` (one inside the
/// workspace): the base the venv was made from, else `python3` / `python` on the restricted
/// search path — outside the workspace either way.
pub fn base_or_search_path_python(interpreter: &PythonInterpreter, workspace_root: &Path, search: Option<&OsString>) -> Option<PathBuf> {
    if let Some(base) = interpreter.venv_dir().and_then(|venv| crate::python_env::base_interpreter(venv, workspace_root)) {
        return Some(base);
    }
    let search = search?;
    ["python3", "python"]
        .iter()
        .filter_map(|name| which::which_in(name, Some(search), workspace_root).ok())
        .find(|found| !resolves_inside(workspace_root, found))
}

/// Executables named like the server's binaries in the project-local bin directories of `root`
/// and of the workspace root (what a trusted run would have started first).
pub fn project_local_candidates(binary_names: &[String], root: &Path, workspace_root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for base in [root, workspace_root] {
        for dir in PROJECT_LOCAL_BIN_DIRS {
            for name in binary_names {
                let candidate = base.join(dir).join(name);
                if candidate.is_file() && !found.contains(&candidate) {
                    found.push(candidate);
                }
            }
        }
    }
    found
}

/// The `tsserver.js` of a `typescript` package outside the workspace: the one the server's own
/// install would `require` (a `node_modules/typescript` in an ancestor of the server's resolved
/// path), else the one of `tsc` on the search path.
pub fn trusted_tsserver(binary: &Path, search: Option<&OsString>, workspace_root: &Path) -> Option<PathBuf> {
    let usable = |candidate: &Path| candidate.is_file() && !resolves_inside(workspace_root, candidate);
    if let Ok(resolved) = std::fs::canonicalize(binary) {
        for ancestor in resolved.ancestors().skip(1) {
            let nested = ancestor.join("node_modules/typescript/lib/tsserver.js");
            if usable(&nested) {
                return Some(nested);
            }
            if ancestor.file_name().is_some_and(|name| name == "node_modules") {
                let sibling = ancestor.join("typescript/lib/tsserver.js");
                if usable(&sibling) {
                    return Some(sibling);
                }
            }
        }
    }
    let tsc = which::which_in("tsc", search, workspace_root).ok()?;
    let resolved = std::fs::canonicalize(tsc).ok()?;
    let candidate = resolved.parent()?.parent()?.join("lib/tsserver.js");
    usable(&candidate).then_some(candidate)
}

/// Whether `dir` holds a compiled Python extension (`*.so`, `*.pyd`) within 6 levels (at most
/// 20,000 entries looked at; more counts as yes).
fn has_compiled_extension(workspace_root: &Path, dir: &Path) -> bool {
    // Listed beneath a handle of the run's root, no symlink followed (issue 13 §1).
    let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, dir) else { return false };
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(&handle, dir) else { return false };
    for (seen, entry) in walk.max_depth(Some(6)).standard_filters(false).iter().flatten().enumerate() {
        if seen > 20_000 {
            return true;
        }
        if entry.path().extension().is_some_and(|ext| ext == "so" || ext == "pyd") {
            return true;
        }
    }
    false
}

/// What the checkout's cargo configuration (`.cargo/config.toml` or `.cargo/config` in `root`
/// and its ancestors up to the workspace root, where cargo looks) asks of `cargo metadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CargoConfigReview {
    /// Settings that would run checkout-chosen code and cannot be overridden: `file: key — why`.
    pub refused: Vec<String>,
    /// Settings overridden through the environment: `file: key ignored`.
    pub neutralized: Vec<String>,
    /// `build.rustc` is set (overridden with `RUSTC=rustc`).
    pub sets_rustc: bool,
    /// Some `rustflags` is set (overridden with an empty `CARGO_ENCODED_RUSTFLAGS`).
    pub sets_rustflags: bool,
}

/// Reviews the checkout's cargo configuration for a restricted rust-analyzer (see
/// [`CargoConfigReview`] and the module table).
pub fn cargo_config_review(root: &Path, workspace_root: &Path) -> CargoConfigReview {
    const ALLOWED: &[&str] = &[
        "alias",
        "build",
        "cargo-new",
        "doc",
        "future-incompat-report",
        "cache",
        "http",
        "net",
        "patch",
        "paths",
        "profile",
        "registries",
        "registry",
        "resolver",
        "source",
        "target",
        "term",
        "host",
    ];
    let mut review = CargoConfigReview::default();
    if !root.starts_with(workspace_root) {
        // Nothing of the checkout to review (configuration above the workspace is the user's).
        return review;
    }
    // Read beneath the workspace root with no symlink followed; a file that is there but cannot
    // be read so (a symlink swapped onto its path) is refused, not skipped: cargo would read it.
    let reader = match crate::files::WorkspaceReader::open(workspace_root) {
        Ok(reader) => reader,
        Err(err) => {
            review.refused.push(err.message);
            return review;
        }
    };
    for dir in root.ancestors().take_while(|dir| dir.starts_with(workspace_root)) {
        for name in [".cargo/config.toml", ".cargo/config"] {
            let file = dir.join(name);
            let shown = display_interpreter_path(workspace_root, &file);
            let text = match reader.read_to_string(&file) {
                Ok(text) => text,
                Err(err) if err.kind == crate::ErrorKind::NotFound => continue,
                Err(err) => {
                    review.refused.push(format!("{shown} cannot be checked: {}", err.message));
                    continue;
                }
            };
            let document = match toml_edit::Document::parse(text) {
                Ok(document) => document,
                Err(_) => {
                    review.refused.push(format!("{shown} does not parse as TOML, so it cannot be checked"));
                    continue;
                }
            };
            for (key, item) in document.as_table().iter() {
                let table = item.as_table_like();
                let has = |sub: &str| table.is_some_and(|table| table.get(sub).is_some());
                match key {
                    "env" => review.refused.push(format!(
                        "{shown} sets [env] (cargo passes those variables, e.g. LD_PRELOAD, to the rustc processes `cargo metadata` starts)"
                    )),
                    "unstable" | "include" | "credential-alias" => {
                        review.refused.push(format!("{shown} sets `{key}`, which runbound cannot check"))
                    }
                    "registry" if has("credential-provider") || has("global-credential-providers") => {
                        review.refused.push(format!("{shown} names a registry credential provider (a program cargo runs)"))
                    }
                    "registries" => {
                        let providers = table.is_some_and(|table| {
                            table
                                .iter()
                                .any(|(_, registry)| registry.as_table_like().is_some_and(|r| r.get("credential-provider").is_some()))
                        });
                        if providers {
                            review.refused.push(format!("{shown} names a registry credential provider (a program cargo runs)"));
                        }
                    }
                    "build" => {
                        if has("rustc") {
                            review.sets_rustc = true;
                            review.neutralized.push(format!("{shown} build.rustc ignored (RUSTC=rustc)"));
                        }
                        for wrapper in ["rustc-wrapper", "rustc-workspace-wrapper"] {
                            if has(wrapper) {
                                review.neutralized.push(format!("{shown} build.{wrapper} ignored"));
                            }
                        }
                        if has("rustflags") {
                            review.sets_rustflags = true;
                            review.neutralized.push(format!("{shown} build.rustflags ignored"));
                        }
                    }
                    "target" | "host" => {
                        let flags = has("rustflags")
                            || table.is_some_and(|table| {
                                table.iter().any(|(_, nested)| nested.as_table_like().is_some_and(|n| n.get("rustflags").is_some()))
                            });
                        if flags {
                            review.sets_rustflags = true;
                            review.neutralized.push(format!("{shown} {key} rustflags ignored"));
                        }
                    }
                    other if ALLOWED.contains(&other) => {}
                    other => review.refused.push(format!("{shown} sets `[{other}]`, which runbound does not know and cannot check")),
                }
            }
        }
    }
    review
}

/// A `rust-toolchain.toml` / `rust-toolchain` (the first from `root` up to the workspace root,
/// as rustup finds it) that names a toolchain by path: rustup's proxies (`rust-analyzer`,
/// `cargo`, `rustc`) would run that directory's binaries. `None` when rustup is steered by
/// `RUSTUP_TOOLCHAIN` (which wins over the file) or the file names a channel.
pub fn rust_toolchain_refusal(root: &Path, workspace_root: &Path) -> Option<String> {
    if std::env::var_os("RUSTUP_TOOLCHAIN").is_some() {
        return None;
    }
    if !root.starts_with(workspace_root) {
        return None;
    }
    // Read beneath the workspace root, no symlink followed; unreadable so (but there) is refused.
    let reader = match crate::files::WorkspaceReader::open(workspace_root) {
        Ok(reader) => reader,
        Err(err) => return Some(err.message),
    };
    for dir in root.ancestors().take_while(|dir| dir.starts_with(workspace_root)) {
        for name in ["rust-toolchain", "rust-toolchain.toml"] {
            let file = dir.join(name);
            let shown = display_interpreter_path(workspace_root, &file);
            let text = match reader.read_to_string(&file) {
                Ok(text) => text,
                Err(err) if err.kind == crate::ErrorKind::NotFound => continue,
                Err(err) => return Some(format!("{shown} cannot be checked: {}", err.message)),
            };
            let by_path = match toml_edit::Document::parse(text.clone()) {
                Ok(document) if document.as_table().contains_key("toolchain") => {
                    let toolchain = document.as_table().get("toolchain").and_then(|item| item.as_table_like());
                    toolchain.is_some_and(|table| {
                        table.get("path").is_some()
                            || table.get("channel").and_then(|c| c.as_str()).is_some_and(|c| c.contains('/') || c.contains('\\'))
                    })
                }
                _ => {
                    text.lines().map(str::trim).find(|line| !line.is_empty()).is_some_and(|line| line.contains('/') || line.contains('\\'))
                }
            };
            return by_path.then(|| format!("{shown} names a toolchain by path (rustup would run the binaries found there)"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn cargo_config_env_and_unknown_sections_refuse_and_wrappers_are_overridden() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let member = ws.join("crates/a");
        write(&member.join("Cargo.toml"), "[package]\nname = \"a\"\n");
        assert_eq!(cargo_config_review(&member, &ws), CargoConfigReview::default());
        write(&ws.join(".cargo/config.toml"), "[alias]\nb = \"build\"\n[build]\nrustc-wrapper = \"./wrap.sh\"\ntarget-dir = \"t\"\n[target.x86_64-unknown-linux-gnu]\nrustflags = [\"--cfg\", \"x\"]\n");
        let review = cargo_config_review(&member, &ws);
        assert!(review.refused.is_empty(), "{review:?}");
        assert!(review.sets_rustflags && !review.sets_rustc, "{review:?}");
        assert_eq!(review.neutralized.len(), 2, "{review:?}");
        write(&member.join(".cargo/config"), "[env]\nLD_PRELOAD = { value = \"/x.so\", force = true }\n[mystery]\nx = 1\n[registries.corp]\nindex = \"sparse+https://x/\"\ncredential-provider = [\"./p\"]\n");
        let review = cargo_config_review(&member, &ws);
        assert_eq!(review.refused.len(), 3, "{review:?}");
        assert!(review.refused[0].contains("crates/a/.cargo/config sets [env]"), "{review:?}");
        // Configuration above the workspace root is the user's, not the checkout's.
        let review = cargo_config_review(&member, &member.join("sub"));
        assert_eq!(review, CargoConfigReview::default());
    }

    #[test]
    fn a_toolchain_file_naming_a_path_refuses_and_a_channel_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        if std::env::var_os("RUSTUP_TOOLCHAIN").is_some() {
            return;
        }
        assert_eq!(rust_toolchain_refusal(&ws, &ws), None);
        write(&ws.join("rust-toolchain.toml"), "[toolchain]\nchannel = \"1.80\"\n");
        assert_eq!(rust_toolchain_refusal(&ws, &ws), None);
        write(&ws.join("rust-toolchain.toml"), "[toolchain]\npath = \"/opt/evil\"\n");
        assert!(rust_toolchain_refusal(&ws, &ws).unwrap().contains("rust-toolchain.toml names a toolchain by path"));
        std::fs::remove_file(ws.join("rust-toolchain.toml")).unwrap();
        write(&ws.join("rust-toolchain"), "/opt/evil\n");
        assert!(rust_toolchain_refusal(&ws, &ws).is_some());
        write(&ws.join("rust-toolchain"), "nightly-2024-01-01\n");
        assert_eq!(rust_toolchain_refusal(&ws, &ws), None);
    }

    #[test]
    fn trusted_tsserver_is_found_beside_the_server_install_not_in_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let global = base.join("global/node_modules");
        write(&global.join("typescript-language-server/lib/cli.mjs"), "");
        write(&global.join("typescript/lib/tsserver.js"), "");
        let ws = base.join("ws");
        write(&ws.join("node_modules/typescript/lib/tsserver.js"), "");
        write(&ws.join("node_modules/typescript-language-server/lib/cli.mjs"), "");
        let found = trusted_tsserver(&global.join("typescript-language-server/lib/cli.mjs"), None, &ws);
        assert_eq!(found, Some(global.join("typescript/lib/tsserver.js")));
        let none = trusted_tsserver(&ws.join("node_modules/typescript-language-server/lib/cli.mjs"), None, &ws);
        assert_eq!(none, None, "a server inside the workspace finds only the workspace's typescript");
    }
}
