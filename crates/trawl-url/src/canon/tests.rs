//! Laws every canonicalizer keeps.

use super::Canonicalizer;

proptest::proptest! {
    #[test]
    fn idempotent(s in crate::testgen::URL) {
        let Ok(url) = url::Url::parse(&s) else { return Ok(()) };
        for c in Canonicalizer::ALL {
            let once = c.canonicalize(&url);
            let Ok(again) = url::Url::parse(&once) else {
                proptest::prop_assert!(false, "{c}: {once:?} does not parse");
                unreachable!()
            };
            proptest::prop_assert_eq!(c.canonicalize(&again), once, "{} on {}", c, s);
        }
    }
}

#[test]
fn names_round_trip() {
    for c in Canonicalizer::ALL {
        assert_eq!(c.name().parse::<Canonicalizer>().unwrap(), c);
    }
    assert!("nope".parse::<Canonicalizer>().is_err());
}

/// Hosts that trimming or `www` stripping would empty, runs of dots, and host-less URLs whose path starts with
/// `//` (found by the `canon` fuzz target): each rule set gives a URL that reads back with a host where there
/// was one and none where there was none, and canonicalizing it again changes nothing.
#[test]
fn hosts_of_dots_or_www_only_stay_hosts() {
    for s in [
        "http://Uer:pw@./c?b/../c?\u{1}fple",
        "http://./a",
        "http://../a",
        "http://www./a",
        "http://www.www./a",
        "http://www1./a?x",
        "https://u:p@.../",
        "http://hLl......F......................./",
        "thttp:////cchA0A/AACAAAA1",
        "x:////a//b",
        "http://4..//Userxh:0t.8w8",
    ] {
        let url = url::Url::parse(s).unwrap();
        for c in Canonicalizer::ALL {
            let once = c.canonicalize(&url);
            let again =
                url::Url::parse(&once).unwrap_or_else(|e| panic!("{c} on {s}: {once:?}: {e}"));
            assert_eq!(
                again.host_str().is_some(),
                url.host_str().is_some(),
                "{c} on {s}: {once:?}"
            );
            assert_ne!(again.host_str(), Some(""), "{c} on {s}: {once:?}");
            assert_eq!(c.canonicalize(&again), once, "{c} on {s}");
        }
    }
}
