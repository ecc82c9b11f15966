//! Which interpreter serves a cell: the Python backend selection (`auto`, `cpython`,
//! `embedded`) and its resolution (host-configured executable, the project's `.venv`/`venv`,
//! `python3`/`python` on PATH, else the embedded RustPython), the Node executable, the
//! host-supplied sandbox, and the cell languages. Plain data and lookups: nothing here starts
//! a process.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which Python backend a run uses (CLI: global `--kernel auto|cpython|embedded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelSelection {
    /// CPython when one resolves (project `.venv`/`venv`, then `python3` on PATH), else the
    /// embedded interpreter when this build has it (cargo feature `embedded-python`).
    #[default]
    Auto,
    /// Spawned CPython only; an error when none resolves.
    Cpython,
    /// Embedded RustPython only (cargo feature `embedded-python`, on by default; in a build
    /// without it every Python cell fails with an error that says so). Refused when the run has
    /// a sandbox: an in-process interpreter cannot run inside it (R-EVAL-6).
    Embedded,
}

impl KernelSelection {
    /// Parses `auto`, `cpython` or `embedded` (case-insensitive).
    pub fn parse(text: &str) -> Option<KernelSelection> {
        match text.to_ascii_lowercase().as_str() {
            "auto" => Some(KernelSelection::Auto),
            "cpython" | "python" => Some(KernelSelection::Cpython),
            "embedded" | "rustpython" => Some(KernelSelection::Embedded),
            _ => None,
        }
    }

    /// The wire name: `auto`, `cpython` or `embedded`.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelSelection::Auto => "auto",
            KernelSelection::Cpython => "cpython",
            KernelSelection::Embedded => "embedded",
        }
    }
}

/// A host-supplied sandbox: kernels are started as `command_prefix… <interpreter> <args…>`
/// (e.g. `["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
/// "--die-with-parent", "--"]`). The prefix must pass stdin/stdout/stderr through. runbound never
/// creates a sandbox; without one, kernels run on the host (R-EVAL-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Program and arguments placed before the interpreter's command line. Must not be empty.
    pub command_prefix: Vec<OsString>,
    /// One line naming the sandbox for results and status (e.g. `"bubblewrap, read-only root"`).
    pub description: String,
}

/// The kernel resource of a run (R-REG-1: `eval` registers only when one is wired). Build with
/// [`KernelFactory::new`] and pass it to [`crate::RunBuilder::kernel_factory`].
#[derive(Debug, Clone, Default)]
pub struct KernelFactory {
    selection: KernelSelection,
    python_executable: Option<PathBuf>,
    node_executable: Option<PathBuf>,
    search_path: Option<OsString>,
    workspace_trust: crate::trust::WorkspaceTrust,
}

/// The Python backend that serves a workspace (see [`KernelFactory::resolve_python`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PythonBackend {
    /// A spawned CPython: this executable.
    Cpython(PathBuf),
    /// The embedded RustPython interpreter, in the host process.
    Embedded,
}

impl PythonBackend {
    /// `cpython` or `embedded`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PythonBackend::Cpython(_) => "cpython",
            PythonBackend::Embedded => "embedded",
        }
    }
}

/// Whether this build contains the embedded RustPython backend (cargo feature `embedded-python`).
pub const EMBEDDED_PYTHON_BUILT: bool = cfg!(feature = "embedded-python");

impl KernelFactory {
    /// A factory with [`KernelSelection::Auto`] and interpreters found at call time.
    pub fn new() -> KernelFactory {
        KernelFactory::default()
    }

    /// Sets the Python backend selection.
    #[must_use]
    pub fn selection(mut self, selection: KernelSelection) -> KernelFactory {
        self.selection = selection;
        self
    }

    /// Uses this CPython executable instead of resolving one.
    #[must_use]
    pub fn python_executable(mut self, path: impl Into<PathBuf>) -> KernelFactory {
        self.python_executable = Some(path.into());
        self
    }

    /// Uses this Node executable instead of `node` on PATH.
    #[must_use]
    pub fn node_executable(mut self, path: impl Into<PathBuf>) -> KernelFactory {
        self.node_executable = Some(path.into());
        self
    }

    /// Looks interpreters up on this PATH-style list instead of the process's `PATH`.
    #[must_use]
    pub fn search_path(mut self, path: impl Into<OsString>) -> KernelFactory {
        self.search_path = Some(path.into());
        self
    }

    /// The run's workspace trust (set by [`crate::RunBuilder::build`] from
    /// [`crate::RunBuilder::workspace_trust`]). Restricted: no interpreter the checkout provides
    /// is started — the project's `.venv/bin/python` / `venv/bin/python` is passed over, and
    /// `python3`, `python` and `node` are looked up only in absolute PATH entries outside the
    /// workspace, never resolving (through symlinks) inside it. An executable the host
    /// configured ([`KernelFactory::python_executable`], [`KernelFactory::node_executable`]) is
    /// the host's choice and kept.
    #[must_use]
    pub fn workspace_trust(mut self, trust: crate::trust::WorkspaceTrust) -> KernelFactory {
        self.workspace_trust = trust;
        self
    }

    /// The configured selection.
    pub fn selected(&self) -> KernelSelection {
        self.selection
    }

    /// Which Python backend serves `workspace` and why: `Ok((backend, reason))`, or
    /// `Err(reason)` when none can. CPython candidates in order: the host-configured executable,
    /// `<workspace>/.venv/bin/python`, `<workspace>/venv/bin/python` (not in a restricted
    /// workspace: see [`KernelFactory::workspace_trust`]), `python3` then `python` on PATH
    /// (restricted: outside the workspace only). `auto` falls back to [`PythonBackend::Embedded`] when none resolves (and this build
    /// has it). Does not consider a sandbox; [`super::Kernels::resolve_python`] does.
    pub fn resolve_python(&self, workspace: &Path) -> Result<(PythonBackend, String), String> {
        if self.selection == KernelSelection::Embedded {
            if !EMBEDDED_PYTHON_BUILT {
                return Err("--kernel embedded was selected, but this build has no embedded RustPython backend \
                     (it was compiled without the cargo feature embedded-python); select cpython or auto"
                    .to_owned());
            }
            return Ok((PythonBackend::Embedded, "--kernel embedded was selected".to_owned()));
        }
        if let Some(path) = &self.python_executable {
            return Ok((PythonBackend::Cpython(path.clone()), format!("the host configured {}", path.display())));
        }
        let restricted = self.workspace_trust.is_restricted();
        let passed_over = match crate::python_env::project_venv_python(workspace) {
            Some(candidate) => {
                let shown = candidate.strip_prefix(workspace).unwrap_or(&candidate).display().to_string();
                if !restricted {
                    return Ok((PythonBackend::Cpython(candidate), format!("the project's {shown}")));
                }
                Some(shown)
            }
            None => None,
        };
        for name in ["python3", "python"] {
            if let Some(path) = self.find_on_path(name, workspace) {
                let why = match &passed_over {
                    Some(shown) => format!(
                        "{name} on PATH outside the workspace: the workspace trust is restricted, so the project's {shown} is not \
                         started and its packages are not importable (a human who trusts this checkout can pass \
                         --workspace-trust trusted)"
                    ),
                    None if restricted => {
                        format!("{name} on PATH outside the workspace (no .venv/bin/python or venv/bin/python in the workspace)")
                    }
                    None => format!("{name} on PATH (no .venv/bin/python or venv/bin/python in the workspace)"),
                };
                return Ok((PythonBackend::Cpython(path), why));
            }
        }
        let tried = ".venv/bin/python, venv/bin/python, python3 and python on PATH were tried";
        match self.selection {
            KernelSelection::Auto if EMBEDDED_PYTHON_BUILT => {
                Ok((PythonBackend::Embedded, format!("auto: no CPython found ({tried}), so the embedded RustPython interpreter")))
            }
            KernelSelection::Auto => Err(format!("no CPython found ({tried}) and this build has no embedded RustPython backend")),
            _ => Err(format!("no CPython found ({tried}) and --kernel cpython was selected")),
        }
    }

    fn find_on_path(&self, name: &str, workspace: &Path) -> Option<PathBuf> {
        if self.workspace_trust.is_restricted() {
            return self.find_outside(name, workspace);
        }
        match &self.search_path {
            Some(path) => which::which_in(name, Some(path), workspace).ok(),
            None => which::which(name).ok(),
        }
    }

    /// `name` in the absolute search-path entries outside `workspace`, not resolving inside it
    /// (a restricted workspace).
    fn find_outside(&self, name: &str, workspace: &Path) -> Option<PathBuf> {
        let path = self.search_path.clone().or_else(|| std::env::var_os("PATH"))?;
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute() && !crate::trust::resolves_inside(workspace, dir))
            .find_map(|dir| which::which_in(name, Some(&dir), "/").ok().filter(|found| !crate::trust::resolves_inside(workspace, found)))
    }

    /// The CPython that runs the process guardian of a JavaScript kernel (a Python kernel's
    /// guardian is its own interpreter): the host-configured Python executable, else `python3`
    /// then `python` on PATH; or why there is none (the kernel then runs unguarded).
    ///
    /// # Errors
    ///
    /// One sentence saying what was looked for.
    pub fn resolve_guardian_python(&self, workspace: &Path) -> Result<PathBuf, String> {
        if let Some(path) = &self.python_executable {
            return Ok(path.clone());
        }
        ["python3", "python"]
            .into_iter()
            .find_map(|name| self.find_on_path(name, workspace))
            .ok_or_else(|| "no CPython to run the process guardian (python3 and python are not on PATH)".to_owned())
    }

    /// The Node executable, or why there is none. Restricted workspace: only outside `workspace` (see [`KernelFactory::workspace_trust`]).
    ///
    /// # Errors
    ///
    /// One sentence saying what was looked for.
    pub fn resolve_node(&self, workspace: &Path) -> Result<PathBuf, String> {
        if let Some(path) = &self.node_executable {
            return Ok(path.clone());
        }
        if self.workspace_trust.is_restricted() {
            return self.find_outside("node", workspace).ok_or_else(|| {
                "node was not found on PATH outside the workspace (restricted workspace trust); install Node.js (v18 or newer)".to_owned()
            });
        }
        let found = match &self.search_path {
            Some(path) => which::which_in("node", Some(path), "/"),
            None => which::which("node"),
        };
        found.map_err(|_| "node was not found on PATH; install Node.js (v18 or newer)".to_owned())
    }
}

/// A cell language (`python` or `javascript` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Python (CPython).
    Python,
    /// JavaScript (Node).
    Javascript,
}

impl Language {
    /// `python` or `javascript`.
    pub fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("python")
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Language::Python => 0,
            Language::Javascript => 1,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(path: &Path) {
        crate::test_support::write_executable(path, "#!/bin/sh\nexit 1\n");
    }

    /// Issue 13 §2: a restricted run's kernel never starts an interpreter the checkout provides
    /// (the project's `.venv` python, a `python3` or `node` on a PATH entry inside the
    /// workspace); a trusted run keeps the project's venv first.
    #[test]
    fn a_restricted_workspace_starts_no_interpreter_of_the_checkout() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let workspace = base.join("ws");
        executable(&workspace.join(".venv/bin/python"));
        for name in ["python3", "node"] {
            executable(&workspace.join("bin").join(name));
            executable(&base.join("outside").join(name));
        }
        let search = std::env::join_paths([workspace.join("bin"), base.join("outside")]).unwrap();
        let trusted = KernelFactory::new().selection(KernelSelection::Cpython).search_path(search.clone());
        let (backend, why) = trusted.resolve_python(&workspace).unwrap();
        assert_eq!((backend, why.as_str()), (PythonBackend::Cpython(workspace.join(".venv/bin/python")), "the project's .venv/bin/python"));
        assert_eq!(trusted.resolve_node(&workspace).unwrap(), workspace.join("bin/node"));
        let restricted = trusted.workspace_trust(crate::trust::WorkspaceTrust::Restricted);
        let (backend, why) = restricted.resolve_python(&workspace).unwrap();
        assert_eq!(backend, PythonBackend::Cpython(base.join("outside/python3")));
        assert!(why.contains("restricted") && why.contains(".venv/bin/python is not started"), "{why}");
        assert_eq!(restricted.resolve_node(&workspace).unwrap(), base.join("outside/node"));
        assert_eq!(restricted.resolve_guardian_python(&workspace).unwrap(), base.join("outside/python3"));
        let only_inside = restricted.search_path(workspace.join("bin").into_os_string());
        assert!(only_inside.resolve_python(&workspace).is_err());
        assert!(only_inside.resolve_node(&workspace).unwrap_err().contains("outside the workspace"));
    }
}
