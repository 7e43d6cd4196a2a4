//! Answer for URIs found on another document.

use super::{DecideInput, DecideRule, Decision};

/// `has_via`: answers its decision (default ACCEPT) for a URI that was found on another document (not a seed
/// given directly), else PASS.
#[derive(Debug, Clone, Copy)]
pub struct HasVia;

impl DecideRule for HasVia {
    fn name(&self) -> &str {
        "has_via"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        input.uri.via.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn needs_a_via() {
        assert_eq!(decide(&HasVia, "http://a.org/", "L"), Decision::Accept);
        assert_eq!(decide(&HasVia, "http://a.org/", ""), Decision::Pass);
    }
}
