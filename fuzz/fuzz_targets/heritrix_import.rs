//! `trawl import heritrix` on arbitrary bytes (decoded as their XML declaration says) and text: an error or a
//! profile, never a panic; and a seed list read as Heritrix reads one.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = trawl_import::heritrix::decode(data) {
        let _ = trawl_import::heritrix::import(&text, std::path::Path::new("fuzz.cxml"));
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = trawl_import::heritrix::import(text, std::path::Path::new("fuzz.cxml"));
    for (_, line) in trawl_config::settings::seed_list::parse(text) {
        if let trawl_config::settings::seed_list::SeedLine::Accept(p) = line {
            let _ = trawl_config::settings::seed_list::directive_prefix(&p);
        }
    }
});
