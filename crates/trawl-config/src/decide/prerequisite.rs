//! ACCEPT prerequisites of URIs already accepted.

use super::{DecideInput, DecideRule, Decision};

/// `prerequisite_accept`: answers ACCEPT for a prerequisite (robots.txt, reached by a `P` hop or by redirects
/// from one), else PASS: a URI in scope needs them.
#[derive(Debug, Clone, Copy)]
pub struct PrerequisiteAccept;

impl DecideRule for PrerequisiteAccept {
    fn name(&self) -> &str {
        "prerequisite_accept"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        input.uri.is_prerequisite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn accepts_p_hops() {
        let r = PrerequisiteAccept;
        assert_eq!(
            decide(&r, "http://a.org/robots.txt", "LP"),
            Decision::Accept
        );
        assert_eq!(decide(&r, "http://a.org/x", "PL"), Decision::Pass);
    }
}
