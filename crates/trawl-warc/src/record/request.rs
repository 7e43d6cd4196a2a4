//! The `request` record: the HTTP request as sent.

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use super::Record;
use crate::digest::{entity_body, sha1_digest};

impl Record {
    /// A `request` record holding the HTTP request bytes `http_bytes` exactly as sent to `target_uri`
    /// (at `ip`, if known). WARC-Payload-Digest is set when the request has a non-empty body.
    pub fn request(
        target_uri: &str,
        date: DateTime<Utc>,
        ip: Option<IpAddr>,
        http_bytes: impl Into<bytes::Bytes>,
    ) -> Record {
        let http_bytes = http_bytes.into();
        let payload = entity_body(&http_bytes)
            .filter(|body| !body.is_empty())
            .map(|body| sha1_digest(&body));
        let mut rec = Record::base(
            "request",
            date,
            Some(target_uri),
            "application/http;msgtype=request",
            http_bytes,
        );
        super::response::add_http_fields(&mut rec, ip, payload);
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn request_fields() {
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let cases: &[(&[u8], Option<IpAddr>, Option<String>)] = &[
            (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", Some(ip), None),
            (
                b"POST / HTTP/1.1\r\nHost: a\r\n\r\nq=1",
                None,
                Some(sha1_digest(b"q=1")),
            ),
            (b"garbage", None, None),
        ];
        for (http, ip, payload) in cases {
            let rec = Record::request("http://a/", date, *ip, http.to_vec());
            assert_eq!(rec.get("WARC-Type"), Some("request"));
            assert_eq!(
                rec.get("Content-Type"),
                Some("application/http;msgtype=request")
            );
            assert_eq!(rec.get("WARC-Payload-Digest"), payload.as_deref());
            assert_eq!(
                rec.get("WARC-IP-Address"),
                ip.map(|i| i.to_string()).as_deref()
            );
            assert_eq!(
                rec.get("WARC-Block-Digest"),
                Some(sha1_digest(http).as_str())
            );
        }
    }
}
