//! Parsing a WARC record's header block (version line and named fields) from bytes, without I/O.

use crate::error::excerpt;

/// A parsed header block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    /// The version line, e.g. `WARC/1.1`.
    pub(crate) version: String,
    /// The named fields, in order.
    pub(crate) fields: Vec<(String, String)>,
}

/// Why a header block was rejected: what was expected, and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeadError {
    pub(crate) expected: String,
    pub(crate) found: String,
}

/// Parses `bytes`: the version line, the field lines, and the empty line that ends them.
/// Lines end in CRLF (a bare LF is tolerated); a line starting with a space or tab continues the
/// previous field's value.
pub(crate) fn parse(bytes: &[u8]) -> Result<Head, HeadError> {
    // Each line keeps its LF until here, so that an unterminated last line is not taken as the end.
    let mut lines = bytes.split_inclusive(|&b| b == b'\n').map(|l| {
        l.strip_suffix(b"\n")
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
    });
    let first = lines.next().map(|l| l.unwrap_or(bytes)).unwrap_or_default();
    if !first.starts_with(b"WARC/") {
        return Err(HeadError {
            expected: "a version line such as \"WARC/1.1\"".to_owned(),
            found: excerpt(first),
        });
    }
    let version = text(first).trim_end().to_owned();
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in lines {
        let Some(line) = line else {
            break; // the last line has no LF
        };
        if line.is_empty() {
            return Ok(Head { version, fields });
        }
        if line[0] == b' ' || line[0] == b'\t' {
            let Some((_, value)) = fields.last_mut() else {
                return Err(HeadError {
                    expected: "a header field".to_owned(),
                    found: format!("continuation line {}", excerpt(line)),
                });
            };
            let more = text(line.trim_ascii());
            if !more.is_empty() {
                value.push(' ');
                value.push_str(&more);
            }
            continue;
        }
        let colon = line.iter().position(|&b| b == b':');
        let name = colon.map(|c| &line[..c]);
        match name {
            Some(name) if !name.is_empty() && name.iter().all(|&b| is_token(b)) => {
                let value = line[colon.unwrap_or_default() + 1..].trim_ascii();
                fields.push((text(name), text(value)));
            }
            _ => {
                return Err(HeadError {
                    expected: "a header field \"Name: value\"".to_owned(),
                    found: excerpt(line),
                });
            }
        }
    }
    Err(HeadError {
        expected: "an empty line ending the header".to_owned(),
        found: "end of input".to_owned(),
    })
}

/// A header line's bytes as text: UTF-8 when they are, else latin-1, each byte one character (as warcio and
/// cdxj-indexer read them). Old crawlers wrote URLs in the page's charset; lossy UTF-8 would turn every such
/// byte into U+FFFD for good.
pub(crate) fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// RFC 9110 token characters, allowed in field names.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(version: &str, fields: &[(&str, &str)]) -> Result<Head, HeadError> {
        Ok(Head {
            version: version.to_owned(),
            fields: fields
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
        })
    }

    fn err(expected: &str, found: &str) -> Result<Head, HeadError> {
        Err(HeadError {
            expected: expected.to_owned(),
            found: found.to_owned(),
        })
    }

    #[test]
    fn table() {
        let cases: &[(&[u8], Result<Head, HeadError>)] = &[
            (b"WARC/1.1\r\n\r\n", ok("WARC/1.1", &[])),
            (
                b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length:  12 \r\n\r\n",
                ok(
                    "WARC/1.0",
                    &[("WARC-Type", "response"), ("Content-Length", "12")],
                ),
            ),
            (b"WARC/1.1\nA: b\n\n", ok("WARC/1.1", &[("A", "b")])),
            (
                b"WARC/1.1\r\nA: b\r\n  c\r\n\r\n",
                ok("WARC/1.1", &[("A", "b c")]),
            ),
            (b"WARC/1.1\r\nA:\r\n\r\n", ok("WARC/1.1", &[("A", "")])),
            // A line that is not UTF-8 is latin-1, a line that is stays UTF-8.
            (
                b"WARC/1.1\r\nA: caf\xe9\r\nB: caf\xc3\xa9\r\n\r\n",
                ok("WARC/1.1", &[("A", "caf\u{e9}"), ("B", "caf\u{e9}")]),
            ),
            (
                b"WARC/1.1\r\nA: x:y\r\n\r\n",
                ok("WARC/1.1", &[("A", "x:y")]),
            ),
            (
                b"HTTP/1.1 200 OK\r\n\r\n",
                err("a version line such as \"WARC/1.1\"", "\"HTTP/1.1 200 OK\""),
            ),
            (
                b"",
                err("a version line such as \"WARC/1.1\"", "end of input"),
            ),
            (
                b"WARC/1.1\r\nA: b\r\n",
                err("an empty line ending the header", "end of input"),
            ),
            (
                b"WARC/1.1\r\n c\r\n\r\n",
                err("a header field", "continuation line \" c\""),
            ),
            (
                b"WARC/1.1\r\nno colon\r\n\r\n",
                err("a header field \"Name: value\"", "\"no colon\""),
            ),
            (
                b"WARC/1.1\r\nBad Name: v\r\n\r\n",
                err("a header field \"Name: value\"", "\"Bad Name: v\""),
            ),
            (
                b"WARC/1.1\r\n: v\r\n\r\n",
                err("a header field \"Name: value\"", "\": v\""),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(&parse(input), want, "{}", input.escape_ascii());
        }
    }
}
