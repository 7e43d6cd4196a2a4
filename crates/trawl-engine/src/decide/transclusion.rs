//! ACCEPT embeds and redirects of in-scope pages, a few hops deep.

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers ACCEPT for a URI whose hop path ends in at least one and at most `max_trans_hops` non-link hops
/// (`E`, `R`, `X`; `P` is left to [`PrerequisiteAccept`](super::PrerequisiteAccept)), else PASS.
/// Default: 2 hops.
///
/// The parent was in scope when its outlinks were made, so what it needs to render (and where it moved to)
/// is kept with it even on another host.
#[derive(Debug, Clone, Copy)]
pub struct Transclusion {
    /// The most trailing non-link hops.
    pub max_trans_hops: usize,
}

impl DecideRule for Transclusion {
    fn name(&self) -> &'static str {
        "Transclusion"
    }

    fn decide(&self, uri: &CrawlUri) -> Decision {
        let trailing = uri
            .hop_path
            .chars()
            .rev()
            .take_while(|&c| matches!(c, 'E' | 'R' | 'X'))
            .count();
        if trailing >= 1 && trailing <= self.max_trans_hops {
            Decision::Accept
        } else {
            Decision::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::uri;

    #[test]
    fn counts_trailing_transclusions() {
        let rule = Transclusion { max_trans_hops: 2 };
        let rows = [
            ("L", Decision::Pass),
            ("LE", Decision::Accept),
            ("LRE", Decision::Accept),
            ("LEEE", Decision::Pass),
            ("LP", Decision::Pass),
            ("", Decision::Pass),
        ];
        for (path, want) in rows {
            assert_eq!(rule.decide(&uri("http://a.org/", path)), want, "{path}");
        }
    }
}
