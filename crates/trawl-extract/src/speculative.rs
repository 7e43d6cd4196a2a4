//! Speculative links (hop `X`): string literals in JavaScript and JSON that look like URLs or site paths, as
//! Heritrix's ExtractorJS guesses them. Junk is kept out by the shape of the string: an absolute http(s) URL,
//! or a path with a `/` and either a file extension or a trailing `/`, no spaces, no template or regex
//! characters, and not a bare `a/b` fragment of code; at most [`MAX_PER_DOCUMENT`] per document.

use std::collections::HashSet;

use url::Url;

use super::{MAX_URL_LEN, Outlink};
use crate::hop::Hop;

/// The most speculative links taken from one document.
pub const MAX_PER_DOCUMENT: usize = 200;
/// The longest string literal considered.
const MAX_LITERAL: usize = 2048;

/// Whether a response of `mime` is script or JSON, read for speculative links.
pub fn is_script_or_json(mime: &str) -> bool {
    let m = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    matches!(
        m.as_str(),
        "application/javascript"
            | "text/javascript"
            | "application/x-javascript"
            | "application/ecmascript"
            | "text/ecmascript"
            | "application/json"
            | "text/json"
    ) || m.ends_with("+json")
}

/// The speculative links of script or JSON `text` fetched from `doc_url`, and whether the cap cut them.
pub fn speculative_links(text: &[u8], doc_url: &Url) -> (Vec<Outlink>, bool) {
    let mut out: Vec<Outlink> = Vec::new();
    let mut seen: HashSet<Url> = HashSet::new();
    let (found, cut) = candidates(text);
    for s in found {
        if let Ok(mut url) = doc_url.join(&s) {
            url.set_fragment(None);
            if matches!(url.scheme(), "http" | "https")
                && url.as_str().len() <= MAX_URL_LEN
                && seen.insert(url.clone())
            {
                out.push(Outlink {
                    url,
                    hop: Hop::Speculative,
                    context: "script/string",
                    lastmod: None,
                });
            }
        }
    }
    (out, cut)
}

/// The string literals of `text` shaped like links ([`looks_like_link`]), at most [`MAX_PER_DOCUMENT`], and
/// whether the cap cut them. A literal is read to its real closing quote however long it is (a minified
/// bundle's 3 KB data URI must not leave the scanner inside a string), and its escapes are decoded as
/// JavaScript and JSON read them (`\/`, `\u002F`, `\xHH`, surrogate pairs; `\n` and the like make it no link).
pub fn candidates(text: &[u8]) -> (Vec<String>, bool) {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < text.len() {
        let quote = text[i];
        if !matches!(quote, b'"' | b'\'' | b'`') {
            i += 1;
            continue;
        }
        // A string literal: up to the same quote, backslash escapes honoured; a newline ends a '…' or "…".
        let mut lit = Vec::new();
        // False once the literal is longer than MAX_LITERAL or holds an escape that decodes to nothing.
        let mut usable = true;
        let mut j = i + 1;
        let mut closed = false;
        while j < text.len() {
            match text[j] {
                b'\\' if j + 1 < text.len() => {
                    let (escaped, len) = escape(&text[j + 1..]);
                    match escaped {
                        Escape::Char(c) if usable => {
                            lit.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        Escape::Char(_) | Escape::Nothing => {}
                        Escape::Invalid => usable = false,
                    }
                    j += 1 + len;
                }
                b'\n' if quote != b'`' => break,
                c if c == quote => {
                    closed = true;
                    break;
                }
                c => {
                    if usable {
                        lit.push(c);
                    }
                    j += 1;
                }
            }
            if lit.len() > MAX_LITERAL {
                usable = false;
                lit = Vec::new();
            }
        }
        i = j + 1;
        if !closed || !usable {
            continue;
        }
        let Ok(s) = String::from_utf8(lit) else {
            continue;
        };
        if !looks_like_link(&s) || seen.contains(&s) {
            continue;
        }
        if out.len() >= MAX_PER_DOCUMENT {
            return (out, true);
        }
        seen.insert(s.clone());
        out.push(s);
    }
    (out, false)
}

/// What one escape sequence of a string literal stands for.
#[derive(Debug, PartialEq, Eq)]
enum Escape {
    /// A character (a control character for `\n`, `\t`, ...: [`looks_like_link`] turns those away).
    Char(char),
    /// Nothing: a line continuation.
    Nothing,
    /// No character: a lone surrogate, or `\u`/`\x` without its hex digits.
    Invalid,
}

/// The escape sequence that `rest` (what follows a backslash, never empty) starts, and how many bytes of
/// `rest` it takes.
fn escape(rest: &[u8]) -> (Escape, usize) {
    match rest[0] {
        b'n' => (Escape::Char('\n'), 1),
        b't' => (Escape::Char('\t'), 1),
        b'r' => (Escape::Char('\r'), 1),
        b'b' => (Escape::Char('\u{8}'), 1),
        b'f' => (Escape::Char('\u{c}'), 1),
        b'v' => (Escape::Char('\u{b}'), 1),
        b'0' if !rest.get(1).is_some_and(u8::is_ascii_digit) => (Escape::Char('\0'), 1),
        // Legacy octal escapes: never in a URL worth guessing.
        b'0'..=b'9' => (Escape::Invalid, 1),
        b'\r' if rest.get(1) == Some(&b'\n') => (Escape::Nothing, 2),
        b'\n' | b'\r' => (Escape::Nothing, 1),
        b'x' => match hex(rest.get(1..3)) {
            Some(v) => (char::from_u32(v).map_or(Escape::Invalid, Escape::Char), 3),
            None => (Escape::Invalid, 1),
        },
        b'u' if rest.get(1) == Some(&b'{') => {
            // `\u{1F600}`: up to six hex digits in braces.
            let Some(close) = rest.iter().take(9).position(|&b| b == b'}') else {
                return (Escape::Invalid, 1);
            };
            let c = hex(rest.get(2..close)).and_then(char::from_u32);
            (c.map_or(Escape::Invalid, Escape::Char), close + 1)
        }
        b'u' => {
            let Some(unit) = hex(rest.get(1..5)) else {
                return (Escape::Invalid, 1);
            };
            if (0xD800..0xDC00).contains(&unit)
                && rest.get(5..7) == Some(b"\\u")
                && let Some(low) = hex(rest.get(7..11)).filter(|l| (0xDC00..0xE000).contains(l))
            {
                let c = char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                return (c.map_or(Escape::Invalid, Escape::Char), 11);
            }
            (
                char::from_u32(unit).map_or(Escape::Invalid, Escape::Char),
                5,
            )
        }
        // A backslash before a non-ASCII character is dropped; the character is read as it comes.
        c if !c.is_ascii() => (Escape::Nothing, 0),
        // `\/`, `\"`, `\'`, `\\` and any other character stand for themselves.
        c => (Escape::Char(char::from(c)), 1),
    }
}

/// The value of `digits` as hexadecimal: one to six hex digits, `None` for anything else (or `None` given).
fn hex(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits.filter(|d| (1..=6).contains(&d.len()))?;
    digits
        .iter()
        .try_fold(0u32, |v, &d| Some(v * 16 + char::from(d).to_digit(16)?))
}

/// Whether a string literal is shaped like a URL or a site path rather than code or prose.
pub fn looks_like_link(s: &str) -> bool {
    if s.len() < 4
        || s.len() > MAX_LITERAL
        || s.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return false;
    }
    if s.contains([
        '<', '>', '{', '}', '$', '^', '|', '\\', '*', '(', ')', '[', ']', ',', ';',
    ]) {
        return false;
    }
    if let Some(rest) = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))
    {
        return rest.contains('.') && !rest.starts_with('/');
    }
    if s.starts_with("//") || !s.contains('/') {
        return false;
    }
    let path = s.split(['?', '#']).next().unwrap_or_default();
    let last = path.rsplit('/').next().unwrap_or_default();
    let has_extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    // A site path: absolute (`/x/y.html`, `/x/`) or relative with a file name (`img/a.png`); not `a/b`.
    (path.starts_with('/') && (has_extension || path.ends_with('/')) && path.len() > 1)
        || (!path.starts_with('/') && has_extension && !path.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn urls_and_paths_in_strings_not_code() {
        let base = Url::parse("http://a.org/js/app.js").unwrap();
        let js = br#"var u = "/js-only.html"; load('img/logo.png'); x = `https://b.org/api/`;
            var junk = "a/b", op = "text/html", s = "hello world.txt", re = '^/a/(b)$', d = "1/2";
            fetch("/data/list.json?page=2#top"); var esc = "\/escaped\/page.htm";"#;
        let (links, cut) = speculative_links(js, &base);
        let urls: Vec<&str> = links.iter().map(|o| o.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://a.org/js-only.html",
                "http://a.org/js/img/logo.png",
                "https://b.org/api/",
                "http://a.org/data/list.json?page=2",
                "http://a.org/escaped/page.htm"
            ]
        );
        assert!(!cut && links.iter().all(|o| o.hop == Hop::Speculative));
        assert!(is_script_or_json("application/javascript; charset=utf-8"));
        assert!(is_script_or_json("application/ld+json"));
        assert!(!is_script_or_json("text/html"));
    }

    #[test]
    fn inline_scripts_when_asked() {
        let base = Url::parse("http://a.org/").unwrap();
        let html = br#"<html><script>var p = "/inline.html", junk = "a/b";</script><a href="/a">a</a></html>"#;
        let on = crate::Limits {
            speculative: true,
            ..crate::Limits::default()
        };
        let found = crate::extract("text/html", html, None, &base, &on);
        let x: Vec<&str> = found
            .outlinks
            .iter()
            .filter(|o| o.hop == Hop::Speculative)
            .map(|o| o.url.as_str())
            .collect();
        assert_eq!(x, ["http://a.org/inline.html"]);
        let off = crate::extract("text/html", html, None, &base, &crate::Limits::default());
        assert!(off.outlinks.iter().all(|o| o.hop != Hop::Speculative));
    }

    /// Hostile JSON: nesting a million deep is read in one pass (the scanner keeps no stack), and a string
    /// that never closes ends at the input's end.
    #[test]
    fn deeply_nested_json_is_bounded() {
        let base = Url::parse("http://a.org/").unwrap();
        let mut json = "[".repeat(1_000_000);
        json.push_str("\"/deep.html\"");
        json.push_str(&"]".repeat(1_000_000));
        let (links, _) = speculative_links(json.as_bytes(), &base);
        assert_eq!(links.len(), 1);
        let (links, _) = speculative_links(b"[\"/never-closed.html", &base);
        assert!(links.is_empty());
    }

    #[test]
    fn capped_per_document() {
        let base = Url::parse("http://a.org/").unwrap();
        let many: String = (0..MAX_PER_DOCUMENT + 5)
            .map(|i| format!("\"/p{i}.html\" "))
            .collect();
        let (links, cut) = speculative_links(many.as_bytes(), &base);
        assert_eq!(links.len(), MAX_PER_DOCUMENT);
        assert!(cut);
    }

    /// A literal longer than MAX_LITERAL is read to its own closing quote: the links after it on the same line
    /// (a minified bundle, an inline script) are still found.
    #[test]
    fn a_long_literal_keeps_quote_parity() {
        let base = Url::parse("http://a.org/").unwrap();
        let long = "A".repeat(3000);
        for js in [
            format!(r#"var a="{long}",b="/min-after-long.html",c='/min-second.html';"#),
            format!(r#"var a=`{long}\`{long}`,b="/min-after-long.html",c='/min-second.html';"#),
            format!(r#"var a="{long}\"\u0041",b="/min-after-long.html",c='/min-second.html';"#),
        ] {
            let urls: Vec<String> = speculative_links(js.as_bytes(), &base)
                .0
                .iter()
                .map(|o| o.url.to_string())
                .collect();
            assert_eq!(
                urls,
                [
                    "http://a.org/min-after-long.html",
                    "http://a.org/min-second.html"
                ]
            );
        }
        // A link-shaped literal over the limit is no candidate.
        let over = format!("\"/{}.html\"", "a".repeat(MAX_LITERAL));
        assert!(candidates(over.as_bytes()).0.is_empty());
    }

    /// JSON and JavaScript escapes are decoded: `\u0026` is `&`, `\u002F` is `/`; `\n` is no link.
    #[test]
    fn escapes_are_decoded() {
        let base = Url::parse("http://a.org/").unwrap();
        let json = br#"{"next":"/list/page.html?a=1\u0026b=2","img":"\u002Fimg\u002Fx.png",
            "x":"/caf\xE9.html","emoji":"/\uD83D\uDE00.html","es6":"/\u{1F600}/","nl":"/a.html\n",
            "tab":"/b\t.html","lone":"/\uD83D.html","bad":"/\u12.html","oct":"/\101.html",
            "cont":"/line\
cont.html","q":"/say\"hi\".html","bs":"\/esc\/aped.htm"}"#;
        let (found, _) = candidates(json);
        assert_eq!(
            found,
            [
                "/list/page.html?a=1&b=2",
                "/img/x.png",
                "/caf\u{e9}.html",
                "/\u{1F600}.html",
                "/\u{1F600}/",
                "/linecont.html",
                "/say\"hi\".html",
                "/esc/aped.htm"
            ]
        );
        let urls: Vec<String> = speculative_links(json, &base)
            .0
            .iter()
            .map(|o| o.url.to_string())
            .collect();
        assert_eq!(urls[0], "http://a.org/list/page.html?a=1&b=2");
        assert_eq!(urls[1], "http://a.org/img/x.png");
    }

    /// A literal that resolves past MAX_URL_LEN bytes (against a long script URL) is dropped.
    #[test]
    fn overlong_links_are_dropped() {
        let base = Url::parse(&format!("http://a.org/{}/app.js", "d".repeat(MAX_URL_LEN))).unwrap();
        let (links, _) = speculative_links(br#"a="/short.html", b="rel/long.html""#, &base);
        let urls: Vec<&str> = links.iter().map(|o| o.url.as_str()).collect();
        assert_eq!(urls, ["http://a.org/short.html"]);
    }

    proptest! {
        /// Any link-shaped string, with every character written as a `\uXXXX` escape (surrogate pairs beyond
        /// the BMP) as JSON encoders may write it, is found as it is.
        #[test]
        fn escaped_literals_decode_to_themselves(path in "/[a-z0-9\u{e9}\u{1F600}/._-]{1,30}\\.html") {
            prop_assume!(looks_like_link(&path));
            let escaped: String = path.encode_utf16().map(|u| format!("\\u{u:04X}")).collect();
            let doc = format!("x = \"{escaped}\"; y = '{path}';");
            let (found, _) = candidates(doc.as_bytes());
            prop_assert_eq!(found, vec![path.clone()]);
        }

        #[test]
        fn any_bytes_scan_cleanly(body in proptest::collection::vec(any::<u8>(), 0..500)) {
            let base = Url::parse("http://a.org/").unwrap();
            let (links, _) = speculative_links(&body, &base);
            prop_assert!(links.len() <= MAX_PER_DOCUMENT);
        }
    }
}
