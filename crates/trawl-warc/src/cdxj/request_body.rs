//! The request body of a page's `POST` (or `PUT`) as a query for its index key, as the IIPC guideline "CDX
//! for non-GET requests" describes it and pywb's indexers (`cdxj-indexer -p`, `wb-manager add`) write it: a
//! JSON body's values by their names (`{"q": "boats"}` → `q=boats`), a form's fields as sent, any other body
//! as `__wb_post_data=` and its base64. Replay computes the same query from the replayed request, so two
//! `POST`s to one URL with different bodies (a search API asked twice) each replay with their own answer.
//!
//! A chunked or compressed body is read as warcio hands it to the reference: joined, and decoded.
//!
//! A form is keyed so only when a browser's page sent it (its request carries `Sec-Fetch-Mode`): a crawler's
//! own form login is not; JSON and other bodies are what pages' scripts send. Nor is a body that names a
//! password (`pass`, `pwd` or `secret` anywhere in it, as sent or decoded),
//! which an index, often published where the archive is not, must not hold. Nor are bodies whose encoding
//! the reference reads with a parser of its own (`multipart/*`, `application/x-amf`): a key differing from
//! it would not be found. Those keep the key of the method alone (`?__wb_method=post`), which pywb matches
//! for any body.
//!
//! Written here rather than taken from a crate: what counts is agreeing with Python's `json`, `str()` and
//! `urllib.parse` byte for byte, which no crate does.

use std::collections::HashMap;

mod json;

use json::{Failure, Json};

/// The reference cuts the query at this many characters.
const MAX_QUERY_CHARS: usize = 4096;

/// The query the body of a request record's HTTP request adds to its answer's key, `None` when it adds
/// none (see the module). `Some("")` for a body that gives no field (an empty form, JSON not parsed).
pub fn query(block: &[u8]) -> Option<String> {
    let head_end = memchr::memmem::find(block, b"\r\n\r\n")?;
    let head = std::str::from_utf8(&block[..head_end]).ok()?;
    let mut lines = head.split("\r\n");
    let method = lines.next()?.split(' ').next()?;
    if !method.eq_ignore_ascii_case("POST") && !method.eq_ignore_ascii_case("PUT") {
        return None;
    }
    let fields: Vec<(&str, &str)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim(), v.trim()))
        .collect();
    let field = |name: &str| {
        fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    };
    let mime = field("Content-Type").unwrap_or("");
    // A form, unless a browser's page sent it (Chromium sends `Sec-Fetch-Mode` to HTTPS and local sites
    // only): a crawler's own form login posts one. JSON and other bodies are what pages' scripts send.
    let form =
        mime.starts_with("application/x-www-form-urlencoded") || mime.starts_with("multipart/");
    if form && field("Sec-Fetch-Mode").is_none() {
        return None;
    }
    // Without a length the reference reads up to 8 KiB; with one it cannot read, no query.
    let length = match field("Content-Length") {
        None => 8192,
        Some(v) => v.parse::<usize>().ok()?,
    };
    let rest = content(
        &block[head_end + 4..],
        field("Transfer-Encoding"),
        field("Content-Encoding"),
        length,
    )?;
    let body = &rest[..length.min(rest.len())];
    if names_a_secret(body) {
        return None;
    }
    let query = if mime.starts_with("application/x-www-form-urlencoded") {
        match std::str::from_utf8(body) {
            Ok(text) => unquote_plus(text),
            Err(_) => binary(body),
        }
    } else if mime.starts_with("multipart/") || mime.starts_with("application/x-amf") {
        return None;
    } else if mime.starts_with("application/json") {
        json_query(body).unwrap_or_default()
    } else if mime.starts_with("text/plain") {
        json_query(body).unwrap_or_else(|| binary(body))
    } else {
        binary(body)
    };
    // The names as decoded too (a JSON `\u0070ass`, a form's `%70wd`).
    if names_a_secret(query.as_bytes()) {
        return None;
    }
    Some(query.chars().take(MAX_QUERY_CHARS).collect())
}

/// The body as warcio's `content_stream()` hands it to the reference (review 84 R6): chunks joined when the
/// transfer coding is `chunked` (bytes that do not start as chunks, as they are), then a `gzip`, `deflate`
/// or `br` content coding undone (bytes that are no such stream, as they came), at most `length` bytes of it.
/// `None` for a body of another content coding (`x-gzip`, `zstd`), which the reference keys by its coded
/// bytes: what it says cannot be screened for a password, so it is no part of a key (review 86 R3: the
/// reference's base64 of a compressed body held one).
fn content<'a>(
    raw: &'a [u8],
    transfer: Option<&str>,
    coding: Option<&str>,
    length: usize,
) -> Option<std::borrow::Cow<'a, [u8]>> {
    let mut body = std::borrow::Cow::Borrowed(raw);
    if transfer == Some("chunked") {
        let dechunked = crate::chunked::dechunk(raw);
        if !(dechunked.end != crate::chunked::End::Complete && dechunked.body.is_empty()) {
            body = std::borrow::Cow::Owned(dechunked.body);
        }
    }
    let coding = coding.map(str::to_ascii_lowercase);
    match coding.as_deref().map(str::trim) {
        None | Some("" | "identity") => Some(body),
        Some(coding @ ("gzip" | "deflate" | "br")) => {
            let limits = trawl_extract::decode::DecodeLimits {
                max_bytes: length as u64,
                max_ratio: 1000,
            };
            // Bytes that are no such stream are read as they came, as the reference reads them.
            Some(
                match trawl_extract::decode::undo(Some(coding), &body, limits) {
                    Some(undone) => std::borrow::Cow::Owned(undone.data.into_owned()),
                    None => body,
                },
            )
        }
        Some(_) => None,
    }
}

/// Whether `text` names a password or a secret anywhere, in any case (looked for in place: a body may be
/// megabytes, review 84 R12).
fn names_a_secret(text: &[u8]) -> bool {
    const WORDS: [&[u8]; 3] = [b"pass", b"pwd", b"secret"];
    (0..text.len()).any(|i| {
        matches!(text[i] | 0x20, b'p' | b's')
            && WORDS.iter().any(|w| {
                text[i..]
                    .get(..w.len())
                    .is_some_and(|t| t.eq_ignore_ascii_case(w))
            })
    })
}

/// A body the reference cannot read as fields: its base64, of as many bytes as the query's length keeps.
fn binary(body: &[u8]) -> String {
    const PREFIX: &str = "__wb_post_data=";
    let kept = (MAX_QUERY_CHARS - PREFIX.len()).div_ceil(4) * 3;
    format!(
        "{PREFIX}{}",
        data_encoding::BASE64.encode(&body[..body.len().min(kept)])
    )
}

/// Python's `unquote_plus`: `+` as a space, `%XX` as its byte, the bytes read as UTF-8 (a sequence that is
/// not, as U+FFFD).
fn unquote_plus(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Python's `quote_plus` of one name or value.
fn quote_plus(text: &str, out: &mut String) {
    for &b in text.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
}

/// A JSON body's values by their names, as the reference flattens it: each value under the name of the
/// member holding it (the innermost), an array's items each under the array's name, a name seen before
/// numbered (`q.2_`, `q.3_`); scalars as Python's `str()` writes them (`True`, `None`, `1.5`, `1e+21`). A
/// body that is no JSON but has a line break is read as JSON lines, each line on its own. `None` when it is
/// neither.
fn json_query(body: &[u8]) -> Option<String> {
    let docs: Vec<Json> = match json::loads(body) {
        Ok(doc) => vec![doc],
        Err(Failure::Syntax) if body.contains(&b'\n') => body
            .split(|&b| b == b'\n')
            .map(json::loads)
            .collect::<Result<_, _>>()
            .ok()?,
        Err(_) => return None,
    };
    let mut flat = Flat::default();
    for doc in &docs {
        flat.add(doc, "");
    }
    let mut out = String::new();
    for (name, value) in &flat.pairs {
        if !out.is_empty() {
            out.push('&');
        }
        quote_plus(name, &mut out);
        out.push('=');
        quote_plus(value, &mut out);
    }
    Some(out)
}

/// Flattened JSON: pairs in the order first seen, a later value of a name replacing its earlier one (a
/// Python dict), and the count of each name seen again.
#[derive(Default)]
struct Flat {
    pairs: Vec<(String, String)>,
    /// Where each key is in `pairs` (a Python dict's lookup: a large body is flattened in linear time).
    at: HashMap<String, usize>,
    dupes: HashMap<String, usize>,
}

impl Flat {
    fn add(&mut self, json: &Json, name: &str) {
        match json {
            Json::Object(members) => {
                for (n, v) in members {
                    self.add(v, n);
                }
            }
            Json::Array(items) => {
                for v in items {
                    self.add(v, name);
                }
            }
            Json::Scalar(_) if name.is_empty() => {}
            Json::Scalar(value) => {
                let key = if self.at.contains_key(name) {
                    let count = self.dupes.entry(name.to_owned()).or_insert(1);
                    *count += 1;
                    format!("{name}.{count}_")
                } else {
                    name.to_owned()
                };
                match self.at.get(&key) {
                    Some(&i) => self.pairs[i].1 = value.clone(),
                    None => {
                        self.at.insert(key.clone(), self.pairs.len());
                        self.pairs.push((key, value.clone()));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(content_type: &str, body: &str, browser: bool) -> Vec<u8> {
        let mut r = format!(
            "POST /api/search HTTP/1.1\r\nHost: a.example\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n",
            body.len()
        );
        if browser {
            r.push_str("Sec-Fetch-Mode: cors\r\n");
        }
        r.push_str("\r\n");
        r.push_str(body);
        r.into_bytes()
    }

    #[test]
    fn bodies_are_keyed_as_pywb_keys_them() {
        for (ctype, body, want) in [
            ("application/json", r#"{"q": "boats"}"#, Some("q=boats")),
            (
                "application/json",
                r#"{"a": {"b": [1, 2.5, true, null]}, "b": "x y/é", "c": 1e21}"#,
                Some("b=1&b.2_=2.5&b.3_=True&b.4_=None&b.5_=x+y%2F%C3%A9&c=1e%2B21"),
            ),
            (
                "application/json",
                r#"{"n": 100000000000000000000, "m": -250000000000000000000, "o": -10000000000000000000}"#,
                Some("n=100000000000000000000&m=-250000000000000000000&o=-10000000000000000000"),
            ),
            ("application/json", "not json", Some("")),
            (
                "application/json; charset=utf-8",
                "[{\"id\":7}]",
                Some("id=7"),
            ),
            (
                "application/json",
                "{\"a\":1}\n{\"a\":2}",
                Some("a=1&a.2_=2"),
            ),
            ("application/json", r#"{"a":1,"a":2}"#, Some("a=2")),
            (
                "application/x-www-form-urlencoded",
                "q=big+boats&page=%32&x=%zz%C3",
                Some("q=big boats&page=2&x=%zz\u{fffd}"),
            ),
            ("text/plain;charset=UTF-8", r#"{"k":"v"}"#, Some("k=v")),
            ("text/plain", "hello", Some("__wb_post_data=aGVsbG8=")),
            ("application/octet-stream", "", Some("__wb_post_data=")),
            ("multipart/form-data; boundary=x", "--x--", None),
            // A body naming a password is no part of a key, however it is sent.
            ("application/json", r#"{"user":"a","password":"b"}"#, None),
            ("application/x-www-form-urlencoded", "log=a&pwd=b", None),
        ] {
            assert_eq!(
                query(&request(ctype, body, true)).as_deref(),
                want,
                "{ctype} {body}"
            );
        }
        // A form without Sec-Fetch-Mode (a crawler's own login; a page on a plain-HTTP site) is keyed by its
        // method alone; a JSON body is what a script sent, keyed wherever it came from (review 84 R4).
        assert_eq!(
            query(&request("application/x-www-form-urlencoded", "q=1", false)),
            None
        );
        assert_eq!(
            query(&request("application/json", "{\"q\":1}", false)).as_deref(),
            Some("q=1")
        );
        // A secret's name escaped in the body is found once decoded (review 84 R6).
        for (ctype, body) in [
            ("application/json", r#"{"user":"a","\u0070ass":"b"}"#),
            ("application/x-www-form-urlencoded", "log=a&%70wd=b"),
        ] {
            assert_eq!(query(&request(ctype, body, true)), None, "{body}");
        }
        // A large body is flattened in one pass (review 84 R1: a linear scan per value made it quadratic).
        let many = format!("{{\"q\": [{}0]}}", "0,".repeat(200_000));
        let q = query(&request("application/json", &many, true)).unwrap();
        assert!(q.starts_with("q=0&q.2_=0&q.3_=0"), "{}", &q[..40]);
        let long = format!("{{\"q\": \"{}\"}}", "a".repeat(5000));
        assert_eq!(
            query(&request("application/json", &long, true)).map(|q| q.chars().count()),
            Some(MAX_QUERY_CHARS)
        );
    }

    proptest::proptest! {
        /// Any body, under any of the types read, gives a query that keys one index line: no panic, at most
        /// the reference's length, and a key with no space or line break in it.
        #[test]
        fn any_body_keys_one_line(
            ctype in proptest::sample::select(vec![
                "application/json", "application/x-www-form-urlencoded", "text/plain", "image/png", "",
            ]),
            body in proptest::collection::vec(proptest::arbitrary::any::<u8>(), 0..300),
        ) {
            let mut block = format!(
                "POST /x HTTP/1.1\r\nContent-Type: {ctype}\r\nSec-Fetch-Mode: cors\r\n\r\n"
            )
            .into_bytes();
            block.extend_from_slice(&body);
            if let Some(q) = query(&block) {
                proptest::prop_assert!(q.chars().count() <= MAX_QUERY_CHARS);
                let key = super::super::cdx_key(&format!("http://a.example/x?__wb_method=POST&{q}"));
                proptest::prop_assert!(!key.contains([' ', '\n', '\r']), "{key}");
            }
        }
    }

    /// The base64 of a long body is cut where the query is: the same 4,096 characters as of the whole.
    #[test]
    fn a_long_binary_body_keeps_the_references_prefix() {
        let body: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = format!("__wb_post_data={}", data_encoding::BASE64.encode(&body));
        let ours = binary(&body);
        assert!(ours.len() >= MAX_QUERY_CHARS);
        assert_eq!(&ours[..MAX_QUERY_CHARS], &whole[..MAX_QUERY_CHARS]);
        assert!(
            names_a_secret(b"x=1&PaSsWd=2")
                && names_a_secret(b"sEcReT")
                && !names_a_secret(b"pas s")
        );
    }

    #[test]
    fn floats_are_written_as_python_writes_them() {
        for (v, want) in [
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1.5, "1.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (-0.0, "-0.0"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(json::python_float(v), want, "{v}");
        }
    }
}
