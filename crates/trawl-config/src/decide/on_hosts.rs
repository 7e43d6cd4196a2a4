//! Answer for URIs on given hosts (`on_hosts`) or not on them (`not_on_hosts`).

use super::{DecideInput, DecideRule, Decision};

/// `on_hosts`: answers its decision (default ACCEPT) for a URI whose host is one of `hosts` (compared without
/// case), else PASS. `not_on_hosts` (`negate`) matches URIs on any other host and answers REJECT by default.
#[derive(Debug, Clone, Default)]
pub struct OnHosts {
    /// Host names, e.g. `www.example.org`.
    pub hosts: Vec<String>,
    /// `not_on_hosts`: match URIs on other hosts. Default: false.
    pub negate: bool,
}

impl DecideRule for OnHosts {
    fn name(&self) -> &str {
        if self.negate {
            "not_on_hosts"
        } else {
            "on_hosts"
        }
    }

    fn default_decision(&self) -> Decision {
        Decision::for_negated(self.negate)
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        // `example.com.` is `example.com` (one DNS name: url-identity.md), both in the URL and in the list
        // (xt15b F2: the dotted spelling passed a host blocklist).
        let host = input.uri.url.host_str().unwrap_or_default();
        let host = host.strip_suffix('.').unwrap_or(host);
        self.hosts
            .iter()
            .any(|h| h.strip_suffix('.').unwrap_or(h).eq_ignore_ascii_case(host))
            != self.negate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::decide;

    #[test]
    fn exact_hosts() {
        let mut rule = OnHosts {
            hosts: vec!["www.A.org".into()],
            negate: false,
        };
        assert_eq!(decide(&rule, "http://www.a.org/x", "L"), Decision::Accept);
        assert_eq!(decide(&rule, "http://a.org/x", "L"), Decision::Pass);
        rule.negate = true;
        assert_eq!(decide(&rule, "http://a.org/x", "L"), Decision::Reject);
        assert_eq!(decide(&rule, "http://www.a.org/", "L"), Decision::Pass);
        // A host's trailing dot names the same host (xt15b F2).
        assert_eq!(decide(&rule, "http://www.a.org./", "L"), Decision::Pass);
        rule.negate = false;
        assert_eq!(decide(&rule, "http://www.a.org./x", "L"), Decision::Accept);
    }
}
