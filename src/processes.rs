//! The processes below a host, for a host that embeds runbound (the CLI is one).
//!
//! runbound spawns every child in its own process group, tags it, and kills and reaps it when
//! its owner drops (see ARCHITECTURE.md, "Tools do not spawn processes"). A host process has
//! two duties of its own that the library cannot take on for it, because they are
//! process-wide:
//!
//! - As a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), it adopts the orphans of
//!   double-forked or `setsid`ed descendants; [`reap_adopted_orphans`] collects them without
//!   ever taking the exit status of a child runbound's own handles wait for.
//! - On exit it may kill whatever is still below it: [`descendant_processes_and_groups`] walks
//!   /proc once and also names the process groups it met (a process that forks and exits faster
//!   than the walk keeps its group).
//!
//! [`descendant_pids`], [`descendant_processes`], [`process_start_time_ticks`] and
//! [`process_state`] let a host (or its tests) check that nothing it started survives: a pid
//! together with its start time identifies a process even after the pid is reused. Linux only;
//! every function answers empty or `None` when /proc cannot be read.

pub use crate::transport::process::{
    descendant_pids, descendant_processes, descendant_processes_and_groups, process_start_time_ticks, process_state, reap_adopted_orphans,
    ProcessIdentity, ProcessState, ReapedOrphan,
};
