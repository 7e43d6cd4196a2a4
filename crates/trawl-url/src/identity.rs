//! One crawl's identity settings and the five names of a URL: raw, canonical, uniq key, SURT, normalized key
//! (plus its version template).

use url::Url;
use uuid::Uuid;

use crate::{
    Rewrite,
    canon::{Canonicalizer, HeritrixRules},
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
    /// The raw URL cleaned by the `semantic` canonicalizer.
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
    /// else the first matching site rewrite, else `raw` cleaned by the `semantic` canonicalizer.
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

/// The `semantic` cleanup of a raw URL, parsed back; the raw URL itself if that fails (it cannot for http(s)).
/// Most URLs come out of the cleanup unchanged: those are not parsed again (a parse was 4% of a crawl's CPU).
fn cleanup(raw: &Url) -> Url {
    let clean = Canonicalizer::Semantic.canonicalize(raw);
    if raw.fragment().is_none() && clean == raw.as_str() {
        return raw.clone();
    }
    Url::parse(&clean).unwrap_or_else(|_| without_fragment(raw))
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
            ("http://example.com/x/~?a=2&b=1", CanonicalSource::Cleanup)
        );
    }

    #[test]
    fn explains() {
        let e = Identity::default().explain(
            &u("http://www.archive.org/goo/?a=2&b&a=1"),
            CanonicalHints::none(),
        );
        assert_eq!(e.uniq_key, "http://archive.org/goo/?a=1&a=2&b");
        assert_eq!(e.surt, "org,archive)/goo?a=1&a=2&b");
        // The raw URL's, as the scope sees it.
        assert_eq!(e.surt_heritrix, "http://(org,archive,www,)/goo/?a=2&b&a=1");
        assert_eq!(e.norm.as_str(), "http://archive.org/goo?a=1&a=2&b");
        assert_eq!(norm_uuid(e.norm.as_str()), e.norm.uuid());
        assert_eq!(e.version_template, None);
    }
}
