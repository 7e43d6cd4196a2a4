//! [`convert`]: an ARC file, or a WARC 1.0 one, written as WARC 1.1.
//!
//! From ARC: a `warcinfo` made from the `filedesc://` record (its lines kept, and what an ARC 1.1
//! description says of the crawl), then one `response` per ARC record with the HTTP bytes unchanged, its
//! date, IP address and URL carried over and WARC-Payload-Digest computed. A record verify fails for a field
//! or its content ([`arc::flaws`]) is written repaired and named in [`Rewritten::repaired`]: a content
//! without an HTTP head (HTTP/0.9) as a `resource`, a date as warcio reads it, an IP address that is not one
//! left out. A damaged ARC record ([`arc::damage`]) stops the conversion, except a plain file's last record cut short by the end of the file:
//! what is left is converted, marked `WARC-Truncated: unspecified`. Not when that content holds what looks like
//! the header line of a later record: the Archive-length is wrong and took in the records after it. From WARC 1.0: the same records under `WARC/1.1`; a
//! WARC-Target-URI written in angle brackets (wget 1.19) loses them.

use std::net::IpAddr;
use std::path::Path;

use crate::recompress::{Mended, Rewritten, copy, rewrite, serialize};
use crate::record::{Record, VERSION};
use crate::{Error, ReadRecord, arc};

/// The WARC-Target-URI `convert` writes for the ARC record at `offset` of the ARC file `arc` (a gzip member's
/// offset in an `.arc.gz`): how a revisit must name that capture to resolve once the ARC is converted. `None`
/// when no ARC record can be read there.
pub fn converted_target_uri(arc: &Path, offset: u64) -> Option<String> {
    use std::io::{BufReader, Seek, SeekFrom};
    let mut file = std::fs::File::open(arc).ok()?;
    file.seek(SeekFrom::Start(offset)).ok()?;
    let rec = crate::Reader::new(BufReader::new(file))
        .with_path(arc)
        .next()?
        .ok()?;
    (rec.is_arc() && !arc::is_filedesc(&rec))
        .then(|| arc::warc_target_uri(rec.get("URL").unwrap_or_default(), &rec.raw_header))
}

/// The WARC-Target-URI `convert` writes for an ARC URL read from a header line that was UTF-8 (or ASCII):
/// the scheme in lower case, a space as `%20`, control characters and characters past ASCII as the
/// percent-escapes of their UTF-8. For a line that was not UTF-8 (an old crawler's latin-1 byte) only
/// [`converted_target_uri`] knows.
pub fn converted_utf8_target_uri(url: &str) -> String {
    arc::warc_target(&arc::target_uri(url), false)
}

/// The WARC 1.1 spelling of a WARC 1.0 revisit profile (`…/warc/1.0/revisit/…` becomes `…/warc/1.1/revisit/…`),
/// or `None` for any other profile.
fn profile_1_1(profile: &str) -> Option<String> {
    const OLD: &str = "http://netpreserve.org/warc/1.0/revisit/";
    let kind = profile.strip_prefix(OLD)?;
    Some(format!("http://netpreserve.org/warc/1.1/revisit/{kind}"))
}

/// Writes the ARC or WARC `input` as WARC 1.1 to `output`, compressed as its extension says (`.warc.gz`,
/// `.warc.zst`, `.warc`), one member per record, through a temporary file; then its CDXJ index beside it.
/// Returns the number of records written, and for an ARC file that cannot be read to its end (a gzip member
/// cut short, zero bytes after the last record) what stopped it: the records before it are written.
pub fn convert(input: &Path, output: &Path) -> Result<Rewritten, Error> {
    let filename = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut warcinfo_id: Option<String> = None;
    let mut repaired = Vec::new();
    let mut first = true;
    // The offset of a record converted as cut short: it must be the last.
    let mut cut: Option<u64> = None;
    let mut rewritten = rewrite(input, output, true, |rec, plain| {
        let was_first = std::mem::replace(&mut first, false);
        if let Some(offset) = cut {
            // Never reached while the reader reads a plain record cut short to the end of the file.
            return Err(Error::Unconvertible {
                path: input.to_path_buf(),
                offset,
                problem: "Archive-length runs past the end of the file, yet another record follows"
                    .to_owned(),
            });
        }
        if !rec.is_arc() {
            let bracketed = rec
                .get("WARC-Target-URI")
                .is_some_and(|u| u.starts_with('<') && u.ends_with('>'));
            let old_profile = rec.get("WARC-Profile").and_then(profile_1_1);
            if !bracketed && old_profile.is_none() {
                // The header as written, under WARC/1.1.
                copy(rec, Some(VERSION), plain);
                return Ok(());
            }
            let mut rec = rec.clone();
            if let Some((_, uri)) = rec
                .header
                .iter_mut()
                .find(|(n, _)| n.eq_ignore_ascii_case("WARC-Target-URI"))
                && let Some(inner) = uri.strip_prefix('<').and_then(|u| u.strip_suffix('>'))
            {
                *uri = inner.to_owned();
            }
            if let Some(profile) = old_profile
                && let Some((_, value)) = rec
                    .header
                    .iter_mut()
                    .find(|(n, _)| n.eq_ignore_ascii_case("WARC-Profile"))
            {
                *value = profile;
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
        match arc::damage(rec, was_first) {
            None => {}
            // A plain record cut short by the end of the file: the content there is converted, marked as cut.
            problem if arc::cut_short(problem.as_ref()) => {
                truncated = true;
                cut = Some(rec.offset);
            }
            Some(problem) => {
                return Err(unconvertible(format!(
                    "{problem}; a damaged ARC record is not converted (`trawl warc verify` shows the first problem)"
                )));
            }
        }
        let flaws: Vec<arc::Problem> = arc::flaws(rec)
            .into_iter()
            // A record cut short may be cut inside its head: it stays a response, marked as cut.
            .filter(|f| !(truncated && *f == arc::Problem::HttpHead))
            .collect();
        let mut record = warc_record(rec, &filename, warcinfo_id.as_deref(), &flaws);
        if !flaws.is_empty() {
            repaired.push(Mended {
                offset: rec.offset,
                url: rec.get("URL").unwrap_or_default().to_owned(),
                repairs: flaws.iter().map(|f| repair(f, &record)).collect(),
            });
        }
        if truncated {
            record.set("WARC-Truncated", "unspecified");
            // Named like a repaired record, on its one line: a batch conversion must not hide a partial
            // capture (xt19a F4).
            let problem = arc::damage(rec, was_first).map(|p| p.to_string());
            let cut = format!(
                "{}: written as far as it goes, marked WARC-Truncated: unspecified",
                problem.unwrap_or_default()
            );
            match repaired.last_mut() {
                Some(last) if last.offset == rec.offset => last.repairs.push(cut),
                _ => repaired.push(Mended {
                    offset: rec.offset,
                    url: rec.get("URL").unwrap_or_default().to_owned(),
                    repairs: vec![cut],
                }),
            }
        }
        if record.get("WARC-Type") == Some("warcinfo") {
            warcinfo_id = Some(record.id().to_owned());
        }
        plain.extend_from_slice(&record.to_bytes());
        Ok(())
    })?;
    // The WARC records the rewrite mended, among the ARC records mended here: in file order.
    repaired.append(&mut rewritten.repaired);
    repaired.sort_by_key(|m| m.offset);
    Ok(Rewritten {
        repaired,
        ..rewritten
    })
}

/// What `convert` wrote for an ARC record's flaw ([`arc::flaws`]), in words: the flaw, then what `record`
/// holds instead.
fn repair(flaw: &arc::Problem, record: &Record) -> String {
    let done = match flaw {
        arc::Problem::Date(_) => format!(
            "WARC-Date {}, as warcio reads it",
            record.get("WARC-Date").unwrap_or_default()
        ),
        arc::Problem::Ip(_) => "WARC-IP-Address left out".to_owned(),
        arc::Problem::Framed { has, .. } => {
            format!("written with those {has} bytes as its content")
        }
        _ => match record.get("Content-Type") {
            Some(ct) => format!("written as a resource record of Content-Type {ct}"),
            None => {
                "written as a resource record without Content-Type (the ARC's is no media type)"
                    .to_owned()
            }
        },
    };
    format!("{flaw}: {done}")
}

/// The WARC record an ARC record (which [`arc::damage`] passed) becomes, its `flaws` repaired: the date read
/// as warcio reads it, an IP address that is not one left out, and a content without its HTTP head written
/// as a `resource` record of the ARC's content type (none when that is no media type, such as `no-type`).
fn warc_record(
    rec: &ReadRecord,
    filename: &str,
    warcinfo_id: Option<&str>,
    flaws: &[arc::Problem],
) -> Record {
    let field = |name| rec.get(name).unwrap_or_default();
    let date = arc::lenient_date(field("Archive-date"));
    let ip: Option<IpAddr> = field("IP-address").parse().ok();
    let mut record = if arc::is_filedesc(rec) {
        // Its fields as written: five, or ten in an ARC v2 file.
        let header_line = rec
            .header
            .iter()
            .map(|(_, v)| v.as_str())
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
        let uri = arc::warc_target_uri(rec.get("URL").unwrap_or_default(), &rec.raw_header);
        if flaws.contains(&arc::Problem::HttpHead) {
            // An HTTP/0.9 answer: the body alone, which replays as a resource of the type the crawler noted.
            let mime = field("Content-type");
            let mut r = Record::base("resource", date, Some(&uri), mime, rec.block.clone());
            if !is_media_type(mime) {
                r.remove("Content-Type");
            }
            if let Some(ip) = ip {
                r.set("WARC-IP-Address", ip.to_string());
            }
            r
        } else if get("Content-Type").starts_with("application/http") {
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

/// Whether an ARC content type is a media type (`text/html`), which a WARC Content-Type can be: not `no-type`
/// (what Alexa's crawler wrote when the server named none), `-` or empty.
fn is_media_type(mime: &str) -> bool {
    mime.split_once('/').is_some_and(|(kind, sub)| {
        let token = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
        };
        token(kind) && token(sub.split(';').next().unwrap_or_default().trim_end())
    })
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

    #[test]
    fn target_uris_are_what_replay_tools_read() {
        let cases = [
            ("http://a.org/x%20y", false, "http://a.org/x%20y"),
            ("HTTP://A.ORG/UPPER", false, "http://A.ORG/UPPER"),
            (
                "http://a.org/caf\u{e9}/\u{65e5}",
                false,
                "http://a.org/caf%C3%A9/%E6%97%A5",
            ),
            ("http://a.org/caf\u{e9}", true, "http://a.org/caf%E9"),
            ("http://a.org/a\u{1}b\u{7f}", false, "http://a.org/a%01b%7F"),
            ("http://a.org/a\u{1}b\u{ff}", true, "http://a.org/a%01b%FF"),
            ("dns:a.org", false, "dns:a.org"),
        ];
        for (url, latin1, want) in cases {
            assert_eq!(arc::warc_target(url, latin1), want, "{url:?}");
        }
    }

    /// A URL an old crawler wrote in the page's latin-1 keeps its bytes: `%E9`, not `%C3%A9`, the UTF-8 of
    /// the character it was read as; a UTF-8 line keeps its UTF-8.
    #[test]
    fn a_latin1_arc_url_keeps_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = arc(&[(
            "filedesc://x.arc 127.0.0.1 20140216050221 text/plain",
            b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n",
        )]);
        for url in [
            &b"http://a.org/caf\xe9"[..],
            "http://a.org/caf\u{e9}".as_bytes(),
        ] {
            let content = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nx";
            bytes.extend_from_slice(url);
            bytes.extend_from_slice(
                format!(" 127.0.0.1 20140216050221 text/plain {}\n", content.len()).as_bytes(),
            );
            bytes.extend_from_slice(content);
            bytes.push(b'\n');
        }
        let input = dir.path().join("latin1.arc");
        std::fs::write(&input, bytes).unwrap();
        let output = dir.path().join("latin1.warc.gz");
        convert(&input, &output).unwrap();
        let uris: Vec<String> = read(&output)
            .iter()
            .filter_map(|r| r.get("WARC-Target-URI").map(str::to_owned))
            .collect();
        assert_eq!(uris, ["http://a.org/caf%E9", "http://a.org/caf%C3%A9"]);
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
            assert_eq!(convert(&input, &out).unwrap().records, 3, "{name}");
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
    fn a_shoutcast_record_converts_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("radio.arc");
        let mut file = sample();
        file.extend(arc(&[(
            "http://radio.a.org/ 1.2.3.4 20140216050223 audio/mpeg",
            b"ICY 200 OK\r\nicy-name: a\r\n\r\n\xff\xfb\x90",
        )]));
        std::fs::write(&input, file).unwrap();
        assert_eq!(verify(&input).unwrap().records, 4);
        let out = dir.path().join("radio.warc.gz");
        assert_eq!(convert(&input, &out).unwrap().records, 4);
        assert_eq!(verify(&out).unwrap().records, 4);
        let recs = read(&out);
        assert!(recs[3].block.starts_with(b"ICY 200 OK\r\n"));
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
        // and no temporary file is left
        assert!(
            std::fs::read_dir(dir.path()).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp"))
        );
        // recompress refuses an ARC and says what to use.
        let err = crate::recompress(&input, &out).unwrap_err().to_string();
        assert!(err.contains("trawl warc convert"), "{err}");
    }

    /// A record verify fails for its fields or for a content without an HTTP head (what 1990s crawls hold) is
    /// written anyway, repaired as warcio reads it, and named with its offset; the other records are written
    /// as usual, and the output passes verify.
    #[test]
    fn records_with_flaws_are_repaired_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("old.arc");
        let mut file = sample();
        let ok = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nok";
        let flawed: [(&str, &[u8]); 5] = [
            (
                "http://a.org/old 1.2.3.4 19970130204829 no-type",
                b"<html>HTTP/0.9</html>",
            ),
            (
                "http://a.org/typed 1.2.3.4 19970130204829 text/html",
                b"<p>hi",
            ),
            ("http://a.org/d12 1.2.3.4 200804302048 text/html", ok),
            ("http://a.org/ip - 20080430204827 text/html", ok),
            ("http://a.org/m13 1.2.3.4 20081330204827 text/html", ok),
        ];
        let mut offsets = Vec::new();
        for record in flawed {
            offsets.push(file.len() as u64);
            file.extend(arc(&[record]));
        }
        std::fs::write(&input, &file).unwrap();
        assert!(verify(&input).is_err());
        let out = dir.path().join("old.warc.gz");
        let rewritten = convert(&input, &out).unwrap();
        assert_eq!(rewritten.records, 8);
        assert!(rewritten.stopped.is_none());
        let repaired: Vec<String> = rewritten.repaired.iter().map(ToString::to_string).collect();
        assert_eq!(
            repaired,
            [
                format!(
                    "record at offset {} (http://a.org/old): the content of an http record does not begin with \
                     an HTTP response head: written as a resource record without Content-Type (the ARC's is no \
                     media type)",
                    offsets[0]
                ),
                format!(
                    "record at offset {} (http://a.org/typed): the content of an http record does not begin \
                     with an HTTP response head: written as a resource record of Content-Type text/html",
                    offsets[1]
                ),
                format!(
                    "record at offset {} (http://a.org/d12): Archive-date \"200804302048\" is not a time of 14 \
                     digits YYYYMMDDhhmmss: WARC-Date 2008-04-30T20:48:59Z, as warcio reads it",
                    offsets[2]
                ),
                format!(
                    "record at offset {} (http://a.org/ip): IP-address \"-\" is not an IP address: \
                     WARC-IP-Address left out",
                    offsets[3]
                ),
                format!(
                    "record at offset {} (http://a.org/m13): Archive-date \"20081330204827\" is not a time of 14 \
                     digits YYYYMMDDhhmmss: WARC-Date 2008-12-30T20:48:27Z, as warcio reads it",
                    offsets[4]
                ),
            ]
        );
        assert_eq!(verify(&out).unwrap().records, 8);
        let recs = read(&out);
        let (old, typed) = (&recs[3], &recs[4]);
        assert_eq!(old.get("WARC-Type"), Some("resource"));
        assert_eq!(old.get("Content-Type"), None);
        assert_eq!(old.get("WARC-IP-Address"), Some("1.2.3.4"));
        assert_eq!(old.get("WARC-Date"), Some("1997-01-30T20:48:29Z"));
        assert_eq!(old.block, b"<html>HTTP/0.9</html>");
        assert_eq!(typed.get("WARC-Type"), Some("resource"));
        assert_eq!(typed.get("Content-Type"), Some("text/html"));
        assert_eq!(recs[5].get("WARC-Type"), Some("response"));
        assert_eq!(recs[5].get("WARC-Date"), Some("2008-04-30T20:48:59Z"));
        assert_eq!(recs[6].get("WARC-IP-Address"), None);
        assert_eq!(recs[7].get("WARC-Date"), Some("2008-12-30T20:48:27Z"));
        // The resource records are indexed as cdxj-indexer indexes them: the ARC's type, no status.
        let lines = crate::index_file(&out, "old.warc.gz").unwrap();
        let typed_line = lines.iter().find(|l| l.contains("a.org/typed")).unwrap();
        assert!(
            typed_line.contains(r#""mime": "text/html", "digest": "#)
                && !typed_line.contains("status"),
            "{typed_line}"
        );
        // A damaged record still refuses the file.
        file.extend_from_slice(b"http://a.org/bad 1.2.3.4 20080430204827 text/html -1\n\n");
        std::fs::write(&input, &file).unwrap();
        let out = dir.path().join("bad.warc.gz");
        assert!(convert(&input, &out).is_err());
        assert!(!out.exists());
    }

    /// A WARC padded with zero bytes (a tape or disk image's) or cut short in a member gives its whole records
    /// and says where it stopped, as an ARC does (xt15a F11: refused whole).
    #[test]
    fn a_padded_or_cut_warc_is_converted_up_to_the_damage() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("src.warc.gz");
        let records: Vec<Record> = (0..3)
            .map(|i| {
                Record::resource(
                    &format!("http://a.org/{i}"),
                    chrono::Utc::now(),
                    "text/plain",
                    b"hello".to_vec(),
                )
            })
            .collect();
        let mut writer =
            crate::Writer::new(crate::WriterConfig::new(dir.path(), "src", "h")).unwrap();
        writer.write(&records).unwrap();
        let written = writer.close().unwrap().remove(0);
        std::fs::rename(&written, &source).unwrap();
        let whole = std::fs::read(&source).unwrap();
        for (name, bytes) in [
            ("padded.warc.gz", [&whole[..], &[0u8; 4096][..]].concat()),
            // Cut inside the last record (a cut in its member's last bytes alone keeps it: xt38b N11).
            ("cut.warc.gz", whole[..whole.len() - 40].to_vec()),
        ] {
            let input = dir.path().join(name);
            std::fs::write(&input, &bytes).unwrap();
            let out = dir.path().join(format!("out-{name}"));
            let rewritten = convert(&input, &out).unwrap();
            assert!(rewritten.stopped.is_some(), "{name}");
            assert!(rewritten.records >= 3, "{name}: {}", rewritten.records);
            assert!(out.exists() && crate::index_path(&out).exists(), "{name}");
        }
        // A plain WARC cut short in a block, or after it: the records before it are whole (the next began
        // where each one's length said), and are written (xt28b F2: nothing was).
        let plain: Vec<u8> = records.iter().flat_map(Record::to_bytes).collect();
        for cut in [10, 5] {
            let input = dir.path().join(format!("cut{cut}.warc"));
            std::fs::write(&input, &plain[..plain.len() - cut]).unwrap();
            let out = dir.path().join(format!("out-cut{cut}.warc.gz"));
            let rewritten = convert(&input, &out).unwrap();
            let stopped = rewritten.stopped.unwrap().to_string();
            assert!(stopped.ends_with("end of input"), "{cut}: {stopped}");
            assert_eq!(rewritten.records, 2, "{cut}");
            // recompress keeps them the same way (xt29a F1); its strict form, which WACZ packaging uses,
            // refuses the file.
            let out = dir.path().join(format!("re-cut{cut}.warc.gz"));
            let rewritten = crate::recompress_salvaging(&input, &out).unwrap();
            assert!(rewritten.stopped.is_some());
            assert_eq!(rewritten.records, 2, "{cut}");
            let strict = dir.path().join(format!("strict-cut{cut}.warc.gz"));
            assert!(crate::recompress(&input, &strict).is_err());
            assert!(!strict.exists());
        }
        // Cut in its last CRLF CRLF, the block whole by its digest (xt34a F4): that record is kept and written
        // with its ending whole.
        let input = dir.path().join("cut2.warc");
        std::fs::write(&input, &plain[..plain.len() - 2]).unwrap();
        let out = dir.path().join("out-cut2.warc.gz");
        let rewritten = convert(&input, &out).unwrap();
        assert!(rewritten.stopped.is_none());
        assert_eq!(rewritten.records, 3);
        assert_eq!(crate::verify(&out).unwrap().records, 3);
        let out = dir.path().join("re-cut2.warc");
        assert_eq!(crate::recompress(&input, &out).unwrap(), 3);
        assert_eq!(std::fs::read(&out).unwrap(), plain);
    }

    #[test]
    fn media_types() {
        for (mime, want) in [
            ("text/html", true),
            ("text/html; charset=utf-8", true),
            ("application/vnd.ms-excel", true),
            ("no-type", false),
            ("-", false),
            ("", false),
            ("text/", false),
            ("/html", false),
            ("text/html/x", false),
        ] {
            assert_eq!(is_media_type(mime), want, "{mime}");
        }
    }

    /// `sample()` with its http record's Archive-length `59` said to be `says`.
    fn long_http(says: &str) -> (Vec<u8>, usize) {
        let arc = String::from_utf8(sample()).unwrap();
        let at = arc.find("http://").unwrap();
        (
            arc.replacen("text/html 59\n", &format!("text/html {says}\n"), 1)
                .into_bytes(),
            at,
        )
    }

    #[test]
    fn a_length_past_the_end_swallowing_records_is_not_converted() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("swallow.arc");
        let out = dir.path().join("swallow.warc.gz");
        // The http record's length runs past the end of the file, over the dns record after it.
        let (bytes, at) = long_http("100000000");
        std::fs::write(&input, &bytes).unwrap();
        let err = convert(&input, &out).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "{}: record at offset {at}: Archive-length says 100000000 bytes, the file ends after",
            input.display()
            )),
            "{err}"
        );
        assert!(err.contains("swallows the records after it"), "{err}");
        assert!(!out.exists() && !crate::index_path(&out).exists());
        let err = verify(&input).unwrap_err().to_string();
        assert!(err.contains("swallows the records after it"), "{err}");
        // The index says the length swallowed a record, not that the file was cut (review R5).
        let indexed = crate::index_records(&input, "swallow.arc");
        assert_eq!(indexed.cut_short, None);
        assert_eq!(
            indexed
                .swallowing
                .iter()
                .map(|s| s.offset)
                .collect::<Vec<_>>(),
            [at as u64]
        );

        // A filedesc line swallowed is one too.
        let (bytes, _) = long_http("100000000");
        let with_filedesc = String::from_utf8(bytes).unwrap().replace(
            "dns:a.org 1.2.3.4",
            "filedesc://y.arc 0.0.0.0 20140216050221 text/plain 9\n1 0 Test\n\ndns:a.org 1.2.3.4",
        );
        std::fs::write(&input, with_filedesc).unwrap();
        assert!(convert(&input, &out).is_err());
        assert!(!out.exists());
    }

    #[test]
    fn a_last_record_cut_short_is_converted_and_marked() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("cut.arc");
        let whole = sample();
        // Cut inside the dns record's content.
        let cut = &whole[..whole.len() - 6];
        std::fs::write(&input, cut).unwrap();
        let err = verify(&input).unwrap_err().to_string();
        assert!(err.contains("the file ends after 18 (cut short"), "{err}");
        let out = dir.path().join("cut.warc.gz");
        let rewritten = convert(&input, &out).unwrap();
        assert_eq!(rewritten.records, 3);
        // Named on one line, as a repaired record is (xt19a F4); and by the index.
        assert_eq!(rewritten.repaired.len(), 1, "{:?}", rewritten.repaired);
        let [note] = &rewritten.repaired[0].repairs[..] else {
            panic!("{:?}", rewritten.repaired)
        };
        assert!(note.contains("marked WARC-Truncated"), "{note}");
        let indexed = crate::index_records(&input, "cut.arc");
        assert_eq!(indexed.cut_short, Some(rewritten.repaired[0].offset));
        assert!(indexed.swallowing.is_empty());
        let recs = read(&out);
        assert_eq!(recs[2].get("WARC-Truncated"), Some("unspecified"));
        assert_eq!(recs[2].block, b"20140216050220\na. ");
        assert_eq!(recs[1].get("WARC-Truncated"), None);
    }

    /// xt25b F6: in an `.arc.gz`, a record whose Archive-length disagrees with its own gzip member (too long,
    /// too short) is framed by the member: converted whole, named, and the records after it too.
    #[test]
    fn a_record_its_gzip_member_frames_is_converted_whole() {
        use std::io::Write;
        let gz = |bytes: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.warc.gz");
        let content = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
        // The http record's content is 59 bytes: said 106 (its member ends first) or 40 (the member goes on).
        for (says, last) in [("106", false), ("106", true), ("40", false), ("40", true)] {
            let (plain, _) = long_http(says);
            let plain = String::from_utf8(plain).unwrap();
            let http = plain.find("http://").unwrap();
            let dns = plain.find("dns:").unwrap();
            let mut members = vec![
                gz(&plain.as_bytes()[..http]),
                gz(&plain.as_bytes()[http..dns]),
            ];
            if !last {
                members.push(gz(&plain.as_bytes()[dns..]));
            }
            let at = members[0].len() as u64;
            let input = dir.path().join("x.arc.gz");
            std::fs::write(&input, members.concat()).unwrap();
            let err = verify(&input).unwrap_err().to_string();
            assert!(
                err.contains(&format!(
                    "record at offset {at}: Archive-length says {says} bytes, its gzip member holds 59 after the \
                     header line"
                )),
                "{err}"
            );
            let rewritten = convert(&input, &out).unwrap();
            assert_eq!(rewritten.records, if last { 2 } else { 3 }, "{says}");
            assert!(rewritten.stopped.is_none());
            let [repair] = &rewritten.repaired[..] else {
                panic!("{:?}", rewritten.repaired)
            };
            assert_eq!(repair.offset, at);
            assert!(
                repair.repairs[0].ends_with("written with those 59 bytes as its content"),
                "{:?}",
                repair.repairs
            );
            let recs = read(&out);
            assert_eq!(recs[1].block, content);
            assert_eq!(recs[1].get("WARC-Truncated"), None);
            if !last {
                assert_eq!(recs[2].block, b"20140216050220\na. 1 IN\n");
            }
            std::fs::remove_file(&out).unwrap();
            std::fs::remove_file(crate::index_path(&out)).unwrap();
        }
        // A member holding two records, the first's length too short: not one record framed, but a length
        // that disagrees with the records after it, which stops the conversion there.
        let (plain, _) = long_http("40");
        let plain = String::from_utf8(plain).unwrap();
        let http = plain.find("http://").unwrap();
        let input = dir.path().join("two.arc.gz");
        std::fs::write(
            &input,
            [gz(&plain.as_bytes()[..http]), gz(&plain.as_bytes()[http..])].concat(),
        )
        .unwrap();
        let rewritten = convert(&input, &out).unwrap();
        assert_eq!(rewritten.records, 1);
        let stopped = rewritten.stopped.unwrap().to_string();
        assert!(
            stopped.contains("expected the gzip member to end after its record of 40 bytes"),
            "{stopped}"
        );
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
        assert_eq!(convert(&input, &out).unwrap().records, 1);
        let recs = read(&out);
        assert_eq!(recs[0].version, "WARC/1.1");
        assert_eq!(recs[0].get("WARC-Target-URI"), Some("http://a/"));
        assert_eq!(recs[0].get("WARC-Record-ID"), Some("<urn:uuid:1>"));
        assert_eq!(recs[0].block, block);
        verify(&out).unwrap();
    }

    /// A WARC 1.0 revisit names the 1.1 profile once converted; other profiles and other records' headers
    /// stay as written.
    #[test]
    fn a_1_0_revisit_profile_becomes_1_1() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("old.warc");
        let head = |profile: &str| {
            format!(
                "WARC/1.0\r\nWARC-Type: revisit\r\nWARC-Record-ID: <urn:uuid:2>\r\nWARC-Date: 2013-10-21T21:53:07Z\r\n\
                 WARC-Target-URI: http://a/\r\nWARC-Profile: {profile}\r\n\
                 WARC-Payload-Digest: sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ\r\nContent-Length: 0\r\n\r\n\r\n\r\n"
            )
        };
        let old = head("http://netpreserve.org/warc/1.0/revisit/identical-payload-digest");
        let other = head("http://example.org/own-profile");
        std::fs::write(&input, [old, other].concat()).unwrap();
        let out = dir.path().join("new.warc");
        assert_eq!(convert(&input, &out).unwrap().records, 2);
        let recs = read(&out);
        assert_eq!(
            recs[0].get("WARC-Profile"),
            Some("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
        );
        assert_eq!(
            recs[1].get("WARC-Profile"),
            Some("http://example.org/own-profile")
        );
        assert_eq!(recs[1].version, "WARC/1.1");
    }
}
