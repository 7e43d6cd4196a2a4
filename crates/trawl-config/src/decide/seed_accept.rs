//! ACCEPT the seeds themselves.

use super::{DecideInput, DecideRule, Decision};

/// `seed_accept`: answers ACCEPT for a seed, else PASS, so a seed is crawled even when later rules would not
/// take it.
#[derive(Debug, Clone, Copy)]
pub struct SeedAccept;

impl DecideRule for SeedAccept {
    fn name(&self) -> &str {
        "seed_accept"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        input.uri.is_seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn accepts_seeds() {
        assert_eq!(decide(&SeedAccept, "http://a.org/", ""), Decision::Accept);
        assert_eq!(decide(&SeedAccept, "http://a.org/", "L"), Decision::Pass);
    }
}
