//! Answer for responses whose media type matches a regex (after the response head).

use regex::Regex;

use super::{DecideInput, DecideRule, Decision};

/// `content_type_matches_regex`: answers its decision (default REJECT) for a fetched URI whose `Content-Type`
/// the regex finds a match in, else PASS; before the response head is known it passes.
/// `not_content_type_matches_regex` (`negate`) matches the other known types.
#[derive(Debug, Clone)]
pub struct ContentTypeMatchesRegex {
    /// The pattern, e.g. `^video/`.
    pub regex: Regex,
    /// Match the types the regex does not match. Default: false.
    pub negate: bool,
}

impl DecideRule for ContentTypeMatchesRegex {
    fn name(&self) -> &str {
        if self.negate {
            "not_content_type_matches_regex"
        } else {
            "content_type_matches_regex"
        }
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        match input.fetch.and_then(|f| f.mime.as_deref()) {
            Some(mime) => self.regex.is_match(mime) != self.negate,
            None => false,
        }
    }

    fn knows(&self, input: &DecideInput<'_>) -> bool {
        input.fetch.and_then(|f| f.mime.as_deref()).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{FetchFacts, test_util::uri};

    #[test]
    fn needs_the_type() {
        let mut rule = ContentTypeMatchesRegex {
            regex: Regex::new("^video/").unwrap(),
            negate: false,
        };
        let u = uri("http://a.org/v", "L");
        let facts = |m: &str| FetchFacts {
            mime: Some(m.into()),
            ..FetchFacts::default()
        };
        assert_eq!(rule.decide(&DecideInput::new(&u)), Decision::Pass);
        let v = facts("video/mp4");
        assert_eq!(rule.decide(&DecideInput::fetched(&u, &v)), Decision::Reject);
        let h = facts("text/html");
        assert_eq!(rule.decide(&DecideInput::fetched(&u, &h)), Decision::Pass);
        rule.negate = true;
        assert_eq!(rule.decide(&DecideInput::fetched(&u, &h)), Decision::Reject);
    }
}
