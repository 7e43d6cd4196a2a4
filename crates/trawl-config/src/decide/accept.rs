//! ACCEPT everything: the first rule of a scope that starts wide.

use super::{DecideInput, DecideRule, Decision};

/// `accept`: answers ACCEPT for every URI (or the `decision` set), establishing a default.
#[derive(Debug, Clone, Copy)]
pub struct AcceptAll;

impl DecideRule for AcceptAll {
    fn name(&self) -> &str {
        "accept"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, _input: &DecideInput<'_>) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn accepts_all() {
        assert_eq!(decide(&AcceptAll, "http://a.org/", "L"), Decision::Accept);
        assert_eq!(decide(&AcceptAll, "ftp://b.org/", ""), Decision::Accept);
    }
}
