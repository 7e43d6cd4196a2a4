//! Flags and subcommands.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// trawl: an archival-quality web crawler that writes WARC 1.1.
#[derive(Debug, Parser)]
#[command(version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Crawl from seed URLs into a job directory (WARCs, crawl.log, reports). Ctrl-C stops cleanly.
    Crawl {
        /// Seed URLs (http or https); a bare host means http://host/.
        seeds: Vec<String>,
        /// A crawl.toml with settings (see docs/configuration.md); unknown keys are errors.
        #[arg(short = 'c', long = "config")]
        config: Option<PathBuf>,
        /// The job directory. Default: jobs/HOST-YYYYMMDDhhmmss.
        #[arg(long)]
        job: Option<PathBuf>,
    },
    /// Validate a crawl.toml: syntax, types, unknown keys and values that contradict each other.
    Check {
        /// The config file.
        config: PathBuf,
    },
    /// Serve the built-in test site on 127.0.0.1, crawl it, and check every scenario (PASS/FAIL lines).
    Selftest {
        /// Keep the job directory here instead of a temporary one.
        #[arg(long)]
        keep: Option<PathBuf>,
    },
    /// Say whether robots.txt allows each URL for an agent (RFC 9309).
    Robots {
        /// The agent's product token, e.g. `trawl`.
        #[arg(long)]
        agent: String,
        /// The robots.txt file.
        #[arg(long)]
        file: PathBuf,
        /// URLs to test.
        #[arg(required = true)]
        urls: Vec<String>,
    },
    /// Inspect and validate WARC files.
    Warc {
        #[command(subcommand)]
        command: WarcCommand,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum WarcCommand {
    /// One line per record: offset, type, target URI, content type, length, record id.
    Ls {
        /// WARC files (.warc or .warc.gz).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Check headers, digests and gzip members; exit 1 naming the first bad record and its offset.
    Verify {
        /// WARC files (.warc or .warc.gz).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}
