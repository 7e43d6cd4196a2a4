//! ACCEPT embeds and redirects of in-scope pages, a few hops deep.

use super::{DecideInput, DecideRule, Decision};

/// `transclusion`: answers ACCEPT for a URI whose hop path ends in at least one and at most `max_trans_hops`
/// non-link hops (`E`, `R`, `X`; `P` is left to [`PrerequisiteAccept`](super::PrerequisiteAccept)), of which
/// at most `max_speculative_hops` are speculative (`X`), else PASS. Defaults: 2 and 1.
///
/// The parent was in scope when its outlinks were made, so what it needs to render (and where it moved to)
/// is kept with it even on another host.
#[derive(Debug, Clone, Copy)]
pub struct Transclusion {
    /// The most trailing non-link hops.
    pub max_trans_hops: usize,
    /// The most speculative hops among them.
    pub max_speculative_hops: usize,
}

impl DecideRule for Transclusion {
    fn name(&self) -> &str {
        "transclusion"
    }

    fn default_decision(&self) -> Decision {
        Decision::Accept
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let trailing = input
            .uri
            .hop_path
            .chars()
            .rev()
            .take_while(|&c| matches!(c, 'E' | 'R' | 'X'));
        let (mut all, mut speculative) = (0, 0);
        for c in trailing {
            all += 1;
            speculative += usize::from(c == 'X');
        }
        all >= 1 && all <= self.max_trans_hops && speculative <= self.max_speculative_hops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn counts_trailing_transclusions() {
        let rule = Transclusion {
            max_trans_hops: 2,
            max_speculative_hops: 1,
        };
        let rows = [
            ("L", Decision::Pass),
            ("LE", Decision::Accept),
            ("LRE", Decision::Accept),
            ("LX", Decision::Accept),
            ("LXX", Decision::Pass),
            ("LEEE", Decision::Pass),
            ("LP", Decision::Pass),
            ("", Decision::Pass),
        ];
        for (path, want) in rows {
            assert_eq!(decide(&rule, "http://a.org/", path), want, "{path}");
        }
    }
}
