//! robots.txt parsing and matching on arbitrary bytes: no panic, and /robots.txt itself stays allowed
//! (RFC 9309 2.5).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_engine::robots::Robots;

const URLS: [&str; 5] = [
    "http://example.com/",
    "http://example.com/private/x?y=1",
    "http://example.com/a%2Fb/%E2%82%AC.pdf",
    "http://example.com/index.html$",
    "http://example.com/*",
];

fuzz_target!(|data: &[u8]| {
    let robots = Robots::from_response(200, data, "trawl");
    for u in URLS {
        let _ = robots.allowed(&url::Url::parse(u).expect("valid URL"));
    }
    let own = url::Url::parse("http://example.com/robots.txt").expect("valid URL");
    assert!(robots.allowed(&own), "robots.txt disallows itself");
    let _ = robots.crawl_delay();
    let _ = robots.sitemaps();
});
