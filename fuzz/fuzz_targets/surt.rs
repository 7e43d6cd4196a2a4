//! Both SURT forms and the seed prefix rules on arbitrary text: no panic; CDX SURT unchanged by IA's own
//! canonicalization.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_url::{SurtPrefix, Url, canon::Canonicalizer, parse_lenient, surt};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = SurtPrefix::from_plain(text);
    let Ok(url) = parse_lenient(text) else { return };
    let _ = surt::heritrix(&url);
    let opts = surt::SurtOptions::default();
    let s = surt::cdx(&url, &opts);
    if let Ok(c) = Url::parse(&Canonicalizer::Ia.canonicalize(&url)) {
        assert_eq!(surt::cdx(&c, &opts), s, "{text:?}");
    }
});
