//! Approval tiers, callers and approval policies: what a caller may see and what prompts.
//!
//! The tier of a tool decides which callers can *see* it, not only whether it prompts
//! (R-TIER-1, docs/contract.md). Plan mode and read-only subagents see `read` tools only (R-TIER-2).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The side effects a tool may have. Ordered: `Read < Write < Exec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// No side effects (lsp, ast_grep, ask_user, vibe_*, read).
    Read,
    /// Changes files in the workspace (lsp_rename, ast_edit, resolve, write, edit, apply_patch).
    Write,
    /// Starts or controls a process (debug, eval).
    Exec,
}

impl Tier {
    /// The lowercase wire name: `read`, `write` or `exec`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Read => "read",
            Tier::Write => "write",
            Tier::Exec => "exec",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who is calling. Decides the highest tier the caller can see (R-TIER-1/2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Caller {
    /// The main agent: sees every tier.
    Main,
    /// Plan mode: sees `read` tools only.
    Plan,
    /// A read-only subagent: sees `read` tools only.
    Readonly,
}

impl Caller {
    /// Every caller, in the order the CLI lists them.
    pub const ALL: [Caller; 3] = [Caller::Main, Caller::Plan, Caller::Readonly];

    /// The highest tier this caller can see and call.
    pub fn highest_tier(self) -> Tier {
        match self {
            Caller::Main => Tier::Exec,
            Caller::Plan | Caller::Readonly => Tier::Read,
        }
    }

    /// Whether a tool of `tier` is visible to (and callable by) this caller.
    pub fn can_see(self, tier: Tier) -> bool {
        tier <= self.highest_tier()
    }

    /// The lowercase wire name: `main`, `plan` or `readonly`.
    pub fn as_str(self) -> &'static str {
        match self {
            Caller::Main => "main",
            Caller::Plan => "plan",
            Caller::Readonly => "readonly",
        }
    }

    /// Parses `main`, `plan` or `readonly` (case-insensitive); `None` for anything else.
    pub fn parse(text: &str) -> Option<Caller> {
        match text.to_ascii_lowercase().as_str() {
            "main" => Some(Caller::Main),
            "plan" => Some(Caller::Plan),
            "readonly" | "read-only" | "read_only" => Some(Caller::Readonly),
            _ => None,
        }
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happens when a visible tool of some tier is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Approval {
    /// Run without asking.
    Allow,
    /// Show a permission card through the ask port; no port attached means denied (fail-closed).
    Ask,
    /// Refuse every call.
    Deny,
}

impl Approval {
    /// Parses `allow`, `ask` or `deny`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Approval> {
        match text.to_ascii_lowercase().as_str() {
            "allow" => Some(Approval::Allow),
            "ask" => Some(Approval::Ask),
            "deny" => Some(Approval::Deny),
            _ => None,
        }
    }
}

/// Approval per tier. The default allows `read` and asks for `write` and `exec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalPolicy {
    /// Policy for read-tier tools (default: allow).
    pub read: Approval,
    /// Policy for write-tier tools (default: ask).
    pub write: Approval,
    /// Policy for exec-tier tools (default: ask).
    pub exec: Approval,
}

impl Default for ApprovalPolicy {
    fn default() -> Self {
        ApprovalPolicy { read: Approval::Allow, write: Approval::Ask, exec: Approval::Ask }
    }
}

impl ApprovalPolicy {
    /// A policy that allows read and applies `approval` to write and exec (the CLI's `--approve`).
    pub fn for_write_and_exec(approval: Approval) -> ApprovalPolicy {
        ApprovalPolicy { read: Approval::Allow, write: approval, exec: approval }
    }

    /// The approval for `tier`.
    pub fn for_tier(&self, tier: Tier) -> Approval {
        match tier {
            Tier::Read => self.read,
            Tier::Write => self.write,
            Tier::Exec => self.exec,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_callers_see_only_read() {
        for caller in [Caller::Plan, Caller::Readonly] {
            assert!(caller.can_see(Tier::Read));
            assert!(!caller.can_see(Tier::Write));
            assert!(!caller.can_see(Tier::Exec));
        }
        assert!(Caller::Main.can_see(Tier::Exec));
    }

    #[test]
    fn parse_round_trips() {
        for caller in Caller::ALL {
            assert_eq!(Caller::parse(caller.as_str()), Some(caller));
        }
        assert_eq!(Caller::parse("root"), None);
        assert_eq!(Approval::parse("ASK"), Some(Approval::Ask));
        assert_eq!(Approval::parse("maybe"), None);
    }
}
