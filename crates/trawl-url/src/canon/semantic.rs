//! `semantic`: urlcanon's semantic canonicalizer — URLs that would load the same thing in a browser get the
//! same form. WHATWG parsing, then: userinfo and fragment removed; stray dots in the host removed; the path
//! unescaped until stable and re-escaped minimally, `.`/`..` resolved and repeated slashes collapsed; each query
//! key and value unescaped and re-escaped minimally (keeping `&` and `=` escaped) and the arguments sorted.
//!
//! Deviation: `\` is escaped in the path (urlcanon leaves it bare), because a bare `\` reads back as `/`.

use super::{ia, parts::Parts, pct};

/// Applies the semantic rules in place.
pub(crate) fn apply(p: &mut Parts) {
    p.fragment = None;
    p.username.clear();
    p.password = None;
    let Some(host) = p.host.as_mut() else {
        return;
    };
    // Unescaped first, so that a `%2E` is a dot by the time stray dots go.
    if pct::needs_recode(host) {
        *host = pct::encode(&pct::decode_repeatedly(host), pct::host_set);
    }
    if host.starts_with('.') || host.ends_with('.') || host.contains("..") {
        *host = fix_host_dots(host);
        // `4..` is now `4`, which the URL parser reads back as an IPv4 address: write it as one.
        if let Ok(url::Host::Ipv4(ip)) = url::Host::parse(host) {
            *host = ip.to_string();
        }
    }
    if pct::needs_recode(&p.path) || p.path.contains("//") || p.path.contains('\\') {
        let decoded = pct::decode_repeatedly(&p.path);
        let resolved = resolve_dots(&decoded);
        let collapsed = collapse_slashes(&resolved);
        p.path = pct::encode(&collapsed, |b| {
            pct::google_set(b) || b == b'?' || b == b'\\'
        });
    }
    if p.path.is_empty() {
        p.path.push('/');
    }
    if let Some(q) = p.query.as_deref()
        && !q.is_empty()
    {
        let recoded = recode_query(q);
        p.query = Some(ia::alpha_reorder(&recoded));
    }
}

/// The host without empty labels; a host of dots only is urlcanon's `0.0.0.0` (an IPv4 address of empty
/// parts), never an empty host.
pub(super) fn fix_host_dots(host: &str) -> String {
    let fixed = without_empty_labels(host);
    if fixed.is_empty() {
        "0.0.0.0".to_owned()
    } else {
        fixed
    }
}

/// `host` without empty labels: no dot at either end, and a run of dots written as one.
pub(super) fn without_empty_labels(host: &str) -> String {
    host.split('.')
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(".")
}

/// Resolves `.` and `..` segments as the WHATWG parser does (empty segments count; `..` at the root stays at
/// the root).
pub(crate) fn resolve_dots(path: &[u8]) -> Vec<u8> {
    if !path.starts_with(b"/") {
        return path.to_vec();
    }
    let segs: Vec<&[u8]> = path[1..].split(|&b| b == b'/').collect();
    let mut kept: Vec<&[u8]> = Vec::with_capacity(segs.len());
    let n = segs.len();
    for (i, seg) in segs.into_iter().enumerate() {
        let last = i + 1 == n;
        match seg {
            b"." => {
                if last {
                    kept.push(b"");
                }
            }
            b".." => {
                kept.pop();
                if last {
                    kept.push(b"");
                }
            }
            _ => kept.push(seg),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    for seg in kept {
        out.push(b'/');
        out.extend_from_slice(seg);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

fn collapse_slashes(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    for &b in path {
        if !(b == b'/' && out.last() == Some(&b'/')) {
            out.push(b);
        }
    }
    out
}

/// Unescapes each key and value until stable, then escapes controls, space, non-ASCII, `#`, `%`, `&` and `=`.
fn recode_query(q: &str) -> String {
    let esc = |b: u8| pct::google_set(b) || b == b'&' || b == b'=';
    let mut out = String::with_capacity(q.len());
    for (i, arg) in q.split('&').enumerate() {
        if i > 0 {
            out.push('&');
        }
        match arg.split_once('=') {
            Some((k, v)) => {
                out.push_str(&pct::encode(&pct::decode_repeatedly(k), esc));
                out.push('=');
                out.push_str(&pct::encode(&pct::decode_repeatedly(v), esc));
            }
            None => out.push_str(&pct::encode(&pct::decode_repeatedly(arg), esc)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::canon::Canonicalizer;

    #[test]
    fn rows() {
        let rows = [
            ("http://a:b@www.example.com", "http://www.example.com/"),
            ("http://example.com/%3A%3a%3C%3c", "http://example.com/::<<"),
            ("http://example.com/foo%41%7a", "http://example.com/fooAz"),
            ("http://example.com/?c=d&a=b", "http://example.com/?a=b&c=d"),
            (
                "http://example.com/?%3d=%3d&%3d",
                "http://example.com/?%3D&%3D=%3D",
            ),
            ("http://host/%2561", "http://host/a"),
            ("http://www.evil.com/blah#frag", "http://www.evil.com/blah"),
            (
                "http://host.com//twoslashes?more//slashes",
                "http://host.com/twoslashes?more//slashes",
            ),
            ("http://www.google.com/q?", "http://www.google.com/q?"),
        ];
        for (input, want) in rows {
            let url = url::Url::parse(input).unwrap();
            assert_eq!(Canonicalizer::Semantic.canonicalize(&url), want, "{input}");
        }
    }
}
