//! The command line's shape: clap structs and the `ValueEnum` choices, mapped onto the
//! library's own types (`Caller`, `Approval`, `WorkspaceTrust`, `KernelSelection`).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use runbound::kernel::KernelSelection;
use runbound::vibe::{WorkerBackendKind, WorkerTier};
use runbound::{Approval, Caller, WorkspaceTrust};

/// Built-in agent tools bound to the live resources of one run.
///
/// Every tool path is resolved inside the workspace. Tiers decide visibility: plan and readonly
/// callers see read-tier tools only.
#[derive(Debug, Parser)]
#[command(name = "runbound", version, about, long_about = None)]
pub struct Cli {
    /// Workspace root; every tool path is resolved inside it.
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    pub workspace: PathBuf,
    /// Who is calling: main sees read, write and exec tools; plan and readonly see read tools only.
    /// Default main, except inside a vibe worker spawned by a plan or readonly caller
    /// (RUNBOUND_WORKER_CALLER=plan|readonly): there the default is that caller, and --caller
    /// main is refused (a worker never sees more than the caller that spawned it).
    #[arg(long, global = true, value_enum)]
    pub caller: Option<CallerArg>,
    /// Approval for write and exec tools: ask (a terminal prompt or MCP elicitation; denied when
    /// no human is attached), allow, or deny. Read tools are always allowed.
    #[arg(long, global = true, value_enum, default_value_t = ApproveArg::Ask)]
    pub approve: ApproveArg,
    /// Workspace trust: trusted runs the project's own tooling (rust-analyzer's build scripts and
    /// proc macros, cargo check, project-local server binaries such as node_modules/.bin, the
    /// project's .venv python); restricted runs nothing the checkout provides. Default:
    /// restricted for --caller plan and readonly (their tools promise no side effects), trusted
    /// for main. Inside a vibe worker of a restricted run (RUNBOUND_WORKER_WORKSPACE_TRUST=
    /// restricted) the run is restricted and trusted is refused.
    #[arg(long, global = true, value_enum)]
    pub workspace_trust: Option<TrustArg>,
    /// Start language servers and project checkers WITHOUT the Landlock confinement of their
    /// file access. By default (both trust levels) they may read only beneath the workspace,
    /// the dependency roots (interpreter prefix, toolchain homes, module caches, their own
    /// install) and system hierarchies, so a symlink in the checkout that leads elsewhere fails
    /// in the server instead of being read and quoted. Debug adapters and eval kernels are never
    /// confined (they run the user's program).
    #[arg(long, global = true)]
    pub no_language_server_file_confinement: bool,
    /// Conversation id of this run (default: generated per process).
    #[arg(long, global = true, value_name = "ID")]
    pub conversation_id: Option<String>,
    /// Python kernel for `eval`: auto (CPython when one resolves — project .venv, venv, then
    /// python3 on PATH — else the embedded RustPython), cpython, or embedded.
    #[arg(long, global = true, value_enum, ignore_case = true, value_name = "KIND", default_value_t = KernelArg::Auto)]
    pub kernel: KernelArg,
    /// Wall-clock cap of one `eval` cell, in seconds, whatever it prints (default 1800: 30
    /// minutes). A cell still running at the cap is interrupted like a notebook cell and its
    /// result says `stopped_by: cell_wall_clock_cap`; the inactivity budget (5 minutes without
    /// output) applies besides it.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub cell_wall_clock_cap: Option<u64>,
    /// Turn vibe mode on: registers vibe_spawn, vibe_send, vibe_wait, vibe_kill, vibe_list.
    #[arg(long, global = true)]
    pub vibe: bool,
    /// Command line of a worker tier, as TIER=COMMAND (tiers: fast, good); repeatable. The
    /// brief arrives on stdin, stdout is the result. Needs --vibe.
    #[arg(long, global = true, value_name = "TIER=COMMAND")]
    pub worker: Vec<String>,
    /// Where worker tiers run: `command` (this machine, the default) or `ray` (jobs on the Ray
    /// cluster at --ray-address), for every tier or for one as TIER=BACKEND (e.g. good=ray);
    /// repeatable, later values win. Needs --vibe.
    #[arg(long, global = true, value_name = "[TIER=]BACKEND", value_parser = parse_worker_backend)]
    pub worker_backend: Vec<WorkerBackendArg>,
    /// The Ray cluster's dashboard URL for --worker-backend ray, e.g. http://127.0.0.1:8265
    /// (what `ray job submit --address` takes). Needs --vibe.
    #[arg(long, global = true, value_name = "URL")]
    pub ray_address: Option<String>,
    /// Most workers running at once, for every backend in use or for one as BACKEND=N (e.g.
    /// ray=32, command=2); repeatable, later values win. Defaults: 8 on this machine, 8 jobs on
    /// Ray. Further workers wait as pending; `status` shows each backend's cap. Needs --vibe.
    #[arg(long, global = true, value_name = "[BACKEND=]N", value_parser = parse_max_running_workers)]
    pub max_running_workers: Vec<MaxRunningWorkersArg>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the MCP Tool descriptors visible to the caller, as a JSON array.
    Tools,
    /// Call one tool and print its result (MCP CallToolResult JSON). Exit 1 when isError.
    Call {
        /// Tool name, e.g. read.
        tool: String,
        /// Arguments as a JSON object, or - to read them from stdin (default: {}).
        args: Option<String>,
    },
    /// Say what is wired for this workspace: run, ask port, tools per tier.
    Status {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Serve this run as an MCP server over stdio (newline-delimited JSON-RPC 2.0).
    Serve,
}

/// `--caller`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CallerArg {
    /// Read, write and exec tools.
    Main,
    /// Read tools only (a planning agent).
    Plan,
    /// Read tools only (a read-only subagent).
    Readonly,
}

impl From<CallerArg> for Caller {
    fn from(caller: CallerArg) -> Caller {
        match caller {
            CallerArg::Main => Caller::Main,
            CallerArg::Plan => Caller::Plan,
            CallerArg::Readonly => Caller::Readonly,
        }
    }
}

/// `--approve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApproveArg {
    /// A permission card (terminal or MCP elicitation); denied when no human is attached.
    Ask,
    /// Run write and exec tools without asking.
    Allow,
    /// Never run write and exec tools.
    Deny,
}

impl From<ApproveArg> for Approval {
    fn from(approve: ApproveArg) -> Approval {
        match approve {
            ApproveArg::Ask => Approval::Ask,
            ApproveArg::Allow => Approval::Allow,
            ApproveArg::Deny => Approval::Deny,
        }
    }
}

/// `--workspace-trust`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TrustArg {
    /// Run the project's own tooling (build scripts, proc macros, cargo check, project-local
    /// server binaries, the project's virtual environment).
    Trusted,
    /// Run nothing the checkout provides.
    Restricted,
}

impl From<TrustArg> for WorkspaceTrust {
    fn from(trust: TrustArg) -> WorkspaceTrust {
        match trust {
            TrustArg::Trusted => WorkspaceTrust::Trusted,
            TrustArg::Restricted => WorkspaceTrust::Restricted,
        }
    }
}

/// `--kernel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KernelArg {
    /// CPython when one resolves, else the embedded RustPython.
    Auto,
    /// Spawned CPython only.
    #[value(alias = "python")]
    Cpython,
    /// The embedded RustPython only.
    #[value(alias = "rustpython")]
    Embedded,
}

impl From<KernelArg> for KernelSelection {
    fn from(kernel: KernelArg) -> KernelSelection {
        match kernel {
            KernelArg::Auto => KernelSelection::Auto,
            KernelArg::Cpython => KernelSelection::Cpython,
            KernelArg::Embedded => KernelSelection::Embedded,
        }
    }
}

/// A worker tier, as `--worker-backend TIER=BACKEND` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkerTierArg {
    /// Well-specified mechanical work.
    Fast,
    /// Design, judgment, review.
    Good,
}

impl From<WorkerTierArg> for WorkerTier {
    fn from(tier: WorkerTierArg) -> WorkerTier {
        match tier {
            WorkerTierArg::Fast => WorkerTier::Fast,
            WorkerTierArg::Good => WorkerTier::Good,
        }
    }
}

/// Where a worker tier runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// A child process on this machine.
    Command,
    /// A job on the Ray cluster at --ray-address.
    Ray,
}

impl From<BackendArg> for WorkerBackendKind {
    fn from(backend: BackendArg) -> WorkerBackendKind {
        match backend {
            BackendArg::Command => WorkerBackendKind::Command,
            BackendArg::Ray => WorkerBackendKind::Ray,
        }
    }
}

/// One `--worker-backend` value: `BACKEND` (every tier) or `TIER=BACKEND`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerBackendArg {
    /// The tier it sets; `None`: every tier.
    pub tier: Option<WorkerTierArg>,
    /// The backend.
    pub backend: BackendArg,
}

impl WorkerBackendArg {
    /// The library's form.
    pub fn choice(self) -> (Option<WorkerTier>, WorkerBackendKind) {
        (self.tier.map(WorkerTier::from), WorkerBackendKind::from(self.backend))
    }
}

/// Parses `[TIER=]BACKEND` with the ValueEnums' own names (case-insensitive), so a wrong word
/// gets clap's list of the possible values.
fn parse_worker_backend(text: &str) -> Result<WorkerBackendArg, String> {
    let (tier_text, backend_text) = match text.split_once('=') {
        Some((tier, backend)) => (Some(tier.trim()), backend.trim()),
        None => (None, text.trim()),
    };
    let tier = match tier_text {
        Some(tier_text) => Some(
            WorkerTierArg::from_str(tier_text, true)
                .map_err(|_| format!("unknown worker tier {tier_text:?} in {text:?}; the tiers are fast and good (TIER=BACKEND)"))?,
        ),
        None => None,
    };
    let backend = BackendArg::from_str(backend_text, true).map_err(|_| {
        format!("unknown backend {backend_text:?} in {text:?}; use command (this machine) or ray (with --ray-address), optionally as TIER=BACKEND")
    })?;
    Ok(WorkerBackendArg { tier, backend })
}

/// One `--max-running-workers` value: `N` (every backend in use) or `BACKEND=N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxRunningWorkersArg {
    /// The backend it caps; `None`: every backend in use.
    pub backend: Option<BackendArg>,
    /// Most attempts of that backend running at once (≥ 1).
    pub cap: usize,
}

impl MaxRunningWorkersArg {
    /// The library's form.
    pub fn cap(self) -> (Option<WorkerBackendKind>, usize) {
        (self.backend.map(WorkerBackendKind::from), self.cap)
    }
}

/// Parses `[BACKEND=]N`: a backend by its ValueEnum name and a whole number ≥ 1.
fn parse_max_running_workers(text: &str) -> Result<MaxRunningWorkersArg, String> {
    let (backend_text, number_text) = match text.split_once('=') {
        Some((backend, number)) => (Some(backend.trim()), number.trim()),
        None => (None, text.trim()),
    };
    let backend = match backend_text {
        Some(backend_text) => Some(BackendArg::from_str(backend_text, true).map_err(|_| {
            format!("unknown backend {backend_text:?} in {text:?}; use command or ray, as BACKEND=N (or N for every backend)")
        })?),
        None => None,
    };
    let cap: usize = number_text
        .parse()
        .map_err(|_| format!("{number_text:?} in {text:?} is not a whole number; give the most workers running at once, e.g. ray=16"))?;
    if cap == 0 {
        return Err(format!("{text:?}: a cap of 0 would never run a worker; give at least 1"));
    }
    Ok(MaxRunningWorkersArg { backend, cap })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_parses_global_flags_anywhere() {
        let cli = Cli::try_parse_from(["runbound", "call", "read", "{}", "--caller", "readonly", "--approve", "deny"]).unwrap();
        assert_eq!(cli.caller, Some(CallerArg::Readonly));
        assert_eq!(cli.approve, ApproveArg::Deny);
        assert_eq!(cli.kernel, KernelArg::Auto);
        assert_eq!(cli.workspace_trust, None);
        assert!(matches!(cli.command, Command::Call { ref tool, args: Some(ref args) } if tool == "read" && args == "{}"));
        let err = Cli::try_parse_from(["runbound", "--caller", "root", "tools"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let cli = Cli::try_parse_from([
            "runbound",
            "--vibe",
            "--worker-backend",
            "ray",
            "--worker-backend",
            "Fast=command",
            "--ray-address",
            "http://127.0.0.1:8265",
            "status",
        ])
        .unwrap();
        assert_eq!(
            cli.worker_backend,
            vec![
                WorkerBackendArg { tier: None, backend: BackendArg::Ray },
                WorkerBackendArg { tier: Some(WorkerTierArg::Fast), backend: BackendArg::Command }
            ]
        );
        assert_eq!(cli.ray_address.as_deref(), Some("http://127.0.0.1:8265"));
        let err = Cli::try_parse_from(["runbound", "--worker-backend", "good=k8s", "tools"]).unwrap_err();
        assert!(err.to_string().contains("unknown backend \"k8s\""), "{err}");
        let err = Cli::try_parse_from(["runbound", "--worker-backend", "best=ray", "tools"]).unwrap_err();
        assert!(err.to_string().contains("unknown worker tier \"best\""), "{err}");
    }

    #[test]
    fn max_running_workers_takes_a_backend_and_a_cap_of_at_least_one() {
        let cli =
            Cli::try_parse_from(["runbound", "--vibe", "--max-running-workers", "3", "--max-running-workers", "Ray=32", "tools"]).unwrap();
        assert_eq!(
            cli.max_running_workers.iter().map(|arg| arg.cap()).collect::<Vec<_>>(),
            vec![(None, 3), (Some(WorkerBackendKind::Ray), 32)]
        );
        for (bad, says) in
            [("ray=0", "at least 1"), ("0", "at least 1"), ("k8s=4", "unknown backend \"k8s\""), ("ray=many", "not a whole number")]
        {
            let err = Cli::try_parse_from(["runbound", "--max-running-workers", bad, "tools"]).unwrap_err();
            assert!(err.to_string().contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn workspace_trust_is_a_choice_of_two() {
        let cli = Cli::try_parse_from(["runbound", "status", "--workspace-trust", "restricted"]).unwrap();
        assert_eq!(cli.workspace_trust.map(WorkspaceTrust::from), Some(WorkspaceTrust::Restricted));
        let cli = Cli::try_parse_from(["runbound", "--workspace-trust", "trusted", "tools"]).unwrap();
        assert_eq!(cli.workspace_trust.map(WorkspaceTrust::from), Some(WorkspaceTrust::Trusted));
        let err = Cli::try_parse_from(["runbound", "--workspace-trust", "maybe", "tools"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("trusted") && err.to_string().contains("restricted"), "{err}");
    }

    #[test]
    fn kernel_choices_keep_their_aliases_and_ignore_case() {
        for (text, expected) in [
            ("auto", KernelSelection::Auto),
            ("CPython", KernelSelection::Cpython),
            ("python", KernelSelection::Cpython),
            ("embedded", KernelSelection::Embedded),
            ("rustpython", KernelSelection::Embedded),
        ] {
            let cli = Cli::try_parse_from(["runbound", "--kernel", text, "tools"]).unwrap();
            assert_eq!(KernelSelection::from(cli.kernel), expected, "{text}");
        }
        let err = Cli::try_parse_from(["runbound", "--kernel", "pypy", "tools"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("auto") && err.to_string().contains("embedded"), "{err}");
    }
}
