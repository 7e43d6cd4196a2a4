//! REJECT paths that repeat a segment or a group of segments, a sign of a crawler trap.

use super::{DecideInput, DecideRule, Decision};

/// The longest group of segments looked for repeating: trap loops repeat a few (`/loop/a/loop/a/`), and the
/// bound keeps the rule's work linear in a hostile path's length.
const MAX_GROUP: usize = 16;

/// `pathological_path`: answers REJECT for a URI whose path repeats one segment, or a group of up to
/// [`MAX_GROUP`] segments, more than `max_repeats` times in a row (`/a/a/a/`, `/x/y/x/y/x/y/`; empty
/// segments too: `/a////`), else PASS. Default: 2; 0 turns the rule off. Heritrix's rule finds a repeated group the same way
/// (its regular expression `.*?/(.*?/)\1{N,}.*`); a `../` loop grows such paths (xt20b F2).
#[derive(Debug, Clone, Copy)]
pub struct PathologicalPath {
    /// The most repetitions in a row of one segment or group.
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
        let path = input.uri.url.path();
        let mut segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        // What follows the last slash is a segment only when it holds something: Heritrix's groups each end
        // in a slash, so `/x///` has two empty groups, not three (review 69 R2).
        if segments.last() == Some(&"") {
            segments.pop();
        }
        repeats_a_group(&segments, self.max_repeats)
    }
}

/// Whether some group of `k` segments (1 ≤ k ≤ [`MAX_GROUP`]) comes more than `max_repeats` times in a row: a
/// run of `k * max_repeats` segments each equal to the one `k` after it.
fn repeats_a_group(segments: &[&str], max_repeats: usize) -> bool {
    if max_repeats == 0 {
        // Off, as Heritrix builds no pattern for 0 (review 69 R4: every URI was refused, robots.txt too).
        return false;
    }
    let n = segments.len();
    for k in 1..=MAX_GROUP.min(n / max_repeats.saturating_add(1)) {
        let mut run = 0;
        for i in 0..n - k {
            run = if segments[i] == segments[i + k] {
                run + 1
            } else {
                0
            };
            if run >= k * max_repeats {
                return true;
            }
        }
    }
    false
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
            ("http://a.org/x/a/a/a/", Decision::Reject),
            ("http://a.org/a/b/a/b/", Decision::Pass),
            ("http://a.org/a/b/a/b/a/b", Decision::Reject),
            ("http://a.org/loop/a/loop/a/loop/a/", Decision::Reject),
            ("http://a.org/x/y/z/x/y/z/x/y/", Decision::Pass),
            ("http://a.org/x/y/z/x/y/z/x/y/z", Decision::Reject),
            ("http://a.org/sl/x//", Decision::Pass),
            ("http://a.org/sl/x///", Decision::Pass),
            ("http://a.org/sl/x////", Decision::Reject),
            ("http://a.org/a////", Decision::Reject),
            ("http://a.org/", Decision::Pass),
            ("http://a.org/2026/11/11/11", Decision::Reject),
        ];
        for (u, want) in rows {
            assert_eq!(decide(&rule, u, "L"), want, "{u}");
        }
        let off = PathologicalPath { max_repeats: 0 };
        for u in ["http://a.org/", "http://a.org/a/a/a/a/"] {
            assert_eq!(decide(&off, u, "L"), Decision::Pass, "{u}");
        }
    }

    proptest::proptest! {
        /// Any group of segments repeated `max_repeats + 1` times in a row somewhere in a path is found.
        #[test]
        fn a_repeated_group_is_found(
            before in proptest::collection::vec("[a-c]{0,2}", 0..6),
            group in proptest::collection::vec("[a-c]{0,2}", 1..=MAX_GROUP),
            after in proptest::collection::vec("[a-c]{0,2}", 0..6),
            max_repeats in 1usize..4,
        ) {
            let mut segments: Vec<&str> = before.iter().map(String::as_str).collect();
            for _ in 0..=max_repeats {
                segments.extend(group.iter().map(String::as_str));
            }
            segments.extend(after.iter().map(String::as_str));
            proptest::prop_assert!(repeats_a_group(&segments, max_repeats));
        }
    }
}
