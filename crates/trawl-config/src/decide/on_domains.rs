//! Answer for URIs on given domains or their subdomains (`on_domains`), or elsewhere (`not_on_domains`).

use super::{DecideInput, DecideRule, Decision};

/// `on_domains`: answers its decision (default ACCEPT) for a URI whose host is one of `domains` or below one
/// (`example.org` covers `www.example.org`), else PASS. `not_on_domains` (`negate`) matches URIs elsewhere
/// and answers REJECT by default.
#[derive(Debug, Clone, Default)]
pub struct OnDomains {
    /// Domains, e.g. `example.org`.
    pub domains: Vec<String>,
    /// `not_on_domains`: match URIs outside the domains. Default: false.
    pub negate: bool,
}

impl DecideRule for OnDomains {
    fn name(&self) -> &str {
        if self.negate {
            "not_on_domains"
        } else {
            "on_domains"
        }
    }

    fn default_decision(&self) -> Decision {
        Decision::for_negated(self.negate)
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let host = input
            .uri
            .url
            .host_str()
            .unwrap_or_default()
            .to_ascii_lowercase();
        // `example.com.` is `example.com`, in the URL and in the list (xt15b F2).
        let host = host.strip_suffix('.').unwrap_or(&host);
        let on = self.domains.iter().any(|d| {
            let d = d
                .trim_start_matches('.')
                .trim_end_matches('.')
                .to_ascii_lowercase();
            host == d
                || host
                    .strip_suffix(&d)
                    .is_some_and(|rest| rest.ends_with('.'))
        });
        on != self.negate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn domain_and_below() {
        let mut rule = OnDomains {
            domains: vec!["example.org".into()],
            negate: false,
        };
        let rows = [
            ("http://example.org/", Decision::Accept),
            ("http://www.Example.org/", Decision::Accept),
            ("http://notexample.org/", Decision::Pass),
            ("http://example.org.evil.com/", Decision::Pass),
            // A host's trailing dot names the same host (xt15b F2).
            ("http://a.example.org./", Decision::Accept),
            ("http://example.org./", Decision::Accept),
        ];
        for (u, want) in rows {
            assert_eq!(decide(&rule, u, "L"), want, "{u}");
        }
        rule.negate = true;
        assert_eq!(decide(&rule, "http://b.org/", "L"), Decision::Reject);
    }
}
