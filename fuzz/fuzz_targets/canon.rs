//! Every canonicalizer on arbitrary text: no panic, and each is idempotent on what it produces.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_url::{Url, canon::Canonicalizer, parse_lenient};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(url) = parse_lenient(text) else { return };
    for c in Canonicalizer::ALL {
        let once = c.canonicalize(&url);
        if let Ok(again) = Url::parse(&once) {
            assert_eq!(c.canonicalize(&again), once, "{c} on {text:?}");
        }
    }
});
