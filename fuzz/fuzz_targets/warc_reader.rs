//! The WARC reader on arbitrary bytes, plain or gzipped: it must end (after at most one error) without
//! panicking, and every record it yields must be framed consistently.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut last_offset = 0;
    let mut errors = 0;
    for item in trawl_warc::Reader::new(data).with_max_record_bytes(1 << 20) {
        match item {
            Ok(rec) => {
                assert_eq!(errors, 0, "a record after an error");
                assert!(rec.offset >= last_offset, "offsets go backwards");
                assert!(
                    rec.offset + rec.len <= data.len() as u64,
                    "record past the input"
                );
                last_offset = rec.offset;
                let _ = trawl_warc::ls_line(&rec);
            }
            Err(e) => {
                errors += 1;
                assert!(errors == 1, "the reader goes on after an error: {e}");
                let _ = e.to_string();
            }
        }
    }
});
