//! `trawl wacz` on arbitrary WARC bytes after a rendered page's records (a response, a `metadata` record with
//! its `browser-title`, a view's): it must end without panicking, and every line of the pages.jsonl it
//! writes must be one JSON object.
#![no_main]

use std::{
    io::Read,
    sync::atomic::{AtomicU64, Ordering},
};

use libfuzzer_sys::fuzz_target;

static RUN: AtomicU64 = AtomicU64::new(0);

/// One uncompressed WARC record.
fn record(kind: &str, uri: &str, extra: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{}>\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n\
         WARC-Target-URI: {uri}\r\n{extra}Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        if kind == "response" { "00000000-0000-0000-0000-000000000001" } else { "00000000-0000-0000-0000-000000000002" },
        block.len()
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!(
        "trawl-fuzz-wacz-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut warc = record(
        "response",
        "http://a.example/",
        "",
        "application/http; msgtype=response",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>x</title>",
    );
    let mut fields = b"browser-title: ".to_vec();
    fields.extend_from_slice(data);
    warc.extend(record(
        "metadata",
        "http://a.example/",
        "WARC-Concurrent-To: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n",
        "application/warc-fields",
        &fields,
    ));
    let mut view = b"browser-view-of: http://a.example/\r\n".to_vec();
    view.extend_from_slice(data);
    warc.extend(record("metadata", "http://a.example/#/v", "", "application/warc-fields", &view));
    warc.extend_from_slice(data);
    let input = dir.join("in.warc");
    let output = dir.join("out.wacz");
    std::fs::write(&input, warc).unwrap();
    if trawl_warc::write_wacz(&output, &[input], &["http://a.example/".to_owned()], "t").is_ok() {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&output).unwrap()).unwrap();
        let mut pages = String::new();
        zip.by_name("pages/pages.jsonl")
            .unwrap()
            .read_to_string(&mut pages)
            .unwrap();
        for line in pages.lines() {
            let parsed: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(parsed.is_object(), "{line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
});
