//! Speculative link guessing on arbitrary bytes: at most the per-document cap, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::speculative::{MAX_PER_DOCUMENT, speculative_links};

fuzz_target!(|data: &[u8]| {
    let base = url::Url::parse("http://a.org/app.js").unwrap();
    assert!(speculative_links(data, &base).0.len() <= MAX_PER_DOCUMENT);
});
