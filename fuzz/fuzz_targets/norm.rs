//! The normalized key and version template on arbitrary text: no panic, the key reads back as a URL, and
//! norm(norm(u)) = norm(u).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_url::{
    Url,
    norm::{TrackingParams, normalize},
    parse_lenient,
    version::version_template,
};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(url) = parse_lenient(text) else { return };
    let _ = version_template(&url);
    let t = TrackingParams::default();
    let once = normalize(&url, &t);
    let again = Url::parse(once.as_str())
        .unwrap_or_else(|e| panic!("{text:?} gives {once:?}, which does not parse: {e}"));
    assert_eq!(normalize(&again, &t), once, "{text:?}");
});
