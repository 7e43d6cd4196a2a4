//! CSS link extraction on arbitrary bytes: no panic, no fragments, at most `max_outlinks` links.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::{Limits, extract};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_outlinks: 50,
        ..Limits::default()
    };
    let url = url::Url::parse("http://example.com/css/site.css").expect("valid URL");
    let found = extract("text/css", data, None, &url, &limits);
    assert!(found.outlinks.len() <= limits.max_outlinks);
    for link in &found.outlinks {
        assert!(link.url.fragment().is_none(), "fragment kept: {}", link.url);
    }
});
