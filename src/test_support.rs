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

/// Writes `script` to `path` (creating its parent directories) with mode 0755: a stand-in for a
/// program the code under test must find (or refuse) on PATH, in a venv or in a checkout.
pub fn write_executable(path: &std::path::Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("a path with a parent")).unwrap();
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
