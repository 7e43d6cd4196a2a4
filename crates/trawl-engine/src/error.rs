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
    #[error(transparent)]
    Frontier(#[from] trawl_frontier::Error),
    /// `trawl resume --checkpoint NAME` named a checkpoint the job does not have.
    #[error("{} has no checkpoint {name:?}; it has: {available}", job.display())]
    NoSuchCheckpoint {
        /// The job directory.
        job: PathBuf,
        /// The name asked for.
        name: String,
        /// The checkpoints it has, comma-separated (or "none").
        available: String,
    },
    /// A WARC could not be written or repaired.
    #[error("writing WARC: {0}")]
    Warc(#[from] trawl_warc::Error),
    /// The journal thread (crawl.log and frontier commits) stopped after a failure, reported where it
    /// happened.
    #[error("the journal (crawl.log and frontier commits) has stopped after a failure")]
    JournalStopped,
    /// A running crawl's reply to an operator command could not be read.
    #[error("{}: unreadable reply from the crawl: {source}", path.display())]
    BadReply {
        /// The reply file.
        path: PathBuf,
        /// Why it could not be read.
        source: serde_json::Error,
    },
}
