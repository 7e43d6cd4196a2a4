//! The CDX form of SURT, as IA's `surt` package writes it.

use url::Url;

use crate::canon::ia_parts;

/// The options of IA's `surt()`; [`Default`] gives `surt`'s defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SurtOptions {
    /// Start with `scheme://(`, as in `http://(org,archive)/`. Default: false.
    pub with_scheme: bool,
    /// End the host with a comma, `org,archive,)/` (after an IP address too, as `surt` 0.3.1 does). Default: false.
    pub trailing_comma: bool,
    /// Strip a leading `www.`/`wwwN.` from the host. Default: true.
    pub host_massage: bool,
    /// Reverse the octets of an IPv4 address like any host (`1,0,0,127)`). Default: true.
    pub reverse_ipaddr: bool,
}

impl Default for SurtOptions {
    fn default() -> Self {
        SurtOptions {
            with_scheme: false,
            trailing_comma: false,
            host_massage: true,
            reverse_ipaddr: true,
        }
    }
}

/// The CDX-form SURT of `url` with IA's canonicalization (GoogleURLCanonicalizer then IAURLCanonicalizer):
/// `http://www.archive.org/goo/?a=2&b&a=1` gives `org,archive)/goo?a=1&a=2&b`.
///
/// URLs without a host (`dns:archive.org`, `mailto:...`) come back lower-cased, as `surt` writes them (their
/// SURT is the URL itself, not a reversed host); `filedesc:` URLs come back as they are. An IPv6 host is written
/// without its brackets (`2001:db8::1)/`), as in CDX indexes.
///
/// ```
/// use trawl_url::{Url, surt::{cdx, SurtOptions}};
/// let u = Url::parse("http://www.archive.org/goo/?a=2&b&a=1").unwrap();
/// assert_eq!(cdx(&u, &SurtOptions::default()), "org,archive)/goo?a=1&a=2&b");
/// ```
pub fn cdx(url: &Url, opts: &SurtOptions) -> String {
    if url.scheme() == "filedesc" {
        return url.as_str().to_string();
    }
    let p = ia_parts(url, opts.host_massage);
    let mut out = String::with_capacity(url.as_str().len() + 8);
    let Some(host) = &p.host else {
        out.push_str(&p.scheme);
        out.push(':');
        out.push_str(&p.path);
        if let Some(q) = &p.query {
            out.push('?');
            out.push_str(q);
        }
        out.make_ascii_lowercase();
        return out;
    };
    if opts.with_scheme {
        out.push_str(&p.scheme);
        out.push_str("://(");
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        out.push_str(v6);
    } else if is_dotted_quad(host) && !opts.reverse_ipaddr {
        out.push_str(host);
    } else {
        for (i, label) in host.rsplit('.').enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(label);
        }
    }
    if let Some(port) = p.port {
        out.push(':');
        out.push_str(&port.to_string());
    }
    if opts.trailing_comma {
        out.push(',');
    }
    out.push(')');
    if p.path.is_empty() && p.query.is_some() {
        out.push('/');
    }
    out.push_str(&p.path);
    if let Some(q) = &p.query {
        out.push('?');
        out.push_str(q);
    }
    out
}

fn is_dotted_quad(host: &str) -> bool {
    let mut n = 0;
    for part in host.split('.') {
        n += 1;
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    n == 4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(input: &str, opts: SurtOptions) -> String {
        cdx(&Url::parse(input).unwrap(), &opts)
    }

    #[test]
    fn defaults() {
        let d = SurtOptions::default();
        let rows = [
            ("http://www.archive.org/", "org,archive)/"),
            ("http://archive.org/goo/", "org,archive)/goo"),
            ("http://archive.org/goo/?", "org,archive)/goo"),
            ("http://archive.org/goo/?b&a", "org,archive)/goo?a&b"),
            (
                "http://archive.org/goo/?a=2&b&a=1",
                "org,archive)/goo?a=1&a=2&b",
            ),
            ("dns:archive.org", "dns:archive.org"),
            ("filedesc://foo.arc.gz", "filedesc://foo.arc.gz"),
            (
                "whois://whois.isoc.org.il/shaveh.co.il",
                "il,org,isoc,whois)/shaveh.co.il",
            ),
            ("http://127.0.0.1:8080/x", "1,0,0,127:8080)/x"),
            ("mailto:foo@example.com", "mailto:foo@example.com"),
        ];
        for (input, want) in rows {
            assert_eq!(s(input, d), want, "{input}");
        }
    }

    #[test]
    fn options() {
        let o = |with_scheme, trailing_comma, host_massage, reverse_ipaddr| SurtOptions {
            with_scheme,
            trailing_comma,
            host_massage,
            reverse_ipaddr,
        };
        let rows = [
            (
                "http://www.example.com/",
                o(true, false, true, true),
                "http://(com,example)/",
            ),
            (
                "http://www.example.com/",
                o(true, true, true, true),
                "http://(com,example,)/",
            ),
            (
                "https://www.example.com/",
                o(true, true, false, true),
                "https://(com,example,www,)/",
            ),
            (
                "http://www.example.com/",
                o(false, false, false, true),
                "com,example,www)/",
            ),
            (
                "ftp://www.example.com/",
                o(true, true, true, true),
                "ftp://(com,example,)/",
            ),
            (
                "http://127.0.0.1/",
                o(false, true, true, false),
                "127.0.0.1,)/",
            ),
            (
                "http://127.0.0.1/",
                o(true, true, true, true),
                "http://(1,0,0,127,)/",
            ),
            (
                "http://[2001:DB8::1]:8080/",
                o(false, false, true, true),
                "2001:db8::1:8080)/",
            ),
            (
                "dns:WWW.Example.com",
                o(false, false, true, true),
                "dns:www.example.com",
            ),
        ];
        for (input, opts, want) in rows {
            assert_eq!(s(input, opts), want, "{input} {opts:?}");
        }
    }
}
