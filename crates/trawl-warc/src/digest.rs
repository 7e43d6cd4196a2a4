//! Block and payload digests: `sha1:` + RFC 4648 base32 of SHA-1.
//!
//! The payload digest covers the HTTP *entity body*: the bytes after the HTTP header block, with chunked
//! transfer coding removed but any Content-Encoding (gzip, br, ...) kept, as WARC 1.1 says and as
//! Heritrix and jwarc do.

use std::borrow::Cow;

use data_encoding::{BASE32, HEXLOWER_PERMISSIVE};
use sha1::{Digest, Sha1};

use crate::chunked;

/// The most header fields we look at in an HTTP head before giving up on it.
const MAX_HTTP_HEADERS: usize = 512;

/// `sha1:` followed by the base32 SHA-1 of `bytes`, the form of WARC-Block-Digest and WARC-Payload-Digest.
pub fn sha1_digest(bytes: &[u8]) -> String {
    format!("sha1:{}", BASE32.encode(&Sha1::digest(bytes)))
}

/// The WARC-Payload-Digest of a recorded HTTP message, or `None` if its head cannot be parsed.
pub(crate) fn payload_digest(http: &[u8]) -> Option<String> {
    entity_body(http).map(|body| sha1_digest(&body))
}

/// Whether a digest header value (`sha1:BASE32`, or `sha1:` with 40 hex digits) matches `bytes`.
/// `None` when the algorithm is not one we can compute.
pub(crate) fn digest_matches(value: &str, bytes: &[u8]) -> Option<bool> {
    let (algo, encoded) = value.trim().split_once(':')?;
    if !algo.eq_ignore_ascii_case("sha1") {
        return None;
    }
    let want = Sha1::digest(bytes);
    let got = if encoded.len() == 40 {
        HEXLOWER_PERMISSIVE.decode(encoded.as_bytes()).ok()
    } else {
        BASE32.decode(encoded.to_ascii_uppercase().as_bytes()).ok()
    };
    Some(got.as_deref() == Some(want.as_slice()))
}

/// The entity body of a recorded HTTP request or response: the bytes after the head, de-chunked when
/// the last Transfer-Encoding is `chunked`. `None` when the head cannot be parsed (for example when it
/// was truncated). Interim `1xx` responses before the final one are skipped.
pub(crate) fn entity_body(http: &[u8]) -> Option<Cow<'_, [u8]>> {
    let mut rest = http;
    loop {
        let head = parse_head(rest)?;
        let body = &rest[head.len..];
        if head.interim {
            rest = body;
            continue;
        }
        return Some(if head.chunked {
            Cow::Owned(chunked::dechunk(body).body)
        } else {
            Cow::Borrowed(body)
        });
    }
}

/// The length of the HTTP head (through its empty line) at the start of `http`, interim `1xx` heads included.
pub(crate) fn head_len(http: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let head = parse_head(&http[at..])?;
        at += head.len;
        if !head.interim {
            return Some(at);
        }
    }
}

/// The value of header `name` in the recorded HTTP response head at the start of `http` (the first one; case
/// of the name ignored).
pub fn http_header(http: &[u8], name: &str) -> Option<String> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HTTP_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    resp.parse(http).ok()?;
    resp.headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| String::from_utf8_lossy(h.value).trim().to_owned())
}

/// What we need from an HTTP head.
struct Head {
    /// Bytes up to and including the empty line.
    len: usize,
    /// Whether the body is chunked.
    chunked: bool,
    /// A 1xx response (other than 101) that a final response follows.
    interim: bool,
}

fn parse_head(http: &[u8]) -> Option<Head> {
    let mut headers = vec![httparse::EMPTY_HEADER; MAX_HTTP_HEADERS];
    let mut config = httparse::ParserConfig::default();
    config
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true)
        .allow_multiple_spaces_in_request_line_delimiters(true)
        .allow_space_before_first_header_name(true)
        .ignore_invalid_headers_in_responses(true)
        .ignore_invalid_headers_in_requests(true);
    let (len, fields, interim) = if http.starts_with(b"HTTP/") {
        let mut resp = httparse::Response::new(&mut headers);
        let httparse::Status::Complete(len) = config.parse_response(&mut resp, http).ok()? else {
            return None;
        };
        let interim = matches!(resp.code, Some(code) if (100..200).contains(&code) && code != 101);
        (len, resp.headers, interim)
    } else {
        let mut req = httparse::Request::new(&mut headers);
        let httparse::Status::Complete(len) = config.parse_request(&mut req, http).ok()? else {
            return None;
        };
        (len, req.headers, false)
    };
    let chunked = fields
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|h| h.value.split(|&b| b == b','))
        .map(|coding| coding.trim_ascii())
        .rfind(|coding| !coding.is_empty())
        .is_some_and(|coding| coding.eq_ignore_ascii_case(b"chunked"));
    Some(Head {
        len,
        chunked,
        interim,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY_SHA1: &str = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ";

    #[test]
    fn sha1_of_known_inputs() {
        assert_eq!(sha1_digest(b""), EMPTY_SHA1);
        assert_eq!(
            sha1_digest(b"hello"),
            "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N"
        );
    }

    #[test]
    fn entity_bodies() {
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", Some(b"hello")),
            (b"HTTP/1.1 204 No Content\r\n\r\n", Some(b"")),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\n\r\n",
                Some(b"hello"),
            ),
            (
                b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\n2\r\n\x1f\x8b\r\n0\r\n\r\n",
                Some(b"\x1f\x8b"),
            ),
            // Chunked and truncated: what de-chunks.
            (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nhel", Some(b"hel")),
            // Content-Encoding is kept.
            (
                b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8bzz",
                Some(b"\x1f\x8bzz"),
            ),
            // Odd headers are tolerated.
            (b"HTTP/1.1  200 OK\r\nX Bad : 1\r\nA: b\r\n c\r\n\r\nok", Some(b"ok")),
            // Interim response skipped.
            (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nbody", Some(b"body")),
            (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", Some(b"")),
            (b"POST /f HTTP/1.1\r\nHost: a\r\n\r\nq=1", Some(b"q=1")),
            // Heads that cannot be parsed.
            (b"HTTP/1.1 200 OK\r\nContent-Len", None),
            (b"", None),
            (b"\x00\x01garbage\r\n\r\n", None),
        ];
        for (http, want) in cases {
            assert_eq!(
                entity_body(http).as_deref(),
                *want,
                "{}",
                http.escape_ascii()
            );
        }
    }

    #[test]
    fn digest_values() {
        let cases: &[(&str, &[u8], Option<bool>)] = &[
            (EMPTY_SHA1, b"", Some(true)),
            ("SHA1:3i42h3s6nnfq2msvx7xzkyayscx5qbyj", b"", Some(true)),
            (
                "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709",
                b"",
                Some(true),
            ),
            (EMPTY_SHA1, b"x", Some(false)),
            ("sha1:not base32!", b"", Some(false)),
            ("sha256:abc", b"", None),
            ("nocolon", b"", None),
        ];
        for (value, bytes, want) in cases {
            assert_eq!(digest_matches(value, bytes), *want, "{value}");
        }
    }
}
