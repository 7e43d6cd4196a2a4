//! The engine's error type.

use std::path::PathBuf;

/// What can stop a crawl or its setup.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The config file is not valid.
    #[error("{}: {message}", path.display())]
    Config {
        /// The config file.
        path: PathBuf,
        /// What is wrong and where.
        message: String,
    },
    /// A seed is not a crawlable URL.
    #[error("seed {0}")]
    Seed(#[from] trawl_url::Error),
    /// The crawl was given no seeds.
    #[error("no seeds: give seed URLs on the command line or in the config's `seeds` list")]
    NoSeeds,
    /// `trawl crawl` was pointed at a job that already holds a crawl.
    #[error("{} already holds a crawl: continue it with `trawl resume {}`, or give a new --job directory", .0.display(), .0.display())]
    JobExists(PathBuf),
    /// `trawl resume` was pointed at a directory with no crawl state.
    #[error("{} holds no crawl to resume (no state/frontier); start one with `trawl crawl --job`", .0.display())]
    NothingToResume(PathBuf),
    /// The frontier's store failed.
    #[error("{0}")]
    Frontier(String),
    /// A checkpoint could not be found, written or restored.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    /// A WARC could not be written.
    #[error("writing WARC: {0}")]
    Warc(String),
}
