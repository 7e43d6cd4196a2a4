//! Naming: a URI's identity (docs/url-identity.md) — its URL class, canonical URL and uniq key — found once,
//! when it is named.

use trawl_config::{ClassFacts, CrawlUri};
use trawl_url::{Url, class::UrlClasses};

/// How a crawl names URIs: its URL classes and its canonicalization rules.
#[derive(Debug)]
pub(crate) struct Naming {
    pub(crate) identity: trawl_url::Identity,
    pub(crate) classes: UrlClasses,
}

/// Why a config's naming could not be built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NamingError {
    /// The identity rules (canonicalizer, site rewrites).
    #[error(transparent)]
    Identity(#[from] Box<trawl_config::settings::Problem>),
    /// The URL classes.
    #[error(transparent)]
    Classes(#[from] trawl_url::class::ClassErrors),
}

/// What a class's failed derivation was for, as crawl.log names it: `api`, `next_page`, or the field.
fn failed_field(e: &trawl_url::class::ClassError) -> String {
    let field = e.field().unwrap_or("class");
    let name = field.split(['[', '.']).next().unwrap_or(field);
    name.to_owned()
}

impl Naming {
    /// The identity rules and URL classes of `config`; the error says which is wrong.
    pub(crate) fn from_config(config: &trawl_config::CrawlConfig) -> Result<Naming, NamingError> {
        Ok(Naming {
            identity: config.identity.build()?,
            classes: config.compile_classes()?,
        })
    }

    /// Sets a URI's identity (docs/url-identity.md): a matching URL class's server form is fetched and what the
    /// class says of it is kept; the canonical URL is the class's canonical form (`ClassMatch::canonical`:
    /// normalised for files and posts, the server form for galleries and watchables), else a site rewrite,
    /// else the cleaned raw URL; the uniq key is the canonical URL under the crawl's canonicalizer.
    pub(crate) fn name(&self, uri: &mut CrawlUri) {
        // One class match per URI: its server form is fetched and its canonical form is the class hint.
        let normalised = self.classes.match_url(&uri.url).map(|m| {
            let canonical = m.canonical().clone();
            uri.url = m.for_server;
            uri.class = Some(Box::new(ClassFacts {
                name: m.class,
                kind: m.kind,
                api_url: m.api_url,
                next_page: m.next_page,
                render: m.render,
                failed: m.problems.iter().map(failed_field).collect(),
            }));
            canonical
        });
        let normalise = |_: &Url| normalised.clone();
        let hints = trawl_url::CanonicalHints::none().with_url_class(&normalise);
        let (canonical, _) = self.identity.canonical(&uri.url, hints);
        uri.uniq_key = self.identity.uniq_key(&canonical);
        uri.canonical = (canonical != uri.url).then_some(canonical);
    }
}
