//! The `runbound` command line; see `src/cli/` (one file per concern) and `runbound --help`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
