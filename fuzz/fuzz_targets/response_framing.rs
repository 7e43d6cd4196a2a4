//! Where a recorded HTTP/1.1 response's heads and message end, on arbitrary bytes: never past the recording's
//! end, never a panic, the final head after the interim ones.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_fetch::message;

fuzz_target!(|data: &[u8]| {
    let Some((start, end)) = message::heads(data) else {
        return;
    };
    assert!(start < end && end <= data.len());
    let mut fields = http::HeaderMap::new();
    fields.insert(http::header::TRANSFER_ENCODING, http::HeaderValue::from_static("chunked"));
    if let Some(framed) = message::end(data, 200, &fields) {
        assert!(framed >= end && framed <= data.len());
    }
    let length = data.len().saturating_sub(end).to_string();
    let mut sized = http::HeaderMap::new();
    sized.insert(http::header::CONTENT_LENGTH, length.parse().unwrap());
    assert_eq!(message::end(data, 200, &sized), Some(data.len()));
});
