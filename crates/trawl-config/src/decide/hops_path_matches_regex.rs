//! Answer for URIs whose hop path matches a regex.

use regex::Regex;

use super::{DecideInput, DecideRule, Decision};

/// `hops_path_matches_regex`: answers its decision (default ACCEPT) for a URI whose hop path (`LLE`; empty for
/// a seed) the regex matches, else PASS. E.g. `regex = "^L*E?$"` with `decision = "accept"`.
#[derive(Debug, Clone)]
pub struct HopsPathMatchesRegex {
    /// The pattern.
    pub regex: Regex,
}

impl DecideRule for HopsPathMatchesRegex {
    fn name(&self) -> &str {
        "hops_path_matches_regex"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.regex.is_match(&input.uri.hop_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn matches_the_hop_path() {
        let rule = HopsPathMatchesRegex {
            regex: Regex::new("^L{0,2}E?$").unwrap(),
        };
        for (path, want) in [
            ("", Decision::Accept),
            ("LLE", Decision::Accept),
            ("LLL", Decision::Pass),
        ] {
            assert_eq!(decide(&rule, "http://a.org/", path), want, "{path}");
        }
    }
}
