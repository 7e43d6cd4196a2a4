//! crawl.toml parsing on arbitrary UTF-8: no panic (the error text slices the input at toml's spans), and
//! every error names the file.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use trawl_config::CrawlConfig;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `[seeds] files` are read from disk (a fuzzer could name /dev/zero): leave those inputs out.
    if toml::from_str::<CrawlConfig>(text).is_ok_and(|c| !c.seeds.files.is_empty()) {
        return;
    }
    match CrawlConfig::parse(text, Path::new("fuzz.toml")) {
        Ok(config) => assert!(config.validate().is_ok()),
        Err(e) => assert!(e.to_string().starts_with("fuzz.toml: "), "{e}"),
    }
});
