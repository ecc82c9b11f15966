//! The `runbound` command line: one run over a workspace, driven from a shell or an MCP host.
//!
//! `runbound [--workspace DIR] [--caller main|plan|readonly] [--approve ask|allow|deny]
//! [--workspace-trust trusted|restricted] [--conversation-id ID]
//! <tools | call TOOL [ARGS_JSON|-] | status [--json] | serve>`
//!
//! Exit codes: 0 success; 1 the tool call failed (`isError: true`) or `serve` broke; 2 usage
//! error (unknown flag, bad JSON arguments, missing workspace). Results go to stdout as JSON;
//! only this file prints.
//!
//! `call` and `tools` attach the terminal ask port when stdin and stderr are both terminals
//! (target space `terminal`); otherwise no human is attached, `ask_user` is absent, and calls
//! that need approval are denied (fail-closed).

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{json, Value};

use runbound::ask::TerminalAskPort;
use runbound::debug::DebugSupervisor;
use runbound::kernel::{KernelFactory, KernelSelection};
use runbound::serve::{serve_stdio, ServeConfig};
use runbound::vibe::{InheritedWorkerCaller, VibeSetup};
use runbound::{Approval, ApprovalPolicy, Caller, Run, RunBuilder, Tier, ToolResult, WorkspaceTrust};

/// Built-in agent tools bound to the live resources of one run.
///
/// Every tool path is resolved inside the workspace. Tiers decide visibility: plan and readonly
/// callers see read-tier tools only.
#[derive(Debug, Parser)]
#[command(name = "runbound", version, about, long_about = None)]
struct Cli {
    /// Workspace root; every tool path is resolved inside it.
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    workspace: PathBuf,
    /// Who is calling: main sees read, write and exec tools; plan and readonly see read tools only.
    /// Default main, except inside a vibe worker spawned by a plan or readonly caller
    /// (RUNBOUND_WORKER_CALLER=plan|readonly): there the default is that caller, and --caller
    /// main is refused (a worker never sees more than the caller that spawned it).
    #[arg(long, global = true, value_enum)]
    caller: Option<CallerArg>,
    /// Approval for write and exec tools: ask (a terminal prompt or MCP elicitation; denied when
    /// no human is attached), allow, or deny. Read tools are always allowed.
    #[arg(long, global = true, value_enum, default_value_t = ApproveArg::Ask)]
    approve: ApproveArg,
    /// Workspace trust: trusted runs the project's own tooling (rust-analyzer's build scripts and
    /// proc macros, cargo check, project-local server binaries such as node_modules/.bin, the
    /// project's .venv python); restricted runs nothing the checkout provides. Default:
    /// restricted for --caller plan and readonly (their tools promise no side effects), trusted
    /// for main.
    #[arg(long, global = true, value_enum)]
    workspace_trust: Option<TrustArg>,
    /// Conversation id of this run (default: generated per process).
    #[arg(long, global = true, value_name = "ID")]
    conversation_id: Option<String>,
    /// Python kernel for `eval`: auto (CPython when one resolves — project .venv, venv, then
    /// python3 on PATH — else the embedded RustPython), cpython, or embedded.
    #[arg(long, global = true, value_name = "KIND", default_value = "auto")]
    kernel: String,
    /// Turn vibe mode on: registers vibe_spawn, vibe_send, vibe_wait, vibe_kill, vibe_list.
    #[arg(long, global = true)]
    vibe: bool,
    /// Command line of a worker tier, as TIER=COMMAND (tiers: fast, good); repeatable. The
    /// brief arrives on stdin, stdout is the result. Needs --vibe.
    #[arg(long, global = true, value_name = "TIER=COMMAND")]
    worker: Vec<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CallerArg {
    Main,
    Plan,
    Readonly,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TrustArg {
    Trusted,
    Restricted,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ApproveArg {
    Ask,
    Allow,
    Deny,
}

/// Exit code: the tool call failed, or serve broke.
const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code: the command line was wrong.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    // This process becomes the reaper of every orphan below it: a double-forked or setsid'd
    // grandchild (e.g. from an eval cell or a worker) is re-parented here instead of to init,
    // so the sweep below still finds and kills it after the run has stopped its own children
    // (the process layer's environment tag already catches most; this catches a grandchild
    // started with a cleared environment).
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes plain integers and affects only this process.
    let _ = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    // Before any other thread exists, so every thread inherits the blocked signals.
    let watcher = StopSignalWatcher::start();
    let code = run_command_line();
    watcher.stop();
    kill_leftover_descendants();
    code
}

/// Turns SIGINT, SIGTERM and SIGHUP (Ctrl-C; a host stopping a slow server; a closed terminal)
/// into a clean stop: everything below this process is killed and reaped — language servers,
/// adapters, kernels, workers, and grandchildren that escaped their groups (this process is
/// their subreaper) — then the CLI exits with 128 + the signal number. Without it the signal
/// would end the CLI at once and leave detached grandchildren running.
///
/// The signals are blocked in every thread and taken by one named thread with `sigwait`
/// (children do not inherit the block: the process layer clears the mask before exec). [`StopSignalWatcher::stop`] wakes that
/// thread with SIGUSR1 and joins it.
/// Set by [`StopSignalWatcher::stop`] before it wakes the thread with SIGUSR1.
static WATCHER_STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Points stdout at /dev/null, so nothing written after a stop signal reaches the host.
fn silence_stdout() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        // SAFETY: dup2 onto fd 1 with a valid open descriptor; `null` closes its own copy.
        let _ = unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), 1) };
    }
}

struct StopSignalWatcher {
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StopSignalWatcher {
    fn start() -> StopSignalWatcher {
        use nix::sys::signal::{SigSet, Signal};
        let mut signals = SigSet::empty();
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGUSR1] {
            signals.add(signal);
        }
        if signals.thread_block().is_err() {
            return StopSignalWatcher { thread: None };
        }
        let thread = std::thread::Builder::new()
            .name("runbound-signals".to_owned())
            .spawn(move || loop {
                match signals.wait() {
                    // Our own wake-up from `stop`; a SIGUSR1 from anyone else is ignored.
                    Ok(Signal::SIGUSR1) if WATCHER_STOPPING.load(std::sync::atomic::Ordering::SeqCst) => return,
                    Ok(Signal::SIGUSR1) => continue,
                    Err(_) => return,
                    Ok(signal) => {
                        // Nothing more reaches stdout: a call in flight would otherwise print
                        // the "kernel died" result our own kill causes.
                        silence_stdout();
                        eprintln!("runbound: {signal} received; stopping the run and every process it started");
                        kill_leftover_descendants();
                        std::process::exit(128 + signal as i32);
                    }
                }
            })
            .ok();
        StopSignalWatcher { thread }
    }

    fn stop(mut self) {
        let Some(thread) = self.thread.take() else { return };
        WATCHER_STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
        if nix::sys::signal::kill(nix::unistd::Pid::this(), nix::sys::signal::Signal::SIGUSR1).is_ok() {
            let _ = thread.join();
        }
    }
}

/// Kills (SIGKILL) and reaps every process still below this one after the run was dropped:
/// whatever escaped its process group. Nothing of a run may outlive the CLI.
fn kill_leftover_descendants() {
    for _ in 0..3 {
        let leftovers = runbound::transport::process::descendant_pids(std::process::id());
        if leftovers.is_empty() {
            break;
        }
        for pid in leftovers {
            // SAFETY: kill takes plain integers; a pid that has already gone yields ESRCH.
            let _ = unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        // Reap what was re-parented here (and anything else already exited), without blocking.
        // SAFETY: waitpid with WNOHANG on any child; status is a valid out pointer.
        let mut status = 0;
        while unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } > 0 {}
    }
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

fn run_command_line() -> ExitCode {
    let cli = Cli::parse();
    let requested = cli.caller.map(|caller| match caller {
        CallerArg::Main => Caller::Main,
        CallerArg::Plan => Caller::Plan,
        CallerArg::Readonly => Caller::Readonly,
    });
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
    let approval = match cli.approve {
        ApproveArg::Ask => Approval::Ask,
        ApproveArg::Allow => Approval::Allow,
        ApproveArg::Deny => Approval::Deny,
    };
    if !cli.workspace.is_dir() {
        eprintln!("runbound: --workspace {} is not a directory; pass an existing directory", cli.workspace.display());
        return ExitCode::from(EXIT_USAGE);
    }
    let Some(kernel_selection) = KernelSelection::parse(&cli.kernel) else {
        eprintln!("runbound: --kernel {:?} is not one of auto, cpython, embedded", cli.kernel);
        return ExitCode::from(EXIT_USAGE);
    };
    if !cli.worker.is_empty() && !cli.vibe {
        eprintln!("runbound: --worker needs --vibe (vibe mode registers the worker tools)");
        return ExitCode::from(EXIT_USAGE);
    }
    let trust = match cli.workspace_trust {
        Some(TrustArg::Trusted) => WorkspaceTrust::Trusted,
        Some(TrustArg::Restricted) => WorkspaceTrust::Restricted,
        None => WorkspaceTrust::default_for_caller(caller),
    };
    let trust_chosen = cli.workspace_trust.is_some();
    let mut builder = Run::builder(&cli.workspace)
        .approval_policy(ApprovalPolicy::for_write_and_exec(approval))
        .workspace_trust(trust)
        .with_structural()
        .language_servers()
        .debug_supervisor(DebugSupervisor::new())
        .kernel_factory(KernelFactory::new().selection(kernel_selection));
    if cli.vibe {
        match VibeSetup::from_cli_worker_flags(&cli.worker) {
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
    match cli.command {
        Command::Serve => serve(builder, caller),
        Command::Tools => {
            let Some(run) = build_run(attach_terminal(builder).0) else { return ExitCode::from(EXIT_USAGE) };
            print_json(&run.tools_json(caller));
            ExitCode::SUCCESS
        }
        Command::Call { tool, args } => call(builder, caller, &tool, args.as_deref()),
        Command::Status { json } => {
            let (builder, terminal) = attach_terminal(builder);
            let Some(run) = build_run(builder) else { return ExitCode::from(EXIT_USAGE) };
            let sections = status_sections(&run, caller, inherited.as_ref(), terminal, trust_chosen);
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

fn call(builder: RunBuilder, caller: Caller, tool: &str, args: Option<&str>) -> ExitCode {
    let arguments_text = match args {
        None => "{}".to_owned(),
        Some("-") => {
            let mut text = String::new();
            if let Err(err) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("runbound: cannot read the arguments from stdin: {err}");
                return ExitCode::from(EXIT_USAGE);
            }
            text
        }
        Some(text) => text.to_owned(),
    };
    let arguments: Value = match serde_json::from_str(&arguments_text) {
        Ok(Value::Object(object)) => Value::Object(object),
        Ok(other) => {
            eprintln!("runbound: the arguments of {tool} must be a JSON object, got {other}; e.g. '{{\"path\":\"Cargo.toml\"}}'");
            return ExitCode::from(EXIT_USAGE);
        }
        Err(err) => {
            eprintln!("runbound: the arguments of {tool} are not valid JSON ({err}); pass an object, e.g. '{{\"path\":\"Cargo.toml\"}}'");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (builder, _) = attach_terminal(builder);
    let Some(run) = build_run(builder) else { return ExitCode::from(EXIT_USAGE) };
    let mut result = run.call(caller, tool, arguments);
    if runbound::ask::is_no_human_denial(&result) {
        result.push_text(
            "runbound CLI: stdin and stderr are not both terminals, so no approval prompt can be shown; \
             pass --approve allow to run write and exec tools without asking, or run the command in a terminal",
        );
    }
    if let Some(note) = one_shot_note(tool, &result) {
        result.push_text(note);
    }
    print_json(&result.to_json());
    drop(run);
    if result.is_error {
        return ExitCode::from(EXIT_TOOL_ERROR);
    }
    ExitCode::SUCCESS
}

fn serve(builder: RunBuilder, caller: Caller) -> ExitCode {
    match serve_stdio(builder, &ServeConfig::new(caller)) {
        Ok(summary) => {
            if !summary.calls_still_running.is_empty() {
                eprintln!(
                    "runbound serve: input closed; calls still running after the shutdown grace: {}",
                    summary.calls_still_running.join(", ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("runbound: {err}");
            ExitCode::from(EXIT_TOOL_ERROR)
        }
    }
}

/// Where cards would render for `call` and `tools` in this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TerminalState {
    /// Stdin and stderr are terminals: the terminal port is attached.
    Attached,
    /// No terminal: no human is attached.
    Absent,
}

fn attach_terminal(builder: RunBuilder) -> (RunBuilder, TerminalState) {
    match TerminalAskPort::from_stdio() {
        Some(port) => (builder.ask_port(Arc::new(port), "terminal"), TerminalState::Attached),
        None => (builder, TerminalState::Absent),
    }
}

fn build_run(builder: RunBuilder) -> Option<Run> {
    match builder.build() {
        Ok(run) => Some(run),
        Err(err) => {
            eprintln!("runbound: {err}");
            None
        }
    }
}

fn print_json(value: &Value) {
    use std::io::Write as _;
    match serde_json::to_string_pretty(value) {
        // A closed stdout (e.g. `runbound call … | head -1`) is not a crash: stop writing.
        Ok(text) => {
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        }
        Err(err) => eprintln!("runbound: cannot serialize the output: {err}"),
    }
}

/// A note for tools whose state outlives one call: `call` builds a run for one call and drops it
/// on exit, so staged edits, debug sessions, kernels and workers end with this process.
fn one_shot_note(tool: &str, result: &ToolResult) -> Option<&'static str> {
    if result.is_error {
        return None;
    }
    match tool {
        "ast_edit" => Some(
            "runbound CLI: `call` runs one call per process, so this staged edit is discarded when it exits and a later `call resolve` will not find it; stage and resolve within one `runbound serve` session, or embed the library",
        ),
        "debug" => Some(
            "runbound CLI: `call` runs one call per process: stored breakpoints and any debug session end when it exits; drive a debug session through `runbound serve`, or embed the library",
        ),
        "eval" => Some(
            "runbound CLI: `call` runs one call per process: this kernel and its variables end when it exits; use `runbound serve` for state that persists across cells",
        ),
        "lsp" | "lsp_rename" => Some(
            "runbound CLI: `call` starts the language server cold and stops it when it exits, so every call pays the server's start and indexing (tens of seconds for rust-analyzer on a large crate; a \"still indexing\" note then comes back on every call); use `runbound serve` to keep servers warm across calls",
        ),
        "vibe_spawn" | "vibe_send" => Some(
            "runbound CLI: `call` runs one call per process: the worker is stopped when it exits; run workers through `runbound serve`, or embed the library",
        ),
        _ => None,
    }
}

/// One section of `runbound status`: a heading, indented text lines, and the same facts as
/// JSON under `key`. Each area (language servers, debug adapters, kernels) adds one section
/// function and one line in [`status_sections`]; nothing else changes.
struct StatusSection {
    key: &'static str,
    title: String,
    lines: Vec<String>,
    json: Value,
}

fn status_sections(
    run: &Run,
    caller: Caller,
    inherited: Option<&InheritedWorkerCaller>,
    terminal: TerminalState,
    trust_chosen: bool,
) -> Vec<StatusSection> {
    vec![
        run_section(run, caller, inherited, trust_chosen),
        ask_section(run, terminal),
        tools_section(run, caller),
        language_servers_section(run),
        debug_section(run),
        kernel_section(run),
        vibe_section(run),
    ]
}

/// Splits a multi-line report into indented status lines.
fn report_lines(report: &str) -> Vec<String> {
    report.lines().map(str::to_owned).collect()
}

fn language_servers_section(run: &Run) -> StatusSection {
    match run.lsp_supervisor() {
        Some(supervisor) => {
            let status = supervisor.status();
            StatusSection {
                key: "language_servers",
                title: "language servers".to_owned(),
                lines: report_lines(&status.to_text()),
                json: status.to_json(),
            }
        }
        None => StatusSection {
            key: "language_servers",
            title: "language servers".to_owned(),
            lines: vec!["not wired".to_owned()],
            json: Value::Null,
        },
    }
}

fn debug_section(run: &Run) -> StatusSection {
    let (adapters, adapters_json) =
        runbound::debug::adapters_report_with_trust(run.workspace_root(), &run.config().debug, run.workspace_trust());
    let mut lines = report_lines(&adapters);
    let session = run.debug_supervisor().map(|supervisor| supervisor.session_status(run.workspace_root()));
    if let Some(session) = &session {
        lines.extend(report_lines(session));
    }
    StatusSection {
        key: "debug",
        title: "debug adapters".to_owned(),
        lines,
        json: json!({
            "adapters": adapters_json,
            "session": session,
        }),
    }
}

fn kernel_section(run: &Run) -> StatusSection {
    let report = runbound::kernel::kernel_status(run.kernels());
    StatusSection { key: "kernels", title: "kernels (eval)".to_owned(), lines: report_lines(&report), json: json!({"report": report}) }
}

fn vibe_section(run: &Run) -> StatusSection {
    match run.vibe_roster() {
        Some(_) => {
            let listed = run.call(Caller::Main, "vibe_list", json!({}));
            StatusSection {
                key: "vibe",
                title: "vibe workers".to_owned(),
                lines: report_lines(&listed.joined_text()),
                json: listed.structured_content.unwrap_or(Value::Null),
            }
        }
        None => StatusSection {
            key: "vibe",
            title: "vibe workers".to_owned(),
            lines: vec!["vibe mode off (pass --vibe and --worker TIER=COMMAND)".to_owned()],
            json: Value::Null,
        },
    }
}

fn status_text(sections: &[StatusSection]) -> String {
    let mut text = format!("runbound {}\n", env!("CARGO_PKG_VERSION"));
    for section in sections {
        text.push_str(&format!("\n{}\n", section.title));
        for line in &section.lines {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

fn status_json(sections: &[StatusSection]) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("version".to_owned(), json!(env!("CARGO_PKG_VERSION")));
    for section in sections {
        object.insert(section.key.to_owned(), section.json.clone());
    }
    Value::Object(object)
}

fn run_section(run: &Run, caller: Caller, inherited: Option<&InheritedWorkerCaller>, trust_chosen: bool) -> StatusSection {
    let trust = run.workspace_trust();
    let trust_line = format!(
        "trust         {trust} ({}; {})",
        if trust_chosen { "--workspace-trust" } else { "the default for this caller" },
        match trust {
            WorkspaceTrust::Trusted => "the project's build scripts, proc macros and own tool binaries may run",
            WorkspaceTrust::Restricted =>
                "nothing the checkout provides is run: no build scripts, proc macros, cargo check or project-local binaries",
        }
    );
    let policy = run.approval_policy();
    let policy_json = json!({"read": policy.read, "write": policy.write, "exec": policy.exec});
    let visible_tiers: Vec<&str> =
        [Tier::Read, Tier::Write, Tier::Exec].into_iter().filter(|tier| caller.can_see(*tier)).map(Tier::as_str).collect();
    StatusSection {
        key: "run",
        title: "run".to_owned(),
        lines: vec![
            format!("workspace     {}", run.workspace_root().display()),
            format!("conversation  {}", run.conversation_id()),
            match inherited {
                Some(inherited) => format!(
                    "caller        {caller} (sees {} tools; capped at {} by {} in {})",
                    visible_tiers.join(", "),
                    inherited.caller,
                    runbound::vibe::ENV_WORKER_CALLER,
                    inherited.found_in
                ),
                None => format!("caller        {caller} (sees {} tools)", visible_tiers.join(", ")),
            },
            format!(
                "approval      read {} · write {} · exec {}",
                approval_name(policy.read),
                approval_name(policy.write),
                approval_name(policy.exec)
            ),
            trust_line,
        ],
        json: json!({
            "workspace": run.workspace_root(),
            "conversation_id": run.conversation_id(),
            "caller": caller,
            "caller_ceiling": inherited.map(|inherited| json!({"caller": inherited.caller, "found_in": inherited.found_in})),
            "visible_tiers": visible_tiers,
            "approval_policy": policy_json,
            "workspace_trust": trust,
            "workspace_trust_chosen": trust_chosen,
        }),
    }
}

fn ask_section(run: &Run, terminal: TerminalState) -> StatusSection {
    let ask_user_registered = run.registry().descriptor("ask_user").is_some();
    let (lines, json) = match (run.ask_binding(), terminal) {
        (Some(binding), _) => (
            vec![
                format!(
                    "port          terminal (cards render on stderr, answers read from stdin; target space {:?})",
                    binding.target_space
                ),
                format!("ask_user      {}", if ask_user_registered { "registered" } else { "not registered" }),
                "prompts       write and exec calls under --approve ask show a permission card".to_owned(),
            ],
            json!({"port": "terminal", "target_space": binding.target_space, "ask_user_registered": ask_user_registered, "human_attached": true}),
        ),
        (None, _) => (
            vec![
                "port          none: stdin and stderr are not both terminals, so no human is attached".to_owned(),
                "ask_user      not registered (needs an ask port and a target space)".to_owned(),
                "prompts       write and exec calls under --approve ask are denied (fail-closed); pass --approve allow, \
                 run in a terminal, or use `runbound serve` with a host that supports elicitation"
                    .to_owned(),
            ],
            json!({"port": Value::Null, "reason": "stdin and stderr are not both terminals", "ask_user_registered": ask_user_registered, "human_attached": false}),
        ),
    };
    StatusSection { key: "ask", title: "ask port".to_owned(), lines, json }
}

fn tools_section(run: &Run, caller: Caller) -> StatusSection {
    let all_tools = run.registry().all_tools();
    let n_visible = run.tools(caller).len();
    let mut lines = Vec::new();
    let mut by_tier = serde_json::Map::new();
    for tier in [Tier::Read, Tier::Write, Tier::Exec] {
        let names: Vec<&str> = all_tools.iter().filter(|tool| tool.tier == tier).map(|tool| tool.name.as_str()).collect();
        let visibility = if caller.can_see(tier) { "visible" } else { "hidden from this caller" };
        let listed = if names.is_empty() { "(none registered)".to_owned() } else { names.join(", ") };
        lines.push(format!("{:<6} {listed} — {visibility}", tier.as_str()));
        by_tier.insert(tier.as_str().to_owned(), json!({"tools": names, "visible": caller.can_see(tier)}));
    }
    StatusSection {
        key: "tools",
        title: format!("tools ({} registered, {n_visible} visible to {caller})", all_tools.len()),
        lines,
        json: json!({"registered": all_tools.len(), "visible": n_visible, "by_tier": by_tier}),
    }
}

fn approval_name(approval: Approval) -> &'static str {
    match approval {
        Approval::Allow => "allow",
        Approval::Ask => "ask",
        Approval::Deny => "deny",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_parses_global_flags_anywhere() {
        let cli = Cli::try_parse_from(["runbound", "call", "read", "{}", "--caller", "readonly", "--approve", "deny"]).unwrap();
        assert!(matches!(cli.caller, Some(CallerArg::Readonly)));
        assert!(matches!(cli.approve, ApproveArg::Deny));
        assert!(matches!(cli.command, Command::Call { ref tool, args: Some(ref args) } if tool == "read" && args == "{}"));
        let err = Cli::try_parse_from(["runbound", "--caller", "root", "tools"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

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
}
