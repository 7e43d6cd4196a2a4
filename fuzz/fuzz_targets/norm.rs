//! The normalized key and version template on arbitrary text: no panic, and norm(norm(u)) = norm(u).
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
    if let Ok(again) = Url::parse(once.as_str()) {
        assert_eq!(normalize(&again, &t), once, "{text:?}");
    }
});
