//! REJECT paths that repeat a segment, a sign of a crawler trap.

use super::{DecideInput, DecideRule, Decision};

/// `pathological_path`: answers REJECT for a URI whose path has one segment repeated more than `max_repeats`
/// times in a row (`/a/a/a/`), else PASS. Default: 2.
#[derive(Debug, Clone, Copy)]
pub struct PathologicalPath {
    /// The most consecutive repetitions of one segment.
    pub max_repeats: usize,
}

impl DecideRule for PathologicalPath {
    fn name(&self) -> &str {
        "pathological_path"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let mut run = 0;
        let mut last = None;
        for seg in input.uri.url.path().split('/').filter(|s| !s.is_empty()) {
            run = if last == Some(seg) { run + 1 } else { 1 };
            last = Some(seg);
            if run > self.max_repeats {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn rejects_repeats() {
        let rule = PathologicalPath { max_repeats: 2 };
        let rows = [
            ("http://a.org/a/a/b", Decision::Pass),
            ("http://a.org/a/a/a", Decision::Reject),
            ("http://a.org/a/b/a/b/a/b", Decision::Pass),
        ];
        for (u, want) in rows {
            assert_eq!(decide(&rule, u, "L"), want, "{u}");
        }
    }
}
