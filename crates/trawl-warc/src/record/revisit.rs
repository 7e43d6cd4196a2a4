//! `revisit` records (WARC 1.1 §6.7): a capture whose payload is already in the archive, written as its HTTP
//! head only, pointing at the record that holds the payload.

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use super::Record;
use crate::digest;

/// WARC 1.1's profile for a payload identical to an earlier capture's.
pub const IDENTICAL_PAYLOAD_DIGEST: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
/// WARC 1.1's profile for a server's `304 Not Modified` to a conditional request.
pub const SERVER_NOT_MODIFIED: &str = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

/// The earlier capture a revisit points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefersTo {
    /// Its WARC-Target-URI.
    pub target_uri: String,
    /// Its WARC-Date, as written there.
    pub date: String,
    /// Its WARC-Record-ID, when known (an index from another tool may not give it).
    pub record_id: Option<String>,
}

impl Record {
    /// A `revisit` record of `target_uri` whose HTTP response `http_bytes` carried the payload with digest
    /// `payload_digest`, already archived as `refers_to`: only the HTTP head is kept, as the `profile` allows
    /// ([`IDENTICAL_PAYLOAD_DIGEST`] or [`SERVER_NOT_MODIFIED`]).
    pub fn revisit(
        target_uri: &str,
        date: DateTime<Utc>,
        ip: Option<IpAddr>,
        http_bytes: &[u8],
        profile: &str,
        payload_digest: &str,
        refers_to: &RefersTo,
    ) -> Record {
        let head_len = digest::head_len(http_bytes).unwrap_or(http_bytes.len());
        let mut rec = Record::base(
            "revisit",
            date,
            Some(target_uri),
            "application/http;msgtype=response",
            http_bytes[..head_len].to_vec(),
        );
        if let Some(ip) = ip {
            rec.set("WARC-IP-Address", ip.to_string());
        }
        rec.set("WARC-Profile", profile);
        rec.set("WARC-Refers-To-Target-URI", refers_to.target_uri.clone());
        rec.set("WARC-Refers-To-Date", refers_to.date.clone());
        if let Some(id) = &refers_to.record_id {
            rec.set("WARC-Refers-To", id.clone());
        }
        rec.set("WARC-Payload-Digest", payload_digest);
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_and_points_back() {
        let http = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        let r = Record::revisit(
            "http://a.org/2",
            Utc::now(),
            None,
            http,
            IDENTICAL_PAYLOAD_DIGEST,
            "sha1:X",
            &RefersTo {
                target_uri: "http://a.org/1".into(),
                date: "2026-11-25T00:00:00Z".into(),
                record_id: Some("<urn:uuid:1>".into()),
            },
        );
        assert_eq!(r.block(), b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
        assert_eq!(r.get("WARC-Type"), Some("revisit"));
        assert_eq!(r.get("WARC-Refers-To"), Some("<urn:uuid:1>"));
        assert_eq!(r.get("WARC-Payload-Digest"), Some("sha1:X"));
        assert_eq!(r.get("WARC-Profile"), Some(IDENTICAL_PAYLOAD_DIGEST));
    }
}
