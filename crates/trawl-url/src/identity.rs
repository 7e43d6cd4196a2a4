//! One crawl's identity settings and the five names of a URL: raw, canonical, uniq key, SURT, normalized key
//! (plus its version template).

use url::Url;
use uuid::Uuid;

use crate::{
    Rewrite,
    canon::{Canonicalizer, HeritrixRules, cleanup::cleanup},
    norm::{self, NormKey, TrackingParams},
    surt::{self, SurtOptions},
    version::{self, VersionTemplate},
};

/// A URL-class normaliser: a matching URL class returns the URL it normalises to (the URL classes work plugs in
/// here).
pub type UrlClassNormaliser<'a> = &'a dyn Fn(&Url) -> Option<Url>;

/// What the engine may know about a URL beyond its text, consulted in this order by [`Identity::canonical`].
#[derive(Default, Clone, Copy)]
#[non_exhaustive]
pub struct CanonicalHints<'a> {
    /// Where the URL finally redirected to, once it has been fetched.
    pub redirect_target: Option<&'a Url>,
    /// The URL-class normalisation: a matching URL class returns the URL it normalises to.
    pub url_class: Option<UrlClassNormaliser<'a>>,
}

impl<'a> CanonicalHints<'a> {
    /// No hints: the canonical URL comes from site rewrites or the generic cleanup.
    pub fn none() -> CanonicalHints<'a> {
        CanonicalHints::default()
    }

    /// The final redirect target is known.
    pub fn with_redirect(mut self, target: &'a Url) -> Self {
        self.redirect_target = Some(target);
        self
    }

    /// A URL-class normaliser to consult.
    pub fn with_url_class(mut self, normalise: UrlClassNormaliser<'a>) -> Self {
        self.url_class = Some(normalise);
        self
    }
}

/// Which rule chose the canonical URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CanonicalSource {
    /// The final redirect target.
    Redirect,
    /// A URL class's normalisation.
    UrlClass,
    /// A site rewrite rule.
    SiteRewrite,
    /// The raw URL with only what no server tells apart cleaned away (the module notes of the cleanup).
    Cleanup,
}

impl CanonicalSource {
    /// The name used in `--json` output.
    pub fn name(self) -> &'static str {
        match self {
            CanonicalSource::Redirect => "redirect",
            CanonicalSource::UrlClass => "url_class",
            CanonicalSource::SiteRewrite => "site_rewrite",
            CanonicalSource::Cleanup => "cleanup",
        }
    }
}

/// Every name of one URL, as `trawl url explain` prints them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Explanation {
    /// The raw URL.
    pub raw: Url,
    /// The canonical URL.
    pub canonical: Url,
    /// Which rule chose it.
    pub canonical_source: CanonicalSource,
    /// The uniq key: the canonical URL under the crawl's canonicalizer.
    pub uniq_key: String,
    /// The CDX-form SURT of the canonical URL (IA `surt` defaults).
    pub surt: String,
    /// The Heritrix-form SURT of the raw URL: what the scope's SURT prefixes are matched against (as in
    /// Heritrix), so a scope decision can be read off it.
    pub surt_heritrix: String,
    /// The normalized key of the raw URL.
    pub norm: NormKey,
    /// The version template of the canonical URL, if it has a version segment.
    pub version_template: Option<VersionTemplate>,
}

/// One crawl's identity settings. [`Default`] is Heritrix's rules, the default tracking list and no rewrites.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Identity {
    /// The rule set of the uniq key. Default: heritrix.
    pub canonicalizer: Canonicalizer,
    /// Heritrix's optional extra rules, used when `canonicalizer` is heritrix. Default: none.
    pub heritrix: HeritrixRules,
    /// Query parameters the normalized key drops. Default: [`TrackingParams::default_names`].
    pub tracking: TrackingParams,
    /// Site rewrite rules for the canonical URL, first match wins. Default: none.
    pub rewrites: Vec<Rewrite>,
}

impl Identity {
    /// The canonical URL of `raw`: the final redirect target once known, else the URL class normalisation,
    /// else the first matching site rewrite, else `raw` with only what no server tells apart cleaned away:
    /// fragment and userinfo dropped, empty host labels removed, escapes of unreserved characters decoded and
    /// the others' hex upper-cased (RFC 3986 6.2.2). Reserved escapes (`%2B`, `%2F`, `%3D` ...) and the order
    /// of the query's arguments are kept, so that two URLs a server may answer differently never share a
    /// uniq key.
    pub fn canonical(&self, raw: &Url, hints: CanonicalHints<'_>) -> (Url, CanonicalSource) {
        if let Some(target) = hints.redirect_target {
            return (without_fragment(target), CanonicalSource::Redirect);
        }
        if let Some(class) = hints.url_class
            && let Some(u) = class(raw)
        {
            return (without_fragment(&u), CanonicalSource::UrlClass);
        }
        let raw_str = without_fragment(raw);
        for rule in &self.rewrites {
            if let Some(u) = rule
                .apply_full(raw_str.as_str())
                .and_then(|s| Url::parse(&s).ok())
            {
                return (u, CanonicalSource::SiteRewrite);
            }
        }
        (cleanup(raw), CanonicalSource::Cleanup)
    }

    /// The uniq key of a canonical URL: the string the already-seen filter tests.
    pub fn uniq_key(&self, canonical: &Url) -> String {
        match self.canonicalizer {
            Canonicalizer::Heritrix => self.heritrix.canonicalize(canonical),
            c => c.canonicalize(canonical),
        }
    }

    /// The normalized key of `url` under this crawl's tracking list.
    pub fn norm(&self, url: &Url) -> NormKey {
        norm::normalize(url, &self.tracking)
    }

    /// Every name of `raw`.
    pub fn explain(&self, raw: &Url, hints: CanonicalHints<'_>) -> Explanation {
        let (canonical, canonical_source) = self.canonical(raw, hints);
        Explanation {
            raw: raw.clone(),
            uniq_key: self.uniq_key(&canonical),
            surt: surt::cdx(&canonical, &SurtOptions::default()),
            surt_heritrix: surt::heritrix(raw),
            norm: self.norm(raw),
            version_template: version::version_template(&canonical),
            canonical,
            canonical_source,
        }
    }
}

fn without_fragment(u: &Url) -> Url {
    let mut u = u.clone();
    u.set_fragment(None);
    u
}

/// The UUID of a normalized key string, for keys computed elsewhere.
pub fn norm_uuid(key: &str) -> Uuid {
    Uuid::new_v5(&norm::NORM_NAMESPACE, key.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn canonical_layers_in_order() {
        let id = Identity {
            rewrites: crate::rewrite::example_site_rewrites(),
            ..Identity::default()
        };
        let raw = u("https://stackoverflow.com/q/1732348#x");
        let target = u("https://stackoverflow.com/questions/1732348/regex#1732454");
        let class = |url: &Url| {
            (url.path().starts_with("/q/")).then(|| u("https://stackoverflow.com/questions/1"))
        };
        let rows: [(CanonicalHints<'_>, &str, CanonicalSource); 3] = [
            (
                CanonicalHints::none()
                    .with_redirect(&target)
                    .with_url_class(&class),
                "https://stackoverflow.com/questions/1732348/regex",
                CanonicalSource::Redirect,
            ),
            (
                CanonicalHints::none().with_url_class(&class),
                "https://stackoverflow.com/questions/1",
                CanonicalSource::UrlClass,
            ),
            (
                CanonicalHints::none(),
                "https://stackoverflow.com/questions/1732348",
                CanonicalSource::SiteRewrite,
            ),
        ];
        for (hints, want, source) in rows {
            let (got, s) = id.canonical(&raw, hints);
            assert_eq!((got.as_str(), s), (want, source));
        }
        let (got, s) = id.canonical(
            &u("http://a:b@example.com/x/%7e?b=1&a=2#f"),
            CanonicalHints::none(),
        );
        assert_eq!(
            (got.as_str(), s),
            ("http://example.com/x/~?b=1&a=2", CanonicalSource::Cleanup)
        );
    }

    #[test]
    fn explains() {
        let e = Identity::default().explain(
            &u("http://www.archive.org/goo/?a=2&b&a=1"),
            CanonicalHints::none(),
        );
        // The cleanup keeps the arguments' order, and so do Heritrix's rules.
        assert_eq!(e.uniq_key, "http://archive.org/goo/?a=2&b&a=1");
        assert_eq!(e.surt, "org,archive)/goo?a=1&a=2&b");
        // The raw URL's, as the scope sees it.
        assert_eq!(e.surt_heritrix, "http://(org,archive,www,)/goo/?a=2&b&a=1");
        assert_eq!(e.norm.as_str(), "http://archive.org/goo?a=1&a=2&b");
        assert_eq!(norm_uuid(e.norm.as_str()), e.norm.uuid());
        assert_eq!(e.version_template, None);
    }

    /// Pairs of URLs a server may answer differently (docs/url-identity.md, "Canonical URL").
    const PAIRS: [(&str, &str); 5] = [
        ("http://e.com/p?q=a%2Bb", "http://e.com/p?q=a+b"),
        ("http://e.com/enc/a%2fb", "http://e.com/enc/a/b"),
        ("http://e.com/r?a=2&a=1", "http://e.com/r?a=1&a=2"),
        ("http://e.com/s?q==", "http://e.com/s?q=%3D"),
        ("http://e.com/x?a=1&b=2", "http://e.com/x?b=2&a=1"),
    ];

    /// Each pair gets two uniq keys under every canonicalizer that itself keeps the pair apart, `heritrix`
    /// (the default) and `whatwg` at least: the cleanup before it never merges them.
    #[test]
    fn cleanup_keeps_apart_what_a_server_may_tell_apart() {
        for (a, b) in PAIRS {
            let (a, b) = (u(a), u(b));
            let mut apart = Vec::new();
            for c in Canonicalizer::ALL {
                if c.canonicalize(&a) == c.canonicalize(&b) {
                    continue;
                }
                apart.push(c);
                let id = Identity {
                    canonicalizer: c,
                    ..Identity::default()
                };
                let key = |x: &Url| id.uniq_key(&id.canonical(x, CanonicalHints::none()).0);
                assert_ne!(key(&a), key(&b), "{c}: {a} and {b}");
            }
            assert!(
                apart.contains(&Canonicalizer::Heritrix) && apart.contains(&Canonicalizer::Whatwg),
                "{a} {b}: {apart:?}"
            );
        }
    }

    /// What the cleanup does merge: spellings RFC 3986 calls equivalent, and what the server never receives.
    #[test]
    fn cleanup_merges_only_equivalent_spellings() {
        let id = Identity::default();
        let key = |s: &str| id.uniq_key(&id.canonical(&u(s), CanonicalHints::none()).0);
        for (a, b) in [
            ("http://e.com/%7Euser/%41?q=%61", "http://e.com/~user/A?q=a"),
            ("http://e.com/a%2fb", "http://e.com/a%2Fb"),
            ("http://u:p@e.com/x#top", "http://e.com/x"),
        ] {
            assert_eq!(key(a), key(b), "{a} {b}");
        }
    }

    /// `example.com.` (a trailing dot: the absolute form of the same DNS name) is fetched as written (the raw
    /// URL, so the WARC-Target-URI, keeps it) but is one URL with `example.com` in the already-seen filter, as it
    /// is one in the CDX index replay looks it up by (docs/url-identity.md says why).
    #[test]
    fn a_hosts_trailing_dot_is_fetched_as_written_and_seen_once() {
        let id = Identity::default();
        let (dotted, plain) = (u("http://example.com./x"), u("http://example.com/x"));
        assert_eq!(dotted.host_str(), Some("example.com."));
        let key = |raw: &Url| id.uniq_key(&id.canonical(raw, CanonicalHints::none()).0);
        assert_eq!(key(&dotted), key(&plain));
        assert_eq!(
            crate::surt::index_key(dotted.as_str()),
            crate::surt::index_key(plain.as_str())
        );
    }
}
