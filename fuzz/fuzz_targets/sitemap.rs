//! Sitemap reading on arbitrary bytes: links within the protocol's limits, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::sitemap::{MAX_URLS, sitemap_links};

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("http://a.org/sitemap.xml").unwrap();
    assert!(sitemap_links(data, None, &base).outlinks.len() <= MAX_URLS);
});
