//! Answer for URIs whose URL matches any (or all) of a list of regexes.

use regex::Regex;

use super::{DecideInput, DecideRule, Decision};

/// `matches_list_regex`: answers its decision (default ACCEPT) for a URI whose URL matches any of `regexes`
/// (`all`: every one of them), else PASS. `not_matches_list_regex` (`negate`) matches the other URLs and
/// answers REJECT by default.
#[derive(Debug, Clone)]
pub struct MatchesListRegex {
    /// The patterns.
    pub regexes: Vec<Regex>,
    /// Whether every pattern must match (`list_logic = "all"`) rather than any. Default: any.
    pub all: bool,
    /// `not_matches_list_regex`. Default: false.
    pub negate: bool,
}

impl DecideRule for MatchesListRegex {
    fn name(&self) -> &str {
        if self.negate {
            "not_matches_list_regex"
        } else {
            "matches_list_regex"
        }
    }

    fn default_decision(&self) -> Decision {
        Decision::for_negated(self.negate)
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let url = input.uri.url.as_str();
        let hit = if self.all {
            !self.regexes.is_empty() && self.regexes.iter().all(|r| r.is_match(url))
        } else {
            self.regexes.iter().any(|r| r.is_match(url))
        };
        hit != self.negate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn any_and_all() {
        let mut rule = MatchesListRegex {
            regexes: vec![Regex::new("/a/").unwrap(), Regex::new("x$").unwrap()],
            all: false,
            negate: false,
        };
        assert_eq!(decide(&rule, "http://h.org/a/b", "L"), Decision::Accept);
        assert_eq!(decide(&rule, "http://h.org/b/x", "L"), Decision::Accept);
        assert_eq!(decide(&rule, "http://h.org/b/", "L"), Decision::Pass);
        rule.all = true;
        assert_eq!(decide(&rule, "http://h.org/a/b", "L"), Decision::Pass);
        assert_eq!(decide(&rule, "http://h.org/a/x", "L"), Decision::Accept);
        rule.negate = true;
        assert_eq!(decide(&rule, "http://h.org/a/b", "L"), Decision::Reject);
    }
}
