//! Answer for URIs whose URL matches a regex (`matches_regex`), or does not (`not_matches_regex`).

use regex::Regex;

use super::{DecideInput, DecideRule, Decision};

/// `matches_regex`: answers its decision (default ACCEPT) for a URI whose URL the regex finds a match in (anchor
/// it with `^…$` to match the whole URL), else PASS. `not_matches_regex` (`negate`) matches the URLs the regex
/// does not match and answers REJECT by default.
#[derive(Debug, Clone)]
pub struct MatchesRegex {
    /// The pattern (Rust `regex` syntax).
    pub regex: Regex,
    /// `not_matches_regex`. Default: false.
    pub negate: bool,
}

impl DecideRule for MatchesRegex {
    fn name(&self) -> &str {
        if self.negate {
            "not_matches_regex"
        } else {
            "matches_regex"
        }
    }

    fn default_decision(&self) -> Decision {
        Decision::for_negated(self.negate)
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        self.regex.is_match(input.uri.url.as_str()) != self.negate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn finds_the_pattern() {
        let mut rule = MatchesRegex {
            regex: Regex::new(r"\.pdf$").unwrap(),
            negate: false,
        };
        assert_eq!(decide(&rule, "http://a.org/x.pdf", "L"), Decision::Accept);
        assert_eq!(decide(&rule, "http://a.org/x.html", "L"), Decision::Pass);
        rule.negate = true;
        assert_eq!(decide(&rule, "http://a.org/x.html", "L"), Decision::Reject);
    }
}
