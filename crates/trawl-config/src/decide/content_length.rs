//! Answer for responses longer or shorter than a bound.

use super::{DecideInput, DecideRule, Decision};

/// `content_length`: answers its decision (default REJECT) for a fetched URI whose body is longer than
/// `longer_than` or shorter than `shorter_than` bytes (set one or both), else PASS; before the length is
/// known (`Content-Length` after the head, the real size before writing) it passes.
#[derive(Debug, Clone, Copy, Default)]
pub struct ContentLength {
    /// Match bodies longer than this. Default: unset.
    pub longer_than: Option<u64>,
    /// Match bodies shorter than this. Default: unset.
    pub shorter_than: Option<u64>,
}

impl DecideRule for ContentLength {
    fn name(&self) -> &str {
        "content_length"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let Some(len) = input.fetch.and_then(|f| f.length) else {
            return false;
        };
        self.longer_than.is_some_and(|b| len > b) || self.shorter_than.is_some_and(|b| len < b)
    }

    fn knows(&self, input: &DecideInput<'_>) -> bool {
        input.fetch.and_then(|f| f.length).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{FetchFacts, test_util::uri};

    #[test]
    fn bounds() {
        let rule = ContentLength {
            longer_than: Some(100),
            shorter_than: Some(10),
        };
        let u = uri("http://a.org/", "L");
        assert_eq!(rule.decide(&DecideInput::new(&u)), Decision::Pass);
        for (len, want) in [
            (101, Decision::Reject),
            (100, Decision::Pass),
            (10, Decision::Pass),
            (9, Decision::Reject),
        ] {
            let f = FetchFacts {
                length: Some(len),
                ..FetchFacts::default()
            };
            assert_eq!(rule.decide(&DecideInput::fetched(&u, &f)), want, "{len}");
        }
    }
}
