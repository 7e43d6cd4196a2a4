//! Answer for URIs on another registered domain than the page that linked to them.

use url::Url;

use super::{DecideInput, DecideRule, Decision};

/// `hop_crosses_registered_domain`: answers its decision (default REJECT) for a URI whose registered domain
/// (one label below a public suffix, from the public suffix list: `example.co.uk` for `www.example.co.uk`)
/// differs from its via's, else PASS. Seeds never match. Hosts that are IP addresses are their own domain.
#[derive(Debug, Clone, Copy)]
pub struct HopCrossesRegisteredDomain;

/// The registered domain of `url`'s host, lowercased; the host itself when it has none.
fn registered_domain(url: &Url) -> Option<String> {
    let host = url.host_str()?.to_ascii_lowercase();
    if matches!(url.host(), Some(url::Host::Domain(_)))
        && let Some(d) = psl::domain_str(&host)
    {
        return Some(d.to_string());
    }
    Some(host)
}

impl DecideRule for HopCrossesRegisteredDomain {
    fn name(&self) -> &str {
        "hop_crosses_registered_domain"
    }

    fn default_decision(&self) -> Decision {
        Decision::Reject
    }

    fn matches(&self, input: &DecideInput<'_>) -> bool {
        match &input.uri.via {
            Some(via) => registered_domain(via) != registered_domain(&input.uri.url),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::test_util::uri;

    #[test]
    fn compares_registered_domains() {
        let rows = [
            (
                "http://www.example.co.uk/",
                "http://img.example.co.uk/a",
                Decision::Pass,
            ),
            (
                "http://www.example.co.uk/",
                "http://other.co.uk/a",
                Decision::Reject,
            ),
            (
                "http://a.github.io/",
                "http://b.github.io/",
                Decision::Reject,
            ),
            ("http://www.a.org/", "http://cdn.a.org/", Decision::Pass),
            ("http://10.0.0.1/", "http://10.0.0.1/x", Decision::Pass),
        ];
        for (via, u, want) in rows {
            let mut c = uri(u, "L");
            c.via = Some(Url::parse(via).unwrap());
            let got = HopCrossesRegisteredDomain.decide(&DecideInput::new(&c));
            assert_eq!(got, want, "{via} -> {u}");
        }
        let seed = uri("http://a.org/", "");
        assert_eq!(
            HopCrossesRegisteredDomain.decide(&DecideInput::new(&seed)),
            Decision::Pass
        );
    }
}
