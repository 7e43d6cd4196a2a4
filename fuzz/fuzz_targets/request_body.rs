//! The query a browser page's POST body adds to its answer's index key, on arbitrary request blocks (a head
//! of any fields, a body of any bytes and length): JSON flattened, forms unquoted, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = trawl_warc::cdxj::request_body::query(data);
    // Under each type read, with the fields that make the body count.
    for ctype in ["application/json", "application/x-www-form-urlencoded", "text/plain"] {
        let mut block =
            format!("POST /x HTTP/1.1\r\nContent-Type: {ctype}\r\nSec-Fetch-Mode: cors\r\n\r\n")
                .into_bytes();
        block.extend_from_slice(data);
        let _ = trawl_warc::cdxj::request_body::query(&block);
    }
});
