//! The one error type of this crate.

/// A URL or identity setting that could not be used, with the input that caused it.
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
    /// A canonicalizer name that is not one of the known rule sets.
    #[error(
        "{name:?} is not a canonicalizer; expected one of heritrix, whatwg, semantic, aggressive, google, ia"
    )]
    UnknownCanonicalizer {
        /// The name as given.
        name: String,
    },
    /// A rewrite or tracking-parameter pattern that does not compile.
    #[error("pattern {pattern:?} does not compile: {reason}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// What the regex compiler objected to.
        reason: String,
    },
}
