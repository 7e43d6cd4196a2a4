//! [`Record`]: a WARC record to write, as ordered header fields plus a block.
//!
//! The constructors for each record type live in the submodules; this file holds the shared shape:
//! header access, the fields every record carries, and serialization.

use bytes::Bytes;
use chrono::{DateTime, SecondsFormat, Utc};

use crate::digest::sha1_digest;

mod metadata;
mod request;
mod resource;
mod response;
pub(crate) mod revisit;
mod warcinfo;

/// The version line this crate writes.
pub(crate) const VERSION: &str = "WARC/1.1";

/// A WARC record ready to write: named header fields in order, plus the block bytes.
///
/// The constructors ([`Record::warcinfo`], [`Record::request`], [`Record::response`],
/// [`Record::metadata`]) fill WARC-Type, WARC-Record-ID, WARC-Date, Content-Type, Content-Length and
/// WARC-Block-Digest (and WARC-Payload-Digest for HTTP records); [`Record::set`] adds the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    header: Vec<(String, String)>,
    /// Shared, not copied: a response's block is the fetcher's recording of it.
    block: Bytes,
}

impl Record {
    /// A record of `warc_type` with a fresh `<urn:uuid:v4>` id, the given date and target,
    /// `content_type`, and the block's digest and length.
    pub(crate) fn base(
        warc_type: &str,
        date: DateTime<Utc>,
        target_uri: Option<&str>,
        content_type: &str,
        block: impl Into<Bytes>,
    ) -> Record {
        let block = block.into();
        let mut header = vec![
            ("WARC-Type".to_owned(), warc_type.to_owned()),
            ("WARC-Record-ID".to_owned(), new_record_id()),
            ("WARC-Date".to_owned(), format_date(date)),
        ];
        if let Some(uri) = target_uri {
            header.push(("WARC-Target-URI".to_owned(), uri.to_owned()));
        }
        header.push(("Content-Type".to_owned(), content_type.to_owned()));
        header.push(("WARC-Block-Digest".to_owned(), sha1_digest(&block)));
        header.push(("Content-Length".to_owned(), block.len().to_string()));
        Record { header, block }
    }

    /// Adds header field `name`, or replaces the value of the first field of that name (compared
    /// case-insensitively). Use it for WARC-Concurrent-To, WARC-Truncated, WARC-Warcinfo-ID and the
    /// like. Content-Length and WARC-Block-Digest are computed from the block: don't set them.
    pub fn set(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        let value = value.into();
        match self
            .header
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some((_, v)) => *v = value,
            None => self.header.push((name.to_owned(), value)),
        }
        self
    }

    /// Adds header field `name` after those there, even when one of that name exists (`WARC-Protocol` and
    /// `WARC-Concurrent-To` may repeat).
    pub fn add(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        self.header.push((name.to_owned(), value.into()));
        self
    }

    /// Removes every header field called `name` (case-insensitive).
    pub fn remove(&mut self, name: &str) -> &mut Self {
        self.header.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// The value of the first header field called `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        get(&self.header, name)
    }

    /// The record's WARC-Record-ID, `<urn:uuid:...>` with the angle brackets.
    pub fn id(&self) -> &str {
        self.get("WARC-Record-ID").unwrap_or_default()
    }

    /// The header fields in order.
    pub fn header(&self) -> &[(String, String)] {
        &self.header
    }

    /// The block: the bytes after the header, e.g. the recorded HTTP message.
    pub fn block(&self) -> &[u8] {
        &self.block
    }

    /// The record as bytes: `WARC/1.1\r\n`, the header fields, `\r\n`, the block, `\r\n\r\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_to(&mut out, &[]);
        out
    }

    /// Appends the record to `out`, adding each field of `extra` that the record does not already have.
    pub(crate) fn write_to(&self, out: &mut Vec<u8>, extra: &[(&str, &str)]) {
        let mut head = String::with_capacity(256);
        head.push_str(VERSION);
        head.push_str("\r\n");
        let added = extra.iter().filter(|(name, _)| self.get(name).is_none());
        for (name, value) in self
            .header
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .chain(added.copied())
        {
            for part in [name, ": ", value, "\r\n"] {
                head.push_str(part);
            }
        }
        head.push_str("\r\n");
        out.reserve(head.len() + self.block.len() + 4);
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(&self.block);
        out.extend_from_slice(b"\r\n\r\n");
    }
}

/// The first value of `name` in `header`, compared case-insensitively.
pub(crate) fn get<'a>(header: &'a [(String, String)], name: &str) -> Option<&'a str> {
    header
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A fresh WARC-Record-ID: `<urn:uuid:...>` with a random (v4) UUID.
pub(crate) fn new_record_id() -> String {
    let mut buf = uuid::Uuid::encode_buffer();
    let uuid = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buf);
    let mut id = String::with_capacity(uuid.len() + 11);
    id.push_str("<urn:uuid:");
    id.push_str(uuid);
    id.push('>');
    id
}

/// A WARC-Date: UTC with a `Z`, to the second, or to the microsecond when the time has a fraction.
pub fn format_date(date: DateTime<Utc>) -> String {
    let format = if date.timestamp_subsec_micros() == 0 {
        SecondsFormat::Secs
    } else {
        SecondsFormat::Micros
    };
    date.to_rfc3339_opts(format, true)
}

/// A 14-digit CDX/ARC timestamp (`YYYYMMDDhhmmss`) as a WARC-Date (`YYYY-MM-DDThh:mm:ssZ`); `None` unless
/// `ts` is exactly 14 ASCII digits of a real time (xt15a F6: `20141345999999` became a revisit's date).
pub fn timestamp14_to_warc_date(ts: &str) -> Option<String> {
    let d = ts.as_bytes();
    if d.len() != 14 || !d.iter().all(u8::is_ascii_digit) || !real_time(d) {
        return None;
    }
    Some(format!(
        "{}-{}-{}T{}:{}:{}Z",
        &ts[..4],
        &ts[4..6],
        &ts[6..8],
        &ts[8..10],
        &ts[10..12],
        &ts[12..14]
    ))
}

/// Whether 14 ASCII digits (`YYYYMMDDhhmmss`) name a real time.
fn real_time(d: &[u8]) -> bool {
    let n = |from: usize, to: usize| {
        d[from..to]
            .iter()
            .fold(0u32, |n, c| n * 10 + u32::from(c.wrapping_sub(b'0')))
    };
    n(0, 4) > 0
        && chrono::NaiveDate::from_ymd_opt(n(0, 4) as i32, n(4, 6), n(6, 8)).is_some()
        && chrono::NaiveTime::from_hms_opt(n(8, 10), n(10, 12), n(12, 14)).is_some()
}

/// A WARC-Date as a 14-digit timestamp (`YYYYMMDDhhmmss`, UTC), as an index and a revisit's
/// WARC-Refers-To-Date need it: an ISO 8601 date with an offset is taken to UTC, one of reduced precision
/// (`2010-01-01`, `2010-01-01T00:00Z`) is read as warcio reads it (what is left out at its least), fractions of a
/// second are dropped, and 14 bare digits are a timestamp already. `None` for anything that is not a real time
/// (xt15a F7: the date's digits were taken as they came, `2010`, `20101345999999`, or none at all).
pub fn warc_date_timestamp(date: &str) -> Option<String> {
    let date = date.trim();
    // The form trawl and most producers write (`2026-11-22T08:25:01Z`), read without a parser: the crawl
    // indexes every response it writes.
    let b = date.as_bytes();
    if b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z'
    {
        let stamp: String = [
            &date[..4],
            &date[5..7],
            &date[8..10],
            &date[11..13],
            &date[14..16],
            &date[17..19],
        ]
        .concat();
        if stamp.bytes().all(|c| c.is_ascii_digit()) {
            return real_time(stamp.as_bytes()).then_some(stamp);
        }
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(date) {
        // Four digits of year, and no leap second: what a 14-digit timestamp can say (xt15c F6).
        let stamp = t.with_timezone(&Utc).format("%Y%m%d%H%M%S").to_string();
        return (stamp.len() == 14
            && stamp.bytes().all(|b| b.is_ascii_digit())
            && real_time(stamp.as_bytes()))
        .then_some(stamp);
    }
    if date.len() == 14 {
        return timestamp14_to_warc_date(date).map(|_| date.to_owned());
    }
    // warcio splits on every non-digit: year, month, day, then hours, minutes, seconds as far as given.
    let fields: Vec<&str> = date.split(|c: char| !c.is_ascii_digit()).collect();
    let fields = match fields.split_last() {
        Some((last, rest)) if last.is_empty() && date.ends_with('Z') => rest,
        _ => &fields[..],
    };
    if !(3..=6).contains(&fields.len()) || fields.iter().any(|f| f.is_empty()) {
        return None;
    }
    let number = |i: usize, width: usize| match fields.get(i) {
        Some(f) if f.len() == width => f.parse::<u32>().ok(),
        Some(_) => None,
        None => Some(0),
    };
    let day = chrono::NaiveDate::from_ymd_opt(
        i32::try_from(number(0, 4)?).ok()?,
        number(1, 2)?,
        number(2, 2)?,
    )?;
    let time = chrono::NaiveTime::from_hms_opt(number(3, 2)?, number(4, 2)?, number(5, 2)?)?;
    let stamp = day.and_time(time).format("%Y%m%d%H%M%S").to_string();
    real_time(stamp.as_bytes()).then_some(stamp)
}

/// An `application/warc-fields` block: one `Name: value\r\n` line per field.
pub(crate) fn warc_fields<N: AsRef<str>, V: AsRef<str>>(fields: &[(N, V)]) -> Vec<u8> {
    let mut block = WarcFields::new();
    for (name, value) in fields {
        block.push(name.as_ref(), &[value.as_ref()]);
    }
    block.into_bytes()
}

/// An `application/warc-fields` block built line by line, each value from parts written straight into it (a
/// metadata record's outlinks are "URL hop context": no string is formatted per link first).
#[derive(Debug, Clone, Default)]
pub struct WarcFields {
    block: String,
}

impl WarcFields {
    /// An empty block.
    pub fn new() -> WarcFields {
        WarcFields::default()
    }

    /// Appends the field `name` whose value is `parts` joined by single spaces. Line breaks inside the value
    /// would start a new field: they are folded into spaces.
    pub fn push(&mut self, name: &str, parts: &[&str]) -> &mut WarcFields {
        let out = &mut self.block;
        out.push_str(name);
        out.push_str(": ");
        let start = out.len();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(part);
        }
        // A byte search: a metadata record pushes a field per outlink, and `str::contains` with a char
        // pattern walks the value a char at a time.
        if memchr::memchr2(b'\r', b'\n', &out.as_bytes()[start..]).is_some() {
            let folded = out[start..].replace(['\r', '\n'], " ");
            out.replace_range(start.., &folded);
        }
        out.push_str("\r\n");
        self
    }

    /// The block's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.block.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    #[test]
    fn timestamps_as_warc_dates() {
        assert_eq!(
            timestamp14_to_warc_date("20140216050221").as_deref(),
            Some("2014-02-16T05:02:21Z")
        );
        for bad in [
            "",
            "2014",
            "201402160502210",
            "2014021605022x",
            "２０１４０２１６０５０２",
        ] {
            assert_eq!(timestamp14_to_warc_date(bad), None, "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn any_timestamp_converts_without_panic(ts in "\\PC{0,20}") {
            let date = timestamp14_to_warc_date(&ts);
            prop_assert!(date.is_none() || (ts.len() == 14 && ts.bytes().all(|b| b.is_ascii_digit())));
            // Any text is read as a WARC-Date without a panic, and gives 14 digits or nothing.
            let stamp = warc_date_timestamp(&ts);
            prop_assert!(stamp.is_none_or(|s| s.len() == 14 && s.bytes().all(|b| b.is_ascii_digit())));
        }

        #[test]
        fn digit_timestamps_keep_their_digits(
            ts in "(19[7-9][0-9]|20[0-9]{2})(0[1-9]|1[0-2])(0[1-9]|1[0-9]|2[0-8])([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9]"
        ) {
            let date = timestamp14_to_warc_date(&ts).unwrap();
            prop_assert_eq!(date.replace(['-', 'T', ':', 'Z'], ""), ts.clone());
            prop_assert_eq!(warc_date_timestamp(&date), Some(ts));
        }
    }

    /// A WARC-Date as an index's timestamp: taken to UTC, reduced precision read as warcio reads it, and a
    /// time that is none refused (xt15a F6, F7: the digits were taken as they came).
    #[test]
    fn warc_dates_as_timestamps() {
        for (date, stamp) in [
            ("2010-01-01T00:00:01Z", Some("20100101000001")),
            ("2010-01-01T00:00:01.123456Z", Some("20100101000001")),
            ("2010-01-01T00:00:01+02:00", Some("20091231220001")),
            ("2010-01-01", Some("20100101000000")),
            ("2010-01-01T00:00Z", Some("20100101000000")),
            ("20100101000001", Some("20100101000001")),
            ("2010", None),
            // Beyond four digits of year, year 0, a leap second (xt15c F6).
            ("+10000-01-01T00:59:59Z", None),
            ("0000-12-31T23:00:00Z", None),
            ("0000-12-31", None),
            ("2016-12-31T23:59:60Z", None),
            ("2010-13-45T99:99:99Z", None),
            ("20101345999999", None),
            ("garbage", None),
            ("", None),
        ] {
            assert_eq!(warc_date_timestamp(date).as_deref(), stamp, "{date:?}");
        }
        assert_eq!(timestamp14_to_warc_date("20141345999999"), None);
        assert_eq!(timestamp14_to_warc_date("00000000000000"), None);
    }

    #[test]
    fn dates() {
        let cases = [
            (
                Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap(),
                "2026-11-22T08:25:01Z",
            ),
            (
                Utc.timestamp_opt(1_795_336_701, 123_456_789).unwrap(),
                "2026-11-22T08:38:21.123456Z",
            ),
            (Utc.timestamp_opt(0, 999).unwrap(), "1970-01-01T00:00:00Z"),
        ];
        for (date, want) in cases {
            assert_eq!(format_date(date), want);
        }
    }

    #[test]
    fn set_get_and_serialize() {
        let date = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        let mut rec = Record::base(
            "resource",
            date,
            Some("http://a/"),
            "text/plain",
            b"hi".to_vec(),
        );
        rec.set("warc-type", "conversion").set("X-Extra", "1");
        assert_eq!(rec.get("WARC-TYPE"), Some("conversion"));
        assert_eq!(rec.get("x-extra"), Some("1"));
        assert_eq!(rec.get("Nope"), None);
        let uuid = rec
            .id()
            .strip_prefix("<urn:uuid:")
            .unwrap()
            .strip_suffix('>');
        let uuid = uuid::Uuid::parse_str(uuid.unwrap()).unwrap();
        assert_eq!(uuid.get_version_num(), 4);
        assert_eq!(rec.id(), format!("<urn:uuid:{uuid}>"));
        let text = String::from_utf8(rec.to_bytes()).unwrap();
        let want = format!(
            "WARC/1.1\r\nWARC-Type: conversion\r\nWARC-Record-ID: {}\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n\
             WARC-Target-URI: http://a/\r\nContent-Type: text/plain\r\n\
             WARC-Block-Digest: {}\r\nContent-Length: 2\r\nX-Extra: 1\r\n\r\nhi\r\n\r\n",
            rec.id(),
            sha1_digest(b"hi")
        );
        assert_eq!(text, want);
    }

    #[test]
    fn extra_fields_do_not_override() {
        let date = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        let mut rec = Record::base("resource", date, None, "text/plain", Vec::new());
        rec.set("WARC-Warcinfo-ID", "<urn:uuid:mine>");
        let mut out = Vec::new();
        rec.write_to(
            &mut out,
            &[("WARC-Warcinfo-ID", "<urn:uuid:other>"), ("A", "b")],
        );
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("WARC-Warcinfo-ID: <urn:uuid:mine>\r\n"));
        assert!(!text.contains("other"));
        assert!(text.contains("A: b\r\n\r\n\r\n\r\n"));
    }

    #[test]
    fn warc_fields_blocks() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[], ""),
            (&[("software", "trawl")], "software: trawl\r\n"),
            (&[("a", "1"), ("b", "x\r\ny")], "a: 1\r\nb: x  y\r\n"),
        ];
        for (fields, want) in cases {
            assert_eq!(warc_fields(fields), want.as_bytes());
        }
    }

    #[test]
    fn warc_fields_from_parts() {
        let mut block = WarcFields::new();
        block
            .push("outlink", &["http://a/b", "L", "a/@href"])
            .push("x", &["1\n2", "3"])
            .push("empty", &[]);
        assert_eq!(
            block.into_bytes(),
            b"outlink: http://a/b L a/@href\r\nx: 1 2 3\r\nempty: \r\n"
        );
    }
}
