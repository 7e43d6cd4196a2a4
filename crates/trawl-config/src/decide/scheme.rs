//! REJECT schemes the fetcher cannot fetch.

use super::{DecideInput, DecideRule, Decision};

/// `scheme_not_in_set`: answers REJECT for a URI whose scheme is not one of `schemes`, else PASS.
/// Default: `http`, `https`.
#[derive(Debug, Clone)]
pub struct SchemeNotInSet {
    /// The schemes that may be fetched.
    pub schemes: Vec<String>,
}

impl Default for SchemeNotInSet {
    fn default() -> Self {
        SchemeNotInSet {
            schemes: vec!["http".into(), "https".into()],
        }
    }
}

impl DecideRule for SchemeNotInSet {
    fn name(&self) -> &str {
        "scheme_not_in_set"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        !self
            .schemes
            .iter()
            .any(|s| s.eq_ignore_ascii_case(input.uri.url.scheme()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn only_http() {
        let rule = SchemeNotInSet::default();
        assert_eq!(decide(&rule, "https://a.org/", "L"), Decision::Pass);
        assert_eq!(decide(&rule, "ftp://a.org/", "L"), Decision::Reject);
    }
}
