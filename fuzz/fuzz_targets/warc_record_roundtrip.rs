//! Any bytes as the HTTP block of a response record (this runs the payload digest: HTTP head parsing and
//! chunked decoding) must write and read back as exactly that record.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let date = chrono::DateTime::from_timestamp(1_795_000_000, 0).expect("valid timestamp");
    let record = trawl_warc::Record::response("http://example.com/", date, None, data.to_vec());
    let bytes = record.to_bytes();
    let mut reader = trawl_warc::Reader::new(&bytes[..]);
    let back = reader
        .next()
        .expect("one record")
        .unwrap_or_else(|e| panic!("a written record does not read back: {e}"));
    assert!(reader.next().is_none(), "more than one record");
    assert_eq!(back.block, data);
    assert_eq!(back.header, record.header());
    assert_eq!(back.len, bytes.len() as u64);
});
