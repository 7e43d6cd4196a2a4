//! Repeated response header fields read as browsers read them, on arbitrary bytes: a list, a type, a
//! `Refresh` target or `Link` targets out of what was given, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_extract::field;

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let joined = field::list(lines.iter().copied());
    if let Some(found) = field::content_type(lines.iter().copied()) {
        assert!(joined.unwrap_or_default().contains(found.as_str()));
    }
    let _ = field::refresh(lines.iter().copied());
    for (target, rel) in field::links(lines.iter().copied()) {
        assert!(!target.is_empty() && rel == rel.to_ascii_lowercase());
    }
});
