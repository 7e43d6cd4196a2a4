//! Feed reading on arbitrary bytes: at most the limit of links, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::feed::feed_links;

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("http://a.org/feed.xml").unwrap();
    assert!(feed_links(data, None, &base, 100).0.len() <= 100);
});
