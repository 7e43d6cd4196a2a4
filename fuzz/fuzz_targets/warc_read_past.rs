//! The WARC reader reading past damage (`Reader::read_on_after`, as `trawl warc ls`, `index`, `convert` and
//! `recompress` do) on arbitrary bytes, stored as a `.warc.gz`, a `.warc.zst` or a plain `.warc` by the first
//! byte: it must end without panicking, and read on only forward.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, bytes)) = data.split_first() else {
        return;
    };
    let name = ["f.warc.gz", "f.warc.zst", "f.warc"][usize::from(kind % 3)];
    let dir = std::env::temp_dir().join(format!("trawl-fuzz-read-past-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let mut records = trawl_warc::open(&path).unwrap().with_max_record_bytes(1 << 20);
    let mut last = 0;
    while let Some(item) = records.next() {
        match item {
            Ok(rec) => {
                assert!(rec.offset >= last, "offsets go backwards");
                assert!(rec.offset + rec.len <= bytes.len() as u64, "record past the input");
                last = rec.offset;
            }
            Err(e) => match records.read_on_after(&e) {
                Ok(Some(at)) => {
                    assert!(at > e.offset().unwrap(), "read on before the damage");
                    last = at;
                }
                _ => break,
            },
        }
    }
});
