//! The `cfsim` binary: thin clap front end; each subcommand calls one library function.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cfsim", version, about = "Simulate CFEngine 3.21 agent runs")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the 186 built-in functions of CFEngine 3.21 with implemented / not implemented
    Functions,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Functions => {
            print!("{}", cfsim::functions::coverage_report());
            ExitCode::SUCCESS
        }
    }
}
