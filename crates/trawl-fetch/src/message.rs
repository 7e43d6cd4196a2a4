//! Where the parts of a recorded HTTP/1.1 response end: its interim `1xx` heads, its final head, the message.
//!
//! The recorder keeps every byte the socket brought, and hyper reads ahead, so a recording can hold bytes
//! past the response: interim heads before it, and whatever a server sent after its message (junk after a
//! Content-Length body, a body after a `204`). The archive keeps the response message alone, as hyper framed
//! it. This reads the recording again for the two lengths hyper does not expose; it is written here rather
//! than taken from an HTTP library because the input is a recording, not a live connection.

use http::{HeaderMap, header};

/// Where the head starting at `at` ends (past its empty line: CRLF CRLF, or bare line feeds before it).
fn head_end(recorded: &[u8], at: usize) -> Option<usize> {
    let rest = &recorded[at..];
    let crlf = memchr::memmem::find(rest, b"\r\n\r\n").map(|i| i + 4);
    let head = &rest[..crlf.unwrap_or(rest.len())];
    let lf = memchr::memmem::find(head, b"\n\n").map(|i| i + 2);
    lf.or(crlf).map(|n| at + n)
}

/// Whether the head starting at `at` is an interim one: a `1xx` status other than `101 Switching Protocols`.
fn interim(recorded: &[u8], at: usize) -> bool {
    let status = recorded.get(at + 9..at + 12);
    status.is_some_and(|s| s[0] == b'1' && s != b"101")
}

/// Where the interim `1xx` heads before the final response end (0 when there are none), and where the final
/// head ends; `None` while a head is incomplete.
pub fn heads(recorded: &[u8]) -> Option<(usize, usize)> {
    let mut at = 0;
    loop {
        let end = head_end(recorded, at)?;
        if !interim(recorded, at) {
            return Some((at, end));
        }
        at = end;
    }
}

/// Where the response message ends in `recorded`, as its framing says: the final head alone for a `204`
/// or `304`, the last chunk and trailers of a chunked body, `Content-Length` bytes of body. `None` when the
/// body runs to the connection's close, or the framing cannot be read from the recording.
pub fn end(recorded: &[u8], status: u16, headers: &HeaderMap) -> Option<usize> {
    let (_, body_start) = heads(recorded)?;
    if status == 204 || status == 304 {
        return Some(body_start);
    }
    if let Some(codings) = headers.get(header::TRANSFER_ENCODING) {
        let last = codings.as_bytes().rsplit(|&b| b == b',').next()?;
        return match last.trim_ascii().eq_ignore_ascii_case(b"chunked") {
            true => chunked_len(&recorded[body_start..]).map(|n| body_start + n),
            false => None,
        };
    }
    let length: u64 = headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let end = u64::try_from(body_start).ok()?.checked_add(length)?;
    usize::try_from(end).ok()
}

/// The length of a complete chunked body at the start of `bytes`, through its last chunk and trailer
/// section; `None` when it is incomplete or a size line is not one. Bare line feeds are taken for CRLF, as
/// the archive's de-chunker takes them.
fn chunked_len(bytes: &[u8]) -> Option<usize> {
    let line_end = |at: usize| memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i + 1);
    let mut at = 0;
    loop {
        let next = line_end(at)?;
        let line = bytes[at..next].trim_ascii_end();
        let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        let size = std::str::from_utf8(&line[..digits]).ok()?;
        let size = usize::from_str_radix(size, 16).ok()?;
        at = next;
        if size == 0 {
            // Trailer fields up to an empty line.
            loop {
                let next = line_end(at)?;
                let empty = bytes[at..next].trim_ascii().is_empty();
                at = next;
                if empty {
                    return Some(at);
                }
            }
        }
        at = at.checked_add(size)?;
        match bytes.get(at..)? {
            [b'\r', b'\n', ..] => at += 2,
            [b'\n', ..] => at += 1,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    http::HeaderName::from_static(k),
                    http::HeaderValue::from_static(v),
                )
            })
            .collect()
    }

    #[test]
    fn interim_heads_come_before_the_final_one() {
        let r = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\nHTTP/1.1 200 OK\n\nbody";
        assert_eq!(heads(r), Some((64, 81)));
        assert_eq!(heads(b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nx"), Some((0, 25)));
        assert_eq!(heads(b"HTTP/1.1 101 Switching\r\n\r\nx"), Some((0, 26)));
        assert_eq!(heads(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"), None);
    }

    #[test]
    fn the_message_ends_where_its_framing_says() {
        let sized = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcJUNK";
        let cl = fields(&[("content-length", "3")]);
        assert_eq!(end(sized, 200, &cl), Some(41));
        let empty = b"HTTP/1.1 204 No Content\r\n\r\ntail";
        assert_eq!(end(empty, 204, &HeaderMap::new()), Some(27));
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=\"a;b\"\r\nabc\r\n0A\nabcdefghij\n0\r\nT: v\r\n\r\nJUNK";
        let te = fields(&[("transfer-encoding", "gzip, chunked")]);
        assert_eq!(end(chunked, 200, &te), Some(chunked.len() - 4));
        // To the close: no end to find.
        assert_eq!(
            end(b"HTTP/1.0 200 OK\r\n\r\nall", 200, &HeaderMap::new()),
            None
        );
        let cut = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab";
        assert_eq!(end(cut, 200, &te), None);
    }

    proptest::proptest! {
        #[test]
        fn chunked_bodies_of_any_chunks_are_measured(chunks in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 1..40), 0..6), junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..20)) {
            let mut body = Vec::new();
            for c in &chunks {
                body.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
                body.extend_from_slice(c);
                body.extend_from_slice(b"\r\n");
            }
            body.extend_from_slice(b"0\r\n\r\n");
            let len = body.len();
            body.extend_from_slice(&junk);
            proptest::prop_assert_eq!(chunked_len(&body), Some(len));
            // Never past the input, whatever it holds.
            proptest::prop_assert!(chunked_len(&junk).is_none_or(|n| n <= junk.len()));
        }
    }
}
