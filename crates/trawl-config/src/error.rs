//! Why a config file could not be loaded.

use std::path::PathBuf;

/// A config or seed file that could not be read, or that is not valid.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid: every problem, one per line, at its place.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The config file.
        path: PathBuf,
        /// What is wrong and where.
        message: String,
    },
}
