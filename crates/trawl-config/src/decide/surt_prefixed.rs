//! ACCEPT URIs under SURT prefixes (and `not_surt_prefixed`: those outside them).

use trawl_url::SurtPrefix;

use super::{DecideInput, DecideRule, Decision};

/// `surt_prefixed`: answers ACCEPT for a URI whose SURT starts with one of the prefixes, else PASS. With
/// `also_check_via`, a URI whose via lies under a prefix matches too (one hop off-site). `not_surt_prefixed`
/// (`negate`) matches the URIs outside every prefix instead and answers REJECT by default.
///
/// The prefixes come from the seeds (`seeds_as_prefixes`, default true), a list and files of prefixes.
#[derive(Debug, Clone, Default)]
pub struct SurtPrefixed {
    /// The prefixes, in Heritrix form (`http://(org,example,)/`), http and https folded together.
    pub prefixes: Vec<SurtPrefix>,
    /// Whether a URI found on a page under a prefix matches too. Default: false.
    pub also_check_via: bool,
    /// `not_surt_prefixed`: match URIs outside every prefix. Default: false.
    pub negate: bool,
}

impl SurtPrefixed {
    /// ACCEPT URIs under `prefixes`.
    pub fn new(prefixes: Vec<SurtPrefix>) -> SurtPrefixed {
        SurtPrefixed {
            prefixes,
            ..SurtPrefixed::default()
        }
    }
}

impl DecideRule for SurtPrefixed {
    fn name(&self) -> &str {
        if self.negate {
            "not_surt_prefixed"
        } else {
            "surt_prefixed"
        }
    }

    fn default_decision(&self) -> Decision {
        Decision::for_negated(self.negate)
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let under = |u| self.prefixes.iter().any(|p| p.contains(u));
        let hit = under(&input.uri.url)
            || (self.also_check_via && input.uri.via.as_ref().is_some_and(under));
        hit != self.negate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn accepts_under_prefix() {
        let seed = url::Url::parse("http://example.com/docs/").unwrap();
        let mut rule = SurtPrefixed::new(vec![SurtPrefix::from_seed(&seed)]);
        let rows = [
            ("http://example.com/docs/a", Decision::Accept),
            ("https://example.com/docs/", Decision::Accept),
            ("http://example.com/blog/", Decision::Pass),
            ("http://other.com/docs/", Decision::Pass),
        ];
        for (u, want) in rows {
            assert_eq!(decide(&rule, u, "L"), want, "{u}");
        }
        rule.negate = true;
        assert_eq!(decide(&rule, "http://other.com/", "L"), Decision::Reject);
        assert_eq!(
            decide(&rule, "http://example.com/docs/", "L"),
            Decision::Pass
        );
    }

    #[test]
    fn also_check_via() {
        let via = url::Url::parse("http://via.example/").unwrap();
        let mut rule = SurtPrefixed::new(vec![SurtPrefix::from_seed(&via)]);
        assert_eq!(decide(&rule, "http://b.org/", "L"), Decision::Pass);
        rule.also_check_via = true;
        assert_eq!(decide(&rule, "http://b.org/", "L"), Decision::Accept);
    }
}
