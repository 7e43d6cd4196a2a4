//! `trawl warc convert` on ARC files: a `filedesc://` record then arbitrary bytes, written to a file and
//! converted. It must end without panicking; what it writes (its records repaired or not) must verify as a
//! WARC, and a refused file must leave no output behind.
#![no_main]

use std::sync::atomic::{AtomicU64, Ordering};

use libfuzzer_sys::fuzz_target;

static RUN: AtomicU64 = AtomicU64::new(0);

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!(
        "trawl-fuzz-arc-convert-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.arc");
    let output = dir.join("out.warc.gz");
    let head = b"filedesc://in.arc 0.0.0.0 20140216050221 text/plain 9\n1 0 Test\n\n";
    std::fs::write(&input, [&head[..], data].concat()).unwrap();
    match trawl_warc::convert(&input, &output) {
        Ok(_) => {
            if let Err(e) = trawl_warc::verify(&output) {
                panic!("convert wrote a WARC that does not verify: {e}");
            }
        }
        Err(e) => {
            let _ = e.to_string();
            assert!(!output.exists(), "a refused conversion left its output");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
});
