//! robots.txt parsing and matching on arbitrary bytes (trawl's RFC 9309 parser): no panic, bounded work, and
//! /robots.txt itself stays allowed (RFC 9309 2.5). The input's first byte picks how the rest is split into a
//! body and a path, so the path (and URLs given as text) are fuzzed too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_fetch::robots::{Robots, RobotsTxt, path_of};

const URLS: [&str; 5] = [
    "http://example.com/",
    "http://example.com/private/x?y=1",
    "http://example.com/a%2Fb/%E2%82%AC.pdf",
    "http://example.com/index.html$",
    "http://example.com/*",
];

fuzz_target!(|data: &[u8]| {
    let split = data.first().map_or(0, |&b| usize::from(b)).min(data.len());
    let (path, body) = data.split_at(split);
    let robots = Robots::from_response(200, body, "trawl");
    for u in URLS {
        let _ = robots.allowed(&url::Url::parse(u).expect("valid URL"));
    }
    let own = url::Url::parse("http://example.com/robots.txt").expect("valid URL");
    assert!(robots.allowed(&own), "robots.txt disallows itself");
    let _ = robots.crawl_delay();
    let _ = robots.sitemaps();
    let txt = RobotsTxt::parse(body);
    let text = String::from_utf8_lossy(path);
    let path = path_of(&text);
    assert!(path.starts_with('/'), "{path:?}");
    let _ = txt.allowed("trawl", &path);
});
