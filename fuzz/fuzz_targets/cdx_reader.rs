//! The classic CDX reader (`[warc] dedup_from` of a Heritrix or Wayback `.cdx` file): the first line is read as
//! a header, or the format guessed from its field count, and every other line as a capture. It must answer a
//! capture or an error for each line, never panic; a capture's date makes a WARC-Date, and its digest, when
//! there is one, is `sha1:` and 32 base32 characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_warc::CdxFormat;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.lines();
    let Some(first) = lines.next() else { return };
    let format = if trawl_warc::cdx::is_header(first) {
        CdxFormat::from_header(first).ok()
    } else {
        CdxFormat::guess(first.split(' ').count())
    };
    let Some(format) = format else { return };
    for line in lines {
        if let Ok(c) = format.capture(line) {
            assert_eq!(c.warc_date().map(|d| d.len()), Some(20));
            if let Some(d) = &c.digest {
                let b32 = d.strip_prefix("sha1:").expect("sha1: prefix");
                assert_eq!(b32.len(), 32);
                assert!(
                    b32.bytes()
                        .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
                );
            }
        }
    }
});
