//! `auto` mode's judgement of an HTML page on arbitrary bytes: an answer, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = trawl_browser::detect::needs_rendering(data);
});
