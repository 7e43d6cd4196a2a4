//! `.warc.zst` files that begin with a dictionary frame, on arbitrary bytes: the dictionary frame parser
//! alone, and the WARC reader over a dictionary frame (from the input, or a fixed good one) followed by the
//! input. Neither may panic; the reader ends after at most one error.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The dictionary frame header for a payload of `len` bytes.
fn frame_head(len: usize) -> [u8; 8] {
    let mut head = [0x5D, 0x2A, 0x4D, 0x18, 0, 0, 0, 0];
    head[4..].copy_from_slice(&(len as u32).to_le_bytes());
    head
}

fuzz_target!(|data: &[u8]| {
    let _ = trawl_warc::parse_dictionary_frame(&[&frame_head(data.len())[..], data].concat(), 1 << 20);
    let _ = trawl_warc::parse_dictionary_frame(data, 1 << 20);
    // The first byte splits the input into a dictionary frame's payload and what follows it.
    let (split, rest) = data.split_first().map_or((0, data), |(s, r)| (*s as usize, r));
    let split = split.min(rest.len());
    let (payload, after) = rest.split_at(split);
    let file = [&frame_head(payload.len())[..], payload, after].concat();
    let mut errors = 0;
    for item in trawl_warc::Reader::new(&file[..]).with_max_record_bytes(1 << 20) {
        if let Err(e) = item {
            errors += 1;
            assert!(errors == 1, "the reader goes on after an error: {e}");
            let _ = e.to_string();
        }
    }
});
