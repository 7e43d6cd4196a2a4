//! ACCEPT prerequisites of URIs already accepted.

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers ACCEPT for a URI whose last hop is `P` (robots.txt, DNS), else PASS: a URI in scope needs them.
#[derive(Debug, Clone, Copy)]
pub struct PrerequisiteAccept;

impl DecideRule for PrerequisiteAccept {
    fn name(&self) -> &'static str {
        "PrerequisiteAccept"
    }

    fn decide(&self, uri: &CrawlUri) -> Decision {
        if uri.last_hop() == Some('P') {
            Decision::Accept
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
    fn accepts_p_hops() {
        assert_eq!(
            PrerequisiteAccept.decide(&uri("http://a.org/robots.txt", "LP")),
            Decision::Accept
        );
        assert_eq!(
            PrerequisiteAccept.decide(&uri("http://a.org/x", "PL")),
            Decision::Pass
        );
    }
}
