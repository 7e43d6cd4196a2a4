//! The Heritrix form of SURT (`org.archive.util.SURT`) and the SURT prefixes seeds imply (`SurtPrefixSet`).

use std::fmt;

use url::{Host, Url};

use crate::{Error, resolve::parse_lenient};

/// The Heritrix-form SURT of `url`: `scheme://(reversed,host,labels,:port@userinfo)/path?query`, lower-cased
/// throughout, as Heritrix's `SURT.fromURI` writes it.
///
/// Each host label is followed by a comma (`(org,archive,www,)`). A dotted-quad IPv4 address is kept in its
/// usual order without a comma (`(127.0.0.1:8080)`); an IPv6 address has no dots, so it is one label
/// (`([::1],:8080)`). A trailing dot of the host is left out (`a.org.` is `a.org`). The port appears only when
/// it is not the scheme's default. The fragment is left out.
///
/// A URL without an authority (`mailto:x@y`, `dns:Example.COM`) is its own SURT, case kept, as Heritrix returns
/// a string its authority pattern does not match unchanged.
pub fn heritrix(url: &Url) -> String {
    if !url.has_authority() {
        return url[..url::Position::AfterQuery].to_owned();
    }
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
    out.make_ascii_lowercase();
    out
}

/// The SURT authority of `url` (`org,archive,www,:8080`): the key of its politeness queue.
pub fn authority(url: &Url) -> String {
    let mut out = String::new();
    push_authority(&mut out, url);
    out.make_ascii_lowercase();
    out
}

fn push_authority(out: &mut String, url: &Url) {
    match url.host() {
        Some(Host::Domain(d)) => {
            // `example.com.` is `example.com` (as its seen key is): one scope prefix, one politeness queue.
            for label in d.strip_suffix('.').unwrap_or(d).rsplit('.') {
                out.push_str(label);
                out.push(',');
            }
        }
        Some(Host::Ipv4(ip)) => out.push_str(&ip.to_string()),
        Some(Host::Ipv6(ip)) => {
            out.push('[');
            out.push_str(&ip.to_string());
            out.push_str("],");
        }
        None => {}
    }
    if let Some(port) = url.port() {
        out.push(':');
        out.push_str(&port.to_string());
    }
    if !url.username().is_empty() || url.password().is_some() {
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
/// One read from the CDX form, which drops a host's `www.`, also admits the `www.` host ([`SurtPrefix::with_www`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SurtPrefix(String, Option<String>);

impl SurtPrefix {
    /// The prefix a parsed seed implies: its SURT up to and including the last `/`
    /// (`http://www.archive.org/a/b.html` gives `http://(org,archive,www,)/a/`).
    pub fn from_seed(seed: &Url) -> SurtPrefix {
        SurtPrefix(as_prefix(http_surt(seed)), None)
    }

    /// The prefix a seed as written implies, by Heritrix's rules (`SurtPrefixSet.prefixFromPlainForceHttp`):
    /// a bare host is read as `http://host`; https is folded to http; everything after the last `/` is cut;
    /// and when no `/` follows the host, the closing `)` is left off too, so that the prefix also admits
    /// subdomains: `www.archive.org` gives `http://(org,archive,www,` but `www.archive.org/` gives
    /// `http://(org,archive,www,)/`.
    pub fn from_plain(seed: &str) -> Result<SurtPrefix, Error> {
        let text = seed.trim();
        let url = parse_lenient(text)?;
        let mut surt = http_surt(&url);
        let written = text.split('#').next().unwrap_or("");
        if !written.ends_with('/') && surt.ends_with('/') && url.query().is_none() {
            surt.pop();
        }
        Ok(SurtPrefix(as_prefix(surt), None))
    }

    /// Takes a prefix written by an operator, in SURT form already; lower-cased as Heritrix does.
    pub fn new(prefix: impl Into<String>) -> SurtPrefix {
        SurtPrefix(prefix.into().to_lowercase(), None)
    }

    /// The same prefix, also admitting the host's `www.` (`http://(org,example,)/docs` then takes in
    /// `http://(org,example,www,)/docs` too): for a prefix read from the CDX form, which IA's `surt` writes
    /// without the `www.` it drops (xt20b F3). A prefix that ends before its host does (`http://(org,`), or
    /// whose host is an address, is returned as it is.
    pub fn with_www(self) -> SurtPrefix {
        let SurtPrefix(prefix, _) = self;
        let www = prefix.find("://(").and_then(|at| {
            let host_at = at + 4;
            let end = host_at + prefix[host_at..].find([':', ')'])?;
            let host = &prefix[host_at..end];
            (host.ends_with(',') && !host.starts_with('['))
                .then(|| format!("{}www,{}", &prefix[..end], &prefix[end..]))
        });
        SurtPrefix(prefix, www)
    }

    /// Whether `url` lies inside this prefix.
    pub fn contains(&self, url: &Url) -> bool {
        self.matched_len(url).is_some()
    }

    /// How long the prefix that takes `url` in is (the `www.` form's length where only that matches), for
    /// ordering prefixes by how specific they are; none when `url` is outside.
    pub fn matched_len(&self, url: &Url) -> Option<usize> {
        let surt = http_surt(url);
        [Some(&self.0), self.1.as_ref()]
            .into_iter()
            .flatten()
            .filter(|p| surt.starts_with(p.as_str()))
            .map(String::len)
            .max()
    }

    /// The prefix as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Heritrix's `SurtPrefixSet.asPrefix`: cut after the last `/` when the SURT has a path (anywhere, even in the
/// query, as Heritrix's greedy pattern does); with no path, drop the closing `)`.
fn as_prefix(mut surt: String) -> String {
    let after_scheme = surt.find("//").map_or(0, |i| i + 2);
    if let Some(i) = surt[after_scheme..].rfind('/') {
        surt.truncate(after_scheme + i + 1);
    } else if let Some(i) = surt.rfind(')') {
        surt.remove(i);
    }
    surt
}

impl fmt::Display for SurtPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The Heritrix SURT with an `https` scheme folded to `http`.
fn http_surt(url: &Url) -> String {
    let surt = heritrix(url);
    match surt.strip_prefix("https://") {
        Some(rest) => format!("http://{rest}"),
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
            ("http://[::1]:8080/x", "http://([::1],:8080)/x"),
            ("http://u:p@a.b/", "http://(b,a,@u:p)/"),
            ("http://a.org/Path?Q=A", "http://(org,a,)/path?q=a"),
            ("http://a.org./x", "http://(org,a,)/x"),
            // No authority: unchanged, as Heritrix's SURT.fromURI returns it.
            ("mailto:someone@example.com", "mailto:someone@example.com"),
            ("dns:Example.COM", "dns:Example.COM"),
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
            ("http://a.org/a/b/?x=/y/", "http://(org,a,)/a/b/?x=/y/"),
            ("http://a.org/a/b?x=1", "http://(org,a,)/a/"),
        ];
        for (seed, want) in rows {
            assert_eq!(SurtPrefix::from_seed(&u(seed)).as_str(), want, "{seed}");
        }
    }

    #[test]
    fn plain_prefixes() {
        let rows = [
            ("www.archive.org", "http://(org,archive,www,"),
            ("www.archive.org/", "http://(org,archive,www,)/"),
            ("https://archive.org", "http://(org,archive,"),
            ("archive.org/docs/x.html", "http://(org,archive,)/docs/"),
            ("http://archive.org/docs", "http://(org,archive,)/"),
        ];
        for (seed, want) in rows {
            assert_eq!(
                SurtPrefix::from_plain(seed).unwrap().as_str(),
                want,
                "{seed}"
            );
        }
        let open = SurtPrefix::from_plain("archive.org").unwrap();
        assert!(open.contains(&u("http://web.archive.org/x")));
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
        let www = SurtPrefix::new("http://(org,example,)/docs").with_www();
        assert!(www.contains(&u("http://example.org/docs/a")));
        assert!(www.contains(&u("https://www.example.org/docs/a")));
        assert!(!www.contains(&u("http://wwwx.example.org/docs/a")));
        assert!(!www.contains(&u("http://www.example.org/other")));
        let port = SurtPrefix::new("http://(org,example,:8080)/").with_www();
        assert!(port.contains(&u("http://www.example.org:8080/a")));
        assert!(!port.contains(&u("http://www.example.org/a")));
        assert_eq!(
            www.matched_len(&u("http://www.example.org/docs/a")),
            Some("http://(org,example,www,)/docs".len())
        );
        // An address, and a prefix ending before its host, take no `www.` form.
        for as_is in [
            "http://(127.0.0.1:4000)/",
            "http://(org,",
            "http://(org,example,",
        ] {
            assert_eq!(
                SurtPrefix::new(as_is).with_www(),
                SurtPrefix::new(as_is),
                "{as_is}"
            );
        }
    }
}
