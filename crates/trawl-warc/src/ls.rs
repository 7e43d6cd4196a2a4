//! [`ls_line`]: a one-line summary of a record, for `trawl warc ls`.

use crate::reader::ReadRecord;

/// One tab-separated line describing `rec`: offset, WARC-Type, WARC-Target-URI, Content-Type,
/// Content-Length and WARC-Record-ID, with `-` for a missing field. An ARC record shows the WARC fields it
/// stands for (no record id).
pub fn ls_line(rec: &ReadRecord) -> String {
    let header = rec.warc_header();
    let field = |name| {
        crate::record::get(&header, name)
            .filter(|v| !v.is_empty())
            .map_or_else(
                || "-".to_owned(),
                // A control character (a tab above all) would break the columns.
                |v| v.replace(|c: char| c.is_control(), " "),
            )
    };
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}",
        rec.offset,
        field("WARC-Type"),
        field("WARC-Target-URI"),
        field("Content-Type"),
        field("Content-Length"),
        field("WARC-Record-ID"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(offset: u64, fields: &[(&str, &str)]) -> ReadRecord {
        ReadRecord {
            offset,
            len: 0,
            index_len: 0,
            version: "WARC/1.1".into(),
            header: fields
                .iter()
                .map(|(n, v)| ((*n).into(), (*v).into()))
                .collect(),
            block: Vec::new(),
            compression: crate::Compression::None,
            in_member: 0,
            alone_in_member: true,
            raw_header: Vec::new(),
            member_end: crate::MemberEnd::Whole,
            unsealed: false,
        }
    }

    #[test]
    fn lines() {
        let cases = [
            (
                rec(
                    0,
                    &[
                        ("WARC-Type", "warcinfo"),
                        ("Content-Type", "application/warc-fields"),
                        ("Content-Length", "10"),
                        ("WARC-Record-ID", "<urn:uuid:1>"),
                    ],
                ),
                "0\twarcinfo\t-\tapplication/warc-fields\t10\t<urn:uuid:1>",
            ),
            (
                rec(
                    123,
                    &[
                        ("WARC-Type", "response"),
                        ("WARC-Target-URI", "http://a/\tb\u{1}c"),
                        ("Content-Type", "application/http; msgtype=response"),
                        ("Content-Length", "5"),
                        ("WARC-Record-ID", "<urn:uuid:2>"),
                    ],
                ),
                "123\tresponse\thttp://a/ b c\tapplication/http; msgtype=response\t5\t<urn:uuid:2>",
            ),
            (rec(7, &[]), "7\t-\t-\t-\t-\t-"),
        ];
        for (rec, want) in cases {
            assert_eq!(ls_line(&rec), want);
        }
    }
}
