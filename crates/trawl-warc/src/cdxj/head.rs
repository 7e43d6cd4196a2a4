//! The HTTP head of an indexed record, read as the reference indexer reads it: httparse for the usual
//! well-formed head, and warcio's lenient reading when httparse refuses one (an obs-folded field, a line
//! without a colon, a status code of four digits, a head without its empty line), so that the index keeps
//! the status and media type cdxj-indexer gives such records.

/// What the index takes from an HTTP head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Head {
    /// The status code as written (the first word after the protocol: `200`, `2000`, or empty); `None` when
    /// the head holds neither a status nor a field (warcio then has no head to index).
    pub status: Option<String>,
    /// The first Content-Type field's value; `None` without one (or without a head).
    pub content_type: Option<String>,
}

/// The head at the start of `block`: strictly parsed when it can be, else read leniently. A block whose first
/// line is blank has no head for warcio (httparse would skip the blank line): no status, no media type.
pub(super) fn read(block: &[u8]) -> Head {
    if blank_first_line(block) {
        return lenient(block).0;
    }
    strict(block).unwrap_or_else(|| lenient(block).0)
}

/// Whether the first line of `block` is blank (`\r\n` before a status line, as some servers and proxies sent).
fn blank_first_line(block: &[u8]) -> bool {
    let mut lines = Lines {
        rest: block,
        taken: 0,
    };
    lines.next_stripped().is_some_and(|l| l.is_empty())
}

/// How many bytes of `block` the lenient reading takes as the head (its empty line included, or the whole
/// block when there is none): where the payload starts for a head httparse refuses.
pub(super) fn lenient_len(block: &[u8]) -> usize {
    lenient(block).1
}

/// The head parsed by httparse, or `None` when httparse refuses it or it is incomplete.
fn strict(block: &[u8]) -> Option<Head> {
    crate::digest::with_fields(block, |headers| {
        let mut resp = httparse::Response::new(headers);
        if resp.parse(block)?.is_partial() {
            return Ok(None);
        }
        let content_type = resp
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("content-type"))
            // UTF-8, else latin-1 (a byte one character), as warcio decodes a header line.
            .map(|h| crate::header::text(h.value).trim().to_owned());
        Ok(resp.code.map(|code| Head {
            status: Some(code.to_string()),
            content_type,
        }))
    })
    .ok()
    .flatten()
}

/// warcio's reading (`StatusAndHeadersParser` without verification): the status is the first word after
/// the first space of the first line; each later line up to an empty one is `name: value`, a line starting
/// with a space or tab continues the value before it, and a line without a colon is skipped. Returns the
/// head and how many bytes it took.
fn lenient(block: &[u8]) -> (Head, usize) {
    let mut lines = Lines {
        rest: block,
        taken: 0,
    };
    let first = lines.next_stripped().unwrap_or_default();
    let mut head = Head {
        status: None,
        content_type: None,
    };
    if first.is_empty() {
        return (head, lines.taken);
    }
    let status_line = first
        .split_once(' ')
        .map_or("", |(_, s)| s.trim_matches(py_space));
    let mut fields = 0;
    let mut line = lines.next_stripped().unwrap_or_default();
    while !line.is_empty() {
        let mut field = line.split_once(':').map(|(name, value)| {
            (
                name.trim_end_matches([' ', '\t']).to_owned(),
                value.trim_start_matches(py_space).to_owned(),
            )
        });
        line = lines.next_stripped().unwrap_or_default();
        while line.starts_with([' ', '\t']) {
            if let Some((_, value)) = &mut field {
                value.push_str(&line);
            }
            line = lines.next_stripped().unwrap_or_default();
        }
        if let Some((name, value)) = field {
            fields += 1;
            if head.content_type.is_none() && name.eq_ignore_ascii_case("content-type") {
                head.content_type = Some(value);
            }
        }
    }
    if !status_line.is_empty() || fields > 0 {
        head.status = Some(status_line.split(' ').next().unwrap_or_default().to_owned());
    }
    (head, lines.taken)
}

/// The lines of a head, one at a time, counting the bytes taken.
struct Lines<'a> {
    rest: &'a [u8],
    taken: usize,
}

impl Lines<'_> {
    /// The next line (through its `\n`, or to the end) without its trailing white space, decoded as UTF-8
    /// or else Latin-1 as warcio decodes it; `None` at the end.
    fn next_stripped(&mut self) -> Option<String> {
        if self.rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', self.rest).map_or(self.rest.len(), |i| i + 1);
        let (line, rest) = self.rest.split_at(end);
        self.rest = rest;
        self.taken += end;
        let text = match std::str::from_utf8(line) {
            Ok(s) => s.to_owned(),
            Err(_) => line.iter().map(|&b| char::from(b)).collect(),
        };
        Some(text.trim_end_matches(py_space).to_owned())
    }
}

/// Whether Python's `str.strip()` strips `c`: Unicode white space and the separators U+001C to U+001F.
pub(super) fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The payload digest of the HTTP message `block`: of its entity body when its head parses, else of what
/// follows the head as warcio reads it (nothing, when the head has no empty line).
pub(crate) fn http_payload_digest(block: &[u8]) -> String {
    if blank_first_line(block) {
        // warcio's reading: the blank line is the head, the rest the payload.
        return as_sent_payload_digest(block);
    }
    crate::digest::payload_digest(block).unwrap_or_else(|| as_sent_payload_digest(block))
}

/// The digest of everything after the head of the HTTP message `block`, as sent (chunked framing
/// included): what cdxj-indexer writes for a record without a WARC-Payload-Digest.
pub(crate) fn as_sent_payload_digest(block: &[u8]) -> String {
    crate::digest::sha1_digest(&block[lenient_len(block)..])
}

/// [`as_sent_payload_digest`] where the head's Transfer-Encoding ends with the chunked coding, whose framing
/// the payload digest leaves out (so the two differ); `None` for any other message, without digesting it
/// again.
pub(crate) fn chunked_as_sent_digest(block: &[u8]) -> Option<String> {
    let head = &block[..lenient_len(block)];
    let chunked = head.split(|&b| b == b'\n').any(|line| {
        let text = String::from_utf8_lossy(line);
        text.split_once(':').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("transfer-encoding")
                && value
                    .rsplit(',')
                    .next()
                    .is_some_and(|last| last.trim().eq_ignore_ascii_case("chunked"))
        })
    });
    chunked.then(|| as_sent_payload_digest(block))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn head(status: Option<&str>, content_type: Option<&str>) -> Head {
        Head {
            status: status.map(str::to_owned),
            content_type: content_type.map(str::to_owned),
        }
    }

    /// The status and Content-Type warcio 1.8 reads from each head (through cdxj-indexer 1.5).
    #[test]
    fn heads_as_warcio_reads_them() {
        for (block, want) in [
            (
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\n\r\nx"[..],
                head(Some("200"), Some("text/html; charset=utf-8")),
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nGarbageLine\r\n\r\nbody",
                head(Some("200"), Some("text/html")),
            ),
            (
                b"HTTP/1.1 2000 OK\r\nContent-Type: text/html\r\n\r\nbody",
                head(Some("2000"), Some("text/html")),
            ),
            (
                b"HTTP/1.1\r\nContent-Type: text/html\r\n\r\nx",
                head(Some(""), Some("text/html")),
            ),
            (b"<html><body>x</body></html>", head(None, None)),
            (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n",
                head(Some("200"), Some("text/html")),
            ),
            (
                b"HTTP/1.1 301 Moved\nLocation: /x\nContent-Type: text/plain\n\nbody",
                head(Some("301"), Some("text/plain")),
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-type: a/b\r\nContent-Type: c/d\r\n\r\nx",
                head(Some("200"), Some("a/b")),
            ),
            // A blank line first: no head, as warcio reads it.
            (
                b"\r\nHTTP/1.1 200 OK\r\nContent-Type: a/b\r\n\r\nx",
                head(None, None),
            ),
            // A byte that is not UTF-8 is a latin-1 character, as warcio decodes the line.
            (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/h\xe9ml; charset=x\r\n\r\nx",
                head(Some("200"), Some("text/h\u{e9}ml; charset=x")),
            ),
        ] {
            assert_eq!(read(block), want, "{}", String::from_utf8_lossy(block));
        }
        assert_eq!(lenient_len(b"<html><body>x</body></html>"), 27);
        // cdxj-indexer's digest of `\r\nHTTP/1.1 200 OK\r\n\r\nhello` (an ARC record), from the second line on.
        assert_eq!(
            http_payload_digest(b"\r\nHTTP/1.1 200 OK\r\n\r\nhello"),
            "sha1:IORUMWLIBUO53GZZJS7FEOU3IDD3AFBH"
        );
        assert_eq!(
            lenient_len(b"HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\nbody"),
            29
        );
    }

    proptest! {
        #[test]
        fn any_head_reads(block in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = read(&block);
            prop_assert!(lenient_len(&block) <= block.len());
        }
    }
}
