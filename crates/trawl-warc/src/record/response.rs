//! The `response` record: the HTTP response as received.

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use super::Record;
use crate::digest::payload_digest;

impl Record {
    /// A `response` record holding the HTTP response bytes `http_bytes` exactly as received from
    /// `target_uri` (at `ip`, if known), possibly truncated (then also `set("WARC-Truncated", "length")`).
    /// WARC-Payload-Digest covers the de-chunked entity body; it is left out if the head can't be parsed.
    pub fn response(
        target_uri: &str,
        date: DateTime<Utc>,
        ip: Option<IpAddr>,
        http_bytes: impl Into<bytes::Bytes>,
    ) -> Record {
        let http_bytes = http_bytes.into();
        let payload = payload_digest(&http_bytes);
        let mut rec = Record::base(
            "response",
            date,
            Some(target_uri),
            "application/http;msgtype=response",
            http_bytes,
        );
        add_http_fields(&mut rec, ip, payload);
        rec
    }
}

impl Record {
    /// The `response` record of a DNS lookup (`dns:HOST`), as Heritrix writes it: `text/dns`, the block the
    /// lookup's time and its answers in zone-file form.
    pub fn dns_response(host: &str, date: DateTime<Utc>, zone_text: &str) -> Record {
        Record::base(
            "response",
            date,
            Some(&format!("dns:{host}")),
            "text/dns",
            zone_text.as_bytes().to_vec(),
        )
    }
}

/// Adds WARC-IP-Address and WARC-Payload-Digest, when known.
pub(super) fn add_http_fields(rec: &mut Record, ip: Option<IpAddr>, payload: Option<String>) {
    if let Some(ip) = ip {
        rec.set("WARC-IP-Address", ip.to_string());
    }
    if let Some(payload) = payload {
        rec.set("WARC-Payload-Digest", payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha1_digest;
    use chrono::TimeZone;

    #[test]
    fn response_fields() {
        let date = Utc.with_ymd_and_hms(2026, 11, 22, 8, 25, 1).unwrap();
        let ip: IpAddr = "2001:db8::1".parse().unwrap();
        let cases: &[(&[u8], Option<String>)] = &[
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
                Some(sha1_digest(b"hi")),
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
                Some(sha1_digest(b"hi")),
            ),
            (b"HTTP/1.1 204 No Content\r\n\r\n", Some(sha1_digest(b""))),
            (b"HTTP/1.1 200 OK\r\nServer: trunc", None),
        ];
        for (http, payload) in cases {
            let rec = Record::response("http://a/", date, Some(ip), http.to_vec());
            assert_eq!(rec.get("WARC-Type"), Some("response"));
            assert_eq!(
                rec.get("Content-Type"),
                Some("application/http;msgtype=response")
            );
            assert_eq!(rec.get("WARC-Payload-Digest"), payload.as_deref());
            assert_eq!(rec.get("WARC-IP-Address"), Some("2001:db8::1"));
            assert_eq!(
                rec.get("Content-Length"),
                Some(http.len().to_string().as_str())
            );
        }
    }
}
