//! Archives other tools wrote (`testdata/`, see its README): read, verified, indexed and converted as the
//! tools that wrote them, and warcio, read them.

use std::path::{Path, PathBuf};

use trawl_warc::{Quirk, VerifyOptions, convert, index_file, open, verify, verify_with};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

/// What `verify` says of each sample: records and notes, or the offset and words of the first problem.
#[test]
fn verify_each_sample() {
    enum Want {
        Ok {
            records: usize,
            arc: bool,
            chunked_digest_notes: usize,
        },
        Fails {
            offset: u64,
            says: &'static str,
        },
    }
    use Want::*;
    let cases = [
        (
            "warcio/example.arc",
            Ok {
                records: 2,
                arc: true,
                chunked_digest_notes: 0,
            },
        ),
        (
            "warcio/example.arc.gz",
            Ok {
                records: 2,
                arc: true,
                chunked_digest_notes: 0,
            },
        ),
        (
            "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc",
            Ok {
                records: 9,
                arc: true,
                chunked_digest_notes: 0,
            },
        ),
        (
            "warcio/example.warc.gz",
            Ok {
                records: 6,
                arc: false,
                chunked_digest_notes: 0,
            },
        ),
        (
            "jwarc/cc.warc.gz",
            Ok {
                records: 1,
                arc: false,
                chunked_digest_notes: 0,
            },
        ),
        (
            "warcio/example-iana.org-chunked.warc",
            Ok {
                records: 3,
                arc: false,
                chunked_digest_notes: 1,
            },
        ),
        (
            "webarchive-commons/IAH-urls-wget.warc.gz",
            Ok {
                records: 36,
                arc: false,
                chunked_digest_notes: 5,
            },
        ),
        (
            "warcio/example-space-in-url.arc",
            Fails {
                offset: 151,
                says: "Archive-length says 1591 bytes, the file ends after 1579",
            },
        ),
        (
            "warcio/bad.arc",
            Fails {
                offset: 0,
                says: "Archive-length \"-1\" is not a byte count",
            },
        ),
        (
            "warcio/example-bad.warc.gz.bad",
            Fails {
                offset: 0,
                says: "cannot be reached by offset for replay",
            },
        ),
    ];
    for (name, want) in cases {
        let got = verify(&sample(name));
        match (want, got) {
            (
                Ok {
                    records,
                    arc,
                    chunked_digest_notes,
                },
                Result::Ok(s),
            ) => {
                assert_eq!((s.records, s.arc), (records, arc), "{name}");
                let notes: usize = s
                    .notes
                    .iter()
                    .filter(|n| n.quirk == Quirk::ChunkedPayloadDigest)
                    .map(|n| n.records)
                    .sum();
                assert_eq!(notes, chunked_digest_notes, "{name}: {:?}", s.notes);
            }
            (Fails { offset, says }, Err(e)) => {
                assert_eq!(e.offset, Some(offset), "{name}: {e}");
                assert!(e.problem.contains(says), "{name}: {e}");
            }
            (_, got) => panic!("{name}: {got:?}"),
        }
    }
}

/// The producers' quirks name them, and fail under `--strict`.
#[test]
fn quirks_name_their_producer() {
    let wget = verify(&sample("webarchive-commons/IAH-urls-wget.warc.gz")).unwrap();
    assert_eq!(wget.notes[0].producer, "Wget/1.14 (darwin11.4.0)");
    let warcprox = verify(&sample("warcio/example-iana.org-chunked.warc")).unwrap();
    assert!(
        warcprox.notes[0].producer.contains("warcprox"),
        "{:?}",
        warcprox.notes
    );
    let strict = verify_with(
        &sample("webarchive-commons/IAH-urls-wget.warc.gz"),
        VerifyOptions::strict(),
    );
    let err = strict.unwrap_err();
    assert_eq!(err.offset, Some(wget.notes[0].first_offset));
    assert!(err.problem.contains("a known quirk of Wget/1.14"), "{err}");
}

/// The index of an ARC is the one cdxj-indexer 1.5 writes for it, byte for byte (its lines, recorded here).
#[test]
fn arc_index_lines_as_cdxj_indexer_writes_them() {
    let cases = [
        (
            "warcio/example.arc",
            r#"com,example)/ 20140216050221 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "length": "1656", "offset": "151", "filename": "example.arc"}"#,
        ),
        (
            "warcio/example.arc.gz",
            r#"com,example)/ 20140216050221 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "length": "856", "offset": "171", "filename": "example.arc.gz"}"#,
        ),
        (
            "warcio/example-space-in-url.arc",
            r#"com,example)/index.cfm?emailtitle=examples%20from%20the%20live%20web&fuseaction=email&ispopup=false 20140216050221 {"url": "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples%20From%20The%20Live%20Web&IsPopUp=False", "mime": "text/html", "status": "200", "digest": "sha1:HOQZQBTKM6ZMSU6I47SNGC6RNAWPPUJC", "length": "1722", "offset": "151", "filename": "example-space-in-url.arc"}"#,
        ),
    ];
    for (name, want) in cases {
        let file = Path::new(name).file_name().unwrap().to_str().unwrap();
        assert_eq!(index_file(&sample(name), file).unwrap(), [want], "{name}");
    }
    // Heritrix's ARC: one line per record but the filedesc, its dns: record included, without a mime: it is
    // not HTTP, and cdxj-indexer writes none for such a record.
    let lines = index_file(
        &sample("webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc"),
        "x.arc",
    )
    .unwrap();
    assert_eq!(lines.len(), 8);
    assert!(
        lines[0].starts_with(
            "dns:www.archive.org 20080430204825 {\"url\": \"dns:www.archive.org\", \"digest\""
        ),
        "{}",
        lines[0]
    );
}

/// A WARC-Target-URI an old crawler wrote in latin-1 is read as cdxj-indexer 1.5 reads it (a line that is not
/// UTF-8 is latin-1), not with its byte replaced by U+FFFD; its lines, recorded here.
#[test]
fn latin1_target_uris_index_as_cdxj_indexer_reads_them() {
    let body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi";
    let mut warc = Vec::new();
    for uri in [
        &b"http://example.org/latin1-caf\xe9"[..],
        b"http://example.org/utf8-caf\xc3\xa9",
        b"http://Example.org/caf%E9?q=\xe9",
    ] {
        warc.extend_from_slice(
            b"WARC/1.1\r\nWARC-Type: response\r\n\
              WARC-Record-ID: <urn:uuid:12345678-1234-1234-1234-123456789012>\r\n\
              WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: ",
        );
        warc.extend_from_slice(uri);
        warc.extend_from_slice(
            format!(
                "\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        );
        warc.extend_from_slice(body);
        warc.extend_from_slice(b"\r\n\r\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.warc");
    std::fs::write(&path, warc).unwrap();
    let digest = "sha1:YIVV7ELYGQTASQUNN5I3FRNPJQF542SC";
    let want = [
        format!(
            r#"org,example)/caf%e9?q=%c3%a9 20200101000000 {{"url": "http://Example.org/caf%E9?q=\u00e9", "mime": "text/html", "status": "200", "digest": "{digest}", "length": "314", "offset": "637", "filename": "l.warc"}}"#
        ),
        format!(
            r#"org,example)/latin1-caf%c3%a9 20200101000000 {{"url": "http://example.org/latin1-caf\u00e9", "mime": "text/html", "status": "200", "digest": "{digest}", "length": "315", "offset": "0", "filename": "l.warc"}}"#
        ),
        format!(
            r#"org,example)/utf8-caf%c3%a9 20200101000000 {{"url": "http://example.org/utf8-caf\u00e9", "mime": "text/html", "status": "200", "digest": "{digest}", "length": "314", "offset": "319", "filename": "l.warc"}}"#
        ),
    ];
    let mut lines = index_file(&path, "l.warc").unwrap();
    lines.sort();
    assert_eq!(lines, want);
}

/// Each ARC sample converts to a WARC 1.1 that verifies and holds the same HTTP bytes.
#[test]
fn arc_samples_convert() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "warcio/example.arc",
        "warcio/example.arc.gz",
        "warcio/example-space-in-url.arc",
        "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc",
    ] {
        let out = dir
            .path()
            .join(format!("{}.warc.gz", name.replace('/', "-")));
        let written = convert(&sample(name), &out).unwrap().records;
        let arc: Vec<_> = open(&sample(name)).unwrap().map(Result::unwrap).collect();
        let warc: Vec<_> = open(&out).unwrap().map(Result::unwrap).collect();
        assert_eq!((written, warc.len()), (arc.len(), arc.len()), "{name}");
        assert_eq!(verify(&out).unwrap().records, arc.len(), "{name}");
        assert_eq!(warc[0].get("WARC-Type"), Some("warcinfo"));
        for (a, w) in arc[1..].iter().zip(&warc[1..]) {
            assert_eq!(a.block, w.block, "{name}");
            assert_eq!(w.version, "WARC/1.1");
            assert_eq!(w.get("WARC-IP-Address"), a.get("IP-address"));
            let stamp: String = w
                .get("WARC-Date")
                .unwrap()
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            assert_eq!(Some(stamp.as_str()), a.get("Archive-date"));
            assert_eq!(w.get("WARC-Warcinfo-ID"), warc[0].get("WARC-Record-ID"));
        }
    }
    // The space-in-URL sample: its URL as warcio writes it, its short record marked.
    let out = dir.path().join("warcio-example-space-in-url.arc.warc.gz");
    let warc: Vec<_> = open(&out).unwrap().map(Result::unwrap).collect();
    assert_eq!(
        warc[1].get("WARC-Target-URI"),
        Some(
            "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples%20From%20The%20Live%20Web&IsPopUp=False"
        )
    );
    assert_eq!(warc[1].get("WARC-Truncated"), Some("unspecified"));
    // Heritrix's ARC 1.1 description becomes warcinfo fields.
    let out = dir
        .path()
        .join("webarchive-commons-IAH-20080430204825-00000-blackbook-truncated.arc.warc.gz");
    let info = open(&out).unwrap().next().unwrap().unwrap();
    let fields = String::from_utf8(info.block).unwrap();
    for want in [
        "arc-software: Heritrix @VERSION@ http://crawler.archive.org\r\n",
        "hostname: blackbook\r\n",
        "arc-version-block: 1 1 InternetArchive\r\n",
    ] {
        assert!(fields.contains(want), "{want} in {fields}");
    }
    // The damaged ARC is refused, naming the file and the record.
    let err = convert(&sample("warcio/bad.arc"), &dir.path().join("bad.warc.gz")).unwrap_err();
    assert!(
        err.to_string()
            .contains("bad.arc: record at offset 0: Archive-length \"-1\""),
        "{err}"
    );
}
