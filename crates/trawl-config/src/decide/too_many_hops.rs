//! REJECT URIs too many hops from a seed.

use super::{DecideInput, DecideRule, Decision};

/// `too_many_hops`: answers REJECT for a URI more than `max_hops` hops from its seed, else PASS. Default: 20.
#[derive(Debug, Clone, Copy)]
pub struct TooManyHops {
    /// The most hops allowed.
    pub max_hops: usize,
}

impl DecideRule for TooManyHops {
    fn name(&self) -> &str {
        "too_many_hops"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        input.uri.hop_count() > self.max_hops
    }

    fn rejection_status(&self) -> i32 {
        crate::status::TOO_MANY_HOPS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn rejects_past_the_limit() {
        let rule = TooManyHops { max_hops: 2 };
        for (path, want) in [
            ("", Decision::Pass),
            ("LL", Decision::Pass),
            ("LLE", Decision::Reject),
        ] {
            assert_eq!(decide(&rule, "http://a.org/", path), want, "{path}");
        }
    }
}
