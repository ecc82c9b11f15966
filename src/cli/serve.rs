//! `runbound serve`: the run as an MCP server over stdio (the protocol lives in the library's
//! `runbound::serve`); this file maps its outcome to an exit code and stderr.

use std::process::ExitCode;

use runbound::serve::{serve_stdio, ServeConfig};
use runbound::{Caller, RunBuilder};

use crate::cli::EXIT_TOOL_ERROR;

/// Serves until the host closes stdin; exit 0, or 1 when the connection broke.
pub fn serve(builder: RunBuilder, caller: Caller) -> ExitCode {
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
