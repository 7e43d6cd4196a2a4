//! The frontier's error type.

use std::path::PathBuf;

/// A failure of the frontier's store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store could not be opened, read or written.
    #[error("frontier store {}: {message}", path.display())]
    Store {
        /// The store's folder.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The store holds a record this version cannot read.
    #[error("frontier store {}: unreadable {what} record", path.display())]
    Corrupt {
        /// The store's folder.
        path: PathBuf,
        /// Which kind of record.
        what: &'static str,
    },
}
