//! REJECT very deep paths.

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers REJECT for a URI whose path has more than `max_segments` segments, else PASS. Default: 20.
#[derive(Debug, Clone, Copy)]
pub struct TooManyPathSegments {
    /// The most path segments.
    pub max_segments: usize,
}

impl DecideRule for TooManyPathSegments {
    fn name(&self) -> &'static str {
        "TooManyPathSegments"
    }

    fn decide(&self, uri: &CrawlUri) -> Decision {
        if uri.url.path().split('/').filter(|s| !s.is_empty()).count() > self.max_segments {
            Decision::Reject
        } else {
            Decision::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::uri;

    #[test]
    fn rejects_deep_paths() {
        let rule = TooManyPathSegments { max_segments: 2 };
        assert_eq!(rule.decide(&uri("http://a.org/a/b/", "L")), Decision::Pass);
        assert_eq!(
            rule.decide(&uri("http://a.org/a/b/c", "L")),
            Decision::Reject
        );
    }
}
