//! CDXJ indexes, as pywb and ReplayWeb.page read them and as the reference indexer (`cdxj-indexer`, from
//! webrecorder) writes them: one line per response, revisit or resource record,
//! `SURT TIMESTAMP14 {"url": …, "mime": …, "status": …, "digest": …, "length": …, "offset": …, "filename": …}`,
//! sorted by byte value (pywb's binary search misses entries of an unsorted index).

use std::{
    io::Write as _,
    path::{Path, PathBuf},
};

use crate::{Error, reader, record};

/// What one capture contributes to its index line; where it sits in its file is added by [`Capture::line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The SURT key (IA's `surt()` form).
    pub key: String,
    /// `YYYYMMDDhhmmss` of the WARC-Date.
    pub timestamp: String,
    /// The WARC-Target-URI.
    pub url: String,
    /// The content type without parameters (`warc/revisit` for a revisit); `None` when the record has none
    /// (the line leaves the field out, as the reference indexer does).
    pub mime: Option<String>,
    /// The HTTP status; `None` for a record without one (left out of the line).
    pub status: Option<String>,
    /// The WARC-Payload-Digest (or the block digest when there is none), as written.
    pub digest: String,
}

impl Capture {
    /// The capture of a record, if the record is one replay looks up: a response, revisit or resource.
    pub fn of(header: &[(String, String)], block: &[u8]) -> Option<Capture> {
        let get = |name: &str| record::get(header, name);
        let warc_type = get("WARC-Type")?;
        if !matches!(warc_type, "response" | "revisit" | "resource") {
            return None;
        }
        let url = get("WARC-Target-URI")?.to_owned();
        let date = get("WARC-Date")?;
        let timestamp: String = date.chars().filter(char::is_ascii_digit).take(14).collect();
        let is_http = get("Content-Type").is_some_and(|ct| {
            ct.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/http")
        });
        let (status, http_type) = if is_http {
            http_head(block)
        } else {
            (None, None)
        };
        let mime = if warc_type == "revisit" {
            Some("warc/revisit".to_owned())
        } else if is_http {
            http_type.map(|t| media_type(&t))
        } else {
            get("Content-Type").map(media_type)
        };
        let digest = get("WARC-Payload-Digest")
            .or_else(|| get("WARC-Block-Digest"))
            .unwrap_or("-")
            .to_owned();
        Some(Capture {
            key: cdx_key(&url),
            timestamp,
            url,
            mime,
            status: status.map(|s| s.to_string()),
            digest,
        })
    }

    /// The index line of this capture at `offset` / `length` in `filename`.
    pub fn line(&self, length: u64, offset: u64, filename: &str) -> String {
        let mut json = String::with_capacity(160 + self.url.len());
        json.push('{');
        let (length, offset) = (length.to_string(), offset.to_string());
        for (i, (name, value)) in [
            ("url", Some(self.url.as_str())),
            ("mime", self.mime.as_deref()),
            ("status", self.status.as_deref()),
            ("digest", Some(self.digest.as_str())),
            ("length", Some(&length)),
            ("offset", Some(&offset)),
            ("filename", Some(filename)),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .enumerate()
        {
            if i > 0 {
                json.push_str(", ");
            }
            push_json_string(&mut json, name);
            json.push_str(": ");
            push_json_string(&mut json, value);
        }
        json.push('}');
        format!("{} {} {json}", self.key, self.timestamp)
    }
}

/// The SURT key of a target URI: IA's form, or the URI itself when it does not parse.
fn cdx_key(url: &str) -> String {
    match trawl_url::parse_lenient(url) {
        Ok(u) => trawl_url::surt::cdx(&u, &trawl_url::surt::SurtOptions::default()),
        Err(_) => url.to_owned(),
    }
}

/// `text/html; charset=utf-8` → `text/html`.
fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// The status and Content-Type of the HTTP response head at the start of `block`.
/// Every field is read, however many (a crawl may archive heads with hundreds). An interim `1xx` head before
/// the final one is what is indexed, as the reference indexer (cdxj-indexer, through warcio) does.
fn http_head(block: &[u8]) -> (Option<u16>, Option<String>) {
    crate::digest::with_fields(block, |headers| {
        let mut resp = httparse::Response::new(headers);
        resp.parse(block)?;
        let ct = resp
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("content-type"))
            .map(|h| String::from_utf8_lossy(h.value).into_owned());
        Ok((resp.code, ct))
    })
    .unwrap_or((None, None))
}

/// Appends `s` as a JSON string the way Python's `json.dumps` writes it (ASCII only: other characters as
/// `\uXXXX`, in surrogate pairs above U+FFFF), so that trawl's index is byte-identical to the reference
/// indexer's. serde_json writes non-ASCII as UTF-8, hence this small writer.
fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The index lines of the WARC at `path`, in file order; `filename` is what the lines call it.
pub fn index_file(path: &Path, filename: &str) -> Result<Vec<String>, Error> {
    let mut lines = Vec::new();
    for record in reader::open(path)? {
        let record = record?;
        if let Some(c) = Capture::of(&record.warc_header(), &record.block) {
            lines.push(c.line(record.len, record.offset, filename));
        }
    }
    Ok(lines)
}

/// The WARC and ARC files of the folder `dir` (`.warc`, `.warc.gz`, `.warc.zst`, `.arc`, `.arc.gz`; not
/// `.open` ones), by name.
pub fn warc_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_archive_name(p))
        .collect();
    files.sort();
    Ok(files)
}

/// Whether `path` is named as a WARC or ARC file (`.warc`, `.warc.gz`, `.warc.zst`, `.arc`, `.arc.gz`).
pub fn is_archive_name(path: &Path) -> bool {
    let n = path.to_string_lossy();
    [".warc.gz", ".warc", ".warc.zst", ".arc", ".arc.gz"]
        .iter()
        .any(|ext| n.ends_with(ext))
}

/// Sorts `lines` by byte value (as `LC_ALL=C sort` does).
pub fn sort(lines: &mut [String]) {
    lines.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
}

/// Where the index of WARC (or ARC) `warc` goes: beside it, `X.warc.gz` → `X.cdxj`.
pub fn index_path(warc: &Path) -> PathBuf {
    let name = warc
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = [".warc.gz", ".warc.zst", ".warc", ".arc.gz", ".arc"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .unwrap_or(&name);
    warc.with_file_name(format!("{stem}.cdxj"))
}

/// Writes sorted `lines` to `path` through a temporary file, renamed into place once synced, so an index is
/// whole or absent.
pub fn write_index(path: &Path, lines: &mut [String]) -> Result<(), Error> {
    sort(lines);
    let tmp = path.with_extension("cdxj.tmp");
    let io = |source| Error::Io {
        path: tmp.clone(),
        source,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
    for l in lines.iter() {
        file.write_all(l.as_bytes()).map_err(io)?;
        file.write_all(b"\n").map_err(io)?;
    }
    let file = file.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Indexes the WARC at `warc` into its `.cdxj` beside it; returns the index's path.
pub fn index_beside(warc: &Path) -> Result<PathBuf, Error> {
    let name = warc
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut lines = index_file(warc, &name)?;
    let out = index_path(warc);
    write_index(&out, &mut lines)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header(fields: &[(&str, &str)]) -> Vec<(String, String)> {
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_response_line_as_the_reference_indexer_writes_it() {
        let h = header(&[
            ("WARC-Type", "response"),
            ("WARC-Target-URI", "http://www.Example.com/a?b=2&a=1"),
            ("WARC-Date", "2026-11-25T00:50:00.123Z"),
            ("Content-Type", "application/http; msgtype=response"),
            ("WARC-Payload-Digest", "sha1:ABC"),
        ]);
        let block = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n\r\nx";
        let c = Capture::of(&h, block).unwrap();
        assert_eq!(
            c.line(10, 20, "f.warc.gz"),
            "com,example)/a?a=1&b=2 20261125005000 {\"url\": \"http://www.Example.com/a?b=2&a=1\", \"mime\": \
             \"text/html\", \"status\": \"404\", \"digest\": \"sha1:ABC\", \"length\": \"10\", \"offset\": \"20\", \
             \"filename\": \"f.warc.gz\"}"
        );
        let h = header(&[("WARC-Type", "request"), ("WARC-Target-URI", "http://a/")]);
        assert_eq!(Capture::of(&h, b""), None);
    }

    /// Lines `cdxj-indexer -s` 1.4 wrote for the same records: a field the record lacks is left out, a head
    /// with many fields is read whole, and an interim `1xx` head is what is indexed.
    #[test]
    fn missing_fields_and_long_heads_as_the_reference_indexer_writes_them() {
        let http = |url: &str| {
            header(&[
                ("WARC-Type", "response"),
                ("WARC-Target-URI", url),
                ("WARC-Date", "2026-11-29T10:10:07Z"),
                ("Content-Type", "application/http; msgtype=response"),
                ("WARC-Payload-Digest", "sha1:D"),
            ])
        };
        let line = |h: &[(String, String)], block: &[u8]| {
            Capture::of(h, block).unwrap().line(1, 0, "t.warc.gz")
        };
        let tail = r#""digest": "sha1:D", "length": "1", "offset": "0", "filename": "t.warc.gz"}"#;
        assert_eq!(
            line(
                &http("http://example.com/c"),
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
            ),
            format!(
                r#"com,example)/c 20261129101007 {{"url": "http://example.com/c", "status": "200", {tail}"#
            )
        );
        let resource = header(&[
            ("WARC-Type", "resource"),
            ("WARC-Target-URI", "http://example.com/d"),
            ("WARC-Date", "2026-11-29T10:10:07Z"),
            ("WARC-Block-Digest", "sha1:D"),
        ]);
        assert_eq!(
            line(&resource, b"hi"),
            format!(r#"com,example)/d 20261129101007 {{"url": "http://example.com/d", {tail}"#)
        );
        let mut many = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..150 {
            many.extend_from_slice(format!("X-{i}: y\r\n").as_bytes());
        }
        many.extend_from_slice(b"Content-Type: text/html\r\nContent-Length: 2\r\n\r\nhi");
        assert_eq!(
            line(&http("http://example.com/b"), &many),
            format!(
                r#"com,example)/b 20261129101007 {{"url": "http://example.com/b", "mime": "text/html", "status": "200", {tail}"#
            )
        );
        let hints = b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\n\
                      Content-Type: text/html\r\nContent-Length: 2\r\n\r\nhi";
        assert_eq!(
            line(&http("http://example.com/a"), hints),
            format!(
                r#"com,example)/a 20261129101007 {{"url": "http://example.com/a", "status": "103", {tail}"#
            )
        );
    }

    #[test]
    fn json_strings_as_python_writes_them() {
        let mut s = String::new();
        push_json_string(&mut s, "a\"b\\c\u{1}é😀");
        assert_eq!(s, "\"a\\\"b\\\\c\\u0001\\u00e9\\ud83d\\ude00\"");
    }

    #[test]
    fn index_paths() {
        assert_eq!(
            index_path(Path::new("/j/x-1.warc.gz")),
            Path::new("/j/x-1.cdxj")
        );
        assert_eq!(index_path(Path::new("x.warc.zst")), Path::new("x.cdxj"));
        assert_eq!(index_path(Path::new("x.warc")), Path::new("x.cdxj"));
        assert_eq!(index_path(Path::new("x.arc.gz")), Path::new("x.cdxj"));
    }

    proptest! {
        #[test]
        fn any_record_indexes_or_is_skipped(url in "\\PC{0,40}", date in "\\PC{0,30}", block in proptest::collection::vec(any::<u8>(), 0..200)) {
            let h = header(&[
                ("WARC-Type", "response"),
                ("WARC-Target-URI", &url),
                ("WARC-Date", &date),
                ("Content-Type", "application/http"),
            ]);
            if let Some(c) = Capture::of(&h, &block) {
                let line = c.line(1, 2, "f");
                prop_assert!(line.is_ascii() || !url.is_ascii());
                prop_assert!(!line.contains('\n'));
            }
        }
    }
}
