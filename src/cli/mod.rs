//! The `runbound` command line: one run over a workspace, driven from a shell or an MCP host.
//!
//! `runbound [--workspace DIR] [--caller main|plan|readonly] [--approve ask|allow|deny]
//! [--workspace-trust trusted|restricted] [--conversation-id ID] [--kernel auto|cpython|embedded]
//! [--cell-wall-clock-cap SECONDS] [--no-language-server-file-confinement]
//! [--vibe [--worker TIER=COMMAND]... [--worker-backend [TIER=]command|ray]... [--ray-address URL]
//! [--max-running-workers [BACKEND=]N]...]
//! <tools | call TOOL [ARGS_JSON|-] | status [--json] | serve>`
//!
//! Exit codes: 0 success; 1 the tool call failed (`isError: true`) or `serve` broke; 2 usage
//! error (unknown flag, bad JSON arguments, missing workspace). Results go to stdout as JSON;
//! only the CLI prints.
//!
//! `call` and `tools` attach the terminal ask port when stdin and stderr are both terminals
//! (target space `terminal`); otherwise no human is attached, `ask_user` is absent, and calls
//! that need approval are denied (fail-closed). Inside a vibe worker whose parent run has a
//! human (`RUNBOUND_ASK_CHANNEL`), every subcommand, `serve` included, uses the parent run's ask
//! channel instead: cards are shown by the parent, labelled with the worker.
//!
//! One file per concern: `args` (the clap structs and choices), `signals` (subreaper, orphan
//! reaping, stop signals, the sweep on exit), `call` (`call`, `tools`, the terminal port),
//! `status` (the `status` report), `serve` (the MCP server's entry).

mod args;
mod call;
mod serve;
mod signals;
mod status;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;

use runbound::debug::DebugSupervisor;
use runbound::kernel::{KernelFactory, KernelSelection};
use runbound::vibe::{InheritedWorkerCaller, InheritedWorkspaceTrust, VibeSetup};
use runbound::{Approval, ApprovalPolicy, Caller, EventLevel, Run, RunConfig, RunEvent, WorkspaceTrust};

use args::{Cli, Command};
use call::{attach_parent_channel, attach_terminal, build_run, print_json, TerminalState};
use status::{status_json, status_sections, status_text};

/// Exit code: the tool call failed, or serve broke.
pub const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code: the command line was wrong.
pub const EXIT_USAGE: u8 = 2;

/// The whole CLI: process-wide setup, the subcommand, then the sweep of leftovers.
pub fn main() -> ExitCode {
    // Before any other thread exists, so every thread inherits the blocked signals.
    let guard = signals::ProcessGuard::install();
    let code = run_command_line();
    guard.finish();
    code
}

/// The caller this process acts as: `requested` (from --caller), capped by the caller that
/// spawned us when we run inside a vibe worker (`RUNBOUND_WORKER_CALLER` in our environment or an
/// ancestor's, see [`runbound::vibe::inherited_worker_caller`]). This is where R-VIBE-1 puts the
/// gate: on the worker's own tools. Errors (as text for stderr) when --caller asks for more than
/// the spawning caller could see.
fn effective_caller(requested: Option<Caller>, inherited: Option<&InheritedWorkerCaller>) -> Result<Caller, String> {
    let Some(inherited) = inherited else {
        return Ok(requested.unwrap_or(Caller::Main));
    };
    let ceiling = inherited.caller;
    match requested {
        None => Ok(ceiling),
        Some(caller) if ceiling.highest_tier() < caller.highest_tier() => Err(format!(
            "--caller {caller} refused: this runbound runs inside a vibe worker spawned by a {ceiling} caller ({}={ceiling} in {}), \
             and a worker never sees more than the caller that spawned it; drop --caller or pass --caller {ceiling}",
            runbound::vibe::ENV_WORKER_CALLER,
            inherited.found_in
        )),
        Some(caller) => Ok(caller),
    }
}

/// The workspace trust of this run: `requested` (from --workspace-trust) or the default for
/// `caller`, capped by the trust of the run that spawned us when we run inside a vibe worker
/// (`RUNBOUND_WORKER_WORKSPACE_TRUST` in our environment or an ancestor's, see
/// [`runbound::vibe::inherited_worker_workspace_trust`]): the most restrictive wins. Errors (as
/// text for stderr) when --workspace-trust asks for more than the spawning run had.
fn effective_workspace_trust(
    requested: Option<WorkspaceTrust>,
    caller: Caller,
    inherited: Option<&InheritedWorkspaceTrust>,
) -> Result<WorkspaceTrust, String> {
    let wanted = requested.unwrap_or_else(|| WorkspaceTrust::default_for_caller(caller));
    let Some(inherited) = inherited else {
        return Ok(wanted);
    };
    match (inherited.trust, requested) {
        (WorkspaceTrust::Restricted, Some(WorkspaceTrust::Trusted)) => Err(format!(
            "--workspace-trust trusted refused: this runbound runs inside a vibe worker spawned by a restricted run ({}=restricted \
             in {}), and a worker never runs what its spawning run would not; drop --workspace-trust or pass --workspace-trust \
             restricted",
            runbound::vibe::ENV_WORKER_WORKSPACE_TRUST,
            inherited.found_in
        )),
        (WorkspaceTrust::Restricted, _) => Ok(WorkspaceTrust::Restricted),
        (WorkspaceTrust::Trusted, _) => Ok(wanted),
    }
}

/// Parses the command line, builds the run's builder and runs the subcommand.
pub fn run_command_line() -> ExitCode {
    let cli = Cli::parse();
    let requested = cli.caller.map(Caller::from);
    let inherited = match runbound::vibe::inherited_worker_caller() {
        Ok(inherited) => inherited,
        Err(err) => {
            eprintln!("runbound: {}", err.message);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let caller = match effective_caller(requested, inherited.as_ref()) {
        Ok(caller) => caller,
        Err(message) => {
            eprintln!("runbound: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let approval = Approval::from(cli.approve);
    if !cli.workspace.is_dir() {
        eprintln!("runbound: --workspace {} is not a directory; pass an existing directory", cli.workspace.display());
        return ExitCode::from(EXIT_USAGE);
    }
    let vibe_flags_given =
        !cli.worker.is_empty() || !cli.worker_backend.is_empty() || cli.ray_address.is_some() || !cli.max_running_workers.is_empty();
    if vibe_flags_given && !cli.vibe {
        eprintln!(
            "runbound: --worker, --worker-backend, --ray-address and --max-running-workers need --vibe (vibe mode registers the \
             worker tools)"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    // The default follows the effective caller (a worker's inherited readonly caller too); a
    // worker's runbound is capped by its spawning run's trust.
    let inherited_trust = match runbound::vibe::inherited_worker_workspace_trust() {
        Ok(inherited) => inherited,
        Err(err) => {
            eprintln!("runbound: {}", err.message);
            if let Some(hint) = &err.hint {
                eprintln!("runbound: {hint}");
            }
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let trust = match effective_workspace_trust(cli.workspace_trust.map(WorkspaceTrust::from), caller, inherited_trust.as_ref()) {
        Ok(trust) => trust,
        Err(message) => {
            eprintln!("runbound: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let trust_chosen = cli.workspace_trust.is_some();
    let mut builder = Run::builder(&cli.workspace)
        .approval_policy(ApprovalPolicy::for_write_and_exec(approval))
        .workspace_trust(trust)
        .confine_language_server_file_access(!cli.no_language_server_file_confinement)
        // `call`, `tools` and `status` say warnings and worse on stderr; `serve` replaces this
        // with MCP log messages at the host's level.
        .on_event(Arc::new(|event: &RunEvent| {
            if event.level >= EventLevel::Warning {
                eprintln!("runbound: {} [{}] {}", event.level, event.source, event.message);
            }
        }))
        .with_structural()
        .language_servers()
        .debug_supervisor(DebugSupervisor::new())
        .kernel_factory(KernelFactory::new().selection(KernelSelection::from(cli.kernel)));
    if let Some(seconds) = cli.cell_wall_clock_cap {
        let mut config = RunConfig::default();
        config.kernel.cell_wall_clock_cap = Duration::from_secs(seconds);
        builder = builder.config(config);
    }
    if cli.vibe {
        let backend_choices: Vec<_> = cli.worker_backend.iter().map(|choice| choice.choice()).collect();
        let caps: Vec<_> = cli.max_running_workers.iter().map(|arg| arg.cap()).collect();
        match VibeSetup::from_cli_flags(&cli.worker, &backend_choices, cli.ray_address.as_deref(), &caps) {
            Ok(setup) => builder = builder.vibe_roster(setup),
            Err(err) => {
                eprintln!("runbound: {err}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    if let Some(conversation_id) = &cli.conversation_id {
        builder = builder.conversation_id(conversation_id.clone());
    }
    // Inside a vibe worker the human sits at the parent run: its channel is this run's port
    // (for serve too: the worker's MCP client is an agent, not the human).
    let (builder, parent_channel) = attach_parent_channel(builder);
    match cli.command {
        Command::Serve => serve::serve(builder, caller),
        Command::Tools => {
            let Some(run) = build_run(attach_terminal(builder).0) else { return ExitCode::from(EXIT_USAGE) };
            print_json(&run.tools_json(caller));
            ExitCode::SUCCESS
        }
        Command::Call { tool, args } => call::call(builder, caller, &tool, args.as_deref()),
        Command::Status { json } => {
            let (builder, terminal) = attach_terminal(builder);
            let terminal = match (terminal, parent_channel) {
                (TerminalState::ParentRun(_), Some(found)) => found,
                (terminal, _) => terminal,
            };
            let Some(run) = build_run(builder) else { return ExitCode::from(EXIT_USAGE) };
            let sections = status_sections(&run, caller, inherited.as_ref(), terminal, trust_chosen, inherited_trust.as_ref());
            match json {
                true => print_json(&status_json(&sections)),
                false => {
                    use std::io::Write as _;
                    let _ = write!(std::io::stdout().lock(), "{}", status_text(&sections));
                }
            }
            ExitCode::SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_never_sees_more_than_the_caller_that_spawned_it() {
        let inherited = |caller: Caller| InheritedWorkerCaller { caller, found_in: "ancestor pid 7 (sh)".to_owned() };
        assert_eq!(effective_caller(None, None), Ok(Caller::Main));
        assert_eq!(effective_caller(Some(Caller::Plan), None), Ok(Caller::Plan));
        assert_eq!(effective_caller(None, Some(&inherited(Caller::Main))), Ok(Caller::Main));
        assert_eq!(effective_caller(None, Some(&inherited(Caller::Readonly))), Ok(Caller::Readonly));
        assert_eq!(effective_caller(None, Some(&inherited(Caller::Plan))), Ok(Caller::Plan));
        assert_eq!(effective_caller(Some(Caller::Readonly), Some(&inherited(Caller::Plan))), Ok(Caller::Readonly));
        let refused = effective_caller(Some(Caller::Main), Some(&inherited(Caller::Readonly))).unwrap_err();
        assert!(refused.contains("--caller main refused") && refused.contains("--caller readonly"), "{refused}");
        assert!(refused.contains("ancestor pid 7 (sh)"), "says where the ceiling came from: {refused}");
    }

    #[test]
    fn a_restricted_runs_worker_is_restricted_and_refuses_a_looser_trust() {
        use WorkspaceTrust::{Restricted, Trusted};
        let inherited = |trust: WorkspaceTrust| InheritedWorkspaceTrust { trust, found_in: "ancestor pid 7 (sh)".to_owned() };
        // Outside a worker: the flag, else the caller's default.
        assert_eq!(effective_workspace_trust(None, Caller::Main, None), Ok(Trusted));
        assert_eq!(effective_workspace_trust(None, Caller::Readonly, None), Ok(Restricted));
        assert_eq!(effective_workspace_trust(Some(Trusted), Caller::Plan, None), Ok(Trusted));
        // Under a restricted run: restricted whatever the caller, and trusted is refused.
        assert_eq!(effective_workspace_trust(None, Caller::Main, Some(&inherited(Restricted))), Ok(Restricted));
        assert_eq!(effective_workspace_trust(Some(Restricted), Caller::Main, Some(&inherited(Restricted))), Ok(Restricted));
        let refused = effective_workspace_trust(Some(Trusted), Caller::Main, Some(&inherited(Restricted))).unwrap_err();
        assert!(refused.contains("--workspace-trust trusted refused") && refused.contains("--workspace-trust restricted"), "{refused}");
        assert!(refused.contains("RUNBOUND_WORKER_WORKSPACE_TRUST=restricted in ancestor pid 7 (sh)"), "{refused}");
        // Under a trusted run: the most restrictive of the flag, the caller's default and trusted.
        assert_eq!(effective_workspace_trust(None, Caller::Main, Some(&inherited(Trusted))), Ok(Trusted));
        assert_eq!(effective_workspace_trust(None, Caller::Readonly, Some(&inherited(Trusted))), Ok(Restricted));
        assert_eq!(effective_workspace_trust(Some(Restricted), Caller::Main, Some(&inherited(Trusted))), Ok(Restricted));
    }
}
