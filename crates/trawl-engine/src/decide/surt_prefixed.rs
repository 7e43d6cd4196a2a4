//! ACCEPT URIs under the seeds' SURT prefixes.

use trawl_url::SurtPrefix;

use super::{DecideRule, Decision};
use crate::CrawlUri;

/// Answers ACCEPT for a URI whose SURT starts with one of the prefixes, else PASS.
#[derive(Debug, Clone, Default)]
pub struct SurtPrefixed {
    /// The prefixes, in Heritrix form (`http://(org,example,)/`), http and https folded together.
    pub prefixes: Vec<SurtPrefix>,
}

impl DecideRule for SurtPrefixed {
    fn name(&self) -> &'static str {
        "SurtPrefixed"
    }

    fn decide(&self, uri: &CrawlUri) -> Decision {
        if self.prefixes.iter().any(|p| p.contains(&uri.url)) {
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
    fn accepts_under_prefix() {
        let seed = url::Url::parse("http://example.com/docs/").unwrap();
        let rule = SurtPrefixed {
            prefixes: vec![SurtPrefix::from_seed(&seed)],
        };
        let rows = [
            ("http://example.com/docs/a", Decision::Accept),
            ("https://example.com/docs/", Decision::Accept),
            ("http://example.com/blog/", Decision::Pass),
            ("http://other.com/docs/", Decision::Pass),
        ];
        for (u, want) in rows {
            assert_eq!(rule.decide(&uri(u, "L")), want, "{u}");
        }
    }
}
