//! The index line of a record on arbitrary bytes: the HTTP head read strictly, then leniently (folded lines,
//! lines without a colon, odd status lines), and the key of any target URI, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first line is the target URI, the rest the block of a response record.
    let (uri, block) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (String::from_utf8_lossy(&data[..i]).into_owned(), &data[i + 1..]),
        None => (String::new(), data),
    };
    let _ = trawl_url::surt::index_key(&uri);
    let header = vec![
        ("WARC-Type".to_owned(), "response".to_owned()),
        ("WARC-Target-URI".to_owned(), uri),
        ("WARC-Date".to_owned(), "2026-11-29T00:00:00Z".to_owned()),
        ("Content-Type".to_owned(), "application/http;msgtype=response".to_owned()),
    ];
    if let Some(capture) = trawl_warc::cdxj::Capture::of(&header, block) {
        let _ = capture.line(block.len() as u64, 0, "x.warc.gz");
    }
});
