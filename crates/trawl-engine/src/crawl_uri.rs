//! `CrawlUri`: one URI in flight, a record that each pipeline stage reads and adds to.

use std::sync::Arc;

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
    /// The seed this URI was discovered from (Heritrix's source tag), for the sources report.
    pub source: Arc<str>,
    /// Its place in its queue (lower first), from its settings when scheduled.
    pub precedence: u8,
    /// The precedence it gives its queue (lower first), from its settings when scheduled.
    pub queue_precedence: u8,
    /// The budget its sheets give its queue, when they change `frontier.max_uris_per_host` (only read when
    /// it is scheduled; not stored).
    pub queue_budget: Option<u64>,
}

impl CrawlUri {
    /// A seed URI.
    pub fn seed(url: Url, uniq_key: String) -> CrawlUri {
        CrawlUri {
            uniq_key,
            hop_path: String::new(),
            via: None,
            is_seed: true,
            kind: UriKind::Page,
            tries: 0,
            canonical: None,
            api_for: None,
            revisit: 0,
            source: Arc::from(url.as_str()),
            precedence: 1,
            queue_precedence: 3,
            queue_budget: None,
            url,
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
            source: self.source.clone(),
            precedence: self.precedence,
            queue_precedence: self.queue_precedence,
            queue_budget: None,
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

    /// Sets its precedences and its queue's budget from its settings (the crawl's, with its sheets applied)
    /// where they differ from the crawl's own (`base`).
    pub fn rank(&mut self, settings: &crate::CrawlConfig, base: &crate::CrawlConfig) {
        self.precedence = settings.frontier.uri_precedence_of(self.hop_count());
        self.queue_precedence = settings.frontier.queue_precedence;
        let budget = settings.frontier.max_uris_per_host;
        self.queue_budget = (budget != base.frontier.max_uris_per_host).then_some(if budget == 0 {
            u64::MAX
        } else {
            budget
        });
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

/// The on-disk form of a queued URI (the frontier keeps queues on disk): a version byte, then the fields.
impl trawl_frontier::Item for CrawlUri {
    fn uniq_key(&self) -> &str {
        &self.uniq_key
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let mut put = |s: &str| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        put(self.url.as_str());
        put(&self.uniq_key);
        put(&self.hop_path);
        put(self.via.as_ref().map_or("", Url::as_str));
        put(self.canonical.as_ref().map_or("", Url::as_str));
        put(self.api_for.as_ref().map_or("", Url::as_str));
        let (kind, origin, redirects) = match &self.kind {
            UriKind::Page => (0u8, "", 0u8),
            UriKind::Robots { origin, redirects } => (1, origin.as_str(), *redirects),
        };
        put(origin);
        out.push(kind);
        out.push(redirects);
        out.push(u8::from(self.is_seed));
        out.extend_from_slice(&self.tries.to_le_bytes());
        out.extend_from_slice(&self.revisit.to_le_bytes());
        out.extend_from_slice(&(self.source.len() as u32).to_le_bytes());
        out.extend_from_slice(self.source.as_bytes());
        out.push(self.precedence);
        out.push(self.queue_precedence);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let mut at = 0;
        let mut take = |n: usize| {
            let s = bytes.get(at..at + n)?;
            at += n;
            Some(s)
        };
        let mut strings = Vec::with_capacity(7);
        for _ in 0..7 {
            let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
            strings.push(std::str::from_utf8(take(len)?).ok()?.to_string());
        }
        let kind = take(1)?[0];
        let redirects = take(1)?[0];
        let is_seed = take(1)?[0] == 1;
        let tries = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let revisit = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let source = Arc::from(std::str::from_utf8(take(len)?).ok()?);
        let precedence = take(1)?[0];
        let queue_precedence = take(1)?[0];
        let url_opt = |s: &str| (!s.is_empty()).then(|| Url::parse(s).ok()).flatten();
        Some(CrawlUri {
            url: Url::parse(&strings[0]).ok()?,
            uniq_key: strings[1].clone(),
            hop_path: strings[2].clone(),
            via: url_opt(&strings[3]),
            canonical: url_opt(&strings[4]),
            api_for: url_opt(&strings[5]),
            kind: match kind {
                0 => UriKind::Page,
                _ => UriKind::Robots {
                    origin: strings[6].clone(),
                    redirects,
                },
            },
            is_seed,
            tries,
            revisit,
            source,
            precedence,
            queue_precedence,
            queue_budget: None,
        })
    }

    fn precedence(&self) -> u8 {
        self.precedence
    }

    fn queue_precedence(&self) -> u8 {
        self.queue_precedence
    }

    fn queue_budget(&self) -> Option<u64> {
        self.queue_budget
    }
}

#[cfg(test)]
mod tests {
    use trawl_frontier::Item;

    use super::*;

    #[test]
    fn round_trips_through_bytes() {
        let seed = CrawlUri::seed(Url::parse("http://a.org/").unwrap(), "http://a.org/".into());
        let mut child = seed.child(
            Url::parse("http://a.org/x?y").unwrap(),
            "k".into(),
            Hop::Embed,
        );
        child.canonical = Some(Url::parse("http://a.org/x").unwrap());
        child.tries = 2;
        child.revisit = 3;
        let robots = child.robots_prerequisite();
        for uri in [seed, child, robots] {
            let mut bytes = Vec::new();
            uri.encode(&mut bytes);
            let back = CrawlUri::decode(&bytes).unwrap();
            assert_eq!(format!("{back:?}"), format!("{uri:?}"));
        }
        assert!(CrawlUri::decode(b"\x05\x00\x00\x00abc").is_none());
    }
}
