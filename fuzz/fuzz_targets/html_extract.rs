//! HTML link extraction on arbitrary bytes, under a few declared charsets: no panic, and the documented
//! promises hold (no fragments, at most `max_outlinks` links); and the page's title, as WACZ page lists read
//! it (no panic, white space collapsed).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::{Limits, extract};

const CONTENT_TYPES: [Option<&str>; 4] = [
    None,
    Some("text/html; charset=windows-1251"),
    Some("text/html; charset=utf-16le"),
    Some("text/html; charset=shift_jis"),
];

fuzz_target!(|input: &[u8]| {
    let Some((&selector, data)) = input.split_first() else {
        return;
    };
    let content_type = CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()];
    let limits = Limits {
        max_outlinks: 50,
        ..Limits::default()
    };
    let url = url::Url::parse("http://example.com/dir/page.html?q=1").expect("valid URL");
    let found = extract("text/html", data, content_type, &url, &limits);
    assert!(found.outlinks.len() <= limits.max_outlinks);
    for link in &found.outlinks {
        assert!(link.url.fragment().is_none(), "fragment kept: {}", link.url);
    }
    if let Some(title) = trawl_extract::title::html_title(data, content_type, &url) {
        assert!(!title.is_empty() && title.split_whitespace().collect::<Vec<_>>().join(" ") == title);
    }
});
