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
    /// Merge hENC files like the hENC Perl module (install as modules/henc); no FILE reads stdin
    Henc {
        /// For every class and variable: the file:line that decided it and the lines it overrode
        #[arg(long, conflicts_with = "lint")]
        explain: bool,
        /// Report hENC pitfalls as file:line warnings (exit 1 when any)
        #[arg(long)]
        lint: bool,
        /// ENC files, most general first (later files win)
        files: Vec<String>,
    },
    /// Puppet external node classifier built on the hENC merge (exit 1 for an unknown node)
    Enc {
        /// Config file (JSON); default $CFSIM_ENC_CONFIG, then /etc/cfsim/enc.json
        #[arg(long)]
        config: Option<String>,
        /// The node name Puppet passes
        node: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Henc {
            explain,
            lint,
            files,
        } => cfsim::henc::cli::henc(&files, explain, lint),
        Cmd::Enc { config, node } => cfsim::henc::cli::enc(&node, config.as_deref()),
    }
}
