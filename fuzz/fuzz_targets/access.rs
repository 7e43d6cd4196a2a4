//! The access settings' parsers on arbitrary text: a cookies file (Netscape or JSON) and a proxy URL give an
//! answer or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = trawl_config::cookies_file::parse(&text);
    let _ = trawl_config::settings::Proxy::parse(&text);
});
