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
