//! REJECT URIs too many hops from a seed.

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers REJECT for a URI more than `max_hops` hops from its seed, else PASS. Default: 20.
#[derive(Debug, Clone, Copy)]
pub struct TooManyHops {
    /// The most hops allowed.
    pub max_hops: usize,
}

impl DecideRule for TooManyHops {
    fn name(&self) -> &'static str {
        "TooManyHops"
    }

    fn decide(&self, uri: &CrawlUri) -> Decision {
        if uri.hop_count() > self.max_hops {
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
    fn rejects_past_the_limit() {
        let rule = TooManyHops { max_hops: 2 };
        for (path, want) in [
            ("", Decision::Pass),
            ("LL", Decision::Pass),
            ("LLE", Decision::Reject),
        ] {
            assert_eq!(rule.decide(&uri("http://a.org/", path)), want, "{path}");
        }
    }
}
