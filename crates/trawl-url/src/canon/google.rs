//! `google`: the GoogleURLCanonicalizer of IA's `surt` package (after Google's safe-browsing rules), the first
//! half of what `surt` does before it writes a SURT.
//!
//! The fragment goes; userinfo and query are unescaped until stable and escaped once; the host is unescaped,
//! IDNA-encoded, stripped of stray dots, read as an IP address in any of its numeric forms, lower-cased and
//! escaped; the path is unescaped, its `.`/`..` segments resolved and repeated slashes collapsed, then escaped.
//! URLs without a host (`mailto:`, `dns:`) are returned unchanged except for the fragment.
//!
//! Deviation: in the path, `?` and `\` are escaped too (IA leaves them bare), so that the output parses back to
//! the same path and the rule set stays idempotent; and a `..` above the root is dropped (IA keeps it, but the
//! URL parser would drop it when the output is read back). In the host, a run of dots becomes one (IA
//! replaces each `..` once, so `a....b` gives `a..b`, and again `a.b`), and a host of dots only stays `.`
//! (IA leaves no host, and the output would read back with its path as the host). A `/`, `?`, `@` or `\`
//! that unescaping puts in the host is escaped again (IA writes it bare, and it would end the host).

use std::net::Ipv4Addr;

use super::{parts::Parts, pct};

/// Applies Google's rules to the parts, in place.
pub(crate) fn apply(p: &mut Parts) {
    p.fragment = None;
    let Some(host) = p.host.take() else {
        return;
    };
    p.username = minimal_escape(&p.username);
    p.password = p.password.as_deref().map(minimal_escape);
    p.query = p.query.as_deref().map(minimal_escape);
    p.host = Some(canon_host(&host));
    p.path = canon_path(&p.path);
}

/// Unescape until stable, then escape Google's set once.
pub(super) fn minimal_escape(s: &str) -> String {
    if !pct::needs_recode(s) {
        return s.to_string();
    }
    pct::encode(&pct::decode_repeatedly(s), pct::google_set)
}

fn canon_host(host: &str) -> String {
    // The common case: a registered name the WHATWG parser already lower-cased and IDNA-encoded.
    let plain = host
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if plain
        && !host.starts_with(|c: char| c == '.' || c.is_ascii_digit())
        && !host.ends_with('.')
        && !host.contains("..")
    {
        return host.to_string();
    }
    let decoded = pct::decode_repeatedly(host);
    let text = String::from_utf8_lossy(&decoded);
    let mut h = if text.is_ascii() {
        text.into_owned()
    } else {
        idna::domain_to_ascii(&text).unwrap_or_else(|_| text.into_owned())
    };
    if h.starts_with('.') || h.ends_with('.') || h.contains("..") {
        h = super::semantic::without_empty_labels(&h);
    }
    // A host of dots only keeps one: trimmed to nothing, the URL would have no host to read back.
    let h = if h.is_empty() { "." } else { h.as_str() };
    if let Some(ip) = ip_formats(h) {
        return ip.to_string();
    }
    pct::encode(h.to_ascii_lowercase().as_bytes(), pct::host_set)
}

/// Reads a host written as an IPv4 address in any of the numeric forms browsers accept: dotted decimal, octal,
/// hex, fewer than four parts, or one integer (masked to 32 bits, as IA does for liveweb ARC files).
fn ip_formats(host: &str) -> Option<Ipv4Addr> {
    if !host.is_empty() && host.bytes().all(|b| b.is_ascii_digit()) {
        let n: u128 = host.parse().ok()?;
        return Some(Ipv4Addr::from((n & 0xffff_ffff) as u32));
    }
    if !host.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    match url::Host::parse(host) {
        Ok(url::Host::Ipv4(ip)) => Some(ip),
        _ => None,
    }
}

fn canon_path(path: &str) -> String {
    if path.is_empty() {
        return "/".to_string();
    }
    let simple = !pct::needs_recode(path)
        && !path.contains("//")
        && !path.contains("/.")
        && !path.contains(['?', '\\']);
    if simple {
        return path.to_string();
    }
    let decoded = pct::decode_repeatedly(path);
    let normal = normalize_path(&decoded);
    pct::encode(&normal, |b| pct::google_set(b) || b == b'?' || b == b'\\')
}

/// Resolves `.` and `..` segments and drops empty segments except a trailing one (`/a//b/` gives `/a/b/`).
/// A `..` that would climb above the root is dropped (IA keeps it; see the module notes).
pub(crate) fn normalize_path(path: &[u8]) -> Vec<u8> {
    let mut kept: Vec<&[u8]> = Vec::new();
    for seg in path.split(|&b| b == b'/').skip(1) {
        match seg {
            b"." => {}
            b".." => {
                kept.pop();
            }
            _ => kept.push(seg),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    out.push(b'/');
    if let Some((last, rest)) = kept.split_last() {
        for seg in rest.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(seg);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canon::Canonicalizer;

    #[test]
    fn rows() {
        let rows = [
            ("http://host/%25%32%35", "http://host/%25"),
            (
                "http://host/%%%25%32%35asd%%",
                "http://host/%25%25%25asd%25%25",
            ),
            ("http://www.google.com/blah/..", "http://www.google.com/"),
            ("http://www.google.com.../", "http://www.google.com/"),
            ("http://3279880203/blah", "http://195.127.0.11/blah"),
            (
                "http://host.com//twoslashes?more//slashes",
                "http://host.com/twoslashes?more//slashes",
            ),
            ("http://www.google.com/q?", "http://www.google.com/q?"),
            ("http://evil.com/foo#bar#baz", "http://evil.com/foo"),
            ("mailto:foo@example.com", "mailto:foo@example.com"),
            ("http://host/a%3Fb", "http://host/a%3Fb"),
        ];
        for (input, want) in rows {
            let url = url::Url::parse(input).unwrap();
            assert_eq!(Canonicalizer::Google.canonicalize(&url), want, "{input}");
        }
    }

    #[test]
    fn ip_forms() {
        assert_eq!(ip_formats("127.0.0.1"), Some(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(ip_formats("017.0.0.1"), Some(Ipv4Addr::new(15, 0, 0, 1)));
        assert_eq!(ip_formats("10.0.258"), Some(Ipv4Addr::new(10, 0, 1, 2)));
        assert_eq!(
            ip_formats("39024579298"),
            Some(Ipv4Addr::new(22, 11, 210, 226))
        );
        assert_eq!(ip_formats("1.2.3.256"), None);
        assert_eq!(ip_formats("www.foo.com"), None);
    }
}
