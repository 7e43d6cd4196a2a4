//! Links in CSS: `url(…)`, `@import "…"` and `image-set("…")`.
//!
//! This is a small hand-written scanner that follows the CSS Syntax Level 3
//! tokenizer only as far as links need: comments, strings and their escapes,
//! identifiers (so `myurl(` is not `url(`), and `url(` tokens quoted or not.
//! DESIGN.md suggests the `cssparser` tokenizer that lol_html pulls in, but
//! trawl-engine does not depend on it directly and the part we need is about
//! 200 lines; a scanner of our own also never allocates for anything but
//! the URLs themselves.
//!
//! Every CSS link is an [`Hop::Embed`]. URLs are resolved with UTF-8 query
//! encoding, as CSS Values 4 specifies, whatever the style sheet's encoding.

use encoding_rs::Encoding;
use url::Url;

use super::{CssOutlinks, Limits, Outlink, OutlinkSet, charset};
use crate::hop::Hop;

/// Extracts the links of a CSS style sheet fetched from `doc_url`.
///
/// The encoding comes from a byte order mark, the `charset` parameter of
/// `content_type`, or a leading `@charset` rule, in that order; UTF-8 if
/// none. Links past [`Limits::max_outlinks`] are dropped.
pub fn extract_css(
    body: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
    limits: &Limits,
) -> Vec<Outlink> {
    extract_css_full(body, content_type, doc_url, limits)
        .1
        .outlinks
}

/// [`extract_css`], also returning the encoding used and the truncation flag.
pub(crate) fn extract_css_full(
    body: &[u8],
    content_type: Option<&str>,
    doc_url: &Url,
    limits: &Limits,
) -> (&'static Encoding, CssOutlinks) {
    let encoding = charset::sniff_css(body, content_type);
    let (text, _) = encoding.decode_with_bom_removal(body);
    let mut set = OutlinkSet::new(limits);
    scan(&text, |raw, kind| {
        let context = match kind {
            CssRef::Url => "css/url()",
            CssRef::Import => "css/@import",
        };
        set.add(&raw, doc_url, None, Hop::Embed, context);
        !set.is_truncated()
    });
    let (outlinks, truncated) = set.into_parts();
    (
        encoding,
        CssOutlinks {
            outlinks,
            truncated,
        },
    )
}

/// What kind of reference [`scan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CssRef {
    /// `url(…)` or a string inside `image-set(…)`.
    Url,
    /// The target of an `@import` rule.
    Import,
}

/// Scans CSS text and calls `found` with each raw URL, unresolved; stops
/// early when `found` returns false.
pub(crate) fn scan(css: &str, mut found: impl FnMut(String, CssRef) -> bool) {
    let b = css.as_bytes();
    let mut i = 0;
    // Set by `@import`, cleared by the next string, url, `;` or `{`.
    let mut in_import = false;
    // Parenthesis depth, and the depth at which an image-set( was opened.
    let mut depth = 0usize;
    let mut image_set_at: Option<usize> = None;
    while i < b.len() {
        let c = b[i];
        let hit = match c {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |p| p + 2);
                None
            }
            b'"' | b'\'' => {
                let (s, next) = string(css, i);
                i = next;
                let kind = if in_import {
                    Some(CssRef::Import)
                } else if image_set_at.is_some() {
                    Some(CssRef::Url)
                } else {
                    None
                };
                in_import = false;
                kind.and_then(|k| s.map(|s| (s, k)))
            }
            b'@' => {
                let (name, next) = ident(css, i + 1);
                i = next;
                in_import = name.eq_ignore_ascii_case("import");
                None
            }
            b';' | b'{' | b'}' => {
                in_import = false;
                i += 1;
                None
            }
            b'(' => {
                depth += 1;
                i += 1;
                None
            }
            b')' => {
                depth = depth.saturating_sub(1);
                if image_set_at == Some(depth) {
                    image_set_at = None;
                }
                i += 1;
                None
            }
            _ if starts_ident(b, i) => {
                let (name, next) = ident(css, i);
                i = next;
                if b.get(i) != Some(&b'(') {
                    None
                } else if name.eq_ignore_ascii_case("url") {
                    let (s, next) = url(css, i + 1);
                    i = next;
                    let kind = if in_import {
                        CssRef::Import
                    } else {
                        CssRef::Url
                    };
                    in_import = false;
                    s.map(|s| (s, kind))
                } else {
                    if image_set_at.is_none()
                        && (name.eq_ignore_ascii_case("image-set")
                            || name.eq_ignore_ascii_case("-webkit-image-set"))
                    {
                        image_set_at = Some(depth);
                    }
                    None
                }
            }
            b'\\' => {
                i += 2;
                None
            }
            _ => {
                i += 1;
                None
            }
        };
        if let Some((s, kind)) = hit
            && !found(s, kind)
        {
            return;
        }
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c >= 0x80
}

/// True when a valid escape (`\` not followed by a newline) is at `i`.
fn valid_escape(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'\\')
        && b.get(i + 1)
            .is_some_and(|&c| c != b'\n' && c != b'\r' && c != 0x0C)
}

/// True when an identifier starts at `i` (CSS Syntax §4.3.9).
fn starts_ident(b: &[u8], i: usize) -> bool {
    let first = |j: usize| {
        b.get(j)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80)
            || valid_escape(b, j)
    };
    match b[i] {
        b'-' => b.get(i + 1) == Some(&b'-') || first(i + 1),
        _ => first(i),
    }
}

/// Reads an identifier at `i`; returns (up to) its first 32 characters,
/// escapes decoded, and the position after it.
fn ident(css: &str, mut i: usize) -> (String, usize) {
    let b = css.as_bytes();
    let mut name = String::new();
    loop {
        if b.get(i).is_some_and(|&c| is_name_char(c)) {
            let start = i;
            while b.get(i).is_some_and(|&c| is_name_char(c)) {
                i += 1;
            }
            push_limited(&mut name, &css[start..i]);
        } else if valid_escape(b, i) {
            let (c, next) = escape(css, i + 1);
            i = next;
            if name.len() < 32 {
                name.push(c);
            }
        } else {
            return (name, i);
        }
    }
}

fn push_limited(name: &mut String, s: &str) {
    for c in s.chars() {
        if name.len() >= 32 {
            return;
        }
        name.push(c);
    }
}

/// Decodes the escape whose `\` is just before `i`; returns the character
/// and the position after the escape.
fn escape(css: &str, i: usize) -> (char, usize) {
    let b = css.as_bytes();
    let hex = b[i..]
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_hexdigit())
        .count();
    if hex > 0 {
        let n = u32::from_str_radix(&css[i..i + hex], 16).unwrap_or(0);
        let mut next = i + hex;
        if b.get(next) == Some(&b'\r') && b.get(next + 1) == Some(&b'\n') {
            next += 2;
        } else if b.get(next).is_some_and(|&c| is_ws(c)) {
            next += 1;
        }
        let c = match n {
            0 => '\u{FFFD}',
            n => char::from_u32(n).unwrap_or('\u{FFFD}'),
        };
        return (c, next);
    }
    match css[i..].chars().next() {
        Some(c) => (c, i + c.len_utf8()),
        None => ('\u{FFFD}', i),
    }
}

/// Reads a string whose quote is at `i`; returns its value (`None` for a
/// bad string: an unescaped newline) and the position after it.
fn string(css: &str, i: usize) -> (Option<String>, usize) {
    let b = css.as_bytes();
    let quote = b[i];
    let mut out = String::new();
    let mut j = i + 1;
    loop {
        let start = j;
        while b
            .get(j)
            .is_some_and(|&c| c != quote && c != b'\\' && c != b'\n' && c != b'\r' && c != 0x0C)
        {
            j += 1;
        }
        out.push_str(&css[start..j]);
        match b.get(j) {
            None => return (Some(out), j),
            Some(&c) if c == quote => return (Some(out), j + 1),
            Some(b'\\') => match b.get(j + 1) {
                None => j += 1,
                Some(b'\r') if b.get(j + 2) == Some(&b'\n') => j += 3,
                Some(b'\n' | b'\r' | 0x0C) => j += 2,
                Some(_) => {
                    let (c, next) = escape(css, j + 1);
                    out.push(c);
                    j = next;
                }
            },
            Some(_) => return (None, j),
        }
    }
}

/// Reads the rest of a `url(` whose `(` is just before `i`; returns the
/// URL (`None` for a bad url) and the position after the closing `)`.
fn url(css: &str, mut i: usize) -> (Option<String>, usize) {
    let b = css.as_bytes();
    while b.get(i).is_some_and(|&c| is_ws(c)) {
        i += 1;
    }
    if let Some(b'"' | b'\'') = b.get(i) {
        // `url("…")` is a function holding a string.
        let (s, mut next) = string(css, i);
        while b.get(next).is_some_and(|&c| is_ws(c)) {
            next += 1;
        }
        if b.get(next) == Some(&b')') {
            next += 1;
        }
        return (s, next);
    }
    let mut out = String::new();
    loop {
        let start = i;
        while b.get(i).is_some_and(|&c| {
            !is_ws(c) && !matches!(c, b')' | b'"' | b'\'' | b'(' | b'\\') && !is_non_printable(c)
        }) {
            i += 1;
        }
        out.push_str(&css[start..i]);
        match b.get(i) {
            None => return (Some(out), i),
            Some(b')') => return (Some(out), i + 1),
            Some(&c) if is_ws(c) => {
                while b.get(i).is_some_and(|&c| is_ws(c)) {
                    i += 1;
                }
                match b.get(i) {
                    None => return (Some(out), i),
                    Some(b')') => return (Some(out), i + 1),
                    _ => return (None, bad_url_rest(css, i)),
                }
            }
            Some(b'\\') if valid_escape(b, i) => {
                let (c, next) = escape(css, i + 1);
                out.push(c);
                i = next;
            }
            Some(_) => return (None, bad_url_rest(css, i)),
        }
    }
}

fn is_non_printable(c: u8) -> bool {
    matches!(c, 0x00..=0x08 | 0x0B | 0x0E..=0x1F | 0x7F)
}

/// Skips the remnants of a bad url up to and including `)`.
fn bad_url_rest(css: &str, mut i: usize) -> usize {
    let b = css.as_bytes();
    while let Some(&c) = b.get(i) {
        if c == b')' {
            return i + 1;
        }
        if valid_escape(b, i) {
            i = escape(css, i + 1).1;
        } else {
            i += 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(css: &str) -> Vec<(String, CssRef)> {
        let mut out = Vec::new();
        scan(css, |s, k| {
            out.push((s, k));
            true
        });
        out
    }

    macro_rules! case {
        ($name:ident, $css:expr, [$(($url:expr, $kind:ident)),* $(,)?]) => {
            #[test]
            fn $name() {
                let want: Vec<(String, CssRef)> = vec![$(($url.to_string(), CssRef::$kind)),*];
                assert_eq!(scanned($css), want);
            }
        };
    }

    case!(unquoted, "a{background:url(x.png)}", [("x.png", Url)]);
    case!(
        double_quoted,
        "a{background:url(\"x y.png\")}",
        [("x y.png", Url)]
    );
    case!(
        single_quoted_spaces,
        "a{b:url(  'x.png'  )}",
        [("x.png", Url)]
    );
    case!(unquoted_padded, "a{b:url(  x.png  )}", [("x.png", Url)]);
    case!(upper_case_url, "a{b:URL(x.png)}", [("x.png", Url)]);
    case!(import_string, "@import \"a.css\";", [("a.css", Import)]);
    case!(
        import_url,
        "@import url(a.css) screen;",
        [("a.css", Import)]
    );
    case!(
        import_url_quoted,
        "@IMPORT url('a.css');",
        [("a.css", Import)]
    );
    case!(plain_string_ignored, "a::before{content:\"x.png\"}", []);
    case!(
        comment_ignored,
        "/* url(no.png) */a{b:url(yes.png)}",
        [("yes.png", Url)]
    );
    case!(
        unterminated_comment,
        "a{b:url(yes.png)} /* url(no.png)",
        [("yes.png", Url)]
    );
    case!(url_in_string_ignored, "a{content:'url(no.png)'}", []);
    case!(not_url_function, "a{b:myurl(no.png)}", []);
    case!(
        escapes_in_url,
        "a{b:url(a\\(b\\29.png)}",
        [("a(b).png", Url)]
    );
    case!(escapes_in_string, "a{b:url('a\\'b\\\nc')}", [("a'bc", Url)]);
    case!(bad_url_dropped, "a{b:url(a b)} c{d:url(ok)}", [("ok", Url)]);
    case!(
        bad_url_quote_dropped,
        "a{b:url(a\"b)} c{d:url(ok)}",
        [("ok", Url)]
    );
    case!(
        bad_string_dropped,
        "@import 'a\n; a{b:url(ok)}",
        [("ok", Url)]
    );
    case!(
        font_face,
        "@font-face{src:url(f.woff2) format('woff2'),url(f.woff)}",
        [("f.woff2", Url), ("f.woff", Url)]
    );
    case!(
        image_set,
        "a{b:image-set('a.png' 1x, url(b.png) 2x)} c{content:'no'}",
        [("a.png", Url), ("b.png", Url)]
    );
    case!(unterminated_url, "a{b:url(x.png", [("x.png", Url)]);
    case!(escaped_url_name, "a{b:u\\72l(x.png)}", [("x.png", Url)]);
    case!(hyphen_ident, "a{b:-url(no.png)}", []);

    #[test]
    fn stops_when_told() {
        let mut n = 0;
        scan("url(a) url(b) url(c)", |_, _| {
            n += 1;
            n < 2
        });
        assert_eq!(n, 2);
    }
}
