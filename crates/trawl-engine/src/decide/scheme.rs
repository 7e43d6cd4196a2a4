//! REJECT schemes the fetcher cannot fetch.

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers REJECT for a URI whose scheme is not one of `schemes`, else PASS. Default: `http`, `https`.
#[derive(Debug, Clone)]
pub struct SchemeNotInSet {
    /// The schemes that may be fetched.
    pub schemes: Vec<String>,
}

impl Default for SchemeNotInSet {
    fn default() -> Self {
        SchemeNotInSet {
            schemes: vec!["http".into(), "https".into()],
        }
    }
}

impl DecideRule for SchemeNotInSet {
    fn name(&self) -> &'static str {
        "SchemeNotInSet"
    }

    fn decide(&self, uri: &CrawlUri) -> Decision {
        if self.schemes.iter().any(|s| s == uri.url.scheme()) {
            Decision::Pass
        } else {
            Decision::Reject
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::uri;

    #[test]
    fn only_http() {
        let rule = SchemeNotInSet::default();
        assert_eq!(rule.decide(&uri("https://a.org/", "L")), Decision::Pass);
        assert_eq!(rule.decide(&uri("ftp://a.org/", "L")), Decision::Reject);
    }
}
