//! REJECT everything: the usual first rule of a scope.

use super::{DecideInput, DecideRule, Decision};

/// `reject`: answers REJECT for every URI, so that later rules accept only what they name.
#[derive(Debug, Clone, Copy)]
pub struct RejectAll;

impl DecideRule for RejectAll {
    fn name(&self) -> &str {
        "reject"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
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
    fn rejects_all() {
        assert_eq!(decide(&RejectAll, "http://a.org/", "L"), Decision::Reject);
    }
}
