//! Workspace trust: whether the run may execute code the checkout itself provides.
//!
//! Editors ask before they run a project's build scripts or its own tool binaries; runbound's
//! read-tier tools (`lsp`, the `"*"` checker) start language servers and checkers that would
//! otherwise do exactly that — rust-analyzer runs `build.rs` and proc macros, `cargo check` runs
//! them too, a `node_modules/.bin/typescript-language-server` or a `.venv/bin/python` is code the
//! checkout chose. A run therefore has a trust level:
//!
//! - [`WorkspaceTrust::Trusted`]: servers and checkers run as a developer would run them.
//! - [`WorkspaceTrust::Restricted`]: nothing the checkout provides is executed. No project-local
//!   server, checker or adapter binary (`node_modules/.bin`, `.venv/bin`, `venv/bin`, and no
//!   `PATH` entry inside the workspace or relative to it); rust-analyzer without build scripts,
//!   proc macros and `cargo check`; `cargo check` itself refused; a project interpreter inside the
//!   workspace is never started (its packages are read as files instead). What each server and
//!   checker turns off is listed in `crate::lsp::trust`, and every `lsp` answer of a restricted
//!   run says it in one line.
//!
//! The library's default is `Trusted` (a host that embeds runbound runs it over checkouts it
//! chose); the CLI defaults to `Restricted` for `plan` and `readonly` callers, whose tier
//! promises no side effects ([`WorkspaceTrust::default_for_caller`]).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::tier::Caller;

/// The run's workspace trust level (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceTrust {
    /// Run the project's own tooling as a developer would: build scripts, proc macros,
    /// project-local server binaries, the project's interpreter.
    #[default]
    Trusted,
    /// Execute nothing the checkout provides (see the module documentation).
    Restricted,
}

impl WorkspaceTrust {
    /// The lowercase wire name: `trusted` or `restricted`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkspaceTrust::Trusted => "trusted",
            WorkspaceTrust::Restricted => "restricted",
        }
    }

    /// Parses `trusted` / `restricted` (the CLI's `--workspace-trust` values).
    pub fn parse(text: &str) -> Option<WorkspaceTrust> {
        match text {
            "trusted" => Some(WorkspaceTrust::Trusted),
            "restricted" => Some(WorkspaceTrust::Restricted),
            _ => None,
        }
    }

    /// Whether the run is restricted.
    pub fn is_restricted(self) -> bool {
        self == WorkspaceTrust::Restricted
    }

    /// The CLI's default for a run acting as `caller`: `Restricted` for `plan` and `readonly`
    /// (their tools must have no side effects, and running a checkout's build script is one),
    /// `Trusted` for `main` (which may already write files and, with approval, run code).
    pub fn default_for_caller(caller: Caller) -> WorkspaceTrust {
        match caller {
            Caller::Main => WorkspaceTrust::Trusted,
            Caller::Plan | Caller::Readonly => WorkspaceTrust::Restricted,
        }
    }
}

impl fmt::Display for WorkspaceTrust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether `path` lies inside `workspace_root` (absolute, canonical), judged by where it
/// resolves: symlinks are followed (`canonicalize`); a path that does not exist is judged by its
/// nearest existing ancestor.
pub fn resolves_inside(workspace_root: &Path, path: &Path) -> bool {
    let mut probe = path.to_path_buf();
    let mut tail: Vec<OsString> = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(&probe) {
            let mut resolved = canonical;
            for part in tail.iter().rev() {
                resolved.push(part);
            }
            return resolved.starts_with(workspace_root);
        }
        match (probe.file_name().map(OsStr::to_os_string), probe.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                probe = parent.to_path_buf();
            }
            _ => return path.starts_with(workspace_root),
        }
    }
}

/// A `PATH` value with every entry a restricted run must not search removed: relative entries
/// (they resolve against the process's working directory, which for servers and checkers is a
/// project root) and entries that resolve inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestrictedSearchPath {
    /// The kept entries, joined (`None` when `PATH` was unset or nothing was kept).
    pub value: Option<OsString>,
    /// The removed entries, as written in `PATH`.
    pub removed: Vec<PathBuf>,
}

/// Filters `path_env` (a `PATH` value) for a restricted run over `workspace_root` (see
/// [`RestrictedSearchPath`]).
pub fn restricted_search_path(path_env: Option<&OsStr>, workspace_root: &Path) -> RestrictedSearchPath {
    let Some(path_env) = path_env else { return RestrictedSearchPath { value: None, removed: Vec::new() } };
    let (kept, removed): (Vec<PathBuf>, Vec<PathBuf>) = std::env::split_paths(path_env)
        .filter(|dir| !dir.as_os_str().is_empty())
        .partition(|dir| dir.is_absolute() && !resolves_inside(workspace_root, dir));
    let value = if kept.is_empty() { None } else { std::env::join_paths(&kept).ok() };
    RestrictedSearchPath { value, removed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_path_drops_relative_and_workspace_entries_and_symlinks_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let workspace = root.join("ws");
        std::fs::create_dir_all(workspace.join("node_modules/.bin")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::os::unix::fs::symlink(workspace.join("node_modules/.bin"), root.join("sneaky")).unwrap();
        let path_env = std::env::join_paths([
            PathBuf::from("/usr/bin"),
            PathBuf::from("node_modules/.bin"),
            workspace.join("node_modules/.bin"),
            root.join("sneaky"),
            root.join("tools"),
            workspace.join("not-yet-created/bin"),
        ])
        .unwrap();
        let filtered = restricted_search_path(Some(&path_env), &workspace);
        let kept: Vec<PathBuf> = std::env::split_paths(filtered.value.as_ref().unwrap()).collect();
        assert_eq!(kept, vec![PathBuf::from("/usr/bin"), root.join("tools")]);
        assert_eq!(filtered.removed.len(), 4, "{:?}", filtered.removed);
        assert_eq!(restricted_search_path(None, &workspace), RestrictedSearchPath { value: None, removed: Vec::new() });
    }

    #[test]
    fn callers_that_promise_no_side_effects_default_to_restricted() {
        assert_eq!(WorkspaceTrust::default_for_caller(Caller::Main), WorkspaceTrust::Trusted);
        assert_eq!(WorkspaceTrust::default_for_caller(Caller::Plan), WorkspaceTrust::Restricted);
        assert_eq!(WorkspaceTrust::default_for_caller(Caller::Readonly), WorkspaceTrust::Restricted);
        assert_eq!(WorkspaceTrust::default(), WorkspaceTrust::Trusted);
        assert_eq!(WorkspaceTrust::parse("restricted"), Some(WorkspaceTrust::Restricted));
        assert_eq!(WorkspaceTrust::parse("untrusted"), None);
    }
}
