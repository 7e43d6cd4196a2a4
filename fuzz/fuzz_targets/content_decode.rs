//! Content decoding of arbitrary bodies under each coding (gzip, deflate, br, zstd, stacked): the output stays
//! within the limits, a zstd frame's declared window included, and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::decode::{DecodeLimits, decode_content};

const CODINGS: [&str; 6] = ["gzip", "deflate", "br", "zstd", "zstd, gzip", "identity"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let limits = DecodeLimits {
        max_bytes: 1 << 20,
        max_ratio: 100,
    };
    let coding = CODINGS[usize::from(pick) % CODINGS.len()];
    if let Some(out) = decode_content(Some(coding), body, limits) {
        assert!(out.len() as u64 <= limits.max_bytes);
    }
});
