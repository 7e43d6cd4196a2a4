//! The identity laws, under proptest.

use proptest::prelude::*;
use trawl_url::{
    CanonicalHints, Identity, Url,
    canon::Canonicalizer,
    norm::{TrackingParams, normalize},
    surt::{SurtOptions, cdx},
};

/// URL-ish strings: `www` prefixes, IPs, ports, userinfo, dot segments, escapes, session ids, tracking
/// parameters, mixed case, fragments.
const URL: &str = concat!(
    r"(https?|HTTP)://((u|a:b)@)?",
    r"((www[0-9]?\.)*[a-zA-Z0-9-]{1,6}(\.[a-zA-Z]{1,4}){0,2}|[0-9]{1,3}(\.[0-9]{1,3}){3})",
    r"(:[0-9]{1,5})?",
    r"(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}|%|\.\.|\.|/|\?){0,6}){0,4}",
    r"(\?([a-zA-Z0-9=&%;/?_.-]|%[0-9a-fA-F]{2}|jsessionid=[0-9a-f]{32}|utm_source=x|&&){0,8})?",
    r"(#[a-z0-9]{0,4})?"
);

fn parse(s: &str) -> Option<Url> {
    Url::parse(s).ok()
}

proptest! {
    /// The CDX SURT does not change when the URL is first made canonical (the generic cleanup) or passed
    /// through IA's own or the WHATWG canonicalizer.
    #[test]
    fn surt_of_canonical_is_surt(s in URL) {
        let Some(u) = parse(&s) else { return Ok(()) };
        let opts = SurtOptions::default();
        let want = cdx(&u, &opts);
        let (canonical, _) = Identity::default().canonical(&u, CanonicalHints::none());
        prop_assert_eq!(&cdx(&canonical, &opts), &want, "canonical {}", canonical);
        for c in [Canonicalizer::Whatwg, Canonicalizer::Semantic, Canonicalizer::Google, Canonicalizer::Ia] {
            let cu = parse(&c.canonicalize(&u)).unwrap();
            prop_assert_eq!(&cdx(&cu, &opts), &want, "{} gives {}", c, cu);
        }
    }

    /// The normalized key of a normalized key is itself.
    #[test]
    fn norm_is_idempotent(s in URL) {
        let Some(u) = parse(&s) else { return Ok(()) };
        let t = TrackingParams::default();
        let once = normalize(&u, &t);
        let again = normalize(&parse(once.as_str()).unwrap(), &t);
        prop_assert_eq!(again, once);
    }

    /// Sorting by SURT keeps each host's URLs together: no other host's URL sorts between two of them.
    #[test]
    fn surt_order_groups_hosts(urls in proptest::collection::vec(URL, 2..24)) {
        let opts = SurtOptions::default();
        let mut keyed: Vec<(String, String)> = urls
            .iter()
            .filter_map(|s| parse(s))
            .map(|u| {
                let s = cdx(&u, &opts);
                let host = s.split(')').next().unwrap_or("").to_string();
                (s, host)
            })
            .collect();
        keyed.sort();
        let mut seen = std::collections::HashSet::new();
        let mut prev: Option<&str> = None;
        for (_, host) in &keyed {
            if prev != Some(host.as_str()) {
                prop_assert!(seen.insert(host.clone()), "host {} split by sorting: {:?}", host, keyed);
                prev = Some(host);
            }
        }
    }
}
