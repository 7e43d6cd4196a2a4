//! SURT: Sort-friendly URI Reordering Transform.
//!
//! Host labels are reversed so that a site's URLs sort together and a string prefix names a site, a subdomain tree
//! or a directory. This module writes the Heritrix form, `http://(org,archive,www,)/path`, which scope rules use.

use std::fmt;

use url::{Host, Url};

/// The Heritrix-form SURT of `url`: `scheme://(reversed,host,labels,:port@userinfo)/path?query`.
///
/// The port appears only when it is not the scheme's default; IP addresses are kept in their usual order.
pub fn heritrix(url: &Url) -> String {
    let mut out = String::with_capacity(url.as_str().len() + 4);
    out.push_str(url.scheme());
    out.push_str("://(");
    push_authority(&mut out, url);
    out.push(')');
    out.push_str(url.path());
    if let Some(q) = url.query() {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// The SURT authority of `url` (`org,archive,www,:8080`): the key of its politeness queue.
pub fn authority(url: &Url) -> String {
    let mut out = String::new();
    push_authority(&mut out, url);
    out
}

fn push_authority(out: &mut String, url: &Url) {
    match url.host() {
        Some(Host::Domain(d)) => {
            for label in d.rsplit('.').filter(|l| !l.is_empty()) {
                out.push_str(label);
                out.push(',');
            }
        }
        Some(Host::Ipv4(ip)) => out.push_str(&ip.to_string()),
        Some(Host::Ipv6(ip)) => {
            out.push('[');
            out.push_str(&ip.to_string());
            out.push(']');
        }
        None => {}
    }
    if let Some(port) = url.port() {
        out.push(':');
        out.push_str(&port.to_string());
    }
    if !url.username().is_empty() {
        out.push('@');
        out.push_str(url.username());
        if let Some(p) = url.password() {
            out.push(':');
            out.push_str(p);
        }
    }
}

/// A Heritrix-form SURT prefix: every URL whose SURT starts with it is inside.
///
/// Schemes are folded to `http` on both sides, as Heritrix does, so a site's http and https pages share a prefix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SurtPrefix(String);

impl SurtPrefix {
    /// The prefix a seed implies: its SURT up to and including the last `/` of the path
    /// (`http://www.archive.org/a/b.html` gives `http://(org,archive,www,)/a/`).
    pub fn from_seed(seed: &Url) -> SurtPrefix {
        let surt = http_surt(seed);
        let path_start = surt.find(")/").map_or(surt.len(), |i| i + 1);
        let cut = surt[path_start..]
            .split(['?'])
            .next()
            .and_then(|path| path.rfind('/'))
            .map_or(surt.len(), |i| path_start + i + 1);
        SurtPrefix(surt[..cut].to_string())
    }

    /// Takes a prefix written by an operator, in SURT form already.
    pub fn new(prefix: impl Into<String>) -> SurtPrefix {
        SurtPrefix(prefix.into())
    }

    /// Whether `url` lies inside this prefix.
    pub fn contains(&self, url: &Url) -> bool {
        http_surt(url).starts_with(&self.0)
    }

    /// The prefix as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SurtPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The Heritrix SURT with the scheme folded to `http`.
fn http_surt(url: &Url) -> String {
    let surt = heritrix(url);
    match surt.split_once("://") {
        Some((_, rest)) => format!("http://{rest}"),
        None => surt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn heritrix_form() {
        let rows = [
            (
                "http://www.archive.org/goo/",
                "http://(org,archive,www,)/goo/",
            ),
            (
                "https://archive.org:8443/a?b=1",
                "https://(org,archive,:8443)/a?b=1",
            ),
            ("http://127.0.0.1:4000/x", "http://(127.0.0.1:4000)/x"),
            ("http://u:p@a.b/", "http://(b,a,@u:p)/"),
        ];
        for (input, want) in rows {
            assert_eq!(heritrix(&u(input)), want, "{input}");
        }
    }

    #[test]
    fn seed_prefixes() {
        let rows = [
            ("http://www.archive.org/", "http://(org,archive,www,)/"),
            (
                "https://www.archive.org/a/b.html",
                "http://(org,archive,www,)/a/",
            ),
            ("http://a.org/a/b/?x=/y/", "http://(org,a,)/a/b/"),
        ];
        for (seed, want) in rows {
            assert_eq!(SurtPrefix::from_seed(&u(seed)).as_str(), want, "{seed}");
        }
    }

    #[test]
    fn containment() {
        let p = SurtPrefix::from_seed(&u("http://example.com/docs/index.html"));
        assert!(p.contains(&u("https://example.com/docs/x/y")));
        assert!(!p.contains(&u("http://example.com/other")));
        assert!(!p.contains(&u("http://www.example.com/docs/")));
        let host = SurtPrefix::from_seed(&u("http://127.0.0.1:4000/"));
        assert!(host.contains(&u("http://127.0.0.1:4000/a")));
        assert!(!host.contains(&u("http://127.0.0.1:40001/a")));
        assert!(!host.contains(&u("http://127.0.0.2:4000/a")));
    }
}
