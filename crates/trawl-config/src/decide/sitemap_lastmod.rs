//! Answer for URIs by the date their sitemap gave them.

use super::{DecideInput, DecideRule, Decision};

/// `sitemap_lastmod`: answers its decision (default REJECT) for a URI whose sitemap `<lastmod>` is earlier than
/// `before` and/or later than `after` (both given: within them), else PASS. A URI no sitemap dated is never
/// matched. The recrawl use: `{ rule = "sitemap_lastmod", before = "<the last crawl's date>" }` skips what the
/// site says has not changed since.
#[derive(Debug, Clone, Copy)]
pub struct SitemapLastmod {
    /// Match dates before this instant (seconds since the epoch, UTC).
    pub before: Option<i64>,
    /// Match dates after this instant.
    pub after: Option<i64>,
}

impl DecideRule for SitemapLastmod {
    fn name(&self) -> &str {
        "sitemap_lastmod"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        input
            .uri
            .lastmod
            .is_some_and(|t| self.before.is_none_or(|b| t < b) && self.after.is_none_or(|a| t > a))
    }

    fn knows(&self, input: &DecideInput<'_>) -> bool {
        input.uri.lastmod.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::uri;

    #[test]
    fn matches_dated_uris_in_the_window() {
        let rule = SitemapLastmod {
            before: Some(2_000),
            after: Some(1_000),
        };
        let mut u = uri("http://a.org/x", "S");
        assert_eq!(rule.decide(&DecideInput::new(&u)), Decision::Pass);
        for (t, want) in [
            (500, Decision::Pass),
            (1_500, Decision::Reject),
            (2_500, Decision::Pass),
        ] {
            u.lastmod = Some(t);
            assert_eq!(rule.decide(&DecideInput::new(&u)), want, "{t}");
        }
    }
}
