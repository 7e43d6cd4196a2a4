//! `trawl`: the command line. It parses flags and calls the libraries; all crawling lives in trawl-engine.

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TRAWL_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match cmd::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("trawl: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
