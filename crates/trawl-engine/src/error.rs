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
    /// A WARC could not be written.
    #[error("writing WARC: {0}")]
    Warc(String),
}
