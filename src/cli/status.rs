//! `runbound status`: what is wired, as text or JSON, one section per area.
//!
//! Each area (language servers, debug adapters, kernels, workers) adds one section function and
//! one line in [`status_sections`]; nothing else changes.

use serde_json::{json, Value};

use runbound::vibe::{InheritedWorkerCaller, InheritedWorkspaceTrust};
use runbound::{Approval, Caller, Run, Tier, WorkspaceTrust};

use crate::cli::call::TerminalState;

/// One section of `runbound status`: a heading, indented text lines, and the same facts as
/// JSON under `key`. Each area (language servers, debug adapters, kernels) adds one section
/// function and one line in [`status_sections`]; nothing else changes.
pub struct StatusSection {
    key: &'static str,
    title: String,
    lines: Vec<String>,
    json: Value,
}

pub fn status_sections(
    run: &Run,
    caller: Caller,
    inherited: Option<&InheritedWorkerCaller>,
    terminal: TerminalState,
    trust_chosen: bool,
    inherited_trust: Option<&InheritedWorkspaceTrust>,
) -> Vec<StatusSection> {
    vec![
        run_section(run, caller, inherited, trust_chosen, inherited_trust),
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
    let (adapters, adapters_json) = runbound::status::debug_adapters_report(run);
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
    let report = runbound::status::kernels_report(run);
    StatusSection { key: "kernels", title: "kernels (eval)".to_owned(), lines: report_lines(&report), json: json!({"report": report}) }
}

fn vibe_section(run: &Run) -> StatusSection {
    match run.vibe_roster() {
        Some(roster) => {
            // Each backend with its cap, and what its probe says (a Ray cluster's address and
            // whether it answers), before the worker list.
            let backends = roster.backends(true);
            let mut lines = Vec::new();
            let mut backends_json = Vec::new();
            for backend in &backends {
                lines.push(format!(
                    "backend {}: tiers {}, at most {} at once",
                    backend.name,
                    backend.tiers.iter().map(|tier| tier.as_str()).collect::<Vec<_>>().join(", "),
                    backend.cap
                ));
                lines.extend(backend.status_lines.iter().map(|line| format!("  {line}")));
                backends_json
                    .push(json!({"name": backend.name, "tiers": backend.tiers, "cap": backend.cap, "status": backend.status_lines}));
            }
            let listed = run.call(Caller::Main, "vibe_list", json!({}));
            lines.extend(report_lines(&listed.joined_text()));
            StatusSection {
                key: "vibe",
                title: "vibe workers".to_owned(),
                lines,
                json: json!({"backends": backends_json, "workers": listed.structured_content.unwrap_or(Value::Null)}),
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

pub fn status_text(sections: &[StatusSection]) -> String {
    let mut text = format!("runbound {}\n", env!("CARGO_PKG_VERSION"));
    for section in sections {
        text.push_str(&format!("\n{}\n", section.title));
        for line in &section.lines {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

pub fn status_json(sections: &[StatusSection]) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("version".to_owned(), json!(env!("CARGO_PKG_VERSION")));
    for section in sections {
        object.insert(section.key.to_owned(), section.json.clone());
    }
    Value::Object(object)
}

fn run_section(
    run: &Run,
    caller: Caller,
    inherited: Option<&InheritedWorkerCaller>,
    trust_chosen: bool,
    inherited_trust: Option<&InheritedWorkspaceTrust>,
) -> StatusSection {
    let trust = run.workspace_trust();
    let trust_source = match inherited_trust {
        Some(inherited) if inherited.trust.is_restricted() => format!(
            "capped at restricted by {}=restricted in {}: the run that spawned this worker is restricted",
            runbound::vibe::ENV_WORKER_WORKSPACE_TRUST,
            inherited.found_in
        ),
        Some(inherited) => format!(
            "{}; the spawning run is {} ({} in {})",
            if trust_chosen { "--workspace-trust" } else { "the default for this caller" },
            inherited.trust,
            runbound::vibe::ENV_WORKER_WORKSPACE_TRUST,
            inherited.found_in
        ),
        None => (if trust_chosen { "--workspace-trust" } else { "the default for this caller" }).to_owned(),
    };
    let trust_line = format!(
        "trust         {trust} ({trust_source}; {})",
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
            "workspace_trust_ceiling": inherited_trust.map(|inherited| json!({"workspace_trust": inherited.trust, "found_in": inherited.found_in})),
        }),
    }
}

fn ask_section(run: &Run, terminal: TerminalState) -> StatusSection {
    let ask_user_registered = run.registry().descriptor("ask_user").is_some();
    let (lines, json) = match (run.ask_binding(), terminal) {
        (Some(binding), TerminalState::ParentRun(text)) => (
            vec![
                format!("port          {text}; target space {:?}", binding.target_space),
                format!("ask_user      {}", if ask_user_registered { "registered" } else { "not registered" }),
                "prompts       write and exec calls under --approve ask show a permission card at the parent run".to_owned(),
            ],
            json!({"port": "parent_run", "description": text, "target_space": binding.target_space, "ask_user_registered": ask_user_registered, "human_attached": true}),
        ),
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
