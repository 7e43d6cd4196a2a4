//! WARC 1.1 archives: write, read and verify them.
//!
//! What this crate must not know: crawling, HTTP fetching, settings, async runtimes; it reads and writes the
//! archive formats (WARC, ARC, CDX, CDXJ, WACZ) for any producer's files.
//!
//! A [`Record`] is one WARC record to write: ordered header fields plus a block, built by a
//! constructor per record type ([`Record::warcinfo`], [`Record::request`], [`Record::response`],
//! [`Record::metadata`]) that fills the id, date, length and digests. A [`Writer`] appends groups of
//! records to rotating files named `PREFIX-YYYYMMDDhhmmss-NNNNN-HOST.warc.gz`, one gzip member per
//! record, and reports where each went. A [`Reader`] (see [`open`]) reads plain or gzipped files back
//! as [`ReadRecord`]s with their offsets, and [`verify`] checks a file's framing, headers and
//! digests. [`ls_line`] summarizes a record on one line. The reader, `ls`, the index and [`verify`] read
//! ARC v1 files too; [`convert`] writes an ARC (or a WARC 1.0) as WARC 1.1. A `.warc.zst` file may begin with
//! a [`ZstdDictionary`] in the IIPC warc-zstd dictionary frame, which the writer trains from a crawl's first
//! records when asked ([`WriterConfig::zstd_dictionary`]) and the reader loads for the frames after it.
//!
//! Digests are `sha1:` + base32. The WARC-Payload-Digest of an HTTP record covers its entity body:
//! the bytes after the HTTP head with chunked transfer coding removed and Content-Encoding kept.
//!
//! The crate does no async and no I/O beyond `std::fs` and `std::io`.
//!
//! ```
//! use chrono::Utc;
//! use trawl_warc::{Record, Writer, WriterConfig, verify};
//!
//! let dir = tempfile::tempdir()?;
//! let mut writer = Writer::new(WriterConfig::new(dir.path(), "crawl", "host1"))?;
//! let now = Utc::now();
//! let request = Record::request("http://example.com/", now, None,
//!     b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".to_vec());
//! let mut response = Record::response("http://example.com/", now, None,
//!     b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".to_vec());
//! response.set("WARC-Concurrent-To", request.id());
//! let written = writer.write(&[request, response])?;
//! let files = writer.close()?;
//! assert_eq!(files, [written.path.clone()]);
//!
//! let summary = verify(&written.path)?;
//! assert_eq!(summary.records, 3); // warcinfo, request, response
//! for record in trawl_warc::open(&written.path)? {
//!     println!("{}", trawl_warc::ls_line(&record?));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::{
    cdx::{CdxCapture, CdxError, CdxFormat},
    cdxj::{
        Capture, Indexed, LineSorter, Swallowing, Unindexed, index_beside, index_difference,
        index_file, index_own_beside, index_path, index_records, is_archive_name,
        is_temporary_index, line_filename, sharing_index, warc_files, write_index, write_sorted,
    },
    compression::Compression,
    convert::{convert, converted_target_uri, converted_utf8_target_uri},
    digest::{http_header, sha1_digest, sha1_key},
    error::Error,
    framed::{DigestFrames, Framed, MemberEnd},
    ls::ls_line,
    reader::{ReadRecord, Reader, open},
    recompress::{Mended, Rewritten, recompress, recompress_salvaging},
    record::{
        Record, WarcFields, format_date,
        revisit::{IDENTICAL_PAYLOAD_DIGEST, RefersTo, SERVER_NOT_MODIFIED},
        timestamp14_to_warc_date, warc_date_timestamp,
    },
    repair::{Repaired, repair},
    resync::{Passed, unread_other_hint},
    verify::{
        KNOWN_QUIRKS, Note, Quirk, VerifyError, VerifyOptions, VerifySummary, verify, verify_with,
        written_by_trawl,
    },
    wacz::{RENDERED_TITLE, VIEW_OF, WaczSummary, write_wacz},
    writer::{Encoded, Encoder, Span, WriteBack, Writer, WriterConfig, Written},
    zstd_dictionary::{DictionaryProblem, ZstdDictionary, parse_frame as parse_dictionary_frame},
};

mod arc;
pub mod cdx;
pub mod cdxj;
mod chunked;
mod compression;
mod convert;
mod digest;
mod error;
mod framed;
mod gzip;
mod header;
mod incompressible;
mod ls;
mod naming;
mod reader;
mod recompress;
mod record;
mod repair;
mod resync;
mod verify;
mod wacz;
mod writer;
pub mod zstd_dictionary;
