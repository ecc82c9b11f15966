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

    /// The configured selection.
    pub fn selected(&self) -> KernelSelection {
        self.selection
    }

    /// Which Python backend serves `workspace` and why: `Ok((backend, reason))`, or
    /// `Err(reason)` when none can. CPython candidates in order: the host-configured executable,
    /// `<workspace>/.venv/bin/python`, `<workspace>/venv/bin/python`, `python3` then `python` on
    /// PATH. `auto` falls back to [`PythonBackend::Embedded`] when none resolves (and this build
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
        if let Some(candidate) = crate::python_env::project_venv_python(workspace) {
            let shown = candidate.strip_prefix(workspace).unwrap_or(&candidate).display().to_string();
            return Ok((PythonBackend::Cpython(candidate), format!("the project's {shown}")));
        }
        for name in ["python3", "python"] {
            if let Some(path) = self.find_on_path(name, workspace) {
                return Ok((
                    PythonBackend::Cpython(path),
                    format!("{name} on PATH (no .venv/bin/python or venv/bin/python in the workspace)"),
                ));
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
        match &self.search_path {
            Some(path) => which::which_in(name, Some(path), workspace).ok(),
            None => which::which(name).ok(),
        }
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

    /// The Node executable, or why there is none.
    pub fn resolve_node(&self) -> Result<PathBuf, String> {
        if let Some(path) = &self.node_executable {
            return Ok(path.clone());
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
