//! Answer for URIs whose host is in a set of addresses.

use std::net::IpAddr;

use ipnet::IpNet;

use super::{DecideInput, DecideRule, Decision};

/// `ip_address_set`: answers its decision (default REJECT) for a URI whose address lies in one of `addresses`
/// (single addresses or CIDR ranges), else PASS. The address is the fetch's (once DNS has answered) or the
/// URL's host when it is an IP literal; a URI with neither passes.
#[derive(Debug, Clone, Default)]
pub struct IpAddressSet {
    /// Address ranges; a single address is a /32 or /128.
    pub addresses: Vec<IpNet>,
}

impl DecideRule for IpAddressSet {
    fn name(&self) -> &str {
        "ip_address_set"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        let ip = input
            .fetch
            .and_then(|f| f.ip)
            .or_else(|| match input.uri.url.host() {
                Some(url::Host::Ipv4(a)) => Some(IpAddr::V4(a)),
                Some(url::Host::Ipv6(a)) => Some(IpAddr::V6(a)),
                _ => None,
            });
        // An IPv4 address written or reached as IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is that IPv4 address,
        // as the address policy reads it (xt15b F5: the mapped spelling passed an IPv4 range).
        // Both forms are tried, so a set written either way holds (xt15c F3: `::ffff:10.0.0.1` in the set).
        ip.is_some_and(|ip| {
            let other = match ip {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4),
                IpAddr::V4(v4) => Some(IpAddr::V6(v4.to_ipv6_mapped())),
            };
            [Some(ip), other]
                .into_iter()
                .flatten()
                .any(|ip| self.addresses.iter().any(|n| n.contains(&ip)))
        })
    }

    fn knows(&self, input: &DecideInput<'_>) -> bool {
        input.fetch.and_then(|f| f.ip).is_some()
            || matches!(
                input.uri.url.host(),
                Some(url::Host::Ipv4(_) | url::Host::Ipv6(_))
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{FetchFacts, test_util::uri};

    #[test]
    fn literal_or_resolved() {
        let rule = IpAddressSet {
            addresses: vec!["10.0.0.0/8".parse().unwrap(), "::1/128".parse().unwrap()],
        };
        let d = |u: &str, ip: Option<&str>| {
            let c = uri(u, "L");
            let facts = FetchFacts {
                ip: ip.map(|i| i.parse().unwrap()),
                ..FetchFacts::default()
            };
            rule.decide(&DecideInput::fetched(&c, &facts))
        };
        assert_eq!(d("http://10.1.2.3/", None), Decision::Reject);
        assert_eq!(d("http://[::1]/", None), Decision::Reject);
        assert_eq!(d("http://a.org/", None), Decision::Pass);
        assert_eq!(d("http://a.org/", Some("10.9.9.9")), Decision::Reject);
        assert_eq!(d("http://11.0.0.1/", None), Decision::Pass);
        // IPv4-mapped IPv6, written or resolved, is the IPv4 address (xt15b F5).
        assert_eq!(d("http://[::ffff:10.0.0.2]/", None), Decision::Reject);
        assert_eq!(
            d("http://a.org/", Some("::ffff:10.9.9.9")),
            Decision::Reject
        );
        // A set written in the mapped form holds for both spellings too (xt15c F3).
        let mapped = IpAddressSet {
            addresses: vec!["::ffff:127.0.0.0/104".parse().unwrap()],
        };
        for u in ["http://127.0.0.5/", "http://[::ffff:127.0.0.5]/"] {
            let c = uri(u, "L");
            assert_eq!(
                mapped.decide(&DecideInput::new(&c)),
                Decision::Reject,
                "{u}"
            );
        }
    }
}
