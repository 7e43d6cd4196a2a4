//! The one error type of this crate.

/// A URL that could not be used, with the input that caused it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text does not parse as an absolute URL, alone or against its base.
    #[error("{input:?} is not a valid URL: {reason}")]
    InvalidUrl {
        /// The text as given.
        input: String,
        /// What the WHATWG parser objected to.
        reason: url::ParseError,
    },
    /// The URL parsed but its scheme cannot be crawled.
    #[error("{input:?} has scheme {scheme:?}; only http and https can be crawled")]
    UnsupportedScheme {
        /// The URL as given.
        input: String,
        /// Its scheme.
        scheme: String,
    },
}
