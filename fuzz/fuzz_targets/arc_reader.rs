//! The reader on ARC files: a `filedesc://` header line then arbitrary bytes (the first input byte picks
//! whether they follow a complete filedesc record). It must end (after at most one error) without panicking,
//! every record framed inside the input, and each ARC record's WARC header, `ls` line and index line made.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let head: &[u8] = if pick & 1 == 0 {
        b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain 9\n1 0 Test\n\n"
    } else {
        b"filedesc://f.arc 0.0.0.0 20140216050221 text/plain "
    };
    let input = [head, rest].concat();
    let mut last_offset = 0;
    let mut errors = 0;
    for item in trawl_warc::Reader::new(&input[..]).with_max_record_bytes(1 << 20) {
        match item {
            Ok(rec) => {
                assert_eq!(errors, 0, "a record after an error");
                assert!(rec.offset >= last_offset, "offsets go backwards");
                assert!(
                    rec.offset + rec.len <= input.len() as u64,
                    "record past the input"
                );
                last_offset = rec.offset;
                let _ = trawl_warc::ls_line(&rec);
                if let Some(capture) = trawl_warc::Capture::of(&rec.warc_header(), &rec.block) {
                    let line = capture.line(rec.len, rec.offset, "f.arc");
                    assert!(!line.contains('\n'), "an index line across lines");
                }
            }
            Err(e) => {
                errors += 1;
                assert!(errors == 1, "the reader goes on after an error: {e}");
                let _ = e.to_string();
            }
        }
    }
});
