//! The `metadata` record: facts about a capture, such as its outlinks or fetch timing.

use chrono::{DateTime, Utc};

use super::{Record, WarcFields, warc_fields};

impl Record {
    /// A `metadata` record about `target_uri` with an `application/warc-fields` block of `fields`.
    /// Link it to its response with `set("WARC-Concurrent-To", response.id())`.
    pub fn metadata(target_uri: &str, date: DateTime<Utc>, fields: &[(&str, &str)]) -> Record {
        Record::metadata_block(target_uri, date, warc_fields(fields))
    }

    /// [`Record::metadata`] with a block built as [`WarcFields`].
    pub fn metadata_fields(target_uri: &str, date: DateTime<Utc>, fields: WarcFields) -> Record {
        Record::metadata_block(target_uri, date, fields.into_bytes())
    }

    fn metadata_block(target_uri: &str, date: DateTime<Utc>, block: Vec<u8>) -> Record {
        Record::base(
            "metadata",
            date,
            Some(target_uri),
            "application/warc-fields",
            block,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn metadata_fields() {
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let rec = Record::metadata("http://a/", date, &[("outlink", "http://b/ L a/@href")]);
        let cases = [
            ("WARC-Type", Some("metadata")),
            ("WARC-Target-URI", Some("http://a/")),
            ("WARC-Date", Some("2026-11-22T08:25:01Z")),
            ("Content-Type", Some("application/warc-fields")),
            ("WARC-Payload-Digest", None),
        ];
        for (name, want) in cases {
            assert_eq!(rec.get(name), want, "{name}");
        }
        assert_eq!(rec.block(), b"outlink: http://b/ L a/@href\r\n");
    }
}
