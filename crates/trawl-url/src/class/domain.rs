//! Which hosts a class matches, and which host its normalised URLs get (hydrus's `URLDomainMask`).

use super::pattern::Pattern;

/// The compiled `domains`, `domain_regexes`, `match_subdomains` and `keep_subdomains` of a class.
#[derive(Debug, Clone)]
pub(crate) struct DomainMask {
    /// Lowercase ASCII (IDNA) host names.
    domains: Vec<String>,
    /// For each domain regex: the anchored match pattern and the end-anchored clip pattern.
    regexes: Vec<(Pattern, Pattern)>,
    /// The regexes as written (for the sort key and to tell masks apart).
    regex_texts: Vec<String>,
    match_subdomains: bool,
    keep_subdomains: bool,
}

/// A `www`-like label: `www`, `www2`, `wwwfoo` (hydrus's `www[^.]*`).
fn is_www_label(label: &str) -> bool {
    label.starts_with("www") && !label.contains('.')
}

/// Whether `host` is `domain` or ends with `.domain`; returns the part before `.domain` if so.
fn subdomain_of<'h>(host: &'h str, domain: &str) -> Option<&'h str> {
    if host == domain {
        return Some("");
    }
    let prefix = host.strip_suffix(domain)?.strip_suffix('.')?;
    (!prefix.is_empty()).then_some(prefix)
}

impl DomainMask {
    /// Compiles the mask; errors name the field (`domains[0]`, `domain_regexes[1]`).
    pub(crate) fn new(
        domains: &[String],
        domain_regexes: &[String],
        match_subdomains: bool,
        keep_subdomains: bool,
    ) -> Result<Self, (String, String)> {
        if domains.is_empty() && domain_regexes.is_empty() {
            return Err((
                "domains".into(),
                "a class needs at least one domain or domain regex".into(),
            ));
        }
        let domains = domains
            .iter()
            .enumerate()
            .map(|(i, d)| {
                normalise_domain(d)
                    .ok_or_else(|| (format!("domains[{i}]"), format!("{d:?} is not a host name")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let prefix = if match_subdomains {
            r"(?:.*\.)?"
        } else {
            r"(?:www[^.]*\.)?"
        };
        let regexes = domain_regexes
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let field = || format!("domain_regexes[{i}]");
                let r = unanchored(r);
                let whole = Pattern::new(&format!("^{prefix}(?:{r})$"));
                let clip = Pattern::new(&format!("(?:{r})$"));
                match (whole, clip) {
                    (Ok(w), Ok(c)) => Ok((w, c)),
                    (Err(e), _) | (_, Err(e)) => {
                        Err((field(), format!("{r:?} is not a valid regex: {}", e.reason)))
                    }
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            domains,
            regexes,
            regex_texts: domain_regexes.to_vec(),
            match_subdomains,
            keep_subdomains,
        })
    }

    /// Whether the class matches URLs on `host` (lowercase, as the `url` crate gives it).
    pub(crate) fn matches(&self, host: &str) -> bool {
        let by_name = self.domains.iter().any(|d| match subdomain_of(host, d) {
            None => false,
            Some("") => true,
            Some(prefix) => self.match_subdomains || is_www_label(prefix),
        });
        by_name || self.regexes.iter().any(|(whole, _)| whole.is_match(host))
    }

    /// hydrus's `URLDomainMask.GetSortingComplexity`: the length of the longest domain or domain regex (10
    /// when there is neither). Longer masks are tried first.
    pub(crate) fn sort_length(&self) -> usize {
        self.domains
            .iter()
            .chain(&self.regex_texts)
            .map(|d| d.chars().count())
            .max()
            .unwrap_or(10)
    }

    /// Whether two masks are one for hydrus's grouping: the same domains, regexes and `match_subdomains`
    /// (`keep_subdomains` changes only normalisation).
    pub(crate) fn same_mask(&self, other: &DomainMask) -> bool {
        self.domains == other.domains
            && self.regex_texts == other.regex_texts
            && self.match_subdomains == other.match_subdomains
    }

    /// The host of normalised URLs, as hydrus's `URLDomainMask.Normalise` makes it: the whole host with
    /// `keep_subdomains` (a `www.` included), else exactly the matched domain (so `www.` and every other
    /// subdomain go). `host` must match.
    pub(crate) fn normalise<'h>(&self, host: &'h str) -> &'h str {
        if self.keep_subdomains {
            host
        } else {
            let by_name = self
                .domains
                .iter()
                .find(|d| subdomain_of(host, d).is_some())
                .map(|d| &host[host.len() - d.len()..]);
            let by_regex = || {
                self.regexes
                    .iter()
                    .find_map(|(_, clip)| clip.find(host).map(|r| &host[r]))
            };
            by_name.or_else(by_regex).unwrap_or(host)
        }
    }
}

/// A configured domain as the `url` crate would write the host: lowercase, IDNA; `None` if it is not a host.
/// `regex` without the `^` and `$` its writer may have anchored it with: the mask anchors it itself, after an
/// optional `www…` label, which an inner `^` would never let match (`^example\.com$` must match
/// `www.example.com` too). An escaped `\$` at the end stays.
fn unanchored(regex: &str) -> &str {
    let r = regex.strip_prefix('^').unwrap_or(regex);
    match r.strip_suffix('$') {
        Some(rest) if !rest.ends_with('\\') || rest.ends_with("\\\\") => rest,
        _ => r,
    }
}

fn normalise_domain(domain: &str) -> Option<String> {
    if domain.is_empty() || domain.contains(['/', ':', '@', '?', '#', '\\']) {
        return None;
    }
    let url = url::Url::parse(&format!("http://{domain}/")).ok()?;
    url.host_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(domains: &[&str], regexes: &[&str], sub: bool, keep: bool) -> DomainMask {
        let d: Vec<String> = domains.iter().map(|s| s.to_string()).collect();
        let r: Vec<String> = regexes.iter().map(|s| s.to_string()).collect();
        DomainMask::new(&d, &r, sub, keep).unwrap()
    }

    #[test]
    fn www_prefixes_always_match() {
        let m = mask(&["tbib.org"], &[], false, false);
        for host in ["tbib.org", "www.tbib.org", "www2.tbib.org", "wwwx.tbib.org"] {
            assert!(m.matches(host), "{host}");
            assert_eq!(m.normalise(host), "tbib.org");
        }
        for host in [
            "art.tbib.org",
            "www.art.tbib.org",
            "nottbib.org",
            "tbib.org.evil",
            "org",
        ] {
            assert!(!m.matches(host), "{host}");
        }
    }

    /// xt5 F12: a regex anchored by its writer still matches `www.` hosts.
    #[test]
    fn written_anchors_are_dropped() {
        let m = mask(&[], &[r"^example\.com$"], false, false);
        for host in ["example.com", "www.example.com", "www2.example.com"] {
            assert!(m.matches(host), "{host}");
        }
        assert!(!m.matches("notexample.com"));
        assert_eq!(unanchored(r"a\$"), r"a\$");
        assert_eq!(unanchored(r"^a\\$"), r"a\\");
    }

    #[test]
    fn subdomains_when_allowed() {
        let m = mask(&["e621.net"], &[], true, false);
        assert!(m.matches("static1.e621.net"));
        assert!(m.matches("a.b.e621.net"));
        assert!(!m.matches("xe621.net"));
        assert_eq!(m.normalise("static1.e621.net"), "e621.net");
        assert_eq!(m.normalise("www.e621.net"), "e621.net");
    }

    #[test]
    fn keep_subdomains_keeps_the_whole_host() {
        let m = mask(&["site.com"], &[], true, true);
        assert_eq!(m.normalise("artist.site.com"), "artist.site.com");
        assert_eq!(m.normalise("www.artist.site.com"), "www.artist.site.com");
        assert_eq!(m.normalise("www.site.com"), "www.site.com");
        // Without keep_subdomains, exactly the listed domain, www or not.
        let m = mask(&["www.only.com"], &[], false, false);
        assert!(!m.matches("only.com"));
        assert_eq!(m.normalise("www.only.com"), "www.only.com");
        assert_eq!(m.normalise("www2.www.only.com"), "www.only.com");
    }

    #[test]
    fn sort_length_and_grouping() {
        assert_eq!(
            mask(&["a.org", "long.example"], &[], false, false).sort_length(),
            12
        );
        assert_eq!(mask(&[], &[r"[a-z]+\.b"], false, false).sort_length(), 9);
        let a = mask(&["a.org"], &[], false, false);
        assert!(a.same_mask(&mask(&["a.org"], &[], false, true)));
        assert!(!a.same_mask(&mask(&["a.org"], &[], true, false)));
    }

    #[test]
    fn domain_regexes() {
        let m = mask(&[], &[r"[a-z]+\.booru\.org"], false, false);
        assert!(m.matches("safe.booru.org"));
        assert!(m.matches("www.safe.booru.org"));
        assert!(!m.matches("booru.org"));
        assert!(!m.matches("safe.booru.org.evil"));
        assert_eq!(m.normalise("www.safe.booru.org"), "safe.booru.org");
        let m = mask(&[], &["(?!api)[a-z]+\\.site\\.com"], false, false);
        assert!(m.matches("cdn.site.com"));
        assert!(!m.matches("api.site.com"));
    }

    #[test]
    fn configured_domains_are_normalised() {
        let m = mask(&["TBIB.org", "bücher.de"], &[], false, false);
        assert!(m.matches("tbib.org"));
        assert!(m.matches("xn--bcher-kva.de"));
        let err = DomainMask::new(&["a/b".into()], &[], false, false).unwrap_err();
        assert_eq!(err.0, "domains[0]");
        let err = DomainMask::new(&[], &["(".into()], false, false).unwrap_err();
        assert_eq!(err.0, "domain_regexes[0]");
        assert_eq!(
            DomainMask::new(&[], &[], false, false).unwrap_err().0,
            "domains"
        );
    }
}
