//! What a worker inherits from the run that spawned it: the caller (`RUNBOUND_WORKER_CALLER`)
//! and the workspace trust (`RUNBOUND_WORKER_WORKSPACE_TRUST`), each looked up in this
//! process's environment and in the initial environment of every ancestor.
//!
//! R-VIBE-1 puts the gate on the workers' own tools. A command worker gets both variables from
//! the roster (a Ray job from its runtime environment), but the program it starts may not pass
//! its environment on: MCP SDK stdio clients start servers with only `HOME`, `PATH`, `SHELL`, …
//! So each variable is also read from each ancestor's `/proc/<pid>/environ` (the environment it
//! was started with), and the most restrictive value wins: a read-only caller before `main`,
//! `restricted` before `trusted`. A value that is not one of the names fails closed (an error,
//! never "no ceiling").
//!
//! This caps what a worker gets *through runbound*; it is not a sandbox. A worker command with
//! other ways to write (a shell) is not confined by it, and a grandchild that clears its
//! environment and double-forks away from the worker (re-parented to a subreaper or init) has
//! no ancestor left that carries the variable. A host that cannot trust its worker command
//! should not offer vibe mode to read-only callers.

use std::ffi::OsString;

use crate::error::ToolError;
use crate::tier::Caller;
use crate::trust::WorkspaceTrust;
use crate::vibe::{ENV_WORKER_CALLER, ENV_WORKER_WORKSPACE_TRUST};

/// A caller inherited from a vibe worker's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InheritedWorkerCaller {
    /// The most restrictive caller found.
    pub caller: Caller,
    /// Where it was found: `"this process's environment"` or `"the environment of ancestor pid
    /// 1234 (sh)"`.
    pub found_in: String,
}

/// Looks for [`ENV_WORKER_CALLER`] in this process's environment, then in the initial
/// environment of each ancestor (parent, grandparent, … up to 64 or pid 1), and returns the most
/// restrictive caller found (read-only callers before `main`; the nearest among equals), or
/// `None` when no process on the chain has the variable. An ancestor whose environment cannot
/// be read (another user's, non-dumpable) is skipped. Linux only (`/proc`).
///
/// # Errors
/// `invalid_arguments` when a value found is not a caller name (`main`, `plan`, `readonly`,
/// any case, no spaces); the message names the value and where it was found. Failing closed:
/// a garbled value never means "no ceiling".
pub fn inherited_worker_caller() -> Result<Option<InheritedWorkerCaller>, ToolError> {
    most_restrictive(crate::transport::process::inherited_environment_variable(ENV_WORKER_CALLER))
}

/// The most restrictive of `found` (value, where), or an error naming a value that is no caller.
fn most_restrictive(found: Vec<(OsString, String)>) -> Result<Option<InheritedWorkerCaller>, ToolError> {
    let best = most_restrictive_by(found, ENV_WORKER_CALLER, "a caller (main, plan or readonly)", "what this worker may see", |text| {
        Caller::parse(text).map(|caller| (caller, caller.highest_tier()))
    })?;
    Ok(best.map(|(caller, found_in)| InheritedWorkerCaller { caller, found_in }))
}

/// A workspace trust inherited from a vibe worker's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InheritedWorkspaceTrust {
    /// The most restrictive trust found (`restricted` before `trusted`).
    pub trust: WorkspaceTrust,
    /// Where it was found: `"this process's environment"` or `"the environment of ancestor pid
    /// 1234 (sh)"`.
    pub found_in: String,
}

/// Looks for [`ENV_WORKER_WORKSPACE_TRUST`] in this process's environment, then in the initial
/// environment of each ancestor (as [`inherited_worker_caller`] does), and returns the most
/// restrictive trust found (`restricted` before `trusted`; the nearest among equals), or `None`
/// when no process on the chain has the variable. The CLI takes it as the ceiling of its
/// `--workspace-trust`: a restricted run's worker drives only restricted runs.
///
/// # Errors
/// `invalid_arguments` when a value found is not `trusted` or `restricted` (any case, no
/// spaces); the message names the value and where it was found. Failing closed: a garbled value
/// never means "no ceiling".
pub fn inherited_worker_workspace_trust() -> Result<Option<InheritedWorkspaceTrust>, ToolError> {
    most_restrictive_trust(crate::transport::process::inherited_environment_variable(ENV_WORKER_WORKSPACE_TRUST))
}

/// The most restrictive of `found` (value, where), or an error naming a value that is no trust.
fn most_restrictive_trust(found: Vec<(OsString, String)>) -> Result<Option<InheritedWorkspaceTrust>, ToolError> {
    let best = most_restrictive_by(
        found,
        ENV_WORKER_WORKSPACE_TRUST,
        "a workspace trust (trusted or restricted)",
        "what this worker may run",
        |text| {
            // Restricted ranks lower: it runs less.
            WorkspaceTrust::parse(&text.to_ascii_lowercase()).map(|trust| (trust, u8::from(!trust.is_restricted())))
        },
    )?;
    Ok(best.map(|(trust, found_in)| InheritedWorkspaceTrust { trust, found_in }))
}

/// The value of `found` with the lowest rank (the nearest among equals), or an error naming the
/// first value `parse` refuses. `parse` gets the value as text and returns it with its rank.
fn most_restrictive_by<T, R: Ord>(
    found: Vec<(OsString, String)>,
    variable: &str,
    expected: &str,
    guarded: &str,
    parse: impl Fn(&str) -> Option<(T, R)>,
) -> Result<Option<(T, String)>, ToolError> {
    let mut best: Option<(T, R, String)> = None;
    for (value, found_in) in found {
        let text = value.to_string_lossy();
        let Some((parsed, rank)) = parse(&text) else {
            return Err(ToolError::invalid(format!("{variable}={text:?} in {found_in} is not {expected}; refusing to guess {guarded}"))
                .with_hint(if found_in.starts_with("this process") {
                    "unset it, or fix the host that spawned this worker".to_owned()
                } else {
                    format!(
                    "it is in the environment {found_in} started with, which cannot be changed now: run runbound outside that process tree"
                )
                }));
        };
        if best.as_ref().is_none_or(|(_, best_rank, _)| rank < *best_rank) {
            best = Some((parsed, rank, found_in));
        }
    }
    Ok(best.map(|(parsed, _, found_in)| (parsed, found_in)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(entries: &[(&str, &str)]) -> Vec<(OsString, String)> {
        entries.iter().map(|(value, place)| (OsString::from(value), (*place).to_owned())).collect()
    }

    #[test]
    fn the_most_restrictive_value_wins_and_garbage_fails_closed() {
        assert_eq!(most_restrictive(Vec::new()).unwrap(), None);
        let best = most_restrictive(found(&[("main", "here"), ("readonly", "pid 7"), ("plan", "pid 3")])).unwrap().unwrap();
        assert_eq!(best, InheritedWorkerCaller { caller: Caller::Readonly, found_in: "pid 7".to_owned() });
        let best = most_restrictive(found(&[("MAIN", "here")])).unwrap().unwrap();
        assert_eq!(best.caller, Caller::Main);
        for garbage in ["", " readonly", "root"] {
            let err = most_restrictive(found(&[("main", "here"), (garbage, "pid 9")])).unwrap_err();
            assert!(err.message.contains("pid 9") && err.message.contains("is not a caller"), "{garbage:?}: {}", err.message);
        }
    }

    #[test]
    fn restricted_trust_wins_and_garbage_fails_closed() {
        assert_eq!(most_restrictive_trust(Vec::new()).unwrap(), None);
        let best =
            most_restrictive_trust(found(&[("trusted", "here"), ("restricted", "pid 7"), ("Restricted", "pid 3")])).unwrap().unwrap();
        assert_eq!(best, InheritedWorkspaceTrust { trust: WorkspaceTrust::Restricted, found_in: "pid 7".to_owned() });
        let best = most_restrictive_trust(found(&[("TRUSTED", "here")])).unwrap().unwrap();
        assert_eq!(best.trust, WorkspaceTrust::Trusted);
        for garbage in ["", " restricted", "untrusted", "yes"] {
            let err = most_restrictive_trust(found(&[("restricted", "here"), (garbage, "pid 9")])).unwrap_err();
            assert!(
                err.message.contains("pid 9")
                    && err.message.contains("is not a workspace trust")
                    && err.message.contains(ENV_WORKER_WORKSPACE_TRUST),
                "{garbage:?}: {}",
                err.message
            );
        }
    }
}
