//! Every canonicalizer on arbitrary text: no panic, and each is idempotent on what it produces. What `google`
//! and `ia` produce need not read back as a URL: like IA's, they unescape the host, and `www.9%2e.` gives
//! `www.9`, which the WHATWG parser refuses (a host ending in a number must be an IPv4 address).
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
