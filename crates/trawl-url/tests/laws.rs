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

/// URL-ish strings for the canonical URL's cleanup: escapes of every kind (reserved and unreserved characters,
/// lower-case hex, `%25`, a stray `%`), `+`, repeated and reordered keys, stray host dots, userinfo, fragments.
const ESCAPED: &str = concat!(
    r"https?://((u|a:b)@)?\.?([a-z0-9]{1,4}\.{1,2}){1,2}[a-z]{2,3}\.?(:[0-9]{1,4})?",
    r"(/([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2}|%2[fFbBeE]|%25|%|/){0,8}){0,3}",
    r"(\?([a-z0-9=&+;/?_.~-]|%[0-9a-fA-F]{2}|%[23][bBdDfF6]|%|a=1|a=2){0,10})?",
    r"(#[a-z0-9%]{0,4})?"
);

/// One URL component as a server reads it: each valid escape as its byte (`Some`, whatever the case of its
/// hex), except that an escape of an unreserved character is the character itself (RFC 3986 6.2.2.2); every
/// other byte, a stray `%` included, as itself (`None`, byte).
fn server_view(s: &str) -> Vec<(bool, u8)> {
    let b = s.as_bytes();
    let hex = |i: usize| b.get(i).and_then(|&c| char::from(c).to_digit(16));
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (hex(i + 1), hex(i + 2))
        {
            let c = u8::try_from(h * 16 + l).unwrap();
            let unreserved = c.is_ascii_alphanumeric() || b"-._~".contains(&c);
            out.push((!unreserved, c));
            i += 3;
        } else {
            out.push((false, b[i]));
            i += 1;
        }
    }
    out
}

/// A component percent-decoded once, as most servers do before they look a path up.
fn decode_once(s: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(s).collect()
}

proptest! {
    /// The canonical URL's fallback cleanup is idempotent, and a server receives the same request from the
    /// cleaned URL as from the raw one: the same reserved escapes and reserved characters in the same places
    /// (`%2B` is not `+`, `%2F` is not `/`), the same bytes once decoded, the arguments in the same order.
    #[test]
    fn cleanup_is_idempotent_and_keeps_what_the_server_reads(s in ESCAPED) {
        let Some(u) = parse(&s) else { return Ok(()) };
        let id = Identity::default();
        let clean = |u: &Url| id.canonical(u, CanonicalHints::none()).0;
        let once = clean(&u);
        prop_assert_eq!(&clean(&once), &once);
        prop_assert_eq!(&clean(&parse(once.as_str()).unwrap()), &once);
        prop_assert_eq!(once.fragment(), None);
        prop_assert_eq!((once.scheme(), once.port()), (u.scheme(), u.port()));
        prop_assert_eq!(server_view(once.path()), server_view(u.path()), "path of {}", once);
        prop_assert_eq!(decode_once(once.path()), decode_once(u.path()), "path of {}", once);
        let (q0, q1) = (u.query().unwrap_or("-"), once.query().unwrap_or("-"));
        prop_assert_eq!(server_view(q1), server_view(q0), "query of {}", once);
        prop_assert_eq!(decode_once(q1), decode_once(q0), "query of {}", once);
        // The host loses empty labels only.
        let labels = |h: Option<&str>| h.unwrap_or("").split('.').filter(|l| !l.is_empty()).map(str::to_owned).collect::<Vec<_>>();
        prop_assert_eq!(labels(once.host_str()), labels(u.host_str()));
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
