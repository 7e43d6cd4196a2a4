//! [`convert`]: an ARC file, or a WARC 1.0 one, written as WARC 1.1.
//!
//! From ARC: a `warcinfo` made from the `filedesc://` record (its lines kept, and what an ARC 1.1
//! description says of the crawl), then one `response` per ARC record with the HTTP bytes unchanged, its
//! date, IP address and URL carried over and WARC-Payload-Digest computed. A damaged ARC record (one that
//! `verify` fails) stops the conversion, except one cut short by the end of the file: what is left is
//! converted, marked `WARC-Truncated: unspecified`. From WARC 1.0: the same records under `WARC/1.1`; a
//! WARC-Target-URI written in angle brackets (wget 1.19) loses them.

use std::net::IpAddr;
use std::path::Path;

use crate::recompress::{rewrite, serialize};
use crate::record::{Record, VERSION};
use crate::{Error, ReadRecord, arc};

/// Writes the ARC or WARC `input` as WARC 1.1 to `output`, compressed as its extension says (`.warc.gz`,
/// `.warc.zst`, `.warc`), one member per record, through a temporary file; then its CDXJ index beside it.
/// Returns the number of records written.
pub fn convert(input: &Path, output: &Path) -> Result<usize, Error> {
    let filename = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut warcinfo_id: Option<String> = None;
    let mut first = true;
    rewrite(input, output, |rec, plain| {
        let was_first = std::mem::replace(&mut first, false);
        if !rec.is_arc() {
            let mut rec = rec.clone();
            if let Some((_, uri)) = rec
                .header
                .iter_mut()
                .find(|(n, _)| n.eq_ignore_ascii_case("WARC-Target-URI"))
                && let Some(inner) = uri.strip_prefix('<').and_then(|u| u.strip_suffix('>'))
            {
                *uri = inner.to_owned();
            }
            serialize(&rec, VERSION, plain);
            return Ok(());
        }
        let unconvertible = |problem: String| Error::Unconvertible {
            path: input.to_path_buf(),
            offset: rec.offset,
            problem,
        };
        let mut truncated = false;
        match arc::problem(rec, was_first) {
            None => {}
            // The content the file still has is converted, and marked as cut.
            Some(arc::Problem::Short { .. }) => truncated = true,
            Some(problem) => {
                return Err(unconvertible(format!(
                    "{problem}; a damaged ARC record is not converted (`trawl warc verify` shows the first problem)"
                )));
            }
        }
        let mut record = warc_record(rec, &filename, warcinfo_id.as_deref());
        if truncated {
            record.set("WARC-Truncated", "unspecified");
        }
        if record.get("WARC-Type") == Some("warcinfo") {
            warcinfo_id = Some(record.id().to_owned());
        }
        plain.extend_from_slice(&record.to_bytes());
        Ok(())
    })
}

/// The WARC record an ARC record (which [`arc::problem`] passed) becomes.
fn warc_record(rec: &ReadRecord, filename: &str, warcinfo_id: Option<&str>) -> Record {
    let field = |name| rec.get(name).unwrap_or_default();
    let date = arc::date(field("Archive-date")).unwrap_or_default();
    let ip: Option<IpAddr> = field("IP-address").parse().ok();
    let mut record = if arc::is_filedesc(rec) {
        let header_line = crate::arc::FIELDS
            .iter()
            .map(|n| field(n))
            .collect::<Vec<_>>()
            .join(" ");
        let mut fields = vec![
            (
                "software".to_owned(),
                format!(
                    "trawl-warc {} (trawl warc convert)",
                    env!("CARGO_PKG_VERSION")
                ),
            ),
            ("format".to_owned(), "WARC File Format 1.1".to_owned()),
            (
                "conformsTo".to_owned(),
                "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
                    .to_owned(),
            ),
        ];
        fields.extend(arc::warcinfo_fields(rec, &header_line));
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let mut w = Record::warcinfo(filename, &fields);
        w.set("WARC-Date", crate::format_date(date));
        w
    } else {
        let header = arc::warc_header(rec);
        let get = |n| {
            crate::record::get(&header, n)
                .unwrap_or_default()
                .to_owned()
        };
        let uri = get("WARC-Target-URI");
        if get("Content-Type").starts_with("application/http") {
            Record::response(&uri, date, ip, rec.block.clone())
        } else {
            let mut r = Record::base(
                "response",
                date,
                Some(&uri),
                &get("Content-Type"),
                rec.block.clone(),
            );
            if let Some(ip) = ip {
                r.set("WARC-IP-Address", ip.to_string());
            }
            r
        }
    };
    if let Some(id) = warcinfo_id {
        record.set("WARC-Warcinfo-ID", id);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify;

    /// An ARC file of `(header line without its length, content)` records.
    fn arc(records: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (line, content) in records {
            out.extend_from_slice(format!("{line} {}\n", content.len()).as_bytes());
            out.extend_from_slice(content);
            out.push(b'\n');
        }
        out
    }

    fn sample() -> Vec<u8> {
        arc(&[
            (
                "filedesc://x.arc 127.0.0.1 20140216050221 text/plain",
                b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n",
            ),
            (
                "http://a.org/x y 93.184.216.119 20140216050222 text/html",
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
            ),
            (
                "dns:a.org 1.2.3.4 20140216050220 text/dns",
                b"20140216050220\na. 1 IN\n",
            ),
        ])
    }

    fn read(p: &Path) -> Vec<ReadRecord> {
        crate::open(p).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn an_arc_becomes_warc_1_1() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("x.arc");
        std::fs::write(&input, sample()).unwrap();
        assert_eq!(verify(&input).unwrap().records, 3);
        for name in ["x.warc.gz", "x.warc", "x.warc.zst"] {
            let out = dir.path().join(name);
            assert_eq!(convert(&input, &out).unwrap(), 3, "{name}");
            assert_eq!(verify(&out).unwrap().records, 3, "{name}");
            let recs = read(&out);
            let info = &recs[0];
            assert_eq!(info.version, "WARC/1.1");
            assert_eq!(info.get("WARC-Type"), Some("warcinfo"));
            assert_eq!(info.get("WARC-Filename"), Some(name));
            assert_eq!(info.get("WARC-Date"), Some("2014-02-16T05:02:21Z"));
            let fields = String::from_utf8_lossy(&info.block);
            assert!(
                fields.contains(
                    "arc-header: filedesc://x.arc 127.0.0.1 20140216050221 text/plain 65\r\n"
                ),
                "{fields}"
            );
            assert!(
                fields.contains("arc-version-block: 1 0 Test\r\n"),
                "{fields}"
            );
            let resp = &recs[1];
            assert_eq!(resp.get("WARC-Target-URI"), Some("http://a.org/x%20y"));
            assert_eq!(resp.get("WARC-IP-Address"), Some("93.184.216.119"));
            assert_eq!(resp.get("WARC-Date"), Some("2014-02-16T05:02:22Z"));
            assert_eq!(
                resp.get("WARC-Payload-Digest"),
                Some(crate::sha1_digest(b"hi").as_str())
            );
            assert_eq!(resp.get("WARC-Warcinfo-ID"), info.get("WARC-Record-ID"));
            assert_eq!(&resp.block[..15], b"HTTP/1.1 200 OK");
            assert_eq!(resp.block.len(), 59);
            let dns = &recs[2];
            assert_eq!(dns.get("Content-Type"), Some("text/dns"));
            assert_eq!(dns.get("WARC-Target-URI"), Some("dns:a.org"));
            assert_eq!(dns.block, b"20140216050220\na. 1 IN\n");
        }
    }

    #[test]
    fn a_damaged_arc_is_not_converted() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("bad.arc");
        let bad = String::from_utf8_lossy(&sample()).replace("text/dns 23", "text/dns -1");
        let at = bad.find("dns:").unwrap();
        std::fs::write(&input, bad.as_bytes()).unwrap();
        let out = dir.path().join("bad.warc.gz");
        let err = convert(&input, &out).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "{}: record at offset {at}: Archive-length \"-1\"",
                input.display()
            )),
            "{err}"
        );
        assert!(!out.exists());
        assert!(!dir.path().join("bad.warc.recompress.tmp").exists());
        // recompress refuses an ARC and says what to use.
        let err = crate::recompress(&input, &out).unwrap_err().to_string();
        assert!(err.contains("trawl warc convert"), "{err}");
    }

    #[test]
    fn warc_1_0_becomes_1_1() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("old.warc");
        let block = b"HTTP/1.0 200 OK\r\n\r\nhi";
        let rec = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Date: 2013-10-21T21:53:07Z\r\n\
             WARC-Target-URI: <http://a/>\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        );
        std::fs::write(&input, [rec.as_bytes(), block, b"\r\n\r\n"].concat()).unwrap();
        let out = dir.path().join("new.warc.gz");
        assert_eq!(convert(&input, &out).unwrap(), 1);
        let recs = read(&out);
        assert_eq!(recs[0].version, "WARC/1.1");
        assert_eq!(recs[0].get("WARC-Target-URI"), Some("http://a/"));
        assert_eq!(recs[0].get("WARC-Record-ID"), Some("<urn:uuid:1>"));
        assert_eq!(recs[0].block, block);
        verify(&out).unwrap();
    }
}
