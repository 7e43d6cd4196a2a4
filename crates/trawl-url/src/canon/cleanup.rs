//! The canonical URL's last fallback: the raw URL with only what no server can tell apart cleaned away.
//!
//! Two URLs the cleanup makes one are one entry in the already-seen filter, so only the first is ever fetched.
//! It therefore changes only what RFC 3986 (6.2.2, syntax-based normalization) calls equivalent, or what the
//! server never receives:
//! - the fragment and the userinfo are dropped: neither is part of the request target (Heritrix's uniq key
//!   drops the userinfo too);
//! - empty host labels go (`.example.com.`, `a..b.com`): a DNS name has none, so they name one host;
//! - in the path and the query, an escape of an unreserved character (`A-Z a-z 0-9 - . _ ~`) is decoded once
//!   (`%7e` is `~`, `%41` is `A`; RFC 3986 6.2.2.2), and every other escape is written with upper-case hex
//!   (`%2f` is `%2F`; 6.2.2.1). The escape of a reserved or other character is kept as written, because a
//!   server splits the path at `/` and the query at `&` and `=` before it decodes, and reads `+` as a space in
//!   a form: `%2B` and `+`, `%2F` and `/`, `%3D` and `=`, `%26` and `&`, `%3F` and `?`, `%23`, `%25` and the
//!   other gen-delims and sub-delims are different requests. A component with a stray `%` (not followed by two
//!   hex digits) is left as it is: decoding next to it could make a new escape (`%%34%31` would become `%41`),
//!   and servers differ on what a stray `%` means;
//! - nothing else: the query's arguments keep their order (a server may read the last of a repeated key, or
//!   the query as one string; Heritrix's uniq key keeps the order too), repeated slashes stay (`/a//b` is
//!   another path to many servers), and escapes are decoded once, never until stable (`%2541` is `%41` to the
//!   server, not `A`).
//!
//! The `url` crate's parser has already done the rest of RFC 3986 6.2: lower-case scheme and host, no default
//! port, an empty http(s) path written `/`, dot segments resolved (`%2e` counts as a dot, so decoding cannot
//! make a new dot segment).
//!
//! This is not the `semantic` canonicalizer, which unescapes everything and sorts the arguments (urlcanon's
//! "would load the same page in a browser"): that is a rule set the uniq key may be configured to use, never
//! the fallback every canonicalizer starts from.

use url::Url;

use super::{parts::Parts, semantic};

/// The cleaned raw URL. Most URLs need no cleaning: those are cloned, neither serialized nor parsed again (a
/// parse was 4% of a crawl's CPU); the check reads the path and query once and allocates nothing.
pub(crate) fn cleanup(raw: &Url) -> Url {
    let host = raw.domain().filter(|h| has_empty_label(h));
    let path = recode(raw.path());
    let query = raw.query().and_then(recode);
    if host.is_none()
        && path.is_none()
        && query.is_none()
        && raw.fragment().is_none()
        && raw.username().is_empty()
        && raw.password().is_none()
    {
        return raw.clone();
    }
    let mut p = Parts::from_url(raw);
    p.fragment = None;
    p.username.clear();
    p.password = None;
    if let Some(h) = host {
        p.host = Some(semantic::fix_host_dots(h));
    }
    if let Some(path) = path {
        p.path = path;
    }
    if query.is_some() {
        p.query = query;
    }
    Url::parse(&p.serialize()).unwrap_or_else(|_| {
        let mut u = raw.clone();
        u.set_fragment(None);
        u
    })
}

fn has_empty_label(host: &str) -> bool {
    host.starts_with('.') || host.ends_with('.') || host.contains("..")
}

/// `s` with each escape of an unreserved character decoded and every other escape's hex upper-cased; `None`
/// when that changes nothing, or when `s` has a stray `%` (then it is kept as written).
pub(crate) fn recode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut first = None;
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'%') {
        let at = i + off;
        let (Some(h), Some(l)) = (hex(b.get(at + 1)), hex(b.get(at + 2))) else {
            return None;
        };
        if first.is_none()
            && (is_unreserved(h << 4 | l) || b[at + 1..at + 3].iter().any(u8::is_ascii_lowercase))
        {
            first = Some(at);
        }
        i = at + 3;
    }
    let first = first?;
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..first]);
    let mut i = first;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (hex(b.get(i + 1)), hex(b.get(i + 2)))
        {
            let c = h << 4 | l;
            if is_unreserved(c) {
                out.push(char::from(c));
            } else {
                out.push('%');
                out.push(char::from(b[i + 1].to_ascii_uppercase()));
                out.push(char::from(b[i + 2].to_ascii_uppercase()));
            }
            i += 3;
            continue;
        }
        // Copy up to the next escape; `%` is ASCII, so the cut is on a character boundary.
        let next = b[i + 1..]
            .iter()
            .position(|&c| c == b'%')
            .map_or(b.len(), |o| i + 1 + o);
        out.push_str(&s[i..next]);
        i = next;
    }
    Some(out)
}

fn hex(b: Option<&u8>) -> Option<u8> {
    let b = *b?;
    char::from(b)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

/// RFC 3986's unreserved characters: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(s: &str) -> String {
        cleanup(&Url::parse(s).unwrap()).to_string()
    }

    #[test]
    fn rows() {
        let rows = [
            // Unchanged: nothing to clean (the fast path).
            (
                "http://example.com/a/b?x=1&y=2",
                "http://example.com/a/b?x=1&y=2",
            ),
            // Userinfo and fragment dropped, unreserved escapes decoded, the arguments' order kept.
            (
                "http://a:b@example.com/x/%7e?b=1&a=2#f",
                "http://example.com/x/~?b=1&a=2",
            ),
            (
                "http://example.com/foo%41%7a%2D%5f",
                "http://example.com/fooAz-_",
            ),
            // Reserved escapes kept; their hex upper-cased.
            ("http://e.com/p?q=a%2bb", "http://e.com/p?q=a%2Bb"),
            ("http://e.com/p?q=a+b", "http://e.com/p?q=a+b"),
            ("http://e.com/enc/a%2fb", "http://e.com/enc/a%2Fb"),
            (
                "http://e.com/s?q=%3d&x=%26%3f%23%25",
                "http://e.com/s?q=%3D&x=%26%3F%23%25",
            ),
            ("http://e.com/r?a=2&a=1", "http://e.com/r?a=2&a=1"),
            // Other escapes kept too (non-ASCII, space), upper-cased.
            ("http://e.com/%e2%82%ac%20", "http://e.com/%E2%82%AC%20"),
            // Decoded once, never until stable: `%2541` is `%41` to a server.
            ("http://e.com/%2541", "http://e.com/%2541"),
            ("http://e.com/%25%34%31", "http://e.com/%2541"),
            // A stray `%` keeps its component as written.
            ("http://e.com/%%34%31?a=%41", "http://e.com/%%34%31?a=A"),
            // Repeated slashes and an empty query stay.
            ("http://e.com//a//b?", "http://e.com//a//b?"),
            // Empty host labels go.
            ("http://.example.com./x", "http://example.com/x"),
            ("http://a..b.com/", "http://a.b.com/"),
            // No host: only the fragment goes.
            ("mailto:x@y#f", "mailto:x@y"),
        ];
        for (input, want) in rows {
            assert_eq!(clean(input), want, "{input}");
        }
    }

    #[test]
    fn unchanged_is_the_same_url() {
        let u = Url::parse("https://example.com/%C3%A9t%C3%A9?q=%2B").unwrap();
        assert_eq!(cleanup(&u), u);
    }
}
