//! [`ls_line`]: a one-line summary of a record, for `trawl warc ls`.

use crate::reader::ReadRecord;

/// One tab-separated line describing `rec`: offset, WARC-Type, WARC-Target-URI, Content-Type,
/// Content-Length and WARC-Record-ID, with `-` for a missing field. An ARC record shows the WARC record
/// `trawl warc convert` writes of it (no record id): its URL as the converted WARC-Target-URI, and an http
/// record without an HTTP head (an HTTP/0.9 answer, an empty one) as a `resource` of the ARC's type (xt36b F9).
pub fn ls_line(rec: &ReadRecord) -> String {
    let mut header = rec.warc_header();
    if rec.is_arc() && !crate::arc::is_filedesc(rec) {
        let url = rec.get("URL").unwrap_or_default();
        let target = crate::arc::warc_target_uri(url, &rec.raw_header);
        // A record cut short inside its head stays a response, as convert writes it (xt45a F1).
        let resource = crate::arc::flaws(rec).contains(&crate::arc::Problem::HttpHead)
            && !crate::arc::cut_short(crate::arc::damage(rec, false).as_ref());
        let arc_type = rec.get("Content-type").unwrap_or_default().to_owned();
        for (name, value) in header.to_mut() {
            match name.as_str() {
                "WARC-Target-URI" => *value = target.clone(),
                "WARC-Type" if resource => *value = "resource".to_owned(),
                "Content-Type" if resource => value.clone_from(&arc_type),
                _ => {}
            }
        }
    }
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

    /// An ARC record, listed as `convert` writes it (xt36b F9).
    fn arc(line: &str, block: &[u8]) -> ReadRecord {
        let parts: Vec<&str> = line.rsplitn(4, ' ').collect();
        let (url, ip) = parts[3].rsplit_once(' ').unwrap();
        let fields = [
            ("URL", url),
            ("IP-address", ip),
            ("Archive-date", parts[2]),
            ("Content-type", parts[1]),
            ("Archive-length", parts[0]),
        ];
        ReadRecord {
            version: "ARC/1.0".into(),
            block: block.to_vec(),
            raw_header: line.as_bytes().to_vec(),
            ..rec(9, &fields)
        }
    }

    #[test]
    fn an_arc_record_is_listed_as_convert_writes_it() {
        let http = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
        let line = ls_line(&arc(
            "HTTP://a.org/x y 1.2.3.4 20140216050221 text/html 40",
            http,
        ));
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols[1..3], ["response", "http://a.org/x%20y"], "{line}");
        let empty = ls_line(&arc(
            "http://a.org/e 1.2.3.4 20140216050221 text/html 0",
            b"",
        ));
        let cols: Vec<&str> = empty.split('\t').collect();
        assert_eq!(
            cols[1..4],
            ["resource", "http://a.org/e", "text/html"],
            "{empty}"
        );
        // Cut short by the file's end inside its head: a response, as convert writes it (xt45a F1).
        let cut = ls_line(&arc(
            "http://a.org/c 1.2.3.4 20140216050221 text/html 113",
            b"HTTP/1.1 301 Moved\r\nLocat",
        ));
        let cols: Vec<&str> = cut.split('\t').collect();
        assert_eq!(cols[1..3], ["response", "http://a.org/c"], "{cut}");
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
