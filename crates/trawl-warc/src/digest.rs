//! Block and payload digests: `sha1:` + RFC 4648 base32 of SHA-1.
//!
//! The payload digest covers the HTTP *entity body*: the bytes after the HTTP header block, with chunked
//! transfer coding removed but any Content-Encoding (gzip, br, ...) kept, as WARC 1.1 says and as
//! Heritrix and jwarc do.

use std::borrow::Cow;

use data_encoding::{BASE32, BASE32_NOPAD, BASE64_NOPAD, BASE64URL_NOPAD, HEXLOWER_PERMISSIVE};
use sha1::{Digest, Sha1};

use crate::chunked;

/// Parses the HTTP head at the start of `http` with `parse`, given room for its fields: a few on the stack,
/// which most heads fit, else one per line of the head on the heap. Every field is read whatever their number
/// (`fetch.max_headers` may let a crawl archive heads with any), so a long head is indexed and digested
/// like a short one.
pub(crate) fn with_fields<'h, R>(
    http: &'h [u8],
    mut parse: impl FnMut(&mut [httparse::Header<'h>]) -> Result<R, httparse::Error>,
) -> Result<R, httparse::Error> {
    let mut few = [httparse::EMPTY_HEADER; 32];
    match parse(&mut few) {
        Err(httparse::Error::TooManyHeaders) => {
            parse(&mut vec![httparse::EMPTY_HEADER; head_lines(http)])
        }
        parsed => parsed,
    }
}

/// How many lines the head at the start of `http` has (through its empty line, or the whole of `http`):
/// more than it has fields.
fn head_lines(http: &[u8]) -> usize {
    let end = memchr::memmem::find(http, b"\n\r\n")
        .into_iter()
        .chain(memchr::memmem::find(http, b"\n\n"))
        .min()
        .unwrap_or(http.len());
    memchr::memchr_iter(b'\n', &http[..end]).count() + 1
}

/// `sha1:` followed by the base32 SHA-1 of `bytes`, the form of WARC-Block-Digest and WARC-Payload-Digest.
pub fn sha1_digest(bytes: &[u8]) -> String {
    let mut digest = String::with_capacity(37);
    digest.push_str("sha1:");
    BASE32.encode_append(&Sha1::digest(bytes), &mut digest);
    digest
}

/// A SHA-1 digest written in any usual way (`sha1:` or `SHA1:` or bare; base32 in any case, or hex) as
/// `sha1:BASE32`, the form trawl writes and compares; `None` for anything else.
pub fn sha1_key(value: &str) -> Option<String> {
    let v = value.trim();
    let bare = match v.split_once(':') {
        Some((algo, rest))
            if algo.eq_ignore_ascii_case("sha1") || algo.eq_ignore_ascii_case("sha-1") =>
        {
            rest
        }
        Some(_) => return None,
        None => v,
    };
    if bare.len() != 40 && bare.trim_end_matches('=').len() != 32 {
        return None;
    }
    decode_digest(bare, 20).map(|d| format!("sha1:{}", BASE32.encode(&d)))
}

/// The WARC-Payload-Digest of a recorded HTTP message, or `None` if its head cannot be parsed.
pub(crate) fn payload_digest(http: &[u8]) -> Option<String> {
    entity_body(http).map(|body| sha1_digest(&body))
}

/// Whether a digest header value matches `bytes`: `sha1`, `sha256`, `sha512` or `md5` (`SHA-1` and the
/// like too), its value in base32, hex or base64, as warcio reads them. `None` when the algorithm is not
/// one we can compute.
pub(crate) fn digest_matches(value: &str, bytes: &[u8]) -> Option<bool> {
    let (algo, encoded) = value.trim().split_once(':')?;
    let want = compute(algo, bytes)?;
    Some(decode_digest(encoded.trim(), want.len()).as_deref() == Some(want.as_slice()))
}

/// The digest of `bytes` written as the header value `value` is (its algorithm, and base32, hex or base64 as
/// it uses), to show beside a value that does not match. `None` for an algorithm we cannot compute.
pub(crate) fn digest_like(value: &str, bytes: &[u8]) -> Option<String> {
    let (algo, encoded) = value.trim().split_once(':')?;
    let d = compute(algo, bytes)?;
    let encoded = encoded.trim();
    let text = if encoded.len() == d.len() * 2 && encoded.bytes().all(|b| b.is_ascii_hexdigit()) {
        data_encoding::HEXLOWER.encode(&d)
    } else if encoded.trim_end_matches('=').len() == (d.len() * 8).div_ceil(5) {
        if encoded.ends_with('=') {
            BASE32.encode(&d)
        } else {
            BASE32_NOPAD.encode(&d)
        }
    } else if encoded.contains(['-', '_']) {
        BASE64URL_NOPAD.encode(&d)
    } else {
        data_encoding::BASE64.encode(&d)
    };
    Some(format!("{algo}:{text}"))
}

/// The digest of `bytes` in the algorithm a header names (`sha1`, `SHA-256`, ...), if we have it.
fn compute(algo: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    Some(match algo.to_ascii_lowercase().replace('-', "").as_str() {
        "sha1" => Sha1::digest(bytes).to_vec(),
        "sha256" => sha2::Sha256::digest(bytes).to_vec(),
        "sha512" => sha2::Sha512::digest(bytes).to_vec(),
        "md5" => md5::Md5::digest(bytes).to_vec(),
        _ => return None,
    })
}

/// The bytes of a digest value of `len` bytes written in base32 (any case, padded or not), hex or base64.
fn decode_digest(encoded: &str, len: usize) -> Option<Vec<u8>> {
    let unpadded = encoded.trim_end_matches('=');
    // Each encoding the value's shape allows, in turn: a padded base32 MD5 is as long as a hex one (xt32a F2).
    let hex = || {
        (encoded.len() == len * 2)
            .then(|| HEXLOWER_PERMISSIVE.decode(encoded.as_bytes()).ok())
            .flatten()
    };
    let base32 = || {
        (unpadded.len() == (len * 8).div_ceil(5))
            .then(|| {
                BASE32_NOPAD
                    .decode(unpadded.to_ascii_uppercase().as_bytes())
                    .ok()
            })
            .flatten()
    };
    let base64 = || {
        let encoding = if encoded.contains(['-', '_']) {
            &BASE64URL_NOPAD
        } else {
            &BASE64_NOPAD
        };
        encoding.decode(unpadded.as_bytes()).ok()
    };
    hex()
        .or_else(base32)
        .or_else(base64)
        .filter(|d| d.len() == len)
}

/// The bytes after the HTTP head of a recorded message, transfer coding kept (`None` when the head does not
/// parse): what some producers digested instead of the entity body.
pub(crate) fn raw_body(http: &[u8]) -> Option<&[u8]> {
    head_len(http).map(|n| &http[n..])
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
    let first = *http_header_lines(http, name).first()?;
    Some(String::from_utf8_lossy(first).trim().to_owned())
}

/// Every field line of header `name` in the recorded HTTP response head at the start of `http`, in order, as
/// raw bytes (a repeated field such as `Content-Encoding` is read whole).
pub(crate) fn http_header_lines<'h>(http: &'h [u8], name: &str) -> Vec<&'h [u8]> {
    with_fields(http, |headers| {
        let mut resp = httparse::Response::new(headers);
        resp.parse(http)?;
        Ok(resp
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
            .collect())
    })
    .unwrap_or_default()
}

/// Whether `http` begins with a complete HTTP response head.
pub(crate) fn parse_head_ok(http: &[u8]) -> bool {
    http.starts_with(b"HTTP/") && parse_head(http).is_some()
}

/// Whether `http`, an HTTP response as recorded, has a chunked body cut before the end of its last chunk and
/// trailer section: a Content-Length short by a few bytes leaves one so (review 79 M3). Not a response without
/// a body (1xx, 204, 304), nor one with no chunk at all or one that does not de-chunk (review 80 H2).
pub(crate) fn chunked_body_unended(http: &[u8]) -> bool {
    parse_head(http).is_some_and(|head| {
        let body = &http[head.len..];
        !head.interim
            && head.chunked
            && !matches!(head.code, Some(204 | 304))
            && !body.is_empty()
            && crate::chunked::dechunk(body).end == crate::chunked::End::Truncated
    })
}

/// What we need from an HTTP head.
struct Head {
    /// Bytes up to and including the empty line.
    len: usize,
    /// Whether the body is chunked.
    chunked: bool,
    /// A 1xx response (other than 101) that a final response follows.
    interim: bool,
    /// A response's status code.
    code: Option<u16>,
}

/// The head at the start of `http`, after any empty lines before its start line: hyper skips them (as
/// RFC 9112 §2.2 has a recipient do), so the entity body crawl.log digested is found here too.
fn parse_head(http: &[u8]) -> Option<Head> {
    let skip = http
        .iter()
        .take_while(|&&b| b == b'\r' || b == b'\n')
        .count();
    let rest = &http[skip..];
    let mut head = with_fields(rest, |headers| parse_head_into(rest, headers)).ok()??;
    head.len += skip;
    Some(head)
}

/// [`parse_head`] with room for `headers.len()` fields: `Ok(None)` for an incomplete head.
fn parse_head_into<'h>(
    http: &'h [u8],
    headers: &mut [httparse::Header<'h>],
) -> Result<Option<Head>, httparse::Error> {
    let mut config = httparse::ParserConfig::default();
    config
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true)
        .allow_multiple_spaces_in_request_line_delimiters(true)
        .allow_space_before_first_header_name(true)
        .ignore_invalid_headers_in_responses(true)
        .ignore_invalid_headers_in_requests(true);
    let (len, fields, interim, code) = if http.starts_with(b"HTTP/") {
        let mut resp = httparse::Response::new(headers);
        let httparse::Status::Complete(len) = config.parse_response(&mut resp, http)? else {
            return Ok(None);
        };
        let interim = matches!(resp.code, Some(code) if (100..200).contains(&code) && code != 101);
        (len, resp.headers, interim, resp.code)
    } else {
        let mut req = httparse::Request::new(headers);
        let httparse::Status::Complete(len) = config.parse_request(&mut req, http)? else {
            return Ok(None);
        };
        (len, req.headers, false, None)
    };
    let chunked = fields
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|h| h.value.split(|&b| b == b','))
        .map(|coding| coding.trim_ascii())
        .rfind(|coding| !coding.is_empty())
        .is_some_and(|coding| coding.eq_ignore_ascii_case(b"chunked"));
    Ok(Some(Head {
        len,
        chunked,
        interim,
        code,
    }))
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
            // Empty lines before the status line are skipped, as hyper skips them.
            (b"\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", Some(b"hello")),
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
    fn heads_with_many_fields_are_read_whole() {
        for fields in [31, 32, 33, 200, 512, 3000] {
            let mut http = b"HTTP/1.1 200 OK\r\n".to_vec();
            for i in 0..fields - 1 {
                http.extend_from_slice(format!("X-Field-{i}: {i}\r\n").as_bytes());
            }
            http.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n");
            assert_eq!(entity_body(&http).as_deref(), Some(&b"hi"[..]), "{fields}");
            assert_eq!(
                http_header(&http, "transfer-encoding").as_deref(),
                Some("chunked")
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
            ("sha256:abc", b"", Some(false)),
            (
                "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                b"",
                Some(true),
            ),
            (
                "SHA-256:4OYMIQUY7QOBJGX36TEJS35ZEQT24QPEMSNZGTFESWMRW6CSXBKQ====",
                b"",
                Some(true),
            ),
            (
                "sha256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
                b"",
                Some(true),
            ),
            ("md5:d41d8cd98f00b204e9800998ecf8427e", b"", Some(true)),
            ("md5:1B2M2Y8AsgTpgAmY7PhCfg==", b"", Some(true)),
            ("md5:d41d8cd98f00b204e9800998ecf8427f", b"", Some(false)),
            // Padded base32, as long as hex (xt32a F2).
            ("md5:2QOYZWMPACZAJ2MABGMOZ6CCPY======", b"", Some(true)),
            ("md5:2QOYZWMPACZAJ2MABGMOZ6CCPA======", b"", Some(false)),
            ("sha1:2jmj7l5rSw0yVb_vlWAYkK_YBwk", b"", Some(true)),
            ("crc32:00000000", b"", None),
            ("nocolon", b"", None),
        ];
        for (value, bytes, want) in cases {
            assert_eq!(digest_matches(value, bytes), *want, "{value}");
        }
    }
}
