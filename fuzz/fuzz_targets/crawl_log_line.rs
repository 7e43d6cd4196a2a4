//! crawl.log lines read back (a resume's recount, the selftest): arbitrary text gives a line or an error,
//! never a panic; a line read gives its fetch time and host without one either.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(line) = trawl_engine::crawl_log::parse_line(text) {
        let _ = line.fetch_ms();
        let _ = line.host();
        let _ = line.last_hop();
    }
    let _ = trawl_engine::crawl_log::parse(text);
});
