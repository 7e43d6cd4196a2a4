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

use crate::digest::{parse_head_ok, sha1_digest};

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
    /// Whether the record is alone in a gzip member or zstd frame, which so ends where its content does.
    fn framed_by_its_member(&self) -> bool {
        false
    }
}

/// The URL schemes of the ARC records crawlers wrote, lower case.
const SCHEMES: [&str; 12] = [
    "http", "https", "ftp", "dns", "filedesc", "whois", "rtsp", "mms", "gopher", "mailto", "news",
    "file",
];

/// Whether `url` begins with a scheme of [`SCHEMES`] (any case) and a colon.
pub(crate) fn has_known_scheme(url: &str) -> bool {
    url.split_once(':')
        .is_some_and(|(scheme, _)| SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme)))
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

/// Parses a header line of the fields `names` (the URL first, Archive-length last), split from the right;
/// where that split does not put an IP address second, the line is read by its address instead
/// ([`parse_anchored`]).
fn parse_fields(line: &[u8], names: &[&str]) -> Option<Head> {
    let text = crate::header::text(line);
    let text = text.trim_end();
    let split = parse_split(text, names);
    if split
        .as_ref()
        .is_some_and(|head| head.fields[1].1.parse::<IpAddr>().is_ok())
    {
        return split;
    }
    parse_anchored(text, names).or(split)
}

/// The line split from the right into `names.len()` fields, as warcio splits it: a URL holding spaces keeps
/// them.
fn parse_split(text: &str, names: &[&str]) -> Option<Head> {
    let mut parts: Vec<&str> = text.rsplitn(names.len(), ' ').collect();
    if parts.len() != names.len() {
        return None;
    }
    parts.reverse();
    head_of(names, parts)
}

/// The line read around its last IP address that a date of 12 to 14 digits follows (the URL, which may hold
/// spaces, comes first; review 64 R3): the URL is what comes before it, the fields after the content type are the last words, and the content type is what lies between, so
/// a content type with a space in it (`text/html; charset=utf-8`, written by some ARC producers; Heritrix
/// strips the parameters) or two spaces between fields do not end the file for want of a header line.
fn parse_anchored(text: &str, names: &[&str]) -> Option<Head> {
    let mut words = Vec::new();
    let mut at = 0;
    for word in text.split(' ') {
        if !word.is_empty() {
            words.push((at, word));
        }
        at += word.len() + 1;
    }
    // The fields after the content type, each one word.
    let after = names.len() - 4;
    let is_date = |w: &str| (12..=14).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit());
    let ip = (1..words.len()).rev().find(|&i| {
        words[i].1.parse::<IpAddr>().is_ok()
            && words.get(i + 1).is_some_and(|w| is_date(w.1))
            && words.len() >= i + 3 + after
    })?;
    let type_words = &words[ip + 2..words.len() - after];
    let (first, last) = (type_words.first()?, type_words.last()?);
    let mut parts = vec![
        text[..words[ip].0].trim_end(),
        words[ip].1,
        words[ip + 1].1,
        &text[first.0..last.0 + last.1.len()],
    ];
    parts.extend(words[words.len() - after..].iter().map(|w| w.1));
    head_of(names, parts)
}

/// The header of the fields `parts` under `names`, if its URL has a scheme and its date is digits.
fn head_of(names: &[&str], parts: Vec<&str>) -> Option<Head> {
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

/// An ARC date as a WARC-Date, read as [`lenient_date`] reads it, so that the index is cdxj-indexer's.
fn iso_date(arc_date: &str) -> String {
    lenient_date(arc_date)
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// An ARC date as a time, leniently as warcio reads it (`timestamp_to_datetime`): the first 14 characters,
/// each field clamped to its range, and a field that is missing or not a number at its greatest
/// (`200804302048` reads as 20:48:59, `201404` as April 30th, 23:59:59, month `13` as December).
pub(crate) fn lenient_date(arc_date: &str) -> DateTime<Utc> {
    let mut chars: Vec<char> = arc_date.chars().collect();
    for &c in "299912".as_bytes().get(chars.len()..).unwrap_or_default() {
        chars.push(char::from(c));
    }
    let field = |start: usize, end: usize, min: u32, max: u32| -> u32 {
        let Some(text) = chars.get(start..end) else {
            return max;
        };
        let text: String = text.iter().collect();
        match text.trim().parse::<i64>() {
            Ok(v) => u32::try_from(v.clamp(i64::from(min), i64::from(max))).unwrap_or(max),
            Err(_) => max,
        }
    };
    let year = field(0, 4, 1900, 2999);
    let month = field(4, 6, 1, 12);
    let year_i = i32::try_from(year).unwrap_or(2999);
    let days = chrono::NaiveDate::from_ymd_opt(year_i, month, 1)
        .and_then(|first| first.checked_add_months(chrono::Months::new(1)))
        .and_then(|next| next.pred_opt())
        .map_or(28, |last| chrono::Datelike::day(&last));
    let day = field(6, 8, 1, days);
    let (hour, minute, second) = (
        field(8, 10, 0, 23),
        field(10, 12, 0, 59),
        field(12, 14, 0, 59),
    );
    // Every field is clamped into its range, so the time exists; the epoch is never reached.
    chrono::NaiveDate::from_ymd_opt(year_i, month, day)
        .and_then(|d| d.and_hms_opt(hour, minute, second))
        .map(|t| t.and_utc())
        .unwrap_or_default()
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
    #[error(
        "Archive-length says {says} bytes, and {at} bytes into the content begins what reads as whole later \
         records (a header line and its content, to the end): the length is wrong and swallows the records \
         after it"
    )]
    Swallows { says: u64, at: usize },
    #[error(
        "Archive-length says {says} bytes, its {member} holds {has} after the header line (the newline ending \
         the record left out): the length is wrong; read as the {member} frames it",
        member = within.container()
    )]
    Framed {
        says: u64,
        has: usize,
        within: crate::Compression,
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
    let within = within.container();
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

/// Where `content` (a record whose length matched) holds whole later records: a line shaped like an ARC
/// header line at its start or after a newline, its content as long as that line says, and after it either
/// the end of `content` or a newline and another such record. An Archive-length that took in whole records
/// ends exactly there; a page that merely quotes a header line does not. `None` when it holds none.
pub(crate) fn swallowed_records(content: &[u8]) -> Option<usize> {
    let mut start = 0;
    while start < content.len() {
        let end = start + memchr::memchr(b'\n', &content[start..])?;
        if record_chain_ends(content, start) {
            return Some(start);
        }
        start = end + 1;
    }
    None
}

/// [`swallowed_records`] of a record whose length matched, unless a gzip member or zstd frame of its own
/// frames it (alone in it: a file compressed as one stream has all its records in one member, review 73 R8):
/// then content that reads as ARC records is content, a capture of an ARC file (xt25b F1).
pub(crate) fn swallowed_by(rec: &impl ArcRecord) -> Option<usize> {
    if rec.framed_by_its_member() {
        return None;
    }
    swallowed_records(rec.block())
}

/// Whether from `start` on `content` is nothing but ARC records (header line, content, newline between
/// them), the last ending at the end of `content` or one newline before it (a length that took in the
/// last record's separator too: xt19a F2).
fn record_chain_ends(content: &[u8], mut start: usize) -> bool {
    loop {
        let Some(end) = memchr::memchr(b'\n', &content[start..]).map(|n| start + n) else {
            return false;
        };
        let Some(length) = header_line_length(&content[start..=end]) else {
            return false;
        };
        let Some(next) = usize::try_from(length)
            .ok()
            .and_then(|l| (end + 1).checked_add(l))
        else {
            return false;
        };
        if next == content.len() {
            return true;
        }
        if next >= content.len() || content[next] != b'\n' {
            return false;
        }
        if next + 1 == content.len() {
            return true;
        }
        start = next + 1;
    }
}

/// Whether `line` (with its newline) is shaped like an ARC header line of a well-formed record.
fn looks_like_header_line(line: &[u8]) -> bool {
    header_line_length(line).is_some()
}

/// The Archive-length of `line` (with its newline) when it is shaped like an ARC header line of a
/// well-formed record: a URL, an IP address, a date of 14 digits, a type and a byte count.
fn header_line_length(line: &[u8]) -> Option<u64> {
    // Cheap tests first: a content's lines are mostly not header lines.
    if !line.first().is_some_and(u8::is_ascii_alphabetic)
        || line.iter().filter(|&&b| b == b' ').count() < 4
    {
        return None;
    }
    // A v1 line, or a v2 one (whose v1 reading takes its Offset for the date).
    [parse_line(line), parse_line_v2(line)]
        .into_iter()
        .flatten()
        .find_map(|head| {
            let field = |i: usize| head.fields[i].1.as_str();
            (date(field(2)).is_some() && field(1).parse::<IpAddr>().is_ok())
                .then_some(head.length)
                .flatten()
        })
}

/// What an ARC record can be checked for: its length a byte count that takes in no whole later record, a
/// `filedesc://` record first (`first`) with its version block, its date 14 digits of a real time, its IP
/// address one, and an HTTP response head at the start of an http(s) record's content. The first problem:
/// [`damage`], else the first of [`flaws`].
pub(crate) fn problem(rec: &impl ArcRecord, first: bool) -> Option<Problem> {
    damage(rec, first).or_else(|| flaws(rec).into_iter().next())
}

/// What makes an ARC record unsure to be the record it was written as: a length that is not a byte count,
/// runs past what holds it or took in later records, a `filedesc://` record without its version block, or a
/// first record that is not one.
pub(crate) fn damage(rec: &impl ArcRecord, first: bool) -> Option<Problem> {
    let length = rec.get("Archive-length").unwrap_or_default();
    match length.parse::<u64>() {
        Ok(says) if says == rec.block().len() as u64 => {
            if let Some(at) = swallowed_by(rec) {
                return Some(Problem::Swallows { says, at });
            }
        }
        // Its member frames it: the length is what is wrong (a flaw, xt25b F6), unless the content holds what
        // looks like a later record, which the length swallowed.
        Ok(_) if framed_short(rec).is_some() => {}
        Ok(says) if says > rec.block().len() as u64 => {
            return Some(Problem::Short {
                says,
                has: rec.block().len(),
                within: rec.compression(),
                swallows: later_header_line(rec.block()),
            });
        }
        _ => return Some(Problem::Length(length.to_owned())),
    }
    if is_filedesc(rec) {
        return version(rec.block()).is_none().then_some(Problem::Version);
    }
    first.then(|| Problem::NoFiledesc(rec.get("URL").unwrap_or_default().to_owned()))
}

/// Whether `rec` is a plain record cut short by the end of the file, its content there converted as it is
/// (`WARC-Truncated`): not when that content holds what looks like a later record's header line, nor in a
/// gzip member or zstd frame that ends before the length (the member is whole: the length is wrong).
pub(crate) fn cut_short(problem: Option<&Problem>) -> bool {
    matches!(
        problem,
        Some(Problem::Short {
            within: crate::Compression::None,
            swallows: None,
            ..
        })
    )
}

/// What is wrong with a whole ARC record's fields or content, each of which `convert` can write anyway: an
/// Archive-date that is not 14 digits of a real time ([`Problem::Date`]: read as warcio reads it), an
/// IP-address that is not one ([`Problem::Ip`]: left out), an http(s) record's content without an HTTP
/// response head ([`Problem::HttpHead`], an HTTP/0.9 answer: a `resource` record).
pub(crate) fn flaws(rec: &impl ArcRecord) -> Vec<Problem> {
    let field = |name| rec.get(name).unwrap_or_default();
    let mut flaws: Vec<Problem> = framed_short(rec).into_iter().collect();
    let arc_date = field("Archive-date");
    if date(arc_date).is_none() {
        flaws.push(Problem::Date(arc_date.to_owned()));
    }
    let ip = field("IP-address");
    if ip.parse::<IpAddr>().is_err() {
        flaws.push(Problem::Ip(ip.to_owned()));
    }
    let block = rec.block();
    if !is_filedesc(rec) && is_http(field("URL")) && !parse_head_ok(block) && !icy_head(block) {
        flaws.push(Problem::HttpHead);
    }
    flaws
}

/// The [`Problem::Framed`] of a record its gzip member (or zstd frame) frames whose Archive-length disagrees
/// with it (the reader took the member's content, `Reader`'s `frame_by_member`); `None` for any other.
fn framed_short(rec: &impl ArcRecord) -> Option<Problem> {
    let says = rec.get("Archive-length")?.parse::<u64>().ok()?;
    let has = rec.block().len();
    (rec.framed_by_its_member()
        && says != has as u64
        && (says < has as u64 || later_header_line(rec.block()).is_none()))
    .then_some(Problem::Framed {
        says,
        has,
        within: rec.compression(),
    })
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

/// The text of the first element whose local name is `local` (`<x:local …>text</x:local>`), its references
/// (`&amp;`, `&#233;`) resolved and its CDATA sections taken as written, trimmed; `None` when there is none or
/// it is empty. Read with quick-xml from the first `<` of `xml` (the description follows the ARC's own lines).
fn xml_element(xml: &str, local: &str) -> Option<String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(&xml[xml.find('<')?..]);
    // How deep inside the element the reader is, once in it.
    let mut inside: Option<usize> = None;
    let mut text = String::new();
    loop {
        match (reader.read_event(), inside) {
            (Ok(Event::Start(_)), Some(depth)) => inside = Some(depth + 1),
            (Ok(Event::Start(e)), None) if e.local_name().as_ref() == local => {
                inside = Some(0);
            }
            (Ok(Event::End(_)), Some(0)) => break,
            (Ok(Event::End(_)), Some(depth)) => inside = Some(depth - 1),
            (Ok(Event::Text(t)), Some(_)) => text.push_str(t.as_ref()),
            (Ok(Event::CData(t)), Some(_)) => text.push_str(t.as_ref()),
            (Ok(Event::GeneralRef(r)), Some(_)) => text.extend(trawl_extract::resolve_xml_ref(&r)),
            (Ok(Event::Eof) | Err(_), _) => break,
            _ => {}
        }
    }
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// The WARC-Target-URI `trawl warc convert` writes for an ARC record with URL field `url` and header line
/// `raw_header` (see [`warc_target`]): what a revisit of its payload names, so that it resolves in the
/// converted WARC as in the ARC.
pub(crate) fn warc_target_uri(url: &str, raw_header: &[u8]) -> String {
    let url = target_uri(url);
    // A header line that is not UTF-8 was read as latin-1: each character past ASCII is one byte of it.
    let latin1 = std::str::from_utf8(raw_header).is_err();
    warc_target(&url, latin1)
}

/// An ARC URL as a WARC-Target-URI that replay tools read: its scheme in lower case (warcio reads an HTTP
/// head only under `http:` and `https:`, so `HTTP://` replayed as nothing), control characters and
/// characters past ASCII percent-encoded (pywb refuses a header field that is not latin-1, and verify
/// refuses a control byte), everything else as the ARC wrote it. The escapes are of the bytes the ARC holds:
/// of each character's UTF-8 when its line was UTF-8, else (`latin1`) of the one byte each character was
/// read from, as a server that sent `caf%E9` meant.
pub(crate) fn warc_target(url: &str, latin1: bool) -> String {
    let (scheme, rest) = match url.split_once(':') {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => (String::new(), url),
    };
    let mut out = String::with_capacity(url.len() + 8);
    if !scheme.is_empty() || url.starts_with(':') {
        out.push_str(&scheme);
        out.push(':');
    }
    let mut utf8 = [0u8; 4];
    for c in rest.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            out.push(c);
        } else if let Some(b) = latin1.then(|| u8::try_from(c).ok()).flatten() {
            out.push_str(&format!("%{b:02X}"));
        } else {
            for b in c.encode_utf8(&mut utf8).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
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
            in_member: 0,
            alone_in_member: true,
            raw_header: Vec::new(),
            member_end: crate::MemberEnd::Whole,
            unsealed: false,
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
            (
                "http://a/ct 1.2.3.4 20140216050221 text/html; charset=utf-8 65\n",
                Some([
                    "http://a/ct",
                    "1.2.3.4",
                    "20140216050221",
                    "text/html; charset=utf-8",
                    "65",
                ]),
                Some(65),
            ),
            (
                "http://a/b c  1.2.3.4  20140216050221 text/html  65",
                Some([
                    "http://a/b c",
                    "1.2.3.4",
                    "20140216050221",
                    "text/html",
                    "65",
                ]),
                Some(65),
            ),
            (
                "http://a/q?h= 10.0.0.1 80 x 10.0.0.2 20140216050221 text/html; charset=utf-8 65",
                Some([
                    "http://a/q?h= 10.0.0.1 80 x",
                    "10.0.0.2",
                    "20140216050221",
                    "text/html; charset=utf-8",
                    "65",
                ]),
                Some(65),
            ),
            ("WARC/1.1", None, None),
            ("http://x 1.2.3.4 200 GET /a 5", None, None),
            ("http://a/ 1.2.3.4 20140216050221 65", None, None),
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
        // warcio's readings (its timeutils doctests, and cdxj-indexer's index of such ARC records).
        for (arc_date, want) in [
            ("201404010000000000", "2014-04-01T00:00:00Z"),
            ("200804302048", "2008-04-30T20:48:59Z"),
            ("2014122609501", "2014-12-26T09:50:59Z"),
            ("201412260", "2014-12-26T23:59:59Z"),
            ("201410", "2014-10-31T23:59:59Z"),
            ("2014", "2014-12-31T23:59:59Z"),
            ("20", "2099-12-31T23:59:59Z"),
            ("", "2999-12-31T23:59:59Z"),
            ("20131709005601", "2013-12-09T00:56:01Z"),
            ("40001965252477", "2999-12-31T23:24:59Z"),
            ("2010abc", "2010-12-31T23:59:59Z"),
        ] {
            assert_eq!(iso_date(arc_date), want, "{arc_date}");
        }
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
            // An empty http record has no head either (xt19a F3): a resource record once converted.
            (
                rec("http://a/ 1.2.3.4 20140216050221 text/html 0", b""),
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

    /// An Archive-length that ends on a record boundary after taking in whole later records fails the
    /// record; a page quoting a header line, or one whose quoted length runs past the content, does not.
    #[test]
    fn whole_records_swallowed_by_a_length() {
        let two = b"http://b/ 1.2.3.4 20140216050221 text/plain 5\nhello";
        let head = b"HTTP/1.0 200 OK\r\n\r\nhi\n";
        let mut swallowing = head.to_vec();
        swallowing.extend_from_slice(two);
        let mut three = swallowing.clone();
        three.extend_from_slice(b"\ndns:c ::1 20140216050221 text/dns 2\nab");
        // The length took in the last record's separating newline too (xt19a F2).
        let mut with_newline = swallowing.clone();
        with_newline.push(b'\n');
        let line = |n: usize| format!("http://a/ 1.2.3.4 20140216050221 text/html {n}");
        for content in [&swallowing, &three, &with_newline] {
            assert_eq!(swallowed_records(content), Some(head.len()));
            assert_eq!(
                problem(&rec(&line(content.len()), content), false),
                Some(Problem::Swallows {
                    says: content.len() as u64,
                    at: head.len()
                })
            );
        }
        let mut quoted = swallowing.clone();
        quoted.extend_from_slice(b" and more");
        let mut past = head.to_vec();
        past.extend_from_slice(b"http://b/ 1.2.3.4 20140216050221 text/plain 50\nhello");
        for content in [&quoted, &past] {
            assert_eq!(swallowed_records(content), None);
            assert_eq!(problem(&rec(&line(content.len()), content), false), None);
        }
    }

    proptest::proptest! {
        /// Whole ARC records appended to any content that ends in a newline are found where they begin, and
        /// the scan never panics on any bytes.
        #[test]
        fn swallowed_records_are_found(
            before in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..100),
        ) {
            let _ = swallowed_records(&before);
            let mut content: Vec<u8> = before.iter().map(|&b| if b == b'\n' { b' ' } else { b }).collect();
            content.push(b'\n');
            let at = content.len();
            content.extend_from_slice(format!("http://b/ 1.2.3.4 20140216050221 x/y {}\n", body.len()).as_bytes());
            content.extend_from_slice(&body);
            proptest::prop_assert_eq!(swallowed_records(&content), Some(at));
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

    /// Escapes in an ARC 1.1 description are resolved and a CDATA value kept, as an XML reader reads them.
    #[test]
    fn xml_description_values_are_unescaped() {
        let xml = "1 1 X\nURL IP\n<?xml version=\"1.0\"?><arcmetadata xmlns:arc=\"x\">\
            <arc:operator>Library &amp; Archives</arc:operator>\
            <dcterms:isPartOf>Election 2008: &lt;federal&gt; &#233;</dcterms:isPartOf>\
            <dc:description><![CDATA[multi <line>\n description]]></dc:description></arcmetadata>";
        assert_eq!(
            xml_element(xml, "operator").as_deref(),
            Some("Library & Archives")
        );
        assert_eq!(
            xml_element(xml, "isPartOf").as_deref(),
            Some("Election 2008: <federal> \u{e9}")
        );
        assert_eq!(
            xml_element(xml, "description").as_deref(),
            Some("multi <line>\n description")
        );
        assert_eq!(xml_element(xml, "robots"), None);
    }

    proptest::proptest! {
        /// Any text, escaped as XML escapes it, reads back as itself (trimmed); any input reads without a panic.
        #[test]
        fn xml_values_round_trip(value in "[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f]{0,40}", junk in ".{0,80}") {
            let _ = xml_element(&junk, "operator");
            let escaped = value.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
            let xml = format!("1 1 X\n<r xmlns:arc=\"x\"><arc:operator>{escaped}</arc:operator></r>");
            let want = value.trim();
            let got = xml_element(&xml, "operator");
            proptest::prop_assert_eq!(got.as_deref(), (!want.is_empty()).then_some(want));
        }

        /// A well-formed 14-digit ARC date reads as itself; any text reads as some time in the years ARC dates
        /// can hold, without a panic.
        #[test]
        fn lenient_dates_read_sound_dates_as_they_are(secs in -2_208_988_800i64..32_503_680_000, junk in ".{0,20}") {
            let t = DateTime::from_timestamp(secs, 0).unwrap();
            let stamp = t.format("%Y%m%d%H%M%S").to_string();
            proptest::prop_assert_eq!(lenient_date(&stamp), t);
            let year = chrono::Datelike::year(&lenient_date(&junk));
            proptest::prop_assert!((1900..=2999).contains(&year), "{junk:?}: {year}");
        }
    }
}
