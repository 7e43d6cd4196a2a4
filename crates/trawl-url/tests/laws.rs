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
    r"((www[0-9]?\.)*[a-zA-Z0-9-]{1,6}(\.[a-zA-Z]{1,4}){0,2}|[0-9]{1,3}(\.[0-9]{1,3}){3}|(www[0-9]?\.){1,2})",
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

/// Hosts of dots only, of `www.` only, or `www.` and a number (found by the `norm` and `surt` fuzz targets):
/// the normalized key stays a URL with a host, and the CDX SURT does not change under IA's canonicalization.
#[test]
fn hosts_of_dots_or_www_only() {
    let t = TrackingParams::default();
    let opts = SurtOptions::default();
    for s in [
        "4ehxw@WWW./DtSpkDDDDDDvExample.COM:8?-k0httpps/",
        "http://User:pw@./cW.Exampe/cc?b=2&",
        "http://www./a",
        "http://www.www./a",
        "http://./a",
        "http://../a?b",
        "httw@WWW.9%2E.?2%elc%b2",
        "tp://Mser:pw@WWW.Exaxample(C%2Ele(eeeeeeeeeeeeeC%2fttpthx.",
        "hthttp://U%\u{1}....%2E............/).............http:htUts",
    ] {
        let u = trawl_url::parse_lenient(s).unwrap();
        let once = normalize(&u, &t);
        let back = parse(once.as_str()).unwrap();
        assert!(
            !back.host_str().unwrap_or_default().is_empty(),
            "{s}: {once:?}"
        );
        assert_eq!(normalize(&back, &t), once, "{s}");
        for c in Canonicalizer::ALL {
            let once = c.canonicalize(&u);
            if let Some(again) = parse(&once) {
                assert_eq!(c.canonicalize(&again), once, "{c} on {s}");
            }
        }
        let surt = cdx(&u, &opts);
        // IA's canonical form unescapes the host: `www.9%2e.` gives `www.9`, which does not parse.
        if let Some(c) = parse(&Canonicalizer::Ia.canonicalize(&u)) {
            assert_eq!(cdx(&c, &opts), surt, "{s}");
        }
    }
    // `www.` stays before a number: stripped, `9` would read back as the IPv4 address 0.0.0.9.
    let u = trawl_url::parse_lenient("http://www.9%2e./a").unwrap();
    assert_eq!(cdx(&u, &opts), "9,www)/a");
}
