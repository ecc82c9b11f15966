//! Helpers of the unit tests that drive real programs: the same helpers as the integration
//! tests' (`tests/it/support/helpers.rs`: finding tools — skip loudly locally, fail under `CI` —,
//! `alone`, counting threads and descendant processes, temp workspaces) and the real-project
//! corpus (`tests/it/support/corpus.rs`), compiled from the same files into this binary.
//! `runbound::` names this crate here (`extern crate self as runbound` in `lib.rs`, tests only),
//! so the shared files read the same in both binaries.
#![allow(dead_code)]

#[path = "../tests/it/support/corpus.rs"]
pub mod corpus;

include!("../tests/it/support/helpers.rs");
