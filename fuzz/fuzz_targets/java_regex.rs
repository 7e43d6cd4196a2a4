//! A Java regex (as Heritrix's decide rules hold them) translated to Rust's syntax: any UTF-8 translates or is
//! refused with a reason, never a panic; what translates is read by the regex crate or refused by it, never a
//! panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(rust) = trawl_import::heritrix::java_regex::translate(text) {
        let _ = regex::Regex::new(&rust);
    }
});
