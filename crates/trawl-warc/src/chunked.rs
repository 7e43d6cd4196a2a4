//! Removing HTTP/1.1 chunked transfer coding from recorded bytes.
//!
//! We write this decoder ourselves rather than use an HTTP library's because the input is a *recording*:
//! trawl truncates large responses, so the last chunk is often cut short, and servers send chunk
//! extensions (`1a;name=value`) and trailers. A library decoder either rejects such input or needs a
//! live connection; this one decodes all it can and reports how far it got, without panicking.

/// How de-chunking ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// The last (zero-size) chunk and the trailer section were seen.
    Complete,
    /// The input ended early (for example a truncated recording).
    Truncated,
    /// A chunk-size line or a chunk's closing CRLF was malformed; decoding stopped there.
    Malformed,
}

/// The entity body found in chunked bytes, and how decoding ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dechunked {
    /// The concatenated chunk data.
    pub(crate) body: Vec<u8>,
    /// How decoding ended.
    pub(crate) end: End,
}

/// The longest chunk-size we accept: 16 hex digits fill a u64.
const MAX_SIZE_DIGITS: usize = 16;

/// Decodes chunked transfer coding, keeping what de-chunks when the input is truncated or malformed.
pub(crate) fn dechunk(input: &[u8]) -> Dechunked {
    let mut body = Vec::with_capacity(input.len());
    let mut rest = input;
    let end = loop {
        // chunk-size [ chunk-ext ] CRLF
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            break End::Truncated;
        };
        let Some(size) = parse_size_line(&rest[..nl]) else {
            break End::Malformed;
        };
        rest = &rest[nl + 1..];
        if size == 0 {
            break skip_trailers(rest);
        }
        let available = rest.len().min(usize::try_from(size).unwrap_or(usize::MAX));
        body.extend_from_slice(&rest[..available]);
        rest = &rest[available..];
        if (available as u64) < size {
            break End::Truncated;
        }
        // The CRLF that closes the chunk data (a bare LF is tolerated).
        match rest {
            [b'\r', b'\n', tail @ ..] | [b'\n', tail @ ..] => rest = tail,
            [] | [b'\r'] => break End::Truncated,
            _ => break End::Malformed,
        }
    };
    Dechunked { body, end }
}

/// Parses `1a3f;ext=1 \r` (the line without its LF) into the chunk size.
fn parse_size_line(line: &[u8]) -> Option<u64> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 || digits > MAX_SIZE_DIGITS {
        return None;
    }
    let after = &line[digits..];
    // Optional whitespace, then nothing or a chunk extension.
    let after = after.trim_ascii_start();
    if !(after.is_empty() || after[0] == b';') {
        return None;
    }
    let text = std::str::from_utf8(&line[..digits]).ok()?;
    u64::from_str_radix(text, 16).ok()
}

/// Skips the trailer section after the last chunk: header lines up to an empty line.
fn skip_trailers(mut rest: &[u8]) -> End {
    loop {
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            return End::Truncated;
        };
        let line = &rest[..nl];
        if line.is_empty() || line == b"\r" {
            return End::Complete;
        }
        rest = &rest[nl + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn table() {
        use End::*;
        let cases: &[(&[u8], &[u8], End)] = &[
            (b"0\r\n\r\n", b"", Complete),
            (b"5\r\nhello\r\n0\r\n\r\n", b"hello", Complete),
            (
                b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                b"hello world",
                Complete,
            ),
            (b"5;name=val\r\nhello\r\n0\r\n\r\n", b"hello", Complete),
            (b"5 ; x\r\nhello\r\n0\r\n\r\n", b"hello", Complete),
            (b"A\r\n0123456789\r\n0\r\n\r\n", b"0123456789", Complete),
            (b"a\r\n0123456789\r\n0\r\n\r\n", b"0123456789", Complete),
            (b"5\nhello\n0\n\n", b"hello", Complete),
            (
                b"5\r\nhello\r\n0\r\nExpires: never\r\n\r\n",
                b"hello",
                Complete,
            ),
            (b"", b"", Truncated),
            (b"5", b"", Truncated),
            (b"5\r\nhel", b"hel", Truncated),
            (b"5\r\nhello", b"hello", Truncated),
            (b"5\r\nhello\r", b"hello", Truncated),
            (b"5\r\nhello\r\n", b"hello", Truncated),
            (b"5\r\nhello\r\n0\r\n", b"hello", Truncated),
            (b"zz\r\nhello", b"", Malformed),
            (b"5x\r\nhello\r\n", b"", Malformed),
            (b"5\r\nhelloXX0\r\n\r\n", b"hello", Malformed),
            (b"11111111111111111\r\n", b"", Malformed),
            (b"ffffffffffffffff\r\nabc", b"abc", Truncated),
        ];
        for (input, body, end) in cases {
            let got = dechunk(input);
            assert_eq!(
                (got.body.as_slice(), got.end),
                (*body, *end),
                "{}",
                input.escape_ascii()
            );
        }
    }

    fn encode(chunks: &[(Vec<u8>, String)], trailer: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for (data, ext) in chunks.iter().filter(|(d, _)| !d.is_empty()) {
            out.extend_from_slice(format!("{:x}{ext}\r\n", data.len()).as_bytes());
            out.extend_from_slice(data);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n");
        if trailer {
            out.extend_from_slice(b"X-Trailer: 1\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out
    }

    fn chunks() -> impl Strategy<Value = Vec<(Vec<u8>, String)>> {
        proptest::collection::vec(
            (
                proptest::collection::vec(any::<u8>(), 0..64),
                prop_oneof![Just(String::new()), "(;[a-z]{1,5}(=[a-z0-9]{0,4})?)"],
            ),
            0..8,
        )
    }

    proptest! {
        #[test]
        fn round_trip(chunks in chunks(), trailer in any::<bool>()) {
            let encoded = encode(&chunks, trailer);
            let want: Vec<u8> = chunks.iter().flat_map(|(d, _)| d.clone()).collect();
            let got = dechunk(&encoded);
            prop_assert_eq!(got.end, End::Complete);
            prop_assert_eq!(got.body, want);
        }

        #[test]
        fn truncation_yields_a_prefix(chunks in chunks(), cut in any::<prop::sample::Index>()) {
            let encoded = encode(&chunks, false);
            let cut = cut.index(encoded.len());
            let want: Vec<u8> = chunks.iter().flat_map(|(d, _)| d.clone()).collect();
            let got = dechunk(&encoded[..cut]);
            prop_assert_eq!(got.end, End::Truncated);
            prop_assert!(want.starts_with(&got.body));
        }

        #[test]
        fn random_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..256)) {
            let got = dechunk(&input);
            prop_assert!(got.body.len() <= input.len());
        }
    }
}
