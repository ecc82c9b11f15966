//! Shared helpers for integration tests: finding real tools (skip loudly locally, fail under
//! CI), counting this process's threads and descendant processes, temp workspaces.
//!
//! Every test module reaches these as `crate::support`; the suite is one binary (`tests/it/`).
#![allow(dead_code)]

pub mod bridge_tools;
pub mod corpus;
pub mod serve_process;

include!("helpers.rs");
