//! Canonicalization: the rules that turn a URL into the key the already-seen filter tests.

mod heritrix;

use url::Url;

/// A named canonicalization rule set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Canonicalizer {
    /// Heritrix's default rules, in order: lowercase, strip userinfo, strip `www`/`wwwN` (not on slash-only
    /// pages), strip session ids, fix up the query string. Default.
    #[default]
    Heritrix,
}

impl Canonicalizer {
    /// The canonical string form of `url` under these rules.
    pub fn canonicalize(self, url: &Url) -> String {
        match self {
            Canonicalizer::Heritrix => heritrix::canonicalize(url.as_str()),
        }
    }
}
