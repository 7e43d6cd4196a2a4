//! The `Content-Disposition` file-name reader on arbitrary text: never a panic, and a name it gives is never
//! blank.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::office::disposition_filename;

fuzz_target!(|data: &[u8]| {
    let value = String::from_utf8_lossy(data);
    if let Some(name) = disposition_filename(&value) {
        assert!(!name.trim().is_empty());
    }
});
