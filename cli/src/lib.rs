//! `devportal`: the developer portal's command-line client. It speaks only the public HTTP API, with a
//! bearer token, like any outside client. A library too, so that its tests reach [`wire::READ`].

pub mod args;
pub mod client;
pub mod commands;
pub mod config;
pub mod error;
pub mod output;
pub mod portal;
pub mod wire;

use clap::Parser;
use std::process::ExitCode;

/// Runs the command line of this process and answers its exit code (0, 1, 2 or 3; see `--help`).
#[must_use]
pub fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let json = cli.global.json;
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if json {
                eprintln!("{}", error.to_json());
            } else {
                eprintln!("error: {error}");
                for line in error.details() {
                    eprintln!("{line}");
                }
            }
            ExitCode::from(error.exit_code())
        }
    }
}
