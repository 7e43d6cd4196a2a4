//! The `warcinfo` record that opens each WARC file.

use chrono::Utc;

use super::{Record, warc_fields};

impl Record {
    /// A `warcinfo` record describing the file `filename`, dated now, with WARC-Filename set and the
    /// `application/warc-fields` block `Name: value` lines of `fields`.
    pub fn warcinfo(filename: &str, fields: &[(&str, &str)]) -> Record {
        let mut rec = Record::base(
            "warcinfo",
            Utc::now(),
            None,
            "application/warc-fields",
            warc_fields(fields),
        );
        rec.set("WARC-Filename", filename);
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warcinfo_fields() {
        let rec = Record::warcinfo(
            "a.warc.gz",
            &[("software", "trawl"), ("format", "WARC File Format 1.1")],
        );
        let cases = [
            ("WARC-Type", "warcinfo"),
            ("WARC-Filename", "a.warc.gz"),
            ("Content-Type", "application/warc-fields"),
            ("Content-Length", "47"),
        ];
        for (name, want) in cases {
            assert_eq!(rec.get(name), Some(want), "{name}");
        }
        assert_eq!(
            rec.block(),
            b"software: trawl\r\nformat: WARC File Format 1.1\r\n"
        );
        assert_eq!(rec.get("WARC-Target-URI"), None);
    }
}
