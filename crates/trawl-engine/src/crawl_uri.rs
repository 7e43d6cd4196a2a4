//! `CrawlUri`: one URI in flight, a record that each pipeline stage reads and adds to.

use url::Url;

use crate::Hop;

/// What kind of work a URI stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriKind {
    /// An ordinary document.
    Page,
    /// The robots.txt of `origin` (`scheme://host:port`), fetched as a prerequisite of its other URIs; after a
    /// redirect the URL may be elsewhere, so the origin it speaks for is kept.
    Robots {
        /// The origin whose rules this fetch decides.
        origin: String,
        /// Redirects followed so far.
        redirects: u8,
    },
}

/// One URI in flight: its identity, how it was found, and how many times it was tried.
#[derive(Debug, Clone)]
pub struct CrawlUri {
    /// The URL fetched (the raw URL, fragment removed).
    pub url: Url,
    /// The already-seen key (canonical URL under the crawl's canonicalization rules).
    pub uniq_key: String,
    /// One letter per hop from the seed; empty for a seed.
    pub hop_path: String,
    /// The URI whose document linked here; `None` for a seed.
    pub via: Option<Url>,
    /// Whether this URI is a seed.
    pub is_seed: bool,
    /// Page or prerequisite.
    pub kind: UriKind,
    /// Fetch attempts made so far.
    pub tries: u32,
    /// The canonical URL when it differs from `url`: a URL class's normalised form.
    pub canonical: Option<Url>,
    /// For an API URL fetched in place of a URL class's page: that page's URL.
    pub api_for: Option<Url>,
    /// How many times this URL was fetched before (watchable URLs are revisited).
    pub revisit: u32,
}

impl CrawlUri {
    /// A seed URI.
    pub fn seed(url: Url, uniq_key: String) -> CrawlUri {
        CrawlUri {
            url,
            uniq_key,
            hop_path: String::new(),
            via: None,
            is_seed: true,
            kind: UriKind::Page,
            tries: 0,
            canonical: None,
            api_for: None,
            revisit: 0,
        }
    }

    /// A URI found in `self`'s document, reached by `hop`.
    pub fn child(&self, url: Url, uniq_key: String, hop: Hop) -> CrawlUri {
        let mut hop_path = self.hop_path.clone();
        hop_path.push(hop.letter());
        CrawlUri {
            url,
            uniq_key,
            hop_path,
            via: Some(self.url.clone()),
            is_seed: false,
            kind: UriKind::Page,
            tries: 0,
            canonical: None,
            api_for: None,
            revisit: 0,
        }
    }

    /// The robots.txt prerequisite of `self`'s origin.
    pub fn robots_prerequisite(&self) -> CrawlUri {
        let mut url = self.url.clone();
        url.set_path("/robots.txt");
        url.set_query(None);
        let mut child = self.child(url.clone(), url.to_string(), Hop::Prerequisite);
        child.kind = UriKind::Robots {
            origin: origin(&self.url),
            redirects: 0,
        };
        child
    }

    /// Hops from the seed.
    pub fn hop_count(&self) -> usize {
        self.hop_path.len()
    }

    /// The last hop, if not a seed.
    pub fn last_hop(&self) -> Option<char> {
        self.hop_path.chars().last()
    }
}

/// `scheme://host:port`: the unit robots.txt rules and keep-alive connections apply to.
pub(crate) fn origin(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or(0)
    )
}
