//! ARC v1 records (the format of Heritrix 1 and the Internet Archive before WARC), and v2 ones: the header
//! line, the WARC header an ARC record stands for, and what an ARC record can be checked for.
//!
//! An ARC record is one header line, `URL IP-address Archive-date Content-type Archive-length`, then
//! `Archive-length` bytes of content, then a newline. The first record of a file, `filedesc://NAME`, holds
//! the version block (`1 0 ORIGIN`), the field-name line and, in ARC 1.1, an XML description of the crawl.
//! The URL may hold spaces (older crawlers wrote them as found), so the line is split from the right, as
//! warcio does, and the spaces become `%20` in the WARC-Target-URI. An ARC v2 file (version block `2 0`)
//! has header lines of ten fields: `URL IP-address Archive-date Content-type Result-code Checksum Location
//! Offset Filename Archive-length`.
//!
//! The [`Reader`](crate::Reader) returns an ARC record as a [`ReadRecord`] whose version is `ARC/1.0` (or
//! `ARC/1.1`), whose header holds the five fields under their ARC names and whose block is the content.
//! [`warc_header`] maps it to WARC fields, which `ls`, the index and `convert` use.

use std::net::IpAddr;

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::{
    digest::{parse_head_ok, sha1_digest},
    record::timestamp14_to_warc_date,
};

/// A record read from an ARC file, as the functions here need it: its header line's fields under their ARC
/// names, and its content. The reader's record is one; this module does not know the reader.
pub(crate) trait ArcRecord {
    /// The value of the header field `name` (`URL`, `IP-address`, `Archive-date`, `Content-type`,
    /// `Archive-length`).
    fn get(&self, name: &str) -> Option<&str>;
    /// The record's content.
    fn block(&self) -> &[u8];
    /// How the record is stored: plain, or in a gzip member or zstd frame of its own.
    fn compression(&self) -> crate::Compression {
        crate::Compression::None
    }
}

/// The field names of an ARC v1 header line, in order.
pub(crate) const FIELDS: [&str; 5] = [
    "URL",
    "IP-address",
    "Archive-date",
    "Content-type",
    "Archive-length",
];

/// The `filedesc://` scheme of the header record that opens an ARC file.
const FILEDESC: &str = "filedesc://";

/// The five fields of an ARC header line, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) fields: Vec<(String, String)>,
    /// Archive-length, or `None` when it is not a byte count (the block is then read as empty, as
    /// warcio reads it; [`problem`] reports it).
    pub(crate) length: Option<u64>,
}

/// The field names of an ARC v2 header line (the `2 0` version block), in order.
pub(crate) const FIELDS_V2: [&str; 10] = [
    "URL",
    "IP-address",
    "Archive-date",
    "Content-type",
    "Result-code",
    "Checksum",
    "Location",
    "Offset",
    "Filename",
    "Archive-length",
];

/// Parses an ARC v1 header line (its end of line included or not). `None` unless it has five
/// space-separated fields whose URL has a scheme and whose date is digits.
pub(crate) fn parse_line(line: &[u8]) -> Option<Head> {
    parse_fields(line, &FIELDS)
}

/// Parses an ARC v2 header line: ten fields ([`FIELDS_V2`]), else as [`parse_line`] does.
pub(crate) fn parse_line_v2(line: &[u8]) -> Option<Head> {
    parse_fields(line, &FIELDS_V2)
}

/// Parses a header line of an ARC file of `version` (`ARC/2.0`: the v2 layout first; else, or not known
/// yet, the v1 layout first), in the other layout when it is not one of the first.
pub(crate) fn parse_line_in(line: &[u8], version: Option<&str>) -> Option<Head> {
    if version.is_some_and(is_v2) {
        parse_line_v2(line).or_else(|| parse_line(line))
    } else {
        parse_line(line).or_else(|| parse_line_v2(line))
    }
}

/// Whether an ARC version (`ARC/2.0`) is 2: header lines of ten fields.
pub(crate) fn is_v2(version: &str) -> bool {
    version.starts_with("ARC/2.")
}

/// Parses a header line of the fields `names` (the URL first, Archive-length last), split from the right.
fn parse_fields(line: &[u8], names: &[&str]) -> Option<Head> {
    let text = crate::header::text(line);
    let text = text.trim_end();
    let mut parts: Vec<&str> = text.rsplitn(names.len(), ' ').collect();
    if parts.len() != names.len() {
        return None;
    }
    parts.reverse();
    let (url, date) = (parts[0], parts[2]);
    let has_scheme = url
        .split_once(':')
        .is_some_and(|(scheme, _)| !scheme.is_empty() && scheme.bytes().all(is_scheme_byte));
    if !has_scheme || date.is_empty() || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Head {
        length: parts[names.len() - 1].parse().ok(),
        fields: names
            .iter()
            .zip(parts)
            .map(|(n, v)| ((*n).to_owned(), v.to_owned()))
            .collect(),
    })
}

fn is_scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"+-.".contains(&b)
}

/// The version of an ARC file from its `filedesc://` record's block (`1 0 ORIGIN` → `ARC/1.0`).
pub(crate) fn version(block: &[u8]) -> Option<String> {
    let line = block.split(|&b| b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let (major, minor) = (words.next()?, words.next()?);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(major) && digits(minor)).then(|| format!("ARC/{major}.{minor}"))
}

/// Whether `rec` is the `filedesc://` header record of an ARC file.
pub(crate) fn is_filedesc(rec: &impl ArcRecord) -> bool {
    rec.get("URL").is_some_and(is_filedesc_url)
}

/// Whether an ARC URL is that of a `filedesc://` header record.
pub(crate) fn is_filedesc_url(url: &str) -> bool {
    url.get(..FILEDESC.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(FILEDESC))
}

/// Whether an ARC URL is fetched over HTTP, so that its content is an HTTP response.
fn is_http(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// An ARC date (`YYYYMMDDhhmmss`, UTC) as a time; `None` unless it is 14 digits of a real time.
pub(crate) fn date(arc_date: &str) -> Option<DateTime<Utc>> {
    if arc_date.len() != 14 {
        return None;
    }
    NaiveDateTime::parse_from_str(arc_date, "%Y%m%d%H%M%S")
        .ok()
        .map(|d| d.and_utc())
}

/// An ARC date as a WARC-Date, leniently as warcio reads it: the first 14 digits, zeros added to a short
/// one (`20140401000000000` and `201404` both read as April 2014).
fn iso_date(arc_date: &str) -> String {
    let mut digits: String = arc_date
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect();
    while digits.len() < 14 {
        digits.push(if matches!(digits.len(), 5 | 7) {
            '1'
        } else {
            '0'
        });
    }
    // Always 14 digits here: the default is never taken.
    timestamp14_to_warc_date(&digits).unwrap_or_default()
}

/// The WARC-Target-URI of an ARC URL: spaces (which some crawlers wrote unescaped) as `%20`.
pub(crate) fn target_uri(url: &str) -> String {
    url.replace(' ', "%20")
}

/// The WARC header an ARC record stands for: `warcinfo` for the `filedesc://` record, `response` for the
/// others, with WARC-Target-URI, WARC-Date, WARC-IP-Address, Content-Type (`application/http` for an
/// http(s) URL, else the ARC's), Content-Length, and a WARC-Payload-Digest computed (ARC has none): for an
/// http(s) URL, of the entity body, or of what follows the head as warcio reads it when httparse refuses
/// the head (an ICY or `HTTP/1.1 2000` status line, a head without its empty line); else of the content,
/// as cdxj-indexer does.
pub(crate) fn warc_header(rec: &impl ArcRecord) -> Vec<(String, String)> {
    let field = |name| rec.get(name).unwrap_or_default().to_owned();
    let url = field("URL");
    let mut header = Vec::with_capacity(8);
    let mut push = |n: &str, v: String| header.push((n.to_owned(), v));
    if is_filedesc(rec) {
        push("WARC-Type", "warcinfo".into());
        push("WARC-Filename", url[FILEDESC.len()..].to_owned());
        push("WARC-Date", iso_date(&field("Archive-date")));
        push("WARC-IP-Address", field("IP-address"));
        push("Content-Type", field("Content-type"));
    } else {
        push("WARC-Type", "response".into());
        push("WARC-Target-URI", target_uri(&url));
        push("WARC-Date", iso_date(&field("Archive-date")));
        push("WARC-IP-Address", field("IP-address"));
        push(
            "Content-Type",
            if is_http(&url) {
                "application/http;msgtype=response".into()
            } else {
                field("Content-type")
            },
        );
        let payload = if is_http(&url) && !rec.block().is_empty() {
            crate::cdxj::head::http_payload_digest(rec.block())
        } else {
            sha1_digest(rec.block())
        };
        push("WARC-Payload-Digest", payload);
    }
    push("Content-Length", rec.block().len().to_string());
    header
}

/// What is wrong with an ARC record, in words for the operator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Problem {
    #[error("Archive-length {0:?} is not a byte count (read as an empty record)")]
    Length(String),
    #[error("Archive-length says {says} bytes, {}", short(*has, *within, *swallows))]
    Short {
        says: u64,
        has: usize,
        /// How the record is stored: what ends first is the file for a plain record, else its gzip member or
        /// zstd frame.
        within: crate::Compression,
        /// Where the content holds what looks like a later record's header line: the length swallowed it.
        swallows: Option<usize>,
    },
    #[error("Archive-date {0:?} is not a time of 14 digits YYYYMMDDhhmmss")]
    Date(String),
    #[error("IP-address {0:?} is not an IP address")]
    Ip(String),
    #[error("the first record of an ARC file is not its filedesc:// header but {0:?}")]
    NoFiledesc(String),
    #[error("the filedesc:// header does not begin with a version block such as \"1 0 ORIGIN\"")]
    Version,
    #[error("the content of an http record does not begin with an HTTP response head")]
    HttpHead,
}

/// The end of a [`Problem::Short`] message: what ends after `has` bytes, and why that may be.
fn short(has: usize, within: crate::Compression, swallows: Option<usize>) -> String {
    let within = match within {
        crate::Compression::None => "file",
        crate::Compression::Gzip => "gzip member",
        crate::Compression::Zstd => "zstd frame",
    };
    match (within, swallows) {
        (_, Some(at)) => format!(
            "the {within} ends after {has}, and {at} bytes into the content is what looks like the header line of \
             a later record: the length is wrong and swallows the records after it"
        ),
        ("file", None) => format!("the file ends after {has} (cut short, or the length is wrong)"),
        (_, None) => format!(
            "the {within} ends after {has}: the length is wrong (a file cut short ends in a {within} cut short)"
        ),
    }
}

/// Where `content` holds a line shaped like an ARC header line (`URL IP-address YYYYMMDDhhmmss
/// Content-type Archive-length`, the IP address one and the length a byte count) at its start or after a
/// newline: a sign that an Archive-length too long took in the records after it. `None` when it holds none.
pub(crate) fn later_header_line(content: &[u8]) -> Option<usize> {
    let mut start = 0;
    while start < content.len() {
        let end = content[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|n| start + n);
        let Some(end) = end else {
            // A header line ends in a newline, as its record's content follows it.
            return None;
        };
        if looks_like_header_line(&content[start..=end]) {
            return Some(start);
        }
        start = end + 1;
    }
    None
}

/// Whether `line` (with its newline) is shaped like an ARC header line of a well-formed record.
fn looks_like_header_line(line: &[u8]) -> bool {
    // Cheap tests first: a content's lines are mostly not header lines.
    if !line.first().is_some_and(u8::is_ascii_alphabetic)
        || line.iter().filter(|&&b| b == b' ').count() < 4
    {
        return false;
    }
    // A v1 line, or a v2 one (whose v1 reading takes its Offset for the date).
    [parse_line(line), parse_line_v2(line)]
        .into_iter()
        .flatten()
        .any(|head| {
            let field = |i: usize| head.fields[i].1.as_str();
            head.length.is_some() && date(field(2)).is_some() && field(1).parse::<IpAddr>().is_ok()
        })
}

/// What an ARC record can be checked for: its length a byte count, its date 14 digits of a real time, its
/// IP address one, a `filedesc://` record first (`first`) with its version block, and an HTTP response
/// head at the start of an http(s) record's content.
pub(crate) fn problem(rec: &impl ArcRecord, first: bool) -> Option<Problem> {
    let field = |name| rec.get(name).unwrap_or_default();
    let length = field("Archive-length");
    match length.parse::<u64>() {
        Ok(says) if says > rec.block().len() as u64 => {
            return Some(Problem::Short {
                says,
                has: rec.block().len(),
                within: rec.compression(),
                swallows: later_header_line(rec.block()),
            });
        }
        Ok(says) if says == rec.block().len() as u64 => {}
        _ => return Some(Problem::Length(length.to_owned())),
    }
    let arc_date = field("Archive-date");
    if date(arc_date).is_none() {
        return Some(Problem::Date(arc_date.to_owned()));
    }
    let ip = field("IP-address");
    if ip.parse::<IpAddr>().is_err() {
        return Some(Problem::Ip(ip.to_owned()));
    }
    let url = field("URL");
    if is_filedesc(rec) {
        return version(rec.block()).is_none().then_some(Problem::Version);
    }
    if first {
        return Some(Problem::NoFiledesc(url.to_owned()));
    }
    let block = rec.block();
    if is_http(url) && !block.is_empty() && !parse_head_ok(block) && !icy_head(block) {
        return Some(Problem::HttpHead);
    }
    None
}

/// Whether `content` begins with a ShoutCast head (`ICY 200 OK`, fields, an empty line): what a crawler
/// recorded from an audio stream served over http, which the index reads as warcio does.
fn icy_head(content: &[u8]) -> bool {
    let status = content
        .get(4..7)
        .is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    content.starts_with(b"ICY ")
        && status
        && (memchr::memmem::find(content, b"\r\n\r\n").is_some()
            || memchr::memmem::find(content, b"\n\n").is_some())
}

/// The `Name: value` fields of a `warcinfo` made from a `filedesc://` record: the ARC's own lines, and
/// what an ARC 1.1 XML description says of the crawl (software, hostname, operator, ...).
pub(crate) fn warcinfo_fields(rec: &impl ArcRecord, header_line: &str) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(rec.block());
    let mut lines = text.lines();
    let mut fields = vec![("arc-header".to_owned(), header_line.to_owned())];
    if let Some(v) = lines.next() {
        fields.push(("arc-version-block".into(), v.trim().to_owned()));
    }
    if let Some(d) = lines.next() {
        fields.push(("arc-field-names".into(), d.trim().to_owned()));
    }
    // ARC 1.1: `<arc:software>…</arc:software>` and the like; the local name is the field's.
    for (tag, name) in [
        ("software", "arc-software"),
        ("hostname", "hostname"),
        ("ip", "ip"),
        ("operator", "operator"),
        ("isPartOf", "isPartOf"),
        ("description", "description"),
        ("http-header-user-agent", "http-header-user-agent"),
        ("http-header-from", "http-header-from"),
        ("robots", "robots"),
        ("date", "arc-date"),
    ] {
        if let Some(v) = xml_element(&text, tag) {
            fields.push((name.to_owned(), v));
        }
    }
    fields
}

/// The text of the first element whose local name is `local` (`<x:local …>text</x:local>`), trimmed;
/// `None` when there is none or it is empty.
fn xml_element(xml: &str, local: &str) -> Option<String> {
    let mut rest = xml;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt + 1..];
        let end = rest.find('>')?;
        let tag = &rest[..end];
        let name = tag.split_whitespace().next().unwrap_or_default();
        let this = name.rsplit(':').next().unwrap_or_default();
        if this == local && !name.starts_with('/') && !tag.ends_with('/') {
            let body = &rest[end + 1..];
            let text = body[..body.find('<').unwrap_or(body.len())].trim();
            return (!text.is_empty()).then(|| text.to_owned());
        }
        rest = &rest[end + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::ReadRecord;
    use crate::record;

    fn rec(line: &str, block: &[u8]) -> ReadRecord {
        let head = parse_line(line.as_bytes()).unwrap();
        ReadRecord {
            offset: 0,
            len: 0,
            index_len: 0,
            version: "ARC/1.0".into(),
            header: head.fields,
            block: block.to_vec(),
            compression: crate::Compression::None,
            raw_header: Vec::new(),
        }
    }

    #[test]
    fn header_lines() {
        type Fields = Option<[&'static str; 5]>;
        let cases: &[(&str, Fields, Option<u64>)] = &[
            (
                "http://example.com/ 93.184.216.119 20140216050221 text/html 1591\n",
                Some([
                    "http://example.com/",
                    "93.184.216.119",
                    "20140216050221",
                    "text/html",
                    "1591",
                ]),
                Some(1591),
            ),
            (
                "http://a/?q=Examples From The Web 1.2.3.4 20140216050221 text/html 5",
                Some([
                    "http://a/?q=Examples From The Web",
                    "1.2.3.4",
                    "20140216050221",
                    "text/html",
                    "5",
                ]),
                Some(5),
            ),
            (
                "http://a/ 1.2.3.4 201404010000000000 text/html abc\r\n",
                Some([
                    "http://a/",
                    "1.2.3.4",
                    "201404010000000000",
                    "text/html",
                    "abc",
                ]),
                None,
            ),
            (
                "dns:a.org 1.2.3.4 20080430204825 text/dns 56",
                Some(["dns:a.org", "1.2.3.4", "20080430204825", "text/dns", "56"]),
                Some(56),
            ),
            ("WARC/1.1", None, None),
            ("http://a/ 1.2.3.4 2014x text/html 5", None, None),
            ("no-scheme 1.2.3.4 20140101 text/html 5", None, None),
            ("http://a/ 20140101 text/html 5", None, None),
            ("", None, None),
        ];
        for (line, want, length) in cases {
            let got = parse_line(line.as_bytes());
            let values = got
                .as_ref()
                .map(|h| h.fields.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>());
            assert_eq!(values, want.map(|w| w.to_vec()), "{line}");
            assert_eq!(got.and_then(|h| h.length), *length, "{line}");
        }
    }

    #[test]
    fn warc_headers_of_arc_records() {
        let filedesc = rec(
            "filedesc://x.arc.gz 127.0.0.1 20140216050221 text/plain 20",
            b"1 0 Origin\nURL IP\n",
        );
        assert_eq!(
            warc_header(&filedesc),
            [
                ("WARC-Type", "warcinfo"),
                ("WARC-Filename", "x.arc.gz"),
                ("WARC-Date", "2014-02-16T05:02:21Z"),
                ("WARC-IP-Address", "127.0.0.1"),
                ("Content-Type", "text/plain"),
                ("Content-Length", "18"),
            ]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        let http = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n";
        let r = rec("http://a/b c 1.2.3.4 20140216050221 text/html 60", http);
        let h = warc_header(&r);
        let get = |n| record::get(&h, n).unwrap();
        assert_eq!(get("WARC-Target-URI"), "http://a/b%20c");
        assert_eq!(get("Content-Type"), "application/http;msgtype=response");
        assert_eq!(get("WARC-Payload-Digest"), sha1_digest(b"hi"));
        let dns = rec("dns:a.org 1.2.3.4 20080430204825 text/dns 3", b"x\n");
        let h = warc_header(&dns);
        assert_eq!(record::get(&h, "Content-Type"), Some("text/dns"));
        assert_eq!(
            record::get(&h, "WARC-Payload-Digest"),
            Some(sha1_digest(b"x\n").as_str())
        );
        assert_eq!(iso_date("201404010000000000"), "2014-04-01T00:00:00Z");
        assert_eq!(iso_date("2014"), "2014-01-01T00:00:00Z");
    }

    #[test]
    fn problems() {
        let ok = b"HTTP/1.0 200 OK\r\n\r\nhi";
        let cases: Vec<(ReadRecord, bool, Option<Problem>)> = vec![
            (
                rec("filedesc://x 0.0.0.0 20140216050221 text/plain 4", b"1 0 "),
                true,
                None,
            ),
            (
                rec("filedesc://x 0.0.0.0 20140216050221 text/plain 4", b"abcd"),
                true,
                Some(Problem::Version),
            ),
            (
                rec("http://a/ 1.2.3.4 20140216050221 text/html 21", ok),
                false,
                None,
            ),
            (
                rec("http://a/ 1.2.3.4 20140216050221 text/html 21", ok),
                true,
                Some(Problem::NoFiledesc("http://a/".into())),
            ),
            (
                rec("http://a/ 1.2.3.4 20140216050221 text/html -1", b""),
                false,
                Some(Problem::Length("-1".into())),
            ),
            (
                rec("http://a/ 1.2.3.4 201402160502210000 text/html 0", b""),
                false,
                Some(Problem::Date("201402160502210000".into())),
            ),
            (
                rec("http://a/ 1.2.3.4 20141316050221 text/html 0", b""),
                false,
                Some(Problem::Date("20141316050221".into())),
            ),
            (
                rec("http://a/ 1.2.3 20140216050221 text/html 0", b""),
                false,
                Some(Problem::Ip("1.2.3".into())),
            ),
            (
                rec("http://a/ 1.2.3.4 20140216050221 text/html 3", b"abc"),
                false,
                Some(Problem::HttpHead),
            ),
            (
                rec("dns:a 1.2.3.4 20140216050221 text/dns 3", b"abc"),
                false,
                None,
            ),
            (
                rec(
                    "http://radio.a/ 1.2.3.4 20140216050221 audio/mpeg 27",
                    b"ICY 200 OK\r\nicy-br: 128\r\n\r\n",
                ),
                false,
                None,
            ),
            (
                rec(
                    "http://a/ 1.2.3.4 20140216050221 text/html 9",
                    b"ICY 200\r\n",
                ),
                false,
                Some(Problem::HttpHead),
            ),
        ];
        for (i, (r, first, want)) in cases.into_iter().enumerate() {
            assert_eq!(problem(&r, first), want, "case {i}");
        }
    }

    #[test]
    fn later_header_lines() {
        let cases: &[(&[u8], Option<usize>)] = &[
            (
                b"HTTP/1.0 200 OK\r\n\r\nhi\n\nhttp://b/ 1.2.3.4 20140216050221 text/html 5\nhello",
                Some(23),
            ),
            (b"http://b/ 1.2.3.4 20140216050221 text/html 0\n", Some(0)),
            (b"x\ndns:b.org ::1 20140216050221 text/dns 3\n", Some(2)),
            (
                b"x\nfiledesc://a.arc 0.0.0.0 20140216050221 text/plain 70\n1 0 X\n",
                Some(2),
            ),
            // Not a header line: no newline after it, a date that is not one, no IP address, no length.
            (b"x\nhttp://b/ 1.2.3.4 20140216050221 text/html 5", None),
            (b"x\nhttp://b/ 1.2.3.4 20141316050221 text/html 5\n", None),
            (b"x\nsee: the list of 20140216050221 text/html 5\n", None),
            (
                b"x\nhttp://b/ 1.2.3.4 20140216050221 text/html five\n",
                None,
            ),
            (b"", None),
        ];
        for (content, want) in cases {
            assert_eq!(
                later_header_line(content),
                *want,
                "{}",
                String::from_utf8_lossy(content)
            );
        }
    }

    #[test]
    fn warcinfo_from_an_arc_1_1_description() {
        let block = b"1 1 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n\
            <?xml version=\"1.0\"?><arcmetadata xmlns:arc=\"x\"><arc:software>Heritrix 1.14</arc:software>\
            <arc:hostname>bb</arc:hostname><dc:description/><arc:robots>classic</arc:robots></arcmetadata>";
        let r = rec(
            &format!(
                "filedesc://x.arc 0.0.0.0 20080430204825 text/plain {}",
                block.len()
            ),
            block,
        );
        let fields = warcinfo_fields(&r, "filedesc://x.arc …");
        let names: Vec<_> = fields.iter().map(|(n, v)| format!("{n}={v}")).collect();
        assert_eq!(
            names,
            [
                "arc-header=filedesc://x.arc …",
                "arc-version-block=1 1 InternetArchive",
                "arc-field-names=URL IP-address Archive-date Content-type Archive-length",
                "arc-software=Heritrix 1.14",
                "hostname=bb",
                "robots=classic",
            ]
        );
    }
}
