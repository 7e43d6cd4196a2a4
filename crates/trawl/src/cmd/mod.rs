//! What each subcommand does: one module per command.

mod crawl;
mod robots;
mod selftest;
mod warc;

use std::process::ExitCode;

use anyhow::Context;
use trawl_engine::CrawlConfig;

use crate::cli::{Cli, Command, WarcCommand};

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Crawl { seeds, config, job } => crawl::crawl(seeds, config, job),
        Command::Check { config } => {
            CrawlConfig::load(&config)?;
            println!("{}: ok", config.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Selftest { keep } => selftest::selftest(keep),
        Command::Robots { agent, file, urls } => robots::robots(&agent, &file, &urls),
        Command::Warc { command } => match command {
            WarcCommand::Ls { files } => warc::ls(&files),
            WarcCommand::Verify { files } => warc::verify(&files),
        },
    }
}

/// The multi-threaded runtime the async commands run on.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
