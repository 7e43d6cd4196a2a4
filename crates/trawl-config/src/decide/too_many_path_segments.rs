//! REJECT very deep paths.

use super::{DecideInput, DecideRule, Decision};

/// `too_many_path_segments`: answers REJECT for a URI whose path has more than `max_segments` segments, else
/// PASS. Default: 20. Segments are counted as Heritrix counts them, by the path's slashes: `/a/b/` has 3, and
/// an empty one counts (a page linking to its own path plus `/` grows `//…` without end: xt20b F1).
#[derive(Debug, Clone, Copy)]
pub struct TooManyPathSegments {
    /// The most path segments.
    pub max_segments: usize,
}

impl DecideRule for TooManyPathSegments {
    fn name(&self) -> &str {
        "too_many_path_segments"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let path = input.uri.url.path();
        path.bytes().filter(|&b| b == b'/').count() > self.max_segments
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn rejects_deep_paths() {
        let rule = TooManyPathSegments { max_segments: 2 };
        assert_eq!(decide(&rule, "http://a.org/a/b", "L"), Decision::Pass);
        assert_eq!(decide(&rule, "http://a.org/a/b/", "L"), Decision::Reject);
        assert_eq!(decide(&rule, "http://a.org/a/b/c", "L"), Decision::Reject);
        assert_eq!(decide(&rule, "http://a.org/a//", "L"), Decision::Reject);
    }
}
