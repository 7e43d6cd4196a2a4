//! Where the parts of a recorded HTTP/1.1 response end: its interim `1xx` heads, its final head, the message.
//!
//! The recorder keeps every byte the socket brought, and hyper reads ahead, so a recording can hold bytes
//! past the response: interim heads before it, and whatever a server sent after its message (junk after a
//! Content-Length body, a body after a `204`). The archive keeps the response message alone, as hyper framed
//! it, and a body cut at `fetch.max_bytes` no further than that. This reads the recording again for the
//! lengths hyper does not expose; it is written here rather
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

/// Where the status line of a head from `at` starts: past empty lines before it, which HTTP/1.1 parsers
/// (hyper's too) pass over.
fn head_start(recorded: &[u8], mut at: usize) -> usize {
    loop {
        match recorded.get(at..) {
            Some([b'\r', b'\n', ..]) => at += 2,
            Some([b'\n', ..]) => at += 1,
            _ => return at,
        }
    }
}

/// Whether the head whose status line starts at `at` is an interim one: an `HTTP/1.x 1xx` status other than
/// `101 Switching Protocols` (review 85 R3: a body's bytes after a blank line before the status line were read
/// as a final head).
fn interim(recorded: &[u8], at: usize) -> bool {
    let Some(head) = recorded.get(at..) else {
        return false;
    };
    let status = head.get(9..12);
    head.starts_with(b"HTTP/1.") && status.is_some_and(|s| s[0] == b'1' && s != b"101")
}

/// Where the interim `1xx` heads before the final response end (0 when there are none), and where the final
/// head ends; `None` while a head is incomplete.
pub fn heads(recorded: &[u8]) -> Option<(usize, usize)> {
    let mut at = 0;
    loop {
        let start = head_start(recorded, at);
        let end = head_end(recorded, start)?;
        if !interim(recorded, start) {
            return Some((at, end));
        }
        at = end;
    }
}

/// The interim `1xx` heads at the start of `recorded`, each whole, in the order received.
pub fn interim_heads(recorded: &[u8]) -> Vec<&[u8]> {
    let mut heads = Vec::new();
    let mut at = 0;
    while at < recorded.len()
        && interim(recorded, head_start(recorded, at))
        && let Some(end) = head_end(recorded, head_start(recorded, at))
    {
        heads.push(&recorded[at..end]);
        at = end;
    }
    heads
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

/// Where to cut a recording whose body passed `max_bytes` so that it holds the heads and `max_bytes` bytes of
/// entity body, no more: of chunk data, with the chunk framing before it, when the body is chunked (the cut
/// falls inside a chunk, as a recording cut short does); else of the bytes after the head. `None` when the
/// heads are incomplete, or the chunk framing cannot be read as far as `max_bytes` of data.
pub fn cut(recorded: &[u8], headers: &HeaderMap, max_bytes: u64) -> Option<usize> {
    let (_, body_start) = heads(recorded)?;
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    if !chunked(headers) {
        return Some(body_start.saturating_add(max).min(recorded.len()));
    }
    let bytes = &recorded[body_start..];
    let (mut at, mut data) = (0usize, 0usize);
    loop {
        let next = memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i + 1)?;
        let size = chunk_size(&bytes[at..next])?;
        at = next;
        if size == 0 {
            // The body ended within the limit: nothing to cut.
            return None;
        }
        let room = max - data;
        if size >= room {
            return Some(body_start + (at + room).min(bytes.len()));
        }
        data += size;
        at = at.checked_add(size)?;
        match bytes.get(at..)? {
            [b'\r', b'\n', ..] => at += 2,
            [b'\n', ..] => at += 1,
            _ => return None,
        }
    }
}

/// Whether the last transfer coding of a response is `chunked`.
fn chunked(headers: &HeaderMap) -> bool {
    headers
        .get(header::TRANSFER_ENCODING)
        .is_some_and(|codings| {
            codings
                .as_bytes()
                .rsplit(|&b| b == b',')
                .next()
                .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"))
        })
}

/// The size a chunk-size line (with its line break, extensions allowed) gives.
fn chunk_size(line: &[u8]) -> Option<usize> {
    let line = line.trim_ascii_end();
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let size = std::str::from_utf8(&line[..digits]).ok()?;
    usize::from_str_radix(size, 16).ok()
}

/// The length of a complete chunked body at the start of `bytes`, through its last chunk and trailer
/// section; `None` when it is incomplete or a size line is not one. Bare line feeds are taken for CRLF, as
/// the archive's de-chunker takes them.
fn chunked_len(bytes: &[u8]) -> Option<usize> {
    let line_end = |at: usize| memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i + 1);
    let mut at = 0;
    loop {
        let next = line_end(at)?;
        let size = chunk_size(&bytes[at..next])?;
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
        let each: Vec<&[u8]> = vec![
            b"HTTP/1.1 100 Continue\r\n\r\n",
            b"HTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\n",
        ];
        assert_eq!(interim_heads(&r[..64]), each);
        assert_eq!(interim_heads(r), each);
        assert!(interim_heads(b"HTTP/1.1 200 OK\r\n\r\n").is_empty());
        // A blank line before the status line is passed over, not read as a head (review 85 R3).
        let blank = b"\r\nHTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\nx\r\n\r\nHTTP/1.1 1";
        assert_eq!(heads(blank), Some((0, 41)));
        assert!(interim_heads(blank).is_empty());
        let blank_first = b"\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n";
        assert_eq!(heads(blank_first), Some((27, 46)));
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

    /// The chunk data of a chunked body (complete or cut short).
    fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(nl) = memchr::memchr(b'\n', bytes) {
            let size = chunk_size(&bytes[..=nl]).unwrap();
            bytes = &bytes[nl + 1..];
            let take = size.min(bytes.len());
            out.extend_from_slice(&bytes[..take]);
            let rest = &bytes[take..];
            bytes = rest
                .strip_prefix(b"\r\n")
                .or_else(|| rest.strip_prefix(b"\n"))
                .unwrap_or(rest);
            if size == 0 || take < size {
                break;
            }
        }
        out
    }

    #[test]
    fn a_cut_keeps_max_bytes_of_body_data() {
        let te = fields(&[("transfer-encoding", "chunked")]);
        let r = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n";
        let head = 47;
        assert_eq!(&r[head..head + 5], b"4;x=y");
        // Inside the second chunk, past its size line; at the end of the first chunk's data.
        assert_eq!(cut(r, &te, 6), Some(head + 7 + 4 + 2 + 3 + 2));
        assert_eq!(cut(r, &te, 4), Some(head + 7 + 4));
        // The whole body is within the limit: no cut.
        assert_eq!(cut(r, &te, 8), Some(head + 20));
        assert_eq!(cut(r, &te, 9), None);
        let sized = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
        assert_eq!(cut(sized, &HeaderMap::new(), 4), Some(sized.len() - 6));
        // Framing that is not chunked framing: nothing to cut by.
        assert_eq!(cut(b"HTTP/1.1 200 OK\r\n\r\nzz\r\nabc", &te, 1), None);
    }

    proptest::proptest! {
        #[test]
        fn a_cut_chunked_body_holds_exactly_max_bytes_of_data(chunks in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 1..40), 1..8), lf in proptest::prelude::any::<bool>(), max in 0usize..200) {
            let eol: &[u8] = if lf { b"\n" } else { b"\r\n" };
            let mut recorded = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
            let head = recorded.len();
            let mut data = Vec::new();
            for c in &chunks {
                recorded.extend_from_slice(format!("{:x}", c.len()).as_bytes());
                recorded.extend_from_slice(eol);
                recorded.extend_from_slice(c);
                recorded.extend_from_slice(eol);
                data.extend_from_slice(c);
            }
            recorded.extend_from_slice(b"0\r\n\r\n");
            let te = fields(&[("transfer-encoding", "chunked")]);
            match cut(&recorded, &te, max as u64) {
                Some(at) => {
                    proptest::prop_assert!(max <= data.len());
                    proptest::prop_assert_eq!(dechunk(&recorded[head..at]), &data[..max]);
                }
                None => proptest::prop_assert!(max > data.len()),
            }
        }

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
